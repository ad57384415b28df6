/* Microbenchmark kernels for AVX-512F (512-bit, W = 8). Compiled with -mavx512f only (src/bench/CMakeLists.txt);
 * used only when the CPU and OS support AVX-512F (bench_isa.c). */
#include "bench.h"

#include <immintrin.h>

#if !defined(__AVX512F__)
#error "compile isa_avx512.c with -mavx512f"
#endif

#define BT_SUFFIX avx512
#define VEC __m512d
#define IVEC __m256i
#define BT_W ((int64_t)8)
#define BT_NCH 24 /* 32 zmm registers */
#define BT_HAS_HADD 1
#define VZERO() _mm512_setzero_pd()
#define VSET1(s) _mm512_set1_pd(s)
#define VLOAD(p) _mm512_load_pd(p)
#define VLOADU(p) _mm512_loadu_pd(p)
#define VSTORE(p, v) _mm512_store_pd((p), (v))
#define VADD(a, b) _mm512_add_pd((a), (b))
#define VMUL(a, b) _mm512_mul_pd((a), (b))
#define VFMA(a, b, c) _mm512_fmadd_pd((a), (b), (c))
#define ILOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define VGATHER(base, iv) _mm512_i32gather_pd((iv), (base), 8)
#define VGATHER_CHAIN(tab, v) _mm512_i64gather_pd(_mm512_castpd_si512(v), (tab), 8)
#define LANE0_I64(v) _mm_cvtsi128_si64(_mm512_castsi512_si128(_mm512_castpd_si512(v)))
#define VOPAQUE(v) __asm__ volatile("" : "+v"(v))
#define IOPAQUE(v) __asm__ volatile("" : "+v"(v))
#define VSINK(v) __asm__ volatile("" ::"v"(v))
#define SSINK(s) __asm__ volatile("" ::"v"(s))

static inline __m128d hsum2(__m512d v)
{
    __m256d h = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
    return _mm_add_sd(s, _mm_unpackhi_pd(s, s));
}
#define VHSUM_S(v) _mm_cvtsd_f64(hsum2(v))
#define VHSUM_V(v) _mm512_castpd128_pd512(hsum2(v))

/* the emulated gather of the SpMV kernels (src/kernels/avx512/sell_avx512.c, emul_gather8) */
static inline __m512d emul8(const double *x, const int32_t *c)
{
    const __m128d p0 = _mm_loadh_pd(_mm_load_sd(x + c[0]), x + c[1]);
    const __m128d p1 = _mm_loadh_pd(_mm_load_sd(x + c[2]), x + c[3]);
    const __m128d p2 = _mm_loadh_pd(_mm_load_sd(x + c[4]), x + c[5]);
    const __m128d p3 = _mm_loadh_pd(_mm_load_sd(x + c[6]), x + c[7]);
    const __m256d q0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p1, 1);
    const __m256d q1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(p2), p3, 1);
    return _mm512_insertf64x4(_mm512_castpd256_pd512(q0), q1, 1);
}
#define VEMUL(base, c) emul8((base), (c))
/* masked unaligned load, the mask an opaque run-time value (as the run columns' masks) */
#define VMASKLOADU(p, mk) _mm512_maskz_loadu_pd((__mmask8)(mk)[0], (p))

/* value indices as src/kernels/avx512/sell_avx512.c reads them (vi_val8): the table in two registers */
#define VVIDX_DECL(tab) const __m512d vt0 = _mm512_loadu_pd(tab), vt1 = _mm512_loadu_pd((tab) + 8);
#define VVIDX(p) _mm512_permutex2var_pd(vt0, _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(p))), vt1)

#include "bench_template.h"

static int width(void) { return 8; }

const bench_isa bench_isa_avx512 = {"avx512", "AVX-512F (512-bit)", width, 1, 1, BT_STREAM_TABLE, BT_INCORE_TABLE};
