/* New values for a built SELL-C-sigma matrix from CRS values with the same pattern (no rebuild). */
#include "internal.h"

spmv_status spmv_sell_update_values(spmv_sell *S, const spmv_crs *A)
{
    static const char fn[] = "spmv_sell_update_values";
    if (!S || !A) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, S ? "A" : "S");
    if (A->rows != S->rows || A->cols != S->cols || A->nnz != S->nnz)
        return spmv__error(SPMV_ERR_ARG, "%s: A is %d x %d with %lld nonzeros, S was built from %d x %d with %lld", fn,
                           A->rows, A->cols, (long long)A->nnz, S->rows, S->cols, (long long)S->nnz);
    /* columns are stored in permuted numbering when the matrix is square and the order permuted */
    const int32_t *cmap = S->permuted && S->rows == S->cols ? S->iperm : NULL;
    /* check the whole pattern first, so that a mismatch leaves S unchanged */
    for (int32_t i = 0; i < S->rows; i++) {
        int32_t r = S->perm[i], n = S->rowlen[i];
        int64_t src = A->rowptr[r], dst = S->chunkptr[i / S->C] + i % S->C;
        int bad = A->rowptr[r + 1] - src != n;
        for (int32_t j = 0; j < n && !bad; j++) {
            int32_t c = A->col[src + j];
            bad = (cmap ? cmap[c] : c) != S->col[dst + (int64_t)j * S->C];
        }
        if (bad) return spmv__error(SPMV_ERR_ARG, "%s: the pattern of row %d differs from the one S was built from", fn, r);
    }
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < S->rows; i++) {
        int64_t src = A->rowptr[S->perm[i]], dst = S->chunkptr[i / S->C] + i % S->C;
        for (int32_t j = 0; j < S->rowlen[i]; j++) S->val[dst + (int64_t)j * S->C] = A->val[src + j];
    }
    return SPMV_OK;
}
