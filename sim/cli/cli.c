/* cli.c - what every subcommand shares: its errors (one line, one prefix),
 * the outcome of its option parser, the help lines of the configuration
 * options with their defaults, rates that a run may not have, output. */
#include "sim/cli/cli.h"
#include "sim/common/provenance.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double cli_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

void cli_progress_init(cli_progress *p, const char *cmd)
{
    *p = (cli_progress){.cmd = cmd, .tty = isatty(2), .t0 = cli_now_s()};
}

void cli_progress_point(void *ctx, const char *phase, size_t done, size_t total)
{
    cli_progress *p = ctx;
    if (!p->tty)
        return;
    double t = cli_now_s();
    if (phase != p->phase) {   /* a new phase: its own bar (its clock started when the last one ended) */
        p->phase = phase;
        p->last = 0;
    }
    if (t - p->last < 0.1 && done < total)
        return;
    p->last = t;
    double dt = t - p->t0, rate = dt > 0 ? done / dt : 0, eta = rate > 0 && total > done ? (total - done) / rate : 0;
    int w = 30, fill = total ? (int)(w * (double)(done < total ? done : total) / total) : w;
    fprintf(stderr, "\r%s%s%s [%.*s%*s] %zu/%zu points  %.1f/s  ETA %.0f s ", p->cmd, phase ? " " : "",
            phase ? phase : "", fill, "##############################", w - fill, "", done, total, rate, eta);
    if (done >= total) {
        fputc('\n', stderr);
        p->t0 = t;   /* the next phase starts now */
    }
    fflush(stderr);
}

int cli_fail(const char *cmd, const ddio_err *e)
{
    fprintf(stderr, "ddiosim %s: %s\n", cmd, e->msg);
    return e->exit_code ? e->exit_code : DDIO_EXIT_IO;
}

int cli_value_error(const char *cmd, const ddio_err *e)
{
    fprintf(stderr, "ddiosim %s: %s\n", cmd, e->msg);
    return e->exit_code ? e->exit_code : DDIO_EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "ddiosim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    /* One line: the whole help would bury the message. */
    fprintf(stderr, " (see 'ddiosim %s --help')\n", cmd);
    return DDIO_EXIT_USAGE;
}

int cli_parse_outcome(const char *cmd, int parse_rc, const char *help, const ddio_err *e)
{
    switch (parse_rc) {
    case 0: return -1;
    case CLI_OPT_HELP:
        fputs(help, stdout);
        return DDIO_EXIT_OK;
    case CLI_OPT_USAGE: return cli_usage_error(cmd, "%s", e->msg);
    default: return cli_value_error(cmd, e);
    }
}

const char *cli_out_path(const char *path)
{
    return path && strcmp(path, "-") != 0 ? path : NULL;
}

int cli_write_output(const char *path, const char *text, ddio_err *e)
{
    ddio_outfile o;
    if (ddio_outfile_open(&o, cli_out_path(path), e) != 0)
        return -1;
    fputs(text, o.f);   /* a failed write sets the error flag commit reports */
    return ddio_outfile_commit(&o, e);
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = sb->cap - sb->len;
        va_start(ap, fmt);
        int n = vsnprintf(sb->data ? sb->data + sb->len : NULL, sb->data ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort();
        if (sb->data && (size_t)n < room) {
            sb->len += (size_t)n;
            return;
        }
        size_t cap = sb->cap ? sb->cap * 2 : 256;
        while (cap < sb->len + (size_t)n + 1)
            cap *= 2;
        char *d = realloc(sb->data, cap);
        if (!d)
            abort();
        sb->data = d;
        sb->cap = cap;
    }
}

void sb_free(strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

int cli_common_option(int c, char **argv, cli_common *cc, ddio_err *e)
{
    switch (c) {
    case CLI_OPT_FORMAT:
        return cli_parse_format(optarg, &cc->fmt, e) ? CLI_OPT_BAD_VALUE : CLI_OPT_DONE;
    case 'o':
        cc->out = optarg;
        return CLI_OPT_DONE;
    case 'h':
        return CLI_OPT_HELP;
    case ':':
        ddio_errf(e, DDIO_EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]);
        return CLI_OPT_USAGE;
    default:
        ddio_errf(e, DDIO_EXIT_USAGE, "unknown option '%s'", argv[optind - 1]);
        return CLI_OPT_USAGE;
    }
}

int cli_config_option(int c, int base, ddio_config_args *a, ddio_err *e)
{
    if (c < base || c >= base + DDIO_CFG_NOPTS)
        return 0;
    return ddio_config_args_add(a, (enum ddio_cfg_opt)(c - base), optarg, e) != 0 ? -1 : 1;
}

/* Help of the configuration options, by enum ddio_cfg_opt: "--NAME ARG"
 * and what it does; the default, taken from the built-in configuration,
 * follows in cli_config_usage. */
static const struct {
    const char *opt, *text;
} cfg_help[DDIO_CFG_NOPTS] = {
    [DDIO_CFG_OPT_MACHINE] = {"--machine M", "machine name (configs/machines/M.json) or a JSON file"},
    [DDIO_CFG_OPT_WORKLOAD] = {"--workload W", "workload name (configs/workloads/W.json) or a JSON file"},
    [DDIO_CFG_OPT_RX_RING] = {"--rx-ring N", "RX descriptors per core, a power of two"},
    [DDIO_CFG_OPT_TX_RING] = {"--tx-ring N", "TX descriptors per core, a power of two"},
    [DDIO_CFG_OPT_BURST] = {"--burst N", "RX / TX burst"},
    [DDIO_CFG_OPT_CORES] = {"--cores S", "cores running the workload"},
    [DDIO_CFG_OPT_DDIO_WAYS] = {"--ddio-ways K", "DDIO allocates in the K leftmost LLC ways"},
    [DDIO_CFG_OPT_DDIO_MASK] = {"--ddio-mask HEX", "DDIO way mask (IIO_LLC_WAYS); not with --ddio-ways"},
    [DDIO_CFG_OPT_POLICY] = {"--policy P", "LLC replacement policy, e.g. lru, bip, srrip, the QLRU family's "
                                             "QLRU_H11_M1_R0_U0, a set duel duel:lru,bip (an unknown name lists "
                                             "them all; docs/cache-model.md)"},
    [DDIO_CFG_OPT_MAPPING] = {"--mapping M", "LLC set mapping: modulo, xor, random, skx18"},
    [DDIO_CFG_OPT_SET] = {"--set PATH=VALUE", "any field: machine.llc.ways=16, workload.driver.rx_free_thresh=64"},
    [DDIO_CFG_OPT_RX_RING_TOTAL] = {"--rx-ring-total N", "RX descriptors of all cores: each core's ring is N / "
                                                         "cores rounded up to a power of two (as mlx5 does); not "
                                                         "with --rx-ring"},
    [DDIO_CFG_OPT_EXTRA_CYCLES] = {"--extra-cycles C", "add C cycles to the workload's cycles per packet (after "
                                                       "every --set)"},
    [DDIO_CFG_OPT_UNCORE_GHZ] = {"--uncore-ghz F", "uncore (mesh, LLC) clock; LLC-hit latencies scale with "
                                                   "uncore.latency_ghz / F"},
    [DDIO_CFG_OPT_WRITE_RATIO] = {"--write-ratio R", "packet-acrobat's write_ratio (0-1): the core writes R of "
                                                     "each packet (replaces the workload's ratio-sized writes; "
                                                     "MAC writes stay)"},
    [DDIO_CFG_OPT_NO_DDIO] = {"--no-ddio", "DDIO off: NIC writes go to memory, invalidating cached copies "
                                           "(--ddio-mask 0x0, --ddio-ways 0; not with a nonzero mask or way "
                                           "count)"},
    [DDIO_CFG_OPT_OVERLAY] = {"--overlay FILE", "fitted values from `ddiosim calibrate -o FILE`, each applied as a "
                                                "--set at this place on the line"},
};

/* The default of option `opt` in the built-in configuration c, "" for none. */
static void cfg_default(enum ddio_cfg_opt opt, const ddio_config *c, char *buf, size_t n)
{
    const ddio_machine *m = &c->machine;
    const ddio_driver *d = &c->workload.driver;
    buf[0] = 0;
    switch (opt) {
    case DDIO_CFG_OPT_MACHINE: snprintf(buf, n, "%s", m->name); break;
    case DDIO_CFG_OPT_WORKLOAD: snprintf(buf, n, "%s", c->workload.name); break;
    case DDIO_CFG_OPT_RX_RING: snprintf(buf, n, "%u", d->rx_ring); break;
    case DDIO_CFG_OPT_TX_RING: snprintf(buf, n, "%u", d->tx_ring); break;
    case DDIO_CFG_OPT_BURST: snprintf(buf, n, "%u", d->burst); break;
    case DDIO_CFG_OPT_CORES: snprintf(buf, n, "%u", c->workload.cores); break;
    case DDIO_CFG_OPT_DDIO_WAYS:
        snprintf(buf, n, "%d of %u", __builtin_popcountll(m->ddio_mask), m->llc.ways);
        break;
    case DDIO_CFG_OPT_DDIO_MASK: snprintf(buf, n, "0x%llx", (unsigned long long)m->ddio_mask); break;
    case DDIO_CFG_OPT_POLICY: snprintf(buf, n, "%s", m->llc.policy); break;
    case DDIO_CFG_OPT_MAPPING: snprintf(buf, n, "%s", cache_mapping_name(m->llc.mapping)); break;
    case DDIO_CFG_OPT_EXTRA_CYCLES: snprintf(buf, n, "0"); break;
    case DDIO_CFG_OPT_UNCORE_GHZ: snprintf(buf, n, "%g", m->uncore.ghz); break;
    default: break;   /* --set, --rx-ring-total, --write-ratio: nothing unless given */
    }
}

void cli_help_line(strbuf *sb, const char *opt, const char *text, const char *def)
{
    enum { COL = 20, WIDTH = 80 };   /* the text starts at column COL; lines stay below WIDTH */
    char full[600];
    if (def && *def)
        snprintf(full, sizeof full, "%s (%s)", text, def);
    else
        snprintf(full, sizeof full, "%s", text);
    size_t w = strlen(opt);
    if (w > COL - 3)
        sb_printf(sb, "  %s\n%*s", opt, COL - 1, "");   /* too long: the text on the next line */
    else
        sb_printf(sb, "  %-*s", COL - 3, opt);
    const char *p = full;
    while (*p) {
        size_t room = WIDTH - COL - 1, len = strlen(p), cut = len;
        if (len > room) {   /* cut at the last space that fits, else at the first after */
            for (cut = room; cut > 0 && p[cut] != ' '; cut--)
                ;
            if (cut == 0)
                cut = strcspn(p, " ");
        }
        sb_printf(sb, " %.*s", (int)cut, p);
        for (p += cut; *p == ' '; p++)
            ;
        if (*p)
            sb_printf(sb, "\n%*s", COL - 1, "");
    }
    sb_printf(sb, "\n");
}

void cli_config_usage(strbuf *sb)
{
    ddio_config c;
    ddio_config_default(&c);
    sb_printf(sb, "configuration (docs/configs.md; a default in parentheses is that of machine\n"
                  "%s and workload %s: another --machine / --workload brings its own):\n",
              c.machine.name, c.workload.name);
    for (int k = 0; k < DDIO_CFG_NOPTS; k++) {
        char def[64];
        cfg_default((enum ddio_cfg_opt)k, &c, def, sizeof def);
        cli_help_line(sb, cfg_help[k].opt, cfg_help[k].text, def);
    }
}

void cli_config_inputs(const ddio_config_args *a, const ddio_config *c, ddio_file_arg extra, ddio_file_arg *ins,
                       size_t max)
{
    size_t n = 0;
    assert(max >= 4);
    if (extra.opt)
        ins[n++] = extra;
    ins[n++] = (ddio_file_arg){"--machine", c->machine_file};
    ins[n++] = (ddio_file_arg){"--workload", c->workload_file};
    for (uint32_t i = 0; i < a->n && n + 1 < max; i++)
        if (a->ov[i].opt == DDIO_CFG_OPT_OVERLAY)
            ins[n++] = (ddio_file_arg){"--overlay", a->ov[i].value};
    ins[n] = (ddio_file_arg){0};
}

int cli_config_finish(const char *cmd, const char *help, int parse_rc, const ddio_config_args *a,
                      ddio_config *out, ddio_err *e)
{
    int rc = cli_parse_outcome(cmd, parse_rc, help, e);
    if (rc >= 0)
        return rc;
    if (ddio_config_resolve(a, out, NULL, e) != 0)
        return cli_value_error(cmd, e);   /* a bad value, file or field: one line */
    return -1;
}

int cli_mode_has_rate(enum ddio_mode m, enum cli_rate r)
{
    switch (r) {
    case CLI_RATE_PCIE_READ: return m != DDIO_MODE_RECEIVE;
    case CLI_RATE_PCIE_WRITE:
    case CLI_RATE_CPU_FIRST: return m != DDIO_MODE_SEND;
    }
    return 0;
}

const char *cli_pct(char *buf, size_t n, int width, double v, int ok)
{
    if (ok && v == v)
        snprintf(buf, n, "%*.2f%%", width > 1 ? width - 1 : 1, 100 * v);
    else
        snprintf(buf, n, "%*s", width, "n/a");
    return buf;
}

void cli_json_rate(cJSON *o, const char *name, double v, int ok)
{
    if (ok && v == v)
        cJSON_AddNumberToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

int cli_parse_format(const char *s, enum output_format *out, ddio_err *e)
{
    if (strcmp(s, "json") == 0)
        *out = FMT_JSON;
    else if (strcmp(s, "table") == 0)
        *out = FMT_TABLE;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "--format: '%s' is not one of json, table", s);
    return 0;
}

char *cli_sidecar_of(const char *out)
{
    return out && strcmp(out, "-") != 0 ? ddio_sidecar_path(out) : NULL;
}

int cli_write_sidecar(const char *out, int argc, char **argv, ddio_err *e)
{
    if (!out || strcmp(out, "-") == 0)
        return 0;
    char *path = cli_sidecar_of(out), *js = cli_provenance(strdup("{}\n"), argc, argv);
    int rc = path && js ? cli_write_output(path, js, e) : ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    free(path);
    free(js);
    return rc;
}

char *cli_provenance(char *js, int argc, char **argv)
{
    char *cmd = ddio_command_line(argc, argv);
    char *out = cmd ? ddio_provenance_insert(js, cmd) : (free(js), NULL);
    free(cmd);
    return out;
}
