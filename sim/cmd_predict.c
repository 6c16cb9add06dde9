/* cmd_predict.c - `ddiosim predict`: the analytical Markov model of seed 003
 * (sim/markov/model.h) with queue lengths given, simulated or estimated. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "sim/cli.h"
#include "sim/common/parse.h"
#include "sim/markov/predict.h"
#include "sim/queue/dsim.h"
#include "sim/queue/pktsrc.h"
#include "sim/queue/qest.h"

#define DEFAULT_TRACE DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap"

static const char usage_head[] =
    "usage: ddiosim predict [options]\n"
    "\n"
    "Predict the DDIO hit rates (PCIe write, PCIe read, the core's first access)\n"
    "with the analytical Markov model of Wang, Xu, Wu (SIGMETRICS 2022): LRU lower\n"
    "bound, BIP or QLRU upper bound, and their mean.  With no options: skylake-6140\n"
    "running l2fwd on the sample MAWI-style trace, queue lengths estimated.\n"
    "\n"
    "model:\n"
    "  --model M          basic | per-line | per-core (basic)\n"
    "  --upper P          bip | qlru: upper-bound policy (default: from the LLC policy)\n"
    "  --per-queue        the paper's literal chain: one eviction matrix per queue\n"
    "                     (default: waits between two references of a line are merged)\n"
    "  --solver S         lu (the cycle product, default) | eigen (Eq. 1 by dgeev)\n"
    "  --tol X            fixed-point tolerance on the distributions (1e-9)\n"
    "  --max-iter N       fixed-point iteration cap (500); exit 3 if not converged\n"
    "traffic (the same options as simulate; the defaults are this command's):\n"
    "  --trace FILE       pcap/pcapng trace (default: traces/samples/mawi-64k.pcap,\n"
    "                     or fixed-size frames when only --pkt-size is given)\n"
    "  --profile P        generator profile: fixed:SIZE | imix | mawi\n"
    "  --pkt-size B       every frame B bytes\n"
    "  --rate GBPS|max    offered rate (frame bytes; default max = line rate, but a\n"
    "                     --from-sim run of a trace keeps the trace's timing)\n"
    "  --flows F          generator flows (default: the profile's); sets the\n"
    "                     per-core shares with more than one core\n"
    "  --all              keep every packet of the trace (default: IPv4 TCP/UDP only)\n"
    "queue lengths (packets per core; default: the queueing estimate):\n"
    "  --queues RX,RXR,TX,TXR[,SW[,IDLE]]  given\n"
    "  --from-sim         measured by a simulator run of the same configuration:\n"
    "                     the run of `ddiosim simulate` with the same traffic and\n"
    "                     run options (mind the defaults that differ: --rate,\n"
    "                     --packets, --pkt-size alone)\n"
    "  --idle N           wait in the idle pool (mempool), packets (0)\n"
    "  --no-inflight-split  simulated / estimated RX and TX include DMAs in flight;\n"
    "                     by default the estimated in-flight part is moved to the\n"
    "                     queue on the other side of the NIC write / read\n"
    "the --from-sim run (as in simulate; ignored without --from-sim, but for --seed):\n"
    "  --packets N        packets to inject, at least 1000 (200000)\n"
    "  --seed S           seed of every random choice (1), the generator's too\n"
    "  --warmup N         received packets before measuring (default: the buffers in\n"
    "                     circulation, twice, and until the RX queues have settled,\n"
    "                     at most half the packets)\n"
    "  --no-desc          do not model descriptor, completion and mbuf header lines\n"
    "  --nic-buffer B     NIC packet buffer in front of PCIe, bytes (262144)\n"
    "output:\n"
    "  --format F         table | json (table)\n"
    "  --explain          the stationary distribution entering / leaving each queue\n"
    "  -o, --output FILE  write to FILE (atomically) instead of stdout\n"
    "  -h, --help         this help\n";

typedef struct pred_opts {
    ddio_config_args args;
    enum mk_variant variant;
    int upper_set;
    markov_policy upper;
    int per_queue, eigen, explain, from_sim, raw_queues;
    double tol;
    int max_iter;
    cli_sim sim;                /* traffic and the --from-sim run (sim/cli_sim.c) */
    int queues_given;
    double q[6];
    double idle;
    cli_common cc;
} pred_opts;

/* This command's defaults of the shared options: a run long enough for the
 * queues to settle (at least 1000 packets), and the offered rate at its
 * most, line rate - except that a --from-sim run of a trace without --rate
 * keeps the trace's timing (the --from-sim branch of cmd_predict). */
#define PRED_DEFAULT_PACKETS 200000
#define PRED_MIN_PACKETS 1000
#define PRED_DEFAULT_RATE (-1.0)

enum {
    O_MODEL = 300, O_UPPER, O_PERQ, O_SOLVER, O_TOL, O_MAXIT, O_QUEUES, O_FROMSIM, O_IDLE, O_EXPLAIN, O_RAWQ,
    O_SIM = 350, O_CFG = 400
};

static int parse_queues(const char *s, pred_opts *o, ddio_err *e)
{
    static const char *names[6] = {"RX", "RXR", "TX", "TXR", "SW", "IDLE"};
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: too long");
    strcpy(buf, s);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= 6)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: at most 6 values (RX,RXR,TX,TXR,SW,IDLE), got more in '%s'", s);
        char what[32];
        snprintf(what, sizeof what, "--queues %s", names[n]);
        if (ddio_parse_double(tok, 0, 1e9, &o->q[n], what, e) != 0)
            return -1;
        n++;
    }
    if (n < 4)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: need RX,RXR,TX,TXR (4 to 6 values), got %d in '%s'", n, s);
    o->queues_given = 1;
    return 0;
}

static int parse(int argc, char **argv, pred_opts *o, ddio_err *e)
{
    static const struct option longopts[] = {
        {"model", required_argument, 0, O_MODEL},     {"upper", required_argument, 0, O_UPPER},
        {"per-queue", no_argument, 0, O_PERQ},        {"solver", required_argument, 0, O_SOLVER},
        {"tol", required_argument, 0, O_TOL},         {"max-iter", required_argument, 0, O_MAXIT},
        {"queues", required_argument, 0, O_QUEUES},   {"from-sim", no_argument, 0, O_FROMSIM},
        {"idle", required_argument, 0, O_IDLE},       {"explain", no_argument, 0, O_EXPLAIN},
        {"no-inflight-split", no_argument, 0, O_RAWQ},
        CLI_SIM_LONGOPTS(O_SIM),
        CLI_COMMON_LONGOPTS,
        DDIO_CONFIG_LONGOPTS(O_CFG),
        {0, 0, 0, 0},
    };
    uint64_t v;
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
        case O_MODEL:
            if (mk_parse_variant(optarg, &o->variant, e)) return -1;
            break;
        case O_UPPER:
            if (strcmp(optarg, "bip") == 0) o->upper = MARKOV_BIP;
            else if (strcmp(optarg, "qlru") == 0) o->upper = MARKOV_QLRU;
            else return ddio_errf(e, DDIO_EXIT_USAGE, "--upper: '%s' is not one of bip, qlru", optarg);
            o->upper_set = 1;
            break;
        case O_PERQ: o->per_queue = 1; break;
        case O_SOLVER:
            if (strcmp(optarg, "lu") == 0) o->eigen = 0;
            else if (strcmp(optarg, "eigen") == 0) o->eigen = 1;
            else return ddio_errf(e, DDIO_EXIT_USAGE, "--solver: '%s' is not one of lu, eigen", optarg);
            break;
        case O_TOL:
            if (ddio_parse_double(optarg, 1e-15, 1, &o->tol, "--tol", e)) return -1;
            break;
        case O_MAXIT:
            if (ddio_parse_u64(optarg, 1, 1000000, &v, "--max-iter", e)) return -1;
            o->max_iter = (int)v;
            break;
        case O_QUEUES:
            if (parse_queues(optarg, o, e)) return -1;
            break;
        case O_FROMSIM: o->from_sim = 1; break;
        case O_IDLE:
            if (ddio_parse_double(optarg, 0, 1e9, &o->idle, "--idle", e)) return -1;
            break;
        case O_EXPLAIN: o->explain = 1; break;
        case O_RAWQ: o->raw_queues = 1; break;
        default: {
            int r = cli_common_option(c, argv, &o->cc, e);
            if (r != CLI_OPT_DONE)
                return r;   /* 1 help, -1 bad value, -2 usage */
        }
        }
    }
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if (cli_sim_check(&o->sim, e))
        return -1;
    if (o->queues_given && o->from_sim)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues and --from-sim exclude each other");
    return 0;
}

static void add_bounds(cJSON *j, const char *name, mk_bounds b)
{
    cJSON *o = cJSON_AddObjectToObject(j, name);
    cJSON_AddNumberToObject(o, "lower", b.lower);
    cJSON_AddNumberToObject(o, "upper", b.upper);
    cJSON_AddNumberToObject(o, "mean", b.mean);
}

static void add_dist(cJSON *j, const mk_result *r)
{
    for (int q = 0; q < MKQ_COUNT; q++) {
        if (!r->visited[q])
            continue;
        cJSON *qq = cJSON_AddObjectToObject(j, mk_queue_name((enum mk_queue)q));
        for (int w = 0; w < 2; w++) {
            cJSON *d = cJSON_AddObjectToObject(qq, w ? "leave" : "enter");
            for (unsigned i = 0; i < r->space.n; i++)
                cJSON_AddNumberToObject(d, r->space.name[i], r->dist[q][w][i]);
        }
    }
}

typedef struct pred_ctx {
    const ddio_config *cfg;
    const pred_opts *o;
    const mk_traffic *t;
    const double *queues;       /* cores x Q_COUNT */
    const char *qsource;
    const mk_prediction *p;
    double pps;
    const dsim_result *sim;     /* --from-sim */
    const char *traffic;
} pred_ctx;

static char *to_json(const pred_ctx *x)
{
    const mk_prediction *p = x->p;
    uint32_t S = x->cfg->workload.cores;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "model", mk_variant_name(x->o->variant));
    cJSON_AddStringToObject(j, "upper_policy", markov_policy_name(x->o->upper));
    add_bounds(j, "pcie_write_hit", p->pcie_write_hit);
    add_bounds(j, "pcie_read_hit", p->pcie_read_hit);
    add_bounds(j, "cpu_first_hit", p->cpu_first_hit);
    cJSON *q = cJSON_AddObjectToObject(j, "queues");
    cJSON_AddStringToObject(q, "source", x->qsource);
    for (int k = 0; k < Q_COUNT; k++) {
        double m = 0;
        for (uint32_t c = 0; c < S; c++)
            m += x->queues[(size_t)c * Q_COUNT + k] / S;
        cJSON_AddNumberToObject(q, dsim_queue_name((enum dsim_queue)k), m);
    }
    cJSON_AddNumberToObject(q, "idle", x->o->idle);
    cJSON *pc = cJSON_AddArrayToObject(q, "per_core");
    for (uint32_t c = 0; c < S; c++) {
        cJSON *one = cJSON_CreateObject();
        for (int k = 0; k < Q_COUNT; k++)
            cJSON_AddNumberToObject(one, dsim_queue_name((enum dsim_queue)k), x->queues[(size_t)c * Q_COUNT + k]);
        cJSON_AddItemToArray(pc, one);
    }
    cJSON_AddNumberToObject(j, "iterations", p->iterations);
    cJSON_AddNumberToObject(j, "residual", p->residual);
    cJSON_AddNumberToObject(j, "solve_seconds", p->solve_seconds);
    cJSON_AddNumberToObject(j, "line_classes", (double)p->n_classes);
    cJSON *mem = cJSON_AddObjectToObject(j, "memory");
    add_bounds(mem, "read_bytes_per_pkt", p->mem_read_bytes_per_pkt);
    add_bounds(mem, "write_bytes_per_pkt", p->mem_write_bytes_per_pkt);
    add_bounds(mem, "gbps", p->mem_gbps);
    cJSON_AddNumberToObject(mem, "pps", x->pps);
    add_bounds(j, "io_footprint_bytes", p->footprint_bytes);
    cJSON *k = cJSON_AddObjectToObject(j, "reuse_k");
    cJSON_AddNumberToObject(k, "ddio", p->lower.k.ddio);
    cJSON_AddNumberToObject(k, "shared", p->lower.k.shared);
    cJSON_AddNumberToObject(k, "l3", p->lower.k.l3);
    cJSON_AddNumberToObject(k, "l2", p->lower.k.l2);
    if (x->sim) {
        cJSON *s = cJSON_AddObjectToObject(j, "simulated");
        cJSON_AddNumberToObject(s, "pcie_write_hit", dsim_rate(x->sim->pcie_write));
        cJSON_AddNumberToObject(s, "pcie_read_hit", dsim_rate(x->sim->pcie_read));
        cJSON_AddNumberToObject(s, "cpu_first_hit", dsim_rate(x->sim->cpu_first));
        cJSON_AddNumberToObject(s, "mem_read_bytes_per_pkt", x->sim->mem_read_bytes_per_pkt);
        cJSON_AddNumberToObject(s, "mem_write_bytes_per_pkt", x->sim->mem_write_bytes_per_pkt);
        /* What the run was, to compare with `simulate` given the same options. */
        cJSON_AddNumberToObject(s, "packets", (double)x->sim->injected);
        cJSON_AddNumberToObject(s, "measured_packets", (double)x->sim->measured_packets);
        cJSON *wu = cJSON_AddObjectToObject(s, "warmup");
        cJSON_AddNumberToObject(wu, "packets", (double)x->sim->warmup_packets);
        cJSON_AddBoolToObject(wu, "settled", x->sim->warmup_settled);
        cJSON *d = cJSON_AddObjectToObject(j, "difference_pp");
        cJSON_AddNumberToObject(d, "pcie_write_hit", 100 * (p->pcie_write_hit.lower - dsim_rate(x->sim->pcie_write)));
        cJSON_AddNumberToObject(d, "pcie_read_hit", 100 * (p->pcie_read_hit.lower - dsim_rate(x->sim->pcie_read)));
        cJSON_AddNumberToObject(d, "cpu_first_hit", 100 * (p->cpu_first_hit.lower - dsim_rate(x->sim->cpu_first)));
    }
    if (x->o->explain) {
        cJSON *ex = cJSON_AddObjectToObject(j, "explain");
        add_dist(cJSON_AddObjectToObject(ex, "lower"), &p->lower);
        add_dist(cJSON_AddObjectToObject(ex, "upper"), &p->upper);
    }
    cJSON *in = cJSON_AddObjectToObject(j, "input");
    cJSON_AddStringToObject(in, "machine", x->cfg->machine.name);
    cJSON_AddStringToObject(in, "workload", x->cfg->workload.name);
    cJSON_AddStringToObject(in, "traffic", x->traffic);
    cJSON_AddNumberToObject(in, "mean_pkt_bytes", x->t->mean);
    cJSON_AddNumberToObject(in, "cores", S);
    cJSON_AddNumberToObject(in, "rx_ring", x->cfg->workload.driver.rx_ring);
    cJSON_AddNumberToObject(in, "tx_ring", x->cfg->workload.driver.tx_ring);
    char hex[32];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)x->cfg->machine.ddio_mask);
    cJSON_AddStringToObject(in, "ddio_mask", hex);
    char *s = cJSON_Print(j);
    cJSON_Delete(j);
    return s;
}

static void table_dist(strbuf *sb, const char *title, const mk_result *r)
{
    sb_printf(sb, "\n%s: where a buffer line is entering / leaving each queue\n  %-14s", title, "queue");
    for (unsigned i = 0; i < r->space.n; i++)
        sb_printf(sb, " %13s", r->space.name[i]);
    sb_printf(sb, "\n");
    for (int q = 0; q < MKQ_COUNT; q++) {
        if (!r->visited[q])
            continue;
        for (int w = 0; w < 2; w++) {
            sb_printf(sb, "  %-8s %-5s", mk_queue_name((enum mk_queue)q), w ? "leave" : "enter");
            for (unsigned i = 0; i < r->space.n; i++)
                sb_printf(sb, " %13.4f", r->dist[q][w][i]);
            sb_printf(sb, "\n");
        }
    }
}

static void to_table(strbuf *sb, const pred_ctx *x)
{
    const mk_prediction *p = x->p;
    const ddio_config *cfg = x->cfg;
    uint32_t S = cfg->workload.cores;
    double m[Q_COUNT] = {0};
    for (int k = 0; k < Q_COUNT; k++)
        for (uint32_t c = 0; c < S; c++)
            m[k] += x->queues[(size_t)c * Q_COUNT + k] / S;
    sb_printf(sb, "machine %s, workload %s, %u core(s), rings RX %u / TX %u, DDIO 0x%llx\n", cfg->machine.name,
              cfg->workload.name, S, cfg->workload.driver.rx_ring, cfg->workload.driver.tx_ring,
              (unsigned long long)cfg->machine.ddio_mask);
    sb_printf(sb, "traffic %s (mean %.1f B); model %s, bounds LRU / %s\n\n", x->traffic, x->t->mean,
              mk_variant_name(x->o->variant), markov_policy_name(x->o->upper));
    sb_printf(sb, "                  lower     upper     mean\n");
    sb_printf(sb, "PCIe write hit  %7.2f%%  %7.2f%%  %7.2f%%\n", 100 * p->pcie_write_hit.lower,
              100 * p->pcie_write_hit.upper, 100 * p->pcie_write_hit.mean);
    sb_printf(sb, "PCIe read hit   %7.2f%%  %7.2f%%  %7.2f%%\n", 100 * p->pcie_read_hit.lower,
              100 * p->pcie_read_hit.upper, 100 * p->pcie_read_hit.mean);
    sb_printf(sb, "CPU first hit   %7.2f%%  %7.2f%%  %7.2f%%\n", 100 * p->cpu_first_hit.lower,
              100 * p->cpu_first_hit.upper, 100 * p->cpu_first_hit.mean);
    sb_printf(sb, "memory          %.1f / %.1f B read + %.1f / %.1f B written per packet, %.2f / %.2f GB/s\n",
              p->mem_read_bytes_per_pkt.lower, p->mem_read_bytes_per_pkt.upper, p->mem_write_bytes_per_pkt.lower,
              p->mem_write_bytes_per_pkt.upper, p->mem_gbps.lower, p->mem_gbps.upper);
    sb_printf(sb, "I/O footprint   %.2f / %.2f MiB of buffer lines cached\n", p->footprint_bytes.lower / 1048576.0,
              p->footprint_bytes.upper / 1048576.0);
    sb_printf(sb, "queues (%s)  RX replenish %.1f   RX %.1f   TX %.1f   TX recycle %.1f   sw queue %.1f   idle %.1f\n",
              x->qsource, m[Q_RX_REPLENISH], m[Q_RX], m[Q_TX], m[Q_TX_RECYCLE], m[Q_SW], x->o->idle);
    sb_printf(sb, "solve           %d iterations, residual %.2g, %.3f ms (%d chains x %zu line classes)\n",
              p->iterations, p->residual, 1e3 * p->solve_seconds, p->solves, p->n_classes);
    if (x->sim) {
        sb_printf(sb, "simulated       PCIe write %.2f%%   PCIe read %.2f%%   CPU first %.2f%%\n",
                  100 * dsim_rate(x->sim->pcie_write), 100 * dsim_rate(x->sim->pcie_read),
                  100 * dsim_rate(x->sim->cpu_first));
        sb_printf(sb, "simulated run   %llu packets injected, warm-up %llu packets received%s\n",
                  (unsigned long long)x->sim->injected, (unsigned long long)x->sim->warmup_packets,
                  x->sim->warmup_settled ? "" : " (the queues were still moving: simulate more --packets)");
    }
    if (x->o->explain) {
        table_dist(sb, "LRU (lower bound)", &p->lower);
        table_dist(sb, x->o->upper == MARKOV_QLRU ? "QLRU (upper bound)" : "BIP (upper bound)", &p->upper);
    }
}

int cmd_predict(int argc, char **argv)
{
    ddio_err e = {0};
    pred_opts o;
    memset(&o, 0, sizeof o);
    ddio_config_args_init(&o.args);
    o.tol = 1e-9;
    o.max_iter = 500;
    cli_sim_init(&o.sim, PRED_DEFAULT_PACKETS, PRED_MIN_PACKETS, PRED_DEFAULT_RATE);
    int rc = parse(argc, argv, &o, &e);
    ddio_config *cfg = malloc(sizeof *cfg);
    if (!cfg)
        return cli_fail(&(ddio_err){DDIO_EXIT_IO, "out of memory"});
    int code = cli_config_finish("predict", usage_head, rc, &o.args, cfg, &e);
    if (code >= 0) {
        free(cfg);
        return code;
    }
    rc = 0;
    uint32_t S = cfg->workload.cores;
    if (!o.upper_set)
        o.upper = mk_upper_policy(&cfg->machine);
    /* Traffic. */
    mk_traffic t;
    char traffic[600];
    /* Unlike simulate, --pkt-size alone means fixed-size frames, not the
     * default trace with its sizes forced. */
    const uint32_t pkt_size = o.sim.d.pkt_size;
    const char *trace = o.sim.d.src.trace, *profile = o.sim.d.src.profile;
    if (!trace && !profile && !pkt_size)
        trace = DEFAULT_TRACE;
    if (ddio_outfile_check((ddio_file_arg[]){{"-o", o.cc.out}, {0}}, (ddio_file_arg[]){{"--trace", trace},
            {"--machine", cfg->machine_file}, {"--workload", cfg->workload_file}, {0}}, &e) != 0) {
        free(cfg);
        return cli_value_error("predict", &e);
    }
    if (trace || profile) {
        dsim_source src = o.sim.d.src;
        src.trace = trace;
        rc = mk_traffic_from_source(&t, &src, pkt_size, o.sim.d.seed, S, 0, &e);
        snprintf(traffic, sizeof traffic, "%s%s", trace ? trace : profile, pkt_size ? " (sizes forced)" : "");
    } else {
        rc = mk_traffic_fixed(&t, pkt_size, S, &e);
        snprintf(traffic, sizeof traffic, "fixed:%u", pkt_size);
    }
    if (rc != 0) {
        free(cfg);
        return cli_fail(&e);
    }
    double *queues = calloc((size_t)S * Q_COUNT, sizeof *queues);
    double *inflight = calloc((size_t)S * 2, sizeof *inflight);
    dsim_result sim;
    memset(&sim, 0, sizeof sim);
    int have_sim = 0;
    double pps = 0;
    const char *qsource = "estimated";
    double line_pps = cfg->machine.nic.line_rate_gbps * 1e9 / 8 / (t.mean + PKTSRC_WIRE_OVERHEAD);
    const double rate = o.sim.d.rate_gbps;   /* --rate or PRED_DEFAULT_RATE */
    double offered_pps = rate > 0 ? rate * 1e9 / 8 / t.mean : line_pps;
    if (offered_pps > line_pps)
        offered_pps = line_pps;
    /* The queueing estimate also tells how much of RX / TX is in flight. */
    qest_input qi = {.rate_gbps = rate, .mean_pkt = t.mean, .ca2 = t.ca2,
                     .share = t.share, .cpu_hit = 1.0};
    qest_result qr;
    memset(&qr, 0, sizeof qr);
    if (queues && inflight && !o.queues_given) {
        rc = qest_estimate(cfg, &qi, &qr, &e);
        if (rc == 0)
            memcpy(inflight, qr.inflight, sizeof(double) * S * 2);
    }
    if (rc != 0) {
        /* reported below */
    } else if (!queues || !inflight) {
        rc = ddio_errf(&e, DDIO_EXIT_IO, "out of memory");
    } else if (o.queues_given) {
        qsource = "given";
        for (uint32_t c = 0; c < S; c++) {
            double *L = &queues[(size_t)c * Q_COUNT];
            L[Q_RX] = o.q[0];
            L[Q_RX_REPLENISH] = o.q[1];
            L[Q_TX] = o.q[2];
            L[Q_TX_RECYCLE] = o.q[3];
            L[Q_SW] = o.q[4];
        }
        if (o.q[5] > 0)
            o.idle = o.q[5];
        pps = offered_pps;
    } else if (o.from_sim) {
        qsource = "simulated";
        /* The run simulate makes with the same options (sim/cli_sim.c), on
         * the traffic chosen above. */
        dsim_options d = o.sim.d;
        char prof[32];
        if (trace || profile) {
            d.src.trace = trace;
            d.src.profile = profile;
        } else {
            snprintf(prof, sizeof prof, "fixed:%u", pkt_size);
            d.src.profile = prof;
        }
        /* A trace without --rate keeps its own timing, as simulate does. */
        if (trace && !o.sim.rate_set)
            d.rate_gbps = 0;
        rc = dsim_run(cfg, &d, &sim, &e);
        if (rc == 0) {
            have_sim = 1;
            memcpy(queues, sim.queue_len, sizeof(double) * S * Q_COUNT);
            /* The simulator measured its DMAs in flight: use them, not the estimate. */
            memcpy(inflight, sim.inflight, sizeof(double) * S * 2);
            pps = sim.mpps * 1e6;
        }
    } else {
        memcpy(queues, qr.per_core, sizeof(double) * S * Q_COUNT);
        pps = qr.accepted_pps;
    }
    qest_result_free(&qr);
    mk_prediction p;
    if (rc == 0) {
        mk_predict_opts po;
        mk_predict_opts_default(&po);
        po.variant = o.variant;
        po.upper = o.upper;
        po.queues = queues;
        po.idle = o.idle;
        po.inflight = o.queues_given || o.raw_queues ? NULL : inflight;
        po.pps = pps;
        po.per_queue = o.per_queue;
        po.eigen = o.eigen;
        po.tol = o.tol;
        po.max_iter = o.max_iter;
        rc = mk_predict(cfg, &t, &po, &p, &e);
    }
    if (rc == 0) {
        pred_ctx x = {.cfg = cfg, .o = &o, .t = &t, .queues = queues, .qsource = qsource, .p = &p, .pps = pps,
                      .sim = have_sim ? &sim : NULL, .traffic = traffic};
        strbuf sb = {0};
        if (o.cc.fmt == FMT_JSON) {
            char *js = to_json(&x);
            sb_printf(&sb, "%s\n", js);
            free(js);
        } else {
            to_table(&sb, &x);
        }
        rc = cli_write_output(o.cc.out, sb.data, &e);
        sb_free(&sb);
    }
    if (have_sim)
        dsim_result_free(&sim);
    free(queues);
    free(inflight);
    mk_traffic_free(&t);
    free(cfg);
    return rc ? cli_fail(&e) : DDIO_EXIT_OK;
}
