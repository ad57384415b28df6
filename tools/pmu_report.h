/* spmv-bench --pmu and spmv-tune --pmu: the multiply counted by the PMU layer (src/pmu/pmu.h) -- counted Gflop/s,
 * counted flops / (2 nnz) next to 1/beta, IPC, top-down level 1 -- with the events used named. */
#ifndef SPMV_PMU_REPORT_H
#define SPMV_PMU_REPORT_H

#include "spmv_tune.h"

/* Count y = A x (S when not NULL, else A) on the matrix's own thread partition (S->nparts or A->nparts threads):
 * one pass per counter group, each one warm-up multiply and then `reps` multiplies with the counters enabled around
 * that loop only, reps = run_time / t_mv (t_mv: seconds per multiply measured before; at least 1). x (length cols)
 * and y (length rows) may be NULL: allocated here. Prints lines starting with tag to stdout; where counters are
 * absent or forbidden one line says why and lists the events tried. Returns 0 (counted), 2 (no counters: the line
 * was printed; the caller goes on), or 1 when vectors could not be allocated (printed). */
int tool_pmu_report(const char *prog, const char *tag, const spmv_crs *A, const spmv_sell *S, const double *x,
                    double *y, double t_mv, double run_time);

/* spmv-tune --pmu: the choice S on r->opts.nthreads threads, then CRS on r->crs.nthreads (A is repartitioned for
 * that count), each counted as tool_pmu_report does. Returns 0, or 1 on an error (printed). */
int tool_pmu_tune(const char *prog, spmv_crs *A, const spmv_sell *S, const spmv_tune_result *r, double run_time);

#endif
