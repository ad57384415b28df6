/* The one OpenMP driver: runs a matrix's kernel on the thread partition stored in the matrix. Kernels are serial
 * over a range; parallelism lives here only. */
#include "internal.h"
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* 1 when [a, a+na) and [b, b+nb) (doubles) overlap */
static int overlap(const double *a, int64_t na, const double *b, int64_t nb)
{
    uintptr_t a0 = (uintptr_t)a, a1 = a0 + (uintptr_t)na * sizeof(double);
    uintptr_t b0 = (uintptr_t)b, b1 = b0 + (uintptr_t)nb * sizeof(double);
    return na > 0 && nb > 0 && a0 < b1 && b0 < a1;
}

/* y = beta*y over n entries (beta = 0: y = 0, y not read): the multiply of a matrix without stored entries, done
 * here so that no kernel forms pointers into NULL col/val arrays. */
static void scale_y(double *y, int64_t n, double beta)
{
    for (int64_t i = 0; i < n; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

/* Partial sums of split rows kept on the stack up to this many parts (unit: parts), on the heap beyond. */
enum { CARRY_STACK = 256 };

/* Fork and join of the team a small multiply runs on (spmv__team_run), ns, cached in ps per kind of team (0: OpenMP
 * region, 1: helper threads; -1: not known yet). A process whose helpers gave up (team.c) measures again. */
static int64_t fork_join_ps[2] = {-1, -1};

/* Helpers: windows for at least this long (ns), best taken. After the application's or the conversion's OpenMP
 * regions, libgomp's threads spin for a few ms (GOMP_SPINCOUNT) on the cores the helpers need: measured inside
 * that time, the helpers' 0.5 us read 1-4.8 us on the AMD EPYC VM. */
#define FORK_JOIN_HELPERS_NS 8e6

double spmv__fork_join_ns(void)
{
#ifdef _OPENMP
    const int m = spmv__max_threads();
    const int kind = spmv__team_helpers_used(m, 0);
#else
    const int m = 1, kind = 0;
#endif
    int64_t ps = __atomic_load_n(&fork_join_ps[kind], __ATOMIC_RELAXED);
    if (ps >= 0) return 1e-3 * (double)ps;
    double env_ns;
    if (spmv__env_fork_join_ns(&env_ns) > 0) ps = (int64_t)(env_ns * 1e3);
#ifdef _OPENMP
    if (ps < 0) {
        if (m < 2 || omp_in_parallel()) return 0.0; /* no team here (not cached: it may be started later) */
        /* spmv_team_overhead (the best of 5 windows of 200 empty calls), again for helpers until 8 ms have passed */
        double best = 1e30;
        const double start = spmv__now();
        for (int w = 0; w < 1 || (kind && w < 64 && (spmv__now() - start) * 1e9 < FORK_JOIN_HELPERS_NS); w++) {
            const double t = spmv_team_overhead(m);
            if (t < best) best = t;
        }
        ps = (int64_t)(best * 1e12);
        const char *v = getenv("SPMV_VERBOSE");
        if (v && *v && *v != '0')
            fprintf(stderr, "spmv: fork and join of the team on %d threads (%s): %.2f us measured; a multiply "
                    "starts a thread per %lld entries of work (%s; SPMV_TEAM=openmp: no helpers)\n", m,
                    kind ? "helper threads" : "OpenMP region", best * 1e6,
                    (long long)spmv__team_min_work(best * 1e9), SPMV_FORK_JOIN_ENV " overrides");
    }
#else
    if (ps < 0) ps = 0;
#endif
    __atomic_store_n(&fork_join_ps[kind], ps, __ATOMIC_RELAXED);
    return 1e-3 * (double)ps;
}

int64_t spmv__team_min_work(double fork_join_ns)
{
    const double w = fork_join_ns > 0 ? fork_join_ns / SPMV_TEAM_ENTRY_NS : 0.0;
    return w > (double)SPMV_MIN_WORK_PER_THREAD ? (w < 1e15 ? (int64_t)w : (int64_t)1e15) : SPMV_MIN_WORK_PER_THREAD;
}

int spmv__team_for(int32_t nparts, int64_t work, double fork_join_ns)
{
    const int64_t n = work / spmv__team_min_work(fork_join_ns);
    return (int)(n < 1 ? 1 : n < nparts ? n : nparts);
}

/* Threads that run the nparts parts of a multiply of `work` stored entries: one per spmv__team_min_work entries of
 * this machine's fork and join (measured on first use: spmv__fork_join_ns), at most nparts, at least 1. 1: the
 * caller runs the parts itself, without opening a parallel region (which costs about a microsecond even for one
 * thread). */
int spmv__team(int32_t nparts, int64_t work)
{
    if (nparts < 2 || work < 2 * (int64_t)SPMV_MIN_WORK_PER_THREAD) return 1; /* no measurement needed */
    return spmv__team_for(nparts, work, spmv__fork_join_ns());
}

/* The work of a SELL multiply for team(), in entries of the CRS kernels' cost: an entry of a run column (a contiguous
 * x load, no index) counts a quarter of a gathered one. In cache on the Intel Xeon VM a run entry takes about 0.4
 * cycles and a gathered one 1-1.5, and a second thread pays from about 2 us of work per multiply: cryg2500 (12 349
 * entries, all in run columns, 1.7 us) was slower on 2 threads than on 1 (14.7 -> 13.8 Gflop/s, SELL-32-1), while
 * G51, pow and hangGlider_2 (11 800-14 800 entries, mostly gathered, 2.7-5 us) gained 18-26 % (BENCHMARKS.md). */
int64_t spmv__sell_work(const spmv_sell *S)
{
    const int64_t lanes = S->nruns * (int64_t)S->C; /* entries stored in run columns, padding lanes included */
    return S->stored - lanes + lanes / 4;
}

/* spmv__sell_team_cap, spmv__sell_team (kernel.h) */
int64_t spmv__sell_bytes(const spmv_sell *S)
{
    spmv_traffic t;
    spmv_sell_traffic(S, &t); /* S is not NULL: no error */
    const double b = spmv_traffic_bytes(&t, S->stored, S->nnz, S->rows, S->nchunks, 0.0) + 8.0 * (double)S->cols;
    return b < 9e18 ? (int64_t)b : INT64_MAX;
}
int spmv__sell_team_cap(const spmv_sell *S, int n, int64_t work)
{
    /* the count's comparison first: the bytes (the kernel's traffic declaration) only where it would cap */
    if (n <= 1 || S->yshared * (int64_t)SPMV_SHARED_LINE_WORK <= work - work / n) return n;
    return spmv__sell_bytes(S) / n > SPMV_SHARED_LINE_CACHE_BYTES ? n : 1;
}
int spmv__sell_team(const spmv_sell *S, int64_t work)
{
    return spmv__sell_team_cap(S, spmv__team(S->nparts, work), work);
}

/* y[i] = beta*y[i] + alpha*s (beta = 0: y not read), as the kernels write a row */
static inline void put(double *y, int64_t i, double alpha, double beta, double s)
{
    y[i] = beta == 0.0 ? (alpha == 1.0 ? s : alpha * s) : beta * y[i] + alpha * s;
}

/* sum_q val[q]*x[col[q]], q in [k0, k1), through the kernel's partial-row entry point */
static double piece(const spmv_kernel *k, const double *val, const int32_t *col, int64_t k0, int64_t k1,
                    const double *x)
{
    if (k1 <= k0) return 0.0;
    if (k && k->dot) return k->dot(val + k0, col + k0, k1 - k0, x);
    double s = 0.0;
    for (int64_t q = k0; q < k1; q++) s += val[q] * x[col[q]];
    return s;
}

/* 1 when part t of a merge-path partition (spmv_crs.split) holds entries of row part[t+1], the row a later part
 * finishes: then it has a carry. */
static int has_carry(const int64_t *rowptr, int32_t rows, const int32_t *part, const int64_t *split, int32_t t)
{
    const int32_t r = part[t + 1];
    if (r >= rows) return 0;
    const int64_t b = rowptr[r] > split[t] ? rowptr[r] : split[t];
    return split[t + 1] > b;
}

/* The carries into y, in part order after every part is done: y[row] += alpha * carry[t] for the row part[t+1]
 * (y index map[row], or base + row without a map). No atomics; the same order in every call. */
static void add_carries(const int64_t *rowptr, int32_t rows, const int32_t *part, const int64_t *split,
                        int32_t nparts, const int32_t *map, int64_t base, double alpha, const double *carry, double *y)
{
    for (int32_t t = 0; t + 1 < nparts; t++)
        if (has_carry(rowptr, rows, part, split, t)) {
            const int32_t r = part[t + 1];
            y[map ? map[r] : base + r] += alpha * carry[t];
        }
}

/* Rows of y reduced per block in the fused multiply: 2048 rows = 16 KiB of y, still in L1/L2 when reduced. */
enum { DOT_BLOCK_ROWS = 2048 };

/* <x, y> and <y, y> over rows [r0, r1) of the vectors, through map (NULL: identity) */
static void dots(const double *x, const double *y, const int32_t *map, int64_t r0, int64_t r1, double *xy, double *yy)
{
    double a = 0.0, b = 0.0;
    if (map)
        for (int64_t i = r0; i < r1; i++) {
            double v = y[map[i]];
            a += x[map[i]] * v;
            b += v * v;
        }
    else
        for (int64_t i = r0; i < r1; i++) {
            a += x[i] * y[i];
            b += y[i] * y[i];
        }
    *xy += a;
    *yy += b;
}

/* Part t of the CRS multiply on the merge-path partition: the rows [part[t], part[t+1]) this part finishes -- the
 * first one from split[t] on when the part starts inside it -- and, returned, the carry: the sum of its entries of
 * row part[t+1]. sum != NULL (fused multiply): <x, y> and <y, y> of the rows it writes are added to sum[0], sum[1]
 * block by block, except a first row started inside (its carries come later). */
static double crs_part(const spmv_kernel *k, const spmv_crs *A, int32_t t, double alpha, const double *x,
                       double beta, double *y, double *sum)
{
    const int64_t *rp = A->rowptr;
    const int32_t r1 = A->part[t + 1];
    const int64_t k0 = A->split ? A->split[t] : rp[A->part[t]], k1 = A->split ? A->split[t + 1] : rp[r1];
    int32_t r = A->part[t];
    if (r < r1 && k0 > rp[r]) { /* the first row, from inside */
        put(y, r, alpha, beta, piece(k, A->val, A->col, k0, rp[r + 1], x));
        r++;
    }
    if (!sum) {
        if (r < r1) k->crs(A, r, r1, alpha, x, beta, y);
    } else {
        for (int32_t b = r; b < r1; b += DOT_BLOCK_ROWS) {
            int32_t e = r1 - b < DOT_BLOCK_ROWS ? r1 : b + DOT_BLOCK_ROWS;
            k->crs(A, b, e, alpha, x, beta, y);
            dots(x, y, NULL, b, e, &sum[0], &sum[1]);
        }
    }
    if (r1 < A->rows) {
        const int64_t b = rp[r1] > k0 ? rp[r1] : k0;
        if (k1 > b) return piece(k, A->val, A->col, b, k1, x);
    }
    return 0.0;
}

/* Part t of the CRS part of a hybrid SELL matrix (merge-path partition longpart/longsplit): as crs_part, row j of
 * the CRS part being y[perm[base + j]] (original order) or y[base + j] (permuted order), base = rows - nlong. */
static double long_part(const spmv_sell *S, int32_t t, double alpha, const double *x, double beta, double *y)
{
    const spmv_kernel *k = S->long_kernel;
    const int32_t base = S->rows - S->nlong, r1 = S->longpart[t + 1];
    const int32_t *map = SPMV_SELL_DIRECT(S) ? NULL : S->perm + base;
    const int64_t *lp = S->longptr, k0 = S->longsplit[t], k1 = S->longsplit[t + 1];
    for (int32_t j = S->longpart[t]; j < r1; j++) {
        const int64_t b = lp[j] > k0 ? lp[j] : k0; /* only the first row can start inside */
        put(y, map ? map[j] : (int64_t)base + j, alpha, beta, piece(k, S->longval, S->longcol, b, lp[j + 1], x));
    }
    if (r1 < S->nlong) {
        const int64_t b = lp[r1] > k0 ? lp[r1] : k0;
        if (k1 > b) return piece(k, S->longval, S->longcol, b, k1, x);
    }
    return 0.0;
}

/* Room for the carries of nparts parts: the caller's stack buffer of `have` doubles, or the heap */
static double *carries(double *stack, int32_t have, int32_t nparts)
{
    return nparts <= have ? stack : spmv__malloc((size_t)nparts * sizeof(double));
}

/* A multiply for the team (spmv__team_run): CRS (A), SELL (S, hybrid: with a CRS part) or fused with the dots (A or
 * S); part[t] its result per part: the carry, or for the fused multiply sum[3t], sum[3t+1] the dots and sum[3t+2]
 * the carry. A thread runs parts t, t + n, ... (fewer threads than parts: every part still runs once). */
typedef struct {
    const spmv_kernel *k;
    const spmv_crs *A;
    const spmv_sell *S;
    int hybrid;
    double alpha;
    const double *x;
    double beta;
    double *y, *part;
} mv_job;

static void crs_parts(void *arg, int t0, int n)
{
    const mv_job *j = arg;
    for (int t = t0; t < j->A->nparts; t += n) j->part[t] = crs_part(j->k, j->A, t, j->alpha, j->x, j->beta, j->y, NULL);
}

spmv_status spmv_crs_mv(const spmv_crs *A, double alpha, const double *x, double beta, double *y)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: argument A is NULL");
    if (!x && A->cols > 0) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: argument x is NULL (length %d)", A->cols);
    if (!y && A->rows > 0) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: argument y is NULL (length %d)", A->rows);
    if (overlap(x, A->cols, y, A->rows))
        return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv: x and y overlap (y = A x needs distinct arrays)");
    const spmv_kernel *k = A->kernel ? A->kernel : &spmv__k_crs_ref;
    if (A->nnz == 0) {
        scale_y(y, A->rows, beta);
        return SPMV_OK;
    }
    if (A->nparts <= 1 || !A->part) {
        k->crs(A, 0, A->rows, alpha, x, beta, y);
        return SPMV_OK;
    }
    const int32_t nparts = A->nparts;
    double stack[CARRY_STACK], *carry = carries(stack, CARRY_STACK, nparts);
    if (!carry) return spmv__error(SPMV_ERR_NOMEM, "spmv_crs_mv: out of memory for %d partial sums", nparts);
    mv_job job = {k, A, NULL, 0, alpha, x, beta, y, carry};
    spmv__team_run(spmv__team(nparts, A->nnz), A->nnz, crs_parts, &job);
    if (A->split) add_carries(A->rowptr, A->rows, A->part, A->split, nparts, NULL, 0, alpha, carry, y);
    if (carry != stack) spmv__free(carry);
    return SPMV_OK;
}

/* Parts t0, t0 + n, ... of the SELL multiply: the chunks, then the share of the CRS part (its carry) */
static void sell_parts(void *arg, int t0, int n)
{
    const mv_job *j = arg;
    const spmv_sell *S = j->S;
    for (int t = t0; t < S->nparts; t += n) {
        if (S->part[t] < S->part[t + 1]) j->k->sell(S, S->part[t], S->part[t + 1], j->alpha, j->x, j->beta, j->y);
        if (j->hybrid) j->part[t] = long_part(S, t, j->alpha, j->x, j->beta, j->y);
    }
}

spmv_status spmv_sell_mv(const spmv_sell *S, double alpha, const double *x, double beta, double *y)
{
    if (!S) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: argument S is NULL");
    if (!x && S->cols > 0) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: argument x is NULL (length %d)", S->cols);
    if (!y && S->rows > 0) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: argument y is NULL (length %d)", S->rows);
    if (overlap(x, S->cols, y, S->rows))
        return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv: x and y overlap (y = A x needs distinct arrays)");
    const spmv_kernel *k = S->kernel ? S->kernel : &spmv__k_sell_ref;
    if (S->stored == 0) {
        scale_y(y, S->rows, beta);
        return SPMV_OK;
    }
    const int hybrid = S->nlong > 0 && S->longpart && S->longsplit;
    if (S->nparts <= 1 || !S->part) {
        if (S->nchunks > 0) k->sell(S, 0, S->nchunks, alpha, x, beta, y);
        if (hybrid) long_part(S, 0, alpha, x, beta, y); /* one part: no carry */
        return SPMV_OK;
    }
    const int32_t nparts = S->nparts;
    double stack[CARRY_STACK], *carry = hybrid ? carries(stack, CARRY_STACK, nparts) : stack;
    if (!carry) return spmv__error(SPMV_ERR_NOMEM, "spmv_sell_mv: out of memory for %d partial sums", nparts);
    const int64_t work = spmv__sell_work(S);
    mv_job job = {k, NULL, S, hybrid, alpha, x, beta, y, carry};
    spmv__team_run(spmv__sell_team(S, work), work, sell_parts, &job);
    if (hybrid)
        add_carries(S->longptr, S->nlong, S->longpart, S->longsplit, nparts, SPMV_SELL_DIRECT(S) ? NULL : S->perm + (S->rows - S->nlong),
                    S->rows - S->nlong, alpha, carry, y);
    if (carry != stack) spmv__free(carry);
    return SPMV_OK;
}

/* Part t of the fused multiply for SELL: the kernel over blocks of chunks, each block reduced right after it is
 * written; the CRS part's share (its rows are reduced by the caller after the carries). */
static double sell_dot_part(const spmv_sell *S, int t, double alpha, const double *x, double beta, double *y,
                            double *sum)
{
    const int32_t step = DOT_BLOCK_ROWS / S->C > 0 ? DOT_BLOCK_ROWS / S->C : 1;
    for (int32_t k = S->part[t]; k < S->part[t + 1]; k += step) {
        int32_t e = S->part[t + 1] - k < step ? S->part[t + 1] : k + step;
        S->kernel->sell(S, k, e, alpha, x, beta, y);
        int64_t r0 = (int64_t)k * S->C, r1 = (int64_t)e * S->C < S->rows ? (int64_t)e * S->C : S->rows;
        dots(x, y, SPMV_SELL_DIRECT(S) ? NULL : S->perm, r0, r1, &sum[0], &sum[1]);
    }
    return S->nlong > 0 ? long_part(S, t, alpha, x, beta, y) : 0.0;
}

/* Parts t0, t0 + n, ... of the fused multiply: sum[3t], sum[3t+1] the dots, sum[3t+2] the carry */
static void dot_parts(void *arg, int t0, int n)
{
    const mv_job *j = arg;
    const int32_t nparts = j->A ? j->A->nparts : j->S->nparts;
    for (int t = t0; t < nparts; t += n) {
        double *s = j->part + 3 * t;
        s[2] = j->A ? crs_part(j->A->kernel, j->A, t, j->alpha, j->x, j->beta, j->y, s)
                    : sell_dot_part(j->S, t, j->alpha, j->x, j->beta, j->y, s);
    }
}

static spmv_status mv_dot(const char *fn, const spmv_crs *A, const spmv_sell *S, double alpha, const double *x,
                          double beta, double *y, double *xy, double *yy)
{
    int32_t rows = A ? A->rows : S->rows, cols = A ? A->cols : S->cols, nparts = A ? A->nparts : S->nparts;
    if (rows != cols) return spmv__error(SPMV_ERR_ARG, "%s: matrix is %d x %d, not square", fn, rows, cols);
    if (rows > 0 && (!x || !y)) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, x ? "y" : "x");
    if (overlap(x, cols, y, rows)) return spmv__error(SPMV_ERR_ARG, "%s: x and y overlap", fn);
    if ((A && (!A->kernel || !A->part || !A->split)) ||
        (S && (!S->kernel || !S->part || (S->nlong > 0 && (!S->longpart || !S->longsplit)))))
        return spmv__error(SPMV_ERR_ARG, "%s: matrix was not built by the library", fn);
    if ((A ? A->nnz : S->stored) == 0) { /* no entries: y = beta y, then the dots */
        scale_y(y, rows, beta);
        double a = 0.0, b = 0.0;
        for (int32_t i = 0; i < rows; i++) {
            a += x[i] * y[i];
            b += y[i] * y[i];
        }
        if (xy) *xy = a;
        if (yy) *yy = b;
        return SPMV_OK;
    }
    /* per part: <x, y>, <y, y>, the carry */
    double *sum = spmv__calloc(3 * (size_t)nparts, sizeof *sum);
    if (!sum) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %d partial sums", fn, nparts);
    const int64_t work = A ? A->nnz : spmv__sell_work(S);
    mv_job job = {NULL, A, S, 0, alpha, x, beta, y, sum};
    spmv__team_run(A ? spmv__team(nparts, work) : spmv__sell_team(S, work), work, dot_parts, &job);
    double a = 0.0, b = 0.0;
    for (int32_t t = 0; t < nparts; t++) { /* part order: deterministic for a given partition */
        a += sum[3 * t];
        b += sum[3 * t + 1];
    }
    /* the carries, then the rows they changed, in order */
    double *carry = spmv__malloc((size_t)nparts * sizeof *carry);
    if (!carry) {
        spmv__free(sum);
        return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory for %d partial sums", fn, nparts);
    }
    for (int32_t t = 0; t < nparts; t++) carry[t] = sum[3 * t + 2];
    if (A) {
        add_carries(A->rowptr, A->rows, A->part, A->split, nparts, NULL, 0, alpha, carry, y);
        for (int32_t t = 0; t < nparts; t++) {
            const int32_t r = A->part[t];
            if (r < A->part[t + 1] && A->split[t] > A->rowptr[r]) dots(x, y, NULL, r, r + 1, &a, &b);
        }
    } else if (S->nlong > 0) {
        const int32_t base = S->rows - S->nlong;
        add_carries(S->longptr, S->nlong, S->longpart, S->longsplit, nparts, SPMV_SELL_DIRECT(S) ? NULL : S->perm + base, base,
                    alpha, carry, y);
        dots(x, y, SPMV_SELL_DIRECT(S) ? NULL : S->perm, base, S->rows, &a, &b);
    }
    spmv__free(carry);
    spmv__free(sum);
    if (xy) *xy = a;
    if (yy) *yy = b;
    return SPMV_OK;
}

spmv_status spmv_crs_mv_dot(const spmv_crs *A, double alpha, const double *x, double beta, double *y, double *xy,
                            double *yy)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_mv_dot: argument A is NULL");
    return mv_dot("spmv_crs_mv_dot", A, NULL, alpha, x, beta, y, xy, yy);
}

spmv_status spmv_sell_mv_dot(const spmv_sell *S, double alpha, const double *x, double beta, double *y, double *xy,
                             double *yy)
{
    if (!S) return spmv__error(SPMV_ERR_ARG, "spmv_sell_mv_dot: argument S is NULL");
    return mv_dot("spmv_sell_mv_dot", NULL, S, alpha, x, beta, y, xy, yy);
}

const char *spmv_crs_kernel_name(const spmv_crs *A)
{
    return A && A->kernel ? A->kernel->name : spmv__k_crs_ref.name;
}

const char *spmv_sell_kernel_name(const spmv_sell *S)
{
    return S && S->kernel ? S->kernel->name : spmv__k_sell_ref.name;
}

spmv_status spmv_crs_traffic(const spmv_crs *A, spmv_traffic *t)
{
    if (!A || !t) return spmv__error(SPMV_ERR_ARG, "spmv_crs_traffic: argument %s is NULL", A ? "t" : "A");
    *t = (A->kernel ? A->kernel : &spmv__k_crs_ref)->traffic;
    return SPMV_OK;
}

spmv_status spmv_sell_traffic(const spmv_sell *S, spmv_traffic *t)
{
    if (!S || !t) return spmv__error(SPMV_ERR_ARG, "spmv_sell_traffic: argument %s is NULL", S ? "t" : "S");
    const spmv_kernel *k = S->kernel ? S->kernel : &spmv__k_sell_ref;
    *t = k->traffic;
    /* the original vector order reads perm[i] (4 bytes) per row to scatter y */
    if (!SPMV_SELL_DIRECT(S)) t->bytes_per_row += 4;
    const int64_t lnnz = S->nlong > 0 && S->longptr ? S->longptr[S->nlong] : 0, cstored = S->stored - lnnz;
    /* run columns read by run loads: value + mask bit per lane and a base per column, no index per entry; gather
     * entries with 16-bit indices: value + offset */
    const int runs = k->shape.runs && S->nruns > 0 && t->bytes_per_run_lane > 0;
    const int i16 = k->shape.idx16 && S->nidx16 > 0 && t->bytes_per_entry16 > 0;
    if (cstored > 0 && (runs || i16)) {
        const double lanes = runs ? (double)S->nruns * S->C : 0.0, n16 = i16 ? (double)S->nidx16 : 0.0;
        const double stored = (double)cstored;
        t->bytes_per_entry = ((stored - lanes - n16) * t->bytes_per_entry + lanes * t->bytes_per_run_lane +
                              (runs ? (double)S->nruns * t->bytes_per_run : 0.0) + n16 * t->bytes_per_entry16) /
                             stored;
    }
    /* value indices: 1 byte instead of 8 per chunk entry's value (run lanes, 16- and 32-bit gather entries alike) */
    if (cstored > 0 && k->shape.vidx && S->nvals > 0 && t->bytes_per_value_vi > 0)
        t->bytes_per_entry -= 8.0 - t->bytes_per_value_vi;
    /* the CRS part of a hybrid matrix: its entries and rows at the CRS kernel's declaration (the row offsets count
     * per row; the perm read of the original order too), averaged in, so that the formulas hold unchanged */
    if (S->nlong > 0 && S->stored > 0 && S->rows > 0) {
        const spmv_traffic lt = (S->long_kernel ? S->long_kernel : &spmv__k_crs_ref)->traffic;
        const double ls = (double)lnnz, lr = (double)S->nlong, rows = (double)S->rows;
        t->bytes_per_entry = ((double)cstored * t->bytes_per_entry + ls * lt.bytes_per_entry) / (double)S->stored;
        t->bytes_per_row = ((rows - lr) * t->bytes_per_row + lr * (lt.bytes_per_row + (SPMV_SELL_DIRECT(S) ? 0 : 4))) / rows;
    }
    return SPMV_OK;
}

spmv_status spmv_crs_kernel_shape(const spmv_crs *A, spmv_kernel_shape *k)
{
    if (!A || !k) return spmv__error(SPMV_ERR_ARG, "spmv_crs_kernel_shape: argument %s is NULL", A ? "k" : "A");
    *k = spmv__kernel_shape(A->kernel ? A->kernel : &spmv__k_crs_ref, 0);
    return SPMV_OK;
}

spmv_status spmv_sell_kernel_shape(const spmv_sell *S, spmv_kernel_shape *k)
{
    if (!S || !k) return spmv__error(SPMV_ERR_ARG, "spmv_sell_kernel_shape: argument %s is NULL", S ? "k" : "S");
    *k = spmv__kernel_shape(S->kernel ? S->kernel : &spmv__k_sell_ref, S->C);
    /* a matrix without run columns runs no run loads, whatever the kernel can do; the same for 16-bit indices */
    if (S->nruns == 0) k->runs = 0;
    if (S->nidx16 == 0) k->idx16 = 0;
    if (S->nvals == 0) k->vidx = 0;
    return SPMV_OK;
}

double spmv_traffic_bytes(const spmv_traffic *t, int64_t stored, int64_t nnz, int64_t rows, int64_t nchunks,
                          double alpha_x)
{
    if (!t) return 0.0;
    return (double)stored * t->bytes_per_entry + (double)rows * t->bytes_per_row +
           (double)nchunks * t->bytes_per_chunk + 8.0 * alpha_x * (double)nnz;
}
