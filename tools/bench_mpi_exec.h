/* spmv-bench --mpi: run spmv-bench-mpi (tools/spmv_bench_mpi.c) in place of spmv-bench. */
#ifndef SPMV_BENCH_MPI_EXEC_H
#define SPMV_BENCH_MPI_EXEC_H

/* 1 when the arguments contain --mpi. */
int bench_mpi_wanted(int argc, char **argv);
/* execv spmv-bench-mpi with the arguments minus --mpi; returns (2, after a message) only when that fails. */
int bench_mpi_exec(const char *prog, int argc, char **argv);

#endif
