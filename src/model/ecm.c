/* Code balance, roofline and the ECM (Execution-Cache-Memory) model for CRS and SELL-C-sigma SpMV.
 * Alappat et al., PMBS 2020 (shared/reference/a64fx-spmv-ecm-paper.txt): Sect. III-A overlap hypothesis,
 * Sect. III-C multicore saturation, Sect. IV the SpMV numbers this code reproduces (tests/test_model.c). */
#include "internal.h"
#include "kernel.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- code balance */

static spmv_status check_row_args(const char *fn, const spmv_traffic *t, double nzr, double beta, int32_t C,
                                  double alpha)
{
    if (!t) return spmv__error(SPMV_ERR_ARG, "%s: argument t is NULL", fn);
    if (!(nzr > 0) || !isfinite(nzr)) return spmv__error(SPMV_ERR_ARG, "%s: N_nzr %g is not positive", fn, nzr);
    if (!(beta > 0 && beta <= 1)) return spmv__error(SPMV_ERR_ARG, "%s: beta %g is outside (0, 1]", fn, beta);
    if (C < 0) return spmv__error(SPMV_ERR_ARG, "%s: C %d < 0", fn, C);
    if (!(alpha >= 0) || !isfinite(alpha)) return spmv__error(SPMV_ERR_ARG, "%s: alpha %g < 0", fn, alpha);
    if (!(t->flops_per_entry > 0)) return spmv__error(SPMV_ERR_ARG, "%s: flops per entry %g <= 0", fn,
                                                      t->flops_per_entry);
    if (!(t->bytes_per_entry >= 0 && t->bytes_per_row >= 0 && t->bytes_per_chunk >= 0))
        return spmv__error(SPMV_ERR_ARG, "%s: negative bytes in the traffic declaration", fn);
    return SPMV_OK;
}

static double row_bytes(const spmv_traffic *t, double nzr, double beta, int32_t C, double alpha)
{
    return nzr / beta * t->bytes_per_entry + 8.0 * alpha * nzr + t->bytes_per_row +
           t->bytes_per_chunk / (C > 1 ? C : 1);
}

spmv_status spmv_bytes_per_row(const spmv_traffic *t, double nzr, double beta_fill, int32_t C, double alpha_rhs,
                               double *bytes)
{
    spmv_status st = check_row_args("spmv_bytes_per_row", t, nzr, beta_fill, C, alpha_rhs);
    if (st) return st;
    if (!bytes) return spmv__error(SPMV_ERR_ARG, "spmv_bytes_per_row: argument bytes is NULL");
    *bytes = row_bytes(t, nzr, beta_fill, C, alpha_rhs);
    return SPMV_OK;
}

spmv_status spmv_code_balance(const spmv_traffic *t, double nzr, double beta_fill, int32_t C, double alpha_rhs, double *Bc)
{
    spmv_status st = check_row_args("spmv_code_balance", t, nzr, beta_fill, C, alpha_rhs);
    if (st) return st;
    if (!Bc) return spmv__error(SPMV_ERR_ARG, "spmv_code_balance: argument Bc is NULL");
    *Bc = row_bytes(t, nzr, beta_fill, C, alpha_rhs) / (t->flops_per_entry * nzr);
    return SPMV_OK;
}

spmv_status spmv_roofline(double bw_gbs, double Bc, double *gflops)
{
    if (!gflops) return spmv__error(SPMV_ERR_ARG, "spmv_roofline: argument gflops is NULL");
    if (!(bw_gbs > 0) || !(Bc > 0) || !isfinite(bw_gbs) || !isfinite(Bc))
        return spmv__error(SPMV_ERR_ARG, "spmv_roofline: bandwidth %g GB/s and code balance %g B/flop must be "
                           "positive", bw_gbs, Bc);
    *gflops = bw_gbs / Bc;
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- kernel shapes */

static spmv_status check_shape(const char *fn, const spmv_kernel_shape *k)
{
    if (!k) return spmv__error(SPMV_ERR_ARG, "%s: argument k (kernel shape) is NULL", fn);
    if (k->format != SPMV_FORMAT_CRS && k->format != SPMV_FORMAT_SELL)
        return spmv__error(SPMV_ERR_ARG, "%s: unknown format %d in the kernel shape", fn, (int)k->format);
    if (k->format == SPMV_FORMAT_SELL && k->C < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: SELL kernel shape with C %d < 1", fn, k->C);
    if (k->width < 1 || k->mve < 1)
        return spmv__error(SPMV_ERR_ARG, "%s: kernel shape width %d and mve %d must be >= 1", fn, k->width, k->mve);
    if (k->x < SPMV_X_AUTO || k->x > SPMV_X_EMUL)
        return spmv__error(SPMV_ERR_ARG, "%s: unknown x access %d in the kernel shape", fn, (int)k->x);
    if (k->nt != 0 && k->nt != 1)
        return spmv__error(SPMV_ERR_ARG, "%s: kernel shape nt %d is neither 0 nor 1", fn, k->nt);
    for (int b = 0; b < SPMV_SHAPE_BRANCHES; b++)
    {
        const spmv_len_branch br = k->len_branch[b];
        if (br.div < 0 || br.mod < 0 || br.add < 0 || (br.div > 0 && br.add >= br.div) ||
            (br.div == 0 && (br.mod || br.add)))
            return spmv__error(SPMV_ERR_ARG,
                               "%s: length branch %d of the kernel shape: div %d, mod %d, add %d (div >= 0, mod >= 0, "
                               "0 <= add < div; div 0: all 0)", fn, b, br.div, br.mod, br.add);
    }
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- length branches */

static int64_t len_q(spmv_len_branch b, int64_t len)
{
    const int64_t q = (len + b.add) / b.div;
    return b.mod ? q % b.mod : q;
}

/* lengths from len[i] (rp NULL) or rp[i+1] - rp[i] */
static int64_t len_at(const int32_t *len, const int64_t *rp, int64_t i) { return rp ? rp[i + 1] - rp[i] : len[i]; }

/* the changes of k's length branches over the n lengths, summed over the branches (a count, not a share) */
static double len_changes(const spmv_kernel_shape *k, const int32_t *len, const int64_t *rp, int64_t n)
{
    double sum = 0;
    if (n < 2) return 0.0;
    for (int b = 0; b < SPMV_SHAPE_BRANCHES; b++) {
        const spmv_len_branch br = k->len_branch[b];
        if (br.div < 1) continue;
        int64_t changed = 0, prev = len_q(br, len_at(len, rp, 0));
        for (int64_t i = 1; i < n; i++) {
            const int64_t q = len_q(br, len_at(len, rp, i));
            changed += q != prev;
            prev = q;
        }
        sum += (double)changed;
    }
    return sum;
}

spmv_status spmv_len_branch_changes(const spmv_kernel_shape *k, const int32_t *len, int64_t n, double *changes)
{
    const char *fn = "spmv_len_branch_changes";
    if (!k || !changes || (!len && n > 0))
        return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !k ? "k" : !changes ? "changes" : "len");
    if (n < 0) return spmv__error(SPMV_ERR_ARG, "%s: n %lld < 0", fn, (long long)n);
    spmv_status st = check_shape(fn, k);
    if (st) return st;
    *changes = n > 0 ? len_changes(k, len, NULL, n) / (double)n : 0.0;
    return SPMV_OK;
}

spmv_status spmv_crs_len_branch_changes(const spmv_kernel_shape *k, const spmv_crs *A, double *changes)
{
    const char *fn = "spmv_crs_len_branch_changes";
    if (!k || !A || !changes)
        return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !k ? "k" : !A ? "A" : "changes");
    spmv_status st = check_shape(fn, k);
    if (st) return st;
    if (k->format != SPMV_FORMAT_CRS)
        return spmv__error(SPMV_ERR_ARG, "%s: the kernel shape is for SELL, A is CRS", fn);
    *changes = A->rows > 0 ? len_changes(k, NULL, A->rowptr, A->rows) / (double)A->rows : 0.0;
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- in-core */

typedef struct incore { double comp, load, store; } incore; /* cycles */

static double ceil_pos(double v) { return ceil(v - 1e-9); }

/* reduction of r partial sums by a tree of adds */
static double tree(const spmv_machine *m, double r) { return r > 1 ? ceil_pos(log2(r)) * m->add_latency : 0.0; }

/* the measured in-core costs, with the fallbacks the header documents */
static double scalar_load(const spmv_machine *m)
{
    return m->scalar_load_rthroughput > 0 ? m->scalar_load_rthroughput : m->load_rthroughput;
}
static double masked_load(const spmv_machine *m)
{
    return m->masked_load_rthroughput > 0 ? m->masked_load_rthroughput : m->load_rthroughput;
}
static double emul_gather(const spmv_machine *m, int32_t w)
{
    return m->emul_gather_rthroughput > 0 ? m->emul_gather_rthroughput : 2.0 * w * scalar_load(m);
}

/* The values of one vector of entries: a contiguous load, or through value indices (shape.vidx: the matrix has them
 * and the kernel reads them) at the measured lookup cost (index load, widening, table lookup). The AVX2 kernels
 * (width 4) read the table as they read x: their emulated-gather kernels by scalar loads and inserts, charged as an
 * emulated gather (src/kernels/avx2/sell_avx2.c, vi_val4). */
static double value_load(const spmv_machine *m, const spmv_kernel_shape *k)
{
    if (!k->vidx) return m->load_rthroughput;
    if (k->x == SPMV_X_EMUL && k->width == 4) return emul_gather(m, k->width);
    return m->vidx_rthroughput > 0 ? m->vidx_rthroughput : m->load_rthroughput;
}

/* Loads of row/chunk metadata (offsets, lengths, a run's base index and mask): counted at the measured scalar-load
 * cost; a machine without that measurement (the paper's A64FX file) does not count them, as the paper does not. */
static double meta_load(const spmv_machine *m) { return m->scalar_load_rthroughput; }

/* Hardware gather fed by an index load whose addresses fall in `lines` distinct cache lines: linear between the
 * measured points (1, 2, 4, 8 lines), constant beyond the first and last; without them the paper's cost
 * (gather_rthroughput + gather_index_penalty, Sect. II-A, "complex" addresses). */
static double gather_cost(const spmv_machine *m, double lines)
{
    static const double at[4] = {1, 2, 4, 8};
    double px[4], py[4];
    int n = 0;
    for (int i = 0; i < 4; i++)
        if (m->gather_lines_rthroughput[i] > 0) px[n] = at[i], py[n++] = m->gather_lines_rthroughput[i];
    if (!n) return m->gather_rthroughput + m->gather_index_penalty;
    if (lines <= px[0]) return py[0];
    for (int i = 1; i < n; i++)
        if (lines <= px[i]) return py[i - 1] + (py[i] - py[i - 1]) * (lines - px[i - 1]) / (px[i] - px[i - 1]);
    return py[n - 1];
}

/* Cycles of one vector of width entries of gather columns (CRS: entries), x access and value load: a hardware
 * gather at gcy (index load included; (4.0 + 1.5) cy on A64FX, Sect. II-A), or an emulated gather, plus the value
 * load. Scalar code: 3 scalar loads per entry (index, x, value). */
static double xvec_load(const spmv_machine *m, const spmv_kernel_shape *k, double gcy)
{
    if (k->width <= 1 || k->x == SPMV_X_SCALAR) return 3.0 * k->width * scalar_load(m);
    if (k->x == SPMV_X_EMUL) return emul_gather(m, k->width) + value_load(m, k);
    return gcy + value_load(m, k);
}

/* One CRS row of len entries (Sect. IV): nv = ceil(len/width) vector iterations spread over mve partial sums;
 * the chain of each is ceil(nv/mve) FMAs; partial sums reduced by a tree of adds; SIMD code ends with one
 * horizontal add, counted at its reciprocal throughput as the paper does (4 * 9 + 11.5 = 47.5 cy for HPCG). */
static incore crs_row(const spmv_machine *m, const spmv_kernel_shape *k, double len, double gcy)
{
    incore r = {0, 0, 0};
    const double st = m->store_rthroughput; /* one y element per row */
    if (len <= 0) {
        r.store = st;
        r.load = 2.0 * meta_load(m);
        return r;
    }
    double nv = k->width > 1 ? ceil_pos(len / k->width) : len;
    double sums = nv < k->mve ? nv : k->mve;
    double chain = ceil_pos(nv / k->mve) * m->fma_latency + tree(m, sums);
    if (k->width > 1) chain += m->hadd_rthroughput > 0 ? m->hadd_rthroughput : m->hadd_latency;
    double thr = nv * m->fma_rthroughput;
    /* SIMD code (the paper's A64FX): the row's chain ends in a horizontal add the next row waits for in practice;
     * scalar code on an out-of-order core: consecutive rows are independent and their chains overlap, the FMA
     * throughput bounds */
    r.comp = k->width > 1 && chain > thr ? chain : thr;
    /* plus the row's offset (2 scalar loads: rowptr[i], rowptr[i+1]) */
    r.load = (k->width > 1 ? nv * xvec_load(m, k, gcy) : 3.0 * len * scalar_load(m)) + 2.0 * meta_load(m);
    r.store = st;
    return r;
}

/* One SELL chunk of C rows and chunk length len of which runs are run columns, the first `full` of them full
 * (every lane holds an entry: an unmasked x load, no mask byte; the x86 kernels, spmv_sell.chunkfull) (Sect. IV):
 * per chunk column ceil(C/width) registers, each an independent chain; mve accumulator sets split the chunk length:
 * chain ceil(len/mve) FMAs plus the sum of the sets. Loads per register: gather columns xvec_load, run columns a
 * masked x load (full ones a plain load) plus the value load. y: one vector store per register in the permuted
 * order, C scattered stores otherwise. */
static incore sell_chunk(const spmv_machine *m, const spmv_kernel_shape *k, double len, double runs, double full,
                         double gcy, int permuted)
{
    incore r = {0, 0, 0};
    const int simd = k->width > 1 && k->x != SPMV_X_SCALAR;
    double nv = ceil_pos((double)k->C / k->width); /* registers per chunk column */
    if (!k->runs || !simd) runs = 0;
    if (full > runs) full = runs;
    if (len > 0) {
        double chain = ceil_pos(len / k->mve) * m->fma_latency + tree(m, len < k->mve ? len : k->mve);
        double thr = len * nv * m->fma_rthroughput;
        r.comp = chain > thr ? chain : thr;
        if (simd) /* a run column: masked x loads and value loads, its base index and mask byte (2 scalar loads); a
                     full one: plain x loads, its base only */
            r.load = (len - runs) * nv * xvec_load(m, k, gcy) +
                     (runs - full) * (nv * (masked_load(m) + value_load(m, k)) + 2.0 * meta_load(m)) +
                     full * (nv * (m->load_rthroughput + value_load(m, k)) + meta_load(m));
        else
            r.load = 3.0 * len * k->C * scalar_load(m);
    }
    /* the chunk's offset and length (and with run columns its run count and offset): 2 or 4 scalar loads */
    r.load += (runs > 0 ? 4.0 : 2.0) * meta_load(m);
    r.store = (simd && permuted ? nv : (double)k->C) * m->store_rthroughput;
    return r;
}

/* ---------------------------------------------------------------------------------------------- ECM combination */

/* Combine per Sect. III-A: level i contributes reads rd[i] and writes wr[i] (cycles); level 0 (L1) holds the core's
 * load and store cycles. T = max(T_comp, sum of the non-overlapping parts, each fully overlapping part alone), over
 * the levels 0..upto. The A64FX hypothesis (partial overlap): cycles in which the core retires stores can overlap
 * with L1<->L2 transfers, but load cycles cannot (and a core either loads or stores in a cycle, Sect. II-B); cycles in
 * which memory is written can overlap with L2<->L1 transfers, memory reads cannot. So the loads and the memory reads
 * add up, and the stores, the transfers between the caches and the memory writes overlap each other:
 * T = max(T_comp, T_LD + max(T_ST, T_L1L2, T_memW) + T_memR); with the data in L1, T_LD + T_ST. */
static double combine_as(const spmv_machine *m, double comp, const double *rd, const double *wr, int upto,
                         int mem_serial);
static double combine(const spmv_machine *m, double comp, const double *rd, const double *wr, int upto)
{
    return combine_as(m, comp, rd, wr, upto, 0);
}

/* mem_serial: the memory level's transfers add up whatever its rule (as "none") */
static double combine_as(const spmv_machine *m, double comp, const double *rd, const double *wr, int upto,
                         int mem_serial)
{
    /* serial: core loads/stores and memory traffic that cannot overlap; mid: transfers between the caches;
     * ovl: store / memory-write cycles that may overlap with mid (A64FX rule) */
    double serial = 0.0, mid = 0.0, ovl = 0.0, t = comp;
    for (int i = 0; i <= upto; i++) {
        const int edge = i == 0 || i == m->nlevels - 1; /* the core's side or the memory's side */
        double part = rd[i] + wr[i];
        switch (mem_serial && i == m->nlevels - 1 ? SPMV_OVERLAP_NONE : m->level[i].overlap) {
        case SPMV_OVERLAP_NONE:
            if (edge) serial += part;
            else mid += part;
            break;
        case SPMV_OVERLAP_FULL:
            if (part > t) t = part;
            break;
        case SPMV_OVERLAP_A64FX:
            if (edge) {
                serial += rd[i];
                if (wr[i] > ovl) ovl = wr[i];
            } else
                mid += part;
            break;
        }
    }
    double T = serial + (mid > ovl ? mid : ovl);
    return T > t ? T : t;
}

/* cycles of the transfers of level i (i >= 1) for rbytes read towards the core and wbytes written */
static void transfer(const spmv_machine_level *l, double rbytes, double wbytes, double *rd, double *wr)
{
    double wbw = l->upstream_write_bw > 0 ? l->upstream_write_bw : l->upstream_bw;
    *rd = rbytes / l->upstream_bw;
    *wr = wbytes / wbw;
}

spmv_status spmv_ecm_loop_predict(const spmv_machine *m, const spmv_ecm_loop *k, double *T_data)
{
    if (!m || !k || !T_data)
        return spmv__error(SPMV_ERR_ARG, "spmv_ecm_loop_predict: argument %s is NULL", !m ? "m" : !k ? "k" : "T_data");
    spmv_status st = spmv_machine_check(m);
    if (st) return st;
    double v[3] = {k->T_comp, k->T_load, k->T_store};
    for (int i = 0; i < 3; i++)
        if (!(v[i] >= 0) || !isfinite(v[i]))
            return spmv__error(SPMV_ERR_ARG, "spmv_ecm_loop_predict: a core time is negative or not finite");
    double rd[SPMV_MACHINE_MAX_LEVELS], wr[SPMV_MACHINE_MAX_LEVELS];
    rd[0] = k->T_load;
    wr[0] = k->T_store;
    for (int i = 1; i < m->nlevels; i++) {
        if (!(k->rd[i] >= 0 && k->wr[i] >= 0) || !isfinite(k->rd[i] + k->wr[i]))
            return spmv__error(SPMV_ERR_ARG, "spmv_ecm_loop_predict: level %d: bytes negative or not finite", i);
        transfer(&m->level[i], k->rd[i], k->wr[i], &rd[i], &wr[i]);
    }
    for (int i = 0; i < m->nlevels; i++) T_data[i] = combine(m, k->T_comp, rd, wr, i);
    return SPMV_OK;
}

/* Fill e from in-core cycles per row, bytes per row at each level (index >= 1), y write bytes per row and the factor
 * on the memory's write cycles (nt_cost; 0: none). */
/* n_s = ceil(P_sat / P1) cores to saturate, at least 1; clamped to 10^6 so that a machine file of extreme figures
 * (a bandwidth of 1e30 GB/s) cannot overflow the conversion to int (found by fuzz_machine) */
static int32_t saturation_cores(double P_sat, double P1)
{
    const double ns = P1 > 0 ? ceil(P_sat / P1 - 1e-9) : 1.0;
    return ns >= 1.0 && ns <= 1e6 ? (int32_t)ns : ns > 1e6 ? 1000000 : 1;
}

/* the factor on the memory's write cycles of kernel k: the machine's nt_store_cost where k streams y, else 0 (none) */
static double nt_cost(const spmv_machine *m, const spmv_kernel_shape *k) { return k->nt ? m->nt_store_cost : 0.0; }

/* serial: cy per row added to every T_data[i] after the overlap rules (the length branches' mispredicts); xr: cy per
 * row added to T_data[i] for i >= xr_from (x's random lines beyond the private caches, see model()); the
 * memory level's transfers then overlap less (see below) */
static void ecm_fill(const spmv_machine *m, incore ic, const double *bytes_lvl, double wbytes, double wcost,
                     double flops_row, double bS, double xr, int xr_from, double serial, spmv_ecm *e)
{
    memset(e, 0, sizeof *e);
    int n = m->nlevels;
    double rd[SPMV_MACHINE_MAX_LEVELS], wr[SPMV_MACHINE_MAX_LEVELS];
    e->nlevels = n;
    e->flops_per_row = flops_row;
    e->bytes_per_row = bytes_lvl[n - 1];
    e->T_comp = ic.comp;
    e->T_load = ic.load;
    e->T_store = ic.store;
    rd[0] = ic.load;
    wr[0] = ic.store;
    for (int i = 1; i < n; i++) {
        double w = wbytes < bytes_lvl[i] ? wbytes : bytes_lvl[i];
        transfer(&m->level[i], bytes_lvl[i] - w, w, &rd[i], &wr[i]);
    }
    /* y by non-temporal stores: their cost at the memory as spmv-machine's SpMV pair measured it (nt_cost) */
    if (wcost > 0) wr[n - 1] *= wcost;
    for (int i = 0; i < n; i++) {
        e->T_xfer[i] = rd[i] + wr[i];
        e->T_write[i] = wr[i];
        e->T_data[i] = combine(m, ic.comp, rd, wr, i);
        if (i >= xr_from && xr > 0) {
            /* the streams from memory overlap with the core's work as the memory's rule says, not with its waits for
             * x's random lines (those take the miss buffers): the share of the time those waits take, s = xr / (xr +
             * T), moves the combination that far towards the memory's transfers added up (the power-law matrix,
             * SELL-8 gather, 1 thread, Zen 5 VM 2026-12-06: measured 165 cy per row; the "full" rule 138, its
             * transfers added 160, this 157) */
            const double T = e->T_data[i], s = xr / (xr + T);
            e->T_data[i] = T + s * (combine_as(m, ic.comp, rd, wr, i, 1) - T) + xr;
        }
        e->T_data[i] += serial;
    }
    e->T_ecm = e->T_data[n - 1];
    e->P1 = e->T_ecm > 0 ? flops_row * m->clock_ghz / e->T_ecm : 0.0;
    e->bw1 = e->T_ecm > 0 ? e->bytes_per_row * m->clock_ghz / e->T_ecm : 0.0;
    e->bS = bS;
    e->Bc = flops_row > 0 ? e->bytes_per_row / flops_row : 0.0;
    e->P_sat = e->Bc > 0 ? bS / e->Bc : 0.0;
    e->n_s = saturation_cores(e->P_sat, e->P1);
}

/* memory bandwidth of the kind asked, for a kernel moving rd/wr bytes (the mix) */
static double kind_bandwidth(const spmv_machine *m, spmv_bw_kind bw, double rd, double wr)
{
    return bw == SPMV_BW_MIX ? spmv_machine_mix_bandwidth(m, rd, wr) : spmv_machine_bandwidth(m, bw);
}

spmv_status spmv_ecm_predict(const spmv_machine *m, const spmv_kernel_shape *k, const spmv_traffic *t, double nzr,
                             double beta_fill, double alpha_rhs, spmv_bw_kind bw, spmv_ecm *e)
{
    const char *fn = "spmv_ecm_predict";
    if (!m || !e) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, m ? "e" : "m");
    spmv_status st = spmv_machine_check(m);
    if (!st) st = check_shape(fn, k);
    if (!st) st = check_row_args(fn, t, nzr, beta_fill, k->format == SPMV_FORMAT_SELL ? k->C : 1, alpha_rhs);
    if (st) return st;
    int32_t C = k->format == SPMV_FORMAT_SELL ? k->C : 1;
    const double rb = row_bytes(t, nzr, beta_fill, C, alpha_rhs), wb = rb < 8.0 ? rb : 8.0;
    double bS = kind_bandwidth(m, bw, rb - wb, wb);
    if (!(bS > 0))
        return spmv__error(SPMV_ERR_ARG, "%s: the machine '%s' has no saturated %s bandwidth", fn, spmv__machine_name(m).s,
                           spmv_bw_kind_name(bw));
    /* without a matrix: irregular addresses, one line per lane */
    const double gcy = gather_cost(m, k->width > 1 ? k->width : 1);
    incore ic;
    if (k->format == SPMV_FORMAT_CRS) {
        ic = crs_row(m, k, nzr, gcy);
    } else {
        ic = sell_chunk(m, k, nzr / beta_fill, 0.0, 0.0, gcy, 1);
        ic.comp /= C;
        ic.load /= C;
        ic.store /= C;
    }
    double b[SPMV_MACHINE_MAX_LEVELS];
    for (int i = 0; i < m->nlevels; i++) b[i] = rb;
    ecm_fill(m, ic, b, 8.0, nt_cost(m, k), t->flops_per_entry * nzr, bS, 0.0, m->nlevels, 0.0, e);
    return SPMV_OK;
}

static int32_t numa_domains(const spmv_machine *m)
{
    return m->sockets * (m->cores_per_socket / m->cores_per_numa);
}

spmv_status spmv_ecm_scale(const spmv_machine *m, const spmv_ecm *e, int32_t ncores, double *gflops)
{
    if (!m || !e || !gflops)
        return spmv__error(SPMV_ERR_ARG, "spmv_ecm_scale: argument %s is NULL", !m ? "m" : !e ? "e" : "gflops");
    if (ncores < 1) return spmv__error(SPMV_ERR_ARG, "spmv_ecm_scale: ncores %d < 1", ncores);
    spmv_status st = spmv_machine_check(m);
    if (st) return st;
    int64_t total = (int64_t)m->sockets * m->cores_per_socket;
    int64_t left = ncores < total ? ncores : total;
    double p = 0.0;
    while (left > 0) { /* compact: fill one NUMA domain after the other (Sect. III-C, per contention domain) */
        int64_t nd = left < m->cores_per_numa ? left : m->cores_per_numa;
        double scal = (double)nd * e->P1;
        p += scal < e->P_sat ? scal : e->P_sat;
        left -= nd;
    }
    *gflops = p;
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- model of a matrix */

spmv_model_opts spmv_model_opts_default(void)
{
    spmv_model_opts o = {SPMV_BW_MIX, NULL, -1.0, 0};
    return o;
}

typedef struct mat {
    const spmv_crs *A;
    const spmv_sell *S;
} mat;

static spmv_status mat_alpha(mat x, int64_t bytes, int32_t line, int32_t ways, int32_t threads, int32_t shared,
                             const spmv_alpha_opts *o, spmv_alpha *a)
{
    return x.A ? spmv_crs_alpha_ex(x.A, bytes, line, ways, threads, shared, o, a)
               : spmv_sell_alpha_ex(x.S, bytes, line, ways, threads, shared, o, a);
}

static int64_t eff_size(const spmv_machine_level *l) { return l->effective_size > 0 ? l->effective_size : l->size; }

/* the capacity of the alpha simulation: x is reused at random, so the smaller of the streaming and the random-access
 * capacity */
static int64_t alpha_size(const spmv_machine_level *l)
{
    int64_t e = eff_size(l);
    return l->random_size > 0 && l->random_size < e ? l->random_size : e;
}

/* distinct values among v[0..n) */
static int distinct(const int64_t *v, int n)
{
    int d = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < i && v[j] != v[i]) j++;
        d += j == i;
    }
    return d;
}

/* Distinct cache lines per hardware gather of width w: SELL: the gather columns of each chunk (after its run columns
 * when the kernel loads runs contiguously), w lanes at a time; CRS: w consecutive entries of a row. Every step-th
 * chunk (row) when the matrix is large: about 2 M entries looked at. Returns the mean lines per gather (0 when there
 * are no gathers) and in *cost the gather cost weighted by the distribution of lines per gather. */
static double lines_per_gather(mat x, const spmv_kernel_shape *k, const spmv_machine *m, double *cost)
{
    const int w = k->width;
    *cost = 0;
    if (w <= 1 || k->x != SPMV_X_GATHER || w > 64) return 0.0;
    int sh = 0;
    while ((8 << sh) < m->cacheline) sh++; /* x[j] in line j >> sh */
    int64_t v[64], hist[65] = {0}, vectors = 0;
    if (x.S) {
        const spmv_sell *S = x.S;
        int32_t step = S->stored > 2000000 ? (int32_t)(S->stored / 2000000) : 1;
        const int32_t C = S->C;
        for (int32_t c = 0; c < S->nchunks; c += step) {
            const int32_t runs = k->runs && S->chunkruns ? S->chunkruns[c] : 0;
            for (int32_t j = runs; j < S->chunklen[c]; j++) {
                const int64_t p = S->chunkptr[c] + (int64_t)j * C; /* col holds only some chunks' columns */
                for (int32_t r0 = 0; r0 < C; r0 += w) {
                    int n = C - r0 < w ? C - r0 : w;
                    for (int i = 0; i < n; i++) v[i] = spmv__sell_col(S, c, p + r0 + i) >> sh;
                    hist[distinct(v, n)]++;
                    vectors++;
                }
            }
        }
    } else {
        const spmv_crs *A = x.A;
        int32_t step = A->nnz > 2000000 ? (int32_t)(A->nnz / 2000000) : 1;
        for (int32_t r = 0; r < A->rows; r += step)
            for (int64_t b = A->rowptr[r]; b < A->rowptr[r + 1]; b += w) {
                int n = A->rowptr[r + 1] - b < w ? (int)(A->rowptr[r + 1] - b) : w;
                for (int i = 0; i < n; i++) v[i] = A->col[b + i] >> sh;
                hist[distinct(v, n)]++;
                vectors++;
            }
    }
    if (!vectors) return 0.0;
    double lines = 0, c = 0;
    for (int d = 1; d <= w; d++) {
        lines += (double)d * (double)hist[d];
        c += gather_cost(m, d) * (double)hist[d];
    }
    *cost = c / (double)vectors;
    return lines / (double)vectors;
}

/* the last cache level private to a core (cores_per_group 1); -1 when even L1 is shared */
static int last_private(const spmv_machine *m)
{
    int p = -1;
    for (int i = 0; i < m->nlevels - 1 && m->level[i].cores_per_group <= 1; i++) p = i;
    return p;
}

/* x by hardware gathers (as xvec_load: SIMD code whose x access is neither scalar nor emulated) */
static int x_gathered(const spmv_kernel_shape *k)
{
    return k->width > 1 && k->x != SPMV_X_SCALAR && k->x != SPMV_X_EMUL;
}

/* the part of alpha from x's misses at random: those that continue no stream ((1 - seq) alpha), at most those beyond x
 * read once (alpha - amin); never negative */
static double random_alpha(double alpha, double amin, double seq)
{
    const double extra = alpha - amin, rnd = (1.0 - seq) * alpha, a = rnd < extra ? rnd : extra;
    return a > 0 ? a : 0.0;
}

/* cy of an element of x at a random line for the kernel's x access (hardware gather: xrand_ns[0], scalar loads and
 * the emulated gather: [1]) at x's size xbytes: linear in log2(size) between the measured 4, 16, 64, 256 MiB,
 * constant beyond them; 0 where the machine lacks a point */
static double xrand_cy(const spmv_machine *m, const spmv_kernel_shape *k, double xbytes)
{
    const int g = x_gathered(k) ? 0 : 1;
    const double *t = m->xrand_ns[g];
    for (int i = 0; i < SPMV_XRAND_POINTS; i++)
        if (!(t[i] > 0)) return 0.0;
    double pos = xbytes > 0 ? 0.5 * log2(xbytes / (4.0 * 1048576.0)) : 0.0; /* 0 at 4 MiB, 1 at 16 MiB, ... */
    if (pos < 0) pos = 0;
    if (pos > SPMV_XRAND_POINTS - 1) pos = SPMV_XRAND_POINTS - 1;
    int i = (int)pos;
    if (i > SPMV_XRAND_POINTS - 2) i = SPMV_XRAND_POINTS - 2;
    return (t[i] + (t[i + 1] - t[i]) * (pos - i)) * m->clock_ghz;
}

/* the in-core cost of one element's x access that the loads count: a gather's share (gcy per vector), the emulated
 * gather's share, one scalar load */
static double xelem_cy(const spmv_machine *m, const spmv_kernel_shape *k, double gcy)
{
    if (!x_gathered(k)) return k->width > 1 && k->x == SPMV_X_EMUL ? emul_gather(m, k->width) / k->width : scalar_load(m);
    return gcy / k->width;
}

static spmv_status model(mat x, const spmv_traffic *tin, const spmv_machine *m, int nthreads,
                         const spmv_model_opts *opts, spmv_model *md)
{
    const char *fn = x.A ? "spmv_model_crs" : "spmv_model_sell";
    if (!m || !md) return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, m ? "md" : "m");
    spmv_status st = spmv_machine_check(m);
    if (st) return st;
    if (nthreads < 0) return spmv__error(SPMV_ERR_ARG, "%s: nthreads %d < 0", fn, nthreads);
    spmv_model_opts o = opts ? *opts : spmv_model_opts_default();
    if (o.max_accesses < -1) return spmv__error(SPMV_ERR_ARG, "%s: max_accesses %lld < -1", fn, (long long)o.max_accesses);
    spmv_model r;
    memset(&r, 0, sizeof r);
    spmv_traffic t;
    const char *kname;
    int32_t C = 1;
    int permuted = 1;
    if (x.A) {
        const spmv_crs *A = x.A;
        if (A->rows < 1 || A->nnz < 1) return spmv__error(SPMV_ERR_ARG, "%s: the matrix is empty", fn);
        if ((st = spmv_crs_traffic(A, &t))) return st;
        kname = spmv_crs_kernel_name(A);
        r.rows = A->rows, r.cols = A->cols, r.nnz = A->nnz, r.stored = A->nnz, r.nchunks = A->rows;
        if (!nthreads) nthreads = A->nparts > 0 ? A->nparts : 1;
    } else {
        const spmv_sell *S = x.S;
        if (S->rows < 1 || S->nnz < 1) return spmv__error(SPMV_ERR_ARG, "%s: the matrix is empty", fn);
        if ((st = spmv_sell_traffic(S, &t))) return st;
        kname = spmv_sell_kernel_name(S);
        C = S->C;
        permuted = S->permuted || S->identity; /* y indexed directly */
        r.rows = S->rows, r.cols = S->cols, r.nnz = S->nnz, r.stored = S->stored, r.nchunks = S->nchunks;
        if (!nthreads) nthreads = S->nparts > 0 ? S->nparts : 1;
    }
    if (tin) t = *tin;
    if (!(t.flops_per_entry > 0)) return spmv__error(SPMV_ERR_ARG, "%s: flops per entry %g <= 0", fn,
                                                     t.flops_per_entry);
    if (o.shape) {
        if ((st = check_shape(fn, o.shape))) return st;
        r.shape = *o.shape;
    } else if ((st = x.A ? spmv_crs_kernel_shape(x.A, &r.shape) : spmv_sell_kernel_shape(x.S, &r.shape))) {
        return st;
    }
    if ((r.shape.format == SPMV_FORMAT_SELL) != (x.S != NULL))
        return spmv__error(SPMV_ERR_ARG, "%s: the kernel shape is for %s, the matrix is %s", fn,
                           r.shape.format == SPMV_FORMAT_SELL ? "SELL" : "CRS", x.S ? "SELL" : "CRS");
    if (x.S && r.shape.C != C)
        return spmv__error(SPMV_ERR_ARG, "%s: the kernel shape has C = %d, the matrix C = %d", fn, r.shape.C, C);
    if (o.bw != SPMV_BW_MIX && !(spmv_machine_bandwidth(m, o.bw) > 0))
        return spmv__error(SPMV_ERR_ARG, "%s: the machine '%s' has no saturated %s bandwidth", fn, spmv__machine_name(m).s,
                           spmv_bw_kind_name(o.bw));
    snprintf(r.kernel, sizeof r.kernel, "%s", kname);
    spmv__escape(r.machine, sizeof r.machine, m->name, sizeof m->name);
    r.traffic = t;
    r.nzr = (double)r.nnz / (double)r.rows;
    r.beta = (double)r.nnz / (double)r.stored;
    r.nthreads = nthreads;
    const int64_t nch = x.S ? r.nchunks : 0;

    /* alpha: single core per level (x and the streams through level i-1 for the transfers of level i), and at
     * nthreads in the last-level cache share of each thread, with and without the competing streams */
    const int n = m->nlevels, llc = n - 2;
    const int32_t line = m->cacheline;
    spmv_alpha_opts ao = spmv_alpha_opts_default();
    ao.max_accesses = o.max_accesses == 0 ? 4000000 : o.max_accesses < 0 ? 0 : o.max_accesses;
    ao.streams = 1;
    spmv_alpha_opts ax = ao;
    ax.streams = 0;
    for (int i = 0; i < n; i++) snprintf(r.levels[i], sizeof r.levels[i], "%s", m->level[i].name);
    if (o.alpha >= 0) {
        spmv_alpha fixed;
        memset(&fixed, 0, sizeof fixed);
        fixed.alpha = fixed.lo = fixed.hi = o.alpha;
        fixed.alpha_min = (double)r.cols / (double)r.nnz;
        fixed.alpha_max = line / 8.0;
        fixed.accesses = r.stored;
        fixed.sampled = 1;
        for (int i = 1; i < n; i++) r.alpha_level[i] = fixed;
        r.alpha = r.alpha_x = fixed;
    } else {
        for (int i = 1; i < n; i++) {
            const spmv_machine_level *l = &m->level[i - 1];
            if (i > 1 && alpha_size(l) == alpha_size(&m->level[i - 2]) && l->ways == m->level[i - 2].ways)
                r.alpha_level[i] = r.alpha_level[i - 1];
            else if ((st = mat_alpha(x, alpha_size(l), line, l->ways, 1, 1, &ao, &r.alpha_level[i])))
                return st;
        }
        const spmv_machine_level *l = &m->level[llc];
        if (nthreads == 1) r.alpha = r.alpha_level[n - 1];
        else if ((st = mat_alpha(x, alpha_size(l), line, l->ways, nthreads, l->cores_per_group, &ao, &r.alpha)))
            return st;
        if ((st = mat_alpha(x, alpha_size(l), line, l->ways, nthreads, l->cores_per_group, &ax, &r.alpha_x)))
            return st;
    }
    r.bytes = spmv_traffic_bytes(&t, r.stored, r.nnz, r.rows, nch, r.alpha.alpha);
    r.wr_bytes = 8.0 * (double)r.rows < r.bytes ? 8.0 * (double)r.rows : r.bytes;
    r.rd_bytes = r.bytes - r.wr_bytes;
    const double flops = t.flops_per_entry * (double)r.nnz;
    r.Bc = r.bytes / flops;
    r.Bc_min = spmv_traffic_bytes(&t, r.stored, r.nnz, r.rows, nch, r.alpha.alpha_min) / flops;
    r.Bc_max = spmv_traffic_bytes(&t, r.stored, r.nnz, r.rows, nch, r.alpha.alpha_max) / flops;
    const double bytes_roof = spmv_traffic_bytes(&t, r.stored, r.nnz, r.rows, nch, r.alpha_x.lo);
    r.Bc_roof = bytes_roof / flops;
    r.bS = kind_bandwidth(m, o.bw, r.rd_bytes, r.wr_bytes);
    if (!(r.bS > 0))
        return spmv__error(SPMV_ERR_ARG, "%s: the machine '%s' has no saturated %s bandwidth", fn, spmv__machine_name(m).s,
                           spmv_bw_kind_name(o.bw));
    {
        /* the roofline at the fastest passes (a bound), the ECM at the usual (spmv_machine.bw_*_best) */
        spmv_machine mr;
        spmv_machine_roof(m, &mr);
        r.bS_roof = kind_bandwidth(&mr, o.bw, r.rd_bytes, r.wr_bytes);
        if (!(r.bS_roof >= r.bS)) r.bS_roof = r.bS;
    }

    /* in-core: averaged over the actual rows / chunks, gathers at the matrix's lines per gather */
    double gcy = 0;
    r.lines_per_gather = lines_per_gather(x, &r.shape, m, &gcy);
    if (!(r.lines_per_gather > 0)) gcy = gather_cost(m, r.shape.width);
    /* the CRS part of a hybrid matrix runs at the in-core shape of the CRS kernel that runs it */
    const spmv_kernel_shape ls =
        x.S ? spmv__kernel_shape(x.S->long_kernel ? x.S->long_kernel : &spmv__k_crs_ref, 0) : r.shape;
    incore ic = {0, 0, 0};
    if (x.A) {
        const spmv_crs *A = x.A;
        for (int32_t i = 0; i < A->rows; i++) {
            incore c = crs_row(m, &r.shape, (double)(A->rowptr[i + 1] - A->rowptr[i]), gcy);
            ic.comp += c.comp, ic.load += c.load, ic.store += c.store;
        }
    } else {
        const spmv_sell *S = x.S;
        for (int32_t k = 0; k < S->nchunks; k++) {
            double R = S->chunkruns ? (double)S->chunkruns[k] : 0.0;
            /* the x86 kernels read the full run columns without masks; the SVE kernel predicates every one */
            const int x86 = S->kernel && (S->kernel->arch == SPMV_ARCH_AVX512 || S->kernel->arch == SPMV_ARCH_AVX2);
            double F = x86 && S->chunkfull ? (double)S->chunkfull[k] : 0.0;
            incore c = sell_chunk(m, &r.shape, (double)S->chunklen[k], R, F, gcy, permuted);
            ic.comp += c.comp, ic.load += c.load, ic.store += c.store;
        }
        /* the CRS part of a hybrid matrix: its rows at the in-core shape of the CRS kernel that runs them */
        if (S->nlong > 0 && S->longptr) {
            for (int32_t j = 0; j < S->nlong; j++) {
                incore c = crs_row(m, &ls, (double)(S->longptr[j + 1] - S->longptr[j]), gcy);
                ic.comp += c.comp, ic.load += c.load, ic.store += c.store;
            }
        }
    }
    ic.comp /= (double)r.rows, ic.load /= (double)r.rows, ic.store /= (double)r.rows;
    /* the team the driver starts (spmv__team_for: one thread per spmv__team_min_work entries of work, from this
     * machine's fork and join): a small matrix runs on fewer threads than asked for, or on one */
    int64_t total = (int64_t)m->sockets * m->cores_per_socket;
    int64_t used = nthreads < total ? nthreads : total;
    const int64_t work = x.A ? x.A->nnz : spmv__sell_work(x.S);
    const double fj_ns = m->parallel_overhead > 0 ? m->parallel_overhead / m->clock_ghz : 0.0;
    used = spmv__team_for((int32_t)(used < INT32_MAX ? used : INT32_MAX), work, fj_ns);
    /* and one where the lines of y its parts share cost more than the team saves, as the driver decides (the count
     * is the matrix's own partition's, so only where that is the one asked about) */
    if (x.S && x.S->nparts == nthreads) used = spmv__sell_team_cap(x.S, (int)used, work);
    if (used < 1) used = 1;

    /* the branches that follow the row (chunk) lengths: a mispredict each time their outcome changes, unless the
     * predictor has learned the whole sequence (few rows per core, multiplied again and again), added after the
     * overlap rules (the loads behind a mispredicted branch wait for it). Zen 5 VM 2026-12-07, CRS, 1 thread: a
     * power-law matrix of 32768 rows (N_nzr 12.7, 1.40 changes per row) ran at 53 cy per row, one of the same size
     * with every row of 13 entries at 27; rajat01 (6833 rows) and pow ran as the model without the term */
    double seqlen = 0;
    if (x.A) {
        r.len_branch_changes = len_changes(&r.shape, NULL, x.A->rowptr, x.A->rows);
        seqlen = (double)x.A->rows;
    } else {
        const spmv_sell *S = x.S;
        r.len_branch_changes = len_changes(&r.shape, S->chunklen, NULL, S->nchunks);
        seqlen = (double)S->nchunks;
        if (S->nlong > 0 && S->longptr) {
            r.len_branch_changes += len_changes(&ls, NULL, S->longptr, S->nlong);
            seqlen += (double)S->nlong;
        }
    }
    r.len_branch_changes /= (double)r.rows;
    seqlen /= (double)used;
    const double lo = m->len_branch_rows_learned, hi = m->len_branch_rows_missed;
    /* (spmv_machine_check: both sizes 0 or lo <= hi) */
    r.len_branch_share = !(lo > 0) ? 1.0 : seqlen <= lo ? 0.0 : seqlen >= hi ? 1.0 : log2(seqlen / lo) / log2(hi / lo);
    r.len_branch_cy = r.len_branch_changes * r.len_branch_share * m->len_branch_miss_cy;
    r.nt_store_cost = nt_cost(m, &r.shape);
    if (r.shape.width > 1 && r.shape.x != SPMV_X_SCALAR)
        r.gather_cy = r.shape.x == SPMV_X_EMUL ? emul_gather(m, r.shape.width) : gcy;

    /* transfers per row at each level with that level's alpha; the memory level for the single core */
    double b[SPMV_MACHINE_MAX_LEVELS];
    b[0] = 0;
    for (int i = 1; i < n; i++)
        b[i] = spmv_traffic_bytes(&t, r.stored, r.nnz, r.rows, nch, r.alpha_level[i].alpha) / (double)r.rows;
    /* x's lines that miss the private caches beyond x read once come at random (the alpha simulation's re-reads):
     * where the machine has the time of such a line for the kernel's x access (xrand_ns, at x's size, measured with
     * the index and value streams a SpMV entry brings), each costs that time less the in-core x access the loads
     * above already count, added to the time with the data beyond the private caches; their bytes leave the
     * transfers of those levels (their time is in the measured one), and the streams' memory transfers do not
     * overlap with the time those lines take (ecm_fill). Not with a fixed alpha (opts.alpha): that one is no
     * simulation of the private caches */
    int xr_from = n;
    const int p = last_private(m);
    const double tx = o.alpha < 0 ? xrand_cy(m, &r.shape, 8.0 * (double)r.cols) : 0.0;
    const double bmem = b[n - 1]; /* the memory's bytes per row, x's random lines included (the code balance's) */
    if (tx > 0 && p + 1 < n) {
        const double amin = r.alpha_level[p + 1].alpha_min; /* x read once: cols / nnz */
        /* of those the ones at random: the misses that continue a stream (x read in order, a stencil's planes re-read
         * in order: HPCG 192^3 has 0.25 such lines per row, at its 54 MiB x's random-line time 2.9 cy per row, while
         * it runs as fast per row as 128^3, Zen 5 VM 2026-12-06) are fetched ahead and stay transfers; the others are
         * taken as the re-reads, at most all beyond x read once */
        const double seq = r.alpha_level[p + 1].seq;
        r.x_random_seq = seq;
        r.x_random_lines = random_alpha(r.alpha_level[p + 1].alpha, amin, seq) * r.nzr * 8.0 / (double)line;
        const double cost = tx - xelem_cy(m, &r.shape, gcy);
        r.x_random_cy = cost > 0 ? r.x_random_lines * cost : 0.0;
        xr_from = p + 1;
        for (int i = p + 1; i < n; i++) {
            const double xb = 8.0 * random_alpha(r.alpha_level[i].alpha, amin, seq) * r.nzr;
            if (xb > 0) b[i] = b[i] - xb > 0 ? b[i] - xb : 0.0;
        }
    }
    ecm_fill(m, ic, b, 8.0, r.nt_store_cost, flops / (double)r.rows, r.bS, r.x_random_cy, xr_from, r.len_branch_cy, &r.ecm);
    r.ecm.bytes_per_row = bmem; /* the transfers went without x's random lines; the bytes from memory are all */
    r.ecm.bw1 = r.ecm.T_ecm > 0 ? bmem * m->clock_ghz / r.ecm.T_ecm : 0.0;
    /* saturation with the code balance at nthreads' alpha */
    r.ecm.Bc = r.Bc;
    r.ecm.P_sat = r.bS / r.Bc;
    r.ecm.n_s = saturation_cores(r.ecm.P_sat, r.ecm.P1);
    r.n_s = r.ecm.n_s;
    r.cores_per_numa = m->cores_per_numa;
    int64_t doms = (used + m->cores_per_numa - 1) / m->cores_per_numa;

    /* where the data set lives at nthreads: the fastest levels first, up to their effective capacities (private
     * caches: one per thread; shared ones: one per cores_per_group threads) -- the hit ratio of the optimal
     * replacement on a repeated sweep, an upper bound on what any cache keeps */
    const double wsrow = t.bytes_per_row >= 16 ? t.bytes_per_row - 8 : t.bytes_per_row; /* y once, no write-allocate */
    r.ws = (double)r.stored * t.bytes_per_entry + (double)nch * t.bytes_per_chunk + (double)r.rows * wsrow +
           8.0 * (double)r.cols;
    double cum_prev = 0;
    for (int i = 0; i < n - 1; i++) {
        const spmv_machine_level *l = &m->level[i];
        int64_t inst = (used + l->cores_per_group - 1) / l->cores_per_group;
        double cap = (double)eff_size(l) * (double)inst;
        double cum = cap > cum_prev ? cap : cum_prev;
        double a = cum_prev < r.ws ? cum_prev : r.ws, z = cum < r.ws ? cum : r.ws;
        r.share[i] = (z - a) / r.ws;
        cum_prev = cum;
    }
    r.share[n - 1] = cum_prev < r.ws ? 1.0 - cum_prev / r.ws : 0.0;
    r.in_cache = !(r.share[n - 1] > 0);
    r.data_level = 0;
    for (int i = 0; i < n; i++)
        if (r.share[i] > 0) r.data_level = i;
    /* bandwidth of each level to the nthreads cores, GB/s */
    r.level_bw[0] = m->level[0].upstream_bw * m->clock_ghz * (double)used;
    for (int i = 1; i < n - 1; i++) r.level_bw[i] = m->level[i].upstream_bw * m->clock_ghz * (double)used;
    r.level_bw[n - 1] = r.bS * (double)doms;
    if (!(r.level_bw[0] > 0)) r.level_bw[0] = 8.0 * m->simd_width / m->load_rthroughput * m->clock_ghz * used;
    /* the roofline: caches at x read once, memory at the roofline's alpha; the ECM's bandwidth limit: memory at the
     * ECM's alpha */
    const double bytes_min = spmv_traffic_bytes(&t, r.stored, r.nnz, r.rows, nch, r.alpha.alpha_min);
    double troof = 0, tecm = 0;
    for (int i = 0; i < n; i++) {
        if (!(r.share[i] > 0)) continue;
        double bw = r.level_bw[i] > 0 ? r.level_bw[i] : INFINITY;
        const double bwr = i == n - 1 ? r.bS_roof * (double)doms : bw;
        troof += r.share[i] * (i == n - 1 ? bytes_roof : bytes_min) / bwr;
        tecm += r.share[i] * (i == n - 1 ? r.bytes : bytes_min) / bw;
    }
    r.roofline = troof > 0 ? flops / troof : 0.0; /* (bytes / (GB/s)) = ns per multiply... flops/ns = Gflop/s */
    r.roofline_mem = (double)doms * r.bS_roof / r.Bc_roof;
    r.roofline_node = (double)numa_domains(m) * r.bS_roof / r.Bc_roof;
    /* the ECM prediction at nthreads */
    r.T_shared = 0;
    for (int i = 0; i < n; i++) r.T_shared += r.share[i] * r.ecm.T_data[i];
    if (r.in_cache || r.share[n - 1] < 1.0) {
        double pn = r.T_shared > 0 ? (double)used * r.ecm.flops_per_row * m->clock_ghz / r.T_shared : 0.0;
        double pbw = tecm > 0 ? flops / tecm : 0.0;
        r.predicted = pn < pbw ? pn : pbw;
    } else if ((st = spmv_ecm_scale(m, &r.ecm, nthreads, &r.predicted))) {
        return st;
    }
    /* on a team of more than one thread every multiply starts and joins its team (helper threads or a parallel
     * region), and that adds to the time */
    if (used > 1 && fj_ns > 0 && r.predicted > 0) {
        r.overhead_ns = fj_ns;
        r.predicted = flops / (flops / r.predicted + r.overhead_ns);
    }
    *md = r;
    return SPMV_OK;
}

spmv_status spmv_model_crs(const spmv_crs *A, const spmv_traffic *t, const spmv_machine *m, int nthreads,
                           const spmv_model_opts *opts, spmv_model *md)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_model_crs: argument A is NULL");
    mat x = {A, NULL};
    return model(x, t, m, nthreads, opts, md);
}

spmv_status spmv_model_sell(const spmv_sell *S, const spmv_traffic *t, const spmv_machine *m, int nthreads,
                            const spmv_model_opts *opts, spmv_model *md)
{
    if (!S) return spmv__error(SPMV_ERR_ARG, "spmv_model_sell: argument S is NULL");
    mat x = {NULL, S};
    return model(x, t, m, nthreads, opts, md);
}

void spmv_model_score(const spmv_model *md, double measured, double *pct_roofline, double *ecm_error)
{
    if (pct_roofline) *pct_roofline = md && measured > 0 && md->roofline > 0 ? 100.0 * measured / md->roofline : 0.0;
    if (ecm_error)
        *ecm_error = md && measured > 0 && md->predicted > 0 ? 100.0 * (md->predicted - measured) / measured : 0.0;
}

/* ---------------------------------------------------------------------------------------------- report */

typedef struct out { char *buf; size_t size, len; } out;

static void put(out *o, const char *fmt, ...) SPMV_PRINTF(2, 3);
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->len < o->size ? o->buf + o->len : NULL;
    size_t room = o->len < o->size ? o->size - o->len : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) o->len += (size_t)n;
}

int spmv_model_format(const spmv_model *md, double measured, const char *prefix, char *buf, size_t size)
{
    if (!md || (!buf && size)) {
        spmv__error(SPMV_ERR_ARG, "spmv_model_format: argument %s is NULL", md ? "buf" : "md");
        return -1;
    }
    if (!prefix) prefix = "";
    out O = {buf, size, 0}, *o = &O;
    if (size) buf[0] = '\0';
    const spmv_ecm *e = &md->ecm;
    const spmv_kernel_shape *k = &md->shape;
    static const char *const xs[] = {"auto", "scalar", "gather", "emulated gather"};
    int n = e->nlevels;
    put(o, "%smodel: kernel %s (%s, %d double%s per instruction, MVE %d, x: %s%s) on %s\n", prefix, md->kernel,
        k->format == SPMV_FORMAT_SELL ? "SELL" : "CRS", k->width, k->width > 1 ? "s" : "", k->mve,
        k->x >= 0 && k->x <= 3 ? xs[k->x] : "?", k->runs ? ", run columns contiguous" : "", md->machine);
    put(o, "%s  N_nzr %.4g, beta %.4g (%lld stored / %lld nonzeros), traffic %g B/entry + %g B/row + %g B/chunk\n",
        prefix, md->nzr, md->beta, (long long)md->stored, (long long)md->nnz, md->traffic.bytes_per_entry,
        md->traffic.bytes_per_row, md->traffic.bytes_per_chunk);
    put(o, "%s  alpha %.4g at %d thread%s (LRU, x with the matrix and y streams%s; bounds %.4g .. %.4g); x alone %.4g "
        "(bounds %.4g .. %.4g); x read once %.4g, every access a miss %.4g\n", prefix, md->alpha.alpha,
        md->nthreads, md->nthreads > 1 ? "s" : "",
        md->alpha.sampled < 1 ? ", sampled" : "", md->alpha.lo, md->alpha.hi, md->alpha_x.alpha, md->alpha_x.lo,
        md->alpha_x.hi, md->alpha.alpha_min, md->alpha.alpha_max);
    if (md->alpha.sampled < 1)
        put(o, "%s  (alpha from a sample of %.2g %% of the accesses: bounded time; the bounds count the sample's "
            "accesses without an earlier use in the sample as hits or as misses)\n", prefix,
            100.0 * md->alpha.sampled);
    put(o, "%s  code balance B_c %.4g B/flop (%.4g B/row; roofline's %.4g; bounds %.4g .. %.4g)\n", prefix, md->Bc,
        md->Bc * md->traffic.flops_per_entry * md->nzr, md->Bc_roof, md->Bc_min, md->Bc_max);
    put(o, "%s  data set %.4g MB:", prefix, md->ws * 1e-6);
    for (int i = 0; i < n; i++)
        if (md->share[i] > 0) put(o, " %.0f %% from %s (%.4g GB/s)", 100.0 * md->share[i], md->levels[i],
                                  md->level_bw[i]);
    put(o, "%s\n", md->in_cache ? " -- in cache: the memory roofline does not bind" : "");
    put(o, "%s  roofline %.4g Gflop/s at %d thread%s (a bound; memory: b_S %.4g GB/s per NUMA domain for this kernel's "
        "mix of reads and writes at the fastest passes, memory roofline %.4g, whole machine %.4g; the ECM's b_S %.4g, "
        "the usual pass)\n", prefix, md->roofline, md->nthreads, md->nthreads > 1 ? "s" : "", md->bS_roof,
        md->roofline_mem, md->roofline_node, md->bS);
    if (md->gather_cy > 0)
        put(o, "%s  x access %.3g cy per vector (%s%.3g cache lines per gather)\n", prefix, md->gather_cy,
            k->x == SPMV_X_EMUL ? "emulated, independent of the " : "", md->lines_per_gather);
    if (md->x_random_lines > 0)
        put(o, "%s  x at random: %.3g lines per row miss the private caches beyond x read once at random (%.0f %% of "
            "x's misses continue a stream and stay transfers), %.3g cy per row at the machine's random-x time for x "
            "of %.3g MiB (their bytes out of the transfers below)\n", prefix, md->x_random_lines,
            100.0 * md->x_random_seq, md->x_random_cy, 8.0 * (double)md->cols / 1048576.0);
    if (md->len_branch_cy > 0 || (md->len_branch_changes > 0 && md->len_branch_share < 1))
        put(o, "%s  length branches: %.3g changes per row of the kernel's branches that follow the row (chunk) "
            "lengths, %.0f %% of them mispredicted at this many rows per thread (the rest learned), %.3g cy per row "
            "(added to the T_data below)\n",
            prefix, md->len_branch_changes, 100.0 * md->len_branch_share, md->len_branch_cy);
    if (md->nt_store_cost > 0)
        put(o, "%s  y by non-temporal stores: the memory's write cycles at %.3g times the declared bytes' (the "
            "machine's non-temporal store cost): %.3g cy/row in T_%s%s below\n", prefix, md->nt_store_cost,
            e->T_write[n - 1], n > 1 ? md->levels[n - 2] : "", md->levels[n - 1]);
    /* ECM in the paper's notation */
    put(o, "%s  ECM {T_OL || T_nOL", prefix);
    for (int i = 1; i < n; i++) put(o, " | T_%s%s", md->levels[i - 1], md->levels[i]);
    put(o, "} = {%.3g || %.3g", e->T_comp, e->T_load);
    for (int i = 1; i < n; i++) put(o, " | %.3g", e->T_xfer[i]);
    put(o, "} cy/row, T_store %.3g; data in", e->T_store);
    put(o, " {");
    for (int i = 0; i < n; i++) put(o, "%s%.3g", i ? " ] " : "", e->T_data[i]);
    put(o, "} cy/row");
    if (k->format == SPMV_FORMAT_SELL) put(o, " (x C = %d: %.4g cy/chunk in memory)", k->C, e->T_ecm * k->C);
    put(o, "\n");
    put(o, "%s  alpha per level (single core):", prefix);
    for (int i = 1; i < n; i++) put(o, " %.4g", md->alpha_level[i].alpha);
    put(o, "\n");
    put(o, "%s  single core %.4g Gflop/s, %.4g GB/s from memory; saturation at n_s = %d cores per NUMA domain (%s %d)\n",
        prefix, e->P1, e->bw1, md->n_s, md->n_s > md->cores_per_numa ? "cannot saturate: a domain has only" : "of",
        md->cores_per_numa);
    put(o, "%s  ECM prediction %.4g Gflop/s at %d thread%s (%.4g cy/row on a core with the data where it lives", prefix,
        md->predicted, md->nthreads, md->nthreads > 1 ? "s" : "", md->T_shared);
    if (md->overhead_ns > 0) put(o, "; + %.4g us per multiply for the parallel region", md->overhead_ns * 1e-3);
    put(o, ")\n");
    if (measured > 0) {
        double pct, err;
        spmv_model_score(md, measured, &pct, &err);
        put(o, "%s  measured %.4g Gflop/s = %.1f %% of the roofline; ECM error %+.1f %% (predicted %.4g)\n", prefix,
            measured, pct, err, md->predicted);
    }
    return O.len > (size_t)INT32_MAX ? -1 : (int)O.len;
}
