/* spmv-bench --suite (every matrix of a folder or list: CRS and the tuned SELL-C-sigma, one CSV, a summary table)
 * and spmv-bench --auto (the recorded choice for one matrix). See bench_suite.h. */
#define _POSIX_C_SOURCE 200809L
#include "bench_suite.h"
#include "toolutil.h"
#include "tune_machine.h"
#include "tune_report.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void bench_suite_usage(FILE *f)
{
    fprintf(f,
            "       spmv-bench --suite DIR|FILE... [--csv FILE] [-t N] [--time S] [--runs N] [--tune-time S]\n"
            "                  [--db PATH] [--no-record] [--machine FILE] [--no-machine-run] [--permuted]\n"
            "  --suite         every *.mtx of each folder (and each file given): CRS and the tuned SELL-C-sigma (the\n"
            "                  choice recorded by spmv-tune, else a spmv-tune search of --tune-time seconds, default 10,\n"
            "                  recorded; 0: the model defaults), one CSV (default spmv-suite.csv), a summary table;\n"
            "                  bad files are skipped with the reason\n"
            "  --auto          (one matrix) SELL with the choice recorded for this matrix on this machine, else the\n"
            "                  model defaults (C = 0, sigma = 0)\n");
}

/* ------------------------------------------------------------------------------------------- --auto */

int bench_auto_opts(const char *prog, const spmv_crs *A, spmv_sell_opts *o)
{
    spmv_tune_host h;
    spmv_tune_fingerprint fp;
    spmv_status st;
    if ((st = spmv_tune_host_get(&h)) || (st = spmv_tune_fingerprint_get(A, &fp))) {
        tool_error(prog, st);
        return 1;
    }
    char db[4096];
    int found = 0;
    spmv_tune_record rec;
    char why[4400] = "";
    if (spmv_tune_db_path(db, sizeof db) == SPMV_OK) {
        st = spmv_tune_db_find(db, &h, &fp, o->permuted, &rec, &found);
        if (st) {
            snprintf(why, sizeof why, "the database does not read: %s", spmv_last_error());
            found = 0;
        } else if (!found) {
            snprintf(why, sizeof why, "no recorded choice for this matrix on this machine in %s", db);
        }
    } else {
        snprintf(why, sizeof why, "%s", spmv_last_error());
    }
    if (found) {
        o->C = rec.C;
        o->sigma = rec.sigma;
        o->rcm = rec.rcm && A->rows == A->cols;
        o->nthreads = rec.nthreads;
        spmv_tune_record_variant(&rec, o);
        printf("auto     SELL-%d-%d, RCM %s, %d thread%s: recorded by spmv-tune%s%s (%.3g Gflop/s then%s; %s)\n", o->C,
               o->sigma, o->rcm ? "on" : "off", o->nthreads, o->nthreads == 1 ? "" : "s", rec.date[0] ? " on " : "",
               rec.date, rec.gflops, rec.permuted != (o->permuted != 0) ? ", measured in the other vector order" : "",
               db);
        return 0;
    }
    o->C = 0;
    o->sigma = 0;
    o->rcm = 0;
    spmv_tune_source src;
    if ((st = spmv_tune_auto_params(A, o, &src))) {
        tool_error(prog, st);
        return 1;
    }
    printf("auto     SELL-%d-%d: the model defaults (%s; run spmv-tune on this matrix to record a choice)\n", o->C,
           o->sigma, why);
    return 0;
}

/* ------------------------------------------------------------------------------------------- --suite */

typedef struct row {
    char name[128];
    char status[16];      /* ok | skipped */
    char note[300];
    spmv_tune_fingerprint fp;
    char source[16];      /* recorded | tuned | model */
    int32_t C, sigma, threads;
    int rcm;
    double crs_g, crs_gbs, sell_g, sell_gbs, beta, roofline, pct, ecm, ecm_err, speedup, conv, break_even;
    int noisy;            /* the runs of SELL or CRS differ by more than SPMV_TUNE_NOISY also when repeated */
} row;

typedef struct suite {
    const char *prog;
    double run_time;
    int runs;
    int32_t T;
    double tune_time;
    int permuted;
    const char *db;       /* database to look choices up in (NULL: none) */
    int record;           /* 1: record what spmv_tune finds in db */
    const spmv_machine *m;
} suite;

/* check against the reference loop, then the median seconds per multiply; < 0 on a failed check (note set) */
static int cmp_time(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double measure(const suite *s, const spmv_crs *A, const spmv_sell *S, double *x, double *xp, double *y,
                      double *yo, char *note, size_t nsize, int check_only)
{
    const int perm = S && S->permuted, sq = A->rows == A->cols;
    const double *xx = x;
    if (perm && sq) {
        spmv_sell_permute_vec(S, x, xp);
        xx = xp;
    }
    tool_mv(A, S, xx, y);
    const double *yy = y;
    if (perm) {
        spmv_sell_unpermute_vec(S, y, yo);
        yy = yo;
    }
    double err = tool_check(A, x, yy);
    if (!(err <= 1e-12)) {
        snprintf(note, nsize, "%s result check failed: max |y - y_ref| / (|A||x|) = %.3g", S ? "SELL" : "CRS", err);
        return -1;
    }
    if (check_only) return 0;
    return tool_time(A, S, xx, y, s->run_time, s->runs, NULL, NULL);
}

/* SELL and CRS checked, then timed alternately run by run (the same conditions for both: a disturbance hits both
 * alike); runs that differ by more than SPMV_TUNE_NOISY are timed once more (the steadier pair counts). Medians in
 * *ts, *tc, spreads (slowest / fastest) in *ss, *sc; -1 after a failed check (note set). */
static int measure_pair(const suite *s, const spmv_crs *A, const spmv_sell *S, double *x, double *xp, double *y,
                        double *yo, double *ts, double *tc, double *ss, double *sc, char *note, size_t nsize)
{
    if (measure(s, A, S, x, xp, y, yo, note, nsize, 1) < 0 || measure(s, A, NULL, x, xp, y, yo, note, nsize, 1) < 0)
        return -1;
    const double *xs = S->permuted && A->rows == A->cols ? xp : x; /* measure() left x permuted in xp */
    double a[64], b[64], a2[64], b2[64];
    const int runs = s->runs < 64 ? s->runs : 64;
    for (int pass = 0; pass < 2; pass++) {
        double *ta = pass ? a2 : a, *tb = pass ? b2 : b;
        for (int k = 0; k < runs; k++) {
            ta[k] = tool_time(A, S, xs, y, s->run_time, 1, NULL, NULL);
            tb[k] = tool_time(A, NULL, x, y, s->run_time, 1, NULL, NULL);
        }
        double lo[2] = {ta[0], tb[0]}, hi[2] = {ta[0], tb[0]};
        for (int k = 1; k < runs; k++) {
            if (ta[k] < lo[0]) lo[0] = ta[k];
            if (ta[k] > hi[0]) hi[0] = ta[k];
            if (tb[k] < lo[1]) lo[1] = tb[k];
            if (tb[k] > hi[1]) hi[1] = tb[k];
        }
        const double s0 = lo[0] > 0 ? hi[0] / lo[0] : 1, s1 = lo[1] > 0 ? hi[1] / lo[1] : 1;
        if (pass == 0 || (s0 > s1 ? s0 : s1) < (*ss > *sc ? *ss : *sc)) {
            *ss = s0, *sc = s1;
            qsort(ta, (size_t)runs, sizeof *ta, cmp_time);
            qsort(tb, (size_t)runs, sizeof *tb, cmp_time);
            *ts = runs % 2 ? ta[runs / 2] : 0.5 * (ta[runs / 2 - 1] + ta[runs / 2]);
            *tc = runs % 2 ? tb[runs / 2] : 0.5 * (tb[runs / 2 - 1] + tb[runs / 2]);
        }
        if (*ss <= SPMV_TUNE_NOISY && *sc <= SPMV_TUNE_NOISY) break;
    }
    return 0;
}

/* GB/s at the model's alpha (alpha_min without a machine), the roofline (a bound) and the ECM prediction */
static void model(const suite *s, const spmv_crs *A, const spmv_sell *S, int32_t n, double t, double *gbs,
                  double *roofline, double *ecm)
{
    double amin = (double)A->cols / (double)A->nnz, alpha = amin;
    *roofline = *ecm = 0;
    if (s->m) {
        spmv_model_opts mo = spmv_model_opts_default(); /* alpha simulated, sampled in bounded time */
        spmv_model md;
        if ((S ? spmv_model_sell(S, NULL, s->m, n, &mo, &md) : spmv_model_crs(A, NULL, s->m, n, &mo, &md)) ==
            SPMV_OK) {
            alpha = md.alpha.alpha;
            *roofline = md.roofline;
            *ecm = md.predicted;
        }
    }
    spmv_traffic tr;
    if (S) spmv_sell_traffic(S, &tr);
    else spmv_crs_traffic(A, &tr);
    double bytes = spmv_traffic_bytes(&tr, S ? S->stored : A->nnz, A->nnz, A->rows, S ? S->nchunks : 0, alpha);
    *gbs = t > 0 ? bytes / t * 1e-9 : 0;
}

static void run_one(const suite *s, const char *path, row *w)
{
    const char *base = strrchr(path, '/');
    snprintf(w->name, sizeof w->name, "%s", base ? base + 1 : path);
    snprintf(w->status, sizeof w->status, "skipped");
    spmv_crs *A = NULL;
    spmv_sell *S = NULL;
    double *x = NULL, *xp = NULL, *y = NULL, *yo = NULL;
    spmv_tune_result r;
    memset(&r, 0, sizeof r);
    spmv_status st = spmv_crs_read_mm(path, &A);
    if (st) {
        snprintf(w->note, sizeof w->note, "%s (%s)", spmv_last_error(), spmv_strerror(st));
        goto out;
    }
    spmv_tune_fingerprint_get(A, &w->fp);
    if (A->rows < 1 || A->cols < 1 || A->nnz < 1) {
        snprintf(w->note, sizeof w->note, "empty matrix (%d x %d, nnz %lld)", A->rows, A->cols, (long long)A->nnz);
        goto out;
    }
    int32_t nv = A->rows > A->cols ? A->rows : A->cols;
    if ((st = spmv_vec_alloc(A->cols, &x)) || (st = spmv_vec_alloc(nv, &xp)) || (st = spmv_vec_alloc(A->rows, &y)) ||
        (st = spmv_vec_alloc(A->rows, &yo))) {
        snprintf(w->note, sizeof w->note, "%s", spmv_last_error());
        goto out;
    }
    for (int32_t j = 0; j < A->cols; j++) x[j] = 1.0 + (j % 7) / 7.0;

    spmv_tune_host h;
    spmv_tune_record rec;
    int found = 0;
    if (s->db && spmv_tune_host_get(&h) == SPMV_OK)
        if (spmv_tune_db_find(s->db, &h, &w->fp, s->permuted, &rec, &found) != SPMV_OK) found = 0;
    spmv_sell_opts o = spmv_sell_opts_default();
    o.permuted = s->permuted;
    double tsell = 0, tcrs = 0, ss = 1, sc = 1;
    if (found || s->tune_time <= 0) {
        if (found) {
            o.C = rec.C, o.sigma = rec.sigma, o.rcm = rec.rcm && A->rows == A->cols, o.nthreads = rec.nthreads;
            spmv_tune_record_variant(&rec, &o);
            snprintf(w->source, sizeof w->source, "recorded");
        } else {
            o.C = 0, o.sigma = 0, o.nthreads = 0; /* the library's partition: at most one thread per 2048 nnz */
            spmv_tune_auto_params(A, &o, NULL);
            snprintf(w->source, sizeof w->source, "model");
        }
        double t = tool_now();
        if ((st = spmv_sell_from_crs(A, &o, &S))) {
            snprintf(w->note, sizeof w->note, "conversion: %s", spmv_last_error());
            goto out;
        }
        w->conv = tool_now() - t;
        spmv_crs_set_threads(A, S->nparts); /* CRS at the same thread count, timed alternately with SELL */
        if (measure_pair(s, A, S, x, xp, y, yo, &tsell, &tcrs, &ss, &sc, w->note, sizeof w->note)) goto out;
    } else {
        spmv_tune_opts to = spmv_tune_opts_default();
        to.budget = s->tune_time;
        to.run_time = s->run_time;
        to.runs = s->runs;
        to.max_threads = s->T;
        to.permuted = s->permuted;
        to.machine = s->m;
        to.record = s->record ? s->db : NULL;
        to.label = w->name;
        st = spmv_tune(A, &to, &r, &S);
        if (!S) {
            snprintf(w->note, sizeof w->note, "tuning: %s", spmv_last_error());
            goto out;
        }
        if (st) snprintf(w->note, sizeof w->note, "not recorded: %s", spmv_last_error());
        else if (to.record && !r.recorded)
            snprintf(w->note, sizeof w->note, "not recorded: CRS is faster on this machine");
        snprintf(w->source, sizeof w->source, "tuned");
        o = r.opts;
        w->conv = r.best.t_convert;
        if (r.crs.state == SPMV_TUNE_MEASURED && r.crs.nthreads == S->nparts) { /* the final comparison */
            tsell = r.best.t_spmv, tcrs = r.crs.t_spmv, ss = r.best.spread, sc = r.crs.spread;
        } else { /* no CRS at the choice's thread count: both now, alternately */
            spmv_crs_set_threads(A, S->nparts);
            if (measure_pair(s, A, S, x, xp, y, yo, &tsell, &tcrs, &ss, &sc, w->note, sizeof w->note)) goto out;
        }
    }
    if (ss > SPMV_TUNE_NOISY || sc > SPMV_TUNE_NOISY) { /* never a speed-up from a disturbed point without saying so */
        char old[sizeof w->note];
        snprintf(old, sizeof old, "%s", w->note);
        snprintf(w->note, sizeof w->note, "NOISY: runs differ %.1fx (SELL), %.1fx (CRS) also when repeated, the "
                 "speed-up is not reliable%s%.150s", ss, sc, old[0] ? "; " : "", old);
        w->noisy = 1;
    }
    w->C = S->C, w->sigma = S->sigma, w->rcm = o.rcm, w->threads = S->nparts;
    w->beta = spmv_sell_beta(S);
    w->sell_g = 2.0 * (double)A->nnz / tsell * 1e-9;
    w->crs_g = 2.0 * (double)A->nnz / tcrs * 1e-9;
    double roof_crs, ecm_crs;
    model(s, A, S, S->nparts, tsell, &w->sell_gbs, &w->roofline, &w->ecm);
    model(s, A, NULL, S->nparts, tcrs, &w->crs_gbs, &roof_crs, &ecm_crs);
    w->pct = w->roofline > 0 ? 100 * w->sell_g / w->roofline : 0;
    w->ecm_err = w->ecm > 0 ? 100 * (w->ecm - w->sell_g) / w->sell_g : 0;
    w->speedup = tcrs / tsell;
    w->break_even = spmv_tune_break_even(w->conv, tcrs, tsell);
    snprintf(w->status, sizeof w->status, "ok");
out:
    spmv_vec_free(x);
    spmv_vec_free(xp);
    spmv_vec_free(y);
    spmv_vec_free(yo);
    spmv_tune_result_free(&r);
    spmv_sell_free(S);
    spmv_crs_free(A);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the *.mtx files of dir, sorted; appended to *list */
static int list_dir(const char *dir, char ***list, int *n, int *cap)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    int first = *n;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".mtx")) continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) || !S_ISREG(sb.st_mode)) continue;
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            char **nl = realloc(*list, (size_t)*cap * sizeof *nl);
            if (!nl) break;
            *list = nl;
        }
        (*list)[(*n)++] = strdup(p);
    }
    closedir(d);
    qsort(*list + first, (size_t)(*n - first), sizeof **list, cmp_str);
    return 0;
}

int bench_suite_main(const char *prog, int argc, char **argv)
{
    const char *csv = "spmv-suite.csv", *db_opt = NULL, *machine_path = NULL;
    double run_time = 0.1, tune_time = 10;
    long runs = 5, threads = 0;
    int record = 1, permuted = 0, machine_run = 1;
    char **files = NULL;
    int nf = 0, capf = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv") && v) {
            csv = v;
            i++;
        } else if (!strcmp(a, "--time") && v) {
            if (!tool_parse_seconds(prog, a, v, 0, 3600, 0, &run_time)) return 2;
            i++;
        } else if (!strcmp(a, "--tune-time") && v) {
            if (!tool_parse_seconds(prog, a, v, 0, 3600, 1, &tune_time)) return 2;
            i++;
        } else if (!strcmp(a, "--runs") && v) {
            if (!tool_parse_int(prog, a, v, 1, 64, &runs)) return 2;
            i++;
        } else if (!strcmp(a, "-t") && v) {
            if (!tool_parse_int(prog, a, v, 1, 4096, &threads)) return 2;
            i++;
        } else if (!strcmp(a, "--db") && v) {
            db_opt = v;
            i++;
        } else if (!strcmp(a, "--no-record")) {
            record = 0;
        } else if (!strcmp(a, "--machine") && v) {
            machine_path = v;
            i++;
        } else if (!strcmp(a, "--no-machine-run")) {
            machine_run = 0;
        } else if (!strcmp(a, "--permuted")) {
            permuted = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "%s: --suite: unknown option or missing value: %s\n", prog, a);
            bench_suite_usage(stderr);
            return 2;
        } else {
            struct stat sb;
            if (!stat(a, &sb) && S_ISDIR(sb.st_mode)) {
                if (list_dir(a, &files, &nf, &capf)) {
                    fprintf(stderr, "%s: --suite: cannot read the folder %s: %s\n", prog, a, strerror(errno));
                    return 2;
                }
            } else {
                if (nf == capf) {
                    capf = capf ? 2 * capf : 64;
                    char **nl = realloc(files, (size_t)capf * sizeof *nl);
                    if (!nl) return 1;
                    files = nl;
                }
                files[nf++] = strdup(a); /* a missing file is reported as skipped */
            }
        }
    }
    if (!nf) {
        fprintf(stderr, "%s: --suite: no matrices (give a folder of .mtx files or files)\n", prog);
        bench_suite_usage(stderr);
        free(files);
        return 2;
    }
    if (tool_output_check(prog, "--csv", csv, 0) ||
        (db_opt && record && tune_time > 0 && tool_output_check(prog, "--db", db_opt, 0))) {
        for (int i = 0; i < nf; i++) free(files[i]);
        free(files);
        return 1;
    }
    /* the database, before the runs: choices are looked up and recorded there */
    char db[4096] = "";
    if (db_opt) snprintf(db, sizeof db, "%s", db_opt);
    else if (spmv_tune_db_path(db, sizeof db)) db[0] = '\0';
    if (db[0]) {
        spmv_tune_record *recs = NULL;
        int32_t nrec = 0;
        spmv_status st = spmv_tune_db_read(db, &recs, &nrec);
        if (st) {
            fprintf(stderr, "%s: the tuning database does not read: %s (%s)\n%s: fix or move it, or give --db PATH\n",
                    prog, spmv_last_error(), spmv_strerror(st), prog);
            for (int i = 0; i < nf; i++) free(files[i]);
            free(files);
            return 1;
        }
        spmv_tune_db_free(recs);
    }
    const int rc0 = tool_start(prog, &threads);
    if (rc0) return rc0;
    tune_machine *tm = calloc(1, sizeof *tm);
    if (!tm || tune_machine_get(prog, machine_path, machine_run, 0, 0, tm)) {
        free(tm);
        return 1;
    }
    char clock_line[200]; /* the model at the clock of the run, measured once (as spmv-tune does) */
    tune_machine_at_run_clock(tm, (int)threads, clock_line, sizeof clock_line);
    char bw_line[400]; /* and at the memory's read bandwidth now */
    tune_machine_at_run_bandwidth(tm, (int)threads, bw_line, sizeof bw_line);
    suite s = {prog, run_time, (int)runs, (int32_t)threads, tune_time, permuted, db[0] ? db : NULL, record,
               tm->have ? &tm->m : NULL};
    char how[96];
    if (tune_time > 0) snprintf(how, sizeof how, "spmv-tune for %g s, %s", tune_time, record ? "recorded" : "not recorded");
    else snprintf(how, sizeof how, "the model defaults");
    printf("suite        %d matri%s, CRS and SELL-C-σ (the recorded choice, else %s), %ld threads at most\n"
           "machine      %s\nclock        %s\nmembw        %s\n", nf, nf == 1 ? "x" : "ces", how, threads, tm->source,
           clock_line, bw_line);
    tool_outfile out; /* a temporary file, renamed over the CSV when all is written */
    if (tool_out_begin(prog, "--csv", csv, &out)) {
        free(tm);
        return 1;
    }
    FILE *f = out.f;
    fprintf(f, "matrix,status,rows,cols,nnz,source,C,sigma,rcm,threads,crs_gflops,crs_gbs,sell_gflops,sell_gbs,beta,"
               "roofline_gflops,pct_of_roofline,ecm_gflops,ecm_error_pct,speedup,conversion_s,break_even_spmvs,note\n");
    row *rows = calloc((size_t)nf, sizeof *rows);
    int ok = 0, bad = 0, noisy = 0;
    double t0 = tool_now();
    for (int i = 0; i < nf && rows; i++) {
        row *w = &rows[i];
        fprintf(stderr, "%s: [%d/%d] %s ...\n", prog, i + 1, nf, files[i]);
        run_one(&s, files[i], w);
        if (strcmp(w->status, "ok")) fprintf(stderr, "%s: skip %s: %s\n", prog, files[i], w->note);
        else ok++;
        fprintf(f, "\"%s\",%s,%d,%d,%lld,%s,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%.6g,%.4g,%.6g,%.6g,", w->name,
                w->status, w->fp.rows, w->fp.cols, (long long)w->fp.nnz, w->source, w->C, w->sigma, w->rcm, w->threads,
                w->crs_g, w->crs_gbs, w->sell_g, w->sell_gbs, w->beta, w->roofline, w->pct, w->ecm, w->ecm_err,
                w->speedup, w->conv);
        if (isfinite(w->break_even)) fprintf(f, "%.0f,", w->break_even);
        else fprintf(f, "never,");
        fputc('"', f);
        for (const char *p = w->note; *p; p++) fprintf(f, *p == '"' ? "\"\"" : "%c", *p);
        fputs("\"\n", f);
        if (!bad && (fflush(f) || ferror(f))) {
            bad = 1;
            fprintf(stderr, "%s: --csv: write error on %s: %s (the run goes on; the CSV will not be written)\n", prog,
                    csv, strerror(out.err ? out.err : EIO));
        }
    }
    if (bad) tool_out_abort(&out);
    else bad = tool_out_end(prog, "--csv", &out);
    printf("\n%-30s %9s %10s %8s  %-22s %8s %7s %8s %7s %7s %7s %8s %8s  %s\n", "matrix", "rows", "nnz", "source",
           "SELL (C-σ RCM thr)", "CRS GF/s", "GB/s", "SELL GF/s", "GB/s", "beta", "% roof", "ECM err", "speed-up",
           "note");
    for (int i = 0; i < nf && rows; i++) {
        const row *w = &rows[i];
        if (strcmp(w->status, "ok")) {
            printf("%-30.30s %9s %10s %8s  skipped: %s\n", w->name, "-", "-", "-", w->note);
            continue;
        }
        char cfg[64], pct[16], err[16];
        snprintf(cfg, sizeof cfg, "%d-%d %s %d", w->C, w->sigma, w->rcm ? "on" : "off", w->threads);
        if (w->pct > 0) snprintf(pct, sizeof pct, "%.0f %%", w->pct);
        else snprintf(pct, sizeof pct, "-");
        if (w->ecm > 0) snprintf(err, sizeof err, "%+.0f %%", w->ecm_err);
        else snprintf(err, sizeof err, "-");
        printf("%-30.30s %9d %10lld %8s  %-22s %8.3f %7.2f %8.3f %7.2f %7.4f %7s %8s %7.2fx%s %s\n", w->name,
               w->fp.rows, (long long)w->fp.nnz, w->source, cfg, w->crs_g, w->crs_gbs, w->sell_g, w->sell_gbs, w->beta,
               pct, err, w->speedup, w->noisy ? "!" : " ", w->note);
        noisy += w->noisy;
    }
    if (noisy)
        printf("WARNING: %d speed-up%s marked '!' come%s from runs that differ by more than %.0fx also when repeated "
               "(a disturbed machine): not reliable, run again on a quiet machine\n", noisy, noisy == 1 ? "" : "s",
               noisy == 1 ? "s" : "", SPMV_TUNE_NOISY);
    printf("(speed-up: SELL over CRS at the same thread count, timed alternately; "
           "%% roof: SELL Gflop/s over the model's roofline, a bound; ECM err: (ECM prediction - measured) / "
           "measured%s; GB/s: declared traffic at the model's "
           "alpha)\n%d of %d matrices ran, %d skipped, %.1f s; csv %s\n",
           tm->have ? (tm->estimated ? " of an ESTIMATED machine" : "") : ": no machine", ok, nf, nf - ok,
           tool_now() - t0, bad ? "NOT WRITTEN (write error)" : csv);
    for (int i = 0; i < nf; i++) free(files[i]);
    free(files);
    free(rows);
    free(tm);
    return bad ? 1 : ok > 0 ? 0 : 1;
}
