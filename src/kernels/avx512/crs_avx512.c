/* CRS kernels of the AVX-512 family: the scalar-FMA kernels of src/kernels/crs_scalar.h (why scalar: see there),
 * compiled with this family's flags: crs-avx512 (4 partial sums per row), crs-avx512-short (2, for a mean N_nzr
 * below SPMV_CRS_SHORT_NZR), and both with software prefetch for big matrices (crs-avx512-pf, -short-pf). */
#include "avx512_kernels.h"
#include "crs_scalar.h"

SPMV_CRS_SCALAR_KERNELS(avx512, SPMV_ARCH_AVX512, SPMV_AVX512_SYM(k_crs_avx512), SPMV_AVX512_SYM(k_crs_avx512_short),
                        SPMV_AVX512_SYM(k_crs_avx512_pf), SPMV_AVX512_SYM(k_crs_avx512_short_pf))
