/* The microbenchmark kernels, written once over a small vector vocabulary and included by each isa_*.c, which is
 * compiled with that ISA's flags only. Before including, the ISA file defines:
 *   BT_SUFFIX            name prefix of the generated functions (avx2, avx512, sve, scalar)
 *   VEC, IVEC            a vector of W doubles; a vector of W indices (as the SpMV kernels load them)
 *   BT_W                 W, doubles per vector (an int64_t expression; SVE: svcntd())
 *   BT_NCH               independent chains of the throughput tests (enough to cover latency x pipes)
 *   VZERO() VSET1(s) VLOAD(p) VLOADU(p) VSTORE(p,v)       aligned/unaligned contiguous access
 *   VADD(a,b) VMUL(a,b) VFMA(a,b,c) = a*b+c
 *   VHSUM_S(v) -> double, VHSUM_V(v) -> VEC with the sum in lane 0 (the latency chain)
 *   ILOAD(p) -> IVEC from W int32 indices; VGATHER(base, iv) -> VEC of base[iv[l]]
 *   VGATHER_CHAIN(tab, v) -> VEC of tab[bits of v[l] as int64]; LANE0_I64(v) -> int64 bits of lane 0
 *   VOPAQUE(v), IOPAQUE(iv): empty asm that makes the value unknown to the compiler (no instruction);
 *   VSINK(v), SSINK(s): empty asm that needs the value in a register (no instruction)
 * Vectors are named variables, never arrays (SVE types are sizeless); an unroll factor U is a compile-time
 * constant in every instantiation, so the `if (U > k)` steps fold away and the accumulators stay in registers. */
#ifndef BT_SUFFIX
#error "define the vector vocabulary before including bench_template.h"
#endif

#define BT_CAT2(a, b) a##_##b
#define BT_CAT(a, b) BT_CAT2(a, b)
#define BT_FN(name) BT_CAT(BT_SUFFIX, name)
#define BT_AI static inline __attribute__((always_inline))
#define BT_NI static __attribute__((noinline))
#define BT_BARRIER() __asm__ volatile("" ::: "memory") /* between sweeps: every sweep really loads and stores */
#define BT_REP8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define BT_REP16(M) BT_REP8(M) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define BT_REP24(M) BT_REP16(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23)

/* ============================================================================ streaming kernels (Table III) */

#define BT_ACC_DECL(k) VEC acc##k = VZERO();
#define BT_ACC_SUM(k) if (U > k && k > 0) t = VADD(t, acc##k);

BT_AI double bt_copy(const bench_stream_args *A, int64_t reps, const int U)
{
    double *restrict a = A->a;
    const double *restrict b = A->b;
    const int64_t n = A->n, W = BT_W, step = U * W;
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k) if (U > k) VSTORE(a + i + k * W, VLOAD(b + i + k * W));
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    return a[0];
}

BT_AI double bt_daxpy(const bench_stream_args *A, int64_t reps, const int U)
{
    double *restrict a = A->a;
    const double *restrict b = A->b;
    const int64_t n = A->n, W = BT_W, step = U * W;
    const VEC s = VSET1(A->s);
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k) if (U > k) VSTORE(a + i + k * W, VFMA(s, VLOAD(b + i + k * W), VLOAD(a + i + k * W)));
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    return a[0];
}

BT_AI double bt_dot(const bench_stream_args *A, int64_t reps, const int U)
{
    const double *restrict a = A->a, *restrict b = A->b;
    const int64_t n = A->n, W = BT_W, step = U * W;
    BT_REP16(BT_ACC_DECL)
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k) if (U > k) acc##k = VFMA(VLOAD(a + i + k * W), VLOAD(b + i + k * W), acc##k);
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    VEC t = acc0;
    BT_REP16(BT_ACC_SUM)
    return VHSUM_S(t);
}

BT_AI double bt_init(const bench_stream_args *A, int64_t reps, const int U)
{
    double *restrict a = A->a;
    const int64_t n = A->n, W = BT_W, step = U * W;
    const VEC s = VSET1(A->s);
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k) if (U > k) VSTORE(a + i + k * W, s);
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    return a[0];
}

BT_AI double bt_load(const bench_stream_args *A, int64_t reps, const int U)
{
    const double *restrict a = A->a;
    const int64_t n = A->n, W = BT_W, step = U * W;
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k)                                                                                                     \
    if (U > k) {                                                                                                 \
        VEC v = VLOAD(a + i + k * W);                                                                            \
        VSINK(v);                                                                                                \
    }
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    return a[0];
}

BT_AI double bt_triad(const bench_stream_args *A, int64_t reps, const int U)
{
    double *restrict a = A->a;
    const double *restrict b = A->b, *restrict c = A->c;
    const int64_t n = A->n, W = BT_W, step = U * W;
    const VEC s = VSET1(A->s);
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k) if (U > k) VSTORE(a + i + k * W, VFMA(s, VLOAD(c + i + k * W), VLOAD(b + i + k * W)));
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    return a[0];
}

BT_AI double bt_sum(const bench_stream_args *A, int64_t reps, const int U)
{
    const double *restrict a = A->a;
    const int64_t n = A->n, W = BT_W, step = U * W;
    BT_REP16(BT_ACC_DECL)
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k) if (U > k) acc##k = VADD(acc##k, VLOAD(a + i + k * W));
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    VEC t = acc0;
    BT_REP16(BT_ACC_SUM)
    return VHSUM_S(t);
}

BT_AI double bt_schoenauer(const bench_stream_args *A, int64_t reps, const int U)
{
    double *restrict a = A->a;
    const double *restrict b = A->b, *restrict c = A->c, *restrict d = A->d;
    const int64_t n = A->n, W = BT_W, step = U * W;
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k) if (U > k) VSTORE(a + i + k * W, VFMA(VLOAD(c + i + k * W), VLOAD(d + i + k * W), VLOAD(b + i + k * W)));
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    return a[0];
}

/* rows of ni = m + 2W doubles; the interior starts at column W, so b's stores and the a[j +- 1][i] loads are
 * aligned and a[j][i -+ 1] are the unaligned ones */
BT_AI double bt_stencil(const bench_stream_args *A, int64_t reps, const int U)
{
    const double *restrict a = A->a;
    double *restrict b = A->b;
    const int64_t W = BT_W, step = U * W, ni = A->ni, nj = A->nj, m = A->m;
    const VEC s = VSET1(A->s);
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t j = 1; j < nj - 1; j++) {
            const double *restrict aj = a + j * ni;
            double *restrict bj = b + j * ni;
            for (int64_t i = W; i < W + m; i += step) {
#define S(k)                                                                                                     \
    if (U > k) {                                                                                                 \
        const int64_t o = i + k * W;                                                                             \
        VSTORE(bj + o, VMUL(s, VADD(VADD(VLOADU(aj + o - 1), VLOADU(aj + o + 1)),                                \
                                    VADD(VLOAD(aj + o - ni), VLOAD(aj + o + ni)))));                             \
    }
                BT_REP16(S)
#undef S
            }
        }
        BT_BARRIER();
    }
    return b[ni + W];
}

/* one vector load per cache line of A->ni doubles (the link's bandwidth with almost no core work) */
BT_AI double bt_touch(const bench_stream_args *A, int64_t reps, const int U)
{
    const double *restrict a = A->a;
    const int64_t n = A->n, L = A->ni, step = U * L;
    for (int64_t r = 0; r < reps; r++) {
        for (int64_t i = 0; i < n; i += step) {
#define S(k)                                                                                                     \
    if (U > k) {                                                                                                 \
        VEC v = VLOAD(a + i + k * L);                                                                            \
        VSINK(v);                                                                                                \
    }
            BT_REP16(S)
#undef S
        }
        BT_BARRIER();
    }
    return a[0];
}

#define BT_WRAP(kern, U)                                                                                         \
    BT_NI double BT_FN(kern##_u##U)(const bench_stream_args *A, int64_t reps) { return bt_##kern(A, reps, U); }
#define BT_WRAPS(kern) BT_WRAP(kern, 1) BT_WRAP(kern, 2) BT_WRAP(kern, 4) BT_WRAP(kern, 8) BT_WRAP(kern, 16)
BT_WRAPS(copy)
BT_WRAPS(daxpy)
BT_WRAPS(dot)
BT_WRAPS(init)
BT_WRAPS(load)
BT_WRAPS(triad)
BT_WRAPS(sum)
BT_WRAPS(schoenauer)
BT_WRAPS(stencil)
BT_WRAPS(touch)
#define BT_ROW(kern) {BT_FN(kern##_u1), BT_FN(kern##_u2), BT_FN(kern##_u4), BT_FN(kern##_u8), BT_FN(kern##_u16)}
/* in bench_kernel order */
#define BT_STREAM_TABLE                                                                                          \
    {BT_ROW(copy), BT_ROW(daxpy), BT_ROW(dot), BT_ROW(init), BT_ROW(load), BT_ROW(triad), BT_ROW(sum),           \
     BT_ROW(schoenauer), BT_ROW(stencil), BT_ROW(touch)}

/* ============================================================================ in-core instructions */

/* latency: 16 dependent instructions per round */
#define BT_LAT(name, STEP)                                                                                 \
    BT_NI int64_t BT_FN(name)(int64_t iters, const bench_incore_data *D)                                         \
    {                                                                                                            \
        VEC a = VSET1(D->one), b = VSET1(D->one), c = VSET1(D->zero);                                            \
        VOPAQUE(a);                                                                                              \
        VOPAQUE(b);                                                                                              \
        VOPAQUE(c);                                                                                              \
        for (int64_t it = 0; it < iters; it++) {                                                                 \
            BT_REP16(STEP)                                                                                       \
        }                                                                                                        \
        VSINK(a);                                                                                                \
        VSINK(b);                                                                                                \
        VSINK(c);                                                                                                \
        return iters * 16;                                                                                       \
    }
/* reciprocal throughput: BT_NCH independent chains, each made opaque so the compiler cannot merge them */
#define BT_TPDECL(k) VEC a##k = VSET1(D->one); if (BT_NCH > k) VOPAQUE(a##k);
#define BT_TPSINK(k) if (BT_NCH > k) VSINK(a##k);
#define BT_TP(name, STEP)                                                                                        \
    BT_NI int64_t BT_FN(name)(int64_t iters, const bench_incore_data *D)                                         \
    {                                                                                                            \
        VEC b = VSET1(D->one), c = VSET1(D->zero);                                                               \
        VOPAQUE(b);                                                                                              \
        VOPAQUE(c);                                                                                              \
        BT_REP24(BT_TPDECL)                                                                                      \
        for (int64_t it = 0; it < iters; it++) {                                                                 \
            BT_REP24(STEP)                                                                                       \
        }                                                                                                        \
        BT_REP24(BT_TPSINK)                                                                                      \
        VSINK(b);                                                                                                \
        VSINK(c);                                                                                                \
        return iters * BT_NCH;                                                                                   \
    }

#define BT_FMA_L(k) a = VFMA(a, b, c);
#define BT_ADD_L(k) a = VADD(a, c);
#define BT_MUL_L(k) a = VMUL(a, b);
#define BT_FMA_T(k) if (BT_NCH > k) a##k = VFMA(a##k, b, c);
#define BT_ADD_T(k) if (BT_NCH > k) a##k = VADD(a##k, c);
#define BT_MUL_T(k) if (BT_NCH > k) a##k = VMUL(a##k, b);
BT_LAT(fma_lat, BT_FMA_L)
BT_LAT(add_lat, BT_ADD_L)
BT_LAT(mul_lat, BT_MUL_L)
BT_TP(fma_tp, BT_FMA_T)
BT_TP(add_tp, BT_ADD_T)
BT_TP(mul_tp, BT_MUL_T)

/* gather latency: the gathered 64-bit integers are the next indices (a random cycle through gtab per lane) */
BT_NI int64_t BT_FN(gather_lat)(int64_t iters, const bench_incore_data *D)
{
    VEC v = VLOAD(D->gstart);
    const double *tab = D->gtab;
    for (int64_t it = 0; it < iters; it++) {
#define S(k) v = VGATHER_CHAIN(tab, v);
        BT_REP16(S)
#undef S
    }
    VSINK(v);
    return iters * 16;
}

/* gather reciprocal throughput, indices in registers: 8 independent gathers per round */
BT_NI int64_t BT_FN(gather_tp)(int64_t iters, const bench_incore_data *D)
{
    const int64_t W = BT_W;
    const double *x = D->x;
#define DCL(k) IVEC i##k = ILOAD(D->idx + k * W);
    BT_REP8(DCL)
#undef DCL
    for (int64_t it = 0; it < iters; it++) {
#define S(k)                                                                                                     \
    {                                                                                                            \
        IOPAQUE(i##k);                                                                                           \
        VEC g = VGATHER(x, i##k);                                                                                \
        VSINK(g);                                                                                                \
    }
        BT_REP8(S)
#undef S
    }
    return iters * 8;
}

/* 8 vectors per round from positions p, p + W, ... of an index stream of nidx entries (wrapping): BT_IDX8_TP(name,
 * setup...) defines the test; the vector at position q is BT_IDX8_LOAD(q), defined before each use (a macro is
 * expanded where the test is instantiated) */
#define BT_IDX8_TP(name, ...)                                                                                    \
    BT_NI int64_t BT_FN(name)(int64_t iters, const bench_incore_data *D)                                         \
    {                                                                                                            \
        const int64_t W = BT_W, n = D->nidx, step = 8 * W;                                                       \
        __VA_ARGS__                                                                                              \
        int64_t p = 0;                                                                                           \
        for (int64_t it = 0; it < iters; it++) {                                                                 \
            BT_REP8(BT_IDX8_S)                                                                                   \
            p += step;                                                                                           \
            if (p >= n) p = 0;                                                                                   \
        }                                                                                                        \
        return iters * 8;                                                                                        \
    }
#define BT_IDX8_S(k)                                                                                             \
    {                                                                                                            \
        VEC g = BT_IDX8_LOAD(p + k * W);                                                                         \
        VSINK(g);                                                                                                \
    }

/* gather fed by a contiguous load of its W indices (as in SpMV): reciprocal throughput of the pair */
#define BT_IDX8_LOAD(q) VGATHER(x, ILOAD(idx + (q)))
BT_IDX8_TP(gatherld_tp, const int32_t *idx = D->idx; const double *x = D->x;)
#undef BT_IDX8_LOAD

/* latency of index load -> gather -> lane 0 to a general register -> address of the next index load */
BT_NI int64_t BT_FN(gatherld_lat)(int64_t iters, const bench_incore_data *D)
{
    const int32_t *idx = D->idx2;
    const double *xg = D->xg;
    int64_t p = 0;
    for (int64_t it = 0; it < iters; it++) {
#define S(k)                                                                                                     \
    {                                                                                                            \
        VEC g = VGATHER(xg, ILOAD(idx + p));                                                                     \
        p = LANE0_I64(g);                                                                                        \
    }
        BT_REP16(S)
#undef S
    }
    __asm__ volatile("" ::"r"(p));
    return iters * 16;
}

/* index load + gather over idxl[J]: every vector's addresses in 1, 2, 4 or 8 distinct lines (at most W) */
#define BT_IDX8_LOAD(q) VGATHER(x, ILOAD(idx + (q)))
BT_IDX8_TP(gather1l_tp, const int32_t *idx = D->idxl[0]; const double *x = D->x;)
BT_IDX8_TP(gather2l_tp, const int32_t *idx = D->idxl[1]; const double *x = D->x;)
BT_IDX8_TP(gather4l_tp, const int32_t *idx = D->idxl[2]; const double *x = D->x;)
BT_IDX8_TP(gather8l_tp, const int32_t *idx = D->idxl[3]; const double *x = D->x;)
#undef BT_IDX8_LOAD

#ifdef VEMUL
/* emulated gather as the SpMV kernels do it: W scalar index loads, W scalar x loads, inserts */
#define BT_IDX8_LOAD(q) VEMUL(x, idx + (q))
BT_IDX8_TP(emul_tp, const int32_t *idx = D->idx; const double *x = D->x;)
#undef BT_IDX8_LOAD
#define BT_EMUL_FN BT_FN(emul_tp)
#else
#define BT_EMUL_FN NULL
#endif

/* a SpMV entry's x and value with x at random lines (spmv-machine times it with x beyond the caches and the index
 * and value streams from memory: spmv_machine.xrand_ns): index load + gather (or the emulated gather) times a
 * contiguous value load */
#define BT_IDX8_LOAD(q) VMUL(VLOADU(val + (q)), VGATHER(x, ILOAD(idx + (q))))
BT_IDX8_TP(xgather_tp, const int32_t *idx = D->idx; const double *x = D->x; const double *val = D->val;)
#undef BT_IDX8_LOAD
#ifdef VEMUL
#define BT_IDX8_LOAD(q) VMUL(VLOADU(val + (q)), VEMUL(x, idx + (q)))
BT_IDX8_TP(xemul_tp, const int32_t *idx = D->idx; const double *x = D->x; const double *val = D->val;)
#undef BT_IDX8_LOAD
#define BT_XEMUL_FN BT_FN(xemul_tp)
#else
#define BT_XEMUL_FN NULL
#endif

#ifdef VMASKLOADU
/* masked unaligned vector loads from L1 at offsets 0..7 doubles past a line start (x of SELL run columns) */
BT_NI int64_t BT_FN(maskld_tp)(int64_t iters, const bench_incore_data *D)
{
    const int64_t W = BT_W, n = D->nx - 2 * W - 8;
    const double *x = D->x;
    const int64_t *mk = D->maskv;
    int64_t p = 0;
    for (int64_t it = 0; it < iters; it++) {
#define S(k)                                                                                                     \
    {                                                                                                            \
        VEC g = VMASKLOADU(x + p + k, mk);                                                                       \
        VSINK(g);                                                                                                \
    }
        BT_REP8(S)
#undef S
        p += 8 * W > 64 ? 8 * W : 64;
        if (p >= n) p = 0;
    }
    return iters * 8;
}
#define BT_MASKLD_FN BT_FN(maskld_tp)
#else
#define BT_MASKLD_FN NULL
#endif

#ifdef VVIDX
/* a vector of values through one-byte value indices (spmv_sell.val8) and a 16-entry table (x[0..15]), as the
 * family's SELL kernels read them: VVIDX_DECL(tab) sets the table up once (AVX-512: two registers), VVIDX(p) reads
 * W indices at p and looks them up */
#define BT_IDX8_LOAD(q) VVIDX(vi + (q))
BT_IDX8_TP(vidx_tp, const uint8_t *vi = D->vidx; VVIDX_DECL(D->x))
#undef BT_IDX8_LOAD
#define BT_VIDX_FN BT_FN(vidx_tp)
#else
#define BT_VIDX_FN NULL
#endif

/* scalar loads in the mix of a CRS entry (a 4-byte index into a general register, an 8-byte value and an 8-byte x
 * element into vector registers), 5 entries = 15 independent loads per round */
BT_NI int64_t BT_FN(sload_tp)(int64_t iters, const bench_incore_data *D)
{
    const double *x = D->x;
    const int32_t *idx = D->idx;
    const int64_t n = D->nx - 16, ni = D->nidx - 8;
    int64_t p = 0, q = 0;
    for (int64_t it = 0; it < iters; it++) {
#define S(k)                                                                                                     \
    {                                                                                                            \
        int64_t c = idx[q + k];                                                                                  \
        double v = x[p + 2 * k], w = x[p + 2 * k + 1];                                                           \
        __asm__ volatile("" ::"r"(c));                                                                           \
        SSINK(v);                                                                                                \
        SSINK(w);                                                                                                \
    }
        S(0) S(1) S(2) S(3) S(4)
#undef S
        p += 10;
        if (p >= n) p = 0;
        q += 5;
        if (q >= ni) q = 0;
    }
    return iters * 15;
}

#if BT_HAS_HADD
/* horizontal add latency: the sum goes back into lane 0 and is summed again */
BT_NI int64_t BT_FN(hadd_lat)(int64_t iters, const bench_incore_data *D)
{
    VEC v = VSET1(D->zero);
    VOPAQUE(v);
    for (int64_t it = 0; it < iters; it++) {
#define S(k) v = VHSUM_V(v);
        BT_REP16(S)
#undef S
    }
    VSINK(v);
    return iters * 16;
}

/* horizontal add reciprocal throughput: 8 independent registers, each made opaque every round */
BT_NI int64_t BT_FN(hadd_tp)(int64_t iters, const bench_incore_data *D)
{
#define DCL(k) VEC v##k = VSET1(D->one);
    BT_REP8(DCL)
#undef DCL
    for (int64_t it = 0; it < iters; it++) {
#define S(k)                                                                                                     \
    {                                                                                                            \
        VOPAQUE(v##k);                                                                                           \
        double s = VHSUM_S(v##k);                                                                                \
        SSINK(s);                                                                                                \
    }
        BT_REP8(S)
#undef S
    }
    return iters * 8;
}
#define BT_HADD_FNS BT_FN(hadd_lat), BT_FN(hadd_tp)
#else
#define BT_HADD_FNS NULL, NULL
#endif

/* in bench_incore order */
#define BT_INCORE_TABLE                                                                                          \
    {BT_FN(fma_lat), BT_FN(fma_tp), BT_FN(add_lat), BT_FN(add_tp), BT_FN(mul_lat), BT_FN(mul_tp),                \
     BT_FN(gather_lat), BT_FN(gather_tp), BT_FN(gatherld_lat), BT_FN(gatherld_tp), BT_HADD_FNS,                 \
     BT_FN(gather1l_tp), BT_FN(gather2l_tp), BT_FN(gather4l_tp), BT_FN(gather8l_tp), BT_EMUL_FN, BT_MASKLD_FN,    \
     BT_FN(sload_tp), BT_VIDX_FN, BT_FN(xgather_tp), BT_XEMUL_FN}
