/* SELL-C-sigma: construction from CRS, conversion back, thread partition, vector reordering.
 *
 * Format: Kreutzer, Hager, Wellein, Fehske, Bishop, "A unified sparse matrix data format for efficient general
 * sparse matrix-vector multiplication on modern processors with wide SIMD units", SIAM J. Sci. Comput. 36(5), 2014.
 * Rows are sorted by descending length inside windows of sigma rows (stable, so the permutation is deterministic),
 * grouped in chunks of C rows, each chunk padded to its longest row (rounded up to a multiple of unroll) and stored
 * column-major: entry j of lane r of chunk k is at chunkptr[k] + j*C + r.
 *
 * Padding entries have value 0 and a column index their own row already uses (its last column), or, for an empty
 * row (including the lanes past `rows` in the last chunk), the column of the chunk's longest row at the same
 * position j: a gather on padding never touches a cache line the chunk did not touch anyway.
 *
 * The multiply (spmv_sell_mv), the traffic declaration and the kernel names live in src/kernels/driver.c. */
#include "internal.h"
#include "tune/tune.h"
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many stored entries (256 KiB of values) the arrays are filled by one thread: first touch cannot matter
 * and starting a team costs more than the copy. */
#define SELL_PARALLEL_MIN ((int64_t)1 << 15)

spmv_sell_opts spmv_sell_opts_default(void)
{
    spmv_sell_opts o;
    o.C = 32;
    o.sigma = 1;
    o.unroll = 1;
    o.permuted = 0;
    o.nt_stores = 0;
    o.rcm = 0;
    o.nthreads = 0;
    return o;
}

void spmv_sell_free(spmv_sell *S)
{
    if (!S) return;
    spmv__free(S->chunkptr);
    spmv__free(S->chunklen);
    spmv__free(S->col);
    spmv__free(S->val);
    spmv__free(S->rowlen);
    spmv__free(S->perm);
    spmv__free(S->iperm);
    spmv__free(S->part);
    spmv__free(S);
}

/* Sort key for the sigma-sort: descending length, ties by position in the incoming order (= stable sort). */
typedef struct sell_key {
    int32_t len;
    int32_t pos;
} sell_key;

static int sell_key_cmp(const void *a, const void *b)
{
    const sell_key *x = a, *y = b;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Fill chunk k of S from A (columns mapped through cmap when not NULL). */
static void sell_fill_chunk(spmv_sell *S, const spmv_crs *A, const int32_t *cmap, int32_t k)
{
    const int32_t C = S->C, L = S->chunklen[k];
    const int64_t base = S->chunkptr[k];
    const int64_t r0 = (int64_t)k * C;
    if (L == 0) return;

    /* the lane of the chunk's longest row (first one on ties); lanes past rows count as empty */
    int32_t best = 0, bestlen = -1;
    for (int32_t r = 0; r < C; r++) {
        int64_t i = r0 + r;
        int32_t len = i < S->rows ? S->rowlen[i] : 0;
        if (len > bestlen) {
            bestlen = len;
            best = r;
        }
    }

    /* non-empty lanes: the row's entries, then padding with the row's last column */
    for (int32_t r = 0; r < C; r++) {
        int64_t i = r0 + r;
        if (i >= S->rows) break;
        int32_t n = S->rowlen[i];
        if (n == 0) continue;
        int64_t src = A->rowptr[S->perm[i]];
        int32_t last = 0;
        for (int32_t j = 0; j < n; j++) {
            int32_t c = A->col[src + j];
            if (cmap) c = cmap[c];
            S->col[base + (int64_t)j * C + r] = c;
            S->val[base + (int64_t)j * C + r] = A->val[src + j];
            last = c;
        }
        for (int32_t j = n; j < L; j++) {
            S->col[base + (int64_t)j * C + r] = last;
            S->val[base + (int64_t)j * C + r] = 0.0;
        }
    }

    /* empty lanes (and lanes past rows): the longest row's column at the same position */
    for (int32_t r = 0; r < C; r++) {
        int64_t i = r0 + r;
        if (i < S->rows && S->rowlen[i] > 0) continue;
        for (int32_t j = 0; j < L; j++) {
            S->col[base + (int64_t)j * C + r] = S->col[base + (int64_t)j * C + best];
            S->val[base + (int64_t)j * C + r] = 0.0;
        }
    }
}

/* Chunk partition for nparts threads: a new part array, balanced by stored entries. */
static spmv_status sell_partition(const spmv_sell *S, int nthreads, const char *fn, int32_t **part_out,
                                  int32_t *nparts_out)
{
    if (nthreads < 0 || nthreads > SPMV_MAX_THREADS)
        return spmv__error(SPMV_ERR_ARG, "%s: nthreads = %d outside 0..%d", fn, nthreads, SPMV_MAX_THREADS);
    int32_t nparts = nthreads > 0 ? nthreads : spmv__auto_threads(S->stored);
    if (nparts < 1) nparts = 1;
    int32_t *part = spmv__malloc(((size_t)nparts + 1) * sizeof *part);
    if (!part) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for a partition of %d parts", fn, nparts);
    spmv__partition(S->chunkptr, S->nchunks, nparts, part);
    *part_out = part;
    *nparts_out = nparts;
    return SPMV_OK;
}

spmv_status spmv_sell_from_crs(const spmv_crs *A, const spmv_sell_opts *opts, spmv_sell **Sout)
{
    static const char fn[] = "spmv_sell_from_crs";
    if (!Sout) return spmv__error(SPMV_ERR_ARG, "%s: argument S is NULL", fn);
    *Sout = NULL;
    if (!A) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    if (!opts) return spmv__error(SPMV_ERR_ARG, "%s: argument opts is NULL", fn);
    /* C = 0 or sigma = 0: the recorded choice for a matching matrix, else the model's default (src/tune) */
    spmv_sell_opts auto_opts;
    if ((opts->C == 0 || opts->sigma == 0) && opts->C >= 0 && opts->sigma >= 0) {
        auto_opts = *opts;
        spmv_status ast = spmv__sell_auto_params(A, &auto_opts);
        if (ast != SPMV_OK) return ast;
        opts = &auto_opts;
    }
    if (opts->C < 1) return spmv__error(SPMV_ERR_ARG, "%s: opts->C = %d, the chunk height must be >= 1", fn, opts->C);
    if (opts->sigma < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->sigma = %d, the sorting window must be >= 1", fn, opts->sigma);
    if (opts->unroll < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->unroll = %d, must be >= 1", fn, opts->unroll);
    if (opts->nthreads < 0 || opts->nthreads > SPMV_MAX_THREADS)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->nthreads = %d outside 0..%d", fn, opts->nthreads,
                           SPMV_MAX_THREADS);
    if (A->rows < 0 || A->cols < 0)
        return spmv__error(SPMV_ERR_ARG, "%s: A is %d x %d (negative size)", fn, A->rows, A->cols);
    if (!A->rowptr) return spmv__error(SPMV_ERR_ARG, "%s: A->rowptr is NULL", fn);
    if (A->nnz > 0 && (!A->col || !A->val))
        return spmv__error(SPMV_ERR_ARG, "%s: A->col or A->val is NULL with nnz = %lld", fn, (long long)A->nnz);
    if (opts->rcm && A->rows != A->cols)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->rcm needs a square matrix, A is %d x %d", fn, A->rows, A->cols);

    const int32_t rows = A->rows, C = opts->C;
    const int square = A->rows == A->cols;
    spmv_status st = SPMV_OK;
    int32_t *order = NULL, *order_inv = NULL; /* RCM order (perm, iperm) */
    sell_key *keys = NULL;
    int32_t *cmap = NULL;

    spmv_sell *S = spmv__calloc(1, sizeof *S);
    if (!S) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the matrix struct", fn);
    S->rows = rows;
    S->cols = A->cols;
    S->C = C;
    S->sigma = opts->sigma < rows ? opts->sigma : (rows > 0 ? rows : 1);
    S->nchunks = (int32_t)(((int64_t)rows + C - 1) / C);
    S->unroll = opts->unroll;
    S->permuted = opts->permuted ? 1 : 0;
    S->nt_stores = opts->nt_stores ? 1 : 0;
    S->nnz = A->nnz;

    const size_t nrows = (size_t)rows, nch = (size_t)S->nchunks;
    S->chunkptr = spmv__malloc((nch + 1) * sizeof *S->chunkptr);
    S->chunklen = spmv__malloc(nch * sizeof *S->chunklen);
    S->rowlen = spmv__malloc(nrows * sizeof *S->rowlen);
    S->perm = spmv__malloc(nrows * sizeof *S->perm);
    S->iperm = spmv__malloc(nrows * sizeof *S->iperm);
    keys = spmv__malloc(nrows * sizeof *keys);
    if (!S->chunkptr || (nch && !S->chunklen) || (nrows && (!S->rowlen || !S->perm || !S->iperm || !keys))) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the row arrays of %d rows", fn, rows);
        goto fail;
    }

    /* incoming order: identity, or RCM */
    if (opts->rcm && rows > 0) {
        order = spmv__malloc(nrows * sizeof *order);
        order_inv = spmv__malloc(nrows * sizeof *order_inv);
        if (!order || !order_inv) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the RCM permutation", fn);
            goto fail;
        }
        st = spmv_rcm(A, order, order_inv);
        if (st != SPMV_OK) goto fail; /* spmv_rcm recorded the message */
    }

    /* sigma-sort: stable descending length inside windows of sigma rows of the incoming order */
    for (int64_t w0 = 0; w0 < rows; w0 += S->sigma) {
        int64_t w1 = w0 + S->sigma < rows ? w0 + S->sigma : rows;
        for (int64_t p = w0; p < w1; p++) {
            int32_t orig = order ? order[p] : (int32_t)p;
            keys[p].len = (int32_t)(A->rowptr[orig + 1] - A->rowptr[orig]);
            keys[p].pos = (int32_t)p;
        }
        if (S->sigma > 1) qsort(keys + w0, (size_t)(w1 - w0), sizeof *keys, sell_key_cmp);
    }
    for (int32_t i = 0; i < rows; i++) {
        int32_t orig = order ? order[keys[i].pos] : keys[i].pos;
        S->perm[i] = orig;
        S->iperm[orig] = i;
        S->rowlen[i] = keys[i].len;
    }
    spmv__free(keys);
    keys = NULL;
    spmv__free(order);
    spmv__free(order_inv);
    order = order_inv = NULL;

    /* chunk lengths and offsets */
    S->chunkptr[0] = 0;
    for (int32_t k = 0; k < S->nchunks; k++) {
        int64_t r0 = (int64_t)k * C, r1 = r0 + C < rows ? r0 + C : rows;
        int64_t len = 0;
        for (int64_t i = r0; i < r1; i++)
            if (S->rowlen[i] > len) len = S->rowlen[i];
        len = (len + S->unroll - 1) / S->unroll * S->unroll;
        if (len > INT32_MAX) {
            st = spmv__error(SPMV_ERR_OVERFLOW, "%s: chunk %d is %lld columns wide after rounding to unroll = %d",
                             fn, k, (long long)len, S->unroll);
            goto fail;
        }
        S->chunklen[k] = (int32_t)len;
        int64_t add = len * C;
        if (S->chunkptr[k] > INT64_MAX - add) {
            st = spmv__error(SPMV_ERR_OVERFLOW, "%s: stored entries exceed 64-bit offsets at chunk %d", fn, k);
            goto fail;
        }
        S->chunkptr[k + 1] = S->chunkptr[k] + add;
    }
    S->stored = S->chunkptr[S->nchunks];

    st = sell_partition(S, opts->nthreads, fn, &S->part, &S->nparts);
    if (st != SPMV_OK) goto fail;

    /* column map for the symmetric permutation A' = P A P^T (square matrices only) */
    if (S->permuted && square && rows > 0) {
        cmap = S->iperm;
    }

    if ((uint64_t)S->stored > SIZE_MAX / sizeof(double)) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: %lld stored entries do not fit in memory", fn, (long long)S->stored);
        goto fail;
    }
    S->col = spmv__malloc((size_t)S->stored * sizeof *S->col);
    S->val = spmv__malloc((size_t)S->stored * sizeof *S->val);
    if (S->stored > 0 && (!S->col || !S->val)) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %lld stored entries", fn, (long long)S->stored);
        goto fail;
    }

    /* first touch: thread t writes the chunks it multiplies, [part[t], part[t+1]) */
    if (S->stored > 0) {
        const int32_t nparts = S->nparts;
#pragma omp parallel num_threads(nparts) if (nparts > 1 && S->stored >= SELL_PARALLEL_MIN)
        {
#ifdef _OPENMP
            int32_t t0 = omp_get_thread_num(), nt = omp_get_num_threads();
#else
            int32_t t0 = 0, nt = 1;
#endif
            for (int32_t t = t0; t < nparts; t += nt)
                for (int32_t k = S->part[t]; k < S->part[t + 1]; k++) sell_fill_chunk(S, A, cmap, k);
        }
    }

    S->kernel = spmv__sell_kernel(S);
    if (!S->kernel) { /* SPMV_ARCH names a family this CPU or build lacks; spmv_arch_get recorded why */
        st = SPMV_ERR_ARCH;
        goto fail;
    }
    *Sout = S;
    return SPMV_OK;

fail:
    spmv__free(keys);
    spmv__free(order);
    spmv__free(order_inv);
    spmv_sell_free(S);
    return st;
}

spmv_status spmv_sell_to_crs(const spmv_sell *S, spmv_crs **Aout)
{
    static const char fn[] = "spmv_sell_to_crs";
    if (!Aout) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    *Aout = NULL;
    if (!S) return spmv__error(SPMV_ERR_ARG, "%s: argument S is NULL", fn);

    spmv_crs *A = NULL;
    spmv_status st = spmv__crs_alloc(S->rows, S->cols, S->nnz, &A);
    if (st != SPMV_OK) return st;

    const int32_t rows = S->rows, C = S->C;
    const int32_t *cmap = (S->permuted && S->rows == S->cols) ? S->perm : NULL; /* permuted -> original column */

    A->rowptr[0] = 0;
    for (int32_t o = 0; o < rows; o++) A->rowptr[o + 1] = A->rowptr[o] + S->rowlen[S->iperm[o]];

#pragma omp parallel for schedule(static) if (S->nnz >= SELL_PARALLEL_MIN)
    for (int32_t k = 0; k < S->nchunks; k++) {
        const int64_t base = S->chunkptr[k];
        for (int32_t r = 0; r < C; r++) {
            int64_t i = (int64_t)k * C + r;
            if (i >= rows) break;
            int64_t dst = A->rowptr[S->perm[i]];
            for (int32_t j = 0; j < S->rowlen[i]; j++) {
                int32_t c = S->col[base + (int64_t)j * C + r];
                A->col[dst + j] = cmap ? cmap[c] : c;
                A->val[dst + j] = S->val[base + (int64_t)j * C + r];
            }
        }
    }

    st = spmv__crs_finish(A);
    if (st != SPMV_OK) {
        spmv_crs_free(A);
        return st;
    }
    *Aout = A;
    return SPMV_OK;
}

spmv_status spmv_sell_set_threads(spmv_sell *S, int nthreads)
{
    static const char fn[] = "spmv_sell_set_threads";
    if (!S) return spmv__error(SPMV_ERR_ARG, "%s: argument S is NULL", fn);
    int32_t *part = NULL, nparts = 0;
    spmv_status st = sell_partition(S, nthreads, fn, &part, &nparts);
    if (st != SPMV_OK) return st;
    spmv__free(S->part);
    S->part = part;
    S->nparts = nparts;
    return SPMV_OK;
}

double spmv_sell_padding_percent(const spmv_sell *S)
{
    if (!S || S->nnz == 0) return 0.0;
    return 100.0 * (double)(S->stored - S->nnz) / (double)S->nnz;
}

double spmv_sell_beta(const spmv_sell *S)
{
    if (!S || S->stored == 0) return 1.0;
    return (double)S->nnz / (double)S->stored;
}

static spmv_status sell_vec_check(const spmv_sell *S, const double *in, double *out, const char *fn)
{
    if (!S) return spmv__error(SPMV_ERR_ARG, "%s: argument S is NULL", fn);
    if (S->rows == 0) return SPMV_OK;
    if (!in) return spmv__error(SPMV_ERR_ARG, "%s: argument in is NULL", fn);
    if (!out) return spmv__error(SPMV_ERR_ARG, "%s: argument out is NULL", fn);
    if ((const double *)out < in + S->rows && in < (const double *)out + S->rows)
        return spmv__error(SPMV_ERR_ARG, "%s: in and out overlap", fn);
    return SPMV_OK;
}

spmv_status spmv_sell_permute_vec(const spmv_sell *S, const double *in, double *out)
{
    spmv_status st = sell_vec_check(S, in, out, "spmv_sell_permute_vec");
    if (st != SPMV_OK) return st;
    for (int32_t i = 0; i < S->rows; i++) out[i] = in[S->perm[i]];
    return SPMV_OK;
}

spmv_status spmv_sell_unpermute_vec(const spmv_sell *S, const double *in, double *out)
{
    spmv_status st = sell_vec_check(S, in, out, "spmv_sell_unpermute_vec");
    if (st != SPMV_OK) return st;
    for (int32_t i = 0; i < S->rows; i++) out[S->perm[i]] = in[i];
    return SPMV_OK;
}
