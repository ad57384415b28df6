/* The baseline every hand kernel must beat: a plain OpenMP CRS loop as a user would write it, compiled with
 * -O3 -march=native. usage: spmv-plain-crs FILE.mtx | --hpcg N[,NY,NZ] [-t THREADS] [--time S] */
#include "toolutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

static void plain(int32_t n, const int64_t *rp, const int32_t *col, const double *val, const double *x, double *y)
{
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];
        y[i] = s;
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *prog = "spmv-plain-crs", *spec = NULL;
    char buf[160];
    long threads = 0;
    double target = 0.2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hpcg") && i + 1 < argc) {
            snprintf(buf, sizeof buf, "hpcg:%s", argv[++i]);
            spec = buf;
        } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            if (!tool_parse_int(prog, "-t", argv[++i], 1, 4096, &threads)) return 2;
        } else if (!strcmp(argv[i], "--time") && i + 1 < argc) {
            target = atof(argv[++i]);
        } else
            spec = argv[i];
    }
    if (!spec) {
        fprintf(stderr, "usage: %s FILE.mtx | --hpcg N[,NY,NZ] [-t THREADS] [--time S]\n", prog);
        return 2;
    }
    if (threads) omp_set_num_threads((int)threads);
    spmv_crs *A;
    const char *name;
    if (tool_load(prog, spec, &A, &name)) return 1;
    /* the user's own arrays, first touched by the same static schedule */
    int32_t n = A->rows;
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *col = malloc((size_t)A->nnz * sizeof *col + 1);
    double *val = malloc((size_t)A->nnz * sizeof *val + 1), *x = malloc((size_t)A->cols * sizeof *x + 1),
           *y = malloc((size_t)n * sizeof *y + 1);
    memcpy(rp, A->rowptr, ((size_t)n + 1) * sizeof *rp);
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < n; i++) {
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            col[k] = A->col[k];
            val[k] = A->val[k];
        }
        y[i] = 0;
    }
    for (int32_t j = 0; j < A->cols; j++) x[j] = 1.0 + (j % 7) / 7.0;
    plain(n, rp, col, val, x, y);
    double err = tool_check(A, x, y);
    if (!(err <= 1e-12)) {
        fprintf(stderr, "%s: result check FAILED (%.3g)\n", prog, err);
        return 1;
    }
    long reps = 1;
    for (;;) {
        double t0 = tool_now();
        for (long r = 0; r < reps; r++) plain(n, rp, col, val, x, y);
        double t = tool_now() - t0;
        if (t >= target) break;
        reps *= 2;
    }
    double times[5];
    for (int k = 0; k < 5; k++) {
        double t0 = tool_now();
        for (long r = 0; r < reps; r++) plain(n, rp, col, val, x, y);
        times[k] = (tool_now() - t0) / reps;
    }
    qsort(times, 5, sizeof *times, cmp);
    printf("plain-crs %s: %d threads, median %.4g ms, %.3f Gflop/s\n", name, omp_get_max_threads(), times[2] * 1e3,
           2.0 * A->nnz / times[2] * 1e-9);
    spmv_crs_free(A);
    free(rp), free(col), free(val), free(x), free(y);
    return 0;
}
