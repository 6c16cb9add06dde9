/* cmd_rss.c - `ddiosim rss`: the Toeplitz RSS hash of one IPv4 or IPv6
 * flow and the RX queue a NIC's indirection table sends it to. */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/common/parse.h"
#include "traces/rss.h"

/* Option parsers return 1 for --help, -1 for a bad value (one-line error)
 * and -2 for a usage mistake (unknown or missing option: error + usage). */
#define USAGE_ERR(...) (ddio_errf(e, DDIO_EXIT_USAGE, __VA_ARGS__), -2)

static const char usage[] =
    "usage: ddiosim rss --src-ip A --dst-ip B [--src-port P --dst-port Q] [options]\n"
    "\n"
    "Toeplitz RSS hash of an IPv4 or IPv6 2-tuple (addresses only) or 4-tuple\n"
    "(with the TCP/UDP ports), and the RX queue it lands in:\n"
    "reta[hash & (reta_size - 1)], with the RETA filled as entry i = i mod queues\n"
    "(DPDK's default).\n"
    "\n"
    "options:\n"
    "  --src-ip A        source address, IPv4 or IPv6 (required)\n"
    "  --dst-ip B        destination address, of the same family (required)\n"
    "  --src-port P      source port, 0-65535 (with --dst-port: 4-tuple hash)\n"
    "  --dst-port Q      destination port, 0-65535\n"
    "  --key HEX         hash key, 16-128 bytes in hex, ':' between bytes allowed\n"
    "                    (the 40-byte Microsoft key 6d5a56da...beac01fa); IPv6\n"
    "                    needs at least 40\n"
    "  --queues N        RX queues, 1 to the RETA size (1)\n"
    "  --reta-size N     indirection table entries, a power of two up to 4096 (128)\n"
    "  --format F        table | json (table)\n"
    "  -o, --output FILE write the result to FILE (atomically) instead of stdout\n"
    "  -h, --help        this help\n";

typedef struct rss_opts {
    const char *src_s, *dst_s;
    uint32_t src, dst;
    uint8_t src6[16], dst6[16];
    int src_v6, dst_v6;     /* 1: the address is IPv6 (src6, dst6) */
    uint16_t sport, dport;
    int have_sport, have_dport;
    uint8_t key[RSS_KEY_MAX];
    size_t key_len;     /* 0: default key */
    uint32_t queues, reta_size;
    cli_common cc;
} rss_opts;

/* An IPv4 address into *ip, or an IPv6 one into ip6 with *v6 set. */
static int parse_ip(const char *s, uint32_t *ip, uint8_t ip6[16], int *v6, const char *what, ddio_err *e)
{
    struct in_addr a;
    *v6 = inet_pton(AF_INET, s, &a) != 1;
    if (!*v6) {
        *ip = ntohl(a.s_addr);
        return 0;
    }
    if (inet_pton(AF_INET6, s, ip6) != 1)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is neither a dotted-quad IPv4 nor an IPv6 address", what,
                         s);
    return 0;
}

static int parse_opts(int argc, char **argv, rss_opts *o, ddio_err *e)
{
    enum { O_SRC = 256, O_DST, O_SPORT, O_DPORT, O_KEY, O_QUEUES, O_RETA };
    static const struct option longopts[] = {
        {"src-ip", required_argument, 0, O_SRC},     {"dst-ip", required_argument, 0, O_DST},
        {"src-port", required_argument, 0, O_SPORT}, {"dst-port", required_argument, 0, O_DPORT},
        {"key", required_argument, 0, O_KEY},        {"queues", required_argument, 0, O_QUEUES},
        {"reta-size", required_argument, 0, O_RETA}, CLI_COMMON_LONGOPTS,
        {0, 0, 0, 0},
    };
    uint64_t v;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case O_SRC:
            if (parse_ip(optarg, &o->src, o->src6, &o->src_v6, "--src-ip", e)) return -1;
            o->src_s = optarg;
            break;
        case O_DST:
            if (parse_ip(optarg, &o->dst, o->dst6, &o->dst_v6, "--dst-ip", e)) return -1;
            o->dst_s = optarg;
            break;
        case O_SPORT:
            if (ddio_parse_u64(optarg, 0, 65535, &v, "--src-port", e)) return -1;
            o->sport = (uint16_t)v;
            o->have_sport = 1;
            break;
        case O_DPORT:
            if (ddio_parse_u64(optarg, 0, 65535, &v, "--dst-port", e)) return -1;
            o->dport = (uint16_t)v;
            o->have_dport = 1;
            break;
        case O_KEY:
            if (rss_parse_key(optarg, o->key, &o->key_len, "--key", e)) return -1;
            break;
        case O_QUEUES:
            if (ddio_parse_u64(optarg, 1, RSS_QUEUES_MAX, &v, "--queues", e)) return -1;
            o->queues = (uint32_t)v;
            break;
        case O_RETA:
            if (ddio_parse_u64(optarg, 1, RSS_RETA_MAX, &v, "--reta-size", e)) return -1;
            if (!ddio_is_pow2(v))
                return ddio_errf(e, DDIO_EXIT_USAGE, "--reta-size: %llu is not a power of two",
                                 (unsigned long long)v);
            o->reta_size = (uint32_t)v;
            break;
        default: {
            int r = cli_common_option(c, argv, &o->cc, e);
            if (r != CLI_OPT_DONE)
                return r;   /* 1 help, -1 bad value, -2 usage */
        }
        }
    }
    if (optind < argc)
        return USAGE_ERR("unexpected argument '%s'", argv[optind]);
    if (!o->src_s)
        return USAGE_ERR("--src-ip is required");
    if (!o->dst_s)
        return USAGE_ERR("--dst-ip is required");
    if (o->src_v6 != o->dst_v6)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--dst-ip: '%s' is %s but --src-ip '%s' is %s", o->dst_s,
                         o->dst_v6 ? "IPv6" : "IPv4", o->src_s, o->src_v6 ? "IPv6" : "IPv4");
    if (o->src_v6 && o->key_len && o->key_len < RSS_KEY_IPV6)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--key: %zu bytes, an IPv6 hash needs at least %d", o->key_len,
                         RSS_KEY_IPV6);
    if (o->have_sport != o->have_dport)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: give both --src-port and --dst-port, or neither",
                         o->have_sport ? "--src-port" : "--dst-port");
    if (o->queues > o->reta_size)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: %u exceeds the %u RETA entries (--reta-size)", o->queues,
                         o->reta_size);
    return 0;
}

int cmd_rss(int argc, char **argv)
{
    ddio_err e = {0};
    rss_opts o = {.queues = 1, .reta_size = RSS_DEFAULT_RETA, .cc = {.fmt = FMT_TABLE}};
    int rc = cli_parse_outcome("rss", parse_opts(argc, argv, &o, &e), usage, &e);
    if (rc >= 0)
        return rc;
    rss *r = malloc(sizeof *r);
    if (!r) {
        ddio_errf(&e, DDIO_EXIT_IO, "out of memory");
        return cli_fail("rss", &e);
    }
    if (rss_init(r, o.key_len ? o.key : NULL, o.key_len, o.queues, o.reta_size, &e) != 0) {
        free(r);
        return cli_fail("rss", &e);
    }
    int l4 = o.have_sport, v6 = o.src_v6;
    uint32_t h = v6   ? (l4 ? rss_hash_ipv6_l4(r, o.src6, o.dst6, o.sport, o.dport) : rss_hash_ipv6(r, o.src6, o.dst6))
                 : l4 ? rss_hash_ipv4_l4(r, o.src, o.dst, o.sport, o.dport)
                      : rss_hash_ipv4(r, o.src, o.dst);
    const char *fam = v6 ? "IPv6" : "IPv4";
    uint32_t idx = rss_reta_index(r, h), q = rss_queue(r, h);
    char hex[16], key[2 * RSS_KEY_MAX + 1];
    snprintf(hex, sizeof hex, "0x%08x", h);
    for (size_t i = 0; i < r->key_len; i++)
        snprintf(key + 2 * i, 3, "%02x", r->key[i]);

    strbuf sb = {0};
    if (o.cc.fmt == FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "hash", hex);
        cJSON_AddNumberToObject(root, "queue", q);
        cJSON_AddNumberToObject(root, "reta_index", idx);
        cJSON_AddStringToObject(root, "input", v6 ? (l4 ? "ipv6-4-tuple" : "ipv6-2-tuple")
                                                  : (l4 ? "ipv4-4-tuple" : "ipv4-2-tuple"));
        cJSON_AddStringToObject(root, "src_ip", o.src_s);
        cJSON_AddStringToObject(root, "dst_ip", o.dst_s);
        if (l4) {
            cJSON_AddNumberToObject(root, "src_port", o.sport);
            cJSON_AddNumberToObject(root, "dst_port", o.dport);
        }
        cJSON_AddNumberToObject(root, "queues", r->queues);
        cJSON_AddNumberToObject(root, "reta_size", r->reta_size);
        cJSON_AddStringToObject(root, "key", key);
        char *j = cJSON_Print(root);
        cJSON_Delete(root);
        j = j ? cli_provenance(j, argc, argv) : NULL;
        sb_printf(&sb, "%s\n", j);
        free(j);
    } else {
        /* IPv6 addresses in brackets before a port, as in URLs. */
        const char *lb = v6 && l4 ? "[" : "", *rb = v6 && l4 ? "]" : "";
        if (l4)
            sb_printf(&sb, "input   %s 4-tuple %s%s%s:%u -> %s%s%s:%u\n", fam, lb, o.src_s, rb, o.sport, lb, o.dst_s,
                      rb, o.dport);
        else
            sb_printf(&sb, "input   %s 2-tuple %s -> %s\n", fam, o.src_s, o.dst_s);
        sb_printf(&sb, "hash    %s\n", hex);
        sb_printf(&sb, "queue   %u of %u (RETA entry %u of %u)\n", q, r->queues, idx, r->reta_size);
        sb_printf(&sb, "key     %s (%zu bytes)\n", key, r->key_len);
    }
    free(r);
    rc = cli_write_output(o.cc.out, sb.data, &e);
    sb_free(&sb);
    return rc ? cli_fail("rss", &e) : DDIO_EXIT_OK;
}
