/* spmv-tune: find the fastest SELL-C-sigma configuration (C, sigma, RCM, threads) for this machine and a matrix,
 * check every result against a reference loop, report each point against the model's limits (roofline and ECM),
 * and record the choice for the library's "auto" parameters. A thin main over spmv_tune() (include/spmv_tune.h). */
#define _POSIX_C_SOURCE 200809L
#include "toolutil.h"
#include "tune_machine.h"
#include "tune_report.h"
#include "pmu_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *prog = "spmv-tune";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spmv-tune [FILE.mtx | --hpcg NX[,NY,NZ]] [options]\n"
            "Finds the fastest SELL-C-sigma configuration (C, sigma, RCM, threads) for this machine and the matrix,\n"
            "checks every result against a reference loop, prints each point against the model's limits (roofline,\n"
            "ECM) and records the choice (used by spmv_sell_from_crs with C = 0 / sigma = 0 and spmv-bench --auto).\n"
            "Without a matrix: the built-in HPCG 27-point matrix, 128^3 as in the paper (160^3 or 192^3 when that is\n"
            "less than 4x the effective last-level cache, measured, not CPUID's; smaller when memory is short):\n"
            "memory-bound on this machine.\n"
            "  --max-time S    bound for the whole run in seconds (default 240), the machine step included: without\n"
            "                  a machine file, spmv-machine --quick (10-30 s) runs only when S >= %.0f, else an estimate\n"
            "                  measured in about a second (with a warning); the CRS baseline and one SELL point are\n"
            "                  always measured, so a large matrix can take longer than a tiny S\n"
            "  --time S        seconds per timed run (default 0.1); --runs N timed runs per point (default 5, median)\n"
            "  -t N            largest thread count (default OMP_NUM_THREADS or all cores); swept 1, 2, 4, ..., N\n"
            "  -C LIST         chunk heights to sweep, e.g. 8,16,32 (default: those with fast kernels on this CPU)\n"
            "  --full          every C x sigma x RCM (default: staged: C, then sigma, then RCM, then threads)\n"
            "  --no-rcm        do not try RCM\n"
            "  --max-stored F  prune SELL points storing more than F x nnz entries before building them (default 2:\n"
            "                  about twice the memory of the CRS matrix; 0: no limit)\n"
            "  --permuted      tune for x and y in SELL's permuted order (solvers that stay in it)\n"
            "  --machine FILE  machine file for the model (default: this CPU's file in $XDG_DATA_HOME/spmv/machines,\n"
            "                  made by `spmv-machine --quick` when missing and --max-time allows; else an estimate)\n"
            "  --no-machine-run  do not run spmv-machine: use an estimate when there is no machine file\n"
            "  --db PATH       tuning database (default $SPMV_TUNE_DB or $XDG_DATA_HOME/spmv/tuning/choices.txt)\n"
            "  --no-record     do not record the choice\n"
            "  --csv FILE      every point as CSV;  --json FILE  everything as JSON\n"
            "  --plot DIR      PNG plots with gnuplot: DIR/threads.png, DIR/sigma.png\n"
            "  --pmu           count the choice and CRS with the PMU after the search: counted Gflop/s, counted\n"
            "                  flops / (2 nnz) next to 1/beta, IPC, top-down level 1 (libpfm4; one line if absent)\n"
            "  -q              no progress bar (and spmv-machine --quick, when it runs, without its progress and table)\n",
            TUNE_QUICK_MIN_S);
}

/* ------------------------------------------------------------------------------------------- progress bar */

typedef struct bar {
    int on, drawn;
} bar;

static void progress(void *ctx, const spmv_tune_point *p, int32_t done, int32_t planned, double el, double budget)
{
    bar *b = ctx;
    if (!b->on || (el < 1.0 && !b->drawn)) return; /* only sweeps longer than a second */
    double frac = planned > 0 ? (double)done / planned : 0, tf = budget > 0 ? el / budget : 0;
    if (tf > frac) frac = tf;
    if (frac > 1) frac = 1;
    enum { W = 28 };
    char line[W + 1];
    int k = (int)(frac * W + 0.5);
    for (int i = 0; i < W; i++) line[i] = i < k ? '#' : '.';
    line[W] = '\0';
    char name[48];
    tune_point_name(p, name, sizeof name);
    fprintf(stderr, "\r[%s] %3d/%-3d %4.0f/%.0f s  %-8s %s%s%s %d thr\033[K", line, done, planned > done ? planned : done,
            el, budget, tune_stage_name(p->stage), name, p->is_crs ? "" : p->rcm ? " RCM" : "", "", p->nthreads);
    fflush(stderr);
    b->drawn = 1;
}

/* ------------------------------------------------------------------------------------------- main */

/* HPCG n^3 CRS bytes (8-byte values, 4-byte indices, 8-byte offsets) */
static double hpcg_bytes(int n)
{
    double nnz = pow(3.0 * n - 2, 3), rows = (double)n * n * n;
    return 12 * nnz + 8 * rows;
}

int main(int argc, char **argv)
{
    const double t_start = tool_now();
    const char *spec = NULL, *machine_path = NULL, *db_opt = NULL, *csv = NULL, *json = NULL, *plot = NULL;
    double max_time = 240, run_time = 0.1, max_stored = 2;
    long runs = 5, threads = 0;
    int full = 0, rcm = 1, permuted = 0, record = 1, quiet = 0, machine_run = 1, pmu = 0;
    int32_t Cl[16], nCl = 0;
    char hpcgbuf[160];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = tool_matrix_arg(prog, argc, argv, &i, hpcgbuf, sizeof hpcgbuf, &spec);
        if (r == 0) r = tool_sell_arg(prog, argc, argv, &i, NULL, &max_stored);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--max-time") && v) {
            if (!tool_parse_seconds(prog, a, v, 0, 86400, 0, &max_time)) return 2;
            i++;
        } else if (!strcmp(a, "--time") && v) {
            if (!tool_parse_seconds(prog, a, v, 0, 60, 0, &run_time)) return 2;
            i++;
        } else if (!strcmp(a, "--runs") && v) {
            if (!tool_parse_int(prog, a, v, 1, 64, &runs)) return 2;
            i++;
        } else if (!strcmp(a, "-t") && v) {
            if (!tool_parse_int(prog, a, v, 1, 4096, &threads)) return 2;
            i++;
        } else if (!strcmp(a, "-C") && v) {
            long c[16];
            if ((nCl = tool_parse_int_list(prog, "-C", v, ",", 1, 1 << 16, c, 16)) < 0) return 2;
            for (int k = 0; k < nCl; k++) Cl[k] = (int32_t)c[k];
            i++;
        } else if (!strcmp(a, "--full")) {
            full = 1;
        } else if (!strcmp(a, "--no-rcm")) {
            rcm = 0;
        } else if (!strcmp(a, "--permuted")) {
            permuted = 1;
        } else if (!strcmp(a, "--machine") && v) {
            machine_path = v;
            i++;
        } else if (!strcmp(a, "--no-machine-run")) {
            machine_run = 0;
        } else if (!strcmp(a, "--db") && v) {
            db_opt = v;
            i++;
        } else if (!strcmp(a, "--no-record")) {
            record = 0;
        } else if (!strcmp(a, "--csv") && v) {
            csv = v;
            i++;
        } else if (!strcmp(a, "--json") && v) {
            json = v;
            i++;
        } else if (!strcmp(a, "--plot") && v) {
            plot = v;
            i++;
        } else if (!strcmp(a, "-q")) {
            quiet = 1;
        } else if (!strcmp(a, "--pmu")) {
            pmu = 1;
        } else {
            fprintf(stderr, "%s: unknown option or missing value: %s\n", prog, a);
            usage(stderr);
            return 2;
        }
    }
    spmv_status st0;
    /* the outputs, before the long search */
    if ((csv && tool_output_check(prog, "--csv", csv, 0)) || (json && tool_output_check(prog, "--json", json, 0)) ||
        (plot && tool_output_check(prog, "--plot", plot, 1)) ||
        (db_opt && record && tool_output_check(prog, "--db", db_opt, 0))) /* its folder must exist */
        return 1;
    /* the database, before the search: a file that does not read cannot take the choice */
    char db[4096] = "";
    if (record) {
        if (db_opt) snprintf(db, sizeof db, "%s", db_opt);
        else if (spmv_tune_db_path(db, sizeof db)) {
            fprintf(stderr, "%s: %s: the choice will not be recorded (give --db PATH)\n", prog, spmv_last_error());
            db[0] = '\0';
        }
        spmv_tune_record *recs = NULL;
        int32_t nrec = 0;
        if (db[0] && (st0 = spmv_tune_db_read(db, &recs, &nrec)) != SPMV_OK) {
            fprintf(stderr, "%s: the tuning database does not read: %s (%s)\n%s: fix or move it, give --db PATH, or "
                            "--no-record\n", prog, spmv_last_error(), spmv_strerror(st0), prog);
            return 1;
        }
        spmv_tune_db_free(recs);
    }
    const int rc0 = tool_start(prog, &threads);
    if (rc0) return rc0;

    /* this machine */
    spmv_tune_host host;
    spmv_status st = spmv_tune_host_get(&host);
    if (st) {
        tool_error(prog, st);
        return 1;
    }
    int32_t Cs[16], nC = 0;
    int fast = 0;
    if ((st = spmv_tune_chunk_heights(Cs, 16, &nC, &fast))) {
        tool_error(prog, st);
        return 1;
    }
    printf("spmv-tune %s: the fastest SELL-C-σ for this machine and matrix\n", spmv_version());
    char clist[128] = "";
    const int32_t *CC = nCl ? Cl : Cs;
    int32_t nCC = nCl ? nCl : nC;
    for (int32_t k = 0; k < nCC; k++)
        snprintf(clist + strlen(clist), sizeof clist - strlen(clist), "%s%d", k ? ", " : "", CC[k]);
    double load = 0;
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fscanf(lf, "%lf", &load) != 1) load = 0;
        fclose(lf);
    }
    printf("host         %s, %d cores, kernel family %s: ", host.cpu, host.cores, host.isa);
    if (nCl) printf("sweeping C = %s (-C)\n", clist);
    else if (fast) printf("fast kernels for C = %s\n", clist);
    else printf("no fast kernel family on this CPU; sweeping the reference kernel over C = %s\n", clist);
    if (load > 0.5 * host.cores)
        printf("warning      load average %.1f on %d cores: other processes compete for the cores, so timings "
               "(above all with several threads) will be noisy and low\n", load, host.cores);
    fflush(stdout);

    tune_machine *tm = calloc(1, sizeof *tm);
    if (!tm) return 1;
    /* the machine step is inside --max-time: spmv-machine --quick only when the bound leaves room for it */
    if (tune_machine_get(prog, machine_path, machine_run, max_time - (tool_now() - t_start), quiet, tm)) {
        free(tm);
        return 1;
    }
    /* the model at the clock of this run (the machine file's cycles at the file's clock would predict for another
     * state of a turbo-boosting or shared core): measured once here, on all the threads the search may use, and
     * taken for every point of the search (also those on fewer threads) */
    char clock_line[200];
    tune_machine_at_run_clock(tm, (int)threads, clock_line, sizeof clock_line);
    printf("machine      %s\n             model name '%s': b_S %.1f GB/s (read-only), %.1f GB/s (triad) in the file\n"
           "clock        %s\n", tm->source, tm->m.name, tm->m.bw_load, tm->m.bw_triad, clock_line);
    /* and at the memory's bandwidth now (a file measured in a busy phase of a shared host, or a host now busy) */
    char bw_line[400];
    tune_machine_at_run_bandwidth(tm, (int)threads, bw_line, sizeof bw_line);
    printf("membw        %s\n", bw_line);

    /* the matrix */
    char why[300] = "";
    if (!spec) {
        /* sized by the measured effective last-level cache (the machine file's, else a sweep now), not by CPUID */
        int swept = 0;
        double llc = tune_llc_effective(&tm->m, &swept), ram = tune_ram_bytes();
        /* the paper's HPCG 128^3, larger when 128^3 is not 4x the last-level caches, smaller when memory is short */
        static const int sizes[] = {128, 160, 192};
        int n = 192;
        for (int k = 0; k < 3; k++)
            if (hpcg_bytes(sizes[k]) >= 4 * llc) {
                n = sizes[k];
                break;
            }
        while (n > 32 && ram > 0 && 3.5 * hpcg_bytes(n) > 0.5 * ram) n -= 32; /* CRS + two SELL copies + vectors */
        snprintf(hpcgbuf, sizeof hpcgbuf, "hpcg:%d", n);
        spec = hpcgbuf;
        snprintf(why, sizeof why, "built-in, no matrix given: %.0f MB in CRS = %.0fx the %.0f MiB effective last-level "
                 "cache%s, so memory-bound", hpcg_bytes(n) * 1e-6, llc > 0 ? hpcg_bytes(n) / llc : 0, llc / 1048576,
                 swept ? " (measured just now)" : "");
    }
    spmv_crs *A = NULL;
    spmv_sell *S = NULL;
    const char *name0;
    double t = tool_now();
    if (tool_load(prog, spec, &A, &name0)) {
        free(tm);
        return 1;
    }
    char name[256];
    snprintf(name, sizeof name, "%s", name0);
    double t_load = tool_now() - t;
    spmv_tune_fingerprint fp;
    spmv_tune_fingerprint_get(A, &fp);
    printf("matrix       %s%s%s%s, %s in %.1f s\n             %d rows, %d cols, %lld nnz, N_nzr %.2f (min %d, max "
           "%d)\n", name, why[0] ? " (" : "", why, why[0] ? ")" : "", strncmp(spec, "hpcg:", 5) ? "read" : "generated",
           t_load, fp.rows, fp.cols, (long long)fp.nnz, fp.nzr_mean, fp.nzr_min, fp.nzr_max);
    int rc = 1;
    if (A->nnz < 1 || A->rows < 1 || A->cols < 1) { /* a valid matrix, as in spmv-bench: exit 0 */
        printf("nothing to tune: %s is empty (%d x %d, nnz %lld): no multiply to time, the model does not apply, "
               "nothing recorded\n", name, A->rows, A->cols, (long long)A->nnz);
        rc = 0;
        goto done;
    }


    /* the search */
    /* what is left of --max-time, less a second or two for the report (the CRS baseline and one SELL point are
     * measured whatever is left) */
    double budget = max_time - (tool_now() - t_start) - (max_time > 30 ? 3 : 1);
    if (budget < 0.5) budget = 0.5;
    spmv_tune_opts o = spmv_tune_opts_default();
    o.budget = budget;
    o.run_time = run_time;
    o.runs = (int32_t)runs;
    o.max_threads = (int32_t)threads;
    o.rcm = rcm;
    o.permuted = permuted;
    o.full = full;
    o.max_stored_factor = max_stored;
    o.C_list = nCl ? Cl : NULL;
    o.nC = nCl;
    o.machine = tm->have ? &tm->m : NULL;
    o.record = db[0] ? db : NULL;
    o.label = name;
    bar b = {!quiet && isatty(2), 0};
    o.progress = progress;
    o.ctx = &b;
    long teff = threads; /* spmv_tune: at most one thread per SPMV_MIN_WORK_PER_THREAD nonzeros */
    _Static_assert(SPMV_MIN_WORK_PER_THREAD == 2048, "the message below names SPMV_MIN_WORK_PER_THREAD");
    if (teff * SPMV_MIN_WORK_PER_THREAD > A->nnz)
        teff = A->nnz / SPMV_MIN_WORK_PER_THREAD > 1 ? (long)(A->nnz / SPMV_MIN_WORK_PER_THREAD) : 1;
    printf("search       %s, threads 1..%ld%s, %ld runs x %.2g s per point (median), budget %.0f s%s%s\n",
           full ? "full grid (C x σ x RCM, then threads)" : "staged (C at the model's σ, σ at the best C, RCM, threads)",
           teff, teff < threads ? " (one per 2048 nonzeros: SPMV_MIN_WORK_PER_THREAD)" : "", runs, run_time, budget, rcm && A->rows == A->cols ? "" : ", no RCM",
           permuted ? ", permuted order" : "");
    fflush(stdout);
    spmv_tune_result r;
    st = spmv_tune(A, &o, &r, &S);
    if (b.drawn) fprintf(stderr, "\r\033[K");
    if (st && !(r.npoints > 0 && r.best.state == SPMV_TUNE_MEASURED && S)) {
        tool_error(prog, st);
        spmv_tune_result_free(&r);
        goto done;
    }
    int rec_failed = 0;
    if (st) { /* recording failed; the result stands, the exit status says so */
        fprintf(stderr, "%s: the choice was not recorded: %s (%s)\n", prog, spmv_last_error(), spmv_strerror(st));
        rec_failed = 1;
    }
    tune_report rep;
    memset(&rep, 0, sizeof rep);
    rep.matrix = name;
    rep.A = A;
    rep.fp = fp;
    rep.host = host;
    rep.tm = tm;
    rep.r = &r;
    rep.S = S;
    rep.db = o.record;
    rep.permuted = permuted;
    tune_print_table(stdout, &rep);
    tune_print_recommendation(stdout, &rep);
    rc = rec_failed;
    if (csv) {
        if (tune_write_csv(prog, csv, &rep)) rc = 1;
        else printf("csv          %s\n", csv);
    }
    if (plot && tune_write_plots(prog, plot, &rep)) rc = 1;
    if (json) {
        if (tune_write_json(prog, json, &rep, tool_now() - t_start)) rc = 1;
        else printf("json         %s\n", json);
    }
    if (pmu && tool_pmu_tune(prog, A, S, &r, run_time)) rc = 1; /* after the outputs: repartitions A */
    printf("total        %.1f s\n", tool_now() - t_start);
    spmv_tune_result_free(&r);
done:
    spmv_sell_free(S);
    spmv_crs_free(A);
    free(tm);
    return rc;
}
