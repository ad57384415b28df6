/* Which microbenchmark kernel set runs: the widest one that is both built (BENCH_HAVE_*, src/bench/
 * CMakeLists.txt) and supported by this CPU and OS. Baseline code: the checks themselves never fault. */
#include "bench.h"

#include <string.h>
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#endif

extern const bench_isa bench_isa_scalar;
#ifdef BENCH_HAVE_AVX2
extern const bench_isa bench_isa_avx2;
#endif
#ifdef BENCH_HAVE_AVX512
extern const bench_isa bench_isa_avx512;
#endif
#ifdef BENCH_HAVE_SVE
extern const bench_isa bench_isa_sve;
#endif

/* widest first */
static const bench_isa *const all[] = {
#ifdef BENCH_HAVE_AVX512
    &bench_isa_avx512,
#endif
#ifdef BENCH_HAVE_SVE
    &bench_isa_sve,
#endif
#ifdef BENCH_HAVE_AVX2
    &bench_isa_avx2,
#endif
    &bench_isa_scalar, NULL};

const bench_isa *const *bench_isa_all(void) { return all; }

const bench_isa *bench_isa_find(const char *name)
{
    for (int i = 0; name && all[i]; i++)
        if (!strcmp(all[i]->name, name)) return all[i];
    return NULL;
}

int bench_isa_usable(const bench_isa *isa)
{
    if (!isa) return 0;
    if (isa == &bench_isa_scalar) return 1;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    /* libgcc's feature bits include the OS check (XGETBV: YMM/ZMM state enabled); __builtin_cpu_supports returns
     * the feature's bit (e.g. 32768), not 1: normalised with != 0, as the function promises 0 or 1 */
#ifdef BENCH_HAVE_AVX2
    if (isa == &bench_isa_avx2) return __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("fma") != 0;
#endif
#ifdef BENCH_HAVE_AVX512
    if (isa == &bench_isa_avx512) return __builtin_cpu_supports("avx512f") != 0;
#endif
#endif
#if defined(BENCH_HAVE_SVE) && defined(__aarch64__) && defined(__linux__)
    if (isa == &bench_isa_sve) return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#endif
    return 0;
}

const bench_isa *bench_isa_best(void)
{
    for (int i = 0; all[i]; i++)
        if (bench_isa_usable(all[i])) return all[i];
    return &bench_isa_scalar;
}
