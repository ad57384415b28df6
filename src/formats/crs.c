/* CRS: constructors (copying, borrowing, from COO), copy, free, thread partition. */
#include "internal.h"
#include "kernel.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

spmv_status spmv__crs_alloc(int32_t rows, int32_t cols, int64_t nnz, spmv_crs **out)
{
    spmv_crs *A = spmv__calloc(1, sizeof *A);
    if (!A) return spmv__error(SPMV_ERR_NOMEM, "out of memory for a %d x %d CRS matrix", rows, cols);
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    A->owns = 1;
    A->rowptr = spmv__calloc((size_t)rows + 1, sizeof *A->rowptr);
    A->col = spmv__malloc((size_t)nnz * sizeof *A->col);
    A->val = spmv__malloc((size_t)nnz * sizeof *A->val);
    if (!A->rowptr || (nnz > 0 && (!A->col || !A->val))) {
        spmv_crs_free(A);
        return spmv__error(SPMV_ERR_NOMEM, "out of memory for a %d x %d CRS matrix with %lld nonzeros", rows, cols,
                           (long long)nnz);
    }
    *out = A;
    return SPMV_OK;
}

spmv_status spmv_crs_set_threads(spmv_crs *A, int nthreads)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_set_threads: argument A is NULL");
    if (nthreads < 0 || nthreads > SPMV_MAX_THREADS)
        return spmv__error(SPMV_ERR_ARG, "spmv_crs_set_threads: nthreads = %d outside 0..%d", nthreads,
                           SPMV_MAX_THREADS);
    int32_t n = nthreads ? nthreads : spmv__auto_threads(A->nnz);
    if (n < 1) n = 1;
    int32_t *part = spmv__malloc(((size_t)n + 1) * sizeof *part);
    int64_t *split = spmv__malloc(((size_t)n + 1) * sizeof *split);
    if (!part || !split) {
        spmv__free(part);
        spmv__free(split);
        return spmv__error(SPMV_ERR_NOMEM, "out of memory for a %d-thread partition", n);
    }
    spmv__merge_partition(A->rowptr, A->rows, n, part, split);
    spmv__free(A->part);
    spmv__free(A->split);
    A->part = part;
    A->split = split;
    A->nparts = n;
    return SPMV_OK;
}

spmv_status spmv__crs_finish(spmv_crs *A)
{
    if (!A->part) {
        spmv_status st = spmv_crs_set_threads(A, 0);
        if (st) return st;
    }
    A->kernel = spmv__crs_kernel(A);
    return A->kernel ? SPMV_OK : spmv__arch_status() ? spmv__arch_status() : SPMV_ERR_ARCH;
}

void spmv_crs_free(spmv_crs *A)
{
    if (!A) return;
    if (A->owns) {
        spmv__free(A->rowptr);
        spmv__free(A->col);
        spmv__free(A->val);
    }
    spmv__free(A->part);
    spmv__free(A->split);
    spmv__free(A);
}

/* Check rowptr (length rows+1) and col (length rowptr[rows]) of a would-be CRS matrix; *sorted = 1 when columns
 * are strictly increasing in every row. */
static spmv_status check_arrays(const char *fn, int32_t rows, int32_t cols, const int64_t *rowptr,
                                const int32_t *col, int *sorted)
{
    if (rows < 0 || cols < 0)
        return spmv__error(SPMV_ERR_ARG, "%s: size %d x %d is negative", fn, rows, cols);
    if (!rowptr) return spmv__error(SPMV_ERR_ARG, "%s: argument rowptr is NULL", fn);
    if (rowptr[0] != 0)
        return spmv__error(SPMV_ERR_ARG, "%s: rowptr[0] = %lld, must be 0", fn, (long long)rowptr[0]);
    for (int32_t i = 0; i < rows; i++)
        if (rowptr[i + 1] < rowptr[i])
            return spmv__error(SPMV_ERR_ARG, "%s: rowptr decreases at row %d (%lld > %lld)", fn, i,
                               (long long)rowptr[i], (long long)rowptr[i + 1]);
    if (rowptr[rows] > 0 && !col) return spmv__error(SPMV_ERR_ARG, "%s: argument col is NULL", fn);
    *sorted = 1;
    for (int32_t i = 0; i < rows; i++)
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
            if (col[k] < 0 || col[k] >= cols)
                return spmv__error(SPMV_ERR_ARG, "%s: col[%lld] = %d (row %d) out of range 0..%d", fn, (long long)k,
                                   col[k], i, cols - 1);
            if (k > rowptr[i] && col[k] <= col[k - 1]) *sorted = 0;
        }
    return SPMV_OK;
}

/* Fill col/val of A (rowptr set, partition set) from src arrays laid out exactly like A, first touch by the
 * thread partition; vals NULL means a pattern (1.0). */
static void copy_by_partition(spmv_crs *A, const int32_t *col, const double *val)
{
#pragma omp parallel num_threads(A->nparts)
    {
#ifdef _OPENMP
        int t0 = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        int t0 = 0, nt = 1;
#endif
        /* each part copies its own entries (first touch by the kernel's partition); the runtime may give fewer
         * threads than parts: every part is still copied */
        for (int t = t0; t < A->nparts; t += nt) {
            int64_t k0 = A->split[t], k1 = A->split[t + 1];
            if (k1 > k0) {
                memcpy(A->col + k0, col + k0, (size_t)(k1 - k0) * sizeof *col);
                if (val)
                    memcpy(A->val + k0, val + k0, (size_t)(k1 - k0) * sizeof *val);
                else
                    for (int64_t k = k0; k < k1; k++) A->val[k] = 1.0;
            }
        }
    }
}

/* COO (0-based, validated) -> CRS sorted by (row, col), duplicates summed in their input order: two stable
 * counting sorts (by column, then by row), as CSparse's transpose-twice. */
static spmv_status coo_to_crs(int32_t rows, int32_t cols, int64_t nnz, const int32_t *ri, const int32_t *cj,
                              const double *v, int32_t base, spmv_crs **out)
{
    spmv_status st = SPMV_ERR_NOMEM;
    int64_t *cnt = NULL, *byc = NULL, *rp = NULL;
    int32_t *c2 = NULL;
    double *v2 = NULL;
    spmv_crs *A = NULL;
    cnt = spmv__calloc((size_t)cols + 1, sizeof *cnt);
    byc = spmv__malloc((size_t)nnz * sizeof *byc);
    rp = spmv__calloc((size_t)rows + 1, sizeof *rp);
    c2 = spmv__malloc((size_t)nnz * sizeof *c2);
    v2 = spmv__malloc((size_t)nnz * sizeof *v2);
    if (!cnt || !rp || (nnz > 0 && (!byc || !c2 || !v2))) {
        spmv__error(st, "out of memory building a %d x %d CRS matrix from %lld entries", rows, cols, (long long)nnz);
        goto done;
    }
    /* stable sort of entry numbers by column */
    for (int64_t k = 0; k < nnz; k++) cnt[cj[k] - base + 1]++;
    for (int32_t j = 0; j < cols; j++) cnt[j + 1] += cnt[j];
    for (int64_t k = 0; k < nnz; k++) byc[cnt[cj[k] - base]++] = k;
    /* stable sort by row of the column-sorted entries: (row, col) order, input order among duplicates */
    for (int64_t k = 0; k < nnz; k++) rp[ri[k] - base + 1]++;
    for (int32_t i = 0; i < rows; i++) rp[i + 1] += rp[i];
    for (int64_t q = 0; q < nnz; q++) {
        int64_t k = byc[q], d = rp[ri[k] - base]++;
        c2[d] = cj[k] - base;
        v2[d] = v ? v[k] : 1.0;
    }
    /* rp[i] is now the end of row i; sum duplicates in place, building the final row offsets in rp */
    int64_t w = 0, start = 0;
    for (int32_t i = 0; i < rows; i++) {
        int64_t end = rp[i];
        int64_t row_start = w;
        for (int64_t k = start; k < end; k++) {
            if (w > row_start && c2[w - 1] == c2[k])
                v2[w - 1] += v2[k];
            else {
                c2[w] = c2[k];
                v2[w] = v2[k];
                w++;
            }
        }
        start = end;
        rp[i] = w;
    }
    st = spmv__crs_alloc(rows, cols, w, &A);
    if (st) goto done;
    for (int32_t i = 0; i < rows; i++) A->rowptr[i + 1] = rp[i];
    st = spmv_crs_set_threads(A, 0);
    if (st) goto done;
    copy_by_partition(A, c2, v2);
    st = spmv__crs_finish(A);
done:
    if (st) spmv_crs_free(A);
    else *out = A;
    spmv__free(cnt);
    spmv__free(byc);
    spmv__free(rp);
    spmv__free(c2);
    spmv__free(v2);
    return st;
}

spmv_status spmv_crs_from_coo(int32_t rows, int32_t cols, int64_t nnz, const int32_t *row, const int32_t *col,
                              const double *val, int base, spmv_crs **A)
{
    const char *fn = "spmv_crs_from_coo";
    if (!A) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    *A = NULL;
    if (rows < 0 || cols < 0) return spmv__error(SPMV_ERR_ARG, "%s: size %d x %d is negative", fn, rows, cols);
    if (nnz < 0) return spmv__error(SPMV_ERR_ARG, "%s: nnz = %lld is negative", fn, (long long)nnz);
    if (base != 0 && base != 1) return spmv__error(SPMV_ERR_ARG, "%s: base = %d, must be 0 or 1", fn, base);
    if (nnz > 0 && (!row || !col))
        return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, row ? "col" : "row");
    for (int64_t k = 0; k < nnz; k++) {
        if (row[k] < base || row[k] - base >= rows)
            return spmv__error(SPMV_ERR_ARG, "%s: row[%lld] = %d out of range %d..%d", fn, (long long)k, row[k], base,
                               rows - 1 + base);
        if (col[k] < base || col[k] - base >= cols)
            return spmv__error(SPMV_ERR_ARG, "%s: col[%lld] = %d out of range %d..%d", fn, (long long)k, col[k], base,
                               cols - 1 + base);
    }
    return coo_to_crs(rows, cols, nnz, row, col, val, base, A);
}

spmv_status spmv_crs_from_arrays(int32_t rows, int32_t cols, const int64_t *rowptr, const int32_t *col,
                                 const double *val, spmv_crs **A)
{
    const char *fn = "spmv_crs_from_arrays";
    if (!A) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    *A = NULL;
    int sorted;
    spmv_status st = check_arrays(fn, rows, cols, rowptr, col, &sorted);
    if (st) return st;
    int64_t nnz = rowptr[rows];
    if (!sorted) {
        /* unsorted or repeated columns: go through COO, which sorts and sums */
        int32_t *ri = spmv__malloc((size_t)nnz * sizeof *ri);
        if (!ri) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %lld row indices", fn, (long long)nnz);
        for (int32_t i = 0; i < rows; i++)
            for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) ri[k] = i;
        st = coo_to_crs(rows, cols, nnz, ri, col, val, 0, A);
        spmv__free(ri);
        return st;
    }
    spmv_crs *B = NULL;
    st = spmv__crs_alloc(rows, cols, nnz, &B);
    if (st) return st;
    memcpy(B->rowptr, rowptr, ((size_t)rows + 1) * sizeof *rowptr);
    st = spmv_crs_set_threads(B, 0);
    if (!st) {
        copy_by_partition(B, col, val);
        st = spmv__crs_finish(B);
    }
    if (st) {
        spmv_crs_free(B);
        return st;
    }
    *A = B;
    return SPMV_OK;
}

spmv_status spmv_crs_wrap(int32_t rows, int32_t cols, int64_t *rowptr, int32_t *col, double *val, spmv_crs **A)
{
    const char *fn = "spmv_crs_wrap";
    if (!A) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    *A = NULL;
    int sorted;
    spmv_status st = check_arrays(fn, rows, cols, rowptr, col, &sorted);
    if (st) return st;
    if (!sorted)
        return spmv__error(SPMV_ERR_ARG,
                           "%s: columns are not strictly increasing within every row (use spmv_crs_from_arrays, "
                           "which sorts and sums duplicates)", fn);
    if (rowptr[rows] > 0 && !val) return spmv__error(SPMV_ERR_ARG, "%s: argument val is NULL", fn);
    spmv_crs *B = spmv__calloc(1, sizeof *B);
    if (!B) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory", fn);
    B->rows = rows;
    B->cols = cols;
    B->nnz = rowptr[rows];
    B->rowptr = rowptr;
    B->col = col;
    B->val = val;
    B->owns = 0;
    st = spmv__crs_finish(B);
    if (st) {
        spmv_crs_free(B);
        return st;
    }
    *A = B;
    return SPMV_OK;
}

spmv_status spmv_crs_copy(const spmv_crs *A, spmv_crs **B)
{
    if (!B) return spmv__error(SPMV_ERR_ARG, "spmv_crs_copy: argument B is NULL");
    *B = NULL;
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_copy: argument A is NULL");
    spmv_crs *C = NULL;
    spmv_status st = spmv__crs_alloc(A->rows, A->cols, A->nnz, &C);
    if (st) return st;
    memcpy(C->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr);
    st = spmv_crs_set_threads(C, A->nparts);
    if (!st) {
        copy_by_partition(C, A->col, A->val);
        st = spmv__crs_finish(C);
    }
    if (st) {
        spmv_crs_free(C);
        return st;
    }
    *B = C;
    return SPMV_OK;
}
