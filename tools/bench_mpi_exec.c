/* spmv-bench --mpi: hand over to spmv-bench-mpi, the MPI build of the benchmark (built with spmv::mpi), so that
 * spmv-bench itself stays free of MPI. Run under mpirun: every rank's spmv-bench replaces itself (execv keeps the
 * process and its MPI environment) with spmv-bench-mpi and the same arguments. */
#define _POSIX_C_SOURCE 200809L /* readlink, execv */
#include "bench_mpi_exec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bench_mpi_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mpi")) return 1;
    return 0;
}

int bench_mpi_exec(const char *prog, int argc, char **argv)
{
    char self[4096], path[4200];
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "%s: --mpi: out of memory\n", prog);
        return 2;
    }
    int n = 0;
    args[n++] = "spmv-bench-mpi";
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--mpi")) args[n++] = argv[i];
    args[n] = NULL;
    /* next to this executable first (build tree, install prefix), then PATH */
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(path, sizeof path, "%s/spmv-bench-mpi", self);
            if (access(path, X_OK) == 0) execv(path, args);
        }
    }
    execvp("spmv-bench-mpi", args);
    fprintf(stderr, "%s: --mpi: cannot run spmv-bench-mpi (%s): spmv was built without MPI? Install Open MPI "
            "(scripts/install-deps.sh) and rebuild, then run under mpirun\n", prog, strerror(errno));
    free(args);
    return 2;
}
