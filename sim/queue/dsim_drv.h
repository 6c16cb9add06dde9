/* dsim_drv.h - the line accesses of the NIC and of the driver that every
 * NIC driver (nic_mlx5.c, nic_ice.c) and the simulator's shared code
 * (dsim_nic.c, dsim_core.c) make: descriptor and completion lines, mbuf
 * headers, freeing a buffer.  Not a public header. */
#ifndef DDIOSIM_QUEUE_DSIM_DRV_H
#define DDIOSIM_QUEUE_DSIM_DRV_H

#include "sim/queue/dsim_int.h"

/* A full-line PCIe write of a descriptor / completion line, whose LLC set
 * is `set`. */
static inline __attribute__((always_inline)) void nic_write_line(dsim *s, uint64_t addr, uint32_t set)
{
    hier_result r;
    dsim_count(&s->n.pcie_write_desc, dsim_access_set(s, REQ_PCIE_WR_FULL, 0, addr, set, &r));
}

/* The same for a write of part of the line (a descriptor written back in
 * place: RFO, which needs the rest of the line). */
static inline void nic_write_part_line(dsim *s, uint64_t addr, uint32_t set)
{
    hier_result r;
    dsim_count(&s->n.pcie_write_desc, dsim_access_set(s, REQ_PCIE_WR_PART, 0, addr, set, &r));
}

/* A PCIe read of a descriptor line. */
static inline __attribute__((always_inline)) void nic_read_line(dsim *s, uint64_t addr, uint32_t set)
{
    hier_result r;
    dsim_count(&s->n.pcie_read_desc, dsim_access_set(s, REQ_PCIE_RD, 0, addr, set, &r));
}

/* A driver access to a descriptor, completion or mbuf header line.  Its
 * latency is not charged: the driver prefetches these lines and their cost
 * is part of the workload's cycles per packet (docs/simulator.md). */
static inline __attribute__((always_inline)) void driver_line(dsim *s, enum coh_req req, uint32_t c, uint64_t addr,
                                                              uint32_t set)
{
    hier_result r;
    dsim_access_set(s, req, c, addr, set, &r);
}

/* The same for buffer b's mbuf header line (a line number already). */
static inline __attribute__((always_inline)) void driver_hdr_line(dsim *s, enum coh_req req, uint32_t c, uint32_t b)
{
    hier_result r;
    dsim_line_set(s, req, c, dsim_hdr_line(s, b), s->hdr_set[b], &r);
}

/* The driver frees buffer b to the mempool: rte_pktmbuf_free reads the
 * mbuf (refcnt, pool).  Inline: once per packet, a call cost a sixth of
 * its work. */
static inline __attribute__((always_inline)) void free_buffer(dsim *s, uint32_t c, uint32_t b)
{
    if (s->desc_access)
        driver_hdr_line(s, REQ_CORE_RD, c, b);
    mempool_put(&s->mp, c, b);
}

/* Free TX descriptors of core cs: neither waiting, nor being sent, nor
 * sent and not yet freed (DPDK's nb_tx_free). */
static inline uint32_t tx_ring_free(const dsim *s, const dsim_core *cs)
{
    return s->cfg->workload.driver.tx_ring - ring_count(&cs->tx_pending) - cs->tx_inflight -
           ring_count(&cs->tx_done);
}

/* The driver posts up to n fresh buffers on core c's RX ring, one at a
 * time, writing each one's address into the next descriptor, until the
 * mempool has none (rx_nombuf); returns how many it posted.  The counts
 * are updated once, after the loop. */
static inline __attribute__((always_inline)) uint32_t rx_post(dsim *s, uint32_t c, uint32_t n)
{
    dsim_core *cs = &s->core[c];
    uint64_t fill = cs->rx_wqe_fill;
    uint32_t posted = 0, b;
    for (; posted < n && mempool_get(&s->mp, c, &b) == 0; posted++, fill++) {
        ring_enqueue(&cs->rx_posted, b);
        if (s->desc_access)
            driver_line(s, REQ_CORE_WR, c, rx_wqe_addr(s, c, fill), cs->rx_wqe_set[rx_slot(s, fill)]);
    }
    cs->rx_wqe_fill = fill;
    cs->rx_unposted -= posted;
    return posted;
}

#endif
