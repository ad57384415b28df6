/* spmv-mpi-model: HPCG weak scaling "on paper" -- the halo volume per node and the predicted efficiency of the
 * distributed multiply for 8 .. 1024 nodes, from the same code the library runs:
 *  - partition statistics: spmv_mpi_grid_stats, which generates a node's rows and splits them with the code that
 *    builds the exchange plan of spmv_mpi_gen (nothing is sent; 64-bit global indices, so 1024 x 128^3 = 2^31 rows
 *    are fine);
 *  - node level: the ECM/roofline model of the library (spmv_model_sell / spmv_model_crs) for the local part, an
 *    HPCG 128^3 matrix, in the format spmv::mpi's AUTO chooses, on a machine file with all its cores;
 *  - network: spmv_mpi_model_halo (Hockney: latency + bytes / bandwidth per message, a node's messages in one
 *    direction serialized on its link) and spmv_mpi_model_allreduce (the argument agreement of each multiply).
 * Efficiency against one node without communication: not overlapped T_node / (T_node + T_comm); overlapped
 * T_node / max(T_node, T_comm) (the halo fully hidden behind the local part, which needs asynchronous progress).
 * No MPI run is needed. Prints markdown.
 *
 *   spmv-mpi-model [--local N] [--machine FILE] [--bandwidth GB/s] [--latency us] [--nodes 8,16,...] */
#include "spmv_mpi.h"
#include "spmv_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the most cubic factorization p = px * py * pz, px >= py >= pz (as MPI_Dims_create) */
static void dims3(int p, int d[3])
{
    double best = INFINITY;
    d[0] = p;
    d[1] = d[2] = 1;
    for (int a = 1; a <= p; a++) {
        if (p % a) continue;
        for (int b = 1; b <= a; b++) {
            if ((p / a) % b) continue;
            int c = p / a / b;
            if (c > b) continue;
            double spread = (double)a / c;
            if (spread < best) {
                best = spread;
                d[0] = a;
                d[1] = b;
                d[2] = c;
            }
        }
    }
}

static int die(const char *what, spmv_status st)
{
    fprintf(stderr, "spmv-mpi-model: %s: %s%s (%s)\n", what, spmv_mpi_last_error(), spmv_last_error(),
            spmv_strerror(st));
    return 1;
}

int main(int argc, char **argv)
{
    long L = 128;
    const char *machine = "machines/a64fx-fx700.machine", *nodes_arg = "8,16,32,64,128,256,512,1024";
    double bw_gbs = 12.5, lat_us = 1.5; /* 100 Gb/s; an InfiniBand EDR-class MPI latency */
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--local") && v) L = atol(argv[++i]);
        else if (!strcmp(argv[i], "--machine") && v) machine = argv[++i];
        else if (!strcmp(argv[i], "--bandwidth") && v) bw_gbs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--latency") && v) lat_us = atof(argv[++i]);
        else if (!strcmp(argv[i], "--nodes") && v) nodes_arg = argv[++i];
        else {
            fprintf(stderr, "usage: spmv-mpi-model [--local N] [--machine FILE] [--bandwidth GB/s] [--latency us] "
                            "[--nodes 8,16,...]\n");
            return 2;
        }
    }
    if (L < 2 || L > 1024 || !(bw_gbs > 0) || !(lat_us >= 0)) {
        fprintf(stderr, "spmv-mpi-model: need 2 <= --local <= 1024, --bandwidth > 0, --latency >= 0\n");
        return 2;
    }
    double bw = bw_gbs * 1e9, lat = lat_us * 1e-6;

    /* node level: the local part of an interior node is the HPCG L^3 matrix itself */
    spmv_machine m;
    spmv_status st = spmv_machine_read(machine, &m);
    if (st) return die(machine, st);
    spmv_crs *A = NULL;
    spmv_sell *S = NULL;
    if ((st = spmv_gen_hpcg((int32_t)L, (int32_t)L, (int32_t)L, &A))) return die("spmv_gen_hpcg", st);
    spmv_sell_opts so = spmv_sell_opts_default();
    so.C = 0; /* the library's automatic parameters, as spmv::mpi's AUTO format */
    so.sigma = 0;
    spmv_model md;
    int cores = m.sockets * m.cores_per_socket;
    if ((st = spmv_sell_from_crs(A, &so, &S))) return die("spmv_sell_from_crs", st);
    if ((st = spmv_model_sell(S, NULL, &m, cores, NULL, &md))) return die("spmv_model_sell", st);
    double p_node = md.predicted; /* Gflop/s */
    printf("Node: %s, %d cores; local part HPCG %ld^3 (%lld rows, %lld nnz) in %s (C = %d, sigma = %d): model "
           "%.1f Gflop/s (roofline %.1f, B_c %.3f B/flop).\n", m.name, cores, L, (long long)A->rows,
           (long long)A->nnz, spmv_sell_kernel_name(S), S->C, S->sigma, p_node, md.roofline, md.Bc);
    printf("Network: %.1f GB/s (%.0f Gb/s) per node and direction, latency %.2f us; Hockney model per message, a "
           "node's messages serialized on its link; one allreduce (argument agreement) of ceil(log2 P) latencies per "
           "multiply.\n\n", bw_gbs, 8 * bw_gbs, lat_us);
    spmv_sell_free(S);
    spmv_crs_free(A);

    const char *numbering[2] = {"process grid (HPCG: each node's sub-grid numbered contiguously)",
                                "lexicographic rows of the global grid, 128^3 consecutive rows per node"};
    for (int nb = 0; nb < 2; nb++) {
        printf("%s %s\n\n", nb ? "Rows in" : "Rows by", numbering[nb]);
        printf("| nodes | process grid | global grid | halo per node: doubles | KiB | messages in / out | T_node ms | "
               "T_comm ms | efficiency not overlapped | overlapped |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|\n");
        char buf[256];
        snprintf(buf, sizeof buf, "%s", nodes_arg);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            int P = atoi(tok), d[3] = {1, 1, 1};
            if (P < 1) continue;
            dims3(P, d);
            spmv_mpi_grid g = {SPMV_MPI_HPCG, L * d[0], L * d[1], L * d[2], d[0], d[1], d[2]};
            int64_t *rs = NULL;
            if (nb) { /* lexicographic numbering, the same 128^3 rows per node */
                g.px = g.py = g.pz = 0;
                rs = malloc(((size_t)P + 1) * sizeof *rs);
                for (int r = 0; r <= P; r++) rs[r] = (int64_t)r * L * L * L;
            }
            /* the busiest node: the one in the middle of the process grid (most neighbours), or of the row order;
             * and the first node, for comparison */
            int mid = nb ? P / 2 : d[0] / 2 + d[0] * (d[1] / 2 + d[1] * (d[2] / 2));
            spmv_mpi_stats s[2];
            int reps[2] = {mid, 0};
            for (int k = 0; k < 2; k++)
                if ((st = spmv_mpi_grid_stats(&g, P, reps[k], rs, &s[k]))) return die("spmv_mpi_grid_stats", st);
            int b = s[1].recv > s[0].recv ? 1 : 0;
            double th, tr;
            spmv_mpi_model_halo(&s[b], lat, bw, &th);
            spmv_mpi_model_allreduce(P, lat, &tr);
            double tnode = 2.0 * (double)s[b].nnz / (p_node * 1e9), tc = th + tr;
            printf("| %d | %dx%dx%d | %lldx%lldx%lld | %lld | %.0f | %lld / %lld | %.3f | %.3f | %.3f | %.3f |\n", P,
                   d[0], d[1], d[2], (long long)g.nx, (long long)g.ny, (long long)g.nz, (long long)s[b].recv,
                   8.0 * s[b].recv / 1024, (long long)s[b].recv_msgs, (long long)s[b].send_msgs, 1e3 * tnode,
                   1e3 * tc, tnode / (tnode + tc), tnode / fmax(tnode, tc));
            free(rs);
            fflush(stdout);
        }
        printf("\n");
    }
    return 0;
}
