/* Shared helpers of the libFuzzer harnesses (tests/fuzz/fuzz_*.c). Each harness defines LLVMFuzzerTestOneInput;
 * built with clang -fsanitize=fuzzer (SPMV_FUZZ=ON, scripts/fuzz.sh) it is a fuzzer, linked with replay_main.c
 * (any compiler) it replays the regression inputs of tests/fuzz/regress/<harness>/ in the normal test suite.
 * A property that does not hold aborts (FZ_CHECK), which libFuzzer reports as a crash with the input saved. */
#ifndef SPMV_FUZZ_COMMON_H
#define SPMV_FUZZ_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include "spmv_tune.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the library that must hold for every input: print what failed and abort (libFuzzer: a crash). */
#define FZ_CHECK(cond, ...)                                                                                         \
    do {                                                                                                            \
        if (!(cond)) {                                                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                               \
            fprintf(stderr, __VA_ARGS__);                                                                           \
            fprintf(stderr, "\n(last library error: %s)\n", spmv_last_error());                                   \
            abort();                                                                                                \
        }                                                                                                           \
    } while (0)

/* A private file path for this process, one per tag, removed at exit (the library's readers take paths). */
static char fz_paths[4][512];
static int fz_npaths;

static void fz_cleanup(void)
{
    for (int i = 0; i < fz_npaths; i++)
        if (fz_paths[i][0]) unlink(fz_paths[i]);
}

static const char *fz_tmp_path(int slot, const char *tag)
{
    if (slot < 0 || slot >= 4) abort();
    if (!fz_paths[slot][0]) {
        const char *dir = getenv("TMPDIR");
        if (!dir || !*dir) dir = "/tmp";
        snprintf(fz_paths[slot], sizeof fz_paths[slot], "%s/spmv-fuzz-%s-XXXXXX", dir, tag);
        int fd = mkstemp(fz_paths[slot]);
        if (fd < 0) {
            perror(fz_paths[slot]);
            abort();
        }
        close(fd);
        if (fz_npaths == 0) atexit(fz_cleanup);
        if (slot + 1 > fz_npaths) fz_npaths = slot + 1;
    }
    return fz_paths[slot];
}

/* Write the input to path; 0 on success (a full disk is not the library's fault: the harness skips the input). */
static int fz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int bad = size && fwrite(data, 1, size, f) != size;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

/* Every failed call leaves a message, and a message made from file contents is printable: no control bytes (the
 * readers escape them, spmv__escape), so that a tool printing it cannot garble a terminal. */
static void fz_check_message(spmv_status st)
{
    const char *m = spmv_last_error();
    FZ_CHECK(st != SPMV_OK, "status %d", (int)st);
    FZ_CHECK(m && *m, "no message for status %d", (int)st);
    for (const unsigned char *p = (const unsigned char *)m; *p; p++)
        FZ_CHECK(*p >= 0x20 && *p != 0x7f, "control byte 0x%02x in the message '%s'", *p, m);
}

/* Bytes of the input as a little stream of numbers (the structured harnesses). */
typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

static uint32_t fz_u8(fz_in *in)
{
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}
static uint32_t fz_u16(fz_in *in)
{
    uint32_t lo = fz_u8(in);
    return lo | fz_u8(in) << 8;
}
static uint32_t fz_u32(fz_in *in)
{
    uint32_t lo = fz_u16(in);
    return lo | fz_u16(in) << 16;
}

#endif
