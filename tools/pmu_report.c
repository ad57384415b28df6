/* spmv-bench --pmu, spmv-tune --pmu (pmu_report.h). */
#include "pmu_report.h"
#include "pmu.h"
#include "toolutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_events(const char *tag, const char *what, const char *recipe, const char *events)
{
    if (!events[0]) return;
    printf("%s%s events%s%s: %s\n", tag, what, recipe[0] ? ", " : "", recipe, events);
}

int tool_pmu_report(const char *prog, const char *tag, const spmv_crs *A, const spmv_sell *S, const double *x,
                    double *y, double t_mv, double run_time)
{
    const int32_t rows = S ? S->rows : A->rows, cols = S ? S->cols : A->cols;
    const int64_t nnz = S ? S->nnz : A->nnz;
    int threads = S ? S->nparts : A->nparts;
    if (threads < 1) threads = 1;
    char why[4096] = "";
    pmu_session *s = NULL;
    pmu_status st = pmu_session_open(threads, &s, why, sizeof why);
    if (st) {
        printf("%snot counted: %s; the run goes on without counters\n", tag, why);
        return 2;
    }
    double *xa = NULL, *ya = NULL;
    if (!x || !y) {
        spmv_status vs = spmv_vec_alloc(cols, &xa);
        if (!vs) vs = spmv_vec_alloc(rows, &ya);
        if (vs) {
            tool_error(prog, vs);
            spmv_vec_free(xa);
            pmu_session_free(s);
            return 1;
        }
        for (int32_t j = 0; j < cols; j++) xa[j] = 1.0 + (j % 7) / 7.0;
        x = xa;
        y = ya;
    }
    long reps = t_mv > 0 && isfinite(t_mv) ? (long)(run_time / t_mv) : 1;
    if (reps < 1) reps = 1;
    if (reps > (1L << 24)) reps = 1L << 24;
    double t_flops = 0, t_ipc = 0;
    for (int p = 0; p < pmu_session_passes(s); p++) {
        tool_mv(A, S, x, y); /* warm-up, not counted */
        const double t0 = tool_now();
        st = pmu_session_begin(s, p);
        for (long k = 0; k < reps && !st; k++) tool_mv(A, S, x, y);
        if (!st) st = pmu_session_end(s, p);
        const double t = tool_now() - t0;
        if (st) {
            printf("%snot counted: starting or stopping the %s counters failed; the run goes on without them\n", tag,
                   pmu_session_pass_name(s, p));
            break;
        }
        if (!strcmp(pmu_session_pass_name(s, p), "flops")) t_flops = t;
        if (!strcmp(pmu_session_pass_name(s, p), "IPC")) t_ipc = t;
    }
    pmu_result r;
    if (!st && (st = pmu_session_result(s, &r, why, sizeof why)))
        printf("%snot counted: %s; the run goes on without counters\n", tag, why);
    if (!st) {
        printf("%scounters around the timed loop only: %d thread%s, %ld multiplies per pass, user level\n", tag,
               r.threads, r.threads == 1 ? "" : "s", reps);
        print_events(tag, "IPC", "", r.ipc_events);
        print_events(tag, "flops", r.flops_recipe, r.flops_events);
        print_events(tag, "top-down", r.topdown_recipe, r.topdown_events);
        if (r.have_flops) {
            const double per_mv = r.flops / (double)reps, ratio = nnz > 0 ? per_mv / (2.0 * (double)nnz) : 0;
            const double beta = S ? spmv_sell_beta(S) : 1.0, inv_beta = beta > 0 ? 1.0 / beta : 0;
            printf("%scounted %.3f Gflop/s (%.6g flops per multiply); counted flops / (2 nnz) = %.4f next to 1/beta = "
                   "%.4f%s (%+.2f %%)\n", tag, t_flops > 0 ? r.flops / t_flops * 1e-9 : 0, per_mv, ratio, inv_beta,
                   S ? "" : " (CRS)", inv_beta > 0 ? 100.0 * (ratio / inv_beta - 1) : 0);
        }
        if (r.have_ipc) {
            const double hz = pmu_clock_hz(r.cycles, r.threads, t_ipc);
            printf("%sIPC %.3f (%.4g instructions, %.4g cycles per multiply); clock %.2f GHz (cycles / threads / "
                   "time)\n", tag, r.cycles > 0 ? r.instructions / r.cycles : 0, r.instructions / (double)reps,
                   r.cycles / (double)reps, hz > 0 ? hz * 1e-9 : 0);
        }
        if (r.have_topdown) {
            static const char *res[] = {"", " (residual)"};
            printf("%stop-down level 1: retiring %.1f %%%s, bad speculation %.1f %%%s, front-end bound %.1f %%%s, "
                   "back-end bound %.1f %%%s", tag, 100 * r.td.retiring, res[r.td.residual == PMU_TD_RETIRING],
                   100 * r.td.bad_speculation, res[r.td.residual == PMU_TD_BAD_SPECULATION],
                   100 * r.td.frontend_bound, res[r.td.residual == PMU_TD_FRONTEND], 100 * r.td.backend_bound,
                   res[r.td.residual == PMU_TD_BACKEND]);
            if (r.td.residual == PMU_TD_NONE) printf(", other %.1f %%", 100 * r.td.other);
            printf("\n");
        }
        if (r.running < 0.999)
            printf("%snote: the kernel multiplexed the counters (a group ran %.0f %% of the time): counts are "
                   "scaled estimates\n", tag, 100 * r.running);
        if (r.notes[0]) printf("%snot counted: %s\n", tag, r.notes);
    }
    spmv_vec_free(xa);
    spmv_vec_free(ya);
    pmu_session_free(s);
    return 0;
}

int tool_pmu_tune(const char *prog, spmv_crs *A, const spmv_sell *S, const spmv_tune_result *r, double run_time)
{
    const char *tag = "pmu          ";
    if (S) {
        printf("%sthe choice, SELL-%d-%d%s on %d thread%s:\n", tag, S->C, S->sigma, r->opts.rcm ? " RCM" : "",
               S->nparts, S->nparts == 1 ? "" : "s");
        int rc = tool_pmu_report(prog, tag, NULL, S, NULL, NULL, r->best.t_spmv, run_time);
        if (rc) return rc == 1; /* no counters: said once */
    }
    int t = r->crs.nthreads > 0 ? r->crs.nthreads : 1;
    spmv_status st = spmv_crs_set_threads(A, t);
    if (st) {
        tool_error(prog, st);
        return 1;
    }
    printf("%sCRS on %d thread%s:\n", tag, A->nparts, A->nparts == 1 ? "" : "s");
    return tool_pmu_report(prog, tag, A, NULL, NULL, NULL, r->crs.t_spmv, run_time) == 1;
}
