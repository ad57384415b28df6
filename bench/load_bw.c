/* Read-only streaming bandwidth (the LOAD/SUM kernel with 16 independent partial sums, compiled with
 * -O3 -march=native so that it uses the widest SIMD the CPU has): the bandwidth limit for SpMV at a working set
 * in L2, in L3 and in memory. usage: spmv-load-bw [-t THREADS] KIB [KIB ...]   (working set per run, KiB) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double sum16(const double *a, long n)
{
    double s[16] = {0};
    for (long i = 0; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++) s[k] += a[i + k];
    double t = 0;
    for (int k = 0; k < 16; k++) t += s[k];
    return t;
}

int main(int argc, char **argv)
{
    int i = 1;
    if (argc > 2 && !strcmp(argv[1], "-t")) {
        omp_set_num_threads(atoi(argv[2]));
        i = 3;
    }
    for (; i < argc; i++) {
        long kib = atol(argv[i]);
        int nt = omp_get_max_threads();
        long n = kib * 1024 / 8 / nt / 16 * 16; /* doubles per thread */
        if (n < 16) n = 16;
        double best = 0, sink = 0;
#pragma omp parallel reduction(+ : sink)
        {
            double *a = aligned_alloc(64, (size_t)n * 8);
            for (long k = 0; k < n; k++) a[k] = 1.0 / (k + 1);
            long reps = 1 + (long)(2e8 / (double)n / nt);
            for (int run = 0; run < 5; run++) {
#pragma omp barrier
                double t0 = omp_get_wtime();
                for (long r = 0; r < reps; r++) sink += sum16(a, n);
#pragma omp barrier
                double t = omp_get_wtime() - t0;
#pragma omp master
                {
                    double bw = (double)n * 8 * nt * reps / t * 1e-9;
                    if (bw > best) best = bw;
                }
            }
            free(a);
        }
        printf("load-bw %ld KiB working set, %d threads: %.1f GB/s (best of 5)%s\n", kib, nt, best,
               sink == 0.12345 ? " " : "");
    }
    return 0;
}
