/* The machine file for spmv-tune and spmv-bench --suite: find this machine's file, else run spmv-machine --quick,
 * else fall back to a clearly labelled estimate (sysfs caches, a quick bandwidth measurement, generic in-core
 * costs). Tools only, not part of the library. */
#ifndef SPMV_TUNE_MACHINE_H
#define SPMV_TUNE_MACHINE_H

#include "spmv_tune.h"

#include <stddef.h>

typedef struct tune_machine {
    spmv_machine m;
    int have;          /* 1: m is usable for the model */
    int estimated;     /* 1: spmv-tune's own estimate, not a spmv-machine measurement */
    int measured_now;  /* 1: spmv-machine --quick ran in this process */
    char path[4400];   /* the machine file used (empty for an estimate) */
    char source[600];  /* one line: where the numbers come from */
    double own_clock_ghz; /* the file's (or the estimate's) clock; m.clock_ghz is the run's after tune_machine_at_run_clock */
    double own_bw_load;   /* the file's saturated read bandwidth, GB/s (m.bw_load is the run's after
                             tune_machine_at_run_bandwidth scaled it) */
    double read_now_gbs;  /* the read stream measured by tune_machine_at_run_bandwidth, GB/s (0: not measured) */
} tune_machine;

/* The model at the clock of the run: tune_clock_now(threads) and spmv_machine_at_clock on tm->m (tm->own_clock_ghz
 * keeps the clock it had). Writes one line for the tool's output to line (e.g. "clock        3.65 GHz measured now
 * on 2 threads (the machine file's 3.39 GHz): the model at the clock now"). Returns 1 when m is at the run's clock,
 * 0 when it stays at its own (no usable machine, or the clock cannot be measured). */
int tune_machine_at_run_clock(tune_machine *tm, int threads, char *line, size_t size);

/* The model at the memory bandwidth of the run: tune_read_bandwidth_now(threads, the file's bw_bytes) and
 * spmv_machine_at_read_bandwidth on tm->m (the memory's B/cy and GB/s scaled by the read stream now over the file's
 * figure at that thread count; a fastest pass, the roofline's bound, only rises), then the stream's buffer released.
 * For a file measured on a disturbed host (spmv-machine --quick read 36.7 GB/s on 2 cores of the Zen 5 VM, 62.1 in a
 * calm phase): its ECM is then the model's at this run, as spmv-bench's ECMrun. One factor, measured on `threads`
 * threads, for every thread count of the search, as the clock. Writes one line (e.g. "62.1 GB/s read now on 2
 * threads over 1024 MiB (the machine file's 36.7 GB/s): the model's memory at this bandwidth"). Returns 1 when m was
 * scaled, 0 when not, without measuring where the machine would refuse the factor (no figure at that thread count,
 * a thread count across NUMA domains) or the file was measured by spmv-machine --quick in this process, and where
 * there is no usable machine, the machine is the estimate (measured just now) or the stream could not run; the line
 * says which. */
int tune_machine_at_run_bandwidth(tune_machine *tm, int threads, char *line, size_t size);

/* The core clock now on t threads (1..SPMV_MAX_THREADS), GHz: each thread the best of 5 windows of spmv-machine's
 * add chain (about 0.5 ms each), the slowest thread's (at a barrier the team waits for it); 0 where it cannot be
 * measured. For the model at the clock of a run (spmv_machine_at_clock). */
double tune_clock_now(int t);

/* The latency of random lines now, ns: spmv-machine's pointer chase (bench_chase_run, one node per 64-byte line in a
 * random cycle) over TUNE_LATENCY_BYTES on huge pages where the kernel gives them, on the calling thread, the median
 * of 3 windows of 2^16 loads (about 15 ms each at 200 ns). Mostly memory's latency, not all of it: a last-level cache
 * of 32 MiB holds part of the 64 MiB (spmv-machine's latency table, 1 GiB, is the memory's figure); a sign of the
 * host's state, not a model parameter. The buffer is built on the first call (about 0.1 s) and kept for the process;
 * call it from one thread only. 0 where it cannot be measured (no memory). On the Zen 5 VM the SpMV kernels ran at
 * half speed in processes where this rose by a fifth to a third (BENCHMARKS.md, 2026-12-06 23:41-): spmv-bench
 * --model prints it before and after the timing, so that such a run can be told from the machine's usual state. */
#define TUNE_LATENCY_BYTES ((size_t)64 << 20)
double tune_memory_latency_now(void);

/* The memory's read bandwidth now on t threads (1..SPMV_MAX_THREADS), GB/s: spmv-machine's read-only stream (the
 * widest kernel set's SUM, 8 accumulators, as its "memory bandwidth load" curve) over `bytes` (the machine file's
 * bw_bytes, the size its figures read; <= 0: TUNE_BANDWIDTH_BYTES, spmv-machine's usual size; at most a quarter of the
 * RAM, as spmv-machine), each thread its own slice, the median of 3 sweeps after one that warms the TLB (about 0.15 s
 * on one core at 30 GB/s). *read (may be NULL): the bytes each sweep read (0 on failure). The buffer is allocated and
 * touched by the calling thread on the first call (about 0.3 s per GiB; on a machine of several NUMA domains all in
 * its domain) and kept for the process until a call asks another size; call it from outside a parallel region and
 * from one thread. 0 where it cannot be measured (no memory, OpenMP gave fewer threads). For the ECM at the host's
 * state of a run (spmv_machine_at_read_bandwidth): spmv-bench --model measures it before and after each timing. */
#define TUNE_BANDWIDTH_BYTES ((int64_t)1 << 30)
double tune_read_bandwidth_now(int t, int64_t bytes, int64_t *read);
/* Frees tune_read_bandwidth_now's buffer (the next call allocates it again). */
void tune_read_bandwidth_release(void);

/* Folder of the user's machine files: $XDG_DATA_HOME/spmv/machines or ~/.local/share/spmv/machines.
 * Returns 0 on success. */
int tune_machines_dir(char *buf, size_t size);

/* spmv-machine --quick is run for a missing machine file only when the caller can give it this many seconds. */
#define TUNE_QUICK_MIN_S 120.0

/* Get the machine: path (--machine FILE) if given (an error there is fatal: returns nonzero); else this machine's
 * file in tune_machines_dir (<hostname>.machine as spmv-machine --install names it, or any whose model name
 * contains the CPU model string; one that does not read is named, and this machine's is never overwritten); else,
 * when run_quick and max_s (the seconds the caller can give it; 0: no bound) is at least TUNE_QUICK_MIN_S,
 * `spmv-machine --quick -o FILE` (found next to the running executable or on PATH; its output goes to stderr, quiet:
 * its -q and no table), stopped after max_s / 2 (at most 180 s); else (or when that fails) an estimate measured in
 * about a second. Messages go to stderr prefixed with prog. Returns 0 unless an explicit path failed. */
int tune_machine_get(const char *prog, const char *path, int run_quick, double max_s, int quiet, tune_machine *tm);

/* Bytes of the last-level cache (its effective size when measured) over all its instances (0 if unknown). */
double tune_llc_bytes(const spmv_machine *m);

/* As tune_llc_bytes, but a last level without a measured effective size is measured now (a one-core bandwidth
 * sweep, about half a second; *measured_now = 1; m itself is not changed): the size CPUID or sysfs report can be
 * far larger than what a core can use (a VM reported 508 MiB). */
double tune_llc_effective(const spmv_machine *m, int *measured_now);

/* Physical memory in bytes (0 if unknown). */
double tune_ram_bytes(void);

#endif
