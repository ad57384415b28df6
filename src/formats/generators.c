/* Built-in matrices: HPCG 27-point stencil, 2D 5-point and 3D 7-point Laplacians. Built straight into CRS, rows
 * filled by the thread partition that the multiply uses (first touch). */
#include "internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Stencil on an nx x ny x nz grid, row index i = ix + nx*(iy + ny*iz). off[s] = (dx, dy, dz) with values v[s],
 * listed in increasing linear offset so that columns come out sorted. */
typedef struct stencil { int n; int d[27][3]; double v[27]; } stencil;

static int inside(int32_t i, int d, int32_t n) { return i + d >= 0 && i + d < n; }

static spmv_status gen_stencil(const char *fn, int32_t nx, int32_t ny, int32_t nz, const stencil *s, spmv_crs **out)
{
    if (!out) return spmv__error(SPMV_ERR_ARG, "%s: argument A is NULL", fn);
    *out = NULL;
    if (nx < 1 || ny < 1 || nz < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: grid %d x %d x %d has a size < 1", fn, nx, ny, nz);
    int64_t n = (int64_t)nx * ny * nz;
    if (n > INT32_MAX)
        return spmv__error(SPMV_ERR_OVERFLOW, "%s: grid %d x %d x %d has %lld points, more than the 32-bit index "
                           "limit %d", fn, nx, ny, nz, (long long)n, INT32_MAX);
    /* nonzeros: sum over offsets of the number of points whose neighbour exists */
    int64_t nnz = 0;
    for (int k = 0; k < s->n; k++)
        nnz += (int64_t)(nx - (s->d[k][0] != 0)) * (ny - (s->d[k][1] != 0)) * (nz - (s->d[k][2] != 0));
    spmv_crs *A = NULL;
    spmv_status st = spmv__crs_alloc((int32_t)n, (int32_t)n, nnz, &A);
    if (st) return st;
    for (int32_t iz = 0, i = 0; iz < nz; iz++)
        for (int32_t iy = 0; iy < ny; iy++)
            for (int32_t ix = 0; ix < nx; ix++, i++) {
                int len = 0;
                for (int k = 0; k < s->n; k++)
                    len += inside(ix, s->d[k][0], nx) && inside(iy, s->d[k][1], ny) && inside(iz, s->d[k][2], nz);
                A->rowptr[i + 1] = A->rowptr[i] + len;
            }
    st = spmv_crs_set_threads(A, 0);
    if (st) goto fail;
#pragma omp parallel num_threads(A->nparts)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num();
#else
        int t = 0;
#endif
        for (int32_t i = A->part[t]; i < A->part[t + 1]; i++) {
            int32_t ix = i % nx, iy = (i / nx) % ny, iz = i / nx / ny;
            int64_t p = A->rowptr[i];
            for (int k = 0; k < s->n; k++)
                if (inside(ix, s->d[k][0], nx) && inside(iy, s->d[k][1], ny) && inside(iz, s->d[k][2], nz)) {
                    A->col[p] = i + s->d[k][0] + nx * (s->d[k][1] + ny * s->d[k][2]);
                    A->val[p++] = s->v[k];
                }
        }
    }
    st = spmv__crs_finish(A);
    if (st) goto fail;
    *out = A;
    return SPMV_OK;
fail:
    spmv_crs_free(A);
    return st;
}

spmv_status spmv_gen_hpcg(int32_t nx, int32_t ny, int32_t nz, spmv_crs **A)
{
    /* HPCG GenerateProblem: loops sz, sy, sx over -1..1; diagonal 26, every other point of the box -1 */
    stencil s = {0};
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                s.d[s.n][0] = dx;
                s.d[s.n][1] = dy;
                s.d[s.n][2] = dz;
                s.v[s.n++] = (dx || dy || dz) ? -1.0 : 26.0;
            }
    return gen_stencil("spmv_gen_hpcg", nx, ny, nz, &s, A);
}

spmv_status spmv_gen_laplace3d(int32_t nx, int32_t ny, int32_t nz, spmv_crs **A)
{
    stencil s = {7, {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
                 {-1, -1, -1, 6, -1, -1, -1}};
    return gen_stencil("spmv_gen_laplace3d", nx, ny, nz, &s, A);
}

spmv_status spmv_gen_laplace2d(int32_t nx, int32_t ny, spmv_crs **A)
{
    stencil s = {5, {{0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {-1, -1, 4, -1, -1}};
    return gen_stencil("spmv_gen_laplace2d", nx, ny, 1, &s, A);
}
