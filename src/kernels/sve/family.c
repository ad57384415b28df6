/* The SVE family (compiled with -march=armv8-a+sve, no -msve-vector-bits: vector-length agnostic). The registry
 * takes the first entry that fits: the CRS kernel, or the first SELL kernel whose accepts(S) says yes -- C = k*VL
 * with k in {1, 2, 4, 8} first, then any other multiple of VL; a C that is not a multiple of VL gets the reference
 * kernel. The family is usable only when getauxval(AT_HWCAP) & HWCAP_SVE (src/arch/cpu.c), so no SVE instruction
 * runs on a CPU without SVE. Every kernel fetches x with the hardware gather (ld1d gather). */
#include "kernel.h"

#include <arm_sve.h>
#include <stddef.h>

extern const spmv_kernel spmv__k_crs_sve;
extern const spmv_kernel spmv__k_sell_sve_c1, spmv__k_sell_sve_c2, spmv__k_sell_sve_c4, spmv__k_sell_sve_c8,
    spmv__k_sell_sve_cm;

static const spmv_kernel *const sve_kernels[] = {
    &spmv__k_crs_sve,     &spmv__k_sell_sve_c1, &spmv__k_sell_sve_c2, &spmv__k_sell_sve_c4,
    &spmv__k_sell_sve_c8, &spmv__k_sell_sve_cm, NULL,
};

/* The running vector length in doubles (called only where SVE is usable). */
static int32_t sve_vector_doubles(void) { return (int32_t)svcntd(); }

const spmv_family spmv__family_sve = {
    .name = "sve",
    .arch = SPMV_ARCH_SVE,
    .usable = spmv__cpu_sve,
    .kernels = sve_kernels,
    .vector_doubles = sve_vector_doubles,
    .xaccess_default = NULL,
    .missing = "has SELL kernels for C a multiple of the SVE vector length only",
    .fma_latency = 9,
    .gather_cost = 5.5, /* A64FX: 4 cy gather + 1.5 index penalty (Alappat et al., Sect. II-A) */
};
