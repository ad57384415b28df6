/* Kernel descriptors and the registry (internal). Kernels are serial over a range of rows or chunks; the OpenMP
 * driver (src/kernels/driver.c) calls them on the partition stored in the matrix. */
#ifndef SPMV_KERNEL_H
#define SPMV_KERNEL_H

#include "spmv.h"

/* y[r] = beta*y[r] + alpha*sum_j A[r,j]*x[j] for rows [r0, r1); beta == 0 means y is not read. */
typedef void (*spmv_crs_fn)(const spmv_crs *A, int32_t r0, int32_t r1, double alpha, const double *x, double beta,
                            double *y);
/* The same for chunks [c0, c1) of SELL-C-sigma; y in the order S->permuted selects. */
typedef void (*spmv_sell_fn)(const spmv_sell *S, int32_t c0, int32_t c1, double alpha, const double *x, double beta,
                             double *y);

typedef struct spmv_kernel {
    const char *name;     /* e.g. "sell-ref", "sell-avx512-C32" */
    spmv_arch arch;       /* family */
    int32_t C;            /* chunk height it implements; 0 = any C (reference) or CRS */
    spmv_crs_fn crs;      /* exactly one of crs/sell is set */
    spmv_sell_fn sell;
    spmv_traffic traffic; /* declared next to the kernel */
    /* optional: 1 if this kernel handles S (e.g. SVE: C a multiple of the running vector length); when NULL the
     * registry compares C. */
    int (*accepts)(const spmv_sell *S);
} spmv_kernel;

/* Registry: the kernel for a matrix, chosen once when the matrix is built. The reference kernel fills every
 * slot; faster families override single slots. With SPMV_VERBOSE=1 the choice and the reason a faster kernel was
 * not used go to stderr. Returns NULL only when SPMV_ARCH names a family that is not available (the message is
 * set): the constructor then fails with SPMV_ERR_ARCH. */
const spmv_kernel *spmv__crs_kernel(const spmv_crs *A);
const spmv_kernel *spmv__sell_kernel(const spmv_sell *S);

/* Reference kernels (src/kernels/ref/). */
extern const spmv_kernel spmv__k_crs_ref;
extern const spmv_kernel spmv__k_sell_ref;

/* Each optimized family lists its kernels, NULL-terminated (defined only when the family is built:
 * SPMV_HAVE_AVX512, SPMV_HAVE_SVE). */
extern const spmv_kernel *const spmv__avx512_kernels[];
extern const spmv_kernel *const spmv__sve_kernels[];

/* CPU support for a family, detected once (src/arch/cpu.c): 1 if both built in and usable on this CPU/OS. */
int spmv__arch_usable(spmv_arch a);

#endif
