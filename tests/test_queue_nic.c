/* test_queue_nic.c - the NIC seam (sim/queue/nic.h): each driver's defining
 * behaviour, on hand-sized rings of 64 descriptors, counted exactly through
 * the simulator's trace hook (dsim_options.nic_trace).
 *
 * The traffic: 256 frames of 1500 B at 1 Gb/s (one every 12.2 us) on one
 * core, so that every poll takes one packet and every sent packet has left
 * the wire before the next one arrives.  Fixed seed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "sim/queue/dsim.h"
#include "sim/queue/nic.h"
#include "sim/queue/qest.h"

#define PACKETS 256u
#define RING 64u
#define MAX_EV 4096u

typedef struct trace {
    nic_trace_ev ev[MAX_EV];
    uint32_t n;
} trace;

static void record(void *ctx, const nic_trace_ev *ev)
{
    trace *t = ctx;
    cr_assert_lt(t->n, MAX_EV);
    t->ev[t->n++] = *ev;
}

static uint32_t count(const trace *t, enum nic_trace_kind k)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n; i++)
        n += t->ev[i].kind == k;
    return n;
}

/* The default machine and l2fwd with `driver`, RX and TX rings of 64, the
 * thresholds at DPDK's defaults (32), one core, no software queue. */
static void nic_config(ddio_config *cfg, const char *driver)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e;
    char set[64];
    snprintf(set, sizeof set, "machine.nic.driver=%s", driver);
    const char *sets[] = {set, "workload.driver.rx_ring=64", "workload.driver.tx_ring=64",
                          "workload.driver.sw_tx_queue=0", "workload.cores=1"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, sets[i], &e), 0, "%s", e.msg);
    cr_assert_eq(ddio_config_resolve(&a, cfg, NULL, &e), 0, "%s", e.msg);
}

static void run(const ddio_config *cfg, trace *t, dsim_result *r)
{
    dsim_options o;
    dsim_options_default(&o);
    o.src.profile = "fixed:1500";
    o.packets = PACKETS;
    o.rate_gbps = 1;
    o.warmup_packets = 16;
    o.nic_trace = record;
    o.nic_trace_ctx = t;
    memset(t, 0, sizeof *t);
    ddio_err e;
    cr_assert_eq(dsim_run(cfg, &o, r, &e), 0, "%s", e.msg);
    cr_assert_eq(r->delivered, PACKETS, "light load delivers every packet");
}

/* The line of descriptor `desc` as the NIC fetched it (the fetch of the
 * line's first descriptor), or 0. */
static uint64_t fetched_line(const trace *t, enum nic_trace_kind k, uint64_t desc, uint32_t per_line)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->ev[i].kind == k && t->ev[i].n == desc - desc % per_line)
            return t->ev[i].addr >> 6;
    return 0;
}

/* ice refills in blocks: exactly when rx_free_thresh (32) descriptors have
 * been consumed, exactly 32 of them: 256 packets, 8 refills, each after
 * the 32nd packet since the last. */
Test(queue_nic, ice_refills_rx_free_thresh_at_a_time)
{
    ddio_config cfg;
    nic_config(&cfg, "ice");
    trace *t = calloc(1, sizeof *t);
    dsim_result r;
    run(&cfg, t, &r);
    cr_expect_eq(count(t, NIC_TR_RX_REFILL), PACKETS / 32);
    uint32_t received = 0, refills = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const nic_trace_ev *ev = &t->ev[i];
        if (ev->kind == NIC_TR_RX_WB)
            received++;
        if (ev->kind != NIC_TR_RX_REFILL)
            continue;
        refills++;
        cr_expect_eq(ev->n, 32, "refill %u posts %llu", refills, (unsigned long long)ev->n);
        cr_expect_eq(ev->aux, 32, "refill %u with %llu descriptors free", refills, (unsigned long long)ev->aux);
        cr_expect_eq(received, 32 * refills, "refill %u after %u packets", refills, received);
    }
    dsim_result_free(&r);
    free(t);
}

/* ice writes each received packet's descriptor back in place: the line it
 * writes is the RX ring line the NIC fetched that descriptor from (32-byte
 * descriptors, two a line), and part of a line. */
Test(queue_nic, ice_writes_back_into_the_rx_ring)
{
    ddio_config cfg;
    nic_config(&cfg, "ice");
    trace *t = calloc(1, sizeof *t);
    dsim_result r;
    run(&cfg, t, &r);
    cr_expect_eq(count(t, NIC_TR_RX_WB), PACKETS, "one write-back per packet");
    cr_expect_eq(count(t, NIC_TR_RX_FETCH), PACKETS / 2, "one fetch per line of two descriptors");
    for (uint32_t i = 0; i < t->n; i++) {
        const nic_trace_ev *ev = &t->ev[i];
        if (ev->kind != NIC_TR_RX_WB)
            continue;
        /* Packet n used descriptor n % 64, fetched (line and all) as descriptor n - n % 2. */
        uint64_t want = fetched_line(t, NIC_TR_RX_FETCH, ev->n, 2);
        cr_expect_eq(ev->addr >> 6, want, "packet %llu: write-back line %#llx, its descriptor's line %#llx",
                     (unsigned long long)ev->n, (unsigned long long)(ev->addr >> 6), (unsigned long long)want);
        cr_expect_eq(ev->addr % 64, (ev->n % 2) * 32, "packet %llu written at its own 32-byte slot",
                     (unsigned long long)ev->n);
        cr_expect_eq(ev->aux, 1, "a partial-line write");
    }
    dsim_result_free(&r);
    free(t);
}

/* The same with DPDK built for 16-byte RX descriptors (driver.rx_desc_16b):
 * four a line, so a fetch per four packets, and each write-back in its own
 * quarter of the fetched line. */
Test(queue_nic, ice_16_byte_rx_descriptors)
{
    ddio_config cfg;
    nic_config(&cfg, "ice");
    cfg.workload.driver.rx_desc_16b = true;
    trace *t = calloc(1, sizeof *t);
    dsim_result r;
    run(&cfg, t, &r);
    cr_expect_eq(count(t, NIC_TR_RX_WB), PACKETS);
    cr_expect_eq(count(t, NIC_TR_RX_FETCH), PACKETS / 4);
    for (uint32_t i = 0; i < t->n; i++) {
        const nic_trace_ev *ev = &t->ev[i];
        if (ev->kind != NIC_TR_RX_WB)
            continue;
        cr_expect_eq(ev->addr >> 6, fetched_line(t, NIC_TR_RX_FETCH, ev->n, 4), "packet %llu",
                     (unsigned long long)ev->n);
        cr_expect_eq(ev->addr % 64, (ev->n % 4) * 16, "packet %llu", (unsigned long long)ev->n);
    }
    dsim_result_free(&r);
    free(t);
}

/* ice's RS bit every tx_rs_thresh (32) descriptors: the NIC writes back the
 * DD status of descriptors 31, 63, ... only, into that descriptor's own TX
 * ring line.  The driver frees exactly 32 buffers at a time, and only when
 * fewer than tx_free_thresh (32) descriptors are free: 7 blocks of the 256
 * (the last 32 sent stay: 32 free descriptors are not fewer than 32). */
Test(queue_nic, ice_tx_rs_and_free_blocks)
{
    ddio_config cfg;
    nic_config(&cfg, "ice");
    trace *t = calloc(1, sizeof *t);
    dsim_result r;
    run(&cfg, t, &r);
    cr_expect_eq(count(t, NIC_TR_TX_COMP), PACKETS / 32);
    uint32_t comps = 0, frees = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const nic_trace_ev *ev = &t->ev[i];
        if (ev->kind == NIC_TR_TX_COMP) {
            comps++;
            cr_expect_eq(ev->n, 32 * comps, "completion %u after %llu sends", comps, (unsigned long long)ev->n);
            uint64_t rs = ev->n - 1;   /* the RS descriptor: 16 bytes, four a line */
            cr_expect_eq(ev->addr >> 6, fetched_line(t, NIC_TR_TX_FETCH, rs, 4), "RS descriptor %llu's line",
                         (unsigned long long)rs);
            cr_expect_eq(ev->addr % 64, (rs % 4) * 16);
        } else if (ev->kind == NIC_TR_TX_FREE) {
            frees++;
            cr_expect_eq(ev->n, 32, "free %u: %llu buffers", frees, (unsigned long long)ev->n);
            cr_expect_lt(ev->aux, 32, "free %u with %llu descriptors free", frees, (unsigned long long)ev->aux);
        }
    }
    cr_expect_eq(frees, 7);
    /* Sent buffers wait in the ring until fewer than 32 of its 64
     * descriptors are free, then 32 go: TX Recycle swings between 1 and 33
     * (about 64 - 32 - 32 / 2 = 16 on average), where mlx5 frees them at
     * once (below). */
    cr_expect(r.queue_mean[Q_TX_RECYCLE] > 15 && r.queue_mean[Q_TX_RECYCLE] < 18, "TX Recycle %.2f",
              r.queue_mean[Q_TX_RECYCLE]);
    dsim_result_free(&r);
    free(t);
}

/* mlx5, unchanged: CQE compression writes one completion line per eight
 * packets, in the completion ring (never an RX descriptor line); the ring is
 * refilled after every burst (one packet a poll here: 256 refills of one);
 * a TX completion every 32 WQEs; every sent buffer freed at the next
 * tx_burst (one at a time here), the last by the idle poll. */
Test(queue_nic, mlx5_cqes_refill_and_free)
{
    ddio_config cfg;
    nic_config(&cfg, "mlx5");
    trace *t = calloc(1, sizeof *t);
    dsim_result r;
    run(&cfg, t, &r);
    cr_expect_eq(count(t, NIC_TR_RX_WB), PACKETS / 8);
    cr_expect_eq(count(t, NIC_TR_RX_FETCH), PACKETS / 4, "16-byte WQEs, four a line");
    cr_expect_eq(count(t, NIC_TR_RX_REFILL), PACKETS);
    cr_expect_eq(count(t, NIC_TR_TX_COMP), PACKETS / 32);
    cr_expect_eq(count(t, NIC_TR_TX_FREE), PACKETS);
    for (uint32_t i = 0; i < t->n; i++) {
        const nic_trace_ev *ev = &t->ev[i];
        if (ev->kind == NIC_TR_RX_WB) {
            cr_expect_eq(ev->n % 8, 0, "a line of mini-CQEs starts at packet %llu", (unsigned long long)ev->n);
            cr_expect_eq(ev->aux, 0, "a full-line write");
            for (uint32_t j = 0; j < t->n; j++)
                cr_expect(t->ev[j].kind != NIC_TR_RX_FETCH || t->ev[j].addr >> 6 != ev->addr >> 6,
                          "a CQE line is not a WQE line");
        } else if (ev->kind == NIC_TR_RX_REFILL || ev->kind == NIC_TR_TX_FREE) {
            cr_expect_eq(ev->n, 1);
        }
    }
    cr_expect_lt(r.queue_mean[Q_TX_RECYCLE], 1, "TX Recycle %.2f", r.queue_mean[Q_TX_RECYCLE]);
    dsim_result_free(&r);
    free(t);
}

/* i40e runs ice's behaviour with the same defaults: the same run. */
Test(queue_nic, i40e_is_ice)
{
    ddio_config ice, i40e;
    nic_config(&ice, "ice");
    nic_config(&i40e, "i40e");
    trace *t = calloc(1, sizeof *t);
    dsim_result a, b;
    run(&ice, t, &a);
    run(&i40e, t, &b);
    cr_expect_eq(a.pcie_write_all.hits, b.pcie_write_all.hits);
    cr_expect_eq(a.pcie_write_all.accesses, b.pcie_write_all.accesses);
    cr_expect_eq(a.pcie_read_all.hits, b.pcie_read_all.hits);
    cr_expect_eq(a.queue_mean[Q_TX_RECYCLE], b.queue_mean[Q_TX_RECYCLE]);
    dsim_result_free(&a);
    dsim_result_free(&b);
    free(t);
}

/* The queueing estimate follows the driver: under light load ice leaves
 * (rx_free_thresh - 1) / 2 descriptors unposted and holds its TX ring's
 * sent buffers until fewer than tx_free_thresh are free (TX ring 256,
 * one packet a tx_burst: 256 - TX - (32 + 32 / 2 - 1)); mlx5 neither. */
Test(queue_nic, qest_follows_the_driver)
{
    ddio_config mlx5, ice;
    nic_config(&mlx5, "mlx5");
    nic_config(&ice, "ice");
    mlx5.workload.driver.tx_ring = ice.workload.driver.tx_ring = 256;
    qest_input in = {.rate_gbps = 1, .mean_pkt = 1500, .ca2 = 0, .cpu_hit = 1};
    qest_result a, b;
    ddio_err e;
    cr_assert_eq(qest_estimate(&mlx5, &in, &a, &e), 0, "%s", e.msg);
    cr_assert_eq(qest_estimate(&ice, &in, &b, &e), 0, "%s", e.msg);
    cr_expect_float_eq(b.mean[Q_RX], a.mean[Q_RX], 1e-12);
    cr_expect_float_eq(a.mean[Q_RX_REPLENISH] - b.mean[Q_RX_REPLENISH], 15.5, 1e-9);
    cr_expect_float_eq(b.mean[Q_TX_RECYCLE], 256 - b.mean[Q_TX] - (32 + 16 - 1), 1e-9);
    cr_expect_lt(a.mean[Q_TX_RECYCLE], 1);
    qest_result_free(&a);
    qest_result_free(&b);
}
