/* Matrix Market I/O.
 *
 * Reading: a validating pre-scan in our code (it knows line numbers) checks the structure and writes a normalized
 * copy of the file to memory: canonical banner, comments and blank lines dropped, CR removed, one space between
 * tokens, coordinate data always declared 'general'. SuiteSparse CHOLMOD parses that copy and gives the numbers;
 * we expand symmetric / skew-symmetric storage ourselves and build the CRS with spmv_crs_from_coo.
 *
 * Why the pre-scan: CHOLMOD alone accepts some invalid files silently (unknown symmetry word, missing banner,
 * 0-based indices, a nonzero skew diagonal, 'hermitian' on a real field), rejects some valid ones (lower-case
 * banner, leading blanks) and maps finite values with |x| >= 1e308 to +-Inf (fix_inf in cholmod_read.c); the
 * pre-scan records those values and they are restored afterwards.
 *
 * Writing: "%%MatrixMarket matrix coordinate real general", 1-based, %.17g (round-trips every finite double).
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "internal.h"
#include "kernel.h" /* spmv__arch_status */
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SPMV_HAVE_SUITESPARSE
#include <sys/stat.h>
#include "cholmod.h"
#endif

/* Error "PATH:LINE: reason" (or "PATH: reason" when line < 1); returns status. */
static spmv_status mm_err(spmv_status st, const char *path, int64_t line, const char *fmt, ...) SPMV_PRINTF(4, 5);
static spmv_status mm_err(spmv_status st, const char *path, int64_t line, const char *fmt, ...)
{
    char raw[384], reason[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    spmv__escape(reason, sizeof reason, raw, sizeof raw); /* tokens from the file: control bytes as \xHH */
    if (line >= 1) return spmv__error(st, "%s:%lld: %s", path, (long long)line, reason);
    return spmv__error(st, "%s: %s", path, reason);
}

/* ================================================================================================ */
/* Reading                                                                                           */
/* ================================================================================================ */

#ifdef SPMV_HAVE_SUITESPARSE

#define MM_BLOCK 65536  /* bytes read per fread */
#define MM_MAXLINE 4096 /* longest data line accepted (the format says 1024); comment lines may be longer */
#define MM_MAXTOK 8     /* tokens kept per line (more are counted) */
#define MM_HUGE 1e308   /* CHOLMOD turns |x| >= this into +-Inf */

typedef enum { MM_COORD, MM_ARRAY } mm_format;
typedef enum { MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX } mm_field;
typedef enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN } mm_symm;

static const char *const field_name[] = {"real", "integer", "pattern", "complex"};

typedef struct mm_reader {
    FILE *f;
    int64_t line;     /* number of the last line returned, 1-based */
    size_t pos, len;  /* unread bytes: blk[pos..len) */
    int eof;
    char blk[MM_BLOCK];
    char buf[MM_MAXLINE + 1]; /* the current line, NUL-terminated, without its '\n' */
} mm_reader;

/* Next line into r->buf (truncated to MM_MAXLINE bytes: *too_long set). 1: a line, 0: end of file, -1: read error. */
static int mm_next_line(mm_reader *r, size_t *n_out, int *too_long)
{
    size_t n = 0;
    int got = 0;
    *too_long = 0;
    for (;;) {
        if (r->pos == r->len) {
            if (r->eof) break;
            r->len = fread(r->blk, 1, MM_BLOCK, r->f);
            r->pos = 0;
            if (ferror(r->f)) return -1;
            if (r->len < MM_BLOCK) r->eof = 1;
            if (r->len == 0) break;
        }
        got = 1;
        const char *s = r->blk + r->pos;
        size_t avail = r->len - r->pos;
        const char *nl = memchr(s, '\n', avail);
        size_t take = nl ? (size_t)(nl - s) : avail, room = MM_MAXLINE - n;
        size_t c = take < room ? take : room;
        memcpy(r->buf + n, s, c);
        n += c;
        if (take > room) *too_long = 1;
        r->pos += take + (nl != NULL);
        if (nl) break;
    }
    if (!got) return 0;
    r->line++;
    r->buf[n] = '\0';
    *n_out = n;
    return 1;
}

static int mm_is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Split s at blanks in place; the first MM_MAXTOK tokens go to tok (NUL-terminated). Returns the token count. */
static int mm_tokenize(char *s, char **tok)
{
    int n = 0;
    for (;;) {
        while (mm_is_ws(*s)) s++;
        if (!*s) return n;
        if (n < MM_MAXTOK) tok[n] = s;
        n++;
        while (*s && !mm_is_ws(*s)) s++;
        if (!*s) return n;
        *s++ = '\0';
    }
}

static int mm_eq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        if (ca != *b) return 0;
    }
    return *a == *b;
}

/* Decimal integer with optional sign. 0: ok, 1: not an integer, 2: beyond -INT64_MAX..INT64_MAX. */
static int mm_parse_i64(const char *s, int64_t *v)
{
    int neg = 0, over = 0;
    uint64_t x = 0;
    if (*s == '+' || *s == '-') neg = (*s++ == '-');
    if (!*s) return 1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 1;
        const uint64_t d = (uint64_t)(*s - '0');
        if (over || x > ((uint64_t)INT64_MAX - d) / 10) over = 1;
        else x = 10 * x + d;
    }
    if (over) return 2;
    *v = neg ? -(int64_t)x : (int64_t)x;
    return 0;
}

/* The most entries a file may declare: their row, column and value arrays (16 bytes each) must be addressable. */
#define MM_MAX_ENTRIES ((int64_t)(SIZE_MAX / 16 < (uint64_t)INT64_MAX ? SIZE_MAX / 16 : INT64_MAX))

/* A value token of the given field: strtod style for real (nan/inf in any case, hex), sign+digits for integer. */
static int mm_parse_value(const char *s, mm_field field, double *v)
{
    if (field == MM_INTEGER) {
        const char *p = s + (*s == '+' || *s == '-');
        if (!*p) return 0;
        for (; *p; p++)
            if (*p < '0' || *p > '9') return 0;
    }
    char *end;
    *v = strtod(s, &end); /* overflow gives +-Inf, underflow 0 or a subnormal: as strtod */
    return end != s && *end == '\0';
}

/* Growing byte buffer on the library allocator. */
typedef struct mm_buf {
    char *p;
    size_t len, cap;
} mm_buf;

static int mm_reserve(mm_buf *b, size_t extra)
{
    if (b->len + extra <= b->cap) return 0;
    size_t cap = b->cap * 2 > b->len + extra + 4096 ? b->cap * 2 : b->len + extra + 4096;
    char *q = spmv__malloc(cap);
    if (!q) return -1;
    if (b->len) memcpy(q, b->p, b->len);
    spmv__free(b->p);
    b->p = q;
    b->cap = cap;
    return 0;
}

static void mm_put(mm_buf *b, const char *s, size_t n) /* room reserved by the caller */
{
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void mm_put_i64(mm_buf *b, int64_t v) /* v >= 0 */
{
    char t[24];
    int n = 0;
    do t[n++] = (char)('0' + v % 10); while ((v /= 10) > 0);
    while (n) b->p[b->len++] = t[--n];
}

/* A finite value CHOLMOD would turn into +-Inf: entry k of the file (0-based), array position (i, j). */
typedef struct mm_patch {
    int64_t k;
    int32_t i, j;
    double v;
} mm_patch;

typedef struct mm_scan {
    mm_format format;
    mm_field field;
    mm_symm symm;
    int32_t rows, cols;
    int64_t expected; /* entries the size line promises (array: by shape and symmetry) */
    int64_t entries;  /* data lines read */
    int64_t n_off;    /* coordinate entries off the diagonal (mirrored for symmetric / skew) */
    int32_t ai, aj;   /* array: 0-based position of the next value */
    mm_patch *patch;
    int64_t npatch, patch_cap;
    mm_buf out;       /* the normalized file for CHOLMOD */
} mm_scan;

static int mm_add_patch(mm_scan *s, int64_t k, int32_t i, int32_t j, double v)
{
    if (s->npatch == s->patch_cap) {
        int64_t cap = s->patch_cap ? 2 * s->patch_cap : 16;
        mm_patch *q = spmv__malloc((size_t)cap * sizeof *q);
        if (!q) return -1;
        if (s->npatch) memcpy(q, s->patch, (size_t)s->npatch * sizeof *q);
        spmv__free(s->patch);
        s->patch = q;
        s->patch_cap = cap;
    }
    s->patch[s->npatch++] = (mm_patch){k, i, j, v};
    return 0;
}

/* The banner: %%MatrixMarket matrix FORMAT FIELD SYMMETRY, keywords in any case. */
static spmv_status mm_banner(mm_scan *s, char **tok, int ntok, const char *path, int64_t line)
{
    if (ntok < 1 || !mm_eq_nocase(tok[0], "%%matrixmarket"))
        return mm_err(SPMV_ERR_PARSE, path, line, "missing %%%%MatrixMarket banner");
    if (ntok < 5)
        return mm_err(SPMV_ERR_PARSE, path, line,
                      "banner has %d keywords after %%%%MatrixMarket, needs 4 (matrix format field symmetry)",
                      ntok - 1);
    if (!mm_eq_nocase(tok[1], "matrix"))
        return mm_err(SPMV_ERR_PARSE, path, line, "unknown object '%.40s' (expected 'matrix')", tok[1]);
    if (mm_eq_nocase(tok[2], "coordinate")) s->format = MM_COORD;
    else if (mm_eq_nocase(tok[2], "array")) s->format = MM_ARRAY;
    else return mm_err(SPMV_ERR_PARSE, path, line, "unknown format '%.40s' (coordinate or array)", tok[2]);
    if (mm_eq_nocase(tok[3], "real")) s->field = MM_REAL;
    else if (mm_eq_nocase(tok[3], "integer")) s->field = MM_INTEGER;
    else if (mm_eq_nocase(tok[3], "pattern")) s->field = MM_PATTERN;
    else if (mm_eq_nocase(tok[3], "complex")) s->field = MM_COMPLEX;
    else return mm_err(SPMV_ERR_PARSE, path, line, "unknown field '%.40s' (real, integer, pattern or complex)", tok[3]);
    if (mm_eq_nocase(tok[4], "general")) s->symm = MM_GENERAL;
    else if (mm_eq_nocase(tok[4], "symmetric")) s->symm = MM_SYMMETRIC;
    else if (mm_eq_nocase(tok[4], "skew-symmetric")) s->symm = MM_SKEW;
    else if (mm_eq_nocase(tok[4], "hermitian")) s->symm = MM_HERMITIAN;
    else
        return mm_err(SPMV_ERR_PARSE, path, line,
                      "unknown symmetry '%.40s' (general, symmetric, skew-symmetric or hermitian)", tok[4]);
    if (ntok > 5)
        return mm_err(SPMV_ERR_PARSE, path, line, "unexpected token '%.40s' after the symmetry", tok[5]);
    if (s->field == MM_COMPLEX)
        return mm_err(SPMV_ERR_UNSUPPORTED, path, line,
                      "complex field is not supported (real, integer and pattern only)");
    if (s->symm == MM_HERMITIAN)
        return mm_err(SPMV_ERR_PARSE, path, line, "hermitian symmetry requires the complex field, not %s",
                      field_name[s->field]);
    if (s->field == MM_PATTERN && s->format == MM_ARRAY)
        return mm_err(SPMV_ERR_PARSE, path, line, "pattern field requires the coordinate format");
    if (s->field == MM_PATTERN && s->symm == MM_SKEW)
        return mm_err(SPMV_ERR_PARSE, path, line, "skew-symmetric symmetry is not defined for the pattern field");

    /* canonical banner for CHOLMOD: coordinate data always 'general' (we expand), arrays keep their symmetry
     * (CHOLMOD places the packed lower triangle and mirrors it) */
    static const char *const array_symm[] = {"general", "symmetric", "skew-symmetric"};
    char b[96];
    int n = s->format == MM_COORD
                ? snprintf(b, sizeof b, "%%%%MatrixMarket matrix coordinate %s general\n",
                           s->field == MM_PATTERN ? "pattern" : "real")
                : snprintf(b, sizeof b, "%%%%MatrixMarket matrix array real %s\n", array_symm[s->symm]);
    if (mm_reserve(&s->out, (size_t)n)) return mm_err(SPMV_ERR_NOMEM, path, line, "out of memory");
    mm_put(&s->out, b, (size_t)n);
    return SPMV_OK;
}

/* The size line: "rows cols entries" (coordinate) or "rows cols" (array). */
static spmv_status mm_size_line(mm_scan *s, char **tok, int ntok, const char *path, int64_t line)
{
    static const char *const what[] = {"rows", "cols", "entries"};
    int need = s->format == MM_COORD ? 3 : 2;
    int64_t v[3] = {0, 0, 0};
    for (int t = 0; t < ntok && t < need; t++) {
        int rc = mm_parse_i64(tok[t], &v[t]);
        if (rc == 1) return mm_err(SPMV_ERR_PARSE, path, line, "size line token '%.40s' is not an integer", tok[t]);
        if (rc == 2 && t < 2)
            return mm_err(SPMV_ERR_OVERFLOW, path, line, "%s = %.40s exceeds the 32-bit index limit %d", what[t],
                          tok[t], INT32_MAX);
        if (t == 2 && (rc == 2 || v[t] > MM_MAX_ENTRIES))
            return mm_err(SPMV_ERR_OVERFLOW, path, line, "%s = %.40s exceeds the supported maximum of %lld entries",
                          what[t], tok[t], (long long)MM_MAX_ENTRIES);
        if (v[t] < 0) return mm_err(SPMV_ERR_PARSE, path, line, "size line value %lld (%s) is negative",
                                    (long long)v[t], what[t]);
    }
    if (ntok != need)
        return mm_err(SPMV_ERR_PARSE, path, line, "size line has %d numbers, the %s format needs %d (%s)", ntok,
                      s->format == MM_COORD ? "coordinate" : "array", need,
                      s->format == MM_COORD ? "rows cols entries" : "rows cols");
    for (int t = 0; t < 2; t++)
        if (v[t] > INT32_MAX)
            return mm_err(SPMV_ERR_OVERFLOW, path, line, "%s = %lld exceeds the 32-bit index limit %d", what[t],
                          (long long)v[t], INT32_MAX);
    s->rows = (int32_t)v[0];
    s->cols = (int32_t)v[1];
    if (s->symm != MM_GENERAL && s->rows != s->cols)
        return mm_err(SPMV_ERR_PARSE, path, line, "a %s matrix must be square, the size line gives %d x %d",
                      s->symm == MM_SYMMETRIC ? "symmetric" : "skew-symmetric", s->rows, s->cols);
    s->ai = s->symm == MM_SKEW ? 1 : 0;
    s->aj = 0;
    int64_t n = s->rows;
    if (s->format == MM_COORD) s->expected = v[2];
    else if (s->symm == MM_GENERAL) s->expected = n * s->cols; /* < 2^62 */
    else if (s->symm == MM_SYMMETRIC) s->expected = n * (n + 1) / 2;
    else s->expected = n > 0 ? n * (n - 1) / 2 : 0;

    if (mm_reserve(&s->out, 64)) return mm_err(SPMV_ERR_NOMEM, path, line, "out of memory");
    for (int t = 0; t < need; t++) {
        if (t) mm_put(&s->out, " ", 1);
        mm_put_i64(&s->out, v[t]);
    }
    mm_put(&s->out, "\n", 1);
    return SPMV_OK;
}

/* One index token, 1..limit. */
static spmv_status mm_index(const char *tok, int32_t limit, const char *what, const char *path, int64_t line,
                            int64_t *v)
{
    int rc = mm_parse_i64(tok, v);
    if (rc == 1) return mm_err(SPMV_ERR_PARSE, path, line, "%s index '%.40s' is not an integer", what, tok);
    if (rc == 2 || *v < 1 || *v > limit) {
        if (limit == 0)
            return mm_err(SPMV_ERR_PARSE, path, line, "%s index %.40s out of range (the matrix has no %ss)", what,
                          tok, what);
        return mm_err(SPMV_ERR_PARSE, path, line, "%s index %.40s out of range 1..%d", what, tok, limit);
    }
    return SPMV_OK;
}

/* One data line: coordinate "i j [v]" or array "v". */
static spmv_status mm_entry(mm_scan *s, char **tok, int ntok, const char *path, int64_t line)
{
    const int coord = s->format == MM_COORD;
    if (s->entries == s->expected) {
        if (coord) return mm_err(SPMV_ERR_PARSE, path, line, "entry beyond the declared count of %lld",
                                 (long long)s->expected);
        return mm_err(SPMV_ERR_PARSE, path, line, "entry beyond the %lld values of a %d x %d %s array",
                      (long long)s->expected, s->rows, s->cols,
                      s->symm == MM_GENERAL ? "general" : s->symm == MM_SYMMETRIC ? "symmetric" : "skew-symmetric");
    }
    int need = coord ? (s->field == MM_PATTERN ? 2 : 3) : 1;
    if (ntok != need)
        return mm_err(SPMV_ERR_PARSE, path, line, "%s has %d token%s, %s field needs %d",
                      coord ? "entry" : "array entry", ntok, ntok == 1 ? "" : "s", field_name[s->field], need);
    int64_t i = 0, j = 0;
    spmv_status st;
    if (coord) {
        if ((st = mm_index(tok[0], s->rows, "row", path, line, &i))) return st;
        if ((st = mm_index(tok[1], s->cols, "column", path, line, &j))) return st;
    } else {
        i = s->ai + 1; /* array: the running column-major position over the stored part, 1-based */
        j = s->aj + 1;
    }
    double v = 1.0;
    const char *vt = coord ? (need == 3 ? tok[2] : NULL) : tok[0];
    if (vt && !mm_parse_value(vt, s->field, &v))
        return mm_err(SPMV_ERR_PARSE, path, line, "value '%.40s' is not %s", vt,
                      s->field == MM_INTEGER ? "an integer (integer field)" : "a number");
    if (coord && s->symm == MM_SKEW && i == j && v != 0.0)
        return mm_err(SPMV_ERR_PARSE, path, line, "nonzero diagonal value %.40s in a skew-symmetric matrix", vt);
    if (vt && isfinite(v) && fabs(v) >= MM_HUGE &&
        mm_add_patch(s, s->entries, (int32_t)(i - 1), (int32_t)(j - 1), v))
        return mm_err(SPMV_ERR_NOMEM, path, line, "out of memory");
    if (coord && i != j) s->n_off++;

    /* normalized line: indices as parsed, the value token as written (re-printed if too long for CHOLMOD) */
    char vb[32];
    size_t vn = vt ? strlen(vt) : 0;
    if (vn > 64) {
        vn = (size_t)snprintf(vb, sizeof vb, "%.17g", v);
        vt = vb;
    }
    if (mm_reserve(&s->out, 48 + vn)) return mm_err(SPMV_ERR_NOMEM, path, line, "out of memory");
    if (coord) {
        mm_put_i64(&s->out, i);
        mm_put(&s->out, " ", 1);
        mm_put_i64(&s->out, j);
        if (vt) mm_put(&s->out, " ", 1);
    }
    if (vt) mm_put(&s->out, vt, vn);
    mm_put(&s->out, "\n", 1);
    s->entries++;
    if (!coord) { /* next position: down the column, then the next column from row 0 / j / j+1 */
        s->ai++;
        while (s->ai >= s->rows && s->aj < s->cols) {
            s->aj++;
            s->ai = s->symm == MM_GENERAL ? 0 : s->symm == MM_SYMMETRIC ? s->aj : s->aj + 1;
        }
    }
    return SPMV_OK;
}

/* Pre-scan the whole file: validate, count, and write the normalized copy to s->out. */
static spmv_status mm_scan_file(mm_scan *s, mm_reader *r, const char *path)
{
    enum { BANNER, SIZE, DATA } state = BANNER;
    char *tok[MM_MAXTOK];
    spmv_status st;
    for (;;) {
        size_t n;
        int too_long, rc = mm_next_line(r, &n, &too_long);
        if (rc < 0) return mm_err(SPMV_ERR_IO, path, r->line + 1, "read error (%s)", strerror(errno));
        if (rc == 0) break;
        char *b = r->buf;
        if (r->line == 1 && n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) b += 3; /* UTF-8 byte order mark */
        int has_nul = memchr(b, '\0', n - (size_t)(b - r->buf)) != NULL;
        int ntok = mm_tokenize(b, tok);
        if (ntok == 0 && !too_long && !has_nul) continue; /* blank line, anywhere */
        if (state == BANNER) {
            if (too_long || has_nul)
                return mm_err(SPMV_ERR_PARSE, path, r->line, "missing %%%%MatrixMarket banner");
            if ((st = mm_banner(s, tok, ntok, path, r->line))) return st;
            state = SIZE;
            continue;
        }
        if (ntok > 0 && tok[0][0] == '%') continue; /* comment line, anywhere after the banner */
        if (too_long)
            return mm_err(SPMV_ERR_PARSE, path, r->line, "line longer than %d characters", MM_MAXLINE);
        if (has_nul) return mm_err(SPMV_ERR_PARSE, path, r->line, "NUL byte in the line");
        if (state == SIZE) {
            if ((st = mm_size_line(s, tok, ntok, path, r->line))) return st;
            state = DATA;
        } else if ((st = mm_entry(s, tok, ntok, path, r->line))) {
            return st;
        }
    }
    int64_t last = r->line > 0 ? r->line : 1;
    if (state == BANNER)
        return mm_err(SPMV_ERR_PARSE, path, last, "missing %%%%MatrixMarket banner (%s)",
                      r->line ? "only blank lines" : "empty file");
    if (state == SIZE) return mm_err(SPMV_ERR_PARSE, path, last, "file ends before the size line");
    if (s->entries < s->expected)
        return mm_err(SPMV_ERR_PARSE, path, last, "expected %lld entries, file ends after %lld (last line %lld)",
                      (long long)s->expected, (long long)s->entries, (long long)last);
    return SPMV_OK;
}

/* CHOLMOD status after a failed read. */
static spmv_status mm_cholmod_err(const cholmod_common *c, const char *path)
{
    if (c->status == CHOLMOD_OUT_OF_MEMORY) return mm_err(SPMV_ERR_NOMEM, path, 0, "out of memory in CHOLMOD");
    if (c->status == CHOLMOD_TOO_LARGE) return mm_err(SPMV_ERR_OVERFLOW, path, 0, "too large for CHOLMOD");
    return mm_err(SPMV_ERR_PARSE, path, 0, "CHOLMOD rejected the validated file (status %d)", c->status);
}

#endif /* SPMV_HAVE_SUITESPARSE */

spmv_status spmv_crs_read_mm(const char *path, spmv_crs **A)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_read_mm: argument A is NULL");
    *A = NULL;
    if (!path) return spmv__error(SPMV_ERR_ARG, "spmv_crs_read_mm: argument path is NULL");
    if (!*path) return spmv__error(SPMV_ERR_ARG, "spmv_crs_read_mm: argument path is empty");
#ifndef SPMV_HAVE_SUITESPARSE
    return mm_err(SPMV_ERR_UNSUPPORTED, path, 0,
                  "reading Matrix Market files needs SuiteSparse CHOLMOD (built with SPMV_WITH_SUITESPARSE=OFF)");
#else
    spmv_status st = SPMV_OK;
    mm_reader *r = NULL;
    mm_scan s = {0};
    FILE *mf = NULL;
    cholmod_common c;
    int started = 0;
    cholmod_triplet *T = NULL;
    cholmod_dense *X = NULL;
    int32_t *ri = NULL, *ci = NULL;
    double *vv = NULL;
    spmv_crs *B = NULL;

    FILE *f = fopen(path, "rb");
    if (!f) return mm_err(SPMV_ERR_IO, path, 0, "cannot open (%s)", strerror(errno));
    r = spmv__malloc(sizeof *r);
    if (!r) {
        st = mm_err(SPMV_ERR_NOMEM, path, 0, "out of memory");
        goto done;
    }
    r->f = f;
    r->line = 0;
    r->pos = r->len = 0;
    r->eof = 0;

    /* normalized copy: never longer than the file plus a canonical banner and a final newline */
    struct stat sb;
    size_t guess = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 ? (size_t)sb.st_size : 0;
    if (mm_reserve(&s.out, guess + 256)) {
        st = mm_err(SPMV_ERR_NOMEM, path, 0, "out of memory (%zu bytes for the file)", guess + 256);
        goto done;
    }
    if ((st = mm_scan_file(&s, r, path))) goto done;
    fclose(f);
    f = NULL;

    /* CHOLMOD reads the normalized copy (long-index interface, quiet) */
    mf = fmemopen(s.out.p, s.out.len, "r");
    if (!mf) {
        st = mm_err(errno == ENOMEM ? SPMV_ERR_NOMEM : SPMV_ERR_IO, path, 0, "fmemopen failed (%s)",
                    strerror(errno));
        goto done;
    }
    cholmod_l_start(&c);
    started = 1;
    c.print = 0;
    c.error_handler = NULL;
    c.prefer_binary = 1; /* no invented pattern values (we use 1.0 anyway) */
    if (s.format == MM_COORD) {
        T = cholmod_l_read_triplet(mf, &c);
        if (!T) {
            st = mm_cholmod_err(&c, path);
            goto done;
        }
    } else {
        int mtype = -1;
        void *G = cholmod_l_read_matrix(mf, 0, &mtype, &c);
        if (G && mtype != CHOLMOD_DENSE) {
            if (mtype == CHOLMOD_TRIPLET) cholmod_l_free_triplet((cholmod_triplet **)&G, &c);
            else if (mtype == CHOLMOD_SPARSE) cholmod_l_free_sparse((cholmod_sparse **)&G, &c);
            st = mm_err(SPMV_ERR_PARSE, path, 0, "CHOLMOD did not read the array as dense");
            goto done;
        }
        if (!G) {
            st = mm_cholmod_err(&c, path);
            goto done;
        }
        X = G;
    }
    fclose(mf);
    mf = NULL;
    spmv__free(s.out.p);
    s.out.p = NULL;

    /* full storage: general as is; symmetric a(j,i) = a(i,j), skew a(j,i) = -a(i,j) for i != j, diagonal once */
    const int pattern = s.field == MM_PATTERN;
    int64_t nfull, q = 0;
    if (T) {
        nfull = s.entries + (s.symm != MM_GENERAL ? s.n_off : 0);
        if ((int64_t)T->nrow != s.rows || (int64_t)T->ncol != s.cols || (int64_t)T->nnz != s.entries ||
            (s.entries > 0 && T->xtype != CHOLMOD_REAL)) {
            st = mm_err(SPMV_ERR_PARSE, path, 0, "CHOLMOD read a different shape than the file declares");
            goto done;
        }
    } else {
        int64_t n = s.rows;
        nfull = s.symm == MM_SKEW ? n * n - n : n * s.cols;
        if ((int64_t)X->nrow != s.rows || (int64_t)X->ncol != s.cols || (nfull > 0 && X->xtype != CHOLMOD_REAL)) {
            st = mm_err(SPMV_ERR_PARSE, path, 0, "CHOLMOD read a different shape than the file declares");
            goto done;
        }
    }
    if (nfull > 0) {
        if ((uint64_t)nfull > SIZE_MAX / sizeof(double)) {
            st = mm_err(SPMV_ERR_NOMEM, path, 0, "%lld entries do not fit in memory", (long long)nfull);
            goto done;
        }
        ri = spmv__malloc((size_t)nfull * sizeof *ri);
        ci = spmv__malloc((size_t)nfull * sizeof *ci);
        vv = pattern ? NULL : spmv__malloc((size_t)nfull * sizeof *vv);
        if (!ri || !ci || (!pattern && !vv)) {
            st = mm_err(SPMV_ERR_NOMEM, path, 0, "out of memory for %lld entries", (long long)nfull);
            goto done;
        }
    }
    if (T) {
        const SuiteSparse_long *Ti = T->i, *Tj = T->j;
        double *Tx = T->x;
        for (int64_t p = 0; p < s.npatch; p++) Tx[s.patch[p].k] = s.patch[p].v; /* undo CHOLMOD's fix_inf */
        for (int64_t k = 0; k < s.entries; k++) {
            SuiteSparse_long i = Ti[k], j = Tj[k];
            const int mirror = s.symm != MM_GENERAL && i != j;
            if (i < 0 || i >= s.rows || j < 0 || j >= s.cols || q + 1 + mirror > nfull) {
                st = mm_err(SPMV_ERR_PARSE, path, 0, "CHOLMOD read entry %lld differently", (long long)k + 1);
                goto done;
            }
            double v = pattern ? 1.0 : Tx[k];
            ri[q] = (int32_t)i;
            ci[q] = (int32_t)j;
            if (vv) vv[q] = v;
            q++;
            if (mirror) {
                ri[q] = (int32_t)j;
                ci[q] = (int32_t)i;
                if (vv) vv[q] = s.symm == MM_SKEW ? -v : v;
                q++;
            }
        }
    } else {
        double *Xx = X->x;
        const size_t d = X->d;
        for (int64_t p = 0; p < s.npatch; p++) { /* undo fix_inf, mirror included */
            const mm_patch *h = &s.patch[p];
            Xx[(size_t)h->i + (size_t)h->j * d] = h->v;
            if (s.symm != MM_GENERAL && h->i != h->j) /* a general array has no mirror */
                Xx[(size_t)h->j + (size_t)h->i * d] = s.symm == MM_SKEW ? -h->v : h->v;
        }
        for (int32_t i = 0; i < s.rows; i++) /* every stored value, explicit zeros included; skew diagonal absent */
            for (int32_t j = 0; j < s.cols; j++) {
                if (s.symm == MM_SKEW && i == j) continue;
                ri[q] = i;
                ci[q] = j;
                vv[q] = Xx[(size_t)i + (size_t)j * d];
                q++;
            }
    }
    if (T) cholmod_l_free_triplet(&T, &c);
    if (X) cholmod_l_free_dense(&X, &c);

    st = spmv_crs_from_coo(s.rows, s.cols, q, ri, ci, vv, 0, &B);
    if (st == SPMV_ERR_NOMEM) {
        const double gb_rows = 8e-9 * ((double)s.rows + 1), gb = gb_rows + 12e-9 * (double)q;
        st = mm_err(SPMV_ERR_NOMEM, path, 0,
                    "out of memory building the %d x %d CRS matrix with %lld entr%s: it needs about %.3g GB (%.3g GB of "
                    "row offsets for %d rows, %.3g GB of indices and values)", s.rows, s.cols, (long long)q,
                    q == 1 ? "y" : "ies", gb, gb_rows, s.rows, gb - gb_rows);
    } else if (st != SPMV_OK && st == spmv__arch_status()) {
        /* the kernel choice failed on the environment (SPMV_ARCH and the like): its message as it is, not the file's */
    } else if (st != SPMV_OK) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", spmv_last_error());
        st = mm_err(st, path, 0, "%s", msg);
    }

done:
    if (T) cholmod_l_free_triplet(&T, &c);
    if (X) cholmod_l_free_dense(&X, &c);
    if (started) cholmod_l_finish(&c);
    if (mf) fclose(mf);
    if (f) fclose(f);
    spmv__free(r);
    spmv__free(s.out.p);
    spmv__free(s.patch);
    spmv__free(ri);
    spmv__free(ci);
    spmv__free(vv);
    if (st == SPMV_OK) *A = B;
    else spmv_crs_free(B);
    return st;
#endif
}

/* ================================================================================================ */
/* Writing                                                                                           */
/* ================================================================================================ */

spmv_status spmv_crs_write_mm(const spmv_crs *A, const char *path)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_crs_write_mm: argument A is NULL");
    if (!path) return spmv__error(SPMV_ERR_ARG, "spmv_crs_write_mm: argument path is NULL");
    if (!*path) return spmv__error(SPMV_ERR_ARG, "spmv_crs_write_mm: argument path is empty");
    if (A->rows < 0 || A->cols < 0 || A->nnz < 0 || !A->rowptr || A->rowptr[A->rows] != A->nnz ||
        (A->nnz > 0 && !A->col))
        return spmv__error(SPMV_ERR_ARG, "spmv_crs_write_mm: A is not a valid CRS matrix (%d x %d, nnz %lld)",
                           A->rows, A->cols, (long long)A->nnz);

    /* through a temporary file renamed over path on success: a failed write never leaves a partial file nor
     * removes what was there (a device such as /dev/stdout is written in place, never removed) */
    spmv__outfile o;
    char msg[600];
    if (spmv__out_open(&o, path, msg, sizeof msg)) return spmv__error(SPMV_ERR_IO, "%s", msg);
    FILE *f = o.f;
    int ok = fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", A->rows, A->cols,
                     (long long)A->nnz) > 0;
    /* 1-based; %.17g: 17 significant digits identify every double */
    for (int32_t i = 0; ok && i < A->rows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (fprintf(f, "%d %d %.17g\n", i + 1, A->col[k] + 1, A->val ? A->val[k] : 1.0) < 0) {
                ok = 0;
                break;
            }
    if (spmv__out_commit(&o, msg, sizeof msg)) return spmv__error(SPMV_ERR_IO, "%s", msg);
    return SPMV_OK;
}
