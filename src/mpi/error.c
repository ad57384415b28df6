/* spmv::mpi errors: the thread-local message, MPI error strings, and the collective agreement on a status. */
#include "mpi_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[SMPI_MSG];

const char *spmv_mpi_last_error(void) { return last_error; }

void smpi_clear_error(void) { last_error[0] = '\0'; }

spmv_status smpi_err(int rank, spmv_status status, const char *fmt, ...)
{
    char text[SMPI_MSG - 32]; /* room for the "rank R: " prefix */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (rank >= 0) snprintf(last_error, sizeof last_error, "rank %d: %s", rank, text);
    else snprintf(last_error, sizeof last_error, "%s", text);
    return status;
}

spmv_status smpi_core_err(int rank, const char *fn, spmv_status status)
{
    return smpi_err(rank, status, "%s: %s (%s)", fn, spmv_last_error(), spmv_strerror(status));
}

spmv_status smpi_mpi_err(int rank, const char *fn, const char *call, int code)
{
    char s[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS) len = snprintf(s, sizeof s, "MPI error code %d", code);
    s[len < 0 ? 0 : len > MPI_MAX_ERROR_STRING ? MPI_MAX_ERROR_STRING : len] = '\0';
    return smpi_err(rank, SPMV_ERR_COMM, "%s: %s failed: %s", fn, call, s);
}

void *smpi_malloc(size_t bytes) { return bytes ? malloc(bytes) : NULL; }
void *smpi_calloc(size_t n, size_t size) { return n && size ? calloc(n, size) : NULL; }

spmv_status smpi_share_error(MPI_Comm comm, int rank, int first, const char *fn, spmv_status st)
{
    struct { int status; char msg[SMPI_MSG]; } m;
    memset(&m, 0, sizeof m);
    if (rank == first) {
        m.status = st;
        memcpy(m.msg, last_error, sizeof m.msg);
    }
    int rc = MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm);
    if (rc != MPI_SUCCESS) return smpi_mpi_err(rank, fn, "MPI_Bcast", rc);
    m.msg[SMPI_MSG - 1] = '\0';
    memcpy(last_error, m.msg, sizeof last_error);
    return m.status ? (spmv_status)m.status : SPMV_ERR_COMM;
}

spmv_status smpi_agree(MPI_Comm comm, int rank, int size, const char *fn, spmv_status st)
{
    int mine = st != SPMV_OK ? rank : size, first = size;
    int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return smpi_mpi_err(rank, fn, "MPI_Allreduce", rc);
    if (first == size) return SPMV_OK;
    return smpi_share_error(comm, rank, first, fn, st);
}

spmv_status smpi_same(MPI_Comm comm, int rank, const char *fn, const int64_t *v, int n, int *same)
{
    /* compare a 64-bit FNV-1a hash of the values (and n): no allocation, so no rank can drop out of the reduction */
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)v;
    for (size_t k = 0; k < (size_t)n * sizeof *v; k++) h = (h ^ b[k]) * 1099511628211ull;
    h ^= (uint64_t)n * 0x9e3779b97f4a7c15ull;
    int64_t in[2] = {(int64_t)h, ~(int64_t)h}, out[2]; /* max of v and of ~v: max and min */
    *same = 0;
    int rc = MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return smpi_mpi_err(rank, fn, "MPI_Allreduce", rc);
    *same = out[0] == in[0] && out[1] == in[1];
    return SPMV_OK;
}
