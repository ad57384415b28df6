/* Reverse Cuthill-McKee: a hand-worked order, permuted Laplacians, bijection and SpMV equivalence on the shared
 * matrices, errors and out-of-memory paths. */
#include "internal.h"
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rcm.c's test hook: largest nnz for the 32-bit CXSparse path (-1: always the 64-bit cs_dl path). */
extern int64_t spmv__rcm_narrow_max;

/* ------------------------------------------------------------------------------------------------ helpers */

static int is_bijection(const int32_t *perm, const int32_t *iperm, int32_t n)
{
    char *seen = calloc((size_t)n + 1, 1);
    int ok = 1;
    for (int32_t i = 0; i < n && ok; i++) {
        int32_t p = perm[i];
        if (p < 0 || p >= n || seen[p] || iperm[p] != i) ok = 0;
        else seen[p] = 1;
    }
    free(seen);
    return ok;
}

static int64_t bandwidth(const spmv_crs *A)
{
    spmv_crs_stats s;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_get_stats(A, &s), SPMV_OK);
    return s.bandwidth;
}

/* B = P A P^T with a deterministic random permutation (Fisher-Yates with tu_rand). */
static spmv_crs *random_permuted(const spmv_crs *A, uint64_t seed)
{
    int32_t n = A->rows;
    int32_t *q = malloc((size_t)n * sizeof *q);
    for (int32_t i = 0; i < n; i++) q[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)(tu_rand(&seed) % (uint64_t)(i + 1));
        int32_t t = q[i];
        q[i] = q[j];
        q[j] = t;
    }
    spmv_crs *B = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_permute(A, q, &B), SPMV_OK);
    free(q);
    return B;
}

/* RCM of A; checks the bijection and determinism (a second call gives the same permutation). Returns P A P^T. */
static spmv_crs *rcm_apply(const spmv_crs *A, int32_t **perm_out)
{
    int32_t n = A->rows;
    int32_t *perm = malloc(((size_t)n + 1) * sizeof *perm), *iperm = malloc(((size_t)n + 1) * sizeof *iperm);
    int32_t *perm2 = malloc(((size_t)n + 1) * sizeof *perm2), *iperm2 = malloc(((size_t)n + 1) * sizeof *iperm2);
    CU_ASSERT_EQUAL_FATAL(spmv_rcm(A, perm, iperm), SPMV_OK);
    CU_ASSERT_FATAL(is_bijection(perm, iperm, n));
    CU_ASSERT_EQUAL_FATAL(spmv_rcm(A, perm2, iperm2), SPMV_OK);
    CU_ASSERT(memcmp(perm, perm2, (size_t)n * sizeof *perm) == 0);
    CU_ASSERT(memcmp(iperm, iperm2, (size_t)n * sizeof *iperm) == 0);
    spmv_crs *B = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_permute(A, perm, &B), SPMV_OK);
    free(perm2);
    free(iperm2);
    free(iperm);
    if (perm_out) *perm_out = perm;
    else free(perm);
    return B;
}

/* y = A x computed on B = P A P^T with x' = P x and mapped back, against y = A x directly (both with tu_ref_mv). */
static void check_spmv_equivalent(const spmv_crs *A, const spmv_crs *B, const int32_t *perm, const char *what)
{
    int32_t n = A->rows;
    size_t sz = ((size_t)n + 1) * sizeof(double);
    double *x = calloc(1, sz), *xp = calloc(1, sz), *y = calloc(1, sz), *yp = calloc(1, sz), *yb = calloc(1, sz);
    double *absax = calloc(1, sz), *absbx = calloc(1, sz), *absb = calloc(1, sz);
    uint64_t seed = 12345;
    for (int32_t i = 0; i < n; i++) x[i] = tu_rand_unit(&seed);
    for (int32_t i = 0; i < n; i++) xp[i] = x[perm[i]]; /* original -> permuted */
    tu_ref_mv(A, x, y, absax);
    tu_ref_mv(B, xp, yp, absbx);
    for (int32_t i = 0; i < n; i++) { /* permuted -> original */
        yb[perm[i]] = yp[i];
        absb[perm[i]] = absbx[i];
    }
    CU_ASSERT_EQUAL(tu_count_mismatch(yb, y, absax, n, TU_TOL, what), 0);
    /* the same terms, summed in another order: |A||x| agrees to rounding */
    int64_t bad = 0;
    for (int32_t i = 0; i < n; i++) bad += fabs(absb[i] - absax[i]) > 1e-15 * absax[i];
    CU_ASSERT_EQUAL(bad, 0);
    free(x);
    free(xp);
    free(y);
    free(yp);
    free(yb);
    free(absax);
    free(absbx);
    free(absb);
}

/* ------------------------------------------------------------------------------------------------ hand-worked */

/* An 11 x 11 unsymmetric pattern; the graph is that of A + A^T without self loops:
 *
 *   row 0: 5          row 4: 4 (self loop only)   row 8: 3 6
 *   row 1: (empty)    row 5: 2 5                  row 9: 2 9
 *   row 2: 9          row 6: 3                    row 10: (empty, column empty too)
 *   row 3: 5 8        row 7: 1
 *
 *   edges: 0-5, 2-9, 2-5, 3-5, 3-8, 3-6, 6-8, 1-7
 *
 *                  0
 *                  |
 *      9 --- 2 --- 5 --- 3 --- 8        1 --- 7        4, 10: isolated
 *                         \   /
 *                           6
 *
 *   degrees: 0:1 1:1 2:2 3:3 4:0 5:3 6:2 7:1 8:2 9:1 10:0 (the self loops at 4, 5 and 9 do not count)
 *   global (degree, index) order: 4 10 | 0 1 7 9 | 2 6 8 | 3 5
 *   adjacency by (degree, index):  0:[5] 1:[7] 2:[9 5] 3:[6 8 5] 5:[0 2 3] 6:[8 3] 7:[1] 8:[6 3] 9:[2]
 *
 * Cuthill-McKee positions, components in the order of their (degree, index)-smallest node:
 *   4 -> 0 and 10 -> 1 (isolated).
 *   Component of 0. George-Liu from 0: levels [0] [5] [2 3] [9 6 8], 4 levels. The last level's minimum-degree node
 *   is 9: levels [9] [2] [5] [0 3] [6 8], 5 levels > 4, so root = 9. Its last level's minimum (6 and 8 tie on
 *   degree 2, 6 has the lower index) is 6: levels [6] [8 3] [5] [0 2] [9], 5 levels, no growth: stop, root = 9.
 *   Candidates: 9, then the two lowest (degree, index) nodes of 9's last level: 6, 8, then the start node 0.
 *     from 9: 9 2 5 0 3 6 8 at positions 2..8; edges 5-3 (4->6) and 3-8 (6->8) span 2: bandwidth 2.
 *     6: its level structure (above) is 2 wide, so its bandwidth is >= 2 = best: skipped.
 *     from 8: 8 6 3 -> 8-3 spans 2 = best: abandoned.
 *     0: its level structure (above) is 3 wide: skipped.        So positions 2..8 = 9 2 5 0 3 6 8.
 *   Component of 1: a path, [1] [7]: root 1; candidates 1, 7 (7 ties at bandwidth 1, abandoned): 1 -> 9, 7 -> 10.
 *   Cuthill-McKee order: 4 10 9 2 5 0 3 6 8 1 7
 * Reversed: perm = 7 1 8 6 3 0 5 2 9 10 4, iperm = 5 1 7 4 10 6 3 0 2 8 9.
 * Bandwidth: 7 (entry (9,2)) before, 2 after. */
static void test_hand_worked(void)
{
    const int64_t rp[] = {0, 1, 1, 2, 4, 5, 7, 8, 9, 11, 13, 13};
    const int32_t col[] = {5, 9, 5, 8, 4, 2, 5, 3, 1, 3, 6, 2, 9};
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(11, 11, rp, col, NULL, &A), SPMV_OK);
    int32_t perm[11], iperm[11];
    CU_ASSERT_EQUAL_FATAL(spmv_rcm(A, perm, iperm), SPMV_OK);
    const int32_t eperm[11] = {7, 1, 8, 6, 3, 0, 5, 2, 9, 10, 4};
    const int32_t eiperm[11] = {5, 1, 7, 4, 10, 6, 3, 0, 2, 8, 9};
    for (int i = 0; i < 11; i++) {
        CU_ASSERT_EQUAL(perm[i], eperm[i]);
        CU_ASSERT_EQUAL(iperm[i], eiperm[i]);
    }
    CU_ASSERT_EQUAL(bandwidth(A), 7);
    spmv_crs *B = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_permute(A, perm, &B), SPMV_OK);
    CU_ASSERT_EQUAL(bandwidth(B), 2);
    check_spmv_equivalent(A, B, perm, "hand-worked");
    spmv_crs_free(B);
    spmv_crs_free(A);
}

/* A 6-node path 0-1-...-5 numbered out of order (row i links to next[i]): 3-0-5-1-4-2. George-Liu from the
 * smallest-index degree-1 node, 2: levels [2] [4] [1] [5] [0] [3] = 6 levels = 6 nodes, a path, stop. Candidates 2
 * and 3 (the far end) both give bandwidth 1, the tie goes to 2: CM order 2 4 1 5 0 3, reversed 3 0 5 1 4 2. */
static void test_path(void)
{
    const int64_t rp[] = {0, 1, 2, 2, 3, 4, 5}; /* edges 0-5, 1-4, 3-0, 4-2, 5-1 (one direction each) */
    const int32_t col[] = {5, 4, 0, 2, 1};
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(6, 6, rp, col, NULL, &A), SPMV_OK);
    int32_t perm[6], iperm[6];
    CU_ASSERT_EQUAL_FATAL(spmv_rcm(A, perm, iperm), SPMV_OK);
    const int32_t eperm[6] = {3, 0, 5, 1, 4, 2};
    for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(perm[i], eperm[i]);
    CU_ASSERT(is_bijection(perm, iperm, 6));
    spmv_crs_free(A);
}

/* No edges at all (empty matrix, or only a diagonal): every node is isolated; the Cuthill-McKee order is the index
 * order, so RCM reverses it. Also 0 x 0 and 1 x 1. */
static void test_no_edges(void)
{
    const int64_t rp0[] = {0, 0, 0, 0, 0};
    const int64_t rpd[] = {0, 1, 2, 3, 4};
    const int32_t cold[] = {0, 1, 2, 3};
    spmv_crs *E = NULL, *D = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(4, 4, rp0, NULL, NULL, &E), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(4, 4, rpd, cold, NULL, &D), SPMV_OK);
    int32_t perm[4], iperm[4];
    for (int m = 0; m < 2; m++) {
        CU_ASSERT_EQUAL_FATAL(spmv_rcm(m ? D : E, perm, iperm), SPMV_OK);
        for (int i = 0; i < 4; i++) {
            CU_ASSERT_EQUAL(perm[i], 3 - i);
            CU_ASSERT_EQUAL(iperm[i], 3 - i);
        }
    }
    spmv_crs_free(E);
    spmv_crs_free(D);

    int64_t zero = 0;
    spmv_crs Z = {.rows = 0, .cols = 0, .nnz = 0, .rowptr = &zero};
    int32_t sentinel = -7;
    CU_ASSERT_EQUAL(spmv_rcm(&Z, &sentinel, &sentinel), SPMV_OK);
    CU_ASSERT_EQUAL(sentinel, -7);

    const int64_t rp1[] = {0, 1};
    const int32_t col1[] = {0};
    spmv_crs *O = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(1, 1, rp1, col1, NULL, &O), SPMV_OK);
    CU_ASSERT_EQUAL(spmv_rcm(O, perm, iperm), SPMV_OK);
    CU_ASSERT_EQUAL(perm[0], 0);
    CU_ASSERT_EQUAL(iperm[0], 0);
    spmv_crs_free(O);
}

/* ------------------------------------------------------------------------------------------------ Laplacians */

/* k x k 5-point Laplacian, randomly permuted, then RCM: bandwidth <= 2k, and exactly what this algorithm gives
 * (from a corner the levels are anti-diagonals of at most k nodes). */
static void check_laplace(int32_t k, uint64_t seed, int64_t expected_bw)
{
    spmv_crs *L = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(k, k, &L), SPMV_OK);
    CU_ASSERT_EQUAL(bandwidth(L), k);
    spmv_crs *Lp = random_permuted(L, seed);
    int32_t *perm = NULL;
    spmv_crs *B = rcm_apply(Lp, &perm);
    int64_t bw = bandwidth(B);
    printf("\n    laplace2d %dx%d permuted: bandwidth %lld -> %lld", k, k, (long long)bandwidth(Lp), (long long)bw);
    CU_ASSERT(bw <= 2 * k);
    CU_ASSERT_EQUAL(bw, expected_bw);
    check_spmv_equivalent(Lp, B, perm, "laplace2d");
    free(perm);
    spmv_crs_free(B);
    spmv_crs_free(Lp);
    spmv_crs_free(L);
}

static void test_laplace_small(void) { check_laplace(7, 1, 7); }
static void test_laplace_large(void) { check_laplace(60, 2, 60); }

/* ------------------------------------------------------------------------------------------------ shared matrices */

/* Expected bandwidths after RCM for some shared matrices (regression values of this algorithm, recorded in
 * BENCHMARKS.md next to scipy's). */
static const struct { const char *name; int64_t before, after; } known[] = {
    {"494_bus.mtx", 428, 62}, {"bcsstk13.mtx", 1250, 369}, {"nnc1374.mtx", 618, 99},
    {"karate.mtx", 31, 15},   {"west0479.mtx", 388, 236},  {"rajat01.mtx", 6826, 2267},
};

static void run_folder(const char *folder, int top, int *ntested, int *nknown)
{
    DIR *d = opendir(folder);
    if (!d) {
        printf("\n    cannot open %s", folder);
        CU_FAIL("a shared matrices folder cannot be read");
        return;
    }
    struct dirent *e;
    char **names = NULL;
    size_t nn = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0) continue;
        names = realloc(names, (nn + 1) * sizeof *names);
        names[nn] = malloc(len + 1);
        memcpy(names[nn++], e->d_name, len + 1);
    }
    closedir(d);
    for (size_t f = 0; f < nn; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", folder, names[f]);
        spmv_crs *A = NULL;
        if (spmv_crs_read_mm(path, &A) != SPMV_OK) { /* complex, malformed (mm-edge): not ours to test */
            free(names[f]);
            continue;
        }
        if (A->rows != A->cols) {
            int32_t p[1], ip[1];
            CU_ASSERT_EQUAL(spmv_rcm(A, p, ip), SPMV_ERR_ARG);
        } else {
            int32_t *perm = NULL;
            spmv_crs *B = rcm_apply(A, &perm);
            check_spmv_equivalent(A, B, perm, names[f]);
            for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
                if (top && strcmp(known[k].name, names[f]) == 0) {
                    CU_ASSERT_EQUAL(bandwidth(A), known[k].before);
                    CU_ASSERT_EQUAL(bandwidth(B), known[k].after);
                    if (bandwidth(B) != known[k].after)
                        printf("\n    %s: bandwidth %lld, expected %lld", names[f], (long long)bandwidth(B),
                               (long long)known[k].after);
                    (*nknown)++;
                }
            (*ntested)++;
            free(perm);
            spmv_crs_free(B);
        }
        spmv_crs_free(A);
        free(names[f]);
    }
    free(names);
}

static void test_shared_matrices(void)
{
    if (!tu_need_shared("RCM on the shared matrices")) return;
    int ntested = 0, nknown = 0;
    char top[4096], edge[4096];
    snprintf(top, sizeof top, "%s", tu_shared("."));
    snprintf(edge, sizeof edge, "%s", tu_shared("mm-edge"));
    run_folder(top, 1, &ntested, &nknown);
    run_folder(edge, 0, &ntested, &nknown);
    printf("\n    %d square matrices, %d with known bandwidths", ntested, nknown);
    CU_ASSERT(ntested >= 15);
    CU_ASSERT_EQUAL(nknown, (int)(sizeof known / sizeof known[0]));
}

/* ------------------------------------------------------------------------------------------------ errors, memory */

static void test_errors(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(3, 3, &A), SPMV_OK);
    int32_t perm[9], iperm[9];
    CU_ASSERT_EQUAL(spmv_rcm(NULL, perm, iperm), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "A is NULL"));
    CU_ASSERT_EQUAL(spmv_rcm(A, NULL, iperm), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "perm is NULL"));
    CU_ASSERT_EQUAL(spmv_rcm(A, perm, NULL), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "iperm is NULL"));
    spmv_crs_free(A);

    /* 3 x 4: not square, the message gives the shape */
    const int64_t rp[] = {0, 2, 2, 5};
    const int32_t col[] = {0, 2, 0, 1, 3};
    CU_ASSERT_EQUAL_FATAL(spmv_crs_from_arrays(3, 4, rp, col, NULL, &A), SPMV_OK);
    for (int i = 0; i < 9; i++) perm[i] = iperm[i] = -7;
    CU_ASSERT_EQUAL(spmv_rcm(A, perm, iperm), SPMV_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(spmv_last_error(), "3 x 4"));
    for (int i = 0; i < 9; i++) CU_ASSERT(perm[i] == -7 && iperm[i] == -7);
    spmv_crs_free(A);
}

/* Every allocation of spmv_rcm fails in turn: SPMV_ERR_NOMEM with the outputs untouched, until it succeeds with the
 * same permutation as without failures. (CXSparse's own allocations use malloc and are freed on every path; run
 * this test under valgrind to check for leaks.) */
static void test_out_of_memory(void)
{
    spmv_crs *L = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(9, 7, &L), SPMV_OK);
    spmv_crs *A = random_permuted(L, 99);
    int32_t n = A->rows, ref[63], refi[63], perm[63], iperm[63];
    CU_ASSERT_EQUAL_FATAL(spmv_rcm(A, ref, refi), SPMV_OK);
    long nfail = 0;
    for (long N = 0; N < 1000; N++) {
        for (int32_t i = 0; i < n; i++) perm[i] = iperm[i] = -7;
        spmv__alloc_fail_after(N);
        spmv_status st = spmv_rcm(A, perm, iperm);
        spmv__alloc_fail_after(-1);
        if (st == SPMV_OK) break;
        nfail++;
        CU_ASSERT_EQUAL_FATAL(st, SPMV_ERR_NOMEM);
        int untouched = 1;
        for (int32_t i = 0; i < n; i++) untouched &= perm[i] == -7 && iperm[i] == -7;
        CU_ASSERT(untouched);
    }
    CU_ASSERT(nfail >= 2);
    CU_ASSERT(memcmp(perm, ref, (size_t)n * sizeof *perm) == 0);
    CU_ASSERT(memcmp(iperm, refi, (size_t)n * sizeof *iperm) == 0);
    printf("\n    %ld failing allocations before success", nfail);
    spmv_crs_free(A);
    spmv_crs_free(L);
}

/* The 64-bit (cs_dl) pattern path, normally only for nnz > 2^30, gives the same permutations. */
static void test_wide_path(void)
{
    int64_t saved = spmv__rcm_narrow_max;
    spmv__rcm_narrow_max = -1;
    test_hand_worked();
    test_path();
    test_no_edges();
    test_laplace_small();
    test_out_of_memory();
    spmv__rcm_narrow_max = saved;
}

int main(void)
{
    /* a library built without SuiteSparse has no RCM: it must say so, and the rest is skipped */
    const int64_t rp1[] = {0, 1};
    const int32_t col1[] = {0};
    spmv_crs *O = NULL;
    int32_t p1[1], ip1[1];
    if (spmv_crs_from_arrays(1, 1, rp1, col1, NULL, &O) == SPMV_OK && spmv_rcm(O, p1, ip1) == SPMV_ERR_UNSUPPORTED) {
        printf("skipped: %s\n", spmv_last_error());
        spmv_crs_free(O);
        return 77;
    }
    spmv_crs_free(O);
    tu_suite("rcm", (tu_case[]){{"hand-worked 11x11 unsymmetric pattern", test_hand_worked},
                                {"path numbered out of order", test_path},
                                {"no edges, 0x0, 1x1", test_no_edges},
                                {"laplace2d 7x7 randomly permuted", test_laplace_small},
                                {"laplace2d 60x60 randomly permuted", test_laplace_large},
                                {"shared matrices: bijection, determinism, SpMV", test_shared_matrices},
                                {"errors: NULL, non-square", test_errors},
                                {"out of memory", test_out_of_memory},
                                {"64-bit CXSparse path: same results", test_wide_path},
                                {NULL, NULL}});
    return tu_run();
}
