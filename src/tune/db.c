/* The tuning database: a plain-text file of recorded choices, one "choice:" block per machine, matrix and vector
 * order (format: include/spmv_tune.h, section "Tuning"). Read whole, written whole through a temporary file. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "tune.h"
#include "outfile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------- path */

/* the largest thread count a record may hold (reader and writer) */
#define SPMV_TUNE_DB_MAX_THREADS 4096

/* the default XDG location (not $SPMV_TUNE_DB): the only database whose folders spmv_tune_db_store creates */
static int default_xdg_path(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(buf, size, "%s/spmv/tuning/choices.txt", xdg);
    else if (home && *home) n = snprintf(buf, size, "%s/.local/share/spmv/tuning/choices.txt", home);
    else return 0;
    return n > 0 && (size_t)n < size;
}

spmv_status spmv_tune_db_path(char *buf, size_t size)
{
    static const char fn[] = "spmv_tune_db_path";
    if (!buf || size == 0) return spmv__error(SPMV_ERR_ARG, "%s: argument buf is NULL or empty", fn);
    const char *env = getenv("SPMV_TUNE_DB"), *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (env && *env) {
        if (!strcmp(env, "off")) return spmv__error(SPMV_ERR_IO, "%s: SPMV_TUNE_DB=off", fn);
        n = snprintf(buf, size, "%s", env);
    } else if (xdg && xdg[0] == '/') {
        n = snprintf(buf, size, "%s/spmv/tuning/choices.txt", xdg);
    } else if (home && *home) {
        n = snprintf(buf, size, "%s/.local/share/spmv/tuning/choices.txt", home);
    } else {
        buf[0] = '\0';
        return spmv__error(SPMV_ERR_IO, "%s: neither XDG_DATA_HOME nor HOME is set", fn);
    }
    if (n < 0 || (size_t)n >= size) {
        buf[0] = '\0';
        return spmv__error(SPMV_ERR_ARG, "%s: the path needs %d bytes, the buffer has %zu", fn, n, size);
    }
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- reading */

enum key {
    K_CPU, K_ISA, K_CORES, K_ROWS, K_COLS, K_NNZ, K_NZR_MIN, K_NZR_MEAN, K_NZR_MAX, K_ORDER, K_C, K_SIGMA, K_RCM,
    K_THREADS, K_GFLOPS, K_LIMIT, K_CRS, K_CONV, K_DATE, K_RUNS, K_XACCESS, K_IDX16, K_VIDX, K_NT,
    K_COUNT
};
static const char *const key_name[K_COUNT] = {
    "cpu", "isa", "cores", "rows", "cols", "nnz", "nzr min", "nzr mean", "nzr max", "order", "C", "sigma", "rcm",
    "threads", "gflops", "limit gflops", "crs gflops", "conversion", "date", "runs", "x access", "16-bit indices",
    "value indices", "non-temporal stores"};
/* required keys: up to and including K_THREADS, except order */
static int key_required(int k) { return k <= K_THREADS && k != K_ORDER; }

typedef struct parser {
    const char *path;
    int line;
    spmv_tune_record *recs;
    int32_t n, cap;
    int open;                /* a record is open */
    int open_line;           /* its "choice:" line */
    int seen[K_COUNT];
} parser;

/* "PATH:LINE: message"; a and b (text from the file) with non-printable bytes escaped (spmv__escape) */
static spmv_status perr(parser *p, const char *fmt, const char *a, const char *b)
{
    char msg[400], ea[160], eb[160];
    spmv__escape(ea, sizeof ea, a, 120);
    spmv__escape(eb, sizeof eb, b, 120);
    snprintf(msg, sizeof msg, fmt, ea, eb);
    return spmv__error(SPMV_ERR_PARSE, "%s:%d: %s", p->path, p->line, msg);
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi) return 0;
    *v = x;
    return 1;
}

static int parse_dbl(const char *s, double *v, int allow_unit_s)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    /* ERANGE: an overflow is +-Inf (rejected below); an underflow is the subnormal or zero it rounds to, a value like
     * any other (rejecting it made a stored 2.2250738585072014e-308, written as 2.22507e-308, unreadable) */
    if (end == s || (errno && errno != ERANGE) || !isfinite(x) || x < 0) return 0;
    while (*end == ' ' || *end == '\t') end++;
    if (allow_unit_s && !strcmp(end, "s")) end++;
    if (*end) return 0;
    *v = x;
    return 1;
}

static spmv_status close_record(parser *p)
{
    if (!p->open) return SPMV_OK;
    const spmv_tune_record *r = &p->recs[p->n - 1];
    char label[520]; /* the label from the file, escaped as in perr */
    spmv__escape(label, sizeof label, r->matrix, 120);
    for (int k = 0; k < K_COUNT; k++)
        if (key_required(k) && !p->seen[k])
            return spmv__error(SPMV_ERR_PARSE, "%s:%d: choice '%s': missing key '%s'", p->path, p->open_line,
                               label, key_name[k]);
    /* run columns need C <= 64 (spmv_sell_opts.runs): such a record is corrupt, not a choice to pass on (applied as
     * auto parameters it made spmv_sell_from_crs fail with an argument error the caller never made) */
    if (r->has_variant && r->runs > 0 && r->C > 64)
        return spmv__error(SPMV_ERR_PARSE, "%s:%d: choice '%s': runs %d with C = %d (run columns need C <= 64)",
                           p->path, p->open_line, label, r->runs, r->C);
    p->open = 0;
    return SPMV_OK;
}

static spmv_status parse_line(parser *p, char *line)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = '\0';
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return SPMV_OK;
    char *colon = strchr(s, ':');
    if (!colon) return perr(p, "expected 'key: value', got '%s'%s", s, "");
    char *kend = colon;
    while (kend > s && (kend[-1] == ' ' || kend[-1] == '\t')) kend--;
    *kend = '\0';
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t') v++;

    if (!strcmp(s, "choice")) {
        spmv_status st = close_record(p);
        if (st) return st;
        if (p->n == p->cap) {
            int32_t cap = p->cap ? 2 * p->cap : 16;
            spmv_tune_record *nr = spmv__malloc((size_t)cap * sizeof *nr);
            if (!nr) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %d records", p->path, cap);
            if (p->n) memcpy(nr, p->recs, (size_t)p->n * sizeof *nr);
            spmv__free(p->recs);
            p->recs = nr;
            p->cap = cap;
        }
        spmv_tune_record *r = &p->recs[p->n++];
        memset(r, 0, sizeof *r);
        snprintf(r->matrix, sizeof r->matrix, "%s", v);
        memset(p->seen, 0, sizeof p->seen);
        p->open = 1;
        p->open_line = p->line;
        return SPMV_OK;
    }
    int k;
    for (k = 0; k < K_COUNT; k++)
        if (!strcmp(s, key_name[k])) break;
    if (k == K_COUNT) return perr(p, "unknown key '%s'%s", s, "");
    if (!p->open) return perr(p, "key '%s' outside a record (a record starts with 'choice: NAME')%s", s, "");
    if (p->seen[k]) return perr(p, "duplicate key '%s'%s", s, "");
    p->seen[k] = 1;
    spmv_tune_record *r = &p->recs[p->n - 1];
    int64_t i = 0;
    double d = 0;
    switch (k) {
    case K_CPU:
        if (!*v || strlen(v) >= sizeof r->host.cpu) return perr(p, "'cpu': empty or longer than 127 characters%s%s", "", "");
        snprintf(r->host.cpu, sizeof r->host.cpu, "%s", v);
        break;
    case K_ISA: {
        int known = 0; /* a kernel family this library knows (built here or not) */
        for (int a = 0; a < spmv_arch_count() && !known; a++) known = !strcmp(v, spmv_arch_name((spmv_arch)a));
        if (!known || strlen(v) >= sizeof r->host.isa)
            return perr(p, "'isa': '%s' is not a kernel family (ref, avx512, avx2, sve)%s", v, "");
        snprintf(r->host.isa, sizeof r->host.isa, "%s", v);
        break;
    }
    case K_XACCESS:
        if (!strcmp(v, "gather")) r->xaccess = SPMV_X_GATHER;
        else if (!strcmp(v, "emul")) r->xaccess = SPMV_X_EMUL;
        else return perr(p, "'x access': '%s' is not gather or emul%s", v, "");
        break;
    case K_IDX16:
    case K_VIDX:
    case K_NT: {
        int on;
        if (!strcmp(v, "on")) on = 1;
        else if (!strcmp(v, "off")) on = 0;
        else return perr(p, "'%s': '%s' is not on or off", key_name[k], v);
        if (k == K_NT) {
            r->has_nt = 1, r->nt = on;
            break;
        }
        if (!r->has_compression) r->has_compression = 1, r->idx16 = -1, r->vidx = -1; /* the other: not recorded */
        if (k == K_IDX16) r->idx16 = on;
        else r->vidx = on;
        break;
    }
    case K_ORDER:
        if (!strcmp(v, "original")) r->permuted = 0;
        else if (!strcmp(v, "permuted")) r->permuted = 1;
        else return perr(p, "'order': '%s' is not original or permuted%s", v, "");
        break;
    case K_RCM:
        if (!strcmp(v, "on") || !strcmp(v, "1")) r->rcm = 1;
        else if (!strcmp(v, "off") || !strcmp(v, "0")) r->rcm = 0;
        else return perr(p, "'rcm': '%s' is not on or off%s", v, "");
        break;
    case K_DATE: snprintf(r->date, sizeof r->date, "%s", v); break;
    case K_NZR_MEAN:
    case K_GFLOPS:
    case K_LIMIT:
    case K_CRS:
    case K_CONV:
        if (!parse_dbl(v, &d, k == K_CONV)) return perr(p, "'%s': '%s' is not a number >= 0", key_name[k], v);
        if (k == K_NZR_MEAN) r->fp.nzr_mean = d;
        else if (k == K_GFLOPS) r->gflops = d;
        else if (k == K_LIMIT) r->limit = d;
        else if (k == K_CRS) r->crs_gflops = d;
        else r->t_convert = d;
        break;
    default: {
        int64_t lo = (k == K_CORES || k == K_C || k == K_SIGMA || k == K_THREADS) ? 1 : 0;
        /* threads: at most SPMV_TUNE_DB_MAX_THREADS; a larger value is a corrupt record, not a choice to pass on */
        int64_t hi = k == K_NNZ ? INT64_MAX : k == K_THREADS ? SPMV_TUNE_DB_MAX_THREADS : INT32_MAX;
        if (!parse_i64(v, lo, hi, &i)) {
            char range[64];
            if (k == K_THREADS) snprintf(range, sizeof range, "an integer in [1, %d]", SPMV_TUNE_DB_MAX_THREADS);
            else snprintf(range, sizeof range, "%s", lo ? "an integer >= 1" : "an integer >= 0");
            char fmt[200];
            snprintf(fmt, sizeof fmt, "'%s': '%%s' is not %s%%s", key_name[k], range);
            return perr(p, fmt, v, "");
        }
        switch (k) {
        case K_CORES: r->host.cores = (int32_t)i; break;
        case K_ROWS: r->fp.rows = (int32_t)i; break;
        case K_COLS: r->fp.cols = (int32_t)i; break;
        case K_NNZ: r->fp.nnz = i; break;
        case K_NZR_MIN: r->fp.nzr_min = (int32_t)i; break;
        case K_NZR_MAX: r->fp.nzr_max = (int32_t)i; break;
        case K_C: r->C = (int32_t)i; break;
        case K_SIGMA: r->sigma = (int32_t)i; break;
        case K_THREADS: r->nthreads = (int32_t)i; break;
        case K_RUNS: r->runs = (int32_t)i, r->has_variant = 1; break;
        }
    }
    }
    return SPMV_OK;
}

spmv_status spmv_tune_db_read(const char *path, spmv_tune_record **recs, int32_t *n)
{
    static const char fn[] = "spmv_tune_db_read";
    if (!path || !recs || !n)
        return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !path ? "path" : !recs ? "recs" : "n");
    *recs = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return SPMV_OK;
        return spmv__error(SPMV_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    parser p;
    memset(&p, 0, sizeof p);
    p.path = path;
    /* line by line; a NUL byte (not a text file) and an overlong line are errors of their own */
    char line[4096];
    spmv_status st = SPMV_OK;
    for (int c = 0; c != EOF && !st;) {
        size_t len = 0;
        int nul = 0, longer = 0;
        while ((c = getc(f)) != EOF && c != '\n') { /* stops at the first fault: a device may never end */
            if (c == '\0') nul = 1;
            if (len < sizeof line - 2) line[len++] = (char)c;
            else longer = 1;
            if (nul || longer) break;
        }
        if (c == EOF && len == 0 && !nul && !longer) break;
        line[len] = '\0';
        p.line++;
        if (nul) {
            st = spmv__error(SPMV_ERR_PARSE, "%s:%d: NUL byte at line %d: not a text file", path, p.line, p.line);
        } else if (longer) {
            st = spmv__error(SPMV_ERR_PARSE, "%s:%d: line longer than %zu characters", path, p.line,
                             sizeof line - 2);
        } else {
            st = parse_line(&p, line);
        }
    }
    if (!st && ferror(f)) st = spmv__error(SPMV_ERR_IO, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (!st) st = close_record(&p);
    if (st) {
        spmv__free(p.recs);
        return st;
    }
    *recs = p.recs;
    *n = p.n;
    return SPMV_OK;
}

void spmv_tune_db_free(spmv_tune_record *recs) { spmv__free(recs); }

static int same_host(const spmv_tune_host *a, const spmv_tune_host *b)
{
    return !strcmp(a->cpu, b->cpu) && !strcmp(a->isa, b->isa) && a->cores == b->cores;
}

static int same_fp(const spmv_tune_fingerprint *a, const spmv_tune_fingerprint *b)
{
    double s = fabs(a->nzr_mean) > 1 ? fabs(a->nzr_mean) : 1;
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz && a->nzr_min == b->nzr_min &&
           a->nzr_max == b->nzr_max && fabs(a->nzr_mean - b->nzr_mean) <= 1e-12 * s;
}

int32_t spmv__tune_record_pick(const spmv_tune_record *recs, int32_t n, const spmv_tune_host *h,
                               const spmv_tune_fingerprint *f, int permuted)
{
    int32_t best = -1;
    for (int32_t i = n - 1; i >= 0; i--) {
        if (!same_host(&recs[i].host, h) || !same_fp(&recs[i].fp, f)) continue;
        if (best < 0 || (recs[i].permuted == (permuted != 0) && recs[best].permuted != (permuted != 0))) best = i;
    }
    return best;
}

spmv_status spmv_tune_db_find(const char *path, const spmv_tune_host *h, const spmv_tune_fingerprint *f, int permuted,
                              spmv_tune_record *r, int *found)
{
    static const char fn[] = "spmv_tune_db_find";
    if (!path || !h || !f || !r || !found)
        return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn,
                           !path ? "path" : !h ? "h" : !f ? "f" : !r ? "r" : "found");
    *found = 0;
    spmv_tune_record *recs;
    int32_t n;
    spmv_status st = spmv_tune_db_read(path, &recs, &n);
    if (st) return st;
    const int32_t best = spmv__tune_record_pick(recs, n, h, f, permuted);
    if (best >= 0) {
        *r = recs[best];
        *found = 1;
    }
    spmv_tune_db_free(recs);
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- writing */

/* free text for a value: '#' (a comment) and tabs become blanks, other control bytes '?' -- not blanks, which the
 * reader trims: a cpu of control bytes alone was written as an empty value that made the file unreadable */
static void clean(char *dst, size_t size, const char *s)
{
    snprintf(dst, size, "%s", s ? s : "");
    for (char *p = dst; *p; p++)
        if (*p == '#' || *p == '\t') *p = ' ';
        else if ((unsigned char)*p < 32) *p = '?';
}

static int write_record(FILE *f, const spmv_tune_record *r)
{
    char label[sizeof r->matrix], cpu[sizeof r->host.cpu], date[sizeof r->date];
    clean(label, sizeof label, r->matrix[0] ? r->matrix : "matrix");
    clean(cpu, sizeof cpu, r->host.cpu);
    clean(date, sizeof date, r->date);
    fprintf(f, "\nchoice: %s\n", label);
    fprintf(f, "  cpu: %s\n  isa: %s\n  cores: %d\n", cpu, r->host.isa, r->host.cores);
    fprintf(f, "  rows: %d\n  cols: %d\n  nnz: %lld\n", r->fp.rows, r->fp.cols, (long long)r->fp.nnz);
    fprintf(f, "  nzr min: %d\n  nzr mean: %.17g\n  nzr max: %d\n", r->fp.nzr_min, r->fp.nzr_mean, r->fp.nzr_max);
    fprintf(f, "  order: %s\n", r->permuted ? "permuted" : "original");
    fprintf(f, "  C: %d\n  sigma: %d\n  rcm: %s\n  threads: %d\n", r->C, r->sigma, r->rcm ? "on" : "off",
            r->nthreads);
    if (r->gflops > 0) fprintf(f, "  gflops: %.6g\n", r->gflops);
    if (r->limit > 0) fprintf(f, "  limit gflops: %.6g\n", r->limit);
    if (r->crs_gflops > 0) fprintf(f, "  crs gflops: %.6g\n", r->crs_gflops);
    if (r->t_convert > 0) fprintf(f, "  conversion: %.6g s\n", r->t_convert);
    if (date[0]) fprintf(f, "  date: %s\n", date);
    if (r->has_variant) fprintf(f, "  runs: %d\n", r->runs);
    if (r->xaccess == SPMV_X_GATHER || r->xaccess == SPMV_X_EMUL)
        fprintf(f, "  x access: %s\n", r->xaccess == SPMV_X_GATHER ? "gather" : "emul");
    if (r->has_compression && r->idx16 >= 0) fprintf(f, "  16-bit indices: %s\n", r->idx16 ? "on" : "off");
    if (r->has_compression && r->vidx >= 0) fprintf(f, "  value indices: %s\n", r->vidx ? "on" : "off");
    if (r->has_nt) fprintf(f, "  non-temporal stores: %s\n", r->nt ? "on" : "off");
    return ferror(f) ? -1 : 0;
}

/* mkdir -p of the folder part of path when path is the default XDG location; any other path's folder must exist */
static spmv_status make_parents(const char *path)
{
    char buf[4096], def[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return spmv__error(SPMV_ERR_IO, "%s: path too long", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf) return SPMV_OK;
    *slash = '\0';
    if (!default_xdg_path(def, sizeof def) || strcmp(def, path)) {
        struct stat sb;
        if (stat(buf, &sb))
            return spmv__error(SPMV_ERR_IO, "%s: the folder %s does not exist or cannot be read: %s (only the default "
                               "database's folder is created)", path, buf, strerror(errno));
        if (!S_ISDIR(sb.st_mode)) return spmv__error(SPMV_ERR_IO, "%s: %s is not a folder", path, buf);
        return SPMV_OK;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST)
            return spmv__error(SPMV_ERR_IO, "%s: cannot create the folder %s: %s", path, buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return spmv__error(SPMV_ERR_IO, "%s: cannot create the folder %s: %s", path, buf, strerror(errno));
    return SPMV_OK;
}

spmv_status spmv_tune_db_store(const char *path, const spmv_tune_record *r)
{
    static const char fn[] = "spmv_tune_db_store";
    if (!path || !r) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !path ? "path" : "r");
    if (r->C < 1 || r->sigma < 1 || r->nthreads < 1 || r->nthreads > SPMV_TUNE_DB_MAX_THREADS || r->host.cores < 1 || !r->host.cpu[0] || !r->host.isa[0])
        return spmv__error(SPMV_ERR_ARG, "%s: C = %d, sigma = %d, threads = %d (<= 4096), cores = %d (>= 1), cpu '%s', isa '%s'",
                           fn, r->C, r->sigma, r->nthreads, r->host.cores, r->host.cpu, r->host.isa);
    if (!r->host.cpu[strspn(r->host.cpu, " \t#")])
        return spmv__error(SPMV_ERR_ARG, "%s: cpu '%s' is blank (it would be written as an empty value)", fn, r->host.cpu);
    if (r->has_variant && (r->runs < 0 || (r->runs > 0 && r->C > 64)))
        return spmv__error(SPMV_ERR_ARG, "%s: runs = %d with C = %d (0, or run columns with C <= 64)", fn, r->runs, r->C);
    if (r->has_compression && (r->idx16 < -1 || r->idx16 > 1 || r->vidx < -1 || r->vidx > 1))
        return spmv__error(SPMV_ERR_ARG, "%s: idx16 = %d, vidx = %d (1 on, 0 off, -1 not recorded)", fn, r->idx16,
                           r->vidx);
    if (r->has_nt && (r->nt < 0 || r->nt > 1))
        return spmv__error(SPMV_ERR_ARG, "%s: nt = %d (1 on, 0 off)", fn, r->nt);
    spmv_tune_record *recs;
    int32_t n;
    spmv_status st = spmv_tune_db_read(path, &recs, &n);
    if (st) return st;
    if ((st = make_parents(path))) {
        spmv_tune_db_free(recs);
        return st;
    }
    /* through a temporary file renamed over path on success (src/util/outfile.c) */
    spmv__outfile o;
    char msg[600];
    if (spmv__out_open(&o, path, msg, sizeof msg)) {
        spmv_tune_db_free(recs);
        return spmv__error(SPMV_ERR_IO, "%s", msg);
    }
    FILE *f = o.f;
    fprintf(f, "# spmv tuning database, format 1: the SELL-C-sigma choice per machine and matrix, written by spmv-tune\n"
               "# (spmv_tune_db_store). spmv_sell_from_crs with C = 0 or sigma = 0 uses the record matching the\n"
               "# machine (cpu, isa, cores) and the matrix (rows, cols, nnz, nzr min/mean/max). Format: include/spmv_tune.h,\n"
               "# section \"Tuning\". 'choice: NAME' opens a record; '#' starts a comment.\n");
    for (int32_t i = 0; i < n; i++) {
        if (same_host(&recs[i].host, &r->host) && same_fp(&recs[i].fp, &r->fp) && recs[i].permuted == r->permuted)
            continue; /* replaced */
        write_record(f, &recs[i]);
    }
    write_record(f, r);
    spmv_tune_db_free(recs);
    if (spmv__out_commit(&o, msg, sizeof msg)) return spmv__error(SPMV_ERR_IO, "%s", msg);
    return SPMV_OK;
}
