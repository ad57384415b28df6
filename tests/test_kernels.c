/* Every kernel (spmv_crs_mv, spmv_sell_mv) against the independent long-double reference, once per kernel family
 * (CTest sets SPMV_ARCH=ref|avx512|avx2|sve; a family this machine lacks is skipped with 77).
 *
 * Criterion: |y_i - yref_i| <= 1e-12 * (|alpha| (|A||x|)_i + |beta y0_i|), NaN/Inf must match exactly.
 * Matrices: edge cases built here (0x0, 1x1, 0xn, nx0, empty rows, one dense row, rows < C, rows not a multiple of
 * C), generated stencils, and every .mtx in shared/matrices and shared/matrices/mm-edge the reader accepts.
 * Grid: C in {1,2,3,4,7,8,12,16,32,64} plus multiples of the vector length, sigma in {1, C, 4C, rows}, both
 * vector orders, unroll 1 and 2, threads 1 and 2, (alpha, beta) in {(1,0), (2.5,0), (1,1), (-0.5,0.75)} with
 * NaN in y when beta = 0, run columns auto, off, threshold 1 (every key a run: masked lanes everywhere) and C/2,
 * 16-bit indices on and off, rotating over the configurations. Small matrices get the full grid, large ones a reduced one (the test must stay
 * fast under qemu). TK_TIME=1 prints the CPU seconds spent per matrix.
 *
 * CTest runs it once per family (SPMV_ARCH) and, for families with two x-access variants, once per variant
 * (SPMV_XACCESS=gather|emul). Without arguments it runs the built-in cases; with --shared the files of the shared
 * matrices folder, exiting 77 (skipped) when that folder is missing. */
#define _DEFAULT_SOURCE /* strdup, dirent, MAP_ANONYMOUS, MAP_NORESERVE */
#include "testutil.h"
#include "internal.h"
#include "kernel.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

static spmv_arch family;  /* the family in use (forced by SPMV_ARCH or the best one here) */
static int32_t vlen = 1;  /* doubles per vector register of that family */
static long n_checks, n_sell_builds, n_crs_forced;

static const double AB[4][2] = {{1, 0}, {2.5, 0}, {1, 1}, {-0.5, 0.75}};

/* ------------------------------------------------------------------------------------------------ helpers */

/* The test vectors and the reference for one matrix. */
typedef struct refdata {
    int32_t rows, cols;
    double *x;     /* length cols, original order */
    double *y0;    /* length rows: the incoming y for beta != 0 */
    double *ax;    /* A x (long-double reference) */
    double *absax; /* |A||x| */
    double *want, *tol, *y, *xp, *yp; /* scratch, length max(rows, cols) */
} refdata;

static void ref_init(refdata *R, const spmv_crs *A, uint64_t seed)
{
    size_t n = (size_t)(A->rows > A->cols ? A->rows : A->cols) + 1;
    R->rows = A->rows;
    R->cols = A->cols;
    R->x = calloc(n, sizeof(double));
    R->y0 = calloc(n, sizeof(double));
    R->ax = calloc(n, sizeof(double));
    R->absax = calloc(n, sizeof(double));
    R->want = calloc(n, sizeof(double));
    R->tol = calloc(n, sizeof(double));
    R->y = calloc(n, sizeof(double));
    R->xp = calloc(n, sizeof(double));
    R->yp = calloc(n, sizeof(double));
    uint64_t s = seed;
    for (int32_t j = 0; j < A->cols; j++) R->x[j] = tu_rand_unit(&s);
    for (int32_t i = 0; i < A->rows; i++) R->y0[i] = tu_rand_unit(&s);
    tu_ref_mv(A, R->x, R->ax, R->absax);
}

static void ref_free(refdata *R)
{
    free(R->x);
    free(R->y0);
    free(R->ax);
    free(R->absax);
    free(R->want);
    free(R->tol);
    free(R->y);
    free(R->xp);
    free(R->yp);
}

/* Expected y = alpha*Ax + beta*y0 (beta = 0: y0 not used) and its tolerance weight. */
static void ref_expect(refdata *R, double alpha, double beta)
{
    for (int32_t i = 0; i < R->rows; i++) {
        if (beta == 0.0) {
            R->want[i] = alpha * R->ax[i];
            R->tol[i] = fabs(alpha) * R->absax[i];
        } else {
            R->want[i] = alpha * R->ax[i] + beta * R->y0[i];
            R->tol[i] = fabs(alpha) * R->absax[i] + fabs(beta * R->y0[i]);
        }
    }
}

static void fill_y(double *y, const double *y0, int32_t n, double beta)
{
    for (int32_t i = 0; i < n; i++) y[i] = beta == 0.0 ? NAN : y0[i];
}

static int compare(refdata *R, const double *y, const char *what)
{
    int64_t bad = tu_count_mismatch(y, R->want, R->tol, R->rows, TU_TOL, what);
    n_checks++;
    CU_ASSERT(bad == 0);
    return bad != 0;
}

/* The kernel chosen for S must belong to the family in use or be the reference; its name says which; its x access
 * is the one asked for (SPMV_XACCESS) when the family has that variant for S. */
static void check_sell_kernel_name(const spmv_sell *S)
{
    const char *name = spmv_sell_kernel_name(S);
    CU_ASSERT_FATAL(name != NULL && S->kernel != NULL);
    CU_ASSERT(strstr(name, "sell") != NULL);
    CU_ASSERT(S->kernel->arch == family || S->kernel->arch == SPMV_ARCH_REF);
    CU_ASSERT(strstr(name, spmv_arch_name(S->kernel->arch)) != NULL);
    if (family == SPMV_ARCH_REF) CU_ASSERT(strstr(name, "ref") != NULL);
    if (S->kernel->sell == NULL) CU_FAIL("SELL kernel without a sell function");
    /* a kernel of the family in use exists for this S: the registry must have chosen that family */
    const spmv_family *f = spmv__family(family);
    int exists = 0, exists_x = 0;
    for (const spmv_kernel *const *p = f->kernels; p && *p; p++)
        if ((*p)->sell && !(*p)->nt && ((*p)->accepts ? (*p)->accepts(S) : (*p)->shape.C == S->C)) {
            exists = 1;
            exists_x |= (*p)->shape.x == (spmv_xaccess)S->xaccess;
        }
    if (exists) {
        CU_ASSERT(S->kernel->arch == family && strstr(name, spmv_arch_name(family)) != NULL);
    }
    if (exists_x) CU_ASSERT(S->kernel->shape.x == (spmv_xaccess)S->xaccess);
    const char *want = getenv("SPMV_XACCESS");
    if (want && *want && exists_x) CU_ASSERT(strstr(name, want) != NULL);
}

/* CRS: the kernel the registry chose, then every other CRS kernel of the family forced (the short-row and the
 * long-row variants on every case), each at threads 1 and 2, every (alpha, beta). */
static int run_crs_kernel(spmv_crs *A, refdata *R, const char *what);
static int run_crs(spmv_crs *A, refdata *R, const char *what)
{
    const char *name = spmv_crs_kernel_name(A);
    CU_ASSERT(name != NULL && strstr(name, "crs") != NULL);
    if (family == SPMV_ARCH_REF) CU_ASSERT(strstr(name, "ref") != NULL);
    const spmv_kernel *chosen = A->kernel;
    /* the chosen kernel is the first of the family that accepts A */
    const spmv_family *f = spmv__family(family);
    const spmv_kernel *first = NULL;
    for (const spmv_kernel *const *p = f ? f->kernels : NULL; p && *p && !first; p++)
        if ((*p)->crs && (!(*p)->accepts_crs || (*p)->accepts_crs(A))) first = *p;
    if (first) CU_ASSERT(chosen == first);
    int bad = run_crs_kernel(A, R, what);
    for (const spmv_kernel *const *p = f ? f->kernels : NULL; p && *p; p++)
        if ((*p)->crs && *p != chosen) {
            char w[256];
            snprintf(w, sizeof w, "%s, kernel %s forced", what, (*p)->name);
            A->kernel = *p;
            bad += run_crs_kernel(A, R, w);
            n_crs_forced++;
        }
    A->kernel = chosen;
    return bad;
}

static int run_crs_kernel(spmv_crs *A, refdata *R, const char *what)
{
    int bad = 0;
    for (int nt = 1; nt <= 2; nt++) {
        CU_ASSERT_FATAL(spmv_crs_set_threads(A, nt) == SPMV_OK);
        for (int ab = 0; ab < 4; ab++) {
            ref_expect(R, AB[ab][0], AB[ab][1]);
            fill_y(R->y, R->y0, R->rows, AB[ab][1]);
            CU_ASSERT(spmv_crs_mv(A, AB[ab][0], R->x, AB[ab][1], R->y) == SPMV_OK);
            if (compare(R, R->y, what)) {
                printf(" [%s crs threads=%d alpha=%g beta=%g]", what, nt, AB[ab][0], AB[ab][1]);
                bad++;
            }
        }
    }
    return bad;
}

/* One SELL configuration: build, then threads x (alpha, beta), in the vector order the build selects. */
/* the run-column settings the grid rotates over: auto, off, every key a run, half the lanes */
static int32_t runs_setting(int which, int32_t C)
{
    switch (which % 4) {
    case 0: return -1;
    case 1: return 0;
    case 2: return C <= 64 ? 1 : 0;
    default: return C <= 64 ? (C + 1) / 2 : 0;
    }
}
static long n_run_builds; /* SELL builds that had run columns */
static long n_vidx_builds; /* SELL builds with value indices that the kernel reads */
static long n_vidx_matrices; /* SELL builds with value indices (whatever the kernel reads) */
static int quantized_pass;  /* run_matrix's second pass: value indices on in every build */

static int run_sell(const spmv_crs *A, refdata *R, int32_t C, int32_t sigma, int32_t unroll, int permuted, int rcm,
                    int nab, const char *what)
{
    static int rotate;
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = C;
    o.sigma = sigma;
    o.unroll = unroll;
    o.permuted = permuted;
    o.rcm = rcm;
    o.nthreads = 1;
    o.idx16 = rotate % 3 == 1 ? 0 : 1; /* 16-bit indices off in a third of the builds (on, not auto: auto is off
                                            for matrices as small as these) */
    o.runs = runs_setting(rotate, C);
    /* value indices (where the matrix has at most 16 distinct values): on in 3 of 4 builds, every build of the
     * quantized pass */
    o.vidx = quantized_pass || rotate % 4 != 3 ? 1 : 0;
    /* the CRS part of the hybrid: auto (default), off, or a low threshold (the mean row length: many rows in it) */
    o.long_rows = rotate % 3 == 0 ? -1 : rotate % 3 == 1 ? 0 : (int32_t)(A->rows > 0 ? A->nnz / A->rows : 0) + 1;
    rotate++;
    o.max_stored_factor = 0; /* every layout, whatever its padding (the guard: test_irregular) */
    spmv_sell *S = NULL;
    spmv_status st = spmv_sell_from_crs(A, &o, &S);
    if (rcm && st == SPMV_ERR_UNSUPPORTED) return 0;
    CU_ASSERT(st == SPMV_OK);
    if (st != SPMV_OK) {
        printf("\n  %s: spmv_sell_from_crs(C=%d sigma=%d): %s", what, C, sigma, spmv_last_error());
        return 1;
    }
    n_sell_builds++;
    if (S->nruns > 0) n_run_builds++;
    if (S->nvals > 0 && S->kernel->shape.vidx) n_vidx_builds++;
    if (S->nvals > 0) n_vidx_matrices++;
    check_sell_kernel_name(S);
    const int square = A->rows == A->cols;
    int bad = 0;
    for (int nt = 1; nt <= 2; nt++) {
        CU_ASSERT_FATAL(spmv_sell_set_threads(S, nt) == SPMV_OK);
        /* one thread: every (alpha, beta) pair (or nab of them); two threads test the partition, so one pair,
         * rotating over the configurations so that every pair still runs with two threads */
        int count = nt == 1 ? nab : 1;
        for (int k = 0; k < count; k++) {
            int ab = (nab == 4 && nt == 1) ? k : (int)((C + sigma + unroll + permuted + nt + k + rcm) % 4);
            double alpha = AB[ab][0], beta = AB[ab][1];
            ref_expect(R, alpha, beta);
            if (!permuted) {
                fill_y(R->y, R->y0, R->rows, beta);
                CU_ASSERT(spmv_sell_mv(S, alpha, R->x, beta, R->y) == SPMV_OK);
            } else {
                /* solver order: x' = P x (square), y' = P y0; y = P^T y' */
                const double *x = R->x;
                if (square) {
                    CU_ASSERT(spmv_sell_permute_vec(S, R->x, R->xp) == SPMV_OK);
                    x = R->xp;
                }
                if (beta == 0.0)
                    fill_y(R->yp, R->y0, R->rows, 0.0);
                else
                    CU_ASSERT(spmv_sell_permute_vec(S, R->y0, R->yp) == SPMV_OK);
                CU_ASSERT(spmv_sell_mv(S, alpha, x, beta, R->yp) == SPMV_OK);
                CU_ASSERT(spmv_sell_unpermute_vec(S, R->yp, R->y) == SPMV_OK);
            }
            if (compare(R, R->y, what)) {
                printf(" [%s: %s C=%d sigma=%d unroll=%d permuted=%d rcm=%d runs=%d (%lld) long_rows=%d (%d rows) "
                       "threads=%d alpha=%g beta=%g]", what, spmv_sell_kernel_name(S), C, sigma, unroll, permuted, rcm,
                       o.runs, (long long)S->nruns, o.long_rows, S->nlong, nt, alpha, beta);
                bad++;
            }
        }
    }
    spmv_sell_free(S);
    return bad;
}

/* The C values of the grid: the fixed list plus 1, 2, 4 and 8 vector lengths. */
static int c_values(int32_t *Cs)
{
    static const int32_t fixed[] = {1, 2, 3, 4, 7, 8, 12, 16, 32, 64};
    int n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) Cs[n++] = fixed[i];
    for (int32_t m = 1; m <= 8; m *= 2) {
        int32_t c = m * vlen, dup = 0;
        for (int i = 0; i < n; i++) dup |= Cs[i] == c;
        if (!dup) Cs[n++] = c;
    }
    return n;
}

/* The value-index kernels on every matrix of the suite: a matrix with more than 16 distinct values again with its
 * values replaced by 12 (the entry's position picks one; explicit zeros stay zero), through every C and both vector
 * orders at sigma 1 and a global sort, with value indices on. */
static int run_quantized(const spmv_crs *A, const char *what)
{
    static const double q[12] = {1, -1, 0.5, 2, -3, 0.25, 7, -0.125, 4, -2, 1.5, 3};
    int many = 0;
    for (int64_t e = 1; e < A->nnz && !many; e++) many = A->val[e] != A->val[0];
    if (!many || A->nnz > 200000) return 0; /* one value: the first pass had value indices already */
    spmv_crs *Q = NULL;
    CU_ASSERT_FATAL(spmv_crs_copy(A, &Q) == SPMV_OK);
    for (int64_t e = 0; e < Q->nnz; e++)
        if (Q->val[e] != 0.0) Q->val[e] = q[(uint64_t)(e * 7 + Q->col[e]) % 12];
    refdata R;
    ref_init(&R, Q, 0x9e37 + (uint64_t)Q->nnz);
    char qwhat[160];
    snprintf(qwhat, sizeof qwhat, "%s (12 values)", what);
    int32_t Cs[16];
    const int nC = c_values(Cs), big = Q->nnz > 10000 || Q->rows > 3000;
    const int32_t rows1 = Q->rows > 0 ? Q->rows : 1;
    int bad = 0;
    quantized_pass = 1;
    for (int c = 0; c < nC && bad < 10; c++)
        for (int s = 0; s < 2; s++)
            for (int permuted = 0; permuted <= 1; permuted++)
                bad += run_sell(Q, &R, Cs[c], s ? rows1 : 1, 1, permuted, 0, big ? 1 : 2, qwhat);
    quantized_pass = 0;
    ref_free(&R);
    spmv_crs_free(Q);
    return bad;
}

/* Full grid for small matrices; reduced for large ones. */
static void run_matrix(spmv_crs *A, const char *what)
{
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    refdata R;
    ref_init(&R, A, 0x5eed + (uint64_t)A->nnz);
    int big = A->nnz > 10000 || A->rows > 3000;
    int bad = run_crs(A, &R, what);
    int32_t Cs[16];
    int nC = c_values(Cs);
    const int32_t rows1 = A->rows > 0 ? A->rows : 1;
    for (int c = 0; c < nC && bad < 10; c++) {
        int32_t C = Cs[c];
        if (big && !(C == 1 || C == 4 || C == 32 || C == vlen || C == 4 * vlen)) continue;
        int32_t sigmas[4] = {1, C, 4 * C, rows1};
        for (int s = 0; s < 4; s++) {
            int dup = 0;
            for (int t = 0; t < s; t++) dup |= sigmas[t] == sigmas[s] || (sigmas[t] >= rows1 && sigmas[s] >= rows1);
            if (dup) continue;
            if (big && s == 2) continue;
            for (int32_t unroll = 1; unroll <= 2; unroll++)
                for (int permuted = 0; permuted <= 1; permuted++) {
                    if (big && ((unroll + permuted + s + c) % 2)) continue; /* half of unroll x order */
                    bad += run_sell(A, &R, C, sigmas[s], unroll, permuted, 0, big ? 1 : 4, what);
                }
        }
    }
    /* RCM (square only), both orders */
    if (A->rows == A->cols && A->rows > 0) {
        bad += run_sell(A, &R, 4, 1, 1, 0, 1, big ? 1 : 4, what);
        bad += run_sell(A, &R, vlen > 1 ? vlen : 8, 4 * (vlen > 1 ? vlen : 8), 2, 1, 1, big ? 1 : 4, what);
    }
    if (bad) printf("\n  %s: %d failing configurations", what, bad);
    bad += run_quantized(A, what);
    if (getenv("TK_TIME")) printf("\n  TIME %s nnz=%lld %.3f", what, (long long)A->nnz, (double)clock() / CLOCKS_PER_SEC - t0);
    ref_free(&R);
}

static spmv_crs *from_coo(int32_t rows, int32_t cols, int64_t nnz, const int32_t *r, const int32_t *c,
                          const double *v)
{
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_coo(rows, cols, nnz, r, c, v, 0, &A) == SPMV_OK);
    return A;
}

/* Random matrix with a few empty rows and an optional dense row. */
static spmv_crs *random_crs(int32_t rows, int32_t cols, int maxlen, int dense_row, uint64_t seed)
{
    uint64_t s = seed;
    int64_t cap = (int64_t)rows * maxlen + cols + 1;
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    int64_t n = 0;
    if (cols > 0)
        for (int32_t i = 0; i < rows; i++) {
            int len = (int)(tu_rand(&s) % (uint64_t)(maxlen + 1));
            if (tu_rand(&s) % 4 == 0) len = 0;
            for (int k = 0; k < len; k++) {
                ri[n] = i;
                ci[n] = (int32_t)(tu_rand(&s) % (uint64_t)cols);
                v[n++] = tu_rand_unit(&s);
            }
        }
    if (dense_row >= 0 && dense_row < rows)
        for (int32_t j = 0; j < cols; j++) {
            ri[n] = dense_row;
            ci[n] = j;
            v[n++] = tu_rand_unit(&s);
        }
    spmv_crs *A = from_coo(rows, cols, n, ri, ci, v);
    free(ri);
    free(ci);
    free(v);
    return A;
}

/* ------------------------------------------------------------------------------------------------ tests */

static void test_edge_built(void)
{
    int32_t r1[1] = {0}, c1[1] = {0};
    double v1[1] = {-3.25};
    struct {
        const char *name;
        spmv_crs *A;
    } m[16];
    int n = 0;
    m[n].name = "0x0", m[n++].A = from_coo(0, 0, 0, r1, c1, v1);
    m[n].name = "1x1", m[n++].A = from_coo(1, 1, 1, r1, c1, v1);
    m[n].name = "1x1 empty", m[n++].A = from_coo(1, 1, 0, r1, c1, v1);
    m[n].name = "0x7", m[n++].A = from_coo(0, 7, 0, r1, c1, v1);
    m[n].name = "7x0", m[n++].A = from_coo(7, 0, 0, r1, c1, v1);
    m[n].name = "5x5 all empty", m[n++].A = from_coo(5, 5, 0, r1, c1, v1);
    m[n].name = "one dense row 40x300", m[n++].A = random_crs(40, 300, 3, 17, 1);
    m[n].name = "rows < C: 3x9", m[n++].A = random_crs(3, 9, 5, -1, 2);
    m[n].name = "rows not a multiple of C: 131x131", m[n++].A = random_crs(131, 131, 9, -1, 3);
    m[n].name = "rectangular 50x170", m[n++].A = random_crs(50, 170, 12, 0, 4);
    m[n].name = "rectangular 170x13", m[n++].A = random_crs(170, 13, 6, 169, 5);
    m[n].name = "ragged 333x333", m[n++].A = random_crs(333, 333, 40, 200, 6);
    CU_ASSERT_FATAL(spmv_gen_laplace2d(13, 11, &m[n].A) == SPMV_OK);
    m[n++].name = "laplace2d 13x11";
    CU_ASSERT_FATAL(spmv_gen_hpcg(6, 5, 7, &m[n].A) == SPMV_OK);
    m[n++].name = "hpcg 6x5x7";
    CU_ASSERT_FATAL(spmv_gen_laplace3d(5, 4, 3, &m[n].A) == SPMV_OK);
    m[n++].name = "laplace3d 5x4x3";
    /* chunks whose columns are all full runs, a few per grid row not (the x86 kernels' lean loop, taken where
     * 3 in 4 chunks are such), rows not a multiple of C */
    CU_ASSERT_FATAL(spmv_gen_laplace2d(601, 8, &m[n].A) == SPMV_OK);
    m[n++].name = "laplace2d 601x8";
    for (int i = 0; i < n; i++) {
        run_matrix(m[i].A, m[i].name);
        spmv_crs_free(m[i].A);
    }
}

/* Column indices at the ends of the 32-bit range and column gaps beyond 16 bits: a 64 x (2^31 - 1) matrix whose rows
 * mix columns near 0, near 2^31 - 2 and in between (the 16-bit indices' escape), runs of consecutive columns at the
 * top end (run columns up to column 2^31 - 2), and narrow chunks (compressed). x is a 16 GiB anonymous mapping
 * with MAP_NORESERVE: only the pages of the columns used are ever touched. Every C of the family, runs and 16-bit
 * indices on and off, against a direct long-double loop over the entries. */
/* Whether a masked load (VMASKMOVPD) whose masked-off element lies in an unreadable page runs without a fault, as
 * the architecture guarantees (the AVX2 kernels' run columns rely on it: a run's base may lie before x[0] or its
 * last lanes after x[cols-1], masked off). qemu-user 7.2 (scripts/test-cpu-model.sh) loads the whole vector and
 * faults there. 1 on a CPU without AVX. */
#if defined(__x86_64__) && defined(__GNUC__)
static sigjmp_buf probe_env;
static void probe_fault(int sig)
{
    (void)sig;
    siglongjmp(probe_env, 1);
}
__attribute__((target("avx"))) static double probe_maskload(const double *p)
{
    double out[4];
    _mm256_storeu_pd(out, _mm256_maskload_pd(p, _mm256_set_epi64x(-1, -1, -1, 0))); /* element 0 masked off */
    return out[0] + out[1] + out[2] + out[3];
}
#endif
static int masked_loads_suppress_faults(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (!__builtin_cpu_supports("avx")) return 1;
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 1;
    mprotect(m, pg, PROT_NONE);
    struct sigaction sa, old_segv, old_bus;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = probe_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    volatile int ok = 0;
    if (sigsetjmp(probe_env, 1) == 0) {
        volatile double s = probe_maskload((const double *)(m + pg) - 1); /* element 0 in the PROT_NONE page */
        (void)s;
        ok = 1;
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    munmap(m, 2 * pg);
    return ok;
#else
    return 1;
#endif
}

static void test_wide_columns(void)
{
    const int32_t rows = 64, cols = INT32_MAX;
    const size_t xbytes = (size_t)cols * sizeof(double), pg = (size_t)sysconf(_SC_PAGESIZE);
    const size_t xspan = (xbytes + pg - 1) / pg * pg, mapbytes = xspan + 2 * pg; /* a page either side of x */
    char *map = mmap(NULL, mapbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) {
        printf("\n  (no 16 GiB address range for x: wide-column case not run)");
        CU_FAIL("mmap of x failed");
        return;
    }
    double *x = (double *)(map + pg);
    /* The pages around x: unreadable, so that a kernel reading outside x unmasked faults. Where masked-off elements
     * fault too (an emulator's gap, not the CPU the kernels are written for), they are readable and hold NaN
     * instead: a kernel reading outside x unmasked then gives NaN, which the comparison catches. */
    if (masked_loads_suppress_faults()) {
        CU_ASSERT(mprotect(map, pg, PROT_NONE) == 0 && mprotect(map + pg + xspan, pg, PROT_NONE) == 0);
    } else {
        printf("\n  (masked-off elements of masked loads fault here (qemu?): NaN pages around x instead of unreadable ones)");
        for (size_t k = 0; k < pg / sizeof(double); k++) {
            ((double *)map)[k] = NAN;
            ((double *)(map + pg + xspan))[k] = NAN;
        }
        for (size_t k = (size_t)cols; k < xspan / sizeof(double); k++) x[k] = NAN; /* the rest of x's last page */
    }
    int64_t *rp = malloc((rows + 1) * sizeof *rp);
    int32_t *ci = malloc(rows * 24 * sizeof *ci);
    double *v = malloc(rows * 24 * sizeof *v);
    uint64_t sd = 77;
    int64_t n = 0;
    rp[0] = 0;
    for (int32_t i = 0; i < rows; i++) {
        int32_t c[24], m = 0;
        if (i < 32) { /* narrow rows: columns i .. i+5 and i+1000 (compressible, runs) */
            for (int k = 0; k < 6; k++) c[m++] = i + k;
            c[m++] = i + 1000;
        } else { /* wide rows: near 0, in the middle, a run at the top end */
            c[m++] = i % 3;
            c[m++] = 1 << 20;
            c[m++] = (int32_t)(tu_rand(&sd) % 1000000000u) + 2000000;
            for (int k = 0; k < 6; k++) c[m++] = cols - 1 - 64 + (i - 32) + k; /* ends at column <= cols - 1 */
        }
        for (int a = 1; a < m; a++) /* sort, distinct by construction */
            for (int b = a; b > 0 && c[b - 1] > c[b]; b--) {
                int32_t t = c[b];
                c[b] = c[b - 1], c[b - 1] = t;
            }
        for (int k = 0; k < m; k++) {
            ci[n] = c[k];
            v[n] = tu_rand_unit(&sd);
            x[c[k]] = 1.0 + (double)(c[k] % 97) / 97.0;
            n++;
        }
        rp[i + 1] = n;
    }
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_wrap(rows, cols, rp, ci, v, &A) == SPMV_OK);
    double want[64], absax[64], y[64];
    for (int32_t i = 0; i < rows; i++) {
        long double s = 0, a = 0;
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            s += (long double)v[e] * x[ci[e]];
            a += fabsl((long double)v[e] * x[ci[e]]);
        }
        want[i] = (double)s;
        absax[i] = (double)a;
    }
    CU_ASSERT(spmv_crs_mv(A, 1.0, x, 0.0, y) == SPMV_OK);
    CU_ASSERT(tu_count_mismatch(y, want, absax, rows, TU_TOL, "wide CRS") == 0);
    int32_t Cs[16];
    int nC = c_values(Cs), escapes = 0, compressed = 0, runs_seen = 0;
    for (int c = 0; c < nC; c++)
        for (int variant = 0; variant < 4; variant++) {
            spmv_sell_opts o = spmv_sell_opts_default();
            o.C = Cs[c];
            o.runs = variant & 1 ? (Cs[c] <= 64 ? (Cs[c] + 1) / 2 : 0) : 0;
            o.idx16 = variant & 2 ? 1 : 0;
            o.nthreads = 1 + (variant & 1);
            spmv_sell *S = NULL;
            CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
            for (int32_t k = 0; S->colbase && k < S->nchunks; k++) {
                escapes += S->colbase[k] < 0;
                compressed += S->colbase[k] >= 0;
            }
            runs_seen += S->nruns > 0;
            for (int i = 0; i < rows; i++) y[i] = NAN;
            CU_ASSERT(spmv_sell_mv(S, 1.0, x, 0.0, y) == SPMV_OK);
            char what[96];
            snprintf(what, sizeof what, "wide %s C=%d runs=%d idx16=%d", spmv_sell_kernel_name(S), o.C, o.runs,
                     o.idx16);
            CU_ASSERT(tu_count_mismatch(y, want, absax, rows, TU_TOL, what) == 0);
            n_checks++;
            spmv_sell_free(S);
        }
    CU_ASSERT(escapes > 0 && compressed > 0 && runs_seen > 0); /* the case covers what it is for */
    spmv_crs_free(A);
    free(rp);
    free(ci);
    free(v);
    munmap(map, mapbytes);
}

/* Independent of the CRS builder: the product from the COO triplets themselves equals the CRS reference. */
static void test_coo_reference(void)
{
    enum { R = 61, C = 47, N = 400 };
    int32_t ri[N], ci[N];
    double v[N], x[C], y1[R], y2[R], a1[R], a2[R];
    uint64_t s = 11;
    for (int k = 0; k < N; k++) {
        ri[k] = (int32_t)(tu_rand(&s) % R);
        ci[k] = (int32_t)(tu_rand(&s) % C);
        v[k] = tu_rand_unit(&s);
    }
    for (int j = 0; j < C; j++) x[j] = tu_rand_unit(&s);
    spmv_crs *A = from_coo(R, C, N, ri, ci, v); /* duplicates summed */
    tu_ref_mv_coo(R, N, ri, ci, v, x, y1, a1);
    tu_ref_mv(A, x, y2, a2);
    CU_ASSERT(tu_count_mismatch(y2, y1, a1, R, TU_TOL, "CRS vs COO") == 0);
    double y[R];
    for (int32_t C2 = 1; C2 <= 16; C2 *= 2) {
        spmv_sell_opts o = spmv_sell_opts_default();
        o.C = C2;
        o.sigma = 4 * C2;
        spmv_sell *S = NULL;
        CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
        for (int i = 0; i < R; i++) y[i] = NAN;
        CU_ASSERT(spmv_sell_mv(S, 1.0, x, 0.0, y) == SPMV_OK);
        CU_ASSERT(tu_count_mismatch(y, y1, a1, R, TU_TOL, "SELL vs COO") == 0);
        spmv_sell_free(S);
    }
    spmv_crs_free(A);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every .mtx in a shared folder: the reader's rejections (complex, malformed edge cases) are skipped. */
static void run_folder(const char *sub, int must_read)
{
    char dirpath[4096];
    snprintf(dirpath, sizeof dirpath, "%s", tu_shared(sub));
    DIR *d = opendir(dirpath);
    if (!d) {
        printf("\n  cannot open %s", dirpath);
        CU_FAIL("the shared matrices folder cannot be read");
        return;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 256)
        if (ends_with(e->d_name, ".mtx")) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    int tested = 0;
    for (int i = 0; i < n; i++) {
        char rel[1024];
        snprintf(rel, sizeof rel, "%s%s%s", sub, *sub ? "/" : "", names[i]);
        spmv_crs *A = NULL;
        spmv_status st = spmv_crs_read_mm(tu_shared(rel), &A);
        if (st == SPMV_ERR_UNSUPPORTED) {
            printf("\n  (%s: unsupported, skipped: %s)", rel, spmv_last_error());
        } else if (st != SPMV_OK) {
            if (must_read) {
                printf("\n  %s: the reader failed: %s", rel, spmv_last_error());
                CU_FAIL("a shared matrix could not be read");
            }
        } else {
            run_matrix(A, rel);
            tested++;
            spmv_crs_free(A);
        }
        free(names[i]);
    }
    printf("\n  %s: %d matrices multiplied", *sub ? sub : "matrices", tested);
    CU_ASSERT(tested > 0);
}

static void test_shared_matrices(void) { run_folder("", 1); }
static void test_mm_edge(void) { run_folder("mm-edge", 0); }

/* The files with a special structure, named: fail loudly if the reader gives them but the product is wrong
 * (covered by the folder runs), and check the products the edge-case folder documents. */
static void test_mm_edge_expected(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_shared("mm-edge/EXPECTED.json"));
    json_t *J = tu_load_json(path);
    const char *file;
    json_t *ent;
    int checked = 0;
    json_object_foreach(J, file, ent) {
        const char *res = json_string_value(json_object_get(ent, "result"));
        json_t *yj = json_object_get(ent, "y");
        if (!res || strcmp(res, "y") != 0 || !json_is_array(yj)) continue;
        char rel[512];
        snprintf(rel, sizeof rel, "mm-edge/%s", file);
        spmv_crs *A = NULL;
        if (spmv_crs_read_mm(tu_shared(rel), &A) != SPMV_OK) continue; /* complex, or the reader's business */
        if ((size_t)A->rows != json_array_size(yj)) {
            CU_FAIL("EXPECTED.json size differs");
            spmv_crs_free(A);
            continue;
        }
        double *x = calloc((size_t)A->cols + 1, sizeof *x), *y = calloc((size_t)A->rows + 1, sizeof *y);
        double *want = calloc((size_t)A->rows + 1, sizeof *want), *w = calloc((size_t)A->rows + 1, sizeof *w);
        for (int32_t j = 0; j < A->cols; j++) x[j] = j + 1;
        tu_ref_mv(A, x, y, w); /* w = |A||x| */
        int ok = 1;
        for (int32_t i = 0; i < A->rows; i++) {
            json_t *yi = json_array_get(yj, (size_t)i);
            if (json_is_number(yi)) want[i] = json_number_value(yi);
            else if (json_is_null(yi)) want[i] = NAN;
            else if (json_is_string(yi)) want[i] = strcmp(json_string_value(yi), "-inf") == 0 ? -INFINITY : INFINITY;
            else ok = 0;
        }
        if (ok)
            for (int32_t C = 1; C <= 8; C *= 2)
                for (int permuted = 0; permuted <= 1; permuted++) {
                    spmv_sell_opts o = spmv_sell_opts_default();
                    o.C = C;
                    o.sigma = A->rows > 0 ? A->rows : 1;
                    o.permuted = permuted;
                    spmv_sell *S = NULL;
                    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
                    double *xp = calloc((size_t)A->cols + 1, sizeof *xp), *yp = calloc((size_t)A->rows + 1, sizeof *yp);
                    const double *xx = x;
                    if (permuted && A->rows == A->cols) {
                        spmv_sell_permute_vec(S, x, xp);
                        xx = xp;
                    }
                    CU_ASSERT(spmv_sell_mv(S, 1.0, xx, 0.0, yp) == SPMV_OK);
                    if (permuted) spmv_sell_unpermute_vec(S, yp, y);
                    else memcpy(y, yp, (size_t)A->rows * sizeof *y);
                    CU_ASSERT(tu_count_mismatch(y, want, w, A->rows, TU_TOL, rel) == 0);
                    free(xp);
                    free(yp);
                    spmv_sell_free(S);
                    checked++;
                }
        free(x);
        free(y);
        free(want);
        free(w);
        spmv_crs_free(A);
    }
    json_decref(J);
    printf("\n  %d EXPECTED.json products checked", checked);
    CU_ASSERT(checked > 0); /* the folder is there: some of its documented products must be checked */
}

/* NULL arguments of the multiply (empty vectors are fine for empty dimensions). */
static void test_mv_args(void)
{
    spmv_crs *A = random_crs(9, 6, 3, 2, 9);
    spmv_sell_opts o = spmv_sell_opts_default();
    spmv_sell *S = NULL;
    CU_ASSERT_FATAL(spmv_sell_from_crs(A, &o, &S) == SPMV_OK);
    double x[6] = {0}, y[9] = {0};
    CU_ASSERT(spmv_sell_mv(NULL, 1, x, 0, y) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_sell_mv(S, 1, NULL, 0, y) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_sell_mv(S, 1, x, 0, NULL) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_crs_mv(NULL, 1, x, 0, y) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_crs_mv(A, 1, NULL, 0, y) == SPMV_ERR_ARG);
    CU_ASSERT(spmv_crs_mv(A, 1, x, 0, NULL) == SPMV_ERR_ARG);
    spmv_sell_free(S);
    spmv_crs_free(A);
    spmv_crs *E = random_crs(0, 0, 1, -1, 1);
    CU_ASSERT_FATAL(spmv_sell_from_crs(E, &o, &S) == SPMV_OK);
    CU_ASSERT(spmv_sell_mv(S, 1, NULL, 0, NULL) == SPMV_OK);
    CU_ASSERT(spmv_crs_mv(E, 1, NULL, 0, NULL) == SPMV_OK);
    spmv_sell_free(S);
    spmv_crs_free(E);
}

/* Every CRS kernel of the family: its partial-row entry point (.dot, which the driver calls for the rows split
 * between threads) gives the same bits as its .crs on that row alone (kernel.h: "same arithmetic as one row of crs"),
 * for rows of 0 to 40 entries (the short-row kernels switch to 4 sums at 16) and one of 1000, with y = A x. */
static void test_crs_dot_matches_row(void)
{
    enum { LONG = 1000, ROWS = 42, COLS = 1200 };
    int64_t rp[ROWS + 1];
    rp[0] = 0;
    for (int r = 0; r < ROWS; r++) rp[r + 1] = rp[r] + (r < ROWS - 1 ? r : LONG);
    const int64_t nnz = rp[ROWS];
    int32_t *col = malloc((size_t)nnz * sizeof *col);
    double *val = malloc((size_t)nnz * sizeof *val), x[COLS], y[ROWS];
    CU_ASSERT_FATAL(col && val);
    for (int r = 0; r < ROWS; r++)
        for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
            col[k] = (int32_t)((k - rp[r]) * (COLS / (rp[r + 1] - rp[r] + 1)) + r % 3); /* increasing */
            val[k] = 1.0 / (double)(3 + (k * 7919) % 101) - 0.004; /* mixed signs: the order shows in the bits */
        }
    for (int j = 0; j < COLS; j++) x[j] = 1.0 + 1.0 / (double)(j + 3);
    spmv_crs *A = NULL;
    CU_ASSERT_FATAL(spmv_crs_from_arrays(ROWS, COLS, rp, col, val, &A) == SPMV_OK);
    const spmv_family *f = spmv__family(family);
    int kernels = 0;
    for (const spmv_kernel *const *p = f ? f->kernels : NULL; p && *p; p++) {
        if (!(*p)->crs || !(*p)->dot) continue;
        kernels++;
        for (int r = 0; r < ROWS; r++) {
            const int64_t b = A->rowptr[r], n = A->rowptr[r + 1] - b;
            y[r] = NAN;
            (*p)->crs(A, r, r + 1, 1.0, x, 0.0, y);
            const double d = (*p)->dot(A->val + b, A->col + b, n, x);
            n_checks++;
            if (memcmp(&d, &y[r], sizeof d) != 0) {
                printf("\n  %s: row of %lld entries: dot %.17g, crs %.17g", (*p)->name, (long long)n, d, y[r]);
                CU_FAIL("dot differs from one row of crs");
            }
        }
    }
    CU_ASSERT(kernels > 0); /* every family has CRS kernels with a partial-row entry point */
    spmv_crs_free(A);
    free(col);
    free(val);
}

int main(int argc, char **argv)
{
    const int shared = argc > 1 && strcmp(argv[1], "--shared") == 0;
    tu_require_arch();
    if (spmv_arch_get(&family) != SPMV_OK) return 77;
    vlen = spmv_arch_vector_doubles(family);
    printf("vector length: %d doubles\n", vlen);
    if (shared) {
        if (!tu_have_shared()) {
            printf("skipped: no shared matrices folder at %s\n", tu_shared(""));
            return 77;
        }
        tu_suite("kernels on shared files", (tu_case[]){{"mm-edge EXPECTED.json products", test_mm_edge_expected},
                                                        {"every mm-edge .mtx", test_mm_edge},
                                                        {"every shared .mtx", test_shared_matrices},
                                                        {NULL, NULL}});
    } else {
        tu_suite("kernels", (tu_case[]){{"edge cases and generated matrices", test_edge_built},
                                        {"reference from COO", test_coo_reference},
                                        {"columns up to 2^31 - 1, 16-bit index escapes", test_wide_columns},
                                        {"multiply arguments", test_mv_args},
                                        {"CRS partial-row sums against one row of the kernel, bit for bit",
                                         test_crs_dot_matches_row},
                                        {NULL, NULL}});
    }
    int rc = tu_run();
    printf("%ld comparisons, %ld SELL builds (%ld with run columns, %ld with value indices read by the kernel), %ld CRS "
           "runs with a kernel forced\n", n_checks, n_sell_builds, n_run_builds, n_vidx_builds, n_crs_forced);
    /* the suite covers value indices (the kernels that read them: every SIMD family, except the x86 ones in the
     * sanitizer build, see sell_avx512.c) */
    if (n_sell_builds > 0 && rc == 0 && n_vidx_matrices == 0) {
        printf("FAIL: no SELL build had value indices\n");
        rc = 1;
    }
    if (n_sell_builds > 0 && rc == 0 && family != SPMV_ARCH_REF && !SPMV_ASAN && n_vidx_builds == 0) {
        printf("FAIL: no SELL build ran a value-index kernel\n");
        rc = 1;
    }
    return rc;
}
