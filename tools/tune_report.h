/* Output of spmv-tune: the table, the recommendation, CSV, JSON and gnuplot plots. Tools only. */
#ifndef SPMV_TUNE_REPORT_H
#define SPMV_TUNE_REPORT_H

#include "spmv_tune.h"
#include "tune_machine.h"

#include <stdio.h>

typedef struct tune_report {
    const char *matrix;              /* label */
    const spmv_crs *A;
    spmv_tune_fingerprint fp;
    spmv_tune_host host;
    const tune_machine *tm;          /* tm->have = 0: no model */
    const spmv_tune_result *r;
    const spmv_sell *S;              /* the chosen matrix (for the model curves); may be NULL */
    const char *db;                  /* database path, or NULL when not recorded */
    int permuted;
} tune_report;

/* "CRS", "SELL-8-32" (σ as given) */
const char *tune_point_name(const spmv_tune_point *p, char *buf, size_t size);
const char *tune_stage_name(int32_t stage);
/* the kernel variant of a SELL point: "runs", "i16", "vi", "nt" joined by commas (run columns, 16-bit indices, value
 * indices, non-temporal y stores), "-" for none or CRS */
const char *tune_point_variant(const spmv_tune_point *p, char *buf, size_t size);

/* 1: the chosen SELL-C-sigma beat the fastest CRS point in the final comparison (or CRS was not measured) */
int tune_sell_wins(const spmv_tune_result *r);

void tune_print_table(FILE *f, const tune_report *t);
void tune_print_recommendation(FILE *f, const tune_report *t);

/* Return 0 on success; print "PROG: ..." to stderr on failure. */
int tune_write_csv(const char *prog, const char *path, const tune_report *t);
int tune_write_json(const char *prog, const char *path, const tune_report *t, double total_s);
/* Writes DIR/threads.png and DIR/sigma.png (with their .dat files and plots.gp); without gnuplot on PATH only the
 * data and the script, with a message (returns 0). gnuplot writes each PNG to a temporary file that replaces the
 * PNG only when gnuplot exits 0 and the file is a whole PNG (signature to IEND). Returns 1 after a message when a
 * file cannot be written or gnuplot fails. */
int tune_write_plots(const char *prog, const char *dir, const tune_report *t);

/* JSON string literal of s (quotes included) into f */
void tune_json_string(FILE *f, const char *s);

#endif
