/* SELL-C-sigma kernels for Arm SVE (ACLE), vector-length agnostic: one binary runs at any VL (128..2048 bits).
 *
 * Chunk height C = k*VL with VL = svcntd() doubles. Each chunk is one block of k vectors of rows with k independent
 * accumulators (MVE): on the A64FX (VL = 8) with C = 32 that is the four-way unrolling on top of SVE of Alappat et
 * al., PMBS 2020, Sect. IV. Per column j of the chunk and per VL of rows the inner loop issues exactly
 *     ld1sw (32-bit column indices, sign-extended to 64 bit)      svld1sw_vnum_s64
 *     ld1d  (gather x[col], z-register offsets scaled by 8)      svld1_gather_s64index_f64
 *     ld1d  (contiguous values)                                  svld1_vnum_f64
 *     fmla  (accumulator += value * x)                           svmla_f64_x
 * plus 4 instructions of loop control per column (GCC 12 -O3: 4k + 4 instructions for k accumulators).
 * and no horizontal add (the format's point: no faddv). In chunks with 16-bit indices the ld1sw becomes an ld1h
 * from the offsets and the gather's base is x + the chunk's base. Run columns (spmv_sell) take, per VL of rows, a
 * lane predicate from the run's mask bits and one predicated contiguous ld1d of x instead of ld1sw + gather. With value
 * indices (spmv_sell.val8) the contiguous ld1d of the values becomes an ld1b of VL one-byte indices and a gather
 * from the 16-entry table (1 byte per entry read instead of 8).
 * scripts/check-sve-inner-loop.sh checks these three loop kinds in the built object.
 *
 * Kernels: "sell-sve-C1xVL", "sell-sve-C2xVL", "sell-sve-C4xVL", "sell-sve-C8xVL" for C = k*VL, k in {1,2,4,8},
 * and "sell-sve-CmxVL" for any other multiple of VL (e.g. the default C = 32 on 128-bit SVE, = 16 VL): the chunk
 * is processed as consecutive blocks of 8, 4, 2 and 1 vectors of rows, each block with the same inner loop.
 * A C that is not a multiple of the running VL falls back to the reference kernel (registry, SPMV_VERBOSE says so).
 *
 * Semantics as src/kernels/ref/sell_ref.c: y[row(i)] = beta*y[row(i)] + alpha*sum_j val*x[col], row(i) = i when
 * SPMV_SELL_DIRECT(S), else S->perm[i]; beta == 0: y is not read; lanes i >= rows are padding and never stored (the store,
 * the perm load and the y load are predicated with svwhilelt). Padding entries carry valid column indices
 * (src/formats/sell.c), so the gathers run under an all-true predicate. */
#include "kernel.h"

#include <arm_sve.h>
#include <string.h>

#if !defined(__ARM_FEATURE_SVE)
#error "compile src/kernels/sve/ with -march=armv8-a+sve (cmake/SpmvIsa.cmake)"
#endif

/* Where a block stores its rows: S's fields read once (the y stores could alias them as far as the compiler knows). */
typedef struct sell_out {
    int64_t rows;        /* S->rows */
    const int32_t *perm; /* NULL: permuted order (row i -> y[i]); else row i -> y[perm[i]] */
    double alpha, beta;
    double *y;
} sell_out;

/* Store one VL of results for rows [i0, i0+VL) (lanes past rows masked off). */
static inline __attribute__((always_inline)) void sell_store(const sell_out *o, int64_t i0, svfloat64_t acc)
{
    const svbool_t pg = svwhilelt_b64_s64(i0, o->rows);
    if (!svptest_any(svptrue_b64(), pg)) return;
    svfloat64_t out = o->alpha == 1.0 ? acc : svmul_n_f64_x(pg, acc, o->alpha);
    if (!o->perm) {
        if (o->beta != 0.0) out = svmla_n_f64_x(pg, out, svld1_f64(pg, o->y + i0), o->beta);
        svst1_f64(pg, o->y + i0, out);
    } else {
        const svint64_t r = svld1sw_s64(pg, o->perm + i0);
        if (o->beta != 0.0) out = svmla_n_f64_x(pg, out, svld1_gather_s64index_f64(pg, o->y, r), o->beta);
        svst1_scatter_s64index_f64(pg, o->y, r, out);
    }
}

/* Bits l0 .. l0+n-1 (n <= 32) of a run column's mask, as the low bits of the result: one 8-byte load (the library
 * pads runmask with 8 bytes, so the load stays inside the array). */
static inline __attribute__((always_inline)) uint64_t mask_bits(const uint8_t *m, int64_t l0, int64_t n)
{
    uint64_t w;
    memcpy(&w, m + l0 / 8, sizeof w);
    return (w >> (l0 % 8)) & (((uint64_t)1 << n) - 1);
}

/* One block of K vectors of rows of a chunk: lanes [b0, b0 + K*VL) of chunk k at offset off, len columns:
 *  - run columns (the first R of the chunk): x by a contiguous load under the lane predicate of the run's mask
 *    (inactive lanes neither load nor fault), no index load;
 *  - gather columns: ld1sw + gather, or, where the chunk has 16-bit indices, ld1h + gather from x + base.
 * K is a compile-time constant in every caller, so the dead steps fold away and the K accumulators live in
 * registers (SVE types cannot form arrays, hence the eight named ones). */
#define SELL_STEP(u, a)                                                                                          \
    if (K > (u)) {                                                                                               \
        const svint64_t idx = svld1sw_vnum_s64(all, col, (u));                                                   \
        const svfloat64_t xv = svld1_gather_s64index_f64(all, x, idx);                                           \
        a = svmla_f64_x(all, a, SVE_VAL(u), xv);                                              \
    }
#define SELL_STEP16(u, a)                                                                                        \
    if (K > (u)) {                                                                                               \
        const svuint64_t idx = svld1uh_vnum_u64(all, c16, (u));                                                  \
        const svfloat64_t xv = svld1_gather_u64index_f64(all, xb, idx);                                          \
        a = svmla_f64_x(all, a, SVE_VAL(u), xv);                                              \
    }
#define RUN_STEP(u, a)                                                                                           \
    if (K > (u)) {                                                                                               \
        const svbool_t p = svcmpne_n_u64(                                                                        \
            all, svand_u64_x(all, svdup_n_u64(mask_bits(rm, b0 + (u) * VL, VL)), lanebit), 0);              \
        const svfloat64_t xv = svld1_f64(p, spmv__run_x(xr, (u) * VL));                                          \
        a = svmla_f64_x(all, a, SVE_VAL(u), xv);                                              \
    }
/* the values of step u: contiguous, or (VI: value indices, spmv_sell.val8) VL one-byte indices (ld1b) and a gather
 * from the L1-resident table */
#define SVE_VAL(u)                                                                                               \
    (VI ? svld1_gather_u64index_f64(all, S->vtab, svld1ub_vnum_u64(all, S->val8 + (val - S->val), (u)))       \
        : svld1_vnum_f64(all, val, (u)))
#define SELL_OUT(u, a) \
    if (K > (u)) sell_store(o, row0 + b0 + (u) * VL, a);

static inline __attribute__((always_inline)) void sell_block(const spmv_sell *S, const sell_out *o, int K,
                                                            int32_t k, int64_t b0, const double *x, const int VI)
{
    const int64_t VL = (int64_t)svcntd();
    const int64_t C = S->C, off = S->chunkptr[k], row0 = (int64_t)k * C;
    const int32_t len = S->chunklen[k], R = S->chunkruns ? S->chunkruns[k] : 0;
    const svbool_t all = svptrue_b64();
    svfloat64_t a0 = svdup_n_f64(0.0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    const int32_t *col = S->col + off + b0;
    const double *val = S->val + off + b0;
    if (R > 0) { /* run columns */
        const svuint64_t lanebit = svlsl_u64_x(all, svdup_n_u64(1), svindex_u64(0, 1));
        const int64_t mb = (C + 7) / 8;
        const int32_t *rb = S->runbase + S->runptr[k];
        const uint8_t *rm = S->runmask + S->runptr[k] * mb;
        for (int32_t j = 0; j < R; j++, val += C, col += C, rm += mb) {
            const double *xr = spmv__run_x(x, (int64_t)rb[j] + b0); /* key rb[j] may be negative: x - 1 */
            RUN_STEP(0, a0) RUN_STEP(1, a1) RUN_STEP(2, a2) RUN_STEP(3, a3)
            RUN_STEP(4, a4) RUN_STEP(5, a5) RUN_STEP(6, a6) RUN_STEP(7, a7)
        }
    }
    const double *const end = S->val + off + b0 + (int64_t)len * C;
    if (S->colbase && S->colbase[k] >= 0) { /* 16-bit indices from the chunk's base */
        const uint16_t *c16 = S->col16 + (col - S->col);
        const double *xb = x + S->colbase[k];
        for (; val != end; c16 += C, val += C) {
            SELL_STEP16(0, a0) SELL_STEP16(1, a1) SELL_STEP16(2, a2) SELL_STEP16(3, a3)
            SELL_STEP16(4, a4) SELL_STEP16(5, a5) SELL_STEP16(6, a6) SELL_STEP16(7, a7)
        }
    } else {
        for (; val != end; col += C, val += C) {
            SELL_STEP(0, a0) SELL_STEP(1, a1) SELL_STEP(2, a2) SELL_STEP(3, a3)
            SELL_STEP(4, a4) SELL_STEP(5, a5) SELL_STEP(6, a6) SELL_STEP(7, a7)
        }
    }
    SELL_OUT(0, a0) SELL_OUT(1, a1) SELL_OUT(2, a2) SELL_OUT(3, a3)
    SELL_OUT(4, a4) SELL_OUT(5, a5) SELL_OUT(6, a6) SELL_OUT(7, a7)
}
#undef SELL_STEP
#undef SELL_STEP16
#undef RUN_STEP
#undef SELL_OUT
#undef SVE_VAL

/* Chunks [c0, c1) with C = K*VL: one block per chunk. */
static inline __attribute__((always_inline)) void sell_sve_k(const spmv_sell *S, int K, int32_t c0, int32_t c1,
                                                            double alpha, const double *x, double beta, double *y)
{
    const sell_out o = {S->rows, SPMV_SELL_DIRECT(S) ? NULL : S->perm, alpha, beta, y};
    if (S->val8)
        for (int32_t k = c0; k < c1; k++) sell_block(S, &o, K, k, 0, x, 1);
    else
        for (int32_t k = c0; k < c1; k++) sell_block(S, &o, K, k, 0, x, 0);
}

static void sell_sve_c1(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                        double *y)
{
    sell_sve_k(S, 1, c0, c1, alpha, x, beta, y);
}
static void sell_sve_c2(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                        double *y)
{
    sell_sve_k(S, 2, c0, c1, alpha, x, beta, y);
}
static void sell_sve_c4(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                        double *y)
{
    sell_sve_k(S, 4, c0, c1, alpha, x, beta, y);
}
static void sell_sve_c8(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                        double *y)
{
    sell_sve_k(S, 8, c0, c1, alpha, x, beta, y);
}

/* Any C = m*VL: blocks of 8 vectors, then at most one block each of 4, 2 and 1 vectors. */
static inline __attribute__((always_inline)) void sell_sve_m(const spmv_sell *S, int32_t c0, int32_t c1, double alpha,
                                                            const double *x, double beta, double *y, const int VI)
{
    const int64_t VL = (int64_t)svcntd();
    const int64_t C = S->C;
    const sell_out o = {S->rows, SPMV_SELL_DIRECT(S) ? NULL : S->perm, alpha, beta, y};
    for (int32_t k = c0; k < c1; k++) {
        int64_t b = 0;
        for (; b + 8 * VL <= C; b += 8 * VL) sell_block(S, &o, 8, k, b, x, VI);
        if (b + 4 * VL <= C) {
            sell_block(S, &o, 4, k, b, x, VI);
            b += 4 * VL;
        }
        if (b + 2 * VL <= C) {
            sell_block(S, &o, 2, k, b, x, VI);
            b += 2 * VL;
        }
        if (b + VL <= C) sell_block(S, &o, 1, k, b, x, VI);
    }
}

static void sell_sve_cm(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                        double *y)
{
    if (S->val8)
        sell_sve_m(S, c0, c1, alpha, x, beta, y, 1);
    else
        sell_sve_m(S, c0, c1, alpha, x, beta, y, 0);
}

static int accepts_k(const spmv_sell *S, int64_t k) { return S && (int64_t)S->C == k * (int64_t)svcntd(); }
static int accepts_c1(const spmv_sell *S) { return accepts_k(S, 1); }
static int accepts_c2(const spmv_sell *S) { return accepts_k(S, 2); }
static int accepts_c4(const spmv_sell *S) { return accepts_k(S, 4); }
static int accepts_c8(const spmv_sell *S) { return accepts_k(S, 8); }
static int accepts_cm(const spmv_sell *S) { return S && S->C > 0 && S->C % (int32_t)svcntd() == 0; }

/* Traffic per multiply, as the reference SELL kernel: 12 bytes per stored entry (8-byte value + 4-byte index),
 * 16 per row (y store + write-allocate), 12 per chunk (int64 chunk offset + int32 chunk length); 2 flops per
 * nonzero. With beta != 0, y is read as well (not part of the beta = 0 declaration, see spmv_traffic). */
#define SELL_SVE_TRAFFIC                                                                                           \
    {.bytes_per_entry = 12, .bytes_per_row = 16, .bytes_per_chunk = 12, .flops_per_entry = 2,                    \
     .bytes_per_run_lane = 8.125, .bytes_per_run = 4, .bytes_per_entry16 = 10, .bytes_per_value_vi = 1}
/* C/VL accumulators in one set (no unroll along the chunk), VL doubles per vector, hardware gathers (32- or 16-bit
 * indices), run columns by predicated contiguous loads */
#define SELL_SVE_SHAPE                                                                                             \
    {.format = SPMV_FORMAT_SELL, .C = 0, .width = 0, .mve = 1, .x = SPMV_X_GATHER, .runs = 1, .idx16 = 1, .vidx = 1}

const spmv_kernel spmv__k_sell_sve_c1 = {.name = "sell-sve-C1xVL", .arch = SPMV_ARCH_SVE, .sell = sell_sve_c1,
                                         .traffic = SELL_SVE_TRAFFIC, .shape = SELL_SVE_SHAPE, .accepts = accepts_c1};
const spmv_kernel spmv__k_sell_sve_c2 = {.name = "sell-sve-C2xVL", .arch = SPMV_ARCH_SVE, .sell = sell_sve_c2,
                                         .traffic = SELL_SVE_TRAFFIC, .shape = SELL_SVE_SHAPE, .accepts = accepts_c2};
const spmv_kernel spmv__k_sell_sve_c4 = {.name = "sell-sve-C4xVL", .arch = SPMV_ARCH_SVE, .sell = sell_sve_c4,
                                         .traffic = SELL_SVE_TRAFFIC, .shape = SELL_SVE_SHAPE, .accepts = accepts_c4};
const spmv_kernel spmv__k_sell_sve_c8 = {.name = "sell-sve-C8xVL", .arch = SPMV_ARCH_SVE, .sell = sell_sve_c8,
                                         .traffic = SELL_SVE_TRAFFIC, .shape = SELL_SVE_SHAPE, .accepts = accepts_c8};
const spmv_kernel spmv__k_sell_sve_cm = {.name = "sell-sve-CmxVL", .arch = SPMV_ARCH_SVE, .sell = sell_sve_cm,
                                         .traffic = SELL_SVE_TRAFFIC, .shape = SELL_SVE_SHAPE, .accepts = accepts_cm};
