/* Measurement drivers of spmv-machine and the machine file derived from them. Baseline code: the ISA kernels
 * are reached only through the bench_isa table chosen at run time.
 *
 * Method (Alappat et al., PMBS 2020, Sect. II-III; Fang et al., "An Empirical Study of Intel Xeon Phi" for the
 * latency and bandwidth-scaling benchmarks, shared/reference/):
 *  - every time is wall-clock time (CLOCK_MONOTONIC) converted to core cycles with the clock measured by a chain
 *    of dependent 1-cycle adds. Each measurement is the best of many short timed windows (0.25-0.5 ms): on a
 *    shared or virtual machine interference only ever makes a window slower, and a long window almost always
 *    contains a stretch in which the thread was not running (on the 2-core development VM the vCPU runs ~70% of
 *    the time in slices of a few ms: 3.07 GHz in 0.2 ms windows, 2.2 GHz-equivalent over 0.2 s). Working sets
 *    larger than a window's worth are timed piece by piece, consecutively, so the data still comes from memory;
 *  - except in memory (the streaming kernels' memory level and the bandwidth curve): there a measurement is the
 *    sustained rate, the work of all its timed windows over their summed time, as STREAM times a whole pass. A
 *    host's memory bandwidth moves from one millisecond to the next: on the Zen 5 VM the 1 MiB windows of one
 *    core's read stream over 1 GiB had a 10th percentile of 16-27 GB/s, a median of 24-35 and a best of 40-44 in
 *    four passes whose whole-pass rate was 22-32; with the best window spmv-machine's read bandwidth was 1.23x
 *    (1 core) and 1.37x (2 cores) the peers' read-only STREAM, medians of interleaved rounds, sustained 1.10x and
 *    1.07x (BENCHMARKS.md, 2026-12-04 evening). The best window made the model's memory terms and roofline
 *    promise what no whole multiply reaches. The passes of a memory-level figure are combined by their median
 *    (bench_median), not their best: the best of 16 passes read 1.15-1.17x the peers' STREAM (best of 6) on huge pages
 *    in interleaved rounds (BENCHMARKS.md, 2026-12-07 06:02);
 *  - the streaming kernels run at working sets of half of L1, then max(4x the cache above, half the geometric
 *    mean of it and this cache) for L2 and L3 (make_levels), and 4x (quick) or 8x the last-level cache, at
 *    least 256 MiB (quick) / 1 GiB, for memory; each with unroll factors 1, 2, 4, 8, 16 and arrays aligned to
 *    1024 bytes, the paper's choice (staggered by 1 KiB so that no two arrays alias modulo 4 KiB);
 *  - the bandwidth curve runs LOAD, COPY and TRIAD on 1..N threads pinned one per core, compactly, inside the
 *    first NUMA domain (OMP_PLACES/OMP_PROC_BIND are honoured when set), on a memory-sized working set split
 *    evenly among the threads;
 *  - the load latency follows a random cyclic permutation with one node per cache line (Sattolo's algorithm),
 *    so neither the prefetchers nor the line's other words help. Memory of 4 MiB and more is advised as
 *    transparent huge pages: the latency is that of the caches and memory, not of page walks. */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

const int bench_unrolls[BENCH_NUNROLL] = {1, 2, 4, 8, 16};

/* name, formula, arrays, loads, stores, rd, wr, wa, flops */
const bench_kernel_info bench_kernel_infos[BK_NKERNELS] = {
    {"COPY", "a[i]=b[i]", 2, 1, 1, 8, 8, 8, 0},
    {"DAXPY", "a[i]=a[i]+s*b[i]", 2, 2, 1, 16, 8, 0, 2},
    {"DOT", "sum+=a[i]*b[i]", 2, 2, 0, 16, 0, 0, 2},
    {"INIT", "a[i]=s", 1, 0, 1, 0, 8, 8, 0},
    {"LOAD", "load(a[i])", 1, 1, 0, 8, 0, 0, 0},
    {"TRIAD", "a[i]=b[i]+s*c[i]", 3, 2, 1, 16, 8, 8, 2},
    {"SUM", "sum+=a[i]", 1, 1, 0, 8, 0, 0, 1},
    {"SCHOENAUER", "a[i]=b[i]+c[i]*d[i]", 4, 3, 1, 24, 8, 8, 2},
    {"STENCIL", "b[j][i]=s*(a[j][i-1]+a[j][i+1]+a[j-1][i]+a[j+1][i])", 2, 4, 1, 8, 8, 8, 4},
    {"TOUCH", "load(a[i]) once per cache line", 1, 1, 0, 8, 0, 0, 0},
};

const char *const bench_incore_names[BI_N] = {
    "FMA latency", "FMA rthroughput", "ADD latency", "ADD rthroughput", "MUL latency", "MUL rthroughput",
    "gather latency", "gather rthroughput", "index load+gather latency", "index load+gather rthroughput",
    "horizontal add latency", "horizontal add rthroughput", "index load+gather, 1 line", "index load+gather, 2 lines",
    "index load+gather, 4 lines", "index load+gather, 8 lines", "emulated gather rthroughput",
    "masked load rthroughput", "scalar load rthroughput", "value index rthroughput",
    "index load+gather x value, x at random", "emulated gather x value, x at random"};

static void logf_(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(FILE *log, const char *fmt, ...)
{
    if (!log) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(log, fmt, ap);
    va_end(ap);
    fflush(log);
}

static void put_i64(double *p, int64_t v) { memcpy(p, &v, sizeof v); }

/* the best over the passes: shortest time (cycles, ns), highest rate (GHz, GB/s) */
static void keep_min(double *dst, double v)
{
    if (v > 0 && isfinite(v) && (!(*dst > 0) || v < *dst)) *dst = v;
}
static void keep_max(double *dst, double v)
{
    if (v > 0 && isfinite(v) && v > *dst) *dst = v;
}

/* ---------------------------------------------------------------------------------------------- in-core data */

int bench_incore_data_init(bench_incore_data *d, int w, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    if (w < 1 || w > 64) return -1;
    d->nx = 512;
    d->nt = 512;
    d->nidx = 24 * (int64_t)w * 8;
    size_t bx = (size_t)d->nx * 8, bi = (size_t)d->nidx * 4, bt = (size_t)d->nt * 8, bs = (size_t)w * 8;
    size_t off[13], total = 0;
    const size_t sz[13] = {bx, bi, bt, bs, bi, bt, bi, bi, bi, bi, bs, (size_t)d->nidx + 64, ((size_t)d->nidx + 64) * 8};
    for (int i = 0; i < 13; i++) {
        off[i] = total;
        total += (sz[i] + 255) / 256 * 256;
    }
    char *m = bench_alloc(total);
    if (!m) return -1;
    d->mem = m;
    d->x = (double *)(void *)(m + off[0]);
    d->idx = (int32_t *)(void *)(m + off[1]);
    d->gtab = (double *)(void *)(m + off[2]);
    d->gstart = (double *)(void *)(m + off[3]);
    d->idx2 = (int32_t *)(void *)(m + off[4]);
    d->xg = (double *)(void *)(m + off[5]);
    for (int j = 0; j < 4; j++) d->idxl[j] = (int32_t *)(void *)(m + off[6 + j]);
    d->maskv = (int64_t *)(void *)(m + off[10]);
    d->vidx = (uint8_t *)(void *)(m + off[11]);
    d->val = (double *)(void *)(m + off[12]);
    for (int64_t i = 0; i < d->nidx + 64; i++) d->val[i] = 1.0;
    for (int l = 0; l < w; l++) d->maskv[l] = -1;
    volatile double one = 1.0, zero = 0.0;
    d->one = one;
    d->zero = zero;
    uint64_t s = seed ? seed : 1;
    for (int64_t i = 0; i < d->nx; i++) d->x[i] = 1.0;
    for (int64_t i = 0; i < d->nidx; i++) d->idx[i] = (int32_t)(bench_rand(&s) % (uint64_t)d->nx);
    for (int64_t i = 0; i < d->nidx + 64; i++) d->vidx[i] = (uint8_t)(bench_rand(&s) % 16);
    /* gtab: one random cycle through 0..nt-1 (Sattolo), every lane of the chain walks it from its own start */
    int64_t *perm = malloc((size_t)d->nt * sizeof *perm);
    if (!perm) {
        bench_incore_data_free(d);
        return -1;
    }
    for (int64_t i = 0; i < d->nt; i++) perm[i] = i;
    for (int64_t i = d->nt - 1; i > 0; i--) {
        int64_t j = (int64_t)(bench_rand(&s) % (uint64_t)i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int64_t i = 0; i < d->nt; i++) put_i64(&d->gtab[i], perm[i]);
    free(perm);
    for (int l = 0; l < w; l++) put_i64(&d->gstart[l], (int64_t)(l * 37) % d->nt);
    for (int64_t i = 0; i < d->nidx; i++) d->idx2[i] = (int32_t)(bench_rand(&s) % (uint64_t)d->nt);
    for (int64_t i = 0; i < d->nt; i++)
        put_i64(&d->xg[i], (int64_t)(bench_rand(&s) % (uint64_t)(d->nidx / w)) * w);
    /* idxl[j]: each vector of w indices in exactly min(2^j, w) distinct 64-byte lines of x (8 doubles each), chosen
     * at random among x's nx/8 lines, lanes round-robin over them, a random double within the line */
    const int64_t nlines = d->nx / 8;
    for (int j = 0; j < 4; j++) {
        const int k = (1 << j) < w ? 1 << j : w;
        for (int64_t v = 0; v < d->nidx; v += w) {
            int64_t pick[64];
            for (int q = 0; q < k; q++) {
                int dup;
                do { /* distinct lines */
                    pick[q] = (int64_t)(bench_rand(&s) % (uint64_t)nlines);
                    dup = 0;
                    for (int e = 0; e < q; e++) dup |= pick[e] == pick[q];
                } while (dup);
            }
            for (int l = 0; l < w; l++)
                d->idxl[j][v + l] = (int32_t)(pick[l % k] * 8 + (int64_t)(bench_rand(&s) % 8));
        }
    }
    return 0;
}

void bench_incore_data_free(bench_incore_data *d)
{
    if (d) bench_free(d->mem);
    if (d) memset(d, 0, sizeof *d);
}

/* ---------------------------------------------------------------------------------------------- timing */

/* Seconds per unit of work: the best of `windows` timed windows of about `window` seconds each (plus the
 * calibration windows that reach half that length). run(arg, count) does `count` units of work, or the next piece
 * of them, and returns the units done. Short windows: on a time-shared (virtual) CPU a long window almost always
 * contains a stretch in which the thread did not run at all; a short one often does not. */
typedef double (*work_fn)(void *arg, int64_t count);

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double clock_guess = 2.0; /* GHz, for the length of the clock windows below (measure_clock sets it) */

/* Per-pass results of the in-core and streaming measurements, combined by the median of those within 5% of the
 * best (of the 10th percentile; in memory the median of all passes, bench_median): unbiased for undisturbed
 * quantities (the minimum over every window of every pass leans low: FMA latency 3.91 instead of 4 cy on the
 * development VM) and robust when a disturbance covers most of the run (a gather 1.5x slower for many seconds on a
 * busy shared core: a plain median or quartile then reads the disturbed value). */
#define MAXPASS 64
static double smp_incore[BI_N][4 * MAXPASS], smp_stream[BK_NKERNELS][BENCH_MAX_LEVELS][BENCH_NUNROLL][MAXPASS];
static int nsmp_incore[BI_N], nsmp_stream[BK_NKERNELS][BENCH_MAX_LEVELS][BENCH_NUNROLL];

static double near_best(const double *v, int n)
{
    double s[4 * MAXPASS];
    if (n <= 0) return 0;
    memcpy(s, v, sizeof *v * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_dbl);
    /* anchored at the 10th percentile, so that a rare low outlier (a clock sample misread) cannot anchor it */
    const double a = s[n / 10];
    int lo = n / 10, hi = n / 10;
    while (lo > 0 && s[lo - 1] >= a / 1.05) lo--;
    while (hi + 1 < n && s[hi + 1] <= 1.05 * a) hi++;
    return s[(lo + hi) / 2];
}

/* bench_median (bench.h). Memory-level figures combine their passes by it: a host's memory bandwidth moves from
 * one pass to the next (the Zen 5 VM, one run of 2026-12-07 06:06: 2-thread read passes of 25.9-59.3 GB/s), the
 * best pass of 16 reads what few multiplies reach, and spmv-bench, spmv-tune and the model-against-measurement runs
 * report the median multiply: the model's memory terms take the same statistic as what they are compared with. */
double bench_median(const double *v, int n)
{
    double s[MAXPASS];
    if (n <= 0) return 0;
    if (n > MAXPASS) n = MAXPASS;
    memcpy(s, v, sizeof *v * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_dbl);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* calibrated counts per measurement, kept over the passes of one bench_run */
static int64_t cal_incore[BI_N], cal_stream[BK_NKERNELS][BENCH_MAX_LEVELS][BENCH_NUNROLL], cal_lat[BENCH_MAX_LAT];
static int64_t cal_piece[BW_NKINDS][BENCH_MAX_CPUS], cal_sweeps[BW_NKINDS][BENCH_MAX_CPUS];
static double smp_bw[BW_NKINDS][BENCH_MAX_CPUS][MAXPASS]; /* the bandwidth curve's passes, GB/s */
static int nsmp_bw[BW_NKINDS][BENCH_MAX_CPUS];

/* calibrated (may be NULL): the count found by an earlier call for the same measurement (0: not yet); then
 * only the timed windows run.
 * *cycles (may be NULL) gets the best window in core cycles at the clock measured around this measurement: a
 * short add-chain window precedes every timed window, and the best of them is the local clock. The clock of a
 * shared machine moves with the others' load (boost), by 5% on the development VM.
 * sustained: the timed windows' total time over their total work instead of the best window -- for working sets
 * in memory (Method, above). */
static double time_best(work_fn run, void *arg, int64_t count0, double window, int windows, double *cycles,
                        int64_t *calibrated, int sustained)
{
    int64_t count = calibrated && *calibrated > 0 ? *calibrated : count0 > 0 ? count0 : 1;
    double best = INFINITY;
    run(arg, count); /* warm-up */
    for (int guard = 0; guard < 64 && !(calibrated && *calibrated > 0); guard++) {
        double tmin = INFINITY;
        for (int k = 0; k < 3; k++) { /* the shortest of three: a preempted try must not stop the growth */
            double t0 = bench_now(), u = run(arg, count), dt = bench_now() - t0;
            if (dt < tmin) tmin = dt;
            if (u > 0 && dt >= 0.5 * window && dt / u < best) best = dt / u;
        }
        if (tmin >= 0.5 * window || count >= ((int64_t)1 << 50)) break;
        double f = tmin > 1e-7 ? window / tmin : 1000.0;
        count = (int64_t)((double)count * (f < 2 ? 2 : f > 1000 ? 1000 : f));
    }
    if (calibrated) *calibrated = count; /* later passes skip the calibration */
    double clk = 0;
    const int64_t adds = (int64_t)(0.4 * window * clock_guess * 1e9);
    double tsum = 0, usum = 0;
    for (int w = 0; w < windows; w++) {
        if (cycles) {
            double c = bench_clock_once(adds, NULL);
            if (c > clk) clk = c;
        }
        double t0 = bench_now(), u = run(arg, count), dt = bench_now() - t0;
        if (u > 0 && dt / u < best) best = dt / u;
        if (u > 0) tsum += dt, usum += u;
    }
    if (sustained && usum > 0) best = tsum / usum;
    /* the same statistic on both sides (the best window of each): with a percentile of the clock against the best
     * window of the measurement, an FMA chain read 3.9 instead of 4 cycles on the development VM */
    if (cycles) *cycles = best * clk * 1e9;
    return best;
}

/* A streaming kernel as work in elements: whole sweeps when a window holds one, else consecutive pieces of the
 * arrays (a whole number of rows for STENCIL), so the working set stays the whole arrays. */
typedef struct stream_job {
    bench_stream_fn fn;
    bench_kernel k;
    const bench_stream_args *A;
    int64_t q;     /* piece granularity, elements (16 W) */
    int64_t total; /* elements per sweep */
    int64_t pos;   /* start of the next piece: elements, STENCIL: rows */
} stream_job;

static double run_stream(void *arg, int64_t count)
{
    stream_job *j = arg;
    const bench_stream_args *A = j->A;
    volatile double sink;
    if (count >= j->total) {
        int64_t reps = count / j->total;
        sink = j->fn(A, reps);
        (void)sink;
        return (double)reps * (double)j->total;
    }
    bench_stream_args P = *A;
    if (j->k == BK_STENCIL) {
        int64_t rows = count / A->m, nrows = A->nj - 2;
        if (rows < 1) rows = 1;
        if (j->pos + rows > nrows) j->pos = 0;
        P.a = A->a + j->pos * A->ni;
        P.b = A->b + j->pos * A->ni;
        P.nj = rows + 2;
        P.n = P.ni * P.nj;
        j->pos += rows;
        sink = j->fn(&P, 1);
        (void)sink;
        return (double)(rows * A->m);
    }
    int64_t len = count / j->q * j->q;
    if (len < j->q) len = j->q;
    if (j->pos + len > A->n) j->pos = 0;
    P.n = len;
    P.a = A->a + j->pos;
    P.b = A->b ? A->b + j->pos : NULL;
    P.c = A->c ? A->c + j->pos : NULL;
    P.d = A->d ? A->d + j->pos : NULL;
    j->pos += len;
    sink = j->fn(&P, 1);
    (void)sink;
    return (double)len;
}

typedef struct incore_job {
    bench_incore_fn fn;
    const bench_incore_data *D;
} incore_job;

static double run_incore(void *arg, int64_t iters)
{
    incore_job *j = arg;
    return (double)j->fn(iters, j->D);
}

typedef struct chase_job {
    void *p;
} chase_job;

static double run_chase(void *arg, int64_t steps)
{
    chase_job *j = arg;
    j->p = bench_chase_run(j->p, steps);
    return (double)steps;
}

/* ---------------------------------------------------------------------------------------------- layouts */

static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }

static int touch_line = 64; /* cache line of the TOUCH kernel, bytes (bench_run sets it from the topology) */

/* Arrays of kernel k for a working set of ws bytes, carved from block (NULL: sizes only). Returns the bytes of
 * block needed; *elements: elements per sweep. */
static int64_t layout(bench_kernel k, int64_t ws, int64_t W, double *block, bench_stream_args *A, double *elements)
{
    const bench_kernel_info *ki = &bench_kernel_infos[k];
    const int64_t q = 16 * W;
    memset(A, 0, sizeof *A);
    A->s = 0.5;
    if (k == BK_STENCIL) {
        /* 2 arrays of nj rows of ni doubles, inner (m) : outer (nj) about 2 : 1 as in the paper's Fig. 2b */
        int64_t m = (int64_t)sqrt((double)ws / 8.0) / q * q;
        if (m < q) m = q;
        A->m = m;
        A->ni = m + 2 * W;
        A->nj = ws / (2 * 8 * A->ni);
        if (A->nj < 3) A->nj = 3;
        A->n = A->ni * A->nj;
        *elements = (double)(m * (A->nj - 2));
    } else if (k == BK_TOUCH) {
        const int64_t line = touch_line / 8 > 0 ? touch_line / 8 : 8, qq = 16 * (W > line ? W : line);
        int64_t n = ws / 8 / qq * qq;
        A->n = n < qq ? qq : n;
        A->ni = line;
        *elements = (double)A->n;
    } else {
        int64_t n = ws / (8 * ki->arrays) / q * q;
        A->n = n < q ? q : n;
        *elements = (double)A->n;
    }
    /* array i at i * (its size rounded up to 4 KiB) + i KiB: aligned to 1 KiB, and no two arrays at the same
     * address modulo 4 KiB (a store and a load 4 KiB apart look dependent to x86 cores: 4K aliasing) */
    const int64_t stride = round_up(A->n * 8, 4096);
    double **arr[4] = {&A->a, &A->b, &A->c, &A->d};
    for (int i = 0; i < ki->arrays; i++) *arr[i] = block ? block + i * ((stride + BENCH_ALIGN) / 8) : NULL;
    return (stride + BENCH_ALIGN) * ki->arrays;
}

static void fill(const bench_stream_args *A, int arrays, double v)
{
    double *arr[4] = {A->a, A->b, A->c, A->d};
    for (int i = 0; i < arrays; i++)
        for (int64_t e = 0; e < A->n; e++) arr[i][e] = v;
}

/* ---------------------------------------------------------------------------------------------- levels */

static int64_t phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), ps = sysconf(_SC_PAGESIZE);
    return pages > 0 && ps > 0 ? (int64_t)pages * ps : (int64_t)4 << 30;
}

static void make_levels(const bench_opts *o, bench_results *r)
{
    const bench_topo *t = &r->topo;
    int nc = t->ncaches < 3 ? t->ncaches : 3;
    r->nlevels = 0;
    int64_t prev = 0;
    for (int i = 0; i < nc; i++) {
        /* the effective capacity (bench_effective_sizes) where the sweep measured one, else the hardware's */
        const int64_t size = r->eff_bytes[i] > 0 ? r->eff_bytes[i] : t->cache[i].size;
        /* L1: half of it; beyond: max(4x the cache above, half the geometric mean of the two), at most half of
         * this one. Well inside each level even when a shared L3 is crowded by other tenants: on the development
         * VM the 32 MiB L3 holds 2 MiB of ours for sure, 4 MiB only at times (L2 128 KiB, L3 2 MiB there; on a
         * server with 2 MiB L2 and a 105 MiB L3: 8 MiB; A64FX L2: 362 KiB). */
        int64_t ws = size / 2;
        if (i > 0) {
            int64_t g = (int64_t)(0.5 * sqrt((double)prev * (double)size));
            ws = g > 4 * prev ? g : 4 * prev;
            if (ws > size / 2) ws = size / 2;
            if (ws <= prev) ws = 2 * prev; /* a cache hardly larger than the one above: beyond it at least */
        }
        ws = ws / 4096 * 4096;
        memcpy(r->level_name[r->nlevels], t->cache[i].name, sizeof r->level_name[0]); /* both char[8] */
        r->level_bytes[r->nlevels++] = ws;
        prev = size;
    }
    const bench_cache *llc = &t->cache[nc - 1];
    const int64_t llc_size = r->eff_bytes[nc - 1] > 0 ? r->eff_bytes[nc - 1] : llc->size;
    int64_t llc_total = llc_size * (llc->instances > 0 ? llc->instances : 1);
    int64_t mem = o->mem_bytes;
    if (mem <= 0) {
        mem = (o->quick ? 4 : 8) * llc_total;
        /* a cyclic sweep of 64 MiB still hits a 32 MiB L3 (AMD Zen 5); and on the Zen 5 VM reads of 256 MiB still
         * come faster than the plateau (spmv-machine's read at 256 MiB against 1 GiB, 5 interleaved rounds, medians,
         * 1 / 2 threads: 40.3 / 74.8 against 34.2 / 61.4 GB/s; the peers' read-only STREAM, whose sum reads one of
         * its three arrays: 40 / 68 GB/s over 85 MiB, 36 / 79 over 171, 34 / 64 over 341, 34 / 63 over 683;
         * BENCHMARKS.md, 2026-12-05 05:01): 1 GiB unless --quick */
        int64_t floor = (int64_t)(o->quick ? 256 : 1024) << 20;
        if (mem < floor) mem = floor;
        if (mem > phys_bytes() / 4) mem = phys_bytes() / 4;
    }
    snprintf(r->level_name[r->nlevels], sizeof r->level_name[0], "MEM");
    r->level_bytes[r->nlevels++] = mem;
}

/* ---------------------------------------------------------------------------------------------- parts */


/* The clock of one pass: the best of many short windows (as every other measurement keeps its best window). */
static void measure_clock(const bench_opts *o, bench_results *r, FILE *log)
{
    double g = bench_clock_once(200000, NULL);
    if (!(g > 0.05)) g = 1.0;
    const int64_t adds = (int64_t)(o->window * g * 1e9);
    enum { N = 100 };
    double best = 0, ts = 0;
    for (int i = 0; i < N; i++) {
        double tsc = 0, c = bench_clock_once(adds, &tsc);
        if (c > best) best = c, ts = tsc;
    }
    keep_max(&r->clock_ghz, best);
    keep_max(&r->tsc_ghz, ts);
    clock_guess = best;
    /* the same chain over 0.1 s: the rate a long window sees (lower when the CPU is time-shared or throttled) */
    keep_max(&r->clock_min_ghz, bench_clock_once((int64_t)(0.1 * best * 1e9), NULL));
    logf_(log, "clock: %.3f GHz (best of %d windows of %.2f ms; over 0.1 s: %.3f GHz)\n", best, N, o->window * 1e3,
          r->clock_min_ghz);
}

static int measure_incore(const bench_opts *o, bench_results *r, FILE *log)
{
    bench_incore_data D;
    if (bench_incore_data_init(&D, r->width, o->seed + 11)) {
        fprintf(stderr, "spmv-machine: cannot allocate the in-core tests' data\n"); /* also with -q: an error */
        return -1;
    }
    for (int i = 0; i < BI_N; i++) {
        if (!r->isa->incore[i]) continue;
        /* a gather in 2^k lines needs 2^k lanes; scalar code has no gathers */
        if (i >= BI_GATHER_1L && i <= BI_GATHER_8L && (r->width < 2 || (1 << (i - BI_GATHER_1L)) > r->width))
            continue;
        if ((i == BI_EMUL_TP || i == BI_MASKLD_TP || i == BI_VIDX_TP) && r->width < 2) continue;
        if (i == BI_XGATHER_TP || i == BI_XEMUL_TP) continue; /* x beyond the caches: measure_xrand */
        incore_job j = {r->isa->incore[i], &D};
        double cy = 0, sec = time_best(run_incore, &j, 16, o->window, o->windows, &cy, &cal_incore[i], 0);
        if (nsmp_incore[i] < 4 * MAXPASS && cy > 0 && isfinite(cy)) {
            smp_incore[i][nsmp_incore[i]++] = cy;
            r->incore[i] = near_best(smp_incore[i], nsmp_incore[i]);
        }
        keep_min(&r->incore_s[i], sec);
    }
    logf_(log, "in-core: FMA %.2f/%.2f cy, gather %.2f, index load + gather %.2f (lines 1/2/4/8: %.2f %.2f %.2f %.2f), "
          "emulated %.2f, masked load %.2f, scalar load %.2f, value index %.2f cy\n", r->incore[BI_FMA_LAT],
          r->incore[BI_FMA_TP], r->incore[BI_GATHER_TP], r->incore[BI_GATHERLD_TP], r->incore[BI_GATHER_1L],
          r->incore[BI_GATHER_2L], r->incore[BI_GATHER_4L], r->incore[BI_GATHER_8L], r->incore[BI_EMUL_TP],
          r->incore[BI_MASKLD_TP], r->incore[BI_SLOAD_TP], r->incore[BI_VIDX_TP]);
    bench_incore_data_free(&D);
    return 0;
}

static int measure_stream(const bench_opts *o, bench_results *r, FILE *log)
{
    const int64_t W = r->width;
    for (int L = 0; L < r->nlevels; L++) {
        int64_t need = 0;
        for (int k = 0; k < BK_NKERNELS; k++) {
            bench_stream_args A;
            double el;
            int64_t b = layout((bench_kernel)k, r->level_bytes[L], W, NULL, &A, &el);
            if (b > need) need = b;
        }
        double *block = bench_alloc((size_t)need);
        if (!block) {
            fprintf(stderr, "spmv-machine: cannot allocate %lld bytes for the %s working set\n", (long long)need,
                    r->level_name[L]);
            return -1;
        }
        for (int k = 0; k < BK_NKERNELS; k++) {
            bench_stream_args A;
            double el;
            layout((bench_kernel)k, r->level_bytes[L], W, block, &A, &el);
            fill(&A, bench_kernel_infos[k].arrays, 1.0);
            for (int u = 0; u < BENCH_NUNROLL; u++) {
                const int64_t qk = k == BK_TOUCH && A.ni > W ? 16 * A.ni : 16 * W;
                stream_job j = {r->isa->stream[k][u], (bench_kernel)k, &A, qk, (int64_t)el, 0};
                double cy = 0, s = time_best(run_stream, &j, 16 * W, o->window, o->windows, &cy, &cal_stream[k][L][u],
                                             L == r->nlevels - 1);
                keep_min(&r->stream_s[k][L][u], s * (double)W);
                int *ns = &nsmp_stream[k][L][u];
                if (*ns < MAXPASS && cy > 0 && isfinite(cy)) {
                    smp_stream[k][L][u][(*ns)++] = cy * (double)W;
                    r->stream_cy[k][L][u] = L == r->nlevels - 1 ? bench_median(smp_stream[k][L][u], *ns)
                                                                : near_best(smp_stream[k][L][u], *ns);
                }
            }
            int bu;
            double best = bench_best_cy(r, (bench_kernel)k, L, &bu);
            logf_(log, "stream %-10s %-3s %6.2f cy/VL (u=%d) %8.2f GB/s\n", bench_kernel_infos[k].name,
                  r->level_name[L], best, bu, bench_gbs(r, (bench_kernel)k, L, best, 1));
        }
        bench_free(block);
    }
    return 0;
}

/* x at uniformly random lines as a SpMV entry reads it (an index stream, a value stream, x by the ISA's gather and
 * by the emulated gather), with x of 4 << 2i MiB and, for the log, with x of 16 KiB (in L1: the loads, the multiply
 * and the streams alone): ns per element, the best of 3 timed passes over 2^22 random indices after one warm-up
 * pass, kept over the calls (r->xrand_raw_ns; without the L1 point, the machine file's "random x line"
 * keys), which the model charges x's lines that miss the private caches at (src/model/ecm.c). The gather loop is the kernels' own shape: each gather merges into the register the previous
 * multiply wrote (as the library's AVX-512 kernels' gathers do), so gathers do not overlap freely. Points larger than
 * --mem-size (opts.mem_bytes) are left out; without the memory, not measured (a message, no error). */
static void measure_xrand(const bench_opts *o, bench_results *r, FILE *log)
{
    const bench_incore_fn f[2] = {r->width > 1 ? r->isa->incore[BI_XGATHER_TP] : NULL,
                                  r->width > 1 ? r->isa->incore[BI_XEMUL_TP] : r->isa->incore[BI_XGATHER_TP]};
    const int64_t W = r->width, step = 8 * W, nidx = ((int64_t)1 << 22) / (24 * step) * (24 * step);
    int64_t xmax = ((int64_t)4 << (2 * (SPMV_XRAND_POINTS - 1))) << 20;
    if (o->mem_bytes > 0 && o->mem_bytes < xmax) xmax = o->mem_bytes;
    bench_incore_data D;
    memset(&D, 0, sizeof D);
    D.x = bench_alloc((size_t)xmax);
    D.idx = bench_alloc((size_t)nidx * 4);
    D.val = bench_alloc(((size_t)nidx + 64) * 8);
    D.nidx = nidx;
    if (!D.x || !D.idx || !D.val) {
        fprintf(stderr, "spmv-machine: no memory for the random-x test (%lld MiB): not measured\n",
                (long long)(xmax >> 20));
    } else {
        for (int64_t i = 0; i < xmax / 8; i++) D.x[i] = 1.0;
        for (int64_t i = 0; i < nidx + 64; i++) D.val[i] = 1.0;
        /* a gather's random line costs 2-3x with 4 KiB pages (TLB misses; Zen 5 VM, x of 16 MiB): say which */
        const int64_t hb = bench_huge_bytes(D.x);
        r->xrand_huge = hb >= 0 ? (double)(hb < xmax ? hb : xmax) / (double)xmax : -1.0;
        if (hb >= 0) logf_(log, "random x: %.0f %% of x in huge pages\n", 100.0 * r->xrand_huge);
        uint64_t s = o->seed + 29;
        for (int p = -1; p < SPMV_XRAND_POINTS; p++) {
            const int64_t bytes = p < 0 ? 16384 : ((int64_t)4 << (2 * p)) << 20;
            if (bytes > xmax) break;
            D.nx = bytes / 8;
            for (int64_t i = 0; i < nidx; i++) D.idx[i] = (int32_t)(bench_rand(&s) % (uint64_t)D.nx);
            for (int k = 0; k < 2; k++) {
                if (!f[k]) continue;
                double best = 0;
                f[k](nidx / step, &D); /* warm-up: x's cached part in place */
                for (int rep = 0; rep < 3; rep++) {
                    double t0 = bench_now();
                    f[k](nidx / step, &D);
                    keep_min(&best, (bench_now() - t0) / (double)nidx * 1e9);
                }
                keep_min(&r->xrand_raw_ns[k][p + 1], best);
            }
            logf_(log, "random x %7.3g MiB: %.2f ns per element by gather, %.2f by scalar loads%s\n",
                  (double)bytes / 1048576.0, r->xrand_raw_ns[0][p + 1], r->xrand_raw_ns[1][p + 1],
                  p < 0 ? " (x in L1)" : "");
        }
    }
    bench_free(D.x);
    bench_free(D.idx);
    bench_free(D.val);
}

static int measure_latency(const bench_opts *o, bench_results *r, FILE *log)
{
    const int64_t mem = r->level_bytes[r->nlevels - 1];
    const int line = r->topo.cacheline > 0 ? r->topo.cacheline : 64;
    int64_t biggest = mem;
    for (int L = 0; L < r->nlevels; L++) biggest = r->level_bytes[L] > biggest ? r->level_bytes[L] : biggest;
    char *buf = bench_alloc((size_t)biggest);
    if (!buf) {
        fprintf(stderr, "spmv-machine: cannot allocate %lld bytes for the latency test\n", (long long)biggest);
        return -1;
    }
    /* sizes: the levels' working sets and, for the sweep, powers of two from 4 KiB */
    int64_t sizes[BENCH_MAX_LAT];
    int ns = 0;
    if (o->latency_sweep)
        for (int64_t s = 4096; s < mem && ns < BENCH_MAX_LAT - BENCH_MAX_LEVELS; s *= 2) sizes[ns++] = s;
    for (int L = 0; L < r->nlevels; L++) {
        int dup = 0;
        for (int i = 0; i < ns; i++) dup |= sizes[i] == r->level_bytes[L];
        if (!dup) sizes[ns++] = r->level_bytes[L];
    }
    for (int i = 1; i < ns; i++) /* sort */
        for (int j = i; j > 0 && sizes[j] < sizes[j - 1]; j--) {
            int64_t t = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = t;
        }
    r->nlat = 0;
    for (int i = 0; i < ns; i++) {
        int64_t n = bench_chase_init(buf, (size_t)sizes[i], (size_t)line, o->seed + 7 + (uint64_t)i);
        if (n < 1) continue;
        chase_job j = {buf};
        /* warm-up: one full round for cache-sized sets (every line in place), a partial one beyond */
        j.p = bench_chase_run(j.p, n < (1 << 20) ? n : (1 << 16));
        double s = time_best(run_chase, &j, 64, o->window, o->windows, NULL, &cal_lat[i], 0);
        r->lat_bytes[r->nlat] = sizes[i];
        keep_min(&r->lat_ns[r->nlat++], s * 1e9);
        for (int L = 0; L < r->nlevels; L++)
            if (r->level_bytes[L] == sizes[i]) keep_min(&r->level_lat_ns[L], s * 1e9);
        logf_(log, "latency %10lld B %8.2f ns %8.1f cy\n", (long long)sizes[i], s * 1e9, s * 1e9 * r->clock_ghz);
    }
    bench_free(buf);
    measure_xrand(o, r, log);
    return 0;
}

/* Bandwidth of one core reading (SUM, 8 accumulators) working sets from twice the L2 up to 512 MiB (256 MiB with
 * --quick, at most an eighth of the memory) in steps of sqrt(2): the best window per size, the best over calls.
 * bench_effective_sizes reads the last-level cache's capacity off it. */
static int measure_sweep(const bench_opts *o, bench_results *r, FILE *log)
{
    const bench_topo *t = &r->topo;
    const int64_t W = r->width;
    int64_t lo = t->ncaches >= 2 ? 2 * t->cache[1].size : (int64_t)1 << 20, hi = (int64_t)(o->quick ? 256 : 512) << 20;
    if (hi > phys_bytes() / 8) hi = phys_bytes() / 8;
    if (lo < (1 << 20)) lo = 1 << 20;
    if (hi < 4 * lo) return 0;
    bench_stream_args A;
    double el;
    int64_t need = layout(BK_SUM, hi, W, NULL, &A, &el);
    double *block = bench_alloc((size_t)need);
    if (!block) {
        fprintf(stderr, "spmv-machine: cannot allocate %lld bytes for the bandwidth sweep\n", (long long)need);
        return -1;
    }
    int n = 0;
    for (double sz = (double)lo; sz <= (double)hi * 1.0001 && n < BENCH_MAX_LAT; sz *= sqrt(2.0)) {
        int64_t ws = (int64_t)sz / 4096 * 4096;
        layout(BK_SUM, ws, W, block, &A, &el);
        fill(&A, 1, 1.0);
        stream_job j = {r->isa->stream[BK_SUM][3], BK_SUM, &A, 16 * W, (int64_t)el, 0};
        double sec = time_best(run_stream, &j, 16 * W, o->window, o->windows, NULL, NULL, 0);
        double gbs = sec > 0 ? 8.0 / sec * 1e-9 : 0; /* seconds per element */
        r->sweep_bytes[n] = ws;
        keep_max(&r->sweep_gbs[n], gbs);
        n++;
    }
    r->nsweep = n;
    logf_(log, "bandwidth sweep (one core, SUM):");
    for (int i = 0; i < n; i++) logf_(log, " %.0fM %.1f", r->sweep_bytes[i] / 1048576.0, r->sweep_gbs[i]);
    logf_(log, " GB/s\n");
    bench_free(block);
    return 0;
}

/* Effective capacities: see bench.h. */
void bench_effective_sizes(bench_results *r)
{
    const bench_topo *t = &r->topo;
    const int nc = t->ncaches < 3 ? t->ncaches : 3;
    for (int i = 0; i < BENCH_MAX_LEVELS; i++) r->eff_bytes[i] = r->eff_lat_bytes[i] = 0;
    for (int i = 0; i < nc; i++) r->eff_bytes[i] = t->cache[i].size;
    /* latency: the largest size of the sweep within 1.5x of the level's latency */
    if (r->nlat >= 6)
        for (int L = 0; L < nc && L < r->nlevels - 1; L++) {
            if (!(r->level_lat_ns[L] > 0)) continue;
            for (int i = 0; i < r->nlat; i++)
                if (r->lat_bytes[i] <= t->cache[L].size && r->lat_ns[i] <= 1.5 * r->level_lat_ns[L] &&
                    r->lat_bytes[i] >= r->level_bytes[L] && r->lat_bytes[i] > r->eff_lat_bytes[L])
                    r->eff_lat_bytes[L] = r->lat_bytes[i];
        }
    /* a level whose own latency is more than half of memory's serves random accesses no better than memory: on the
     * Intel Xeon VM the L3 (16 MiB by bandwidth) chases at 159 ns from 4 MiB on, memory at 186 ns. Its random
     * capacity is then the largest size of the sweep below half the memory latency (2 MiB there), so that random x
     * beyond it counts as memory traffic */
    const double lmem = r->nlevels > 0 ? r->level_lat_ns[r->nlevels - 1] : 0;
    if (r->nlat >= 6 && lmem > 0)
        for (int L = 0; L < nc && L < r->nlevels - 1; L++) {
            if (!(r->level_lat_ns[L] > 0.5 * lmem)) continue;
            int64_t s = 0;
            for (int i = 0; i < r->nlat; i++)
                if (r->lat_ns[i] > 0 && r->lat_ns[i] <= 0.5 * lmem && r->lat_bytes[i] <= t->cache[L].size &&
                    r->lat_bytes[i] > s)
                    s = r->lat_bytes[i];
            if (s > 0) r->eff_lat_bytes[L] = s;
        }
    /* bandwidth: fit the last-level cache's capacity */
    const int n = r->nsweep;
    if (n < 5 || nc < 2) return;
    const double bm = r->sweep_gbs[n - 1];
    double best_err = INFINITY, bestC = 0;
    for (int c = 0; c < n - 2; c++) /* candidate capacities: the sweep's sizes and the geometric midpoints */
        for (int h = 0; h < 2; h++) {
            double C = h ? sqrt((double)r->sweep_bytes[c] * (double)r->sweep_bytes[c + 1]) : (double)r->sweep_bytes[c];
            double bc = 0;
            for (int i = 0; i < n; i++)
                if ((double)r->sweep_bytes[i] <= C && r->sweep_gbs[i] > bc) bc = r->sweep_gbs[i];
            if (!(bc > bm) || !(bm > 0)) continue;
            double err = 0;
            for (int i = 0; i < n; i++) {
                double ws = (double)r->sweep_bytes[i], f = ws <= C ? 1.0 : C / ws;
                double pred = 1.0 / (f / bc + (1.0 - f) / bm);
                if (r->sweep_gbs[i] > 0) err += fabs(log(pred / r->sweep_gbs[i]));
            }
            if (err < best_err) best_err = err, bestC = C;
        }
    /* the largest size must lie well beyond it (else memory was not reached: keep the hardware's size) */
    const int llc = nc - 1;
    if (bestC > 0 && (double)r->sweep_bytes[n - 1] >= 4.0 * bestC) {
        int64_t C = (int64_t)bestC / 4096 * 4096;
        r->eff_bytes[llc] = C < t->cache[llc].size ? C : t->cache[llc].size;
    }
}

/* One kernel on nt threads, each on its own slice of chunk elements, timed in windows in which every thread
 * does the next piece of its slice (or whole sweeps of it); the sustained bandwidth in GB/s (explicit +
 * write-allocate): the timed windows' bytes over their time (Method, above). Returns 0 when OpenMP gave fewer
 * threads than asked. */
static double bw_threads(const bench_opts *o, const bench_results *r, bench_kernel k, const bench_stream_args *A,
                         int64_t chunk, int nt, int *got_out, int64_t *cal_p, int64_t *cal_s)
{
    const bench_kernel_info *ki = &bench_kernel_infos[k];
    const bench_stream_fn fn = r->isa->stream[k][3]; /* u = 8 (SUM: 8 accumulators) */
    const double window = o->window > 0.001 ? o->window : 0.001; /* amortizes the barriers and the prefetch ramp */
    const int64_t q = 16 * r->width;
    double tsum = 0, bsum = 0, t0 = 0;
    int64_t piece = q * 16 < chunk ? q * 16 : chunk, sweeps = 1, pos = 0;
    int got = 1, calib = 0;
    if (*cal_p > 0 && *cal_p <= chunk) piece = *cal_p, sweeps = *cal_s, calib = 1; /* from an earlier pass */
    const int windows = 2 * o->windows;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num();
#pragma omp single
        got = omp_get_num_threads();
#else
        const int t = 0;
#endif
        if (r->pinned == 1 && t < r->topo.ncore_cpus) bench_pin(r->topo.core_cpus[t]);
        for (int w = calib ? -2 : -40; w < windows; w++) {
            bench_stream_args my = *A;
            const int64_t off = t * chunk + pos;
            my.n = piece;
            my.a = A->a + off;
            my.b = A->b ? A->b + off : NULL;
            my.c = A->c ? A->c + off : NULL;
            my.d = A->d ? A->d + off : NULL;
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
            t0 = bench_now();
            volatile double sink = fn(&my, sweeps);
            (void)sink;
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
            {
                double dt = bench_now() - t0;
                if (w < 0 && calib) {
                    /* warm-up */
                } else if (w < 0) { /* grow the piece (then whole sweeps) to about one window */
                    if (dt < 0.5 * window) {
                        if (piece < chunk) piece = piece * 2 < chunk ? piece * 2 : chunk;
                        else sweeps *= 2;
                    } else {
                        calib = 1;
                    }
                } else if (w >= 0) {
                    tsum += dt;
                    bsum += (double)(piece * sweeps * nt) * (ki->rd + ki->wr + ki->wa);
                }
                pos += piece;
                if (pos + piece > chunk) pos = 0;
            }
#ifdef _OPENMP
#pragma omp barrier /* piece, sweeps and pos are read at the top */
#endif
        }
    }
    *got_out = got;
    *cal_p = piece;
    *cal_s = sweeps;
    return got == nt && tsum > 0 ? 1e-9 * bsum / tsum : 0;
}

/* Seconds of the library's team start and join with no work on nt threads (spmv_team_overhead: the helper threads
 * of a small multiply, or an OpenMP region): what the model adds to each multiply on more than one thread. The best
 * of `windows` calls (each the best of 5 windows of 200). */
static double fork_join(int nt, int windows)
{
    double best = INFINITY;
    for (int w = 0; w < windows; w++) {
        const double t = spmv_team_overhead(nt);
        if (t > 0 && t < best) best = t;
    }
    return best < INFINITY ? best : 0.0;
}

static int measure_bw(const bench_opts *o, bench_results *r, FILE *log)
{
    const int64_t W = r->width, q = 16 * W;
    int nmax = o->max_threads > 0 ? o->max_threads : r->topo.ncore_cpus;
#ifdef _OPENMP
    if (nmax > r->topo.ncore_cpus && r->pinned == 1) nmax = r->topo.ncore_cpus;
#else
    nmax = 1;
#endif
    if (nmax > BENCH_MAX_CPUS) nmax = BENCH_MAX_CPUS;
    if (nmax < 1) nmax = 1;
    const int64_t ws = r->level_bytes[r->nlevels - 1];
    int64_t need = 0;
    static const bench_kernel kinds[BW_NKINDS] = {BK_SUM, BK_COPY, BK_TRIAD}; /* SUM: STREAM's read-only "sum" */
    for (int kk = 0; kk < BW_NKINDS; kk++) {
        bench_stream_args A;
        double el;
        int64_t b = layout(kinds[kk], ws, W, NULL, &A, &el);
        if (b > need) need = b;
    }
    double *block = bench_alloc((size_t)need);
    if (!block) {
        fprintf(stderr, "spmv-machine: cannot allocate %lld bytes for the bandwidth curve\n", (long long)need);
        return -1;
    }
    r->bw_unroll = 8;
    r->bw_bytes = ws;
    int nthreads = 0;
    for (int nt = 1; nt <= nmax; nt++) {
        int ok = 1;
        double pass_bw[BW_NKINDS] = {0};
        for (int kk = 0; kk < BW_NKINDS && ok; kk++) {
            bench_stream_args A;
            double el;
            layout(kinds[kk], ws, W, block, &A, &el);
            const int64_t chunk = A.n / nt / q * q;
            if (chunk < q) {
                ok = 0;
                break;
            }
            fill(&A, bench_kernel_infos[kinds[kk]].arrays, 1.0);
            int got = 0;
            const double gbs =
                bw_threads(o, r, kinds[kk], &A, chunk, nt, &got, &cal_piece[kk][nt - 1], &cal_sweeps[kk][nt - 1]);
            int *ns = &nsmp_bw[kk][nt - 1];
            if (got == nt && gbs > 0 && *ns < MAXPASS) {
                smp_bw[kk][nt - 1][(*ns)++] = gbs;
                r->bw[kk][nt - 1] = bench_median(smp_bw[kk][nt - 1], *ns); /* the median pass (Method) */
                r->bw_passes[kk][nt - 1] = *ns;
                if (*ns == 1 || gbs < r->bw_lo[kk][nt - 1]) r->bw_lo[kk][nt - 1] = gbs;
                if (gbs > r->bw_hi[kk][nt - 1]) r->bw_hi[kk][nt - 1] = gbs;
            }
            pass_bw[kk] = gbs;
            if (got != nt) {
                logf_(log, "spmv-machine: asked for %d threads, OpenMP gave %d: the curve stops at %d\n", nt, got,
                      nt - 1);
                ok = 0;
            }
        }
        if (!ok) break;
        nthreads = nt;
        logf_(log, "bandwidth %3d thread%s LOAD %8.2f  COPY %8.2f  TRIAD %8.2f GB/s (this pass %.2f %.2f %.2f)\n", nt,
              nt > 1 ? "s" : " ", r->bw[BW_LOAD][nt - 1], r->bw[BW_COPY][nt - 1], r->bw[BW_TRIAD][nt - 1],
              pass_bw[BW_LOAD], pass_bw[BW_COPY], pass_bw[BW_TRIAD]);
    }
    if (r->nthreads == 0 || nthreads < r->nthreads) r->nthreads = nthreads;
    bench_free(block);
    if (nthreads > 1) {
        const double fj = fork_join(nthreads, o->windows);
        if (fj > 0 && (!(r->fork_join_s > 0) || fj < r->fork_join_s)) r->fork_join_s = fj; /* best over the passes */
        logf_(log, "thread team start and join (spmv_team_overhead) on %d threads: %.2f us\n", nthreads, fj * 1e6);
    }
    return 0;
}

int bench_run(const bench_opts *opts, bench_results *r, FILE *log)
{
    bench_opts o = *opts;
    memset(r, 0, sizeof *r);
    r->xrand_huge = -1;
    if (!o.isa) o.isa = bench_isa_best();
    if (o.window <= 0) o.window = o.quick ? 0.00025 : 0.0005;
    if (o.windows <= 0) o.windows = o.quick ? 8 : 20;
    if (o.passes <= 0) o.passes = o.quick ? 4 : 16; /* --quick: about 10-30 s on an idle 2-core VM */
    if (o.passes > MAXPASS) o.passes = MAXPASS;
    if (!o.seed) o.seed = 20200930;
    int parts = o.parts ? o.parts : 0xff;
    double T0 = bench_now();
    bench_topo_detect(&r->topo);
    r->isa = o.isa;
    r->width = o.isa->width();
    touch_line = r->topo.cacheline > 0 ? r->topo.cacheline : 64;
    const char *pl = getenv("OMP_PLACES"), *pb = getenv("OMP_PROC_BIND");
    r->pinned = (pl && *pl) || (pb && *pb) ? 2 : 1;
    if (r->pinned == 1) {
        bench_affinity_save();
        bench_pin(r->topo.core_cpus[0]);
    }
    /* the effective last-level cache first: the working sets of the levels depend on it (3 sweeps, the best) */
    int st = 0;
    bench_effective_sizes(r);
    if (parts & (BENCH_PART_STREAM | BENCH_PART_BW | BENCH_PART_LATENCY)) {
        double t = bench_now();
        for (int k = 0; k < 3 && !st; k++) st = measure_sweep(&o, r, log);
        bench_effective_sizes(r);
        r->seconds[3] += bench_now() - t;
    }
    make_levels(&o, r);
    memset(cal_incore, 0, sizeof cal_incore);
    memset(nsmp_incore, 0, sizeof nsmp_incore);
    memset(nsmp_stream, 0, sizeof nsmp_stream);
    memset(cal_stream, 0, sizeof cal_stream);
    memset(cal_lat, 0, sizeof cal_lat);
    memset(cal_piece, 0, sizeof cal_piece);
    memset(cal_sweeps, 0, sizeof cal_sweeps);
    memset(nsmp_bw, 0, sizeof nsmp_bw);
    double clocks[64];
    int npass = 0;
    for (int pass = 0; pass < o.passes && !st; pass++) {
        logf_(log, "pass %d of %d\n", pass + 1, o.passes);
        double t = bench_now();
        const double before = r->clock_ghz;
        r->clock_ghz = 0;
        measure_clock(&o, r, log); /* always: it converts every other measurement to cycles */
        if (npass < 64) clocks[npass++] = r->clock_ghz;
        if (before > r->clock_ghz) r->clock_ghz = before;
        r->seconds[0] += bench_now() - t;
        static const int order[] = {BENCH_PART_STREAM, BENCH_PART_LATENCY, BENCH_PART_BW};
        for (int k = 0; k <= 3 && !st; k++) {
            if (parts & BENCH_PART_INCORE) {
                t = bench_now();
                st = measure_incore(&o, r, log);
                r->seconds[1] += bench_now() - t;
            }
            if (k == 3 || st || !(parts & order[k])) continue;
            if (order[k] == BENCH_PART_LATENCY && pass >= 3) continue; /* latencies hardly vary: 3 passes */
            t = bench_now();
            st = order[k] == BENCH_PART_STREAM    ? measure_stream(&o, r, log)
                 : order[k] == BENCH_PART_LATENCY ? measure_latency(&o, r, log)
                                                  : measure_bw(&o, r, log);
            r->seconds[order[k] == BENCH_PART_STREAM ? 2 : order[k] == BENCH_PART_LATENCY ? 3 : 4] += bench_now() - t;
        }
    }
    r->passes = npass;
    bench_effective_sizes(r); /* again, with the latency sweep */
    /* the clock: the median of the passes (each the best of its windows) */
    if (npass > 0) {
        qsort(clocks, (size_t)npass, sizeof *clocks, cmp_dbl);
        r->clock_ghz = clocks[npass / 2];
    }
    if (r->pinned == 1) bench_affinity_restore();
    r->seconds[5] = bench_now() - T0;
    return st;
}

/* ---------------------------------------------------------------------------------------------- derived */

double bench_best_cy(const bench_results *r, bench_kernel k, int level, int *unroll)
{
    double best = 0;
    int bu = 0;
    for (int u = 0; u < BENCH_NUNROLL; u++) {
        double c = r->stream_cy[k][level][u];
        if (c > 0 && (best == 0 || c < best)) best = c, bu = bench_unrolls[u];
    }
    if (unroll) *unroll = bu;
    return best;
}

double bench_gbs(const bench_results *r, bench_kernel k, int level, double cy, int with_wa)
{
    const bench_kernel_info *ki = &bench_kernel_infos[k];
    if (!(cy > 0)) return 0;
    (void)level;
    double bytes = (ki->rd + ki->wr + (with_wa ? ki->wa : 0)) * r->width; /* per VL */
    return bytes / cy * r->clock_ghz;                                      /* B/cy * Gcy/s */
}

/* saturated bandwidth of one NUMA domain, GB/s: the curve's maximum, else one core's in memory */
static double bw_sat(const bench_results *r, int kind)
{
    double m = 0;
    for (int i = 0; i < r->nthreads; i++)
        if (r->bw[kind][i] > m) m = r->bw[kind][i];
    if (m > 0) return m;
    static const bench_kernel kk[BW_NKINDS] = {BK_SUM, BK_COPY, BK_TRIAD};
    int L = r->nlevels - 1;
    return bench_gbs(r, kk[kind], L, bench_best_cy(r, kk[kind], L, NULL), 1);
}

/* its fastest pass (the roofline's, spmv_machine.bw_*_best): the curve's fastest pass at any thread count (at least
 * bw_sat, each point's fastest pass being at least its median); 0 without a curve */
static double bw_sat_best(const bench_results *r, int kind)
{
    double m = 0;
    for (int i = 0; i < r->nthreads; i++)
        if (r->bw_hi[kind][i] > m) m = r->bw_hi[kind][i];
    return m;
}

/* cy/VL of one read-only stream: the better of LOAD and SUM (both read 8 bytes per element and nothing else) */
static double read_cy(const bench_results *r, int level)
{
    double l = bench_best_cy(r, BK_LOAD, level, NULL), s = bench_best_cy(r, BK_SUM, level, NULL);
    return l > 0 && (!(s > 0) || l < s) ? l : s;
}

/* the kernels the fit scores (LOAD calibrates; STENCIL depends on layer conditions) */
static const bench_kernel fit_kernels[] = {BK_COPY, BK_DAXPY, BK_DOT, BK_INIT, BK_TRIAD, BK_SUM, BK_SCHOENAUER};
enum { NFIT = sizeof fit_kernels / sizeof *fit_kernels };

/* a machine for the ECM combination: the results' levels (the last is memory) with the given rules and bandwidths
 * (levels not fitted yet get a placeholder: T_data[L] depends on the levels up to L only) */
static void fit_machine(const bench_results *r, const spmv_overlap *rule, const double *bw, spmv_machine *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "fit");
    m->clock_ghz = r->clock_ghz > 0 ? r->clock_ghz : 1.0;
    m->sockets = m->cores_per_socket = m->cores_per_numa = 1;
    m->cacheline = 64;
    m->simd_width = r->width > 0 ? r->width : 1;
    m->nlevels = r->nlevels;
    for (int i = 0; i < r->nlevels; i++) {
        spmv_machine_level *l = &m->level[i];
        const int mem = i == r->nlevels - 1;
        snprintf(l->name, sizeof l->name, mem ? "MEM" : "C%d", i + 1);
        l->size = mem ? 0 : (int64_t)64 << (2 * i + 4);
        l->cores_per_group = 1;
        l->upstream_bw = bw[i] > 0 ? bw[i] : 1.0;
        l->overlap = rule[i];
    }
}

/* cy/VL of kernel k with its data in level L, by the library's ECM */
static double fit_predict(const bench_results *r, const spmv_overlap *rule, const double *bw, bench_kernel k, int L)
{
    const bench_kernel_info *ki = &bench_kernel_infos[k];
    const double W = r->width;
    const double ld = bench_best_cy(r, BK_LOAD, 0, NULL), st = bench_best_cy(r, BK_INIT, 0, NULL);
    if (r->nlevels < 2 || L >= r->nlevels) return 0;
    spmv_machine m;
    fit_machine(r, rule, bw, &m);
    spmv_ecm_loop lp;
    memset(&lp, 0, sizeof lp);
    lp.T_load = ki->loads * ld;
    lp.T_store = ki->stores * st;
    for (int i = 1; i < r->nlevels; i++) {
        lp.rd[i] = (ki->rd + ki->wa) * W;
        lp.wr[i] = ki->wr * W;
    }
    double T[SPMV_MACHINE_MAX_LEVELS];
    if (spmv_ecm_loop_predict(&m, &lp, T)) return 0;
    return T[L];
}

/* mean |log(pred/meas)| of the fit kernels at level L (INFINITY when none measured) */
static double fit_error(const bench_results *r, const spmv_overlap *rule, const double *bw, int L, double *pred)
{
    double sum = 0;
    int n = 0;
    for (int f = 0; f < NFIT; f++) {
        double meas = bench_best_cy(r, fit_kernels[f], L, NULL), p = fit_predict(r, rule, bw, fit_kernels[f], L);
        if (pred) pred[fit_kernels[f]] = p;
        if (meas > 0 && p > 0) sum += fabs(log(p / meas)), n++;
    }
    return n ? sum / n : INFINITY;
}

/* the upstream read bandwidth of level L under the rules that makes the read-only stream's prediction equal its
 * measurement (bisection in log space over 1e-3 .. 1e5 B/cy); 1e5 when even that is too slow */
static double calibrate_level(const bench_results *r, const spmv_overlap *rule, double *bw, int L)
{
    const double meas = read_cy(r, L);
    if (!(meas > 0)) return 0;
    double lo = log(1e-3), hi = log(1e5), keep = bw[L];
    bw[L] = exp(hi);
    if (fit_predict(r, rule, bw, BK_LOAD, L) > meas) {
        bw[L] = keep;
        return exp(hi);
    }
    for (int it = 0; it < 80; it++) {
        double mid = 0.5 * (lo + hi);
        bw[L] = exp(mid);
        if (fit_predict(r, rule, bw, BK_LOAD, L) > meas) lo = mid; /* too slow: more bandwidth */
        else hi = mid;
    }
    bw[L] = keep;
    return exp(0.5 * (lo + hi));
}

/* the calibrated bandwidth of level L under rule[] (0: none), at most the measured link bandwidth: a link faster than
 * any measurement through it is rejected, the rule scored at the measured link bandwidth instead (1.1x: noise);
 * *clamped (may be NULL) says whether that happened. clamp = 0: as calibrated (a forced rule). */
static double level_bw(const bench_results *r, const bench_fit *fit, const spmv_overlap *rule, double *bw, int L,
                       int clamp, int *clamped)
{
    double b = calibrate_level(r, rule, bw, L);
    const int c = clamp && b > 0 && fit->cap[L] > 0 && b > 1.1 * fit->cap[L];
    if (clamped) *clamped = c;
    return c ? fit->cap[L] : b > 0 ? b : 0;
}

/* the fit with L1's rule given (l1 < 0: forced applies) */
static void overlap_fit(const bench_results *r, int forced, int l1, bench_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    const int n = r->nlevels;
    const double W = r->width;
    for (int L = 0; L < BENCH_MAX_LEVELS; L++)
        for (int q = 0; q < 3; q++) fit->err[L][q] = INFINITY;
    spmv_overlap rule[BENCH_MAX_LEVELS];
    double bw[BENCH_MAX_LEVELS];
    for (int i = 0; i < BENCH_MAX_LEVELS; i++) rule[i] = forced >= 0 ? (spmv_overlap)forced : SPMV_OVERLAP_A64FX, bw[i] = 0;
    const double T0 = read_cy(r, 0);
    bw[0] = T0 > 0 ? 8.0 * W / T0 : 0;
    /* measured link bandwidths: the most bytes per cycle any kernel moved towards the core at the level (TOUCH, one
     * load per line, the least core work per byte, included); a rule that needs a faster link than that is not
     * supported by the measurements */
    for (int L = 1; L < n; L++) {
        double cap = 0;
        for (int k = 0; k < BK_NKERNELS; k++) {
            if (k == BK_STENCIL) continue;
            double ck = bench_best_cy(r, (bench_kernel)k, L, NULL);
            double b = (bench_kernel_infos[k].rd + bench_kernel_infos[k].wa) * W;
            if (ck > 0 && b / ck > cap) cap = b / ck;
        }
        fit->cap[L] = cap;
    }
    if (l1 >= 0) rule[0] = (spmv_overlap)l1;
    fit->err[0][rule[0]] = fit_error(r, rule, bw, 0, fit->pred[0][rule[0]]);
    fit->rule[0] = rule[0];
    fit->bw[0] = bw[0];
    for (int L = 1; L < n; L++) {
        int best = -1;
        /* the simplest hypothesis first: a tie (rules the kernels cannot tell apart) keeps full, then partial */
        static const int order[3] = {SPMV_OVERLAP_FULL, SPMV_OVERLAP_A64FX, SPMV_OVERLAP_NONE};
        for (int oi = 0; oi < 3; oi++) {
            const int q = order[oi];
            if (forced >= 0 && q != forced) continue;
            rule[L] = (spmv_overlap)q;
            const double b = level_bw(r, fit, rule, bw, L, forced < 0, &fit->clamped[L][q]);
            if (!(b > 0)) continue;
            fit->try_bw[L][q] = b;
            bw[L] = b;
            double e = fit_error(r, rule, bw, L, fit->pred[L][q]);
            fit->err[L][q] = e;
            if (best < 0 || e < fit->err[L][best]) best = q;
        }
        if (best < 0 || !isfinite(fit->err[L][best])) best = forced >= 0 ? forced : SPMV_OVERLAP_FULL;
        rule[L] = (spmv_overlap)best;
        bw[L] = fit->try_bw[L][best] > 0 ? fit->try_bw[L][best] : (fit->cap[L] > 0 ? fit->cap[L] : 1.0);
        fit->rule[L] = rule[L];
        fit->bw[L] = bw[L];
    }
    double sum = 0;
    int cnt = 0;
    for (int k = 0; k < BK_NKERNELS; k++)
        for (int L = 0; L < n; L++) fit->final[k][L] = fit_predict(r, rule, bw, (bench_kernel)k, L);
    for (int f = 0; f < NFIT; f++)
        for (int L = 1; L < n; L++) {
            double meas = bench_best_cy(r, fit_kernels[f], L, NULL), p = fit->final[fit_kernels[f]][L];
            if (meas > 0 && p > 0) sum += fabs(log(p / meas)), cnt++;
        }
    fit->total_err = cnt ? sum / cnt : INFINITY;
}

void bench_fit_level_bw(const bench_results *r, const bench_fit *fit, const spmv_overlap *rule, const double *bw,
                        int L, double try_bw[3])
{
    spmv_overlap ru[BENCH_MAX_LEVELS];
    double b[BENCH_MAX_LEVELS];
    for (int i = 0; i < BENCH_MAX_LEVELS; i++) ru[i] = SPMV_OVERLAP_A64FX, b[i] = 0;
    for (int i = 0; i < L && i < r->nlevels; i++) ru[i] = rule[i], b[i] = bw[i];
    for (int q = 0; q < 3; q++) {
        ru[L] = (spmv_overlap)q;
        try_bw[q] = L > 0 && L < r->nlevels ? level_bw(r, fit, ru, b, L, 1, NULL) : 0;
    }
}

void bench_overlap_fit(const bench_results *r, int forced, bench_fit *fit)
{
    if (forced >= 0) {
        overlap_fit(r, forced, -1, fit);
        return;
    }
    /* L1: stores overlap with the transfers (a64fx-partial, the usual convention) or the L1 part overlaps with
     * everything (full): the one whose whole fit explains the kernels better (a tie keeps a64fx-partial) */
    static bench_fit other;
    overlap_fit(r, -1, SPMV_OVERLAP_A64FX, fit);
    overlap_fit(r, -1, SPMV_OVERLAP_FULL, &other);
    if (other.total_err < fit->total_err - 1e-12) {
        other.err[0][SPMV_OVERLAP_A64FX] = fit->err[0][SPMV_OVERLAP_A64FX];
        memcpy(other.pred[0][SPMV_OVERLAP_A64FX], fit->pred[0][SPMV_OVERLAP_A64FX], sizeof other.pred[0][0]);
        *fit = other;
    } else {
        fit->err[0][SPMV_OVERLAP_FULL] = other.err[0][SPMV_OVERLAP_FULL];
        memcpy(fit->pred[0][SPMV_OVERLAP_FULL], other.pred[0][SPMV_OVERLAP_FULL], sizeof fit->pred[0][0]);
    }
}

void bench_fill_machine(const bench_results *r, const bench_fit *fit, const char *name, spmv_machine *m)
{
    memset(m, 0, sizeof *m);
    const bench_topo *t = &r->topo;
    char nm[512];
    if (name && *name) snprintf(nm, sizeof nm, "%s", name);
    else
        snprintf(nm, sizeof nm, "%s%s%s%s, %d cores%s, measured (%s)", t->cpu_name, t->uarch[0] ? " (" : "", t->uarch,
                 t->uarch[0] ? ")" : "", t->cores, t->virtualized ? ", virtual machine" : "",
                 r->isa ? r->isa->name : "?");
    for (char *c = nm; *c; c++) /* one line, no comment sign */
        if (*c == '\n' || *c == '\r' || *c == '#') *c = ' ';
    size_t len = strlen(nm) < sizeof m->name - 1 ? strlen(nm) : sizeof m->name - 1;
    memcpy(m->name, nm, len);
    m->name[len] = '\0';
    m->clock_ghz = r->clock_ghz > 0 ? r->clock_ghz : 1.0;
    m->sockets = t->sockets;
    m->cores_per_socket = t->cores_per_socket;
    m->cores_per_numa = t->cores_per_numa;
    m->cacheline = t->cacheline;
    m->simd_width = r->width > 0 ? r->width : 1;
    m->fma_latency = r->incore[BI_FMA_LAT];
    m->fma_rthroughput = r->incore[BI_FMA_TP];
    m->add_latency = r->incore[BI_ADD_LAT];
    m->add_rthroughput = r->incore[BI_ADD_TP];
    m->mul_latency = r->incore[BI_MUL_LAT];
    m->mul_rthroughput = r->incore[BI_MUL_TP];
    m->load_rthroughput = bench_best_cy(r, BK_LOAD, 0, NULL);
    m->store_rthroughput = bench_best_cy(r, BK_INIT, 0, NULL);
    m->gather_rthroughput = r->incore[BI_GATHER_TP];
    double pen = r->incore[BI_GATHERLD_TP] - r->incore[BI_GATHER_TP];
    m->gather_index_penalty = r->incore[BI_GATHERLD_TP] > 0 && pen > 0 ? pen : 0;
    m->hadd_latency = r->incore[BI_HADD_LAT];
    m->hadd_rthroughput = r->incore[BI_HADD_TP];
    m->scalar_load_rthroughput = r->incore[BI_SLOAD_TP];
    m->masked_load_rthroughput = r->incore[BI_MASKLD_TP];
    m->emul_gather_rthroughput = r->incore[BI_EMUL_TP];
    m->vidx_rthroughput = r->incore[BI_VIDX_TP];
    for (int j = 0; j < 4; j++) m->gather_lines_rthroughput[j] = r->incore[BI_GATHER_1L + j];
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < SPMV_XRAND_POINTS; j++) m->xrand_ns[k][j] = r->xrand_raw_ns[k][j + 1];
    m->parallel_overhead = r->fork_join_s > 0 ? r->fork_join_s * m->clock_ghz * 1e9 : 0;
    m->bw_load = bw_sat(r, BW_LOAD);
    m->bw_copy = bw_sat(r, BW_COPY);
    m->bw_triad = bw_sat(r, BW_TRIAD);
    m->bw_load_best = bw_sat_best(r, BW_LOAD);
    m->bw_copy_best = bw_sat_best(r, BW_COPY);
    m->bw_triad_best = bw_sat_best(r, BW_TRIAD);
    int pts = r->nthreads < m->cores_per_numa ? r->nthreads : m->cores_per_numa;
    if (pts > SPMV_MACHINE_MAX_CORES) pts = SPMV_MACHINE_MAX_CORES;
    m->bw_points = pts;
    m->bw_bytes = r->bw_bytes;
    for (int i = 0; i < pts; i++) {
        m->bw_load_n[i] = r->bw[BW_LOAD][i];
        m->bw_copy_n[i] = r->bw[BW_COPY][i];
        m->bw_triad_n[i] = r->bw[BW_TRIAD][i];
    }
    int nc = t->ncaches < 3 ? t->ncaches : 3;
    if (nc > r->nlevels - 1) nc = r->nlevels - 1;
    m->nlevels = nc + 1;
    for (int i = 0; i < nc; i++) {
        spmv_machine_level *l = &m->level[i];
        snprintf(l->name, sizeof l->name, "%s", t->cache[i].name);
        l->size = t->cache[i].size;
        l->ways = t->cache[i].ways > 0 ? t->cache[i].ways : 0;
        l->cores_per_group = t->cache[i].shared_cores < m->cores_per_socket ? t->cache[i].shared_cores
                                                                            : m->cores_per_socket;
        if (l->cores_per_group < 1) l->cores_per_group = 1;
        l->upstream_bw = fit->bw[i] > 0 ? fit->bw[i] : 8.0 * m->simd_width; /* unmeasured: a placeholder */
        if (i == 0) {
            double st = bench_best_cy(r, BK_INIT, 0, NULL);
            l->upstream_write_bw = st > 0 ? 8.0 * r->width / st : 0;
        }
        l->overlap = fit->rule[i];
        if (r->eff_bytes[i] > 0 && r->eff_bytes[i] < l->size && r->eff_bytes[i] >= m->cacheline)
            l->effective_size = r->eff_bytes[i];
        const int64_t eff = l->effective_size > 0 ? l->effective_size : l->size;
        if (r->eff_lat_bytes[i] >= m->cacheline && r->eff_lat_bytes[i] < eff) l->random_size = r->eff_lat_bytes[i];
    }
    spmv_machine_level *mem = &m->level[nc];
    snprintf(mem->name, sizeof mem->name, "MEM");
    mem->cores_per_group = m->cores_per_numa;
    mem->upstream_bw = fit->bw[r->nlevels - 1] > 0 ? fit->bw[r->nlevels - 1] : 1.0;
    mem->overlap = fit->rule[r->nlevels - 1];
}
