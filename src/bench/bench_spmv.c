/* The SpMV check of spmv-machine's overlap rules (bench.h: bench_spmv_check).
 *
 * The streaming kernels choose each level's overlap rule (bench_overlap_fit, Alappat et al., PMBS 2020, Sect. III-A),
 * but SpMV is not a stream: its core time is mostly gathers and index loads, and whether those overlap with the
 * transfers from a level is exactly what the rule says. On the Intel Xeon VM (2026-12-03) the streams chose "full"
 * at L2 while SpMV with its data in L2 ran at the "a64fx-partial" prediction (HPCG 16^3, SELL-8-1, 1 thread:
 * measured 10-11 Gflop/s; the model 21.8 under full, 11.8 under a64fx-partial). So each level's rule is checked on
 * the library's own kernels: CRS, SELL-8-1 and SELL-32-1 (the kernels the library picks on this CPU) on one thread,
 * on an HPCG n^3 matrix whose data set lies in that level (half the level's effective size; eight times the last
 * cache's for memory; n at most BENCH_CHECK_MAX_N, and memory is not checked when that is less than 4x the last
 * cache). Each rule is scored by the library's model (spmv_model_crs / spmv_model_sell) at its own upstream
 * bandwidth, calibrated on the read-only stream with the rules already chosen below; the error is the mean
 * |log(predicted/measured)| over the three kernels, and bench_check_choose picks the rule. Level by level from L2
 * outwards. */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int bench_check_choose(const double err[3], int stream_rule)
{
    /* preference on a tie: the streams' rule, then a64fx-partial (the paper's), full, none */
    const int order[4] = {stream_rule, SPMV_OVERLAP_A64FX, SPMV_OVERLAP_FULL, SPMV_OVERLAP_NONE};
    int best = -1;
    for (int i = 0; i < 4; i++) {
        const int q = order[i];
        if (q < 0 || q > 2 || !isfinite(err[q])) continue;
        if (best < 0 || err[q] < err[best] - BENCH_CHECK_MARGIN) best = q;
    }
    return best >= 0 ? best : stream_rule;
}

/* the capacity the model places data by: the effective size, else the cache size */
static int64_t level_size(const spmv_machine_level *l) { return l->effective_size > 0 ? l->effective_size : l->size; }

int bench_check_hpcg_n(const spmv_machine *m, int L)
{
    if (!m || L < 1 || L >= m->nlevels || m->nlevels < 2) return 0;
    const int64_t size = L == m->nlevels - 1 ? 8 * level_size(&m->level[m->nlevels - 2]) : level_size(&m->level[L]) / 2;
    /* HPCG: 27 entries of 12 bytes and x and y: about 350 bytes per row */
    const double n = cbrt((double)size / 350.0);
    return n >= 4 ? (n < BENCH_CHECK_MAX_N ? (int)n : BENCH_CHECK_MAX_N) : 0;
}

/* seconds of reps multiplies y = A x (S when given, else A) */
static double mv_reps(const spmv_crs *A, const spmv_sell *S, const double *x, double *y, int64_t reps)
{
    const double t0 = bench_now();
    for (int64_t r = 0; r < reps; r++) (void)(S ? spmv_sell_mv(S, 1.0, x, 0.0, y) : spmv_crs_mv(A, 1.0, x, 0.0, y));
    return bench_now() - t0;
}

/* seconds per multiply: the best of 5 runs of at least 5 ms each (repetitions calibrated first) */
static double check_time(const spmv_crs *A, const spmv_sell *S, const double *x, double *y)
{
    int64_t reps = 1;
    for (int it = 0; it < 40; it++) {
        const double dt = mv_reps(A, S, x, y, reps);
        if (dt >= 0.005) break;
        reps = dt > 1e-6 ? (int64_t)((double)reps * (0.006 / dt)) + 1 : reps * 100;
    }
    double best = INFINITY;
    for (int k = 0; k < 5; k++) {
        const double dt = mv_reps(A, S, x, y, reps) / (double)reps;
        if (dt < best) best = dt;
    }
    return best;
}

/* mean |log(pred/meas)| over the kernels with both figures (INFINITY: none) */
static double check_error(const double *pred, const double *meas)
{
    double s = 0;
    int n = 0;
    for (int k = 0; k < BENCH_CHECK_KERNELS; k++)
        if (pred[k] > 0 && meas[k] > 0) s += fabs(log(pred[k] / meas[k])), n++;
    return n ? s / n : INFINITY;
}

/* the predictions of kernel k of level L (matrix A, or S for SELL) under each rule */
static void check_predict(const spmv_machine *work, int L, int k, const spmv_crs *A, const spmv_sell *S,
                          bench_check *c)
{
    snprintf(c->kernel[L][k], sizeof c->kernel[L][k], "%s", S ? spmv_sell_kernel_name(S) : spmv_crs_kernel_name(A));
    for (int q = 0; q < 3; q++) {
        if (!(c->bw[L][q] > 0)) continue; /* the stream could not calibrate this rule */
        spmv_machine mq = *work;
        mq.level[L].overlap = (spmv_overlap)q;
        mq.level[L].upstream_bw = c->bw[L][q];
        spmv_model md;
        spmv_model_opts mo = spmv_model_opts_default();
        if (!(S ? spmv_model_sell(S, NULL, &mq, 1, &mo, &md) : spmv_model_crs(A, NULL, &mq, 1, &mo, &md)))
            c->pred[L][q][k] = md.predicted;
    }
}

/* one level: HPCG n^3 (n = c->n[L]) in CRS, SELL-8-1 and SELL-32-1, measured in BENCH_CHECK_ROUNDS interleaved rounds
 * (the best per kernel: a moment of interference on a shared machine slows one round, not all) and predicted; 0, or
 * -1 (out of memory) */
static int check_level(const spmv_machine *work, int L, bench_check *c)
{
    spmv_crs *A = NULL;
    spmv_sell *S[BENCH_CHECK_KERNELS] = {NULL, NULL, NULL}; /* S[0] unused: CRS */
    double *x = NULL, *y = NULL;
    const int n = c->n[L];
    spmv_status st = spmv_gen_hpcg(n, n, n, &A);
    if (!st) st = spmv_crs_set_threads(A, 1);
    for (int k = 1; k < BENCH_CHECK_KERNELS && !st; k++) {
        spmv_sell_opts so = spmv_sell_opts_default();
        so.nthreads = 1;
        so.C = k == 1 ? 8 : 32;
        st = spmv_sell_from_crs(A, &so, &S[k]);
    }
    if (!st) st = spmv_vec_alloc(A->cols, &x);
    if (!st) st = spmv_vec_alloc(A->rows, &y);
    if (!st) {
        for (int32_t i = 0; i < A->cols; i++) x[i] = 1.0 + (double)(i % 7) / 8.0;
        c->mb[L] = ((double)A->nnz * 12.0 + (double)A->rows * 16.0) * 1e-6;
        for (int round = 0; round < BENCH_CHECK_ROUNDS; round++)
            for (int k = 0; k < BENCH_CHECK_KERNELS; k++) {
                const double sec = check_time(A, S[k], x, y), g = sec > 0 ? 2.0 * (double)A->nnz / sec * 1e-9 : 0;
                if (g > c->meas[L][k]) c->meas[L][k] = g;
            }
        for (int k = 0; k < BENCH_CHECK_KERNELS; k++) check_predict(work, L, k, A, S[k], c);
    }
    for (int k = 1; k < BENCH_CHECK_KERNELS; k++) spmv_sell_free(S[k]);
    spmv_crs_free(A);
    spmv_vec_free(x);
    spmv_vec_free(y);
    return st ? -1 : 0;
}

int bench_spmv_check(const bench_results *r, const bench_fit *fit, spmv_machine *m, bench_check *c, FILE *log)
{
    if (!r || !fit || !m || !c) return -1;
    memset(c, 0, sizeof *c);
    if (m->nlevels != r->nlevels || m->nlevels < 2) return -1;
    spmv_machine work = *m;
    int nl[SPMV_MACHINE_MAX_LEVELS] = {0};
    for (int L = 1; L < m->nlevels; L++)
        if (!(nl[L] = bench_check_hpcg_n(m, L))) return -1;
    if (r->pinned == 1) { /* one core, as the streams ran */
        bench_affinity_save();
        bench_pin(r->topo.core_cpus[0]);
    }
    int st = 0;
    for (int L = 1; L < m->nlevels && !st; L++) {
        const int n = nl[L];
        c->stream_rule[L] = c->rule[L] = (int)work.level[L].overlap;
        for (int q = 0; q < 3; q++) c->err[L][q] = INFINITY;
        /* each rule's bandwidth again, with the rules chosen below (they may differ from the streams') */
        spmv_overlap rule[SPMV_MACHINE_MAX_LEVELS];
        double bw[SPMV_MACHINE_MAX_LEVELS];
        for (int i = 0; i < L; i++) rule[i] = work.level[i].overlap, bw[i] = work.level[i].upstream_bw;
        bench_fit_level_bw(r, fit, rule, bw, L, c->bw[L]);
        if (L == m->nlevels - 1) {
            if (350.0 * n * n * n < 4.0 * (double)level_size(&m->level[L - 1])) { /* capped at BENCH_CHECK_MAX_N: mostly in the last cache */
                if (log) fprintf(log, "SpMV check of %s skipped: HPCG %d^3 is less than 4x the last cache\n",
                                 m->level[L].name, n);
                if (c->bw[L][c->rule[L]] > 0) work.level[L].upstream_bw = c->bw[L][c->rule[L]];
                continue;
            }
        }
        c->n[L] = n;
        if (log) fprintf(log, "SpMV check of the overlap rule of %s: HPCG %d^3\n", m->level[L].name, n);
        if (check_level(&work, L, c)) {
            st = -1;
            break;
        }
        for (int q = 0; q < 3; q++) c->err[L][q] = check_error(c->pred[L][q], c->meas[L]);
        const int best = bench_check_choose(c->err[L], c->stream_rule[L]);
        c->rule[L] = best;
        work.level[L].overlap = (spmv_overlap)best;
        if (c->bw[L][best] > 0) work.level[L].upstream_bw = c->bw[L][best];
    }
    if (r->pinned == 1) bench_affinity_restore();
    if (st) return -1;
    *m = work;
    c->done = 1;
    return 0;
}
