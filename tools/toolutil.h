/* Shared helpers of the command-line tools (not part of the library). */
#ifndef SPMV_TOOLUTIL_H
#define SPMV_TOOLUTIL_H

#include "spmv_tune.h"
#include "outfile.h" /* tool_outfile: src/util/outfile.h, the tools' copy */

/* Parse a whole decimal integer in [lo, hi]; on failure print "PROG: OPTION: ..." to stderr and return 0. */
int tool_parse_int(const char *prog, const char *opt, const char *s, long lo, long hi, long *out);

/* A list of integers in [lo, hi] separated by any character of sep (e.g. "," or ",x"), at most max items, into out.
 * An empty item ("1,,2", a leading or trailing separator), a bad number or too many items: prints "PROG: OPT: ..."
 * naming the argument and returns -1. Returns the number of items. */
int tool_parse_int_list(const char *prog, const char *opt, const char *s, const char *sep, long lo, long hi,
                        long *out, int max);

/* "NX" or "NX,NY,NZ" (also NXxNYxNZ) of --hpcg, each 1..2^20, into n[3]; 0, or 1 after printing "PROG: OPT: ...". */
int tool_parse_hpcg(const char *prog, const char *opt, const char *s, long n[3]);

/* Load the matrix named by a spec: a Matrix Market path, or "hpcg:NX[,NY,NZ]" (the built-in HPCG stencil).
 * Prints the library's error on failure and returns its status. name: a short label (static buffer). */
spmv_status tool_load(const char *prog, const char *spec, spmv_crs **A, const char **name);

/* Print the library's last error as "PROG: text (status)". */
void tool_error(const char *prog, spmv_status st);

/* Wall clock in seconds. */
double tool_now(void);

/* The library's environment (SPMV_ARCH and the other variables spmv_arch_get checks) before any work: 0, or -1 after
 * printing the library's error (the tool then exits with 1) */
int tool_env(const char *prog);

/* Before the tool's work (its first OpenMP region): its OpenMP threads, *threads (its -t, > 0) set with
 * omp_set_num_threads, else OpenMP's default (OMP_NUM_THREADS, or the cores) into *threads (1 without OpenMP; threads
 * NULL: the default, not returned); above SPMV_MAX_THREADS (libgomp fails with a segmentation fault at 100 000) a
 * message "PROG: OMP_NUM_THREADS=...: ..." and 2; a warning where they exceed the CPUs. Then tool_env: 1 where it
 * fails. Else 0. */
int tool_start(const char *prog, long *threads);

/* Check y = A*x against an independent serial CRS loop: returns the largest |y_i - yref_i| / (|A||x|)_i
 * (0 for exact), or +inf when a NaN/Inf differs. */
double tool_check(const spmv_crs *A, const double *x, const double *y);


/* The machine file for this machine: explicit path if given, else the newest *.machine under
 * $XDG_DATA_HOME/spmv/machines (default ~/.local/share/spmv/machines), where spmv-machine writes.
 * Returns 1 and fills buf with the path when one is found, 0 otherwise. */
int tool_find_machine(const char *explicit_path, char *buf, size_t size);

/* Directory $XDG_DATA_HOME/spmv/SUB (or ~/.local/share/spmv/SUB) into buf; 0 when HOME is unset too. */
int tool_data_dir(const char *sub, char *buf, size_t size);

/* y = A*x with the matrix given: S when not NULL, else A. */
void tool_mv(const spmv_crs *A, const spmv_sell *S, const double *x, double *y);

/* Median seconds per multiply over `runs` timed runs (1..64) of at least run_time seconds each (the clock read after
 * growing batches), after one warm-up multiply; min and max per multiply through tmin/tmax when not NULL. */
double tool_time(const spmv_crs *A, const spmv_sell *S, const double *x, double *y, double run_time, int runs,
                 double *tmin, double *tmax);

/* Parse a number of seconds in (lo, hi] ([lo, hi] when lo_ok); on failure print "PROG: OPT: ..." and return 0. */
int tool_parse_seconds(const char *prog, const char *opt, const char *s, double lo, double hi, int lo_ok,
                       double *out);

/* The matrix argument every tool takes: "--hpcg SPEC" (stored as "hpcg:SPEC" in buf, replacing an earlier matrix)
 * or a file name (any argument not starting with '-', or "-"). argv[*i] is the current argument; *spec receives the
 * matrix. Returns 1 when the argument was the matrix (with *i advanced past a consumed value), 0 when it is not,
 * -1 after printing an error (a second file name, a bad --hpcg size: argument errors, exit status 2). */
int tool_matrix_arg(const char *prog, int argc, char **argv, int *i, char *buf, size_t size, const char **spec);

/* The hybrid SELL-C-sigma and padding-guard options of spmv-bench, spmv-convert and spmv-tune: "--long-rows N"
 * (spmv_sell_opts.long_rows: -1 auto, 0 off, > 0 a threshold) and "--max-stored F" (max_stored_factor: the
 * conversion refuses to store more than F x nnz entries; 0 = no limit; default 2, about twice the CRS memory).
 * argv[*i] is the current argument; a pointer left NULL refuses its option. Returns 1 when the argument was one of
 * them (*i advanced past its value), 0 when not, -1 after printing an error. TOOL_SELL_USAGE: their usage lines. */
int tool_sell_arg(const char *prog, int argc, char **argv, int *i, long *long_rows, double *max_stored);
#define TOOL_SELL_USAGE                                                                                             \
    "  --long-rows N   SELL rows with more than N entries go to a CRS part (-1: auto, max(64, 4 x the 99th\n"     \
    "                  percentile of the row lengths), the default; 0: none)\n"                                      \
    "  --max-stored F  refuse a SELL conversion storing more than F x nnz entries (default 2: about twice the\n"    \
    "                  memory of the CRS matrix; 0: no limit)\n"

/* Output files of the tools (machine files, CSV, JSON, plots) go through a temporary file in the same folder that
 * is renamed over PATH only when everything was written (src/util/outfile.h): a failed write never leaves a partial
 * file and never removes what was there; special files (/dev/stdout, /dev/null, FIFOs) are written in place.
 * tool_out_begin: open PATH; tool_out_end: flush, sync, close and rename. Both return 0, or 1 after printing
 * "PROG: OPT: PATH: reason" (opt may be NULL). */
int tool_out_begin(const char *prog, const char *opt, const char *path, tool_outfile *o);
int tool_out_end(const char *prog, const char *opt, tool_outfile *o);

/* Before a long run: can PATH be written (dir = 1: PATH is a folder, created when missing, in which files will be
 * written)? Tries what the write will do (creates and removes a probe file in the folder), so a missing or
 * read-only folder or /proc is found before the work (not a disk that fills up later). Returns 0, or 1 after printing
 * "PROG: OPT: PATH: reason". */
int tool_output_check(const char *prog, const char *opt, const char *path, int dir);

#endif
