/* The library's one allocator: aligned, counted, and able to fail on purpose (out-of-memory tests). */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE (Linux; glibc hides it under -std=c11) */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef SPMV_ALIGNMENT
#define SPMV_ALIGNMENT 64 /* bytes */
#endif

#define SPMV_HUGE_PAGE ((size_t)2 << 20) /* x86-64 and arm64 (4 KiB base pages) transparent huge page */
#define SPMV_HUGE_MIN ((size_t)8 << 20)  /* arrays from 8 MiB on: at most 1/4 of the last huge page unused */

static atomic_long alloc_count = 0;  /* allocations since the last spmv__alloc_fail_after */
static atomic_long fail_at = -1;     /* ordinal of the first failing allocation, -1: never */
static atomic_int fail_once = 0;     /* 1: only allocation fail_at fails (spmv__alloc_fail_only) */

size_t spmv_alignment(void) { return SPMV_ALIGNMENT; }

long spmv__alloc_fail_after(long n)
{
    long made = atomic_exchange(&alloc_count, 0);
    atomic_store(&fail_once, 0);
    atomic_store(&fail_at, n);
    return made;
}

long spmv__alloc_fail_only(long n)
{
    long made = atomic_exchange(&alloc_count, 0);
    atomic_store(&fail_once, 1);
    atomic_store(&fail_at, n);
    return made;
}

/* Physical memory in bytes (0 if unknown). A single request above it cannot be served without swapping the machine
 * to a halt: it fails as out of memory (a 90-byte file may declare 2^31 rows). */
static size_t phys_bytes(void)
{
    static size_t cached;
    if (!cached) {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        cached = pages > 0 && size > 0 ? (size_t)pages * (size_t)size : SIZE_MAX;
    }
    return cached;
}

/* Every block starts SPMV_ALIGNMENT bytes or more into what aligned_alloc returned; the word before it holds that
 * pointer (spmv__free frees it). Big arrays (8 MiB and more) start at a different offset each, 64..4096 bytes into
 * their first huge page in steps of 64, the next one 17 steps on: arrays that all began at a 2 MiB boundary made
 * every load of x[i] after the store of y[i] wait (addresses equal in their low 21 bits: CRS on lap2d 2000^2 ran at
 * 0.64 Gflop/s with x and y from spmv_vec_alloc, 0.97-1.1 with y 64 doubles further, 1 core of the Intel Xeon VM). */
void *spmv__malloc(size_t bytes)
{
    if (bytes == 0) return NULL;
    if (bytes > phys_bytes() / 2) return NULL;
    long k = atomic_fetch_add(&alloc_count, 1);
    long f = atomic_load(&fail_at);
    if (f >= 0 && (atomic_load(&fail_once) ? k == f : k >= f)) return NULL;
    /* big arrays (matrix entries, vectors of millions of rows): aligned to 2 MiB and marked for transparent huge
     * pages, so that first touch faults once per 2 MiB instead of once per 4 KiB (most of a fresh conversion's time
     * was page faults; issue 17). Where THP is off the advice does nothing. */
    const int big = bytes >= SPMV_HUGE_MIN;
    const size_t align = big ? SPMV_HUGE_PAGE : SPMV_ALIGNMENT;
    size_t off = SPMV_ALIGNMENT; /* room for the start pointer, alignment kept */
    if (big) {
        static atomic_long nbig = 0;
        off += (size_t)((atomic_fetch_add(&nbig, 1) * 17) & 63) * SPMV_ALIGNMENT;
    }
    if (bytes > SIZE_MAX - off - align) return NULL; /* overflow */
    const size_t rounded = (bytes + off + align - 1) / align * align;
    char *base = aligned_alloc(align, rounded);
    if (!base) return NULL;
#ifdef MADV_HUGEPAGE
    if (big) (void)madvise(base, rounded, MADV_HUGEPAGE);
#endif
    char *p = base + off;
    memcpy(p - sizeof base, &base, sizeof base);
    return p;
}

void *spmv__calloc(size_t n, size_t size)
{
    if (n != 0 && size > SIZE_MAX / n) return NULL;
    void *p = spmv__malloc(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void spmv__free(void *p)
{
    if (!p) return;
    void *base;
    memcpy(&base, (char *)p - sizeof base, sizeof base);
    free(base);
}

spmv_status spmv_vec_alloc(int64_t n, double **v)
{
    if (!v) return spmv__error(SPMV_ERR_ARG, "spmv_vec_alloc: argument v is NULL");
    *v = NULL;
    if (n < 0) return spmv__error(SPMV_ERR_ARG, "spmv_vec_alloc: length n = %lld is negative", (long long)n);
    if (n == 0) return SPMV_OK;
    if ((uint64_t)n > SIZE_MAX / sizeof(double))
        return spmv__error(SPMV_ERR_NOMEM, "spmv_vec_alloc: %lld doubles do not fit in memory", (long long)n);
    double *p = spmv__calloc((size_t)n, sizeof(double));
    if (!p) return spmv__error(SPMV_ERR_NOMEM, "spmv_vec_alloc: out of memory for %lld doubles", (long long)n);
    *v = p;
    return SPMV_OK;
}

void spmv_vec_free(double *v) { spmv__free(v); }
