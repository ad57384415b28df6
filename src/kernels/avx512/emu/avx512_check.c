/* TEST ONLY: checks the AVX-512 kernels' logic on any CPU. The kernel sources are compiled a second time with
 * -DSPMV_AVX512_EMU (emu/avx512_emu.h: plain C for each intrinsic, strict about alignment and masked lanes) and
 * compared with the reference kernels on the same matrices:
 *   SELL: C = 8, 16, 32, 64; many row counts (not multiples of C), row-length shapes (empty rows, short, long,
 *   lengths odd w.r.t. the unroll), sigma = 1 / window / rows, a random permutation, chunk lengths rounded to
 *   unroll 1, 2, 3; permuted and original order; alpha/beta = (1,0) (2.5,0) (-0.75,1.5) (1,1) (0,2); aligned and
 *   unaligned y (for the non-temporal variants); normal and non-temporal variants; whole range, and for (1,0) and
 *   (-0.75,1.5) a 3-way split and one inner range (rows outside it must stay untouched); with beta = 0, y starts
 *   as NaN (must not be read).
 *   CRS: row lengths 0..200 (every remainder class of 8 and 32), the same alpha/beta and ranges, unaligned rows.
 *   accepts(): C, alignment, SPMV_SELL_NT and the vector order; the family list.
 *   With SPMV_EMU_WITH_LIBRARY (the CTest build), also on matrices built by the library itself
 *   (spmv_sell_from_crs on HPCG, a Laplacian and small shared Matrix Market files).
 * Tolerance: |y - y_ref| <= 1e-12 * (|alpha| |A||x| + |beta y0|)_i, the issues' bound.
 * Run: ctest -R avx512_emu (the sanitizer build of the test suite runs it under ASan/UBSan). */
#define _POSIX_C_SOURCE 200809L /* posix_memalign, setenv */
#include "avx512_kernels.h"
#include "kernel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

long spmv_emu_streams, spmv_emu_scatters, spmv_emu_gathers;

static long fails, checks;
#define CHECK(cond, ...)                                                                                           \
    do {                                                                                                           \
        checks++;                                                                                                  \
        if (!(cond)) {                                                                                             \
            if (fails++ < 20) {                                                                                    \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                               \
                fprintf(stderr, __VA_ARGS__);                                                                      \
                fprintf(stderr, "\n");                                                                             \
            }                                                                                                      \
        }                                                                                                          \
    } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static int32_t rnd_below(int32_t n) { return n > 0 ? (int32_t)(rnd() % (uint64_t)n) : 0; }
static double rnd_unit(void) { return (double)(rnd() >> 11) * 0x1.0p-53 * 2.0 - 1.0; }

/* exact-size allocation (AddressSanitizer sees the true end), aligned to align */
static void *xalloc(size_t bytes, size_t align)
{
    void *p = NULL;
    if (posix_memalign(&p, align, bytes ? bytes : 1)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* ---------------------------------------------------------------- matrices */

enum { SHAPE_RANDOM, SHAPE_CONST, SHAPE_SWEEP, SHAPE_SHORT_LONG, SHAPE_EMPTY, NSHAPES };

static int32_t row_length(int shape, int32_t i, int32_t cols)
{
    int32_t n;
    switch (shape) {
    case SHAPE_RANDOM: n = rnd_below(40); break;
    case SHAPE_CONST: n = 27; break;
    case SHAPE_SWEEP: n = i % 71; break;
    case SHAPE_SHORT_LONG: n = rnd_below(50) == 0 ? 60 + rnd_below(150) : rnd_below(8); break;
    default: n = rnd_below(4) == 0 ? rnd_below(5) : 0; break; /* mostly empty */
    }
    return cols == 0 ? 0 : n;
}

static spmv_crs *make_crs(int32_t rows, int32_t cols, int shape)
{
    spmv_crs *A = calloc(1, sizeof *A);
    A->rows = rows;
    A->cols = cols;
    A->rowptr = xalloc(sizeof(int64_t) * (size_t)(rows + 1), 64);
    A->rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++) A->rowptr[i + 1] = A->rowptr[i] + row_length(shape, i, cols);
    A->nnz = A->rowptr[rows];
    A->col = xalloc(sizeof(int32_t) * (size_t)A->nnz, 64);
    A->val = xalloc(sizeof(double) * (size_t)A->nnz, 64);
    for (int64_t k = 0; k < A->nnz; k++) {
        A->col[k] = rnd_below(cols);
        A->val[k] = rnd_unit();
    }
    return A;
}

static void free_crs(spmv_crs *A)
{
    free(A->rowptr);
    free(A->col);
    free(A->val);
    free(A);
}

typedef struct key {
    int32_t len, pos;
} key;
static int key_cmp(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* SELL-C-sigma from A as spmv_sell documents it; sigma = -1: a random permutation instead of the sigma-sort. */
static spmv_sell *make_sell(const spmv_crs *A, int32_t C, int32_t sigma, int32_t unroll, int permuted)
{
    const int32_t rows = A->rows;
    spmv_sell *S = calloc(1, sizeof *S);
    S->rows = rows;
    S->cols = A->cols;
    S->C = C;
    S->unroll = unroll;
    S->permuted = permuted;
    S->nnz = A->nnz;
    S->nchunks = (rows + C - 1) / C;
    S->perm = xalloc(sizeof(int32_t) * (size_t)rows, 64);
    S->iperm = xalloc(sizeof(int32_t) * (size_t)rows, 64);
    S->rowlen = xalloc(sizeof(int32_t) * (size_t)rows, 64);
    for (int32_t i = 0; i < rows; i++) S->perm[i] = i;
    if (sigma < 0) {
        for (int32_t i = rows - 1; i > 0; i--) {
            int32_t j = rnd_below(i + 1), t = S->perm[i];
            S->perm[i] = S->perm[j];
            S->perm[j] = t;
        }
        S->sigma = 1;
    } else {
        S->sigma = sigma < rows ? sigma : rows;
        key *keys = malloc(sizeof(key) * ((size_t)rows + 1));
        for (int32_t w = 0; w < rows; w += sigma) {
            int32_t n = rows - w < sigma ? rows - w : sigma;
            for (int32_t i = 0; i < n; i++)
                keys[i] = (key){(int32_t)(A->rowptr[w + i + 1] - A->rowptr[w + i]), w + i};
            qsort(keys, (size_t)n, sizeof(key), key_cmp);
            for (int32_t i = 0; i < n; i++) S->perm[w + i] = keys[i].pos;
        }
        free(keys);
    }
    for (int32_t i = 0; i < rows; i++) {
        S->iperm[S->perm[i]] = i;
        S->rowlen[i] = (int32_t)(A->rowptr[S->perm[i] + 1] - A->rowptr[S->perm[i]]);
    }
    S->chunklen = xalloc(sizeof(int32_t) * (size_t)S->nchunks, 64);
    S->chunkptr = xalloc(sizeof(int64_t) * (size_t)(S->nchunks + 1), 64);
    S->chunkptr[0] = 0;
    for (int32_t k = 0; k < S->nchunks; k++) {
        int32_t L = 0;
        for (int32_t r = 0; r < C && (int64_t)k * C + r < rows; r++)
            if (S->rowlen[k * C + r] > L) L = S->rowlen[k * C + r];
        L = (L + unroll - 1) / unroll * unroll;
        S->chunklen[k] = L;
        S->chunkptr[k + 1] = S->chunkptr[k] + (int64_t)L * C;
    }
    S->stored = S->chunkptr[S->nchunks];
    /* as the library sets them (sell.c): identity perm, software prefetch (SPMV_PREFETCH=1: always) */
    S->identity = 1;
    for (int32_t i = 0; i < rows && S->identity; i++) S->identity = S->perm[i] == i;
    S->prefetch = spmv__prefetch_wanted(S->stored * (int64_t)sizeof(double));
    S->col = xalloc(sizeof(int32_t) * (size_t)S->stored, 64);
    S->val = xalloc(sizeof(double) * (size_t)S->stored, 64);
    const int mapcols = permuted && A->rows == A->cols;
    for (int32_t k = 0; k < S->nchunks; k++) {
        int32_t best = 0, bestlen = -1; /* the chunk's longest row */
        for (int32_t r = 0; r < C; r++) {
            int64_t i = (int64_t)k * C + r;
            int32_t len = i < rows ? S->rowlen[i] : 0;
            if (len > bestlen) bestlen = len, best = r;
        }
        for (int32_t r = 0; r < C; r++) {
            int64_t i = (int64_t)k * C + r;
            int32_t len = i < rows ? S->rowlen[i] : 0;
            const int64_t b = i < rows ? A->rowptr[S->perm[i]] : 0;
            const int64_t bb = (int64_t)k * C + best < rows ? A->rowptr[S->perm[k * C + best]] : 0;
            for (int32_t j = 0; j < S->chunklen[k]; j++) {
                int64_t p = S->chunkptr[k] + (int64_t)j * C + r;
                int32_t c;
                if (j < len) {
                    c = A->col[b + j];
                    S->val[p] = A->val[b + j];
                } else {
                    c = len > 0 ? A->col[b + len - 1] : bestlen > 0 ? A->col[bb + (j < bestlen ? j : bestlen - 1)] : 0;
                    S->val[p] = 0.0;
                }
                S->col[p] = mapcols ? S->iperm[c] : c;
            }
        }
    }
    return S;
}

static void free_sell(spmv_sell *S)
{
    free(S->perm);
    free(S->iperm);
    free(S->rowlen);
    free(S->chunklen);
    free(S->chunkptr);
    free(S->col);
    free(S->val);
    free(S);
}

/* ---------------------------------------------------------------- comparison */

static const double AB[][2] = {{1.0, 0.0}, {2.5, 0.0}, {-0.75, 1.5}, {1.0, 1.0}, {0.0, 2.0}};
enum { NAB = sizeof AB / sizeof AB[0] };

/* rows covered by a range: SELL chunks [c0,c1) -> output indices; mark them */
static void mark_sell(const spmv_sell *S, int32_t c0, int32_t c1, char *mark)
{
    for (int64_t i = (int64_t)c0 * S->C; i < (int64_t)c1 * S->C && i < S->rows; i++)
        mark[S->permuted ? i : S->perm[i]] = 1;
}

/* compare y (kernel) with yr (reference) on marked rows within tolerance; unmarked rows must equal y0 bitwise */
static void compare(const double *y, const double *yr, const double *y0, const double *absax, const char *mark,
                    int32_t n, double alpha, double beta, const char *what)
{
    for (int32_t i = 0; i < n; i++) {
        if (mark[i]) {
            double tol = 1e-12 * (fabs(alpha) * absax[i] + (beta != 0.0 ? fabs(beta * y0[i]) : 0.0)) + 1e-300;
            CHECK(fabs(y[i] - yr[i]) <= tol, "%s: row %d: %.17g vs ref %.17g", what, i, y[i], yr[i]);
        } else
            CHECK(memcmp(&y[i], &y0[i], sizeof(double)) == 0, "%s: row %d outside the range was written", what, i);
    }
}

#define KS(n) &SPMV_AVX512_SYM(n)
/* The kernel for C, non-temporal stores nt, x access emul (0: gather, 1: emulated). */
static const spmv_kernel *sell_kernel_for(int32_t C, int nt, int emul)
{
    static const spmv_kernel *const k[4][2][2] = {
        {{KS(k_sell_avx512_gather_c8), KS(k_sell_avx512_emul_c8)},
         {KS(k_sell_avx512_gather_nt_c8), KS(k_sell_avx512_emul_nt_c8)}},
        {{KS(k_sell_avx512_gather_c16), KS(k_sell_avx512_emul_c16)},
         {KS(k_sell_avx512_gather_nt_c16), KS(k_sell_avx512_emul_nt_c16)}},
        {{KS(k_sell_avx512_gather_c32), KS(k_sell_avx512_emul_c32)},
         {KS(k_sell_avx512_gather_nt_c32), KS(k_sell_avx512_emul_nt_c32)}},
        {{KS(k_sell_avx512_gather_c64), KS(k_sell_avx512_emul_c64)},
         {KS(k_sell_avx512_gather_nt_c64), KS(k_sell_avx512_emul_nt_c64)}},
    };
    const int ci = C == 8 ? 0 : C == 16 ? 1 : C == 32 ? 2 : 3;
    return k[ci][nt ? 1 : 0][emul ? 1 : 0];
}

/* One SELL matrix: every kernel variant, alpha/beta, y alignment and range split. */
static void check_sell(const spmv_sell *S, const char *desc)
{
    const int32_t n = S->rows;
    double *x = xalloc(sizeof(double) * (size_t)S->cols, 64);
    for (int32_t j = 0; j < S->cols; j++) x[j] = rnd_unit();
    double *absax = xalloc(sizeof(double) * (size_t)n, 64);
    for (int32_t i = 0; i < n; i++) absax[i] = 0.0;
    for (int32_t k = 0; k < S->nchunks; k++)
        for (int32_t r = 0; r < S->C && (int64_t)k * S->C + r < n; r++) {
            int64_t i = (int64_t)k * S->C + r;
            for (int32_t j = 0; j < S->chunklen[k]; j++) {
                int64_t p = S->chunkptr[k] + (int64_t)j * S->C + r;
                absax[S->permuted ? i : S->perm[i]] += fabs(S->val[p] * x[spmv__sell_col(S, k, p)]);
            }
        }
    double *y0 = xalloc(sizeof(double) * (size_t)n, 64), *yr = xalloc(sizeof(double) * (size_t)n, 64);
    double *ya = xalloc(sizeof(double) * (size_t)n, 64);            /* 64-byte aligned y */
    double *yu_base = xalloc(sizeof(double) * (size_t)(n + 1), 64); /* y + 1: 8-byte aligned only */
    char *mark = xalloc((size_t)n, 64);
    const int32_t nc = S->nchunks;
    for (int variant = 0; variant < 4; variant++) {
        const int nt = variant / 2;
        const spmv_kernel *K = sell_kernel_for(S->C, nt, variant % 2);
        for (int ab = 0; ab < NAB; ab++) {
            const double alpha = AB[ab][0], beta = AB[ab][1];
            for (int al = 0; al < 2; al++) {
                /* y's alignment matters only to the streaming stores */
                if (al && !(nt && S->permuted)) continue;
                double *y = al ? yu_base + 1 : ya;
                for (int split = 0; split < 3; split++) {
                    if (split && ab != 0 && ab != 2) continue; /* ranges: with the fast path and the general form */
                    int32_t cut[4] = {0, nc, nc, nc}; /* ranges [cut[t], cut[t+1]) */
                    int nr = 1;
                    if (split == 1 && nc >= 3) cut[1] = nc / 3, cut[2] = 2 * nc / 3, nr = 3;
                    if (split == 2) { /* one inner range only */
                        if (nc < 3) continue;
                        cut[0] = 1, cut[1] = nc - 1;
                    }
                    for (int32_t i = 0; i < n; i++) y0[i] = beta == 0.0 && split != 2 ? NAN : rnd_unit();
                    if (split == 2 && beta == 0.0)
                        for (int32_t i = 0; i < n; i++) y0[i] = NAN; /* outside rows: NaN sentinel, bitwise */
                    memset(mark, 0, (size_t)n);
                    memcpy(yr, y0, sizeof(double) * (size_t)n);
                    memcpy(y, y0, sizeof(double) * (size_t)n);
                    long st0 = spmv_emu_streams;
                    for (int t = 0; t < nr; t++) {
                        spmv__k_sell_ref.sell(S, cut[t], cut[t + 1], alpha, x, beta, yr);
                        K->sell(S, cut[t], cut[t + 1], alpha, x, beta, y);
                        mark_sell(S, cut[t], cut[t + 1], mark);
                    }
                    char what[256];
                    snprintf(what, sizeof what, "%s %s alpha=%g beta=%g y%s split=%d", desc, K->name, alpha, beta,
                             al ? "+1" : "-aligned", split);
                    compare(y, yr, y0, absax, mark, n, alpha, beta, what);
                    /* streaming stores exactly when asked, permuted (or perm the identity), y aligned and a full chunk
                     * was written */
                    int expect_nt = nt && (S->permuted || S->identity) && !al;
                    int full_chunk = 0;
                    for (int t = 0; t < nr; t++)
                        for (int32_t k = cut[t]; k < cut[t + 1]; k++)
                            if ((int64_t)(k + 1) * S->C <= n) full_chunk = 1;
                    CHECK((spmv_emu_streams > st0) == (expect_nt && full_chunk), "%s: streaming stores %ld", what,
                          spmv_emu_streams - st0);
                }
            }
        }
    }
    free(x), free(absax), free(y0), free(yr), free(ya), free(yu_base), free(mark);
}

static void test_sell(void)
{
    static const int32_t Cs[] = {8, 16, 32, 64};
    /* row counts below, at and around multiples of every C, and with remainders 3, 4, 11 */
    static const int32_t rows_list[] = {1, 9, 63, 64, 65, 100, 203};
    for (size_t ci = 0; ci < 4; ci++)
        for (size_t ri = 0; ri < sizeof rows_list / sizeof rows_list[0]; ri++)
            for (int shape = 0; shape < NSHAPES; shape++)
                for (int rect = 0; rect < 2; rect++) {
                    const int32_t C = Cs[ci], rows = rows_list[ri], cols = rect ? rows + 13 : rows;
                    spmv_crs *A = make_crs(rows, cols, shape);
                    const int32_t sigmas[] = {1, 7, rows, -1};
                    for (int si = 0; si < 4; si++)
                        for (int32_t unroll = 1; unroll <= 3; unroll++)
                            for (int permuted = 0; permuted < 2; permuted++) {
                                /* keep the run short: all unrolls only for the first two sigmas */
                                if (si >= 2 && unroll == 2) continue;
                                spmv_sell *S = make_sell(A, C, sigmas[si], unroll, permuted);
                                char desc[160];
                                snprintf(desc, sizeof desc, "SELL-%d rows=%d cols=%d shape=%d sigma=%d unroll=%d %s", C,
                                         rows, cols, shape, sigmas[si], unroll, permuted ? "permuted" : "original");
                                check_sell(S, desc);
                                free_sell(S);
                            }
                    free_crs(A);
                }
}

/* ---------------------------------------------------------------- CRS */

static void check_crs(const spmv_crs *A, const char *desc)
{
    /* the kernels' contract (crs_scalar.h): the driver never calls them on a matrix without entries, whose col and
     * val may be NULL (the library's empty.mtx); forming val + rowptr[r] there is undefined (UBSan) */
    if (A->nnz == 0 && (!A->col || !A->val)) return;
    const int32_t n = A->rows;
    double *x = xalloc(sizeof(double) * (size_t)A->cols, 64);
    for (int32_t j = 0; j < A->cols; j++) x[j] = rnd_unit();
    double *absax = xalloc(sizeof(double) * (size_t)n, 64);
    for (int32_t i = 0; i < n; i++) {
        absax[i] = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) absax[i] += fabs(A->val[k] * x[A->col[k]]);
    }
    double *y0 = xalloc(sizeof(double) * (size_t)n, 64), *yr = xalloc(sizeof(double) * (size_t)n, 64);
    double *y = xalloc(sizeof(double) * (size_t)n, 64);
    char *mark = xalloc((size_t)n, 64);
    for (int ab = 0; ab < NAB; ab++) {
        const double alpha = AB[ab][0], beta = AB[ab][1];
        for (int split = 0; split < 3; split++) {
            int32_t cut[4] = {0, n, n, n};
            int nr = 1;
            if (split == 1 && n >= 3) cut[1] = n / 3, cut[2] = 2 * n / 3, nr = 3;
            if (split == 2) {
                if (n < 3) continue;
                cut[0] = 1, cut[1] = n - 1;
            }
            for (int32_t i = 0; i < n; i++) y0[i] = beta == 0.0 ? NAN : rnd_unit();
            memset(mark, 0, (size_t)n);
            memcpy(yr, y0, sizeof(double) * (size_t)n);
            memcpy(y, y0, sizeof(double) * (size_t)n);
            for (int t = 0; t < nr; t++) {
                spmv__k_crs_ref.crs(A, cut[t], cut[t + 1], alpha, x, beta, yr);
                for (int32_t i = cut[t]; i < cut[t + 1]; i++) mark[i] = 1;
            }
            /* every CRS kernel of the family (4 or 2 partial sums, with or without prefetch) on the same case */
            for (const spmv_kernel *const *k = SPMV_AVX512_SYM(family_avx512).kernels; *k; k++) {
                if (!(*k)->crs) continue;
                memcpy(y, y0, sizeof(double) * (size_t)n);
                for (int t = 0; t < nr; t++) (*k)->crs(A, cut[t], cut[t + 1], alpha, x, beta, y);
                char what[256];
                snprintf(what, sizeof what, "%s %s alpha=%g beta=%g split=%d", desc, (*k)->name, alpha, beta, split);
                compare(y, yr, y0, absax, mark, n, alpha, beta, what);
            }
        }
    }
    free(x), free(absax), free(y0), free(yr), free(y), free(mark);
}

static void test_crs(void)
{
    /* every row length 0..200 (all remainders mod 8 and mod 32, every short-row case), twice */
    {
        spmv_crs *A = calloc(1, sizeof *A);
        A->rows = 402;
        A->cols = 300;
        A->rowptr = xalloc(sizeof(int64_t) * 403, 64);
        A->rowptr[0] = 0;
        for (int32_t i = 0; i < A->rows; i++) A->rowptr[i + 1] = A->rowptr[i] + (i < 201 ? i : 401 - i);
        A->nnz = A->rowptr[A->rows];
        A->col = xalloc(sizeof(int32_t) * (size_t)A->nnz, 64);
        A->val = xalloc(sizeof(double) * (size_t)A->nnz, 64);
        for (int64_t k = 0; k < A->nnz; k++) A->col[k] = rnd_below(A->cols), A->val[k] = rnd_unit();
        check_crs(A, "CRS lengths 0..200..0");
        free_crs(A);
    }
    static const int32_t rows_list[] = {1, 2, 7, 64, 333};
    for (size_t ri = 0; ri < sizeof rows_list / sizeof rows_list[0]; ri++)
        for (int shape = 0; shape < NSHAPES; shape++) {
            spmv_crs *A = make_crs(rows_list[ri], rows_list[ri] + 5, shape);
            char desc[96];
            snprintf(desc, sizeof desc, "CRS rows=%d shape=%d", rows_list[ri], shape);
            check_crs(A, desc);
            free_crs(A);
        }
    /* empty matrix, no columns */
    spmv_crs *A = make_crs(17, 0, SHAPE_RANDOM);
    check_crs(A, "CRS 17 x 0");
    free_crs(A);
}

/* ---------------------------------------------------------------- matrices built by the library */
#ifdef SPMV_EMU_WITH_LIBRARY
/* The kernels on SELL matrices from spmv_sell_from_crs (the library's real layout: alignment, chunk offsets,
 * padding columns) and on CRS from the generators and the shared Matrix Market files (when present). */
static long n_vidx; /* builds with value indices */
static void check_library_matrix(const spmv_crs *A, const char *name)
{
    static const int32_t Cs[] = {8, 16, 32, 64};
    char desc[200];
    snprintf(desc, sizeof desc, "library %s CRS", name);
    check_crs(A, desc);
    for (int ci = 0; ci < 4; ci++)
        for (int si = 0; si < 3; si++)
            for (int permuted = 0; permuted < 2; permuted++) {
                const int32_t sigmas[] = {1, 32, A->rows > 0 ? A->rows : 1};
                spmv_sell_opts o = spmv_sell_opts_default();
                o.C = Cs[ci];
                o.sigma = sigmas[si];
                o.unroll = si == 1 ? 2 : 1;
                o.permuted = permuted;
                o.nthreads = 1;
                o.vidx = (si + permuted) % 2; /* value indices where the matrix qualifies (<= 16 values) */
                spmv_sell *S = NULL;
                spmv_status st = spmv_sell_from_crs(A, &o, &S);
                CHECK(st == SPMV_OK, "%s: spmv_sell_from_crs C=%d: %s", name, o.C, spmv_last_error());
                if (st != SPMV_OK) continue;
                n_vidx += S->nvals > 0;
                const spmv_kernel *K = sell_kernel_for(o.C, 0, 1);
                CHECK(K->accepts(S), "%s: the library's SELL-%d arrays are refused (alignment)", name, o.C);
                snprintf(desc, sizeof desc, "library %s SELL-%d-%d unroll=%d %s vidx=%d (%d values)", name, o.C,
                         o.sigma, o.unroll, permuted ? "permuted" : "original", o.vidx, S->nvals);
                check_sell(S, desc);
                spmv_sell_free(S);
            }
}

/* the shared matrices folder ($SPMV_TEST_MATRICES overrides the configured one); 1 when it was missing */
static int shared_missing;

static void test_library(void)
{
    spmv_crs *A = NULL;
    if (spmv_gen_hpcg(5, 6, 7, &A) == SPMV_OK) check_library_matrix(A, "hpcg 5x6x7");
    spmv_crs_free(A);
    A = NULL;
    if (spmv_gen_laplace2d(13, 11, &A) == SPMV_OK) check_library_matrix(A, "laplace2d 13x11");
    spmv_crs_free(A);
    static const char *files[] = {"494_bus.mtx", "arrow.mtx", "ash219.mtx", "west0067_jumbled.mtx",
                                  "LFAT5_hypersparse.mtx", "lp_afiro.mtx", "west0479.mtx", "karate.mtx",
                                  "empty.mtx", "full.mtx"};
    const char *dir = getenv("SPMV_TEST_MATRICES") && *getenv("SPMV_TEST_MATRICES") ? getenv("SPMV_TEST_MATRICES")
                                                                                     : SPMV_SHARED_MATRICES;
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("library-built matrices: 2 generated; skipped: no shared matrices folder at %s\n", dir);
        shared_missing = 1;
        return;
    }
    int n = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        A = NULL;
        spmv_status st = spmv_crs_read_mm(path, &A);
        if (st == SPMV_ERR_UNSUPPORTED) { /* built without SuiteSparse */
            shared_missing = 1;
            printf("skipped: %s\n", spmv_last_error());
            break;
        }
        CHECK(st == SPMV_OK, "%s: %s", path, spmv_last_error()); /* the folder is there: every named file reads */
        if (st != SPMV_OK) continue;
        check_library_matrix(A, files[f]);
        spmv_crs_free(A);
        n++;
    }
    printf("library-built matrices: 2 generated, %d shared files; %ld builds with value indices\n", n, n_vidx);
    CHECK(n_vidx >= 24, "value indices in %ld builds: want the 24 of hpcg and laplace2d at least", n_vidx);
}
#endif

/* ---------------------------------------------------------------- descriptors and accepts() */

static void test_descriptors(void)
{
    int n = 0, ncrs = 0;
    const spmv_family *f = &SPMV_AVX512_SYM(family_avx512);
    CHECK(strcmp(f->name, "avx512") == 0 && f->arch == SPMV_ARCH_AVX512, "family name/arch");
    for (const spmv_kernel *const *k = f->kernels; *k; k++, n++) {
        CHECK((*k)->arch == SPMV_ARCH_AVX512, "%s: arch", (*k)->name);
        CHECK(!!(*k)->crs + !!(*k)->sell == 1, "%s: exactly one of crs/sell", (*k)->name);
        CHECK((*k)->traffic.bytes_per_entry == 12 && (*k)->traffic.flops_per_entry == 2, "%s: traffic", (*k)->name);
        if ((*k)->crs) {
            ncrs++;
            /* crs-avx512[-short][-pf]: 2 sums for short rows, software prefetch for big matrices */
            const int shrt = strstr((*k)->name, "-short") != NULL, pf = strstr((*k)->name, "-pf") != NULL;
            char want[40];
            snprintf(want, sizeof want, "crs-avx512%s%s", shrt ? "-short" : "", pf ? "-pf" : "");
            CHECK(strcmp((*k)->name, want) == 0 && (*k)->traffic.bytes_per_row == 24, "crs descriptor %s",
                  (*k)->name);
            CHECK((*k)->shape.format == SPMV_FORMAT_CRS && (*k)->shape.width == 1 &&
                      (*k)->shape.mve == (shrt ? 2 : 4) && (*k)->shape.x == SPMV_X_SCALAR &&
                      !!(*k)->accepts_crs == (shrt || pf),
                  "crs shape %s", (*k)->name);
        } else {
            char want[40];
            const int nt = (*k)->nt;
            const char *x = (*k)->shape.x == SPMV_X_EMUL ? "emul" : "gather";
            snprintf(want, sizeof want, "sell-avx512-%s%s-C%d", x, nt ? "-nt" : "", (*k)->shape.C);
            CHECK(strcmp((*k)->name, want) == 0, "name %s, expected %s", (*k)->name, want);
            CHECK((*k)->traffic.bytes_per_row == (nt ? 8 : 16) && (*k)->traffic.bytes_per_chunk == 12,
                  "%s: traffic per row/chunk", (*k)->name);
            CHECK((*k)->traffic.bytes_per_run_lane == 8.125 && (*k)->traffic.bytes_per_run == 4, "%s: run traffic",
                  (*k)->name);
            CHECK((*k)->shape.width == 8 && (*k)->shape.runs == 1 && (*k)->shape.mve == ((*k)->shape.C == 8 ? 4 : 2),
                  "%s: shape", (*k)->name);
            CHECK((*k)->accepts != NULL, "%s: accepts", (*k)->name);
        }
    }
    CHECK(n == 20 && ncrs == 4, "family list has %d kernels", n);

    /* registry semantics: first kernel in the list whose accepts() says yes */
    spmv_crs *A = make_crs(100, 100, SHAPE_RANDOM);
    for (int32_t C = 4; C <= 128; C *= 2)
        for (int permuted = 0; permuted < 2; permuted++)
            for (int env = 0; env < 3; env++) {
                if (env == 0) unsetenv(SPMV_SELL_NT_ENV);
                if (env == 1) setenv(SPMV_SELL_NT_ENV, "1", 1);
                if (env == 2) setenv(SPMV_SELL_NT_ENV, "0", 1);
                spmv_sell *S = make_sell(A, C, 1, 1, permuted);
                const spmv_kernel *pick = NULL; /* the registry's rule: first fit with the requested nt and x */
                const int nt = spmv__sell_nt_requested(S);
                for (const spmv_kernel *const *k = f->kernels; *k && !pick; k++)
                    if ((*k)->sell && (*k)->accepts(S) && (*k)->nt == nt && (*k)->shape.x == SPMV_X_EMUL) pick = *k;
                char want[40];
                snprintf(want, sizeof want, "sell-avx512-emul%s-C%d", env == 1 && (permuted || S->identity) ? "-nt" : "",
                         C);
                if (C < 8 || C > 64)
                    CHECK(pick == NULL, "C=%d: no AVX-512 kernel expected, got %s", C, pick->name);
                else
                    CHECK(pick && strcmp(pick->name, want) == 0, "C=%d permuted=%d env=%d: got %s, want %s", C,
                          permuted, env, pick ? pick->name : "none", want);
                /* misaligned arrays: refused (aligned loads would fault) */
                if (C >= 8 && C <= 64) {
                    double *v = S->val;
                    S->val = (double *)((char *)v + 8);
                    CHECK(!sell_kernel_for(C, 0, 0)->accepts(S), "C=%d: misaligned val accepted", C);
                    S->val = v;
                }
                free_sell(S);
            }
    unsetenv(SPMV_SELL_NT_ENV);
    free_crs(A);
}

int main(void)
{
    test_descriptors();
    test_crs();
    test_sell();
#ifdef SPMV_EMU_WITH_LIBRARY
    test_library();
#endif
    printf("avx512 emulation check: %ld checks, %ld failures (%ld gathers, %ld scatters, %ld streaming stores "
           "emulated)\n",
           checks, fails, spmv_emu_gathers, spmv_emu_scatters, spmv_emu_streams);
    if (!fails && shared_missing) printf("the shared matrices were missing: exit 77 (skipped)\n");
    return fails ? 1 : shared_missing ? 77 : 0;
}
