/* test_traces_pcap.c - the capture reader on hand-built files: the filter's
 * classes, micro/nanosecond pcap, byte-swapped pcap, pcapng, raw IP,
 * truncated and corrupt files, IPv6 (extension headers, fragments, RSS
 * queues), and `ddiosim trace stats` and `simulate` on them. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/markov/predict.h"
#include "sim/queue/pktsrc.h"
#include "tests/helpers.h"
#include "traces/gen.h"
#include "traces/pcap.h"
#include "traces/rss.h"
#include "traces/stats.h"

/* ---- a tiny pcap builder ---- */

typedef struct buf {
    uint8_t d[16384];
    size_t n;
    int be;   /* write multi-byte header fields big-endian (a byte-swapped file) */
} buf;

static void put(buf *b, const void *p, size_t n)
{
    cr_assert(b->n + n <= sizeof b->d);
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static void hdr32(buf *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[b->be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
    put(b, x, 4);
}

static void hdr16(buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)(b->be ? v >> 8 : v), (uint8_t)(b->be ? v : v >> 8)};
    put(b, x, 2);
}

static void file_header(buf *b, uint32_t magic, uint32_t snaplen, uint32_t linktype)
{
    hdr32(b, magic);
    hdr16(b, 2);
    hdr16(b, 4);
    hdr32(b, 0);
    hdr32(b, 0);
    hdr32(b, snaplen);
    hdr32(b, linktype);
}

static void record(buf *b, uint32_t sec, uint32_t sub, const uint8_t *f, uint32_t caplen, uint32_t len)
{
    hdr32(b, sec);
    hdr32(b, sub);
    hdr32(b, caplen);
    hdr32(b, len);
    put(b, f, caplen);
}

static size_t eth(uint8_t *f, uint16_t type)
{
    memset(f, 0, 12);
    f[0] = 0x02, f[6] = 0x02, f[11] = 1;
    f[12] = (uint8_t)(type >> 8), f[13] = (uint8_t)type;
    return 14;
}

/* IPv4 header (checksum left 0: the reader does not check it). */
static size_t ipv4(uint8_t *f, uint8_t proto, uint16_t frag, uint16_t tot, uint32_t src, uint32_t dst)
{
    memset(f, 0, 20);
    f[0] = 0x45;
    f[2] = (uint8_t)(tot >> 8), f[3] = (uint8_t)tot;
    f[6] = (uint8_t)(frag >> 8), f[7] = (uint8_t)frag;
    f[8] = 64;
    f[9] = proto;
    for (int i = 0; i < 4; i++) {
        f[12 + i] = (uint8_t)(src >> (24 - 8 * i));
        f[16 + i] = (uint8_t)(dst >> (24 - 8 * i));
    }
    return 20;
}

static size_t ports(uint8_t *f, uint16_t s, uint16_t d)
{
    memset(f, 0, 8);
    f[0] = (uint8_t)(s >> 8), f[1] = (uint8_t)s, f[2] = (uint8_t)(d >> 8), f[3] = (uint8_t)d;
    return 8;
}

/* An Ethernet IPv4 frame of `len` bytes (payload zero). */
static uint32_t frame_v4(uint8_t *f, uint32_t len, uint8_t proto, uint16_t frag, uint32_t src, uint32_t dst,
                         uint16_t sp, uint16_t dp)
{
    memset(f, 0, len);
    size_t o = eth(f, 0x0800);
    o += ipv4(f + o, proto, frag, (uint16_t)(len - 14), src, dst);
    ports(f + o, sp, dp);
    return len;
}

static char *save(const buf *b)
{
    char *p = write_temp(".pcap", (const char *)b->d, b->n);
    cr_assert_not_null(p);
    return p;
}

/* The mixed capture of the skip-reason tests:
 *  1 UDP  2 TCP  3 VLAN-tagged UDP            -> ok (3)
 *  4 UDP with MF set  5 UDP at offset 185     -> fragment (2)
 *  6 LLDP  7 ARP                              -> not_ip (2)
 *  8 ICMP                                     -> not_tcp_udp (1)
 *  9 TCP cut by a 36-byte snap length         -> truncated (1)
 * 10 IHL 4                                    -> bad_ipv4 (1) */
static char *mixed_capture(void)
{
    static buf b;
    memset(&b, 0, sizeof b);
    uint8_t f[2048];
    file_header(&b, 0xa1b2c3d4, 65535, 1);
    uint32_t a = 0x0a000001, z = 0xac100001;
    uint32_t n = frame_v4(f, 100, 17, 0x4000, a, z, 1000, 53);
    record(&b, 100, 0, f, n, n);
    n = frame_v4(f, 1514, 6, 0x4000, a, z, 1001, 443);
    record(&b, 100, 10, f, n, n);
    /* VLAN: the tag goes between the MACs and the IPv4 ethertype. */
    uint8_t v[200];
    n = frame_v4(f, 150, 17, 0, a + 1, z, 1002, 53);
    memcpy(v, f, 12);
    v[12] = 0x81, v[13] = 0x00, v[14] = 0x00, v[15] = 0x07;
    memcpy(v + 16, f + 12, n - 12);
    record(&b, 100, 20, v, n + 4, n + 4);
    n = frame_v4(f, 1514, 17, 0x2000, a, z, 1003, 53);
    record(&b, 100, 30, f, n, n);
    n = frame_v4(f, 600, 17, 185, a, z, 0, 0);
    record(&b, 100, 40, f, n, n);
    n = 60;
    memset(f, 0, n);
    eth(f, 0x88cc);
    record(&b, 100, 50, f, n, n);
    n = 60;
    memset(f, 0, n);
    eth(f, 0x0806);
    record(&b, 100, 60, f, n, n);
    n = frame_v4(f, 98, 1, 0, a, z, 0x0800, 0);
    record(&b, 100, 70, f, n, n);
    n = frame_v4(f, 1514, 6, 0x4000, a, z, 1004, 80);
    record(&b, 100, 80, f, 36, n);
    n = frame_v4(f, 80, 17, 0, a, z, 1, 2);
    f[14] = 0x44;
    record(&b, 100, 90, f, n, n);
    return save(&b);
}

Test(traces_pcap, skip_reasons_are_counted)
{
    char *path = mixed_capture();
    trace_reader r;
    ddio_err e = {0};
    cr_assert_eq(trace_reader_open(&r, path, 0, &e), 0, "%s", e.msg);
    trace_pkt p;
    uint32_t lens[8];
    int n = 0, st;
    while ((st = trace_reader_next(&r, &p, &e)) == 1) {
        cr_assert_lt(n, 8);
        lens[n++] = p.wire_len;
        cr_expect(p.has_tuple);
        cr_expect_eq(p.cls, TRACE_OK);
    }
    cr_assert_eq(st, 0, "%s", e.msg);
    cr_expect_eq(n, 3);
    cr_expect_eq(lens[0], 100);
    cr_expect_eq(lens[1], 1514);
    cr_expect_eq(lens[2], 154);
    cr_expect_eq(r.records, 10);
    cr_expect_eq(r.count[TRACE_OK], 3);
    cr_expect_eq(r.count[TRACE_FRAGMENT], 2);
    cr_expect_eq(r.count[TRACE_NOT_IP], 2);
    cr_expect_eq(r.count[TRACE_BAD_IPV6], 0);
    cr_expect_eq(r.count[TRACE_NOT_TCP_UDP], 1);
    cr_expect_eq(r.count[TRACE_TRUNCATED], 1);
    cr_expect_eq(r.count[TRACE_BAD_IPV4], 1);
    cr_expect_eq(trace_reader_skipped(&r), 7);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

/* A packet's time does not depend on the filter: a skipped record (ARP)
 * stamped after the kept packet that follows it still clamps that packet,
 * in the default reading as in --all.  Found by the pcap fuzz target. */
Test(traces_pcap, reordering_is_clamped_against_skipped_records_too)
{
    static buf b;
    memset(&b, 0, sizeof b);
    uint8_t f[128];
    file_header(&b, 0xa1b2c3d4, 65535, 1);
    uint32_t n = frame_v4(f, 100, 17, 0x4000, 0x0a000001, 0xac100001, 1000, 53);
    record(&b, 100, 0, f, n, n);
    memset(f, 0, 60);
    eth(f, 0x0806);
    record(&b, 100, 50, f, 60, 60);
    n = frame_v4(f, 100, 17, 0x4000, 0x0a000001, 0xac100001, 1001, 53);
    record(&b, 100, 20, f, n, n);
    char *path = save(&b);
    for (int keep_all = 0; keep_all <= 1; keep_all++) {
        trace_reader r;
        ddio_err e = {0};
        cr_assert_eq(trace_reader_open(&r, path, keep_all, &e), 0, "%s", e.msg);
        trace_pkt p;
        uint64_t last = 0;
        int got = 0;
        while (trace_reader_next(&r, &p, &e) == 1) {
            got++;
            last = p.ts_ns;
        }
        cr_expect_eq(got, keep_all ? 3 : 2);
        cr_expect_eq(last, 100000050000ull, "keep_all %d: %llu", keep_all, (unsigned long long)last);
        cr_expect_eq(r.reordered, 1);
        trace_reader_close(&r);
    }
    unlink(path);
    free(path);
}

Test(traces_pcap, vlan_tuple_is_parsed)
{
    char *path = mixed_capture();
    trace_reader r;
    cr_assert_eq(trace_reader_open(&r, path, 0, NULL), 0);
    trace_pkt p;
    for (int i = 0; i < 3; i++)
        cr_assert_eq(trace_reader_next(&r, &p, NULL), 1);
    cr_expect_eq(p.src_ip, 0x0a000002);
    cr_expect_eq(p.dst_ip, 0xac100001);
    cr_expect_eq(p.src_port, 1002);
    cr_expect_eq(p.dst_port, 53);
    cr_expect_eq(p.proto, 17);
    cr_expect_eq(p.ts_ns, 100ull * 1000000000ull + 20000);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

Test(traces_pcap, stats_cli_reports_skipped_by_reason)
{
    char *path = mixed_capture();
    char args[512];
    snprintf(args, sizeof args, "trace stats --format json %s", path);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_expect_eq(cJSON_GetObjectItem(j, "records")->valuedouble, 10);
    cr_expect_eq(cJSON_GetObjectItem(j, "packets")->valuedouble, 3);
    cr_expect_eq(cJSON_GetObjectItem(j, "bytes")->valuedouble, 100 + 1514 + 154);
    cJSON *sk = cJSON_GetObjectItem(j, "skipped");
    cr_expect_eq(cJSON_GetObjectItem(sk, "total")->valuedouble, 7);
    cr_expect_eq(cJSON_GetObjectItem(sk, "fragment")->valuedouble, 2);
    cr_expect_eq(cJSON_GetObjectItem(sk, "not_ip")->valuedouble, 2);
    cr_expect_eq(cJSON_GetObjectItem(sk, "not_tcp_udp")->valuedouble, 1);
    cr_expect_eq(cJSON_GetObjectItem(sk, "truncated")->valuedouble, 1);
    cr_expect_eq(cJSON_GetObjectItem(sk, "bad_ipv4")->valuedouble, 1);
    cr_expect_eq(cJSON_GetObjectItem(j, "flows")->valuedouble, 3);
    cJSON_Delete(j);
    cli_run_free(&r);

    /* --all: every record counts.  The first three, the MF fragment (its
     * ports are there) and ICMP (ports 0) have a 5-tuple, all distinct; the
     * later fragment, LLDP, ARP, the cut and the bad header have none. */
    snprintf(args, sizeof args, "trace stats --all --format json %s", path);
    r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    j = cJSON_Parse(r.out);
    cr_assert_not_null(j);
    cr_expect_eq(cJSON_GetObjectItem(j, "packets")->valuedouble, 10);
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "skipped"), "total")->valuedouble, 0);
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "classes"), "fragment")->valuedouble, 2);
    cr_expect_eq(cJSON_GetObjectItem(j, "flows")->valuedouble, 5);
    cr_expect_eq(cJSON_GetObjectItem(j, "packets_without_tuple")->valuedouble, 5);
    cJSON_Delete(j);
    cli_run_free(&r);

    snprintf(args, sizeof args, "trace stats %s", path);
    r = run_ddiosim(args);
    cr_assert_eq(r.status, 0);
    cr_expect(strstr(r.out, "skipped     7 (not_ip 2, fragment 2, not_tcp_udp 1, truncated 1, bad_ipv4 1, "
                            "bad_ipv6 0)"),
              "%s", r.out);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

/* One UDP packet at 1.5 s + 123 ns, in the given format. */
static char *one_packet(uint32_t magic, int be, uint32_t sub)
{
    static buf b;
    memset(&b, 0, sizeof b);
    b.be = be;
    uint8_t f[128];
    file_header(&b, magic, 65535, 1);
    uint32_t n = frame_v4(f, 128, 17, 0, 0x0a000001, 0x0a000002, 7, 9);
    record(&b, 1, sub, f, n, n);
    return save(&b);
}

static uint64_t first_ts(const char *path)
{
    trace_reader r;
    ddio_err e = {0};
    cr_assert_eq(trace_reader_open(&r, path, 0, &e), 0, "%s", e.msg);
    trace_pkt p;
    cr_assert_eq(trace_reader_next(&r, &p, &e), 1, "%s", e.msg);
    cr_expect_eq(p.wire_len, 128);
    cr_expect_eq(p.src_port, 7);
    trace_reader_close(&r);
    return p.ts_ns;
}

Test(traces_pcap, nanosecond_and_microsecond_timestamps)
{
    char *ns = one_packet(0xa1b23c4d, 0, 500000123);
    char *us = one_packet(0xa1b2c3d4, 0, 500001);
    char *us_be = one_packet(0xa1b2c3d4, 1, 500001);
    cr_expect_eq(first_ts(ns), 1500000123ull);
    cr_expect_eq(first_ts(us), 1500001000ull);
    cr_expect_eq(first_ts(us_be), 1500001000ull);
    unlink(ns), unlink(us), unlink(us_be);
    free(ns), free(us), free(us_be);
}

static void expect_error(const char *path, const char *want_tail, int code)
{
    char args[512], want[512];
    snprintf(args, sizeof args, "trace stats %s", path);
    snprintf(want, sizeof want, "ddiosim trace stats: %s: %s", path, want_tail);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, code, "%s", r.err);
    cr_expect_eq(strncmp(r.err, want, strlen(want)), 0, "got '%s', want '%s...'", r.err, want);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cli_run_free(&r);
}

/* pcapng blocks are in the writer's byte order; little-endian here. */
static void le32(buf *b, uint32_t v) { hdr32(b, v); }

/* SHB + IDB (Ethernet, default microsecond resolution) + one EPB holding the
 * first 60 bytes of a 1000-byte TCP frame, timestamped `t` microseconds. */
static char *pcapng_one(uint64_t t)
{
    static buf b;
    memset(&b, 0, sizeof b);
    /* Section header block. */
    le32(&b, 0x0a0d0d0a), le32(&b, 28), le32(&b, 0x1a2b3c4d);
    hdr16(&b, 1), hdr16(&b, 0);
    le32(&b, 0xffffffff), le32(&b, 0xffffffff), le32(&b, 28);
    /* Interface description: Ethernet, snaplen 0 (none). */
    le32(&b, 1), le32(&b, 20);
    hdr16(&b, 1), hdr16(&b, 0);
    le32(&b, 0), le32(&b, 20);
    /* Enhanced packet block. */
    uint8_t f[1000];
    frame_v4(f, 1000, 6, 0x4000, 0x0a000001, 0x0a000002, 80, 8080);
    le32(&b, 6), le32(&b, 32 + 60);
    le32(&b, 0), le32(&b, (uint32_t)(t >> 32)), le32(&b, (uint32_t)t);
    le32(&b, 60), le32(&b, 1000);
    put(&b, f, 60);
    le32(&b, 32 + 60);
    return save(&b);
}

Test(traces_pcap, pcapng_is_read)
{
    char *path = pcapng_one(2000250); /* 2 s + 250 us */
    trace_reader r;
    ddio_err e = {0};
    cr_assert_eq(trace_reader_open(&r, path, 0, &e), 0, "%s", e.msg);
    trace_pkt p;
    cr_assert_eq(trace_reader_next(&r, &p, &e), 1, "%s", e.msg);
    cr_expect_eq(p.ts_ns, 2000250000ull);
    cr_expect_eq(p.wire_len, 1000);
    cr_expect_eq(p.cap_len, 60);
    cr_expect_eq(p.dst_port, 8080);
    cr_expect_eq(p.proto, 6);
    cr_expect_eq(trace_reader_next(&r, &p, &e), 0);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

Test(traces_pcap, pcapng_timestamp_beyond_64bit_ns)
{
    /* 2^63 us is 9.2e12 s: no 64-bit count of ns since 1970 holds it.  The
     * packet block starts after the 28-byte SHB and the 20-byte IDB. */
    char *path = pcapng_one(1ull << 63);
    expect_error(path, "packet 1 at byte 48: timestamp 9223372036854 s does not fit 64-bit nanoseconds", 2);
    unlink(path);
    free(path);
}

Test(traces_pcap, raw_ipv4_linktype)
{
    static buf b;
    memset(&b, 0, sizeof b);
    file_header(&b, 0xa1b2c3d4, 65535, 101); /* LINKTYPE_RAW */
    uint8_t f[64];
    memset(f, 0, sizeof f);
    ipv4(f, 17, 0, 64, 0x01020304, 0x05060708);
    ports(f + 20, 1111, 2222);
    record(&b, 1, 0, f, 64, 64);
    f[0] = 0x50; /* IP version 5: not IP */
    record(&b, 1, 1, f, 64, 64);
    char *path = save(&b);
    trace_reader r;
    cr_assert_eq(trace_reader_open(&r, path, 0, NULL), 0);
    trace_pkt p;
    cr_assert_eq(trace_reader_next(&r, &p, NULL), 1);
    cr_expect_eq(p.src_ip, 0x01020304);
    cr_expect_eq(p.dst_port, 2222);
    cr_expect_eq(trace_reader_next(&r, &p, NULL), 0);
    cr_expect_eq(r.count[TRACE_NOT_IP], 1);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

Test(traces_pcap, unsupported_link_type)
{
    static buf b;
    memset(&b, 0, sizeof b);
    file_header(&b, 0xa1b2c3d4, 65535, 105); /* 802.11 */
    char *path = save(&b);
    char args[512];
    snprintf(args, sizeof args, "trace stats %s", path);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, path) && strstr(r.err, "link type") && strstr(r.err, "not supported"), "%s", r.err);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

/* 10 frames of 100 bytes: record k (1-based) starts at 24 + (k-1) * 116. */
static char *ten_packets(void)
{
    char *path = write_temp(".pcap", "", 0);
    gen_config c;
    gen_config_default(&c);
    c.fixed_size = 100;
    c.packets = 10;
    ddio_err e = {0};
    cr_assert_eq(gen_write_pcap(&c, path, &e), 0, "%s", e.msg);
    return path;
}

static void cut(const char *path, size_t keep)
{
    size_t n;
    char *d = slurp(path, &n);
    cr_assert(d && n > keep);
    FILE *f = fopen(path, "wb");
    cr_assert(fwrite(d, 1, keep, f) == keep);
    fclose(f);
    free(d);
}

Test(traces_pcap, truncated_inside_packet_data)
{
    char *path = ten_packets();
    cut(path, 24 + 4 * 116 + 16 + 50); /* half of packet 5's bytes */
    expect_error(path, "packet 5 at byte 488: ", 2);
    trace_reader r;
    ddio_err e = {0};
    cr_assert_eq(trace_reader_open(&r, path, 0, &e), 0);
    trace_pkt p;
    int k = 0, st;
    while ((st = trace_reader_next(&r, &p, &e)) == 1)
        k++;
    cr_expect_eq(st, -1);
    cr_expect_eq(k, 4);
    cr_expect_eq(e.exit_code, 2);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

Test(traces_pcap, truncated_inside_record_header)
{
    char *path = ten_packets();
    cut(path, 24 + 6 * 116 + 9);
    expect_error(path, "packet 7 at byte 720: ", 2);
    unlink(path);
    free(path);
}

Test(traces_pcap, caplen_beyond_wire_length_is_corrupt)
{
    char *path = ten_packets();
    size_t n;
    char *d = slurp(path, &n);
    /* Packet 3's wire length field (offset 12 in its record) -> 50 < caplen 100. */
    d[24 + 2 * 116 + 12] = 50;
    FILE *f = fopen(path, "wb");
    fwrite(d, 1, n, f);
    fclose(f);
    free(d);
    expect_error(path, "packet 3 at byte 256: captured length 100 exceeds wire length 50", 2);
    unlink(path);
    free(path);
}

Test(traces_pcap, garbage_empty_and_missing_files)
{
    const char junk[] = "this is not a capture file at all, just some text\n";
    char *g = write_temp(".pcap", junk, sizeof junk - 1);
    expect_error(g, "not a readable pcap or pcapng capture", 2);
    char *z = write_temp(".pcap", "", 0);
    expect_error(z, "not a readable pcap or pcapng capture", 2);
    expect_error("/nonexistent/x.pcap", "cannot open: No such file or directory", 2);
    unlink(g), unlink(z);
    free(g), free(z);
}

Test(traces_pcap, writer_microsecond_magic_and_truncation)
{
    char *path = write_temp(".pcap", "", 0);
    trace_writer w;
    ddio_err e = {0};
    uint8_t f[200];
    frame_v4(f, 200, 17, 0, 1, 2, 3, 4);
    cr_assert_eq(trace_writer_open(&w, path, 64, 0, TRACE_DLT_EN10MB, &e), 0, "%s", e.msg);
    cr_assert_eq(trace_writer_write(&w, 3000000999ull, f, 200, 200, &e), 0);
    cr_assert_eq(trace_writer_commit(&w, &e), 0, "%s", e.msg);
    size_t n;
    uint8_t *d = (uint8_t *)slurp(path, &n);
    cr_assert_eq(n, 24 + 16 + 64);
    cr_expect_eq(d[0], 0xd4);
    cr_expect_eq(d[3], 0xa1);
    /* ts 3 s + 0.999 us -> 3 s, 0 us (truncated, not rounded) */
    cr_expect_eq(d[24], 3);
    cr_expect_eq(d[28], 0);
    cr_expect_eq(d[32], 64);
    cr_expect_eq(d[36], 200);
    free(d);
    unlink(path);
    free(path);
}

Test(traces_pcap, writer_failure_leaves_nothing)
{
    trace_writer w;
    ddio_err e = {0};
    cr_expect_eq(trace_writer_open(&w, "/nonexistent-dir/x.pcap", 100, 1, 1, &e), -1);
    cr_expect_eq(e.exit_code, 1);
    cr_expect(strstr(e.msg, "/nonexistent-dir/x.pcap: cannot create"), "%s", e.msg);
}

Test(traces_pcap, stats_percentiles_and_histogram)
{
    trace_stats s;
    cr_assert_eq(trace_stats_init(&s, NULL), 0);
    trace_pkt p = {0};
    /* 100 packets: lengths 1..100 x 15 B, one per 10 ns. */
    for (uint32_t i = 1; i <= 100; i++) {
        p.ts_ns = 1000 + 10 * i;
        p.wire_len = p.cap_len = 15 * i;
        p.has_tuple = 1;
        p.src_ip = i % 7;
        cr_assert_eq(trace_stats_add(&s, &p, NULL), 0);
    }
    cr_expect_eq(trace_stats_percentile(&s, 1), 15);
    cr_expect_eq(trace_stats_percentile(&s, 10), 150);
    cr_expect_eq(trace_stats_percentile(&s, 50), 750);
    cr_expect_eq(trace_stats_percentile(&s, 99), 1485);
    cr_expect_eq(trace_stats_percentile(&s, 100), 1500);
    cr_expect_eq(s.flows, 7);
    cr_expect_eq(s.bins[0], 4);  /* 15..60 */
    cr_expect_eq(s.bins[5], 32); /* 1035..1500 (1020 falls in 512-1023) */
    cr_expect_float_eq(trace_stats_mean(&s), 757.5, 1e-9);
    /* 99 gaps of 10 ns carry the first 99 packets: (sum - 1500) * 8 / 990 ns. */
    cr_expect_float_eq(trace_stats_gbps(&s, 0), (75750.0 - 1500.0) * 8 / 990.0, 1e-9);
    cr_expect_float_eq(trace_stats_mpps(&s), 99.0 * 1e3 / 990.0, 1e-9);
    trace_stats_free(&s);
}

/* ---- IPv6 ---- */

/* Microsoft's first IPv6 RSS row: 3ffe:2501:200:1fff::7 -> 3ffe:2501:200:3::1. */
static const uint8_t v6a[16] = {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07};
static const uint8_t v6b[16] = {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01};

/* IPv6 fixed header: payload length plen, next header nh. */
static size_t ipv6(uint8_t *f, uint8_t nh, uint16_t plen, const uint8_t src[16], const uint8_t dst[16])
{
    memset(f, 0, 40);
    f[0] = 0x60;
    f[4] = (uint8_t)(plen >> 8), f[5] = (uint8_t)plen;
    f[6] = nh;
    f[7] = 64;
    memcpy(f + 8, src, 16);
    memcpy(f + 24, dst, 16);
    return 40;
}

/* An Ethernet IPv6 frame of `len` bytes, a -> b: 8-byte extension headers
 * of the types ext[0 .. n_ext) (a fragment header's offset-and-M field
 * `om`), then `proto` with ports sp, dp. */
static uint32_t frame_v6(uint8_t *f, uint32_t len, const uint8_t *ext, int n_ext, uint16_t om, uint8_t proto,
                         uint16_t sp, uint16_t dp)
{
    memset(f, 0, len);
    size_t o = eth(f, 0x86dd);
    o += ipv6(f + o, n_ext ? ext[0] : proto, (uint16_t)(len - 54), v6a, v6b);
    for (int i = 0; i < n_ext; i++, o += 8) {
        f[o] = i + 1 < n_ext ? ext[i + 1] : proto;   /* hdr ext len 0: 8 bytes */
        if (ext[i] == 44)
            f[o + 2] = (uint8_t)(om >> 8), f[o + 3] = (uint8_t)om;
    }
    ports(f + o, sp, dp);
    return len;
}

/* The IPv6 capture, record by record:
 *  1 IPv4 UDP  2 IPv6 TCP  3 IPv6 UDP after hop-by-hop
 * 10 IPv6 UDP after routing, atomic fragment, destination options -> ok (4)
 *  4 IPv6 first fragment (M set) of UDP  5 a later one (offset 185) -> fragment (2)
 *  6 IPv6 TCP cut inside the fixed header (50 of 54 bytes)        -> truncated (1)
 *  7 destination options of 40 bytes in a payload of 16            -> bad_ipv6 (1)
 *  8 ARP                                                          -> not_ip (1)
 *  9 ICMPv6                                                       -> not_tcp_udp (1) */
static char *ipv6_capture(void)
{
    static buf b;
    memset(&b, 0, sizeof b);
    uint8_t f[2048];
    file_header(&b, 0xa1b2c3d4, 65535, 1);
    static const uint8_t hbh[] = {0}, frag[] = {44}, dst[] = {60}, chain[] = {43, 44, 60};
    uint32_t n = frame_v4(f, 100, 17, 0, 0x0a000001, 0xac100001, 1000, 53);
    record(&b, 200, 0, f, n, n);
    n = frame_v6(f, 200, NULL, 0, 0, 6, 2794, 1766);
    record(&b, 200, 10, f, n, n);
    n = frame_v6(f, 150, hbh, 1, 0, 17, 5000, 53);
    record(&b, 200, 20, f, n, n);
    n = frame_v6(f, 1300, frag, 1, 0x0001, 17, 5001, 53);
    record(&b, 200, 30, f, n, n);
    n = frame_v6(f, 500, frag, 1, 185 << 3, 17, 0, 0);
    record(&b, 200, 40, f, n, n);
    n = frame_v6(f, 1514, NULL, 0, 0, 6, 2795, 80);
    record(&b, 200, 50, f, 50, n);
    n = frame_v6(f, 70, dst, 1, 0, 17, 1, 2);
    f[55] = 4;   /* (4 + 1) x 8 = 40 bytes, beyond the 16 of the payload */
    record(&b, 200, 60, f, n, n);
    n = 60;
    memset(f, 0, n);
    eth(f, 0x0806);
    record(&b, 200, 70, f, n, n);
    n = frame_v6(f, 90, NULL, 0, 0, 58, 0x8000, 0);
    record(&b, 200, 80, f, n, n);
    n = frame_v6(f, 300, chain, 3, 0, 17, 6000, 7000);
    record(&b, 200, 90, f, n, n);
    return save(&b);
}

Test(traces_pcap, ipv6_classes_and_tuples)
{
    static const struct {
        enum trace_class cls;
        uint8_t has_tuple, ipv6;
        uint16_t sport, dport;
    } want[10] = {
        {TRACE_OK, 1, 0, 1000, 53},          {TRACE_OK, 1, 1, 2794, 1766},      {TRACE_OK, 1, 1, 5000, 53},
        {TRACE_FRAGMENT, 1, 1, 5001, 53},    {TRACE_FRAGMENT, 0, 1, 0, 0},      {TRACE_TRUNCATED, 0, 0, 0, 0},
        {TRACE_BAD_IPV6, 0, 1, 0, 0},        {TRACE_NOT_IP, 0, 0, 0, 0},        {TRACE_NOT_TCP_UDP, 1, 1, 0, 0},
        {TRACE_OK, 1, 1, 6000, 7000},
    };
    char *path = ipv6_capture();
    trace_reader r;
    ddio_err e = {0};
    cr_assert_eq(trace_reader_open(&r, path, 1, &e), 0, "%s", e.msg);
    trace_pkt p;
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(trace_reader_next(&r, &p, &e), 1, "%s", e.msg);
        cr_expect_eq(p.cls, want[i].cls, "record %d: %s", i + 1, trace_class_name(p.cls));
        cr_expect_eq(p.has_tuple, want[i].has_tuple, "record %d", i + 1);
        cr_expect_eq(p.ipv6, want[i].ipv6, "record %d", i + 1);
        cr_expect(p.src_port == want[i].sport && p.dst_port == want[i].dport, "record %d", i + 1);
        if (p.ipv6)
            cr_expect(memcmp(p.src6, v6a, 16) == 0 && memcmp(p.dst6, v6b, 16) == 0, "record %d", i + 1);
    }
    cr_expect_eq(trace_reader_next(&r, &p, &e), 0);
    trace_reader_close(&r);
    /* The filter: the four ok, the other six counted by class. */
    cr_assert_eq(trace_reader_open(&r, path, 0, &e), 0, "%s", e.msg);
    int n = 0;
    while (trace_reader_next(&r, &p, &e) == 1)
        n++;
    cr_expect_eq(n, 4);
    cr_expect_eq(r.count[TRACE_OK], 4);
    cr_expect_eq(r.count[TRACE_FRAGMENT], 2);
    cr_expect_eq(r.count[TRACE_TRUNCATED], 1);
    cr_expect_eq(r.count[TRACE_BAD_IPV6], 1);
    cr_expect_eq(r.count[TRACE_NOT_IP], 1);
    cr_expect_eq(r.count[TRACE_NOT_TCP_UDP], 1);
    cr_expect_eq(r.count[TRACE_BAD_IPV4], 0);
    cr_expect_eq(trace_reader_skipped(&r), 6);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

/* A raw-IP capture (LINKTYPE_RAW) holds IPv6 as well: the version decides. */
Test(traces_pcap, raw_ipv6_linktype)
{
    static buf b;
    memset(&b, 0, sizeof b);
    file_header(&b, 0xa1b2c3d4, 65535, 101);
    uint8_t f[128];
    frame_v6(f, 14 + 64, NULL, 0, 0, 17, 1111, 2222);
    record(&b, 1, 0, f + 14, 64, 64);
    char *path = save(&b);
    trace_reader r;
    cr_assert_eq(trace_reader_open(&r, path, 0, NULL), 0);
    trace_pkt p;
    cr_assert_eq(trace_reader_next(&r, &p, NULL), 1);
    cr_expect(p.ipv6 && memcmp(p.dst6, v6b, 16) == 0);
    cr_expect_eq(p.dst_port, 2222);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

Test(traces_pcap, stats_cli_counts_ipv6)
{
    char *path = ipv6_capture();
    char args[512];
    snprintf(args, sizeof args, "trace stats --format json %s", path);
    cJSON *j = run_ddiosim_json(args);
    cr_expect_eq(cJSON_GetObjectItem(j, "packets")->valuedouble, 4);
    cr_expect_eq(cJSON_GetObjectItem(j, "flows")->valuedouble, 4);
    cJSON *v6 = cJSON_GetObjectItem(j, "ipv6");
    cr_expect_eq(cJSON_GetObjectItem(v6, "packets")->valuedouble, 3);
    cr_expect_eq(cJSON_GetObjectItem(v6, "flows")->valuedouble, 3);
    cJSON *sk = cJSON_GetObjectItem(j, "skipped");
    cr_expect_eq(cJSON_GetObjectItem(sk, "total")->valuedouble, 6);
    cr_expect_eq(cJSON_GetObjectItem(sk, "bad_ipv6")->valuedouble, 1);
    cr_expect_eq(cJSON_GetObjectItem(sk, "not_ip")->valuedouble, 1);
    cJSON_Delete(j);
    /* --all: IPv6 packets are those whose fixed header was captured (not
     * record 6); the first fragment and ICMPv6 add two IPv6 flows. */
    snprintf(args, sizeof args, "trace stats --all --format json %s", path);
    j = run_ddiosim_json(args);
    cr_expect_eq(cJSON_GetObjectItem(j, "packets")->valuedouble, 10);
    cr_expect_eq(cJSON_GetObjectItem(j, "flows")->valuedouble, 6);
    cr_expect_eq(cJSON_GetObjectItem(j, "packets_without_tuple")->valuedouble, 4);
    v6 = cJSON_GetObjectItem(j, "ipv6");
    cr_expect_eq(cJSON_GetObjectItem(v6, "packets")->valuedouble, 7);
    cr_expect_eq(cJSON_GetObjectItem(v6, "flows")->valuedouble, 5);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "trace stats %s", path);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\nskipped     6 (not_ip 1, fragment 2, not_tcp_udp 1, truncated 1, bad_ipv4 0, "
                            "bad_ipv6 1)\n"),
              "%s", r.out);
    cr_expect(strstr(r.out, "\nflows       4 distinct 5-tuples\nipv6        3 packets (75.00%), 3 flows\n"), "%s",
              r.out);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

/* simulate runs the IPv6 packets and names what it skipped. */
Test(traces_pcap, simulate_counts_ipv6_and_skips_by_class, .timeout = 120)
{
    char *path = ipv6_capture();
    char args[512];
    snprintf(args, sizeof args, "simulate --trace %s --packets 40 --warmup 0 --format json", path);
    cJSON *j = run_ddiosim_json(args);
    cJSON *sk = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "input"), "skipped");
    cr_expect_eq(cJSON_GetObjectItem(sk, "total")->valuedouble, 6);
    cr_expect_eq(cJSON_GetObjectItem(sk, "not_ip")->valuedouble, 1);
    cr_expect_eq(cJSON_GetObjectItem(sk, "fragment")->valuedouble, 2);
    cr_expect_eq(cJSON_GetObjectItem(sk, "not_tcp_udp")->valuedouble, 1);
    cr_expect_eq(cJSON_GetObjectItem(sk, "truncated")->valuedouble, 1);
    cr_expect_eq(cJSON_GetObjectItem(sk, "bad_ipv4")->valuedouble, 0);
    cr_expect_eq(cJSON_GetObjectItem(sk, "bad_ipv6")->valuedouble, 1);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "simulate --trace %s --packets 40 --warmup 0", path);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\n  6 records of each pass skipped (not_ip 1, fragment 2, not_tcp_udp 1, truncated 1, "
                            "bad_ipv6 1): only unfragmented IPv4/IPv6 TCP/UDP is simulated"),
              "%s", r.out);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

/* The RSS hash and queue of each packet a simulation injects, held or
 * streamed: the IPv6 ones hashed over their 16-byte addresses and ports
 * (the first is Microsoft's row, 0x40207d3d: RETA entry 61, queue 1 of 4)
 * and sent to reta[hash & 127] as IPv4's; and the model's per-core shares
 * of the same trace. */
Test(traces_pcap, ipv6_flows_are_hashed_to_queues)
{
    char *path = ipv6_capture();
    rss r;
    cr_assert_eq(rss_init(&r, NULL, 0, 4, 128, NULL), 0);
    const uint32_t h[4] = {rss_hash_ipv4_l4(&r, 0x0a000001, 0xac100001, 1000, 53), 0x40207d3d,
                           rss_hash_ipv6_l4(&r, v6a, v6b, 5000, 53), rss_hash_ipv6_l4(&r, v6a, v6b, 6000, 7000)};
    double share[4] = {0};
    for (int k = 0; k < 4; k++)
        share[(h[k] & 127) % 4] += 0.25;
    cr_expect_eq(rss_queue(&r, h[1]), 1);
    for (uint64_t mem_max = 0; mem_max < 2; mem_max++) {
        pktsrc s;
        ddio_err e = {0};
        dsim_source src = {.trace = path, .trace_mem_max = mem_max};
        cr_assert_eq(pktsrc_open(&s, &src, 8, 0, 100.0, 0, 1, &e), 0, "%s", e.msg);
        cr_expect_eq(s.mem != NULL, mem_max == 0);
        const pktsrc_pkt *p;
        for (int k = 0; k < 8; k++) {
            cr_assert_eq(pktsrc_next_ref(&s, &p, &e), 1, "%s", e.msg);
            cr_expect_eq(p->ipv6, k % 4 != 0, "packet %d", k);
            if (p->ipv6)
                cr_expect(memcmp(p->ip6, v6a, 16) == 0 && memcmp(p->ip6 + 16, v6b, 16) == 0);
            uint32_t got = pktsrc_rss_hash(&r, p);
            cr_expect_eq(got, h[k % 4], "packet %d: 0x%08x", k, got);
            cr_expect_eq(rss_queue(&r, got), (h[k % 4] & 127) % 4);
        }
        pktsrc_close(&s);
    }
    mk_traffic t;
    ddio_err e = {0};
    dsim_source src = {.trace = path};
    cr_assert_eq(mk_traffic_from_source(&t, &src, 0, 1, 4, 0, &e), 0, "%s", e.msg);
    for (int q = 0; q < 4; q++)
        cr_expect_float_eq(t.share[q], share[q], 1e-12, "queue %d", q);
    mk_traffic_free(&t);
    unlink(path);
    free(path);
}

/* ---- the reader's fast path against libpcap ---- */

/* `path` read twice with every record kept, by the reader as it is (its
 * fast path for a plain classic pcap: `fast` says whether it starts
 * there) and by libpcap alone: the same records, bytes, classes and
 * tuples, and at a bad record the same error.  Returns the records read. */
static uint64_t both_readers_agree(const char *path, int fast)
{
    trace_reader a, b;
    ddio_err ea = {0}, eb = {0};
    int oa = trace_reader_open(&a, path, 1, &ea), ob = trace_reader_open(&b, path, 1, &eb);
    cr_assert_eq(oa, ob, "%s: %s / %s", path, ea.msg, eb.msg);
    if (oa != 0) {
        cr_expect_str_eq(ea.msg, eb.msg);
        return 0;
    }
    trace_reader_use_libpcap(&b);
    cr_expect_eq(a.fast != NULL, fast, "%s: the fast path %s", path, fast ? "is taken" : "is not for it");
    uint64_t k = 0;
    for (;; k++) {
        trace_pkt p, q;
        int ra = trace_reader_next(&a, &p, &ea), rb = trace_reader_next(&b, &q, &eb);
        cr_assert_eq(ra, rb, "%s record %llu: %d / %d (%s / %s)", path, (unsigned long long)k, ra, rb, ea.msg, eb.msg);
        if (ra < 0) {
            cr_expect_str_eq(ea.msg, eb.msg, "%s", path);
            cr_expect_eq(ea.exit_code, eb.exit_code);
        }
        if (ra != 1)
            break;
        cr_assert(p.ts_ns == q.ts_ns && p.wire_len == q.wire_len && p.cap_len == q.cap_len && p.cls == q.cls &&
                      p.has_tuple == q.has_tuple && p.src_ip == q.src_ip && p.dst_ip == q.dst_ip &&
                      p.src_port == q.src_port && p.dst_port == q.dst_port && p.proto == q.proto &&
                      p.ipv6 == q.ipv6 && memcmp(p.data, q.data, p.cap_len) == 0,
                  "%s record %llu", path, (unsigned long long)k);
    }
    cr_expect_eq(a.reordered, b.reordered);
    cr_expect(memcmp(a.count, b.count, sizeof a.count) == 0, "%s: the classes", path);
    trace_reader_close(&a);
    trace_reader_close(&b);
    return k;
}

Test(traces_pcap, fast_path_reads_the_samples_and_corpus_as_libpcap)
{
    const char *samples[] = {"mawi-64k.pcap", "imix-10k.pcap", "fixed1500-10k.pcap"};
    const uint64_t records[] = {65536, 10000, 10000};
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/traces/samples/%s", DDIOSIM_SOURCE_DIR, samples[i]);
        cr_expect_eq(both_readers_agree(path, 1), records[i], "%s", samples[i]);
    }
    /* The pcap fuzz target's corpus: classic and pcapng, records over the
     * snap length, a pcapng timestamp past 64-bit ns. */
    const char *corpus[] = {"offset-after-record-over-snaplen.pcap", "pcapng-ts-beyond-64bit-ns.pcapng",
                            "reorder-skipped-record", "seed-basic.pcapng", "seed-classes-eth.pcap"};
    for (int i = 0; i < 5; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fuzz/corpus/pcap/%s", DDIOSIM_SOURCE_DIR, corpus[i]);
        both_readers_agree(path, strstr(corpus[i], "pcapng") == NULL);
    }
}

/* Hand-built files: timestamps libpcap takes as signed 32-bit fields (a
 * second past 2^31, a fraction of 10^9 and more, a negative one) in a
 * microsecond and a nanosecond file; a record over the snap length in the
 * middle (libpcap cuts it: the fast path hands it over and libpcap reads
 * the rest); a file cut inside a record and inside a header; a
 * byte-swapped file and a version 2.3 one, which libpcap reads alone. */
Test(traces_pcap, fast_path_hands_what_is_not_plain_to_libpcap)
{
    static buf b;
    uint8_t f[256];
    const uint32_t n = frame_v4(f, 200, 17, 0, 0x0a000001, 0x0a000002, 7, 9);
    const uint32_t secs[] = {5, 0x80000001u, 5, 7, 7};
    const uint32_t subs[] = {999999, 3, 1000000000u, 0xffffffffu, 0x7fffffffu};
    for (int nsec = 0; nsec < 2; nsec++)
        for (int i = 0; i < 5; i++) {
            /* A plain record, then the case: only the first case is a
             * valid time (the others: before 1970, a fraction of 10^9 ns
             * or more, a negative one). */
            memset(&b, 0, sizeof b);
            file_header(&b, nsec ? 0xa1b23c4d : 0xa1b2c3d4, 65535, 1);
            record(&b, 1, 0, f, n, n);
            record(&b, secs[i], subs[i], f, n - 1, n);
            char *path = save(&b);
            cr_expect_eq(both_readers_agree(path, 1), i == 0 ? 2 : 1, "case %d, nsec %d", i, nsec);
            unlink(path);
            free(path);
        }
    /* Over the snap length in the middle, then plain records again. */
    memset(&b, 0, sizeof b);
    file_header(&b, 0xa1b2c3d4, 150, 1);
    for (int i = 0; i < 6; i++)
        record(&b, 10 + (uint32_t)i, 0, f, i == 2 ? n : 120, n);
    char *over = save(&b);
    cr_expect_eq(both_readers_agree(over, 1), 6);
    trace_reader r;
    ddio_err e = {0};
    cr_assert_eq(trace_reader_open(&r, over, 1, &e), 0, "%s", e.msg);
    trace_pkt p;
    for (int i = 0; i < 3; i++)
        cr_assert_eq(trace_reader_next(&r, &p, &e), 1, "%s", e.msg);
    cr_expect_eq(p.cap_len, 150, "cut to the snap length");
    cr_expect_null(r.fast, "libpcap reads from the record over the snap length on");
    cr_assert_eq(trace_reader_next(&r, &p, &e), 1, "%s", e.msg);
    cr_expect_eq(p.cap_len, 120);
    trace_reader_close(&r);
    /* Cut inside the data and inside a header: libpcap's error, the
     * record's offset. */
    char *ten = ten_packets();
    cr_expect_eq(both_readers_agree(ten, 1), 10);
    cut(ten, 24 + 4 * 116 + 16 + 50);
    cr_expect_eq(both_readers_agree(ten, 1), 4);
    cut(ten, 24 + 3 * 116 + 9);
    cr_expect_eq(both_readers_agree(ten, 1), 3);
    /* Byte-swapped, and version 2.3: libpcap alone. */
    char *swapped = one_packet(0xa1b2c3d4, 1, 500001);
    cr_expect_eq(both_readers_agree(swapped, 0), 1);
    memset(&b, 0, sizeof b);
    file_header(&b, 0xa1b2c3d4, 65535, 1);
    b.d[6] = 3;   /* minor version 3: libpcap may swap the lengths */
    record(&b, 1, 0, f, n, n);
    char *v23 = save(&b);
    cr_expect_eq(both_readers_agree(v23, 0), 1);
    unlink(over), unlink(ten), unlink(swapped), unlink(v23);
    free(over), free(ten), free(swapped), free(v23);
}

/* A little-endian classic pcap with snap length `snaplen` and a record of
 * each captured length in caps[] (the frame of frame_v4, zero beyond). */
static char *big_records(uint32_t snaplen, const uint32_t *caps, int n)
{
    char *path = write_temp(".pcap", "", 0);
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    static buf h;
    memset(&h, 0, sizeof h);
    file_header(&h, 0xa1b2c3d4, snaplen, 1);
    uint8_t *frame = calloc(1, 300000);
    cr_assert_not_null(frame);
    frame_v4(frame, 200, 17, 0, 0x0a000001, 0x0a000002, 7, 9);
    for (int i = 0; i < n; i++)
        record(&h, 1 + (uint32_t)i, 0, frame, 0, caps[i] > 200 ? caps[i] : 200);
    /* The headers were built without data: write each header, then its bytes. */
    cr_assert_eq(fwrite(h.d, 1, 24, fp), 24);
    for (int i = 0; i < n; i++) {
        uint8_t *r = h.d + 24 + 16 * (size_t)i;
        for (int k = 0; k < 4; k++)   /* the captured length, little-endian as the header */
            r[8 + k] = (uint8_t)(caps[i] >> (8 * k));
        cr_assert_eq(fwrite(r, 1, 16, fp), 16);
        cr_assert_eq(fwrite(frame, 1, caps[i], fp), caps[i]);
    }
    fclose(fp);
    free(frame);
    return path;
}

/* A snap length above libpcap's 262 144-byte maximum: libpcap refuses a
 * record longer than the maximum, whatever the file says, and reads one
 * within it; the fast path hands the first over and reads the second. */
Test(traces_pcap, fast_path_keeps_libpcaps_maximum_record)
{
    const uint32_t refused[] = {200, 270000, 200}, taken[] = {200, 200000, 200};
    char *a = big_records(300000, refused, 3), *b = big_records(300000, taken, 3);
    cr_expect_eq(both_readers_agree(a, 1), 1, "the 270 000-byte record is an error");
    cr_expect_eq(both_readers_agree(b, 1), 3);
    expect_error(a, "packet 2 at byte 240: invalid packet capture length 270000, bigger than maximum of 262144", 2);
    unlink(a), unlink(b);
    free(a), free(b);
}
