/* fuzz_entries.c - bodies of the fuzz targets and the invariants they check
 * (see fuzz_entries.h and docs/fuzzing.md).
 *
 * memfd_create() and memmem() need _GNU_SOURCE; libpcap's headers need the
 * BSD types of _DEFAULT_SOURCE, which _GNU_SOURCE implies. */
#define _GNU_SOURCE 1

#include "tests/fuzz/fuzz_entries.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configs/config.h"
#include "configs/overlay.h"
#include "traces/din.h"
#include "traces/pcap.h"
#include "validate/experiment.h"
#include "validate/measure.h"
#include "sim/explore/advise.h"
#include "sim/explore/sweep.h"

#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

/* A violated invariant: say which (file:line and the condition), then abort
 * so libFuzzer keeps the input and Criterion reports the test as crashed. */
#define FZ_CHECK(cond)                                                                      \
    do {                                                                                    \
        if (!(cond))                                                                        \
            fz_fail(__FILE__, __LINE__, #cond);                                             \
    } while (0)

static void fz_fail(const char *file, int line, const char *what) __attribute__((noreturn));
static void fz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: fuzz invariant violated: %s\n", file, line, what);
    abort();
}

/* A copy of exactly n bytes on the heap, so ASan flags any read past the
 * end (the caller's buffer may be larger, or NUL-terminated). */
static uint8_t *dup_exact(const void *d, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    FZ_CHECK(p != NULL);
    if (n)
        memcpy(p, d, n);
    return p;
}

/* The error contract of the whole library: one non-empty line, exit code 2
 * for bad input, starting with `prefix` (the file / line / packet named)
 * followed by a non-empty reason. */
static void check_err(const ddio_err *e, const char *prefix)
{
    size_t len = strnlen(e->msg, sizeof e->msg);
    FZ_CHECK(len > 0 && len < sizeof e->msg);
    FZ_CHECK(strchr(e->msg, '\n') == NULL && strchr(e->msg, '\r') == NULL);
    FZ_CHECK(e->exit_code == DDIO_EXIT_USAGE);
    if (prefix) {
        size_t pl = strlen(prefix);
        if (strncmp(e->msg, prefix, pl) != 0 || len <= pl)
            fprintf(stderr, "error message: \"%s\"\nexpected start: \"%s\" and a reason\n", e->msg, prefix);
        FZ_CHECK(strncmp(e->msg, prefix, pl) == 0);
        FZ_CHECK(len > pl);
    }
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ================================================================ frames */

static const int link_types[] = {DLT_EN10MB, DLT_RAW, DLT_IPV4, DLT_LINUX_SLL, DLT_LINUX_SLL2};

/* Reference: offset of an IPv4 header announced by the link layer, or -1
 * (link header cut, or not IPv4).  Ethernet skips 802.1Q / 802.1ad / QinQ
 * tags; raw IP is IPv4 when its version nibble is 4. */
static long ref_l3(int lt, const uint8_t *d, uint32_t n)
{
    if (lt == DLT_EN10MB) {
        if (n < 14)
            return -1;
        uint32_t o = 12;
        uint16_t type = rd16(d + o);
        while (type == 0x8100 || type == 0x88a8 || type == 0x9100) {
            if (n < o + 6)
                return -1;
            o += 4;
            type = rd16(d + o);
        }
        return type == 0x0800 ? (long)o + 2 : -1;
    }
    if (lt == DLT_LINUX_SLL)
        return n >= 16 && rd16(d + 14) == 0x0800 ? 16 : -1;
    if (lt == DLT_LINUX_SLL2)
        return n >= 20 && rd16(d) == 0x0800 ? 20 : -1;
    return n >= 1 && (d[0] >> 4) == 4 ? 0 : -1;
}

/* What trace_parse_frame() promises about one classified frame of n bytes. */
static void check_frame(int lt, const uint8_t *d, uint32_t n, const trace_pkt *p)
{
    FZ_CHECK((unsigned)p->cls < TRACE_NCLASSES);
    FZ_CHECK(p->has_tuple == 0 || p->has_tuple == 1);
    if (!p->has_tuple)
        FZ_CHECK(p->src_port == 0 && p->dst_port == 0);
    if (p->src_port || p->dst_port)
        FZ_CHECK(p->proto == 6 || p->proto == 17);
    /* The filter, both ways: "ok" for IPv4 exactly when a complete,
     * unfragmented IPv4 header and the TCP / UDP ports are inside the
     * captured bytes (IPv6: see below). */
    long o = ref_l3(lt, d, n);
    int full = 0;
    const uint8_t *ip = NULL;
    uint32_t ihl = 0;
    if (o >= 0 && n >= (uint32_t)o + 20) {
        ip = d + o;
        ihl = (uint32_t)(ip[0] & 0x0f) * 4;
        uint32_t tot = rd16(ip + 2);
        uint16_t frag = rd16(ip + 6);
        full = (ip[0] >> 4) == 4 && ihl >= 20 && tot >= ihl + 4 && n >= (uint32_t)o + ihl + 4 &&
               (frag & 0x3fff) == 0 && (ip[9] == 6 || ip[9] == 17);
    }
    FZ_CHECK((p->cls == TRACE_OK && !p->ipv6) == full);
    if (p->cls == TRACE_OK && p->ipv6)
        FZ_CHECK(p->has_tuple == 1 && (p->proto == 6 || p->proto == 17));
    if (full) {
        FZ_CHECK(p->has_tuple == 1);
        FZ_CHECK(p->proto == ip[9]);
        FZ_CHECK(p->src_ip == rd32(ip + 12) && p->dst_ip == rd32(ip + 16));
        FZ_CHECK(p->src_port == rd16(ip + ihl) && p->dst_port == rd16(ip + ihl + 2));
    }
    if (o < 0 && lt != DLT_EN10MB && lt != DLT_LINUX_SLL && lt != DLT_LINUX_SLL2 && n >= 1 &&
        ((d[0] >> 4) != 6 || lt != DLT_RAW))
        FZ_CHECK(p->cls == TRACE_NOT_IP);
}

static void parse_exact(int lt, const uint8_t *d, uint32_t n, trace_pkt *p)
{
    uint8_t *c = dup_exact(d, n);
    memset(p, 0, sizeof *p);
    trace_parse_frame(lt, c, n, p);
    free(c);
}

static int same_tuple(const trace_pkt *a, const trace_pkt *b)
{
    return a->cls == b->cls && a->has_tuple == b->has_tuple && a->src_ip == b->src_ip && a->dst_ip == b->dst_ip &&
           a->src_port == b->src_port && a->dst_port == b->dst_port && a->proto == b->proto &&
           a->ipv6 == b->ipv6 &&
           (!a->ipv6 || (memcmp(a->src6, b->src6, 16) == 0 && memcmp(a->dst6, b->dst6, 16) == 0));
}

/* The bytes as one frame of every supported link type; and any prefix of a
 * frame (a smaller snap length) is classified the same or "truncated". */
static void fuzz_frames(const uint8_t *d, size_t n)
{
    uint32_t len = n > 65535 ? 65535 : (uint32_t)n;
    for (size_t t = 0; t < sizeof link_types / sizeof link_types[0]; t++) {
        int lt = link_types[t];
        FZ_CHECK(trace_linktype_supported(lt));
        trace_pkt whole, cut;
        parse_exact(lt, d, len, &whole);
        check_frame(lt, d, len, &whole);
        /* Headers end within the first bytes (a few VLAN tags at most). */
        uint32_t lim = len < 96 ? len : 96;
        for (uint32_t m = 0; m <= lim; m++) {
            uint32_t k = m == lim ? (len ? len - 1 : 0) : m;
            parse_exact(lt, d, k, &cut);
            check_frame(lt, d, k, &cut);
            FZ_CHECK(cut.cls == whole.cls || cut.cls == TRACE_TRUNCATED);
            if (cut.cls == whole.cls && cut.has_tuple && whole.has_tuple)
                FZ_CHECK(same_tuple(&cut, &whole));
        }
    }
}

/* ================================================================ pcap */

/* The input as a file the reader can open by name: an anonymous memfd (or
 * an unlinked file under /dev/shm), named through /proc/self/fd. */
static int mem_file(const uint8_t *d, size_t n, char *path, size_t cap)
{
    int fd = memfd_create("ddiosim-fuzz", MFD_CLOEXEC);
    if (fd < 0) {
        char tmpl[] = "/dev/shm/ddiosim-fuzz-XXXXXX";
        fd = mkstemp(tmpl);
        FZ_CHECK(fd >= 0);
        unlink(tmpl);
    }
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, d + off, n - off);
        FZ_CHECK(w > 0);
        off += (size_t)w;
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

typedef struct rec_list {
    trace_pkt *v;       /* copies without data */
    size_t n, cap;
} rec_list;

static void rec_push(rec_list *l, const trace_pkt *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        FZ_CHECK(l->v != NULL);
    }
    l->v[l->n] = *p;
    l->v[l->n++].data = NULL;
}

/* How a whole read ended: 0 end of file, -1 error (message kept), -2 open failed. */
typedef struct read_end {
    int rc;
    ddio_err e;
    uint64_t records;
    uint64_t count[TRACE_NCLASSES];
} read_end;

static void check_packet_err(const ddio_err *e, const char *path, uint64_t k, uint64_t off)
{
    char want[160];
    snprintf(want, sizeof want, "%s: packet %llu at byte %llu: ", path, (unsigned long long)k,
             (unsigned long long)off);
    check_err(e, want);
}

/* keep_all reading, record by record against libpcap itself. */
static void pcap_read_all(const char *path, rec_list *ok, read_end *end)
{
    trace_reader r;
    ddio_err e;
    memset(&e, 0, sizeof e);
    memset(end, 0, sizeof *end);
    int orc = trace_reader_open(&r, path, 1, &e);
    FILE *rf = fopen(path, "rb");
    FZ_CHECK(rf != NULL);
    char errbuf[PCAP_ERRBUF_SIZE];
    pcap_t *raw = pcap_fopen_offline_with_tstamp_precision(rf, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!raw)
        fclose(rf);
    if (orc != 0) {
        FZ_CHECK(orc == -1);
        char want[80];
        snprintf(want, sizeof want, "%s: ", path);
        check_err(&e, want);
        /* Refused only what libpcap cannot read or a link type not handled. */
        FZ_CHECK(!raw || !trace_linktype_supported(pcap_datalink(raw)));
        if (raw)
            pcap_close(raw);
        end->rc = -2;
        end->e = e;
        return;
    }
    FZ_CHECK(raw != NULL);
    FZ_CHECK(r.linktype == pcap_datalink(raw) && trace_linktype_supported(r.linktype));
    FZ_CHECK(r.records == 0 && r.keep_all == 1);
    uint64_t prev_ts = 0, reordered = 0;
    for (;;) {
        /* Where libpcap's own stream stands before the record: the byte
         * offset an error about this record must name. */
        long start = ftell(pcap_file(raw));
        FZ_CHECK(start >= 0);
        struct pcap_pkthdr *h;
        const u_char *rd;
        int rr = pcap_next_ex(raw, &h, &rd);
        trace_pkt p;
        memset(&p, 0, sizeof p);
        uint64_t before = r.records;
        int rc = trace_reader_next(&r, &p, &e);
        FZ_CHECK(rc >= -1 && rc <= 1);
        if (rr == PCAP_ERROR_BREAK) {
            FZ_CHECK(rc == 0);
            end->rc = 0;
            break;
        }
        if (rr != 1) {
            FZ_CHECK(rc == -1);
            check_packet_err(&e, path, before + 1, (uint64_t)start);
            end->rc = -1;
            break;
        }
        int bad = h->caplen > h->len || h->ts.tv_sec < 0 || h->ts.tv_usec < 0 || h->ts.tv_usec >= 1000000000;
        /* ts_ns is ns since 1970 in 64 bits: a later time cannot be one. */
        int wraps = !bad && (uint64_t)h->ts.tv_sec > (UINT64_MAX - (uint64_t)h->ts.tv_usec) / 1000000000ull;
        if (rc == -1) {
            FZ_CHECK(bad || wraps);
            check_packet_err(&e, path, before + 1, (uint64_t)start);
            end->rc = -1;
            break;
        }
        FZ_CHECK(rc == 1);
        FZ_CHECK(!bad && !wraps);
        FZ_CHECK(r.records == before + 1);
        /* Time never goes back: a packet stamped before the previous one
         * takes its time and is counted (trace_reader_next). */
        uint64_t raw_ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
        FZ_CHECK(p.ts_ns == (r.records > 1 && raw_ts < prev_ts ? prev_ts : raw_ts));
        reordered += r.records > 1 && raw_ts < prev_ts;
        FZ_CHECK(r.reordered == reordered);
        prev_ts = p.ts_ns;
        FZ_CHECK(p.wire_len == h->len && p.cap_len == h->caplen && p.cap_len <= p.wire_len);
        FZ_CHECK(p.cap_len == 0 || (p.data != NULL && memcmp(p.data, rd, p.cap_len) == 0));
        check_frame(r.linktype, p.data, p.cap_len, &p);
        trace_pkt again;
        parse_exact(r.linktype, p.data, p.cap_len, &again);
        FZ_CHECK(same_tuple(&again, &p));
        if (p.cls == TRACE_OK)
            rec_push(ok, &p);
    }
    uint64_t sum = 0;
    for (int c = 0; c < TRACE_NCLASSES; c++)
        sum += r.count[c];
    FZ_CHECK(sum == r.records);
    FZ_CHECK(trace_reader_skipped(&r) == 0);
    end->e = e;
    end->records = r.records;
    memcpy(end->count, r.count, sizeof end->count);
    trace_reader_close(&r);
    pcap_close(raw);
}

/* Default (filtered) reading: the "ok" records of the keep_all reading, the
 * same counts, the same ending. */
static void pcap_read_filtered(const char *path, const rec_list *ok, const read_end *all)
{
    trace_reader r;
    ddio_err e;
    memset(&e, 0, sizeof e);
    int orc = trace_reader_open(&r, path, 0, &e);
    if (all->rc == -2) {
        FZ_CHECK(orc == -1 && strcmp(e.msg, all->e.msg) == 0);
        return;
    }
    FZ_CHECK(orc == 0);
    size_t i = 0;
    int rc;
    trace_pkt p;
    while ((rc = trace_reader_next(&r, &p, &e)) == 1) {
        FZ_CHECK(i < ok->n);
        FZ_CHECK(p.cls == TRACE_OK);
        const trace_pkt *q = &ok->v[i++];
        FZ_CHECK(p.ts_ns == q->ts_ns && p.wire_len == q->wire_len && p.cap_len == q->cap_len);
        FZ_CHECK(same_tuple(&p, q));
    }
    FZ_CHECK(i == ok->n);
    FZ_CHECK(rc == all->rc);
    if (rc == -1)
        FZ_CHECK(strcmp(e.msg, all->e.msg) == 0 && e.exit_code == all->e.exit_code);
    FZ_CHECK(r.records == all->records);
    FZ_CHECK(memcmp(r.count, all->count, sizeof r.count) == 0);
    FZ_CHECK(trace_reader_skipped(&r) == r.records - r.count[TRACE_OK]);
    trace_reader_close(&r);
}

int fuzz_pcap(const uint8_t *d, size_t n)
{
    fuzz_frames(d, n);
    char path[64];
    int fd = mem_file(d, n, path, sizeof path);
    rec_list ok = {0};
    read_end all;
    pcap_read_all(path, &ok, &all);
    pcap_read_filtered(path, &ok, &all);
    free(ok.v);
    close(fd);
    return 0;
}

/* ================================================================ configs */

#define CFG_FILE "fuzz.json"

/* A machine that loaded: valid, and printed JSON loads back to the same
 * struct and prints the same text again. */
static void check_machine_roundtrip(const ddio_machine *m)
{
    ddio_err e;
    memset(&e, 0, sizeof e);
    FZ_CHECK(ddio_machine_validate(m, CFG_FILE, &e) == 0);
    char *js = ddio_machine_to_json(m);
    FZ_CHECK(js != NULL);
    ddio_machine *back = malloc(sizeof *back);
    FZ_CHECK(back != NULL);
    int rc = ddio_machine_parse(back, js, strlen(js), "roundtrip.json", &e);
    if (rc != 0)
        fprintf(stderr, "round trip: %s\n", e.msg);
    FZ_CHECK(rc == 0);
    char path[256];
    int diff = ddio_machine_diff(m, back, path, sizeof path);
    if (diff)
        fprintf(stderr, "round trip differs at %s\n", path);
    FZ_CHECK(diff == 0);
    char *js2 = ddio_machine_to_json(back);
    FZ_CHECK(js2 != NULL && strcmp(js, js2) == 0);
    free(js2);
    free(back);
    free(js);
}

static void check_workload_roundtrip(const ddio_workload *w)
{
    ddio_err e;
    memset(&e, 0, sizeof e);
    FZ_CHECK(ddio_workload_validate(w, CFG_FILE, &e) == 0);
    char *js = ddio_workload_to_json(w);
    FZ_CHECK(js != NULL);
    ddio_workload *back = malloc(sizeof *back);
    FZ_CHECK(back != NULL);
    int rc = ddio_workload_parse(back, js, strlen(js), "roundtrip.json", &e);
    if (rc != 0)
        fprintf(stderr, "round trip: %s\n", e.msg);
    FZ_CHECK(rc == 0);
    char path[256];
    int diff = ddio_workload_diff(w, back, path, sizeof path);
    if (diff)
        fprintf(stderr, "round trip differs at %s\n", path);
    FZ_CHECK(diff == 0);
    char *js2 = ddio_workload_to_json(back);
    FZ_CHECK(js2 != NULL && strcmp(js, js2) == 0);
    free(js2);
    free(back);
    free(js);
}

/* The lines a packet touches: expand() and touch() agree, every line is
 * inside the packet, no (line, op) twice. */
static void check_touch(const ddio_workload *w, uint32_t pkt_len, uint32_t line_size, uint32_t first_byte)
{
    ddio_touch t;
    ddio_workload_touch(w, pkt_len, line_size, first_byte, &t);
    uint32_t fb = first_byte % line_size;
    uint32_t lines = (uint32_t)(((uint64_t)fb + pkt_len + line_size - 1) / line_size);
    FZ_CHECK(t.lines == lines);
    FZ_CHECK(t.read <= lines && t.written <= lines && t.flushed <= lines && t.touched <= lines);
    FZ_CHECK(t.touched >= t.read && t.touched >= t.written && t.touched <= t.read + t.written);
    size_t cap = 3 * (size_t)lines + 1;
    ddio_line_op *out = malloc(cap * sizeof *out);
    uint8_t *seen = calloc(lines ? lines : 1, 1);
    FZ_CHECK(out != NULL && seen != NULL);
    size_t n = ddio_workload_expand(w, pkt_len, line_size, first_byte, out, cap);
    FZ_CHECK(n < cap);
    uint32_t per_op[3] = {0, 0, 0}, touched = 0;
    for (size_t i = 0; i < n; i++) {
        FZ_CHECK(out[i].line < lines && out[i].op < 3);
        uint8_t bit = (uint8_t)(1u << out[i].op);
        FZ_CHECK(!(seen[out[i].line] & bit));
        if (out[i].op != DDIO_SEG_FLUSH && !(seen[out[i].line] & 3))
            touched++;
        seen[out[i].line] |= bit;
        per_op[out[i].op]++;
    }
    FZ_CHECK(per_op[DDIO_SEG_READ] == t.read && per_op[DDIO_SEG_WRITE] == t.written &&
             per_op[DDIO_SEG_FLUSH] == t.flushed && touched == t.touched);
    free(seen);
    free(out);
}

/* The same text as a calibration overlay: an error naming the file, or
 * fields each of which --set takes, that apply to the built-in
 * configuration or fail with one line naming the field. */
static void fuzz_overlay(const char *text, size_t n, ddio_config *c)
{
    ddio_overlay *ov = malloc(sizeof *ov);
    FZ_CHECK(ov != NULL);
    ddio_err e;
    memset(&e, 0, sizeof e);
    int rc = ddio_overlay_parse(text, n, CFG_FILE, ov, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        check_err(&e, CFG_FILE ": ");
        FZ_CHECK(ov->n == 0);
    }
    ddio_config_default(c);
    for (uint32_t i = 0; rc == 0 && i < ov->n; i++) {
        char msg[300];
        FZ_CHECK(memchr(ov->set[i], '\0', sizeof ov->set[i]) != NULL);
        FZ_CHECK(ddio_overlay_check_set(ov->set[i], msg, sizeof msg) == 0);
        memset(&e, 0, sizeof e);
        int arc = ddio_config_apply_override(c, "--set", ov->set[i], &e);
        FZ_CHECK(arc == 0 || arc == -1);
        if (arc != 0)
            check_err(&e, NULL);
    }
    free(ov);
}

int fuzz_config(const uint8_t *d, size_t n)
{
    char *text = (char *)dup_exact(d, n);
    ddio_config *c = malloc(sizeof *c);
    FZ_CHECK(c != NULL);
    ddio_config_default(c);
    ddio_err e;

    memset(&e, 0, sizeof e);
    int mrc = ddio_machine_parse(&c->machine, text, n, CFG_FILE, &e);
    FZ_CHECK(mrc == 0 || mrc == -1);
    if (mrc == 0) {
        check_machine_roundtrip(&c->machine);
        snprintf(c->machine_file, sizeof c->machine_file, CFG_FILE);
    } else {
        check_err(&e, CFG_FILE ": ");
        ddio_machine_default(&c->machine);
    }

    memset(&e, 0, sizeof e);
    int wrc = ddio_workload_parse(&c->workload, text, n, CFG_FILE, &e);
    FZ_CHECK(wrc == 0 || wrc == -1);
    if (wrc == 0) {
        check_workload_roundtrip(&c->workload);
        snprintf(c->workload_file, sizeof c->workload_file, CFG_FILE);
        check_touch(&c->workload, 1, c->machine.llc.line_size, c->workload.driver.headroom);
        check_touch(&c->workload, 60, 64, c->workload.driver.headroom);
        check_touch(&c->workload, 1514, c->machine.llc.line_size, c->workload.driver.headroom);
    } else {
        check_err(&e, CFG_FILE ": ");
        ddio_workload_default(&c->workload);
    }

    /* The pair (a side that did not load is the built-in default): either
     * an error naming one of the two files, or a cache hierarchy can be
     * built from it. */
    memset(&e, 0, sizeof e);
    int vrc = ddio_config_validate(c, &e);
    FZ_CHECK(vrc == 0 || vrc == -1);
    if (vrc == 0) {
        hier_config hc;
        int hrc = ddio_config_to_hier(c, &hc, &e);
        if (hrc != 0)
            fprintf(stderr, "validated, but no hierarchy: %s\n", e.msg);
        FZ_CHECK(hrc == 0);
    } else {
        char wp[600], mp[600];
        snprintf(wp, sizeof wp, "%s: ", c->workload_file);
        snprintf(mp, sizeof mp, "%s: ", c->machine_file);
        check_err(&e, NULL);
        FZ_CHECK(strncmp(e.msg, wp, strlen(wp)) == 0 || strncmp(e.msg, mp, strlen(mp)) == 0);
    }
    fuzz_overlay(text, n, c);
    free(c);
    free(text);
    return 0;
}

/* ================================================================ din */

#define DIN_FILE "fuzz.din"

static int din_label_ok(unsigned l) { return l <= 7 && l != 3; }

static int is_din_blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* One line through din_parse_line() (an exact copy, no terminator). */
static int din_line(const uint8_t *s, size_t len, uint64_t lineno, din_record *rec, ddio_err *e)
{
    char *c = (char *)dup_exact(s, len);
    memset(e, 0, sizeof *e);
    int rc = din_parse_line(c, len, rec, DIN_FILE, lineno, e);
    free(c);
    FZ_CHECK(rc >= -1 && rc <= 1);
    size_t i = 0;
    while (i < len && is_din_blank(s[i]))
        i++;
    /* Blank and comment lines, and nothing else, are skipped. */
    FZ_CHECK((rc == 0) == (i == len || s[i] == '#'));
    if (rc == -1) {
        char want[64];
        snprintf(want, sizeof want, DIN_FILE ":%llu: ", (unsigned long long)lineno);
        check_err(e, want);
    }
    if (rc == 1) {
        FZ_CHECK(din_label_ok((unsigned)rec->label));
        /* The record printed in the canonical form reads back the same. */
        char buf[64];
        int k = snprintf(buf, sizeof buf, "%u %llx", (unsigned)rec->label, (unsigned long long)rec->addr);
        din_record back;
        ddio_err e2;
        memset(&e2, 0, sizeof e2);
        FZ_CHECK(din_parse_line(buf, (size_t)k, &back, DIN_FILE, lineno, &e2) == 1);
        FZ_CHECK(back.label == rec->label && back.addr == rec->addr);
    }
    return rc;
}

int fuzz_din(const uint8_t *d, size_t n)
{
    /* Streamed by din_next() over an in-memory FILE, in lockstep with the
     * lines cut here: the same records, the same first error. */
    uint8_t *buf = dup_exact(d, n);
    FILE *f = n ? fmemopen(buf, n, "r") : NULL;
    FZ_CHECK(n == 0 || f != NULL);
    din_reader r;
    din_reader_init(&r, f, DIN_FILE);
    uint64_t lineno = 0;
    size_t pos = 0;
    int stopped = 0;
    while (pos < n && !stopped) {
        /* Lines end with LF, CRLF or a lone CR. */
        const uint8_t *s = d + pos;
        size_t len = 0;
        while (pos + len < n && s[len] != '\n' && s[len] != '\r')
            len++;
        pos += len;
        if (pos < n)
            pos += d[pos] == '\r' && pos + 1 < n && d[pos + 1] == '\n' ? 2 : 1;
        lineno++;
        din_record want, got;
        ddio_err ew, eg;
        int rc = din_line(s, len, lineno, &want, &ew);
        int has_nul = memchr(s, '\0', len) != NULL;
        if (rc == 0 && !has_nul)
            continue;
        memset(&eg, 0, sizeof eg);
        int grc = din_next(&r, &got, &eg);
        if (has_nul) {
            /* A text trace with a NUL byte is refused by the stream reader. */
            FZ_CHECK(grc == -1);
            char want_pfx[64];
            snprintf(want_pfx, sizeof want_pfx, DIN_FILE ":%llu: ", (unsigned long long)lineno);
            check_err(&eg, want_pfx);
            stopped = 1;
            continue;
        }
        FZ_CHECK(grc == rc);
        FZ_CHECK(r.lineno == lineno);
        if (rc == 1) {
            FZ_CHECK(got.label == want.label && got.addr == want.addr);
        } else {
            FZ_CHECK(strcmp(eg.msg, ew.msg) == 0 && eg.exit_code == ew.exit_code);
            stopped = 1;
        }
    }
    if (f && !stopped) {
        din_record rec;
        ddio_err e;
        memset(&e, 0, sizeof e);
        FZ_CHECK(din_next(&r, &rec, &e) == 0);
        FZ_CHECK(r.lineno == lineno);
    }
    din_reader_free(&r);
    if (f)
        fclose(f);
    free(buf);
    return 0;
}

/* ================================================================ validate: errors */

/* The error of a reader of measured files: exit code 2, one line,
 * "PATH: reason" or "PATH:LINE: reason" with 1 <= LINE <= max_line. */
static void check_file_err(const ddio_err *e, const char *path, unsigned long max_line)
{
    char want[80];
    snprintf(want, sizeof want, "%s:", path);
    check_err(e, want);
    const char *p = e->msg + strlen(want);
    if (*p == ' ') {
        FZ_CHECK(p[1] != '\0');
        return;
    }
    char *end;
    unsigned long line = strtoul(p, &end, 10);
    FZ_CHECK(end != p && *p >= '1' && *p <= '9');
    FZ_CHECK(line >= 1 && line <= max_line);
    FZ_CHECK(end[0] == ':' && end[1] == ' ' && end[2] != '\0');
}

/* Lines of n bytes as getline() cuts them (the last one may lack '\n'). */
static unsigned long count_lines(const uint8_t *d, size_t n)
{
    unsigned long lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += d[i] == '\n';
    return lines + (n && d[n - 1] != '\n');
}

static size_t count_substr(const uint8_t *d, size_t n, const char *s)
{
    size_t k = 0, sl = strlen(s);
    for (const uint8_t *p = d; n >= sl && (p = memmem(p, n - (size_t)(p - d), s, sl)) != NULL; p++)
        k++;
    return k;
}

/* ================================================================ validate: NPF */

#define NPF_LINE_MAX 65536   /* validate/npf.c: NPF_MAX_LINE */

/* A finite decimal number that is the whole token (strtod, on the
 * characters of a decimal number only: no "0x", "inf", "nan"). */
static int npf_number(const char *tok, double *v)
{
    if (tok[strspn(tok, "0123456789+-.eE")])
        return -1;
    char *end;
    errno = 0;
    double x = strtod(tok, &end);
    if (end == tok || *end != '\0' || errno == ERANGE || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

/* One data line (NUL-terminated copy) as the reference reads it: 1 and
 * its x and runs (at most cap kept), 0 blank or comment, -1 bad. */
static int npf_ref_line(char *line, double *x, double *run, uint32_t cap, uint32_t *runs)
{
    char *save = NULL, *tok = strtok_r(line, " \t\r\n\v\f", &save);
    if (!tok || tok[0] == '#')
        return 0;
    if (npf_number(tok, x) != 0)
        return -1;
    *runs = 0;
    while ((tok = strtok_r(NULL, " \t\r\n\v\f", &save)) != NULL) {
        double v;
        if (npf_number(tok, &v) != 0)
            return -1;
        if (*runs < cap)
            run[*runs] = v;
        (*runs)++;
    }
    return *runs ? 1 : -1;
}

/* The same bytes as NPF's --single-output CSV (vd_npf_table_read): a
 * table whose every row has the header's field count, on increasing lines
 * after the header, each field free of line ends; or one error line
 * naming the file.  A table is read only from bytes with a final newline
 * (after the last non-blank line) and no NUL byte. */
static void fuzz_npf_table(const uint8_t *d, size_t n, const char *path)
{
    vd_npf_table t;
    ddio_err e;
    memset(&e, 0, sizeof e);
    int rc = vd_npf_table_read(path, &t, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        char want[96];
        snprintf(want, sizeof want, "%s", path);
        check_err(&e, want);
        FZ_CHECK(t.cell == NULL && t.col == NULL && t.nrow == 0);
        return;
    }
    FZ_CHECK(memchr(d, '\0', n) == NULL);
    FZ_CHECK(t.ncol >= 1 && t.nrow >= 1 && t.header_line >= 1);
    uint32_t last = t.header_line;
    for (size_t r = 0; r < t.nrow; r++) {
        FZ_CHECK(t.line[r] > last);
        last = t.line[r];
        for (size_t c = 0; c < t.ncol; c++)
            FZ_CHECK(t.cell[r * t.ncol + c] != NULL && strpbrk(t.cell[r * t.ncol + c], "\n") == NULL);
    }
    for (size_t c = 0; c < t.ncol; c++) {
        FZ_CHECK(vd_npf_table_col(&t, t.col[c]) == (int)c);   /* names are unique */
        FZ_CHECK(strchr(t.col[c], '\n') == NULL);
    }
    vd_npf_table_free(&t);
    FZ_CHECK(t.cell == NULL && t.nrow == 0);
}

/* The reader keeps every data line as one row, in order, with its line
 * number, x and runs as written; it fails exactly on the first bad line (too
 * long, a NUL byte, a data line without a final newline, a token that is not
 * a finite number, no runs, an x seen before), naming it, or with "PATH: "
 * when there is no data line. */
int fuzz_npf(const uint8_t *d, size_t n)
{
    char path[64];
    int fd = mem_file(d, n, path, sizeof path);
    vd_npf f;
    ddio_err e;
    memset(&e, 0, sizeof e);
    int rc = vd_npf_read(path, &f, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    size_t pos = 0, rows = 0, xcap = 0;
    double *xs = NULL;
    uint32_t ln = 0, bad = 0;
    while (pos < n && !bad) {
        const uint8_t *s = d + pos, *nl = memchr(s, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - s) + 1 : n - pos;
        pos += len;
        ln++;
        if (len > NPF_LINE_MAX || memchr(s, '\0', len)) {
            bad = ln;
            break;
        }
        char *line = malloc(len + 1);
        FZ_CHECK(line != NULL);
        memcpy(line, s, len);
        line[len] = '\0';
        double x, run[64];
        uint32_t runs = 0;
        int k = npf_ref_line(line, &x, run, 64, &runs);
        free(line);
        if (k == 0)
            continue;
        if (!nl)   /* a data line cut short, perhaps mid-number */
            k = -1;
        for (size_t i = 0; k == 1 && i < rows; i++)
            if (xs[i] == x)
                k = -1;
        if (k < 0) {
            bad = ln;
            break;
        }
        if (rows == xcap) {
            xcap = xcap ? 2 * xcap : 16;
            xs = realloc(xs, xcap * sizeof *xs);
            FZ_CHECK(xs != NULL);
        }
        xs[rows] = x;
        if (rc == 0) {
            FZ_CHECK(rows < f.n);
            const vd_npf_row *r = &f.row[rows];
            FZ_CHECK(r->line == ln && r->x == x && r->runs == runs && r->run != NULL);
            for (uint32_t i = 0; i < runs && i < 64; i++)
                FZ_CHECK(r->run[i] == run[i]);
        }
        rows++;
    }
    if (rc == 0) {
        FZ_CHECK(!bad && rows == f.n && f.n >= 1);
        vd_npf_free(&f);
        FZ_CHECK(f.n == 0 && f.row == NULL);
    } else {
        char want[96];
        if (bad)
            snprintf(want, sizeof want, "%s:%u: ", path, bad);
        else
            snprintf(want, sizeof want, "%s: ", path);
        if (!bad && rows)
            fprintf(stderr, "refused a file the reference reads: %s\n", e.msg);
        FZ_CHECK(bad || rows == 0);
        check_err(&e, want);
    }
    free(xs);
    fuzz_npf_table(d, n, path);
    close(fd);
    return 0;
}

/* ================================================================ validate: pcm-pcie */

/* Counts are sums of decimal counts: whole numbers, at least 0. */
static void check_counts(const vd_counts *c, size_t max_samples)
{
    FZ_CHECK(isfinite(c->hit) && c->hit >= 0 && c->hit == floor(c->hit));
    FZ_CHECK(isfinite(c->miss) && c->miss >= 0 && c->miss == floor(c->miss));
    FZ_CHECK(c->samples >= 1 && c->samples <= max_samples);
}

/* Every opcode column on sockets 0 and 1: a result, or an error naming
 * the file (and a line of it).  A sample is a header (a line with a field
 * "Skt") with a (Hit) and a (Miss) row of the socket, so there are at most
 * as many samples as there are of either.  PCIeRdCur (pre-2020 PCM) reads
 * exactly as PCIRdCur. */
int fuzz_pcm(const uint8_t *d, size_t n)
{
    static const char *const columns[] = {"ItoM", "PCIRdCur", "RFO", "PCIeRdCur"};
    char path[64];
    int fd = mem_file(d, n, path, sizeof path);
    unsigned long lines = count_lines(d, n);
    size_t heads = count_substr(d, n, "Skt"), hits = count_substr(d, n, "(Hit)");
    size_t most = heads < hits ? heads : hits;
    for (int sock = 0; sock < 2; sock++) {
        vd_counts got[4];
        int rc[4];
        for (int c = 0; c < 4; c++) {
            ddio_err e;
            memset(&e, 0, sizeof e);
            memset(&got[c], 0, sizeof got[c]);
            rc[c] = vd_pcm_read(path, columns[c], sock, &got[c], &e);
            FZ_CHECK(rc[c] == 0 || rc[c] == -1);
            if (rc[c] == 0)
                check_counts(&got[c], most);
            else
                check_file_err(&e, path, lines + 1);
        }
        FZ_CHECK(rc[3] == rc[1]);
        if (rc[1] == 0)
            FZ_CHECK(got[3].hit == got[1].hit && got[3].miss == got[1].miss && got[3].samples == got[1].samples);
    }
    close(fd);
    return 0;
}

/* ================================================================ validate: perf stat */

/* Every event pair the harness records: a result (finite counts >= 0, at
 * most one sample per line), or an error naming the file (and a line). */
int fuzz_perf(const uint8_t *d, size_t n)
{
    static const char *const names[] = {"itom", "pcirdcur", "rfo"};
    char path[64];
    int fd = mem_file(d, n, path, sizeof path);
    unsigned long lines = count_lines(d, n);
    for (int k = 0; k < 3; k++) {
        vd_counts c;
        ddio_err e;
        memset(&c, 0, sizeof c);
        memset(&e, 0, sizeof e);
        int rc = vd_perf_read(path, names[k], &c, &e);
        FZ_CHECK(rc == 0 || rc == -1);
        if (rc == 0) {
            FZ_CHECK(isfinite(c.hit) && c.hit >= 0 && isfinite(c.miss) && c.miss >= 0);
            FZ_CHECK(c.samples >= 1 && c.samples <= lines);
        } else {
            check_file_err(&e, path, lines + 1);
        }
    }
    close(fd);
    return 0;
}

/* ================================================================ validate: experiment.json */

/* The measured files beside the fuzzed experiment.json: NPF files with and
 * without a series prefix (percent and fractions, an x_from file), two
 * pcm-pcie and two perf runs (one in a subfolder), one that saw no DMA, and
 * a machine file. */
static const struct { const char *name, *text; } exp_files[] = {
    {"W.csv", "64 90 92\n128 95 97\n"},
    {"R.csv", "# rx_ring hit%\n64 80 84\n128 88 90\n"},
    {"P.csv", "64 50\n"},
    {"F.csv", "64 0.9 0.92\n128 0.95 0.97\n"},
    {"X.csv", "64 1024 1024\n128 2048 2048\n"},
    {"256W.csv", "64 91\n128 96\n"},
    {"1500W.csv", "64 90 92\n128 95 97\n"},
    {"1500R.csv", "64 80\n128 88\n"},
    {"1500X.csv", "64 1\n128 2\n"},
    {"PPS.csv", "64 7.5 7.7\n128 8.0 8.2\n"},
    {"T.csv", "64 99.4 99.5\n128 26.7\n"},
    {"LAT.csv", "128 700 710\n64 900 1000\n"},
    {"1500LAT.csv", "64 851\n128 855\n"},
    {"pcm-a.csv", "Skt,PCIRdCur,RFO,CRd,DRd,ItoM,PRd,WiL\n0,50000,200,0,0,400000,0,6(Total)\n"
                  "0,1200,40,0,0,90000,0,6(Miss)\n0,48800,160,0,0,310000,0,0(Hit)\n"
                  "1,42,0,0,12,300,0,0(Total)\n1,12,0,0,3,210,0,0(Miss)\n1,30,0,0,9,90,0,0(Hit)\n"},
    {"pcm-b.csv", "Skt,PCIRdCur,ItoM,ItoMCacheNear,UCRdF,WiL\n0,100,200,30,0,0(Total)\n"
                  "0,10,50,10,0,0(Miss)\n0,90,150,20,0,0(Hit)\n"},
    {"pcm-zero.csv", "Skt,PCIRdCur,RFO,CRd,DRd,ItoM,PRd,WiL\n0,0,0,0,0,0,0,0(Total)\n"
                     "0,0,0,0,0,0,0,0(Miss)\n0,0,0,0,0,0,0,0(Hit)\n"},
    {"perf-a.csv", "4251877,,pcirdcur_hit,20004118532,100.00,,\n93104,,pcirdcur_miss,20004118532,100.00,,\n"
                   "9876543,,itom_hit,20004106117,100.00,,\n2123457,,itom_miss,20004106117,100.00,,\n"
                   "12002,,rfo_hit,20004093410,100.00,,\n2998,,rfo_miss,20004093410,100.00,,\n"},
    {"sub/perf-b.csv", "1.000512844,1000,,itom_hit,1001000567,100.00,,\n"
                       "1.000512844,300,,itom_miss,1001000567,100.00,,\n"
                       "1.000512844,<not supported>,,rfo_hit,0,100.00,,\n"
                       "1.000512844,<not supported>,,rfo_miss,0,100.00,,\n"},
    {"mine.json", "{\"name\": \"mine\"}\n"},
    {"so.csv", "index,build,test_index,N,L,W,R,y_LAT,run_index\n0,b,0,64,1500,90,80,700,0\n"
               "1,b,0,64,1500,92,,710,1\n2,b,1,128,1500,95,88,,0\n"},
    {"WW.csv", "1500 64 90 92\n1500 128 95\n1024 64 97 98 99\n"},
};
#define N_EXP_FILES (sizeof exp_files / sizeof exp_files[0])

/* Does the JSON name only files inside the folder?  A string that starts
 * with '/' or holds ".." could make the loader read the machine's files
 * (never the same twice, or /dev/zero, which has no end): such inputs are
 * skipped.  Text that is not JSON reads nothing but experiment.json. */
static int exp_stays_inside(const cJSON *j)
{
    for (const cJSON *c = j; c; c = c->next) {
        if (cJSON_IsString(c) && (c->valuestring[0] == '/' || strstr(c->valuestring, "..")))
            return 0;
        if (c->child && !exp_stays_inside(c->child))
            return 0;
    }
    return 1;
}

static void put_file(const char *dir, const char *name, const void *d, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    FZ_CHECK(f != NULL);
    FZ_CHECK(fwrite(d, 1, n, f) == n || n == 0);
    FZ_CHECK(fclose(f) == 0);
}

static void remove_file(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FZ_CHECK(unlink(path) == 0);
}

/* The promises of a loaded experiment (validate/experiment.h): points,
 * each with valid parameters (the fixed ones first, the same in every
 * point; x and series present), runs that give the record's mean and sd,
 * means that are rates, points sorted by series, then x. */
static void check_experiment(const vd_experiment *x)
{
    FZ_CHECK(x->n >= 1 && x->point != NULL);
    FZ_CHECK(x->name[0] != '\0');
    int npf = strcmp(x->source, "npf") == 0;
    FZ_CHECK(npf || strcmp(x->source, "pcm-pcie") == 0 || strcmp(x->source, "perf") == 0);
    FZ_CHECK(npf == (x->x_param[0] != '\0'));
    for (size_t i = 0; i < x->n; i++) {
        const vd_point *p = &x->point[i];
        FZ_CHECK(p->n_params <= VD_MAX_PARAMS && x->n_fixed <= p->n_params);
        FZ_CHECK(p->where[0] != '\0');
        for (uint32_t k = 0; k < p->n_params; k++) {
            const vd_param *v = &p->param[k];
            const vd_param_spec *s = vd_param_find(v->name);
            FZ_CHECK(s != NULL);
            FZ_CHECK(vd_point_param(p, v->name) == v);   /* no name twice */
            if (v->text[0] && strcmp(v->text, "offered") == 0) {
                /* "rate": "offered": the point's measured rate, in frame Gb/s */
                FZ_CHECK(x->rate_offered && s->kind == VD_KIND_RATE && p->has_ev[VD_EV_OFFERED_GBPS]);
                FZ_CHECK(isfinite(v->value) && v->value > 0 && v->value <= p->ev[VD_EV_OFFERED_GBPS].mean);
            } else if (v->text[0]) {
                FZ_CHECK(isnan(v->value));
                FZ_CHECK(s->kind == VD_KIND_WORD || (s->kind == VD_KIND_RATE && strcmp(v->text, "max") == 0));
            } else {
                FZ_CHECK(isfinite(v->value) && s->kind != VD_KIND_WORD);
                if (s->kind == VD_KIND_UINT)
                    FZ_CHECK(v->value >= 0 && v->value == floor(v->value) && v->value <= 4294967295.0);
                if (s->kind == VD_KIND_RATE)
                    FZ_CHECK(v->value > 0);
            }
            if (k < x->n_fixed)   /* the same fixed parameters; "offered" values are the point's own */
                FZ_CHECK(strcmp(v->name, x->point[0].param[k].name) == 0 &&
                         (strcmp(v->text, "offered") == 0 ? strcmp(x->point[0].param[k].text, "offered") == 0
                                                          : memcmp(v, &x->point[0].param[k], sizeof *v) == 0));
        }
        if (x->x_param[0])
            FZ_CHECK(vd_point_param(p, x->x_param) != NULL);
        if (x->series_param[0])
            FZ_CHECK(vd_point_param(p, x->series_param) != NULL);
        for (int m = 0; m < VD_METRIC_COUNT; m++) {
            if (!p->has[m])
                continue;
            const vd_record *r = &p->m[m];
            FZ_CHECK(strcmp(r->metric, vd_metric_name((enum vd_metric)m)) == 0 && p->source[m][0]);
            FZ_CHECK(r->runs >= 1 && r->run != NULL);
            double sum = 0;
            for (uint32_t k = 0; k < r->runs; k++) {
                FZ_CHECK(isfinite(r->run[k]));
                if (!npf)   /* hit / (hit + miss) */
                    FZ_CHECK(r->run[k] >= 0 && r->run[k] <= 1);
                else        /* every NPF run is range-checked, not only the mean */
                    FZ_CHECK(r->run[k] >= -1e-9 && r->run[k] <= 1 + 1e-9);
                sum += r->run[k];
            }
            FZ_CHECK(fabs(r->mean - sum / r->runs) <= 1e-12 * (1 + fabs(r->mean)));
            FZ_CHECK(r->mean >= -1e-9 && r->mean <= 1 + 1e-9);
            FZ_CHECK(isfinite(r->sd) && r->sd >= 0 && (r->runs > 1 || r->sd == 0));
        }
        for (int v = 0; v < VD_EV_COUNT; v++) {   /* evidence: as measured, runs >= 0, on a point of metrics */
            if (!p->has_ev[v])
                continue;
            const vd_record *r = &p->ev[v];
            FZ_CHECK(npf && strcmp(r->metric, vd_evidence_name((enum vd_evidence)v)) == 0);
            FZ_CHECK(r->runs >= 1 && r->run != NULL && isfinite(r->mean) && r->mean >= 0);
            int any = 0;
            for (int m = 0; m < VD_METRIC_COUNT; m++)
                any |= p->has[m];
            FZ_CHECK(any);
            for (uint32_t k = 0; k < r->runs; k++)
                FZ_CHECK(isfinite(r->run[k]) && r->run[k] >= 0);
        }
        FZ_CHECK(!x->latency_by_series || x->series_param[0]);
        if (i == 0)
            continue;
        const char *keys[2] = {x->series_param, x->x_param};
        for (int k = 0; k < 2; k++) {
            if (!keys[k][0])
                continue;
            double a = vd_point_param(&x->point[i - 1], keys[k])->value, b = vd_point_param(p, keys[k])->value;
            FZ_CHECK(a <= b);
            if (a < b)
                break;
        }
    }
}

/* The bytes are DIR/experiment.json in a fresh folder holding exp_files;
 * the folder loads (and meets check_experiment) or the error is one line
 * naming a file in it. */
int fuzz_experiment(const uint8_t *d, size_t n)
{
    cJSON *j = cJSON_ParseWithLength((const char *)d, n);
    int inside = !j || exp_stays_inside(j);
    cJSON_Delete(j);
    if (!inside)
        return 0;
    char dir[] = "/dev/shm/ddiosim-fuzz-XXXXXX", tdir[] = "/tmp/ddiosim-fuzz-XXXXXX";
    char *where = mkdtemp(dir);
    if (!where)
        where = mkdtemp(tdir);
    FZ_CHECK(where != NULL);
    char sub[64];
    snprintf(sub, sizeof sub, "%s/sub", where);
    FZ_CHECK(mkdir(sub, 0700) == 0);
    for (size_t i = 0; i < N_EXP_FILES; i++)
        put_file(where, exp_files[i].name, exp_files[i].text, strlen(exp_files[i].text));
    put_file(where, "experiment.json", d, n);

    vd_experiment x;
    ddio_err e;
    memset(&e, 0, sizeof e);
    int rc = vd_experiment_load(where, &x, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc == 0) {
        check_experiment(&x);
        vd_experiment_free(&x);
        FZ_CHECK(x.n == 0 && x.point == NULL);
    } else {
        /* "DIR/experiment.json: ...", "DIR/FILE:LINE: ...", "DIR/FILE: ..." */
        char want[64];
        snprintf(want, sizeof want, "%s/", where);
        check_err(&e, want);
    }

    for (size_t i = 0; i < N_EXP_FILES; i++)
        remove_file(where, exp_files[i].name);
    remove_file(where, "experiment.json");
    FZ_CHECK(rmdir(sub) == 0 && rmdir(where) == 0);
    return 0;
}

/* ------------------------------------------------------------ sweep specs */

/* A parsed grid keeps its promises: the point count is the axes' product
 * and within the cap, no axis repeats a value, every point has one value
 * per parameter, ids are a function of the parameters, and the filter
 * answers 0 or 1 (checked on the first and last points). */
static void check_grid(const sw_spec *s)
{
    double product = 1;
    for (uint32_t a = 0; a < s->n_axes; a++) {
        FZ_CHECK(s->axis[a].n >= 1 && s->axis[a].n <= SW_MAX_VALUES);
        product *= (double)s->axis[a].n;
        for (size_t i = 0; i < s->axis[a].n && i < 64; i++)
            for (size_t k = i + 1; k < s->axis[a].n && k < 64; k++) {
                char x[64], y[64];
                vd_param_format(&s->axis[a].v[i], x, sizeof x);
                vd_param_format(&s->axis[a].v[k], y, sizeof y);
                FZ_CHECK(strcmp(x, y) != 0);
            }
    }
    FZ_CHECK(s->n_axes >= 1 && s->n_fixed + s->n_axes <= VD_MAX_PARAMS);
    FZ_CHECK((double)s->n_grid == product && s->n_grid <= SW_MAX_POINTS);
    for (size_t t = 0; t < 64 && t < s->n_grid; t++) {
        size_t k = t < 32 ? t : s->n_grid - 1 - (t - 32);
        vd_param p[VD_MAX_PARAMS], q[VD_MAX_PARAMS];
        uint32_t n = sw_point_params(s, k, p), m = sw_point_params(s, k, q);
        FZ_CHECK(n == s->n_fixed + s->n_axes && m == n);
        FZ_CHECK(sw_point_id(p, n) == sw_point_id(q, m));
        int sel = sw_point_selected(s, p, n);
        FZ_CHECK(sel == 0 || sel == 1);
    }
}

int fuzz_sweep(const uint8_t *d, size_t n)
{
    char *text = malloc(n + 1);
    FZ_CHECK(text != NULL);
    memcpy(text, d, n);
    text[n] = '\0';   /* a NUL inside ends the text, as a C string */
    sw_spec s;
    ddio_err e;
    memset(&e, 0, sizeof e);
    int rc = sw_spec_parse(text, "fuzz.json", &s, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc == 0) {
        check_grid(&s);
        sw_spec_free(&s);
        FZ_CHECK(s.n_axes == 0 && s.expr == NULL);
    } else {
        check_err(&e, "fuzz.json");
    }
    /* The same text as an advise query. */
    ad_spec a;
    memset(&e, 0, sizeof e);
    rc = ad_spec_parse(text, "fuzz.json", &a, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc == 0) {
        check_grid(&a.grid);
        FZ_CHECK(a.n_c >= 1 && a.n_c <= AD_MAX_CONSTRAINTS);
        for (int i = 0; i < a.n_c; i++)
            FZ_CHECK(a.c[i].lo <= a.c[i].hi && (unsigned)a.c[i].m < AD_METRIC_COUNT);
        ad_spec_free(&a);
    } else {
        check_err(&e, "fuzz.json");
    }
    free(text);
    return 0;
}

/* ------------------------------------------------------- sweep results */

/* The header a fixed two-axis spec writes in format f (malloc'ed). */
static char *results_header(enum sw_format f)
{
    static const char spec[] = "{\"fixed\": {\"pkt_size\": 1500}, \"grid\": {\"ddio_ways\": [2, 4], "
                               "\"policy\": [\"lru\", \"bip\"]}}";
    sw_spec s;
    ddio_err e;
    memset(&e, 0, sizeof e);
    FZ_CHECK(sw_spec_parse(spec, "fuzz-spec.json", &s, &e) == 0);
    runner_opts o;
    memset(&o, 0, sizeof o);
    o.engines = RUNNER_ENGINE_MODEL;
    o.packets = 1000;
    o.seed = 1;
    o.jobs = 1;
    char *h = sw_header(&s, &o, f);
    FZ_CHECK(h != NULL);
    sw_spec_free(&s);
    return h;
}

/* The id of a row as its first 16 characters spell it (after {"id":" in JSONL). */
static uint64_t hex16(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 16; i++)
        v = v << 4 | (uint64_t)(p[i] <= '9' ? p[i] - '0' : p[i] - 'a' + 10);
    return v;
}

/* sw_resume_scan on d[0..n): it reads and never writes; on success the
 * rows tile the file from the header's end to good_bytes, each a whole
 * line whose id is its first hex digits, past good_bytes at most one cut
 * line is left, and good_bytes is 0 or at least the header; an error is
 * one line, exit 2, naming the file and ending "not resumed" (or exit 1:
 * out of memory). */
static void check_scan(const uint8_t *d, size_t n, const char *header, enum sw_format f)
{
    char path[64];
    int fd = mem_file(d, n, path, sizeof path);
    sw_done done;
    ddio_err e;
    memset(&e, 0, sizeof e);
    int rc = sw_resume_scan(path, header, f, &done, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    struct stat st;
    FZ_CHECK(fstat(fd, &st) == 0 && (size_t)st.st_size == n);
    uint8_t *back = malloc(n ? n : 1);
    FZ_CHECK(back != NULL && pread(fd, back, n, 0) == (ssize_t)n && memcmp(back, d, n) == 0);
    free(back);
    close(fd);
    if (rc != 0) {
        if (e.exit_code == DDIO_EXIT_IO)
            return;
        check_err(&e, path);
        size_t len = strlen(e.msg), tail = strlen("not resumed");
        FZ_CHECK(len >= tail && strcmp(e.msg + len - tail, "not resumed") == 0);
        FZ_CHECK(done.n == 0 && done.row == NULL);
        return;
    }
    size_t hlen = strlen(header);
    long long g = done.good_bytes;
    FZ_CHECK(g >= 0 && (size_t)g <= n);
    FZ_CHECK(g == 0 || ((size_t)g >= hlen && memcmp(d, header, hlen) == 0 && d[g - 1] == '\n'));
    FZ_CHECK(memchr(d + g, '\n', n - (size_t)g) == NULL);
    long long at = (long long)hlen;
    size_t failed = 0;
    for (size_t i = 0; i < done.n; i++) {
        const sw_row_at *r = &done.row[i];
        FZ_CHECK(r->offset == at && r->len >= 17 && (size_t)r->offset + r->len <= (size_t)g);
        FZ_CHECK(d[r->offset + (long long)r->len - 1] == '\n');
        FZ_CHECK(memchr(d + r->offset, '\n', r->len - 1) == NULL);
        size_t pre = f == SW_JSONL ? strlen("{\"id\":\"") : 0;
        FZ_CHECK(r->len > pre + 16 && r->id == hex16(d + r->offset + (long long)pre));
        failed += r->failed != 0;
        at += (long long)r->len;
    }
    FZ_CHECK(done.n == 0 ? (g == 0 || g == (long long)hlen) : at == g);
    FZ_CHECK(failed == done.n_failed);
    sw_done_free(&done);
}

/* sw_table_parse on the bytes: a table has an `id` first column and a
 * `status` column after the parameters, every row the header's field
 * count, cells inside the text, rows on increasing lines after the
 * header; an error is one line, exit 2, naming the file. */
static void check_table(const uint8_t *d, size_t n)
{
    char *text = malloc(n + 1);
    FZ_CHECK(text != NULL);
    memcpy(text, d, n);
    text[n] = '\0';
    sw_table t;
    ddio_err e;
    memset(&e, 0, sizeof e);
    int rc = sw_table_parse(text, n, "fuzz.csv", &t, &e);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        check_err(&e, "fuzz.csv:");
        return;
    }
    FZ_CHECK(t.ncol >= 2 && t.ncol <= SW_TABLE_MAX_COLS && strcmp(t.col[0], "id") == 0);
    FZ_CHECK(t.status >= 1 && (size_t)t.status < t.ncol && strcmp(t.col[t.status], "status") == 0);
    FZ_CHECK(t.first_param == 1 && t.n_param == (size_t)t.status - 1);
    for (size_t c = 0; c < t.ncol; c++)
        FZ_CHECK(t.col[c] >= t.text && t.col[c] <= t.text + n);
    size_t prev = t.header_line;
    for (size_t r = 0; r < t.nrow; r++) {
        FZ_CHECK(t.line[r] > prev);
        prev = t.line[r];
        for (size_t c = 0; c < t.ncol; c++) {
            const char *v = t.cell[r * t.ncol + c];
            FZ_CHECK(v >= t.text && v <= t.text + n && v + strlen(v) <= t.text + n);
        }
    }
    FZ_CHECK(t.cut_line == 0 || t.cut_line > prev);
    sw_table_free(&t);
}

int fuzz_results(const uint8_t *d, size_t n)
{
    uint8_t *raw = dup_exact(d, n);
    check_table(raw, n);
    for (int f = 0; f < 2; f++) {
        enum sw_format fmt = f ? SW_JSONL : SW_CSV;
        char *h = results_header(fmt);
        size_t hl = strlen(h);
        /* As given (almost always another run's header: refused), and
         * behind this run's header, where the rows are read. */
        check_scan(raw, n, h, fmt);
        uint8_t *whole = malloc(hl + n + 1);
        FZ_CHECK(whole != NULL);
        memcpy(whole, h, hl);
        if (n)
            memcpy(whole + hl, d, n);
        check_scan(whole, hl + n, h, fmt);
        if (fmt == SW_CSV)
            check_table(whole, hl + n);
        free(whole);
        free(h);
    }
    free(raw);
    return 0;
}
