/* Symmetric permutation of a square CRS matrix: B = P A P^T, B[i][j] = A[perm[i]][perm[j]] (perm[new] = old). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Sort the paired arrays (c, v) of length n by c (distinct keys): insertion sort for short rows, heapsort for
 * long ones (in place, no allocation, O(n log n)). */
static void sift_down(int32_t *c, double *v, int64_t root, int64_t n)
{
    for (;;) {
        int64_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && c[child + 1] > c[child]) child++;
        if (c[root] >= c[child]) return;
        int32_t tc = c[root];
        c[root] = c[child];
        c[child] = tc;
        double tv = v[root];
        v[root] = v[child];
        v[child] = tv;
        root = child;
    }
}

static void sort_pairs(int32_t *c, double *v, int64_t n)
{
    if (n <= 32) {
        for (int64_t i = 1; i < n; i++) {
            int32_t kc = c[i];
            double kv = v[i];
            int64_t j = i - 1;
            while (j >= 0 && c[j] > kc) {
                c[j + 1] = c[j];
                v[j + 1] = v[j];
                j--;
            }
            c[j + 1] = kc;
            v[j + 1] = kv;
        }
        return;
    }
    for (int64_t i = n / 2 - 1; i >= 0; i--) sift_down(c, v, i, n);
    for (int64_t end = n - 1; end > 0; end--) {
        int32_t tc = c[0];
        c[0] = c[end];
        c[end] = tc;
        double tv = v[0];
        v[0] = v[end];
        v[end] = tv;
        sift_down(c, v, 0, end);
    }
}

spmv_status spmv_crs_permute(const spmv_crs *A, const int32_t *perm, spmv_crs **Bout)
{
    static const char fn[] = "spmv_crs_permute";
    if (!Bout) return spmv__error(SPMV_ERR_ARG, "%s: argument B is NULL", fn);
    *Bout = NULL;
    if (!A) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    if (A->rows != A->cols)
        return spmv__error(SPMV_ERR_ARG, "%s: A must be square, it is %d x %d", fn, A->rows, A->cols);
    const int32_t n = A->rows;
    if (n < 0) return spmv__error(SPMV_ERR_ARG, "%s: A is %d x %d (negative size)", fn, A->rows, A->cols);
    if (!A->rowptr) return spmv__error(SPMV_ERR_ARG, "%s: A->rowptr is NULL", fn);
    if (A->nnz > 0 && (!A->col || !A->val))
        return spmv__error(SPMV_ERR_ARG, "%s: A->col or A->val is NULL with nnz = %lld", fn, (long long)A->nnz);
    if (n > 0 && !perm) return spmv__error(SPMV_ERR_ARG, "%s: argument perm is NULL", fn);

    int32_t *iperm = spmv__malloc((size_t)n * sizeof *iperm);
    if (n > 0 && !iperm) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for the inverse of perm", fn);

    /* perm must be a bijection on 0..n-1: name the first bad entry */
    for (int32_t i = 0; i < n; i++) iperm[i] = -1;
    for (int32_t i = 0; i < n; i++) {
        int32_t p = perm[i];
        if (p < 0 || p >= n) {
            spmv__free(iperm);
            return spmv__error(SPMV_ERR_ARG, "%s: perm[%d] = %d is outside 0..%d", fn, i, p, n - 1);
        }
        if (iperm[p] >= 0) {
            int32_t first = iperm[p];
            spmv__free(iperm);
            return spmv__error(SPMV_ERR_ARG, "%s: perm is not a bijection: perm[%d] = %d repeats perm[%d]", fn, i, p,
                               first);
        }
        iperm[p] = i;
    }

    spmv_crs *B = NULL;
    spmv_status st = spmv__crs_alloc(n, n, A->nnz, &B);
    if (st != SPMV_OK) {
        spmv__free(iperm);
        return st;
    }

    B->rowptr[0] = 0;
    for (int32_t i = 0; i < n; i++) B->rowptr[i + 1] = B->rowptr[i] + (A->rowptr[perm[i] + 1] - A->rowptr[perm[i]]);

#pragma omp parallel for schedule(dynamic, 256) if (A->nnz >= ((int64_t)1 << 15)) num_threads(spmv__max_threads())
    for (int32_t i = 0; i < n; i++) {
        int64_t src = A->rowptr[perm[i]], len = A->rowptr[perm[i] + 1] - src, dst = B->rowptr[i];
        for (int64_t k = 0; k < len; k++) {
            B->col[dst + k] = iperm[A->col[src + k]];
            B->val[dst + k] = A->val[src + k];
        }
        if (len > 1) sort_pairs(B->col + dst, B->val + dst, len);
    }
    spmv__free(iperm);

    st = spmv__crs_finish(B);
    if (st != SPMV_OK) {
        spmv_crs_free(B);
        return st;
    }
    *Bout = B;
    const char *v = getenv("SPMV_VERBOSE");
    if (v && *v && *v != '0')
        fprintf(stderr, "spmv: spmv_crs_permute: the new %d x %d matrix B = P A P^T works on vectors in the PERMUTED "
                        "order: x'[i] = x[perm[i]], y[perm[i]] = y'[i]; B times an original-order x is a wrong "
                        "result, not an error\n", B->rows, B->cols);
    return SPMV_OK;
}
