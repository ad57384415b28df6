/* Kernel registry (BLIS habit): the reference kernels fill every slot, the family in use overrides the slots it
 * implements. A missing variant means slower, never a crash. SPMV_VERBOSE=1 names the choice and, when it is not
 * the fastest family, why. */
#include "internal.h"
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef SPMV_HAVE_AVX512
const spmv_kernel *const spmv__avx512_kernels[] = {NULL};
#endif
#ifndef SPMV_HAVE_SVE
const spmv_kernel *const spmv__sve_kernels[] = {NULL};
#else
int spmv__sve_vl_doubles(void); /* src/kernels/sve/sve_kernels.c: svcntd(); call only where SVE is usable */
#endif

static int verbose(void)
{
    const char *v = getenv("SPMV_VERBOSE");
    return v && *v && *v != '0';
}

static const spmv_kernel *const *family_list(spmv_arch a)
{
    return a == SPMV_ARCH_AVX512 ? spmv__avx512_kernels : a == SPMV_ARCH_SVE ? spmv__sve_kernels : NULL;
}

/* Why the reference kernel runs although it is not forced: no faster family here. */
static const char *no_family_reason(void)
{
#if defined(__x86_64__)
#ifdef SPMV_HAVE_AVX512
    return "this CPU or OS lacks AVX-512F/DQ/BW/VL";
#else
    return "the library was built without AVX-512 kernels";
#endif
#elif defined(__aarch64__)
#ifdef SPMV_HAVE_SVE
    return "this CPU lacks SVE";
#else
    return "the library was built without SVE kernels";
#endif
#else
    return "no optimized kernel family for this architecture";
#endif
}

/* Pick the kernel: sell != NULL for SELL, else CRS. */
static const spmv_kernel *pick(const spmv_sell *S, int is_sell, const char *what)
{
    spmv_arch a;
    if (spmv_arch_get(&a) != SPMV_OK) return NULL;
    const spmv_kernel *ref = is_sell ? &spmv__k_sell_ref : &spmv__k_crs_ref;
    const spmv_kernel *const *list = family_list(a);
    const spmv_kernel *k = NULL;
    for (; list && *list; list++) {
        const spmv_kernel *c = *list;
        if (is_sell ? !c->sell : !c->crs) continue;
        if (is_sell && !(c->accepts ? c->accepts(S) : c->C == S->C)) continue;
        k = c;
        break;
    }
    if (verbose()) {
        if (k)
            fprintf(stderr, "spmv: %s: kernel %s\n", what, k->name);
#ifdef SPMV_HAVE_SVE
        else if (a == SPMV_ARCH_SVE && is_sell) /* the SVE SELL kernels take any C = k*VL */
            fprintf(stderr, "spmv: %s: kernel %s (performance warning: C = %d is not a multiple of the SVE vector "
                    "length VL = %d doubles)\n", what, ref->name, S->C, spmv__sve_vl_doubles());
#endif
        else if (a != SPMV_ARCH_REF)
            fprintf(stderr, "spmv: %s: kernel %s (performance warning: the %s family has no kernel for %s%d)\n", what,
                    ref->name, spmv_arch_name(a), is_sell ? "C = " : "CRS", is_sell ? S->C : 0);
        else {
            const char *env = getenv("SPMV_ARCH");
            fprintf(stderr, "spmv: %s: kernel %s (%s)\n", what, ref->name,
                    env && *env ? "forced by SPMV_ARCH=ref" : no_family_reason());
        }
    }
    return k ? k : ref;
}

const spmv_kernel *spmv__crs_kernel(const spmv_crs *A) { return pick(NULL, 0, "CRS"); }

const spmv_kernel *spmv__sell_kernel(const spmv_sell *S)
{
    char what[96];
    snprintf(what, sizeof what, "SELL-%d-%d", S->C, S->sigma);
    return pick(S, 1, what);
}
