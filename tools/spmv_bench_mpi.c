/* spmv-bench-mpi (also `spmv-bench --mpi`): time the distributed multiply of spmv::mpi under mpirun.
 *
 * Prints Gflop/s of the overlapped and the non-overlapped multiply (interleaved runs, median), halo bytes and
 * messages per multiply, the time spent in communication, a check against a serial multiply, and the node-level
 * limit (the model of each rank's local part on the machine file) next to a communication term from a measured
 * ping-pong (latency, bandwidth) through the same model code as the "on paper" scaling (spmv_mpi_model_halo).
 * Rank 0 prints; errors are printed once (every rank gets the same one from the library). */
#include "toolutil.h"
#include "spmv_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *prog = "spmv-bench-mpi";
static int rank, size;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P spmv-bench-mpi MATRIX [options]      (or: mpirun -n P spmv-bench --mpi MATRIX ...)\n"
            "MATRIX:\n"
            "  FILE.mtx               Matrix Market file, read on rank 0 and scattered (rows balanced by nonzeros)\n"
            "  --hpcg NX[,NY,NZ]      HPCG 27-point stencil on the global grid, rows in lexicographic order balanced\n"
            "                         by nonzeros; every rank generates only its rows\n"
            "  --hpcg-local LX[,LY,LZ]  HPCG as the benchmark distributes it: LX x LY x LZ points per rank on a\n"
            "                         process grid from MPI_Dims_create (weak scaling)\n"
            "options:\n"
            "  -f auto|crs|sell       node-level format of the local parts (default auto: the library's choice)\n"
            "  -C C, -s SIGMA         SELL-C-sigma parameters with -f sell (default 0 = automatic)\n"
            "  --overlap on|off|both  overlapped multiply, exchange-then-multiply, or both interleaved (default both)\n"
            "  --time S               target seconds per timed run (default 0.3)\n"
            "  --runs N               timed runs per variant (default 5; the median is reported)\n"
            "  --machine FILE         machine file for the node-level limit (default: the newest one spmv-machine\n"
            "                         wrote under $XDG_DATA_HOME/spmv/machines)\n"
            "  --no-check             skip the check against a serial multiply on rank 0\n"
            "Threads per rank: OMP_NUM_THREADS. One line per figure; 'result' lines are for scripts.\n");
}

static int parse_dims(const char *opt, const char *s, long n[3])
{
    long v[3];
    int k = tool_parse_int_list(prog, opt, s ? s : "", ",x", 1, 1L << 30, v, 3); /* "1,,2": an empty item */
    if (k < 0) return 0;
    if (k == 2) {
        if (rank == 0) fprintf(stderr, "%s: %s: give N or NX,NY,NZ (got '%s')\n", prog, opt, s ? s : "");
        return 0;
    }
    n[0] = v[0];
    n[1] = k == 3 ? v[1] : v[0];
    n[2] = k == 3 ? v[2] : v[0];
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* seconds for reps multiplies, the slowest rank's (a barrier before) */
static double time_reps(spmv_mpi_matrix *D, const double *x, double *y, long reps, spmv_status *st)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < reps && !*st; k++) *st = spmv_mpi_mv(D, 1.0, x, 0.0, y);
    double t = MPI_Wtime() - t0, tmax = t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

/* ping-pong between ranks 0 and 1: half the round trip, median of n, for a message of bytes */
static double pingpong(int bytes, int n)
{
    char *buf = calloc((size_t)bytes + 1, 1);
    double *t = malloc((size_t)n * sizeof *t), half = 0;
    for (int k = -5; k < n; k++) { /* 5 warm-up round trips */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        if (k >= 0) t[k] = (MPI_Wtime() - t0) / 2;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    half = t[n / 2];
    MPI_Bcast(&half, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(buf);
    free(t);
    return half;
}

/* Check the distributed y = A x against a serial multiply on rank 0 (the global matrix built or read there). */
static void check(spmv_mpi_matrix *D, const char *file, const long *hpcg, const long *local, const int *dims,
                  const double *x, double *y)
{
    spmv_status st = spmv_mpi_mv(D, 1.0, x, 0.0, y);
    if (st) {
        if (rank == 0) printf("check    multiply failed: %s\n", spmv_mpi_last_error());
        return;
    }
    if (D->rows > INT32_MAX || D->cols > INT32_MAX) {
        if (rank == 0) printf("check    skipped: %lld rows do not fit a serial 32-bit matrix\n", (long long)D->rows);
        return;
    }
    double *xg = NULL, *yg = NULL;
    if (rank == 0) {
        xg = malloc((size_t)D->cols * sizeof *xg);
        yg = malloc((size_t)D->rows * sizeof *yg);
    }
    spmv_mpi_gather(D, SPMV_MPI_COLS, 0, x, xg);
    spmv_mpi_gather(D, SPMV_MPI_ROWS, 0, y, yg);
    if (rank == 0) {
        spmv_crs *A = NULL, *B = NULL;
        double t0 = MPI_Wtime();
        if (file) st = spmv_crs_read_mm(file, &A);
        else if (hpcg) st = spmv_gen_hpcg((int32_t)hpcg[0], (int32_t)hpcg[1], (int32_t)hpcg[2], &A);
        else {
            /* the process-grid numbering is P A P^T of the lexicographic matrix */
            int64_t nx = local[0] * dims[0], ny = local[1] * dims[1], L = local[0] * local[1] * local[2];
            st = spmv_gen_hpcg((int32_t)nx, (int32_t)ny, (int32_t)(local[2] * dims[2]), &A);
            int32_t *perm = st ? NULL : malloc((size_t)A->rows * sizeof *perm);
            for (int64_t i = 0; perm && i < A->rows; i++) {
                int64_t gx = i % nx, gy = (i / nx) % ny, gz = i / nx / ny;
                int64_t q = gx / local[0] + dims[0] * (gy / local[1] + dims[1] * (gz / local[2]));
                perm[q * L + gx % local[0] + local[0] * (gy % local[1] + local[1] * (gz % local[2]))] = (int32_t)i;
            }
            if (perm) st = spmv_crs_permute(A, perm, &B);
            free(perm);
            spmv_crs_free(A);
            A = B;
        }
        if (st || !A) printf("check    no serial matrix: %s\n", spmv_last_error());
        else {
            double err = tool_check(A, xg, yg);
            printf("check    max |y - y_serial| / (|A||x|) = %.2g over %lld rows: %s (serial reference built in %.1f s)\n",
                   err, (long long)A->rows, err <= 1e-12 ? "ok" : "MISMATCH", MPI_Wtime() - t0);
        }
        spmv_crs_free(A);
    }
    free(xg);
    free(yg);
}

/* The node-level limit: each rank's local and remote entries at the model's Gflop/s for its local part, with the
 * node's cores shared by the ranks on it (ranks_node ranks x threads threads); the slowest rank sets the time. */
static double node_limit_time(spmv_mpi_matrix *D, const spmv_machine *m, int threads, int ranks_node, double *gf_rank)
{
    spmv_model md;
    spmv_status st = SPMV_ERR_ARG;
    int n = threads * ranks_node;
    if (D->local_sell) st = spmv_model_sell(D->local_sell, NULL, m, n, NULL, &md);
    else if (D->local_crs && D->local_crs->nnz > 0) st = spmv_model_crs(D->local_crs, NULL, m, n, NULL, &md);
    double t = 0;
    *gf_rank = 0;
    if (!st && md.predicted > 0) {
        *gf_rank = md.predicted / ranks_node;
        t = 2.0 * (double)(md.nnz + D->remote->nnz) / (*gf_rank * 1e9);
    }
    double tmax = t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *file = NULL, *machine_path = NULL;
    long hpcg[3], local[3], C = 0, sigma = 0, runs = 5;
    int have_hpcg = 0, have_local = 0, do_check = 1, ov_on = 1, ov_off = 1;
    double target = 0.3;
    spmv_mpi_opts o = spmv_mpi_opts_default();
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (rank == 0) usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "--mpi")) {
            /* spmv-bench --mpi passes its arguments through */
        } else if (!strcmp(a, "--hpcg") && v) {
            bad = !parse_dims(a, v, hpcg);
            have_hpcg = 1;
            i++;
        } else if (!strcmp(a, "--hpcg-local") && v) {
            bad = !parse_dims(a, v, local);
            have_local = 1;
            i++;
        } else if (!strcmp(a, "-f") && v) {
            if (!strcmp(v, "auto")) o.format = SPMV_MPI_FORMAT_AUTO;
            else if (!strcmp(v, "crs")) o.format = SPMV_MPI_FORMAT_CRS;
            else if (!strcmp(v, "sell")) o.format = SPMV_MPI_FORMAT_SELL;
            else {
                if (rank == 0) fprintf(stderr, "%s: -f: '%s' is not auto, crs or sell\n", prog, v);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "-C") && v) {
            bad = !tool_parse_int(prog, a, v, 0, 1 << 16, &C);
            i++;
        } else if (!strcmp(a, "-s") && v) {
            bad = !tool_parse_int(prog, a, v, 0, INT32_MAX, &sigma);
            i++;
        } else if (!strcmp(a, "--overlap") && v) {
            ov_on = !strcmp(v, "on") || !strcmp(v, "both");
            ov_off = !strcmp(v, "off") || !strcmp(v, "both");
            if (!ov_on && !ov_off) {
                if (rank == 0) fprintf(stderr, "%s: --overlap: '%s' is not on, off or both\n", prog, v);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "--time") && v) {
            bad = !tool_parse_seconds(prog, a, v, 0, 60, 0, &target);
            i++;
        } else if (!strcmp(a, "--runs") && v) {
            bad = !tool_parse_int(prog, a, v, 1, 64, &runs);
            i++;
        } else if (!strcmp(a, "--machine") && v) {
            machine_path = v;
            i++;
        } else if (!strcmp(a, "--no-check")) {
            do_check = 0;
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            if (rank == 0) {
                fprintf(stderr, "%s: unknown or incomplete argument '%s'\n", prog, a);
                usage(stderr);
            }
            bad = 1;
        }
    }
    if (!bad && (!!file + have_hpcg + have_local) != 1) {
        if (rank == 0) {
            fprintf(stderr, "%s: give exactly one matrix: FILE.mtx, --hpcg or --hpcg-local\n", prog);
            usage(stderr);
        }
        bad = 1;
    }
    if (bad) {
        MPI_Finalize();
        return 2;
    }
    o.C = (int32_t)C;
    o.sigma = (int32_t)sigma;
    long tl = 0;
    const int rc0 = tool_start(prog, &tl);
    if (rc0) {
        MPI_Finalize();
        return rc0;
    }
    const int threads = (int)tl;
    /* ranks on this node (they share its cores and memory bandwidth) and the number of nodes */
    MPI_Comm node;
    int ranks_node = 1, node_rank = 0, nodes = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    int first_on_node = node_rank == 0;
    MPI_Allreduce(&first_on_node, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    /* build */
    spmv_mpi_matrix *D = NULL;
    spmv_status st;
    char label[256];
    int dims[3] = {0, 0, 0};
    double t0 = MPI_Wtime();
    if (file) {
        const char *b = strrchr(file, '/');
        snprintf(label, sizeof label, "%s (read on rank 0, rows balanced by nonzeros)", b ? b + 1 : file);
        st = spmv_mpi_from_file(MPI_COMM_WORLD, file, 0, &o, &D);
    } else if (have_hpcg) {
        snprintf(label, sizeof label, "HPCG %ldx%ldx%ld (lexicographic rows balanced by nonzeros, generated per rank)",
                 hpcg[0], hpcg[1], hpcg[2]);
        spmv_mpi_grid g = {SPMV_MPI_HPCG, hpcg[0], hpcg[1], hpcg[2], 0, 0, 0};
        st = spmv_mpi_gen(MPI_COMM_WORLD, &g, &o, &D);
    } else {
        MPI_Dims_create(size, 3, dims);
        snprintf(label, sizeof label, "HPCG %ldx%ldx%ld per rank on a %dx%dx%d process grid (global %ldx%ldx%ld)",
                 local[0], local[1], local[2], dims[0], dims[1], dims[2], local[0] * dims[0], local[1] * dims[1],
                 local[2] * dims[2]);
        spmv_mpi_grid g = {SPMV_MPI_HPCG, local[0] * dims[0], local[1] * dims[1], local[2] * dims[2], dims[0],
                           dims[1], dims[2]};
        st = spmv_mpi_gen(MPI_COMM_WORLD, &g, &o, &D);
    }
    double t_build = MPI_Wtime() - t0;
    if (st) {
        if (rank == 0) fprintf(stderr, "%s: %s (%s)\n", prog, spmv_mpi_last_error(), spmv_strerror(st));
        MPI_Finalize();
        return 1;
    }
    spmv_mpi_stats mine, mx, sum;
    spmv_mpi_get_stats(D, &mine, &mx, &sum);
    int64_t minrows = mine.rows, minnnz = mine.nnz;
    MPI_Allreduce(MPI_IN_PLACE, &minrows, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &minnnz, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("matrix   %s: %lld rows, %lld nnz; %d rank%s x %d thread%s, %d node%s (%d ranks on rank 0's node); "
               "built in %.2f s\n", label, (long long)D->rows, (long long)D->nnz, size, size == 1 ? "" : "s", threads,
               threads == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", ranks_node, t_build);
        printf("partition rows per rank %lld..%lld, nnz per rank %lld..%lld (max / mean %.3f)\n", (long long)minrows,
               (long long)mx.rows, (long long)minnnz, (long long)mx.nnz, mx.nnz * (double)size / (double)sum.nnz);
        printf("local    node-level kernel on rank 0: %s; remote entries %.2f %% of nnz, rows with remote entries "
               "%lld in all\n", spmv_mpi_kernel_name(D), 100.0 * sum.nnz_remote / (double)sum.nnz,
               (long long)sum.remote_rows);
        printf("halo     per multiply: %lld bytes in %lld messages over all ranks; the busiest rank receives %lld B in "
               "%lld message(s) and sends %lld B in %lld\n", 8 * (long long)sum.recv, (long long)sum.recv_msgs,
               8 * (long long)mx.recv, (long long)mx.recv_msgs, 8 * (long long)mx.send, (long long)mx.send_msgs);
    }

    /* x_i = 1 + (i mod 7) / 7 over the global index (the peers' vector), y */
    double *x = malloc(((size_t)D->ncols + 1) * sizeof *x), *y = malloc(((size_t)D->nrows + 1) * sizeof *y);
    for (int32_t j = 0; j < D->ncols; j++) x[j] = 1.0 + (double)((D->col_start[rank] + j) % 7) / 7.0;
    for (int32_t i = 0; i < D->nrows; i++) y[i] = 0;
    if (do_check) check(D, file, have_hpcg ? hpcg : NULL, local, dims, x, y);

    /* calibrate the repetitions on the overlapped multiply, then interleave the variants run by run */
    st = SPMV_OK;
    long reps = 1;
    for (;;) {
        double t = time_reps(D, x, y, reps, &st);
        if (st || t >= target || reps > (1L << 24)) break;
        reps = t > 0 ? (long)ceil(reps * fmin(8.0, 1.2 * target / t)) : reps * 8;
    }
    int nvar = 0, var_ov[2];
    if (ov_on) var_ov[nvar++] = 1;
    if (ov_off) var_ov[nvar++] = 0;
    double *gf = malloc(2 * (size_t)runs * sizeof *gf), comm[2] = {0, 0}, wait[2] = {0, 0}, per[2] = {0, 0};
    for (long run = 0; run < runs && !st; run++)
        for (int v = 0; v < nvar && !st; v++) {
            spmv_mpi_set_overlap(D, var_ov[v]);
            spmv_mpi_times before = D->times;
            double t = time_reps(D, x, y, reps, &st);
            gf[v * runs + run] = 2.0 * (double)D->nnz * reps / t * 1e-9;
            per[v] += t / reps;
            double c = (D->times.post - before.post) + (D->times.wait - before.wait), w = D->times.wait - before.wait;
            double cmax = c, wmax = w;
            MPI_Allreduce(&c, &cmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(&w, &wmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            comm[v] += cmax / reps;
            wait[v] += wmax / reps;
        }
    if (st) {
        if (rank == 0) fprintf(stderr, "%s: %s\n", prog, spmv_mpi_last_error());
        MPI_Finalize();
        return 1;
    }
    double med[2] = {0, 0};
    for (int v = 0; v < nvar; v++) {
        qsort(gf + v * runs, (size_t)runs, sizeof *gf, cmp_double);
        med[v] = gf[v * runs + runs / 2];
        if (rank == 0) {
            double pm = per[v] / runs;
            printf("overlap  %-3s: %.3f Gflop/s (median of %ld runs of %ld multiplies, min %.3f max %.3f), %.3f ms per "
                   "multiply; communication %.3f ms (%.1f %%) of which waiting %.3f ms (slowest rank)\n",
                   var_ov[v] ? "on" : "off", med[v], runs, reps, gf[v * runs], gf[v * runs + runs - 1], 1e3 * pm,
                   1e3 * comm[v] / runs, 100.0 * comm[v] / runs / pm, 1e3 * wait[v] / runs);
            printf("result   variant=%s gflops=%.4f ms=%.5f comm_ms=%.5f wait_ms=%.5f halo_bytes=%lld messages=%lld "
                   "ranks=%d threads=%d\n", var_ov[v] ? "overlap" : "no-overlap", med[v], 1e3 * pm,
                   1e3 * comm[v] / runs, 1e3 * wait[v] / runs, 8 * (long long)sum.recv, (long long)sum.recv_msgs,
                   size, threads);
        }
    }

    /* the communication term from a measured ping-pong, next to the node-level limit */
    double lat = 0, bw = 0;
    int big = (int)(8 * (mx.recv > 131072 ? mx.recv : 131072));
    if (size > 1) {
        lat = pingpong(8, 400);
        double tb = pingpong(big, 50);
        bw = tb > lat ? big / (tb - lat) : 0;
        if (rank == 0)
            printf("pingpong rank 0 <-> 1: latency %.2f us (8 B), bandwidth %.2f GB/s (%d B messages), half round "
                   "trips, medians\n", 1e6 * lat, 1e-9 * bw, big);
    }
    char mpath[4096];
    spmv_machine m;
    double t_node = 0, gf_rank = 0;
    int have_m = tool_find_machine(machine_path, mpath, sizeof mpath) && spmv_machine_read(mpath, &m) == SPMV_OK;
    if (have_m) t_node = node_limit_time(D, &m, threads, ranks_node, &gf_rank);
    if (rank == 0) {
        if (!have_m) printf("limit    no machine file: run spmv-machine (or pass --machine FILE) for the node-level limit\n");
        else if (t_node <= 0) printf("limit    no model for the local parts (%s)\n", spmv_last_error());
        else
            printf("limit    node level: %.3f Gflop/s (model of the local parts, %d ranks x %d thread%s per node share "
                   "%d cores; machine %s), %.3f ms per multiply\n", 2.0 * D->nnz / t_node * 1e-9, ranks_node, threads,
                   threads == 1 ? "" : "s", ranks_node * threads, mpath, 1e3 * t_node);
    }
    if (size > 1 && bw > 0) {
        double th = 0, tr = 0, thmax;
        spmv_mpi_model_halo(&mine, lat, bw, &th);
        MPI_Allreduce(&th, &thmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        spmv_mpi_model_allreduce(size, lat, &tr);
        double tc = thmax + tr;
        if (rank == 0) {
            printf("model    communication %.4f ms per multiply (halo %.4f on the busiest rank + argument agreement "
                   "%.4f; Hockney model with the ping-pong's latency and bandwidth)\n", 1e3 * tc, 1e3 * thmax, 1e3 * tr);
            if (t_node > 0)
                printf("model    predicted %.3f Gflop/s overlapped (max of node and communication), %.3f Gflop/s "
                       "not overlapped (their sum); measured %.3f / %.3f\n", 2.0 * D->nnz / fmax(t_node, tc) * 1e-9,
                       2.0 * D->nnz / (t_node + tc) * 1e-9, ov_on ? med[0] : 0, ov_off ? med[nvar - 1] : 0);
        }
    }
    free(gf);
    free(x);
    free(y);
    spmv_mpi_free(D);
    MPI_Finalize();
    return 0;
}
