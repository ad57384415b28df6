/* Tuning parameters: the machine's identity, matrix fingerprints, the C and sigma lists the tuner sweeps, stored
 * entries without a build, the model-based defaults ("auto" C and sigma), break-even and the pruning rule.
 *
 * Model references: Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014 (SELL-C-sigma, beta, sigma-sorting);
 * Alappat et al., PMBS 2020 (shared/reference/a64fx-spmv-ecm-paper.txt), Sect. IV (accumulators and FMA latency,
 * code balance, roofline). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "kernel.h"
#include "tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int spmv__tune_verbose(void)
{
    const char *v = getenv("SPMV_VERBOSE");
    return v && *v && *v != '0';
}

/* ---------------------------------------------------------------------------------------------- host, fingerprint */

static void trim_copy(char *dst, size_t size, const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strcspn(s, "\r\n");
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n >= size) n = size - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    for (char *p = dst; *p; p++)
        if (*p == '#' || (unsigned char)*p < 32) *p = ' '; /* '#' starts a comment in the database */
}

/* The value of "key<blanks>: value" lines of /proc/cpuinfo (first occurrence). */
static int cpuinfo_value(const char *key, char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[1024];
    size_t kl = strlen(key);
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0) continue;
        const char *p = line + kl;
        while (*p == ' ' || *p == '\t') p++;
        if (*p != ':') continue;
        trim_copy(out, size, p + 1);
        found = out[0] != '\0';
        break;
    }
    fclose(f);
    return found;
}

spmv_status spmv_tune_host_get(spmv_tune_host *h)
{
    if (!h) return spmv__error(SPMV_ERR_ARG, "spmv_tune_host_get: argument h is NULL");
    spmv_arch a;
    spmv_status st = spmv_arch_get(&a);
    if (st) return st;
    spmv_tune_host r;
    memset(&r, 0, sizeof r);
    char impl[64], part[64];
    if (cpuinfo_value("model name", r.cpu, sizeof r.cpu)) {
    } else if (cpuinfo_value("CPU implementer", impl, sizeof impl) && cpuinfo_value("CPU part", part, sizeof part)) {
        snprintf(r.cpu, sizeof r.cpu, "implementer %.40s part %.40s", impl, part);
    } else {
        snprintf(r.cpu, sizeof r.cpu, "unknown");
    }
    snprintf(r.isa, sizeof r.isa, "%s", spmv_arch_name(a));
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    r.cores = n > 0 && n < INT32_MAX ? (int32_t)n : 1;
    *h = r;
    return SPMV_OK;
}

spmv_status spmv_tune_fingerprint_get(const spmv_crs *A, spmv_tune_fingerprint *f)
{
    if (!A || !f)
        return spmv__error(SPMV_ERR_ARG, "spmv_tune_fingerprint_get: argument %s is NULL", !A ? "A" : "f");
    spmv_tune_fingerprint r;
    memset(&r, 0, sizeof r);
    r.rows = A->rows;
    r.cols = A->cols;
    r.nnz = A->nnz;
    if (A->rows > 0 && A->rowptr) {
        int64_t mn = INT64_MAX, mx = 0;
        for (int32_t i = 0; i < A->rows; i++) {
            int64_t l = A->rowptr[i + 1] - A->rowptr[i];
            if (l < mn) mn = l;
            if (l > mx) mx = l;
        }
        r.nzr_min = (int32_t)mn;
        r.nzr_max = (int32_t)mx;
        r.nzr_mean = (double)A->nnz / (double)A->rows;
    }
    *f = r;
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- C and sigma lists */

/* 1 if a kernel of family a other than the reference handles SELL matrices of chunk height C (asked through the
 * kernel's accepts() on a stand-in matrix with aligned arrays, original order, or its C). */
static int family_has_C(spmv_arch a, int32_t C)
{
    static _Alignas(64) double val[8];
    static _Alignas(64) int32_t col[16];
    const spmv_family *f = spmv__family(a);
    if (!f || a == SPMV_ARCH_REF) return 0;
    int64_t chunkptr[1] = {0};
    spmv_sell S;
    memset(&S, 0, sizeof S);
    S.C = C;
    S.sigma = 1;
    S.unroll = 1;
    S.val = val;
    S.col = col;
    S.chunkptr = chunkptr;
    for (const spmv_kernel *const *p = f->kernels; p && *p; p++) {
        const spmv_kernel *k = *p;
        if (!k->sell || k->arch == SPMV_ARCH_REF) continue;
        if (k->accepts ? k->accepts(&S) : k->shape.C == C) return 1;
    }
    return 0;
}

/* The fast C values of family a (ascending powers of two), see spmv_tune_chunk_heights. Returns the count. */
static int32_t fast_heights(spmv_arch a, int32_t *out, int32_t cap)
{
    int32_t n = 0, w = 0;
    for (int32_t C = 1; C <= 1024; C *= 2) {
        if (!family_has_C(a, C)) continue;
        if (!w) w = C;
        int32_t top = 8 * w > 64 ? 8 * w : 64;
        if (C > top) break;
        if (n < cap) out[n] = C;
        n++;
    }
    return n;
}

spmv_status spmv_tune_chunk_heights(int32_t *C, int32_t cap, int32_t *n, int *fast)
{
    if (!C || !n || !fast)
        return spmv__error(SPMV_ERR_ARG, "spmv_tune_chunk_heights: argument %s is NULL", !C ? "C" : !n ? "n" : "fast");
    if (cap < 1) return spmv__error(SPMV_ERR_ARG, "spmv_tune_chunk_heights: cap %d < 1", cap);
    spmv_arch a;
    spmv_status st = spmv_arch_get(&a);
    if (st) return st;
    int32_t tmp[16];
    int32_t k = fast_heights(a, tmp, 16);
    if (k > 16) k = 16;
    if (k == 0) {
        static const int32_t ref[] = {4, 8, 16, 32};
        memcpy(tmp, ref, sizeof ref);
        k = 4;
        *fast = 0;
    } else {
        *fast = 1;
    }
    if (k > cap) k = cap;
    memcpy(C, tmp, (size_t)k * sizeof *C);
    *n = k;
    return SPMV_OK;
}

spmv_status spmv_tune_sigma_list(int32_t C, int32_t rows, int32_t *sigma, int32_t cap, int32_t *n)
{
    static const char fn[] = "spmv_tune_sigma_list";
    if (!sigma || !n) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !sigma ? "sigma" : "n");
    if (C < 1 || rows < 1) return spmv__error(SPMV_ERR_ARG, "%s: C = %d and rows = %d must be >= 1", fn, C, rows);
    int32_t tmp[40];
    int32_t k = 0;
    tmp[k++] = 1;
    for (int64_t s = C; s < rows; s *= 4) {
        if (s > tmp[k - 1]) tmp[k++] = (int32_t)s;
    }
    if (rows > tmp[k - 1]) tmp[k++] = rows;
    if (k > cap) return spmv__error(SPMV_ERR_ARG, "%s: %d entries needed, room for %d", fn, k, cap);
    memcpy(sigma, tmp, (size_t)k * sizeof *sigma);
    *n = k;
    return SPMV_OK;
}

static int cmp_desc_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x < y) - (x > y);
}

/* Row lengths of the chunks in the order spmv_sell_from_crs stores them: rows taken in `order`, those marked for
 * the CRS part left out, sorted by descending length in windows of sigma rows; returns their number. hist: maxlen+1
 * ints of workspace. */
static int32_t sorted_lengths(const spmv_crs *A, int32_t sigma, const int32_t *order, const uint8_t *mark,
                              int32_t maxlen, int32_t *hist, int32_t *len)
{
    int32_t rows = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t r = order ? order[i] : i;
        if (!mark[r]) len[rows++] = (int32_t)(A->rowptr[r + 1] - A->rowptr[r]);
    }
    if (sigma <= 1) return rows;
    for (int64_t w0 = 0; w0 < rows; w0 += sigma) {
        int64_t w1 = w0 + sigma < rows ? w0 + sigma : rows, w = w1 - w0;
        if (w <= 1) continue;
        if ((int64_t)maxlen + 1 <= 4 * w) { /* counting sort: O(w + maxlen) */
            memset(hist, 0, ((size_t)maxlen + 1) * sizeof *hist);
            for (int64_t i = w0; i < w1; i++) hist[len[i]]++;
            int64_t p = w0;
            for (int32_t v = maxlen; v >= 0; v--)
                for (int32_t c = hist[v]; c > 0; c--) len[p++] = v;
        } else {
            qsort(len + w0, (size_t)w, sizeof *len, cmp_desc_i32);
        }
    }
    return rows;
}

static int64_t stored_from_lengths(const int32_t *len, int32_t rows, int32_t C, int32_t unroll)
{
    int64_t stored = 0;
    for (int64_t r0 = 0; r0 < rows; r0 += C) {
        int64_t r1 = r0 + C < rows ? r0 + C : rows, m = 0;
        for (int64_t i = r0; i < r1; i++)
            if (len[i] > m) m = len[i];
        m = (m + unroll - 1) / unroll * unroll;
        stored += m * C;
    }
    return stored;
}

/* Stored entries for several sigma values at once (one workspace), the CRS part of the default long-row rule
 * (spmv_sell_opts.long_rows = -1) included. */
static spmv_status stored_many(const spmv_crs *A, int32_t C, const int32_t *sig, int32_t ns, int32_t unroll,
                               const int32_t *order, int64_t *stored, const char *fn)
{
    const int32_t rows = A->rows;
    if (rows == 0) {
        for (int32_t k = 0; k < ns; k++) stored[k] = 0;
        return SPMV_OK;
    }
    int32_t maxlen = 0;
    for (int32_t i = 0; i < rows; i++) {
        int64_t l = A->rowptr[i + 1] - A->rowptr[i];
        if (l > maxlen) maxlen = (int32_t)l;
    }
    int32_t *len = spmv__malloc((size_t)rows * sizeof *len);
    int32_t *hist = spmv__malloc(((size_t)maxlen + 1) * sizeof *hist);
    uint8_t *mark = spmv__malloc((size_t)rows);
    if (!len || !hist || !mark) {
        spmv__free(len);
        spmv__free(hist);
        spmv__free(mark);
        return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %d row lengths", fn, rows);
    }
    int32_t thr = 0, nlong = 0;
    spmv_status st = spmv__sell_long_rows(A, -1, C, order, mark, &thr, &nlong);
    int64_t longnnz = 0;
    for (int32_t i = 0; i < rows && !st; i++)
        if (mark[i]) longnnz += A->rowptr[i + 1] - A->rowptr[i];
    for (int32_t k = 0; k < ns && !st; k++) {
        int32_t n = sorted_lengths(A, sig[k] < rows ? sig[k] : rows, order, mark, maxlen, hist, len);
        stored[k] = stored_from_lengths(len, n, C, unroll) + longnnz;
    }
    spmv__free(len);
    spmv__free(hist);
    spmv__free(mark);
    return st;
}

static spmv_status check_crs_arg(const spmv_crs *A, const char *fn)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    if (A->rows < 0 || (A->rows > 0 && !A->rowptr))
        return spmv__error(SPMV_ERR_ARG, "%s: A has %d rows and rowptr %p", fn, A->rows, (void *)A->rowptr);
    return SPMV_OK;
}

spmv_status spmv_tune_stored(const spmv_crs *A, int32_t C, int32_t sigma, int32_t unroll, const int32_t *order,
                             int64_t *stored)
{
    static const char fn[] = "spmv_tune_stored";
    spmv_status st = check_crs_arg(A, fn);
    if (st) return st;
    if (!stored) return spmv__error(SPMV_ERR_ARG, "%s: argument stored is NULL", fn);
    if (C < 1 || sigma < 1 || unroll < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: C = %d, sigma = %d, unroll = %d must be >= 1", fn, C, sigma, unroll);
    return stored_many(A, C, &sigma, 1, unroll, order, stored, fn);
}

/* ---------------------------------------------------------------------------------------------- model defaults */

typedef struct cdefault {
    int32_t C;        /* the default */
    int32_t w;        /* doubles per vector register */
    int32_t mve;      /* accumulator sets */
    int32_t acc;      /* accumulator registers needed, a */
    double lat, tvec; /* FMA latency, in-core cycles per vector of entries */
    int from_machine;
    spmv_arch arch;
} cdefault;

static spmv_status default_C(const spmv_machine *m, cdefault *d)
{
    spmv_arch a;
    spmv_status st = spmv_arch_get(&a);
    if (st) return st;
    int32_t fast[16];
    int32_t nf = fast_heights(a, fast, 16);
    if (nf > 16) nf = 16;
    const spmv_family *f = spmv__family(a);
    cdefault r;
    memset(&r, 0, sizeof r);
    r.arch = a;
    r.from_machine = m != NULL;
    /* the shape of the family's kernel for its smallest fast C, in the x access this CPU gets by default */
    const spmv_xaccess x = nf > 0 ? spmv__sell_xaccess(SPMV_X_AUTO) : SPMV_X_SCALAR;
    const spmv_kernel *k = nf > 0 ? spmv__sell_kernel_for(fast[0], x) : NULL;
    spmv_kernel_shape sh = spmv__kernel_shape(k ? k : &spmv__k_sell_ref, nf > 0 ? fast[0] : 1);
    r.w = sh.width;
    r.mve = sh.mve;
    r.lat = f && f->fma_latency > 0 ? f->fma_latency : 4;
    /* in-core cycles per vector of entries: the gather (index load included), or width scalar index and x loads,
     * plus the value load */
    r.tvec = sh.x == SPMV_X_GATHER ? (f && f->gather_cost > 0 ? f->gather_cost : 5.0) + 0.5
             : sh.x == SPMV_X_EMUL ? 2 * 0.5 * r.w + 0.5
                                   : 3 * 0.5;
    if (m) {
        if (m->fma_latency > 0) r.lat = m->fma_latency;
        double t = sh.x == SPMV_X_GATHER ? m->gather_rthroughput + m->gather_index_penalty + m->load_rthroughput
                   : sh.x == SPMV_X_EMUL ? (2.0 * r.w + 1) * m->load_rthroughput
                                         : 3 * m->load_rthroughput;
        if (t > 0) r.tvec = t;
        if (m->fma_rthroughput > r.tvec) r.tvec = m->fma_rthroughput;
    }
    double acc = ceil(r.lat / (r.mve * r.tvec) - 1e-9);
    /* at least 1, at most 1024 accumulator sets: a machine file of extreme figures (an FMA latency of 1e52 cy)
     * must not overflow the conversion to int or the doubling of C below (found by fuzz_machine) */
    if (!(acc >= 1)) acc = 1;
    if (acc > 1024) acc = 1024;
    r.acc = (int32_t)acc;
    int64_t C = 1;
    while (C < (int64_t)r.w * r.acc) C *= 2;
    if (nf > 0) { /* the nearest C with a fast kernel: the smallest >= C, else the largest */
        int64_t pick = fast[nf - 1];
        for (int32_t kk = nf - 1; kk >= 0; kk--)
            if (fast[kk] >= C) pick = fast[kk];
        C = pick;
    } else if (C < 4) {
        C = 4; /* the reference list starts at 4 */
    }
    r.C = (int32_t)C;
    *d = r;
    return SPMV_OK;
}

spmv_status spmv_tune_default_chunk_height(const spmv_machine *m, int32_t *C)
{
    if (!C) return spmv__error(SPMV_ERR_ARG, "spmv_tune_default_chunk_height: argument C is NULL");
    cdefault d;
    spmv_status st = default_C(m, &d);
    if (st) return st;
    *C = d.C;
    return SPMV_OK;
}

/* default sigma and the padding it leaves, and the global sort's */
static spmv_status default_sigma(const spmv_crs *A, int32_t C, int32_t *sigma, int64_t *stored, int64_t *stored_glob,
                                 const char *fn)
{
    if (A->rows < 1 || A->nnz < 1) {
        *sigma = 1;
        *stored = *stored_glob = 0;
        return SPMV_OK;
    }
    /* rows in their own order keep the run columns (stencils, FEM blocks): when runs would hold at least half the
     * nonzeros at sigma = 1 (default threshold, 256 sample chunks) and as many as the automatic rule keeps
     * (spmv__sell_runs_pay), sorting would break them: sigma = 1 */
    const int32_t T = spmv__sell_run_threshold(C);
    double per_chunk = 0;
    const double share = T > 0 ? spmv__sell_run_share(A, C, T, 256, &per_chunk) : 0.0;
    if (T > 0 && share >= 0.5 && spmv__sell_runs_pay(C, share, per_chunk)) {
        *sigma = 1;
        return stored_many(A, C, sigma, 1, 1, NULL, stored, fn) ? SPMV_ERR_NOMEM
               : (*stored_glob = *stored, SPMV_OK);
    }
    int32_t sig[40], ns;
    spmv_status st = spmv_tune_sigma_list(C, A->rows, sig, 40, &ns);
    if (st) return st;
    int64_t s[40] = {0};
    if ((st = stored_many(A, C, sig, ns, 1, NULL, s, fn))) return st;
    for (int32_t k = 0; k < ns; k++)
        if ((double)(s[k] - s[ns - 1]) <= 0.01 * (double)A->nnz) {
            *sigma = sig[k];
            *stored = s[k];
            *stored_glob = s[ns - 1];
            return SPMV_OK;
        }
    *sigma = sig[ns - 1];
    *stored = *stored_glob = s[ns - 1];
    return SPMV_OK;
}

spmv_status spmv_tune_default_sigma(const spmv_crs *A, int32_t C, int32_t *sigma)
{
    static const char fn[] = "spmv_tune_default_sigma";
    spmv_status st = check_crs_arg(A, fn);
    if (st) return st;
    if (!sigma) return spmv__error(SPMV_ERR_ARG, "%s: argument sigma is NULL", fn);
    if (C < 1) return spmv__error(SPMV_ERR_ARG, "%s: C = %d < 1", fn, C);
    int64_t s, g;
    return default_sigma(A, C, sigma, &s, &g, fn);
}

/* ---------------------------------------------------------------------------------------------- auto parameters */

void spmv_tune_record_variant(const spmv_tune_record *r, spmv_sell_opts *o)
{
    if (!r || !o) return;
    if (o->runs < 0 && r->has_variant && r->runs >= 0) o->runs = r->runs;
    if (o->xaccess == SPMV_X_AUTO && (r->xaccess == SPMV_X_GATHER || r->xaccess == SPMV_X_EMUL)) o->xaccess = r->xaccess;
    if (r->has_compression && o->idx16 < 0 && (r->idx16 == 0 || r->idx16 == 1)) o->idx16 = r->idx16;
    if (r->has_compression && o->vidx < 0 && (r->vidx == 0 || r->vidx == 1)) o->vidx = r->vidx;
    if (r->has_nt && o->nt_stores < 0 && (r->nt == 0 || r->nt == 1)) o->nt_stores = r->nt;
}

spmv_status spmv_tune_auto_params(const spmv_crs *A, spmv_sell_opts *o, spmv_tune_source *src)
{
    static const char fn[] = "spmv_tune_auto_params";
    spmv_status st = check_crs_arg(A, fn);
    if (st) return st;
    if (!o) return spmv__error(SPMV_ERR_ARG, "%s: argument o is NULL", fn);
    if (o->C < 0 || o->sigma < 0)
        return spmv__error(SPMV_ERR_ARG, "%s: C = %d, sigma = %d (0 = auto, else >= 1)", fn, o->C, o->sigma);
    if (src) *src = SPMV_TUNE_GIVEN;
    if (o->C > 0 && o->sigma > 0) return SPMV_OK;
    const int wantC = o->C == 0, wantS = o->sigma == 0, verbose = spmv__tune_verbose();

    /* 1. the recorded choice, from imported wisdom only (spmv_wisdom_import): no file is read here */
    spmv_tune_host h;
    spmv_tune_fingerprint fp;
    spmv_tune_record rec;
    int found = 0;
    char why[4600] = "";
    if ((st = spmv_tune_host_get(&h))) return st;
    if ((st = spmv_tune_fingerprint_get(A, &fp))) return st;
    const int32_t nwis = spmv_wisdom_count();
    if ((st = spmv_wisdom_find(&h, &fp, o->permuted, &rec, &found))) return st;
    spmv__clear_error();
    if (found && (wantC || rec.C == o->C)) {
        if (wantC) o->C = rec.C;
        if (wantS) o->sigma = rec.sigma;
        spmv_tune_record_variant(&rec, o); /* the recorded kernel variant, where the caller left it to the library */
        if (src) *src = SPMV_TUNE_RECORDED;
        if (verbose) {
            char perf[64] = "";
            if (rec.gflops > 0) snprintf(perf, sizeof perf, "%.3g Gflop/s with ", rec.gflops);
            fprintf(stderr,
                    "spmv: auto parameters: C = %d, sigma = %d: recorded by spmv-tune for this matrix (%s, %d x %d, "
                    "nnz %lld) on '%s' %s %d cores%s%s (%sRCM %s, %d thread%s; %s)\n",
                    o->C, o->sigma, rec.matrix, fp.rows, fp.cols, (long long)fp.nnz, h.cpu, h.isa, h.cores,
                    rec.date[0] ? ", " : "", rec.date, perf, rec.rcm ? "on" : "off", rec.nthreads,
                    rec.nthreads == 1 ? "" : "s", "imported wisdom");
        }
        return SPMV_OK;
    }
    if (nwis == 0)
        snprintf(why, sizeof why, "no recorded choices imported (spmv_wisdom_import)");
    else
        snprintf(why, sizeof why, "no recorded choice for this matrix on '%s' %s %d cores%s among the %d imported",
                 h.cpu, h.isa, h.cores, found ? " with this C" : "", nwis);

    /* 2. the model defaults */
    cdefault d;
    memset(&d, 0, sizeof d);
    if (wantC) {
        if ((st = default_C(NULL, &d))) return st;
        o->C = d.C;
    }
    int64_t s = 0, g = 0;
    if (wantS && (st = default_sigma(A, o->C, &o->sigma, &s, &g, fn))) return st;
    if (src) *src = SPMV_TUNE_MODEL;
    if (verbose) {
        char cpart[200] = "", spart[200] = "";
        if (wantC)
            snprintf(cpart, sizeof cpart, " (model default for %s: vector width %d x %d accumulators, FMA latency %g cy "
                     "over %d x %g cy per vector)", spmv_arch_name(d.arch), d.w, d.acc, d.lat, d.mve, d.tvec);
        if (wantS)
            snprintf(spart, sizeof spart, " (model default: padding %.2f %% of nnz, a global sort leaves %.2f %%)",
                     A->nnz ? 100.0 * (double)(s - A->nnz) / (double)A->nnz : 0.0,
                     A->nnz ? 100.0 * (double)(g - A->nnz) / (double)A->nnz : 0.0);
        fprintf(stderr, "spmv: auto parameters: C = %d%s, sigma = %d%s; %s\n", o->C, cpart, o->sigma, spart, why);
    }
    return SPMV_OK;
}

spmv_status spmv__sell_auto_params(const spmv_crs *A, spmv_sell_opts *o) { return spmv_tune_auto_params(A, o, NULL); }

/* ---------------------------------------------------------------------------------------------- break-even, pruning */

double spmv_tune_break_even(double t_convert, double t_crs, double t_sell)
{
    if (!isfinite(t_convert) || !isfinite(t_crs) || !isfinite(t_sell) || t_convert < 0 || t_crs < 0 || t_sell < 0)
        return HUGE_VAL;
    if (t_convert == 0) return 0;
    if (!(t_sell < t_crs)) return HUGE_VAL;
    return ceil(t_convert / (t_crs - t_sell));
}

static int32_t domains_used(const spmv_machine *m, int32_t nthreads)
{
    int64_t total = (int64_t)m->sockets * m->cores_per_socket;
    int64_t used = nthreads < total ? nthreads : total;
    int64_t per = m->cores_per_numa > 0 ? m->cores_per_numa : total;
    int64_t d = (used + per - 1) / per;
    return d < 1 ? 1 : (int32_t)d;
}

spmv_status spmv_tune_bound(const spmv_machine *m, const spmv_traffic *t, int64_t rows, int64_t cols, int64_t nnz,
                            int64_t stored, int32_t C, int32_t nthreads, double *gflops)
{
    static const char fn[] = "spmv_tune_bound";
    if (!m || !t || !gflops)
        return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !m ? "m" : !t ? "t" : "gflops");
    if (rows < 1 || cols < 1 || nnz < 1 || stored < nnz || C < 0 || nthreads < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: rows %lld, cols %lld, nnz %lld, stored %lld, C %d, nthreads %d", fn,
                           (long long)rows, (long long)cols, (long long)nnz, (long long)stored, C, nthreads);
    if (!(t->flops_per_entry > 0)) return spmv__error(SPMV_ERR_ARG, "%s: flops per entry %g", fn, t->flops_per_entry);
    spmv_machine mr; /* a bound: the fastest passes (spmv_machine_roof) */
    spmv_machine_roof(m, &mr);
    double bw = mr.bw_load;
    if (mr.bw_copy > bw) bw = mr.bw_copy;
    if (mr.bw_triad > bw) bw = mr.bw_triad;
    if (!(bw > 0)) return spmv__error(SPMV_ERR_ARG, "%s: the machine '%s' has no saturated bandwidth", fn,
                                       spmv__machine_name(m).s);
    int64_t nchunks = C > 0 ? (rows + C - 1) / C : 0;
    double bytes = spmv_traffic_bytes(t, stored, nnz, rows, nchunks, (double)cols / (double)nnz);
    double flops = t->flops_per_entry * (double)nnz;
    *gflops = domains_used(m, nthreads) * bw / (bytes / flops);
    return SPMV_OK;
}

int spmv_tune_prune(const spmv_machine *m, double bytes, double bound, double best, double margin)
{
    if (!m || m->nlevels < 2 || !(bound > 0) || !(best > 0) || !(margin >= 0)) return 0;
    const spmv_machine_level *llc = &m->level[m->nlevels - 2];
    int64_t cores = (int64_t)m->sockets * m->cores_per_socket;
    int64_t inst = llc->cores_per_group > 0 ? (cores + llc->cores_per_group - 1) / llc->cores_per_group : 1;
    const int64_t size = llc->effective_size > 0 ? llc->effective_size : llc->size; /* what holds data in practice */
    double cache = (double)size * (double)(inst > 0 ? inst : 1);
    if (!(bytes > 4.0 * cache)) return 0;
    return bound * (1.0 + margin) < best;
}
