/* SELL-C-sigma: construction from CRS, conversion back, thread partition, vector reordering.
 *
 * Format: Kreutzer, Hager, Wellein, Fehske, Bishop, "A unified sparse matrix data format for efficient general
 * sparse matrix-vector multiplication on modern processors with wide SIMD units", SIAM J. Sci. Comput. 36(5), 2014.
 * Rows are sorted by descending length inside windows of sigma rows (stable, so the permutation is deterministic),
 * grouped in chunks of C rows, each chunk padded to its longest row (rounded up to a multiple of unroll) and stored
 * column-major: entry j of lane r of chunk k is at chunkptr[k] + j*C + r.
 *
 * Run columns (spmv_sell_opts.runs = T lanes): inside a chunk, the entries of lane r with column c have the key
 * b = c - r; a key that at least T lanes share becomes a run column, whose lane r reads x[b + r], so a SIMD kernel
 * loads x with one contiguous masked load and reads one base index per C entries instead of C indices. This is the
 * DIA format's idea (a diagonal is a key) applied per chunk, so a stencil's diagonals and an FEM matrix's dense
 * blocks of consecutive rows become contiguous loads while every other entry stays in ordinary gather columns. Keys
 * are found by walking the lanes' sorted columns: a key shared by T lanes appears in one of the first C - T + 1 lanes
 * (pigeonhole), so only their keys are candidates, each checked against every lane's cursor.
 *
 * Padding entries have value 0 and a column index their own row already uses (its last column), or, for an empty
 * row (including the lanes past `rows` in the last chunk), the column of the chunk's longest row at the same
 * position j: a gather on padding never touches a cache line the chunk did not touch anyway. A run column's lane
 * without an entry gets column b + r when that is a column of the matrix (the run's own cache lines), else one of
 * the run's.
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
    o.runs = -1;
    o.idx16 = -1;
    o.xaccess = SPMV_X_AUTO;
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
    spmv__free(S->chunkruns);
    spmv__free(S->runptr);
    spmv__free(S->runbase);
    spmv__free(S->runmask);
    spmv__free(S->colbase);
    spmv__free(S->col16);
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

/* Bytes of one run column's mask. */
static int32_t mask_bytes(int32_t C) { return (C + 7) / 8; }

/* Per-thread scratch for one chunk: the lanes' entries (columns in stored numbering, ascending), run detection. */
typedef struct chunk_scratch {
    int64_t cap;      /* entries col/val/inrun can hold */
    int32_t *col;     /* the lanes' entries one after the other: lane r at [start[r], start[r] + len[r]) */
    double *val;
    uint8_t *inrun;   /* 1: the entry belongs to a run column */
    int64_t *start;   /* length C */
    int32_t *len;     /* length C */
    int32_t *cur;     /* length C: run detection cursors */
    int32_t *rest;    /* length C: entries of the lane outside run columns */
    int32_t nrun;     /* run columns found */
    int32_t rcap;     /* keys/masks capacity (run columns) */
    int32_t *rkey;    /* run column bases */
    uint8_t *rmask;   /* rcap * mask_bytes(C) */
} chunk_scratch;

static void scratch_free(chunk_scratch *sc)
{
    spmv__free(sc->col);
    spmv__free(sc->val);
    spmv__free(sc->inrun);
    spmv__free(sc->start);
    spmv__free(sc->len);
    spmv__free(sc->cur);
    spmv__free(sc->rest);
    spmv__free(sc->rkey);
    spmv__free(sc->rmask);
    memset(sc, 0, sizeof *sc);
}

/* Room for chunks of up to `entries` entries; 0 on success. */
static int scratch_init(chunk_scratch *sc, int32_t C, int64_t entries)
{
    memset(sc, 0, sizeof *sc);
    sc->cap = entries > 0 ? entries : 1;
    sc->rcap = (int32_t)(sc->cap < INT32_MAX ? sc->cap : INT32_MAX);
    sc->col = spmv__malloc((size_t)sc->cap * sizeof *sc->col);
    sc->val = spmv__malloc((size_t)sc->cap * sizeof *sc->val);
    sc->inrun = spmv__malloc((size_t)sc->cap);
    sc->start = spmv__malloc((size_t)C * sizeof *sc->start);
    sc->len = spmv__malloc((size_t)C * sizeof *sc->len);
    sc->cur = spmv__malloc((size_t)C * sizeof *sc->cur);
    sc->rest = spmv__malloc((size_t)C * sizeof *sc->rest);
    sc->rkey = spmv__malloc((size_t)sc->rcap * sizeof *sc->rkey);
    sc->rmask = spmv__malloc((size_t)sc->rcap * (size_t)mask_bytes(C));
    if (!sc->col || !sc->val || !sc->inrun || !sc->start || !sc->len || !sc->cur || !sc->rest || !sc->rkey ||
        !sc->rmask) {
        scratch_free(sc);
        return -1;
    }
    return 0;
}

typedef struct colval {
    int32_t c;
    double v;
} colval;

static int colval_cmp(const void *a, const void *b)
{
    const colval *x = a, *y = b;
    return (x->c > y->c) - (x->c < y->c);
}

/* Sort n (column, value) pairs by column (insertion sort for short rows, qsort through tmp otherwise). */
static void sort_pairs(int32_t *c, double *v, int32_t n, colval *tmp)
{
    int sorted = 1;
    for (int32_t j = 1; j < n && sorted; j++) sorted = c[j - 1] < c[j];
    if (sorted) return;
    if (n <= 32 || !tmp) {
        for (int32_t j = 1; j < n; j++) {
            int32_t cj = c[j];
            double vj = v[j];
            int32_t i = j - 1;
            for (; i >= 0 && c[i] > cj; i--) {
                c[i + 1] = c[i];
                v[i + 1] = v[i];
            }
            c[i + 1] = cj;
            v[i + 1] = vj;
        }
        return;
    }
    for (int32_t j = 0; j < n; j++) tmp[j] = (colval){c[j], v[j]};
    qsort(tmp, (size_t)n, sizeof *tmp, colval_cmp);
    for (int32_t j = 0; j < n; j++) c[j] = tmp[j].c, v[j] = tmp[j].v;
}

/* The lanes of chunk k into sc: each lane's row, columns mapped through cmap (stored numbering) and ascending. */
static void chunk_lanes(const spmv_sell *S, const spmv_crs *A, const int32_t *cmap, int32_t k, chunk_scratch *sc,
                        colval *tmp)
{
    const int32_t C = S->C;
    const int64_t r0 = (int64_t)k * C;
    int64_t pos = 0;
    for (int32_t r = 0; r < C; r++) {
        int64_t i = r0 + r;
        int32_t n = i < S->rows ? S->rowlen[i] : 0;
        sc->start[r] = pos;
        sc->len[r] = n;
        if (n == 0) continue;
        int64_t src = A->rowptr[S->perm[i]];
        int32_t *c = sc->col + pos;
        double *v = sc->val + pos;
        for (int32_t j = 0; j < n; j++) {
            int32_t cc = A->col[src + j];
            c[j] = cmap ? cmap[cc] : cc;
            v[j] = A->val[src + j];
        }
        if (cmap) sort_pairs(c, v, n, tmp);
        pos += n;
    }
    memset(sc->inrun, 0, (size_t)pos);
    sc->nrun = 0;
}

/* Run detection in chunk k (lanes already in sc): keys b = column - r shared by at least T lanes, ascending, into
 * sc->rkey/rmask; their entries flagged in sc->inrun; sc->rest[r] = entries of lane r left for gather columns. */
static void chunk_runs(int32_t C, int32_t T, chunk_scratch *sc)
{
    const int32_t mb = mask_bytes(C);
    for (int32_t r = 0; r < C; r++) {
        sc->cur[r] = 0;
        sc->rest[r] = sc->len[r];
    }
    if (T < 1) return;
    const int32_t P = C - T + 1; /* pivot lanes: every key shared by T lanes appears in one of them */
    for (;;) {
        /* next candidate: the smallest key at a pivot lane's cursor */
        int64_t b = INT64_MAX;
        for (int32_t r = 0; r < P; r++)
            if (sc->cur[r] < sc->len[r]) {
                int64_t key = (int64_t)sc->col[sc->start[r] + sc->cur[r]] - r;
                if (key < b) b = key;
            }
        if (b == INT64_MAX) break;
        /* lanes holding column b + r: advance every cursor to key >= b */
        int32_t count = 0;
        for (int32_t r = 0; r < C; r++) {
            const int32_t *c = sc->col + sc->start[r];
            int32_t p = sc->cur[r];
            while (p < sc->len[r] && (int64_t)c[p] - r < b) p++;
            sc->cur[r] = p;
            if (p < sc->len[r] && (int64_t)c[p] - r == b) count++;
        }
        if (count >= T) {
            uint8_t *m = sc->rmask + (size_t)sc->nrun * mb;
            memset(m, 0, (size_t)mb);
            for (int32_t r = 0; r < C; r++) {
                int32_t p = sc->cur[r];
                if (p < sc->len[r] && (int64_t)sc->col[sc->start[r] + p] - r == b) {
                    m[r / 8] |= (uint8_t)(1u << (r % 8));
                    sc->inrun[sc->start[r] + p] = 1;
                    sc->rest[r]--;
                }
            }
            sc->rkey[sc->nrun++] = (int32_t)b;
        }
        /* step past b in every lane (each column is in at most one key) */
        for (int32_t r = 0; r < C; r++) {
            int32_t p = sc->cur[r];
            if (p < sc->len[r] && (int64_t)sc->col[sc->start[r] + p] - r == b) sc->cur[r] = p + 1;
        }
    }
}

/* Fill chunk k of S from the lanes and runs in sc (chunk_lanes + chunk_runs of the same chunk). */
static void sell_fill_chunk(spmv_sell *S, const chunk_scratch *sc, int32_t k)
{
    const int32_t C = S->C, L = S->chunklen[k], R = sc->nrun, mb = mask_bytes(C);
    const int64_t base = S->chunkptr[k];
    if (L == 0) return;

    /* run columns: lane r reads b + r; padding lanes point at b + r when that is a column, else at a run lane */
    if (R > 0) {
        const int64_t q0 = S->runptr[k];
        memcpy(S->runbase + q0, sc->rkey, (size_t)R * sizeof *sc->rkey);
        memcpy(S->runmask + q0 * mb, sc->rmask, (size_t)R * (size_t)mb);
        for (int32_t r = 0; r < C; r++) {
            const int32_t *c = sc->col + sc->start[r];
            const double *v = sc->val + sc->start[r];
            const uint8_t *in = sc->inrun + sc->start[r];
            int32_t p = 0;
            for (int32_t j = 0; j < R; j++) {
                const int64_t b = sc->rkey[j], at = base + (int64_t)j * C + r;
                if (sc->rmask[(size_t)j * mb + r / 8] >> (r % 8) & 1) {
                    while (!in[p]) p++; /* the lane's run entries come in key order */
                    S->col[at] = c[p];
                    S->val[at] = v[p];
                    p++;
                } else {
                    int32_t lane0 = 0; /* a lane of the run */
                    while (!(sc->rmask[(size_t)j * mb + lane0 / 8] >> (lane0 % 8) & 1)) lane0++;
                    S->col[at] = b + r >= 0 && b + r < S->cols ? (int32_t)(b + r) : (int32_t)(b + lane0);
                    S->val[at] = 0.0;
                }
            }
        }
    }

    /* gather columns: the lane of the most entries left (first one on ties) gives empty lanes their columns */
    int32_t best = 0;
    for (int32_t r = 1; r < C; r++)
        if (sc->rest[r] > sc->rest[best]) best = r;
    for (int32_t pass = 0; pass < 2; pass++) /* the best lane first, so the others can copy its columns */
        for (int32_t r = 0; r < C; r++) {
            if ((pass == 0) != (r == best)) continue;
            const int32_t *c = sc->col + sc->start[r];
            const double *v = sc->val + sc->start[r];
            const uint8_t *in = sc->inrun + sc->start[r];
            int32_t j = R, last = -1;
            for (int32_t p = 0; p < sc->len[r]; p++) {
                if (in[p]) continue;
                S->col[base + (int64_t)j * C + r] = last = c[p];
                S->val[base + (int64_t)j * C + r] = v[p];
                j++;
            }
            if (last < 0 && sc->len[r] > 0) last = c[0]; /* every entry is in a run: pad with one of them */
            for (; j < L; j++) {
                int64_t at = base + (int64_t)j * C + r;
                S->col[at] = last >= 0 ? last : r != best ? S->col[base + (int64_t)j * C + best] : 0;
                S->val[at] = 0.0;
            }
        }
}

/* 16-bit indices for chunk k when its gather columns span fewer than 65536 columns: colbase[k] = the smallest
 * column, col16 = col - colbase[k] at the gather positions; else colbase[k] = -1 (the chunk keeps 32-bit indices).
 * Returns the entries compressed. */
static int64_t sell_compress_chunk(spmv_sell *S, int32_t k)
{
    const int32_t R = S->chunkruns ? S->chunkruns[k] : 0;
    const int64_t p0 = S->chunkptr[k] + (int64_t)R * S->C, p1 = S->chunkptr[k + 1];
    S->colbase[k] = -1;
    if (p1 <= p0) return 0;
    int32_t lo = S->col[p0], hi = S->col[p0];
    for (int64_t p = p0 + 1; p < p1; p++) {
        if (S->col[p] < lo) lo = S->col[p];
        if (S->col[p] > hi) hi = S->col[p];
    }
    if ((int64_t)hi - lo > UINT16_MAX) return 0;
    S->colbase[k] = lo;
    for (int64_t p = p0; p < p1; p++) S->col16[p] = (uint16_t)(S->col[p] - lo);
    return p1 - p0;
}

/* Share of A's nonzeros that run columns of threshold T would hold in SELL-C-1 (rows in their own order), from up to
 * `sample` chunks spread over the matrix (all chunks when there are fewer): the model's evidence for keeping rows
 * in order (sigma = 1) rather than sorting them. 0 when T < 1, C > 64 or A is empty; -1 when out of memory. */
double spmv__sell_run_share(const spmv_crs *A, int32_t C, int32_t T, int32_t sample)
{
    if (T < 1 || C < 1 || C > 64 || A->rows < 1 || A->nnz < 1) return 0.0;
    const int64_t nch = ((int64_t)A->rows + C - 1) / C;
    const int64_t step = sample > 0 && nch > sample ? nch / sample : 1;
    int64_t widest = 0;
    for (int64_t k = 0; k < nch; k += step) {
        int64_t r0 = k * C, r1 = r0 + C < A->rows ? r0 + C : A->rows;
        if (A->rowptr[r1] - A->rowptr[r0] > widest) widest = A->rowptr[r1] - A->rowptr[r0];
    }
    chunk_scratch sc;
    if (scratch_init(&sc, C, widest) != 0) return -1.0;
    int64_t in_runs = 0, seen = 0;
    for (int64_t k = 0; k < nch; k += step) {
        const int64_t r0 = k * C;
        int64_t pos = 0;
        for (int32_t r = 0; r < C; r++) { /* the lanes: rows r0 + r, columns already ascending */
            const int64_t i = r0 + r;
            const int64_t b = i < A->rows ? A->rowptr[i] : 0, n = i < A->rows ? A->rowptr[i + 1] - b : 0;
            sc.start[r] = pos;
            sc.len[r] = (int32_t)n;
            if (n) memcpy(sc.col + pos, A->col + b, (size_t)n * sizeof *sc.col);
            pos += n;
        }
        memset(sc.inrun, 0, (size_t)pos);
        sc.nrun = 0;
        chunk_runs(C, T, &sc);
        for (int64_t e = 0; e < pos; e++) in_runs += sc.inrun[e];
        seen += pos;
    }
    scratch_free(&sc);
    return seen > 0 ? (double)in_runs / (double)seen : 0.0;
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
    if (opts->runs < -1 || (opts->runs > 0 && opts->C > 64))
        return spmv__error(SPMV_ERR_ARG, "%s: opts->runs = %d: use -1 (auto), 0 (off) or a lane count with C <= 64 "
                           "(C = %d)", fn, opts->runs, opts->C);
    if (opts->idx16 < -1 || opts->idx16 > 1)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->idx16 = %d: use -1 (auto), 0 (off) or 1 (on)", fn, opts->idx16);
    if (opts->xaccess < SPMV_X_AUTO || opts->xaccess > SPMV_X_EMUL)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->xaccess = %d is not a spmv_xaccess value", fn, opts->xaccess);

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

    /* run columns: the threshold T in lanes (auto: ceil(3C/4) for 4 <= C <= 64, else none) */
    int32_t T = opts->runs;
    if (T < 0) T = C >= 4 && C <= 64 ? (3 * C + 3) / 4 : 0;
    if (T > C) T = C;
    S->runs = T;
    S->xaccess = spmv__sell_xaccess(opts->xaccess);

    /* the widest chunk in entries, for the per-thread scratch (run detection and the sorted lanes) */
    int64_t widest = 0, maxrow = 0;
    for (int32_t k = 0; k < S->nchunks; k++) {
        int64_t r0 = (int64_t)k * C, r1 = r0 + C < rows ? r0 + C : rows, e = 0;
        for (int64_t i = r0; i < r1; i++) {
            e += S->rowlen[i];
            if (S->rowlen[i] > maxrow) maxrow = S->rowlen[i];
        }
        if (e > widest) widest = e;
    }
    if (T > 0) {
        S->chunkruns = spmv__calloc(nch ? nch : 1, sizeof *S->chunkruns);
        S->runptr = spmv__calloc(nch + 1, sizeof *S->runptr);
        if (!S->chunkruns || !S->runptr) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the run-column counts of %d chunks", fn,
                             S->nchunks);
            goto fail;
        }
    }

    /* column map for the symmetric permutation A' = P A P^T (square matrices only) */
    if (S->permuted && square && rows > 0) {
        cmap = S->iperm;
    }

    /* pass 1: chunk lengths (run columns + the widest lane's other entries, rounded up to unroll), in parallel */
    int failed = 0;
    const int par = S->nchunks > 1 && A->nnz >= SELL_PARALLEL_MIN;
#pragma omp parallel if (par) reduction(| : failed)
    {
        chunk_scratch sc;
        colval *tmp = NULL;
        int ok = T == 0 || scratch_init(&sc, C, widest) == 0;
        if (ok && T > 0 && cmap && maxrow > 32) ok = (tmp = spmv__malloc((size_t)maxrow * sizeof *tmp)) != NULL;
        if (!ok) failed = 1;
#pragma omp for schedule(dynamic, 256)
        for (int32_t k = 0; k < S->nchunks; k++) {
            if (!ok) continue;
            int64_t r0 = (int64_t)k * C, r1 = r0 + C < rows ? r0 + C : rows;
            int64_t len = 0;
            if (T > 0) {
                chunk_lanes(S, A, cmap, k, &sc, tmp);
                chunk_runs(C, T, &sc);
                for (int32_t r = 0; r < C; r++)
                    if (sc.rest[r] > len) len = sc.rest[r];
                S->chunkruns[k] = sc.nrun;
                len += sc.nrun;
            } else {
                for (int64_t i = r0; i < r1; i++)
                    if (S->rowlen[i] > len) len = S->rowlen[i];
            }
            len = (len + S->unroll - 1) / S->unroll * S->unroll;
            S->chunklen[k] = len > INT32_MAX ? -1 : (int32_t)len;
        }
        spmv__free(tmp);
        if (T > 0 && ok) scratch_free(&sc);
    }
    if (failed) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the scratch of a chunk of %lld entries", fn,
                         (long long)widest);
        goto fail;
    }
    S->chunkptr[0] = 0;
    for (int32_t k = 0; k < S->nchunks; k++) {
        if (S->chunklen[k] < 0) {
            st = spmv__error(SPMV_ERR_OVERFLOW, "%s: chunk %d is more than %d columns wide after rounding to unroll = %d",
                             fn, k, INT32_MAX, S->unroll);
            goto fail;
        }
        int64_t add = (int64_t)S->chunklen[k] * C;
        if (S->chunkptr[k] > INT64_MAX - add) {
            st = spmv__error(SPMV_ERR_OVERFLOW, "%s: stored entries exceed 64-bit offsets at chunk %d", fn, k);
            goto fail;
        }
        S->chunkptr[k + 1] = S->chunkptr[k] + add;
        if (S->runptr) S->runptr[k + 1] = S->runptr[k] + S->chunkruns[k];
    }
    S->stored = S->chunkptr[S->nchunks];
    S->nruns = S->runptr ? S->runptr[S->nchunks] : 0;

    st = sell_partition(S, opts->nthreads, fn, &S->part, &S->nparts);
    if (st != SPMV_OK) goto fail;

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
    if (opts->idx16 != 0 && S->stored > 0) {
        S->colbase = spmv__malloc((nch ? nch : 1) * sizeof *S->colbase);
        S->col16 = spmv__malloc((size_t)S->stored * sizeof *S->col16);
        if (!S->colbase || !S->col16) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the 16-bit indices of %lld stored entries", fn,
                             (long long)S->stored);
            goto fail;
        }
    }
    if (S->nruns > 0) {
        S->runbase = spmv__malloc((size_t)S->nruns * sizeof *S->runbase);
        S->runmask = spmv__calloc((size_t)S->nruns * (size_t)mask_bytes(C) + 8, 1); /* + 8: see spmv_sell */
        if (!S->runbase || !S->runmask) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %lld run columns", fn, (long long)S->nruns);
            goto fail;
        }
    }

    /* pass 2, first touch: thread t writes the chunks it multiplies, [part[t], part[t+1]) */
    if (S->stored > 0) {
        const int32_t nparts = S->nparts;
        int64_t n16 = 0;
#pragma omp parallel num_threads(nparts) if (nparts > 1 && S->stored >= SELL_PARALLEL_MIN) reduction(| : failed) \
    reduction(+ : n16)
        {
#ifdef _OPENMP
            int32_t t0 = omp_get_thread_num(), nt = omp_get_num_threads();
#else
            int32_t t0 = 0, nt = 1;
#endif
            chunk_scratch sc;
            colval *tmp = NULL;
            int ok = scratch_init(&sc, C, widest) == 0;
            if (ok && cmap && maxrow > 32) ok = (tmp = spmv__malloc((size_t)maxrow * sizeof *tmp)) != NULL;
            if (!ok) failed = 1;
            for (int32_t t = t0; ok && t < nparts; t += nt)
                for (int32_t k = S->part[t]; k < S->part[t + 1]; k++) {
                    chunk_lanes(S, A, cmap, k, &sc, tmp);
                    chunk_runs(C, T, &sc);
                    sell_fill_chunk(S, &sc, k);
                    if (S->colbase) n16 += sell_compress_chunk(S, k);
                }
            spmv__free(tmp);
            if (ok) scratch_free(&sc);
        }
        if (failed) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the scratch of a chunk of %lld entries", fn,
                             (long long)widest);
            goto fail;
        }
        S->nidx16 = n16;
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

/* Positions in col/val of the entries of permuted row i (rowlen[i] of them): its run-column lanes, then its first
 * gather columns. */
static void row_positions(const spmv_sell *S, int64_t i, int64_t *pos)
{
    const int32_t C = S->C, k = (int32_t)(i / C), r = (int32_t)(i % C), mb = mask_bytes(C);
    const int64_t base = S->chunkptr[k] + r;
    const int32_t R = S->chunkruns ? S->chunkruns[k] : 0, n = S->rowlen[i];
    int32_t m = 0, j = 0;
    for (; j < R && m < n; j++)
        if (S->runmask[(size_t)(S->runptr[k] + j) * mb + r / 8] >> (r % 8) & 1) pos[m++] = base + (int64_t)j * C;
    for (j = R; m < n; j++) pos[m++] = base + (int64_t)j * C;
}

static int32_t max_rowlen(const spmv_sell *S)
{
    int32_t m = 0;
    for (int32_t i = 0; i < S->rows; i++)
        if (S->rowlen[i] > m) m = S->rowlen[i];
    return m;
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

    const int32_t rows = S->rows;
    const int32_t *cmap = (S->permuted && S->rows == S->cols) ? S->perm : NULL; /* permuted -> original column */

    A->rowptr[0] = 0;
    for (int32_t o = 0; o < rows; o++) A->rowptr[o + 1] = A->rowptr[o] + S->rowlen[S->iperm[o]];

    const int32_t maxrow = max_rowlen(S);
    int failed = 0;
#pragma omp parallel if (S->nnz >= SELL_PARALLEL_MIN) reduction(| : failed)
    {
        int64_t *pos = spmv__malloc(((size_t)maxrow + 1) * sizeof *pos);
        colval *tmp = maxrow > 32 ? spmv__malloc((size_t)maxrow * sizeof *tmp) : NULL;
        if (!pos || (maxrow > 32 && !tmp)) failed = 1;
#pragma omp for schedule(static)
        for (int32_t i = 0; i < rows; i++) {
            if (failed) continue;
            const int64_t dst = A->rowptr[S->perm[i]];
            const int32_t n = S->rowlen[i];
            row_positions(S, i, pos);
            for (int32_t j = 0; j < n; j++) {
                int32_t c = S->col[pos[j]];
                A->col[dst + j] = cmap ? cmap[c] : c;
                A->val[dst + j] = S->val[pos[j]];
            }
            sort_pairs(A->col + dst, A->val + dst, n, tmp); /* runs first, and permuted numbering: sort back */
        }
        spmv__free(pos);
        spmv__free(tmp);
    }
    if (failed) {
        spmv_crs_free(A);
        return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for a row of %d entries", fn, maxrow);
    }

    st = spmv__crs_finish(A);
    if (st != SPMV_OK) {
        spmv_crs_free(A);
        return st;
    }
    *Aout = A;
    return SPMV_OK;
}

/* New values, same pattern (spmv_sell_update_values): every stored entry of permuted row i finds its column in A's
 * row (sorted: binary search); the whole pattern is checked before a value changes. */
spmv_status spmv_sell_update_values(spmv_sell *S, const spmv_crs *A)
{
    static const char fn[] = "spmv_sell_update_values";
    if (!S || !A) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, S ? "A" : "S");
    if (A->rows != S->rows || A->cols != S->cols || A->nnz != S->nnz)
        return spmv__error(SPMV_ERR_ARG, "%s: A is %d x %d with %lld nonzeros, S was built from %d x %d with %lld", fn,
                           A->rows, A->cols, (long long)A->nnz, S->rows, S->cols, (long long)S->nnz);
    const int32_t *cmap = S->permuted && S->rows == S->cols ? S->perm : NULL; /* stored -> original column */
    const int32_t rows = S->rows;
    /* per entry (permuted row i's entries from first[i] on): its position in S and its index in A */
    int64_t *first = spmv__malloc(((size_t)rows + 1) * sizeof *first);
    int64_t *pos = spmv__malloc(((size_t)S->nnz + 1) * sizeof *pos);
    int64_t *src = spmv__malloc(((size_t)S->nnz + 1) * sizeof *src);
    if (!first || !pos || !src) {
        spmv__free(first);
        spmv__free(pos);
        spmv__free(src);
        return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the map of %lld entries", fn, (long long)S->nnz);
    }
    first[0] = 0;
    for (int32_t i = 0; i < rows; i++) first[i + 1] = first[i] + S->rowlen[i];
    int32_t bad_row = -1;
#pragma omp parallel for schedule(static) if (S->nnz >= SELL_PARALLEL_MIN)
    for (int32_t i = 0; i < rows; i++) {
        const int32_t r = S->perm[i], n = S->rowlen[i];
        const int64_t a0 = A->rowptr[r], a1 = A->rowptr[r + 1];
        int64_t *p = pos + first[i];
        int bad = a1 - a0 != n;
        if (!bad) row_positions(S, i, p);
        for (int32_t j = 0; j < n && !bad; j++) {
            int32_t c = S->col[p[j]];
            if (cmap) c = cmap[c];
            int64_t lo = a0, hi = a1; /* A's columns are strictly increasing: each stored column matches once */
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (A->col[mid] < c) lo = mid + 1;
                else hi = mid;
            }
            bad = lo == a1 || A->col[lo] != c;
            src[first[i] + j] = lo;
        }
        if (bad) {
#pragma omp critical
            if (bad_row < 0 || r < bad_row) bad_row = r;
        }
    }
    if (bad_row < 0) {
#pragma omp parallel for schedule(static) if (S->nnz >= SELL_PARALLEL_MIN)
        for (int64_t e = 0; e < S->nnz; e++) S->val[pos[e]] = A->val[src[e]];
    }
    spmv__free(first);
    spmv__free(pos);
    spmv__free(src);
    if (bad_row >= 0)
        return spmv__error(SPMV_ERR_ARG, "%s: the pattern of row %d differs from the one S was built from", fn,
                           bad_row);
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
