/* cmd_predict.c - `ddiosim predict`: the analytical Markov model of Wang,
 * Xu, Wu, "Understanding I/O Direct Cache Access Performance for End Host
 * Networking" (SIGMETRICS 2022; sim/markov/model.h) with queue lengths
 * given, simulated or estimated. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_io.h"
#include "sim/common/datadir.h"
#include "sim/common/parse.h"
#include "sim/markov/predict.h"
#include "sim/queue/dsim.h"
#include "sim/queue/pktsrc.h"
#include "sim/queue/qest.h"

static const char usage_head[] =
    "usage: ddiosim predict [options]\n"
    "\n"
    "Predict the DDIO hit rates (PCIe write, PCIe read, the core's first access)\n"
    "with the analytical Markov model of Wang, Xu, Wu, \"Understanding I/O Direct\n"
    "Cache Access Performance for End Host Networking\" (SIGMETRICS 2022): LRU\n"
    "lower bound, BIP or QLRU upper bound, their mean, and the estimate (the LRU\n"
    "bound when the machine's LLC runs LRU, else the mean; machine field\n"
    "llc.model_estimate).  With no options: skylake-6140 running l2fwd on the\n"
    "sample MAWI-style trace, queue lengths estimated.\n"
    "\n"
    "model:\n"
    "  --model M         basic | per-line | per-core (basic)\n"
    "  --upper P         bip | qlru: upper-bound policy (default: from the LLC\n"
    "                    policy)\n"
    "  --per-queue       the paper's literal chain: one eviction matrix per queue\n"
    "                    (default: waits between two references of a line are merged)\n"
    "  --solver S        lu (the cycle product, default) | eigen (Eq. 1 by dgeev)\n"
    "  --tol X           fixed-point tolerance on the distributions (1e-9)\n"
    "  --max-iter N      fixed-point iteration cap (500); exit 3 if not converged\n"
    "queue lengths (packets per core; default: the queueing estimate):\n"
    "  --queues RX,RXR,TX,TXR[,SW[,IDLE]]\n"
    "                    given; RX + RXR at most the RX ring, TX + TXR at most the\n"
    "                    TX ring, SW at most workload.driver.sw_tx_queue\n"
    "  --from-sim        measured by a simulator run of the same configuration:\n"
    "                    the run of `ddiosim simulate` with the same traffic and\n"
    "                    run options (mind the defaults that differ: --rate,\n"
    "                    --packets, --pkt-size alone)\n"
    "  --idle N          wait in the idle pool (mempool), packets (0)\n"
    "  --no-inflight-split  simulated / estimated RX and TX include DMAs in flight;\n"
    "                    by default the estimated in-flight part is moved to the\n"
    "                    queue on the other side of the NIC write / read\n";

static const char usage_own[] =
    "output:\n"
    "  --format F        table | json (table)\n"
    "  --explain         the stationary distribution entering / leaving each queue\n"
    "  -o, --output FILE write to FILE (atomically) instead of stdout\n"
    "  -h, --help        this help\n";

typedef struct pred_opts {
    ddio_config_args args;
    enum mk_variant variant;
    int upper_set;
    mk_policy upper;
    int per_queue, eigen, explain, from_sim, raw_queues;
    double tol;
    int max_iter;
    cli_sim sim;                /* traffic and the --from-sim run (sim/cli/cli_sim.c) */
    int queues_given;
    double q[6];
    double idle;
    cli_common cc;
} pred_opts;

/* This command's defaults of the shared options: a run long enough for the
 * queues to settle, and the offered rate at its most, line rate - except
 * that a --from-sim run of a trace without --rate keeps the trace's timing
 * (the --from-sim branch of cmd_predict). */
#define PRED_DEFAULT_PACKETS 200000
#define PRED_DEFAULT_RATE (-1.0)

/* The whole --help: this command's options, the shared ones (sim/cli/cli_sim.c),
 * the configuration's, each with its default. */
static void help(strbuf *sb, const cli_sim *s)
{
    sb_printf(sb, "%s", usage_head);
    cli_sim_usage(sb, s, 1);
    sb_printf(sb, "%s\n", usage_own);
    cli_config_usage(sb);
}

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

/* Queue lengths given (--queues) that the configuration can hold: buffers
 * on a ring hold its descriptors (RX Replenish posted, RX filled; TX
 * pending, TX Recycle sent but not freed), the software queue has its
 * size, and all of them come from the mempool.  Longer queues describe no
 * possible state: the model would cache more buffer lines than exist. */
static int check_queues(const pred_opts *o, const ddio_config *cfg, ddio_err *e)
{
    const ddio_driver *d = &cfg->workload.driver;
    const double *q = o->q;   /* RX, RXR, TX, TXR, SW, IDLE */
    if (q[0] + q[1] > d->rx_ring)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: RX + RXR = %g buffers exceed the %u descriptors of an RX "
                         "ring (--rx-ring)", q[0] + q[1], d->rx_ring);
    if (q[2] + q[3] > d->tx_ring)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: TX + TXR = %g buffers exceed the %u descriptors of a TX "
                         "ring (--tx-ring)", q[2] + q[3], d->tx_ring);
    if (q[4] > d->sw_tx_queue)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: SW = %g buffers exceed the software queue's %u "
                         "(workload.driver.sw_tx_queue)", q[4], d->sw_tx_queue);
    double all = (q[0] + q[1] + q[2] + q[3] + q[4] + (q[5] > 0 ? q[5] : o->idle)) * cfg->workload.cores;
    uint32_t pool = ddio_workload_mempool_size(&cfg->workload);
    if (all > pool)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues: %u cores x %g buffers exceed the mempool's %u "
                         "(workload.driver.mempool_size)", cfg->workload.cores, all / cfg->workload.cores, pool);
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
            if (strcmp(optarg, "bip") == 0) o->upper = MK_BIP;
            else if (strcmp(optarg, "qlru") == 0) o->upper = MK_QLRU;
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
    if (cli_sim_check(&o->sim, o->from_sim, e))
        return -1;
    if (o->queues_given && o->from_sim)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--queues and --from-sim exclude each other");
    return 0;
}

/* Bounds, each null when !ok (a rate the workload's mode does not have). */
static void add_bounds_ok(cJSON *j, const char *name, mk_bounds b, int ok)
{
    cJSON *o = cJSON_AddObjectToObject(j, name);
    cli_json_rate(o, "lower", b.lower, ok);
    cli_json_rate(o, "upper", b.upper, ok);
    cli_json_rate(o, "mean", b.mean, ok);
    cli_json_rate(o, "estimate", b.estimate, ok);
}

static void add_bounds(cJSON *j, const char *name, mk_bounds b)
{
    add_bounds_ok(j, name, b, 1);
}

static void add_dist(cJSON *j, const mk_result *r)
{
    for (int q = 0; q < Q_MODEL_COUNT; q++) {
        if (!r->visited[q])
            continue;
        cJSON *qq = cJSON_AddObjectToObject(j, lqueue_name((enum lqueue)q));
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
    int is_trace;               /* the traffic is a trace (its reordered packets are reported) */
} pred_ctx;

/* Whether the prediction has rate r: the mode has it and the model gave
 * a value (NaN: no line class has that event). */
static int has(const pred_ctx *x, enum cli_rate r, mk_bounds b)
{
    return cli_mode_has_rate(x->cfg->workload.mode, r) && b.lower == b.lower;
}

/* The simulated rate of a --from-sim run, when it has one. */
static int sim_has(const pred_ctx *x, enum cli_rate r, dsim_hits h)
{
    return cli_mode_has_rate(x->cfg->workload.mode, r) && h.accesses > 0;
}

/* Bytes the caches hold: the LLC, and the L2s of the workload's cores
 * unless the LLC is inclusive (their lines are in it already). */
static double cache_bytes(const ddio_config *cfg)
{
    const ddio_machine *m = &cfg->machine;
    double llc = (double)m->llc.slices * m->llc.sets_per_slice * m->llc.ways * m->llc.line_size;
    double l2 = (double)m->l2.sets * m->l2.ways * m->l2.line_size * cfg->workload.cores;
    return llc + (m->hierarchy == HIER_INCLUSIVE ? 0 : l2);
}

static char *to_json(const pred_ctx *x)
{
    const mk_prediction *p = x->p;
    uint32_t S = x->cfg->workload.cores;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "model", mk_variant_name(x->o->variant));
    cJSON_AddStringToObject(j, "upper_policy", mk_policy_name(x->o->upper));
    add_bounds_ok(j, "pcie_write_hit_frac", p->pcie_write_hit, has(x, CLI_RATE_PCIE_WRITE, p->pcie_write_hit));
    add_bounds_ok(j, "pcie_read_hit_frac", p->pcie_read_hit, has(x, CLI_RATE_PCIE_READ, p->pcie_read_hit));
    add_bounds_ok(j, "cpu_first_hit_frac", p->cpu_first_hit, has(x, CLI_RATE_CPU_FIRST, p->cpu_first_hit));
    cJSON *q = cJSON_AddObjectToObject(j, "queues");
    cJSON_AddStringToObject(q, "source", x->qsource);
    for (int k = 0; k < Q_COUNT; k++) {
        double m = 0;
        for (uint32_t c = 0; c < S; c++)
            m += x->queues[(size_t)c * Q_COUNT + k] / S;
        cJSON_AddNumberToObject(q, lqueue_name((enum lqueue)k), m);
    }
    cJSON_AddNumberToObject(q, "idle", x->o->idle);
    cJSON *pc = cJSON_AddArrayToObject(q, "per_core");
    for (uint32_t c = 0; c < S; c++) {
        cJSON *one = cJSON_CreateObject();
        for (int k = 0; k < Q_COUNT; k++)
            cJSON_AddNumberToObject(one, lqueue_name((enum lqueue)k), x->queues[(size_t)c * Q_COUNT + k]);
        cJSON_AddItemToArray(pc, one);
    }
    cJSON_AddNumberToObject(j, "iterations", p->iterations);
    cJSON_AddNumberToObject(j, "residual", p->residual);
    cJSON_AddNumberToObject(j, "solve_seconds", p->solve_seconds);
    cJSON_AddNumberToObject(j, "line_classes", (double)p->n_classes);
    cJSON *mem = cJSON_AddObjectToObject(j, "memory");
    add_bounds(mem, "read_bytes_per_pkt", p->mem_read_bytes_per_pkt);
    add_bounds(mem, "write_bytes_per_pkt", p->mem_write_bytes_per_pkt);
    add_bounds(mem, "gbyte_s", p->mem_gbps);
    cJSON_AddNumberToObject(mem, "pps", x->pps);
    add_bounds(j, "io_footprint_bytes", p->footprint_bytes);
    cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(j, "io_footprint_bytes"), "cache_bytes",
                            cache_bytes(x->cfg));
    cJSON *k = cJSON_AddObjectToObject(j, "reuse_k");
    cJSON_AddNumberToObject(k, "ddio", p->lower.k.ddio);
    cJSON_AddNumberToObject(k, "shared", p->lower.k.shared);
    cJSON_AddNumberToObject(k, "l3", p->lower.k.l3);
    cJSON_AddNumberToObject(k, "l2", p->lower.k.l2);
    if (x->sim) {
        const dsim_result *r = x->sim;
        int w = sim_has(x, CLI_RATE_PCIE_WRITE, r->pcie_write), rd = sim_has(x, CLI_RATE_PCIE_READ, r->pcie_read),
            cf = sim_has(x, CLI_RATE_CPU_FIRST, r->cpu_first);
        cJSON *s = cJSON_AddObjectToObject(j, "simulated");
        cli_json_rate(s, "pcie_write_hit_frac", dsim_rate(r->pcie_write), w);
        cli_json_rate(s, "pcie_read_hit_frac", dsim_rate(r->pcie_read), rd);
        cli_json_rate(s, "cpu_first_hit_frac", dsim_rate(r->cpu_first), cf);
        cJSON_AddNumberToObject(s, "mem_read_bytes_per_pkt", x->sim->mem_read_bytes_per_pkt);
        cJSON_AddNumberToObject(s, "mem_write_bytes_per_pkt", x->sim->mem_write_bytes_per_pkt);
        /* What the run was, to compare with `simulate` given the same options. */
        cJSON_AddNumberToObject(s, "packets", (double)x->sim->injected);
        cJSON_AddNumberToObject(s, "measured_packets", (double)x->sim->measured_packets);
        cJSON *wu = cJSON_AddObjectToObject(s, "warmup");
        cJSON_AddNumberToObject(wu, "packets", (double)x->sim->warmup_packets);
        cJSON_AddBoolToObject(wu, "settled", x->sim->warmup_settled);
        cJSON *d = cJSON_AddObjectToObject(j, "difference_pts");
        cli_json_rate(d, "pcie_write_hit", 100 * (p->pcie_write_hit.lower - dsim_rate(r->pcie_write)),
                      w && has(x, CLI_RATE_PCIE_WRITE, p->pcie_write_hit));
        cli_json_rate(d, "pcie_read_hit", 100 * (p->pcie_read_hit.lower - dsim_rate(r->pcie_read)),
                      rd && has(x, CLI_RATE_PCIE_READ, p->pcie_read_hit));
        cli_json_rate(d, "cpu_first_hit", 100 * (p->cpu_first_hit.lower - dsim_rate(r->cpu_first)),
                      cf && has(x, CLI_RATE_CPU_FIRST, p->cpu_first_hit));
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
    cJSON_AddNumberToObject(in, "oversize", x->t->oversize);
    if (x->is_trace)
        cJSON_AddNumberToObject(in, "out_of_order", (double)x->t->reordered);
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

/* The stationary distributions, one row per queue and side: the queue
 * column as wide as its longest name, every state column as wide as its
 * name or a value, whichever is longer, so that the columns line up with
 * their headers. */
static void table_dist(strbuf *sb, const char *title, const mk_result *r)
{
    int qw = 0, sw = 9;   /* " %9.4f": 0.0000-1.0000 fits 6 */
    for (int q = 0; q < Q_MODEL_COUNT; q++)
        if (r->visited[q] && (int)strlen(lqueue_name((enum lqueue)q)) > qw)
            qw = (int)strlen(lqueue_name((enum lqueue)q));
    for (unsigned i = 0; i < r->space.n; i++)
        if ((int)strlen(r->space.name[i]) > sw)
            sw = (int)strlen(r->space.name[i]);
    sb_printf(sb, "\n%s: where a buffer line is entering / leaving each queue\n  %-*s", title, qw + 6, "queue");
    for (unsigned i = 0; i < r->space.n; i++)
        sb_printf(sb, " %*s", sw, r->space.name[i]);
    sb_printf(sb, "\n");
    for (int q = 0; q < Q_MODEL_COUNT; q++) {
        if (!r->visited[q])
            continue;
        for (int w = 0; w < 2; w++) {
            sb_printf(sb, "  %-*s %-5s", qw, lqueue_name((enum lqueue)q), w ? "leave" : "enter");
            for (unsigned i = 0; i < r->space.n; i++)
                sb_printf(sb, " %*.4f", sw, r->dist[q][w][i]);
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
    sb_printf(sb, "traffic %s (mean %.1f B", x->traffic, x->t->mean);
    if (x->t->oversize > 0)
        sb_printf(sb, "; %.2f%% of the frames larger than the data room, dropped", 100 * x->t->oversize);
    if (x->t->reordered)
        sb_printf(sb, "; %llu packets stamped before their predecessor arrive at its time",
                  (unsigned long long)x->t->reordered);
    sb_printf(sb, "); model %s, bounds LRU / %s\n\n", mk_variant_name(x->o->variant), mk_policy_name(x->o->upper));
    sb_printf(sb, "                  lower     upper     mean  estimate\n");
    static const struct {
        const char *name;
        enum cli_rate r;
    } rows[] = {{"PCIe write hit", CLI_RATE_PCIE_WRITE}, {"PCIe read hit", CLI_RATE_PCIE_READ},
                {"CPU first hit", CLI_RATE_CPU_FIRST}};
    const mk_bounds *b[] = {&p->pcie_write_hit, &p->pcie_read_hit, &p->cpu_first_hit};
    for (int i = 0; i < 3; i++) {
        char lo[16], up[16], mean[16], est[16];
        int ok = has(x, rows[i].r, *b[i]);
        sb_printf(sb, "%-14s  %s  %s  %s  %s\n", rows[i].name, cli_pct(lo, sizeof lo, 8, b[i]->lower, ok),
                  cli_pct(up, sizeof up, 8, b[i]->upper, ok), cli_pct(mean, sizeof mean, 8, b[i]->mean, ok),
                  cli_pct(est, sizeof est, 8, b[i]->estimate, ok));
    }
    sb_printf(sb, "memory          %.1f / %.1f B read + %.1f / %.1f B written per packet, %.2f / %.2f GB/s\n",
              p->mem_read_bytes_per_pkt.lower, p->mem_read_bytes_per_pkt.upper, p->mem_write_bytes_per_pkt.lower,
              p->mem_write_bytes_per_pkt.upper, p->mem_gbps.lower, p->mem_gbps.upper);
    sb_printf(sb, "I/O footprint   %.2f / %.2f MiB of buffer lines cached\n", p->footprint_bytes.lower / 1048576.0,
              p->footprint_bytes.upper / 1048576.0);
    double cap = cache_bytes(cfg);
    if (p->footprint_bytes.lower > cap || p->footprint_bytes.upper > cap)
        sb_printf(sb, "note            more than the %.2f MiB the caches hold (LLC%s): a queue's lines are counted at\n"
                      "                the mean of their states entering and leaving it, too many for long queues\n",
                  cap / 1048576.0, cfg->machine.hierarchy == HIER_INCLUSIVE ? "" : " and L2s");
    sb_printf(sb, "queues (%s)  RX replenish %.1f   RX %.1f   TX %.1f   TX recycle %.1f   sw queue %.1f   idle %.1f\n",
              x->qsource, m[Q_RX_REPLENISH], m[Q_RX], m[Q_TX], m[Q_TX_RECYCLE], m[Q_SW], x->o->idle);
    sb_printf(sb, "solve           %d iterations, residual %.2g, %.3f ms (%d chains x %zu line classes)\n",
              p->iterations, p->residual, 1e3 * p->solve_seconds, p->solves, p->n_classes);
    if (x->sim) {
        const dsim_result *r = x->sim;
        char w[16], rd[16], cf[16];
        sb_printf(sb, "simulated       PCIe write %s   PCIe read %s   CPU first %s\n",
                  cli_pct(w, sizeof w, 0, dsim_rate(r->pcie_write), sim_has(x, CLI_RATE_PCIE_WRITE, r->pcie_write)),
                  cli_pct(rd, sizeof rd, 0, dsim_rate(r->pcie_read), sim_has(x, CLI_RATE_PCIE_READ, r->pcie_read)),
                  cli_pct(cf, sizeof cf, 0, dsim_rate(r->cpu_first), sim_has(x, CLI_RATE_CPU_FIRST, r->cpu_first)));
        sb_printf(sb, "simulated run   %llu packets injected, warm-up %llu packets received%s\n",
                  (unsigned long long)x->sim->injected, (unsigned long long)x->sim->warmup_packets,
                  x->sim->warmup_settled ? "" : " (the queues were still moving: simulate more --packets)");
    }
    if (x->o->explain) {
        table_dist(sb, "LRU (lower bound)", &p->lower);
        table_dist(sb, x->o->upper == MK_QLRU ? "QLRU (upper bound)" : "BIP (upper bound)", &p->upper);
    }
}

int cmd_predict(int argc, char **argv)
{
    return cmd_predict_io(argc, argv, NULL);
}

int cmd_predict_io(int argc, char **argv, cli_io *io)
{
    ddio_err e = {0};
    pred_opts o;
    memset(&o, 0, sizeof o);
    ddio_config_args_init(&o.args);
    o.tol = 1e-9;
    o.max_iter = 500;
    cli_sim_init(&o.sim, PRED_DEFAULT_PACKETS, PRED_DEFAULT_RATE);
    o.sim.note[CLI_SIM_OPT_TRACE] = "traces/samples/mawi-64k.pcap, or fixed-size frames when only --pkt-size "
                                    "is given";
    o.sim.note[CLI_SIM_OPT_RATE] = "a --from-sim run of a trace keeps the trace's timing";
    o.sim.note[CLI_SIM_OPT_PACKETS] = "long enough for the queues to settle at line rate";
    strbuf hb = {0};
    help(&hb, &o.sim);
    int rc = parse(argc, argv, &o, &e);
    ddio_config *cfg = malloc(sizeof *cfg);
    if (!cfg) {
        sb_free(&hb);
        return cli_io_fail(io, "predict", &(ddio_err){DDIO_EXIT_IO, "out of memory"});
    }
    int code = cli_io_config_finish(io, "predict", hb.data, rc, &o.args, cfg, &e);
    sb_free(&hb);
    if (code < 0 && (cli_sim_check_frame(&o.sim, cfg, &e) != 0 || (o.queues_given && check_queues(&o, cfg, &e) != 0)))
        code = cli_io_value_error(io, "predict", &e);
    if (code >= 0) {
        free(cfg);
        return code;
    }
    rc = 0;
    char warning[300];
    cli_sim_rate_warning(&o.sim, cfg, warning, sizeof warning);
    if (warning[0])
        cli_io_warn(io, "predict", "%s", warning);
    uint32_t S = cfg->workload.cores;
    if (!o.upper_set && mk_upper_policy(&cfg->machine, &o.upper, &e) != 0) {
        free(cfg);
        return cli_io_value_error(io, "predict", &e);
    }
    /* Traffic. */
    mk_traffic t;
    char traffic[DDIO_DATA_PATH_MAX + 32];
    /* Unlike simulate, --pkt-size alone means fixed-size frames, not the
     * default trace with its sizes forced. */
    const uint32_t pkt_size = o.sim.d.pkt_size;
    const char *trace = o.sim.d.src.trace, *profile = o.sim.d.src.profile;
    char sample_trace[DDIO_DATA_PATH_MAX];
    if (!trace && !profile && !pkt_size) {
        if (ddio_datapath(DDIO_DATA_SAMPLE_TRACE, sample_trace, sizeof sample_trace, &e) != 0) {
            free(cfg);
            return cli_io_value_error(io, "predict", &e);
        }
        trace = sample_trace;
    }
    if (cli_sim_check_source(&o.sim, trace, &e) != 0) {
        free(cfg);
        return cli_io_value_error(io, "predict", &e);
    }
    ddio_file_arg ins[DDIO_MAX_OVERRIDES + 4];
    cli_config_inputs(&o.args, cfg, (ddio_file_arg){"--trace", trace}, ins, sizeof ins / sizeof *ins);
    if (ddio_outfile_check((ddio_file_arg[]){{"-o", o.cc.out}, {0}}, ins, &e) != 0) {
        free(cfg);
        return cli_io_value_error(io, "predict", &e);
    }
    /* A trace from a pipe or a FIFO is read once, into a private copy
     * (traces/spool.h): the model and --from-sim read it again. */
    trace_spool spool = {0};
    if (trace && trace_spool_open(&spool, trace, &e) != 0) {
        free(cfg);
        return cli_io_fail(io, "predict", &e);
    }
    o.sim.d.src.spool = &spool;
    if (trace || profile) {
        dsim_source src = o.sim.d.src;
        src.trace = trace;
        rc = mk_traffic_from_source(&t, &src, pkt_size, o.sim.d.seed, S, 0, &e);
        snprintf(traffic, sizeof traffic, "%s%s", trace ? trace : profile, pkt_size ? " (sizes forced)" : "");
    } else {
        rc = mk_traffic_fixed(&t, pkt_size, S, &e);
        t.burst = o.sim.d.src.flow_burst;
        snprintf(traffic, sizeof traffic, "fixed:%u", pkt_size);
    }
    /* Frames the simulator's NIC would drop (larger than the data room) are
     * not in the model's traffic either: the same rule in both engines. */
    if (rc == 0 && mk_traffic_fit(&t, cfg->workload.driver.data_room, &e) != 0) {
        mk_traffic_free(&t);
        rc = -1;
    }
    if (rc != 0) {
        trace_spool_close(&spool);
        free(cfg);
        return cli_io_fail(io, "predict", &e);
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
        /* The run simulate makes with the same options (sim/cli/cli_sim.c), on
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
        po.seed = o.sim.d.seed;
        rc = mk_predict(cfg, &t, &po, &p, &e);
    }
    if (rc == 0) {
        pred_ctx x = {.cfg = cfg, .o = &o, .t = &t, .queues = queues, .qsource = qsource, .p = &p, .pps = pps,
                      .sim = have_sim ? &sim : NULL, .traffic = traffic,
                      .is_trace = trace != NULL};
        strbuf sb = {0};
        if (o.cc.fmt == FMT_JSON) {
            char *js = to_json(&x);
            js = js ? cli_provenance(js, argc, argv) : NULL;
            sb_printf(&sb, "%s\n", js);
            free(js);
        } else {
            to_table(&sb, &x);
        }
        rc = cli_io_write(io, o.cc.out, sb.data, &e);
        sb_free(&sb);
    }
    if (have_sim)
        dsim_result_free(&sim);
    free(queues);
    free(inflight);
    mk_traffic_free(&t);
    trace_spool_close(&spool);
    free(cfg);
    return rc ? cli_io_fail(io, "predict", &e) : DDIO_EXIT_OK;
}
