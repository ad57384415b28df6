/**
 * @file spmv_model.h
 * spmv_model.h -- the performance model of spmv: machine files measured by spmv-machine, the right-hand-side
 * traffic factor (alpha_rhs, Kreutzer et al. 2014), the code balance with padding (beta_fill = nnz / stored), the
 * roofline and the ECM prediction (Alappat et al., PMBS 2020; Hofmann et al. 2020). The names alpha_rhs and
 * beta_fill keep these apart from the multiply's scalars alpha and beta (y = alpha A x + beta y).
 * Core types (spmv_crs, spmv_sell, spmv_traffic, spmv_status): spmv.h, included here.
 */
#ifndef SPMV_MODEL_H
#define SPMV_MODEL_H

#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================================================ */
/* Model: machine files, right-hand-side traffic (alpha), code balance, roofline, ECM                */
/* ================================================================================================ */
/* References: Alappat et al., PMBS 2020 (shared/reference/a64fx-spmv-ecm-paper.txt), Sect. II (machine data,
 * Tables I and II), Sect. III (ECM model, overlap hypothesis, multicore saturation), Sect. IV (SpMV);
 * Kreutzer et al. 2014 (alpha, SELL-C-sigma code balance); Hofmann et al. 2020 (ECM for Intel server cores).
 * Units throughout: cycles (cy) of the core clock, bytes (B), B/cy, GB/s = 1e9 B/s, Gflop/s = 1e9 flop/s. */

#define SPMV_MACHINE_MAX_LEVELS 6   /* memory hierarchy levels in a machine file, memory included */
#define SPMV_MACHINE_MAX_CORES 512  /* entries of a measured bandwidth-versus-cores curve */

/** How the transfers of one level (between it and the level above it, towards the core) overlap with the other
 * contributions of the ECM model (Sect. III-A). Machine-file values in quotes; kerncraft's `transfers overlap:
 * false/true` are read as none/full.
 *  NONE  "none":          all transfer cycles of the level add up with the other non-overlapping ones (Intel
 *                         server cores, Hofmann et al. 2020);
 *  FULL  "full":          the level's transfers overlap with everything; they only count when they alone are the
 *                         longest contribution;
 *  A64FX "a64fx-partial": the paper's hypothesis: cycles in which the level is written (core stores into L1; the
 *                         memory interface writing data out) overlap, cycles in which it is read do not. On level L1
 *                         this is also the usual Intel convention that stores belong to T_OL, loads to T_nOL. */
typedef enum spmv_overlap { SPMV_OVERLAP_NONE = 0, SPMV_OVERLAP_FULL = 1, SPMV_OVERLAP_A64FX = 2 } spmv_overlap;

/** Which measured saturated memory bandwidth is the roofline's b_S. The paper uses TRIAD for SpMV (Sect. IV, Fig. 5)
 * and the read-only bandwidth for the read-only SUM (Fig. 4b). SPMV_BW_MIX (the model's default): the bandwidth of the
 * kernel's own mix of reads and writes (spmv_machine_mix_bandwidth), about the read-only figure for SpMV, which
 * reads 95-98 % of its bytes. */
typedef enum spmv_bw_kind { SPMV_BW_TRIAD = 0, SPMV_BW_LOAD = 1, SPMV_BW_COPY = 2, SPMV_BW_MIX = 3 } spmv_bw_kind;

/** One level of the memory hierarchy, ordered from the core: L1, L2, [L3,] MEM (the last level is the memory). */
typedef struct spmv_machine_level {
    char name[16];              /**< "L1", "L2", "L3", "MEM" */
    int64_t size;               /**< bytes of one instance of the cache; 0 for MEM */
    int32_t ways;               /**< associativity; 0 = fully associative (or unknown); 0 for MEM */
    int32_t cores_per_group;    /**< cores sharing one instance (1 = private); for MEM: cores of a NUMA domain */
    double upstream_bw;         /**< B/cy towards the level above: L1: core load bandwidth (informative, the model
                                   uses the in-core instruction costs), L2: L2->L1, MEM: memory->LLC per NUMA
                                   domain (the paper: the measured TRIAD bandwidth, 117 B/cy on A64FX) */
    double upstream_write_bw;   /**< B/cy for the write direction (evictions); 0 = same as upstream_bw */
    spmv_overlap overlap;       /**< overlap rule of this level's transfers */
    int64_t effective_size;     /**< bytes of one instance that hold a working set in practice, measured by
                                   spmv-machine (latency and bandwidth sweeps): less than size when the cache is
                                   shared with other tenants or a virtual machine's CPUID overstates it (a 2-core VM
                                   reports a 508 MiB L3 that streams like 38 MiB); 0 = size. The model places the
                                   data set by it ("in cache", the roofline's levels) */
    int64_t random_size;        /**< bytes of one instance that hold randomly accessed lines at the level's latency
                                   (spmv-machine's pointer chase: the largest size within 1.5x of the level's
                                   latency, or, for a level whose latency is more than half of memory's, the
                                   largest size below half the memory latency; page walks make it smaller than
                                   effective_size); 0 = effective_size. The
                                   alpha simulation uses the smaller of the two: x is reused at random */
} spmv_machine_level;

/** Sizes of x at which spmv-machine measures the random-line time (spmv_machine.xrand_ns): 4 << 2i MiB. */
#define SPMV_XRAND_POINTS 4

/** A machine: what the ECM and roofline models need, in a plain-text machine file (see machines/TEMPLATE.machine
 * for every key; keys mirror kerncraft's YAML machine files where one exists). In-core costs are per vector
 * instruction on SIMD registers of simd_width doubles; "rthroughput" is the reciprocal throughput (cy per
 * instruction with enough independent instructions), "latency" the dependent-chain time. A field of 0 is "not
 * measured" unless said otherwise. */
typedef struct spmv_machine {
    char name[128];             /**< model name (free text, one line) */
    double clock_ghz;           /**< core clock, GHz (> 0) */
    int32_t sockets;            /**< >= 1 */
    int32_t cores_per_socket;   /**< >= 1 */
    int32_t cores_per_numa;     /**< cores per NUMA domain (A64FX: a CMG of 12 cores), divides cores_per_socket */
    int32_t cacheline;          /**< bytes (> 0, a power of two) */
    int32_t simd_width;         /**< doubles per SIMD register (>= 1) */
    double fma_latency, fma_rthroughput;  /**< cy */
    double add_latency, add_rthroughput;  /**< cy */
    double mul_latency, mul_rthroughput;  /**< cy */
    double load_rthroughput;     /**< cy per contiguous vector load (ld1d, vmovapd) */
    double store_rthroughput;    /**< cy per contiguous vector store */
    double gather_rthroughput;   /**< cy per gather of simd_width doubles with irregular ("complex") addresses */
    double gather_index_penalty; /**< cy added per gather when its indices come from a preceding load; it replaces
                                    that index load's own cost (A64FX: 1.5 instead of 0.5, Sect. II-A) */
    double hadd_latency, hadd_rthroughput; /**< horizontal add of one register (faddv; A64FX 49 and 11.5 cy) */
    double scalar_load_rthroughput;  /**< cy per scalar load in the mix of a CRS entry (a 4-byte index, an 8-byte
                                        value and an 8-byte x element; 0 = not measured: load_rthroughput) */
    double masked_load_rthroughput;  /**< cy per masked unaligned vector load (x of SELL run columns; 0 = not
                                        measured: load_rthroughput) */
    double emul_gather_rthroughput;  /**< cy per emulated gather of simd_width doubles: simd_width scalar index loads,
                                        simd_width scalar x loads and the inserts (0 = not measured: 2 simd_width
                                        scalar loads) */
    double vidx_rthroughput;         /**< cy per vector of simd_width values read through value indices (spmv_sell.val8)
                                        as the family's kernels do: AVX-512 an 8-byte load of 8 one-byte indices,
                                        vpmovzxbq and vpermt2pd from a 16-entry table in two registers; AVX2 a
                                        4-byte load, vpmovzxbd and a gather from the table (its gather kernels; the
                                        emulated ones read the table by scalar loads: charged
                                        emul_gather_rthroughput); SVE ld1b and a gather from the table (0 = not
                                        measured: load_rthroughput, the value load's) */
    double gather_lines_rthroughput[4]; /**< cy per hardware gather of simd_width doubles fed by an index load
                                        (gather_index_penalty included) whose addresses fall in 1, 2, 4, 8 distinct
                                        cache lines; the model weights them by the matrix's distribution of lines per
                                        gather (linear between the points). 0 = not measured: gather_rthroughput +
                                        gather_index_penalty for any number of lines */
    double bw_load, bw_copy, bw_triad;     /**< saturated memory bandwidth of one NUMA domain, GB/s: read-only,
                                              COPY, STREAM TRIAD (explicit bytes, write-allocate included);
                                              spmv-machine: the median of its passes. The ECM's memory terms */
    double bw_load_best, bw_copy_best, bw_triad_best; /**< the same, the fastest pass (GB/s; 0 = not given: the
                                              figures above). The roofline's bandwidths: a bound takes the best the
                                              machine showed, a prediction the usual (spmv_machine_roof) */
    int32_t bw_points;                     /**< entries of the curves below (0..SPMV_MACHINE_MAX_CORES) */
    double bw_load_n[SPMV_MACHINE_MAX_CORES];  /**< bw_load_n[i]: GB/s with i+1 cores of one NUMA domain, compact */
    double bw_copy_n[SPMV_MACHINE_MAX_CORES];  /**< the same for COPY (0 = not measured) */
    double bw_triad_n[SPMV_MACHINE_MAX_CORES]; /**< the same for TRIAD */
    int64_t bw_bytes;                      /**< bytes the memory bandwidth figures above read (spmv-machine: its
                                              working set beyond the last cache, at least 1 GiB, 256 MiB with
                                              --quick); 0 = not given. A read stream at another size reads at another
                                              bandwidth on a VM (256 MiB 18 % faster than 1 GiB on the Zen 5 VM), so a
                                              stream compared with these figures (spmv-bench's membw) reads this many */
    int32_t nlevels;                       /**< 2..SPMV_MACHINE_MAX_LEVELS, the last one is MEM */
    spmv_machine_level level[SPMV_MACHINE_MAX_LEVELS];
    double parallel_overhead;              /**< cy of the start and join of the library's team with no work
                                              (spmv_team_overhead: helper threads for multiplies of up to 2^20
                                              entries, an OpenMP region above) on the cores of one NUMA domain; the
                                              model adds it to every multiply on more than one thread. spmv-machine:
                                              the best of its passes on all cores of the domain (helpers 0.5 us on
                                              2 cores of the AMD EPYC VM; OpenMP regions 2.8 us there, 1-1.5 us on
                                              the 2-core Intel Xeon VM), the same figure for every thread count.
                                              0 = not measured: nothing added */
    double len_branch_miss_cy;  /**< cy per changed outcome of a branch that follows the row's (SELL: the chunk's)
                                   length (spmv_kernel_shape.len_branch): a mispredicted loop exit or remainder branch
                                   and the work it throws away. spmv-machine: the library's CRS kernel on two
                                   matrices of the same rows, lengths at random and sorted (one change per length),
                                   their time difference per row over the difference of their changes per row
                                   (spmv_len_branch_changes), the median over the sizes of 2^10..2^17 rows from
                                   len_branch_rows_missed on; Zen 5 VM: about 26 cy. 0 = not measured: nothing
                                   charged (the paper's A64FX file). At most 10^6 */
    double len_branch_rows_learned; /**< rows (SELL: chunks) per core up to which the branch predictor learns the
                                   length branches' whole sequence over repeated multiplies, none mispredicted: the
                                   largest size of that sweep whose cost per change is below 10 % of the largest
                                   size's (Zen 5 VM: 8192 rows; at 16384 about 60 % of the cost, from 32768 on all
                                   of it). 0 (with len_branch_rows_missed 0) = not measured or none learned: every
                                   change mispredicts */
    double len_branch_rows_missed; /**< the smallest size above it whose cost is 90 % or more of the largest's; between
                                   the two the share of changes that mispredict rises linearly in log2(rows) from 0 to
                                   1 (spmv_model.len_branch_share). Both sizes 0 or both > 0, learned <= missed */
    double xrand_ns[2][SPMV_XRAND_POINTS]; /**< ns per element of x at a uniformly random cache line, with x of
                                              4 << 2i MiB (4, 16, 64, 256 MiB), as a SpMV entry reads it: index load,
                                              x access, value load and multiply over an index and a value stream
                                              (12 B per element), [0] x by hardware gathers of simd_width (each
                                              merging into the register the previous multiply wrote, as the AVX-512
                                              kernels do), [1] by scalar loads (the emulated gather: index loads, x
                                              loads, inserts). It holds what the caches keep of x at that size and how
                                              many lines the access keeps in flight (and on the Zen 5 VM the host's
                                              phase: 1.1-4.4 ns for the gather at 16 MiB within a day). The model
                                              charges x's lines that miss the private caches at it
                                              (spmv_model.x_random_cy). spmv-machine: the best of its passes' 3
                                              timings. 0 = not measured (a kind needs all 4): those lines at the transfers' bandwidth. ns: kept
                                              as they are by spmv_machine_at_clock */
    double nt_store_cost; /**< the cost of a byte of y written by non-temporal stores at the memory level, in
                             bytes written with write-back: a factor on the memory's write cycles of a kernel whose
                             shape has nt, on one core (the ECM's single-core time, so also its n-core scaling; the
                             code balance, roofline and saturated figure keep the declared bytes). spmv-machine fits
                             it on SELL-32-1 of a 2D five-point Laplacian in memory (y a quarter to a third of the
                             bytes) with ordinary and with non-temporal y stores, the memory's bandwidth fitted before
                             on ordinary stores (machines/README.md). Zen 5 VM 2026-12-07 16:05: 2.19, the streaming
                             kernel 2 % slower than the write-back one where the declared bytes predicted it 27 %
                             faster. 0 = not measured: 1. At most 64 */
} spmv_machine;

/** Empty machine: every number 0, nlevels 0 (fill it, then spmv_machine_check). */
SPMV_API void spmv_machine_init(spmv_machine *m);

/** Check a machine for the model: clock > 0, sockets/cores >= 1, cores_per_numa divides cores_per_socket, cacheline
 * a power of two, simd_width >= 1, 2 <= nlevels, cache levels with size > 0 and the last level named MEM with
 * size 0, every level's upstream_bw > 0 except L1, bw_points within range, no negative number.
 * Errors: SPMV_ERR_ARG naming the first offending field. */
SPMV_API spmv_status spmv_machine_check(const spmv_machine *m);

/** Read a machine file (format: machines/TEMPLATE.machine and machines/README.md). Lines "key: value [unit]";
 * '#' starts a comment; "level: NAME" opens a memory level whose keys follow until the next "level:". Units are
 * optional but checked when given (sizes accept B, KiB, MiB, GiB, kB, MB, GB). Every key at most once (per level).
 * Errors: SPMV_ERR_IO (cannot open: the message names the path), SPMV_ERR_PARSE ("FILE:LINE: reason" for an unknown
 * key, a malformed number or unit, a duplicate key, a level key outside a level; "FILE: reason" for a missing
 * required key or a failed spmv_machine_check), SPMV_ERR_ARG (NULL). *m is untouched on error. */
SPMV_API spmv_status spmv_machine_read(const char *path, spmv_machine *m);
/** The same from text in memory; name is used in the messages in place of FILE. */
SPMV_API spmv_status spmv_machine_parse(const char *text, const char *name, spmv_machine *m);

/** Write m in the machine-file format (every key, with comments and units; numbers printed so that they read back
 * exactly: write -> read gives the same struct). Errors: SPMV_ERR_ARG (NULL, spmv_machine_check fails),
 * SPMV_ERR_IO. spmv_machine_format writes to buf (snprintf semantics: returns the length the full text needs,
 * excluding the NUL; < 0 on a failed check) so that tools can print it. */
SPMV_API spmv_status spmv_machine_write(const spmv_machine *m, const char *path);
SPMV_API int spmv_machine_format(const spmv_machine *m, char *buf, size_t size);

/** m at another core clock (clock_ghz, GHz): the figures in cycles that follow the core's clock stay as they are (the
 * in-core costs, the caches' B/cy: so the time of in-core work and the caches' GB/s, and with them an in-cache
 * roofline, scale with the clock); the memory level's upstream_bw and upstream_write_bw (B/cy) are scaled by
 * old clock / clock_ghz and parallel_overhead (cy) by clock_ghz / old clock, so that the memory's GB/s and the team's
 * start and join in ns stay; the GB/s figures (bw_load ...) stay. For a prediction at the clock a run had (spmv-bench
 * measures it before and after each timing, spmv-tune and spmv-bench --suite once before their runs): a core that
 * turbo-boosts or shares its host runs at another clock than when spmv-machine measured it (the AMD EPYC VM: 3.39 GHz
 * in its machine file, 3.41-3.71 GHz on 2026-12-05), and the ECM's cycles give seconds only through the clock. The
 * caches' transfers are taken to run at the core's clock (L1 and L2 do; an L3 on another clock domain is
 * approximated). Errors: SPMV_ERR_ARG (NULL; clock_ghz or m's own clock not a positive finite number; nlevels out of
 * 2..SPMV_MACHINE_MAX_LEVELS; a rescaled figure that would not be finite, e.g. clock_ghz = 1e-300); m is untouched on
 * error. */
SPMV_API spmv_status spmv_machine_at_clock(spmv_machine *m, double clock_ghz);

/** m at the memory bandwidth a run had: read_gbs (GB/s) is a read-only stream measured now on `threads` cores, f =
 * read_gbs over the file's read bandwidth at that many cores (bw_load_n[threads - 1]; the curve's last point beyond
 * it; bw_load without a curve). The memory level's upstream_bw and upstream_write_bw (B/cy, the ECM's single-core
 * transfer) and the saturated GB/s with their curves (bw_load/copy/triad, bw_*_n: b_S of the multicore saturation)
 * are multiplied by f; a fastest pass (bw_*_best, the roofline's bound) stays unless the new median exceeds it, then it
 * is that median. In-core costs, the caches and the random-x table (ns, latency-bound) stay. The stream should read
 * bw_bytes (where given) as the file's figures did. threads up to bw_points: against the curve's point; at least a NUMA
 * domain's cores on a machine of one domain (or a domain's cores without a curve): against bw_load; else refused
 * (between the curve's end and a domain, or across domains: the file has one domain's figures). For the ECM at the host's
 * state of a run (spmv-bench --model measures a read stream before and after each timing): on a shared host the memory
 * bandwidth moves by up to 2x from one minute to the next (the Zen 5 VM, BENCHMARKS.md 2026-12-07), while a machine
 * file holds one median. Errors: SPMV_ERR_ARG (NULL; threads < 1; read_gbs not a positive finite number; nlevels or
 * bw_points out of range; threads as above without a figure to compare with; a machine without a read bandwidth; a
 * rescaled figure the machine check refuses); m is untouched on error. */
SPMV_API spmv_status spmv_machine_at_read_bandwidth(spmv_machine *m, int threads, double read_gbs);

/** Saturated bandwidth b_S of one NUMA domain in GB/s for the kind asked (0 if the file lacks it). SPMV_BW_MIX: the
 * mix of SpMV (spmv_machine_mix_bandwidth with 97 % reads). */
SPMV_API double spmv_machine_bandwidth(const spmv_machine *m, spmv_bw_kind kind);

/** The machine the roofline reads: m with its saturated bandwidths replaced by their fastest pass where the file
 * gives one (bw_*_best > 0); everything else as m. *out may be m. Does nothing when an argument is NULL. */
SPMV_API void spmv_machine_roof(const spmv_machine *m, spmv_machine *out);

/** Saturated bandwidth (GB/s, one NUMA domain) of a kernel that reads rd and writes wr bytes (write-allocate reads
 * counted in rd; rd, wr >= 0, not both 0). Memory time is modelled as rd/b_R + wr/b_W: b_R is the read-only
 * ("load") bandwidth; 1/b_W is fitted from the TRIAD (24 B read incl. write-allocate, 8 B written) and COPY (16 B,
 * 8 B) bandwidths, the mean of the values each gives, at least 0. Then b = (rd + wr) / (rd/b_R + wr/b_W); at
 * rd : wr = 3 : 1 this is the TRIAD bandwidth again. Without a read-only figure: TRIAD (else COPY). A64FX: 225 GB/s
 * read-only, 210 TRIAD: b_W = 175 GB/s, the HPCG mix (344 : 8) 223.5 GB/s. 0 when the machine has no bandwidth or
 * the arguments are bad. */
SPMV_API double spmv_machine_mix_bandwidth(const spmv_machine *m, double rd, double wr);
/** "none", "full", "a64fx-partial"; "triad", "load", "copy". Never NULL. */
SPMV_API const char *spmv_overlap_name(spmv_overlap o);
SPMV_API const char *spmv_bw_kind_name(spmv_bw_kind k);

/** Right-hand-side traffic factor alpha (Kreutzer et al. 2014): the x traffic of one multiply is 8*alpha bytes per
 * nonzero. Here alpha counts whole cache lines: alpha = (missed lines * line length) / (8 * nnz), so x read once
 * gives alpha_min = cols/nnz (= 1/N_nzr for a square matrix) and every access a miss gives alpha_max = line/8
 * (8 for 64-byte lines, 32 for the A64FX's 256-byte lines). The literature's pessimistic "alpha = 1" counts only
 * the 8 bytes an access uses (one word per nonzero); the values here (simulated and bounds) count whole lines,
 * which is what memory moves, so a random access costs line/8, not 1. Both units agree on alpha_min. */
typedef struct spmv_alpha {
    double alpha;      /**< simulated (estimated from a sample when sampled < 1) */
    double alpha_min;  /**< cols / nnz: x read once (0 when nnz = 0) */
    double alpha_max;  /**< line / 8: every access a miss */
    int64_t accesses;  /**< x accesses of the whole multiply (stored entries, SELL padding included) */
    int64_t misses;    /**< missed x lines (estimated for the whole multiply when sampled) */
    double lo, hi;     /**< bounds of alpha under the simulated LRU cache: exact simulation: lo = hi = alpha; sampled:
                          the x accesses of the sample whose previous use lies inside the sample are decided
                          exactly, the others are counted as hits (lo) or as misses (hi), scaled to the multiply;
                          lo >= alpha_min */
    double sampled;    /**< fraction of the accesses simulated and counted (1 = exact) */
    int streams;       /**< 1: the matrix, row/chunk offsets and y went through the cache with x (they compete) */
    double seq;        /**< share of the missed x lines (of the counted ones when sampled) that continue a stream: a
                          neighbouring line (line - 1 or line + 1) was among the last 16 x lines the same thread
                          missed, so a hardware prefetcher's stream fetches it ahead (x read in order, a stencil's
                          planes re-read in order); the rest come at random. In [0, 1]; 0 when nothing missed */
} spmv_alpha;

/** Simulate the x accesses of the kernel, in its access order, through an LRU cache of cache_bytes bytes with
 * lines of `line` bytes (a power of two >= 8) and `ways`-way set associativity (0 = fully associative; LRU within
 * a set, set = line number mod sets), starting cold; x[j] lies in line floor(8j / line).
 * CRS: row by row, entries in stored order. SELL: chunk by chunk, for each column j of the chunk the C lanes in
 * order (padding entries included: the kernel loads them too), then each thread's rows of the CRS part (hybrid).
 * nthreads >= 1: the rows (chunks) are split into nthreads ranges balanced by entries, as the multiply partitions
 * them; threads 0..shared_by-1, shared_by..2*shared_by-1, ... (compact pinning) share one cold cache of cache_bytes
 * each, and the accesses of the threads of a group interleave one row (chunk) at a time; misses add up over the
 * groups. shared_by = 1: private caches (a per-core L1/L2); shared_by = the cores sharing an L2/L3 instance for a
 * shared cache (neighbouring threads then share the lines of their common x halo). nthreads = shared_by = 1: one
 * core. Cost: O(1) per access (a short scan for ways <= 16, else hash + LRU lists), millions of accesses a second.
 * Errors: SPMV_ERR_ARG (NULL, cache_bytes < line, line not a power of two >= 8, ways < 0, nthreads < 1,
 * shared_by < 1), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_crs_alpha(const spmv_crs *A, int64_t cache_bytes, int32_t line, int32_t ways,
                                    int32_t nthreads, int32_t shared_by, spmv_alpha *a);
SPMV_API spmv_status spmv_sell_alpha(const spmv_sell *S, int64_t cache_bytes, int32_t line, int32_t ways,
                                     int32_t nthreads, int32_t shared_by, spmv_alpha *a);

/** Options of spmv_crs_alpha_ex / spmv_sell_alpha_ex. */
typedef struct spmv_alpha_opts {
    int64_t max_accesses; /**< simulate at most about this many cache accesses (0 = all: exact, as spmv_crs_alpha).
                             More accesses than that: a sample: up to 4 threads spread over the partition, each
                             alone in its share of the cache (cache_bytes / shared_by), `blocks` windows of consecutive
                             rows (chunks) at evenly spread positions of its part, each after a warm-up that is
                             simulated but not counted and doubles until it fills the cache and the window's misses
                             change by less than 2 % (or the part's start or the budget is reached: x alone in a cache
                             that holds its reuse, e.g. a stencil's planes, then needs more than the budget and the
                             estimate leans to the upper bound; the bounds stay valid). Bounded time: about 10-40 M
                             accesses a second */
    int32_t blocks;       /**< windows per sampled thread (0 = 4) */
    int streams;          /**< 1: the other data streams go through the same cache in the kernel's order and compete
                             with x for it: per entry the value and (gather entries) the column index, per row
                             (chunk) its offset(s) and y. 0: x alone (the lower bound on x's misses under LRU) */
} spmv_alpha_opts;
SPMV_API spmv_alpha_opts spmv_alpha_opts_default(void); /**< max_accesses 0, blocks 4, streams 0 */

/** spmv_crs_alpha / spmv_sell_alpha with options (sampling, competing streams); the arguments and errors as there,
 * plus SPMV_ERR_ARG for max_accesses < 0 or blocks < 0. With o = NULL or the defaults the result is that of
 * spmv_crs_alpha. */
SPMV_API spmv_status spmv_crs_alpha_ex(const spmv_crs *A, int64_t cache_bytes, int32_t line, int32_t ways,
                                       int32_t nthreads, int32_t shared_by, const spmv_alpha_opts *o, spmv_alpha *a);
SPMV_API spmv_status spmv_sell_alpha_ex(const spmv_sell *S, int64_t cache_bytes, int32_t line, int32_t ways,
                                        int32_t nthreads, int32_t shared_by, const spmv_alpha_opts *o,
                                        spmv_alpha *a);

/** Memory traffic per row (bytes) and code balance B_c (bytes/flop) of a kernel from its traffic declaration,
 * for rows of nzr nonzeros (N_nzr), fill efficiency beta_fill = nnz/stored in (0, 1] (the paper's beta), chunk
 * height C (SELL; 1 or 0 for CRS: bytes_per_chunk is then counted once per row, it is 0 for CRS kernels) and RHS
 * factor alpha_rhs (the paper's alpha; not the multiply's scalars alpha and beta):
 *   bytes/row = nzr/beta_fill * bytes_per_entry + 8*alpha_rhs*nzr + bytes_per_row + bytes_per_chunk / C
 *   B_c       = bytes/row / (flops_per_entry * nzr)
 * With the paper's CRS declaration (12 B/entry, 20 B/row: 4-byte offsets) this is N_nzr*(12 + 8 alpha) + 20
 * (Sect. IV): HPCG, N_nzr = 27, alpha = 1/27: 352 B/row, B_c = 6.52 B/flop. spmv's own CRS kernels declare 24 B/row
 * (int64 row offsets): 356 B/row. Errors: SPMV_ERR_ARG (NULL, nzr <= 0, beta_fill outside (0,1], C < 0,
 * alpha_rhs < 0, flops_per_entry <= 0). */
SPMV_API spmv_status spmv_bytes_per_row(const spmv_traffic *t, double nzr, double beta_fill, int32_t C,
                                        double alpha_rhs, double *bytes);
SPMV_API spmv_status spmv_code_balance(const spmv_traffic *t, double nzr, double beta_fill, int32_t C,
                                       double alpha_rhs, double *Bc);

/** Roofline limit P = b_S / B_c in Gflop/s, b_S in GB/s, B_c in bytes/flop (both > 0). HPCG on the full A64FX at
 * TRIAD bandwidth: 4 * 210 / 6.52 = 129 Gflop/s (Sect. IV). Errors: SPMV_ERR_ARG. */
SPMV_API spmv_status spmv_roofline(double bw_gbs, double Bc, double *gflops);

/** Length branches a kernel shape declares at most (spmv_kernel_shape.len_branch). */
#define SPMV_SHAPE_BRANCHES 4

/** A branch of a kernel's loop over a row (CRS) or a chunk (SELL) whose outcome follows that row's (chunk's) length
 * len: its quantity q(len) = (len + add) / div (mod == 0: a loop of that many trips, its exit; add = div - 1 for a loop
 * that steps by div to the end, ceil(len / div) trips) or ((len + add) / div) % mod (a remainder switch or an
 * odd-entry test), integer division. A branch predictor learns a q that repeats from row to row and mispredicts, in
 * the model, each time q differs from the previous row's (chunk's): on irregular matrices once per row and branch
 * (the power-law matrix: 0.67 of the rows change len / 4, 0.74 len % 4). div == 0: no branch (the rest of the array).
 * Not declared: the SELL kernels' loops over a chunk's run columns (they follow its run counts, not its length). */
typedef struct spmv_len_branch {
    int32_t div; /**< >= 1 entries (SELL: chunk columns) per step of the quantity; 0: unused */
    int32_t mod; /**< 0: the quotient itself; >= 1: its remainder modulo mod (1: always 0, never a change: a loop
                    unrolled by 1 has no remainder) */
    int32_t add; /**< added to len before the division, 0 .. div - 1 */
} spmv_len_branch;

/** Loop structure of a kernel, for the in-core part of the ECM model. Every kernel declares it next to its traffic
 * (src/kernels/FAMILY/); spmv_crs_kernel_shape / spmv_sell_kernel_shape give that of a built matrix. */
typedef struct spmv_kernel_shape {
    spmv_format format;
    int32_t C;       /**< SELL chunk height (rows per chunk); 0 for CRS */
    int32_t width;   /**< doubles per vector instruction: 1 = scalar code, > 1 = SIMD code */
    int32_t mve;     /**< modulo variable expansion: CRS: independent partial sums per row (scalar or vector),
                        reduced once per row; SELL: independent accumulator sets along the chunk length (each set holds
                        the ceil(C/width) registers of a chunk column), summed at the end of the chunk. >= 1 */
    spmv_xaccess x;  /**< how x reaches the registers for gather columns (SELL) or entries (CRS): SPMV_X_SCALAR,
                        SPMV_X_GATHER (one gather per vector, fed by an index load) or SPMV_X_EMUL (width scalar loads
                        plus inserts per vector, fed by width scalar index loads) */
    int runs;        /**< 1: run columns are read with one contiguous masked load of x per vector (no index load) */
    int idx16;       /**< 1: gather columns of chunks with 16-bit indices are read through them (half the index
                        bytes; the emulated gather loads 4 offsets per 8-byte load) */
    int vidx;        /**< 1: a matrix's value indices (spmv_sell.val8) are read instead of its values: per vector of
                        entries a load of width bytes and a table lookup (AVX-512: vpmovzxbq + vpermt2pd) */
    spmv_len_branch len_branch[SPMV_SHAPE_BRANCHES]; /**< the branches of the row (chunk) loop that follow its length
                        (prefetch loops, the unrolled loop, remainders); all div 0: none declared, nothing charged
                        (the SVE kernels, whose step is the run-time vector length). Only spmv_model_crs /
                        spmv_model_sell charge them (they need the lengths); spmv_ecm_predict does not */
    int nt;          /**< 1: y by non-temporal (streaming) stores, no write-allocate (the kernel's traffic declares
                        8 bytes of y per row); the memory level charges those writes at the machine's
                        nt_store_cost. spmv_sell_kernel_shape fills it from the kernel the matrix runs; 0 or 1 */
} spmv_kernel_shape;

/** The shape of the kernel A (S) runs, C filled in from the matrix and a run-time vector length (SVE) resolved.
 * Errors: SPMV_ERR_ARG (NULL). */
SPMV_API spmv_status spmv_crs_kernel_shape(const spmv_crs *A, spmv_kernel_shape *k);
SPMV_API spmv_status spmv_sell_kernel_shape(const spmv_sell *S, spmv_kernel_shape *k);

/** Changes of the length branches k declares over a sequence of n lengths (rows of a CRS matrix, chunk lengths of a
 * SELL one): over the branches, the lengths i = 1..n-1 whose q (spmv_len_branch) differs from that of length i-1,
 * divided by n: branch mispredicts per row (chunk) in the model before the share the predictor learns
 * (spmv_model.len_branch_changes). 0 for n < 2 or no declared branch. len: n lengths (a SELL matrix's chunklen,
 * nchunks entries); spmv_crs_len_branch_changes: the row lengths of A (from rowptr, A->rows rows) for a CRS shape.
 * Cost O(n) per branch. Errors: SPMV_ERR_ARG (NULL; len NULL with n > 0; n < 0; a shape spmv_ecm_predict refuses:
 * unknown format or x access, width or mve < 1, SELL C < 1; a branch with div < 0, mod < 0, add outside 0..div-1 or
 * div 0 with mod or add set; a SELL shape for spmv_crs_len_branch_changes). */
SPMV_API spmv_status spmv_len_branch_changes(const spmv_kernel_shape *k, const int32_t *len, int64_t n,
                                             double *changes);
SPMV_API spmv_status spmv_crs_len_branch_changes(const spmv_kernel_shape *k, const spmv_crs *A, double *changes);

/** ECM prediction (Sect. III and IV), all times in cycles per row (for SELL: per chunk divided by C).
 * In-core (data in L1), for rows of nzr nonzeros (CRS: nv = ceil(nzr/width) vector iterations; SELL: chunk
 * length nzr/beta, ceil(C/width) registers per chunk column):
 *   T_comp (T_OL):  CRS, SIMD code: ceil(nv/mve) * fma_latency + ceil(log2 min(mve, nv)) * add_latency +
 *                   hadd_rthroughput per row (the paper's 4 * 9 + 11.5 = 47.5 cy for HPCG), at least
 *                   nv * fma_rthroughput; scalar code: nv * fma_rthroughput (the chains of consecutive, independent
 *                   rows overlap in an out-of-order core); SELL: ceil(len/mve) * fma_latency (+ log2(mve) adds) per chunk, at least
 *                   len * ceil(C/width) * fma_rthroughput;
 *   T_load (T_nOL): SIMD, per vector of entries: the x access plus the value load (load_rthroughput; through value
 *                   indices, shape.vidx, vidx_rthroughput when measured); the x access
 *                   of a gather column is a hardware gather fed by an index load, gather_rthroughput +
 *                   gather_index_penalty (the paper's (4 + 1.5 + 0.5) * 27/8 = 20.25 cy/row for SELL-32) or, when
 *                   the machine has gather_lines_rthroughput, that cost at the matrix's distribution of distinct
 *                   cache lines per gather (spmv_ecm_predict, without a matrix: simd_width lines); an emulated
 *                   gather costs emul_gather_rthroughput; a run column's x one masked load
 *                   (masked_load_rthroughput); scalar code: 3 scalar loads per entry (index, x, value;
 *                   scalar_load_rthroughput); the metadata (row offsets: 2 scalar loads per row; chunk offset and
 *                   length: 2 per chunk, 4 with run columns; a run column's base and mask: 2) at
 *                   scalar_load_rthroughput, not counted when that is 0 (as in the paper);
 *   T_store:        one y store per row (SIMD SELL in the permuted order: one vector store per width rows).
 * Transfers: T_xfer[i] = read bytes / upstream_bw + write bytes / upstream_write_bw of level i (i >= 1), with the
 * bytes per row of spmv_bytes_per_row at the level's alpha and 8 bytes/row (y) counted as writes (HPCG on the
 * A64FX: 352/64 = 5.5 cy L2, 352/117 = 3.0 cy memory); a kernel with non-temporal y stores (shape.nt) has the
 * memory level's write cycles times the machine's nt_store_cost (when > 0).
 * Combination by each level's overlap rule (level 0 = L1 holds T_load as reads, T_store as writes):
 *   T = max(T_comp, sum of non-overlapping parts, each overlapping part alone);
 *   non-overlapping: NONE: reads + writes, A64FX: reads, FULL: nothing. T_data[i] is T with the data set in level
 *   i (transfers of levels 1..i), T_ecm = T_data[nlevels-1].
 * Single core: P1 = flops/row * clock / T_ecm, bw1 = bytes/row (memory level) * clock / T_ecm.
 * Multicore (Sect. III-C): per NUMA domain P(n) = min(n * P1, P_sat), P_sat = b_S / B_c; saturation point
 * n_s = ceil(P_sat / P1) (more than cores_per_numa: the kernel cannot saturate a domain). */
typedef struct spmv_ecm {
    int32_t nlevels;                         /**< of the machine */
    double flops_per_row;                    /**< flops_per_entry * nzr */
    double bytes_per_row;                    /**< at the memory level */
    double T_comp;                           /**< T_OL, cy/row */
    double T_load;                           /**< T_nOL: L1 load cycles per row */
    double T_store;                          /**< L1 store cycles per row */
    double T_xfer[SPMV_MACHINE_MAX_LEVELS];  /**< [0] = T_load + T_store; [i] = T_L1L2, T_L2L3, ..., T_LLCMem */
    double T_write[SPMV_MACHINE_MAX_LEVELS]; /**< write part of T_xfer[i] ([0] = T_store) */
    double T_data[SPMV_MACHINE_MAX_LEVELS];  /**< prediction, cy/row, with the data set in level i */
    double T_ecm;                            /**< cy/row, data in memory (= T_data[nlevels-1]) */
    double P1;                               /**< Gflop/s on one core */
    double bw1;                              /**< GB/s of one core */
    double bS;                               /**< saturated bandwidth of one NUMA domain used, GB/s */
    double Bc;                               /**< code balance at the memory level, bytes/flop */
    double P_sat;                            /**< bS / Bc: the ECM's saturated performance of one NUMA domain,
                                                  Gflop/s (at the median bandwidth; the roofline takes the fastest
                                                  pass, spmv_model.bS_roof) */
    int32_t n_s;                             /**< saturation point, cores */
} spmv_ecm;

/** ECM prediction for rows of nzr nonzeros (see above); beta_fill: nnz / stored; alpha_rhs: the RHS factor at
 * every level (the paper's beta and alpha, not the multiply's scalars); bw: which b_S
 * (SPMV_BW_MIX: the mix of this kernel's reads and writes at alpha).
 * Errors: SPMV_ERR_ARG (NULL, spmv_machine_check fails, a bad shape, nzr <= 0, beta_fill outside (0,1], alpha_rhs < 0, the
 * machine lacks the chosen bandwidth). */
SPMV_API spmv_status spmv_ecm_predict(const spmv_machine *m, const spmv_kernel_shape *k, const spmv_traffic *t,
                                      double nzr, double beta_fill, double alpha_rhs, spmv_bw_kind bw,
                                      spmv_ecm *e);

/** One iteration of any loop kernel for the ECM model (the streaming kernels of Sect. III-B: one iteration = one
 * vector of elements): T_comp (core cycles other than data transfers; they overlap), T_load and T_store (L1 load
 * and store cycles), and for each level i >= 1 the bytes that cross its upstream link per iteration: rd[i] towards
 * the core (write-allocates included), wr[i] away from it. rd[0], wr[0] are unused. */
typedef struct spmv_ecm_loop {
    double T_comp, T_load, T_store;
    double rd[SPMV_MACHINE_MAX_LEVELS], wr[SPMV_MACHINE_MAX_LEVELS];
} spmv_ecm_loop;

/** T_data[i] (i = 0 .. m->nlevels-1): cycles per iteration of k with its data in level i, combined by the levels'
 * overlap rules exactly as spmv_ecm_predict combines SpMV's contributions (this is the one ECM combination of the
 * library; spmv-machine's overlap-hypothesis fit calls it). TRIAD on the A64FX with the L1<-L2 write bandwidth of
 * Table I (32 B/cy): {2 | 6 | 7.64} cy/VL in L1, L2 and memory under the paper's hypothesis (Fig. 3b: 2, 6, 7.7).
 * Errors: SPMV_ERR_ARG (NULL, spmv_machine_check fails, a negative or non-finite number). */
SPMV_API spmv_status spmv_ecm_loop_predict(const spmv_machine *m, const spmv_ecm_loop *k, double *T_data);

/** Multicore prediction in Gflop/s for ncores cores placed compactly (NUMA domain after NUMA domain):
 * sum over domains of min(n_d * P1, P_sat); ncores is capped at sockets * cores_per_socket.
 * Errors: SPMV_ERR_ARG (NULL, ncores < 1). */
SPMV_API spmv_status spmv_ecm_scale(const spmv_machine *m, const spmv_ecm *e, int32_t ncores, double *gflops);

/** Options of spmv_model_crs / spmv_model_sell. */
typedef struct spmv_model_opts {
    spmv_bw_kind bw;                 /**< b_S of the memory level: SPMV_BW_MIX (default) */
    const spmv_kernel_shape *shape;  /**< NULL (default): the shape the matrix's kernel declares */
    double alpha;                    /**< < 0 (default -1): simulate; >= 0: use this alpha at every level */
    int64_t max_accesses;            /**< budget of each alpha simulation (spmv_alpha_opts.max_accesses): 0 (default)
                                        = 4 M accesses, sampled beyond (HPCG 128^3: about 0.5 s for the whole model);
                                        -1 = exact (every access; HPCG 128^3: 10-20 s) */
} spmv_model_opts;
SPMV_API spmv_model_opts spmv_model_opts_default(void);

/** Everything the tools print about a matrix on a machine. Two figures come out of it: the roofline, a bound that a
 * measurement should not exceed beyond noise, and the ECM prediction, an estimate whose error is reported
 * (spmv_model_score). */
typedef struct spmv_model {
    char kernel[48];                 /**< kernel name */
    char machine[128];               /**< machine name */
    spmv_kernel_shape shape;         /**< used for the in-core part */
    spmv_traffic traffic;            /**< the kernel's declaration used */
    int64_t rows, cols, nnz, stored, nchunks;  /**< nchunks: SELL chunks, = rows for CRS */
    double nzr;                      /**< N_nzr = nnz / rows */
    double beta;                     /**< nnz / stored (1 for CRS) */
    int32_t nthreads;                /**< thread count of the prediction */
    spmv_alpha alpha;                /**< of the ECM's memory term and B_c, for nthreads threads: x together with the
                                        matrix and y streams through the threads' share of the last-level caches (the
                                        smaller of effective_size and random_size; cores_per_group threads per
                                        instance), sampled for large matrices (see spmv_model_opts.max_accesses) */
    spmv_alpha alpha_x;              /**< the same with x alone in the cache: its lower bound alpha_x.lo is the
                                        roofline's alpha (no real cache keeps x better than LRU does without the
                                        competing streams -- up to its replacement policy) */
    spmv_alpha alpha_level[SPMV_MACHINE_MAX_LEVELS]; /**< [i] (i >= 1): single core, x and the streams through level
                                        i-1 (its effective size): alpha of the transfers T_xfer[i]; [0] unused */
    double bytes;                    /**< bytes of one multiply from memory at alpha (spmv_traffic_bytes) */
    double rd_bytes, wr_bytes;       /**< of bytes: read (write-allocate included) and written (y stores) */
    double Bc, Bc_min, Bc_max;       /**< bytes/flop at alpha, alpha_min, alpha_max */
    double Bc_roof;                  /**< bytes/flop at the roofline's alpha (alpha_x.lo) */
    double ws;                       /**< data set of one multiply, bytes: matrix, x and y once each */
    double share[SPMV_MACHINE_MAX_LEVELS]; /**< part of the data set each level serves at nthreads: the data set
                                        fills the fastest levels first up to their effective capacities (summed
                                        over the private caches of the nthreads cores; shared caches per
                                        instance), as the optimal replacement would on a repeated sweep; sums to 1 */
    int32_t data_level;              /**< the slowest level with a share (nlevels - 1: memory) */
    int in_cache;                    /**< 1: memory has no share (the data set fits in the caches used) */
    double bS;                       /**< memory bandwidth of one NUMA domain used (opts.bw; default the mix of this
                                        kernel at alpha), GB/s */
    double bS_roof;                  /**< the same from the fastest passes (spmv_machine_roof): the roofline's */
    double level_bw[SPMV_MACHINE_MAX_LEVELS]; /**< GB/s each level can deliver to the nthreads cores: caches: the
                                        level's upstream link times the cores using it; memory: bS times the NUMA
                                        domains used (the ECM's); [0] = L1 load bandwidth times cores */
    double roofline;                 /**< the bound, Gflop/s: flops / sum over levels of share * bytes at alpha_x.lo /
                                        level_bw, memory's at bS_roof times the domains used (the classic b_S / B_c
                                        when the data are in memory) */
    double roofline_mem;             /**< the memory roofline at nthreads regardless of caches: bS_roof * domains /
                                        Bc_roof */
    double roofline_node;            /**< Gflop/s, the memory roofline of all NUMA domains of the machine */
    double lines_per_gather;         /**< mean distinct cache lines per hardware gather vector (0: no gathers) */
    double gather_cy;                /**< cycles per gather column vector the in-core part used (x access and index
                                        loads; hardware gathers: the cost at each vector's lines, averaged over the
                                        matrix's distribution of lines per gather; 0: no gather columns) */
    char levels[SPMV_MACHINE_MAX_LEVELS][16]; /**< the machine's level names (L1, L2, ..., MEM) */
    spmv_ecm ecm;                    /**< single-core ECM (its Bc, P_sat and n_s are for nthreads' alpha) */
    double T_shared;                 /**< cy/row of one core with the data placed by share: sum share_i T_data[i] */
    int32_t n_s;                     /**< = ecm.n_s */
    int32_t cores_per_numa;          /**< of the machine: n_s above it means the kernel cannot saturate a domain */
    double predicted;                /**< ECM Gflop/s at nthreads: min(n * flops/T_shared, the bandwidths of the
                                        levels at alpha); for data in memory min(n P1, P_sat) per NUMA domain; on
                                        more than one thread with the machine's parallel_overhead added to the time
                                        of each multiply (overhead_ns) */
    double overhead_ns;              /**< ns added to each multiply for its parallel region: parallel_overhead /
                                        clock where the driver starts a team (nthreads > 1 and at least 2 x
                                        SPMV_MIN_WORK_PER_THREAD entries of work), else 0 */
    double x_random_lines;           /**< lines of x per row that miss the private caches beyond x read once at
                                        random: min(alpha - alpha_min, (1 - x_random_seq) alpha) N_nzr 8 / cacheline
                                        with alpha at the first level beyond the private caches (the misses that
                                        continue no stream, at most those beyond x read once; 0 where
                                        the machine has no xrand_ns for the kernel's x access, or with a fixed
                                        alpha, spmv_model_opts.alpha) */
    double x_random_cy;              /**< cy per row those lines add to ecm.T_data of the levels beyond the private
                                        caches: each the machine's xrand_ns for x's size (linear in log2 size
                                        between the points, constant beyond them) times the clock less the in-core
                                        x access the loads count (a gather's share, the emulated gather's share,
                                        a scalar load); their bytes
                                        leave those levels' ecm.T_xfer (ecm.bytes_per_row and Bc keep them) */
    double len_branch_changes;       /**< changes of the length branches per row: CRS spmv_crs_len_branch_changes,
                                        SELL the chunks' changes (and those of a hybrid's CRS part at the CRS
                                        kernel's branches) over the rows, for the kernel's declared len_branch */
    double len_branch_share;         /**< the share of them that mispredict: 0 up to the machine's
                                        len_branch_rows_learned rows (SELL: chunks and the CRS part's rows) per
                                        thread of the team the driver starts (see overhead_ns), 1 from
                                        len_branch_rows_missed on, linear in log2 between (1 when the machine lacks
                                        the two sizes) */
    double len_branch_cy;            /**< cy per row they cost: len_branch_changes * len_branch_share * the
                                        machine's len_branch_miss_cy, added to every ecm.T_data after the overlap
                                        rules (no rule overlaps it: the loads behind a mispredicted branch wait for
                                        it; ecm.T_load stays the loads' cycles); 0 without that measurement */
    double x_random_seq;             /**< the share of x's misses that continue a stream
                                        (spmv_alpha.seq at the first level beyond the private caches): they stay
                                        transfers, fetched ahead by the hardware's prefetcher */
    double nt_store_cost;            /**< the machine's nt_store_cost applied to the memory's write cycles
                                        (ecm.T_write) of a kernel with non-temporal y stores (shape.nt); 0: none
                                        applied (ordinary stores, or the machine did not measure it) */
} spmv_model;

/** Fill md for matrix A (CRS) or S (SELL) on machine m at nthreads threads (>= 1; 0 = the matrix's partition).
 * t: the kernel's traffic; NULL = the declaration of the kernel the matrix uses (spmv_crs_traffic /
 * spmv_sell_traffic). The in-core part averages the per-row (per-chunk) ECM times over the actual row (chunk)
 * lengths (the CRS part of a hybrid SELL matrix at the in-core shape of its CRS kernel), with the gather cost at the matrix's lines per gather; transfers use the simulated alpha per level (or
 * opts->alpha); the code balance, the roofline, n_s and the prediction at nthreads use the alpha of nthreads
 * threads sharing the last-level caches. Each alpha simulation is bounded by opts->max_accesses (sampled beyond).
 * Errors: SPMV_ERR_ARG (NULL, spmv_machine_check fails, an empty matrix, nthreads < 0, a shape of the other
 * format or another C, a machine without the chosen bandwidth), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_model_crs(const spmv_crs *A, const spmv_traffic *t, const spmv_machine *m, int nthreads,
                                    const spmv_model_opts *opts, spmv_model *md);
SPMV_API spmv_status spmv_model_sell(const spmv_sell *S, const spmv_traffic *t, const spmv_machine *m,
                                     int nthreads, const spmv_model_opts *opts, spmv_model *md);

/** The two figures of a measurement against the model: *pct_roofline = 100 measured / roofline (a bound: above 100
 * only within noise) and *ecm_error = 100 (predicted - measured) / measured (positive: the ECM is too optimistic).
 * Either pointer may be NULL; a figure that is not defined (no model, measured <= 0) is 0. */
SPMV_API void spmv_model_score(const spmv_model *md, double measured_gflops, double *pct_roofline,
                               double *ecm_error);

/** A readable multi-line report of md (N_nzr, beta, alpha and its bounds, B_c, where the data set lives, roofline,
 * ECM contributions in the paper's notation {T_OL || T_nOL | T_L1L2 | ... } cy/row, single-core prediction, n_s,
 * prediction at nthreads); measured_gflops > 0 adds % of roofline and the ECM error. Each line starts with `prefix`
 * (NULL = ""). snprintf semantics: returns the length the full text needs, excluding the NUL (< 0 on NULL md). */
SPMV_API int spmv_model_format(const spmv_model *md, double measured_gflops, const char *prefix, char *buf,
                               size_t size);

#ifdef __cplusplus
}
#endif
#endif /* SPMV_MODEL_H */
