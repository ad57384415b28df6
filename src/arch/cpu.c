/* CPU detection, once per process: which kernel families this build has and this CPU/OS can run, and the
 * family forced by SPMV_ARCH. Baseline code only (no ISA flags), so it never faults on an older CPU. */
#include "internal.h"
#include "kernel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int usable[3];          /* per spmv_arch */
static spmv_arch chosen;       /* family in use */
static spmv_status chosen_st;  /* SPMV_ERR_ARCH when SPMV_ARCH asks for the impossible */
static char chosen_msg[256];

static int cpu_has_avx512(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0; /* OSXSAVE */
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned need = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31); /* AVX512F, DQ, BW, VL */
    if ((b & need) != need) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xE6) == 0xE6; /* XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM state enabled by the OS */
#else
    return 0;
#endif
}

static int cpu_has_sve(void)
{
#if defined(__aarch64__) && defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#else
    return 0;
#endif
}

static void detect(void)
{
    usable[SPMV_ARCH_REF] = 1;
#ifdef SPMV_HAVE_AVX512
    usable[SPMV_ARCH_AVX512] = cpu_has_avx512();
#endif
#ifdef SPMV_HAVE_SVE
    usable[SPMV_ARCH_SVE] = cpu_has_sve();
#endif
    (void)cpu_has_avx512;
    (void)cpu_has_sve;
    chosen = usable[SPMV_ARCH_AVX512] ? SPMV_ARCH_AVX512 : usable[SPMV_ARCH_SVE] ? SPMV_ARCH_SVE : SPMV_ARCH_REF;
    const char *env = getenv("SPMV_ARCH");
    if (env && *env) {
        int found = 0;
        for (int a = 0; a < 3; a++)
            if (strcasecmp(env, spmv_arch_name((spmv_arch)a)) == 0) {
                found = 1;
                if (usable[a])
                    chosen = (spmv_arch)a;
                else {
                    chosen_st = SPMV_ERR_ARCH;
                    snprintf(chosen_msg, sizeof chosen_msg, "SPMV_ARCH=%s: the %s kernels are %s", env, env,
#if defined(SPMV_HAVE_AVX512) || defined(SPMV_HAVE_SVE)
                             "not built for or not supported by this CPU"
#else
                             "not built into this library"
#endif
                    );
                }
            }
        if (!found) {
            chosen_st = SPMV_ERR_ARCH;
            snprintf(chosen_msg, sizeof chosen_msg, "SPMV_ARCH=%s: unknown kernel family (use ref, avx512 or sve)",
                     env);
        }
    }
}

int spmv__arch_usable(spmv_arch a)
{
    pthread_once(&once, detect);
    return a >= 0 && a < 3 && usable[a];
}

spmv_status spmv_arch_get(spmv_arch *arch)
{
    pthread_once(&once, detect);
    if (!arch) return spmv__error(SPMV_ERR_ARG, "spmv_arch_get: argument arch is NULL");
    if (chosen_st) return spmv__error(chosen_st, "%s", chosen_msg);
    *arch = chosen;
    return SPMV_OK;
}

const char *spmv_arch_name(spmv_arch arch)
{
    switch (arch) {
    case SPMV_ARCH_REF: return "ref";
    case SPMV_ARCH_AVX512: return "avx512";
    case SPMV_ARCH_SVE: return "sve";
    }
    return "unknown";
}
