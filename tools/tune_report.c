/* spmv-tune output: table, recommendation, CSV, JSON, gnuplot plots. */
#define _POSIX_C_SOURCE 200809L
#include "tune_report.h"
#include "toolutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

const char *tune_point_name(const spmv_tune_point *p, char *buf, size_t size)
{
    if (p->is_crs) snprintf(buf, size, "CRS");
    else snprintf(buf, size, "SELL-%d-%d", p->C, p->sigma);
    return buf;
}

const char *tune_point_variant(const spmv_tune_point *p, char *buf, size_t size)
{
    const char *part[4] = {p->runs > 0 ? "runs" : NULL, p->idx16 ? "i16" : NULL, p->vidx ? "vi" : NULL,
                           p->nt ? "nt" : NULL};
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < 4 && !p->is_crs; i++)
        if (part[i] && len < size) len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", part[i]);
    if (!buf[0]) snprintf(buf, size, "-");
    return buf;
}

const char *tune_stage_name(int32_t stage)
{
    static const char *const n[] = {"baseline", "C", "sigma", "RCM", "threads", "grid", "final", "again", "variant"};
    return stage >= 0 && stage <= 8 ? n[stage] : "?";
}

static const char *state_name(spmv_tune_state s)
{
    switch (s) {
    case SPMV_TUNE_MEASURED: return "measured";
    case SPMV_TUNE_PRUNED: return "pruned";
    case SPMV_TUNE_FAILED: return "failed";
    case SPMV_TUNE_SKIPPED: return "skipped";
    case SPMV_TUNE_RUNNING: return "running";
    }
    return "?";
}

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
    if (v > 0 && isfinite(v)) snprintf(buf, n, fmt, v);
    else snprintf(buf, n, "-");
}

void tune_print_table(FILE *f, const tune_report *t)
{
    const spmv_tune_result *r = t->r;
    const int model = t->tm && t->tm->have;
    fprintf(f, "\n%3s  %-8s  %-16s %3s %3s %8s %11s %7s  %-22s %-14s %8s %7s %8s %6s %7s %7s   %s\n", "#", "stage",
            "configuration", "RCM", "thr", "conv s", "stored", "beta", "kernel", "variant", "Gflop/s", "GB/s",
            "roofline", "% roof", "ECM", "ECM err", "note");
    for (int32_t i = 0; i < r->npoints; i++) {
        const spmv_tune_point *p = &r->points[i];
        /* three or more points in a row skipped for the same reason: the first, then one line for the rest */
        int32_t same = 0;
        while (p->state == SPMV_TUNE_SKIPPED && !p->is_crs && i + same + 1 < r->npoints &&
               r->points[i + same + 1].state == p->state && r->points[i + same + 1].stage == p->stage &&
               !r->points[i + same + 1].is_crs && r->points[i + same + 1].C == p->C &&
               r->points[i + same + 1].rcm == p->rcm && r->points[i + same + 1].nthreads == p->nthreads &&
               !strcmp(r->points[i + same + 1].note, p->note))
            same++;
        if (same >= 2) {
            char list[400] = "";
            for (int32_t k = 0; k <= same; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", k ? ", " : "", r->points[i + k].sigma);
            fprintf(f, "%3d-%-3d %-8s SELL-%d-σ for σ = %s, RCM %s, %d thr: skipped: %s\n", i + 1, i + same + 1,
                    tune_stage_name(p->stage), p->C, list, p->rcm ? "on" : "off", p->nthreads, p->note);
            i += same;
            continue;
        }
        char name[48], conv[24], stored[24], beta[24], gf[24], gb[24], rf[24], ec[24], pc[24], ee[24], var[24];
        tune_point_name(p, name, sizeof name);
        tune_point_variant(p, var, sizeof var);
        fmt_num(conv, sizeof conv, p->t_convert, p->t_convert >= 0.001 ? "%.3f" : "%.1e");
        if (p->stored > 0) snprintf(stored, sizeof stored, "%lld", (long long)p->stored);
        else snprintf(stored, sizeof stored, "-");
        fmt_num(beta, sizeof beta, p->stored > 0 ? p->beta : 0, "%.4f");
        const int meas = p->state == SPMV_TUNE_MEASURED;
        fmt_num(gf, sizeof gf, meas ? p->gflops : 0, "%.3f");
        fmt_num(gb, sizeof gb, meas ? p->gbs : 0, "%.2f");
        fmt_num(rf, sizeof rf, meas ? p->roofline : 0, "%.3f");
        fmt_num(ec, sizeof ec, meas ? p->ecm : 0, "%.3f");
        if (meas && p->pct > 0) snprintf(pc, sizeof pc, "%.0f %%", p->pct);
        else snprintf(pc, sizeof pc, "-");
        if (meas && p->ecm > 0) snprintf(ee, sizeof ee, "%+.0f %%", p->ecm_err);
        else snprintf(ee, sizeof ee, "-");
        char note[200];
        if (p->state == SPMV_TUNE_MEASURED) snprintf(note, sizeof note, "%s", p->note);
        else snprintf(note, sizeof note, "%s: %s", state_name(p->state), p->note);
        int best = !p->is_crs && meas && p->C == r->best.C && p->sigma == r->best.sigma && p->rcm == r->best.rcm &&
                   p->nthreads == r->best.nthreads && p->stage == r->best.stage;
        fprintf(f, "%3d%s %-8s  %-16s %3s %3d %8s %11s %7s  %-22s %-14s %8s %7s %8s %6s %7s %7s   %s\n", i + 1,
                best ? "*" : " ", tune_stage_name(p->stage), name, p->is_crs ? "-" : p->rcm ? "on" : "off",
                p->nthreads, conv, stored, beta, meas ? p->kernel : "-", var, gf, gb, rf, pc, ec, ee, note);
    }
    fprintf(f, "(* the choice; 'again': a point far below the best timed once more (the better time counts); 'variant': the best point with run columns, value indices, 16-bit indices or non-temporal y stores flipped or the other x access (column 'variant': runs = run columns, i16 = 16-bit indices, vi = value indices, nt = non-temporal y stores), timed alternately with the best point; 'final': "
               "the choice and CRS at the same thread count timed alternately for the speed-up; 'noisy': runs that "
               "differ by more than %.0fx also when repeated. Gflop/s: median of the timed runs after a result check "
               "against a reference loop; ", SPMV_TUNE_NOISY);
    fprintf(f, "GB/s: the kernel's declared traffic at the model's alpha;\n roofline: a bound (the bandwidth of the "
               "levels the data come from over the code balance), %% roof = measured / roofline; ECM: the prediction, "
               "ECM err = (ECM - measured) / measured%s)\n",
            model ? (t->tm->estimated ? "; model from an ESTIMATED machine" : "") : "; no machine: no model");
}

int tune_sell_wins(const spmv_tune_result *r)
{
    return r->crs.state != SPMV_TUNE_MEASURED || (r->best.t_spmv > 0 && r->best.t_spmv < r->crs.t_spmv);
}

void tune_print_recommendation(FILE *f, const tune_report *t)
{
    const spmv_tune_result *r = t->r;
    const spmv_tune_point *b = &r->best, *c = &r->crs;
    const int sell = tune_sell_wins(r);
    fprintf(f, "\nRecommendation for %s on %s (%s kernels, %d cores):\n", t->matrix, t->host.cpu, t->host.isa,
            t->host.cores);
    if (sell)
        fprintf(f, "  choice       SELL-C-σ with C = %d, σ = %d, RCM %s, %d thread%s (kernel %s; run columns %s, "
                   "16-bit indices %s, value indices %s, non-temporal y stores %s%s)\n", r->opts.C,
                r->opts.sigma, r->opts.rcm ? "on" : "off", r->opts.nthreads, r->opts.nthreads == 1 ? "" : "s",
                b->kernel, b->runs > 0 ? "on" : "off", b->idx16 ? "on" : "off", b->vidx ? "on" : "off",
                b->nt ? "on" : "off",
                t->permuted ? "; x and y in the permuted order" : "");
    else
        fprintf(f, "  choice       CRS with %d thread%s (kernel %s): the best SELL-C-σ (C = %d, σ = %d, RCM %s, %.3f "
                   "Gflop/s) is slower at the same thread count, timed alternately\n", c->nthreads,
                c->nthreads == 1 ? "" : "s", c->kernel, r->opts.C, r->opts.sigma, r->opts.rcm ? "on" : "off",
                b->gflops);
    const spmv_tune_point *w = sell ? b : c;
    if (w->roofline > 0)
        fprintf(f, "  performance  %.3f Gflop/s = %.0f %% of the roofline %.3f Gflop/s (a bound); ECM prediction %.3f "
                   "Gflop/s, error %+.0f %% (alpha %.4g%s)\n",
                w->gflops, w->pct, w->roofline, w->ecm, w->ecm_err, w->alpha,
                t->tm && t->tm->estimated ? "; ESTIMATED machine" : "");
    else
        fprintf(f, "  performance  %.3f Gflop/s (no machine model)\n", w->gflops);
    if (c->state == SPMV_TUNE_MEASURED) {
        fprintf(f, "  speed-up     %.2fx of SELL-C-σ over CRS (%.3f Gflop/s), both with %d thread%s, timed "
                   "alternately\n", r->speedup, c->gflops, c->nthreads, c->nthreads == 1 ? "" : "s");
        if (b->spread > SPMV_TUNE_NOISY || c->spread > SPMV_TUNE_NOISY)
            fprintf(f, "  WARNING      the timed runs differ by up to %.1fx (SELL) and %.1fx (CRS) also when repeated: "
                       "the machine was disturbed, the speed-up is not reliable; run again on a quiet machine\n",
                    b->spread, c->spread);
        if (isfinite(r->break_even))
            fprintf(f, "  break-even   conversion %.3g s / (t_CRS %.4g ms - t_SELL %.4g ms per SpMV) = %.0f SpMV%s\n",
                    b->t_convert, c->t_spmv * 1e3, b->t_spmv * 1e3, r->break_even, r->break_even == 1 ? "" : "s");
        else
            fprintf(f, "  break-even   never: SELL-C-σ (%.4g ms per SpMV) is not faster than CRS with %d thread%s "
                       "(%.4g ms) here; keep CRS for this matrix\n", b->t_spmv * 1e3, c->nthreads,
                    c->nthreads == 1 ? "" : "s", c->t_spmv * 1e3);
    }
    if (t->db && r->recorded)
        fprintf(f, "  recorded in  %s\n               (spmv_sell_from_crs with C = 0 / sigma = 0 and spmv-bench --auto "
                   "use it for this matrix on this machine)\n", t->db);
    else if (t->db && !sell)
        fprintf(f, "  not recorded: CRS is faster on this machine (nothing stored in %s)\n", t->db);
    else if (t->db)
        fprintf(f, "  NOT recorded in %s (see the message above)\n", t->db);
    int pruned = 0, budget = 0, rcm = 0, failed = 0;
    for (int32_t i = 0; i < r->npoints; i++) {
        const spmv_tune_point *p = &r->points[i];
        pruned += p->state == SPMV_TUNE_PRUNED;
        budget += p->state == SPMV_TUNE_SKIPPED && !strncmp(p->note, "time budget", 11);
        rcm += p->state == SPMV_TUNE_SKIPPED && strncmp(p->note, "time budget", 11);
        failed += p->state == SPMV_TUNE_FAILED;
    }
    /* only the kinds that happened ("0 RCM windows not tried" when RCM never ran says nothing) */
    char parts[400];
    int n = snprintf(parts, sizeof parts, "%d measured", r->npoints - pruned - budget - rcm - failed);
    if (pruned) n += snprintf(parts + n, sizeof parts - (size_t)n, ", %d pruned by the model", pruned);
    if (budget) n += snprintf(parts + n, sizeof parts - (size_t)n, ", %d skipped for the time budget", budget);
    if (rcm)
        n += snprintf(parts + n, sizeof parts - (size_t)n, ", %d RCM window%s not tried (RCM lost at two)", rcm,
                      rcm == 1 ? "" : "s");
    if (failed) snprintf(parts + n, sizeof parts - (size_t)n, ", %d failed", failed);
    fprintf(f, "  search       %d points in %.1f s: %s\n", r->npoints, r->elapsed, parts);
}

/* ------------------------------------------------------------------------------------------- CSV, JSON */

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int tune_write_csv(const char *prog, const char *path, const tune_report *t)
{
    tool_outfile o;
    if (tool_out_begin(prog, "--csv", path, &o)) return 1;
    FILE *f = o.f;
    fprintf(f, "matrix,stage,format,C,sigma,rcm,threads,state,kernel,stored,beta,conversion_s,time_s,gflops,gbs,"
               "check_err,alpha,roofline_gflops,pct_of_roofline,ecm_gflops,ecm_error_pct,bound_gflops,chosen,"
               "run_columns,idx16,vidx,nt_stores,note\n");
    const spmv_tune_result *r = t->r;
    for (int32_t i = 0; i < r->npoints; i++) {
        const spmv_tune_point *p = &r->points[i];
        int chosen = !p->is_crs && p->state == SPMV_TUNE_MEASURED && p->C == r->best.C &&
                     p->sigma == r->best.sigma && p->rcm == r->best.rcm && p->nthreads == r->best.nthreads &&
                     p->stage == r->best.stage;
        csv_field(f, t->matrix);
        fprintf(f, ",%s,%s,%d,%d,%d,%d,%s,", tune_stage_name(p->stage), p->is_crs ? "crs" : "sell",
                p->is_crs ? 0 : p->C, p->is_crs ? 0 : p->sigma, p->rcm, p->nthreads, state_name(p->state));
        csv_field(f, p->kernel);
        fprintf(f, ",%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g,%.6g,%.6g,%.6g,%.6g,%.4g,%.6g,%d,", (long long)p->stored,
                p->beta, p->t_convert, p->t_spmv, p->gflops, p->gbs, p->err, p->alpha, p->roofline, p->pct, p->ecm,
                p->ecm_err, p->bound, chosen);
        fprintf(f, "%d,%d,%d,%d,", !p->is_crs && p->runs > 0, p->idx16, p->vidx, !p->is_crs && p->nt);
        csv_field(f, p->note);
        fputc('\n', f);
    }
    return tool_out_end(prog, "--csv", &o);
}

void tune_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p < 32) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.6g", v);
    else fputs("null", f);
}

static void json_point(FILE *f, const spmv_tune_point *p)
{
    fprintf(f, "{\"stage\": \"%s\", \"format\": \"%s\", \"C\": %d, \"sigma\": %d, \"rcm\": %s, \"threads\": %d, "
               "\"state\": \"%s\", \"kernel\": ", tune_stage_name(p->stage), p->is_crs ? "crs" : "sell",
            p->is_crs ? 0 : p->C, p->is_crs ? 0 : p->sigma, p->rcm ? "true" : "false", p->nthreads,
            state_name(p->state));
    tune_json_string(f, p->kernel);
    fprintf(f, ", \"stored\": %lld, \"beta\": ", (long long)p->stored);
    json_num(f, p->beta);
    const char *k[] = {"conversion_s", "time_s", "gflops", "gbs", "check_err", "alpha", "roofline_gflops",
                       "pct_of_roofline", "ecm_gflops", "ecm_error_pct", "bound_gflops"};
    const double v[] = {p->t_convert, p->t_spmv, p->gflops, p->gbs, p->err, p->alpha, p->roofline, p->pct, p->ecm,
                        p->ecm_err, p->bound};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        fprintf(f, ", \"%s\": ", k[i]);
        json_num(f, v[i]);
    }
    fprintf(f, ", \"run_columns\": %s, \"idx16\": %s, \"vidx\": %s, \"nt_stores\": %s",
            !p->is_crs && p->runs > 0 ? "true" : "false", p->idx16 ? "true" : "false", p->vidx ? "true" : "false",
            !p->is_crs && p->nt ? "true" : "false");
    fputs(", \"note\": ", f);
    tune_json_string(f, p->note);
    fputc('}', f);
}

int tune_write_json(const char *prog, const char *path, const tune_report *t, double total_s)
{
    tool_outfile o;
    if (tool_out_begin(prog, "--json", path, &o)) return 1;
    FILE *f = o.f;
    const spmv_tune_result *r = t->r;
    fprintf(f, "{\n  \"tool\": \"spmv-tune\",\n  \"version\": \"%s\",\n  \"matrix\": {\"name\": ", spmv_version());
    tune_json_string(f, t->matrix);
    fprintf(f, ", \"rows\": %d, \"cols\": %d, \"nnz\": %lld, \"nzr_min\": %d, \"nzr_mean\": %.17g, \"nzr_max\": %d},\n",
            t->fp.rows, t->fp.cols, (long long)t->fp.nnz, t->fp.nzr_min, t->fp.nzr_mean, t->fp.nzr_max);
    fputs("  \"host\": {\"cpu\": ", f);
    tune_json_string(f, t->host.cpu);
    fprintf(f, ", \"isa\": \"%s\", \"cores\": %d, \"fast_kernels\": %s},\n", t->host.isa, t->host.cores,
            r->fast ? "true" : "false");
    fputs("  \"machine\": ", f);
    if (t->tm && t->tm->have) {
        fputs("{\"name\": ", f);
        tune_json_string(f, t->tm->m.name);
        fputs(", \"source\": ", f);
        tune_json_string(f, t->tm->source);
        /* clock_ghz: the clock the model took (the run's, measured; else the file's); clock_file_ghz: the file's or
         * the estimate's own; bw_*_gbs: the bandwidths the model took (scaled to the read stream measured before the
         * search, bw_read_now_gbs, 0 when not measured); bw_load_file_gbs: the file's read bandwidth */
        fprintf(f, ", \"estimated\": %s, \"clock_ghz\": %.6g, \"clock_file_ghz\": %.6g, \"bw_load_gbs\": %.6g, "
                   "\"bw_copy_gbs\": %.6g, \"bw_triad_gbs\": %.6g, \"bw_load_file_gbs\": %.6g, "
                   "\"bw_read_now_gbs\": %.6g},\n", t->tm->estimated ? "true" : "false",
                t->tm->m.clock_ghz, t->tm->own_clock_ghz > 0 ? t->tm->own_clock_ghz : t->tm->m.clock_ghz,
                t->tm->m.bw_load, t->tm->m.bw_copy, t->tm->m.bw_triad,
                t->tm->own_bw_load > 0 ? t->tm->own_bw_load : t->tm->m.bw_load, t->tm->read_now_gbs);
    } else {
        fputs("null,\n", f);
    }
    fputs("  \"points\": [\n", f);
    for (int32_t i = 0; i < r->npoints; i++) {
        fputs("    ", f);
        json_point(f, &r->points[i]);
        fputs(i + 1 < r->npoints ? ",\n" : "\n", f);
    }
    fprintf(f, "  ],\n  \"recommendation\": {\"format\": \"%s\", \"crs_threads\": %d, \"C\": %d, \"sigma\": %d, \"rcm\": %s, \"threads\": %d, \"permuted\": %s, "
               "\"gflops\": ", tune_sell_wins(r) ? "sell" : "crs", r->crs.nthreads, r->opts.C, r->opts.sigma, r->opts.rcm ? "true" : "false", r->opts.nthreads,
            r->opts.permuted ? "true" : "false");
    json_num(f, r->best.gflops);
    fputs(", \"roofline_gflops\": ", f);
    json_num(f, r->best.roofline);
    fputs(", \"pct_of_roofline\": ", f);
    json_num(f, r->best.pct);
    fputs(", \"ecm_gflops\": ", f);
    json_num(f, r->best.ecm);
    fputs(", \"ecm_error_pct\": ", f);
    json_num(f, r->best.ecm_err);
    fputs(", \"crs_gflops\": ", f);
    json_num(f, r->crs.gflops);
    fputs(", \"speedup\": ", f);
    json_num(f, r->speedup);
    fputs(", \"conversion_s\": ", f);
    json_num(f, r->best.t_convert);
    fputs(", \"break_even_spmvs\": ", f);
    json_num(f, r->break_even);
    fprintf(f, ", \"recorded\": %s, \"database\": ", r->recorded ? "true" : "false");
    if (t->db) tune_json_string(f, t->db);
    else fputs("null", f);
    fprintf(f, "},\n  \"search_s\": %.3f,\n  \"total_s\": %.3f\n}\n", r->elapsed, total_s);
    return tool_out_end(prog, "--json", &o);
}

/* ------------------------------------------------------------------------------------------- plots */

static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char buf[8192], exe[8400];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(exe, sizeof exe, "%s/%s", *d ? d : ".", name);
        if (access(exe, X_OK) == 0) return 1;
    }
    return 0;
}

/* DIR/NAME through a temporary file (tool_out_begin); NULL after a message */
static FILE *open_in(const char *prog, const char *dir, const char *name, tool_outfile *o)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return tool_out_begin(prog, "--plot", p, o) ? NULL : o->f;
}

static int close_in(const char *prog, tool_outfile *o) { return tool_out_end(prog, "--plot", o); }

/* A whole PNG file: the 8-byte signature at the start and the IEND chunk at the end (gnuplot exits 0 also when
 * the disk was full and the file is empty or cut). NULL, or what is wrong. */
static const char *png_whole(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    FILE *f = fopen(path, "rb");
    if (!f) return "missing";
    unsigned char a[8], b[12];
    const char *why = NULL;
    if (fseek(f, 0, SEEK_END) || ftell(f) <= 0) why = "empty";
    else if (ftell(f) < 20) why = "cut short (not a whole PNG)";
    else if (fseek(f, 0, SEEK_SET) || fread(a, 1, 8, f) != 8 || memcmp(a, sig, 8)) why = "not a PNG";
    else if (fseek(f, -12, SEEK_END) || fread(b, 1, 12, f) != 12 || memcmp(b, iend, 12))
        why = "cut short (no IEND chunk at the end: was the disk full?)";
    fclose(f);
    return why;
}

static double model_at(const tune_report *t, int crs, int32_t n, double alpha, double *roof)
{
    const spmv_machine *m = t->tm && t->tm->have ? &t->tm->m : NULL;
    *roof = 0;
    if (!m) return 0;
    spmv_model_opts mo = spmv_model_opts_default();
    mo.alpha = alpha > 0 ? alpha : (double)t->A->cols / (double)t->A->nnz;
    spmv_model md;
    spmv_status st = crs ? spmv_model_crs(t->A, NULL, m, n, &mo, &md)
                         : (t->S ? spmv_model_sell(t->S, NULL, m, n, &mo, &md) : SPMV_ERR_ARG);
    if (st) return 0;
    *roof = md.roofline;
    return md.predicted;
}

int tune_write_plots(const char *prog, const char *dir, const tune_report *t)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "%s: --plot: cannot create %s: %s\n", prog, dir, strerror(errno));
        return 1;
    }
    const spmv_tune_result *r = t->r;
    const spmv_tune_point *b = &r->best;
    char bname[48];
    tune_point_name(b, bname, sizeof bname);
    int32_t T = 1;
    for (int32_t i = 0; i < r->npoints; i++)
        if (r->points[i].nthreads > T) T = r->points[i].nthreads;

    /* threads: measured points of the chosen configuration and CRS, and the model curves at every n */
    tool_outfile o;
    FILE *f = open_in(prog, dir, "threads.dat", &o);
    if (!f) return 1;
    fprintf(f, "# threads  sell_gflops  crs_gflops   (measured; NaN = not measured)\n");
    for (int32_t n = 1; n <= T; n++) {
        double s = NAN, c = NAN;
        for (int32_t i = 0; i < r->npoints; i++) {
            const spmv_tune_point *p = &r->points[i];
            if (p->state != SPMV_TUNE_MEASURED || p->nthreads != n || p->stage == 6) continue;
            if (p->is_crs) c = p->gflops;
            else if (p->C == b->C && p->sigma == b->sigma && p->rcm == b->rcm) s = p->gflops;
        }
        if (isnan(s) && isnan(c)) continue;
        fprintf(f, "%d %.6g %.6g\n", n, s, c);
    }
    if (close_in(prog, &o)) return 1;
    const int model = t->tm && t->tm->have;
    if (model) {
        if (!(f = open_in(prog, dir, "threads_model.dat", &o))) return 1;
        fprintf(f, "# threads  sell_ecm  crs_ecm  sell_roofline  crs_roofline   (Gflop/s, model)\n");
        for (int32_t n = 1; n <= T; n++) {
            double rs, rc;
            double es = model_at(t, 0, n, b->alpha, &rs), ec = model_at(t, 1, n, r->crs.alpha, &rc);
            fprintf(f, "%d %.6g %.6g %.6g %.6g\n", n, es, ec, rs, rc);
        }
        if (close_in(prog, &o)) return 1;
    }
    /* sigma: the chosen C, RCM off and on, at the largest thread count */
    if (!(f = open_in(prog, dir, "sigma.dat", &o))) return 1;
    fprintf(f, "# sigma  gflops_rcm_off  beta_rcm_off  gflops_rcm_on  beta_rcm_on   (C = %d, %d threads; NaN = not "
               "measured; beta also for pruned points: predicted)\n", b->C, T);
    int32_t sig[64], ns = 0;
    for (int32_t i = 0; i < r->npoints; i++) {
        const spmv_tune_point *p = &r->points[i];
        if (p->is_crs || p->C != b->C || p->stage == 4 || p->stage == 6) continue;
        int k;
        for (k = 0; k < ns; k++)
            if (sig[k] == p->sigma) break;
        if (k == ns && ns < 64) sig[ns++] = p->sigma;
    }
    for (int i = 1; i < ns; i++) /* sort */
        for (int j = i; j > 0 && sig[j - 1] > sig[j]; j--) {
            int32_t x = sig[j];
            sig[j] = sig[j - 1];
            sig[j - 1] = x;
        }
    int have[4] = {0, 0, 0, 0}; /* a value in columns 2..5 */
    for (int k = 0; k < ns; k++) {
        double g[2] = {NAN, NAN}, be[2] = {NAN, NAN};
        for (int32_t i = 0; i < r->npoints; i++) {
            const spmv_tune_point *p = &r->points[i];
            if (p->is_crs || p->C != b->C || p->sigma != sig[k] || p->stage == 4 || p->stage == 6) continue;
            if (p->state == SPMV_TUNE_MEASURED && !(p->gflops <= g[p->rcm])) g[p->rcm] = p->gflops; /* the better try */
            if (p->stored > 0) be[p->rcm] = p->beta;
        }
        fprintf(f, "%d %.6g %.6g %.6g %.6g\n", sig[k], g[0], be[0], g[1], be[1]);
        have[0] |= !isnan(g[0]), have[1] |= !isnan(be[0]), have[2] |= !isnan(g[1]), have[3] |= !isnan(be[1]);
    }
    if (close_in(prog, &o)) return 1;

    /* the script */
    if (!(f = open_in(prog, dir, "plots.gp", &o))) return 1;
    char title[400];
    snprintf(title, sizeof title, "%s on %s (%s kernels)", t->matrix, t->host.cpu, t->host.isa);
    for (char *p = title; *p; p++)
        if (*p == '"' || *p == '\\') *p = '\'';
    fprintf(f, "# gnuplot script written by spmv-tune: gnuplot plots.gp (in this folder)\n"
               "set terminal pngcairo size 1000,640 font 'DejaVu Sans,12' linewidth 1.5\n"
               "set datafile missing 'NaN'\nset grid\nset key outside right top vertical box\n"
               "set border lw 1\n"
               "# spmv-tune sets the output names (temporary files it checks before they replace the PNGs)\n"
               "if (!exists('threads_png')) threads_png = 'threads.png'\n"
               "if (!exists('sigma_png')) sigma_png = 'sigma.png'\n");
    fprintf(f, "\nset output threads_png\nset title \"%s\\nGflop/s against threads, with the ECM prediction%s%s\"\n",
            title, t->tm && t->tm->estimated ? " (ESTIMATED machine)" : "",
            strstr(b->note, "in cache") ? "\\n(the data fit in the cache: the model is for data in memory)" : "");
    fprintf(f, "set xlabel 'threads (cores, compact)'\nset ylabel 'Gflop/s'\nset xrange [0.5:%g]\nset yrange [0:*]\n",
            T + 0.5);
    fprintf(f, "set xtics %d\nset mxtics 1\n", T <= 16 ? 1 : T <= 64 ? 4 : 16);
    fprintf(f, "plot 'threads.dat' using 1:2 with linespoints pt 7 ps 1.6 lc rgb '#1f5fb4' title '%s measured', \\\n"
               "     'threads.dat' using 1:3 with linespoints pt 5 ps 1.4 lc rgb '#c0392b' title 'CRS measured'",
            bname);
    if (model)
        fprintf(f, ", \\\n     'threads_model.dat' using 1:2 with lines dt 2 lw 2 lc rgb '#1f5fb4' title '%s ECM', \\\n"
                   "     'threads_model.dat' using 1:3 with lines dt 2 lw 2 lc rgb '#c0392b' title 'CRS ECM', \\\n"
                   "     'threads_model.dat' using 1:4 with steps dt 3 lw 1.5 lc rgb '#555555' title '%s roofline'",
                bname, bname);
    fputs("\n", f);
    fprintf(f, "\nset output sigma_png\nset title \"%s\\nC = %d, %d threads: Gflop/s and beta against the sorting "
               "window sigma\"\n", title, b->C, T);
    fprintf(f, "set logscale x 2\nset format x '2^{%%L}'\nset xlabel 'sigma (rows)'\nunset xrange\nset xtics auto\n"
               "set autoscale x\nset ylabel 'Gflop/s'\nset yrange [0:*]\nset y2label 'beta = nnz / stored'\n"
               "set y2range [0:1.05]\nset y2tics 0.1\nset ytics nomirror\n");
    double crsg = r->crs.state == SPMV_TUNE_MEASURED ? r->crs.gflops : NAN;
    for (int32_t i = 0; i < r->npoints; i++) /* CRS at T */
        if (r->points[i].is_crs && r->points[i].state == SPMV_TUNE_MEASURED && r->points[i].nthreads == T)
            crsg = r->points[i].gflops;
    static const char *const series[4] = {
        "'sigma.dat' using 1:2 with linespoints pt 7 ps 1.6 lc rgb '#1f5fb4' title 'Gflop/s, RCM off'",
        "'sigma.dat' using 1:3 axes x1y2 with linespoints pt 6 ps 1.2 dt 2 lc rgb '#1f5fb4' title 'beta, RCM off'",
        "'sigma.dat' using 1:4 with linespoints pt 9 ps 1.6 lc rgb '#27ae60' title 'Gflop/s, RCM on'",
        "'sigma.dat' using 1:5 axes x1y2 with linespoints pt 8 ps 1.2 dt 2 lc rgb '#27ae60' title 'beta, RCM on'"};
    static const int order[4] = {0, 2, 1, 3};
    int any = 0;
    fputs("plot ", f);
    for (int k = 0; k < 4; k++)
        if (have[order[k]]) fprintf(f, "%s%s", any++ ? ", \\\n     " : "", series[order[k]]);
    if (isfinite(crsg)) fprintf(f, "%s%.6g with lines lw 1.5 lc rgb '#c0392b' title 'CRS'", any++ ? ", \\\n     " : "", crsg);
    if (!any) fputs("NaN notitle", f);
    fputs("\n", f);
    if (close_in(prog, &o)) return 1;

    if (!on_path("gnuplot")) {
        fprintf(stderr, "%s: --plot: gnuplot is not on PATH: plots skipped (data and script are in %s; install "
                        "gnuplot-nox and run `gnuplot plots.gp` there)\n", prog, dir);
        return 0;
    }
    /* gnuplot writes temporary files; each replaces its PNG only when gnuplot exited 0 and the file is whole */
    static const char *const png[2] = {"threads", "sigma"};
    char tmp[2][4400], fin[2][4400], expr[600];
    for (int k = 0; k < 2; k++) {
        snprintf(tmp[k], sizeof tmp[k], "%s/.%s.png.tmp-%ld", dir, png[k], (long)getpid());
        snprintf(fin[k], sizeof fin[k], "%s/%s.png", dir, png[k]);
        unlink(tmp[k]);
    }
    snprintf(expr, sizeof expr, "threads_png='.threads.png.tmp-%ld'; sigma_png='.sigma.png.tmp-%ld'", (long)getpid(),
             (long)getpid());
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir)) _exit(126);
        execlp("gnuplot", "gnuplot", "-e", expr, "plots.gp", (char *)NULL);
        _exit(127);
    }
    int status = 0, bad = 0, failed = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "%s: --plot: gnuplot failed (%s %d); the PNGs are not written (data and script are in %s)\n",
                prog, pid < 0 ? "fork" : WIFEXITED(status) ? "exit status" : "signal",
                pid < 0 ? errno : WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                dir);
        bad = failed = 1;
    }
    for (int k = 0; k < 2; k++) {
        const char *why = failed ? "" : png_whole(tmp[k]);
        if (!why) {
            int fd = open(tmp[k], O_RDONLY);
            int e = fd < 0 || fsync(fd) ? errno : 0;
            if (fd >= 0) close(fd);
            if (!e && rename(tmp[k], fin[k])) e = errno;
            if (e) {
                fprintf(stderr, "%s: --plot: cannot put %s in place: %s\n", prog, fin[k], strerror(e));
                bad = 1;
            }
        } else if (why[0]) {
            fprintf(stderr, "%s: --plot: gnuplot exited 0 but %s is %s: not written\n", prog, fin[k], why);
            bad = 1;
        }
        unlink(tmp[k]);
    }
    if (bad) return 1;
    printf("plots        %s/threads.png (Gflop/s against threads with the ECM curve), %s/sigma.png (Gflop/s and beta "
           "against sigma)\n", dir, dir);
    return 0;
}
