/* test_traces_gen.c - the synthetic trace generator: round trips gen -> read
 * -> stats for each profile (tolerances as in docs/traces.md), rates,
 * determinism, flows, checksums, snap lengths, tcpdump, and the CLI. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "traces/gen.h"
#include "traces/pcap.h"
#include "traces/rss.h"
#include "traces/stats.h"

/* Run `ddiosim trace gen ARGS -o TMP` and return TMP. */
static char *gen_cli(const char *args)
{
    char *path = write_temp(".pcap", "", 0);
    cr_assert_not_null(path);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "trace gen %s -o %s", args, path);
    cli_run r = run_ddiosim(cmd);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    cr_assert_str_eq(r.err, "");
    cli_run_free(&r);
    return path;
}

static void read_stats(const char *path, trace_stats *s)
{
    ddio_err e = {0};
    cr_assert_eq(trace_stats_read(s, path, 0, &e), 0, "%s", e.msg);
}

static void drop(char *path)
{
    unlink(path);
    free(path);
}

Test(traces_gen, fixed_round_trip_sizes_and_rate)
{
    const uint32_t sizes[] = {64, 1500, 9000};
    for (size_t i = 0; i < 3; i++) {
        char args[128];
        snprintf(args, sizeof args, "--profile fixed:%u --packets 5000 --rate 40", sizes[i]);
        char *p = gen_cli(args);
        trace_stats s;
        read_stats(p, &s);
        cr_expect_eq(s.packets, 5000);
        cr_expect_eq(trace_stats_skipped(&s), 0);
        /* Mean within 1 % (it is exact: every frame has SIZE bytes). */
        cr_expect_leq(fabs(trace_stats_mean(&s) - sizes[i]), 0.01 * sizes[i]);
        cr_expect_eq(s.min_len, sizes[i]);
        cr_expect_eq(s.max_len, sizes[i]);
        /* Constant bit rate: exact up to the 1-ns rounding of timestamps. */
        cr_expect_leq(fabs(trace_stats_gbps(&s, 0) - 40.0), 40.0 * 1e-4, "%g", trace_stats_gbps(&s, 0));
        cr_expect_leq(fabs(trace_stats_mpps(&s) - 40e3 / (8.0 * sizes[i])), 1e-4 * 40e3 / (8.0 * sizes[i]));
        cr_expect_eq(s.flows, 1024);
        trace_stats_free(&s);
        drop(p);
    }
}

Test(traces_gen, imix_round_trip)
{
    /* 12 000 packets = 1000 whole blocks: exactly 7000/4000/1000. */
    char *p = gen_cli("--profile imix --packets 12000 --seed 3");
    trace_stats s;
    read_stats(p, &s);
    cr_expect_eq(s.packets, 12000);
    cr_expect_eq(s.len_count[64], 7000);
    cr_expect_eq(s.len_count[570], 4000);
    cr_expect_eq(s.len_count[1518], 1000);
    cr_expect_float_eq(trace_stats_mean(&s), 4246.0 / 12.0, 1e-9);
    trace_stats_free(&s);
    drop(p);
    /* A partial last block: within the documented 0.5 % for N >= 10 000. */
    p = gen_cli("--profile imix --packets 10000 --seed 9");
    read_stats(p, &s);
    cr_expect_eq(s.packets, 10000);
    cr_expect_leq(fabs(trace_stats_mean(&s) - 353.8333) / 353.8333, 0.005, "%g", trace_stats_mean(&s));
    cr_expect_float_eq(gen_mean_size(&(gen_config){.profile = GEN_IMIX}), 4246.0 / 12.0, 1e-9);
    trace_stats_free(&s);
    drop(p);
}

typedef struct tuple5 {
    uint32_t s, d;
    uint16_t sp, dp;
    uint8_t pr;
} tuple5;

static int cmp_tuple(const void *a, const void *b)
{
    const tuple5 *x = a, *y = b;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    if (x->sp != y->sp) return x->sp < y->sp ? -1 : 1;
    if (x->dp != y->dp) return x->dp < y->dp ? -1 : 1;
    return (int)x->pr - (int)y->pr;
}

Test(traces_gen, mawi_round_trip, .timeout = 120)
{
    char *p = gen_cli("--profile mawi --packets 65536 --rate 71.8 --snaplen 54");
    trace_stats s;
    read_stats(p, &s);
    cr_expect_eq(s.packets, 65536);
    cr_expect_eq(trace_stats_skipped(&s), 0);
    double mean = trace_stats_mean(&s);
    /* docs/traces.md: within 2 % of 603 B (about 5 standard errors at 64 Ki packets). */
    cr_expect_leq(fabs(mean - 603.0) / 603.0, 0.02, "mean %g", mean);
    double model = gen_mean_size(&(gen_config){.profile = GEN_MAWI});
    cr_expect_leq(fabs(model - 603.0), 1.0, "model mean %g", model);
    cr_expect_leq(fabs(mean - model) / model, 0.02);
    cr_expect_eq(s.min_len, 60);
    cr_expect_eq(s.max_len, 1514);
    cr_expect_eq(trace_stats_percentile(&s, 90), 1514);
    cr_expect_eq(s.snap_truncated, 65536);
    cr_expect_eq(s.cap_bytes, 65536ull * 54);
    /* Poisson-like arrivals: the mean rate is the requested one within 2 %. */
    cr_expect_leq(fabs(trace_stats_gbps(&s, 0) - 71.8) / 71.8, 0.02, "%g", trace_stats_gbps(&s, 0));
    cr_expect_leq(fabs(trace_stats_mpps(&s) - 14.9) / 14.9, 0.03, "%g", trace_stats_mpps(&s));

    /* Flows: the stats' hash set against a sort of every tuple. */
    tuple5 *t = calloc(65536, sizeof *t);
    trace_reader r;
    cr_assert_eq(trace_reader_open(&r, p, 0, NULL), 0);
    trace_pkt k;
    size_t n = 0, tcp = 0;
    while (trace_reader_next(&r, &k, NULL) == 1) {
        t[n++] = (tuple5){k.src_ip, k.dst_ip, k.src_port, k.dst_port, k.proto};
        tcp += k.proto == 6;
    }
    trace_reader_close(&r);
    cr_assert_eq(n, 65536);
    qsort(t, n, sizeof *t, cmp_tuple);
    size_t uniq = 0;
    for (size_t i = 0; i < n; i++)
        uniq += i == 0 || cmp_tuple(&t[i - 1], &t[i]) != 0;
    cr_expect_eq(s.flows, uniq);
    /* Zipf(1) over 100 000 flows: 64 Ki draws touch far fewer than 64 Ki flows. */
    cr_expect(uniq > 5000 && uniq < 40000, "%zu flows", uniq);
    /* About 80 % of flows are TCP; by packets it depends on which flows are popular. */
    cr_expect(tcp > n / 2, "%zu TCP of %zu", tcp, n);
    free(t);
    trace_stats_free(&s);
    drop(p);
}

Test(traces_gen, snaplen_keeps_wire_lengths)
{
    char *p = gen_cli("--profile fixed:1500 --packets 1000 --snaplen 64");
    trace_stats s;
    read_stats(p, &s);
    cr_expect_eq(s.packets, 1000);
    cr_expect_eq(s.bytes, 1500000);
    cr_expect_eq(s.cap_bytes, 64000);
    cr_expect_eq(s.snap_truncated, 1000);
    cr_expect_float_eq(trace_stats_mean(&s), 1500.0, 1e-9);
    trace_stats_free(&s);
    size_t n;
    char *d = slurp(p, &n);
    cr_expect_eq(n, 24 + 1000 * (16 + 64));
    free(d);
    drop(p);
}

Test(traces_gen, same_seed_same_bytes)
{
    const char *profiles[] = {"fixed:256", "imix", "mawi"};
    for (int i = 0; i < 3; i++) {
        char a[128], b[128];
        snprintf(a, sizeof a, "--profile %s --packets 3000 --seed 42", profiles[i]);
        snprintf(b, sizeof b, "--profile %s --packets 3000 --seed 43", profiles[i]);
        char *p1 = gen_cli(a), *p2 = gen_cli(a), *p3 = gen_cli(b);
        size_t n1, n2, n3;
        char *d1 = slurp(p1, &n1), *d2 = slurp(p2, &n2), *d3 = slurp(p3, &n3);
        cr_expect(n1 == n2 && memcmp(d1, d2, n1) == 0, "%s: same seed, different bytes", profiles[i]);
        /* fixed is round robin at a constant rate: no random choice for the seed to change. */
        if (i > 0)
            cr_expect(n1 != n3 || memcmp(d1, d3, n1) != 0, "%s: seed ignored", profiles[i]);
        free(d1), free(d2), free(d3);
        drop(p1), drop(p2), drop(p3);
    }
}

/* The generator's output is fixed: these pcaps' FNV-1a hashes were taken
 * from the code before the generator's fast paths (lean mawi batch, the
 * s = 1 Zipf draw's fast exp), so any change to a packet, a timestamp or
 * the random stream shows here. */
Test(traces_gen, pcaps_equal_recorded_bytes, .timeout = 120)
{
    static const struct {
        const char *args;
        uint64_t fnv;
        size_t size;
    } want[] = {
        {"--profile mawi --packets 20000 --seed 5", 0xba97018dd7b71f03ull, 12354374},
        {"--profile mawi --packets 20000 --seed 3 --flows 1000000 --rate 40", 0x5af8db4f1a2693daull, 12380434},
        {"--profile imix --packets 20000 --zipf 1 --seed 9", 0x94a476bf36e48509ull, 7396838},
        {"--profile mawi --packets 20000 --zipf 1.3 --seed 2", 0x45434af509b24b24ull, 12372153},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *p = gen_cli(want[i].args);
        size_t n;
        char *d = slurp(p, &n);
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t k = 0; k < n; k++)
            h = (h ^ (uint8_t)d[k]) * 0x100000001b3ull;
        cr_expect(n == want[i].size && h == want[i].fnv, "%s: %zu bytes, fnv %016llx", want[i].args, n,
                  (unsigned long long)h);
        free(d);
        drop(p);
    }
}

Test(traces_gen, flow_counts)
{
    char *p = gen_cli("--profile fixed:128 --packets 1000 --flows 100");
    trace_stats s;
    read_stats(p, &s);
    cr_expect_eq(s.flows, 100);
    trace_stats_free(&s);
    drop(p);
    p = gen_cli("--profile imix --packets 1000 --flows 5000");
    read_stats(p, &s);
    cr_expect_eq(s.flows, 1000);
    trace_stats_free(&s);
    drop(p);
    /* Zipf over fixed-size frames: fewer distinct flows than packets. */
    p = gen_cli("--profile fixed:64 --packets 1000 --flows 5000 --zipf 1.2");
    read_stats(p, &s);
    cr_expect(s.flows > 50 && s.flows < 1000, "%zu", s.flows);
    trace_stats_free(&s);
    drop(p);
}

static uint32_t csum_add(const uint8_t *b, size_t n, uint32_t s)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(b[i] << 8 | b[i + 1]);
    if (n & 1)
        s += (uint32_t)b[n - 1] << 8;
    return s;
}

static uint16_t csum_fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)s;
}

Test(traces_gen, checksums_are_valid)
{
    /* Whole frames, both TCP and UDP: IPv4 header and L4 checksums must fold to 0xffff. */
    char *p = gen_cli("--profile mawi --packets 2000 --seed 5");
    trace_reader r;
    cr_assert_eq(trace_reader_open(&r, p, 1, NULL), 0);
    trace_pkt k;
    int n = 0;
    while (trace_reader_next(&r, &k, NULL) == 1) {
        const uint8_t *ip = k.data + 14;
        cr_assert_eq(k.cap_len, k.wire_len);
        cr_assert_eq(csum_fold(csum_add(ip, 20, 0)), 0xffff, "packet %d IPv4 checksum", n + 1);
        uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]);
        uint32_t l4 = tot - 20;
        uint32_t ps = csum_add(ip + 12, 8, 0) + ip[9] + l4;
        cr_assert_eq(csum_fold(csum_add(ip + 20, l4, ps)), 0xffff, "packet %d L4 checksum", n + 1);
        cr_assert_leq(tot + 14, k.wire_len);
        n++;
    }
    cr_expect_eq(n, 2000);
    trace_reader_close(&r);
    drop(p);
}

Test(traces_gen, microsecond_option)
{
    char *p = gen_cli("--profile fixed:100 --packets 10 --tstamp micro --rate 0.5");
    size_t n;
    uint8_t *d = (uint8_t *)slurp(p, &n);
    cr_expect(d[0] == 0xd4 && d[1] == 0xc3 && d[2] == 0xb2 && d[3] == 0xa1);
    free(d);
    trace_reader r;
    cr_assert_eq(trace_reader_open(&r, p, 0, NULL), 0);
    trace_pkt k;
    /* 800 bits at 0.5 Gb/s = 1.6 us per packet; the 2nd starts at 1.6 us -> 1 us. */
    cr_assert_eq(trace_reader_next(&r, &k, NULL), 1);
    cr_expect_eq(k.ts_ns, GEN_EPOCH_S * 1000000000ull);
    cr_assert_eq(trace_reader_next(&r, &k, NULL), 1);
    cr_expect_eq(k.ts_ns, GEN_EPOCH_S * 1000000000ull + 1000);
    trace_reader_close(&r);
    drop(p);
}

Test(traces_gen, zipf_sampler_frequencies)
{
    gen_zipf_sampler z;
    ddio_rng g;
    ddio_rng_seed(&g, 11);
    gen_zipf_init(&z, 10, 1.0);
    uint64_t cnt[11] = {0};
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        uint64_t k = gen_zipf_next(&z, &g);
        cr_assert(k >= 1 && k <= 10);
        cnt[k]++;
    }
    double hn = 0;
    for (int k = 1; k <= 10; k++)
        hn += 1.0 / k;
    for (int k = 1; k <= 10; k++) {
        double pk = 1.0 / k / hn, sd = sqrt(n * pk * (1 - pk));
        cr_expect_leq(fabs((double)cnt[k] - n * pk), 5 * sd, "rank %d: %llu vs %g", k,
                      (unsigned long long)cnt[k], n * pk);
    }
}

Test(traces_gen, tcpdump_reads_every_packet, .timeout = 300)
{
    char *dir = write_temp("", "", 0);
    unlink(dir);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s && cd %s && command -v tcpdump >/dev/null && '%s' trace gen --profile fixed:1500 "
             "--packets 1000 -o x.pcap && tcpdump -r x.pcap 2>/dev/null | wc -l > count.txt",
             dir, dir, DDIOSIM_BIN);
    cr_assert_eq(system(cmd), 0, "tcpdump missing? (scripts/install-deps.sh installs it)");
    char path[512];
    snprintf(path, sizeof path, "%s/count.txt", dir);
    char *out = slurp(path, NULL);
    cr_assert_not_null(out);
    cr_expect_eq(atoi(out), 1000, "tcpdump printed %s lines", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

Test(traces_gen, cli_validation)
{
    static const cli_error_case cases[] = {
        {"trace gen --profile jumbo --packets 5 -o /tmp/x.pcap", "--profile: 'jumbo' is not one of", 0},
        {"trace gen --profile fixed:59 --packets 5 -o /tmp/x.pcap", "--profile fixed:SIZE: 59 is out of range [60, 9000]",
         0},
        {"trace gen --profile imix --packets 5 --rate max -o /tmp/x.pcap",
         "--rate: 'max' (back to back at line rate) needs a line rate, which a trace file has not", 0},
        {"trace gen --profile fixed:9001 --packets 5 -o /tmp/x.pcap", "9001 is out of range", 0},
        {"trace gen --profile fixed:abc --packets 5 -o /tmp/x.pcap", "--profile fixed:SIZE", 0},
        {"trace gen --profile imix --packets 0 -o /tmp/x.pcap", "--packets: 0 is out of range", 0},
        {"trace gen --profile imix --packets 5 --rate 0 -o /tmp/x.pcap", "--rate: 0 is out of range", 0},
        {"trace gen --profile imix --packets 5 --rate fast -o /tmp/x.pcap", "--rate: 'fast' is not a number", 0},
        {"trace gen --profile imix --packets 5 --flows 0 -o /tmp/x.pcap", "--flows", 0},
        {"trace gen --profile imix --packets 5 --zipf -1 -o /tmp/x.pcap", "--zipf", 0},
        {"trace gen --profile imix --packets 5 --flow-burst 0 -o /tmp/x.pcap", "--flow-burst: 0 is out of range", 0},
        {"trace gen --profile imix --packets 5 --gen-threads 65 -o /tmp/x.pcap", "--gen-threads: 65 is out of range",
         0},
        {"trace gen --profile imix --packets 5 --flows 6 --gen-threads 7 -o /tmp/x.pcap",
         "--gen-threads: 7 is out of range [1, 6] (at most the 6 flows)", 0},
        {"trace gen --profile imix --packets 5 --flow-tuples rnd -o /tmp/x.pcap",
         "--flow-tuples: 'rnd' is not one of range, random", 0},
        {"trace gen --profile imix --packets 5 --snaplen 53 -o /tmp/x.pcap", "--snaplen: 53 is out of range", 0},
        {"trace gen --profile imix --packets 5 --seed -3 -o /tmp/x.pcap", "--seed", 0},
        {"trace gen --profile imix --packets 5 --tstamp pico -o /tmp/x.pcap", "--tstamp", 0},
        {"trace gen --profile imix --packets 5 -o -", "--output", 0},
        {"trace gen --profile imix --packets 5", "-o/--output", 1},
        {"trace gen --packets 5 -o /tmp/x.pcap", "--profile is required", 1},
        {"trace gen --profile imix -o /tmp/x.pcap", "--packets is required", 1},
        {"trace gen --profile imix --packets 5 --nope -o /tmp/x.pcap", "unknown option '--nope'", 1},
        {"trace stats", "missing the capture FILE", 1},
        {"trace stats --format yaml x.pcap", "--format", 0},
        {"trace stats --bogus x.pcap", "unknown option", 1},
        {"trace frobnicate", "unknown subcommand 'frobnicate'", 1},
        {"trace", "missing subcommand", 1},
    };
    expect_cli_errors(cases, sizeof cases / sizeof cases[0]);
    const char *helps[] = {"trace --help", "trace gen --help", "trace stats --help", "trace gen -h"};
    for (size_t i = 0; i < 4; i++) {
        cli_run r = run_ddiosim(helps[i]);
        cr_expect_eq(r.status, 0, "%s", helps[i]);
        cr_expect(strstr(r.out, "usage: ddiosim trace"), "%s", r.out);
        cli_run_free(&r);
    }
}

Test(traces_gen, failed_write_leaves_no_file)
{
    cli_run r = run_ddiosim("trace gen --profile imix --packets 5 -o /nonexistent-dir/x.pcap");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "/nonexistent-dir/x.pcap: cannot create"), "%s", r.err);
    cli_run_free(&r);
}

Test(traces_gen, stats_json_on_a_sample)
{
    cli_run r = run_ddiosim("trace stats --format json traces/samples/fixed1500-10k.pcap");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j);
    cr_expect_eq(cJSON_GetObjectItem(j, "packets")->valuedouble, 10000);
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "size"), "p50")->valuedouble, 1500);
    cr_expect_eq(cJSON_GetObjectItem(j, "flows")->valuedouble, 1024);
    cJSON *h = cJSON_GetObjectItem(j, "histogram");
    cr_expect_eq(cJSON_GetArraySize(h), TRACE_NBINS);
    cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 5), "bytes")->valuestring, "1024-1518");
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 5), "packets")->valuedouble, 10000);
    cr_expect_leq(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "rate"), "gbps")->valuedouble - 10.0), 1e-3);
    cJSON_Delete(j);
    cli_run_free(&r);
}

/* The default configuration of generator profile `profile` (must parse),
 * `packets` packets, seed `seed`. */
static gen_config profile_config(const char *profile, uint64_t packets, uint64_t seed)
{
    gen_config c;
    gen_config_default(&c);
    ddio_err e;
    cr_assert_eq(gen_parse_profile(profile, &c, "profile", &e), 0, "%s", profile);
    c.packets = packets;
    c.seed = seed;
    return c;
}

/* Two generators of one configuration, compared packet by packet (the
 * caller frees both). */
static void gen_pair(const gen_config *c, gen **a, gen **b)
{
    ddio_err e;
    *a = malloc(sizeof **a);
    *b = malloc(sizeof **b);
    cr_assert(*a && *b);
    cr_assert_eq(gen_init(*a, c, &e), 0, "%s", e.msg);
    cr_assert_eq(gen_init(*b, c, &e), 0, "%s", e.msg);
}

/* gen_next_meta (the simulator's packet source) yields the packets gen_next
 * does, with the 5-tuple trace_parse_frame reads from gen_next's frame, and
 * skipping the timestamps changes no size or flow. */
Test(traces_gen, meta_matches_parsed_frames)
{
    const char *profiles[] = {"mawi", "imix", "fixed:64", "fixed:1500"};
    for (int k = 0; k < 4; k++)
        for (int no_time = 0; no_time < 2; no_time++) {
            gen_config c = profile_config(profiles[k], 20000, 5 + (uint64_t)k);
            gen *a, *b;
            gen_pair(&c, &a, &b);
            gen_pkt pa, pb;
            gen_meta m;
            uint64_t n = 0;
            while (gen_next(a, &pa)) {
                cr_assert_eq(gen_next_meta(b, &pb, &m, no_time), 1);
                trace_pkt t;
                memset(&t, 0, sizeof t);
                trace_parse_frame(TRACE_DLT_EN10MB, pa.frame, pa.len < 128 ? pa.len : 128, &t);
                cr_assert(t.has_tuple);
                cr_assert(pa.len == pb.len && pa.flow == pb.flow, "%s packet %llu", profiles[k],
                          (unsigned long long)n);
                cr_assert(no_time ? pb.ts_ns == 0 : pa.ts_ns == pb.ts_ns);
                cr_assert(t.src_ip == m.src_ip && t.dst_ip == m.dst_ip && t.src_port == m.src_port &&
                              t.dst_port == m.dst_port && t.proto == m.proto,
                          "%s packet %llu: tuple differs", profiles[k], (unsigned long long)n);
                n++;
            }
            cr_expect_eq(n, 20000);
            cr_expect_eq(gen_next_meta(b, &pb, &m, no_time), 0);
            free(a);
            free(b);
        }
}

/* gen_set_no_tuple: the same packets (lengths, flows, timestamps) and the
 * same random stream as with the tuple, the tuple left zero. */
Test(traces_gen, no_tuple_keeps_the_packets)
{
    const char *profiles[] = {"mawi", "imix", "fixed:64", "fixed:1500"};
    for (int k = 0; k < 4; k++)
        for (int no_time = 0; no_time < 2; no_time++) {
            gen_config c = profile_config(profiles[k], 20000, 9 + (uint64_t)k);
            if (k == 0 && no_time == 0)
                c.rate_gbps = 10;   /* MAWI's exponential gaps draw from the stream too */
            gen *a, *b;
            gen_pair(&c, &a, &b);
            gen_set_no_tuple(b, 1);
            gen_pkt pa, pb;
            gen_meta ma, mb;
            while (gen_next_meta(a, &pa, &ma, no_time)) {
                cr_assert_eq(gen_next_meta(b, &pb, &mb, no_time), 1);
                cr_assert(pa.len == pb.len && pa.flow == pb.flow && pa.ts_ns == pb.ts_ns, "%s", profiles[k]);
                cr_assert(mb.src_ip == 0 && mb.dst_ip == 0 && mb.src_port == 0 && mb.dst_port == 0);
            }
            cr_assert_eq(gen_next_meta(b, &pb, &mb, no_time), 0);
            cr_assert_eq(memcmp(&a->rng, &b->rng, sizeof a->rng), 0, "%s: the random stream moved", profiles[k]);
            free(a);
            free(b);
        }
}

/* The Zipf sampler as first written (Hoermann & Derflinger, the general
 * inversion for every s, floor from libm): the sampler's fast paths (s = 1
 * inverted by exp alone, floor by truncation) must draw the same ranks. */
static double ref_helper1(double x) { return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x)); }
static double ref_helper2(double x) { return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x)); }
static double ref_h(double s, double x) { return exp(-s * log(x)); }
static double ref_H(double s, double x) { double lx = log(x); return ref_helper2((1.0 - s) * lx) * lx; }
static double ref_Hinv(double s, double x)
{
    double t = x * (1.0 - s);
    if (t < -1.0)
        t = -1.0;
    return exp(ref_helper1(t) * x);
}
static uint64_t ref_zipf_next(const gen_zipf_sampler *z, ddio_rng *rng)
{
    for (;;) {
        double u = z->h_n + ddio_rng_uniform(rng) * (z->h_x1 - z->h_n);
        double x = ref_Hinv(z->s, u);
        double kd = floor(x + 0.5);
        uint64_t k = kd < 1.0 ? 1 : kd > (double)z->n ? z->n : (uint64_t)kd;
        if ((double)k - x <= z->sc || u >= ref_H(z->s, (double)k + 0.5) - ref_h(z->s, (double)k))
            return k;
    }
}

Test(traces_gen, zipf_fast_paths_equal_reference)
{
    const double ss[] = {0.3, 0.99, 1.0, 1.0000001, 1.3, 2.5};
    const uint64_t ns[] = {1, 2, 10, 100000, 1000000000ull, 1ull << 40};
    for (size_t i = 0; i < sizeof ss / sizeof ss[0]; i++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
            gen_zipf_sampler z;
            gen_zipf_init(&z, ns[j], ss[i]);
            ddio_rng a, b;
            ddio_rng_seed(&a, 100 + i * 10 + j);
            b = a;
            for (int k = 0; k < 20000; k++) {
                uint64_t x = gen_zipf_next(&z, &a), y = ref_zipf_next(&z, &b);
                cr_assert_eq(x, y, "s %g n %llu draw %d: %llu, reference %llu", ss[i], (unsigned long long)ns[j], k,
                             (unsigned long long)x, (unsigned long long)y);
            }
            cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
        }
    /* s = 1: the inversion is exp(u), bit for bit, over the sampler's range. */
    ddio_rng r;
    ddio_rng_seed(&r, 3);
    for (int k = 0; k < 100000; k++) {
        double u = -1.0 + 30.0 * ddio_rng_uniform(&r);
        double x = gen_zipf_inverse(1.0, u), y = exp(u);
        cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "u %.17g", u);
    }
}

/* The s = 1 draw's fast exp (gen_zipf_fast_exp) is within 2^-44 of libm's
 * exp, relatively, over its whole range (zipf_fast_rank's margins assume
 * 2^-40), and the draws it decides are the reference's over long runs at
 * the flow counts the generator uses and at the edge of its range (ranks
 * near 2^20, where the margin is thinnest). */
Test(traces_gen, zipf_fast_exp_and_ranks_equal_reference)
{
    gen_zipf_sampler z;
    gen_zipf_init(&z, 100000, 1.0);
    ddio_rng r;
    ddio_rng_seed(&r, 11);
    double worst = 0;
    for (int k = 0; k < 2000000; k++) {
        double u = k < 1000 ? -20.0 + 33.8 * k / 1000.0 : -20.0 + 33.8 * ddio_rng_uniform(&r);
        double x = exp(u), y = gen_zipf_fast_exp(&z, u);
        double rel = fabs(y - x) / x;
        worst = rel > worst ? rel : worst;
    }
    cr_assert_lt(worst, 0x1p-44, "worst relative error %g", worst);
    const uint64_t ns[] = {2, 1000, 100000, 1u << 20, 3000000};
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
        gen_zipf_init(&z, ns[j], 1.0);
        ddio_rng a, b;
        ddio_rng_seed(&a, 500 + j);
        b = a;
        for (int k = 0; k < 1000000; k++) {
            uint64_t x = gen_zipf_next(&z, &a), y = ref_zipf_next(&z, &b);
            cr_assert_eq(x, y, "n %llu draw %d: %llu, reference %llu", (unsigned long long)ns[j], k,
                         (unsigned long long)x, (unsigned long long)y);
        }
        cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
    }
}

/* The mawi size table draws the sizes of the search over the bins. */
Test(traces_gen, mawi_size_table_equals_reference)
{
    gen_config c;
    gen_config_default(&c);
    ddio_err e;
    cr_assert_eq(gen_parse_profile("mawi", &c, "profile", &e), 0);
    gen *g = malloc(sizeof *g);
    cr_assert_eq(gen_init(g, &c, &e), 0);
    ddio_rng a, b;
    ddio_rng_seed(&a, 77);
    b = a;
    for (int k = 0; k < 1000000; k++)
        cr_assert_eq(gen_mawi_size(g, &a), gen_mawi_size_ref(&b), "draw %d", k);
    cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
    free(g);
}

/* gen_next_meta_batch gives the packets gen_next_meta gives one at a time:
 * every profile, with and without time and tuple, batches of any size. */
Test(traces_gen, meta_batch_equals_single)
{
    /* mawi three times: Zipf s = 1 (the lean batch with the fast rank and
     * its exact completions), flows round robin (zipf 0, lean), s = 1.2 (the
     * general loop). */
    const char *profiles[] = {"mawi", "imix", "fixed:64", "fixed:1500", "mawi", "mawi"};
    for (int k = 0; k < 6; k++)
        for (int mode = 0; mode < 4; mode++) {
            int no_time = mode & 1, no_tuple = mode >> 1;
            gen_config c = profile_config(profiles[k], 10007, 21 + (uint64_t)k);
            if (k == 1)
                c.zipf = 0.8;
            if (k == 4)
                c.zipf = 0;
            if (k == 5)
                c.zipf = 1.2;
            gen *a, *b;
            gen_pair(&c, &a, &b);
            gen_set_no_tuple(a, no_tuple);
            gen_set_no_tuple(b, no_tuple);
            /* Without the tuple the batch (mawi: lean_mawi_packet) also
             * takes the TCP bits from a cache, as the simulator's does. */
            uint8_t *cache = no_tuple ? calloc(b->flows, 1) : NULL;
            gen_set_tcp_cache(b, cache);
            ddio_rng sizes;
            ddio_rng_seed(&sizes, 5);
            gen_pkt pa, pb[64];
            gen_meta ma, mb[64];
            uint64_t n = 0;
            for (;;) {
                uint32_t want = 1 + (uint32_t)ddio_rng_below(&sizes, 64);
                uint32_t got = gen_next_meta_batch(b, pb, mb, want, no_time);
                for (uint32_t i = 0; i < got; i++, n++) {
                    cr_assert_eq(gen_next_meta(a, &pa, &ma, no_time), 1);
                    cr_assert(pa.len == pb[i].len && pa.flow == pb[i].flow && pa.ts_ns == pb[i].ts_ns,
                              "%s mode %d packet %llu", profiles[k], mode, (unsigned long long)n);
                    cr_assert(ma.src_ip == mb[i].src_ip && ma.dst_ip == mb[i].dst_ip && ma.src_port == mb[i].src_port &&
                              ma.dst_port == mb[i].dst_port && ma.proto == mb[i].proto);
                }
                if (got < want)
                    break;
            }
            cr_assert_eq(n, c.packets);
            cr_assert_eq(gen_next_meta(a, &pa, &ma, no_time), 0);
            cr_assert_eq(memcmp(&a->rng, &b->rng, sizeof a->rng), 0);
            free(cache);
            free(a);
            free(b);
        }
}

/* The per-flow TCP cache (gen_set_tcp_cache) changes no packet and no draw:
 * mawi without the tuple, with and without the cache, twice over the flows
 * (the second time every answer comes from the cache). */
Test(traces_gen, tcp_cache_keeps_the_packets)
{
    gen_config c = profile_config("mawi", 60000, 13);
    c.flows = 500;
    gen *a, *b;
    gen_pair(&c, &a, &b);
    gen_set_no_tuple(a, 1);
    gen_set_no_tuple(b, 1);
    uint8_t *cache = calloc(c.flows, 1);
    gen_set_tcp_cache(b, cache);
    gen_pkt pa, pb;
    gen_meta ma, mb;
    while (gen_next_meta(a, &pa, &ma, 0)) {
        cr_assert_eq(gen_next_meta(b, &pb, &mb, 0), 1);
        cr_assert(pa.len == pb.len && pa.flow == pb.flow && pa.ts_ns == pb.ts_ns);
    }
    cr_assert_eq(memcmp(&a->rng, &b->rng, sizeof a->rng), 0);
    uint32_t known = 0, tcp = 0;
    for (uint32_t f = 0; f < c.flows; f++) {
        known += cache[f] != 0;
        tcp += cache[f] == 2;
    }
    cr_expect_gt(known, c.flows / 2);
    cr_expect(tcp > known / 2 && tcp < known, "%u TCP of %u", tcp, known);
    free(cache);
    free(a);
    free(b);
}

/* gen_flow_meta(flow) is the tuple gen_next_meta reports for every packet
 * of that flow (the simulator hashes it once per flow for RSS). */
Test(traces_gen, flow_meta_is_the_packets_tuple)
{
    const char *profiles[] = {"mawi", "imix", "fixed:64"};
    for (int k = 0; k < 3; k++) {
        gen_config c = profile_config(profiles[k], 20000, 31 + (uint64_t)k);
        ddio_err e;
        gen *g = malloc(sizeof *g);
        cr_assert_eq(gen_init(g, &c, &e), 0);
        gen_pkt p;
        gen_meta m, f;
        while (gen_next_meta(g, &p, &m, 1)) {
            gen_flow_meta(g, p.flow, &f);
            cr_assert(m.src_ip == f.src_ip && m.dst_ip == f.dst_ip && m.src_port == f.src_port &&
                          m.dst_port == f.dst_port && m.proto == f.proto,
                      "%s flow %u", profiles[k], p.flow);
        }
        free(g);
    }
}

/* The flows of the first n packets of c. */
static void flow_sequence(const gen_config *c, uint32_t *flow, uint32_t n)
{
    ddio_err e;
    gen *g = malloc(sizeof *g);
    cr_assert_eq(gen_init(g, c, &e), 0, "%s", e.msg);
    gen_pkt p;
    gen_meta m;
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_eq(gen_next_meta(g, &p, &m, 1), 1);
        flow[i] = p.flow;
    }
    free(g);
}

/* Threads and bursts by hand: 5 flows, 2 threads (thread 0 owns flows 0, 2,
 * 4; thread 1 owns 1, 3), bursts of 3 packets per thread, the threads'
 * packets interleaved one by one. */
Test(traces_gen, flow_bursts_by_thread)
{
    gen_config c = profile_config("fixed:64", 40, 3);
    c.flows = 5;
    c.threads = 2;
    c.flow_burst = 3;
    static const uint32_t want[20] = {0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 4, 1, 4, 1, 4, 1, 0, 3};
    uint32_t got[20];
    flow_sequence(&c, got, 20);
    for (int i = 0; i < 20; i++)
        cr_expect_eq(got[i], want[i], "packet %d: flow %u, want %u", i, got[i], want[i]);
    /* One thread: bursts of 3 of flows 0, 1, ..., 4, 0, ... */
    c.threads = 1;
    flow_sequence(&c, got, 20);
    for (uint32_t i = 0; i < 20; i++)
        cr_expect_eq(got[i], (i / 3) % 5, "packet %u", i);
    /* Threads without bursts: thread t sends its flows round robin. */
    c.threads = 2;
    c.flow_burst = 1;
    flow_sequence(&c, got, 12);
    static const uint32_t inter[12] = {0, 1, 2, 3, 4, 1, 0, 3, 2, 1, 4, 3};
    for (int i = 0; i < 12; i++)
        cr_expect_eq(got[i], inter[i], "packet %d", i);
}

/* Bursts of one from one thread are the plain generator, packet for packet
 * and draw for draw (every profile, Zipf or round robin, the lean batch). */
Test(traces_gen, bursts_of_one_change_nothing)
{
    const char *profiles[] = {"mawi", "fixed:1500", "imix"};
    for (int k = 0; k < 3; k++) {
        gen_config c = profile_config(profiles[k], 5000, 7 + (uint64_t)k);
        gen_config d = c;
        d.flow_burst = 1;
        d.threads = 1;
        gen *a, *b;
        gen_pair(&c, &a, &b);
        ddio_err e;
        cr_assert_eq(gen_init(b, &d, &e), 0);
        gen_set_no_tuple(a, 1);
        gen_set_no_tuple(b, 1);
        gen_pkt pa[50], pb[50];
        gen_meta ma[50], mb[50];
        uint32_t na, nb;
        while ((na = gen_next_meta_batch(a, pa, ma, 50, 1)) > 0) {
            nb = gen_next_meta_batch(b, pb, mb, 50, 1);
            cr_assert_eq(na, nb);
            for (uint32_t i = 0; i < na; i++)
                cr_assert(pa[i].len == pb[i].len && pa[i].flow == pb[i].flow, "%s", profiles[k]);
        }
        cr_assert_eq(memcmp(&a->rng, &b->rng, sizeof a->rng), 0);
        free(a);
        free(b);
    }
}

/* Zipf flows in bursts: each thread draws a flow at the start of each of
 * its bursts and keeps it for flow_burst of its packets; the draws differ
 * between bursts (of 4000 flows, almost always). */
Test(traces_gen, zipf_flows_in_bursts)
{
    gen_config c = profile_config("mawi", 4000, 11);
    c.flows = 4000;
    c.flow_burst = 8;
    c.threads = 3;
    uint32_t *f = malloc(4000 * sizeof *f);
    flow_sequence(&c, f, 4000);
    uint32_t changes = 0, starts = 0;
    for (uint32_t i = 3; i < 4000; i++) {
        uint32_t k = i / 3;
        if (k % 8 != 0)
            cr_assert_eq(f[i], f[i - 3], "packet %u: a burst keeps its flow", i);
        else {
            starts++;
            changes += f[i] != f[i - 3];
        }
    }
    cr_expect_gt(changes, starts / 2, "%u of %u bursts changed flow", changes, starts);
    free(f);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Flows per RSS queue (the default key, 16 queues, 128 entries) of 4096
 * flows of fixed:64 with random_tuples as given; their source addresses in
 * src (sorted). */
static void flows_per_queue(int random_tuples, uint32_t per_queue[16], uint32_t *src)
{
    gen_config c = profile_config("fixed:64", 10, 5);
    c.flows = 4096;
    c.random_tuples = random_tuples;
    ddio_err e;
    gen *g = malloc(sizeof *g);
    cr_assert_eq(gen_init(g, &c, &e), 0);
    rss r;
    cr_assert_eq(rss_init(&r, NULL, 0, 16, 128, &e), 0);
    memset(per_queue, 0, 16 * sizeof *per_queue);
    for (uint32_t i = 0; i < 4096; i++) {
        gen_meta m;
        gen_flow_meta(g, i, &m);
        cr_assert_eq(m.proto, 17);
        per_queue[rss_queue(&r, rss_hash_ipv4_l4(&r, m.src_ip, m.dst_ip, m.src_port, m.dst_port))]++;
        src[i] = m.src_ip;
    }
    qsort(src, 4096, sizeof *src, cmp_u32);
    free(g);
}

/* Random tuples: distinct UDP 5-tuples (the source address alone is a
 * bijection of the flow), which RSS spreads as a random function would:
 * each queue within 4.5 standard deviations of 256, few at exactly 256.
 * The address and port ranges, through the Toeplitz hash (linear in the
 * tuple's bits), put exactly 256 on each queue. */
Test(traces_gen, random_tuples_spread_over_rss_queues)
{
    uint32_t per_queue[16], *src = malloc(4096 * sizeof *src);
    flows_per_queue(1, per_queue, src);
    for (uint32_t i = 1; i < 4096; i++)
        cr_assert_neq(src[i], src[i - 1], "two flows with source %08x", src[i]);
    uint32_t equal = 0;
    for (int q = 0; q < 16; q++) {
        cr_expect(per_queue[q] >= 256 - 70 && per_queue[q] <= 256 + 70, "queue %d: %u flows", q, per_queue[q]);
        equal += per_queue[q] == 256;
    }
    cr_expect_lt(equal, 8, "a random function leaves few queues at exactly 256");
    flows_per_queue(0, per_queue, src);
    for (int q = 0; q < 16; q++)
        cr_expect_eq(per_queue[q], 256, "ranges: queue %d: %u flows", q, per_queue[q]);
    free(src);
}
