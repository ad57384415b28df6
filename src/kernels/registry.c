/* Kernel registry (BLIS habit): a table of kernel families in order of preference; the family in use is the first
 * one built and usable here (or the one SPMV_ARCH forces), and within it the first kernel that fits a matrix. The
 * reference kernels fill every slot a family leaves open: a missing variant means slower, never a crash.
 * SPMV_VERBOSE=1 names each choice and, when it is not a kernel of the family in use, why. */
#include "internal.h"
#include "kernel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------------------------------------- the family table */

/* One line per family, in order of preference; a family not built into this library has a NULL entry (its name
 * stays known, so SPMV_ARCH=<name> can say "not built" instead of "unknown"). The line's index is its spmv_arch. */
#ifdef SPMV_HAVE_AVX512
extern const spmv_family spmv__family_avx512;
#define FAMILY_AVX512 &spmv__family_avx512
#else
#define FAMILY_AVX512 NULL
#endif
#ifdef SPMV_HAVE_AVX2
extern const spmv_family spmv__family_avx2;
#define FAMILY_AVX2 &spmv__family_avx2
#else
#define FAMILY_AVX2 NULL
#endif
#ifdef SPMV_HAVE_SVE
extern const spmv_family spmv__family_sve;
#define FAMILY_SVE &spmv__family_sve
#else
#define FAMILY_SVE NULL
#endif
extern const spmv_family spmv__family_ref;

static const struct family_line {
    const char *name;
    spmv_arch arch;
    const spmv_family *family;
} table[] = {
    /* preference order: the first usable one is the default */
    {"avx512", SPMV_ARCH_AVX512, FAMILY_AVX512},
    {"avx2", SPMV_ARCH_AVX2, FAMILY_AVX2},
    {"sve", SPMV_ARCH_SVE, FAMILY_SVE},
    {"ref", SPMV_ARCH_REF, &spmv__family_ref},
};
enum { NFAMILIES = sizeof table / sizeof table[0] };

static const struct family_line *line_of(spmv_arch a)
{
    for (int i = 0; i < NFAMILIES; i++)
        if (table[i].arch == a) return &table[i];
    return NULL;
}

int spmv__family_count(void) { return NFAMILIES; }

const spmv_family *spmv__family(spmv_arch a)
{
    const struct family_line *l = line_of(a);
    return l ? l->family : NULL;
}

const char *spmv__family_name(spmv_arch a)
{
    const struct family_line *l = line_of(a);
    return l ? l->name : "unknown";
}

int spmv_arch_count(void) { return NFAMILIES; }

const char *spmv_arch_name(spmv_arch arch) { return spmv__family_name(arch); }

int spmv_arch_usable(spmv_arch a)
{
    const spmv_family *f = spmv__family(a);
    return f && (!f->usable || f->usable());
}

int32_t spmv_arch_vector_doubles(spmv_arch a)
{
    if (!spmv_arch_usable(a)) return 0;
    const spmv_family *f = spmv__family(a);
    return f->vector_doubles ? f->vector_doubles() : 1;
}

/* ---------------------------------------------------------------------------------------------- family in use */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static spmv_arch chosen = SPMV_ARCH_REF;
static spmv_status chosen_st;
static char chosen_msg[384];

static void choose(void)
{
    for (int i = 0; i < NFAMILIES; i++)
        if (spmv_arch_usable(table[i].arch)) {
            chosen = table[i].arch;
            break;
        }
    const char *env = getenv("SPMV_ARCH");
    if (!env || !*env) return;
    for (int i = 0; i < NFAMILIES; i++) {
        if (strcasecmp(env, table[i].name) != 0) continue;
        if (spmv_arch_usable(table[i].arch)) {
            chosen = table[i].arch;
        } else {
            chosen_st = SPMV_ERR_ARCH;
            snprintf(chosen_msg, sizeof chosen_msg, "SPMV_ARCH=%s: the %s kernels are %s", env, table[i].name,
                     table[i].family ? "not supported by this CPU or OS" : "not built into this library");
        }
        return;
    }
    chosen_st = SPMV_ERR_ARCH;
    int n = snprintf(chosen_msg, sizeof chosen_msg, "SPMV_ARCH=%s: unknown kernel family (known:", env);
    for (int i = 0; i < NFAMILIES && n > 0 && (size_t)n < sizeof chosen_msg; i++)
        n += snprintf(chosen_msg + n, sizeof chosen_msg - (size_t)n, " %s", table[i].name);
    if (n > 0 && (size_t)n < sizeof chosen_msg) snprintf(chosen_msg + n, sizeof chosen_msg - (size_t)n, ")");
}

/* The library's other environment variables, as they are now (read where they act, on every use): a value none of
 * them accepts is an error (SPMV_ERR_ARG) naming the variable and what it takes, rather than a value read some way. */
static _Thread_local spmv_status env_st; /* this thread's last spmv_arch_get: SPMV_OK, or why it failed */
static int env_check(void)
{
    static const char *const flags[] = {SPMV_PREFETCH_ENV, SPMV_VIDX_ENV, SPMV_SELL_NT_ENV};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        const char *e = getenv(flags[i]);
        if (e && *e && strcmp(e, "0") && strcmp(e, "1"))
            return spmv__error(SPMV_ERR_ARG, "%s=%s: use 1 (on) or 0 (off), or leave it unset", flags[i], e), 1;
    }
    const char *x = getenv("SPMV_XACCESS");
    if (x && *x && strcasecmp(x, "gather") && strcasecmp(x, "emul"))
        return spmv__error(SPMV_ERR_ARG, "SPMV_XACCESS=%s: use gather or emul, or leave it unset", x), 1;
    const char *t = getenv(SPMV_TEAM_ENV);
    if (t && *t && strcmp(t, "openmp"))
        return spmv__error(SPMV_ERR_ARG, "%s=%s: use openmp, or leave it unset (helper threads)", SPMV_TEAM_ENV, t), 1;
    double ns;
    if (spmv__env_fork_join_ns(&ns) < 0)
        return spmv__error(SPMV_ERR_ARG, "%s=%s: use a number of nanoseconds from 0 to 1e9, or leave it unset",
                           SPMV_FORK_JOIN_ENV, getenv(SPMV_FORK_JOIN_ENV)), 1;
    return 0;
}

int spmv__env_fork_join_ns(double *ns)
{
    const char *f = getenv(SPMV_FORK_JOIN_ENV);
    if (!f || !*f) return 0;
    char *end;
    const double v = strtod(f, &end);
    if (*end || !(v >= 0 && v <= 1e9)) return -1;
    *ns = v;
    return 1;
}

spmv_status spmv__arch_status(void) { return env_st; }

spmv_status spmv_arch_get(spmv_arch *arch)
{
    pthread_once(&once, choose);
    env_st = SPMV_OK;
    if (!arch) return spmv__error(SPMV_ERR_ARG, "spmv_arch_get: argument arch is NULL");
    if (chosen_st) return env_st = spmv__error(chosen_st, "%s", chosen_msg);
    if (env_check()) return env_st = SPMV_ERR_ARG;
    *arch = chosen;
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- kernel choice */

static int verbose(void)
{
    const char *v = getenv("SPMV_VERBOSE");
    return v && *v && *v != '0';
}

int spmv__prefetch_wanted(int64_t bytes)
{
    const char *e = getenv(SPMV_PREFETCH_ENV);
    if (e && *e) return *e != '0';
    return bytes >= SPMV_PREFETCH_BYTES;
}

int spmv__sell_vidx_wanted(int opt, int64_t stored)
{
    const char *e = getenv(SPMV_VIDX_ENV);
    if (e && *e) return *e != '0';
    return opt > 0 || (opt < 0 && stored >= SPMV_VIDX_AUTO_ENTRIES);
}

int spmv__sell_nt_forced(void)
{
    const char *e = getenv(SPMV_SELL_NT_ENV);
    return e && *e;
}

int spmv__sell_nt_requested(const spmv_sell *S)
{
    const char *e = getenv(SPMV_SELL_NT_ENV); /* override: 1 on, 0 off */
    return SPMV_SELL_DIRECT(S) && (e && *e ? *e != '0' : S->nt_stores);
}

static const char *xaccess_name(spmv_xaccess x)
{
    switch (x) {
    case SPMV_X_SCALAR: return "scalar";
    case SPMV_X_GATHER: return "gather";
    case SPMV_X_EMUL: return "emul";
    default: return "auto";
    }
}

spmv_xaccess spmv__sell_xaccess(int opts_xaccess)
{
    const char *e = getenv("SPMV_XACCESS");
    if (e && !strcasecmp(e, "gather")) return SPMV_X_GATHER;
    if (e && !strcasecmp(e, "emul")) return SPMV_X_EMUL;
    if (opts_xaccess == SPMV_X_GATHER || opts_xaccess == SPMV_X_EMUL) return (spmv_xaccess)opts_xaccess;
    spmv_arch a;
    if (spmv_arch_get(&a) != SPMV_OK) return SPMV_X_GATHER;
    const spmv_family *f = spmv__family(a);
    return f && f->xaccess_default ? f->xaccess_default() : SPMV_X_GATHER;
}

static char probe_note[160]; /* the last x-access measurement, for SPMV_VERBOSE */

spmv_xaccess spmv__xaccess_measure(double (*probe)(int emul, const int32_t *idx, const double *x, int reps))
{
    _Alignas(64) static double x[256];
    _Alignas(64) static int32_t idx[64];
    uint32_t s = 12345u;
    for (int i = 0; i < 256; i++) x[i] = 1.0 + i / 256.0;
    for (int i = 0; i < 64; i++) {
        s = s * 1664525u + 1013904223u;
        idx[i] = (int32_t)(s >> 24);
    }
    double best[2] = {1e30, 1e30}, sink = 0.0;
    for (int round = 0; round < 7; round++)
        for (int emul = 0; emul < 2; emul++) {
            double t0 = spmv__now();
            sink += probe(emul, idx, x, 40);
            double t = spmv__now() - t0;
            if (t < best[emul]) best[emul] = t;
        }
    if (sink == 42.0) return SPMV_X_GATHER; /* keeps the sums alive; never true */
    const spmv_xaccess pick = best[1] < best[0] ? SPMV_X_EMUL : SPMV_X_GATHER;
    /* 40 passes of 64 indices: 320 vectors of 8 lanes (AVX-512) or 640 of 4 (AVX2) */
    snprintf(probe_note, sizeof probe_note, "%s: measured %.2f ns per 64 lanes emulated against %.2f ns by the "
             "hardware gather", pick == SPMV_X_EMUL ? "emul" : "gather", best[1] * 1e9 / 40.0, best[0] * 1e9 / 40.0);
    return pick;
}

spmv_kernel_shape spmv__kernel_shape(const spmv_kernel *k, int32_t C)
{
    spmv_kernel_shape s = k->shape;
    s.nt = k->nt; /* the store kind is the kernel's, declared once */
    if (s.format == SPMV_FORMAT_SELL && s.C == 0) s.C = C;
    if (s.width == 0) {
        const spmv_family *f = spmv__family(k->arch);
        s.width = f && f->vector_doubles ? f->vector_doubles() : 1;
    }
    return s;
}

static int sell_fits(const spmv_kernel *k, const spmv_sell *S, int nt)
{
    if (!k->sell || k->nt != nt) return 0;
    return k->accepts ? k->accepts(S) : k->shape.C == S->C;
}

/* The first kernel of family f for S with x access x (0: any) and non-temporal stores nt. */
static const spmv_kernel *sell_find(const spmv_family *f, const spmv_sell *S, spmv_xaccess x, int nt)
{
    for (const spmv_kernel *const *p = f->kernels; p && *p; p++)
        if (sell_fits(*p, S, nt) && (!x || (*p)->shape.x == x)) return *p;
    return NULL;
}

const spmv_kernel *spmv__sell_kernel_for(int32_t C, spmv_xaccess x)
{
    static _Alignas(64) double val[8];
    static _Alignas(64) int32_t col[16];
    spmv_arch a;
    if (spmv_arch_get(&a) != SPMV_OK) return NULL;
    const spmv_family *f = spmv__family(a);
    int64_t chunkptr[1] = {0};
    spmv_sell S;
    memset(&S, 0, sizeof S);
    S.C = C;
    S.sigma = S.unroll = 1;
    S.val = val;
    S.col = col;
    S.chunkptr = chunkptr;
    const spmv_kernel *k = sell_find(f, &S, x, 0);
    if (!k) k = sell_find(f, &S, SPMV_X_AUTO, 0);
    return k ? k : &spmv__k_sell_ref;
}

int spmv__sell_nt_available(const spmv_sell *S)
{
    spmv_arch a;
    if (!S || !SPMV_SELL_DIRECT(S)) return 0;
    if (spmv_arch_get(&a) != SPMV_OK) {
        spmv__clear_error();
        return 0;
    }
    return sell_find(spmv__family(a), S, (spmv_xaccess)S->xaccess, 1) != NULL;
}

static const spmv_kernel *pick(const spmv_sell *S, const spmv_crs *A, const char *what)
{
    spmv_arch a;
    if (spmv_arch_get(&a) != SPMV_OK) return NULL;
    const spmv_family *f = spmv__family(a);
    const spmv_kernel *ref = S ? &spmv__k_sell_ref : &spmv__k_crs_ref, *k = NULL;
    char why[256] = "";
    if (!S) {
        for (const spmv_kernel *const *p = f->kernels; p && *p && !k; p++)
            if ((*p)->crs && (!(*p)->accepts_crs || (*p)->accepts_crs(A))) k = *p;
        if (k && A) /* why this CRS kernel: the row length (partial sums) and the size (software prefetch) */
            snprintf(why, sizeof why, " (%d partial sums per row at a mean N_nzr of %.2f; %s: values and indices of "
                     "%.1f MiB)", k->shape.mve, A->rows ? (double)A->nnz / A->rows : 0.0,
                     strstr(k->name, "-pf") ? "software prefetch" : "no software prefetch",
                     12.0 * (double)A->nnz / 1048576.0);
    } else {
        const int nt = spmv__sell_nt_requested(S);
        const spmv_xaccess x = (spmv_xaccess)S->xaccess;
        k = sell_find(f, S, x, nt);
        if (k && k->nt) { /* why streaming stores: the caller, the environment or the size of y (auto) */
            const char *e = getenv(SPMV_SELL_NT_ENV);
            snprintf(why, sizeof why, " (non-temporal y stores: %s; y is %.1f MiB)",
                     e && *e ? "SPMV_SELL_NT" : "spmv_sell_opts.nt_stores, auto from 16 MiB of y",
                     8.0 * (double)S->rows / 1048576.0);
        }
        if (!k && nt) { /* no streaming-store variant: ordinary stores */
            k = sell_find(f, S, x, 0);
            if (k) snprintf(why, sizeof why, " (no non-temporal-store variant)");
        }
        if (!k) { /* the asked-for x access is missing: the family's own */
            k = sell_find(f, S, SPMV_X_AUTO, nt);
            if (!k && nt) k = sell_find(f, S, SPMV_X_AUTO, 0);
            if (k && x != SPMV_X_AUTO && k->arch != SPMV_ARCH_REF)
                snprintf(why, sizeof why, " (no %s variant for this matrix: %s)", xaccess_name(x),
                         xaccess_name(k->shape.x));
        }
    }
    if (verbose()) {
        const char *env = getenv("SPMV_ARCH");
        if (k && k->arch == a && a != SPMV_ARCH_REF) {
            const char *xe = getenv("SPMV_XACCESS");
            if (!S)
                fprintf(stderr, "spmv: %s: kernel %s%s\n", what, k->name, why);
            else {
                char thr[192];
                char vals[96];
                if (S->nvals > 0)
                    snprintf(vals, sizeof vals, "value indices: %d distinct values%s", S->nvals,
                             k->shape.vidx ? "" : " (not read by this kernel)");
                else
                    snprintf(vals, sizeof vals, "plain values");
                if (S->runs > 0 && S->run_sample_share >= 0)
                    snprintf(thr, sizeof thr, "threshold %d of %d lanes; automatic: a sample had %.1f %% of its "
                             "entries, %.1f per chunk, in them", S->runs, S->C, 100.0 * S->run_sample_share,
                             S->run_sample_per_chunk);
                else if (S->runs > 0) snprintf(thr, sizeof thr, "threshold %d of %d lanes", S->runs, S->C);
                else if (S->run_sample_share >= 0)
                    snprintf(thr, sizeof thr, "automatic: none: a sample had %.1f %% of its entries, %.1f per chunk, "
                             "in run columns; they pay from %.0f %% and %d per chunk", 100.0 * S->run_sample_share,
                             S->run_sample_per_chunk, 100.0 * spmv__sell_run_share_min(S->C),
                             SPMV_SELL_RUN_CHUNK_MIN);
                else snprintf(thr, sizeof thr, "detection off, or no run column found");
                /* the x86 families' lean loop (kernel.h): as a one-thread multiply of the whole matrix decides */
                const int x86 = k->arch == SPMV_ARCH_AVX512 || k->arch == SPMV_ARCH_AVX2;
                const char *lean = !x86 || !S->chunkruns ? ""
                                   : !SPMV_SELL_DIRECT(S) ? "; no lean loop (y through perm)"
                                   : spmv__sell_lean_wanted(S, 0, S->nchunks, SPMV_SELL_LEAN_LEN)
                                       ? "; lean loop for the chunks of full run columns only (3 in 4 sampled)"
                                       : "; no lean loop (fewer than 3 in 4 sampled chunks of full run columns only)";
                fprintf(stderr, "spmv: %s: kernel %s%s; x access %s; %lld run columns hold %.1f %% of the stored "
                        "entries (%s%s); %lld entries with 16-bit indices; %s\n", what, k->name, why,
                        xe && *xe ? "forced by SPMV_XACCESS" : probe_note[0] ? probe_note : "the family's only one",
                        (long long)S->nruns, S->stored ? 100.0 * (double)S->nruns * S->C / (double)S->stored : 0.0,
                        thr, lean, (long long)S->nidx16, vals);
            }
        }
        else if (a != SPMV_ARCH_REF)
            fprintf(stderr, "spmv: %s: kernel %s (performance warning: the %s family %s; C = %d, vector length VL = "
                    "%d doubles)\n", what, ref->name, f->name, S ? f->missing : "has no CRS kernel", S ? S->C : 0,
                    f->vector_doubles ? f->vector_doubles() : 1);
        else
            fprintf(stderr, "spmv: %s: kernel %s (%s)\n", what, (k ? k : ref)->name,
                    env && *env ? "forced by SPMV_ARCH=ref" : "no faster family is built and usable on this CPU");
        if (S && S->nruns > 0 && !(k ? k : ref)->shape.runs)
            fprintf(stderr, "spmv: %s: its %lld run columns are decoded entry by entry (the kernel has no run loads)\n",
                    what, (long long)S->nruns);
    }
    return k ? k : ref;
}

const spmv_kernel *spmv__crs_kernel(const spmv_crs *A)
{
    return pick(NULL, A, "CRS");
}

const spmv_kernel *spmv__sell_kernel(const spmv_sell *S)
{
    char what[96];
    snprintf(what, sizeof what, "SELL-%d-%d", S->C, S->sigma);
    const spmv_kernel *k = pick(S, NULL, what);
    if (verbose()) { /* the vector order: a multiply in the wrong one gives a wrong result, not an error */
        if (S->permuted)
            fprintf(stderr, "spmv: %s: x and y in the PERMUTED order%s: x' = spmv_sell_permute_vec(x), y = "
                            "spmv_sell_unpermute_vec(y'); an original-order %s gives a wrong result, not an error\n",
                    what, S->rows == S->cols ? " (rows and columns)" : " (rows only: x stays in the original order)",
                    S->rows == S->cols ? "x" : "y");
        else
            fprintf(stderr, "spmv: %s: x and y in the original order (the row permutation of the σ sort and RCM is "
                            "applied inside the multiply)\n", what);
    }
    return k;
}

const spmv_kernel *spmv__sell_long_kernel(const spmv_sell *S)
{
    char what[128];
    snprintf(what, sizeof what, "SELL-%d-%d, CRS part of %d rows (longer than %d entries)", S->C, S->sigma, S->nlong,
             S->long_min);
    return pick(NULL, NULL, what);
}
