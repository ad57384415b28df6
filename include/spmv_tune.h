/**
 * @file spmv_tune.h
 * spmv_tune.h -- the tuner of spmv (what spmv-tune runs): C, sigma, RCM, threads and kernel variants per machine and
 * matrix measured against CRS and the model's limits, the database of recorded choices, the model-based defaults.
 * Includes spmv_model.h and spmv.h.
 */
#ifndef SPMV_TUNE_H
#define SPMV_TUNE_H

#include "spmv_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================================================ */
/* Tuning: C, sigma, RCM and threads per machine and matrix, and the record of the choices          */
/* ================================================================================================ */
/* spmv_tune() (and the tool spmv-tune) measures SELL-C-sigma configurations against CRS, checks every result
 * against a reference loop, reports each against the model's limits, and records the fastest per machine and
 * matrix in a plain-text database. The library reads that database only when asked (spmv_wisdom_import, like
 * FFTW's wisdom): spmv_sell_from_crs with opts->C = 0 or opts->sigma = 0 ("auto") takes the imported choice for a
 * matching matrix, else the model-based defaults below; SPMV_VERBOSE=1 says which. Without an import the result
 * does not depend on the account or its files.
 *
 * The database (one file; spmv_tune_db_path): lines "key: value", '#' starts a comment, blank lines are ignored.
 * "choice: LABEL" opens a record (LABEL: the matrix's name, free text); the keys that follow belong to it:
 *   cpu: TEXT   isa: ref|avx512|avx2|sve   cores: N                      the machine (spmv_tune_host)
 *   rows: N   cols: N   nnz: N   nzr min: N   nzr mean: X   nzr max: N   the matrix (spmv_tune_fingerprint)
 *   order: original|permuted                                          vector order measured (optional: original)
 *   C: N   sigma: N   rcm: on|off   threads: N (1..4096)             the choice
 *   runs: N   x access: gather|emul                                   kernel variant of the choice (optional;
 *                                                                     runs > 0 only with C <= 64)
 *   16-bit indices: on|off   value indices: on|off                    compression of the choice (optional)
 *   non-temporal stores: on|off                                       y stores of the choice (optional)
 *   gflops: X   limit gflops: X   crs gflops: X   conversion: X s   date: TEXT     measurements (optional)
 * Every key at most once per record, all but the optional ones required; '#' in free text is written as a blank.
 * nzr mean is written with 17 significant digits (it reads back exactly), measurements with 6. A record matches
 * when cpu, isa and cores and the whole fingerprint are equal; storing replaces the record with the same machine,
 * fingerprint and order. */

/** The machine a choice is made on. */
typedef struct spmv_tune_host {
    char cpu[128];   /**< CPU model: /proc/cpuinfo "model name" (x86); on Arm "implementer 0xII part 0xPPP"; else
                        "unknown" */
    char isa[16];    /**< kernel family in use (spmv_arch_name of spmv_arch_get): "ref", "avx512", "avx2", "sve" */
    int32_t cores;   /**< online logical CPUs of the machine */
} spmv_tune_host;

/** Errors: SPMV_ERR_ARG (NULL), SPMV_ERR_ARCH (SPMV_ARCH names an unavailable family). */
SPMV_API spmv_status spmv_tune_host_get(spmv_tune_host *h);

/** What identifies a matrix to the tuner: sizes and N_nzr statistics. */
typedef struct spmv_tune_fingerprint {
    int32_t rows, cols;
    int64_t nnz;
    int32_t nzr_min, nzr_max;  /**< fewest / most nonzeros in a row */
    double nzr_mean;           /**< nnz / rows (0 for rows = 0) */
} spmv_tune_fingerprint;

/** Errors: SPMV_ERR_ARG (NULL). O(rows). */
SPMV_API spmv_status spmv_tune_fingerprint_get(const spmv_crs *A, spmv_tune_fingerprint *f);

/** One recorded choice. */
typedef struct spmv_tune_record {
    spmv_tune_host host;
    spmv_tune_fingerprint fp;
    int permuted;        /**< vector order the choice was measured in (spmv_sell_opts.permuted) */
    int32_t C, sigma;    /**< the choice (>= 1) */
    int rcm;             /**< 0 / 1 */
    int32_t nthreads;    /**< >= 1 */
    double gflops;       /**< measured, median, Gflop/s (0 = not given) */
    double limit;        /**< the model's limit at nthreads, Gflop/s (0 = not given) */
    double crs_gflops;   /**< CRS at nthreads, Gflop/s (0 = not given) */
    double t_convert;    /**< CRS -> SELL conversion, seconds (RCM included) */
    char matrix[128];    /**< label: file name or "HPCG 96x96x96" (informative) */
    char date[32];       /**< UTC, "2026-11-29T12:00:00Z" (informative) */
    int has_variant;     /**< 1: runs and xaccess were recorded (a zeroed record: 0, the library's defaults) */
    int32_t runs;        /**< run-column threshold of the choice (spmv_sell_opts.runs; 0: none), if has_variant */
    int xaccess;         /**< x access of the choice (SPMV_X_GATHER or SPMV_X_EMUL; SPMV_X_AUTO: not recorded) */
    int has_compression; /**< 1: idx16 and vidx were recorded (a zeroed record: 0, the library's auto for both) */
    int idx16;           /**< if has_compression: the choice's 16-bit column indices (spmv_sell_opts.idx16): 1 on,
                            0 off, -1 not recorded (auto) */
    int vidx;            /**< if has_compression: the choice's value indices (spmv_sell_opts.vidx): 1 on, 0 off,
                            -1 not recorded (auto) */
    int has_nt;          /**< 1: nt was recorded, the search having timed the choice with and without non-temporal y
                            stores (a zeroed record: 0, the library's auto) */
    int nt;              /**< if has_nt: the choice's non-temporal y stores (spmv_sell_opts.nt_stores): 1 on, 0 off */
} spmv_tune_record;

/** The kernel variant of record r into o where o leaves it auto (runs < 0, xaccess SPMV_X_AUTO, idx16 < 0, vidx < 0,
 * nt_stores < 0) and r recorded it (has_variant, has_compression, has_nt); C, sigma, rcm and threads are not touched.
 * NULL: nothing. */
SPMV_API void spmv_tune_record_variant(const spmv_tune_record *r, spmv_sell_opts *o);

/** The database path: $SPMV_TUNE_DB if set (and not "off"), else $XDG_DATA_HOME/spmv/tuning/choices.txt, else
 * $HOME/.local/share/spmv/tuning/choices.txt. Errors: SPMV_ERR_ARG (NULL, buf too small), SPMV_ERR_IO (neither
 * XDG_DATA_HOME nor HOME set; or SPMV_TUNE_DB=off: lookups are switched off). */
SPMV_API spmv_status spmv_tune_db_path(char *buf, size_t size);

/** Read every record of the database at path. A missing file is an empty database (*n = 0, *recs NULL).
 * Free *recs with spmv_tune_db_free. Errors: SPMV_ERR_ARG (NULL), SPMV_ERR_IO (unreadable), SPMV_ERR_PARSE
 * ("FILE:LINE: reason": unknown key, malformed number, value out of range, duplicate key, key outside a record;
 * "FILE:LINE: choice 'LABEL': missing key 'K'" with the line of the "choice:"), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_tune_db_read(const char *path, spmv_tune_record **recs, int32_t *n);
SPMV_API void spmv_tune_db_free(spmv_tune_record *recs);

/** Look up the choice for machine h and matrix f: *found = 1 and *r filled when a record matches (the one with the
 * same vector order `permuted` if there is one, else one with the other order); *found = 0 otherwise (also for a
 * missing file). Errors: as spmv_tune_db_read. */
SPMV_API spmv_status spmv_tune_db_find(const char *path, const spmv_tune_host *h, const spmv_tune_fingerprint *f,
                                       int permuted, spmv_tune_record *r, int *found);

/** Store r (replacing a record with the same machine, fingerprint and order), creating the folders of path. The
 * file is rewritten through a temporary file and rename(), so readers never see half a file. An existing file
 * that does not parse is left alone (the error names it). Errors: SPMV_ERR_ARG (NULL, C/sigma/threads < 1),
 * SPMV_ERR_IO, SPMV_ERR_PARSE, SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_tune_db_store(const char *path, const spmv_tune_record *r);

/* Wisdom (import, forget, count: spmv.h) --------------------------------------------------------- */

/** Look up machine h and matrix f in the imported wisdom: as spmv_tune_db_find, over the imported records (the last
 * imported match wins). Errors: SPMV_ERR_ARG (NULL). */
SPMV_API spmv_status spmv_wisdom_find(const spmv_tune_host *h, const spmv_tune_fingerprint *f, int permuted,
                                      spmv_tune_record *r, int *found);

/* Model-based defaults ----------------------------------------------------------------------------- */

/** The chunk heights the tuner sweeps: the C values (ascending, powers of two) that the kernel family in use has a
 * fast kernel for, found by asking the family's kernels (their C or accepts()): AVX-512: 8, 16, 32, 64; SVE:
 * VL, 2VL, ..., up to max(8 VL, 64). *fast = 1. With the reference family (no fast kernel: any C runs the same
 * loop) the list is 4, 8, 16, 32 and *fast = 0. C: room for cap entries (cap >= 8 is always enough).
 * Errors: SPMV_ERR_ARG (NULL, cap < 1), SPMV_ERR_ARCH. */
SPMV_API spmv_status spmv_tune_chunk_heights(int32_t *C, int32_t cap, int32_t *n, int *fast);

/** The sorting windows the tuner tries for chunk height C: 1, C, 4C, 16C, 64C, 256C, ... (factor 4) while below
 * rows, then rows (a global sort); duplicates dropped (C = 1 gives 1, 4, 16, ...). sigma: room for cap entries
 * (34 always suffice). Errors: SPMV_ERR_ARG (NULL, C < 1, rows < 1, cap too small: the message says how many). */
SPMV_API spmv_status spmv_tune_sigma_list(int32_t C, int32_t rows, int32_t *sigma, int32_t cap, int32_t *n);

/** Stored entries (padding included) of SELL-C-sigma for A without building it: rows taken in `order` (perm[new] =
 * old, e.g. an RCM order from spmv_rcm; NULL = identity), the long rows of the default rule (spmv_sell_opts.long_rows
 * = -1) set aside in the CRS part (their nonzeros count once), the others sorted by descending length inside windows
 * of sigma rows, chunks of C rows padded to their longest row rounded up to a multiple of unroll -- exactly what
 * spmv_sell_from_crs stores without run columns (runs = 0) and with long_rows = -1. Run columns never store less: a chunk with R run
 * columns is at least as wide (each run takes at most one entry of a lane) and at most R columns wider.
 * O(rows log sigma) at most. Errors: SPMV_ERR_ARG (NULL, C, sigma or unroll < 1),
 * SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_tune_stored(const spmv_crs *A, int32_t C, int32_t sigma, int32_t unroll,
                                      const int32_t *order, int64_t *stored);

/** Model default for C (Kreutzer et al. 2014; Alappat et al. 2020, Sect. IV): the kernel keeps C/w independent
 * accumulator registers per chunk column (w doubles per register; MVE multiplies them by mve), so the FMA latency
 * is hidden once C/w * mve * t_vec >= fma_latency, t_vec being the in-core time of one vector of entries
 * (gather + index penalty + load, at least the FMA reciprocal throughput). C = w * a rounded up to a power of two
 * with a = ceil(fma_latency / (mve * t_vec)) accumulators, then to the nearest C with a fast kernel
 * (spmv_tune_chunk_heights: the smallest >= it, else the largest). m = NULL: built-in costs of the family in use
 * (AVX-512: w 8, mve 2, FMA latency 4 cy, gather 5 cy; SVE: w = VL, mve 1, FMA latency 9 cy, gather 6 cy (the
 * A64FX); reference: w 1, mve 1, FMA latency 4 cy, 3 scalar loads of 0.5 cy). Errors: SPMV_ERR_ARG (NULL C),
 * SPMV_ERR_ARCH. */
SPMV_API spmv_status spmv_tune_default_chunk_height(const spmv_machine *m, int32_t *C);

/** Model default for sigma: 1 when run columns (default threshold ceil(3C/4), 4 <= C <= 64) would hold at least
 * half the nonzeros with the rows in their own order, and as many as automatic run columns need to be kept
 * (spmv_sell_opts.runs: max(10 %, 320 %/C) of the entries and 16 per chunk), estimated from 256 chunks, one per
 * stratum of the matrix: sorting would break them up. Otherwise the smallest window of spmv_tune_sigma_list(C, rows) whose padding is within 1 % of
 * nnz of the padding a global sort leaves: (stored(sigma) - stored(rows)) <= 0.01 nnz. A larger window only scatters
 * rows further apart (x and y locality) without saving traffic. 1 for an empty matrix.
 * Errors: SPMV_ERR_ARG (NULL, C < 1), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_tune_default_sigma(const spmv_crs *A, int32_t C, int32_t *sigma);

/** Where auto parameters came from. */
typedef enum spmv_tune_source {
    SPMV_TUNE_GIVEN = 0,     /**< both C and sigma were set by the caller: nothing to do */
    SPMV_TUNE_RECORDED = 1,  /**< the database's choice for this matrix on this machine */
    SPMV_TUNE_MODEL = 2      /**< spmv_tune_default_chunk_height / spmv_tune_default_sigma */
} spmv_tune_source;

/** Resolve "auto" parameters in place: o->C == 0 and/or o->sigma == 0 are replaced by the imported choice for A on
 * this machine (spmv_wisdom_find, order o->permuted; nothing is imported unless the caller called
 * spmv_wisdom_import), else by the model defaults. A recorded sigma is used only with the recorded C (an
 * explicitly given, different C gets the model's sigma). C and sigma change, and runs / xaccess where the caller
 * left them auto and the record has them (rcm and threads of a record:
 * spmv_wisdom_find). No file is read. With SPMV_VERBOSE=1 a line on stderr says which values were used and where
 * they came from. src may be NULL. spmv_sell_from_crs calls this when C or sigma is 0. Errors: SPMV_ERR_ARG (NULL
 * A or o, C or sigma negative), SPMV_ERR_NOMEM, SPMV_ERR_ARCH. */
SPMV_API spmv_status spmv_tune_auto_params(const spmv_crs *A, spmv_sell_opts *o, spmv_tune_source *src);

/** Break-even number of multiplies after which converting CRS -> SELL (t_convert seconds) has paid for itself:
 * ceil(t_convert / (t_crs - t_sell)) with t_crs, t_sell the seconds per multiply; 0 when t_convert <= 0; HUGE_VAL
 * (never) when t_sell >= t_crs or an argument is negative or not finite. */
SPMV_API double spmv_tune_break_even(double t_convert, double t_crs, double t_sell);

/** Upper bound in Gflop/s for a SELL-C-sigma (C >= 1) or CRS (C = 0) configuration with `stored` entries, before
 * building it: the highest saturated bandwidth of the machine (load, copy, triad; their fastest passes where the
 * machine gives them, spmv_machine_roof) summed over the NUMA domains
 * nthreads cores fill, over the code balance at alpha_min = cols/nnz (x read once) of the traffic declaration t.
 * No kernel moves less data from memory, so none is faster -- as long as the data set does not fit in the caches.
 * Errors: SPMV_ERR_ARG (NULL, a size < 1, stored < nnz, nthreads < 1, a machine without any bandwidth). */
SPMV_API spmv_status spmv_tune_bound(const spmv_machine *m, const spmv_traffic *t, int64_t rows, int64_t cols,
                                     int64_t nnz, int64_t stored, int32_t C, int32_t nthreads, double *gflops);

/** The pruning rule: 1 (skip the configuration) when the model is sure it cannot win: the data set (bytes) is
 * larger than 4 x the machine's last-level cache (effective size, all instances) -- else the memory bound does not
 * hold -- and
 * bound * (1 + margin) < best, best being the fastest measured Gflop/s so far. 0 otherwise (also for m NULL). */
SPMV_API int spmv_tune_prune(const spmv_machine *m, double bytes, double bound, double best, double margin);

/* The search ------------------------------------------------------------------------------------- */

typedef enum spmv_tune_state {
    SPMV_TUNE_MEASURED = 0,  /**< checked, then timed */
    SPMV_TUNE_PRUNED = 1,    /**< skipped: the model says it cannot win (note says why) */
    SPMV_TUNE_FAILED = 2,    /**< the conversion failed or the result check failed: not counted */
    SPMV_TUNE_SKIPPED = 3,   /**< skipped: it would not fit in the time budget */
    SPMV_TUNE_RUNNING = 4    /**< only in the progress callback: about to run */
} spmv_tune_state;

/** One configuration of the search. */
typedef struct spmv_tune_point {
    int32_t stage;        /**< 0 CRS baseline, 1 C sweep, 2 sigma sweep, 3 RCM, 4 threads, 5 full grid, 6 the final
                             comparison (the choice and CRS at its thread count, timed alternately), 7 a point below
                             half the best built and timed again (noise on a busy machine), before the threads;
                             8 kernel variants of the best point: run columns off, the other x access, value
                             indices on/off, 16-bit indices on/off, non-temporal y stores on/off; each timed
                             alternately with the best point it varies, the faster of that pair winning */
    int is_crs;           /**< 1: CRS (C, sigma, rcm unused) */
    int32_t C, sigma;
    int rcm;
    int32_t runs;         /**< run-column threshold the matrix was built with (0: none; SELL points) */
    int xaccess;          /**< x access of the built matrix (SPMV_X_GATHER / SPMV_X_EMUL; SELL points) */
    int idx16;            /**< 1: the built matrix has 16-bit column indices (spmv_sell.nidx16 > 0; SELL points) */
    int vidx;             /**< 1: the built matrix has value indices (spmv_sell.nvals > 0; SELL points) */
    int32_t nthreads;
    spmv_tune_state state;
    char kernel[48];      /**< kernel name (measured points) */
    int nt;               /**< 1: its kernel writes y by non-temporal stores (a "-nt" kernel; SELL points); in the
                             padding after kernel, so the fields before and after keep their offsets */
    int64_t stored;       /**< stored entries (nnz for CRS) */
    double beta;          /**< nnz / stored */
    double t_convert;     /**< s, CRS -> SELL with RCM (0 for CRS, and for a thread-sweep point: no new build) */
    double t_spmv;        /**< s per multiply, median of the runs */
    double gflops;        /**< 2 nnz / t_spmv * 1e-9 */
    double gbs;           /**< the kernel's declared traffic at alpha / t_spmv, GB/s */
    double err;           /**< check: max |y - y_ref| / (|A||x|)_i */
    double alpha;         /**< RHS factor the model used (simulated, or alpha_min = cols/nnz) */
    double roofline;      /**< model: the roofline bound at nthreads (spmv_model.roofline), Gflop/s (0 without a
                             machine) */
    double ecm;           /**< model: ECM prediction at nthreads (spmv_model.predicted), Gflop/s */
    double limit;         /**< the model's limit = roofline (kept for the tuning record's "limit gflops") */
    double pct;           /**< % of roofline: 100 * gflops / roofline (0 without a machine) */
    double ecm_err;       /**< ECM error: 100 * (ecm - gflops) / gflops, % (0 without a machine) */
    double bound;         /**< pruning bound (spmv_tune_bound), Gflop/s; 0 when not computed */
    char note[128];       /**< why pruned, skipped or failed; empty otherwise */
    double spread;        /**< slowest / fastest timed run (1: steady). Above SPMV_TUNE_NOISY the runs were repeated
                             once (the steadier set counts); still above it: a disturbed measurement, the note says
                             "noisy" */
} spmv_tune_point;

/** Runs of one point that differ by more than this factor (slowest / fastest) are timed again; if they still do,
 * the point is marked noisy (spmv_tune_point.spread, its note) and no speed-up is reported without saying so. */
#define SPMV_TUNE_NOISY 2.0

/** y's size from which the search also times its best point with non-temporal y stores flipped (stage 8; where the
 * matrix indexes y directly and the family has such kernels): a quarter of SPMV_NT_AUTO_BYTES, the library's own
 * switch, so that the tuner measures the choice around it. Whether streaming stores pay depends on the host and the
 * matrix, not only on the size: on the AMD EPYC (Zen 5) VM of 2026-12-07, one core, medians of 5 interleaved rounds,
 * lap2d 2000^2 SELL-32 ran 17 % faster with ordinary stores, HPCG 128^3 SELL-32 5 % faster with streaming ones
 * (BENCHMARKS.md). The variant is weighed at the search's thread count, as the other variants are. */
#define SPMV_TUNE_NT_MIN_BYTES (SPMV_NT_AUTO_BYTES / 4)

typedef struct spmv_tune_opts {
    double budget;        /**< seconds for the search (> 0, default 30): a point whose estimated cost does not fit in
                             what is left is SKIPPED; the CRS baseline and one SELL point always run */
    double run_time;      /**< seconds per timed run (default 0.1; repetitions calibrated to it) */
    int32_t runs;         /**< timed runs per point, the median counts (default 5) */
    int32_t max_threads;  /**< largest thread count (0 = omp_get_max_threads()), at most one thread per 2048 nonzeros
                             (as the library's default partition); threads swept: 1, 2, 4, ..., max */
    int rcm;              /**< 1 (default): also try RCM (square matrices); 0: no */
    int permuted;         /**< vector order of every SELL point and of the result (spmv_sell_opts.permuted; default 0) */
    int full;             /**< 0 (default): staged search: every C at its default sigma; the sigma list at the best C;
                             RCM at that C (the best sigma, then the list; after two RCM windows that both lose by
                             more than 20 % the rest is SKIPPED); then the threads. 1: every C x sigma x RCM at max
                             threads, then the threads */
    const int32_t *C_list;/**< chunk heights to sweep; NULL (default): spmv_tune_chunk_heights */
    int32_t nC;
    const spmv_machine *machine; /**< for the limits and the pruning; NULL (default): neither */
    spmv_bw_kind bw;      /**< b_S of the roofline (default SPMV_BW_MIX: the kernel's read/write mix) */
    double alpha;         /**< RHS factor of the model: < 0 (default -1): simulated (sampled in bounded time for
                             large matrices, spmv_model_opts.max_accesses); >= 0: this value */
    double prune_margin;  /**< spmv_tune_prune's margin (default 0.10) */
    double max_stored_factor; /**< the padding guard of every SELL point (spmv_sell_opts.max_stored_factor; default
                             2, 0 = no limit): a point whose stored entries (spmv_tune_stored, before it is built) exceed
                             it is PRUNED, also one that would otherwise always run */
    const char *record;   /**< database to store the choice in (spmv_tune_db_path for the default); NULL: no record */
    const char *label;    /**< the matrix's name in the record (NULL: "matrix") */
    /** Progress, called from the calling thread before (state RUNNING) and after each point: done of planned points
     * finished, elapsed of budget seconds. NULL: none. */
    void (*progress)(void *ctx, const spmv_tune_point *p, int32_t done, int32_t planned, double elapsed,
                     double budget);
    void *ctx;
} spmv_tune_opts;

SPMV_API spmv_tune_opts spmv_tune_opts_default(void);

typedef struct spmv_tune_result {
    spmv_sell_opts opts;  /**< the choice: C, sigma, rcm, nthreads, permuted (unroll 1) and its kernel variant: runs,
                             xaccess, idx16, vidx (as built), nt_stores (as its kernel writes y) */
    spmv_tune_point best; /**< its measurement at opts.nthreads (the final comparison, stage 6) */
    spmv_tune_point crs;  /**< CRS at the choice's thread count (opts.nthreads), timed alternately with the choice in
                               the final comparison (stage 6): the same conditions for both */
    double speedup;       /**< crs.t_spmv / best.t_spmv, same thread count; <= 1: CRS is faster and nothing is
                               recorded. Check best.spread and crs.spread (> SPMV_TUNE_NOISY: disturbed) */
    double break_even;    /**< spmv_tune_break_even(best conversion time, crs.t_spmv, best.t_spmv) */
    int fast;             /**< 1: the C values swept have fast kernels; 0: the reference kernel (any C) */
    int recorded;         /**< 1: stored in opts->record; 0 also when the choice is not faster than crs (a slower
                               SELL-C-sigma is never recorded) */
    double elapsed;       /**< s, the whole search */
    int32_t npoints;
    spmv_tune_point *points; /**< every point in the order tried (measured, pruned, failed, skipped) */
} spmv_tune_result;

/** Tune SELL-C-sigma for A on this machine within o->budget seconds: measure CRS and SELL configurations (each
 * checked against a reference loop before it counts, 1e-12 relative to |A||x|), keep the fastest, and when
 * o->record is set and the choice is faster than CRS at its thread count, store the choice there (otherwise
 * r->recorded = 0 and the status is SPMV_OK; only the default database location's folders are created, another
 * path's folder must exist: SPMV_ERR_IO). *S (may be NULL: not wanted) receives the chosen matrix, built and
 * partitioned for opts.nthreads threads. A must have rows, cols and nnz >= 1. The library prints nothing: progress
 * goes to o->progress. Free r with spmv_tune_result_free (also after an error). Errors: SPMV_ERR_ARG (NULL, an
 * empty matrix, a bad option), SPMV_ERR_NOMEM, SPMV_ERR_ARCH, SPMV_ERR_IO/PARSE (recording failed: r is filled and
 * *S built all the same). */
SPMV_API spmv_status spmv_tune(const spmv_crs *A, const spmv_tune_opts *o, spmv_tune_result *r, spmv_sell **S);
SPMV_API void spmv_tune_result_free(spmv_tune_result *r);

#ifdef __cplusplus
}
#endif
#endif /* SPMV_TUNE_H */
