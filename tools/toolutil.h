/* Shared helpers of the command-line tools (not part of the library). */
#ifndef SPMV_TOOLUTIL_H
#define SPMV_TOOLUTIL_H

#include "spmv.h"

/* Parse a whole decimal integer in [lo, hi]; on failure print "PROG: OPTION: ..." to stderr and return 0. */
int tool_parse_int(const char *prog, const char *opt, const char *s, long lo, long hi, long *out);

/* Load the matrix named by a spec: a Matrix Market path, or "hpcg:NX[,NY,NZ]" (the built-in HPCG stencil).
 * Prints the library's error on failure and returns its status. name: a short label (static buffer). */
spmv_status tool_load(const char *prog, const char *spec, spmv_crs **A, const char **name);

/* Print the library's last error as "PROG: text (status)". */
void tool_error(const char *prog, spmv_status st);

/* Wall clock in seconds. */
double tool_now(void);

/* Check y = A*x against an independent serial CRS loop: returns the largest |y_i - yref_i| / (|A||x|)_i
 * (0 for exact), or +inf when a NaN/Inf differs. */
double tool_check(const spmv_crs *A, const double *x, const double *y);

#endif
