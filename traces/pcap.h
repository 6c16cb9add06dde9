/* pcap.h - streaming packet trace reader (libpcap) and classic pcap writer.
 *
 * The reader hands the simulator what it needs per packet - timestamp (ns),
 * wire length and 5-tuple (IPv4 or IPv6) - one record at a time, so memory
 * does not grow with the trace.  libpcap is opened with nanosecond precision, so
 * microsecond pcap, nanosecond pcap and pcapng all come out in ns.
 *
 * Sizes are pkthdr.len, the length on the network, never the captured
 * length: MAWI and other backbone captures are cut by a snap length and
 * the simulator must DMA the whole frame.
 *
 * By default only unfragmented IPv4 and IPv6 TCP/UDP packets are returned
 * (the filter of Wang, Xu, Wu, SIGMETRICS 2022 - MF clear and fragment
 * offset 0 - extended to IPv6, whose extension headers are walked:
 * traces/ip.h); every other record is counted under the reason it was
 * skipped.  With keep_all every record is
 * returned, classified, with the 5-tuple filled when it could be parsed. */
#ifndef DDIOSIM_TRACES_PCAP_H
#define DDIOSIM_TRACES_PCAP_H

#include <stdint.h>
#include <stdio.h>

#include "sim/common/err.h"
#include "sim/common/outfile.h"

/* Why a record is not an unfragmented IPv4/IPv6 TCP/UDP packet (TRACE_OK if it is). */
enum trace_class {
    TRACE_OK = 0,
    TRACE_NOT_IP,          /* neither IPv4 nor IPv6: ARP, LLDP, ..., or an IP version not 4 or 6 */
    TRACE_FRAGMENT,        /* IPv4: MF set or fragment offset != 0; IPv6: a fragment header, M set
                              or offset != 0 */
    TRACE_NOT_TCP_UDP,     /* ICMP, ICMPv6, GRE, ESP, ... */
    TRACE_TRUNCATED,       /* headers (link, IP, IPv6 extensions or the L4 ports) cut by the snap
                              length, or the ports beyond the IP length */
    TRACE_BAD_IPV4,        /* IHL < 5 or total length shorter than the header */
    TRACE_BAD_IPV6,        /* the extension headers do not fit the payload length */
    TRACE_NCLASSES
};

/* Short name of a class ("ok", "not_ip", "fragment", ...), used as JSON key. */
const char *trace_class_name(enum trace_class c);

typedef struct trace_pkt {
    uint64_t ts_ns;        /* capture timestamp, ns since the Unix epoch */
    uint32_t wire_len;     /* pkthdr.len: bytes on the network (no FCS in usual captures) */
    uint32_t cap_len;      /* pkthdr.caplen: bytes present in the file */
    uint32_t src_ip, dst_ip;     /* IPv4, host byte order (0 for IPv6) */
    uint16_t src_port, dst_port; /* 0 when the protocol has no ports */
    uint8_t proto;               /* IP protocol number (IPv6: the upper-layer next header) */
    uint8_t has_tuple;           /* 1 when the addresses, ports and proto were parsed */
    uint8_t ipv6;                /* 1: an IPv6 packet, its addresses in src6/dst6 */
    uint8_t src6[16], dst6[16];  /* IPv6, network byte order (unset for IPv4) */
    enum trace_class cls;
    const uint8_t *data;   /* cap_len bytes, valid until the next trace_reader_next() */
} trace_pkt;

typedef struct trace_reader {
    void *pcap;            /* pcap_t *, kept opaque so users need no libpcap headers */
    void *fast;            /* pcap_fast *: a classic pcap's plain records read without libpcap
                              (traces/pcap_fast.h), or NULL: libpcap reads them all */
    char *name;            /* file name, for error messages */
    int linktype;          /* DLT_* of the capture */
    int keep_all;
    uint64_t records;      /* records read so far (the K of an error is records + 1) */
    uint32_t rec_hdr;      /* classic pcap record header bytes; 0: pcapng, offsets from ftell() */
    uint64_t next_off;     /* byte offset where the next record starts (classic pcap) */
    uint64_t count[TRACE_NCLASSES];   /* records seen per class */
    uint64_t returned;     /* packets returned so far */
    uint64_t last_ts;      /* timestamp of the last record read (after clamping) */
    uint64_t reordered;    /* packets returned with the previous one's timestamp (trace_reader_next) */
} trace_reader;

/* Open `path` (pcap or pcapng; "-" is standard input).  Errors: unreadable
 * file (exit 1), not a capture or unsupported link type (exit 2). */
int trace_reader_open(trace_reader *r, const char *path, int keep_all, ddio_err *e);
/* trace_reader_open on a stream already open, named `path` in messages;
 * the reader owns f from then on (closed by trace_reader_close, or here
 * on error unless it is stdin). */
int trace_reader_open_stream(trace_reader *r, FILE *f, const char *path, int keep_all, ddio_err *e);
/* The first 4 bytes of a file are a classic pcap or pcapng magic. */
int trace_magic_known(const uint8_t m[4]);
/* 1: *p filled; 0: end of file; -1: corrupt or truncated record, reported as
 * "FILE: packet K at byte OFFSET: reason" (K 1-based, OFFSET where its record starts).
 * Timestamps never go back: a packet stamped before the record before it,
 * returned or skipped (a capture merged from several queues or ports, a clock
 * step), gets that record's timestamp and is counted in `reordered`, so that every reader of
 * a trace (simulate, predict, trace stats) sees the same times; the
 * inter-arrival gap of a clamped packet is 0 (docs/traces.md). */
int trace_reader_next(trace_reader *r, trace_pkt *p, ddio_err *e);
void trace_reader_close(trace_reader *r);
/* Read every record through libpcap from now on, none by the reader's own
 * fast path (tests compare the two); call before the first record. */
void trace_reader_use_libpcap(trace_reader *r);
/* Records skipped by the filter (0 in keep_all mode). */
uint64_t trace_reader_skipped(const trace_reader *r);

/* Classify one frame and fill the 5-tuple of *p (cls, has_tuple and the
 * tuple fields; the other fields are left alone).  linktype is a DLT_*
 * value among those trace_linktype_supported() accepts. */
void trace_parse_frame(int linktype, const uint8_t *data, uint32_t cap_len, trace_pkt *p);
int trace_linktype_supported(int linktype);

/* Classic pcap writer (not pcapng: every tool reads it).  Bytes are written
 * little-endian whatever the host, so a generated trace is identical across
 * machines.  The file is written under a temporary name and renamed by
 * trace_writer_commit(): a failed run never leaves a half-written trace. */
typedef struct trace_writer {
    ddio_outfile out;
    uint32_t snaplen;
    int nano;              /* 1: nanosecond magic 0xa1b23c4d; 0: microseconds 0xa1b2c3d4 */
    uint64_t packets;
} trace_writer;

#define TRACE_DLT_EN10MB 1u   /* Ethernet */
#define TRACE_LINKTYPE_RAW 101u /* raw IP (pcap file value of DLT_RAW) */

int trace_writer_open(trace_writer *w, const char *path, uint32_t snaplen, int nano, uint32_t linktype,
                      ddio_err *e);
/* Write one record: min(cap_len, snaplen) bytes of `frame`, wire length wire_len. */
int trace_writer_write(trace_writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t cap_len,
                       uint32_t wire_len, ddio_err *e);
/* Flush, close and rename into place.  The writer is freed either way. */
int trace_writer_commit(trace_writer *w, ddio_err *e);
/* Drop the temporary file (after an error). */
void trace_writer_abort(trace_writer *w);

#endif
