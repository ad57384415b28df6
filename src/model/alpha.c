/* Right-hand-side traffic factor alpha: the x accesses of a kernel, in the kernel's order, through an LRU cache.
 * alpha = missed lines * line / (8 nnz) (Kreutzer et al. 2014 count x traffic as 8*alpha bytes per nonzero).
 *
 * Two LRU implementations behind one interface:
 *  - ways in 1..16: per set a small array of tags in recency order (MRU first), scanned and shifted;
 *  - ways = 0 (fully associative) or > 16: per set a doubly linked recency list of slots, and one open-addressing
 *    hash table (linear probing, backward-shift deletion) from line number to slot. O(1) per access.
 * A repeat of the previous access's line is a hit without touching the cache (it is already the MRU line). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { SMALL_WAYS = 16 };

typedef struct lru {
    int64_t nsets;   /* sets */
    int64_t ways;    /* lines per set */
    int64_t setmask; /* nsets - 1 when nsets is a power of two, else -1 */
    int64_t last;    /* line of the previous access, -1 none */
    int64_t misses;
    /* small mode */
    int64_t *tags;   /* nsets*ways, -1 = empty, MRU first */
    /* hash mode */
    int64_t *key;    /* hash keys: line + 1, 0 = empty */
    int32_t *val;    /* slot of the key */
    uint64_t hmask;
    int hshift;
    int64_t *slot_line;     /* nsets*ways */
    int32_t *prev, *next;   /* recency list per set, -1 ends */
    int32_t *head, *tail;   /* per set: MRU, LRU slot */
    int64_t *cnt;           /* per set: slots in use */
} lru;

static void lru_free(lru *c)
{
    spmv__free(c->tags);
    spmv__free(c->key);
    spmv__free(c->val);
    spmv__free(c->slot_line);
    spmv__free(c->prev);
    spmv__free(c->next);
    spmv__free(c->head);
    spmv__free(c->tail);
    spmv__free(c->cnt);
    memset(c, 0, sizeof *c);
}

/* capacity lines in total; ways 0 = fully associative. Sets = capacity / ways (a partial set is dropped). */
static spmv_status lru_init(lru *c, int64_t lines, int64_t ways)
{
    memset(c, 0, sizeof *c);
    if (ways <= 0 || ways > lines) ways = lines;
    c->ways = ways;
    c->nsets = lines / ways;
    c->setmask = (c->nsets & (c->nsets - 1)) == 0 ? c->nsets - 1 : -1;
    c->last = -1;
    int64_t n = c->nsets * c->ways;
    if (ways <= SMALL_WAYS) {
        c->tags = spmv__malloc((size_t)n * sizeof *c->tags);
        if (!c->tags) goto nomem;
        for (int64_t i = 0; i < n; i++) c->tags[i] = -1;
        return SPMV_OK;
    }
    int bits = 1;
    while (((int64_t)1 << bits) < 2 * n) bits++;
    c->hmask = ((uint64_t)1 << bits) - 1;
    c->hshift = 64 - bits;
    c->key = spmv__calloc((size_t)1 << bits, sizeof *c->key);
    c->val = spmv__malloc(((size_t)1 << bits) * sizeof *c->val);
    c->slot_line = spmv__malloc((size_t)n * sizeof *c->slot_line);
    c->prev = spmv__malloc((size_t)n * sizeof *c->prev);
    c->next = spmv__malloc((size_t)n * sizeof *c->next);
    c->head = spmv__malloc((size_t)c->nsets * sizeof *c->head);
    c->tail = spmv__malloc((size_t)c->nsets * sizeof *c->tail);
    c->cnt = spmv__calloc((size_t)c->nsets, sizeof *c->cnt);
    if (!c->key || !c->val || !c->slot_line || !c->prev || !c->next || !c->head || !c->tail || !c->cnt) goto nomem;
    for (int64_t s = 0; s < c->nsets; s++) c->head[s] = c->tail[s] = -1;
    return SPMV_OK;
nomem:
    lru_free(c);
    return spmv__error(SPMV_ERR_NOMEM, "alpha: out of memory for a cache of %lld lines", (long long)lines);
}

/* forget everything (a cold cache), keep the memory */
static void lru_reset(lru *c)
{
    int64_t n = c->nsets * c->ways;
    c->last = -1;
    if (c->tags) {
        for (int64_t i = 0; i < n; i++) c->tags[i] = -1;
        return;
    }
    memset(c->key, 0, (size_t)(c->hmask + 1) * sizeof *c->key);
    memset(c->cnt, 0, (size_t)c->nsets * sizeof *c->cnt);
    for (int64_t s = 0; s < c->nsets; s++) c->head[s] = c->tail[s] = -1;
}

static inline int64_t set_of(const lru *c, int64_t line)
{
    return c->setmask >= 0 ? (line & c->setmask) : line % c->nsets;
}

static inline uint64_t home(const lru *c, int64_t k) { return ((uint64_t)k * 0x9E3779B97F4A7C15ull) >> c->hshift; }

static void hash_del(lru *c, uint64_t i)
{
    /* backward-shift deletion for linear probing */
    for (uint64_t j = (i + 1) & c->hmask;; j = (j + 1) & c->hmask) {
        if (!c->key[j]) break;
        uint64_t h = home(c, c->key[j]);
        /* move key[j] to hole i if its home is not in (i, j] (cyclically) */
        int in = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (!in) {
            c->key[i] = c->key[j];
            c->val[i] = c->val[j];
            i = j;
        }
    }
    c->key[i] = 0;
}

static inline void list_unlink(lru *c, int64_t s, int32_t x)
{
    if (c->prev[x] >= 0) c->next[c->prev[x]] = c->next[x];
    else c->head[s] = c->next[x];
    if (c->next[x] >= 0) c->prev[c->next[x]] = c->prev[x];
    else c->tail[s] = c->prev[x];
}

static inline void list_push(lru *c, int64_t s, int32_t x)
{
    c->prev[x] = -1;
    c->next[x] = c->head[s];
    if (c->head[s] >= 0) c->prev[c->head[s]] = x;
    c->head[s] = x;
    if (c->tail[s] < 0) c->tail[s] = x;
}

static inline void lru_access(lru *c, int64_t line)
{
    if (line == c->last) return;
    c->last = line;
    int64_t s = set_of(c, line);
    if (c->tags) {
        int64_t *t = c->tags + s * c->ways, w = c->ways, i = 0;
        while (i < w && t[i] != line) i++;
        if (i == w) {
            c->misses++;
            i = w - 1; /* evict the LRU line */
        }
        memmove(t + 1, t, (size_t)i * sizeof *t);
        t[0] = line;
        return;
    }
    int64_t k = line + 1;
    uint64_t h = home(c, k);
    while (c->key[h] && c->key[h] != k) h = (h + 1) & c->hmask;
    if (c->key[h]) { /* hit: move to front */
        int32_t x = c->val[h];
        if (c->head[s] != x) {
            list_unlink(c, s, x);
            list_push(c, s, x);
        }
        return;
    }
    c->misses++;
    int32_t x;
    if (c->cnt[s] < c->ways) {
        x = (int32_t)(s * c->ways + c->cnt[s]++);
    } else { /* evict the LRU slot of the set */
        x = c->tail[s];
        list_unlink(c, s, x);
        int64_t ok = c->slot_line[x] + 1;
        uint64_t g = home(c, ok);
        while (c->key[g] != ok) g = (g + 1) & c->hmask;
        hash_del(c, g);
        /* the slot of the new key may have moved: search again */
        h = home(c, k);
        while (c->key[h]) h = (h + 1) & c->hmask;
    }
    c->slot_line[x] = line;
    list_push(c, s, x);
    c->key[h] = k;
    c->val[h] = x;
}

static spmv_status check_cache(const char *fn, int64_t cache_bytes, int32_t line, int32_t ways, int32_t nparts)
{
    if (line < 8 || (line & (line - 1)))
        return spmv__error(SPMV_ERR_ARG, "%s: line length %d B is not a power of two >= 8", fn, line);
    if (cache_bytes < line)
        return spmv__error(SPMV_ERR_ARG, "%s: cache of %lld B is smaller than one %d-byte line", fn,
                           (long long)cache_bytes, line);
    if (cache_bytes / line > ((int64_t)1 << 30))
        return spmv__error(SPMV_ERR_ARG, "%s: cache of %lld B has more than 2^30 lines", fn, (long long)cache_bytes);
    if (ways < 0) return spmv__error(SPMV_ERR_ARG, "%s: ways %d < 0", fn, ways);
    if (nparts < 1) return spmv__error(SPMV_ERR_ARG, "%s: nthreads %d < 1", fn, nparts);
    return SPMV_OK;
}

static int lg2(int32_t v)
{
    int b = 0;
    while ((1 << b) < v) b++;
    return b;
}

static void fill(spmv_alpha *a, int64_t misses, int64_t accesses, int64_t nnz, int64_t cols, int32_t line)
{
    a->accesses = accesses;
    a->misses = misses;
    a->alpha = nnz > 0 ? (double)misses * line / (8.0 * (double)nnz) : 0.0;
    a->alpha_min = nnz > 0 ? (double)cols / (double)nnz : 0.0;
    a->alpha_max = line / 8.0;
}

/* One matrix, either format: the x columns of row (CRS) or chunk (SELL) i are cols[ptr[i] .. ptr[i+1]) in the
 * kernel's order (a SELL chunk is stored column by column, lanes consecutive). */
typedef struct stream {
    const int64_t *ptr;
    const int32_t *col;
    int32_t n; /* rows or chunks */
} stream;

/* The accesses of stream s and then of stream s2 (the CRS part of a hybrid SELL matrix; n = 0: none), each split
 * into nthreads ranges balanced by entries; thread t runs its range of s, then its range of s2. */
static spmv_status simulate(const char *fn, stream s, stream s2, int64_t cache_bytes, int32_t line, int32_t ways,
                            int32_t nthreads, int32_t shared_by, int64_t *misses_out)
{
    spmv_status st = check_cache(fn, cache_bytes, line, ways, nthreads);
    if (st) return st;
    if (shared_by < 1) return spmv__error(SPMV_ERR_ARG, "%s: shared_by %d < 1", fn, shared_by);
    const int32_t items = s.n + s2.n;
    if (nthreads > items && items > 0) nthreads = items;
    if (shared_by > nthreads) shared_by = nthreads;
    int32_t *part = spmv__malloc(((size_t)nthreads + 1) * 2 * sizeof *part), *part2 = part ? part + nthreads + 1 : NULL;
    int32_t *cur = spmv__malloc((size_t)shared_by * sizeof *cur);
    lru c;
    memset(&c, 0, sizeof c);
    if (!part || !cur) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory", fn);
        goto done;
    }
    if ((st = lru_init(&c, cache_bytes / line, ways))) goto done;
    spmv__partition(s.ptr, s.n, nthreads, part);
    spmv__partition(s2.ptr, s2.n, nthreads, part2);
    const int sh = lg2(line) - 3; /* x[j] is in line (8j)/line = j >> sh */
    int64_t misses = 0;
    /* threads t0 .. t0+shared_by-1 share one cold cache; their rows interleave one row (chunk) at a time; item i of
     * a thread's sequence is row (chunk) i of s below s.n, row i - s.n of s2 above */
    for (int32_t t0 = 0; t0 < nthreads; t0 += shared_by) {
        int32_t g = nthreads - t0 < shared_by ? nthreads - t0 : shared_by;
        lru_reset(&c);
        c.misses = 0;
        for (int32_t j = 0; j < g; j++) cur[j] = part[t0 + j] < part[t0 + j + 1] ? part[t0 + j] : s.n + part2[t0 + j];
        for (int active = 1; active;) {
            active = 0;
            for (int32_t j = 0; j < g; j++) {
                int32_t i = cur[j];
                const int32_t t = t0 + j;
                if (i >= s.n + part2[t + 1]) continue;
                active = 1;
                const stream *q = i < s.n ? &s : &s2;
                const int32_t r = i < s.n ? i : i - s.n;
                for (int64_t k = q->ptr[r]; k < q->ptr[r + 1]; k++) lru_access(&c, (int64_t)q->col[k] >> sh);
                cur[j] = i + 1 == part[t + 1] && i < s.n ? s.n + part2[t] : i + 1;
            }
        }
        misses += c.misses;
    }
    *misses_out = misses;
done:
    lru_free(&c);
    spmv__free(part);
    spmv__free(cur);
    return st;
}

spmv_status spmv_crs_alpha(const spmv_crs *A, int64_t cache_bytes, int32_t line, int32_t ways, int32_t nthreads,
                           int32_t shared_by, spmv_alpha *a)
{
    if (!A || !a) return spmv__error(SPMV_ERR_ARG, "spmv_crs_alpha: argument %s is NULL", A ? "a" : "A");
    stream s = {A->rowptr, A->col, A->rows}, none = {NULL, NULL, 0};
    int64_t misses = 0;
    spmv_status st = simulate("spmv_crs_alpha", s, none, cache_bytes, line, ways, nthreads, shared_by, &misses);
    if (st) return st;
    fill(a, misses, A->nnz, A->nnz, A->cols, line);
    return SPMV_OK;
}

spmv_status spmv_sell_alpha(const spmv_sell *S, int64_t cache_bytes, int32_t line, int32_t ways, int32_t nthreads,
                            int32_t shared_by, spmv_alpha *a)
{
    if (!S || !a) return spmv__error(SPMV_ERR_ARG, "spmv_sell_alpha: argument %s is NULL", S ? "a" : "S");
    stream s = {S->chunkptr, S->col, S->nchunks}, lp = {S->longptr, S->longcol, S->nlong > 0 ? S->nlong : 0};
    int64_t misses = 0;
    spmv_status st = simulate("spmv_sell_alpha", s, lp, cache_bytes, line, ways, nthreads, shared_by, &misses);
    if (st) return st;
    fill(a, misses, S->stored, S->nnz, S->cols, line);
    return SPMV_OK;
}
