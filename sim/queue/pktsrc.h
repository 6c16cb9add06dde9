/* pktsrc.h - the packets a simulation injects: a pcap/pcapng trace or the
 * generator, retimed to the requested offered rate, looped when the run asks
 * for more packets than the trace holds.  A trace is parsed once: the pass
 * that measures it (its packets, bytes and duration) keeps what the
 * simulator reads of each packet in a compact array, which the run loops
 * over; a trace of more than PKTSRC_TRACE_MEM_MAX packets is streamed from
 * the file instead, a pass at a time, so memory stays bounded.  The held
 * packets outlive their source when kept (pktsrc_keep_trace,
 * pktsrc_trace_load) and are lent to later sources of the same trace
 * (dsim_source.parsed), which then skip the pass.
 *
 * Timing: `rate_gbps` 0 keeps the trace's own inter-arrival times, > 0
 * scales them so the mean offered rate (frame bytes) is that many Gb/s, < 0
 * sends back to back at line rate.  In every case a frame cannot start
 * before the previous one has left the wire: arrival >= previous arrival +
 * (len + 24 B of FCS, preamble and inter-frame gap) x 8 / line rate. */
#ifndef DDIOSIM_QUEUE_PKTSRC_H
#define DDIOSIM_QUEUE_PKTSRC_H

#include <stdint.h>

#include "sim/common/err.h"
#include "traces/gen.h"
#include "traces/pcap.h"
#include "traces/rss.h"
#include "traces/spool.h"

#define PKTSRC_WIRE_OVERHEAD 24u   /* FCS 4 + preamble 8 + inter-frame gap 12 */
#define PKTSRC_DEFAULT_PACKETS 100000u   /* a profile's packets when the run gives none */
#define PKTSRC_BATCH 64u           /* generated packets drawn at once */
#define PKTSRC_TCP_CACHE_MAX (1u << 20)   /* most flows whose TCP bit is remembered */
#define PKTSRC_TRACE_MEM_MAX (1u << 21)   /* most trace packets held in memory (64 MiB, +32 B per IPv6 one) */

/* A trace packet as held in memory: what place() and the RSS read. */
typedef struct pktsrc_rec {
    uint64_t ts_ns;         /* capture timestamp, as the reader returns it (clamped) */
    uint32_t wire_len;
    uint32_t src_ip, dst_ip;
    uint16_t src_port, dst_port;
    uint8_t proto, has_tuple;
    uint8_t ipv6;           /* 1: its addresses are pktsrc.mem6[ip6] (held) or pktsrc.tip6 (streamed) */
    uint32_t ip6;
} pktsrc_rec;

typedef struct pktsrc_pkt {
    uint64_t ts_ns;         /* arrival at the NIC, from 0 */
    /* IPv4 addresses, or for IPv6 a pointer to the source then destination
     * address (32 bytes, network order, valid until the next packet): a
     * union, so that the packet stays 32 bytes, as the generator's batches
     * want it. */
    union {
        struct {
            uint32_t src_ip, dst_ip;
        };
        const uint8_t *ip6;
    };
    uint32_t len;           /* frame bytes (no FCS): what the NIC DMAs */
    uint16_t src_port, dst_port;
    uint8_t proto, has_tuple;
    uint8_t has_flow;       /* generated: `flow` is the generator's flow index (gen_flow_meta) */
    uint8_t ipv6;           /* 1: the addresses are ip6 (a trace's IPv6 packet) */
    /* has_flow: the generator's flow; else a trace packet held in memory:
     * 1 + its index there (the same record every pass, so a pure function
     * of it can be remembered per record); 0: streamed. */
    uint32_t flow;
} pktsrc_pkt;

/* The RSS hash a NIC computes for p (has_tuple set): over the addresses and
 * ports for TCP and UDP, the addresses alone otherwise. */
static inline uint32_t pktsrc_rss_hash(const rss *r, const pktsrc_pkt *p)
{
    int l4 = p->proto == 6 || p->proto == 17;
    if (p->ipv6)
        return l4 ? rss_hash_ipv6_l4(r, p->ip6, p->ip6 + 16, p->src_port, p->dst_port)
                  : rss_hash_ipv6(r, p->ip6, p->ip6 + 16);
    return l4 ? rss_hash_ipv4_l4(r, p->src_ip, p->dst_ip, p->src_port, p->dst_port)
              : rss_hash_ipv4(r, p->src_ip, p->dst_ip);
}

struct pktsrc_trace;

/* Where packets come from. */
typedef struct dsim_source {
    const char *trace;          /* pcap/pcapng path, or NULL for the generator */
    const trace_spool *spool;   /* NULL, or the trace when it is a pipe (trace_spool_open: read once) */
    const char *profile;        /* generator profile ("fixed:1500", "imix", "mawi") when trace is NULL */
    uint32_t flows;             /* generator flows (0: profile default) */
    uint32_t flow_burst;        /* generator: packets of a flow in a row (0, 1: none; gen_config) */
    uint32_t gen_threads;       /* generator threads interleaving their flows (0, 1: one) */
    int random_tuples;          /* generator: hashed 5-tuples instead of port ranges (gen_config) */
    int keep_all;               /* trace: keep non-TCP/UDP packets too */
    uint64_t trace_mem_max;     /* trace: most packets held in memory (0: PKTSRC_TRACE_MEM_MAX; tests
                                   stream a small trace with 1) */
    /* NULL, or `trace` parsed already (pktsrc_keep_trace of an earlier
     * source of the same trace, spool, keep_all and trace_mem_max):
     * pktsrc_open then reads its held packets instead of the file. */
    const struct pktsrc_trace *parsed;
} dsim_source;

/* A trace's packets as a source holding them in memory parsed them, with
 * what the parsing pass measured, kept after that source is closed
 * (pktsrc_keep_trace) so that a later source of the same trace reads them
 * instead of the file (dsim_source.parsed): the simulator's run and the
 * model's traffic of one `simulate`.  Read only once kept; the caller
 * owns it and frees it with pktsrc_trace_free. */
typedef struct pktsrc_trace {
    pktsrc_rec *mem;            /* the packets (pktsrc.mem), NULL: nothing kept */
    uint8_t (*mem6)[32];        /* their IPv6 addresses (pktsrc.mem6) */
    uint64_t mem_n, mem6_n;
    double bytes, dur_ns;       /* the pass's wire bytes and first-to-last time */
    uint64_t reordered;         /* the pass's pktsrc.reordered and .skipped */
    uint64_t skipped[TRACE_NCLASSES];
    /* What it was parsed as (pktsrc_trace_fits): the source's own path
     * string and spool, borrowed (they outlive the parse at every caller). */
    const char *path;
    const trace_spool *spool;
    int keep_all;
    uint64_t mem_max;
} pktsrc_trace;

typedef struct pktsrc {
    int is_trace;
    const char *path;
    const trace_spool *spool;
    int keep_all;
    trace_reader tr;            /* a streamed trace's reader (mem is NULL) */
    pktsrc_rec *mem;            /* the trace's packets, or NULL when it is streamed */
    uint8_t (*mem6)[32];        /* with mem: the addresses of its IPv6 packets (pktsrc_rec.ip6) */
    uint64_t mem6_n, mem6_cap;
    uint8_t tip6[32];           /* a streamed trace: the addresses of its current IPv6 packet */
    uint64_t mem_n, mem_pos;    /* packets in mem, the next one */
    uint64_t mem_max;           /* past this many packets the trace is streamed */
    int mem_lent;               /* 1: mem and mem6 belong to a pktsrc_trace (not freed here) */
    double trace_bytes, trace_dur_ns;   /* a trace: its wire bytes and first-to-last time (the parsing pass's) */
    gen g;
    gen_config gc;
    uint64_t limit, produced;   /* packets to produce (0 = until the trace ends), handed out */
    uint64_t placed;            /* packets timed (generated ones are timed a batch ahead) */
    uint64_t expected;          /* packets this source will produce (the trace's count when limit is 0) */
    uint32_t pkt_size;          /* 0 or a forced frame size */
    double line_gbps, rate_gbps;
    double scale;               /* trace time -> simulated time */
    int have_first;
    uint64_t first_ts;          /* first timestamp of the current pass */
    double pass_offset_ns;      /* where the current pass starts in simulated time */
    double last_raw_ns;         /* last scaled timestamp of this pass, from its start */
    double last_arrival_ns;     /* previous arrival */
    uint32_t last_len;
    double mean_gap_ns;         /* gap between two passes */
    uint64_t passes;
    uint64_t reordered;         /* a trace: its packets stamped before the previous one, per pass
                                   (clamped by the reader: trace_reader_next) */
    uint64_t skipped[TRACE_NCLASSES];   /* a trace: its records per class the filter left out, per
                                           pass (all 0 with keep_all; [TRACE_OK] is always 0) */
    /* Generated packets not yet handed out: gbuf[gpos .. gcount). */
    uint32_t gpos, gcount;
    uint8_t *tcp_cache;         /* pktsrc_skip_tuple: the generator's per-flow TCP bits */
    pktsrc_pkt gbuf[PKTSRC_BATCH];
    pktsrc_pkt tpkt;            /* the trace packet pktsrc_next_ref points at */
} pktsrc;

/* src->trace a path or NULL; src->profile for the generator when trace is
 * NULL, with its flows, bursts and threads. */
int pktsrc_open(pktsrc *s, const dsim_source *src, uint64_t packets, double rate_gbps, double line_gbps,
                uint32_t pkt_size, uint64_t seed, ddio_err *e);
/* 1: *p filled; 0: done; -1: corrupt trace (e says which packet). */
/* The packets need no 5-tuple (one core: RSS is not asked); generated
 * packets then come without it (has_tuple 0), a trace's as before.  Call
 * it before the first pktsrc_next (packets are generated in batches). */
void pktsrc_skip_tuple(pktsrc *s);
int pktsrc_next_ref_slow(pktsrc *s, const pktsrc_pkt **pp, ddio_err *e);
/* pktsrc_next without the copy: *pp points at the packet, valid until the
 * next call.  Inline: a generated packet is usually waiting in the batch. */
static inline int pktsrc_next_ref(pktsrc *s, const pktsrc_pkt **pp, ddio_err *e)
{
    if (s->gpos < s->gcount && (!s->limit || s->produced < s->limit)) {
        *pp = &s->gbuf[s->gpos++];
        s->produced++;
        return 1;
    }
    return pktsrc_next_ref_slow(s, pp, e);
}
static inline int pktsrc_next(pktsrc *s, pktsrc_pkt *p, ddio_err *e)
{
    const pktsrc_pkt *q;
    int rc = pktsrc_next_ref(s, &q, e);
    if (rc == 1)
        *p = *q;
    return rc;
}
void pktsrc_close(pktsrc *s);

/* Keep s's trace packets past pktsrc_close(s) in *t (zeroed first), when s
 * holds them in memory: returns 1, and t then owns them; else 0 (a
 * generator, a streamed trace, or packets s itself was lent).  Call
 * before pktsrc_close(s). */
int pktsrc_keep_trace(pktsrc *s, pktsrc_trace *t);
/* Parse src's trace once into *t (zeroed first), as a source of src
 * would: 0, with t->mem NULL when the trace is too large to hold (the pass
 * stops there; a source streams it) or src is no trace; -1 and e set when
 * the trace cannot be read (nothing kept).  t borrows src->trace and
 * src->spool (pktsrc_trace.path, .spool): they must outlive it. */
int pktsrc_trace_load(pktsrc_trace *t, const dsim_source *src, ddio_err *e);
/* Is t (not NULL) what a source of `src` would parse: the same trace
 * path, spool, keep_all and memory bound? */
int pktsrc_trace_fits(const pktsrc_trace *t, const dsim_source *src);
void pktsrc_trace_free(pktsrc_trace *t);

#endif
