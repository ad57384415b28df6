/* CPU tests, once per process: CPU flags and the OS's register state. Nothing here knows about kernel families:
 * each family's usable() (src/kernels/<isa>/family.c) combines these tests. Baseline code only (no ISA flags), so it
 * never faults on an older CPU. */
#include "internal.h"
#include "kernel.h"

#include <pthread.h>
#include <string.h>

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
static int has_avx512, has_avx2_fma, has_sve, is_amd;

#if defined(__x86_64__)
/* XCR0: the state components the OS saves and restores */
static unsigned xcr0(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0; /* OSXSAVE */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return lo;
}
#endif

static void detect(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        char vendor[13];
        memcpy(vendor, &b, 4);
        memcpy(vendor + 4, &d, 4);
        memcpy(vendor + 8, &c, 4);
        vendor[12] = '\0';
        is_amd = strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0;
    }
    const unsigned x = xcr0();
    const int ymm_os = (x & 0x6) == 0x6;     /* XMM and YMM state */
    const int zmm_os = (x & 0xE6) == 0xE6;   /* plus opmask, ZMM_Hi256, Hi16_ZMM */
    int fma = 0;
    if (__get_cpuid(1, &a, &b, &c, &d)) fma = (c >> 12) & 1 && (c >> 28) & 1; /* FMA, AVX */
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        const unsigned avx512 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31); /* AVX512F, DQ, BW, VL */
        has_avx512 = (b & avx512) == avx512 && zmm_os;
        has_avx2_fma = ((b >> 5) & 1) && fma && ymm_os; /* AVX2 */
    }
#elif defined(__aarch64__) && defined(__linux__)
    has_sve = (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#endif
}

int spmv__cpu_avx512(void)
{
    pthread_once(&once, detect);
    return has_avx512;
}

int spmv__cpu_avx2_fma(void)
{
    pthread_once(&once, detect);
    return has_avx2_fma;
}

int spmv__cpu_sve(void)
{
    pthread_once(&once, detect);
    return has_sve;
}

int spmv__cpu_vendor_amd(void)
{
    pthread_once(&once, detect);
    return is_amd;
}
