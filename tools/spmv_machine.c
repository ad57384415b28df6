/* spmv-machine: measure this machine with microbenchmarks (src/bench/) and write a machine file for the model
 * (format: machines/README.md), plus a readable table on stdout. What is measured and how: src/bench/bench.h and
 * src/bench/bench_run.c; the method follows Alappat et al., PMBS 2020, Sect. II-III. */
#define _GNU_SOURCE
#include "bench.h"
#include "toolutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "spmv-machine";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spmv-machine [options]\n"
            "Measures the core clock, in-core instruction costs, the streaming kernels of Alappat et al. (PMBS 2020,\n"
            "Table III) in L1, L2, L3 and memory, memory bandwidth against cores and load latency, prints a table\n"
            "and writes a machine file for the ECM/roofline model.\n"
            "  -o FILE          write the machine file to FILE ('-': stdout)\n"
            "  --install        write it where spmv-bench and spmv-tune look for it:\n"
            "                   $XDG_DATA_HOME/spmv/machines/<hostname>.machine (default ~/.local/share/...)\n"
            "                   Without -o or --install nothing is written; the path is printed.\n"
            "  --quick          fewer sizes, shorter runs, 4 passes instead of 16 (10-30 s on an idle 2-core VM)\n"
            "  --isa NAME       kernel set of the in-core and streaming tests:");
    for (const bench_isa *const *i = bench_isa_all(); *i; i++)
        fprintf(f, " %s%s", (*i)->name, bench_isa_usable(*i) ? "" : "(not on this CPU)");
    fprintf(f,
            "\n                   (default: the widest this CPU runs)\n"
            "  --threads N      bandwidth curve for 1..N threads (default: the cores of the first NUMA domain)\n"
            "  --mem-size SIZE  working set of the memory level, e.g. 512M or 2G (default: 4x the last-level\n"
            "                   cache, at least 256 MiB, with --quick; 8x, at least 1 GiB, otherwise; at most\n"
            "                   a quarter of the physical memory)\n"
            "  --overlap RULE   overlap rule of every level: none, full, a64fx-partial (default: fitted per level,\n"
            "                   Sect. III-A, from the streaming kernels, then checked on the library's SpMV\n"
            "                   kernels: HPCG n^3 with its data in each level, 1 thread; see the tables)\n"
            "  --no-spmv-check  keep the streaming kernels' rules (no SpMV check: about 3-5 s less on a 2-core VM)\n"
            "  --name TEXT      model name written to the file\n"
            "  --only LIST      measure only these parts (comma-separated): incore, stream, latency (with x at\n"
            "                   random lines), bw (the clock always); no file is written unless all are measured\n"
            "  -q               no progress lines on stderr\n"
            "Threads are pinned one per core (compact) unless OMP_PLACES or OMP_PROC_BIND is set.\n");
}

/* "N[k|M|G|T][i][B]" (binary multiples) as bytes; -1 where it is not such a size (or not finite), -2 where it is
 * 2^60 bytes or more (converted to an integer only below that) */
static int64_t parse_bytes(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0) || !isfinite(v)) return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1024, end++; break;
    case 'm': case 'M': v *= 1048576, end++; break;
    case 'g': case 'G': v *= 1073741824.0, end++; break;
    case 't': case 'T': v *= 1099511627776.0, end++; break;
    default: break;
    }
    if (*end == 'i') end++;
    if (*end == 'B') end++;
    if (*end) return -1;
    return v < 1152921504606846976.0 ? (int64_t)v : -2;
}

static const char *human(char *b, size_t n, double bytes)
{
    if (bytes >= 1073741824.0) snprintf(b, n, "%.4g GiB", bytes / 1073741824.0);
    else if (bytes >= 1048576.0) snprintf(b, n, "%.4g MiB", bytes / 1048576.0);
    else if (bytes >= 1024.0) snprintf(b, n, "%.4g KiB", bytes / 1024.0);
    else snprintf(b, n, "%.0f B", bytes);
    return b;
}

static int mkdirs(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    char *slash = strrchr(p, '/');
    if (!slash) return 0;
    *slash = '\0';
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            if (mkdir(p, 0755) && errno != EEXIST) return -1;
            *c = '/';
        }
    return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------------- table */

static void print_table(const bench_results *r, const spmv_machine *m, const bench_fit *fit, int quick)
{
    const bench_topo *t = &r->topo;
    char b1[32], b2[32];
    printf("== System\n");
    printf("CPU            %s%s%s%s%s\n", t->cpu_name, t->uarch[0] ? " (" : "", t->uarch, t->uarch[0] ? ")" : "",
           t->virtualized ? ", virtual machine (hypervisor flag)" : "");
    printf("host           %s\n", t->hostname);
    printf("cores          %d usable (%d logical CPUs), %d socket%s, %d NUMA domain%s; curve on %d core%s of the "
           "first domain, CPUs",
           t->cores, t->ncpus, t->sockets, t->sockets > 1 ? "s" : "", t->numa_nodes, t->numa_nodes > 1 ? "s" : "",
           t->ncore_cpus, t->ncore_cpus > 1 ? "s" : "");
    for (int i = 0; i < t->ncore_cpus && i < 32; i++) printf("%s%d", i ? "," : " ", t->core_cpus[i]);
    printf("%s, pinned %s\n", t->ncore_cpus > 32 ? ",..." : "",
           r->pinned == 2 ? "by OMP_PLACES/OMP_PROC_BIND" : "by spmv-machine (sched_setaffinity)");
    printf("caches        ");
    for (int i = 0; i < t->ncaches; i++) {
        printf(" %s %s %d-way %d B lines, ", t->cache[i].name, human(b1, sizeof b1, (double)t->cache[i].size),
               t->cache[i].ways, t->cache[i].line);
        if (t->cache[i].shared_cores > 1) printf("shared by %d cores", t->cache[i].shared_cores);
        else printf("private");
        printf("%s", i + 1 < t->ncaches ? ";" : "");
    }
    printf("%s\n", t->from_sysfs ? " (sysfs)" : " (sysconf/defaults: sysfs had no cache data)");
    printf("huge pages     transparent huge pages: %s (arrays from 4 MiB on are madvise'd)\n",
           t->thp[0] ? t->thp : "unknown");
    printf("ISA measured   %s: %s, W = %d doubles per vector", r->isa->name, r->isa->desc, r->width);
    const bench_isa *avx512 = bench_isa_find("avx512");
#if defined(__x86_64__)
    if (strcmp(r->isa->name, "avx512")) printf(" (AVX-512: %s)", avx512 && !bench_isa_usable(avx512)
                                                                       ? "not supported by this CPU"
                                                                       : avx512 ? "available, not chosen" : "not built");
#else
    (void)avx512;
#endif
    printf("\n");
    printf("clock          %.3f GHz: dependent 1-cycle integer adds against wall time (median over the passes of "
           "the best of 100 windows of 0.25-0.5 ms; the same chain over 0.1 s: %.3f GHz)",
           r->clock_ghz, r->clock_min_ghz);
    if (r->tsc_ghz > 0) printf("; TSC %.3f GHz (not the core clock)", r->tsc_ghz);
    printf("\n");

    if (r->incore[BI_FMA_LAT] > 0) {
        printf("\n== In-core, %s (W = %d), cy per instruction, data in L1\n", r->isa->name, r->width);
        printf("%-38s %9s %12s\n", "instruction", "latency", "rthroughput");
        static const struct { const char *name; int lat, tp; } rows[] = {
            {"FMA", BI_FMA_LAT, BI_FMA_TP},
            {"ADD", BI_ADD_LAT, BI_ADD_TP},
            {"MUL", BI_MUL_LAT, BI_MUL_TP},
            {"gather (indices in registers)", BI_GATHER_LAT, BI_GATHER_TP},
            {"index load + gather", BI_GATHERLD_LAT, BI_GATHERLD_TP},
            {"horizontal add", BI_HADD_LAT, BI_HADD_TP},
            {"index load + gather in 1 line", -1, BI_GATHER_1L},
            {"index load + gather in 2 lines", -1, BI_GATHER_2L},
            {"index load + gather in 4 lines", -1, BI_GATHER_4L},
            {"index load + gather in 8 lines", -1, BI_GATHER_8L},
            {"emulated gather (W index + W x loads)", -1, BI_EMUL_TP},
            {"masked unaligned load", -1, BI_MASKLD_TP},
            {"scalar load", -1, BI_SLOAD_TP}};
        for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
            if (!(r->incore[rows[i].tp] > 0)) continue;
            const char *nm = rows[i].name;
            if (i == 0 && !r->isa->has_fma) nm = "FMA (no FMA: multiply + add)";
            if (rows[i].lat >= 0) printf("%-38s %9.2f %12.2f\n", nm, r->incore[rows[i].lat], r->incore[rows[i].tp]);
            else printf("%-38s %9s %12.2f\n", nm, "-", r->incore[rows[i].tp]);
        }
        if (m->load_rthroughput > 0) {
            printf("%-38s %9s %12.2f   (LOAD in L1, best unroll)\n", "contiguous load", "-", m->load_rthroughput);
            printf("%-38s %9s %12.2f   (INIT in L1, best unroll)\n", "contiguous store", "-", m->store_rthroughput);
        }
        printf("gather index penalty: %.2f cy (index load + gather minus gather alone, A64FX: 1.5)\n",
               m->gather_index_penalty);
        printf("latency chains: gather through its own data (64-bit indices); index load + gather includes moving "
               "lane 0 to a general register\n");
    }

    if (r->stream_cy[BK_LOAD][0][0] > 0) {
        printf("\n== Streaming kernels, cy/VL (VL = %d doubles) for unroll/MVE factors 1..16; best as GB/s "
               "(explicit bytes / with write-allocate)\n",
               r->width);
        printf("%-10s %-4s %9s", "kernel", "lvl", "ws");
        for (int u = 0; u < BENCH_NUNROLL; u++) printf(" %6s%-2d", "u=", bench_unrolls[u]);
        printf(" %7s %9s %9s\n", "best", "GB/s", "GB/s+WA");
        for (int k = 0; k < BK_NKERNELS; k++) {
            for (int L = 0; L < r->nlevels; L++) {
                printf("%-10s %-4s %9s", L ? "" : bench_kernel_infos[k].name, r->level_name[L],
                       human(b1, sizeof b1, (double)r->level_bytes[L]));
                for (int u = 0; u < BENCH_NUNROLL; u++) printf(" %8.2f", r->stream_cy[k][L][u]);
                int bu;
                double best = bench_best_cy(r, (bench_kernel)k, L, &bu);
                printf(" %5.2f/%-2d %8.2f %9.2f\n", best, bu, bench_gbs(r, (bench_kernel)k, L, best, 0),
                       bench_gbs(r, (bench_kernel)k, L, best, 1));
            }
        }
        printf("kernels: ");
        for (int k = 0; k < BK_NKERNELS; k++)
            printf("%s %s%s", bench_kernel_infos[k].name, bench_kernel_infos[k].formula,
                   k + 1 < BK_NKERNELS ? ", " : "\n");
        printf("STENCIL bytes assume the layer condition in the cache above; arrays aligned to %d B\n", BENCH_ALIGN);

        if (r->nlevels > 1) {
            static const char *rn[3] = {"none", "full", "a64fx-partial"};
            printf("\n== Overlap hypotheses per level (Sect. III-A), fitted level by level from the core: cy/VL measured "
                   "and predicted\n   by the library's ECM with the level's upstream read bandwidth calibrated on the "
                   "read-only stream\n");
            for (int L = 1; L < r->nlevels; L++) {
                printf("%s: measured link bandwidth (cap) %.2f B/cy;", r->level_name[L], fit->cap[L]);
                for (int q = 0; q < 3; q++)
                    printf(" %s: %.2f B/cy%s;", rn[q], fit->try_bw[L][q],
                           fit->clamped[L][q] ? " (calibration above the cap: the cap)" : "");
                printf("\n  %-10s %9s %9s %9s %14s\n", "kernel", "measured", "none", "full", "a64fx-partial");
                for (int k = 0; k < BK_NKERNELS; k++) {
                    if (k == BK_STENCIL || k == BK_LOAD || k == BK_TOUCH) continue;
                    printf("  %-10s %9.2f %9.2f %9.2f %14.2f\n", bench_kernel_infos[k].name,
                           bench_best_cy(r, (bench_kernel)k, L, NULL), fit->pred[L][0][k], fit->pred[L][1][k],
                           fit->pred[L][2][k]);
                }
                printf("  mean |log(predicted/measured)|: none %.3f, full %.3f, a64fx-partial %.3f -> %s at %.2f B/cy\n",
                       fit->err[L][0], fit->err[L][1], fit->err[L][2], rn[fit->rule[L]], fit->bw[L]);
            }
            printf("L1 rule: %s; all levels with the chosen rules: mean |log(predicted/measured)| %.3f\n",
                   rn[fit->rule[0]], fit->total_err);
        }
    }

    if (r->nthreads > 0) {
        printf("\n== Memory bandwidth against threads (one per core, compact), GB/s explicit + write-allocate, "
               "u=%d, working set %s, sustained (bytes over time of all timed windows, as STREAM's whole pass), the "
               "median of the passes\n",
               r->bw_unroll, human(b1, sizeof b1, (double)r->bw_bytes));
        printf("%7s %9s %9s %9s   %s\n", "threads", "read", "COPY", "TRIAD", "read: slowest-fastest of the passes");
        for (int i = 0; i < r->nthreads; i++)
            printf("%7d %9.2f %9.2f %9.2f   %.2f-%.2f (%d)\n", i + 1, r->bw[BW_LOAD][i], r->bw[BW_COPY][i],
                   r->bw[BW_TRIAD][i], r->bw_lo[BW_LOAD][i], r->bw_hi[BW_LOAD][i], r->bw_passes[BW_LOAD][i]);
        printf("saturated      read (SUM) %.2f, COPY %.2f, TRIAD %.2f GB/s (= %.2f B/cy read), the ECM's; fastest "
               "passes %.2f, %.2f, %.2f GB/s, the roofline's\n", m->bw_load, m->bw_copy, m->bw_triad,
               m->bw_load / r->clock_ghz, m->bw_load_best, m->bw_copy_best, m->bw_triad_best);
        if (m->parallel_overhead > 0)
            printf("thread team start and join (spmv_team_overhead, no work) on %d threads: %.2f us = %.0f cy (added to each multiply "
                   "on more than one thread)\n", r->nthreads, m->parallel_overhead / r->clock_ghz * 1e-3,
                   m->parallel_overhead);
    }

    if (r->nlat > 0) {
        printf("\n== Load latency, pointer chase (random cyclic permutation, one node per %d B line)\n",
               t->cacheline);
        printf("%11s %9s %9s  %s\n", "size", "ns", "cy", "");
        for (int i = 0; i < r->nlat; i++) {
            const char *lv = "";
            for (int L = 0; L < r->nlevels; L++)
                if (r->level_bytes[L] == r->lat_bytes[i]) lv = r->level_name[L];
            printf("%11s %9.2f %9.1f  %s\n", human(b1, sizeof b1, (double)r->lat_bytes[i]), r->lat_ns[i],
                   r->lat_ns[i] * r->clock_ghz, lv);
        }
    }

    if (r->nsweep > 0) {
        printf("\n== Bandwidth sweep of one core (SUM), GB/s, for the effective last-level cache\n");
        for (int i = 0; i < r->nsweep; i++)
            printf("%11s %9.2f\n", human(b1, sizeof b1, (double)r->sweep_bytes[i]), r->sweep_gbs[i]);
    }
    printf("effective capacity:");
    for (int L = 0; L < r->nlevels - 1 && L < t->ncaches; L++) {
        printf(" %s %s", r->level_name[L], human(b1, sizeof b1, (double)r->eff_bytes[L]));
        if (r->eff_lat_bytes[L] > 0) printf(" (latency: %s)", human(b2, sizeof b2, (double)r->eff_lat_bytes[L]));
    }
    printf("  -- the last level from the bandwidth sweep (the capacity that best explains it), the latency view\n"
           "   is the largest size within 1.5x of the level's latency\n");

    printf("\n== Machine file summary\n");
    printf("clock %.3f GHz, SIMD width %d, FMA %.2f/%.2f cy (lat/rthroughput), gather %.2f + %.2f cy (1/2/4/8 lines "
           "%.2f %.2f %.2f %.2f), emulated %.2f, masked load %.2f, scalar load %.2f, value index %.2f, hadd %.2f/%.2f "
           "cy\n",
           m->clock_ghz, m->simd_width, m->fma_latency, m->fma_rthroughput, m->gather_rthroughput,
           m->gather_index_penalty, m->gather_lines_rthroughput[0], m->gather_lines_rthroughput[1],
           m->gather_lines_rthroughput[2], m->gather_lines_rthroughput[3], m->emul_gather_rthroughput,
           m->masked_load_rthroughput, m->scalar_load_rthroughput, m->vidx_rthroughput, m->hadd_latency,
           m->hadd_rthroughput);
    printf("random x lines, ns per element at x of 4 / 16 / 64 / 256 MiB: gather %.2f %.2f %.2f %.2f, scalar loads "
           "%.2f %.2f %.2f %.2f\n", m->xrand_ns[0][0], m->xrand_ns[0][1], m->xrand_ns[0][2], m->xrand_ns[0][3],
           m->xrand_ns[1][0], m->xrand_ns[1][1], m->xrand_ns[1][2], m->xrand_ns[1][3]);
    if (r->xrand_huge >= 0)
        printf("  (x in 2 MiB pages: %.0f %% in the last pass; with 4 KiB pages a gather's random line costs 2-3x)\n",
               100.0 * r->xrand_huge);
    if (m->len_branch_miss_cy > 0) {
        printf("length branches: %.1f cy per change of a branch that follows the row length; ", m->len_branch_miss_cy);
        if (m->len_branch_rows_learned > 0)
            printf("learned up to %.0f rows per core, all mispredicted from %.0f\n", m->len_branch_rows_learned,
                   m->len_branch_rows_missed);
        else
            printf("none learned\n");
    }
    for (int i = 0; i < m->nlevels; i++) {
        const spmv_machine_level *l = &m->level[i];
        printf("%-4s %10s  upstream %7.2f B/cy%s  overlap %s\n", l->name,
               l->size ? human(b2, sizeof b2, (double)(l->effective_size ? l->effective_size : l->size)) : "",
               l->upstream_bw,
               i == 0 ? " (core loads)" : i + 1 == m->nlevels ? " (one core, fitted)" : " (fitted)",
               spmv_overlap_name(l->overlap));
    }
    printf("run time       %.1f s (clock %.1f, in-core %.1f, streaming %.1f, latency %.1f, bandwidth %.1f)%s\n",
           r->seconds[5], r->seconds[0], r->seconds[1], r->seconds[2], r->seconds[3], r->seconds[4],
           quick ? ", --quick" : "");
}

static void print_check(const spmv_machine *m, const bench_check *c)
{
    if (!c->done) return;
    printf("\n== Overlap rules checked on SpMV: the library's kernels on 1 thread, HPCG n^3 with its data in the level,\n"
           "   Gflop/s measured (best of 3 interleaved rounds of 5 runs of >= 5 ms, 3 more per try where every rule fitted\n"
           "   worse than %.2f) and predicted by the model under each rule\n", BENCH_CHECK_RETRY_ERR);
    const char *rn[3];
    for (int q = 0; q < 3; q++) rn[q] = spmv_overlap_name((spmv_overlap)q);
    for (int L = 1; L < m->nlevels; L++) {
        if (!c->n[L]) {
            printf("%s: not checked (the largest test matrix is less than 4x the last cache): %s kept\n",
                   m->level[L].name, rn[c->rule[L]]);
            continue;
        }
        char tries[64] = "";
        if (c->tries[L] > 1) snprintf(tries, sizeof tries, ", %d tries", c->tries[L]);
        printf("%s: HPCG %d^3 (%.3g MB%s)\n  %-28s %9s %9s %9s %14s\n", m->level[L].name, c->n[L], c->mb[L], tries,
               "kernel", "measured", rn[0], rn[1], rn[2]);
        for (int k = 0; k < BENCH_CHECK_KERNELS; k++)
            printf("  %-28s %9.3f %9.3f %9.3f %14.3f\n", c->kernel[L][k], c->meas[L][k], c->pred[L][0][k],
                   c->pred[L][1][k], c->pred[L][2][k]);
        if (L == m->nlevels - 1)
            printf("  bandwidth of one core fitted on these kernels (at most the read-only stream's): none %.2f (%.2f), "
                   "full %.2f (%.2f), a64fx-partial %.2f (%.2f) B/cy\n", c->bw[L][0], c->stream_bw[L][0], c->bw[L][1],
                   c->stream_bw[L][1], c->bw[L][2], c->stream_bw[L][2]);
        printf("  mean |log(predicted/measured)|: none %.3f, full %.3f, a64fx-partial %.3f -> %s (the streams chose %s)\n",
               c->err[L][0], c->err[L][1], c->err[L][2], rn[c->rule[L]], rn[c->stream_rule[L]]);
    }
    if (!c->nt_nx) return;
    printf("Non-temporal y stores: 2D Laplacian %d^2, SELL-32-1 on 1 thread (best of %d interleaved rounds)\n",
           c->nt_nx, 2 * BENCH_CHECK_ROUNDS);
    if (!(c->nt_cost > 0)) {
        printf("  %s: %s: cost not fitted, the model charges the declared bytes\n", c->nt_kernel[1],
               !c->nt_available ? "no streaming-store kernel here (or SPMV_SELL_NT forces one kind)"
                                : "no prediction");
        return;
    }
    printf("  %-28s %9s %9s\n", "kernel", "measured", "model");
    for (int k = 0; k < 2; k++) printf("  %-28s %9.3f %9.3f\n", c->nt_kernel[k], c->nt_meas[k], c->nt_pred[k]);
    printf("  cost of a byte of y by non-temporal stores at the memory: %.3g write-back bytes (at 1, the declared\n"
           "  bytes, the model said %.3f Gflop/s for the streaming kernel)\n", c->nt_cost, c->nt_pred1);
}

/* ---------------------------------------------------------------------------------------------- file */

static char *header(const bench_results *r, const spmv_machine *m, const bench_fit *fit, const bench_check *chk,
                    int forced, int threads, int argc, char **argv, int passes)
{
    static char h[16384];
    size_t n = 0;
/* past the buffer only counts (no pointer beyond h is formed); the command line below is cut at 4 KiB so that the
 * header always fits */
#define H(...) n += (size_t)snprintf(n < sizeof h ? h + n : NULL, n < sizeof h ? sizeof h - n : 0, __VA_ARGS__)
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    H("# Measured by spmv-machine (spmv %s) on host %s, %s, in %.0f s.\n", spmv_version(), r->topo.hostname, date,
      r->seconds[5]);
    H("# Command:"); /* control bytes as \xHH: a newline in an argument would end the comment */
    for (int i = 0; i < argc && n < 4096; i++) {
        H(" ");
        for (const unsigned char *c = (const unsigned char *)argv[i]; *c && n < 4096; c++) {
            if (*c < 0x20 || *c == 0x7f) H("\\x%02X", *c);
            else H("%c", *c);
        }
    }
    if (n >= 4096) H(" ...");
    H("\n# CPU: %s%s%s%s, %d cores, %s.\n", r->topo.cpu_name, r->topo.uarch[0] ? " (" : "", r->topo.uarch,
      r->topo.uarch[0] ? ")" : "", r->topo.cores, r->topo.virtualized ? "virtual machine" : "bare metal or unknown");
    H("# In-core ISA measured: %s, %s: SIMD width = %d doubles.%s\n", r->isa->name, r->isa->desc, r->width,
      strcmp(r->isa->name, "avx512") && bench_isa_find("avx512") && !bench_isa_usable(bench_isa_find("avx512"))
          ? " AVX-512 is not supported by this CPU."
          : "");
    H("# Clock: dependent integer adds against wall time in short windows (over 0.1 s: %.3f GHz)", r->clock_min_ghz);
    if (r->tsc_ghz > 0) H("; TSC rate %.3f GHz", r->tsc_ghz);
    H(".\n# Timings: wall clock in windows of 0.25-0.5 ms, the best window of each pass in cycles at the clock\n"
      "# measured around it (in memory: the sustained rate, all timed windows' work over their time, as STREAM's\n"
      "# whole pass); over %d passes the median of those within 5%% of the best (in memory: of all passes). load/store\n"
      "# reciprocal throughput: LOAD/INIT in L1; gather index penalty: index load + gather minus gather alone.\n", passes);
    H("# Streaming kernels, best cy/VL over unroll 1..16 (VL = %d doubles) in", r->width);
    for (int L = 0; L < r->nlevels; L++) H(" %s", r->level_name[L]);
    H(":\n");
    for (int k = 0; k < BK_NKERNELS; k++) {
        H("#   %-10s", bench_kernel_infos[k].name);
        for (int L = 0; L < r->nlevels; L++) H(" %6.2f", bench_best_cy(r, (bench_kernel)k, L, NULL));
        H("   GB/s+WA");
        for (int L = 0; L < r->nlevels; L++)
            H(" %7.1f", bench_gbs(r, (bench_kernel)k, L, bench_best_cy(r, (bench_kernel)k, L, NULL), 1));
        H("\n");
    }
    H("# Load latency (pointer chase) in ns:");
    for (int L = 0; L < r->nlevels; L++) H(" %s %.1f", r->level_name[L], r->level_lat_ns[L]);
    {
        char b[32], b2[32];
        H("\n# Effective capacity:");
        for (int L = 0; L < r->nlevels - 1 && L < r->topo.ncaches; L++) {
            H(" %s %s", r->level_name[L], human(b, sizeof b, (double)r->eff_bytes[L]));
            if (r->eff_lat_bytes[L] > 0) H(" (latency sweep %s)", human(b2, sizeof b2, (double)r->eff_lat_bytes[L]));
        }
        H(";\n# the last level's from a bandwidth sweep of one core (SUM):");
        for (int i = 0; i < r->nsweep; i++)
            H("%s %s %.0f", i % 6 == 5 ? "\n#  " : "", human(b, sizeof b, (double)r->sweep_bytes[i]), r->sweep_gbs[i]);
        H(" GB/s:\n# the capacity C that explains it best when a working set ws gets min(C, ws)/ws of its bytes from the\n"
          "# cache (written as 'effective size': the model places the data set by it); the latency sweep's size is\n"
          "# written as 'random access size' (the alpha simulation uses the smaller of the two).");
    }
    H("\n# Overlap rules per level (Sect. III-A), fitted level by level with the library's ECM: %s",
      forced ? "forced by --overlap" : "the best rule, its upstream read bandwidth calibrated on the read-only stream "
                                       "and at most the measured link bandwidth (cap)");
    static const char *rn[3] = {"none", "full", "a64fx-partial"};
    for (int L = 0; L < r->nlevels; L++) {
        H("\n#   %-4s %-13s", r->level_name[L], rn[fit->rule[L]]);
        if (L == 0) {
            H(" (L1: stores %s)", fit->rule[0] == SPMV_OVERLAP_FULL ? "and loads overlap with everything"
                                                                    : "overlap with transfers, loads do not");
            continue;
        }
        H(" %.2f B/cy (cap %.2f); errors none %.3f, full %.3f, a64fx-partial %.3f", fit->bw[L], fit->cap[L],
          fit->err[L][0], fit->err[L][1], fit->err[L][2]);
    }
    H("\n# Mean |log(predicted/measured)| of the streaming kernels beyond L1 with these rules: %.3f. MEM: one core's\n"
      "# read bandwidth under its rule (the ECM's single-core memory term; the SpMV check below fits it on its kernels\n"
      "# where it ran, at most this figure); the saturated bandwidths of the NUMA domain are the maxima of the\n"
      "# curves of median passes (the ECM's), their 'fastest pass' keys the fastest single pass at any thread count\n"
      "# (the roofline's); read-only = STREAM's \"sum\" with 8 accumulators.\n", fit->total_err);
    if (chk->done) {
        H("# Rules checked on SpMV (the library's CRS, SELL-8-1 and SELL-32-1 on 1 thread, HPCG n^3 with its data in the\n"
          "# level; errors = mean |log(predicted/measured)|, a rule replaces the streams' when lower by more than 0.05):");
        for (int L = 1; L < m->nlevels; L++)
            if (chk->n[L])
            {
                H("\n#   %-4s HPCG %d^3: errors none %.3f, full %.3f, a64fx-partial %.3f -> %s%s", m->level[L].name,
                  chk->n[L], chk->err[L][0], chk->err[L][1], chk->err[L][2], spmv_overlap_name((spmv_overlap)chk->rule[L]),
                  chk->rule[L] != chk->stream_rule[L] ? " (replaces the streams' rule)" : "");
                if (chk->tries[L] > 1)
                    H("\n#        after %d tries (every rule worse than %.2f before)", chk->tries[L], BENCH_CHECK_RETRY_ERR);
                if (L == m->nlevels - 1)
                    H("\n#        at %.2f B/cy fitted on these kernels (the read-only stream's %.2f under this rule)",
                      chk->bw[L][chk->rule[L]], chk->stream_bw[L][chk->rule[L]]);
            }
        if (chk->nt_cost > 0)
            H("\n# Non-temporal y stores (2D Laplacian %d^2, SELL-32-1, 1 thread): %.3f Gflop/s with them, %.3f with "
              "ordinary\n#   stores: the cost fitted to the model's ratio %.3g (1: as declared)", chk->nt_nx,
              chk->nt_meas[1], chk->nt_meas[0], chk->nt_cost);
        H("\n");
    }
    if (threads > 0 && threads < r->topo.ncore_cpus)
        H("# WARNING: measured with --threads %d of the %d cores of a NUMA domain: MEM may not be saturated (too low).\n",
          threads, r->topo.ncore_cpus);
    (void)m;
#undef H
    return h;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *isa_name = NULL, *name = NULL, *overlap = NULL;
    int install = 0, quiet = 0, spmv_check_on = 1;
    bench_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long lv;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            o.quick = 1;
        } else if (!strcmp(a, "--install")) {
            install = 1;
        } else if (!strcmp(a, "--no-spmv-check")) {
            spmv_check_on = 0;
        } else if (!strcmp(a, "-q")) {
            quiet = 1;
        } else if (!v && (!strcmp(a, "-o") || !strcmp(a, "--isa") || !strcmp(a, "--threads") ||
                          !strcmp(a, "--mem-size") || !strcmp(a, "--overlap") || !strcmp(a, "--name") ||
                          !strcmp(a, "--only"))) {
            fprintf(stderr, "%s: %s needs a value\n", prog, a);
            return 2;
        } else if (!strcmp(a, "-o")) {
            out = argv[++i];
        } else if (!strcmp(a, "--isa")) {
            isa_name = argv[++i];
        } else if (!strcmp(a, "--only")) {
            char list[256];
            snprintf(list, sizeof list, "%s", argv[++i]);
            static const struct { const char *name; int bit; } pt[] = {
                {"incore", BENCH_PART_INCORE}, {"stream", BENCH_PART_STREAM}, {"latency", BENCH_PART_LATENCY},
                {"bw", BENCH_PART_BW}, {"clock", BENCH_PART_CLOCK}};
            int named = 0; /* parts this --only names (a list of separators names none) */
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                int found = 0;
                for (size_t k = 0; k < sizeof pt / sizeof *pt; k++)
                    if (!strcmp(tok, pt[k].name)) o.parts |= pt[k].bit, found = 1, named++;
                if (!found) {
                    fprintf(stderr, "%s: --only: unknown part '%s' (incore, stream, latency, bw, clock)\n", prog, tok);
                    return 2;
                }
            }
            if (!named || strlen(argv[i]) >= sizeof list) {
                fprintf(stderr, "%s: --only: '%.300s' %s (incore, stream, latency, bw, clock)\n", prog, argv[i],
                        named ? "is longer than a list of the parts" : "names no part");
                return 2;
            }
            o.parts |= BENCH_PART_CLOCK;
        } else if (!strcmp(a, "--name")) {
            name = argv[++i];
            for (const unsigned char *c = (const unsigned char *)name; *c; c++)
                if (*c < 0x20 || *c == 0x7f) {
                    fprintf(stderr, "%s: --name: a control character (byte 0x%02X) in the name: the machine file keeps "
                            "it on one line\n", prog, *c);
                    return 2;
                }
        } else if (!strcmp(a, "--overlap")) {
            overlap = argv[++i];
        } else if (!strcmp(a, "--threads")) {
            if (!tool_parse_int(prog, a, argv[++i], 1, BENCH_MAX_CPUS, &lv)) return 2;
            o.max_threads = (int)lv;
        } else if (!strcmp(a, "--mem-size")) {
            o.mem_bytes = parse_bytes(argv[++i]);
            const double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
            char hb[32];
            if (o.mem_bytes == -1) {
                fprintf(stderr, "%s: --mem-size: '%s' is not a size (a number with k, M, G or T)\n", prog, argv[i]);
                return 2;
            }
            if (o.mem_bytes >= 0 && o.mem_bytes < (1 << 20)) {
                fprintf(stderr, "%s: --mem-size: '%s' is below 1M\n", prog, argv[i]);
                return 2;
            }
            if (o.mem_bytes == -2 || (phys > 0 && (double)o.mem_bytes > phys)) {
                fprintf(stderr, "%s: --mem-size: '%s' is more than this machine's memory%s%s%s\n", prog, argv[i],
                        phys > 0 ? " (" : "", phys > 0 ? human(hb, sizeof hb, phys) : "", phys > 0 ? ")" : "");
                return 2;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
            usage(stderr);
            return 2;
        }
    }
    if (isa_name) {
        o.isa = bench_isa_find(isa_name);
        if (!o.isa) {
            fprintf(stderr, "%s: --isa: unknown kernel set '%s' (see --help)\n", prog, isa_name);
            return 2;
        }
        if (!bench_isa_usable(o.isa)) {
            fprintf(stderr, "%s: --isa: this CPU does not support %s\n", prog, isa_name);
            return 2;
        }
    }
    int rule_forced = -1;
    if (overlap) {
        for (int k = 0; k < 3; k++)
            if (!strcmp(overlap, spmv_overlap_name((spmv_overlap)k))) rule_forced = k;
        if (rule_forced < 0) {
            fprintf(stderr, "%s: --overlap: '%s' is not none, full or a64fx-partial\n", prog, overlap);
            return 2;
        }
    }
    if (install && out) {
        fprintf(stderr, "%s: --install and -o exclude each other (--install writes to the default location; -o FILE "
                        "writes FILE)\n", prog);
        return 2;
    }
    o.latency_sweep = !o.quick;
    if (tool_env(prog)) return 1; /* before minutes of measuring: the check on the library's kernels would fail */
    char path[4096] = "";
    if (install) {
        bench_topo t;
        bench_topo_detect(&t);
        if (!bench_machine_path(&t, path, sizeof path)) {
            fprintf(stderr, "%s: --install: neither XDG_DATA_HOME nor HOME is set: use -o FILE\n", prog);
            return 2;
        }
        out = path;
    }

    /* the output before the measurement (a minute or more): its folder must exist and take a file */
    const int all_parts = BENCH_PART_CLOCK | BENCH_PART_INCORE | BENCH_PART_STREAM | BENCH_PART_LATENCY | BENCH_PART_BW;
    if (out && strcmp(out, "-") && !(o.parts && (o.parts & all_parts) != all_parts)) {
        if (install && mkdirs(out)) {
            fprintf(stderr, "%s: --install: cannot create the folder of %s: %s\n", prog, out, strerror(errno));
            return 1;
        }
        if (tool_output_check(prog, install ? "--install" : "-o", out, 0)) return 1;
    }

    static bench_results r;
    if (bench_run(&o, &r, quiet ? NULL : stderr)) return 1;
    if (o.max_threads > 0 && o.max_threads < r.topo.ncore_cpus)
        fprintf(stderr, "%s: warning: --threads %d of the %d cores of a NUMA domain: the saturated memory bandwidth "
                        "(MEM) is measured with at most %d thread%s and is likely too low for the model\n", prog,
                o.max_threads, r.topo.ncore_cpus,
                o.max_threads, o.max_threads == 1 ? "" : "s");

    static bench_fit fit;
    bench_overlap_fit(&r, rule_forced, &fit);
    static spmv_machine m;
    bench_fill_machine(&r, &fit, name, &m);
    if (!o.parts || (o.parts & BENCH_PART_INCORE))
        bench_len_branch(m.clock_ghz, &m.len_branch_miss_cy, &m.len_branch_rows_learned, &m.len_branch_rows_missed,
                         quiet ? NULL : stderr);
    static bench_check chk;
    if (rule_forced < 0 && spmv_check_on && (!o.parts || (o.parts & all_parts) == all_parts) &&
        bench_spmv_check(&r, &fit, &m, &chk, BENCH_CHECK_TRIES, quiet ? NULL : stderr))
        fprintf(stderr, "%s: warning: the SpMV check of the overlap rules could not run (out of memory, or a cache "
                        "level too small for its test matrix): the streams' rules are kept\n", prog);
    print_table(&r, &m, &fit, o.quick);
    print_check(&m, &chk);

    spmv_status st = spmv_machine_check(&m);
    if (st) {
        tool_error(prog, st);
        return 1;
    }
    int len = spmv_machine_format(&m, NULL, 0);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!text) {
        fprintf(stderr, "%s: cannot format the machine file\n", prog);
        return 1;
    }
    spmv_machine_format(&m, text, (size_t)len + 1);
    const char *hdr = header(&r, &m, &fit, &chk, rule_forced >= 0, o.max_threads, argc, argv, r.passes);

    const int all = BENCH_PART_CLOCK | BENCH_PART_INCORE | BENCH_PART_STREAM | BENCH_PART_LATENCY | BENCH_PART_BW;
    if (o.parts && (o.parts & all) != all) {
        printf("\nmachine file not written: --only measured a part of it\n");
        free(text);
        return 0;
    }
    if (!out) {
        char def[4096];
        printf("\nmachine file not written: use -o FILE, or --install for %s\n",
               bench_machine_path(&r.topo, def, sizeof def) ? def : "$XDG_DATA_HOME/spmv/machines/HOST.machine");
        free(text);
        return 0;
    }
    if (!strcmp(out, "-")) {
        printf("\n%s%s", hdr, text);
        free(text);
        return 0;
    }
    /* through a temporary file renamed over the machine file when all is written (tool_out_begin) */
    tool_outfile of;
    if (tool_out_begin(prog, install ? "--install" : "-o", out, &of)) {
        free(text);
        return 1;
    }
    fputs(hdr, of.f);
    fputs(text, of.f);
    free(text);
    if (tool_out_end(prog, install ? "--install" : "-o", &of)) return 1;
    spmv_machine back;
    st = spmv_machine_read(out, &back);
    if (st) {
        tool_error(prog, st);
        return 1;
    }
    printf("\nmachine file written: %s (read back: OK)\n", out);
    return 0;
}
