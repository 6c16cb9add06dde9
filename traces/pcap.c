/* libpcap's headers use the BSD u_int/u_char types, which glibc hides under
 * the strict _POSIX_C_SOURCE the build sets; ask for them back. */
#define _DEFAULT_SOURCE 1

#include "traces/pcap.h"

#include <assert.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/common/infile.h"
#include "traces/ip.h"
#include "traces/pcap_fast.h"

/* DLT_IPV4 / DLT_LINUX_SLL2 are missing from old libpcap headers. */
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

enum { ETH_HLEN = 14, ETHERTYPE_IPV4 = 0x0800, ETHERTYPE_IPV6 = 0x86dd };
/* Classic pcap: file header and record header sizes (the "modified" pcap
 * of old Linux patches, magic 0xa1b2cd34, has 8 more bytes per record). */
enum { PCAP_FILE_HDR = 24, PCAP_REC_HDR = 16, PCAP_REC_HDR_MODIFIED = 24 };

/* Record header size from the file's magic, 0 for pcapng (or unknown):
 * for those the reader asks ftell() where each record starts. */
static uint32_t record_header_size(const uint8_t m[4])
{
    uint32_t le = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
    uint32_t be = (uint32_t)m[3] | (uint32_t)m[2] << 8 | (uint32_t)m[1] << 16 | (uint32_t)m[0] << 24;
    if (le == 0xa1b2c3d4u || be == 0xa1b2c3d4u || le == 0xa1b23c4du || be == 0xa1b23c4du)
        return PCAP_REC_HDR;
    if (le == 0xa1b2cd34u || be == 0xa1b2cd34u)
        return PCAP_REC_HDR_MODIFIED;
    return 0;
}

static const char *const class_names[TRACE_NCLASSES] = {
    "ok", "not_ip", "fragment", "not_tcp_udp", "truncated", "bad_ipv4", "bad_ipv6",
};

const char *trace_class_name(enum trace_class c)
{
    return (unsigned)c < TRACE_NCLASSES ? class_names[c] : "?";
}

static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

int trace_linktype_supported(int linktype)
{
    return linktype == DLT_EN10MB || linktype == DLT_RAW || linktype == DLT_IPV4 ||
           linktype == DLT_LINUX_SLL || linktype == DLT_LINUX_SLL2;
}

/* Offset of the IP header in the frame and its IP version (4 or 6) in
 * *ver, or a class saying why there is none. */
static int l3_offset(int linktype, const uint8_t *d, uint32_t n, uint32_t *off, int *ver)
{
    uint32_t o;
    uint16_t type;
    switch (linktype) {
    case DLT_EN10MB:
        if (n < ETH_HLEN)
            return TRACE_TRUNCATED;
        o = 12;
        type = be16(d + o);
        /* 802.1Q, 802.1ad and the old QinQ tag types: skip any stack of tags. */
        while (type == 0x8100 || type == 0x88a8 || type == 0x9100) {
            if (n < o + 6)
                return TRACE_TRUNCATED;
            o += 4;
            type = be16(d + o);
        }
        o += 2;
        break;
    case DLT_LINUX_SLL:
        if (n < 16)
            return TRACE_TRUNCATED;
        type = be16(d + 14);
        o = 16;
        break;
    case DLT_LINUX_SLL2:
        if (n < 20)
            return TRACE_TRUNCATED;
        type = be16(d);
        o = 20;
        break;
    default: /* DLT_RAW, DLT_IPV4: the version nibble decides */
        if (n < 1)
            return TRACE_TRUNCATED;
        type = (d[0] >> 4) == 4 ? ETHERTYPE_IPV4 : (d[0] >> 4) == 6 && linktype == DLT_RAW ? ETHERTYPE_IPV6 : 0;
        o = 0;
        break;
    }
    if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6)
        return TRACE_NOT_IP;
    *off = o;
    *ver = type == ETHERTYPE_IPV4 ? 4 : 6;
    return TRACE_OK;
}

void trace_parse_frame(int linktype, const uint8_t *d, uint32_t n, trace_pkt *p)
{
    assert(trace_linktype_supported(linktype));
    uint32_t o = 0;
    int ver = 0;
    p->has_tuple = 0;
    p->ipv6 = 0;
    p->src_ip = p->dst_ip = 0;
    p->src_port = p->dst_port = 0;
    p->proto = 0;
    int c = l3_offset(linktype, d, n, &o, &ver);
    if (c != TRACE_OK) {
        p->cls = (enum trace_class)c;
        return;
    }
    const uint8_t *ip = d + o;
    uint32_t room = n - o;
    if (room < 1 || (ip[0] >> 4) != ver) {
        /* The link layer said IPv4 (IPv6) but the version nibble does not. */
        p->cls = room < 1 ? TRACE_TRUNCATED : TRACE_NOT_IP;
        return;
    }
    if (ver == 4)
        trace_parse_ipv4(ip, room, p);
    else
        trace_parse_ipv6(ip, room, p);
}

int trace_magic_known(const uint8_t m[4])
{
    return record_header_size(m) != 0 || (m[0] == 0x0a && m[1] == 0x0d && m[2] == 0x0d && m[3] == 0x0a);
}

int trace_reader_open(trace_reader *r, const char *path, int keep_all, ddio_err *e)
{
    FILE *f;
    if (strcmp(path, "-") == 0) {
        f = stdin;
    } else {
        f = ddio_open_input(path, e);
        if (!f) {
            memset(r, 0, sizeof *r);
            return -1;
        }
    }
    return trace_reader_open_stream(r, f, path, keep_all, e);
}

int trace_reader_open_stream(trace_reader *r, FILE *f, const char *path, int keep_all, ddio_err *e)
{
    memset(r, 0, sizeof *r);
    /* Peek at the magic to know how records are laid out.  Only a regular
     * file or a stream in memory (no descriptor: a spooled trace) can be
     * rewound: a pipe or standard input is taken to be classic pcap for
     * offsets. */
    uint32_t rec_hdr = PCAP_REC_HDR, magic = 0;
    struct stat st = {0};
    int regular = fileno(f) < 0 || (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode));
    if (regular) {
        uint8_t m[4] = {0};
        size_t got = fread(m, 1, 4, f);
        rec_hdr = got == 4 ? record_header_size(m) : 0;
        memcpy(&magic, m, sizeof magic);   /* the host's byte order */
        rewind(f);
    }
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!p) {
        /* libpcap leaves the FILE to us when it fails. */
        if (f != stdin)
            fclose(f);
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a readable pcap or pcapng capture: %s", path, errbuf);
    }
    int dlt = pcap_datalink(p);
    if (!trace_linktype_supported(dlt)) {
        const char *dn = pcap_datalink_val_to_name(dlt);
        pcap_close(p);
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s: link type %s (%d) is not supported (Ethernet, raw IPv4, Linux cooked)", path,
                         dn ? dn : "unknown", dlt);
    }
    r->name = strdup(path);
    if (!r->name) {
        pcap_close(p);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    r->pcap = p;
    r->linktype = dlt;
    r->keep_all = keep_all;
    r->rec_hdr = rec_hdr;
    long pos = regular ? ftell(f) : -1;
    r->next_off = pos >= 0 ? (uint64_t)pos : PCAP_FILE_HDR;
    /* A seekable classic pcap in the host's byte order, version 2.4 (no
     * swapped lengths): its plain records are read without libpcap. */
    const int nsec = magic == 0xa1b23c4du;
    if (pos >= 0 && rec_hdr == PCAP_REC_HDR && (magic == 0xa1b2c3d4u || nsec) && !pcap_is_swapped(p) &&
        pcap_major_version(p) == 2 && pcap_minor_version(p) == 4 && pcap_snapshot(p) > 0)
        r->fast = pcap_fast_open(f, (uint64_t)pos, (uint32_t)pcap_snapshot(p), nsec,
                                 fileno(f) >= 0 ? (uint64_t)st.st_size : 0);
    return 0;
}

void trace_reader_use_libpcap(trace_reader *r)
{
    assert(r->records == 0);
    pcap_fast_close(r->fast);
    r->fast = NULL;
}

/* The next record as pcap_next_ex gives it: from the fast path while its
 * records are plain, then from libpcap (the stream put back at the record
 * the fast path left).  Returns pcap_next_ex's status, or PCAP_ERROR with
 * *lost set when the stream could not be put back. */
static int next_record(trace_reader *r, struct pcap_pkthdr *h, const u_char **data, uint64_t *off, int *lost)
{
    *lost = 0;
    if (r->fast) {
        pcap_fast_rec x;
        int rc = pcap_fast_next(r->fast, &x, lost);
        if (rc == 1) {
            h->ts.tv_sec = (time_t)x.ts_sec;
            h->ts.tv_usec = (suseconds_t)x.ts_frac;
            h->caplen = x.caplen;
            h->len = x.len;
            *data = x.data;
            *off = x.off;
            return 1;
        }
        pcap_fast_close(r->fast);
        r->fast = NULL;
        if (rc == 0)
            return PCAP_ERROR_BREAK;
        if (*lost)
            return PCAP_ERROR;
        /* libpcap from this record on: its offsets as before. */
    }
    struct pcap_pkthdr *ph;
    int rc = pcap_next_ex(r->pcap, &ph, data);
    if (rc == 1)
        *h = *ph;
    return rc;
}

int trace_reader_next(trace_reader *r, trace_pkt *pkt, ddio_err *e)
{
    pcap_t *p = r->pcap;
    for (;;) {
        /* Where this record starts: for classic pcap, the sum of the record
         * sizes so far (ftell() would cost an lseek per packet); pcapng
         * blocks of other kinds can sit between packets, so there libpcap's
         * stdio position is asked. */
        uint64_t off = r->next_off;
        if (r->rec_hdr == 0) {
            long pos = ftell(pcap_file(p));
            if (pos >= 0)
                off = (uint64_t)pos;
        }
        struct pcap_pkthdr hh, *h = &hh;
        const u_char *data;
        int lost;
        const int fast = r->fast != NULL;   /* this record from the fast path: no cut, offset known */
        int rc = next_record(r, h, &data, &off, &lost);
        if (rc == PCAP_ERROR_BREAK)
            return 0;
        uint64_t k = r->records + 1;
        if (rc != 1 && lost)   /* the stream, not the capture: an I/O failure */
            return ddio_errf(e, DDIO_EXIT_IO, "%s: packet %llu at byte %llu: cannot seek back to it in the stream",
                             r->name, (unsigned long long)k, (unsigned long long)off);
        if (rc != 1)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: packet %llu at byte %llu: %s", r->name,
                             (unsigned long long)k, (unsigned long long)off,
                             rc == PCAP_ERROR ? pcap_geterr(p) : "unexpected libpcap status");
        if (h->caplen > h->len)
            return ddio_errf(e, DDIO_EXIT_USAGE,
                             "%s: packet %llu at byte %llu: captured length %u exceeds wire length %u",
                             r->name, (unsigned long long)k, (unsigned long long)off, h->caplen, h->len);
        if (h->ts.tv_sec < 0 || h->ts.tv_usec < 0 || h->ts.tv_usec >= 1000000000)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: packet %llu at byte %llu: invalid timestamp", r->name,
                             (unsigned long long)k, (unsigned long long)off);
        /* pcapng stores 64-bit timestamps: some cannot be ns since 1970 in 64 bits. */
        if ((uint64_t)h->ts.tv_sec > (UINT64_MAX - (uint64_t)h->ts.tv_usec) / 1000000000ull)
            return ddio_errf(e, DDIO_EXIT_USAGE,
                             "%s: packet %llu at byte %llu: timestamp %llu s does not fit 64-bit nanoseconds",
                             r->name, (unsigned long long)k, (unsigned long long)off,
                             (unsigned long long)h->ts.tv_sec);
        r->records = k;
        r->next_off = off + (r->rec_hdr ? r->rec_hdr : PCAP_REC_HDR) + h->caplen;
        /* A record longer than the file's snap length comes back cut to it
         * (libpcap skips the rest): its size on disk is then only known
         * from the stream position. */
        if (r->rec_hdr && h->caplen == (uint32_t)pcap_snapshot(p) && !(fast && r->fast)) {
            long pos = ftell(pcap_file(p));
            if (pos >= 0)
                r->next_off = (uint64_t)pos;
        }
        /* With PCAP_TSTAMP_PRECISION_NANO, tv_usec holds nanoseconds. */
        pkt->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
        pkt->wire_len = h->len;
        pkt->cap_len = h->caplen;
        pkt->data = data;
        trace_parse_frame(r->linktype, data, h->caplen, pkt);
        r->count[pkt->cls]++;
        /* Clamped against every record before it, returned or not: a
         * packet's time must not depend on the filter (found by the pcap
         * fuzz target: a skipped record stamped later than the next kept
         * one gave that packet two different times). */
        int late = k > 1 && pkt->ts_ns < r->last_ts;
        if (late)
            pkt->ts_ns = r->last_ts;
        r->last_ts = pkt->ts_ns;
        if (pkt->cls == TRACE_OK || r->keep_all) {
            r->returned++;
            r->reordered += (uint64_t)late;
            return 1;
        }
    }
}

uint64_t trace_reader_skipped(const trace_reader *r)
{
    if (r->keep_all)
        return 0;
    uint64_t s = 0;
    for (int c = 1; c < TRACE_NCLASSES; c++)
        s += r->count[c];
    return s;
}

void trace_reader_close(trace_reader *r)
{
    pcap_fast_close(r->fast);
    r->fast = NULL;
    if (r->pcap)
        pcap_close(r->pcap);   /* also closes the FILE (stdin included, as pcap_open_offline does) */
    free(r->name);
    r->pcap = NULL;
    r->name = NULL;
}

/* ---- writer ---------------------------------------------------------- */

static void put_le32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

int trace_writer_open(trace_writer *w, const char *path, uint32_t snaplen, int nano, uint32_t linktype,
                      ddio_err *e)
{
    memset(w, 0, sizeof *w);
    if (snaplen == 0 || snaplen > 262144)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: snap length %u out of range [1, 262144]", path, snaplen);
    if (ddio_outfile_open(&w->out, path, e) != 0)
        return -1;
    w->snaplen = snaplen;
    w->nano = nano;
    uint8_t hdr[PCAP_FILE_HDR];
    put_le32(hdr, nano ? 0xa1b23c4du : 0xa1b2c3d4u);
    hdr[4] = 2, hdr[5] = 0;     /* version 2.4 */
    hdr[6] = 4, hdr[7] = 0;
    put_le32(hdr + 8, 0);       /* thiszone */
    put_le32(hdr + 12, 0);      /* sigfigs */
    put_le32(hdr + 16, snaplen);
    put_le32(hdr + 20, linktype);
    if (fwrite(hdr, 1, sizeof hdr, w->out.f) != sizeof hdr) {
        ddio_errf(e, DDIO_EXIT_IO, "%s: write failed: %s", path, strerror(errno));
        trace_writer_abort(w);
        return -1;
    }
    return 0;
}

int trace_writer_write(trace_writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t cap_len,
                       uint32_t wire_len, ddio_err *e)
{
    uint64_t sec = ts_ns / 1000000000ull, sub = ts_ns % 1000000000ull;
    if (!w->nano)
        sub /= 1000;
    if (sec > UINT32_MAX)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: packet %llu: timestamp %llu s does not fit pcap's 32 bits",
                         w->out.path, (unsigned long long)(w->packets + 1), (unsigned long long)sec);
    if (cap_len > wire_len)
        cap_len = wire_len;
    if (cap_len > w->snaplen)
        cap_len = w->snaplen;
    uint8_t rec[PCAP_REC_HDR];
    put_le32(rec, (uint32_t)sec);
    put_le32(rec + 4, (uint32_t)sub);
    put_le32(rec + 8, cap_len);
    put_le32(rec + 12, wire_len);
    if (fwrite(rec, 1, sizeof rec, w->out.f) != sizeof rec || fwrite(frame, 1, cap_len, w->out.f) != cap_len)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: write failed: %s", w->out.path, strerror(errno));
    w->packets++;
    return 0;
}

int trace_writer_commit(trace_writer *w, ddio_err *e)
{
    return ddio_outfile_commit(&w->out, e);
}

void trace_writer_abort(trace_writer *w)
{
    ddio_outfile_abort(&w->out);
}
