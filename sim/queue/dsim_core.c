/* dsim_core.c - the cores: one DPDK-style run-to-completion loop each.
 *
 * One iteration (EV_CORE_POLL) = rx_burst (up to `burst` packets, refilling
 * the RX ring from the mempool by the NIC driver's rule, nic.h), the
 * workload's accesses to each packet, then tx_burst (free completed TX
 * buffers by the driver's rule, put the new ones on the TX ring or the
 * software queue).  All the iteration's cache accesses happen
 * at its start; the core is then busy for the summed service time. */
#include "sim/queue/dsim_drv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "traces/gen.h"

#define MAX_BURST 512u

static const ddio_driver *drv(const dsim *s)
{
    return &s->cfg->workload.driver;
}

static uint32_t round_pow2(uint32_t x)
{
    uint32_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

int core_init_rings(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    const ddio_driver *d = drv(s);
    ddio_err *e = s->err;
    if (ring_init(&cs->rx_posted, d->rx_ring, "rx ring", e) || ring_init(&cs->rx_done, d->rx_ring, "rx ring", e) ||
        ring_init(&cs->tx_pending, d->tx_ring, "tx ring", e) || ring_init(&cs->tx_done, d->tx_ring, "tx ring", e) ||
        ring_init(&cs->swq, round_pow2(d->sw_tx_queue ? d->sw_tx_queue + MAX_BURST : 1), "software queue", e) ||
        ring_init(&cs->send_req, 1024, "send queue", e))
        return -1;
    if (s->cfg->machine.nic.rx_hold_bytes) {
        /* At most one frame of the smallest size per 60 bytes held. */
        cs->hold_cap = s->cfg->machine.nic.rx_hold_bytes / GEN_MIN_FRAME + 1;
        cs->hold_len = malloc(sizeof(uint32_t) * cs->hold_cap);
        cs->hold_at = malloc(sizeof(uint64_t) * cs->hold_cap);
        if (!cs->hold_len || !cs->hold_at)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    /* The driver fills the RX ring at start-up. */
    for (uint32_t i = 0; i < d->rx_ring; i++) {
        uint32_t b;
        if (mempool_get(&s->mp, c, &b) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE,
                             "driver.mempool_size: %u buffers cannot fill %u RX rings of %u descriptors", s->mp.n,
                             s->cores, d->rx_ring);
        ring_enqueue(&cs->rx_posted, b);
    }
    cs->rx_wqe_fill = d->rx_ring;
    cs->tx_comp_left = s->geo.tx_comp_every;
    /* The descriptor rings' LLC sets (the driver adds its completion
     * rings'). */
    cs->rx_wqe_set = malloc(d->rx_ring * sizeof *cs->rx_wqe_set);
    cs->tx_wqe_set = malloc(d->tx_ring * sizeof *cs->tx_wqe_set);
    if (!cs->rx_wqe_set || !cs->tx_wqe_set)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    for (uint32_t i = 0; i < d->rx_ring; i++)
        cs->rx_wqe_set[i] = hier_llc_set(&s->h, rx_wqe_addr(s, c, i) >> s->line_shift);
    for (uint32_t i = 0; i < d->tx_ring; i++)
        cs->tx_wqe_set[i] = hier_llc_set(&s->h, tx_wqe_addr(s, c, i) >> s->line_shift);
    return s->nic->init_core(s, c);
}

/* Schedule the core's next loop iteration `delay` ns after it is free. */
static void core_wake_after(dsim *s, uint32_t c, uint64_t delay)
{
    if (!s->core[c].poll_pending)
        core_schedule(s, c, delay);
}

/* A DPDK core polls even when no packet comes: an empty iteration of its
 * loop (rx_burst and tx_burst finding nothing) takes about this long
 * (estimate).  The simulator does not run empty iterations one by one; it
 * runs one when it would do work: free completed TX buffers, refill RX
 * descriptors. */
#define IDLE_LOOP_NS 100

void core_idle_work_due(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    /* No driver frees from an empty TX Recycle (nic.h): checked here,
     * without a call, as it is the usual answer. */
    if ((!ring_empty(&cs->tx_done) && s->nic->tx_free_due(s, cs)) ||
        (!s->measure_closed && cs->rx_unposted && s->nic->rx_refill_due(s, cs)))
        core_wake_after(s, c, IDLE_LOOP_NS);
}

void core_init_latency(dsim *s)
{
    /* At the machine's uncore clock (the LLC part scales with it). */
    double l2, llc, mem;
    ddio_machine_core_latency(&s->cfg->machine, &l2, &llc, &mem);
    for (int g = 0; g < REG_COUNT; g++)
        s->region_ns[g] = g == REG_L2 ? l2 : g == REG_MEM ? mem : llc;
}

/* A core access's latency by the region it met (a table: the switch it
 * replaces cost a jump per access). */
static double access_latency(const dsim *s, const hier_result *r)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(r->region < REG_COUNT);
#endif
    return s->region_ns[r->region];
}

static double core_line(dsim *s, enum coh_req req, uint32_t c, uint64_t addr)
{
    hier_result r;
    dsim_access(s, req, c, addr, &r);
    return access_latency(s, &r);
}

#define MEMO_MAX_OPS 64u   /* longest expansion remembered (bounds memo_ops: memo_lens x this) */

/* The line ops for a packet of `len` bytes, the L2 prefetcher's included (ddio_packet_ops,
 * at most ops_cap of them): a function of the length alone in a run, so
 * remembered per length; *n gets the count. */
static const ddio_line_op *packet_ops(dsim *s, uint32_t len, size_t *n)
{
    if (len < s->memo_lens && s->memo_at[len]) {
        *n = s->memo_n[len];
        return s->memo_ops + (s->memo_at[len] - 1);
    }
    size_t k = ddio_packet_ops(&s->cfg->machine, &s->cfg->workload, len, s->line_size,
                               drv(s)->headroom % s->line_size, s->ops, s->ops_cap);
    if (k > s->ops_cap)
        k = s->ops_cap;
    *n = k;
    if (len >= s->memo_lens || k > MEMO_MAX_OPS)
        return s->ops;
    if (s->memo_used + k > s->memo_cap) {
        size_t cap = s->memo_cap ? 2 * s->memo_cap : 1024;
        ddio_line_op *p = realloc(s->memo_ops, cap * sizeof *p);
        if (!p)
            return s->ops;   /* not remembered: expanded again next time */
        s->memo_ops = p;
        s->memo_cap = cap;
    }
    memcpy(s->memo_ops + s->memo_used, s->ops, k * sizeof *s->ops);
    s->memo_at[len] = (uint32_t)s->memo_used + 1;
    s->memo_n[len] = (uint8_t)k;
    s->memo_used += k;
    return s->memo_ops + (s->memo_at[len] - 1);
}

/* Op `op`'s line (base: the buffer's first data line, as
 * dsim_data_line_addr(buf, 0) >> line_shift; line k is base + k), and its
 * DMA hint word (0: none; line k of the data area is line k of every DMA
 * into the buffer). */
static inline uint64_t op_line(const dsim *s, uint64_t base, const hier_hint_word *hints, const ddio_line_op *op,
                               uint64_t *line)
{
    *line = base + op->line;
    return op->line < s->hint_lines ? hints[op->line] : 0;
}

/* The workload's accesses to one received packet; returns its service time. */
static double process_packet(dsim *s, uint32_t c, uint32_t buf)
{
    const ddio_workload *w = &s->cfg->workload;
    uint32_t len = s->buf_len[buf];
    size_t n;
    const ddio_line_op *ops = packet_ops(s, len, &n);
    double ns = 0;
    int first = 1;
    /* Where the DMA runs found the data lines (hier_dma_run). */
    const hier_hint_word *hints = s->line_hints + (uint64_t)buf * s->hint_lines;
    uint64_t base = dsim_data_line_addr(s, buf, 0) >> s->line_shift;
    for (size_t i = 0; i < n; i++) {
        uint64_t line;
        const uint64_t hint = op_line(s, base, hints, &ops[i], &line);
        hier_prefetch(&s->h, line, hint);
    }
    for (size_t i = 0; i < n; i++) {
        /* Recomputed, not kept from the prefetch pass: an add and a load
         * (only DMA runs write the hints). */
        uint64_t line, hint = op_line(s, base, hints, &ops[i], &line);
        hier_result r;
        if (ops[i].op == DDIO_SEG_FLUSH) {
            hier_flush(&s->h, line, &r);
            continue;
        }
        enum coh_req req = ops[i].op == DDIO_SEG_WRITE ? REQ_CORE_WR : REQ_CORE_RD;
        if (hint && req == REQ_CORE_RD)   /* the entries for one request each (hier.h, dsim_line_set) */
            hier_core_rd_hint(&s->h, c, line, hint, &r);
        else if (hint)
            hier_core_wr_hint(&s->h, c, line, hint, &r);
        else
            hier_access(&s->h, req, c, line, 0, &r);
        if (ops[i].prefetch)
            continue;   /* the prefetcher's: off the core's critical path, no latency */
        if (first)
            dsim_count(&s->n.cpu_first, r.hit);
        first = 0;
        ns += access_latency(s, &r);
    }
    for (uint32_t t = 0; t < w->n_tables; t++) {
        const ddio_table *tb = &w->tables[t];
        for (uint32_t j = 0; j < tb->lines_per_packet; j++) {
            uint64_t idx = tb->distribution == DDIO_DIST_ZIPF
                               ? gen_zipf_next(&s->zipf[t], &s->rng) - 1
                               : ddio_rng_below(&s->rng, s->table_lines[t]);
            int wr = ddio_rng_uniform(&s->rng) < tb->write_fraction;
            ns += core_line(s, wr ? REQ_CORE_WR : REQ_CORE_RD, c,
                            ADDR_TABLES + t * ADDR_PER_TABLE + idx * s->line_size);
        }
    }
    return ddio_workload_stall_ns(w, ns) + ddio_workload_cycles(w, len) / s->ghz;
}

__attribute__((always_inline)) static inline void tx_post(dsim *s, uint32_t c, uint32_t b)
{
    dsim_core *cs = &s->core[c];
    if (s->desc_access)   /* the driver writes the 64-byte TX WQE */
        driver_line(s, REQ_CORE_WR, c, tx_wqe_addr(s, c, cs->tx_wqe), cs->tx_wqe_set[tx_slot(s, cs->tx_wqe)]);
    cs->tx_wqe++;
    ring_enqueue(&cs->tx_pending, b);
    s->tx_map[c / 64] |= 1ull << (c % 64);
    dsim_len_add(s, cs, Q_TX, 1);
    s->tx_waiting++;
}

/* tx_burst: recycle, drain the software queue, then the new packets go to
 * the TX ring, else the software queue.  Without a software queue a packet
 * the ring has no room for is dropped (rte_eth_tx_burst's caller frees
 * it).  With one, nothing is dropped: FastClick's ToDPDKDevice(BLOCKING
 * true) waits until the ring takes packets when its queue is full.  The
 * rest of the burst is held in the queue past its size (at most a burst
 * over), and core_poll receives nothing until the queue is below its size
 * again: the same buffers held, the same core stopped, the RX ring filling.
 * Its driver work is in the workload's cycles (see driver_line). */
static inline __attribute__((always_inline)) void tx_burst(dsim *s, uint32_t c, const uint32_t *bufs, uint32_t n)
{
    dsim_core *cs = &s->core[c];
    const ddio_driver *d = drv(s);
    s->nic->tx_free(s, c);
    if (!n && ring_empty(&cs->swq)) {   /* an empty poll with nothing queued: the loops below do nothing */
        nic_kick_tx(s);
        return;
    }
    /* Each post takes one free descriptor; nothing else here frees or takes
     * one, so the count is read once. */
    uint32_t room = tx_ring_free(s, cs), b, i = 0;
    while (!ring_empty(&cs->swq) && room) {
        ring_dequeue(&cs->swq, &b);
        dsim_len_add(s, cs, Q_SW, -1);
        tx_post(s, c, b);
        room--;
    }
    if (ring_empty(&cs->swq)) {   /* the usual case: the ring takes what it has room for */
        uint32_t direct = n < room ? n : room;
        for (; i < direct; i++)
            tx_post(s, c, bufs[i]);
        room -= direct;
    }
    for (; i < n; i++) {   /* the loop's rule for the rest (then room is 0 or the queue not empty) */
        if (ring_empty(&cs->swq) && room) {
            tx_post(s, c, bufs[i]);
            room--;
        } else if (d->sw_tx_queue) {
            int rc = ring_enqueue(&cs->swq, bufs[i]);
            assert(rc == 0 && "the software queue holds its size plus a burst");
            (void)rc;
            dsim_len_add(s, cs, Q_SW, 1);
        } else {
            s->n.drop_tx++;
            cs->dropped_tx++;
            free_buffer(s, c, bufs[i]);
        }
    }
    nic_kick_tx(s);
}

/* Send mode: the application allocates a buffer and writes the whole packet. */
static uint32_t send_collect(dsim *s, uint32_t c, uint32_t *bufs, double *ns)
{
    dsim_core *cs = &s->core[c];
    uint32_t n = 0, len;
    uint64_t now = evq_now(&s->q);
    uint32_t most = drv(s)->burst < MAX_BURST ? drv(s)->burst : MAX_BURST;   /* bufs[MAX_BURST] */
    while (n < most && ring_dequeue(&cs->send_req, &len) == 0) {
        uint32_t b;
        if (mempool_get(&s->mp, c, &b) != 0) {
            s->n.drop_tx++;
            continue;
        }
        s->buf_len[b] = len;
        s->buf_arrival[b] = now;
        line_span sp = dsim_data_span(s, b, len);
        for (uint32_t k = 0; k < sp.n; k++)
            *ns += ddio_workload_stall_ns(&s->cfg->workload,
                                          core_line(s, REQ_CORE_WR, c, (sp.first + k) << s->line_shift));
        *ns += ddio_workload_cycles(&s->cfg->workload, len) / s->ghz;
        bufs[n++] = b;
    }
    return n;
}

void core_send_request(dsim *s, uint32_t c, uint32_t len)
{
    if (ring_enqueue(&s->core[c].send_req, len) != 0) {
        s->n.drop_tx++;   /* the application cannot keep up */
        return;
    }
    core_wake(s, c);
}

/* A full blocking software queue stops the loop from receiving (and
 * refilling): the same test for every poll. */
static inline int poll_blocked(const dsim *s, const dsim_core *cs)
{
    const ddio_driver *d = drv(s);
    return d->sw_tx_queue && ring_count(&cs->swq) >= d->sw_tx_queue;
}

/* The iteration's end, the same for every poll: the core is busy for `ns`,
 * then polls again at once if it has work, else as idle work asks. */
static inline __attribute__((always_inline)) void poll_end(dsim *s, uint32_t c, uint64_t now, double ns, uint32_t n,
                                                            int blocked)
{
    dsim_core *cs = &s->core[c];
    cs->busy_until = now + u63_from_double(ns + 0.5);
    int more = !ring_empty(&cs->rx_done) || !ring_empty(&cs->send_req) ||
               (!ring_empty(&cs->swq) && tx_ring_free(s, cs));
    if (more && (n || !blocked))
        core_wake(s, c);
    else
        core_idle_work(s, c);
}

/* core_poll when nothing was received (RX empty, not in send mode): the
 * general iteration with n = 0, without its burst array - at a few cores
 * every other poll is one (the driver's free after a send). */
__attribute__((noinline)) static void core_poll_empty(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    uint64_t now = evq_now(&s->q);
    cs->poll_pending = 0;
    dsim_account(s, c);
    int blocked = poll_blocked(s, cs);
    if (!blocked && cs->rx_unposted)
        s->nic->rx_refill(s, c, 0);
    if (s->mode == DDIO_MODE_RECEIVE)
        s->nic->tx_free(s, c);
    else
        tx_burst(s, c, NULL, 0);
    poll_end(s, c, now, 0, 0, blocked);
}

/* core_poll when it receives (or sends): out of line, so that the empty
 * poll does not pay for its frame (the burst array). */
__attribute__((noinline)) static void core_poll_burst(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    const ddio_driver *d = drv(s);
    uint64_t now = evq_now(&s->q);
    uint32_t bufs[MAX_BURST];
    double ns = 0;
    uint32_t n = 0;
    cs->poll_pending = 0;
    dsim_account(s, c);
    int blocked = poll_blocked(s, cs);
    if (s->mode == DDIO_MODE_SEND) {
        n = blocked ? 0 : send_collect(s, c, bufs, &ns);
    } else if (!blocked) {
        n = ring_dequeue_burst(&cs->rx_done, bufs, d->burst < MAX_BURST ? d->burst : MAX_BURST);
        dsim_len_add(s, cs, Q_RX, -(int64_t)n);
        for (uint32_t i = 0; i < n; i++) {
            /* rx_done holds the packets in completion order: packet i's CQE
             * is the driver's next one (not the NIC's next, still unwritten). */
            uint64_t cqe = cs->rx_cqe_read++;
            assert(cqe < cs->rx_cqe && "the driver reads a completion the NIC has not written");
            if (s->desc_access) {
                /* a CQE, the next line of mini-CQEs, or of written-back descriptors */
                if ((cqe & s->geo.rx_wb_read_mask) == 0)
                    driver_line(s, REQ_CORE_RD, c, rx_wb_addr(s, c, cqe), cs->rx_wb_set[rx_slot(s, cqe)]);
                driver_hdr_line(s, REQ_CORE_WR, c, bufs[i]);
            }
            ns += process_packet(s, c, bufs[i]);
        }
        cs->rx_unposted += n;
        if (cs->rx_unposted)   /* no driver posts without a consumed descriptor (nic.h) */
            s->nic->rx_refill(s, c, n);
    }
    if (s->mode == DDIO_MODE_RECEIVE) {
        s->nic->tx_free(s, c);
        for (uint32_t i = 0; i < n; i++) {
            dsim_delivered(s, c, bufs[i], now + (uint64_t)ns);
            free_buffer(s, c, bufs[i]);
        }
    } else {
        tx_burst(s, c, bufs, n);
    }
    poll_end(s, c, now, ns, n, blocked);
}

void core_poll(dsim *s, uint32_t c)
{
    if (s->mode != DDIO_MODE_SEND && ring_empty(&s->core[c].rx_done))
        core_poll_empty(s, c);
    else
        core_poll_burst(s, c);
    /* A TX start the iteration pushed to the front is the next event (the
     * front was empty when the poll began): run it here, without the event,
     * in the same order.  core_poll is its handler's last action (dsim_run,
     * core_wake_last). */
    if (!s->failed && !s->plain_events && evq_front_take(&s->q, EV_TX_START))
        nic_tx_start(s);
}

/* The LLC distractor of Wang, Xu, Wu (SIGMETRICS 2022), Algorithm 2: x[i] = 1 + x[i - s] over a
 * working set of L bytes, one step every access_interval_ns. */
void distractor_run(dsim *s)
{
    const ddio_distractor *d = &s->cfg->workload.distractor;
    uint32_t core = s->cores;   /* its own core, in its own CAT class */
    uint64_t steps = (uint64_t)(1000.0 / d->access_interval_ns);
    uint64_t stride_lines = d->stride / s->line_size ? d->stride / s->line_size : 1;
    for (uint64_t i = 0; i < (steps ? steps : 1); i++) {
        uint64_t prev = (s->distract_pos + s->distract_lines - stride_lines) % s->distract_lines;
        core_line(s, REQ_CORE_RD, core, ADDR_DISTRACT + prev * s->line_size);
        core_line(s, REQ_CORE_WR, core, ADDR_DISTRACT + s->distract_pos * s->line_size);
        s->distract_pos = (s->distract_pos + stride_lines) % s->distract_lines;
    }
}
