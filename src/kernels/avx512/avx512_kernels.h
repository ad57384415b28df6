/* The AVX-512 kernel descriptors (internal; listed in avx512_kernels.c for the registry). */
#ifndef SPMV_AVX512_KERNELS_H
#define SPMV_AVX512_KERNELS_H

#include "kernel.h"

#ifdef SPMV_AVX512_EMU /* test-only emulation build (emu/): own names, so it can link the library beside it */
#define spmv__avx512_kernels spmv__emu_avx512_kernels
#define spmv__k_sell_avx512_c8 spmv__emu_k_sell_avx512_c8
#define spmv__k_sell_avx512_c16 spmv__emu_k_sell_avx512_c16
#define spmv__k_sell_avx512_c32 spmv__emu_k_sell_avx512_c32
#define spmv__k_sell_avx512_c64 spmv__emu_k_sell_avx512_c64
#define spmv__k_sell_avx512_nt_c8 spmv__emu_k_sell_avx512_nt_c8
#define spmv__k_sell_avx512_nt_c16 spmv__emu_k_sell_avx512_nt_c16
#define spmv__k_sell_avx512_nt_c32 spmv__emu_k_sell_avx512_nt_c32
#define spmv__k_sell_avx512_nt_c64 spmv__emu_k_sell_avx512_nt_c64
#define spmv__k_crs_avx512 spmv__emu_k_crs_avx512
extern const spmv_kernel *const spmv__avx512_kernels[];
#endif

extern const spmv_kernel spmv__k_sell_avx512_c8, spmv__k_sell_avx512_c16, spmv__k_sell_avx512_c32,
    spmv__k_sell_avx512_c64;
extern const spmv_kernel spmv__k_sell_avx512_nt_c8, spmv__k_sell_avx512_nt_c16, spmv__k_sell_avx512_nt_c32,
    spmv__k_sell_avx512_nt_c64;
extern const spmv_kernel spmv__k_crs_avx512;

/* Environment variable that asks for non-temporal stores of y (SELL, permuted order): SPMV_SELL_NT=1. */
#define SPMV_SELL_NT_ENV "SPMV_SELL_NT"

#endif
