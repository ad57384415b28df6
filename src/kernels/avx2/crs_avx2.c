/* CRS kernel of the AVX2 family: the scalar-FMA kernel of src/kernels/crs_scalar.h (why scalar: see there),
 * compiled with this family's flags (-mavx2 -mfma). */
#include "avx2_kernels.h"
#include "crs_scalar.h"

static void crs_avx2(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta, double *y)
{
    spmv__crs_scalar(A, r0, r1, alpha, x, beta, y);
}

/* sum_k v[k]*x[c[k]], k in [0, n): a piece of a row split between threads (the same 4 partial sums) */
static double crs_avx2_dot(const double *v, const int32_t *c, int64_t n, const double *x)
{
    return spmv__crs_row_scalar(n, v, c, x);
}

const spmv_kernel spmv__k_crs_avx2 = {
    .name = "crs-avx2", .arch = SPMV_ARCH_AVX2, .crs = crs_avx2, .dot = crs_avx2_dot,
    .traffic = SPMV_CRS_SCALAR_TRAFFIC, .shape = SPMV_CRS_SCALAR_SHAPE,
};
