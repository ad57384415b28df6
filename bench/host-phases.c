/* host-phases: is a slow SpMV process the host's doing? One process times, in 6 rounds, the memory's latency (a
 * pointer chase over 64 MiB), independent random loads over 512 MiB (memory-level parallelism), a read-only stream over
 * 512 MiB and the SELL-8-1 multiply of HPCG 128^3 (the kernel the library picks for C = 8, 1 thread), each round's
 * best of a few
 * windows, one line per round. Run it as separate processes in a row and compare the processes: on the Zen 5 VM whole
 * processes ran the multiply at half speed for seconds while the stream lost 15-25 % and the latency rose by a fifth
 * to a third (BENCHMARKS.md, "AMD EPYC (Zen 5) VM, 2026-12-06 23:41-"). Its chase (8-byte nodes in plain malloc'd
 * memory, 4 KiB pages) is not spmv-bench's memlat (one node per line on huge pages): compare each within itself.
 * Not built by CMake (a diagnostic, not a tool):
 *
 *   cc -O3 -march=native -Iinclude bench/host-phases.c -Lbuild -lspmv -Wl,-rpath,$PWD/build -o build/host-phases
 *   for i in $(seq 40); do build/host-phases; done
 */
#define _POSIX_C_SOURCE 200809L
#include <spmv.h>

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

/* read-only stream: 8 independent sums (the compiler vectorizes them) */
static double stream_read(const double *a, long n)
{
    double s[8] = {0};
    for (long i = 0; i < n; i += 8)
        for (int j = 0; j < 8; j++) s[j] += a[i + j];
    return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

/* independent random loads: the addresses come from a xorshift, not from the data (n a power of 2) */
static double random_loads(const double *a, long n, long count)
{
    uint64_t r = 88172645463325252ULL;
    double s = 0;
    for (long i = 0; i < count; i++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        s += a[(r >> 20) & (uint64_t)(n - 1)];
    }
    return s;
}

/* dependent loads: a random cyclic permutation (Sattolo) */
static long chase(const long *p, long count)
{
    long k = 0;
    for (long i = 0; i < count; i++) k = p[k];
    return k;
}

static int fail(const char *what)
{
    fprintf(stderr, "host-phases: %s: %s\n", what, spmv_last_error());
    return 1;
}

int main(void)
{
    spmv_crs *A;
    spmv_sell *S;
    if (spmv_gen_hpcg(128, 128, 128, &A)) return fail("spmv_gen_hpcg");
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = 8;
    o.sigma = 1;
    if (spmv_sell_from_crs(A, &o, &S) || spmv_sell_set_threads(S, 1)) return fail("SELL-8-1");
    const long n = 1L << 26, nc = 1L << 23; /* 512 MiB of doubles; 64 MiB of chase nodes */
    const int32_t rows = A->rows;
    double *b, *x, *y;
    long *ch = malloc((size_t)nc * sizeof *ch);
    if (!ch || spmv_vec_alloc(n, &b) || spmv_vec_alloc(rows, &x) || spmv_vec_alloc(rows, &y))
        return fail("out of memory");
    for (long i = 0; i < n; i++) b[i] = 1.0 / (double)(i + 1);
    for (int32_t i = 0; i < rows; i++) x[i] = 1.0;
    for (long i = 0; i < nc; i++) ch[i] = i;
    uint64_t r = 1;
    for (long i = nc - 1; i > 0; i--) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        const long j = (long)((r >> 33) % (uint64_t)i), t = ch[i];
        ch[i] = ch[j];
        ch[j] = t;
    }
    double sink = 0;
    for (int round = 0; round < 6; round++) {
        double tm = 1e9, tc = 1e9, ts = 1e9, tk = 1e9;
        for (int k = 0; k < 3; k++) {
            double t = now();
            sink += random_loads(b, n, 1L << 22);
            if ((t = now() - t) < tm) tm = t;
            t = now();
            sink += (double)chase(ch, 1L << 20);
            if ((t = now() - t) < tc) tc = t;
        }
        for (int k = 0; k < 5; k++) {
            double t = now();
            sink += stream_read(b, n);
            if ((t = now() - t) < ts) ts = t;
        }
        for (int k = 0; k < 10; k++) {
            double t = now();
            if (spmv_sell_mv(S, 1.0, x, 0.0, y)) return fail("spmv_sell_mv");
            if ((t = now() - t) < tk) tk = t;
        }
        printf("round %d random-load %.2f ns latency %.1f ns read %.1f GB/s %s %.2f Gflop/s\n", round,
               tm / (double)(1L << 22) * 1e9, tc / (double)(1L << 20) * 1e9, 8.0 * (double)n / ts * 1e-9,
               spmv_sell_kernel_name(S), 2.0 * (double)A->nnz / tk * 1e-9);
    }
    spmv_sell_free(S);
    spmv_crs_free(A);
    spmv_vec_free(b);
    spmv_vec_free(x);
    spmv_vec_free(y);
    free(ch);
    return sink < 0; /* keeps the loads */
}
