/* test_markov_model_warm.c - warm starts of the fixed point
 * (sim/markov/model.h mk_solve_warm, the per-core model of predict.h): a
 * solve started from a neighbouring core's fixed point reaches the same
 * fixed point as the paper's start from "everything in memory", within the
 * fixed-point tolerance. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "sim/markov/model.h"
#include "sim/markov/predict.h"
#include "tests/helpers.h"

#define TOL 1e-9

static void expect_bounds(const mk_bounds *w, const mk_bounds *c, double tol, const char *what)
{
    cr_expect(fabs(w->lower - c->lower) <= tol && fabs(w->upper - c->upper) <= tol,
              "%s: warm %.17g / %.17g, cold %.17g / %.17g", what, w->lower, w->upper, c->lower, c->upper);
}

/* Per-core x per-line on the MAWI-style sample (the bench's case), warm
 * against cold.  vary: queue lengths differ between cores (the warm start
 * then rebuilds the reference lists). */
static void warm_vs_cold(uint32_t cores, int vary)
{
    ddio_config cfg;
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e;
    cr_assert_eq(ddio_config_resolve(&a, &cfg, NULL, &e), 0, "%s", e.msg);
    cfg.workload.cores = cores;
    mk_traffic t;
    cr_assert_eq(mk_traffic_from_source(&t, &(dsim_source){.trace = DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap"}, 0, 1, cores, 0, &e),
                 0, "%s", e.msg);
    double *q = calloc((size_t)cores * Q_COUNT, sizeof *q);
    cr_assert(q);
    for (uint32_t c = 0; c < cores; c++) {
        q[c * Q_COUNT + Q_RX] = vary ? 150 + 10 * (c % 5) : 200;
        q[c * Q_COUNT + Q_RX_REPLENISH] = vary ? 40 + 3 * (c % 3) : 40;
        q[c * Q_COUNT + Q_TX] = 20;
        q[c * Q_COUNT + Q_TX_RECYCLE] = 15;
    }
    mk_predict_opts o;
    mk_predict_opts_default(&o);
    o.variant = MK_VARIANT_PER_CORE;
    o.queues = q;
    o.tol = TOL;
    mk_prediction warm, cold;
    cr_assert_eq(mk_predict(&cfg, &t, &o, &warm, &e), 0, "%s", e.msg);
    o.cold = 1;
    cr_assert_eq(mk_predict(&cfg, &t, &o, &cold, &e), 0, "%s", e.msg);
    cr_expect_eq(warm.solves, cold.solves);
    expect_bounds(&warm.pcie_write_hit, &cold.pcie_write_hit, TOL, "pcie write hit");
    expect_bounds(&warm.pcie_read_hit, &cold.pcie_read_hit, TOL, "pcie read hit");
    expect_bounds(&warm.cpu_first_hit, &cold.cpu_first_hit, TOL, "cpu first hit");
    /* Bytes per packet: lines x 64, tolerance scaled alike. */
    expect_bounds(&warm.mem_read_bytes_per_pkt, &cold.mem_read_bytes_per_pkt, 64 * 24 * TOL, "memory reads");
    expect_bounds(&warm.mem_write_bytes_per_pkt, &cold.mem_write_bytes_per_pkt, 64 * 24 * TOL, "memory writes");
    expect_bounds(&warm.footprint_bytes, &cold.footprint_bytes, 64 * 24 * 400 * cores * TOL, "footprint");
    /* The busiest core's distributions (--explain). */
    for (int qq = 0; qq < Q_MODEL_COUNT; qq++)
        for (int w = 0; w < 2; w++)
            for (unsigned i = 0; i < warm.lower.space.n; i++) {
                expect_near(warm.lower.dist[qq][w][i], cold.lower.dist[qq][w][i], TOL);
                expect_near(warm.upper.dist[qq][w][i], cold.upper.dist[qq][w][i], TOL);
            }
    free(q);
    mk_traffic_free(&t);
}

Test(markov_model_warm, per_core_per_line_equal_queues, .timeout = 120)
{
    warm_vs_cold(18, 0);
}

Test(markov_model_warm, per_core_per_line_varied_queues, .timeout = 120)
{
    warm_vs_cold(18, 1);
}

/* One chain by hand: the fixed point of beta = 18 as the start of
 * beta = 18.5 gives beta = 18.5's cold result, in fewer iterations (the
 * iteration converges linearly, about a decade per round, so a start a few
 * hundredths away saves a round); beta = 19 started from the extrapolation
 * of 18 and 18.5 likewise, in fewer still; a start that does not fit (other
 * classes) is ignored. */
Test(markov_model_warm, solve_from_neighbour)
{
    static const mk_class cls[2] = {
        {.weight = 1, .used = 1, .partial = 0, .first = 1, .nops = 2, .ops = {0, 1}},
        {.weight = 23, .used = 1, .partial = 0.5, .first = 0, .nops = 0},
    };
    mk_params p;
    mk_params_default(&p);
    ddio_config cfg;
    ddio_config_default(&cfg);
    mk_geom_from_machine(&cfg.machine, &p.geom);
    p.classes = cls;
    p.n_classes = 2;
    p.L[Q_RX_REPLENISH] = 40;
    p.L[Q_RX] = 200;
    p.L[Q_TX] = 20;
    p.L[Q_TX_RECYCLE] = 15;
    ddio_err e;
    for (int pol = 0; pol < 2; pol++) {
        mk_policy mp = pol ? MK_BIP : MK_LRU;
        p.policy = p.geom.ddio.policy = p.geom.shared.policy = p.geom.l3.policy = mp;
        mk_warm w;
        mk_warm_init(&w);
        mk_result r18, r18w, r18c;   /* beta 18; 18.5 warm, 18.5 cold */
        p.S = 18;
        cr_assert_eq(mk_solve_warm(&p, &w, &r18, &e), 0, "%s", e.msg);
        cr_expect(w.valid);
        p.S = 18.5;
        cr_assert_eq(mk_solve(&p, &r18c, &e), 0, "%s", e.msg);
        cr_assert_eq(mk_solve_warm(&p, &w, &r18w, &e), 0, "%s", e.msg);
        cr_expect_lt(r18w.iterations, r18c.iterations, "warm %d, cold %d iterations", r18w.iterations,
                     r18c.iterations);
        expect_near(r18w.pcie_write_hit, r18c.pcie_write_hit, TOL);
        expect_near(r18w.pcie_read_hit, r18c.pcie_read_hit, TOL);
        expect_near(r18w.cpu_first_hit, r18c.cpu_first_hit, TOL);
        cr_expect_gt(fabs(r18c.pcie_write_hit - r18.pcie_write_hit), 1e-6, "beta 18 and 18.5 must differ");
        /* Third: the start is extrapolated from 18 and 18.5. */
        cr_expect(w.prev_valid);
        mk_result r19w, r19c;
        p.S = 19;
        cr_assert_eq(mk_solve(&p, &r19c, &e), 0, "%s", e.msg);
        cr_assert_eq(mk_solve_warm(&p, &w, &r19w, &e), 0, "%s", e.msg);
        cr_expect_lt(r19w.iterations, r18w.iterations, "extrapolated %d, warm %d iterations", r19w.iterations,
                     r18w.iterations);
        expect_near(r19w.pcie_write_hit, r19c.pcie_write_hit, TOL);
        expect_near(r19w.pcie_read_hit, r19c.pcie_read_hit, TOL);
        expect_near(r19w.cpu_first_hit, r19c.cpu_first_hit, TOL);
        for (int qq = 0; qq < Q_MODEL_COUNT; qq++)
            for (unsigned i = 0; i < r19c.space.n; i++)
                expect_near(r19w.dist[qq][1][i], r19c.dist[qq][1][i], TOL);
        /* A start from other classes: cold (p.S = 19 as r19c). */
        mk_class other[2];
        memcpy(other, cls, sizeof other);
        p.classes = other;
        mk_result r19o;   /* beta 19, other classes */
        cr_assert_eq(mk_solve_warm(&p, &w, &r19o, &e), 0, "%s", e.msg);
        cr_expect_eq(r19o.iterations, r19c.iterations);
        expect_near(r19o.pcie_write_hit, r19c.pcie_write_hit, 0);
        p.classes = cls;
        mk_warm_free(&w);
    }
}
