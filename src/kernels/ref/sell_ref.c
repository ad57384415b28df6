/* Reference SELL-C-sigma kernel: portable C for any chunk height C, lanes processed in blocks of LANES. */
#include "kernel.h"

enum { LANES = 64 }; /* rows of a chunk accumulated together (unit: rows) */

/* chunks [c0,c1): y[row(i)] = beta*y[row(i)] + alpha*sum_j val[i,j]*x[col[i,j]], row(i) = i (permuted order) or
 * perm[i] (original order); lanes past S->rows are padding and not stored */
static void sell_ref(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta, double *y)
{
    const int32_t C = S->C;
    for (int32_t k = c0; k < c1; k++) {
        const int64_t off = S->chunkptr[k];
        const int32_t len = S->chunklen[k];
        for (int32_t l0 = 0; l0 < C; l0 += LANES) {
            const int32_t nl = C - l0 < LANES ? C - l0 : LANES;
            double acc[LANES];
            for (int32_t l = 0; l < nl; l++) acc[l] = 0.0;
            const int plain = !(S->chunkruns && S->chunkruns[k] > 0) && !(S->colbase && S->colbase[k] >= 0);
            for (int32_t j = 0; j < len; j++) {
                const int64_t p = off + (int64_t)j * C + l0;
                if (plain) /* col holds the chunk's columns */
                    for (int32_t l = 0; l < nl; l++) acc[l] += S->val[p + l] * x[S->col[p + l]];
                else /* run columns or 16-bit indices: col holds none of the first and not the chunk's second */
                    for (int32_t l = 0; l < nl; l++) acc[l] += S->val[p + l] * x[spmv__sell_col(S, k, p + l)];
            }
            for (int32_t l = 0; l < nl; l++) {
                int64_t i = (int64_t)k * C + l0 + l;
                if (i >= S->rows) break;
                int32_t r = SPMV_SELL_DIRECT(S) ? (int32_t)i : S->perm[i];
                y[r] = beta == 0.0 ? (alpha == 1.0 ? acc[l] : alpha * acc[l]) : beta * y[r] + alpha * acc[l];
            }
        }
    }
}

/* Traffic per multiply: 12 bytes per stored entry (value + index), 16 per row (y store + write-allocate),
 * 12 per chunk (int64 chunk offset + int32 chunk length). */
static int sell_ref_accepts(const spmv_sell *S) { return S != NULL; }

/* Run columns and 16-bit indices are decoded entry by entry (spmv__sell_col, the same position order); the traffic
 * declared is that of the plain form, the reference kernel's (spmv_sell_traffic averages no run or 16-bit entry in
 * for it: shape.runs and shape.idx16 are 0). */
const spmv_kernel spmv__k_sell_ref = {
    .name = "sell-ref", .arch = SPMV_ARCH_REF, .sell = sell_ref,
    .traffic = {.bytes_per_entry = 12, .bytes_per_row = 16, .bytes_per_chunk = 12, .flops_per_entry = 2},
    /* one accumulator per lane (a block of LANES lanes at a time), scalar loads */
    .shape = {.format = SPMV_FORMAT_SELL, .C = 0, .width = 1, .mve = 1, .x = SPMV_X_SCALAR, .runs = 0,
              .len_branch = {{1, 0, 0}}}, /* the chunk's loop over its columns */
    .accepts = sell_ref_accepts,
};
