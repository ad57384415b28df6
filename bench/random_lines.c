/* spmv-random-lines: the read rate of 64-byte lines at random addresses, the access pattern of x in a multiply of a
 * matrix with random columns (issue 16: the ECM charges x's memory traffic at the streaming bandwidth and
 * over-predicts such matrices 1.3-2.7x on the Zen 5 VM, BENCHMARKS.md 2026-12-04).
 *
 *   spmv-random-lines [MiB ...]      default: 16 64 256 1024
 *
 * Per working set: an array of that size (first-touched by the threads that read it, no huge-page advice: as a
 * vector from spmv_vec_alloc), 2^25 random line indices (xorshift, fixed seed, 4 bytes each, streamed), and one
 * double loaded from each indexed line by 4 independent sums per thread (the loads overlap as in a multiply's
 * rows); the best of 3 passes at 1..OMP_NUM_THREADS threads: million lines per second, GB/s of whole lines, ns per
 * line per thread. The index stream adds 4 bytes per line (not counted). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const double defaults[] = {16, 64, 256, 1024};
    const int nws = argc > 1 ? argc - 1 : 4;
    const int64_t n = (int64_t)1 << 25;
    int32_t *idx = malloc((size_t)n * sizeof *idx);
    if (!idx) {
        fprintf(stderr, "spmv-random-lines: out of memory for %lld indices\n", (long long)n);
        return 1;
    }
    const int maxt = omp_get_max_threads();
    printf("# spmv-random-lines: %lld random 64-byte lines per pass, best of 3 passes\n", (long long)n);
    printf("%10s %7s %12s %10s %14s\n", "MiB", "threads", "M lines/s", "GB/s", "ns/line/thread");
    for (int w = 0; w < nws; w++) {
        char *end = NULL;
        const double mib = argc > 1 ? strtod(argv[w + 1], &end) : defaults[w];
        if ((argc > 1 && (!end || *end)) || !(mib >= 1) || mib > 65536) {
            fprintf(stderr, "spmv-random-lines: argument %d: '%s' is not a size in MiB (1..65536)\n", w + 1,
                    argv[w + 1]);
            free(idx);
            return 2;
        }
        const size_t bytes = (size_t)(mib * 1048576.0) / 64 * 64, lines = bytes / 64;
        double *a = aligned_alloc(64, bytes);
        if (!a) {
            fprintf(stderr, "spmv-random-lines: out of memory for %.0f MiB\n", mib);
            free(idx);
            return 1;
        }
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < bytes / 8; i++) a[i] = 1.0;
        uint64_t s = 88172645463325252ull;
        for (int64_t i = 0; i < n; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            idx[i] = (int32_t)(s % lines);
        }
        for (int t = 1; t <= maxt; t++) {
            double best = 1e30, sum = 0;
            for (int r = 0; r < 3; r++) {
                double tot = 0;
                const double t0 = now();
#pragma omp parallel num_threads(t) reduction(+ : tot)
                {
                    const int nt = omp_get_num_threads(), me = omp_get_thread_num();
                    const int64_t b = n * me / nt, e = n * (me + 1) / nt;
                    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                    int64_t i = b;
                    for (; i + 3 < e; i += 4) {
                        s0 += a[(size_t)idx[i] * 8];
                        s1 += a[(size_t)idx[i + 1] * 8];
                        s2 += a[(size_t)idx[i + 2] * 8];
                        s3 += a[(size_t)idx[i + 3] * 8];
                    }
                    for (; i < e; i++) s0 += a[(size_t)idx[i] * 8];
                    tot += (s0 + s1) + (s2 + s3);
                }
                const double dt = now() - t0;
                if (dt < best) best = dt;
                sum = tot;
            }
            if (sum != (double)n) fprintf(stderr, "spmv-random-lines: check failed (%.0f lines summed)\n", sum);
            printf("%10.0f %7d %12.1f %10.2f %14.2f\n", mib, t, (double)n / best * 1e-6,
                   (double)n * 64.0 / best * 1e-9, best / (double)n * 1e9 * t);
        }
        free(a);
    }
    free(idx);
    return 0;
}
