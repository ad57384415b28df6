/* The distributed multiply (overlapped halo exchange), the fused dot products, vector scatter/gather, statistics
 * and the communication model. */
#include "mpi_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

spmv_status smpi_work_alloc(spmv_mpi_matrix *D, const char *fn)
{
    struct spmv_mpi_work *w = calloc(1, sizeof *w);
    if (!w) return smpi_err(D->rank, SPMV_ERR_NOMEM, "%s: out of memory for the multiply's buffers", fn);
    D->work = w;
    int32_t nsendv = D->send_ptr[D->nsend], nrr = D->remote->rows;
    w->halo = smpi_calloc((size_t)D->nhalo, sizeof *w->halo);
    w->sendbuf = smpi_calloc((size_t)nsendv, sizeof *w->sendbuf);
    w->tmp = smpi_calloc((size_t)nrr, sizeof *w->tmp);
    w->req = smpi_malloc(((size_t)D->nrecv + D->nsend + 1) * sizeof *w->req);
    if ((D->nhalo && !w->halo) || (nsendv && !w->sendbuf) || (nrr && !w->tmp) || !w->req)
        return smpi_err(D->rank, SPMV_ERR_NOMEM, "%s: out of memory for the multiply's buffers", fn);
    return SPMV_OK;
}

static int overlaps(const double *a, int64_t na, const double *b, int64_t nb)
{
    return a && b && na > 0 && nb > 0 && a < b + nb && b < a + na;
}

/* y = alpha*A*x + beta*y, with <x, y>, <y, y> when dot. */
static spmv_status multiply(spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y, int dot,
                            double *xy, double *yy)
{
    const char *fn = dot ? "spmv_mpi_mv_dot" : "spmv_mpi_mv";
    smpi_clear_error();
    if (!D) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument D is NULL", fn);
    struct spmv_mpi_work *w = D->work;
    int r = D->rank, P = D->size;
    spmv_status st = SPMV_OK;
    if (!x && D->ncols > 0) st = smpi_err(r, SPMV_ERR_ARG, "%s: argument x is NULL (length %d)", fn, D->ncols);
    else if (!y && D->nrows > 0) st = smpi_err(r, SPMV_ERR_ARG, "%s: argument y is NULL (length %d)", fn, D->nrows);
    else if (overlaps(x, D->ncols, y, D->nrows)) st = smpi_err(r, SPMV_ERR_ARG, "%s: x and y overlap", fn);
    else if (dot && !D->square)
        st = smpi_err(r, SPMV_ERR_ARG, "%s: the fused dot products need x and y distributed alike (a square matrix "
                      "with col_start = row_start)", fn);

    double t0 = MPI_Wtime();
    /* post: the agreement on the arguments, the receives of the halo, the sends of the owned entries others need */
    int nr = 0, rc = MPI_SUCCESS;
    w->flag = st ? r : P;
    w->first = P;
    if (P > 1) rc = MPI_Iallreduce(&w->flag, &w->first, 1, MPI_INT, MPI_MIN, D->comm, &w->req[nr++]);
    else w->first = w->flag;
    for (int32_t k = 0; rc == MPI_SUCCESS && k < D->nrecv; k++)
        rc = MPI_Irecv(w->halo + D->recv_ptr[k], D->recv_ptr[k + 1] - D->recv_ptr[k], MPI_DOUBLE, D->recv_rank[k],
                       SMPI_TAG_HALO, D->comm, &w->req[nr++]);
    int32_t ns = D->send_ptr[D->nsend];
    if (st) {
        if (ns > 0) memset(w->sendbuf, 0, (size_t)ns * sizeof *w->sendbuf); /* sendbuf is NULL when nothing is sent */
    } else
        for (int32_t k = 0; k < ns; k++) w->sendbuf[k] = x[D->send_idx[k]];
    for (int32_t k = 0; rc == MPI_SUCCESS && k < D->nsend; k++)
        rc = MPI_Isend(w->sendbuf + D->send_ptr[k], D->send_ptr[k + 1] - D->send_ptr[k], MPI_DOUBLE, D->send_rank[k],
                       SMPI_TAG_HALO, D->comm, &w->req[nr++]);
    if (rc != MPI_SUCCESS) return smpi_mpi_err(r, fn, "posting the halo exchange", rc);
    double t1 = MPI_Wtime(), t2 = t1;

    /* the local part while the messages travel */
    double lxy = 0, lyy = 0;
    spmv_status lst = SPMV_OK;
    if (D->overlap && !st && D->nrows > 0) {
        lst = dot ? smpi_node_mv_dot(D, alpha, x, beta, y, &lxy, &lyy) : smpi_node_mv(D, alpha, x, beta, y);
        t2 = MPI_Wtime();
    }
    rc = MPI_Waitall(nr, w->req, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return smpi_mpi_err(r, fn, "MPI_Waitall (halo exchange)", rc);
    double t3 = MPI_Wtime();
    if (w->first != P) return smpi_share_error(D->comm, r, w->first, fn, st);
    if (!D->overlap && D->nrows > 0) {
        lst = dot ? smpi_node_mv_dot(D, alpha, x, beta, y, &lxy, &lyy) : smpi_node_mv(D, alpha, x, beta, y);
    }
    if (lst) return smpi_core_err(r, fn, lst);
    double t4 = MPI_Wtime();

    /* the remote part: tmp = A_remote * halo, then y[row] += alpha * tmp (and the dot products of those rows
     * corrected from y' to y' + d: <x, y> gains x d, <y, y> gains d (2 y' + d)) */
    int32_t nrr = D->remote->rows;
    if (nrr > 0) {
        lst = spmv_crs_mv(D->remote, 1.0, w->halo, 0.0, w->tmp);
        if (lst) return smpi_core_err(r, fn, lst);
        if (dot) {
            for (int32_t k = 0; k < nrr; k++) {
                int32_t i = D->remote_row[k];
                double d = alpha * w->tmp[k];
                lxy += x[i] * d;
                lyy += d * (2.0 * y[i] + d);
                y[i] += d;
            }
        } else {
            for (int32_t k = 0; k < nrr; k++) y[D->remote_row[k]] += alpha * w->tmp[k];
        }
    }
    double t5 = MPI_Wtime();
    if (dot) {
        double in[2] = {lxy, lyy}, out[2] = {lxy, lyy};
        if (P > 1) {
            rc = MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, D->comm);
            if (rc != MPI_SUCCESS) return smpi_mpi_err(r, fn, "MPI_Allreduce (dot products)", rc);
        }
        if (xy) *xy = out[0];
        if (yy) *yy = out[1];
    }
    double t6 = MPI_Wtime();
    D->times.post += t1 - t0;
    D->times.local += D->overlap ? t2 - t1 : t4 - t3;
    D->times.wait += D->overlap ? t3 - t2 : t3 - t1;
    D->times.remote += t5 - t4;
    D->times.reduce += t6 - t5;
    D->times.calls++;
    return SPMV_OK;
}

spmv_status spmv_mpi_mv(spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y)
{
    return multiply(D, alpha, x, beta, y, 0, NULL, NULL);
}

spmv_status spmv_mpi_mv_dot(spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y, double *xy,
                            double *yy)
{
    return multiply(D, alpha, x, beta, y, 1, xy, yy);
}

spmv_status spmv_mpi_set_overlap(spmv_mpi_matrix *D, int on)
{
    smpi_clear_error();
    if (!D) return smpi_err(-1, SPMV_ERR_ARG, "spmv_mpi_set_overlap: argument D is NULL");
    if (on != 0 && on != 1) return smpi_err(D->rank, SPMV_ERR_ARG, "spmv_mpi_set_overlap: on = %d, must be 0 or 1", on);
    D->overlap = on;
    return SPMV_OK;
}

/* ---------------------------------------------------------------- vectors */

static spmv_status scatter_gather(spmv_mpi_matrix *D, spmv_mpi_layout layout, int root, const double *gin,
                                  double *gout, const double *lin, double *lout, int gather)
{
    const char *fn = gather ? "spmv_mpi_gather" : "spmv_mpi_scatter";
    smpi_clear_error();
    if (!D) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument D is NULL", fn);
    int r = D->rank, P = D->size, rc = MPI_SUCCESS;
    spmv_status st = SPMV_OK;
    const int64_t *start = layout == SPMV_MPI_COLS ? D->col_start : D->row_start;
    int64_t n = start[P], mine = start[r + 1] - start[r];
    if (layout != SPMV_MPI_ROWS && layout != SPMV_MPI_COLS)
        st = smpi_err(r, SPMV_ERR_ARG, "%s: layout = %d is not ROWS or COLS", fn, (int)layout);
    else if (root < 0 || root >= P) st = smpi_err(r, SPMV_ERR_ARG, "%s: root = %d outside 0..%d", fn, root, P - 1);
    else if (r == root && n > 0 && !(gather ? (const void *)gout : (const void *)gin))
        st = smpi_err(r, SPMV_ERR_ARG, "%s: the global vector is NULL on the root rank (length %lld)", fn, (long long)n);
    else if (mine > 0 && !(gather ? (const void *)lin : (const void *)lout))
        st = smpi_err(r, SPMV_ERR_ARG, "%s: the local vector is NULL (length %lld)", fn, (long long)mine);
    st = smpi_agree(D->comm, r, P, fn, st);
    if (st) return st;
    if (r == root) {
        for (int q = 0; rc == MPI_SUCCESS && q < P; q++) {
            int64_t a = start[q], m = start[q + 1] - a;
            if (q == root) {
                if (gather) memcpy(gout + a, lin, (size_t)m * sizeof *lin);
                else memcpy(lout, gin + a, (size_t)m * sizeof *lout);
            } else if (m > 0) {
                rc = gather ? MPI_Recv(gout + a, (int)m, MPI_DOUBLE, q, SMPI_TAG_SCATTER, D->comm, MPI_STATUS_IGNORE)
                            : MPI_Send(gin + a, (int)m, MPI_DOUBLE, q, SMPI_TAG_SCATTER, D->comm);
            }
        }
    } else if (mine > 0) {
        rc = gather ? MPI_Send(lin, (int)mine, MPI_DOUBLE, root, SMPI_TAG_SCATTER, D->comm)
                    : MPI_Recv(lout, (int)mine, MPI_DOUBLE, root, SMPI_TAG_SCATTER, D->comm, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) st = smpi_mpi_err(r, fn, gather ? "the gather" : "the scatter", rc);
    return smpi_agree(D->comm, r, P, fn, st);
}

spmv_status spmv_mpi_scatter(spmv_mpi_matrix *D, spmv_mpi_layout layout, int root, const double *global, double *local)
{
    return scatter_gather(D, layout, root, global, NULL, NULL, local, 0);
}

spmv_status spmv_mpi_gather(spmv_mpi_matrix *D, spmv_mpi_layout layout, int root, const double *local, double *global)
{
    return scatter_gather(D, layout, root, NULL, global, local, NULL, 1);
}

/* ---------------------------------------------------------------- statistics and the model */

spmv_status spmv_mpi_get_stats(spmv_mpi_matrix *D, spmv_mpi_stats *mine, spmv_mpi_stats *max, spmv_mpi_stats *sum)
{
    const char *fn = "spmv_mpi_get_stats";
    smpi_clear_error();
    if (!D) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument D is NULL", fn);
    spmv_mpi_stats s;
    memset(&s, 0, sizeof s);
    s.rows = D->nrows;
    s.nnz_local = smpi_node_nnz(D);
    s.nnz_remote = D->remote->nnz;
    s.nnz = s.nnz_local + s.nnz_remote;
    s.remote_rows = D->remote->rows;
    s.recv = D->nhalo;
    s.recv_msgs = D->nrecv;
    s.send = D->send_ptr[D->nsend];
    s.send_msgs = D->nsend;
    if (mine) *mine = s;
    enum { NF = sizeof(spmv_mpi_stats) / sizeof(int64_t) };
    int64_t in[NF], out[NF];
    memcpy(in, &s, sizeof in);
    int rc = MPI_Allreduce(in, out, NF, MPI_INT64_T, MPI_MAX, D->comm);
    if (rc == MPI_SUCCESS && max) memcpy(max, out, sizeof out);
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(in, out, NF, MPI_INT64_T, MPI_SUM, D->comm);
    if (rc == MPI_SUCCESS && sum) memcpy(sum, out, sizeof out);
    if (rc != MPI_SUCCESS) return smpi_mpi_err(D->rank, fn, "MPI_Allreduce", rc);
    return SPMV_OK;
}

spmv_status spmv_mpi_model_halo(const spmv_mpi_stats *s, double latency, double bandwidth, double *seconds)
{
    const char *fn = "spmv_mpi_model_halo";
    smpi_clear_error();
    if (!s || !seconds) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument %s is NULL", fn, s ? "seconds" : "s");
    if (!(latency >= 0) || !(bandwidth > 0) || !isfinite(latency) || !isfinite(bandwidth))
        return smpi_err(-1, SPMV_ERR_ARG, "%s: latency = %g s, bandwidth = %g B/s (need >= 0 and > 0)", fn, latency,
                        bandwidth);
    double ts = s->send_msgs * latency + 8.0 * (double)s->send / bandwidth;
    double tr = s->recv_msgs * latency + 8.0 * (double)s->recv / bandwidth;
    *seconds = ts > tr ? ts : tr;
    return SPMV_OK;
}

spmv_status spmv_mpi_model_allreduce(int size, double latency, double *seconds)
{
    const char *fn = "spmv_mpi_model_allreduce";
    smpi_clear_error();
    if (!seconds) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument seconds is NULL", fn);
    if (size < 1 || !(latency >= 0) || !isfinite(latency))
        return smpi_err(-1, SPMV_ERR_ARG, "%s: size = %d, latency = %g s (need >= 1 and >= 0)", fn, size, latency);
    int rounds = 0;
    while ((1LL << rounds) < size) rounds++;
    *seconds = rounds * latency;
    return SPMV_OK;
}
