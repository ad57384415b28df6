/* The machine file for the tools: find it, make it with spmv-machine --quick, or estimate it (see tune_machine.h). */
#define _POSIX_C_SOURCE 200809L
#include "tune_machine.h"
#include "bench.h" /* bench_clock_once: spmv-machine's add-chain clock (src/bench) */
#include "toolutil.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/prctl.h>
#endif

int tune_machines_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(buf, size, "%s/spmv/machines", xdg);
    else if (home && *home) n = snprintf(buf, size, "%s/.local/share/spmv/machines", home);
    else return -1;
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int mkdirs(const char *dir)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

/* "AMD EPYC 7763 64-Core Processor" -> "amd-epyc-7763-64-core-processor" */
static void slug(const char *s, char *out, size_t size)
{
    size_t k = 0;
    int dash = 0;
    for (; *s && k + 1 < size; s++) {
        if (isalnum((unsigned char)*s)) {
            if (dash && k) out[k++] = '-';
            if (k + 1 < size) out[k++] = (char)tolower((unsigned char)*s);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[k] = '\0';
    if (!k) snprintf(out, size, "machine");
}

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n) return 0;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
        if (i == n) return 1;
    }
    return 0;
}

double tune_llc_bytes(const spmv_machine *m)
{
    if (!m || m->nlevels < 2) return 0;
    const spmv_machine_level *l = &m->level[m->nlevels - 2];
    long cores = (long)m->sockets * m->cores_per_socket;
    long inst = l->cores_per_group > 0 ? (cores + l->cores_per_group - 1) / l->cores_per_group : 1;
    return (double)(l->effective_size > 0 ? l->effective_size : l->size) * (double)(inst > 0 ? inst : 1);
}

double tune_ram_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), ps = sysconf(_SC_PAGESIZE);
    return pages > 0 && ps > 0 ? (double)pages * (double)ps : 0;
}

/* ------------------------------------------------------------------------------------------- spmv-machine */

static int find_exe(const char *name, char *out, size_t size)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, size, "%.4000s/%s", self, name);
            if (access(out, X_OK) == 0) return 0;
        }
    }
    const char *path = getenv("PATH");
    if (!path) return -1;
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, size, "%s/%s", *d ? d : ".", name);
        if (access(out, X_OK) == 0) return 0;
    }
    return -1;
}

/* Run EXE --quick -q -o OUT (its progress silenced, its errors on our stderr) with its table (stdout) in OUT.txt
 * (quiet: to /dev/null): a first run of the tuner then prints its own lines, not the measurement's 400; at most
 * limit seconds. Returns the exit status, or -1. */
static int run_quick(const char *exe, const char *out, double limit, int quiet, char *why, size_t wsize)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, wsize, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        char table[4500]; /* out: at most 4400 bytes */
        snprintf(table, sizeof table, "%s.txt", out);
        int fd = quiet ? open("/dev/null", O_WRONLY) : open(table, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd >= 0 ? fd : 2, 1); /* the table on stderr where its file cannot be made */
        execl(exe, "spmv-machine", "--quick", "-q", "-o", out, (char *)NULL);
        _exit(127);
    }
    double t0 = tool_now();
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0) {
            snprintf(why, wsize, "waitpid: %s", strerror(errno));
            return -1;
        }
        if (tool_now() - t0 > limit) {
            kill(pid, SIGTERM);
            struct timespec ts = {1, 0};
            nanosleep(&ts, NULL);
            if (waitpid(pid, &status, WNOHANG) != pid) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
            }
            snprintf(why, wsize, "stopped after %.0f s", limit);
            return -1;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == 127) snprintf(why, wsize, "could not be started");
        else snprintf(why, wsize, "exit status %d", WEXITSTATUS(status));
        return WEXITSTATUS(status);
    }
    snprintf(why, wsize, "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
}

/* ------------------------------------------------------------------------------------------- estimate */

static long read_long_file(const char *path, long dflt)
{
    FILE *f = fopen(path, "r");
    if (!f) return dflt;
    long v = dflt;
    if (fscanf(f, "%ld", &v) != 1) v = dflt;
    fclose(f);
    return v;
}

static int read_str_file(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int ok = fgets(out, (int)size, f) != NULL;
    fclose(f);
    if (!ok) return -1;
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

/* "32K" -> 32768 */
static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'K' || *end == 'k') v *= 1024;
    else if (*end == 'M' || *end == 'm') v *= 1024 * 1024;
    else if (*end == 'G' || *end == 'g') v *= 1024L * 1024 * 1024;
    return v;
}

/* number of CPUs in a list like "0-3,8-11" */
static int count_cpu_list(const char *s)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10);
        if (end == s) break;
        long b = a;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        n += (int)(b - a + 1);
        s = end;
        if (*s == ',') s++;
    }
    return n > 0 ? n : 1;
}

static double bw_pass(int kind, double *a, double *b, double *c, long n)
{
    double t = tool_now(), sink = 0;
    if (kind == 0) {
#pragma omp parallel for schedule(static) reduction(+ : sink)
        for (long i = 0; i < n; i += 4) sink += a[i] + a[i + 1] + a[i + 2] + a[i + 3];
    } else if (kind == 1) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i];
    } else {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + 0.5 * c[i];
    }
    t = tool_now() - t;
    if (sink == 42.4242) fprintf(stderr, " ");
    double bytes = kind == 0 ? 8.0 * n : kind == 1 ? 24.0 * n : 32.0 * n; /* write-allocate included */
    return t > 0 ? bytes / t * 1e-9 : 0;
}

/* saturated LOAD, COPY, TRIAD bandwidth in GB/s with all threads (best of 3 passes after a warm-up) */
static void measure_bw(double llc, double *load, double *copy, double *triad)
{
    double ram = tune_ram_bytes();
    double bytes = 4 * llc > 64e6 ? 4 * llc : 64e6;
    if (bytes > 512e6) bytes = 512e6; /* three arrays: a few seconds at most to touch */
    if (ram > 0 && bytes > ram / 16) bytes = ram / 16;
    long n = (long)(bytes / 8) / 64 * 64;
    if (n < 4096) n = 4096;
    double *a = NULL, *b = NULL, *c = NULL;
    if (spmv_vec_alloc(n, &a) || spmv_vec_alloc(n, &b) || spmv_vec_alloc(n, &c)) {
        *load = *copy = *triad = 0;
        spmv_vec_free(a);
        spmv_vec_free(b);
        spmv_vec_free(c);
        return;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] = c[i] = 1.0;
    double best[3] = {0, 0, 0};
    for (int kind = 0; kind < 3; kind++)
        for (int r = 0; r < 4; r++) {
            double g = bw_pass(kind, a, b, c, n);
            if (r > 0 && g > best[kind]) best[kind] = g;
        }
    *load = best[0], *copy = best[1], *triad = best[2];
    spmv_vec_free(a);
    spmv_vec_free(b);
    spmv_vec_free(c);
}

/* The effective capacity of the last-level cache as one core sees it, from a bandwidth sweep (SUM over working sets
 * from lo to hi bytes in steps of sqrt(2), the best pass of each): the capacity C that best explains the curve when a
 * working set ws gets min(C, ws)/ws of its bytes from the cache (the fit of spmv-machine, src/bench/bench_run.c).
 * About half a second. 0 when the curve shows no cache (or memory is short). */
static double sweep_llc(double lo, double hi)
{
    double ram = tune_ram_bytes();
    if (ram > 0 && hi > ram / 16) hi = ram / 16;
    if (lo < 1048576) lo = 1048576;
    if (hi < 8 * lo) return 0;
    long nmax = (long)(hi / 8);
    double *a = NULL;
    if (spmv_vec_alloc(nmax, &a)) return 0;
    for (long i = 0; i < nmax; i++) a[i] = 1.0;
    double bytes[40], gbs[40];
    int n = 0;
    volatile double sink = 0;
    for (double sz = lo; sz <= hi * 1.0001 && n < 40; sz *= sqrt(2.0)) {
        long m = (long)(sz / 8) / 8 * 8;
        double best = 0, t0 = tool_now();
        for (int pass = 0; pass < 64 && (pass < 3 || tool_now() - t0 < 0.02); pass++) {
            double t = tool_now(), s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
            for (long i = 0; i < m; i += 8) {
                s0 += a[i], s1 += a[i + 1], s2 += a[i + 2], s3 += a[i + 3];
                s4 += a[i + 4], s5 += a[i + 5], s6 += a[i + 6], s7 += a[i + 7];
            }
            t = tool_now() - t;
            sink += s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
            if (pass > 0 && t > 0 && 8.0 * m / t * 1e-9 > best) best = 8.0 * m / t * 1e-9; /* pass 0 warms up */
        }
        bytes[n] = 8.0 * m;
        gbs[n++] = best;
    }
    spmv_vec_free(a);
    if (n < 5) return 0;
    const double bm = gbs[n - 1];
    double best_err = INFINITY, bestC = 0;
    for (int c = 0; c < n - 2; c++)
        for (int h = 0; h < 2; h++) {
            double C = h ? sqrt(bytes[c] * bytes[c + 1]) : bytes[c], bc = 0;
            for (int i = 0; i < n; i++)
                if (bytes[i] <= C && gbs[i] > bc) bc = gbs[i];
            if (!(bc > bm) || !(bm > 0)) continue;
            double err = 0;
            for (int i = 0; i < n; i++) {
                double f = bytes[i] <= C ? 1.0 : C / bytes[i], pred = 1.0 / (f / bc + (1.0 - f) / bm);
                if (gbs[i] > 0) err += fabs(log(pred / gbs[i]));
            }
            if (err < best_err) best_err = err, bestC = C;
        }
    return bestC > 0 && bytes[n - 1] >= 4.0 * bestC ? bestC : 0; /* memory reached well beyond it */
}

/* the measured effective size of m's last cache level (per instance), 0 when the sweep shows none */
static int64_t measure_llc(const spmv_machine *m)
{
    if (m->nlevels < 2) return 0;
    const spmv_machine_level *l = &m->level[m->nlevels - 2];
    double lo = 1048576;
    if (m->nlevels >= 3) {
        const spmv_machine_level *u = &m->level[m->nlevels - 3];
        lo = 2.0 * (double)(u->effective_size > 0 ? u->effective_size : u->size);
    }
    double C = sweep_llc(lo, 512.0 * 1048576);
    if (!(C > 0)) return 0;
    int64_t c = (int64_t)C / 4096 * 4096;
    if (c < m->cacheline) c = m->cacheline;
    return c < l->size ? c : l->size;
}

double tune_llc_effective(const spmv_machine *m, int *measured_now)
{
    *measured_now = 0;
    if (!m || m->nlevels < 2) return 0;
    if (m->level[m->nlevels - 2].effective_size > 0) return tune_llc_bytes(m);
    /* not measured: measure it now rather than trust CPUID or sysfs (a VM reported 508 MiB) */
    int64_t c = measure_llc(m);
    if (c <= 0) return tune_llc_bytes(m);
    spmv_machine t = *m;
    t.level[t.nlevels - 2].effective_size = c;
    *measured_now = 1;
    return tune_llc_bytes(&t);
}

static int nthreads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void estimate(tune_machine *tm)
{
    spmv_machine *m = &tm->m;
    spmv_machine_init(m);
    spmv_tune_host h;
    if (spmv_tune_host_get(&h)) snprintf(h.cpu, sizeof h.cpu, "unknown"), h.cores = 1;
    snprintf(m->name, sizeof m->name, "%.80s (ESTIMATE by spmv-tune, not measured)", h.cpu);

    /* clock */
    double ghz = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "cpu MHz", 7)) {
                const char *p = strchr(line, ':');
                if (p) ghz = atof(p + 1) / 1000.0;
                break;
            }
        fclose(f);
    }
    if (!(ghz > 0)) ghz = read_long_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", 0) / 1e6;
    if (!(ghz > 0)) ghz = 2.0;
    m->clock_ghz = ghz;

    /* topology */
    int cpus = h.cores > 0 ? h.cores : 1, sockets = 0;
    long seen[256];
    for (int i = 0; i < cpus && i < 4096; i++) {
        char p[128];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
        long id = read_long_file(p, 0);
        int k;
        for (k = 0; k < sockets; k++)
            if (seen[k] == id) break;
        if (k == sockets && sockets < 256) seen[sockets++] = id;
    }
    if (sockets < 1 || cpus % sockets) sockets = 1;
    m->sockets = sockets;
    m->cores_per_socket = cpus / sockets;
    int nodes = 0;
    DIR *d = opendir("/sys/devices/system/node");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (!strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4])) nodes++;
        closedir(d);
    }
    int per_socket = nodes > sockets && nodes % sockets == 0 ? nodes / sockets : 1;
    m->cores_per_numa = m->cores_per_socket % per_socket == 0 ? m->cores_per_socket / per_socket : m->cores_per_socket;

    /* caches from sysfs */
    long line = read_long_file("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", 64);
    m->cacheline = line > 0 && (line & (line - 1)) == 0 ? (int32_t)line : 64;
    int nl = 0;
    for (int lev = 1; lev <= 4 && nl < SPMV_MACHINE_MAX_LEVELS - 1; lev++)
        for (int idx = 0; idx < 10; idx++) {
            char base[128], p[160], type[32], list[256], sz[32];
            snprintf(base, sizeof base, "/sys/devices/system/cpu/cpu0/cache/index%d", idx);
            snprintf(p, sizeof p, "%s/level", base);
            if (read_long_file(p, -1) != lev) continue;
            snprintf(p, sizeof p, "%s/type", base);
            if (read_str_file(p, type, sizeof type) || !strcmp(type, "Instruction")) continue;
            snprintf(p, sizeof p, "%s/size", base);
            if (read_str_file(p, sz, sizeof sz)) continue;
            spmv_machine_level *l = &m->level[nl];
            snprintf(l->name, sizeof l->name, "L%d", lev);
            l->size = parse_size(sz);
            snprintf(p, sizeof p, "%s/ways_of_associativity", base);
            l->ways = (int32_t)read_long_file(p, 0);
            snprintf(p, sizeof p, "%s/shared_cpu_list", base);
            l->cores_per_group = read_str_file(p, list, sizeof list) ? 1 : count_cpu_list(list);
            if (l->size >= m->cacheline) nl++;
            break;
        }
    if (nl == 0) { /* nothing in sysfs: a generic core */
        static const struct { const char *n; long size; int ways; } g[] = {{"L1", 32768, 8}, {"L2", 1 << 20, 16}};
        for (int i = 0; i < 2; i++) {
            snprintf(m->level[i].name, sizeof m->level[i].name, "%s", g[i].n);
            m->level[i].size = g[i].size;
            m->level[i].ways = g[i].ways;
            m->level[i].cores_per_group = 1;
        }
        nl = 2;
    }
    static const double up[] = {64, 32, 16, 16}; /* B/cy towards the core, generic */
    for (int i = 0; i < nl; i++) {
        m->level[i].upstream_bw = up[i < 4 ? i : 3];
        m->level[i].overlap = i == 0 ? SPMV_OVERLAP_A64FX : SPMV_OVERLAP_NONE;
    }
    spmv_machine_level *mem = &m->level[nl];
    snprintf(mem->name, sizeof mem->name, "MEM");
    mem->cores_per_group = m->cores_per_numa;
    mem->overlap = SPMV_OVERLAP_NONE;
    m->nlevels = nl + 1;

    /* in-core: generic costs for the SIMD width of the family in use */
    spmv_arch a = SPMV_ARCH_REF;
    spmv_arch_get(&a);
    int32_t w = spmv_arch_vector_doubles(a);
    m->simd_width = w > 0 ? w : 1;
    m->fma_latency = 4, m->fma_rthroughput = 0.5;
    m->add_latency = 4, m->add_rthroughput = 0.5;
    m->mul_latency = 4, m->mul_rthroughput = 0.5;
    m->load_rthroughput = 0.5, m->store_rthroughput = 1;
    m->gather_rthroughput = 0.625 * m->simd_width, m->gather_index_penalty = 0;
    m->hadd_latency = 12, m->hadd_rthroughput = 6;

    /* bandwidth: measured now, beyond the effective last-level cache (measured too: sysfs may overstate it) */
    double t = tool_now();
    int64_t eff = measure_llc(m);
    if (eff > 0) m->level[nl - 1].effective_size = eff;
    const int swept = eff > 0;
    double llc = tune_llc_bytes(m);
    measure_bw(llc, &m->bw_load, &m->bw_copy, &m->bw_triad);
    t = tool_now() - t;
    if (!(m->bw_triad > 0)) m->bw_triad = m->bw_load > 0 ? m->bw_load : 10;
    if (!(m->bw_load > 0)) m->bw_load = m->bw_triad;
    mem->upstream_bw = m->bw_triad / m->clock_ghz;
    tm->have = spmv_machine_check(m) == SPMV_OK;
    tm->estimated = 1;
    snprintf(tm->source, sizeof tm->source,
             "ESTIMATE: bandwidth measured by spmv-tune just now (%.1f s: load %.1f, copy %.1f, triad %.1f GB/s with "
             "%d threads), caches from sysfs%s, clock %.2f GHz from /proc/cpuinfo, in-core costs generic (not "
             "measured)", t, m->bw_load, m->bw_copy, m->bw_triad, nthreads(),
             swept ? " (the last level's effective size from a bandwidth sweep)" : "", m->clock_ghz);
}

/* ------------------------------------------------------------------------------------------- finding the file */

static int try_read(const char *path, spmv_machine *m)
{
    return spmv_machine_read(path, m) == SPMV_OK ? 0 : -1;
}

/* this machine's file in dir: `own` (DIR/<hostname>.machine), else the newest *.machine whose model name contains
 * the CPU model string. A file there that does not read is named with its line and reason (never skipped
 * silently); *own_bad = 1 when it is `own` (so that nothing overwrites it). */
static int find_in_dir(const char *prog, const char *dir, const char *own, const char *cpu, tune_machine *tm,
                       int *own_bad)
{
    *own_bad = 0;
    if (access(own, F_OK) == 0) {
        if (try_read(own, &tm->m) == 0) {
            snprintf(tm->path, sizeof tm->path, "%s", own);
            return 0;
        }
        *own_bad = 1;
        fprintf(stderr, "%s: this machine's file is corrupt: %s (%s)\n%s: it is not overwritten; re-measure with "
                        "`spmv-machine --install` (replaces it) or move it away\n", prog, spmv_last_error(),
                spmv_strerror(SPMV_ERR_PARSE), prog);
    }
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    time_t newest = 0;
    int found = -1;
    spmv_machine *tmp = malloc(sizeof *tmp);
    while (tmp && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 9 || strcmp(e->d_name + n - 8, ".machine")) continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) || !S_ISREG(sb.st_mode)) continue;
        if (!strcmp(p, own)) continue;
        if (try_read(p, tmp)) {
            fprintf(stderr, "%s: machine file skipped, it does not read: %s\n", prog, spmv_last_error());
            continue;
        }
        if (!contains_ci(tmp->name, cpu)) continue;
        if (found < 0 || sb.st_mtime > newest) {
            newest = sb.st_mtime;
            tm->m = *tmp;
            snprintf(tm->path, sizeof tm->path, "%s", p);
            found = 0;
        }
    }
    free(tmp);
    closedir(d);
    return found;
}

int tune_machine_get(const char *prog, const char *path, int run, double max_s, int quiet, tune_machine *tm)
{
    memset(tm, 0, sizeof *tm);
    if (path) {
        spmv_status st = spmv_machine_read(path, &tm->m);
        if (st) {
            tool_error(prog, st);
            return 1;
        }
        tm->have = 1;
        snprintf(tm->path, sizeof tm->path, "%.4300s", path);
        snprintf(tm->source, sizeof tm->source, "%s (--machine)", path);
        return 0;
    }
    spmv_tune_host h;
    if (spmv_tune_host_get(&h)) snprintf(h.cpu, sizeof h.cpu, "unknown");
    char dir[4096], own[4400], name[200];
    int havedir = tune_machines_dir(dir, sizeof dir) == 0;
    /* spmv-machine --install's name: <hostname>.machine; without a host name, the CPU model */
    char host[128] = "";
    if (gethostname(host, sizeof host - 1) || !host[0] || strchr(host, '/')) slug(h.cpu, name, sizeof name);
    else snprintf(name, sizeof name, "%s", host);
    snprintf(own, sizeof own, "%s/%s.machine", havedir ? dir : ".", name);
    int own_bad = 0;
    if (havedir && find_in_dir(prog, dir, own, h.cpu, tm, &own_bad) == 0) {
        tm->have = 1;
        snprintf(tm->source, sizeof tm->source, "%.500s (this machine's file)", tm->path);
        return 0;
    }
    char why[600] = "";
    if (own_bad) {
        /* not measured now either: spmv-machine --quick -o would replace the file the user has to look at */
    } else if (run && havedir && max_s > 0 && max_s < TUNE_QUICK_MIN_S) {
        fprintf(stderr, "%s: no machine file for this CPU ('%s') in %s, and %.0f s of --max-time are too few for "
                        "spmv-machine --quick (%.0f s or more; 10-30 s on an idle 2-core VM, more on a busy one)\n",
                prog, h.cpu, dir, max_s, TUNE_QUICK_MIN_S);
    } else if (run && havedir) {
        char exe[4096];
        if (find_exe("spmv-machine", exe, sizeof exe) == 0) {
            double limit = max_s > 0 ? (max_s / 2 < 180 ? max_s / 2 : 180) : 180;
            fprintf(stderr,
                    "%s: no machine file for this CPU ('%s') in %s: running `%s --quick -o %s` first "
                    "(measures bandwidth and in-core costs; 10-30 s, stopped after %.0f s)\n",
                    prog, h.cpu, dir, exe, own, limit);
            double t = tool_now();
            int rc = mkdirs(dir) ? -1 : run_quick(exe, own, limit, quiet, why, sizeof why);
            if (rc == 0 && try_read(own, &tm->m) == 0) {
                tm->have = 1;
                tm->measured_now = 1;
                snprintf(tm->path, sizeof tm->path, "%s", own);
                snprintf(tm->source, sizeof tm->source,
                         "%.250s (measured just now by spmv-machine --quick, %.0f s%s%.250s%s)", own, tool_now() - t,
                         quiet ? "" : "; its table: ", quiet ? "" : own, quiet ? "" : ".txt");
                return 0;
            }
            if (rc == 0) snprintf(why, sizeof why, "it exited normally but %.100s is missing or does not parse (%.150s)",
                                  own, access(own, F_OK) ? "not written" : spmv_last_error());
            fprintf(stderr, "%s: spmv-machine --quick gave no usable machine file: %s\n", prog, why);
        } else {
            snprintf(why, sizeof why, "spmv-machine is neither next to %s nor on PATH", prog);
            fprintf(stderr, "%s: no machine file for this CPU ('%s') in %s and %s\n", prog, h.cpu, dir, why);
        }
    } else if (!havedir) {
        fprintf(stderr, "%s: neither XDG_DATA_HOME nor HOME is set: no machine file can be found\n", prog);
    }
    fprintf(stderr, "%s: using an ESTIMATE of the machine instead (bandwidth and the effective last-level cache "
                    "measured now, about a second; generic in-core costs); `spmv-machine --install` once makes a real "
                    "machine file\n", prog);
    estimate(tm);
    return 0;
}

double tune_memory_latency_now(void)
{
    static void *buf, *at;
    if (!buf) {
        if (!(buf = bench_alloc(TUNE_LATENCY_BYTES))) return 0.0;
        if (bench_chase_init(buf, TUNE_LATENCY_BYTES, 64, 0x5eed1a7) < 1) {
            bench_free(buf);
            buf = NULL;
            return 0.0;
        }
        at = bench_chase_run(buf, 1 << 14); /* warm the TLB and the page tables */
    }
    double ns[3];
    const int64_t steps = 1 << 16;
    for (int w = 0; w < 3; w++) {
        const double t0 = bench_now();
        at = bench_chase_run(at, steps);
        ns[w] = (bench_now() - t0) / (double)steps * 1e9;
    }
    const double med = bench_median(ns, 3); /* the median of the three windows */
    return at && med > 0 && isfinite(med) ? med : 0.0;
}

/* tune_read_bandwidth_now's buffer (rb_n doubles, for rb_asked bytes), kept between calls */
static double *rb_buf;
static int64_t rb_n, rb_asked;

void tune_read_bandwidth_release(void)
{
    bench_free(rb_buf);
    rb_buf = NULL;
}

double tune_read_bandwidth_now(int t, int64_t bytes, int64_t *read)
{
    static int64_t q;
    static bench_stream_fn sum;
    if (read) *read = 0;
    if (bytes <= 0) bytes = (int64_t)TUNE_BANDWIDTH_BYTES;
    if (rb_buf && bytes != rb_asked) tune_read_bandwidth_release(); /* another size: a new buffer */
    if (!rb_buf) {
        const bench_isa *isa = bench_isa_best();
        const int w = isa->width();
        sum = isa->stream[BK_SUM][3]; /* spmv-machine's read-only stream, 8 accumulators */
        q = 16 * (int64_t)(w > 0 ? w : 1);
        double b = (double)bytes, ram = tune_ram_bytes();
        if (ram > 0 && b > ram / 4) b = ram / 4; /* spmv-machine's cap */
        rb_n = (int64_t)(b / 8) / (q * SPMV_MAX_THREADS) * (q * SPMV_MAX_THREADS);
        rb_asked = bytes;
        if (!sum || rb_n < q * SPMV_MAX_THREADS || !(rb_buf = bench_alloc((size_t)rb_n * 8))) {
            rb_buf = NULL;
            return 0.0;
        }
        for (int64_t i = 0; i < rb_n; i++) rb_buf[i] = 1.0;
    }
    double *const buf = rb_buf;
    const int64_t n = rb_n;
    int nt = t < 1 ? 1 : t > SPMV_MAX_THREADS ? SPMV_MAX_THREADS : t, got = 1;
    const int64_t chunk = n / nt / q * q;
    double gbs[3] = {0, 0, 0}, t0 = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
    {
#ifdef _OPENMP
        const int me = omp_get_thread_num();
#pragma omp single
        got = omp_get_num_threads();
#else
        const int me = 0;
#endif
        bench_stream_args a;
        memset(&a, 0, sizeof a);
        a.n = chunk;
        a.a = buf + me * chunk;
        for (int w = -1; w < 3; w++) { /* a sweep to warm the TLB, then 3 timed */
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
            t0 = bench_now();
            volatile double sink = sum(&a, 1);
            (void)sink;
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
            if (w >= 0) {
                const double dt = bench_now() - t0;
                gbs[w] = dt > 0 ? 8.0 * (double)chunk * (double)got / dt * 1e-9 : 0.0;
            }
        }
    }
    if (got != nt || !(fmin(gbs[0], fmin(gbs[1], gbs[2])) > 0)) return 0.0;
    const double med = bench_median(gbs, 3);
    if (!isfinite(med)) return 0.0;
    if (read) *read = 8 * chunk * nt;
    return med;
}

/* The core clock now on t threads, GHz: each thread the best of 5 windows of spmv-machine's add chain (about 0.5 ms
 * each), the slowest thread's (at a barrier the team waits for it). 0 where it cannot be measured. */
double tune_clock_now(int t)
{
    double c[SPMV_MAX_THREADS];
    int n = t < 1 ? 1 : t > SPMV_MAX_THREADS ? SPMV_MAX_THREADS : t;
#ifdef _OPENMP
#pragma omp parallel num_threads(n)
#endif
    {
#ifdef _OPENMP
        const int me = omp_get_thread_num();
        if (me == 0) n = omp_get_num_threads(); /* the team it got */
#else
        const int me = 0;
        n = 1;
#endif
        double best = 0;
        for (int w = 0; w < 5; w++) {
            const double g = bench_clock_once(2000000, NULL);
            if (g > best && isfinite(g)) best = g;
        }
        c[me] = best;
    }
    double lo = c[0];
    for (int i = 1; i < n; i++)
        if (c[i] < lo) lo = c[i];
    return lo > 0 ? lo : 0.0;
}

int tune_machine_at_run_clock(tune_machine *tm, int threads, char *line, size_t size)
{
    tm->own_clock_ghz = tm->m.clock_ghz;
    const char *whose = tm->estimated ? "the estimate's" : "the machine file's";
    const double ghz = tm->have ? tune_clock_now(threads) : 0.0;
    if (ghz > 0 && spmv_machine_at_clock(&tm->m, ghz) == SPMV_OK) {
        snprintf(line, size, "%.2f GHz measured now on %d thread%s (%s %.2f GHz): the model at the clock now", ghz,
                 threads, threads == 1 ? "" : "s", whose, tm->own_clock_ghz);
        return 1;
    }
    snprintf(line, size, "%s %.2f GHz (not measured now)", whose, tm->own_clock_ghz);
    return 0;
}

int tune_machine_at_run_bandwidth(tune_machine *tm, int threads, char *line, size_t size)
{
    if (!tm->have) {
        snprintf(line, size, "not measured now (no machine model)");
        return 0;
    }
    tm->own_bw_load = tm->m.bw_load;
    if (tm->estimated || tm->measured_now) {
        snprintf(line, size, "%s, measured just now", tm->estimated ? "the estimate's" : "the machine file's");
        return 0;
    }
    /* the factor's reference first: a thread count the machine has no figure for is refused before a GiB is read */
    spmv_machine probe = tm->m;
    if (spmv_machine_at_read_bandwidth(&probe, threads, 1.0) != SPMV_OK) {
        snprintf(line, size, "not measured now on %d thread%s: the model keeps the machine file's memory (%s)", threads,
                 threads == 1 ? "" : "s", spmv_last_error());
        return 0;
    }
    const double ref = threads <= tm->m.bw_points ? tm->m.bw_load_n[threads - 1] : tm->m.bw_load;
    int64_t bytes = 0;
    const double gbs = tune_read_bandwidth_now(threads, tm->m.bw_bytes, &bytes);
    tune_read_bandwidth_release(); /* a GiB the search's matrices need more */
    if (!(gbs > 0) || spmv_machine_at_read_bandwidth(&tm->m, threads, gbs) != SPMV_OK) {
        snprintf(line, size, "the machine file's %.1f GB/s on %d thread%s (not measured now: no memory or no kernel "
                 "for the read stream, or OpenMP gave fewer threads)", ref, threads, threads == 1 ? "" : "s");
        return 0;
    }
    tm->read_now_gbs = gbs;
    snprintf(line, size, "%.1f GB/s read now on %d thread%s over %lld MiB (the machine file's %.1f GB/s): the model's "
             "memory at this bandwidth", gbs, threads, threads == 1 ? "" : "s", (long long)(bytes >> 20), ref);
    return 1;
}
