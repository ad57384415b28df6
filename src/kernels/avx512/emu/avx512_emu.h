/* TEST ONLY: portable C stand-ins for the handful of AVX-512 intrinsics the kernels use, so the kernels' logic
 * (indexing, masks, remainders, unroll, alpha/beta paths, vector orders) runs on any CPU. Included instead of
 * <immintrin.h> when SPMV_AVX512_EMU is defined (emu/avx512_check.c); never part of the library.
 *
 * Stricter than the hardware where it helps find bugs: aligned loads/streams abort on a misaligned address,
 * masked loads/stores/gathers/scatters touch only the active lanes (as fault suppression allows), so an
 * AddressSanitizer build flags any access the real instruction would make out of bounds. */
#ifndef SPMV_AVX512_EMU_H
#define SPMV_AVX512_EMU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { double d[8]; } __m512d;
typedef struct { int32_t i[8]; } __m256i;
typedef uint8_t __mmask8;
typedef struct { double d[2]; } __m128d;
typedef struct { uint16_t h[8]; } __m128i;
typedef struct { double d[4]; } __m256d;

/* counters the check reads: streaming stores, scatters, gathers issued */
extern long spmv_emu_streams, spmv_emu_scatters, spmv_emu_gathers;

static inline void spmv_emu_align(const void *p, uintptr_t a, const char *what)
{
    if ((uintptr_t)p % a) {
        fprintf(stderr, "avx512 emu: %s at %p is not %u-byte aligned\n", what, p, (unsigned)a);
        abort();
    }
}

static inline __m512d _mm512_setzero_pd(void)
{
    __m512d r;
    for (int l = 0; l < 8; l++) r.d[l] = 0.0;
    return r;
}
static inline __m512d _mm512_set1_pd(double a)
{
    __m512d r;
    for (int l = 0; l < 8; l++) r.d[l] = a;
    return r;
}
static inline __m512d _mm512_loadu_pd(const void *p)
{
    __m512d r;
    for (int l = 0; l < 8; l++) r.d[l] = ((const double *)p)[l];
    return r;
}
static inline __m512d _mm512_load_pd(const void *p)
{
    spmv_emu_align(p, 64, "_mm512_load_pd");
    return _mm512_loadu_pd(p);
}
static inline __m512d _mm512_maskz_loadu_pd(__mmask8 m, const void *p)
{
    __m512d r = _mm512_setzero_pd();
    for (int l = 0; l < 8; l++)
        if (m >> l & 1) r.d[l] = ((const double *)p)[l];
    return r;
}
static inline void _mm512_storeu_pd(void *p, __m512d a)
{
    for (int l = 0; l < 8; l++) ((double *)p)[l] = a.d[l];
}
static inline void _mm512_mask_storeu_pd(void *p, __mmask8 m, __m512d a)
{
    for (int l = 0; l < 8; l++)
        if (m >> l & 1) ((double *)p)[l] = a.d[l];
}
static inline void _mm512_stream_pd(void *p, __m512d a)
{
    spmv_emu_align(p, 64, "_mm512_stream_pd");
    spmv_emu_streams++;
    _mm512_storeu_pd(p, a);
}
static inline void _mm_sfence(void) {}
/* a prefetch is a hint: it never faults and changes nothing (the kernels prefetch past the arrays' ends) */
enum { _MM_HINT_T0 = 3, _MM_HINT_T1 = 2, _MM_HINT_T2 = 1, _MM_HINT_NTA = 0 };
static inline void _mm_prefetch(const char *p, int hint) { (void)p, (void)hint; }

static inline __m512d _mm512_add_pd(__m512d a, __m512d b)
{
    for (int l = 0; l < 8; l++) a.d[l] += b.d[l];
    return a;
}
static inline __m512d _mm512_mul_pd(__m512d a, __m512d b)
{
    for (int l = 0; l < 8; l++) a.d[l] *= b.d[l];
    return a;
}
static inline __m512d _mm512_fmadd_pd(__m512d a, __m512d b, __m512d c)
{
    for (int l = 0; l < 8; l++) c.d[l] = fma(a.d[l], b.d[l], c.d[l]);
    return c;
}
static inline double _mm512_reduce_add_pd(__m512d a)
{
    /* the hardware sequence: halves, quarters, pairs */
    double q[4], p[2];
    for (int l = 0; l < 4; l++) q[l] = a.d[l] + a.d[l + 4];
    for (int l = 0; l < 2; l++) p[l] = q[l] + q[l + 2];
    return p[0] + p[1];
}

static inline __m256i _mm256_loadu_si256(const __m256i *p)
{
    __m256i r;
    for (int l = 0; l < 8; l++) r.i[l] = ((const int32_t *)p)[l];
    return r;
}
static inline __m256i _mm256_load_si256(const __m256i *p)
{
    spmv_emu_align(p, 32, "_mm256_load_si256");
    return _mm256_loadu_si256(p);
}
static inline __m256i _mm256_maskz_loadu_epi32(__mmask8 m, const void *p)
{
    __m256i r;
    for (int l = 0; l < 8; l++) {
        r.i[l] = 0;
        if (m >> l & 1) r.i[l] = ((const int32_t *)p)[l];
    }
    return r;
}

static inline __m512d _mm512_mask_i32gather_pd(__m512d src, __mmask8 m, __m256i idx, const void *base, int scale)
{
    spmv_emu_gathers++;
    for (int l = 0; l < 8; l++)
        if (m >> l & 1) src.d[l] = *(const double *)((const char *)base + (int64_t)idx.i[l] * scale);
    return src;
}
static inline __m512d _mm512_i32gather_pd(__m256i idx, const void *base, int scale)
{
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xFF, idx, base, scale);
}
static inline void _mm512_mask_i32scatter_pd(void *base, __mmask8 m, __m256i idx, __m512d a, int scale)
{
    spmv_emu_scatters++;
    for (int l = 0; l < 8; l++)
        if (m >> l & 1) *(double *)((char *)base + (int64_t)idx.i[l] * scale) = a.d[l];
}
static inline void _mm512_i32scatter_pd(void *base, __m256i idx, __m512d a, int scale)
{
    _mm512_mask_i32scatter_pd(base, 0xFF, idx, a, scale);
}

/* the emulated gather's pieces: scalar loads into halves, inserts */
static inline __m128d _mm_load_sd(const double *p)
{
    __m128d r = {{*p, 0.0}};
    return r;
}
static inline __m128d _mm_loadh_pd(__m128d a, const double *p)
{
    a.d[1] = *p;
    return a;
}
static inline __m256d _mm256_castpd128_pd256(__m128d a)
{
    __m256d r = {{a.d[0], a.d[1], 0.0, 0.0}};
    return r;
}
static inline __m256d _mm256_insertf128_pd(__m256d a, __m128d b, int imm)
{
    a.d[2 * (imm & 1)] = b.d[0];
    a.d[2 * (imm & 1) + 1] = b.d[1];
    return a;
}
static inline __m512d _mm512_castpd256_pd512(__m256d a)
{
    __m512d r = _mm512_setzero_pd();
    for (int l = 0; l < 4; l++) r.d[l] = a.d[l];
    return r;
}
static inline __m512d _mm512_insertf64x4(__m512d a, __m256d b, int imm)
{
    for (int l = 0; l < 4; l++) a.d[4 * (imm & 1) + l] = b.d[l];
    return a;
}

/* y through perm in the emulated-gather variant: the vector's quarters, stored one double at a time */
static inline __m256d _mm512_castpd512_pd256(__m512d a)
{
    __m256d r = {{a.d[0], a.d[1], a.d[2], a.d[3]}};
    return r;
}
static inline __m256d _mm512_extractf64x4_pd(__m512d a, int imm)
{
    const int o = 4 * (imm & 1);
    __m256d r = {{a.d[o], a.d[o + 1], a.d[o + 2], a.d[o + 3]}};
    return r;
}
static inline __m128d _mm256_castpd256_pd128(__m256d a)
{
    __m128d r = {{a.d[0], a.d[1]}};
    return r;
}
static inline __m128d _mm256_extractf128_pd(__m256d a, int imm)
{
    __m128d r = {{a.d[2 * (imm & 1)], a.d[2 * (imm & 1) + 1]}};
    return r;
}
static inline __m128d _mm_set_sd(double a)
{
    __m128d r = {{a, 0.0}};
    return r;
}
static inline __m128d _mm_mul_sd(__m128d a, __m128d b)
{
    a.d[0] = a.d[0] * b.d[0];
    return a;
}
static inline __m128d _mm_add_sd(__m128d a, __m128d b)
{
    a.d[0] = a.d[0] + b.d[0];
    return a;
}
static inline __m128d _mm_unpackhi_pd(__m128d a, __m128d b)
{
    __m128d r = {{a.d[1], b.d[1]}};
    return r;
}
static inline void _mm_store_sd(double *p, __m128d a) { *p = a.d[0]; }
static inline void _mm_storeh_pd(double *p, __m128d a) { *p = a.d[1]; }

/* 16-bit indices: aligned 16-byte load, zero extension to 8 x int32 */
static inline __m128i _mm_load_si128(const __m128i *p)
{
    spmv_emu_align(p, 16, "_mm_load_si128");
    return *p;
}
typedef struct { int64_t q[8]; } __m512i;
static inline __m128i _mm_loadl_epi64(const __m128i *p)
{
    __m128i r = {{0}};
    const uint8_t *b = (const uint8_t *)p;
    for (int l = 0; l < 4; l++) r.h[l] = (uint16_t)(b[2 * l] | b[2 * l + 1] << 8); /* little-endian, as x86 */
    return r;
}
static inline __m512i _mm512_cvtepu8_epi64(__m128i a)
{
    __m512i r;
    for (int l = 0; l < 8; l++) r.q[l] = (int64_t)(a.h[l / 2] >> (8 * (l % 2)) & 0xFF);
    return r;
}
/* lane l: idx bits 0-2 select the element, bit 3 the table (a or b); the higher bits are ignored, as vpermt2pd */
static inline __m512d _mm512_permutex2var_pd(__m512d a, __m512i idx, __m512d b)
{
    __m512d r;
    for (int l = 0; l < 8; l++) r.d[l] = idx.q[l] & 8 ? b.d[idx.q[l] & 7] : a.d[idx.q[l] & 7];
    return r;
}
static inline __m256i _mm256_cvtepu16_epi32(__m128i a)
{
    __m256i r;
    for (int l = 0; l < 8; l++) r.i[l] = (int32_t)a.h[l];
    return r;
}

#endif
