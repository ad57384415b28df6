/* Counted, not only modelled: hardware performance counters around a code region (issue 19).
 *
 * perf_event_open(2) with event names resolved by libpfm4 (Debian: libpfm4-dev), so that one name list serves
 * every CPU libpfm4 knows: counted double-precision flops (Intel FP_ARITH_INST_RETIRED, AMD RETIRED_SSE_AVX_FLOPS),
 * cycles and instructions (IPC), and top-down level 1 (Intel: pipeline slots; AMD Zen 4/5: dispatch slots).
 * One counter group per OpenMP thread, opened before and enabled only around the measured loop.
 *
 * Internal to the tools and tests (spmv-bench --pmu, spmv-tune --pmu): not part of libspmv, nothing here is
 * exported. Never prints; a failure comes back as a pmu_status and a one-line reason in the caller's buffer.
 * Built without libpfm4 (CMake did not find it), the formulas work and every counting call returns PMU_ERR_NOLIB
 * with a message saying so. */
#ifndef SPMV_PMU_H
#define SPMV_PMU_H

#include <stddef.h>
#include <stdint.h>

typedef enum pmu_status {
    PMU_OK = 0,
    PMU_ERR_ARG = -1,       /* NULL, a count out of range, a negative or non-finite event count, zero slots */
    PMU_ERR_NOMEM = -2,     /* an allocation failed */
    PMU_ERR_NOLIB = -3,     /* spmv was built without libpfm4: no counting layer */
    PMU_ERR_EVENT = -4,     /* libpfm4 knows none of an event's names on this CPU */
    PMU_ERR_ABSENT = -5,    /* the kernel has no such counter (ENOENT, EOPNOTSUPP, ENODEV): no PMU, e.g. a VM */
    PMU_ERR_FORBIDDEN = -6, /* EACCES / EPERM: perf_event_paranoid, missing CAP_PERFMON, or a seccomp filter */
    PMU_ERR_BUSY = -7,      /* the group was never scheduled (time running 0): counters taken by someone else */
    PMU_ERR_SYS = -8        /* another perf_event_open / read / ioctl failure (the message has errno's text) */
} pmu_status;

enum {
    PMU_MAX_EVENTS = 8,   /* events per group (unit: events) */
    PMU_NAME_LEN = 160,   /* an event's resolved name, with libpfm4's PMU prefix (unit: bytes) */
    PMU_MAX_THREADS = 4096
};

/* ============================================================================================== formulas */

/* Counts of Intel's FP_ARITH_INST_RETIRED double-precision umasks (events, not yet flops). */
typedef struct pmu_fp_arith {
    double scalar_double;    /* FP_ARITH_INST_RETIRED.SCALAR_DOUBLE */
    double packed128_double; /* .128B_PACKED_DOUBLE (2 doubles per instruction) */
    double packed256_double; /* .256B_PACKED_DOUBLE (4) */
    double packed512_double; /* .512B_PACKED_DOUBLE (8) */
} pmu_fp_arith;

/* Double-precision flops from Intel's FP_ARITH_INST_RETIRED: 1*SCALAR_DOUBLE + 2*128B + 4*256B + 8*512B_PACKED_DOUBLE.
 * Each umask counts one per retired computational instruction (ADD SUB MUL DIV MIN MAX SQRT ...) and two for an
 * FM(N)ADD/SUB, which performs two operations per element; the weight is the number of doubles per instruction
 * (Intel's event descriptions, as in libpfm4's tables; the seed pmu-flops-estimation: "multiply
 * FP_COMP_OPS_EXE.SSE_DOUBLE_PRECISION by 2 because two packed double precision floating operations can be performed
 * on 128 bit XMM registers"). AMD's RETIRED_SSE_AVX_FLOPS counts flops itself (a MAC as 2) and needs no weights.
 * Returns the flops, or -1 when c is NULL or a count is negative or not finite. */
double pmu_flops_fp_arith(const pmu_fp_arith *c);

/* Elapsed time from unhalted core cycles, the seed's formula (pmu-flops-estimation, "Estimating FLOPS"):
 * Elapsed Time = CPU_CLK_UNHALTED / Processor-Frequency / Number-of-Cores, with cycles summed over the cores that
 * counted (non-zero CPU_CLK_UNHALTED). cycles >= 0, hz > 0, cores >= 1. Returns seconds, or -1 on bad input. */
double pmu_elapsed_from_cycles(double cycles, double hz, int cores);

/* The inverse, what the tools print: the mean clock of `threads` threads that together counted `cycles` unhalted
 * cycles in `seconds` of wall time, cycles / threads / seconds in Hz (the seed's formula solved for the frequency).
 * Returns Hz, or -1 on bad input (seconds <= 0, threads < 1, cycles < 0 or not finite). */
double pmu_clock_hz(double cycles, int threads, double seconds);

/* Which category of a top-down breakdown is 1 minus the others instead of measured. */
typedef enum pmu_td_residual {
    PMU_TD_NONE = 0, /* all four measured; `other` = 1 - their sum */
    PMU_TD_RETIRING,
    PMU_TD_BAD_SPECULATION,
    PMU_TD_FRONTEND,
    PMU_TD_BACKEND
} pmu_td_residual;

/* Top-down level 1 (the seed topdown-microarchitecture-analysis: every pipeline slot is retiring, bad speculation,
 * front-end bound or back-end bound). Fractions of slots; measured ones may leave [0, 1] by counting skew. */
typedef struct pmu_topdown {
    double retiring, bad_speculation, frontend_bound, backend_bound;
    double other;             /* 1 - the four: AMD's SMT contention and rounding; 0 when one is the residual */
    pmu_td_residual residual; /* the category computed as 1 - the others, or PMU_TD_NONE */
    double slots;             /* pipeline slots counted (summed over threads) */
    int width;                /* slots per cycle when slots = width * cycles; 0 when counted directly */
} pmu_topdown;

/* Level 1 from slot counts: Intel Icelake and later, where TOPDOWN.SLOTS counts the slots (fixed counter 3) and
 * the PERF_METRICS pseudo events (or general counters) give the slots of each category. Each fraction is
 * category / slots. At most one category may be given as a negative number: it is not measured and becomes
 * 1 - the others (Intel's TMA does this for bad speculation on Icelake). slots > 0; measured counts >= 0 and
 * finite. Errors: PMU_ERR_ARG (td NULL, bad counts, two or more unmeasured). */
pmu_status pmu_topdown_from_slots(double slots, double retiring, double bad_speculation, double frontend,
                                  double backend, pmu_topdown *td);

/* Level 1 on Intel cores before Icelake, 4 slots per cycle (Yasin, "A Top-Down method for performance analysis and
 * counters architecture", ISPASS 2014, Sect. III; Intel 64 and IA-32 Optimization Reference Manual, App. B.1, which
 * the seed topdown document cites):
 *   slots           = 4 * CPU_CLK_UNHALTED.THREAD
 *   frontend bound  = IDQ_UOPS_NOT_DELIVERED.CORE / slots
 *   bad speculation = (UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * INT_MISC.RECOVERY_CYCLES) / slots
 *   retiring        = UOPS_RETIRED.RETIRE_SLOTS / slots
 *   backend bound   = 1 - the three (the residual).
 * cycles > 0, counts >= 0 and finite. Errors: PMU_ERR_ARG. */
pmu_status pmu_topdown_intel4(double cycles, double idq_uops_not_delivered, double uops_issued, double retire_slots,
                              double recovery_cycles, pmu_topdown *td);

/* Level 1 on AMD Zen 4 and Zen 5 from the pipeline utilization events (the PMCx1A0 dispatch-slot events of AMD's
 * Processor Programming Reference for family 19h model 11h and later; the same as the "PipelineL1" metrics of
 * Linux perf's amdzen4 / amdzen5 tables, total_dispatch_slots = 6 resp. 8 * ls_not_halted_cyc):
 *   slots           = width * CYCLES_NOT_IN_HALT (width = dispatch slots per cycle: 6 on Zen 4, 8 on Zen 5)
 *   frontend bound  = DISPATCH_STALLS_1.FE_NO_OPS / slots
 *   backend bound   = DISPATCH_STALLS_1.BE_STALLS / slots
 *   bad speculation = (OPS_SOURCE_DISPATCHED_FROM_DECODER (all sources) - RETIRED_OPS) / slots
 *   retiring        = RETIRED_OPS / slots
 *   other           = 1 - the four (SMT contention, DISPATCH_STALLS_1.SMT_CONTENTION, and rounding).
 * cycles > 0, width >= 1, counts >= 0 and finite. Errors: PMU_ERR_ARG. */
pmu_status pmu_topdown_amd(double cycles, int width, double fe_no_ops, double be_stalls, double ops_dispatched,
                           double ops_retired, pmu_topdown *td);

/* ============================================================================================== counting */

/* 1 when the counting layer was built (libpfm4 found at configure time), 0 otherwise. */
int pmu_built(void);

/* Resolve one event with libpfm4 for perf_events: spec lists alternatives separated by '|', the first one libpfm4
 * encodes for this CPU wins. type, config: perf_event_attr's; name (length nname): the resolved name with libpfm4's
 * PMU prefix and without modifiers, e.g. "skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE". kernel: 0 user level only,
 * 1 also kernel level. Events that need extra encoding registers (config1/2, e.g. offcore response) are refused.
 * Errors: PMU_ERR_ARG, PMU_ERR_NOLIB, PMU_ERR_EVENT (why: the spec and libpfm4's reason). */
pmu_status pmu_resolve(const char *spec, int kernel, uint32_t *type, uint64_t *config, char *name, size_t nname,
                       char *why, size_t nwhy);

/* A group of events counted together on each of n threads. */
typedef struct pmu_group pmu_group;

/* Resolve a group's events with libpfm4, the first leading the group. spec[i] lists alternatives separated by
 * '|' (e.g. "FP_ARITH_INST_RETIRED:SCALAR_DOUBLE|FP_ARITH:SCALAR_DOUBLE"); the first one libpfm4 encodes for this
 * CPU wins. kernel = 0 counts user level only (exclude_kernel, allowed at perf_event_paranoid <= 2), 1 also kernel
 * level. n in 1..PMU_MAX_EVENTS. Errors: PMU_ERR_ARG, PMU_ERR_NOMEM, PMU_ERR_NOLIB, PMU_ERR_EVENT (why names the
 * event). */
pmu_status pmu_group_new(const char *const *spec, int n, int kernel, pmu_group **g, char *why, size_t nwhy);

/* As pmu_group_new with an encoding per event instead of names: perf_event_attr's type and config (as
 * pmu_resolve, the kernel's sysfs event list or a vendor manual gives them; PERF_TYPE_RAW for raw codes), name[i]
 * for messages (may be NULL). Needs no libpfm4. Errors: PMU_ERR_ARG, PMU_ERR_NOMEM. */
pmu_status pmu_group_new_raw(const uint32_t *type, const uint64_t *config, const char *const *name, int n,
                             int kernel, pmu_group **g, char *why, size_t nwhy);

/* Open the group, disabled, on each of nthreads OpenMP threads: inside a parallel region of nthreads threads each
 * thread opens it for itself. The measured code must run on the same team size (libgomp keeps a team's threads
 * across parallel regions of one size); nthreads 1 with no parallel region measures the calling thread.
 * Errors: PMU_ERR_ARG (nthreads outside 1..PMU_MAX_THREADS, already open), PMU_ERR_NOMEM, PMU_ERR_ABSENT,
 * PMU_ERR_FORBIDDEN, PMU_ERR_SYS (the runtime gave fewer threads; another errno). why names the event and errno. */
pmu_status pmu_group_open(pmu_group *g, int nthreads, char *why, size_t nwhy);

/* Reset and enable every thread's group (start), or disable it (stop); the counters run only in between.
 * Errors: PMU_ERR_ARG (not open), PMU_ERR_SYS. */
pmu_status pmu_group_start(pmu_group *g);
pmu_status pmu_group_stop(pmu_group *g);

/* Counts since the last start, summed over the threads (values: length pmu_group_size), each thread's scaled by
 * time enabled / time running when the kernel multiplexed the group. running (may be NULL) receives the smallest
 * running / enabled fraction over the threads (1: never multiplexed). per_thread (may be NULL): length
 * nthreads * size, thread t's event i at [t * size + i], unscaled. Errors: PMU_ERR_ARG, PMU_ERR_BUSY (a thread's
 * group never ran while enabled), PMU_ERR_SYS. */
pmu_status pmu_group_read(const pmu_group *g, double *values, double *running, double *per_thread);

int pmu_group_size(const pmu_group *g);
int pmu_group_threads(const pmu_group *g);
/* Event i as resolved, e.g. "amd64_fam19h_zen4::RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS:..." ("" out of range). */
const char *pmu_group_event(const pmu_group *g, int i);
/* Closes every descriptor; NULL is fine. */
void pmu_group_free(pmu_group *g);

/* ============================================================================================== session */

/* What one measured region gave, summed over the threads. */
typedef struct pmu_result {
    int threads;
    int have_ipc;                /* cycles and instructions counted */
    double cycles, instructions; /* user level */
    int have_flops;
    double flops;                /* double-precision flops counted */
    int have_topdown;
    pmu_topdown td;
    double running;              /* smallest running / enabled fraction of any group (1: no multiplexing) */
    char ipc_events[2 * PMU_NAME_LEN];
    char flops_recipe[64];       /* e.g. "Intel FP_ARITH_INST_RETIRED (1/2/4/8 per event)" */
    char flops_events[4 * PMU_NAME_LEN];
    char topdown_recipe[96];     /* e.g. "AMD Zen 4 dispatch slots, 6 per cycle" */
    char topdown_events[5 * PMU_NAME_LEN];
    char notes[1024];            /* why flops or top-down are missing when the rest was counted */
} pmu_result;

typedef struct pmu_session pmu_session;

/* Resolve and open everything this CPU offers, for code run on nthreads OpenMP threads: IPC (cycles,
 * instructions), flops (the vendor's FP events) and top-down level 1 (the first recipe that opens: Intel
 * PERF_METRICS, Intel Icelake+ slots on general counters, Intel 4-wide, AMD Zen 4/5), each its own group, measured
 * in its own pass (no multiplexing between them). Recipes of the other vendor are not tried. Libpfm4 names come
 * first; for CPUs newer than the installed libpfm4's tables (AMD family 1Ah / Zen 5, Intel Emerald and Granite
 * Rapids) the same events' raw codes from newer libpfm4 tables are tried, and Intel's TOPDOWN.BACKEND_BOUND_SLOTS
 * (A4H/02H) is always given by its code (libpfm4 4.13 encodes it without the event code). Succeeds when at least
 * one group opened (what is missing is in pmu_result.notes); otherwise returns the most telling error and why holds
 * one line: the reason and every event tried, each recipe with its outcome. */
pmu_status pmu_session_open(int nthreads, pmu_session **s, char *why, size_t nwhy);

/* Number of passes (groups opened, 1..3): run the measured code once per pass between begin and end. */
int pmu_session_passes(const pmu_session *s);
/* What pass p counts: "IPC", "flops" or "top-down". */
const char *pmu_session_pass_name(const pmu_session *s, int p);
pmu_status pmu_session_begin(pmu_session *s, int pass);
pmu_status pmu_session_end(pmu_session *s, int pass);
/* Derive the figures from the passes run. Errors: PMU_ERR_ARG, PMU_ERR_BUSY, PMU_ERR_SYS (why says which). */
pmu_status pmu_session_result(const pmu_session *s, pmu_result *r, char *why, size_t nwhy);
void pmu_session_free(pmu_session *s);

/* For tests: recipe k (0, 1, ...) of pmu_session_open, in the order tried: vendor ("intel", "amd", "any"), what it
 * counts, its label, n events with their name specs and raw codes (0: none), and which events are raw-only (bit i).
 * Any pointer may be NULL. Returns 0 past the last recipe. */
int pmu_recipe_info(int k, const char **vendor, const char **what, const char **label, int *n, const char *const **ev,
                    const uint64_t **raw, unsigned *rawonly);

#endif
