/* test_sim_equiv.c - a whole simulation on the hierarchy's general path
 * only (dsim_options.general_only: every access executes Table 1 cell by
 * cell) equals the normal one, which takes the fast paths of
 * sim/cache/hier_fast.c and hier_run.c: every result field and counter, byte
 * for byte, for each replacement policy family, one and four cores, both
 * hierarchy modes.  What scripts/sim-equiv.sh checks of a change against a
 * recorded reference, checked here of the two paths of one build.
 *
 * A reduced LLC (18 slices x 64 sets, 11 ways) and short runs: the DDIO
 * ways overflow at once, so that fills, evictions and moves of every kind
 * happen within a few thousand packets, and each run stays short under
 * ASan. */
#include <criterion/criterion.h>
#include <string.h>

#include "configs/config.h"
#include "sim/queue/dsim.h"

/* skylake-6140 (or `machine`) with a reduced LLC, l2fwd, `cores` cores,
 * `llc_policy` in the LLC and `l2_policy` (NULL: the machine's) in the L2s. */
static void equiv_config(ddio_config *cfg, const char *machine, const char *llc_policy, const char *l2_policy,
                         uint32_t cores)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e;
    char llc[REPL_NAME_LEN + 32], l2[REPL_NAME_LEN + 32];   /* borrowed by `a` until resolved */
    if (machine)
        a.machine = machine;
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, "machine.llc.sets_per_slice=64", &e), 0, "%s", e.msg);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, "machine.llc.mapping=xor", &e), 0, "%s", e.msg);
    snprintf(llc, sizeof llc, "machine.llc.policy=%s", llc_policy);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, llc, &e), 0, "%s", e.msg);
    if (l2_policy) {
        snprintf(l2, sizeof l2, "machine.l2.policy=%s", l2_policy);
        cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, l2, &e), 0, "%s", e.msg);
    }
    cr_assert_eq(ddio_config_resolve(&a, cfg, NULL, &e), 0, "%s", e.msg);
    cfg->workload.cores = cores;
    cfg->workload.driver.mempool_size = 8192;
}

static double fixed_clock(void *ctx)
{
    (void)ctx;
    return 0;
}

static void run(const ddio_config *cfg, const char *profile, int general_only, dsim_result *r)
{
    dsim_options o;
    dsim_options_default(&o);
    o.src.profile = profile;
    o.packets = 20000;
    o.rate_gbps = -1;   /* line rate */
    o.wall_clock = fixed_clock;
    o.general_only = general_only;
    ddio_err e;
    cr_assert_eq(dsim_run(cfg, &o, r, &e), 0, "%s", e.msg);
}

/* Two results, compared field by field in memory: the per-core arrays,
 * then the rest of the struct (its pointers set aside); both freed. */
static void expect_same_results(dsim_result *fast, dsim_result *general, const char *what)
{
    cr_assert_gt(fast->cache.req[REQ_PCIE_WR_FULL].accesses, 1000, "%s: the run reached the cache", what);
    cr_assert_eq(fast->cores, general->cores);
    const size_t nq = (size_t)fast->cores * Q_COUNT, ni = (size_t)fast->cores * 2;
    cr_expect_eq(memcmp(fast->queue_len, general->queue_len, nq * sizeof(double)), 0, "%s: queue lengths differ", what);
    cr_expect_eq(memcmp(fast->inflight, general->inflight, ni * sizeof(double)), 0, "%s: in-flight parts differ", what);
    for (int q = 0; q < REQ_COUNT; q++)
        cr_expect_eq(memcmp(&fast->cache.req[q], &general->cache.req[q], sizeof fast->cache.req[q]), 0,
                     "%s: the %s counters differ (accesses %llu / %llu, hits %llu / %llu)", what,
                     coh_req_name((enum coh_req)q), (unsigned long long)fast->cache.req[q].accesses,
                     (unsigned long long)general->cache.req[q].accesses, (unsigned long long)fast->cache.req[q].hits,
                     (unsigned long long)general->cache.req[q].hits);
    double *qf = fast->queue_len, *qg = general->queue_len, *inf = fast->inflight, *ing = general->inflight;
    fast->queue_len = general->queue_len = fast->inflight = general->inflight = NULL;
    cr_expect_eq(memcmp(fast, general, sizeof *fast), 0, "%s: the results differ", what);
    fast->queue_len = qf;
    general->queue_len = qg;
    fast->inflight = inf;
    general->inflight = ing;
    dsim_result_free(fast);
    dsim_result_free(general);
}

/* Both runs of `cfg`: the hierarchy's fast paths and its general path. */
static void expect_equal_runs(const ddio_config *cfg, const char *profile, const char *what)
{
    dsim_result fast, general;
    run(cfg, profile, 0, &fast);
    run(cfg, profile, 1, &general);
    expect_same_results(&fast, &general, what);
}

/* One LLC policy of each family (and QLRU in the L2 too), 1 and 4 cores. */
static void policy_equal(const char *llc_policy, const char *l2_policy)
{
    for (uint32_t cores = 1; cores <= 4; cores += 3) {
        ddio_config cfg;
        equiv_config(&cfg, NULL, llc_policy, l2_policy, cores);
        char what[160];
        snprintf(what, sizeof what, "%s / L2 %s, %u core%s", llc_policy, l2_policy ? l2_policy : "lru", cores,
                 cores > 1 ? "s" : "");
        expect_equal_runs(&cfg, cores == 1 ? "mawi" : "fixed:1500", what);
    }
}

Test(sim_equiv, lru, .timeout = 300) { policy_equal("lru", NULL); }
Test(sim_equiv, bip, .timeout = 300) { policy_equal("bip", NULL); }
Test(sim_equiv, srrip, .timeout = 300) { policy_equal("srrip", NULL); }
Test(sim_equiv, brrip, .timeout = 300) { policy_equal("brrip", NULL); }
Test(sim_equiv, drrip, .timeout = 300) { policy_equal("drrip", NULL); }
Test(sim_equiv, dip, .timeout = 300) { policy_equal("dip", NULL); }
Test(sim_equiv, qlru, .timeout = 300) { policy_equal("QLRU_H11_M1_R0_U0", "QLRU_H00_M1_R2_U1"); }
Test(sim_equiv, duel, .timeout = 300) { policy_equal("duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR13_R0_U1", NULL); }
Test(sim_equiv, duel_h11, .timeout = 300) { policy_equal("duel:QLRU_H11_M1_R0_U0,QLRU_H11_MR31_R0_U0", NULL); }
Test(sim_equiv, qlru_l2_lru, .timeout = 300) { policy_equal("QLRU_H11_M1_R0_U0", NULL); }

/* The inclusive hierarchy (Broadwell), where fewer fast paths apply. */
Test(sim_equiv, inclusive_lru, .timeout = 300)
{
    for (uint32_t cores = 1; cores <= 4; cores += 3) {
        ddio_config cfg;
        equiv_config(&cfg, "broadwell-2650v4", "lru", NULL, cores);
        expect_equal_runs(&cfg, "mawi", cores == 1 ? "broadwell, 1 core" : "broadwell, 4 cores");
    }
}

/* The event loop's shortcuts (a poll or a TX start run in place, the TX
 * round robin's bitmap, a looped trace's RSS queue per record) against
 * dsim_options.plain_events, where every event goes through the queue:
 * 1, 4 and 18 cores, generated packets and a trace looped twice and more. */
static void run_events(const ddio_config *cfg, const char *profile, const char *trace, int plain, dsim_result *r)
{
    dsim_options o;
    dsim_options_default(&o);
    o.src.profile = profile;
    o.src.trace = trace;
    o.packets = trace ? 25000 : 20000;
    o.rate_gbps = -1;   /* line rate */
    o.wall_clock = fixed_clock;
    o.plain_events = plain;
    ddio_err e;
    cr_assert_eq(dsim_run(cfg, &o, r, &e), 0, "%s", e.msg);
}

Test(sim_equiv, plain_events, .timeout = 600)
{
    const uint32_t cores[] = {1, 4, 18};
    for (size_t k = 0; k < sizeof cores / sizeof *cores; k++) {
        ddio_config cfg;
        equiv_config(&cfg, NULL, "lru", NULL, cores[k]);
        for (int t = 0; t < 2; t++) {
            const char *trace = t ? DDIOSIM_SOURCE_DIR "/traces/samples/imix-10k.pcap" : NULL;
            dsim_result fast, plain;
            run_events(&cfg, t ? NULL : "fixed:1500", trace, 0, &fast);
            run_events(&cfg, t ? NULL : "fixed:1500", trace, 1, &plain);
            char what[96];
            snprintf(what, sizeof what, "%s, %u cores: shortcuts / plain events", t ? "imix trace" : "1500 B",
                     cores[k]);
            expect_same_results(&fast, &plain, what);
        }
    }
}
