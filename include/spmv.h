/**
 * @file spmv.h
 * spmv.h -- sparse matrix-vector multiplication y = alpha*A*x + beta*y on CPUs with wide SIMD units.
 *
 * Formats: CRS (compressed row storage) and SELL-C-sigma (Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014).
 * Main reference for the kernels and the model: Alappat et al., "Performance Modeling of Streaming Kernels and
 * Sparse Matrix-Vector Multiplication on A64FX", PMBS 2020 (shared/reference/a64fx-spmv-ecm-paper.txt).
 *
 * Conventions
 *  - Row and column indices are int32_t (4-byte indices are part of the code balance); offsets are int64_t.
 *  - Every fallible function returns spmv_status (0 = SPMV_OK, negative = error) and writes its results through
 *    out-pointers. spmv_strerror() names a code; spmv_last_error() gives the detail of the last error raised in
 *    the calling thread (file, line, argument, reason).
 *  - The library never prints to stdout and never exits or aborts on user input.
 *  - Every _free accepts NULL. `_wrap` borrows the caller's arrays; every other constructor copies.
 *  - All arrays the library allocates are aligned to SPMV_ALIGNMENT bytes (CMake option SPMV_ALIGNMENT, default 64).
 *  - A built matrix is read-only for the multiply functions: several application threads may call spmv_*_mv on
 *    the same matrix at once, each with its own y.
 *
 * Layers: this header holds the core (status, CRS and SELL-C-sigma, multiply, permutations, the solver handle,
 * kernel families, wisdom); spmv_model.h adds the performance model (machine files, alpha, code balance, roofline,
 * ECM) and spmv_tune.h the tuner and its database. Each includes the ones below it.
 */
#ifndef SPMV_H
#define SPMV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SPMV_BUILDING_LIBRARY) && defined(__GNUC__)
#define SPMV_API __attribute__((visibility("default")))
#else
#define SPMV_API
#endif

#define SPMV_VERSION_MAJOR 0
#define SPMV_VERSION_MINOR 1
#define SPMV_VERSION_PATCH 0
#define SPMV_VERSION_STRING "0.1.0"
/** Encoded as major*10000 + minor*100 + patch, for compile-time comparisons. */
#define SPMV_VERSION (SPMV_VERSION_MAJOR * 10000 + SPMV_VERSION_MINOR * 100 + SPMV_VERSION_PATCH)

/** Threads a multiply uses by default: at most one per SPMV_MIN_WORK_PER_THREAD stored entries (a small multiply
 * does not pay for starting a team of threads), and at most one per F / 0.25 ns entries where F is the start and
 * join of the multiply's team on this machine (spmv_team_overhead), measured once per process on first use
 * (environment variable SPMV_FORK_JOIN_NS=F overrides; the model takes F from the machine file's parallel region
 * overhead). On the AMD Zen 5 VM F = 0.5 us with the helper threads (one thread per 2048 entries); with OpenMP regions
 * (SPMV_TEAM=openmp) F = 2.7 us: one thread per 10 700 entries (G51, 11 818 nonzeros, CRS: 5.9 Gflop/s on 1 thread,
 * 4.4 on 2 with the 2048 rule). 2048: on a 2-core Intel Xeon VM (libgomp) a second thread pays from
 * about 4000 entries (CRS at 2 threads, Gflop/s, 8192 -> 2048: pow, 13188 nnz, 3.5 -> 5.7; G51 5.7 -> 8.0;
 * cryg2500 4.5 -> 6.8; SELL no slower), while 494_bus (1666 nnz) on two threads of 833 entries is slower than on
 * one (SELL-32-1 4.5 -> 2.5 at 1024). SELL-C-sigma counts an entry of a run column (contiguous x, no index: about
 * a quarter of the time of a gathered entry in cache) as a quarter of an entry here. */
#define SPMV_MIN_WORK_PER_THREAD 2048

/** Most threads a matrix's partition or a multiply takes: an explicit nthreads above it is an error (SPMV_ERR_ARG);
 * the default (OpenMP's omp_get_max_threads(), i.e. OMP_NUM_THREADS) is capped at it, and every OpenMP region the
 * library opens asks for at most this many threads (libgomp itself fails with a segmentation fault when asked for
 * 100 000). */
#define SPMV_MAX_THREADS 4096

/** Seconds a multiply on `threads` threads spends starting and joining its team when it has no work: the best of 5
 * windows of 200 empty team calls. A multiply of up to 2^20 entries runs on the library's helper threads (the caller
 * is thread 0; one round trip between cores: 0.5 us on 2 cores of the AMD EPYC Zen 5 VM, where an OpenMP parallel
 * region takes 2.8 us), a larger one in an OpenMP parallel region; the environment variable SPMV_TEAM=openmp keeps
 * every multiply in OpenMP regions, and helpers that find their cores busy with other threads (the application's
 * own OpenMP threads, which spin after each of its regions) give up for the process. The thread count is OpenMP's
 * (omp_get_max_threads()) in every case. Returns 0 for threads < 2, inside a parallel region, or without OpenMP;
 * threads above SPMV_MAX_THREADS are measured at SPMV_MAX_THREADS.
 * spmv-machine stores it as the machine's parallel region overhead (the model adds it to each multiply on more than
 * one thread). */
SPMV_API double spmv_team_overhead(int threads);

/** Size of y (bytes) from which spmv_sell_opts.nt_stores = -1 (auto) asks for non-temporal stores: 16 MiB, 2^21
 * rows. A y this large does not stay in the caches of the machines measured between two multiplies of a matrix
 * that is larger still, so the write-allocate of ordinary stores is pure traffic. */
#define SPMV_NT_AUTO_BYTES ((int64_t)16 << 20)

/* ================================================================================================ */
/* Status codes, errors, version                                                                     */
/* ================================================================================================ */

typedef enum spmv_status {
    SPMV_OK = 0,
    SPMV_ERR_ARG = -1,         /**< invalid argument: NULL, negative size, out-of-range index, bad option */
    SPMV_ERR_NOMEM = -2,       /**< an allocation failed (or one array would exceed half the physical memory);
                                    nothing leaked, outputs untouched */
    SPMV_ERR_IO = -3,          /**< a file could not be opened, read or written */
    SPMV_ERR_PARSE = -4,       /**< a Matrix Market, machine or tuning file is malformed (the message names file and line) */
    SPMV_ERR_UNSUPPORTED = -5, /**< valid input this library does not handle (complex field, ...) */
    SPMV_ERR_OVERFLOW = -6,    /**< a size does not fit the 32-bit row/column indices */
    SPMV_ERR_ARCH = -7,        /**< a forced kernel family (SPMV_ARCH) is not available on this CPU */
    SPMV_ERR_COMM = -8,        /**< a communication call failed (the optional spmv::mpi component, spmv_mpi.h: the
                                    message gives the MPI error string) */
    SPMV_ERR_PADDING = -9      /**< SELL-C-sigma would store more than spmv_sell_opts.max_stored_factor x nnz entries
                                    (the message gives the stored entries and the bytes they would take) */
} spmv_status;

/** Version of the library linked at run time ("0.1.0"); compare with SPMV_VERSION_STRING. Never NULL. */
SPMV_API const char *spmv_version(void);

/** Short fixed text for a status code; never NULL. */
SPMV_API const char *spmv_strerror(spmv_status status);

/** Detail of the last error raised in the calling thread (thread-local), e.g.
 * "m.mtx:4: row index 0 out of range 1..3". Empty string when there was none. Never NULL. */
SPMV_API const char *spmv_last_error(void);

/* ================================================================================================ */
/* Aligned memory                                                                                    */
/* ================================================================================================ */

/** Alignment in bytes of every array the library allocates (power of two, >= 64 by default). */
SPMV_API size_t spmv_alignment(void);

/** A vector of n doubles aligned to spmv_alignment(), zero-filled. n >= 0.
 * Errors: SPMV_ERR_ARG (v NULL, n < 0), SPMV_ERR_NOMEM. *v is NULL for n = 0. Free with spmv_vec_free. */
SPMV_API spmv_status spmv_vec_alloc(int64_t n, double **v);
SPMV_API void spmv_vec_free(double *v);

/* ================================================================================================ */
/* CRS (compressed row storage)                                                                      */
/* ================================================================================================ */

/** A rows x cols matrix in CRS. Columns are sorted within each row, duplicates summed, explicit zeros kept. */
typedef struct spmv_crs {
    int32_t rows;     /**< number of rows, >= 0 */
    int32_t cols;     /**< number of columns, >= 0 */
    int64_t nnz;      /**< stored nonzeros (explicit zeros included) = rowptr[rows] */
    int64_t *rowptr;  /**< length rows+1: entries of row i are [rowptr[i], rowptr[i+1]) */
    int32_t *col;     /**< length nnz: 0-based column indices, strictly increasing within a row */
    double *val;      /**< length nnz: values */
    int32_t nparts;   /**< number of parts of the thread partition (= threads the driver uses) */
    int32_t *part;    /**< length nparts+1: thread t finishes (writes y of) the rows [part[t], part[t+1]) */
    int64_t *split;   /**< length nparts+1: thread t multiplies the entries [split[t], split[t+1]); split[0] = 0,
                           split[nparts] = nnz and rowptr[part[t]] <= split[t] <= rowptr[part[t]+1]. A merge-path
                           partition (Merrill & Garland, SC 2016): rows + nonzeros in equal shares, so a row longer
                           than a share is split between threads; a boundary inside a row of at most
                           (rows + nnz) / (64 nparts) entries moves to that row's nearer end, so only long rows are
                           split. Thread t sums the entries it holds of row part[t+1] (the row it starts and a later
                           thread finishes) into a carry; the carries are added to y in thread order after all
                           threads are done (no atomics; deterministic for a given partition). */
    int owns;         /**< 1: rowptr/col/val belong to this struct; 0: borrowed (spmv_crs_wrap) */
    const struct spmv_kernel *kernel; /**< internal: the CRS kernel chosen at build time (spmv_crs_kernel_name) */
} spmv_crs;

/** Copying constructor from the caller's CRS arrays (0-based). rowptr: length rows+1, non-decreasing, rowptr[0]=0;
 * col, val: length rowptr[rows]. Columns may be unsorted and repeated: they are sorted and duplicates summed.
 * val may be NULL for a pattern matrix (every entry 1.0).
 * Errors: SPMV_ERR_ARG (NULL pointer, negative size, rowptr not monotone, column outside 0..cols-1; the message
 * names the argument and the entry), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_crs_from_arrays(int32_t rows, int32_t cols, const int64_t *rowptr, const int32_t *col,
                                          const double *val, spmv_crs **A);

/** Borrowing constructor: A points at the caller's arrays, which must outlive A and must already satisfy the CRS
 * invariants (columns strictly increasing within each row, all in 0..cols-1); they are checked, not changed.
 * Errors: SPMV_ERR_ARG (as above, or unsorted/repeated columns: use spmv_crs_from_arrays), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_crs_wrap(int32_t rows, int32_t cols, int64_t *rowptr, int32_t *col, double *val,
                                   spmv_crs **A);

/** From COO triplets (any order, duplicates summed). row, col: length nnz, indices with the given base (0 or 1);
 * val: length nnz, or NULL for a pattern (1.0). Errors: SPMV_ERR_ARG (index out of range, named with its
 * position), SPMV_ERR_NOMEM; as every constructor that chooses a kernel, the environment's errors of spmv_arch_get
 * (SPMV_ERR_ARCH, SPMV_ERR_ARG naming the variable). */
SPMV_API spmv_status spmv_crs_from_coo(int32_t rows, int32_t cols, int64_t nnz, const int32_t *row,
                                       const int32_t *col, const double *val, int base, spmv_crs **A);

/** Deep copy. */
SPMV_API spmv_status spmv_crs_copy(const spmv_crs *A, spmv_crs **B);
SPMV_API void spmv_crs_free(spmv_crs *A);

/** Repartition A for nthreads threads: the merge-path partition of spmv_crs.split, rows + nonzeros in equal shares,
 * long rows split between threads (0 = omp_get_max_threads(), but at most one thread per 2048 nonzeros). nthreads
 * above 4096 is an error (SPMV_ERR_ARG). Errors: SPMV_ERR_ARG, SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_crs_set_threads(spmv_crs *A, int nthreads);

/** Read a Matrix Market file (through SuiteSparse CHOLMOD) into CRS.
 * Accepted: coordinate and array formats; real, integer and pattern fields (a pattern entry is 1.0); general,
 * symmetric and skew-symmetric symmetry, expanded to full storage whichever triangle is stored (diagonal once,
 * skew mirror negated); banner keywords in any case, leading blanks, comment and blank lines anywhere, CRLF.
 * Rejected: complex fields (SPMV_ERR_UNSUPPORTED); a missing banner, unknown keywords, 'hermitian' on a real
 * field, a malformed size line, an entry with too few tokens, an index outside 1..rows / 1..cols, more or fewer
 * entries than declared, a nonzero diagonal in a skew-symmetric file (SPMV_ERR_PARSE, message "FILE:LINE: reason");
 * rows or cols above INT32_MAX or an entry count above INT64_MAX (SPMV_ERR_OVERFLOW); an unreadable file
 * (SPMV_ERR_IO); SPMV_ERR_UNSUPPORTED when the library was built without SuiteSparse; the environment's errors of
 * spmv_arch_get (SPMV_ERR_ARCH, SPMV_ERR_ARG; their message names the variable, not the file).
 * Details: a UTF-8 BOM and blank lines before the banner are accepted; pattern with skew-symmetric, hermitian or
 * array format, non-integer values in an integer field, entries with too many tokens and data lines over 4096
 * characters are rejected. Values are read like strtod (nan/inf in any case, overflow gives +-inf, in the C
 * locale's decimal point). In array format every stored value becomes an entry, zeros included. The file is
 * pre-scanned by spmv (line numbers, the rules above), then a normalized copy is parsed by CHOLMOD. */
SPMV_API spmv_status spmv_crs_read_mm(const char *path, spmv_crs **A);

/** Write A as a general real coordinate Matrix Market file (1-based, 17 significant digits, round-trips exactly
 * except the sign and payload of a NaN). On failure the partial file is removed.
 * Errors: SPMV_ERR_ARG, SPMV_ERR_IO (names the path). */
SPMV_API spmv_status spmv_crs_write_mm(const spmv_crs *A, const char *path);

/* Generators ------------------------------------------------------------------------------------ */

/** The HPCG 27-point stencil on an nx x ny x nz grid, built as the HPCG benchmark's GenerateProblem builds it:
 * row/column index i = ix + nx*(iy + ny*iz), diagonal 26, each existing neighbour in the 3x3x3 box -1.
 * rows = cols = nx*ny*nz; nnz = (3nx-2)(3ny-2)(3nz-2). Errors: SPMV_ERR_ARG (a size < 1),
 * SPMV_ERR_OVERFLOW (nx*ny*nz > INT32_MAX), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_gen_hpcg(int32_t nx, int32_t ny, int32_t nz, spmv_crs **A);

/** 2D 5-point Laplacian on nx x ny (diagonal 4, neighbours -1), index ix + nx*iy. */
SPMV_API spmv_status spmv_gen_laplace2d(int32_t nx, int32_t ny, spmv_crs **A);

/** 3D 7-point Laplacian on nx x ny x nz (diagonal 6, neighbours -1), index ix + nx*(iy + ny*iz). */
SPMV_API spmv_status spmv_gen_laplace3d(int32_t nx, int32_t ny, int32_t nz, spmv_crs **A);

/* Statistics ------------------------------------------------------------------------------------ */

typedef struct spmv_crs_stats {
    int32_t nzr_min;     /**< fewest nonzeros in a row (N_nzr) */
    int32_t nzr_max;     /**< most nonzeros in a row */
    double nzr_mean;     /**< nnz / rows (0 for rows = 0) */
    int32_t empty_rows;  /**< rows without a stored entry */
    int64_t bandwidth;   /**< max |i - j| over stored entries (0 for an empty matrix) */
    int64_t profile;     /**< sum over non-empty rows i of max(0, i - min_j j) (the envelope below the diagonal) */
} spmv_crs_stats;

SPMV_API spmv_status spmv_crs_get_stats(const spmv_crs *A, spmv_crs_stats *s);

/* ================================================================================================ */
/* Reordering: permutations and reverse Cuthill-McKee (RCM)                                          */
/* ================================================================================================ */

/** Symmetric permutation of a square matrix: B = P A P^T, B[i][j] = A[perm[i]][perm[j]].
 * perm: length rows, a bijection on 0..rows-1 (perm[new] = old). Errors: SPMV_ERR_ARG (NULL, not square,
 * perm not a bijection: the message names the first bad entry), SPMV_ERR_NOMEM.
 * VECTOR ORDER: B works on vectors in the permuted order. To get y = A x: x'[i] = x[perm[i]], y' = B x',
 * y[perm[i]] = y'[i]. B times an original-order x is a wrong result, not an error (nothing can detect it);
 * SPMV_VERBOSE=1 prints a reminder when B is made. */
SPMV_API spmv_status spmv_crs_permute(const spmv_crs *A, const int32_t *perm, spmv_crs **B);

/** Reverse Cuthill-McKee ordering of a square matrix on the pattern of A + A^T (built with CXSparse), so
 * unsymmetric matrices work too. Each connected component starts from a pseudo-peripheral node (George & Liu:
 * repeated BFS from the minimum-degree node of the last level until the eccentricity stops growing); neighbours
 * are visited in increasing degree (ties by index); the order is reversed at the end. Cuthill-McKee is tried from
 * the George-Liu node, the 2 lowest-degree nodes of its last level and the component's minimum-degree node; the
 * smallest bandwidth wins (ties: in that order). Isolated nodes are numbered last. Deterministic.
 * perm, iperm: length rows (caller-allocated): perm[new] = old, iperm[old] = new; apply with spmv_crs_permute
 * (the matrix it makes works on vectors in the RCM order: permute x and y too, see there; or let SELL-C-sigma apply
 * RCM inside with spmv_sell_opts.rcm = 1 and permuted = 0, vectors in the original order).
 * Errors: SPMV_ERR_ARG (NULL, not square: the message gives rows x cols), SPMV_ERR_NOMEM,
 * SPMV_ERR_UNSUPPORTED (library built without SuiteSparse). */
SPMV_API spmv_status spmv_rcm(const spmv_crs *A, int32_t *perm, int32_t *iperm);

/* ================================================================================================ */
/* SELL-C-sigma                                                                                      */
/* ================================================================================================ */

/** A storage format. */
typedef enum spmv_format { SPMV_FORMAT_CRS = 0, SPMV_FORMAT_SELL = 1 } spmv_format;

/** How a kernel brings x[col] into its registers (the "x-access variant"; Kreutzer et al. 2014 use the hardware
 * gather; on cores where it is slow -- AMD Zen: 14.7 cy per zmm vgatherdpd against 0.5 cy per load, measured by
 * spmv-machine -- scalar loads and inserts are faster). */
typedef enum spmv_xaccess {
    SPMV_X_AUTO = 0,   /**< only in spmv_sell_opts: the family's choice for this CPU */
    SPMV_X_SCALAR = 1, /**< scalar code, one entry at a time (reference and scalar CRS kernels) */
    SPMV_X_GATHER = 2, /**< hardware gather (vgatherdpd, SVE ld1d gather) */
    SPMV_X_EMUL = 3    /**< gather emulated by scalar loads and inserts (vmovsd/vmovhpd, vinsertf128) */
} spmv_xaccess;

/** Build options. Start from spmv_sell_opts_default() and change fields. */
/** Entries of the value table of a SELL matrix with value indices (spmv_sell_opts.vidx): 16, what one AVX-512
 * two-register permute (vpermt2pd) looks up. */
#define SPMV_VTAB_MAX 16

typedef struct spmv_sell_opts {
    int32_t C;        /**< chunk height C >= 1 (rows per chunk); 0 = auto: the choice spmv-tune recorded for a
                         matching matrix on this machine if the caller imported it (spmv_wisdom_import), else the
                         model's default (see spmv_tune_auto_params) */
    int32_t sigma;    /**< sorting window sigma >= 1: rows sorted by descending length inside windows of sigma rows;
                         1 = no sorting, >= rows = global sort; 0 = auto (as for C). Windows start at
                         multiples of sigma; a sigma that is not a multiple of C lets chunks straddle two windows */
    int32_t unroll;   /**< chunk lengths rounded up to a multiple of this (>= 1; 1 = no rounding) */
    int permuted;     /**< 0: x and y in the original order (default; the sigma sort and RCM are applied inside
                         the multiply); 1: x and y in the permuted order (for a square matrix the columns are
                         permuted alike, A' = P A P^T; for a rectangular one only the rows are, x stays in the
                         original order). With 1, every x passed to spmv_sell_mv must first go through
                         spmv_sell_permute_vec and every y back through spmv_sell_unpermute_vec: an original-order
                         vector gives a wrong result, not an error. SPMV_VERBOSE=1 names the order of each matrix. */
    int nt_stores;    /**< non-temporal (streaming) stores of y where a kernel has them (AVX-512, AVX2): no
                         write-allocate, 8 bytes per row less traffic, and y is not in the caches after the
                         multiply. -1 = auto (default): on when the kernels index y directly (permuted order, or a
                         perm that is the identity, spmv_sell.identity) and y holds SPMV_NT_AUTO_BYTES or more,
                         so that it would not stay in the caches anyway (lap2d 2000^2, 32 MiB of y: SELL-32-1
                         1.76 -> 1.88 Gflop/s at 1 thread, 3.03 -> 3.68 at 2, BENCHMARKS.md); 0 = off; 1 = on
                         where y is indexed directly (ignored in the original order otherwise). With C = 0 or
                         sigma = 0 a record of spmv-tune that timed both ("non-temporal stores: on|off") replaces
                         auto. The environment variable SPMV_SELL_NT=1 or 0 overrides it. */
    int rcm;          /**< 1: apply reverse Cuthill-McKee (square matrices) before the sigma-sort; 0: off */
    int nthreads;     /**< parts of the thread partition; 0 = omp_get_max_threads(), at most one per 2048 entries */
    int32_t runs;     /**< run columns (see spmv_sell): a chunk column becomes a run column when at least `runs` of
                         its C lanes hold consecutive columns (lane r: column b + r); 0 = off; -1 = auto (default:
                         ceil(3C/4), the point where a run column's 8C + 4 + C/8 bytes undercut the 12 bytes per
                         entry of gather columns), and none where a sample of the chunks (an eighth, 16 to 256 of
                         them, one per stratum at a hashed offset) holds fewer than max(10 %, 320 % / C) of its
                         entries in run columns (80 % for C = 4, 40 % for C = 8, 20 % for C = 16, 10 % for C = 32)
                         or fewer than 16 of them per chunk: below that the multiply measured no faster with them
                         and the search costs more than the plain conversion (sell.c, SELL_RUN_LANES;
                         spmv_sell.run_sample_share says what the sample found); values above C are C. Run columns
                         need C <= 64. */
    int idx16;        /**< 16-bit column indices: a chunk whose gather columns span fewer than 65536 columns
                         stores them as 16-bit offsets from a per-chunk base (col16; not in col), which every kernel
                         reads (10 bytes per entry instead of 12, exact results); other chunks keep 32-bit indices
                         (the escape). -1 = auto (default: on when the stored values take 16 MiB or more, i.e.
                         where the multiply is memory-bound; in cache the index widening costs about 5 %), 0 = off,
                         1 = on. Costs 2 bytes per stored entry. */
    int vidx;         /**< value indices (CSR-VI: Kourtis, Goumas, Koziris, "Optimizing sparse matrix-vector
                         multiplication using index and value compression", ACM Computing Frontiers 2008, Sect. 3.2):
                         when the chunks' stored values (padding's 0.0 included) take at most SPMV_VTAB_MAX = 16
                         distinct doubles (bit patterns), each stored entry also keeps a 1-byte index into a
                         16-entry table of them (spmv_sell.val8, vtab), which kernels that know the format read
                         instead of the 8-byte value: 1 byte per entry instead of 8, the same doubles, so the same
                         result bit for bit. Stencils and constant-coefficient FEM matrices qualify (lap2d: 2 values,
                         HPCG: 2), pattern matrices (all 1) too; a matrix with more distinct values keeps its plain
                         values (spmv_sell.nvals = 0). -1 = auto (default: on where it qualifies and the stored values
                         take 2 MiB or more, i.e. beyond a core's L2: HPCG 32^3, 7 MB of values, 2.5x faster on the
                         Intel Xeon VM; in L2 the table lookup costs up to 20 %), 0 = off, 1 = on where it
                         qualifies (the environment variable SPMV_VIDX=1|0 overrides all three). Costs 1 byte per
                         stored entry and a pass over the chunks' values while they are built; the indices are not
                         allocated when A's first 4096 values (the long rows of a CRS part included) already hold
                         more than 16 distinct ones. With -1, a failed allocation of the indices builds the matrix
                         without them; with 1 it is SPMV_ERR_NOMEM. */
    int xaccess;      /**< how the kernel fetches x for gather columns: SPMV_X_AUTO (default: the family's choice
                         for this CPU, measured once per process), SPMV_X_GATHER (hardware gather) or SPMV_X_EMUL
                         (scalar loads and inserts). The environment variable SPMV_XACCESS=gather|emul overrides. A
                         family without that variant runs its own (SPMV_VERBOSE says so). */
    int32_t long_rows;/**< hybrid SELL-C-sigma: rows with more than long_rows entries are kept out of the chunks and
                         stored in a CRS part (spmv_sell.nlong), so that neither the padding nor the thread balance
                         depends on the longest rows. -1 = auto (default): long_rows = max(64, 4 q99), q99 the 99th
                         percentile of the row lengths (the length that all but the longest max(1, rows/100) rows do
                         not exceed): at most 1 % of the rows (or one row) qualify, and a chunk of the bulk is at
                         most 4 q99 wide whatever sigma is;
                         0 = off (no CRS part); > 0: this threshold. When some row qualifies, the (rows - qualifying)
                         mod C longest remaining rows join the CRS part too, so that the chunks hold a multiple of C
                         rows. */
    double max_stored_factor; /**< padding guard: the conversion refuses (SPMV_ERR_PADDING) when the stored entries
                         (padding included) would exceed max_stored_factor x nnz and 2^20 (12 MiB of values and
                         indices: a small matrix is never refused). Default 2 (about twice the memory of the CRS
                         matrix); 0 = no limit. Checked before col and val are allocated. */
} spmv_sell_opts;

/** Defaults: C = 32, sigma = 1, unroll = 1, permuted = 0, rcm = 0, nthreads = 0, runs = -1 (auto), idx16 = -1
 * (auto), vidx = -1 (auto), xaccess = SPMV_X_AUTO, long_rows = -1 (auto), max_stored_factor = 2. A struct filled without this function
 * (zero fields) gets no CRS part, no padding limit, no run columns, no 16-bit indices and no value indices. */
SPMV_API spmv_sell_opts spmv_sell_opts_default(void);

/** A rows x cols matrix in SELL-C-sigma. Chunk k holds the permuted rows [k*C, k*C + C) (the last chunk is padded
 * with empty rows), is chunklen[k] columns wide and is stored column-major: entry j of lane r is at
 * chunkptr[k] + j*C + r.
 *
 * Hybrid (spmv_sell_opts.long_rows): the permuted rows [rows - nlong, rows) -- the long rows, in their incoming
 * order -- are not in the chunks but in a CRS part (longptr, longcol, longval); the chunks then hold the rows
 * [0, rows - nlong), a multiple of C. The multiply splits the CRS part between the threads by the merge-path
 * partition of spmv_crs.split (longpart, longsplit), so one long row can run on every thread.
 *
 * Run columns (spmv_sell_opts.runs): the first chunkruns[k] columns of chunk k are run columns. Run column q of the
 * matrix (q = runptr[k] + j for column j of chunk k) has lane r read x[runbase[q] + r] -- consecutive columns, which a
 * SIMD kernel loads with one contiguous (masked) load instead of a gather, and without reading the C column
 * indices (4 + C/8 bytes per C entries instead of 4C). Bit r of the mask (byte r/8 of runmask + q*ceil(C/8), bit
 * r%8) says whether lane r holds an entry; lanes without one are padding. Run columns are the keys b = column - r
 * that at least `runs` lanes of the chunk share (the idea of the DIA format, applied per chunk; see sell.c). The full
 * run columns (every lane holds an entry) come first, chunkfull[k] of them, then the others; each group in ascending
 * key order.
 * The remaining columns are ordinary gather columns: lane r holds the row's other entries in ascending column
 * order, then padding. col[] holds the gather columns' indices only where they are 32-bit (no 16-bit indices in the
 * chunk): a kernel reads the run columns through runbase/runmask and 16-bit chunks through colbase/col16, and
 * spmv_sell_chunk_columns gives any position's column.
 *
 * Padding entries have value 0 and a column index already used by their own row (or, for an empty row, by the
 * chunk's longest row at the same position), so a gather never touches a new line. */
typedef struct spmv_sell {
    int32_t rows, cols;
    int32_t C;          /**< chunk height */
    int32_t sigma;      /**< sorting window actually used: min(sigma, rows), at least 1 */
    int32_t nchunks;    /**< ceil(rows / C) */
    int32_t unroll;     /**< chunk lengths are multiples of this */
    int permuted;       /**< vector order of the multiply, see spmv_sell_opts */
    int prefetch;       /**< 1: the AVX-512 SELL kernels prefetch values (and gather columns' indices) ahead in
                           software: 2^21 stored entries (16 MiB of values) or more; with value indices (nvals > 0)
                           from 2^18 (where they are on by default: there the prefetch of the 1-byte indices gains
                           up to 18 %, BENCHMARKS.md); or SPMV_PREFETCH=1; SPMV_PREFETCH=0: never (the AVX2 and SVE
                           kernels have no prefetch) */
    int identity;       /**< 1: perm is the identity (sigma = 1 without RCM and without rows moved to the CRS part,
                           or a sort that moved no row), so both vector orders are the same and the kernels index y
                           directly, without perm */
    int nt_stores;      /**< 1: non-temporal y stores wanted (spmv_sell_opts.nt_stores: 1, or -1 with y of
                           SPMV_NT_AUTO_BYTES or more); the kernels use them where y is indexed directly */
    int64_t nnz;        /**< nonzeros of A (explicit zeros included) */
    int64_t stored;     /**< stored entries including padding = chunkptr[nchunks] + longptr[nlong] (the CRS part
                           has no padding) */
    int64_t *chunkptr;  /**< length nchunks+1: offset of chunk k in col/val; chunkptr[k+1]-chunkptr[k] = C*chunklen[k] */
    int32_t *chunklen;  /**< length nchunks: chunk length (columns) */
    int32_t *col;       /**< length chunkptr[nchunks] (never NULL, even at length 0): column indices (permuted
                           numbering if permuted and square) at the positions of the gather columns of chunks
                           without 16-bit indices (colbase NULL or colbase[k] = -1); at run-column positions and
                           where col16 holds them, unspecified (never written: the kernels read runbase/runmask
                           and col16 there). spmv_sell_chunk_columns gives every position's column. */
    double *val;        /**< length chunkptr[nchunks] (never NULL, even at length 0): values, 0 for padding */
    int32_t *rowlen;    /**< length rows: nonzeros of permuted row i */
    int32_t *perm;      /**< length rows: perm[i] = original row stored at permuted position i */
    int32_t *iperm;     /**< length rows: iperm[perm[i]] = i */
    int32_t nparts;     /**< parts of the thread partition */
    int32_t *part;      /**< length nparts+1: chunks [part[t], part[t+1]) go to thread t, balanced by stored entries */
    int32_t runs;       /**< run-column threshold used (lanes); 0: the matrix has no run columns (run detection
                           off, or on and no chunk had a run column: then chunkruns, runptr, runbase, runmask and
                           chunkfull are NULL) */
    int64_t nruns;      /**< run columns in all chunks = runptr[nchunks] */
    int32_t *chunkruns; /**< length nchunks (NULL when runs = 0): run columns at the start of chunk k
                           (0 <= chunkruns[k] <= chunklen[k]) */
    int64_t *runptr;    /**< length nchunks+1 (NULL when runs = 0): index of chunk k's first run column in runbase */
    int32_t *runbase;   /**< length nruns (never NULL where chunkruns is not): lane r of run column q holds column
                           runbase[q] + r (stored numbering) */
    uint8_t *runmask;   /**< length nruns*ceil(C/8) + 8: lane r of run column q holds an entry iff bit r%8 of byte
                           runmask[q*ceil(C/8) + r/8] is set; the last 8 bytes are zero padding, so a kernel may read
                           any 8 bytes starting inside the masks */
    int32_t *chunkfull; /**< length nchunks (never NULL where chunkruns is not): the first chunkfull[k] run columns of
                           chunk k are full -- every lane holds an entry (mask all ones), so a kernel may read x there
                           with unmasked loads and no mask (0 <= chunkfull[k] <= chunkruns[k]) */
    int xaccess;        /**< x-access variant asked for (spmv_sell_opts.xaccess, resolved; the kernel's own is in
                           spmv_sell_kernel_shape) */
    int64_t nidx16;     /**< stored entries of gather columns with 16-bit indices (0: none) */
    int32_t *colbase;   /**< length nchunks, or NULL (idx16 off): -1 = chunk k keeps 32-bit indices; else its gather
                           columns' indices are colbase[k] + col16[p] */
    uint16_t *col16;    /**< length chunkptr[nchunks], or NULL: at the gather-column positions p of chunks with colbase[k] >= 0,
                           the column less colbase[k] (other positions unused; col holds these columns no more) */
    int32_t nvals;      /**< value indices (spmv_sell_opts.vidx): distinct values in vtab (1..SPMV_VTAB_MAX); 0: off
                           (then vtab and val8 are NULL) */
    double *vtab;       /**< length SPMV_VTAB_MAX (64-byte aligned; entries past nvals are 0), or NULL: the distinct
                           values of the chunks */
    uint8_t *val8;      /**< length chunkptr[nchunks], or NULL: val[p] == vtab[val8[p]] bit for bit at every chunk
                           position p (padding included) */
    const struct spmv_kernel *kernel; /**< internal: the SELL kernel chosen at build time (spmv_sell_kernel_name) */
    int32_t long_min;   /**< threshold used: rows with more than long_min entries are in the CRS part; 0: no CRS
                           part (then nlong = 0) */
    int32_t nlong;      /**< rows in the CRS part: the permuted rows [rows - nlong, rows) */
    int64_t *longptr;   /**< length nlong+1 (NULL when nlong = 0): entries of CRS-part row j (permuted row
                           rows - nlong + j) are [longptr[j], longptr[j+1]) */
    int32_t *longcol;   /**< length longptr[nlong]: column indices (numbered as col), ascending within a row */
    double *longval;    /**< length longptr[nlong]: values */
    int32_t *longpart;  /**< length nparts+1: merge-path partition of the CRS part, as spmv_crs.part */
    int64_t *longsplit; /**< length nparts+1: as spmv_crs.split (thread t multiplies CRS-part entries
                           [longsplit[t], longsplit[t+1])) */
    const struct spmv_kernel *long_kernel; /**< internal: the CRS kernel whose partial-row entry point multiplies
                                              the CRS part (NULL when nlong = 0) */
    double run_sample_share; /**< automatic run columns (spmv_sell_opts.runs = -1): the share of the sampled chunks'
                                entries that run columns held, which decided whether the matrix has them (at least
                                max(0.10, 3.2 / C) and run_sample_per_chunk >= 16: kept); -1 when no sample was
                                taken (runs asked for or off, C outside 4..64, a matrix without chunks, no memory for
                                the sample) */
    double run_sample_per_chunk; /**< the same sample's run-column entries per sampled chunk; -1 without a sample */
    int64_t yshared; /**< lines of y (64 bytes: 8 rows of the original order) that more than one part of the thread
                        partition writes, through perm (0 where y is indexed directly, with one part, or where the
                        count found no memory): where each thread's share of the multiply stays in its core's private
                        cache (SPMV_SHARED_LINE_CACHE_BYTES = 1 MiB of declared traffic per thread, src/kernels/
                        kernel.h) each moves between the cores' caches in every multiply, and where they cost more
                        than a second thread saves, the multiply runs on one (spmv_sell_mv, the model) */
} spmv_sell;

/** Convert CRS to SELL-C-sigma. The arrays are first touched by the thread partition the multiply uses (above 2^15
 * stored entries; smaller matrices are filled by one thread).
 * C = 0 or sigma = 0 picks the parameters automatically (SPMV_VERBOSE=1 says which: recorded or model).
 * Errors: SPMV_ERR_ARG (NULL, C < 0, sigma < 0, unroll < 1, nthreads < 0, rcm on a non-square matrix, long_rows
 * < -1, max_stored_factor negative or not a number), SPMV_ERR_PADDING (the padding guard, see max_stored_factor;
 * nothing of the size of the stored entries was allocated), SPMV_ERR_NOMEM, SPMV_ERR_OVERFLOW (stored entries
 * exceed INT64 offsets, never in practice),
 * SPMV_ERR_UNSUPPORTED (rcm without SuiteSparse), SPMV_ERR_ARCH (SPMV_ARCH names an unavailable family), SPMV_ERR_ARG
 * also where another of the library's environment variables holds a value it does not take (spmv_arch_get). */
SPMV_API spmv_status spmv_sell_from_crs(const spmv_crs *A, const spmv_sell_opts *opts, spmv_sell **S);

/** Back to CRS in the original row and column order (padding dropped, explicit zeros kept): CRS -> SELL -> CRS
 * gives back the same matrix. Errors: SPMV_ERR_ARG, SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_sell_to_crs(const spmv_sell *S, spmv_crs **A);
SPMV_API void spmv_sell_free(spmv_sell *S);

/** The column (stored numbering, as spmv_sell.col) at each of the C*chunklen[k] stored positions of chunk k, padding
 * included, in col's layout (position chunkptr[k] + j*C + r at cols[j*C + r]), whatever holds it: run columns
 * (runbase, runmask), 16-bit indices (colbase, col16) or col. The way to read a matrix's columns where it has run
 * columns or 16-bit indices, since col then holds only the rest. cols: length C*chunklen[k].
 * Errors: SPMV_ERR_ARG (S or cols NULL where the chunk stores anything, k outside 0..nchunks-1). */
SPMV_API spmv_status spmv_sell_chunk_columns(const spmv_sell *S, int32_t k, int32_t *cols);

/** Repartition the chunks for nthreads threads, balanced by stored entries, and the CRS part of a hybrid matrix by
 * merge path (0 = as in spmv_crs_set_threads). Errors: SPMV_ERR_ARG, SPMV_ERR_NOMEM (S unchanged). */
SPMV_API spmv_status spmv_sell_set_threads(spmv_sell *S, int nthreads);

/** Padding overhead in percent: 100 * (stored - nnz) / nnz (0 when nnz = 0). */
SPMV_API double spmv_sell_padding_percent(const spmv_sell *S);
/** beta = nnz / stored, the fill efficiency in (0, 1] (1 when stored = 0). */
SPMV_API double spmv_sell_beta(const spmv_sell *S);

/** Vector reordering for solvers that stay in the permuted order (S->permuted = 1). n = rows of S for row vectors;
 * for a square matrix the same permutation applies to x.  out[i] = in[perm[i]]  (original -> permuted)
 * and out[perm[i]] = in[i] (permuted -> original). in and out: length rows, must not overlap.
 * With S->permuted = 1: y = A x is spmv_sell_permute_vec(S, x, xp); spmv_sell_mv(S, 1, xp, 0, yp);
 * spmv_sell_unpermute_vec(S, yp, y) (a rectangular S: x as it is, only y is unpermuted). Skipping a step gives a
 * wrong result, not an error. With S->permuted = 0 do not call these: the multiply permutes inside.
 * Errors: SPMV_ERR_ARG (NULL, overlapping in/out). */
SPMV_API spmv_status spmv_sell_permute_vec(const spmv_sell *S, const double *in, double *out);
SPMV_API spmv_status spmv_sell_unpermute_vec(const spmv_sell *S, const double *in, double *out);

/* ================================================================================================ */
/* Multiply                                                                                          */
/* ================================================================================================ */

/** y = alpha*A*x + beta*y.  x: length cols, y: length rows (distinct arrays). With beta = 0, y is not read (NaN in
 * y does not propagate). Runs the A->nparts parts of the partition on as many OpenMP threads, but at most one per
 * 2048 stored entries (a small multiply does not pay for a team; the parts then run in order, with the same
 * result). Errors: SPMV_ERR_ARG (NULL with a nonzero length, x and y overlapping), SPMV_ERR_NOMEM (more than 256
 * parts and no memory for their partial sums). */
SPMV_API spmv_status spmv_crs_mv(const spmv_crs *A, double alpha, const double *x, double beta, double *y);

/** y = alpha*A*x + beta*y for SELL-C-sigma; x and y in the order S->permuted says (see spmv_sell_opts):
 * S->permuted = 0 (the default): both in the original order, as for the CRS matrix S was built from.
 * S->permuted = 1: both in the PERMUTED order (spmv_sell_permute_vec / spmv_sell_unpermute_vec; a rectangular S:
 * only y). The multiply cannot tell which order a vector is in: the wrong one gives a wrong y, not an error
 * (SPMV_VERBOSE=1 names the order when S is built). Threads and
 * errors as spmv_crs_mv, an entry of a run column counting as a quarter of an entry for the threads (see
 * SPMV_MIN_WORK_PER_THREAD); the CRS part of a hybrid matrix is split between the threads by merge path.
 * Padding entries compute 0 * x[c] with a column c of the chunk: where x holds Inf or NaN, a row of that chunk can
 * get NaN where CRS gives +-Inf or a finite value (IEEE 0 * Inf = NaN); with finite x the results agree. */
SPMV_API spmv_status spmv_sell_mv(const spmv_sell *S, double alpha, const double *x, double beta, double *y);

/** Fused multiply for Krylov solvers (e.g. CG's <p, Ap>): y = alpha*A*x + beta*y and, in the same sweep over y
 * (each block of y is reduced while it is still in cache), xy = <x, y> and yy = <y, y> of the new y. Square
 * matrices only (x and y have the same length and, for SELL, the same order). xy or yy may be NULL when not
 * wanted. Sums are taken per thread part and added in part order, so the result is deterministic for a given
 * partition. Errors: SPMV_ERR_ARG (NULL, not square). */
SPMV_API spmv_status spmv_crs_mv_dot(const spmv_crs *A, double alpha, const double *x, double beta, double *y,
                                     double *xy, double *yy);
SPMV_API spmv_status spmv_sell_mv_dot(const spmv_sell *S, double alpha, const double *x, double beta, double *y,
                                      double *xy, double *yy);

/** New values, same pattern: copy A's values into S without rebuilding the structure (solvers that reassemble the
 * matrix every time step). A must have exactly the pattern S was built from (same rows, cols, row offsets and
 * columns, in the original order); this is checked, and on a mismatch S is left unchanged and the message names
 * the first differing row. A matrix with value indices (spmv_sell.nvals > 0) gets its table and indices from the new
 * values, or drops them for good (nvals = 0, the kernels read val) when the new values take more than SPMV_VTAB_MAX
 * distinct doubles or memory for the rebuild runs out; a matrix built without them stays without. Errors:
 * SPMV_ERR_ARG. */
SPMV_API spmv_status spmv_sell_update_values(spmv_sell *S, const spmv_crs *A);

/** Name of the kernel the multiply runs, e.g. "crs-ref", "sell-ref", "sell-avx512-C32". Never NULL. */
SPMV_API const char *spmv_crs_kernel_name(const spmv_crs *A);
SPMV_API const char *spmv_sell_kernel_name(const spmv_sell *S);

/** Traffic and work a kernel declares (likwid-bench style), from which GB/s and the code balance are derived.
 * Bytes moved to/from memory by one multiply with beta = 0, counting x once per nonzero as 8*alpha_x bytes:
 *   bytes = stored*bytes_per_entry + rows*bytes_per_row + nchunks*bytes_per_chunk + 8*alpha_x*nnz
 * flops = flops_per_entry * nnz (useful flops; padding is not counted). */
typedef struct spmv_traffic {
    double bytes_per_entry;   /**< value + index: 12 for 8-byte values and 4-byte indices */
    double bytes_per_row;     /**< y store + write-allocate (16), plus for CRS the row offset: 8 with spmv's int64
                                 offsets (24); the paper's form N_nzr*(12 + 8 alpha) + 20 assumes 4-byte offsets */
    double bytes_per_chunk;   /**< chunk offset + chunk length for SELL (12), 0 for CRS */
    double flops_per_entry;   /**< 2 (one multiply, one add) */
    double bytes_per_run_lane;/**< SELL kernels with run loads: per lane of a run column, value + mask bit (8.125);
                                 0: the kernel's traffic counts run columns like gather columns (bytes_per_entry: the
                                 reference kernel, which decodes them entry by entry) */
    double bytes_per_run;     /**< SELL kernels with run loads: per run column, its base index (4) */
    double bytes_per_entry16; /**< SELL kernels that read 16-bit indices: per gather-column entry of a chunk with
                                 16-bit indices, value + offset (10); 0: counted as bytes_per_entry (the reference
                                 kernel) */
    double bytes_per_value_vi;/**< SELL kernels that read value indices (spmv_sell.val8): bytes of an entry's value
                                 then (1 instead of 8; the 128-byte table is not counted); 0: the kernel reads val[] */
} spmv_traffic;

/** The traffic of the kernel A (S) runs, for this matrix. For SELL in the original vector order (permuted = 0)
 * bytes_per_row includes the 4-byte perm[i] read that scatters y (20 instead of 16); for a matrix with run columns
 * and a kernel with run loads, and for a matrix with 16-bit indices and a kernel that reads them,
 * bytes_per_entry is the average over the stored entries: ((stored - C nruns - nidx16) bytes_per_entry +
 * C nruns bytes_per_run_lane + nruns bytes_per_run + nidx16 bytes_per_entry16) / stored, less
 * (8 - bytes_per_value_vi) per chunk entry for a matrix with value indices and a kernel that reads them, so the
 * formulas below hold unchanged. Errors: SPMV_ERR_ARG (NULL). */
SPMV_API spmv_status spmv_crs_traffic(const spmv_crs *A, spmv_traffic *t);
SPMV_API spmv_status spmv_sell_traffic(const spmv_sell *S, spmv_traffic *t);

/** Bytes of one multiply (beta = 0) under the declaration above, with RHS factor alpha_x (1/N_nzr: x read once). */
SPMV_API double spmv_traffic_bytes(const spmv_traffic *t, int64_t stored, int64_t nnz, int64_t rows,
                                   int64_t nchunks, double alpha_x);

/* ================================================================================================ */
/* One handle for solvers: create, hints, optimize, multiply (inspector-executor)                    */
/* ================================================================================================ */
/* The way most solvers should use spmv (MKL's inspector-executor and PETSc's shadow formats are the models):
 *
 *     spmv_matrix *M;
 *     spmv_matrix_create_crs(n, n, rowptr, col, val, SPMV_BORROW, &M);   // or SPMV_COPY, or spmv_matrix_create_file
 *     spmv_hints h = spmv_hints_default();
 *     h.expected_calls = 2000;                                           // e.g. the solver's iteration limit
 *     spmv_matrix_set_hints(M, &h);
 *     spmv_matrix_optimize(M);                                           // stays CRS when converting does not pay
 *     spmv_matrix_mv(M, 1.0, x, 0.0, y);                                 // y = A x, thousands of times
 *     spmv_matrix_free(M);
 *
 * The choice is deterministic for a given matrix, hints and imported wisdom (no file is read unless
 * spmv_wisdom_import was called); with hints.trial_seconds > 0 it also depends on timings. Vectors stay in the
 * original order unless hints.permuted_ok allows a permuted one (then use spmv_matrix_permute_vec /
 * spmv_matrix_unpermute_vec at the solver's boundary). */

typedef struct spmv_matrix spmv_matrix; /**< opaque */

/** How the handle holds the caller's arrays. */
typedef enum spmv_ownership {
    SPMV_COPY = 0,  /**< copied (columns may be unsorted or repeated: sorted, duplicates summed) */
    SPMV_BORROW = 1 /**< borrowed: the arrays must outlive the handle and already be valid CRS (columns strictly
                         increasing in each row); nothing is copied for the CRS form */
} spmv_ownership;

/** A handle from CRS arrays: rowptr length rows+1, col and val length rowptr[rows] (0-based). Errors: as
 * spmv_crs_from_arrays / spmv_crs_wrap; SPMV_ERR_ARG (NULL M, an unknown own, a borrowed matrix without values). */
SPMV_API spmv_status spmv_matrix_create_crs(int32_t rows, int32_t cols, const int64_t *rowptr, const int32_t *col,
                                            const double *val, spmv_ownership own, spmv_matrix **M);
/** A handle from a Matrix Market file (spmv_crs_read_mm; errors as there). */
SPMV_API spmv_status spmv_matrix_create_file(const char *path, spmv_matrix **M);
/** Accepts NULL. */
SPMV_API void spmv_matrix_free(spmv_matrix *M);

/** What the caller knows about its use of the matrix. */
typedef struct spmv_hints {
    int64_t expected_calls; /**< multiplies the caller expects (default 1000); below the break-even the handle stays
                               in CRS */
    int nthreads;           /**< threads of the multiply (0 = omp_get_max_threads(), at most one per 2048 entries) */
    int permuted_ok;        /**< 1: x and y may live in the matrix's permuted order (spmv_matrix_permute_vec);
                               default 0: the original order */
    int reorder_ok;         /**< 1: a recorded choice with RCM may be used (the permuted order then applies RCM too);
                               default 0 */
    int64_t memory_budget;  /**< bytes the optimized copy may take beside the CRS arrays (0 = twice CRS's) */
    double trial_seconds;   /**< > 0: after converting, time CRS and the candidate alternately for about this long
                               and keep the faster (the choice then depends on timings); 0 (default): model only */
} spmv_hints;

/** Defaults: expected_calls 1000, nthreads 0, permuted_ok 0, reorder_ok 0, memory_budget 0, trial_seconds 0. */
SPMV_API spmv_hints spmv_hints_default(void);
/** Errors: SPMV_ERR_ARG (NULL, negative counts, nthreads above 4096, trial_seconds not finite or negative). */
SPMV_API spmv_status spmv_matrix_set_hints(spmv_matrix *M, const spmv_hints *h);

/** What spmv_matrix_optimize chose and why. */
typedef struct spmv_matrix_info {
    spmv_format format;  /**< SPMV_FORMAT_CRS or SPMV_FORMAT_SELL */
    int32_t C, sigma;    /**< SELL parameters (0 for CRS) */
    int rcm, permuted;   /**< RCM applied; vectors in the permuted order (spmv_matrix_permuted) */
    int runs, idx16, vidx; /**< the SELL matrix has run columns / 16-bit indices / value indices */
    int32_t nthreads;    /**< parts of the thread partition */
    int64_t stored;      /**< stored entries (nnz for CRS) */
    double bytes;        /**< reserved (0) */
    double break_even;   /**< multiplies after which the conversion pays (estimated, or measured with a trial) */
    double t_convert;    /**< s, CRS -> SELL (0 when not converted) */
    double t_crs, t_sell;/**< s per multiply measured in the trial (0 without one) */
    double t_optimize;   /**< s, the whole optimize call */
    char kernel[48];     /**< the kernel the multiply runs */
    char reason[256];    /**< one sentence: the choice and why (e.g. "CRS: 10 expected multiplies are below the
                            break-even of about 40 ...") */
} spmv_matrix_info;

/** Choose the format and its parameters for the hints (see src/handle/handle.c for the rule): the imported
 * wisdom's choice for this matrix and machine, else the model's defaults; stay in CRS when the expected multiplies
 * are below the break-even t_convert / (t_crs - t_sell), when the SELL copy would exceed the memory budget, or when a
 * trial measures CRS faster. May be called again after new hints. Errors: SPMV_ERR_ARG (NULL), SPMV_ERR_NOMEM,
 * SPMV_ERR_ARCH. */
SPMV_API spmv_status spmv_matrix_optimize(spmv_matrix *M);
/** Errors: SPMV_ERR_ARG (NULL). */
SPMV_API spmv_status spmv_matrix_get_info(const spmv_matrix *M, spmv_matrix_info *info);

/** y = alpha*A*x + beta*y with the chosen kernel; x (length cols) and y (length rows) in the handle's vector order
 * (the original one unless spmv_matrix_permuted). Errors: as spmv_crs_mv. */
SPMV_API spmv_status spmv_matrix_mv(const spmv_matrix *M, double alpha, const double *x, double beta, double *y);
/** The fused multiply and dot products (spmv_crs_mv_dot; square matrices). */
SPMV_API spmv_status spmv_matrix_mv_dot(const spmv_matrix *M, double alpha, const double *x, double beta, double *y,
                                        double *xy, double *yy);
/** New values, same pattern: val has length nnz in the order of the arrays the handle was made from (sorted CRS
 * order for a copied matrix with unsorted input). A borrowed matrix may pass NULL after changing its val array in
 * place. Errors: SPMV_ERR_ARG (NULL M; NULL val for a copied matrix). */
SPMV_API spmv_status spmv_matrix_update_values(spmv_matrix *M, const double *val);

/** 1 if the handle's vectors live in a permuted order (only after optimize with hints.permuted_ok). */
SPMV_API int spmv_matrix_permuted(const spmv_matrix *M);
/** out = the vector in the handle's order (a copy when it is the original order); in, out: length rows.
 * Errors: SPMV_ERR_ARG. */
SPMV_API spmv_status spmv_matrix_permute_vec(const spmv_matrix *M, const double *in, double *out);
/** Back to the original order. */
SPMV_API spmv_status spmv_matrix_unpermute_vec(const spmv_matrix *M, const double *in, double *out);

/** The matrices behind the handle (for experts; NULL for M NULL / no SELL form). Do not free them. */
SPMV_API const spmv_crs *spmv_matrix_crs(const spmv_matrix *M);
SPMV_API const spmv_sell *spmv_matrix_sell(const spmv_matrix *M);

/* ================================================================================================ */
/* Kernel families and CPU                                                                           */
/* ================================================================================================ */

/** A kernel family: the index of its line in the registry's family table (src/kernels/registry.c). The names below
 * are the families of this version; a family added later works by its name (SPMV_ARCH=...) without a constant. */
typedef enum spmv_arch { SPMV_ARCH_REF = 0, SPMV_ARCH_AVX512 = 1, SPMV_ARCH_SVE = 2, SPMV_ARCH_AVX2 = 3 } spmv_arch;

/** The kernel family in use: the first family of the registry's preference order (avx512, avx2, sve, ref) that is
 * built and usable on this CPU and OS, or the one forced by the environment variable SPMV_ARCH=NAME. Detected once
 * per process. Errors: SPMV_ERR_ARCH when SPMV_ARCH names a family this CPU or build lacks, or an unknown name (the
 * message says which and lists the known ones); SPMV_ERR_ARG when another of the library's environment variables
 * holds a value it does not take (SPMV_PREFETCH, SPMV_VIDX, SPMV_SELL_NT: 0 or 1; SPMV_XACCESS: gather or emul;
 * SPMV_TEAM: openmp; SPMV_FORK_JOIN_NS: 0 to 1e9), checked on every call: every kernel choice (reading a matrix,
 * a conversion) then fails with the message naming the variable. */
SPMV_API spmv_status spmv_arch_get(spmv_arch *arch);
/** Name of a family ("ref", "avx512", "avx2", "sve"); "unknown" outside the table. Never NULL. */
SPMV_API const char *spmv_arch_name(spmv_arch arch);
/** 1 if family a is built into this library and usable on this CPU and OS (CPU flags, OS register state), else 0.
 * SPMV_ARCH does not change the answer. */
SPMV_API int spmv_arch_usable(spmv_arch a);
/** Number of families in the registry's table (built or not): valid spmv_arch values are 0 .. count-1. */
SPMV_API int spmv_arch_count(void);
/** Doubles per vector register of family a on this CPU (8 for avx512, 4 for avx2, the running vector length for sve,
 * 1 for ref); 0 when the family is not built or not usable here. */
SPMV_API int32_t spmv_arch_vector_doubles(spmv_arch a);

/* ================================================================================================ */
/* Wisdom: recorded tuning choices, read only on request (like FFTW's)                               */
/* ================================================================================================ */
/* spmv-tune records the fastest configuration per machine and matrix in a database (spmv_tune.h, "Tuning").
 * The library reads it only when the caller imports it: then C = 0 / sigma = 0 ("auto") in spmv_sell_from_crs,
 * spmv_matrix_optimize and spmv::mpi use the recorded choice for a matching matrix on this machine. */

/** Import the records of a tuning database into this process's wisdom (appended; a later import overrides an
 * earlier record for the same machine and matrix). path NULL: the default database (spmv_tune_db_path); a missing
 * default file, SPMV_TUNE_DB=off or no HOME import nothing and are not errors. *nrecords (may be NULL): records
 * read. Thread-safe. Errors: SPMV_ERR_IO (a named path that does not exist or cannot be read), SPMV_ERR_PARSE (the
 * file does not parse: "FILE:LINE: reason"; nothing is imported), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_wisdom_import(const char *path, int32_t *nrecords);
/** Drop every imported record: auto parameters fall back to the model's defaults. Thread-safe. */
SPMV_API void spmv_wisdom_forget(void);
/** Number of records imported (0 before any spmv_wisdom_import). */
SPMV_API int32_t spmv_wisdom_count(void);
#ifdef __cplusplus
}
#endif
#endif /* SPMV_H */
