/* CRS constructors, generators, statistics, errors and out-of-memory paths. */
#include "internal.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* 3 x 4 example:  [ 1 0 2 0 ; 0 0 0 0 ; 3 4 0 5 ] */
static const int64_t ex_rp[] = {0, 2, 2, 5};
static const int32_t ex_col[] = {0, 2, 0, 1, 3};
static const double ex_val[] = {1, 2, 3, 4, 5};

static void check_example(const spmv_crs *A)
{
    CU_ASSERT_EQUAL_FATAL(A->rows, 3);
    CU_ASSERT_EQUAL_FATAL(A->cols, 4);
    CU_ASSERT_EQUAL_FATAL(A->nnz, 5);
    for (int i = 0; i <= 3; i++) CU_ASSERT_EQUAL(A->rowptr[i], ex_rp[i]);
    for (int k = 0; k < 5; k++) {
        CU_ASSERT_EQUAL(A->col[k], ex_col[k]);
        CU_ASSERT_EQUAL(A->val[k], ex_val[k]);
    }
    CU_ASSERT(A->nparts >= 1);
    CU_ASSERT_EQUAL(A->part[0], 0);
    CU_ASSERT_EQUAL(A->part[A->nparts], 3);
}

static void test_from_arrays(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 4, ex_rp, ex_col, ex_val, &A), SPMV_OK);
    check_example(A);
    CU_ASSERT(A->owns);
    CU_ASSERT_PTR_NOT_EQUAL(A->col, ex_col);
    CU_ASSERT_EQUAL((uintptr_t)A->val % spmv_alignment(), 0);
    spmv_crs_free(A);
}

static void test_from_arrays_unsorted(void)
{
    /* row 0 unsorted with a duplicate of column 2: 2 + 0.5 summed; explicit zero in row 2 kept */
    const int64_t rp[] = {0, 3, 3, 7};
    const int32_t col[] = {2, 0, 2, 3, 1, 0, 2};
    const double val[] = {2, 1, 0.5, 5, 4, 3, 0};
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 4, rp, col, val, &A), SPMV_OK);
    CU_ASSERT_EQUAL(A->nnz, 6);
    const int64_t erp[] = {0, 2, 2, 6};
    const int32_t ecol[] = {0, 2, 0, 1, 2, 3};
    const double evl[] = {1, 2.5, 3, 4, 0, 5};
    for (int i = 0; i <= 3; i++) CU_ASSERT_EQUAL(A->rowptr[i], erp[i]);
    for (int k = 0; k < 6; k++) {
        CU_ASSERT_EQUAL(A->col[k], ecol[k]);
        CU_ASSERT_EQUAL(A->val[k], evl[k]);
    }
    spmv_crs_free(A);
}

static void test_from_coo(void)
{
    /* the example, shuffled, 1-based, with (3,2) split into 1.5 + 2.5 */
    const int32_t r[] = {3, 1, 3, 3, 1, 3};
    const int32_t c[] = {4, 3, 2, 1, 1, 2};
    const double v[] = {5, 2, 1.5, 3, 1, 2.5};
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_coo(3, 4, 6, r, c, v, 1, &A), SPMV_OK);
    check_example(A);
    spmv_crs_free(A);
    /* pattern: val NULL gives 1.0, duplicates summed to 2.0 */
    const int32_t r0[] = {0, 0, 1}, c0[] = {1, 1, 0};
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_coo(2, 2, 3, r0, c0, NULL, 0, &A), SPMV_OK);
    CU_ASSERT_EQUAL(A->nnz, 2);
    CU_ASSERT_EQUAL(A->val[0], 2.0);
    CU_ASSERT_EQUAL(A->val[1], 1.0);
    spmv_crs_free(A);
}

static void test_wrap(void)
{
    int64_t rp[] = {0, 2, 2, 5};
    int32_t col[] = {0, 2, 0, 1, 3};
    double val[] = {1, 2, 3, 4, 5};
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_wrap(3, 4, rp, col, val, &A), SPMV_OK);
    check_example(A);
    CU_ASSERT_PTR_EQUAL(A->col, col);
    CU_ASSERT_EQUAL(A->owns, 0);
    spmv_crs_free(A); /* must not free the caller's arrays */
    CU_ASSERT_EQUAL(col[4], 3);
    int32_t bad[] = {2, 0, 0, 1, 3};
    CU_ASSERT_EQUAL(spmv_crs_wrap(3, 4, rp, bad, val, &A), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NULL(A);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "spmv_crs_from_arrays"));
}

static void test_copy(void)
{
    spmv_crs *A = NULL, *B = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 4, ex_rp, ex_col, ex_val, &A), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_crs_copy(A, &B), SPMV_OK);
    check_example(B);
    CU_ASSERT_PTR_NOT_EQUAL(A->val, B->val);
    spmv_crs_free(A);
    spmv_crs_free(B);
}

static void test_errors(void)
{
    spmv_crs *A = (spmv_crs *)1;
    CU_ASSERT_EQUAL(spmv_crs_from_arrays(3, 4, NULL, ex_col, ex_val, &A), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NULL(A);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "rowptr"));
    CU_ASSERT_EQUAL(spmv_crs_from_arrays(-1, 4, ex_rp, ex_col, ex_val, &A), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_crs_from_arrays(3, 3, ex_rp, ex_col, ex_val, &A), SPMV_ERR_ARG); /* col 3 >= cols */
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "col[4] = 3"));
    const int64_t dec[] = {0, 2, 1, 5};
    CU_ASSERT_EQUAL(spmv_crs_from_arrays(3, 4, dec, ex_col, ex_val, &A), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "decreases at row 1"));
    const int32_t r[] = {1, 4}, c[] = {1, 1};
    CU_ASSERT_EQUAL(spmv_crs_from_coo(3, 4, 2, r, c, NULL, 1, &A), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "row[1] = 4 out of range 1..3"));
    CU_ASSERT_EQUAL(spmv_crs_from_coo(3, 4, 2, r, c, NULL, 2, &A), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_crs_from_coo(3, 4, 1, NULL, c, NULL, 0, &A), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_crs_from_arrays(3, 4, ex_rp, ex_col, ex_val, NULL), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_crs_mv(NULL, 1, NULL, 0, NULL), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_gen_hpcg(0, 4, 4, &A), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_gen_hpcg(2048, 2048, 1024, &A), SPMV_ERR_OVERFLOW); /* 2^32 rows */
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "32-bit"));
    spmv_crs_free(NULL);
    CU_ASSERT_STRING_EQUAL(spmv_strerror(SPMV_ERR_NOMEM), "out of memory");
    /* thread counts are capped, x and y must not overlap, an absurd size fails cleanly */
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 4, ex_rp, ex_col, ex_val, &A), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_crs_set_threads(A, 100000), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "outside 0..4096"));
    CU_ASSERT(A->nparts >= 1 && A->nparts <= 4096);
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CU_ASSERT_EQUAL(spmv_crs_mv(A, 1, v, 0, v + 2), SPMV_ERR_ARG); /* x = v[0..4), y = v[2..5) */
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "overlap"));
    CU_ASSERT_EQUAL(spmv_crs_mv(A, 1, v, 0, v + 4), SPMV_OK);
    CU_ASSERT_EQUAL(v[4], 1 * 1 + 2 * 3); /* y[0] = 1*x0 + 2*x2 */
    spmv_crs_free(A);
    double *huge = NULL;
    CU_ASSERT_EQUAL(spmv_vec_alloc((int64_t)1 << 50, &huge), SPMV_ERR_NOMEM); /* 8 PiB */
    CU_ASSERT_PTR_NULL(huge);
}

/* Empty shapes: 0x0, 0xn, nx0 */
static void test_empty_shapes(void)
{
    const int64_t rp0[] = {0}, rp3[] = {0, 0, 0, 0};
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(0, 0, rp0, NULL, NULL, &A), SPMV_OK);
    CU_ASSERT_EQUAL(A->nnz, 0);
    CU_ASSERT_EQUAL(spmv_crs_mv(A, 1, NULL, 0, NULL), SPMV_OK);
    spmv_crs_free(A);
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 0, rp3, NULL, NULL, &A), SPMV_OK);
    double y[3] = {7, 7, 7};
    CU_ASSERT_EQUAL(spmv_crs_mv(A, 1, NULL, 0, y), SPMV_OK);
    CU_ASSERT(y[0] == 0 && y[1] == 0 && y[2] == 0); /* y written, not left untouched */
    spmv_crs_free(A);
}

/* HPCG: nnz = (3nx-2)(3ny-2)(3nz-2); row (ix,iy,iz) has cx*cy*cz entries (c = 3 inside, 2 on a face, 1 if the
 * dimension is 1) and row sum 26 - (cx*cy*cz - 1) */
static void test_hpcg(void)
{
    const int32_t g[][3] = {{1, 1, 1}, {2, 3, 4}, {4, 4, 4}, {16, 16, 16}, {5, 1, 7}};
    for (size_t t = 0; t < sizeof g / sizeof g[0]; t++) {
        int32_t nx = g[t][0], ny = g[t][1], nz = g[t][2];
        spmv_crs *A = NULL;
        CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(nx, ny, nz, &A), SPMV_OK);
        CU_ASSERT_EQUAL(A->rows, nx * ny * nz);
        CU_ASSERT_EQUAL(A->nnz, (int64_t)(3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
        int64_t bad = 0;
        for (int32_t iz = 0, i = 0; iz < nz; iz++)
            for (int32_t iy = 0; iy < ny; iy++)
                for (int32_t ix = 0; ix < nx; ix++, i++) {
                    int c = (3 - (ix == 0) - (ix == nx - 1)) * (3 - (iy == 0) - (iy == ny - 1)) *
                            (3 - (iz == 0) - (iz == nz - 1));
                    double sum = 0, diag = 0;
                    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                        sum += A->val[k];
                        if (A->col[k] == i) diag = A->val[k];
                        if (k > A->rowptr[i] && A->col[k] <= A->col[k - 1]) bad++;
                    }
                    bad += (A->rowptr[i + 1] - A->rowptr[i] != c) + (sum != 26.0 - (c - 1)) + (diag != 26.0);
                }
        CU_ASSERT_EQUAL(bad, 0);
        spmv_crs_free(A);
    }
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(4, 4, 4, &A), SPMV_OK);
    CU_ASSERT_EQUAL(A->nnz, 1000);
    /* row 21 = (1,1,1) is interior: columns i + dx + 4dy + 16dz */
    CU_ASSERT_EQUAL(A->rowptr[22] - A->rowptr[21], 27);
    CU_ASSERT_EQUAL(A->col[A->rowptr[21]], 0);
    CU_ASSERT_EQUAL(A->col[A->rowptr[21] + 13], 21);
    CU_ASSERT_EQUAL(A->col[A->rowptr[22] - 1], 42);
    spmv_crs_free(A);
}

static void test_laplace(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(5, 3, &A), SPMV_OK);
    CU_ASSERT_EQUAL(A->rows, 15);
    CU_ASSERT_EQUAL(A->nnz, 15 + 2 * 4 * 3 + 2 * 5 * 2); /* 59 */
    /* row 6 = (1,1): columns 1, 5, 6, 7, 11 */
    const int32_t c6[] = {1, 5, 6, 7, 11};
    const double v6[] = {-1, -1, 4, -1, -1};
    for (int k = 0; k < 5; k++) {
        CU_ASSERT_EQUAL(A->col[A->rowptr[6] + k], c6[k]);
        CU_ASSERT_EQUAL(A->val[A->rowptr[6] + k], v6[k]);
    }
    spmv_crs_free(A);
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace3d(3, 4, 5, &A), SPMV_OK);
    CU_ASSERT_EQUAL(A->nnz, 60 + 2 * (2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4)); /* 60 + 2*133 = 326 */
    double rowsum_total = 0;
    for (int64_t k = 0; k < A->nnz; k++) rowsum_total += A->val[k];
    CU_ASSERT_EQUAL(rowsum_total, 6.0 * 60 - 266); /* 6 per row minus one per off-diagonal entry */
    spmv_crs_free(A);
}

static void test_stats(void)
{
    spmv_crs *A = NULL;
    spmv_crs_stats s;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 4, ex_rp, ex_col, ex_val, &A), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_crs_get_stats(A, &s), SPMV_OK);
    CU_ASSERT_EQUAL(s.nzr_min, 0);
    CU_ASSERT_EQUAL(s.nzr_max, 3);
    CU_ASSERT_DOUBLE_EQUAL(s.nzr_mean, 5.0 / 3, 1e-15);
    CU_ASSERT_EQUAL(s.empty_rows, 1);
    CU_ASSERT_EQUAL(s.bandwidth, 2); /* (0,2) and (2,0) */
    CU_ASSERT_EQUAL(s.profile, 2);   /* row 2 reaches column 0 */
    spmv_crs_free(A);
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(7, 7, &A), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_crs_get_stats(A, &s), SPMV_OK);
    CU_ASSERT_EQUAL(s.bandwidth, 7);
    CU_ASSERT_EQUAL(s.profile, 7 * 42 + 6); /* rows 7..48 reach i-7; rows 1..6 reach i-1 */
    spmv_crs_free(A);
}

static void test_mv_threads(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(6, 5, 4, &A), SPMV_OK);
    int32_t n = A->rows;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *yr = malloc(n * sizeof *y),
           *ab = malloc(n * sizeof *y);
    uint64_t seed = 7;
    for (int i = 0; i < n; i++) x[i] = tu_rand_unit(&seed);
    tu_ref_mv(A, x, yr, ab);
    for (int t = 1; t <= 5; t += 2) {
        CU_ASSERT_EQUAL_FATAL(spmv_crs_set_threads(A, t), SPMV_OK);
        CU_ASSERT_EQUAL(A->nparts, t);
        for (int i = 0; i < n; i++) y[i] = 0.0 / 0.0;
        CU_ASSERT_EQUAL(spmv_crs_mv(A, 1, x, 0, y), SPMV_OK);
        CU_ASSERT_EQUAL(tu_count_mismatch(y, yr, ab, n, TU_TOL, "crs"), 0);
    }
    free(x);
    free(y);
    free(yr);
    free(ab);
    spmv_crs_free(A);
}

/* Allocation N fails for N = 0, 1, 2, ...: SPMV_ERR_NOMEM and nothing leaked, until the call succeeds. */
static void test_oom(void)
{
    const int32_t r[] = {3, 1, 3, 3, 1, 3}, c[] = {4, 3, 2, 1, 1, 2};
    const double v[] = {5, 2, 1.5, 3, 1, 2.5};
    for (int which = 0; which < 5; which++) {
        int ok = 0;
        for (long n = 0; n < 100 && !ok; n++) {
            spmv_crs *A = NULL, *B = NULL;
            spmv__alloc_fail_after(n);
            spmv_status st;
            switch (which) {
            case 0: st = spmv_gen_hpcg(3, 3, 3, &A); break;
            case 1: st = spmv_crs_from_coo(3, 4, 6, r, c, v, 1, &A); break;
            case 2: st = spmv_crs_from_arrays(3, 4, ex_rp, ex_col, ex_val, &A); break;
            case 3: st = spmv_crs_from_arrays(3, 4, ex_rp, (const int32_t[]){2, 0, 3, 1, 0}, ex_val, &A); break;
            default: {
                spmv__alloc_fail_after(-1);
                spmv_crs_from_arrays(3, 4, ex_rp, ex_col, ex_val, &B);
                spmv__alloc_fail_after(n);
                st = spmv_crs_copy(B, &A);
            }
            }
            spmv__alloc_fail_after(-1);
            if (st == SPMV_OK) {
                ok = 1;
                CU_ASSERT(n > 0);
            } else {
                CU_ASSERT_EQUAL(st, SPMV_ERR_NOMEM);
                CU_ASSERT_PTR_NULL(A);
            }
            spmv_crs_free(A);
            spmv_crs_free(B);
        }
        CU_ASSERT(ok);
    }
}

int main(void)
{
    tu_suite("crs", (tu_case[]){{"from_arrays", test_from_arrays},
                                {"from_arrays unsorted+duplicates", test_from_arrays_unsorted},
                                {"from_coo", test_from_coo},
                                {"wrap", test_wrap},
                                {"copy", test_copy},
                                {"errors", test_errors},
                                {"empty shapes", test_empty_shapes},
                                {"stats", test_stats},
                                {"mv threads", test_mv_threads},
                                {"out of memory", test_oom},
                                {NULL, NULL}});
    tu_suite("generators", (tu_case[]){{"hpcg", test_hpcg}, {"laplace", test_laplace}, {NULL, NULL}});
    return tu_run();
}
