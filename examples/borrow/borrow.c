/* A solver's own CRS arrays, borrowed by spmv without a copy.
 *
 *   borrow [N]          (default N = 300: the 5-point Laplacian of an N x N grid, N^2 rows)
 *
 * The caller builds its matrix in its own arrays (rowptr length rows+1, col and val length nnz, 0-based, columns
 * ascending in each row), hands them to spmv_matrix_create_crs with SPMV_BORROW (nothing is copied for the CRS form;
 * the arrays must outlive the handle), says how many multiplies it expects, lets spmv_matrix_optimize choose, and
 * multiplies. Then it changes its values in place (same pattern) and tells the handle with
 * spmv_matrix_update_values(M, NULL). Every product is checked against the caller's own loop; exit status 0 when
 * all agree to 1e-12 relative to |A||x|. */
#include <spmv.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* y = A x with the caller's arrays, and |A||x| for the error bound */
static void own_mv(int32_t n, const int64_t *rowptr, const int32_t *col, const double *val, const double *x,
                   double *y, double *ax)
{
    for (int32_t i = 0; i < n; i++) {
        double s = 0, a = 0;
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
            s += val[k] * x[col[k]];
            a += fabs(val[k] * x[col[k]]);
        }
        y[i] = s;
        ax[i] = a;
    }
}

static int check(const char *what, int32_t n, const double *y, const double *yr, const double *ax)
{
    double worst = 0;
    for (int32_t i = 0; i < n; i++) {
        double e = fabs(y[i] - yr[i]) / (ax[i] > 0 ? ax[i] : 1);
        if (e > worst) worst = e;
    }
    printf("%-34s max |y - y_own| / (|A||x|) = %.2g %s\n", what, worst, worst <= 1e-12 ? "ok" : "FAILED");
    return worst <= 1e-12 ? 0 : 1;
}

static int fail(const char *call, spmv_status st)
{
    fprintf(stderr, "borrow: %s: %s (%s)\n", call, spmv_strerror(st), spmv_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    long g = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
    if (g < 2 || g > 20000) {
        fprintf(stderr, "borrow: N = %s: give a grid size in [2, 20000]\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    const int32_t N = (int32_t)g, n = N * N;
    int64_t *rowptr = malloc(((size_t)n + 1) * sizeof *rowptr);
    int32_t *col = malloc((size_t)n * 5 * sizeof *col);
    double *val = malloc((size_t)n * 5 * sizeof *val);
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *yr = malloc((size_t)n * sizeof *yr), *ax = malloc((size_t)n * sizeof *ax);
    if (!rowptr || !col || !val || !x || !y || !yr || !ax) {
        fprintf(stderr, "borrow: out of memory for N = %d\n", N);
        return 1;
    }
    /* the caller's matrix: 5-point Laplacian, columns ascending in each row */
    int64_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        const int32_t r = i / N, c = i % N;
        rowptr[i] = k;
        if (r > 0) col[k] = i - N, val[k++] = -1;
        if (c > 0) col[k] = i - 1, val[k++] = -1;
        col[k] = i, val[k++] = 4;
        if (c < N - 1) col[k] = i + 1, val[k++] = -1;
        if (r < N - 1) col[k] = i + N, val[k++] = -1;
    }
    rowptr[n] = k;
    for (int32_t i = 0; i < n; i++) x[i] = 1.0 + (i % 13) / 13.0;

    spmv_matrix *M;
    spmv_status st = spmv_matrix_create_crs(n, n, rowptr, col, val, SPMV_BORROW, &M);
    if (st) return fail("spmv_matrix_create_crs", st);
    spmv_hints h = spmv_hints_default();
    h.expected_calls = 5000; /* e.g. the solver's iteration limit times the number of solves */
    if ((st = spmv_matrix_set_hints(M, &h)) || (st = spmv_matrix_optimize(M))) {
        spmv_matrix_free(M);
        return fail("spmv_matrix_optimize", st);
    }
    spmv_matrix_info info;
    spmv_matrix_get_info(M, &info);
    printf("matrix   %d x %d, %lld nonzeros, borrowed (the CRS arrays are the caller's)\n", n, n, (long long)k);
    printf("choice   %s\n", info.reason);
    printf("kernel   %s\n", info.kernel);

    int bad = 0;
    /* x and y in the original order: the hints did not allow a permuted one */
    if ((st = spmv_matrix_mv(M, 1.0, x, 0.0, y))) bad |= fail("spmv_matrix_mv", st);
    own_mv(n, rowptr, col, val, x, yr, ax);
    bad |= check("y = A x", n, y, yr, ax);

    /* new values in the caller's array, same pattern: a shifted Laplacian */
    for (int32_t i = 0; i < n; i++)
        for (int64_t q = rowptr[i]; q < rowptr[i + 1]; q++)
            if (col[q] == i) val[q] = 4.5;
    if ((st = spmv_matrix_update_values(M, NULL))) bad |= fail("spmv_matrix_update_values", st);
    if ((st = spmv_matrix_mv(M, 1.0, x, 0.0, y))) bad |= fail("spmv_matrix_mv", st);
    own_mv(n, rowptr, col, val, x, yr, ax);
    bad |= check("y = A x after new values", n, y, yr, ax);

    spmv_matrix_free(M); /* the arrays are still the caller's */
    free(rowptr), free(col), free(val), free(x), free(y), free(yr), free(ax);
    return bad;
}
