/* cmd_trace.c - `ddiosim trace stats` (summarise a capture) and `ddiosim
 * trace gen` (write a synthetic pcap). */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/common/parse.h"
#include "traces/gen.h"
#include "traces/stats.h"

/* Option parsers return 1 for --help, -1 for a bad value (one-line error)
 * and -2 for a usage mistake (unknown or missing option: error + usage). */
#define USAGE_ERR(...) (ddio_errf(e, DDIO_EXIT_USAGE, __VA_ARGS__), -2)

static const char usage_trace[] =
    "usage: ddiosim trace <stats|gen> [options]\n"
    "\n"
    "  stats   summarise a pcap/pcapng capture (packets, sizes, flows, rate)\n"
    "  gen     write a synthetic pcap (fixed:SIZE, imix, mawi)\n"
    "\n"
    "Run 'ddiosim trace <stats|gen> --help' for their options.\n";

static const char usage_stats[] =
    "usage: ddiosim trace stats [options] FILE\n"
    "\n"
    "Summarise a pcap or pcapng capture (Ethernet, raw IP or Linux cooked).\n"
    "Sizes are wire lengths (the original length, not the snap-length-cut\n"
    "capture).  By default only unfragmented IPv4 and IPv6 TCP/UDP packets\n"
    "count, the others are listed as skipped by reason (docs/traces.md).\n"
    "\n"
    "options:\n"
    "  --all             count every packet (the filter's classes are still listed)\n"
    "  --format F        table | json (table)\n"
    "  -o, --output FILE write the summary to FILE (atomically) instead of stdout\n"
    "  -h, --help        this help\n";

_Static_assert(GEN_MIN_FRAME == 60 && GEN_MAX_FRAME == 9000, "usage_gen states the range of fixed:SIZE");

static const char usage_gen[] =
    "usage: ddiosim trace gen --profile P --packets N [options] -o OUT.pcap\n"
    "\n"
    "Write a deterministic synthetic trace (Ethernet/IPv4/UDP or TCP frames with\n"
    "valid checksums, readable by tcpdump).  Sizes are frame bytes as in the pcap,\n"
    "without the 4-byte FCS.  See docs/traces.md.\n"
    "\n"
    "options:\n"
    "  --profile P       fixed:SIZE (SIZE 60-9000) | imix (7:4:1 of 64/570/1518 B)\n"
    "                    | mawi (backbone-like sizes, Zipf flows, Poisson arrivals)\n"
    "  --packets N       number of packets, 1-10000000000\n"
    "  --rate GBPS       offered rate counting frame bytes only (no FCS, preamble,\n"
    "                    inter-frame gap), 0.001-10000 (10); not max: a file has no\n"
    "                    line rate (simulate --rate max sends back to back)\n"
    "  --flows F         number of flows, 1-16777216 (1024; mawi 100000)\n"
    "  --zipf S          flow popularity exponent, 0-5; 0 = round robin (0; mawi 1)\n"
    "  --flow-burst B    B packets of a flow in a row, per thread, 1-65536 (1)\n"
    "  --gen-threads S   S generator threads, each with its share of the flows,\n"
    "                    interleaved packet by packet, 1-64 (1)\n"
    "  --flow-tuples T   range (address and port ranges, as TRex) | random (hashed\n"
    "                    5-tuples; mawi's always are) (range)\n"
    "  --seed S          seed; the same seed writes the same bytes (1)\n"
    "  --snaplen B       keep the first B bytes of each frame, 54-65535; the wire\n"
    "                    length stays whole (whole frames)\n"
    "  --tstamp P        nano | micro: pcap timestamp resolution (nano)\n"
    "  -o, --output FILE the pcap to write (atomically; required)\n"
    "  -h, --help        this help\n";

/* ---- stats ---------------------------------------------------------- */

typedef struct stats_opts {
    int all;
    cli_common cc;
    const char *in;
} stats_opts;

static int parse_stats(int argc, char **argv, stats_opts *o, ddio_err *e)
{
    enum { O_ALL = 256 };
    static const struct option longopts[] = {
        {"all", no_argument, 0, O_ALL}, CLI_COMMON_LONGOPTS, {0, 0, 0, 0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case O_ALL:
            o->all = 1;
            break;
        default: {
            int r = cli_common_option(c, argv, &o->cc, e);
            if (r != CLI_OPT_DONE)
                return r;   /* 1 help, -1 bad value, -2 usage */
        }
        }
    }
    if (optind >= argc)
        return USAGE_ERR("missing the capture FILE");
    o->in = argv[optind++];
    if (optind < argc)
        return USAGE_ERR("unexpected argument '%s'", argv[optind]);
    return 0;
}

static const double pcts[] = {1, 10, 50, 90, 99};
#define NPCTS (sizeof pcts / sizeof pcts[0])
/* FCS 4 B + preamble/SFD 8 B + inter-frame gap 12 B: pcap lengths lack all three. */
#define L1_OVERHEAD 24u

static void bin_label(char *buf, size_t n, int b)
{
    if (trace_size_bins[b].hi == UINT32_MAX)
        snprintf(buf, n, ">=%u", trace_size_bins[b].lo);
    else
        snprintf(buf, n, "%u-%u", trace_size_bins[b].lo, trace_size_bins[b].hi);
}

static void stats_table(strbuf *sb, const stats_opts *o, const trace_stats *s)
{
    sb_printf(sb, "file        %s\n", o->in);
    sb_printf(sb, "filter      %s\n",
              o->all ? "none (--all): every packet counts"
                     : "unfragmented IPv4/IPv6 TCP/UDP (--all keeps every packet)");
    sb_printf(sb, "records     %llu read, %llu counted\n", (unsigned long long)s->records,
              (unsigned long long)s->packets);
    sb_printf(sb, "%-11s %llu (", o->all ? "classes" : "skipped",
              (unsigned long long)(o->all ? s->records - s->count[TRACE_OK] : trace_stats_skipped(s)));
    for (int c = 1; c < TRACE_NCLASSES; c++)
        sb_printf(sb, "%s%s %llu", c > 1 ? ", " : "", trace_class_name((enum trace_class)c),
                  (unsigned long long)s->count[c]);
    sb_printf(sb, ")%s\n", o->all ? " not unfragmented IPv4/IPv6 TCP/UDP, kept" : "");
    sb_printf(sb, "bytes       %llu on the wire, %llu captured (%llu packets cut by the snap length)\n",
              (unsigned long long)s->bytes, (unsigned long long)s->cap_bytes,
              (unsigned long long)s->snap_truncated);
    sb_printf(sb, "duration    %.9f s", trace_stats_duration_s(s));
    if (s->out_of_order)
        sb_printf(sb, " (%llu packets stamped before their predecessor: taken at its time)",
                  (unsigned long long)s->out_of_order);
    sb_printf(sb, "\n");
    sb_printf(sb, "size        mean %.2f B, min %u", trace_stats_mean(s), s->packets ? s->min_len : 0);
    for (size_t i = 0; i < NPCTS; i++)
        sb_printf(sb, ", p%g %u", pcts[i], trace_stats_percentile(s, pcts[i]));
    sb_printf(sb, ", max %u\n", s->max_len);
    sb_printf(sb, "rate        %.3f Gb/s of frames (%.3f Gb/s with FCS, preamble and IFG), %.3f Mpps\n",
              trace_stats_gbps(s, 0), trace_stats_gbps(s, L1_OVERHEAD), trace_stats_mpps(s));
    sb_printf(sb, "flows       %zu distinct 5-tuples", s->flows);
    if (s->no_tuple)
        sb_printf(sb, " (%llu packets without one)", (unsigned long long)s->no_tuple);
    sb_printf(sb, "\nipv6        %llu packets (%.2f%%), %zu flows", (unsigned long long)s->ipv6,
              s->packets ? 100.0 * (double)s->ipv6 / (double)s->packets : 0.0, s->flows6.n);
    sb_printf(sb, "\nhistogram   %-12s %12s %8s\n", "bytes", "packets", "share");
    for (int b = 0; b < TRACE_NBINS; b++) {
        char lab[32];
        bin_label(lab, sizeof lab, b);
        sb_printf(sb, "            %-12s %12llu %7.2f%%\n", lab, (unsigned long long)s->bins[b],
                  s->packets ? 100.0 * (double)s->bins[b] / (double)s->packets : 0.0);
    }
}

static char *stats_json(const stats_opts *o, const trace_stats *s)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "file", o->in);
    cJSON_AddStringToObject(root, "filter", o->all ? "all" : "ip_tcp_udp_unfragmented");
    cJSON_AddNumberToObject(root, "records", (double)s->records);
    cJSON_AddNumberToObject(root, "packets", (double)s->packets);
    cJSON_AddNumberToObject(root, "bytes", (double)s->bytes);
    cJSON_AddNumberToObject(root, "captured_bytes", (double)s->cap_bytes);
    cJSON_AddNumberToObject(root, "snap_truncated", (double)s->snap_truncated);
    cJSON *sk = cJSON_AddObjectToObject(root, "skipped");
    cJSON_AddNumberToObject(sk, "total", (double)trace_stats_skipped(s));
    for (int c = 1; c < TRACE_NCLASSES; c++)
        cJSON_AddNumberToObject(sk, trace_class_name((enum trace_class)c), o->all ? 0.0 : (double)s->count[c]);
    cJSON *cl = cJSON_AddObjectToObject(root, "classes");
    for (int c = 0; c < TRACE_NCLASSES; c++)
        cJSON_AddNumberToObject(cl, trace_class_name((enum trace_class)c), (double)s->count[c]);
    /* Integers, as written: a double holds ns since 1970 only to ~256 ns. */
    char ts[32];
    snprintf(ts, sizeof ts, "%llu", (unsigned long long)s->ts_min);
    cJSON_AddRawToObject(root, "first_ts_ns", ts);
    snprintf(ts, sizeof ts, "%llu", (unsigned long long)s->ts_max);
    cJSON_AddRawToObject(root, "last_ts_ns", ts);
    cJSON_AddNumberToObject(root, "duration_s", trace_stats_duration_s(s));
    cJSON_AddNumberToObject(root, "out_of_order", (double)s->out_of_order);
    cJSON *sz = cJSON_AddObjectToObject(root, "size");
    cJSON_AddNumberToObject(sz, "mean", trace_stats_mean(s));
    cJSON_AddNumberToObject(sz, "min", s->packets ? s->min_len : 0);
    for (size_t i = 0; i < NPCTS; i++) {
        char k[16];
        snprintf(k, sizeof k, "p%g", pcts[i]);
        cJSON_AddNumberToObject(sz, k, trace_stats_percentile(s, pcts[i]));
    }
    cJSON_AddNumberToObject(sz, "max", s->max_len);
    cJSON *h = cJSON_AddArrayToObject(root, "histogram");
    for (int b = 0; b < TRACE_NBINS; b++) {
        cJSON *it = cJSON_CreateObject();
        char lab[32];
        bin_label(lab, sizeof lab, b);
        cJSON_AddStringToObject(it, "bytes", lab);
        cJSON_AddNumberToObject(it, "lo", trace_size_bins[b].lo);
        if (trace_size_bins[b].hi != UINT32_MAX)
            cJSON_AddNumberToObject(it, "hi", trace_size_bins[b].hi);
        cJSON_AddNumberToObject(it, "packets", (double)s->bins[b]);
        cJSON_AddItemToArray(h, it);
    }
    cJSON_AddNumberToObject(root, "flows", (double)s->flows);
    cJSON_AddNumberToObject(root, "packets_without_tuple", (double)s->no_tuple);
    cJSON *v6 = cJSON_AddObjectToObject(root, "ipv6");
    cJSON_AddNumberToObject(v6, "packets", (double)s->ipv6);
    cJSON_AddNumberToObject(v6, "flows", (double)s->flows6.n);
    cJSON *r = cJSON_AddObjectToObject(root, "rate");
    cJSON_AddNumberToObject(r, "gbps", trace_stats_gbps(s, 0));
    cJSON_AddNumberToObject(r, "l1_gbps", trace_stats_gbps(s, L1_OVERHEAD));
    cJSON_AddNumberToObject(r, "mpps", trace_stats_mpps(s));
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    return txt;
}

static int trace_stats_cmd(int argc, char **argv)
{
    ddio_err e = {0};
    stats_opts o = {.cc = {.fmt = FMT_TABLE}};
    o.cc.argc = argc + 1, o.cc.argv = argv - 1;   /* cmd_trace passed its argv + 1: "trace" before "stats" */
    int rc = cli_parse_outcome("trace stats", parse_stats(argc, argv, &o, &e), usage_stats, &e);
    if (rc >= 0)
        return rc;
    trace_stats s;
    if (ddio_outfile_check((ddio_file_arg[]){{"-o", o.cc.out}, {0}}, (ddio_file_arg[]){{"TRACE", o.in}, {0}}, &e))
        return cli_value_error("trace stats", &e);
    if (trace_stats_read(&s, o.in, o.all, &e) != 0) {
        trace_stats_free(&s);
        return cli_fail("trace stats", &e);
    }
    strbuf sb = {0};
    if (o.cc.fmt == FMT_JSON) {
        char *j = stats_json(&o, &s);
        j = j ? cli_provenance(j, o.cc.argc, o.cc.argv) : NULL;
        sb_printf(&sb, "%s\n", j);
        free(j);
    } else {
        stats_table(&sb, &o, &s);
    }
    rc = cli_write_output(o.cc.out, sb.data, &e);
    sb_free(&sb);
    trace_stats_free(&s);
    return rc ? cli_fail("trace stats", &e) : DDIO_EXIT_OK;
}

/* ---- gen ------------------------------------------------------------ */

static int parse_gen(int argc, char **argv, gen_config *c, const char **out, ddio_err *e)
{
    enum { O_PROFILE = 256, O_PACKETS, O_RATE, O_FLOWS, O_ZIPF, O_SEED, O_SNAPLEN, O_TSTAMP, O_BURST, O_THREADS,
           O_TUPLES };
    static const struct option longopts[] = {
        {"profile", required_argument, 0, O_PROFILE}, {"packets", required_argument, 0, O_PACKETS},
        {"rate", required_argument, 0, O_RATE},       {"flows", required_argument, 0, O_FLOWS},
        {"zipf", required_argument, 0, O_ZIPF},       {"seed", required_argument, 0, O_SEED},
        {"snaplen", required_argument, 0, O_SNAPLEN}, {"tstamp", required_argument, 0, O_TSTAMP},
        {"flow-burst", required_argument, 0, O_BURST}, {"gen-threads", required_argument, 0, O_THREADS},
        {"flow-tuples", required_argument, 0, O_TUPLES},
        {"output", required_argument, 0, 'o'},        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    cli_common cc = {.fmt = FMT_TABLE};
    int c_, have_profile = 0, have_packets = 0;
    uint64_t v;
    opterr = 0;
    optind = 1;
    while ((c_ = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c_) {
        case O_PROFILE:
            if (gen_parse_profile(optarg, c, "--profile", e)) return -1;
            have_profile = 1;
            break;
        case O_PACKETS:
            if (ddio_parse_u64(optarg, 1, 10000000000ull, &v, "--packets", e)) return -1;
            c->packets = v;
            have_packets = 1;
            break;
        case O_RATE:
            /* simulate's max is back to back at the machine's line rate;
             * a trace file has no machine. */
            if (strcmp(optarg, "max") == 0)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--rate: 'max' (back to back at line rate) needs a line "
                                 "rate, which a trace file has not: give Gb/s, or simulate --rate max");
            if (ddio_parse_double(optarg, -INFINITY, INFINITY, &c->rate_gbps, "--rate", e) ||
                gen_check_rate(c->rate_gbps, "--rate", e)) return -1;
            break;
        case O_FLOWS:
            if (ddio_parse_u64(optarg, 1, GEN_MAX_FLOWS, &v, "--flows", e)) return -1;
            c->flows = (uint32_t)v;
            break;
        case O_ZIPF:
            if (ddio_parse_double(optarg, 0.0, 5.0, &c->zipf, "--zipf", e)) return -1;
            break;
        case O_BURST:
            if (ddio_parse_u64(optarg, 1, GEN_MAX_FLOW_BURST, &v, "--flow-burst", e)) return -1;
            c->flow_burst = (uint32_t)v;
            break;
        case O_THREADS:
            if (ddio_parse_u64(optarg, 1, GEN_MAX_THREADS, &v, "--gen-threads", e)) return -1;
            c->threads = (uint32_t)v;
            break;
        case O_TUPLES:
            if (gen_parse_tuples(optarg, &c->random_tuples, "--flow-tuples", e)) return -1;
            break;
        case O_SEED:
            if (ddio_parse_u64(optarg, 0, UINT64_MAX, &v, "--seed", e)) return -1;
            c->seed = v;
            break;
        case O_SNAPLEN:
            if (ddio_parse_u64(optarg, GEN_MIN_SNAPLEN, GEN_MAX_SNAPLEN, &v, "--snaplen", e)) return -1;
            c->snaplen = (uint32_t)v;
            break;
        case O_TSTAMP:
            if (strcmp(optarg, "nano") == 0)
                c->nano = 1;
            else if (strcmp(optarg, "micro") == 0)
                c->nano = 0;
            else
                return ddio_errf(e, DDIO_EXIT_USAGE, "--tstamp: '%s' is not one of nano, micro", optarg);
            break;
        default: {
            int r = cli_common_option(c_, argv, &cc, e);
            if (r != CLI_OPT_DONE)
                return r;   /* 1 help, -1 bad value, -2 usage */
            *out = cc.out;
        }
        }
    }
    if (optind < argc)
        return USAGE_ERR("unexpected argument '%s'", argv[optind]);
    if (!have_profile)
        return USAGE_ERR("--profile is required");
    if (!have_packets)
        return USAGE_ERR("--packets is required");
    if (!*out)
        return USAGE_ERR("-o/--output: a pcap file name is required");
    if (strcmp(*out, "-") == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--output: '-': a pcap goes to a file, not stdout");
    return 0;
}

static int trace_gen_cmd(int argc, char **argv)
{
    ddio_err e = {0};
    gen_config c;
    gen_config_default(&c);
    const char *out = NULL;
    int rc = cli_parse_outcome("trace gen", parse_gen(argc, argv, &c, &out, &e), usage_gen, &e);
    if (rc >= 0)
        return rc;
    if (ddio_outfile_check((ddio_file_arg[]){{"-o", out}, {0}}, NULL, &e) != 0)
        return cli_value_error("trace gen", &e);
    if (gen_write_pcap(&c, out, &e) != 0)
        return cli_fail("trace gen", &e);
    return DDIO_EXIT_OK;
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("trace", "missing subcommand: stats or gen");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
        fputs(usage_trace, stdout);
        return DDIO_EXIT_OK;
    }
    if (strcmp(sub, "stats") == 0)
        return trace_stats_cmd(argc - 1, argv + 1);
    if (strcmp(sub, "gen") == 0)
        return trace_gen_cmd(argc - 1, argv + 1);
    return cli_usage_error("trace", "unknown subcommand '%s' (stats or gen)", sub);
}
