/* spmv against PETSc's sequential AIJ MatMult on one matrix at 1 thread, every library timed the same way: batches
 * of calls between two clock reads (the peers' harness, ../shared/peers/common.c peers_bench, reads the clock after
 * every spmv call but times PETSc in batches; a clock read costs 47 ns on the Intel Xeon VM, a third of a multiply
 * of a 156-nonzero matrix such as karate). Rounds interleave PETSc, spmv's CRS and spmv's SELL-C-sigma; each
 * prints the median and the best time per multiply over the rounds, and y of every library is checked against a
 * reference loop.
 *
 *   batched_vs_petsc MATRIX.mtx [-C C] [-s SIGMA|rows] [--rounds R] [--batch-time S]
 *
 * Built and run by bench/batched-vs-petsc.sh (needs PETSc: `pkg-config petsc`). */
#define _POSIX_C_SOURCE 200809L
#include <petscmat.h>
#include <spmv.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* max |y - ref| / max |ref| */
static double rel_err(const double *y, const double *ref, int32_t n)
{
    double e = 0, m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (fabs(y[i] - ref[i]) > e) e = fabs(y[i] - ref[i]);
        if (fabs(ref[i]) > m) m = fabs(ref[i]);
    }
    return m > 0 ? e / m : e;
}

enum { NLIB = 3, MAX_ROUNDS = 101 };

int main(int argc, char **argv)
{
    const char *path = NULL;
    int32_t C = 8, sigma = -1; /* -1: all rows (sort by length globally) */
    int rounds = 7;
    double batch_time = 0.02;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-C") && i + 1 < argc) C = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            ++i;
            sigma = !strcmp(argv[i], "rows") ? -1 : atoi(argv[i]);
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch-time") && i + 1 < argc) batch_time = atof(argv[++i]);
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else {
            fprintf(stderr, "usage: %s MATRIX.mtx [-C C] [-s SIGMA|rows] [--rounds R] [--batch-time S]\n", argv[0]);
            return 2;
        }
    }
    if (!path || C < 1 || rounds < 1 || rounds > MAX_ROUNDS || !(batch_time > 0)) {
        fprintf(stderr, "%s: need a matrix, C >= 1, 1 <= rounds <= %d, batch time > 0\n", argv[0], MAX_ROUNDS);
        return 2;
    }
    if (PetscInitializeNoArguments()) return 1;
    spmv_crs *A;
    if (spmv_crs_read_mm(path, &A) || spmv_crs_set_threads(A, 1)) {
        fprintf(stderr, "%s\n", spmv_last_error());
        return 1;
    }
    const int32_t n = A->rows, m = A->cols;
    if (sizeof(PetscInt) != sizeof(int32_t)) {
        fprintf(stderr, "%s: PETSc with 64-bit PetscInt: not supported here\n", argv[0]);
        return 1;
    }
    PetscInt *ri = malloc(((size_t)n + 1) * sizeof *ri);
    double *ref = malloc(((size_t)n + 1) * sizeof *ref);
    if (!ri || !ref) return 1;
    for (int32_t i = 0; i <= n; i++) ri[i] = (PetscInt)A->rowptr[i];
    Mat M;
    Vec px, py;
    if (MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, m, ri, (PetscInt *)A->col, A->val, &M) ||
        MatCreateVecs(M, &px, &py))
        return 1;
    double *x, *y;
    if (spmv_vec_alloc(m, &x) || spmv_vec_alloc(n, &y)) return 1;
    PetscScalar *pxa;
    VecGetArray(px, &pxa);
    for (int32_t j = 0; j < m; j++) x[j] = pxa[j] = 1.0 + (double)(j % 17) / 16.0;
    VecRestoreArray(px, &pxa);
    for (int32_t i = 0; i < n; i++) { /* the reference loop */
        double s = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->col[k]];
        ref[i] = s;
    }
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = C;
    o.sigma = sigma < 0 ? (n > 0 ? n : 1) : sigma;
    o.nthreads = 1;
    spmv_sell *S;
    if (spmv_sell_from_crs(A, &o, &S) || spmv_sell_set_threads(S, 1)) {
        fprintf(stderr, "%s\n", spmv_last_error());
        return 1;
    }
    /* one call of each: results checked, and the batch size from the slowest */
    double slowest = 1e-9, err[NLIB];
    for (int j = 0; j < NLIB; j++) {
        const double t0 = now();
        if (j == 0) {
            MatMult(M, px, py);
            const PetscScalar *pya;
            VecGetArrayRead(py, &pya);
            err[j] = rel_err(pya, ref, n);
            VecRestoreArrayRead(py, &pya);
        } else {
            if (j == 1 ? spmv_crs_mv(A, 1.0, x, 0.0, y) : spmv_sell_mv(S, 1.0, x, 0.0, y)) return 1;
            err[j] = rel_err(y, ref, n);
        }
        const double dt = now() - t0;
        if (dt > slowest) slowest = dt;
    }
    long batch = (long)(batch_time / slowest);
    if (batch < 1) batch = 1;
    static double t[NLIB][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < NLIB; j++) {
            const double t0 = now();
            for (long i = 0; i < batch; i++) {
                if (j == 0) MatMult(M, px, py);
                else if (j == 1) spmv_crs_mv(A, 1.0, x, 0.0, y);
                else spmv_sell_mv(S, 1.0, x, 0.0, y);
            }
            t[j][r] = (now() - t0) / (double)batch;
        }
    char sname[64], sig[16];
    snprintf(sig, sizeof sig, sigma < 0 ? "rows" : "%d", sigma);
    snprintf(sname, sizeof sname, "spmv-sell-C%d-s%s", C, sig);
    const char *name[NLIB] = {"petsc-aij", "spmv-crs", sname};
    const char *kern[NLIB] = {"MatMult (SeqAIJ)", spmv_crs_kernel_name(A), spmv_sell_kernel_name(S)};
    double med[NLIB];
    printf("# %s: %d x %d, %lld nonzeros, 1 thread, %d rounds interleaved, batches of %ld calls\n", path, n, m,
           (long long)A->nnz, rounds, batch);
    for (int j = 0; j < NLIB; j++) {
        qsort(t[j], (size_t)rounds, sizeof(double), cmp_double);
        med[j] = t[j][rounds / 2];
        printf("%-22s %-28s median %9.1f ns  best %9.1f ns  %7.3f Gflop/s (median)  rel. error %.1e%s\n", name[j],
               kern[j], 1e9 * med[j], 1e9 * t[j][0], 2.0 * (double)A->nnz / med[j] * 1e-9, err[j],
               err[j] > 1e-12 ? "  WRONG" : "");
    }
    const double best = med[1] < med[2] ? med[1] : med[2];
    printf("spmv best / petsc-aij: %.2f (%s)\n", med[0] / best, med[1] < med[2] ? name[1] : name[2]);
    spmv_sell_free(S);
    spmv_crs_free(A);
    spmv_vec_free(x);
    spmv_vec_free(y);
    MatDestroy(&M);
    VecDestroy(&px);
    VecDestroy(&py);
    free(ri);
    free(ref);
    PetscFinalize();
    return (err[0] > 1e-12 || err[1] > 1e-12 || err[2] > 1e-12) ? 1 : 0;
}
