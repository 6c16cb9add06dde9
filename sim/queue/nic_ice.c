/* nic_ice.c - Intel E810 (DPDK drivers/net/ice) and XL710 (drivers/net/i40e)
 * with their scalar bulk-alloc RX and simple TX paths (nic.h).  The two
 * drivers do the same here: i40e_rxtx.c has the same refill
 * (i40e_rx_alloc_bufs), RS bit and free (i40e_tx_free_bufs) rules and the
 * same default thresholds (I40E_DEFAULT_RX_FREE_THRESH,
 * I40E_DEFAULT_TX_FREE_THRESH, I40E_DEFAULT_TX_RSBIT_THRESH: 32 each, as
 * ICE_DEFAULT_*).  What differs between the cards - ring limits, line rate,
 * the PCIe link - is the machine's.
 *
 * RX.  32-byte descriptors (ice_32byte_rx_desc, i40e_32byte_rx_desc: the
 * default unless DPDK is built with RTE_LIBRTE_ICE_16BYTE_RX_DESC, which
 * driver.rx_desc_16b says: 16 bytes), two to a line, which the NIC fetches
 * a line at a time.  No completion ring: the NIC
 * writes each received packet's descriptor back in place, into the RX ring
 * (the write-back format over the read format, DD set), which is part of a
 * line; the driver reads the ring's lines for the DD bits (ice_rx_scan_hw_ring).
 * The driver refills in blocks (DPDK drivers/net/ice/ice_rxtx.c, rx_recv_pkts
 * and ice_rx_alloc_bufs): after a scan of at most ICE_RX_MAX_BURST (32)
 * descriptors, once rx_free_thresh descriptors have been consumed since the
 * last refill, it takes exactly rx_free_thresh buffers from the mempool,
 * all or none (rte_mempool_get_bulk), writes their descriptors and the tail
 * register; one block per scan.
 * TX.  16-byte descriptors (ice_tx_desc), four to a line.  The driver sets
 * the RS bit on every tx_rs_thresh-th descriptor (tx_xmit_pkts: tx_next_rs
 * = tx_rs_thresh - 1, then + tx_rs_thresh); the NIC writes back the DD
 * status of that descriptor only, in place (part of a line).  Each tx_burst
 * starts by freeing when fewer than tx_free_thresh descriptors are free
 * (tx_xmit_pkts: nb_tx_free < tx_free_thresh): if the descriptor tx_next_dd
 * (the next RS one) is done, exactly tx_rs_thresh buffers go back, one at a
 * time, else none (ice_tx_free_bufs). */
#include <assert.h>
#include <stdlib.h>

#include "sim/queue/dsim_drv.h"

#define ICE_RX_DESC 32u       /* ice_32byte_rx_desc */
#define ICE_RX_DESC_16B 16u   /* ice_16byte_rx_desc */
#define ICE_TX_DESC 16u       /* ice_tx_desc */
#define ICE_RX_MAX_BURST 32u  /* descriptors one scan takes (ice_rxtx.h) */
/* As mlx5's (nic_mlx5.c): the NIC's read concurrency is not published for
 * E810 / XL710 either (estimate). */
#define ICE_TX_MAX_FETCHED 64u

static void ice_geometry(const ddio_config *cfg, nic_geometry *g)
{
    uint32_t rx = cfg->workload.driver.rx_desc_16b ? ICE_RX_DESC_16B : ICE_RX_DESC;
    pcie_desc_preset(&g->desc, PCIE_DESC_INTEL);
    g->desc.rx_desc = rx;
    g->desc.rx_wb = rx;   /* the whole descriptor, written back */
    g->desc.tx_desc = ICE_TX_DESC;
    g->desc.tx_wb = ICE_TX_DESC;
    g->desc.rx_wb_per = 1;
    g->rx_wb_in_ring = 1;
    g->rx_wb_partial = rx < 64;
    g->rx_wb_read_mask = 64 / rx - 1;   /* a line of descriptors per read */
    g->tx_comp_every = cfg->workload.driver.tx_rs_thresh;
    g->tx_max_fetched = ICE_TX_MAX_FETCHED;
}

static int ice_init_core(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    cs->rx_wb_set = cs->rx_wqe_set;   /* written back in place */
    cs->drv_bufs = malloc(s->cfg->workload.driver.rx_free_thresh * sizeof *cs->drv_bufs);
    if (!cs->drv_bufs)
        return ddio_errf(s->err, DDIO_EXIT_IO, "out of memory");
    return 0;
}

/* The NIC writes back the DD status of the RS descriptor, the last of the
 * tx_rs_thresh it has sent (in order: one queue, one wire). */
static void ice_tx_completion(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    assert(cs->tx_comps % s->cfg->workload.driver.tx_rs_thresh == 0 && "the RS bit is on every tx_rs_thresh-th");
    uint64_t rs = cs->tx_comps - 1;
    uint64_t addr = tx_wqe_addr(s, c, rs);
    nic_write_part_line(s, addr, cs->tx_wqe_set[tx_slot(s, rs)]);
    dsim_trace(s, NIC_TR_TX_COMP, c, addr, cs->tx_comps, 1);
}

static int ice_rx_refill_due(const dsim *s, const dsim_core *cs)
{
    uint32_t thresh = s->cfg->workload.driver.rx_free_thresh;
    return cs->rx_unposted >= thresh && mempool_avail_count(&s->mp) >= thresh;
}

/* One block: rx_free_thresh buffers, all or none. */
static int ice_refill_block(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    uint32_t thresh = s->cfg->workload.driver.rx_free_thresh;
    assert(cs->rx_unposted >= thresh);
    if (mempool_get_bulk(&s->mp, c, cs->drv_bufs, thresh) != 0)
        return -1;   /* rx_mbuf_alloc_failed: the descriptors stay consumed */
    for (uint32_t i = 0; i < thresh; i++) {
        ring_enqueue(&cs->rx_posted, cs->drv_bufs[i]);
        if (s->desc_access)   /* the read format: the buffer's address */
            driver_line(s, REQ_CORE_WR, c, rx_wqe_addr(s, c, cs->rx_wqe_fill),
                        cs->rx_wqe_set[rx_slot(s, cs->rx_wqe_fill)]);
        cs->rx_wqe_fill++;
    }
    dsim_trace(s, NIC_TR_RX_REFILL, c, 0, thresh, cs->rx_unposted);
    cs->rx_unposted -= thresh;
    dsim_len_add(s, cs, Q_RX_REPLENISH, thresh);
    return 0;
}

/* After a burst of n packets, taken in scans of ICE_RX_MAX_BURST: a block
 * per scan while one is due (an idle poll scans once). */
static void ice_rx_refill(dsim *s, uint32_t c, uint32_t n)
{
    dsim_core *cs = &s->core[c];
    uint32_t thresh = s->cfg->workload.driver.rx_free_thresh;
    uint32_t scans = n ? (n + ICE_RX_MAX_BURST - 1) / ICE_RX_MAX_BURST : 1;
    int posted = 0;
    for (uint32_t i = 0; i < scans && cs->rx_unposted >= thresh; i++) {
        if (ice_refill_block(s, c) != 0)
            break;
        posted = 1;
    }
    if (posted && cs->hold_n)
        nic_rx_release(s, c);
}

/* tx_xmit_pkts frees when nb_tx_free < tx_free_thresh and the next RS
 * descriptor is done: its whole block has been sent. */
static int ice_tx_free_due(const dsim *s, const dsim_core *cs)
{
    const ddio_driver *d = &s->cfg->workload.driver;
    return ring_count(&cs->tx_done) >= d->tx_rs_thresh && tx_ring_free(s, cs) < d->tx_free_thresh;
}

static void ice_tx_free(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    const ddio_driver *d = &s->cfg->workload.driver;
    uint32_t nb_free = tx_ring_free(s, cs);
    if (nb_free >= d->tx_free_thresh)
        return;
    /* The driver reads the DD status of descriptor tx_next_dd, done or not. */
    uint64_t next_dd = cs->tx_freed + d->tx_rs_thresh - 1;
    if (s->desc_access)
        driver_line(s, REQ_CORE_RD, c, tx_wqe_addr(s, c, next_dd), cs->tx_wqe_set[tx_slot(s, next_dd)]);
    /* Sent in order: the done buffers are those after the freed ones. */
    assert(cs->tx_freed + ring_count(&cs->tx_done) == cs->tx_comps);
    if (ring_count(&cs->tx_done) < d->tx_rs_thresh)
        return;
    assert(next_dd < cs->tx_comps && "DD set: the RS descriptor was sent");
    dsim_len_add(s, cs, Q_TX_RECYCLE, -(int64_t)d->tx_rs_thresh);
    for (uint32_t i = 0; i < d->tx_rs_thresh; i++) {
        uint32_t b = 0;
        ring_dequeue(&cs->tx_done, &b);
        free_buffer(s, c, b);   /* rte_pktmbuf_free_seg, one at a time */
    }
    cs->tx_freed += d->tx_rs_thresh;
    dsim_trace(s, NIC_TR_TX_FREE, c, 0, d->tx_rs_thresh, nb_free);
}

/* The blocks' sawtooth, by its mean.  RX: the consumed descriptors wait
 * for a block, 0 to rx_free_thresh - 1 of them; when the core takes full
 * bursts of rx_free_thresh, the remainder left from lighter times stays
 * (measured: 16 of 32 in the default run), a phase the estimate cannot
 * know, so it takes the mean, (rx_free_thresh - 1) / 2, in every regime.  What is posted when the ring is full: a refill of B =
 * max(burst, rx_free_thresh) per B / mu, drained at lambda: B / (2 rho).
 * TX: sent buffers stay until fewer than tx_free_thresh descriptors are
 * free, then go tx_rs_thresh at a time.  Each tx_burst first checks (and
 * frees a block), then posts its n packets, so the free count seen between
 * bursts runs from just below tx_free_thresh + tx_rs_thresh - n down by n a
 * burst to below tx_free_thresh: tx_free_thresh + tx_rs_thresh / 2 - n on
 * average, with n = 1 under light load and a burst when the core is the
 * bottleneck (measured, default run: 219.1 against 256 - 21.5 - 16 =
 * 218.5; 1500 B at 4 cores: 208.5 against 207.5).  TX Recycle is the rest
 * of the ring beside TX; half a block when the ring is full. */
static void ice_qest(const ddio_config *cfg, const nic_qest_in *in, nic_qest_out *out)
{
    const ddio_driver *d = &cfg->workload.driver;
    double thresh = d->rx_free_thresh, burst = d->burst, rs = d->tx_rs_thresh;
    double block = burst > thresh ? burst : thresh;
    out->rx_unposted = (thresh - 1) / 2;
    out->rx_posted_full = block / (2 * in->rho);
    double posts = in->core_bound ? burst : 1;
    double held = d->tx_ring - in->tx - (d->tx_free_thresh + rs / 2 - posts);
    out->tx_recycle = in->tx_full || held < rs / 2 ? rs / 2 : held;
}

const nic_ops nic_ice_ops = {
    .name = "ice",
    .geometry = ice_geometry,
    .init_core = ice_init_core,
    .tx_completion = ice_tx_completion,
    .rx_refill_due = ice_rx_refill_due,
    .rx_refill = ice_rx_refill,
    .tx_free_due = ice_tx_free_due,
    .tx_free = ice_tx_free,
    .qest = ice_qest,
};
