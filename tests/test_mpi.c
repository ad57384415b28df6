/* spmv::mpi under mpirun -n 1..4: every distributed result against the serial multiply (a long-double CRS loop
 * over the whole matrix, built on every rank), within 1e-12 * (|alpha||A||x| + |beta||y|) per entry; the exchange
 * plan against a brute-force count; uneven partitions, a rank without rows, empty remote parts, all rows on one
 * rank, rectangular matrices; bad input on one rank giving the same error on every rank (and no hang: CTest's
 * timeout would catch one).
 *
 * Every check is collective: a rank's verdict is combined with MPI_Allreduce (all_ok), so that every rank takes
 * the same path and sees every failure. */
#include "testutil.h"
#include "spmv_mpi.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

/* the verdict of every rank: 1 when ok is true on all */
static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        int ok_ = (cond) ? 1 : 0;                                                                                      \
        if (!ok_) printf("\n  rank %d: %s:%d: %s", rank, __FILE__, __LINE__, #cond);                                  \
        CU_ASSERT(all_ok(ok_));                                                                                        \
    } while (0)

/* the same string on every rank? */
static int same_string(const char *s)
{
    char buf[1024] = {0};
    snprintf(buf, sizeof buf, "%s", s);
    char root[1024];
    memcpy(root, buf, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    return all_ok(strcmp(root, buf) == 0);
}

/* ---------------------------------------------------------------- the serial reference */

static double *rand_vec(int64_t n, uint64_t seed)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = tu_rand_unit(&seed);
    return v;
}

/* y = alpha*A*x + beta*y0 in long double, bound[i] = |alpha| (|A||x|)_i + |beta| |y0_i| */
static void reference(const spmv_crs *A, double alpha, const double *x, double beta, const double *y0, double *y,
                      double *bound)
{
    double *ax = malloc((size_t)(A->rows > 0 ? A->rows : 1) * sizeof *ax);
    tu_ref_mv(A, x, ax, bound);
    for (int32_t i = 0; i < A->rows; i++) {
        y[i] = (double)((long double)alpha * ax[i] + (long double)beta * y0[i]);
        bound[i] = fabs(alpha) * bound[i] + fabs(beta) * fabs(y0[i]) + 1e-300;
    }
    free(ax);
}

/* The plan of D checked by brute force over the serial matrix A (global numbering): halo = distinct columns outside
 * this rank's block used by its rows; messages = distinct owners; sends = distinct own columns used by each other
 * rank's rows. */
static int plan_ok(const spmv_mpi_matrix *D, const spmv_crs *A)
{
    int64_t r0 = D->row_start[rank], r1 = D->row_start[rank + 1];
    int64_t c0 = D->col_start[rank], c1 = D->col_start[rank + 1];
    char *used = calloc((size_t)A->cols + 1, 1);
    for (int64_t i = r0; i < r1; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->col[k] < c0 || A->col[k] >= c1) used[A->col[k]] = 1;
    int64_t nh = 0, owners = 0;
    int last = -1, ok = 1;
    for (int32_t c = 0; c < A->cols; c++)
        if (used[c]) {
            if (nh >= D->nhalo || D->halo_col[nh] != c) ok = 0;
            nh++;
            int q = 0;
            while (!(D->col_start[q] <= c && c < D->col_start[q + 1])) q++;
            if (q != last) owners++;
            last = q;
        }
    if (nh != D->nhalo || owners != D->nrecv) ok = 0;
    /* what each other rank q needs of my columns */
    int64_t sends = 0, msgs = 0;
    for (int q = 0; q < size; q++) {
        if (q == rank) continue;
        memset(used, 0, (size_t)A->cols + 1);
        int64_t cnt = 0;
        for (int64_t i = D->row_start[q]; i < D->row_start[q + 1]; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->col[k] >= c0 && A->col[k] < c1 && !used[A->col[k]]) {
                    used[A->col[k]] = 1;
                    cnt++;
                }
        sends += cnt;
        msgs += cnt > 0;
    }
    if (sends != D->send_ptr[D->nsend] || msgs != D->nsend) ok = 0;
    if (!ok)
        printf("\n  rank %d: plan: halo %d (expected %lld), recv msgs %d (%lld), send %d (%lld), send msgs %d (%lld)",
               rank, D->nhalo, (long long)nh, D->nrecv, (long long)owners, D->send_ptr[D->nsend], (long long)sends,
               D->nsend, (long long)msgs);
    free(used);
    return ok;
}

/* Check D against the serial matrix A (global numbering): plan, mv (overlapped and not, several alpha/beta),
 * mv_dot when square. Collective. */
static void check_matrix(spmv_mpi_matrix *D, const spmv_crs *A, const char *what)
{
    CHECK(D->rows == A->rows && D->cols == A->cols);
    CHECK(D->nnz == A->nnz);
    CHECK(D->nrows == D->row_start[rank + 1] - D->row_start[rank]);
    CHECK(D->ncols == D->col_start[rank + 1] - D->col_start[rank]);
    CHECK(plan_ok(D, A));
    int64_t r0 = D->row_start[rank], c0 = D->col_start[rank];
    double *x = rand_vec(A->cols, 11), *y0 = rand_vec(A->rows, 12);
    double *yref = malloc((size_t)(A->rows + 1) * sizeof *yref), *bound = malloc((size_t)(A->rows + 1) * sizeof *bound);
    double *y = malloc((size_t)(D->nrows + 1) * sizeof *y);
    const double ab[4][2] = {{1.0, 0.0}, {1.5, -0.5}, {-2.0, 1.0}, {0.0, 2.0}};
    memset(&D->times, 0, sizeof D->times); /* the caller may zero the timers: count the multiplies made here */
    int64_t ncalls = 0;
    const double wall0 = MPI_Wtime();
    for (int ov = 0; ov <= 1; ov++) {
        spmv_mpi_set_overlap(D, ov);
        for (int t = 0; t < 4; t++) {
            double alpha = ab[t][0], beta = ab[t][1];
            reference(A, alpha, x, beta, y0, yref, bound);
            memcpy(y, y0 + r0, (size_t)D->nrows * sizeof *y);
            if (beta == 0)
                for (int32_t i = 0; i < D->nrows; i++) y[i] = NAN; /* beta = 0: y is not read */
            spmv_status st = spmv_mpi_mv(D, alpha, x + c0, beta, y);
            if (st) printf("\n  rank %d: %s", rank, spmv_mpi_last_error());
            CHECK(st == SPMV_OK);
            ncalls += st == SPMV_OK;
            char label[160];
            snprintf(label, sizeof label, "rank %d: %s overlap %d alpha %g beta %g", rank, what, ov, alpha, beta);
            CHECK(tu_count_mismatch(y, yref + r0, bound + r0, D->nrows, TU_TOL, label) == 0);
        }
        if (D->square) {
            double alpha = 1.25, beta = -0.75, xy = 0, yy = 0;
            reference(A, alpha, x, beta, y0, yref, bound);
            memcpy(y, y0 + r0, (size_t)D->nrows * sizeof *y);
            spmv_status st = spmv_mpi_mv_dot(D, alpha, x + c0, beta, y, &xy, &yy);
            CHECK(st == SPMV_OK);
            ncalls += st == SPMV_OK;
            CHECK(tu_count_mismatch(y, yref + r0, bound + r0, D->nrows, TU_TOL, what) == 0);
            long double sxy = 0, syy = 0, axy = 0, ayy = 0;
            for (int32_t i = 0; i < A->rows; i++) {
                sxy += (long double)x[i] * yref[i];
                syy += (long double)yref[i] * yref[i];
                axy += fabsl((long double)x[i] * yref[i]) + fabs(x[i]) * bound[i];
                ayy += (long double)yref[i] * yref[i] + 2 * fabs(yref[i]) * bound[i];
            }
            int ok = fabsl(xy - sxy) <= 1e-12L * axy + 1e-300L && fabsl(yy - syy) <= 1e-12L * ayy + 1e-300L;
            if (!ok) printf("\n  rank %d: %s: <x,y> %.17g (expected %.17Lg), <y,y> %.17g (%.17Lg)", rank, what, xy, sxy, yy, syy);
            CHECK(ok);
            /* NULL dot outputs are fine */
            memcpy(y, y0 + r0, (size_t)D->nrows * sizeof *y);
            CHECK(spmv_mpi_mv_dot(D, alpha, x + c0, beta, y, NULL, NULL) == SPMV_OK);
            ncalls++;
        } else { /* refused: not timed, not counted */
            double xy;
            spmv_status st = spmv_mpi_mv_dot(D, 1.0, x + c0, 0.0, y, &xy, NULL);
            CHECK(st == SPMV_ERR_ARG);
            CHECK(same_string(spmv_mpi_last_error()));
        }
    }
    spmv_mpi_set_overlap(D, 1);
    /* every successful multiply counted, each phase a duration, together within the wall time of the calls */
    const double wall = MPI_Wtime() - wall0;
    const spmv_mpi_times *T = &D->times;
    const double phases = T->post + T->local + T->wait + T->remote + T->reduce;
    if (T->calls != ncalls || !(phases <= wall))
        printf("\n  rank %d: %s: timers: %lld calls (made %lld), phases %.3g s in %.3g s", rank, what,
               (long long)T->calls, (long long)ncalls, phases, wall);
    CHECK(T->calls == ncalls && ncalls >= 8);
    CHECK(T->post >= 0 && T->local >= 0 && T->wait >= 0 && T->remote >= 0 && T->reduce >= 0 && phases <= wall);
    free(x);
    free(y0);
    free(yref);
    free(bound);
    free(y);
}

/* This rank's rows [r0, r1) of A as a CRS with global (32-bit) columns. */
static spmv_crs *rows_of(const spmv_crs *A, int64_t r0, int64_t r1)
{
    int32_t n = (int32_t)(r1 - r0);
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    for (int32_t i = 0; i <= n; i++) rp[i] = A->rowptr[r0 + i] - A->rowptr[r0];
    spmv_crs *B = NULL;
    spmv_status st = spmv_crs_from_arrays(n, A->cols, rp, A->col + A->rowptr[r0], A->val + A->rowptr[r0], &B);
    free(rp);
    return st ? NULL : B;
}

/* A random rows x cols matrix: about `per_row` entries per row at random columns, some rows empty, the diagonal
 * present where it exists. */
static spmv_crs *random_matrix(int32_t rows, int32_t cols, int per_row, uint64_t seed)
{
    int64_t cap = (int64_t)rows * (per_row + 1) + 1, nnz = 0;
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    for (int32_t i = 0; i < rows; i++) {
        if (tu_rand(&seed) % 7 == 0) continue; /* an empty row */
        int len = (int)(tu_rand(&seed) % (2 * per_row));
        for (int k = 0; k < len; k++) {
            ri[nnz] = i;
            ci[nnz] = (int32_t)(tu_rand(&seed) % (uint64_t)cols);
            v[nnz++] = tu_rand_unit(&seed);
        }
        if (i < cols) {
            ri[nnz] = i;
            ci[nnz] = i;
            v[nnz++] = 4.0;
        }
    }
    spmv_crs *A = NULL;
    spmv_crs_from_coo(rows, cols, nnz, ri, ci, v, 0, &A);
    free(ri);
    free(ci);
    free(v);
    return A;
}

/* ---------------------------------------------------------------- generators */

static void gen_case(spmv_mpi_stencil s, int64_t nx, int64_t ny, int64_t nz, spmv_mpi_format f, const char *what)
{
    spmv_crs *A = NULL;
    if (s == SPMV_MPI_HPCG) spmv_gen_hpcg((int32_t)nx, (int32_t)ny, (int32_t)nz, &A);
    else if (s == SPMV_MPI_LAPLACE3D) spmv_gen_laplace3d((int32_t)nx, (int32_t)ny, (int32_t)nz, &A);
    else spmv_gen_laplace2d((int32_t)nx, (int32_t)ny, &A);
    spmv_mpi_grid g = {s, nx, ny, nz, 0, 0, 0};
    spmv_mpi_opts o = spmv_mpi_opts_default();
    o.format = f;
    if (f == SPMV_MPI_FORMAT_SELL) {
        o.C = 4;
        o.sigma = 8;
    }
    spmv_mpi_matrix *D = NULL;
    spmv_status st = spmv_mpi_gen(MPI_COMM_WORLD, &g, &o, &D);
    if (st) printf("\n  %s", spmv_mpi_last_error());
    CHECK(st == SPMV_OK);
    if (!st) {
        /* the default partition: balanced by nonzeros, brute force over the serial rowptr */
        int ok = 1;
        for (int q = 1; q < size; q++) {
            int64_t target = (int64_t)((__int128)A->nnz * q / size), i = 0;
            while (A->rowptr[i] < target) i++;
            ok &= D->row_start[q] == i;
        }
        CHECK(ok);
        CHECK(D->square);
        CHECK(f != SPMV_MPI_FORMAT_CRS || D->local_crs);
        CHECK(f != SPMV_MPI_FORMAT_SELL || D->nrows == 0 || D->local_sell);
        check_matrix(D, A, what);
    }
    spmv_mpi_free(D);
    spmv_crs_free(A);
}

static void test_gen_hpcg(void)
{
    gen_case(SPMV_MPI_HPCG, 9, 7, 5, SPMV_MPI_FORMAT_AUTO, "hpcg 9x7x5 auto");
    gen_case(SPMV_MPI_HPCG, 9, 7, 5, SPMV_MPI_FORMAT_CRS, "hpcg 9x7x5 crs");
    gen_case(SPMV_MPI_HPCG, 9, 7, 5, SPMV_MPI_FORMAT_SELL, "hpcg 9x7x5 sell-4-8");
    gen_case(SPMV_MPI_HPCG, 2, 1, 1, SPMV_MPI_FORMAT_AUTO, "hpcg 2x1x1 (fewer rows than ranks)");
}

static void test_gen_laplace(void)
{
    gen_case(SPMV_MPI_LAPLACE3D, 6, 5, 4, SPMV_MPI_FORMAT_AUTO, "laplace3d 6x5x4");
    gen_case(SPMV_MPI_LAPLACE2D, 13, 11, 1, SPMV_MPI_FORMAT_SELL, "laplace2d 13x11");
}

/* HPCG on a process grid: the blocks numbering is the lexicographic matrix permuted, P A P^T */
static void test_gen_blocks(void)
{
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(size, 3, dims);
    int64_t lx = 4, ly = 3, lz = 5, nx = lx * dims[0], ny = ly * dims[1], nz = lz * dims[2], n = nx * ny * nz;
    spmv_crs *A = NULL, *B = NULL;
    spmv_gen_hpcg((int32_t)nx, (int32_t)ny, (int32_t)nz, &A);
    int32_t *perm = malloc((size_t)n * sizeof *perm);
    for (int64_t gz = 0; gz < nz; gz++)
        for (int64_t gy = 0; gy < ny; gy++)
            for (int64_t gx = 0; gx < nx; gx++) {
                int64_t q = gx / lx + dims[0] * (gy / ly + dims[1] * (gz / lz));
                int64_t blk = q * lx * ly * lz + gx % lx + lx * (gy % ly + ly * (gz % lz));
                perm[blk] = (int32_t)(gx + nx * (gy + ny * gz));
            }
    spmv_crs_permute(A, perm, &B);
    spmv_mpi_grid g = {SPMV_MPI_HPCG, nx, ny, nz, dims[0], dims[1], dims[2]};
    spmv_mpi_matrix *D = NULL;
    spmv_status st = spmv_mpi_gen(MPI_COMM_WORLD, &g, NULL, &D);
    if (st) printf("\n  %s", spmv_mpi_last_error());
    CHECK(st == SPMV_OK);
    if (!st) {
        CHECK(D->row_start[rank] == rank * lx * ly * lz && D->nrows == lx * ly * lz);
        check_matrix(D, B, "hpcg blocks");
        /* the statistics computed without MPI agree with the built matrix's, on every rank */
        spmv_mpi_stats mine, model;
        CHECK(spmv_mpi_get_stats(D, &mine, NULL, NULL) == SPMV_OK);
        CHECK(spmv_mpi_grid_stats(&g, size, rank, NULL, &model) == SPMV_OK);
        CHECK(memcmp(&mine, &model, sizeof mine) == 0);
    }
    spmv_mpi_free(D);
    spmv_crs_free(A);
    spmv_crs_free(B);
    free(perm);
}

/* ---------------------------------------------------------------- the caller's rows, uneven partitions */

static void rows_case(const spmv_crs *A, const int64_t *row_start, const int64_t *col_start, int use64,
                      const char *what)
{
    spmv_crs *mine = rows_of(A, row_start[rank], row_start[rank + 1]);
    spmv_mpi_opts o = spmv_mpi_opts_default();
    o.col_start = col_start;
    spmv_mpi_matrix *D = NULL;
    spmv_status st;
    if (!use64) {
        st = spmv_mpi_from_crs(MPI_COMM_WORLD, mine, &o, &D);
    } else {
        /* 64-bit columns, each entry split into two halves listed in reverse order: unsorted, repeated columns */
        int64_t n = mine->nnz, *rp = malloc(((size_t)mine->rows + 1) * sizeof *rp), *c = malloc(2 * (size_t)(n + 1) * sizeof *c);
        double *v = malloc(2 * (size_t)(n + 1) * sizeof *v);
        rp[0] = 0;
        for (int32_t i = 0; i < mine->rows; i++) {
            int64_t p = 2 * mine->rowptr[i];
            for (int64_t k = mine->rowptr[i + 1] - 1; k >= mine->rowptr[i]; k--) {
                c[p] = c[p + 1] = mine->col[k];
                v[p] = 0.25 * mine->val[k];
                v[p + 1] = 0.75 * mine->val[k];
                p += 2;
            }
            rp[i + 1] = 2 * mine->rowptr[i + 1];
        }
        st = spmv_mpi_from_rows(MPI_COMM_WORLD, mine->rows, mine->cols, rp, c, v, &o, &D);
        free(rp);
        free(c);
        free(v);
    }
    if (st) printf("\n  %s", spmv_mpi_last_error());
    CHECK(st == SPMV_OK);
    if (!st) {
        CHECK(memcmp(D->row_start, row_start, ((size_t)size + 1) * sizeof *row_start) == 0);
        check_matrix(D, A, what);
    }
    spmv_mpi_free(D);
    spmv_crs_free(mine);
}

static void test_uneven(void)
{
    int32_t n = 97;
    spmv_crs *A = random_matrix(n, n, 5, 42);
    int64_t *rs = malloc(((size_t)size + 1) * sizeof *rs);
    /* a rank without rows (rank 1), the others in uneven blocks: rank q gets a share q + 1 */
    int64_t wsum = 0, w = 0;
    for (int q = 0; q < size; q++) wsum += q == 1 ? 0 : q + 1;
    rs[0] = 0;
    for (int q = 0; q < size; q++) {
        w += q == 1 ? 0 : q + 1;
        rs[q + 1] = n * w / wsum;
    }
    rows_case(A, rs, NULL, 0, "uneven, rank 1 without rows");
    rows_case(A, rs, NULL, 1, "uneven, 64-bit unsorted repeated columns");
    /* all rows on the last rank, then all on rank 0 */
    for (int q = 0; q < size; q++) rs[q] = 0;
    rs[size] = n;
    rows_case(A, rs, NULL, 0, "all rows on the last rank");
    for (int q = 1; q <= size; q++) rs[q] = n;
    rows_case(A, rs, NULL, 0, "all rows on rank 0");
    /* x distributed differently from y (not square in layout): mv works, mv_dot is refused */
    int64_t *cs = malloc(((size_t)size + 1) * sizeof *cs);
    for (int q = 0; q <= size; q++) cs[q] = q == size ? n : (int64_t)n * q * q / (size * size);
    for (int q = 0; q <= size; q++) rs[q] = (int64_t)n * q / size;
    rows_case(A, rs, cs, 0, "x and y in different layouts");
    free(cs);
    free(rs);
    spmv_crs_free(A);
}

static void test_rectangular(void)
{
    spmv_crs *A = random_matrix(50, 77, 6, 7), *B = random_matrix(80, 33, 4, 9);
    int64_t rs[65];
    for (int q = 0; q <= size; q++) rs[q] = 50LL * q / size;
    rows_case(A, rs, NULL, 0, "50 x 77");
    for (int q = 0; q <= size; q++) rs[q] = 80LL * q * q / ((int64_t)size * size);
    rows_case(B, rs, NULL, 1, "80 x 33");
    spmv_crs_free(A);
    spmv_crs_free(B);
}

/* SELL-8-1 on local parts with long rows: the hybrid's CRS part moves them to the end of the permuted order, so
 * sigma = 1 alone does not make the order the original one (the node level once assumed it did and multiplied in
 * the permuted order without undoing it: wrong y for the rows that moved) */
static void test_sigma1_long_rows(void)
{
    const int32_t n = 1200;
    spmv_crs *R = random_matrix(n, n, 3, 77);
    CHECK(R != NULL);
    if (!R) return;
    /* rows 7, 307, 607, 907 dense: at least one on every rank of 1..4, fewer than 1 % of its rows, and with at least
     * 300 local entries far above the long-row threshold max(64, 4 x the 99th percentile) */
    spmv_status st0;
    int64_t cap = R->nnz + 8 * (int64_t)n, nnz = 0;
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    for (int32_t i = 0; i < n; i++) {
        if (i % 300 == 7) {
            for (int32_t j = 0; j < n; j++) ri[nnz] = i, ci[nnz] = j, v[nnz++] = 1.0 + j % 5;
            continue;
        }
        for (int64_t k = R->rowptr[i]; k < R->rowptr[i + 1]; k++) ri[nnz] = i, ci[nnz] = R->col[k], v[nnz++] = R->val[k];
    }
    spmv_crs *A = NULL;
    st0 = spmv_crs_from_coo(n, n, nnz, ri, ci, v, 0, &A);
    free(ri), free(ci), free(v);
    CHECK(st0 == SPMV_OK);
    if (st0) {
        spmv_crs_free(R);
        return;
    }
    int64_t rs[65];
    for (int q = 0; q <= size; q++) rs[q] = (int64_t)n * q / size;
    spmv_crs *mine = rows_of(A, rs[rank], rs[rank + 1]);
    spmv_mpi_opts o = spmv_mpi_opts_default();
    o.format = SPMV_MPI_FORMAT_SELL;
    o.C = 8;
    o.sigma = 1;
    spmv_mpi_matrix *D = NULL;
    spmv_status st = spmv_mpi_from_crs(MPI_COMM_WORLD, mine, &o, &D);
    if (st) printf("\n  %s", spmv_mpi_last_error());
    CHECK(st == SPMV_OK);
    if (!st) {
        CHECK(D->nrows == 0 || (D->local_sell && D->local_sell->nlong > 0 && !D->local_sell->identity));
        check_matrix(D, A, "SELL-8-1 with long rows");
    }
    spmv_mpi_free(D);
    spmv_crs_free(mine);
    spmv_crs_free(A);
    spmv_crs_free(R);
}

/* block diagonal, blocks aligned with the partition: no rank needs another's x */
static void test_empty_remote(void)
{
    int64_t rs[65];
    rs[0] = 0;
    for (int q = 0; q < size; q++) rs[q + 1] = rs[q] + 5 + 3 * q;
    int32_t n = (int32_t)rs[size];
    spmv_crs *A = random_matrix(n, n, 6, 3), *Bd = NULL;
    /* keep only the entries inside the diagonal blocks */
    int64_t *rp = calloc((size_t)n + 1, sizeof *rp), nnz = 0;
    int32_t *c = malloc((size_t)(A->nnz + 1) * sizeof *c);
    double *v = malloc((size_t)(A->nnz + 1) * sizeof *v);
    for (int q = 0; q < size; q++)
        for (int64_t i = rs[q]; i < rs[q + 1]; i++) {
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->col[k] >= rs[q] && A->col[k] < rs[q + 1]) {
                    c[nnz] = A->col[k];
                    v[nnz++] = A->val[k];
                }
            rp[i + 1] = nnz;
        }
    spmv_crs_from_arrays(n, n, rp, c, v, &Bd);
    spmv_crs *mine = rows_of(Bd, rs[rank], rs[rank + 1]);
    spmv_mpi_matrix *D = NULL;
    CHECK(spmv_mpi_from_crs(MPI_COMM_WORLD, mine, NULL, &D) == SPMV_OK);
    if (D) {
        CHECK(D->nhalo == 0 && D->nrecv == 0 && D->nsend == 0 && D->remote->rows == 0);
        spmv_mpi_stats mx;
        CHECK(spmv_mpi_get_stats(D, NULL, &mx, NULL) == SPMV_OK);
        CHECK(mx.recv == 0 && mx.send == 0 && mx.recv_msgs == 0 && mx.send_msgs == 0 && mx.nnz_remote == 0);
        check_matrix(D, Bd, "block diagonal");
    }
    spmv_mpi_free(D);
    spmv_crs_free(mine);
    spmv_crs_free(Bd);
    spmv_crs_free(A);
    free(rp);
    free(c);
    free(v);
}

/* ---------------------------------------------------------------- files */

static void file_case(const char *path, int root, const char *what)
{
    spmv_crs *A = NULL;
    spmv_status rd = spmv_crs_read_mm(path, &A);
    if (rd == SPMV_ERR_UNSUPPORTED) { /* built without SuiteSparse: every rank alike */
        if (rank == 0) tu_skip("%s: %s", what, spmv_last_error());
        return;
    }
    if (rd != SPMV_OK) { /* the file is named and its folder is there: a defect */
        if (rank == 0) printf("\n  %s: %s", path, spmv_last_error());
        CU_FAIL("a named matrix file cannot be read");
        return;
    }
    spmv_mpi_matrix *D = NULL;
    spmv_status st = spmv_mpi_from_file(MPI_COMM_WORLD, rank == root ? path : NULL, root, NULL, &D);
    if (st) printf("\n  %s", spmv_mpi_last_error());
    CHECK(st == SPMV_OK);
    if (!st) {
        int64_t rs[65];
        CHECK(spmv_mpi_partition_nnz(A->rows, A->rowptr, size, rs) == SPMV_OK);
        CHECK(memcmp(rs, D->row_start, ((size_t)size + 1) * sizeof *rs) == 0);
        check_matrix(D, A, what);
    }
    spmv_mpi_free(D);
    spmv_crs_free(A);
}

static void test_from_file(void)
{
    file_case(SPMV_SOURCE_DIR "/matrices/tiny/sell_example.mtx", 0, "sell_example.mtx");
    file_case(SPMV_SOURCE_DIR "/matrices/tiny/sell_example.mtx", size - 1, "sell_example.mtx, root = last rank");
    if (tu_have_shared()) {
        file_case(tu_shared("bcsstk13.mtx"), 0, "bcsstk13");
        file_case(tu_shared("west0067_jumbled.mtx"), size / 2, "west0067_jumbled");
    } else if (rank == 0) { /* main makes every rank exit 77 */
        tu_skip("bcsstk13 and west0067_jumbled: no shared matrices folder at %s (only the tiny case ran)",
                tu_shared_dir());
    }
}

/* Write this rank's rows of A (or a malformed file) to a rank-specific temporary Matrix Market file. */
static void write_part(const spmv_crs *A, int64_t r0, int64_t r1, int malformed, char *path, size_t size_path)
{
    snprintf(path, size_path, "%s/spmv_test_mpi_%d_%d.mtx", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), rank);
    FILE *f = fopen(path, "w");
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%lld %d %lld\n", (long long)(r1 - r0), A->cols, (long long)(A->rowptr[r1] - A->rowptr[r0]));
    for (int64_t i = r0; i < r1; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            fprintf(f, "%lld %d %.17g\n", (long long)(i - r0 + 1), A->col[k] + 1, A->val[k]);
    if (malformed) fprintf(f, "1 1 2.0 extra\n1 2\n");
    fclose(f);
}

static void test_row_files(void)
{
    spmv_crs *A = random_matrix(61, 61, 4, 5);
    int64_t r0 = 61LL * rank / size, r1 = 61LL * (rank + 1) / size;
    char path[512];
    write_part(A, r0, r1, 0, path, sizeof path);
    spmv_mpi_matrix *D = NULL;
    spmv_status st = spmv_mpi_from_row_files(MPI_COMM_WORLD, path, NULL, &D);
    if (st) printf("\n  %s", spmv_mpi_last_error());
    CHECK(st == SPMV_OK);
    if (!st) check_matrix(D, A, "one file per rank");
    spmv_mpi_free(D);
    remove(path);
    /* the last rank's file is malformed: every rank gets the parse error, naming that rank and the file's line */
    write_part(A, r0, r1, rank == size - 1, path, sizeof path);
    D = NULL;
    st = spmv_mpi_from_row_files(MPI_COMM_WORLD, path, NULL, &D);
    CHECK(st == SPMV_ERR_PARSE && D == NULL);
    char want[64];
    snprintf(want, sizeof want, "rank %d: ", size - 1);
    CHECK(strncmp(spmv_mpi_last_error(), want, strlen(want)) == 0 && strstr(spmv_mpi_last_error(), ".mtx:"));
    CHECK(same_string(spmv_mpi_last_error()));
    if (rank == 0) printf("\n  bad file on rank %d: %s", size - 1, spmv_mpi_last_error());
    remove(path);
    spmv_crs_free(A);
}

/* ---------------------------------------------------------------- bad input on one rank */

/* status st on every rank, the same message everywhere, starting with "rank <bad>: " when bad >= 0 */
static void expect_error(spmv_status st, spmv_status want, int bad, const char *what)
{
    CHECK(st == want);
    CHECK(same_string(spmv_mpi_last_error()));
    if (bad >= 0) {
        char pre[64];
        snprintf(pre, sizeof pre, "rank %d: ", bad);
        CHECK(strncmp(spmv_mpi_last_error(), pre, strlen(pre)) == 0);
    }
    if (rank == 0) printf("\n  %s: %s (%s)", what, spmv_mpi_last_error(), spmv_strerror(st));
}

static void test_bad_input(void)
{
    int last = size - 1;
    spmv_crs *A = random_matrix(40, 40, 4, 8);
    int64_t r0 = 40LL * rank / size, r1 = 40LL * (rank + 1) / size;
    spmv_crs *mine = rows_of(A, r0, r1);
    int32_t n = mine->rows;
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp), *c = malloc((size_t)(mine->nnz + 1) * sizeof *c);
    for (int32_t i = 0; i <= n; i++) rp[i] = mine->rowptr[i];
    for (int64_t k = 0; k < mine->nnz; k++) c[k] = mine->col[k];
    spmv_mpi_matrix *D = NULL;

    /* a column out of range on the last rank */
    int64_t saved = mine->nnz ? c[mine->nnz - 1] : 0;
    if (rank == last && mine->nnz) c[mine->nnz - 1] = 40;
    spmv_status st = spmv_mpi_from_rows(MPI_COMM_WORLD, n, 40, rp, c, mine->val, NULL, &D);
    expect_error(st, SPMV_ERR_ARG, last, "column out of range on the last rank");
    CHECK(D == NULL);
    spmv_mpi_free(D);
    D = NULL;
    if (mine->nnz) c[mine->nnz - 1] = saved;

    /* mismatched global sizes on the last rank */
    if (size > 1) {
        st = spmv_mpi_from_rows(MPI_COMM_WORLD, n, rank == last ? 41 : 40, rp, c, mine->val, NULL, &D);
        expect_error(st, SPMV_ERR_ARG, last, "cols differ on the last rank");
        CHECK(D == NULL);
    }
    /* rowptr NULL on rank 0 */
    st = spmv_mpi_from_rows(MPI_COMM_WORLD, n, 40, rank == 0 ? NULL : rp, c, mine->val, NULL, &D);
    expect_error(st, SPMV_ERR_ARG, 0, "rowptr NULL on rank 0");
    /* rowptr decreasing on the last rank */
    if (n > 1) {
        int64_t keep = rp[1];
        if (rank == last) rp[1] = rp[2] + 1;
        st = spmv_mpi_from_rows(MPI_COMM_WORLD, n, 40, rp, c, mine->val, NULL, &D);
        rp[1] = keep;
    } else {
        st = spmv_mpi_from_rows(MPI_COMM_WORLD, n, 40, rp, c, mine->val, NULL, &D);
    }
    CHECK(all_ok(n > 1) ? st == SPMV_ERR_ARG : 1);
    spmv_mpi_free(D);
    D = NULL;
    /* the out-pointer NULL on the last rank */
    st = spmv_mpi_from_crs(MPI_COMM_WORLD, mine, NULL, rank == last ? NULL : &D);
    expect_error(st, SPMV_ERR_ARG, last, "D NULL on the last rank");
    CHECK(D == NULL);
    /* a row partition that does not match the rows held */
    int64_t rs[65];
    for (int q = 0; q <= size; q++) rs[q] = q == size ? 40 : 0;
    spmv_mpi_opts o = spmv_mpi_opts_default();
    o.row_start = rs;
    st = spmv_mpi_from_crs(MPI_COMM_WORLD, mine, &o, &D);
    CHECK(size == 1 ? st == SPMV_OK : st == SPMV_ERR_ARG);
    CHECK(same_string(spmv_mpi_last_error()));
    spmv_mpi_free(D);
    D = NULL;
    /* a bad opts.row_start for a generator (does not end at rows) */
    for (int q = 0; q <= size; q++) rs[q] = q;
    spmv_mpi_grid g = {SPMV_MPI_HPCG, 4, 4, 4, 0, 0, 0};
    st = spmv_mpi_gen(MPI_COMM_WORLD, &g, &o, &D);
    expect_error(st, SPMV_ERR_ARG, -1, "row_start not ending at rows");
    /* a bad format on the last rank only */
    spmv_mpi_opts ob = spmv_mpi_opts_default();
    if (rank == last) ob.format = (spmv_mpi_format)7;
    st = spmv_mpi_gen(MPI_COMM_WORLD, &g, &ob, &D);
    expect_error(st, SPMV_ERR_ARG, last, "bad opts.format on the last rank");
    /* a process grid that does not match the communicator, and a grid differing on the last rank */
    spmv_mpi_grid gp = {SPMV_MPI_HPCG, 4, 4, 4, 2, 2, size == 4 ? 2 : 4};
    st = spmv_mpi_gen(MPI_COMM_WORLD, &gp, NULL, &D);
    expect_error(st, SPMV_ERR_ARG, -1, "process grid != communicator");
    spmv_mpi_grid gd = g;
    if (rank == last) gd.nx = 5;
    st = spmv_mpi_gen(MPI_COMM_WORLD, &gd, NULL, &D);
    CHECK(size == 1 ? st == SPMV_OK : st == SPMV_ERR_ARG);
    CHECK(same_string(spmv_mpi_last_error()));
    spmv_mpi_free(D);
    D = NULL;
    /* a missing file on root; root out of range */
    st = spmv_mpi_from_file(MPI_COMM_WORLD, "/nonexistent/m.mtx", 0, NULL, &D);
    expect_error(st, SPMV_ERR_IO, 0, "missing file on root");
    st = spmv_mpi_from_file(MPI_COMM_WORLD, "/nonexistent/m.mtx", size, NULL, &D);
    expect_error(st, SPMV_ERR_ARG, -1, "root out of range");
    CHECK(D == NULL);

    /* the multiply: x NULL on the last rank (which owns columns) */
    CHECK(spmv_mpi_gen(MPI_COMM_WORLD, &g, NULL, &D) == SPMV_OK);
    if (D) {
        double *x = rand_vec(D->ncols, 3), *y = rand_vec(D->nrows, 4);
        st = spmv_mpi_mv(D, 1.0, rank == last ? NULL : x, 0.0, y);
        expect_error(st, SPMV_ERR_ARG, last, "mv: x NULL on the last rank");
        /* and it still works afterwards (the exchange was completed) */
        CHECK(spmv_mpi_mv(D, 1.0, x, 0.0, y) == SPMV_OK);
        st = spmv_mpi_mv_dot(D, 1.0, x, 0.0, rank == 0 && D->nrows ? x : y, NULL, NULL); /* x and y alias on rank 0 */
        expect_error(st, SPMV_ERR_ARG, 0, "mv_dot: x and y overlap on rank 0");
        CHECK(spmv_mpi_scatter(D, SPMV_MPI_ROWS, 0, NULL, y) == (D->rows ? SPMV_ERR_ARG : SPMV_OK));
        CHECK(spmv_mpi_set_overlap(D, 2) == SPMV_ERR_ARG);
        free(x);
        free(y);
    }
    spmv_mpi_free(D);
    free(rp);
    free(c);
    spmv_crs_free(mine);
    spmv_crs_free(A);
}

/* MPI errors are returned, never fatal: the matrix works on a duplicate with MPI_ERRORS_RETURN */
static void test_errhandler(void)
{
    spmv_mpi_grid g = {SPMV_MPI_LAPLACE2D, 7, 5, 1, 0, 0, 0};
    spmv_mpi_matrix *D = NULL;
    CHECK(spmv_mpi_gen(MPI_COMM_WORLD, &g, NULL, &D) == SPMV_OK);
    if (!D) return;
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(D->comm, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(D->comm, &eh);
    CHECK(eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    /* the world communicator's handler is untouched */
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    spmv_mpi_free(D);
    /* a NULL communicator is refused (locally: it cannot take part in anything) */
    CHECK(spmv_mpi_gen(MPI_COMM_NULL, &g, NULL, &D) == SPMV_ERR_ARG);
}

/* ---------------------------------------------------------------- vectors, statistics, model */

static void test_scatter_gather(void)
{
    spmv_crs *A = random_matrix(30, 45, 3, 2);
    int64_t rs[65];
    for (int q = 0; q <= size; q++) rs[q] = 30LL * q * q / ((int64_t)size * size);
    spmv_crs *mine = rows_of(A, rs[rank], rs[rank + 1]);
    spmv_mpi_matrix *D = NULL;
    CHECK(spmv_mpi_from_crs(MPI_COMM_WORLD, mine, NULL, &D) == SPMV_OK);
    if (D) {
        for (int lay = 0; lay <= 1; lay++) {
            int64_t n = lay ? 45 : 30, m = lay ? D->ncols : D->nrows;
            const int64_t *start = lay ? D->col_start : D->row_start;
            double *g = rand_vec(n, 77), *l = malloc((size_t)(m + 1) * sizeof *l), *back = calloc((size_t)n, sizeof *back);
            int root = size - 1;
            CHECK(spmv_mpi_scatter(D, (spmv_mpi_layout)lay, root, rank == root ? g : NULL, l) == SPMV_OK);
            CHECK(memcmp(l, g + start[rank], (size_t)m * sizeof *l) == 0);
            CHECK(spmv_mpi_gather(D, (spmv_mpi_layout)lay, root, l, rank == root ? back : NULL) == SPMV_OK);
            CHECK(rank != root || memcmp(back, g, (size_t)n * sizeof *g) == 0);
            free(g);
            free(l);
            free(back);
        }
    }
    spmv_mpi_free(D);
    spmv_crs_free(mine);
    spmv_crs_free(A);
}

/* statistics of a built matrix = those computed on one process (spmv_mpi_grid_stats), and their sums add up */
static void test_stats(void)
{
    spmv_mpi_grid g = {SPMV_MPI_HPCG, 6, 5, 7, 0, 0, 0};
    spmv_mpi_matrix *D = NULL;
    CHECK(spmv_mpi_gen(MPI_COMM_WORLD, &g, NULL, &D) == SPMV_OK);
    if (!D) return;
    spmv_mpi_stats mine, mx, sum, model;
    CHECK(spmv_mpi_get_stats(D, &mine, &mx, &sum) == SPMV_OK);
    CHECK(spmv_mpi_grid_stats(&g, size, rank, NULL, &model) == SPMV_OK);
    CHECK(memcmp(&mine, &model, sizeof mine) == 0);
    CHECK(sum.rows == 210 && sum.nnz == D->nnz && sum.nnz == sum.nnz_local + sum.nnz_remote);
    CHECK(sum.send == sum.recv && sum.send_msgs == sum.recv_msgs);
    CHECK(mx.recv >= mine.recv && mx.recv_msgs <= size - 1);
    /* two ranks, split between two planes: each receives one plane of nx*ny points */
    spmv_mpi_grid s = {SPMV_MPI_HPCG, 6, 5, 4, 0, 0, 0};
    int64_t rs[3] = {0, 60, 120};
    spmv_mpi_stats s0, s1;
    CHECK(spmv_mpi_grid_stats(&s, 2, 0, rs, &s0) == SPMV_OK && spmv_mpi_grid_stats(&s, 2, 1, rs, &s1) == SPMV_OK);
    CHECK(s0.recv == 30 && s1.recv == 30 && s0.send == 30 && s0.recv_msgs == 1 && s0.remote_rows == 30);
    spmv_mpi_free(D);
}

static void test_partition(void)
{
    /* spmv_mpi_grid_partition (closed-form prefix counts) = the rule applied to the built rowptr, for 1..7 parts */
    for (int s = 0; s < 3; s++) {
        spmv_crs *A = NULL;
        spmv_mpi_grid g = {(spmv_mpi_stencil)s, 7, 6, s == 2 ? 1 : 5, 0, 0, 0};
        if (s == 0) spmv_gen_hpcg(7, 6, 5, &A);
        else if (s == 1) spmv_gen_laplace3d(7, 6, 5, &A);
        else spmv_gen_laplace2d(7, 6, &A);
        for (int p = 1; p <= 7; p++) {
            int64_t a[8], b[8];
            CHECK(spmv_mpi_grid_partition(&g, p, a) == SPMV_OK);
            CHECK(spmv_mpi_partition_nnz(A->rows, A->rowptr, p, b) == SPMV_OK);
            CHECK(memcmp(a, b, sizeof(int64_t) * (size_t)(p + 1)) == 0);
        }
        spmv_crs_free(A);
    }
    int64_t rp[5] = {0, 0, 0, 0, 0}, rs[4];
    CHECK(spmv_mpi_partition_nnz(4, rp, 3, rs) == SPMV_OK && rs[0] == 0 && rs[1] == 2 && rs[2] == 3 && rs[3] == 4);
    int64_t bad[3] = {0, 2, 1};
    CHECK(spmv_mpi_partition_nnz(2, bad, 2, rs) == SPMV_ERR_ARG);
    /* 1024 nodes of 128^3: 2^31 rows, beyond 32-bit global indices; the partition and the stats still work */
    spmv_mpi_grid big = {SPMV_MPI_HPCG, 1024, 1024, 2048, 8, 8, 16};
    int64_t *bs = malloc(1025 * sizeof *bs);
    CHECK(spmv_mpi_grid_partition(&big, 1024, bs) == SPMV_OK && bs[1024] == (int64_t)1 << 31);
    free(bs);
    spmv_mpi_grid bad_grid = {SPMV_MPI_LAPLACE2D, 4, 4, 2, 0, 0, 0};
    CHECK(spmv_mpi_grid_partition(&bad_grid, 2, rs) == SPMV_ERR_ARG);
}

static void test_model(void)
{
    spmv_mpi_stats s;
    memset(&s, 0, sizeof s);
    s.recv = 1000;
    s.recv_msgs = 2;
    s.send = 500;
    s.send_msgs = 4;
    double t = 0;
    CHECK(spmv_mpi_model_halo(&s, 1e-6, 8e9, &t) == SPMV_OK);
    CHECK(fabs(t - 4.5e-6) < 1e-15); /* receive side: 2 us + 8000 B / 8 GB/s = 3 us; send side: 4 us + 0.5 us */
    s.recv_msgs = 5;
    CHECK(spmv_mpi_model_halo(&s, 1e-6, 8e9, &t) == SPMV_OK && fabs(t - 6e-6) < 1e-15);
    CHECK(spmv_mpi_model_halo(&s, 1e-6, 0, &t) == SPMV_ERR_ARG);
    CHECK(spmv_mpi_model_allreduce(1, 1e-6, &t) == SPMV_OK && t == 0);
    CHECK(spmv_mpi_model_allreduce(2, 1e-6, &t) == SPMV_OK && t == 1e-6);
    CHECK(spmv_mpi_model_allreduce(1000, 1e-6, &t) == SPMV_OK && fabs(t - 10e-6) < 1e-18);
    CHECK(spmv_mpi_model_allreduce(1024, 1e-6, &t) == SPMV_OK && fabs(t - 10e-6) < 1e-18);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) {
        if (rank == 0) printf("at most 64 ranks\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) printf("spmv::mpi tests on %d rank%s, kernel family of the node level: %s\n", size,
                          size == 1 ? "" : "s", getenv("SPMV_ARCH") ? getenv("SPMV_ARCH") : "auto");
    tu_suite("mpi", (tu_case[]){{"generators: HPCG, lexicographic rows", test_gen_hpcg},
                                {"generators: Laplacians", test_gen_laplace},
                                {"generators: HPCG on a process grid", test_gen_blocks},
                                {"caller's rows: uneven, empty and single-rank partitions", test_uneven},
                                {"caller's rows: rectangular", test_rectangular},
                                {"empty remote parts", test_empty_remote},
                                {"SELL-8-1 with long rows", test_sigma1_long_rows},
                                {"one file, read on root and scattered", test_from_file},
                                {"one file per rank, and a bad one", test_row_files},
                                {"bad input on one rank", test_bad_input},
                                {"MPI errors returned", test_errhandler},
                                {"scatter and gather", test_scatter_gather},
                                {"statistics", test_stats},
                                {"partitions", test_partition},
                                {"communication model", test_model},
                                {NULL, NULL}});
    CU_basic_set_mode(rank == 0 ? CU_BRM_VERBOSE : CU_BRM_SILENT);
    CU_basic_run_tests();
    int failed = (int)(CU_get_number_of_failures() + CU_get_number_of_tests_failed()), any = 0;
    int skipped = tu_skipped(), any_skipped = 0; /* recorded on rank 0 */
    CU_cleanup_registry();
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&skipped, &any_skipped, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any && any_skipped) printf("\n%d part(s) skipped for missing input: exit 77 (skipped)\n", any_skipped);
    fflush(stdout);
    MPI_Finalize();
    return any ? 1 : any_skipped ? 77 : 0; /* 77: CTest's "skipped" (part of the input missing, nothing failed) */
}
