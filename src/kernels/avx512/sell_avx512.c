/* SELL-C-sigma kernels for AVX-512, C = 8, 16, 32, 64 (Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014;
 * MVE as in Alappat et al., PMBS 2020, Sect. V).
 *
 * Chunk k, lane r, entry j is at chunkptr[k] + j*C + r: one chunk column is C/8 zmm vectors of values (aligned:
 * the library allocates 64-byte aligned arrays and chunkptr[k] is a multiple of C >= 8) and C/8 ymm vectors of
 * 32-bit column indices, gathered from x with vgatherdpd (scale 8).
 *
 * MVE: C/8 zmm accumulators per chunk column, times U independent sets along the chunk length (U consecutive
 * columns go to U sets, summed once per chunk), so each accumulator's FMA chain gets one FMA per U chunk columns.
 * The gathers bound the loop (one zmm gather per ~2.7-5 cycles on Ice Lake / Sapphire Rapids), so NV*U >= 4
 * chains keep the 4-cycle FMA latency off the critical path; U is the smallest such value with U >= 2.
 * Chunk lengths that are not a multiple of U finish with single columns into the first set.
 *
 * y: contiguous (masked in the last chunk past rows) in the permuted order, scattered through perm in the
 * original order. The "-nt" variants write y with non-temporal stores (permuted order, 64-byte aligned y; else
 * ordinary stores) and so save the write-allocate: 8 bytes per row instead of 16. The registry picks them only
 * when asked for (SPMV_SELL_NT=1 when the matrix is built) and the matrix is in the permuted order: streaming
 * stores pay off only when y does not stay in a cache. */
#include "avx512_intrin.h"
#include "avx512_kernels.h"

#include <stdint.h>
#include <stdlib.h>

/* Unroll along the chunk length (unit: chunk columns) = independent accumulator sets, per chunk height. */
enum {
    SELL_AVX512_UNROLL_C8 = 4,  /* 1 zmm per column: 4 sets -> 4 chains */
    SELL_AVX512_UNROLL_C16 = 2, /* 2 zmm per column: 2 sets -> 4 chains */
    SELL_AVX512_UNROLL_C32 = 2, /* 4 zmm per column: 2 sets -> 8 chains */
    SELL_AVX512_UNROLL_C64 = 2  /* 8 zmm per column: 2 sets -> 16 chains (16 of the 32 zmm registers) */
};
enum { SELL_NV_MAX = 8, SELL_U_MAX = 4 }; /* bounds of the accumulator array (zmm per column, sets) */

/* Write the C results of chunk k (acc[v] holds rows k*C + 8v .. k*C + 8v + 7). nt: non-temporal stores (permuted
 * order, y 64-byte aligned). */
SPMV_AVX512_INLINE void sell_store(const spmv_sell *S, int32_t k, const __m512d *acc, double alpha, double beta,
                                   double *y, const int C, const int mode, const int nt)
{
    const int NV = C / 8;
    const int64_t i0 = (int64_t)k * C;
    const int64_t rem = (int64_t)S->rows - i0; /* valid lanes of this chunk (>= C except in the last chunk) */
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    if (S->permuted) {
        double *yk = y + i0;
        if (rem >= C) {
            SPMV_UNROLL_FULL
            for (int v = 0; v < NV; v++) {
                __m512d r = acc[v];
                if (mode == SPMV_Y_SCALE) r = _mm512_mul_pd(va, r);
                if (mode == SPMV_Y_AXPBY) r = _mm512_fmadd_pd(vb, _mm512_loadu_pd(yk + 8 * v), _mm512_mul_pd(va, r));
                if (nt)
                    _mm512_stream_pd(yk + 8 * v, r);
                else
                    _mm512_storeu_pd(yk + 8 * v, r);
            }
        } else { /* last chunk: lanes past rows are padding, neither read nor written */
            SPMV_UNROLL_FULL
            for (int v = 0; v < NV; v++) {
                const __mmask8 m = spmv__lanes8(rem - 8 * v);
                __m512d r = acc[v];
                if (mode == SPMV_Y_SCALE) r = _mm512_mul_pd(va, r);
                if (mode == SPMV_Y_AXPBY)
                    r = _mm512_fmadd_pd(vb, _mm512_maskz_loadu_pd(m, yk + 8 * v), _mm512_mul_pd(va, r));
                _mm512_mask_storeu_pd(yk + 8 * v, m, r);
            }
        }
    } else { /* original order: y[perm[i]], perm read as 8 x int32 (masked past rows: perm has only rows entries) */
        const int32_t *pk = S->perm + i0;
        SPMV_UNROLL_FULL
        for (int v = 0; v < NV; v++) {
            __m512d r = acc[v];
            if (mode == SPMV_Y_SCALE) r = _mm512_mul_pd(va, r);
            if (rem >= C) {
                const __m256i idx = _mm256_loadu_si256((const __m256i *)(pk + 8 * v));
                if (mode == SPMV_Y_AXPBY) r = _mm512_fmadd_pd(vb, _mm512_i32gather_pd(idx, y, 8), _mm512_mul_pd(va, r));
                _mm512_i32scatter_pd(y, idx, r, 8);
            } else {
                const __mmask8 m = spmv__lanes8(rem - 8 * v);
                const __m256i idx = _mm256_maskz_loadu_epi32(m, pk + 8 * v);
                if (mode == SPMV_Y_AXPBY)
                    r = _mm512_fmadd_pd(vb, _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, y, 8),
                                        _mm512_mul_pd(va, r));
                _mm512_mask_i32scatter_pd(y, m, idx, r, 8);
            }
        }
    }
}

/* chunks [c0,c1): y[row(i)] = beta*y[row(i)] + alpha*sum_j val[i,j]*x[col[i,j]] for the C rows i of each chunk,
 * row(i) = i (permuted order) or perm[i] (original order); C, U, mode are compile-time constants after inlining. */
SPMV_AVX512_INLINE void sell_kernel(const spmv_sell *S, int32_t c0, int32_t c1, double alpha,
                                    const double *restrict x, double beta, double *restrict y, const int C,
                                    const int U, const int mode, const int nt)
{
    const int NV = C / 8;
    const int64_t *chunkptr = S->chunkptr;
    const int32_t *chunklen = S->chunklen;
    const double *val = S->val;
    const int32_t *col = S->col;
    for (int32_t k = c0; k < c1; k++) {
        const double *vp = val + chunkptr[k];  /* 64-byte aligned */
        const int32_t *cp = col + chunkptr[k]; /* 32-byte aligned */
        const int32_t len = chunklen[k];
        const int32_t lenU = len - len % U;
        __m512d acc[SELL_U_MAX][SELL_NV_MAX];
        SPMV_UNROLL_FULL
        for (int u = 0; u < U; u++)
            SPMV_UNROLL_FULL
            for (int v = 0; v < NV; v++) acc[u][v] = _mm512_setzero_pd();
        int32_t j = 0;
        for (; j < lenU; j += U, vp += U * C, cp += U * C) {
            SPMV_UNROLL_FULL
            for (int u = 0; u < U; u++)
                SPMV_UNROLL_FULL
                for (int v = 0; v < NV; v++) {
                    const __m256i idx = _mm256_load_si256((const __m256i *)(cp + u * C + 8 * v));
                    const __m512d xv = _mm512_i32gather_pd(idx, x, 8);
                    acc[u][v] = _mm512_fmadd_pd(_mm512_load_pd(vp + u * C + 8 * v), xv, acc[u][v]);
                }
        }
        for (; j < len; j++, vp += C, cp += C) { /* remainder: len % U columns */
            SPMV_UNROLL_FULL
            for (int v = 0; v < NV; v++) {
                const __m256i idx = _mm256_load_si256((const __m256i *)(cp + 8 * v));
                const __m512d xv = _mm512_i32gather_pd(idx, x, 8);
                acc[0][v] = _mm512_fmadd_pd(_mm512_load_pd(vp + 8 * v), xv, acc[0][v]);
            }
        }
        /* sum the sets (once per chunk) */
        SPMV_UNROLL_FULL
        for (int v = 0; v < NV; v++)
            SPMV_UNROLL_FULL
            for (int u = 1; u < U; u++) acc[0][v] = _mm512_add_pd(acc[0][v], acc[u][v]);
        sell_store(S, k, acc[0], alpha, beta, y, C, mode, nt);
    }
}

/* Dispatch on the alpha/beta case once per call. nt_ok: the caller asks for non-temporal stores. */
SPMV_AVX512_INLINE void sell_dispatch(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x,
                                      double beta, double *y, const int C, const int U, const int nt_ok)
{
    /* streaming stores need 64-byte aligned y (then every chunk's y block is aligned: C*8 bytes, C >= 8) */
    const int nt = nt_ok && S->permuted && ((uintptr_t)y & 63) == 0;
    if (beta != 0.0)
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, SPMV_Y_AXPBY, nt);
    else if (alpha != 1.0)
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, SPMV_Y_SCALE, nt);
    else
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, SPMV_Y_SET, nt); /* fast path y = A x */
    if (nt) _mm_sfence(); /* order the weakly-ordered streaming stores before the driver's barrier */
}

/* Aligned loads need 64-byte aligned values and 32-byte aligned indices at every chunk start. */
static int sell_avx512_aligned(const spmv_sell *S)
{
    return ((uintptr_t)S->val & 63) == 0 && ((uintptr_t)S->col & 31) == 0 &&
           (S->nchunks == 0 || (S->chunkptr[0] & 7) == 0);
}

/* Non-temporal stores on request (SPMV_SELL_NT=1), only in the permuted order where y is written contiguously. */
static int sell_avx512_nt_requested(const spmv_sell *S)
{
    const char *e = getenv(SPMV_SELL_NT_ENV); /* benchmark override */
    return S->permuted && (S->nt_stores || (e && *e && *e != '0'));
}

/* Traffic per multiply: 12 bytes per stored entry (value + index), 16 per row (y store + write-allocate; 8 with
 * non-temporal stores, no write-allocate), 12 per chunk (int64 chunk offset + int32 chunk length). */
#define SELL_AVX512_TRAFFIC {.bytes_per_entry = 12, .bytes_per_row = 16, .bytes_per_chunk = 12, .flops_per_entry = 2}
#define SELL_AVX512_NT_TRAFFIC {.bytes_per_entry = 12, .bytes_per_row = 8, .bytes_per_chunk = 12, .flops_per_entry = 2}

#define SELL_AVX512_DEFINE(CC)                                                                                     \
    static void sell_avx512_c##CC(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x,      \
                                  double beta, double *y)                                                          \
    {                                                                                                              \
        sell_dispatch(S, c0, c1, alpha, x, beta, y, CC, SELL_AVX512_UNROLL_C##CC, 0);                             \
    }                                                                                                              \
    static void sell_avx512_nt_c##CC(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x,   \
                                     double beta, double *y)                                                       \
    {                                                                                                              \
        sell_dispatch(S, c0, c1, alpha, x, beta, y, CC, SELL_AVX512_UNROLL_C##CC, 1);                             \
    }                                                                                                              \
    static int sell_avx512_accepts_c##CC(const spmv_sell *S) { return S->C == CC && sell_avx512_aligned(S); }    \
    static int sell_avx512_nt_accepts_c##CC(const spmv_sell *S)                                                    \
    {                                                                                                              \
        return sell_avx512_accepts_c##CC(S) && sell_avx512_nt_requested(S);                                       \
    }                                                                                                              \
    const spmv_kernel spmv__k_sell_avx512_c##CC = {.name = "sell-avx512-C" #CC, .arch = SPMV_ARCH_AVX512,          \
                                                   .C = CC, .sell = sell_avx512_c##CC,                             \
                                                   .traffic = SELL_AVX512_TRAFFIC,                                 \
                                                   .accepts = sell_avx512_accepts_c##CC};                          \
    const spmv_kernel spmv__k_sell_avx512_nt_c##CC = {.name = "sell-avx512-nt-C" #CC, .arch = SPMV_ARCH_AVX512,    \
                                                      .C = CC, .sell = sell_avx512_nt_c##CC,                       \
                                                      .traffic = SELL_AVX512_NT_TRAFFIC,                           \
                                                      .accepts = sell_avx512_nt_accepts_c##CC};

SELL_AVX512_DEFINE(8)
SELL_AVX512_DEFINE(16)
SELL_AVX512_DEFINE(32)
SELL_AVX512_DEFINE(64)
