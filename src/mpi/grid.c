/* Row partitions (balanced by nonzeros, given, equal) and the stencil generators with 64-bit global indices: each rank
 * generates only its own rows, in the lexicographic numbering of spmv_gen_* or in HPCG's process-grid blocks. */
#include "mpi_internal.h"

#include <string.h>

/* ---------------------------------------------------------------- partitions */

void smpi_equal_blocks(int64_t n, int size, int64_t *start)
{
    int64_t q = n / size, r = n % size;
    start[0] = 0;
    for (int k = 0; k < size; k++) start[k + 1] = start[k] + q + (k < r);
}

void smpi_partition_prefix(int64_t n, int64_t total, int size, int64_t (*prefix)(const void *ctx, int64_t i),
                           const void *ctx, int64_t *row_start)
{
    if (total <= 0) {
        smpi_equal_blocks(n, size, row_start);
        return;
    }
    int64_t q = total / size, r = total % size, lo = 0;
    row_start[0] = 0;
    for (int k = 1; k < size; k++) {
        /* target = floor(total * k / size), exactly: q*k + floor(r*k / size) with r*k < size^2 */
        int64_t target = q * k + (int64_t)((__int128)r * k / size);
        int64_t a = lo, b = n; /* the first i in [a, b] with prefix(i) >= target; prefix(n) = total >= target */
        while (a < b) {
            int64_t mid = a + (b - a) / 2;
            if (prefix(ctx, mid) >= target) b = mid;
            else a = mid + 1;
        }
        row_start[k] = lo = a;
    }
    row_start[size] = n;
}

static int64_t rowptr_prefix(const void *ctx, int64_t i) { return ((const int64_t *)ctx)[i]; }

spmv_status spmv_mpi_partition_nnz(int64_t rows, const int64_t *rowptr, int size, int64_t *row_start)
{
    const char *fn = "spmv_mpi_partition_nnz";
    smpi_clear_error();
    if (!rowptr || !row_start) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument %s is NULL", fn, rowptr ? "row_start" : "rowptr");
    if (rows < 0 || size < 1) return smpi_err(-1, SPMV_ERR_ARG, "%s: rows = %lld, size = %d (need rows >= 0, size >= 1)",
                                              fn, (long long)rows, size);
    if (rowptr[0] != 0) return smpi_err(-1, SPMV_ERR_ARG, "%s: rowptr[0] = %lld, must be 0", fn, (long long)rowptr[0]);
    for (int64_t i = 0; i < rows; i++)
        if (rowptr[i + 1] < rowptr[i])
            return smpi_err(-1, SPMV_ERR_ARG, "%s: rowptr decreases at row %lld (%lld -> %lld)", fn, (long long)i,
                            (long long)rowptr[i], (long long)rowptr[i + 1]);
    smpi_partition_prefix(rows, rowptr[rows], size, rowptr_prefix, rowptr, row_start);
    return SPMV_OK;
}

spmv_status smpi_check_start(int rank, const char *fn, const char *what, const int64_t *start, int size, int64_t n)
{
    if (start[0] != 0)
        return smpi_err(rank, SPMV_ERR_ARG, "%s: %s[0] = %lld, must be 0", fn, what, (long long)start[0]);
    for (int r = 0; r < size; r++)
        if (start[r + 1] < start[r])
            return smpi_err(rank, SPMV_ERR_ARG, "%s: %s decreases at rank %d (%lld -> %lld)", fn, what, r,
                            (long long)start[r], (long long)start[r + 1]);
    if (start[size] != n)
        return smpi_err(rank, SPMV_ERR_ARG, "%s: %s[%d] = %lld, must be the global size %lld", fn, what, size,
                        (long long)start[size], (long long)n);
    return SPMV_OK;
}

/* ---------------------------------------------------------------- stencils */

static void stencil_get(spmv_mpi_stencil k, smpi_gridsrc *s)
{
    s->n = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nz = (dx != 0) + (dy != 0) + (dz != 0);
                int keep = k == SPMV_MPI_HPCG || (k == SPMV_MPI_LAPLACE3D && nz <= 1) ||
                           (k == SPMV_MPI_LAPLACE2D && nz <= 1 && dz == 0);
                if (!keep) continue;
                s->d[s->n][0] = dx;
                s->d[s->n][1] = dy;
                s->d[s->n][2] = dz;
                s->v[s->n++] = nz ? -1.0 : k == SPMV_MPI_HPCG ? 26.0 : k == SPMV_MPI_LAPLACE3D ? 6.0 : 4.0;
            }
}

spmv_status smpi_grid_check(const spmv_mpi_grid *g, int size, int rank, const char *fn, int64_t *n)
{
    if (!g) return smpi_err(rank, SPMV_ERR_ARG, "%s: argument g is NULL", fn);
    if (g->stencil != SPMV_MPI_HPCG && g->stencil != SPMV_MPI_LAPLACE3D && g->stencil != SPMV_MPI_LAPLACE2D)
        return smpi_err(rank, SPMV_ERR_ARG, "%s: unknown stencil %d", fn, (int)g->stencil);
    if (g->nx < 1 || g->ny < 1 || g->nz < 1)
        return smpi_err(rank, SPMV_ERR_ARG, "%s: grid %lld x %lld x %lld has a size < 1", fn, (long long)g->nx,
                        (long long)g->ny, (long long)g->nz);
    if (g->stencil == SPMV_MPI_LAPLACE2D && g->nz != 1)
        return smpi_err(rank, SPMV_ERR_ARG, "%s: the 2D Laplacian needs nz = 1, not %lld", fn, (long long)g->nz);
    const int64_t lim = (int64_t)1 << 62;
    if (g->nx > lim / g->ny || g->nx * g->ny > lim / g->nz)
        return smpi_err(rank, SPMV_ERR_OVERFLOW, "%s: grid %lld x %lld x %lld has more than 2^62 points", fn,
                        (long long)g->nx, (long long)g->ny, (long long)g->nz);
    *n = g->nx * g->ny * g->nz;
    int blocks = g->px || g->py || g->pz;
    if (blocks) {
        if (g->px < 1 || g->py < 1 || g->pz < 1)
            return smpi_err(rank, SPMV_ERR_ARG, "%s: process grid %d x %d x %d: all >= 1, or all 0 for rows in "
                            "lexicographic order", fn, g->px, g->py, g->pz);
        if ((int64_t)g->px * g->py * g->pz != size)
            return smpi_err(rank, SPMV_ERR_ARG, "%s: process grid %d x %d x %d has %lld ranks, the communicator %d",
                            fn, g->px, g->py, g->pz, (long long)g->px * g->py * g->pz, size);
        if (g->nx % g->px || g->ny % g->py || g->nz % g->pz)
            return smpi_err(rank, SPMV_ERR_ARG, "%s: grid %lld x %lld x %lld is not divisible by the process grid "
                            "%d x %d x %d", fn, (long long)g->nx, (long long)g->ny, (long long)g->nz, g->px, g->py,
                            g->pz);
        if (*n / size > INT32_MAX)
            return smpi_err(rank, SPMV_ERR_OVERFLOW, "%s: %lld rows per rank, more than the 32-bit limit %d", fn,
                            (long long)(*n / size), INT32_MAX);
    }
    return SPMV_OK;
}

/* number of t in [a, b) with 0 <= t + d < n */
static int64_t span(int64_t a, int64_t b, int d, int64_t n)
{
    int64_t lo = a > -d ? a : -d, hi = b < n - d ? b : n - d;
    return hi > lo ? hi - lo : 0;
}

/* nonzeros of the lexicographic rows [0, i): for each offset, the points of the prefix whose neighbour exists;
 * the prefix is the full planes z < iz, the full lines y < iy of plane iz, and the points x < ix of line iy */
static int64_t grid_prefix(const void *ctx, int64_t i)
{
    const smpi_gridsrc *s = ctx;
    int64_t nx = s->g.nx, ny = s->g.ny, nz = s->g.nz, plane = nx * ny;
    int64_t iz = i / plane, rem = i % plane, iy = rem / nx, ix = rem % nx, sum = 0;
    for (int k = 0; k < s->n; k++) {
        int dx = s->d[k][0], dy = s->d[k][1], dz = s->d[k][2];
        int64_t cx = span(0, nx, dx, nx), cy = span(0, ny, dy, ny);
        sum += span(0, iz, dz, nz) * cy * cx;
        if (iz < nz && span(iz, iz + 1, dz, nz))
            sum += span(0, iy, dy, ny) * cx + (iy < ny && span(iy, iy + 1, dy, ny) ? span(0, ix, dx, nx) : 0);
    }
    return sum;
}

static int32_t grid_row(const smpi_rowsrc *src, int32_t i, int64_t *col, double *val)
{
    const smpi_gridsrc *s = src->ctx;
    const spmv_mpi_grid *g = &s->g;
    int64_t r = src->row0 + i, gx, gy, gz;
    int blocks = g->px > 0;
    int64_t lx = 0, ly = 0, lz = 0, L = 0;
    if (!blocks) {
        gx = r % g->nx;
        gy = (r / g->nx) % g->ny;
        gz = r / g->nx / g->ny;
    } else {
        lx = g->nx / g->px, ly = g->ny / g->py, lz = g->nz / g->pz, L = lx * ly * lz;
        int64_t q = r / L, a = r % L;
        gx = (q % g->px) * lx + a % lx;
        gy = ((q / g->px) % g->py) * ly + (a / lx) % ly;
        gz = (q / g->px / g->py) * lz + a / lx / ly;
    }
    int32_t n = 0;
    for (int k = 0; k < s->n; k++) {
        int64_t x = gx + s->d[k][0], y = gy + s->d[k][1], z = gz + s->d[k][2];
        if (x < 0 || x >= g->nx || y < 0 || y >= g->ny || z < 0 || z >= g->nz) continue;
        if (!blocks) col[n] = x + g->nx * (y + g->ny * z);
        else {
            int64_t q = x / lx + g->px * (y / ly + (int64_t)g->py * (z / lz));
            col[n] = q * L + x % lx + lx * (y % ly + ly * (z % lz));
        }
        val[n++] = s->v[k];
    }
    return n;
}

void smpi_rowsrc_grid(smpi_rowsrc *s, smpi_gridsrc *ctx, const spmv_mpi_grid *g, int64_t row0, int32_t nrows)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->g = *g;
    stencil_get(g->stencil, ctx);
    s->row0 = row0;
    s->nrows = nrows;
    s->cols = g->nx * g->ny * g->nz;
    s->maxlen = ctx->n;
    s->row = grid_row;
    s->ctx = ctx;
}

spmv_status spmv_mpi_grid_partition(const spmv_mpi_grid *g, int size, int64_t *row_start)
{
    const char *fn = "spmv_mpi_grid_partition";
    smpi_clear_error();
    if (!row_start) return smpi_err(-1, SPMV_ERR_ARG, "%s: argument row_start is NULL", fn);
    if (size < 1) return smpi_err(-1, SPMV_ERR_ARG, "%s: size = %d, must be >= 1", fn, size);
    int64_t n;
    spmv_status st = smpi_grid_check(g, size, -1, fn, &n);
    if (st) return st;
    if (g->px > 0) {
        int64_t L = n / size;
        for (int r = 0; r <= size; r++) row_start[r] = L * r;
        return SPMV_OK;
    }
    smpi_gridsrc ctx;
    smpi_rowsrc src;
    smpi_rowsrc_grid(&src, &ctx, g, 0, 0);
    smpi_partition_prefix(n, grid_prefix(&ctx, n), size, grid_prefix, &ctx, row_start);
    for (int r = 0; r < size; r++)
        if (row_start[r + 1] - row_start[r] > INT32_MAX)
            return smpi_err(-1, SPMV_ERR_OVERFLOW, "%s: rank %d gets %lld rows, more than the 32-bit limit %d", fn, r,
                            (long long)(row_start[r + 1] - row_start[r]), INT32_MAX);
    return SPMV_OK;
}
