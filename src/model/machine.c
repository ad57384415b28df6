/* Machine files: the spmv_machine struct in a plain-text "key: value [unit]" format (machines/TEMPLATE.machine),
 * reader with "FILE:LINE: reason" errors, writer that reads back exactly. Keys mirror kerncraft's YAML machine
 * files where one exists (model name, clock, sockets, cores per socket, cores per NUMA domain, cacheline size,
 * cores per group, upstream throughput, transfers overlap). */
#include "internal.h"
#include "outfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void spmv_machine_init(spmv_machine *m)
{
    if (m) memset(m, 0, sizeof *m);
}

const char *spmv_overlap_name(spmv_overlap o)
{
    switch (o) {
    case SPMV_OVERLAP_NONE: return "none";
    case SPMV_OVERLAP_FULL: return "full";
    case SPMV_OVERLAP_A64FX: return "a64fx-partial";
    }
    return "unknown";
}

const char *spmv_bw_kind_name(spmv_bw_kind k)
{
    switch (k) {
    case SPMV_BW_TRIAD: return "triad";
    case SPMV_BW_LOAD: return "load";
    case SPMV_BW_COPY: return "copy";
    case SPMV_BW_MIX: return "mix";
    }
    return "unknown";
}

double spmv_machine_bandwidth(const spmv_machine *m, spmv_bw_kind kind)
{
    if (!m) return 0.0;
    switch (kind) {
    case SPMV_BW_TRIAD: return m->bw_triad;
    case SPMV_BW_LOAD: return m->bw_load;
    case SPMV_BW_COPY: return m->bw_copy;
    case SPMV_BW_MIX: return spmv_machine_mix_bandwidth(m, 97.0, 3.0);
    }
    return 0.0;
}

void spmv_machine_roof(const spmv_machine *m, spmv_machine *out)
{
    if (!m || !out) return;
    if (out != m) *out = *m;
    if (m->bw_load_best > 0) out->bw_load = m->bw_load_best;
    if (m->bw_copy_best > 0) out->bw_copy = m->bw_copy_best;
    if (m->bw_triad_best > 0) out->bw_triad = m->bw_triad_best;
}

/* time per byte model rd/b_R + wr/b_W; 1/b_W from TRIAD (24 B read with write-allocate, 8 B written) and COPY
 * (16 B, 8 B), the mean of what each gives */
double spmv_machine_mix_bandwidth(const spmv_machine *m, double rd, double wr)
{
    if (!m || !(rd >= 0) || !(wr >= 0) || !(rd + wr > 0) || !isfinite(rd + wr)) return 0.0;
    const double bR = m->bw_load > 0 ? m->bw_load : m->bw_triad > 0 ? m->bw_triad : m->bw_copy;
    if (!(bR > 0)) return 0.0;
    const struct { double b, r, w; } k[2] = {{m->bw_triad, 24, 8}, {m->bw_copy, 16, 8}};
    double inv_w = 0;
    int n = 0;
    for (int i = 0; i < 2; i++)
        if (k[i].b > 0) {
            inv_w += ((k[i].r + k[i].w) / k[i].b - k[i].r / bR) / k[i].w;
            n++;
        }
    inv_w = n ? inv_w / n : 1.0 / bR; /* only a read-only figure: writes as fast as reads */
    if (inv_w < 0) inv_w = 0;
    return (rd + wr) / (rd / bR + wr * inv_w);
}

spmv_status spmv_machine_at_clock(spmv_machine *m, double clock_ghz)
{
    static const char fn[] = "spmv_machine_at_clock";
    if (!m) return spmv__error(SPMV_ERR_ARG, "%s: argument m is NULL", fn);
    if (!(clock_ghz > 0) || !isfinite(clock_ghz))
        return spmv__error(SPMV_ERR_ARG, "%s: clock_ghz = %g: not a positive finite number of GHz", fn, clock_ghz);
    if (!(m->clock_ghz > 0) || !isfinite(m->clock_ghz))
        return spmv__error(SPMV_ERR_ARG, "%s: the machine's own clock (%g GHz) is not a positive finite number", fn,
                           m->clock_ghz);
    if (m->nlevels < 2 || m->nlevels > SPMV_MACHINE_MAX_LEVELS)
        return spmv__error(SPMV_ERR_ARG, "%s: the machine has %d levels (2..%d)", fn, m->nlevels,
                           SPMV_MACHINE_MAX_LEVELS);
    /* the memory: the same GB/s at the new clock; the team's start and join: the same time (it is coherence and
     * operating-system work, measured as a time and stored in cycles of the file's clock). On a copy, which the
     * machine check then takes or refuses (a clock of 1e-320 GHz would make the memory's B/cy infinite) */
    const double f = m->clock_ghz / clock_ghz;
    spmv_machine r = *m;
    r.level[r.nlevels - 1].upstream_bw *= f;
    r.level[r.nlevels - 1].upstream_write_bw *= f;
    r.parallel_overhead /= f;
    r.clock_ghz = clock_ghz;
    spmv_status st = spmv_machine_check(&r);
    if (st) {
        char why[256]; /* the check's message (the error buffer is written again below) */
        snprintf(why, sizeof why, "%s", spmv_last_error());
        return spmv__error(st, "%s: clock_ghz = %g against the machine's %g GHz: %s", fn, clock_ghz, m->clock_ghz,
                           why);
    }
    *m = r;
    return SPMV_OK;
}

spmv_status spmv_machine_at_read_bandwidth(spmv_machine *m, int threads, double read_gbs)
{
    static const char fn[] = "spmv_machine_at_read_bandwidth";
    if (!m) return spmv__error(SPMV_ERR_ARG, "%s: argument m is NULL", fn);
    if (threads < 1) return spmv__error(SPMV_ERR_ARG, "%s: threads = %d < 1", fn, threads);
    if (!(read_gbs > 0) || !isfinite(read_gbs))
        return spmv__error(SPMV_ERR_ARG, "%s: read_gbs = %g: not a positive finite number of GB/s", fn, read_gbs);
    if (m->nlevels < 2 || m->nlevels > SPMV_MACHINE_MAX_LEVELS)
        return spmv__error(SPMV_ERR_ARG, "%s: the machine has %d levels (2..%d)", fn, m->nlevels,
                           SPMV_MACHINE_MAX_LEVELS);
    if (m->bw_points < 0 || m->bw_points > SPMV_MACHINE_MAX_CORES)
        return spmv__error(SPMV_ERR_ARG, "%s: the machine has %d bandwidth curve points (0..%d)", fn, m->bw_points,
                           SPMV_MACHINE_MAX_CORES);
    /* the file's read bandwidth at this many cores: the curve's point; a saturated domain's figure from a domain's
     * cores on (one domain) */
    const int domains = m->cores_per_numa > 0 ? m->sockets * (m->cores_per_socket / m->cores_per_numa) : 0;
    double ref = 0;
    if (threads <= m->bw_points) {
        ref = m->bw_load_n[threads - 1];
    } else if (threads > m->cores_per_numa && domains > 1) {
        return spmv__error(SPMV_ERR_ARG, "%s: threads = %d span more than one of the machine's %d NUMA domains of %d "
                           "cores: its bandwidth figures are one domain's", fn, threads, domains, m->cores_per_numa);
    } else if (threads >= m->cores_per_numa) {
        ref = m->bw_load;
    } else {
        return spmv__error(SPMV_ERR_ARG, "%s: threads = %d: the machine's read bandwidth curve ends at %d core%s, "
                           "its saturated figure is for %d", fn, threads, m->bw_points, m->bw_points == 1 ? "" : "s",
                           m->cores_per_numa);
    }
    if (!(ref > 0))
        return spmv__error(SPMV_ERR_ARG, "%s: the machine has no read bandwidth at %d core%s (saturated bandwidth "
                           "load, memory bandwidth load) to compare read_gbs = %g GB/s with", fn, threads,
                           threads == 1 ? "" : "s", read_gbs);
    const double f = read_gbs / ref;
    spmv_machine r = *m;
    r.level[r.nlevels - 1].upstream_bw *= f;
    r.level[r.nlevels - 1].upstream_write_bw *= f;
    double *const med[3] = {&r.bw_load, &r.bw_copy, &r.bw_triad}, *const best[3] = {&r.bw_load_best, &r.bw_copy_best,
                                                                                     &r.bw_triad_best};
    double *const curve[3] = {r.bw_load_n, r.bw_copy_n, r.bw_triad_n};
    for (int k = 0; k < 3; k++) {
        *med[k] *= f;
        /* the fastest pass is a bound: it stays, unless the host now reads faster than it */
        if (*best[k] > 0 && *best[k] < *med[k]) *best[k] = *med[k];
        for (int p = 0; p < r.bw_points && p < SPMV_MACHINE_MAX_CORES; p++) curve[k][p] *= f;
    }
    spmv_status st = spmv_machine_check(&r);
    if (st) {
        char why[256];
        snprintf(why, sizeof why, "%s", spmv_last_error());
        return spmv__error(st, "%s: read_gbs = %g GB/s against the machine's %g at %d core%s: %s", fn, read_gbs, ref,
                           threads, threads == 1 ? "" : "s", why);
    }
    *m = r;
    return SPMV_OK;
}

static int is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

spmv_status spmv_machine_check(const spmv_machine *m)
{
    if (!m) return spmv__error(SPMV_ERR_ARG, "machine: argument m is NULL");
#define BAD(...) return spmv__error(SPMV_ERR_ARG, "machine: " __VA_ARGS__)
    if (!(m->clock_ghz > 0) || !isfinite(m->clock_ghz)) BAD("clock %g GHz is not positive", m->clock_ghz);
    if (m->sockets < 1) BAD("sockets %d < 1", m->sockets);
    if (m->cores_per_socket < 1) BAD("cores per socket %d < 1", m->cores_per_socket);
    if (m->cores_per_numa < 1 || m->cores_per_socket % m->cores_per_numa)
        BAD("cores per NUMA domain %d does not divide cores per socket %d", m->cores_per_numa, m->cores_per_socket);
    if (!is_pow2(m->cacheline)) BAD("cacheline size %d B is not a power of two", m->cacheline);
    if (m->simd_width < 1) BAD("SIMD width %d < 1", m->simd_width);
    const double lb[3] = {m->len_branch_miss_cy, m->len_branch_rows_learned, m->len_branch_rows_missed};
    static const char *const lbn[3] = {"length branch miss", "length branch learned rows", "length branch missed rows"};
    for (int i = 0; i < 3; i++)
        if (!(lb[i] >= 0) || !(lb[i] <= (i ? 1e12 : 1e6)))
            BAD("%s %g is negative, not finite or above %g", lbn[i], lb[i], i ? 1e12 : 1e6);
    if (!(m->nt_store_cost >= 0) || !(m->nt_store_cost <= 64))
        BAD("non-temporal store cost %g is negative, not finite or above 64", m->nt_store_cost);
    if ((m->len_branch_rows_learned > 0) != (m->len_branch_rows_missed > 0))
        BAD("length branch learned rows %g and missed rows %g: both 0 or both set", m->len_branch_rows_learned,
            m->len_branch_rows_missed);
    if (m->len_branch_rows_missed < m->len_branch_rows_learned)
        BAD("length branch missed rows %g below its learned rows %g", m->len_branch_rows_missed,
            m->len_branch_rows_learned);
    const double incore[] = {m->fma_latency, m->fma_rthroughput, m->add_latency, m->add_rthroughput,
                             m->mul_latency, m->mul_rthroughput, m->load_rthroughput, m->store_rthroughput,
                             m->gather_rthroughput, m->gather_index_penalty, m->hadd_latency, m->hadd_rthroughput,
                             m->bw_load, m->bw_copy, m->bw_triad, m->bw_load_best, m->bw_copy_best,
                             m->bw_triad_best, m->scalar_load_rthroughput,
                             m->masked_load_rthroughput, m->emul_gather_rthroughput, m->gather_lines_rthroughput[0],
                             m->gather_lines_rthroughput[1], m->gather_lines_rthroughput[2],
                             m->gather_lines_rthroughput[3], m->parallel_overhead, m->vidx_rthroughput,
                             m->xrand_ns[0][0], m->xrand_ns[0][1], m->xrand_ns[0][2], m->xrand_ns[0][3],
                             m->xrand_ns[1][0], m->xrand_ns[1][1], m->xrand_ns[1][2], m->xrand_ns[1][3]};
    for (size_t i = 0; i < sizeof incore / sizeof *incore; i++)
        if (!(incore[i] >= 0) || !isfinite(incore[i])) BAD("an in-core cost or bandwidth is negative or not finite");
    const double bwb[3][2] = {{m->bw_load_best, m->bw_load}, {m->bw_copy_best, m->bw_copy},
                              {m->bw_triad_best, m->bw_triad}};
    static const char *const bwn[3] = {"load", "copy", "triad"};
    for (int i = 0; i < 3; i++)
        if (bwb[i][0] > 0 && !(bwb[i][0] >= bwb[i][1] && bwb[i][1] > 0))
            BAD("saturated bandwidth %s fastest pass %g GB/s is below saturated bandwidth %s %g GB/s (or that is not "
                "measured)", bwn[i], bwb[i][0], bwn[i], bwb[i][1]);
    if (m->bw_points < 0 || m->bw_points > SPMV_MACHINE_MAX_CORES)
        BAD("%d bandwidth curve points, outside 0..%d", m->bw_points, SPMV_MACHINE_MAX_CORES);
    if (m->bw_bytes < 0) BAD("memory bandwidth working set %lld B is negative", (long long)m->bw_bytes);
    for (int32_t i = 0; i < m->bw_points; i++)
        if (!(m->bw_load_n[i] >= 0 && m->bw_copy_n[i] >= 0 && m->bw_triad_n[i] >= 0))
            BAD("bandwidth curve entry %d is negative", i + 1);
    if (m->nlevels < 2 || m->nlevels > SPMV_MACHINE_MAX_LEVELS)
        BAD("%d memory levels, outside 2..%d (caches and MEM)", m->nlevels, SPMV_MACHINE_MAX_LEVELS);
    for (int32_t i = 0; i < m->nlevels; i++) {
        const spmv_machine_level *l = &m->level[i];
        int mem = i == m->nlevels - 1;
        if (!memchr(l->name, '\0', sizeof l->name) || !l->name[0]) BAD("level %d has no name", i + 1);
        if (mem && strcmp(l->name, "MEM")) BAD("the last level is '%s', not MEM", l->name);
        if (!mem && !strcmp(l->name, "MEM")) BAD("MEM is level %d, not the last", i + 1);
        if (mem ? l->size != 0 : l->size < m->cacheline)
            BAD("level %s: cache size %lld B (caches: at least a line; MEM: 0)", l->name, (long long)l->size);
        if (l->ways < 0 || (mem && l->ways)) BAD("level %s: ways %d", l->name, l->ways);
        if (mem ? l->effective_size != 0 : (l->effective_size != 0 && (l->effective_size < m->cacheline ||
                                                                       l->effective_size > l->size)))
            BAD("level %s: effective size %lld B (caches: 0 or a line up to the cache size; MEM: 0)", l->name,
                (long long)l->effective_size);
        if (mem ? l->random_size != 0 : (l->random_size != 0 && (l->random_size < m->cacheline ||
                                                                 l->random_size > l->size)))
            BAD("level %s: random access size %lld B (caches: 0 or a line up to the cache size; MEM: 0)", l->name,
                (long long)l->random_size);
        if (l->cores_per_group < 1) BAD("level %s: cores per group %d < 1", l->name, l->cores_per_group);
        if (i > 0 && !(l->upstream_bw > 0)) BAD("level %s: upstream throughput %g B/cy is not positive", l->name,
                                                l->upstream_bw);
        if (!(l->upstream_bw >= 0 && l->upstream_write_bw >= 0) || !isfinite(l->upstream_bw) ||
            !isfinite(l->upstream_write_bw))
            BAD("level %s: negative throughput", l->name);
        if (l->overlap != SPMV_OVERLAP_NONE && l->overlap != SPMV_OVERLAP_FULL && l->overlap != SPMV_OVERLAP_A64FX)
            BAD("level %s: unknown overlap rule %d", l->name, (int)l->overlap);
    }
    if (!memchr(m->name, '\0', sizeof m->name)) BAD("model name is not terminated");
#undef BAD
    return SPMV_OK;
}

/* ---------------------------------------------------------------------------------------------- keys */

typedef enum kind { K_STR, K_INT, K_DBL, K_LIST, K_OVERLAP, K_LEVEL, K_VERSION } kind;
typedef enum unit { U_NONE, U_GHZ, U_BYTES, U_CY, U_BPC, U_GBS, U_DOUBLES, U_NS } unit;

typedef struct keydef {
    const char *key;
    kind k;
    unit u;
    size_t off;      /* offset in spmv_machine (top-level) or spmv_machine_level (level keys) */
    int required;
    const char *doc; /* the comment the writer puts after the value */
} keydef;

#define M(f) offsetof(spmv_machine, f)
#define L(f) offsetof(spmv_machine_level, f)
static const keydef top_keys[] = {
    {"spmv machine file", K_VERSION, U_NONE, 0, 0, "format version"},
    {"model name", K_STR, U_NONE, M(name), 1, NULL},
    {"clock", K_DBL, U_GHZ, M(clock_ghz), 1, "core clock (measured, not the TSC rate)"},
    {"sockets", K_INT, U_NONE, M(sockets), 1, NULL},
    {"cores per socket", K_INT, U_NONE, M(cores_per_socket), 1, NULL},
    {"cores per NUMA domain", K_INT, U_NONE, M(cores_per_numa), 1, "a contention domain (A64FX: one CMG)"},
    {"NUMA domains per socket", K_INT, U_NONE, 0, 0, "derived; checked when given"},
    {"cacheline size", K_INT, U_BYTES, M(cacheline), 1, NULL},
    {"SIMD width", K_INT, U_DOUBLES, M(simd_width), 1, "doubles per vector register"},
    {"FMA latency", K_DBL, U_CY, M(fma_latency), 1, NULL},
    {"FMA reciprocal throughput", K_DBL, U_CY, M(fma_rthroughput), 1, NULL},
    {"ADD latency", K_DBL, U_CY, M(add_latency), 1, NULL},
    {"ADD reciprocal throughput", K_DBL, U_CY, M(add_rthroughput), 1, NULL},
    {"MUL latency", K_DBL, U_CY, M(mul_latency), 1, NULL},
    {"MUL reciprocal throughput", K_DBL, U_CY, M(mul_rthroughput), 1, NULL},
    {"load reciprocal throughput", K_DBL, U_CY, M(load_rthroughput), 1, "contiguous vector load"},
    {"store reciprocal throughput", K_DBL, U_CY, M(store_rthroughput), 1, "contiguous vector store"},
    {"gather reciprocal throughput", K_DBL, U_CY, M(gather_rthroughput), 1, "irregular addresses"},
    {"gather index penalty", K_DBL, U_CY, M(gather_index_penalty), 1,
     "added per gather fed by an index load (replaces that load's cost)"},
    {"horizontal add latency", K_DBL, U_CY, M(hadd_latency), 1, NULL},
    {"horizontal add reciprocal throughput", K_DBL, U_CY, M(hadd_rthroughput), 1, NULL},
    {"scalar load reciprocal throughput", K_DBL, U_CY, M(scalar_load_rthroughput), 0,
     "optional: scalar load in a CRS entry's mix, index + 2 values (0: the vector load's)"},
    {"masked load reciprocal throughput", K_DBL, U_CY, M(masked_load_rthroughput), 0,
     "optional: masked unaligned vector load (0: the vector load's)"},
    {"emulated gather reciprocal throughput", K_DBL, U_CY, M(emul_gather_rthroughput), 0,
     "optional: SIMD-width scalar index and x loads + inserts"},
    {"value index reciprocal throughput", K_DBL, U_CY, M(vidx_rthroughput), 0,
     "optional: a vector of values through one-byte value indices and a 16-entry table (0: the vector load's)"},
    {"gather reciprocal throughput 1 line", K_DBL, U_CY, M(gather_lines_rthroughput[0]), 0,
     "optional: index load + gather, addresses in 1 cache line"},
    {"gather reciprocal throughput 2 lines", K_DBL, U_CY, M(gather_lines_rthroughput[1]), 0, "optional: in 2 lines"},
    {"gather reciprocal throughput 4 lines", K_DBL, U_CY, M(gather_lines_rthroughput[2]), 0, "optional: in 4 lines"},
    {"gather reciprocal throughput 8 lines", K_DBL, U_CY, M(gather_lines_rthroughput[3]), 0, "optional: in 8 lines"},
    {"random x line by gather 4 MiB", K_DBL, U_NS, M(xrand_ns[0][0]), 0,
     "optional: per element of x at a random line, x of 4 MiB, index load + hardware gather (0: at the bandwidths)"},
    {"random x line by gather 16 MiB", K_DBL, U_NS, M(xrand_ns[0][1]), 0, "optional: x of 16 MiB"},
    {"random x line by gather 64 MiB", K_DBL, U_NS, M(xrand_ns[0][2]), 0, "optional: x of 64 MiB"},
    {"random x line by gather 256 MiB", K_DBL, U_NS, M(xrand_ns[0][3]), 0, "optional: x of 256 MiB"},
    {"random x line by scalar loads 4 MiB", K_DBL, U_NS, M(xrand_ns[1][0]), 0,
     "optional: the same by the emulated gather's scalar loads"},
    {"random x line by scalar loads 16 MiB", K_DBL, U_NS, M(xrand_ns[1][1]), 0, "optional: x of 16 MiB"},
    {"random x line by scalar loads 64 MiB", K_DBL, U_NS, M(xrand_ns[1][2]), 0, "optional: x of 64 MiB"},
    {"random x line by scalar loads 256 MiB", K_DBL, U_NS, M(xrand_ns[1][3]), 0, "optional: x of 256 MiB"},
    {"length branch miss", K_DBL, U_CY, M(len_branch_miss_cy), 0,
     "optional: per change of a branch that follows the row (chunk) length, the library's CRS kernel at random and "
     "sorted row lengths (0: not charged)"},
    {"length branch learned rows", K_DBL, U_NONE, M(len_branch_rows_learned), 0,
     "optional: rows per core up to which the branch predictor learns the length branches (0: none learned)"},
    {"length branch missed rows", K_DBL, U_NONE, M(len_branch_rows_missed), 0,
     "optional: rows per core from which every change mispredicts (log-linear between the two)"},
    {"parallel region overhead", K_DBL, U_CY, M(parallel_overhead), 0,
     "optional: start and join of the library's thread team (spmv_team_overhead) on one NUMA domain's cores (added per multiply on > 1 thread)"},
    {"saturated bandwidth load", K_DBL, U_GBS, M(bw_load), 1, "one NUMA domain, read-only"},
    {"saturated bandwidth copy", K_DBL, U_GBS, M(bw_copy), 1, "one NUMA domain"},
    {"saturated bandwidth triad", K_DBL, U_GBS, M(bw_triad), 1, "one NUMA domain, write-allocate included"},
    {"saturated bandwidth load fastest pass", K_DBL, U_GBS, M(bw_load_best), 0, NULL},
    {"saturated bandwidth copy fastest pass", K_DBL, U_GBS, M(bw_copy_best), 0, NULL},
    {"saturated bandwidth triad fastest pass", K_DBL, U_GBS, M(bw_triad_best), 0, NULL},
    {"memory bandwidth load", K_LIST, U_GBS, M(bw_load_n), 0, "1, 2, ... cores of one NUMA domain, compact"},
    {"memory bandwidth copy", K_LIST, U_GBS, M(bw_copy_n), 0, NULL},
    {"memory bandwidth triad", K_LIST, U_GBS, M(bw_triad_n), 0, NULL},
    {"memory bandwidth working set", K_INT, U_BYTES, M(bw_bytes), 0,
     "optional: the bytes the bandwidth figures read (0: not given)"},
    {"non-temporal store cost", K_DBL, U_NONE, M(nt_store_cost), 0,
     "optional: a byte of y by non-temporal stores at the memory level, in write-back bytes, one core (0: 1)"},
    {"level", K_LEVEL, U_NONE, 0, 0, NULL},
};
static const keydef level_keys[] = {
    {"cache size", K_INT, U_BYTES, L(size), 0, NULL}, /* required for caches, absent for MEM */
    {"ways", K_INT, U_NONE, L(ways), 0, "associativity, 0 = fully associative"},
    {"effective size", K_INT, U_BYTES, L(effective_size), 0, "optional: measured usable capacity (0: cache size)"},
    {"random access size", K_INT, U_BYTES, L(random_size), 0,
     "optional: capacity for random accesses (0: effective size)"},
    {"cores per group", K_INT, U_NONE, L(cores_per_group), 1, "cores sharing one instance"},
    {"upstream throughput", K_DBL, U_BPC, L(upstream_bw), 1, NULL},
    {"upstream write throughput", K_DBL, U_BPC, L(upstream_write_bw), 0, "0 = same as upstream throughput"},
    {"transfers overlap", K_OVERLAP, U_NONE, L(overlap), 1, NULL},
};
#undef M
#undef L
enum { NTOP = sizeof top_keys / sizeof *top_keys, NLEV = sizeof level_keys / sizeof *level_keys };

/* ---------------------------------------------------------------------------------------------- reader */

typedef struct parser {
    const char *name;
    int line;
    spmv_machine *m;
} parser;

static spmv_status perr(const parser *p, const char *fmt, ...) SPMV_PRINTF(2, 3);
static spmv_status perr(const parser *p, const char *fmt, ...)
{
    char raw[400], msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    spmv__escape(msg, sizeof msg, raw, sizeof raw); /* text from the file: control bytes as \xHH, never raw */
    if (p->line > 0) return spmv__error(SPMV_ERR_PARSE, "%s:%d: %s", p->name, p->line, msg);
    return spmv__error(SPMV_ERR_PARSE, "%s: %s", p->name, msg);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

/* Scale factor of unit text u for the unit kind, or 0 when it does not fit. Empty text: 1. */
static double unit_scale(unit k, const char *u)
{
    if (!*u) return 1.0;
    switch (k) {
    case U_GHZ:
        if (!strcmp(u, "GHz")) return 1.0;
        if (!strcmp(u, "MHz")) return 1e-3;
        return 0.0;
    case U_BYTES: {
        static const struct { const char *u; double f; } t[] = {
            {"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
            {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
        for (size_t i = 0; i < sizeof t / sizeof *t; i++)
            if (!strcmp(u, t[i].u)) return t[i].f;
        return 0.0;
    }
    case U_CY: return !strcmp(u, "cy") || !strcmp(u, "cycles") ? 1.0 : 0.0;
    case U_BPC: return !strcmp(u, "B/cy") ? 1.0 : 0.0;
    case U_GBS: return !strcmp(u, "GB/s") ? 1.0 : 0.0;
    case U_DOUBLES: return !strcmp(u, "doubles") ? 1.0 : 0.0;
    case U_NS: return !strcmp(u, "ns") ? 1.0 : 0.0;
    case U_NONE: return 0.0;
    }
    return 0.0;
}

static const char *unit_text(unit k)
{
    switch (k) {
    case U_GHZ: return "GHz";
    case U_BYTES: return "B (or KiB, MiB, GiB, kB, MB, GB)";
    case U_CY: return "cy";
    case U_BPC: return "B/cy";
    case U_GBS: return "GB/s";
    case U_DOUBLES: return "doubles";
    case U_NS: return "ns";
    case U_NONE: return "no unit";
    }
    return "?";
}

/* A number with an optional unit; *out in the key's base unit. */
static spmv_status parse_number(const parser *p, const keydef *d, char *v, double *out)
{
    errno = 0;
    char *end;
    double x = strtod(v, &end);
    if (end == v || errno == ERANGE || !isfinite(x))
        return perr(p, "'%s': expected a number, got '%s'", d->key, v);
    char *u = trim(end);
    double f = unit_scale(d->u, u);
    if (f == 0.0) return perr(p, "'%s': unit '%s' is not %s", d->key, u, unit_text(d->u));
    if (x < 0) return perr(p, "'%s': negative value %s", d->key, v);
    *out = x * f;
    return SPMV_OK;
}

static spmv_status parse_int(const parser *p, const keydef *d, char *v, int64_t max, int64_t *out)
{
    double x = 0;
    spmv_status st = parse_number(p, d, v, &x);
    if (st) return st;
    if (x != floor(x) || x > (double)max) return perr(p, "'%s': expected an integer up to %lld, got '%s'", d->key,
                                                      (long long)max, v);
    *out = (int64_t)x;
    return SPMV_OK;
}

/* "[a, b, c] GB/s" or "[]" */
static spmv_status parse_list(const parser *p, const keydef *d, char *v, double *arr, int32_t *n)
{
    if (*v != '[') return perr(p, "'%s': expected a list [v1, v2, ...], got '%s'", d->key, v);
    char *close = strchr(v, ']');
    if (!close) return perr(p, "'%s': list without ']'", d->key);
    *close = '\0';
    char *u = trim(close + 1);
    if (unit_scale(d->u, u) != 1.0) return perr(p, "'%s': unit '%s' is not %s", d->key, u, unit_text(d->u));
    char *s = trim(v + 1);
    *n = 0;
    if (!*s) return SPMV_OK;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma) *comma = '\0';
        char *item = trim(s);
        if (*n >= SPMV_MACHINE_MAX_CORES)
            return perr(p, "'%s': more than %d entries", d->key, SPMV_MACHINE_MAX_CORES);
        errno = 0;
        char *end;
        double x = strtod(item, &end);
        if (end == item || *trim(end) || errno == ERANGE || !isfinite(x) || x < 0)
            return perr(p, "'%s': entry %d: expected a non-negative number, got '%s'", d->key, *n + 1, item);
        arr[(*n)++] = x;
        if (!comma) break;
        s = comma + 1;
    }
    return SPMV_OK;
}

static spmv_status parse_overlap(const parser *p, const keydef *d, const char *v, spmv_overlap *o)
{
    if (!strcmp(v, "none") || !strcmp(v, "false") || !strcmp(v, "False")) *o = SPMV_OVERLAP_NONE;
    else if (!strcmp(v, "full") || !strcmp(v, "true") || !strcmp(v, "True")) *o = SPMV_OVERLAP_FULL;
    else if (!strcmp(v, "a64fx-partial")) *o = SPMV_OVERLAP_A64FX;
    else return perr(p, "'%s': expected none, full or a64fx-partial (or false/true), got '%s'", d->key, v);
    return SPMV_OK;
}

/* Store a scalar value into the field at base + d->off. */
static spmv_status set_value(const parser *p, const keydef *d, char *v, char *base)
{
    spmv_status st = SPMV_OK;
    switch (d->k) {
    case K_INT: {
        int64_t x = 0;
        int64_t max = d->u == U_BYTES && (!strcmp(d->key, "cache size") || !strcmp(d->key, "effective size") ||
                                          !strcmp(d->key, "random access size") ||
                                          !strcmp(d->key, "memory bandwidth working set"))
                          ? INT64_MAX / 2
                          : INT32_MAX;
        if ((st = parse_int(p, d, v, max, &x))) return st;
        if (max == INT32_MAX) *(int32_t *)(base + d->off) = (int32_t)x;
        else *(int64_t *)(base + d->off) = x;
        break;
    }
    case K_DBL: {
        double x = 0;
        if ((st = parse_number(p, d, v, &x))) return st;
        *(double *)(base + d->off) = x;
        break;
    }
    case K_OVERLAP: return parse_overlap(p, d, v, (spmv_overlap *)(base + d->off));
    default: break;
    }
    return st;
}

spmv_status spmv_machine_parse(const char *text, const char *name, spmv_machine *out)
{
    if (!text || !out) return spmv__error(SPMV_ERR_ARG, "spmv_machine_parse: argument %s is NULL",
                                          text ? "m" : "text");
    if (!name) name = "<machine>";
    spmv_machine *m = spmv__malloc(sizeof *m);
    size_t tlen = strlen(text);
    char *buf = spmv__malloc(tlen + 1);
    spmv_status st = SPMV_OK;
    if (!m || !buf) {
        st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory", name);
        goto done;
    }
    memcpy(buf, text, tlen + 1);
    spmv_machine_init(m);
    parser P = {name, 0, m}, *p = &P;
    int seen_top[NTOP] = {0}, seen_lev[SPMV_MACHINE_MAX_LEVELS][NLEV];
    int32_t list_n[3] = {-1, -1, -1}, numa_per_socket = -1;
    memset(seen_lev, 0, sizeof seen_lev);
    int cur = -1; /* current level */
    char *s = buf;
    while (s && *s) {
        char *nl = strchr(s, '\n');
        if (nl) *nl = '\0';
        P.line++;
        char *hash = strchr(s, '#');
        if (hash) *hash = '\0';
        char *ln = trim(s);
        s = nl ? nl + 1 : NULL;
        if (!*ln) continue;
        char *colon = strchr(ln, ':');
        if (!colon) {
            st = perr(p, "expected 'key: value', got '%s'", ln);
            goto done;
        }
        *colon = '\0';
        char *key = trim(ln), *val = trim(colon + 1);
        /* level keys first (only inside a level), then top-level keys */
        int li = -1, ti = -1;
        for (int i = 0; i < NLEV; i++)
            if (!strcmp(key, level_keys[i].key)) li = i;
        for (int i = 0; i < NTOP; i++)
            if (!strcmp(key, top_keys[i].key)) ti = i;
        if (li >= 0) {
            const keydef *d = &level_keys[li];
            if (cur < 0) {
                st = perr(p, "'%s' outside a level (open one with 'level: NAME')", key);
                goto done;
            }
            if (seen_lev[cur][li]++) {
                st = perr(p, "duplicate key '%s' in level %s", key, m->level[cur].name);
                goto done;
            }
            if (!*val) {
                st = perr(p, "'%s' has no value", key);
                goto done;
            }
            if ((st = set_value(p, d, val, (char *)&m->level[cur]))) goto done;
            continue;
        }
        if (ti < 0) {
            st = perr(p, "unknown key '%s'", key);
            goto done;
        }
        const keydef *d = &top_keys[ti];
        if (d->k != K_LEVEL && seen_top[ti]++) {
            st = perr(p, "duplicate key '%s'", key);
            goto done;
        }
        if (!*val && d->k != K_LIST) {
            st = perr(p, "'%s' has no value", key);
            goto done;
        }
        switch (d->k) {
        case K_VERSION:
            if (strcmp(val, "1")) {
                st = perr(p, "machine file format '%s' is not supported (this library reads format 1)", val);
                goto done;
            }
            break;
        case K_STR:
            if (strlen(val) >= sizeof m->name) {
                st = perr(p, "'%s' longer than %zu characters", key, sizeof m->name - 1);
                goto done;
            }
            strcpy(m->name, val);
            break;
        case K_LEVEL:
            if (m->nlevels >= SPMV_MACHINE_MAX_LEVELS) {
                st = perr(p, "more than %d levels", SPMV_MACHINE_MAX_LEVELS);
                goto done;
            }
            if (cur >= 0 && !strcmp(m->level[cur].name, "MEM")) {
                st = perr(p, "level '%s' after MEM (MEM must be the last level)", val);
                goto done;
            }
            if (strlen(val) >= sizeof m->level[0].name || strpbrk(val, " \t")) {
                st = perr(p, "level name '%s' is longer than %zu characters or has blanks", val,
                          sizeof m->level[0].name - 1);
                goto done;
            }
            for (int i = 0; i < m->nlevels; i++)
                if (!strcmp(m->level[i].name, val)) {
                    st = perr(p, "duplicate level '%s'", val);
                    goto done;
                }
            cur = m->nlevels++;
            strcpy(m->level[cur].name, val);
            break;
        case K_LIST: {
            int li3 = !strcmp(key, "memory bandwidth load") ? 0 : !strcmp(key, "memory bandwidth copy") ? 1 : 2;
            if ((st = parse_list(p, d, val, (double *)((char *)m + d->off), &list_n[li3]))) goto done;
            int32_t n = list_n[li3];
            if (n > 0) {
                if (m->bw_points > 0 && n != m->bw_points) {
                    st = perr(p, "'%s' has %d entries, another bandwidth curve has %d", key, n, m->bw_points);
                    goto done;
                }
                m->bw_points = n;
            }
            break;
        }
        case K_INT:
            if (!strcmp(key, "NUMA domains per socket")) {
                int64_t x = 0;
                if ((st = parse_int(p, d, val, INT32_MAX, &x))) goto done;
                numa_per_socket = (int32_t)x;
                break;
            }
            /* fall through */
        default:
            if ((st = set_value(p, d, val, (char *)m))) goto done;
        }
    }
    P.line = 0;
    for (int i = 0; i < NTOP; i++)
        if (top_keys[i].required && !seen_top[i]) {
            st = perr(p, "missing key '%s'", top_keys[i].key);
            goto done;
        }
    for (int c = 0; c < m->nlevels; c++) {
        int mem = !strcmp(m->level[c].name, "MEM");
        for (int i = 0; i < NLEV; i++) {
            int req = level_keys[i].required || (!mem && (!strcmp(level_keys[i].key, "cache size") ||
                                                          !strcmp(level_keys[i].key, "ways")));
            if (req && !seen_lev[c][i]) {
                st = perr(p, "level %s: missing key '%s'", m->level[c].name, level_keys[i].key);
                goto done;
            }
            if (mem && seen_lev[c][i] && (!strcmp(level_keys[i].key, "cache size") ||
                                          !strcmp(level_keys[i].key, "ways") ||
                                          !strcmp(level_keys[i].key, "effective size") ||
                                          !strcmp(level_keys[i].key, "random access size"))) {
                st = perr(p, "level MEM: '%s' is for caches only", level_keys[i].key);
                goto done;
            }
        }
    }
    if (m->nlevels < 2 || strcmp(m->level[m->nlevels - 1].name, "MEM")) {
        st = perr(p, "the memory hierarchy needs cache levels and a last level 'MEM' (%d levels given)",
                  m->nlevels);
        goto done;
    }
    if (numa_per_socket >= 0 && m->cores_per_numa > 0 &&
        (int64_t)numa_per_socket * m->cores_per_numa != m->cores_per_socket) {
        st = perr(p, "NUMA domains per socket %d times cores per NUMA domain %d is not cores per socket %d",
                  numa_per_socket, m->cores_per_numa, m->cores_per_socket);
        goto done;
    }
    if (spmv_machine_check(m)) {
        char why[400];
        snprintf(why, sizeof why, "%s", spmv_last_error());
        st = perr(p, "%s", why);
        goto done;
    }
    *out = *m;
done:
    spmv__free(buf);
    spmv__free(m);
    return st;
}

spmv_status spmv_machine_read(const char *path, spmv_machine *m)
{
    if (!path || !m) return spmv__error(SPMV_ERR_ARG, "spmv_machine_read: argument %s is NULL", path ? "m" : "path");
    FILE *f = fopen(path, "rb");
    if (!f) return spmv__error(SPMV_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t n = 0, cap = 0;
    spmv_status st = SPMV_OK;
    for (;;) {
        if (cap - n < 4096) {
            if (cap > ((size_t)64 << 20)) {
                st = spmv__error(SPMV_ERR_PARSE, "%s: larger than 64 MiB, not a machine file", path);
                goto done;
            }
            size_t ncap = cap ? 2 * cap : 8192;
            char *t = spmv__malloc(ncap + 1);
            if (!t) {
                st = spmv__error(SPMV_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
            if (n) memcpy(t, text, n);
            spmv__free(text);
            text = t;
            cap = ncap;
        }
        size_t r = fread(text + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) {
        st = spmv__error(SPMV_ERR_IO, "%s: read error", path);
        goto done;
    }
    text[n] = '\0';
    if (memchr(text, '\0', n)) {
        st = spmv__error(SPMV_ERR_PARSE, "%s: contains a NUL byte, not a text file", path);
        goto done;
    }
    st = spmv_machine_parse(text, path, m);
done:
    fclose(f);
    spmv__free(text);
    return st;
}

/* ---------------------------------------------------------------------------------------------- writer */

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

/* Shortest %g text that reads back to the same double. */
static const char *num(char *b, double x)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(b, 32, "%.*g", prec, x);
        if (strtod(b, NULL) == x) break;
    }
    return b;
}

static const char *size_text(char *b, int64_t bytes)
{
    if (bytes >= 1073741824 && bytes % 1073741824 == 0) snprintf(b, 32, "%lld GiB", (long long)(bytes >> 30));
    else if (bytes >= 1048576 && bytes % 1048576 == 0) snprintf(b, 32, "%lld MiB", (long long)(bytes >> 20));
    else if (bytes >= 1024 && bytes % 1024 == 0) snprintf(b, 32, "%lld KiB", (long long)(bytes >> 10));
    else snprintf(b, 32, "%lld B", (long long)bytes);
    return b;
}

/* every point of the curves (zeros included: "[0]" reads back as one point, so write -> read -> write is exact) */
static void put_list(out *o, const char *key, const double *a, int32_t n)
{
    char b[32];
    put(o, "%s: [", key);
    for (int32_t i = 0; i < n; i++) put(o, "%s%s", i ? ", " : "", num(b, a[i]));
    put(o, "] GB/s\n");
}

int spmv_machine_format(const spmv_machine *m, char *buf, size_t size)
{
    if (!m || (!buf && size)) {
        spmv__error(SPMV_ERR_ARG, "spmv_machine_format: argument %s is NULL", m ? "buf" : "m");
        return -1;
    }
    if (spmv_machine_check(m)) return -1;
    out O = {buf, size, 0}, *o = &O;
    char b[32];
    if (size) buf[0] = '\0';
    put(o, "# spmv machine file (format: machines/TEMPLATE.machine). Units: cy = core cycles, B = bytes.\n");
    put(o, "spmv machine file: 1\n");
    put(o, "model name: %s\n", m->name);
    put(o, "clock: %s GHz\n", num(b, m->clock_ghz));
    put(o, "sockets: %d\n", m->sockets);
    put(o, "cores per socket: %d\n", m->cores_per_socket);
    put(o, "cores per NUMA domain: %d\n", m->cores_per_numa);
    put(o, "NUMA domains per socket: %d\n", m->cores_per_socket / m->cores_per_numa);
    put(o, "cacheline size: %d B\n", m->cacheline);
    put(o, "\n# in-core, per vector instruction (0 = not measured)\n");
    put(o, "SIMD width: %d doubles\n", m->simd_width);
    for (int i = 0; i < NTOP; i++) {
        const keydef *d = &top_keys[i];
        if (d->k != K_DBL || (d->u != U_CY && d->u != U_NONE)) continue; /* cycles, and the length branches' rows */
        if (d->off == offsetof(spmv_machine, nt_store_cost)) continue; /* with the memory's figures below */
        put(o, "%s: %s%s", d->key, num(b, *(const double *)((const char *)m + d->off)), d->u == U_CY ? " cy" : "");
        put(o, d->doc ? "   # %s\n" : "\n", d->doc ? d->doc : "");
    }
    put(o, "\n# x at random lines, ns per element (0 = not measured: the model charges x's lines at the bandwidths)\n");
    for (int i = 0; i < NTOP; i++) {
        const keydef *d = &top_keys[i];
        if (d->k != K_DBL || d->u != U_NS) continue;
        put(o, "%s: %s ns", d->key, num(b, *(const double *)((const char *)m + d->off)));
        put(o, d->doc ? "   # %s\n" : "\n", d->doc ? d->doc : "");
    }
    put(o, "\n# memory bandwidth of one NUMA domain, GB/s (0 = not measured; spmv-machine: the median of its passes, the "
           "ECM's)\n");
    put(o, "saturated bandwidth load: %s GB/s\n", num(b, m->bw_load));
    put(o, "saturated bandwidth copy: %s GB/s\n", num(b, m->bw_copy));
    put(o, "saturated bandwidth triad: %s GB/s\n", num(b, m->bw_triad));
    put(o, "# optional: the fastest pass of each, the roofline's (a bound; 0 = the figures above)\n");
    put(o, "saturated bandwidth load fastest pass: %s GB/s\n", num(b, m->bw_load_best));
    put(o, "saturated bandwidth copy fastest pass: %s GB/s\n", num(b, m->bw_copy_best));
    put(o, "saturated bandwidth triad fastest pass: %s GB/s\n", num(b, m->bw_triad_best));
    put(o, "# against cores 1, 2, ... of one NUMA domain (compact pinning); [] = not measured\n");
    put_list(o, "memory bandwidth load", m->bw_load_n, m->bw_points);
    put_list(o, "memory bandwidth copy", m->bw_copy_n, m->bw_points);
    put_list(o, "memory bandwidth triad", m->bw_triad_n, m->bw_points);
    if (m->bw_bytes)
        put(o, "memory bandwidth working set: %s   # optional: the bytes the bandwidth figures read\n",
            size_text(b, m->bw_bytes));
    for (int i = 0; i < NTOP && m->nt_store_cost != 0.0; i++)
        if (top_keys[i].off == offsetof(spmv_machine, nt_store_cost))
            put(o, "%s: %s   # %s\n", top_keys[i].key, num(b, m->nt_store_cost), top_keys[i].doc);
    put(o, "\n# memory hierarchy from the core; upstream = towards the core; the last level is MEM\n");
    for (int32_t i = 0; i < m->nlevels; i++) {
        const spmv_machine_level *l = &m->level[i];
        int mem = i == m->nlevels - 1;
        put(o, "level: %s\n", l->name);
        if (!mem) {
            put(o, "  cache size: %s\n", size_text(b, l->size));
            put(o, "  ways: %d\n", l->ways);
            if (l->effective_size) put(o, "  effective size: %s\n", size_text(b, l->effective_size));
            if (l->random_size) put(o, "  random access size: %s\n", size_text(b, l->random_size));
        }
        put(o, "  cores per group: %d\n", l->cores_per_group);
        put(o, "  upstream throughput: %s B/cy\n", num(b, l->upstream_bw));
        if (l->upstream_write_bw != 0.0) put(o, "  upstream write throughput: %s B/cy\n", num(b, l->upstream_write_bw));
        put(o, "  transfers overlap: %s\n", spmv_overlap_name(l->overlap));
    }
    return O.len > (size_t)INT32_MAX ? -1 : (int)O.len;
}

spmv_status spmv_machine_write(const spmv_machine *m, const char *path)
{
    if (!m || !path) return spmv__error(SPMV_ERR_ARG, "spmv_machine_write: argument %s is NULL", m ? "path" : "m");
    spmv_status st = spmv_machine_check(m);
    if (st) return st;
    int n = spmv_machine_format(m, NULL, 0);
    if (n < 0) return SPMV_ERR_ARG;
    char *text = spmv__malloc((size_t)n + 1);
    if (!text) return spmv__error(SPMV_ERR_NOMEM, "%s: out of memory", path);
    spmv_machine_format(m, text, (size_t)n + 1);
    /* through a temporary file renamed over path on success (src/util/outfile.c) */
    spmv__outfile o;
    char msg[600];
    if (spmv__out_open(&o, path, msg, sizeof msg)) {
        st = spmv__error(SPMV_ERR_IO, "%s", msg);
    } else {
        fwrite(text, 1, (size_t)n, o.f);
        if (spmv__out_commit(&o, msg, sizeof msg)) st = spmv__error(SPMV_ERR_IO, "%s", msg);
    }
    spmv__free(text);
    return st;
}
