/* The multiply's thread team (src/kernels/team.c): every part runs exactly once with the team size it was given,
 * on the helper threads, with helpers asleep (the caller takes their parts), from two application threads at once
 * (one of them through an OpenMP region), inside a parallel region, in a forked child; and a multiply on the helpers
 * gives the same bits as the same partition on one thread. */
#include "internal.h"
#include "kernel.h"
#include "testutil.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAXT = 8 };

typedef struct {
    int runs[MAXT]; /* times part t ran */
    int bad_n;      /* calls whose n was not the team's size */
    int n;          /* the team size of the call */
} job;

static void count_part(void *arg, int t, int n)
{
    job *j = arg;
    if (n != j->n) __atomic_add_fetch(&j->bad_n, 1, __ATOMIC_RELAXED);
    for (int p = t; p < MAXT; p += n) __atomic_add_fetch(&j->runs[p], 1, __ATOMIC_RELAXED);
}

/* `calls` calls of nt threads (work 0: the helpers' size); 1 when part p ran `calls` times for every p < MAXT */
static int run_calls(int nt, int calls, long sleep_ns)
{
    job j;
    memset(&j, 0, sizeof j);
    int ok = 1;
    for (int c = 0; c < calls; c++) {
        j.n = nt;
        if (!spmv__team_helpers_used(nt, 0)) j.n = -1; /* OpenMP: the runtime may give fewer threads */
        spmv__team_run(nt, 0, count_part, &j);
        if (j.n == -1) j.bad_n = 0; /* counted per part below */
        if (sleep_ns > 0) nanosleep(&(struct timespec){0, sleep_ns}, NULL);
    }
    for (int p = 0; p < MAXT; p++) ok &= j.runs[p] == calls;
    if (!ok || j.bad_n) {
        printf("\n  team of %d, %d calls: part runs", nt, calls);
        for (int p = 0; p < MAXT; p++) printf(" %d", j.runs[p]);
        printf(", %d calls with another team size\n", j.bad_n);
    }
    return ok && j.bad_n == 0;
}

static void test_parts_once(void)
{
    CU_ASSERT(spmv__team_helpers_used(2, 0)); /* a fresh process, SPMV_TEAM unset */
    CU_ASSERT(!spmv__team_helpers_used(2, SPMV_TEAM_SPIN_WORK + 1));
    CU_ASSERT(!spmv__team_helpers_used(1, 0));
    for (int nt = 1; nt <= MAXT; nt++) { /* more helpers than cores are late: they give up, here for each size */
        spmv__team_retry();
        CU_ASSERT(nt == 1 || spmv__team_helpers_used(nt, 0));
        CU_ASSERT(run_calls(nt, 2000, 0));
    }
    spmv__team_retry();
    CU_ASSERT(run_calls(3, 500, 0) && run_calls(8, 500, 0) && run_calls(2, 500, 0)); /* sizes changing */
}

static void test_asleep(void)
{
    /* 300 us between calls: the helpers have gone to sleep (100 us); the caller takes a part its helper has not
     * taken within 3 us */
    CU_ASSERT(run_calls(4, 40, 300000));
}

static void *app_thread(void *arg)
{
    *(int *)arg = run_calls(2, 3000, 0) && run_calls(4, 500, 0);
    return NULL;
}

static void test_two_callers(void)
{
    pthread_t th;
    int ok_a = 0, ok_b = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, app_thread, &ok_a), 0);
    app_thread(&ok_b);
    pthread_join(th, NULL);
    CU_ASSERT(ok_a);
    CU_ASSERT(ok_b);
}

static void test_inside_parallel(void)
{
    int ok = 1;
#pragma omp parallel num_threads(2) reduction(& : ok)
    {
        CU_ASSERT(!spmv__team_helpers_used(2, 0));
        job j;
        memset(&j, 0, sizeof j);
        j.n = 1; /* no nested team: one thread runs every part */
        spmv__team_run(2, 0, count_part, &j);
        for (int p = 0; p < MAXT; p++) ok &= j.runs[p] == 1;
        ok &= j.bad_n == 0;
    }
    CU_ASSERT(ok);
}

/* First of the cases: libgomp cannot start a team in a child forked after the parent ran a parallel region, so the
 * parent has run none yet; the child must use helpers of its own */
static void test_forked_child(void)
{
    const char *emu = getenv("SPMV_TEST_NO_FORK");
    if (emu && *emu) { /* qemu-user hangs in a child forked from a multi-threaded process (the SVE runs) */
        printf("\n  skipped: forked child under %s\n", emu);
        return;
    }
    CU_ASSERT(run_calls(2, 100, 0)); /* helpers running before the fork */
    fflush(NULL);
    const pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) _exit(spmv__team_helpers_used(2, 0) && run_calls(2, 1000, 0) && run_calls(4, 100, 0) ? 0 : 1);
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* y = 1.5 A x + 0.25 y through the team, against the reference and against the same partition run by one thread
 * (inside a parallel region: no nested team, no helpers): the same bits */
static void test_multiply_bits(void)
{
    spmv_crs *A = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_gen_laplace2d(60, 50, &A), SPMV_OK); /* 14 800 entries: a team of 2 or more */
    CU_ASSERT_EQUAL_FATAL(spmv_crs_set_threads(A, 4), SPMV_OK);
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = 8;
    o.sigma = 32;
    spmv_sell *S = NULL;
    CU_ASSERT_EQUAL_FATAL(spmv_sell_from_crs(A, &o, &S), SPMV_OK);
    CU_ASSERT_EQUAL_FATAL(spmv_sell_set_threads(S, 4), SPMV_OK);
    CU_ASSERT(spmv__team(4, A->nnz) >= 2);
    const int n = A->rows;
    double *x = malloc((size_t)n * sizeof *x), *y1 = malloc((size_t)n * sizeof *y1), *y2 = malloc((size_t)n * sizeof *y2);
    double *yr = malloc((size_t)n * sizeof *yr), *absax = malloc((size_t)n * sizeof *absax);
    uint64_t seed = 7;
    for (int i = 0; i < n; i++) x[i] = tu_rand_unit(&seed);
    tu_ref_mv(A, x, yr, absax);
    for (int i = 0; i < n; i++) yr[i] = 1.5 * yr[i] + 0.25 * (0.5 * x[i]), absax[i] = 1.5 * absax[i] + 0.125 * fabs(x[i]);
    for (int f = 0; f < 2; f++) {
        for (int i = 0; i < n; i++) y1[i] = y2[i] = 0.5 * x[i];
        CU_ASSERT_EQUAL(f ? spmv_sell_mv(S, 1.5, x, 0.25, y1) : spmv_crs_mv(A, 1.5, x, 0.25, y1), SPMV_OK);
        int st = -1;
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 0) st = f ? spmv_sell_mv(S, 1.5, x, 0.25, y2) : spmv_crs_mv(A, 1.5, x, 0.25, y2);
        CU_ASSERT_EQUAL(st, SPMV_OK);
        CU_ASSERT(memcmp(y1, y2, (size_t)n * sizeof *y1) == 0);
        CU_ASSERT_EQUAL(tu_count_mismatch(y1, yr, absax, n, TU_TOL, f ? "SELL-8-32 on the team" : "CRS on the team"), 0);
    }
    free(x), free(y1), free(y2), free(yr), free(absax);
    spmv_sell_free(S);
    spmv_crs_free(A);
}

int main(void)
{
    tu_suite("team", (tu_case[]){{"forked child", test_forked_child},
                                 {"every part once, team sizes 1-8", test_parts_once},
                                 {"two application threads at once", test_two_callers},
                                 {"inside a parallel region", test_inside_parallel},
                                 {"multiply: same bits as one thread", test_multiply_bits},
                                 {"helpers asleep: the caller takes their parts", test_asleep},
                                 {NULL, NULL}});
    return tu_run();
}
