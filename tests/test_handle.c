/* The solver handle (spmv_matrix): creation (copy, borrow, file), hints, the optimize decision (CRS below the
 * break-even or above the memory budget, SELL otherwise), multiply / fused multiply / value update / vector order
 * against the long-double reference, and bad arguments. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spmv_crs *hpcg(int n)
{
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_gen_hpcg(n, n, n, &A) == SPMV_OK);
    return A;
}

/* y = M x in the handle's order, compared with the reference of A (original order) */
static int64_t check_mv(const spmv_matrix *M, const spmv_crs *A, double alpha, double beta, const char *what)
{
    const int32_t n = A->rows;
    double *x = malloc((size_t)A->cols * sizeof *x), *y0 = malloc((size_t)n * sizeof *y0);
    double *ax = malloc((size_t)n * sizeof *ax), *w = malloc((size_t)n * sizeof *w);
    double *xp = malloc((size_t)A->cols * sizeof *xp), *yp = malloc((size_t)n * sizeof *yp);
    double *y = malloc((size_t)n * sizeof *y), *want = malloc((size_t)n * sizeof *want);
    uint64_t s = 5;
    for (int32_t j = 0; j < A->cols; j++) x[j] = tu_rand_unit(&s);
    for (int32_t i = 0; i < n; i++) y0[i] = tu_rand_unit(&s);
    tu_ref_mv(A, x, ax, w);
    for (int32_t i = 0; i < n; i++) {
        want[i] = alpha * ax[i] + beta * y0[i];
        w[i] = fabs(alpha) * w[i] + fabs(beta * y0[i]);
    }
    CU_ASSERT(spmv_matrix_permute_vec(M, x, xp) == SPMV_OK);
    CU_ASSERT(spmv_matrix_permute_vec(M, y0, yp) == SPMV_OK);
    CU_ASSERT(spmv_matrix_mv(M, alpha, xp, beta, yp) == SPMV_OK);
    CU_ASSERT(spmv_matrix_unpermute_vec(M, yp, y) == SPMV_OK);
    int64_t bad = tu_count_mismatch(y, want, w, n, TU_TOL, what);
    CU_ASSERT(bad == 0);
    /* the fused form: y and <x, y>, <y, y> in the handle's order */
    double xy = 0, yy = 0, rxy = 0, ryy = 0;
    CU_ASSERT(spmv_matrix_permute_vec(M, y0, yp) == SPMV_OK);
    CU_ASSERT(spmv_matrix_mv_dot(M, alpha, xp, beta, yp, &xy, &yy) == SPMV_OK);
    for (int32_t i = 0; i < n; i++) rxy += x[i] * want[i], ryy += want[i] * want[i];
    CU_ASSERT(fabs(xy - rxy) <= 1e-10 * (1 + fabs(rxy)) && fabs(yy - ryy) <= 1e-10 * (1 + ryy));
    free(x), free(y0), free(ax), free(w), free(xp), free(yp), free(y), free(want);
    return bad;
}

static void test_decisions(void)
{
    spmv_crs *A = hpcg(24);
    spmv_matrix *M = NULL;
    CU_ASSERT_FATAL(spmv_matrix_create_crs(A->rows, A->cols, A->rowptr, A->col, A->val, SPMV_BORROW, &M) == SPMV_OK);
    spmv_matrix_info info;
    CU_ASSERT(spmv_matrix_get_info(M, &info) == SPMV_OK && info.format == SPMV_FORMAT_CRS); /* before optimize */
    /* 10 multiplies: a conversion never pays -> CRS, and it says why */
    spmv_hints h = spmv_hints_default();
    h.expected_calls = 10;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    CU_ASSERT(spmv_matrix_get_info(M, &info) == SPMV_OK);
    CU_ASSERT(info.format == SPMV_FORMAT_CRS && info.t_convert == 0.0);
    CU_ASSERT(strstr(info.reason, "below the break-even") != NULL);
    CU_ASSERT(info.break_even > 10);
    CU_ASSERT(spmv_matrix_sell(M) == NULL && !spmv_matrix_permuted(M));
    check_mv(M, A, 1.0, 0.0, "handle CRS");
    /* 1000 multiplies: SELL (HPCG: run columns), original order */
    h.expected_calls = 1000;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    CU_ASSERT(spmv_matrix_get_info(M, &info) == SPMV_OK);
    CU_ASSERT(info.format == SPMV_FORMAT_SELL && info.C >= 1 && info.runs == 1 && !info.permuted);
    CU_ASSERT(info.break_even < 1000 && info.t_convert > 0);
    CU_ASSERT(spmv_matrix_sell(M) != NULL && strcmp(info.kernel, spmv_sell_kernel_name(spmv_matrix_sell(M))) == 0);
    printf("\n  %s", info.reason);
    check_mv(M, A, 1.0, 0.0, "handle SELL");
    check_mv(M, A, -0.5, 0.75, "handle SELL axpby");
    /* the permuted order when allowed */
    h.permuted_ok = 1;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    CU_ASSERT(spmv_matrix_get_info(M, &info) == SPMV_OK);
    CU_ASSERT(info.format == SPMV_FORMAT_SELL && info.permuted == spmv_matrix_permuted(M));
    check_mv(M, A, 2.0, 1.0, "handle SELL permuted");
    /* a memory budget below SELL's arrays: CRS */
    h.memory_budget = 1024;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    CU_ASSERT(spmv_matrix_get_info(M, &info) == SPMV_OK);
    CU_ASSERT(info.format == SPMV_FORMAT_CRS && strstr(info.reason, "memory budget") != NULL);
    /* a trial: whatever it keeps, the product is right and the timings are there */
    h.memory_budget = 0;
    h.trial_seconds = 0.05;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    CU_ASSERT(spmv_matrix_get_info(M, &info) == SPMV_OK);
    CU_ASSERT(info.t_crs > 0 && info.t_sell > 0);
    CU_ASSERT((info.format == SPMV_FORMAT_SELL) == (info.t_sell < info.t_crs));
    check_mv(M, A, 1.0, 0.0, "handle after trial");
    spmv_matrix_free(M);
    spmv_crs_free(A);
}

/* copied, unsorted input with duplicates; then new values through the handle */
static void test_copy_and_update(void)
{
    /* 3 x 4: row 0 = {2: 1, 0: 2, 2: 3} (unsorted, duplicate), row 1 empty, row 2 = {3: -1} */
    const int64_t rp[4] = {0, 3, 3, 4};
    const int32_t ci[4] = {2, 0, 2, 3};
    const double v[4] = {1, 2, 3, -1};
    spmv_matrix *M = NULL;
    CU_ASSERT_FATAL(spmv_matrix_create_crs(3, 4, rp, ci, v, SPMV_COPY, &M) == SPMV_OK);
    const spmv_crs *A = spmv_matrix_crs(M);
    CU_ASSERT_FATAL(A != NULL && A->nnz == 3); /* sorted, duplicates summed: (0,0)=2 (0,2)=4 (2,3)=-1 */
    CU_ASSERT(A->col[0] == 0 && A->val[0] == 2 && A->col[1] == 2 && A->val[1] == 4);
    spmv_hints h = spmv_hints_default();
    h.expected_calls = 1000000;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    double x[4] = {1, 2, 3, 4}, y[3];
    CU_ASSERT(spmv_matrix_mv(M, 1.0, x, 0.0, y) == SPMV_OK);
    CU_ASSERT(y[0] == 14 && y[1] == 0 && y[2] == -4);
    const double nv[3] = {1, 1, 1}; /* in the handle's CRS order */
    CU_ASSERT(spmv_matrix_update_values(M, nv) == SPMV_OK);
    CU_ASSERT(spmv_matrix_mv(M, 1.0, x, 0.0, y) == SPMV_OK);
    CU_ASSERT(y[0] == 4 && y[1] == 0 && y[2] == 4);
    CU_ASSERT(spmv_matrix_update_values(M, NULL) == SPMV_ERR_ARG); /* NULL only for borrowed arrays */
    spmv_matrix_free(M);

    /* borrowed: values changed in place, then NULL */
    spmv_crs *B = hpcg(6);
    CU_ASSERT_FATAL(spmv_matrix_create_crs(B->rows, B->cols, B->rowptr, B->col, B->val, SPMV_BORROW, &M) == SPMV_OK);
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    for (int64_t k = 0; k < B->nnz; k++) B->val[k] *= -3.0;
    CU_ASSERT(spmv_matrix_update_values(M, NULL) == SPMV_OK);
    check_mv(M, B, 1.0, 0.0, "borrowed after update");
    spmv_matrix_free(M);
    spmv_crs_free(B);
}

static void test_file_and_args(void)
{
    spmv_matrix *M = (spmv_matrix *)1;
    CU_ASSERT(spmv_matrix_create_file("/nonexistent/x.mtx", &M) == SPMV_ERR_IO && M == NULL);
    CU_ASSERT(spmv_matrix_create_file("x.mtx", NULL) == SPMV_ERR_ARG);
    const int64_t rp[2] = {0, 1};
    const int32_t ci[1] = {5};
    const double v[1] = {1};
    CU_ASSERT(spmv_matrix_create_crs(1, 3, rp, ci, v, SPMV_COPY, &M) == SPMV_ERR_ARG); /* column out of range */
    CU_ASSERT(strstr(spmv_last_error(), "5") != NULL);
    CU_ASSERT(spmv_matrix_create_crs(1, 6, rp, ci, v, (spmv_ownership)7, &M) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_matrix_create_crs(1, 6, rp, ci, NULL, SPMV_BORROW, &M) == SPMV_ERR_ARG);
    CU_ASSERT_FATAL(spmv_matrix_create_crs(1, 6, rp, ci, v, SPMV_COPY, &M) == SPMV_OK);
    spmv_hints h = spmv_hints_default();
    h.expected_calls = -1;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_ERR_ARG);
    h = spmv_hints_default();
    h.trial_seconds = NAN;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_ERR_ARG);
    h = spmv_hints_default();
    h.nthreads = 5000;
    CU_ASSERT(spmv_matrix_set_hints(M, &h) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_matrix_set_hints(NULL, &h) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_matrix_optimize(NULL) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_matrix_mv(NULL, 1, v, 0, NULL) == SPMV_ERR_ARG);
    double x[6] = {0}, y[1];
    CU_ASSERT(spmv_matrix_mv(M, 1, NULL, 0, y) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_matrix_mv(M, 1, x, 0, y) == SPMV_OK && y[0] == 0);
    spmv_matrix_free(M);
    spmv_matrix_free(NULL);
    if (!tu_need_shared("bcsstk13 through the handle")) return;
    CU_ASSERT_FATAL(spmv_matrix_create_file(tu_shared("bcsstk13.mtx"), &M) == SPMV_OK);
    CU_ASSERT(spmv_matrix_optimize(M) == SPMV_OK);
    check_mv(M, spmv_matrix_crs(M), 1.0, 0.0, "bcsstk13 through the handle");
    spmv_matrix_free(M);
}

int main(void)
{
    tu_require_arch();
    tu_suite("handle", (tu_case[]){{"optimize decisions and products", test_decisions},
                                   {"copied and borrowed arrays, value updates", test_copy_and_update},
                                   {"file and bad arguments", test_file_and_args},
                                   {NULL, NULL}});
    return tu_run();
}
