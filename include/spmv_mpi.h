/**
 * @file spmv_mpi.h
 * spmv_mpi.h -- spmv::mpi, distributed sparse matrix-vector multiplication y = alpha*A*x + beta*y over MPI.
 *
 * An optional component of spmv (CMake: `find_package(spmv COMPONENTS mpi)`, target `spmv::mpi`; pkg-config:
 * `spmv-mpi`; library `libspmv_mpi`). The core library (spmv.h) does not depend on MPI.
 *
 * Layout (as PETSc's MATMPIAIJ, Balay et al., PETSc Users Manual, "Parallel AIJ matrices"):
 *  - The rows of the rows x cols matrix A are split into contiguous blocks, one per rank of the communicator:
 *    rank r owns the global rows [row_start[r], row_start[r+1]). By default the blocks are balanced by nonzeros;
 *    the caller may give them. y is distributed like the rows.
 *  - The columns are split likewise (col_start; for a square matrix the same blocks as the rows), and x is
 *    distributed like the columns: rank r holds x[col_start[r] .. col_start[r+1]).
 *  - Each rank stores its rows in two parts: the local part (entries in the columns it owns, numbered
 *    c - col_start[r]) and the remote part (entries in other ranks' columns). The distinct remote columns are
 *    compressed into the halo: halo entry h holds x[halo_col[h]]; the remote part's columns index the halo, and only
 *    rows with remote entries are stored in it.
 *  - The exchange plan is computed once: which halo entries come from which rank, and which owned x entries go to
 *    which rank.
 *
 * Multiply (spmv_mpi_mv): the receives and sends of the halo are posted (MPI_Irecv / MPI_Isend), the local part is
 * multiplied with the node-level library (spmv_crs_mv or spmv_sell_mv) while the messages travel, then the remote
 * part is added once they have arrived. The fused form (spmv_mpi_mv_dot) also returns <x, y> and <y, y> of the new y,
 * reduced with MPI_Allreduce, for Krylov solvers.
 *
 * Conventions (besides those of spmv.h)
 *  - Global row and column indices and sizes are int64_t; per-rank (local) indices are int32_t (one rank's rows,
 *    owned columns and halo must each fit 32 bits; the SPMV_ERR_OVERFLOW error says which does not).
 *  - Every function that takes a communicator or a distributed matrix is collective: every rank of the
 *    communicator calls it, with the same communicator, in the same order.
 *  - Bad input on any rank gives the same status and the same message on every rank (the ranks agree on the status
 *    collectively before going on), and no rank hangs; the message starts with the rank it came from, e.g.
 *    "rank 2: spmv_mpi_from_rows: col[17] = 70 (row 9) outside 0..63". Read it with spmv_mpi_last_error().
 *    Exceptions, which cannot be agreed on: a NULL or invalid communicator, and a NULL matrix passed to a collective
 *    function on some ranks only (the other ranks would wait for it; this is the caller's bug, as in MPI itself).
 *  - MPI errors never abort: the library works on a duplicate of the caller's communicator with MPI_ERRORS_RETURN,
 *    and a failing MPI call gives SPMV_ERR_COMM with MPI's error string in the message.
 *  - MPI must be initialized (MPI_Init or MPI_Init_thread) by the caller before any call and finalized after
 *    spmv_mpi_free of every matrix. One thread per rank calls the library (MPI_THREAD_FUNNELED is enough); OpenMP
 *    threads inside a rank run the node-level multiply.
 *  - The library never prints and never exits.
 */
#ifndef SPMV_MPI_H
#define SPMV_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SPMV_MPI_BUILDING_LIBRARY) && defined(__GNUC__)
#define SPMV_MPI_API __attribute__((visibility("default")))
#else
#define SPMV_MPI_API
#endif

/** Detail of the last error raised by an spmv_mpi_* call in the calling thread: "rank R: function: reason", the
 * same text on every rank after a collective error. Empty string when there was none. Never NULL. (Errors of the
 * core functions of spmv.h keep going to spmv_last_error().) */
SPMV_MPI_API const char *spmv_mpi_last_error(void);

/* ================================================================================================ */
/* Options                                                                                           */
/* ================================================================================================ */

/** Node-level format of each rank's local part. */
typedef enum spmv_mpi_format {
    SPMV_MPI_FORMAT_AUTO = 0, /**< SELL-C-sigma with the library's automatic C and sigma (the choice spmv-tune
                                   recorded for a matching matrix on this machine, else the model's default); CRS
                                   when spmv-tune recorded CRS as faster for it, or when the local part is empty */
    SPMV_MPI_FORMAT_CRS = 1,  /**< CRS (spmv_crs_mv) */
    SPMV_MPI_FORMAT_SELL = 2  /**< SELL-C-sigma (spmv_sell_mv) with opts.C and opts.sigma (0 = automatic) */
} spmv_mpi_format;

/** Build options. Start from spmv_mpi_opts_default() and change fields. Must be the same on every rank. */
typedef struct spmv_mpi_opts {
    const int64_t *row_start; /**< NULL: rows balanced by nonzeros (spmv_mpi_partition_nnz); else length size+1,
                                 row_start[0] = 0, non-decreasing, row_start[size] = rows: rank r owns rows
                                 [row_start[r], row_start[r+1]) (empty blocks allowed). Ignored where the caller
                                 already holds the rows (spmv_mpi_from_rows / _from_crs / _from_row_files: the
                                 ranks' row counts are the partition; a row_start given there must match them) and
                                 for a process-grid generator (spmv_mpi_grid.px > 0) */
    const int64_t *col_start; /**< NULL: for a square matrix the rows' partition; for a rectangular one columns in
                                 blocks of equal size (the first cols % size ranks one more). Else length size+1,
                                 as row_start, with col_start[size] = cols. x is distributed by it. */
    spmv_mpi_format format;   /**< node-level format of the local part (default AUTO) */
    int32_t C, sigma;         /**< SELL-C-sigma parameters for format SELL (0 = automatic; default 0, 0) */
    int nthreads;             /**< OpenMP threads per rank for the local multiply (0 = omp_get_max_threads(), at most
                                 one per 2048 entries; default 0) */
    int overlap;              /**< 1 (default): multiply the local part while the halo travels; 0: wait for the
                                 halo first, then multiply (for comparison). Changeable later: spmv_mpi_set_overlap */
} spmv_mpi_opts;

/** Defaults: row_start = col_start = NULL, format AUTO, C = sigma = 0, nthreads = 0, overlap = 1. */
SPMV_MPI_API spmv_mpi_opts spmv_mpi_opts_default(void);

/* ================================================================================================ */
/* The distributed matrix                                                                            */
/* ================================================================================================ */

/** Time spent in the phases of the multiplies since the matrix was built (or since the caller zeroed this struct),
 * seconds of MPI_Wtime on this rank. Communication time = post + wait + reduce. */
typedef struct spmv_mpi_times {
    double post;    /**< packing the send buffer and posting the receives and sends */
    double local;   /**< multiplying the local part (node-level kernel) */
    double wait;    /**< waiting for the halo (and the status reduction) to complete: the communication not hidden */
    double remote;  /**< multiplying the remote part and adding it to y */
    double reduce;  /**< MPI_Allreduce of the fused dot products (spmv_mpi_mv_dot) */
    int64_t calls;  /**< multiplies timed */
} spmv_mpi_times;

/** A distributed matrix: this rank's share and the exchange plan. The fields are documented for reading; change
 * none of them except times (which may be zeroed). Lengths are per rank. */
typedef struct spmv_mpi_matrix {
    MPI_Comm comm;          /**< duplicate of the caller's communicator, with MPI_ERRORS_RETURN */
    int rank, size;         /**< this rank, number of ranks */
    int64_t rows, cols;     /**< global size */
    int64_t nnz;            /**< global stored nonzeros (explicit zeros included, duplicates summed) */
    int64_t *row_start;     /**< length size+1: rank r owns global rows [row_start[r], row_start[r+1]) */
    int64_t *col_start;     /**< length size+1: rank r owns global columns (x entries) [col_start[r], col_start[r+1]) */
    int32_t nrows;          /**< rows of this rank = length of its y */
    int32_t ncols;          /**< columns this rank owns = length of its x */
    spmv_crs *local_crs;    /**< local part, nrows x ncols, column c - col_start[rank], when kept in CRS; else NULL */
    spmv_sell *local_sell;  /**< local part in SELL-C-sigma (original vector order) when that was chosen; else NULL */
    spmv_crs *remote;       /**< remote part: remote->rows x nhalo, the rows of this rank with remote entries, in
                               increasing order; column h = halo entry h */
    int32_t *remote_row;    /**< length remote->rows: the local row (0..nrows-1) of each row of the remote part */
    int32_t nhalo;          /**< halo entries = distinct remote columns = doubles received per multiply */
    int64_t *halo_col;      /**< length nhalo: global column of halo entry h, increasing */
    int32_t nrecv;          /**< ranks this rank receives halo entries from (messages received per multiply) */
    int32_t *recv_rank;     /**< length nrecv: those ranks, increasing */
    int32_t *recv_ptr;      /**< length nrecv+1: halo entries [recv_ptr[k], recv_ptr[k+1]) come from recv_rank[k] */
    int32_t nsend;          /**< ranks this rank sends owned x entries to (messages sent per multiply) */
    int32_t *send_rank;     /**< length nsend: those ranks, increasing */
    int32_t *send_ptr;      /**< length nsend+1: send_idx[send_ptr[k] .. send_ptr[k+1]) go to send_rank[k] */
    int32_t *send_idx;      /**< length send_ptr[nsend]: local x indices (0..ncols-1) sent, in the receiver's halo
                               order */
    int square;             /**< 1 when rows = cols and col_start = row_start (x and y distributed alike):
                               spmv_mpi_mv_dot is allowed */
    int overlap;            /**< see spmv_mpi_opts.overlap */
    spmv_mpi_times times;   /**< timers of the multiplies on this rank */
    struct spmv_mpi_work *work; /**< internal: buffers and requests of the multiply */
} spmv_mpi_matrix;

/** Rows balanced by nonzeros: row_start[r] = the first row whose prefix count of nonzeros reaches
 * floor(nnz * r / size) (the rule of spmv_crs_set_threads), row_start[0] = 0, row_start[size] = rows; rows split
 * into equal blocks when nnz = 0. Not collective (plain computation). rowptr: length rows+1, non-decreasing,
 * rowptr[0] = 0; row_start: length size+1. Errors: SPMV_ERR_ARG (NULL, rows < 0, size < 1, rowptr not monotone). */
SPMV_MPI_API spmv_status spmv_mpi_partition_nnz(int64_t rows, const int64_t *rowptr, int size, int64_t *row_start);

/** Read a Matrix Market file on rank root (spmv_crs_read_mm: CHOLMOD) and scatter the row blocks. path is used on
 * root only (may be NULL elsewhere); root must be the same on every rank. Rows balanced by nonzeros unless
 * opts->row_start. opts NULL = defaults. Errors on every rank: those of spmv_crs_read_mm on root (SPMV_ERR_IO,
 * SPMV_ERR_PARSE with file and line, SPMV_ERR_UNSUPPORTED, SPMV_ERR_NOMEM), SPMV_ERR_ARG (root out of range or
 * different across ranks, bad opts), SPMV_ERR_OVERFLOW (a rank's rows, columns or halo exceed 32 bits),
 * SPMV_ERR_NOMEM, SPMV_ERR_COMM. */
SPMV_MPI_API spmv_status spmv_mpi_from_file(MPI_Comm comm, const char *path, int root, const spmv_mpi_opts *opts,
                                            spmv_mpi_matrix **D);

/** Every rank reads its own Matrix Market file holding its block of rows: a rows_r x cols file whose row i is
 * global row (rows of the lower ranks) + i, columns global (1-based in the file). cols must agree on every rank.
 * Errors: as spmv_mpi_from_file, from any rank's file ("rank 1: part1.mtx:4: ..."), and SPMV_ERR_ARG (cols differ). */
SPMV_MPI_API spmv_status spmv_mpi_from_row_files(MPI_Comm comm, const char *path, const spmv_mpi_opts *opts,
                                                 spmv_mpi_matrix **D);

/** From each rank's own CRS rows, the way applications hold them: rank r passes its `rows` rows, which are the
 * global rows [sum of the lower ranks' rows, + rows); cols is the global column count (the same on every rank).
 * rowptr: length rows+1, non-decreasing, rowptr[0] = 0; col: length rowptr[rows], global 0-based column indices in
 * any order (repeated ones are summed); val: length rowptr[rows], or NULL for a pattern (1.0). All copied.
 * The caller's row blocks are the partition (rows are not moved between ranks, so the application's vectors keep
 * their layout); opts->row_start, if given, must equal them. rows = 0 is fine (a rank without rows).
 * Errors on every rank: SPMV_ERR_ARG (NULL, negative size, cols differing between ranks, rowptr not monotone, a
 * column outside 0..cols-1: the message names rank, row and position), SPMV_ERR_OVERFLOW, SPMV_ERR_NOMEM,
 * SPMV_ERR_COMM. */
SPMV_MPI_API spmv_status spmv_mpi_from_rows(MPI_Comm comm, int32_t rows, int64_t cols, const int64_t *rowptr,
                                            const int64_t *col, const double *val, const spmv_mpi_opts *opts,
                                            spmv_mpi_matrix **D);

/** As spmv_mpi_from_rows from a spmv_crs holding this rank's rows: A->rows rows, A->cols = the global column count,
 * 32-bit global column indices. A is not changed. */
SPMV_MPI_API spmv_status spmv_mpi_from_crs(MPI_Comm comm, const spmv_crs *A, const spmv_mpi_opts *opts,
                                           spmv_mpi_matrix **D);

/* Generators -------------------------------------------------------------------------------------- */

/** The built-in stencils of spmv.h, with the same values: HPCG 27-point (diagonal 26, neighbours -1; spmv_gen_hpcg),
 * 3D 7-point Laplacian (6, -1), 2D 5-point Laplacian (4, -1; nz = 1). */
typedef enum spmv_mpi_stencil {
    SPMV_MPI_HPCG = 0,
    SPMV_MPI_LAPLACE3D = 1,
    SPMV_MPI_LAPLACE2D = 2
} spmv_mpi_stencil;

/** A stencil matrix on an nx x ny x nz grid (rows = cols = nx*ny*nz) and its row numbering.
 *  - px = py = pz = 0: lexicographic numbering, row i = ix + nx*(iy + ny*iz), the same matrix as spmv_gen_hpcg /
 *    spmv_gen_laplace3d / spmv_gen_laplace2d (but with 64-bit global indices); rows balanced by nonzeros unless
 *    opts->row_start.
 *  - px, py, pz >= 1 (px*py*pz = number of ranks): a process grid, as the HPCG benchmark distributes its problem:
 *    rank r = rx + px*(ry + py*rz) owns the sub-grid of lx*ly*lz points, lx = nx/px, ly = ny/py, lz = nz/pz (the
 *    sizes must divide), numbered rank after rank, lexicographically inside: row r*lx*ly*lz + ax + lx*(ay + ly*az)
 *    is the point (rx*lx + ax, ry*ly + ay, rz*lz + az). The matrix is the lexicographic one permuted
 *    symmetrically, P A P^T. HPCG weak scaling: local 128^3 per rank, nx = 128*px and so on. */
typedef struct spmv_mpi_grid {
    spmv_mpi_stencil stencil;
    int64_t nx, ny, nz;   /**< global grid points per dimension, >= 1 (nz = 1 for the 2D Laplacian) */
    int32_t px, py, pz;   /**< process grid, or all 0 for the lexicographic numbering */
} spmv_mpi_grid;

/** Build a stencil matrix, each rank generating only its own rows. The grid must be the same on every rank.
 * Errors on every rank: SPMV_ERR_ARG (a size < 1, nz != 1 for the 2D Laplacian, px*py*pz != ranks, a grid size
 * not divisible by the process grid, grids differing between ranks, bad opts), SPMV_ERR_OVERFLOW (nx*ny*nz above
 * 2^62, or a rank's rows above 2^31-1), SPMV_ERR_NOMEM, SPMV_ERR_COMM. */
SPMV_MPI_API spmv_status spmv_mpi_gen(MPI_Comm comm, const spmv_mpi_grid *g, const spmv_mpi_opts *opts,
                                      spmv_mpi_matrix **D);

/** The row partition spmv_mpi_gen uses for `size` ranks (not collective): the process grid's blocks, or rows balanced
 * by nonzeros (the rule of spmv_mpi_partition_nnz, computed from the stencil without building it). row_start: length
 * size+1. Errors: SPMV_ERR_ARG (as spmv_mpi_gen, size < 1), SPMV_ERR_OVERFLOW. */
SPMV_MPI_API spmv_status spmv_mpi_grid_partition(const spmv_mpi_grid *g, int size, int64_t *row_start);

/** Free a distributed matrix (collective: it frees the duplicated communicator). NULL is fine. */
SPMV_MPI_API void spmv_mpi_free(spmv_mpi_matrix *D);

/* ================================================================================================ */
/* Multiply                                                                                          */
/* ================================================================================================ */

/** y = alpha*A*x + beta*y, collective. x: length D->ncols (this rank's share of x, distributed by col_start);
 * y: length D->nrows (its share of y); distinct arrays (NULL is fine for length 0). With beta = 0, y is not read.
 * The halo exchange is overlapped with the local part when D->overlap (Sect. "Multiply" above). The ranks also agree
 * on the arguments (an MPI_Iallreduce of one int, completed with the halo): a bad argument on one rank gives the
 * error on all, and then y is unspecified on every rank. Results are the same as a serial multiply up to rounding
 * (the local and remote sums of a row are added in that order). Not thread-safe for one matrix (one multiply at a
 * time per matrix; the buffers live in it). Errors: SPMV_ERR_ARG (x or y NULL with a nonzero length, x and y
 * overlapping), SPMV_ERR_COMM. */
SPMV_MPI_API spmv_status spmv_mpi_mv(spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y);

/** Fused multiply for Krylov solvers: y = alpha*A*x + beta*y and xy = <x, y>, yy = <y, y> of the new y over all
 * ranks (the local part's sums come from the node-level fused kernel, spmv_crs_mv_dot / spmv_sell_mv_dot, the
 * rows with remote entries are corrected after the remote part, and the two sums are reduced with one
 * MPI_Allreduce; deterministic for a given partition and thread count). Needs D->square. xy or yy may be NULL.
 * Errors: as spmv_mpi_mv, and SPMV_ERR_ARG (not square). */
SPMV_MPI_API spmv_status spmv_mpi_mv_dot(spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y,
                                         double *xy, double *yy);

/** Switch the overlap of the multiply on (1) or off (0) on this rank (every rank should do the same; results are
 * identical either way). Errors: SPMV_ERR_ARG (D NULL, on not 0/1). Not collective. */
SPMV_MPI_API spmv_status spmv_mpi_set_overlap(spmv_mpi_matrix *D, int on);

/** Name of the node-level kernel of the local part, e.g. "sell-avx512-C8" or "crs-ref". Never NULL. */
SPMV_MPI_API const char *spmv_mpi_kernel_name(const spmv_mpi_matrix *D);

/* Vectors ------------------------------------------------------------------------------------------ */

/** Which distribution a vector follows: y-like (row_start) or x-like (col_start). */
typedef enum spmv_mpi_layout { SPMV_MPI_ROWS = 0, SPMV_MPI_COLS = 1 } spmv_mpi_layout;

/** Distribute a global vector held on root: local = global[start[rank] .. start[rank+1]), start = row_start or
 * col_start. global: length rows (ROWS) or cols (COLS), read on root only (may be NULL elsewhere); local: length
 * nrows or ncols. Collective. Errors on every rank: SPMV_ERR_ARG (root out of range, NULL with a nonzero length),
 * SPMV_ERR_COMM. */
SPMV_MPI_API spmv_status spmv_mpi_scatter(spmv_mpi_matrix *D, spmv_mpi_layout layout, int root, const double *global,
                                          double *local);

/** The inverse: collect every rank's local part into global on root (written on root only). Collective. */
SPMV_MPI_API spmv_status spmv_mpi_gather(spmv_mpi_matrix *D, spmv_mpi_layout layout, int root, const double *local,
                                         double *global);

/* ================================================================================================ */
/* Partition statistics and the communication model                                                 */
/* ================================================================================================ */

/** Statistics of one rank's share: the quantities of the communication model. Counts of doubles, not bytes
 * (one double = 8 bytes on the wire). */
typedef struct spmv_mpi_stats {
    int64_t rows;         /**< rows of the rank */
    int64_t nnz;          /**< nonzeros of its rows */
    int64_t nnz_local;    /**< of them in owned columns (local part) */
    int64_t nnz_remote;   /**< of them in other ranks' columns (remote part) */
    int64_t remote_rows;  /**< rows with at least one remote entry */
    int64_t recv;         /**< halo entries = doubles received per multiply */
    int64_t recv_msgs;    /**< messages received per multiply (ranks it receives from) */
    int64_t send;         /**< doubles sent per multiply */
    int64_t send_msgs;    /**< messages sent per multiply */
} spmv_mpi_stats;

/** Statistics of D, collective: mine (this rank), max (each field's maximum over the ranks) and sum (each field's
 * sum); any of the three may be NULL. Errors: SPMV_ERR_ARG (D NULL), SPMV_ERR_COMM. */
SPMV_MPI_API spmv_status spmv_mpi_get_stats(spmv_mpi_matrix *D, spmv_mpi_stats *mine, spmv_mpi_stats *max,
                                            spmv_mpi_stats *sum);

/** The statistics rank `rank` of `size` would have for the stencil matrix g, computed on one process without MPI
 * traffic by the code that builds the exchange plan of spmv_mpi_gen (the rank's rows are generated and split, then
 * freed): for planning and for the model ("on paper" scaling). row_start: the partition (length size+1), or NULL
 * for spmv_mpi_grid_partition's. send and send_msgs are derived from the symmetry of the stencil's pattern (what
 * rank q needs of this rank's columns is what this rank's rows need of q's). Errors: as spmv_mpi_grid_partition,
 * SPMV_ERR_ARG (rank out of range), SPMV_ERR_NOMEM. */
SPMV_MPI_API spmv_status spmv_mpi_grid_stats(const spmv_mpi_grid *g, int size, int rank, const int64_t *row_start,
                                             spmv_mpi_stats *s);

/** Communication time of one multiply on a rank with statistics s, in seconds, under the Hockney model (a message
 * of m bytes takes latency + m / bandwidth; R. W. Hockney, Parallel Computing 20(3), 1994), with sends and receives
 * overlapping each other (full-duplex link) but the messages of one direction serialized on the rank's link:
 *   T_halo = max(send_msgs * latency + 8 * send / bandwidth, recv_msgs * latency + 8 * recv / bandwidth).
 * latency in seconds (>= 0), bandwidth in bytes/s (> 0). Errors: SPMV_ERR_ARG (NULL, latency < 0, bandwidth <= 0). */
SPMV_MPI_API spmv_status spmv_mpi_model_halo(const spmv_mpi_stats *s, double latency, double bandwidth,
                                             double *seconds);

/** Time of an MPI_Allreduce of a few doubles over `size` ranks (recursive doubling: ceil(log2 size) rounds of one
 * latency; Thakur, Rabenseifner and Gropp, IJHPCA 19(1), 2005, Sect. 4), in seconds; 0 for one rank. Every
 * multiply pays it once (the agreement on the arguments) and the fused one twice (plus the dot products).
 * Errors: SPMV_ERR_ARG (NULL, size < 1, latency < 0). */
SPMV_MPI_API spmv_status spmv_mpi_model_allreduce(int size, double latency, double *seconds);

#ifdef __cplusplus
}
#endif

#endif
