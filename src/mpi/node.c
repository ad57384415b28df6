/* The node-level multiply of a rank's local part, through the public API of spmv.h only.
 *
 * This file is the one place that chooses the node-level format and calls its multiply. When the library gets its
 * planned inspector-executor handle (DESIGN.md, "Where the design is going": create from CRS -> hints -> optimize ->
 * multiply), smpi_node_build becomes "create + optimize" and smpi_node_mv / smpi_node_mv_dot the handle's multiply;
 * nothing else in spmv::mpi changes. */
#include "mpi_internal.h"
#include "spmv_tune.h" /* the tuner's types: imported wisdom for the AUTO format */

#include <stdio.h>

/* AUTO: SELL-C-sigma with the library's automatic parameters, unless imported wisdom (spmv_wisdom_import: spmv-tune's
 * record for this very local part on this machine) says CRS was faster (crs_gflops above gflops), or the part is
 * empty. No file is read here. */
static int auto_wants_crs(const spmv_crs *L)
{
    if (L->nnz == 0) return 1;
    spmv_tune_host h;
    spmv_tune_fingerprint f;
    spmv_tune_record r;
    int found = 0;
    if (spmv_tune_host_get(&h) || spmv_tune_fingerprint_get(L, &f) || spmv_wisdom_find(&h, &f, 0, &r, &found))
        return 0; /* the library's defaults, as spmv_sell_from_crs does */
    return found && r.crs_gflops > 0 && r.gflops > 0 && r.crs_gflops > r.gflops;
}

spmv_status smpi_node_build(spmv_crs *L, const spmv_mpi_opts *o, int rank, const char *fn, spmv_crs **crs,
                            spmv_sell **sell)
{
    *crs = NULL;
    *sell = NULL;
    int use_crs = L->rows == 0 || o->format == SPMV_MPI_FORMAT_CRS ||
                  (o->format == SPMV_MPI_FORMAT_AUTO && auto_wants_crs(L));
    spmv_status st;
    if (use_crs) {
        st = spmv_crs_set_threads(L, o->nthreads);
        if (st) {
            spmv_crs_free(L);
            return smpi_core_err(rank, fn, st);
        }
        *crs = L;
        return SPMV_OK;
    }
    spmv_sell_opts so = spmv_sell_opts_default();
    so.C = o->format == SPMV_MPI_FORMAT_SELL ? o->C : 0;
    so.sigma = o->format == SPMV_MPI_FORMAT_SELL ? o->sigma : 0;
    so.permuted = 0; /* x and y in the original order: the halo exchange and the caller index them directly */
    so.nthreads = o->nthreads;
    st = spmv_tune_auto_params(L, &so, NULL); /* resolve C = 0 / sigma = 0 here */
    /* an identity perm (sigma = 1, no RCM, no long rows moved to the CRS part) needs nothing here: the kernels then
     * index y directly (spmv_sell.identity). Asking for the permuted order because sigma = 1 was wrong: the CRS part
     * of a hybrid moves the long rows to the end even then (test_mpi "SELL-8-1 with long rows"). */
    if (!st) st = spmv_sell_from_crs(L, &so, sell);
    spmv_crs_free(L);
    return st ? smpi_core_err(rank, fn, st) : SPMV_OK;
}

spmv_status smpi_node_mv(const spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y)
{
    if (D->local_sell) return spmv_sell_mv(D->local_sell, alpha, x, beta, y);
    return spmv_crs_mv(D->local_crs, alpha, x, beta, y);
}

spmv_status smpi_node_mv_dot(const spmv_mpi_matrix *D, double alpha, const double *x, double beta, double *y,
                             double *xy, double *yy)
{
    if (D->local_sell) return spmv_sell_mv_dot(D->local_sell, alpha, x, beta, y, xy, yy);
    return spmv_crs_mv_dot(D->local_crs, alpha, x, beta, y, xy, yy);
}

int64_t smpi_node_nnz(const spmv_mpi_matrix *D)
{
    return D->local_sell ? D->local_sell->nnz : D->local_crs ? D->local_crs->nnz : 0;
}

const char *spmv_mpi_kernel_name(const spmv_mpi_matrix *D)
{
    if (!D) return "none";
    if (D->local_sell) return spmv_sell_kernel_name(D->local_sell);
    if (D->local_crs) return spmv_crs_kernel_name(D->local_crs);
    return "none";
}
