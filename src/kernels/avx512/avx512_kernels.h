/* The AVX-512 kernel descriptors (internal; listed in family.c for the registry). */
#ifndef SPMV_AVX512_KERNELS_H
#define SPMV_AVX512_KERNELS_H

#include "kernel.h"

/* Symbol names: the test-only emulation build (emu/) gives every symbol its own prefix, so it can link the library
 * beside it. */
#ifdef SPMV_AVX512_EMU
#define SPMV_AVX512_SYM(n) spmv__emu_##n
#else
#define SPMV_AVX512_SYM(n) spmv__##n
#endif

/* SELL kernels: x access gather | emul, ordinary or non-temporal y stores, C = 8, 16, 32, 64 */
#define SPMV_AVX512_SELL_DECL(CC)                                                                                  \
    extern const spmv_kernel SPMV_AVX512_SYM(k_sell_avx512_gather_c##CC), SPMV_AVX512_SYM(k_sell_avx512_emul_c##CC), \
        SPMV_AVX512_SYM(k_sell_avx512_gather_nt_c##CC), SPMV_AVX512_SYM(k_sell_avx512_emul_nt_c##CC);
SPMV_AVX512_SELL_DECL(8)
SPMV_AVX512_SELL_DECL(16)
SPMV_AVX512_SELL_DECL(32)
SPMV_AVX512_SELL_DECL(64)
extern const spmv_kernel SPMV_AVX512_SYM(k_crs_avx512), SPMV_AVX512_SYM(k_crs_avx512_short),
    SPMV_AVX512_SYM(k_crs_avx512_pf), SPMV_AVX512_SYM(k_crs_avx512_short_pf);
extern const spmv_family SPMV_AVX512_SYM(family_avx512);

/* The probe of family.c: `reps` passes of 64 gathers (emul = 1: emulated) from x at the indices idx (64 of them,
 * 32-byte aligned); returns a sum so the work is not optimized away. */
double SPMV_AVX512_SYM(avx512_gather_probe)(int emul, const int32_t *idx, const double *x, int reps);

#endif
