/* cli_sim.c - the traffic and simulator-run options shared by `ddiosim
 * simulate` and `ddiosim predict`.
 *
 * One table, so that an option means the same, accepts the same values,
 * gives the same message for a bad one and is described by the same help
 * line in both commands: predict can then reproduce the run simulate made.
 * What differs per command is the default of a few options (the number of
 * packets, the rate, the source), given by the command (cli_sim_init and
 * the notes of cli_sim), and shown by the help next to each option. */
#include <getopt.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/common/parse.h"
#include "sim/queue/pktsrc.h"
#include "traces/gen.h"

/* Each option's help; `run` marks those that shape a simulator run only
 * (predict: with --from-sim; without, they would be silently ignored). */
static const struct {
    const char *opt, *text;
    int run;
} sim_help[CLI_SIM_NOPTS] = {
    [CLI_SIM_OPT_TRACE] = {"--trace FILE", "pcap/pcapng trace (- or a pipe: read once, into a temporary copy)", 0},
    [CLI_SIM_OPT_PROFILE] = {"--profile P", "generate instead: fixed:SIZE | imix | mawi", 0},
    [CLI_SIM_OPT_FLOWS] = {"--flows F", "generator flows; with more cores they set the per-core shares", 0},
    [CLI_SIM_OPT_FLOW_BURST] = {"--flow-burst B", "generator: B packets of a flow in a row (per thread); through "
                                                  "RSS each queue then receives bursts", 0},
    [CLI_SIM_OPT_GEN_THREADS] = {"--gen-threads S", "generator threads, each sending its share of the flows, "
                                                    "interleaved packet by packet", 0},
    [CLI_SIM_OPT_FLOW_TUPLES] = {"--flow-tuples T", "generator 5-tuples: range (port and address ranges, as "
                                                    "TRex) | random (hashed: RSS spreads them at random)", 0},
    [CLI_SIM_OPT_ALL] = {"--all", "keep every packet of the trace", 0},
    [CLI_SIM_OPT_PKT_SIZE] = {"--pkt-size B", "force every frame to B bytes; --rate counts these", 0},
    [CLI_SIM_OPT_RATE] = {"--rate GBPS|max", "offered rate, Gb/s of frame bytes; max = back to back at line "
                                             "rate", 0},
    [CLI_SIM_OPT_PACKETS] = {"--packets N", "packets to inject, at least 1; a trace loops", 1},
    [CLI_SIM_OPT_SEED] = {"--seed S", "seed of every random choice, the generator's too", 0},
    [CLI_SIM_OPT_WARMUP] = {"--warmup N", "received packets before measuring", 1},
    [CLI_SIM_OPT_NO_DESC] = {"--no-desc", "do not model descriptor, completion and mbuf header lines", 1},
    [CLI_SIM_OPT_NIC_BUFFER] = {"--nic-buffer B", "NIC packet buffer in front of PCIe, bytes", 1},
};

void cli_sim_init(cli_sim *s, uint64_t packets, double rate_gbps)
{
    memset(s, 0, sizeof *s);
    dsim_options_default(&s->d);
    s->d.packets = packets;
    s->d.rate_gbps = rate_gbps;
}

/* "max" (-1: back to back at line rate) or Gb/s of frame bytes. */
static int parse_rate(const char *s, double *out, ddio_err *e)
{
    if (strcmp(s, "max") == 0) {
        *out = -1;
        return 0;
    }
    if (ddio_parse_double(s, -INFINITY, INFINITY, out, "--rate", e) != 0)
        return -1;
    return gen_check_rate(*out, "--rate", e);
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
    case CLI_SIM_OPT_PROFILE: {
        gen_config g;   /* checked now, so that a bad one is named before the frame check */
        gen_config_default(&g);
        d->src.profile = optarg;
        return gen_parse_profile(optarg, &g, "--profile", e);
    }
    case CLI_SIM_OPT_FLOWS: return parse_u32(optarg, 1, GEN_MAX_FLOWS, &d->src.flows, "--flows", e);
    case CLI_SIM_OPT_FLOW_BURST:
        return parse_u32(optarg, 1, GEN_MAX_FLOW_BURST, &d->src.flow_burst, "--flow-burst", e);
    case CLI_SIM_OPT_GEN_THREADS:
        return parse_u32(optarg, 1, GEN_MAX_THREADS, &d->src.gen_threads, "--gen-threads", e);
    case CLI_SIM_OPT_FLOW_TUPLES: return gen_parse_tuples(optarg, &d->src.random_tuples, "--flow-tuples", e);
    case CLI_SIM_OPT_ALL: d->src.keep_all = 1; return 0;
    /* The generator's bounds of fixed:SIZE: one range for one notion. */
    case CLI_SIM_OPT_PKT_SIZE: return parse_u32(optarg, GEN_MIN_FRAME, GEN_MAX_FRAME, &d->pkt_size, "--pkt-size", e);
    case CLI_SIM_OPT_RATE:
        s->rate_set = 1;
        return parse_rate(optarg, &d->rate_gbps, e);
    case CLI_SIM_OPT_PACKETS: return ddio_parse_u64(optarg, 1, 1ull << 40, &d->packets, "--packets", e);
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
    enum cli_sim_opt opt = (enum cli_sim_opt)(c - base);
    s->given[opt] = 1;
    return set_option(opt, s, e) != 0 ? -1 : 1;
}

int cli_sim_check_source(const cli_sim *s, const char *trace, ddio_err *e)
{
    static const enum cli_sim_opt gen_only[] = {CLI_SIM_OPT_FLOW_BURST, CLI_SIM_OPT_GEN_THREADS,
                                                CLI_SIM_OPT_FLOW_TUPLES};
    for (size_t k = 0; trace && k < sizeof gen_only / sizeof gen_only[0]; k++)
        if (s->given[gen_only[k]])
            return ddio_errf(e, DDIO_EXIT_USAGE, "%.*s shapes generated traffic, and this run reads a trace: "
                             "give --profile",
                             (int)strcspn(sim_help[gen_only[k]].opt, " "), sim_help[gen_only[k]].opt);
    return 0;
}

int cli_sim_check(const cli_sim *s, int runs, ddio_err *e)
{
    if (s->d.src.trace && s->d.src.profile)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--trace and --profile exclude each other");
    if (!runs)
        for (int k = 0; k < CLI_SIM_NOPTS; k++)
            if (s->given[k] && sim_help[k].run)
                return ddio_errf(e, DDIO_EXIT_USAGE, "%.*s shapes a simulator run: add --from-sim",
                                 (int)strcspn(sim_help[k].opt, " "), sim_help[k].opt);
    return 0;
}

/* The frame size every packet has: --pkt-size, else --profile fixed:SIZE's
 * (checked by cli_sim_option), else 0 (sizes vary). */
static uint32_t forced_frame_size(const cli_sim *s)
{
    if (s->d.pkt_size)
        return s->d.pkt_size;
    if (s->d.src.profile && strncmp(s->d.src.profile, "fixed:", 6) == 0)
        return (uint32_t)strtoul(s->d.src.profile + 6, NULL, 10);
    return 0;
}

int cli_sim_check_frame(const cli_sim *s, const ddio_config *cfg, ddio_err *e)
{
    uint32_t room = cfg->workload.driver.data_room, size = forced_frame_size(s);
    const char *what = "--pkt-size";
    char prof[64];
    if (!s->d.pkt_size && size) {
        snprintf(prof, sizeof prof, "--profile %.40s", s->d.src.profile);
        what = prof;
    }
    if (size > room)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s: %u B frames do not fit the data room (%u B; workload.driver.data_room): the NIC "
                         "would drop every one (one buffer per frame, no scatter)",
                         what, size, room);
    return 0;
}

void cli_sim_rate_warning(const cli_sim *s, const ddio_config *cfg, char *w, size_t cap)
{
    w[0] = '\0';
    double rate = s->d.rate_gbps, line = cfg->machine.nic.line_rate_gbps;
    if (!(rate > 0) || !(line > 0))
        return;   /* the trace's timing, or back to back ("max") */
    uint32_t size = forced_frame_size(s);
    double most = size ? line * size / (size + (double)PKTSRC_WIRE_OVERHEAD) : line;
    if (rate > most * (1 + 1e-9)) {
        if (size)
            snprintf(w, cap, "warning: --rate %g Gb/s of %u B frames is above what the %g Gb/s link carries (%.4g Gb/s "
                             "of frames, %u B each on the wire): the packets arrive back to back, at line rate",
                     rate, size, line, most, size + PKTSRC_WIRE_OVERHEAD);
        else
            snprintf(w, cap, "warning: --rate %g Gb/s is above the NIC's %g Gb/s line rate (nic.line_rate_gbps): the "
                             "packets arrive back to back, at line rate", rate, line);
    }
}

void cli_sim_usage(strbuf *sb, const cli_sim *s, int runs_only_with_from_sim)
{
    char def[CLI_SIM_NOPTS][200], text[CLI_SIM_NOPTS][200];
    memset(def, 0, sizeof def);
    for (int k = 0; k < CLI_SIM_NOPTS; k++)
        snprintf(text[k], sizeof text[k], "%s", sim_help[k].text);
    /* The one range of a frame size (GEN_MIN_FRAME-GEN_MAX_FRAME). */
    snprintf(text[CLI_SIM_OPT_PROFILE], sizeof text[0], "generate instead: fixed:SIZE (SIZE %u-%u) | imix | mawi",
             GEN_MIN_FRAME, GEN_MAX_FRAME);
    snprintf(text[CLI_SIM_OPT_PKT_SIZE], sizeof text[0], "force every frame to B bytes, %u-%u; --rate counts these",
             GEN_MIN_FRAME, GEN_MAX_FRAME);
    snprintf(def[CLI_SIM_OPT_ALL], sizeof def[0], "default: IPv4/IPv6 TCP/UDP only");
    gen_config g;
    gen_config_default(&g);
    g.profile = GEN_MAWI;
    uint32_t mawi_flows = gen_flows(&g);
    g.profile = GEN_IMIX;
    snprintf(def[CLI_SIM_OPT_FLOWS], sizeof def[0], "the profile's: mawi %u, else %u", mawi_flows, gen_flows(&g));
    snprintf(def[CLI_SIM_OPT_FLOW_BURST], sizeof def[0], "1");
    snprintf(def[CLI_SIM_OPT_GEN_THREADS], sizeof def[0], "1");
    snprintf(def[CLI_SIM_OPT_FLOW_TUPLES], sizeof def[0], "range");
    snprintf(def[CLI_SIM_OPT_SEED], sizeof def[0], "%" PRIu64, s->d.seed);
    snprintf(def[CLI_SIM_OPT_NIC_BUFFER], sizeof def[0], "%u", s->d.nic_buffer_bytes);
    snprintf(def[CLI_SIM_OPT_WARMUP], sizeof def[0],
             "the buffers in circulation, twice, and until the RX queues have settled, at most half the "
             "packets");
    if (s->d.packets)
        snprintf(def[CLI_SIM_OPT_PACKETS], sizeof def[0], "%" PRIu64, s->d.packets);
    else
        snprintf(def[CLI_SIM_OPT_PACKETS], sizeof def[0], "the whole trace once, a profile %u",
                 PKTSRC_DEFAULT_PACKETS);
    if (s->d.rate_gbps < 0)
        snprintf(def[CLI_SIM_OPT_RATE], sizeof def[0], "max");
    else if (s->d.rate_gbps > 0)
        snprintf(def[CLI_SIM_OPT_RATE], sizeof def[0], "%g", s->d.rate_gbps);
    else
        snprintf(def[CLI_SIM_OPT_RATE], sizeof def[0], "the trace's timing, a profile %g", g.rate_gbps);
    sb_printf(sb, "traffic (the same options as %s; the defaults are this command's):\n",
              runs_only_with_from_sim ? "simulate" : "predict");
    for (int run = 0; run < 2; run++) {
        if (run)
            sb_printf(sb, "the simulator run%s:\n",
                      runs_only_with_from_sim ? " (with --from-sim only: without, there is no run)" : "");
        for (int k = 0; k < CLI_SIM_NOPTS; k++) {
            if (sim_help[k].run != run)
                continue;
            strbuf d = {0};
            sb_printf(&d, "%s%s%s", def[k], def[k][0] && s->note[k] ? "; " : "", s->note[k] ? s->note[k] : "");
            cli_help_line(sb, sim_help[k].opt, text[k], d.data);
            sb_free(&d);
        }
    }
}
