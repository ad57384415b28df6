/* CRS kernel for AVX-512: each row vectorized along its entries (8 per zmm, 32-bit indices gathered with
 * vgatherdpd), with MVE (Alappat et al., PMBS 2020, Sect. V): CRS_AVX512_ACCS independent partial sums per row,
 * reduced once per row, and a masked remainder, so no scalar loop runs on long rows.
 *
 * Short rows: up to CRS_AVX512_SCALAR_MAX entries the row is summed in scalar code, as the reference kernel does
 * (a masked gather plus a horizontal reduction costs more than 1-3 scalar loads); 4-7 entries take one masked
 * iteration (2 masked loads + 1 gather + reduction instead of 3 loads per entry). */
#include "avx512_intrin.h"
#include "avx512_kernels.h"

#include <stdint.h>

/* MVE: independent zmm partial sums per row (unit: accumulators; 4 x 4-cycle FMA chains cover a gather every
 * ~3 cycles). The row loop takes 4*8 entries per iteration, then at most one 16-, one 8- and one masked block,
 * each into its own accumulator, so the chains stay independent down to the last entry. */
enum { CRS_AVX512_ACCS = 4 };
/* Rows with at most this many entries use scalar code (unit: entries). Written out below for 3. */
enum { CRS_AVX512_SCALAR_MAX = 3 };
_Static_assert(CRS_AVX512_SCALAR_MAX == 3, "the scalar short-row path is written out for 3 entries");

/* acc += v[0..7] * x[c[0..7]] */
SPMV_AVX512_INLINE __m512d crs_fma8(__m512d acc, const double *v, const int32_t *c, const double *x)
{
    const __m256i idx = _mm256_loadu_si256((const __m256i *)c);
    return _mm512_fmadd_pd(_mm512_loadu_pd(v), _mm512_i32gather_pd(idx, x, 8), acc);
}

/* acc + v[0..n) * x[c[0..n)] lane-wise, 0 < n < 8; lanes n..7 are neither loaded nor gathered (masked: no fault
 * past the arrays) and add 0 */
SPMV_AVX512_INLINE __m512d crs_fma_masked(__m512d acc, int64_t n, const double *v, const int32_t *c, const double *x)
{
    const __mmask8 m = (__mmask8)((1u << n) - 1u);
    const __m256i idx = _mm256_maskz_loadu_epi32(m, c);
    const __m512d xv = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, x, 8);
    return _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, v), xv, acc);
}

/* sum_k v[k]*x[c[k]], k in [0, n) */
SPMV_AVX512_INLINE double crs_row(int64_t n, const double *restrict v, const int32_t *restrict c,
                                  const double *restrict x)
{
    if (n <= CRS_AVX512_SCALAR_MAX) {
        double s = 0.0;
        if (n > 0) {
            s = v[0] * x[c[0]];
            if (n > 1) {
                s += v[1] * x[c[1]];
                if (n > 2) s += v[2] * x[c[2]];
            }
        }
        return s;
    }
    if (n < 8) return _mm512_reduce_add_pd(crs_fma_masked(_mm512_setzero_pd(), n, v, c, x));
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd(), a2 = _mm512_setzero_pd(),
            a3 = _mm512_setzero_pd();
    int64_t k = 0;
    for (; k + 32 <= n; k += 32) {
        a0 = crs_fma8(a0, v + k, c + k, x);
        a1 = crs_fma8(a1, v + k + 8, c + k + 8, x);
        a2 = crs_fma8(a2, v + k + 16, c + k + 16, x);
        a3 = crs_fma8(a3, v + k + 24, c + k + 24, x);
    }
    if (k + 16 <= n) {
        a0 = crs_fma8(a0, v + k, c + k, x);
        a1 = crs_fma8(a1, v + k + 8, c + k + 8, x);
        k += 16;
    }
    if (k + 8 <= n) {
        a2 = crs_fma8(a2, v + k, c + k, x);
        k += 8;
    }
    if (k < n) a3 = crs_fma_masked(a3, n - k, v + k, c + k, x);
    return _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
}

/* y[r] = beta*y[r] + alpha*sum_j A[r,j]*x[j], rows [r0,r1); mode is a compile-time constant after inlining */
SPMV_AVX512_INLINE void crs_kernel(const spmv_crs *A, int32_t r0, int32_t r1, double alpha,
                                   const double *restrict x, double beta, double *restrict y, const int mode)
{
    const int64_t *rp = A->rowptr;
    const int32_t *col = A->col;
    const double *val = A->val;
    for (int32_t r = r0; r < r1; r++) {
        const int64_t b = rp[r];
        const double s = crs_row(rp[r + 1] - b, val + b, col + b, x);
        if (mode == SPMV_Y_SET)
            y[r] = s;
        else if (mode == SPMV_Y_SCALE)
            y[r] = alpha * s;
        else
            y[r] = beta * y[r] + alpha * s;
    }
}

static void crs_avx512(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta,
                       double *y)
{
    if (beta != 0.0)
        crs_kernel(A, r0, r1, alpha, x, beta, y, SPMV_Y_AXPBY);
    else if (alpha != 1.0)
        crs_kernel(A, r0, r1, alpha, x, beta, y, SPMV_Y_SCALE);
    else
        crs_kernel(A, r0, r1, alpha, x, beta, y, SPMV_Y_SET); /* fast path y = A x */
}

/* Traffic per multiply: 12 bytes per entry (8-byte value + 4-byte index), 24 per row (8-byte row offset, y store
 * 8, y write-allocate 8); the paper's N_nzr*(12 + 8 alpha) + 20 assumes 4-byte offsets. */
const spmv_kernel spmv__k_crs_avx512 = {
    .name = "crs-avx512", .arch = SPMV_ARCH_AVX512, .C = 0, .crs = crs_avx512,
    .traffic = {.bytes_per_entry = 12, .bytes_per_row = 24, .bytes_per_chunk = 0, .flops_per_entry = 2},
};
