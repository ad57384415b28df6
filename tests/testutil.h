/* Test helpers shared by the CUnit executables. */
#ifndef SPMV_TESTUTIL_H
#define SPMV_TESTUTIL_H

#include "spmv_tune.h"
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdint.h>

/* Register one suite: tu_suite("name", (tu_case[]){{"case", fn}, ..., {NULL, NULL}}). */
typedef struct tu_case { const char *name; void (*fn)(void); } tu_case;
void tu_suite(const char *name, const tu_case *cases);
/* Run everything registered; returns the process exit code: 1 when anything failed, else 77 (CTest: skipped, with
 * SKIP_RETURN_CODE 77) when a part was skipped for missing input (tu_skip), else 0. */
int tu_run(void);

/* Record that part of a test could not run because its input is missing (printed with the reason). The other cases
 * still run; tu_run then returns 77 when nothing failed, so a missing input shows as "skipped", never as "passed". */
void tu_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Number of skips recorded so far. */
int tu_skipped(void);

/* Exit with 77 (CTest: skipped) when the kernel family forced by SPMV_ARCH is not available here. */
void tu_require_arch(void);

/* The shared matrices folder: $SPMV_TEST_MATRICES when set and not empty (a run can point it elsewhere, or at a
 * missing folder to see what is skipped), else the configured SPMV_SHARED_MATRICES (../shared/matrices). */
const char *tu_shared_dir(void);
/* Path of a file under the shared matrices folder (static buffer), and whether that folder exists. */
const char *tu_shared(const char *name);
int tu_have_shared(void);
/* Whether the shared folder exists; when it does not, records a skip (tu_skip) naming the folder and `what`. */
int tu_need_shared(const char *what);
/* Read a named shared matrix: NULL with a skip recorded when the folder is missing or the library cannot read
 * Matrix Market files (built without SuiteSparse), NULL with a CUnit failure when the file is missing or rejected
 * (the folder is there, so that is a defect of the test or the reader). */
spmv_crs *tu_read_shared(const char *name);

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
