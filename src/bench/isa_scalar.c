/* Microbenchmark kernels in scalar code (W = 1), baseline flags: what spmv's reference kernels run on any CPU.
 * Compiled with -fno-tree-vectorize (src/bench/CMakeLists.txt) so it stays scalar. x86-64 baseline has no FMA:
 * the FMA tests there time a multiply and a dependent add (ISO C contracts nothing under -std=c11). */
#include "bench.h"

#include <string.h>

#define BT_SUFFIX scalar
#define VEC double
#define IVEC int64_t
#define BT_W ((int64_t)1)
#if defined(__aarch64__)
#define BT_NCH 24
#define VFMA(a, b, c) __builtin_fma((a), (b), (c)) /* fmadd: in the aarch64 baseline */
#define SCALAR_HAS_FMA 1
#define VOPAQUE(v) __asm__ volatile("" : "+w"(v))
#define VSINK(v) __asm__ volatile("" ::"w"(v))
#elif defined(__x86_64__)
#define BT_NCH 12
#define VFMA(a, b, c) ((a) * (b) + (c))
#define SCALAR_HAS_FMA 0
#define VOPAQUE(v) __asm__ volatile("" : "+x"(v))
#define VSINK(v) __asm__ volatile("" ::"x"(v))
#else
#define BT_NCH 12
#define VFMA(a, b, c) ((a) * (b) + (c))
#define SCALAR_HAS_FMA 0
#define VOPAQUE(v) __asm__ volatile("" : "+m"(v))
#define VSINK(v) __asm__ volatile("" ::"m"(v))
#endif
#define BT_HAS_HADD 0
#define VZERO() 0.0
#define VSET1(s) (s)
#define VLOAD(p) (*(p))
#define VLOADU(p) (*(p))
#define VSTORE(p, v) (*(p) = (v))
#define VADD(a, b) ((a) + (b))
#define VMUL(a, b) ((a) * (b))
#define VHSUM_S(v) (v)
#define ILOAD(p) ((int64_t) * (p))
#define VGATHER(base, iv) ((base)[iv])
#define IOPAQUE(v) __asm__ volatile("" : "+r"(v))
#define SSINK(s) VSINK(s)

static inline int64_t bits_of(double v)
{
    int64_t i;
    memcpy(&i, &v, sizeof i);
    return i;
}
#define VGATHER_CHAIN(tab, v) ((tab)[bits_of(v)])
#define LANE0_I64(v) bits_of(v)

#include "bench_template.h"

static int width(void) { return 1; }

const bench_isa bench_isa_scalar = {"scalar", "scalar (baseline)", width, SCALAR_HAS_FMA, 0, BT_STREAM_TABLE,
                                    BT_INCORE_TABLE};
