/* Counter groups: one perf_event_open(2) group per OpenMP thread, names resolved by libpfm4 (pmu.h). */
#define _GNU_SOURCE
#include "pmu.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef SPMV_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

struct pmu_group {
    int n;
    char name[PMU_MAX_EVENTS][PMU_NAME_LEN];
    struct perf_event_attr attr[PMU_MAX_EVENTS];
    int nthreads; /* 0: not open */
    int *fd;      /* nthreads * n */
};

static void say(char *why, size_t nwhy, const char *fmt, ...)
{
    if (!why || !nwhy) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, nwhy, fmt, ap);
    va_end(ap);
}

int pmu_built(void)
{
#ifdef SPMV_HAVE_LIBPFM
    return 1;
#else
    return 0;
#endif
}

static void set_common(struct perf_event_attr *a, int leader, int kernel)
{
    a->size = sizeof *a;
    a->disabled = leader; /* members follow their leader */
    a->inherit = 0;
    a->exclude_kernel = !kernel;
    a->exclude_hv = 1;
    a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

static pmu_group *group_alloc(int n)
{
    pmu_group *g = calloc(1, sizeof *g);
    if (g) g->n = n;
    return g;
}

#ifdef SPMV_HAVE_LIBPFM
static int pfm_ready(char *why, size_t nwhy)
{
    static int state; /* 0 not tried, 1 ok, -1 failed; first called from one thread (the tools and tests) */
    static int err;
    if (!state) {
        err = pfm_initialize();
        state = err == PFM_SUCCESS ? 1 : -1;
    }
    if (state < 0) say(why, nwhy, "libpfm4 did not initialize: %s", pfm_strerror(err));
    return state > 0;
}

/* Encode one name for perf_events; type/config and the fully qualified name without modifiers. */
static int pfm_encode(const char *name, int kernel, uint32_t *type, uint64_t *config, char *full, size_t nfull,
                      const char **err)
{
    struct perf_event_attr a;
    pfm_perf_encode_arg_t arg;
    char *fstr = NULL;
    memset(&arg, 0, sizeof arg);
    memset(&a, 0, sizeof a);
    arg.size = sizeof arg;
    arg.attr = &a;
    arg.fstr = &fstr;
    int r = pfm_get_os_event_encoding(name, PFM_PLM3 | (kernel ? PFM_PLM0 : 0), PFM_OS_PERF_EVENT, &arg);
    if (r != PFM_SUCCESS) {
        *err = pfm_strerror(r);
        return 0;
    }
    if (a.config1 || a.config2) { /* an event with an extra register (offcore response ...): not needed here */
        free(fstr);
        *err = "needs extra encoding registers (config1/config2), not supported by this layer";
        return 0;
    }
    *type = a.type;
    *config = a.config;
    /* fstr: "pmu::EVENT:UMASK:mod=v:..." -- keep the PMU, event and umasks, drop the modifiers (u=1, k=0, ...) */
    size_t k = 0;
    const char *p = fstr ? fstr : name;
    while (*p && k + 1 < nfull) {
        if (*p == ':' && p[1] != ':') {
            const char *q = p + 1;
            while (*q && *q != ':' && *q != '=') q++;
            if (*q == '=') break; /* a modifier: the rest are modifiers too */
        }
        full[k++] = *p++;
    }
    full[k] = '\0';
    if (k >= 2 && full[k - 1] == ':' && full[k - 2] == ':') /* perf_raw:: has no event name: keep what was asked */
        snprintf(full + k, nfull - k, "%s", name);
    free(fstr);
    return 1;
}
#endif

pmu_status pmu_resolve(const char *spec, int kernel, uint32_t *type, uint64_t *config, char *name, size_t nname,
                       char *why, size_t nwhy)
{
    if (!spec || !*spec || !type || !config || !name || !nname) {
        say(why, nwhy, "pmu_resolve: bad arguments");
        return PMU_ERR_ARG;
    }
#ifndef SPMV_HAVE_LIBPFM
    (void)kernel;
    say(why, nwhy, "spmv was built without libpfm4 (Debian: libpfm4-dev; reconfigure and rebuild): no event names");
    return PMU_ERR_NOLIB;
#else
    if (!pfm_ready(why, nwhy)) return PMU_ERR_NOLIB;
    char alt[512];
    snprintf(alt, sizeof alt, "%s", spec);
    const char *err = "no name";
    for (char *save = NULL, *tok = strtok_r(alt, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
        if (pfm_encode(tok, kernel, type, config, name, nname, &err)) return PMU_OK;
    say(why, nwhy, "%s: %s", spec, err);
    return PMU_ERR_EVENT;
#endif
}

pmu_status pmu_group_new(const char *const *spec, int n, int kernel, pmu_group **g, char *why, size_t nwhy)
{
    if (g) *g = NULL;
    if (!spec || !g || n < 1 || n > PMU_MAX_EVENTS) {
        say(why, nwhy, "pmu_group_new: bad arguments (n %d must be 1..%d)", n, PMU_MAX_EVENTS);
        return PMU_ERR_ARG;
    }
    uint32_t type[PMU_MAX_EVENTS];
    uint64_t config[PMU_MAX_EVENTS];
    char name[PMU_MAX_EVENTS][PMU_NAME_LEN];
    const char *np[PMU_MAX_EVENTS];
    for (int i = 0; i < n; i++) {
        pmu_status st = pmu_resolve(spec[i], kernel, &type[i], &config[i], name[i], sizeof name[i], why, nwhy);
        if (st) return st;
        np[i] = name[i];
    }
    return pmu_group_new_raw(type, config, np, n, kernel, g, why, nwhy);
}

pmu_status pmu_group_new_raw(const uint32_t *type, const uint64_t *config, const char *const *name, int n,
                             int kernel, pmu_group **g, char *why, size_t nwhy)
{
    if (g) *g = NULL;
    if (!type || !config || !g || n < 1 || n > PMU_MAX_EVENTS) {
        say(why, nwhy, "pmu_group_new_raw: bad arguments (n %d; n must be 1..%d)", n, PMU_MAX_EVENTS);
        return PMU_ERR_ARG;
    }
    pmu_group *G = group_alloc(n);
    if (!G) {
        say(why, nwhy, "out of memory");
        return PMU_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        G->attr[i].type = type[i];
        G->attr[i].config = config[i];
        set_common(&G->attr[i], i == 0, kernel);
        if (name && name[i]) snprintf(G->name[i], sizeof G->name[i], "%s", name[i]);
        else snprintf(G->name[i], sizeof G->name[i], "type %u config 0x%llx", type[i], (unsigned long long)config[i]);
    }
    *g = G;
    return PMU_OK;
}

static pmu_status errno_status(int e)
{
    switch (e) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        return PMU_ERR_ABSENT;
    case EACCES:
    case EPERM:
        return PMU_ERR_FORBIDDEN;
    default:
        return PMU_ERR_SYS;
    }
}

static const char *errno_hint(int e)
{
    switch (e) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        return "the kernel offers no such counter here (no PMU, or a virtual machine without a virtual PMU)";
    case EACCES:
    case EPERM:
        return "not permitted (see /proc/sys/kernel/perf_event_paranoid: user-level counting of one's own threads "
               "needs <= 2, kernel level <= 1, or CAP_PERFMON; containers may block perf_event_open)";
    case EINVAL:
        return "the kernel rejects it (more events than counters, or an encoding it does not accept)";
    case ENOSYS:
        return "perf_event_open is not implemented by this kernel";
    case EMFILE:
    case ENFILE:
        return "too many open files (one descriptor per event and thread)";
    case EBUSY:
        return "the counters are in exclusive use by someone else";
    default:
        return "";
    }
}

static void close_all(pmu_group *g)
{
    if (!g->fd) return;
    for (int k = 0; k < g->nthreads * g->n; k++)
        if (g->fd[k] >= 0) close(g->fd[k]);
    free(g->fd);
    g->fd = NULL;
    g->nthreads = 0;
}

static int sys_open(struct perf_event_attr *a, int group_fd)
{
    return (int)syscall(SYS_perf_event_open, a, 0 /* this thread */, -1 /* any CPU */, group_fd,
                        PERF_FLAG_FD_CLOEXEC);
}

pmu_status pmu_group_open(pmu_group *g, int nthreads, char *why, size_t nwhy)
{
    if (!g || nthreads < 1 || nthreads > PMU_MAX_THREADS || g->nthreads) {
        say(why, nwhy, "pmu_group_open: bad arguments (nthreads %d must be 1..%d; the group must not be open)",
            nthreads, PMU_MAX_THREADS);
        return PMU_ERR_ARG;
    }
    const int n = g->n;
    g->fd = malloc(sizeof *g->fd * (size_t)nthreads * (size_t)n);
    int *err = calloc((size_t)nthreads, 2 * sizeof *err); /* errno and event index per thread */
    if (!g->fd || !err) {
        free(g->fd);
        g->fd = NULL;
        free(err);
        say(why, nwhy, "out of memory");
        return PMU_ERR_NOMEM;
    }
    for (int k = 0; k < nthreads * n; k++) g->fd[k] = -1;
    g->nthreads = nthreads;
    int team = 1;
    if (nthreads == 1) {
        /* the calling thread, which also runs a one-thread parallel region (the master) */
        for (int i = 0; i < n && !err[0]; i++) {
            struct perf_event_attr a = g->attr[i];
            g->fd[i] = sys_open(&a, i ? g->fd[0] : -1);
            if (g->fd[i] < 0) err[0] = errno, err[1] = i;
        }
    } else {
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
        {
            const int t = omp_get_thread_num();
#pragma omp single
            team = omp_get_num_threads();
            for (int i = 0; i < n && !err[2 * t]; i++) {
                struct perf_event_attr a = g->attr[i];
                int *fd = g->fd + (size_t)t * n;
                fd[i] = sys_open(&a, i ? fd[0] : -1);
                if (fd[i] < 0) err[2 * t] = errno, err[2 * t + 1] = i;
            }
        }
#endif
        if (team != nthreads) {
            say(why, nwhy, "the OpenMP runtime gave %d threads instead of %d (OMP_DYNAMIC, thread limit?)", team,
                nthreads);
            close_all(g);
            free(err);
            return PMU_ERR_SYS;
        }
    }
    for (int t = 0; t < nthreads; t++)
        if (err[2 * t]) {
            const int e = err[2 * t], i = err[2 * t + 1];
            const char *h = errno_hint(e);
            say(why, nwhy, "perf_event_open(%s)%s: %s%s%s", g->name[i], nthreads > 1 ? " on an OpenMP thread" : "",
                strerror(e), *h ? ": " : "", h);
            close_all(g);
            free(err);
            return errno_status(e);
        }
    free(err);
    return PMU_OK;
}

static pmu_status ioctl_all(pmu_group *g, unsigned long req)
{
    if (!g || !g->nthreads) return PMU_ERR_ARG;
    for (int t = 0; t < g->nthreads; t++)
        if (ioctl(g->fd[(size_t)t * g->n], req, PERF_IOC_FLAG_GROUP) < 0) return PMU_ERR_SYS;
    return PMU_OK;
}

pmu_status pmu_group_start(pmu_group *g)
{
    pmu_status st = ioctl_all(g, PERF_EVENT_IOC_RESET);
    return st ? st : ioctl_all(g, PERF_EVENT_IOC_ENABLE);
}

pmu_status pmu_group_stop(pmu_group *g) { return ioctl_all(g, PERF_EVENT_IOC_DISABLE); }

pmu_status pmu_group_read(const pmu_group *g, double *values, double *running, double *per_thread)
{
    if (!g || !g->nthreads || !values) return PMU_ERR_ARG;
    const int n = g->n;
    uint64_t buf[3 + PMU_MAX_EVENTS];
    double run_min = 1;
    for (int i = 0; i < n; i++) values[i] = 0;
    for (int t = 0; t < g->nthreads; t++) {
        const ssize_t want = (ssize_t)((3 + n) * sizeof(uint64_t));
        if (read(g->fd[(size_t)t * n], buf, sizeof buf) < want || buf[0] != (uint64_t)n) return PMU_ERR_SYS;
        const double enabled = (double)buf[1], run = (double)buf[2];
        if (enabled > 0 && run <= 0) return PMU_ERR_BUSY;
        const double scale = enabled > 0 && run < enabled ? enabled / run : 1;
        if (enabled > 0 && run / enabled < run_min) run_min = run / enabled;
        for (int i = 0; i < n; i++) {
            values[i] += (double)buf[3 + i] * scale;
            if (per_thread) per_thread[(size_t)t * n + i] = (double)buf[3 + i];
        }
    }
    if (running) *running = run_min;
    return PMU_OK;
}

int pmu_group_size(const pmu_group *g) { return g ? g->n : 0; }

int pmu_group_threads(const pmu_group *g) { return g ? g->nthreads : 0; }

const char *pmu_group_event(const pmu_group *g, int i) { return g && i >= 0 && i < g->n ? g->name[i] : ""; }

void pmu_group_free(pmu_group *g)
{
    if (!g) return;
    close_all(g);
    free(g);
}
