/* The AVX-512 family (AVX-512 F, DQ, BW, VL; cmake/SpmvIsa.cmake builds this folder with those flags only).
 *
 * Kernels, first match wins: for SELL, the non-temporal-store variants first (the registry offers them only when
 * the matrix asks for them), then C = 8, 16, 32, 64, each in the x-access variants "gather" (vgatherdpd) and "emul"
 * (scalar loads and inserts); the registry takes the variant the matrix asks for, by default the one this core runs
 * faster (xaccess_default: both are timed once per process on an L1-resident x). CRS: one scalar-FMA kernel. */
#include "avx512_kernels.h"

#include <pthread.h>
#include <stddef.h>

#define K(n) &SPMV_AVX512_SYM(n)
static const spmv_kernel *const avx512_kernels[] = {
    K(k_sell_avx512_emul_nt_c8),  K(k_sell_avx512_gather_nt_c8),  K(k_sell_avx512_emul_nt_c16),
    K(k_sell_avx512_gather_nt_c16), K(k_sell_avx512_emul_nt_c32), K(k_sell_avx512_gather_nt_c32),
    K(k_sell_avx512_emul_nt_c64), K(k_sell_avx512_gather_nt_c64), K(k_sell_avx512_emul_c8),
    K(k_sell_avx512_gather_c8),   K(k_sell_avx512_emul_c16),      K(k_sell_avx512_gather_c16),
    K(k_sell_avx512_emul_c32),    K(k_sell_avx512_gather_c32),    K(k_sell_avx512_emul_c64),
    K(k_sell_avx512_gather_c64),  K(k_crs_avx512_short_pf),       K(k_crs_avx512_short),
    K(k_crs_avx512_pf),           K(k_crs_avx512),                NULL,
};
#undef K

static int32_t avx512_vector_doubles(void) { return 8; }

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static spmv_xaccess probed = SPMV_X_GATHER;

static void probe(void) { probed = spmv__xaccess_measure(SPMV_AVX512_SYM(avx512_gather_probe)); }

static spmv_xaccess avx512_xaccess_default(void)
{
    pthread_once(&probe_once, probe);
    return probed;
}

const spmv_family SPMV_AVX512_SYM(family_avx512) = {
    .name = "avx512",
    .arch = SPMV_ARCH_AVX512,
    .usable = spmv__cpu_avx512,
    .kernels = avx512_kernels,
    .vector_doubles = avx512_vector_doubles,
    .xaccess_default = avx512_xaccess_default,
    .missing = "has SELL kernels for C = 8, 16, 32, 64 (64-byte aligned arrays) only",
    .fma_latency = 4,
    .gather_cost = 5.5, /* Intel server cores: ~5 cy zmm gather + index load */
};
