/* spmv-irregular: the measurements behind issue 14 (irregular matrices) for one matrix, every configuration timed
 * in interleaved rounds so that a slow phase of a shared machine hits all of them alike.
 *
 *   spmv-irregular FILE.mtx | FILE.csrbin | --hpcg N [-t THREADS] [--rounds R] [--sections LIST] [--repeat N]
 *
 * FILE.csrbin: the binary CSR cache the peers harness writes with PEERS_BINCACHE=1 (magic PCSRBIN1, int32 rows,
 * int32 cols, int64 nnz, int32 rowptr[rows+1], int32 col[nnz], double val[nnz]); a 700 MB .mtx takes minutes to parse.
 * Sections (default all):
 *   threads   why CRS does or does not scale: spmv_crs_mv at 1..T threads (merge-path partition), the CRS kernel on
 *             a row partition without splits, a plain OpenMP loop (static rows, as the peers' ref-csr) and the
 *             same loop on spmv's rows; then each part of spmv's partition alone on one thread (its balance). Per
 *             configuration the wall time (min and median over the rounds, as Gflop/s) and, with T threads, the
 *             CPU time of each thread inside the parallel region (a thread descheduled by another process shows a
 *             wall time above its CPU time).
 *   sell      SELL-C-sigma with the CRS part (long_rows auto) and without it: stored entries, beta, the CRS part,
 *             the conversion time or the padding guard's refusal, Gflop/s at 1..T threads.
 *   locality  x locality of orderings (RCM, descending column degree) judged by alpha: simulated per cache size
 *             (1 MiB ~ L2, 32 MiB ~ L3, 16-way, 64-byte lines) and the CRS Gflop/s in the new order.
 *   compress  (not in the default list; issue 15) the conversion to SELL-8-1, SELL-32-1 and SELL-32-rows with the
 *             compressed indices (the defaults: run columns, 16-bit indices, value indices; and each alone) against
 *             the plain format, interleaved:
 *             median seconds, their ratio, the declared bytes per nonzero of each. --repeat N times N conversions
 *             (and the frees between them) per round and reports seconds per conversion: the figures of a small
 *             matrix (tens of microseconds) then rise above the clock's and the first touch's noise.
 *   runs      (not in the default list) whether run columns pay: SELL-8/16/32 at sigma 1 and rows, the share of the
 *             nonzeros in run columns and their entries per chunk, whether the automatic rule keeps them, the
 *             multiply with them against without (alternating, 0.05 s each per round) and the two conversions.
 * Prints Gflop/s = 2 nnz / time; checks every multiply against a serial loop first. */
#define _POSIX_C_SOURCE 200809L
#include "toolutil.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *prog = "spmv-irregular";

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *t, int n)
{
    double *c = malloc((size_t)n * sizeof *c);
    memcpy(c, t, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_dbl);
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

static double minimum(const double *t, int n)
{
    double m = t[0];
    for (int i = 1; i < n; i++)
        if (t[i] < m) m = t[i];
    return m;
}

static double maximum(const double *t, int n)
{
    double m = t[0];
    for (int i = 1; i < n; i++)
        if (t[i] > m) m = t[i];
    return m;
}

/* the peers' binary CSR cache */
static spmv_crs *load_csrbin(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s\n", prog, path);
        return NULL;
    }
    char magic[8];
    int32_t rows, cols;
    int64_t nnz;
    spmv_crs *A = NULL;
    int32_t *rp32 = NULL, *col = NULL;
    int64_t *rp = NULL;
    double *val = NULL;
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "PCSRBIN1", 8) || fread(&rows, 4, 1, f) != 1 ||
        fread(&cols, 4, 1, f) != 1 || fread(&nnz, 8, 1, f) != 1 || rows < 0 || cols < 0 || nnz < 0) {
        fprintf(stderr, "%s: %s: not a PCSRBIN1 file\n", prog, path);
        goto done;
    }
    rp32 = malloc(((size_t)rows + 1) * sizeof *rp32);
    rp = malloc(((size_t)rows + 1) * sizeof *rp);
    col = malloc((size_t)nnz * sizeof *col + 1);
    val = malloc((size_t)nnz * sizeof *val + 1);
    if (!rp32 || !rp || !col || !val || fread(rp32, 4, (size_t)rows + 1, f) != (size_t)rows + 1 ||
        fread(col, 4, (size_t)nnz, f) != (size_t)nnz || fread(val, 8, (size_t)nnz, f) != (size_t)nnz) {
        fprintf(stderr, "%s: %s: short file or out of memory\n", prog, path);
        goto done;
    }
    for (int32_t i = 0; i <= rows; i++) rp[i] = rp32[i];
    spmv_status st = spmv_crs_from_arrays(rows, cols, rp, col, val, &A);
    if (st) tool_error(prog, st);
done:
    fclose(f);
    free(rp32), free(rp), free(col), free(val);
    return A;
}

/* ---------------------------------------------------------------------------------------------- configurations */

typedef struct run {
    const char *name;
    int threads;
    int kind;          /* 0 spmv_crs_mv, 1 CRS kernel on rows, 2 plain static, 3 plain on spmv's rows, 4 one part
                          alone, 5 SELL */
    int part;          /* kind 4: the part */
    const spmv_sell *S;
    double *wall, *cpu; /* per round; cpu: per round x thread */
} run;

typedef struct ctx {
    spmv_crs *A;       /* partitioned for the run's thread count before each run */
    spmv_crs rows_view;/* A with a row partition (no splits) */
    const double *x;
    double *y;
    int T;
} ctx;

static void plain_rows(const spmv_crs *A, int32_t r0, int32_t r1, const double *x, double *y)
{
    const int64_t *rp = A->rowptr;
    const int32_t *col = A->col;
    const double *val = A->val;
    for (int32_t i = r0; i < r1; i++) {
        double s = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];
        y[i] = s;
    }
}

static void do_run(ctx *c, run *r, int round)
{
    spmv_crs *A = c->A;
    const int T = r->threads;
    omp_set_num_threads(T);
    if (r->kind == 5) spmv_sell_set_threads((spmv_sell *)r->S, T);
    else spmv_crs_set_threads(A, r->kind == 4 ? c->T : T);
    double *cpu = r->cpu + (size_t)round * c->T;
    for (int t = 0; t < c->T; t++) cpu[t] = 0;
    double t0 = tool_now();
    switch (r->kind) {
    case 0: spmv_crs_mv(A, 1.0, c->x, 0.0, c->y); break;
    case 5: spmv_sell_mv(r->S, 1.0, c->x, 0.0, c->y); break;
    case 1: { /* the library's kernel on whole rows (the partition before row splitting: rows balanced by entries) */
        spmv_crs *v = &c->rows_view;
        *v = *A;
        int64_t *split = malloc(((size_t)T + 1) * sizeof *split);
        int32_t *part = malloc(((size_t)T + 1) * sizeof *part);
        for (int t = 0; t <= T; t++) {
            int64_t target = (int64_t)((double)A->nnz * t / T);
            int32_t lo = 0, hi = A->rows;
            while (lo < hi) { /* first row whose start reaches the target */
                int32_t mid = lo + (hi - lo) / 2;
                if (A->rowptr[mid] < target) lo = mid + 1;
                else hi = mid;
            }
            part[t] = t == T ? A->rows : lo;
            split[t] = A->rowptr[part[t]];
        }
        v->part = part, v->split = split, v->nparts = T;
        t0 = tool_now();
        spmv_crs_mv(v, 1.0, c->x, 0.0, c->y);
        r->wall[round] = tool_now() - t0;
        free(split), free(part);
        return;
    }
    case 2:
#pragma omp parallel num_threads(T)
    {
        double a = cpu_now();
        const int32_t n = A->rows;
#pragma omp for schedule(static) nowait
        for (int32_t i = 0; i < n; i++) plain_rows(A, i, i + 1, c->x, c->y);
        cpu[omp_get_thread_num()] = cpu_now() - a;
    }
        break;
    case 3:
#pragma omp parallel num_threads(T)
    {
        double a = cpu_now();
        int t = omp_get_thread_num();
        plain_rows(A, A->part[t], A->part[t + 1], c->x, c->y);
        cpu[t] = cpu_now() - a;
    }
        break;
    case 4: { /* part r->part of spmv's partition at c->T threads, alone: its whole rows, plain loop */
        double a = cpu_now();
        plain_rows(A, A->part[r->part], A->part[r->part + 1], c->x, c->y);
        cpu[0] = cpu_now() - a;
        break;
    }
    }
    r->wall[round] = tool_now() - t0;
}

static void report(const ctx *c, const run *r, int rounds, int64_t nnz)
{
    const double g = 2.0 * (double)nnz * 1e-9;
    const double tmin = minimum(r->wall, rounds), tmed = median(r->wall, rounds);
    printf("  %-44s %2d  %8.3f %8.3f  %9.2f", r->name, r->threads, g / tmin, g / tmed, tmed * 1e3);
    if (r->kind == 2 || r->kind == 3) {
        double *col = malloc((size_t)rounds * sizeof *col);
        for (int t = 0; t < r->threads; t++) {
            for (int k = 0; k < rounds; k++) col[k] = r->cpu[(size_t)k * c->T + t];
            printf("  t%d %.1f", t, median(col, rounds) * 1e3);
        }
        free(col);
    } else if (r->kind == 4) {
        double *col = malloc((size_t)rounds * sizeof *col);
        for (int k = 0; k < rounds; k++) col[k] = r->cpu[(size_t)k * c->T];
        printf("  cpu %.1f", median(col, rounds) * 1e3);
        free(col);
    }
    printf("\n");
}

static void run_all(ctx *c, run *runs, int n, int rounds)
{
    for (int k = 0; k < rounds; k++)
        for (int i = 0; i < n; i++) do_run(c, &runs[i], k);
}

static void alloc_runs(run *runs, int n, int rounds, int T)
{
    for (int i = 0; i < n; i++) {
        runs[i].wall = calloc((size_t)rounds, sizeof(double));
        runs[i].cpu = calloc((size_t)rounds * (size_t)T, sizeof(double));
    }
}

static void free_runs(run *runs, int n)
{
    for (int i = 0; i < n; i++) free(runs[i].wall), free(runs[i].cpu);
}

/* max |y - y_ref| / (|A||x|) of one multiply against a serial loop */
static double check_crs(const spmv_crs *A, const double *x, double *y)
{
    spmv_crs_mv(A, 1.0, x, 0.0, y);
    return tool_check(A, x, y);
}

/* ---------------------------------------------------------------------------------------------- sections */

static void section_threads(ctx *c, int rounds)
{
    spmv_crs *A = c->A;
    const int T = c->T;
    printf("\n## threads: why CRS does or does not scale (%d rounds, interleaved)\n", rounds);
    spmv_crs_set_threads(A, T);
    printf("spmv's partition at %d threads (merge path):", T);
    for (int t = 0; t < T; t++)
        printf(" [rows %d..%d, entries %lld]", A->part[t], A->part[t + 1],
               (long long)(A->split[t + 1] - A->split[t]));
    printf("\n");
    int n = 0;
    run runs[64];
    memset(runs, 0, sizeof runs);
    for (int t = 1; t <= T; t++) {
        runs[n++] = (run){"spmv_crs_mv (merge path, rows split)", t, 0, 0, NULL, NULL, NULL};
        runs[n++] = (run){"spmv's CRS kernel, rows by entries, no split", t, 1, 0, NULL, NULL, NULL};
        runs[n++] = (run){"plain loop, static rows (ref-csr)", t, 2, 0, NULL, NULL, NULL};
        runs[n++] = (run){"plain loop on spmv's rows", t, 3, 0, NULL, NULL, NULL};
    }
    static char names[64][64];
    for (int p = 0; p < T && T > 1; p++) {
        snprintf(names[p], sizeof names[p], "part %d of %d alone (plain loop, 1 thread)", p, T);
        runs[n++] = (run){names[p], 1, 4, p, NULL, NULL, NULL};
    }
    alloc_runs(runs, n, rounds, T);
    run_all(c, runs, n, rounds);
    printf("  %-44s %2s  %8s %8s  %9s  %s\n", "configuration", "t", "Gf/s min", "Gf/s med", "ms med",
           "CPU ms per thread (median)");
    for (int i = 0; i < n; i++) report(c, &runs[i], rounds, A->nnz);
    free_runs(runs, n);
}

static void section_sell(ctx *c, int rounds, const int32_t *Cs, const int32_t *sigmas, int ncfg)
{
    spmv_crs *A = c->A;
    const int T = c->T;
    printf("\n## sell: SELL-C-sigma with and without the CRS part for long rows (%d rounds, interleaved)\n", rounds);
    spmv_sell *S[32];
    run runs[96];
    int n = 0, ns = 0;
    memset(runs, 0, sizeof runs);
    static char names[32][96];
    omp_set_num_threads(T);
    for (int k = 0; k < ncfg && ns < 32; k++)
        for (int lr = 0; lr < 2 && ns < 32; lr++) {
            spmv_sell_opts o = spmv_sell_opts_default();
            o.C = Cs[k];
            o.sigma = sigmas[k] > 0 ? sigmas[k] : (A->rows > 0 ? A->rows : 1);
            o.long_rows = lr ? 0 : -1;
            o.nthreads = T;
            double t0 = tool_now();
            spmv_sell *s = NULL;
            spmv_status st = spmv_sell_from_crs(A, &o, &s);
            double tc = tool_now() - t0;
            char label[64], sg[16];
            if (sigmas[k] > 0) snprintf(sg, sizeof sg, "%d", o.sigma);
            else snprintf(sg, sizeof sg, "rows");
            snprintf(label, sizeof label, "SELL-%d-%s%s", o.C, sg, lr ? " no CRS part" : "");
            if (st) {
                printf("  %-30s refused: %s\n", label, spmv_last_error());
                continue;
            }
            double err = 0;
            {
                spmv_sell_mv(s, 1.0, c->x, 0.0, c->y);
                err = tool_check(A, c->x, c->y);
            }
            printf("  %-30s stored %lld, beta %.3f, CRS part %d rows > %d entries (%lld nnz), conversion %.2f s, "
                   "check %.1g%s\n", label, (long long)s->stored, spmv_sell_beta(s), s->nlong, s->long_min,
                   s->nlong ? (long long)s->longptr[s->nlong] : 0LL, tc, err, err <= 1e-12 ? "" : " FAILED");
            S[ns] = s;
            for (int t = 1; t <= T; t++) {
                snprintf(names[ns], sizeof names[ns], "%s", label);
                runs[n++] = (run){names[ns], t, 5, 0, s, NULL, NULL};
            }
            ns++;
        }
    for (int t = 1; t <= T; t++) runs[n++] = (run){"CRS (spmv_crs_mv)", t, 0, 0, NULL, NULL, NULL};
    alloc_runs(runs, n, rounds, T);
    run_all(c, runs, n, rounds);
    printf("  %-44s %2s  %8s %8s  %9s\n", "configuration", "t", "Gf/s min", "Gf/s med", "ms med");
    for (int i = 0; i < n; i++) report(c, &runs[i], rounds, A->nnz);
    free_runs(runs, n);
    for (int k = 0; k < ns; k++) spmv_sell_free(S[k]);
}

/* The conversion to the compressed format against the plain one (runs = 0, idx16 = 0, vidx = 0), for each
 * SELL-C-sigma of Cs and sigmas (0: rows): the compressed forms are the defaults (run columns without indices, 16-bit
 * indices for gather columns, value indices: runs = idx16 = vidx = -1, auto) and each of the three alone, the
 * 16-bit indices and the value indices forced on (idx16 = 1, vidx = 1: where it qualifies), runs = -1 (16-bit
 * column indices alone is the compressed-index format of issue 15's "compressed column indices ... conversion to the
 * compressed form costs at most 2x the plain conversion"); all forms interleaved over the rounds: median seconds of
 * each, its ratio to plain, and the declared bytes per nonzero. */
enum { CF_PLAIN, CF_IDX16, CF_RUNS, CF_VIDX, CF_ALL, CF_N };
static const char *const cf_name[CF_N] = {"plain", "idx16", "runs", "vidx", "all"};

static void section_compress(ctx *c, int rounds, long reps, const int32_t *Cs, const int32_t *sigmas, int ncfg)
{
    spmv_crs *A = c->A;
    printf("\n## compress: conversion time, compressed forms against plain (%d rounds, interleaved, %d threads, "
           "%ld conversion(s) per timing): idx16 = 16-bit indices alone, runs = run columns alone, vidx = value "
           "indices alone, all = the defaults\n",
           rounds, c->T, reps);
    printf("  %-16s %9s", "format", "plain s");
    for (int f = CF_IDX16; f < CF_N; f++) printf(" %9s %5s", cf_name[f], "ratio");
    printf("  B/nonzero plain / idx16 / runs / vidx / all; kernel of all\n");
    omp_set_num_threads(c->T);
    for (int k = 0; k < ncfg; k++) {
        double t[CF_N][1000];
        double bpn[CF_N] = {0};
        char kname[64] = "";
        spmv_sell_opts o = spmv_sell_opts_default();
        o.C = Cs[k];
        o.sigma = sigmas[k] > 0 ? sigmas[k] : (A->rows > 0 ? A->rows : 1);
        o.nthreads = c->T;
        int failed = 0;
        for (int r = 0; r < rounds && r < 1000 && !failed; r++)
            for (int f = 0; f < CF_N && !failed; f++) {
                o.runs = f == CF_RUNS || f == CF_ALL ? -1 : 0;
                o.idx16 = f == CF_IDX16 ? 1 : f == CF_ALL ? -1 : 0; /* alone: forced on */
                o.vidx = f == CF_VIDX ? 1 : f == CF_ALL ? -1 : 0;
                spmv_sell *s = NULL;
                spmv_status st = SPMV_OK;
                const double t0 = tool_now();
                for (long q = 0; q < reps && st == SPMV_OK; q++) { /* the last one is kept and checked */
                    spmv_sell_free(s);
                    s = NULL;
                    st = spmv_sell_from_crs(A, &o, &s);
                }
                t[f][r] = (tool_now() - t0) / (double)reps;
                if (st) {
                    printf("  SELL-%d-%d (%s): refused: %s\n", o.C, o.sigma, cf_name[f], spmv_last_error());
                    failed = 1;
                    break;
                }
                if (r == 0) {
                    spmv_traffic tr;
                    spmv_sell_traffic(s, &tr);
                    bpn[f] = A->nnz > 0 ? spmv_traffic_bytes(&tr, s->stored, A->nnz, A->rows, s->nchunks,
                                                             (double)A->cols / (double)A->nnz) /
                                              (double)A->nnz
                                        : 0.0;
                    if (f == CF_ALL) snprintf(kname, sizeof kname, "%s", spmv_sell_kernel_name(s));
                    spmv_sell_mv(s, 1.0, c->x, 0.0, c->y);
                    const double err = tool_check(A, c->x, c->y);
                    if (!(err <= 1e-12)) printf("  check FAILED (%s): %.3g\n", cf_name[f], err);
                }
                spmv_sell_free(s);
            }
        if (failed) continue;
        const int n = rounds < 1000 ? rounds : 1000;
        char label[48];
        snprintf(label, sizeof label, "SELL-%d-%s", o.C, sigmas[k] > 0 ? "" : "rows");
        if (sigmas[k] > 0) snprintf(label + strlen(label), sizeof label - strlen(label), "%d", o.sigma);
        const double p = median(t[CF_PLAIN], n);
        printf("  %-16s %9.3g", label, p);
        for (int f = CF_IDX16; f < CF_N; f++) {
            const double q = median(t[f], n);
            printf(" %9.3g %5.2f", q, p > 0 ? q / p : 0.0);
        }
        printf("  %.3g / %.3g / %.3g / %.3g / %.3g; %s\n", bpn[0], bpn[1], bpn[2], bpn[3], bpn[4], kname);
    }
}

/* Whether run columns pay (spmv_sell_opts.runs; the automatic rule in sell.c, SELL_RUN_LANES): per configuration
 * the share of the nonzeros in run columns and their entries per chunk (all chunks, runs asked for with auto's
 * threshold ceil(3C/4)), whether auto keeps them, and spmv_sell_mv with them against without (runs = 0; other
 * options the defaults), timed `secs` seconds each, alternating, over the rounds: median Gflop/s of each and the
 * median of the rounds' ratios (min..max); and the conversion of each (median seconds, ratio). */
static void section_runs(ctx *c, int rounds, const int32_t *Cs, const int32_t *sigmas, int ncfg, double secs)
{
    spmv_crs *A = c->A;
    printf("\n## runs: run columns against none in the multiply (%d rounds of %.2f s each, alternating, %d threads)\n",
           rounds, secs, c->T);
    printf("  %-14s %7s %9s %5s  %8s %8s %6s %13s  %9s %9s %6s\n", "format", "share", "per chunk", "auto",
           "Gf/s on", "Gf/s off", "on/off", "(min..max)", "conv on s", "conv off", "ratio");
    if (A->nnz == 0) {
        printf("  no nonzeros: nothing to time\n");
        return;
    }
    omp_set_num_threads(c->T);
    for (int k = 0; k < ncfg; k++) {
        const int32_t C = Cs[k], T = C >= 4 && C <= 64 ? (3 * C + 3) / 4 : 0;
        double g[2][1000], tc[2][1000], q[1000];
        spmv_sell *S[2] = {NULL, NULL};
        int64_t inr = 0, nch = 0;
        int autokeeps = 0, failed = 0;
        const int n = rounds < 1000 ? rounds : 1000;
        for (int r = 0; r < n && !failed; r++)
            for (int l = 0; l < 2 && !failed; l++) {
                spmv_sell_opts o = spmv_sell_opts_default();
                o.C = C;
                o.sigma = sigmas[k] > 0 ? sigmas[k] : (A->rows > 0 ? A->rows : 1);
                o.nthreads = c->T;
                o.runs = l == 0 ? T : 0;
                spmv_sell_free(S[l]);
                S[l] = NULL;
                double t0 = tool_now();
                if (spmv_sell_from_crs(A, &o, &S[l])) {
                    printf("  SELL-%d: %s\n", C, spmv_last_error());
                    failed = 1;
                    break;
                }
                tc[l][r] = tool_now() - t0;
                if (r == 0) {
                    spmv_sell_mv(S[l], 1.0, c->x, 0.0, c->y);
                    const double err = tool_check(A, c->x, c->y);
                    if (!(err <= 1e-12)) printf("  check FAILED (runs %s): %.3g\n", l ? "off" : "on", err);
                }
                long K = 0;
                double t;
                t0 = tool_now();
                do {
                    spmv_sell_mv(S[l], 1.0, c->x, 0.0, c->y);
                    K++;
                } while ((t = tool_now() - t0) < secs);
                g[l][r] = 2.0 * (double)A->nnz * (double)K / t * 1e-9;
            }
        if (failed) {
            spmv_sell_free(S[0]), spmv_sell_free(S[1]);
            continue;
        }
        const spmv_sell *R = S[0];
        const int32_t mb = (C + 7) / 8;
        for (int64_t j = 0; R->runs > 0 && j < R->nruns; j++)
            for (int32_t b = 0; b < mb; b++) inr += __builtin_popcount(R->runmask[j * mb + b]);
        nch = R->nchunks;
        {
            spmv_sell_opts o = spmv_sell_opts_default();
            o.C = C;
            o.sigma = sigmas[k] > 0 ? sigmas[k] : (A->rows > 0 ? A->rows : 1);
            o.nthreads = c->T;
            spmv_sell *Sa = NULL;
            if (spmv_sell_from_crs(A, &o, &Sa) == SPMV_OK) autokeeps = Sa->nruns > 0;
            spmv_sell_free(Sa);
        }
        for (int r = 0; r < n; r++) q[r] = g[0][r] / g[1][r];
        char label[48];
        snprintf(label, sizeof label, "SELL-%d-%s", C, sigmas[k] > 0 ? "" : "rows");
        if (sigmas[k] > 0) snprintf(label + strlen(label), sizeof label - strlen(label), "%d", sigmas[k]);
        const double c0 = median(tc[0], n), c1 = median(tc[1], n);
        printf("  %-14s %6.1f%% %9.1f %5s  %8.3f %8.3f %6.3f (%5.3f..%5.3f)  %9.5f %9.5f %6.2f\n", label,
               A->nnz > 0 ? 100.0 * (double)inr / (double)A->nnz : 0.0, nch > 0 ? (double)inr / (double)nch : 0.0,
               autokeeps ? "runs" : "none", median(g[0], n), median(g[1], n), median(q, n), minimum(q, n),
               maximum(q, n), c0, c1, c1 > 0 ? c0 / c1 : 0.0);
        spmv_sell_free(S[0]), spmv_sell_free(S[1]);
    }
}

/* perm[new] = old by descending column count (in-degree), ties by index */
static int32_t *degree_order(const spmv_crs *A)
{
    int64_t *deg = calloc((size_t)A->cols, sizeof *deg);
    int32_t *perm = malloc((size_t)A->cols * sizeof *perm);
    for (int64_t k = 0; k < A->nnz; k++) deg[A->col[k]]++;
    /* counting sort by degree, descending, stable */
    int64_t maxd = 0;
    for (int32_t j = 0; j < A->cols; j++)
        if (deg[j] > maxd) maxd = deg[j];
    int64_t *cnt = calloc((size_t)maxd + 2, sizeof *cnt);
    for (int32_t j = 0; j < A->cols; j++) cnt[maxd - deg[j] + 1]++;
    for (int64_t d = 0; d <= maxd; d++) cnt[d + 1] += cnt[d];
    for (int32_t j = 0; j < A->cols; j++) perm[cnt[maxd - deg[j]]++] = j;
    free(cnt);
    free(deg);
    return perm;
}

static void section_locality(ctx *c, int rounds)
{
    spmv_crs *A = c->A;
    const int T = c->T;
    printf("\n## locality: x traffic of orderings, alpha simulated (16-way, 64-byte lines; alpha_min = %.4f)\n",
           A->nnz ? (double)A->cols / (double)A->nnz : 0);
    if (A->rows != A->cols) {
        printf("  not square: symmetric orderings do not apply\n");
        return;
    }
    spmv_crs *B[3] = {A, NULL, NULL};
    const char *names[3] = {"original order", "RCM", "descending column degree"};
    int32_t *perm = malloc((size_t)A->rows * sizeof *perm), *iperm = malloc((size_t)A->rows * sizeof *iperm);
    double t0 = tool_now();
    spmv_status st = spmv_rcm(A, perm, iperm);
    double trcm = tool_now() - t0;
    if (!st) st = spmv_crs_permute(A, perm, &B[1]);
    if (st) printf("  RCM: %s\n", spmv_last_error());
    free(perm), free(iperm);
    t0 = tool_now();
    int32_t *dp = degree_order(A);
    double tdeg = tool_now() - t0;
    if (spmv_crs_permute(A, dp, &B[2])) printf("  degree order: %s\n", spmv_last_error());
    free(dp);
    printf("  ordering time: RCM %.2f s, degree %.2f s\n", trcm, tdeg);
    const int64_t caches[2] = {(int64_t)1 << 20, (int64_t)32 << 20};
    run runs[16];
    int n = 0;
    memset(runs, 0, sizeof runs);
    for (int k = 0; k < 3; k++) {
        if (!B[k]) continue;
        spmv_alpha a1, a2;
        spmv_crs_alpha(B[k], caches[0], 64, 16, 1, 1, &a1);
        spmv_crs_alpha(B[k], caches[1], 64, 16, 1, 1, &a2);
        printf("  %-26s alpha %.4f (1 MiB cache), %.4f (32 MiB cache)\n", names[k], a1.alpha, a2.alpha);
    }
    /* time CRS in each order (the same arrays x, y reused; the permuted matrix has the same values) */
    for (int k = 0; k < 3; k++)
        for (int t = 1; t <= T && B[k]; t++) runs[n++] = (run){names[k], t, 0, k, NULL, NULL, NULL};
    alloc_runs(runs, n, rounds, T);
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            c->A = B[runs[i].part];
            do_run(c, &runs[i], r);
        }
    c->A = A;
    printf("  %-44s %2s  %8s %8s  %9s\n", "CRS in the order", "t", "Gf/s min", "Gf/s med", "ms med");
    for (int i = 0; i < n; i++) report(c, &runs[i], rounds, A->nnz);
    free_runs(runs, n);
    spmv_crs_free(B[1]);
    spmv_crs_free(B[2]);
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *sections = "threads,sell,locality";
    long T = 2, rounds = 7, reps = 1;
    char hpcgbuf[160];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = tool_matrix_arg(prog, argc, argv, &i, hpcgbuf, sizeof hpcgbuf, &spec);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(a, "-t") && v) {
            if (!tool_parse_int(prog, a, v, 1, 64, &T)) return 2;
            i++;
        } else if (!strcmp(a, "--rounds") && v) {
            if (!tool_parse_int(prog, a, v, 1, 1000, &rounds)) return 2;
            i++;
        } else if (!strcmp(a, "--repeat") && v) {
            if (!tool_parse_int(prog, a, v, 1, 1000000, &reps)) return 2;
            i++;
        } else if (!strcmp(a, "--sections") && v) {
            sections = v;
            i++;
        } else {
            fprintf(stderr, "usage: %s FILE.mtx | FILE.csrbin | --hpcg N [-t THREADS] [--rounds R] "
                            "[--sections threads,sell,locality,compress,runs] [--repeat N]\n", prog);
            return 2;
        }
    }
    if (!spec) {
        fprintf(stderr, "usage: %s FILE.mtx | FILE.csrbin | --hpcg N [-t THREADS] [--rounds R]\n", prog);
        return 2;
    }
    omp_set_num_threads((int)T);
    spmv_crs *A = NULL;
    const char *name = spec;
    size_t L = strlen(spec);
    if (L > 7 && !strcmp(spec + L - 7, ".csrbin")) A = load_csrbin(spec);
    else if (tool_load(prog, spec, &A, &name)) A = NULL;
    if (!A) return 1;
    double *x = NULL, *y = NULL;
    spmv_vec_alloc(A->cols, &x);
    spmv_vec_alloc(A->rows > 0 ? A->rows : 1, &y);
    for (int32_t j = 0; j < A->cols; j++) x[j] = 1.0 + (j % 7) / 7.0;
    spmv_crs_stats s;
    spmv_crs_get_stats(A, &s);
    FILE *lf = fopen("/proc/loadavg", "r");
    double load = 0;
    if (lf) {
        if (fscanf(lf, "%lf", &load) != 1) load = 0;
        fclose(lf);
    }
    printf("# spmv-irregular %s: %s, %d x %d, nnz %lld, N_nzr min %d mean %.2f max %d; kernel %s; load %.1f\n",
           spmv_version(), name, A->rows, A->cols, (long long)A->nnz, s.nzr_min, s.nzr_mean, s.nzr_max,
           spmv_crs_kernel_name(A), load);
    ctx c = {A, {0}, x, y, (int)T};
    spmv_crs_set_threads(A, (int)T);
    double err = check_crs(A, x, y);
    if (!(err <= 1e-12)) {
        fprintf(stderr, "%s: CRS check FAILED: %.3g\n", prog, err);
        return 1;
    }
    if (strstr(sections, "threads")) section_threads(&c, (int)rounds);
    if (strstr(sections, "sell")) {
        const int32_t Cs[] = {8, 8, 32, 64}, sg[] = {1, 0, 0, 1};
        section_sell(&c, (int)rounds, Cs, sg, 4);
    }
    if (strstr(sections, "locality")) section_locality(&c, (int)rounds);
    if (strstr(sections, "compress")) {
        const int32_t Cs[] = {8, 32, 32}, sg[] = {1, 1, 0};
        section_compress(&c, (int)rounds, reps, Cs, sg, 3);
    }
    if (strstr(sections, "runs")) {
        const int32_t Cs[] = {8, 8, 16, 16, 32, 32}, sg[] = {1, 0, 1, 0, 1, 0};
        section_runs(&c, (int)rounds, Cs, sg, 6, 0.05);
    }
    spmv_vec_free(x);
    spmv_vec_free(y);
    spmv_crs_free(A);
    return 0;
}
