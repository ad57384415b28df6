/* The reference family: portable C kernels for CRS and SELL-C-sigma with any C. Always built and always usable; the
 * registry falls back to these kernels wherever a faster family has no kernel for a matrix. */
#include "kernel.h"

#include <stddef.h>

static const spmv_kernel *const ref_kernels[] = {&spmv__k_crs_ref, &spmv__k_sell_ref, NULL};

const spmv_family spmv__family_ref = {
    .name = "ref",
    .arch = SPMV_ARCH_REF,
    .usable = NULL,
    .kernels = ref_kernels,
    .vector_doubles = NULL,
    .xaccess_default = NULL,
    .missing = "runs every matrix",
    .fma_latency = 4,
    .gather_cost = 0, /* no gathers */
};
