/* Matrix Market reader and writer: the shared edge cases (mm-edge/EXPECTED.json), the real matrices
 * (REFERENCE_Y.json), hand-made files for every rejection rule, write -> read round trips, I/O and argument
 * errors, and out-of-memory at every allocation. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, opendir */
#include "internal.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------- */
/* helpers                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[512];
    if (!tmpdir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/spmv-mmio-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* Write len bytes (len < 0: strlen) to a file in the temporary folder; returns its path (static buffer). */
static const char *put_file(const char *name, const char *text, long len)
{
    const char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    if (!f) {
        perror(p);
        exit(2);
    }
    fwrite(text, 1, len < 0 ? strlen(text) : (size_t)len, f);
    fclose(f);
    return p;
}

/* x = [1, 2, ..., cols]; y = A*x in long double (tu_ref_mv), absax = |A||x|. Caller frees y, absax. */
static void mult_iota(const spmv_crs *A, double **y, double **absax)
{
    double *x = malloc(((size_t)A->cols + 1) * sizeof *x);
    *y = malloc(((size_t)A->rows + 1) * sizeof **y);
    *absax = malloc(((size_t)A->rows + 1) * sizeof **absax);
    for (int32_t j = 0; j < A->cols; j++) x[j] = j + 1;
    tu_ref_mv(A, x, *y, *absax);
    free(x);
}

/* y equals e within 1e-12 of the row's magnitude; NaN and infinities exactly. */
static int same_entry(double y, double e, double absax)
{
    if (isnan(e)) return isnan(y);
    if (isinf(e)) return y == e;
    double scale = fmax(absax, fabs(e));
    return isfinite(y) && fabs(y - e) <= 1e-12 * scale;
}

/* A(i, j), NaN when not stored. */
static double crs_at(const spmv_crs *A, int32_t i, int32_t j)
{
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->col[k] == j) return A->val[k];
    return NAN;
}

static int has_line(const char *msg, long line)
{
    char pat[32];
    snprintf(pat, sizeof pat, ":%ld:", line);
    return strstr(msg, pat) != NULL;
}

/* Reading text must fail with status st, naming the file and the line (line < 1: no line check). */
static void expect_reject_text(const char *text, spmv_status st, long line, const char *what)
{
    const char *p = put_file("reject.mtx", text, -1);
    spmv_crs *A = (spmv_crs *)&A; /* not NULL: the reader must clear it */
    spmv_status got = spmv_crs_read_mm(p, &A);
    const char *msg = spmv_last_error();
    int ok = got == st && A == NULL && strncmp(msg, p, strlen(p)) == 0 && (line < 1 || has_line(msg, line));
    if (!ok)
        printf("\n  %s: status %d (want %d), line %ld wanted, message \"%s\"", what, got, st, line, msg);
    CU_ASSERT(ok);
    if (got == SPMV_OK) spmv_crs_free(A);
    remove(p);
}

/* Reading text must succeed with the given shape and y = A*[1..cols] (exact). */
static void expect_y_text(const char *text, long len, int32_t rows, int32_t cols, int64_t nnz, const double *y_exp,
                          const char *what)
{
    const char *p = put_file("accept.mtx", text, len);
    spmv_crs *A = NULL;
    spmv_status st = spmv_crs_read_mm(p, &A);
    if (st != SPMV_OK) printf("\n  %s: %s", what, spmv_last_error());
    CU_ASSERT_EQUAL_FATAL(st, SPMV_OK);
    int ok = A->rows == rows && A->cols == cols && (nnz < 0 || A->nnz == nnz);
    if (!ok) printf("\n  %s: got %d x %d nnz %lld", what, A->rows, A->cols, (long long)A->nnz);
    CU_ASSERT(ok);
    if (ok) {
        double *y, *absax;
        mult_iota(A, &y, &absax);
        for (int32_t i = 0; i < rows; i++) {
            int same = isnan(y_exp[i]) ? isnan(y[i]) : y[i] == y_exp[i];
            if (!same) printf("\n  %s: y[%d] = %.17g, expected %.17g", what, i, y[i], y_exp[i]);
            CU_ASSERT(same);
        }
        free(y);
        free(absax);
    }
    spmv_crs_free(A);
    remove(p);
}

/* ---------------------------------------------------------------------------------------------- */
/* arguments and I/O                                                                               */
/* ---------------------------------------------------------------------------------------------- */

static void test_null_arguments(void)
{
    spmv_crs *A = (spmv_crs *)&A;
    CU_ASSERT_EQUAL(spmv_crs_read_mm(NULL, &A), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NULL(A);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "path"));
    CU_ASSERT_EQUAL(spmv_crs_read_mm("x.mtx", NULL), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_crs_write_mm(NULL, tmp_path("w.mtx")), SPMV_ERR_ARG);
    int32_t r[1] = {0}, c[1] = {0};
    double v[1] = {2.0};
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_coo(1, 1, 1, r, c, v, 0, &A), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_crs_write_mm(A, NULL), SPMV_ERR_ARG);
    spmv_crs_free(A);
}

static void test_nonexistent_file(void)
{
    const char *p = "/nonexistent-spmv-dir/missing.mtx";
    spmv_crs *A = (spmv_crs *)&A;
    CU_ASSERT_EQUAL(spmv_crs_read_mm(p, &A), SPMV_ERR_IO);
    CU_ASSERT_PTR_NULL(A);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), p));
    /* a folder opens but cannot be read */
    tmp_path("x");
    CU_ASSERT_EQUAL(spmv_crs_read_mm(tmpdir, &A), SPMV_ERR_IO);
    CU_ASSERT_PTR_NULL(A);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), tmpdir));
}

static void test_write_unwritable(void)
{
    int32_t r[2] = {0, 1}, c[2] = {1, 0};
    double v[2] = {1.5, -2.0};
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_coo(2, 2, 2, r, c, v, 0, &A), SPMV_OK);
    const char *p = "/nonexistent-spmv-dir/out.mtx";
    CU_ASSERT_EQUAL(spmv_crs_write_mm(A, p), SPMV_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), p));
    /* a folder is not writable as a file */
    tmp_path("x");
    CU_ASSERT_EQUAL(spmv_crs_write_mm(A, tmpdir), SPMV_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), tmpdir));
    spmv_crs_free(A);
}

/* Write safety (src/util/outfile.c): a failed write leaves what was there and removes nothing it did not create;
 * special files are written in place and never removed; a file's mode and symbolic links are kept. */
static int count_entries(const char *dir) /* files in dir, "." and ".." not counted */
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

static void test_write_safety(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(4, 4, 4, &A), SPMV_OK); /* 1000 entries, about 12 kB of text */
    char dir[600], p[700], q[700], buf[256];
    snprintf(dir, sizeof dir, "%s", tmp_path("safety"));
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
    struct stat sb;

    /* a device that is always full: an error naming it and the reason, and the device is still there */
    if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode) && access("/dev/full", W_OK) == 0) {
        CU_ASSERT_EQUAL(spmv_crs_write_mm(A, "/dev/full"), SPMV_ERR_IO);
        CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "/dev/full"));
        CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), strerror(ENOSPC)));
        CU_ASSERT(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode));
    }
    /* /dev/null takes everything and stays */
    if (access("/dev/null", W_OK) == 0) {
        CU_ASSERT_EQUAL(spmv_crs_write_mm(A, "/dev/null"), SPMV_OK);
        CU_ASSERT(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
    }

    /* an existing file: replaced whole, its mode kept, no temporary file left */
    snprintf(p, sizeof p, "%s/old.mtx", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("old\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(chmod(p, 0640), 0);
    CU_ASSERT_EQUAL(spmv_crs_write_mm(A, p), SPMV_OK);
    CU_ASSERT(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0640);
    slurp(p, buf, sizeof buf);
    CU_ASSERT(strncmp(buf, "%%MatrixMarket matrix coordinate real general\n64 64 1000\n", 53) == 0);
    CU_ASSERT_EQUAL(count_entries(dir), 1);

    /* the disk fills up during the write (a file size limit: EFBIG, as a full disk gives ENOSPC): the old file
     * is unchanged and the temporary file is gone */
    f = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("old\n", f);
    fclose(f);
    struct rlimit rl0, rl;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &rl0), 0);
    rl = rl0;
    rl.rlim_cur = 4096;
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &rl), 0);
    spmv_status st = spmv_crs_write_mm(A, p);
    setrlimit(RLIMIT_FSIZE, &rl0);
    signal(SIGXFSZ, old_handler);
    CU_ASSERT_EQUAL(st, SPMV_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), p));
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), strerror(EFBIG)));
    slurp(p, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "old\n");
    CU_ASSERT_EQUAL(count_entries(dir), 1);

    /* a symbolic link stays a link; the file it points to is replaced */
    snprintf(q, sizeof q, "%s/link.mtx", dir);
    CU_ASSERT_EQUAL_FATAL(symlink("old.mtx", q), 0);
    CU_ASSERT_EQUAL(spmv_crs_write_mm(A, q), SPMV_OK);
    CU_ASSERT(lstat(q, &sb) == 0 && S_ISLNK(sb.st_mode));
    slurp(p, buf, sizeof buf);
    CU_ASSERT(strncmp(buf, "%%MatrixMarket", 14) == 0);
    CU_ASSERT_EQUAL(count_entries(dir), 2);

    /* a folder that does not exist: the error names the path and the reason */
    snprintf(q, sizeof q, "%s/missing/x.mtx", dir);
    CU_ASSERT_EQUAL(spmv_crs_write_mm(A, q), SPMV_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), q));
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), strerror(ENOENT)));

    remove(q);
    snprintf(q, sizeof q, "%s/link.mtx", dir);
    remove(q);
    remove(p);
    rmdir(dir);
    spmv_crs_free(A);
}

/* ---------------------------------------------------------------------------------------------- */
/* round trips                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

static void roundtrip(const spmv_crs *A, const char *what)
{
    const char *p = tmp_path("roundtrip.mtx");
    CU_ASSERT_EQUAL_FATAL(spmv_crs_write_mm(A, p), SPMV_OK);
    spmv_crs *B = NULL;
    spmv_status st = spmv_crs_read_mm(p, &B);
    if (st) printf("\n  %s: %s", what, spmv_last_error());
    CU_ASSERT_EQUAL_FATAL(st, SPMV_OK);
    CU_ASSERT_EQUAL(B->rows, A->rows);
    CU_ASSERT_EQUAL(B->cols, A->cols);
    CU_ASSERT_EQUAL_FATAL(B->nnz, A->nnz);
    CU_ASSERT(memcmp(B->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr) == 0);
    if (A->nnz > 0) {
        CU_ASSERT(memcmp(B->col, A->col, (size_t)A->nnz * sizeof *A->col) == 0);
        /* bitwise: -0.0, subnormals, DBL_MAX and infinities come back exactly */
        int same = memcmp(B->val, A->val, (size_t)A->nnz * sizeof *A->val) == 0;
        for (int64_t k = 0; !same && k < A->nnz; k++)
            if (memcmp(&B->val[k], &A->val[k], sizeof(double)))
                printf("\n  %s: val[%lld] = %.17g, wrote %.17g", what, (long long)k, B->val[k], A->val[k]);
        CU_ASSERT(same);
    }
    spmv_crs_free(B);
    remove(p);
}

static void test_roundtrip_random(void)
{
    const int32_t rows = 300, cols = 257;
    const int64_t nnz = 4000;
    int32_t *r = malloc(nnz * sizeof *r), *c = malloc(nnz * sizeof *c);
    double *v = malloc(nnz * sizeof *v);
    static const double special[] = {DBL_MAX, -DBL_MAX, 1e308, -1.5e308, 4.9406564584124654e-324, -0.0, 0.0,
                                     INFINITY, -INFINITY, 0.1, 1.0 / 3.0, -2.2250738585072014e-308, 1e-300};
    const int nspecial = (int)(sizeof special / sizeof *special);
    uint64_t seed = 42;
    for (int64_t k = 0; k < nnz; k++) {
        r[k] = (int32_t)(tu_rand(&seed) % (uint64_t)(rows - 20)); /* the last 20 rows stay empty */
        c[k] = (int32_t)(tu_rand(&seed) % (uint64_t)cols);
        v[k] = k < nspecial ? special[k] : tu_rand_unit(&seed) * pow(10.0, (double)(tu_rand(&seed) % 40) - 20);
        if (k < nspecial) r[k] = (int32_t)k, c[k] = (int32_t)k; /* alone in their slot: no sums */
        else if (r[k] < nspecial) r[k] += nspecial;
    }
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_coo(rows, cols, nnz, r, c, v, 0, &A), SPMV_OK);
    roundtrip(A, "random 300 x 257");
    spmv_crs_free(A);
    free(r);
    free(c);
    free(v);
}

static void test_roundtrip_empty(void)
{
    static const int32_t shapes[][2] = {{0, 0}, {0, 5}, {4, 0}, {3, 3}};
    for (int s = 0; s < 4; s++) {
        spmv_crs *A = NULL;
        CU_ASSERT_EQUAL_FATAL(spmv_crs_from_coo(shapes[s][0], shapes[s][1], 0, NULL, NULL, NULL, 0, &A), SPMV_OK);
        roundtrip(A, "empty");
        spmv_crs_free(A);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* shared edge cases: every file in mm-edge/ has an expectation in EXPECTED.json                   */
/* ---------------------------------------------------------------------------------------------- */

static int complex_y(const json_t *y) { return json_is_array(y) && json_array_size(y) > 0 && json_is_array(json_array_get(y, 0)); }

static double json_y(const json_t *e)
{
    if (json_is_null(e)) return NAN;
    if (json_is_string(e)) return strcmp(json_string_value(e), "-inf") == 0 ? -INFINITY : INFINITY;
    return json_number_value(e);
}

static void test_edge_files(void)
{
    if (!tu_need_shared("mm-edge files (EXPECTED.json)")) return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", tu_shared("mm-edge"));
    char jp[4200];
    snprintf(jp, sizeof jp, "%s/EXPECTED.json", dir);
    json_t *root = tu_load_json(jp);

    /* every .mtx file is listed */
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".mtx") == 0) {
            files++;
            if (!json_object_get(root, e->d_name)) printf("\n  %s has no expectation", e->d_name);
            CU_ASSERT_PTR_NOT_NULL(json_object_get(root, e->d_name));
        }
    }
    closedir(d);
    CU_ASSERT(files >= 30);

    const char *name;
    json_t *ex;
    int checked = 0;
    json_object_foreach(root, name, ex)
    {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        const char *result = json_string_value(json_object_get(ex, "result"));
        json_t *yj = json_object_get(ex, "y");
        spmv_crs *A = (spmv_crs *)&A;
        spmv_status st = spmv_crs_read_mm(path, &A);
        const char *msg = spmv_last_error();
        if (result && strcmp(result, "reject") == 0) {
            long line = (long)json_integer_value(json_object_get(ex, "line"));
            int ok = st != SPMV_OK && st != SPMV_ERR_NOMEM && A == NULL && strstr(msg, path) && has_line(msg, line);
            if (!ok) printf("\n  %s: status %d, message \"%s\" (want line %ld)", name, st, msg, line);
            CU_ASSERT(ok);
        } else if (complex_y(yj)) {
            int ok = st == SPMV_ERR_UNSUPPORTED && A == NULL && strstr(msg, path) && has_line(msg, 1);
            if (!ok) printf("\n  %s: status %d, message \"%s\" (want unsupported, line 1)", name, st, msg);
            CU_ASSERT(ok);
        } else {
            if (st != SPMV_OK) printf("\n  %s: %s", name, msg);
            CU_ASSERT(st == SPMV_OK);
            if (st != SPMV_OK) continue;
            CU_ASSERT_EQUAL(A->rows, (int32_t)json_array_size(yj));
            if (A->rows == (int32_t)json_array_size(yj)) {
                double *y, *absax;
                mult_iota(A, &y, &absax);
                for (int32_t i = 0; i < A->rows; i++) {
                    double e = json_y(json_array_get(yj, (size_t)i));
                    if (!same_entry(y[i], e, absax[i])) {
                        printf("\n  %s: y[%d] = %.17g, expected %.17g", name, i, y[i], e);
                        CU_FAIL("y differs");
                    }
                }
                free(y);
                free(absax);
            }
            spmv_crs_free(A);
        }
        checked++;
    }
    CU_ASSERT(checked >= files);
    json_decref(root);
}

/* Stored counts the notes of EXPECTED.json give (expanded, duplicates summed, explicit zeros kept). */
static void test_edge_nnz(void)
{
    if (!tu_need_shared("mm-edge stored counts")) return;
    static const struct { const char *name; int64_t nnz; } cases[] = {
        {"sym_diag_once.mtx", 8}, {"sym_pattern_graph.mtx", 6}, {"skew_coord.mtx", 6}, {"explicit_zeros.mtx", 4},
        {"duplicates.mtx", 3},    {"empty_nnz0.mtx", 0},        {"sym_array.mtx", 9},  {"array_general.mtx", 6}};
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", tu_shared("mm-edge"), cases[t].name);
        spmv_crs *A = NULL;
        CU_ASSERT_EQUAL_FATAL(spmv_crs_read_mm(path, &A), SPMV_OK);
        if (A->nnz != cases[t].nnz) printf("\n  %s: nnz %lld, want %lld", cases[t].name, (long long)A->nnz,
                                           (long long)cases[t].nnz);
        CU_ASSERT_EQUAL(A->nnz, cases[t].nnz);
        spmv_crs_free(A);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* shared real matrices: REFERENCE_Y.json                                                          */
/* ---------------------------------------------------------------------------------------------- */

static int close_to(double got, double want, double scale)
{
    return fabs(got - want) <= 1e-12 * fmax(scale, fabs(want));
}

static void test_real_matrices(void)
{
    if (!tu_need_shared("real matrices (REFERENCE_Y.json)")) return;
    json_t *root = tu_load_json(tu_shared("REFERENCE_Y.json"));
    const char *name;
    json_t *ex;
    int n = 0;
    json_object_foreach(root, name, ex)
    {
        char path[4400];
        snprintf(path, sizeof path, "%s", tu_shared(name));
        spmv_crs *A = (spmv_crs *)&A;
        spmv_status st = spmv_crs_read_mm(path, &A);
        n++;
        if (json_is_array(json_object_get(ex, "y_sum"))) { /* complex */
            int ok = st == SPMV_ERR_UNSUPPORTED && A == NULL && has_line(spmv_last_error(), 1);
            if (!ok) printf("\n  %s: status %d, \"%s\" (want unsupported, line 1)", name, st, spmv_last_error());
            CU_ASSERT(ok);
            continue;
        }
        if (st != SPMV_OK) printf("\n  %s: %s", name, spmv_last_error());
        CU_ASSERT(st == SPMV_OK);
        if (st != SPMV_OK) continue;
        int shape = A->rows == json_integer_value(json_object_get(ex, "rows")) &&
                    A->cols == json_integer_value(json_object_get(ex, "cols"));
        if (!shape) printf("\n  %s: %d x %d", name, A->rows, A->cols);
        CU_ASSERT(shape);
        double *y, *absax;
        mult_iota(A, &y, &absax);
        long double sum = 0, ss = 0, abssum = 0, absss = 0;
        double maxabs = 0, absmax = 0;
        int64_t nonfinite = 0;
        for (int32_t i = 0; i < A->rows; i++) {
            sum += y[i];
            ss += (long double)y[i] * y[i];
            abssum += absax[i];
            absss += (long double)absax[i] * absax[i];
            maxabs = fmax(maxabs, fabs(y[i]));
            absmax = fmax(absmax, absax[i]);
            nonfinite += !isfinite(y[i]);
        }
        double want_sum = json_number_value(json_object_get(ex, "y_sum"));
        double want_n2 = json_number_value(json_object_get(ex, "y_norm2"));
        double want_max = json_number_value(json_object_get(ex, "y_maxabs"));
        int ok = close_to((double)sum, want_sum, (double)abssum) &&
                 close_to((double)sqrtl(ss), want_n2, (double)sqrtl(absss)) && close_to(maxabs, want_max, absmax) &&
                 nonfinite == json_integer_value(json_object_get(ex, "nonfinite_rows"));
        json_t *first = json_object_get(ex, "y_first"), *last = json_object_get(ex, "y_last");
        for (size_t t = 0; t < json_array_size(first) && t < (size_t)A->rows; t++)
            ok &= same_entry(y[t], json_number_value(json_array_get(first, t)), absax[t]);
        for (size_t t = 0; t < json_array_size(last) && t < (size_t)A->rows; t++) {
            size_t i = (size_t)A->rows - json_array_size(last) + t;
            ok &= same_entry(y[i], json_number_value(json_array_get(last, t)), absax[i]);
        }
        if (!ok)
            printf("\n  %s: sum %.17g (want %.17g), norm2 %.17g (want %.17g), max %.17g (want %.17g)", name,
                   (double)sum, want_sum, (double)sqrtl(ss), want_n2, maxabs, want_max);
        CU_ASSERT(ok);
        free(y);
        free(absax);
        spmv_crs_free(A);
    }
    CU_ASSERT(n >= 29);
    json_decref(root);
}

/* ---------------------------------------------------------------------------------------------- */
/* hand-made files                                                                                 */
/* ---------------------------------------------------------------------------------------------- */

static void test_accepted_variants(void)
{
    /* BOM, blank line and leading blanks before the banner, mixed-case keywords, tabs, CRLF, comments */
    const char t1[] = "\xEF\xBB\xBF\r\n  \t%%MatrixMarket  MATRIX\tCoordinate REAL General  \r\n"
                      "%comment\r\n\t 2 3 3 \r\n  % indented comment\r\n1\t1  1.0\r\n\r\n2 3 -1\r\n1 3 0.5";
    expect_y_text(t1, -1, 2, 3, 3, (const double[]){2.5, -3}, "variants");
    /* symmetric stored in the upper triangle (as pow.mtx), both triangles, duplicates of a mirrored pair */
    expect_y_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 2 1\n3 2 2\n2 2 5\n2 1 1\n", -1, 3, 3,
                  5, (const double[]){4, 18, 4}, "symmetric upper");
    /* skew: explicit zero diagonal kept, mirror negated; integer field */
    expect_y_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 3\n1 1 0\n1 3 4\n3 2 -2\n", -1, 3, 3,
                  5, (const double[]){12, 6, -8}, "skew upper");
    /* pattern symmetric: 1.0 everywhere, diagonal once */
    expect_y_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n2 2\n", -1, 3, 3, 4,
                  (const double[]){4, 2, 1}, "pattern symmetric");
    /* skew array: strictly lower triangle, column-major */
    expect_y_text("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", -1, 3, 3, 6,
                  (const double[]){-1 * 2 - 2 * 3, 1 - 3 * 3, 2 + 3 * 2}, "skew array");
    /* integer array, explicit zeros kept */
    expect_y_text("%%MatrixMarket matrix array integer general\n2 2\n0\n-3\n7\n0\n", -1, 2, 2, 4,
                  (const double[]){14, -3}, "integer array");
    /* empty shapes */
    expect_y_text("%%MatrixMarket matrix array real general\n0 0\n", -1, 0, 0, 0, NULL, "0 x 0 array");
    expect_y_text("%%MatrixMarket matrix array real symmetric\n1 1\n4\n", -1, 1, 1, 1, (const double[]){4},
                  "1 x 1 symmetric array");
    expect_y_text("%%MatrixMarket matrix coordinate real general\n2 0 0\n", -1, 2, 0, 0, (const double[]){0, 0},
                  "2 x 0");
    /* a long comment line is fine */
    static char big[6000];
    snprintf(big, sizeof big, "%%%%MatrixMarket matrix coordinate real general\n%%");
    size_t n = strlen(big);
    memset(big + n, 'c', 5000);
    big[n + 5000] = '\0';
    strcat(big, "\n1 1 1\n1 1 7\n");
    expect_y_text(big, -1, 1, 1, 1, (const double[]){7}, "long comment");
}

static void test_values(void)
{
    /* values at or above 1e308 stay finite (CHOLMOD alone would make them Inf) */
    const double y1[] = {DBL_MAX, -1e308};
    expect_y_text("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.7976931348623157e308\n"
                  "2 1 -1e308\n3 3 1.5e308\n", -1, 3, 3, 3, (const double[]){y1[0], y1[1], INFINITY}, "huge");
    /* a general array with a huge value has no mirror (fuzz_mm: the value was also written at its transposed
     * position, past the end of a 4 x 1 array); y = A * [1] is the column itself */
    expect_y_text("%%MatrixMarket matrix array real general\n4 1\n14\n10\n2\n1e308\n", -1, 4, 1, 4,
                  (const double[]){14, 10, 2, 1e308}, "general array, huge value");
    /* arrays: the stored value and its mirror (checked entry by entry: y would overflow) */
    static const struct { const char *symm; double mirror; } arr[] = {{"symmetric", -1.25e308},
                                                                       {"skew-symmetric", 1.25e308}};
    for (int t = 0; t < 2; t++) {
        char text[200];
        snprintf(text, sizeof text, "%%%%MatrixMarket matrix array real %s\n2 2\n%s-1.25e308\n%s", arr[t].symm,
                 t == 0 ? "1e308\n" : "", t == 0 ? "0\n" : "");
        spmv_crs *A = NULL;
        CU_ASSERT_EQUAL_FATAL(spmv_crs_read_mm(put_file("huge.mtx", text, -1), &A), SPMV_OK);
        CU_ASSERT_EQUAL(A->nnz, t == 0 ? 4 : 2);
        CU_ASSERT(crs_at(A, 1, 0) == -1.25e308 && crs_at(A, 0, 1) == arr[t].mirror);
        if (t == 0) CU_ASSERT(crs_at(A, 0, 0) == 1e308 && crs_at(A, 1, 1) == 0.0);
        spmv_crs_free(A);
        remove(tmp_path("huge.mtx"));
    }
    expect_y_text("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1.5e308\n", -1, 2, 2, 2,
                  (const double[]){-INFINITY, 1.5e308}, "huge skew"); /* -1.5e308*2 overflows */
    /* NaN and infinities in any case, as strtod reads them; hex floats; overflow is +-Inf */
    expect_y_text("%%MatrixMarket matrix coordinate real general\n4 1 4\n1 1 NaN\n2 1 -INFINITY\n3 1 0x1p-2\n"
                  "4 1 1e400\n", -1, 4, 1, 4, (const double[]){NAN, -INFINITY, 0.25, INFINITY}, "nan inf hex");
    /* integers beyond 32 bits, exact */
    expect_y_text("%%MatrixMarket matrix coordinate integer general\n2 1 2\n1 1 -2147483650\n2 1 +9007199254740992\n",
                  -1, 2, 1, 2, (const double[]){-2147483650.0, 9007199254740992.0}, "integers");
    /* a long value token is re-printed for CHOLMOD without changing it */
    char big[512];
    snprintf(big, sizeof big, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.");
    size_t n = strlen(big);
    memset(big + n, '0', 200);
    big[n + 200] = '\0';
    strcat(big, "125\n");
    expect_y_text(big, -1, 1, 1, 1, (const double[]){0.125e-200}, "long value");
}

static void test_rejections(void)
{
    const char *H = "%%MatrixMarket matrix coordinate real general\n";
    char t[1024];
#define WITH_H(body) (snprintf(t, sizeof t, "%s%s", H, body), t)
    /* banner */
    expect_reject_text("", SPMV_ERR_PARSE, 1, "empty file");
    /* bytes from the file are escaped in the message, nothing raw reaches a terminal (found by fuzz_mm) */
    expect_reject_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 4\033[2J\n", SPMV_ERR_PARSE, 3,
                       "control bytes in a value");
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "value '4\\x1b[2J' is not a number"));
    CU_ASSERT_PTR_NULL(strchr(spmv_last_error(), '\033'));
    expect_reject_text("\n\n", SPMV_ERR_PARSE, 2, "only blank lines");
    expect_reject_text("% comment first\n%%MatrixMarket matrix coordinate real general\n1 1 0\n", SPMV_ERR_PARSE, 1,
                       "comment before banner");
    expect_reject_text("%%MatrixMarket matrix coordinate real general", SPMV_ERR_PARSE, 1, "no size line");
    expect_reject_text("%%MatrixMarket matrix coordinate real symetric\n1 1 0\n", SPMV_ERR_PARSE, 1,
                       "unknown symmetry");
    expect_reject_text("%%MatrixMarket vector coordinate real general\n1 1 0\n", SPMV_ERR_PARSE, 1, "vector");
    expect_reject_text("%%MatrixMarket matrix sparse real general\n1 1 0\n", SPMV_ERR_PARSE, 1, "format");
    expect_reject_text("%%MatrixMarket matrix coordinate double general\n1 1 0\n", SPMV_ERR_PARSE, 1, "field");
    expect_reject_text("%%MatrixMarket matrix coordinate real\n1 1 0\n", SPMV_ERR_PARSE, 1, "3 keywords");
    expect_reject_text("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", SPMV_ERR_PARSE, 1, "extra");
    expect_reject_text("%%MatrixMarket matrix coordinate integer hermitian\n1 1 0\n", SPMV_ERR_PARSE, 1,
                       "integer hermitian");
    expect_reject_text("%%MatrixMarket matrix coordinate pattern hermitian\n1 1 0\n", SPMV_ERR_PARSE, 1,
                       "pattern hermitian");
    expect_reject_text("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", SPMV_ERR_PARSE, 1,
                       "pattern skew");
    expect_reject_text("%%MatrixMarket matrix array pattern general\n1 1\n", SPMV_ERR_PARSE, 1, "pattern array");
    expect_reject_text("%%MatrixMarket matrix array complex general\n1 1\n1 2\n", SPMV_ERR_UNSUPPORTED, 1,
                       "complex array");
    expect_reject_text("%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n", SPMV_ERR_UNSUPPORTED,
                       1, "complex hermitian");
    /* size line */
    expect_reject_text(WITH_H("% c\n\n3 3\n"), SPMV_ERR_PARSE, 4, "coordinate size with 2 numbers");
    expect_reject_text(WITH_H("3 3 1 0\n1 1 1\n"), SPMV_ERR_PARSE, 2, "size with 4 numbers");
    expect_reject_text(WITH_H("3 -3 1\n1 1 1\n"), SPMV_ERR_PARSE, 2, "negative size");
    expect_reject_text(WITH_H("3 3.0 1\n1 1 1\n"), SPMV_ERR_PARSE, 2, "size not an integer");
    expect_reject_text(WITH_H("2147483648 1 0\n"), SPMV_ERR_OVERFLOW, 2, "rows > INT32_MAX");
    expect_reject_text(WITH_H("1 4294967296 0\n"), SPMV_ERR_OVERFLOW, 2, "cols > INT32_MAX");
    expect_reject_text(WITH_H("1 1 99999999999999999999\n"), SPMV_ERR_OVERFLOW, 2, "nnz > 64 bits");
    expect_reject_text("%%MatrixMarket matrix array real general\n2 3 6\n", SPMV_ERR_PARSE, 2,
                       "array size with 3 numbers");
    expect_reject_text("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", SPMV_ERR_PARSE, 2,
                       "symmetric not square");
    /* entries */
    expect_reject_text(WITH_H("2 2 1\n1 1 1 0\n"), SPMV_ERR_PARSE, 3, "4 tokens on a real entry");
    expect_reject_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", SPMV_ERR_PARSE, 3,
                       "3 tokens on a pattern entry");
    expect_reject_text(WITH_H("2 2 2\n1 1 1\n\n% c\n1.0 2 1\n"), SPMV_ERR_PARSE, 6, "index 1.0");
    expect_reject_text(WITH_H("2 2 1\n-1 1 1\n"), SPMV_ERR_PARSE, 3, "negative index");
    expect_reject_text(WITH_H("2 2 1\n1 99999999999999999999999 1\n"), SPMV_ERR_PARSE, 3, "huge index");
    expect_reject_text(WITH_H("2 2 1\n1 0 1\n"), SPMV_ERR_PARSE, 3, "column 0");
    expect_reject_text(WITH_H("0 2 1\n1 1 1\n"), SPMV_ERR_PARSE, 3, "entry in a matrix without rows");
    expect_reject_text(WITH_H("2 2 1\n1 1 1.0x\n"), SPMV_ERR_PARSE, 3, "value 1.0x");
    expect_reject_text(WITH_H("2 2 1\n1 1 -\n"), SPMV_ERR_PARSE, 3, "value -");
    expect_reject_text("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", SPMV_ERR_PARSE, 3,
                       "integer field 1.5");
    expect_reject_text("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 nan\n", SPMV_ERR_PARSE, 3,
                       "integer field nan");
    expect_reject_text("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 1\n2 2 nan\n",
                       SPMV_ERR_PARSE, 4, "NaN skew diagonal");
    expect_reject_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n1 1 -3\n", SPMV_ERR_PARSE, 3,
                       "integer skew diagonal");
    expect_reject_text("%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n\r\n1 1 1\r\n2 2 1\r\n",
                       SPMV_ERR_PARSE, 5, "CRLF extra entry");
    expect_reject_text(WITH_H("2 2 3\n1 1 1\n2 2 1\n\n% trailing comment\n"), SPMV_ERR_PARSE, 6, "too few");
    expect_reject_text(WITH_H("2 2 3\n1 1 1\n2 2 1"), SPMV_ERR_PARSE, 4, "too few, no final newline");
    expect_reject_text("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", SPMV_ERR_PARSE, 5,
                       "array too few");
    expect_reject_text("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", SPMV_ERR_PARSE, 6,
                       "symmetric array too many");
    expect_reject_text("%%MatrixMarket matrix array real general\n1 1\n1 2\n", SPMV_ERR_PARSE, 3,
                       "array entry with 2 tokens");
    /* a NUL byte and an over-long data line */
    static const char nul[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1\0 1\n";
    const char *p = put_file("nul.mtx", nul, (long)sizeof nul - 1);
    spmv_crs *A = (spmv_crs *)&A;
    CU_ASSERT_EQUAL(spmv_crs_read_mm(p, &A), SPMV_ERR_PARSE);
    CU_ASSERT(A == NULL && has_line(spmv_last_error(), 3));
    static char big[8000];
    snprintf(big, sizeof big, "%s2 2 2\n1 1 1\n1 1 1", H);
    size_t n = strlen(big);
    memset(big + n, '0', 5000);
    big[n + 5000] = '\0';
    strcat(big, "\n");
    expect_reject_text(big, SPMV_ERR_PARSE, 4, "line longer than 4096");
#undef WITH_H
}

/* ---------------------------------------------------------------------------------------------- */
/* out of memory: every allocation of the reader fails once, nothing leaks, *A stays NULL           */
/* ---------------------------------------------------------------------------------------------- */

static void oom_loop(const char *text, const char *what)
{
    const char *p = put_file("oom.mtx", text, -1);
    spmv_crs *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_read_mm(p, &ref), SPMV_OK);
    long n;
    spmv_status st = SPMV_ERR_NOMEM;
    for (n = 0; n < 1000; n++) {
        spmv_crs *A = (spmv_crs *)&A;
        spmv__alloc_fail_after(n);
        st = spmv_crs_read_mm(p, &A);
        spmv__alloc_fail_after(-1);
        if (st == SPMV_OK) {
            CU_ASSERT(A->nnz == ref->nnz && memcmp(A->val, ref->val, (size_t)A->nnz * sizeof *A->val) == 0);
            spmv_crs_free(A);
            break;
        }
        if (st != SPMV_ERR_NOMEM || A != NULL || !strstr(spmv_last_error(), p))
            printf("\n  %s: allocation %ld: status %d, \"%s\"", what, n, st, spmv_last_error());
        CU_ASSERT(st == SPMV_ERR_NOMEM && A == NULL);
    }
    CU_ASSERT_EQUAL(st, SPMV_OK);
    CU_ASSERT(n >= 4); /* reader, buffer, COO arrays, CRS: several allocations were failed */
    spmv_crs_free(ref);
    remove(p);
}

static void test_out_of_memory(void)
{
    oom_loop("%%MatrixMarket matrix coordinate real symmetric\n4 4 6\n1 1 2\n2 1 -1\n2 2 3\n3 3 4\n4 2 0.5\n"
             "4 4 1e308\n",
             "coordinate");
    oom_loop("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n-1.5e308\n3\n", "array");
}

/* The messages of sizes out of reach name the limit that is hit: the 32-bit index limit for rows and columns, the
 * supported maximum for entries (9223372036854775807 fits in 64 bits: that is not the reason), and a matrix too
 * large for memory gives its rows next to its entries. */
static void expect_message(const char *text, spmv_status st, const char *want, const char *what)
{
    const char *p = put_file("msg.mtx", text, -1);
    spmv_crs *A = NULL;
    spmv_status got = spmv_crs_read_mm(p, &A);
    int ok = got == st && strstr(spmv_last_error(), want) != NULL;
    if (!ok) printf("\n  %s: status %d (want %d), message \"%s\", wanted \"%s\"", what, got, st, spmv_last_error(), want);
    CU_ASSERT(ok);
    spmv_crs_free(A);
    remove(p);
}

#define MM_H "%%MatrixMarket matrix coordinate real general\n"
static void test_size_messages(void)
{
    char max[64];
    snprintf(max, sizeof max, "%llu entries", (unsigned long long)(SIZE_MAX / 16));
    char want[160];
    snprintf(want, sizeof want, "2: entries = 9223372036854775807 exceeds the supported maximum of %s", max);
    expect_message(MM_H "1 1 9223372036854775807\n", SPMV_ERR_OVERFLOW, want, "INT64_MAX entries");
    snprintf(want, sizeof want, "2: entries = 99999999999999999999 exceeds the supported maximum of %s", max);
    expect_message(MM_H "1 1 99999999999999999999\n", SPMV_ERR_OVERFLOW, want, "entries beyond 64 bits");
    expect_message(MM_H "9223372036854775807 1 0\n", SPMV_ERR_OVERFLOW,
                   "2: rows = 9223372036854775807 exceeds the 32-bit index limit 2147483647", "INT64_MAX rows");
    expect_message(MM_H "1 99999999999999999999 0\n", SPMV_ERR_OVERFLOW,
                   "2: cols = 99999999999999999999 exceeds the 32-bit index limit 2147483647", "cols beyond 64 bits");
    expect_message(MM_H "2147483648 1 0\n", SPMV_ERR_OVERFLOW,
                   "2: rows = 2147483648 exceeds the 32-bit index limit 2147483647", "rows = 2^31");

    /* 2^31 - 1 rows and one entry: the CRS build fails for memory (injected, so that nothing of 16 GB is touched):
     * the message gives the rows and what they need, not only "(1 entries)" */
    const char *p = put_file("rows.mtx", MM_H "2147483647 1 1\n1 1 2.5\n", -1);
    int seen = 0;
    for (long n = 0; n < 64 && !seen; n++) {
        spmv_crs *A = NULL;
        spmv__alloc_fail_after(n);
        spmv_status st = spmv_crs_read_mm(p, &A);
        spmv__alloc_fail_after(-1);
        spmv_crs_free(A);
        if (st == SPMV_ERR_NOMEM && strstr(spmv_last_error(), "CRS matrix")) {
            seen = 1;
            const char *m = spmv_last_error();
            if (!strstr(m, "2147483647 x 1 CRS matrix with 1 entry: it needs about 17.2 GB (17.2 GB of row offsets "
                           "for 2147483647 rows"))
                printf("\n  got \"%s\"", m);
            CU_ASSERT_PTR_NOT_NULL(strstr(m, "2147483647 x 1 CRS matrix with 1 entry: it needs about 17.2 GB (17.2 GB "
                                             "of row offsets for 2147483647 rows"));
        }
        if (st == SPMV_OK) break; /* no failure left to inject */
    }
    CU_ASSERT(seen);
    remove(p);
}

static void cleanup_tmp(void)
{
    if (!tmpdir[0]) return;
    static const char *names[] = {"reject.mtx", "accept.mtx", "roundtrip.mtx", "oom.mtx", "nul.mtx", "w.mtx", "huge.mtx"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) remove(tmp_path(names[i]));
    rmdir(tmpdir);
}

int main(void)
{
    /* built without SuiteSparse (SPMV_WITH_SUITESPARSE=OFF): reading is unsupported, the whole file is skipped */
    spmv_crs *A = NULL;
    if (spmv_crs_read_mm(put_file("probe.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 0\n", -1), &A) ==
        SPMV_ERR_UNSUPPORTED) {
        printf("skipped: %s\n", spmv_last_error());
        remove(tmp_path("probe.mtx"));
        rmdir(tmpdir);
        return 77;
    }
    spmv_crs_free(A);
    remove(tmp_path("probe.mtx"));
    tu_suite("mmio", (tu_case[]){{"null arguments", test_null_arguments},
                                 {"nonexistent file", test_nonexistent_file},
                                 {"write to an unwritable path", test_write_unwritable},
                                 {"write safety: full disk, devices, links", test_write_safety},
                                 {"round trip, random with special values", test_roundtrip_random},
                                 {"round trip, empty shapes", test_roundtrip_empty},
                                 {"mm-edge files (EXPECTED.json)", test_edge_files},
                                 {"mm-edge stored counts", test_edge_nnz},
                                 {"real matrices (REFERENCE_Y.json)", test_real_matrices},
                                 {"accepted variants", test_accepted_variants},
                                 {"values: huge, NaN/Inf, integers", test_values},
                                 {"rejections name the line", test_rejections},
                                 {"out of memory", test_out_of_memory},
                                 {"messages of sizes out of reach", test_size_messages},
                                 {NULL, NULL}});
    int rc = tu_run();
    cleanup_tmp();
    return rc;
}
