/* SELL-C-sigma construction: exact numbers on a hand-computed example, structural invariants (sigma-sort, chunk
 * lengths, column-major layout, padding columns, permutation), CRS -> SELL -> CRS identity, vector reordering,
 * spmv_crs_permute, argument errors and out-of-memory behaviour. */
#include "testutil.h"
#include "internal.h"
#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ helpers */

/* sell_ragged.mtx (shared/matrices/mm-edge), 0-based COO, typed in here so the test does not depend on the reader.
 * Row lengths 1,0,3,1,5,0,2,1,0,4 (nnz 17). */
static const int32_t rag_r[17] = {2, 2, 9, 9, 4, 4, 9, 7, 4, 6, 4, 2, 0, 9, 4, 3, 6};
static const int32_t rag_c[17] = {9, 6, 0, 1, 5, 9, 4, 4, 2, 8, 6, 3, 3, 7, 3, 2, 1};
static const double rag_v[17] = {-1, 1, 2, -3, 1, 1, 3, 1, 1, 1, 2, 1, -1, 2, 3, 1, 1};

static spmv_crs *ragged(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_coo(10, 10, 17, rag_r, rag_c, rag_v, 0, &A) == SPMV_OK);
    return A;
}

static spmv_sell_opts opts_of(int32_t C, int32_t sigma, int32_t unroll, int permuted)
{
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = C;
    o.sigma = sigma;
    o.unroll = unroll;
    o.permuted = permuted;
    o.long_rows = 0; /* the chunk layout alone; the hybrid (CRS part) is checked in its own cases */
    o.vidx = 1;      /* value indices wherever the matrix qualifies (check_sell checks both outcomes) */
    return o;
}

/* Distinct values (bit patterns) of rows rows[0, nrows) of A plus 0.0 when `padding`, counted independently of the
 * library (all pairs); stops counting at 17. */
static int32_t distinct_values(const spmv_crs *A, const int32_t *rows, int32_t nrows, int padding)
{
    uint64_t seen[17];
    int32_t n = 0;
    if (padding) seen[n++] = 0;
    for (int32_t i = 0; i < nrows && n <= 16; i++) {
        const int32_t row = rows[i];
        for (int64_t e = A->rowptr[row]; e < A->rowptr[row + 1] && n <= 16; e++) {
            uint64_t b;
            memcpy(&b, A->val + e, sizeof b);
            int dup = 0;
            for (int32_t k = 0; k < n; k++) dup |= seen[k] == b;
            if (!dup) seen[n++] = b;
        }
    }
    return n;
}

/* Random rows x cols matrix: row lengths from empty to (sometimes) a full row, explicit zeros, values in [-1,1). */
static spmv_crs *random_crs(int32_t rows, int32_t cols, int maxlen, uint64_t seed)
{
    uint64_t s = seed;
    int64_t cap = (int64_t)rows * (maxlen + 1) + 1;
    if (rows > 0 && cols > 0) cap += cols; /* the dense row */
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    int64_t n = 0;
    if (cols > 0)
        for (int32_t i = 0; i < rows; i++) {
            int len = (int)(tu_rand(&s) % (uint64_t)(maxlen + 1));
            if (tu_rand(&s) % 5 == 0) len = 0; /* empty rows */
            for (int k = 0; k < len; k++) {
                ri[n] = i;
                ci[n] = (int32_t)(tu_rand(&s) % (uint64_t)cols);
                v[n] = tu_rand(&s) % 11 == 0 ? 0.0 : tu_rand_unit(&s); /* explicit zeros */
                n++;
            }
        }
    if (rows > 3 && cols > 0) /* one dense row */
        for (int32_t j = 0; j < cols; j++) {
            ri[n] = rows / 3;
            ci[n] = j;
            v[n] = tu_rand_unit(&s);
            n++;
        }
    spmv_crs *A = NULL;
    spmv_status st = spmv_crs_from_coo(rows, cols, n, ri, ci, v, 0, &A);
    free(ri);
    free(ci);
    free(v);
    CU_ASSERT_FATAL(st == SPMV_OK);
    return A;
}

/* Read a shared matrix; NULL (and the test goes on) when it cannot be read: a skip is recorded when the folder is
 * missing or the reader is not built, a failure when the named file is missing or rejected (tu_read_shared). */
static spmv_crs *shared_crs(const char *name) { return tu_read_shared(name); }

static int32_t imin(int64_t a, int64_t b) { return (int32_t)(a < b ? a : b); }

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Every structural invariant of S built from A with opts; order = incoming order (identity when NULL, else the
 * RCM permutation). Returns the number of failed checks (also reported through CUnit). */
/* SELL matrices with run columns that check_sell checked chunk by chunk (the round trips assert they saw some) */
static long n_run_checked;

static int check_sell(const spmv_crs *A, const spmv_sell *S, const spmv_sell_opts *o, const int32_t *order)
{
    int bad = 0;
#define CHK(cond)                                                                                                  \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            if (bad++ < 3) printf("\n  check failed: %s (C=%d sigma=%d unroll=%d perm=%d)", #cond, o->C, o->sigma, \
                                  o->unroll, o->permuted);                                                         \
        }                                                                                                          \
    } while (0)
    const int32_t rows = A->rows, C = o->C;
    CHK(S->rows == A->rows && S->cols == A->cols && S->nnz == A->nnz);
    CHK(S->C == C && S->unroll == o->unroll && S->permuted == (o->permuted != 0));
    CHK(S->sigma == (o->sigma < rows ? o->sigma : (rows > 0 ? rows : 1)));
    CHK(S->nchunks == (int32_t)(((int64_t)rows + C - 1) / C));
    CHK(S->kernel != NULL);
    if (bad) return bad;

    /* permutation: bijection, inverse, row lengths */
    char *seen = calloc((size_t)rows + 1, 1);
    for (int32_t i = 0; i < rows; i++) {
        int32_t p = S->perm[i];
        CHK(p >= 0 && p < rows);
        if (p < 0 || p >= rows) continue;
        CHK(!seen[p]);
        seen[p] = 1;
        CHK(S->iperm[p] == i);
        CHK(S->rowlen[i] == (int32_t)(A->rowptr[p + 1] - A->rowptr[p]));
    }
    free(seen);
    if (bad) return bad;

    /* sigma-sort: inside each window of the incoming order, the same rows, descending length, stable */
    int32_t *pos = malloc(((size_t)rows + 1) * sizeof *pos); /* position of an original row in the incoming order */
    for (int32_t p = 0; p < rows; p++) pos[order ? order[p] : p] = p;
    for (int32_t i = 0; i < rows; i++) {
        int32_t w = i / S->sigma;
        CHK(pos[S->perm[i]] / S->sigma == w);
        if (i + 1 < rows && (i + 1) / S->sigma == w) {
            CHK(S->rowlen[i] >= S->rowlen[i + 1]);
            if (S->rowlen[i] == S->rowlen[i + 1]) CHK(pos[S->perm[i]] < pos[S->perm[i + 1]]);
        }
    }
    if (S->sigma == 1) /* no sorting: the incoming order itself */
        for (int32_t i = 0; i < rows; i++) CHK(S->perm[i] == (order ? order[i] : i));
    free(pos);

    /* run columns: the threshold used (auto: ceil(3C/4) for 4 <= C <= 64) */
    int32_t T = o->runs < 0 ? (C >= 4 && C <= 64 ? (3 * C + 3) / 4 : 0) : o->runs > C ? C : o->runs;
    /* auto: none where the conversion's sample found fewer than pay (when exactly: test_runs_sampled): then the
     * sample's figures are below the documented rule, max(10 %, 320 % / C) of its entries or 16 per chunk */
    if (o->runs < 0 && T > 0 && S->nchunks > 0) {
        const double share_min = 3.2 / C > 0.10 ? 3.2 / C : 0.10;
        CHK(S->run_sample_share >= 0.0 && S->run_sample_per_chunk >= 0.0);
        if (S->runs == 0) CHK(S->run_sample_share < share_min || S->run_sample_per_chunk < 16.0);
        else CHK(S->run_sample_share >= share_min && S->run_sample_per_chunk >= 16.0);
    }
    if (o->runs < 0 && S->runs == 0) T = 0;
    /* T lanes; or 0 (chunkruns NULL) when no chunk has a run column of T lanes -- checked per chunk below */
    CHK(S->runs == T || (S->runs == 0 && S->nruns == 0));
    CHK((S->runs == 0) == (S->chunkruns == NULL));
    if (bad) return bad;
    n_run_checked += S->nruns > 0;

    /* chunks and entries, against the layout spmv.h documents, recomputed here naively: per lane the row's columns
     * in stored numbering, ascending; keys (column - lane) shared by >= T lanes are the run columns, ascending; the
     * rest of each lane in gather columns, ascending; padding as documented */
    const int32_t *cmap = (S->permuted && A->rows == A->cols) ? S->iperm : NULL;
    const int32_t mb = (C + 7) / 8;
    CHK(S->chunkptr[0] == 0);
    /* every position's column, as spmv_sell_chunk_columns gives it (col holds only the 32-bit gather columns) */
    const int64_t ncols = S->chunkptr[S->nchunks];
    int32_t *cols = malloc(((size_t)ncols + 1) * sizeof *cols);
    CU_ASSERT_FATAL(cols != NULL);
    for (int32_t k = 0; k < S->nchunks; k++)
        CHK(spmv_sell_chunk_columns(S, k, cols + S->chunkptr[k]) == SPMV_OK);
    int64_t q0 = 0; /* run columns so far */
    for (int32_t k = 0; k < S->nchunks && bad == 0; k++) {
        const int64_t r0 = (int64_t)k * C;
        const int32_t nl = imin((int64_t)C, rows - r0); /* lanes with a row */
        /* the lanes' sorted (column, value) lists */
        int64_t tot = 0;
        for (int32_t r = 0; r < nl; r++) tot += S->rowlen[r0 + r];
        int32_t *lc = malloc(((size_t)tot + 1) * sizeof *lc), *lst = malloc(((size_t)C + 1) * sizeof *lst);
        double *lv = malloc(((size_t)tot + 1) * sizeof *lv);
        char *inrun = calloc((size_t)tot + 1, 1);
        int64_t at = 0;
        for (int32_t r = 0; r < C; r++) {
            lst[r] = (int32_t)at;
            if (r >= nl) continue;
            const int64_t src = A->rowptr[S->perm[r0 + r]];
            const int32_t n = S->rowlen[r0 + r];
            for (int32_t e = 0; e < n; e++) {
                int32_t c = A->col[src + e];
                lc[at + e] = cmap ? cmap[c] : c;
                lv[at + e] = A->val[src + e];
            }
            for (int32_t a = 1; a < n; a++) /* insertion sort by column */
                for (int32_t b = a; b > 0 && lc[at + b - 1] > lc[at + b]; b--) {
                    int32_t tc = lc[at + b];
                    lc[at + b] = lc[at + b - 1], lc[at + b - 1] = tc;
                    double tv = lv[at + b];
                    lv[at + b] = lv[at + b - 1], lv[at + b - 1] = tv;
                }
            at += n;
        }
        /* expected run keys: all keys of the chunk sorted, equal ones counted (>= T lanes: a run column) */
        int32_t nrun = 0, *keys = malloc(((size_t)tot + 1) * sizeof *keys);
        if (T > 0) {
            int64_t nk = 0;
            for (int32_t r = 0; r < nl; r++)
                for (int32_t e = 0; e < S->rowlen[r0 + r]; e++) keys[nk++] = lc[lst[r] + e] - r;
            qsort(keys, (size_t)nk, sizeof *keys, cmp_i32);
            for (int64_t a = 0, b; a < nk; a = b) {
                for (b = a; b < nk && keys[b] == keys[a]; b++) {
                }
                if (b - a >= T) keys[nrun++] = keys[a];
            }
        }
        int32_t rest_max = 0;
        for (int32_t r = 0; r < nl; r++) {
            int32_t rest = S->rowlen[r0 + r];
            for (int32_t e = 0; e < S->rowlen[r0 + r]; e++) {
                int32_t key = lc[lst[r] + e] - r;
                if (nrun && bsearch(&key, keys, (size_t)nrun, sizeof *keys, cmp_i32)) inrun[lst[r] + e] = 1, rest--;
            }
            if (rest > rest_max) rest_max = rest;
        }
        const int32_t L = (nrun + rest_max + o->unroll - 1) / o->unroll * o->unroll;
        CHK(S->chunklen[k] == L);
        CHK(S->chunkptr[k + 1] - S->chunkptr[k] == (int64_t)C * S->chunklen[k]);
        if (S->chunkruns) {
            CHK(S->chunkruns[k] == nrun && S->runptr[k] == q0);
        } else {
            CHK(nrun == 0); /* the run structure was dropped: no chunk has a run column */
        }
        const int64_t base = S->chunkptr[k];
        /* the stored order of the run columns: the full ones (every one of the C lanes has the key's column) first,
         * then the others, each group ascending */
        int32_t *sk = malloc(((size_t)nrun + 1) * sizeof *sk), nfull = 0;
        for (int pass = 0, m = 0; pass < 2; pass++)
            for (int32_t q = 0; q < nrun; q++) {
                int full = nl == C;
                for (int32_t r = 0; full && r < C; r++) {
                    const int32_t want = keys[q] + r;
                    full = bsearch(&want, lc + lst[r], (size_t)S->rowlen[r0 + r], sizeof *lc, cmp_i32) != NULL;
                }
                if (full == (pass == 0)) sk[m++] = keys[q];
                nfull += pass == 0 && full;
            }
        if (S->chunkruns) CHK(S->chunkfull != NULL && S->chunkfull[k] == nfull);
        /* run columns */
        for (int32_t q = 0; q < nrun && bad == 0; q++) {
            CHK(S->runbase[q0 + q] == sk[q]);
            int32_t lane0 = -1;
            for (int32_t r = 0; r < C; r++) {
                int32_t e = -1, want = sk[q] + r;
                if (r < nl) { /* the lane's entry with column sk[q] + r, by binary search */
                    const int32_t *hit = bsearch(&want, lc + lst[r], (size_t)S->rowlen[r0 + r], sizeof *lc, cmp_i32);
                    if (hit) e = (int32_t)(hit - (lc + lst[r]));
                }
                const int bit = S->runmask[(q0 + q) * mb + r / 8] >> (r % 8) & 1;
                CHK(bit == (e >= 0));
                if (e >= 0 && lane0 < 0) lane0 = r;
                const int64_t p = base + (int64_t)q * C + r;
                if (e >= 0) {
                    CHK(cols[p] == sk[q] + r);
                    CHK(memcmp(&S->val[p], &lv[lst[r] + e], sizeof(double)) == 0);
                }
            }
            for (int32_t r = 0; r < C; r++) {
                const int64_t p = base + (int64_t)q * C + r;
                if (S->runmask[(q0 + q) * mb + r / 8] >> (r % 8) & 1) continue;
                CHK(S->val[p] == 0.0 && !signbit(S->val[p]));
                int64_t want = (int64_t)sk[q] + r;
                CHK(cols[p] == (want >= 0 && want < S->cols ? want : (int64_t)sk[q] + lane0));
            }
        }
        /* gather columns: the lane's other entries ascending, then padding */
        int32_t best = 0, bestrest = -1;
        for (int32_t r = 0; r < C; r++) {
            int32_t rest = 0;
            for (int32_t e = 0; r < nl && e < S->rowlen[r0 + r]; e++) rest += !inrun[lst[r] + e];
            if (rest > bestrest) bestrest = rest, best = r;
        }
        for (int32_t r = 0; r < C && bad == 0; r++) {
            int32_t j = nrun, last = -1;
            const int32_t n = r < nl ? S->rowlen[r0 + r] : 0;
            for (int32_t e = 0; e < n; e++) {
                if (inrun[lst[r] + e]) continue;
                const int64_t p = base + (int64_t)j * C + r;
                CHK(cols[p] == lc[lst[r] + e]);
                CHK(memcmp(&S->val[p], &lv[lst[r] + e], sizeof(double)) == 0);
                last = lc[lst[r] + e];
                j++;
            }
            if (last < 0 && n > 0) last = lc[lst[r]];
            for (; j < L; j++) {
                const int64_t p = base + (int64_t)j * C + r;
                CHK(S->val[p] == 0.0 && !signbit(S->val[p]));
                if (last >= 0) CHK(cols[p] == last);
                else if (r != best) CHK(cols[p] == cols[base + (int64_t)j * C + best]);
                CHK(cols[p] >= 0 && cols[p] < S->cols);
            }
        }
        q0 += nrun;
        free(lc), free(lst), free(lv), free(inrun), free(keys), free(sk);
    }
    CHK(S->stored == S->chunkptr[S->nchunks]);
    { /* identity: exactly when perm is the identity (a wrong 1 gives a wrong y, a wrong 0 only a slower one) */
        int id = 1;
        for (int32_t i = 0; i < S->rows && id; i++) id = S->perm[i] == i;
        CHK(S->identity == id);
    }
    CHK(S->nruns == q0);

    /* 16-bit indices: a chunk's gather columns are compressed exactly when they span fewer than 65536 columns, from
     * their smallest column; the escape (colbase -1) otherwise */
    {   /* on: idx16 = 1, or auto (-1) where the chunks' values take 16 MiB or more (memory-bound) */
        const int64_t cst = S->chunkptr[S->nchunks];
        const int want16 = o->idx16 > 0 || (o->idx16 < 0 && cst * 8 >= ((int64_t)16 << 20));
        CHK((want16 && cst > 0) == (S->colbase != NULL));
    }
    if (S->colbase) {
        int64_t n16 = 0;
        for (int32_t k = 0; k < S->nchunks; k++) {
            const int32_t R = S->chunkruns ? S->chunkruns[k] : 0;
            const int64_t p0 = S->chunkptr[k] + (int64_t)R * C, p1 = S->chunkptr[k + 1];
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (int64_t p = p0; p < p1; p++) lo = cols[p] < lo ? cols[p] : lo, hi = cols[p] > hi ? cols[p] : hi;
            if (p1 > p0 && hi - lo <= 65535) {
                CHK(S->colbase[k] == lo);
                for (int64_t p = p0; p < p1; p++) CHK(S->col16[p] == cols[p] - lo);
                n16 += p1 - p0;
            } else {
                CHK(S->colbase[k] == -1);
            }
        }
        CHK(S->nidx16 == n16);
    }

    /* value indices: on exactly when asked for (1, or auto where the chunks' values take 2 MiB or more) and the
     * chunks' values (A's, and 0.0 where there is padding) are at most 16 distinct bit patterns; then val8 maps
     * every stored position to its value bit for bit, the table holds distinct values and zeros past nvals */
    {
        const int64_t cst = S->chunkptr[S->nchunks], lnnz = S->nlong > 0 ? S->longptr[S->nlong] : 0;
        const int wantv = o->vidx > 0 || (o->vidx < 0 && cst * 8 >= ((int64_t)2 << 20));
        /* the chunks' rows only: the long rows' values are in the CRS part */
        const int32_t nd = distinct_values(A, S->perm, S->rows - S->nlong, cst > A->nnz - lnnz);
        if (wantv && cst > 0 && nd <= SPMV_VTAB_MAX) {
            CHK(S->nvals == nd && S->val8 != NULL && S->vtab != NULL);
            if (S->val8 && S->vtab && S->nvals == nd) {
                int64_t wrong = 0;
                for (int64_t p = 0; p < cst; p++)
                    wrong += S->val8[p] >= S->nvals || memcmp(&S->vtab[S->val8[p]], &S->val[p], sizeof(double)) != 0;
                CHK(wrong == 0);
                for (int32_t i = 0; i < SPMV_VTAB_MAX; i++)
                    for (int32_t j = 0; j < i; j++)
                        CHK(i >= S->nvals || memcmp(&S->vtab[i], &S->vtab[j], sizeof(double)) != 0);
                for (int32_t i = S->nvals; i < SPMV_VTAB_MAX; i++) CHK(S->vtab[i] == 0.0);
            }
        } else {
            CHK(S->nvals == 0 && S->val8 == NULL && S->vtab == NULL);
        }
    }

    /* thread partition over chunks */
    int32_t want_parts = o->nthreads > 0 ? o->nthreads : spmv__auto_threads(S->stored);
    CHK(S->nparts == want_parts);
    CHK(S->part[0] == 0 && S->part[S->nparts] == S->nchunks);
    for (int32_t t = 0; t < S->nparts; t++) CHK(S->part[t] <= S->part[t + 1]);
    free(cols);
#undef CHK
    CU_ASSERT(bad == 0);
    return bad;
}

/* A and B hold exactly the same CRS arrays (values compared bit for bit). */
static int same_crs(const spmv_crs *A, const spmv_crs *B)
{
    if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz) return 0;
    if (memcmp(A->rowptr, B->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr) != 0) return 0;
    if (A->nnz > 0 && memcmp(A->col, B->col, (size_t)A->nnz * sizeof *A->col) != 0) return 0;
    if (A->nnz > 0 && memcmp(A->val, B->val, (size_t)A->nnz * sizeof *A->val) != 0) return 0;
    return 1;
}

/* Build, check invariants, convert back, compare. Returns 0 on success. */
static int build_check_roundtrip(const spmv_crs *A, const spmv_sell_opts *o, const char *what)
{
    spmv_sell *S = NULL;
    spmv_status st = spmv_sell_from_crs(A, o, &S);
    CU_ASSERT(st == SPMV_OK);
    if (st != SPMV_OK) {
        printf("\n  %s: from_crs failed: %s", what, spmv_last_error());
        return 1;
    }
    int bad = check_sell(A, S, o, NULL);
    CU_ASSERT(bad == 0); /* the layout against spmv.h (each finding printed by check_sell) */
    spmv_crs *B = NULL;
    st = spmv_sell_to_crs(S, &B);
    CU_ASSERT(st == SPMV_OK);
    if (st == SPMV_OK) {
        int same = same_crs(A, B);
        CU_ASSERT(same);
        if (!same) printf("\n  %s: CRS -> SELL -> CRS differs (C=%d sigma=%d unroll=%d permuted=%d)", what, o->C,
                          o->sigma, o->unroll, o->permuted);
        bad += !same;
        CU_ASSERT(B->kernel != NULL && B->owns == 1 && B->nparts >= 1);
    }
    spmv_crs_free(B);
    spmv_sell_free(S);
    return bad;
}

/* ------------------------------------------------------------------------------------------------ tests */

static void test_defaults(void)
{
    spmv_sell_opts o = spmv_sell_opts_default();
    CU_ASSERT(o.C == 32 && o.sigma == 1 && o.unroll == 1 && o.permuted == 0 && o.rcm == 0 && o.nthreads == 0);
}

/* The hand-computed example. Row lengths of sell_ragged (0-based rows 0..9): 1,0,3,1,5,0,2,1,0,4, nnz = 17.
 *  C=4 sigma=1:  identity; chunks {rows 0-3: max 3}, {4-7: max 5}, {8-9 + 2 padding lanes: max 4}
 *                unroll 1: chunklen 3,5,4 -> stored 4*(3+5+4) = 48, beta = 17/48
 *                unroll 2: chunklen 4,6,4 -> stored 56, beta = 17/56
 *  C=4 sigma=4:  windows {0-3}: lengths 1,0,3,1 -> rows 2,0,3,1; {4-7}: 5,0,2,1 -> 4,6,7,5; {8-9}: 0,4 -> 9,8
 *                perm = 2,0,3,1,4,6,7,5,9,8; chunks as above (windows = chunks): stored 48 / 56
 *  C=2 sigma=10: global stable sort: perm = 4,9,2,6,0,3,7,1,5,8 (lengths 5,4,3,2,1,1,1,0,0,0)
 *                unroll 1: chunklen 5,3,1,1,0 -> stored 2*10 = 20, beta = 17/20 = 0.85
 *                unroll 2: chunklen 6,4,2,2,0 -> stored 28, beta = 17/28 */
static void test_hand_example(void)
{
    spmv_crs *A = ragged();
    static const int32_t len_want[10] = {1, 0, 3, 1, 5, 0, 2, 1, 0, 4};
    for (int i = 0; i < 10; i++) CU_ASSERT(A->rowptr[i + 1] - A->rowptr[i] == len_want[i]);

    struct {
        int32_t C, sigma, unroll;
        int64_t stored;
        int32_t nchunks;
        int32_t chunklen[5];
        int32_t perm[10];
    } cases[] = {
        {4, 1, 1, 48, 3, {3, 5, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
        {4, 1, 2, 56, 3, {4, 6, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
        {4, 4, 1, 48, 3, {3, 5, 4}, {2, 0, 3, 1, 4, 6, 7, 5, 9, 8}},
        {4, 4, 2, 56, 3, {4, 6, 4}, {2, 0, 3, 1, 4, 6, 7, 5, 9, 8}},
        {2, 10, 1, 20, 5, {5, 3, 1, 1, 0}, {4, 9, 2, 6, 0, 3, 7, 1, 5, 8}},
        {2, 10, 2, 28, 5, {6, 4, 2, 2, 0}, {4, 9, 2, 6, 0, 3, 7, 1, 5, 8}},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        for (int permuted = 0; permuted <= 1; permuted++) {
            spmv_sell_opts o = opts_of(cases[t].C, cases[t].sigma, cases[t].unroll, permuted);
            spmv_sell *S = NULL;
            CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
            CU_ASSERT(S->stored == cases[t].stored);
            CU_ASSERT(S->nchunks == cases[t].nchunks);
            CU_ASSERT(S->sigma == cases[t].sigma);
            for (int k = 0; k < cases[t].nchunks; k++) CU_ASSERT(S->chunklen[k] == cases[t].chunklen[k]);
            for (int i = 0; i < 10; i++) CU_ASSERT(S->perm[i] == cases[t].perm[i]);
            CU_ASSERT(fabs(spmv_sell_beta(S) - 17.0 / (double)cases[t].stored) < 1e-15);
            CU_ASSERT(fabs(spmv_sell_padding_percent(S) - 100.0 * (double)(cases[t].stored - 17) / 17.0) < 1e-12);
            check_sell(A, S, &o, NULL);
            spmv_sell_free(S);
        }
    }
    CU_ASSERT(fabs(17.0 / 48 - 0.3541666666666667) < 1e-15 && fabs(17.0 / 20 - 0.85) < 1e-15);

    /* C=4 sigma=1 unroll=1, exact arrays of chunk 0 (rows 0-3) and chunk 2 (rows 8, 9 and two padding lanes).
     * chunk 0: row 0 = {3:-1}, row 1 empty, row 2 = {3:1, 6:1, 9:-1} (longest), row 3 = {2:1}; 3 wide.
     *   j=0: cols 3,3,3,2  j=1: 3,6,6,2  j=2: 3,9,9,2   (row 1 copies row 2, rows 0/3 repeat their last column)
     * chunk 2 at offset 12+20 = 32: row 8 empty, row 9 = {0:2, 1:-3, 4:3, 7:2}; the empty lanes copy lane 1. */
    {
        spmv_sell_opts o = opts_of(4, 1, 1, 0);
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        static const int32_t col0[12] = {3, 3, 3, 2, 3, 6, 6, 2, 3, 9, 9, 2};
        static const double val0[12] = {-1, 0, 1, 1, 0, 0, 1, 0, 0, 0, -1, 0};
        static const int32_t col2[16] = {0, 0, 0, 0, 1, 1, 1, 1, 4, 4, 4, 4, 7, 7, 7, 7};
        static const double val2[16] = {0, 2, 0, 0, 0, -3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0};
        static const int64_t cp[4] = {0, 12, 32, 48};
        for (int k = 0; k < 4; k++) CU_ASSERT(S->chunkptr[k] == cp[k]);
        for (int q = 0; q < 12; q++) CU_ASSERT(S->col[q] == col0[q] && S->val[q] == val0[q]);
        for (int q = 0; q < 16; q++) CU_ASSERT(S->col[32 + q] == col2[q] && S->val[32 + q] == val2[q]);
        static const int32_t rowlen[10] = {1, 0, 3, 1, 5, 0, 2, 1, 0, 4};
        for (int i = 0; i < 10; i++) CU_ASSERT(S->rowlen[i] == rowlen[i] && S->iperm[i] == i);
        spmv_sell_free(S);
    }
    /* C=2 sigma=10 unroll=2 permuted: chunk 0 lane 0 is row 4 = {2,3,5,6,9}; iperm = 4,7,2,5,0,8,3,6,9,1, so the
     * permuted columns are 2,5,8,3,1, stored ascending: 1,2,3,5,8, and the padding at j=5 repeats 8 (C = 2 < 4: no
     * run columns by default). */
    {
        spmv_sell_opts o = opts_of(2, 10, 2, 1);
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        static const int32_t iperm[10] = {4, 7, 2, 5, 0, 8, 3, 6, 9, 1};
        static const int32_t lane0[6] = {1, 2, 3, 5, 8, 8};
        for (int i = 0; i < 10; i++) CU_ASSERT(S->iperm[i] == iperm[i]);
        for (int j = 0; j < 6; j++) CU_ASSERT(S->col[2 * j] == lane0[j]);
        CU_ASSERT(S->val[10] == 0.0);
        spmv_sell_free(S);
    }
    /* the shared file gives the same structure (when the reader is there) */
    spmv_crs *F = shared_crs("mm-edge/sell_ragged.mtx");
    if (F) {
        CU_ASSERT(same_crs(A, F));
        spmv_crs_free(F);
    }
    spmv_crs_free(A);
}

/* sigma = 1 keeps the order, sigma >= rows sorts globally; nchunks and the stored sigma. */
static void test_sigma_extremes(void)
{
    spmv_crs *A = random_crs(101, 80, 12, 7);
    for (int32_t C = 1; C <= 16; C *= 2) {
        spmv_sell_opts o = opts_of(C, 1, 1, 0);
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        for (int32_t i = 0; i < A->rows; i++) CU_ASSERT(S->perm[i] == i);
        spmv_sell_free(S);
        int32_t sigmas[] = {101, 102, 1000, INT32_MAX};
        for (int s = 0; s < 4; s++) {
            o = opts_of(C, sigmas[s], 1, 0);
            CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
            CU_ASSERT(S->sigma == 101);
            for (int32_t i = 0; i + 1 < A->rows; i++) CU_ASSERT(S->rowlen[i] >= S->rowlen[i + 1]);
            check_sell(A, S, &o, NULL);
            spmv_sell_free(S);
        }
    }
    /* C far above rows: one chunk */
    spmv_crs *T = random_crs(5, 7, 3, 99);
    spmv_sell_opts o = opts_of(1000, 1, 1, 0);
    spmv_sell *S = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(T, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nchunks == 1);
    CU_ASSERT(S->stored == 1000 * (int64_t)S->chunklen[0]);
    spmv_sell_free(S);
    build_check_roundtrip(T, &o, "C > rows");
    spmv_crs_free(T);
    /* C = INT32_MAX: ceil(rows / C) must not overflow (all rows empty, so nothing is stored) */
    int64_t rp[6] = {0, 0, 0, 0, 0, 0};
    int32_t dc[1] = {0};
    double dv[1] = {0};
    CU_ASSERT_FATAL(spmv_crs_from_arrays(5, 5, rp, dc, dv, &T) == SPMV_OK);
    o = opts_of(INT32_MAX, INT32_MAX, INT32_MAX, 0);
    CU_ASSERT_FATAL(spmv_sell_from_crs(T, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nchunks == 1 && S->stored == 0 && S->chunklen[0] == 0 && S->sigma == 5);
    spmv_sell_free(S);
    spmv_crs_free(T);
    spmv_crs_free(A);
}

/* CRS -> SELL -> CRS identity and all invariants over many C, sigma, unroll, both vector orders. */
static void test_roundtrip_generated(void)
{
    const long runs0 = n_run_checked;
    spmv_crs *mats[12];
    const char *names[12];
    int n = 0;
    CU_ASSERT_FATAL(spmv_gen_laplace2d(7, 5, &mats[n]) == SPMV_OK);
    names[n++] = "laplace2d 7x5";
    CU_ASSERT_FATAL(spmv_gen_laplace3d(4, 3, 5, &mats[n]) == SPMV_OK);
    names[n++] = "laplace3d 4x3x5";
    CU_ASSERT_FATAL(spmv_gen_hpcg(4, 4, 4, &mats[n]) == SPMV_OK);
    names[n++] = "hpcg 4x4x4";
    /* big enough for the parallel first-touch fill (>= 2^15 stored entries) */
    spmv_crs *H = NULL;
    CU_ASSERT_FATAL(spmv_gen_hpcg(16, 16, 12, &H) == SPMV_OK);
    for (int32_t C = 4; C <= 32; C *= 8)
        for (int permuted = 0; permuted <= 1; permuted++) {
            spmv_sell_opts o = opts_of(C, 4 * C, 1 + permuted, permuted);
            o.nthreads = 2;
            build_check_roundtrip(H, &o, "hpcg 16x16x12");
        }
    spmv_crs_free(H);
    mats[n] = random_crs(0, 0, 3, 1), names[n++] = "0x0";
    mats[n] = random_crs(0, 5, 3, 2), names[n++] = "0x5";
    mats[n] = random_crs(5, 0, 3, 3), names[n++] = "5x0";
    mats[n] = random_crs(1, 1, 1, 4), names[n++] = "1x1";
    mats[n] = random_crs(37, 53, 9, 5), names[n++] = "random 37x53";
    mats[n] = random_crs(120, 120, 20, 6), names[n++] = "random 120x120";
    mats[n] = random_crs(66, 17, 30, 8), names[n++] = "random 66x17 (long rows)";
    mats[n] = random_crs(3, 200, 50, 9), names[n++] = "random 3x200";
    mats[n] = random_crs(257, 31, 4, 10), names[n++] = "random 257x31";
    const int32_t Cs[] = {1, 2, 3, 4, 7, 8, 16, 32, 64};
    for (int m = 0; m < n; m++) {
        int bad = 0;
        int32_t rows = mats[m]->rows;
        for (size_t c = 0; c < sizeof Cs / sizeof Cs[0]; c++) {
            int32_t C = Cs[c];
            int32_t sigmas[] = {1, 2, 3, C, 4 * C, rows > 0 ? rows : 1, rows + 5};
            for (size_t s = 0; s < sizeof sigmas / sizeof sigmas[0]; s++)
                for (int32_t unroll = 1; unroll <= 4; unroll *= 2)
                    for (int permuted = 0; permuted <= 1; permuted++) {
                        spmv_sell_opts o = opts_of(C, sigmas[s], unroll, permuted);
                        o.nthreads = (int)(1 + (c + s) % 2);
                        /* the run layouts whatever the automatic rule decides: asked for in half the builds */
                        if (permuted && C >= 4 && C <= 64) o.runs = (3 * C + 3) / 4;
                        bad += build_check_roundtrip(mats[m], &o, names[m]);
                        if (bad > 5) break;
                    }
        }
        if (bad) printf("\n  %s: %d failures", names[m], bad);
        spmv_crs_free(mats[m]);
    }
    CU_ASSERT(n_run_checked > runs0); /* run layouts were among those checked */
}

static void test_roundtrip_shared(void)
{
    if (!tu_need_shared("SELL round trips on the shared matrices")) return;
    const long runs0 = n_run_checked;
    const char *files[] = {"mm-edge/sell_ragged.mtx", "mm-edge/one_dense_row.mtx", "mm-edge/explicit_zeros.mtx",
                           "mm-edge/zero_rows.mtx", "mm-edge/nan_inf.mtx", "mm-edge/row_vector.mtx",
                           "mm-edge/skew_coord.mtx", "mm-edge/pattern_general.mtx", "karate.mtx", "lp_afiro.mtx",
                           "ash219.mtx", "west0067_jumbled.mtx", "494_bus.mtx", "a04.mtx", "empty.mtx",
                           "LFAT5_hypersparse.mtx", "lp_e226.mtx", "mbeacxc.mtx", "bcsstk13.mtx",
                           "Groebner_id2003_aug.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        spmv_crs *A = shared_crs(files[f]);
        if (!A) continue;
        int big = A->nnz > 20000;
        const int32_t Cs[] = {1, 3, 4, 8, 32, 64};
        int bad = 0;
        for (size_t c = 0; c < sizeof Cs / sizeof Cs[0]; c++) {
            if (big && c % 2) continue;
            int32_t C = Cs[c];
            int32_t sigmas[] = {1, C, 4 * C, A->rows > 0 ? A->rows : 1};
            for (size_t s = 0; s < 4; s++)
                for (int permuted = 0; permuted <= 1; permuted++) {
                    spmv_sell_opts o = opts_of(C, sigmas[s], 1 + (int)((s + c) % 2), permuted);
                    if (permuted && C >= 4 && C <= 64) o.runs = (3 * C + 3) / 4; /* as in test_roundtrip */
                    bad += build_check_roundtrip(A, &o, files[f]);
                }
        }
        if (bad) printf("\n  %s: %d failures", files[f], bad);
        spmv_crs_free(A);
    }
    CU_ASSERT(n_run_checked > runs0); /* run layouts were among those checked */
}

/* permuted = 1 on a square matrix stores A' = P A P^T: compare with spmv_crs_permute entry by entry. */
static void test_permuted_is_PAPt(void)
{
    spmv_crs *A = random_crs(45, 45, 8, 21);
    const int32_t n = A->rows;
    double *D1 = malloc((size_t)n * n * sizeof *D1), *D2 = malloc((size_t)n * n * sizeof *D2);
    for (int32_t sigma = 1; sigma <= 64; sigma *= 4) {
        spmv_sell_opts o = opts_of(4, sigma, 1, 1);
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        spmv_crs *B = NULL;
        CU_ASSERT_FATAL(spmv_crs_permute(A, S->perm, &B) == SPMV_OK);
        memset(D1, 0, (size_t)n * n * sizeof *D1);
        memset(D2, 0, (size_t)n * n * sizeof *D2);
        for (int32_t i = 0; i < n; i++) {
            int32_t k = i / S->C, r = i % S->C;
            for (int32_t j = 0; j < S->chunklen[k]; j++) { /* every stored entry: padding adds +0 */
                int64_t q = S->chunkptr[k] + (int64_t)j * S->C + r;
                D1[(size_t)i * n + S->col[q]] += S->val[q];
            }
            for (int64_t q = B->rowptr[i]; q < B->rowptr[i + 1]; q++) D2[(size_t)i * n + B->col[q]] += B->val[q];
        }
        CU_ASSERT(memcmp(D1, D2, (size_t)n * n * sizeof *D1) == 0);
        spmv_crs_free(B);
        spmv_sell_free(S);
    }
    free(D1);
    free(D2);
    /* rectangular + permuted: columns stay in the original numbering */
    spmv_crs *R = random_crs(30, 11, 6, 22);
    spmv_sell_opts o = opts_of(4, 30, 1, 1);
    spmv_sell *S = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(R, &o, &S) == SPMV_OK);
    CU_ASSERT(S->permuted == 1);
    check_sell(R, S, &o, NULL);
    spmv_sell_free(S);
    spmv_crs_free(R);
    spmv_crs_free(A);
}

/* RCM then sigma-sort: perm composes the RCM order with the sort inside windows of that order. */
static void test_rcm(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_gen_laplace2d(9, 7, &A) == SPMV_OK);
    int32_t *p = malloc((size_t)A->rows * sizeof *p), *ip = malloc((size_t)A->rows * sizeof *ip);
    spmv_status st = spmv_rcm(A, p, ip);
    spmv_sell_opts o = opts_of(4, 1, 1, 1);
    o.rcm = 1;
    spmv_sell *S = NULL;
    if (st == SPMV_ERR_UNSUPPORTED) {
        CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_UNSUPPORTED);
        CU_ASSERT(S == NULL);
    } else {
        CU_ASSERT_FATAL(st == SPMV_OK);
        int32_t sigmas[] = {1, 4, 16, 1000};
        for (int s = 0; s < 4; s++)
            for (int permuted = 0; permuted <= 1; permuted++) {
                o = opts_of(4, sigmas[s], 1, permuted);
                o.rcm = 1;
                CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
                check_sell(A, S, &o, p);
                if (sigmas[s] == 1)
                    for (int32_t i = 0; i < A->rows; i++) CU_ASSERT(S->perm[i] == p[i]);
                spmv_crs *B = NULL;
                CU_ASSERT(spmv_sell_to_crs(S, &B) == SPMV_OK);
                CU_ASSERT(B && same_crs(A, B));
                spmv_crs_free(B);
                spmv_sell_free(S);
                S = NULL;
            }
    }
    /* rcm on a rectangular matrix is an argument error */
    spmv_crs *R = random_crs(6, 9, 3, 5);
    o = opts_of(4, 1, 1, 0);
    o.rcm = 1;
    S = (spmv_sell *)1;
    CU_ASSERT(spmv_sell_from_crs(R, &o, &S) == SPMV_ERR_ARG);
    CU_ASSERT(S == NULL);
    CU_ASSERT(strstr(spmv_last_error(), "rcm") != NULL);
    spmv_crs_free(R);
    free(p);
    free(ip);
    spmv_crs_free(A);
}

static void test_permute_vec(void)
{
    spmv_crs *A = random_crs(77, 77, 6, 31);
    spmv_sell_opts o = opts_of(8, 77, 1, 1);
    spmv_sell *S = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    double in[77], mid[77], out[77];
    uint64_t s = 5;
    for (int i = 0; i < 77; i++) in[i] = tu_rand_unit(&s);
    CU_ASSERT(spmv_sell_permute_vec(S, in, mid) == SPMV_OK);
    for (int i = 0; i < 77; i++) CU_ASSERT(mid[i] == in[S->perm[i]]);
    CU_ASSERT(spmv_sell_unpermute_vec(S, mid, out) == SPMV_OK);
    CU_ASSERT(memcmp(in, out, sizeof in) == 0);
    for (int i = 0; i < 77; i++) CU_ASSERT(mid[S->iperm[i]] == in[i]);
    /* errors */
    CU_ASSERT(spmv_sell_permute_vec(NULL, in, out) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_sell_permute_vec(S, NULL, out) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_sell_unpermute_vec(S, in, NULL) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "out") != NULL);
    CU_ASSERT(spmv_sell_permute_vec(S, in, in) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_sell_unpermute_vec(S, in, in + 3) == SPMV_ERR_ARG);
    spmv_sell_free(S);
    spmv_crs_free(A);
    /* zero rows: nothing to do, NULL vectors fine */
    spmv_crs *Z = random_crs(0, 4, 2, 1);
    CU_ASSERT_FATAL(spmv_sell_from_crs(Z, &o, &S) == SPMV_OK);
    CU_ASSERT(spmv_sell_permute_vec(S, NULL, NULL) == SPMV_OK);
    CU_ASSERT(spmv_sell_unpermute_vec(S, NULL, NULL) == SPMV_OK);
    spmv_sell_free(S);
    spmv_crs_free(Z);
}

static void test_set_threads_and_stats(void)
{
    spmv_crs *A = random_crs(500, 300, 15, 41);
    spmv_sell_opts o = opts_of(8, 32, 1, 0);
    o.nthreads = 3;
    spmv_sell *S = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nparts == 3);
    for (int nt = 1; nt <= 9; nt++) {
        CU_ASSERT_FATAL(spmv_sell_set_threads(S, nt) == SPMV_OK);
        CU_ASSERT(S->nparts == nt && S->part[0] == 0 && S->part[nt] == S->nchunks);
        int64_t maxpart = 0, maxchunk = 0;
        for (int t = 0; t < nt; t++) {
            CU_ASSERT(S->part[t] <= S->part[t + 1]);
            int64_t w = S->chunkptr[S->part[t + 1]] - S->chunkptr[S->part[t]];
            if (w > maxpart) maxpart = w;
        }
        for (int32_t k = 0; k < S->nchunks; k++)
            if (S->chunkptr[k + 1] - S->chunkptr[k] > maxchunk) maxchunk = S->chunkptr[k + 1] - S->chunkptr[k];
        /* balanced by stored entries: no part exceeds its share by more than a chunk */
        CU_ASSERT(maxpart <= S->stored / nt + maxchunk);
    }
    CU_ASSERT(spmv_sell_set_threads(S, 0) == SPMV_OK);
    CU_ASSERT(S->nparts == spmv__auto_threads(S->stored));
    CU_ASSERT(spmv_sell_set_threads(S, -1) == SPMV_ERR_ARG);
    CU_ASSERT(S->nparts == spmv__auto_threads(S->stored)); /* unchanged on error */
    CU_ASSERT(spmv_sell_set_threads(NULL, 1) == SPMV_ERR_ARG);
    CU_ASSERT(fabs(spmv_sell_beta(S) - (double)S->nnz / (double)S->stored) < 1e-15);
    CU_ASSERT(fabs(spmv_sell_padding_percent(S) - 100.0 * (double)(S->stored - S->nnz) / (double)S->nnz) < 1e-12);
    CU_ASSERT(spmv_sell_beta(S) > 0 && spmv_sell_beta(S) <= 1);
    spmv_sell_free(S);
    spmv_crs_free(A);
    /* empty matrix: beta 1, padding 0 */
    spmv_crs *E = random_crs(0, 0, 1, 1);
    CU_ASSERT_FATAL(spmv_sell_from_crs(E, &o, &S) == SPMV_OK);
    CU_ASSERT(S->stored == 0 && S->nchunks == 0 && spmv_sell_beta(S) == 1.0 && spmv_sell_padding_percent(S) == 0.0);
    spmv_sell_free(S);
    spmv_crs_free(E);
    /* all rows empty, rows > 0: nothing stored */
    spmv_crs *Z = NULL;
    int64_t rp[6] = {0, 0, 0, 0, 0, 0};
    int32_t dummy_c[1] = {0};
    double dummy_v[1] = {0};
    CU_ASSERT_FATAL(spmv_crs_from_arrays(5, 5, rp, dummy_c, dummy_v, &Z) == SPMV_OK);
    o = opts_of(2, 5, 2, 1);
    CU_ASSERT_FATAL(spmv_sell_from_crs(Z, &o, &S) == SPMV_OK);
    CU_ASSERT(S->stored == 0 && S->nchunks == 3 && spmv_sell_beta(S) == 1.0 && spmv_sell_padding_percent(S) == 0.0);
    build_check_roundtrip(Z, &o, "5x5 empty");
    spmv_sell_free(S);
    spmv_crs_free(Z);
}

/* Lines of y (8 rows) that several parts write, counted the slow way: for each line, the parts whose chunk rows or
 * CRS-part rows (longpart) land in it through perm */
static int64_t yshared_brute(const spmv_sell *S)
{
    if (S->nparts < 2 || S->permuted || S->identity) return 0;
    const int64_t nbulk = (int64_t)S->rows - S->nlong;
    int64_t shared = 0;
    for (int64_t l = 0; l < ((int64_t)S->rows + 7) / 8; l++) {
        int writers = 0;
        for (int32_t t = 0; t < S->nparts; t++) {
            int hit = 0;
            for (int64_t i = 0; i < S->rows && !hit; i++) {
                const int in_t = i < nbulk ? (i / S->C >= S->part[t] && i / S->C < S->part[t + 1])
                                           : (i - nbulk >= S->longpart[t] && i - nbulk < S->longpart[t + 1]);
                hit = in_t && S->perm[i] / 8 == l;
            }
            writers += hit;
        }
        shared += writers > 1;
    }
    return shared;
}

/* spmv_sell.yshared: the lines of y two parts write through perm (the multiply runs on one thread where they cost
 * more than the second thread saves), exact on a hand case and against the slow count; and the multiply right
 * either way */
static void test_yshared(void)
{
    /* 16 rows, the odd ones with 2 entries, the even ones with 1: sigma = 16 sorts the odd rows into chunk 0 and the
     * even ones into chunk 1 (C = 8), one per part on 2 threads, and both lines of y hold rows of both */
    int64_t rp[17];
    int32_t ci[24];
    double cv[24];
    int64_t n = 0;
    for (int32_t i = 0; i < 16; i++) {
        rp[i] = n;
        ci[n] = i, cv[n++] = 1.0 + i;
        if (i % 2) ci[n] = (i + 5) % 16, cv[n++] = 0.5;
    }
    rp[16] = n;
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_arrays(16, 16, rp, ci, cv, &A) == SPMV_OK);
    const int32_t sig[3] = {1, 16, 16};
    const int perm_in[3] = {0, 0, 1};
    const int64_t want[3] = {0, 2, 0}; /* identity perm; sorted; sorted but y in the permuted order */
    for (int c = 0; c < 3; c++) {
        spmv_sell_opts o = opts_of(8, sig[c], 1, perm_in[c]);
        o.nthreads = 2;
        o.runs = 0;
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        CU_ASSERT(S->nparts == 2 && S->nchunks == 2 && S->part[1] == 1);
        CU_ASSERT(S->yshared == want[c]);
        CU_ASSERT_FATAL(spmv_sell_set_threads(S, 1) == SPMV_OK);
        CU_ASSERT(S->yshared == 0);
        spmv_sell_free(S);
    }
    spmv_crs_free(A);
    /* random matrices, sigma = rows and 64, with and without a CRS part, 1-5 threads: the slow count, and y */
    for (int trial = 0; trial < 6; trial++) {
        spmv_crs *R = random_crs(300 + 37 * trial, 250, 12, 77 + (uint64_t)trial);
        spmv_sell_opts o = opts_of(trial % 2 ? 8 : 16, trial < 3 ? INT32_MAX : 64, 1, 0);
        o.long_rows = trial % 3 == 2 ? 8 : 0;
        o.nthreads = 2;
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(R, &o, &S) == SPMV_OK);
        if (o.long_rows) CU_ASSERT(S->nlong > 0); /* the CRS part's rows are counted too */
        double *x = malloc((size_t)R->cols * sizeof *x), *y = malloc((size_t)R->rows * sizeof *y),
               *yr = malloc((size_t)R->rows * sizeof *yr);
        CU_ASSERT_FATAL(x && y && yr);
        for (int32_t j = 0; j < R->cols; j++) x[j] = 1.0 + (double)(j % 9) / 4.0;
        for (int nt = 1; nt <= 5; nt++) {
            CU_ASSERT_FATAL(spmv_sell_set_threads(S, nt) == SPMV_OK);
            CU_ASSERT(S->yshared == yshared_brute(S));
            if (nt == 2 && trial < 3) CU_ASSERT(S->yshared > 0); /* a sort over all rows splits lines */
            if (nt >= 2) { /* the team: spmv__team's without shared lines or with few against much work, else 1 */
                spmv_sell T = *S;
                const int64_t big = (int64_t)1 << 24;
                T.yshared = 0;
                const int team = spmv__team(T.nparts, big); /* > 1 unless fork and join took milliseconds */
                CU_ASSERT(spmv__sell_team(&T, big) == team);
                T.yshared = big / SPMV_SHARED_LINE_WORK / 4; /* costs a quarter of the work: a team saves more */
                CU_ASSERT(spmv__sell_team(&T, big) == team);
                T.yshared = big / SPMV_SHARED_LINE_WORK; /* costs the whole work */
                CU_ASSERT(spmv__sell_team(&T, big) == 1);
                /* ... unless a thread's share of the data exceeds its private cache: the lines leave it anyway */
                /* the bytes grow with the stored entries (the declared traffic per entry, per row, x): the largest
                 * stored count at which a thread's share fits the cache (bisection), and the next one */
                CU_ASSERT_FATAL(team >= 2); /* SPMV_FORK_JOIN_NS = 0 (testutil): a team of nparts */
                int64_t lo = S->stored, hi = (int64_t)1 << 40; /* fits at lo, exceeds at hi */
                T.stored = lo;
                CU_ASSERT_FATAL(spmv__sell_bytes(&T) / team <= SPMV_SHARED_LINE_CACHE_BYTES);
                while (hi - lo > 1) {
                    T.stored = lo + (hi - lo) / 2;
                    *(spmv__sell_bytes(&T) / team <= SPMV_SHARED_LINE_CACHE_BYTES ? &lo : &hi) = T.stored;
                }
                const int64_t at = lo;
                T.stored = at + 1;
                CU_ASSERT(spmv__sell_bytes(&T) / team > SPMV_SHARED_LINE_CACHE_BYTES);
                CU_ASSERT(spmv__sell_team(&T, big) == team); /* just past the cache: the team */
                T.stored = at; /* each share at the cache's size: one thread again */
                CU_ASSERT(spmv__sell_team(&T, big) == 1);
            }
            for (int32_t i = 0; i < R->rows; i++) y[i] = yr[i] = 0.25 * i;
            CU_ASSERT_FATAL(spmv_crs_mv(R, 2.0, x, 0.5, yr) == SPMV_OK);
            CU_ASSERT_FATAL(spmv_sell_mv(S, 2.0, x, 0.5, y) == SPMV_OK);
            double err = 0;
            for (int32_t i = 0; i < R->rows; i++) err = fmax(err, fabs(y[i] - yr[i]) / (1.0 + fabs(yr[i])));
            CU_ASSERT(err < 1e-13);
        }
        free(x), free(y), free(yr);
        spmv_sell_free(S);
        spmv_crs_free(R);
    }
}

static void test_crs_permute(void)
{
    spmv_crs *A = random_crs(50, 50, 10, 51); /* row 16 is dense: 50 entries, the long-row sort path */
    const int32_t n = 50;
    int32_t perm[50];
    uint64_t s = 77;
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(tu_rand(&s) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    spmv_crs *B = NULL;
    CU_ASSERT_FATAL(spmv_crs_permute(A, perm, &B) == SPMV_OK);
    CU_ASSERT(B->rows == n && B->cols == n && B->nnz == A->nnz && B->owns == 1 && B->kernel != NULL);
    /* B[i][j] = A[perm[i]][perm[j]] exactly, columns strictly increasing */
    double *DA = calloc((size_t)n * n, sizeof *DA), *DB = calloc((size_t)n * n, sizeof *DB);
    char *hasA = calloc((size_t)n * n, 1), *hasB = calloc((size_t)n * n, 1);
    for (int32_t i = 0; i < n; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            DA[i * n + A->col[k]] = A->val[k], hasA[i * n + A->col[k]] = 1;
        for (int64_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++) {
            DB[i * n + B->col[k]] = B->val[k], hasB[i * n + B->col[k]] = 1;
            if (k > B->rowptr[i]) CU_ASSERT(B->col[k] > B->col[k - 1]);
        }
    }
    int bad = 0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++) {
            size_t a = (size_t)perm[i] * n + perm[j], b = (size_t)i * n + j;
            if (hasA[a] != hasB[b] || memcmp(&DA[a], &DB[b], sizeof(double)) != 0) bad++;
        }
    CU_ASSERT(bad == 0);
    /* permuting back with the inverse gives A exactly */
    int32_t inv[50];
    for (int i = 0; i < n; i++) inv[perm[i]] = i;
    spmv_crs *C = NULL;
    CU_ASSERT_FATAL(spmv_crs_permute(B, inv, &C) == SPMV_OK);
    CU_ASSERT(same_crs(A, C));
    spmv_crs_free(C);
    /* identity */
    int32_t id[50];
    for (int i = 0; i < n; i++) id[i] = i;
    CU_ASSERT_FATAL(spmv_crs_permute(A, id, &C) == SPMV_OK);
    CU_ASSERT(same_crs(A, C));
    spmv_crs_free(C);

    /* errors: the message names the first bad entry */
    int32_t badp[50];
    memcpy(badp, perm, sizeof badp);
    badp[7] = 50;
    C = (spmv_crs *)1;
    CU_ASSERT(spmv_crs_permute(A, badp, &C) == SPMV_ERR_ARG);
    CU_ASSERT(C == NULL);
    CU_ASSERT(strstr(spmv_last_error(), "perm[7] = 50") != NULL);
    badp[7] = -1;
    CU_ASSERT(spmv_crs_permute(A, badp, &C) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "perm[7] = -1") != NULL);
    memcpy(badp, id, sizeof badp);
    badp[9] = 4; /* repeats perm[4] */
    CU_ASSERT(spmv_crs_permute(A, badp, &C) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "perm[9] = 4 repeats perm[4]") != NULL);
    CU_ASSERT(spmv_crs_permute(NULL, id, &C) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_crs_permute(A, NULL, &C) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "perm") != NULL);
    CU_ASSERT(spmv_crs_permute(A, id, NULL) == SPMV_ERR_ARG);
    spmv_crs *R = random_crs(4, 5, 2, 3);
    CU_ASSERT(spmv_crs_permute(R, id, &C) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "4 x 5") != NULL);
    spmv_crs_free(R);
    /* 0 x 0 */
    spmv_crs *E = random_crs(0, 0, 1, 1);
    CU_ASSERT(spmv_crs_permute(E, NULL, &C) == SPMV_OK);
    CU_ASSERT(C && C->rows == 0 && C->nnz == 0);
    spmv_crs_free(C);
    spmv_crs_free(E);

    free(DA);
    free(DB);
    free(hasA);
    free(hasB);
    spmv_crs_free(B);
    spmv_crs_free(A);
}

static void test_arg_errors(void)
{
    spmv_crs *A = ragged();
    spmv_sell *S = (spmv_sell *)1;
    spmv_sell_opts o = spmv_sell_opts_default();
    CU_ASSERT(spmv_sell_from_crs(NULL, &o, &S) == SPMV_ERR_ARG);
    CU_ASSERT(S == NULL);
    CU_ASSERT(strstr(spmv_last_error(), "A") != NULL);
    S = (spmv_sell *)1;
    CU_ASSERT(spmv_sell_from_crs(A, NULL, &S) == SPMV_ERR_ARG);
    CU_ASSERT(S == NULL);
    CU_ASSERT(strstr(spmv_last_error(), "opts") != NULL);
    CU_ASSERT(spmv_sell_from_crs(A, &o, NULL) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "S") != NULL);
    struct {
        int32_t C, sigma, unroll;
        int nthreads;
        const char *name;
    } bad[] = {{-3, 1, 1, 0, "opts->C"},
               {4, -1, 1, 0, "opts->sigma"},   {4, 1, 0, 0, "opts->unroll"},   {4, 1, -2, 0, "opts->unroll"},
               {4, 1, 1, -1, "opts->nthreads"}};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        o = opts_of(bad[b].C, bad[b].sigma, bad[b].unroll, 0);
        o.nthreads = bad[b].nthreads;
        S = (spmv_sell *)1;
        CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_ARG);
        CU_ASSERT(S == NULL);
        CU_ASSERT(strstr(spmv_last_error(), bad[b].name) != NULL);
    }
    spmv_crs *B = (spmv_crs *)1;
    CU_ASSERT(spmv_sell_to_crs(NULL, &B) == SPMV_ERR_ARG);
    CU_ASSERT(B == NULL);
    o = spmv_sell_opts_default();
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(spmv_sell_to_crs(S, NULL) == SPMV_ERR_ARG);
    spmv_sell_free(S);
    spmv_sell_free(NULL); /* accepted */
    CU_ASSERT(spmv_sell_beta(NULL) == 1.0 && spmv_sell_padding_percent(NULL) == 0.0);
    spmv_crs_free(A);
}

/* Allocation N fails for N = 0, 1, 2, ...: NOMEM with *S NULL until the build succeeds (no leak: valgrind). */
static void oom_sell(const spmv_crs *A, const spmv_sell_opts *o)
{
    long n;
    for (n = 0; n < 200; n++) {
        spmv_sell *S = (spmv_sell *)1;
        spmv__alloc_fail_after(n);
        spmv_status st = spmv_sell_from_crs(A, o, &S);
        spmv__alloc_fail_after(-1);
        if (st == SPMV_OK) {
            CU_ASSERT(S != NULL);
            if (S) check_sell(A, S, o, NULL);
            /* to_crs under failure injection too */
            long m;
            for (m = 0; m < 50; m++) {
                spmv_crs *B = (spmv_crs *)1;
                spmv__alloc_fail_after(m);
                spmv_status st2 = spmv_sell_to_crs(S, &B);
                spmv__alloc_fail_after(-1);
                if (st2 == SPMV_OK) {
                    CU_ASSERT(same_crs(A, B));
                    spmv_crs_free(B);
                    break;
                }
                CU_ASSERT(st2 == SPMV_ERR_NOMEM);
                CU_ASSERT(B == NULL);
            }
            CU_ASSERT(m < 50);
            /* set_threads: NOMEM leaves the old partition */
            int32_t old = S->nparts;
            spmv__alloc_fail_after(0);
            CU_ASSERT(spmv_sell_set_threads(S, 5) == SPMV_ERR_NOMEM);
            spmv__alloc_fail_after(-1);
            CU_ASSERT(S->nparts == old && S->part != NULL);
            spmv_sell_free(S);
            break;
        }
        CU_ASSERT(st == SPMV_ERR_NOMEM);
        CU_ASSERT(S == NULL);
        if (st != SPMV_ERR_NOMEM) {
            printf("\n  allocation %ld failing gave %s (%s)", n, spmv_strerror(st), spmv_last_error());
            break;
        }
    }
    CU_ASSERT(n > 0 && n < 200);
}

/* The stored layout of S and R alike: chunk offsets, every stored column and value (bit for bit), the run columns'
 * bases, masks and counts, the 16-bit indices where the kernels read them */
static int same_layout(const spmv_sell *S, const spmv_sell *R)
{
    if (S->nchunks != R->nchunks || S->stored != R->stored || S->nruns != R->nruns) return 0;
    const int64_t n = S->chunkptr[S->nchunks], mb = (S->C + 7) / 8;
    if (memcmp(S->chunkptr, R->chunkptr, ((size_t)S->nchunks + 1) * sizeof *S->chunkptr) != 0) return 0;
    if (n > 0) { /* every position's column (col holds only the 32-bit gather columns) */
        int32_t *cs = malloc((size_t)n * sizeof *cs), *cr = malloc((size_t)n * sizeof *cr);
        int same = cs && cr;
        for (int32_t k = 0; k < S->nchunks && same; k++)
            same = spmv_sell_chunk_columns(S, k, cs + S->chunkptr[k]) == SPMV_OK &&
                   spmv_sell_chunk_columns(R, k, cr + S->chunkptr[k]) == SPMV_OK;
        same = same && memcmp(cs, cr, (size_t)n * sizeof *cs) == 0;
        free(cs), free(cr);
        if (!same) return 0;
    }
    if (n > 0 && memcmp(S->val, R->val, (size_t)n * sizeof *S->val)) return 0;
    if ((S->chunkruns == NULL) != (R->chunkruns == NULL) || (S->col16 == NULL) != (R->col16 == NULL)) return 0;
    if (S->chunkruns && memcmp(S->chunkruns, R->chunkruns, (size_t)S->nchunks * sizeof *S->chunkruns)) return 0;
    if (S->nruns > 0 && (memcmp(S->runbase, R->runbase, (size_t)S->nruns * sizeof *S->runbase) ||
                         memcmp(S->runmask, R->runmask, (size_t)(S->nruns * mb)))) return 0;
    if (!S->col16) return 1;
    /* 16-bit indices: the chunks' bases, and the indices at the gather positions (the run columns' are not written) */
    for (int32_t k = 0; k < S->nchunks; k++) {
        if (S->colbase[k] != R->colbase[k]) return 0;
        const int64_t p0 = S->chunkptr[k] + (int64_t)(S->chunkruns ? S->chunkruns[k] : 0) * S->C;
        if (S->colbase[k] >= 0 && S->chunkptr[k + 1] > p0 &&
            memcmp(S->col16 + p0, R->col16 + p0, (size_t)(S->chunkptr[k + 1] - p0) * sizeof *S->col16))
            return 0;
    }
    return 1;
}

/* Each allocation failing alone (the ones after it succeed): NOMEM with *S NULL, or the same layout as without a
 * failure where the conversion goes on without an optional array -- pass 1's stored runs (roff, tkey, tmask: pass 2
 * searches the chunks again, with the whole search scratch, instead of replaying them). HPCG 6^3 and a random matrix
 * with run columns asked for, C = 8, 1 and 2 threads. */
static void test_out_of_memory_once(void)
{
    spmv_crs *M[2];
    CU_ASSERT_FATAL(spmv_gen_hpcg(6, 6, 6, &M[0]) == SPMV_OK);
    M[1] = random_crs(300, 300, 9, 77);
    for (int m = 0; m < 2; m++)
        for (int t = 1; t <= 2; t++) {
            spmv_sell_opts o = opts_of(8, 1, 1, 0);
            o.runs = m == 0 ? 6 : 2;
            o.vidx = 0;
            o.idx16 = 1;
            o.nthreads = t;
            spmv_sell *R = NULL;
            spmv__alloc_fail_after(-1);
            CU_ASSERT_FATAL(spmv_sell_from_crs(M[m], &o, &R) == SPMV_OK);
            const long made = spmv__alloc_fail_after(-1);
            CU_ASSERT(R->nruns > 0);
            int went_on = 0, failed = 0;
            for (long n = 0; n < made; n++) {
                spmv_sell *S = (spmv_sell *)1;
                spmv__alloc_fail_only(n);
                spmv_status st = spmv_sell_from_crs(M[m], &o, &S);
                spmv__alloc_fail_after(-1);
                if (st == SPMV_OK) {
                    went_on++;
                    CU_ASSERT(same_layout(S, R));
                    CU_ASSERT(check_sell(M[m], S, &o, NULL) == 0);
                    spmv_sell_free(S);
                } else {
                    failed++;
                    CU_ASSERT(st == SPMV_ERR_NOMEM && S == NULL);
                }
            }
            /* pass 1's stored runs (roff, tkey, tmask) are optional: at least their three failures go on */
            CU_ASSERT(went_on >= 3);
            CU_ASSERT(failed > 0);
            spmv_sell_free(R);
        }
    spmv_crs_free(M[0]);
    spmv_crs_free(M[1]);
}

static void test_out_of_memory(void)
{
    spmv_crs *A = random_crs(90, 90, 7, 61);
    spmv_sell_opts o = opts_of(4, 16, 2, 0);
    oom_sell(A, &o);
    o = opts_of(8, 1000, 1, 1);
    o.nthreads = 2;
    oom_sell(A, &o);
    int32_t p[90], ip[90];
    if (spmv_rcm(A, p, ip) == SPMV_OK) {
        /* rcm path (CXSparse's own allocations are not counted, its failures are not injected) */
        o.rcm = 1;
        long n;
        for (n = 0; n < 200; n++) {
            spmv_sell *S = (spmv_sell *)1;
            spmv__alloc_fail_after(n);
            spmv_status st = spmv_sell_from_crs(A, &o, &S);
            spmv__alloc_fail_after(-1);
            if (st == SPMV_OK) {
                check_sell(A, S, &o, p);
                spmv_sell_free(S);
                break;
            }
            CU_ASSERT(st == SPMV_ERR_NOMEM && S == NULL);
        }
        CU_ASSERT(n < 200);
    }
    spmv_crs *E = random_crs(0, 3, 1, 1);
    o = opts_of(4, 1, 1, 0);
    oom_sell(E, &o);
    spmv_crs_free(E);
    /* value indices (a Laplacian: 2 values and padding): the table and the indices fail too */
    CU_ASSERT_FATAL(spmv_gen_laplace2d(9, 7, &E) == SPMV_OK);
    o = opts_of(4, 1, 1, 0);
    oom_sell(E, &o);
    spmv_crs_free(E);

    /* spmv_crs_permute */
    int32_t perm[90];
    for (int i = 0; i < 90; i++) perm[i] = 89 - i;
    long n;
    for (n = 0; n < 50; n++) {
        spmv_crs *B = (spmv_crs *)1;
        spmv__alloc_fail_after(n);
        spmv_status st = spmv_crs_permute(A, perm, &B);
        spmv__alloc_fail_after(-1);
        if (st == SPMV_OK) {
            spmv_crs_free(B);
            break;
        }
        CU_ASSERT(st == SPMV_ERR_NOMEM && B == NULL);
    }
    CU_ASSERT(n > 0 && n < 50);
    spmv_crs_free(A);
}

/* Value indices (spmv_sell_opts.vidx, CSR-VI): the table's exact contents on small cases, the 16-value limit with and
 * without padding, signed zeros kept apart, the argument check, the traffic, and a multiply equal bit for bit to the
 * one from the plain values. */
static spmv_crs *diag_crs(int32_t n, const double *v)
{
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)n * sizeof *ci);
    double *vv = malloc((size_t)n * sizeof *vv);
    for (int32_t i = 0; i < n; i++) rp[i] = i, ci[i] = i, vv[i] = v[i];
    rp[n] = n;
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_arrays(n, n, rp, ci, vv, &A) == SPMV_OK);
    free(rp), free(ci), free(vv);
    return A;
}

static void test_value_indices(void)
{
    spmv_crs *A = ragged();
    spmv_sell_opts o = opts_of(4, 1, 1, 0);
    spmv_sell *S = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    /* 48 stored for 17 nonzeros: A's values in A's order (its first 4096 seed the table: rows 0, 2, 3, 4 give -1 1 3 2,
     * row 9 gives -3), then padding's 0.0, the one value the chunks add */
    const double want[6] = {-1.0, 1.0, 3.0, 2.0, -3.0, 0.0};
    CU_ASSERT(S->nvals == 6 && memcmp(S->vtab, want, sizeof want) == 0);
    CU_ASSERT(check_sell(A, S, &o, NULL) == 0);
    spmv_sell_free(S);
    o.vidx = 0;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nvals == 0 && S->val8 == NULL && S->vtab == NULL);
    spmv_sell_free(S);
    o.vidx = 2;
    S = (spmv_sell *)1;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_ARG && S == NULL);
    CU_ASSERT(strstr(spmv_last_error(), "opts->vidx") != NULL);
    o.vidx = -2;
    CU_ASSERT(spmv_sell_from_crs(A, &o, &S) == SPMV_ERR_ARG);
    spmv_crs_free(A);

    /* 16 distinct values on a 16 x 16 diagonal: C = 4 stores no padding (16 values: on); C = 3 pads the last chunk
     * (0.0 is the 17th: off); with 15 values and padding: on */
    double v[16];
    for (int i = 0; i < 16; i++) v[i] = i + 1.0;
    A = diag_crs(16, v);
    o = opts_of(4, 1, 1, 0);
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nvals == 16);
    for (int i = 0; i < 16 && S->nvals == 16; i++) CU_ASSERT(S->vtab[i] == i + 1.0 && S->val8[i] == i);
    spmv_sell_free(S);
    o = opts_of(3, 1, 1, 0);
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->stored == 18 && S->nvals == 0 && S->val8 == NULL);
    spmv_sell_free(S);
    spmv_crs_free(A);
    v[15] = 3.0;
    A = diag_crs(16, v);
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nvals == 16 && S->vtab[0] == 1.0 && S->vtab[15] == 0.0); /* padding: the last chunk */
    CU_ASSERT(check_sell(A, S, &o, NULL) == 0);
    spmv_sell_free(S);
    spmv_crs_free(A);

    /* -0.0, 0.0 (explicit) and NaN are values of their own bit patterns: 3 x 3 diagonal, C = 4 (one padding lane,
     * +0.0, shared with the explicit zero); table in A's order */
    const double z[3] = {-0.0, 0.0, NAN};
    A = diag_crs(3, z);
    o = opts_of(4, 1, 1, 0);
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nvals == 3 && signbit(S->vtab[0]) && S->vtab[0] == 0.0 && S->vtab[1] == 0.0 && !signbit(S->vtab[1]) &&
              isnan(S->vtab[2]));
    CU_ASSERT(check_sell(A, S, &o, NULL) == 0);
    spmv_sell_free(S);
    spmv_crs_free(A);

    /* a hybrid SELL: the long row's values are in the CRS part, not in the table. Row 0 holds 1..15 (kept in the CRS
     * part by long_rows = 2), rows 1..8 the value 100 in one or two entries (padding: 0.0): the table is 100, 0.0
     * (seeding it with A's first values instead made 17 and no value indices) */
    {
        int64_t hrp[10];
        int32_t hci[32];
        double hv[32];
        int32_t hn = 0;
        hrp[0] = 0;
        for (int32_t j = 0; j < 15; j++) hci[hn] = j, hv[hn++] = 1.0 + j;
        for (int32_t i = 1; i < 9; i++) {
            hrp[i] = hn;
            hci[hn] = i, hv[hn++] = 100.0;
            if (i % 2) hci[hn] = i + 1, hv[hn++] = 100.0;
        }
        hrp[9] = hn;
        CU_ASSERT_FATAL(spmv_crs_from_arrays(9, 16, hrp, hci, hv, &A) == SPMV_OK);
        o = opts_of(4, 1, 1, 0);
        o.long_rows = 2;
        o.runs = 0;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        const double hw[2] = {100.0, 0.0};
        CU_ASSERT(S->nlong == 1 && S->nvals == 2 && memcmp(S->vtab, hw, sizeof hw) == 0);
        double hx[16], hy[9], hr[9]; /* the product against CRS's (check_sell covers the chunk layout alone) */
        for (int32_t j = 0; j < 16; j++) hx[j] = 1.0 + 0.5 * j;
        CU_ASSERT(spmv_sell_mv(S, 1.0, hx, 0.0, hy) == SPMV_OK && spmv_crs_mv(A, 1.0, hx, 0.0, hr) == SPMV_OK);
        CU_ASSERT(memcmp(hy, hr, sizeof hy) == 0);
        spmv_sell_free(S);
        spmv_crs_free(A);
    }

    /* auto (-1): from 2^18 = 262 144 stored entries (2 MiB of values): SELL-8-1 of laplace2d 256^2 stores
     * 8 x 32 chunks x (254 x 5 + 2 x 4) = 327 168 (padding in the boundary rows: 0.0, 4, -1), of 200^2 199 600 */
    for (int big = 0; big <= 1; big++) {
        CU_ASSERT_FATAL(spmv_gen_laplace2d(big ? 256 : 200, big ? 256 : 200, &A) == SPMV_OK);
        o = spmv_sell_opts_default();
        o.C = 8;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        CU_ASSERT(S->stored == (big ? 327168 : 199600));
        CU_ASSERT(big ? S->nvals == 3 && S->val8 != NULL : S->nvals == 0 && S->val8 == NULL);
        CU_ASSERT(check_sell(A, S, &o, NULL) == 0);
        /* software prefetch (spmv_sell.prefetch): with value indices from 2^18 stored entries, else from 2^21; the
         * value indices dropped by new values take it away again */
        const char *pf = getenv("SPMV_PREFETCH");
        if (!(pf && *pf)) {
            CU_ASSERT_EQUAL(S->prefetch, big);
            if (big) {
                for (int64_t e = 0; e < A->nnz; e++) A->val[e] = 1.0 + (double)(e % 17);
                CU_ASSERT(spmv_sell_update_values(S, A) == SPMV_OK);
                CU_ASSERT(S->nvals == 0 && S->prefetch == 0);
                CU_ASSERT(check_sell(A, S, &o, NULL) == 0);
            }
        }
        spmv_sell_free(S);
        spmv_crs_free(A);
    }

    /* new values (spmv_sell_update_values): a table of the new values while they fit, none after */
    CU_ASSERT_FATAL(spmv_gen_laplace2d(9, 7, &A) == SPMV_OK);
    o = opts_of(8, 1, 1, 0);
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT(S->nvals == 3); /* padding's 0.0, 4, -1 */
    for (int64_t e = 0; e < A->nnz; e++) A->val[e] *= 2.0;
    CU_ASSERT(spmv_sell_update_values(S, A) == SPMV_OK);
    CU_ASSERT(S->nvals == 3);
    {
        int has8 = 0, hasm2 = 0, has0 = 0;
        for (int i = 0; i < S->nvals; i++) has8 |= S->vtab[i] == 8.0, hasm2 |= S->vtab[i] == -2.0, has0 |= S->vtab[i] == 0.0;
        CU_ASSERT(has8 && hasm2 && has0);
    }
    CU_ASSERT(check_sell(A, S, &o, NULL) == 0);
    for (int64_t e = 0; e < A->nnz; e++) A->val[e] = (double)e;
    CU_ASSERT(spmv_sell_update_values(S, A) == SPMV_OK);
    CU_ASSERT(S->nvals == 0 && S->val8 == NULL && S->vtab == NULL);
    spmv_sell_free(S);
    spmv_crs_free(A);

    /* HPCG 12^3 (values 26 and -1): the multiply with value indices equals the plain one bit for bit (the same
     * doubles in the same order), in both vector orders, every alpha/beta path; the declared traffic 7 bytes less
     * per stored entry where the kernel reads the indices */
    CU_ASSERT_FATAL(spmv_gen_hpcg(12, 12, 12, &A) == SPMV_OK);
    const int32_t n = A->rows;
    double *x = malloc((size_t)n * sizeof *x), *y0 = malloc((size_t)n * sizeof *y0);
    double *y1 = malloc((size_t)n * sizeof *y1), *y2 = malloc((size_t)n * sizeof *y2);
    uint64_t seed = 7;
    for (int32_t i = 0; i < n; i++) x[i] = tu_rand_unit(&seed), y0[i] = tu_rand_unit(&seed);
    static const double ab[3][2] = {{1, 0}, {2.5, 0}, {-0.5, 0.75}};
    int same = 1, tested = 0;
    for (int32_t C = 8; C <= 32; C *= 4)
        for (int permuted = 0; permuted <= 1; permuted++) {
            spmv_sell *P = NULL, *V = NULL;
            o = opts_of(C, permuted ? 4 * C : 1, 1, permuted);
            o.vidx = 0;
            CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &P) == SPMV_OK);
            o.vidx = 1;
            CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &V) == SPMV_OK);
            CU_ASSERT(P->nvals == 0 && V->nvals == 2 + (V->stored > A->nnz));
            spmv_traffic tp, tv;
            spmv_kernel_shape kv;
            CU_ASSERT(spmv_sell_traffic(P, &tp) == SPMV_OK && spmv_sell_traffic(V, &tv) == SPMV_OK);
            CU_ASSERT(spmv_sell_kernel_shape(V, &kv) == SPMV_OK);
            CU_ASSERT(fabs(tp.bytes_per_entry - tv.bytes_per_entry - (kv.vidx ? 7.0 : 0.0)) < 1e-12);
            for (int k = 0; k < 3; k++) {
                memcpy(y1, y0, (size_t)n * sizeof *y1);
                memcpy(y2, y0, (size_t)n * sizeof *y2);
                CU_ASSERT(spmv_sell_mv(P, ab[k][0], x, ab[k][1], y1) == SPMV_OK);
                CU_ASSERT(spmv_sell_mv(V, ab[k][0], x, ab[k][1], y2) == SPMV_OK);
                same &= memcmp(y1, y2, (size_t)n * sizeof *y1) == 0;
                tested++;
            }
            spmv_sell_free(P), spmv_sell_free(V);
        }
    CU_ASSERT(same && tested == 12);
    if (!same) printf("\n  value indices: the multiply differs from the plain values' (kernel of this family)");
    free(x), free(y0), free(y1), free(y2);
    spmv_crs_free(A);
}

/* matrices/tiny/sell_example.mtx: the numbers worked out by hand in its comment lines */
static void test_tiny_example(void)
{
    spmv_crs *A = NULL;
    spmv_sell *S = NULL;
    spmv_status st = spmv_crs_read_mm(SPMV_SOURCE_DIR "/matrices/tiny/sell_example.mtx", &A);
    if (st == SPMV_ERR_UNSUPPORTED) { /* built without SuiteSparse */
        tu_skip("sell_example.mtx: %s", spmv_last_error());
        return;
    }
    CU_ASSERT_EQUAL_FATAL(st, SPMV_OK);
    CU_ASSERT_EQUAL(A->nnz, 12);
    const double x[6] = {1, 2, 3, 4, 5, 6}, want[6] = {7, 23, 5, 43, 0, 13};
    double y[6];
    const struct { int32_t sigma, chunklen[3], stored, perm[6]; } cases[] = {
        {1, {4, 3, 2}, 18, {0, 1, 2, 3, 4, 5}},
        {6, {4, 2, 1}, 14, {1, 3, 0, 5, 2, 4}},
    };
    for (int c = 0; c < 2; c++) {
        spmv_sell_opts o = spmv_sell_opts_default();
        o.C = 2;
        o.sigma = cases[c].sigma;
        CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &o, &S), SPMV_OK);
        CU_ASSERT_EQUAL(S->nchunks, 3);
        for (int k = 0; k < 3; k++) CU_ASSERT_EQUAL(S->chunklen[k], cases[c].chunklen[k]);
        CU_ASSERT_EQUAL(S->stored, cases[c].stored);
        CU_ASSERT_DOUBLE_EQUAL(spmv_sell_beta(S), 12.0 / cases[c].stored, 1e-15);
        for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(S->perm[i], cases[c].perm[i]);
        CU_ASSERT_EQUAL(spmv_sell_mv(S, 1.0, x, 0.0, y), SPMV_OK);
        for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(y[i], want[i]);
        spmv_sell_free(S);
    }
    spmv_crs_free(A);
}

/* Chunks that store nothing: col and val are never NULL (nor runbase where chunkruns is set), so that the kernels'
 * chunk pointers (val + chunkptr[k], runbase + runptr[k]) are defined (UBSan: "applying zero offset to null pointer"
 * in sell_avx512.c and sell_avx2.c, scripts/test-sanitize.sh); the products stay right. One dense row in the CRS
 * part and empty chunks, all rows empty, and run columns asked for where none is found. */
static void test_empty_chunks(void)
{
    enum { N = 40 };
    int64_t rp[N + 1];
    int32_t col[N];
    double val[N], x[N], y[N], want[N];
    for (int i = 0; i <= N; i++) rp[i] = N; /* row 0 dense, the others empty */
    rp[0] = 0;
    for (int j = 0; j < N; j++) col[j] = j, val[j] = j + 1.0, x[j] = 1.0 / (j + 1);
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_arrays(N, N, rp, col, val, &A) == SPMV_OK);
    for (int C = 4; C <= 32; C *= 2) {
        spmv_sell_opts o = spmv_sell_opts_default();
        o.C = C;
        o.long_rows = 8; /* row 0 (40 entries) goes to the CRS part: the chunks hold only empty rows */
        o.runs = 1;      /* run detection on: chunkruns set, no run column found */
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        CU_ASSERT(S->nlong >= 1 && S->chunkptr[S->nchunks] == 0 && S->stored == N);
        CU_ASSERT(S->col != NULL && S->val != NULL);
        CU_ASSERT(!S->chunkruns || S->runbase != NULL);
        CU_ASSERT(!S->chunkruns || S->chunkfull != NULL);
        for (int i = 0; i < N; i++) y[i] = want[i] = i;
        want[0] = 0.5 * 0 + 2.0 * N; /* sum_j (j + 1) / (j + 1) = N, times alpha 2; y[i] *= 0.5 elsewhere */
        for (int i = 1; i < N; i++) want[i] *= 0.5;
        CU_ASSERT(spmv_sell_mv(S, 2.0, x, 0.5, y) == SPMV_OK);
        for (int i = 0; i < N; i++) CU_ASSERT_DOUBLE_EQUAL(y[i], want[i], 1e-12);
        spmv_crs *B = NULL;
        CU_ASSERT_FATAL(spmv_sell_to_crs(S, &B) == SPMV_OK);
        CU_ASSERT(B->nnz == N && B->rowptr[1] == N);
        spmv_crs_free(B);
        spmv_sell_free(S);
    }
    spmv_crs_free(A);
    /* all rows empty, with and without run detection */
    int64_t rz[N + 1] = {0};
    spmv_crs *Z = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_arrays(N, N, rz, col, val, &Z) == SPMV_OK);
    for (int runs = 0; runs <= 1; runs++) {
        spmv_sell_opts o = spmv_sell_opts_default();
        o.C = 8;
        o.runs = runs;
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(Z, &o, &S) == SPMV_OK);
        CU_ASSERT(S->stored == 0 && S->col != NULL && S->val != NULL);
        CU_ASSERT(!S->chunkruns || S->runbase != NULL);
        for (int i = 0; i < N; i++) y[i] = i;
        CU_ASSERT(spmv_sell_mv(S, 1.0, x, 0.0, y) == SPMV_OK);
        for (int i = 0; i < N; i++) CU_ASSERT(y[i] == 0.0);
        spmv_crs *B = NULL;
        CU_ASSERT_FATAL(spmv_sell_to_crs(S, &B) == SPMV_OK);
        CU_ASSERT(B->nnz == 0 && B->rows == N);
        spmv_crs_free(B);
        spmv_sell_free(S);
    }
    spmv_crs_free(Z);
}

/* Run detection takes its candidate keys in batches of at most 255 (sell.c, SELL_RUN_BATCH): chunks whose pivot
 * lanes hold far more keys -- 400 random columns per row -- around 60 bands of consecutive columns (runs, some with
 * lanes missing) must give exactly the runs of the brute-force count in check_sell, for C = 8..64, sigma 1 and a
 * sort, and the same CRS back. */
static void test_runs_many_keys(void)
{
    const int32_t rows = 150, cols = 200000, nrand = 400, nband = 60;
    const int64_t cap = (int64_t)rows * (nrand + nband);
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    CU_ASSERT_FATAL(ri && ci && v);
    uint64_t seed = 77;
    int64_t n = 0;
    for (int32_t i = 0; i < rows; i++) {
        for (int32_t k = 0; k < nrand; k++, n++) {
            ri[n] = i;
            ci[n] = (int32_t)(tu_rand(&seed) % (uint64_t)cols);
            v[n] = tu_rand_unit(&seed);
        }
        for (int32_t j = 0; j < nband; j++) {
            if ((i * 7 + j * 3) % 11 == 0) continue; /* a lane missing from this band: a partial run */
            ri[n] = i;
            ci[n] = 3000 * j + i; /* band j: consecutive columns in consecutive rows */
            v[n] = tu_rand_unit(&seed);
            n++;
        }
    }
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_coo(rows, cols, n, ri, ci, v, 0, &A) == SPMV_OK);
    free(ri);
    free(ci);
    free(v);
    const int32_t Cs[] = {8, 16, 32, 64}, sigmas[] = {1, 150};
    int bad = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 2; b++) {
            spmv_sell_opts o = opts_of(Cs[a], sigmas[b], 1, 0);
            o.max_stored_factor = 0;
            o.runs = (3 * Cs[a] + 3) / 4; /* auto's threshold, asked for: the bands hold 13 % of the entries, which
                                            auto leaves without runs below C = 32 (test_runs_sampled) */
            char what[64];
            snprintf(what, sizeof what, "many keys C=%d sigma=%d", Cs[a], sigmas[b]);
            bad += build_check_roundtrip(A, &o, what);
            spmv_sell *S = NULL;
            CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
            if (sigmas[b] == 1) CU_ASSERT(S->nruns > 0); /* the bands are found (a sort scatters them) */
            spmv_sell_free(S);
        }
    CU_ASSERT(bad == 0);
    spmv_crs_free(A);
}

/* Automatic run columns (spmv_sell_opts.runs = -1, SELL_RUN_LANES in sell.c, SPMV_SELL_RUN_CHUNK_MIN in kernel.h): none
 * unless the sampled chunks (an eighth, 16 to 256) hold at least max(10 %, 320 % / C) of their entries and 16
 * entries per chunk in run columns: 40 % for C = 8, 10 % for C = 32. Rows of ndiag diagonals (columns i .. i + ndiag - 1, those below
 * `rows`) and nrand random columns: each diagonal is a full run column of every chunk but the last, ndiag / (ndiag +
 * nrand) of the entries, C ndiag per chunk (random columns never make a run of ceil(3C/4) lanes here; a duplicate of
 * a diagonal only raises the share). every8 > 0: the diagonals only in every 8th block of every8 rows. */
static spmv_crs *diag_random(int32_t rows, int32_t ndiag, int32_t nrand, int32_t every8, uint64_t seed)
{
    const int64_t cap = (int64_t)rows * (ndiag + nrand);
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    CU_ASSERT_FATAL(ri && ci && v);
    int64_t n = 0;
    for (int32_t i = 0; i < rows; i++) {
        for (int32_t d = 0; d < ndiag && i + d < rows && (every8 == 0 || i / every8 % 8 == 0); d++)
            ri[n] = i, ci[n] = i + d, v[n++] = 4.0 - d;
        for (int32_t k = 0; k < nrand; k++, n++) {
            ri[n] = i;
            ci[n] = (int32_t)(tu_rand(&seed) % (uint64_t)rows);
            v[n] = tu_rand_unit(&seed);
        }
    }
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_coo(rows, rows, n, ri, ci, v, 0, &A) == SPMV_OK);
    free(ri), free(ci), free(v);
    return A;
}

static void test_runs_sampled(void)
{
    /* C, rows, diagonals, random columns per row, and whether auto keeps the runs: around 40 % at C = 8 (3 of 6
     * kept, 3 of 9 dropped; 1 of 2, half the entries but 8 per chunk, dropped) and 10 % at C = 32 (1 of 8 kept, 1 of
     * 16 dropped), on a matrix of 2048 chunks (256 sampled) and on small ones (16 of 64 sampled; 16 of 16: all) */
    const struct {
        int32_t C, rows, ndiag, nrand, every8;
        int kept;
    } cases[] = {{8, 16384, 3, 3, 0, 1}, {8, 16384, 3, 6, 0, 0}, {8, 16384, 1, 1, 0, 0}, {8, 512, 3, 3, 0, 1},
                 {8, 512, 3, 6, 0, 0},   {8, 512, 1, 1, 0, 0},   {8, 128, 3, 3, 0, 1},   {8, 128, 3, 6, 0, 0},
                 {32, 65536, 1, 7, 0, 1}, {32, 65536, 1, 15, 0, 0}, {32, 2048, 1, 7, 0, 1}, {32, 2048, 1, 15, 0, 0},
                 /* diagonals in every 8th chunk only (8 % of the entries): a sample of every 8th chunk from the
                  * first would see 67 % */
                 {8, 16384, 6, 3, 8, 0}, {8, 1024, 6, 3, 8, 0}};
    const int n = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < n; c++) {
        spmv_crs *A = diag_random(cases[c].rows, cases[c].ndiag, cases[c].nrand, cases[c].every8, 99 + (uint64_t)c);
        spmv_sell_opts o = opts_of(cases[c].C, 1, 1, 0);
        o.vidx = 0;
        const int32_t T = (3 * cases[c].C + 3) / 4;
        char what[96];
        snprintf(what, sizeof what, "C=%d %d diagonals%s + %d random, %d rows", cases[c].C, cases[c].ndiag,
                 cases[c].every8 ? " (every 8th chunk)" : "", cases[c].nrand, cases[c].rows);
        CU_ASSERT(build_check_roundtrip(A, &o, what) == 0);
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        CU_ASSERT(S->nchunks == cases[c].rows / cases[c].C);
        if (cases[c].kept) {
            CU_ASSERT(S->runs == T && S->nruns >= S->nchunks && S->chunkruns != NULL);
        } else {
            CU_ASSERT(S->runs == 0 && S->nruns == 0 && S->chunkruns == NULL);
        }
        /* the sample's figures, as SPMV_VERBOSE reports them: the diagonals' share (at least: a random column on a
         * diagonal only raises it) and C ndiag entries per chunk (the last chunk's last rows miss a few) */
        const double share = (double)cases[c].ndiag / (double)(cases[c].ndiag + cases[c].nrand);
        CU_ASSERT(S->run_sample_share >= (cases[c].every8 ? 0.0 : share - 0.01) && S->run_sample_share <= 1.0);
        if (!cases[c].every8)
            CU_ASSERT(S->run_sample_per_chunk > cases[c].C * cases[c].ndiag - 1.0 &&
                      S->run_sample_per_chunk <= cases[c].C * cases[c].ndiag + 0.5);
        if ((S->nruns > 0) != cases[c].kept)
            printf("\n  %s: nruns %lld, expected %s", what, (long long)S->nruns, cases[c].kept ? "runs" : "none");
        spmv_sell_free(S);
        o.runs = T; /* asked for: searched whatever the sample says */
        CU_ASSERT(build_check_roundtrip(A, &o, what) == 0);
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        CU_ASSERT(S->runs == T && S->nruns >= S->nchunks / (cases[c].every8 ? 8 : 1));
        CU_ASSERT(S->run_sample_share == -1.0 && S->run_sample_per_chunk == -1.0); /* no sample taken */
        spmv_sell_free(S);
        spmv_crs_free(A);
    }
}

/* Non-temporal y stores: auto (the default, -1) asks for them from SPMV_NT_AUTO_BYTES of y on, exactly; 0 and 1
 * as given; other values refused; the kernel chosen has them ("-nt") where the family has such a kernel and y is
 * indexed directly (sigma = 1 here: an identity perm), none in the original order with a real perm; the product
 * is exact (a diagonal). SPMV_SELL_NT overrides the choice, so the test runs without it. */
static void test_nt_auto(void)
{
    const char *env = getenv("SPMV_SELL_NT");
    if (env && *env) {
        CU_PASS("SPMV_SELL_NT is set: it overrides the rule under test");
        return;
    }
    const int32_t big = (int32_t)(SPMV_NT_AUTO_BYTES / (int64_t)sizeof(double)); /* 2^21 rows: 16 MiB of y */
    int64_t *rp = malloc(((size_t)big + 1) * sizeof *rp);
    int32_t *col = malloc((size_t)big * sizeof *col);
    double *val = malloc((size_t)big * sizeof *val), *x = NULL, *y = NULL;
    CU_ASSERT_FATAL(rp && col && val);
    for (int32_t i = 0; i < big; i++) {
        rp[i] = i;
        col[i] = i;
        val[i] = 1.0 + (i % 5);
    }
    rp[big] = big;
    CU_ASSERT_FATAL(spmv_vec_alloc(big, &x) == SPMV_OK && spmv_vec_alloc(big, &y) == SPMV_OK);
    for (int32_t i = 0; i < big; i++) x[i] = (double)(i % 7);
    struct {
        int32_t rows, sigma;
        int nt_opt, want;
    } cases[] = {{big, 1, -1, 1}, {big - 1, 1, -1, 0}, {big, 1, 0, 0}, {1000, 1, 1, 1}, {big, 1, 2, -1},
                 {big, 1, -2, -1}, {big, 64, -1, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spmv_crs *A = NULL; /* the first `rows` rows and columns of the diagonal */
        CU_ASSERT_FATAL(spmv_crs_wrap(cases[c].rows, cases[c].rows, rp, col, val, &A) == SPMV_OK);
        spmv_sell_opts o = spmv_sell_opts_default();
        CU_ASSERT(o.nt_stores == -1);
        o.C = 8;
        o.sigma = cases[c].sigma;
        o.nt_stores = cases[c].nt_opt;
        spmv_sell *S = NULL;
        spmv_status st = spmv_sell_from_crs(A, &o, &S);
        if (cases[c].want < 0) {
            CU_ASSERT(st == SPMV_ERR_ARG && S == NULL);
            CU_ASSERT(strstr(spmv_last_error(), "opts->nt_stores") != NULL);
        } else {
            CU_ASSERT_FATAL(st == SPMV_OK);
            CU_ASSERT(S->nt_stores == cases[c].want);
            /* sigma = 64 sorts nothing here (all rows of length 1): a sort that moves no row is the identity */
            const int direct = S->permuted || S->identity;
            CU_ASSERT(direct);
            spmv_arch a;
            CU_ASSERT_FATAL(spmv_arch_get(&a) == SPMV_OK);
            const int has_nt = a == SPMV_ARCH_AVX512 || a == SPMV_ARCH_AVX2;
            CU_ASSERT((strstr(spmv_sell_kernel_name(S), "-nt") != NULL) == (has_nt && cases[c].want && direct));
            CU_ASSERT(spmv_sell_mv(S, 1.0, x, 0.0, y) == SPMV_OK);
            int64_t bad = 0;
            for (int32_t i = 0; i < cases[c].rows; i++) bad += y[i] != (1.0 + (i % 5)) * (double)(i % 7);
            CU_ASSERT(bad == 0);
            spmv_sell_free(S);
        }
        spmv_crs_free(A);
    }
    spmv_vec_free(x);
    spmv_vec_free(y);
    free(rp);
    free(col);
    free(val);
}

/* The x86 lean loop's sample (spmv__sell_lean_wanted, kernel.h) on a grid whose period a fixed stride hits: laplace2d
 * 2000 x 64, SELL-8-1: a grid row is 250 chunks, and its first and last chunk are not full (lane 0 has no left
 * neighbour, lane 7 no right one): 128 of 16 000 chunks. A stride of 16 000 / 32 = 500 chunks sampled only grid rows'
 * first chunks (0 of 32 full). Halves and quarters of the chunks (thread ranges) too; a grid of 8 columns (every
 * chunk a grid row) has no full chunk and no lean loop. */
static void test_lean_sample(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_gen_laplace2d(2000, 64, &A) == SPMV_OK);
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = 8;
    o.sigma = 1;
    o.runs = 6;
    spmv_sell *S = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(S->nchunks, 16000);
    CU_ASSERT_FATAL(S->chunkruns != NULL && SPMV_SELL_DIRECT(S));
    int32_t full = 0;
    for (int32_t k = 0; k < S->nchunks; k++) full += S->chunkfull[k] == S->chunklen[k];
    CU_ASSERT_EQUAL(full, 16000 - 128);
    CU_ASSERT_EQUAL(spmv__sell_lean_wanted(S, 0, S->nchunks, SPMV_SELL_LEAN_LEN), 1);
    for (int parts = 2; parts <= 4; parts *= 2)
        for (int p = 0; p < parts; p++)
            CU_ASSERT_EQUAL(spmv__sell_lean_wanted(S, S->nchunks / parts * p, S->nchunks / parts * (p + 1),
                                                   SPMV_SELL_LEAN_LEN), 1);
    CU_ASSERT_EQUAL(spmv__sell_lean_wanted(S, 0, S->nchunks, 3), 0); /* chunks longer than maxlen */
    CU_ASSERT_EQUAL(spmv__sell_lean_wanted(S, 250, 251, SPMV_SELL_LEAN_LEN), 0); /* a grid row's first chunk */
    CU_ASSERT_EQUAL(spmv__sell_lean_wanted(S, 251, 260, SPMV_SELL_LEAN_LEN), 1);
    spmv_sell_free(S);
    spmv_crs_free(A);
    CU_ASSERT_FATAL(spmv_gen_laplace2d(8, 2000, &A) == SPMV_OK);
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    full = 0;
    for (int32_t k = 0; k < S->nchunks; k++) full += S->chunkfull[k] == S->chunklen[k];
    CU_ASSERT_EQUAL(full, 0);
    CU_ASSERT_EQUAL(spmv__sell_lean_wanted(S, 0, S->nchunks, SPMV_SELL_LEAN_LEN), 0);
    spmv_sell_free(S);
    spmv_crs_free(A);
}

/* spmv_sell_chunk_columns: the 16-bit indices decode to the 32-bit conversion's col at every gather position (the same
 * matrix and options but idx16), run columns to base + lane, and bad arguments are refused. HPCG 4^3 with C = 8 and
 * run columns on (each chunk: run columns, then a few gather columns at the grid's edges). */
static void test_chunk_columns(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_gen_hpcg(4, 4, 4, &A) == SPMV_OK);
    spmv_sell_opts o = opts_of(8, 1, 1, 0);
    o.runs = 6;
    o.idx16 = 0;
    spmv_sell *S32 = NULL, *S16 = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S32) == SPMV_OK);
    o.idx16 = 1;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S16) == SPMV_OK);
    CU_ASSERT_FATAL(S32->nruns > 0 && S16->nidx16 > 0 && S16->nruns == S32->nruns);
    int32_t c32[8 * 64], c16[8 * 64];
    int64_t gather = 0, runlanes = 0;
    for (int32_t k = 0; k < S32->nchunks; k++) {
        const int64_t p0 = S32->chunkptr[k], n = S32->chunkptr[k + 1] - p0, g0 = (int64_t)S32->chunkruns[k] * 8;
        CU_ASSERT_FATAL(n <= 8 * 64 && S16->chunkptr[k] == p0);
        CU_ASSERT(spmv_sell_chunk_columns(S32, k, c32) == SPMV_OK);
        CU_ASSERT(spmv_sell_chunk_columns(S16, k, c16) == SPMV_OK);
        CU_ASSERT(memcmp(c32, c16, (size_t)n * sizeof *c32) == 0);
        for (int64_t q = g0; q < n; q++, gather++) CU_ASSERT(c32[q] == S32->col[p0 + q]);
        for (int64_t q = 0; q < g0; q++) {
            const int32_t j = (int32_t)(q / 8), r = (int32_t)(q % 8);
            const int64_t run = S32->runptr[k] + j;
            if (S32->runmask[run] >> r & 1) {
                CU_ASSERT(c32[q] == S32->runbase[run] + r);
                runlanes++;
            }
        }
    }
    CU_ASSERT(gather > 0 && runlanes > 0);
    CU_ASSERT(spmv_sell_chunk_columns(NULL, 0, c32) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_sell_chunk_columns(S16, -1, c32) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_sell_chunk_columns(S16, S16->nchunks, c32) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "outside 0..") != NULL);
    CU_ASSERT(spmv_sell_chunk_columns(S16, 0, NULL) == SPMV_ERR_ARG);
    CU_ASSERT(strstr(spmv_last_error(), "cols is NULL") != NULL);
    spmv_sell_free(S32);
    spmv_sell_free(S16);
    spmv_crs_free(A);
}

int main(void)
{
    tu_suite("sell", (tu_case[]){{"defaults", test_defaults},
                                 {"hand-computed example (sell_ragged)", test_hand_example},
                                 {"tiny hand-made file (matrices/tiny)", test_tiny_example},
                                 {"sigma = 1 and sigma >= rows, C > rows", test_sigma_extremes},
                                 {"CRS -> SELL -> CRS, generated", test_roundtrip_generated},
                                 {"CRS -> SELL -> CRS, shared matrices", test_roundtrip_shared},
                                 {"permuted = P A P^T", test_permuted_is_PAPt},
                                 {"RCM + sigma", test_rcm},
                                 {"permute/unpermute vectors", test_permute_vec},
                                 {"set_threads, beta, padding", test_set_threads_and_stats},
                                 {"lines of y shared by parts", test_yshared},
                                 {"argument errors", test_arg_errors},
                                 {"out of memory", test_out_of_memory},
                                 {"out of memory, one allocation alone (optional arrays)", test_out_of_memory_once},
                                 {"chunks that store nothing (col, val, runbase not NULL)", test_empty_chunks},
                                 {"non-temporal y stores: auto from 16 MiB of y", test_nt_auto},
                                 {"run detection with more candidate keys than a batch", test_runs_many_keys},
                                 {"automatic run columns: only where a sample says they pay", test_runs_sampled},
                                 {"value indices (CSR-VI)", test_value_indices},
                                 {"the lean loop's sample of full run-column chunks", test_lean_sample},
                                 {"every position's column (spmv_sell_chunk_columns)", test_chunk_columns},
                                 {NULL, NULL}});
    tu_suite("perm", (tu_case[]){{"spmv_crs_permute", test_crs_permute}, {NULL, NULL}});
    return tu_run();
}
