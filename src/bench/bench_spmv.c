/* The SpMV check of spmv-machine's overlap rules (bench.h: bench_spmv_check). The streaming kernels choose each
 * level's overlap rule (bench_overlap_fit, Alappat et al., PMBS 2020, Sect. III-A), but SpMV is not a stream: its core
 * time is mostly gathers and index loads, and whether those overlap with the transfers from a level is exactly what the
 * rule says. On the Intel Xeon VM (2026-12-03) the streams chose "full" at L2 while SpMV with its data in L2 ran at the
 * "a64fx-partial" prediction (HPCG 16^3, SELL-8-1, 1 thread: measured 10-11 Gflop/s; the model 21.8 under full, 11.8
 * under a64fx-partial). So each level's rule is checked on the library's own kernels: CRS, SELL-8-1 and SELL-32-1 (the
 * kernels the library picks on this CPU) on one thread, on an HPCG n^3 matrix whose data set lies in that level (half
 * the level's effective size; eight times the last cache's for memory; n at most BENCH_CHECK_MAX_N, and memory is not
 * checked when that is less than 4x the last cache; the SELL matrices there plain, with ordinary y stores, since the
 * compressed forms would put the data in the last cache; the cost of non-temporal ones is fitted after, check_nt). Each rule is
 * scored by the library's model (spmv_model_crs / spmv_model_sell) at its own upstream bandwidth, calibrated on the
 * read-only stream with the rules already chosen below; the error is the mean |log(predicted/measured)| over the three
 * kernels, and bench_check_choose picks the rule. For memory each rule's bandwidth is then fitted on the three kernels
 * (bench_min_log, between a quarter of the stream's and the stream's): a core that stores y while it reads gets less
 * than the read-only stream's bandwidth (Zen 5 VM 2026-12-06: 22-31 GB/s read with one store per 2-16 loads against 39
 * for the read alone, a scratch program). Level by level from L2 outwards. */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int bench_check_retry(const double err[3], int tries, int max_tries)
{
    if (tries >= max_tries || tries >= BENCH_CHECK_TRIES) return 0;
    int finite = 0; /* none: no rule could be calibrated, which another measurement does not change */
    for (int q = 0; q < 3; q++)
        if (isfinite(err[q])) {
            if (err[q] <= BENCH_CHECK_RETRY_ERR) return 0;
            finite = 1;
        }
    return finite;
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

/* nk matrices (S[k], or A where S[k] is NULL) timed in `rounds` interleaved rounds on an x of fixed values, the best
 * Gflop/s of each into meas[k] (a moment of interference on a shared machine slows one round, not all); SPMV_OK or
 * SPMV_ERR_NOMEM (x, y) */
static spmv_status check_rounds(const spmv_crs *A, spmv_sell *const *S, int nk, int rounds, double *meas)
{
    double *x = NULL, *y = NULL;
    spmv_status st = spmv_vec_alloc(A->cols, &x);
    if (!st) st = spmv_vec_alloc(A->rows, &y);
    if (!st) {
        for (int32_t i = 0; i < A->cols; i++) x[i] = 1.0 + (double)(i % 7) / 8.0;
        for (int round = 0; round < rounds; round++)
            for (int k = 0; k < nk; k++) {
                const double sec = check_time(A, S[k], x, y), g = sec > 0 ? 2.0 * (double)A->nnz / sec * 1e-9 : 0;
                if (g > meas[k]) meas[k] = g;
            }
    }
    spmv_vec_free(x);
    spmv_vec_free(y);
    return st;
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

/* the prediction of matrix A (or S for SELL) on machine mq, 1 thread, Gflop/s (0: the model failed) */
static double check_model(const spmv_machine *mq, const spmv_crs *A, const spmv_sell *S)
{
    spmv_model md;
    spmv_model_opts mo = spmv_model_opts_default();
    return (S ? spmv_model_sell(S, NULL, mq, 1, &mo, &md) : spmv_model_crs(A, NULL, mq, 1, &mo, &md)) ? 0.0
                                                                                                      : md.predicted;
}

/* level L's kernels under one rule at a bandwidth: what bench_min_log minimizes when memory's is fitted */
typedef struct check_fit {
    spmv_machine m; /* with the rule set at level L */
    int L;
    const spmv_crs *A;
    spmv_sell *const *S;
    const double *meas;
    double pred[BENCH_CHECK_KERNELS];
} check_fit;

static double check_fit_error(double bw, void *arg)
{
    check_fit *f = arg;
    f->m.level[f->L].upstream_bw = bw;
    for (int k = 0; k < BENCH_CHECK_KERNELS; k++) f->pred[k] = check_model(&f->m, f->A, k ? f->S[k] : NULL);
    return check_error(f->pred, f->meas);
}

/* the predictions of level L's kernels under each rule: at the stream's bandwidth, for memory at the one fitted on
 * the kernels (at most the stream's) */
static void check_predict(const spmv_machine *work, int L, const spmv_crs *A, spmv_sell *const *S, bench_check *c)
{
    for (int k = 0; k < BENCH_CHECK_KERNELS; k++)
        snprintf(c->kernel[L][k], sizeof c->kernel[L][k], "%s",
                 k ? spmv_sell_kernel_name(S[k]) : spmv_crs_kernel_name(A));
    for (int q = 0; q < 3; q++) {
        if (!(c->bw[L][q] > 0)) continue; /* the stream could not calibrate this rule */
        check_fit f = {*work, L, A, S, c->meas[L], {0}};
        f.m.level[L].overlap = (spmv_overlap)q;
        if (L == work->nlevels - 1) c->bw[L][q] = bench_min_log(check_fit_error, &f, 0.25 * c->bw[L][q], c->bw[L][q]);
        (void)check_fit_error(c->bw[L][q], &f);
        for (int k = 0; k < BENCH_CHECK_KERNELS; k++) c->pred[L][q][k] = f.pred[k];
    }
}

double bench_min_log(double (*f)(double x, void *arg), void *arg, double lo, double hi)
{
    if (!f || !(lo > 0) || !(hi >= lo) || !isfinite(hi)) return lo;
    const double a = log(lo), step = (log(hi) - a) / (BENCH_MIN_GRID - 1);
    double v[BENCH_MIN_GRID];
    int best = 0;
    for (int i = 0; i < BENCH_MIN_GRID; i++) {
        const double y = f(i == BENCH_MIN_GRID - 1 ? hi : exp(a + step * i), arg);
        v[i] = isnan(y) ? INFINITY : y;
        if (v[i] < v[best]) best = i;
    }
    if (!(step > 0)) return lo;
    /* golden section between the neighbours, in log x */
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double l = a + step * (best > 0 ? best - 1 : 0), h = a + step * (best < BENCH_MIN_GRID - 1 ? best + 1 : best);
    double xb = a + step * best, vb = v[best];
    double p = h - g * (h - l), q = l + g * (h - l);
    double fp = f(exp(p), arg), fq = f(exp(q), arg);
    while (h - l > 5e-4) {
        if (isnan(fp)) fp = INFINITY;
        if (isnan(fq)) fq = INFINITY;
        if (fp <= fq) {
            h = q, q = p, fq = fp, p = h - g * (h - l);
            fp = f(exp(p), arg);
        } else {
            l = p, p = q, fp = fq, q = l + g * (h - l);
            fq = f(exp(q), arg);
        }
        if (fp < vb) vb = fp, xb = p;
        if (fq < vb) vb = fq, xb = q;
    }
    const double x = exp(xb);
    return x < lo ? lo : x > hi ? hi : x;
}

/* one level: HPCG n^3 (n = c->n[L]) in CRS, SELL-8-1 and SELL-32-1, measured in BENCH_CHECK_ROUNDS interleaved rounds
 * (the best per kernel: a moment of interference on a shared machine slows one round, not all) and predicted; 0, or
 * -1 (out of memory) */
static int check_level(const spmv_machine *work, int L, bench_check *c)
{
    spmv_crs *A = NULL;
    spmv_sell *S[BENCH_CHECK_KERNELS] = {NULL, NULL, NULL}; /* S[0] unused: CRS */
    const int n = c->n[L];
    spmv_status st = spmv_gen_hpcg(n, n, n, &A);
    if (!st) st = spmv_crs_set_threads(A, 1);
    for (int k = 1; k < BENCH_CHECK_KERNELS && !st; k++) {
        spmv_sell_opts so = spmv_sell_opts_default();
        so.nthreads = 1;
        so.C = k == 1 ? 8 : 32;
        if (L == work->nlevels - 1) {
            /* memory: plain 12 bytes per entry, so that the data set is where the level says (HPCG 80^3 with the
             * defaults' run columns and value indices takes 31 MB, 87 % of it in a 27 MiB L3), with y by ordinary
             * stores: the bandwidth is fitted on the stores the model charges as declared, the cost of the
             * non-temporal ones after it (check_nt) */
            so.runs = 0, so.idx16 = 0, so.vidx = 0, so.nt_stores = 0;
        }
        st = spmv_sell_from_crs(A, &so, &S[k]);
    }
    if (!st) st = check_rounds(A, S, BENCH_CHECK_KERNELS, BENCH_CHECK_ROUNDS, c->meas[L]);
    if (!st) {
        c->mb[L] = ((double)A->nnz * 12.0 + (double)A->rows * 16.0) * 1e-6;
        check_predict(work, L, A, S, c);
    }
    for (int k = 1; k < BENCH_CHECK_KERNELS; k++) spmv_sell_free(S[k]);
    spmv_crs_free(A);
    return st ? -1 : 0;
}

/* the error of the streaming-store pair at a cost f: |log| of the predicted over the measured ratio of the two */
typedef struct nt_fit {
    spmv_machine m;
    const spmv_sell *S; /* the matrix with non-temporal y stores */
    double meas[2], pred[2]; /* [0] ordinary stores (its prediction does not depend on the cost), [1] streaming */
} nt_fit;
static double nt_fit_error(double f, void *arg)
{
    nt_fit *q = arg;
    q->m.nt_store_cost = f;
    q->pred[1] = check_model(&q->m, NULL, q->S);
    if (!(q->pred[0] > 0 && q->pred[1] > 0)) return INFINITY;
    return fabs(log((q->pred[1] / q->pred[0]) / (q->meas[1] / q->meas[0])));
}

/* The cost of non-temporal y stores (spmv_machine.nt_store_cost): a 2D five-point Laplacian of 8x the last cache
 * (about 30 bytes per row in the default compressed SELL-32-1: y a quarter to a third of them; BENCH_NT_NX^2 at most,
 * not run when that is less than 4x the last cache), SELL-32-1 with ordinary and with non-temporal y stores on 1
 * thread, 2 x BENCH_CHECK_ROUNDS interleaved rounds (the best per kernel), the cost fitted so that the model's ratio of
 * the two equals the measured one; 1 where the predictions do not move with it (the memory's writes hidden by the
 * overlap rule), or where no cost fits better. c->nt_cost stays 0 (not fitted) where the family has no
 * streaming-store kernel, SPMV_SELL_NT forces one kind on both matrices, the model fails or memory runs out. */
static void check_nt(const spmv_machine *work, bench_check *c)
{
    const int L = work->nlevels - 1;
    const double llc = (double)level_size(&work->level[L - 1]);
    int nx = (int)ceil(sqrt(8.0 * llc / BENCH_NT_ROW_BYTES));
    if (nx > BENCH_NT_NX) nx = BENCH_NT_NX;
    if (nx < 64) nx = 64;
    if (BENCH_NT_ROW_BYTES * (double)nx * nx < 4.0 * llc) return; /* mostly in the last cache */
    spmv_crs *A = NULL;
    spmv_sell *S[2] = {NULL, NULL};
    spmv_kernel_shape ks[2] = {{0}, {0}};
    spmv_status st = spmv_gen_laplace2d(nx, nx, &A);
    if (!st) st = spmv_crs_set_threads(A, 1);
    for (int k = 1; k >= 0 && !st; k--) { /* the streaming one first: a family without it stops here */
        spmv_sell_opts so = spmv_sell_opts_default();
        so.nthreads = 1, so.C = 32, so.nt_stores = k;
        st = spmv_sell_from_crs(A, &so, &S[k]);
        if (!st) st = spmv_sell_kernel_shape(S[k], &ks[k]);
        if (!st) snprintf(c->nt_kernel[k], sizeof c->nt_kernel[k], "%s", spmv_sell_kernel_name(S[k]));
        if (!st && k == 1 && !ks[1].nt) break;
    }
    c->nt_nx = st ? 0 : nx;
    c->nt_available = !st && ks[1].nt && !ks[0].nt; /* SPMV_SELL_NT=1 gives both the streaming kernel */
    if (c->nt_available && !check_rounds(A, S, 2, 2 * BENCH_CHECK_ROUNDS, c->nt_meas)) {
        nt_fit q = {*work, S[1], {c->nt_meas[0], c->nt_meas[1]}, {check_model(work, NULL, S[0]), 0}};
        const double e1 = nt_fit_error(1.0, &q);
        c->nt_pred1 = q.pred[1];
        if (isfinite(e1)) {
            double f = bench_min_log(nt_fit_error, &q, BENCH_NT_COST_MIN, BENCH_NT_COST_MAX);
            /* a flat stretch (the writes hidden by the rule) ties at its lowest cost: keep the declared bytes then */
            if (!(nt_fit_error(f, &q) < e1 - 1e-9)) f = 1.0;
            (void)nt_fit_error(f, &q);
            c->nt_cost = f;
            c->nt_pred[0] = q.pred[0], c->nt_pred[1] = q.pred[1];
        }
    }
    for (int k = 0; k < 2; k++) spmv_sell_free(S[k]);
    spmv_crs_free(A);
}

int bench_spmv_check(const bench_results *r, const bench_fit *fit, spmv_machine *m, bench_check *c, int max_tries,
                     FILE *log)
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
        for (int q = 0; q < 3; q++) c->stream_bw[L][q] = c->bw[L][q];
        if (L == m->nlevels - 1) {
            /* capped at BENCH_CHECK_MAX_N: mostly in the last cache */
            if (350.0 * n * n * n < 4.0 * (double)level_size(&m->level[L - 1])) {
                if (log) fprintf(log, "SpMV check of %s skipped: HPCG %d^3 is less than 4x the last cache\n",
                                 m->level[L].name, n);
                if (c->bw[L][c->rule[L]] > 0) work.level[L].upstream_bw = c->bw[L][c->rule[L]];
                continue;
            }
        }
        c->n[L] = n;
        if (log) fprintf(log, "SpMV check of the overlap rule of %s: HPCG %d^3\n", m->level[L].name, n);
        for (c->tries[L] = 1;; c->tries[L]++) {
            if (check_level(&work, L, c)) {
                st = -1;
                break;
            }
            for (int q = 0; q < 3; q++) c->err[L][q] = check_error(c->pred[L][q], c->meas[L]);
            if (!bench_check_retry(c->err[L], c->tries[L], max_tries)) break;
            if (log)
                fprintf(log, "  every rule %.3f or more off: measured again in %d s (a host's slow phase?)\n",
                        fmin(c->err[L][0], fmin(c->err[L][1], c->err[L][2])), BENCH_CHECK_PAUSE_S);
            /* the next try adds its rounds to the best (c->meas); memory's fit starts again from the stream's */
            for (int q = 0; q < 3; q++) c->bw[L][q] = c->stream_bw[L][q];
            const struct timespec pause = {BENCH_CHECK_PAUSE_S, 0};
            nanosleep(&pause, NULL);
        }
        if (st) break;
        const int best = bench_check_choose(c->err[L], c->stream_rule[L]);
        c->rule[L] = best;
        work.level[L].overlap = (spmv_overlap)best;
        if (c->bw[L][best] > 0) work.level[L].upstream_bw = c->bw[L][best];
    }
    /* the streaming stores' cost, at the memory's bandwidth and rule just chosen */
    if (!st && c->n[m->nlevels - 1]) {
        check_nt(&work, c); /* optional: what it cannot do leaves the cost unset, the rules stand */
        if (c->nt_cost > 0) work.nt_store_cost = c->nt_cost;
        if (log && c->nt_cost > 0)
            fprintf(log, "SpMV check of non-temporal y stores: 2D Laplacian %d^2, %.3f Gflop/s with them, %.3f "
                         "without: cost %.3g\n", c->nt_nx, c->nt_meas[1], c->nt_meas[0], c->nt_cost);
    }
    if (r->pinned == 1) bench_affinity_restore();
    if (st) return -1;
    *m = work;
    c->done = 1;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- length branches */

/* A CRS matrix of `rows` rows of len[i] entries each (at most BENCH_LB_MAXLEN), consecutive columns from a random
 * start in an x of BENCH_LB_COLS (8 KiB: in L1), one thread */
enum { BENCH_LB_MINROWS_LOG2 = 10, BENCH_LB_MAXROWS_LOG2 = 17, BENCH_LB_COLS = 1024, BENCH_LB_MAXLEN = 16 };
static spmv_status lb_matrix(int32_t rows, const int32_t *len, uint64_t seed, spmv_crs **A)
{
    int64_t *rp = malloc(sizeof *rp * ((size_t)rows + 1));
    int32_t *col = malloc(sizeof *col * (size_t)rows * BENCH_LB_MAXLEN);
    spmv_status st = SPMV_ERR_NOMEM;
    if (rp && col) {
        rp[0] = 0;
        for (int32_t i = 0; i < rows; i++) {
            const int32_t start = (int32_t)(bench_rand(&seed) % (BENCH_LB_COLS - BENCH_LB_MAXLEN));
            for (int32_t j = 0; j < len[i]; j++) col[rp[i] + j] = start + j;
            rp[i + 1] = rp[i] + len[i];
        }
        st = spmv_crs_from_arrays(rows, BENCH_LB_COLS, rp, col, NULL, A);
        if (!st) st = spmv_crs_set_threads(*A, 1);
    }
    free(rp);
    free(col);
    return st;
}

/* cy per change at `rows` rows (lengths at random against sorted), NAN when it cannot run */
static double lb_point(int32_t rows, double clock_ghz, int32_t *len, const double *x, double *y, const char **kname)
{
    spmv_crs *A[2] = {NULL, NULL};
    double best[2] = {INFINITY, INFINITY}, ch[2] = {0, 0}, cy = NAN;
    int32_t count[BENCH_LB_MAXLEN + 1] = {0};
    uint64_t s = 0x5eed1e9 + (uint64_t)rows;
    for (int32_t i = 0; i < rows; i++) count[len[i] = 1 + (int32_t)(bench_rand(&s) % BENCH_LB_MAXLEN)]++;
    spmv_status st = lb_matrix(rows, len, 77, &A[0]);
    for (int32_t l = 1, i = 0; l <= BENCH_LB_MAXLEN; l++) /* the same rows in order of length */
        for (int32_t c = 0; c < count[l]; c++) len[i++] = l;
    if (!st) st = lb_matrix(rows, len, 77, &A[1]);
    spmv_kernel_shape k;
    for (int i = 0; i < 2 && !st; i++)
        if (!(st = spmv_crs_kernel_shape(A[i], &k))) st = spmv_crs_len_branch_changes(&k, A[i], &ch[i]);
    if (!st && ch[0] > ch[1]) {
        *kname = spmv_crs_kernel_name(A[0]);
        for (int round = 0; round < 3; round++) /* interleaved: a host's phase touches both alike */
            for (int i = 0; i < 2; i++) {
                const double t = check_time(A[i], NULL, x, y);
                if (t < best[i]) best[i] = t;
            }
        cy = (best[0] - best[1]) * clock_ghz * 1e9 / (double)rows / (ch[0] - ch[1]);
        if (!isfinite(cy)) cy = NAN;
    }
    spmv_crs_free(A[0]);
    spmv_crs_free(A[1]);
    return cy;
}

void bench_len_branch_fit(const double *pc, int np, int log2_first, double *cy, double *learned, double *missed)
{
    *cy = *learned = *missed = 0;
    if (np < 1 || np > 64 || !(pc[np - 1] > 0)) return;
    /* learned: the sizes from the smallest on below a tenth of the largest's cost; missed: the first larger one at
     * 0.9 of it or more; the cost: the median of the sizes from there on */
    const double c = pc[np - 1];
    int lo = -1, hi = np - 1;
    while (lo + 1 < np && pc[lo + 1] <= 0.1 * c) lo++;
    for (int p = np - 1; p > lo; p--)
        if (pc[p] >= 0.9 * c) hi = p;
    double v[64];
    int nv = 0;
    for (int p = hi; p < np; p++) { /* insertion in order */
        int j = nv++;
        for (; j > 0 && v[j - 1] > pc[p]; j--) v[j] = v[j - 1];
        v[j] = pc[p];
    }
    *cy = nv % 2 ? v[nv / 2] : 0.5 * (v[nv / 2 - 1] + v[nv / 2]);
    *learned = lo >= 0 ? (double)((int64_t)1 << (log2_first + lo)) : 0.0;
    *missed = lo >= 0 ? (double)((int64_t)1 << (log2_first + hi)) : 0.0;
}

void bench_len_branch(double clock_ghz, double *cy, double *learned, double *missed, FILE *log)
{
    enum { NP = BENCH_LB_MAXROWS_LOG2 - BENCH_LB_MINROWS_LOG2 + 1 };
    const int32_t maxrows = (int32_t)1 << BENCH_LB_MAXROWS_LOG2;
    int32_t *len = malloc(sizeof *len * (size_t)maxrows);
    double *x = NULL, *y = NULL, pc[NP];
    const char *kname = "?";
    const double t0 = bench_now();
    *cy = *learned = *missed = 0;
    spmv_status st = len ? SPMV_OK : SPMV_ERR_NOMEM;
    if (!st) st = spmv_vec_alloc(BENCH_LB_COLS, &x);
    if (!st) st = spmv_vec_alloc(maxrows, &y);
    int ok = !st;
    if (ok) {
        for (int32_t i = 0; i < BENCH_LB_COLS; i++) x[i] = 1.0 + (double)(i % 7) / 8.0;
        for (int p = 0; p < NP && ok; p++) {
            pc[p] = lb_point((int32_t)1 << (BENCH_LB_MINROWS_LOG2 + p), clock_ghz, len, x, y, &kname);
            ok = isfinite(pc[p]);
        }
    }
    if (ok) bench_len_branch_fit(pc, NP, BENCH_LB_MINROWS_LOG2, cy, learned, missed);
    if (log) {
        fprintf(log, "length branches (%s, rows of 1-%d entries at random against sorted, cy per change):", kname,
                BENCH_LB_MAXLEN);
        for (int p = 0; ok && p < NP; p++) fprintf(log, " %d rows %.1f", 1 << (BENCH_LB_MINROWS_LOG2 + p), pc[p]);
        if (*cy > 0 && *learned > 0)
            fprintf(log, "; %.1f cy, learned up to %.0f rows, all missed from %.0f (%.1f s)\n", *cy, *learned, *missed,
                    bench_now() - t0);
        else if (*cy > 0)
            fprintf(log, "; %.1f cy, none learned (%.1f s)\n", *cy, bench_now() - t0);
        else
            fprintf(log, " not measured (%s): not charged\n",
                    st ? spmv_strerror(st) : ok ? "no cost" : "the kernel declares no length branch, or no timing");
    }
    spmv_vec_free(x);
    spmv_vec_free(y);
    free(len);
}
