/* spmv-convert: read a matrix, report its structure and its SELL-C-sigma padding, optionally reorder (RCM) and
 * write it back as Matrix Market. */
#include "toolutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "spmv-convert";

static void usage(FILE *f)
{
    fprintf(f, "usage: spmv-convert FILE.mtx | --hpcg NX[,NY,NZ] [-C C] [-s SIGMA] [--rcm] [-o OUT.mtx]\n"
               "  -C C        SELL chunk height (default 32)\n"
               "  -s SIGMA    SELL sorting window (default 1; 'rows' or 0: global sort)\n"
               TOOL_SELL_USAGE
            "  --rcm       reverse Cuthill-McKee reordering (square matrices); prints bandwidth and profile\n"
               "              before and after, and -o writes the reordered matrix\n"
               "  -o OUT.mtx  write the (reordered) matrix as general coordinate Matrix Market\n");
}

static void print_stats(const char *label, const spmv_crs *A)
{
    spmv_crs_stats s;
    spmv_crs_get_stats(A, &s);
    printf("%-9s bandwidth %lld, profile %lld\n", label, (long long)s.bandwidth, (long long)s.profile);
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *out = NULL;
    long C = 32, sigma = 1, long_rows = -1;
    double max_stored = 2;
    int rcm = 0;
    char hpcgbuf[160];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = tool_matrix_arg(prog, argc, argv, &i, hpcgbuf, sizeof hpcgbuf, &spec);
        if (r == 0) r = tool_sell_arg(prog, argc, argv, &i, &long_rows, &max_stored);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-C") && v) {
            if (!tool_parse_int(prog, "-C", v, 1, 1 << 16, &C)) return 2;
            i++;
        } else if (!strcmp(a, "-s") && v) {
            if (!strcmp(v, "rows")) sigma = 0;
            else if (!tool_parse_int(prog, "-s", v, 0, INT32_MAX, &sigma)) return 2;
            i++;
        } else if (!strcmp(a, "-o") && v) {
            if (!*v) {
                fprintf(stderr, "%s: -o: the output path is empty\n", prog);
                return 2;
            }
            out = v;
            i++;
        } else if (!strcmp(a, "--rcm")) {
            rcm = 1;
        } else {
            fprintf(stderr, "%s: unknown option or missing value: %s\n", prog, a);
            usage(stderr);
            return 2;
        }
    }
    if (!spec) {
        usage(stderr);
        return 2;
    }
    const int rc0 = tool_start(prog, NULL);
    if (rc0) return rc0;
    if (out && tool_output_check(prog, "-o", out, 0)) return 1; /* before reading and reordering */
    spmv_crs *A = NULL, *R = NULL;
    spmv_sell *S = NULL;
    int32_t *perm = NULL, *iperm = NULL;
    const char *name;
    int rc = 1;
    spmv_status st = tool_load(prog, spec, &A, &name);
    if (st) return 1;
    spmv_crs_stats s;
    spmv_crs_get_stats(A, &s);
    printf("matrix    %s\n", name);
    printf("size      %d rows, %d cols, %lld nnz\n", A->rows, A->cols, (long long)A->nnz);
    printf("N_nzr     min %d, mean %.2f, max %d; %d empty rows\n", s.nzr_min, s.nzr_mean, s.nzr_max, s.empty_rows);
    print_stats("structure", A);
    if (rcm) {
        perm = malloc(((size_t)A->rows + 1) * sizeof *perm);
        iperm = malloc(((size_t)A->rows + 1) * sizeof *iperm);
        if (!perm || !iperm) {
            fprintf(stderr, "%s: out of memory for the RCM permutation\n", prog);
            goto done;
        }
        double t0 = tool_now();
        if ((st = spmv_rcm(A, perm, iperm)) || (st = spmv_crs_permute(A, perm, &R))) {
            tool_error(prog, st);
            goto done;
        }
        printf("rcm       %.3f s\n", tool_now() - t0);
        print_stats("after RCM", R);
    }
    const spmv_crs *M = R ? R : A;
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = (int32_t)C;
    o.sigma = sigma == 0 ? (M->rows > 0 ? M->rows : 1) : (int32_t)sigma;
    o.long_rows = (int32_t)long_rows;
    o.max_stored_factor = max_stored;
    if ((st = spmv_sell_from_crs(M, &o, &S))) {
        tool_error(prog, st);
        goto done;
    }
    printf("SELL-%d-%d  %d chunks, stored entries %lld, beta %.4f, padding overhead %.2f %%\n", S->C, S->sigma,
           S->nchunks, (long long)S->stored, spmv_sell_beta(S), spmv_sell_padding_percent(S));
    if (S->nlong > 0)
        printf("CRS part  %d rows of more than %d entries, %lld nonzeros\n", S->nlong, S->long_min,
               (long long)S->longptr[S->nlong]);
    if (out) {
        if ((st = spmv_crs_write_mm(M, out))) {
            tool_error(prog, st);
            goto done;
        }
        printf("written   %s\n", out);
    }
    rc = 0;
done:
    free(perm);
    free(iperm);
    spmv_sell_free(S);
    spmv_crs_free(R);
    spmv_crs_free(A);
    return rc;
}
