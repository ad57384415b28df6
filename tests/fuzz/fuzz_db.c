/* libFuzzer harness: the tuning-database reader (src/tune/db.c, spmv_tune_db_read) and what uses its records. A
 * rejected file must leave a printable message and no records; accepted records must be in range, import as wisdom
 * (spmv_wisdom_import) and be found again, store (spmv_tune_db_store) as a file that reads back to the same record,
 * and, applied as the recorded choice for a small matrix (the record moved to this machine and that matrix), give a
 * SELL-C-sigma matrix that multiplies correctly, or a clean refusal. Seeds: tests/fuzz/seeds/db. */
#include "fuzz_common.h"

#include <math.h>

static spmv_crs *A;
static spmv_tune_host host;
static spmv_tune_fingerprint fp;

static void setup(void)
{
    if (A) return;
    if (spmv_gen_laplace2d(7, 5, &A) || spmv_tune_host_get(&host) || spmv_tune_fingerprint_get(A, &fp)) abort();
}

/* what the writer makes of free text (blanks for '#' and tabs, '?' for other control bytes) and the reader then of
 * the line (the ends trimmed) */
static void norm(char *dst, size_t size, const char *s, const char *empty)
{
    snprintf(dst, size, "%s", *s ? s : empty);
    for (char *p = dst; *p; p++)
        if (*p == '#' || *p == '\t') *p = ' ';
        else if ((unsigned char)*p < 32) *p = '?';
    char *b = dst;
    while (*b == ' ') b++;
    size_t n = strlen(b);
    while (n > 0 && b[n - 1] == ' ') n--;
    memmove(dst, b, n);
    dst[n] = '\0';
}

static int close6(double a, double b) { return a == b || fabs(a - b) <= 1e-5 * fabs(a); }

static void check_same(const spmv_tune_record *a, const spmv_tune_record *b)
{
    char x[160];
    norm(x, sizeof x, a->matrix, "matrix");
    FZ_CHECK(!strcmp(x, b->matrix), "label '%s' read back as '%s'", x, b->matrix);
    norm(x, sizeof x, a->host.cpu, "");
    FZ_CHECK(!strcmp(x, b->host.cpu), "cpu '%s' read back as '%s'", x, b->host.cpu);
    norm(x, sizeof x, a->date, "");
    FZ_CHECK(!strcmp(x, b->date), "date '%s' read back as '%s'", x, b->date);
    FZ_CHECK(!strcmp(a->host.isa, b->host.isa) && a->host.cores == b->host.cores, "host read back");
    FZ_CHECK(a->fp.rows == b->fp.rows && a->fp.cols == b->fp.cols && a->fp.nnz == b->fp.nnz &&
             a->fp.nzr_min == b->fp.nzr_min && a->fp.nzr_max == b->fp.nzr_max && a->fp.nzr_mean == b->fp.nzr_mean,
             "fingerprint read back (nzr mean %.17g as %.17g)", a->fp.nzr_mean, b->fp.nzr_mean);
    FZ_CHECK(a->permuted == b->permuted && a->C == b->C && a->sigma == b->sigma && a->rcm == b->rcm &&
             a->nthreads == b->nthreads, "choice read back");
    FZ_CHECK(a->has_variant == b->has_variant && (!a->has_variant || a->runs == b->runs) && a->xaccess == b->xaccess,
             "variant read back");
    FZ_CHECK(a->has_compression == b->has_compression &&
                 (!a->has_compression || (a->idx16 == b->idx16 && a->vidx == b->vidx)),
             "compression read back (%d %d %d as %d %d %d)", a->has_compression, a->idx16, a->vidx, b->has_compression,
             b->idx16, b->vidx);
    FZ_CHECK(a->has_nt == b->has_nt && (!a->has_nt || a->nt == b->nt), "non-temporal stores read back (%d %d as %d %d)",
             a->has_nt, a->nt, b->has_nt, b->nt);
    FZ_CHECK(close6(a->gflops, b->gflops) && close6(a->limit, b->limit) && close6(a->crs_gflops, b->crs_gflops) &&
             close6(a->t_convert, b->t_convert), "measurements read back");
}

/* r as the recorded choice for A on this machine: C = 0 / sigma = 0 then take it (spmv_tune_auto_params) */
static void apply(const spmv_tune_record *r, const char *path)
{
    spmv_tune_record q = *r;
    q.host = host;
    q.fp = fp;
    unlink(path);
    FZ_CHECK(spmv_tune_db_store(path, &q) == SPMV_OK, "store for this machine");
    int32_t n = 0;
    FZ_CHECK(spmv_wisdom_import(path, &n) == SPMV_OK && n == 1, "import: %d records", n);
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = o.sigma = 0;
    o.permuted = q.permuted;
    spmv_sell *S = NULL;
    spmv_status st = spmv_sell_from_crs(A, &o, &S);
    spmv_wisdom_forget();
    if (st != SPMV_OK) {
        FZ_CHECK(st == SPMV_ERR_PADDING, "the recorded choice C = %d, sigma = %d, runs = %d (has %d): status %d",
                 q.C, q.sigma, q.runs, q.has_variant, (int)st);
        fz_check_message(st);
        return;
    }
    FZ_CHECK(S->C == q.C, "recorded C %d not used (%d)", q.C, S->C);
    double x[64], y[64], xp[64], yp[64], want[64];
    for (int32_t j = 0; j < A->cols; j++) x[j] = 1 + j % 3;
    for (int32_t i = 0; i < A->rows; i++) {
        want[i] = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) want[i] += A->val[k] * x[A->col[k]];
    }
    if (S->permuted) {
        FZ_CHECK(spmv_sell_permute_vec(S, x, xp) == SPMV_OK, "permute");
        FZ_CHECK(spmv_sell_mv(S, 1.0, xp, 0.0, yp) == SPMV_OK, "mv");
        FZ_CHECK(spmv_sell_unpermute_vec(S, yp, y) == SPMV_OK, "unpermute");
    } else {
        FZ_CHECK(spmv_sell_mv(S, 1.0, x, 0.0, y) == SPMV_OK, "mv");
    }
    for (int32_t i = 0; i < A->rows; i++) FZ_CHECK(y[i] == want[i], "row %d: %g, want %g", i, y[i], want[i]);
    spmv_sell_free(S);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    const char *path = fz_tmp_path(0, "db");
    if (fz_write_file(path, data, size)) return 0;
    spmv_tune_record *recs = (spmv_tune_record *)&recs;
    int32_t n = -1;
    spmv_status st = spmv_tune_db_read(path, &recs, &n);
    if (st != SPMV_OK) {
        FZ_CHECK(recs == NULL && n == 0, "a failed read returned records");
        FZ_CHECK(st == SPMV_ERR_PARSE || st == SPMV_ERR_NOMEM, "status %d (%s)", (int)st, spmv_strerror(st));
        fz_check_message(st);
        int32_t k = -1;
        FZ_CHECK(spmv_wisdom_import(path, &k) == st && k == 0 && spmv_wisdom_count() == 0, "import of a bad file");
        return 0;
    }
    FZ_CHECK(n >= 0 && (n == 0 || recs), "%d records", n);
    for (int32_t i = 0; i < n; i++) {
        const spmv_tune_record *r = &recs[i];
        FZ_CHECK(r->C >= 1 && r->sigma >= 1 && r->nthreads >= 1 && r->nthreads <= 4096 &&
                 r->host.cores >= 1 && r->host.cpu[0] && r->host.isa[0], "record %d out of range", i);
        FZ_CHECK(memchr(r->matrix, 0, sizeof r->matrix) && memchr(r->date, 0, sizeof r->date) &&
                 memchr(r->host.cpu, 0, sizeof r->host.cpu), "record %d: unterminated text", i);
    }

    /* wisdom: every record imported, the last one found again */
    int32_t k = -1;
    FZ_CHECK(spmv_wisdom_import(path, &k) == SPMV_OK && k == n && spmv_wisdom_count() == n, "import %d of %d", k, n);
    if (n > 0) {
        spmv_tune_record r;
        int found = 0;
        FZ_CHECK(spmv_wisdom_find(&recs[n - 1].host, &recs[n - 1].fp, recs[n - 1].permuted, &r, &found) == SPMV_OK &&
                 found, "the last record is not found in the wisdom");
    }
    spmv_wisdom_forget();

    /* store and read back, one record per file; then as the recorded choice of a small matrix */
    const char *out = fz_tmp_path(1, "db-out");
    for (int32_t i = 0; i < n && i < 4; i++) {
        unlink(out);
        st = spmv_tune_db_store(out, &recs[i]);
        FZ_CHECK(st == SPMV_OK, "store of record %d: status %d", i, (int)st);
        spmv_tune_record *back = NULL;
        int32_t nb = 0;
        st = spmv_tune_db_read(out, &back, &nb);
        FZ_CHECK(st == SPMV_OK && nb == 1, "reading back the stored record %d: status %d, %d records", i, (int)st, nb);
        check_same(&recs[i], back);
        spmv_tune_db_free(back);
        apply(&recs[i], out);
    }
    spmv_tune_db_free(recs);
    return 0;
}
