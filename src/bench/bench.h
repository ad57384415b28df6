/* Microbenchmarks of spmv-machine (not part of the library): core clock, in-core instruction costs, the streaming
 * kernels of Alappat et al., PMBS 2020 (shared/reference/a64fx-spmv-ecm-paper.txt, Sect. II-III, Table III), memory
 * bandwidth against cores, load latency by pointer chasing; and the machine file (spmv_machine) derived from them.
 *
 * Layout: bench_sys.c (topology and caches from sysfs, timers, pinning, aligned/huge-page memory, clock, pointer
 * chase), bench_isa.c (run-time choice of the kernel set), isa_*.c (one kernel set per ISA, each compiled with its
 * own flags only, generated from bench_template.h), bench_run.c (measurement drivers, derivation of the machine).
 * Everything outside isa_avx2.c, isa_avx512.c and isa_sve.c is baseline code, so nothing faults on an older CPU.
 * The overlap fit calls the library's ECM (spmv_ecm_loop_predict, one implementation), so the tool and the test
 * link libspmv or libspmv.a after this library. Units: cy = core cycles (measured clock), B = bytes, GB/s = 1e9 B/s. */
#ifndef SPMV_BENCH_H
#define SPMV_BENCH_H

#include "spmv_tune.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ============================================================================================ kernels per ISA */

/* The paper's streaming kernels (Table III), per element i (s a scalar):
 *   COPY a=b, DAXPY a=a+s*b, DOT sum+=a*b, INIT a=s, LOAD load(a), TRIAD a=b+s*c, SUM sum+=a,
 *   SCHOENAUER a=b+c*d, STENCIL (2D 5-point Jacobi) b[j][i] = s*(a[j][i-1]+a[j][i+1]+a[j-1][i]+a[j+1][i]). */
typedef enum bench_kernel {
    BK_COPY, BK_DAXPY, BK_DOT, BK_INIT, BK_LOAD, BK_TRIAD, BK_SUM, BK_SCHOENAUER, BK_STENCIL,
    BK_TOUCH, /* one vector load per cache line (stride: the line): the link bandwidth with almost no core work */
    BK_NKERNELS
} bench_kernel;

/* Unroll factors (modulo variable expansion for DOT and SUM: as many independent accumulators). */
#define BENCH_NUNROLL 5
extern const int bench_unrolls[BENCH_NUNROLL]; /* 1, 2, 4, 8, 16 */

typedef struct bench_kernel_info {
    const char *name;     /* "TRIAD" */
    const char *formula;  /* "a[i]=b[i]+s*c[i]" */
    int arrays;           /* arrays of the working set */
    int loads, stores;    /* vector loads and stores per vector of elements (STENCIL: layer condition in L1) */
    double rd, wr, wa;    /* bytes per element: explicit reads, explicit writes, write-allocate reads (STENCIL:
                             layer condition satisfied in the cache above the level the data comes from) */
    double flops;         /* per element */
} bench_kernel_info;
extern const bench_kernel_info bench_kernel_infos[BK_NKERNELS];

/* Arguments of one streaming kernel. Arrays aligned to BENCH_ALIGN bytes. n (elements per array) is a multiple of
 * 16*W. STENCIL: a and b are nj rows of ni = m + 2W doubles; the interior i = W .. W+m-1 (m a multiple of 16*W),
 * j = 1 .. nj-2 is updated, so elements = m*(nj-2). TOUCH: ni = the cache line in doubles (the stride), n a multiple
 * of 16*max(W, ni). */
typedef struct bench_stream_args {
    int64_t n;
    int64_t m, ni, nj;
    double *a, *b, *c, *d;
    double s;
} bench_stream_args;

/* Runs reps sweeps; returns a value that depends on the data (reductions), so nothing is optimized away. */
typedef double (*bench_stream_fn)(const bench_stream_args *args, int64_t reps);

/* In-core tests. _LAT: dependent chain (cy per instruction = latency); _TP: independent chains (cy per
 * instruction = reciprocal throughput). GATHER: W doubles at irregular addresses in L1 with the indices in
 * registers; the latency chain feeds each gather's data (64-bit integers) back as its indices. GATHERLD: the
 * same fed by a contiguous load of W 32-bit indices (as in SpMV); its latency chain goes index load -> gather ->
 * lane 0 to a general register -> address of the next index load. HADD: sum of the W lanes of one register
 * (x86: extract/add/shuffle sequence; SVE: faddv; the latency chain broadcasts the sum back, SVE: + dup). */
typedef enum bench_incore {
    BI_FMA_LAT, BI_FMA_TP, BI_ADD_LAT, BI_ADD_TP, BI_MUL_LAT, BI_MUL_TP,
    BI_GATHER_LAT, BI_GATHER_TP, BI_GATHERLD_LAT, BI_GATHERLD_TP, BI_HADD_LAT, BI_HADD_TP,
    BI_GATHER_1L, BI_GATHER_2L, BI_GATHER_4L, BI_GATHER_8L, /* index load + gather, addresses in 1/2/4/8 lines */
    BI_EMUL_TP,   /* emulated gather: W scalar index loads, W scalar x loads, inserts (as the SpMV kernels) */
    BI_MASKLD_TP, /* masked unaligned vector load (x of SELL run columns) */
    BI_SLOAD_TP,  /* scalar load in the mix of a CRS entry: a 4-byte index and two 8-byte loads */
    BI_VIDX_TP,   /* a vector of values through one-byte value indices and a 16-entry table (spmv_sell.val8) */
    BI_XGATHER_TP, /* index load + gather times a contiguous value load (a SpMV entry's x and value); spmv-machine
                      times it with x beyond the caches (measure_xrand), not in L1 */
    BI_XEMUL_TP,  /* the same with the emulated gather */
    BI_N
} bench_incore;
extern const char *const bench_incore_names[BI_N];

/* Data of the in-core tests (bench_incore_data_init): everything fits in a 32 KiB L1. */
typedef struct bench_incore_data {
    double one, zero;       /* 1.0 and 0.0, read through a volatile so the compiler cannot fold them */
    double *x;              /* nx doubles, the gather source */
    int32_t *idx;           /* nidx indices into x (random), for GATHER_TP (first registers) and GATHERLD_TP */
    int64_t nx, nidx;       /* nidx: a multiple of 24*W*8 */
    double *gtab;           /* nt 64-bit integers (stored as doubles): a random cyclic permutation of 0..nt-1 */
    double *gstart;         /* W 64-bit integers: the start indices of the gather latency chain */
    int64_t nt;
    int32_t *idx2;          /* nidx indices into xg (GATHERLD_LAT) */
    double *xg;             /* nt 64-bit integers: offsets into idx2, multiples of W below nidx */
    int32_t *idxl[4];       /* nidx indices into x each: every W consecutive ones fall in exactly 1, 2, 4, 8 distinct
                               cache lines of 64 bytes (at most W), lanes spread round-robin over the lines */
    int64_t *maskv;         /* W 64-bit lane masks, all set (the masked-load test; an opaque value) */
    uint8_t *vidx;          /* nidx one-byte value indices 0..15 (random) into the table x[0..15] */
    double *val;            /* nidx + 64 values (1.0): the value stream of XGATHER_TP and XEMUL_TP */
    void *mem;              /* the one allocation */
} bench_incore_data;

typedef int64_t (*bench_incore_fn)(int64_t iters, const bench_incore_data *d); /* returns instructions timed */

/* One kernel set: the widest vector ISA of its kind, compiled with its own flags. */
typedef struct bench_isa {
    const char *name;       /* "avx512", "avx2", "sve", "scalar" */
    const char *desc;       /* "AVX2+FMA (256-bit)" */
    int (*width)(void);     /* doubles per vector register (SVE: svcntd(), known at run time only) */
    int has_fma;            /* 0: the FMA test times a multiply and a dependent add (x86 baseline) */
    int has_hadd;           /* 0: W = 1, no horizontal add */
    bench_stream_fn stream[BK_NKERNELS][BENCH_NUNROLL];
    bench_incore_fn incore[BI_N];
} bench_isa;

/* Kernel sets compiled into this build (NULL where not built); bench_isa_usable: built and supported by this CPU
 * and OS (cpuid/xgetbv through __builtin_cpu_supports on x86, getauxval(AT_HWCAP) & HWCAP_SVE on aarch64). */
const bench_isa *bench_isa_find(const char *name);
int bench_isa_usable(const bench_isa *isa);
/* The widest usable kernel set (avx512 > avx2 > scalar on x86-64; sve > scalar on aarch64). Never NULL. */
const bench_isa *bench_isa_best(void);
/* All built kernel sets, NULL-terminated (for --help and the tests). */
const bench_isa *const *bench_isa_all(void);

/* Allocate and fill the in-core data for vector width w (random, from seed). Returns 0 on success. */
int bench_incore_data_init(bench_incore_data *d, int w, uint64_t seed);
void bench_incore_data_free(bench_incore_data *d);

/* ============================================================================================ system */

#define BENCH_ALIGN 1024            /* array alignment of the streaming kernels (the paper's 1024 bytes) */
#define BENCH_MAX_CPUS 1024
#define BENCH_MAX_CACHES 4

typedef struct bench_cache {
    char name[8];           /* "L1", "L2", "L3" */
    int level;
    int64_t size;           /* bytes of one instance */
    int ways;               /* 0 = fully associative or unknown */
    int line;               /* bytes */
    int shared_cpus;        /* logical CPUs sharing one instance (shared_cpu_list) */
    int shared_cores;       /* physical cores sharing one instance */
    int instances;          /* instances among the allowed CPUs */
} bench_cache;

typedef struct bench_topo {
    char cpu_name[128];     /* /proc/cpuinfo model name (or the aarch64 implementer/part) */
    char uarch[32];         /* "Zen 3", "A64FX", ... when known, else "" */
    char vendor[32];        /* "AuthenticAMD", "GenuineIntel", "Fujitsu", "Arm", ... */
    char hostname[64];
    int virtualized;        /* the "hypervisor" cpuid flag */
    int ncpus;              /* logical CPUs this process may run on */
    int cores;              /* physical cores among them */
    int sockets, numa_nodes, threads_per_core;
    int cores_per_socket, cores_per_numa;
    int ncore_cpus;         /* cores of the first NUMA domain, one logical CPU each, compact order */
    int core_cpus[BENCH_MAX_CPUS];
    int ncaches;            /* data/unified caches, L1 first */
    bench_cache cache[BENCH_MAX_CACHES];
    int cacheline;
    int from_sysfs;         /* 0: cache data from sysconf or defaults (said on stderr) */
    char thp[16];           /* transparent huge pages: "always", "madvise", "never", "" */
} bench_topo;

/* Topology of the CPUs this process may use and the cache hierarchy of the first of them. */
void bench_topo_detect(bench_topo *t);

double bench_now(void);     /* wall clock, seconds (CLOCK_MONOTONIC) */

/* Aligned (BENCH_ALIGN; 2 MiB and MADV_HUGEPAGE from 4 MiB on) zero-filled memory; NULL on failure. */
void *bench_alloc(size_t bytes);
void bench_free(void *p);

/* Pin the calling thread to one logical CPU (0 on success); bench_pin_save/restore keep the mask around it. */
int bench_pin(int cpu);
void bench_affinity_save(void);
void bench_affinity_restore(void);

/* Core clock in GHz: a chain of `adds` dependent 1-cycle integer adds (inline asm add reg,reg on x86-64 and
 * aarch64) against the wall clock. *tsc_ghz (x86: the TSC rate over the same interval, else 0) may be NULL. */
double bench_clock_once(int64_t adds, double *tsc_ghz);

/* Pointer chasing: n = bytes/stride nodes, one per `stride` bytes (a cache line), linked in one random cycle
 * (Sattolo's algorithm: a uniformly random cyclic permutation). Returns the node count (0 on bad arguments or no
 * memory for the temporary). bench_chase_run follows `steps` links from start and returns where it ends. */
int64_t bench_chase_init(void *buf, size_t bytes, size_t stride, uint64_t seed);
void *bench_chase_run(void *start, int64_t steps);

uint64_t bench_rand(uint64_t *state); /* splitmix64 */

/* Bytes of the mapping that holds p backed by transparent huge pages (AnonHugePages in /proc/self/smaps), or -1
 * where that cannot be read (not Linux, no such mapping). */
int64_t bench_huge_bytes(const void *p);

/* Where the tuner looks: $XDG_DATA_HOME/spmv/machines/<host>.machine ($XDG_DATA_HOME defaults to
 * ~/.local/share; <host> = the host name with characters outside [A-Za-z0-9._-] as '-', or the CPU name when the
 * host name is empty). Returns 0 when neither XDG_DATA_HOME nor HOME is set or buf is too small. */
int bench_machine_path(const bench_topo *t, char *buf, size_t size);

/* ============================================================================================ measurements */

/* bandwidth curve kinds: READ (STREAM's read-only "sum": SUM with 8 accumulators, the machine file's "load"
 * bandwidth), COPY, TRIAD */
enum { BW_LOAD, BW_COPY, BW_TRIAD, BW_NKINDS };
#define BENCH_MAX_LEVELS 5          /* working-set levels: L1, L2, L3, MEM (+1 spare) */
#define BENCH_MAX_LAT 64

typedef struct bench_opts {
    const bench_isa *isa;   /* NULL: bench_isa_best() */
    int quick;              /* fewer sizes, shorter runs */
    double window;          /* seconds per timed window (0: 0.25 ms quick, 0.5 ms full) */
    int windows;            /* timed windows per measurement, the best is kept (0: 8 quick, 20 full) */
    int passes;             /* passes over all measurements, seconds apart; the best of each is kept (0: 4 quick,
                               16 full): on a shared machine a disturbance can outlast a whole measurement */
    int max_threads;        /* bandwidth curve 1..max_threads (0: the cores of the first NUMA domain) */
    int64_t mem_bytes;      /* working set of the memory level (0: from the last-level cache, see bench_run.c) */
    int latency_sweep;      /* also a size sweep for the latency (1 in full mode) */
    int verbose;            /* progress on stderr */
    int parts;              /* bit set of BENCH_PART_*, 0 = all */
    uint64_t seed;
} bench_opts;
enum { BENCH_PART_CLOCK = 1, BENCH_PART_INCORE = 2, BENCH_PART_STREAM = 4, BENCH_PART_LATENCY = 8,
       BENCH_PART_BW = 16 };

typedef struct bench_results {
    bench_topo topo;
    const bench_isa *isa;
    int width;                                /* W: doubles per vector of the ISA measured */
    int pinned;                               /* 1: threads pinned here; 2: by OMP_PLACES/OMP_PROC_BIND */
    double clock_ghz;                         /* best of short windows */
    double clock_min_ghz;                     /* the same chain over 0.1 s (lower: time-shared or throttled) */
    double tsc_ghz;                           /* TSC rate over the best window (x86), else 0 */
    double incore[BI_N];                      /* cy per instruction at the clock measured around it, the median
                                                 of the rounds within 5% of the best (0 = not measured) */
    double incore_s[BI_N];                    /* the best in seconds */
    int nlevels;                              /* working-set levels: caches, then MEM */
    char level_name[BENCH_MAX_LEVELS][8];
    int64_t level_bytes[BENCH_MAX_LEVELS];    /* working set of the streaming kernels at each level */
    double stream_cy[BK_NKERNELS][BENCH_MAX_LEVELS][BENCH_NUNROLL]; /* cy per vector of W elements, at the clock
                                                                       measured around it, the median of the
                                                                       passes within 5% of the best (MEM: of all
                                                                       passes; 0 = none) */
    double stream_s[BK_NKERNELS][BENCH_MAX_LEVELS][BENCH_NUNROLL];  /* the best in seconds */
    int nthreads;                             /* bandwidth curve length */
    int bw_unroll;                            /* unroll factor of the curve's kernels */
    int64_t bw_bytes;                         /* working set of the curve (all threads) */
    double bw[BW_NKINDS][BENCH_MAX_CPUS];     /* GB/s (explicit + write-allocate) with t+1 threads: the median of
                                                 the passes (bench_median) */
    double bw_lo[BW_NKINDS][BENCH_MAX_CPUS];  /* the slowest and the fastest pass of each, GB/s */
    double bw_hi[BW_NKINDS][BENCH_MAX_CPUS];
    int bw_passes[BW_NKINDS][BENCH_MAX_CPUS]; /* passes of each (measured with the threads asked) */
    double fork_join_s;                       /* one empty OpenMP parallel region on nthreads threads, s (best; 0:
                                                 not measured, or one thread) */
    int nlat;                                 /* latency sweep */
    int64_t lat_bytes[BENCH_MAX_LAT];
    double lat_ns[BENCH_MAX_LAT];
    double level_lat_ns[BENCH_MAX_LEVELS];    /* at level_bytes (MEM: the memory working set) */
    int nsweep;                               /* bandwidth sweep of one core (SUM) over working-set sizes */
    int64_t sweep_bytes[BENCH_MAX_LAT];
    double sweep_gbs[BENCH_MAX_LAT];
    int64_t eff_bytes[BENCH_MAX_LEVELS];      /* effective capacity of each cache level (bench_effective_sizes) */
    int64_t eff_lat_bytes[BENCH_MAX_LEVELS];  /* the latency sweep's view: largest size within 1.5x of the level's
                                                 latency; for a level whose latency is more than half of memory's,
                                                 the largest size below half the memory latency (0: no sweep) */
    double xrand_raw_ns[2][SPMV_XRAND_POINTS + 1]; /* ns per element of x at a uniformly random line, x of 16 KiB
                                                 (in L1, logged), then 4 << 2i MiB: [0] XGATHER_TP, [1] XEMUL_TP
                                                 (scalar ISA: its XGATHER_TP, a scalar load); the best of the
                                                 passes (0 = not measured); the machine file's xrand_ns are
                                                 the points after the L1 one */
    double xrand_huge;                        /* share of x (256 MiB) in huge pages in the last random-x pass, -1
                                                 unknown */
    double seconds[6];                        /* time of each part: clock, incore, stream, latency, bw, total */
    int passes;                               /* passes run */
} bench_results;

/* Measure everything opts asks for. The calling thread is pinned to the first core while it runs (unless
 * OMP_PLACES/OMP_PROC_BIND are set), and its mask restored after. log (may be NULL) gets progress lines.
 * Returns 0 on success, -1 when memory could not be allocated (said on log). */
int bench_run(const bench_opts *opts, bench_results *r, FILE *log);

/* Best over the unroll factors (cy per VL; *unroll gets the factor, may be NULL); 0 when not measured. */
double bench_best_cy(const bench_results *r, bench_kernel k, int level, int *unroll);
/* GB/s of kernel k for cy/VL at the run's clock: with_wa 0: explicit bytes; 1: plus write-allocate. */
double bench_gbs(const bench_results *r, bench_kernel k, int level, double cy_per_vl, int with_wa);

/* Effective capacity of the cache levels (r->eff_bytes; r->eff_lat_bytes from the latency sweep): the last-level
 * cache from the bandwidth sweep of one core -- the capacity C that best explains it (least mean |log| error over
 * the sweep) when a working set ws gets min(C, ws)/ws of its bytes at the cache's bandwidth (the sweep's best below
 * C) and the rest at memory's (the sweep's largest size), the placement the model assumes (spmv_model.share); at most
 * the hardware's size. Other levels: the hardware's size. No sweep: the hardware's sizes. */
void bench_effective_sizes(bench_results *r);

/* The overlap-hypothesis fit (Alappat et al., Sect. III-A), per level: level by level from the core (L1, L2, ..,
 * MEM), for each rule (none, full, a64fx-partial) the upstream read bandwidth of the level is calibrated so that the
 * model (spmv_ecm_loop_predict, the library's one ECM combination) reproduces the read-only stream (the better of
 * LOAD and SUM) at that level; the rule's error is the mean |log(predicted/measured)| over the kernels COPY, DAXPY,
 * DOT, INIT, TRIAD, SUM, SCHOENAUER at that level. A calibrated bandwidth more than 10 % above the measured link
 * bandwidth (cap:
 * the most bytes per cycle any kernel, TOUCH and the write-allocates included, moved towards the core at that level)
 * is rejected: the rule is then scored at the cap (on AMD Zen 5 "a64fx-partial" asks 87 B/cy of the L2, whose link
 * moves at most 63 B/cy (INIT's write-allocates): at 63 B/cy it is still the rule that explains SpMV in L2, whose
 * loads do not overlap with the L2 transfers). The best accepted rule is kept
 * before the next level is fitted. L1: full overlap or a64fx-partial (stores overlap), from the kernels in L1.
 * forced >= 0: that rule at every level, calibrated, nothing rejected. */
typedef struct bench_fit {
    spmv_overlap rule[BENCH_MAX_LEVELS];           /* chosen per level */
    double bw[BENCH_MAX_LEVELS];                   /* calibrated upstream read bandwidth under it, B/cy ([0]: L1
                                                      load bytes/cy) */
    double cap[BENCH_MAX_LEVELS];                  /* measured link bandwidth, B/cy */
    double try_bw[BENCH_MAX_LEVELS][3];            /* calibrated bandwidth under each rule (at most the cap) */
    int clamped[BENCH_MAX_LEVELS][3];              /* 1: the calibration asked for more than the cap */
    double err[BENCH_MAX_LEVELS][3];               /* error of each rule (INFINITY: rejected or not measured) */
    double pred[BENCH_MAX_LEVELS][3][BK_NKERNELS]; /* cy/VL predicted under each rule at that level (levels below
                                                      as chosen); 0 = not predicted */
    double final[BK_NKERNELS][BENCH_MAX_LEVELS];   /* cy/VL predicted with the chosen rules */
    double total_err;                              /* mean |log| error of `final` over the fit kernels, levels >= 1 */
} bench_fit;
void bench_overlap_fit(const bench_results *r, int forced, bench_fit *fit);
/* The upstream read bandwidth of level L (>= 1) under each rule (try_bw[spmv_overlap]) with the rules and bandwidths
 * of the levels below given (rule[0..L-1], bw[0..L-1]): calibrated on the read-only stream as bench_overlap_fit does,
 * at most 1.1 x the measured link bandwidth fit->cap[L] (then the cap); 0 where it cannot be calibrated. */
void bench_fit_level_bw(const bench_results *r, const bench_fit *fit, const spmv_overlap *rule, const double *bw,
                        int L, double try_bw[3]);

/* Fill a machine (model name, clock, topology, in-core costs, bandwidths, levels, effective sizes) from the results
 * and the fit: L1 upstream = LOAD bytes/cy in L1 (write: INIT); L2, L3 and MEM: the fitted rule and upstream
 * read bandwidth (MEM: of one core, as the ECM model's single-core memory term); saturated bandwidths (one NUMA
 * domain) from the curves. */
void bench_fill_machine(const bench_results *r, const bench_fit *fit, const char *name, spmv_machine *m);

/* The SpMV check of the overlap rules (bench_spmv.c): for each level L >= 1 of m (filled from r and fit), from L2
 * outwards, the library's CRS, SELL-8-1 and SELL-32-1 kernels on 1 thread (pinned to the first core) on HPCG n^3 (n =
 * bench_check_hpcg_n: the data set half the level's effective size, eight times the last cache's for memory; for memory
 * the SELL matrices plain, 12 bytes per entry, with ordinary y stores) are measured (the best of 3 interleaved
 * rounds, each the best of 5 runs of >= 5 ms; 3 more rounds per try while bench_check_retry says so, up to max_tries
 * measurements) and predicted by spmv_model_* under each rule, each at its upstream
 * bandwidth calibrated on the read-only stream with the rules already chosen below (bench_fit_level_bw); for memory the
 * bandwidth of each rule is then fitted on the three kernels themselves (the least error, between a quarter of the
 * stream's and the stream's: a SpMV kernel that stores y while it reads gets less of one core's memory bandwidth than
 * the read-only stream, never more); bench_check_choose picks the rule from the errors (mean
 * |log(predicted/measured)|), which is set in m with its bandwidth. Memory is not checked (its rule kept, n = 0) when
 * the capped matrix is less than 4x the last cache. Where memory was checked, the cost of non-temporal y stores is
 * then fitted (check_nt in bench_spmv.c; bench_check.nt_*) and set in m (spmv_machine.nt_store_cost) when the family
 * has such a kernel. Returns 0, or -1 (NULL, a level too small for its matrix, out of
 * memory: m unchanged). Timing-dependent by nature: tests check its structure, not its choice. */
enum { BENCH_CHECK_KERNELS = 3 };
#define BENCH_CHECK_MARGIN 0.05
/* the largest HPCG n of the check: 80^3 = 13.8 M nonzeros, 0.17 GB in each of CRS, SELL-8 and SELL-32 (a last cache
 * of more than 22 MiB effective then gets a memory matrix of less than 8x its size) */
#define BENCH_CHECK_MAX_N 80
#define BENCH_CHECK_ROUNDS 3
/* a level whose every rule errs by more than BENCH_CHECK_RETRY_ERR (mean |log|: 16 %) is measured again, up to
 * BENCH_CHECK_TRIES times in all, BENCH_CHECK_PAUSE_S seconds apart, each try adding BENCH_CHECK_ROUNDS rounds to the
 * best: on the Zen 5 VM a host phase that slows a core lasts tens of seconds, and a check in one chose L3's rule from
 * kernels at 64-72 % of their usual speed (2026-12-07 07:37: SELL-8 at 12.0 Gflop/s against 18.6 the day before,
 * every rule 0.26-0.35 off, where a calm run fits one at 0.06) */
#define BENCH_CHECK_RETRY_ERR 0.15
#define BENCH_CHECK_TRIES 4
#define BENCH_CHECK_PAUSE_S 2
typedef struct bench_check {
    int done;                                                            /* 1: it ran */
    int n[SPMV_MACHINE_MAX_LEVELS];                                      /* HPCG n per level (0: not checked; rule
                                                                            kept) */
    double mb[SPMV_MACHINE_MAX_LEVELS];                                  /* its matrix and vectors, MB */
    char kernel[SPMV_MACHINE_MAX_LEVELS][BENCH_CHECK_KERNELS][48];       /* kernel names */
    double meas[SPMV_MACHINE_MAX_LEVELS][BENCH_CHECK_KERNELS];           /* Gflop/s measured */
    double pred[SPMV_MACHINE_MAX_LEVELS][3][BENCH_CHECK_KERNELS];        /* Gflop/s per rule (0: not predicted) */
    double err[SPMV_MACHINE_MAX_LEVELS][3];                              /* mean |log|; INFINITY: not available */
    double bw[SPMV_MACHINE_MAX_LEVELS][3];                               /* B/cy of each rule, calibrated with the
                                                                            rules chosen below (bench_fit_level_bw);
                                                                            memory: then on the SpMV kernels
                                                                            (bench_min_log, at most the stream's) */
    double stream_bw[SPMV_MACHINE_MAX_LEVELS][3];                        /* B/cy of each rule on the read-only
                                                                            stream (bench_fit_level_bw) */
    int stream_rule[SPMV_MACHINE_MAX_LEVELS], rule[SPMV_MACHINE_MAX_LEVELS]; /* spmv_overlap values */
    int tries[SPMV_MACHINE_MAX_LEVELS];                                  /* measurements of the level (1 .. BENCH_CHECK_
                                                                            TRIES; the best of 3 x tries rounds); 0:
                                                                            not checked */
    /* non-temporal y stores (check_nt, after memory's rule; nt_nx 0: not run, the Laplacian less than 4x the last
     * cache, or out of memory): a 2D Laplacian nt_nx^2, SELL-32-1 with
     * ordinary [0] and non-temporal [1] y stores, Gflop/s measured (the best of 6 interleaved rounds) and predicted
     * at the fitted cost (nt_pred1: the streaming one at cost 1, the declared bytes); nt_cost 0: not fitted (no
     * streaming-store kernel, SPMV_SELL_NT forcing one kind, the model failed, out of memory) */
    int nt_nx, nt_available; /* nt_available: kernel [1] streams and [0] does not (their shapes' nt); 0: not timed */
    char nt_kernel[2][48];
    double nt_meas[2], nt_pred[2], nt_pred1, nt_cost;
} bench_check;
/* the 2D Laplacian of the streaming-store check: BENCH_NT_NX^2 at most (4.2 M rows, 21 M nonzeros, 0.25 GB in CRS),
 * sized at BENCH_NT_ROW_BYTES per row (the default compressed SELL-32-1 with ordinary y stores) */
#define BENCH_NT_NX 2048
#define BENCH_NT_ROW_BYTES 30.0
/* the range of the fitted spmv_machine.nt_store_cost */
#define BENCH_NT_COST_MIN 0.25
#define BENCH_NT_COST_MAX 16.0
/* max_tries: measurements of a level at most (bench_check_retry; < 1: 1, above BENCH_CHECK_TRIES: that), the
 * tests 1 (their toy machine fits no rule well, and a sanitizer slows the kernels) */
int bench_spmv_check(const bench_results *r, const bench_fit *fit, spmv_machine *m, bench_check *c, int max_tries,
                     FILE *log);
/* The x in [lo, hi] (0 < lo <= hi) where f(x, arg) is least, searched in log x: BENCH_MIN_GRID points spaced evenly
 * in log x from lo to hi, then golden-section steps between the best point's neighbours (a ratio of 1.0005 at the
 * end); the first of equal values (the lower x). For a function that falls and then rises (the check's error against
 * the memory bandwidth: the sum of |log(predicted/measured)| of kernels whose prediction grows with it) the minimum;
 * NaN values count as +infinity. Returns lo when hi < lo or either is not positive and finite. */
#define BENCH_MIN_GRID 13
double bench_min_log(double (*f)(double x, void *arg), void *arg, double lo, double hi);
/* The rule for errors err[3] (indexed by spmv_overlap; INFINITY = not available): the least error, where a rule must
 * beat the one preferred before it by more than BENCH_CHECK_MARGIN; preference: the streams' rule, a64fx-partial,
 * full, none. The streams' rule when none is available. */
int bench_check_choose(const double err[3], int stream_rule);
/* 1 when a level checked `tries` times with errors err[3] is to be measured again: every available rule's error above
 * BENCH_CHECK_RETRY_ERR, at least one available (INFINITY: no rule calibrated, which a new measurement does not
 * change), and tries < max_tries (at most BENCH_CHECK_TRIES); else 0. */
int bench_check_retry(const double err[3], int tries, int max_tries);

/* The length branches' mispredicts (spmv_machine.len_branch_*): the library's CRS kernel on one thread on pairs of
 * matrices of the same 2^10 .. 2^17 rows of 1-16 entries (x of 8 KiB, in L1), their lengths at random and sorted,
 * 3 interleaved rounds of the best of 5 timings each: (t_random - t_sorted) per row in cycles at clock_ghz over the
 * difference of their changes per row (spmv_crs_len_branch_changes of the kernel the library picks). *learned: the
 * most rows of the sizes from the smallest on whose cost is below 10 % of that at the most rows (0: none learned);
 * *missed: the fewest rows above those at 90 % or more of it (0 with *learned 0); *cy: the median cost of the sizes
 * from *missed on. All 0 when it cannot run or the cost comes out at 0 or less (a log line says so). */
void bench_len_branch(double clock_ghz, double *cy, double *learned, double *missed, FILE *log);
/* bench_len_branch's reading of its sweep: pc[p] the cost per change at 2^(log2_first + p) rows, p < np (1..64) */
void bench_len_branch_fit(const double *pc, int np, int log2_first, double *cy, double *learned, double *missed);

/* The median of v[0..n-1] (the mean of the two middle values when n is even); 0 when n <= 0. At most the first 64
 * values are used. How spmv-machine combines the passes of a memory-level figure (src/bench/bench_run.c, Method). */
double bench_median(const double *v, int n);
/* HPCG n for the check of level L of m: cbrt(size / 350 B per row), at most BENCH_CHECK_MAX_N (0: L out of range,
 * or a level too small for n >= 4) */
int bench_check_hpcg_n(const spmv_machine *m, int L);

#endif
