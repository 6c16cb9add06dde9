/* stats.h - summary of a packet trace: counts, sizes, flows, offered rate.
 *
 * Sizes are wire lengths (pkthdr.len).  Percentiles are exact: lengths are
 * counted per byte value up to TRACE_STATS_MAXLEN (a fixed 512 KiB table),
 * longer ones in one overflow cell reported as the maximum.  Distinct flows
 * are counted exactly with a hash set of 5-tuples per IP version: its
 * memory grows with the number of flows (16 B per slot for IPv4, 40 B for
 * IPv6, load <= 1/2), not with packets.
 *
 * The offered rate counts the packets that start in [first ts, last ts):
 * (bytes - last packet's bytes) * 8 / duration and (packets - 1) / duration,
 * which is exact for a constant-rate trace where duration alone would be
 * one gap short.  Zero when there are fewer than two packets or no
 * duration. */
#ifndef DDIOSIM_TRACES_STATS_H
#define DDIOSIM_TRACES_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"
#include "traces/pcap.h"

#define TRACE_STATS_MAXLEN 65535u

/* Size histogram bins, on pcap lengths (no FCS): the RMON/NIC counters'
 * edges (64, 128, ..., 1024-1518), then jumbo and larger. */
#define TRACE_NBINS 8
typedef struct trace_size_bin {
    uint32_t lo, hi;
} trace_size_bin;
extern const trace_size_bin trace_size_bins[TRACE_NBINS];

/* An open-addressing set of flow keys of `words` 64-bit words; a slot is
 * empty when its last word is 0 (keys set its bit 63). */
typedef struct trace_flowset {
    uint64_t *keys;
    size_t cap, n;
    unsigned words;
} trace_flowset;

typedef struct trace_stats {
    uint64_t packets, bytes, cap_bytes;
    uint64_t snap_truncated;        /* packets with caplen < len */
    uint64_t ts_min, ts_max;
    uint32_t len_at_max;            /* length of the (last) packet with ts_max */
    uint64_t out_of_order;          /* trace_stats_read: packets stamped before the previous one, which
                                       the reader clamped to its timestamp (trace_reader_next) */
    uint32_t min_len, max_len;
    uint64_t *len_count;            /* [TRACE_STATS_MAXLEN + 2]: per length, last cell = longer */
    uint64_t bins[TRACE_NBINS];
    uint64_t no_tuple;              /* packets counted without a 5-tuple (keep_all only) */
    trace_flowset flows4, flows6;   /* distinct IPv4 and IPv6 5-tuples */
    size_t flows;                   /* distinct 5-tuples, both versions */
    uint64_t ipv6;                  /* IPv6 packets counted (among `packets`) */
    /* Filled by trace_stats_read(): the reader's per-class counts. */
    uint64_t records;
    uint64_t count[TRACE_NCLASSES];
    int keep_all;
} trace_stats;

int trace_stats_init(trace_stats *s, ddio_err *e);
void trace_stats_free(trace_stats *s);
/* Account one packet (-1 only when the flow set cannot grow). */
int trace_stats_add(trace_stats *s, const trace_pkt *p, ddio_err *e);
/* Read a whole capture into *s (initialised here; free it even on error). */
int trace_stats_read(trace_stats *s, const char *path, int keep_all, ddio_err *e);

/* Nearest-rank percentile of the wire length: the smallest length L with at
 * least ceil(pct/100 * packets) packets <= L (pct in (0, 100]). 0 if empty. */
uint32_t trace_stats_percentile(const trace_stats *s, double pct);
double trace_stats_mean(const trace_stats *s);
double trace_stats_duration_s(const trace_stats *s);
/* Gb/s of frame bytes plus `overhead` bytes per packet (24 = FCS + preamble/SFD + IFG). */
double trace_stats_gbps(const trace_stats *s, uint32_t overhead);
double trace_stats_mpps(const trace_stats *s);
uint64_t trace_stats_skipped(const trace_stats *s);

#endif
