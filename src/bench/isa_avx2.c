/* Microbenchmark kernels for AVX2 + FMA (256-bit, W = 4). Compiled with -mavx2 -mfma only (src/bench/
 * CMakeLists.txt); used only when the CPU and OS support AVX2 and FMA (bench_isa.c). */
#include "bench.h"

#include <immintrin.h>
#include <string.h>

#if !defined(__AVX2__) || !defined(__FMA__)
#error "compile isa_avx2.c with -mavx2 -mfma"
#endif

#define BT_SUFFIX avx2
#define VEC __m256d
#define IVEC __m128i
#define BT_W ((int64_t)4)
#define BT_NCH 12 /* 16 ymm registers: 12 chains + 2 operands; Zen/Intel FMA: 4 cy x 2 pipes = 8 needed */
#define BT_HAS_HADD 1
#define VZERO() _mm256_setzero_pd()
#define VSET1(s) _mm256_set1_pd(s)
#define VLOAD(p) _mm256_load_pd(p)
#define VLOADU(p) _mm256_loadu_pd(p)
#define VSTORE(p, v) _mm256_store_pd((p), (v))
#define VADD(a, b) _mm256_add_pd((a), (b))
#define VMUL(a, b) _mm256_mul_pd((a), (b))
#define VFMA(a, b, c) _mm256_fmadd_pd((a), (b), (c))
#define ILOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define VGATHER(base, iv) _mm256_i32gather_pd((base), (iv), 8)
#define VGATHER_CHAIN(tab, v) _mm256_i64gather_pd((tab), _mm256_castpd_si256(v), 8)
#define LANE0_I64(v) _mm_cvtsi128_si64(_mm256_castsi256_si128(_mm256_castpd_si256(v)))
#define VOPAQUE(v) __asm__ volatile("" : "+x"(v))
#define IOPAQUE(v) __asm__ volatile("" : "+x"(v))
#define VSINK(v) __asm__ volatile("" ::"x"(v))
#define SSINK(s) __asm__ volatile("" ::"x"(s))

/* extract the upper half, add, then add the two lanes: the usual x86 reduction sequence */
static inline __m128d hsum2(__m256d v)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_add_sd(s, _mm_unpackhi_pd(s, s));
}
#define VHSUM_S(v) _mm_cvtsd_f64(hsum2(v))
#define VHSUM_V(v) _mm256_castpd128_pd256(hsum2(v))

/* the emulated gather of the SpMV kernels (src/kernels/avx2/sell_avx2.c, gather4 X_EMUL) */
static inline __m256d emul4(const double *x, const int32_t *c)
{
    const __m128d p0 = _mm_loadh_pd(_mm_load_sd(x + c[0]), x + c[1]);
    const __m128d p1 = _mm_loadh_pd(_mm_load_sd(x + c[2]), x + c[3]);
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p1, 1);
}
#define VEMUL(base, c) emul4((base), (c))
#define VMASKLOADU(p, mk) _mm256_maskload_pd((p), _mm256_loadu_si256((const __m256i *)(const void *)(mk)))

/* value indices as src/kernels/avx2/sell_avx2.c reads them with hardware gathers (vi_val4): 4 indices, a gather from
 * the table */
static inline __m256d vi4(const uint8_t *p, const double *tab)
{
    int32_t w;
    memcpy(&w, p, sizeof w);
    return _mm256_i32gather_pd(tab, _mm_cvtepu8_epi32(_mm_cvtsi32_si128(w)), 8);
}
#define VVIDX_DECL(tab) const double *vtab = (tab);
#define VVIDX(p) vi4((p), vtab)

#include "bench_template.h"

static int width(void) { return 4; }

const bench_isa bench_isa_avx2 = {"avx2", "AVX2+FMA (256-bit)", width, 1, 1, BT_STREAM_TABLE, BT_INCORE_TABLE};
