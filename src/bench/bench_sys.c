/* System side of spmv-machine: topology and caches (sysfs, else sysconf), timers, pinning, aligned and huge-page
 * memory, the core clock by a dependent add chain, and pointer chasing. Baseline code only. */
#define _GNU_SOURCE
#include "bench.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t bench_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---------------------------------------------------------------------------------------------- memory */

#define HUGE_FROM ((size_t)4 << 20)
#define HUGE_ALIGN ((size_t)2 << 20)

void *bench_alloc(size_t bytes)
{
    if (bytes == 0) bytes = 1;
    size_t align = bytes >= HUGE_FROM ? HUGE_ALIGN : BENCH_ALIGN;
    size_t len = (bytes + align - 1) / align * align;
    void *p = NULL;
    if (posix_memalign(&p, align, len)) return NULL;
#ifdef MADV_HUGEPAGE
    if (align == HUGE_ALIGN) madvise(p, len, MADV_HUGEPAGE); /* advice only: errors do not matter */
#endif
    memset(p, 0, len);
    return p;
}

void bench_free(void *p) { free(p); }

/* ---------------------------------------------------------------------------------------------- pinning */

static cpu_set_t saved_mask;
static int saved_ok;

void bench_affinity_save(void) { saved_ok = sched_getaffinity(0, sizeof saved_mask, &saved_mask) == 0; }

void bench_affinity_restore(void)
{
    if (saved_ok) sched_setaffinity(0, sizeof saved_mask, &saved_mask);
}

int bench_pin(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s); /* 0 = the calling thread (Linux) */
}

/* ---------------------------------------------------------------------------------------------- sysfs */

static int read_text(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && isspace((unsigned char)buf[n - 1])) buf[--n] = '\0';
    return 0;
}

static long read_long(const char *path, long dflt)
{
    char b[64];
    if (read_text(path, b, sizeof b)) return dflt;
    char *end;
    long v = strtol(b, &end, 10);
    return end == b ? dflt : v;
}

/* "0-3,8,10-11" -> set bits; returns the count */
static int parse_cpulist(const char *s, unsigned char *set, int max)
{
    int count = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s) break;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            s = end;
        }
        for (long c = a; c <= b && c < max; c++)
            if (c >= 0 && !set[c]) set[c] = 1, count++;
        if (*s == ',') s++;
        else break;
    }
    return count;
}

/* "32K", "1024K", "32M" */
static int64_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s) return 0;
    switch (*end) {
    case 'K': case 'k': v *= 1024; break;
    case 'M': case 'm': v *= 1048576; break;
    case 'G': case 'g': v *= 1073741824.0; break;
    default: break;
    }
    return (int64_t)v;
}

static int cpu_node(int cpu)
{
    char dir[96];
    snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d", cpu);
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int node = 0;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4])) {
            node = atoi(e->d_name + 4);
            break;
        }
    closedir(d);
    return node;
}

static void cpuinfo_field(const char *key, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[4096];
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) || (line[kl] != ' ' && line[kl] != '\t' && line[kl] != ':')) continue;
        char *c = strchr(line, ':');
        if (!c) continue;
        c++;
        while (*c == ' ' || *c == '\t') c++;
        size_t n = strcspn(c, "\n");
        if (n >= size) n = size - 1;
        memcpy(out, c, n);
        out[n] = '\0';
        break;
    }
    fclose(f);
}

static void name_cpu(bench_topo *t)
{
    cpuinfo_field("model name", t->cpu_name, sizeof t->cpu_name);
    cpuinfo_field("vendor_id", t->vendor, sizeof t->vendor);
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[8192];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "flags", 5)) {
                t->virtualized = strstr(line, " hypervisor") != NULL;
                break;
            }
        fclose(f);
    }
    if (!strcmp(t->vendor, "AuthenticAMD")) {
        char fam[16], mod[16];
        cpuinfo_field("cpu family", fam, sizeof fam);
        cpuinfo_field("model", mod, sizeof mod);
        long fa = atol(fam), mo = atol(mod);
        const char *u = fa == 23 ? (mo < 0x30 ? "Zen/Zen+" : "Zen 2")
                        : fa == 25 ? ((mo < 0x10 || (mo >= 0x20 && mo < 0x60)) ? "Zen 3" : "Zen 4")
                        : fa == 26 ? "Zen 5" : "";
        snprintf(t->uarch, sizeof t->uarch, "%s", u);
    }
    char impl[32], part[32];
    cpuinfo_field("CPU implementer", impl, sizeof impl);
    cpuinfo_field("CPU part", part, sizeof part);
    if (impl[0]) {
        long i = strtol(impl, NULL, 0), p = strtol(part, NULL, 0);
        static const struct { long impl, part; const char *vendor, *name; } arm[] = {
            {0x46, 0x001, "Fujitsu", "A64FX"},          {0x41, 0xd0c, "Arm", "Neoverse N1"},
            {0x41, 0xd40, "Arm", "Neoverse V1"},        {0x41, 0xd49, "Arm", "Neoverse N2"},
            {0x41, 0xd4f, "Arm", "Neoverse V2"},        {0x41, 0xd84, "Arm", "Neoverse V3"},
            {0x48, 0xd01, "HiSilicon", "Kunpeng 920"},  {0x61, 0x000, "Apple", "Apple"},
            {0x43, 0x0af, "Cavium", "ThunderX2"},       {0xc0, 0xac3, "Ampere", "AmpereOne"}};
        for (size_t k = 0; k < sizeof arm / sizeof *arm; k++)
            if (arm[k].impl == i && (arm[k].part == p || arm[k].impl == 0x61)) {
                snprintf(t->vendor, sizeof t->vendor, "%s", arm[k].vendor);
                snprintf(t->uarch, sizeof t->uarch, "%s", arm[k].name);
            }
        if (!t->vendor[0]) snprintf(t->vendor, sizeof t->vendor, "implementer %.16s", impl);
        if (!t->cpu_name[0])
            snprintf(t->cpu_name, sizeof t->cpu_name, "%s%s(implementer %s, part %s)", t->uarch,
                     t->uarch[0] ? " " : "", impl, part);
    }
    if (!t->cpu_name[0]) snprintf(t->cpu_name, sizeof t->cpu_name, "unknown CPU");
}

static void default_caches(bench_topo *t)
{
    /* sysconf (glibc reads cpuid on x86) or, failing that, a typical core; said on stderr by the caller */
    long s1 = 0, s2 = 0, s3 = 0, w1 = 0, w2 = 0, w3 = 0, l = 0;
#ifdef _SC_LEVEL1_DCACHE_SIZE
    s1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), s2 = sysconf(_SC_LEVEL2_CACHE_SIZE), s3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    w1 = sysconf(_SC_LEVEL1_DCACHE_ASSOC), w2 = sysconf(_SC_LEVEL2_CACHE_ASSOC), w3 = sysconf(_SC_LEVEL3_CACHE_ASSOC);
    l = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
#endif
    if (l <= 0) l = 64;
    if (s1 <= 0) s1 = 32 << 10, w1 = 8;
    if (s2 <= 0) s2 = 1 << 20, w2 = 16;
    t->ncaches = 0;
    const long sz[3] = {s1, s2, s3}, wy[3] = {w1, w2, w3};
    for (int i = 0; i < 3; i++) {
        if (sz[i] <= 0) continue;
        bench_cache *c = &t->cache[t->ncaches++];
        c->name[0] = 'L', c->name[1] = (char)('1' + i), c->name[2] = '\0';
        c->level = i + 1;
        c->size = sz[i];
        c->ways = wy[i] > 0 ? (int)wy[i] : 0;
        c->line = (int)l;
        c->shared_cpus = c->shared_cores = i < 2 ? 1 : t->cores;
        c->instances = i < 2 ? t->cores : 1;
    }
    t->cacheline = (int)l;
}

void bench_topo_detect(bench_topo *t)
{
    memset(t, 0, sizeof *t);
    static unsigned char allowed[BENCH_MAX_CPUS];
    static int pkg[BENCH_MAX_CPUS], core[BENCH_MAX_CPUS], node[BENCH_MAX_CPUS];
    memset(allowed, 0, sizeof allowed);
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        for (int c = 0; c < BENCH_MAX_CPUS && c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &mask)) allowed[c] = 1;
    } else {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && c < BENCH_MAX_CPUS; c++) allowed[c] = 1;
    }
#ifdef _OPENMP
    /* with OMP_PLACES/OMP_PROC_BIND the OpenMP runtime has bound this (initial) thread to the first place already:
     * the CPUs of the run are those of all places */
    const char *pl = getenv("OMP_PLACES"), *pb = getenv("OMP_PROC_BIND");
    if (((pl && *pl) || (pb && *pb)) && omp_get_num_places() > 0) {
        memset(allowed, 0, sizeof allowed);
        for (int p = 0; p < omp_get_num_places(); p++) {
            int n = omp_get_place_num_procs(p), ids[BENCH_MAX_CPUS];
            if (n > BENCH_MAX_CPUS) n = BENCH_MAX_CPUS;
            omp_get_place_proc_ids(p, ids);
            for (int k = 0; k < n; k++)
                if (ids[k] >= 0 && ids[k] < BENCH_MAX_CPUS) allowed[ids[k]] = 1;
        }
    }
#endif
    if (gethostname(t->hostname, sizeof t->hostname - 1)) t->hostname[0] = '\0';
    name_cpu(t);

    /* cores: distinct (package, core) among the allowed CPUs; the first CPU of each core represents it */
    int first = -1, ncpu = 0;
    for (int c = 0; c < BENCH_MAX_CPUS; c++) {
        if (!allowed[c]) continue;
        char p[128];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        pkg[c] = (int)read_long(p, 0);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
        core[c] = (int)read_long(p, c);
        node[c] = cpu_node(c);
        if (first < 0) first = c;
        ncpu++;
    }
    t->ncpus = ncpu;
    static int rep[BENCH_MAX_CPUS]; /* representative CPU of each core, in CPU order */
    int ncores = 0, npkg = 0, nnode = 0;
    static int pkgs[BENCH_MAX_CPUS], nodes[BENCH_MAX_CPUS];
    for (int c = 0; c < BENCH_MAX_CPUS; c++) {
        if (!allowed[c]) continue;
        int dup = 0;
        for (int k = 0; k < ncores && !dup; k++) dup = pkg[rep[k]] == pkg[c] && core[rep[k]] == core[c];
        if (!dup) rep[ncores++] = c;
        dup = 0;
        for (int k = 0; k < npkg && !dup; k++) dup = pkgs[k] == pkg[c];
        if (!dup) pkgs[npkg++] = pkg[c];
        dup = 0;
        for (int k = 0; k < nnode && !dup; k++) dup = nodes[k] == node[c];
        if (!dup) nodes[nnode++] = node[c];
    }
    t->cores = ncores > 0 ? ncores : 1;
    t->sockets = npkg > 0 ? npkg : 1;
    t->numa_nodes = nnode > 0 ? nnode : 1;
    t->threads_per_core = ncpu > 0 && ncores > 0 ? (ncpu + ncores - 1) / ncores : 1;
    t->cores_per_socket = t->cores / t->sockets > 0 ? t->cores / t->sockets : 1;
    for (int k = 0; k < ncores; k++)
        if (first < 0 || node[rep[k]] == node[first]) t->core_cpus[t->ncore_cpus++] = rep[k];
    if (t->ncore_cpus == 0) t->core_cpus[t->ncore_cpus++] = first > 0 ? first : 0;
    t->cores_per_numa = t->ncore_cpus;
    if (t->cores_per_numa > t->cores_per_socket || t->cores_per_socket % t->cores_per_numa)
        t->cores_per_numa = t->cores_per_socket; /* an uneven share of the domains: one domain per socket */

    /* caches of the first allowed CPU: data and unified ones */
    for (int i = 0; i < 16 && t->ncaches < BENCH_MAX_CACHES && first >= 0; i++) {
        char d[128], p[192], b[256];
        snprintf(d, sizeof d, "/sys/devices/system/cpu/cpu%d/cache/index%d", first, i);
        snprintf(p, sizeof p, "%s/type", d);
        if (read_text(p, b, sizeof b)) break;
        if (strcmp(b, "Data") && strcmp(b, "Unified")) continue;
        bench_cache *c = &t->cache[t->ncaches];
        snprintf(p, sizeof p, "%s/level", d);
        c->level = (int)read_long(p, 0);
        snprintf(p, sizeof p, "%s/size", d);
        if (read_text(p, b, sizeof b) || (c->size = parse_size(b)) <= 0 || c->level < 1) continue;
        snprintf(p, sizeof p, "%s/ways_of_associativity", d);
        c->ways = (int)read_long(p, 0);
        snprintf(p, sizeof p, "%s/coherency_line_size", d);
        c->line = (int)read_long(p, 64);
        snprintf(c->name, sizeof c->name, "L%d", c->level);
        snprintf(p, sizeof p, "%s/shared_cpu_list", d);
        unsigned char set[BENCH_MAX_CPUS] = {0};
        c->shared_cpus = 1;
        if (!read_text(p, b, sizeof b)) c->shared_cpus = parse_cpulist(b, set, BENCH_MAX_CPUS);
        if (c->shared_cpus < 1) c->shared_cpus = 1;
        c->shared_cores = c->shared_cpus / (t->threads_per_core > 0 ? t->threads_per_core : 1);
        if (c->shared_cores < 1) c->shared_cores = 1;
        c->instances = (t->cores + c->shared_cores - 1) / c->shared_cores;
        t->ncaches++;
    }
    /* sort by level (index order usually is) */
    for (int i = 1; i < t->ncaches; i++)
        for (int j = i; j > 0 && t->cache[j].level < t->cache[j - 1].level; j--) {
            bench_cache tmp = t->cache[j];
            t->cache[j] = t->cache[j - 1];
            t->cache[j - 1] = tmp;
        }
    if (t->ncaches == 0 || t->cache[0].level != 1) default_caches(t);
    else {
        t->from_sysfs = 1;
        t->cacheline = t->cache[0].line > 0 ? t->cache[0].line : 64;
    }
    char thp[128];
    if (!read_text("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof thp)) {
        char *a = strchr(thp, '['), *z = a ? strchr(a, ']') : NULL;
        if (a && z) snprintf(t->thp, sizeof t->thp, "%.*s", (int)(z - a - 1), a + 1);
    }
}

int bench_machine_path(const bench_topo *t, char *buf, size_t size)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    char base[4096], host[128];
    if (xdg && *xdg) snprintf(base, sizeof base, "%s", xdg);
    else if (home && *home) snprintf(base, sizeof base, "%s/.local/share", home);
    else return 0;
    snprintf(host, sizeof host, "%s", t->hostname[0] ? t->hostname : t->cpu_name);
    for (char *c = host; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-') *c = '-';
    if (!host[0]) snprintf(host, sizeof host, "this-machine");
    return snprintf(buf, size, "%s/spmv/machines/%s.machine", base, host) < (int)size;
}

/* ---------------------------------------------------------------------------------------------- clock */

/* 100 dependent integer adds per round: each needs its predecessor, 1 cycle apiece on every core this runs on.
 * add reg,reg (not an immediate): some cores eliminate dependent immediate adds at rename. */
static uint64_t add_chain(int64_t rounds, uint64_t inc)
{
    uint64_t acc = 0;
    for (int64_t r = 0; r < rounds; r++) {
#if defined(__x86_64__)
        __asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(acc) : "r"(inc));
#elif defined(__aarch64__)
        __asm__ volatile(".rept 100\n\tadd %0, %0, %1\n\t.endr" : "+r"(acc) : "r"(inc));
#else
        for (int k = 0; k < 100; k++) {
            acc += inc;
            __asm__ volatile("" : "+r"(acc)); /* a compiled loop: only an estimate on other targets */
        }
#endif
    }
    return acc;
}

double bench_clock_once(int64_t adds, double *tsc_ghz)
{
    int64_t rounds = adds / 100 > 0 ? adds / 100 : 1;
    volatile uint64_t inc = 1, sink;
    add_chain(rounds / 16 + 1, inc); /* ramp the clock up */
#if defined(__x86_64__)
    uint64_t c0 = __rdtsc();
#endif
    double t0 = bench_now();
    sink = add_chain(rounds, inc);
    double t1 = bench_now();
    (void)sink;
#if defined(__x86_64__)
    uint64_t c1 = __rdtsc();
    if (tsc_ghz) *tsc_ghz = (double)(c1 - c0) / (t1 - t0) * 1e-9;
#else
    if (tsc_ghz) *tsc_ghz = 0;
#endif
    return (double)rounds * 100.0 / (t1 - t0) * 1e-9;
}

/* ---------------------------------------------------------------------------------------------- chase */

int64_t bench_chase_init(void *buf, size_t bytes, size_t stride, uint64_t seed)
{
    if (!buf || stride < sizeof(void *) || stride % sizeof(void *)) return 0;
    int64_t n = (int64_t)(bytes / stride);
    if (n < 1) return 0;
    char *b = buf;
    uint64_t s = seed;
    if (n <= (int64_t)UINT32_MAX) {
        uint32_t *p = malloc((size_t)n * sizeof *p);
        if (!p) return 0;
        for (int64_t i = 0; i < n; i++) p[i] = (uint32_t)i;
        /* Sattolo: swap with j < i, giving one cycle through all n elements */
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = (int64_t)(bench_rand(&s) % (uint64_t)i);
            uint32_t t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        for (int64_t i = 0; i < n; i++) *(void **)(b + (size_t)i * stride) = b + (size_t)p[i] * stride;
        free(p);
    } else {
        return 0;
    }
    return n;
}

void *bench_chase_run(void *start, int64_t steps)
{
    void *const *p = start;
    int64_t r = steps / 16;
    for (int64_t i = 0; i < r; i++) {
        p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p;
        p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p;
    }
    for (int64_t i = r * 16; i < steps; i++) p = *p;
    return (void *)p;
}

int64_t bench_huge_bytes(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0;
    int64_t huge = -1;
    const uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char dash;
        if (sscanf(line, "%lx%c%lx ", &lo, &dash, &hi) == 3 && dash == '-') {
            if (in) break; /* past the mapping */
            in = a >= lo && a < hi;
            continue;
        }
        long long kb;
        if (in && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1) huge = (int64_t)kb * 1024;
    }
    fclose(f);
    return huge;
}
