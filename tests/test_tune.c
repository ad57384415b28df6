/* Tuning: the database (write, read, match, no match, malformed files with FILE:LINE), the sigma list, stored
 * entries without a build, the model-based defaults, auto parameters (spmv_tune_auto_params and through
 * spmv_sell_from_crs), the pruning rule and the bound on synthetic numbers, break-even, and a short spmv_tune run.
 * No timing assertions. The kernel family is forced to ref (SPMV_ARCH=ref) so that the defaults are fixed. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "kernel.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* rows of lengths len[i % n] (columns i, i+1, ... mod cols), values 1 + k */
static spmv_crs *make_lengths(int32_t rows, const int32_t *len, int32_t n)
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < rows; i++) nnz += len[i % n];
    int64_t *rp = malloc(((size_t)rows + 1) * sizeof *rp);
    int32_t *col = malloc((size_t)nnz * sizeof *col);
    double *val = malloc((size_t)nnz * sizeof *val);
    rp[0] = 0;
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++) {
        int32_t l = len[i % n];
        /* sorted distinct columns: i, i+1, ... wrapped, then sorted by construction below */
        int32_t start = i + l <= rows ? i : rows - l;
        for (int32_t j = 0; j < l; j++, k++) {
            col[k] = start + j;
            val[k] = 1.0 + (double)(k % 5);
        }
        rp[i + 1] = k;
    }
    spmv_crs *A = NULL;
    spmv_status st = spmv_crs_from_arrays(rows, rows, rp, col, val, &A);
    free(rp);
    free(col);
    free(val);
    CU_ASSERT_EQUAL(st, SPMV_OK);
    return A;
}

static spmv_tune_record sample_record(void)
{
    spmv_tune_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.host.cpu, sizeof r.host.cpu, "Test CPU: 9000 Model X");
    snprintf(r.host.isa, sizeof r.host.isa, "avx512");
    r.host.cores = 16;
    r.fp.rows = 884736;
    r.fp.cols = 884736;
    r.fp.nnz = 23393656;
    r.fp.nzr_min = 8;
    r.fp.nzr_max = 27;
    r.fp.nzr_mean = 23393656.0 / 884736.0;
    r.C = 16;
    r.sigma = 512;
    r.rcm = 1;
    r.nthreads = 8;
    r.gflops = 12.5;
    r.limit = 14.25;
    r.crs_gflops = 9.75;
    r.t_convert = 0.5;
    snprintf(r.matrix, sizeof r.matrix, "HPCG 96x96x96");
    snprintf(r.date, sizeof r.date, "2026-11-29T12:00:00Z");
    return r;
}

/* ------------------------------------------------------------------------------------------- database */

static void test_db_roundtrip(void)
{
    /* an explicit path's folder must exist: not created (only the default XDG location's is) */
    const char *nodir = tmp_path("no/such/dir/choices.txt");
    spmv_tune_record x = sample_record();
    CU_ASSERT_EQUAL(spmv_tune_db_store(nodir, &x), SPMV_ERR_IO);
    struct stat sb;
    CU_ASSERT_NOT_EQUAL(stat(tmp_path("no"), &sb), 0);
    x.nthreads = 100000; /* over the cap: refused */
    CU_ASSERT_EQUAL(spmv_tune_db_store(tmp_path("capped.txt"), &x), SPMV_ERR_ARG);
    const char *db = tmp_path("choices.txt");
    remove(db);
    spmv_tune_record a = sample_record(), b = sample_record(), got;
    b.fp.rows = 1000, b.fp.cols = 1000, b.fp.nnz = 5000, b.fp.nzr_min = 5, b.fp.nzr_max = 5, b.fp.nzr_mean = 5;
    b.C = 8, b.sigma = 1, b.rcm = 0, b.nthreads = 1, b.permuted = 1;
    b.has_variant = 1, b.runs = 0, b.xaccess = SPMV_X_EMUL; /* the kernel variant: no run columns, emulated gathers */
    b.has_compression = 1, b.idx16 = 0, b.vidx = 1;         /* no 16-bit indices, value indices */
    b.has_nt = 1, b.nt = 0;                                 /* ordinary y stores, measured against streaming ones */
    snprintf(b.host.isa, sizeof b.host.isa, "avx2");
    snprintf(b.matrix, sizeof b.matrix, "small # with a hash");
    int found = -1;
    /* a missing file is an empty database */
    CU_ASSERT_EQUAL(spmv_tune_db_find(db, &a.host, &a.fp, 0, &got, &found), SPMV_OK);
    CU_ASSERT_EQUAL(found, 0);
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &a), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &b), SPMV_OK);
    spmv_tune_record *recs = NULL;
    int32_t n = 0;
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_read(db, &recs, &n), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(recs[0].host.cpu, "Test CPU: 9000 Model X"); /* ':' in a value is kept */
    CU_ASSERT_EQUAL(recs[0].fp.nnz, 23393656);
    CU_ASSERT_DOUBLE_EQUAL(recs[0].fp.nzr_mean, a.fp.nzr_mean, 0); /* 17 digits: exact */
    CU_ASSERT_EQUAL(recs[0].C, 16);
    CU_ASSERT_EQUAL(recs[0].sigma, 512);
    CU_ASSERT_EQUAL(recs[0].rcm, 1);
    CU_ASSERT_EQUAL(recs[0].nthreads, 8);
    CU_ASSERT_DOUBLE_EQUAL(recs[0].gflops, 12.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(recs[0].t_convert, 0.5, 1e-12);
    CU_ASSERT_STRING_EQUAL(recs[0].date, "2026-11-29T12:00:00Z");
    CU_ASSERT_STRING_EQUAL(recs[1].matrix, "small   with a hash"); /* '#' would start a comment */
    CU_ASSERT_EQUAL(recs[1].permuted, 1);
    CU_ASSERT_EQUAL(recs[0].has_variant, 0); /* not recorded: not written, read back as not recorded */
    CU_ASSERT_EQUAL(recs[1].has_variant, 1);
    CU_ASSERT_EQUAL(recs[1].runs, 0);
    CU_ASSERT_EQUAL(recs[1].xaccess, SPMV_X_EMUL);
    CU_ASSERT_EQUAL(recs[0].has_compression, 0); /* not recorded: read back as not recorded */
    CU_ASSERT_EQUAL(recs[1].has_compression, 1);
    CU_ASSERT_EQUAL(recs[1].idx16, 0);
    CU_ASSERT_EQUAL(recs[1].vidx, 1);
    CU_ASSERT_EQUAL(recs[0].has_nt, 0); /* not recorded: read back as not recorded */
    CU_ASSERT_EQUAL(recs[1].has_nt, 1);
    CU_ASSERT_EQUAL(recs[1].nt, 0);
    CU_ASSERT_STRING_EQUAL(recs[1].host.isa, "avx2");
    spmv_tune_db_free(recs);

    /* match */
    CU_ASSERT_EQUAL(spmv_tune_db_find(db, &a.host, &a.fp, 0, &got, &found), SPMV_OK);
    CU_ASSERT_EQUAL(found, 1);
    CU_ASSERT_EQUAL(got.C, 16);
    CU_ASSERT_EQUAL(spmv_tune_db_find(db, &b.host, &b.fp, 0, &got, &found), SPMV_OK); /* other order: still used */
    CU_ASSERT_EQUAL(found, 1);
    CU_ASSERT_EQUAL(got.C, 8);
    /* no match: another machine (cpu, isa or cores) or another matrix */
    spmv_tune_host h = a.host;
    h.cores = 8;
    CU_ASSERT_EQUAL(spmv_tune_db_find(db, &h, &a.fp, 0, &got, &found), SPMV_OK);
    CU_ASSERT_EQUAL(found, 0);
    h = a.host;
    snprintf(h.isa, sizeof h.isa, "ref");
    spmv_tune_db_find(db, &h, &a.fp, 0, &got, &found);
    CU_ASSERT_EQUAL(found, 0);
    h = a.host;
    snprintf(h.cpu, sizeof h.cpu, "Test CPU: 9000 Model Y");
    spmv_tune_db_find(db, &h, &a.fp, 0, &got, &found);
    CU_ASSERT_EQUAL(found, 0);
    spmv_tune_fingerprint f = a.fp;
    f.nzr_max = 28;
    spmv_tune_db_find(db, &a.host, &f, 0, &got, &found);
    CU_ASSERT_EQUAL(found, 0);

    /* replace: same machine, matrix and order; a record in the other order is added next to it */
    a.C = 32;
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &a), SPMV_OK);
    spmv_tune_record a2 = a;
    a2.permuted = 1, a2.C = 64;
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &a2), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_tune_db_read(db, &recs, &n), SPMV_OK);
    CU_ASSERT_EQUAL(n, 3);
    spmv_tune_db_free(recs);
    spmv_tune_db_find(db, &a.host, &a.fp, 0, &got, &found);
    CU_ASSERT_EQUAL(got.C, 32);
    spmv_tune_db_find(db, &a.host, &a.fp, 1, &got, &found);
    CU_ASSERT_EQUAL(got.C, 64);
    CU_ASSERT_EQUAL(got.permuted, 1);

    /* bad records are refused */
    spmv_tune_record bad = a;
    bad.C = 0;
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &bad), SPMV_ERR_ARG);
    bad = a;
    bad.C = 128, bad.has_variant = 1, bad.runs = 8; /* run columns need C <= 64 */
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &bad), SPMV_ERR_ARG);
    bad = a;
    bad.has_compression = 1, bad.idx16 = 2, bad.vidx = 0; /* 1 on, 0 off, -1 not recorded */
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &bad), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "idx16 = 2"));
    bad = a;
    bad.has_nt = 1, bad.nt = -1; /* recorded: on or off */
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &bad), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "nt = -1"));
    CU_ASSERT_EQUAL(spmv_tune_db_store(NULL, &a), SPMV_ERR_ARG);
}

static void expect_parse_error(const char *name, const char *text, const char *msg)
{
    const char *p = tmp_path(name);
    write_file(p, text);
    spmv_tune_record *recs = NULL;
    int32_t n = -1;
    spmv_status st = spmv_tune_db_read(p, &recs, &n);
    CU_ASSERT_EQUAL(st, SPMV_ERR_PARSE);
    CU_ASSERT_PTR_NULL(recs);
    char want[600];
    snprintf(want, sizeof want, "%s:%s", p, msg);
    if (strcmp(spmv_last_error(), want)) printf("\n  got  '%s'\n  want '%s'\n", spmv_last_error(), want);
    CU_ASSERT_STRING_EQUAL(spmv_last_error(), want);
}

#define GOOD_BODY                                                                                                     \
    "  cpu: X\n  isa: ref\n  cores: 2\n  rows: 10\n  cols: 10\n  nnz: 30\n  nzr min: 3\n  nzr mean: 3\n"         \
    "  nzr max: 3\n  C: 8\n  sigma: 1\n  rcm: off\n  threads: 2\n"

static void test_db_malformed(void)
{
    /* a good file, with comments and blank lines, reads */
    const char *p = tmp_path("good.txt");
    write_file(p, "# comment\n\nchoice: m1   # trailing comment\n" GOOD_BODY "  conversion: 0.25 s\n");
    spmv_tune_record *recs = NULL;
    int32_t n = 0;
    CU_ASSERT_EQUAL(spmv_tune_db_read(p, &recs, &n), SPMV_OK);
    CU_ASSERT_EQUAL(n, 1);
    if (n == 1) {
        CU_ASSERT_STRING_EQUAL(recs[0].matrix, "m1");
        CU_ASSERT_DOUBLE_EQUAL(recs[0].t_convert, 0.25, 0);
        CU_ASSERT_EQUAL(recs[0].permuted, 0); /* order is optional: original */
        CU_ASSERT_EQUAL(recs[0].has_compression, 0); /* the compression keys are optional */
    }
    spmv_tune_db_free(recs);
    /* one compression key alone: the other is not recorded (-1: the library's auto) */
    write_file(p, "choice: m1\n" GOOD_BODY "  value indices: off\n");
    CU_ASSERT_EQUAL(spmv_tune_db_read(p, &recs, &n), SPMV_OK);
    CU_ASSERT_EQUAL(n, 1);
    if (n == 1) {
        CU_ASSERT_EQUAL(recs[0].has_compression, 1);
        CU_ASSERT_EQUAL(recs[0].vidx, 0);
        CU_ASSERT_EQUAL(recs[0].idx16, -1);
    }
    spmv_tune_db_free(recs);

    expect_parse_error("e1.txt", "choice: m\n" GOOD_BODY "  colour: blue\n", "15: unknown key 'colour'");
    expect_parse_error("e2.txt", "# x\nC: 8\n", "2: key 'C' outside a record (a record starts with 'choice: NAME')");
    expect_parse_error("e3.txt", "choice: m\n  cpu: X\n  cpu: Y\n", "3: duplicate key 'cpu'");
    expect_parse_error("e4.txt", "choice: m\n  C: 8x\n", "2: 'C': '8x' is not an integer >= 1");
    expect_parse_error("e5.txt", "choice: m\n  sigma: 0\n", "2: 'sigma': '0' is not an integer >= 1");
    expect_parse_error("e6.txt", "choice: m\n  nnz: -3\n", "2: 'nnz': '-3' is not an integer >= 0");
    expect_parse_error("e7.txt", "choice: m\n  isa: mmx\n", "2: 'isa': 'mmx' is not a kernel family (ref, avx512, avx2, sve)");
    expect_parse_error("e15.txt", "choice: m\n  x access: fast\n", "2: 'x access': 'fast' is not gather or emul");
    expect_parse_error("e16.txt", "choice: m\n  runs: -1\n", "2: 'runs': '-1' is not an integer >= 0");
    expect_parse_error("e17.txt", "choice: m\n  value indices: yes\n", "2: 'value indices': 'yes' is not on or off");
    expect_parse_error("e18.txt", "choice: m\n  16-bit indices: 1\n", "2: '16-bit indices': '1' is not on or off");
    expect_parse_error("e18b.txt", "choice: m\n  non-temporal stores: auto\n",
                       "2: 'non-temporal stores': 'auto' is not on or off");
    expect_parse_error("e19.txt", "choice: m\n  value indices: on\n  value indices: off\n",
                       "3: duplicate key 'value indices'");
    expect_parse_error("e8.txt", "choice: m\n  rcm: maybe\n", "2: 'rcm': 'maybe' is not on or off");
    expect_parse_error("e9.txt", "choice: m\n  gflops: fast\n", "2: 'gflops': 'fast' is not a number >= 0");
    expect_parse_error("e13.txt", "choice: m\n  threads: 100000\n",
                       "2: 'threads': '100000' is not an integer in [1, 4096]");
    expect_parse_error("e14.txt", "choice: m\n  threads: -2\n", "2: 'threads': '-2' is not an integer in [1, 4096]");
    /* run columns need C <= 64: a record with both is corrupt (applied as auto parameters it failed the conversion
     * with an argument error; found by fuzz_db) */
    expect_parse_error("e17.txt", "choice: big\n  runs: 8\n  cpu: X\n  isa: ref\n  cores: 2\n  rows: 10\n  cols: 10\n"
                       "  nnz: 30\n  nzr min: 3\n  nzr mean: 3\n  nzr max: 3\n  C: 128\n  sigma: 1\n  rcm: off\n  threads: 2\n",
                       "1: choice 'big': runs 8 with C = 128 (run columns need C <= 64)");
    expect_parse_error("e10.txt", "choice: m\n  just text\n", "2: expected 'key: value', got 'just text'");
    /* a missing key is reported at the record's "choice:" line, also when another record follows */
    expect_parse_error("e11.txt", "\n\nchoice: first\n  cpu: X\nchoice: second\n" GOOD_BODY,
                       "3: choice 'first': missing key 'isa'");
    expect_parse_error("e12.txt", "choice: only\n  cpu: X\n  isa: ref\n  cores: 2\n",
                       "1: choice 'only': missing key 'rows'");

    /* store refuses to overwrite a file it cannot read, and leaves it alone */
    const char *bad = tmp_path("e1.txt");
    spmv_tune_record r = sample_record();
    CU_ASSERT_EQUAL(spmv_tune_db_store(bad, &r), SPMV_ERR_PARSE);
    FILE *f = fopen(bad, "r");
    char line[64] = "";
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        fclose(f);
    }
    CU_ASSERT_STRING_EQUAL(line, "choice: m\n");
}

/* bytes that are not text: a NUL byte is named as such, control bytes are escaped in the message (nothing raw from
 * the file reaches a terminal), an overlong line is named with its number; a write to /dev/full is an error */
static void test_db_bytes(void)
{
    spmv_tune_record *recs = NULL;
    int32_t n = -1;
    const char *p = tmp_path("nul.txt");
    static const char nul[] = "choice: m\n  cpu: X\0Y\n";
    FILE *f = fopen(p, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(nul, 1, sizeof nul - 1, f);
    fclose(f);
    CU_ASSERT_EQUAL(spmv_tune_db_read(p, &recs, &n), SPMV_ERR_PARSE);
    char want[700];
    snprintf(want, sizeof want, "%s:2: NUL byte at line 2: not a text file", p);
    CU_ASSERT_STRING_EQUAL(spmv_last_error(), want);
    /* a device that reads NUL bytes forever: the same error, and the read ends */
    if (access("/dev/zero", R_OK) == 0) {
        CU_ASSERT_EQUAL(spmv_tune_db_read("/dev/zero", &recs, &n), SPMV_ERR_PARSE);
        CU_ASSERT_STRING_EQUAL(spmv_last_error(), "/dev/zero:1: NUL byte at line 1: not a text file");
    }

    expect_parse_error("esc.txt", "choice: m\n  colour\033[31m: blue\n", "2: unknown key 'colour\\x1b[31m'");
    expect_parse_error("esc2.txt", "choice: m\n  isa: \x01\xff\\ \xc3\xa9\n",
                       "2: 'isa': '\\x01\\xff\\\\ \xc3\xa9' is not a kernel family (ref, avx512, avx2, sve)");
    expect_parse_error("esc3.txt", "choice: m\n  threads: 1\x07\n", "2: 'threads': '1\\x07' is not an integer in [1, 4096]");
    /* the label in the message of a record that lacks a key (found by fuzz_db) */
    expect_parse_error("esc4.txt", "choice: x\r: A\tB\r\n", "1: choice 'x\\x0d: A\\x09B': missing key 'cpu'");
    /* 5000 characters on line 3 */
    static char big[6000];
    int k = snprintf(big, sizeof big, "# x\nchoice: m\n  cpu: ");
    memset(big + k, 'a', 5000);
    big[k + 5000] = '\n';
    big[k + 5001] = '\0';
    expect_parse_error("long.txt", big, "3: line longer than 4094 characters");

    /* the disk fills up while the database is written (a file size limit: EFBIG, as a full disk gives ENOSPC):
     * the database is unchanged and no temporary file is left */
    const char *db = tmp_path("full.txt");
    remove(db);
    spmv_tune_record r = sample_record();
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_store(db, &r), SPMV_OK);
    char before[4096], after[4096];
    f = fopen(db, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t nb = fread(before, 1, sizeof before, f);
    fclose(f);
    r.fp.rows = 77; /* a second record: the file grows beyond the limit */
    struct rlimit rl0, rl;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &rl0), 0);
    rl = rl0;
    rl.rlim_cur = (rlim_t)nb + 16;
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &rl), 0);
    spmv_status st = spmv_tune_db_store(db, &r);
    setrlimit(RLIMIT_FSIZE, &rl0);
    signal(SIGXFSZ, old_handler);
    CU_ASSERT_EQUAL(st, SPMV_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), db));
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), strerror(EFBIG)));
    f = fopen(db, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t na = fread(after, 1, sizeof after, f);
    fclose(f);
    CU_ASSERT(na == nb && memcmp(before, after, nb) == 0);
    /* nothing else in the folder named like the database */
    DIR *d = opendir(dir);
    int others = 0;
    for (struct dirent *e; d && (e = readdir(d));) others += strstr(e->d_name, "full.txt.tmp") != NULL;
    if (d) closedir(d);
    CU_ASSERT_EQUAL(others, 0);
    remove(db);
}

/* what spmv_tune_db_store writes reads back: free text with control bytes is written with '?' for them, never as an
 * empty value the reader refuses (a cpu of control bytes alone made the database unreadable; found by fuzz_db) */
static void test_db_written_readable(void)
{
    const char *db = tmp_path("readable.txt");
    remove(db);
    spmv_tune_record r = sample_record(), *recs = NULL;
    int32_t n = 0;
    snprintf(r.host.cpu, sizeof r.host.cpu, "\x01\x02");
    snprintf(r.matrix, sizeof r.matrix, "m\tx\x1b");
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_store(db, &r), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_read(db, &recs, &n), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(recs[0].host.cpu, "??");
    CU_ASSERT_STRING_EQUAL(recs[0].matrix, "m x?");
    spmv_tune_db_free(recs);
    snprintf(r.host.cpu, sizeof r.host.cpu, " \t# "); /* nothing left to write */
    CU_ASSERT_EQUAL(spmv_tune_db_store(db, &r), SPMV_ERR_ARG);
    /* a measurement at the bottom of the normal range is written with 6 digits as a subnormal, which strtod reports
     * as ERANGE: it reads back (it was "not a number" and the database unreadable; found by fuzz_db) */
    r = sample_record();
    r.gflops = DBL_MIN;
    remove(db);
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_store(db, &r), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_read(db, &recs, &n), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_DOUBLE_EQUAL(recs[0].gflops, DBL_MIN, 1e-5 * DBL_MIN);
    spmv_tune_db_free(recs);
    remove(db);
    expect_parse_error("e18.txt", "choice: m\n  gflops: 1e-400\n  limit gflops: 1e400\n",
                       "3: 'limit gflops': '1e400' is not a number >= 0"); /* underflow 0 accepted, overflow not */
}

static void test_db_path(void)
{
    char buf[512], *old = getenv("SPMV_TUNE_DB") ? strdup(getenv("SPMV_TUNE_DB")) : NULL;
    char *oldx = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    setenv("SPMV_TUNE_DB", "/some/where.txt", 1);
    CU_ASSERT_EQUAL(spmv_tune_db_path(buf, sizeof buf), SPMV_OK);
    CU_ASSERT_STRING_EQUAL(buf, "/some/where.txt");
    setenv("SPMV_TUNE_DB", "off", 1);
    CU_ASSERT_EQUAL(spmv_tune_db_path(buf, sizeof buf), SPMV_ERR_IO);
    unsetenv("SPMV_TUNE_DB");
    setenv("XDG_DATA_HOME", "/xdg", 1);
    CU_ASSERT_EQUAL(spmv_tune_db_path(buf, sizeof buf), SPMV_OK);
    CU_ASSERT_STRING_EQUAL(buf, "/xdg/spmv/tuning/choices.txt");
    CU_ASSERT_EQUAL(spmv_tune_db_path(buf, 8), SPMV_ERR_ARG);
    if (oldx) setenv("XDG_DATA_HOME", oldx, 1);
    else unsetenv("XDG_DATA_HOME");
    if (old) setenv("SPMV_TUNE_DB", old, 1);
    free(old);
    free(oldx);
}

/* ------------------------------------------------------------------------------------------- lists */

static void expect_list(int32_t C, int32_t rows, const int32_t *want, int32_t nwant)
{
    int32_t s[40], n = -1;
    CU_ASSERT_EQUAL_FATAL(spmv_tune_sigma_list(C, rows, s, 40, &n), SPMV_OK);
    CU_ASSERT_EQUAL(n, nwant);
    for (int32_t k = 0; k < n && k < nwant; k++) CU_ASSERT_EQUAL(s[k], want[k]);
}

static void test_sigma_list(void)
{
    expect_list(32, 100000, (int32_t[]){1, 32, 128, 512, 2048, 8192, 32768, 100000}, 8);
    expect_list(8, 2003, (int32_t[]){1, 8, 32, 128, 512, 2003}, 6);
    expect_list(8, 512, (int32_t[]){1, 8, 32, 128, 512}, 5); /* rows = 64 C: not twice */
    expect_list(1, 20, (int32_t[]){1, 4, 16, 20}, 4);          /* C = 1: the 1 once */
    expect_list(32, 20, (int32_t[]){1, 20}, 2);                 /* rows < C */
    expect_list(4, 1, (int32_t[]){1}, 1);
    expect_list(64, INT32_MAX, (int32_t[]){1, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216,
                                           67108864, 268435456, 1073741824, INT32_MAX}, 15);
    int32_t s[3], n;
    CU_ASSERT_EQUAL(spmv_tune_sigma_list(32, 100000, s, 3, &n), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_tune_sigma_list(0, 100, s, 3, &n), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_tune_sigma_list(4, 0, s, 3, &n), SPMV_ERR_ARG);
}

static void test_chunk_heights(void)
{
    int32_t C[16], n = 0;
    int fast = -1;
    CU_ASSERT_EQUAL_FATAL(spmv_tune_chunk_heights(C, 16, &n, &fast), SPMV_OK);
    CU_ASSERT_EQUAL(fast, 0); /* SPMV_ARCH=ref */
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(C[0], 4);
    CU_ASSERT_EQUAL(C[1], 8);
    CU_ASSERT_EQUAL(C[2], 16);
    CU_ASSERT_EQUAL(C[3], 32);
    CU_ASSERT_EQUAL(spmv_tune_chunk_heights(C, 2, &n, &fast), SPMV_OK);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(spmv_tune_chunk_heights(C, 0, &n, &fast), SPMV_ERR_ARG);
}

/* stored entries predicted without a build = what spmv_sell_from_crs stores */
static void test_stored_prediction(void)
{
    static const int32_t len[] = {1, 9, 3, 3, 17, 0, 2, 5, 40, 4, 4, 4, 1};
    spmv_crs *A = make_lengths(1001, len, 13), *H = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(10, 9, 7, &H), SPMV_OK);
    spmv_crs *Ms[2] = {A, H};
    for (int mi = 0; mi < 2; mi++) {
        spmv_crs *M = Ms[mi];
        int32_t *perm = malloc((size_t)M->rows * sizeof *perm), *iperm = malloc((size_t)M->rows * sizeof *iperm);
        int have_rcm = spmv_rcm(M, perm, iperm) == SPMV_OK;
        static const int32_t Cs[] = {1, 4, 8, 32}, sig[] = {1, 3, 8, 32, 100, 1 << 20}, un[] = {1, 4};
        for (int c = 0; c < 4; c++)
            for (int s = 0; s < 6; s++)
                for (int u = 0; u < 2; u++)
                    for (int r = 0; r <= have_rcm; r++) {
                        spmv_sell_opts o = spmv_sell_opts_default();
                        o.C = Cs[c], o.sigma = sig[s], o.unroll = un[u], o.rcm = r;
                        o.runs = 0; /* spmv_tune_stored: without run columns (they can only add padding) */
                        spmv_sell *S = NULL;
                        CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(M, &o, &S), SPMV_OK);
                        int64_t pred = -1;
                        CU_ASSERT_EQUAL(spmv_tune_stored(M, o.C, o.sigma, o.unroll, r ? perm : NULL, &pred), SPMV_OK);
                        if (pred != S->stored)
                            printf("\n  matrix %d C %d sigma %d unroll %d rcm %d: predicted %lld, built %lld\n", mi, o.C,
                                   o.sigma, o.unroll, r, (long long)pred, (long long)S->stored);
                        CU_ASSERT_EQUAL(pred, S->stored);
                        spmv_sell_free(S);
                    }
        free(perm);
        free(iperm);
    }
    int64_t st;
    CU_ASSERT_EQUAL(spmv_tune_stored(A, 0, 1, 1, NULL, &st), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_tune_stored(NULL, 8, 1, 1, NULL, &st), SPMV_ERR_ARG);
    spmv_crs_free(A);
    spmv_crs_free(H);
}

/* ------------------------------------------------------------------------------------------- defaults */

static spmv_machine synthetic_machine(void)
{
    spmv_machine m;
    spmv_machine_init(&m);
    snprintf(m.name, sizeof m.name, "synthetic");
    m.clock_ghz = 2.0;
    m.sockets = 1;
    m.cores_per_socket = 8;
    m.cores_per_numa = 4;
    m.cacheline = 64;
    m.simd_width = 8;
    m.fma_latency = 8, m.fma_rthroughput = 0.5;
    m.add_latency = 4, m.add_rthroughput = 0.5;
    m.mul_latency = 4, m.mul_rthroughput = 0.5;
    m.load_rthroughput = 0.5, m.store_rthroughput = 1;
    m.gather_rthroughput = 4, m.hadd_latency = 10, m.hadd_rthroughput = 5;
    m.bw_load = 100, m.bw_copy = 80, m.bw_triad = 90;
    m.nlevels = 3;
    const char *names[] = {"L1", "L2", "MEM"};
    for (int i = 0; i < 3; i++) {
        snprintf(m.level[i].name, sizeof m.level[i].name, "%s", names[i]);
        m.level[i].cores_per_group = i == 2 ? 4 : i == 1 ? 8 : 1;
        m.level[i].upstream_bw = i == 2 ? 45 : 64;
    }
    m.level[0].size = 32768, m.level[0].ways = 8;
    m.level[1].size = 32 << 20, m.level[1].ways = 16; /* one 32 MiB last-level cache shared by the 8 cores */
    CU_ASSERT_EQUAL(spmv_machine_check(&m), SPMV_OK);
    return m;
}

static void test_default_C(void)
{
    int32_t C = 0;
    /* reference family, built-in costs: w 1, 1 accumulator set, FMA latency 4 cy over 3 loads x 0.5 cy: a = 3 -> 4 */
    CU_ASSERT_EQUAL(spmv_tune_default_chunk_height(NULL, &C), SPMV_OK);
    CU_ASSERT_EQUAL(C, 4);
    /* from a machine: FMA latency 8 cy over 3 x 0.5: a = ceil(5.33) = 6 -> 8 */
    spmv_machine m = synthetic_machine();
    CU_ASSERT_EQUAL(spmv_tune_default_chunk_height(&m, &C), SPMV_OK);
    CU_ASSERT_EQUAL(C, 8);
    /* a long latency: 40 cy / 1.5 -> 27 -> 32 */
    m.fma_latency = 40;
    CU_ASSERT_EQUAL(spmv_tune_default_chunk_height(&m, &C), SPMV_OK);
    CU_ASSERT_EQUAL(C, 32);
    /* beyond the reference list the power of two is kept: 100 / 1.5 -> 67 -> 128 */
    m.fma_latency = 100;
    CU_ASSERT_EQUAL(spmv_tune_default_chunk_height(&m, &C), SPMV_OK);
    CU_ASSERT_EQUAL(C, 128);
    /* an absurd latency (an extreme machine file, fuzz_machine) is clamped at 1024 accumulator sets: 1024 */
    m.fma_latency = 1e52;
    CU_ASSERT_EQUAL(spmv_tune_default_chunk_height(&m, &C), SPMV_OK);
    CU_ASSERT_EQUAL(C, 1024);
    /* a short latency still gives at least the smallest C of the list */
    m.fma_latency = 0.5;
    CU_ASSERT_EQUAL(spmv_tune_default_chunk_height(&m, &C), SPMV_OK);
    CU_ASSERT_EQUAL(C, 4);
    CU_ASSERT_EQUAL(spmv_tune_default_chunk_height(NULL, NULL), SPMV_ERR_ARG);
}

static void test_default_sigma(void)
{
    /* lengths alternate 1 and 33: no sorting pads every chunk to 33; a window of 2C sorts them apart */
    static const int32_t len[] = {1, 33};
    spmv_crs *A = make_lengths(4096, len, 2);
    int32_t s = 0;
    CU_ASSERT_EQUAL(spmv_tune_default_sigma(A, 8, &s), SPMV_OK);
    int32_t list[40], n;
    spmv_tune_sigma_list(8, A->rows, list, 40, &n);
    int64_t glob, st;
    spmv_tune_stored(A, 8, A->rows, 1, NULL, &glob);
    /* s is the smallest of the list within 1 % of nnz of the global sort */
    int32_t want = 0;
    for (int32_t k = 0; k < n && !want; k++) {
        spmv_tune_stored(A, 8, list[k], 1, NULL, &st);
        if ((double)(st - glob) <= 0.01 * (double)A->nnz) want = list[k];
    }
    CU_ASSERT_EQUAL(s, want);
    CU_ASSERT_EQUAL(s, 32); /* 1 and C = 8 leave the padding, 4C = 32 sorts it away */
    /* constant row length: no padding to save, no sorting */
    static const int32_t c7[] = {7};
    spmv_crs *B = make_lengths(1000, c7, 1);
    CU_ASSERT_EQUAL(spmv_tune_default_sigma(B, 32, &s), SPMV_OK);
    CU_ASSERT_EQUAL(s, 1);
    CU_ASSERT_EQUAL(spmv_tune_default_sigma(B, 0, &s), SPMV_ERR_ARG);
    spmv_crs_free(A);
    spmv_crs_free(B);
}

/* ------------------------------------------------------------------------------------------- auto parameters */

static spmv_tune_record record_for(const spmv_crs *A, int32_t C, int32_t sigma)
{
    spmv_tune_record r;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL(spmv_tune_host_get(&r.host), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_tune_fingerprint_get(A, &r.fp), SPMV_OK);
    r.C = C, r.sigma = sigma, r.nthreads = 1, r.rcm = 0;
    snprintf(r.matrix, sizeof r.matrix, "test");
    return r;
}

static void test_auto_params(void)
{
    static const int32_t len[] = {1, 33};
    spmv_crs *A = make_lengths(4096, len, 2);
    const char *db = tmp_path("auto.txt");
    remove(db);
    setenv("SPMV_TUNE_DB", db, 1);
    spmv_sell_opts o = spmv_sell_opts_default();
    spmv_tune_source src = SPMV_TUNE_RECORDED;

    /* nothing recorded: the model */
    o.C = 0, o.sigma = 0;
    CU_ASSERT_EQUAL(spmv_tune_auto_params(A, &o, &src), SPMV_OK);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_MODEL);
    CU_ASSERT_EQUAL(o.C, 4);
    int32_t s4;
    spmv_tune_default_sigma(A, 4, &s4);
    CU_ASSERT_EQUAL(o.sigma, s4);
    /* given values are kept */
    o.C = 16, o.sigma = 7;
    CU_ASSERT_EQUAL(spmv_tune_auto_params(A, &o, &src), SPMV_OK);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_GIVEN);
    CU_ASSERT_EQUAL(o.C, 16);
    CU_ASSERT_EQUAL(o.sigma, 7);

    /* recorded but not imported: not read (the result does not depend on the account's files) */
    spmv_tune_record r = record_for(A, 16, 64);
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_store(db, &r), SPMV_OK);
    spmv_wisdom_forget();
    CU_ASSERT_EQUAL(spmv_wisdom_count(), 0);
    o.C = 0, o.sigma = 0;
    CU_ASSERT_EQUAL(spmv_tune_auto_params(A, &o, &src), SPMV_OK);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_MODEL);
    CU_ASSERT_EQUAL(o.C, 4);
    /* imported from the default path: used */
    int32_t nrec = -1;
    CU_ASSERT_EQUAL(spmv_wisdom_import(NULL, &nrec), SPMV_OK);
    CU_ASSERT_EQUAL(nrec, 1);
    CU_ASSERT_EQUAL(spmv_wisdom_count(), 1);
    o.C = 0, o.sigma = 0;
    CU_ASSERT_EQUAL(spmv_tune_auto_params(A, &o, &src), SPMV_OK);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_RECORDED);
    CU_ASSERT_EQUAL(o.C, 16);
    CU_ASSERT_EQUAL(o.sigma, 64);
    /* C given as recorded: the recorded sigma */
    o.C = 16, o.sigma = 0;
    spmv_tune_auto_params(A, &o, &src);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_RECORDED);
    CU_ASSERT_EQUAL(o.sigma, 64);
    /* another C given: the model's sigma for that C */
    o.C = 8, o.sigma = 0;
    spmv_tune_auto_params(A, &o, &src);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_MODEL);
    int32_t s8;
    spmv_tune_default_sigma(A, 8, &s8);
    CU_ASSERT_EQUAL(o.sigma, s8);
    /* sigma given: the recorded C */
    o.C = 0, o.sigma = 5;
    spmv_tune_auto_params(A, &o, &src);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_RECORDED);
    CU_ASSERT_EQUAL(o.C, 16);
    CU_ASSERT_EQUAL(o.sigma, 5);
    /* another matrix does not match */
    static const int32_t len2[] = {2, 33};
    spmv_crs *B = make_lengths(4096, len2, 2);
    o.C = 0, o.sigma = 0;
    spmv_tune_auto_params(B, &o, &src);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_MODEL);
    CU_ASSERT_EQUAL(o.C, 4);
    /* forgotten: the model again */
    spmv_wisdom_forget();
    o.C = 0, o.sigma = 0;
    CU_ASSERT_EQUAL(spmv_tune_auto_params(A, &o, &src), SPMV_OK);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_MODEL);
    /* a later import overrides an earlier record of the same matrix */
    const char *db2 = tmp_path("auto_later.txt");
    remove(db2);
    spmv_tune_record r2 = record_for(A, 32, 8);
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_store(db2, &r2), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_wisdom_import(db, NULL), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_wisdom_import(db2, &nrec), SPMV_OK);
    CU_ASSERT_EQUAL(nrec, 1);
    CU_ASSERT_EQUAL(spmv_wisdom_count(), 2);
    o.C = 0, o.sigma = 0;
    spmv_tune_auto_params(A, &o, &src);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_RECORDED);
    CU_ASSERT_EQUAL(o.C, 32);
    CU_ASSERT_EQUAL(o.sigma, 8);
    CU_ASSERT_EQUAL(o.nt_stores, -1); /* not recorded: the library's auto */
    /* a recorded kernel variant is applied where the caller left it auto, and only there */
    spmv_wisdom_forget();
    const char *db3 = tmp_path("auto_variant.txt");
    remove(db3);
    spmv_tune_record r3 = record_for(A, 16, 64);
    r3.has_variant = 1, r3.runs = 0, r3.xaccess = SPMV_X_EMUL;
    r3.has_compression = 1, r3.idx16 = 1, r3.vidx = 0;
    r3.has_nt = 1, r3.nt = 1;
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_store(db3, &r3), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_wisdom_import(db3, NULL), SPMV_OK);
    o = spmv_sell_opts_default();
    o.C = 0, o.sigma = 0;
    CU_ASSERT_EQUAL(spmv_tune_auto_params(A, &o, &src), SPMV_OK);
    CU_ASSERT_EQUAL(src, SPMV_TUNE_RECORDED);
    CU_ASSERT_EQUAL(o.runs, 0);
    CU_ASSERT_EQUAL(o.xaccess, SPMV_X_EMUL);
    CU_ASSERT_EQUAL(o.idx16, 1);
    CU_ASSERT_EQUAL(o.vidx, 0);
    CU_ASSERT_EQUAL(o.nt_stores, 1);
    o = spmv_sell_opts_default();
    o.C = 0, o.sigma = 0, o.runs = 5, o.xaccess = SPMV_X_GATHER, o.idx16 = 0, o.vidx = 1; /* given: kept */
    o.nt_stores = 0;
    spmv_tune_auto_params(A, &o, &src);
    CU_ASSERT_EQUAL(o.runs, 5);
    CU_ASSERT_EQUAL(o.xaccess, SPMV_X_GATHER);
    CU_ASSERT_EQUAL(o.idx16, 0);
    CU_ASSERT_EQUAL(o.vidx, 1);
    CU_ASSERT_EQUAL(o.nt_stores, 0);
    spmv_wisdom_forget();
    /* a database that does not parse is not imported (named with its line), nothing changes */
    write_file(db, "choice: x\n  bogus: 1\n");
    CU_ASSERT_EQUAL(spmv_wisdom_import(db, &nrec), SPMV_ERR_PARSE);
    CU_ASSERT_EQUAL(nrec, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "auto.txt:2"));
    CU_ASSERT_EQUAL(spmv_wisdom_count(), 0);
    /* a named file that does not exist is an error; the default one missing or switched off imports nothing */
    CU_ASSERT_EQUAL(spmv_wisdom_import(tmp_path("no_such_wisdom.txt"), &nrec), SPMV_ERR_IO);
    setenv("SPMV_TUNE_DB", "off", 1);
    CU_ASSERT_EQUAL(spmv_wisdom_import(NULL, &nrec), SPMV_OK);
    CU_ASSERT_EQUAL(nrec, 0);
    setenv("SPMV_TUNE_DB", tmp_path("no_such_default.txt"), 1);
    CU_ASSERT_EQUAL(spmv_wisdom_import(NULL, &nrec), SPMV_OK);
    CU_ASSERT_EQUAL(nrec, 0);
    CU_ASSERT_EQUAL(spmv_wisdom_count(), 0);
    CU_ASSERT_EQUAL(spmv_wisdom_find(NULL, NULL, 0, NULL, NULL), SPMV_ERR_ARG);
    /* errors */
    o.C = -1;
    CU_ASSERT_EQUAL(spmv_tune_auto_params(A, &o, &src), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_tune_auto_params(NULL, &o, &src), SPMV_ERR_ARG);
    unsetenv("SPMV_TUNE_DB");
    spmv_crs_free(A);
    spmv_crs_free(B);
}

/* spmv_sell_from_crs with C = 0 / sigma = 0 takes the auto parameters (src/formats/sell.c calls
 * spmv__sell_auto_params) */
static void test_auto_in_sell_from_crs(void)
{
    static const int32_t len[] = {1, 33};
    spmv_crs *A = make_lengths(4096, len, 2);
    const char *db = tmp_path("auto2.txt");
    remove(db);
    setenv("SPMV_TUNE_DB", db, 1);
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = 0, o.sigma = 0;
    spmv_sell *S = NULL;
    spmv_status st = spmv_sell_from_crs(A, &o, &S);
    CU_ASSERT_EQUAL_FATAL(st, SPMV_OK);
    int32_t sd;
    spmv_tune_default_sigma(A, 4, &sd);
    CU_ASSERT_EQUAL(S->C, 4); /* the model */
    CU_ASSERT_EQUAL(S->sigma, sd);
    CU_ASSERT_EQUAL(o.C, 0); /* the caller's options are not changed */
    spmv_sell_free(S);
    spmv_tune_record r = record_for(A, 32, 128);
    CU_ASSERT_EQUAL_FATAL(spmv_tune_db_store(db, &r), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &o, &S), SPMV_OK);
    CU_ASSERT_EQUAL(S->C, 4); /* recorded, not imported: still the model */
    spmv_sell_free(S);
    CU_ASSERT_EQUAL(spmv_wisdom_import(db, NULL), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &o, &S), SPMV_OK);
    spmv_wisdom_forget();
    CU_ASSERT_EQUAL(S->C, 32); /* the record */
    CU_ASSERT_EQUAL(S->sigma, 128);
    /* and the result is right */
    double *x = malloc((size_t)A->cols * sizeof *x), *y = malloc((size_t)A->rows * sizeof *y);
    double *yr = malloc((size_t)A->rows * sizeof *yr), *ab = malloc((size_t)A->rows * sizeof *ab);
    for (int32_t j = 0; j < A->cols; j++) x[j] = 1.0 + (j % 7) / 7.0;
    CU_ASSERT_EQUAL(spmv_sell_mv(S, 1.0, x, 0.0, y), SPMV_OK);
    tu_ref_mv(A, x, yr, ab);
    CU_ASSERT_EQUAL(tu_count_mismatch(y, yr, ab, A->rows, TU_TOL, "auto SELL"), 0);
    free(x), free(y), free(yr), free(ab);
    spmv_sell_free(S);
    o.C = -3;
    CU_ASSERT_EQUAL(spmv_sell_from_crs(A, &o, &S), SPMV_ERR_ARG);
    unsetenv("SPMV_TUNE_DB");
    spmv_crs_free(A);
}

/* ------------------------------------------------------------------------------------------- rules */

static void test_break_even(void)
{
    CU_ASSERT_DOUBLE_EQUAL(spmv_tune_break_even(1.0, 0.003, 0.002), 1000, 0);
    CU_ASSERT_DOUBLE_EQUAL(spmv_tune_break_even(1.0, 0.003, 0.0021), 1112, 0); /* 1 / 0.0009 = 1111.1: round up */
    CU_ASSERT_DOUBLE_EQUAL(spmv_tune_break_even(0.5, 0.004, 0.0015), 200, 0);
    CU_ASSERT_DOUBLE_EQUAL(spmv_tune_break_even(0, 0.003, 0.004), 0, 0);      /* nothing to pay back */
    CU_ASSERT_TRUE(spmv_tune_break_even(1.0, 0.002, 0.003) == HUGE_VAL);     /* SELL slower: never */
    CU_ASSERT_TRUE(spmv_tune_break_even(1.0, 0.002, 0.002) == HUGE_VAL);     /* equal: never */
    CU_ASSERT_TRUE(spmv_tune_break_even(-1.0, 0.003, 0.002) == HUGE_VAL);
    CU_ASSERT_TRUE(spmv_tune_break_even(NAN, 0.003, 0.002) == HUGE_VAL);
}

static void test_bound_and_prune(void)
{
    spmv_machine m = synthetic_machine();
    spmv_traffic t = {.bytes_per_entry = 12, .bytes_per_row = 16, .bytes_per_chunk = 12, .flops_per_entry = 2};
    /* HPCG-like: rows 1e6, nnz 27e6, stored 28e6, C 32: bytes = 28e6*12 + 1e6*16 + 31250*12 + 8*1e6 */
    double g = 0;
    CU_ASSERT_EQUAL(spmv_tune_bound(&m, &t, 1000000, 1000000, 27000000, 28000000, 32, 4, &g), SPMV_OK);
    double bytes = 28e6 * 12 + 1e6 * 16 + 31250.0 * 12 + 8e6, flops = 54e6;
    CU_ASSERT_DOUBLE_EQUAL(g, 100.0 / (bytes / flops), 1e-9); /* the load bandwidth (highest), one NUMA domain */
    CU_ASSERT_EQUAL(spmv_tune_bound(&m, &t, 1000000, 1000000, 27000000, 28000000, 32, 5, &g), SPMV_OK);
    CU_ASSERT_DOUBLE_EQUAL(g, 2 * 100.0 / (bytes / flops), 1e-9); /* 5 threads: two domains of 4 cores */
    CU_ASSERT_EQUAL(spmv_tune_bound(&m, &t, 1000000, 1000000, 27000000, 28000000, 32, 64, &g), SPMV_OK);
    CU_ASSERT_DOUBLE_EQUAL(g, 2 * 100.0 / (bytes / flops), 1e-9); /* capped at the machine's 8 cores */
    CU_ASSERT_EQUAL(spmv_tune_bound(&m, &t, 1000000, 1000000, 27000000, 26000000, 32, 4, &g), SPMV_ERR_ARG);
    CU_ASSERT_EQUAL(spmv_tune_bound(NULL, &t, 10, 10, 10, 10, 1, 1, &g), SPMV_ERR_ARG);

    /* the rule: data set > 4 x LLC (32 MiB) and bound * 1.1 < best */
    const double big = 1e9, small = 100e6; /* 100 MB < 4 x 32 MiB = 134 MB */
    CU_ASSERT_EQUAL(spmv_tune_prune(&m, big, 10.0, 11.5, 0.10), 1);   /* 11.0 < 11.5 */
    CU_ASSERT_EQUAL(spmv_tune_prune(&m, big, 10.0, 10.9, 0.10), 0);   /* within the margin */
    CU_ASSERT_EQUAL(spmv_tune_prune(&m, big, 10.0, 11.0, 0.10), 0);   /* equal: keep */
    CU_ASSERT_EQUAL(spmv_tune_prune(&m, big, 10.0, 10.5, 0.0), 1);
    CU_ASSERT_EQUAL(spmv_tune_prune(&m, small, 10.0, 50.0, 0.10), 0); /* in cache: the bound does not hold */
    CU_ASSERT_EQUAL(spmv_tune_prune(NULL, big, 10.0, 50.0, 0.10), 0); /* no machine: never */
    CU_ASSERT_EQUAL(spmv_tune_prune(&m, big, 0, 50.0, 0.10), 0);      /* no bound: never */
    CU_ASSERT_EQUAL(spmv_tune_prune(&m, big, 10.0, 0, 0.10), 0);      /* nothing measured yet */
}

/* ------------------------------------------------------------------------------------------- a short search */

/* The record of the tuning database db for A on this machine (*found 0: none) */
static spmv_status find_record(const char *db, const spmv_crs *A, spmv_tune_record *rec, int *found)
{
    spmv_tune_host h;
    spmv_tune_fingerprint f;
    spmv_tune_host_get(&h);
    spmv_tune_fingerprint_get(A, &f);
    *found = 0;
    return spmv_tune_db_find(db, &h, &f, 0, rec, found);
}

/* 1 when a measured SELL point before point i has i's C, sigma and RCM and another kernel variant: the point a
 * stage-8 variant varies */
static int has_base(const spmv_tune_result *r, int32_t i)
{
    const spmv_tune_point *q = &r->points[i];
    for (int32_t j = 0; j < i; j++) {
        const spmv_tune_point *b = &r->points[j];
        if (!b->is_crs && b->state == SPMV_TUNE_MEASURED && b->C == q->C && b->sigma == q->sigma &&
            b->rcm == q->rcm &&
            (b->runs != q->runs || b->xaccess != q->xaccess || b->idx16 != q->idx16 || b->vidx != q->vidx ||
             b->nt != q->nt))
            return 1;
    }
    return 0;
}

/* A short search of C = 8 alone on one thread: budget seconds, runs timed runs of 2 ms per point */
static spmv_tune_opts short_c8_opts(double budget, int32_t runs)
{
    static const int32_t c8[] = {8};
    spmv_tune_opts o = spmv_tune_opts_default();
    o.budget = budget;
    o.run_time = 0.002;
    o.runs = runs;
    o.max_threads = 1;
    o.C_list = c8;
    o.nC = 1;
    return o;
}

/* The stage-8 variant "non-temporal stores": timed where y holds SPMV_TUNE_NT_MIN_BYTES or more and the family has
 * streaming-store kernels for the best point (its matrix indexing y directly), never pruned by the model's bound,
 * never below that size or with SPMV_SELL_NT set; the matrix returned runs the choice's kernel; the record says
 * which stores won only where both were timed. */
static void test_tune_nt(void)
{
    const int32_t rows = (int32_t)(SPMV_TUNE_NT_MIN_BYTES / (int64_t)sizeof(double)) + 1000; /* y 4 MiB + 8000 B */
    spmv_crs *A = make_lengths(rows, (int32_t[]){3}, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(A);
    const char *db = tmp_path("nt.txt");
    remove(db);
    const char *env = getenv(SPMV_SELL_NT_ENV); /* the caller's setting, restored at the end */
    char saved[64] = "";
    if (env) snprintf(saved, sizeof saved, "%s", env);
    spmv_machine m = synthetic_machine(); /* a bound for the pruning, which the variant must not meet */
    spmv_tune_opts o = short_c8_opts(6, 3);
    o.rcm = 0;
    o.machine = &m;
    o.record = db;
    o.label = "tridiagonal";
    for (int forced = 0; forced < 2; forced++) {
        if (forced) setenv(SPMV_SELL_NT_ENV, "0", 1);
        else unsetenv(SPMV_SELL_NT_ENV);
        spmv_tune_result r;
        spmv_sell *S = NULL;
        CU_ASSERT_EQUAL_FATAL(spmv_tune(A, &o, &r, &S), SPMV_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(S);
        CU_ASSERT_PTR_NOT_NULL_FATAL(S->kernel);
        CU_ASSERT_EQUAL(S->kernel->nt, r.best.nt); /* the matrix returned runs the choice's kernel */
        CU_ASSERT_EQUAL(r.best.nt, strstr(r.best.kernel, "-nt") != NULL);
        const int avail = spmv__sell_nt_available(S);
        int variants = 0, timed = 0, skipped = 0;
        for (int32_t i = 0; i < r.npoints; i++) {
            const spmv_tune_point *q = &r.points[i];
            skipped |= q->state == SPMV_TUNE_SKIPPED;
            if (!q->is_crs && q->state == SPMV_TUNE_MEASURED)
                CU_ASSERT_EQUAL(q->nt, strstr(q->kernel, "-nt") != NULL);
            if (!strstr(q->note, "non-temporal stores")) continue;
            variants++;
            CU_ASSERT_EQUAL(q->stage, 8);
            CU_ASSERT_NOT_EQUAL(q->state, SPMV_TUNE_PRUNED);
            CU_ASSERT_EQUAL(q->bound, 0);
            if (q->state != SPMV_TUNE_MEASURED) continue;
            timed++;
            CU_ASSERT_TRUE(has_base(&r, i)); /* the best point with the other y stores, measured before it */
            CU_ASSERT_PTR_NOT_NULL(strstr(q->note, "alternated with the best ("));
        }
        if (forced) {
            CU_ASSERT_EQUAL(variants, 0); /* forced for a measurement: not weighed */
        } else if (!skipped) {
            CU_ASSERT_EQUAL(variants, avail);
        } else {
            printf("\n  (a point skipped for the time budget: the non-temporal variant is not asserted) ");
        }
        spmv_tune_record rec;
        int found = 0;
        CU_ASSERT_EQUAL(find_record(db, A, &rec, &found), SPMV_OK);
        CU_ASSERT_EQUAL(found, r.recorded);
        if (found) { /* recorded where both stores were timed, as the kernel chosen writes y */
            CU_ASSERT_EQUAL(rec.has_nt, timed > 0);
            if (rec.has_nt) CU_ASSERT_EQUAL(rec.nt, r.best.nt);
        }
        remove(db);
        spmv_tune_result_free(&r);
        spmv_sell_free(S);
    }
    if (env) setenv(SPMV_SELL_NT_ENV, saved, 1);
    else unsetenv(SPMV_SELL_NT_ENV);
    spmv_crs_free(A);
}

static void test_tune_run(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_hpcg(12, 12, 12, &A), SPMV_OK);
    const char *db = tmp_path("run.txt");
    remove(db);
    spmv_machine m = synthetic_machine();
    spmv_tune_opts o = spmv_tune_opts_default();
    o.budget = 3;
    o.run_time = 0.002;
    o.runs = 3;
    o.max_threads = 2;
    o.machine = &m;
    o.record = db;
    o.label = "HPCG 12^3";
    spmv_tune_result r;
    spmv_sell *S = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_tune(A, &o, &r, &S), SPMV_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(S);
    CU_ASSERT_TRUE(r.npoints >= 3);
    CU_ASSERT_EQUAL(r.points[0].is_crs, 1);
    CU_ASSERT_EQUAL(r.points[0].state, SPMV_TUNE_MEASURED);
    CU_ASSERT_EQUAL(r.best.state, SPMV_TUNE_MEASURED);
    CU_ASSERT_TRUE(r.best.err <= 1e-12);
    CU_ASSERT_TRUE(r.best.gflops > 0);
    CU_ASSERT_TRUE(r.best.limit > 0);
    CU_ASSERT_TRUE(r.opts.C == 4 || r.opts.C == 8 || r.opts.C == 16 || r.opts.C == 32);
    CU_ASSERT_EQUAL(S->C, r.opts.C);
    CU_ASSERT_EQUAL(S->sigma, r.opts.sigma < A->rows ? r.opts.sigma : A->rows);
    CU_ASSERT_EQUAL(S->nparts, r.opts.nthreads);
    /* recorded only when the choice beats CRS at its thread count */
    const int wins = r.best.t_spmv < r.crs.t_spmv;
    CU_ASSERT_EQUAL(r.recorded, wins);
    /* every measured point passed the check; the thread sweep has the best configuration at 1 thread, measured, or
     * skipped for the time budget where the 3 s did not suffice (under qemu on a loaded machine: the A64FX setting
     * of scripts/test-sve.sh) */
    int have1 = 0;
    for (int32_t i = 0; i < r.npoints; i++) {
        const spmv_tune_point *p = &r.points[i];
        if (p->state == SPMV_TUNE_MEASURED) CU_ASSERT_TRUE(p->err <= 1e-12);
        CU_ASSERT_PTR_NULL(strstr(p->note, ", -")); /* never "needs about 0.6 s, -0.2 s left" */
        if (p->stage == 4 && !p->is_crs && p->nthreads == 1 &&
            (p->state == SPMV_TUNE_MEASURED ||
             (p->state == SPMV_TUNE_SKIPPED && strstr(p->note, "time budget: needs about"))))
            have1 = 1;
        CU_ASSERT_NOT_EQUAL(p->state, SPMV_TUNE_RUNNING);
    }
    CU_ASSERT_EQUAL(have1, 1);
    /* the final comparison: the choice and CRS at the same thread count (never a CRS point of the sweep at another
     * thread count, or one measured under other conditions), timed alternately; the spread of the runs is kept */
    CU_ASSERT_EQUAL(r.best.stage, 6);
    CU_ASSERT_EQUAL(r.crs.stage, 6);
    CU_ASSERT_EQUAL(r.crs.is_crs, 1);
    CU_ASSERT_EQUAL(r.crs.state, SPMV_TUNE_MEASURED);
    CU_ASSERT_EQUAL(r.crs.nthreads, r.opts.nthreads);
    CU_ASSERT_EQUAL(r.best.nthreads, r.opts.nthreads);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.crs.note, "timed alternately with the choice"));
    CU_ASSERT_TRUE(r.best.spread >= 1 && r.crs.spread >= 1);
    /* a point still noisy after its repetition says so in its note */
    for (int32_t i = 0; i < r.npoints; i++)
        if (r.points[i].state == SPMV_TUNE_MEASURED && r.points[i].spread > SPMV_TUNE_NOISY)
            CU_ASSERT_PTR_NOT_NULL(strstr(r.points[i].note, "noisy"));
    CU_ASSERT_TRUE(r.best.t_convert > 0);
    /* the choice carries its kernel variant; stage 8 points are variants of a measured point (runs off, or the
     * other x access), never a new C, sigma or RCM */
    CU_ASSERT_EQUAL(r.opts.runs, r.best.runs);
    CU_ASSERT_EQUAL(r.opts.xaccess, r.best.xaccess);
    CU_ASSERT_EQUAL(r.opts.idx16, r.best.idx16);
    CU_ASSERT_EQUAL(r.opts.vidx, r.best.vidx);
    CU_ASSERT_EQUAL(r.opts.nt_stores, r.best.nt);
    CU_ASSERT_EQUAL(S->nvals > 0, r.best.vidx); /* the matrix returned is the choice */
    CU_ASSERT_EQUAL(S->nidx16 > 0, r.best.idx16);
    int vi_on = 0, vi_off = 0, i16_on = 0, i16_off = 0;
    for (int32_t i = 0; i < r.npoints; i++) {
        const spmv_tune_point *q = &r.points[i];
        if (q->stage != 8 || q->state != SPMV_TUNE_MEASURED) continue;
        CU_ASSERT_TRUE(has_base(&r, i));
        CU_ASSERT_PTR_NOT_NULL(strstr(q->note, "alternated with the best ("));
        if (strstr(q->note, "value indices")) *(q->vidx ? &vi_on : &vi_off) += 1;
        if (strstr(q->note, "16-bit indices")) *(q->idx16 ? &i16_on : &i16_off) += 1;
        CU_ASSERT_PTR_NULL(strstr(q->note, "non-temporal")); /* y of 13.8 KB: below SPMV_TUNE_NT_MIN_BYTES */
    }
    /* HPCG 12^3 (46 656 nonzeros: below the auto thresholds of both) has 2 values and the padding's 0.0, and 1728
     * columns: where the family's kernels read value and 16-bit indices, the tuner timed each on (the variant of a
     * best point without them) or off (after the "on" variant won), unless the budget ran out first */
    /* what the family's kernel for the choice's C and x access can read (the tuner's condition; the matrix's own
     * shape says what it has, which is nothing where the "on" variant lost) */
    const spmv_kernel *kc = spmv__sell_kernel_for(S->C, (spmv_xaccess)S->xaccess);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kc);
    int unsure = 0; /* a point skipped for the budget, or a variant pruned or failed: the counts are not asserted */
    for (int32_t i = 0; i < r.npoints; i++)
        unsure |= r.points[i].state == SPMV_TUNE_SKIPPED ||
                  (r.points[i].stage == 8 && r.points[i].state != SPMV_TUNE_MEASURED &&
                   !strstr(r.points[i].note, "none found (not timed)")); /* run columns on: nothing to time */
    const char *vienv = getenv("SPMV_VIDX");
    if (unsure) {
        printf("\n  (a point skipped or a variant not measured: the value- and 16-bit-index variants are not asserted) ");
    } else {
        CU_ASSERT_EQUAL(vi_on + vi_off, kc->shape.vidx && !(vienv && *vienv) ? 1 : 0);
        const int gathers = 20 * (S->stored - (int64_t)S->C * S->nruns) >= S->stored; /* >= 5 % in gather columns */
        CU_ASSERT_EQUAL(i16_on + i16_off, kc->shape.idx16 && gathers ? 1 : 0);
    }
    CU_ASSERT_DOUBLE_EQUAL(r.speedup, r.crs.t_spmv / r.best.t_spmv, 1e-12);
    CU_ASSERT_TRUE(r.break_even == spmv_tune_break_even(r.best.t_convert, r.crs.t_spmv, r.best.t_spmv));
    /* the break-even from its definition: the least whole number of multiplies n with n (t_crs - t_sell) >= t_convert
     * when SELL is faster, never (HUGE_VAL) otherwise */
    if (wins) {
        const double gain = r.crs.t_spmv - r.best.t_spmv, n = r.break_even;
        CU_ASSERT_TRUE(isfinite(n) && n >= 1 && n == floor(n));
        CU_ASSERT_TRUE(n * gain >= r.best.t_convert * (1 - 1e-12));
        CU_ASSERT_TRUE((n - 1) * gain < r.best.t_convert);
        CU_ASSERT_TRUE(r.speedup > 1);
    } else {
        CU_ASSERT_TRUE(r.break_even == HUGE_VAL);
        CU_ASSERT_TRUE(r.speedup <= 1);
    }
    /* the record is found again and used by the auto parameters */
    spmv_tune_record rec;
    int found = 0;
    CU_ASSERT_EQUAL(find_record(db, A, &rec, &found), SPMV_OK);
    CU_ASSERT_EQUAL(found, wins);
    if (found) {
        CU_ASSERT_EQUAL(rec.has_nt, 0); /* y of 13.8 KB: the stores not timed both ways, not recorded */
        CU_ASSERT_EQUAL(rec.C, r.opts.C);
        CU_ASSERT_EQUAL(rec.sigma, r.opts.sigma);
        CU_ASSERT_EQUAL(rec.rcm, r.opts.rcm);
        CU_ASSERT_EQUAL(rec.nthreads, r.opts.nthreads);
        CU_ASSERT_STRING_EQUAL(rec.matrix, "HPCG 12^3");
    }
    spmv_tune_result_free(&r);
    spmv_sell_free(S);

    /* the permuted order, a given C list, no machine, no record */
    o = short_c8_opts(2, 1);
    o.permuted = 1;
    CU_ASSERT_EQUAL_FATAL(spmv_tune(A, &o, &r, NULL), SPMV_OK);
    CU_ASSERT_EQUAL(r.opts.C, 8);
    CU_ASSERT_EQUAL(r.opts.permuted, 1);
    CU_ASSERT_EQUAL(r.recorded, 0);
    CU_ASSERT_EQUAL(r.best.limit, 0);
    spmv_tune_result_free(&r);

    /* errors */
    o.budget = 0;
    CU_ASSERT_EQUAL(spmv_tune(A, &o, &r, NULL), SPMV_ERR_ARG);
    spmv_tune_result_free(&r);
    spmv_crs *E = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 3, (int64_t[]){0, 0, 0, 0}, NULL, NULL, &E), SPMV_OK);
    o = spmv_tune_opts_default();
    CU_ASSERT_EQUAL(spmv_tune(E, &o, &r, NULL), SPMV_ERR_ARG);
    spmv_tune_result_free(&r);
    spmv_crs_free(E);
    spmv_crs_free(A);
}

static void test_host_fingerprint(void)
{
    spmv_tune_host h;
    CU_ASSERT_EQUAL(spmv_tune_host_get(&h), SPMV_OK);
    CU_ASSERT_TRUE(h.cpu[0] != '\0');
    CU_ASSERT_PTR_NULL(strchr(h.cpu, '#'));
    CU_ASSERT_STRING_EQUAL(h.isa, "ref");
    CU_ASSERT_TRUE(h.cores >= 1);
    static const int32_t len[] = {3, 0, 9};
    spmv_crs *A = make_lengths(30, len, 3);
    spmv_tune_fingerprint f;
    CU_ASSERT_EQUAL(spmv_tune_fingerprint_get(A, &f), SPMV_OK);
    CU_ASSERT_EQUAL(f.rows, 30);
    CU_ASSERT_EQUAL(f.nnz, 120);
    CU_ASSERT_EQUAL(f.nzr_min, 0);
    CU_ASSERT_EQUAL(f.nzr_max, 9);
    CU_ASSERT_DOUBLE_EQUAL(f.nzr_mean, 4.0, 0);
    CU_ASSERT_EQUAL(spmv_tune_fingerprint_get(NULL, &f), SPMV_ERR_ARG);
    spmv_crs_free(A);
}

int main(void)
{
    setenv("SPMV_ARCH", "ref", 1); /* fixed defaults: the reference family (any C, built-in costs) */
    snprintf(dir, sizeof dir, "/tmp/spmv_test_tune_%ld", (long)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) return 1;
    tu_suite("tune database", (tu_case[]){{"write, read, match, no match, replace", test_db_roundtrip},
                                          {"malformed files: FILE:LINE: reason", test_db_malformed},
                                          {"NUL bytes, control bytes, long lines, full disk", test_db_bytes},
                                          {"what is written reads back", test_db_written_readable},
                                          {"path: SPMV_TUNE_DB, XDG_DATA_HOME", test_db_path},
                                          {NULL, NULL}});
    tu_suite("tune lists and model defaults",
             (tu_case[]){{"sigma list 1, C, 4C, 16C, ..., rows", test_sigma_list},
                         {"chunk heights of the family", test_chunk_heights},
                         {"stored entries without a build", test_stored_prediction},
                         {"default C from vector width and accumulators", test_default_C},
                         {"default sigma from the padding", test_default_sigma},
                         {"host and fingerprint", test_host_fingerprint},
                         {NULL, NULL}});
    tu_suite("tune auto parameters", (tu_case[]){{"recorded, model, given", test_auto_params},
                                                 {"through spmv_sell_from_crs", test_auto_in_sell_from_crs},
                                                 {NULL, NULL}});
    tu_suite("tune rules", (tu_case[]){{"break-even", test_break_even},
                                       {"bound and pruning on synthetic numbers", test_bound_and_prune},
                                       {NULL, NULL}});
    tu_suite("tune search", (tu_case[]){{"short spmv_tune runs", test_tune_run},
                                         {"the non-temporal-store variant", test_tune_nt},
                                         {NULL, NULL}});
    int rc = tu_run();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
