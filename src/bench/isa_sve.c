/* Microbenchmark kernels for Arm SVE, vector-length agnostic (W = svcntd() at run time). Compiled with
 * -march=armv8-a+sve only (src/bench/CMakeLists.txt); used only when getauxval(AT_HWCAP) has HWCAP_SVE
 * (bench_isa.c). The gathers are those of spmv's SVE SELL kernel: ld1sw of 32-bit indices, ld1d gather with
 * 64-bit offsets scaled by 8 (Alappat et al., PMBS 2020, Table II: ld1d gather, complex stride). */
#include "bench.h"

#include <arm_sve.h>

#if !defined(__ARM_FEATURE_SVE)
#error "compile isa_sve.c with -march=armv8-a+sve"
#endif

#define BT_SUFFIX sve
#define VEC svfloat64_t
#define IVEC svint64_t
#define BT_W ((int64_t)svcntd())
#define BT_NCH 24 /* 32 z registers; A64FX: 9 cy x 2 pipes = 18 needed */
#define BT_HAS_HADD 1
#define PG svptrue_b64()
#define VZERO() svdup_n_f64(0.0)
#define VSET1(s) svdup_n_f64(s)
#define VLOAD(p) svld1_f64(PG, (p))
#define VLOADU(p) svld1_f64(PG, (p))
#define VSTORE(p, v) svst1_f64(PG, (p), (v))
#define VADD(a, b) svadd_f64_x(PG, (a), (b))
#define VMUL(a, b) svmul_f64_x(PG, (a), (b))
#define VFMA(a, b, c) svmla_f64_x(PG, (c), (a), (b))
#define VHSUM_S(v) svaddv_f64(PG, (v))
#define VHSUM_V(v) svdup_n_f64(svaddv_f64(PG, (v)))
#define ILOAD(p) svld1sw_s64(PG, (p))
#define VGATHER(base, iv) svld1_gather_s64index_f64(PG, (base), (iv))
#define VGATHER_CHAIN(tab, v) svld1_gather_s64index_f64(PG, (tab), svreinterpret_s64_f64(v))
#define LANE0_I64(v) svlasta_s64(svpfalse_b(), svreinterpret_s64_f64(v)) /* no active lane: element 0 */
#define VOPAQUE(v) __asm__ volatile("" : "+w"(v))
#define IOPAQUE(v) __asm__ volatile("" : "+w"(v))
#define VSINK(v) __asm__ volatile("" ::"w"(v))
#define SSINK(s) __asm__ volatile("" ::"w"(s))

/* value indices as src/kernels/sve/sell_sve.c reads them: ld1b of VL indices, a gather from the table */
#define VVIDX_DECL(tab) const double *vtab = (tab);
#define VVIDX(p) svld1_gather_u64index_f64(PG, vtab, svld1ub_u64(PG, (p)))

#include "bench_template.h"

static int width(void) { return (int)svcntd(); }

const bench_isa bench_isa_sve = {"sve", "SVE (vector-length agnostic)", width, 1, 1, BT_STREAM_TABLE, BT_INCORE_TABLE};
