/* Reference CRS kernel: portable C, one row at a time. */
#include "kernel.h"

/* y[r] = beta*y[r] + alpha*sum_j A[r,j]*x[j], rows [r0,r1); beta == 0: y not read */
static void crs_ref(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta, double *y)
{
    const int64_t *rp = A->rowptr;
    const int32_t *col = A->col;
    const double *val = A->val;
    if (alpha == 1.0 && beta == 0.0) { /* fast path: y = A x */
        for (int32_t r = r0; r < r1; r++) {
            double s = 0.0;
            for (int64_t k = rp[r]; k < rp[r + 1]; k++) s += val[k] * x[col[k]];
            y[r] = s;
        }
        return;
    }
    for (int32_t r = r0; r < r1; r++) {
        double s = 0.0;
        for (int64_t k = rp[r]; k < rp[r + 1]; k++) s += val[k] * x[col[k]];
        y[r] = beta == 0.0 ? alpha * s : beta * y[r] + alpha * s;
    }
}

/* sum_k val[k]*x[col[k]], k in [0, n): a piece of a row split between threads (the same loop as a row) */
static double crs_ref_dot(const double *val, const int32_t *col, int64_t n, const double *x)
{
    double s = 0.0;
    for (int64_t k = 0; k < n; k++) s += val[k] * x[col[k]];
    return s;
}

/* Traffic per multiply: 8-byte value + 4-byte index per entry; 4-byte row offset (8 here: int64 offsets) ...
 * The paper's form (Sect. IV) is N_nzr*(12 + 8 alpha) + 20 bytes per row with 4-byte offsets; spmv stores int64
 * offsets, so a row costs 8 (offset) + 8 (y store) + 8 (y write-allocate) = 24 bytes. */
const spmv_kernel spmv__k_crs_ref = {
    .name = "crs-ref", .arch = SPMV_ARCH_REF, .crs = crs_ref, .dot = crs_ref_dot,
    .traffic = {.bytes_per_entry = 12, .bytes_per_row = 24, .bytes_per_chunk = 0, .flops_per_entry = 2},
    /* one row at a time, one partial sum, scalar loads of index, value and x */
    .shape = {.format = SPMV_FORMAT_CRS, .C = 0, .width = 1, .mve = 1, .x = SPMV_X_SCALAR, .runs = 0,
              .len_branch = {{1, 0, 0}}}, /* the row's loop */
};
