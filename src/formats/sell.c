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

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many stored entries (256 KiB of values) the arrays are filled by one thread: first touch cannot matter
 * and starting a team costs more than the copy. */
#define SELL_PARALLEL_MIN ((int64_t)1 << 15)

/* Automatic run columns (spmv_sell_opts.runs = -1): the search runs first on sell_run_sample(nchunks) chunks (256 on
 * a matrix of 2048 chunks or more, an eighth below that, at least 16 or all; one per stratum, sell_sample_chunk),
 * and the matrix gets none unless run columns hold at least spmv__sell_run_share_min(C) = max(0.10,
 * SELL_RUN_LANES / C) of those entries and SPMV_SELL_RUN_CHUNK_MIN (kernel.h) of them per chunk. Why:
 *  - the multiply: a chunk with run columns pays a fixed cost (a second loop, masks) that its run entries must
 *    amortize. Measured on the AMD EPYC (Zen 5) VM, AVX-512, 1 thread, runs auto against off (spmv_sell_mv,
 *    medians of 7 interleaved rounds, the shared matrices, sigma = 1 and rows; the AVX2 kernels forced on the same
 *    CPU agree): SELL-8 gained only from about 45 % of the entries in runs on (mbeacxc 1.22x at 45 %, hangGlider_2
 *    1.13x at 63 %, cryg2500 1.2-1.8x) and lost up to 14 % below 34 % (bcspwr10 0.85x at 24 %, bayer10 0.87x at
 *    23 %); SELL-16 gained from 25 % (hangGlider_2 1.07x; bcspwr10 0.98x at 24 %), SELL-32 from about 10 % (zenios
 *    1.03x at 11 %; nnc1374 0.96x at 7 %); SELL-4 (AVX2) only near 100 % (cryg2500 1.95x; hangGlider_2 0.85x at
 *    70 %). Short rows leave a chunk few run entries whatever the share: arrow's chunks (2 entries a row, half of
 *    them on the diagonal) lost at C = 8 (8 run entries per chunk, 0.86x) and gained at C = 32 (32, 1.06x)
 *    (BENCHMARKS.md, 2026-12-04 21:20, "run columns where they pay");
 *  - the conversion: the search and the fill of run columns cost 1.2-10x the plain conversion (a copy) on those
 *    matrices; the sample costs a fraction of that, and a matrix without runs converts at about the plain cost
 *    (issue 15's "at most 2x"). On large matrices the floor 0.10 also stands for the bytes: runs of fewer entries
 *    save at most 1/30 of them (longrows_2M, 6.9 % in runs, SELL-8-1: a search of 2.5x the plain conversion for
 *    nothing, Intel Xeon VM). */
#define SELL_RUN_SAMPLE 256
#define SELL_RUN_SAMPLE_SHARE 0.10
#define SELL_RUN_LANES 3.2

/* chunks the automatic run-column search samples first: an eighth, between 16 (or all) and SELL_RUN_SAMPLE */
static int32_t sell_run_sample(int32_t nchunks)
{
    int32_t n = nchunks / 8;
    if (n > SELL_RUN_SAMPLE) n = SELL_RUN_SAMPLE;
    if (n < 16) n = 16;
    return n < nchunks ? n : nchunks;
}

/* Sampled chunk i of ns over nchunks: one chunk of each of ns equal strata, at an offset inside its stratum that
 * a multiplicative hash of i picks (stratified sampling): a fixed stride would alias with a matrix's period --
 * bayer10, SELL-8, every 8th chunk from chunk 0 held 41 % of its entries in run columns where the whole matrix has
 * 23 % (offsets 1-7: 13-18 %). */
static int32_t sell_sample_chunk(int64_t i, int64_t ns, int64_t nchunks)
{
    const int64_t a = i * nchunks / ns, b = (i + 1) * nchunks / ns;
    const uint64_t h = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
    return (int32_t)(a + (b > a ? (int64_t)((h >> 32) % (uint64_t)(b - a)) : 0));
}

/* the share of entries in run columns below which automatic run columns are dropped, for chunk height C */
double spmv__sell_run_share_min(int32_t C)
{
    const double s = SELL_RUN_LANES / (double)(C > 0 ? C : 1);
    return s > SELL_RUN_SAMPLE_SHARE ? s : SELL_RUN_SAMPLE_SHARE;
}

/* the automatic rule: run columns pay at chunk height C where a sample has `share` of its entries and `per_chunk`
 * per chunk in them */
int spmv__sell_runs_pay(int32_t C, double share, double per_chunk)
{
    return share >= spmv__sell_run_share_min(C) && per_chunk >= SPMV_SELL_RUN_CHUNK_MIN;
}

spmv_sell_opts spmv_sell_opts_default(void)
{
    spmv_sell_opts o;
    o.C = 32;
    o.sigma = 1;
    o.unroll = 1;
    o.permuted = 0;
    o.nt_stores = -1;
    o.rcm = 0;
    o.nthreads = 0;
    o.runs = -1;
    o.idx16 = -1;
    o.vidx = -1;
    o.xaccess = SPMV_X_AUTO;
    o.long_rows = -1;
    o.max_stored_factor = 2.0;
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
    spmv__free(S->chunkfull);
    spmv__free(S->colbase);
    spmv__free(S->col16);
    spmv__free(S->vtab);
    spmv__free(S->val8);
    spmv__free(S->longptr);
    spmv__free(S->longcol);
    spmv__free(S->longval);
    spmv__free(S->longpart);
    spmv__free(S->longsplit);
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
static int32_t mask_bytes(int32_t C) { return (int32_t)(((int64_t)C + 7) / 8); } /* C up to INT32_MAX */

/* Per-thread scratch for one chunk: the lanes' entries (columns in stored numbering, ascending), run detection. */
typedef struct chunk_scratch {
    int64_t cap;      /* entries col/val can hold */
    int32_t *col;     /* the lanes' entries one after the other: lane r at [start[r], start[r] + len[r]) */
    double *val;
    int64_t *start;   /* length C: lane r's first entry (in col/val where the lanes are copied) */
    const int32_t **lc; /* length C: lane r's columns (in col, or in the source matrix where no copy is needed) */
    const double **lv;  /* length C: lane r's values, the same way */
    int32_t *len;     /* length C */
    int32_t *cur;     /* length C: run detection cursors */
    int32_t *rest;    /* length C: entries of the lane outside run columns */
    int32_t nrun;     /* run columns found */
    int32_t rcap;     /* keys/masks capacity (run columns): entries / T + 1, each run holding T entries or more */
    int32_t *rkey;    /* run column bases */
    uint8_t *rmask;   /* rcap * mask_bytes(C) */
    uint64_t *rbits;  /* rcap: the same masks as words (C <= 64 where there are runs) */
    int32_t *rdst;    /* rcap: the stored position of run column j (the full ones first, see sell_fill_chunk) */
    int32_t *rhit;    /* rcap: sell_fill_chunk's positions of one lane's run entries */
    int32_t *bkey, *bkey2; /* SELL_RUN_BATCH: candidate keys of one batch of chunk_runs, and a merge buffer */
    uint64_t *bbits;  /* SELL_RUN_BATCH: the lanes holding each candidate key */
    int32_t *hkey;    /* SELL_RUN_HASH: chunk_runs_hash's table, open addressing: a key ... (the search only) */
    uint64_t *hbits;  /* ... and its lanes (0: the slot is free; every slot free between chunks; the fill's slots) */
    int32_t *hused;   /* min(cap, SELL_RUN_HASH / 2): the slots taken, in order */
    uint64_t *dcand;  /* min(cap, SELL_RUN_HASH) + 1: the taken keys of chunk_runs_direct and chunk_runs_hash ... */
    uint64_t *dmask;  /* ... and their lanes */
    uint64_t *dbits;  /* hsize / 64 (rounded up): chunk_runs_direct's taken keys as bits (zero between chunks) */
    int64_t hsize;    /* words of hbits (and hkey): SELL_RUN_HASH, or cols + C where that is less (a chunk's keys,
                         column - lane, span fewer than cols + C values) */
} chunk_scratch;

/* Candidate keys chunk_runs examines at a time (the scratch holds this many, whatever the chunk's size; an entry's
 * candidate is kept as 1 + its index in a byte). */
enum { SELL_RUN_BATCH = 255 };

/* Slots of chunk_runs_hash's table (a power of 2): chunks whose pivot lanes hold up to half as many entries */
enum { SELL_RUN_HASH_BITS = 13, SELL_RUN_HASH = 1 << SELL_RUN_HASH_BITS };

static void scratch_free(chunk_scratch *sc)
{
    spmv__free(sc->col);
    spmv__free(sc->val);
    spmv__free(sc->start);
    spmv__free((void *)sc->lc);
    spmv__free((void *)sc->lv);
    spmv__free(sc->len);
    spmv__free(sc->cur);
    spmv__free(sc->rest);
    spmv__free(sc->rkey);
    spmv__free(sc->rmask);
    spmv__free(sc->rbits);
    spmv__free(sc->rdst);
    spmv__free(sc->rhit);
    spmv__free(sc->bkey);
    spmv__free(sc->bkey2);
    spmv__free(sc->bbits);
    spmv__free(sc->hkey);
    spmv__free(sc->hbits);
    spmv__free(sc->hused);
    spmv__free(sc->dcand);
    spmv__free(sc->dmask);
    spmv__free(sc->dbits);
    memset(sc, 0, sizeof *sc);
}

/* Room for chunks of up to `entries` entries of a matrix of `cols` columns and runs of threshold T (T < 1: none);
 * search 0: only the fill's slot table (sc->hbits: pass 2 replays stored runs and searches nothing), else chunk_runs'
 * tables too. 0 on success. Each table is as small as its use allows: the key tables (hbits, hkey, dbits) cover
 * min(SELL_RUN_HASH, cols + C) keys, the lists of taken keys one word per entry of a chunk (+ 1). With 176 KiB of
 * tables per scratch and three scratches per conversion, glibc's heap grew past its trim threshold and shrank again
 * in every conversion (Zen 5 VM, 1 core, repeated conversions: HPCG 16^3 SELL-8-1 3.4 ms -> 0.30, plain 0.13; HPCG
 * 8^3 0.41 -> 0.10 ms, plain 0.028, where glibc still trims twice per conversion). */
static int scratch_init(chunk_scratch *sc, int32_t C, int32_t T, int64_t entries, int64_t cols, int search)
{
    memset(sc, 0, sizeof *sc);
    sc->cap = entries > 0 ? entries : 1;
    sc->hsize = cols + C < SELL_RUN_HASH ? cols + C : SELL_RUN_HASH;
    const int64_t rc = T > 0 ? sc->cap / T + 1 : 1;
    sc->rcap = (int32_t)(rc < INT32_MAX ? rc : INT32_MAX);
    sc->col = spmv__malloc((size_t)sc->cap * sizeof *sc->col);
    sc->val = spmv__malloc((size_t)sc->cap * sizeof *sc->val);
    sc->start = spmv__malloc((size_t)C * sizeof *sc->start);
    sc->lc = spmv__malloc((size_t)C * sizeof *sc->lc);
    sc->lv = spmv__malloc((size_t)C * sizeof *sc->lv);
    sc->len = spmv__malloc((size_t)C * sizeof *sc->len);
    sc->cur = spmv__malloc((size_t)C * sizeof *sc->cur);
    sc->rest = spmv__malloc((size_t)C * sizeof *sc->rest);
    sc->rkey = spmv__malloc((size_t)sc->rcap * sizeof *sc->rkey);
    sc->rmask = spmv__malloc((size_t)sc->rcap * (size_t)mask_bytes(C));
    sc->rbits = spmv__malloc((size_t)sc->rcap * sizeof *sc->rbits);
    sc->rdst = spmv__malloc((size_t)sc->rcap * sizeof *sc->rdst);
    sc->rhit = spmv__malloc((size_t)sc->rcap * sizeof *sc->rhit);
    sc->bkey = spmv__malloc(SELL_RUN_BATCH * sizeof *sc->bkey);
    sc->bkey2 = spmv__malloc(SELL_RUN_BATCH * sizeof *sc->bkey2);
    sc->bbits = spmv__malloc(SELL_RUN_BATCH * sizeof *sc->bbits);
    search = search && T > 0;
    if (T > 0) sc->hbits = spmv__calloc((size_t)sc->hsize, sizeof *sc->hbits); /* not for the plain fill */
    if (search) { /* chunk_runs' tables: the taken keys (direct search: one per pivot entry + 1, at most
                     SELL_RUN_HASH + 1), the hash search's slots (hsize; the search runs only where that is
                     SELL_RUN_HASH) and the slots it took (one per pivot entry, at most SELL_RUN_HASH / 2) */
        const size_t nc = (size_t)(sc->cap < SELL_RUN_HASH ? sc->cap + 1 : SELL_RUN_HASH + 1);
        const size_t nu = (size_t)(sc->cap < SELL_RUN_HASH / 2 ? sc->cap : SELL_RUN_HASH / 2);
        sc->hkey = spmv__malloc((size_t)sc->hsize * sizeof *sc->hkey);
        sc->hused = spmv__malloc(nu * sizeof *sc->hused);
        sc->dcand = spmv__malloc(nc * sizeof *sc->dcand);
        sc->dmask = spmv__malloc(nc * sizeof *sc->dmask);
        sc->dbits = spmv__calloc((size_t)(sc->hsize + 63) / 64, sizeof *sc->dbits);
    }
    if (!sc->col || !sc->val || !sc->start || !sc->lc || !sc->lv || !sc->len || !sc->cur || !sc->rest || !sc->rkey ||
        !sc->rmask || !sc->rbits || !sc->rdst || !sc->rhit || !sc->bkey || !sc->bkey2 || !sc->bbits ||
        (T > 0 && !sc->hbits) ||
        (search && (!sc->hkey || !sc->hused || !sc->dcand || !sc->dmask || !sc->dbits))) {
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

/* The lanes of chunk k into sc: each lane's row (row rowmap[i] of A for stored row i; rowmap NULL: row i), columns
 * mapped through cmap (stored numbering) and ascending. Without cmap the lanes point into A (nothing copied); with
 * it their columns and values are copied into sc and sorted. */
static void chunk_lanes(const spmv_sell *S, const spmv_crs *A, const int32_t *rowmap, const int32_t *cmap, int32_t k,
                        chunk_scratch *sc, colval *tmp)
{
    const int32_t C = S->C;
    const int64_t r0 = (int64_t)k * C;
    int64_t pos = 0;
    for (int32_t r = 0; r < C; r++) {
        int64_t i = r0 + r;
        int32_t n = i < S->rows ? S->rowlen[i] : 0;
        sc->start[r] = pos;
        sc->len[r] = n;
        int64_t src = n ? A->rowptr[rowmap ? rowmap[i] : i] : 0;
        if (!cmap) { /* A's own row: columns ascending already (an empty lane points at the scratch: A's arrays
                        may be NULL, and NULL + 0 is undefined) */
            sc->lc[r] = n ? A->col + src : sc->col;
            sc->lv[r] = n ? A->val + src : sc->val;
            pos += n;
            continue;
        }
        int32_t *c = sc->col + pos;
        double *v = sc->val + pos;
        for (int32_t j = 0; j < n; j++) {
            c[j] = cmap[A->col[src + j]];
            v[j] = A->val[src + j];
        }
        sort_pairs(c, v, n, tmp);
        sc->lc[r] = c;
        sc->lv[r] = v;
        pos += n;
    }
    sc->nrun = 0;
}

/* Set bits of x (lanes of a run mask): the instruction where the build has it, else SWAR arithmetic inline (the
 * generic x86-64 build would call libgcc's __popcountdi2 for every candidate key) */
static inline int pop64(uint64_t x)
{
#if defined(__POPCNT__) || defined(__aarch64__)
    return __builtin_popcountll(x);
#else
    static const uint8_t pop8[256] = {
#define SPMV_P2(n) n, n + 1, n + 1, n + 2
#define SPMV_P4(n) SPMV_P2(n), SPMV_P2(n + 1), SPMV_P2(n + 1), SPMV_P2(n + 2)
#define SPMV_P6(n) SPMV_P4(n), SPMV_P4(n + 1), SPMV_P4(n + 1), SPMV_P4(n + 2)
        SPMV_P6(0), SPMV_P6(1), SPMV_P6(1), SPMV_P6(2)
#undef SPMV_P6
#undef SPMV_P4
#undef SPMV_P2
    };
    if (x < 256) return pop8[x]; /* the lanes of a chunk of C <= 8: one load (the branch goes one way per C) */
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* The mask of all C lanes (run columns need C <= 64) */
static inline uint64_t lanes_all(int32_t C) { return C == 64 ? ~(uint64_t)0 : ((uint64_t)1 << C) - 1; }

/* Run j found: key b, lanes `hit`, into sc's run list (key, mask bytes, mask word) */
static void run_add(chunk_scratch *sc, int32_t mb, int32_t b, uint64_t hit)
{
    uint8_t *m = sc->rmask + (size_t)sc->nrun * mb;
    if (mb == 1) /* C <= 8: no loop */
        m[0] = (uint8_t)hit;
    else
        for (int32_t q = 0; q < mb; q++) m[q] = (uint8_t)(hit >> (8 * q));
    sc->rbits[sc->nrun] = hit;
    sc->rkey[sc->nrun++] = b;
}

/* sc->rest[r] = entries of lane r outside the runs in sc (its length less the runs whose mask holds lane r) */
static void runs_rest(int32_t C, chunk_scratch *sc)
{
    const uint64_t full = lanes_all(C);
    int32_t nfull = 0;
    for (int32_t r = 0; r < C; r++) sc->rest[r] = sc->len[r];
    for (int32_t j = 0; j < sc->nrun; j++) { /* a run of most lanes (a stencil's): all less the lanes it lacks */
        const uint64_t m = sc->rbits[j];
        if (m == full) { /* every lane (the common case, without a population count) */
            nfull++;
        } else if (2 * pop64(m) > C) {
            nfull++;
            for (uint64_t h = full & ~m; h; h &= h - 1) sc->rest[__builtin_ctzll(h)]++;
        } else {
            for (uint64_t h = m; h; h &= h - 1) sc->rest[__builtin_ctzll(h)]--;
        }
    }
    if (nfull)
        for (int32_t r = 0; r < C; r++) sc->rest[r] -= nfull;
}

/* chunk_runs' fast path for a chunk whose C lanes hold the same keys (column - lane), as C consecutive rows of a
 * structured grid's interior do: every key is a run of all C lanes, in lane 0's (ascending) order, and no lane has
 * an entry left -- what the search below finds for such a chunk, in one pass over its entries and without a
 * search. 0 (sc untouched) when the lanes differ in length or in any key; 1 when it filled sc. T <= C <= 64. */
static int chunk_runs_uniform(int32_t C, int32_t T, chunk_scratch *sc)
{
    const int32_t n = sc->len[0];
    if (n == 0 || T > C) return 0;
    for (int32_t r = 1; r < C; r++)
        if (sc->len[r] != n) return 0;
    const int32_t *c0 = sc->lc[0];
    for (int32_t r = 1; r < C; r++) {
        const int32_t *c = sc->lc[r];
        int32_t diff = 0; /* a branch-free comparison of the whole lane (vectorizable) */
        for (int32_t p = 0; p < n; p++) diff |= (c[p] - r) ^ c0[p];
        if (diff) return 0;
    }
    /* n runs fit: the scratch holds entries / T + 1 >= C n / T + 1 > n run columns (T <= C) */
    const uint64_t full = lanes_all(C);
    const int32_t mb = mask_bytes(C);
    for (int32_t p = 0; p < n; p++) run_add(sc, mb, c0[p], full);
    for (int32_t r = 0; r < C; r++) sc->rest[r] = 0;
    return 1;
}

/* chunk_runs' second fast path: every lane's keys are among those of the longest lane (the first of the longest), as
 * at the edge of a structured grid, where a boundary row lacks some of its neighbours' keys (HPCG 128^3: 1 chunk in 8
 * of SELL-8, 1 in 2 of SELL-32). The candidates are then that lane's keys, and one merge per lane finds each key's
 * lanes: what the search finds, in the same (ascending) order. 0 (sc's runs untouched) when a lane holds a key the
 * longest lane lacks, or that lane has more keys than a batch. */
static int chunk_runs_subset(int32_t C, int32_t T, chunk_scratch *sc)
{
    int32_t ref = 0;
    for (int32_t r = 1; r < C; r++)
        if (sc->len[r] > sc->len[ref]) ref = r;
    const int32_t n = sc->len[ref];
    if (n == 0 || n > SELL_RUN_BATCH) return 0;
    const int32_t *c0 = sc->lc[ref];
    uint64_t *bits = sc->bbits;
    memset(bits, 0, (size_t)n * sizeof *bits);
    const int64_t lo = (int64_t)c0[0] - ref, span = (int64_t)c0[n - 1] - ref - lo; /* the longest lane's keys */
    const int direct = span < sc->hsize && sc->hbits;
    uint64_t *restrict tb = sc->hbits;
    uint64_t same = 0; /* the lanes of the longest lane's keys */
    int tab = 0, sub = 1;
    for (int32_t r = 0; r < C && sub; r++) {
        const int32_t *restrict c = sc->lc[r];
        const int32_t m = sc->len[r];
        const uint64_t lane = (uint64_t)1 << r;
        if (m == n) {
            /* the longest lane's keys (a grid row of the same neighbours: HPCG 16^3, SELL-8-1, 7 lanes of 8) hold
             * every candidate: one branch-free comparison of the whole lane (vectorizable; c - r == c0 - ref compared
             * modulo 2^32, where both sides span fewer than 2^32 values) and the lane's bit into every mask after */
            const uint32_t d = (uint32_t)r - (uint32_t)ref;
            uint32_t diff = 0;
            for (int32_t p = 0; p < n; p++) diff |= ((uint32_t)c[p] - d) ^ (uint32_t)c0[p];
            if (!diff) {
                same |= lane;
                continue;
            }
        }
        if (direct) {
            /* each key of the longest lane marks its index in chunk_runs_hash's zeroed table (on the first lane that
             * needs it), and every entry of the other lanes looks its key up there (a branch that fails only where
             * this path gives up): HPCG 32^3, SELL-8-1, where half the chunks touch a grid edge, the merge below took
             * 23 instructions per entry (callgrind) */
            if (!tab)
                for (int32_t i = 0; i < n; i++) tb[(int64_t)c0[i] - ref - lo] = (uint64_t)i + 1;
            tab = 1;
            for (int32_t p = 0; p < m; p++) {
                const uint64_t s = (uint64_t)((int64_t)c[p] - r - lo);
                const uint64_t i = s <= (uint64_t)span ? tb[s] : 0;
                if (!i) {
                    sub = 0;
                    break;
                }
                bits[i - 1] |= lane;
            }
        } else {
            for (int32_t p = 0, i = 0; p < m; p++, i++) { /* both ascending: i ends past this lane's key */
                const int32_t key = c[p] - r;
                while (i < n && c0[i] - ref < key) i++;
                if (i == n || c0[i] - ref != key) {
                    sub = 0;
                    break;
                }
                bits[i] |= lane;
            }
        }
    }
    if (tab)
        for (int32_t i = 0; i < n; i++) tb[(int64_t)c0[i] - ref - lo] = 0;
    if (!sub) return 0;
    const int32_t mb = mask_bytes(C);
    for (int32_t i = 0; i < n; i++)
        if (pop64(bits[i] | same) >= T) run_add(sc, mb, c0[i] - ref, bits[i] | same);
    runs_rest(C, sc);
    return 1;
}

/* The slot of key in chunk_runs_hash's table: its own, or the free one where it would go */
static inline uint32_t hash_slot(const int32_t *hk, const uint64_t *hb, int32_t key)
{
    uint32_t h = ((uint32_t)key * 0x9E3779B1u) >> (32 - SELL_RUN_HASH_BITS);
    while (hb[h] && hk[h] != key) h = (h + 1) & (SELL_RUN_HASH - 1);
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* a[0, n) ascending: an insertion sort for few (qsort's calls cost 3 instructions per entry on bcsstk13, SELL-8-1),
 * qsort beyond 32 */
static void sort_u64(uint64_t *a, int32_t n)
{
    if (n > 32) {
        qsort(a, (size_t)n, sizeof *a, cmp_u64);
        return;
    }
    for (int32_t i = 1; i < n; i++) {
        const uint64_t x = a[i];
        int32_t b = i;
        for (; b > 0 && a[b - 1] > x; b--) a[b] = a[b - 1];
        a[b] = x;
    }
}

/* The smallest and largest key (column - lane) of the chunk's lanes in sc (every lane ascending: its first and last
 * keys bound it); lo > hi where every lane is empty */
static inline void chunk_key_span(int32_t C, const chunk_scratch *sc, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX, *hi = INT64_MIN;
    for (int32_t r = 0; r < C; r++)
        if (sc->len[r] > 0) {
            if ((int64_t)sc->lc[r][0] - r < *lo) *lo = (int64_t)sc->lc[r][0] - r;
            if ((int64_t)sc->lc[r][sc->len[r] - 1] - r > *hi) *hi = (int64_t)sc->lc[r][sc->len[r] - 1] - r;
        }
}

/* chunk_runs' search for chunks of neither fast path whose keys span at most SELL_RUN_HASH values (the
 * unstructured chunks of a banded or in-cache matrix): the hash table's words indexed by key - (smallest key)
 * directly, so every entry costs one load, an or and a store, with neither hash nor probe. Then the pivot lanes' keys
 * (each key of T lanes is in one) in order: a key's first visit takes it where T or more lanes hold it, and clears
 * its word, so a later visit finds 0; the other lanes' words are cleared after. The taken keys in order (sorted, or
 * walked in a bitmap where there are many). What the hash
 * and batch searches find, in the same order. 0 (sc untouched) when the keys span more. */
static int chunk_runs_direct(int32_t C, int32_t T, chunk_scratch *sc)
{
    int64_t lo, hi;
    chunk_key_span(C, sc, &lo, &hi);
    if (lo > hi || hi - lo >= sc->hsize) return 0;
    const int32_t P = T <= C ? C - T + 1 : 0; /* pivot lanes (T > C: none, no run) */
    const int64_t base = lo;
    uint64_t *restrict tb = sc->hbits; /* zero between chunks */
    for (int32_t r = 0; r < C; r++) {
        const int32_t *restrict c = sc->lc[r];
        const uint64_t lane = (uint64_t)1 << r;
        const int64_t off = base + (int64_t)r; /* int64: base + r may pass INT32_MAX in an empty lane */
        for (int32_t p = 0, n = sc->len[r]; p < n; p++) tb[c[p] - off] |= lane;
    }
    /* the taken keys as (key - base) << 32 | index of their mask in sc->dmask (sorted below, then stored); at most
     * SELL_RUN_HASH distinct keys are taken, and one more slot is written */
    uint64_t *restrict cand = sc->dcand, *restrict dm = sc->dmask;
    int32_t nr = 0;
    for (int32_t r = 0; r < P; r++) {
        const int32_t *restrict c = sc->lc[r];
        const int64_t off = base + (int64_t)r; /* int64: base + r may pass INT32_MAX in an empty lane */
        for (int32_t p = 0, n = sc->len[r]; p < n; p++) {
            const int64_t s = c[p] - off;
            const uint64_t m = tb[s];
            tb[s] = 0;
            cand[nr] = (uint64_t)s << 32 | (uint32_t)nr;
            dm[nr] = m;
            nr += pop64(m) >= T;
        }
    }
    int64_t rest = 0; /* the other lanes' words: one by one, or the whole span where it is shorter than 2 per entry */
    for (int32_t r = P; r < C; r++) rest += sc->len[r];
    if (hi - lo < 2 * rest) {
        memset(tb, 0, (size_t)(hi - lo + 1) * sizeof *tb);
    } else {
        for (int32_t r = P; r < C; r++) {
            const int32_t *restrict c = sc->lc[r];
            const int64_t off = base + (int64_t)r; /* int64: base + r may pass INT32_MAX in an empty lane */
            for (int32_t p = 0, n = sc->len[r]; p < n; p++) tb[c[p] - off] = 0;
        }
    }
    const int32_t mb = mask_bytes(C);
    if (nr <= 32) { /* few: an insertion sort */
        sort_u64(cand, nr);
        for (int32_t j = 0; j < nr; j++)
            run_add(sc, mb, (int32_t)(base + (int64_t)(cand[j] >> 32)), dm[(uint32_t)cand[j]]);
    } else { /* many (mbeacxc: 45 per chunk of SELL-8-rows): in key order from a bitmap of the span, each key's
                index parked in its (zeroed) word of the table; qsort's calls cost more than the search */
        uint64_t *restrict bm = sc->dbits; /* zero between chunks */
        for (int32_t j = 0; j < nr; j++) {
            const uint64_t s = cand[j] >> 32;
            tb[s] = (uint64_t)j + 1;
            bm[s >> 6] |= (uint64_t)1 << (s & 63);
        }
        for (int64_t w = 0; w <= (hi - lo) >> 6; w++) {
            for (uint64_t h = bm[w]; h; h &= h - 1) {
                const int64_t s = w * 64 + __builtin_ctzll(h);
                run_add(sc, mb, (int32_t)(base + s), dm[tb[s] - 1]);
                tb[s] = 0;
            }
            bm[w] = 0;
        }
    }
    runs_rest(C, sc);
    return 1;
}

/* chunk_runs' search for chunks of neither fast path, where the pivot lanes hold at most SELL_RUN_HASH / 2 entries:
 * the pivot lanes' keys into a hash table with their lanes, the other lanes' keys looked up there (a key of T lanes
 * is in a pivot lane), the keys of T lanes or more sorted. What the batch search below finds, in one pass over the
 * entries without its merges' unpredictable branches: Groebner_id2003_aug (173 670 nonzeros), SELL-8-1, per
 * conversion (callgrind): 10.8 M instructions and 180 k mispredicted branches -> 5.0 M and 53 k; 6.6 -> 4.2 ms on
 * 1 core of the Intel Xeon VM. 0 (sc untouched) when the pivot lanes hold more entries. */
static int chunk_runs_hash(int32_t C, int32_t T, chunk_scratch *sc)
{
    const int32_t P = C - T + 1;
    int64_t np = 0;
    for (int32_t r = 0; r < P; r++) np += sc->len[r];
    if (np > SELL_RUN_HASH / 2 || sc->hsize < SELL_RUN_HASH) return 0; /* a smaller table: chunk_runs_direct took
                                                                             every chunk with entries before */
    int32_t *hk = sc->hkey, *used = sc->hused, nu = 0;
    uint64_t *hb = sc->hbits;
    for (int32_t r = 0; r < C; r++) {
        const int32_t *c = sc->lc[r];
        const uint64_t lane = (uint64_t)1 << r;
        for (int32_t p = 0; p < sc->len[r]; p++) {
            const int32_t key = c[p] - r;
            const uint32_t h = hash_slot(hk, hb, key);
            if (r < P && !hb[h]) hk[h] = key, used[nu++] = (int32_t)h; /* a pivot lane's new key */
            if (hb[h] || r < P) hb[h] |= lane;
        }
    }
    /* the keys of T lanes or more as (key - INT32_MIN) << 32 | slot, sorted */
    int32_t nr = 0;
    uint64_t *cand = sc->dcand;
    for (int32_t i = 0; i < nu; i++)
        if (pop64(hb[used[i]]) >= T)
            cand[nr++] = (uint64_t)((int64_t)hk[used[i]] - INT32_MIN) << 32 | (uint32_t)used[i];
    sort_u64(cand, nr);
    const int32_t mb = mask_bytes(C);
    for (int32_t j = 0; j < nr; j++)
        run_add(sc, mb, (int32_t)((int64_t)(cand[j] >> 32) + INT32_MIN), hb[(uint32_t)cand[j]]);
    for (int32_t i = 0; i < nu; i++) hb[used[i]] = 0;
    runs_rest(C, sc);
    return 1;
}

/* Run detection in chunk k (lanes already in sc): keys b = column - r shared by at least T lanes, ascending, into
 * sc->rkey/rmask/rbits; sc->rest[r] = entries of lane r left for gather columns (sell_fill_chunk finds the run
 * entries again by their columns). Every key shared by T lanes appears in one of the C - T + 1 pivot lanes
 * 0..C-T, so the candidates are the pivot lanes' keys. They are taken in ascending batches of up to SELL_RUN_BATCH:
 * the smallest keys at the pivot lanes' cursors (merged, without repeats), up to the batch's largest key `bound`
 * -- every pivot key <= bound is in the batch --; then each lane walks its keys <= bound once against the batch
 * (lane-major: O(entries + C * batch) per chunk), and the keys of T lanes or more become runs. A lane holds a
 * column at most once, so each of its keys at most once. */
static void chunk_runs(int32_t C, int32_t T, chunk_scratch *sc)
{
    const int32_t mb = mask_bytes(C);
    sc->nrun = 0;
    if (T < 1 || C > 64) {
        for (int32_t r = 0; r < C; r++) sc->rest[r] = sc->len[r];
        return;
    }
    if (chunk_runs_uniform(C, T, sc) || chunk_runs_subset(C, T, sc) || chunk_runs_direct(C, T, sc) ||
        chunk_runs_hash(C, T, sc))
        return;
    const int32_t P = C - T + 1; /* pivot lanes */
    const int32_t *const *lc = sc->lc;
    const int32_t *len = sc->len;
    int32_t *cur = sc->cur;
    for (int32_t r = 0; r < C; r++) cur[r] = 0;
    for (;;) {
        /* the batch: the smallest distinct keys at the pivot cursors (keys c - r >= -63 fit in 32 bits) */
        int32_t nb = 0;
        for (int32_t r = 0; r < P; r++) {
            const int32_t *c = lc[r];
            const int32_t n = len[r];
            int32_t p = cur[r], i = 0, m = 0;
            const int32_t *bk = sc->bkey;
            int32_t *out = sc->bkey2;
            while (m < SELL_RUN_BATCH && (i < nb || p < n)) {
                if (p >= n || (i < nb && bk[i] <= c[p] - r)) {
                    if (p < n && bk[i] == c[p] - r) p++;
                    out[m++] = bk[i++];
                } else {
                    out[m++] = c[p] - r;
                    p++;
                }
            }
            sc->bkey2 = sc->bkey;
            sc->bkey = out;
            nb = m;
        }
        if (nb == 0) break;
        const int32_t *bk = sc->bkey; /* every pivot key <= bk[nb - 1] is in the batch */
        uint64_t *bits = sc->bbits;
        memset(bits, 0, (size_t)nb * sizeof *bits);
        for (int32_t r = 0; r < C; r++) { /* the lanes of each candidate; every cursor past bound */
            const int32_t *c = lc[r];
            const int32_t n = len[r];
            const uint64_t lane = (uint64_t)1 << r;
            int32_t p = cur[r], i = 0;
            while (p < n && i < nb) { /* a merge of two ascending key lists; p ends at the first key > bound */
                const int32_t key = c[p] - r;
                if (key == bk[i]) {
                    bits[i++] |= lane;
                    p++;
                } else if (key < bk[i]) {
                    p++;
                } else {
                    i++;
                }
            }
            cur[r] = p;
        }
        for (int32_t i = 0; i < nb; i++)
            if (pop64(bits[i]) >= T) run_add(sc, mb, bk[i], bits[i]);
    }
    runs_rest(C, sc);
}

/* The runs chunk_runs found for this chunk before (R keys and masks, as it stores them), into sc: the same
 * sc->rkey/rmask/rbits/rest as chunk_runs, without searching for the keys (the conversion's second pass). */
static void chunk_runs_replay(int32_t C, chunk_scratch *sc, const int32_t *key, const uint8_t *mask, int32_t R)
{
    const int32_t mb = mask_bytes(C);
    memcpy(sc->rkey, key, (size_t)R * sizeof *key);
    memcpy(sc->rmask, mask, (size_t)R * (size_t)mb);
    for (int32_t j = 0; j < R; j++) sc->rbits[j] = spmv__run_mask(mask + (size_t)j * mb, mb);
    sc->nrun = R;
    runs_rest(C, sc);
}

/* The first position p in [lo, n) of the ascending c with c[p] >= col (n where none): a search without a branch on
 * the data (the halving's steps depend on the length only), after one test of lo itself, which is the answer in a
 * lane whose entries are all in runs (a grid's edge) */
static inline int32_t lane_find(const int32_t *c, int32_t lo, int32_t n, int64_t col)
{
    if (lo >= n || c[lo] >= col) return lo;
    const int32_t *b = c + lo;
    int32_t len = n - lo;
    while (len > 1) {
        const int32_t half = len / 2;
        b = b[half] < col ? b + half : b;
        len -= half;
    }
    return (int32_t)(b - c) + (*b < col);
}

/* The gather columns of lane r from slot j on, padded to the chunk's length L: `last` (the lane's last gather column,
 * -1 where it has none), else its first column, else (an empty lane) the column of lane `best` in the same slot,
 * which is filled before (0 in lane best itself) */
static inline void fill_gather_pad(int32_t *restrict gcol, double *restrict gval, int32_t C, int32_t L, int32_t r,
                                   int32_t best, int32_t j, int32_t last, const int32_t *c, int32_t n)
{
    if (last < 0 && n > 0) last = c[0]; /* every entry is in a run: pad with one of them */
    for (; j < L; j++) {
        const int64_t at = (int64_t)j * C + r;
        gcol[at] = last >= 0 ? last : r != best ? gcol[(int64_t)j * C + best] : 0;
        gval[at] = 0.0;
    }
}

/* sell_fill_chunk's lanes where the chunk's keys (column - lane) span fewer than SELL_RUN_HASH values: each run's
 * key marks its slot in chunk_runs' zeroed table (sc->hbits: 1 + the stored position of the run column; cleared
 * again after), and each lane's entries go in one pass without a branch on the data: to their run column's slot
 * where the table has their key, else to the next gather slot. A run's mask holds exactly the lanes that have its
 * key (every search of chunk_runs takes a key's mask from all lanes), so a lane's entry of a run key is that run's.
 * The lanes without an entry in a run column are padded first. The same layout as the search per run below (one
 * binary search per lane and run: hangGlider_2, SELL-8-1, 4 200 instructions per chunk against 1 400 of the plain
 * fill, callgrind). 0 (nothing written) where the keys span more or no table is there. */
static int fill_by_slots(spmv_sell *S, chunk_scratch *sc, int32_t k, int32_t best, int32_t *restrict gcol)
{
    const int32_t C = S->C, L = S->chunklen[k], R = sc->nrun;
    uint64_t *restrict slot = sc->hbits;
    if (!slot) return 0;
    int64_t lo, hi;
    chunk_key_span(C, sc, &lo, &hi);
    if (hi < lo || hi - lo >= sc->hsize) return 0;
    double *restrict gval = S->val + S->chunkptr[k];
    const int32_t *restrict rk = sc->rkey, *restrict rd = sc->rdst;
    const uint64_t *restrict rb = sc->rbits;
    const uint64_t full = lanes_all(C);
    for (int32_t j = 0; j < R; j++) {
        slot[rk[j] - lo] = (uint64_t)rd[j] + 1;
        for (uint64_t h = full & ~rb[j]; h; h &= h - 1) { /* the run's padding lanes */
            const int32_t r = __builtin_ctzll(h);
            const int64_t at = (int64_t)rd[j] * C + r;
            gcol[at] = spmv__run_pad_col(rk[j], r, S->cols, rb[j]);
            gval[at] = 0.0;
        }
    }
    for (int32_t q = 0; q < C; q++) {
        const int32_t r = q == 0 ? best : q <= best ? q - 1 : q;
        const int32_t *restrict c = sc->lc[r];
        const double *restrict v = sc->lv[r];
        const int32_t n = sc->len[r];
        const int64_t off = lo + r;
        int64_t j = R;
        int32_t last = -1;
        for (int32_t p = 0; p < n; p++) {
            const uint64_t s = slot[c[p] - off];
            const int64_t at = (s ? (int64_t)s - 1 : j) * C + r;
            j += s == 0;
            last = s ? last : c[p];
            gcol[at] = c[p];
            gval[at] = v[p];
        }
        fill_gather_pad(gcol, gval, C, L, r, best, (int32_t)j, last, c, n);
    }
    for (int32_t j = 0; j < R; j++) slot[rk[j] - lo] = 0;
    return 1;
}

/* Fill chunk k of S from the lanes and runs in sc (chunk_lanes + chunk_runs or chunk_runs_replay of the same chunk).
 * The run columns are stored full ones first (chunkfull[k]: the kernels read x there without masks, which costs a
 * load each; about 10-20 % of an in-cache stencil multiply on an Intel Xeon, AVX-512), each group in the key order of
 * sc; then the gather columns. The columns go to gcol (the chunk's C chunklen[k] positions: S->col + chunkptr[k], or
 * a chunk-sized scratch that sell_store_cols keeps only where a kernel reads col), the values to S->val. */
__attribute__((noinline)) static void sell_fill_chunk(spmv_sell *S, chunk_scratch *sc, int32_t k,
                                                      int32_t *restrict gcol)
{
    const int32_t C = S->C, L = S->chunklen[k], R = sc->nrun, mb = mask_bytes(C);
    const int64_t base = S->chunkptr[k];
    if (S->chunkfull) S->chunkfull[k] = 0;
    if (L == 0) return;
    /* restrict: the stores do not alias sc or S (the compiler reloaded S->col and S->val for every entry) */
    double *restrict gval = S->val + base;

    /* run columns: lane r reads b + r; padding lanes point at b + r when that is a column, else at a run lane */
    if (R > 0) {
        const int64_t q0 = S->runptr[k];
        const uint64_t full = lanes_all(C);
        int32_t F = 0;
        for (int32_t j = 0; j < R; j++) F += sc->rbits[j] == full;
        S->chunkfull[k] = F;
        /* every run of every lane, and no lane has other entries: lane r's p-th entry is run p's */
        int uniform = F == R && L == R;
        for (int32_t r = 0; r < C && uniform; r++) uniform = sc->rest[r] == 0;
        if (uniform) { /* a structured grid's interior (HPCG 128^3, SELL-8: 7 of 8 chunks): a transposing copy */
            memcpy(S->runbase + q0, sc->rkey, (size_t)R * sizeof *sc->rkey);
            memcpy(S->runmask + q0 * mb, sc->rmask, (size_t)R * (size_t)mb);
            for (int32_t r = 0; r < C; r++) {
                const int32_t *restrict c = sc->lc[r];
                const double *restrict v = sc->lv[r];
                for (int32_t j = 0; j < R; j++) {
                    gcol[(int64_t)j * C + r] = c[j];
                    gval[(int64_t)j * C + r] = v[j];
                }
            }
            return;
        }
        for (int32_t j = 0, f = 0, g = F; j < R; j++) sc->rdst[j] = sc->rbits[j] == full ? f++ : g++;
        for (int32_t j = 0; j < R; j++) {
            S->runbase[q0 + sc->rdst[j]] = sc->rkey[j];
            if (mb == 1) S->runmask[q0 + sc->rdst[j]] = sc->rmask[j]; /* C <= 8: no call per run */
            else memcpy(S->runmask + (q0 + sc->rdst[j]) * mb, sc->rmask + (size_t)j * mb, (size_t)mb);
        }
    }

    /* lane by lane, the lane of the most entries left for gather columns first (the first one on ties): empty lanes
     * pad with its columns */
    int32_t best = 0;
    for (int32_t r = 1; r < C; r++)
        if (sc->rest[r] > sc->rest[best]) best = r;
    if (R > 0 && fill_by_slots(S, sc, k, best, gcol)) return;
    const int32_t *restrict rk = sc->rkey, *restrict rd = sc->rdst;
    const uint64_t *restrict rb = sc->rbits;
    int32_t *restrict hit = sc->rhit;
    for (int32_t q = 0; q < C; q++) {
        const int32_t r = q == 0 ? best : q <= best ? q - 1 : q;
        const int32_t *restrict c = sc->lc[r];
        const double *restrict v = sc->lv[r];
        const int32_t n = sc->len[r];
        /* run columns: the lane's entry where the run has the lane (the search found it there: it is the first at or
         * past the last one found, as both are ascending), padding elsewhere; a branch per run, none per entry
         * (bcsstk13, SELL-8-1: a merge over every entry cost about 38 instructions per entry, callgrind) */
        int32_t nh = 0;
        for (int32_t j = 0, p = 0; j < R; j++) {
            const int64_t at = (int64_t)rd[j] * C + r;
            if (rb[j] >> r & 1) {
                p = lane_find(c, p, n, (int64_t)rk[j] + r);
                gcol[at] = c[p];
                gval[at] = v[p];
                hit[nh++] = p++;
            } else {
                gcol[at] = spmv__run_pad_col(rk[j], r, S->cols, rb[j]);
                gval[at] = 0.0;
            }
        }
        if (L == R) continue; /* every column of the chunk is a run column (a stencil's chunks) */
        /* gather columns from slot R: the entries between the run entries, in order, then padding */
        int32_t j = R, last = -1;
        for (int32_t h = 0, p0 = 0; h <= nh && sc->rest[r] > 0; h++) { /* rest 0: every entry is in a run */
            const int32_t p1 = h < nh ? hit[h] : n;
            for (int32_t p = p0; p < p1; p++, j++) {
                gcol[(int64_t)j * C + r] = c[p];
                gval[(int64_t)j * C + r] = v[p];
            }
            if (p1 > p0) last = c[p1 - 1];
            p0 = p1 + 1;
        }
        fill_gather_pad(gcol, gval, C, L, r, best, j, last, c, n);
    }
}

/* The columns of chunk k, filled into gcol (sell_fill_chunk), into S where a kernel reads them: nothing for the run
 * columns (the kernels and spmv__sell_col read runbase and runmask there); for the gather columns, with idx16 on
 * (S->colbase) and a span of fewer than 65536 columns, colbase[k] = the smallest and col16 = col - colbase[k], else
 * colbase[k] = -1 and col (32-bit). gcol == S->col + chunkptr[k] (the plain fill): only the 16-bit step, col stays
 * whole. The rest of col is never written: for HPCG 128^3, SELL-8-1 with the defaults, col (223 MB) had been
 * written in full and read by no kernel. Returns the entries with 16-bit indices. */
static int64_t sell_store_cols(spmv_sell *S, int32_t k, const int32_t *gcol)
{
    const int32_t C = S->C, R = S->chunkruns ? S->chunkruns[k] : 0;
    const int64_t base = S->chunkptr[k], g0 = (int64_t)R * C, n = S->chunkptr[k + 1] - base;
    if (S->colbase) S->colbase[k] = -1;
    if (n <= g0) return 0;
    if (S->colbase) {
        int32_t lo = gcol[g0], hi = gcol[g0];
        for (int64_t q = g0 + 1; q < n; q++) {
            lo = gcol[q] < lo ? gcol[q] : lo;
            hi = gcol[q] > hi ? gcol[q] : hi;
        }
        if ((int64_t)hi - lo <= UINT16_MAX) {
            uint16_t *restrict c16 = S->col16 + base;
            S->colbase[k] = lo;
            for (int64_t q = g0; q < n; q++) c16[q] = (uint16_t)(gcol[q] - lo);
            return n - g0;
        }
    }
    if (gcol != S->col + base) memcpy(S->col + base + g0, gcol + g0, (size_t)(n - g0) * sizeof *gcol);
    return 0;
}

/* Inside a parallel region over the parts of the thread partition: this thread takes parts t0, t0 + nt, ... (the
 * conversion's pass 2 first-touches them so, and the passes over the value indices follow it). */
static inline void part_cycle(int32_t *t0, int32_t *nt)
{
#ifdef _OPENMP
    *t0 = omp_get_thread_num(), *nt = omp_get_num_threads();
#else
    *t0 = 0, *nt = 1;
#endif
}

/* Value indices (spmv_sell_opts.vidx). The values are compared as bit patterns (so -0.0, 0.0 and NaN payloads stay
 * apart), first against the two most recent distinct values (a stencil's or an FEM matrix's coefficients come in
 * runs; a pattern matrix has one value), else by a search of the table. */

/* The index of b in a table of *n values (b appended when absent); -1 when b is absent and the table is full */
static inline int32_t vi_index(uint64_t *bits, int32_t *n, uint64_t b)
{
    int32_t i = 0;
    while (i < *n && bits[i] != b) i++;
    if (i == *n) {
        if (*n == SPMV_VTAB_MAX) return -1;
        bits[(*n)++] = b;
    }
    return i;
}

/* A part's table: its chunks' distinct values, the seed's first (vi_parts_init), then in order of first appearance. */
typedef struct vi_table {
    uint64_t bits[SPMV_VTAB_MAX];
    int32_t n;
} vi_table;

/* The distinct values (bit patterns) of val[0, n) into T in order of first appearance, +0.0 first when zero is set;
 * their count, or SPMV_VTAB_MAX + 1 where there are more (the scan stops at the 17th: T then holds 16 of them). */
static int32_t vi_scan_add(const double *val, int64_t n, vi_table *T)
{
    uint64_t t0 = 0;
    for (int64_t e = 0; e < n; e++) {
        uint64_t b;
        memcpy(&b, val + e, sizeof b);
        if (e > 0 && b == t0) continue;
        if (vi_index(T->bits, &T->n, b) < 0) return SPMV_VTAB_MAX + 1;
        t0 = b;
    }
    return T->n;
}
static int32_t vi_scan(const double *val, int64_t n, int zero, vi_table *T)
{
    T->n = 0;
    if (zero) T->bits[T->n++] = 0;
    return vi_scan_add(val, n, T);
}

/* The distinct values of val[0, n), +0.0 counted as one when zero is set, up to SPMV_VTAB_MAX + 1 (the scan stops
 * there: random values at the 17th entry). The tuner's test whether value indices can be tried. */
int32_t spmv__sell_count_values(const double *val, int64_t n, int zero)
{
    vi_table T;
    return vi_scan(val, n, zero, &T);
}

/* val8 of chunk k as indices into T (grown); 0 when a value beyond SPMV_VTAB_MAX appears. S's fields in locals: the
 * byte stores may alias anything, and the compiler would reload them per entry. Eight entries equal to the most
 * recent value (a stencil's chunk column: one coefficient in every lane) take one branch-free test and one 8-byte
 * store; the others one test each against the two most recent values, then the table. HPCG 32^3, SELL-8-1 (half of
 * its chunks at a grid edge): 11.4 -> 8.4 instructions per entry (callgrind); HPCG 128^3 at 2 threads of the Intel
 * Xeon VM, with the seeded part tables (vi_parts_init): the value indices' share of the conversion 0.09 -> 0.05 s. */
static int vi_chunk(spmv_sell *S, int32_t k, vi_table *T)
{
    const double *val = S->val;
    uint8_t *v8 = S->val8;
    uint64_t *bits = T->bits;
    int32_t n = T->n;
    const int64_t p1 = S->chunkptr[k + 1];
    uint64_t t0 = n > 0 ? bits[0] : 0, t1 = t0;
    uint8_t i0 = 0, i1 = 0;  /* the two most recent values and their indices */
    int have = n > 0;        /* a seeded table: its first value is the most recent */
    for (int64_t p = S->chunkptr[k]; p < p1;) {
        if (have && p1 - p >= 8) {
            uint64_t d = 0;
            for (int q = 0; q < 8; q++) {
                uint64_t b;
                memcpy(&b, val + p + q, sizeof b);
                d |= b ^ t0;
            }
            if (d == 0) {
                memset(v8 + p, i0, 8);
                p += 8;
                continue;
            }
        }
        for (const int64_t e = p1 - p < 8 ? p1 : p + 8; p < e; p++) {
            uint64_t b;
            memcpy(&b, val + p, sizeof b);
            uint8_t i;
            if (have && b == t0) i = i0;
            else if (have && b == t1) i = i1, t1 = t0, i1 = i0, t0 = b, i0 = i;
            else {
                const int32_t j = vi_index(bits, &n, b);
                if (j < 0) return 0;
                i = (uint8_t)j;
                if (have) t1 = t0, i1 = i0;
                else t1 = b, i1 = i; /* the first value: both slots */
                t0 = b, i0 = i, have = 1;
            }
            v8[p] = i;
        }
    }
    T->n = n;
    return 1;
}

/* Per-part tables of the value indices: okp[t] = 0 when part t's chunks hold more than SPMV_VTAB_MAX values. */
typedef struct vi_parts {
    vi_table *pt;
    uint8_t *map;  /* SPMV_VTAB_MAX per part: part index -> merged index */
    int32_t *okp;
} vi_parts;

static void vi_parts_free(vi_parts *V)
{
    spmv__free(V->pt), spmv__free(V->map), spmv__free(V->okp);
    V->pt = NULL, V->map = NULL, V->okp = NULL;
}
/* np part tables, each seeded with the values of `seed` in its order (NULL: empty): where the parts find no other
 * values, or find them in the same order, the merge renumbers nothing (HPCG 128^3 at 2 threads: part 0 began with 26,
 * part 1 with -1, and renumbering part 1 cost 20 ms of a 0.43 s conversion). */
static int vi_parts_init(vi_parts *V, int32_t np, const vi_table *seed)
{
    V->pt = spmv__malloc((size_t)np * sizeof *V->pt);
    V->map = spmv__malloc((size_t)np * SPMV_VTAB_MAX);
    V->okp = spmv__malloc((size_t)np * sizeof *V->okp);
    if (!V->pt || !V->map || !V->okp) {
        vi_parts_free(V);
        return -1;
    }
    for (int32_t t = 0; t < np; t++) {
        V->okp[t] = 1;
        V->pt[t].n = seed ? seed->n : 0;
        if (seed) memcpy(V->pt[t].bits, seed->bits, (size_t)seed->n * sizeof *seed->bits);
    }
    return 0;
}

/* The indices of chunk k of part t, by the part's table (the conversion calls it right after filling the chunk, while
 * its values are in the cache) */
static inline void vi_part_chunk(spmv_sell *S, vi_parts *V, int32_t t, int32_t k)
{
    if (V->okp[t]) V->okp[t] = vi_chunk(S, k, &V->pt[t]);
}

/* Merge the part tables in part order into S->vtab (S->nvals) and renumber each part's indices to it, on the
 * threads that first-touched the parts. 1: done; 0: more than SPMV_VTAB_MAX values in all (val8 unusable). */
static int vi_merge(spmv_sell *S, vi_parts *V)
{
    const int32_t np = S->nparts;
    uint64_t bits[SPMV_VTAB_MAX];
    int32_t n = 0;
    for (int32_t t = 0; t < np; t++) {
        if (!V->okp[t]) return 0;
        for (int32_t j = 0; j < V->pt[t].n; j++) {
            const int32_t i = vi_index(bits, &n, V->pt[t].bits[j]);
            if (i < 0) return 0;
            V->map[(size_t)t * SPMV_VTAB_MAX + j] = (uint8_t)i;
        }
    }
    memset(S->vtab, 0, SPMV_VTAB_MAX * sizeof *S->vtab);
    memcpy(S->vtab, bits, (size_t)n * sizeof *bits);
    S->nvals = n;
#pragma omp parallel num_threads(np) if (np > 1 && S->stored >= SELL_PARALLEL_MIN) /* as pass 2 */
    {
        int32_t t0, nt;
        part_cycle(&t0, &nt);
        for (int32_t t = t0; t < np; t += nt) {
            const uint8_t *m = V->map + (size_t)t * SPMV_VTAB_MAX;
            int identity = 1;
            for (int32_t j = 0; j < V->pt[t].n; j++) identity &= m[j] == j;
            uint8_t *v8 = S->val8;
            const int64_t p1 = S->chunkptr[S->part[t + 1]];
            if (!identity)
                for (int64_t p = S->chunkptr[S->part[t]]; p < p1; p++) v8[p] = m[v8[p]];
        }
    }
    return 1;
}

/* The value indices of every chunk again (spmv_sell_update_values; S->val8 allocated): 1 done, 0 too many values,
 * -1 out of memory */
static int vi_build(spmv_sell *S)
{
    vi_parts V;
    vi_table seed; /* the first stored values (all of them in the final table) */
    const int64_t cstored = S->chunkptr[S->nchunks];
    if (vi_scan(S->val, cstored < 4096 ? cstored : 4096, 0, &seed) > SPMV_VTAB_MAX) return 0;
    if (vi_parts_init(&V, S->nparts, &seed)) return -1;
    const int32_t np = S->nparts;
#pragma omp parallel num_threads(np) if (np > 1 && S->stored >= SELL_PARALLEL_MIN) /* as pass 2 */
    {
        int32_t t0, nt;
        part_cycle(&t0, &nt);
        for (int32_t t = t0; t < np; t += nt)
            for (int32_t k = S->part[t]; k < S->part[t + 1]; k++) vi_part_chunk(S, &V, t, k);
    }
    const int ok = vi_merge(S, &V);
    vi_parts_free(&V);
    return ok;
}

/* spmv_sell.prefetch: from SPMV_PREFETCH_BYTES of plain values; with value indices from SPMV_VIDX_AUTO_ENTRIES
 * stored entries. Intel Xeon VM, AVX-512, SELL-32-1 with value indices, SPMV_PREFETCH=0 -> 1, medians of 5
 * interleaved, Gflop/s at 1 / 2 threads: HPCG 16^3 (in L2) 7.90 / 12.86 -> 7.54 / 12.66, 24^3 8.61 / 15.13 ->
 * 9.24 / 15.55, 32^3 10.12 / 14.24 -> 10.13 / 16.77 (the plain kernels in cache: -6 to -14 %). */
static void sell_set_prefetch(spmv_sell *S)
{
    const int vi = S->val8 && S->stored >= SPMV_VIDX_AUTO_ENTRIES;
    S->prefetch = spmv__prefetch_wanted(vi ? SPMV_PREFETCH_BYTES : S->stored * (int64_t)sizeof(double));
}

/* Drop the value indices (the kernels read val) */
static void vi_drop(spmv_sell *S)
{
    spmv__free(S->val8), spmv__free(S->vtab);
    S->val8 = NULL, S->vtab = NULL, S->nvals = 0;
    sell_set_prefetch(S);
}

/* Share of A's nonzeros that run columns of threshold T would hold in SELL-C-1 (rows in their own order), from up to
 * `sample` chunks spread over the matrix (one per stratum, sell_sample_chunk; all chunks when there are fewer): the
 * model's evidence for keeping rows in order (sigma = 1) rather than sorting them; *per_chunk (unless NULL) = their
 * run entries per sampled chunk. 0 when T < 1, C > 64 or A is empty; -1 when out of memory. */
double spmv__sell_run_share(const spmv_crs *A, int32_t C, int32_t T, int32_t sample, double *per_chunk)
{
    if (per_chunk) *per_chunk = 0.0;
    if (T < 1 || C < 1 || C > 64 || A->rows < 1 || A->nnz < 1) return 0.0;
    const int64_t nch = ((int64_t)A->rows + C - 1) / C;
    const int64_t ns = sample > 0 && nch > sample ? sample : nch; /* sell_sample_chunk */
    int64_t widest = 0;
    for (int64_t i = 0; i < ns; i++) {
        const int64_t k = sell_sample_chunk(i, ns, nch);
        int64_t r0 = k * C, r1 = r0 + C < A->rows ? r0 + C : A->rows;
        if (A->rowptr[r1] - A->rowptr[r0] > widest) widest = A->rowptr[r1] - A->rowptr[r0];
    }
    chunk_scratch sc;
    if (scratch_init(&sc, C, T, widest, A->cols, 1) != 0) return -1.0;
    int64_t in_runs = 0, seen = 0;
    for (int64_t q = 0; q < ns; q++) {
        const int64_t r0 = sell_sample_chunk(q, ns, nch) * C;
        int64_t pos = 0;
        for (int32_t r = 0; r < C; r++) { /* the lanes: rows r0 + r, columns already ascending */
            const int64_t i = r0 + r;
            const int64_t b = i < A->rows ? A->rowptr[i] : 0, n = i < A->rows ? A->rowptr[i + 1] - b : 0;
            sc.start[r] = pos;
            sc.len[r] = (int32_t)n;
            sc.lc[r] = n ? A->col + b : sc.col;
            pos += n;
        }
        sc.nrun = 0;
        chunk_runs(C, T, &sc);
        for (int32_t j = 0; j < sc.nrun; j++) in_runs += pop64(sc.rbits[j]);
        seen += pos;
    }
    scratch_free(&sc);
    if (per_chunk) *per_chunk = ns > 0 ? (double)in_runs / (double)ns : 0.0;
    return seen > 0 ? (double)in_runs / (double)seen : 0.0;
}

/* B = P A P^T in S's stored row order: row i of B is row perm[i] of A with columns through iperm, ascending. Rows in
 * parallel. Only rowptr/col/val of B are set. Returns 0, or -1 without memory (B left empty). */
static int build_permuted(const spmv_crs *A, const spmv_sell *S, spmv_crs *B)
{
    const int32_t rows = S->rows;
    memset(B, 0, sizeof *B);
    B->rows = rows, B->cols = A->cols, B->nnz = A->nnz;
    B->rowptr = spmv__malloc(((size_t)rows + 1) * sizeof *B->rowptr);
    B->col = spmv__malloc((size_t)A->nnz * sizeof *B->col);
    B->val = spmv__malloc((size_t)A->nnz * sizeof *B->val);
    if (!B->rowptr || !B->col || !B->val) goto nomem;
    int32_t maxrow = 0;
    B->rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++) {
        B->rowptr[i + 1] = B->rowptr[i] + S->rowlen[i];
        if (S->rowlen[i] > maxrow) maxrow = S->rowlen[i];
    }
    int failed = 0;
#pragma omp parallel num_threads(spmv__max_threads()) reduction(| : failed)
    {
        colval *tmp = maxrow > 32 ? spmv__malloc((size_t)maxrow * sizeof *tmp) : NULL;
        if (maxrow > 32 && !tmp) failed = 1;
#pragma omp for schedule(static)
        for (int32_t i = 0; i < rows; i++) {
            const int64_t s0 = A->rowptr[S->perm[i]], d0 = B->rowptr[i];
            const int32_t n = S->rowlen[i];
            for (int32_t j = 0; j < n; j++) {
                B->col[d0 + j] = S->iperm[A->col[s0 + j]];
                B->val[d0 + j] = A->val[s0 + j];
            }
            sort_pairs(B->col + d0, B->val + d0, n, tmp); /* without tmp: insertion sort, still right */
        }
        spmv__free(tmp);
    }
    if (!failed) return 0;
nomem:
    spmv__free(B->rowptr), spmv__free(B->col), spmv__free(B->val);
    memset(B, 0, sizeof *B);
    return -1;
}

static void free_permuted(spmv_crs *B)
{
    spmv__free(B->rowptr), spmv__free(B->col), spmv__free(B->val);
    memset(B, 0, sizeof *B);
}

/* Thread partition for nthreads threads (0: auto): new arrays. The chunks [part[t], part[t+1]) balanced by stored
 * entries; the CRS part (when S->nlong > 0) by merge path (longpart, longsplit, see spmv_crs.split). */
static spmv_status sell_partition(const spmv_sell *S, int nthreads, const char *fn, int32_t **part_out,
                                  int32_t **longpart_out, int64_t **longsplit_out, int32_t *nparts_out)
{
    if (nthreads < 0 || nthreads > SPMV_MAX_THREADS)
        return spmv__error(SPMV_ERR_ARG, "%s: nthreads = %d outside 0..%d", fn, nthreads, SPMV_MAX_THREADS);
    int32_t nparts = nthreads > 0 ? nthreads : spmv__auto_threads(S->stored);
    if (nparts < 1) nparts = 1;
    int32_t *part = spmv__malloc(((size_t)nparts + 1) * sizeof *part), *lpart = NULL;
    int64_t *lsplit = NULL;
    if (S->nlong > 0) {
        lpart = spmv__malloc(((size_t)nparts + 1) * sizeof *lpart);
        lsplit = spmv__malloc(((size_t)nparts + 1) * sizeof *lsplit);
    }
    if (!part || (S->nlong > 0 && (!lpart || !lsplit))) {
        spmv__free(part);
        spmv__free(lpart);
        spmv__free(lsplit);
        return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for a partition of %d parts", fn, nparts);
    }
    spmv__partition(S->chunkptr, S->nchunks, nparts, part);
    if (S->nlong > 0) spmv__merge_partition(S->longptr, S->nlong, nparts, lpart, lsplit);
    *part_out = part;
    *longpart_out = lpart;
    *longsplit_out = lsplit;
    *nparts_out = nparts;
    return SPMV_OK;
}

/* Part t writes the permuted rows [a, b): each line of y (owner[line]: -1 none yet, -2 shared) they land in through
 * perm; returns the lines that became shared */
static int64_t yshared_mark(const int32_t *perm, int64_t a, int64_t b, int32_t t, int32_t *owner)
{
    int64_t shared = 0;
    for (int64_t i = a; i < b; i++) {
        int32_t *o = owner + perm[i] / 8;
        if (*o == -1) *o = t;
        else if (*o != t && *o != -2) *o = -2, shared++;
    }
    return shared;
}

/* S->yshared for S's partition: the lines of y (8 rows, original order) whose rows more than one part writes -- the
 * chunks' rows of part t and the CRS-part rows it finishes (longpart). 0 where y is indexed directly, with one
 * part, or without the memory for the count (then nothing is held against a team). */
static void sell_set_yshared(spmv_sell *S)
{
    S->yshared = 0;
    if (S->nparts < 2 || S->permuted || S->identity || S->rows == 0) return;
    const int64_t nlines = ((int64_t)S->rows + 7) / 8, nbulk = (int64_t)S->rows - S->nlong;
    int32_t *owner = spmv__malloc((size_t)nlines * sizeof *owner);
    if (!owner) return;
    for (int64_t l = 0; l < nlines; l++) owner[l] = -1;
    for (int32_t t = 0; t < S->nparts; t++) {
        const int64_t i1 = (int64_t)S->part[t + 1] * S->C;
        S->yshared += yshared_mark(S->perm, (int64_t)S->part[t] * S->C, i1 < nbulk ? i1 : nbulk, t, owner);
        if (S->longpart)
            S->yshared += yshared_mark(S->perm, nbulk + S->longpart[t], nbulk + S->longpart[t + 1], t, owner);
    }
    spmv__free(owner);
}

static int int32_desc(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x < y) - (x > y);
}

/* The typical long row of the long-row rule: the smallest length l such that all but the longest
 * max(1, floor(rows / 100)) rows have at most l entries (the 99th percentile; with fewer than 200 rows the second
 * longest, so that one outlier always stands out); lengths above 2^20 count as 2^20. */
static spmv_status length_q99(const spmv_crs *A, int32_t *out)
{
    enum { CAP = 1 << 20 };
    const int32_t rows = A->rows;
    int64_t maxlen = 0;
    for (int32_t i = 0; i < rows; i++) {
        int64_t l = A->rowptr[i + 1] - A->rowptr[i];
        if (l > maxlen) maxlen = l;
    }
    const int32_t nb = (int32_t)(maxlen < CAP ? maxlen : CAP) + 1;
    int64_t *hist = spmv__calloc((size_t)nb, sizeof *hist);
    if (!hist) return spmv__error(SPMV_ERR_NOMEM, "spmv_sell_from_crs: out of memory for a histogram of %d lengths", nb);
    for (int32_t i = 0; i < rows; i++) {
        int64_t l = A->rowptr[i + 1] - A->rowptr[i];
        hist[l < nb - 1 ? l : nb - 1]++;
    }
    const int64_t drop = rows / 100 > 1 ? rows / 100 : 1, want = rows - drop;
    int64_t seen = 0;
    int32_t l = 0;
    for (; l < nb - 1; l++) {
        seen += hist[l];
        if (seen >= want) break;
    }
    spmv__free(hist);
    *out = l;
    return SPMV_OK;
}

spmv_status spmv__sell_long_rows(const spmv_crs *A, int32_t long_rows, int32_t C, const int32_t *order, uint8_t *mark,
                                 int32_t *threshold, int32_t *nlong)
{
    const int32_t rows = A->rows;
    *threshold = 0;
    *nlong = 0;
    if (rows > 0) memset(mark, 0, (size_t)rows);
    if (long_rows == 0 || rows == 0) return SPMV_OK;
    int64_t thr = long_rows;
    if (long_rows < 0) { /* auto: max(64, 4 q99) */
        int32_t q99 = 0;
        spmv_status st = length_q99(A, &q99);
        if (st != SPMV_OK) return st;
        thr = 4 * (int64_t)q99;
        if (thr < SPMV_SELL_LONG_MIN) thr = SPMV_SELL_LONG_MIN;
        if (thr > INT32_MAX) thr = INT32_MAX;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < rows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > thr) {
            mark[i] = 1;
            n++;
        }
    if (n == 0) return SPMV_OK;
    /* the (rows - n) mod C longest remaining rows too (ties: the earlier one in the incoming order), so that the
     * chunks hold a multiple of C rows and every chunk is full */
    const int32_t extra = (rows - n) % C;
    if (extra > 0 && extra <= 64) { /* a short list, kept sorted: O(rows) for the usual C */
        sell_key top[64];
        int32_t have = 0;
        for (int32_t p = 0; p < rows; p++) {
            const int32_t r = order ? order[p] : p;
            if (mark[r]) continue;
            const int32_t len = (int32_t)(A->rowptr[r + 1] - A->rowptr[r]);
            if (have == extra && len <= top[have - 1].len) continue;
            int32_t j = have < extra ? have++ : extra - 1; /* insert, descending by length, earlier first */
            while (j > 0 && top[j - 1].len < len) {
                top[j] = top[j - 1];
                j--;
            }
            top[j] = (sell_key){len, r};
        }
        for (int32_t j = 0; j < have; j++) mark[top[j].pos] = 1;
        n += have;
    } else if (extra > 64) { /* a large C: the extra-th longest length L by sorting, then the rows above L and the
                                first rows of length L in the incoming order */
        int32_t *len = spmv__malloc((size_t)(rows - n) * sizeof *len);
        if (!len) return spmv__error(SPMV_ERR_NOMEM, "spmv_sell_from_crs: out of memory for %d row lengths", rows - n);
        int32_t m = 0;
        for (int32_t r = 0; r < rows; r++)
            if (!mark[r]) len[m++] = (int32_t)(A->rowptr[r + 1] - A->rowptr[r]);
        qsort(len, (size_t)m, sizeof *len, int32_desc);
        const int32_t L = len[extra - 1];
        int32_t above = 0;
        for (int32_t j = 0; j < extra; j++) above += len[j] > L;
        spmv__free(len);
        int32_t ties = extra - above;
        for (int32_t p = 0; p < rows; p++) {
            const int32_t r = order ? order[p] : p;
            if (mark[r]) continue;
            const int64_t l = A->rowptr[r + 1] - A->rowptr[r];
            if (l > L || (l == L && ties > 0 && ties--)) mark[r] = 1;
        }
        n += extra;
    }
    *threshold = (int32_t)thr;
    *nlong = n;
    return SPMV_OK;
}

/* The padding guard (spmv_sell_opts.max_stored_factor) on `stored` entries. */
static spmv_status padding_guard(const spmv_sell *S, const spmv_sell_opts *o, int64_t stored, const char *fn)
{
    if (!(o->max_stored_factor > 0)) return SPMV_OK;
    if (stored <= SPMV_SELL_GUARD_FLOOR || (double)stored <= o->max_stored_factor * (double)S->nnz) return SPMV_OK;
    const double bytes = (double)stored * (sizeof(double) + sizeof(int32_t));
    return spmv__error(SPMV_ERR_PADDING,
                       "%s: SELL-%d-%d would store %lld entries for %lld nonzeros (%.1f x nnz, beta = %.3g; %.3g GB of "
                       "values and column indices), above the limit of max_stored_factor = %g x nnz: sort with a "
                       "larger sigma, lower C, keep long rows in the CRS part (long_rows = -1) or raise "
                       "opts.max_stored_factor (0 = no limit)",
                       fn, S->C, S->sigma, (long long)stored, (long long)S->nnz,
                       S->nnz > 0 ? (double)stored / (double)S->nnz : 0.0,
                       stored > 0 ? (double)S->nnz / (double)stored : 1.0, bytes * 1e-9, o->max_stored_factor);
}

/* The CRS part's entries that thread t multiplies, [longsplit[t], longsplit[t+1]) (first touch by the multiply's
 * partition). With cmap (permuted numbering) a row is sorted again, so it is written whole by the part holding its
 * first entry. Columns through cmap (stored numbering), ascending. tmp: room for the longest row when cmap is set
 * (NULL: insertion sort). */
static void long_fill(spmv_sell *S, const spmv_crs *A, const int32_t *rowmap, const int32_t *cmap, int32_t t,
                      colval *tmp)
{
    const int32_t base = S->rows - S->nlong;
    const int64_t k0 = S->longsplit[t], k1 = S->longsplit[t + 1];
    if (k1 <= k0) return;
    int32_t j = S->longpart[t]; /* the row holding entry k0 (merge-path invariant) */
    if (!cmap) {
        for (; j < S->nlong && S->longptr[j] < k1; j++) {
            const int64_t b = S->longptr[j] > k0 ? S->longptr[j] : k0;
            const int64_t e = S->longptr[j + 1] < k1 ? S->longptr[j + 1] : k1;
            const int64_t shift = A->rowptr[rowmap ? rowmap[base + j] : base + j] - S->longptr[j];
            if (e > b) {
                memcpy(S->longcol + b, A->col + shift + b, (size_t)(e - b) * sizeof *S->longcol);
                memcpy(S->longval + b, A->val + shift + b, (size_t)(e - b) * sizeof *S->longval);
            }
        }
        return;
    }
    if (S->longptr[j] < k0) j++; /* started by an earlier part */
    for (; j < S->nlong && S->longptr[j] < k1; j++) {
        const int64_t d = S->longptr[j], n = S->longptr[j + 1] - d;
        const int64_t src = A->rowptr[rowmap ? rowmap[base + j] : base + j];
        for (int64_t q = 0; q < n; q++) {
            S->longcol[d + q] = cmap[A->col[src + q]];
            S->longval[d + q] = A->val[src + q];
        }
        sort_pairs(S->longcol + d, S->longval + d, (int32_t)n, tmp);
    }
}

/* S without run columns (runs = 0, as without run detection): the run counts and pass 1's kept runs freed, T = 0 */
static void runs_drop(spmv_sell *S, int32_t **tkey, uint8_t **tmask, int64_t **roff, int32_t *T)
{
    spmv__free(S->chunkruns), spmv__free(S->runptr);
    S->chunkruns = NULL, S->runptr = NULL;
    spmv__free(*tkey), spmv__free(*tmask), spmv__free(*roff);
    *tkey = NULL, *tmask = NULL, *roff = NULL;
    *T = 0;
    S->runs = 0;
}

/* Whether automatic run columns of threshold T pay on S (spmv__sell_runs_pay of what the search on
 * sell_run_sample(S->nchunks) chunks of S (sell_sample_chunk), the lanes read as pass 1 reads them, finds; both
 * figures kept in S->run_sample_share and run_sample_per_chunk). 1 yes, 0 no, -1 without memory for the scratch. */
static int sample_runs_pay(spmv_sell *S, const spmv_crs *src, const int32_t *rowmap, const int32_t *cmap,
                           int32_t T, int64_t widest, int64_t maxrow)
{
    chunk_scratch sc;
    colval *tmp = NULL;
    if (scratch_init(&sc, S->C, T, widest, S->cols, 1) != 0) return -1;
    if (cmap && maxrow > 32 && !(tmp = spmv__malloc((size_t)maxrow * sizeof *tmp))) {
        scratch_free(&sc);
        return -1;
    }
    int64_t in_runs = 0, seen = 0;
    const int32_t ns = sell_run_sample(S->nchunks);
    for (int32_t i = 0; i < ns; i++) {
        const int32_t k = sell_sample_chunk(i, ns, S->nchunks);
        chunk_lanes(S, src, rowmap, cmap, k, &sc, tmp);
        chunk_runs(S->C, T, &sc);
        for (int32_t j = 0; j < sc.nrun; j++) in_runs += pop64(sc.rbits[j]);
        for (int32_t r = 0; r < S->C; r++) seen += sc.len[r];
    }
    spmv__free(tmp);
    scratch_free(&sc);
    S->run_sample_share = seen > 0 ? (double)in_runs / (double)seen : 0.0;
    S->run_sample_per_chunk = ns > 0 ? (double)in_runs / (double)ns : 0.0;
    return spmv__sell_runs_pay(S->C, S->run_sample_share, S->run_sample_per_chunk);
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
    if (opts->nt_stores < -1 || opts->nt_stores > 1)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->nt_stores = %d: use -1 (auto), 0 (off) or 1 (on)", fn,
                           opts->nt_stores);
    if (opts->idx16 < -1 || opts->idx16 > 1)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->idx16 = %d: use -1 (auto), 0 (off) or 1 (on)", fn, opts->idx16);
    if (opts->vidx < -1 || opts->vidx > 1)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->vidx = %d: use -1 (auto), 0 (off) or 1 (on)", fn, opts->vidx);
    if (opts->xaccess < SPMV_X_AUTO || opts->xaccess > SPMV_X_EMUL)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->xaccess = %d is not a spmv_xaccess value", fn, opts->xaccess);
    if (opts->long_rows < -1)
        return spmv__error(SPMV_ERR_ARG, "%s: opts->long_rows = %d: use -1 (auto), 0 (off) or a row length", fn,
                           opts->long_rows);
    if (!(opts->max_stored_factor >= 0) || isinf(opts->max_stored_factor))
        return spmv__error(SPMV_ERR_ARG, "%s: opts->max_stored_factor = %g: use a factor > 0, or 0 for no limit", fn,
                           opts->max_stored_factor);

    const int32_t rows = A->rows, C = opts->C;
    const int square = A->rows == A->cols;
    spmv_status st = SPMV_OK;
    int32_t *order = NULL, *order_inv = NULL; /* RCM order (perm, iperm) */
    sell_key *keys = NULL;
    spmv_crs Bp = {0}; /* the permuted rows (build_permuted), when made */
    int64_t *roff = NULL; /* pass 1's runs for pass 2: chunk k's at [roff[k], roff[k + 1]) of tkey/tmask */
    int32_t *tkey = NULL;
    vi_parts vip = {0}; /* value indices: the part tables */
    uint8_t *tmask = NULL;
    uint8_t *mark = NULL; /* mark[original row] = 1: the row goes to the CRS part */
    int32_t *cmap = NULL;

    spmv_sell *S = spmv__calloc(1, sizeof *S);
    if (!S) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the matrix struct", fn);
    S->rows = rows;
    S->cols = A->cols;
    S->C = C;
    S->sigma = opts->sigma < rows ? opts->sigma : (rows > 0 ? rows : 1);
    S->run_sample_share = S->run_sample_per_chunk = -1.0; /* no sample taken (yet) */
    S->unroll = opts->unroll;
    S->permuted = opts->permuted ? 1 : 0;
    S->nt_stores = opts->nt_stores < 0 ? (int64_t)rows * (int64_t)sizeof(double) >= SPMV_NT_AUTO_BYTES
                                       : opts->nt_stores != 0;
    S->nnz = A->nnz;

    const size_t nrows = (size_t)rows;
    S->rowlen = spmv__malloc(nrows * sizeof *S->rowlen);
    S->perm = spmv__malloc(nrows * sizeof *S->perm);
    S->iperm = spmv__malloc(nrows * sizeof *S->iperm);
    keys = spmv__malloc(nrows * sizeof *keys);
    mark = spmv__malloc(nrows);
    if (nrows && (!S->rowlen || !S->perm || !S->iperm || !keys || !mark)) {
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

    /* the CRS part (hybrid): long rows, and enough of the next longest that the chunks hold a multiple of C rows */
    int32_t nlong = 0;
    st = spmv__sell_long_rows(A, opts->long_rows, C, order, mark, &S->long_min, &nlong);
    if (st != SPMV_OK) goto fail;
    const int32_t nbulk = rows - nlong;
    S->nlong = nlong;
    S->nchunks = nlong > 0 ? nbulk / C : (int32_t)(((int64_t)rows + C - 1) / C);
    const size_t nch = (size_t)S->nchunks;
    S->chunkptr = spmv__malloc((nch + 1) * sizeof *S->chunkptr);
    S->chunklen = spmv__malloc(nch * sizeof *S->chunklen);
    if (!S->chunkptr || (nch && !S->chunklen)) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the arrays of %d chunks", fn, S->nchunks);
        goto fail;
    }

    /* sigma-sort: stable descending length inside windows of sigma rows of the incoming order (the bulk); the
     * CRS-part rows follow in their incoming order */
    {
        int32_t p1 = 0, p2 = nbulk;
        for (int32_t p = 0; p < rows; p++) {
            int32_t orig = order ? order[p] : p;
            sell_key key = {(int32_t)(A->rowptr[orig + 1] - A->rowptr[orig]), p};
            keys[mark[orig] ? p2++ : p1++] = key;
        }
    }
    if (S->sigma > 1)
        for (int64_t w0 = 0; w0 < nbulk; w0 += S->sigma) {
            int64_t w1 = w0 + S->sigma < nbulk ? w0 + S->sigma : nbulk;
            qsort(keys + w0, (size_t)(w1 - w0), sizeof *keys, sell_key_cmp);
        }
    for (int32_t i = 0; i < rows; i++) {
        int32_t orig = order ? order[keys[i].pos] : keys[i].pos;
        S->perm[i] = orig;
        S->iperm[orig] = i;
        S->rowlen[i] = keys[i].len;
    }
    spmv__free(keys);
    keys = NULL;
    spmv__free(mark);
    mark = NULL;
    spmv__free(order);
    spmv__free(order_inv);
    order = order_inv = NULL;

    /* entries of the CRS part, and the padding guard on the stored entries without run columns (a lower bound:
     * run columns never store less), before anything of that size is allocated */
    int64_t longnnz = 0;
    for (int32_t i = nbulk; i < rows; i++) longnnz += S->rowlen[i];
    {
        int64_t est = longnnz;
        for (int32_t k = 0; k < S->nchunks; k++) {
            int64_t r0 = (int64_t)k * C, r1 = r0 + C < nbulk ? r0 + C : nbulk, len = 0;
            for (int64_t i = r0; i < r1; i++)
                if (S->rowlen[i] > len) len = S->rowlen[i];
            len = (len + S->unroll - 1) / S->unroll * S->unroll;
            est += len * C;
        }
        st = padding_guard(S, opts, est, fn);
        if (st != SPMV_OK) goto fail;
    }

    /* run columns: the threshold T in lanes (auto: ceil(3C/4) for 4 <= C <= 64, else none) */
    int32_t T = opts->runs;
    if (T < 0) T = spmv__sell_run_threshold(C);
    if (T > C) T = C;
    S->runs = T;
    S->xaccess = spmv__sell_xaccess(opts->xaccess);

    /* the widest chunk in entries, for the per-thread scratch (run detection and the sorted lanes); and room for
     * the runs pass 1 finds, kept for pass 2 (chunk k has at most e_k / T of them: each holds T of its e_k entries
     * and no entry is in two; without the memory, pass 2 searches again) */
    int64_t widest = 0, maxrow = 0;
    if (T > 0 && (roff = spmv__malloc((nch + 1) * sizeof *roff))) roff[0] = 0;
    for (int32_t k = 0; k < S->nchunks; k++) {
        int64_t r0 = (int64_t)k * C, r1 = r0 + C < rows ? r0 + C : rows, e = 0;
        for (int64_t i = r0; i < r1; i++) {
            e += S->rowlen[i];
            if (S->rowlen[i] > maxrow) maxrow = S->rowlen[i];
        }
        if (e > widest) widest = e;
        if (roff) roff[k + 1] = roff[k] + e / T;
    }

    /* column map for the symmetric permutation A' = P A P^T (square matrices only) */
    const spmv_crs *src = A;     /* the rows the passes read: A's through rowmap, or B's in stored order */
    const int32_t *rowmap = S->perm;
    if (S->permuted && square && rows > 0) {
        cmap = S->iperm;
        /* B = the rows in stored order with columns renumbered and sorted, made once in parallel: both passes then
         * read rows in order instead of gathering A's rows through perm and sorting every lane twice (RCM's
         * conversion was 3-4x the plain one). Without the memory the passes map and sort as they go. */
        if (A->nnz >= SELL_PARALLEL_MIN && build_permuted(A, S, &Bp) == 0) {
            src = &Bp;
            rowmap = NULL;
            cmap = NULL;
        }
    }

    /* automatic run columns: none where a sample finds fewer than pay (spmv__sell_runs_pay); before the run arrays
     * are allocated */
    if (opts->runs < 0 && T > 0 && S->nchunks > 0) {
        if (sample_runs_pay(S, src, rowmap, cmap, T, widest, maxrow) == 0) {
            runs_drop(S, &tkey, &tmask, &roff, &T);
        }
    }
    if (roff) {
        if (roff[S->nchunks] > 0) {
            tkey = spmv__malloc((size_t)roff[S->nchunks] * sizeof *tkey);
            tmask = spmv__malloc((size_t)roff[S->nchunks] * (size_t)mask_bytes(C));
        }
        if (!tkey || !tmask) {
            spmv__free(tkey), spmv__free(tmask), spmv__free(roff);
            tkey = NULL, tmask = NULL, roff = NULL;
        }
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

    /* an identity perm (sigma = 1 without RCM, or a sort that moved no row): the kernels index y directly */
    S->identity = 1;
    for (int32_t i = 0; i < rows && S->identity; i++) S->identity = S->perm[i] == i;

    /* pass 1: chunk lengths (run columns + the widest lane's other entries, rounded up to unroll), in parallel */
    int failed = 0;
    const int par = S->nchunks > 1 && A->nnz >= SELL_PARALLEL_MIN;
#pragma omp parallel if (par) num_threads(spmv__max_threads()) reduction(| : failed)
    {
        chunk_scratch sc = {0}; /* zero when unused or when scratch_init failed: scratch_free frees nothing */
        colval *tmp = NULL;
        int ok = T == 0 || scratch_init(&sc, C, T, widest, A->cols, 1) == 0;
        if (ok && T > 0 && cmap && maxrow > 32) ok = (tmp = spmv__malloc((size_t)maxrow * sizeof *tmp)) != NULL;
        if (!ok) failed = 1;
#pragma omp for schedule(dynamic, 256)
        for (int32_t k = 0; k < S->nchunks; k++) {
            if (!ok) continue;
            int64_t r0 = (int64_t)k * C, r1 = r0 + C < rows ? r0 + C : rows;
            int64_t len = 0;
            if (T > 0) {
                chunk_lanes(S, src, rowmap, cmap, k, &sc, tmp);
                chunk_runs(C, T, &sc);
                for (int32_t r = 0; r < C; r++)
                    if (sc.rest[r] > len) len = sc.rest[r];
                S->chunkruns[k] = sc.nrun;
                if (roff) {
                    memcpy(tkey + roff[k], sc.rkey, (size_t)sc.nrun * sizeof *tkey);
                    memcpy(tmask + roff[k] * mask_bytes(C), sc.rmask, (size_t)sc.nrun * (size_t)mask_bytes(C));
                }
                len += sc.nrun;
            } else {
                for (int64_t i = r0; i < r1; i++)
                    if (S->rowlen[i] > len) len = S->rowlen[i];
            }
            len = (len + S->unroll - 1) / S->unroll * S->unroll;
            S->chunklen[k] = len > INT32_MAX ? -1 : (int32_t)len;
        }
        spmv__free(tmp);
        scratch_free(&sc); /* also when tmp failed after the scratch succeeded */
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
    const int64_t cstored = S->chunkptr[S->nchunks]; /* stored entries of the chunks */
    S->stored = cstored + longnnz;
    S->nruns = S->runptr ? S->runptr[S->nchunks] : 0;
    if (S->chunkruns && S->nruns == 0) {
        /* no chunk has a run column: drop the run structure (runs = 0, as without run detection), so that the
         * kernels skip the run-column loops of every chunk; on karate (SELL-8 with all rows sorted, in L1) those
         * cost 12 ns of a 93 ns multiply (Intel Xeon VM) */
        runs_drop(S, &tkey, &tmask, &roff, &T);
    }
    st = padding_guard(S, opts, S->stored, fn); /* the exact count, run columns included */
    if (st != SPMV_OK) goto fail;

    if ((uint64_t)S->stored > SIZE_MAX / sizeof(double)) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: %lld stored entries do not fit in memory", fn, (long long)S->stored);
        goto fail;
    }
    if (nlong > 0) {
        S->longptr = spmv__malloc(((size_t)nlong + 1) * sizeof *S->longptr);
        if (!S->longptr) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the row offsets of %d long rows", fn, nlong);
            goto fail;
        }
        S->longptr[0] = 0;
        for (int32_t j = 0; j < nlong; j++) S->longptr[j + 1] = S->longptr[j] + S->rowlen[nbulk + j];
    }

    st = sell_partition(S, opts->nthreads, fn, &S->part, &S->longpart, &S->longsplit, &S->nparts);
    if (st != SPMV_OK) goto fail;
    sell_set_yshared(S);

    /* never NULL, even when the chunks store nothing (every entry in the CRS part, or only empty rows): the kernels
     * form chunk pointers (val + chunkptr[k]) for every chunk they write, and NULL + 0 is undefined */
    S->col = spmv__malloc((cstored > 0 ? (size_t)cstored : 1) * sizeof *S->col);
    S->val = spmv__malloc((cstored > 0 ? (size_t)cstored : 1) * sizeof *S->val);
    if (!S->col || !S->val) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %lld stored entries", fn, (long long)cstored);
        goto fail;
    }
    if (spmv__sell_idx16_wanted(opts->idx16, cstored) && cstored > 0) {
        S->colbase = spmv__malloc((nch ? nch : 1) * sizeof *S->colbase);
        S->col16 = spmv__malloc((size_t)cstored * sizeof *S->col16);
        if (!S->colbase || !S->col16) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the 16-bit indices of %lld stored entries", fn,
                             (long long)cstored);
            goto fail;
        }
    }
#ifdef SPMV_POISON_UNWRITTEN
    /* test builds (scripts/test-sanitize.sh): what the fill leaves unwritten in a matrix with run columns or 16-bit
     * indices holds a column far outside any matrix (col) or the largest offset (col16), so that a reader of those
     * positions fails at once instead of reading whatever the allocator left there */
    if (cstored > 0 && (S->chunkruns || S->colbase)) memset(S->col, 0x7f, (size_t)cstored * sizeof *S->col);
    if (S->col16) memset(S->col16, 0xff, (size_t)cstored * sizeof *S->col16);
#endif
    if (spmv__sell_vidx_wanted(opts->vidx, cstored) && cstored > 0) {
        S->vtab = spmv__calloc(SPMV_VTAB_MAX, sizeof *S->vtab);
        if (!S->vtab) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the value table", fn);
            goto fail;
        }
        /* the first 4096 values of the chunks' rows (stored order; not the CRS part's long rows, whose values no
         * chunk holds) decide whether the indices are worth allocating (vi_merge decides) and seed the parts'
         * tables */
        vi_table seed;
        seed.n = 0;
        int32_t nseed = 0;
        for (int64_t i = 0, e = 0; i < nbulk && e < 4096 && nseed <= SPMV_VTAB_MAX; i++) {
            const int64_t b = A->rowptr[S->perm[i]], n = A->rowptr[S->perm[i] + 1] - b, m = n < 4096 - e ? n : 4096 - e;
            nseed = vi_scan_add(A->val + b, m, &seed);
            e += m;
        }
        if (nseed <= SPMV_VTAB_MAX)
            S->val8 = spmv__malloc((size_t)cstored);
        else spmv__free(S->vtab), S->vtab = NULL;
        if (S->val8 && vi_parts_init(&vip, S->nparts, &seed)) spmv__free(S->val8), S->val8 = NULL;
        if (S->vtab && !S->val8 && opts->vidx != 1) spmv__free(S->vtab), S->vtab = NULL; /* auto: go without */
        if (S->vtab && !S->val8) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the value indices of %lld stored entries", fn,
                             (long long)cstored);
            goto fail;
        }
    }
    if (longnnz > 0) {
        S->longcol = spmv__malloc((size_t)longnnz * sizeof *S->longcol);
        S->longval = spmv__malloc((size_t)longnnz * sizeof *S->longval);
        if (!S->longcol || !S->longval) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the %lld entries of %d long rows", fn,
                             (long long)longnnz, nlong);
            goto fail;
        }
    }
    if (S->chunkruns) { /* even without a run column found: the kernels form run pointers (runbase + runptr[k]) for
                           every chunk when chunkruns is set, and NULL + 0 is undefined */
        S->runbase = spmv__malloc((S->nruns > 0 ? (size_t)S->nruns : 1) * sizeof *S->runbase);
        S->runmask = spmv__calloc((size_t)S->nruns * (size_t)mask_bytes(C) + 8, 1); /* + 8: see spmv_sell */
        S->chunkfull = spmv__calloc(nch ? nch : 1, sizeof *S->chunkfull);
        if (!S->runbase || !S->runmask || !S->chunkfull) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %lld run columns", fn, (long long)S->nruns);
            goto fail;
        }
    }

    /* pass 2, first touch: thread t writes the chunks it multiplies, [part[t], part[t+1]), and its entries of the
     * CRS part */
    if (S->stored > 0) {
        const int32_t nparts = S->nparts;
        int64_t n16 = 0, maxst = 1; /* maxst: the most stored entries of a chunk */
        for (int32_t k = 0; k < S->nchunks; k++)
            if (S->chunkptr[k + 1] - S->chunkptr[k] > maxst) maxst = S->chunkptr[k + 1] - S->chunkptr[k];
        int32_t maxlong = 0;
        for (int32_t i = nbulk; i < rows; i++)
            if (S->rowlen[i] > maxlong) maxlong = S->rowlen[i];
#pragma omp parallel num_threads(nparts) if (nparts > 1 && S->stored >= SELL_PARALLEL_MIN) reduction(| : failed) \
    reduction(+ : n16)
        {
            int32_t t0, nt;
            part_cycle(&t0, &nt);
            chunk_scratch sc = {0}; /* zero when unused or when scratch_init failed */
            colval *tmp = NULL;
            const int32_t need = maxrow > maxlong ? (int32_t)maxrow : maxlong;
            int ok = cstored == 0 || scratch_init(&sc, C, T, widest, A->cols, !roff) == 0; /* replayed: no search */
            if (ok && cmap && need > 32) ok = (tmp = spmv__malloc((size_t)need * sizeof *tmp)) != NULL;
            /* with run columns or 16-bit indices, a chunk's columns go to a scratch first (sell_store_cols) */
            int32_t *ccol = NULL;
            if (ok && cstored > 0 && (S->chunkruns || S->colbase))
                ok = (ccol = spmv__malloc((size_t)maxst * sizeof *ccol)) != NULL;
            if (!ok) failed = 1;
            for (int32_t t = t0; ok && t < nparts; t += nt) {
                for (int32_t k = S->part[t]; cstored > 0 && k < S->part[t + 1]; k++) {
                    chunk_lanes(S, src, rowmap, cmap, k, &sc, tmp);
                    if (roff)
                        chunk_runs_replay(C, &sc, tkey + roff[k], tmask + roff[k] * mask_bytes(C), S->chunkruns[k]);
                    else
                        chunk_runs(C, T, &sc);
                    int32_t *gcol = ccol ? ccol : S->col + S->chunkptr[k];
                    sell_fill_chunk(S, &sc, k, gcol);
                    if (ccol || S->colbase) n16 += sell_store_cols(S, k, gcol);
                    if (S->val8) vi_part_chunk(S, &vip, t, k);
                }
                if (nlong > 0) long_fill(S, src, rowmap, cmap, t, tmp);
            }
            spmv__free(tmp);
            spmv__free(ccol);
            scratch_free(&sc); /* also when tmp failed after the scratch succeeded */
        }
        if (failed) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the scratch of a chunk of %lld entries", fn,
                             (long long)(widest > maxst ? widest : maxst));
            goto fail;
        }
        S->nidx16 = n16;
    }
    if (S->val8 && !vi_merge(S, &vip)) vi_drop(S); /* value indices: more than 16 values after all */
    vi_parts_free(&vip);
    spmv__free(tkey), spmv__free(tmask), spmv__free(roff);
    tkey = NULL, tmask = NULL, roff = NULL;
    free_permuted(&Bp);

    sell_set_prefetch(S);
    S->kernel = spmv__sell_kernel(S);
    if (S->kernel && nlong > 0) S->long_kernel = spmv__sell_long_kernel(S);
    if (!S->kernel || (nlong > 0 && !S->long_kernel)) {
        /* SPMV_ARCH names a family this CPU or build lacks, or another variable a value it does not take;
         * spmv_arch_get recorded why */
        st = spmv__arch_status() ? spmv__arch_status() : SPMV_ERR_ARCH;
        goto fail;
    }
    *Sout = S;
    return SPMV_OK;

fail:
    vi_parts_free(&vip);
    spmv__free(tkey), spmv__free(tmask), spmv__free(roff);
    free_permuted(&Bp);
    spmv__free(keys);
    spmv__free(mark);
    spmv__free(order);
    spmv__free(order_inv);
    spmv_sell_free(S);
    return st;
}

/* Positions of the entries of permuted row i (rowlen[i] of them): in a chunk, its run-column lanes, then its first
 * gather columns (positions p >= 0 in col/val); in the CRS part, -1 - q for entry q of longcol/longval. */
static void row_positions(const spmv_sell *S, int64_t i, int64_t *pos)
{
    const int32_t n = S->rowlen[i];
    if (i >= (int64_t)S->rows - S->nlong) { /* the CRS part */
        const int64_t q0 = S->longptr[i - (S->rows - S->nlong)];
        for (int32_t m = 0; m < n; m++) pos[m] = -1 - (q0 + m);
        return;
    }
    const int32_t C = S->C, k = (int32_t)(i / C), r = (int32_t)(i % C), mb = mask_bytes(C);
    const int64_t base = S->chunkptr[k] + r;
    const int32_t R = S->chunkruns ? S->chunkruns[k] : 0;
    int32_t m = 0, j = 0;
    for (; j < R && m < n; j++)
        if (S->runmask[(size_t)(S->runptr[k] + j) * mb + r / 8] >> (r % 8) & 1) pos[m++] = base + (int64_t)j * C;
    for (j = R; m < n; j++) pos[m++] = base + (int64_t)j * C;
}

/* The column and the value slot of the entry of permuted row i at position p (row_positions) */
static int32_t pos_col(const spmv_sell *S, int64_t i, int64_t p)
{
    return p >= 0 ? spmv__sell_col(S, (int32_t)(i / S->C), p) : S->longcol[-1 - p];
}
static double *pos_val(const spmv_sell *S, int64_t p) { return p >= 0 ? S->val + p : S->longval + (-1 - p); }

spmv_status spmv_sell_chunk_columns(const spmv_sell *S, int32_t k, int32_t *cols)
{
    static const char fn[] = "spmv_sell_chunk_columns";
    if (!S) return spmv__error(SPMV_ERR_ARG, "%s: argument S is NULL", fn);
    if (k < 0 || k >= S->nchunks)
        return spmv__error(SPMV_ERR_ARG, "%s: chunk k = %d outside 0..%d", fn, k, S->nchunks - 1);
    const int64_t p0 = S->chunkptr[k], p1 = S->chunkptr[k + 1];
    if (p1 > p0 && !cols)
        return spmv__error(SPMV_ERR_ARG, "%s: argument cols is NULL (chunk %d stores %lld entries)", fn, k,
                           (long long)(p1 - p0));
    if (p1 > p0) spmv__sell_chunk_cols(S, k, cols);
    return SPMV_OK;
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
#pragma omp parallel if (S->nnz >= SELL_PARALLEL_MIN) num_threads(spmv__max_threads()) reduction(| : failed)
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
                int32_t c = pos_col(S, i, pos[j]);
                A->col[dst + j] = cmap ? cmap[c] : c;
                A->val[dst + j] = *pos_val(S, pos[j]);
            }
            if (n > 1) /* (n = 0: A->col may be NULL, and NULL + 0 is undefined) */
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
#pragma omp parallel for schedule(static) if (S->nnz >= SELL_PARALLEL_MIN) num_threads(spmv__max_threads())
    for (int32_t i = 0; i < rows; i++) {
        const int32_t r = S->perm[i], n = S->rowlen[i];
        const int64_t a0 = A->rowptr[r], a1 = A->rowptr[r + 1];
        int64_t *p = pos + first[i];
        int bad = a1 - a0 != n;
        if (!bad) row_positions(S, i, p);
        for (int32_t j = 0; j < n && !bad; j++) {
            int32_t c = pos_col(S, i, p[j]);
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
#pragma omp parallel for schedule(static) if (S->nnz >= SELL_PARALLEL_MIN) num_threads(spmv__max_threads())
        for (int64_t e = 0; e < S->nnz; e++) *pos_val(S, pos[e]) = A->val[src[e]];
        /* value indices: again from the new values, or none when they no longer fit the table (out of memory
         * for the part tables: none either -- the kernels read val, the result is the same) */
        if (S->val8 && vi_build(S) != 1) vi_drop(S);
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
    int32_t *part = NULL, *lpart = NULL, nparts = 0;
    int64_t *lsplit = NULL;
    spmv_status st = sell_partition(S, nthreads, fn, &part, &lpart, &lsplit, &nparts);
    if (st != SPMV_OK) return st;
    spmv__free(S->part);
    spmv__free(S->longpart);
    spmv__free(S->longsplit);
    S->part = part;
    S->longpart = lpart;
    S->longsplit = lsplit;
    S->nparts = nparts;
    sell_set_yshared(S);
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
