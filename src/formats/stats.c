/* Row-length statistics, bandwidth and profile of a CRS matrix. */
#include "internal.h"

spmv_status spmv_crs_get_stats(const spmv_crs *A, spmv_crs_stats *s)
{
    if (!A || !s) return spmv__error(SPMV_ERR_ARG, "spmv_crs_get_stats: argument %s is NULL", A ? "s" : "A");
    spmv_crs_stats r = {0};
    r.nzr_min = A->rows > 0 ? INT32_MAX : 0;
    for (int32_t i = 0; i < A->rows; i++) {
        int64_t k0 = A->rowptr[i], k1 = A->rowptr[i + 1];
        int32_t len = (int32_t)(k1 - k0);
        if (len < r.nzr_min) r.nzr_min = len;
        if (len > r.nzr_max) r.nzr_max = len;
        if (len == 0) {
            r.empty_rows++;
            continue;
        }
        /* columns sorted: the extremes are the first and last entry */
        int64_t lo = A->col[k0], hi = A->col[k1 - 1];
        int64_t bw = i - lo > hi - i ? i - lo : hi - i;
        if (bw > r.bandwidth) r.bandwidth = bw;
        if (i > lo) r.profile += i - lo;
    }
    r.nzr_mean = A->rows > 0 ? (double)A->nnz / A->rows : 0.0;
    *s = r;
    return SPMV_OK;
}
