/* The AVX-512 family for the registry (first match wins): the non-temporal-store SELL variants first (they accept a
 * matrix only when asked for, see sell_avx512.c), then SELL by chunk height, then CRS. NULL-terminated. */
#include "avx512_kernels.h"

#include <stddef.h>

const spmv_kernel *const spmv__avx512_kernels[] = {
    &spmv__k_sell_avx512_nt_c8, &spmv__k_sell_avx512_nt_c16, &spmv__k_sell_avx512_nt_c32, &spmv__k_sell_avx512_nt_c64,
    &spmv__k_sell_avx512_c8,    &spmv__k_sell_avx512_c16,    &spmv__k_sell_avx512_c32,    &spmv__k_sell_avx512_c64,
    &spmv__k_crs_avx512,        NULL,
};
