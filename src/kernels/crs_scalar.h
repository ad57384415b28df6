/* Scalar CRS kernel body shared by the x86 SIMD families (included by src/kernels/avx512/crs_avx512.c and
 * src/kernels/avx2/crs_avx2.c, so it is compiled with each family's flags: FMA, no gathers).
 *
 * Scalar FMAs with SPMV_CRS_SCALAR_ACCS independent partial sums per row (MVE, Alappat et al., PMBS 2020, Sect. V).
 * Why scalar: on the x86 cores measured (AMD Zen 5: zmm vgatherdpd 14.7 cy, spmv-machine) a vectorized row -- one
 * gather and one horizontal reduction per row -- loses to scalar code that issues an index load, an x load and a
 * value load per entry at 3-4 loads per cycle, and short rows (5 entries: a 2D Laplacian) lose most (a masked
 * gather, the mask set-up and the reduction per row). The partial sums break the FMA latency chain (4 cy) of long
 * rows; consecutive rows are independent, so out-of-order execution overlaps them. */
#ifndef SPMV_CRS_SCALAR_H
#define SPMV_CRS_SCALAR_H

#include "kernel.h"

#include <stdint.h>

/* MVE: independent scalar partial sums per row (unit: accumulators), unrolled by as many entries per step. */
#define SPMV_CRS_SCALAR_ACCS 4
/* The short-row kernels (mean N_nzr below SPMV_CRS_SHORT_NZR): 2 partial sums, a loop over pairs and at most one
 * entry before it (after it in the -pf kernels). With 4 sums, rows of 1-7 entries end in a 4-way remainder switch
 * whose indirect branch follows the row lengths and is mispredicted on irregular meshes; 2 sums leave a single
 * conditional branch. Measured on
 * an Intel Xeon (Sapphire Rapids class, AVX-512), 1 thread, Gflop/s, 4 sums -> 2 sums: pow (N_nzr 2.7) 1.67 ->
 * 3.59, bcspwr10 (4.1) 3.87 -> 4.02, bayer10 (7.1) 4.13 -> 4.44; longer rows lose: hangGlider_2 (9.0) 4.98 ->
 * 4.80, bcsstk13 (41.9) 5.93 -> 4.85 (BENCHMARKS.md, "CRS short rows"). */
#define SPMV_CRS_SHORT_ACCS 2
#define SPMV_CRS_SHORT_NZR 8

/* sum_k v[k]*x[c[k]], k in [0, n) */
static inline __attribute__((always_inline)) double spmv__crs_row_scalar(int64_t n, const double *restrict v,
                                                                         const int32_t *restrict c,
                                                                         const double *restrict x)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int64_t k = 0;
    for (; k + SPMV_CRS_SCALAR_ACCS <= n; k += SPMV_CRS_SCALAR_ACCS) {
        s0 = __builtin_fma(v[k], x[c[k]], s0);
        s1 = __builtin_fma(v[k + 1], x[c[k + 1]], s1);
        s2 = __builtin_fma(v[k + 2], x[c[k + 2]], s2);
        s3 = __builtin_fma(v[k + 3], x[c[k + 3]], s3);
    }
    switch (n - k) { /* remainder: 0..3 entries, each into its own sum */
    case 3: s2 = __builtin_fma(v[k + 2], x[c[k + 2]], s2); /* fall through */
    case 2: s1 = __builtin_fma(v[k + 1], x[c[k + 1]], s1); /* fall through */
    case 1: s0 = __builtin_fma(v[k], x[c[k]], s0); /* fall through */
    default: break;
    }
    return (s0 + s1) + (s2 + s3);
}

/* sum_k v[k]*x[c[k]], k in [b, e) (absolute positions: the loop indexes the matrix's arrays, not pointers to the
 * row: on the Zen 5 VM, rows of 2 entries, 1 thread, the pointer form of this loop ran 3.35-3.39 Gflop/s and this
 * one 3.75-3.85 in the same process; BENCHMARKS.md, 2026-12-04 15:53, "CRS short rows"), in the short-row kernels:
 * SPMV_CRS_SHORT_ACCS = 2 partial sums, except rows of SPMV_CRS_SHORT_LONG or more entries, which take the 4 sums
 * of spmv__crs_row_scalar (a dense row among short ones, as in arrow, would otherwise run at half the FMA rate: 4 cy
 * latency over 2 chains). The branch is predictable: such rows are rare where this kernel is chosen. */
#define SPMV_CRS_SHORT_LONG 16
static inline __attribute__((always_inline)) double spmv__crs_row_scalar2(int64_t b, int64_t e,
                                                                          const double *restrict v,
                                                                          const int32_t *restrict c,
                                                                          const double *restrict x)
{
    if (__builtin_expect(e - b >= SPMV_CRS_SHORT_LONG, 0)) return spmv__crs_row_scalar(e - b, v + b, c + b, x);
    double s0 = 0.0, s1 = 0.0;
    int64_t k = b;
    /* the odd entry first, then pairs up to the end: the loop's only exit is k == e, with no remainder branch after
     * it. Measured on the Zen 5 VM against the remainder-last form (1 thread, Gflop/s, medians of 3 in-process rounds,
     * BENCHMARKS.md, 2026-12-04 15:53, "CRS short rows"): rows of 2 entries (arrow without its dense row) 2.67 ->
     * 3.92, pow 3.24 -> 3.74, bcspwr10 4.36 -> 5.14. */
    if ((e - b) & 1) {
        s0 = v[k] * x[c[k]];
        k++;
    }
    /* a loop, not the 7 pairs unrolled that e - b < 16 would let the compiler write out: within +-8 % either way on
     * pow, rajat01, bayer10 and bcspwr10 (loop faster on pow, slower on the others), and the declared shape */
#if defined(__clang__)
#pragma clang loop unroll(disable)
#elif defined(__GNUC__)
#pragma GCC unroll 1
#endif
    for (; k < e; k += SPMV_CRS_SHORT_ACCS) {
        s0 = __builtin_fma(v[k], x[c[k]], s0);
        s1 = __builtin_fma(v[k + 1], x[c[k + 1]], s1);
    }
    return s0 + s1;
}

/* The same sum in the prefetching short-row kernels (crs-FAM-short-pf, matrices far larger than the caches): the
 * remainder-last form, pairs from the row's start indexed from pointers to the row, the odd entry after the loop.
 * Streaming from memory it is the faster one: lap2d 2000^2 on the Zen 5 VM, 1 thread, both forms with the same
 * prefetches alternating in one process, 12 rounds of 0.3 s: spmv__crs_row_scalar2's loop / this one 0.88-0.98
 * (median 0.93); in cache the other way round. Rows of SPMV_CRS_SHORT_LONG or more entries take the 4 sums here too. */
static inline __attribute__((always_inline)) double spmv__crs_row_scalar2_pf(int64_t n, const double *restrict v,
                                                                             const int32_t *restrict c,
                                                                             const double *restrict x)
{
    if (__builtin_expect(n >= SPMV_CRS_SHORT_LONG, 0)) return spmv__crs_row_scalar(n, v, c, x);
    double s0 = 0.0, s1 = 0.0;
    int64_t k = 0;
#if defined(__clang__)
#pragma clang loop unroll(disable)
#elif defined(__GNUC__)
#pragma GCC unroll 1
#endif
    for (; k + SPMV_CRS_SHORT_ACCS <= n; k += SPMV_CRS_SHORT_ACCS) {
        s0 = __builtin_fma(v[k], x[c[k]], s0);
        s1 = __builtin_fma(v[k + 1], x[c[k + 1]], s1);
    }
    if (k < n) s0 = __builtin_fma(v[k], x[c[k]], s0);
    return s0 + s1;
}

enum { SPMV_CRS_Y_SET = 0, SPMV_CRS_Y_SCALE = 1, SPMV_CRS_Y_AXPBY = 2 };

/* Software prefetch of the prefetching kernels (the "-pf" ones, for matrices far larger than the caches): every row
 * prefetches its value lines and index lines SPMV_CRS_PF entries ahead into L2 (prefetcht1). One core of the Intel
 * Xeon VM streams about 16 GB/s with the hardware prefetchers alone and 19 GB/s with this (a read-only sum over
 * 512 MiB, 1 KiB ahead); CRS on HPCG 128^3 at 1 thread 2.00 -> 2.45 Gflop/s at 256 entries ahead (128: 2.38, 512:
 * 2.26), lap2d 2000^2 1.93 -> 2.11. In cache it costs 6-14 % (bcsstk13, G51, Groebner): hence the size test. */
#ifndef SPMV_CRS_PF /* -D for measurements */
#define SPMV_CRS_PF 256
#endif
#ifndef SPMV_CRS_PF_LOCALITY
#define SPMV_CRS_PF_LOCALITY 2 /* __builtin_prefetch's locality: 2 = prefetcht1 */
#endif

/* y[r] = beta*y[r] + alpha*sum_j A[r,j]*x[j], rows [r0,r1); mode, accs and pf are compile-time constants after
 * inlining */
static inline __attribute__((always_inline)) void spmv__crs_rows_scalar(const spmv_crs *A, int32_t r0, int32_t r1,
                                                                        double alpha, const double *restrict x,
                                                                        double beta, double *restrict y,
                                                                        const int mode, const int accs, const int pf)
{
    const int64_t *rp = A->rowptr;
    const int32_t *col = A->col;
    const double *val = A->val;
    int64_t b = rp[r0];
    for (int32_t r = r0; r < r1; r++) {
        const int64_t e = rp[r + 1];
        if (pf) { /* the address may lie past the arrays (a prefetch never faults): spmv__addr */
            for (int64_t q = b; q < e; q += 8)
                __builtin_prefetch(spmv__addr(val + q, SPMV_CRS_PF * 8), 0, SPMV_CRS_PF_LOCALITY);
            for (int64_t q = b; q < e; q += 16)
                __builtin_prefetch(spmv__addr(col + q, SPMV_CRS_PF * 4), 0, SPMV_CRS_PF_LOCALITY);
        }
        const double s = accs != SPMV_CRS_SHORT_ACCS ? spmv__crs_row_scalar(e - b, val + b, col + b, x)
                         : pf ? spmv__crs_row_scalar2_pf(e - b, val + b, col + b, x)
                              : spmv__crs_row_scalar2(b, e, val, col, x);
        b = e;
        if (mode == SPMV_CRS_Y_SET)
            y[r] = s;
        else if (mode == SPMV_CRS_Y_SCALE)
            y[r] = alpha * s;
        else
            y[r] = beta * y[r] + alpha * s;
    }
}

/* The kernel function: the alpha/beta case dispatched once per call; accs (SPMV_CRS_SCALAR_ACCS or
 * SPMV_CRS_SHORT_ACCS) and pf (0 or 1) compile-time constants. The driver never calls a kernel on a matrix without
 * entries (col/val may be NULL there). */
static inline __attribute__((always_inline)) void spmv__crs_scalar(const spmv_crs *A, int32_t r0, int32_t r1,
                                                                   double alpha, const double *x, double beta,
                                                                   double *y, const int accs, const int pf)
{
    if (r0 >= r1) return;
    if (beta != 0.0)
        spmv__crs_rows_scalar(A, r0, r1, alpha, x, beta, y, SPMV_CRS_Y_AXPBY, accs, pf);
    else if (alpha != 1.0)
        spmv__crs_rows_scalar(A, r0, r1, alpha, x, beta, y, SPMV_CRS_Y_SCALE, accs, pf);
    else
        spmv__crs_rows_scalar(A, r0, r1, alpha, x, beta, y, SPMV_CRS_Y_SET, accs, pf); /* fast path y = A x */
}

/* accepts_crs of the short-row kernels: mean N_nzr below SPMV_CRS_SHORT_NZR (A NULL: rows of unknown length, e.g.
 * the CRS part of a hybrid SELL, which holds the long rows: no) */
static inline int spmv__crs_short_rows(const spmv_crs *A)
{
    return A && A->rows > 0 && A->nnz < (int64_t)SPMV_CRS_SHORT_NZR * A->rows;
}

/* accepts_crs of the prefetching kernels: values and indices of SPMV_PREFETCH_BYTES or more (spmv__prefetch_wanted,
 * which SPMV_PREFETCH overrides) */
static inline int spmv__crs_big(const spmv_crs *A) { return A && spmv__prefetch_wanted(A->nnz * 12); }
static inline int spmv__crs_short_big(const spmv_crs *A) { return spmv__crs_short_rows(A) && spmv__crs_big(A); }

/* Traffic and shape of the scalar CRS kernels: 12 bytes per entry (8-byte value + 4-byte index), 24 per row (8-byte
 * row offset, y store 8, y write-allocate 8; the paper's N_nzr*(12 + 8 alpha) + 20 assumes 4-byte offsets). */
#define SPMV_CRS_SCALAR_TRAFFIC {.bytes_per_entry = 12, .bytes_per_row = 24, .bytes_per_chunk = 0, .flops_per_entry = 2}
/* The length branches (spmv_len_branch): the 4-sum row's loop (len / 4 trips) and its remainder switch (len % 4);
 * the short row's pair loop (len / 2) and its odd entry (len % 2; the test for 16 or more entries is left out: such
 * rows are rare where the short kernels run); the -pf kernels' prefetch loops over the row's value lines
 * (ceil(len / 8)) and index lines (ceil(len / 16)) as well. */
#define SPMV_CRS_SCALAR_BRANCHES {4, 0, 0}, {1, 4, 0}
#define SPMV_CRS_SHORT_BRANCHES {2, 0, 0}, {1, 2, 0}
#define SPMV_CRS_PF_BRANCHES {8, 0, 7}, {16, 0, 15} /* q += 8 (16) up to the row's end: ceil(len / 8) trips */
#define SPMV_CRS_SHAPE_(ACCS, ...)                                                                                 \
    {.format = SPMV_FORMAT_CRS, .C = 0, .width = 1, .mve = ACCS, .x = SPMV_X_SCALAR, .runs = 0,                 \
     .len_branch = {__VA_ARGS__}}
#define SPMV_CRS_SCALAR_SHAPE SPMV_CRS_SHAPE_(SPMV_CRS_SCALAR_ACCS, SPMV_CRS_SCALAR_BRANCHES)
#define SPMV_CRS_SHORT_SHAPE SPMV_CRS_SHAPE_(SPMV_CRS_SHORT_ACCS, SPMV_CRS_SHORT_BRANCHES)
#define SPMV_CRS_SCALAR_PF_SHAPE SPMV_CRS_SHAPE_(SPMV_CRS_SCALAR_ACCS, SPMV_CRS_SCALAR_BRANCHES, SPMV_CRS_PF_BRANCHES)
#define SPMV_CRS_SHORT_PF_SHAPE SPMV_CRS_SHAPE_(SPMV_CRS_SHORT_ACCS, SPMV_CRS_SHORT_BRANCHES, SPMV_CRS_PF_BRANCHES)

/* The CRS kernels of a family FAM (avx512, avx2), descriptors SYM4 (crs-FAM: 4 sums), SYM2 (crs-FAM-short: 2 sums,
 * short rows), SYM4P and SYM2P (the same with software prefetch, "-pf", for matrices of SPMV_PREFETCH_BYTES or more),
 * with their partial-row entry points (the 4-sum -pf kernel shares crs-FAM's; the short-row -pf kernel sums in the
 * remainder-last order of spmv__crs_row_scalar2_pf and has its own). */
#define SPMV_CRS_SCALAR_FN(NAME, ACCS, PF)                                                                          \
    static void NAME(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta,       \
                     double *y)                                                                                    \
    {                                                                                                              \
        spmv__crs_scalar(A, r0, r1, alpha, x, beta, y, ACCS, PF);                                                  \
    }
#define SPMV_CRS_SCALAR_KERNELS(FAM, ARCH, SYM4, SYM2, SYM4P, SYM2P)                                               \
    SPMV_CRS_SCALAR_FN(crs_##FAM, SPMV_CRS_SCALAR_ACCS, 0)                                                         \
    SPMV_CRS_SCALAR_FN(crs_##FAM##_short, SPMV_CRS_SHORT_ACCS, 0)                                                  \
    SPMV_CRS_SCALAR_FN(crs_##FAM##_pf, SPMV_CRS_SCALAR_ACCS, 1)                                                    \
    SPMV_CRS_SCALAR_FN(crs_##FAM##_short_pf, SPMV_CRS_SHORT_ACCS, 1)                                               \
    static double crs_##FAM##_dot(const double *v, const int32_t *c, int64_t n, const double *x)                 \
    {                                                                                                              \
        return spmv__crs_row_scalar(n, v, c, x);                                                                   \
    }                                                                                                              \
    static double crs_##FAM##_short_dot(const double *v, const int32_t *c, int64_t n, const double *x)           \
    {                                                                                                              \
        return spmv__crs_row_scalar2(0, n, v, c, x);                                                               \
    }                                                                                                              \
    static double crs_##FAM##_short_pf_dot(const double *v, const int32_t *c, int64_t n, const double *x)        \
    {                                                                                                              \
        return spmv__crs_row_scalar2_pf(n, v, c, x);                                                               \
    }                                                                                                              \
    const spmv_kernel SYM4 = {.name = "crs-" #FAM, .arch = ARCH, .crs = crs_##FAM, .dot = crs_##FAM##_dot,       \
                              .traffic = SPMV_CRS_SCALAR_TRAFFIC, .shape = SPMV_CRS_SCALAR_SHAPE};                \
    const spmv_kernel SYM2 = {.name = "crs-" #FAM "-short", .arch = ARCH, .crs = crs_##FAM##_short,              \
                              .dot = crs_##FAM##_short_dot, .traffic = SPMV_CRS_SCALAR_TRAFFIC,                   \
                              .shape = SPMV_CRS_SHORT_SHAPE, .accepts_crs = spmv__crs_short_rows};                \
    const spmv_kernel SYM4P = {.name = "crs-" #FAM "-pf", .arch = ARCH, .crs = crs_##FAM##_pf,                   \
                               .dot = crs_##FAM##_dot, .traffic = SPMV_CRS_SCALAR_TRAFFIC,                        \
                               .shape = SPMV_CRS_SCALAR_PF_SHAPE, .accepts_crs = spmv__crs_big};                     \
    const spmv_kernel SYM2P = {.name = "crs-" #FAM "-short-pf", .arch = ARCH, .crs = crs_##FAM##_short_pf,       \
                               .dot = crs_##FAM##_short_pf_dot, .traffic = SPMV_CRS_SCALAR_TRAFFIC,               \
                               .shape = SPMV_CRS_SHORT_PF_SHAPE, .accepts_crs = spmv__crs_short_big};

#endif
