/* test_explore_seeds.c - runner_opts.seeds: a point run over K placements
 * reports the mean of the K single-seed runs, figure by figure (the sums
 * in seed order), and one seed is the plain run. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "sim/explore/runner.h"

static runner_outcome run(uint64_t seed, uint32_t seeds)
{
    vd_param p[4] = {{"cores", 2, ""}, {"pkt_size", 1500, ""}, {"ddio_ways", 2, ""}, {"rx_ring", 2048, ""}};
    runner_job j = {.machine = "skylake-6140", .workload = "l2fwd", .n_params = 4, .param = p};
    runner_opts o = {.engines = RUNNER_ENGINE_BOTH, .packets = 40000, .seed = seed, .seeds = seeds, .jobs = 1};
    runner_outcome out;
    memset(&out, 0, sizeof out);
    cr_assert_eq(runner_point(&j, &o, &out), 0, "%s", out.err.msg);
    return out;
}

/* x == the mean of a, b, c summed in that order. */
static void expect_mean3(double x, double a, double b, double c, const char *what)
{
    if (isnan(a)) {
        cr_expect(isnan(x), "%s", what);
        return;
    }
    cr_expect_eq(x, ((a + b) + c) / 3, "%s: %.17g against %.17g %.17g %.17g", what, x, a, b, c);
}

Test(explore_seeds, the_mean_of_the_placements, .timeout = 240)
{
    runner_outcome a = run(5, 1), b = run(6, 1), c = run(7, 1), m = run(5, 3);
    for (int k = 0; k < VD_METRIC_COUNT; k++) {
        expect_mean3(m.sim[k], a.sim[k], b.sim[k], c.sim[k], "sim hit rate");
        expect_mean3(m.model_est[k], a.model_est[k], b.model_est[k], c.model_est[k], "model estimate");
        expect_mean3(m.model_lower[k], a.model_lower[k], b.model_lower[k], c.model_lower[k], "model lower");
    }
    for (int q = 0; q < Q_COUNT; q++)
        expect_mean3(m.sim_queue[q], a.sim_queue[q], b.sim_queue[q], c.sim_queue[q], "sim queue");
    expect_mean3(m.sim_mpps, a.sim_mpps, b.sim_mpps, c.sim_mpps, "sim Mpps");
    expect_mean3(m.sim_latency_us, a.sim_latency_us, b.sim_latency_us, c.sim_latency_us, "sim latency");
    expect_mean3(m.model_footprint_bytes, a.model_footprint_bytes, b.model_footprint_bytes, c.model_footprint_bytes,
                 "model footprint");
    /* The placements differ (else the test would prove nothing). */
    cr_expect(a.sim[VD_PCIE_WRITE_HIT] != b.sim[VD_PCIE_WRITE_HIT] || b.sim[VD_PCIE_WRITE_HIT] != c.sim[VD_PCIE_WRITE_HIT]);
    cr_expect_eq(m.sim_settled, a.sim_settled && b.sim_settled && c.sim_settled);
    /* One seed is the plain run, bit for bit. */
    runner_outcome one = run(5, 1), k1 = run(5, 0);
    cr_expect_eq(memcmp(one.sim, k1.sim, sizeof one.sim), 0);
    cr_expect_eq(memcmp(one.model_est, k1.model_est, sizeof one.model_est), 0);
}
