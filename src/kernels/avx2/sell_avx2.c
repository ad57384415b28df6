/* SELL-C-sigma kernels for AVX2 + FMA, C = 4, 8, 16, 32 (Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014; MVE as
 * in Alappat et al., PMBS 2020, Sect. V), for x86 cores without AVX-512 (AMD Zen 2/3, Intel client and older server
 * parts). The same design as the AVX-512 family (src/kernels/avx512/sell_avx512.c) on 4-double ymm registers:
 *  - run columns (the first chunkruns[k] columns): one masked contiguous load of x per 4 lanes (vmaskmovpd; the
 *    lane mask comes from the run's mask nibble through a 16-entry table), no index load; plain loads in the
 *    first chunkfull[k] run columns, where every lane holds an entry;
 *  - gather columns: x by vgatherdpd ymm (variant "gather") or by 4 scalar loads and an insert (variant "emul":
 *    vmovsd + vmovhpd pairs, vinsertf128). AVX2 gathers are slow on AMD cores as well; the family times both once
 *    per process (family.c) and uses the faster one by default.
 * MVE: C/4 ymm accumulators per chunk column times U sets along the chunk length: U = 4 for C = 4, 2 for C = 8 and
 * 16, 1 for C = 32 (8 chains; 16 ymm registers in all). y: contiguous in the permuted order or where perm is the
 * identity (SPMV_SELL_DIRECT; masked stores in the last chunk), scalar stores through perm in the original order.
 * The "-nt" variants store y with non-temporal stores where it is indexed directly and 32-byte aligned (8 bytes
 * per row instead of 16: no write-allocate); the registry picks them when the matrix asks for them
 * (spmv_sell.nt_stores: by default for 16 MiB of y and more; SPMV_SELL_NT). */
#include "avx2_kernels.h"

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#if !defined(__AVX2__) || !defined(__FMA__)
#error "the AVX2 kernels are compiled with -mavx2 -mfma (cmake/SpmvIsa.cmake)"
#endif

#define AVX2_INLINE static inline __attribute__((always_inline))
/* Under AddressSanitizer (the sanitizer and fuzz legs of CI compile this file with clang) the kernels read the
 * plain values even where the matrix has value indices (the same doubles: the same result): the value-index loops
 * double the fully unrolled code, and clang's instrumentation of this file took 5 minutes instead of 2.5 with them
 * (14 for the AVX-512 file). They declare no value indices then (shape.vidx = 0). The indices' layout is checked
 * under the sanitizers by test_sell and the AVX-512 value-index logic by the emulated check (avx512_emu). */
#define SELL_AVX2_ASAN SPMV_ASAN
#if defined(__clang__)
#define AVX2_UNROLL _Pragma("clang loop unroll(full)")
#else
#define AVX2_UNROLL _Pragma("GCC unroll 16")
#endif

enum {
    SELL_AVX2_UNROLL_C4 = 4,  /* 1 ymm per column: 4 sets -> 4 chains */
    SELL_AVX2_UNROLL_C8 = 2,  /* 2 ymm per column: 2 sets -> 4 chains */
    SELL_AVX2_UNROLL_C16 = 2, /* 4 ymm per column: 2 sets -> 8 chains */
    SELL_AVX2_UNROLL_C32 = 1  /* 8 ymm per column: 1 set -> 8 chains */
};
enum { SELL_NV_MAX = 8, SELL_U_MAX = 4 };
enum { X_GATHER = 0, X_EMUL = 1 };
enum { Y_SET = 0, Y_SCALE = 1, Y_AXPBY = 2 };

/* lane masks (sign bit per 64-bit lane) for a 4-bit run mask */
static const int64_t lane_mask[16][4] __attribute__((aligned(32))) = {
    {0, 0, 0, 0},    {-1, 0, 0, 0},    {0, -1, 0, 0},    {-1, -1, 0, 0},   {0, 0, -1, 0},   {-1, 0, -1, 0},
    {0, -1, -1, 0},  {-1, -1, -1, 0},  {0, 0, 0, -1},    {-1, 0, 0, -1},   {0, -1, 0, -1},  {-1, -1, 0, -1},
    {0, 0, -1, -1},  {-1, 0, -1, -1},  {0, -1, -1, -1},  {-1, -1, -1, -1},
};

AVX2_INLINE __m256i mask4(unsigned m) { return _mm256_load_si256((const __m256i *)lane_mask[m & 15]); }

/* x[c[0..3]] by the variant X */
AVX2_INLINE __m256d gather4(const int32_t *c, const double *x, const int X)
{
    if (X == X_GATHER) return _mm256_i32gather_pd(x, _mm_load_si128((const __m128i *)c), 8);
    uint64_t a, b; /* two indices per 8-byte load */
    memcpy(&a, c, sizeof a);
    memcpy(&b, c + 2, sizeof b);
    const __m128d p0 = _mm_loadh_pd(_mm_load_sd(x + (int32_t)(uint32_t)a), x + (int32_t)(uint32_t)(a >> 32));
    const __m128d p1 = _mm_loadh_pd(_mm_load_sd(x + (int32_t)(uint32_t)b), x + (int32_t)(uint32_t)(b >> 32));
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p1, 1);
}

/* x at base + c[0..3] (16-bit offsets, 8-byte aligned) by the variant X */
AVX2_INLINE __m256d gather4_16(const uint16_t *c, const double *xb, const int X)
{
    if (X == X_GATHER) return _mm256_i32gather_pd(xb, _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)c)), 8);
    uint64_t p; /* four offsets per 8-byte load */
    memcpy(&p, c, sizeof p);
    const __m128d p0 = _mm_loadh_pd(_mm_load_sd(xb + (p & 0xFFFF)), xb + (p >> 16 & 0xFFFF));
    const __m128d p1 = _mm_loadh_pd(_mm_load_sd(xb + (p >> 32 & 0xFFFF)), xb + (p >> 48));
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p1, 1);
}

/* The C results of a whole chunk (all C rows) at yk = y + k*C, y indexed directly: sell_store's path for such a
 * chunk, and the lean loop's store (it never needs sell_store's other paths; see the AVX-512 family's
 * sell_store_whole). */
AVX2_INLINE void sell_store_whole(double *yk, const __m256d *acc, double alpha, double beta, const int C,
                                  const int mode, const int nt)
{
    const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
    AVX2_UNROLL
    for (int v = 0; v < C / 4; v++) {
        __m256d r = acc[v];
        if (mode != Y_SET) r = _mm256_mul_pd(va, r);
        if (mode == Y_AXPBY) r = _mm256_fmadd_pd(vb, _mm256_loadu_pd(yk + 4 * v), r);
        if (nt)
            _mm256_stream_pd(yk + 4 * v, r);
        else
            _mm256_storeu_pd(yk + 4 * v, r);
    }
}

/* the C results of chunk k (acc[v]: rows k*C + 4v .. +3) */
AVX2_INLINE void sell_store(const spmv_sell *S, int32_t k, const __m256d *acc, double alpha, double beta, double *y,
                            const int C, const int mode, const int nt)
{
    const int NV = C / 4;
    const int64_t i0 = (int64_t)k * C, rem = (int64_t)S->rows - i0;
    if (SPMV_SELL_DIRECT(S) && rem >= C) {
        sell_store_whole(y + i0, acc, alpha, beta, C, mode, nt);
        return;
    }
    const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
    AVX2_UNROLL
    for (int v = 0; v < NV; v++) {
        __m256d r = acc[v];
        if (mode != Y_SET) r = _mm256_mul_pd(va, r);
        const int64_t n = rem - 4 * v; /* valid lanes of this vector */
        if (n <= 0) break;
        if (SPMV_SELL_DIRECT(S)) {
            double *yv = y + i0 + 4 * v;
            if (n >= 4) {
                if (mode == Y_AXPBY) r = _mm256_fmadd_pd(vb, _mm256_loadu_pd(yv), r);
                if (nt)
                    _mm256_stream_pd(yv, r);
                else
                    _mm256_storeu_pd(yv, r);
            } else {
                const __m256i m = mask4((1u << n) - 1u);
                if (mode == Y_AXPBY) r = _mm256_fmadd_pd(vb, _mm256_maskload_pd(yv, m), r);
                _mm256_maskstore_pd(yv, m, r);
            }
        } else {
            const int32_t *pk = S->perm + i0 + 4 * v;
            double t[4];
            _mm256_storeu_pd(t, r);
            for (int64_t l = 0; l < (n < 4 ? n : 4); l++) {
                double *yl = y + pk[l];
                *yl = mode == Y_AXPBY ? beta * *yl + t[l] : t[l];
            }
        }
    }
}

/* Value indices (spmv_sell.val8, CSR-VI): 4 values from 4 one-byte indices into the table vtab, read the way x is
 * (AVX2 has no two-register permute): vgatherdpd from the L1-resident table, or 4 scalar loads and an insert. */
AVX2_INLINE __m256d vi_val4(const uint8_t *p, const double *tab, const int X)
{
    uint32_t w;
    memcpy(&w, p, sizeof w);
    if (X == X_EMUL) {
        const __m128d lo = _mm_loadh_pd(_mm_load_sd(tab + (w & 0xFF)), tab + (w >> 8 & 0xFF));
        const __m128d hi = _mm_loadh_pd(_mm_load_sd(tab + (w >> 16 & 0xFF)), tab + (w >> 24));
        return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1);
    }
    return _mm256_i32gather_pd(tab, _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)w)), 8);
}

/* Chunks k, k+1, ... below c1 whose columns are all full run columns and whose C rows all exist (y indexed directly):
 * the AVX-512 family's lean loop (sell_run_chunks in src/kernels/avx512/sell_avx512.c, which says why) on ymm
 * registers. Returns the first chunk it did not do. */
AVX2_INLINE int32_t sell_run_chunks(const spmv_sell *S, int32_t k, int32_t c1, double alpha,
                                    const double *restrict x, double beta, double *restrict y, const int C,
                                    const int U, const int mode, const int X, const int nt, const int VI)
{
    const int NV = C / 4;
    const int64_t *chunkptr = S->chunkptr, *runptr = S->runptr;
    const int32_t *chunklen = S->chunklen, *chunkfull = S->chunkfull, *runbase = S->runbase;
    const double *val = S->val, *vtab = S->vtab;
    const uint8_t *val8 = S->val8;
    const int32_t whole = (int32_t)(S->rows / C), end = c1 < whole ? c1 : whole;
    for (; k < end; k++) {
        const int32_t len = chunklen[k];
        if (chunkfull[k] != len || len > SPMV_SELL_LEAN_LEN) break;
        const int64_t off = chunkptr[k];
        const int32_t *rb = runbase + runptr[k];
        __m256d acc[SELL_U_MAX][SELL_NV_MAX];
        AVX2_UNROLL
        for (int u = 0; u < U; u++)
            AVX2_UNROLL
            for (int v = 0; v < NV; v++) acc[u][v] = _mm256_setzero_pd();
#define SELL_RVAL(o) (VI ? vi_val4(val8 + off + (o), vtab, X) : _mm256_load_pd(val + off + (o)))
        int32_t j = 0;
        for (; j + U <= len; j += U)
            AVX2_UNROLL
            for (int u = 0; u < U; u++)
                AVX2_UNROLL
                for (int v = 0; v < NV; v++) {
                    const int64_t o = (int64_t)(j + u) * C + 4 * v;
                    acc[u][v] = _mm256_fmadd_pd(SELL_RVAL(o), _mm256_loadu_pd(x + rb[j + u] + 4 * v), acc[u][v]);
                }
        AVX2_UNROLL
        for (int u = 0; u < U - 1; u++) /* the columns past a multiple of U (fewer than U), one set each */
            if (j + u < len)
                AVX2_UNROLL
                for (int v = 0; v < NV; v++) {
                    const int64_t o = (int64_t)(j + u) * C + 4 * v;
                    acc[u][v] = _mm256_fmadd_pd(SELL_RVAL(o), _mm256_loadu_pd(x + rb[j + u] + 4 * v), acc[u][v]);
                }
#undef SELL_RVAL
        AVX2_UNROLL
        for (int v = 0; v < NV; v++)
            AVX2_UNROLL
            for (int u = 1; u < U; u++) acc[0][v] = _mm256_add_pd(acc[0][v], acc[u][v]);
        sell_store_whole(y + (int64_t)k * C, acc[0], alpha, beta, C, mode, nt);
    }
    return k;
}

AVX2_INLINE void sell_kernel(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *restrict x,
                             double beta, double *restrict y, const int C, const int U, const int mode, const int X,
                             const int nt, const int VI)
{
    const int NV = C / 4, MB = (C + 7) / 8; /* vectors per column, mask bytes per run column */
    /* VI: the values of the entry at vp + o are vi_val4(val8 + (vp - val) + o): vp walks val (never read) */
    const double *val = S->val, *vtab = S->vtab;
    const uint8_t *val8 = S->val8;
#define SELL_VAL(o) (VI ? vi_val4(val8 + (vp - val) + (o), vtab, X) : _mm256_load_pd(vp + (o)))
    const int lean = spmv__sell_lean_wanted(S, c0, c1, SPMV_SELL_LEAN_LEN);
    for (int32_t k = c0; k < c1; k++) {
        if (lean && S->chunklen[k] <= SPMV_SELL_LEAN_LEN && S->chunkfull[k] == S->chunklen[k]) {
            k = sell_run_chunks(S, k, c1, alpha, x, beta, y, C, U, mode, X, nt, VI);
            if (k >= c1) break;
        }
        const double *vp = S->val + S->chunkptr[k];
        const int32_t *cp = S->col + S->chunkptr[k];
        const int32_t len = S->chunklen[k];
        __m256d acc[SELL_U_MAX][SELL_NV_MAX];
        AVX2_UNROLL
        for (int u = 0; u < U; u++)
            AVX2_UNROLL
            for (int v = 0; v < NV; v++) acc[u][v] = _mm256_setzero_pd();
        int32_t j = 0;
        if (S->chunkruns) {
            const int32_t R = S->chunkruns[k], F = S->chunkfull[k], FU = F - F % U, RU = R - (R - F) % U;
            const int32_t *rb = S->runbase + S->runptr[k];
            const uint8_t *rm = S->runmask + S->runptr[k] * MB;
            for (; j < FU; j += U, vp += U * C, rb += U, rm += U * MB) { /* full run columns: plain loads */
                AVX2_UNROLL
                for (int u = 0; u < U; u++)
                    AVX2_UNROLL
                    for (int v = 0; v < NV; v++) {
                        const __m256d xv = _mm256_loadu_pd(x + rb[u] + 4 * v);
                        acc[u][v] = _mm256_fmadd_pd(SELL_VAL(u * C + 4 * v), xv, acc[u][v]);
                    }
            }
            AVX2_UNROLL
            for (int u = 0; u < U - 1; u++) /* the full ones past a multiple of U (fewer than U), one set each */
                if (j + u < F)
                    AVX2_UNROLL
                    for (int v = 0; v < NV; v++)
                        acc[u][v] = _mm256_fmadd_pd(SELL_VAL(u * C + 4 * v), _mm256_loadu_pd(x + rb[u] + 4 * v),
                                                    acc[u][v]);
            vp += (int64_t)(F - j) * C, rb += F - j, rm += (F - j) * MB, j = F;
            for (; j < RU; j += U, vp += U * C, rb += U, rm += U * MB) {
                AVX2_UNROLL
                for (int u = 0; u < U; u++)
                    AVX2_UNROLL
                    for (int v = 0; v < NV; v++) {
                        const __m256d xv =
                            _mm256_maskload_pd(spmv__run_x(x, (int64_t)rb[u] + 4 * v),
                                               mask4(rm[u * MB + v / 2] >> (4 * (v % 2))));
                        acc[u][v] = _mm256_fmadd_pd(SELL_VAL(u * C + 4 * v), xv, acc[u][v]);
                    }
            }
            for (; j < R; j++, vp += C, rb++, rm += MB) {
                AVX2_UNROLL
                for (int v = 0; v < NV; v++) {
                    const __m256d xv =
                        _mm256_maskload_pd(spmv__run_x(x, (int64_t)rb[0] + 4 * v), mask4(rm[v / 2] >> (4 * (v % 2))));
                    acc[0][v] = _mm256_fmadd_pd(SELL_VAL(4 * v), xv, acc[0][v]);
                }
            }
            cp += (int64_t)R * C;
        }
        const int32_t lenU = len - (len - j) % U;
        if (S->colbase && S->colbase[k] >= 0) { /* 16-bit indices from the chunk's base */
            const uint16_t *c16 = S->col16 + (cp - S->col);
            const double *xb = x + S->colbase[k];
            for (; j < lenU; j += U, vp += U * C, c16 += U * C) {
                AVX2_UNROLL
                for (int u = 0; u < U; u++)
                    AVX2_UNROLL
                    for (int v = 0; v < NV; v++)
                        acc[u][v] = _mm256_fmadd_pd(SELL_VAL(u * C + 4 * v),
                                                    gather4_16(c16 + u * C + 4 * v, xb, X), acc[u][v]);
            }
            for (; j < len; j++, vp += C, c16 += C) {
                AVX2_UNROLL
                for (int v = 0; v < NV; v++)
                    acc[0][v] = _mm256_fmadd_pd(SELL_VAL(4 * v), gather4_16(c16 + 4 * v, xb, X), acc[0][v]);
            }
        } else {
            for (; j < lenU; j += U, vp += U * C, cp += U * C) {
                AVX2_UNROLL
                for (int u = 0; u < U; u++)
                    AVX2_UNROLL
                    for (int v = 0; v < NV; v++)
                        acc[u][v] = _mm256_fmadd_pd(SELL_VAL(u * C + 4 * v),
                                                    gather4(cp + u * C + 4 * v, x, X), acc[u][v]);
            }
            for (; j < len; j++, vp += C, cp += C) {
                AVX2_UNROLL
                for (int v = 0; v < NV; v++)
                    acc[0][v] = _mm256_fmadd_pd(SELL_VAL(4 * v), gather4(cp + 4 * v, x, X), acc[0][v]);
            }
        }
        AVX2_UNROLL
        for (int v = 0; v < NV; v++)
            AVX2_UNROLL
            for (int u = 1; u < U; u++) acc[0][v] = _mm256_add_pd(acc[0][v], acc[u][v]);
        sell_store(S, k, acc[0], alpha, beta, y, C, mode, nt);
    }
#undef SELL_VAL
}

/* The three alpha/beta paths for value source VI */
AVX2_INLINE void sell_modes(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                            double *y, const int C, const int U, const int X, const int nt, const int VI)
{
    if (beta != 0.0)
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, Y_AXPBY, X, nt, VI);
    else if (alpha != 1.0)
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, Y_SCALE, X, nt, VI);
    else
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, Y_SET, X, nt, VI);
}

AVX2_INLINE void sell_dispatch(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                               double *y, const int C, const int U, const int X, const int nt_wanted)
{
    /* streaming stores need y indexed directly and 32-byte aligned (then every chunk's y block is: C*8 bytes) */
    const int nt = nt_wanted && SPMV_SELL_DIRECT(S) && ((uintptr_t)y & 31) == 0;
    if (!SELL_AVX2_ASAN && S->val8) /* value indices: paths of their own (none in the sanitizer build) */
        sell_modes(S, c0, c1, alpha, x, beta, y, C, U, X, nt, !SELL_AVX2_ASAN);
    else
        sell_modes(S, c0, c1, alpha, x, beta, y, C, U, X, nt, 0);
    if (nt) _mm_sfence(); /* order the weakly-ordered streaming stores before the driver's barrier */
}

/* aligned value loads (32 bytes) and index loads (16 bytes) at every chunk start */
static int sell_avx2_aligned(const spmv_sell *S)
{
    return ((uintptr_t)S->val & 31) == 0 && ((uintptr_t)S->col & 15) == 0 &&
           (S->nchunks == 0 || (S->chunkptr[0] & 3) == 0);
}

/* Traffic: as the AVX-512 family (12 B per gather-column entry, 8.125 per run lane, 4 per run column, 16 per row --
 * 8 with non-temporal stores --, 12 per chunk; 1 byte instead of 8 per value with value indices). */
#define SELL_AVX2_TRAFFIC(ROW)                                                                                     \
    {.bytes_per_entry = 12, .bytes_per_row = ROW, .bytes_per_chunk = 12, .flops_per_entry = 2,                   \
     .bytes_per_run_lane = 8.125, .bytes_per_run = 4, .bytes_per_entry16 = 10,                        \
     .bytes_per_value_vi = SELL_AVX2_ASAN ? 0 : 1}

/* The body of the kernels of chunk height CC and x access XN, with and without non-temporal stores (nt a run-time
 * value: one compiled body for both, so that the file's specialized loops do not double; the store's branch is
 * taken once per vector of y). */
#define SELL_AVX2_BODY(CC, XN, XC)                                                                                 \
    static __attribute__((noinline)) void sell_avx2_##XN##_c##CC##_body(const spmv_sell *S, int32_t c0,          \
                                                                         int32_t c1, double alpha, const double *x, \
                                                                         double beta, double *y, int nt)           \
    {                                                                                                              \
        sell_dispatch(S, c0, c1, alpha, x, beta, y, CC, SELL_AVX2_UNROLL_C##CC, XC, nt);                          \
    }

/* One kernel: chunk height CC, x access XN (gather | emul), NT (0 | 1: non-temporal y stores, name "-nt"). */
#define SELL_AVX2_KERNEL(CC, XN, XC, XS, NT, NTN, NTS)                                                             \
    static void sell_avx2_##XN##NTN##_c##CC(const spmv_sell *S, int32_t c0, int32_t c1, double alpha,            \
                                            const double *x, double beta, double *y)                              \
    {                                                                                                              \
        sell_avx2_##XN##_c##CC##_body(S, c0, c1, alpha, x, beta, y, NT);                                          \
    }                                                                                                              \
    static int sell_avx2_##XN##NTN##_accepts_c##CC(const spmv_sell *S)                                             \
    {                                                                                                              \
        return S->C == CC && sell_avx2_aligned(S);                                                                 \
    }                                                                                                              \
    const spmv_kernel spmv__k_sell_avx2_##XN##NTN##_c##CC = {                                                      \
        .name = "sell-avx2-" #XN NTS "-C" #CC, .arch = SPMV_ARCH_AVX2, .sell = sell_avx2_##XN##NTN##_c##CC,       \
        .traffic = SELL_AVX2_TRAFFIC(NT ? 8 : 16),                                                                 \
        .shape = {.format = SPMV_FORMAT_SELL, .C = CC, .width = 4, .mve = SELL_AVX2_UNROLL_C##CC, .x = XS,        \
                  .runs = 1, .idx16 = 1, .vidx = !SELL_AVX2_ASAN,                                                  \
                  /* the chunk's loop of len / U steps, the U - 1 columns past it (len % U) */                     \
                  .len_branch = {{SELL_AVX2_UNROLL_C##CC, 0, 0}, {1, SELL_AVX2_UNROLL_C##CC, 0}}},                     \
        .nt = NT, .accepts = sell_avx2_##XN##NTN##_accepts_c##CC};

#define SELL_AVX2_DEFINE(CC)                                                                                       \
    SELL_AVX2_BODY(CC, gather, X_GATHER)                                                                           \
    SELL_AVX2_BODY(CC, emul, X_EMUL)                                                                               \
    SELL_AVX2_KERNEL(CC, gather, X_GATHER, SPMV_X_GATHER, 0, , "")                                                 \
    SELL_AVX2_KERNEL(CC, emul, X_EMUL, SPMV_X_EMUL, 0, , "")                                                       \
    SELL_AVX2_KERNEL(CC, gather, X_GATHER, SPMV_X_GATHER, 1, _nt, "-nt")                                           \
    SELL_AVX2_KERNEL(CC, emul, X_EMUL, SPMV_X_EMUL, 1, _nt, "-nt")

SELL_AVX2_DEFINE(4)
SELL_AVX2_DEFINE(8)
SELL_AVX2_DEFINE(16)
SELL_AVX2_DEFINE(32)

double spmv__avx2_gather_probe(int emul, const int32_t *idx, const double *x, int reps)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < 64; i += 8) {
            a0 = _mm256_add_pd(a0, gather4(idx + i, x, emul ? X_EMUL : X_GATHER));
            a1 = _mm256_add_pd(a1, gather4(idx + i + 4, x, emul ? X_EMUL : X_GATHER));
        }
    double t[4];
    _mm256_storeu_pd(t, _mm256_add_pd(a0, a1));
    return t[0] + t[1] + t[2] + t[3];
}
