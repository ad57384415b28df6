/* Tuning internals shared by the library's translation units (not installed). */
#ifndef SPMV_TUNE_INTERNAL_H
#define SPMV_TUNE_INTERNAL_H

#include "spmv_tune.h"

/* Auto parameters for spmv_sell_from_crs: when o->C == 0 or o->sigma == 0, replace them by the recorded choice for
 * A on this machine, else by the model defaults (spmv_tune_auto_params; SPMV_VERBOSE=1 says which). Call at the top
 * of spmv_sell_from_crs on a copy of the caller's options:
 *     spmv_sell_opts o = *opts;
 *     if (o.C == 0 || o.sigma == 0) { st = spmv__sell_auto_params(A, &o); if (st) return st; }
 * Errors: as spmv_tune_auto_params (the message is set). */
spmv_status spmv__sell_auto_params(const spmv_crs *A, spmv_sell_opts *o);

/* Share of A's nonzeros in run columns of threshold T in SELL-C-1 from a sample of chunks (src/formats/sell.c). */
double spmv__sell_run_share(const spmv_crs *A, int32_t C, int32_t T, int32_t sample, double *per_chunk);

/* The record of recs[0..n) for machine h and matrix f, preferring one measured in vector order `permuted`, the last
 * one on ties (a later import overrides an earlier one; a database holds one per order); -1 when none matches
 * (src/tune/db.c: spmv_tune_db_find over a file, spmv_wisdom_find over the imported records). */
int32_t spmv__tune_record_pick(const spmv_tune_record *recs, int32_t n, const spmv_tune_host *h,
                               const spmv_tune_fingerprint *f, int permuted);

/* SPMV_VERBOSE set and not "0". */
int spmv__tune_verbose(void);

#endif
