/* dsim_nic.c - the NIC: RSS, RX DMA into posted buffers, the TX engine that
 * fetches packets over PCIe and serialises them on the wire, completions. */
#include "sim/queue/dsim_drv.h"

#include <assert.h>

static uint32_t nic_queue_hash(dsim *s, const pktsrc_pkt *p)
{
    return rss_queue(&s->rss, pktsrc_rss_hash(&s->rss, p));
}

/* The RX queue of a generated flow: the hash of its 5-tuple (gen_flow_meta,
 * a pure function of the flow), remembered per flow when there is room. */
static uint32_t nic_flow_queue(dsim *s, uint32_t flow)
{
    if (s->flow_queue && s->flow_queue[flow])
        return s->flow_queue[flow] - 1u;
    gen_meta m;
    gen_flow_meta(&s->src.g, flow, &m);
    pktsrc_pkt t = {.src_ip = m.src_ip, .dst_ip = m.dst_ip, .src_port = m.src_port, .dst_port = m.dst_port,
                    .proto = m.proto};
    uint32_t q = nic_queue_hash(s, &t);
    if (s->flow_queue)
        s->flow_queue[flow] = (uint8_t)(q + 1);
    return q;
}

uint32_t nic_queue_of(dsim *s, const pktsrc_pkt *p)
{
    if (s->cores == 1)
        return 0;
    if (p->has_flow)
        return nic_flow_queue(s, p->flow);
    if (!p->has_tuple)
        return 0;
    if (s->rec_queue && p->flow) {   /* a held trace's record: hashed at its first pass */
        assert(p->flow <= s->rec_n);
        uint8_t *q = &s->rec_queue[p->flow - 1];
        if (!*q)
            *q = (uint8_t)(nic_queue_hash(s, p) + 1);
        return *q - 1u;
    }
    return nic_queue_hash(s, p);
}

/* nic_rx_dma's body, inline in the release of held frames (a frame per
 * packet when the core is the bottleneck). */
static inline __attribute__((always_inline)) void rx_dma(dsim *s, uint32_t c, uint32_t len, uint64_t arrival)
{
    dsim_core *cs = &s->core[c];
    uint64_t now = evq_now(&s->q);
    /* The NIC's packet buffer holds what PCIe has not yet absorbed. */
    uint64_t busy = pcie_link_busy_until(&s->pcie, PCIE_UP);
    if (busy > now && busy - now >= s->nic_buffer_ns) {   /* busy - now ns hold more than nic_buffer_bytes */
        s->n.drop_nic_buffer++;
        return;
    }
    uint32_t buf = 0;
    ring_dequeue(&cs->rx_posted, &buf);
    cs->rx_inflight++;
    dsim_len_add(s, cs, Q_RX_REPLENISH, -1);
    dsim_len_add(s, cs, Q_RX, 1);
    dsim_len_add(s, cs, DSIM_INF_RX, 1);
    s->buf_len[buf] = len;
    s->buf_arrival[buf] = arrival;
    if (s->desc_access && pcie_desc_starts_line(s->pcie.cfg.desc.rx_desc, cs->rx_wqe_next)) {
        /* the NIC fetches the line of RX descriptors this one starts */
        nic_read_line(s, rx_wqe_addr(s, c, cs->rx_wqe_next), cs->rx_wqe_set[rx_slot(s, cs->rx_wqe_next)]);
        dsim_trace(s, NIC_TR_RX_FETCH, c, rx_wqe_addr(s, c, cs->rx_wqe_next), cs->rx_wqe_next, 0);
    }
    cs->rx_wqe_next++;
    /* The CQE write ends no earlier than the data's (pcie_link_write_ps):
     * its end is the DMA's. */
    double data_ps = pcie_link_write_ps(&s->pcie, now, len);
    uint64_t done = pcie_ps_to_ns_up(data_ps);
    if (pcie_rx_wb_due(&s->pcie.cfg.desc, cs->rx_wqe_next - 1)) {   /* this packet's completion line */
        done = pcie_link_write_cost(&s->pcie, now, &s->rx_wb_cost);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(pcie_ps_to_ns_up(data_ps) <= done);
#endif
    }
    dsim_push(s, done, EV_RX_DONE, 0, c, buf);
}

void nic_rx_dma(dsim *s, uint32_t c, uint32_t len, uint64_t arrival)
{
    rx_dma(s, c, len, arrival);
}

void nic_rx_release(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    dsim_account(s, c);
    while (cs->hold_n && !ring_empty(&cs->rx_posted)) {
        uint32_t len = cs->hold_len[cs->hold_head];
        uint64_t at = cs->hold_at[cs->hold_head];
        cs->hold_head = (cs->hold_head + 1) % cs->hold_cap;
        cs->hold_n--;
        s->held_bytes -= len;
        rx_dma(s, c, len, at);
    }
}

void nic_start_tx(dsim *s)
{
    s->tx_engine_busy = 1;
    dsim_push(s, evq_now(&s->q), EV_TX_START, 0, 0, 0);
}

/* The NIC takes the next packet, round robin over the cores' TX rings,
 * fetches its descriptor and data, and puts it on the wire when both the
 * data and the wire are there. */static int tx_fetch_one(dsim *s, uint64_t now);

void nic_tx_start(dsim *s)
{
    uint64_t now = evq_now(&s->q);
    /* An EV_TX_START pushed "now" for the next fetch would pop right after
     * this handler when no pending event is due at `now` (every pending
     * event due now has a smaller seq and would pop first), so the next
     * fetch runs here instead, in the same order, without the event.  A fetch pushes
     * only its EV_TX_DONE, after the PCIe read completes (later than now),
     * so whether an event is due now is the same after every fetch: asked
     * once, when a second fetch is due (at a few cores one fetch is the
     * usual start). */
    int due = -1;
    while (tx_fetch_one(s, now) && !s->failed) {
        if (due < 0)
            due = !evq_all_after(&s->q, now);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(due == (evq_next_time(&s->q) <= now));
#endif
        if (due) {
            dsim_push(s, now, EV_TX_START, 0, 0, 0);
            return;
        }
    }
}

/* nic.tx_packet_ns: a queue's packets leave it one after another: this
 * one's data is ready no earlier than the queue's previous packet's, plus
 * tx_packet_ns, plus its own link time once per queue sharing the link
 * (the link interleaves the completions of the queues fetching at once:
 * this one, and each other that has a packet waiting or fetched). */
static double tx_paced_ready(dsim *s, uint32_t c, uint32_t len, double ready)
{
    uint32_t sharing = 1;
    for (uint32_t i = 0; i < s->cores; i++)
        sharing += i != c && (!ring_empty(&s->core[i].tx_pending) || s->core[i].tx_inflight > 0);
    double xfer = (double)pcie_cpld_bytes(&s->pcie, len) * s->pcie.ps_per_byte / 1000.0;
    dsim_core *cs = &s->core[c];
    double paced = cs->tx_ready_ns + s->tx_packet_ns + xfer * sharing;
    cs->tx_ready_ns = ready > paced ? ready : paced;
    return cs->tx_ready_ns;
}

/* The round robin over the cores' TX rings: the first core at or after
 * `from` (< cores), cyclically, whose ring holds packets (tx_map), or
 * UINT32_MAX. */
static uint32_t tx_next_core(const dsim *s, uint32_t from)
{
    if (s->cores == 1)   /* the round robin of one */
        return ring_empty(&s->core[0].tx_pending) ? UINT32_MAX : 0;
    if (s->plain_events) {   /* the rule, core by core */
        for (uint32_t i = 0; i < s->cores; i++) {
            uint32_t k = from + i < s->cores ? from + i : from + i - s->cores;
            if (!ring_empty(&s->core[k].tx_pending))
                return k;
        }
        return UINT32_MAX;
    }
    const uint32_t words = (s->cores + 63) / 64;
    uint32_t w = from / 64;
    uint64_t m = s->tx_map[w] & (~0ull << (from % 64));
    /* words + 1 looks: from's word above `from`, the others, from's word
     * again (below `from`). */
    for (uint32_t i = 0; i <= words; i++) {
        if (m) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
            for (uint32_t k = 0; k < s->cores; k++)
                assert((!ring_empty(&s->core[k].tx_pending)) == (int)((s->tx_map[k / 64] >> (k % 64)) & 1));
#endif
            return w * 64 + (uint32_t)__builtin_ctzll(m);
        }
        w = w + 1 == words ? 0 : w + 1;
        m = s->tx_map[w];
    }
    return UINT32_MAX;
}

/* One fetch; returns 1 if another one is due now (EV_TX_START). */
static int tx_fetch_one(dsim *s, uint64_t now)
{
    uint32_t c = tx_next_core(s, s->tx_rr >= s->cores ? 0 : s->tx_rr);
    if (c == UINT32_MAX) {
        s->tx_engine_busy = 0;
        return 0;
    }
    s->tx_rr = c + 1;
    s->tx_fetched++;
    dsim_core *cs = &s->core[c];
    dsim_account(s, c);
    uint32_t buf = 0;
    ring_dequeue(&cs->tx_pending, &buf);
    if (ring_empty(&cs->tx_pending))
        s->tx_map[c / 64] &= ~(1ull << (c % 64));
    s->tx_waiting--;
    cs->tx_inflight++;   /* from tx_pending: Q_TX stays */
    dsim_len_add(s, cs, DSIM_INF_TX, 1);
    uint32_t len = s->buf_len[buf];
    /* The NIC fetches the line of descriptors this packet's starts: a WQE,
     * or with eMPW four packets' data segments. */
    const int wqe_fetch = pcie_desc_starts_line(s->pcie.cfg.desc.tx_desc, cs->tx_wqe_fetch);
    if (s->desc_access && wqe_fetch) {
        nic_read_line(s, tx_wqe_addr(s, c, cs->tx_wqe_fetch), cs->tx_wqe_set[tx_slot(s, cs->tx_wqe_fetch)]);
        dsim_trace(s, NIC_TR_TX_FETCH, c, tx_wqe_addr(s, c, cs->tx_wqe_fetch), cs->tx_wqe_fetch, 0);
    }
    cs->tx_wqe_fetch++;
    line_span sp = dsim_data_span(s, buf, len);
    uint32_t hits = hier_pcie_read_run(&s->h, sp.first, sp.n, dsim_line_hints(s, buf, sp.n));
    dsim_count_n(&s->n.pcie_read, sp.n, hits);
    /* The data's completions end no earlier than the WQE's
     * (pcie_link_read_nonposted_ps): the fetch is ready then. */
    double wqe_ps = wqe_fetch ? pcie_link_read_nonposted_cost(&s->pcie, now, &s->tx_desc_cost) : 0;
    uint64_t data = pcie_link_read_nonposted(&s->pcie, now, len);
    (void)wqe_ps;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(pcie_ps_to_ns_up(wqe_ps) <= data);
#endif
    double ready = u63_to_double(data);
    if (s->tx_packet_ns > 0)
        ready = tx_paced_ready(s, c, len, ready);
    double start = ready > s->wire_free_ns ? ready : s->wire_free_ns;
    s->wire_free_ns = start + (double)(len + PKTSRC_WIRE_OVERHEAD) * 8.0 / s->cfg->machine.nic.line_rate_gbps;
    dsim_push(s, u63_from_double(s->wire_free_ns + 0.5), EV_TX_DONE, 0, c, buf);
    if (s->tx_waiting && s->tx_fetched < s->geo.tx_max_fetched)
        return 1;
    s->tx_engine_busy = 0;
    return 0;
}
