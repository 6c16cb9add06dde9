/* dsim.c - the simulator's engine: set-up from a configuration, the event
 * loop, warm-up and the measured interval, results, buffer conservation. */
#include "sim/queue/dsim.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/queue/dsim_nic.h"

#define OPS_CAP 4096
#define MEMO_MAX_LEN 16384u   /* longest packet whose expansion is remembered */

void dsim_options_default(dsim_options *o)
{
    memset(o, 0, sizeof *o);
    o->packets = 0;
    o->rate_gbps = 0;
    o->seed = 1;
    o->warmup_packets = UINT64_MAX;
    o->desc_access = 1;
    o->nic_buffer_bytes = 256 * 1024;
    o->timeline_us = 10.0;
    o->progress_after_s = 1.0;
}

void dsim_fail(dsim *s, int code, const char *fmt, ...)
{
    if (s->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err->msg, sizeof s->err->msg, fmt, ap);
    va_end(ap);
    s->err->exit_code = code;
    s->failed = 1;
}

int dsim_push_slow(dsim *s, sim_event ev, int lane)
{
    ddio_err e;
    if ((lane >= 0 ? evq_push_lane(&s->q, lane, ev, &e) : evq_push(&s->q, ev, &e)) != 0) {
        dsim_fail(s, e.exit_code, "%s", e.msg);
        return -1;
    }
    return 0;
}

uint32_t dsim_queue_len(const dsim *s, uint32_t c, enum lqueue q)
{
    return (unsigned)q < Q_COUNT ? (uint32_t)dsim_area_len(&s->core[c], (int)q) : 0;
}

/* Bucket b (lat_bucket) from 2^e ns: 2^(e-4) ns wide (16 per octave). */
static double lat_bucket_width(uint32_t b)
{
    return b < 16 ? 1.0 : ldexp(1.0, (int)(b / 16) - 4);
}

static double lat_bucket_mid(uint32_t b)
{
    if (b < 16)
        return b;
    return (double)(16 + b % 16) * lat_bucket_width(b) + lat_bucket_width(b) / 2;
}

/* Bucket b's middle to the histogram's resolution: digits finer than the
 * power of ten below the bucket's width say nothing (151 552 ns in a
 * bucket 8 192 ns wide reads 152 000). */
static double lat_at_resolution(uint32_t b)
{
    if (b < 16)
        return b;
    double q = pow(10, floor(log10(lat_bucket_width(b))));
    return round(lat_bucket_mid(b) / q) * q;
}


/* Is the default warm-up over?  Cycling the buffers twice fills the caches,
 * but an overloaded core fills its RX ring only at the excess rate (1 core,
 * 1500 B, line rate: rho = 1.09, ~100 000 packets for 4096 descriptors), and
 * hit rates measured while the ring still fills are those of shorter queues,
 * 4-8 points off the model's, which takes the settled ones (docs/
 * simulator.md, "Warm-up").  So the mean RX length the received packets see
 * is compared window by window, and measuring starts after two calm windows
 * in a row. */
static int warmup_settled(dsim *s, uint32_t c)
{
    s->warmup_sum += dsim_queue_len(s, c, Q_RX);
    if (++s->warmup_n < s->warmup_window)
        return 0;
    double mean = s->warmup_sum / (double)s->warmup_n;
    int first = s->warmup_prev < 0;
    s->warmup_calm = !first && fabs(mean - s->warmup_prev) <= s->warmup_tol ? s->warmup_calm + 1 : 0;
    s->warmup_prev = mean;
    s->warmup_sum = 0;
    s->warmup_n = 0;
    return s->warmup_calm >= 2;
}

void dsim_end_warmup_check(dsim *s, uint32_t c)
{
    if (s->warmup_auto) {
        int calm = warmup_settled(s, c);
        /* The cap counts injected packets: a run that drops most of them
         * still starts measuring half-way. */
        int capped = s->src.produced >= s->warmup_cap;
        if (!capped && (s->rx_total < s->warmup_target || !calm))
            return;
        s->warmup_settled = !capped || calm;
    } else if (s->rx_total < s->warmup_target) {
        return;
    }
    for (uint32_t k = 0; k < s->cores; k++) {
        dsim_account(s, k);
        memset(s->core[k].area, 0, sizeof s->core[k].area);
        memset(s->core[k].inflight_area, 0, sizeof s->core[k].inflight_area);
        memset(s->core[k].iarea, 0, sizeof s->core[k].iarea);
    }
    /* dsim_account: integer areas while every sum stays below 2^53. */
    s->area_exact_ns = (1ull << 53) / (2 * (uint64_t)s->mp.n + 1);
    if (s->opt->area_exact_ns && s->opt->area_exact_ns < s->area_exact_ns)
        s->area_exact_ns = s->opt->area_exact_ns;
    s->measuring = 1;
    s->warmup_packets = s->rx_total;
    s->measure_start_ns = evq_now(&s->q);
    /* The integrals start at 0 now: acc = -len x now (dsim_account). */
    for (uint32_t k = 0; k < s->cores; k++)
        for (int q = 0; q < Q_COUNT + 2; q++)
            s->core[k].acc[q] = 0 - dsim_area_len(&s->core[k], q) * s->measure_start_ns;
    s->area_double_from = s->measure_start_ns + s->area_exact_ns;
    s->pre = s->n;
    memset(&s->n, 0, sizeof s->n);
    hier_reset_stats(&s->h);
}

/* The integer areas as doubles (exact: below 2^53), and doubles from now on. */
static void areas_to_double(dsim *s)
{
    if (!s->area_exact_ns)
        return;
    for (uint32_t c = 0; c < s->cores; c++) {
        dsim_core *cs = &s->core[c];
        for (int q = 0; q < Q_COUNT + 2; q++) {
            if (s->measuring) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
                assert(cs->iarea[q] == dsim_int_area(cs, q));
#endif
                cs->iarea[q] = dsim_int_area(cs, q);
            }
        }
        for (int q = 0; q < Q_COUNT; q++)
            cs->area[q] = (double)cs->iarea[q];
        cs->inflight_area[0] = (double)cs->iarea[DSIM_INF_RX];
        cs->inflight_area[1] = (double)cs->iarea[DSIM_INF_TX];
    }
    s->area_exact_ns = 0;
    s->area_double_from = s->measuring && !s->measure_closed ? 0 : UINT64_MAX;
}

void dsim_account_slow(dsim *s, dsim_core *cs, uint64_t now)
{
    if (!s->measuring || s->measure_closed || now <= cs->last_ns)
        return;
    if (now - s->measure_start_ns < s->area_exact_ns) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        /* The reference: the sum of lengths x intervals, against the
         * integral by parts. */
        uint64_t dt = now - cs->last_ns;
        for (int q = 0; q < Q_COUNT + 2; q++) {
            cs->iarea[q] += dt * dsim_area_len(cs, q);
            assert(cs->iarea[q] == dsim_area_len(cs, q) * now + cs->acc[q]);
        }
#endif
        return;
    }
    areas_to_double(s);
    double dt = (double)(now - cs->last_ns);
    cs->area[Q_RX_REPLENISH] += dt * ring_count(&cs->rx_posted);
    cs->area[Q_RX] += dt * (ring_count(&cs->rx_done) + cs->rx_inflight);
    cs->area[Q_TX] += dt * (ring_count(&cs->tx_pending) + cs->tx_inflight);
    cs->area[Q_TX_RECYCLE] += dt * ring_count(&cs->tx_done);
    cs->area[Q_SW] += dt * ring_count(&cs->swq);
    cs->inflight_area[0] += dt * cs->rx_inflight;
    cs->inflight_area[1] += dt * cs->tx_inflight;
}

/* The measured interval ends with the last packet's arrival; the run goes on
 * until every packet is delivered or dropped, for the totals. */
static void close_window(dsim *s)
{
    if (s->measure_closed)
        return;
    if (s->measuring)
        for (uint32_t c = 0; c < s->cores; c++)
            dsim_account(s, c);
    areas_to_double(s);
    for (uint32_t c = 0; c < s->cores; c++) {
        memcpy(&s->queue_snapshot[c * Q_COUNT], s->core[c].area, sizeof s->core[c].area);
        memcpy(&s->inflight_snapshot[c * 2], s->core[c].inflight_area, sizeof s->core[c].inflight_area);
    }
    s->at_end = s->n;
    s->cache_at_end = s->h.stats;
    s->measure_end_ns = evq_now(&s->q);
    s->measure_closed = 1;
    s->area_double_from = UINT64_MAX;
}

static void timeline_row(dsim *s)
{
    double q[Q_COUNT] = {0};
    for (uint32_t c = 0; c < s->cores; c++)
        for (int k = 0; k < Q_COUNT; k++)
            q[k] += dsim_queue_len(s, c, (enum lqueue)k) / (double)s->cores;
    fprintf(s->opt->timeline, "%.3f", evq_now(&s->q) / 1000.0);
    for (int k = 0; k < Q_COUNT; k++)
        fprintf(s->opt->timeline, ",%.2f", q[k]);
    fprintf(s->opt->timeline, ",%.4f,%.4f,%llu,%llu\n", dsim_rate(s->n.pcie_write),
            dsim_rate(s->n.pcie_read), (unsigned long long)s->n.delivered,
            (unsigned long long)(s->n.drop_rx_ring + s->n.drop_nic_buffer + s->n.drop_tx));
}

/* Handle event `ev`, which points into the queue (evq_pop_ref): its fields
 * are read before a handler pushes. */
static void dispatch(dsim *s, const sim_event *ev, const pktsrc_pkt **next)
{
    switch (ev->type) {
    case EV_ARRIVAL: {
        /* The next arrival would be pushed and, when it is earlier than
         * every pending event, popped right away: it is handled here
         * instead (evq_advance), in the same order. */
        uint64_t t = ev->time_ns;
        for (;;) {
            nic_arrival(s, *next);
            int rc = pktsrc_next_ref(&s->src, next, s->err);
            if (rc < 0) {
                s->failed = 1;
                break;
            }
            if (rc == 0) {
                close_window(s);
                break;
            }
            if ((*next)->ts_ns > t)
                t = (*next)->ts_ns;
            if (t >= DSIM_MAX_NS) {
                dsim_fail(s, DDIO_EXIT_USAGE, "the packets arrive over more than %llu ns of simulated time",
                          (unsigned long long)DSIM_MAX_NS);
                break;
            }
            /* Arrivals are pushed one at a time (here and in dsim_run), so
             * their lane is empty while one is handled. */
            if (s->failed || t >= evq_next_time_without(&s->q, dsim_event_lane(EV_ARRIVAL))) {
                dsim_push_arrival(s, t);
                break;
            }
            evq_advance(&s->q, t);
        }
        break;
    }
    case EV_RX_DONE: nic_rx_done(s, (uint32_t)ev->a, (uint32_t)ev->b); break;
    case EV_CORE_POLL: core_poll(s, (uint32_t)ev->a); break;
    case EV_TX_START: nic_tx_start(s); break;
    case EV_TX_DONE: nic_tx_done(s, (uint32_t)ev->a, (uint32_t)ev->b); break;
    case EV_DISTRACTOR: {
        uint64_t t = ev->time_ns;
        distractor_run(s);
        if (!s->measure_closed)
            dsim_push(s, t + 1000, EV_DISTRACTOR, 0, 0, 0);
        break;
    }
    case EV_TIMELINE: {
        /* Nothing else pending: the run ended before this sample. */
        if (!evq_size(&s->q))
            break;
        uint64_t t = ev->time_ns;
        timeline_row(s);
        if (!s->measure_closed)
            dsim_push(s, t + (uint64_t)(s->opt->timeline_us * 1000.0), EV_TIMELINE, 0, 0, 0);
        break;
    }
    default: dsim_fail(s, DDIO_EXIT_IO, "internal: unknown event %d", ev->type);
    }
}

/* Seconds on the options' wall clock, CLOCK_MONOTONIC by default. */
static double wall_now(const dsim_options *o)
{
    if (o->wall_clock)
        return o->wall_clock(o->wall_clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void dsim_pcie_config(const ddio_config *cfg, pcie_config *out)
{
    pcie_config_default(out);
    out->gen = cfg->machine.pcie.gen;
    out->lanes = cfg->machine.pcie.lanes;
    out->mps = cfg->machine.pcie.mps;
    out->mrrs = cfg->machine.pcie.mrrs;
    /* per_lane: the ddio-bench server forwards 8.16 Mpps of 1500 B frames
     * at 4-18 cores with no queue (docs/validation.md), which the table's
     * reading (~9.8 % of a gen3 x16 link) cannot carry upstream. */
    if (cfg->machine.pcie.dllp == PCIE_DLLP_PER_LANE)
        out->dll_overhead = pcie_dll_overhead_per_lane(out->gen, out->lanes, out->mps);
    nic_geometry g;
    nic_ops_of(cfg)->geometry(cfg, &g);
    out->desc = g.desc;
}

int dsim_buffer_layout(const ddio_driver *d, uint32_t line_size, mbuf_layout *out, ddio_err *e)
{
    mbuf_layout_config lc;
    mbuf_layout_config_default(&lc);
    lc.base = ADDR_BUFFERS;
    lc.line_size = line_size;
    lc.headroom = d->headroom;
    lc.data_room = d->data_room;
    lc.mbuf_size = d->mbuf_header;
    lc.align = d->align_4k ? 4096 : 0;
    return mbuf_layout_init(out, &lc, e);
}

static int setup(dsim *s, ddio_err *e)
{
    const ddio_config *cfg = s->cfg;
    const ddio_workload *w = &cfg->workload;
    const ddio_driver *d = &w->driver;
    const dsim_options *o = s->opt;
    hier_config hc;
    if (ddio_config_to_hier(cfg, &hc, e) != 0)
        return -1;
    hc.llc.seed = o->seed;
    hc.llc_repl.seed = o->seed;
    hc.l2_repl.seed = o->seed + 1;
    if (hier_init(&s->h, &hc, e) != 0)
        return -1;
    if (o->general_only)
        hier_set_general_only(&s->h, 1);
    s->area_double_from = UINT64_MAX;   /* not measuring yet (dsim_account) */
    s->desc_access = o->desc_access;
    s->plain_events = o->plain_events;
    s->mode = cfg->workload.mode;
    s->data_room = cfg->workload.driver.data_room;
    s->line_size = hc.llc.line_size;
    s->line_shift = (uint32_t)__builtin_ctz(s->line_size);
    s->ghz = cfg->machine.frequency_ghz;
    s->tx_packet_ns = cfg->machine.nic.tx_packet_ns;
    core_init_latency(s);
    mempool_config mc = {.n_bufs = ddio_workload_mempool_size(w), .n_caches = s->cores,
                         .cache_size = d->mempool_cache, .put_mode = MEMPOOL_PUT_TRIM};
    if (mempool_init(&s->mp, &mc, e) != 0)
        return -1;
    if (dsim_buffer_layout(d, s->line_size, &s->lay, e) != 0)
        return -1;
    pcie_config pc;
    dsim_pcie_config(cfg, &pc);
    if (pcie_link_init(&s->pcie, &pc, e) != 0 || rss_init(&s->rss, NULL, 0, s->cores, 128, e) != 0 ||
        evq_init(&s->q, 1024, e) != 0 ||
        evq_lane_single(&s->q, dsim_event_lane(EV_ARRIVAL), (sim_event){.type = EV_ARRIVAL}, e) != 0)
        return -1;
    s->nic_buffer_ns = pcie_backlog_ns_over(&s->pcie, o->nic_buffer_bytes);
    s->nic = nic_ops_of(cfg);
    s->nic->geometry(cfg, &s->geo);
    s->rx_wb_base = s->geo.rx_wb_in_ring ? ADDR_RX_WQE : ADDR_RX_CQ;
    s->rx_wb_stride = s->geo.rx_wb_in_ring ? s->geo.desc.rx_desc : s->geo.desc.rx_wb;
    s->trace = o->nic_trace;
    s->rx_wb_cost = pcie_write_of(&s->pcie, s->pcie.cfg.desc.rx_wb);
    s->tx_desc_cost = pcie_read_of(&s->pcie, s->pcie.cfg.desc.tx_desc < 64 ? 64 : s->pcie.cfg.desc.tx_desc);
    s->core = calloc(s->cores, sizeof *s->core);
    s->buf_len = calloc(s->mp.n, sizeof *s->buf_len);
    s->buf_arrival = calloc(s->mp.n, sizeof *s->buf_arrival);
    /* Zero pages until used: memory follows the buffers in circulation. */
    s->hint_lines = d->data_room / s->line_size + 2;
    s->line_hints = calloc((size_t)s->mp.n * s->hint_lines, sizeof *s->line_hints);
    s->hdr_set = malloc((size_t)s->mp.n * sizeof *s->hdr_set);
    s->buf_data = malloc((size_t)s->mp.n * sizeof *s->buf_data);
    s->ops = calloc(OPS_CAP, sizeof *s->ops);
    s->ops_cap = OPS_CAP;
    s->memo_lens = (d->data_room < MEMO_MAX_LEN ? d->data_room : MEMO_MAX_LEN) + 1;
    s->memo_at = calloc(s->memo_lens, sizeof *s->memo_at);
    s->memo_n = calloc(s->memo_lens, sizeof *s->memo_n);
    s->queue_snapshot = calloc((size_t)s->cores * Q_COUNT, sizeof(double));
    s->inflight_snapshot = calloc((size_t)s->cores * 2, sizeof(double));
    if (!s->core || !s->buf_len || !s->buf_arrival || !s->line_hints || !s->hdr_set || !s->buf_data || !s->ops || !s->memo_at || !s->memo_n || !s->queue_snapshot || !s->inflight_snapshot)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    for (uint32_t b = 0; b < s->mp.n; b++) {
        s->buf_data[b] = mbuf_data_addr(&s->lay, b);
        s->hdr_set[b] = hier_llc_set(&s->h, mbuf_hdr_line(&s->lay, b, 0));
    }
    s->rx_mask = d->rx_ring - 1;
    s->tx_mask = d->tx_ring - 1;
    for (uint32_t t = 0; t < w->n_tables; t++) {
        s->table_lines[t] = w->tables[t].bytes / s->line_size ? w->tables[t].bytes / s->line_size : 1;
        gen_zipf_init(&s->zipf[t], s->table_lines[t], w->tables[t].zipf_s);
    }
    s->distract_lines = w->distractor.working_set / s->line_size;
    ddio_rng_seed(&s->rng, o->seed ^ 0xD51Dull);
    for (uint32_t c = 0; c < s->cores; c++)
        if (core_init_rings(s, c) != 0)
            return -1;
    if (pktsrc_open(&s->src, &o->src, o->packets, o->rate_gbps, cfg->machine.nic.line_rate_gbps, o->pkt_size,
                    o->seed, e) != 0)
        return -1;
    if (!s->src.is_trace) {
        /* Generated packets need no 5-tuple: one core asks no RSS hash, more
         * cores hash a flow's tuple once (nic_queue_of: gen_flow_meta). */
        pktsrc_skip_tuple(&s->src);
        if (s->cores > 1 && s->cores < 256 && s->src.g.flows <= PKTSRC_TCP_CACHE_MAX &&
            !(s->flow_queue = calloc(s->src.g.flows, 1)))
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    } else if (s->src.mem && s->cores > 1 && s->cores < 256 && !s->plain_events) {
        /* A trace held in memory is looped: its packets' RSS queues are
         * hashed once per record (nic_queue_of). */
        s->rec_n = s->src.mem_n;
        if (!(s->rec_queue = calloc(s->rec_n ? s->rec_n : 1, 1)))
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    /* Warm-up: a given number of received packets, or by default until the
     * buffers in circulation have cycled twice and the queues have settled
     * (warmup_settled), but at most half the packets. */
    uint64_t circulating = (uint64_t)s->cores * (d->rx_ring + d->tx_ring + d->sw_tx_queue + d->mempool_cache);
    if (circulating > s->mp.n)
        circulating = s->mp.n;
    s->warmup_auto = o->warmup_packets == UINT64_MAX;
    s->warmup_target = s->warmup_auto ? 2 * circulating : o->warmup_packets;
    s->warmup_cap = s->src.expected ? s->src.expected / 2 : UINT64_MAX;
    if (s->warmup_auto && s->warmup_target > s->warmup_cap)
        s->warmup_target = s->warmup_cap;
    s->warmup_window = circulating > 1024 ? circulating : 1024;
    s->warmup_tol = fmax(0.01 * d->rx_ring, 2.0);
    s->warmup_prev = -1;
    return 0;
}

/* Every buffer is in exactly one place: the mempool, or one of the rings. */
static int check_conservation(dsim *s, ddio_err *e)
{
    uint32_t *out = malloc(sizeof(uint32_t) * (s->mp.n + 1));
    size_t n = 0;
    for (uint32_t c = 0; c < s->cores; c++) {
        dsim_core *cs = &s->core[c];
        const ring *rs[] = {&cs->rx_posted, &cs->rx_done, &cs->tx_pending, &cs->tx_done, &cs->swq};
        for (size_t k = 0; k < 5; k++)
            for (uint32_t i = 0; i < ring_count(rs[k]) && n <= s->mp.n; i++)
                out[n++] = ring_peek(rs[k], i);
        if (cs->rx_inflight || cs->tx_inflight || cs->hold_n) {
            free(out);
            return ddio_errf(e, DDIO_EXIT_IO, "internal: core %u ends with packets in flight", c);
        }
    }
    int rc = mempool_check_conservation(&s->mp, out, n, e);
    free(out);
    return rc;
}

static double pct(const uint64_t *hist, double p)
{
    uint64_t total = 0;
    for (uint32_t b = 0; b < LAT_BUCKETS; b++)
        total += hist[b];
    if (!total)
        return 0;
    uint64_t want = (uint64_t)ceil(p * (double)total), acc = 0;
    for (uint32_t b = 0; b < LAT_BUCKETS; b++) {
        acc += hist[b];
        if (acc >= want && hist[b])
            return lat_at_resolution(b);
    }
    return 0;
}

static void results(dsim *s, dsim_result *r)
{
    const dsim_counts *n = &s->at_end;
    r->pcie_write = n->pcie_write;
    r->pcie_write_full.accesses = n->pcie_write.accesses - n->pcie_write_partial.accesses;
    r->pcie_write_full.hits = n->pcie_write.hits - n->pcie_write_partial.hits;
    r->pcie_write_partial = n->pcie_write_partial;
    r->pcie_read = n->pcie_read;
    r->cpu_first = n->cpu_first;
    r->pcie_write_all.accesses = n->pcie_write.accesses + n->pcie_write_desc.accesses;
    r->pcie_write_all.hits = n->pcie_write.hits + n->pcie_write_desc.hits;
    r->pcie_read_all.accesses = n->pcie_read.accesses + n->pcie_read_desc.accesses;
    r->pcie_read_all.hits = n->pcie_read.hits + n->pcie_read_desc.hits;
    r->cores = s->cores;
    r->queue_len = calloc((size_t)s->cores * Q_COUNT, sizeof(double));
    r->inflight = calloc((size_t)s->cores * 2, sizeof(double));
    double span = (double)(s->measure_end_ns - s->measure_start_ns);
    for (uint32_t k = 0; k < s->cores * 2; k++)
        r->inflight[k] = span > 0 ? s->inflight_snapshot[k] / span : 0;
    for (uint32_t c = 0; c < s->cores; c++)
        for (int q = 0; q < Q_COUNT; q++) {
            double v = span > 0 ? s->queue_snapshot[c * Q_COUNT + q] / span : 0;
            r->queue_len[c * Q_COUNT + q] = v;
            r->queue_mean[q] += v / s->cores;
        }
    /* Totals over the whole run, warm-up and drain included. */
    r->injected = s->pre.injected + s->n.injected;
    r->delivered = s->pre.delivered + s->n.delivered;
    r->drop_rx_ring = s->pre.drop_rx_ring + s->n.drop_rx_ring;
    r->drop_nic_buffer = s->pre.drop_nic_buffer + s->n.drop_nic_buffer;
    r->drop_tx = s->pre.drop_tx + s->n.drop_tx;
    r->drop_oversize = s->pre.drop_oversize + s->n.drop_oversize;
    r->dropped = r->drop_rx_ring + r->drop_nic_buffer + r->drop_tx + r->drop_oversize;
    r->reordered = s->src.reordered;
    memcpy(r->trace_skipped, s->src.skipped, sizeof r->trace_skipped);
    r->measured_packets = n->delivered;
    r->warmup_packets = s->warmup_packets;
    r->warmup_settled = s->warmup_auto ? s->warmup_settled : 1;
    r->measured_seconds = span * 1e-9;
    r->sim_seconds = (double)s->end_ns * 1e-9;
    if (span > 0) {
        r->throughput_gbps = (double)n->delivered_bytes * 8.0 / span;
        r->mpps = (double)n->delivered * 1e3 / span;
    }
    r->latency_p50_us = pct(n->lat, 0.50) / 1000.0;
    r->latency_p99_us = pct(n->lat, 0.99) / 1000.0;
    r->latency_mean_us = n->delivered ? n->lat_sum_ns / (double)n->delivered / 1000.0 : 0;
    r->cache = s->cache_at_end;
    for (int q = 0; q < REQ_COUNT; q++) {
        r->mem_read_lines += r->cache.req[q].mem_reads;
        r->mem_write_lines += r->cache.req[q].mem_writebacks;
    }
    r->mem_write_lines += r->cache.flush_writebacks;
    if (n->delivered) {
        r->mem_read_bytes_per_pkt = (double)r->mem_read_lines * s->line_size / (double)n->delivered;
        r->mem_write_bytes_per_pkt = (double)r->mem_write_lines * s->line_size / (double)n->delivered;
    }
    if (span > 0)
        r->mem_gbps = (double)(r->mem_read_lines + r->mem_write_lines) * s->line_size / span;
    hier_occupancy(&s->h, r->occupancy);
}

static void teardown(dsim *s)
{
    if (s->core)
        for (uint32_t c = 0; c < s->cores; c++) {
            dsim_core *cs = &s->core[c];
            ring_free(&cs->rx_posted);
            ring_free(&cs->rx_done);
            ring_free(&cs->tx_pending);
            ring_free(&cs->tx_done);
            ring_free(&cs->swq);
            ring_free(&cs->send_req);
            free(cs->hold_len);
            free(cs->hold_at);
            free(cs->rx_wqe_set);
            free(cs->rx_cq_set);
            free(cs->tx_wqe_set);
            free(cs->tx_cq_set);
            free(cs->drv_bufs);
        }
    free(s->core);
    free(s->buf_len);
    free(s->buf_arrival);
    free(s->line_hints);
    free(s->hdr_set);
    free(s->flow_queue);
    free(s->rec_queue);
    free(s->buf_data);
    free(s->ops);
    free(s->memo_at);
    free(s->memo_n);
    free(s->memo_ops);
    free(s->queue_snapshot);
    free(s->inflight_snapshot);
    pktsrc_close(&s->src);
    evq_free(&s->q);
    mempool_free(&s->mp);
    hier_free(&s->h);
}

/* The run ended before the warm-up did: why, in one line. */
static int warmup_unfinished(const dsim *s, ddio_err *e)
{
    if (s->rx_total == 0 && s->n.drop_oversize)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "no packet was received: all %llu were larger than the data room (%u B; "
                         "workload.driver.data_room)",
                         (unsigned long long)s->n.drop_oversize, s->data_room);
    if (s->warmup_auto)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "the run ended during warm-up (%llu packets received, none after half the packets were "
                         "injected; %llu dropped as larger than the data room): simulate more packets (--packets)",
                         (unsigned long long)s->rx_total, (unsigned long long)s->n.drop_oversize);
    return ddio_errf(e, DDIO_EXIT_USAGE,
                     "the run ended during warm-up (%llu of the %llu received packets --warmup asks for, %llu "
                     "dropped as larger than the data room): simulate more packets (--packets)",
                     (unsigned long long)s->rx_total, (unsigned long long)s->warmup_target,
                     (unsigned long long)s->n.drop_oversize);
}

/* The warm-up ended, but no packet was delivered between its end and the
 * last arrival (the measured interval): every rate would be 0 / 0 and the
 * interval's length negative.  Why, in one line. */
static int nothing_measured(const dsim *s, ddio_err *e)
{
    return ddio_errf(e, DDIO_EXIT_USAGE,
                     "nothing was measured: the warm-up (%llu packets received) ended %s the last of the %llu "
                     "packets injected arrived; simulate more packets (--packets) or warm up fewer (--warmup)",
                     (unsigned long long)s->warmup_packets,
                     s->measure_end_ns < s->measure_start_ns ? "after" : "as",
                     (unsigned long long)(s->pre.injected + s->n.injected));
}

int dsim_run(const ddio_config *cfg, const dsim_options *opt, dsim_result *out, ddio_err *e)
{
    memset(out, 0, sizeof *out);
    if (opt->trace_out)
        memset(opt->trace_out, 0, sizeof *opt->trace_out);
    dsim *s = calloc(1, sizeof *s);
    if (!s)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    s->cfg = cfg;
    s->opt = opt;
    s->err = e;
    s->cores = cfg->workload.cores;
    double t0 = wall_now(opt);
    int rc = setup(s, e);
    const pktsrc_pkt *next = NULL;
    if (rc == 0) {
        int first = pktsrc_next_ref(&s->src, &next, e);
        if (first < 0)
            rc = -1;
        else if (first == 0)
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "no packets to simulate");
        else if (next->ts_ns >= DSIM_MAX_NS)
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "the first packet arrives after %llu ns", (unsigned long long)DSIM_MAX_NS);
        else
            dsim_push_arrival(s, next->ts_ns);
    }
    if (rc == 0 && s->distract_lines)
        dsim_push(s, 0, EV_DISTRACTOR, 0, 0, 0);
    if (rc == 0 && opt->timeline) {
        fprintf(opt->timeline, "time_us");
        for (int k = 0; k < Q_COUNT; k++)
            fprintf(opt->timeline, ",%s", lqueue_name((enum lqueue)k));
        fprintf(opt->timeline, ",pcie_write_hit_frac,pcie_read_hit_frac,delivered,dropped\n");
        dsim_push(s, 0, EV_TIMELINE, 0, 0, 0);
    }
    double next_report = t0 + opt->progress_after_s;
    const sim_event *ev;
    uint64_t events = 0, end_ns = 0;   /* s->end_ns, in a register while the loop runs */
    const int progress = opt->progress != NULL;   /* read once: the loop runs per event */
    while (rc == 0 && !s->failed && (ev = evq_pop_ref(&s->q)) != NULL) {
        /* The run ends with its last event but an observer's: a timeline
         * sample due after the drain must not lengthen sim_seconds (its
         * type read now: a handler's push may reuse the event's slot). */
        int observer = ev->type == EV_TIMELINE;
        dispatch(s, ev, &next);
        if (!observer)
            end_ns = evq_now(&s->q);
        if (progress && (++events & 0xFFFF) == 0 && wall_now(opt) > next_report) {
            next_report = wall_now(opt) + 0.25;
            opt->progress(opt->progress_ctx, s->src.expected ? (double)s->src.produced / (double)s->src.expected : 0.0);
        }
    }
    s->end_ns = end_ns;
    if (s->failed)
        rc = -1;
    if (rc == 0 && !s->measuring)
        rc = warmup_unfinished(s, e);
    if (rc == 0 && (s->measure_end_ns <= s->measure_start_ns || s->at_end.delivered == 0))
        rc = nothing_measured(s, e);
    if (rc == 0)
        rc = check_conservation(s, e);
    if (rc == 0) {
        results(s, out);
        out->wall_seconds = wall_now(opt) - t0;
        out->sim_mpps = out->wall_seconds > 0 ? (double)s->src.produced / out->wall_seconds / 1e6 : 0;
        if (opt->trace_out)
            pktsrc_keep_trace(&s->src, opt->trace_out);
    }
    teardown(s);
    free(s);
    return rc;
}

void dsim_result_free(dsim_result *r)
{
    free(r->queue_len);
    free(r->inflight);
    r->queue_len = NULL;
    r->inflight = NULL;
}
