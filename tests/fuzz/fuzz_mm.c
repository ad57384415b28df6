/* libFuzzer harness: the Matrix Market reader (spmv_crs_read_mm: spmv's pre-scan, then SuiteSparse CHOLMOD).
 * The input is written to a file and read. A rejected file must leave a printable message and no matrix; an
 * accepted one must be a valid CRS matrix (sorted, in range, consistent partition), write out and read back
 * identically (spmv_crs_write_mm), and multiply like a plain loop over its arrays, as CRS and as SELL-C-sigma.
 * Seeds: ../shared/matrices/mm-edge (scripts/fuzz.sh). */
#include "fuzz_common.h"

#include <math.h>

/* Declared sizes above this are skipped: an empty 2^31-row matrix legitimately needs 16 GB of row offsets, which
 * says nothing about the parser (the limits themselves are tested in tests/test_mmio.c). */
#define FZ_MM_MAX_DIM (1 << 20)

static int mm_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The first two numbers of the size line as the reader will see them (saturated at 2^62), or -1 where unclear. */
static void mm_declared(const uint8_t *d, size_t n, int64_t dims[2])
{
    dims[0] = dims[1] = -1;
    size_t i = 0;
    int state = 0; /* 0: before the banner, 1: before the size line */
    while (i < n) {
        size_t e = i;
        while (e < n && d[e] != '\n') e++;
        size_t s = i;
        if (s == 0 && e >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) s = 3;
        while (s < e && mm_ws(d[s])) s++;
        if (s < e) {
            if (state == 0) {
                state = 1;
            } else if (d[s] != '%') {
                for (int t = 0; t < 2 && s < e; t++) {
                    if (d[s] == '+') s++;
                    int64_t v = 0;
                    int digits = 0;
                    while (s < e && d[s] >= '0' && d[s] <= '9') {
                        v = v > ((int64_t)1 << 58) ? (int64_t)1 << 62 : 10 * v + (d[s] - '0');
                        s++, digits++;
                    }
                    if (digits) dims[t] = v;
                    while (s < e && mm_ws(d[s])) s++;
                }
                return;
            }
        }
        i = e + 1;
    }
}

static double val_at(const spmv_crs *A, int64_t k) { return A->val ? A->val[k] : 1.0; }

static void check_crs(const spmv_crs *A)
{
    FZ_CHECK(A->rows >= 0 && A->cols >= 0 && A->nnz >= 0, "%d x %d, nnz %lld", A->rows, A->cols, (long long)A->nnz);
    FZ_CHECK(A->rowptr && A->rowptr[0] == 0 && A->rowptr[A->rows] == A->nnz, "rowptr ends");
    FZ_CHECK(A->nnz == 0 || A->col, "col NULL with nnz %lld", (long long)A->nnz);
    for (int32_t i = 0; i < A->rows; i++) {
        FZ_CHECK(A->rowptr[i] <= A->rowptr[i + 1], "rowptr decreases at row %d", i);
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            FZ_CHECK(A->col[k] >= 0 && A->col[k] < A->cols, "row %d: column %d of %d", i, A->col[k], A->cols);
            FZ_CHECK(k == A->rowptr[i] || A->col[k - 1] < A->col[k], "row %d: columns not increasing", i);
        }
    }
    FZ_CHECK(A->nparts >= 1 && A->part && A->split, "partition: %d parts", A->nparts);
    FZ_CHECK(A->part[0] == 0 && A->part[A->nparts] == A->rows && A->split[0] == 0 && A->split[A->nparts] == A->nnz,
             "partition ends");
    for (int32_t t = 0; t < A->nparts; t++)
        FZ_CHECK(A->part[t] <= A->part[t + 1] && A->split[t] <= A->split[t + 1], "partition part %d", t);
}

static int same_value(double a, double b) { return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof a); }

/* y of A*x (CRS or SELL) against the plain loop; rows whose |A||x| is not finite are not compared (their sum
 * depends on the order of the additions once it overflows) */
static void check_product(const spmv_crs *A, const double *x, const double *y, const char *what)
{
    for (int32_t i = 0; i < A->rows; i++) {
        double s = 0, abs = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            s += val_at(A, k) * x[A->col[k]];
            abs += fabs(val_at(A, k) * x[A->col[k]]);
        }
        if (!isfinite(abs)) continue;
        FZ_CHECK(fabs(y[i] - s) <= 1e-12 * abs, "%s: row %d: %.17g, the plain loop %.17g", what, i, y[i], s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t dims[2];
    mm_declared(data, size, dims);
    if (dims[0] > FZ_MM_MAX_DIM || dims[1] > FZ_MM_MAX_DIM) return 0;
    const char *path = fz_tmp_path(0, "mm");
    if (fz_write_file(path, data, size)) return 0;

    spmv_crs *A = (spmv_crs *)&A; /* must be set to NULL on failure */
    spmv_status st = spmv_crs_read_mm(path, &A);
    if (st != SPMV_OK) {
        FZ_CHECK(A == NULL, "failed read (status %d) left a matrix", (int)st);
        FZ_CHECK(st == SPMV_ERR_PARSE || st == SPMV_ERR_UNSUPPORTED || st == SPMV_ERR_OVERFLOW ||
                 st == SPMV_ERR_NOMEM, "status %d (%s)", (int)st, spmv_strerror(st));
        fz_check_message(st);
        return 0;
    }
    FZ_CHECK(A != NULL, "no matrix");
    check_crs(A);

    /* the writer and the reader agree: the same structure, every value bit for bit (NaN as NaN) */
    const char *out = fz_tmp_path(1, "mm-out");
    FZ_CHECK(spmv_crs_write_mm(A, out) == SPMV_OK, "write");
    spmv_crs *B = NULL;
    FZ_CHECK(spmv_crs_read_mm(out, &B) == SPMV_OK, "reading back what spmv_crs_write_mm wrote");
    FZ_CHECK(B->rows == A->rows && B->cols == A->cols && B->nnz == A->nnz, "shape read back");
    FZ_CHECK(!memcmp(B->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr), "rowptr read back");
    for (int64_t k = 0; k < A->nnz; k++) {
        FZ_CHECK(B->col[k] == A->col[k], "column of entry %lld read back", (long long)k);
        FZ_CHECK(same_value(val_at(B, k), val_at(A, k)), "entry %lld: %.17g read back as %.17g", (long long)k,
                 val_at(A, k), val_at(B, k));
    }
    spmv_crs_free(B);

    /* multiply: CRS, and SELL-C-sigma at a chunk height and window chosen by the input */
    double *x = NULL, *y = NULL;
    if (spmv_vec_alloc(A->cols, &x) || spmv_vec_alloc(A->rows, &y)) abort();
    for (int32_t j = 0; j < A->cols; j++) x[j] = 1.0 + 0.25 * (j % 5);
    for (int32_t i = 0; i < A->rows; i++) y[i] = NAN; /* beta = 0: y is not read */
    FZ_CHECK(spmv_crs_mv(A, 1.0, x, 0.0, y) == SPMV_OK, "crs mv");
    check_product(A, x, y, "CRS");

    static const int32_t Cs[] = {1, 4, 8, 32};
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = Cs[size % 4];
    o.sigma = (size / 4) % 2 ? (A->rows > 0 ? A->rows : 1) : 1;
    spmv_sell *S = NULL;
    st = spmv_sell_from_crs(A, &o, &S);
    FZ_CHECK(st == SPMV_OK || st == SPMV_ERR_PADDING, "sell_from_crs C %d sigma %d: status %d", o.C, o.sigma,
             (int)st);
    if (S) {
        for (int32_t i = 0; i < A->rows; i++) y[i] = NAN;
        FZ_CHECK(spmv_sell_mv(S, 1.0, x, 0.0, y) == SPMV_OK, "sell mv");
        check_product(A, x, y, "SELL");
        spmv_sell_free(S);
    }
    spmv_vec_free(x);
    spmv_vec_free(y);
    spmv_crs_free(A);
    return 0;
}
