/* One rank's rows split into the local part (owned columns) and the remote part (halo columns, compressed), as
 * PETSc's MATMPIAIJ stores them (diagonal block A, off-diagonal block B with a compressed column map garray). */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- rows from CRS arrays */

static int32_t arrays_row(const smpi_rowsrc *s, int32_t i, int64_t *col, double *val)
{
    const smpi_arrays *a = s->ctx;
    int64_t b = a->rowptr[i], e = a->rowptr[i + 1];
    int32_t n = (int32_t)(e - b);
    if (a->col64) memcpy(col, a->col64 + b, (size_t)n * sizeof *col);
    else
        for (int32_t k = 0; k < n; k++) col[k] = a->col32[b + k];
    if (a->val) memcpy(val, a->val + b, (size_t)n * sizeof *val);
    else
        for (int32_t k = 0; k < n; k++) val[k] = 1.0;
    return n;
}

void smpi_rowsrc_arrays(smpi_rowsrc *s, const smpi_arrays *a, int64_t row0, int32_t nrows, int64_t cols)
{
    int64_t maxlen = 0;
    for (int32_t i = 0; i < nrows; i++)
        if (a->rowptr[i + 1] - a->rowptr[i] > maxlen) maxlen = a->rowptr[i + 1] - a->rowptr[i];
    s->row0 = row0;
    s->nrows = nrows;
    s->cols = cols;
    s->maxlen = (int32_t)(maxlen > INT32_MAX ? INT32_MAX : maxlen);
    s->row = arrays_row;
    s->ctx = a;
}

/* ---------------------------------------------------------------- helpers */

int smpi_owner(const int64_t *start, int size, int64_t c)
{
    int lo = 0, hi = size - 1; /* the last r with start[r] <= c */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (start[mid] <= c) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int32_t find_halo(const int64_t *h, int32_t n, int64_t c)
{
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (h[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void smpi_split_free(smpi_split *s)
{
    if (!s) return;
    free(s->lrowptr);
    free(s->lcol);
    free(s->lval);
    free(s->rrow);
    free(s->rrowptr);
    free(s->rcol);
    free(s->rval);
    free(s->halo_col);
    memset(s, 0, sizeof *s);
}

/* A growable list of remote columns. A small direct-mapped filter drops the repeats that neighbouring rows make
 * (a stencil's halo column is referenced by up to 9 consecutive-ish rows); sort + unique removes the rest. */
typedef struct collist {
    int64_t *v;
    size_t n, cap;
    int64_t recent[4096];
} collist;

static int collist_add(collist *l, int64_t c)
{
    size_t slot = (size_t)((uint64_t)c * 0x9e3779b97f4a7c15ull >> 52);
    if (l->recent[slot] == c) return 0;
    l->recent[slot] = c;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        int64_t *v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = c;
    return 0;
}

/* ---------------------------------------------------------------- the split */

spmv_status smpi_split_rows(const smpi_rowsrc *src, int64_t c0, int64_t c1, int stats_only, const int64_t *col_start,
                            int size, int rank, const char *fn, smpi_split *out)
{
    memset(out, 0, sizeof *out);
    spmv_status st = SPMV_OK;
    int32_t n = src->nrows, maxlen = src->maxlen > 0 ? src->maxlen : 1;
    int64_t *col = smpi_malloc((size_t)maxlen * sizeof *col);
    double *val = smpi_malloc((size_t)maxlen * sizeof *val);
    int64_t *per_owner = NULL; /* rows with entries in each rank's columns (symmetry-derived sends) */
    int *mark = NULL;          /* owners already counted for the current row: mark[q] = row + 1 */
    collist *rc = calloc(1, sizeof *rc);
    if (!col || !val || !rc) goto nomem;
    for (int k = 0; k < 4096; k++) rc->recent[k] = -1;
    if (col_start) {
        per_owner = calloc((size_t)size, sizeof *per_owner);
        mark = calloc((size_t)size, sizeof *mark);
        if (!per_owner || !mark) goto nomem;
    }
    if (!stats_only) {
        out->lrowptr = calloc((size_t)n + 1, sizeof *out->lrowptr);
        if (!out->lrowptr) goto nomem;
    }

    /* pass 1: check columns, count local and remote entries per row, collect the remote columns */
    int64_t nl = 0, nr = 0, nrr = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t len = src->row(src, i, col, val), rl = 0;
        for (int32_t k = 0; k < len; k++) {
            int64_t c = col[k];
            if (c < 0 || c >= src->cols) {
                st = smpi_err(rank, SPMV_ERR_ARG, "%s: column %lld (position %d of global row %lld) outside 0..%lld",
                              fn, (long long)c, k, (long long)(src->row0 + i), (long long)src->cols - 1);
                goto fail;
            }
            if (c >= c0 && c < c1) continue;
            rl++;
            if (collist_add(rc, c)) goto nomem;
            if (per_owner) {
                int q = smpi_owner(col_start, size, c);
                if (mark[q] != i + 1) {
                    mark[q] = i + 1;
                    per_owner[q]++;
                }
            }
        }
        nl += len - rl;
        nr += rl;
        nrr += rl > 0;
        if (out->lrowptr) out->lrowptr[i + 1] = nl;
    }
    /* the halo: distinct remote columns, increasing */
    if (rc->n > 1) qsort(rc->v, rc->n, sizeof *rc->v, cmp_i64);
    size_t nh = 0;
    for (size_t k = 0; k < rc->n; k++)
        if (nh == 0 || rc->v[k] != rc->v[nh - 1]) rc->v[nh++] = rc->v[k];
    if (nh > INT32_MAX) {
        st = smpi_err(rank, SPMV_ERR_OVERFLOW, "%s: %zu halo columns, more than the 32-bit limit %d", fn, nh,
                      INT32_MAX);
        goto fail;
    }
    out->nhalo = (int32_t)nh;
    out->halo_col = rc->v; /* shrink: keep only the distinct ones */
    rc->v = NULL;
    if (nh > 0) {
        int64_t *v = realloc(out->halo_col, nh * sizeof *v);
        if (v) out->halo_col = v;
    }
    out->nrr = (int32_t)nrr;
    out->st.rows = n;
    out->st.nnz = nl + nr;
    out->st.nnz_local = nl;
    out->st.nnz_remote = nr;
    out->st.remote_rows = nrr;
    out->st.recv = (int64_t)nh;
    if (col_start) {
        for (size_t k = 0; k < nh; k++)
            if (k == 0 || smpi_owner(col_start, size, out->halo_col[k]) !=
                              smpi_owner(col_start, size, out->halo_col[k - 1]))
                out->st.recv_msgs++;
        for (int q = 0; q < size; q++) {
            out->st.send += per_owner[q];
            out->st.send_msgs += per_owner[q] > 0;
        }
    }
    if (stats_only) goto done;

    /* pass 2: fill both parts */
    out->lcol = smpi_malloc((size_t)nl * sizeof *out->lcol);
    out->lval = smpi_malloc((size_t)nl * sizeof *out->lval);
    out->rrow = smpi_malloc((size_t)nrr * sizeof *out->rrow);
    out->rrowptr = calloc((size_t)nrr + 1, sizeof *out->rrowptr);
    out->rcol = smpi_malloc((size_t)nr * sizeof *out->rcol);
    out->rval = smpi_malloc((size_t)nr * sizeof *out->rval);
    if ((nl && (!out->lcol || !out->lval)) || (nrr && !out->rrow) || !out->rrowptr ||
        (nr && (!out->rcol || !out->rval)))
        goto nomem;
    int64_t pl = 0, pr = 0;
    int32_t ir = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t len = src->row(src, i, col, val);
        int64_t pr0 = pr;
        for (int32_t k = 0; k < len; k++) {
            int64_t c = col[k];
            if (c >= c0 && c < c1) {
                out->lcol[pl] = (int32_t)(c - c0);
                out->lval[pl++] = val[k];
            } else {
                out->rcol[pr] = find_halo(out->halo_col, out->nhalo, c);
                out->rval[pr++] = val[k];
            }
        }
        if (pr > pr0) {
            out->rrow[ir] = i;
            out->rrowptr[++ir] = pr;
        }
    }
    goto done;

nomem:
    st = smpi_err(rank, SPMV_ERR_NOMEM, "%s: out of memory splitting %d rows into local and remote parts", fn, n);
fail:
    smpi_split_free(out);
done:
    if (rc) free(rc->v);
    free(rc);
    free(col);
    free(val);
    free(per_owner);
    free(mark);
    return st;
}
