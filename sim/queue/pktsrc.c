/* pktsrc.c - the packets a simulation injects (pktsrc.h): a trace or the
 * generator, retimed to the offered rate and looped. */
#include "sim/queue/pktsrc.h"

#include "sim/queue/u63.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The union of pktsrc_pkt keeps it at 32 bytes and pktsrc_rec too. */
_Static_assert(sizeof(pktsrc_pkt) == 32 && sizeof(pktsrc_rec) == 32, "a packet is half a cache line");

/* What the simulator reads of a trace packet (an IPv6 packet's addresses
 * aside: keep_ip6, next_streamed). */
static pktsrc_rec rec_of(const trace_pkt *p)
{
    return (pktsrc_rec){.ts_ns = p->ts_ns, .wire_len = p->wire_len, .src_ip = p->src_ip, .dst_ip = p->dst_ip,
                        .src_port = p->src_port, .dst_port = p->dst_port, .proto = p->proto,
                        .has_tuple = p->has_tuple, .ipv6 = p->ipv6};
}

/* src then dst address of an IPv6 packet, as pktsrc_pkt.ip6 points at them. */
static void copy_ip6(uint8_t out[32], const trace_pkt *p)
{
    memcpy(out, p->src6, 16);
    memcpy(out + 16, p->dst6, 16);
}

/* Append the addresses of IPv6 packet p to s->mem6, its index in *idx.
 * -1 when out of memory. */
static int keep_ip6(pktsrc *s, const trace_pkt *p, uint32_t *idx)
{
    if (s->mem6_n == s->mem6_cap) {
        uint64_t ncap = s->mem6_cap ? s->mem6_cap * 2 : 256;
        uint8_t(*m)[32] = realloc(s->mem6, ncap * sizeof *m);
        if (!m)
            return -1;
        s->mem6 = m;
        s->mem6_cap = ncap;
    }
    copy_ip6(s->mem6[s->mem6_n], p);
    *idx = (uint32_t)s->mem6_n++;
    return 0;
}

/* Stop holding the trace in memory: it will be streamed (or the source
 * is closed). */
static void drop_mem(pktsrc *s)
{
    if (!s->mem_lent) {
        free(s->mem);
        free(s->mem6);
    }
    s->mem_lent = 0;
    s->mem = NULL;
    s->mem6 = NULL;
    s->mem6_n = s->mem6_cap = 0;
}

/* Keep packet p as the n-th of s->mem, growing it; past
 * s->mem_max packets (or out of memory) the array is dropped and
 * the trace will be streamed.  Allocation failure is not an error: the
 * stream gives the same packets. */
static void keep_packet(pktsrc *s, uint64_t n, uint64_t *cap, const trace_pkt *p)
{
    if (n == 0)
        *cap = 0;
    else if (!s->mem)
        return;   /* already streaming */
    if (n == *cap) {
        uint64_t ncap = *cap ? *cap * 2 : 4096;
        if (ncap > s->mem_max)
            ncap = s->mem_max;
        pktsrc_rec *m = n < ncap ? realloc(s->mem, ncap * sizeof *m) : NULL;
        if (!m) {
            drop_mem(s);
            return;
        }
        s->mem = m;
        *cap = ncap;
    }
    s->mem[n] = rec_of(p);
    if (p->ipv6 && keep_ip6(s, p, &s->mem[n].ip6) != 0)
        drop_mem(s);
}

/* One pass over a trace for its packet count (*pkts), bytes and duration
 * (s->trace_bytes, s->trace_dur_ns): what a requested offered rate is
 * scaled against; its packets kept in s->mem when they fit.  `held_only`
 * (pktsrc_trace_load): stop where they no longer fit, the pass's figures
 * then incomplete (s->mem NULL). */
static int trace_profile(pktsrc *s, const char *path, int held_only, uint64_t *pkts, ddio_err *e)
{
    trace_reader r;
    if (trace_spool_reader(s->spool, &r, path, s->keep_all, e) != 0)
        return -1;
    trace_pkt p;
    int rc;
    uint64_t first = 0, last = 0, n = 0, cap = 0;
    double b = 0;
    while ((rc = trace_reader_next(&r, &p, e)) == 1) {
        if (!n)
            first = p.ts_ns;
        last = p.ts_ns;
        b += p.wire_len;
        keep_packet(s, n, &cap, &p);
        n++;
        if (held_only && !s->mem)
            break;
    }
    s->reordered = r.reordered;
    for (int c = 1; c < TRACE_NCLASSES && !s->keep_all; c++)
        s->skipped[c] = r.count[c];
    trace_reader_close(&r);
    if (rc < 0)
        return -1;
    s->mem_n = s->mem ? n : 0;
    if (!n)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no usable packets (IPv4 or IPv6 TCP/UDP; --all keeps every packet)",
                         path);
    *pkts = n;
    s->trace_bytes = b;
    s->trace_dur_ns = last > first ? (double)(last - first) : 0.0;
    return 0;
}

/* A trace source's settings from src (src->trace set). */
static void trace_setup(pktsrc *s, const dsim_source *src)
{
    s->is_trace = 1;
    s->path = src->trace;
    s->spool = src->spool;
    s->keep_all = src->keep_all;
    s->mem_max = src->trace_mem_max ? src->trace_mem_max : PKTSRC_TRACE_MEM_MAX;
}

/* What trace_profile would find, from a trace parsed already (t fits s's
 * source): its packets lent to s, read only. */
static void lend_trace(pktsrc *s, const pktsrc_trace *t, uint64_t *pkts)
{
    assert(t->mem && t->mem_n > 0 && t->mem_n <= s->mem_max);
    s->mem = t->mem;   /* not written: only keep_packet writes, in the pass this skips */
    s->mem6 = t->mem6;
    s->mem_n = t->mem_n;
    s->mem6_n = s->mem6_cap = t->mem6_n;
    s->mem_lent = 1;
    s->reordered = t->reordered;
    memcpy(s->skipped, t->skipped, sizeof s->skipped);
    s->trace_bytes = t->bytes;
    s->trace_dur_ns = t->dur_ns;
    *pkts = t->mem_n;
}

int pktsrc_open(pktsrc *s, const dsim_source *src, uint64_t packets, double rate_gbps, double line_gbps,
                uint32_t pkt_size, uint64_t seed, ddio_err *e)
{
    const char *trace = src->trace, *profile = src->profile;
    int keep_all = src->keep_all;
    memset(s, 0, sizeof *s);
    s->limit = packets;
    s->pkt_size = pkt_size;
    s->line_gbps = line_gbps;
    s->rate_gbps = rate_gbps;
    s->scale = 1.0;
    s->keep_all = keep_all;
    if (trace) {
        trace_setup(s, src);
        uint64_t n = 0;
        if (src->parsed && src->parsed->mem && pktsrc_trace_fits(src->parsed, src)) {
            lend_trace(s, src->parsed, &n);
        } else if (trace_profile(s, trace, 0, &n, e) != 0) {
            pktsrc_close(s);
            return -1;
        }
        const double bytes = s->trace_bytes, dur = s->trace_dur_ns;
        double mean_len = pkt_size ? (double)pkt_size : bytes / (double)n;
        if (rate_gbps > 0 && dur > 0) {
            /* Scale so that n frames of mean_len bytes span the time the
             * target rate needs for them. */
            double target_ns = (double)(n - 1) * mean_len * 8.0 / rate_gbps;
            s->scale = target_ns / dur;
        }
        s->mean_gap_ns = n > 1 ? dur * s->scale / (double)(n - 1) : 0.0;
        s->expected = packets ? packets : n;
        if (rate_gbps > 0 && dur <= 0)
            s->mean_gap_ns = mean_len * 8.0 / rate_gbps;
        if (s->mem)
            return 0;
        return trace_spool_reader(s->spool, &s->tr, trace, keep_all, e);
    }
    gen_config_default(&s->gc);
    if (gen_parse_profile(profile ? profile : "mawi", &s->gc, "--profile", e) != 0)
        return -1;
    s->gc.packets = packets ? packets : PKTSRC_DEFAULT_PACKETS;
    s->limit = s->gc.packets;
    s->expected = s->limit;
    s->gc.seed = seed;
    s->gc.flows = src->flows;
    s->gc.flow_burst = src->flow_burst;
    s->gc.threads = src->gen_threads;
    s->gc.random_tuples = src->random_tuples;
    if (rate_gbps > 0)
        s->gc.rate_gbps = rate_gbps;
    /* The offered rate counts the frames the simulator sees, as for a trace:
     * with every frame forced to pkt_size, the profile's arrival process is
     * kept and sped up or slowed down by mean size / pkt_size. */
    if (pkt_size)
        s->gc.rate_gbps *= gen_mean_size(&s->gc) / (double)pkt_size;
    s->gc.snaplen = 128;   /* the headers are all the simulator reads */
    return gen_init(&s->g, &s->gc, e);
}

/* Another pass over the trace begins: its times follow the last one's. */
static void new_pass(pktsrc *s)
{
    s->pass_offset_ns += s->last_raw_ns + s->mean_gap_ns;
    s->have_first = 0;
    s->passes++;
}

/* The next trace packet from the stream, starting another pass at the end
 * if more are wanted. */
static int next_streamed(pktsrc *s, pktsrc_rec *r, ddio_err *e)
{
    trace_pkt tp;
    int rc = trace_reader_next(&s->tr, &tp, e);
    if (rc == 0 && s->limit != 0) {
        /* End of the trace but more packets wanted: start another pass. */
        trace_reader_close(&s->tr);
        if (trace_spool_reader(s->spool, &s->tr, s->path, s->keep_all, e) != 0)
            return -1;
        new_pass(s);
        rc = trace_reader_next(&s->tr, &tp, e);
    }
    if (rc == 1) {
        *r = rec_of(&tp);
        if (tp.ipv6)
            copy_ip6(s->tip6, &tp);
    }
    return rc;
}

/* The next trace packet, from memory when the trace is held (the same
 * packets and passes as the stream), else from the stream. */
static int next_trace(pktsrc *s, const pktsrc_rec **r, pktsrc_rec *buf, ddio_err *e)
{
    if (!s->mem) {
        *r = buf;
        return next_streamed(s, buf, e);
    }
    if (s->mem_pos == s->mem_n) {
        if (s->limit == 0)
            return 0;
        new_pass(s);
        s->mem_pos = 0;
    }
    *r = &s->mem[s->mem_pos++];
    return 1;
}

/* A packet's length and arrival time from its source timestamp ts (trace
 * or generator time) and frame length. */
static inline void place(pktsrc *s, pktsrc_pkt *p, uint64_t ts, uint32_t wire_len)
{
    if (!s->have_first) {
        s->first_ts = ts;
        s->have_first = 1;
    }
    uint32_t len = s->pkt_size ? s->pkt_size : wire_len;
    assert(ts >= s->first_ts);   /* the trace reader clamps timestamps that go back */
    double raw = (double)(ts - s->first_ts) * s->scale;
    s->last_raw_ns = raw;
    double t = s->pass_offset_ns + raw;
    if (s->rate_gbps < 0)
        t = 0;   /* back to back: the wire decides */
    if (s->placed) {
        double earliest = s->last_arrival_ns + (double)(s->last_len + PKTSRC_WIRE_OVERHEAD) * 8.0 / s->line_gbps;
        if (t < earliest)
            t = earliest;
    }
    s->last_arrival_ns = t;
    s->last_len = len;
    s->placed++;
    p->ts_ns = (uint64_t)(t + 0.5);
    p->len = len;
}

/* The next PKTSRC_BATCH generated packets, placed: the tuple straight from
 * the generator, not parsed back from a frame (the same fields:
 * gen_next_meta); no timestamps when sending back to back, which ignores
 * them.  A batch keeps the generator's state in registers
 * (gen_next_meta_batch) and the placement in one loop. */
static uint32_t generate(pktsrc *s)
{
    gen_pkt gp[PKTSRC_BATCH];
    gen_meta m[PKTSRC_BATCH];
    uint32_t n = gen_next_meta_batch(&s->g, gp, m, PKTSRC_BATCH, s->rate_gbps < 0);
    uint8_t has_tuple = !s->g.no_tuple;
    if (!has_tuple && s->rate_gbps < 0) {
        /* Back to back, the tuple all zeros (gen_set_no_tuple): place()
         * with t = 0, the previous arrival and length in registers (the
         * source timestamps and the pass offset only matter for traces). */
        double last = s->last_arrival_ns;
        uint32_t last_len = s->last_len;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t len = s->pkt_size ? s->pkt_size : gp[i].len;
            double t = 0;
            if (s->placed + i) {
                double earliest = last + (double)(last_len + PKTSRC_WIRE_OVERHEAD) * 8.0 / s->line_gbps;
                if (t < earliest)
                    t = earliest;
            }
            last = t;
            last_len = len;
            s->gbuf[i] = (pktsrc_pkt){.ts_ns = u63_from_double(t + 0.5), .len = len, .has_flow = 1, .flow = gp[i].flow};
        }
        s->have_first = 1;
        s->last_arrival_ns = last;
        s->last_len = last_len;
        s->placed += n;
        return n;
    }
    if (!has_tuple) {
        /* The tuple is all zeros (gen_set_no_tuple): written as such. */
        for (uint32_t i = 0; i < n; i++) {
            pktsrc_pkt *p = &s->gbuf[i];
            *p = (pktsrc_pkt){.has_flow = 1, .flow = gp[i].flow};
            place(s, p, gp[i].ts_ns, gp[i].len);
        }
        return n;
    }
    for (uint32_t i = 0; i < n; i++) {
        pktsrc_pkt *p = &s->gbuf[i];
        place(s, p, gp[i].ts_ns, gp[i].len);
        p->src_ip = m[i].src_ip;
        p->dst_ip = m[i].dst_ip;
        p->src_port = m[i].src_port;
        p->dst_port = m[i].dst_port;
        p->proto = m[i].proto;
        p->has_tuple = has_tuple;
        p->has_flow = 1;
        p->flow = gp[i].flow;
    }
    return n;
}

void pktsrc_skip_tuple(pktsrc *s)
{
    if (s->is_trace)
        return;
    gen_set_no_tuple(&s->g, 1);
    /* Remember per flow whether it is TCP (a byte per flow, up to 1 MiB;
     * without it, two hashes per packet). */
    if (!s->tcp_cache && s->g.flows <= PKTSRC_TCP_CACHE_MAX && (s->tcp_cache = calloc(s->g.flows, 1)) != NULL)
        gen_set_tcp_cache(&s->g, s->tcp_cache);
}

/* Trace record `tp` (the one next_trace just handed out) as packet `p`,
 * placed. */
static void trace_packet(pktsrc *s, pktsrc_pkt *p, const pktsrc_rec *tp)
{
    place(s, p, tp->ts_ns, tp->wire_len);
    if (tp->ipv6) {
        p->ip6 = s->mem ? s->mem6[tp->ip6] : s->tip6;
    } else {
        p->src_ip = tp->src_ip;
        p->dst_ip = tp->dst_ip;
    }
    p->ipv6 = tp->ipv6;
    p->src_port = tp->src_port;
    p->dst_port = tp->dst_port;
    p->proto = tp->proto;
    p->has_tuple = tp->has_tuple;
    p->has_flow = 0;
    p->flow = s->mem ? (uint32_t)s->mem_pos : 0;   /* 1 + the record's index (mem_pos is past it) */
}

/* The next packets of a trace held in memory, placed, into gbuf: those the
 * calls one packet at a time would hand out (at most PKTSRC_BATCH and the
 * limit's rest, so that no pass starts early), in their order.  Returns
 * how many (0: the trace ended). */
static uint32_t trace_batch(pktsrc *s)
{
    assert(s->mem);
    uint32_t n = PKTSRC_BATCH;
    if (s->limit && s->limit - s->produced < n)
        n = (uint32_t)(s->limit - s->produced);
    uint32_t i = 0;
    for (; i < n; i++) {
        const pktsrc_rec *tp;
        if (next_trace(s, &tp, NULL, NULL) <= 0)   /* memory: no error */
            break;
        trace_packet(s, &s->gbuf[i], tp);
    }
    return i;
}

int pktsrc_next_ref_slow(pktsrc *s, const pktsrc_pkt **pp, ddio_err *e)
{
    if (s->limit && s->produced >= s->limit)
        return 0;
    if (!s->is_trace || s->mem) {
        /* A batch (generated, or a trace held in memory) handed out by
         * pktsrc_next_ref. */
        if (s->gpos == s->gcount) {
            s->gcount = s->is_trace ? trace_batch(s) : generate(s);
            s->gpos = 0;
            if (!s->gcount)
                return 0;
        }
        *pp = &s->gbuf[s->gpos++];
        s->produced++;
        return 1;
    }
    pktsrc_pkt *p = &s->tpkt;
    *pp = p;
    pktsrc_rec buf = {0};
    const pktsrc_rec *tp;
    int rc = next_trace(s, &tp, &buf, e);
    if (rc <= 0)
        return rc;
    trace_packet(s, p, tp);
    s->produced++;
    return 1;
}

int pktsrc_keep_trace(pktsrc *s, pktsrc_trace *t)
{
    memset(t, 0, sizeof *t);
    if (!s->is_trace || !s->mem || s->mem_lent)
        return 0;
    t->mem = s->mem;
    t->mem6 = s->mem6;
    t->mem_n = s->mem_n;
    t->mem6_n = s->mem6_n;
    t->bytes = s->trace_bytes;
    t->dur_ns = s->trace_dur_ns;
    t->reordered = s->reordered;
    memcpy(t->skipped, s->skipped, sizeof t->skipped);
    t->path = s->path;
    t->spool = s->spool;
    t->keep_all = s->keep_all;
    t->mem_max = s->mem_max;
    s->mem_lent = 1;   /* t's now: pktsrc_close leaves them */
    return 1;
}

int pktsrc_trace_load(pktsrc_trace *t, const dsim_source *src, ddio_err *e)
{
    memset(t, 0, sizeof *t);
    if (!src->trace)
        return 0;
    pktsrc *s = calloc(1, sizeof *s);
    if (!s)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    trace_setup(s, src);
    uint64_t n = 0;
    const int rc = trace_profile(s, src->trace, 1, &n, e);
    if (rc == 0 && s->mem)
        pktsrc_keep_trace(s, t);
    pktsrc_close(s);
    free(s);
    return rc;
}

int pktsrc_trace_fits(const pktsrc_trace *t, const dsim_source *src)
{
    const uint64_t mem_max = src->trace_mem_max ? src->trace_mem_max : PKTSRC_TRACE_MEM_MAX;
    return src->trace && t->path && strcmp(t->path, src->trace) == 0 && t->spool == src->spool &&
           t->keep_all == src->keep_all && t->mem_max == mem_max;
}

void pktsrc_trace_free(pktsrc_trace *t)
{
    free(t->mem);
    free(t->mem6);
    memset(t, 0, sizeof *t);
}

void pktsrc_close(pktsrc *s)
{
    if (s->is_trace && s->tr.pcap)
        trace_reader_close(&s->tr);
    drop_mem(s);
    free(s->tcp_cache);
    s->tcp_cache = NULL;
}
