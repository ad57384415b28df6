#include "testutil.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tu_suite(const char *name, const tu_case *cases)
{
    if (CU_get_registry() == NULL && CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: cannot initialize the registry\n");
        exit(2);
    }
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    for (const tu_case *c = cases; c->name; c++) CU_add_test(s, c->name, c->fn);
}

int tu_run(void)
{
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
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

const char *tu_shared(const char *name)
{
    static _Thread_local char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", SPMV_SHARED_MATRICES, name);
    return buf;
}

int tu_have_shared(void)
{
    struct stat st;
    return stat(SPMV_SHARED_MATRICES, &st) == 0 && S_ISDIR(st.st_mode);
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
