/* Building a distributed matrix: the constructors (file on one rank, one file per rank, the caller's rows,
 * generators), the split of each rank's rows and the exchange plan, with a collective agreement on the status at
 * every step where a rank could fail alone. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

spmv_mpi_opts spmv_mpi_opts_default(void)
{
    spmv_mpi_opts o;
    memset(&o, 0, sizeof o);
    o.format = SPMV_MPI_FORMAT_AUTO;
    o.overlap = 1;
    return o;
}

/* ---------------------------------------------------------------- life cycle */

static void destroy(spmv_mpi_matrix *D)
{
    if (!D) return;
    free(D->row_start);
    free(D->col_start);
    spmv_crs_free(D->local_crs);
    spmv_sell_free(D->local_sell);
    spmv_crs_free(D->remote);
    free(D->remote_row);
    free(D->halo_col);
    free(D->recv_rank);
    free(D->recv_ptr);
    free(D->send_rank);
    free(D->send_ptr);
    free(D->send_idx);
    if (D->work) {
        free(D->work->halo);
        free(D->work->sendbuf);
        free(D->work->tmp);
        free(D->work->req);
        free(D->work);
    }
    if (D->comm != MPI_COMM_NULL) MPI_Comm_free(&D->comm);
    free(D);
}

void spmv_mpi_free(spmv_mpi_matrix *D) { destroy(D); }

/* State of a constructor: the duplicated communicator and the matrix being built. */
typedef struct bctx {
    const char *fn;
    int rank, size;
    spmv_mpi_matrix *D;
    spmv_mpi_opts o;
} bctx;

/* Duplicate the communicator (MPI_ERRORS_RETURN on the duplicate) and allocate the matrix; the ranks agree on the
 * allocation. A nonzero return means that no collective step follows (nothing is left allocated). */
static spmv_status begin(bctx *b, MPI_Comm comm, const char *fn, const spmv_mpi_opts *o)
{
    memset(b, 0, sizeof *b);
    b->fn = fn;
    b->o = o ? *o : spmv_mpi_opts_default();
    smpi_clear_error();
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin) return smpi_err(-1, SPMV_ERR_ARG, "%s: MPI is not initialized (or already finalized)", fn);
    if (comm == MPI_COMM_NULL) return smpi_err(-1, SPMV_ERR_ARG, "%s: the communicator is MPI_COMM_NULL", fn);
    MPI_Comm dup;
    int rc = MPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS) return smpi_mpi_err(-1, fn, "MPI_Comm_dup", rc);
    rc = MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(dup, &b->rank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(dup, &b->size);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&dup);
        return smpi_mpi_err(-1, fn, "MPI_Comm_set_errhandler", rc);
    }
    spmv_status st = SPMV_OK;
    spmv_mpi_matrix *D = calloc(1, sizeof *D);
    if (D) {
        D->comm = dup;
        D->rank = b->rank;
        D->size = b->size;
        D->row_start = calloc((size_t)b->size + 1, sizeof *D->row_start);
        D->col_start = calloc((size_t)b->size + 1, sizeof *D->col_start);
    }
    if (!D || !D->row_start || !D->col_start)
        st = smpi_err(b->rank, SPMV_ERR_NOMEM, "%s: out of memory for the matrix structure", fn);
    st = smpi_agree(dup, b->rank, b->size, fn, st);
    if (st) {
        if (D) destroy(D);
        else MPI_Comm_free(&dup);
        return st;
    }
    b->D = D;
    return SPMV_OK;
}

static spmv_status finish(bctx *b, spmv_status st, spmv_mpi_matrix **out)
{
    if (st) {
        destroy(b->D);
        return st;
    }
    *out = b->D;
    return SPMV_OK;
}

static spmv_status agree(bctx *b, spmv_status st) { return smpi_agree(b->D->comm, b->rank, b->size, b->fn, st); }

/* Check opts.row_start (given) against the global row count and across ranks; copy it into D. */
static spmv_status given_rows(bctx *b, const int64_t *rs)
{
    spmv_mpi_matrix *D = b->D;
    spmv_status st = smpi_check_start(b->rank, b->fn, "opts.row_start", rs, b->size, D->rows);
    int same = 1;
    spmv_status st2 = smpi_same(D->comm, b->rank, b->fn, rs, b->size + 1, &same);
    if (!st) st = st2;
    if (!st && !same)
        st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: opts.row_start differs between the ranks", b->fn);
    if (!st) memcpy(D->row_start, rs, ((size_t)b->size + 1) * sizeof *rs);
    return agree(b, st);
}

/* The column partition: opts.col_start, or the rows' for a square matrix, or equal blocks. Agreed. */
static spmv_status set_cols(bctx *b)
{
    spmv_mpi_matrix *D = b->D;
    spmv_status st = SPMV_OK;
    if (b->o.col_start) {
        st = smpi_check_start(b->rank, b->fn, "opts.col_start", b->o.col_start, b->size, D->cols);
        int same = 1;
        spmv_status st2 = smpi_same(D->comm, b->rank, b->fn, b->o.col_start, b->size + 1, &same);
        if (!st) st = st2;
        if (!st && !same) st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: opts.col_start differs between the ranks", b->fn);
        if (!st) memcpy(D->col_start, b->o.col_start, ((size_t)b->size + 1) * sizeof *D->col_start);
    } else if (D->rows == D->cols) {
        memcpy(D->col_start, D->row_start, ((size_t)b->size + 1) * sizeof *D->col_start);
    } else {
        smpi_equal_blocks(D->cols, b->size, D->col_start);
    }
    return agree(b, st);
}

static spmv_status check_opts(bctx *b)
{
    const spmv_mpi_opts *o = &b->o;
    if (o->format != SPMV_MPI_FORMAT_AUTO && o->format != SPMV_MPI_FORMAT_CRS && o->format != SPMV_MPI_FORMAT_SELL)
        return smpi_err(b->rank, SPMV_ERR_ARG, "%s: opts.format = %d is not AUTO, CRS or SELL", b->fn, (int)o->format);
    if (o->C < 0 || o->sigma < 0 || o->nthreads < 0)
        return smpi_err(b->rank, SPMV_ERR_ARG, "%s: opts C = %d, sigma = %d, nthreads = %d: must be >= 0", b->fn, o->C,
                        o->sigma, o->nthreads);
    if (o->overlap != 0 && o->overlap != 1)
        return smpi_err(b->rank, SPMV_ERR_ARG, "%s: opts.overlap = %d, must be 0 or 1", b->fn, o->overlap);
    return SPMV_OK;
}

/* ---------------------------------------------------------------- the common part: split, plan, node level */

static spmv_status build(bctx *b, const smpi_rowsrc *src)
{
    spmv_mpi_matrix *D = b->D;
    const char *fn = b->fn;
    int r = b->rank, P = b->size;
    spmv_status st = SPMV_OK;
    smpi_split sp;
    memset(&sp, 0, sizeof sp);
    int *reqcnt = NULL, *gotcnt = NULL;
    int64_t *want = NULL;
    MPI_Request *rq = NULL;
    spmv_crs *L = NULL;

    int64_t c0 = D->col_start[r], c1 = D->col_start[r + 1];
    D->nrows = src->nrows;
    if (c1 - c0 > INT32_MAX)
        st = smpi_err(r, SPMV_ERR_OVERFLOW, "%s: %lld owned columns, more than the 32-bit limit %d", fn,
                      (long long)(c1 - c0), INT32_MAX);
    D->ncols = (int32_t)(c1 - c0);
    D->square = D->rows == D->cols && !memcmp(D->row_start, D->col_start, ((size_t)P + 1) * sizeof *D->row_start);
    D->overlap = b->o.overlap;
    if (!st) st = smpi_split_rows(src, c0, c1, 0, NULL, P, r, fn, &sp);
    st = agree(b, st);
    if (st) goto out;

    /* receive side of the plan: the halo's owners (halo_col increasing, so owners non-decreasing) */
    reqcnt = calloc((size_t)P, sizeof *reqcnt);
    gotcnt = calloc((size_t)P, sizeof *gotcnt);
    if (!reqcnt || !gotcnt) st = smpi_err(r, SPMV_ERR_NOMEM, "%s: out of memory for the exchange plan", fn);
    int32_t nrecv = 0;
    for (int32_t h = 0; !st && h < sp.nhalo; h++) {
        int q = smpi_owner(D->col_start, P, sp.halo_col[h]);
        nrecv += reqcnt[q] == 0;
        reqcnt[q]++;
    }
    if (!st) {
        D->recv_rank = smpi_malloc((size_t)nrecv * sizeof *D->recv_rank);
        D->recv_ptr = calloc((size_t)nrecv + 1, sizeof *D->recv_ptr);
        if ((nrecv && !D->recv_rank) || !D->recv_ptr)
            st = smpi_err(r, SPMV_ERR_NOMEM, "%s: out of memory for the exchange plan", fn);
    }
    if (!st) {
        for (int q = 0, k = 0; q < P; q++)
            if (reqcnt[q]) {
                D->recv_rank[k] = q;
                D->recv_ptr[k + 1] = D->recv_ptr[k] + reqcnt[q];
                k++;
            }
        D->nrecv = nrecv;
    }
    st = agree(b, st);
    if (st) goto out;

    /* send side: how many of my columns each rank wants, then which */
    int rc = MPI_Alltoall(reqcnt, 1, MPI_INT, gotcnt, 1, MPI_INT, D->comm);
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, "MPI_Alltoall", rc);
    int32_t nsend = 0;
    int64_t nwant = 0;
    for (int q = 0; !st && q < P; q++) {
        nsend += gotcnt[q] > 0;
        nwant += gotcnt[q];
    }
    if (!st && nwant > INT32_MAX)
        st = smpi_err(r, SPMV_ERR_OVERFLOW, "%s: %lld entries to send, more than the 32-bit limit", fn,
                      (long long)nwant);
    if (!st) {
        D->send_rank = smpi_malloc((size_t)nsend * sizeof *D->send_rank);
        D->send_ptr = calloc((size_t)nsend + 1, sizeof *D->send_ptr);
        D->send_idx = smpi_malloc((size_t)nwant * sizeof *D->send_idx);
        want = smpi_malloc((size_t)nwant * sizeof *want);
        rq = smpi_malloc(((size_t)nsend + nrecv + 1) * sizeof *rq);
        if ((nsend && !D->send_rank) || !D->send_ptr || (nwant && (!D->send_idx || !want)) || !rq)
            st = smpi_err(r, SPMV_ERR_NOMEM, "%s: out of memory for the exchange plan", fn);
    }
    if (!st) {
        for (int q = 0, k = 0; q < P; q++)
            if (gotcnt[q]) {
                D->send_rank[k] = q;
                D->send_ptr[k + 1] = D->send_ptr[k] + gotcnt[q];
                k++;
            }
        D->nsend = nsend;
    }
    st = agree(b, st);
    if (st) goto out;
    int nr = 0;
    for (int32_t k = 0; !rc && k < nsend; k++)
        rc = MPI_Irecv(want + D->send_ptr[k], D->send_ptr[k + 1] - D->send_ptr[k], MPI_INT64_T, D->send_rank[k],
                       SMPI_TAG_HALO, D->comm, &rq[nr++]);
    for (int32_t k = 0; !rc && k < nrecv; k++)
        rc = MPI_Isend(sp.halo_col + D->recv_ptr[k], D->recv_ptr[k + 1] - D->recv_ptr[k], MPI_INT64_T,
                       D->recv_rank[k], SMPI_TAG_HALO, D->comm, &rq[nr++]);
    if (!rc) rc = MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, "the exchange of the halo columns", rc);
    for (int64_t k = 0; !st && k < nwant; k++) {
        if (want[k] < c0 || want[k] >= c1)
            st = smpi_err(r, SPMV_ERR_ARG, "%s: internal error: column %lld requested from rank %d, which owns %lld..%lld",
                          fn, (long long)want[k], r, (long long)c0, (long long)c1 - 1);
        else D->send_idx[k] = (int32_t)(want[k] - c0);
    }
    st = agree(b, st);
    if (st) goto out;

    /* node level: the local part in the format chosen for this node, the remote part in CRS */
    st = spmv_crs_from_arrays(D->nrows, D->ncols, sp.lrowptr, sp.lcol, sp.lval, &L);
    if (st) st = smpi_core_err(r, fn, st);
    free(sp.lcol);
    free(sp.lval);
    sp.lcol = NULL;
    sp.lval = NULL;
    if (!st) {
        st = smpi_node_build(L, &b->o, r, fn, &D->local_crs, &D->local_sell);
        L = NULL;
    }
    if (!st) {
        st = spmv_crs_from_arrays(sp.nrr, sp.nhalo, sp.rrowptr, sp.rcol, sp.rval, &D->remote);
        if (st) st = smpi_core_err(r, fn, st);
    }
    if (!st) {
        D->remote_row = sp.rrow;
        sp.rrow = NULL;
        D->halo_col = sp.halo_col;
        sp.halo_col = NULL;
        D->nhalo = sp.nhalo;
        st = smpi_work_alloc(D, fn);
    }
    st = agree(b, st);
    if (st) goto out;
    int64_t mine = smpi_node_nnz(D) + D->remote->nnz;
    rc = MPI_Allreduce(&mine, &D->nnz, 1, MPI_INT64_T, MPI_SUM, D->comm);
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, "MPI_Allreduce", rc);
    st = agree(b, st);
out:
    spmv_crs_free(L);
    smpi_split_free(&sp);
    free(reqcnt);
    free(gotcnt);
    free(want);
    free(rq);
    return st;
}

/* ---------------------------------------------------------------- from the ranks' own rows */

/* rows x cols arrays of this rank (checked here), after the caller's own local checks gave st. */
static spmv_status from_local_rows(bctx *b, spmv_status st, int32_t rows, int64_t cols, const smpi_arrays *a)
{
    spmv_mpi_matrix *D = b->D;
    if (!st) st = check_opts(b);
    if (!st && (rows < 0 || cols < 0))
        st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: size %d x %lld is negative", b->fn, rows, (long long)cols);
    if (!st && !a->rowptr) st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: argument rowptr is NULL", b->fn);
    if (!st && a->rowptr[0] != 0)
        st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: rowptr[0] = %lld, must be 0", b->fn, (long long)a->rowptr[0]);
    for (int32_t i = 0; !st && i < rows; i++)
        if (a->rowptr[i + 1] < a->rowptr[i] || a->rowptr[i + 1] - a->rowptr[i] > INT32_MAX)
            st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: rowptr[%d] = %lld after rowptr[%d] = %lld: not a valid row", b->fn,
                          i + 1, (long long)a->rowptr[i + 1], i, (long long)a->rowptr[i]);
    if (!st && rows > 0 && a->rowptr[rows] > 0 && !a->col32 && !a->col64)
        st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: argument col is NULL", b->fn);
    st = agree(b, st);
    if (st) return st;

    /* every rank's row count and column count */
    int64_t mine[2] = {rows, cols}, *all = smpi_malloc(2 * (size_t)b->size * sizeof *all);
    st = all ? SPMV_OK : smpi_err(b->rank, SPMV_ERR_NOMEM, "%s: out of memory", b->fn);
    st = agree(b, st);
    if (st) return st;
    int rc = MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, D->comm);
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(b->rank, b->fn, "MPI_Allgather", rc);
    st = agree(b, st);
    if (!st) {
        /* the same decision on every rank from the same data: no agreement needed */
        for (int q = 1; q < b->size && !st; q++)
            if (all[2 * q + 1] != all[1])
                st = smpi_err(q, SPMV_ERR_ARG, "%s: cols = %lld, but rank 0 has cols = %lld: every rank must pass the "
                              "global column count", b->fn, (long long)all[2 * q + 1], (long long)all[1]);
        D->row_start[0] = 0;
        for (int q = 0; q < b->size; q++) D->row_start[q + 1] = D->row_start[q] + all[2 * q];
        D->rows = D->row_start[b->size];
        D->cols = all[1];
    }
    free(all);
    if (st) return st;
    if (b->o.row_start) {
        st = smpi_check_start(b->rank, b->fn, "opts.row_start", b->o.row_start, b->size, D->rows);
        if (!st && memcmp(b->o.row_start, D->row_start, ((size_t)b->size + 1) * sizeof *D->row_start))
            st = smpi_err(b->rank, SPMV_ERR_ARG, "%s: opts.row_start does not match the rows the ranks hold (rank %d: "
                          "%d rows)", b->fn, b->rank, rows);
        st = agree(b, st);
        if (st) return st;
    }
    st = set_cols(b);
    if (st) return st;
    smpi_rowsrc src;
    smpi_rowsrc_arrays(&src, a, D->row_start[b->rank], rows, cols);
    return build(b, &src);
}

spmv_status spmv_mpi_from_rows(MPI_Comm comm, int32_t rows, int64_t cols, const int64_t *rowptr, const int64_t *col,
                               const double *val, const spmv_mpi_opts *opts, spmv_mpi_matrix **D)
{
    bctx b;
    spmv_status st = begin(&b, comm, "spmv_mpi_from_rows", opts);
    if (st) return st;
    if (!D) st = smpi_err(b.rank, SPMV_ERR_ARG, "%s: argument D is NULL", b.fn);
    smpi_arrays a = {rowptr, NULL, col, val};
    st = from_local_rows(&b, st, rows, cols, &a);
    return finish(&b, st, D);
}

spmv_status spmv_mpi_from_crs(MPI_Comm comm, const spmv_crs *A, const spmv_mpi_opts *opts, spmv_mpi_matrix **D)
{
    bctx b;
    spmv_status st = begin(&b, comm, "spmv_mpi_from_crs", opts);
    if (st) return st;
    if (!D) st = smpi_err(b.rank, SPMV_ERR_ARG, "%s: argument D is NULL", b.fn);
    if (!A) st = smpi_err(b.rank, SPMV_ERR_ARG, "%s: argument A is NULL", b.fn);
    smpi_arrays a = {A ? A->rowptr : NULL, A ? A->col : NULL, NULL, A ? A->val : NULL};
    st = from_local_rows(&b, st, A ? A->rows : 0, A ? A->cols : 0, &a);
    return finish(&b, st, D);
}

spmv_status spmv_mpi_from_row_files(MPI_Comm comm, const char *path, const spmv_mpi_opts *opts, spmv_mpi_matrix **D)
{
    bctx b;
    spmv_status st = begin(&b, comm, "spmv_mpi_from_row_files", opts);
    if (st) return st;
    spmv_crs *A = NULL;
    if (!D) st = smpi_err(b.rank, SPMV_ERR_ARG, "%s: argument D is NULL", b.fn);
    else if (!path) st = smpi_err(b.rank, SPMV_ERR_ARG, "%s: argument path is NULL", b.fn);
    else {
        st = spmv_crs_read_mm(path, &A);
        if (st) st = smpi_core_err(b.rank, b.fn, st);
    }
    smpi_arrays a = {A ? A->rowptr : NULL, A ? A->col : NULL, NULL, A ? A->val : NULL};
    st = from_local_rows(&b, st, A ? A->rows : 0, A ? A->cols : 0, &a);
    spmv_crs_free(A);
    return finish(&b, st, D);
}

/* ---------------------------------------------------------------- one file, read on root and scattered */

#define SMPI_CHUNK ((int64_t)1 << 30) /* elements per message: MPI counts are int */

static int send_big(const void *buf, int64_t n, MPI_Datatype t, size_t esize, int dest, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    for (int64_t off = 0; rc == MPI_SUCCESS && off < n; off += SMPI_CHUNK)
        rc = MPI_Send((const char *)buf + (size_t)off * esize, (int)(n - off < SMPI_CHUNK ? n - off : SMPI_CHUNK), t,
                      dest, SMPI_TAG_SCATTER, comm);
    return rc;
}

static int recv_big(void *buf, int64_t n, MPI_Datatype t, size_t esize, int src, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    for (int64_t off = 0; rc == MPI_SUCCESS && off < n; off += SMPI_CHUNK)
        rc = MPI_Recv((char *)buf + (size_t)off * esize, (int)(n - off < SMPI_CHUNK ? n - off : SMPI_CHUNK), t, src,
                      SMPI_TAG_SCATTER, comm, MPI_STATUS_IGNORE);
    return rc;
}

spmv_status spmv_mpi_from_file(MPI_Comm comm, const char *path, int root, const spmv_mpi_opts *opts,
                               spmv_mpi_matrix **D)
{
    bctx b;
    spmv_status st = begin(&b, comm, "spmv_mpi_from_file", opts);
    if (st) return st;
    spmv_mpi_matrix *M = b.D;
    const char *fn = b.fn;
    int r = b.rank, P = b.size, rc;
    spmv_crs *A = NULL;
    int64_t *rowptr = NULL, *cnt = NULL, mynnz = 0;
    int32_t *col = NULL;
    double *val = NULL;

    if (!D) st = smpi_err(r, SPMV_ERR_ARG, "%s: argument D is NULL", fn);
    if (!st) st = check_opts(&b);
    int64_t rootv = root;
    int same = 1;
    spmv_status st2 = smpi_same(M->comm, r, fn, &rootv, 1, &same);
    if (!st) st = st2;
    if (!st && !same) st = smpi_err(r, SPMV_ERR_ARG, "%s: root differs between the ranks", fn);
    if (!st && (root < 0 || root >= P))
        st = smpi_err(r, SPMV_ERR_ARG, "%s: root = %d outside 0..%d", fn, root, P - 1);
    st = agree(&b, st);
    if (st) return finish(&b, st, D);
    if (r == root) {
        if (!path) st = smpi_err(r, SPMV_ERR_ARG, "%s: argument path is NULL on the root rank", fn);
        else {
            st = spmv_crs_read_mm(path, &A);
            if (st) st = smpi_core_err(r, fn, st);
        }
    }
    st = agree(&b, st);
    if (st) goto out;

    int64_t hdr[3] = {0, 0, 0};
    if (r == root) {
        hdr[0] = A->rows;
        hdr[1] = A->cols;
        hdr[2] = A->nnz;
    }
    rc = MPI_Bcast(hdr, 3, MPI_INT64_T, root, M->comm);
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, "MPI_Bcast", rc);
    st = agree(&b, st);
    if (st) goto out;
    M->rows = hdr[0];
    M->cols = hdr[1];
    if (b.o.row_start) {
        st = given_rows(&b, b.o.row_start);
    } else {
        if (r == root) st = spmv_mpi_partition_nnz(A->rows, A->rowptr, P, M->row_start);
        if (st) st = smpi_err(r, st, "%s: %s", fn, spmv_mpi_last_error());
        st = agree(&b, st);
        if (!st) {
            rc = MPI_Bcast(M->row_start, P + 1, MPI_INT64_T, root, M->comm);
            if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, "MPI_Bcast", rc);
            st = agree(&b, st);
        }
    }
    if (st) goto out;
    st = set_cols(&b);
    if (st) goto out;

    /* every rank's nonzero count, then its rows */
    if (r == root) {
        cnt = smpi_malloc((size_t)P * sizeof *cnt);
        if (!cnt) st = smpi_err(r, SPMV_ERR_NOMEM, "%s: out of memory", fn);
        for (int q = 0; cnt && q < P; q++) cnt[q] = A->rowptr[M->row_start[q + 1]] - A->rowptr[M->row_start[q]];
    }
    st = agree(&b, st);
    if (st) goto out;
    rc = MPI_Scatter(cnt, 1, MPI_INT64_T, &mynnz, 1, MPI_INT64_T, root, M->comm);
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, "MPI_Scatter", rc);
    int64_t myrows = M->row_start[r + 1] - M->row_start[r];
    if (!st && myrows > INT32_MAX)
        st = smpi_err(r, SPMV_ERR_OVERFLOW, "%s: %lld rows on this rank, more than the 32-bit limit %d", fn,
                      (long long)myrows, INT32_MAX);
    if (!st && r != root) {
        rowptr = smpi_malloc(((size_t)myrows + 1) * sizeof *rowptr);
        col = smpi_malloc((size_t)mynnz * sizeof *col);
        val = smpi_malloc((size_t)mynnz * sizeof *val);
        if (!rowptr || (mynnz && (!col || !val)))
            st = smpi_err(r, SPMV_ERR_NOMEM, "%s: out of memory for %lld rows with %lld nonzeros", fn,
                          (long long)myrows, (long long)mynnz);
    }
    st = agree(&b, st);
    if (st) goto out;
    rc = MPI_SUCCESS;
    if (r == root) {
        for (int q = 0; rc == MPI_SUCCESS && q < P; q++) {
            if (q == root) continue;
            int64_t a = M->row_start[q], n = M->row_start[q + 1] - a, o = A->rowptr[a];
            rc = send_big(A->rowptr + a, n + 1, MPI_INT64_T, sizeof(int64_t), q, M->comm);
            if (rc == MPI_SUCCESS) rc = send_big(A->col + o, cnt[q], MPI_INT32_T, sizeof(int32_t), q, M->comm);
            if (rc == MPI_SUCCESS) rc = send_big(A->val + o, cnt[q], MPI_DOUBLE, sizeof(double), q, M->comm);
        }
    } else {
        rc = recv_big(rowptr, myrows + 1, MPI_INT64_T, sizeof(int64_t), root, M->comm);
        if (rc == MPI_SUCCESS) rc = recv_big(col, mynnz, MPI_INT32_T, sizeof(int32_t), root, M->comm);
        if (rc == MPI_SUCCESS) rc = recv_big(val, mynnz, MPI_DOUBLE, sizeof(double), root, M->comm);
        for (int64_t i = myrows; rc == MPI_SUCCESS && i >= 0; i--) rowptr[i] -= rowptr[0];
    }
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, "the scatter of the rows", rc);
    st = agree(&b, st);
    if (st) goto out;

    smpi_arrays a;
    if (r == root) a = (smpi_arrays){A->rowptr + M->row_start[r], A->col, NULL, A->val};
    else a = (smpi_arrays){rowptr, col, NULL, val};
    smpi_rowsrc src;
    smpi_rowsrc_arrays(&src, &a, M->row_start[r], (int32_t)myrows, M->cols);
    st = build(&b, &src);
out:
    spmv_crs_free(A);
    free(cnt);
    free(rowptr);
    free(col);
    free(val);
    return finish(&b, st, D);
}

/* ---------------------------------------------------------------- generators */

spmv_status spmv_mpi_gen(MPI_Comm comm, const spmv_mpi_grid *g, const spmv_mpi_opts *opts, spmv_mpi_matrix **D)
{
    bctx b;
    spmv_status st = begin(&b, comm, "spmv_mpi_gen", opts);
    if (st) return st;
    spmv_mpi_matrix *M = b.D;
    int r = b.rank, P = b.size;
    int64_t n = 0;
    if (!D) st = smpi_err(r, SPMV_ERR_ARG, "%s: argument D is NULL", b.fn);
    if (!st) st = check_opts(&b);
    if (!st) st = smpi_grid_check(g, P, r, b.fn, &n);
    st = agree(&b, st);
    if (st) return finish(&b, st, D);
    int64_t v[7] = {g->stencil, g->nx, g->ny, g->nz, g->px, g->py, g->pz};
    int same = 1;
    st = smpi_same(M->comm, r, b.fn, v, 7, &same);
    if (!st && !same) st = smpi_err(r, SPMV_ERR_ARG, "%s: the grid differs between the ranks", b.fn);
    st = agree(&b, st);
    if (st) return finish(&b, st, D);
    M->rows = M->cols = n;
    if (b.o.row_start && g->px == 0) {
        st = given_rows(&b, b.o.row_start);
    } else {
        st = spmv_mpi_grid_partition(g, P, M->row_start); /* the same on every rank: computed, not communicated */
        if (st) st = smpi_err(r, st, "%s: %s", b.fn, spmv_mpi_last_error());
    }
    for (int q = 0; !st && q < P; q++)
        if (M->row_start[q + 1] - M->row_start[q] > INT32_MAX)
            st = smpi_err(r, SPMV_ERR_OVERFLOW, "%s: rank %d gets %lld rows, more than the 32-bit limit %d", b.fn, q,
                          (long long)(M->row_start[q + 1] - M->row_start[q]), INT32_MAX);
    st = agree(&b, st);
    if (!st) st = set_cols(&b);
    if (st) return finish(&b, st, D);
    smpi_gridsrc ctx;
    smpi_rowsrc src;
    smpi_rowsrc_grid(&src, &ctx, g, M->row_start[r], (int32_t)(M->row_start[r + 1] - M->row_start[r]));
    st = build(&b, &src);
    return finish(&b, st, D);
}

/* ---------------------------------------------------------------- statistics without building */

spmv_status spmv_mpi_grid_stats(const spmv_mpi_grid *g, int size, int rank, const int64_t *row_start,
                                spmv_mpi_stats *s)
{
    const char *fn = "spmv_mpi_grid_stats";
    smpi_clear_error();
    if (!s) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument s is NULL", fn);
    if (size < 1 || rank < 0 || rank >= size)
        return smpi_err(-1, SPMV_ERR_ARG, "%s: rank %d of %d ranks", fn, rank, size);
    int64_t n;
    spmv_status st = smpi_grid_check(g, size, -1, fn, &n);
    if (st) return st;
    int64_t *rs = smpi_malloc(((size_t)size + 1) * sizeof *rs);
    if (!rs) return smpi_err(-1, SPMV_ERR_NOMEM, "%s: out of memory", fn);
    if (row_start) {
        memcpy(rs, row_start, ((size_t)size + 1) * sizeof *rs);
        st = smpi_check_start(-1, fn, "row_start", rs, size, n);
    } else {
        st = spmv_mpi_grid_partition(g, size, rs);
    }
    if (!st && rs[rank + 1] - rs[rank] > INT32_MAX)
        st = smpi_err(-1, SPMV_ERR_OVERFLOW, "%s: rank %d has %lld rows, more than the 32-bit limit", fn, rank,
                      (long long)(rs[rank + 1] - rs[rank]));
    if (!st) {
        smpi_gridsrc ctx;
        smpi_rowsrc src;
        smpi_split sp;
        smpi_rowsrc_grid(&src, &ctx, g, rs[rank], (int32_t)(rs[rank + 1] - rs[rank]));
        st = smpi_split_rows(&src, rs[rank], rs[rank + 1], 1, rs, size, -1, fn, &sp);
        if (!st) *s = sp.st;
        smpi_split_free(&sp);
    }
    free(rs);
    return st;
}
