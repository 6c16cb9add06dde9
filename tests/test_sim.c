/* test_sim.c - the discrete-event simulator against the paper's qualitative
 * findings (Wang, Xu, Wu, SIGMETRICS 2022, Sections 3.4 and 4.4), packet and buffer conservation,
 * and determinism.
 *
 * The runs use a reduced LLC (18 slices x 64 sets x 11 ways: its two DDIO
 * ways hold 2304 lines, i.e. 96 buffers of 1500 B) so that small rings
 * already overflow the DDIO ways and every run stays short under ASan. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "configs/config.h"
#include "sim/markov/predict.h"
#include "sim/queue/dsim.h"
#include "sim/queue/pktsrc.h"
#include "sim/queue/qest.h"
#include "tests/helpers.h"
#include <cjson/cJSON.h>

/* The default machine and workload (skylake-6140, l2fwd), one core, no
 * software TX queue. */
static void full_config(ddio_config *cfg)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e;
    cr_assert_eq(ddio_config_resolve(&a, cfg, NULL, &e), 0, "%s", e.msg);
    cfg->workload.cores = 1;
    cfg->workload.driver.sw_tx_queue = 0;
}

static void small_config(ddio_config *cfg, const char *workload)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e;
    if (workload)
        a.workload = workload;
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, "machine.llc.sets_per_slice=64", &e), 0, "%s", e.msg);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, "machine.llc.mapping=xor", &e), 0, "%s", e.msg);
    cr_assert_eq(ddio_config_resolve(&a, cfg, NULL, &e), 0, "%s", e.msg);
    cfg->workload.cores = 1;
    cfg->workload.driver.sw_tx_queue = 0;
    cfg->workload.driver.mempool_size = 8192;
}

typedef struct run {
    dsim_result r;
    double w, rd;
} run;

static run simulate(const ddio_config *cfg, const char *profile, uint64_t packets, double rate)
{
    dsim_options o;
    dsim_options_default(&o);
    o.src.profile = profile;
    o.packets = packets;
    o.rate_gbps = rate;
    ddio_err e;
    run x;
    cr_assert_eq(dsim_run(cfg, &o, &x.r, &e), 0, "%s", e.msg);
    /* (e) every injected packet is delivered or dropped; dsim_run itself
     * fails if a buffer was lost or duplicated. */
    cr_assert_eq(x.r.injected, packets);
    cr_assert_eq(x.r.delivered + x.r.dropped, x.r.injected, "%llu delivered + %llu dropped != %llu injected",
                 (unsigned long long)x.r.delivered, (unsigned long long)x.r.dropped,
                 (unsigned long long)x.r.injected);
    x.w = dsim_rate(x.r.pcie_write);
    x.rd = dsim_rate(x.r.pcie_read);
    return x;
}

/* (a) Light load: a larger RX ring lowers the PCIe write hit rate (the
 * RX Replenish queue holds Q_RX - L_RX buffers); a larger TX ring alone does
 * not change it (TX descriptors are recycled soon after sending). */
Test(sim, light_load_rx_ring_matters_tx_ring_does_not, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.rx_ring = 64;
    run small = simulate(&cfg, "fixed:1500", 12000, 10);
    cfg.workload.driver.rx_ring = 512;
    run big = simulate(&cfg, "fixed:1500", 12000, 10);
    cr_expect(small.w > big.w + 0.2, "RX 64: %.3f, RX 512: %.3f", small.w, big.w);
    cr_expect(big.r.queue_mean[Q_RX_REPLENISH] > 500, "RX Replenish %.1f", big.r.queue_mean[Q_RX_REPLENISH]);
    cr_expect(small.r.queue_mean[Q_RX] < 2, "light load: RX queue %.2f", small.r.queue_mean[Q_RX]);
    cfg.workload.driver.rx_ring = 64;
    cfg.workload.driver.tx_ring = 1024;
    run tx = simulate(&cfg, "fixed:1500", 12000, 10);
    cr_expect(fabs(tx.w - small.w) < 0.01, "TX 256: %.4f, TX 1024: %.4f", small.w, tx.w);
    dsim_result_free(&small.r);
    dsim_result_free(&big.r);
    dsim_result_free(&tx.r);
}

/* (b) One overloaded core: RX Replenish about 0 and the PCIe read and write
 * hit rates within 2 points of each other (the NIC rewrites a buffer soon
 * after reading it). */
Test(sim, overloaded_core, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.rx_ring = 512;
    run x = simulate(&cfg, "fixed:1500", 20000, -1);
    cr_expect(x.r.dropped > 0, "line rate must overload one core");
    /* "About 0": the core takes and refills a burst (32) at a time, so RX
     * Replenish swings between 0 and about one burst. */
    cr_expect(x.r.queue_mean[Q_RX_REPLENISH] < 2 * 32, "RX Replenish %.1f", x.r.queue_mean[Q_RX_REPLENISH]);
    cr_expect(x.r.queue_mean[Q_RX] > 0.85 * 512, "RX %.1f", x.r.queue_mean[Q_RX]);
    cr_expect(fabs(x.w - x.rd) < 0.02, "write %.3f, read %.3f", x.w, x.rd);
    cr_expect(x.w < 0.9, "the ring overflows the DDIO ways: %.3f", x.w);
    dsim_result_free(&x.r);
}

/* (c) Buffer annealing (Fig. 6a): with an RX ring larger than the DDIO ways
 * can hold, processor writes move lines to L2 (and from there to L3*), so a
 * higher write ratio raises the PCIe write hit rate (non-inclusive). */
Test(sim, buffer_annealing, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, "acrobat");
    cr_assert_eq(cfg.machine.hierarchy, HIER_NONINCLUSIVE, "the default machine is a Skylake");
    cfg.workload.mode = DDIO_MODE_RECEIVE;
    cfg.workload.driver.rx_ring = 512;
    double prev = -1;
    const double ratios[] = {0.0, 0.5, 1.0};
    for (int i = 0; i < 3; i++) {
        cfg.workload.access[2].length = ratios[i];   /* acrobat's write segment */
        run x = simulate(&cfg, "fixed:1500", 12000, 10);
        cr_expect(x.w > prev + 0.05, "write ratio %.1f: %.3f (previous %.3f)", ratios[i], x.w, prev);
        prev = x.w;
        dsim_result_free(&x.r);
    }
}

/* (d) Same ring, light load: smaller packets give a higher PCIe write hit
 * rate (a shorter reuse distance for the same queue lengths). */
Test(sim, smaller_packets_hit_more, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.rx_ring = 512;
    run big = simulate(&cfg, "fixed:1500", 12000, 8);
    run small = simulate(&cfg, "fixed:256", 12000, 1.4);   /* about the same packet rate */
    cr_expect(small.w > big.w + 0.1, "256 B: %.3f, 1500 B: %.3f", small.w, big.w);
    dsim_result_free(&big.r);
    dsim_result_free(&small.r);
}

/* Same seed, same results: every field but the wall-clock ones. */
Test(sim, deterministic_for_a_seed, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.cores = 2;
    cfg.workload.driver.rx_ring = 256;
    run a = simulate(&cfg, "mawi", 8000, -1);
    run b = simulate(&cfg, "mawi", 8000, -1);
    a.r.wall_seconds = b.r.wall_seconds = 0;
    a.r.sim_mpps = b.r.sim_mpps = 0;
    double *qa = a.r.queue_len, *qb = b.r.queue_len, *ia = a.r.inflight, *ib = b.r.inflight;
    cr_expect_eq(memcmp(qa, qb, sizeof(double) * 2 * Q_COUNT), 0);
    cr_expect_eq(memcmp(ia, ib, sizeof(double) * 2 * 2), 0);
    a.r.queue_len = b.r.queue_len = a.r.inflight = b.r.inflight = NULL;
    cr_expect_eq(memcmp(&a.r, &b.r, sizeof a.r), 0, "two runs with one seed differ");
    cr_expect(a.r.pcie_write.accesses > 0);
    a.r.queue_len = qa;
    b.r.queue_len = qb;
    a.r.inflight = ia;
    b.r.inflight = ib;
    dsim_result_free(&a.r);
    dsim_result_free(&b.r);
}

/* RSS spreads flows over the cores; drops are counted where they happen. */
Test(sim, rss_and_drop_accounting, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.cores = 4;
    cfg.workload.driver.rx_ring = 64;
    cfg.workload.driver.tx_ring = 64;
    run x = simulate(&cfg, "fixed:64", 20000, -1);
    int busy = 0;
    for (uint32_t c = 0; c < 4; c++)
        busy += x.r.queue_len[c * Q_COUNT + Q_RX] > 0.01;
    cr_expect_eq(busy, 4, "RSS must use every core");
    cr_expect_eq(x.r.dropped, x.r.drop_rx_ring + x.r.drop_nic_buffer + x.r.drop_tx + x.r.drop_oversize);
    dsim_result_free(&x.r);
}

Test(sim, errors_are_reported_not_fatal)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    dsim_options o;
    dsim_options_default(&o);
    o.src.trace = "/nonexistent.pcap";
    dsim_result r;
    ddio_err e;
    cr_expect_eq(dsim_run(&cfg, &o, &r, &e), -1);
    cr_expect(strstr(e.msg, "/nonexistent.pcap"), "%s", e.msg);
    o.src.trace = NULL;
    o.src.profile = "fixed:1500";
    o.packets = 100;   /* warm-up is capped at half the packets: still runs */
    cr_expect_eq(dsim_run(&cfg, &o, &r, &e), 0, "%s", e.msg);
    dsim_result_free(&r);
    o.warmup_packets = 500;   /* more than the run receives */
    cr_expect_eq(dsim_run(&cfg, &o, &r, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect_str_eq(e.msg, "the run ended during warm-up (100 of the 500 received packets --warmup asks for, 0 "
                            "dropped as larger than the data room): simulate more packets (--packets)");
    o.warmup_packets = UINT64_MAX;
    cfg.workload.driver.data_room = 1024;   /* no 1500 B frame fits */
    cr_expect_eq(dsim_run(&cfg, &o, &r, &e), -1);
    cr_expect_str_eq(e.msg, "no packet was received: all 100 were larger than the data room (1024 B; "
                            "workload.driver.data_room)");
    cfg.workload.driver.data_room = 2048;
    cfg.workload.driver.mempool_size = 100;   /* cannot fill a 256-descriptor RX ring */
    cr_expect_eq(dsim_run(&cfg, &o, &r, &e), -1);
    cr_expect(strstr(e.msg, "mempool"), "%s", e.msg);
}

/* An LLC co-runner (Wang, Xu, Wu, SIGMETRICS 2022, Algorithm 2) whose CAT ways overlap the DDIO
 * ways evicts buffers: the PCIe write hit rate drops. */
Test(sim, distractor_on_ddio_ways_hurts, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.rx_ring = 64;
    run quiet = simulate(&cfg, "fixed:1500", 12000, 10);
    cfg.workload.distractor.working_set = 4u << 20;
    cfg.workload.distractor.stride = 64;
    cfg.workload.distractor.access_interval_ns = 5;
    cfg.workload.distractor.cat_mask = 0x600;
    run noisy = simulate(&cfg, "fixed:1500", 12000, 10);
    cr_expect(noisy.w < quiet.w - 0.2, "without %.3f, with the distractor %.3f", quiet.w, noisy.w);
    cfg.workload.distractor.cat_mask = 0x0F0;   /* its own ways: no interference with DDIO */
    run apart = simulate(&cfg, "fixed:1500", 12000, 10);
    cr_expect(apart.w > quiet.w - 0.02, "without %.3f, isolated distractor %.3f", quiet.w, apart.w);
    dsim_result_free(&quiet.r);
    dsim_result_free(&noisy.r);
    dsim_result_free(&apart.r);
}

/* Wang, Xu, Wu (SIGMETRICS 2022), Appendix D.5: 4 KiB-aligned buffers put every first line in 32
 * of the 2048 sets of a slice (xor mapping), so fewer buffers stay cached. */
Test(sim, page_aligned_buffers_map_unevenly, .timeout = 120)
{
    ddio_config cfg;
    full_config(&cfg);
    cfg.machine.llc.mapping = MAP_XOR;
    cfg.workload.driver.rx_ring = 512;
    run packed = simulate(&cfg, "fixed:1500", 12000, 20);
    cfg.workload.driver.align_4k = true;
    run aligned = simulate(&cfg, "fixed:1500", 12000, 20);
    cr_expect(aligned.w < packed.w - 0.1, "packed %.3f, 4 KiB aligned %.3f", packed.w, aligned.w);
    dsim_result_free(&packed.r);
    dsim_result_free(&aligned.r);
}

/* Under heavy load small packets press on PCIe and build a longer TX queue
 * (Wang, Xu, Wu, SIGMETRICS 2022, Section 4.4.1). */
Test(sim, small_packets_build_tx_queue, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.cores = 4;
    cfg.workload.driver.mempool_size = 0;
    run small = simulate(&cfg, "fixed:64", 30000, -1);
    run big = simulate(&cfg, "fixed:1500", 30000, -1);
    cr_expect(small.r.queue_mean[Q_TX] > 2 * big.r.queue_mean[Q_TX], "TX queue: 64 B %.2f, 1500 B %.2f",
              small.r.queue_mean[Q_TX], big.r.queue_mean[Q_TX]);
    dsim_result_free(&small.r);
    dsim_result_free(&big.r);
}

/* Threshold refill: the driver posts RX descriptors only once rx_free_thresh
 * are free, so at light load (RX about empty) RX Replenish swings between
 * rx_ring - rx_free_thresh and rx_ring: mean rx_ring - thresh / 2. */
Test(sim, rx_refill_threshold, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.rx_ring = 512;
    run eager = simulate(&cfg, "fixed:1500", 12000, 10);
    cfg.workload.driver.rx_refill = DDIO_REFILL_THRESHOLD;
    cfg.workload.driver.rx_free_thresh = 256;
    run thr = simulate(&cfg, "fixed:1500", 12000, 10);
    cr_expect(eager.r.queue_mean[Q_RX_REPLENISH] > 511, "immediate: %.1f", eager.r.queue_mean[Q_RX_REPLENISH]);
    cr_expect(fabs(thr.r.queue_mean[Q_RX_REPLENISH] - (512 - 256 / 2)) < 4, "threshold 256: %.1f",
              thr.r.queue_mean[Q_RX_REPLENISH]);
    dsim_result_free(&eager.r);
    dsim_result_free(&thr.r);
}

/* Threshold recycling (DPDK's nb_tx_free < tx_free_thresh): sent buffers
 * stay in the TX ring until fewer than tx_free_thresh descriptors are free,
 * then all are freed, so at light load TX Recycle swings between 0 and
 * tx_ring - tx_free_thresh + 1: mean about (256 - 32) / 2.  The run must end
 * (an idle core used to poll forever for buffers it was not due to free). */
Test(sim, tx_recycle_threshold, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    run eager = simulate(&cfg, "fixed:1500", 12000, 10);
    cfg.workload.driver.tx_recycle = DDIO_RECYCLE_THRESHOLD;
    cfg.workload.driver.tx_free_thresh = 32;
    run thr = simulate(&cfg, "fixed:1500", 12000, 10);
    cr_expect(eager.r.queue_mean[Q_TX_RECYCLE] < 1, "eager: %.2f", eager.r.queue_mean[Q_TX_RECYCLE]);
    cr_expect(fabs(thr.r.queue_mean[Q_TX_RECYCLE] - (256 - 32) / 2.0) < 4, "threshold 32: %.1f",
              thr.r.queue_mean[Q_TX_RECYCLE]);
    dsim_result_free(&eager.r);
    dsim_result_free(&thr.r);
}

/* The optional software queue between the application and the TX ring
 * (FastClick's blocking ToDPDKDevice): with an 8-descriptor TX ring the
 * NIC's fetches are the bottleneck; without the queue the overflow is
 * dropped at TX, with it the queue fills, the core waits and the RX ring
 * drops instead: never a drop at TX. */
Test(sim, software_tx_queue_absorbs_a_full_tx_ring, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.tx_ring = 8;
    cfg.workload.driver.burst = 8;
    run none = simulate(&cfg, "fixed:64", 30000, -1);
    cfg.workload.driver.sw_tx_queue = 1024;
    run swq = simulate(&cfg, "fixed:64", 30000, -1);
    cr_expect(none.r.drop_tx > 0, "an 8-descriptor TX ring must overflow");
    cr_expect_eq(none.r.queue_mean[Q_SW], 0);
    cr_expect(swq.r.queue_mean[Q_SW] > 1000, "software queue %.1f", swq.r.queue_mean[Q_SW]);
    cr_expect_eq(swq.r.drop_tx, 0, "TX drops: %llu with a blocking queue", (unsigned long long)swq.r.drop_tx);
    cr_expect(swq.r.drop_rx_ring > 0, "the waiting core leaves the RX ring to overflow");
    dsim_result_free(&none.r);
    dsim_result_free(&swq.r);
}

/* A blocking queue smaller than a burst: the burst that does not fit is
 * held (the core waits), not dropped; the queue holds at most its size
 * plus a burst, and the packets all leave or are dropped at RX. */
Test(sim, a_blocking_software_queue_never_drops_at_tx, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.tx_ring = 8;
    cfg.workload.driver.burst = 8;
    cfg.workload.driver.sw_tx_queue = 4;
    run x = simulate(&cfg, "fixed:64", 30000, -1);
    cr_expect_eq(x.r.drop_tx, 0, "TX drops: %llu", (unsigned long long)x.r.drop_tx);
    cr_expect(x.r.drop_rx_ring > 0);
    cr_expect(x.r.queue_mean[Q_SW] > 4 && x.r.queue_mean[Q_SW] <= 4 + 8, "software queue %.2f",
              x.r.queue_mean[Q_SW]);
    dsim_result_free(&x.r);
}

/* The progress callback reports the fraction of packets injected, also for
 * a whole trace (no --packets: it used to report 0 until the end).  The
 * wall clock is a fake one that moves `step` seconds per reading, so the
 * reports do not depend on how fast the build runs. */
typedef struct progress_log {
    int calls;
    double last, min_step;
} progress_log;

static void log_progress(void *ctx, double f)
{
    progress_log *l = ctx;
    if (l->calls && f - l->last < l->min_step)
        l->min_step = f - l->last;
    l->last = f;
    l->calls++;
}

typedef struct fake_clock {
    double now, step;
} fake_clock;

static double fake_clock_read(void *ctx)
{
    fake_clock *c = ctx;
    c->now += c->step;
    return c->now;
}

/* Progress reports of one run of the sample trace: `packets` (0: the
 * whole trace once), a clock moving `step` s per reading, no report before
 * `after` s. */
static progress_log progress_run(uint64_t packets, double step, double after)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    dsim_options o;
    dsim_options_default(&o);
    o.src.trace = DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap";
    o.packets = packets;
    progress_log l = {.min_step = 1};
    fake_clock c = {.now = 0, .step = step};
    o.progress = log_progress;
    o.progress_ctx = &l;
    o.progress_after_s = after;
    o.wall_clock = fake_clock_read;
    o.wall_clock_ctx = &c;
    dsim_result r;
    ddio_err e;
    cr_assert_eq(dsim_run(&cfg, &o, &r, &e), 0, "%s", e.msg);
    /* wall_seconds comes from the same clock: whole readings of it. */
    double readings = r.wall_seconds / step;
    cr_expect(readings >= 1 && readings == floor(readings), "%g s", r.wall_seconds);
    dsim_result_free(&r);
    return l;
}

Test(sim, progress_reports_the_injected_fraction, .timeout = 120)
{
    for (int looped = 0; looped <= 1; looped++) {
        /* A clock moving 1 s per reading: a report at every check, one per
         * 2^16 events: two for the 64 k packets of the trace (the first
         * at 45 %), five when it runs 150 000. */
        progress_log l = progress_run(looped ? 150000 : 0, 1, 0);
        cr_expect_eq(l.calls, looped ? 5 : 2, "%d reports", l.calls);
        cr_expect(l.last > (looped ? 0.5 : 0.3) && l.last <= 1, "last report %.3f", l.last);
        cr_expect(l.min_step >= 0, "the fraction went back by %.3f", -l.min_step);
    }
}

/* At most one report every 0.25 s and none before progress_after_s: with
 * the clock moving 0.125 s per reading, a report (two readings: now, and
 * now + 0.25 as the next due time) is followed by two checks that find
 * 0.125 and 0.25 s gone, not more than 0.25: one check in three reports;
 * with 0.5 s per reading and a first report due 1 s after the start,
 * checks 1 and 2 (0.5 and 1 s after it) do not report, every later one
 * does. */
Test(sim, progress_reports_are_spaced_by_the_wall_clock, .timeout = 120)
{
    progress_log every = progress_run(150000, 1, 0);
    progress_log third = progress_run(150000, 0.125, 0);
    progress_log late = progress_run(150000, 0.5, 1);
    cr_expect_eq(third.calls, (every.calls + 2) / 3, "%d of %d checks", third.calls, every.calls);
    cr_expect_eq(late.calls, every.calls - 2, "%d of %d checks", late.calls, every.calls);
    cr_expect_eq(late.last, every.last, "last report %.6f, %.6f", late.last, every.last);
}

/* --rate counts the frames the simulator sees: with --pkt-size forcing
 * every frame's size, a generated profile offers the asked rate as a trace
 * does (it kept the profile's 1500 B timing: 1.71 Gb/s for 256 B frames
 * "at 10 Gb/s"). */
Test(sim, forced_packet_size_keeps_the_offered_rate, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    const char *profiles[] = {"fixed:1500", "mawi", "imix"};
    for (int k = 0; k < 3; k++) {
        dsim_options o;
        dsim_options_default(&o);
        o.src.profile = profiles[k];
        o.packets = 20000;
        o.rate_gbps = 10;
        o.pkt_size = 256;
        dsim_result r;
        ddio_err e;
        cr_assert_eq(dsim_run(&cfg, &o, &r, &e), 0, "%s", e.msg);
        /* fixed and IMIX: exact means; MAWI's from its size bins (2 %). */
        cr_expect(fabs(r.throughput_gbps - 10) < (k == 1 ? 0.2 : 0.02), "%s: %.3f Gb/s", profiles[k],
                  r.throughput_gbps);
        dsim_result_free(&r);
    }
}

/* `simulate` carries the Markov model's prediction for the queue lengths it
 * measured (the cross-check of issue 5), with lower <= mean <= upper. */
Test(sim, cli_model_block, .timeout = 120)
{
    cli_run r = run_ddiosim("simulate --profile fixed:1500 --rate 10 --packets 20000 --rx-ring 128 --mapping random "
                            "--no-desc --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor --set workload.driver.sw_tx_queue=0 "
                            "--format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j);
    cJSON *m = cJSON_GetObjectItem(j, "model");
    cr_assert(m, "no model block");
    const char *names[] = {"pcie_write_hit_frac", "pcie_read_hit_frac", "cpu_first_hit_frac"};
    for (int i = 0; i < 3; i++) {
        cJSON *b = cJSON_GetObjectItem(m, names[i]);
        cr_assert(b, "%s", names[i]);
        double lo = cJSON_GetObjectItem(b, "lower")->valuedouble, hi = cJSON_GetObjectItem(b, "upper")->valuedouble,
               mean = cJSON_GetObjectItem(b, "mean")->valuedouble;
        cr_expect(lo <= mean + 1e-12 && mean <= hi + 1e-12, "%s: %g %g %g", names[i], lo, mean, hi);
    }
    /* Light load, LRU, random mapping: the LRU value is close to the simulation. */
    double d = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "pcie_write_hit_frac"), "sim_minus_lower")->valuedouble;
    cr_expect(fabs(d) < 0.05, "simulated - model (LRU) write hit rate: %.3f", d);
    cJSON_Delete(j);
    cli_run_free(&r);
}

/* Frames longer than a buffer's data room are dropped (no scatter), never
 * written over the next buffer. */
Test(sim, oversize_frames_dropped, .timeout = 60)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.data_room = 1024;
    /* IMIX: one 1518 B frame in every block of 12. */
    run x = simulate(&cfg, "imix", 6000, 10);
    cr_expect_eq(x.r.drop_oversize, 500);
    cr_expect_eq(x.r.delivered, 5500);
    dsim_result_free(&x.r);
}

/* An overloaded core fills its RX ring only at the excess rate (here ~9 % of
 * the arrivals), long after the buffers have cycled twice.  The default
 * warm-up waits until the RX length the packets see has settled, so the
 * measured queues are the full ring's; a warm-up of two buffer cycles
 * measures a ring still filling (shorter queues, higher hit rates). */
Test(sim, warmup_waits_for_the_ring_to_fill, .timeout = 180)
{
    /* The full-size LLC: with the reduced one, misses slow the core so much
     * that the ring fills at once. */
    ddio_config cfg;
    full_config(&cfg);
    ddio_err e;
    cfg.machine.llc.mapping = MAP_RANDOM;
    cfg.workload.driver.rx_ring = 1024;
    dsim_options o;
    dsim_options_default(&o);
    o.src.profile = "fixed:1500";
    o.packets = 80000;
    o.rate_gbps = -1;
    /* A CQE per packet on the published model's link (pcie.dllp table):
     * PCIe holds the line rate to 7.8 Mpps, 3 % above what the core takes,
     * and the ring fills slowly. */
    cfg.workload.driver.rx_cqe_comp = false;
    cfg.machine.pcie.dllp = PCIE_DLLP_TABLE;
    o.desc_access = 0;
    dsim_result settled, early;
    cr_assert_eq(dsim_run(&cfg, &o, &settled, &e), 0, "%s", e.msg);
    uint64_t two_cycles = 2 * (1024 + 256 + 0 + cfg.workload.driver.mempool_cache);
    o.warmup_packets = two_cycles;
    cr_assert_eq(dsim_run(&cfg, &o, &early, &e), 0, "%s", e.msg);
    cr_expect(settled.warmup_settled);
    cr_expect(settled.warmup_packets > 2 * two_cycles, "warm-up %llu packets",
              (unsigned long long)settled.warmup_packets);
    cr_expect_eq(early.warmup_packets, two_cycles);
    cr_expect(settled.queue_mean[Q_RX_REPLENISH] < 2 * 32, "RX Replenish %.1f", settled.queue_mean[Q_RX_REPLENISH]);
    cr_expect(early.queue_mean[Q_RX_REPLENISH] > 100, "RX Replenish %.1f while filling",
              early.queue_mean[Q_RX_REPLENISH]);
    double ws = dsim_rate(settled.pcie_write), rs = dsim_rate(settled.pcie_read);
    cr_expect(fabs(ws - rs) < 0.02, "settled: write %.3f, read %.3f", ws, rs);
    cr_expect(dsim_rate(early.pcie_read) > rs + 0.02, "filling: read %.3f, settled %.3f",
              dsim_rate(early.pcie_read), rs);
    /* What it is for: under the model's assumptions (random mapping, LRU,
     * one size) the model agrees with the settled run within 2 points. */
    mk_traffic t;
    cr_assert_eq(mk_traffic_fixed(&t, 1500, 1, &e), 0, "%s", e.msg);
    mk_prediction p;
    cr_assert_eq(mk_predict_for_sim(&cfg, &t, &settled, 1, &p, &e), 0, "%s", e.msg);
    cr_expect(fabs(p.pcie_write_hit.lower - ws) < 0.02, "write: model %.4f, sim %.4f", p.pcie_write_hit.lower, ws);
    cr_expect(fabs(p.pcie_read_hit.lower - rs) < 0.02, "read: model %.4f, sim %.4f", p.pcie_read_hit.lower, rs);
    mk_traffic_free(&t);
    dsim_result_free(&settled);
    dsim_result_free(&early);
}

/* The default warm-up ends at half the packets at the latest, and says so. */
Test(sim, warmup_cap_is_reported, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.driver.rx_ring = 4096;
    run x = simulate(&cfg, "fixed:1500", 16000, -1);
    /* The cap is half the injected packets; the packets received by then are
     * fewer (a few hundred dropped at the NIC buffer or still in flight). */
    cr_expect(x.r.warmup_packets <= 8000 && x.r.warmup_packets > 7500, "warm-up %llu packets",
              (unsigned long long)x.r.warmup_packets);
    cr_expect_not(x.r.warmup_settled, "a 4096 ring cannot fill in 8000 packets at 9 %% excess");
    dsim_result_free(&x.r);
    cli_run r = run_ddiosim("simulate --profile fixed:1500 --rate max --packets 16000 --rx-ring 4096 "
                            "--set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor --no-model");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "the queues were still moving"), "%s", r.out);
    cli_run_free(&r);
    /* A run that drops more than half its packets still measures its second
     * half (it used to end "during warm-up": fewer than half were received). */
    r = run_ddiosim("simulate --profile fixed:64 --rate max --cores 4 --packets 40000 --rx-ring 512 --no-model "
                    "--set workload.driver.rx_cqe_comp=false --set machine.pcie.dllp=table --format json");
    /* a CQE per packet on the published model's link: PCIe-bound */
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j);
    double dropped = cJSON_GetObjectItem(j, "dropped")->valuedouble;
    cJSON *w = cJSON_GetObjectItem(j, "warmup");
    double warm = cJSON_GetObjectItem(w, "packets")->valuedouble;
    cr_expect(dropped > 20000, "%.0f dropped", dropped);
    cr_expect(warm < 20000 && cJSON_GetObjectItem(j, "measured_packets")->valuedouble > 0, "warm-up %.0f", warm);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(w, "settled")));
    cJSON_Delete(j);
    cli_run_free(&r);
}

/* Send mode (packet-acrobat's generator: the core builds packets, the NIC
 * only reads them): nothing is received, so send requests count for the
 * warm-up; the run used to end "during warm-up" every time. */
Test(sim, send_mode_runs, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.mode = DDIO_MODE_SEND;
    run x = simulate(&cfg, "fixed:512", 8000, 20);
    cr_expect(x.r.warmup_settled);
    cr_expect(x.r.warmup_packets > 0 && x.r.warmup_packets <= 4000, "warm-up %llu",
              (unsigned long long)x.r.warmup_packets);
    cr_expect_eq(x.r.delivered, 8000);
    cr_expect_eq(x.r.pcie_write.accesses, 0, "the NIC writes no packet data in send mode");
    cr_expect_gt(x.r.pcie_read.accesses, 0);
    dsim_result_free(&x.r);
}

/* The packet source hands out generated packets a batch at a time (timed
 * ahead, the generator's state in registers): the same lengths, arrival
 * times and tuples as the generator one packet at a time with the timing
 * of pktsrc.h written out here, for every profile, back to back, at a rate
 * and at the generator's own pace, with and without the tuple. */
Test(sim, pktsrc_batches_equal_single_packets)
{
    const char *profiles[] = {"mawi", "imix", "fixed:64", "fixed:1500"};
    const double rates[] = {-1.0, 0.0, 25.0};
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < 3; r++)
            for (int no_tuple = 0; no_tuple < 2; no_tuple++) {
                const uint64_t n = 3001, seed = 40 + (uint64_t)k;
                const double line = 100.0;
                ddio_err e;
                pktsrc *src = malloc(sizeof *src);
                dsim_source from = {.profile = profiles[k]};
                cr_assert_eq(pktsrc_open(src, &from, n, rates[r], line, 0, seed, &e), 0, "%s", e.msg);
                if (no_tuple)
                    pktsrc_skip_tuple(src);
                gen_config c;
                gen_config_default(&c);
                cr_assert_eq(gen_parse_profile(profiles[k], &c, "profile", &e), 0);
                c.packets = n;
                c.seed = seed;
                if (rates[r] > 0)
                    c.rate_gbps = rates[r];
                c.snaplen = 128;
                gen *g = malloc(sizeof *g);
                cr_assert_eq(gen_init(g, &c, &e), 0);
                gen_set_no_tuple(g, no_tuple);
                uint64_t first = 0;
                double last_t = 0;
                uint32_t last_len = 0;
                for (uint64_t i = 0; i < n; i++) {
                    gen_pkt gp;
                    gen_meta m;
                    cr_assert_eq(gen_next_meta(g, &gp, &m, rates[r] < 0), 1);
                    if (i == 0)
                        first = gp.ts_ns;
                    double t = rates[r] < 0 ? 0 : (double)(gp.ts_ns - first);
                    if (i) {
                        double earliest = last_t + (double)(last_len + PKTSRC_WIRE_OVERHEAD) * 8.0 / line;
                        if (t < earliest)
                            t = earliest;
                    }
                    last_t = t;
                    last_len = gp.len;
                    pktsrc_pkt p = {0};
                    cr_assert_eq(pktsrc_next(src, &p, &e), 1);
                    cr_assert(p.len == gp.len && p.ts_ns == (uint64_t)(t + 0.5), "%s rate %g packet %llu",
                              profiles[k], rates[r], (unsigned long long)i);
                    cr_assert(p.has_tuple == !no_tuple &&
                              (no_tuple || (p.src_ip == m.src_ip && p.dst_ip == m.dst_ip &&
                                            p.src_port == m.src_port && p.dst_port == m.dst_port &&
                                            p.proto == m.proto)));
                }
                pktsrc_pkt p;
                cr_assert_eq(pktsrc_next(src, &p, &e), 0);
                cr_assert_eq(src->produced, n);
                pktsrc_close(src);
                free(src);
                free(g);
            }
}

/* dsim_account integrates the queue lengths in integers while the sums are
 * exact, then converts them and goes on in doubles: any switch time gives
 * the queue lengths of the all-double integration (area_exact_ns = 1: the
 * doubles from the first event of the measured interval on), bit for bit. */
Test(sim, integer_areas_equal_double_areas, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.cores = 2;
    cfg.workload.driver.rx_ring = 256;
    const uint64_t spans[] = {1, 3000, 40000, 0};
    dsim_result r[4];
    for (int k = 0; k < 4; k++) {
        dsim_options o;
        dsim_options_default(&o);
        o.src.profile = "mawi";
        o.packets = 8000;
        o.rate_gbps = -1;
        o.area_exact_ns = spans[k];
        ddio_err e;
        cr_assert_eq(dsim_run(&cfg, &o, &r[k], &e), 0, "%s", e.msg);
    }
    cr_assert_gt(r[3].measured_seconds * 1e9, 40000.0, "the spans must fall inside the measured interval");
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(memcmp(r[k].queue_len, r[3].queue_len, sizeof(double) * 2 * Q_COUNT), 0, "span %llu",
                     (unsigned long long)spans[k]);
        cr_expect_eq(memcmp(r[k].inflight, r[3].inflight, sizeof(double) * 2 * 2), 0, "span %llu",
                     (unsigned long long)spans[k]);
        cr_expect_eq(memcmp(r[k].queue_mean, r[3].queue_mean, sizeof r[3].queue_mean), 0);
    }
    cr_expect_gt(r[3].queue_mean[Q_RX], 0);
    for (int k = 0; k < 4; k++)
        dsim_result_free(&r[k]);
}

/* The L2 prefetcher (machine l2.prefetch_lines) is a core read the core
 * does not wait for.  At light load, where a packet is done before the next
 * arrives and the core's latency reorders nothing, prefetching lines 1-2
 * gives the cache exactly the accesses of l2fwd reading them itself: the
 * same hits, misses and memory traffic.  And it keeps those lines out of
 * the thrashing DDIO ways: more PCIe write hits than without it. */
Test(sim, l2_prefetch_is_a_read_the_core_does_not_wait_for, .timeout = 120)
{
    ddio_config off, pf, rd;
    small_config(&off, NULL);
    off.workload.driver.rx_ring = 512;
    prefetch_variants(&off, 2, &pf, &rd);
    run a = simulate(&off, "fixed:1500", 6000, 1);
    run b = simulate(&pf, "fixed:1500", 6000, 1);
    run c = simulate(&rd, "fixed:1500", 6000, 1);
    cr_expect_eq(b.r.pcie_write.hits, c.r.pcie_write.hits);
    cr_expect_eq(b.r.pcie_write.accesses, c.r.pcie_write.accesses);
    cr_expect_eq(b.r.pcie_read.hits, c.r.pcie_read.hits);
    cr_expect_eq(b.r.pcie_read.accesses, c.r.pcie_read.accesses);
    cr_expect_eq(b.r.mem_read_lines, c.r.mem_read_lines);
    cr_expect_eq(b.r.mem_write_lines, c.r.mem_write_lines);
    cr_expect_gt(b.w, a.w + 0.02, "prefetch %.4f, off %.4f", b.w, a.w);
    dsim_result_free(&a.r);
    dsim_result_free(&b.r);
    dsim_result_free(&c.r);
}

/* mlx5 CQE compression (driver.rx_cqe_comp): the NIC writes one completion
 * line per eight received packets instead of a CQE per packet, so the PCIe
 * writes beyond the packets' data lines are the RX lines (n / 8) and the TX
 * completions (one per 32 sent, as without it).  On a link with the
 * published model's DLL overhead (pcie.dllp table), at line rate with four
 * cores, it is what lets 1500-byte frames through: with a CQE per packet
 * the upstream carries about 7.8 of the 8.2 Mpps offered. */
Test(sim, cqe_compression_writes_a_completion_line_per_eight_packets, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    const uint64_t n = 8000;
    for (int comp = 0; comp <= 1; comp++) {
        cfg.workload.driver.rx_cqe_comp = comp;
        run x = simulate(&cfg, "fixed:1500", n, 1);
        cr_assert_eq(x.r.dropped, 0);
        uint64_t m = x.r.measured_packets;
        double desc = (double)(x.r.pcie_write_all.accesses - x.r.pcie_write.accesses);
        double want = (comp ? m / 8.0 : (double)m) + m / 32.0;
        cr_expect(fabs(desc - want) <= 3, "compression %d: %.0f completion lines for %llu packets, want %.1f", comp,
                  desc, (unsigned long long)m, want);
        dsim_result_free(&x.r);
    }
    cfg.workload.cores = 4;
    cfg.workload.driver.rx_cqe_comp = false;
    cfg.machine.pcie.dllp = PCIE_DLLP_TABLE;
    run full = simulate(&cfg, "fixed:1500", 40000, -1);
    cfg.workload.driver.rx_cqe_comp = true;
    run comp = simulate(&cfg, "fixed:1500", 40000, -1);
    cr_expect_gt(full.r.drop_nic_buffer, 40000 * 0.03, "a CQE per packet: %llu dropped at the NIC buffer",
                 (unsigned long long)full.r.drop_nic_buffer);
    cr_expect_lt(comp.r.drop_nic_buffer, 40000 * 0.02, "compressed: %llu dropped at the NIC buffer",
                 (unsigned long long)comp.r.drop_nic_buffer);
    cr_expect_gt(comp.r.mpps, full.r.mpps * 1.03, "%.3f vs %.3f Mpps", comp.r.mpps, full.r.mpps);
    dsim_result_free(&full.r);
    dsim_result_free(&comp.r);
}

/* The NIC fetches descriptors a 64-byte line at a time: the 16-byte RX WQEs
 * four to a line, the TX WQEs one line each, or with eMPW
 * (driver.tx_mpw) four packets' 16-byte data segments to a line.  The PCIe
 * reads beyond the packets' data lines count those fetches. */
Test(sim, descriptors_are_fetched_a_line_at_a_time, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    for (int mpw = 0; mpw <= 1; mpw++) {
        cfg.workload.driver.tx_mpw = mpw;
        run x = simulate(&cfg, "fixed:1500", 8000, 1);
        cr_assert_eq(x.r.dropped, 0);
        uint64_t m = x.r.measured_packets;
        double desc = (double)(x.r.pcie_read_all.accesses - x.r.pcie_read.accesses);
        double want = m / 4.0 + (mpw ? m / 4.0 : (double)m);
        cr_expect(fabs(desc - want) <= 3, "eMPW %d: %.0f descriptor lines for %llu packets, want %.1f", mpw, desc,
                  (unsigned long long)m, want);
        cr_expect_eq(x.r.pcie_read_all.hits - x.r.pcie_read.hits,
                     x.r.pcie_read_all.accesses - x.r.pcie_read.accesses, "the driver's fresh descriptors hit");
        dsim_result_free(&x.r);
    }
}

/* The mean latency is the delivered packets' own mean, not a histogram
 * bucket's: at a light load every packet takes about the same time, so the
 * mean sits by the median (buckets are a sixteenth of an octave wide) and
 * below the 99th percentile. */
Test(sim, mean_latency_at_light_load, .timeout = 60)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    run x = simulate(&cfg, "fixed:1500", 20000, 1);
    cr_expect(x.r.latency_mean_us > 0);
    cr_expect(fabs(x.r.latency_mean_us - x.r.latency_p50_us) < 0.07 * x.r.latency_p50_us, "mean %.3f, p50 %.3f",
              x.r.latency_mean_us, x.r.latency_p50_us);
    cr_expect(x.r.latency_mean_us <= x.r.latency_p99_us * 1.07);
    dsim_result_free(&x.r);
}

/* machine.pcie.dllp: the ddio-bench server (gen3 x16, MPS 256) forwards
 * 8.16 Mpps of 1500 B frames at 4 cores with no queue.  Read per lane, the
 * spec's ACK / FC intervals cost 16 / (168 x 16) + 4 / 1538 of the link and
 * it carries them; read as the published model tabulates them (16 / 168 +
 * 4 / 1538, 9.8 %), the upstream link falls behind and the NIC's packet
 * buffer overflows. */
Test(sim, pcie_dllp_per_lane_carries_the_servers_rate, .timeout = 120)
{
    ddio_config cfg;
    full_config(&cfg);
    pcie_config pc;
    dsim_pcie_config(&cfg, &pc);
    cr_expect_float_eq(pc.dll_overhead, 16.0 / (168 * 16) + 4.0 / 1538, 1e-12);
    cfg.workload.cores = 4;
    const double rate = 99.4 * 1500 / 1524;   /* the generator's 99.4 Gb/s on the wire */
    run lane = simulate(&cfg, "fixed:1500", 60000, rate);
    cr_expect_eq(lane.r.drop_nic_buffer, 0);
    cr_expect_eq(lane.r.dropped, 0);
    cfg.machine.pcie.dllp = PCIE_DLLP_TABLE;
    dsim_pcie_config(&cfg, &pc);
    cr_expect_eq(pc.dll_overhead, PCIE_DLL_SPEC);
    run table = simulate(&cfg, "fixed:1500", 60000, rate);
    cr_expect_gt(table.r.drop_nic_buffer, 0);
    cr_expect_lt(table.r.mpps, lane.r.mpps);
    dsim_result_free(&lane.r);
    dsim_result_free(&table.r);
}

/* workload.latency_exposed: the core waits for that fraction of its
 * accesses' latency.  l2fwd reads then writes a packet's first line: an LLC
 * hit (26.0 ns) and an L2 hit (6.1 ns) on skylake-6140.  The queueing
 * estimate charges 300 cycles / 2.3 GHz + x (26.0 + 6.1) ns; the simulator's
 * overloaded core takes as much longer per packet as x adds. */
Test(sim, latency_exposed_scales_the_cores_stall, .timeout = 120)
{
    ddio_config cfg;
    full_config(&cfg);
    cfg.workload.cycles_per_packet = 300;   /* 130 ns: below the line rate's 8.2 Mpps */
    cfg.workload.cycles_per_byte = 0;
    const double x[3] = {1, 0.5, 0};
    double per_pkt[3];
    for (int i = 0; i < 3; i++) {
        cfg.workload.latency_exposed = x[i];
        qest_input in = {.rate_gbps = -1, .mean_pkt = 1500, .cpu_hit = 1.0};
        qest_result q;
        ddio_err e;
        cr_assert_eq(qest_estimate(&cfg, &in, &q, &e), 0, "%s", e.msg);
        cr_expect_float_eq(q.service_ns, 300 / 2.3 + x[i] * (26.0 + 6.1), 1e-9, "x = %g: %.6f ns", x[i],
                           q.service_ns);
        qest_result_free(&q);
        run r = simulate(&cfg, "fixed:1500", 40000, -1);
        cr_expect_gt(r.r.drop_rx_ring, 0, "the core is overloaded");
        per_pkt[i] = 1000.0 / r.r.mpps;
        dsim_result_free(&r.r);
    }
    cr_expect(fabs(per_pkt[0] - per_pkt[2] - 32.1) < 1.0, "%.2f - %.2f ns", per_pkt[0], per_pkt[2]);
    cr_expect(fabs(per_pkt[1] - per_pkt[2] - 16.05) < 0.5, "%.2f - %.2f ns", per_pkt[1], per_pkt[2]);
}

/* machine.nic.tx_packet_ns: a TX queue gives a packet its own work (200 ns
 * here) and its data's link time, once per queue fetching at once.  1500 B
 * at line rate with a fast core: one core forwards 1 / (200 + x) packets
 * per ns, two cores 2 / (200 + 2 x), x the completions' link time; both
 * engines, and the queues in front of the NIC fill (a blocking software
 * queue), where with 0 the wire is the limit. */
Test(sim, tx_packet_ns_paces_each_tx_queue, .timeout = 120)
{
    ddio_config cfg;
    full_config(&cfg);
    cfg.workload.driver.sw_tx_queue = 1024;
    cfg.workload.cycles_per_byte = 0;
    cfg.machine.nic.tx_packet_ns = 200;
    pcie_config pc;
    dsim_pcie_config(&cfg, &pc);
    pcie_link link;
    ddio_err e;
    cr_assert_eq(pcie_link_init(&link, &pc, &e), 0, "%s", e.msg);
    const double x = (double)pcie_cpld_bytes(&link, 1500) * link.ps_per_byte / 1000.0;
    cr_expect(x > 100 && x < 110, "%.3f ns", x);
    for (uint32_t cores = 1; cores <= 2; cores++) {
        cfg.workload.cores = cores;
        double want = cores / (200 + cores * x) * 1e3;   /* Mpps */
        run r = simulate(&cfg, "fixed:1500", 60000, -1);
        cr_expect(fabs(r.r.mpps - want) < 0.01 * want, "%u cores: %.4f Mpps, want %.4f", cores, r.r.mpps, want);
        cr_expect_gt(r.r.queue_mean[Q_SW], 1000, "software queue %.1f", r.r.queue_mean[Q_SW]);
        dsim_result_free(&r.r);
        qest_input in = {.rate_gbps = -1, .mean_pkt = 1500, .cpu_hit = 1.0};
        qest_result q;
        cr_assert_eq(qest_estimate(&cfg, &in, &q, &e), 0, "%s", e.msg);
        cr_expect_str_eq(q.regime, "tx-bound");
        cr_expect(fabs(q.accepted_pps * 1e-6 - want) < 1e-9 * want, "%.6f", q.accepted_pps * 1e-6);
        cr_expect_eq(q.mean[Q_SW], 1024);
        qest_result_free(&q);
    }
    cfg.machine.nic.tx_packet_ns = 0;
    cfg.workload.cores = 1;
    run free = simulate(&cfg, "fixed:1500", 60000, -1);
    cr_expect_gt(free.r.mpps, 8.1);
    cr_expect_lt(free.r.queue_mean[Q_SW], 1);
    dsim_result_free(&free.r);
}

/* machine.nic.rx_hold_bytes: an overloaded core's RX ring is full, and the
 * NIC keeps 150 000 bytes more of 1500 B frames (100) in arrival order:
 * each delivered frame waited 100 frames' service longer, and as many
 * fewer were dropped; the cache saw the same lines (the frames wait before
 * their DMA).  The queueing estimate counts the 100 as held, outside the
 * rings. */
Test(sim, rx_hold_bytes_keeps_frames_in_the_nic, .timeout = 120)
{
    ddio_config cfg;
    small_config(&cfg, NULL);
    cfg.workload.cycles_per_packet = 600;   /* ~300 ns a packet: overloaded at line rate */
    cfg.workload.driver.rx_ring = 256;
    cfg.machine.nic.rx_hold_bytes = 0;
    run drop = simulate(&cfg, "fixed:1500", 40000, -1);
    cfg.machine.nic.rx_hold_bytes = 150000;
    run hold = simulate(&cfg, "fixed:1500", 40000, -1);
    cr_expect_gt(drop.r.drop_rx_ring, 10000);
    cr_expect(fabs(drop.r.mpps - hold.r.mpps) < 0.002 * drop.r.mpps, "%.4f vs %.4f Mpps", drop.r.mpps, hold.r.mpps);
    double extra_us = hold.r.latency_mean_us - drop.r.latency_mean_us, want = 100 / hold.r.mpps;
    cr_expect(fabs(extra_us - want) < 0.03 * want, "%.2f us more, want %.2f", extra_us, want);
    cr_expect_eq(drop.r.pcie_write.accesses - hold.r.pcie_write.accesses, 0, "the same frames were written in the run's window");
    cr_expect(fabs(dsim_rate(drop.r.pcie_write) - dsim_rate(hold.r.pcie_write)) < 0.01);
    dsim_result_free(&drop.r);
    dsim_result_free(&hold.r);
    qest_input in = {.rate_gbps = -1, .mean_pkt = 1500, .cpu_hit = 1.0};
    qest_result q;
    ddio_err e;
    cr_assert_eq(qest_estimate(&cfg, &in, &q, &e), 0, "%s", e.msg);
    cr_expect_str_eq(q.regime, "core-bound");
    cr_expect_eq(q.nic_held, 100);
    qest_result_free(&q);
    /* A core that keeps up holds nothing. */
    cfg.workload.cycles_per_packet = 25;
    cfg.workload.cycles_per_byte = 0;
    cr_assert_eq(qest_estimate(&cfg, &in, &q, &e), 0, "%s", e.msg);
    cr_expect_eq(q.nic_held, 0);
    qest_result_free(&q);
}
