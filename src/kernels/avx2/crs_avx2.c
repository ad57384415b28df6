/* CRS kernels of the AVX2 family: the scalar-FMA kernels of src/kernels/crs_scalar.h (why scalar: see there),
 * compiled with this family's flags (-mavx2 -mfma): crs-avx2 (4 partial sums per row), crs-avx2-short (2, for a
 * mean N_nzr below SPMV_CRS_SHORT_NZR), and both with software prefetch for big matrices (crs-avx2-pf, -short-pf). */
#include "avx2_kernels.h"
#include "crs_scalar.h"

SPMV_CRS_SCALAR_KERNELS(avx2, SPMV_ARCH_AVX2, spmv__k_crs_avx2, spmv__k_crs_avx2_short, spmv__k_crs_avx2_pf,
                        spmv__k_crs_avx2_short_pf)
