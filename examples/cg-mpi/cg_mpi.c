/* Distributed Jacobi-preconditioned conjugate gradients with spmv::mpi as the SpMV backend.
 *
 *   mpirun -n P cg_mpi [FILE.mtx | --hpcg N | --hpcg-local N] [--tol 1e-8] [--maxit N] [--no-overlap]
 *
 * FILE.mtx is read on rank 0 and its row blocks scattered (balanced by nonzeros); --hpcg N builds the HPCG matrix on
 * an N^3 grid with each rank generating its own rows; --hpcg-local N gives every rank an N^3 sub-grid of a process
 * grid (HPCG's weak scaling). Solves A x = b with b = A * 1 (exact solution all ones). Each iteration is one fused
 * multiply q = A p with <p, q> (spmv_mpi_mv_dot: one MPI_Allreduce) and one MPI_Allreduce for <r, z> and <r, r>.
 * Every vector is distributed like the rows (the matrix is square: x and y share the partition). At the end the
 * true residual ||b - A x|| / ||b|| is recomputed with a separate multiply. Exit status 0 when it is below tol. */
#include <spmv_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static void die(const char *what, spmv_status st)
{
    if (rank == 0) fprintf(stderr, "cg_mpi: %s: %s (%s)\n", what, spmv_mpi_last_error(), spmv_strerror(st));
    MPI_Finalize();
    exit(1);
}

/* global sums of n pairs a[k]*b[k] (two dot products in one reduction) */
static void dots2(const double *a1, const double *b1, const double *a2, const double *b2, int32_t n, double out[2])
{
    double s[2] = {0, 0};
    for (int32_t i = 0; i < n; i++) {
        s[0] += a1[i] * b1[i];
        s[1] += a2[i] * b2[i];
    }
    MPI_Allreduce(s, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* the inverse diagonal of this rank's rows: the diagonal lies in the local part (square layout), local row i,
 * local column i */
static double *inverse_diagonal(const spmv_mpi_matrix *D)
{
    spmv_crs *L = D->local_crs, *tmp = NULL;
    if (!L && D->local_sell) {
        spmv_status st = spmv_sell_to_crs(D->local_sell, &tmp);
        if (st) die("spmv_sell_to_crs", st);
        L = tmp;
    }
    double *dinv = malloc(((size_t)D->nrows + 1) * sizeof *dinv);
    for (int32_t i = 0; i < D->nrows; i++) {
        double d = 0;
        for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++)
            if (L->col[k] == i) d = L->val[k];
        dinv[i] = d != 0 ? 1.0 / d : 1.0;
    }
    spmv_crs_free(tmp);
    return dinv;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *file = NULL;
    long n = 32;
    int local = 0, maxit = 5000, overlap = 1;
    double tol = 1e-8;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hpcg") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--hpcg-local") && i + 1 < argc) {
            n = atol(argv[++i]);
            local = 1;
        } else if (!strcmp(argv[i], "--tol") && i + 1 < argc) tol = atof(argv[++i]);
        else if (!strcmp(argv[i], "--maxit") && i + 1 < argc) maxit = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-overlap")) overlap = 0;
        else if (argv[i][0] != '-') file = argv[i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -n P cg_mpi [FILE.mtx | --hpcg N | --hpcg-local N] [--tol T] "
                                "[--maxit N] [--no-overlap]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (n < 1) n = 1;

    spmv_mpi_opts o = spmv_mpi_opts_default();
    o.overlap = overlap;
    spmv_mpi_matrix *D = NULL;
    spmv_status st;
    char label[128];
    if (file) {
        snprintf(label, sizeof label, "%s", file);
        st = spmv_mpi_from_file(MPI_COMM_WORLD, file, 0, &o, &D);
    } else if (local) {
        int dims[3] = {0, 0, 0};
        MPI_Dims_create(size, 3, dims);
        spmv_mpi_grid g = {SPMV_MPI_HPCG, n * dims[0], n * dims[1], n * dims[2], dims[0], dims[1], dims[2]};
        snprintf(label, sizeof label, "HPCG %ld^3 per rank, %dx%dx%d ranks", n, dims[0], dims[1], dims[2]);
        st = spmv_mpi_gen(MPI_COMM_WORLD, &g, &o, &D);
    } else {
        spmv_mpi_grid g = {SPMV_MPI_HPCG, n, n, n, 0, 0, 0};
        snprintf(label, sizeof label, "HPCG %ld^3", n);
        st = spmv_mpi_gen(MPI_COMM_WORLD, &g, &o, &D);
    }
    if (st) die("building the matrix", st);
    if (!D->square) {
        if (rank == 0) fprintf(stderr, "cg_mpi: the matrix is not square\n");
        MPI_Finalize();
        return 1;
    }
    int32_t m = D->nrows;
    size_t bytes = ((size_t)m + 1) * sizeof(double);
    double *x = malloc(bytes), *b = malloc(bytes), *r = malloc(bytes), *z = malloc(bytes), *p = malloc(bytes),
           *q = malloc(bytes), *dinv = inverse_diagonal(D);
    for (int32_t i = 0; i < m; i++) x[i] = 1.0;
    if ((st = spmv_mpi_mv(D, 1.0, x, 0.0, b))) die("b = A * 1", st); /* b = A * ones */

    double t0 = MPI_Wtime(), tmv = 0, d[2];
    for (int32_t i = 0; i < m; i++) {
        x[i] = 0;
        r[i] = b[i];
        z[i] = dinv[i] * r[i];
        p[i] = z[i];
    }
    D->times = (spmv_mpi_times){0};
    dots2(r, z, b, b, m, d);
    double rz = d[0], bnorm = sqrt(d[1]), rnorm = bnorm;
    int it = 0;
    for (; it < maxit && rnorm > tol * bnorm; it++) {
        double pq, t1 = MPI_Wtime();
        if ((st = spmv_mpi_mv_dot(D, 1.0, p, 0.0, q, &pq, NULL))) die("q = A p", st); /* q = A p, <p, q> */
        tmv += MPI_Wtime() - t1;
        double a = rz / pq;
        for (int32_t i = 0; i < m; i++) {
            x[i] += a * p[i];
            r[i] -= a * q[i];
            z[i] = dinv[i] * r[i];
        }
        dots2(r, z, r, r, m, d);
        double beta = d[0] / rz;
        rz = d[0];
        rnorm = sqrt(d[1]);
        for (int32_t i = 0; i < m; i++) p[i] = z[i] + beta * p[i];
    }
    double t_total = MPI_Wtime() - t0;
    spmv_mpi_times tm = D->times;

    /* true residual and the error against the exact solution (all ones) */
    memcpy(r, b, (size_t)m * sizeof *r);
    if ((st = spmv_mpi_mv(D, -1.0, x, 1.0, r))) die("r = b - A x", st);
    double e = 0;
    for (int32_t i = 0; i < m; i++) e = fmax(e, fabs(x[i] - 1.0));
    dots2(r, r, b, b, m, d);
    double res = sqrt(d[0]) / sqrt(d[1]), emax = e;
    MPI_Allreduce(&e, &emax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double comm = tm.post + tm.wait + tm.reduce, commmax = comm;
    MPI_Allreduce(&comm, &commmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int ok = res <= tol * 10 && it < maxit;
    if (rank == 0) {
        printf("cg_mpi: %s, %lld rows, %lld nnz, %d ranks, node-level kernel %s, overlap %s\n", label,
               (long long)D->rows, (long long)D->nnz, size, spmv_mpi_kernel_name(D), overlap ? "on" : "off");
        printf("cg_mpi: %d iterations, %.3f ms per iteration (SpMV %.3f ms, of which communication %.3f ms on the "
               "slowest rank); true residual %.2e, max |x - 1| = %.2e: %s\n", it, 1e3 * t_total / (it ? it : 1),
               1e3 * tmv / (it ? it : 1), 1e3 * commmax / (it ? it : 1), res, emax, ok ? "converged" : "FAILED");
    }
    free(x);
    free(b);
    free(r);
    free(z);
    free(p);
    free(q);
    free(dinv);
    spmv_mpi_free(D);
    MPI_Finalize();
    return ok ? 0 : 1;
}
