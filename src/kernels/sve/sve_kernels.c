/* The SVE kernel family (compiled with -march=armv8-a+sve, no -msve-vector-bits: vector-length agnostic). The
 * registry (src/kernels/registry.c) takes the first entry that fits: the CRS kernel, or the first SELL kernel
 * whose accepts(S) says yes -- C = k*VL with k in {1, 2, 4, 8} first, then any other multiple of VL; a C that is
 * not a multiple of VL gets the reference kernel. The family is used only when getauxval(AT_HWCAP) & HWCAP_SVE
 * (src/arch/cpu.c), so no SVE instruction runs on a CPU without SVE. */
#include "kernel.h"

#include <arm_sve.h>
#include <stddef.h>

extern const spmv_kernel spmv__k_crs_sve;
extern const spmv_kernel spmv__k_sell_sve_c1, spmv__k_sell_sve_c2, spmv__k_sell_sve_c4, spmv__k_sell_sve_c8,
    spmv__k_sell_sve_cm;

const spmv_kernel *const spmv__sve_kernels[] = {
    &spmv__k_crs_sve,     &spmv__k_sell_sve_c1, &spmv__k_sell_sve_c2, &spmv__k_sell_sve_c4,
    &spmv__k_sell_sve_c8, &spmv__k_sell_sve_cm, NULL,
};

/* The running vector length in doubles, for the registry's SPMV_VERBOSE message (called only when SVE is usable). */
int spmv__sve_vl_doubles(void);
int spmv__sve_vl_doubles(void) { return (int)svcntd(); }
