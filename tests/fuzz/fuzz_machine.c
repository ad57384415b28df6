/* libFuzzer harness: the machine-file parser (src/model/machine.c, spmv_machine_read) and the model on what it
 * accepts. A rejected file must leave a printable message; an accepted machine must pass spmv_machine_check,
 * write out (spmv_machine_format) as text that parses to the same machine (the second text equals the first),
 * and drive the model without undefined behaviour or unbounded work: the default chunk height, the ECM of every
 * kernel family usable here, the model of a small CRS and SELL matrix at 1..4 threads and its report, the tuner's
 * bound. Seeds: machines/ (scripts/fuzz.sh). */
#include "fuzz_common.h"
#include "kernel.h"

#include <math.h>

static spmv_crs *A;
static spmv_sell *S;

static void setup(void)
{
    if (A) return;
    if (spmv_gen_laplace2d(12, 12, &A)) abort();
    spmv_sell_opts o = spmv_sell_opts_default();
    o.C = 8;
    o.sigma = 1;
    if (spmv_sell_from_crs(A, &o, &S)) abort();
}

static void model(const spmv_machine *m)
{
    spmv_model_opts mo = spmv_model_opts_default();
    spmv_model md;
    char buf[8192];
    for (int nt = 1; nt <= 4; nt++) {
        spmv_status st = spmv_model_crs(A, NULL, m, nt, &mo, &md);
        FZ_CHECK(st == SPMV_OK || st == SPMV_ERR_ARG, "model_crs at %d threads: status %d", nt, (int)st);
        if (st == SPMV_OK) {
            FZ_CHECK(spmv_model_format(&md, 1.0, "  ", buf, sizeof buf) > 0, "model_format");
            double pct, err;
            spmv_model_score(&md, 1.0, &pct, &err);
        } else {
            fz_check_message(st);
        }
        st = spmv_model_sell(S, NULL, m, nt, &mo, &md);
        FZ_CHECK(st == SPMV_OK || st == SPMV_ERR_ARG, "model_sell at %d threads: status %d", nt, (int)st);
        if (st == SPMV_OK) FZ_CHECK(spmv_model_format(&md, 0.0, NULL, buf, sizeof buf) > 0, "model_format");
    }
    spmv_traffic t;
    if (spmv_sell_traffic(S, &t)) abort();
    double g;
    spmv_status st = spmv_tune_bound(m, &t, A->rows, A->cols, A->nnz, S->stored, S->C, 2, &g);
    if (st == SPMV_OK) (void)spmv_tune_prune(m, 1e9, g, 1.0, 0.05);
    /* the ECM of every kernel of each usable family (its declared shape and traffic), and the multicore scaling */
    for (int a = 0; a < spmv_arch_count(); a++) {
        const spmv_family *f = spmv__family((spmv_arch)a);
        if (!f || !spmv_arch_usable((spmv_arch)a)) continue;
        for (const spmv_kernel *const *p = f->kernels; p && *p; p++) {
            const int sell = (*p)->sell != NULL;
            spmv_kernel_shape k = spmv__kernel_shape(*p, sell ? ((*p)->shape.C ? (*p)->shape.C : 8) : 0);
            for (int bw = SPMV_BW_TRIAD; bw <= SPMV_BW_MIX; bw++) {
                spmv_ecm e;
                st = spmv_ecm_predict(m, &k, &(*p)->traffic, 5.0, sell ? 0.8 : 1.0, 0.1, (spmv_bw_kind)bw, &e);
                if (st) continue;
                static const int32_t cores[] = {1, 2, 3, 64, 1 << 20, INT32_MAX};
                double gf;
                for (size_t c = 0; c < sizeof cores / sizeof *cores; c++) (void)spmv_ecm_scale(m, &e, cores[c], &gf);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    const char *path = fz_tmp_path(0, "machine");
    if (fz_write_file(path, data, size)) return 0;
    spmv_machine m;
    spmv_status st = spmv_machine_read(path, &m);
    if (st != SPMV_OK) {
        FZ_CHECK(st == SPMV_ERR_PARSE || st == SPMV_ERR_NOMEM, "status %d (%s)", (int)st, spmv_strerror(st));
        fz_check_message(st);
        return 0;
    }
    FZ_CHECK(spmv_machine_check(&m) == SPMV_OK, "an accepted machine fails the check");

    /* the writer's text parses back to the same machine */
    static char t1[1 << 16], t2[1 << 16];
    int n1 = spmv_machine_format(&m, t1, sizeof t1);
    FZ_CHECK(n1 > 0 && (size_t)n1 < sizeof t1, "format: %d", n1);
    spmv_machine m2;
    st = spmv_machine_parse(t1, "written", &m2);
    FZ_CHECK(st == SPMV_OK, "the written machine file does not parse:\n%s", t1);
    int n2 = spmv_machine_format(&m2, t2, sizeof t2);
    FZ_CHECK(n2 == n1 && !strcmp(t1, t2), "written, read and written again differs:\n%s\n----\n%s", t1, t2);

    int32_t C = 0;
    st = spmv_tune_default_chunk_height(&m, &C);
    FZ_CHECK(st != SPMV_OK || (C >= 1 && C <= 1024), "default C %d", C);
    for (int k = SPMV_BW_TRIAD; k <= SPMV_BW_MIX; k++) {
        double b = spmv_machine_bandwidth(&m, (spmv_bw_kind)k);
        (void)b;
    }
    (void)spmv_machine_mix_bandwidth(&m, 1.0, 0.5);
    model(&m);
    return 0;
}
