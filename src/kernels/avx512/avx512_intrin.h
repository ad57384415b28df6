/* The intrinsics of the AVX-512 kernels: <immintrin.h> in the library; with SPMV_AVX512_EMU (test-only build of
 * emu/avx512_check.c) portable C stand-ins, so that the kernels' logic can be checked on any CPU. */
#ifndef SPMV_AVX512_INTRIN_H
#define SPMV_AVX512_INTRIN_H

#include <stdint.h>

#ifdef SPMV_AVX512_EMU
#include "emu/avx512_emu.h"
#else
#if !defined(__AVX512F__) || !defined(__AVX512VL__)
#error "the AVX-512 kernels are compiled with -mavx512f -mavx512vl -mavx512bw -mavx512dq (cmake/SpmvIsa.cmake)"
#endif
#include <immintrin.h>
#endif

/* The emulation (SPMV_AVX512_EMU, a test) is neither force-inlined nor fully unrolled: the logic is the same, and
 * its portable stand-ins, unrolled and inlined into every specialization, took clang 8 minutes for
 * sell_avx512.c under -fsanitize=address,undefined (scripts/test-sanitize.sh); 2 s without. */
#if defined(__GNUC__) && !defined(SPMV_AVX512_EMU)
#define SPMV_AVX512_INLINE static inline __attribute__((always_inline))
#else
#define SPMV_AVX512_INLINE static inline
#endif

/* Full unrolling of the loops over accumulators (constant trip counts after inlining), so the accumulator arrays
 * become registers: GCC and Clang need their own pragma. */
#if defined(SPMV_AVX512_EMU)
#define SPMV_UNROLL_FULL
#elif defined(__clang__)
#define SPMV_UNROLL_FULL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define SPMV_UNROLL_FULL _Pragma("GCC unroll 16")
#else
#define SPMV_UNROLL_FULL
#endif

/* Mask of the first n lanes of 8 (n <= 0: none, n >= 8: all). */
SPMV_AVX512_INLINE __mmask8 spmv__lanes8(int64_t n)
{
    return n <= 0 ? (__mmask8)0 : n >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << n) - 1u);
}

/* How y is written: the alpha = 1, beta = 0 fast path, y = alpha*A*x (beta = 0: y not read), or the general form. */
enum { SPMV_Y_SET = 0, SPMV_Y_SCALE = 1, SPMV_Y_AXPBY = 2 };

#endif
