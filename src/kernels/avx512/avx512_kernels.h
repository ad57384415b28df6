/* The AVX-512 kernel descriptors (internal; listed in avx512_kernels.c for the registry). */
#ifndef SPMV_AVX512_KERNELS_H
#define SPMV_AVX512_KERNELS_H

#include "kernel.h"

extern const spmv_kernel spmv__k_sell_avx512_c8, spmv__k_sell_avx512_c16, spmv__k_sell_avx512_c32,
    spmv__k_sell_avx512_c64;
extern const spmv_kernel spmv__k_sell_avx512_nt_c8, spmv__k_sell_avx512_nt_c16, spmv__k_sell_avx512_nt_c32,
    spmv__k_sell_avx512_nt_c64;
extern const spmv_kernel spmv__k_crs_avx512;

/* Environment variable that asks for non-temporal stores of y (SELL, permuted order): SPMV_SELL_NT=1. */
#define SPMV_SELL_NT_ENV "SPMV_SELL_NT"

#endif
