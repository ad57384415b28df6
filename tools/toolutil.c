#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC */
#include "toolutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int tool_parse_int(const char *prog, const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "%s: %s: '%s' is not an integer in %ld..%ld\n", prog, opt, s ? s : "", lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

int tool_parse_int_list(const char *prog, const char *opt, const char *s, const char *sep, long lo, long hi,
                        long *out, int max)
{
    if (!s || !*s) {
        fprintf(stderr, "%s: %s: empty list\n", prog, opt);
        return -1;
    }
    int n = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, sep);
        if (len == 0) {
            fprintf(stderr, "%s: %s: empty item in '%s'\n", prog, opt, s);
            return -1;
        }
        if (n == max) {
            fprintf(stderr, "%s: %s: more than %d items in '%s'\n", prog, opt, max, s);
            return -1;
        }
        char item[64];
        if (len >= sizeof item) {
            fprintf(stderr, "%s: %s: item '%.20s...' in '%s' is not an integer in %ld..%ld\n", prog, opt, p, s, lo, hi);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *end;
        errno = 0;
        long v = strtol(item, &end, 10);
        if (*end || errno || v < lo || v > hi) {
            fprintf(stderr, "%s: %s: item '%s' in '%s' is not an integer in %ld..%ld\n", prog, opt, item, s, lo, hi);
            return -1;
        }
        out[n++] = v;
        if (!p[len]) break;
        p += len + 1;
    }
    return n;
}

int tool_parse_hpcg(const char *prog, const char *opt, const char *s, long n[3])
{
    long v[3];
    int k = tool_parse_int_list(prog, opt, s, ",x", 1, 1 << 20, v, 3);
    if (k < 0) return 1;
    if (k == 2) {
        fprintf(stderr, "%s: %s: give NX or NX,NY,NZ (got '%s')\n", prog, opt, s);
        return 1;
    }
    n[0] = v[0];
    n[1] = k == 3 ? v[1] : v[0];
    n[2] = k == 3 ? v[2] : v[0];
    return 0;
}

void tool_error(const char *prog, spmv_status st)
{
    fprintf(stderr, "%s: %s (%s)\n", prog, spmv_last_error(), spmv_strerror(st));
}

spmv_status tool_load(const char *prog, const char *spec, spmv_crs **A, const char **name)
{
    static char label[256];
    spmv_status st;
    if (strncmp(spec, "hpcg:", 5) == 0) {
        long n[3];
        if (tool_parse_hpcg(prog, "--hpcg", spec + 5, n)) return SPMV_ERR_ARG;
        snprintf(label, sizeof label, "HPCG %ldx%ldx%ld", n[0], n[1], n[2]);
        st = spmv_gen_hpcg((int32_t)n[0], (int32_t)n[1], (int32_t)n[2], A);
    } else {
        const char *base = strrchr(spec, '/');
        snprintf(label, sizeof label, "%s", base ? base + 1 : spec);
        st = spmv_crs_read_mm(spec, A);
    }
    if (st) tool_error(prog, st);
    if (name) *name = label;
    return st;
}

double tool_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static long tool_threads(const char *prog, long threads)
{
#ifdef _OPENMP
    if (threads > 0) {
        omp_set_num_threads((int)threads);
        return threads;
    }
    const int n = omp_get_max_threads();
    const char *e = getenv("OMP_NUM_THREADS");
    if (n > SPMV_MAX_THREADS || n < 1) {
        fprintf(stderr, "%s: OMP_NUM_THREADS=%s: %d threads, the most is %d (SPMV_MAX_THREADS); set it lower or give "
                "the threads with -t where the tool has it\n", prog, e ? e : "(unset)", n, SPMV_MAX_THREADS);
        return -1;
    }
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && n > cpus)
        fprintf(stderr, "%s: warning: OMP_NUM_THREADS=%s: %d threads on %ld CPUs: every multiply runs oversubscribed "
                "(slow, and a tuner's search at that count uses up its time)\n", prog, e ? e : "(unset)", n, cpus);
    return n;
#else
    (void)prog;
    (void)threads;
    return 1;
#endif
}

int tool_env(const char *prog)
{
    spmv_arch a;
    const spmv_status st = spmv_arch_get(&a);
    if (st) tool_error(prog, st);
    return st ? -1 : 0;
}

int tool_start(const char *prog, long *threads)
{
    const long t = tool_threads(prog, threads ? *threads : 0);
    if (t < 0) return 2;
    if (threads) *threads = t;
    return tool_env(prog) ? 1 : 0;
}

double tool_check(const spmv_crs *A, const double *x, const double *y)
{
    double worst = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        double s = 0, a = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            s += A->val[k] * x[A->col[k]];
            a += fabs(A->val[k] * x[A->col[k]]);
        }
        if (!isfinite(s) || !isfinite(y[i])) {
            if (!(isnan(s) && isnan(y[i])) && s != y[i]) return INFINITY;
            continue;
        }
        double e = fabs(y[i] - s);
        if (e > 0) {
            double rel = a > 0 ? e / a : INFINITY;
            if (rel > worst) worst = rel;
        }
    }
    return worst;
}

int tool_data_dir(const char *sub, char *buf, size_t size)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) return snprintf(buf, size, "%s/spmv/%s", xdg, sub) < (int)size;
    if (home && *home) return snprintf(buf, size, "%s/.local/share/spmv/%s", home, sub) < (int)size;
    return 0;
}

int tool_find_machine(const char *explicit_path, char *buf, size_t size)
{
    if (explicit_path) return snprintf(buf, size, "%s", explicit_path) < (int)size;
    char dir[4096];
    if (!tool_data_dir("machines", dir, sizeof dir)) return 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    time_t newest = 0;
    int found = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 9 || strcmp(e->d_name + n - 8, ".machine")) continue;
        char p[4352];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (!found || st.st_mtime > newest)) {
            newest = st.st_mtime;
            found = snprintf(buf, size, "%s", p) < (int)size;
        }
    }
    closedir(d);
    return found;
}

void tool_mv(const spmv_crs *A, const spmv_sell *S, const double *x, double *y)
{
    if (S) spmv_sell_mv(S, 1.0, x, 0.0, y);
    else spmv_crs_mv(A, 1.0, x, 0.0, y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tool_time(const spmv_crs *A, const spmv_sell *S, const double *x, double *y, double run_time, int runs,
                 double *tmin, double *tmax)
{
    double ts[64];
    if (runs < 1) runs = 1;
    if (runs > 64) runs = 64;
    tool_mv(A, S, x, y); /* warm-up */
    for (int k = 0; k < runs; k++) {
        long n = 0, b = 1;
        const double t0 = tool_now();
        double el;
        for (;;) {
            for (long i = 0; i < b; i++) tool_mv(A, S, x, y);
            n += b;
            el = tool_now() - t0;
            if (el >= run_time) break;
            if (el < run_time / 50 && b < (1L << 24)) b *= 2;
        }
        ts[k] = el / (double)n;
    }
    qsort(ts, (size_t)runs, sizeof *ts, cmp_double);
    if (tmin) *tmin = ts[0];
    if (tmax) *tmax = ts[runs - 1];
    return runs % 2 ? ts[runs / 2] : 0.5 * (ts[runs / 2 - 1] + ts[runs / 2]);
}

int tool_parse_seconds(const char *prog, const char *opt, const char *s, double lo, double hi, int lo_ok,
                       double *out)
{
    char *end;
    double x = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || !((lo_ok ? x >= lo : x > lo) && x <= hi)) {
        fprintf(stderr, "%s: %s: '%s' is not a number of seconds in %s%g, %g]\n", prog, opt, s ? s : "",
                lo_ok ? "[" : "(", lo, hi);
        return 0;
    }
    *out = x;
    return 1;
}

int tool_matrix_arg(const char *prog, int argc, char **argv, int *i, char *buf, size_t size, const char **spec)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--hpcg") && *i + 1 < argc) {
        long n[3];
        if (tool_parse_hpcg(prog, "--hpcg", argv[*i + 1], n)) return -1; /* an argument error, checked now */
        snprintf(buf, size, "hpcg:%s", argv[++*i]);
        *spec = buf;
        return 1;
    }
    if (a[0] == '-' && a[1]) return 0;
    if (*spec) {
        fprintf(stderr, "%s: more than one matrix given ('%s' and '%s')\n", prog, *spec, a);
        return -1;
    }
    *spec = a;
    return 1;
}

int tool_sell_arg(const char *prog, int argc, char **argv, int *i, long *long_rows, double *max_stored)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (long_rows && !strcmp(a, "--long-rows")) {
        if (!v || !tool_parse_int(prog, a, v, -1, INT32_MAX, long_rows)) return -1;
    } else if (max_stored && !strcmp(a, "--max-stored")) {
        char *end;
        double f = v ? strtod(v, &end) : -1;
        if (!v || !*v || *end || !(f >= 0 && f <= 1e9)) {
            fprintf(stderr, "%s: %s: '%s' is not a factor in [0, 1e9] (0: no limit)\n", prog, a, v ? v : "");
            return -1;
        }
        *max_stored = f;
    } else {
        return 0;
    }
    ++*i;
    return 1;
}

int tool_out_begin(const char *prog, const char *opt, const char *path, tool_outfile *o)
{
    char msg[1200];
    if (tool_out_open(o, path, msg, sizeof msg) == 0) return 0;
    fprintf(stderr, "%s: %s%s%s\n", prog, opt ? opt : "", opt ? ": " : "", msg);
    return 1;
}

int tool_out_end(const char *prog, const char *opt, tool_outfile *o)
{
    char msg[1200];
    if (tool_out_commit(o, msg, sizeof msg) == 0) return 0;
    fprintf(stderr, "%s: %s%s%s\n", prog, opt ? opt : "", opt ? ": " : "", msg);
    return 1;
}

int tool_output_check(const char *prog, const char *opt, const char *path, int dir)
{
    char msg[1200];
    if (!path || !*path) {
        fprintf(stderr, "%s: %s: empty path\n", prog, opt);
        return 1;
    }
    if (dir) {
        struct stat sb;
        if (mkdir(path, 0777) && errno != EEXIST) {
            fprintf(stderr, "%s: %s: cannot create the folder %s: %s\n", prog, opt, path, strerror(errno));
            return 1;
        }
        if (stat(path, &sb) || !S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "%s: %s: %s is not a folder\n", prog, opt, path);
            return 1;
        }
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/.spmv-probe", path);
        if (tool_out_check(probe, msg, sizeof msg) == 0) return 0;
        fprintf(stderr, "%s: %s: cannot write in the folder %s: %s\n", prog, opt, path,
                strchr(msg, ':') ? strchr(msg, ':') + 2 : msg);
        return 1;
    }
    if (tool_out_check(path, msg, sizeof msg) == 0) return 0;
    fprintf(stderr, "%s: %s: %s\n", prog, opt, msg);
    return 1;
}
