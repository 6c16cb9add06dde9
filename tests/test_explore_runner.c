/* test_explore_runner.c - runner_all parses the points' trace once and
 * lends it to every point (runner_opts.parsed, runner_parse_trace): each
 * point's figures are those of the point run alone (runner_point, which
 * parses its own), a trace that cannot be read fails every point that
 * uses it with the error a lone point gives, and nothing is parsed when
 * no point runs on the trace. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/explore/runner.h"

#ifndef DDIOSIM_SOURCE_DIR
#error "DDIOSIM_SOURCE_DIR must be defined by the build"
#endif

#define N_JOBS 3

static runner_opts opts(const char *trace)
{
    return (runner_opts){.engines = RUNNER_ENGINE_BOTH, .packets = 20000, .seed = 3, .jobs = 2, .trace = trace};
}

/* Two trace points (rings 512 and 1024, two cores) and one of 1500 B frames. */
static void jobs(runner_job j[N_JOBS], vd_param p[N_JOBS][2])
{
    const vd_param ring512 = {"rx_ring", 512, ""}, ring1024 = {"rx_ring", 1024, ""}, cores = {"cores", 2, ""},
                   size = {"pkt_size", 1500, ""};
    p[0][0] = ring512;
    p[0][1] = cores;
    p[1][0] = ring1024;
    p[1][1] = cores;
    p[2][0] = ring512;
    p[2][1] = size;
    for (int i = 0; i < N_JOBS; i++)
        j[i] = (runner_job){.machine = "skylake-6140", .workload = "l2fwd", .n_params = 2, .param = p[i]};
}

Test(explore_runner, a_lent_trace_gives_each_points_own_figures, .timeout = 240)
{
    runner_job j[N_JOBS];
    vd_param p[N_JOBS][2];
    jobs(j, p);
    const runner_opts o = opts(DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap");
    runner_outcome all[N_JOBS], one;
    ddio_err e;
    cr_assert_eq(runner_all(j, N_JOBS, &o, all, &e), 0, "%s", e.msg);
    for (int i = 0; i < N_JOBS; i++) {
        cr_assert_not(all[i].failed, "point %d: %s", i, all[i].err.msg);
        cr_assert_eq(runner_point(&j[i], &o, &one), 0, "%s", one.err.msg);
        cr_expect_eq(memcmp(all[i].sim, one.sim, sizeof one.sim), 0, "point %d: simulator", i);
        cr_expect_eq(memcmp(all[i].sim_queue, one.sim_queue, sizeof one.sim_queue), 0, "point %d: queues", i);
        cr_expect_eq(memcmp(all[i].model_est, one.model_est, sizeof one.model_est), 0, "point %d: model", i);
        cr_expect_eq(memcmp(all[i].model_lower, one.model_lower, sizeof one.model_lower), 0, "point %d: bound", i);
        cr_expect(all[i].sim_mpps == one.sim_mpps && all[i].model_mpps == one.model_mpps, "point %d: rates", i);
    }
    /* The trace points differ (else the comparison would prove little). */
    cr_expect(all[0].sim_queue[0] != all[1].sim_queue[0] || all[0].sim[0] != all[1].sim[0]);
}

Test(explore_runner, an_unreadable_trace_fails_its_points_alone, .timeout = 120)
{
    runner_job j[N_JOBS];
    vd_param p[N_JOBS][2];
    jobs(j, p);
    const runner_opts o = opts(DDIOSIM_SOURCE_DIR "/traces/samples/README.md");   /* no capture */
    runner_outcome all[N_JOBS], one;
    ddio_err e;
    cr_assert_eq(runner_all(j, N_JOBS, &o, all, &e), 2, "the two trace points fail");
    for (int i = 0; i < 2; i++) {
        cr_assert(all[i].failed);
        cr_assert_eq(runner_point(&j[i], &o, &one), -1);
        cr_expect_str_eq(all[i].err.msg, one.err.msg);
        cr_expect_eq(all[i].err.exit_code, one.err.exit_code);
    }
    cr_assert_not(all[2].failed, "the 1500 B point does not read the trace: %s", all[2].err.msg);
}

/* What runner_all lends: the trace parsed once, when a point needs it and
 * the trace can be read. */
Test(explore_runner, the_trace_is_parsed_when_a_point_needs_it)
{
    runner_job j[N_JOBS];
    vd_param p[N_JOBS][2];
    jobs(j, p);
    cr_expect(runner_job_uses_trace(&j[0]) && !runner_job_uses_trace(&j[2]));
    const runner_opts o = opts(DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap");
    runner_opts own;
    pktsrc_trace t;
    const runner_opts *lent = runner_parse_trace(&o, 1, &own, &t);
    cr_assert_eq(lent, &own);
    cr_assert_eq(lent->parsed, &t);
    cr_expect_eq(t.mem_n, 65536);
    cr_expect_eq(runner_parse_trace(lent, 1, &own, &t), lent, "parsed already: no second parse");
    pktsrc_trace_free(&t);
    cr_expect_eq(runner_parse_trace(&o, 0, &own, &t), &o, "no point on the trace");
    cr_expect_null(t.mem);
    const runner_opts bad = opts(DDIOSIM_SOURCE_DIR "/traces/samples/README.md");
    cr_expect_eq(runner_parse_trace(&bad, 1, &own, &t), &bad, "left to the points");
    cr_expect_null(t.mem);
}
