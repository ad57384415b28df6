/* Test helpers shared by the CUnit executables. */
#ifndef SPMV_TESTUTIL_H
#define SPMV_TESTUTIL_H

#include "spmv.h"
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdint.h>

/* Register one suite: tu_suite("name", (tu_case[]){{"case", fn}, ..., {NULL, NULL}}). */
typedef struct tu_case { const char *name; void (*fn)(void); } tu_case;
void tu_suite(const char *name, const tu_case *cases);
/* Run everything registered; returns the process exit code (0 all passed, 1 any failure). */
int tu_run(void);

/* Exit with 77 (CTest: skipped) when the kernel family forced by SPMV_ARCH is not available here. */
void tu_require_arch(void);

/* Path of a file under the shared matrices folder (static buffer), and whether that folder exists. */
const char *tu_shared(const char *name);
int tu_have_shared(void);

/* Independent reference y = A*x computed from the CRS arrays in long double, plus absax = (|A||x|)_i. */
void tu_ref_mv(const spmv_crs *A, const double *x, double *y, double *absax);
/* Reference straight from COO triplets (0-based), for checks independent of the CRS builder. */
void tu_ref_mv_coo(int32_t rows, int64_t nnz, const int32_t *r, const int32_t *c, const double *v,
                   const double *x, double *y, double *absax);

/* Count of i with |y_i - yref_i| > tol * absax_i (NaN/Inf must match exactly); prints the first few misses. */
int64_t tu_count_mismatch(const double *y, const double *yref, const double *absax, int64_t n, double tol,
                          const char *what);

/* The ISA-independent tolerance of the issues: 1e-12 * (|A||x|)_i */
#define TU_TOL 1e-12

/* Load a JSON file (aborts the test process with a message if it cannot). */
json_t *tu_load_json(const char *path);

/* Deterministic pseudo-random numbers (xorshift64*), for matrices and vectors made in the tests. */
uint64_t tu_rand(uint64_t *state);
double tu_rand_unit(uint64_t *state); /* in [-1, 1) */

#endif
