/* CRS kernel for Arm SVE (ACLE), vector-length agnostic.
 *
 * Each row's entries are processed VL = svcntd() at a time with svwhilelt predicates (no remainder loop), U = 4
 * vectors per iteration into four independent partial sums (MVE against the FP latency; Alappat et al., PMBS 2020,
 * Sect. III/IV), and one horizontal add (svaddv = faddv) per row. Per vector of entries the loop issues one whilelt,
 * one ld1sw (column indices), one gather ld1d (x), one ld1d (values) and one predicated fmla; the partial sums
 * keep their inactive lanes (merging fmla), so no lane past the row end is ever added.
 *
 * Semantics as src/kernels/ref/crs_ref.c: y[r] = beta*y[r] + alpha*sum_j A[r,j]*x[j] for rows [r0, r1);
 * beta == 0: y is not read. */
#include "kernel.h"

#include <arm_sve.h>

#if !defined(__ARM_FEATURE_SVE)
#error "compile src/kernels/sve/ with -march=armv8-a+sve (cmake/SpmvIsa.cmake)"
#endif

/* sum_j val[j]*x[col[j]] over [b, e) */
static inline __attribute__((always_inline)) double crs_row(const int32_t *col, const double *val, const double *x,
                                                           int64_t b, int64_t e)
{
    const int64_t VL = (int64_t)svcntd();
    svfloat64_t s0 = svdup_n_f64(0.0), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t k = b; k < e; k += 4 * VL) {
        const svbool_t p0 = svwhilelt_b64_s64(k, e);
        const svbool_t p1 = svwhilelt_b64_s64(k + VL, e);
        const svbool_t p2 = svwhilelt_b64_s64(k + 2 * VL, e);
        const svbool_t p3 = svwhilelt_b64_s64(k + 3 * VL, e);
        /* _vnum: base + u*VL elements, so no C pointer past the row's end is formed (inactive lanes do not fault) */
        const int32_t *c = col + k;
        const double *v = val + k;
        const svint64_t i0 = svld1sw_vnum_s64(p0, c, 0);
        const svint64_t i1 = svld1sw_vnum_s64(p1, c, 1);
        const svint64_t i2 = svld1sw_vnum_s64(p2, c, 2);
        const svint64_t i3 = svld1sw_vnum_s64(p3, c, 3);
        s0 = svmla_f64_m(p0, s0, svld1_vnum_f64(p0, v, 0), svld1_gather_s64index_f64(p0, x, i0));
        s1 = svmla_f64_m(p1, s1, svld1_vnum_f64(p1, v, 1), svld1_gather_s64index_f64(p1, x, i1));
        s2 = svmla_f64_m(p2, s2, svld1_vnum_f64(p2, v, 2), svld1_gather_s64index_f64(p2, x, i2));
        s3 = svmla_f64_m(p3, s3, svld1_vnum_f64(p3, v, 3), svld1_gather_s64index_f64(p3, x, i3));
    }
    const svbool_t all = svptrue_b64();
    return svaddv_f64(all, svadd_f64_x(all, svadd_f64_x(all, s0, s1), svadd_f64_x(all, s2, s3)));
}

static void crs_sve(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta, double *y)
{
    const int64_t *rp = A->rowptr;
    const int32_t *col = A->col;
    const double *val = A->val;
    if (alpha == 1.0 && beta == 0.0) { /* fast path: y = A x */
        for (int32_t r = r0; r < r1; r++) y[r] = crs_row(col, val, x, rp[r], rp[r + 1]);
    } else if (beta == 0.0) {
        for (int32_t r = r0; r < r1; r++) y[r] = alpha * crs_row(col, val, x, rp[r], rp[r + 1]);
    } else {
        for (int32_t r = r0; r < r1; r++) y[r] = beta * y[r] + alpha * crs_row(col, val, x, rp[r], rp[r + 1]);
    }
}

/* sum_k val[k]*x[col[k]], k in [0, n): a piece of a row split between threads (the same loop as a row) */
static double crs_sve_dot(const double *val, const int32_t *col, int64_t n, const double *x)
{
    return crs_row(col, val, x, 0, n);
}

/* Traffic per multiply, as the reference CRS kernel: 12 bytes per entry (8-byte value + 4-byte index), 24 per row
 * (8-byte row offset + y store + y write-allocate; the paper's N_nzr*(12 + 8 alpha) + 20 assumes 4-byte offsets),
 * no chunk term; 2 flops per nonzero. */
const spmv_kernel spmv__k_crs_sve = {
    .name = "crs-sve", .arch = SPMV_ARCH_SVE, .crs = crs_sve, .dot = crs_sve_dot,
    .traffic = {.bytes_per_entry = 12, .bytes_per_row = 24, .bytes_per_chunk = 0, .flops_per_entry = 2},
    /* VL entries per vector (width resolved at run time), 4 partial sums, one gather per vector */
    .shape = {.format = SPMV_FORMAT_CRS, .C = 0, .width = 0, .mve = 4, .x = SPMV_X_GATHER, .runs = 0},
};
