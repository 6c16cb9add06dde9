/* dsim_int.h - the simulator's internal state, shared by dsim.c (engine,
 * results), dsim_nic.c (the NIC: RX DMA, TX engine) and dsim_core.c (the
 * cores: poll, workload, refill, recycle).  Not a public header. */
#ifndef DDIOSIM_QUEUE_DSIM_INT_H
#define DDIOSIM_QUEUE_DSIM_INT_H

#include "sim/cache/hier.h"
#include "sim/common/rng.h"
#include "sim/queue/dsim.h"
#include "sim/queue/event.h"
#include "sim/queue/mempool.h"
#include "sim/queue/nic.h"
#include "sim/queue/pcie.h"
#include "sim/queue/pktsrc.h"
#include "sim/queue/ring.h"
#include "traces/gen.h"
#include "traces/rss.h"

enum dsim_event {
    EV_ARRIVAL = 1,   /* the next packet reaches the NIC (a: core) */
    EV_RX_DONE,       /* its DMA write completed (a: core, b: buffer) */
    EV_CORE_POLL,     /* a core runs one iteration of its loop (a: core) */
    EV_TX_START,      /* the NIC fetches the next packet to send */
    EV_TX_DONE,       /* a packet left the wire (a: core, b: buffer) */
    EV_DISTRACTOR,    /* the LLC co-runner runs for a while */
    EV_TIMELINE,      /* a timeline sample */
};

/* Address map of everything that is not a packet buffer. */
#define ADDR_BUFFERS   0x0000000100000000ull
#define ADDR_RX_WQE    0x0000010000000000ull
#define ADDR_RX_CQ     0x0000011000000000ull
#define ADDR_TX_WQE    0x0000012000000000ull
#define ADDR_TX_CQ     0x0000013000000000ull
#define ADDR_TABLES    0x0000020000000000ull
#define ADDR_DISTRACT  0x0000030000000000ull
#define ADDR_PER_CORE  0x0000000010000000ull   /* 256 MiB between cores' rings */
#define ADDR_PER_TABLE 0x0000001000000000ull   /* 64 GiB between tables */

/* Simulated times stay below 2^62 ns (146 years; arrivals are checked):
 * the hot paths convert them with u63.h, exact below 2^63. */
#define DSIM_MAX_NS (1ull << 62)
#define LAT_BUCKETS 1024u

typedef struct dsim_core {
    ring rx_posted;         /* RX Replenish: empty buffers the NIC may fill */
    ring rx_done;           /* RX: received, waiting for this core */
    ring tx_pending;        /* TX: on the TX ring, not yet fetched by the NIC */
    ring tx_done;           /* TX Recycle: sent, not yet freed by the driver */
    ring swq;               /* software queue in front of the TX ring */
    ring send_req;          /* send mode: packet lengths the application will send */
    uint32_t rx_inflight;   /* descriptors taken by the NIC, DMA not yet complete */
    uint32_t tx_inflight;   /* fetched by the NIC, not yet completed */
    uint32_t rx_unposted;   /* RX descriptors consumed and not yet refilled */
    double tx_ready_ns;     /* nic.tx_packet_ns: when the queue's last fetched packet's data was ready */
    /* nic.rx_hold_bytes: frames held in the NIC for want of a descriptor,
     * oldest first (a circular FIFO of hold_cap). */
    uint32_t *hold_len;
    uint64_t *hold_at;
    uint32_t hold_head, hold_n, hold_cap;
    uint64_t rx_wqe_next, rx_wqe_fill, rx_cqe, tx_wqe, tx_wqe_fetch, tx_comps, tx_cqe_read;
    uint32_t tx_comp_left;  /* sends until the NIC's next TX completion (nic_geometry.tx_comp_every) */
    uint64_t tx_freed;      /* TX descriptors the driver has freed (nic_ice.c: its tx_next_dd) */
    /* The driver's RX completion index: the CQE of the next packet it takes
     * from rx_done (rx_cqe is the NIC's, the next CQE it writes). */
    uint64_t rx_cqe_read;
    /* LLC sets of the ring lines (hier_llc_set, fixed per line), by the
     * slot index of the *_addr helpers below: rx_ring and tx_ring entries;
     * the completion rings' (mlx5 only, nic_mlx5.c: rx_ring and its TX
     * completion slots; NULL for ice). */
    uint32_t *rx_wqe_set, *rx_cq_set, *tx_wqe_set, *tx_cq_set;
    const uint32_t *rx_wb_set;   /* the RX write-back lines' sets: rx_cq_set, or rx_wqe_set (in place) */
    uint32_t *drv_bufs;     /* the driver's scratch: one refill block (nic_ice.c) */
    int poll_pending;       /* an EV_CORE_POLL is scheduled */
    uint64_t busy_until;
    /* Time-averaged queue lengths of the measured interval. */
    uint64_t last_ns;
    double area[Q_COUNT];
    double inflight_area[2];    /* RX DMAs not complete, TX packets fetched and not sent */
    uint64_t iarea[Q_COUNT + 2];   /* area, inflight_area while they are integers below 2^53 (dsim_int_area) */
    /* area_q(t) - len_q(t) x t, mod 2^64 (dsim_account): every change of a
     * length by d at time t subtracts d x t (dsim_len_add). */
    uint64_t acc[Q_COUNT + 2];
    uint64_t dropped_tx, delivered;
} dsim_core;

/* Counters that are reset when the warm-up ends. */
typedef struct dsim_counts {
    dsim_hits pcie_write, pcie_write_partial, pcie_read, cpu_first;
    /* The descriptor and completion lines' PCIe accesses (the results'
     * *_all add the packets' to them; full writes are all but partial). */
    dsim_hits pcie_write_desc, pcie_read_desc;
    uint64_t delivered, delivered_bytes, drop_rx_ring, drop_nic_buffer, drop_tx, drop_oversize, injected;
    uint64_t lat[LAT_BUCKETS];
    double lat_sum_ns;          /* the delivered packets' latencies, summed: the mean (not a bucket's) */
} dsim_counts;

typedef struct dsim {
    const ddio_config *cfg;
    const dsim_options *opt;
    int desc_access;            /* opt->desc_access (one load less on the hot paths) */
    int plain_events;           /* opt->plain_events */
    int mode;                   /* cfg->workload.mode (likewise) */
    uint32_t data_room;         /* cfg->workload.driver.data_room: the longest frame a buffer takes */
    uint32_t cores;
    hier h;
    mempool mp;
    mbuf_layout lay;
    pcie_link pcie;
    const nic_ops *nic;         /* the NIC's driver (nic.h) */
    nic_geometry geo;           /* its descriptors */
    uint64_t rx_wb_base;        /* RX write-back ring: ADDR_RX_CQ, or ADDR_RX_WQE (in place) */
    uint32_t rx_wb_stride;      /* its bytes per received packet */
    void (*trace)(void *ctx, const nic_trace_ev *ev);   /* opt->nic_trace */
    uint64_t nic_buffer_ns;     /* pcie_backlog_ns_over(nic_buffer_bytes): an upstream backlog that long overflows it */
    pcie_write_cost rx_wb_cost; /* one RX completion line write (desc.rx_wb bytes, every rx_wb_per packets) */
    pcie_read_cost tx_desc_cost;   /* the TX WQE read of every sent packet (desc.tx_desc bytes) */
    rss rss;
    evq q;
    pktsrc src;
    ddio_rng rng;
    dsim_core *core;
    uint32_t *buf_len;          /* per buffer: frame length it holds */
    uint64_t *buf_arrival;      /* per buffer: when its packet reached the NIC */
    uint32_t *hdr_set;          /* per buffer: the LLC set of its mbuf header line */
    uint64_t *buf_data;         /* per buffer: mbuf_data_addr (kept: it divides by per_page) */
    uint32_t rx_mask, tx_mask;  /* rx_ring - 1, tx_ring - 1 (powers of two: ring_init) */
    uint8_t *flow_queue;        /* generated flows: 1 + RX queue, 0 = not yet hashed (nic_queue_of); or NULL */
    uint8_t *rec_queue;         /* a trace held in memory: per record, 1 + RX queue, 0 = not yet hashed; or NULL */
    uint64_t rec_n;             /* records of rec_queue */
    hier_hint_word *line_hints; /* per buffer, hint_lines words: where its data lines were (hier_dma_run) */
    uint32_t hint_lines;        /* most lines one DMA into a buffer spans */
    uint32_t line_size, line_shift;
    double ghz;
    double region_ns[REG_COUNT];   /* a core access's latency by the region it met (core_init_latency) */
    double wire_free_ns;        /* the TX wire is busy until then */
    int tx_engine_busy;
    uint32_t tx_rr;             /* round-robin position over the cores' TX rings */
    /* Bit c: core c's TX ring holds packets not yet fetched (tx_pending
     * not empty), so the round robin finds the next one by bit scans. */
    uint64_t tx_map[(HIER_MAX_CORES + 63) / 64];
    double tx_packet_ns;        /* machine nic.tx_packet_ns (0: off) */
    uint64_t held_bytes;        /* nic.rx_hold_bytes: frame bytes held now, all queues */
    uint64_t tx_waiting;        /* packets on TX rings, all cores */
    uint32_t tx_fetched;        /* fetched by the NIC, not yet sent */
    /* Workload expansion scratch. */
    ddio_line_op *ops;
    size_t ops_cap;
    /* The expansion depends on the packet length only: remembered per
     * length below memo_lens (dsim_core.c packet_ops). */
    uint32_t memo_lens;         /* lengths 0..memo_lens-1 are remembered */
    uint32_t *memo_at;          /* per length: 1 + offset into memo_ops, 0 = not yet */
    uint8_t *memo_n;            /* per length: its op count */
    ddio_line_op *memo_ops;
    size_t memo_used, memo_cap;
    uint64_t table_lines[DDIO_MAX_TABLES];   /* lines per table */
    gen_zipf_sampler zipf[DDIO_MAX_TABLES];
    uint64_t distract_pos, distract_lines;
    /* Measurement. */
    dsim_counts n;              /* current interval */
    dsim_counts pre;            /* the warm-up's counts (totals = pre + n) */
    dsim_counts at_end;         /* snapshot at the end of the measured interval */
    hier_stats cache_at_end;
    double area_at_end_total;
    uint64_t measure_start_ns, measure_end_ns;
    uint64_t area_exact_ns;     /* dsim_account integrates in integers until measure_start_ns + this */
    /* dsim_account's slow path from this time on: measure_start_ns +
     * area_exact_ns while measuring in integers, 0 once in doubles,
     * UINT64_MAX before and after the measured interval. */
    uint64_t area_double_from;
    int measuring, measure_closed;
    uint64_t end_ns;            /* time of the last event but a timeline sample */
    uint64_t warmup_target, rx_total, arrivals_left;
    /* Default warm-up (dsim.c): the mean RX length seen by received packets,
     * per window of warmup_window packets, must move by at most warmup_tol
     * twice in a row; at least warmup_target received packets, ending at
     * the latest once warmup_cap packets were injected. */
    int warmup_auto, warmup_calm, warmup_settled;
    uint64_t warmup_cap, warmup_window, warmup_n, warmup_packets;
    double warmup_tol, warmup_sum, warmup_prev;
    double *queue_snapshot;     /* cores x Q_COUNT areas at the end of the interval */
    double *inflight_snapshot;  /* cores x 2 */
    ddio_err *err;              /* first error raised inside an event handler */
    int failed;
} dsim;

/* Addresses of the descriptor / completion lines, by slot (the LLC sets of
 * their lines are remembered per slot in dsim_core). */
/* Slot of the i-th RX / TX descriptor: i % rx_ring, i % tx_ring. */
static inline uint32_t rx_slot(const dsim *s, uint64_t i)
{
    return (uint32_t)(i & s->rx_mask);
}
static inline uint32_t tx_slot(const dsim *s, uint64_t i)
{
    return (uint32_t)(i & s->tx_mask);
}
static inline uint64_t rx_wqe_addr(const dsim *s, uint32_t c, uint64_t i)
{
    return ADDR_RX_WQE + c * ADDR_PER_CORE + (uint64_t)rx_slot(s, i) * s->geo.desc.rx_desc;
}
/* Where the NIC writes the i-th received packet's completion (nic.h,
 * rx_wb_in_ring): its CQE slot, or its own RX descriptor; the line's LLC
 * set is rx_wb_set[rx_slot(i)]. */
static inline uint64_t rx_wb_addr(const dsim *s, uint32_t c, uint64_t i)
{
    return s->rx_wb_base + c * ADDR_PER_CORE + (uint64_t)rx_slot(s, i) * s->rx_wb_stride;
}
static inline uint64_t tx_wqe_addr(const dsim *s, uint32_t c, uint64_t i)
{
    return ADDR_TX_WQE + c * ADDR_PER_CORE + (uint64_t)tx_slot(s, i) * s->pcie.cfg.desc.tx_desc;
}

/* Buffer `buf`'s mbuf header line, the lines of its first `len` data
 * bytes, the address of its k-th data line (mbuf_hdr_line, mbuf_data_span,
 * mbuf_data_line_addr from the kept data start). */
static inline uint64_t dsim_hdr_line(const dsim *s, uint32_t buf)
{
    return mbuf_hdr_line_at(&s->lay, s->buf_data[buf], 0);
}
static inline line_span dsim_data_span(const dsim *s, uint32_t buf, uint32_t len)
{
    return mbuf_data_span_at(&s->lay, s->buf_data[buf], 0, len);
}
static inline uint64_t dsim_data_line_addr(const dsim *s, uint32_t buf, uint32_t k)
{
    return mbuf_data_line_addr_at(&s->lay, s->buf_data[buf], k);
}
/* Test hook (dsim_options.nic_trace): one event, when a test asked. */
static inline void dsim_trace(dsim *s, enum nic_trace_kind kind, uint32_t c, uint64_t addr, uint64_t n,
                              uint64_t aux)
{
    if (s->trace) {
        nic_trace_ev ev = {.kind = kind, .core = c, .addr = addr, .n = n, .aux = aux};
        s->trace(s->opt->nic_trace_ctx, &ev);
    }
}

/* dsim.c */
uint32_t dsim_queue_len(const dsim *s, uint32_t core, enum lqueue q);

/* Event kinds whose times are pushed in order, each in a lane of its own
 * (event.h): arrivals (sorted), RX DMA completions (one FIFO upstream
 * link), sends (one wire).  -1: the heap (core polls, the rare TX fetch
 * events - nic_tx_start fetches back to back itself - and the rest: every
 * lane costs a key comparison at every pop), or the front when due now
 * before all else (dsim_push).  Inline: `type` is a constant at every
 * call, so the lane is too. */
static inline int dsim_event_lane(int type)
{
    switch (type) {
    case EV_ARRIVAL: return 0;
    case EV_RX_DONE: return 1;
    case EV_TX_DONE: return 2;
    default: return -1;
    }
}

/* Out of line: a heap or a lane that must grow, a failure. */
int dsim_push_slow(dsim *s, sim_event ev, int lane);

/* The heap's kinds go to the front when they are due now and nothing else
 * is (evq_front_fits: a poll or a TX start pushed by the event being
 * handled, which then pops next). */
static inline __attribute__((always_inline)) int dsim_push(dsim *s, uint64_t t, int type, uint32_t id, uint64_t a,
                                                           uint64_t b)
{
    sim_event ev = {.time_ns = t, .type = type, .id = id, .a = a, .b = b};
    int lane = dsim_event_lane(type);
    if (lane >= 0 && evq_lane_fits(&s->q, lane, t)) {
        evq_lane_put(&s->q, lane, ev);
        return 0;
    }
    if (lane < 0 && evq_front_fits(&s->q, t)) {
        evq_front_put(&s->q, ev);
        return 0;
    }
    if (lane < 0 && evq_heap_fits(&s->q)) {
        evq_heap_put(&s->q, ev);
        return 0;
    }
    return dsim_push_slow(s, ev, lane);
}
/* The next arrival: pushed one at a time into a single-slot lane
 * (evq_lane_single in setup), so only its time and seq are written. */
static inline int dsim_push_arrival(dsim *s, uint64_t t)
{
    if (evq_single_put(&s->q, dsim_event_lane(EV_ARRIVAL), t) == 0)
        return 0;
    return dsim_push(s, t, EV_ARRIVAL, 0, 0, 0);
}

static inline void dsim_count(dsim_hits *hh, int hit)
{
    hh->accesses++;
    hh->hits += (uint64_t)(hit != 0);
}

/* n accesses, `hits` of them hits. */
static inline void dsim_count_n(dsim_hits *hh, uint32_t n, uint32_t hits)
{
    hh->accesses += n;
    hh->hits += hits;
}
void dsim_fail(dsim *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void dsim_end_warmup_check(dsim *s, uint32_t core);
/* After each received packet: has the warm-up ended?  (Inline: measuring
 * is the usual answer.) */
static inline void dsim_maybe_end_warmup(dsim *s, uint32_t core)
{
    if (!s->measuring)
        dsim_end_warmup_check(s, core);
}
/* Latency histogram bucket: 16 per power of two. */
static inline uint32_t lat_bucket(uint64_t ns)
{
    if (ns < 16)
        return (uint32_t)ns;
    uint32_t e = 63u - (uint32_t)__builtin_clzll(ns);
    return e * 16 + (uint32_t)((ns >> (e - 4)) & 15);
}

/* Buffer `buf` of core c delivered its packet at time t (sent, or
 * consumed); inline: once per packet. */
static inline void dsim_delivered(dsim *s, uint32_t c, uint32_t buf, uint64_t t)
{
    s->n.delivered++;
    s->n.delivered_bytes += s->buf_len[buf];
    uint64_t lat = t > s->buf_arrival[buf] ? t - s->buf_arrival[buf] : 0;
    s->n.lat[lat_bucket(lat)]++;
    s->n.lat_sum_ns += (double)lat;
    s->core[c].delivered++;
}

/* dsim_nic.c */
/* nic_arrival: dsim_nic.h (inline).  The NIC writes a frame of `len`
 * bytes that arrived at `arrival` into core c's next posted buffer (there
 * is one), if its packet buffer takes it. */
void nic_rx_dma(dsim *s, uint32_t c, uint32_t len, uint64_t arrival);
/* nic.rx_hold_bytes: write core c's held frames into the descriptors it
 * has posted (called after a refill). */
void nic_rx_release(dsim *s, uint32_t c);
/* nic_rx_done, nic_tx_done: dsim_nic.h (inline). */
void nic_start_tx(dsim *s);
/* Start the TX engine if it is idle and has work (inline: every sent
 * packet asks). */
static inline void nic_kick_tx(dsim *s)
{
    if (!s->tx_engine_busy && s->tx_waiting && s->tx_fetched < s->geo.tx_max_fetched)
        nic_start_tx(s);
}
void nic_tx_start(dsim *s);
uint32_t nic_queue_of(dsim *s, const pktsrc_pkt *p);

/* dsim_core.c */
int core_init_rings(dsim *s, uint32_t c);
void core_init_latency(dsim *s);
/* Push core c's next poll `delay` ns after it is free (none is pending). */
static inline __attribute__((always_inline)) void core_schedule(dsim *s, uint32_t c, uint64_t delay)
{
    dsim_core *cs = &s->core[c];
    uint64_t now = evq_now(&s->q);
    cs->poll_pending = 1;
    dsim_push(s, (cs->busy_until > now ? cs->busy_until : now) + delay, EV_CORE_POLL, 0, c, 0);
}
/* Schedule core c's next loop iteration, unless one is pending (inline:
 * every received and every sent packet asks). */
static inline void core_wake(dsim *s, uint32_t c)
{
    if (!s->core[c].poll_pending)
        core_schedule(s, c, 0);
}
/* One iteration of core c's loop (EV_CORE_POLL). */
void core_poll(dsim *s, uint32_t c);
/* A handler's last action: wake core c.  A poll due now and before every
 * pending event (evq_front_fits) would be the next event, popped as soon
 * as the handler returns: it runs here instead, in the same order (the seq
 * it would take is not taken: no other event's order changes). */
static inline __attribute__((always_inline)) void core_wake_last(dsim *s, uint32_t c)
{
    const dsim_core *cs = &s->core[c];
    if (cs->poll_pending)
        return;
    if (cs->busy_until <= evq_now(&s->q) && !s->failed && !s->plain_events && evq_front_fits(&s->q, evq_now(&s->q)))
        core_poll(s, c);
    else
        core_schedule(s, c, 0);
}
/* core_idle_work's rule: wake core c IDLE_LOOP_NS after it is free if
 * its driver would free sent buffers or refill the RX ring now. */
void core_idle_work_due(dsim *s, uint32_t c);
/* Core c has nothing to receive or send: wake it for its driver's work
 * (core_idle_work_due).  Inline: after most iterations the answer is "no
 * work" (TX Recycle empty, nothing to refill), known from two loads. */
static inline void core_idle_work(dsim *s, uint32_t c)
{
    const dsim_core *cs = &s->core[c];
    if (ring_empty(&cs->tx_done) && (!cs->rx_unposted || s->measure_closed))
        return;
    core_idle_work_due(s, c);
}
void core_send_request(dsim *s, uint32_t c, uint32_t len);
void distractor_run(dsim *s);

/* Queue lengths for the time averages: the queues of dsim_queue_len
 * (Q_RX_REPLENISH .. Q_TX_RECYCLE), then the RX DMAs in flight (Q_COUNT) and the
 * TX packets fetched and not sent (Q_COUNT + 1). */
#define DSIM_INF_RX Q_COUNT
#define DSIM_INF_TX (Q_COUNT + 1)
static inline uint64_t dsim_area_len(const dsim_core *cs, int q)
{
    _Static_assert(Q_COUNT == 5, "a case per queue of dsim_queue_len, then the in-flight ones");
    switch (q) {
    case Q_RX_REPLENISH: return ring_count(&cs->rx_posted);
    case Q_RX: return ring_count(&cs->rx_done) + cs->rx_inflight;
    case Q_TX: return ring_count(&cs->tx_pending) + cs->tx_inflight;
    case Q_TX_RECYCLE: return ring_count(&cs->tx_done);
    case Q_SW: return ring_count(&cs->swq);
    case DSIM_INF_RX: return cs->rx_inflight;
    default: return cs->tx_inflight;
    }
}

/* Length `q` of core cs changes by d (+-) now: see dsim_account. */
static inline void dsim_len_add(dsim *s, dsim_core *cs, int q, int64_t d)
{
    cs->acc[q] -= (uint64_t)d * evq_now(&s->q);
}

/* dsim_account's slow part (dsim.c): the doubles after the integers' exact
 * span; with DDIOSIM_EXPENSIVE_CHECKS also the reference integration. */
void dsim_account_slow(dsim *s, dsim_core *cs, uint64_t now);

/* The time-averaged queue lengths (dsim_result.queue_len) integrate each
 * length over the measured interval.  The integrals are sums of products
 * of integers (ns x packets), so the double sums are exact while below
 * 2^53 and integers give the same values; every length is at most 2 x the
 * buffers, so no integral reaches 2^53 for area_exact_ns into the interval.
 *
 * In that span the integral is kept by parts, not summed at every event:
 * area(t) = len(t) x t - sum of (change x its time), so acc = area - len x t
 * changes only where a length does (dsim_len_add: every ring operation and
 * in-flight count of the queues above) and area(t) = len(t) x t + acc
 * (dsim_int_area).  Mod 2^64 the result is exact since it is below 2^53.
 * Every handler calls dsim_account(core) before it changes the core's
 * lengths, so the sum of lengths x intervals between its calls (the double
 * form after the span, and the reference DDIOSIM_EXPENSIVE_CHECKS keeps in
 * iarea) is that same integral.  After the span the integrals are
 * converted (exactly) and the doubles take over at every call, as before. */
static inline void dsim_account(dsim *s, uint32_t c)
{
    dsim_core *cs = &s->core[c];
    uint64_t now = evq_now(&s->q);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    dsim_account_slow(s, cs, now);
#else
    if (now >= s->area_double_from)
        dsim_account_slow(s, cs, now);
#endif
    cs->last_ns = now;
}

/* Core cs's integral of length q up to its last dsim_account, in the
 * integer span (its lengths have not changed since: see dsim_account). */
static inline uint64_t dsim_int_area(const dsim_core *cs, int q)
{
    return dsim_area_len(cs, q) * cs->last_ns + cs->acc[q];
}

/* The hierarchy's location hints for the n data lines a DMA into `buf`
 * covers (it starts at the data area, so line k of every DMA is the same
 * line); NULL if n is more than a buffer can hold. */
static inline hier_hint_word *dsim_line_hints(dsim *s, uint32_t buf, uint32_t n)
{
    return n <= s->hint_lines ? s->line_hints + (uint64_t)buf * s->hint_lines : NULL;
}

/* An access by the NIC (PCIe) or a core, through the hierarchy. */
static inline int dsim_access(dsim *s, enum coh_req req, uint32_t core, uint64_t addr, hier_result *r)
{
    hier_access(&s->h, req, core, addr >> s->line_shift, 0, r);
    return r->hit;
}

/* The same for a line whose LLC set is known (hier_access_set), through
 * the hierarchy's entry for that request when there is one: `req` is a
 * constant at every call, so this picks the function at compile time.
 * These entries (hier.h) are for callers that remember their lines' sets:
 * the general hier_access and its hint words cost more per access
 * (docs/performance.md has the instruction counts). */
static inline __attribute__((always_inline)) int dsim_line_set(dsim *s, enum coh_req req, uint32_t core,
                                                               uint64_t line, uint32_t llc_set, hier_result *r)
{
    hier_access_set_fixed(&s->h, req, core, line, llc_set, r);
    return r->hit;
}

/* The same for an address. */
static inline __attribute__((always_inline)) int dsim_access_set(dsim *s, enum coh_req req, uint32_t core,
                                                                 uint64_t addr, uint32_t llc_set, hier_result *r)
{
    return dsim_line_set(s, req, core, addr >> s->line_shift, llc_set, r);
}

#endif
