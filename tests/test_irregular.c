/* Irregular matrices (issue 14): rows of 0, 1 and 10^6 entries, the empty matrix, one dense row, one dense column,
 * an arrow, power-law rows with random columns, several long rows side by side, and the irregular shared matrices
 * (arrow, rajat01, pow, karate, hangGlider_2; skipped when the folder is missing). For every thread count 1..8:
 *   - CRS on the merge-path partition (its invariants checked), every (alpha, beta), the result against the
 *     independent long-double reference, the same bits in a second call (deterministic for a given partition), and
 *     the fused multiply's y and dot products;
 *   - SELL-C-sigma in both vector orders, with the CRS part of the hybrid automatic, off, and forced low: the
 *     multiply, the fused multiply, CRS -> SELL -> CRS, new values (spmv_sell_update_values), and the partition.
 * CTest runs it once per kernel family (SPMV_ARCH=ref|avx512|avx2|sve; a family this CPU lacks exits 77).
 * Then the padding guard: SPMV_ERR_PADDING with the stored entries and the bytes in its message, its options, the
 * floor below which it never refuses, spmv_tune_stored with the CRS part, and the tuner pruning such points.
 * Criterion: |y_i - yref_i| <= 1e-12 (|alpha| (|A||x|)_i + |beta y0_i|); dots within 1e-12 of sum |x_i y_i| etc. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "internal.h"
#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREADS = 8 };

static const double AB[4][2] = {{1, 0}, {2.5, 0}, {1, 1}, {-0.5, 0.75}};
static long n_checks;

/* ------------------------------------------------------------------------------------------------ matrices */

typedef struct coo {
    int32_t rows, cols;
    int64_t n, cap;
    int32_t *r, *c;
    double *v;
} coo;

static void coo_add(coo *m, int32_t r, int32_t c, double v)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 1024;
        m->r = realloc(m->r, (size_t)m->cap * sizeof *m->r);
        m->c = realloc(m->c, (size_t)m->cap * sizeof *m->c);
        m->v = realloc(m->v, (size_t)m->cap * sizeof *m->v);
    }
    m->r[m->n] = r, m->c[m->n] = c, m->v[m->n] = v;
    m->n++;
}

static spmv_crs *coo_build(coo *m)
{
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_coo(m->rows, m->cols, m->n, m->r, m->c, m->v, 0, &A) == SPMV_OK);
    free(m->r), free(m->c), free(m->v);
    memset(m, 0, sizeof *m);
    return A;
}

/* rows x cols, row i has len(i) entries at random distinct-ish columns (duplicates are summed by the builder) */
static spmv_crs *rows_of(int32_t rows, int32_t cols, int32_t (*len)(int32_t i, uint64_t *s), uint64_t seed)
{
    coo m = {rows, cols, 0, 0, NULL, NULL, NULL};
    uint64_t s = seed;
    for (int32_t i = 0; i < rows; i++) {
        int32_t n = len(i, &s);
        if (n >= cols) { /* a full row: every column once */
            for (int32_t j = 0; j < cols; j++) coo_add(&m, i, j, tu_rand_unit(&s));
            continue;
        }
        for (int32_t k = 0; k < n; k++) coo_add(&m, i, (int32_t)(tu_rand(&s) % (uint64_t)cols), tu_rand_unit(&s));
    }
    return coo_build(&m);
}

static int32_t len_0_1(int32_t i, uint64_t *s) { (void)s; return i % 3 == 0 ? 0 : 1; }
/* Pareto row lengths (exponent 1.3 above 2), capped at 4000 */
static int32_t len_powerlaw(int32_t i, uint64_t *s)
{
    (void)i;
    double u = (double)(tu_rand(s) >> 11) / 9007199254740992.0;
    double l = 2.0 * pow(1.0 - u, -1.0 / 1.3);
    return l > 4000 ? 4000 : (int32_t)l;
}
/* 8 neighbouring rows of 20000 entries in the middle of short ones */
static int32_t len_block(int32_t i, uint64_t *s) { return i >= 100 && i < 108 ? 20000 : (int32_t)(tu_rand(s) % 4); }
/* one row of 10^6 entries (every column), the others 0..3 */
static int32_t len_million(int32_t i, uint64_t *s) { return i == 17 ? 1000000 : (int32_t)(tu_rand(s) % 4); }
/* row 100 dense, the others 0..4 entries */
static int32_t len_dense_row(int32_t i, uint64_t *s) { return i == 100 ? 1 << 30 : (int32_t)(tu_rand(s) % 5); }

/* n x n: the diagonal and one full column c (one dense column); with row: also the full row c (an arrow) */
static spmv_crs *dense_column(int32_t n, int32_t c, int row)
{
    coo m = {n, n, 0, 0, NULL, NULL, NULL};
    uint64_t s = 99;
    for (int32_t i = 0; i < n; i++) {
        coo_add(&m, i, i, 2.0 + tu_rand_unit(&s));
        if (i != c) coo_add(&m, i, c, tu_rand_unit(&s));
        if (row && i != c) coo_add(&m, c, i, tu_rand_unit(&s));
    }
    return coo_build(&m);
}

/* ------------------------------------------------------------------------------------------------ checks */

typedef struct ref {
    int32_t rows, cols;
    double *x, *y0, *ax, *absax, *want, *tol, *y, *y2, *xp, *yp;
} ref;

static void ref_init(ref *R, const spmv_crs *A)
{
    size_t n = (size_t)(A->rows > A->cols ? A->rows : A->cols) + 1;
    R->rows = A->rows, R->cols = A->cols;
    double **arr[] = {&R->x, &R->y0, &R->ax, &R->absax, &R->want, &R->tol, &R->y, &R->y2, &R->xp, &R->yp};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) *arr[k] = calloc(n, sizeof(double));
    uint64_t s = 0x1234 + (uint64_t)A->nnz;
    for (int32_t j = 0; j < A->cols; j++) R->x[j] = tu_rand_unit(&s);
    for (int32_t i = 0; i < A->rows; i++) R->y0[i] = tu_rand_unit(&s);
    tu_ref_mv(A, R->x, R->ax, R->absax);
}

static void ref_free(ref *R)
{
    free(R->x), free(R->y0), free(R->ax), free(R->absax), free(R->want), free(R->tol), free(R->y), free(R->y2);
    free(R->xp), free(R->yp);
}

static void expect(ref *R, double alpha, double beta)
{
    for (int32_t i = 0; i < R->rows; i++) {
        R->want[i] = alpha * R->ax[i] + (beta == 0.0 ? 0.0 : beta * R->y0[i]);
        R->tol[i] = fabs(alpha) * R->absax[i] + (beta == 0.0 ? 0.0 : fabs(beta * R->y0[i]));
    }
}

static void fill_y(double *y, const double *y0, int32_t n, double beta)
{
    for (int32_t i = 0; i < n; i++) y[i] = beta == 0.0 ? NAN : y0[i]; /* beta = 0: y must not be read */
}

static int check_y(ref *R, const double *y, const char *what)
{
    n_checks++;
    int64_t bad = tu_count_mismatch(y, R->want, R->tol, R->rows, TU_TOL, what);
    CU_ASSERT(bad == 0);
    return bad != 0;
}

/* The fused multiply's dots against sums over y (the y it wrote, checked against the reference separately) */
static int check_dots(const double *x, const double *y, int32_t n, double xy, double yy, const char *what)
{
    long double a = 0, b = 0, aa = 0;
    for (int32_t i = 0; i < n; i++) {
        a += (long double)x[i] * y[i];
        aa += fabsl((long double)x[i] * y[i]);
        b += (long double)y[i] * y[i];
    }
    int ok = fabsl(xy - a) <= 1e-12L * (aa + 1e-300L) && fabsl(yy - b) <= 1e-12L * (b + 1e-300L);
    CU_ASSERT(ok);
    if (!ok) printf("\n  %s: dots %.17g %.17g, want %.17Lg %.17Lg", what, xy, yy, a, b);
    return !ok;
}

/* Merge-path invariants of a partition (spmv_crs.part/split) over rowptr; returns 0 when they hold */
static int check_partition(const int64_t *rowptr, int32_t rows, int32_t nparts, const int32_t *part,
                           const int64_t *split, const char *what)
{
    const int64_t nnz = rowptr[rows];
    int bad = part[0] != 0 || split[0] != 0 || part[nparts] != rows || split[nparts] != nnz;
    const int64_t snap = ((int64_t)rows + nnz) / ((int64_t)nparts * 64);
    for (int32_t t = 0; t < nparts && !bad; t++) {
        bad |= part[t] > part[t + 1] || split[t] > split[t + 1];
        if (part[t] < rows) {
            bad |= rowptr[part[t]] > split[t] || split[t] > rowptr[part[t] + 1];
            /* a cut inside a row only in a row longer than the snap length */
            if (split[t] > rowptr[part[t]] && split[t] < rowptr[part[t] + 1])
                bad |= rowptr[part[t] + 1] - rowptr[part[t]] <= snap;
        }
    }
    /* balance: no part holds more than its share of rows + entries plus one short row */
    const double share = (double)(rows + nnz) / nparts;
    for (int32_t t = 0; t < nparts && !bad; t++) {
        double items = (double)(part[t + 1] - part[t]) + (double)(split[t + 1] - split[t]);
        bad |= items > share + (double)snap + 4;
    }
    CU_ASSERT(bad == 0);
    if (bad) printf("\n  %s: merge-path partition of %d parts broken", what, nparts);
    return bad;
}

/* CRS at threads 1..8 */
static int run_crs(spmv_crs *A, ref *R, const char *what, int nab)
{
    int bad = 0;
    for (int nt = 1; nt <= MAX_THREADS; nt++) {
        CU_ASSERT_FATAL(spmv_crs_set_threads(A, nt) == SPMV_OK);
        CU_ASSERT(A->nparts == nt);
        bad += check_partition(A->rowptr, A->rows, A->nparts, A->part, A->split, what);
        for (int k = 0; k < nab; k++) {
            const int ab = nab == 4 ? k : (nt + k) % 4;
            const double alpha = AB[ab][0], beta = AB[ab][1];
            expect(R, alpha, beta);
            fill_y(R->y, R->y0, R->rows, beta);
            CU_ASSERT(spmv_crs_mv(A, alpha, R->x, beta, R->y) == SPMV_OK);
            fill_y(R->y2, R->y0, R->rows, beta);
            CU_ASSERT(spmv_crs_mv(A, alpha, R->x, beta, R->y2) == SPMV_OK);
            int same = memcmp(R->y, R->y2, (size_t)R->rows * sizeof(double)) == 0;
            CU_ASSERT(same); /* deterministic for a given partition */
            if (check_y(R, R->y, what) || !same) {
                printf(" [%s: crs threads=%d alpha=%g beta=%g%s]", what, nt, alpha, beta, same ? "" : " not deterministic");
                bad++;
            }
        }
        if (A->rows == A->cols) { /* the fused multiply */
            double xy = NAN, yy = NAN;
            expect(R, 2.5, 0.0);
            CU_ASSERT(spmv_crs_mv_dot(A, 2.5, R->x, 0.0, R->y, &xy, &yy) == SPMV_OK);
            if (check_y(R, R->y, what) || check_dots(R->x, R->y, A->rows, xy, yy, what)) {
                printf(" [%s: crs mv_dot threads=%d]", what, nt);
                bad++;
            }
        }
    }
    return bad;
}

/* One SELL configuration at threads 1..8 */
static int run_sell(spmv_crs *A, ref *R, int32_t C, int32_t sigma, int32_t long_rows, int permuted, int nab,
                    const char *what)
{
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = C, o.sigma = sigma, o.long_rows = long_rows, o.permuted = permuted;
    o.vidx = 1; /* value indices where the matrix has at most 16 distinct values (the traffic check below) */
    o.max_stored_factor = 0; /* every layout, the guard is tested below */
    spmv_sell *S = NULL;
    spmv_status st = spmv_sell_from_crs(A, &o, &S);
    CU_ASSERT(st == SPMV_OK);
    if (st != SPMV_OK) {
        printf("\n  %s: spmv_sell_from_crs(C=%d sigma=%d long_rows=%d): %s", what, C, sigma, long_rows,
               spmv_last_error());
        return 1;
    }
    char tag[160];
    snprintf(tag, sizeof tag, "%s SELL-%d-%d long_rows=%d (%d rows in the CRS part, > %d) %s", what, C, sigma,
             long_rows, S->nlong, S->long_min, permuted ? "permuted" : "original");
    int bad = 0;
    /* structure: the chunks hold a multiple of C rows when there is a CRS part; stored = chunks + CRS part */
    const int32_t nbulk = S->rows - S->nlong;
    if (S->nlong > 0) {
        CU_ASSERT(nbulk % C == 0 && S->nchunks == nbulk / C);
        CU_ASSERT(S->stored == S->chunkptr[S->nchunks] + S->longptr[S->nlong]);
        for (int32_t j = 0; j < S->nlong; j++) CU_ASSERT(S->longptr[j + 1] - S->longptr[j] == S->rowlen[nbulk + j]);
        if (long_rows > 0) /* every row above the threshold is in the CRS part */
            for (int32_t i = 0; i < nbulk; i++) CU_ASSERT(S->rowlen[i] <= long_rows);
        /* the rows that joined it to fill the chunks are the longest of the rest */
        int32_t minlong = INT32_MAX, maxbulk = 0;
        for (int32_t i = 0; i < nbulk; i++) maxbulk = S->rowlen[i] > maxbulk ? S->rowlen[i] : maxbulk;
        for (int32_t i = nbulk; i < S->rows; i++) minlong = S->rowlen[i] < minlong ? S->rowlen[i] : minlong;
        CU_ASSERT(minlong >= maxbulk);
    } else {
        CU_ASSERT(S->stored == S->chunkptr[S->nchunks]);
    }
    /* the traffic declaration: the chunks at the SELL kernel's, the CRS part at its CRS kernel's, averaged so that
     * spmv_traffic_bytes gives their sum (x not counted: alpha 0) */
    {
        spmv_traffic t;
        CU_ASSERT(spmv_sell_traffic(S, &t) == SPMV_OK);
        const spmv_traffic ks = S->kernel->traffic;
        const double lnnz = S->nlong ? (double)S->longptr[S->nlong] : 0, cst = (double)S->stored - lnnz;
        const double perm4 = S->permuted || S->identity ? 0 : 4, lanes = (double)S->nruns * C; /* perm read? */
        double want = (double)S->nchunks * ks.bytes_per_chunk + (double)nbulk * (ks.bytes_per_row + perm4);
        const int runs = S->kernel->shape.runs && S->nruns > 0 && ks.bytes_per_run_lane > 0;
        const double n16 = S->kernel->shape.idx16 && ks.bytes_per_entry16 > 0 ? (double)S->nidx16 : 0.0;
        want += runs ? (cst - lanes - n16) * ks.bytes_per_entry + lanes * ks.bytes_per_run_lane +
                           (double)S->nruns * ks.bytes_per_run
                     : (cst - n16) * ks.bytes_per_entry;
        want += n16 * ks.bytes_per_entry16; /* gather entries with 16-bit indices */
        if (S->kernel->shape.vidx && S->nvals > 0 && ks.bytes_per_value_vi > 0)
            want -= cst * (8.0 - ks.bytes_per_value_vi); /* value indices: 1 byte per chunk entry's value */
        if (S->nlong > 0) {
            CU_ASSERT_FATAL(S->long_kernel != NULL && S->long_kernel->dot != NULL);
            want += lnnz * S->long_kernel->traffic.bytes_per_entry +
                    (double)S->nlong * (S->long_kernel->traffic.bytes_per_row + perm4);
        }
        const double got = spmv_traffic_bytes(&t, S->stored, S->nnz, S->rows, S->nchunks, 0.0);
        CU_ASSERT(fabs(got - want) <= 1e-9 * (want + 1));
        if (!(fabs(got - want) <= 1e-9 * (want + 1))) printf("\n  %s: traffic %.17g, want %.17g", tag, got, want), bad++;
    }
    /* the x accesses the model simulates (the CRS part too): with a cache holding all of x, the lines of the
     * columns A uses, as for CRS */
    if (A->nnz > 0 && A->cols > 0 && !(permuted && A->rows == A->cols)) { /* columns renumbered: other lines */
        spmv_alpha as, ac;
        const int64_t big = ((int64_t)A->cols * 8 + 64) * 2;
        CU_ASSERT(spmv_sell_alpha(S, big, 64, 0, 1, 1, &as) == SPMV_OK);
        CU_ASSERT(spmv_crs_alpha(A, big, 64, 0, 1, 1, &ac) == SPMV_OK);
        /* padding reads columns of its own chunk; a run column's empty lane may read a neighbouring column */
        CU_ASSERT(S->nruns > 0 ? as.misses >= ac.misses : as.misses == ac.misses);
        CU_ASSERT(as.accesses == S->stored);
        if (!(S->nruns > 0 ? as.misses >= ac.misses : as.misses == ac.misses))
            printf("\n  %s: alpha misses %lld (SELL, %lld run columns) vs %lld (CRS)", tag, (long long)as.misses,
                   (long long)S->nruns, (long long)ac.misses), bad++;
    }
    const int square = A->rows == A->cols;
    for (int nt = 1; nt <= MAX_THREADS; nt++) {
        CU_ASSERT_FATAL(spmv_sell_set_threads(S, nt) == SPMV_OK);
        CU_ASSERT(S->nparts == nt && S->part[0] == 0 && S->part[nt] == S->nchunks);
        if (S->nlong > 0) bad += check_partition(S->longptr, S->nlong, nt, S->longpart, S->longsplit, tag);
        for (int k = 0; k < nab; k++) {
            const int ab = nab == 4 ? k : (nt + k + C) % 4;
            const double alpha = AB[ab][0], beta = AB[ab][1];
            expect(R, alpha, beta);
            if (!permuted) {
                fill_y(R->y, R->y0, R->rows, beta);
                CU_ASSERT(spmv_sell_mv(S, alpha, R->x, beta, R->y) == SPMV_OK);
                fill_y(R->y2, R->y0, R->rows, beta);
                CU_ASSERT(spmv_sell_mv(S, alpha, R->x, beta, R->y2) == SPMV_OK);
                CU_ASSERT(memcmp(R->y, R->y2, (size_t)R->rows * sizeof(double)) == 0); /* deterministic */
            } else {
                const double *x = R->x;
                if (square) {
                    CU_ASSERT(spmv_sell_permute_vec(S, R->x, R->xp) == SPMV_OK);
                    x = R->xp;
                }
                if (beta == 0.0) fill_y(R->yp, R->y0, R->rows, 0.0);
                else CU_ASSERT(spmv_sell_permute_vec(S, R->y0, R->yp) == SPMV_OK);
                CU_ASSERT(spmv_sell_mv(S, alpha, x, beta, R->yp) == SPMV_OK);
                CU_ASSERT(spmv_sell_unpermute_vec(S, R->yp, R->y) == SPMV_OK);
            }
            if (check_y(R, R->y, tag)) {
                printf(" [%s: threads=%d alpha=%g beta=%g]", tag, nt, alpha, beta);
                bad++;
            }
        }
        if (square) { /* the fused multiply, in the order of S */
            double xy = NAN, yy = NAN;
            expect(R, 1.0, 0.0);
            const double *x = R->x;
            if (permuted) {
                spmv_sell_permute_vec(S, R->x, R->xp);
                x = R->xp;
            }
            double *y = permuted ? R->yp : R->y;
            CU_ASSERT(spmv_sell_mv_dot(S, 1.0, x, 0.0, y, &xy, &yy) == SPMV_OK);
            if (permuted) spmv_sell_unpermute_vec(S, R->yp, R->y);
            if (check_y(R, R->y, tag) || check_dots(x, y, A->rows, xy, yy, tag)) {
                printf(" [%s: mv_dot threads=%d]", tag, nt);
                bad++;
            }
        }
    }
    /* back to CRS: the same matrix */
    spmv_crs *B = NULL;
    CU_ASSERT_FATAL(spmv_sell_to_crs(S, &B) == SPMV_OK);
    int same = B->nnz == A->nnz && memcmp(B->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr) == 0 &&
               (A->nnz == 0 || (memcmp(B->col, A->col, (size_t)A->nnz * sizeof *A->col) == 0 &&
                                memcmp(B->val, A->val, (size_t)A->nnz * sizeof *A->val) == 0));
    CU_ASSERT(same);
    if (!same) printf("\n  %s: CRS -> SELL -> CRS differs", tag), bad++;
    /* new values (3 v): the multiply gives 3 A x */
    if (A->nnz > 0) {
        for (int64_t q = 0; q < B->nnz; q++) B->val[q] *= 3.0;
        CU_ASSERT(spmv_sell_update_values(S, B) == SPMV_OK);
        CU_ASSERT(spmv_sell_set_threads(S, 3) == SPMV_OK);
        expect(R, 3.0, 0.0);
        const double *x = R->x;
        if (permuted && square) {
            spmv_sell_permute_vec(S, R->x, R->xp);
            x = R->xp;
        }
        CU_ASSERT(spmv_sell_mv(S, 1.0, x, 0.0, permuted ? R->yp : R->y) == SPMV_OK);
        if (permuted) spmv_sell_unpermute_vec(S, R->yp, R->y);
        if (check_y(R, R->y, tag)) printf(" [%s: after update_values]", tag), bad++;
        /* a different pattern is refused and S is unchanged */
        if (B->cols > 1) { /* column col[0] leaves its row */
            int32_t c0 = B->col[0];
            B->col[0] = c0 == 0 ? 1 : 0;
            CU_ASSERT(spmv_sell_update_values(S, B) == SPMV_ERR_ARG);
            B->col[0] = c0;
        }
    }
    spmv_crs_free(B);
    spmv_sell_free(S);
    return bad;
}

/* Everything for one matrix; big: fewer (alpha, beta) pairs and configurations */
static void run_matrix(spmv_crs *A, const char *what, int big)
{
    ref R;
    ref_init(&R, A);
    const int nab = big ? 1 : 4;
    int bad = run_crs(A, &R, what, nab);
    const int square = A->rows == A->cols;
    const int32_t rows = A->rows > 0 ? A->rows : 1;
    const int32_t mean = A->rows > 0 ? (int32_t)(A->nnz / A->rows) + 1 : 1;
    /* C, sigma, long_rows: auto (-1), off (0), low (the mean row length: many rows in the CRS part) */
    const struct { int32_t C, sigma, long_rows; } cfg[] = {
        {8, 1, -1}, {32, rows, -1}, {4, 1, mean}, {8, 64, mean}, {1, 1, 2}, {16, 1, 0}, {128, 1, mean},
    };
    const int ncfg = big ? 3 : (int)(sizeof cfg / sizeof cfg[0]);
    for (int c = 0; c < ncfg && bad < 10; c++)
        for (int perm = 0; perm <= square; perm++) {
            if (big && perm != (c == 1)) continue; /* big: one order per configuration */
            bad += run_sell(A, &R, cfg[c].C, cfg[c].sigma, cfg[c].long_rows, perm, nab, what);
        }
    printf("\n  %s: %d x %d, nnz %lld: %s", what, A->rows, A->cols, (long long)A->nnz, bad ? "FAILED" : "ok");
    ref_free(&R);
}

/* ------------------------------------------------------------------------------------------------ cases */

static void test_built(void)
{
    spmv_crs *A = NULL;
    int64_t rp0[1] = {0};
    /* the empty matrix, 0 x 5, 5 x 0, and 7 empty rows */
    CU_ASSERT_FATAL(spmv_crs_from_arrays(0, 0, rp0, NULL, NULL, &A) == SPMV_OK);
    run_matrix(A, "0 x 0", 0);
    spmv_crs_free(A);
    CU_ASSERT_FATAL(spmv_crs_from_arrays(0, 5, rp0, NULL, NULL, &A) == SPMV_OK);
    run_matrix(A, "0 x 5", 0);
    spmv_crs_free(A);
    int64_t rp5[6] = {0, 0, 0, 0, 0, 0};
    CU_ASSERT_FATAL(spmv_crs_from_arrays(5, 0, rp5, NULL, NULL, &A) == SPMV_OK);
    run_matrix(A, "5 x 0", 0);
    spmv_crs_free(A);
    int64_t rp7[8] = {0};
    CU_ASSERT_FATAL(spmv_crs_from_arrays(7, 7, rp7, NULL, NULL, &A) == SPMV_OK);
    run_matrix(A, "7 empty rows", 0);
    spmv_crs_free(A);
    /* rows of 0 and 1 entries */
    A = rows_of(3001, 3001, len_0_1, 1);
    run_matrix(A, "rows of 0 and 1 entries", 0);
    spmv_crs_free(A);
    /* one dense row, one dense column, an arrow */
    A = rows_of(400, 400, len_dense_row, 2);
    run_matrix(A, "one dense row", 0);
    spmv_crs_free(A);
    A = dense_column(500, 7, 0);
    run_matrix(A, "one dense column", 0);
    spmv_crs_free(A);
    A = dense_column(2000, 1500, 1);
    run_matrix(A, "arrow", 0);
    spmv_crs_free(A);
    /* power-law rows, random columns; 8 long rows side by side */
    A = rows_of(6000, 6000, len_powerlaw, 3);
    run_matrix(A, "power-law rows", 0);
    spmv_crs_free(A);
    A = rows_of(300, 30000, len_block, 4);
    run_matrix(A, "8 long rows side by side", 0);
    spmv_crs_free(A);
}

/* A row of 10^6 entries among 60 short rows (x of 10^6 entries) */
static void test_million(void)
{
    spmv_crs *A = rows_of(60, 1000000, len_million, 5);
    CU_ASSERT_FATAL(A->rowptr[18] - A->rowptr[17] == 1000000);
    run_matrix(A, "a row of 10^6 entries", 1);
    spmv_crs_free(A);
}

static void test_shared(void)
{
    if (!tu_need_shared("the irregular shared matrices")) return;
    static const char *names[] = {"arrow.mtx", "rajat01.mtx", "pow.mtx", "karate.mtx", "hangGlider_2.mtx"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        spmv_crs *A = tu_read_shared(names[k]);
        if (!A) continue;
        run_matrix(A, names[k], A->nnz > 100000);
        spmv_crs_free(A);
    }
}

/* ------------------------------------------------------------------------------------------------ the guard */

/* 64 rows: row 5 has n entries, the others 1; C = 64, sigma = 1 without a CRS part stores 64 n */
static spmv_crs *padded(int32_t n)
{
    coo m = {64, n + 64, 0, 0, NULL, NULL, NULL};
    for (int32_t i = 0; i < 64; i++)
        if (i == 5)
            for (int32_t j = 0; j < n; j++) coo_add(&m, i, j, 1.0);
        else
            coo_add(&m, i, i, 1.0);
    return coo_build(&m);
}

static void test_guard(void)
{
    spmv_crs *A = padded(100000); /* nnz 100063; SELL-64-1 without a CRS part: 6.4 M stored */
    spmv_sell_opts o = spmv_sell_opts_default();
    CU_ASSERT(o.max_stored_factor == 2.0 && o.long_rows == -1);
    o.C = 64, o.sigma = 1, o.long_rows = 0;
    spmv_sell *S = (spmv_sell *)&o; /* must become NULL */
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_PADDING);
    CU_ASSERT(S == NULL);
    const char *msg = spmv_last_error();
    CU_ASSERT(strstr(msg, "6400000 entries") != NULL && strstr(msg, "100063 nonzeros") != NULL);
    CU_ASSERT(strstr(msg, "0.0768 GB") != NULL && strstr(msg, "max_stored_factor = 2") != NULL);
    printf("\n  %s", msg);
    CU_ASSERT(strcmp(spmv_strerror(SPMV_ERR_PADDING), spmv_strerror(SPMV_ERR_ARG)) != 0);
    /* a higher factor, or no limit */
    o.max_stored_factor = 64;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_OK && S && S->stored == 6400000);
    spmv_sell_free(S);
    o.max_stored_factor = 0;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_OK && S && S->stored == 6400000);
    spmv_sell_free(S);
    /* the default: the long row in the CRS part, no padding beyond one entry per lane */
    o.max_stored_factor = 2, o.long_rows = -1;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nlong == 64 && S->nchunks == 0 && S->stored == A->nnz && S->long_min == 64);
    { /* no chunks at all: the CRS part alone, split between the threads */
        ref R;
        ref_init(&R, A);
        expect(&R, 1.0, 0.0);
        for (int nt = 1; nt <= 3; nt++) {
            CU_ASSERT(spmv_sell_set_threads(S, nt) == SPMV_OK);
            fill_y(R.y, R.y0, R.rows, 0.0);
            CU_ASSERT(spmv_sell_mv(S, 1.0, R.x, 0.0, R.y) == SPMV_OK);
            check_y(&R, R.y, "CRS part only");
        }
        ref_free(&R);
    }
    spmv_sell_free(S);
    o.C = 8; /* 63 rows left: 7 chunks of 8 rows, the 7 longest of the rest join the CRS part */
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nlong == 8 && S->nchunks == 7 && S->stored == A->nnz);
    CU_ASSERT(S->perm[S->rows - 8] == 0 || S->perm[S->rows - 8] == 5); /* the incoming order in the CRS part */
    spmv_sell_free(S);
    /* bad options */
    o.max_stored_factor = -1;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_ARG && S == NULL);
    o.max_stored_factor = NAN;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_ARG);
    o.max_stored_factor = INFINITY;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_ARG);
    o.max_stored_factor = 2, o.long_rows = -2;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "long_rows") != NULL);
    spmv_crs_free(A);
    /* below the floor (2^20 stored entries) a small matrix is never refused, whatever its padding */
    A = padded(2000); /* SELL-64-1 without a CRS part: 128000 stored for 2063 nonzeros */
    o = spmv_sell_opts_default();
    o.C = 64, o.long_rows = 0;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_OK && S && S->stored == 128000);
    spmv_sell_free(S);
    spmv_crs_free(A);
    /* a struct filled without spmv_sell_opts_default: zero fields mean no CRS part and no limit */
    A = padded(100000);
    spmv_sell_opts z;
    memset(&z, 0, sizeof z);
    z.C = 64, z.sigma = 1, z.unroll = 1;
    CU_ASSERT(spmv_sell_from_crs(A, &z, &S) == SPMV_OK && S && S->nlong == 0 && S->stored == 6400000);
    spmv_sell_free(S);
    spmv_crs_free(A);
}

/* spmv_tune_stored counts the CRS part of the default rule exactly as the conversion stores it */
static void test_stored_hybrid(void)
{
    spmv_crs *Ms[3] = {rows_of(6000, 6000, len_powerlaw, 3), rows_of(300, 30000, len_block, 4), padded(100000)};
    for (int m = 0; m < 3; m++)
        for (int32_t C = 1; C <= 256; C *= 4) /* C = 256: more than 64 rows join the CRS part to fill the chunks */
            for (int32_t sigma = 1; sigma <= 4096; sigma *= 64) {
                spmv_sell_opts o = spmv_sell_opts_default();
                o.C = C, o.sigma = sigma, o.runs = 0, o.max_stored_factor = 0;
                spmv_sell *S = NULL;
                CU_ASSERT_FATAL(spmv_sell_from_crs(Ms[m], &o, &S) == SPMV_OK);
                int64_t pred = -1;
                CU_ASSERT(spmv_tune_stored(Ms[m], C, sigma, 1, NULL, &pred) == SPMV_OK);
                CU_ASSERT(pred == S->stored);
                if (pred != S->stored)
                    printf("\n  matrix %d C %d sigma %d: predicted %lld, built %lld (CRS part %d rows)", m, C, sigma,
                           (long long)pred, (long long)S->stored, S->nlong);
                spmv_sell_free(S);
            }
    for (int m = 0; m < 3; m++) spmv_crs_free(Ms[m]);
}

/* The merge-path partition alone: invariants over random structures and every part count up to 64 */
static void test_partition(void)
{
    uint64_t s = 77;
    for (int trial = 0; trial < 200; trial++) {
        const int32_t rows = (int32_t)(tu_rand(&s) % 300);
        int64_t *rp = malloc(((size_t)rows + 1) * sizeof *rp);
        rp[0] = 0;
        for (int32_t i = 0; i < rows; i++) {
            uint64_t u = tu_rand(&s) % 100;
            int64_t len = u < 30 ? 0 : u < 90 ? (int64_t)(tu_rand(&s) % 5) : (int64_t)(tu_rand(&s) % 5000);
            rp[i + 1] = rp[i] + len;
        }
        for (int32_t n = 1; n <= 64; n++) {
            int32_t part[65];
            int64_t split[65];
            spmv__merge_partition(rp, rows, n, part, split);
            char what[64];
            snprintf(what, sizeof what, "trial %d, %d rows, %d parts", trial, rows, n);
            if (check_partition(rp, rows, n, part, split, what)) break;
        }
        free(rp);
    }
}

/* The tuner prunes points above the padding limit before building them */
static void progress_none(void *ctx, const spmv_tune_point *p, int32_t done, int32_t planned, double el, double b)
{
    (void)ctx, (void)p, (void)done, (void)planned, (void)el, (void)b;
}

static void test_tuner_prunes(void)
{
    /* 65536 rows: every 64th has 100 entries, the others 2: sigma = 1 pads each chunk to 100 (C >= 8: 28 x nnz) */
    coo m = {65536, 65536, 0, 0, NULL, NULL, NULL};
    uint64_t s = 5;
    for (int32_t i = 0; i < 65536; i++) {
        int32_t n = i % 64 == 0 ? 100 : 2;
        for (int32_t k = 0; k < n; k++) coo_add(&m, i, (int32_t)(tu_rand(&s) % 65536), 1.0);
    }
    spmv_crs *A = coo_build(&m);
    spmv_tune_opts o = spmv_tune_opts_default();
    CU_ASSERT(o.max_stored_factor == 2.0);
    static const int32_t Cs[] = {8, 32};
    o.budget = 10, o.run_time = 0.01, o.runs = 1, o.max_threads = 1, o.rcm = 0, o.progress = progress_none;
    o.full = 1, o.C_list = Cs, o.nC = 2; /* every sigma: at C = 32, sigma = 1 and 32 pad to 14 x nnz */
    spmv_tune_result r;
    CU_ASSERT_FATAL(spmv_tune(A, &o, &r, NULL) == SPMV_OK);
    int pruned = 0, built_over = 0;
    for (int32_t i = 0; i < r.npoints; i++) {
        const spmv_tune_point *p = &r.points[i];
        if (p->is_crs) continue;
        if (p->state == SPMV_TUNE_PRUNED && strncmp(p->note, "padding:", 8) == 0) {
            pruned++;
            CU_ASSERT(p->stored > 2 * A->nnz);
        }
        if (p->state == SPMV_TUNE_MEASURED && p->stored > 2 * A->nnz && p->stored > SPMV_SELL_GUARD_FLOOR) built_over++;
    }
    CU_ASSERT(pruned > 0);
    CU_ASSERT(built_over == 0);
    spmv_tune_result_free(&r);
    o.max_stored_factor = -1;
    CU_ASSERT(spmv_tune(A, &o, &r, NULL) == SPMV_ERR_ARG);
    spmv_tune_result_free(&r);
    spmv_crs_free(A);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    tu_require_arch();
    tu_suite("irregular matrices, threads 1..8", (tu_case[]){{"built cases", test_built},
                                                              {"a row of 10^6 entries", test_million},
                                                              {"irregular shared matrices", test_shared},
                                                              {"merge-path partition", test_partition},
                                                              {NULL, NULL}});
    tu_suite("padding guard", (tu_case[]){{"conversion", test_guard},
                                          {"spmv_tune_stored with the CRS part", test_stored_hybrid},
                                          {"the tuner prunes", test_tuner_prunes},
                                          {NULL, NULL}});
    int rc = tu_run();
    printf("%ld comparisons\n", n_checks);
    return rc;
}
