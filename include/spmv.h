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
 * position), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_crs_from_coo(int32_t rows, int32_t cols, int64_t nnz, const int32_t *row,
                                       const int32_t *col, const double *val, int base, spmv_crs **A);

/** Deep copy. */
SPMV_API spmv_status spmv_crs_copy(const spmv_crs *A, spmv_crs **B);
SPMV_API void spmv_crs_free(spmv_crs *A);

/** Repartition A for nthreads threads: the merge-path partition of spmv_crs.split, rows + nonzeros in equal shares,
 * long rows split between threads (0 = omp_get_max_threads(), but at most one thread per 8192 nonzeros). nthreads
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
 * (SPMV_ERR_IO); SPMV_ERR_UNSUPPORTED when the library was built without SuiteSparse.
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
 * perm not a bijection: the message names the first bad entry), SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_crs_permute(const spmv_crs *A, const int32_t *perm, spmv_crs **B);

/** Reverse Cuthill-McKee ordering of a square matrix on the pattern of A + A^T (built with CXSparse), so
 * unsymmetric matrices work too. Each connected component starts from a pseudo-peripheral node (George & Liu:
 * repeated BFS from the minimum-degree node of the last level until the eccentricity stops growing); neighbours
 * are visited in increasing degree (ties by index); the order is reversed at the end. Cuthill-McKee is tried from
 * the George-Liu node, the 2 lowest-degree nodes of its last level and the component's minimum-degree node; the
 * smallest bandwidth wins (ties: in that order). Isolated nodes are numbered last. Deterministic.
 * perm, iperm: length rows (caller-allocated): perm[new] = old, iperm[old] = new; apply with spmv_crs_permute.
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
typedef struct spmv_sell_opts {
    int32_t C;        /**< chunk height C >= 1 (rows per chunk); 0 = auto: the choice spmv-tune recorded for a
                         matching matrix on this machine, else the model's default (see spmv_tune_auto_params) */
    int32_t sigma;    /**< sorting window sigma >= 1: rows sorted by descending length inside windows of sigma rows;
                         1 = no sorting, >= rows = global sort; 0 = auto (as for C). Windows start at
                         multiples of sigma; a sigma that is not a multiple of C lets chunks straddle two windows */
    int32_t unroll;   /**< chunk lengths rounded up to a multiple of this (>= 1; 1 = no rounding) */
    int permuted;     /**< 0: x and y in the original order (default); 1: x and y in the permuted order (for a
                         square matrix the columns are permuted alike, A' = P A P^T; for a rectangular one only
                         the rows are, x stays in the original order) */
    int nt_stores;    /**< 1: non-temporal stores of y in the permuted order where a kernel has them (AVX-512):
                         no write-allocate, 8 bytes/row less traffic; worth it only when y does not fit in cache.
                         Ignored in the original order. The environment variable SPMV_SELL_NT=1 sets it too. */
    int rcm;          /**< 1: apply reverse Cuthill-McKee (square matrices) before the sigma-sort; 0: off */
    int nthreads;     /**< parts of the thread partition; 0 = omp_get_max_threads(), at most one per 8192 entries */
    int32_t runs;     /**< run columns (see spmv_sell): a chunk column becomes a run column when at least `runs` of
                         its C lanes hold consecutive columns (lane r: column b + r); 0 = off; -1 = auto (default:
                         ceil(3C/4), the point where a run column's 8C + 4 + C/8 bytes undercut the 12 bytes per
                         entry of gather columns); values above C are C. Run columns need C <= 64. */
    int idx16;        /**< 16-bit column indices: a chunk whose gather columns span fewer than 65536 columns also
                         stores them as 16-bit offsets from a per-chunk base, which kernels that know the format read
                         instead (10 bytes per entry instead of 12, exact results); other chunks keep 32-bit indices
                         (the escape). -1 = auto (default: on), 0 = off, 1 = on. Costs 2 bytes per stored entry. */
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
 * (auto), xaccess = SPMV_X_AUTO, long_rows = -1 (auto), max_stored_factor = 2. A struct filled without this function
 * (zero fields) gets no CRS part, no padding limit, no run columns and no 16-bit indices. */
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
 * that at least `runs` lanes of the chunk share (the idea of the DIA format, applied per chunk; see sell.c).
 * The remaining columns are ordinary gather columns: lane r holds the row's other entries in ascending column
 * order, then padding. col[] holds every stored entry's column, run columns included, so any kernel may ignore
 * the run metadata and read col[] instead.
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
    int nt_stores;      /**< non-temporal y stores requested (spmv_sell_opts.nt_stores) */
    int64_t nnz;        /**< nonzeros of A (explicit zeros included) */
    int64_t stored;     /**< stored entries including padding = chunkptr[nchunks] + longptr[nlong] (the CRS part
                           has no padding) */
    int64_t *chunkptr;  /**< length nchunks+1: offset of chunk k in col/val; chunkptr[k+1]-chunkptr[k] = C*chunklen[k] */
    int32_t *chunklen;  /**< length nchunks: chunk length (columns) */
    int32_t *col;       /**< length stored: column indices (permuted numbering if permuted and square) */
    double *val;        /**< length stored: values, 0 for padding */
    int32_t *rowlen;    /**< length rows: nonzeros of permuted row i */
    int32_t *perm;      /**< length rows: perm[i] = original row stored at permuted position i */
    int32_t *iperm;     /**< length rows: iperm[perm[i]] = i */
    int32_t nparts;     /**< parts of the thread partition */
    int32_t *part;      /**< length nparts+1: chunks [part[t], part[t+1]) go to thread t, balanced by stored entries */
    int32_t runs;       /**< run-column threshold used (lanes); 0: the matrix has no run columns */
    int64_t nruns;      /**< run columns in all chunks = runptr[nchunks] */
    int32_t *chunkruns; /**< length nchunks: run columns at the start of chunk k (0 <= chunkruns[k] <= chunklen[k]) */
    int64_t *runptr;    /**< length nchunks+1: index of chunk k's first run column in runbase */
    int32_t *runbase;   /**< length nruns: lane r of run column q holds column runbase[q] + r (stored numbering) */
    uint8_t *runmask;   /**< length nruns*ceil(C/8) + 8: lane r of run column q holds an entry iff bit r%8 of byte
                           runmask[q*ceil(C/8) + r/8] is set; the last 8 bytes are zero padding, so a kernel may read
                           any 8 bytes starting inside the masks */
    int xaccess;        /**< x-access variant asked for (spmv_sell_opts.xaccess, resolved; the kernel's own is in
                           spmv_sell_kernel_shape) */
    int64_t nidx16;     /**< stored entries of gather columns with 16-bit indices (0: none) */
    int32_t *colbase;   /**< length nchunks, or NULL (idx16 off): -1 = chunk k keeps 32-bit indices; else its gather
                           columns' indices are colbase[k] + col16[p] */
    uint16_t *col16;    /**< length stored, or NULL: at the gather-column positions p of chunks with colbase[k] >= 0,
                           col[p] - colbase[k] (other positions unused) */
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
} spmv_sell;

/** Convert CRS to SELL-C-sigma. The arrays are first touched by the thread partition the multiply uses (above 2^15
 * stored entries; smaller matrices are filled by one thread).
 * C = 0 or sigma = 0 picks the parameters automatically (SPMV_VERBOSE=1 says which: recorded or model).
 * Errors: SPMV_ERR_ARG (NULL, C < 0, sigma < 0, unroll < 1, nthreads < 0, rcm on a non-square matrix, long_rows
 * < -1, max_stored_factor negative or not a number), SPMV_ERR_PADDING (the padding guard, see max_stored_factor;
 * nothing of the size of the stored entries was allocated), SPMV_ERR_NOMEM, SPMV_ERR_OVERFLOW (stored entries
 * exceed INT64 offsets, never in practice),
 * SPMV_ERR_UNSUPPORTED (rcm without SuiteSparse), SPMV_ERR_ARCH (SPMV_ARCH names an unavailable family). */
SPMV_API spmv_status spmv_sell_from_crs(const spmv_crs *A, const spmv_sell_opts *opts, spmv_sell **S);

/** Back to CRS in the original row and column order (padding dropped, explicit zeros kept): CRS -> SELL -> CRS
 * gives back the same matrix. Errors: SPMV_ERR_ARG, SPMV_ERR_NOMEM. */
SPMV_API spmv_status spmv_sell_to_crs(const spmv_sell *S, spmv_crs **A);
SPMV_API void spmv_sell_free(spmv_sell *S);

/** Repartition the chunks for nthreads threads, balanced by stored entries, and the CRS part of a hybrid matrix by
 * merge path (0 = as in spmv_crs_set_threads). Errors: SPMV_ERR_ARG, SPMV_ERR_NOMEM (S unchanged). */
SPMV_API spmv_status spmv_sell_set_threads(spmv_sell *S, int nthreads);

/** Padding overhead in percent: 100 * (stored - nnz) / nnz (0 when nnz = 0). */
SPMV_API double spmv_sell_padding_percent(const spmv_sell *S);
/** beta = nnz / stored, the fill efficiency in (0, 1] (1 when stored = 0). */
SPMV_API double spmv_sell_beta(const spmv_sell *S);

/** Vector reordering for solvers that stay in the permuted order. n = rows of S for row vectors;
 * for a square matrix the same permutation applies to x.  out[i] = in[perm[i]]  (original -> permuted)
 * and out[perm[i]] = in[i] (permuted -> original). in and out: length rows, must not overlap.
 * Errors: SPMV_ERR_ARG (NULL, overlapping in/out). */
SPMV_API spmv_status spmv_sell_permute_vec(const spmv_sell *S, const double *in, double *out);
SPMV_API spmv_status spmv_sell_unpermute_vec(const spmv_sell *S, const double *in, double *out);

/* ================================================================================================ */
/* Multiply                                                                                          */
/* ================================================================================================ */

/** y = alpha*A*x + beta*y.  x: length cols, y: length rows (distinct arrays). With beta = 0, y is not read (NaN in
 * y does not propagate). Runs the A->nparts parts of the partition on as many OpenMP threads, but at most one per
 * 8192 stored entries (a small multiply does not pay for a team; the parts then run in order, with the same
 * result). Errors: SPMV_ERR_ARG (NULL with a nonzero length, x and y overlapping), SPMV_ERR_NOMEM (more than 256
 * parts and no memory for their partial sums). */
SPMV_API spmv_status spmv_crs_mv(const spmv_crs *A, double alpha, const double *x, double beta, double *y);

/** y = alpha*A*x + beta*y for SELL-C-sigma; x and y in the order S->permuted says (see spmv_sell_opts). Threads and
 * errors as spmv_crs_mv; the CRS part of a hybrid matrix is split between the threads by merge path.
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
 * the first differing row. Errors: SPMV_ERR_ARG. */
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
                                 0: the kernel reads run columns like gather columns (bytes_per_entry) */
    double bytes_per_run;     /**< SELL kernels with run loads: per run column, its base index (4) */
    double bytes_per_entry16; /**< SELL kernels that read 16-bit indices: per gather-column entry of a chunk with
                                 16-bit indices, value + offset (10); 0: the kernel reads col[] (bytes_per_entry) */
} spmv_traffic;

/** The traffic of the kernel A (S) runs, for this matrix. For SELL in the original vector order (permuted = 0)
 * bytes_per_row includes the 4-byte perm[i] read that scatters y (20 instead of 16); for a matrix with run columns
 * and a kernel with run loads, and for a matrix with 16-bit indices and a kernel that reads them,
 * bytes_per_entry is the average over the stored entries: ((stored - C nruns - nidx16) bytes_per_entry +
 * C nruns bytes_per_run_lane + nruns bytes_per_run + nidx16 bytes_per_entry16) / stored, so the formulas below
 * hold unchanged. Errors: SPMV_ERR_ARG (NULL). */
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
    int nthreads;           /**< threads of the multiply (0 = omp_get_max_threads(), at most one per 8192 entries) */
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
    int runs, idx16;     /**< the SELL matrix has run columns / 16-bit indices */
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
 * message says which and lists the known ones). */
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
                                   latency; page walks make it smaller than effective_size); 0 = effective_size. The
                                   alpha simulation uses the smaller of the two: x is reused at random */
} spmv_machine_level;

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
    double gather_lines_rthroughput[4]; /**< cy per hardware gather of simd_width doubles fed by an index load
                                        (gather_index_penalty included) whose addresses fall in 1, 2, 4, 8 distinct
                                        cache lines; the model weights them by the matrix's distribution of lines per
                                        gather (linear between the points). 0 = not measured: gather_rthroughput +
                                        gather_index_penalty for any number of lines */
    double bw_load, bw_copy, bw_triad;     /**< saturated memory bandwidth of one NUMA domain, GB/s: read-only,
                                              COPY, STREAM TRIAD (explicit bytes, write-allocate included) */
    int32_t bw_points;                     /**< entries of the curves below (0..SPMV_MACHINE_MAX_CORES) */
    double bw_load_n[SPMV_MACHINE_MAX_CORES];  /**< bw_load_n[i]: GB/s with i+1 cores of one NUMA domain, compact */
    double bw_copy_n[SPMV_MACHINE_MAX_CORES];  /**< the same for COPY (0 = not measured) */
    double bw_triad_n[SPMV_MACHINE_MAX_CORES]; /**< the same for TRIAD */
    int32_t nlevels;                       /**< 2..SPMV_MACHINE_MAX_LEVELS, the last one is MEM */
    spmv_machine_level level[SPMV_MACHINE_MAX_LEVELS];
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

/** Saturated bandwidth b_S of one NUMA domain in GB/s for the kind asked (0 if the file lacks it). SPMV_BW_MIX: the
 * mix of SpMV (spmv_machine_mix_bandwidth with 97 % reads). */
SPMV_API double spmv_machine_bandwidth(const spmv_machine *m, spmv_bw_kind kind);

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
 * for rows of nzr nonzeros (N_nzr), fill efficiency beta = nnz/stored in (0, 1], chunk height C (SELL; 1 or 0 for
 * CRS: bytes_per_chunk is then counted once per row, it is 0 for CRS kernels) and RHS factor alpha:
 *   bytes/row = nzr/beta * bytes_per_entry + 8*alpha*nzr + bytes_per_row + bytes_per_chunk / C
 *   B_c       = bytes/row / (flops_per_entry * nzr)
 * With the paper's CRS declaration (12 B/entry, 20 B/row: 4-byte offsets) this is N_nzr*(12 + 8 alpha) + 20
 * (Sect. IV): HPCG, N_nzr = 27, alpha = 1/27: 352 B/row, B_c = 6.52 B/flop. spmv's own CRS kernels declare 24 B/row
 * (int64 row offsets): 356 B/row. Errors: SPMV_ERR_ARG (NULL, nzr <= 0, beta outside (0,1], C < 0, alpha < 0,
 * flops_per_entry <= 0). */
SPMV_API spmv_status spmv_bytes_per_row(const spmv_traffic *t, double nzr, double beta, int32_t C, double alpha,
                                        double *bytes);
SPMV_API spmv_status spmv_code_balance(const spmv_traffic *t, double nzr, double beta, int32_t C, double alpha,
                                       double *Bc);

/** Roofline limit P = b_S / B_c in Gflop/s, b_S in GB/s, B_c in bytes/flop (both > 0). HPCG on the full A64FX at
 * TRIAD bandwidth: 4 * 210 / 6.52 = 129 Gflop/s (Sect. IV). Errors: SPMV_ERR_ARG. */
SPMV_API spmv_status spmv_roofline(double bw_gbs, double Bc, double *gflops);

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
} spmv_kernel_shape;

/** The shape of the kernel A (S) runs, C filled in from the matrix and a run-time vector length (SVE) resolved.
 * Errors: SPMV_ERR_ARG (NULL). */
SPMV_API spmv_status spmv_crs_kernel_shape(const spmv_crs *A, spmv_kernel_shape *k);
SPMV_API spmv_status spmv_sell_kernel_shape(const spmv_sell *S, spmv_kernel_shape *k);

/** ECM prediction (Sect. III and IV), all times in cycles per row (for SELL: per chunk divided by C).
 * In-core (data in L1), for rows of nzr nonzeros (CRS: nv = ceil(nzr/width) vector iterations; SELL: chunk
 * length nzr/beta, ceil(C/width) registers per chunk column):
 *   T_comp (T_OL):  CRS, SIMD code: ceil(nv/mve) * fma_latency + ceil(log2 min(mve, nv)) * add_latency +
 *                   hadd_rthroughput per row (the paper's 4 * 9 + 11.5 = 47.5 cy for HPCG), at least
 *                   nv * fma_rthroughput; scalar code: nv * fma_rthroughput (the chains of consecutive, independent
 *                   rows overlap in an out-of-order core); SELL: ceil(len/mve) * fma_latency (+ log2(mve) adds) per chunk, at least
 *                   len * ceil(C/width) * fma_rthroughput;
 *   T_load (T_nOL): SIMD, per vector of entries: the x access plus the value load (load_rthroughput); the x access
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
 * A64FX: 352/64 = 5.5 cy L2, 352/117 = 3.0 cy memory).
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
    double P_sat;                            /**< roofline of one NUMA domain, Gflop/s */
    int32_t n_s;                             /**< saturation point, cores */
} spmv_ecm;

/** ECM prediction for rows of nzr nonzeros (see above); alpha: the RHS factor at every level; bw: which b_S
 * (SPMV_BW_MIX: the mix of this kernel's reads and writes at alpha).
 * Errors: SPMV_ERR_ARG (NULL, spmv_machine_check fails, a bad shape, nzr <= 0, beta outside (0,1], alpha < 0, the
 * machine lacks the chosen bandwidth). */
SPMV_API spmv_status spmv_ecm_predict(const spmv_machine *m, const spmv_kernel_shape *k, const spmv_traffic *t,
                                      double nzr, double beta, double alpha, spmv_bw_kind bw, spmv_ecm *e);

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
    double level_bw[SPMV_MACHINE_MAX_LEVELS]; /**< GB/s each level can deliver to the nthreads cores: caches: the
                                        level's upstream link times the cores using it; memory: bS times the NUMA
                                        domains used; [0] = L1 load bandwidth times cores */
    double roofline;                 /**< the bound, Gflop/s: flops / sum over levels of share * bytes at alpha_x.lo /
                                        level_bw (the classic b_S / B_c when the data are in memory) */
    double roofline_mem;             /**< the memory roofline at nthreads regardless of caches: bS * domains / Bc_roof */
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
                                        levels at alpha); for data in memory min(n P1, P_sat) per NUMA domain */
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

/* ================================================================================================ */
/* Tuning: C, sigma, RCM and threads per machine and matrix, and the record of the choices          */
/* ================================================================================================ */
/* spmv_tune() (and the tool spmv-tune) measures SELL-C-sigma configurations against CRS, checks every result
 * against a reference loop, reports each against the model's limits, and records the fastest per machine and
 * matrix in a plain-text database. spmv_sell_from_crs with opts->C = 0 or opts->sigma = 0 ("auto") takes the
 * recorded choice for a matching matrix, else the model-based defaults below; SPMV_VERBOSE=1 says which.
 *
 * The database (one file; spmv_tune_db_path): lines "key: value", '#' starts a comment, blank lines are ignored.
 * "choice: LABEL" opens a record (LABEL: the matrix's name, free text); the keys that follow belong to it:
 *   cpu: TEXT   isa: ref|avx512|sve   cores: N                       the machine (spmv_tune_host)
 *   rows: N   cols: N   nnz: N   nzr min: N   nzr mean: X   nzr max: N   the matrix (spmv_tune_fingerprint)
 *   order: original|permuted                                          vector order measured (optional: original)
 *   C: N   sigma: N   rcm: on|off   threads: N (1..4096)             the choice
 *   gflops: X   limit gflops: X   crs gflops: X   conversion: X s   date: TEXT     measurements (optional)
 * Every key at most once per record, all but the optional ones required; '#' in free text is written as a blank.
 * nzr mean is written with 17 significant digits (it reads back exactly), measurements with 6. A record matches
 * when cpu, isa and cores and the whole fingerprint are equal; storing replaces the record with the same machine,
 * fingerprint and order. */

/** The machine a choice is made on. */
typedef struct spmv_tune_host {
    char cpu[128];   /**< CPU model: /proc/cpuinfo "model name" (x86); on Arm "implementer 0xII part 0xPPP"; else
                        "unknown" */
    char isa[16];    /**< kernel family in use (spmv_arch_name of spmv_arch_get): "ref", "avx512", "sve" */
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
} spmv_tune_record;

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
 * half the nonzeros with the rows in their own order (estimated from 256 chunks spread over the matrix): sorting
 * would break them up. Otherwise the smallest window of spmv_tune_sigma_list(C, rows) whose padding is within 1 % of
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

/** Resolve "auto" parameters in place: o->C == 0 and/or o->sigma == 0 are replaced by the recorded choice for A on
 * this machine (spmv_tune_db_find in spmv_tune_db_path's file, order o->permuted), else by the model defaults. A
 * recorded sigma is used only with the recorded C (an explicitly given, different C gets the model's sigma).
 * Only C and sigma change (rcm and threads of a record: spmv_tune_db_find). With SPMV_VERBOSE=1 a line on stderr
 * says which values were used and where they came from. A database that does not parse is ignored (the model
 * defaults are used; SPMV_VERBOSE names the error). src may be NULL. spmv_sell_from_crs calls this when C or sigma
 * is 0. Errors: SPMV_ERR_ARG (NULL A or o, C or sigma negative), SPMV_ERR_NOMEM, SPMV_ERR_ARCH. */
SPMV_API spmv_status spmv_tune_auto_params(const spmv_crs *A, spmv_sell_opts *o, spmv_tune_source *src);

/** Break-even number of multiplies after which converting CRS -> SELL (t_convert seconds) has paid for itself:
 * ceil(t_convert / (t_crs - t_sell)) with t_crs, t_sell the seconds per multiply; 0 when t_convert <= 0; HUGE_VAL
 * (never) when t_sell >= t_crs or an argument is negative or not finite. */
SPMV_API double spmv_tune_break_even(double t_convert, double t_crs, double t_sell);

/** Upper bound in Gflop/s for a SELL-C-sigma (C >= 1) or CRS (C = 0) configuration with `stored` entries, before
 * building it: the highest saturated bandwidth of the machine (load, copy, triad) summed over the NUMA domains
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
                             half the best built and timed again (noise on a busy machine), before the threads */
    int is_crs;           /**< 1: CRS (C, sigma, rcm unused) */
    int32_t C, sigma;
    int rcm;
    int32_t nthreads;
    spmv_tune_state state;
    char kernel[48];      /**< kernel name (measured points) */
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
} spmv_tune_point;

typedef struct spmv_tune_opts {
    double budget;        /**< seconds for the search (> 0, default 30): a point whose estimated cost does not fit in
                             what is left is SKIPPED; the CRS baseline and one SELL point always run */
    double run_time;      /**< seconds per timed run (default 0.1; repetitions calibrated to it) */
    int32_t runs;         /**< timed runs per point, the median counts (default 5) */
    int32_t max_threads;  /**< largest thread count (0 = omp_get_max_threads()), at most one thread per 8192 nonzeros
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
    spmv_sell_opts opts;  /**< the choice: C, sigma, rcm, nthreads, permuted (unroll 1) */
    spmv_tune_point best; /**< its measurement at opts.nthreads (the final comparison, stage 6) */
    spmv_tune_point crs;  /**< the fastest CRS point over every measured thread count (its nthreads may differ from
                               opts.nthreads), re-timed alternately with the choice in the final comparison (stage 6) */
    double speedup;       /**< crs.t_spmv / best.t_spmv; <= 1: CRS is faster and nothing is recorded */
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
 * o->record is set and the choice is faster than the fastest CRS point, store the choice there (otherwise
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
#endif /* SPMV_H */
