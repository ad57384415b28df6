/* The AVX2 + FMA family, for x86 cores without AVX-512 (cmake/SpmvIsa.cmake builds this folder with -mavx2 -mfma
 * only). SELL: C = 4, 8, 16, 32 in the x-access variants "gather" (vgatherdpd ymm) and "emul" (scalar loads and
 * inserts), the faster one on this core by default (measured once per process), each also with non-temporal y
 * stores ("-nt", listed first: the registry offers them only when the matrix asks for them); CRS: the scalar-FMA
 * kernels. Usable when the CPU has AVX2 and FMA and the OS saves the ymm state (src/arch/cpu.c). */
#include "avx2_kernels.h"

#include <pthread.h>
#include <stddef.h>

static const spmv_kernel *const avx2_kernels[] = {
    &spmv__k_sell_avx2_emul_nt_c4,  &spmv__k_sell_avx2_gather_nt_c4,  &spmv__k_sell_avx2_emul_nt_c8,
    &spmv__k_sell_avx2_gather_nt_c8, &spmv__k_sell_avx2_emul_nt_c16, &spmv__k_sell_avx2_gather_nt_c16,
    &spmv__k_sell_avx2_emul_nt_c32, &spmv__k_sell_avx2_gather_nt_c32,
    &spmv__k_sell_avx2_emul_c4,  &spmv__k_sell_avx2_gather_c4,  &spmv__k_sell_avx2_emul_c8,
    &spmv__k_sell_avx2_gather_c8, &spmv__k_sell_avx2_emul_c16, &spmv__k_sell_avx2_gather_c16,
    &spmv__k_sell_avx2_emul_c32, &spmv__k_sell_avx2_gather_c32, &spmv__k_crs_avx2_short_pf, &spmv__k_crs_avx2_short,
    &spmv__k_crs_avx2_pf, &spmv__k_crs_avx2,
    NULL,
};

static int32_t avx2_vector_doubles(void) { return 4; }

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static spmv_xaccess probed = SPMV_X_GATHER;

static void probe(void) { probed = spmv__xaccess_measure(spmv__avx2_gather_probe); }

static spmv_xaccess avx2_xaccess_default(void)
{
    pthread_once(&probe_once, probe);
    return probed;
}

const spmv_family spmv__family_avx2 = {
    .name = "avx2",
    .arch = SPMV_ARCH_AVX2,
    .usable = spmv__cpu_avx2_fma,
    .kernels = avx2_kernels,
    .vector_doubles = avx2_vector_doubles,
    .xaccess_default = avx2_xaccess_default,
    .missing = "has SELL kernels for C = 4, 8, 16, 32 (32-byte aligned arrays) only",
    .fma_latency = 4,
    .gather_cost = 3, /* ymm gather + index load */
};
