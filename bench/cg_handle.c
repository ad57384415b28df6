/* Issue 17's end-to-end benchmark: CG through the handle against CG on CRS, preparation included; the handle's
 * multiply against the kernel called directly; conversion and RCM as seconds and as CRS multiplies.
 *
 *   spmv-cg-handle [--hpcg N] [--rounds R] [--iters K]     (defaults: N = 128, R = 3, K = 500)
 *
 * Public API only. Every round (interleaved, the median of R rounds is printed):
 *   1. CRS: one multiply timed (t_crs, median of 5), CRS -> SELL with the model's auto parameters (t_conv), RCM
 *      alone (spmv_rcm, t_rcm): both printed as seconds and as t / t_crs multiplies;
 *   2. the handle's multiply against the underlying kernel called directly (spmv_sell_mv / spmv_crs_mv on
 *      spmv_matrix_sell / spmv_matrix_crs), 50 multiplies each, alternated 5 times: the ratio (target <= 1.02);
 *   3. CG on A x = b (b = A 1, x0 = 0, K iterations exactly, no early stop so that every variant does the same work)
 *      three ways: plain CRS; the handle with hints.expected_calls = 10 (create + optimize + solve); the handle with
 *      hints.expected_calls = 1000 (create + optimize, which converts, + solve). End-to-end seconds and the
 *      handle/CRS ratio (target: < 1 with 1000, and no conversion with 10).
 * The CG's vectors stay in the original order (hints.permuted_ok = 0). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC */
#include <spmv.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double med(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *what, spmv_status st)
{
    fprintf(stderr, "spmv-cg-handle: %s: %s (%s)\n", what, spmv_strerror(st), spmv_last_error());
    exit(1);
}

typedef struct vecs {
    int32_t n;
    double *b, *x, *r, *p, *q;
} vecs;

static double dot(const double *a, const double *b, int32_t n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (int32_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* K CG iterations with the multiply mv(ctx, x, y): y = A x. Returns ||r||/||b|| by the recurrence. */
typedef spmv_status (*mv_fn)(const void *ctx, const double *x, double *y);

static double cg(const void *ctx, mv_fn mv, vecs *v, int32_t K)
{
    const int32_t n = v->n;
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < n; i++) v->x[i] = 0, v->r[i] = v->b[i], v->p[i] = v->b[i];
    double rr = dot(v->r, v->r, n), bb = rr;
    for (int32_t it = 0; it < K; it++) {
        spmv_status st = mv(ctx, v->p, v->q);
        if (st) die("multiply", st);
        double a = rr / dot(v->p, v->q, n);
#pragma omp parallel for schedule(static)
        for (int32_t i = 0; i < n; i++) v->x[i] += a * v->p[i], v->r[i] -= a * v->q[i];
        double rr1 = dot(v->r, v->r, n), beta = rr1 / rr;
        rr = rr1;
#pragma omp parallel for schedule(static)
        for (int32_t i = 0; i < n; i++) v->p[i] = v->r[i] + beta * v->p[i];
    }
    return sqrt(rr / bb);
}

static spmv_status mv_crs(const void *A, const double *x, double *y) { return spmv_crs_mv(A, 1.0, x, 0.0, y); }
static spmv_status mv_handle(const void *M, const double *x, double *y) { return spmv_matrix_mv(M, 1.0, x, 0.0, y); }

/* create + hints + optimize from A's arrays (borrowed), the handle's CG; seconds of each part */
static double cg_handle(const spmv_crs *A, int64_t calls, vecs *v, int32_t K, double *t_prep, double *res,
                        spmv_matrix_info *info)
{
    double t0 = now();
    spmv_matrix *M;
    spmv_status st = spmv_matrix_create_crs(A->rows, A->cols, A->rowptr, A->col, A->val, SPMV_BORROW, &M);
    if (st) die("spmv_matrix_create_crs", st);
    spmv_hints h = spmv_hints_default();
    h.expected_calls = calls;
    if ((st = spmv_matrix_set_hints(M, &h)) || (st = spmv_matrix_optimize(M))) die("spmv_matrix_optimize", st);
    *t_prep = now() - t0;
    *res = cg(M, mv_handle, v, K);
    double t = now() - t0;
    spmv_matrix_get_info(M, info);
    spmv_matrix_free(M);
    return t;
}

int main(int argc, char **argv)
{
    int32_t N = 128, R = 3, K = 500;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        long x = val ? strtol(val, NULL, 10) : 0;
        if (!strcmp(a, "--hpcg") && val && x >= 8 && x <= 512) N = (int32_t)x, i++;
        else if (!strcmp(a, "--rounds") && val && x >= 1 && x <= 99) R = (int32_t)x, i++;
        else if (!strcmp(a, "--iters") && val && x >= 1 && x <= 100000) K = (int32_t)x, i++;
        else {
            fprintf(stderr, "usage: spmv-cg-handle [--hpcg N (8..512)] [--rounds R (1..99)] [--iters K]\n");
            return 2;
        }
    }
    spmv_crs *A;
    spmv_status st = spmv_gen_hpcg(N, N, N, &A);
    if (st) die("spmv_gen_hpcg", st);
    const int32_t n = A->rows;
    vecs v = {n, NULL, NULL, NULL, NULL, NULL};
    double *one;
    if ((st = spmv_vec_alloc(n, &v.b)) || (st = spmv_vec_alloc(n, &v.x)) || (st = spmv_vec_alloc(n, &v.r)) ||
        (st = spmv_vec_alloc(n, &v.p)) || (st = spmv_vec_alloc(n, &v.q)) || (st = spmv_vec_alloc(n, &one)))
        die("spmv_vec_alloc", st);
    for (int32_t i = 0; i < n; i++) one[i] = 1.0;
    if ((st = spmv_crs_mv(A, 1.0, one, 0.0, v.b))) die("spmv_crs_mv", st);
    int32_t *perm = malloc((size_t)n * sizeof *perm), *iperm = malloc((size_t)n * sizeof *iperm);
    if (!perm || !iperm) die("malloc", SPMV_ERR_NOMEM);

    printf("# spmv-cg-handle: HPCG %d^3 (%d rows, %lld nnz), %d rounds (interleaved), CG %d iterations\n", N, n,
           (long long)A->nnz, R, K);
    double *tcrs = calloc((size_t)R, sizeof(double)), *tconv = calloc((size_t)R, sizeof(double));
    double *trcm = calloc((size_t)R, sizeof(double)), *ratio = calloc((size_t)R, sizeof(double));
    double *ecrs = calloc((size_t)R, sizeof(double)), *e10 = calloc((size_t)R, sizeof(double));
    double *e1000 = calloc((size_t)R, sizeof(double)), *p1000 = calloc((size_t)R, sizeof(double));
    spmv_matrix_info i10, i1000;
    double res_crs = 0, res10 = 0, res1000 = 0, p10 = 0;
    char kname[64] = "";
    for (int32_t rd = 0; rd < R; rd++) {
        /* 1. one CRS multiply, the conversion, RCM */
        double tm[5];
        for (int k = 0; k < 5; k++) {
            double t0 = now();
            spmv_crs_mv(A, 1.0, one, 0.0, v.q);
            tm[k] = now() - t0;
        }
        tcrs[rd] = med(tm, 5);
        spmv_sell_opts o = spmv_sell_opts_default(); /* C = 0, sigma = 0: the model's choice (no wisdom imported) */
        spmv_sell *S;
        double t0 = now();
        if ((st = spmv_sell_from_crs(A, &o, &S))) die("spmv_sell_from_crs", st);
        tconv[rd] = now() - t0;
        t0 = now();
        if ((st = spmv_rcm(A, perm, iperm))) die("spmv_rcm", st);
        trcm[rd] = now() - t0;
        /* 2. handle against the kernel directly, on the same SELL matrix */
        spmv_matrix *M;
        if ((st = spmv_matrix_create_crs(n, n, A->rowptr, A->col, A->val, SPMV_BORROW, &M))) die("create", st);
        spmv_hints h = spmv_hints_default();
        h.expected_calls = 1000000;
        if ((st = spmv_matrix_set_hints(M, &h)) || (st = spmv_matrix_optimize(M))) die("optimize", st);
        const spmv_sell *MS = spmv_matrix_sell(M);
        double rt[5];
        for (int k = 0; k < 5; k++) {
            double a = now();
            for (int j = 0; j < 50; j++) MS ? spmv_sell_mv(MS, 1.0, one, 0.0, v.q) : spmv_crs_mv(A, 1.0, one, 0.0, v.q);
            double direct = now() - a;
            a = now();
            for (int j = 0; j < 50; j++) spmv_matrix_mv(M, 1.0, one, 0.0, v.q);
            rt[k] = (now() - a) / direct;
        }
        ratio[rd] = med(rt, 5);
        spmv_matrix_info mi;
        spmv_matrix_get_info(M, &mi);
        snprintf(kname, sizeof kname, "%s", mi.kernel);
        spmv_matrix_free(M);
        spmv_sell_free(S);
        /* 3. CG three ways */
        t0 = now();
        res_crs = cg(A, mv_crs, &v, K);
        ecrs[rd] = now() - t0;
        e10[rd] = cg_handle(A, 10, &v, K, &p10, &res10, &i10);
        e1000[rd] = cg_handle(A, 1000, &v, K, &p1000[rd], &res1000, &i1000);
    }
    double mcrs = med(tcrs, R), mconv = med(tconv, R), mrcm = med(trcm, R);
    printf("crs multiply      %.4g ms (median of 5, median over rounds)\n", mcrs * 1e3);
    printf("conversion        %.3f s = %.1f CRS multiplies (CRS -> SELL, model parameters; target <= 20)\n", mconv,
           mconv / mcrs);
    printf("rcm               %.3f s = %.1f CRS multiplies (spmv_rcm; target <= 50)\n", mrcm, mrcm / mcrs);
    printf("handle overhead   handle / direct = %.4f (%s; target <= 1.02)\n", med(ratio, R), kname);
    double mc = med(ecrs, R), m10 = med(e10, R), m1000 = med(e1000, R);
    printf("cg crs            %.3f s end to end (%d iterations, residual %.2e)\n", mc, K, res_crs);
    printf("cg handle 10      %.3f s end to end = %.3f x CRS; %s\n", m10, m10 / mc, i10.reason);
    printf("cg handle 1000    %.3f s end to end = %.3f x CRS (optimize %.3f s); %s\n", m1000, m1000 / mc,
           med(p1000, R), i1000.reason);
    printf("residuals         crs %.3e, handle(10) %.3e, handle(1000) %.3e\n", res_crs, res10, res1000);
    int ok = i10.format == SPMV_FORMAT_CRS;
    printf("check             hint 10 stays CRS: %s\n", ok ? "yes" : "NO");
    spmv_crs_free(A);
    return 0;
}
