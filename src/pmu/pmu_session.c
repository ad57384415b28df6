/* Which events measure what on this CPU (recipes), and the passes that count them (pmu.h). */
#define _GNU_SOURCE
#include "pmu.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* ---------------------------------------------------------------------------------------------- this CPU */

typedef struct cpu_id {
    int intel, amd;
    unsigned family, model; /* display family / model, as /proc/cpuinfo */
} cpu_id;

static cpu_id cpu_get(void)
{
    cpu_id c = {0, 0, 0, 0};
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, cx, d;
    if (!__get_cpuid(0, &a, &b, &cx, &d)) return c;
    c.intel = b == 0x756e6547u && d == 0x49656e69u && cx == 0x6c65746eu; /* GenuineIntel */
    c.amd = b == 0x68747541u && d == 0x69746e65u && cx == 0x444d4163u;   /* AuthenticAMD */
    if (!__get_cpuid(1, &a, &b, &cx, &d)) return c;
    unsigned fam = (a >> 8) & 0xf, mod = (a >> 4) & 0xf;
    if (fam == 0xf) fam += (a >> 20) & 0xff;
    if (fam == 0x6 || fam >= 0xf) mod |= ((a >> 16) & 0xf) << 4;
    c.family = fam;
    c.model = mod;
#endif
    return c;
}

/* Intel server cores with the Sapphire Rapids event codes that libpfm4 4.13 (Debian 12) has no table for:
 * Emerald Rapids (model 207) and Granite Rapids (173, 174); newer libpfm4 maps them to its spr/gnr tables. */
static int intel_newer_than_tables(const cpu_id *c)
{
    return c->intel && c->family == 6 && (c->model == 207 || c->model == 173 || c->model == 174);
}

/* AMD family 1Ah (Zen 5): libpfm4 4.13 has no table; the codes below are those of libpfm4's later
 * amd64_fam1ah_zen5 table (same event numbers as Zen 4). */
static int amd_zen5(const cpu_id *c) { return c->amd && c->family == 0x1a; }

/* ---------------------------------------------------------------------------------------------- recipes */

typedef enum rkind {
    R_IPC,
    R_FLOPS_INTEL,
    R_FLOPS_AMD,
    R_TD_INTEL_METRICS,
    R_TD_INTEL_SLOTS,
    R_TD_INTEL4,
    R_TD_AMD
} rkind;

typedef enum rawrule {
    RAW_NEVER,
    RAW_INTEL_NEW,           /* Emerald / Granite Rapids */
    RAW_ANCHOR_OR_INTEL_NEW, /* event 0 resolved by name (the CPU has this recipe's counters), or the above */
    RAW_AMD_ZEN5
} rawrule;

typedef enum rvendor { V_ANY, V_INTEL, V_AMD } rvendor;

typedef struct recipe {
    rvendor vendor;    /* tried only on this vendor's CPUs */
    const char *what;  /* "IPC", "flops", "top-down" */
    rkind kind;
    const char *label; /* printed with the figures */
    int n;
    const char *ev[PMU_MAX_EVENTS]; /* libpfm4 names, alternatives separated by '|' */
    uint64_t raw[PMU_MAX_EVENTS];   /* PERF_TYPE_RAW code of the same event, 0: none */
    unsigned optional;              /* bit i: event i may be absent (counts 0) */
    rawrule rule;
    unsigned rawonly;               /* bit i: event i only by its raw code (ev[i] is its name for messages) */
} recipe;

#define FPA "FP_ARITH:"
#define FPB "FP_ARITH_INST_RETIRED:"
static const recipe recipes[] = {
    {V_ANY, "IPC", R_IPC, "cycles and instructions", 2, {"cycles", "instructions"}, {0}, 0, RAW_NEVER, 0},
    /* Intel Broadwell and later: event C7H, umasks 01H/04H/10H/40H (Intel SDM vol. 3B; libpfm4 skx/icl/spr) */
    {V_INTEL, "flops", R_FLOPS_INTEL, "Intel FP_ARITH_INST_RETIRED.{SCALAR,128B,256B,512B_PACKED}_DOUBLE x 1/2/4/8", 4,
     {FPA "SCALAR_DOUBLE|" FPB "SCALAR_DOUBLE", FPA "128B_PACKED_DOUBLE|" FPB "128B_PACKED_DOUBLE",
      FPA "256B_PACKED_DOUBLE|" FPB "256B_PACKED_DOUBLE", FPA "512B_PACKED_DOUBLE|" FPB "512B_PACKED_DOUBLE"},
     {0x01c7, 0x04c7, 0x10c7, 0x40c7}, 0xe /* the packed widths a core lacks */, RAW_INTEL_NEW, 0},
    /* AMD Zen 2 to 5: PMCx003 with every operation type (umasks 01H-08H); a MAC counts 2 */
    {V_AMD, "flops", R_FLOPS_AMD, "AMD RETIRED_SSE_AVX_FLOPS (flops, a MAC counted twice)", 1,
     {"RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS:MULT_FLOPS:DIV_FLOPS:MAC_FLOPS"}, {0x0f03}, 0, RAW_AMD_ZEN5, 0},
    /* Intel Icelake and later: slots (fixed counter 3) and the PERF_METRICS pseudo events of Linux (0x80-0x83 in
     * the umask byte: retiring, bad speculation, front-end bound, back-end bound); one group led by slots */
    {V_INTEL, "top-down", R_TD_INTEL_METRICS, "Intel TOPDOWN.SLOTS and PERF_METRICS", 5,
     {"TOPDOWN_M:SLOTS|TOPDOWN:SLOTS", "TOPDOWN_M:RETIRING", "TOPDOWN_M:BAD_SPEC", "TOPDOWN_M:FRONTEND_BOUND",
      "TOPDOWN_M:BACKEND_BOUND"},
     {0x0400, 0x8000, 0x8100, 0x8200, 0x8300}, 0, RAW_ANCHOR_OR_INTEL_NEW, 0},
    /* Icelake and later on general counters: back-end bound is TOPDOWN.BACKEND_BOUND_SLOTS (A4H/02H; libpfm4 4.13
     * encodes it without its event code), bad speculation the residual as in Intel's TMA for Icelake */
    {V_INTEL, "top-down", R_TD_INTEL_SLOTS, "Intel TOPDOWN.SLOTS, general counters", 4,
     {"TOPDOWN:SLOTS", "UOPS_RETIRED:SLOTS", "IDQ_UOPS_NOT_DELIVERED:CORE", "TOPDOWN.BACKEND_BOUND_SLOTS"},
     {0x0400, 0x02c2, 0x019c, 0x02a4}, 0, RAW_ANCHOR_OR_INTEL_NEW, 0x8},
    /* Sandy Bridge to Cascade Lake: 4 slots per cycle */
    {V_INTEL, "top-down", R_TD_INTEL4, "Intel 4 slots per cycle", 5,
     {"CPU_CLK_UNHALTED:THREAD_P|CPU_CLK_THREAD_UNHALTED:THREAD_P", "IDQ_UOPS_NOT_DELIVERED:CORE", "UOPS_ISSUED:ANY",
      "UOPS_RETIRED:RETIRE_SLOTS", "INT_MISC:RECOVERY_CYCLES"},
     {0}, 0, RAW_NEVER, 0},
    /* AMD Zen 4 / Zen 5: dispatch slots (PMCx076, PMCx1A0, PMCx0AA, PMCx0C1) */
    {V_AMD, "top-down", R_TD_AMD, "AMD dispatch slots", 5,
     {"CYCLES_NOT_IN_HALT", "DISPATCH_STALLS_1:FE_NO_OPS", "DISPATCH_STALLS_1:BE_STALLS",
      "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER|OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:"
      "OPCACHE",
      "RETIRED_OPS"},
     {0x0076, 0x1000001a0ull, 0x100001ea0ull, 0x03aa, 0x00c1}, 0, RAW_AMD_ZEN5, 0},
};
#define NRECIPES ((int)(sizeof recipes / sizeof recipes[0]))

int pmu_recipe_info(int k, const char **vendor, const char **what, const char **label, int *n, const char *const **ev,
                    const uint64_t **raw, unsigned *rawonly)
{
    if (k < 0 || k >= NRECIPES) return 0;
    const recipe *r = &recipes[k];
    if (vendor) *vendor = r->vendor == V_INTEL ? "intel" : r->vendor == V_AMD ? "amd" : "any";
    if (what) *what = r->what;
    if (label) *label = r->label;
    if (n) *n = r->n;
    if (ev) *ev = r->ev;
    if (raw) *raw = r->raw;
    if (rawonly) *rawonly = r->rawonly;
    return 1;
}

/* ---------------------------------------------------------------------------------------------- session */

typedef struct pass {
    const recipe *r;
    pmu_group *g;
    int map[PMU_MAX_EVENTS]; /* recipe event -> group event, -1 absent */
    int width;               /* AMD dispatch slots per cycle */
    int ran;
    char events[5 * PMU_NAME_LEN];
} pass;

struct pmu_session {
    int nthreads;
    int npass;
    pass p[3];
    char notes[1024];
};

static void cat(char *buf, size_t n, const char *fmt, ...)
{
    size_t k = strlen(buf);
    if (k + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + k, n - k, fmt, ap);
    va_end(ap);
}

/* The first alternative of an event spec (the name libpfm4 did not know, for the list of events tried), or the
 * last one (the name that goes with the raw code). */
static void alt_name(const char *spec, int last, char *out, size_t n)
{
    if (last && strrchr(spec, '|')) spec = strrchr(spec, '|') + 1;
    size_t k = strcspn(spec, "|");
    if (k >= n) k = n - 1;
    memcpy(out, spec, k);
    out[k] = '\0';
}

/* Build and open recipe r's group; on failure return the status and the reason in why. tried (length ntried)
 * receives the events as tried: resolved names, raw codes, or the first name libpfm4 did not know. */
static pmu_status try_recipe(const recipe *r, const cpu_id *cpu, int nthreads, pass *ps, char *why, size_t nwhy,
                             char *tried, size_t ntried)
{
    tried[0] = '\0';
    uint32_t type[PMU_MAX_EVENTS];
    uint64_t config[PMU_MAX_EVENTS];
    char name[PMU_MAX_EVENTS][PMU_NAME_LEN];
    const char *np[PMU_MAX_EVENTS];
    int m = 0, anchor_named = 0, any_raw = 0;
    memset(ps, 0, sizeof *ps);
    ps->r = r;
    for (int i = 0; i < r->n; i++) {
        char w[256] = "";
        ps->map[i] = -1;
        pmu_status st = PMU_ERR_EVENT;
        if (r->rawonly & (1u << i))
            snprintf(w, sizeof w, "%s: only as a raw code, which this CPU is not known to have", r->ev[i]);
        else
            st = pmu_resolve(r->ev[i], 0, &type[m], &config[m], name[m], sizeof name[m], w, sizeof w);
        if (st == PMU_ERR_NOLIB) {
            snprintf(why, nwhy, "%s", w);
            return st;
        }
        if (!st) {
            if (i == 0) anchor_named = 1;
        } else {
            int raw_ok = r->raw[i] && (r->rule == RAW_INTEL_NEW ? intel_newer_than_tables(cpu)
                                       : r->rule == RAW_ANCHOR_OR_INTEL_NEW ? anchor_named ||
                                                                              intel_newer_than_tables(cpu)
                                       : r->rule == RAW_AMD_ZEN5 ? amd_zen5(cpu)
                                                                 : 0);
            if (raw_ok) {
                char fn[PMU_NAME_LEN];
                alt_name(r->ev[i], 1, fn, sizeof fn);
                type[m] = PERF_TYPE_RAW;
                config[m] = r->raw[i];
                snprintf(name[m], sizeof name[m], "%.120s (raw 0x%llx)", fn, (unsigned long long)r->raw[i]);
                any_raw = 1;
            } else if (r->optional & (1u << i)) {
                continue;
            } else {
                char fn[PMU_NAME_LEN];
                alt_name(r->ev[i], 0, fn, sizeof fn);
                cat(tried, ntried, "%s%s", m ? ", " : "", fn);
                snprintf(why, nwhy, "%s", w);
                return st;
            }
        }
        cat(tried, ntried, "%s%s", m ? ", " : "", name[m]);
        np[m] = name[m];
        ps->map[i] = m++;
    }
    pmu_status st = pmu_group_new_raw(type, config, np, m, 0, &ps->g, why, nwhy);
    if (!st) st = pmu_group_open(ps->g, nthreads, why, nwhy);
    if (st) {
        pmu_group_free(ps->g);
        ps->g = NULL;
        return st;
    }
    ps->width = cpu->family == 0x1a ? 8 : 6; /* AMD Zen 5 dispatches 8 ops per cycle, Zen 4 6 */
    if (r->kind == R_TD_AMD && strstr(name[0], "zen5")) ps->width = 8;
    for (int k = 0; k < m; k++) cat(ps->events, sizeof ps->events, "%s%s", k ? ", " : "", name[k]);
    if (any_raw) cat(ps->events, sizeof ps->events, " [raw codes where libpfm4 has no usable name]");
    return PMU_OK;
}

static const char *status_short(pmu_status st)
{
    switch (st) {
    case PMU_ERR_EVENT:
        return "not in libpfm4's tables for this CPU";
    case PMU_ERR_ABSENT:
        return "no such counter";
    case PMU_ERR_FORBIDDEN:
        return "not permitted";
    case PMU_ERR_BUSY:
        return "counters busy";
    default:
        return "failed";
    }
}

static int severity(pmu_status st)
{
    switch (st) {
    case PMU_ERR_FORBIDDEN:
        return 5;
    case PMU_ERR_ABSENT:
        return 4;
    case PMU_ERR_BUSY:
    case PMU_ERR_SYS:
        return 3;
    case PMU_ERR_EVENT:
        return 2;
    default:
        return 1;
    }
}

pmu_status pmu_session_open(int nthreads, pmu_session **s, char *why, size_t nwhy)
{
    if (s) *s = NULL;
    if (!s || nthreads < 1 || nthreads > PMU_MAX_THREADS) {
        if (why && nwhy) snprintf(why, nwhy, "pmu_session_open: bad arguments (nthreads %d)", nthreads);
        return PMU_ERR_ARG;
    }
    if (!pmu_built()) {
        if (why && nwhy)
            snprintf(why, nwhy, "spmv was built without libpfm4 (Debian: libpfm4-dev; reconfigure and rebuild), so "
                                "there is no counting layer");
        return PMU_ERR_NOLIB;
    }
    pmu_session *S = calloc(1, sizeof *S);
    if (!S) {
        if (why && nwhy) snprintf(why, nwhy, "out of memory");
        return PMU_ERR_NOMEM;
    }
    S->nthreads = nthreads;
    const cpu_id cpu = cpu_get();
    char tried[4096] = "", first_why[512] = "";
    pmu_status worst = PMU_ERR_EVENT;
    static const char *whats[3] = {"IPC", "flops", "top-down"};
    for (int w = 0; w < 3; w++) {
        int done = 0;
        char fails[1024] = "";
        for (int k = 0; k < NRECIPES && !done; k++) {
            const recipe *r = &recipes[k];
            if (strcmp(r->what, whats[w])) continue;
            if ((r->vendor == V_INTEL && !cpu.intel) || (r->vendor == V_AMD && !cpu.amd)) continue;
            char reason[512] = "", as_tried[5 * PMU_NAME_LEN];
            pmu_status st =
                try_recipe(r, &cpu, nthreads, &S->p[S->npass], reason, sizeof reason, as_tried, sizeof as_tried);
            if (st == PMU_ERR_NOLIB) {
                if (why && nwhy) snprintf(why, nwhy, "%s", reason);
                pmu_session_free(S);
                return st;
            }
            if (!st) {
                S->npass++;
                done = 1;
                break;
            }
            if (!first_why[0] || severity(st) > severity(worst)) {
                worst = st;
                snprintf(first_why, sizeof first_why, "%s", reason);
            }
            cat(fails, sizeof fails, "%s%s: %s", fails[0] ? "; " : "", r->label, reason);
            cat(tried, sizeof tried, "%s%s [%s]", tried[0] ? "; " : "", as_tried, status_short(st));
        }
        if (!done)
            cat(S->notes, sizeof S->notes, "%s%s (%s)", S->notes[0] ? "; " : "", whats[w],
                fails[0] ? fails : "no recipe for this CPU's vendor");
    }
    if (S->npass == 0) {
        if (why && nwhy) snprintf(why, nwhy, "%s; events tried: %s", first_why, tried);
        pmu_session_free(S);
        return worst;
    }
    *s = S;
    return PMU_OK;
}

int pmu_session_passes(const pmu_session *s) { return s ? s->npass : 0; }

const char *pmu_session_pass_name(const pmu_session *s, int p)
{
    return s && p >= 0 && p < s->npass ? s->p[p].r->what : "";
}

pmu_status pmu_session_begin(pmu_session *s, int p)
{
    if (!s || p < 0 || p >= s->npass) return PMU_ERR_ARG;
    return pmu_group_start(s->p[p].g);
}

pmu_status pmu_session_end(pmu_session *s, int p)
{
    if (!s || p < 0 || p >= s->npass) return PMU_ERR_ARG;
    pmu_status st = pmu_group_stop(s->p[p].g);
    if (!st) s->p[p].ran = 1;
    return st;
}

pmu_status pmu_session_result(const pmu_session *s, pmu_result *r, char *why, size_t nwhy)
{
    if (!s || !r) return PMU_ERR_ARG;
    memset(r, 0, sizeof *r);
    r->threads = s->nthreads;
    r->running = 1;
    snprintf(r->notes, sizeof r->notes, "%s", s->notes);
    for (int p = 0; p < s->npass; p++) {
        const pass *ps = &s->p[p];
        if (!ps->ran) continue;
        double g[PMU_MAX_EVENTS], v[PMU_MAX_EVENTS], run = 1;
        pmu_status st = pmu_group_read(ps->g, g, &run, NULL);
        if (st) {
            if (why && nwhy)
                snprintf(why, nwhy, "%s: reading the counters failed%s", ps->r->label,
                         st == PMU_ERR_BUSY ? ": the group never got its counters (taken by another user, e.g. the "
                                              "NMI watchdog: /proc/sys/kernel/nmi_watchdog)"
                                            : "");
            return st;
        }
        if (run < r->running) r->running = run;
        for (int i = 0; i < ps->r->n; i++) v[i] = ps->map[i] >= 0 ? g[ps->map[i]] : 0;
        switch (ps->r->kind) {
        case R_IPC:
            r->have_ipc = 1;
            r->cycles = v[0];
            r->instructions = v[1];
            snprintf(r->ipc_events, sizeof r->ipc_events, "%s", ps->events);
            break;
        case R_FLOPS_INTEL: {
            pmu_fp_arith c = {v[0], v[1], v[2], v[3]};
            r->flops = pmu_flops_fp_arith(&c);
            r->have_flops = r->flops >= 0;
            break;
        }
        case R_FLOPS_AMD:
            r->flops = v[0];
            r->have_flops = 1;
            break;
        case R_TD_INTEL_METRICS:
            r->have_topdown = !pmu_topdown_from_slots(v[0], v[1], v[2], v[3], v[4], &r->td);
            break;
        case R_TD_INTEL_SLOTS:
            r->have_topdown = !pmu_topdown_from_slots(v[0], v[1], -1, v[2], v[3], &r->td);
            break;
        case R_TD_INTEL4:
            r->have_topdown = !pmu_topdown_intel4(v[0], v[1], v[2], v[3], v[4], &r->td);
            break;
        case R_TD_AMD:
            r->have_topdown = !pmu_topdown_amd(v[0], ps->width, v[1], v[2], v[3], v[4], &r->td);
            break;
        }
        if (ps->r->kind == R_FLOPS_INTEL || ps->r->kind == R_FLOPS_AMD) {
            snprintf(r->flops_recipe, sizeof r->flops_recipe, "%s", ps->r->label);
            snprintf(r->flops_events, sizeof r->flops_events, "%s", ps->events);
        } else if (ps->r->kind != R_IPC) {
            if (ps->r->kind == R_TD_AMD)
                snprintf(r->topdown_recipe, sizeof r->topdown_recipe, "%s, %d per cycle", ps->r->label, ps->width);
            else
                snprintf(r->topdown_recipe, sizeof r->topdown_recipe, "%s", ps->r->label);
            snprintf(r->topdown_events, sizeof r->topdown_events, "%s", ps->events);
            if (!r->have_topdown)
                cat(r->notes, sizeof r->notes, "%stop-down: no slots counted (cycles or slots 0)",
                    r->notes[0] ? "; " : "");
        }
    }
    return PMU_OK;
}

void pmu_session_free(pmu_session *s)
{
    if (!s) return;
    for (int p = 0; p < s->npass; p++) pmu_group_free(s->p[p].g);
    free(s);
}
