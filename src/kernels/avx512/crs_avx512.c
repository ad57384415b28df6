/* CRS kernel of the AVX-512 family: the scalar-FMA kernel of src/kernels/crs_scalar.h (why scalar: see there),
 * compiled with this family's flags. */
#include "avx512_kernels.h"
#include "crs_scalar.h"

static void crs_avx512(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta,
                       double *y)
{
    spmv__crs_scalar(A, r0, r1, alpha, x, beta, y);
}

/* sum_k v[k]*x[c[k]], k in [0, n): a piece of a row split between threads (the same 4 partial sums) */
static double crs_avx512_dot(const double *v, const int32_t *c, int64_t n, const double *x)
{
    return spmv__crs_row_scalar(n, v, c, x);
}

const spmv_kernel SPMV_AVX512_SYM(k_crs_avx512) = {
    .name = "crs-avx512", .arch = SPMV_ARCH_AVX512, .crs = crs_avx512, .dot = crs_avx512_dot,
    .traffic = SPMV_CRS_SCALAR_TRAFFIC, .shape = SPMV_CRS_SCALAR_SHAPE,
};
