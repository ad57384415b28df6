/* Safe output files, shared by the library (Matrix Market, machine files, the tuning database) and the tools (machine
 * files, CSV, JSON, plots). Not installed; compiled into the library (hidden) and into the tools' helper library.
 *
 * A regular file (or a new one) is written to a temporary file in the same folder and renamed over the target only
 * when everything was written, flushed, synced and closed without error: a failed write leaves the target as it
 * was, and only the temporary file is removed. A special file (a device such as /dev/full or /dev/null, a FIFO, a
 * socket, anything named under /dev/ or /proc/ such as /dev/stdout) cannot be renamed over: it is written in place,
 * and never removed. An existing regular file in a folder where no file can be created is written in place too
 * (the message of a failure says that it may be incomplete). Symbolic links to regular files are kept: the file
 * they point to is replaced. Errors come back as text, "PATH: what failed: strerror", with -1. */
#ifndef SPMV_OUTFILE_H
#define SPMV_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* the tools' copy (tools/CMakeLists.txt) has its own names, so that a program may link it with the static library */
#ifdef SPMV_OUTFILE_TOOLS
#define spmv__outfile tool_outfile
#define spmv__out_open tool_out_open
#define spmv__out_commit tool_out_commit
#define spmv__out_abort tool_out_abort
#define spmv__out_check tool_out_check
#endif

typedef struct spmv__outfile {
    FILE *f;      /* write through this (fprintf, fwrite, ...) */
    int fd;       /* the descriptor behind f */
    int direct;   /* 1: writing the target in place (special file, or a folder we cannot create in) */
    int special;  /* 1: a device, FIFO or socket (no fsync) */
    int err;      /* the first write error (errno), 0 if none */
    char path[4096]; /* the target as given */
    char real[4096]; /* the file that is replaced (symbolic links resolved) */
    char tmp[4096];  /* the temporary file, "" when direct */
} spmv__outfile;

/* Open path for writing (see above). 0, or -1 with msg set ("PATH: reason") and nothing left behind. */
int spmv__out_open(spmv__outfile *o, const char *path, char *msg, size_t msize);

/* Finish: flush, fsync (regular files), close, and rename the temporary file over the target. 0, or -1 with msg set
 * after removing the temporary file (the target is unchanged, unless it was written in place: then msg says so).
 * The outfile is closed either way. */
int spmv__out_commit(spmv__outfile *o, char *msg, size_t msize);

/* Give up: close and remove the temporary file (never the target). */
void spmv__out_abort(spmv__outfile *o);

/* Before a long run: could path be written by spmv__out_open? Creates and removes a probe temporary file in the
 * folder (a special file: checks write permission). 0, or -1 with msg set ("PATH: reason"). Nothing is changed. */
int spmv__out_check(const char *path, char *msg, size_t msize);

#endif
