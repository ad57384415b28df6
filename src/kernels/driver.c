/* The one OpenMP driver: runs a matrix's kernel on the thread partition stored in the matrix. Kernels are serial
 * over a range; parallelism lives here only. */
#include "internal.h"
#include "kernel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* 1 when [a, a+na) and [b, b+nb) (doubles) overlap */
static int overlap(const double *a, int64_t na, const double *b, int64_t nb)
{
    uintptr_t a0 = (uintptr_t)a, a1 = a0 + (uintptr_t)na * sizeof(double);
    uintptr_t b0 = (uintptr_t)b, b1 = b0 + (uintptr_t)nb * sizeof(double);
    return na > 0 && nb > 0 && a0 < b1 && b0 < a1;
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int thread_count(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* Threads that run the parts of a multiply: one per part, but at most one per SPMV_MIN_WORK_PER_RUN stored entries
 * (at least 1): below that a second thread costs more (starting and joining the team, ~1-2 us) than it saves, so a
 * tiny matrix partitioned for many threads runs on fewer. The parts, and so the results (the per-part sums of the
 * fused multiply included), do not change: a thread runs several parts in order. */
#define SPMV_MIN_WORK_PER_RUN ((int64_t)16384)
static int32_t team_size(int32_t nparts, int64_t work)
{
    int64_t t = work / SPMV_MIN_WORK_PER_RUN;
    if (t < 1) t = 1;
    return nparts < t ? nparts : (int32_t)t;
}

/* y = beta*y over n entries (beta = 0: y = 0, y not read): the multiply of a matrix without stored entries, done
 * here so that no kernel forms pointers into NULL col/val arrays. */
static void scale_y(double *y, int64_t n, double beta)
{
    for (int64_t i = 0; i < n; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

spmv_status spmv_crs_mv(const spmv_crs *A, double alpha, const double *x, double beta, double *y)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: argument A is NULL");
    if (!x && A->cols > 0) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: argument x is NULL (length %d)", A->cols);
    if (!y && A->rows > 0) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: argument y is NULL (length %d)", A->rows);
    if (overlap(x, A->cols, y, A->rows))
        return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: x and y overlap (y = A x needs distinct arrays)");
    const spmv_kernel *k = A->kernel ? A->kernel : &spmv__k_crs_ref;
    if (A->nnz == 0) {
        scale_y(y, A->rows, beta);
        return SPMV_OK;
    }
    if (A->nparts <= 1 || !A->part) {
        k->crs(A, 0, A->rows, alpha, x, beta, y);
        return SPMV_OK;
    }
#pragma omp parallel num_threads(team_size(A->nparts, A->nnz))
    {
        /* the runtime may give fewer threads than parts: every part still runs once */
        for (int t = thread_id(); t < A->nparts; t += thread_count())
            k->crs(A, A->part[t], A->part[t + 1], alpha, x, beta, y);
    }
    return SPMV_OK;
}

spmv_status spmv_sell_mv(const spmv_sell *S, double alpha, const double *x, double beta, double *y)
{
    if (!S) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: argument S is NULL");
    if (!x && S->cols > 0) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: argument x is NULL (length %d)", S->cols);
    if (!y && S->rows > 0) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: argument y is NULL (length %d)", S->rows);
    if (overlap(x, S->cols, y, S->rows))
        return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: x and y overlap (y = A x needs distinct arrays)");
    const spmv_kernel *k = S->kernel ? S->kernel : &spmv__k_sell_ref;
    if (S->stored == 0) {
        scale_y(y, S->rows, beta);
        return SPMV_OK;
    }
    if (S->nparts <= 1 || !S->part) {
        k->sell(S, 0, S->nchunks, alpha, x, beta, y);
        return SPMV_OK;
    }
#pragma omp parallel num_threads(team_size(S->nparts, S->stored))
    {
        for (int t = thread_id(); t < S->nparts; t += thread_count())
            k->sell(S, S->part[t], S->part[t + 1], alpha, x, beta, y);
    }
    return SPMV_OK;
}

/* Rows of y reduced per block in the fused multiply: 2048 rows = 16 KiB of y, still in L1/L2 when reduced. */
enum { DOT_BLOCK_ROWS = 2048 };

/* <x, y> and <y, y> over rows [r0, r1) of the vectors, through map (NULL: identity) */
static void dots(const double *x, const double *y, const int32_t *map, int64_t r0, int64_t r1, double *xy, double *yy)
{
    double a = 0.0, b = 0.0;
    if (map)
        for (int64_t i = r0; i < r1; i++) {
            double v = y[map[i]];
            a += x[map[i]] * v;
            b += v * v;
        }
    else
        for (int64_t i = r0; i < r1; i++) {
            a += x[i] * y[i];
            b += y[i] * y[i];
        }
    *xy += a;
    *yy += b;
}

/* Part t of the fused multiply: the kernel over blocks of rows (CRS) or chunks (SELL), each block reduced right
 * after it is written. */
static void mv_dot_part(const spmv_crs *A, const spmv_sell *S, int t, double alpha, const double *x, double beta,
                        double *y, double *sum)
{
    if (A) {
        for (int32_t r = A->part[t]; r < A->part[t + 1]; r += DOT_BLOCK_ROWS) {
            int32_t e = A->part[t + 1] - r < DOT_BLOCK_ROWS ? A->part[t + 1] : r + DOT_BLOCK_ROWS;
            A->kernel->crs(A, r, e, alpha, x, beta, y);
            dots(x, y, NULL, r, e, &sum[0], &sum[1]);
        }
        return;
    }
    const int32_t step = DOT_BLOCK_ROWS / S->C > 0 ? DOT_BLOCK_ROWS / S->C : 1;
    for (int32_t k = S->part[t]; k < S->part[t + 1]; k += step) {
        int32_t e = S->part[t + 1] - k < step ? S->part[t + 1] : k + step;
        S->kernel->sell(S, k, e, alpha, x, beta, y);
        int64_t r0 = (int64_t)k * S->C, r1 = (int64_t)e * S->C < S->rows ? (int64_t)e * S->C : S->rows;
        dots(x, y, S->permuted ? NULL : S->perm, r0, r1, &sum[0], &sum[1]);
    }
}

static spmv_status mv_dot(const char *fn, const spmv_crs *A, const spmv_sell *S, double alpha, const double *x,
                          double beta, double *y, double *xy, double *yy)
{
    int32_t rows = A ? A->rows : S->rows, cols = A ? A->cols : S->cols, nparts = A ? A->nparts : S->nparts;
    if (rows != cols) return spmv__error(SPMV_ERR_ARG, "%s: matrix is %d x %d, not square", fn, rows, cols);
    if (rows > 0 && (!x || !y)) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, x ? "y" : "x");
    if (overlap(x, cols, y, rows)) return spmv__error(SPMV_ERR_ARG, "%s: x and y overlap", fn);
    if ((A && (!A->kernel || !A->part)) || (S && (!S->kernel || !S->part)))
        return spmv__error(SPMV_ERR_ARG, "%s: matrix was not built by the library", fn);
    if ((A ? A->nnz : S->stored) == 0) { /* no entries: y = beta y, then the dots */
        scale_y(y, rows, beta);
        double a = 0.0, b = 0.0;
        for (int32_t i = 0; i < rows; i++) {
            a += x[i] * y[i];
            b += y[i] * y[i];
        }
        if (xy) *xy = a;
        if (yy) *yy = b;
        return SPMV_OK;
    }
    double *sum = spmv__calloc(2 * (size_t)nparts, sizeof *sum);
    if (!sum) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %d partial sums", fn, nparts);
    if (nparts <= 1)
        mv_dot_part(A, S, 0, alpha, x, beta, y, sum);
    else {
#pragma omp parallel num_threads(team_size(nparts, A ? A->nnz : S->stored))
        for (int t = thread_id(); t < nparts; t += thread_count()) mv_dot_part(A, S, t, alpha, x, beta, y, sum + 2 * t);
    }
    double a = 0.0, b = 0.0;
    for (int32_t t = 0; t < nparts; t++) { /* part order: deterministic for a given partition */
        a += sum[2 * t];
        b += sum[2 * t + 1];
    }
    spmv__free(sum);
    if (xy) *xy = a;
    if (yy) *yy = b;
    return SPMV_OK;
}

spmv_status spmv_crs_mv_dot(const spmv_crs *A, double alpha, const double *x, double beta, double *y, double *xy,
                            double *yy)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv_dot: argument A is NULL");
    return mv_dot("spmv_crs_mv_dot", A, NULL, alpha, x, beta, y, xy, yy);
}

spmv_status spmv_sell_mv_dot(const spmv_sell *S, double alpha, const double *x, double beta, double *y, double *xy,
                             double *yy)
{
    if (!S) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv_dot: argument S is NULL");
    return mv_dot("spmv_sell_mv_dot", NULL, S, alpha, x, beta, y, xy, yy);
}

const char *spmv_crs_kernel_name(const spmv_crs *A)
{
    return A && A->kernel ? A->kernel->name : spmv__k_crs_ref.name;
}

const char *spmv_sell_kernel_name(const spmv_sell *S)
{
    return S && S->kernel ? S->kernel->name : spmv__k_sell_ref.name;
}

spmv_status spmv_crs_traffic(const spmv_crs *A, spmv_traffic *t)
{
    if (!A || !t) return spmv__error(SPMV_ERR_ARG, "spmv_crs_traffic: argument %s is NULL", A ? "t" : "A");
    *t = (A->kernel ? A->kernel : &spmv__k_crs_ref)->traffic;
    return SPMV_OK;
}

spmv_status spmv_sell_traffic(const spmv_sell *S, spmv_traffic *t)
{
    if (!S || !t) return spmv__error(SPMV_ERR_ARG, "spmv_sell_traffic: argument %s is NULL", S ? "t" : "S");
    const spmv_kernel *k = S->kernel ? S->kernel : &spmv__k_sell_ref;
    *t = k->traffic;
    /* the original vector order reads perm[i] (4 bytes) per row to scatter y */
    if (!S->permuted) t->bytes_per_row += 4;
    /* run columns read by run loads: value + mask bit per lane and a base per column, no index per entry; gather
     * entries with 16-bit indices: value + offset */
    const double stored = (double)S->stored;
    const int runs = k->shape.runs && S->nruns > 0 && t->bytes_per_run_lane > 0;
    const int i16 = k->shape.idx16 && S->nidx16 > 0 && t->bytes_per_entry16 > 0;
    if (stored > 0 && (runs || i16)) {
        const double lanes = runs ? (double)S->nruns * S->C : 0.0, n16 = i16 ? (double)S->nidx16 : 0.0;
        t->bytes_per_entry = ((stored - lanes - n16) * t->bytes_per_entry + lanes * t->bytes_per_run_lane +
                              (runs ? (double)S->nruns * t->bytes_per_run : 0.0) + n16 * t->bytes_per_entry16) /
                             stored;
    }
    return SPMV_OK;
}

spmv_status spmv_crs_kernel_shape(const spmv_crs *A, spmv_kernel_shape *k)
{
    if (!A || !k) return spmv__error(SPMV_ERR_ARG, "spmv_crs_kernel_shape: argument %s is NULL", A ? "k" : "A");
    *k = spmv__kernel_shape(A->kernel ? A->kernel : &spmv__k_crs_ref, 0);
    return SPMV_OK;
}

spmv_status spmv_sell_kernel_shape(const spmv_sell *S, spmv_kernel_shape *k)
{
    if (!S || !k) return spmv__error(SPMV_ERR_ARG, "spmv_sell_kernel_shape: argument %s is NULL", S ? "k" : "S");
    *k = spmv__kernel_shape(S->kernel ? S->kernel : &spmv__k_sell_ref, S->C);
    /* a matrix without run columns runs no run loads, whatever the kernel can do; the same for 16-bit indices */
    if (S->nruns == 0) k->runs = 0;
    if (S->nidx16 == 0) k->idx16 = 0;
    return SPMV_OK;
}

double spmv_traffic_bytes(const spmv_traffic *t, int64_t stored, int64_t nnz, int64_t rows, int64_t nchunks,
                          double alpha_x)
{
    if (!t) return 0.0;
    return (double)stored * t->bytes_per_entry + (double)rows * t->bytes_per_row +
           (double)nchunks * t->bytes_per_chunk + 8.0 * alpha_x * (double)nnz;
}
