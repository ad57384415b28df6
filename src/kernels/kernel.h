/* Kernel descriptors, kernel families and the registry (internal). Kernels are serial over a range of rows or
 * chunks; the OpenMP driver (src/kernels/driver.c) calls them on the partition stored in the matrix.
 *
 * Adding a family: a folder src/kernels/<isa>/ with its kernels and a family.c that defines one spmv_family (name,
 * usable(), its kernels in order of preference, the SPMV_VERBOSE text for a missing kernel), a line in the registry's
 * family table (src/kernels/registry.c) and a CMake block in cmake/SpmvIsa.cmake that builds the folder with its own
 * ISA flags and defines SPMV_HAVE_<ISA>. The model, the tuner, the tuning database and the tests iterate the table. */
#ifndef SPMV_KERNEL_H
#define SPMV_KERNEL_H

#include "spmv_tune.h"
#include <string.h>

/* y[r] = beta*y[r] + alpha*sum_j A[r,j]*x[j] for rows [r0, r1); beta == 0 means y is not read. */
typedef void (*spmv_crs_fn)(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta,
                            double *y);
/* The same for chunks [c0, c1) of SELL-C-sigma; y in the order S->permuted selects. */
/* 1 when the SELL kernels index y (and x) directly, without perm: the permuted order, or a perm that is the
 * identity (S->identity: e.g. sigma = 1 without RCM and without a CRS part), where the two orders are the same */
#define SPMV_SELL_DIRECT(S) ((S)->permuted || (S)->identity)
typedef void (*spmv_sell_fn)(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                             double *y);
/* sum_k val[k]*x[col[k]], k in [0, n): one piece of a row. The partial-row entry point of the CRS kernels, used by
 * the driver for the pieces of rows that its merge-path partition splits between threads and for the CRS part of a
 * hybrid SELL-C-sigma matrix (spmv_sell.nlong). n >= 1. */
typedef double (*spmv_dot_fn)(const double *val, const int32_t *col, int64_t n, const double *x);

/* One kernel: what it computes, what it moves (traffic) and how its loop is built (shape), declared side by side in
 * the kernel's source file. The model reads both (spmv_*_kernel_shape, spmv_*_traffic); a test checks the shape
 * against the kernel's code constants (tests/test_kernels.c). */
typedef struct spmv_kernel {
    const char *name;     /* e.g. "sell-ref", "sell-avx512-emul-C8" */
    spmv_arch arch;       /* family */
    spmv_crs_fn crs;      /* exactly one of crs/sell is set */
    spmv_sell_fn sell;
    spmv_dot_fn dot;      /* CRS kernels: the partial-row entry point (same arithmetic as one row of crs); NULL in
                             SELL kernels. A CRS kernel without one is not chosen where rows are split. */
    spmv_traffic traffic; /* declared next to the kernel */
    spmv_kernel_shape shape; /* format, C (0: any C, see accepts), width (0: the family's run-time vector length),
                                mve, x access, runs */
    int nt;               /* 1: non-temporal y stores; chosen only when the matrix asks for them (nt_stores) */
    /* optional: 1 if this kernel handles S (e.g. SVE: C a multiple of the running vector length; alignment);
     * NULL: the registry compares shape.C with S->C. */
    int (*accepts)(const spmv_sell *S);
    /* optional, CRS kernels: 1 if this kernel is meant for A (e.g. the short-row kernels: mean N_nzr below a
     * threshold); A is NULL for rows of unknown length (the CRS part of a hybrid SELL: its long rows). NULL: any. */
    int (*accepts_crs)(const spmv_crs *A);
} spmv_kernel;

/* A kernel family (src/kernels/<isa>/family.c). */
typedef struct spmv_family {
    const char *name;                 /* SPMV_ARCH=<name>, spmv_arch_name */
    spmv_arch arch;                   /* its line in the registry's table */
    int (*usable)(void);              /* CPU and OS support (src/arch/cpu.c tests); NULL: always */
    const spmv_kernel *const *kernels;/* NULL-terminated, in order of preference (first match wins) */
    int32_t (*vector_doubles)(void);  /* doubles per vector register at run time (NULL: 1) */
    /* the x access this CPU does best for gather columns (SPMV_X_GATHER or SPMV_X_EMUL), measured once; NULL: the
     * first kernel that fits */
    spmv_xaccess (*xaccess_default)(void);
    const char *missing;              /* SPMV_VERBOSE text when no kernel of the family fits a SELL matrix */
    /* built-in in-core costs for the model's defaults when no machine file is given (cycles): FMA latency, and one
     * vector of x by hardware gather (index load included) */
    double fma_latency, gather_cost;
} spmv_family;

/* The registry: the family table in order of preference (entries of families not built are NULL), and lookups. */
int spmv__family_count(void);
const spmv_family *spmv__family(spmv_arch a); /* NULL: not built */
const char *spmv__family_name(spmv_arch a);   /* also for families not built */

/* The kernel for a matrix, chosen once when the matrix is built: the first kernel of the family in use that fits
 * (format, C, x access, nt; CRS: accepts_crs), else the reference kernel of the same format. With SPMV_VERBOSE=1 the choice and the
 * reason a faster kernel was not used go to stderr. Returns NULL only when spmv_arch_get fails (SPMV_ARCH names a
 * family that is not available, or another environment variable a value it does not take; the message is set): the
 * constructor then fails with spmv__arch_status()'s status. */
const spmv_kernel *spmv__crs_kernel(const spmv_crs *A);
/* Why this thread's last spmv_arch_get failed (the kernel choices call it): SPMV_ERR_ARCH (SPMV_ARCH), SPMV_ERR_ARG
 * (another of the library's environment variables holds a value it does not take), or SPMV_OK. The error is the
 * environment's, not the matrix's: spmv_crs_read_mm reports it without the file's name. */
spmv_status spmv__arch_status(void);
const spmv_kernel *spmv__sell_kernel(const spmv_sell *S);
/* The CRS kernel whose partial-row entry point (dot) multiplies the CRS part of a hybrid SELL matrix (S->nlong > 0):
 * the family's CRS kernel, chosen as for a CRS matrix. */
const spmv_kernel *spmv__sell_long_kernel(const spmv_sell *S);

/* The SELL kernel of the family in use for chunk height C and x access x (non-temporal stores off), as the registry
 * would choose it for an aligned matrix in the original order: for estimates before a matrix is built. Never NULL
 * unless SPMV_ARCH names an unavailable family. */
const spmv_kernel *spmv__sell_kernel_for(int32_t C, spmv_xaccess x);

/* The resolved x access for a new SELL matrix: the SPMV_XACCESS environment variable, else opts (non-AUTO), else the
 * family's default for this CPU. */
spmv_xaccess spmv__sell_xaccess(int opts_xaccess);
/* The share of a chunk sample's entries in run columns from which automatic run columns are kept, for chunk height C
 * (src/formats/sell.c, SELL_RUN_LANES); they also need SPMV_SELL_RUN_CHUNK_MIN run entries per sampled chunk.
 * spmv__sell_runs_pay: both conditions, 1 where a sample with `share` of its entries and `per_chunk` per chunk in run
 * columns keeps them. */
double spmv__sell_run_share_min(int32_t C);
#define SPMV_SELL_RUN_CHUNK_MIN 16
/* The automatic run-column threshold (spmv_sell_opts.runs = -1) for chunk height C: ceil(3C/4) lanes for 4 <= C <= 64,
 * else 0 (no run columns). */
static inline int32_t spmv__sell_run_threshold(int32_t C) { return C >= 4 && C <= 64 ? (3 * C + 3) / 4 : 0; }
int spmv__sell_runs_pay(int32_t C, double share, double per_chunk);

/* A family's x-access choice, measured: probe(emul, idx, x, reps) runs `reps` passes of 64 hardware (emul = 0) or
 * emulated (emul = 1) gathers from x at idx (64 indices into 256 doubles, 32-byte aligned); the faster variant over 7
 * interleaved rounds wins. About 0.1-0.5 ms; call it once per process (pthread_once). The variants give the same
 * results bit for bit (the same products in the same order), so the choice only decides the speed. */
spmv_xaccess spmv__xaccess_measure(double (*probe)(int emul, const int32_t *idx, const double *x, int reps));

/* Shape of kernel k for a matrix of chunk height C (0 for CRS), width resolved. */
spmv_kernel_shape spmv__kernel_shape(const spmv_kernel *k, int32_t C);

/* Reference kernels (src/kernels/ref/). */
extern const spmv_kernel spmv__k_crs_ref;
extern const spmv_kernel spmv__k_sell_ref;

/* CPU tests, detected once (src/arch/cpu.c): CPU flags and OS register state, nothing about families. */
int spmv__cpu_avx512(void);   /* AVX-512 F, DQ, BW, VL with zmm/opmask state enabled */
int spmv__cpu_avx2_fma(void); /* AVX2 and FMA with ymm state enabled */
int spmv__cpu_sve(void);      /* SVE (HWCAP) */
int spmv__cpu_vendor_amd(void);

/* 1 in a build under AddressSanitizer (clang's sanitizer and fuzz builds of CI, gcc -fsanitize=address): the x86
 * SELL kernels compile without their value-index paths there (see SELL_AVX512_ASAN, SELL_AVX2_ASAN) */
#if defined(__SANITIZE_ADDRESS__)
#define SPMV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPMV_ASAN 1
#endif
#endif
#ifndef SPMV_ASAN
#define SPMV_ASAN 0
#endif

/* Software prefetch in the kernels that have it (the x86 families' CRS "-pf" kernels: `bytes` = their values and
 * indices; the AVX-512 SELL kernels through spmv_sell.prefetch: `bytes` = the stored values, counted as 16 MiB
 * with value indices from SPMV_VIDX_AUTO_ENTRIES entries: src/formats/sell.c, sell_set_prefetch): for matrices where
 * `bytes` >= SPMV_PREFETCH_BYTES (far beyond the caches; in cache the prefetches cost 6-14 %), or as the environment
 * variable SPMV_PREFETCH says (1: always, 0: never; for tests and measurements). */
#define SPMV_PREFETCH_ENV "SPMV_PREFETCH"
#define SPMV_PREFETCH_BYTES ((int64_t)16 << 20)
int spmv__prefetch_wanted(int64_t bytes);

/* The threads a multiply of `work` entries on nparts parts runs on (driver.c): one per spmv__team_min_work entries,
 * at most nparts, at least 1; with 1 the driver opens no parallel region. spmv__team_min_work(f): the work a thread
 * needs to pay for a fork and join of f ns: f / SPMV_TEAM_ENTRY_NS entries, at least SPMV_MIN_WORK_PER_THREAD (a
 * second thread halves the time of W entries, W x SPMV_TEAM_ENTRY_NS ns, and adds f: it pays from W = 2f /
 * SPMV_TEAM_ENTRY_NS, one thread per f / SPMV_TEAM_ENTRY_NS entries). spmv__fork_join_ns: this process's fork and
 * join of a region on spmv__max_threads() threads, measured once on first use (about 100 regions: 0.1-1 ms; 0
 * without OpenMP, on one thread, or inside a parallel region), or the environment variable SPMV_FORK_JOIN_NS (ns;
 * for tests and measurements). spmv__team_for: the rule for a given fork and join (the model passes its machine's).
 * spmv__sell_work: the work of a SELL multiply in entries of the CRS kernels' cost (a run-column entry counts a
 * quarter). The model uses them for the parallel region's overhead. */
/* The team that runs a multiply's parts (team.c): fn(arg, t, n) for t = 0 .. n-1 on n threads, n <= nt (the caller is
 * thread 0; fn loops over parts t, t + n, ...). nt <= 1: fn(arg, 0, 1) on the caller. A multiply of at most
 * SPMV_TEAM_SPIN_WORK entries of work runs on the library's helper threads (one round trip between cores to start and
 * join: 0.4 us on 2 cores of the AMD EPYC VM, where an OpenMP region takes 2.8); larger ones, calls inside a parallel
 * region, calls while another thread holds the helpers, and SPMV_TEAM=openmp open an OpenMP region.
 * spmv__team_helpers_used: whether such a call would use the helpers. Helpers late (the caller ran their parts) in more
 * than 1 multiply in 8 in 4 windows of 50 ms in a row give up for the process: their cores are busy with other threads. */
typedef void (*spmv__team_fn)(void *arg, int t, int n);
void spmv__team_run(int nt, int64_t work, spmv__team_fn fn, void *arg);
int spmv__team_helpers_used(int nt, int64_t work);
/* Test hook: helpers that gave up because they were late (team.c) are used again */
void spmv__team_retry(void);
#define SPMV_TEAM_ENV "SPMV_TEAM"
#define SPMV_TEAM_MAX 256
#define SPMV_TEAM_SPIN_WORK ((int64_t)1 << 20)
int spmv__team(int32_t nparts, int64_t work);
/* Entries of work one line of y costs where two cores write it in every multiply (spmv_sell.yshared): the line moves
 * between their caches. pow (4 941 rows, 13 188 entries, 618 lines of y), SELL-C-rows on the AMD EPYC (Zen 5) VM:
 * 1.1-1.3 Gflop/s on 2 threads against 5.1 on 1 in two of three repeats (5 us per multiply, 21 us on 2 threads with
 * 484 lines shared by SELL-16-rows: about 33 ns per shared line, 85 entries of this core's 0.39 ns); SELL-16-256 of
 * the same matrix, whose parts share 27 lines, 5.3-6.3 on 2 (BENCHMARKS.md, 2026-12-05). */
#define SPMV_SHARED_LINE_WORK 64
/* The rule above holds where each thread's share of the multiply (the bytes its kernel declares, x read once:
 * spmv__sell_bytes) stays in its core's private cache between multiplies, so that a shared line moves from one core's
 * cache to the other's in every multiply. Beyond it the lines of y leave the private caches between the writes anyway
 * and a team gains as it does without shared lines: power-law matrices (gen_irregular powerlaw N 8 2.3, N_nzr 6.4-7.1)
 * as SELL-32-rows on 2 threads of the AMD EPYC (Zen 5) VM (L2 1 MiB per core), one thread against the team, 3
 * rounds (declared bytes of a multiply): 8 192 rows (0.88 MB, 665 of 1 024 lines shared) 5.2-5.6 against 4.4
 * Gflop/s, 32 768 rows (3.6 MB) 3.9-4.2 against 5.9-6.1, 131 072 rows (14.5 MB) 2.2-2.4 against 4.9-5.1, 1 048 576
 * rows (119 MB) 1.4-1.5 against 2.4-2.7
 * (BENCHMARKS.md, 2026-12-05 10:52). 1 MiB: the L2 of Zen 5 (512 KiB on Zen 3, 2 MiB on Sapphire Rapids). */
#define SPMV_SHARED_LINE_CACHE_BYTES ((int64_t)1 << 20)
/* Bytes a multiply of S moves, as the team rule counts them: its kernel's declared traffic (spmv_sell_traffic: values,
 * indices, run columns, 16-bit indices, value indices, y, perm, the CRS part) with x read once */
int64_t spmv__sell_bytes(const spmv_sell *S);
/* A team of n threads for a SELL multiply of `work` entries (spmv__sell_work) of S's partition: n, or 1 where the
 * lines of y that several parts write through perm (spmv_sell.yshared, SPMV_SHARED_LINE_WORK entries each) cost
 * more than the team saves, work (1 - 1/n), and each thread's share of spmv__sell_bytes fits in
 * SPMV_SHARED_LINE_CACHE_BYTES. The driver's rule and the model's (ecm.c). */
int spmv__sell_team_cap(const spmv_sell *S, int n, int64_t work);
/* Threads for a SELL multiply of `work` entries: spmv__team's, capped by spmv__sell_team_cap */
int spmv__sell_team(const spmv_sell *S, int64_t work);
int spmv__team_for(int32_t nparts, int64_t work, double fork_join_ns);
int64_t spmv__team_min_work(double fork_join_ns);
double spmv__fork_join_ns(void);
#define SPMV_FORK_JOIN_ENV "SPMV_FORK_JOIN_NS"
/* SPMV_FORK_JOIN_NS as the library reads it: 1 and *ns where it is a number from 0 to 1e9, 0 where it is unset or
 * empty, -1 where it is something else (spmv_arch_get's error) */
int spmv__env_fork_join_ns(double *ns);
/* ns per entry of work in cache on one core that the team rule assumes: the CRS kernels on 11 800-14 800-entry
 * shared matrices (G51, pow, hangGlider_2) take 0.28-0.34 ns per entry on the AMD EPYC (Zen 5) VM, 0.4-0.5 on the
 * Intel Xeon VM; the smaller figure asks for more work per thread */
#define SPMV_TEAM_ENTRY_NS 0.25
int64_t spmv__sell_work(const spmv_sell *S);

/* 16-bit column indices in a SELL matrix of `stored` entries for spmv_sell_opts.idx16 = opt: on (1), off (0), or auto
 * (-1): on where the stored values take SPMV_PREFETCH_BYTES or more (memory-bound: 10 instead of 12 bytes per entry
 * moved). In cache the widening of the indices before each gather costs more than the bytes save: SELL-C-sigma at
 * 1 thread, 16-bit indices against 32-bit on 13 shared matrices (Intel Xeon VM, AVX-512, medians of 9): 0.91-1.05x,
 * median 0.95x (karate 0.91, rajat01 0.91, bcspwr10 0.94; bcsstk13 1.05). */
static inline int spmv__sell_idx16_wanted(int opt, int64_t stored)
{
    return opt > 0 || (opt < 0 && stored >= SPMV_PREFETCH_BYTES / (int64_t)sizeof(double));
}

/* Value indices (spmv_sell_opts.vidx = opt) looked for in a SELL matrix of `stored` chunk entries: the environment
 * variable SPMV_VIDX (1 on, 0 off; for measurements), else on (1), off (0), or auto (-1): from SPMV_VIDX_AUTO_ENTRIES
 * stored entries (2 MiB of values: beyond a core's L2 on current x86 cores). Intel Xeon VM, AVX-512, SELL-32-1,
 * medians of 3 interleaved, Gflop/s at 1 / 2 threads, plain -> value indices: HPCG 32^3 (7 MB of values)
 * 5.2 / 10.2 -> 12.9 / 23.4; HPCG 16^3 (0.9 MB, in L2) 11.9 / 18.1 -> 11.8 / 17.9 (SELL-8-1 10.7 / 18.5 -> 9.7 / 14.8:
 * in L2 the lookup costs more than the bytes save). Whether the matrix qualifies (at most SPMV_VTAB_MAX distinct
 * values) is the conversion's scan. */
#define SPMV_VIDX_ENV "SPMV_VIDX"
#define SPMV_VIDX_AUTO_ENTRIES ((int64_t)1 << 18)
int spmv__sell_vidx_wanted(int opt, int64_t stored);
/* distinct values (bit patterns) of val[0, n), +0.0 counted when zero = 1 (the padding's value), at most
 * SPMV_VTAB_MAX + 1 (the scan stops there); src/formats/sell.c */
int32_t spmv__sell_count_values(const double *val, int64_t n, int zero);

/* The x86 families' lean loop over chunks whose columns are all full run columns (chunkfull[k] = chunklen[k] <=
 * maxlen; src/kernels/avx512/sell_avx512.c): wanted for the chunks [c0, c1) of a SELL matrix with run columns and y
 * indexed directly (SPMV_SELL_DIRECT) when at least 3 in 4 of up to 32 sampled chunks are such; then the general
 * loop hands each chunk to the lean loop first. Elsewhere a pure chunk among others would cost more in the branches
 * into and out of the lean loop than the loop saves (SELL-8-1 on rajat01, bcsstk13, hangGlider_2 lost 2-5 % with
 * every chunk handed over, Zen 5). The sample: one chunk of each of 32 strata of max(1, (c1 - c0) / 32) chunks, at an
 * offset a multiplicative hash of the stratum picks (as the conversion's sell_sample_chunk in sell.c, which takes the
 * offset by a remainder; this check runs in every multiply, so it scales the hash instead: no division). A fixed
 * stride aliased with a grid's period: lap2d 2000^2, SELL-8-1, 1 thread: every 15 625th chunk from 0 is the first of
 * a grid row every other time, so 16 of 32 sampled chunks were not full where 99.2 % of the chunks are, and the lean
 * loop was skipped (6.2 Gflop/s against 17-21 on 2 threads, whose halves sampled at other offsets; Zen 5). */
#define SPMV_SELL_LEAN_LEN 16 /* the longest chunk (columns) the lean loop takes in both families */
static inline int spmv__sell_lean_wanted(const spmv_sell *S, int32_t c0, int32_t c1, int32_t maxlen)
{
    const int32_t n = c1 - c0, step = n > 32 ? n / 32 : 1;
    int32_t yes = 0, samples = 0;
    if (!S->chunkruns || !SPMV_SELL_DIRECT(S)) return 0;
    for (int32_t j = 0; j < 32 && (int64_t)j * step < n; j++, samples++) {
        const uint64_t h = ((uint64_t)(j + 1) * 0x9E3779B97F4A7C15ull) >> 32; /* < 2^32 */
        const int32_t k = c0 + j * step + (int32_t)((h * (uint64_t)step) >> 32); /* inside the stratum */
        yes += S->chunkfull[k] == S->chunklen[k] && S->chunklen[k] <= maxlen;
    }
    return samples > 0 && 4 * yes >= 3 * samples;
}

/* Environment variable that forces non-temporal stores of y on (SPMV_SELL_NT=1) or off (0) for SELL matrices whose
 * kernels index y directly (permuted order or identity perm), whatever spmv_sell_opts.nt_stores says. */
#define SPMV_SELL_NT_ENV "SPMV_SELL_NT"
/* 1 when S asks for non-temporal y stores (SPMV_SELL_NT, else S->nt_stores) and its kernels index y directly
 * (SPMV_SELL_DIRECT: permuted order, or an identity perm). */
int spmv__sell_nt_requested(const spmv_sell *S);
/* 1 when SPMV_SELL_NT is set (not empty): it decides the y stores, whatever a build or a record asks */
int spmv__sell_nt_forced(void);
/* 1 when the family in use has a non-temporal-store kernel for S with its x access and S indexes y directly (what
 * nt_stores = 1 would run); 0 otherwise, also for S NULL or no usable family */
int spmv__sell_nt_available(const spmv_sell *S);

/* p + bytes as an address, formed as an integer sum: a prefetch address may lie past its array and a masked
 * run-column load's base before x (a subdiagonal in chunk 0: key -1) or past its end, where only masked-off lanes
 * would be; such a pointer is undefined in C even when nothing is read through it. */
static inline __attribute__((always_inline)) const void *spmv__addr(const void *p, intptr_t bytes)
{
    return (const void *)((uintptr_t)p + (uintptr_t)bytes);
}
/* x + off (off may be negative) for a masked run-column x load, through spmv__addr */
static inline __attribute__((always_inline)) const double *spmv__run_x(const double *x, int64_t off)
{
    return (const double *)spmv__addr(x, (intptr_t)(off * (int64_t)sizeof(double)));
}

/* The C-lane mask of mb bytes (bit r of byte r / 8: lane r) as a word; C <= 64 (run columns) */
static inline uint64_t spmv__run_mask(const uint8_t *m, int32_t mb)
{
    if (mb == 1) return m[0]; /* C <= 8: no loop */
    uint64_t w = 0;
    for (int32_t q = 0; q < mb; q++) w |= (uint64_t)m[q] << (8 * q);
    return w;
}

/* The column of lane r in run column b (bits: its lanes): b + r -- a lane of the run, or padding where b + r is a
 * column --, else (padding past the matrix's edge) the column of the run's first lane. The conversion pads so, and
 * the decoders below read the run columns so. */
static inline int32_t spmv__run_pad_col(int64_t b, int32_t r, int32_t cols, uint64_t bits)
{
    return b + r >= 0 && b + r < cols ? (int32_t)(b + r) : (int32_t)(b + __builtin_ctzll(bits));
}

/* The column of stored position p of chunk k (chunkptr[k] <= p < chunkptr[k + 1]), whatever holds it: a run column's
 * base and mask (lane r of run column b: b + r where the mask has the lane; a padding lane b + r where that is a
 * column, else the run's first lane, as the conversion pads), a chunk's 16-bit offset from colbase[k], or col[p].
 * spmv_sell.col holds only the last kind (see spmv.h); this is the one decoder of the others (the reference kernel,
 * the model's gather histogram, spmv_sell_chunk_columns). */
static inline int32_t spmv__sell_col(const spmv_sell *S, int32_t k, int64_t p)
{
    const int64_t q = p - S->chunkptr[k];
    const int32_t C = S->C, j = (int32_t)(q / C), r = (int32_t)(q % C);
    if (S->chunkruns && j < S->chunkruns[k]) {
        const int32_t mb = (C + 7) / 8;
        const int64_t run = S->runptr[k] + j;
        return spmv__run_pad_col(S->runbase[run], r, S->cols, spmv__run_mask(S->runmask + (size_t)run * mb, mb));
    }
    if (S->colbase && S->colbase[k] >= 0) return S->colbase[k] + (int32_t)S->col16[p];
    return S->col[p];
}

/* The columns of chunk k at its C chunklen[k] positions into out (col's layout), as spmv__sell_col gives them, a run
 * column or a chunk column at a time (no division per entry): spmv_sell_chunk_columns, alpha's simulation. */
static inline void spmv__sell_chunk_cols(const spmv_sell *S, int32_t k, int32_t *out)
{
    const int32_t C = S->C, R = S->chunkruns ? S->chunkruns[k] : 0, mb = (C + 7) / 8;
    const int64_t p0 = S->chunkptr[k], n = S->chunkptr[k + 1] - p0;
    for (int32_t j = 0; j < R; j++) {
        const int64_t run = S->runptr[k] + j;
        const uint64_t bits = spmv__run_mask(S->runmask + (size_t)run * mb, mb);
        for (int32_t r = 0; r < C; r++) out[(int64_t)j * C + r] = spmv__run_pad_col(S->runbase[run], r, S->cols, bits);
    }
    const int64_t g0 = (int64_t)R * C;
    if (S->colbase && S->colbase[k] >= 0)
        for (int64_t q = g0; q < n; q++) out[q] = S->colbase[k] + (int32_t)S->col16[p0 + q];
    else if (n > g0)
        memcpy(out + g0, S->col + p0 + g0, (size_t)(n - g0) * sizeof *out);
}

#endif
