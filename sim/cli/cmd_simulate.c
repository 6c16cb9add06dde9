/* cmd_simulate.c - `ddiosim simulate`: run the discrete-event simulator on a
 * trace or a generated profile and report hit rates, queues, drops,
 * throughput, latency and memory traffic. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configs/config.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_io.h"
#include "sim/common/datadir.h"
#include "sim/common/parse.h"
#include "sim/markov/predict.h"
#include "sim/queue/dsim.h"

static const char usage_head[] =
    "usage: ddiosim simulate [options]\n"
    "\n"
    "Simulate NIC rings, cores and the cache hierarchy packet by packet and report\n"
    "the DDIO hit rates.  With no options: the skylake-6140 machine running l2fwd on\n"
    "the sample MAWI-style trace.\n"
    "\n";

static const char usage_own[] =
    "  --timeline F.csv  write queue lengths and hit rates over time\n"
    "  --timeline-us T   timeline period in microseconds (10)\n"
    "  --no-model        skip the Markov model cross-check\n"
    "output:\n"
    "  --format F        table | json (table)\n"
    "  -o, --output FILE write to FILE (atomically) instead of stdout\n"
    "  -h, --help        this help\n";

typedef struct sim_opts {
    ddio_config_args args;
    cli_sim sim;                /* the traffic and run options (sim/cli/cli_sim.c) */
    cli_common cc;
    const char *timeline;       /* --timeline path, or NULL */
    int no_model;
    char sample_trace[DDIO_DATA_PATH_MAX];  /* the default trace, in the data directory */
} sim_opts;

/* This command's defaults of the shared options: every packet of the trace
 * once (a profile: PKTSRC_DEFAULT_PACKETS generated), at the trace's own
 * timing (a profile: its generator's rate). */
#define SIM_DEFAULT_PACKETS 0
#define SIM_DEFAULT_RATE 0.0

/* The whole --help: the shared options (sim/cli/cli_sim.c), this command's, the
 * configuration's, each with its default. */
static void help(strbuf *sb, const cli_sim *s)
{
    sb_printf(sb, "%s", usage_head);
    cli_sim_usage(sb, s, 0);
    sb_printf(sb, "%s\n", usage_own);
    cli_config_usage(sb);
}

enum { O_TIMELINE = 300, O_TIMELINE_US, O_NOMODEL, O_SIM = 350, O_CFG = 400 };

static int parse(int argc, char **argv, sim_opts *o, ddio_err *e)
{
    static const struct option longopts[] = {
        {"timeline", required_argument, 0, O_TIMELINE},
        {"timeline-us", required_argument, 0, O_TIMELINE_US},
        {"no-model", no_argument, 0, O_NOMODEL},
        CLI_SIM_LONGOPTS(O_SIM),
        CLI_COMMON_LONGOPTS,
        DDIO_CONFIG_LONGOPTS(O_CFG),
        {0, 0, 0, 0},
    };
    dsim_options *d = &o->sim.d;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        int k = cli_config_option(c, O_CFG, &o->args, e);
        if (k == 0)
            k = cli_sim_option(c, O_SIM, &o->sim, e);
        if (k < 0)
            return -1;
        if (k)
            continue;
        switch (c) {
        case O_TIMELINE: o->timeline = optarg; break;
        case O_NOMODEL: o->no_model = 1; break;
        case O_TIMELINE_US:
            if (ddio_parse_double(optarg, 0.01, 1e9, &d->timeline_us, "--timeline-us", e)) return -1;
            break;
        default: {
            int r = cli_common_option(c, argv, &o->cc, e);
            if (r != CLI_OPT_DONE)
                return r;   /* 1 help, -1 bad value, -2 usage */
        }
        }
    }
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if (cli_sim_check(&o->sim, 1, e))
        return -1;
    if (!d->src.trace && !d->src.profile) {
        if (ddio_datapath(DDIO_DATA_SAMPLE_TRACE, o->sample_trace, sizeof o->sample_trace, e) != 0)
            return -1;
        d->src.trace = o->sample_trace;
    }
    return cli_sim_check_source(&o->sim, d->src.trace, e);
}

/* ctx: an int set once the bar is drawn, so that only a drawn bar is
 * cleared (runs under a second draw none). */
static void progress_bar(void *ctx, double f)
{
    *(int *)ctx = 1;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    int w = 40, k = (int)(f * w);
    fprintf(stderr, "\r[%.*s%*s] %3.0f%%", k, "########################################", w - k, "", 100 * f);
}

/* Whether the run has rate r (the mode has it, and it was measured). */
static int has(const ddio_config *cfg, enum cli_rate r, dsim_hits h)
{
    return cli_mode_has_rate(cfg->workload.mode, r) && h.accesses > 0;
}

/* A rate measured, or null when nothing was accessed (0 / 0). */
static void add_hits(cJSON *o, const char *name, dsim_hits h)
{
    cli_json_rate(o, name, dsim_rate(h), h.accesses > 0);
}

static void add_bounds(cJSON *o, const char *name, mk_bounds b, double sim, int ok)
{
    cJSON *x = cJSON_AddObjectToObject(o, name);
    cli_json_rate(x, "lower", b.lower, ok);
    cli_json_rate(x, "upper", b.upper, ok);
    cli_json_rate(x, "mean", b.mean, ok);
    cli_json_rate(x, "estimate", b.estimate, ok);
    /* simulated - predicted (the estimate: the LRU value when the LLC runs LRU, else the mean) */
    cli_json_rate(x, "sim_minus_model", sim - b.estimate, ok);
    cli_json_rate(x, "sim_minus_lower", sim - b.lower, ok);
}

static void model_json(cJSON *j, const ddio_config *cfg, const dsim_result *r, const mk_prediction *p)
{
    cJSON *m = cJSON_AddObjectToObject(j, "model");
    add_bounds(m, "pcie_write_hit_frac", p->pcie_write_hit, dsim_rate(r->pcie_write),
               has(cfg, CLI_RATE_PCIE_WRITE, r->pcie_write));
    add_bounds(m, "pcie_read_hit_frac", p->pcie_read_hit, dsim_rate(r->pcie_read),
               has(cfg, CLI_RATE_PCIE_READ, r->pcie_read));
    add_bounds(m, "cpu_first_hit_frac", p->cpu_first_hit, dsim_rate(r->cpu_first),
               has(cfg, CLI_RATE_CPU_FIRST, r->cpu_first));
    cJSON_AddNumberToObject(m, "iterations", p->iterations);
    cJSON_AddNumberToObject(m, "residual", p->residual);
}

static char *to_json(const ddio_config *cfg, const sim_opts *o, const dsim_result *r, const mk_prediction *p)
{
    cJSON *j = cJSON_CreateObject();
    cli_json_rate(j, "pcie_write_hit_frac", dsim_rate(r->pcie_write), has(cfg, CLI_RATE_PCIE_WRITE, r->pcie_write));
    cli_json_rate(j, "pcie_read_hit_frac", dsim_rate(r->pcie_read), has(cfg, CLI_RATE_PCIE_READ, r->pcie_read));
    cli_json_rate(j, "cpu_first_hit_frac", dsim_rate(r->cpu_first), has(cfg, CLI_RATE_CPU_FIRST, r->cpu_first));
    add_hits(j, "pcie_write_full_hit_frac", r->pcie_write_full);
    add_hits(j, "pcie_write_partial_hit_frac", r->pcie_write_partial);
    add_hits(j, "pcie_write_all_hit_frac", r->pcie_write_all);
    add_hits(j, "pcie_read_all_hit_frac", r->pcie_read_all);
    cJSON *q = cJSON_AddObjectToObject(j, "queues");
    for (int k = 0; k < Q_COUNT; k++)
        cJSON_AddNumberToObject(q, lqueue_name((enum lqueue)k), r->queue_mean[k]);
    cJSON *pc = cJSON_AddArrayToObject(q, "per_core");
    for (uint32_t c = 0; c < r->cores; c++) {
        cJSON *one = cJSON_CreateObject();
        for (int k = 0; k < Q_COUNT; k++)
            cJSON_AddNumberToObject(one, lqueue_name((enum lqueue)k), r->queue_len[c * Q_COUNT + k]);
        cJSON_AddItemToArray(pc, one);
    }
    cJSON_AddNumberToObject(j, "packets", (double)r->injected);
    cJSON_AddNumberToObject(j, "delivered", (double)r->delivered);
    cJSON_AddNumberToObject(j, "dropped", (double)r->dropped);
    cJSON *dr = cJSON_AddObjectToObject(j, "drops");
    cJSON_AddNumberToObject(dr, "rx_ring", (double)r->drop_rx_ring);
    cJSON_AddNumberToObject(dr, "nic_buffer", (double)r->drop_nic_buffer);
    cJSON_AddNumberToObject(dr, "tx", (double)r->drop_tx);
    cJSON_AddNumberToObject(dr, "oversize", (double)r->drop_oversize);
    cJSON_AddNumberToObject(j, "drop_frac", r->injected ? (double)r->dropped / (double)r->injected : 0.0);
    cJSON_AddNumberToObject(j, "measured_packets", (double)r->measured_packets);
    cJSON *wu = cJSON_AddObjectToObject(j, "warmup");
    cJSON_AddNumberToObject(wu, "packets", (double)r->warmup_packets);
    cJSON_AddBoolToObject(wu, "settled", r->warmup_settled);
    cJSON_AddNumberToObject(j, "throughput_gbps", r->throughput_gbps);
    cJSON_AddNumberToObject(j, "mpps", r->mpps);
    cJSON *lat = cJSON_AddObjectToObject(j, "latency_us");
    cJSON_AddNumberToObject(lat, "p50", r->latency_p50_us);
    cJSON_AddNumberToObject(lat, "p99", r->latency_p99_us);
    cJSON_AddNumberToObject(lat, "mean", r->latency_mean_us);
    cJSON_AddNumberToObject(j, "mem_read_bytes_per_pkt", r->mem_read_bytes_per_pkt);
    cJSON_AddNumberToObject(j, "mem_write_bytes_per_pkt", r->mem_write_bytes_per_pkt);
    cJSON_AddNumberToObject(j, "mem_gbyte_s", r->mem_gbps);
    cJSON *occ = cJSON_AddObjectToObject(j, "llc_occupancy_lines");
    for (int g = 0; g < REG_COUNT; g++)
        if (g != REG_MEM)
            cJSON_AddNumberToObject(occ, hier_region_name((enum hier_region)g), (double)r->occupancy[g]);
    cJSON_AddNumberToObject(j, "sim_seconds", r->sim_seconds);
    cJSON_AddNumberToObject(j, "measured_seconds", r->measured_seconds);
    cJSON *in = cJSON_AddObjectToObject(j, "input");
    cJSON_AddStringToObject(in, "machine", cfg->machine.name);
    cJSON_AddStringToObject(in, "workload", cfg->workload.name);
    cJSON_AddStringToObject(in, "traffic", o->sim.d.src.trace ? o->sim.d.src.trace : o->sim.d.src.profile);
    if (o->sim.d.src.trace) {
        cJSON_AddNumberToObject(in, "out_of_order", (double)r->reordered);
        /* The records the filter left out of each pass, by why (trace stats' classes). */
        cJSON *sk = cJSON_AddObjectToObject(in, "skipped");
        uint64_t total = 0;
        for (int c = 1; c < TRACE_NCLASSES; c++)
            total += r->trace_skipped[c];
        cJSON_AddNumberToObject(sk, "total", (double)total);
        for (int c = 1; c < TRACE_NCLASSES; c++)
            cJSON_AddNumberToObject(sk, trace_class_name((enum trace_class)c), (double)r->trace_skipped[c]);
    }
    cJSON_AddNumberToObject(in, "cores", cfg->workload.cores);
    cJSON_AddNumberToObject(in, "rx_ring", cfg->workload.driver.rx_ring);
    cJSON_AddNumberToObject(in, "tx_ring", cfg->workload.driver.tx_ring);
    char hex[32];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)cfg->machine.ddio_mask);
    cJSON_AddStringToObject(in, "ddio_mask", hex);
    cJSON_AddNumberToObject(in, "seed", (double)o->sim.d.seed);
    if (p)
        model_json(j, cfg, r, p);
    cJSON_AddNumberToObject(j, "wall_seconds", r->wall_seconds);
    cJSON_AddNumberToObject(j, "sim_mpps", r->sim_mpps);
    char *s = cJSON_Print(j);
    cJSON_Delete(j);
    return s;
}

/* "[lower, upper]" of a bound the run has, else "n/a". */
static const char *bounds_text(char *buf, size_t n, mk_bounds b, int ok)
{
    if (ok && b.estimate == b.estimate)
        snprintf(buf, n, "%.2f%% [%.2f, %.2f]", 100 * b.estimate, 100 * b.lower, 100 * b.upper);
    else
        snprintf(buf, n, "n/a");
    return buf;
}

/* The model's line of the table. */
static void model_line(strbuf *sb, const ddio_config *cfg, const dsim_result *r, const mk_prediction *p)
{
    char w[64], rd[64];
    sb_printf(sb, "Markov model     PCIe write %s, PCIe read %s for these queues\n",
              bounds_text(w, sizeof w, p->pcie_write_hit, has(cfg, CLI_RATE_PCIE_WRITE, r->pcie_write)),
              bounds_text(rd, sizeof rd, p->pcie_read_hit, has(cfg, CLI_RATE_PCIE_READ, r->pcie_read)));
}

/* Whether the simulated rate v lies outside [b.lower, b.upper] as printed
 * (two decimals of a percentage): no note for a difference one cannot see. */
static int outside(double v, mk_bounds b)
{
    double x = round(1e4 * v), lo = round(1e4 * b.lower), up = round(1e4 * b.upper);
    return x < lo || x > up;
}

/* A note when a simulated hit rate falls outside the model's bounds, which
 * bound the model's chain, not the simulator (docs/simulator.md, "The
 * model's bounds"): why, in one line. */
static void bounds_note(strbuf *sb, const ddio_config *cfg, const dsim_result *r, const mk_prediction *p,
                        const mk_traffic *t)
{
    const char *which = NULL;
    if (has(cfg, CLI_RATE_PCIE_WRITE, r->pcie_write) && outside(dsim_rate(r->pcie_write), p->pcie_write_hit))
        which = "PCIe write";
    else if (has(cfg, CLI_RATE_PCIE_READ, r->pcie_read) && outside(dsim_rate(r->pcie_read), p->pcie_read_hit))
        which = "PCIe read";
    if (!which)
        return;
    if (t->n_sizes > 1)
        sb_printf(sb, "note             %s outside the bounds: the model gives every frame the mean size, this\n"
                      "                 traffic has %zu sizes; predict --from-sim --model per-line models them "
                      "(docs/simulator.md)\n",
                  which, t->n_sizes);
    else
        sb_printf(sb, "note             %s outside the bounds, which bound the model's chains: those count no\n"
                      "                 descriptor lines and map lines to sets at random "
                      "(--no-desc --mapping random)\n",
                  which);
}

/* "; N records of each pass skipped (not_ip N, fragment N, ...): --all
 * keeps them" when the trace filter left any out, else nothing: they are
 * not simulated, and a trace of fragments or ARP would otherwise lose
 * them silently. */
static void skipped_line(strbuf *sb, const dsim_result *r)
{
    uint64_t total = 0;
    for (int c = 1; c < TRACE_NCLASSES; c++)
        total += r->trace_skipped[c];
    if (!total)
        return;
    sb_printf(sb, "\n  %llu records of each pass skipped (", (unsigned long long)total);
    const char *sep = "";
    for (int c = 1; c < TRACE_NCLASSES; c++)
        if (r->trace_skipped[c]) {
            sb_printf(sb, "%s%s %llu", sep, trace_class_name((enum trace_class)c),
                      (unsigned long long)r->trace_skipped[c]);
            sep = ", ";
        }
    sb_printf(sb, "): only unfragmented IPv4/IPv6 TCP/UDP is simulated; --all keeps the rest");
}

static void to_table(strbuf *sb, const ddio_config *cfg, const sim_opts *o, const dsim_result *r,
                     const mk_prediction *p, const mk_traffic *t)
{
    sb_printf(sb, "machine %s, workload %s, %u core(s), rings RX %u / TX %u, DDIO 0x%llx\n", cfg->machine.name,
              cfg->workload.name, cfg->workload.cores, cfg->workload.driver.rx_ring, cfg->workload.driver.tx_ring,
              (unsigned long long)cfg->machine.ddio_mask);
    sb_printf(sb, "traffic %s", o->sim.d.src.trace ? o->sim.d.src.trace : o->sim.d.src.profile);
    if (r->reordered)
        sb_printf(sb, " (%llu packets stamped before their predecessor arrive at its time)",
                  (unsigned long long)r->reordered);
    skipped_line(sb, r);
    sb_printf(sb, "\n\n");
    char w[16], wf[16], wp[16], rd[16], cf[16], wa[16], ra[16];
    int hw = has(cfg, CLI_RATE_PCIE_WRITE, r->pcie_write);
    sb_printf(sb, "hit rates        PCIe write %s (full %s, partial %s)   PCIe read %s   CPU first %s\n",
              cli_pct(w, sizeof w, 7, dsim_rate(r->pcie_write), hw),
              cli_pct(wf, sizeof wf, 0, dsim_rate(r->pcie_write_full), hw && r->pcie_write_full.accesses),
              cli_pct(wp, sizeof wp, 0, dsim_rate(r->pcie_write_partial), hw && r->pcie_write_partial.accesses),
              cli_pct(rd, sizeof rd, 7, dsim_rate(r->pcie_read), has(cfg, CLI_RATE_PCIE_READ, r->pcie_read)),
              cli_pct(cf, sizeof cf, 7, dsim_rate(r->cpu_first), has(cfg, CLI_RATE_CPU_FIRST, r->cpu_first)));
    sb_printf(sb, "with descriptors PCIe write %s   PCIe read %s\n",
              cli_pct(wa, sizeof wa, 7, dsim_rate(r->pcie_write_all), r->pcie_write_all.accesses > 0),
              cli_pct(ra, sizeof ra, 7, dsim_rate(r->pcie_read_all), r->pcie_read_all.accesses > 0));
    sb_printf(sb, "queues (mean)    RX replenish %.1f   RX %.1f   TX %.1f   TX recycle %.1f   sw queue %.1f\n",
              r->queue_mean[Q_RX_REPLENISH], r->queue_mean[Q_RX], r->queue_mean[Q_TX], r->queue_mean[Q_TX_RECYCLE],
              r->queue_mean[Q_SW]);
    sb_printf(sb, "packets          %llu injected, %llu delivered, %llu dropped (%.2f%%: RX ring %llu, NIC buffer %llu, TX %llu, oversize %llu)\n",
              (unsigned long long)r->injected, (unsigned long long)r->delivered, (unsigned long long)r->dropped,
              r->injected ? 100.0 * (double)r->dropped / (double)r->injected : 0.0, (unsigned long long)r->drop_rx_ring,
              (unsigned long long)r->drop_nic_buffer, (unsigned long long)r->drop_tx, (unsigned long long)r->drop_oversize);
    sb_printf(sb, "throughput       %.2f Gb/s, %.3f Mpps; latency p50 %.4g us, p99 %.4g us, mean %.2f us\n",
              r->throughput_gbps, r->mpps, r->latency_p50_us, r->latency_p99_us, r->latency_mean_us);
    sb_printf(sb, "memory           %.1f B read + %.1f B written per packet, %.2f GB/s\n", r->mem_read_bytes_per_pkt,
              r->mem_write_bytes_per_pkt, r->mem_gbps);
    sb_printf(sb, "LLC occupancy    DDIO %llu, Shared %llu, L3* %llu lines; L2s %llu lines\n",
              (unsigned long long)r->occupancy[REG_DDIO], (unsigned long long)r->occupancy[REG_SHARED],
              (unsigned long long)r->occupancy[REG_L3], (unsigned long long)r->occupancy[REG_L2]);
    if (p) {
        model_line(sb, cfg, r, p);
        bounds_note(sb, cfg, r, p, t);
    }
    sb_printf(sb, "run              %.6f s simulated (%.6f s measured), %.2f s wall, %.2f M simulated packets/s\n",
              r->sim_seconds, r->measured_seconds, r->wall_seconds, r->sim_mpps);
    sb_printf(sb, "warm-up          %llu packets received%s\n", (unsigned long long)r->warmup_packets,
              r->warmup_settled ? "" : "; the queues were still moving when it ended (simulate more --packets)");
}

/* The run, its Markov model cross-check, and the report written to out
 * (a failed write leaves the stream's error flag, which the caller's
 * ddio_outfile_commit reports). */
static int run_and_report(ddio_config *cfg, sim_opts *o, FILE *out, int tty, ddio_err *e)
{
    int bar_drawn = 0;
    if (tty) {
        o->sim.d.progress = progress_bar;
        o->sim.d.progress_ctx = &bar_drawn;
    }
    dsim_result r;
    /* The trace the run parses, kept for the cross-check's traffic (one
     * pass over the file instead of two). */
    pktsrc_trace parsed;
    o->sim.d.trace_out = o->no_model ? NULL : &parsed;
    int rc = dsim_run(cfg, &o->sim.d, &r, e);
    o->sim.d.trace_out = NULL;
    if (bar_drawn)
        fprintf(stderr, "\r%60s\r", "");
    if (rc != 0)
        return -1;
    /* The cross-check: the Markov model for the queues this run measured,
     * on the frames the simulator's NIC accepted (mk_traffic_fit). */
    mk_prediction pred, *pp = NULL;
    mk_traffic t;
    memset(&t, 0, sizeof t);
    if (!o->no_model) {
        const dsim_options *d = &o->sim.d;
        dsim_source src = d->src;
        src.parsed = parsed.mem ? &parsed : NULL;
        if (mk_traffic_from_source(&t, &src, d->pkt_size, d->seed, cfg->workload.cores, 100000, e) == 0 &&
            mk_traffic_fit(&t, cfg->workload.driver.data_room, e) == 0 &&
            mk_predict_for_sim(cfg, &t, &r, d->seed, &pred, e) == 0)
            pp = &pred;
        pktsrc_trace_free(&parsed);
        if (!pp) {
            mk_traffic_free(&t);
            dsim_result_free(&r);
            return -1;
        }
    }
    strbuf sb = {0};
    if (o->cc.fmt == FMT_JSON) {
        char *js = to_json(cfg, o, &r, pp);
        js = js ? cli_provenance(js, o->cc.argc, o->cc.argv) : NULL;
        sb_printf(&sb, "%s\n", js);
        free(js);
    } else {
        to_table(&sb, cfg, o, &r, pp, &t);
    }
    fputs(sb.data, out);
    sb_free(&sb);
    mk_traffic_free(&t);
    dsim_result_free(&r);
    return 0;
}

int cmd_simulate(int argc, char **argv)
{
    return cmd_simulate_io(argc, argv, NULL);
}

int cmd_simulate_io(int argc, char **argv, cli_io *io)
{
    ddio_err e = {0};
    sim_opts o;
    memset(&o, 0, sizeof o);
    ddio_config_args_init(&o.args);
    cli_sim_init(&o.sim, SIM_DEFAULT_PACKETS, SIM_DEFAULT_RATE);
    o.sim.note[CLI_SIM_OPT_TRACE] = "traces/samples/mawi-64k.pcap";
    o.sim.note[CLI_SIM_OPT_PACKETS] = "a quick look; validate, sweep, advise and calibrate run 300000 per point";
    strbuf hb = {0};
    help(&hb, &o.sim);
    o.cc.argc = argc, o.cc.argv = argv;
    int rc = parse(argc, argv, &o, &e);
    ddio_config *cfg = malloc(sizeof *cfg);
    if (!cfg) {
        sb_free(&hb);
        return cli_io_fail(io, "simulate", &(ddio_err){DDIO_EXIT_IO, "out of memory"});
    }
    int code = cli_io_config_finish(io, "simulate", hb.data, rc, &o.args, cfg, &e);
    sb_free(&hb);
    if (code < 0 && cli_sim_check_frame(&o.sim, cfg, &e) != 0)
        code = cli_io_value_error(io, "simulate", &e);
    if (code >= 0) {
        free(cfg);
        return code;
    }
    char warning[300];
    cli_sim_rate_warning(&o.sim, cfg, warning, sizeof warning);
    if (warning[0])
        cli_io_warn(io, "simulate", "%s", warning);
    ddio_file_arg ins[DDIO_MAX_OVERRIDES + 4];
    cli_config_inputs(&o.args, cfg, (ddio_file_arg){"--trace", o.sim.d.src.trace}, ins, sizeof ins / sizeof *ins);
    /* The timeline's sidecar (F.meta.json) is an output too: checked with
     * the others before the run. */
    char *side = cli_sidecar_of(o.timeline);
    int bad = ddio_outfile_check(
        (ddio_file_arg[]){{"-o", o.cc.out}, {"--timeline", o.timeline}, {"--timeline (its sidecar)", side}, {0}}, ins,
        &e);
    free(side);
    if (bad != 0) {
        free(cfg);
        return cli_io_value_error(io, "simulate", &e);
    }
    /* A trace from a pipe or a FIFO is read once, into a private copy
     * (traces/spool.h): the run reads it more than once. */
    trace_spool spool = {0};
    if (o.sim.d.src.trace && trace_spool_open(&spool, o.sim.d.src.trace, &e) != 0) {
        free(cfg);
        return cli_io_fail(io, "simulate", &e);
    }
    o.sim.d.src.spool = &spool;
    /* Both outputs are created before the run, so that a path that cannot
     * be written fails at once, and renamed into place after it: the
     * timeline only once the main output is written, so that a failed
     * command leaves neither (docs/simulator.md, "Files"). */
    ddio_outfile out, tl = {0};
    if (cli_io_open(io, &out, cli_out_path(o.cc.out), &e) != 0 ||
        (o.timeline && ddio_outfile_open(&tl, o.timeline, &e) != 0)) {
        cli_io_abort(io, &out);
        trace_spool_close(&spool);
        free(cfg);
        return cli_io_fail(io, "simulate", &e);
    }
    o.sim.d.timeline = tl.f;
    rc = run_and_report(cfg, &o, out.f, cli_io_tty(io), &e);
    if (rc == 0)
        rc = cli_io_commit(io, &out, &e);
    else
        cli_io_abort(io, &out);
    if (rc == 0 && o.timeline)
        rc = ddio_outfile_commit(&tl, &e) || cli_write_sidecar(o.timeline, argc, argv, &e) ? -1 : 0;   /* what made it */
    else
        ddio_outfile_abort(&tl);
    trace_spool_close(&spool);
    free(cfg);
    return rc ? cli_io_fail(io, "simulate", &e) : DDIO_EXIT_OK;
}
