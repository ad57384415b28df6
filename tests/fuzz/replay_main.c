/* Replays inputs through a harness's LLVMFuzzerTestOneInput without libFuzzer (any compiler): the regression
 * inputs of tests/fuzz/regress/<harness>/ and the seeds, in the normal test suite (ctest fuzz_replay.<harness>).
 *   replay_<harness> [--optional] PATH...
 * PATH: a file, or a folder whose files (not starting with '.') are replayed in name order. --optional: the paths
 * after it may be missing (the shared matrices folder). A failed property aborts, so the test fails. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "%s: out of memory\n", path);
            fclose(f);
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *b = realloc(buf, 2 * cap);
        if (!b) free(buf);
        buf = b;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        return -1;
    }
    /* a private copy of exactly the input's size, so that reading past it is caught by the sanitizers */
    uint8_t *in = malloc(n ? n : 1);
    if (!in) {
        free(buf);
        return -1;
    }
    memcpy(in, buf, n);
    free(buf);
    fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    return 0;
}

int main(int argc, char **argv)
{
    int optional = 0, files = 0, bad = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--optional")) {
            optional = 1;
            continue;
        }
        struct stat sb;
        if (stat(argv[a], &sb)) {
            if (optional) {
                printf("%s: missing, skipped\n", argv[a]);
                continue;
            }
            perror(argv[a]);
            bad++;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad += replay_file(argv[a]) != 0;
            files++;
            continue;
        }
        struct dirent **ent;
        int n = scandir(argv[a], &ent, NULL, alphasort);
        if (n < 0) {
            perror(argv[a]);
            bad++;
            continue;
        }
        for (int i = 0; i < n; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], ent[i]->d_name);
            if (ent[i]->d_name[0] != '.' && !stat(path, &sb) && S_ISREG(sb.st_mode)) {
                bad += replay_file(path) != 0;
                files++;
            }
            free(ent[i]);
        }
        free(ent);
    }
    printf("%d inputs replayed, %d unreadable\n", files, bad);
    return bad ? 1 : 0;
}
