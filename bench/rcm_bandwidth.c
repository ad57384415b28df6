/* spmv-rcm-bench: bandwidth and profile before and after reverse Cuthill-McKee (spmv_rcm), and its run time.
 *
 * usage: spmv-rcm-bench [--perm-dir DIR] [--repeat R] FILE.mtx ...
 *        spmv-rcm-bench --hpcg N [--seed S] [--repeat R]
 * One line per matrix:  name rows nnz bw_before bw_rcm profile_before profile_rcm time_s cpu_s
 * (time_s: wall clock of spmv_rcm, best of R runs; cpu_s: process CPU time of that run). Non-square and unreadable
 * matrices get a line starting with '#'. --hpcg N: the HPCG 27-point matrix on an N^3 grid, symmetrically permuted
 * at random (xorshift64*, seed S) first, as the quality bar asks. --perm-dir: writes DIR/NAME.perm, perm[new] = old,
 * one per line, for an independent check (bench/rcm_vs_scipy.py). Public API only. */
#define _POSIX_C_SOURCE 200809L
#include "spmv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static int fail(const char *what, spmv_status st)
{
    fprintf(stderr, "spmv-rcm-bench: %s: %s (%s)\n", what, spmv_strerror(st), spmv_last_error());
    return 1;
}

/* RCM of A, timed; prints the line. Returns 0 or 1 (error). */
static int bench_one(const char *name, const spmv_crs *A, int repeat, const char *permdir)
{
    if (A->rows != A->cols) {
        printf("# %s: %d x %d, not square: skipped\n", name, A->rows, A->cols);
        return 0;
    }
    int32_t n = A->rows;
    int32_t *perm = malloc(((size_t)n + 1) * sizeof *perm), *iperm = malloc(((size_t)n + 1) * sizeof *iperm);
    if (!perm || !iperm) return fail(name, SPMV_ERR_NOMEM);
    double best = 1e300, best_cpu = 0;
    for (int r = 0; r < repeat; r++) {
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        spmv_status st = spmv_rcm(A, perm, iperm);
        double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
        if (st != SPMV_OK) {
            free(perm);
            free(iperm);
            return fail(name, st);
        }
        if (t1 - t0 < best) {
            best = t1 - t0;
            best_cpu = c1 - c0;
        }
    }
    spmv_crs *B = NULL;
    spmv_crs_stats s0, s1;
    spmv_status st = spmv_crs_permute(A, perm, &B);
    if (st == SPMV_OK) st = spmv_crs_get_stats(A, &s0);
    if (st == SPMV_OK) st = spmv_crs_get_stats(B, &s1);
    if (st != SPMV_OK) {
        free(perm);
        free(iperm);
        spmv_crs_free(B);
        return fail(name, st);
    }
    printf("%s %d %lld %lld %lld %lld %lld %.4f %.4f\n", name, n, (long long)A->nnz, (long long)s0.bandwidth,
           (long long)s1.bandwidth, (long long)s0.profile, (long long)s1.profile, best, best_cpu);
    fflush(stdout);
    if (permdir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.perm", permdir, name);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "spmv-rcm-bench: cannot write %s\n", path);
        } else {
            for (int32_t i = 0; i < n; i++) fprintf(f, "%d\n", perm[i]);
            fclose(f);
        }
    }
    spmv_crs_free(B);
    free(perm);
    free(iperm);
    return 0;
}

int main(int argc, char **argv)
{
    const char *permdir = NULL;
    int repeat = 1, hpcg = 0, nfiles = 0, errors = 0;
    uint64_t seed = 42;
    const char **files = calloc((size_t)argc, sizeof *files);
    if (!files) return fail("arguments", SPMV_ERR_NOMEM);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--perm-dir") && a + 1 < argc) permdir = argv[++a];
        else if (!strcmp(argv[a], "--repeat") && a + 1 < argc) repeat = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--hpcg") && a + 1 < argc) hpcg = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--seed") && a + 1 < argc) seed = strtoull(argv[++a], NULL, 10);
        else if (argv[a][0] == '-') {
            int help = !strcmp(argv[a], "-h") || !strcmp(argv[a], "--help");
            fprintf(help ? stdout : stderr,
                    "usage: %s [--perm-dir DIR] [--repeat R] FILE.mtx ...\n"
                    "       %s --hpcg N [--seed S] [--repeat R]\n",
                    argv[0], argv[0]);
            free(files);
            return help ? 0 : 2;
        } else files[nfiles++] = argv[a];
    }
    if (repeat < 1) repeat = 1;
    if (!hpcg && !nfiles) {
        fprintf(stderr, "spmv-rcm-bench: no matrix given (FILE.mtx ... or --hpcg N)\n");
        free(files);
        return 2;
    }
    printf("# matrix rows nnz bw_before bw_rcm profile_before profile_rcm time_s cpu_s\n");

    if (hpcg > 0) {
        spmv_crs *H = NULL, *P = NULL;
        spmv_status st = spmv_gen_hpcg(hpcg, hpcg, hpcg, &H);
        if (st != SPMV_OK) return fail("spmv_gen_hpcg", st);
        int32_t n = H->rows, *q = malloc((size_t)n * sizeof *q);
        if (!q) return fail("hpcg", SPMV_ERR_NOMEM);
        for (int32_t i = 0; i < n; i++) q[i] = i;
        if (seed == 0) seed = 1;
        for (int32_t i = n - 1; i > 0; i--) {
            int32_t j = (int32_t)(xorshift(&seed) % (uint64_t)(i + 1)), t = q[i];
            q[i] = q[j];
            q[j] = t;
        }
        st = spmv_crs_permute(H, q, &P);
        free(q);
        spmv_crs_free(H);
        if (st != SPMV_OK) return fail("spmv_crs_permute", st);
        char name[64];
        snprintf(name, sizeof name, "hpcg%d^3_randperm", hpcg);
        errors += bench_one(name, P, repeat, permdir);
        spmv_crs_free(P);
    }

    for (int f = 0; f < nfiles; f++) {
        const char *base = strrchr(files[f], '/');
        base = base ? base + 1 : files[f];
        char name[256];
        snprintf(name, sizeof name, "%s", base);
        size_t len = strlen(name);
        if (len > 4 && !strcmp(name + len - 4, ".mtx")) name[len - 4] = '\0';
        spmv_crs *A = NULL;
        spmv_status st = spmv_crs_read_mm(files[f], &A);
        if (st != SPMV_OK) {
            printf("# %s: %s (%s): skipped\n", name, spmv_strerror(st), spmv_last_error());
            continue;
        }
        errors += bench_one(name, A, repeat, permdir);
        spmv_crs_free(A);
    }
    free(files);
    return errors ? 1 : 0;
}
