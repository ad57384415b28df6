/* One handle for solvers (inspector-executor): create from CRS arrays (copied or borrowed) or a file, hints,
 * optimize (format, C, sigma, run columns, x access, threads), multiply, fused multiply-and-dot, value update, vector
 * order helpers. The CRS and SELL functions stay for experts; the handle only calls them.
 *
 * The decision in spmv_matrix_optimize (see its docstring in spmv.h):
 *  1. the parameters: the imported wisdom's record for this matrix and machine (spmv_wisdom_import), else the
 *     model's defaults (spmv_tune_default_chunk_height, spmv_tune_default_sigma; run columns and 16-bit indices
 *     on; the family's x access);
 *  2. the break-even: converting pays off after t_convert / (t_crs - t_sell) multiplies. t_convert is estimated as
 *     SPMV_CONVERT_MVS CRS multiplies until a trial measures it; t_sell / t_crs from the kernels' declared traffic
 *     (the memory-bound ratio, a conservative bound for in-cache matrices where SELL gains more). Fewer expected
 *     multiplies than the break-even: stay in CRS and say so;
 *  3. with a trial budget (hints.trial_seconds > 0): convert, time CRS and SELL alternately, keep the faster. */
#include "internal.h"
#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* A CRS -> SELL conversion costs about this many CRS multiplies before it is measured (spmv's conversion on HPCG
 * and Laplacians at 1-2 threads, BENCHMARKS.md "preparation"): the break-even estimate's numerator. */
#define SPMV_CONVERT_MVS 20.0

struct spmv_matrix {
    spmv_crs *A;        /* the CRS matrix (owned copy, or borrowing the caller's arrays) */
    spmv_sell *S;       /* the optimized SELL-C-sigma matrix, or NULL (the handle multiplies in CRS) */
    int borrowed;       /* 1: A borrows the caller's arrays */
    spmv_hints hints;
    spmv_matrix_info info;
};

spmv_hints spmv_hints_default(void)
{
    spmv_hints h;
    memset(&h, 0, sizeof h);
    h.expected_calls = 1000;
    h.nthreads = 0;
    h.permuted_ok = 0;
    h.reorder_ok = 0;
    h.memory_budget = 0;
    h.trial_seconds = 0.0;
    return h;
}

static void info_crs(spmv_matrix *M, const char *reason)
{
    spmv_matrix_info *i = &M->info;
    i->format = SPMV_FORMAT_CRS;
    i->C = i->sigma = 0;
    i->rcm = i->permuted = 0;
    i->runs = i->idx16 = i->vidx = 0;
    i->nthreads = M->A->nparts;
    i->stored = M->A->nnz;
    i->bytes = 0;
    snprintf(i->kernel, sizeof i->kernel, "%s", spmv_crs_kernel_name(M->A));
    snprintf(i->reason, sizeof i->reason, "%s", reason);
}

static spmv_status wrap_new(spmv_crs *A, int borrowed, spmv_matrix **out)
{
    spmv_matrix *M = spmv__calloc(1, sizeof *M);
    if (!M) {
        spmv_crs_free(A);
        return spmv__error(SPMV_ERR_NOMEM, "spmv_matrix_create: out of memory for the handle");
    }
    M->A = A;
    M->borrowed = borrowed;
    M->hints = spmv_hints_default();
    info_crs(M, "not optimized yet: CRS");
    *out = M;
    return SPMV_OK;
}

spmv_status spmv_matrix_create_crs(int32_t rows, int32_t cols, const int64_t *rowptr, const int32_t *col,
                                   const double *val, spmv_ownership own, spmv_matrix **M)
{
    if (!M) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_create_crs: argument M is NULL");
    *M = NULL;
    spmv_crs *A = NULL;
    spmv_status st;
    if (own == SPMV_BORROW) {
        if (!val && rowptr && rows >= 0 && rowptr[rows] > 0)
            return spmv__error(SPMV_ERR_ARG, "spmv_matrix_create_crs: a borrowed matrix needs its values (val is "
                                             "NULL)");
        st = spmv_crs_wrap(rows, cols, (int64_t *)rowptr, (int32_t *)col, (double *)val, &A);
    } else if (own == SPMV_COPY) {
        st = spmv_crs_from_arrays(rows, cols, rowptr, col, val, &A);
    } else {
        return spmv__error(SPMV_ERR_ARG, "spmv_matrix_create_crs: own = %d is neither SPMV_COPY nor SPMV_BORROW",
                           (int)own);
    }
    if (st) return st;
    return wrap_new(A, own == SPMV_BORROW, M);
}

spmv_status spmv_matrix_create_file(const char *path, spmv_matrix **M)
{
    if (!M) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_create_file: argument M is NULL");
    *M = NULL;
    if (!path) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_create_file: argument path is NULL");
    if (!*path) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_create_file: argument path is empty");
    spmv_crs *A = NULL;
    spmv_status st = spmv_crs_read_mm(path, &A);
    if (st) return st;
    return wrap_new(A, 0, M);
}

void spmv_matrix_free(spmv_matrix *M)
{
    if (!M) return;
    spmv_sell_free(M->S);
    spmv_crs_free(M->A);
    spmv__free(M);
}

spmv_status spmv_matrix_set_hints(spmv_matrix *M, const spmv_hints *h)
{
    if (!M || !h) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_set_hints: argument %s is NULL", M ? "h" : "M");
    if (h->expected_calls < 0)
        return spmv__error(SPMV_ERR_ARG, "spmv_matrix_set_hints: expected_calls = %lld < 0",
                           (long long)h->expected_calls);
    if (h->nthreads < 0 || h->nthreads > SPMV_MAX_THREADS)
        return spmv__error(SPMV_ERR_ARG, "spmv_matrix_set_hints: nthreads = %d outside 0..%d", h->nthreads,
                           SPMV_MAX_THREADS);
    if (h->memory_budget < 0)
        return spmv__error(SPMV_ERR_ARG, "spmv_matrix_set_hints: memory_budget = %lld < 0",
                           (long long)h->memory_budget);
    if (!(h->trial_seconds >= 0) || !isfinite(h->trial_seconds))
        return spmv__error(SPMV_ERR_ARG, "spmv_matrix_set_hints: trial_seconds = %g must be >= 0", h->trial_seconds);
    M->hints = *h;
    return SPMV_OK;
}

/* Bytes of one multiply under a traffic declaration, x read once (alpha = cols/nnz). */
static double mv_bytes(const spmv_traffic *t, int64_t stored, int64_t nnz, int64_t rows, int64_t nchunks,
                       int64_t cols)
{
    return spmv_traffic_bytes(t, stored, nnz, rows, nchunks, nnz > 0 ? (double)cols / (double)nnz : 0.0);
}

/* Median of three timings of f on M (s per multiply), reps multiplies each. */
static double time_mv(const spmv_crs *A, const spmv_sell *S, const double *x, double *y, int reps)
{
    double t[3];
    for (int k = 0; k < 3; k++) {
        double t0 = spmv__now();
        for (int r = 0; r < reps; r++) {
            if (S) spmv_sell_mv(S, 1.0, x, 0.0, y);
            else spmv_crs_mv(A, 1.0, x, 0.0, y);
        }
        t[k] = (spmv__now() - t0) / reps;
    }
    double a = t[0] < t[1] ? t[0] : t[1], b = t[0] < t[1] ? t[1] : t[0];
    return t[2] < a ? a : t[2] > b ? b : t[2];
}

spmv_status spmv_matrix_optimize(spmv_matrix *M)
{
    static const char fn[] = "spmv_matrix_optimize";
    if (!M) return spmv__error(SPMV_ERR_ARG, "%s: argument M is NULL", fn);
    const spmv_hints *h = &M->hints;
    spmv_crs *A = M->A;
    const double t_start = spmv__now();
    spmv_status st = spmv_crs_set_threads(A, h->nthreads);
    if (st) return st;
    spmv_sell_free(M->S);
    M->S = NULL;
    memset(&M->info, 0, sizeof M->info);
    char why[256];
    if (A->rows == 0 || A->nnz == 0) {
        info_crs(M, "CRS: the matrix has no entries");
        M->info.t_optimize = spmv__now() - t_start;
        return SPMV_OK;
    }

    /* 1. parameters: imported wisdom, else the model */
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = 0;
    o.sigma = 0;
    o.permuted = h->permuted_ok ? 1 : 0;
    o.nthreads = h->nthreads;
    spmv_tune_source src = SPMV_TUNE_MODEL;
    if ((st = spmv_tune_auto_params(A, &o, &src))) return st;
    o.rcm = h->reorder_ok && o.rcm && A->rows == A->cols;
    if (!h->reorder_ok) o.rcm = 0;

    /* the memory budget: SELL's arrays next to CRS's (default: as much again as CRS) */
    int64_t stored = 0;
    if ((st = spmv_tune_stored(A, o.C, o.sigma, 1, NULL, &stored))) return st;
    const double crs_bytes = (double)A->nnz * 12.0 + 8.0 * (A->rows + 1.0);
    const double sell_bytes = (double)stored * 15.0 + 16.0 * A->rows; /* values, 32- and 16-bit indices, value
                                                                         indices, perm */
    const double budget = h->memory_budget > 0 ? (double)h->memory_budget : 2.0 * crs_bytes;
    if (sell_bytes > budget) {
        snprintf(why, sizeof why, "CRS: SELL-%d-%d would take %.0f MB (%lld stored entries for %lld nonzeros), above "
                 "the memory budget of %.0f MB", o.C, o.sigma, sell_bytes * 1e-6, (long long)stored,
                 (long long)A->nnz, budget * 1e-6);
        info_crs(M, why);
        M->info.t_optimize = spmv__now() - t_start;
        return SPMV_OK;
    }

    /* 2. break-even from the declared traffic before building anything */
    spmv_traffic tc, ts;
    if ((st = spmv_crs_traffic(A, &tc))) return st;
    const spmv_kernel *ks = spmv__sell_kernel_for(o.C, spmv__sell_xaccess(o.xaccess));
    ts = ks ? ks->traffic : spmv__k_sell_ref.traffic;
    if (ts.bytes_per_entry16 > 0 && spmv__sell_idx16_wanted(o.idx16, stored) && A->cols <= 65536) ts.bytes_per_entry = ts.bytes_per_entry16;
    if (!o.permuted && !(o.sigma == 1 && !o.rcm)) ts.bytes_per_row += 4; /* perm read: not for an identity */
    const int64_t nch = (A->rows + o.C - 1) / o.C;
    double ratio = mv_bytes(&ts, stored, A->nnz, A->rows, nch, A->cols) /
                   mv_bytes(&tc, A->nnz, A->nnz, A->rows, 0, A->cols);
    if (ratio > 0.95) ratio = 0.95; /* in cache SELL's gain is in-core: assume at least 5 % */
    const double break_even = SPMV_CONVERT_MVS / (1.0 - ratio);
    M->info.break_even = break_even;
    if ((double)h->expected_calls < break_even) {
        snprintf(why, sizeof why, "CRS: %lld expected multiplies are below the break-even of about %.0f (a conversion "
                 "costs about %.0f CRS multiplies; SELL-%d-%d is estimated at %.2f of CRS's time)",
                 (long long)h->expected_calls, break_even, SPMV_CONVERT_MVS, o.C, o.sigma, ratio);
        info_crs(M, why);
        M->info.t_optimize = spmv__now() - t_start;
        return SPMV_OK;
    }

    /* 3. convert */
    double t0 = spmv__now();
    spmv_sell *S = NULL;
    if ((st = spmv_sell_from_crs(A, &o, &S))) return st;
    const double t_convert = spmv__now() - t0;
    M->info.t_convert = t_convert;
    int keep = 1;
    if (h->trial_seconds > 0) { /* a short trial: CRS against SELL, alternately */
        double *x = NULL, *y = NULL;
        if ((st = spmv_vec_alloc(A->cols, &x)) || (st = spmv_vec_alloc(A->rows, &y))) {
            spmv_vec_free(x);
            spmv_sell_free(S);
            return st;
        }
        for (int32_t j = 0; j < A->cols; j++) x[j] = 1.0 + (double)(j % 7) / 7.0;
        double t1 = spmv__now();
        spmv_crs_mv(A, 1.0, x, 0.0, y);
        double one = spmv__now() - t1;
        int reps = one > 0 ? (int)(h->trial_seconds / 6.0 / one) : 1;
        if (reps < 1) reps = 1;
        if (reps > 1000) reps = 1000;
        double tcrs = time_mv(A, NULL, x, y, reps), tsell = time_mv(A, S, x, y, reps);
        spmv_vec_free(x);
        spmv_vec_free(y);
        M->info.t_crs = tcrs;
        M->info.t_sell = tsell;
        const double be = tsell < tcrs ? t_convert / (tcrs - tsell) : HUGE_VAL;
        M->info.break_even = be;
        keep = tsell < tcrs;
        if (!keep)
            snprintf(why, sizeof why, "CRS: the trial measured SELL-%d-%d at %.3g ms against CRS at %.3g ms", o.C,
                     o.sigma, tsell * 1e3, tcrs * 1e3);
    }
    if (!keep) {
        spmv_sell_free(S);
        info_crs(M, why);
        M->info.t_optimize = spmv__now() - t_start;
        return SPMV_OK;
    }
    M->S = S;
    spmv_matrix_info *i = &M->info;
    i->format = SPMV_FORMAT_SELL;
    i->C = S->C;
    i->sigma = S->sigma;
    i->rcm = o.rcm;
    i->permuted = S->permuted;
    i->runs = S->nruns > 0;
    i->idx16 = S->nidx16 > 0;
    i->vidx = S->nvals > 0;
    i->nthreads = S->nparts;
    i->stored = S->stored;
    snprintf(i->kernel, sizeof i->kernel, "%s", spmv_sell_kernel_name(S));
    snprintf(i->reason, sizeof i->reason, "SELL-%d-%d (%s), %lld run columns, beta %.3f; converted in %.3g s; "
             "break-even about %.0f multiplies", S->C, S->sigma,
             src == SPMV_TUNE_RECORDED ? "the imported wisdom's choice" : "the model's defaults",
             (long long)S->nruns, spmv_sell_beta(S), t_convert, i->break_even);
    i->t_optimize = spmv__now() - t_start;
    return SPMV_OK;
}

spmv_status spmv_matrix_get_info(const spmv_matrix *M, spmv_matrix_info *info)
{
    if (!M || !info) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_get_info: argument %s is NULL", M ? "info" : "M");
    *info = M->info;
    return SPMV_OK;
}

spmv_status spmv_matrix_mv(const spmv_matrix *M, double alpha, const double *x, double beta, double *y)
{
    if (!M) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_mv: argument M is NULL");
    return M->S ? spmv_sell_mv(M->S, alpha, x, beta, y) : spmv_crs_mv(M->A, alpha, x, beta, y);
}

spmv_status spmv_matrix_mv_dot(const spmv_matrix *M, double alpha, const double *x, double beta, double *y,
                               double *xy, double *yy)
{
    if (!M) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_mv_dot: argument M is NULL");
    return M->S ? spmv_sell_mv_dot(M->S, alpha, x, beta, y, xy, yy) : spmv_crs_mv_dot(M->A, alpha, x, beta, y, xy, yy);
}

spmv_status spmv_matrix_update_values(spmv_matrix *M, const double *val)
{
    static const char fn[] = "spmv_matrix_update_values";
    if (!M) return spmv__error(SPMV_ERR_ARG, "%s: argument M is NULL", fn);
    spmv_crs *A = M->A;
    if (val && val != A->val && A->nnz > 0) memcpy(A->val, val, (size_t)A->nnz * sizeof *A->val);
    else if (!val && !M->borrowed)
        return spmv__error(SPMV_ERR_ARG, "%s: val is NULL (only a borrowed matrix takes NULL: its values were "
                                         "changed in place)", fn);
    if (!M->S) return SPMV_OK;
    const spmv_status st = spmv_sell_update_values(M->S, A);
    M->info.vidx = M->S->nvals > 0; /* new values may no longer fit the value table */
    return st;
}

int spmv_matrix_permuted(const spmv_matrix *M) { return M && M->S && M->S->permuted; }

spmv_status spmv_matrix_permute_vec(const spmv_matrix *M, const double *in, double *out)
{
    if (!M) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_permute_vec: argument M is NULL");
    if (spmv_matrix_permuted(M)) return spmv_sell_permute_vec(M->S, in, out);
    if (M->A->rows > 0 && (!in || !out))
        return spmv__error(SPMV_ERR_ARG, "spmv_matrix_permute_vec: argument %s is NULL", in ? "out" : "in");
    if (in != out && M->A->rows > 0) memmove(out, in, (size_t)M->A->rows * sizeof *out);
    return SPMV_OK;
}

spmv_status spmv_matrix_unpermute_vec(const spmv_matrix *M, const double *in, double *out)
{
    if (!M) return spmv__error(SPMV_ERR_ARG, "spmv_matrix_unpermute_vec: argument M is NULL");
    if (spmv_matrix_permuted(M)) return spmv_sell_unpermute_vec(M->S, in, out);
    if (M->A->rows > 0 && (!in || !out))
        return spmv__error(SPMV_ERR_ARG, "spmv_matrix_unpermute_vec: argument %s is NULL", in ? "out" : "in");
    if (in != out && M->A->rows > 0) memmove(out, in, (size_t)M->A->rows * sizeof *out);
    return SPMV_OK;
}

const spmv_crs *spmv_matrix_crs(const spmv_matrix *M) { return M ? M->A : NULL; }
const spmv_sell *spmv_matrix_sell(const spmv_matrix *M) { return M ? M->S : NULL; }
