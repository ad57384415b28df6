/* Right-hand-side traffic factor alpha: the x accesses of a kernel, in the kernel's order, through an LRU cache.
 * alpha = missed lines * line / (8 nnz) (Kreutzer et al. 2014 count x traffic as 8*alpha bytes per nonzero).
 *
 * Two LRU implementations behind one interface:
 *  - ways in 1..16: per set a small array of tags in recency order (MRU first), scanned and shifted;
 *  - ways = 0 (fully associative) or > 16: per set a doubly linked recency list of slots, and one open-addressing
 *    hash table (linear probing, backward-shift deletion) from line number to slot. O(1) per access.
 * A repeat of the previous access's line is a hit without touching the cache (it is already the MRU line). */
#include "internal.h"
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

enum { SMALL_WAYS = 16 };

typedef struct lru {
    int64_t nsets;   /* sets */
    int64_t ways;    /* lines per set */
    int64_t setmask; /* nsets - 1 when nsets is a power of two, else -1 */
    int64_t last;    /* line of the previous access, -1 none */
    int64_t misses;
    int64_t capacity; /* lines of the cache simulated (the arrays may hold fewer: see lru_init) */
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

/* capacity lines in total; ways 0 = fully associative. Sets = capacity / ways (a partial set is dropped). Every line
 * number accessed is below ids: a cache with more sets than that (fully associative: more lines) never evicts, and
 * one of ids sets (lines) gives the same misses -- only that much is allocated, so that a huge cache in a machine
 * file costs no memory beyond the matrix's (a 60 GiB L3 took 8 GB for a 12 x 12 grid). */
static spmv_status lru_init(lru *c, int64_t lines, int64_t ways, int64_t ids)
{
    memset(c, 0, sizeof *c);
    if (ways <= 0 || ways > lines) ways = lines;
    c->capacity = lines / ways * ways;
    if (ids < 1) ids = 1;
    if (ways == lines && lines > ids) lines = ways = ids;
    else if (lines / ways > ids) lines = ids * ways;
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

/* One matrix, either format, in the kernel's order: the x columns of row (CRS) or chunk (SELL) i are
 * cols[ptr[i] .. ptr[i+1]) (a SELL chunk is stored column by column, lanes consecutive). For the competing streams
 * (streams = 1): the entries' values (8 B) and indices (4 B) are the contiguous arrays at those offsets; a SELL
 * chunk's first runs[i] columns (C entries each) read no indices (run columns: one 4-byte base instead); each row
 * (chunk) reads its offset(s) (offs bytes) and writes y: CRS row i: y[i]; SELL chunk i: y of its C lanes, y[i*C + r]
 * in the permuted order, y[perm[i*C + r]] in the original one. */
typedef struct stream {
    const int64_t *ptr;
    const int32_t *col;
    int32_t n;            /* rows or chunks */
    int32_t C;            /* SELL chunk height; 0 for CRS */
    int32_t rows, cols;
    const int32_t *runs;  /* SELL: run columns per chunk (NULL: none) */
    const int32_t *perm;  /* SELL in the original order: y[perm[.]]; NULL: contiguous */
    int offs;             /* bytes of row/chunk offsets per row/chunk */
    const spmv_sell *S;   /* SELL whose col holds only some columns (run columns, 16-bit indices): each chunk's
                             columns are decoded into buf (its largest chunk's length) instead of read from col */
    int32_t *buf;
} stream;

/* The columns of item i, indexed by entry k in [ptr[i], ptr[i + 1]): col itself, or chunk i decoded into buf and
 * offset by ptr[i] (*off) */
static const int32_t *item_cols(const stream *s, int32_t i, int64_t *off)
{
    *off = 0;
    if (!s->S) return s->col;
    spmv__sell_chunk_cols(s->S, i, s->buf);
    *off = s->ptr[i];
    return s->buf;
}

/* x misses whose neighbouring line (line - 1 or line + 1) is among the last SIM_STREAMS x lines the same thread missed
 * continue a stream that a hardware prefetcher follows (a stencil's planes, re-read in order); the others come at
 * random. Counted over all x misses: a sample's window cannot tell a re-read from a first read when the line was read
 * before its warm-up (HPCG 128^3's planes lie 442 000 entries apart), so the model takes the lines at random as at most
 * (1 - seq) alpha (ecm.c) */
enum { SIM_STREAMS = 16 };

/* simulation state: the cache, the line-id bases of the streams, the per-stream last lines, the counts */
typedef struct sim {
    lru c;
    int sh;                    /* log2(line) */
    int streams;
    int64_t base_val, base_idx, base_y, base_off, base_run; /* line-id offsets of the streams (x: 0) */
    int64_t last_val, last_idx, last_y, last_off, last_run;
    uint8_t *seen;             /* x lines touched in the current counted window (bounds); NULL: exact run */
    int counting;              /* 0: warm-up */
    int64_t acc;               /* every cache access simulated (x and streams) */
    int64_t xacc;              /* x accesses counted */
    int64_t xmiss;             /* x misses counted */
    int64_t first, reuse_miss; /* counted x accesses whose line is new in the window; misses among the others */
    int64_t xseq;              /* counted x misses that continue a stream (see sim_item) */
    int64_t *recent;           /* per thread of a group a ring of the last SIM_STREAMS x lines it missed (-2: none):
                                  a prefetcher is a core's */
    int32_t *nrecent;          /* per thread the ring's next slot */
    int32_t rings, ring;       /* threads of a group; the one whose row is simulated */
} sim;

static inline void touch(sim *m, int64_t line, int64_t *last)
{
    if (line == *last) return;
    *last = line;
    m->acc++;
    lru_access(&m->c, line);
}

/* no x line missed yet (a group's cold cache, a sample's warm-up) */
static void sim_forget(sim *m)
{
    for (int64_t j = 0; j < (int64_t)m->rings * SIM_STREAMS; j++) m->recent[j] = -2;
    for (int32_t r = 0; r < m->rings; r++) m->nrecent[r] = 0;
}

/* the accesses of row/chunk i */
static void sim_item(sim *m, const stream *s, int32_t i)
{
    const int sh = m->sh;
    const int64_t b = s->ptr[i], e = s->ptr[i + 1];
    if (m->streams) touch(m, m->base_off + (((int64_t)i * s->offs) >> sh), &m->last_off);
    int64_t runend = b;
    if (m->streams && s->runs) runend = b + (int64_t)s->runs[i] * s->C;
    int64_t off;
    const int32_t *col = item_cols(s, i, &off);
    for (int64_t k = b; k < e; k++) {
        if (m->streams) {
            touch(m, m->base_val + ((k * 8) >> sh), &m->last_val);
            if (k >= runend) touch(m, m->base_idx + ((k * 4) >> sh), &m->last_idx);
            else if ((k - b) % s->C == 0) /* a run column's base index (its position in runbase: about) */
                touch(m, m->base_run + ((((k - b) / s->C + b / s->C) * 4) >> sh), &m->last_run);
        }
        const int64_t line = (int64_t)col[k - off] >> (sh - 3);
        m->acc++;
        const int64_t before = m->c.misses;
        lru_access(&m->c, line);
        const int miss = m->c.misses != before;
        int seq = 0;
        if (miss) {
            int64_t *r = m->recent + (int64_t)m->ring * SIM_STREAMS;
            for (int j = 0; j < SIM_STREAMS; j++) seq |= r[j] == line - 1 || r[j] == line + 1;
            r[m->nrecent[m->ring]] = line;
            m->nrecent[m->ring] = (m->nrecent[m->ring] + 1) % SIM_STREAMS;
        }
        if (!m->counting) continue;
        m->xacc++;
        m->xmiss += miss;
        m->xseq += seq;
        if (m->seen) {
            uint8_t *byte = &m->seen[line >> 3], bit = (uint8_t)(1u << (line & 7));
            if (!(*byte & bit)) {
                *byte |= bit;
                m->first++;
            } else {
                m->reuse_miss += miss;
            }
        }
    }
    if (m->streams) { /* y written: the write-allocate brings its line in */
        if (!s->C) {
            touch(m, m->base_y + (((int64_t)i * 8) >> sh), &m->last_y);
        } else {
            for (int32_t r = 0; r < s->C; r++) {
                int64_t row = (int64_t)i * s->C + r;
                if (row >= s->rows) break;
                if (s->perm) row = s->perm[row];
                touch(m, m->base_y + ((row * 8) >> sh), &m->last_y);
            }
        }
    }
}

/* rows [from[j], to[j]) of the g threads of a group, interleaved one row (chunk) at a time */
static void sim_interleaved(sim *m, const stream *s, int32_t g, const int32_t *from, const int32_t *to, int32_t *cur)
{
    for (int32_t j = 0; j < g; j++) cur[j] = from[j];
    for (int active = 1; active;) {
        active = 0;
        for (int32_t j = 0; j < g; j++) {
            if (cur[j] >= to[j]) continue;
            active = 1;
            m->ring = j; /* g <= rings */
            sim_item(m, s, cur[j]++);
        }
    }
}

/* x lines referenced at least once: the compulsory misses of one multiply */
static int64_t compulsory(const stream *s, int sh, uint8_t *bits, int64_t nlines)
{
    memset(bits, 0, (size_t)((nlines + 7) / 8));
    int64_t n = 0;
    for (int32_t i = 0; i < s->n; i++) {
        int64_t off;
        const int32_t *col = item_cols(s, i, &off);
        for (int64_t k = s->ptr[i]; k < s->ptr[i + 1]; k++) {
            const int64_t l = (int64_t)col[k - off] >> (sh - 3);
            uint8_t bit = (uint8_t)(1u << (l & 7));
            if (!(bits[l >> 3] & bit)) bits[l >> 3] |= bit, n++;
        }
    }
    return n;
}

typedef struct simresult {
    int64_t misses;   /* estimated x misses of the whole multiply */
    double lo, hi;    /* bounds on them */
    double sampled;   /* fraction of the x accesses counted */
    double seq;       /* share of the counted x misses that continue a stream */
} simresult;

static spmv_status simulate(const char *fn, stream s, int64_t cache_bytes, int32_t line, int32_t ways,
                            int32_t nthreads, int32_t shared_by, const spmv_alpha_opts *o, simresult *res)
{
    spmv_status st = check_cache(fn, cache_bytes, line, ways, nthreads);
    if (st) return st;
    if (shared_by < 1) return spmv__error(SPMV_ERR_ARG, "%s: shared_by %d < 1", fn, shared_by);
    if (o->max_accesses < 0 || o->blocks < 0)
        return spmv__error(SPMV_ERR_ARG, "%s: max_accesses %lld and blocks %d must not be negative", fn,
                           (long long)o->max_accesses, o->blocks);
    if (nthreads > s.n && s.n > 0) nthreads = s.n;
    if (shared_by > nthreads) shared_by = nthreads;
    const int sh = lg2(line);
    const int64_t total = s.ptr[s.n] - s.ptr[0];                 /* x accesses of one multiply */
    const int64_t per_entry_streams = o->streams ? 2 : 0;       /* about: value + index lines per 8-16 entries */
    const int64_t cost = total + (o->streams ? total * per_entry_streams * 8 / line + 2 * (int64_t)s.n : 0);
    const int exact = o->max_accesses == 0 || cost <= o->max_accesses;
    const int64_t xlines = ((int64_t)(s.cols > 0 ? s.cols : 1) * 8 >> sh) + 1;
    int32_t *part = spmv__malloc(((size_t)nthreads + 1) * sizeof *part);
    int32_t *cur = spmv__malloc((size_t)shared_by * sizeof *cur);
    int32_t *from = spmv__malloc((size_t)shared_by * sizeof *from);
    int32_t *to = spmv__malloc((size_t)shared_by * sizeof *to);
    int32_t *wend = spmv__malloc((size_t)shared_by * sizeof *wend);
    uint8_t *seen = exact ? NULL : spmv__malloc((size_t)((xlines + 7) / 8));
    sim m;
    memset(&m, 0, sizeof m);
    m.rings = exact ? shared_by : 1;
    m.recent = spmv__malloc((size_t)m.rings * SIM_STREAMS * sizeof *m.recent);
    m.nrecent = spmv__malloc((size_t)m.rings * sizeof *m.nrecent);
    if (!part || !cur || !from || !to || !wend || (!exact && !seen) || !m.recent || !m.nrecent) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory", fn);
        goto done;
    }
    /* sampled: one thread at a time in its share of a shared cache */
    int64_t simcache = exact ? cache_bytes : cache_bytes / shared_by;
    if (simcache < line) simcache = line;
    spmv__partition(s.ptr, s.n, nthreads, part);
    m.sh = sh;
    m.streams = o->streams;
    /* line ids of the streams after x's, each in its own range */
    const int64_t nent = s.ptr[s.n];
    m.base_val = xlines + 1;
    m.base_idx = m.base_val + ((nent * 8) >> sh) + 2;
    m.base_y = m.base_idx + ((nent * 4) >> sh) + 2;
    m.base_off = m.base_y + (((int64_t)s.rows * 8) >> sh) + 2;
    m.base_run = m.base_off + (((int64_t)(s.n + 1) * s.offs) >> sh) + 2;
    /* every line id is below this: x's, or the run bases' (the last stream; at most one per entry) */
    const int64_t ids = m.streams ? m.base_run + ((nent * 4) >> sh) + 2 : xlines + 1;
    if ((st = lru_init(&m.c, simcache / line, ways, ids))) goto done;
    m.seen = seen;
    if (exact) {
        /* threads t0 .. t0+shared_by-1 share one cold cache; their rows interleave one row (chunk) at a time */
        int64_t misses = 0, seqs = 0;
        for (int32_t t0 = 0; t0 < nthreads; t0 += shared_by) {
            int32_t g = nthreads - t0 < shared_by ? nthreads - t0 : shared_by;
            lru_reset(&m.c);
            m.c.misses = 0;
            m.last_val = m.last_idx = m.last_y = m.last_off = m.last_run = -1;
            sim_forget(&m);
            m.counting = 1;
            m.xmiss = m.xseq = 0;
            for (int32_t j = 0; j < g; j++) from[j] = part[t0 + j], to[j] = part[t0 + j + 1];
            sim_interleaved(&m, &s, g, from, to, cur);
            misses += m.xmiss;
            seqs += m.xseq;
        }
        res->misses = misses;
        res->seq = misses > 0 ? (double)seqs / (double)misses : 0.0;
        res->lo = res->hi = (double)misses;
        res->sampled = 1.0;
        goto done;
    }
    {
        /* sample: up to 4 threads spread over the partition, each alone in its share of the cache (cache_bytes /
         * shared_by: the halo lines that neighbouring threads share are not shared here), `blocks` windows at evenly
         * spread positions of its part (a quarter of the window's budget), each after a warm-up that is simulated
         * but not counted */
        const int32_t B = o->blocks > 0 ? o->blocks : 4;
        const int32_t ns = nthreads < 4 ? nthreads : 4;
        const double per_block = (double)o->max_accesses / ((double)B * ns);
        const double ratio = (double)cost / (double)(total > 0 ? total : 1); /* cache accesses per x access */
        const int64_t lines = m.c.capacity;
        int64_t cnt_acc = 0, cnt_miss = 0, cnt_first = 0, cnt_reuse = 0, cnt_seq = 0;
        for (int32_t si = 0; si < ns; si++) {
            const int32_t t = (int32_t)(((double)si + 0.5) * nthreads / ns);
            const int32_t p0 = part[t], p1 = part[t + 1];
            const int64_t e0 = s.ptr[p0], e1 = s.ptr[p1];
            for (int32_t b = 0; b < B; b++) {
                const int64_t target = e0 + (int64_t)((double)(e1 - e0) * ((b + 0.5) / B));
                int32_t lo = p0, hi = p1; /* the first item whose end lies beyond target */
                while (lo < hi) {
                    int32_t mid = lo + (hi - lo) / 2;
                    if (s.ptr[mid + 1] <= target) lo = mid + 1;
                    else hi = mid;
                }
                const int32_t w0 = lo < p1 ? lo : p1;
                int32_t w1 = w0;
                while (w1 < p1 && (double)(s.ptr[w1] - s.ptr[w0]) * ratio < 0.25 * per_block) w1++;
                if (w1 == w0 && w1 < p1) w1++;
                /* the warm-up doubles until it has filled the cache and the window's misses no longer change (2 %),
                 * the part's start is reached or the budget is spent */
                double warm = 2.0 * (double)lines, spent = 0;
                int64_t prev = -1;
                for (;;) {
                    int32_t u0 = w0;
                    while (u0 > p0 && (double)(s.ptr[w0] - s.ptr[u0]) * ratio < warm) u0--;
                    lru_reset(&m.c);
                    m.c.misses = 0;
                    m.last_val = m.last_idx = m.last_y = m.last_off = m.last_run = -1;
                    sim_forget(&m);
                    m.counting = 0;
                    from[0] = u0, to[0] = w0;
                    sim_interleaved(&m, &s, 1, from, to, cur);
                    const int full = m.c.misses >= lines; /* every line of the cache filled once */
                    memset(seen, 0, (size_t)((xlines + 7) / 8));
                    m.counting = 1;
                    m.xacc = m.xmiss = m.first = m.reuse_miss = m.xseq = 0;
                    from[0] = w0, to[0] = w1;
                    sim_interleaved(&m, &s, 1, from, to, cur);
                    spent += (double)(s.ptr[w1] - s.ptr[u0]) * ratio;
                    const int64_t d = m.xmiss - prev;
                    if ((full && prev >= 0 && (d < 0 ? -d : d) <= 0.02 * (double)m.xmiss) || u0 == p0 ||
                        spent + 2.0 * warm + (double)(s.ptr[w1] - s.ptr[w0]) * ratio > per_block)
                        break;
                    prev = m.xmiss;
                    warm *= 2.0;
                }
                cnt_acc += m.xacc, cnt_miss += m.xmiss, cnt_first += m.first, cnt_reuse += m.reuse_miss;
                cnt_seq += m.xseq;
            }
        }
        const double scale = cnt_acc > 0 ? (double)total / (double)cnt_acc : 0.0;
        /* compulsory misses: every referenced line once (a lower bound of the whole multiply) */
        uint8_t *bits = spmv__malloc((size_t)((xlines + 7) / 8));
        if (!bits) {
            st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory", fn);
            goto done;
        }
        const double comp = (double)compulsory(&s, sh, bits, xlines);
        spmv__free(bits);
        double est = (double)cnt_miss * scale, lo = (double)cnt_reuse * scale,
               hi = (double)(cnt_reuse + cnt_first) * scale;
        if (lo < comp) lo = comp;
        if (est < lo) est = lo;
        if (hi < est) hi = est;
        if (hi > (double)total) hi = (double)total;
        if (est > hi) est = hi;
        res->misses = (int64_t)(est + 0.5);
        res->lo = lo;
        res->hi = hi;
        res->sampled = total > 0 ? (double)cnt_acc / (double)total : 1.0;
        res->seq = cnt_miss > 0 ? (double)cnt_seq / (double)cnt_miss : 0.0;
    }
done:
    lru_free(&m.c);
    spmv__free(part);
    spmv__free(cur);
    spmv__free(from);
    spmv__free(to);
    spmv__free(wend);
    spmv__free(seen);
    spmv__free(m.recent);
    spmv__free(m.nrecent);
    return st;
}

static void fill(spmv_alpha *a, const simresult *r, int64_t accesses, int64_t nnz, int64_t cols, int32_t line,
                 int streams)
{
    const double f = nnz > 0 ? line / (8.0 * (double)nnz) : 0.0;
    a->accesses = accesses;
    a->misses = r->misses;
    a->alpha = (double)r->misses * f;
    a->alpha_min = nnz > 0 ? (double)cols / (double)nnz : 0.0;
    a->alpha_max = line / 8.0;
    a->lo = r->lo * f;
    a->hi = r->hi * f;
    a->sampled = r->sampled;
    a->seq = r->seq;
    a->streams = streams;
}

spmv_alpha_opts spmv_alpha_opts_default(void)
{
    spmv_alpha_opts o = {0, 4, 0};
    return o;
}

static stream crs_stream(const spmv_crs *A)
{
    stream s = {A->rowptr, A->col, A->rows, 0, A->rows, A->cols, NULL, NULL, 8, NULL, NULL};
    return s;
}

static stream sell_stream(const spmv_sell *S)
{
    stream s = {S->chunkptr, S->col, S->nchunks, S->C, S->rows, S->cols, S->nruns > 0 ? S->chunkruns : NULL,
                S->permuted || S->identity ? NULL : S->perm, 12, NULL, NULL};
    return s;
}

spmv_status spmv_crs_alpha_ex(const spmv_crs *A, int64_t cache_bytes, int32_t line, int32_t ways, int32_t nthreads,
                              int32_t shared_by, const spmv_alpha_opts *o, spmv_alpha *a)
{
    if (!A || !a) return spmv__error(SPMV_ERR_ARG, "spmv_crs_alpha: argument %s is NULL", A ? "a" : "A");
    spmv_alpha_opts d = o ? *o : spmv_alpha_opts_default();
    simresult r;
    spmv_status st = simulate("spmv_crs_alpha", crs_stream(A), cache_bytes, line, ways, nthreads, shared_by, &d, &r);
    if (st) return st;
    fill(a, &r, A->nnz, A->nnz, A->cols, line, d.streams);
    return SPMV_OK;
}

spmv_status spmv_sell_alpha_ex(const spmv_sell *S, int64_t cache_bytes, int32_t line, int32_t ways,
                               int32_t nthreads, int32_t shared_by, const spmv_alpha_opts *o, spmv_alpha *a)
{
    if (!S || !a) return spmv__error(SPMV_ERR_ARG, "spmv_sell_alpha: argument %s is NULL", S ? "a" : "S");
    spmv_alpha_opts d = o ? *o : spmv_alpha_opts_default();
    simresult r;
    spmv_status st;
    const int coded = S->chunkruns || S->colbase; /* col holds only some of the columns (spmv__sell_col) */
    if (S->nlong > 0 && S->longptr) {
        /* a hybrid matrix: the chunks, then the rows of its CRS part, as one sequence of items (a copy of the column
         * indices, the chunks' decoded where col holds only some; the run-column streams are not told apart here) */
        const int64_t cst = S->chunkptr[S->nchunks], lnnz = S->longptr[S->nlong];
        const int32_t items = S->nchunks + S->nlong;
        int64_t *ptr = spmv__malloc(((size_t)items + 1) * sizeof *ptr);
        int32_t *col = spmv__malloc(((size_t)(cst + lnnz) + 1) * sizeof *col);
        if (!ptr || !col) {
            spmv__free(ptr);
            spmv__free(col);
            return spmv__error(SPMV_ERR_NOMEM, "spmv_sell_alpha: out of memory for %lld column indices",
                               (long long)(cst + lnnz));
        }
        memcpy(ptr, S->chunkptr, ((size_t)S->nchunks + 1) * sizeof *ptr);
        for (int32_t k = 1; k <= S->nlong; k++) ptr[S->nchunks + k] = cst + S->longptr[k];
        if (cst && !coded) memcpy(col, S->col, (size_t)cst * sizeof *col);
        for (int32_t k = 0; coded && k < S->nchunks; k++) spmv__sell_chunk_cols(S, k, col + S->chunkptr[k]);
        if (lnnz) memcpy(col + cst, S->longcol, (size_t)lnnz * sizeof *col);
        stream s = sell_stream(S);
        s.ptr = ptr, s.col = col, s.n = items, s.runs = NULL;
        st = simulate("spmv_sell_alpha", s, cache_bytes, line, ways, nthreads, shared_by, &d, &r);
        spmv__free(ptr);
        spmv__free(col);
    } else if (coded) { /* each chunk's columns decoded as the simulation reaches it, into one chunk's room */
        int64_t maxst = 1;
        for (int32_t k = 0; k < S->nchunks; k++)
            if (S->chunkptr[k + 1] - S->chunkptr[k] > maxst) maxst = S->chunkptr[k + 1] - S->chunkptr[k];
        stream s = sell_stream(S);
        s.S = S;
        s.buf = spmv__malloc((size_t)maxst * sizeof *s.buf);
        if (!s.buf)
            return spmv__error(SPMV_ERR_NOMEM, "spmv_sell_alpha: out of memory for a chunk of %lld entries",
                               (long long)maxst);
        st = simulate("spmv_sell_alpha", s, cache_bytes, line, ways, nthreads, shared_by, &d, &r);
        spmv__free(s.buf);
    } else {
        st = simulate("spmv_sell_alpha", sell_stream(S), cache_bytes, line, ways, nthreads, shared_by, &d, &r);
    }
    if (st) return st;
    fill(a, &r, S->stored, S->nnz, S->cols, line, d.streams);
    return SPMV_OK;
}

spmv_status spmv_crs_alpha(const spmv_crs *A, int64_t cache_bytes, int32_t line, int32_t ways, int32_t nthreads,
                           int32_t shared_by, spmv_alpha *a)
{
    return spmv_crs_alpha_ex(A, cache_bytes, line, ways, nthreads, shared_by, NULL, a);
}

spmv_status spmv_sell_alpha(const spmv_sell *S, int64_t cache_bytes, int32_t line, int32_t ways, int32_t nthreads,
                            int32_t shared_by, spmv_alpha *a)
{
    return spmv_sell_alpha_ex(S, cache_bytes, line, ways, nthreads, shared_by, NULL, a);
}
