/* Status texts and the thread-local last-error message. */
#define _POSIX_C_SOURCE 200809L /* strnlen, clock_gettime */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static _Thread_local char last_error[512];

double spmv__now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *spmv_version(void) { return SPMV_VERSION_STRING; }

const char *spmv_strerror(spmv_status status)
{
    switch (status) {
    case SPMV_OK: return "success";
    case SPMV_ERR_ARG: return "invalid argument";
    case SPMV_ERR_NOMEM: return "out of memory";
    case SPMV_ERR_IO: return "input/output error";
    case SPMV_ERR_PARSE: return "malformed input file";
    case SPMV_ERR_UNSUPPORTED: return "unsupported input";
    case SPMV_ERR_OVERFLOW: return "size overflows 32-bit indices";
    case SPMV_ERR_ARCH: return "kernel family not available";
    case SPMV_ERR_COMM: return "communication (MPI) error";
    case SPMV_ERR_PADDING: return "padding exceeds the limit";
    }
    return "unknown status";
}

const char *spmv_last_error(void) { return last_error; }

void spmv__clear_error(void) { last_error[0] = '\0'; }

spmv_status spmv__error(spmv_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

/* length of a valid UTF-8 sequence at s (2..4 bytes, n available), 0 if none */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t k = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    if (!k || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] > 0x8f))
        return 0; /* overlong, surrogate, beyond U+10FFFF */
    return k;
}

const char *spmv__escape(char *dst, size_t size, const char *src, size_t max)
{
    if (!dst || !size) return dst;
    dst[0] = '\0';
    if (!src) return dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strnlen(src, max), o = 0, i = 0;
    int cut = src[n] != '\0'; /* longer than max */
    while (i < n) {
        char t[8];
        size_t k = 1;
        if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') t[0] = (char)s[i], t[1] = '\0';
        else if (s[i] == '\\') snprintf(t, sizeof t, "\\\\");
        else if (s[i] >= 0x80 && (k = utf8_len(s + i, n - i)) > 0) memcpy(t, s + i, k), t[k] = '\0';
        else k = 1, snprintf(t, sizeof t, "\\x%02x", s[i]);
        size_t tl = strlen(t);
        if (o + tl + 3 >= size) { /* room for "..." and the NUL */
            cut = 1;
            break;
        }
        memcpy(dst + o, t, tl);
        o += tl;
        i += k;
    }
    if (cut && o + 3 < size) memcpy(dst + o, "...", 3), o += 3;
    dst[o] = '\0';
    return dst;
}

int spmv__max_threads(void)
{
#ifdef _OPENMP
    const int n = omp_get_max_threads();
    return n < SPMV_MAX_THREADS ? n : SPMV_MAX_THREADS;
#else
    return 1;
#endif
}

int32_t spmv__auto_threads(int64_t work)
{
    int64_t n = work / SPMV_MIN_WORK_PER_THREAD, m = spmv__max_threads();
    return (int32_t)(n < 1 ? 1 : n < m ? n : m);
}

void spmv__partition(const int64_t *ptr, int32_t n, int32_t nparts, int32_t *part)
{
    /* part[t] = first item whose prefix weight reaches t/nparts of the total: balanced by weight */
    int64_t base = n > 0 ? ptr[0] : 0, total = n > 0 ? ptr[n] - base : 0;
    int32_t i = 0;
    part[0] = 0;
    for (int32_t t = 1; t < nparts; t++) {
        int64_t target = (int64_t)((double)total * t / nparts);
        while (i < n && ptr[i] - base < target) i++;
        part[t] = i;
    }
    part[nparts] = n;
}

/* Largest i in [lo, hi] with rowptr[i] + i <= d (rowptr[i] + i is strictly increasing): the merge-path coordinate
 * on diagonal d, rows ended first on ties (Merrill & Garland, SC 2016, Sect. 4.2) */
static int32_t merge_search(const int64_t *rowptr, int32_t lo, int32_t hi, int64_t d)
{
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (rowptr[mid] + mid <= d) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

void spmv__merge_partition(const int64_t *rowptr, int32_t rows, int32_t nparts, int32_t *part, int64_t *split)
{
    const int64_t nnz = rows > 0 ? rowptr[rows] : 0, total = (int64_t)rows + nnz;
    /* rows of at most `snap` entries are never split: a boundary inside one moves to its nearer end */
    const int64_t snap = total / ((int64_t)nparts * 64);
    part[0] = 0;
    split[0] = 0;
    for (int32_t t = 1; t < nparts; t++) {
        const int64_t d = (int64_t)((double)total * t / nparts);
        int32_t i = merge_search(rowptr, part[t - 1], rows, d);
        int64_t k = d - i;
        if (k < rowptr[i]) k = rowptr[i]; /* only after the previous cut moved forward over a short row */
        if (k > nnz) k = nnz;
        if (i < rows && k > rowptr[i]) {
            const int64_t len = rowptr[i + 1] - rowptr[i];
            if (k >= rowptr[i + 1] || len <= snap) { /* the row's end, or the nearer end of a short row */
                if (k - rowptr[i] > rowptr[i + 1] - k) i++;
                k = rowptr[i];
            }
        }
        if (k < split[t - 1]) k = split[t - 1]; /* never behind the previous boundary (inside the same long row) */
        part[t] = i;
        split[t] = k;
    }
    part[nparts] = rows;
    split[nparts] = nnz;
}

spmv__name_text spmv__machine_name(const spmv_machine *m)
{
    spmv__name_text t;
    spmv__escape(t.s, sizeof t.s, m ? m->name : "", m ? sizeof m->name : 0);
    return t;
}
