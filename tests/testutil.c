#define _POSIX_C_SOURCE 200809L /* setenv */
#include "testutil.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tu_suite(const char *name, const tu_case *cases)
{
    /* the team rule's fork and join taken as 0 (unless set): a team from 2 x SPMV_MIN_WORK_PER_THREAD entries, as
     * on every machine, so the small matrices of the tests run their parallel paths (races, the partition's carries;
     * ctest runs with OMP_WAIT_POLICY=passive, whose measured fork and join would put most of them on one thread) */
    setenv("SPMV_FORK_JOIN_NS", "0", 0);
    if (CU_get_registry() == NULL && CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: cannot initialize the registry\n");
        exit(2);
    }
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    for (const tu_case *c = cases; c->name; c++) CU_add_test(s, c->name, c->fn);
}

static int n_skipped;

void tu_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("\n  skipped: ");
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n  "); /* CUnit's verdict of the case follows */
    n_skipped++;
}

int tu_skipped(void) { return n_skipped; }

int tu_run(void)
{
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    if (!failed && n_skipped) {
        printf("\n%d part%s skipped for missing input (see \"skipped:\" above): exit 77 (skipped)\n", n_skipped,
               n_skipped == 1 ? "" : "s");
        return 77;
    }
    return failed ? 1 : 0;
}

void tu_require_arch(void)
{
    spmv_arch a;
    if (spmv_arch_get(&a) != SPMV_OK) {
        printf("skipped: %s\n", spmv_last_error());
        exit(77);
    }
    printf("kernel family: %s\n", spmv_arch_name(a));
}

const char *tu_shared_dir(void)
{
    const char *e = getenv("SPMV_TEST_MATRICES");
    return e && *e ? e : SPMV_SHARED_MATRICES;
}

const char *tu_shared(const char *name)
{
    static _Thread_local char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", tu_shared_dir(), name);
    return buf;
}

int tu_have_shared(void)
{
    struct stat st;
    return stat(tu_shared_dir(), &st) == 0 && S_ISDIR(st.st_mode);
}

int tu_need_shared(const char *what)
{
    if (tu_have_shared()) return 1;
    tu_skip("%s: no shared matrices folder at %s", what, tu_shared_dir());
    return 0;
}

spmv_crs *tu_read_shared(const char *name)
{
    if (!tu_need_shared(name)) return NULL;
    spmv_crs *A = NULL;
    spmv_status st = spmv_crs_read_mm(tu_shared(name), &A);
    if (st == SPMV_ERR_UNSUPPORTED && strstr(spmv_last_error(), "SuiteSparse")) {
        tu_skip("%s: %s", name, spmv_last_error());
        return NULL;
    }
    if (st != SPMV_OK) {
        printf("\n  %s: %s (%s)", tu_shared(name), spmv_last_error(), spmv_strerror(st));
        CU_FAIL("a named shared matrix cannot be read");
        return NULL;
    }
    return A;
}

void tu_ref_mv_coo(int32_t rows, int64_t nnz, const int32_t *r, const int32_t *c, const double *v,
                   const double *x, double *y, double *absax)
{
    long double *acc = calloc((size_t)rows + 1, sizeof *acc), *aacc = calloc((size_t)rows + 1, sizeof *aacc);
    for (int64_t k = 0; k < nnz; k++) {
        acc[r[k]] += (long double)v[k] * x[c[k]];
        aacc[r[k]] += fabsl((long double)v[k] * x[c[k]]);
    }
    for (int32_t i = 0; i < rows; i++) {
        y[i] = (double)acc[i];
        if (absax) absax[i] = (double)aacc[i];
    }
    free(acc);
    free(aacc);
}

void tu_ref_mv(const spmv_crs *A, const double *x, double *y, double *absax)
{
    for (int32_t i = 0; i < A->rows; i++) {
        long double s = 0, a = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            s += (long double)A->val[k] * x[A->col[k]];
            a += fabsl((long double)A->val[k] * x[A->col[k]]);
        }
        y[i] = (double)s;
        if (absax) absax[i] = (double)a;
    }
}

int64_t tu_count_mismatch(const double *y, const double *yref, const double *absax, int64_t n, double tol,
                          const char *what)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int ok;
        if (!isfinite(yref[i]) || !isfinite(y[i]))
            ok = (isnan(yref[i]) && isnan(y[i])) || y[i] == yref[i];
        else
            ok = fabs(y[i] - yref[i]) <= tol * absax[i];
        if (!ok && bad++ < 5)
            printf("\n  %s: y[%lld] = %.17g, expected %.17g (|A||x| = %g)", what ? what : "", (long long)i, y[i],
                   yref[i], absax[i]);
    }
    return bad;
}

json_t *tu_load_json(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j) {
        fprintf(stderr, "%s:%d: %s\n", path, err.line, err.text);
        exit(2);
    }
    return j;
}

uint64_t tu_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double tu_rand_unit(uint64_t *s) { return (double)(tu_rand(s) >> 11) * 0x1.0p-52 - 1.0; }
