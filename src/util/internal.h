/* Internal helpers shared by the library's translation units (not installed). */
#ifndef SPMV_INTERNAL_H
#define SPMV_INTERNAL_H

#include "spmv_tune.h" /* spmv.h, spmv_model.h and the tuner: the library sees every layer */
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SPMV_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SPMV_PRINTF(a, b)
#endif

/* One allocator for the whole library: aligned to spmv_alignment(), and able to fail on purpose for the
 * out-of-memory tests (spmv__alloc_fail_after). bytes = 0 returns NULL without counting as a failure. */
void *spmv__malloc(size_t bytes);
void *spmv__calloc(size_t n, size_t size);
void spmv__free(void *p);

/* Test hook: the allocation with ordinal n (0-based, counted from this call) and every later one fail;
 * n < 0 switches failure injection off. Returns the number of allocations made since the last call. */
long spmv__alloc_fail_after(long n);

/* Test hook: only the allocation with ordinal n (0-based, counted from this call) fails, the ones after it succeed
 * (the paths that go on without an optional array); n < 0 switches failure injection off. Returns as above. */
long spmv__alloc_fail_only(long n);

/* Record an error for spmv_last_error() and return status (so: return spmv__error(SPMV_ERR_ARG, "...")). */
spmv_status spmv__error(spmv_status status, const char *fmt, ...) SPMV_PRINTF(2, 3);
void spmv__clear_error(void);

/* Text from an input file made safe for a message: bytes that are not printable (control characters, DEL, bytes
 * that are not valid UTF-8) become \xHH, a backslash "\\"; at most max bytes of src are taken ("..." added when
 * cut). Always NUL-terminated; returns dst. */
const char *spmv__escape(char *dst, size_t size, const char *src, size_t max);

/* A machine's model name made safe for a message or a report (spmv__escape: a machine file may hold any bytes
 * there). Returned by value: use .s within the same expression, e.g. spmv__error(..., spmv__machine_name(m).s). */
typedef struct spmv__name_text {
    char s[4 * 128 + 8];
} spmv__name_text;
spmv__name_text spmv__machine_name(const spmv_machine *m);

/* Seconds on CLOCK_MONOTONIC (for the library's own measurements: the x-access probe, the fork and join, the
 * handle's timings). */
double spmv__now(void);

/* Threads: omp_get_max_threads() at most SPMV_MAX_THREADS (spmv.h), or 1 without OpenMP. */
int spmv__max_threads(void);

/* Default thread count for a matrix of `work` stored entries: spmv__max_threads(), but at most one thread per
 * SPMV_MIN_WORK_PER_THREAD entries (spmv.h), at least 1. */
int32_t spmv__auto_threads(int64_t work);

/* Balanced partition of n items (rows or chunks) with weights given by the prefix sums ptr (length n+1, ptr[0] may
 * be nonzero) into nparts parts: part[0]=0, part[nparts]=n, non-decreasing. part: length nparts+1. */
void spmv__partition(const int64_t *ptr, int32_t n, int32_t nparts, int32_t *part);

/* Merge-path partition of a CRS structure (rowptr: length rows+1, rowptr[0] = 0) into nparts parts (Merrill &
 * Garland, SC 2016): part and split as spmv_crs.part and spmv_crs.split (length nparts+1 each). Rows + nonzeros are
 * cut in equal shares; a cut inside a row of at most (rows + nnz) / (64 nparts) entries moves to that row's nearer
 * end, so only rows longer than that are split. */
void spmv__merge_partition(const int64_t *rowptr, int32_t rows, int32_t nparts, int32_t *part, int64_t *split);

/* Hybrid SELL-C-sigma (spmv_sell_opts.long_rows): the smallest automatic threshold (entries), and the stored-entry
 * count below which the padding guard never refuses (2^20 entries = 12 MiB of values and indices). */
#define SPMV_SELL_LONG_MIN 64
#define SPMV_SELL_GUARD_FLOOR ((int64_t)1 << 20)

/* The rows of A that spmv_sell_from_crs keeps in its CRS part for the option long_rows (-1 auto, 0 off, > 0 the
 * threshold) and chunk height C, rows taken in `order` (perm[new] = old; NULL = identity, used for ties): mark
 * (length rows, by original row) gets 1 for those rows, *threshold the threshold used (0: no CRS part) and *nlong
 * their number. Errors: SPMV_ERR_NOMEM (message set). */
spmv_status spmv__sell_long_rows(const spmv_crs *A, int32_t long_rows, int32_t C, const int32_t *order, uint8_t *mark,
                                 int32_t *threshold, int32_t *nlong);

/* CRS internals: allocate a struct and its arrays (owns = 1, rowptr zeroed, no partition yet); then, once the
 * arrays are filled, spmv__crs_finish computes the thread partition (spmv__max_threads parts) and chooses the
 * kernel. On failure crs_alloc leaves nothing allocated; after a failed crs_finish the caller frees A. */
spmv_status spmv__crs_alloc(int32_t rows, int32_t cols, int64_t nnz, spmv_crs **A);
spmv_status spmv__crs_finish(spmv_crs *A);
#endif
