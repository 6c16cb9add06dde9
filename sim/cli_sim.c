/* cli_sim.c - the traffic and simulator-run options shared by `ddiosim
 * simulate` and `ddiosim predict --from-sim`.
 *
 * One parser, so that an option means the same, and a bad value gives the
 * same message, in both commands: predict can then reproduce the run
 * simulate made.  What differs per command (the default number of packets,
 * the least accepted, the default rate, the default source) is given by
 * the command (cli_sim_init, its own source default). */
#include <getopt.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/common/parse.h"

void cli_sim_init(cli_sim *s, uint64_t packets, uint64_t min_packets, double rate_gbps)
{
    memset(s, 0, sizeof *s);
    dsim_options_default(&s->d);
    s->d.packets = packets;
    s->d.rate_gbps = rate_gbps;
    s->min_packets = min_packets;
}

/* "max" (-1: back to back at line rate) or Gb/s of frame bytes. */
static int parse_rate(const char *s, double *out, ddio_err *e)
{
    if (strcmp(s, "max") == 0) {
        *out = -1;
        return 0;
    }
    return ddio_parse_double(s, 0.001, 10000, out, "--rate", e);
}

/* A u32 option in [lo, hi]. */
static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out, const char *what, ddio_err *e)
{
    uint64_t v;
    if (ddio_parse_u64(s, lo, hi, &v, what, e) != 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* 0 or -1 (e filled) for option `opt` with value optarg. */
static int set_option(enum cli_sim_opt opt, cli_sim *s, ddio_err *e)
{
    dsim_options *d = &s->d;
    switch (opt) {
    case CLI_SIM_OPT_TRACE: d->src.trace = optarg; return 0;
    case CLI_SIM_OPT_PROFILE: d->src.profile = optarg; return 0;
    case CLI_SIM_OPT_FLOWS: return parse_u32(optarg, 1, 1u << 24, &d->src.flows, "--flows", e);
    case CLI_SIM_OPT_ALL: d->src.keep_all = 1; return 0;
    case CLI_SIM_OPT_PKT_SIZE: return parse_u32(optarg, 60, 9000, &d->pkt_size, "--pkt-size", e);
    case CLI_SIM_OPT_RATE:
        s->rate_set = 1;
        return parse_rate(optarg, &d->rate_gbps, e);
    case CLI_SIM_OPT_PACKETS: return ddio_parse_u64(optarg, s->min_packets, 1ull << 40, &d->packets, "--packets", e);
    case CLI_SIM_OPT_SEED: return ddio_parse_u64(optarg, 0, UINT64_MAX, &d->seed, "--seed", e);
    case CLI_SIM_OPT_WARMUP: return ddio_parse_u64(optarg, 0, 1ull << 40, &d->warmup_packets, "--warmup", e);
    case CLI_SIM_OPT_NO_DESC: d->desc_access = 0; return 0;
    case CLI_SIM_OPT_NIC_BUFFER: return parse_u32(optarg, 2048, 1u << 30, &d->nic_buffer_bytes, "--nic-buffer", e);
    case CLI_SIM_NOPTS: break;
    }
    return ddio_errf(e, DDIO_EXIT_USAGE, "internal: simulator option %d", (int)opt);
}

int cli_sim_option(int c, int base, cli_sim *s, ddio_err *e)
{
    if (c < base || c >= base + CLI_SIM_NOPTS)
        return 0;
    return set_option((enum cli_sim_opt)(c - base), s, e) != 0 ? -1 : 1;
}

int cli_sim_check(const cli_sim *s, ddio_err *e)
{
    if (s->d.src.trace && s->d.src.profile)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--trace and --profile exclude each other");
    return 0;
}
