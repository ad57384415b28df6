/* The AVX2 kernel descriptors (internal; listed in family.c for the registry). */
#ifndef SPMV_AVX2_KERNELS_H
#define SPMV_AVX2_KERNELS_H

#include "kernel.h"

#define SPMV_AVX2_SELL_DECL(CC)                                                                                    \
    extern const spmv_kernel spmv__k_sell_avx2_gather_c##CC, spmv__k_sell_avx2_emul_c##CC,                       \
        spmv__k_sell_avx2_gather_nt_c##CC, spmv__k_sell_avx2_emul_nt_c##CC;
SPMV_AVX2_SELL_DECL(4)
SPMV_AVX2_SELL_DECL(8)
SPMV_AVX2_SELL_DECL(16)
SPMV_AVX2_SELL_DECL(32)
extern const spmv_kernel spmv__k_crs_avx2, spmv__k_crs_avx2_short, spmv__k_crs_avx2_pf, spmv__k_crs_avx2_short_pf;

/* The probe for the family's x-access choice (spmv__xaccess_measure). */
double spmv__avx2_gather_probe(int emul, const int32_t *idx, const double *x, int reps);

#endif
