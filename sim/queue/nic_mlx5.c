/* nic_mlx5.c - the Mellanox ConnectX NIC with DPDK's mlx5 driver (nic.h).
 *
 * RX: 16-byte WQEs (mlx5_wqe_data_seg) the NIC fetches four to a line; a
 * 64-byte CQE per received packet in a completion ring of its own, or with
 * CQE compression (driver.rx_cqe_comp, rxq_cqe_comp_en) the 8-byte
 * mini-CQEs of eight packets in one line at the slot of the first.  The
 * driver refills the RX ring after every burst (driver.rx_refill immediate:
 * Wang, Xu, Wu, SIGMETRICS 2022, Section 4.4.1), or once rx_free_thresh
 * descriptors are free (threshold).
 * TX: a 64-byte WQE per packet (one WQEBB), or with eMPW (driver.tx_mpw) a
 * 16-byte data segment; a completion every TX_COMP_BATCH WQEs; sent buffers
 * freed at every tx_burst (eager), or once fewer than tx_free_thresh
 * descriptors are free (threshold). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "sim/queue/dsim_drv.h"

#define TX_COMP_BATCH 32u   /* mlx5 asks for a completion every 32 WQEs */
#define TX_CQ_READ_SLOTS 64u   /* the driver reads its completions round a ring of this many */
/* Packets the NIC keeps fetched and not yet sent: its outstanding DMA
 * reads are limited, and so is the buffer in front of the wire.  Within
 * that, reads are pipelined, so neither the PCIe read latency nor a busy
 * upstream link serialises the fetches (estimate). */
#define TX_MAX_FETCHED 64u

static void mlx5_geometry(const ddio_config *cfg, nic_geometry *g)
{
    pcie_desc_preset(&g->desc, PCIE_DESC_MLX5);
    g->desc.rx_wb_per = cfg->workload.driver.rx_cqe_comp ? PCIE_MLX5_MINI_CQES : 1;
    if (cfg->workload.driver.tx_mpw)
        g->desc.tx_desc = 16;   /* eMPW: a 16-byte data segment per packet (mlx5_wqe_dseg) */
    g->rx_wb_in_ring = 0;
    g->rx_wb_partial = 0;
    g->rx_wb_read_mask = g->desc.rx_wb_per - 1;   /* a CQE, or a line of mini-CQEs */
    g->tx_comp_every = TX_COMP_BATCH;
    g->tx_max_fetched = TX_MAX_FETCHED;
}

/* The TX completion ring: the NIC writes slot (completions / TX_COMP_BATCH)
 * % (tx_ring / TX_COMP_BATCH + 1), the driver reads slot (reads %
 * TX_CQ_READ_SLOTS); the ring holds both. */
static uint32_t tx_cq_nic_slots(const dsim *s)
{
    return s->cfg->workload.driver.tx_ring / TX_COMP_BATCH + 1;
}

static uint64_t tx_cq_addr(uint32_t c, uint64_t slot)
{
    return ADDR_TX_CQ + c * ADDR_PER_CORE + slot * 64;
}

static int mlx5_init_core(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    const ddio_driver *d = &s->cfg->workload.driver;
    uint32_t ncq = tx_cq_nic_slots(s) > TX_CQ_READ_SLOTS ? tx_cq_nic_slots(s) : TX_CQ_READ_SLOTS;
    cs->rx_cq_set = malloc(d->rx_ring * sizeof *cs->rx_cq_set);
    cs->tx_cq_set = malloc(ncq * sizeof *cs->tx_cq_set);
    if (!cs->rx_cq_set || !cs->tx_cq_set)
        return ddio_errf(s->err, DDIO_EXIT_IO, "out of memory");
    for (uint32_t i = 0; i < d->rx_ring; i++)
        cs->rx_cq_set[i] = hier_llc_set(&s->h, rx_wb_addr(s, c, i) >> s->line_shift);
    for (uint32_t i = 0; i < ncq; i++)
        cs->tx_cq_set[i] = hier_llc_set(&s->h, tx_cq_addr(c, i) >> s->line_shift);
    cs->rx_wb_set = cs->rx_cq_set;
    return 0;
}

static void mlx5_tx_completion(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    assert(cs->tx_comps % TX_COMP_BATCH == 0);
    uint32_t slot = (uint32_t)((cs->tx_comps / TX_COMP_BATCH) % tx_cq_nic_slots(s));
    nic_write_line(s, tx_cq_addr(c, slot), cs->tx_cq_set[slot]);
    dsim_trace(s, NIC_TR_TX_COMP, c, tx_cq_addr(c, slot), cs->tx_comps, 0);
}

/* An idle core refills whatever is free (threshold mode too: the poll then
 * finds nothing to do below the threshold, as a polling core does). */
static int mlx5_rx_refill_due(const dsim *s, const dsim_core *cs)
{
    return cs->rx_unposted && mempool_avail_count(&s->mp);
}

/* Post fresh buffers on the RX ring: all free descriptors, or none below
 * rx_free_thresh in threshold mode. */
static void mlx5_rx_refill(dsim *s, uint32_t c, uint32_t n)
{
    (void)n;
    dsim_core *cs = &s->core[c];
    const ddio_driver *d = &s->cfg->workload.driver;
    if (d->rx_refill == DDIO_REFILL_THRESHOLD && cs->rx_unposted < d->rx_free_thresh)
        return;
    uint32_t unposted = cs->rx_unposted;
    uint32_t posted = rx_post(s, c, unposted);   /* pool exhausted: the rest stay empty (rx_nombuf) */
    dsim_len_add(s, cs, Q_RX_REPLENISH, posted);   /* all at this time: one update */
    if (posted && s->trace)
        dsim_trace(s, NIC_TR_RX_REFILL, c, 0, posted, unposted);
    if (posted && cs->hold_n)
        nic_rx_release(s, c);
}

/* Whether tx_burst would free completed TX descriptors now: at every
 * tx_burst (eager), or once fewer than tx_free_thresh descriptors are free
 * (DPDK's nb_tx_free < tx_free_thresh).  An idle core wakes only when it is
 * due: below the threshold the sent buffers stay in the ring, as on the
 * hardware, until later bursts take the free count down. */
static int mlx5_tx_free_due(const dsim *s, const dsim_core *cs)
{
    const ddio_driver *d = &s->cfg->workload.driver;
    if (ring_empty(&cs->tx_done))
        return 0;
    return d->tx_recycle != DDIO_RECYCLE_THRESHOLD || tx_ring_free(s, cs) < d->tx_free_thresh;
}

/* mlx5_tx_free when due: out of line, so that the usual answer at a few
 * cores (nothing sent since the last free) returns without its frame. */
__attribute__((noinline)) static void mlx5_tx_free_now(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    if (s->desc_access) {
        uint32_t slot = (uint32_t)(cs->tx_cqe_read++ % TX_CQ_READ_SLOTS);
        driver_line(s, REQ_CORE_RD, c, tx_cq_addr(c, slot), cs->tx_cq_set[slot]);
    }
    uint32_t b, n = ring_count(&cs->tx_done), nb_free = s->trace ? tx_ring_free(s, cs) : 0;
    dsim_len_add(s, cs, Q_TX_RECYCLE, -(int64_t)n);
    while (ring_dequeue(&cs->tx_done, &b) == 0)
        free_buffer(s, c, b);
    cs->tx_freed += n;
    dsim_trace(s, NIC_TR_TX_FREE, c, 0, n, nb_free);
}

/* The driver reads a completion and frees every sent buffer. */
static void mlx5_tx_free(dsim *s, uint32_t c)
{
    if (mlx5_tx_free_due(s, &s->core[c]))
        mlx5_tx_free_now(s, c);
}

/* Refill after every burst: under light load the ring is full of posted
 * buffers; when the core is the bottleneck a burst is posted per poll and
 * the NIC fills it at the arrival rate (burst / (2 rho) on average).  Sent
 * buffers wait for the next tx_burst: under constant bit rate the
 * fractional part of the packets in TX (ceil(x) - x), with memoryless
 * arrivals a mean inter-arrival (1 packet); half a burst when the core is
 * the bottleneck.  The threshold modes are not expressed here (the estimate
 * takes mlx5's usual immediate / eager rules: docs/model.md). */
static void mlx5_qest(const ddio_config *cfg, const nic_qest_in *in, nic_qest_out *out)
{
    double burst = cfg->workload.driver.burst;
    out->rx_unposted = 0;
    out->rx_posted_full = burst / (2 * in->rho);
    out->tx_recycle = in->core_bound ? burst / 2 : in->ca2 == 0 ? ceil(in->tx_x) - in->tx_x : 1.0;
}

const nic_ops nic_mlx5_ops = {
    .name = "mlx5",
    .geometry = mlx5_geometry,
    .init_core = mlx5_init_core,
    .tx_completion = mlx5_tx_completion,
    .rx_refill_due = mlx5_rx_refill_due,
    .rx_refill = mlx5_rx_refill,
    .tx_free_due = mlx5_tx_free_due,
    .tx_free = mlx5_tx_free,
    .qest = mlx5_qest,
};
