/* Derivations from event counts: flops, elapsed time / clock, top-down level 1 (formulas and sources in pmu.h). */
#include "pmu.h"

#include <math.h>

static int count_ok(double c) { return isfinite(c) && c >= 0; }

double pmu_flops_fp_arith(const pmu_fp_arith *c)
{
    if (!c || !count_ok(c->scalar_double) || !count_ok(c->packed128_double) || !count_ok(c->packed256_double) ||
        !count_ok(c->packed512_double))
        return -1;
    return c->scalar_double + 2 * c->packed128_double + 4 * c->packed256_double + 8 * c->packed512_double;
}

double pmu_elapsed_from_cycles(double cycles, double hz, int cores)
{
    if (!count_ok(cycles) || !(isfinite(hz) && hz > 0) || cores < 1) return -1;
    return cycles / hz / cores;
}

double pmu_clock_hz(double cycles, int threads, double seconds)
{
    if (!count_ok(cycles) || threads < 1 || !(isfinite(seconds) && seconds > 0)) return -1;
    return cycles / threads / seconds;
}

pmu_status pmu_topdown_from_slots(double slots, double retiring, double bad_speculation, double frontend,
                                  double backend, pmu_topdown *td)
{
    if (!td || !(isfinite(slots) && slots > 0)) return PMU_ERR_ARG;
    const double v[4] = {retiring, bad_speculation, frontend, backend};
    int missing = -1;
    for (int i = 0; i < 4; i++) {
        if (isfinite(v[i]) && v[i] < 0) {
            if (missing >= 0) return PMU_ERR_ARG; /* two categories unmeasured: level 1 is underdetermined */
            missing = i;
        } else if (!count_ok(v[i]))
            return PMU_ERR_ARG;
    }
    double f[4], sum = 0;
    for (int i = 0; i < 4; i++) {
        f[i] = i == missing ? 0 : v[i] / slots;
        sum += f[i];
    }
    td->other = 0;
    if (missing >= 0) f[missing] = 1 - sum;
    else td->other = 1 - sum;
    td->retiring = f[0];
    td->bad_speculation = f[1];
    td->frontend_bound = f[2];
    td->backend_bound = f[3];
    td->residual = missing < 0 ? PMU_TD_NONE : (pmu_td_residual)(PMU_TD_RETIRING + missing);
    td->slots = slots;
    td->width = 0;
    return PMU_OK;
}

pmu_status pmu_topdown_intel4(double cycles, double idq_uops_not_delivered, double uops_issued, double retire_slots,
                              double recovery_cycles, pmu_topdown *td)
{
    if (!td || !(isfinite(cycles) && cycles > 0) || !count_ok(idq_uops_not_delivered) || !count_ok(uops_issued) ||
        !count_ok(retire_slots) || !count_ok(recovery_cycles))
        return PMU_ERR_ARG;
    const double W = 4, slots = W * cycles;
    td->frontend_bound = idq_uops_not_delivered / slots;
    td->bad_speculation = (uops_issued - retire_slots + W * recovery_cycles) / slots;
    td->retiring = retire_slots / slots;
    td->backend_bound = 1 - td->frontend_bound - td->bad_speculation - td->retiring;
    td->other = 0;
    td->residual = PMU_TD_BACKEND;
    td->slots = slots;
    td->width = 4;
    return PMU_OK;
}

pmu_status pmu_topdown_amd(double cycles, int width, double fe_no_ops, double be_stalls, double ops_dispatched,
                           double ops_retired, pmu_topdown *td)
{
    if (!td || !(isfinite(cycles) && cycles > 0) || width < 1 || !count_ok(fe_no_ops) || !count_ok(be_stalls) ||
        !count_ok(ops_dispatched) || !count_ok(ops_retired))
        return PMU_ERR_ARG;
    const double slots = (double)width * cycles;
    td->frontend_bound = fe_no_ops / slots;
    td->backend_bound = be_stalls / slots;
    td->bad_speculation = (ops_dispatched - ops_retired) / slots;
    td->retiring = ops_retired / slots;
    td->other = 1 - td->frontend_bound - td->backend_bound - td->bad_speculation - td->retiring;
    td->residual = PMU_TD_NONE;
    td->slots = slots;
    td->width = width;
    return PMU_OK;
}
