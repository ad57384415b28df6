/* spmv-machine's microbenchmarks (src/bench/): functional checks only, no timing assertions (the machines that
 * run the tests are shared and noisy). The pointer chase is one cycle over all lines; every kernel set this CPU
 * runs computes what its formula says for every unroll factor; the in-core tests run; the overlap-hypothesis
 * test finds a rule that generated its data; a tiny run gives a machine file that spmv_machine_read accepts. */
#define _GNU_SOURCE
#include "bench.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------- pointer chase */

static void check_cycle(size_t lines, size_t stride, uint64_t seed)
{
    size_t bytes = lines * stride + stride / 2; /* a partial line at the end is not a node */
    char *buf = bench_alloc(bytes);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    int64_t n = bench_chase_init(buf, bytes, stride, seed);
    CU_ASSERT_EQUAL(n, (int64_t)lines);
    unsigned char *seen = calloc(lines, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
    void *p = buf;
    int ok = 1;
    for (size_t s = 0; s < lines && ok; s++) {
        size_t off = (size_t)((char *)p - buf);
        ok = off % stride == 0 && off / stride < lines && !seen[off / stride];
        if (ok) seen[off / stride] = 1;
        p = *(void **)p;
    }
    CU_ASSERT(ok);               /* every node once, each on its own line */
    CU_ASSERT_PTR_EQUAL(p, buf); /* and back at the start after exactly `lines` steps: one cycle */
    CU_ASSERT_PTR_EQUAL(bench_chase_run(buf, (int64_t)lines), buf);
    free(seen);
    bench_free(buf);
}

static void test_chase_one_cycle(void)
{
    check_cycle(1, 64, 1);
    check_cycle(2, 64, 2);
    check_cycle(3, 64, 3);
    check_cycle(1000, 64, 4);
    check_cycle(4097, 64, 5);
    check_cycle(513, 256, 6); /* A64FX lines */
    check_cycle(100000, 64, 7);
}

static void test_chase_random(void)
{
    /* a random permutation, not the identity shift: successors differ from i+1 for most lines, and two seeds
     * give different cycles */
    enum { N = 4096 };
    char *a = bench_alloc(N * 64), *b = bench_alloc(N * 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    bench_chase_init(a, N * 64, 64, 11);
    bench_chase_init(b, N * 64, 64, 12);
    int next = 0, same = 0;
    for (int i = 0; i < N; i++) {
        size_t sa = (size_t)(*(char **)(a + i * 64) - a) / 64, sb = (size_t)(*(char **)(b + i * 64) - b) / 64;
        next += sa == (size_t)(i + 1) % N;
        same += sa == sb;
    }
    CU_ASSERT(next < N / 100);
    CU_ASSERT(same < N / 100);
    bench_free(a);
    bench_free(b);
}

static void test_chase_bad_args(void)
{
    char buf[256];
    CU_ASSERT_EQUAL(bench_chase_init(NULL, 4096, 64, 1), 0);
    CU_ASSERT_EQUAL(bench_chase_init(buf, 32, 64, 1), 0);  /* not one whole line */
    CU_ASSERT_EQUAL(bench_chase_init(buf, 256, 4, 1), 0);  /* a node must hold a pointer */
    CU_ASSERT_EQUAL(bench_chase_init(buf, 256, 12, 1), 0); /* and stay aligned */
}

/* ------------------------------------------------------------------------------------------- kernel sets */

static void test_isa_registry(void)
{
    const bench_isa *best = bench_isa_best();
    CU_ASSERT_PTR_NOT_NULL_FATAL(best);
    CU_ASSERT(bench_isa_usable(best));
    const bench_isa *scalar = bench_isa_find("scalar");
    CU_ASSERT_PTR_NOT_NULL_FATAL(scalar);
    CU_ASSERT(bench_isa_usable(scalar));
    CU_ASSERT_EQUAL(scalar->width(), 1);
    CU_ASSERT_PTR_NULL(bench_isa_find("mmx"));
    CU_ASSERT_PTR_NULL(bench_isa_find(NULL));
    CU_ASSERT_FALSE(bench_isa_usable(NULL));
    /* bench_isa_usable answers 0 or 1 (not a CPUID bit such as 32768) */
    for (const bench_isa *const *i = bench_isa_all(); *i; i++) {
        int u = bench_isa_usable(*i);
        CU_ASSERT_TRUE(u == 0 || u == 1);
    }
    /* the best is the first usable one in the (widest first) list */
    for (const bench_isa *const *i = bench_isa_all(); *i; i++)
        if (bench_isa_usable(*i)) {
            CU_ASSERT_PTR_EQUAL(*i, best);
            break;
        }
#if defined(__x86_64__)
    const bench_isa *avx2 = bench_isa_find("avx2");
    if (avx2) CU_ASSERT_EQUAL(bench_isa_usable(avx2), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
    const bench_isa *avx512 = bench_isa_find("avx512");
    if (avx512) CU_ASSERT_EQUAL(bench_isa_usable(avx512), !!__builtin_cpu_supports("avx512f"));
#endif
}

/* every kernel of one set, every unroll factor, against its formula (all values small integers: exact) */
static void check_kernels(const bench_isa *isa)
{
    const int64_t W = isa->width(), n = 16 * W * 3;
    double *a = bench_alloc((size_t)n * 8), *b = bench_alloc((size_t)n * 8), *c = bench_alloc((size_t)n * 8),
           *d = bench_alloc((size_t)n * 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    for (int u = 0; u < BENCH_NUNROLL; u++) {
        bench_stream_args A = {.n = n, .a = a, .b = b, .c = c, .d = d, .s = 0.5};
        int bad = 0;
        for (int64_t i = 0; i < n; i++) a[i] = 0, b[i] = (double)i, c[i] = 2.0 * (double)i, d[i] = 3.0;
        isa->stream[BK_COPY][u](&A, 2);
        for (int64_t i = 0; i < n; i++) bad += a[i] != b[i];
        for (int64_t i = 0; i < n; i++) a[i] = 1;
        isa->stream[BK_DAXPY][u](&A, 2); /* a += 0.5*b, twice */
        for (int64_t i = 0; i < n; i++) bad += a[i] != 1.0 + (double)i;
        for (int64_t i = 0; i < n; i++) a[i] = 1;
        bad += isa->stream[BK_DOT][u](&A, 3) != 3.0 * (double)(n * (n - 1) / 2);
        isa->stream[BK_INIT][u](&A, 1);
        for (int64_t i = 0; i < n; i++) bad += a[i] != 0.5;
        bad += isa->stream[BK_LOAD][u](&A, 2) != 0.5; /* returns a[0] */
        isa->stream[BK_TRIAD][u](&A, 1);
        for (int64_t i = 0; i < n; i++) bad += a[i] != b[i] + 0.5 * c[i];
        bad += isa->stream[BK_SUM][u](&(bench_stream_args){.n = n, .a = b}, 2) != 2.0 * (double)(n * (n - 1) / 2);
        isa->stream[BK_SCHOENAUER][u](&A, 1);
        for (int64_t i = 0; i < n; i++) bad += a[i] != b[i] + c[i] * d[i];
        if (bad) fprintf(stderr, "%s u=%d: %d wrong values in the streaming kernels\n", isa->name, bench_unrolls[u], bad);
        CU_ASSERT_EQUAL(bad, 0);

        /* STENCIL on nj = 5 rows of ni = m + 2W: interior rows 1..3, columns W..W+m-1; a = its index, so the
         * four neighbours sum to 4 * index and b = 0.25 * that = index; everything else untouched */
        const int64_t m = 16 * W, ni = m + 2 * W, nj = 5;
        double *sa = bench_alloc((size_t)(ni * nj) * 8), *sb = bench_alloc((size_t)(ni * nj) * 8);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
        for (int64_t e = 0; e < ni * nj; e++) sa[e] = (double)e, sb[e] = -1;
        bench_stream_args S = {.n = ni * nj, .m = m, .ni = ni, .nj = nj, .a = sa, .b = sb, .s = 0.25};
        isa->stream[BK_STENCIL][u](&S, 2);
        int sbad = 0;
        for (int64_t j = 0; j < nj; j++)
            for (int64_t i = 0; i < ni; i++) {
                int inner = j >= 1 && j < nj - 1 && i >= W && i < W + m;
                sbad += sb[j * ni + i] != (inner ? (double)(j * ni + i) : -1.0);
            }
        if (sbad) fprintf(stderr, "%s u=%d: %d wrong values in STENCIL\n", isa->name, bench_unrolls[u], sbad);
        CU_ASSERT_EQUAL(sbad, 0);
        bench_free(sa);
        bench_free(sb);
    }
    bench_free(a);
    bench_free(b);
    bench_free(c);
    bench_free(d);
}

static void test_stream_kernels(void)
{
    int n = 0;
    for (const bench_isa *const *i = bench_isa_all(); *i; i++)
        if (bench_isa_usable(*i)) {
            check_kernels(*i);
            n++;
        }
    CU_ASSERT(n >= 1);
}

static void test_incore_kernels(void)
{
    for (const bench_isa *const *i = bench_isa_all(); *i; i++) {
        if (!bench_isa_usable(*i)) continue;
        bench_incore_data D;
        CU_ASSERT_EQUAL_FATAL(bench_incore_data_init(&D, (*i)->width(), 3), 0);
        /* the tables' indices stay inside their arrays (a wrong one would read out of bounds) */
        int bad = 0;
        for (int64_t k = 0; k < D.nidx; k++) bad += D.idx[k] < 0 || D.idx[k] >= D.nx || D.idx2[k] < 0 || D.idx2[k] >= D.nt;
        for (int64_t k = 0; k < D.nt; k++) {
            int64_t g, x;
            memcpy(&g, &D.gtab[k], 8);
            memcpy(&x, &D.xg[k], 8);
            bad += g < 0 || g >= D.nt || x < 0 || x + (*i)->width() > D.nidx || x % (*i)->width();
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT_EQUAL(D.nidx % (8 * (*i)->width()), 0);
        /* idxl[j]: every vector of W indices in exactly min(2^j, W) distinct 64-byte lines */
        const int W = (*i)->width();
        int lbad = 0;
        for (int j = 0; j < 4; j++)
            for (int64_t v = 0; v < D.nidx; v += W) {
                int64_t ln[64];
                int d = 0;
                for (int l = 0; l < W; l++) {
                    int32_t c = D.idxl[j][v + l];
                    lbad += c < 0 || c >= D.nx;
                    int e = 0;
                    while (e < d && ln[e] != c / 8) e++;
                    if (e == d) ln[d++] = c / 8;
                }
                lbad += d != ((1 << j) < W ? (1 << j) : W);
            }
        CU_ASSERT_EQUAL(lbad, 0);
        int vbad = 0; /* value indices into the 16-entry table x[0..15], some of each */
        int seen[16] = {0};
        for (int64_t v = 0; v < D.nidx + 64; v++) vbad += D.vidx[v] >= 16, seen[D.vidx[v] & 15] = 1;
        for (int v = 0; v < 16; v++) vbad += !seen[v];
        CU_ASSERT_EQUAL(vbad, 0);
        for (int t = 0; t < BI_N; t++) {
            if (!(*i)->incore[t]) { /* no horizontal add in scalar code; emulation and masked loads are x86's */
                CU_ASSERT(((t == BI_HADD_LAT || t == BI_HADD_TP) && !(*i)->has_hadd) || t == BI_EMUL_TP ||
                          t == BI_MASKLD_TP || t == BI_VIDX_TP || t == BI_XEMUL_TP);
                continue;
            }
            int64_t ops = (*i)->incore[t](5, &D);
            CU_ASSERT(ops > 0 && ops % 5 == 0);
        }
        bench_incore_data_free(&D);
    }
}

/* ------------------------------------------------------------------------------------------- derivations */

/* Results whose times are what the ECM combination documented in spmv.h predicts (written out here, independently
 * of src/model/ecm.c) for per-level rules and upstream bandwidths: level i contributes reads rd and writes wr
 * (cycles; level 0: the core's loads and stores); an edge level (L1 or MEM) with "none" adds both to the serial
 * part, with "a64fx-partial" its reads (its writes overlap); a middle level with either adds both to the cache
 * part, which overlaps with the writes; "full" parts count alone. T = max(full parts, serial + max(cache, writes)). */
static void synthetic(bench_results *r, const spmv_overlap rule[4], const double bw[4])
{
    memset(r, 0, sizeof *r);
    r->width = 8;
    r->clock_ghz = 2.0;
    r->nlevels = 4;
    const char *names[4] = {"L1", "L2", "L3", "MEM"};
    for (int L = 0; L < 4; L++) snprintf(r->level_name[L], sizeof r->level_name[L], "%s", names[L]);
    const double ld = 0.5, st = 1.0; /* B/cy */
    r->nthreads = 1;
    r->bw[BW_TRIAD][0] = r->bw[BW_LOAD][0] = r->bw[BW_COPY][0] = 16 * 2.0; /* GB/s = 16 B/cy at 2 GHz */
    for (int k = 0; k < BK_NKERNELS; k++) {
        const bench_kernel_info *ki = &bench_kernel_infos[k];
        for (int L = 0; L < 4; L++) {
            double serial = 0, cache = 0, writes = 0, full = 0;
            for (int i = 0; i <= L; i++) {
                double rd = i ? (ki->rd + ki->wa) * 8 / bw[i] : ki->loads * ld;
                double wr = i ? ki->wr * 8 / bw[i] : ki->stores * st;
                int edge = i == 0 || i == 3;
                if (rule[i] == SPMV_OVERLAP_FULL) full = fmax(full, rd + wr);
                else if (!edge) cache += rd + wr;
                else if (rule[i] == SPMV_OVERLAP_NONE) serial += rd + wr;
                else serial += rd, writes = fmax(writes, wr);
            }
            r->stream_cy[k][L][0] = fmax(full, serial + fmax(cache, writes));
        }
    }
}

static void test_overlap_fit(void)
{
    /* L1: stores overlap; L2, L3 overlap fully at 64 and 32 B/cy; memory partially (writes overlap) at 8 B/cy */
    const spmv_overlap gen[4] = {SPMV_OVERLAP_A64FX, SPMV_OVERLAP_FULL, SPMV_OVERLAP_FULL, SPMV_OVERLAP_A64FX};
    const double bw[4] = {0, 64, 32, 8};
    bench_results *r = malloc(sizeof *r);
    bench_fit *fit = malloc(sizeof *fit);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fit);
    synthetic(r, gen, bw);
    bench_overlap_fit(r, -1, fit);
    for (int L = 0; L < 4; L++) CU_ASSERT_EQUAL(fit->rule[L], gen[L]);
    for (int L = 1; L < 4; L++) CU_ASSERT_DOUBLE_EQUAL(fit->bw[L], bw[L], 1e-6 * bw[L]);
    CU_ASSERT(fit->total_err < 1e-6);
    /* "none" at L2 would need 64 B / (1.0 - 0.5) cy = 128 B/cy while no kernel reads more than 64 B/cy from L2:
     * rejected, scored at 64 B/cy (and worse than full); the same at L3 */
    CU_ASSERT_DOUBLE_EQUAL(fit->cap[1], 64, 1e-9);
    CU_ASSERT(fit->clamped[1][SPMV_OVERLAP_NONE] && fit->clamped[1][SPMV_OVERLAP_A64FX] && !fit->clamped[1][SPMV_OVERLAP_FULL]);
    CU_ASSERT_DOUBLE_EQUAL(fit->try_bw[1][SPMV_OVERLAP_NONE], 64, 1e-9);
    CU_ASSERT(fit->err[1][SPMV_OVERLAP_NONE] > 0.05);
    CU_ASSERT(fit->clamped[2][SPMV_OVERLAP_NONE]);
    /* memory: "none" reads the same bandwidth off LOAD but mispredicts the kernels that write */
    CU_ASSERT(isfinite(fit->err[3][SPMV_OVERLAP_NONE]) && fit->err[3][SPMV_OVERLAP_NONE] > 0.01);
    for (int k = 0; k < BK_NKERNELS; k++)
        if (k != BK_STENCIL)
            for (int L = 0; L < 4; L++) CU_ASSERT_DOUBLE_EQUAL(fit->final[k][L], r->stream_cy[k][L][0], 1e-6);
    /* forced: every level gets the rule, bandwidths calibrated, nothing rejected */
    bench_overlap_fit(r, SPMV_OVERLAP_NONE, fit);
    for (int L = 0; L < 4; L++) CU_ASSERT_EQUAL(fit->rule[L], SPMV_OVERLAP_NONE);
    CU_ASSERT_DOUBLE_EQUAL(fit->bw[1], 128, 1e-6);
    spmv_overlap all_full[4] = {SPMV_OVERLAP_FULL, SPMV_OVERLAP_FULL, SPMV_OVERLAP_FULL, SPMV_OVERLAP_FULL};
    synthetic(r, all_full, bw);
    bench_overlap_fit(r, -1, fit);
    /* (with every other level overlapping fully, L1's two rules predict the same: the tie keeps a64fx-partial) */
    CU_ASSERT_EQUAL(fit->rule[0], SPMV_OVERLAP_A64FX);
    for (int L = 1; L < 4; L++) CU_ASSERT_EQUAL(fit->rule[L], SPMV_OVERLAP_FULL);
    CU_ASSERT(fit->total_err < 1e-6);
    free(r);
    free(fit);
}

/* the effective last-level cache from a bandwidth sweep: a 32 MiB cache at 100 GB/s in front of 40 GB/s memory,
 * placed as the model places data (min(C, ws)/ws from the cache) */
static void test_effective_size(void)
{
    bench_results *r = calloc(1, sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    r->topo.ncaches = 3;
    const int64_t sizes[3] = {48 << 10, 1 << 20, (int64_t)508 << 20};
    for (int i = 0; i < 3; i++) r->topo.cache[i].size = sizes[i];
    const double C = 32.0 * 1048576, bc = 100, bm = 40;
    for (int i = 0; i < 16; i++) {
        double ws = 2.0 * 1048576 * pow(sqrt(2.0), i), f = ws <= C ? 1.0 : C / ws;
        r->sweep_bytes[i] = (int64_t)ws / 4096 * 4096;
        r->sweep_gbs[i] = 1.0 / (f / bc + (1 - f) / bm);
    }
    r->nsweep = 16; /* up to 362 MiB */
    bench_effective_sizes(r);
    CU_ASSERT_EQUAL(r->eff_bytes[0], sizes[0]);
    CU_ASSERT_EQUAL(r->eff_bytes[1], sizes[1]);
    CU_ASSERT_EQUAL(r->eff_bytes[2], (int64_t)32 << 20);
    /* a sweep that does not reach 4x beyond the cache keeps the hardware's size */
    r->nsweep = 8; /* up to 22.6 MiB */
    bench_effective_sizes(r);
    CU_ASSERT_EQUAL(r->eff_bytes[2], sizes[2]);

    /* random-access capacity from the pointer chase (4 KiB .. 256 MiB, doubling): an L3 whose latency is well below
     * memory's keeps the sizes within 1.5x of its own; one whose latency is memory's (the Intel Xeon VM: 159 ns from
     * 4 MiB on, 186 ns in memory) gets the largest size below half the memory latency */
    r->nlevels = 4;
    r->nlat = 17;
    const int64_t lb[4] = {24 << 10, 192 << 10, 8 << 20, 256 << 20};
    for (int L = 0; L < 4; L++) r->level_bytes[L] = lb[L];
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 17; i++) {
            const int64_t b = (int64_t)4096 << i; /* 4 KiB .. 256 MiB */
            r->lat_bytes[i] = b;
            r->lat_ns[i] = b <= (32 << 10) ? 2.1 : b <= (1 << 20) ? 6.7 : b <= (2 << 20) ? 25.5
                         : pass == 0 ? (b <= (16 << 20) ? 40.0 : 90.0) : (b <= (128 << 20) ? 160.0 : 186.0);
        }
        r->level_lat_ns[0] = 2.1, r->level_lat_ns[1] = 6.7;
        r->level_lat_ns[2] = pass == 0 ? 40.0 : 160.0, r->level_lat_ns[3] = pass == 0 ? 90.0 : 186.0;
        bench_effective_sizes(r);
        CU_ASSERT_EQUAL(r->eff_lat_bytes[0], 32 << 10);
        CU_ASSERT_EQUAL(r->eff_lat_bytes[1], 1 << 20);
        CU_ASSERT_EQUAL(r->eff_lat_bytes[2], pass == 0 ? 16 << 20 : 2 << 20);
    }
    free(r);
}

static void test_machine_path(void)
{
    bench_topo t;
    memset(&t, 0, sizeof t);
    snprintf(t.hostname, sizeof t.hostname, "node 7/a");
    char buf[4096], *xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    setenv("XDG_DATA_HOME", "/x/data", 1);
    CU_ASSERT(bench_machine_path(&t, buf, sizeof buf));
    CU_ASSERT_STRING_EQUAL(buf, "/x/data/spmv/machines/node-7-a.machine");
    unsetenv("XDG_DATA_HOME");
    if (getenv("HOME")) {
        CU_ASSERT(bench_machine_path(&t, buf, sizeof buf));
        CU_ASSERT(strstr(buf, "/.local/share/spmv/machines/node-7-a.machine") != NULL);
    }
    CU_ASSERT_FALSE(bench_machine_path(&t, buf, 8)); /* too small */
    if (xdg) setenv("XDG_DATA_HOME", xdg, 1);
    free(xdg);
}

static void test_topology(void)
{
    bench_topo t;
    bench_topo_detect(&t);
    CU_ASSERT(t.ncpus >= 1);
    CU_ASSERT(t.cores >= 1 && t.cores <= t.ncpus);
    CU_ASSERT(t.ncore_cpus >= 1);
    CU_ASSERT(t.cores_per_socket % t.cores_per_numa == 0);
    CU_ASSERT(t.ncaches >= 1);
    CU_ASSERT_EQUAL(t.cache[0].level, 1);
    CU_ASSERT(t.cacheline >= 16 && (t.cacheline & (t.cacheline - 1)) == 0);
    for (int i = 1; i < t.ncaches; i++) CU_ASSERT(t.cache[i].level > t.cache[i - 1].level);
}

/* the options of a tiny run: a few seconds, the numbers mean nothing */
static bench_opts tiny_opts(int passes)
{
    bench_opts o;
    memset(&o, 0, sizeof o);
    o.quick = 1;
    o.window = 2e-5;
    o.windows = 2;
    o.passes = passes;
    o.mem_bytes = 8 << 20;
    o.max_threads = 2;
    return o;
}

/* a tiny run gives a machine file the reader accepts */
static void test_quick_run_file(void)
{
    bench_opts o = tiny_opts(1);
    bench_results *r = malloc(sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(bench_run(&o, r, NULL), 0);
    CU_ASSERT(r->clock_ghz > 0);
    CU_ASSERT(r->nthreads >= 1);
    CU_ASSERT(r->nlat >= 2);
    CU_ASSERT(r->incore[BI_FMA_LAT] > 0);
    for (int L = 0; L < r->nlevels; L++) CU_ASSERT(bench_best_cy(r, BK_TRIAD, L, NULL) > 0);
    bench_fit *fit = malloc(sizeof *fit);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fit);
    bench_overlap_fit(r, -1, fit);
    spmv_machine m;
    bench_fill_machine(r, fit, NULL, &m);
    CU_ASSERT_EQUAL(spmv_machine_check(&m), SPMV_OK);
    CU_ASSERT_EQUAL(m.simd_width, r->width);
    CU_ASSERT_EQUAL(m.vidx_rthroughput, r->incore[BI_VIDX_TP]);
    if (r->width >= 2) CU_ASSERT(m.vidx_rthroughput > 0); /* measured wherever there are vectors */
    CU_ASSERT_EQUAL(m.nlevels, (r->topo.ncaches < 3 ? r->topo.ncaches : 3) + 1);
    CU_ASSERT_STRING_EQUAL(m.level[m.nlevels - 1].name, "MEM");
    CU_ASSERT(m.bw_points >= 1);
    CU_ASSERT(m.bw_load > 0 && m.bw_load_best >= m.bw_load); /* the median and its fastest pass */
    CU_ASSERT(m.bw_triad > 0 && m.bw_triad_best >= m.bw_triad);

    char path[] = "/tmp/spmv_test_machine_XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_EQUAL(spmv_machine_write(&m, path), SPMV_OK);
    spmv_machine back;
    spmv_status st = spmv_machine_read(path, &back);
    if (st) fprintf(stderr, "%s\n", spmv_last_error());
    CU_ASSERT_EQUAL(st, SPMV_OK);
    CU_ASSERT_EQUAL(memcmp(&back, &m, sizeof m), 0); /* the writer's promise: read back bit for bit */
    unlink(path);

    /* the SpMV check on this machine, with small caches so that its matrices are small (L2 256 KiB, L3 1 MiB
     * effective: HPCG 7^3, 11^3, 28^3): what it measures is timing, so only its structure is checked */
    if (m.nlevels == 4) {
        m.level[1].effective_size = m.level[1].size < (256 << 10) ? m.level[1].size : 256 << 10;
        m.level[2].effective_size = m.level[2].size < (1 << 20) ? m.level[2].size : 1 << 20;
        const spmv_machine before = m;
        bench_check *c = malloc(sizeof *c);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_EQUAL(bench_spmv_check(r, fit, &m, c, 1, NULL), 0);
        CU_ASSERT_EQUAL(c->done, 1);
        for (int L = 1; L < 4; L++) CU_ASSERT_EQUAL(c->n[L], bench_check_hpcg_n(&before, L));
        if (m.level[1].effective_size == 256 << 10 && m.level[2].effective_size == 1 << 20) {
            CU_ASSERT_EQUAL(c->n[1], 7);
            CU_ASSERT_EQUAL(c->n[2], 11);
            CU_ASSERT_EQUAL(c->n[3], 28);
        }
        for (int L = 1; L < 4; L++) {
            CU_ASSERT_EQUAL(c->stream_rule[L], (int)before.level[L].overlap);
            CU_ASSERT_EQUAL((int)m.level[L].overlap, c->rule[L]);
            CU_ASSERT_EQUAL(c->rule[L], bench_check_choose(c->err[L], c->stream_rule[L]));
            CU_ASSERT_EQUAL(c->tries[L], 1); /* max_tries 1: measured once however badly the rules fit */
            CU_ASSERT(c->bw[L][c->rule[L]] > 0);
            CU_ASSERT_EQUAL(m.level[L].upstream_bw, c->bw[L][c->rule[L]]);
            for (int q = 0; q < 3; q++) { /* memory's fitted on the kernels: a quarter of the stream's up to it */
                if (L < 3) {
                    CU_ASSERT_EQUAL(c->bw[L][q], c->stream_bw[L][q]);
                } else {
                    CU_ASSERT(c->bw[L][q] <= c->stream_bw[L][q] && c->bw[L][q] >= 0.25 * c->stream_bw[L][q] * (1 - 1e-12));
                }
            }
            if (L == 1) /* nothing chosen below L2 differs from the streams': the streams' bandwidths */
                for (int q = 0; q < 3; q++) CU_ASSERT_DOUBLE_EQUAL(c->bw[1][q], fit->try_bw[1][q], 1e-9 * fit->try_bw[1][q]);
            for (int k = 0; k < BENCH_CHECK_KERNELS; k++) {
                CU_ASSERT(c->meas[L][k] > 0);
                CU_ASSERT(c->kernel[L][k][0] != '\0');
                for (int q = 0; q < 3; q++) CU_ASSERT(c->bw[L][q] > 0 ? c->pred[L][q][k] > 0 : c->pred[L][q][k] == 0);
            }
            for (int q = 0; q < 3; q++) CU_ASSERT(c->bw[L][q] > 0 ? isfinite(c->err[L][q]) : !isfinite(c->err[L][q]));
        }
        /* non-temporal y stores: a 2D Laplacian of 8x the last cache at 30 B per row, SELL-32-1 with and without them;
         * the cost fitted and set where the family streams (the kernels' shapes say so), else nothing set */
        int nx = (int)ceil(sqrt(8.0 * (double)before.level[2].effective_size / BENCH_NT_ROW_BYTES));
        nx = nx > BENCH_NT_NX ? BENCH_NT_NX : nx < 64 ? 64 : nx;
        CU_ASSERT_EQUAL(c->nt_nx, nx);
        int streams[2] = {0, 0};
        {
            spmv_crs *A = NULL;
            CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(16, 16, &A), SPMV_OK);
            for (int k = 0; k < 2; k++) {
                spmv_sell *S = NULL;
                spmv_sell_opts so = spmv_sell_opts_default();
                so.C = 32, so.nt_stores = k, so.nthreads = 1;
                spmv_kernel_shape ks = {0};
                CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &so, &S), SPMV_OK);
                CU_ASSERT_EQUAL(spmv_sell_kernel_shape(S, &ks), SPMV_OK);
                streams[k] = ks.nt;
                spmv_sell_free(S);
            }
            spmv_crs_free(A);
        }
        CU_ASSERT_EQUAL(c->nt_available, streams[1] && !streams[0]);
        CU_ASSERT(c->nt_kernel[1][0] != '\0');
        if (c->nt_available) {
            CU_ASSERT(c->nt_kernel[0][0] != '\0' && strcmp(c->nt_kernel[0], c->nt_kernel[1]) != 0);
            CU_ASSERT(c->nt_meas[0] > 0 && c->nt_meas[1] > 0);
            CU_ASSERT(c->nt_cost >= BENCH_NT_COST_MIN && c->nt_cost <= BENCH_NT_COST_MAX);
            CU_ASSERT_EQUAL(m.nt_store_cost, c->nt_cost);
            CU_ASSERT(c->nt_pred[0] > 0 && c->nt_pred[1] > 0 && c->nt_pred1 > 0);
            /* the fitted cost brings the model's ratio of the two at least as close to the measured one as the declared
             * bytes (cost 1) do, and moves the streaming kernel's prediction the cost's way */
            const double rm = c->nt_meas[1] / c->nt_meas[0];
            CU_ASSERT(fabs(log(c->nt_pred[1] / c->nt_pred[0] / rm)) <= fabs(log(c->nt_pred1 / c->nt_pred[0] / rm)) + 1e-12);
            CU_ASSERT(c->nt_cost > 1 ? c->nt_pred[1] <= c->nt_pred1 : c->nt_pred[1] >= c->nt_pred1);
            if (c->nt_cost == 1) CU_ASSERT_EQUAL(c->nt_pred[1], c->nt_pred1);
        } else {
            CU_ASSERT_EQUAL(c->nt_cost, 0);
            CU_ASSERT_EQUAL(c->nt_meas[0], 0);
            CU_ASSERT_EQUAL(m.nt_store_cost, before.nt_store_cost);
        }
        CU_ASSERT_EQUAL(spmv_machine_check(&m), SPMV_OK);
        /* bad arguments leave the machine as it is */
        spmv_machine keep = m;
        CU_ASSERT_EQUAL(bench_spmv_check(NULL, fit, &m, c, 1, NULL), -1);
        CU_ASSERT_EQUAL(bench_spmv_check(r, fit, &m, NULL, 1, NULL), -1);
        CU_ASSERT_EQUAL(memcmp(&keep, &m, sizeof m), 0);
        m.level[2].effective_size = 64; /* L3 too small for HPCG 4^3: refused before anything runs */
        keep = m;
        CU_ASSERT_EQUAL(bench_spmv_check(r, fit, &m, c, 1, NULL), -1);
        CU_ASSERT_EQUAL(c->done, 0);
        CU_ASSERT_EQUAL(memcmp(&keep, &m, sizeof m), 0);
        free(c);
    } else {
        fprintf(stderr, "the SpMV check part skipped: %d levels (it needs L1, L2, L3 and memory)\n", m.nlevels);
    }
    free(fit);
    free(r);
}

/* bench_min_log: the least of a function in log x (the memory bandwidth fitted on the SpMV check's kernels) */
static double v_shape(double x, void *arg)
{
    const double *at = arg; /* |log(x / at[0])| + 0.5 |log(x / at[1])|: least at at[0] */
    return fabs(log(x / at[0])) + 0.5 * fabs(log(x / at[1]));
}
static double falling(double x, void *arg) { return (void)arg, 1.0 / x; }
static double flat(double x, void *arg) { return (void)arg, (void)x, 1.0; }
static double nan_above5(double x, void *arg) { return (void)arg, x > 5.0 ? NAN : fabs(log(x / 7.0)); }
static int calls;
static double counted(double x, void *arg) { return calls++, v_shape(x, arg); }

/* Memory-level figures are the median of the passes (bench_run.c, Method): the median itself, and the bandwidth
 * curve's figure between its slowest and fastest pass, each counted */
static void test_median_of_passes(void)
{
    CU_ASSERT_DOUBLE_EQUAL(bench_median((const double[]){3, 1, 2}, 3), 2.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(bench_median((const double[]){4, 1, 3, 2}, 4), 2.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(bench_median((const double[]){60, 26, 45, 52, 49}, 5), 49.0, 0); /* not the best, 60 */
    CU_ASSERT_DOUBLE_EQUAL(bench_median((const double[]){7}, 1), 7.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(bench_median(NULL, 0), 0.0, 0);
    bench_opts o = tiny_opts(3);
    o.parts = BENCH_PART_CLOCK | BENCH_PART_BW;
    bench_results *r = malloc(sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(bench_run(&o, r, NULL), 0);
    CU_ASSERT_FATAL(r->nthreads >= 1);
    for (int t = 0; t < r->nthreads; t++)
        for (int k = 0; k < BW_NKINDS; k++) {
            CU_ASSERT_EQUAL(r->bw_passes[k][t], 3);
            CU_ASSERT(r->bw_lo[k][t] > 0);
            CU_ASSERT(r->bw_lo[k][t] <= r->bw[k][t] && r->bw[k][t] <= r->bw_hi[k][t]);
            if (r->bw_lo[k][t] < r->bw_hi[k][t]) CU_ASSERT(r->bw[k][t] < r->bw_hi[k][t]); /* not the fastest */
        }
    free(r);
}

static void test_min_log(void)
{
    double at[2] = {3.7, 5.0};
    double x = bench_min_log(v_shape, at, 1.0, 10.0);
    CU_ASSERT(x > 3.7 / 1.001 && x < 3.7 * 1.001);
    at[0] = 9.99, at[1] = 2.0; /* between the last two grid points */
    x = bench_min_log(v_shape, at, 1.0, 10.0);
    CU_ASSERT(x > 9.99 / 1.001 && x <= 10.0);
    at[0] = 1.0; /* at the low end */
    CU_ASSERT_DOUBLE_EQUAL(bench_min_log(v_shape, at, 1.0, 10.0), 1.0, 1e-3);
    at[0] = 20.0, at[1] = 30.0; /* above the range: the high end */
    CU_ASSERT_DOUBLE_EQUAL(bench_min_log(v_shape, at, 1.0, 10.0), 10.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(bench_min_log(falling, NULL, 2.0, 8.0), 8.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(bench_min_log(flat, NULL, 2.0, 8.0), 2.0, 1e-12); /* equal values: the lower x */
    x = bench_min_log(nan_above5, NULL, 1.0, 10.0);                         /* NaN: never the least */
    CU_ASSERT(x <= 5.0 && x > 4.5);
    CU_ASSERT_EQUAL(bench_min_log(v_shape, at, 3.0, 3.0), 3.0);
    /* bad ranges: lo */
    CU_ASSERT_EQUAL(bench_min_log(v_shape, at, 4.0, 2.0), 4.0);
    CU_ASSERT_EQUAL(bench_min_log(v_shape, at, 0.0, 2.0), 0.0);
    CU_ASSERT_EQUAL(bench_min_log(v_shape, at, 1.0, INFINITY), 1.0);
    CU_ASSERT_EQUAL(bench_min_log(NULL, at, 1.0, 2.0), 1.0);
    /* bounded work: the grid, then the golden section's two points and one a step (2 log(4) / 12 = 0.231 narrowed to
     * 5e-4 by 0.618 a step: 13 steps) */
    at[0] = 3.0, at[1] = 5.0, calls = 0;
    (void)bench_min_log(counted, at, 1.0, 4.0);
    CU_ASSERT_EQUAL(calls, BENCH_MIN_GRID + 2 + 13);
}

/* the check's choice and sizes: exact */
/* the length branches' sweep read as spmv-machine does: learned up to the last size below a tenth of the largest's
 * cost, missed from the first at 0.9 of it, the cost the median from there (the Zen 5 VM's sweep of 2026-12-07) */
static void test_len_branch_fit(void)
{
    const double zen5[8] = {-0.9, -0.4, -0.1, -0.1, 17.9, 25.2, 26.3, 26.9};
    double cy, lo, hi;
    bench_len_branch_fit(zen5, 8, 10, &cy, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(cy, 26.3, 0);
    CU_ASSERT_DOUBLE_EQUAL(lo, 8192, 0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 32768, 0);
    const double none[4] = {20, 22, 24, 25}; /* nothing learned: no sizes, the cost of those at 0.9 or more */
    bench_len_branch_fit(none, 4, 10, &cy, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(cy, 24.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lo, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 0, 0);
    const double all[3] = {1, 0.5, -0.2}; /* no cost at the largest size: nothing charged */
    bench_len_branch_fit(all, 3, 10, &cy, &lo, &hi);
    CU_ASSERT(cy == 0 && lo == 0 && hi == 0);
    const double step[3] = {0.5, 10, 25}; /* learned to 1024, 10 is neither: missed from 4096, cost 25 */
    bench_len_branch_fit(step, 3, 10, &cy, &lo, &hi);
    CU_ASSERT(cy == 25 && lo == 1024 && hi == 4096);
}

static void test_spmv_check_choice(void)
{
    const double inf = INFINITY;
    enum { N = SPMV_OVERLAP_NONE, F = SPMV_OVERLAP_FULL, A = SPMV_OVERLAP_A64FX };
    /* indexed by spmv_overlap: none, full, a64fx-partial */
    CU_ASSERT_EQUAL(bench_check_choose((double[3]){0.065, 0.455, 0.065}, F), A); /* a tie: a64fx-partial first */
    CU_ASSERT_EQUAL(bench_check_choose((double[3]){0.243, 0.490, 0.249}, F), A); /* none not 0.05 better */
    CU_ASSERT_EQUAL(bench_check_choose((double[3]){0.100, 0.500, 0.300}, A), N);
    CU_ASSERT_EQUAL(bench_check_choose((double[3]){0.200, 0.220, 0.210}, F), F); /* within the margin: the streams' */
    CU_ASSERT_EQUAL(bench_check_choose((double[3]){0.300, inf, 0.100}, F), A);
    CU_ASSERT_EQUAL(bench_check_choose((double[3]){inf, inf, inf}, N), N);
    CU_ASSERT_EQUAL(bench_check_choose((double[3]){inf, 0.400, inf}, A), F);
    /* measured again while every rule errs by more than BENCH_CHECK_RETRY_ERR, up to max_tries (and BENCH_CHECK_TRIES)
     * measurements: the committed Zen 5 file's L3 check of 2026-12-07 07:37 (0.264 0.349 0.264) is measured again,
     * the calm 12-06 one (0.129 0.060 0.129) not */
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.264, 0.349, 0.264}, 1, BENCH_CHECK_TRIES), 1);
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.129, 0.060, 0.129}, 1, BENCH_CHECK_TRIES), 0);
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.150, 0.400, 0.400}, 1, BENCH_CHECK_TRIES), 0); /* at it: kept */
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.151, inf, 0.400}, 1, BENCH_CHECK_TRIES), 1);
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){inf, inf, inf}, 1, BENCH_CHECK_TRIES), 0); /* none calibrated */
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.3, 0.3, 0.3}, BENCH_CHECK_TRIES - 1, BENCH_CHECK_TRIES), 1);
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.3, 0.3, 0.3}, BENCH_CHECK_TRIES, BENCH_CHECK_TRIES), 0);
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.3, 0.3, 0.3}, BENCH_CHECK_TRIES, 99), 0); /* capped */
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.3, 0.3, 0.3}, 1, 1), 0);
    CU_ASSERT_EQUAL(bench_check_retry((double[3]){0.3, 0.3, 0.3}, 1, 0), 0);

    spmv_machine m;
    memset(&m, 0, sizeof m);
    m.nlevels = 4;
    m.level[0].size = 48 << 10;
    m.level[1].size = 2 << 20;                /* 1 MiB / 350 B: cbrt 14.4 */
    m.level[2].size = (int64_t)105 << 20;
    m.level[2].effective_size = 8 << 20;      /* 4 MiB: cbrt 22.9; memory 64 MiB: cbrt 57.7 */
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 1), 14);
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 2), 22);
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 3), 57);
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 0), 0);
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 4), 0);
    CU_ASSERT_EQUAL(bench_check_hpcg_n(NULL, 1), 0);
    m.level[2].effective_size = 16 << 20;     /* 128 MiB: cbrt 72.7 */
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 3), 72);
    m.level[2].effective_size = (int64_t)508 << 20; /* 4 GiB of memory matrix: capped */
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 3), BENCH_CHECK_MAX_N);
    m.level[1].size = 16 << 10;                  /* 8 KiB: n = 2 is too small */
    CU_ASSERT_EQUAL(bench_check_hpcg_n(&m, 1), 0);
}

int main(void)
{
    tu_suite("chase", (tu_case[]){{"one cycle over all lines", test_chase_one_cycle},
                                  {"random", test_chase_random},
                                  {"bad arguments", test_chase_bad_args},
                                  {NULL, NULL}});
    tu_suite("kernels", (tu_case[]){{"registry and detection", test_isa_registry},
                                    {"streaming kernels compute their formulas", test_stream_kernels},
                                    {"in-core tests run", test_incore_kernels},
                                    {NULL, NULL}});
    tu_suite("derived", (tu_case[]){{"overlap fit finds the generating rules per level", test_overlap_fit},
                                    {"effective last-level cache from a bandwidth sweep", test_effective_size},
                                    {"machine file path", test_machine_path},
                                    {"topology", test_topology},
                                    {"tiny run writes a readable machine file", test_quick_run_file},
                                    {"SpMV check: the rule chosen and the matrix sizes", test_spmv_check_choice},
                                    {"length branches: the sweep's learned and missed sizes", test_len_branch_fit},
                                    {"memory figures: the median of the passes", test_median_of_passes},
                                    {"SpMV check: memory's bandwidth, the least error in log x", test_min_log},
                                    {NULL, NULL}});
    return tu_run();
}
