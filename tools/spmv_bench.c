/* spmv-bench: time y = A*x for one matrix and one format, checked against a reference loop first. */
#include "toolutil.h"
#include "tune_machine.h"
#include "bench_suite.h"
#include "pmu_report.h"
#include "bench_mpi_exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *prog = "spmv-bench";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spmv-bench FILE.mtx | --hpcg NX[,NY,NZ] [options]\n"
            "  -f crs|sell     format (default sell)\n"
            "  -C C            SELL chunk height (default 32)\n"
            "  -s SIGMA        SELL sorting window (default 1; 'rows' or 0: global sort)\n"
            "  -u U            round chunk lengths up to a multiple of U (default 1)\n"
            "  -t THREADS      OpenMP threads (default: OMP_NUM_THREADS or all cores); a list such as 1,2,4,8\n"
            "                  times each count on the same matrix (built once, first touch by the largest)\n"
            "  --permuted      x and y in SELL's permuted order (no scatter through the permutation)\n"
            "  --rcm           SELL with reverse Cuthill-McKee first (square matrices); RCM's own time is printed\n"
            "  --plain         SELL with 32-bit indices and 8-byte values only: no run columns, no 16-bit indices,\n"
            "                  no value indices (the defaults choose them by size and structure)\n"
            TOOL_SELL_USAGE
            "  --time S        target seconds per timed run (default 0.2; 5 runs, median reported)\n"
            "  --runs N        timed runs (default 5)\n"
            "  --machine FILE  machine file for the model (default: the newest one spmv-machine wrote\n"
            "                  under $XDG_DATA_HOME/spmv/machines)\n"
            "  --model         print the whole model (alpha, code balance, where the data live, roofline, ECM)\n"
            "                  and the memory's latency before and after the timing (memlat: a shared host's\n"
            "                  busy phases raise it); with a machine file also its read bandwidth before and\n"
            "                  after (membw) and the ECM at that bandwidth (ECMrun, next to the file's ECM)\n"
            "  --auto          SELL parameters recorded by spmv-tune for this matrix and machine (else the model's)\n"
            "  --pmu           count the timed multiply with the PMU: counted Gflop/s, counted flops / (2 nnz) next\n"
            "                  to 1/beta, IPC, top-down level 1, and the events used (libpfm4; one line if absent)\n"
            "Prints Gflop/s (2*nnz/time), the traffic the kernel declares (also in bytes per nonzero) and the\n"
            "bandwidth it implies, and with a machine file the bytes per nonzero its read bandwidth could move in\n"
            "the measured time and two figures: %% of the roofline (a bound) and the ECM prediction's error.\n");
    bench_suite_usage(f);
    fprintf(f, "spmv-bench --mpi ...: under mpirun, the distributed multiply (spmv-bench-mpi --help)\n");
}

/* The machine file for the model, read before the timed runs: the explicit one (--machine; an error there ends
 * the run before any work) or the newest one spmv-machine wrote. */
typedef struct bench_machine {
    int have;            /* m is usable */
    char path[4096];     /* the file (empty: none found) */
    char why[600];       /* why there is no model (a file that does not read) */
    spmv_machine m;
} bench_machine;

static int get_machine(const char *explicit_path, bench_machine *bm)
{
    memset(bm, 0, sizeof *bm);
    if (!tool_find_machine(explicit_path, bm->path, sizeof bm->path)) {
        bm->path[0] = '\0';
        return 0;
    }
    spmv_status st = spmv_machine_read(bm->path, &bm->m);
    if (st) {
        if (explicit_path) {
            fprintf(stderr, "%s: --machine: %s (%s)\n", prog, spmv_last_error(), spmv_strerror(st));
            return 1;
        }
        snprintf(bm->why, sizeof bm->why, "%s (re-measure with spmv-machine --install)", spmv_last_error());
        return 0;
    }
    bm->have = 1;
    return 0;
}

/* Bytes per nonzero: the kernel's declaration against what the machine's read bandwidth (spmv-machine's LOAD stream
 * at this many cores, at its fastest pass: the curve's median point times the saturated fastest-over-median ratio
 * where the file gives the fastest pass) can move in the measured time. Declared above the bound: part of the data
 * came from the caches (or the machine file is off); far below it: the kernel does not stream at the bandwidth. */
static void print_bytes_check(const bench_machine *bm, int threads, int64_t nnz, double bytes, double tmed)
{
    if (!bm->have || nnz <= 0 || !(tmed > 0)) return;
    const spmv_machine *m = &bm->m;
    const int i = threads < m->bw_points ? threads : m->bw_points; /* the curve's last point: saturated */
    const double fast = m->bw_load_best > m->bw_load && m->bw_load > 0 ? m->bw_load_best / m->bw_load : 1.0;
    const double bw = fast * (i > 0 && m->bw_load_n[i - 1] > 0 ? m->bw_load_n[i - 1] : m->bw_load);
    if (!(bw > 0)) return;
    const double declared = bytes / (double)nnz, bound = bw * 1e9 * tmed / (double)nnz;
    printf("bytes    %.3g B per nonzero declared; the read bandwidth %.3g GB/s (spmv-machine, %d core%s%s) moves at "
           "most %.3g B per nonzero in the measured time: %s\n", declared, bw, i > 0 ? i : threads,
           (i > 0 ? i : threads) == 1 ? "" : "s", fast > 1 ? ", fastest pass" : "", bound,
           declared > 1.05 * bound  ? "declared above it, so part of the data came from the caches"
           : declared >= 0.95 * bound ? "the kernel streams at the read bandwidth"
                                      : "below it (bound in the core or by latency, or data in the caches)");
}

/* The model next to the measurement, two figures: the roofline (a bound) with the measured % of it, and the ECM
 * prediction with its error, at this thread count, from the machine file. Returns 0, or 1 when the model fails
 * with a machine file named explicitly (--machine). An empty matrix (nnz 0) is valid: the model does not apply. */
static int print_limit(const spmv_sell *S, const spmv_crs *A, int threads, const bench_machine *bm, int explicit_m,
                       int full, double gflops, double ghz, double read_gbs)
{
    spmv_model md;
    if (!bm->path[0]) {
        printf("roofline no machine file: run spmv-machine (or pass --machine FILE) for the model\n");
        return 0;
    }
    if (!bm->have) {
        printf("roofline no model: %s\n", bm->why);
        return 0;
    }
    if (A->nnz == 0) {
        printf("roofline the model does not apply to an empty matrix (nnz 0: no flops, no traffic); machine %s\n",
               bm->path);
        return 0;
    }
    /* the model at the clock of this run (measured around the timing): the machine file's cycles at the file's
     * clock would predict for another state of the core (turbo, a shared host) */
    spmv_machine m = bm->m;
    if (ghz > 0 && spmv_machine_at_clock(&m, ghz) == SPMV_OK)
        printf("clock    %.3f GHz during the timing (spmv-machine's add chain before and after, the slowest of %d "
               "thread%s); the machine file's %.3f GHz: the model at %.3f GHz (cycles as measured, memory's GB/s)\n",
               ghz, threads, threads == 1 ? "" : "s", bm->m.clock_ghz, ghz);
    else
        printf("clock    not measured: the model at the machine file's %.3f GHz\n", bm->m.clock_ghz);
    spmv_status st = S ? spmv_model_sell(S, NULL, &m, threads, NULL, &md)
                       : spmv_model_crs(A, NULL, &m, threads, NULL, &md);
    if (st) {
        if (explicit_m) {
            tool_error(prog, st);
            return 1;
        }
        printf("roofline no model: %s\n", spmv_last_error());
        return 0;
    }
    double pct, err;
    spmv_model_score(&md, gflops, &pct, &err);
    char where[256] = "";
    for (int i = 0; i < md.ecm.nlevels; i++)
        if (md.share[i] > 0)
            snprintf(where + strlen(where), sizeof where - strlen(where), "%s%.0f %% %s", where[0] ? ", " : "",
                     100.0 * md.share[i], md.levels[i]);
    printf("roofline %.3f Gflop/s on %d thread%s, a bound (data set %.3g MB from %s; memory roofline %.3f at B_c %.3f "
           "B/flop): measured %.0f %% of it\n", md.roofline, threads, threads == 1 ? "" : "s", md.ws * 1e-6, where,
           md.roofline_mem, md.Bc_roof, pct);
    printf("ECM      %.3f Gflop/s predicted on %d thread%s (alpha %.4g%s): error %+.0f %% (predicted - measured, of "
           "measured); machine %s\n", md.predicted, threads, threads == 1 ? "" : "s", md.alpha.alpha,
           md.alpha.sampled < 1 ? ", sampled" : "", err, bm->path);
    if (full) {
        char buf[8192];
        spmv_model_format(&md, gflops, "model    ", buf, sizeof buf);
        fputs(buf, stdout);
    }
    /* the ECM at the memory bandwidth of this run (read before and after the timing): a diagnostic that tells the
     * host's state from the model's error, next to the prediction from the machine file above */
    if (!(read_gbs > 0)) return 0;
    spmv_machine mb = m;
    spmv_model mdb;
    if (spmv_machine_at_read_bandwidth(&mb, threads, read_gbs) ||
        (S ? spmv_model_sell(S, NULL, &mb, threads, NULL, &mdb) : spmv_model_crs(A, NULL, &mb, threads, NULL, &mdb))) {
        printf("ECMrun   not computed: %s\n", spmv_last_error());
        return 0;
    }
    double pctb, errb;
    spmv_model_score(&mdb, gflops, &pctb, &errb);
    const int mem = m.nlevels - 1; /* the factor: the memory's B/cy scaled (> 0 by the machine check) */
    printf("ECMrun   %.3f Gflop/s predicted at this run's read bandwidth (%.3g GB/s on %d thread%s, x %.3f the "
           "machine file's): error %+.0f %%\n", mdb.predicted, read_gbs, threads, threads == 1 ? "" : "s",
           mb.level[mem].upstream_bw / m.level[mem].upstream_bw, errb);
    return 0;
}

int main(int argc, char **argv)
{
    if (bench_mpi_wanted(argc, argv)) return bench_mpi_exec(prog, argc, argv);
    const char *spec = NULL, *format = "sell";
    long C = 32, sigma = 1, unroll = 1, threads = 0, runs = 5;
    long tlist[64];
    int nt = 0;
    double target = 0.2, max_stored = 2;
    long long_rows = -1;
    int permuted = 0, model = 0, autoopt = 0, pmu = 0, rcm = 0, plain = 0;
    const char *machine_path = NULL;
    char hpcgbuf[160];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = tool_matrix_arg(prog, argc, argv, &i, hpcgbuf, sizeof hpcgbuf, &spec);
        if (r == 0) r = tool_sell_arg(prog, argc, argv, &i, &long_rows, &max_stored);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-f") && v) {
            format = v;
            i++;
            if (strcmp(format, "crs") && strcmp(format, "sell")) {
                fprintf(stderr, "%s: -f: unknown format '%s' (crs or sell)\n", prog, format);
                return 2;
            }
        } else if (!strcmp(a, "-C") && v) {
            if (!tool_parse_int(prog, "-C", v, 1, 1 << 16, &C)) return 2;
            i++;
        } else if (!strcmp(a, "-s") && v) {
            if (!strcmp(v, "rows")) sigma = 0;
            else if (!tool_parse_int(prog, "-s", v, 0, INT32_MAX, &sigma)) return 2;
            i++;
        } else if (!strcmp(a, "-u") && v) {
            if (!tool_parse_int(prog, "-u", v, 1, 1 << 16, &unroll)) return 2;
            i++;
        } else if (!strcmp(a, "-t") && v) {
            if ((nt = tool_parse_int_list(prog, "-t", v, ",", 1, 4096, tlist, 64)) < 0) return 2;
            for (int k = 0; k < nt; k++)
                if (tlist[k] > threads) threads = tlist[k];
            i++;
        } else if (!strcmp(a, "--runs") && v) {
            if (!tool_parse_int(prog, "--runs", v, 1, 64, &runs)) return 2;
            i++;
        } else if (!strcmp(a, "--time") && v) {
            if (!tool_parse_seconds(prog, a, v, 0, 600, 0, &target)) return 2;
            i++;
        } else if (!strcmp(a, "--machine") && v) {
            machine_path = v;
            i++;
        } else if (!strcmp(a, "--auto")) {
            autoopt = 1;
        } else if (!strcmp(a, "--suite")) {
            return bench_suite_main(prog, argc - i - 1, argv + i + 1);
        } else if (!strcmp(a, "--model")) {
            model = 1;
        } else if (!strcmp(a, "--pmu")) {
            pmu = 1;
        } else if (!strcmp(a, "--rcm")) {
            rcm = 1;
        } else if (!strcmp(a, "--permuted")) {
            permuted = 1;
        } else if (!strcmp(a, "--plain")) {
            plain = 1;
        } else {
            fprintf(stderr, "%s: unknown option or missing value: %s\n", prog, a);
            usage(stderr);
            return 2;
        }
    }
    if (!spec) {
        usage(stderr);
        return 2;
    }
    const int rc0 = tool_start(prog, &threads);
    if (rc0) return rc0;
    const int t_given = nt > 0;
    if (nt == 0) tlist[nt++] = threads;

    /* the machine file before the work: --machine FILE must read */
    static bench_machine bm;
    if (get_machine(machine_path, &bm)) return 1;

    spmv_crs *A = NULL;
    spmv_sell *S = NULL;
    double *x = NULL, *y = NULL;
    const char *name;
    int rc = 1;
    spmv_status st = tool_load(prog, spec, &A, &name);
    if (st) return 1;
    spmv_crs_set_threads(A, (int)threads);
    double tconv = 0;
    if (!strcmp(format, "sell")) {
        spmv_sell_opts o = spmv_sell_opts_default();
        o.C = (int32_t)C;
        o.sigma = sigma == 0 ? (A->rows > 0 ? A->rows : 1) : (int32_t)sigma;
        o.unroll = (int32_t)unroll;
        o.permuted = permuted;
        o.nthreads = (int)threads;
        o.long_rows = (int32_t)long_rows;
        o.max_stored_factor = max_stored;
        o.rcm = rcm;
        if (autoopt && bench_auto_opts(prog, A, &o)) goto done;
        if (plain) o.runs = o.idx16 = o.vidx = 0;
        if (autoopt && o.nthreads != (int)threads) { /* a recorded thread count */
            if (t_given) {
                printf("auto     timed with -t as given, not with the %d thread%s recorded\n", o.nthreads,
                       o.nthreads == 1 ? "" : "s");
                o.nthreads = (int)threads;
            } else { /* timed as recorded */
                tlist[0] = threads = o.nthreads;
#ifdef _OPENMP
                omp_set_num_threads((int)threads);
#endif
                spmv_crs_set_threads(A, (int)threads);
            }
        }
        rcm = o.rcm && A->rows == A->cols;
        double t0 = tool_now();
        st = spmv_sell_from_crs(A, &o, &S);
        tconv = tool_now() - t0;
        if (st) {
            tool_error(prog, st);
            goto done;
        }
    }
    if ((st = spmv_vec_alloc(A->cols, &x)) || (st = spmv_vec_alloc(A->rows, &y))) {
        tool_error(prog, st);
        goto done;
    }
    for (int32_t j = 0; j < A->cols; j++) x[j] = 1.0 + (j % 7) / 7.0;

    /* correctness first: the result must match an independent reference loop */
    double *xo = x, *yo = y, *tmp = NULL;
    if (S && permuted) {
        /* compare in the original order: y = P^T (A' (P x)) */
        if ((st = spmv_vec_alloc(A->rows > A->cols ? A->rows : A->cols, &tmp))) {
            tool_error(prog, st);
            goto done;
        }
        if (A->rows == A->cols) spmv_sell_permute_vec(S, x, tmp);
        st = spmv_sell_mv(S, 1.0, A->rows == A->cols ? tmp : x, 0.0, y);
        spmv_sell_unpermute_vec(S, y, tmp);
        yo = tmp;
    } else
        st = S ? spmv_sell_mv(S, 1.0, x, 0.0, y) : spmv_crs_mv(A, 1.0, x, 0.0, y);
    if (st) {
        tool_error(prog, st);
        spmv_vec_free(tmp);
        goto done;
    }
    double err = tool_check(A, xo, yo);
    spmv_vec_free(tmp);
    if (!(err <= 1e-12)) {
        fprintf(stderr, "%s: result check FAILED: max |y - y_ref| / (|A||x|) = %.3g > 1e-12\n", prog, err);
        goto done;
    }

    spmv_crs_stats cs;
    spmv_crs_get_stats(A, &cs);
    spmv_traffic tr;
    int64_t stored = S ? S->stored : A->nnz, nchunks = S ? S->nchunks : 0;
    if (S) spmv_sell_traffic(S, &tr);
    else spmv_crs_traffic(A, &tr);
    double alpha_x = A->nnz > 0 ? (double)A->cols / A->nnz : 0; /* x read once: alpha = 1/N_nzr */
    double bytes = spmv_traffic_bytes(&tr, stored, A->nnz, A->rows, nchunks, alpha_x);
    printf("matrix   %s: %d rows, %d cols, %lld nnz, N_nzr %.2f (min %d, max %d)\n", name, A->rows, A->cols,
           (long long)A->nnz, cs.nzr_mean, cs.nzr_min, cs.nzr_max);
    if (S)
        printf("format   SELL-%d-%d%s: stored %lld, beta %.4f, padding %.2f %%, conversion %.3f s\n", S->C, S->sigma,
               S->permuted ? " (permuted order)" : "", (long long)S->stored, spmv_sell_beta(S),
               spmv_sell_padding_percent(S), tconv);
    if (S) {
        if (S->nruns == 0 && S->nidx16 == 0 && S->nvals == 0)
            printf("format   compression: none (32-bit indices, 8-byte values)\n");
        else {
            char vi[48] = "value indices off";
            if (S->nvals) snprintf(vi, sizeof vi, "value indices on (%d distinct values)", S->nvals);
            const double pct = S->stored > 0 ? 100.0 / (double)S->stored : 0.0; /* per stored entry */
            printf("format   compression: run columns %lld (%.1f %% of stored entries), 16-bit indices on %.1f %%, "
                   "%s\n", (long long)S->nruns, pct * (double)S->C * (double)S->nruns, pct * (double)S->nidx16, vi);
        }
    }
    if (S && S->nlong > 0)
        printf("format   CRS part: %d rows of more than %d entries, %lld nonzeros (%s)\n", S->nlong, S->long_min,
               (long long)S->longptr[S->nlong], spmv_crs_kernel_name(A));
    else if (!S)
        printf("format   CRS\n");
    printf("kernel   %s\n", S ? spmv_sell_kernel_name(S) : spmv_crs_kernel_name(A));
    printf("check    max |y - y_ref| / (|A||x|) = %.2g (limit 1e-12): ok\n", err);
    printf("traffic  %.4g MB per SpMV = %.3g B per nonzero (%g B/entry, %g B/row, %g B/chunk, x read once: alpha = "
           "1/N_nzr)\n", bytes * 1e-6, A->nnz > 0 ? bytes / (double)A->nnz : 0.0, tr.bytes_per_entry,
           tr.bytes_per_row, tr.bytes_per_chunk);
    for (int ti = 0; ti < nt; ti++) {
        int t = (int)tlist[ti];
#ifdef _OPENMP
        omp_set_num_threads(t);
#endif
        if (S) spmv_sell_set_threads(S, t);
        else spmv_crs_set_threads(A, t);
        const int clk = bm.have && A->nnz > 0; /* the clock for the model, around the timing */
        /* with --model, the memory's latency before and after (the host's state: on a shared host the kernels ran
         * at half speed where it rose by a fifth to a third, see tune_memory_latency_now) */
        const double lat0 = model ? tune_memory_latency_now() : 0.0;
        int64_t rbytes = 0; /* the bytes the read stream read: the machine file's bw_bytes */
        const double bw0 = model && clk ? tune_read_bandwidth_now(t, bm.m.bw_bytes, &rbytes) : 0.0;
        const double ghz0 = clk ? tune_clock_now(t) : 0.0;
        double tmin, tmax, tmed = tool_time(A, S, x, y, target, (int)runs, &tmin, &tmax);
        const double ghz1 = clk ? tune_clock_now(t) : 0.0;
        const double bw1 = model && clk ? tune_read_bandwidth_now(t, bm.m.bw_bytes, NULL) : 0.0;
        const double lat1 = model ? tune_memory_latency_now() : 0.0;
        const double rbw = bw0 > 0 && bw1 > 0 ? 0.5 * (bw0 + bw1) : 0.0;
        const double ghz = ghz0 > 0 && ghz1 > 0 ? 0.5 * (ghz0 + ghz1) : 0.0;
        double gflops = tmed > 0 ? 2.0 * A->nnz / tmed * 1e-9 : 0;
        printf("threads  %d\n", t);
        printf("time     %ld runs of >= %g s: median %.4g ms per SpMV (min %.4g, max %.4g)\n", runs, target,
               tmed * 1e3, tmin * 1e3, tmax * 1e3);
        printf("perf     %.3f Gflop/s, %.2f GB/s\n", gflops, tmed > 0 ? bytes / tmed * 1e-9 : 0);
        if (lat0 > 0 && lat1 > 0)
            printf("memlat   %.1f ns before, %.1f ns after the timing (pointer chase over %zu MiB, one thread: the "
                   "memory's latency at this run; a shared host's busy phases raise it)\n",
                   lat0, lat1, TUNE_LATENCY_BYTES >> 20);
        else if (model)
            printf("memlat   not measured (no memory for the pointer chase)\n");
        if (rbw > 0)
            printf("membw    %.1f GB/s before, %.1f GB/s after the timing (spmv-machine's read stream over %lld MiB on "
                   "%d thread%s%s: the memory's bandwidth at this run, for the ECMrun line)\n", bw0, bw1,
                   (long long)(rbytes >> 20), t, t == 1 ? "" : "s",
                   bm.m.bw_bytes > 0 ? ", the machine file's size" : "");
        else if (model && clk)
            printf("membw    not measured (no memory for the read stream, or OpenMP gave fewer threads)\n");
        print_bytes_check(&bm, t, A->nnz, bytes, tmed);
        if (print_limit(S, A, t, &bm, machine_path != NULL, model, gflops, ghz, rbw)) goto done;
        if (pmu) { /* no counters: one line, then no more tries */
            int pr = tool_pmu_report(prog, "pmu      ", A, S, x, y, tmed, target);
            if (pr == 1) goto done;
            pmu = pr != 2;
        }
    }
    if (S) {
        /* preparation in multiplies: the conversion (and RCM inside it) against one CRS multiply at the threads the
         * conversion ran with (issue 17: "printed as seconds and as a number of SpMVs") */
        const int tc = (int)threads;
#ifdef _OPENMP
        omp_set_num_threads(tc);
#endif
        spmv_crs_set_threads(A, tc);
        double cmin, cmax, tcrs = tool_time(A, NULL, x, y, target, (int)runs, &cmin, &cmax);
        printf("prepare  conversion %.3f s = %.1f CRS multiplies (CRS %.4g ms per SpMV at %d thread%s)\n", tconv,
               tcrs > 0 ? tconv / tcrs : 0, tcrs * 1e3, tc, tc == 1 ? "" : "s");
        if (rcm) {
            int32_t *p = malloc((size_t)A->rows * sizeof *p), *ip = malloc((size_t)A->rows * sizeof *ip);
            double t0 = tool_now();
            st = p && ip ? spmv_rcm(A, p, ip) : SPMV_ERR_NOMEM;
            double trcm = tool_now() - t0;
            free(p), free(ip);
            if (st) {
                tool_error(prog, st);
                goto done;
            }
            printf("prepare  RCM %.3f s = %.1f CRS multiplies (part of the conversion above)\n", trcm,
                   tcrs > 0 ? trcm / tcrs : 0);
        }
    }
    rc = 0;
done:
    spmv_vec_free(x);
    spmv_vec_free(y);
    spmv_sell_free(S);
    spmv_crs_free(A);
    return rc;
}
