/* dsim_nic.h - the NIC's per-packet events: an arrival, an RX DMA's
 * completion, a send's (EV_ARRIVAL, EV_RX_DONE, EV_TX_DONE), inline into
 * the event loop (dsim.c), which runs one of each per packet; as calls,
 * their frames cost a sixth of their work (docs/performance.md).  Not a
 * public header. */
#ifndef DDIOSIM_QUEUE_DSIM_NIC_H
#define DDIOSIM_QUEUE_DSIM_NIC_H

#include "sim/queue/dsim_drv.h"

/* Packet p reaches the NIC (EV_ARRIVAL): to its RX queue's next posted
 * buffer, held for want of one, or dropped. */
static inline __attribute__((always_inline)) void nic_arrival(dsim *s, const pktsrc_pkt *p)
{
    uint32_t c = s->cores == 1 ? 0 : nic_queue_of(s, p);
    s->n.injected++;
    if (s->mode == DDIO_MODE_SEND) {
        /* Nothing is received: a send request counts for the warm-up. */
        core_send_request(s, c, p->len);
        s->rx_total++;
        dsim_maybe_end_warmup(s, c);
        return;
    }
    dsim_core *cs = &s->core[c];
    uint64_t now = evq_now(&s->q);
    dsim_account(s, c);
    if (p->len > s->data_room) {
        s->n.drop_oversize++;    /* no scatter: a frame must fit one buffer's data room */
        return;
    }
    if (cs->hold_n || ring_empty(&cs->rx_posted)) {
        /* No descriptor (or older frames waiting for one): the NIC keeps
         * the frame if nic.rx_hold_bytes has room, else drops it (rx_missed). */
        if (cs->hold_n < cs->hold_cap && s->held_bytes + p->len <= s->cfg->machine.nic.rx_hold_bytes) {
            /* hold_cap: a 60-byte frame per 60 bytes held; a trace's runts
             * beyond it are dropped. */
            uint32_t k = (cs->hold_head + cs->hold_n) % cs->hold_cap;
            cs->hold_len[k] = p->len;
            cs->hold_at[k] = now;
            cs->hold_n++;
            s->held_bytes += p->len;
            return;
        }
        s->n.drop_rx_ring++;
        return;
    }
    nic_rx_dma(s, c, p->len, now);
}

/* Core c's RX DMA into buffer buf completed (EV_RX_DONE): the data lines
 * and the completion are written, the packet waits for the core. */
static inline __attribute__((always_inline)) void nic_rx_done(dsim *s, uint32_t c, uint32_t buf)
{
    dsim_core *cs = &s->core[c];
    dsim_account(s, c);
    cs->rx_inflight--;   /* and into rx_done below: Q_RX stays */
    dsim_len_add(s, cs, DSIM_INF_RX, -1);
    /* The packet's lines: ItoM for full lines, RFO for a partial one. */
    line_span sp = dsim_data_span(s, buf, s->buf_len[buf]);
    uint32_t part_hits, parts = sp.n == 1 ? (sp.head_partial || sp.tail_partial) : sp.head_partial + sp.tail_partial;
    uint32_t hits = hier_pcie_write_run(&s->h, sp.first, sp.n, sp.head_partial, sp.tail_partial, &part_hits,
                                        dsim_line_hints(s, buf, sp.n));
    dsim_count_n(&s->n.pcie_write, sp.n, hits);
    dsim_count_n(&s->n.pcie_write_partial, parts, part_hits);   /* the rest are full (results) */
    /* The completion (nic.h): a CQE, or with compression the line of
     * mini-CQEs this packet starts (at the slot of its first packet); or
     * the packet's own descriptor, written back in place (part of a line). */
    if (s->desc_access && pcie_rx_wb_due(&s->pcie.cfg.desc, cs->rx_cqe)) {
        uint64_t addr = rx_wb_addr(s, c, cs->rx_cqe);
        uint32_t set = cs->rx_wb_set[rx_slot(s, cs->rx_cqe)];
        if (s->geo.rx_wb_partial)
            nic_write_part_line(s, addr, set);
        else
            nic_write_line(s, addr, set);
        dsim_trace(s, NIC_TR_RX_WB, c, addr, cs->rx_cqe, (uint64_t)s->geo.rx_wb_partial);
    }
    cs->rx_cqe++;
    ring_enqueue(&cs->rx_done, buf);
    s->rx_total++;
    dsim_maybe_end_warmup(s, c);
    core_wake_last(s, c);
}

/* Core c's packet in buffer buf left the wire (EV_TX_DONE): the NIC's
 * completion, the buffer to TX Recycle, the core woken for its free. */
static inline __attribute__((always_inline)) void nic_tx_done(dsim *s, uint32_t c, uint32_t buf)
{
    dsim_core *cs = &s->core[c];
    uint64_t now = evq_now(&s->q);
    dsim_account(s, c);
    cs->tx_inflight--;
    dsim_len_add(s, cs, Q_TX, -1);
    dsim_len_add(s, cs, DSIM_INF_TX, -1);
    s->tx_fetched--;
    nic_kick_tx(s);
    /* The driver asks for a completion every tx_comp_every sends (mlx5's
     * completion request, Intel's RS bit): the NIC writes it (nic.h). */
    cs->tx_comps++;
    if (--cs->tx_comp_left == 0) {
        cs->tx_comp_left = s->geo.tx_comp_every;
        if (s->desc_access)
            s->nic->tx_completion(s, c);
    }
    ring_enqueue(&cs->tx_done, buf);
    dsim_len_add(s, cs, Q_TX_RECYCLE, 1);
    dsim_delivered(s, c, buf, now);
    /* Both wake the core unless a poll is pending (then neither does). */
    if (cs->poll_pending)
        return;
    if (!ring_empty(&cs->swq) || !ring_empty(&cs->rx_done) || !ring_empty(&cs->send_req))
        core_wake_last(s, c);
    else
        core_idle_work(s, c);   /* the polling driver frees the buffer soon */
}

#endif
