/* spmv::mpi internals shared by the files of src/mpi (not installed). Only the public API of spmv.h is used: the
 * component links libspmv like any application would. */
#ifndef SPMV_MPI_INTERNAL_H
#define SPMV_MPI_INTERNAL_H

#include "spmv_mpi.h"

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SMPI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SMPI_PRINTF(a, b)
#endif

/* ---------------------------------------------------------------- errors (error.c) */

#define SMPI_MSG 640  /* bytes of an error message, terminator included */

/* Record "rank R: <text>" (no prefix when rank < 0) for spmv_mpi_last_error() and return status. */
spmv_status smpi_err(int rank, spmv_status status, const char *fmt, ...) SMPI_PRINTF(3, 4);
/* A failed core call: "rank R: fn: <spmv_last_error()>" with the core's status. */
spmv_status smpi_core_err(int rank, const char *fn, spmv_status status);
/* A failed MPI call: SPMV_ERR_COMM, "rank R: fn: CALL failed: <MPI_Error_string>". */
spmv_status smpi_mpi_err(int rank, const char *fn, const char *call, int code);
void smpi_clear_error(void);
/* Collective agreement on a status: every rank passes its own; all return the status (and get the message) of the
 * lowest rank that failed, or SPMV_OK when none did. One MPI_Allreduce, plus an MPI_Bcast of the message on failure. */
spmv_status smpi_agree(MPI_Comm comm, int rank, int size, const char *fn, spmv_status st);
/* The message of rank `first` to everyone (after an agreement that found it); returns its status. */
spmv_status smpi_share_error(MPI_Comm comm, int rank, int first, const char *fn, spmv_status st);
/* Are the n int64 values v the same on every rank? *same = 1/0 on every rank. */
spmv_status smpi_same(MPI_Comm comm, int rank, const char *fn, const int64_t *v, int n, int *same);

/* Plain allocation (malloc family; the core's aligned allocator is internal to libspmv). */
void *smpi_malloc(size_t bytes);
void *smpi_calloc(size_t n, size_t size);

/* ---------------------------------------------------------------- rows of one rank, from any source (split.c) */

/* A rank's rows, produced one at a time: by the caller's arrays, a file's CRS, or a generator (GHOST's row-callback
 * constructor). row() writes the global columns (any order, repeats allowed) and values of local row i
 * (0 <= i < nrows) into col/val (room for maxlen) and returns the row's length. */
typedef struct smpi_rowsrc {
    int64_t row0;    /* global index of local row 0 */
    int32_t nrows;
    int64_t cols;    /* global column count: columns must lie in 0..cols-1 */
    int32_t maxlen;  /* no row is longer */
    int32_t (*row)(const struct smpi_rowsrc *s, int32_t i, int64_t *col, double *val);
    const void *ctx;
} smpi_rowsrc;

/* Rows from CRS arrays (rowptr offsets may start at any base: entries of row i are [rowptr[i], rowptr[i+1])),
 * with 32- or 64-bit global columns (exactly one of col32/col64 non-NULL unless there are no entries), val NULL =
 * pattern. maxlen is computed. rowptr must already be checked (non-decreasing). */
typedef struct smpi_arrays {
    const int64_t *rowptr;
    const int32_t *col32;
    const int64_t *col64;
    const double *val;
} smpi_arrays;
void smpi_rowsrc_arrays(smpi_rowsrc *s, const smpi_arrays *a, int64_t row0, int32_t nrows, int64_t cols);

/* The split of a rank's rows into the local part (owned columns [c0, c1), renumbered c - c0) and the remote part
 * (other columns, compressed into the halo: halo_col sorted, distinct; remote part columns = halo indices, only rows
 * with remote entries). */
typedef struct smpi_split {
    int64_t *lrowptr;   /* length nrows+1 */
    int32_t *lcol;      /* length lrowptr[nrows] */
    double *lval;
    int32_t nrr;        /* rows with remote entries */
    int32_t *rrow;      /* length nrr: their local row */
    int64_t *rrowptr;   /* length nrr+1 */
    int32_t *rcol;      /* halo index */
    double *rval;
    int32_t nhalo;
    int64_t *halo_col;  /* length nhalo */
    spmv_mpi_stats st;  /* rows, nnz, nnz_local, nnz_remote, remote_rows, recv (= nhalo); the rest 0 */
} smpi_split;

/* Split the rows of src. stats_only: count, compress the halo and fill st, but build no arrays (the model's path).
 * With col_start/size given (not NULL), also count recv_msgs (owners of the halo) and, through the symmetry of the
 * pattern, send and send_msgs (rows with entries in each other rank's columns). Errors: SPMV_ERR_ARG (a column
 * outside 0..cols-1: the message names the global row and the position), SPMV_ERR_OVERFLOW (halo above 2^31-1),
 * SPMV_ERR_NOMEM. */
spmv_status smpi_split_rows(const smpi_rowsrc *src, int64_t c0, int64_t c1, int stats_only, const int64_t *col_start,
                            int size, int rank, const char *fn, smpi_split *out);
void smpi_split_free(smpi_split *s);

/* Owner of global column c under start (length size+1): the r with start[r] <= c < start[r+1] (the last such r
 * when blocks are empty). */
int smpi_owner(const int64_t *start, int size, int64_t c);

/* ---------------------------------------------------------------- partitions and stencils (grid.c) */

/* row_start[r] = the first i in [0, n] with prefix(i) >= floor(total * r / size), row_start[size] = n; equal blocks
 * of rows when total = 0. prefix(i) is the nonzero count of rows [0, i), non-decreasing. */
void smpi_partition_prefix(int64_t n, int64_t total, int size, int64_t (*prefix)(const void *ctx, int64_t i),
                           const void *ctx, int64_t *row_start);
/* A partition given by the caller: length size+1, start[0] = 0, non-decreasing, start[size] = n. */
spmv_status smpi_check_start(int rank, const char *fn, const char *what, const int64_t *start, int size, int64_t n);
/* Equal blocks: the first n % size ranks one more. */
void smpi_equal_blocks(int64_t n, int size, int64_t *start);

/* Validate a grid for `size` ranks (rank only for the message prefix); *n = rows. */
spmv_status smpi_grid_check(const spmv_mpi_grid *g, int size, int rank, const char *fn, int64_t *n);
/* Rows of [row0, row0 + nrows) of the grid's matrix; ctx must stay alive while src is used. */
typedef struct smpi_gridsrc {
    spmv_mpi_grid g;
    int n;               /* stencil points */
    int d[27][3];        /* offsets, in increasing linear offset */
    double v[27];        /* values */
} smpi_gridsrc;
void smpi_rowsrc_grid(smpi_rowsrc *s, smpi_gridsrc *ctx, const spmv_mpi_grid *g, int64_t row0, int32_t nrows);

/* ---------------------------------------------------------------- node level (node.c) */

/* Build the node-level form of a rank's local part from L (which this function frees or keeps): the one place that
 * chooses between CRS and SELL-C-sigma. Exactly one of *crs, *sell is set on success. */
spmv_status smpi_node_build(spmv_crs *L, const spmv_mpi_opts *o, int rank, const char *fn, spmv_crs **crs,
                            spmv_sell **sell);
spmv_status smpi_node_mv(const spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y);
spmv_status smpi_node_mv_dot(const spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y,
                             double *xy, double *yy);
int64_t smpi_node_nnz(const spmv_mpi_matrix *D);

/* ---------------------------------------------------------------- the multiply's buffers (multiply.c) */
struct spmv_mpi_work {
    double *halo;        /* length nhalo */
    double *sendbuf;     /* length send_ptr[nsend] */
    double *tmp;         /* length remote->rows */
    MPI_Request *req;    /* length nrecv + nsend + 1 */
    int flag, first;     /* the agreement on the arguments (MPI_Iallreduce buffers: alive until it completes) */
};
spmv_status smpi_work_alloc(spmv_mpi_matrix *D, const char *fn);

#define SMPI_TAG_HALO 7001
#define SMPI_TAG_SCATTER 7002

#endif
