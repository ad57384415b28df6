/* SELL-C-sigma kernels for AVX-512, C = 8, 16, 32, 64 (Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014;
 * MVE as in Alappat et al., PMBS 2020, Sect. V), with run columns and two x-access variants.
 *
 * Chunk k, lane r, entry j is at chunkptr[k] + j*C + r: one chunk column is C/8 zmm vectors of values (aligned:
 * the library allocates 64-byte aligned arrays and chunkptr[k] is a multiple of C >= 8).
 *  - Run columns (the first chunkruns[k] columns, see spmv_sell): lane r reads x[runbase[q] + r], one masked
 *    unaligned zmm load of x per 8 lanes (the mask byte says which lanes hold an entry, so no lane reads past x),
 *    no index load. The first chunkfull[k] of them are full (every lane holds an entry): unmasked loads there, as
 *    the mask load (kmovb from memory) costs a load slot per 8 lanes: 10-20 % of an in-cache HPCG or cryg2500
 *    multiply on an Intel Xeon (4 GHz, AVX-512), SELL-32-1.
 *  - Gather columns: C/8 ymm vectors of 32-bit column indices (or xmm vectors of 16-bit offsets from the chunk's
 *    base where the matrix has them for the chunk, see spmv_sell.col16), x fetched either with vgatherdpd (variant "gather")
 *    or with 4 paired index loads, 8 scalar x loads and 7 inserts per vector (variant "emul": vmovsd + vmovhpd
 *    pairs, vinsertf128, vinsertf64x4). On AMD Zen 5 a zmm vgatherdpd costs 14.7 cy (spmv-machine) while the emulation issues 8
 *    scalar index loads, 8 x loads and 7 shuffles (about 4-5 cy): the emulation is about twice as fast there. On
 *    Intel server cores the hardware gather is the faster one. The family measures both once (family.c).
 *
 *  - Values: one aligned zmm load per 8 lanes, or, for a matrix with value indices (spmv_sell.val8, CSR-VI: at most
 *    16 distinct values), an 8-byte load of 8 one-byte indices widened (vpmovzxbq) and looked up in the table held
 *    in two zmm registers (vpermt2pd): 1 byte per entry from memory instead of 8, the same doubles. HPCG 128^3
 *    (2 values), Intel Xeon VM, 1 / 2 threads: SELL-32-1 2.03 / 3.78 -> 6.10 / 7.01 Gflop/s, lap2d 2000^2 SELL-32-1
 *    1.82 / 3.22 -> 4.18 / 7.11 (BENCHMARKS.md, 2026-12-03 afternoon).
 * MVE: C/8 zmm accumulators per chunk column, times U independent sets along the chunk length (U consecutive
 * columns go to U sets, summed once per chunk), so each accumulator's FMA chain gets one FMA per U chunk columns:
 * U = 4 for C = 8 (4 chains), 2 for C = 16..64 (4..16 chains). Run columns and gather columns use the same sets.
 *
 * y: contiguous (masked in the last chunk past rows) in the permuted order or where perm is the identity
 * (SPMV_SELL_DIRECT), scattered through perm otherwise (vscatterdpd in the gather variant, scalar stores in the emul
 * variant). The "-nt" variants write y with non-temporal stores (y indexed directly and 64-byte aligned; else
 * ordinary stores) and so save the write-allocate: 8 bytes per row instead of 16. The registry picks them only when
 * asked for (SPMV_SELL_NT=1 or nt_stores when the matrix is built) and y is indexed directly. */
#include "avx512_intrin.h"
#include "avx512_kernels.h"

#include <stdint.h>
#include <string.h>

/* Unroll along the chunk length (unit: chunk columns) = independent accumulator sets, per chunk height. */
enum {
    SELL_AVX512_UNROLL_C8 = 4,  /* 1 zmm per column: 4 sets -> 4 chains */
    SELL_AVX512_UNROLL_C16 = 2, /* 2 zmm per column: 2 sets -> 4 chains */
    SELL_AVX512_UNROLL_C32 = 2, /* 4 zmm per column: 2 sets -> 8 chains */
    SELL_AVX512_UNROLL_C64 = 2  /* 8 zmm per column: 2 sets -> 16 chains (16 of the 32 zmm registers) */
};
enum { SELL_NV_MAX = 8, SELL_U_MAX = 4 }; /* bounds of the accumulator array (zmm per column, sets) */
enum { SELL_X_GATHER = 0, SELL_X_EMUL = 1 }; /* x access, a compile-time constant after inlining */

/* Two column indices from one 8-byte load (4 index loads per 8 lanes instead of 8: about 10 % faster on Zen 5,
 * where the loads bound the emulation). */
SPMV_AVX512_INLINE void idx_pair(const int32_t *c, int64_t *lo, int64_t *hi)
{
    uint64_t p;
    memcpy(&p, c, sizeof p);
    *lo = (int32_t)(uint32_t)p;
    *hi = (int32_t)(uint32_t)(p >> 32);
}

/* x[c[0..7]] by scalar loads and inserts */
SPMV_AVX512_INLINE __m512d emul_gather8(const int32_t *c, const double *x)
{
    int64_t i0, i1, i2, i3, i4, i5, i6, i7;
    idx_pair(c, &i0, &i1);
    idx_pair(c + 2, &i2, &i3);
    idx_pair(c + 4, &i4, &i5);
    idx_pair(c + 6, &i6, &i7);
    const __m128d p0 = _mm_loadh_pd(_mm_load_sd(x + i0), x + i1);
    const __m128d p1 = _mm_loadh_pd(_mm_load_sd(x + i2), x + i3);
    const __m128d p2 = _mm_loadh_pd(_mm_load_sd(x + i4), x + i5);
    const __m128d p3 = _mm_loadh_pd(_mm_load_sd(x + i6), x + i7);
    const __m256d q0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p1, 1);
    const __m256d q1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(p2), p3, 1);
    return _mm512_insertf64x4(_mm512_castpd256_pd512(q0), q1, 1);
}

/* x at the 8 indices c[0..7] (32-byte aligned), by the variant X */
SPMV_AVX512_INLINE __m512d gather8(const int32_t *c, const double *x, const int X)
{
    if (X == SELL_X_EMUL) return emul_gather8(c, x);
    return _mm512_i32gather_pd(_mm256_load_si256((const __m256i *)c), x, 8);
}

/* x at the 8 indices base + c[0..7] (16-bit offsets, 16-byte aligned), by the variant X: the emulation reads 4
 * offsets per 8-byte load, the hardware gather widens them (vpmovzxwd) and adds the base. */
SPMV_AVX512_INLINE __m512d gather8_16(const uint16_t *c, const double *xb, const int X)
{
    if (X == SELL_X_EMUL) {
        uint64_t p, q;
        memcpy(&p, c, sizeof p);
        memcpy(&q, c + 4, sizeof q);
        const __m128d p0 = _mm_loadh_pd(_mm_load_sd(xb + (p & 0xFFFF)), xb + (p >> 16 & 0xFFFF));
        const __m128d p1 = _mm_loadh_pd(_mm_load_sd(xb + (p >> 32 & 0xFFFF)), xb + (p >> 48));
        const __m128d p2 = _mm_loadh_pd(_mm_load_sd(xb + (q & 0xFFFF)), xb + (q >> 16 & 0xFFFF));
        const __m128d p3 = _mm_loadh_pd(_mm_load_sd(xb + (q >> 32 & 0xFFFF)), xb + (q >> 48));
        const __m256d q0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p1, 1);
        const __m256d q1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(p2), p3, 1);
        return _mm512_insertf64x4(_mm512_castpd256_pd512(q0), q1, 1);
    }
    return _mm512_i32gather_pd(_mm256_cvtepu16_epi32(_mm_load_si128((const __m128i *)c)), xb, 8);
}

/* Software prefetch for matrices far larger than the caches (spmv_sell.prefetch: 2^21 stored entries or more): each
 * value line SELL_AVX512_PF doubles ahead into L2 (prefetcht1), and the 32-bit index lines of gather columns as far
 * ahead in entries. One core of the Intel Xeon VM reads 16 GB/s with the hardware prefetchers alone and 19 GB/s
 * with a prefetch 1 KiB ahead (read-only stream, 512 MiB); SELL-32-rows on powerlaw 2M 0.43-0.45 -> 0.51-0.52
 * Gflop/s, SELL-32-1 on HPCG 128^3 3.09-3.16 -> 3.22 (1 thread; BENCHMARKS.md). 4 KiB ahead instead of 1 KiB
 * (2026-12-03, the VM on a 2.5 GHz host, HPCG 128^3, medians of 4 interleaved rounds, Gflop/s at 1 / 2 threads):
 * SELL-32-1 2.03 / 3.39 -> 2.16 / 3.76, SELL-8-1 1.77 / 3.27 -> 1.99 / 3.82 (2 KiB: 2.09 / 4.00, 1.99 / 3.15). With
 * run columns and 16-bit indices a chunk moves fewer bytes per cycle of work, and the prefetch must run further. */
enum { SELL_AVX512_PF = 512 };
/* the addresses may lie past the arrays (a prefetch never faults): spmv__addr */
SPMV_AVX512_INLINE void sell_prefetch(const double *v)
{
    _mm_prefetch((const char *)spmv__addr(v, SELL_AVX512_PF * sizeof(double)), _MM_HINT_T1);
}
SPMV_AVX512_INLINE void sell_prefetch_idx(const int32_t *c)
{
    _mm_prefetch((const char *)spmv__addr(c, SELL_AVX512_PF * sizeof(int32_t)), _MM_HINT_T1);
}

/* 1 under AddressSanitizer (clang's sanitizer and fuzz builds of CI): see SELL_AVX512_SPLIT; and there the kernels
 * read the plain values even where the matrix has value indices (the same doubles: the same result; they declare
 * no value indices then, shape.vidx = 0), as the value-index loops double the unrolled code: clang's instrumentation
 * of this file took 14 minutes with them. The emulated check (avx512_emu, SPMV_AVX512_EMU: nothing force-inlined or
 * unrolled) keeps them, so the value-index logic runs under the sanitizers there; the indices' layout in test_sell. */
#if defined(SPMV_AVX512_EMU)
#define SELL_AVX512_ASAN 0
#else
#define SELL_AVX512_ASAN SPMV_ASAN
#endif

/* Value indices (spmv_sell.val8, CSR-VI): 8 values from 8 one-byte indices into the 16-entry table t0:t1 (vpmovzxbq,
 * vpermt2pd): 1 byte read per entry instead of 8, the same doubles. The index stream is prefetched as the values
 * are, 4 KiB ahead (4096 entries: a value prefetch 512 entries ahead would sit in the same line). */
SPMV_AVX512_INLINE __m512d vi_val8(const uint8_t *p, __m512d t0, __m512d t1)
{
    return _mm512_permutex2var_pd(t0, _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)p)), t1);
}
SPMV_AVX512_INLINE void vi_prefetch(const uint8_t *p)
{
    _mm_prefetch((const char *)spmv__addr(p, 4096), _MM_HINT_T1);
}

/* Write the C results of a whole chunk (all C rows exist) at yk = y + k*C, y indexed directly (nt: non-temporal
 * stores, y 64-byte aligned). The lean loop calls it instead of sell_store, whose paths for the last chunk and for y
 * through perm it never needs (it runs only where SPMV_SELL_DIRECT holds): inlined there they made GCC keep the
 * loop's pointers in xmm registers. */
SPMV_AVX512_INLINE void sell_store_whole(double *yk, const __m512d *acc, double alpha, double beta, const int C,
                                         const int mode, const int nt)
{
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    SPMV_UNROLL_FULL
    for (int v = 0; v < C / 8; v++) {
        __m512d r = acc[v];
        if (mode == SPMV_Y_SCALE) r = _mm512_mul_pd(va, r);
        if (mode == SPMV_Y_AXPBY) r = _mm512_fmadd_pd(vb, _mm512_loadu_pd(yk + 8 * v), _mm512_mul_pd(va, r));
        if (nt)
            _mm512_stream_pd(yk + 8 * v, r);
        else
            _mm512_storeu_pd(yk + 8 * v, r);
    }
}

/* y at yp from the low double of t: t (SPMV_Y_SET, SPMV_Y_SCALE: t already holds alpha times the sum) or beta * y + t
 * (SPMV_Y_AXPBY, vb = beta in the low double; the product rounded, then the sum) */
SPMV_AVX512_INLINE void sell_y_one(double *yp, __m128d t, __m128d vb, const int mode)
{
    if (mode == SPMV_Y_AXPBY) t = _mm_add_sd(_mm_mul_sd(vb, _mm_load_sd(yp)), t);
    _mm_store_sd(yp, t);
}
/* the same for both doubles of t: the low one at y0, the high one at y1 */
SPMV_AVX512_INLINE void sell_y_pair(double *y0, double *y1, __m128d t, __m128d vb, const int mode)
{
    sell_y_one(y0, t, vb, mode);
    if (mode == SPMV_Y_AXPBY)
        sell_y_one(y1, _mm_unpackhi_pd(t, t), vb, mode);
    else
        _mm_storeh_pd(y1, t);
}

/* Write the C results of chunk k (acc[v] holds rows k*C + 8v .. k*C + 8v + 7). nt: non-temporal stores (permuted
 * order, y 64-byte aligned). */
SPMV_AVX512_INLINE void sell_store(const spmv_sell *S, int32_t k, const __m512d *acc, double alpha, double beta,
                                   double *y, const int C, const int mode, const int nt, const int X)
{
    const int NV = C / 8;
    const int64_t i0 = (int64_t)k * C;
    const int64_t rem = (int64_t)S->rows - i0; /* valid lanes of this chunk (>= C except in the last chunk) */
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    if (SPMV_SELL_DIRECT(S)) {
        double *yk = y + i0;
        if (rem >= C) {
            sell_store_whole(yk, acc, alpha, beta, C, mode, nt);
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
    } else if (X == SELL_X_EMUL) { /* original order: y[perm[i]] by scalar loads and stores */
        const int32_t *pk = S->perm + i0;
        const __m128d vb1 = _mm_set_sd(beta);
        SPMV_UNROLL_FULL
        for (int v = 0; v < NV; v++) {
            __m512d r = acc[v];
            if (mode != SPMV_Y_SET) r = _mm512_mul_pd(va, r);
            if (rem - 8 * v >= 8) {
                const int32_t *p = pk + 8 * v;
                /* stores of the vector's 128-bit quarters: a scalar loop over r spilled to memory, the form before,
                 * was turned by GCC 12 into vscatterdpd (4 ymm/xmm scatters per 8 rows), about 20 % of the multiply
                 * of pow, SELL-32-rows, on Zen 5 (perf), where the emulated gather is chosen because the hardware
                 * gather and scatter are slow */
                const __m256d lo = _mm512_castpd512_pd256(r), hi = _mm512_extractf64x4_pd(r, 1);
                sell_y_pair(y + p[0], y + p[1], _mm256_castpd256_pd128(lo), vb1, mode);
                sell_y_pair(y + p[2], y + p[3], _mm256_extractf128_pd(lo, 1), vb1, mode);
                sell_y_pair(y + p[4], y + p[5], _mm256_castpd256_pd128(hi), vb1, mode);
                sell_y_pair(y + p[6], y + p[7], _mm256_extractf128_pd(hi, 1), vb1, mode);
            } else { /* the last chunk's lanes past rows: neither read nor written */
                double t[8];
                _mm512_storeu_pd(t, r);
                for (int64_t l = 0; l < rem - 8 * v; l++) sell_y_one(y + pk[8 * v + l], _mm_load_sd(t + l), vb1, mode);
            }
        }
    } else { /* original order: y[perm[i]] by gather and scatter (perm read masked past rows) */
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

/* The lean loop: chunks k, k+1, ... below c1 whose columns are all full run columns (chunkfull[k] = chunklen[k] <=
 * SPMV_SELL_LEAN_LEN: stencil matrices' interior) and whose C rows all exist, y indexed directly: x by contiguous
 * loads only, no masks, no indices, the sets as in sell_kernel. Returns the first chunk it did not do. A loop of its
 * own with few live values: in the general loop the per-chunk bookkeeping (loads of the chunk's run, 16-bit and
 * gather bounds, their branches, pointers spilled across the many paths) cost as much as the five columns of a
 * lap2d chunk: SELL-32-1 with value indices, lap2d 300^2 (L2/L3), AMD EPYC Zen 5 VM, 1 thread: 68 cycles per chunk
 * where a stand-alone loop over the same data takes 34; with this loop 17.8 -> 20.8 Gflop/s (and on lap2d 2000^2,
 * in memory, 7.4 -> 9.3 at 1 thread, 14.4 -> 25.2 at 2; BENCHMARKS.md). Chunks longer than SPMV_SELL_LEAN_LEN
 * columns stay in the general loop: there the bookkeeping is a small part, and HPCG 128^3 (27 columns, every other
 * chunk with gather columns at the grid's x boundaries) lost about 10 % switching between the loops at every chunk.
 * spmv__sell_lean_wanted (kernel.h) decides per call whether to look for such chunks at all.
 * No software prefetch here (spmv_sell.prefetch is for the general loop's index streams): x, the values (or value
 * indices) and y all run forward, and the hardware prefetchers follow them. Without the general loop's value-index
 * prefetch 4 KiB ahead, Zen 5 VM, SELL-8-1 / SELL-32-1 with value indices, medians of 9 interleaved rounds at 1 and
 * 2 threads, two runs: lap2d 1000^2 (in L3) 1.02-1.18x, lap2d 2000^2 (in memory) 1.01-1.12x in one run and
 * 0.94-1.05x in the other (BENCHMARKS.md, 2026-12-04 evening). */
SPMV_AVX512_INLINE int32_t sell_run_chunks(const spmv_sell *S, int32_t k, int32_t c1, double alpha,
                                           const double *restrict x, double beta, double *restrict y, const int C,
                                           const int U, const int mode, const int nt, const int VI, __m512d t0,
                                           __m512d t1)
{
    const int NV = C / 8;
    const int64_t *chunkptr = S->chunkptr;
    const int32_t *chunklen = S->chunklen, *chunkfull = S->chunkfull, *runbase = S->runbase;
    const int64_t *runptr = S->runptr;
    const double *val = S->val;
    const uint8_t *val8 = S->val8;
    const int32_t whole = (int32_t)(S->rows / C); /* chunks with all C rows */
    const int32_t end = c1 < whole ? c1 : whole;
    for (; k < end; k++) {
        const int32_t len = chunklen[k];
        if (chunkfull[k] != len || len > SPMV_SELL_LEAN_LEN) break;
        const int64_t off = chunkptr[k];
        const int32_t *rb = runbase + runptr[k];
        __m512d acc[SELL_U_MAX][SELL_NV_MAX];
        SPMV_UNROLL_FULL
        for (int u = 0; u < U; u++)
            SPMV_UNROLL_FULL
            for (int v = 0; v < NV; v++) acc[u][v] = _mm512_setzero_pd();
#define SELL_RVAL(o) (VI ? vi_val8(val8 + off + (o), t0, t1) : _mm512_load_pd(val + off + (o)))
        int32_t j = 0;
        for (; j + U <= len; j += U) {
            SPMV_UNROLL_FULL
            for (int u = 0; u < U; u++)
                SPMV_UNROLL_FULL
                for (int v = 0; v < NV; v++) {
                    const int64_t o = (int64_t)(j + u) * C + 8 * v;
                    acc[u][v] = _mm512_fmadd_pd(SELL_RVAL(o), _mm512_loadu_pd(x + rb[j + u] + 8 * v), acc[u][v]);
                }
        }
        SPMV_UNROLL_FULL
        for (int u = 0; u < U - 1; u++) /* the columns past a multiple of U (fewer than U), one set each */
            if (j + u < len)
                SPMV_UNROLL_FULL
                for (int v = 0; v < NV; v++) {
                    const int64_t o = (int64_t)(j + u) * C + 8 * v;
                    acc[u][v] = _mm512_fmadd_pd(SELL_RVAL(o), _mm512_loadu_pd(x + rb[j + u] + 8 * v), acc[u][v]);
                }
#undef SELL_RVAL
        SPMV_UNROLL_FULL
        for (int v = 0; v < NV; v++)
            SPMV_UNROLL_FULL
            for (int u = 1; u < U; u++) acc[0][v] = _mm512_add_pd(acc[0][v], acc[u][v]);
        sell_store_whole(y + (int64_t)k * C, acc[0], alpha, beta, C, mode, nt);
    }
    return k;
}
/* chunks [c0,c1): y[row(i)] = beta*y[row(i)] + alpha*sum_j val[i,j]*x[col[i,j]] for the C rows i of each chunk,
 * row(i) = i (permuted order) or perm[i] (original order); C, U, mode, nt, X are compile-time constants after
 * inlining. */
SPMV_AVX512_INLINE void sell_kernel(const spmv_sell *S, int32_t c0, int32_t c1, double alpha,
                                    const double *restrict x, double beta, double *restrict y, const int C,
                                    const int U, const int mode, const int nt, const int X, const int PF, const int VI)
{
    const int NV = C / 8;
    const int64_t *chunkptr = S->chunkptr;
    const int32_t *chunklen = S->chunklen;
    const int32_t *chunkruns = S->chunkruns; /* NULL: no run columns */
    const double *val = S->val;
    const int32_t *col = S->col;
    /* VI: the values of the entry at vp + o are vi_val8(val8 + (vp - val) + o): vp walks val as before (never read) */
    const uint8_t *val8 = S->val8;
    const __m512d t0 = VI ? _mm512_load_pd(S->vtab) : _mm512_setzero_pd();
    const __m512d t1 = VI ? _mm512_load_pd(S->vtab + 8) : _mm512_setzero_pd();
#define SELL_VAL(o) (VI ? vi_val8(val8 + (vp - val) + (o), t0, t1) : _mm512_load_pd(vp + (o)))
#define SELL_PF(o)                                                                                                 \
    do {                                                                                                           \
        if (PF && !VI) sell_prefetch(vp + (o));                                                                    \
        if (PF && VI && (o) % 64 == 0) vi_prefetch(val8 + (vp - val) + (o));                                       \
    } while (0)
    const int lean = spmv__sell_lean_wanted(S, c0, c1, SPMV_SELL_LEAN_LEN);
    for (int32_t k = c0; k < c1; k++) {
        /* the lean loop's own test, asked here first: handing it every chunk instead (same result) made GCC 12 spill
         * in the general loop's run-column loops (avx512_inner_loop) */
        if (lean && chunklen[k] <= SPMV_SELL_LEAN_LEN && S->chunkfull[k] == chunklen[k]) {
            k = sell_run_chunks(S, k, c1, alpha, x, beta, y, C, U, mode, nt, VI, t0, t1);
            if (k >= c1) break;
        }
        const double *vp = val + chunkptr[k];  /* 64-byte aligned */
        const int32_t *cp = col + chunkptr[k]; /* 32-byte aligned */
        const int32_t len = chunklen[k];
        __m512d acc[SELL_U_MAX][SELL_NV_MAX];
        SPMV_UNROLL_FULL
        for (int u = 0; u < U; u++)
            SPMV_UNROLL_FULL
            for (int v = 0; v < NV; v++) acc[u][v] = _mm512_setzero_pd();
        int32_t j = 0;
        if (chunkruns) { /* run columns: contiguous loads of x, no indices */
            const int32_t R = chunkruns[k], F = S->chunkfull[k], FU = F - F % U, RU = R - (R - F) % U;
            const int32_t *rb = S->runbase + S->runptr[k];
            const __mmask8 *rm = (const __mmask8 *)(S->runmask + S->runptr[k] * NV); /* NV mask bytes per column */
            for (; j < FU; j += U, vp += U * C, rb += U, rm += U * NV) { /* full: every lane, no mask to load */
                SPMV_UNROLL_FULL
                for (int u = 0; u < U; u++)
                    SPMV_UNROLL_FULL
                    for (int v = 0; v < NV; v++) {
                        const __m512d xv = _mm512_loadu_pd(x + rb[u] + 8 * v);
                        acc[u][v] = _mm512_fmadd_pd(SELL_VAL(u * C + 8 * v), xv, acc[u][v]);
                        SELL_PF(u * C + 8 * v);
                    }
            }
            /* the full ones past a multiple of U (fewer than U), one set each */
            SPMV_UNROLL_FULL
            for (int u = 0; u < U - 1; u++)
                if (j + u < F)
                    SPMV_UNROLL_FULL
                    for (int v = 0; v < NV; v++) {
                        const __m512d xv = _mm512_loadu_pd(x + rb[u] + 8 * v);
                        acc[u][v] = _mm512_fmadd_pd(SELL_VAL(u * C + 8 * v), xv, acc[u][v]);
                    }
            vp += (int64_t)(F - j) * C, rb += F - j, rm += (F - j) * NV, j = F;
            for (; j < RU; j += U, vp += U * C, rb += U, rm += U * NV) {
                SPMV_UNROLL_FULL
                for (int u = 0; u < U; u++)
                    SPMV_UNROLL_FULL
                    for (int v = 0; v < NV; v++) {
                        const __m512d xv =
                            _mm512_maskz_loadu_pd(rm[u * NV + v], spmv__run_x(x, (int64_t)rb[u] + 8 * v));
                        acc[u][v] = _mm512_fmadd_pd(SELL_VAL(u * C + 8 * v), xv, acc[u][v]);
                        SELL_PF(u * C + 8 * v);
                    }
            }
            for (; j < R; j++, vp += C, rb++, rm += NV) {
                SPMV_UNROLL_FULL
                for (int v = 0; v < NV; v++) {
                    const __m512d xv = _mm512_maskz_loadu_pd(rm[v], spmv__run_x(x, (int64_t)rb[0] + 8 * v));
                    acc[0][v] = _mm512_fmadd_pd(SELL_VAL(8 * v), xv, acc[0][v]);
                }
            }
            cp += (int64_t)R * C;
        }
        const int32_t lenU = len - (len - j) % U;
        if (S->colbase && S->colbase[k] >= 0) { /* 16-bit indices from the chunk's base */
            const uint16_t *c16 = S->col16 + (cp - col);
            const double *xb = x + S->colbase[k];
            for (; j < lenU; j += U, vp += U * C, c16 += U * C) {
                SPMV_UNROLL_FULL
                for (int u = 0; u < U; u++)
                    SPMV_UNROLL_FULL
                    for (int v = 0; v < NV; v++) {
                        const __m512d xv = gather8_16(c16 + u * C + 8 * v, xb, X);
                        acc[u][v] = _mm512_fmadd_pd(SELL_VAL(u * C + 8 * v), xv, acc[u][v]);
                        SELL_PF(u * C + 8 * v);
                    }
            }
            for (; j < len; j++, vp += C, c16 += C) {
                SPMV_UNROLL_FULL
                for (int v = 0; v < NV; v++) {
                    const __m512d xv = gather8_16(c16 + 8 * v, xb, X);
                    acc[0][v] = _mm512_fmadd_pd(SELL_VAL(8 * v), xv, acc[0][v]);
                }
            }
        } else {
            for (; j < lenU; j += U, vp += U * C, cp += U * C) {
                SPMV_UNROLL_FULL
                for (int u = 0; u < U; u++)
                    SPMV_UNROLL_FULL
                    for (int v = 0; v < NV; v++) {
                        const __m512d xv = gather8(cp + u * C + 8 * v, x, X);
                        acc[u][v] = _mm512_fmadd_pd(SELL_VAL(u * C + 8 * v), xv, acc[u][v]);
                        SELL_PF(u * C + 8 * v);
                        if (PF && (u * C + 8 * v) % 16 == 0) sell_prefetch_idx(cp + u * C + 8 * v);
                    }
            }
            for (; j < len; j++, vp += C, cp += C) { /* remainder: (len - runs) % U columns */
                SPMV_UNROLL_FULL
                for (int v = 0; v < NV; v++) {
                    const __m512d xv = gather8(cp + 8 * v, x, X);
                    acc[0][v] = _mm512_fmadd_pd(SELL_VAL(8 * v), xv, acc[0][v]);
                }
            }
        }
        /* sum the sets (once per chunk) */
        SPMV_UNROLL_FULL
        for (int v = 0; v < NV; v++)
            SPMV_UNROLL_FULL
            for (int u = 1; u < U; u++) acc[0][v] = _mm512_add_pd(acc[0][v], acc[u][v]);
        sell_store(S, k, acc[0], alpha, beta, y, C, mode, nt, X);
    }
#undef SELL_VAL
#undef SELL_PF
}

/* The three alpha/beta paths of one prefetch setting PF and value source VI (1: value indices), dispatched once per
 * call; nt: non-temporal stores. */
SPMV_AVX512_INLINE void sell_paths(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x,
                                   double beta, double *y, const int C, const int U, const int nt, const int X,
                                   const int PF, const int VI)
{
    if (beta != 0.0)
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, SPMV_Y_AXPBY, nt, X, PF, VI);
    else if (alpha != 1.0)
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, SPMV_Y_SCALE, nt, X, PF, VI);
    else
        sell_kernel(S, c0, c1, alpha, x, beta, y, C, U, SPMV_Y_SET, nt, X, PF, VI); /* fast path y = A x */
}

/* The six paths (alpha/beta case x prefetch) as a function of their own, FN, with the prefetch setting pf. Optimized
 * builds inline it into the kernel with pf a constant at each of its two calls: one function with six specialized
 * paths, the machine code check_inner_loop.sh reads. Under AddressSanitizer it stays a function and pf a run-time
 * value: three paths, each with its prefetch branches. clang's ASan + UBSan instrumentation of the six specialized
 * paths took over 12 minutes for this file (40 s before the prefetch paths doubled them), and the sanitizer and fuzz
 * legs of CI compile it; every path still runs under the sanitizers. */
#if SELL_AVX512_ASAN
#define SELL_AVX512_SPLIT static __attribute__((noinline))
#else
#define SELL_AVX512_SPLIT SPMV_AVX512_INLINE
#endif
#define SELL_AVX512_PATHS(FN, CC, XC)                                                                              \
    SELL_AVX512_SPLIT void FN(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x,          \
                              double beta, double *y, int nt, int pf, int vi)                                     \
    {                                                                                                              \
        sell_paths(S, c0, c1, alpha, x, beta, y, CC, SELL_AVX512_UNROLL_C##CC, nt, XC, pf,                        \
                   SELL_AVX512_ASAN ? 0 : vi);                                                                     \
    }

/* streaming stores need 64-byte aligned y (then every chunk's y block is aligned: C*8 bytes, C >= 8); nt_ok:
 * non-temporal stores wanted */
SPMV_AVX512_INLINE int sell_nt(const spmv_sell *S, const double *y, const int nt_ok)
{
    return nt_ok && SPMV_SELL_DIRECT(S) && ((uintptr_t)y & 63) == 0;
}

/* Aligned loads need 64-byte aligned values and 32-byte aligned indices at every chunk start. */
static int sell_avx512_aligned(const spmv_sell *S)
{
    return ((uintptr_t)S->val & 63) == 0 && ((uintptr_t)S->col & 31) == 0 &&
           (S->nchunks == 0 || (S->chunkptr[0] & 7) == 0);
}

/* Traffic per multiply: 12 bytes per stored gather-column entry (value + index), 8.125 per run-column lane (value +
 * mask bit; the full run columns do not read their mask, 1.5 % of a lane, not subtracted) and 4 per run column (its
 * base), 16 per row (y store + write-allocate; 8 with non-temporal stores, no
 * write-allocate), 12 per chunk (int64 chunk offset + int32 chunk length; the run offset and count are counted with
 * the runs). */
#define SELL_AVX512_TRAFFIC(ROW)                                                                                   \
    {.bytes_per_entry = 12, .bytes_per_row = ROW, .bytes_per_chunk = 12, .flops_per_entry = 2,                   \
     .bytes_per_run_lane = 8.125, .bytes_per_run = 4, .bytes_per_entry16 = 10,                        \
     .bytes_per_value_vi = SELL_AVX512_ASAN ? 0 : 1}

/* One kernel: chunk height CC, x access XN (gather | emul), NT (0 | 1). */
#define SELL_AVX512_KERNEL(CC, XN, XC, XS, NT, NTN, NTS)                                                                \
    SELL_AVX512_PATHS(sell_avx512_##XN##NTN##_c##CC##_paths, CC, XC)                                              \
    static void sell_avx512_##XN##NTN##_c##CC(const spmv_sell *S, int32_t c0, int32_t c1, double alpha,          \
                                              const double *x, double beta, double *y)                            \
    {                                                                                                              \
        const int nt = sell_nt(S, y, NT);                                                                          \
        /* software prefetch (big matrices, spmv_sell.prefetch); value indices (spmv_sell.val8) */                 \
        if (S->val8)                                                                                               \
            sell_avx512_##XN##NTN##_c##CC##_paths(S, c0, c1, alpha, x, beta, y, nt, S->prefetch ? 1 : 0, 1);       \
        else if (S->prefetch)                                                                                      \
            sell_avx512_##XN##NTN##_c##CC##_paths(S, c0, c1, alpha, x, beta, y, nt, 1, 0);                         \
        else                                                                                                       \
            sell_avx512_##XN##NTN##_c##CC##_paths(S, c0, c1, alpha, x, beta, y, nt, 0, 0);                         \
        if (nt) _mm_sfence(); /* order the weakly-ordered streaming stores before the driver's barrier */          \
    }                                                                                                              \
    static int sell_avx512_##XN##NTN##_accepts_c##CC(const spmv_sell *S)                                           \
    {                                                                                                              \
        return S->C == CC && sell_avx512_aligned(S);                                                               \
    }                                                                                                              \
    const spmv_kernel SPMV_AVX512_SYM(k_sell_avx512_##XN##NTN##_c##CC) = {                                        \
        .name = "sell-avx512-" #XN NTS "-C" #CC, .arch = SPMV_ARCH_AVX512,                                        \
        .sell = sell_avx512_##XN##NTN##_c##CC, .traffic = SELL_AVX512_TRAFFIC(NT ? 8 : 16),                        \
        .shape = {.format = SPMV_FORMAT_SELL, .C = CC, .width = 8, .mve = SELL_AVX512_UNROLL_C##CC, .x = XS,       \
                  .runs = 1, .idx16 = 1, .vidx = !SELL_AVX512_ASAN,                                                \
                  /* the chunk's loop of len / U steps, the U - 1 columns past it (len % U) */                     \
                  .len_branch = {{SELL_AVX512_UNROLL_C##CC, 0, 0}, {1, SELL_AVX512_UNROLL_C##CC, 0}}},                 \
        .nt = NT, .accepts = sell_avx512_##XN##NTN##_accepts_c##CC};

#define SELL_AVX512_DEFINE(CC)                                                                                     \
    SELL_AVX512_KERNEL(CC, gather, SELL_X_GATHER, SPMV_X_GATHER, 0, , "")                                         \
    SELL_AVX512_KERNEL(CC, emul, SELL_X_EMUL, SPMV_X_EMUL, 0, , "")                                               \
    SELL_AVX512_KERNEL(CC, gather, SELL_X_GATHER, SPMV_X_GATHER, 1, _nt, "-nt")                                   \
    SELL_AVX512_KERNEL(CC, emul, SELL_X_EMUL, SPMV_X_EMUL, 1, _nt, "-nt")

SELL_AVX512_DEFINE(8)
SELL_AVX512_DEFINE(16)
SELL_AVX512_DEFINE(32)
SELL_AVX512_DEFINE(64)

/* The emulated or the hardware gather on an L1-resident x, for the family's choice (family.c), which times it:
 * `reps` passes over 64 indices. */
double SPMV_AVX512_SYM(avx512_gather_probe)(int emul, const int32_t *idx, const double *x, int reps)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < 64; i += 16) {
            if (emul) {
                a0 = _mm512_add_pd(a0, emul_gather8(idx + i, x));
                a1 = _mm512_add_pd(a1, emul_gather8(idx + i + 8, x));
            } else {
                a0 = _mm512_add_pd(a0, _mm512_i32gather_pd(_mm256_load_si256((const __m256i *)(idx + i)), x, 8));
                a1 = _mm512_add_pd(a1, _mm512_i32gather_pd(_mm256_load_si256((const __m256i *)(idx + i + 8)), x, 8));
            }
        }
    return _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
}
