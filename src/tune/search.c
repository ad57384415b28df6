/* spmv_tune: the search over C, sigma, RCM and thread count, bounded in time, checked against a reference loop and
 * reported against the model (roofline and ECM, Alappat et al., PMBS 2020, Sect. III-IV).
 *
 * Staged search (default): CRS at the largest thread count T (the baseline); SELL for every fast C at its model
 * default sigma; the sigma list at the best C; the sigma list with RCM at that C; then the thread counts 1, 2, 4, ...
 * T for the best configuration and for CRS. Full search: every C x sigma x RCM at T, then the threads. Before a
 * point is built, the model may prune it (spmv_tune_prune: its memory-traffic bound cannot beat the best point;
 * or its padding equals that of a smaller window already measured), and a point whose estimated cost does not fit
 * in the budget is skipped. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "kernel.h"
#include "tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

spmv_tune_opts spmv_tune_opts_default(void)
{
    spmv_tune_opts o;
    memset(&o, 0, sizeof o);
    o.budget = 30;
    o.run_time = 0.1;
    o.runs = 5;
    o.max_threads = 0;
    o.rcm = 1;
    o.permuted = 0;
    o.full = 0;
    o.C_list = NULL;
    o.nC = 0;
    o.machine = NULL;
    o.bw = SPMV_BW_MIX;
    o.alpha = -1;
    o.prune_margin = 0.10;
    o.max_stored_factor = 2.0;
    o.record = NULL;
    o.label = NULL;
    o.progress = NULL;
    o.ctx = NULL;
    return o;
}

void spmv_tune_result_free(spmv_tune_result *r)
{
    if (!r) return;
    spmv__free(r->points);
    r->points = NULL;
    r->npoints = 0;
}

/* ---------------------------------------------------------------------------------------------- context */

typedef struct tctx {
    const spmv_crs *A;
    const spmv_tune_opts *o;
    spmv_tune_result *r;
    double t0;
    int32_t T;                     /* largest thread count */
    int square;
    double *x, *xp, *y, *yo;       /* x; x in the permuted order; y; y back in the original order */
    double *yref, *absax;          /* reference y = A x and (|A||x|)_i */
    int32_t planned, done;
    spmv_sell *bestS;              /* best SELL at T so far */
    int bestidx;                   /* its point */
    double best;                   /* its Gflop/s */
    double est_conv, est_conv_rcm; /* s, measured conversion times (0: none yet) */
    double est_mv;                 /* s per multiply (CRS at T) */
    double reserve;                /* s kept for the thread sweep */
    int32_t *rcm_order;            /* RCM order for predictions (NULL: not known yet) */
    int32_t nvals[2];              /* A's distinct values without / with +0.0 (the padding's), at most
                                      SPMV_VTAB_MAX + 1 (-1: not counted yet) */
    double run_share[7];           /* share of A's entries in run columns at C = 2^k, k < 7, sigma 1 (-1: not yet) */
    int nt_timed;                  /* 1: the non-temporal-store variant was measured (stage 8, the last variant of the
                                      configuration chosen): the choice's y stores were timed both ways */
} tctx;

static double elapsed(const tctx *c) { return now() - c->t0; }

static void report(tctx *c, const spmv_tune_point *p)
{
    if (c->o->progress) c->o->progress(c->o->ctx, p, c->done, c->planned, elapsed(c), c->o->budget);
}

static spmv_status add_point(tctx *c, const spmv_tune_point *p, int32_t *idx)
{
    spmv_tune_result *r = c->r;
    if ((r->npoints & (r->npoints - 1)) == 0) { /* grow at powers of two */
        size_t cap = r->npoints ? 2 * (size_t)r->npoints : 8;
        spmv_tune_point *np = spmv__malloc(cap * sizeof *np);
        if (!np) return spmv__error(SPMV_ERR_NOMEM, "spmv_tune: out of memory for %zu points", cap);
        if (r->npoints) memcpy(np, r->points, (size_t)r->npoints * sizeof *np);
        spmv__free(r->points);
        r->points = np;
    }
    r->points[r->npoints] = *p;
    *idx = r->npoints++;
    return SPMV_OK;
}

/* A CRS view of A with its own thread partition (the arrays are borrowed, never freed through it); *part holds
 * part and split (free it alone). */
static spmv_status crs_view(const spmv_crs *A, int32_t n, spmv_crs *v, int32_t **part)
{
    *v = *A;
    v->owns = 0;
    /* one block: split (n+1 int64, 8-byte aligned at the start), then part (n+1 int32) */
    *part = spmv__malloc(((size_t)n + 1) * (sizeof(int64_t) + sizeof(int32_t)));
    if (!*part) return spmv__error(SPMV_ERR_NOMEM, "spmv_tune: out of memory for a partition of %d parts", n);
    v->split = (int64_t *)(void *)*part;
    v->part = (int32_t *)(void *)(v->split + n + 1);
    spmv__merge_partition(A->rowptr, A->rows, n, v->part, v->split);
    v->nparts = n;
    return SPMV_OK;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void mv(const spmv_crs *A, const spmv_sell *S, const double *x, double *y)
{
    if (S) spmv_sell_mv(S, 1.0, x, 0.0, y);
    else spmv_crs_mv(A, 1.0, x, 0.0, y);
}

/* check one multiply against the reference; returns max |y - y_ref| / (|A||x|)_i (inf on a NaN/Inf mismatch) */
static double check(tctx *c, const spmv_crs *A, const spmv_sell *S, double *t_first)
{
    const int perm = S && S->permuted;
    if (perm && c->square) spmv_sell_permute_vec(S, c->x, c->xp); /* x in the order of S (timing reuses it) */
    const double *x = perm && c->square ? c->xp : c->x;
    double t = now();
    mv(A, S, x, c->y);
    *t_first = now() - t;
    const double *y = c->y;
    if (perm) {
        spmv_sell_unpermute_vec(S, c->y, c->yo);
        y = c->yo;
    }
    double worst = 0;
    for (int32_t i = 0; i < c->A->rows; i++) {
        double s = c->yref[i];
        if (!isfinite(s) || !isfinite(y[i])) {
            if (!(isnan(s) && isnan(y[i])) && s != y[i]) return INFINITY;
            continue;
        }
        double e = fabs(y[i] - s);
        if (e > 0) {
            double rel = c->absax[i] > 0 ? e / c->absax[i] : INFINITY;
            if (rel > worst) worst = rel;
        }
    }
    return worst;
}

/* One timed run: multiplies until at least `target` seconds have passed (the clock is read after batches that grow
 * to about target/50, so a run overshoots by at most a few percent whatever one multiply costs, also when other
 * processes slow it down). Returns seconds per multiply. */
static double run_for(const spmv_crs *A, const spmv_sell *S, const double *x, double *y, double target)
{
    long n = 0, b = 1;
    const double t0 = now();
    double el;
    for (;;) {
        for (long i = 0; i < b; i++) mv(A, S, x, y);
        n += b;
        el = now() - t0;
        if (el >= target) break;
        if (el < target / 50 && b < (1L << 24)) b *= 2;
    }
    return el / (double)n;
}

static double median(double *t, int32_t n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_dbl);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* slowest / fastest of n times (1 for one run) */
static double spread_of(const double *t, int32_t n)
{
    double lo = t[0], hi = t[0];
    for (int32_t k = 1; k < n; k++) {
        if (t[k] < lo) lo = t[k];
        if (t[k] > hi) hi = t[k];
    }
    return lo > 0 ? hi / lo : 1;
}

/* median seconds per multiply over the runs (one warm-up multiply first); runs that differ by more than
 * SPMV_TUNE_NOISY are timed once more and the steadier set counts; *spread: its slowest / fastest */
static double timing(tctx *c, const spmv_crs *A, const spmv_sell *S, double *spread)
{
    const double *x = S && S->permuted && c->square ? c->xp : c->x;
    int32_t runs = c->o->runs < 64 ? c->o->runs : 64;
    double ts[64], again[64] = {0};
    mv(A, S, x, c->y);
    for (int32_t k = 0; k < runs; k++) ts[k] = run_for(A, S, x, c->y, c->o->run_time);
    *spread = spread_of(ts, runs);
    if (*spread > SPMV_TUNE_NOISY) {
        for (int32_t k = 0; k < runs; k++) again[k] = run_for(A, S, x, c->y, c->o->run_time);
        const double s2 = spread_of(again, runs);
        if (s2 < *spread) {
            memcpy(ts, again, (size_t)runs * sizeof *ts);
            *spread = s2;
        }
    }
    return median(ts, runs);
}

/* "noisy: ..." in front of the note of a point whose runs still differ by more than SPMV_TUNE_NOISY */
static void mark_noisy(spmv_tune_point *p)
{
    if (!(p->spread > SPMV_TUNE_NOISY) || !strncmp(p->note, "noisy", 5)) return;
    char old[sizeof p->note];
    snprintf(old, sizeof old, "%s", p->note);
    snprintf(p->note, sizeof p->note, "noisy: runs differ %.1fx also when repeated%s%.80s", p->spread,
             old[0] ? "; " : "", old);
}

/* p timed again at t seconds per multiply with runs spread `spread`: its Gflop/s, GB/s and model scores follow */
static void set_time(const tctx *c, spmv_tune_point *p, double t, double spread)
{
    if (p->t_spmv > 0) p->gbs *= p->t_spmv / t;
    p->t_spmv = t;
    p->spread = spread;
    p->gflops = 2.0 * (double)c->A->nnz / t * 1e-9;
    p->pct = p->roofline > 0 ? 100.0 * p->gflops / p->roofline : 0;
    p->ecm_err = p->ecm > 0 ? 100.0 * (p->ecm - p->gflops) / p->gflops : 0;
}

/* the "noisy: ..." prefix of p's note removed (what followed it kept) */
static void unmark_noisy(spmv_tune_point *p)
{
    if (strncmp(p->note, "noisy", 5)) return;
    const char *rest = strstr(p->note, "; ");
    const size_t n = rest ? strlen(rest + 2) : 0;
    memmove(p->note, rest ? rest + 2 : p->note, n);
    p->note[n] = '\0';
}

/* why a point is skipped: "time budget: needs about X s, Y s left" (or "no time left": never a negative time) */
static void budget_note(char *note, size_t size, double cost, double left)
{
    if (left > 0.05) snprintf(note, size, "time budget: needs about %.1f s, %.1f s left", cost, left);
    else snprintf(note, size, "time budget: needs about %.1f s, no time left", cost);
}

/* estimated seconds of timing a point */
static double cost_timing(const tctx *c)
{
    double mvt = c->est_mv > 0 ? c->est_mv : 0;
    double run = c->o->run_time > mvt ? c->o->run_time : mvt;
    return (double)(c->o->runs + 1) * run + 3 * mvt;
}

/* the model's limits for a measured point at p->nthreads threads (alpha: the point's, or the policy) */
static void model_point(tctx *c, const spmv_crs *A, const spmv_sell *S, spmv_tune_point *p, double alpha)
{
    const spmv_machine *m = c->o->machine;
    if (!m) return;
    spmv_model_opts mo = spmv_model_opts_default();
    mo.bw = c->o->bw;
    mo.max_accesses = 1000000; /* each alpha simulation sampled in about 30-50 ms: the model runs for every point */
    if (alpha >= 0) mo.alpha = alpha;
    else if (c->o->alpha >= 0) mo.alpha = c->o->alpha;
    spmv_model md;
    spmv_status st = S ? spmv_model_sell(S, NULL, m, p->nthreads, &mo, &md)
                       : spmv_model_crs(A, NULL, m, p->nthreads, &mo, &md);
    if (st) {
        snprintf(p->note, sizeof p->note, "model: %s", spmv_last_error());
        spmv__clear_error();
        return;
    }
    p->alpha = md.alpha.alpha;
    p->roofline = md.roofline;
    p->ecm = md.predicted;
    p->limit = md.roofline; /* the bound */
    spmv_model_score(&md, p->gflops, &p->pct, &p->ecm_err);
    p->gbs = md.bytes / p->t_spmv * 1e-9;
    /* a data set that fits in the caches (effective sizes) is not bounded by memory: the roofline is the caches' */
    if (md.in_cache && !p->note[0])
        snprintf(p->note, sizeof p->note, "in cache: %.3g MB in the effective caches, the roofline is theirs",
                 md.ws * 1e-6);
}

static void finish_measure(tctx *c, const spmv_crs *A, const spmv_sell *S, spmv_tune_point *p, double alpha)
{
    double tf = 0;
    p->err = check(c, A, S, &tf);
    if (!(p->err <= 1e-12)) {
        p->state = SPMV_TUNE_FAILED;
        snprintf(p->note, sizeof p->note, "result check failed: max |y - y_ref| / (|A||x|) = %.3g > 1e-12", p->err);
        return;
    }
    (void)tf;
    p->t_spmv = timing(c, A, S, &p->spread);
    p->gflops = p->t_spmv > 0 ? 2.0 * (double)c->A->nnz / p->t_spmv * 1e-9 : 0;
    /* declared traffic at alpha_min, replaced by the model's when there is one */
    spmv_traffic tr;
    if (S) spmv_sell_traffic(S, &tr);
    else spmv_crs_traffic(A, &tr);
    double bytes = spmv_traffic_bytes(&tr, p->stored, c->A->nnz, c->A->rows, S ? S->nchunks : 0,
                                      (double)c->A->cols / (double)c->A->nnz);
    p->alpha = (double)c->A->cols / (double)c->A->nnz;
    p->gbs = p->t_spmv > 0 ? bytes / p->t_spmv * 1e-9 : 0;
    snprintf(p->kernel, sizeof p->kernel, "%s", S ? spmv_sell_kernel_name(S) : spmv_crs_kernel_name(A));
    p->state = SPMV_TUNE_MEASURED;
    model_point(c, A, S, p, alpha);
    mark_noisy(p);
}

/* ---------------------------------------------------------------------------------------------- points */

static spmv_status crs_point(tctx *c, int32_t n, int32_t stage, int force, int32_t *idx_out)
{
    spmv_tune_point p;
    memset(&p, 0, sizeof p);
    p.stage = stage;
    p.is_crs = 1;
    p.nthreads = n;
    p.stored = c->A->nnz;
    p.beta = 1;
    p.state = SPMV_TUNE_RUNNING;
    report(c, &p);
    double cost = cost_timing(c);
    if (!force && elapsed(c) + cost > c->o->budget) {
        p.state = SPMV_TUNE_SKIPPED;
        budget_note(p.note, sizeof p.note, cost,
                 c->o->budget - elapsed(c));
    } else {
        spmv_crs v;
        int32_t *part = NULL;
        spmv_status st = crs_view(c->A, n, &v, &part);
        if (st) return st;
        finish_measure(c, &v, NULL, &p, -1);
        spmv__free(part);
    }
    c->done++;
    report(c, &p);
    return add_point(c, &p, idx_out);
}

/* The RCM order for the predictions of RCM points, taken for free from the first RCM build with sigma = 1 (its
 * permutation is the RCM order itself); until then RCM points are not predicted (no RCM computed only for that). */
static void keep_rcm_order(tctx *c, const spmv_sell *S)
{
    if (c->rcm_order || S->sigma != 1) return;
    c->rcm_order = spmv__malloc((size_t)S->rows * sizeof *c->rcm_order);
    if (c->rcm_order) memcpy(c->rcm_order, S->perm, (size_t)S->rows * sizeof *c->rcm_order);
}

/* Is a smaller-sigma point with the same C, RCM and stored entries measured already? Returns its sigma or 0. */
static int32_t same_padding(const tctx *c, int32_t C, int32_t sigma, int rcm, int64_t stored)
{
    for (int32_t i = 0; i < c->r->npoints; i++) {
        const spmv_tune_point *q = &c->r->points[i];
        if (q->is_crs || q->state != SPMV_TUNE_MEASURED || q->C != C || q->rcm != rcm || q->sigma >= sigma ||
            q->nthreads != c->T)
            continue;
        if (q->stored == stored) return q->sigma;
    }
    return 0;
}

static int measured_already(const tctx *c, int32_t C, int32_t sigma, int rcm)
{
    for (int32_t i = 0; i < c->r->npoints; i++) {
        const spmv_tune_point *q = &c->r->points[i];
        if (!q->is_crs && q->C == C && q->sigma == sigma && q->rcm == rcm && q->nthreads == c->T &&
            (q->stage < 4 || q->stage == 7))
            return 1;
    }
    return 0;
}

/* A kernel variant of a SELL point, as spmv_sell_opts asks for it: runs (-1: auto), xaccess (SPMV_X_AUTO: the
 * family's choice), idx16, vidx and nt (non-temporal y stores) (-1: auto, 0 off, 1 on) */
typedef enum { V_NONE, V_RUNS, V_XACCESS, V_VIDX, V_IDX16, V_NT } vchange;
typedef struct variant {
    int32_t runs;
    int xaccess, idx16, vidx, nt;
    vchange change; /* stage 8: what differs from the best point it varies */
} variant;
static const variant variant_auto = {-1, SPMV_X_AUTO, -1, -1, -1, V_NONE};

/* the best point p's variant with one change */
static variant variant_of(const spmv_tune_point *p, vchange change)
{
    variant v = {p->runs, p->xaccess, p->idx16, p->vidx, p->nt, change};
    if (change == V_RUNS) v.runs = p->runs > 0 ? 0 : spmv__sell_run_threshold(p->C); /* on: auto's, asked for */
    if (change == V_XACCESS) v.xaccess = p->xaccess == SPMV_X_GATHER ? SPMV_X_EMUL : SPMV_X_GATHER;
    if (change == V_VIDX) v.vidx = !p->vidx;
    if (change == V_IDX16) v.idx16 = !p->idx16;
    if (change == V_NT) v.nt = !p->nt;
    return v;
}

/* the note of a stage-8 point p built as v */
static void variant_note(char *buf, size_t size, const variant *v, const spmv_tune_point *p)
{
    switch (v->change) {
    case V_RUNS:
        snprintf(buf, size, "variant: run columns %s", v->runs == 0 ? "off" : "on");
        break;
    case V_XACCESS:
        snprintf(buf, size, "variant: %s", p->xaccess == SPMV_X_GATHER ? "x access by hardware gather"
                                                                     : "x access emulated");
        break;
    case V_VIDX: snprintf(buf, size, "variant: value indices %s", p->vidx ? "on" : "off"); break;
    case V_IDX16:
        snprintf(buf, size, "variant: 16-bit indices %s%s", p->idx16 ? "on" : "off",
                 v->idx16 == 1 && !p->idx16 ? " (no chunk's columns span < 65536)" : "");
        break;
    case V_NT: snprintf(buf, size, "variant: non-temporal stores %s", p->nt ? "on" : "off"); break;
    case V_NONE: break;
    }
}

/* A's distinct values, +0.0 counted when zero = 1 (spmv__sell_count_values), counted once per search */
static int32_t values_of(tctx *c, int zero)
{
    if (c->nvals[zero] < 0) c->nvals[zero] = spmv__sell_count_values(c->A->val, c->A->nnz, zero);
    return c->nvals[zero];
}

/* 1 when SPMV_VIDX forces value indices on or off: the tuner neither weighs nor records them then */
static int vidx_forced(void)
{
    const char *e = getenv(SPMV_VIDX_ENV);
    return e && *e;
}

/* The fewest bytes per stored entry a build of variant v at chunk height C can move (the pruning bound's entry
 * bytes, so that it stays a bound): 1 per value where value indices may be on (A has at most SPMV_VTAB_MAX values, v
 * asks for them or auto takes them at this size), else 8; per index 2 where 16-bit indices may be on (asked, or auto
 * at this size), else 4, and none for the share of entries that run columns hold in A's own row order (the most
 * they hold: sorting and RCM break runs; C a power of two up to 64, else no runs counted) */
static double entry_bytes_lower(tctx *c, int32_t C, const variant *v, int64_t stored)
{
    const spmv_crs *A = c->A;
    const int vi = values_of(c, 0) <= SPMV_VTAB_MAX && spmv__sell_vidx_wanted(v->vidx, stored);
    const int i16 = spmv__sell_idx16_wanted(v->idx16, stored);
    double share = 0;
    int k = 0;
    while (k < 7 && (1 << k) < C) k++;
    if (v->runs != 0 && k < 7 && (1 << k) == C) {
        if (c->run_share[k] < 0) {
            const int32_t T = v->runs > 0 ? v->runs : (3 * C + 3) / 4;
            const double s = spmv__sell_run_share(A, C, T < C ? T : C, 1024, NULL);
            c->run_share[k] = s > 0 ? s : 0;
        }
        share = c->run_share[k];
    }
    return (vi ? 1.0 : 8.0) + (1.0 - share) * (i16 ? 2.0 : 4.0);
}

/* A stage-8 variant S and the best matrix so far (the point it varies: the same C, sigma, RCM and order) timed
 * alternately, runs each after a warm-up of each, so that the host's drift between the best point's timing and the
 * variant's (a busy phase of a shared machine halves a point here) hits both alike. *tv, *tb: their medians (s per
 * multiply); *sv: the variant's spread. */
static void variant_pair(tctx *c, const spmv_sell *S, double *tv, double *tb, double *sv)
{
    const double *x = S->permuted && c->square ? c->xp : c->x;
    const int32_t runs = c->o->runs < 64 ? c->o->runs : 64;
    double a[64], b[64], worst = HUGE_VAL;
    *tv = *tb = 0, *sv = 1;
    mv(NULL, S, x, c->y);
    mv(NULL, c->bestS, x, c->y);
    for (int rep = 0; rep < 2 && worst > SPMV_TUNE_NOISY; rep++) { /* once more when noisy: the steadier pair */
        for (int32_t k = 0; k < runs; k++) {
            a[k] = run_for(NULL, S, x, c->y, c->o->run_time);
            b[k] = run_for(NULL, c->bestS, x, c->y, c->o->run_time);
        }
        const double sa = spread_of(a, runs), sb = spread_of(b, runs), w = sa > sb ? sa : sb;
        if (w < worst) {
            worst = w;
            *sv = w; /* the pair's: a disturbance of either side shows */
            *tv = median(a, runs);
            *tb = median(b, runs);
        }
    }
}

/* SELL point (C, sigma, rcm) built with the kernel variant v */
static spmv_status sell_point_v(tctx *c, int32_t C, int32_t sigma, int rcm, int32_t stage, int force,
                                const variant *v)
{
    const spmv_crs *A = c->A;
    const spmv_machine *m = c->o->machine;
    spmv_tune_point p;
    memset(&p, 0, sizeof p);
    p.stage = stage;
    p.C = C;
    p.sigma = sigma < A->rows ? sigma : A->rows;
    p.rcm = rcm;
    p.nthreads = c->T;
    p.state = SPMV_TUNE_RUNNING;
    report(c, &p);

    /* the padding guard before anything is built (also for a point that must run): the predicted stored entries
     * without run columns are a lower bound, so a point above the limit would be refused by the conversion */
    int done = 0;
    if (c->o->max_stored_factor > 0) {
        const int32_t *order = rcm && p.sigma < A->rows ? c->rcm_order : NULL;
        int64_t stored = 0;
        if ((!rcm || order || p.sigma >= A->rows) && spmv_tune_stored(A, C, p.sigma, 1, order, &stored) == SPMV_OK &&
            stored > SPMV_SELL_GUARD_FLOOR && (double)stored > c->o->max_stored_factor * (double)A->nnz) {
            p.stored = stored;
            p.beta = (double)A->nnz / (double)stored;
            p.state = SPMV_TUNE_PRUNED;
            snprintf(p.note, sizeof p.note, "padding: %lld stored entries = %.1f x nnz (%.3g GB) > max_stored_factor %g",
                     (long long)stored, (double)stored / (double)A->nnz, (double)stored * 12e-9,
                     c->o->max_stored_factor);
            done = 1;
        }
        spmv__clear_error();
    }
    /* the model first: predicted padding, and the bound */
    if (!force && !done) {
        /* RCM: the order matters, except for a global sort (stored entries do not depend on the order then) */
        const int32_t *order = rcm && p.sigma < A->rows ? c->rcm_order : NULL;
        int64_t stored = 0;
        if ((!rcm || order || p.sigma >= A->rows) && spmv_tune_stored(A, C, p.sigma, 1, order, &stored) == SPMV_OK) {
            p.stored = stored;
            p.beta = stored ? (double)A->nnz / (double)stored : 1;
            /* a variant (stage 8) changes the kernel, not the padding */
            int32_t s0 = v->change == V_NONE ? same_padding(c, C, p.sigma, rcm, stored) : 0;
            if (s0) {
                p.state = SPMV_TUNE_PRUNED;
                snprintf(p.note, sizeof p.note, "same padding as sigma = %d (%lld stored): no traffic to save", s0,
                         (long long)stored);
                done = 1;
            } else if (m && c->best > 0 && v->change != V_NT) {
                /* (not the streaming-store variant: it differs in y's write-allocate, which the bound below leaves
                 * out, and whether it pays is the host's, measured, not the model's to say) */
                spmv_traffic tr = spmv__k_sell_ref.traffic;
                tr.bytes_per_entry = entry_bytes_lower(c, C, v, stored);
                double bound = 0;
                if (spmv_tune_bound(m, &tr, A->rows, A->cols, A->nnz, stored, C, c->T, &bound) == SPMV_OK) {
                    p.bound = bound;
                    double bytes = spmv_traffic_bytes(&tr, stored, A->nnz, A->rows, (A->rows + C - 1) / C,
                                                      (double)A->cols / (double)A->nnz);
                    if (spmv_tune_prune(m, bytes, bound, c->best, c->o->prune_margin)) {
                        p.state = SPMV_TUNE_PRUNED;
                        snprintf(p.note, sizeof p.note,
                                 "bound %.3g Gflop/s (beta %.3f, %.3g B per entry, x read once, peak bandwidth) < "
                                 "best %.3g / %.2f", bound, p.beta, tr.bytes_per_entry, c->best,
                                 1 + c->o->prune_margin);
                        done = 1;
                    }
                }
            }
        }
        spmv__clear_error();
    }
    if (!done && !force) {
        double conv = rcm ? (c->est_conv_rcm > 0 ? c->est_conv_rcm : 6 * (c->est_conv > 0 ? c->est_conv : 1))
                          : (c->est_conv > 0 ? c->est_conv : 1);
        /* a variant (stage 8) is timed alone, then alternately with the best matrix: three timings */
        double cost = conv + (stage == 8 ? 3 : 1) * cost_timing(c);
        if (elapsed(c) + cost > c->o->budget - c->reserve) {
            p.state = SPMV_TUNE_SKIPPED;
            budget_note(p.note, sizeof p.note, cost,
                     c->o->budget - c->reserve - elapsed(c));
            done = 1;
        }
    }
    spmv_sell *S = NULL;
    int pair_wins = -1; /* stage 8: 1 / 0 the variant was faster / not than the best point, timed alternately */
    double tbest_won = 0;  /* the best matrix's median in that pair */
    if (!done) {
        spmv_sell_opts so = spmv_sell_opts_default();
        so.C = C;
        so.sigma = p.sigma;
        so.rcm = rcm;
        so.permuted = c->o->permuted;
        so.nthreads = c->T;
        so.max_stored_factor = c->o->max_stored_factor;
        so.runs = v->runs;
        so.xaccess = v->xaccess;
        so.idx16 = v->idx16;
        so.vidx = v->vidx;
        so.nt_stores = v->nt;
        double t = now();
        spmv_status st = spmv_sell_from_crs(A, &so, &S);
        p.t_convert = now() - t;
        if (st == SPMV_ERR_NOMEM) return st;
        if (st) {
            p.state = SPMV_TUNE_FAILED;
            snprintf(p.note, sizeof p.note, "conversion failed: %s", spmv_last_error());
            spmv__clear_error();
        } else {
            if (rcm) {
                c->est_conv_rcm = p.t_convert;
                keep_rcm_order(c, S);
            } else {
                c->est_conv = p.t_convert;
            }
            p.stored = S->stored;
            p.beta = spmv_sell_beta(S);
            p.runs = S->runs;
            p.xaccess = S->xaccess;
            p.idx16 = S->nidx16 > 0;
            p.vidx = S->nvals > 0;
            p.nt = S->kernel && S->kernel->nt; /* the kernel the build chose, which p.kernel names */
            if (v->change == V_RUNS && v->runs > 0 && S->nruns == 0) { /* the best point's matrix again */
                p.state = SPMV_TUNE_PRUNED;
                snprintf(p.note, sizeof p.note, "variant: run columns on: none found (not timed)");
                spmv_sell_free(S);
                S = NULL;
            } else {
                finish_measure(c, NULL, S, &p, -1);
            }
            double tbest = 0;
            if (stage == 8 && S && c->bestS && p.state == SPMV_TUNE_MEASURED) {
                double tv, sv;
                variant_pair(c, S, &tv, &tbest, &sv);
                set_time(c, &p, tv, sv);
                unmark_noisy(&p); /* the lone timing's verdict: the pair's counts */
                mark_noisy(&p);
            }
            if (stage == 8 && S) { /* the variant first, then the pair, then what the measurement noted */
                char old[sizeof p.note];
                snprintf(old, sizeof old, "%s", p.note);
                variant_note(p.note, sizeof p.note, v, &p);
                if (tbest > 0)
                    snprintf(p.note + strlen(p.note), sizeof p.note - strlen(p.note),
                             "; alternated with the best (%.3g Gflop/s)",
                             2.0 * (double)A->nnz / tbest * 1e-9);
                if (old[0]) snprintf(p.note + strlen(p.note), sizeof p.note - strlen(p.note), "; %s", old);
            }
            pair_wins = tbest > 0 ? p.t_spmv < tbest : -1;
            if (v->change == V_NT && p.state == SPMV_TUNE_MEASURED) c->nt_timed = 1;
            tbest_won = tbest;
        }
    }
    c->done++;
    report(c, &p);
    int32_t idx;
    spmv_status st = add_point(c, &p, &idx);
    if (st) {
        spmv_sell_free(S);
        return st;
    }
    /* a variant timed alternately with the best point wins by that pair, whatever the best point's own timing */
    if (S && p.state == SPMV_TUNE_MEASURED && (stage == 8 && pair_wins >= 0 ? pair_wins : p.gflops > c->best)) {
        spmv_sell_free(c->bestS);
        c->bestS = S;
        /* a pair's winner on the old best's scale (its Gflop/s times the pair's ratio), so that the thread sweep and
         * the pruning compare with what the best matrix does in the phase the best point was timed in */
        c->best = pair_wins > 0 ? c->best * tbest_won / p.t_spmv : p.gflops;
        c->bestidx = idx;
    } else {
        spmv_sell_free(S);
    }
    return SPMV_OK;
}

static spmv_status sell_point(tctx *c, int32_t C, int32_t sigma, int rcm, int32_t stage, int force)
{
    return sell_point_v(c, C, sigma, rcm, stage, force, &variant_auto);
}

/* SELL point of the thread sweep: the best matrix repartitioned for n threads */
static spmv_status sell_threads_point(tctx *c, int32_t n, int32_t *idx_out)
{
    const spmv_tune_point *b = &c->r->points[c->bestidx];
    spmv_tune_point p = *b;
    p.stage = 4;
    p.nthreads = n;
    p.t_convert = 0;
    p.note[0] = '\0';
    p.state = SPMV_TUNE_RUNNING;
    report(c, &p);
    double cost = cost_timing(c);
    if (n != c->T && elapsed(c) + cost > c->o->budget) {
        p.state = SPMV_TUNE_SKIPPED;
        budget_note(p.note, sizeof p.note, cost,
                 c->o->budget - elapsed(c));
    } else {
        spmv_status st = spmv_sell_set_threads(c->bestS, n);
        if (st) return st;
        finish_measure(c, NULL, c->bestS, &p, b->alpha);
    }
    c->done++;
    report(c, &p);
    return add_point(c, &p, idx_out);
}

/* The choice b (its matrix is c->bestS, partitioned for b->nthreads) and CRS at the same thread count, timed
 * alternately run by run, so that both are measured under the same conditions (a disturbance hits both alike);
 * both become stage-6 points and replace *b and *cr (conversion time and limits kept). Runs that differ by more
 * than SPMV_TUNE_NOISY are repeated once (the steadier pair of sets counts); still noisy: both notes say so. */
static spmv_status final_pair(tctx *c, spmv_tune_point *b, spmv_tune_point *cr)
{
    const int32_t n = b->nthreads;
    spmv_crs v;
    int32_t *part = NULL;
    spmv_status st = crs_view(c->A, n, &v, &part);
    if (st) return st;
    spmv_tune_point ps = *b, pc;
    /* the sweep's CRS point at this thread count gives the model's numbers; else CRS is checked now */
    int32_t found = -1;
    for (int32_t i = 0; i < c->r->npoints; i++) {
        const spmv_tune_point *q = &c->r->points[i];
        if (q->is_crs && q->state == SPMV_TUNE_MEASURED && q->nthreads == n) found = i;
    }
    if (found >= 0) {
        pc = c->r->points[found];
        pc.note[0] = '\0';
    } else {
        memset(&pc, 0, sizeof pc);
        pc.is_crs = 1, pc.nthreads = n, pc.stored = c->A->nnz, pc.beta = 1;
        double tf;
        pc.err = check(c, &v, NULL, &tf);
        if (!(pc.err <= 1e-12)) { /* cannot happen for CRS */
            spmv__free(part);
            pc.state = SPMV_TUNE_FAILED;
            snprintf(pc.note, sizeof pc.note, "result check failed: max |y - y_ref| / (|A||x|) = %.3g", pc.err);
            *cr = pc;
            return SPMV_OK;
        }
        pc.t_spmv = tf;
        snprintf(pc.kernel, sizeof pc.kernel, "%s", spmv_crs_kernel_name(&v));
        pc.state = SPMV_TUNE_MEASURED;
        model_point(c, &v, NULL, &pc, -1);
        if (!strncmp(pc.note, "model:", 6)) pc.note[0] = '\0';
    }
    ps.stage = pc.stage = 6;
    if (!strncmp(ps.note, "noisy", 5)) ps.note[0] = '\0';
    double tf;
    ps.err = check(c, NULL, c->bestS, &tf); /* also leaves x in the order of S */
    const double *xs = c->bestS->permuted && c->square ? c->xp : c->x;
    const double target = c->o->run_time;
    int32_t runs = c->o->runs < 64 ? c->o->runs : 64;
    double ts[64], tc[64], ts2[64], tc2[64];
    mv(NULL, c->bestS, xs, c->y); /* warm-up */
    mv(&v, NULL, c->x, c->y);
    for (int32_t k = 0; k < runs; k++) {
        ts[k] = run_for(NULL, c->bestS, xs, c->y, target);
        tc[k] = run_for(&v, NULL, c->x, c->y, target);
    }
    double ss = spread_of(ts, runs), sc = spread_of(tc, runs);
    if (ss > SPMV_TUNE_NOISY || sc > SPMV_TUNE_NOISY) { /* once more; the steadier pair counts */
        for (int32_t k = 0; k < runs; k++) {
            ts2[k] = run_for(NULL, c->bestS, xs, c->y, target);
            tc2[k] = run_for(&v, NULL, c->x, c->y, target);
        }
        const double ss2 = spread_of(ts2, runs), sc2 = spread_of(tc2, runs);
        if ((ss2 > sc2 ? ss2 : sc2) < (ss > sc ? ss : sc)) {
            memcpy(ts, ts2, (size_t)runs * sizeof *ts);
            memcpy(tc, tc2, (size_t)runs * sizeof *tc);
            ss = ss2, sc = sc2;
        }
    }
    spmv__free(part);
    double ms = median(ts, runs), mc = median(tc, runs);
    spmv_tune_point *pp[2] = {&ps, &pc};
    double tt[2] = {ms, mc}, sp[2] = {ss, sc};
    for (int k = 0; k < 2; k++) {
        spmv_tune_point *p = pp[k];
        set_time(c, p, tt[k], sp[k]);
        char old[sizeof p->note];
        snprintf(old, sizeof old, "%s", p->note);
        snprintf(p->note, sizeof p->note, "timed alternately with %s%s%.90s", k ? "the choice" : "CRS",
                 old[0] ? "; " : "", old);
        mark_noisy(p);
    }
    int32_t idx;
    c->done++;
    report(c, &ps);
    if ((st = add_point(c, &ps, &idx))) return st;
    c->done++;
    report(c, &pc);
    if ((st = add_point(c, &pc, &idx))) return st;
    *b = ps;
    *cr = pc;
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- the search */

static spmv_status setup(tctx *c)
{
    const spmv_crs *A = c->A;
    const int32_t rows = A->rows, cols = A->cols, nv = rows > cols ? rows : cols;
    spmv_status st;
    if ((st = spmv_vec_alloc(cols, &c->x)) || (st = spmv_vec_alloc(nv, &c->xp)) || (st = spmv_vec_alloc(rows, &c->y)) ||
        (st = spmv_vec_alloc(rows, &c->yo)) || (st = spmv_vec_alloc(rows, &c->yref)) ||
        (st = spmv_vec_alloc(rows, &c->absax)))
        return st;
    for (int32_t j = 0; j < cols; j++) c->x[j] = 1.0 + (j % 7) / 7.0;
    /* the reference: a plain serial loop over the CRS arrays */
    for (int32_t i = 0; i < rows; i++) {
        double s = 0, a = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            double v = A->val[k] * c->x[A->col[k]];
            s += v;
            a += fabs(v);
        }
        c->yref[i] = s;
        c->absax[i] = a;
    }
    return SPMV_OK;
}

static void release(tctx *c)
{
    spmv_vec_free(c->x);
    spmv_vec_free(c->xp);
    spmv_vec_free(c->y);
    spmv_vec_free(c->yo);
    spmv_vec_free(c->yref);
    spmv_vec_free(c->absax);
    spmv__free(c->rcm_order);
}

static int32_t thread_list(int32_t T, int32_t *out)
{
    int32_t n = 0;
    for (int32_t t = 1; t < T; t *= 2) out[n++] = t;
    out[n++] = T;
    return n;
}

spmv_status spmv_tune(const spmv_crs *A, const spmv_tune_opts *opts, spmv_tune_result *r, spmv_sell **Sout)
{
    static const char fn[] = "spmv_tune";
    if (Sout) *Sout = NULL;
    if (!r) return spmv__error(SPMV_ERR_ARG, "%s: argument r is NULL", fn);
    memset(r, 0, sizeof *r);
    if (!A || !opts) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !A ? "A" : "o");
    if (A->rows < 1 || A->cols < 1 || A->nnz < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: the matrix is empty (%d x %d, nnz %lld)", fn, A->rows, A->cols,
                           (long long)A->nnz);
    const spmv_tune_opts *o = opts;
    if (!(o->budget > 0) || !(o->run_time > 0) || o->runs < 1 || o->runs > 64 || o->max_threads < 0 ||
        (o->C_list && o->nC < 1) || o->nC < 0 || !(o->prune_margin >= 0) || !(o->max_stored_factor >= 0) ||
        isinf(o->max_stored_factor))
        return spmv__error(SPMV_ERR_ARG, "%s: bad options: budget %g s, run_time %g s, runs %d (1..64), max_threads %d, "
                           "nC %d, prune_margin %g, max_stored_factor %g", fn, o->budget, o->run_time, o->runs,
                           o->max_threads, o->nC, o->prune_margin, o->max_stored_factor);
    if (o->machine && spmv_machine_check(o->machine)) return SPMV_ERR_ARG;
    for (int32_t k = 0; o->C_list && k < o->nC; k++)
        if (o->C_list[k] < 1) return spmv__error(SPMV_ERR_ARG, "%s: C_list[%d] = %d < 1", fn, k, o->C_list[k]);

    tctx c;
    memset(&c, 0, sizeof c);
    c.nvals[0] = c.nvals[1] = -1;
    for (int k = 0; k < 7; k++) c.run_share[k] = -1;
    c.A = A;
    c.o = o;
    c.r = r;
    c.t0 = now();
    c.T = o->max_threads > 0 ? o->max_threads : spmv__max_threads();
    if ((int64_t)c.T * SPMV_MIN_WORK_PER_THREAD > A->nnz) /* as the library's default partition: a tiny matrix */
        c.T = A->nnz / SPMV_MIN_WORK_PER_THREAD > 1 ? (int32_t)(A->nnz / SPMV_MIN_WORK_PER_THREAD) : 1;
    c.square = A->rows == A->cols;
    c.bestidx = -1;
    spmv_status st;

    int32_t Cs[16], nC = 0;
    int fast = 0;
    if (o->C_list) {
        nC = o->nC < 16 ? o->nC : 16;
        memcpy(Cs, o->C_list, (size_t)nC * sizeof *Cs);
        int32_t tmp[16], nt;
        fast = spmv_tune_chunk_heights(tmp, 16, &nt, &fast) == SPMV_OK ? fast : 0;
    } else if ((st = spmv_tune_chunk_heights(Cs, 16, &nC, &fast))) {
        return st;
    }
    r->fast = fast;
    int32_t Cdef = Cs[0];
    {
        int32_t d;
        if (spmv_tune_default_chunk_height(o->machine, &d) == SPMV_OK)
            for (int32_t k = 0; k < nC; k++)
                if (Cs[k] == d) Cdef = d;
        spmv__clear_error();
    }
    int32_t thr[40], nthr = thread_list(c.T, thr);
    int32_t maxsig = 0;
    for (int32_t k = 0; k < nC; k++) {
        int32_t sg[40], ns;
        if (spmv_tune_sigma_list(Cs[k], A->rows, sg, 40, &ns) == SPMV_OK && ns > maxsig) maxsig = ns;
    }
    const int try_rcm = o->rcm && c.square;
    c.planned = 3 + (o->full ? nC * maxsig * (try_rcm ? 2 : 1) : nC + maxsig - 1 + (try_rcm ? maxsig : 0)) +
                (nthr > 1 ? 2 * (nthr - 1) : 0) + 5; /* + the stage-8 variants */

    if ((st = setup(&c))) goto out;

    /* 0: CRS at T, the baseline (always) */
    int32_t crsT = -1;
    if ((st = crs_point(&c, c.T, 0, 1, &crsT))) goto out;
    if (r->points[crsT].state == SPMV_TUNE_MEASURED) c.est_mv = r->points[crsT].t_spmv;
    /* keep time for the thread sweep: SELL and CRS at the other thread counts */
    c.reserve = (nthr - 1) * 2 * cost_timing(&c);
    if (c.reserve > 0.25 * o->budget) c.reserve = 0.25 * o->budget;

    if (o->full) {
        for (int rc = 0; rc <= try_rcm; rc++)
            for (int32_t k = 0; k < nC; k++) {
                int32_t sg[40], ns;
                if ((st = spmv_tune_sigma_list(Cs[k], A->rows, sg, 40, &ns))) goto out;
                for (int32_t j = 0; j < ns; j++)
                    if ((st = sell_point(&c, Cs[k], sg[j], rc, 5, c.bestidx < 0 && rc == 0 && Cs[k] == Cdef && j == 0)))
                        goto out;
            }
    } else {
        /* 1: each C at its model sigma (the model's C first, always run) */
        int32_t order[16], no = 0;
        order[no++] = Cdef;
        for (int32_t k = 0; k < nC; k++)
            if (Cs[k] != Cdef) order[no++] = Cs[k];
        for (int32_t k = 0; k < no; k++) {
            int32_t s = 1;
            if ((st = spmv_tune_default_sigma(A, order[k], &s))) goto out;
            if ((st = sell_point(&c, order[k], s, 0, 1, c.bestidx < 0))) goto out;
        }
        int32_t Cb = c.bestidx >= 0 ? r->points[c.bestidx].C : Cdef;
        int32_t sg[40], ns;
        if ((st = spmv_tune_sigma_list(Cb, A->rows, sg, 40, &ns))) goto out;
        /* 2: sigma at the best C */
        for (int32_t j = 0; j < ns; j++)
            if (!measured_already(&c, Cb, sg[j] < A->rows ? sg[j] : A->rows, 0) &&
                (st = sell_point(&c, Cb, sg[j], 0, 2, c.bestidx < 0)))
                goto out;
        /* 3: RCM at the best C: the best sigma first, then the list */
        if (try_rcm) {
            int32_t sb = c.bestidx >= 0 ? r->points[c.bestidx].sigma : 1;
            if ((st = sell_point(&c, Cb, sb, 1, 3, 0))) goto out;
            int tried = 1;
            double lost = 0; /* best RCM Gflop/s so far */
            for (int32_t j = 0; j < ns; j++) {
                int32_t s = sg[j] < A->rows ? sg[j] : A->rows;
                if (s == sb) continue;
                for (int32_t i = 0; i < r->npoints; i++)
                    if (r->points[i].stage == 3 && r->points[i].state == SPMV_TUNE_MEASURED && r->points[i].gflops > lost)
                        lost = r->points[i].gflops;
                /* staged search: after two RCM windows that both lose by more than 20 %, the rest is not tried */
                if (tried >= 2 && lost > 0 && lost < 0.8 * c.best) {
                    spmv_tune_point p;
                    memset(&p, 0, sizeof p);
                    p.stage = 3, p.C = Cb, p.sigma = s, p.rcm = 1, p.nthreads = c.T, p.state = SPMV_TUNE_SKIPPED;
                    snprintf(p.note, sizeof p.note, "RCM lost %.0f %% at two windows (best RCM %.3g Gflop/s): rest "
                             "of its sigma list not tried (--full does)", 100 * (1 - lost / c.best), lost);
                    int32_t idx;
                    c.done++;
                    if ((st = add_point(&c, &p, &idx))) goto out;
                    continue;
                }
                if ((st = sell_point(&c, Cb, s, 1, 3, 0))) goto out;
                tried++;
            }
        }
    }
    /* 7: points far below the best (< 50 %: on a busy machine a descheduled thread stalls every multiply for a
     * while) are built and timed once more, as far as the budget allows; the better of the two counts */
    if (c.bestidx >= 0) {
        const int32_t n0 = r->npoints;
        int useless = 0; /* re-times in a row that did not double: the point is slow, not unlucky; stop after two */
        for (int32_t i = 0; i < n0 && useless < 2; i++) {
            const spmv_tune_point q = r->points[i];
            if (q.is_crs || q.state != SPMV_TUNE_MEASURED || q.nthreads != c.T || q.stage >= 4 ||
                !(q.gflops < 0.5 * c.best))
                continue;
            if ((st = sell_point(&c, q.C, q.sigma, q.rcm, 7, 0))) goto out;
            spmv_tune_point *n = &r->points[r->npoints - 1];
            useless = n->state == SPMV_TUNE_MEASURED && n->gflops < 2 * q.gflops ? useless + 1 : 0;
            if (n->state == SPMV_TUNE_MEASURED) {
                char old[80];
                snprintf(old, sizeof old, "%.79s", n->note);
                snprintf(n->note, sizeof n->note, "again: %.3g Gflop/s the first time%s%s", q.gflops,
                         old[0] ? "; " : "", old);
            }
        }
    }
    /* 8: kernel variants of the best point, built and checked as the others, then timed alternately with the best
     * matrix (variant_pair: the faster of the pair becomes the best), each from the best so far: run columns off when
     * it has them (the run loads against gathers on this matrix), on when it has none (the automatic rule, sell.c
     * SELL_RUN_LANES, leaves them out where a sample says they would not pay: here they are timed), the other x access
     * for the gather columns when the family has two (hardware gather against scalar loads and inserts), value indices
     * flipped where the matrix qualifies (at most SPMV_VTAB_MAX values, the padding's 0.0
     * included; the family's kernels read them; SPMV_VIDX not set), 16-bit indices flipped where the family's
     * kernels read them (a build asked for them that finds no chunk narrow enough is timed anyway: the note says
     * "off"), non-temporal y stores flipped where y holds SPMV_TUNE_NT_MIN_BYTES or more, the matrix indexes it
     * directly and the family has streaming-store kernels for it (SPMV_SELL_NT not set) */
    if (c.bestidx >= 0) {
        spmv_arch arch = SPMV_ARCH_REF;
        const spmv_family *fam = spmv_arch_get(&arch) == SPMV_OK ? spmv__family(arch) : NULL;
        spmv__clear_error();
        for (vchange ch = V_RUNS; ch <= V_NT; ch++) {
            const spmv_tune_point b = r->points[c.bestidx];
            const spmv_kernel *k = spmv__sell_kernel_for(b.C, (spmv_xaccess)b.xaccess);
            spmv__clear_error();
            int go = 0;
            if (ch == V_RUNS) go = b.C >= 4 && b.C <= 64;
            else if (ch == V_XACCESS)
                go = fam && fam->xaccess_default && (b.xaccess == SPMV_X_GATHER || b.xaccess == SPMV_X_EMUL);
            else if (ch == V_VIDX)
                go = k && k->shape.vidx && !vidx_forced() &&
                     (b.vidx || values_of(&c, b.stored > A->nnz) <= SPMV_VTAB_MAX);
            else if (ch == V_IDX16) /* where 5 % or more of the stored entries are in gather columns (HPCG in its
                                       own order: none) */
                go = k && k->shape.idx16 && c.bestS &&
                     20 * (c.bestS->stored - (int64_t)c.bestS->C * c.bestS->nruns) >= c.bestS->stored;
            else
                go = c.bestS && !spmv__sell_nt_forced() &&
                     (int64_t)A->rows * (int64_t)sizeof(double) >= SPMV_TUNE_NT_MIN_BYTES &&
                     spmv__sell_nt_available(c.bestS);
            const variant w = variant_of(&b, ch);
            if (go && (st = sell_point_v(&c, b.C, b.sigma, b.rcm, 8, 0, &w))) goto out;
        }
    }
    if (c.bestidx < 0) { /* every SELL point failed */
        st = spmv__error(SPMV_ERR_ARG, "%s: no SELL-C-sigma configuration passed the result check", fn);
        goto out;
    }

    /* 4: threads, for the best SELL and for CRS */
    c.reserve = 0;
    int32_t best_thr = c.bestidx;
    {
        const int32_t b0 = c.bestidx;
        for (int32_t k = 0; k < nthr; k++) {
            int32_t n = thr[k], idx;
            if (n == c.T) continue;
            if ((st = sell_threads_point(&c, n, &idx))) goto out;
            if ((st = crs_point(&c, n, 4, 0, &idx))) goto out;
        }
        /* the fastest thread count of the best configuration (the T point included; a variant that won its pair
         * at the best point's scale, c.best) */
        double bg = c.best > r->points[b0].gflops ? c.best : r->points[b0].gflops;
        for (int32_t i = 0; i < r->npoints; i++) {
            const spmv_tune_point *q = &r->points[i];
            if (q->stage == 4 && !q->is_crs && q->state == SPMV_TUNE_MEASURED && q->gflops > bg) {
                bg = q->gflops;
                best_thr = i;
            }
        }
    }
    r->best = r->points[best_thr];
    r->best.t_convert = r->points[c.bestidx].t_convert; /* built once, at T threads */
    r->crs = r->points[crsT];
    /* 6: the final comparison: the choice and CRS at the same thread count timed alternately, so that drift hits
     * both alike (a CRS point from the sweep at another thread count, or one disturbed there, never sets the
     * speed-up) */
    if ((st = spmv_sell_set_threads(c.bestS, r->best.nthreads))) goto out;
    if ((st = final_pair(&c, &r->best, &r->crs))) goto out;
    r->opts = spmv_sell_opts_default();
    r->opts.C = r->best.C;
    r->opts.sigma = r->best.sigma;
    r->opts.runs = r->best.runs;
    r->opts.xaccess = r->best.xaccess;
    r->opts.idx16 = r->best.idx16;
    r->opts.vidx = r->best.vidx;
    r->opts.nt_stores = r->best.nt;
    r->opts.rcm = r->best.rcm;
    r->opts.nthreads = r->best.nthreads;
    r->opts.permuted = o->permuted ? 1 : 0;
    r->speedup = r->best.t_spmv > 0 && r->crs.state == SPMV_TUNE_MEASURED ? r->crs.t_spmv / r->best.t_spmv : 0;
    r->break_even = r->crs.state == SPMV_TUNE_MEASURED
                        ? spmv_tune_break_even(r->best.t_convert, r->crs.t_spmv, r->best.t_spmv)
                        : HUGE_VAL;
    if ((st = spmv_sell_set_threads(c.bestS, r->opts.nthreads))) goto out;
    r->elapsed = elapsed(&c);

    /* recorded only when the choice beats CRS at its thread count in the final comparison: a SELL record makes
     * C = 0 and spmv-bench --auto use it, so a slower one must not be recorded */
    const int sell_wins =
        r->crs.state != SPMV_TUNE_MEASURED || (r->best.t_spmv > 0 && r->best.t_spmv < r->crs.t_spmv);
    if (o->record && sell_wins) {
        spmv_tune_record rec;
        memset(&rec, 0, sizeof rec);
        if ((st = spmv_tune_host_get(&rec.host)) || (st = spmv_tune_fingerprint_get(A, &rec.fp))) goto out;
        rec.permuted = r->opts.permuted;
        rec.C = r->opts.C;
        rec.sigma = r->opts.sigma;
        rec.rcm = r->opts.rcm;
        rec.nthreads = r->opts.nthreads;
        rec.has_variant = 1;
        rec.runs = r->opts.runs;
        rec.xaccess = r->opts.xaccess;
        rec.has_compression = 1;
        rec.idx16 = r->opts.idx16;
        rec.vidx = vidx_forced() ? -1 : r->opts.vidx; /* forced for a measurement: not a choice */
        rec.has_nt = c.nt_timed; /* the choice measured both ways; else the library's auto decides later */
        rec.nt = r->opts.nt_stores;
        rec.gflops = r->best.gflops;
        rec.limit = r->best.limit;
        rec.crs_gflops = r->crs.gflops;
        rec.t_convert = r->best.t_convert;
        snprintf(rec.matrix, sizeof rec.matrix, "%s", o->label ? o->label : "matrix");
        time_t tt = time(NULL);
        struct tm tm;
        if (gmtime_r(&tt, &tm)) strftime(rec.date, sizeof rec.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        st = spmv_tune_db_store(o->record, &rec);
        r->recorded = st == SPMV_OK;
    }
    if (Sout) {
        *Sout = c.bestS;
        c.bestS = NULL;
    }
out:
    spmv_sell_free(c.bestS);
    release(&c);
    r->elapsed = elapsed(&c);
    return st;
}
