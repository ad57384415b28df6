/* libFuzzer harness: CRS -> SELL-C-sigma conversion and the multiply, checked against a plain loop over the COO
 * triplets written here. The input bytes give the shape (up to 512 x 512), the options (C, sigma, unroll, order,
 * RCM, run columns, 16-bit indices, x access, hybrid long rows, threads, padding guard), alpha and beta, then a
 * list of operations that place entries (single entries, diagonals, dense rows and columns, blocks), at most
 * 20000. In "exact" mode values and x are small integers, so every summation order gives the same y and the
 * products are compared exactly; otherwise within 1e-12 (|A||x|)_i.
 *
 * Checked: the conversion succeeds unless the options are invalid (documented SPMV_ERR_ARG cases) or the padding
 * guard refuses (and then the stored count of spmv_tune_stored really exceeds the guard); SELL -> CRS gives A
 * back; every CRS and SELL kernel of every family usable on this CPU (spmv_arch_usable; the kernel set by hand,
 * as the registry would choose it for other options) gives the plain loop's y, in the original or permuted order,
 * at several thread partitions, the CRS part of a hybrid matrix through every CRS kernel; the fused multiply's dot
 * products; new values (spmv_sell_update_values); spmv_tune_stored equals the stored entries where it claims to;
 * RCM gives a permutation; the handle (spmv_matrix_optimize) multiplies correctly. Seeds: tests/fuzz/seeds/sell. */
#include "fuzz_common.h"
#include "kernel.h"

#include <math.h>

#define MAXDIM 512
#define MAXNNZ 20000

typedef struct problem {
    int32_t rows, cols;
    int exact;
    int64_t nnz;
    int32_t ri[MAXNNZ], ci[MAXNNZ];
    double v[MAXNNZ];
    double alpha, beta;
} problem;

static problem P;

static double value(fz_in *in, int exact)
{
    if (exact) return (double)((int)(fz_u8(in) % 17) - 8);
    int16_t m = (int16_t)fz_u16(in);
    return ldexp((double)m, (int)(fz_u8(in) % 24) - 20);
}

static void add(problem *p, int32_t r, int32_t c, double v)
{
    if (p->nnz >= MAXNNZ || r < 0 || c < 0 || r >= p->rows || c >= p->cols) return;
    p->ri[p->nnz] = r;
    p->ci[p->nnz] = c;
    p->v[p->nnz] = v;
    p->nnz++;
}

static void build_entries(problem *p, fz_in *in)
{
    p->nnz = 0;
    if (p->rows == 0 || p->cols == 0) return;
    while (in->n > 0 && p->nnz < MAXNNZ) {
        const uint32_t op = fz_u8(in) % 8;
        if (op < 4) {
            int32_t r = (int32_t)(fz_u16(in) % (uint32_t)p->rows), c = (int32_t)(fz_u16(in) % (uint32_t)p->cols);
            add(p, r, c, value(in, p->exact));
        } else if (op == 4) { /* a diagonal: run columns */
            int32_t d = (int8_t)fz_u8(in), r0 = (int32_t)(fz_u16(in) % (uint32_t)p->rows);
            int32_t len = (int32_t)(fz_u16(in) % (uint32_t)p->rows) + 1;
            double v = value(in, p->exact);
            for (int32_t r = r0; r < r0 + len && r < p->rows; r++) add(p, r, r + d, v + (r & 1));
        } else if (op == 5 || op == 6) { /* a dense row or column (long rows, wide chunks) */
            int32_t at = (int32_t)fz_u16(in), step = 1 + (int32_t)(fz_u8(in) % 4);
            double v = value(in, p->exact);
            if (op == 5)
                for (int32_t c = 0; c < p->cols; c += step) add(p, at % p->rows, c, v);
            else
                for (int32_t r = 0; r < p->rows; r += step) add(p, r, at % p->cols, v);
        } else { /* a block */
            int32_t r0 = (int32_t)(fz_u16(in) % (uint32_t)p->rows), c0 = (int32_t)(fz_u16(in) % (uint32_t)p->cols);
            int32_t h = 1 + (int32_t)(fz_u8(in) % 8), w = 1 + (int32_t)(fz_u8(in) % 8);
            double v = value(in, p->exact);
            for (int32_t r = r0; r < r0 + h; r++)
                for (int32_t c = c0; c < c0 + w; c++) add(p, r, c, v);
        }
    }
}

/* the plain loop: y = alpha * A x + beta * y0 over the triplets (duplicates add up), and (|A||x|)_i */
static void reference(const problem *p, const double *x, const double *y0, double *want, double *abs)
{
    for (int32_t i = 0; i < p->rows; i++) want[i] = abs[i] = 0;
    for (int64_t k = 0; k < p->nnz; k++) {
        want[p->ri[k]] += p->v[k] * x[p->ci[k]];
        abs[p->ri[k]] += fabs(p->v[k] * x[p->ci[k]]);
    }
    for (int32_t i = 0; i < p->rows; i++) {
        want[i] = p->alpha * want[i] + (p->beta == 0 ? 0 : p->beta * y0[i]);
        abs[i] = fabs(p->alpha) * abs[i] + fabs(p->beta * y0[i]);
    }
}

static void compare(const problem *p, const double *y, const double *want, const double *abs, const char *what,
                    const char *kernel)
{
    for (int32_t i = 0; i < p->rows; i++) {
        const double tol = p->exact ? 0 : 1e-12 * abs[i];
        FZ_CHECK(fabs(y[i] - want[i]) <= tol, "%s, kernel %s: row %d of %d x %d: %.17g, the plain loop %.17g", what,
                 kernel, i, p->rows, p->cols, y[i], want[i]);
    }
}

static double *vec(int64_t n)
{
    double *v = NULL;
    if (spmv_vec_alloc(n > 0 ? n : 1, &v)) abort();
    return v;
}

/* y = alpha S x + beta y0 in the original order, whatever S's order */
static void sell_mv(const spmv_sell *S, const problem *p, const double *x, const double *y0, double *y, double *tx,
                    double *ty)
{
    const int beta0 = p->beta == 0;
    if (!S->permuted) {
        for (int32_t i = 0; i < p->rows; i++) y[i] = beta0 ? NAN : y0[i];
        FZ_CHECK(spmv_sell_mv(S, p->alpha, x, p->beta, y) == SPMV_OK, "sell mv");
        return;
    }
    const double *xs = x;
    if (S->rows == S->cols) {
        FZ_CHECK(spmv_sell_permute_vec(S, x, tx) == SPMV_OK, "permute x");
        xs = tx;
    }
    FZ_CHECK(spmv_sell_permute_vec(S, y0, ty) == SPMV_OK, "permute y");
    if (beta0)
        for (int32_t i = 0; i < p->rows; i++) ty[i] = NAN;
    FZ_CHECK(spmv_sell_mv(S, p->alpha, xs, p->beta, ty) == SPMV_OK, "sell mv (permuted)");
    FZ_CHECK(spmv_sell_unpermute_vec(S, ty, y) == SPMV_OK, "unpermute y");
}

static const spmv_kernel *family_crs(const spmv_family *f)
{
    for (const spmv_kernel *const *k = f->kernels; k && *k; k++)
        if ((*k)->crs && (*k)->dot) return *k;
    return &spmv__k_crs_ref;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    problem *p = &P;
    const uint32_t shape = fz_u8(&in);
    p->rows = (int32_t)(fz_u16(&in) % (MAXDIM + 1));
    p->cols = shape & 1 ? p->rows : (int32_t)(fz_u16(&in) % (MAXDIM + 1));
    p->exact = !(shape & 2);
    static const double AB[][2] = {{1, 0}, {1, 1}, {-0.5, 0.5}, {2, -1}, {0, 1}, {0, 0}};
    const uint32_t ab = (shape >> 2) % 6;
    p->alpha = AB[ab][0];
    p->beta = AB[ab][1];

    spmv_sell_opts o = spmv_sell_opts_default();
    static const int32_t Cs[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 32, 48, 64, 65, 128, 256, 0, 1000, 1 << 20,
                                 INT32_MAX};
    o.C = Cs[fz_u8(&in) % 20];
    const uint32_t sg = fz_u8(&in);
    const int32_t C1 = o.C > 0 ? o.C : 8;
    switch (sg % 10) {
    case 0: o.sigma = 0; break;
    case 1: o.sigma = 1; break;
    case 2: o.sigma = C1; break;
    case 3: o.sigma = C1 < INT32_MAX / 4 ? 4 * C1 : INT32_MAX; break;
    case 4: o.sigma = p->rows > 0 ? p->rows : 1; break;
    case 5: o.sigma = p->rows + 1; break;
    case 6: o.sigma = INT32_MAX; break;
    default: o.sigma = 1 + (int32_t)(sg / 10) * 3; break;
    }
    const uint32_t f1 = fz_u8(&in), f2 = fz_u8(&in), f3 = fz_u8(&in);
    o.unroll = 1 + (int32_t)(f1 % 8);
    o.permuted = (f1 >> 3) & 1;
    o.rcm = (f1 >> 4) & 1;
    o.nt_stores = (f1 >> 5) & 1;
    o.idx16 = (int)((f1 >> 6) % 3) - 1;
    static const int32_t runs[] = {-1, 0, 1, 2, 3, 4, 6, 8, 16, 33, 64, 65};
    o.runs = runs[f2 % 12];
    o.xaccess = (int)((f2 >> 4) % 4);
    o.vidx = (int)((f2 >> 6) % 3) - 1; /* value indices: auto, off, on */
    static const int32_t lr[] = {-1, -1, 0, 1, 2, 5, 17, 64};
    o.long_rows = lr[f3 % 8];
    o.nthreads = (int)((f3 >> 3) % 6);
    static const double guard[] = {2, 2, 1, 0};
    o.max_stored_factor = guard[(f3 >> 6) % 4];
    if (o.max_stored_factor == 0 && o.C > 256) o.max_stored_factor = 2; /* no guard: bounded C only */
    build_entries(p, &in);

    spmv_crs *A = NULL;
    FZ_CHECK(spmv_crs_from_coo(p->rows, p->cols, p->nnz, p->ri, p->ci, p->v, 0, &A) == SPMV_OK, "from_coo");
    double *x = vec(p->cols), *y0 = vec(p->rows), *y = vec(p->rows), *want = vec(p->rows), *abs = vec(p->rows);
    double *tx = vec(p->cols > p->rows ? p->cols : p->rows), *ty = vec(p->rows), *y1 = vec(p->rows);
    for (int32_t j = 0; j < p->cols; j++) x[j] = p->exact ? (double)((j * 7) % 11 - 5) : 1.0 + j / 7.0;
    for (int32_t i = 0; i < p->rows; i++) y0[i] = p->exact ? (double)(i % 5 - 2) : 0.5 + i / 3.0;
    reference(p, x, y0, want, abs);

    /* CRS: every CRS kernel of every usable family (also those the registry would not choose for A, e.g. the
     * short-row ones: a kernel's accepts_crs is about speed), 1 and 3 parts */
    const spmv_kernel *crs_kernel = A->kernel;
    for (int a = 0; a < spmv_arch_count(); a++) {
        const spmv_family *f = spmv__family((spmv_arch)a);
        if (!f || !spmv_arch_usable((spmv_arch)a)) continue;
        for (const spmv_kernel *const *k = f->kernels; k && *k; k++) {
            if (!(*k)->crs || !(*k)->dot) continue;
            A->kernel = *k;
            for (int nt = 1; nt <= 3; nt += 2) {
                FZ_CHECK(spmv_crs_set_threads(A, nt) == SPMV_OK, "crs threads");
                for (int32_t i = 0; i < p->rows; i++) y[i] = p->beta == 0 ? NAN : y0[i];
                FZ_CHECK(spmv_crs_mv(A, p->alpha, x, p->beta, y) == SPMV_OK, "crs mv");
                compare(p, y, want, abs, "CRS", A->kernel->name);
            }
        }
    }
    A->kernel = crs_kernel;

    /* RCM: a permutation and its inverse */
    int32_t *perm = NULL, *iperm = NULL;
    if (p->rows == p->cols && p->rows > 0) {
        perm = malloc((size_t)p->rows * sizeof *perm);
        iperm = malloc((size_t)p->rows * sizeof *iperm);
        FZ_CHECK(spmv_rcm(A, perm, iperm) == SPMV_OK, "rcm");
        for (int32_t i = 0; i < p->rows; i++)
            FZ_CHECK(perm[i] >= 0 && perm[i] < p->rows && iperm[perm[i]] == i, "rcm: not a permutation at %d", i);
    }

    spmv_sell *S = NULL;
    spmv_status st = spmv_sell_from_crs(A, &o, &S);
    const int invalid = (o.rcm && p->rows != p->cols) || (o.runs > 0 && o.C > 64);
    /* the stored entries of spmv_tune_stored: exact without run columns and with the default long rows */
    int64_t est = -1;
    if (o.runs == 0 && o.long_rows == -1 && o.C > 0 && o.sigma > 0 && !invalid)
        FZ_CHECK(spmv_tune_stored(A, o.C, o.sigma, o.unroll, o.rcm ? perm : NULL, &est) == SPMV_OK, "tune_stored");
    if (st != SPMV_OK) {
        fz_check_message(st);
        FZ_CHECK(invalid || st == SPMV_ERR_PADDING, "conversion C %d sigma %d unroll %d runs %d long_rows %d: "
                 "status %d", o.C, o.sigma, o.unroll, o.runs, o.long_rows, (int)st);
        if (st == SPMV_ERR_PADDING && est >= 0) {
            const double limit = o.max_stored_factor * (double)A->nnz;
            FZ_CHECK(est > (limit > (double)(1 << 20) ? limit : (double)(1 << 20)), "padding guard refused %lld "
                     "stored entries (nnz %lld)", (long long)est, (long long)A->nnz);
        }
        goto done;
    }
    FZ_CHECK(!invalid, "invalid options accepted");
    FZ_CHECK(S->rows == p->rows && S->cols == p->cols && S->nnz == A->nnz && S->stored >= A->nnz, "SELL shape");
    if (est >= 0) FZ_CHECK(est == S->stored, "spmv_tune_stored %lld, the conversion stores %lld", (long long)est,
                           (long long)S->stored);

    /* back to CRS: A again */
    {
        spmv_crs *B = NULL;
        FZ_CHECK(spmv_sell_to_crs(S, &B) == SPMV_OK, "sell_to_crs");
        FZ_CHECK(B->rows == A->rows && B->cols == A->cols && B->nnz == A->nnz &&
                 !memcmp(B->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr) &&
                 (!A->nnz || (!memcmp(B->col, A->col, (size_t)A->nnz * sizeof *A->col) &&
                              !memcmp(B->val, A->val, (size_t)A->nnz * sizeof *A->val))), "SELL -> CRS differs");
        spmv_crs_free(B);
    }

    /* the registry's kernel at several partitions, then every kernel that fits S */
    const spmv_kernel *sk = S->kernel, *lk = S->long_kernel;
    for (int nt = 1; nt <= 5; nt += 2) {
        FZ_CHECK(spmv_sell_set_threads(S, nt) == SPMV_OK, "sell threads");
        sell_mv(S, p, x, y0, y, tx, ty);
        compare(p, y, want, abs, "SELL", S->kernel->name);
    }
    for (int a = 0; a < spmv_arch_count(); a++) {
        const spmv_family *f = spmv__family((spmv_arch)a);
        if (!f || !spmv_arch_usable((spmv_arch)a)) continue;
        for (const spmv_kernel *const *k = f->kernels; k && *k; k++) {
            if (!(*k)->sell || ((*k)->nt && !SPMV_SELL_DIRECT(S))) continue; /* nt: y indexed directly */
            if (!((*k)->accepts ? (*k)->accepts(S) : (*k)->shape.C == S->C)) continue;
            S->kernel = *k;
            S->long_kernel = S->nlong > 0 ? family_crs(f) : NULL;
            sell_mv(S, p, x, y0, y, tx, ty);
            compare(p, y, want, abs, "SELL", (*k)->name);
        }
    }
    S->kernel = &spmv__k_sell_ref;
    S->long_kernel = S->nlong > 0 ? &spmv__k_crs_ref : NULL;
    sell_mv(S, p, x, y0, y, tx, ty);
    compare(p, y, want, abs, "SELL", "reference");
    S->kernel = sk;
    /* the CRS part of a hybrid matrix through every CRS kernel's partial-row entry point */
    for (int a = 0; a < spmv_arch_count() && S->nlong > 0; a++) {
        const spmv_family *f = spmv__family((spmv_arch)a);
        if (!f || !spmv_arch_usable((spmv_arch)a)) continue;
        for (const spmv_kernel *const *k = f->kernels; k && *k; k++) {
            if (!(*k)->crs || !(*k)->dot) continue;
            S->long_kernel = *k;
            sell_mv(S, p, x, y0, y, tx, ty);
            compare(p, y, want, abs, "SELL, CRS part", (*k)->name);
        }
    }
    S->long_kernel = lk;

    /* the fused multiply: y as above, and <x, y>, <y, y> of the new y */
    if (p->rows == p->cols) {
        const double *xs = x;
        if (S->permuted) {
            FZ_CHECK(spmv_sell_permute_vec(S, x, tx) == SPMV_OK, "permute");
            FZ_CHECK(spmv_sell_permute_vec(S, y0, ty) == SPMV_OK, "permute");
            xs = tx;
        } else {
            memcpy(ty, y0, (size_t)p->rows * sizeof *ty);
        }
        double xy = NAN, yy = NAN;
        FZ_CHECK(spmv_sell_mv_dot(S, p->alpha, xs, p->beta, ty, &xy, &yy) == SPMV_OK, "mv_dot");
        if (S->permuted) FZ_CHECK(spmv_sell_unpermute_vec(S, ty, y) == SPMV_OK, "unpermute");
        else memcpy(y, ty, (size_t)p->rows * sizeof *y);
        compare(p, y, want, abs, "SELL fused", S->kernel->name);
        double wxy = 0, wyy = 0, axy = 0;
        for (int32_t i = 0; i < p->rows; i++) wxy += x[i] * y[i], wyy += y[i] * y[i], axy += fabs(x[i] * y[i]);
        FZ_CHECK(fabs(xy - wxy) <= 1e-12 * axy && fabs(yy - wyy) <= 1e-12 * wyy, "dots %.17g %.17g, want %.17g %.17g",
                 xy, yy, wxy, wyy);
    }

    /* new values, same pattern: twice the values give twice the product, bit for bit */
    {
        spmv_crs *B = NULL;
        FZ_CHECK(spmv_crs_copy(A, &B) == SPMV_OK, "copy");
        for (int64_t k = 0; k < B->nnz; k++) B->val[k] *= 2;
        problem q = *p;
        q.alpha = 1, q.beta = 0;
        sell_mv(S, &q, x, y0, y1, tx, ty);
        FZ_CHECK(spmv_sell_update_values(S, B) == SPMV_OK, "update_values");
        sell_mv(S, &q, x, y0, y, tx, ty);
        for (int32_t i = 0; i < p->rows; i++)
            FZ_CHECK(y[i] == 2 * y1[i] || (isnan(y[i]) && isnan(y1[i])) || !isfinite(y1[i]), "new values: row %d: "
                     "%.17g, twice %.17g", i, y[i], y1[i]);
        spmv_crs_free(B);
    }
    spmv_sell_free(S);

    /* the handle: optimize (model only) and multiply in its order */
    {
        spmv_matrix *M = NULL;
        FZ_CHECK(spmv_matrix_create_crs(A->rows, A->cols, A->rowptr, A->col, A->val, SPMV_COPY, &M) == SPMV_OK,
                 "matrix_create_crs");
        spmv_hints h = spmv_hints_default();
        h.expected_calls = (int64_t)1 << 40;
        h.permuted_ok = o.permuted;
        h.nthreads = o.nthreads;
        FZ_CHECK(spmv_matrix_set_hints(M, &h) == SPMV_OK, "hints");
        FZ_CHECK(spmv_matrix_optimize(M) == SPMV_OK, "optimize");
        FZ_CHECK(spmv_matrix_permute_vec(M, y0, ty) == SPMV_OK, "permute");
        const double *xs = x;
        if (spmv_matrix_permuted(M) && p->rows == p->cols) {
            FZ_CHECK(spmv_matrix_permute_vec(M, x, tx) == SPMV_OK, "permute x");
            xs = tx;
        }
        if (p->beta == 0)
            for (int32_t i = 0; i < p->rows; i++) ty[i] = NAN;
        FZ_CHECK(spmv_matrix_mv(M, p->alpha, xs, p->beta, ty) == SPMV_OK, "matrix mv");
        FZ_CHECK(spmv_matrix_unpermute_vec(M, ty, y) == SPMV_OK, "unpermute");
        compare(p, y, want, abs, "handle", "optimized");
        spmv_matrix_free(M);
    }

done:
    free(perm);
    free(iperm);
    spmv_crs_free(A);
    spmv_vec_free(x);
    spmv_vec_free(y0);
    spmv_vec_free(y);
    spmv_vec_free(want);
    spmv_vec_free(abs);
    spmv_vec_free(tx);
    spmv_vec_free(ty);
    spmv_vec_free(y1);
    return 0;
}
