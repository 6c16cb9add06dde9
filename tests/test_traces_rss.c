/* test_traces_rss.c - Toeplitz RSS against Microsoft's published verification
 * suite ("Verifying the RSS Hash Calculation", IPv4 and IPv6 rows, default
 * key), the RETA mapping, key parsing and the `ddiosim rss` command. */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/rng.h"
#include "tests/helpers.h"
#include "traces/rss.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

typedef struct rss_vec {
    uint32_t dst, src;
    uint16_t dport, sport;
    uint32_t h2, h4;   /* IPv4 only, IPv4 with TCP */
    const char *dst_s, *src_s;
} rss_vec;

/* Destination, source, then the two published hashes. */
static const rss_vec vecs[] = {
    {IP4(161, 142, 100, 80), IP4(66, 9, 149, 187), 1766, 2794, 0x323e8fc2, 0x51ccc178, "161.142.100.80", "66.9.149.187"},
    {IP4(65, 69, 140, 83), IP4(199, 92, 111, 2), 4739, 14230, 0xd718262a, 0xc626b0ea, "65.69.140.83", "199.92.111.2"},
    {IP4(12, 22, 207, 184), IP4(24, 19, 198, 95), 38024, 12898, 0xd2d0a5de, 0x5c2b394a, "12.22.207.184", "24.19.198.95"},
    {IP4(209, 142, 163, 6), IP4(38, 27, 205, 30), 2217, 48228, 0x82989176, 0xafc7327f, "209.142.163.6", "38.27.205.30"},
    {IP4(202, 188, 127, 2), IP4(153, 39, 163, 191), 1303, 44251, 0x5d1809c5, 0x10e828a2, "202.188.127.2", "153.39.163.191"},
};
#define NVECS (sizeof vecs / sizeof vecs[0])

Test(traces_rss, microsoft_verification_ipv4_rows)
{
    rss r;
    cr_assert_eq(rss_init(&r, NULL, 0, 1, 128, NULL), 0);
    for (size_t i = 0; i < NVECS; i++) {
        const rss_vec *v = &vecs[i];
        cr_expect_eq(rss_hash_ipv4(&r, v->src, v->dst), v->h2, "row %zu 2-tuple: 0x%08x", i,
                     rss_hash_ipv4(&r, v->src, v->dst));
        cr_expect_eq(rss_hash_ipv4_l4(&r, v->src, v->dst, v->sport, v->dport), v->h4, "row %zu 4-tuple", i);
    }
}

/* The IPv6 rows, destination first as in the table (and in vecs): the hash
 * input is still source address, destination address, source port,
 * destination port. */
typedef struct rss_vec6 {
    const char *dst_s, *src_s;
    uint16_t dport, sport;
    uint32_t h2, h4;   /* IPv6 only, IPv6 with TCP */
} rss_vec6;

static const rss_vec6 vecs6[] = {
    {"3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794, 0x2cc18cd5, 0x40207d3d},
    {"ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230, 0x0f0c461c, 0xdde51bbf},
    {"fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251, 0x4b61e985, 0x02d1feef},
};
#define NVECS6 (sizeof vecs6 / sizeof vecs6[0])

Test(traces_rss, microsoft_verification_ipv6_rows)
{
    rss r;
    cr_assert_eq(rss_init(&r, NULL, 0, 1, 128, NULL), 0);
    for (size_t i = 0; i < NVECS6; i++) {
        const rss_vec6 *v = &vecs6[i];
        uint8_t src[16], dst[16];
        cr_assert_eq(inet_pton(AF_INET6, v->src_s, src), 1);
        cr_assert_eq(inet_pton(AF_INET6, v->dst_s, dst), 1);
        cr_expect_eq(rss_hash_ipv6(&r, src, dst), v->h2, "row %zu 2-tuple: 0x%08x", i, rss_hash_ipv6(&r, src, dst));
        cr_expect_eq(rss_hash_ipv6_l4(&r, src, dst, v->sport, v->dport), v->h4, "row %zu 4-tuple: 0x%08x", i,
                     rss_hash_ipv6_l4(&r, src, dst, v->sport, v->dport));
        /* The bit-by-bit definition on the 36 bytes in network order. */
        uint8_t in[36];
        memcpy(in, src, 16);
        memcpy(in + 16, dst, 16);
        in[32] = (uint8_t)(v->sport >> 8), in[33] = (uint8_t)v->sport;
        in[34] = (uint8_t)(v->dport >> 8), in[35] = (uint8_t)v->dport;
        cr_expect_eq(rss_toeplitz(rss_default_key, RSS_DEFAULT_KEY_LEN, in, 36), v->h4, "row %zu", i);
        cr_expect_eq(rss_toeplitz(rss_default_key, RSS_DEFAULT_KEY_LEN, in, 32), v->h2, "row %zu", i);
    }
}

Test(traces_rss, bitwise_hash_matches_the_table_version)
{
    rss r;
    ddio_rng g;
    ddio_rng_seed(&g, 7);
    uint8_t key[52];
    for (size_t i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)ddio_rng_next(&g);
    cr_assert_eq(rss_init(&r, key, sizeof key, 8, 512, NULL), 0);
    for (int t = 0; t < 1000; t++) {
        uint64_t x = ddio_rng_next(&g), y = ddio_rng_next(&g);
        uint32_t s = (uint32_t)x, d = (uint32_t)(x >> 32);
        uint16_t sp = (uint16_t)y, dp = (uint16_t)(y >> 16);
        uint8_t in[12] = {(uint8_t)(s >> 24), (uint8_t)(s >> 16), (uint8_t)(s >> 8), (uint8_t)s,
                          (uint8_t)(d >> 24), (uint8_t)(d >> 16), (uint8_t)(d >> 8), (uint8_t)d,
                          (uint8_t)(sp >> 8), (uint8_t)sp, (uint8_t)(dp >> 8), (uint8_t)dp};
        cr_assert_eq(rss_hash_ipv4_l4(&r, s, d, sp, dp), rss_toeplitz(key, sizeof key, in, 12));
        cr_assert_eq(rss_hash_ipv4(&r, s, d), rss_toeplitz(key, sizeof key, in, 8));
        uint8_t in6[36];
        for (size_t i = 0; i < 32; i++)
            in6[i] = (uint8_t)ddio_rng_next(&g);
        memcpy(in6 + 32, in + 8, 4);
        cr_assert_eq(rss_hash_ipv6_l4(&r, in6, in6 + 16, sp, dp), rss_toeplitz(key, sizeof key, in6, 36));
        cr_assert_eq(rss_hash_ipv6(&r, in6, in6 + 16), rss_toeplitz(key, sizeof key, in6, 32));
    }
}

Test(traces_rss, reta_low_bits_and_round_robin_fill)
{
    rss r;
    cr_assert_eq(rss_init(&r, NULL, 0, 3, 128, NULL), 0);
    for (uint32_t i = 0; i < 128; i++)
        cr_assert_eq(r.reta[i], i % 3);
    /* 0x51ccc178: low 7 bits 0x78 = 120, 120 mod 3 = 0; 0xc626b0ea: 0x6a = 106 -> 1. */
    cr_expect_eq(rss_reta_index(&r, 0x51ccc178), 120);
    cr_expect_eq(rss_queue(&r, 0x51ccc178), 0);
    cr_expect_eq(rss_queue(&r, 0xc626b0ea), 106 % 3);
    cr_assert_eq(rss_init(&r, NULL, 0, 4, 512, NULL), 0);
    cr_expect_eq(rss_reta_index(&r, 0x51ccc178), 0x178);
    cr_expect_eq(rss_queue(&r, 0x51ccc178), 0x178 % 4);
}

Test(traces_rss, init_rejects_bad_geometry)
{
    rss r;
    ddio_err e = {0};
    cr_expect_eq(rss_init(&r, NULL, 0, 1, 100, &e), -1);
    cr_expect(strstr(e.msg, "power of two"), "%s", e.msg);
    cr_expect_eq(rss_init(&r, NULL, 0, 200, 128, &e), -1);
    cr_expect_eq(rss_init(&r, NULL, 0, 0, 128, &e), -1);
    cr_expect_eq(rss_init(&r, rss_default_key, 12, 1, 128, &e), -1);
}

Test(traces_rss, key_parsing)
{
    uint8_t k[RSS_KEY_MAX];
    size_t n = 0;
    ddio_err e = {0};
    cr_assert_eq(rss_parse_key("6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:"
                               "77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa",
                               k, &n, "--key", &e), 0, "%s", e.msg);
    cr_expect_eq(n, 40);
    cr_expect_eq(memcmp(k, rss_default_key, 40), 0);
    cr_assert_eq(rss_parse_key("0x6D5A56DA255B0EC24167253D43A38FB0", k, &n, "--key", &e), 0);
    cr_expect_eq(n, 16);
    cr_expect_eq(rss_parse_key("6d5a56da", k, &n, "--key", &e), -1);
    cr_expect(strstr(e.msg, "--key") && strstr(e.msg, "at least 16"), "%s", e.msg);
    cr_expect_eq(rss_parse_key("6d5a56da255b0ec24167253d43a38fbz", k, &n, "--key", &e), -1);
    cr_expect_eq(rss_parse_key("6d5a56da255b0ec24167253d43a38fb", k, &n, "--key", &e), -1);
}

static cJSON *run_json(const char *args, int *status)
{
    cli_run r = run_ddiosim(args);
    *status = r.status;
    cJSON *j = cJSON_Parse(r.out);
    cli_run_free(&r);
    return j;
}

/* `ddiosim rss` gives a row's 4-tuple hash, and its 2-tuple hash and queue
 * among 16; fam ("ipv4", "ipv6") names the input. */
static void cli_expect_row(const char *src_s, const char *dst_s, uint16_t sport, uint16_t dport, uint32_t h2,
                           uint32_t h4, const char *fam)
{
    char args[256], want[16];
    int st;
    snprintf(args, sizeof args, "rss --src-ip %s --dst-ip %s --src-port %u --dst-port %u --format json", src_s,
             dst_s, sport, dport);
    cJSON *j = run_json(args, &st);
    cr_assert_eq(st, 0);
    cr_assert_not_null(j);
    snprintf(want, sizeof want, "0x%08x", h4);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "hash")->valuestring, want);
    snprintf(want, sizeof want, "%s-4-tuple", fam);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "input")->valuestring, want);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "rss --src-ip %s --dst-ip %s --format json --queues 16", src_s, dst_s);
    j = run_json(args, &st);
    cr_assert_eq(st, 0);
    snprintf(want, sizeof want, "0x%08x", h2);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "hash")->valuestring, want);
    cr_expect_eq(cJSON_GetObjectItem(j, "queue")->valueint, (int)((h2 & 127) % 16));
    cJSON_Delete(j);
}

Test(traces_rss, cli_reproduces_every_row)
{
    for (size_t i = 0; i < NVECS; i++) {
        const rss_vec *v = &vecs[i];
        cli_expect_row(v->src_s, v->dst_s, v->sport, v->dport, v->h2, v->h4, "ipv4");
    }
}

Test(traces_rss, cli_reproduces_every_ipv6_row)
{
    for (size_t i = 0; i < NVECS6; i++) {
        const rss_vec6 *v = &vecs6[i];
        cli_expect_row(v->src_s, v->dst_s, v->sport, v->dport, v->h2, v->h4, "ipv6");
    }
    /* 0x40207d3d: RETA entry 0x3d = 61, queue 61 mod 4 = 1. */
    cli_run r = run_ddiosim("rss --src-ip 3ffe:2501:200:1fff::7 --dst-ip 3ffe:2501:200:3::1 --src-port 2794 "
                            "--dst-port 1766 --queues 4");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "input   IPv6 4-tuple [3ffe:2501:200:1fff::7]:2794 -> [3ffe:2501:200:3::1]:1766\n"
                            "hash    0x40207d3d\n"
                            "queue   1 of 4 (RETA entry 61 of 128)\n"),
              "%s", r.out);
    cli_run_free(&r);
}

Test(traces_rss, cli_table_and_custom_key)
{
    cli_run r = run_ddiosim("rss --src-ip 66.9.149.187 --dst-ip 161.142.100.80 --src-port 2794 --dst-port 1766 "
                            "--queues 4 --key 6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:"
                            "b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "hash    0x51ccc178"), "%s", r.out);
    cr_expect(strstr(r.out, "queue   0 of 4 (RETA entry 120 of 128)"), "%s", r.out);
    cli_run_free(&r);
    /* A different key gives a different hash. */
    r = run_ddiosim("rss --src-ip 66.9.149.187 --dst-ip 161.142.100.80 --key 0x0102030405060708090a0b0c0d0e0f10");
    cr_assert_eq(r.status, 0);
    cr_expect(!strstr(r.out, "0x323e8fc2"));
    cli_run_free(&r);
}

Test(traces_rss, cli_validation)
{
    static const cli_error_case cases[] = {
        {"rss --src-ip 1.2.3 --dst-ip 1.1.1.1", "--src-ip: '1.2.3'", 0},
        {"rss --src-ip 1.2.3.4 --dst-ip 300.1.1.1", "--dst-ip", 0},
        {"rss --src-ip 1.2.3.4 --dst-ip 1.1.1.1 --src-port 5", "--src-port", 0},
        {"rss --src-ip 1.2.3.4 --dst-ip 1.1.1.1 --src-port 5 --dst-port 70000", "--dst-port", 0},
        {"rss --src-ip 1.2.3.4 --dst-ip 1.1.1.1 --reta-size 100", "--reta-size", 0},
        {"rss --src-ip 1.2.3.4 --dst-ip 1.1.1.1 --queues 129", "--queues", 0},
        {"rss --src-ip 1.2.3.4 --dst-ip 1.1.1.1 --key zz", "--key", 0},
        {"rss --src-ip 1.2.3.4 --dst-ip 1.1.1.1 --format xml", "--format", 0},
        {"rss --src-ip 1.2.3.4", "--dst-ip is required", 1},
        {"rss --src-ip 1.2.3.4 --dst-ip 1.1.1.1 --bogus", "unknown option '--bogus'", 1},
        {"rss --src-ip 3ffe::1 --dst-ip 1.1.1.1", "--dst-ip: '1.1.1.1' is IPv4 but --src-ip '3ffe::1' is IPv6", 0},
        {"rss --src-ip 3ffe::g --dst-ip ff02::1", "--src-ip: '3ffe::g' is neither", 0},
        {"rss --src-ip 3ffe::1 --dst-ip ff02::1 --key 0x6D5A56DA255B0EC24167253D43A38FB0",
         "--key: 16 bytes, an IPv6 hash needs at least 40", 0},
    };
    expect_cli_errors(cases, sizeof cases / sizeof cases[0]);
    cli_run r = run_ddiosim("rss --help");
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: ddiosim rss"));
    cli_run_free(&r);
}
