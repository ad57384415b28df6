/* The thread team of a multiply: a start and join that costs one round trip between cores.
 *
 * Every multiply on more than one thread pays a start and a join of its team. An OpenMP parallel region pays
 * several: on the AMD EPYC (Zen 5) VM libgomp's empty region on 2 threads takes 2.8 us (a barrier alone 1.35 us,
 * OMP_WAIT_POLICY=active included) where a cache line goes from one core to the other and back in 0.5 us. A
 * multiply of 40 000 entries in cache takes about 10 us on one core, so the region ate the second thread's gain
 * (BENCHMARKS.md, 2026-12-04 12:36). Small multiplies therefore run on a team of helper threads kept by the
 * library: the caller is thread 0; helper t waits for the job on a cache line of its own, spinning for
 * TEAM_SPIN_NS after its last job (then it sleeps on a condition variable: no core is held by an idle library),
 * runs part t and says so on another line of its own. One round trip, no barrier.
 *
 * The OpenMP region stays the path for large multiplies (work > SPMV_TEAM_SPIN_WORK: their first touch and
 * OMP_PROC_BIND placement are OpenMP's, and a region's 3 us is below 1 % of their time), inside a parallel region
 * of the caller (no nested teams), when another thread of the process holds the helpers (calls from several
 * threads at once), and with SPMV_TEAM=openmp. The thread count is OpenMP's in every case
 * (omp_get_max_threads(): OMP_NUM_THREADS), and under OMP_PROC_BIND helper t runs on the CPUs OpenMP gives thread t.
 *
 * Two teams on the same cores wait for each other's time slices: the caller takes a part its helper has not taken
 * within TEAM_LATE_NS of the caller's own (no multiply waits for a descheduled helper before it has started), and
 * helpers late too often give up for the process (count_late: the application's own OpenMP threads spin on the same
 * cores after each of its regions). */
#define _GNU_SOURCE
#include "internal.h"
#include "kernel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Helpers spin this long after a job before they sleep (ns). A solver's vector operations between two multiplies
 * of a small matrix take microseconds: the helper is still spinning when the next multiply comes. */
#define TEAM_SPIN_NS 100000
/* The caller takes a part its helper has not taken this long after the caller's own part (ns) */
#define TEAM_LATE_NS 3000

enum { TEAM_LINE = 64 };

typedef struct {
    unsigned v;
    char pad[TEAM_LINE - sizeof(unsigned)];
} team_line;

/* go[t]: the job number helper t is to run (written by the caller); claim[t]: the last job whose part t was taken,
 * by helper t or by the caller (compare and swap: exactly one runs it); done[t]: the last job helper t finished */
static team_line go[SPMV_TEAM_MAX] __attribute__((aligned(TEAM_LINE)));
static team_line claim[SPMV_TEAM_MAX] __attribute__((aligned(TEAM_LINE)));
static team_line done[SPMV_TEAM_MAX] __attribute__((aligned(TEAM_LINE)));

/* Part t of job `job` to whoever asks first: 1 for the winner. Job numbers only grow (compared modulo 2^32): a
 * helper that wakes with an old job number finds a later job claimed and takes nothing. */
static int take(int t, unsigned job)
{
    unsigned c = __atomic_load_n(&claim[t].v, __ATOMIC_ACQUIRE);
    return (int)(job - c) > 0 &&
           __atomic_compare_exchange_n(&claim[t].v, &c, job, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static struct {
    int held;              /* 1 while a caller runs a job on the helpers */
    int helpers;           /* helpers started: threads 1 .. helpers */
    int failed;            /* 1: a helper could not be started; 2: helpers were late too often: OpenMP from now on */
    int64_t win_t0;        /* the current window of jobs: its start (ns), jobs, jobs with a part the caller took */
    int win_jobs, win_late;
    int bad_windows, bad_jobs, bad_late; /* consecutive windows with too many late jobs, their totals */
    int sleepers;          /* helpers waiting on cv */
    unsigned job;          /* the last job number (caller only, under held) */
    spmv__team_fn fn;      /* the job: written before go[], read after it */
    void *arg;
    int nt;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} T = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A helper waits until *p != old (acquire): spins for TEAM_SPIN_NS, then sleeps on T.cv. Returns the new value.
 * No sched_yield() while it spins: on the AMD EPYC VM a helper that yielded every 256 looks was late (the caller ran
 * its part) in 30 % of the multiplies of rajat01 on 2 threads, 0.3-0.5 % without. */
static unsigned wait_change(const unsigned *p, unsigned old)
{
    unsigned v;
    int64_t t0 = -1;
    for (unsigned i = 0;; i++) {
        if ((v = __atomic_load_n(p, __ATOMIC_ACQUIRE)) != old) return v;
        relax();
        if ((i & 255) != 255) continue;
        const int64_t t = now_ns();
        if (t0 < 0) t0 = t;
        if (t - t0 < TEAM_SPIN_NS) continue;
        /* The caller stores go[] and then reads sleepers; a helper adds itself to sleepers and then reads go[]
         * (both sequentially consistent): one of the two sees the other's store, so no wake-up is lost. */
        pthread_mutex_lock(&T.mu);
        __atomic_add_fetch(&T.sleepers, 1, __ATOMIC_SEQ_CST);
        while ((v = __atomic_load_n(p, __ATOMIC_SEQ_CST)) == old) pthread_cond_wait(&T.cv, &T.mu);
        __atomic_sub_fetch(&T.sleepers, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&T.mu);
        return v;
    }
}

/* The caller, its own part done, finishes part t of job `job`: waits until TEAM_LATE_NS after *late0 (the first
 * look at any helper of this job, set here when < 0: one deadline for the whole team, not one per helper) for
 * helper t to take it (a helper that spins takes it within a round trip), then takes it itself if the helper has not
 * (asleep, or its core busy with another thread); a part the helper took it waits for, yielding its core after
 * 20 us. */
static int finish(int t, unsigned job, spmv__team_fn fn, void *arg, int nt, int64_t *late0)
{
    for (unsigned i = 0; __atomic_load_n(&claim[t].v, __ATOMIC_ACQUIRE) != job; i++) {
        relax();
        if ((i & 63) != 63) continue;
        const int64_t now = now_ns();
        if (*late0 < 0) *late0 = now;
        if (now - *late0 >= TEAM_LATE_NS && take(t, job)) {
            fn(arg, t, nt);
            return 1;
        }
    }
    int64_t t0 = -1; /* the helper took the part: wait for it, yielding the core after 20 us */
    for (unsigned i = 0; __atomic_load_n(&done[t].v, __ATOMIC_ACQUIRE) != job; i++) {
        relax();
        if ((i & 255) != 255) continue;
        const int64_t now = now_ns();
        if (t0 < 0) t0 = now;
        if (now - t0 >= 20000) sched_yield();
    }
    return 0;
}

/* Helpers that are late in more than 1 job in 8 over TEAM_BAD_WINDOWS windows in a row, each of at least
 * TEAM_WINDOW_NS and 64 jobs, share their cores with other threads: with the application's own OpenMP threads, which
 * spin after each of its regions, or with another process. Two teams on the same cores wait for each other's time
 * slices (a CG-like loop with its vector operations in OpenMP regions ran at 38-42 us per iteration with helpers,
 * 24-27 with OpenMP regions only: rajat01, 2 threads, AMD EPYC VM): the process then uses OpenMP regions only. The
 * spinning of OpenMP's threads after the library's own regions (a conversion: a few ms) spoils one window at most:
 * with one window of 50 ms, the peers' harness (convert, time, convert, time) lost the helpers in its first timing
 * (late in 752 of 5689 multiplies). */
#define TEAM_WINDOW_NS 50000000
#define TEAM_BAD_WINDOWS 4

static void count_late(int late)
{
    const int64_t now = now_ns();
    if (T.win_jobs == 0) T.win_t0 = now;
    T.win_jobs++;
    T.win_late += late;
    if (T.win_jobs < 64 || now - T.win_t0 < TEAM_WINDOW_NS) return;
    if (8 * T.win_late > T.win_jobs) {
        T.bad_windows++;
        T.bad_jobs += T.win_jobs;
        T.bad_late += T.win_late;
    } else {
        T.bad_windows = T.bad_jobs = T.bad_late = 0;
    }
    T.win_jobs = T.win_late = 0;
    if (T.bad_windows < TEAM_BAD_WINDOWS) return;
    __atomic_store_n(&T.failed, 2, __ATOMIC_RELAXED);
    const char *v = getenv("SPMV_VERBOSE");
    if (v && *v && *v != '0')
        fprintf(stderr, "spmv: helper threads late in %d of %d multiplies (their cores are busy with other threads, "
                "such as the application's OpenMP threads): OpenMP regions from now on\n", T.bad_late, T.bad_jobs);
}

static void *helper(void *p)
{
    const int t = (int)(intptr_t)p;
    unsigned seen = __atomic_load_n(&done[t].v, __ATOMIC_ACQUIRE); /* go[t] when it was started: a job may be
                                                                     * waiting already */
    for (;;) {
        seen = wait_change(&go[t].v, seen);
        if (!take(t, seen)) continue; /* the caller ran it: T may already hold the next job */
        T.fn(T.arg, t, T.nt);
        __atomic_store_n(&done[t].v, seen, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* A forked child has only the thread that forked: it starts its own helpers. */
static void after_fork_child(void)
{
    T.held = 0;
    T.helpers = 0;
    T.sleepers = 0;
    pthread_mutex_init(&T.mu, NULL);
    pthread_cond_init(&T.cv, NULL);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, after_fork_child);
}

/* Helpers 1 .. n-1 running (caller holds T.held). 0 when one cannot be started. */
static int start_helpers(int n)
{
    if (__atomic_load_n(&T.failed, __ATOMIC_RELAXED)) return 0;
    if (T.helpers >= n - 1) return 1;
    pthread_once(&atfork_once, register_atfork);
    /* Helper t gets the CPUs OpenMP gives thread t. With OMP_PROC_BIND the runtime binds the calling thread to its
     * first place at its first region, and a thread it starts inherits that one core: helpers on the caller's core
     * (the peers' runs set OMP_PROC_BIND=close) made rajat01's CRS multiply take 1.5 ms instead of 10 us. */
    cpu_set_t *mask = NULL;
    int nmask = 0;
#ifdef _OPENMP
    if (omp_get_proc_bind() != omp_proc_bind_false && (mask = calloc((size_t)n, sizeof *mask)) != NULL) {
#pragma omp parallel num_threads(n)
        {
            const int t = omp_get_thread_num();
            if (pthread_getaffinity_np(pthread_self(), sizeof *mask, &mask[t]) != 0) CPU_ZERO(&mask[t]);
            if (t == 0) nmask = omp_get_num_threads();
        }
    }
#endif
    sigset_t all, old;
    sigfillset(&all);
    const int sync[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}; /* faults stay the helper's own */
    for (size_t i = 0; i < sizeof sync / sizeof *sync; i++) sigdelset(&all, sync[i]);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* signals go to the application's threads, not to helpers */
    int ok = 1;
    while (ok && T.helpers < n - 1) {
        pthread_t th;
        pthread_attr_t at;
        const int t = T.helpers + 1;
        const unsigned g = __atomic_load_n(&go[t].v, __ATOMIC_RELAXED);
        __atomic_store_n(&claim[t].v, g, __ATOMIC_RELAXED);
        __atomic_store_n(&done[t].v, g, __ATOMIC_RELAXED);
        ok = pthread_attr_init(&at) == 0;
        if (ok) {
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&at, (size_t)1 << 20); /* 1 MiB: the parts need a few KiB */
            if (t < nmask && CPU_COUNT(&mask[t]) > 0) pthread_attr_setaffinity_np(&at, sizeof *mask, &mask[t]);
            ok = pthread_create(&th, &at, helper, (void *)(intptr_t)t) == 0;
            pthread_attr_destroy(&at);
        }
        if (ok) T.helpers = t;
        else __atomic_store_n(&T.failed, 1, __ATOMIC_RELAXED);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(mask);
    return ok;
}

static int spin_wanted(void)
{
    static int mode = -1; /* 1: helpers, 0: OpenMP regions only */
    int m = __atomic_load_n(&mode, __ATOMIC_RELAXED);
    if (m < 0) {
        const char *e = getenv(SPMV_TEAM_ENV);
        m = !(e && strcmp(e, "openmp") == 0);
        __atomic_store_n(&mode, m, __ATOMIC_RELAXED);
    }
    return m;
}

void spmv__team_retry(void)
{
    int late = 2;
    __atomic_compare_exchange_n(&T.failed, &late, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

int spmv__team_helpers_used(int nt, int64_t work)
{
#ifdef _OPENMP
    if (omp_in_parallel()) return 0;
#endif
    return nt > 1 && nt <= SPMV_TEAM_MAX && work <= SPMV_TEAM_SPIN_WORK && spin_wanted() &&
           !__atomic_load_n(&T.failed, __ATOMIC_RELAXED);
}

void spmv__team_run(int nt, int64_t work, spmv__team_fn fn, void *arg)
{
    if (nt <= 1) {
        fn(arg, 0, 1);
        return;
    }
    if (spmv__team_helpers_used(nt, work) && !__atomic_exchange_n(&T.held, 1, __ATOMIC_ACQUIRE)) {
        if (start_helpers(nt)) {
            T.fn = fn;
            T.arg = arg;
            T.nt = nt;
            const unsigned job = ++T.job;
            for (int t = 1; t < nt; t++) __atomic_store_n(&go[t].v, job, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&T.sleepers, __ATOMIC_SEQ_CST) > 0) {
                pthread_mutex_lock(&T.mu);
                pthread_cond_broadcast(&T.cv);
                pthread_mutex_unlock(&T.mu);
            }
            fn(arg, 0, nt);
            int late = 0;
            int64_t late0 = -1;
            for (int t = 1; t < nt; t++) late |= finish(t, job, fn, arg, nt, &late0);
            count_late(late);
            __atomic_store_n(&T.held, 0, __ATOMIC_RELEASE);
            return;
        }
        __atomic_store_n(&T.held, 0, __ATOMIC_RELEASE);
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
    fn(arg, omp_get_thread_num(), omp_get_num_threads()); /* the runtime may give fewer threads than asked */
#else
    fn(arg, 0, 1);
#endif
}

static void empty_job(void *arg, int t, int n)
{
    (void)n;
    if (t == 0) *(volatile int *)arg = 1;
}

double spmv_team_overhead(int threads)
{
#ifdef _OPENMP
    if (threads < 2 || omp_in_parallel()) return 0.0;
    if (threads > SPMV_MAX_THREADS) threads = SPMV_MAX_THREADS;
    volatile int sink = 0;
    double best = 1e30;
    spmv__team_run(threads, 0, empty_job, (void *)&sink); /* starts the threads */
    for (int w = 0; w < 5; w++) {
        const double t0 = spmv__now();
        for (int i = 0; i < 200; i++) spmv__team_run(threads, 0, empty_job, (void *)&sink);
        const double dt = (spmv__now() - t0) / 200;
        if (dt < best) best = dt;
    }
    return best;
#else
    (void)threads;
    return 0.0;
#endif
}
