/* spmv-bench --suite and --auto (called from tools/spmv_bench.c's option parsing). Tools only. */
#ifndef SPMV_BENCH_SUITE_H
#define SPMV_BENCH_SUITE_H

#include "spmv_tune.h"

#include <stdio.h>

/* spmv-bench --suite DIR|FILE... [options]: argv[0..argc) are the arguments after "--suite". Runs every matrix
 * (the *.mtx files of each folder, sorted, and the files given): CRS and the tuned SELL-C-sigma (the recorded
 * choice, else spmv_tune within --tune-time seconds, recorded), each checked against a reference loop; writes one
 * CSV and prints a summary table (Gflop/s, GB/s, beta, % of the model's limit, speed-up). A file that cannot be
 * read or multiplied is skipped with the reason and the run goes on. Returns the exit status (0 if at least one
 * matrix ran, 1 if none did, 2 on a usage error). */
int bench_suite_main(const char *prog, int argc, char **argv);

/* The lines bench_suite_main understands, for spmv-bench's usage text. */
void bench_suite_usage(FILE *f);

/* spmv-bench --auto: fill o (C, sigma, rcm, nthreads; o->permuted is kept) with the choice recorded for A on this
 * machine (spmv_tune_db_find in the default database, $SPMV_TUNE_DB to override), else the model defaults
 * (spmv_tune_auto_params: C and sigma; rcm 0; nthreads unchanged). Prints one line "auto     ..." on stdout that
 * says which. Returns 0, or 1 after printing the error. */
int bench_auto_opts(const char *prog, const spmv_crs *A, spmv_sell_opts *o);

#endif
