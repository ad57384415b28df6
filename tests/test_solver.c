/* The solver-backend API: fused multiply with dot products, value updates, concurrent use of one matrix. */
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *rand_vec(int64_t n, uint64_t seed)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = tu_rand_unit(&seed);
    return v;
}

/* fused y = alpha A x + beta y, <x,y>, <y,y> against the reference on CRS and SELL in both orders */
static void test_mv_dot(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(9, 8, 7, &A), SPMV_OK);
    int32_t n = A->rows;
    double *x = rand_vec(n, 3), *y0 = rand_vec(n, 4), *y = malloc(n * sizeof *y), *yr = malloc(n * sizeof *y),
           *ab = malloc(n * sizeof *y), *xp = malloc(n * sizeof *y), *yp = malloc(n * sizeof *y);
    const double alpha = 1.5, beta = -0.5;
    tu_ref_mv(A, x, yr, ab);
    long double rxy = 0, ryy = 0, scale_xy = 0, scale_yy = 0;
    for (int i = 0; i < n; i++) {
        yr[i] = alpha * yr[i] + beta * y0[i];
        ab[i] = fabs(alpha) * ab[i] + fabs(beta * y0[i]);
        rxy += (long double)x[i] * yr[i];
        ryy += (long double)yr[i] * yr[i];
        scale_xy += fabsl((long double)x[i] * yr[i]);
        scale_yy += (long double)yr[i] * yr[i];
    }
    for (int threads = 1; threads <= 3; threads += 2) {
        double xy = NAN, yy = NAN;
        spmv_crs_set_threads(A, threads);
        memcpy(y, y0, n * sizeof *y);
        CU_ASSERT_EQUAL_FATAL(spmv_crs_mv_dot(A, alpha, x, beta, y, &xy, &yy), SPMV_OK);
        CU_ASSERT_EQUAL(tu_count_mismatch(y, yr, ab, n, TU_TOL, "crs_mv_dot"), 0);
        CU_ASSERT(fabs(xy - (double)rxy) <= 1e-12 * (double)scale_xy);
        CU_ASSERT(fabs(yy - (double)ryy) <= 1e-12 * (double)scale_yy);
        for (int permuted = 0; permuted <= 1; permuted++) {
            spmv_sell_opts o = spmv_sell_opts_default();
            o.C = 8;
            o.sigma = 64;
            o.permuted = permuted;
            o.nthreads = threads;
            spmv_sell *S = NULL;
            CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &o, &S), SPMV_OK);
            if (permuted) {
                spmv_sell_permute_vec(S, x, xp);
                spmv_sell_permute_vec(S, y0, yp);
            } else {
                memcpy(xp, x, n * sizeof *x);
                memcpy(yp, y0, n * sizeof *x);
            }
            xy = yy = NAN;
            CU_ASSERT_EQUAL_FATAL(spmv_sell_mv_dot(S, alpha, xp, beta, yp, &xy, &yy), SPMV_OK);
            if (permuted) spmv_sell_unpermute_vec(S, yp, y);
            else memcpy(y, yp, n * sizeof *y);
            CU_ASSERT_EQUAL(tu_count_mismatch(y, yr, ab, n, TU_TOL, "sell_mv_dot"), 0);
            CU_ASSERT(fabs(xy - (double)rxy) <= 1e-12 * (double)scale_xy);
            CU_ASSERT(fabs(yy - (double)ryy) <= 1e-12 * (double)scale_yy);
            CU_ASSERT_EQUAL(spmv_sell_mv_dot(S, alpha, xp, beta, yp, NULL, NULL), SPMV_OK);
            spmv_sell_free(S);
        }
    }
    /* not square */
    const int64_t rp[] = {0, 1, 2};
    const int32_t c[] = {0, 2};
    spmv_crs *R = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(2, 3, rp, c, NULL, &R), SPMV_OK);
    double xx[3] = {1, 2, 3}, yy2[2], d;
    CU_ASSERT_EQUAL(spmv_crs_mv_dot(R, 1, xx, 0, yy2, &d, &d), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "not square"));
    spmv_crs_free(R);
    free(x), free(y0), free(y), free(yr), free(ab), free(xp), free(yp);
    spmv_crs_free(A);
}

/* values replaced in place: the multiply equals the one of a SELL matrix built from the new values */
static void test_update_values(void)
{
    spmv_crs *A = NULL, *B = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(13, 11, &A), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_crs_copy(A, &B), SPMV_OK);
    uint64_t seed = 9;
    for (int64_t k = 0; k < B->nnz; k++) B->val[k] = tu_rand_unit(&seed);
    int32_t n = A->rows;
    double *x = rand_vec(n, 5), *y = malloc(n * sizeof *y), *yr = malloc(n * sizeof *y), *ab = malloc(n * sizeof *y),
           *xp = malloc(n * sizeof *y), *yp = malloc(n * sizeof *y);
    tu_ref_mv(B, x, yr, ab);
    for (int permuted = 0; permuted <= 1; permuted++) {
        spmv_sell_opts o = spmv_sell_opts_default();
        o.C = 4;
        o.sigma = 16;
        o.permuted = permuted;
        spmv_sell *S = NULL;
        CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &o, &S), SPMV_OK);
        CU_ASSERT_EQUAL_FATAL(spmv_sell_update_values(S, B), SPMV_OK);
        if (permuted) spmv_sell_permute_vec(S, x, xp);
        CU_ASSERT_EQUAL(spmv_sell_mv(S, 1, permuted ? xp : x, 0, permuted ? yp : y), SPMV_OK);
        if (permuted) spmv_sell_unpermute_vec(S, yp, y);
        CU_ASSERT_EQUAL(tu_count_mismatch(y, yr, ab, n, TU_TOL, "updated"), 0);
        /* a different pattern is refused and S stays as it was */
        spmv_crs *P = NULL;
        CU_ASSERT_EQUAL_FATAL(spmv_crs_copy(B, &P), SPMV_OK);
        int32_t r = 7;
        int64_t k0 = P->rowptr[r];
        P->col[k0] = P->col[k0] == 0 ? 1 : P->col[k0] - 1; /* still valid, different column */
        double before = S->val[0];
        CU_ASSERT_EQUAL(spmv_sell_update_values(S, P), SPMV_ERR_ARG);
        CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "row 7"));
        CU_ASSERT_EQUAL(S->val[0], before);
        spmv_crs_free(P);
        spmv_sell_free(S);
    }
    free(x), free(y), free(yr), free(ab), free(xp), free(yp);
    spmv_crs_free(A);
    spmv_crs_free(B);
}

/* one matrix, several application threads multiplying at once (read-only use) */
typedef struct {
    const spmv_sell *S;
    const double *x, *yr, *ab;
    int64_t bad;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    int32_t n = j->S->rows;
    double *y = malloc(n * sizeof *y);
    for (int it = 0; it < 20; it++) {
        if (spmv_sell_mv(j->S, 1, j->x, 0, y) != SPMV_OK) j->bad++;
        for (int32_t i = 0; i < n; i++)
            if (fabs(y[i] - j->yr[i]) > TU_TOL * j->ab[i]) j->bad++;
    }
    free(y);
    return NULL;
}

static void test_concurrent(void)
{
    spmv_crs *A = NULL;
    spmv_sell *S = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(12, 12, 12, &A), SPMV_OK);
    spmv_sell_opts o = spmv_sell_opts_default();
    o.sigma = 128;
    o.nthreads = 2;
    CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &o, &S), SPMV_OK);
    int32_t n = A->rows;
    double *x = rand_vec(n, 11), *yr = malloc(n * sizeof *yr), *ab = malloc(n * sizeof *ab);
    tu_ref_mv(A, x, yr, ab);
    pthread_t th[4];
    job jobs[4];
    for (int t = 0; t < 4; t++) {
        jobs[t] = (job){S, x, yr, ab, 0};
        pthread_create(&th[t], NULL, worker, &jobs[t]);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        CU_ASSERT_EQUAL(jobs[t].bad, 0);
    }
    free(x), free(yr), free(ab);
    spmv_sell_free(S);
    spmv_crs_free(A);
}

/* The version the library reports against the header's: the string parsed here, independently of the macros that
 * encode it, must give the numeric macros and SPMV_VERSION; and CMake's project version (read from the header's
 * string by CMakeLists.txt, the one the shared library's file name and SOVERSION carry) must be the same. */
static void test_version(void)
{
    CU_ASSERT_STRING_EQUAL(spmv_version(), SPMV_VERSION_STRING);
    int major = -1, minor = -1, patch = -1, end = 0;
    CU_ASSERT_EQUAL(sscanf(spmv_version(), "%d.%d.%d%n", &major, &minor, &patch, &end), 3);
    CU_ASSERT_EQUAL((size_t)end, strlen(spmv_version())); /* nothing after the patch number */
    CU_ASSERT_EQUAL(major, SPMV_VERSION_MAJOR);
    CU_ASSERT_EQUAL(minor, SPMV_VERSION_MINOR);
    CU_ASSERT_EQUAL(patch, SPMV_VERSION_PATCH);
    CU_ASSERT(minor >= 0 && minor < 100 && patch >= 0 && patch < 100); /* what the encoding has room for */
    CU_ASSERT_EQUAL(SPMV_VERSION, major * 10000 + minor * 100 + patch);
    CU_ASSERT_STRING_EQUAL(spmv_version(), SPMV_TEST_PROJECT_VERSION);
}

int main(void)
{
    tu_suite("solver", (tu_case[]){{"fused mv + dots", test_mv_dot},
                                   {"update values", test_update_values},
                                   {"concurrent multiplies", test_concurrent},
                                   {"version", test_version},
                                   {NULL, NULL}});
    return tu_run();
}
