/* cmd_config.c - `ddiosim config show | list`: print the machine and
 * workload a run would use, after files and overrides, validated. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "configs/schema.h"
#include "sim/cli/cli.h"
#include "sim/common/datadir.h"
#include "sim/common/parse.h"

static const char usage_head[] =
    "usage: ddiosim config show [options]\n"
    "       ddiosim config list [--format json|table]\n"
    "\n"
    "show   print the resolved, validated machine and workload: built-in defaults,\n"
    "       then the --machine / --workload files, then the overrides in order.\n"
    "       The JSON of one part loads back, e.g.\n"
    "         ddiosim config show --only machine --format json --ddio-ways 4 > m.json\n"
    "         ddiosim config show --machine m.json\n"
    "list   the machine and workload names that --machine / --workload accept\n"
    "       (searched in $DDIOSIM_CONFIG_DIR/{machines,workloads}, then the data\n"
    "       directory's configs/: ddiosim help files)\n"
    "\n"
    "options:\n"
    "  --format F        table | json (table)\n"
    "  --only P          machine | workload: print that part only\n"
    "  -o, --output FILE write to FILE (atomically) instead of stdout\n"
    "  -h, --help        this help\n"
    "\n";

/* The whole --help: this command's options, then the configuration's with
 * their defaults. */
static void print_usage(FILE *f)
{
    strbuf sb = {0};
    sb_printf(&sb, "%s", usage_head);
    cli_config_usage(&sb);
    fputs(sb.data, f);
    sb_free(&sb);
}

enum part { PART_ALL, PART_MACHINE, PART_WORKLOAD };

typedef struct config_opts {
    ddio_config_args args;
    cli_common cc;
    enum part only;
} config_opts;

static int parse_opts(int argc, char **argv, config_opts *o, ddio_err *e)
{
    enum { O_ONLY = 256, O_CFG };
    static const struct option longopts[] = {
        {"only", required_argument, 0, O_ONLY}, CLI_COMMON_LONGOPTS,
        DDIO_CONFIG_LONGOPTS(O_CFG),            {0, 0, 0, 0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        int k = cli_config_option(c, O_CFG, &o->args, e);
        if (k < 0)
            return -1;
        if (k)
            continue;
        switch (c) {
        case O_ONLY:
            if (strcmp(optarg, "machine") == 0)
                o->only = PART_MACHINE;
            else if (strcmp(optarg, "workload") == 0)
                o->only = PART_WORKLOAD;
            else
                return ddio_errf(e, DDIO_EXIT_USAGE, "--only: '%s' is not one of machine, workload", optarg);
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
    return 0;
}

typedef struct rows {
    strbuf *sb;
    const char *const *origin;
} rows;

static void add_row(void *ud, const char *path, const char *value, int field)
{
    rows *r = ud;
    const char *from = field >= 0 && field < DDIO_CFG_MAX_FIELDS ? r->origin[field] : "";
    sb_printf(r->sb, "  %-34s %-26s %s\n", path, value, from ? from : "");
}

static void packet_lines(strbuf *sb, const ddio_config *c, uint32_t len)
{
    const ddio_workload *w = &c->workload;
    uint32_t line = c->machine.llc.line_size;
    uint32_t first = w->driver.headroom % line;
    ddio_line_op ops[64];
    size_t n = ddio_packet_ops(&c->machine, w, len, line, first, ops, 64);
    ddio_touch t;
    ddio_workload_touch(w, len, line, first, &t);
    sb_printf(sb, "  %-34s %u lines; read %u, written %u, flushed %u; alpha %.3f;", "", t.lines, t.read,
              t.written, t.flushed, t.lines ? (double)t.touched / t.lines : 0.0);
    static const char opc[] = "RWF";   /* P: a read of the L2 prefetcher (l2.prefetch_lines) */
    for (size_t i = 0; i < n && i < 64; i++)
        sb_printf(sb, " %c%u", ops[i].prefetch ? 'P' : opc[ops[i].op], ops[i].line);
    sb_printf(sb, "%s\n", n > 64 ? " ..." : "");
}

static void format_table(strbuf *sb, const ddio_config *c, const ddio_config_origin *org, enum part only)
{
    if (only != PART_WORKLOAD) {
        sb_printf(sb, "machine %s  %s%s\n", c->machine.name, strcmp(c->machine_file, "(built-in)") ? "from " : "", c->machine_file);
        sb_printf(sb, "  %-34s %-26s %s\n", "field", "value", "from");
        rows r = {sb, org->machine};
        cfg_walk(ddio_machine_table(), &c->machine, "", -1, add_row, &r);
    }
    if (only != PART_MACHINE) {
        sb_printf(sb, "%sworkload %s  %s%s\n", only == PART_ALL ? "\n" : "", c->workload.name,
                  strcmp(c->workload_file, "(built-in)") ? "from " : "", c->workload_file);
        sb_printf(sb, "  %-34s %-26s %s\n", "field", "value", "from");
        rows r = {sb, org->workload};
        cfg_walk(ddio_workload_table(), &c->workload, "", -1, add_row, &r);
    }
    if (only != PART_ALL)
        return;
    const ddio_machine *m = &c->machine;
    const ddio_workload *w = &c->workload;
    const double mib = 1024.0 * 1024.0;
    double way_bytes = (double)m->llc.slices * m->llc.sets_per_slice * m->llc.line_size;
    sb_printf(sb, "\nderived\n");
    sb_printf(sb, "  %-34s %.2f MiB (%u slices x %u sets x %u ways x %u B)\n", "llc", way_bytes * m->llc.ways / mib,
              m->llc.slices, m->llc.sets_per_slice, m->llc.ways, m->llc.line_size);
    sb_printf(sb, "  %-34s %d of %u ways (0x%llx) = %.2f MiB\n", "ddio", ddio_popcount64(m->ddio_mask), m->llc.ways,
              (unsigned long long)m->ddio_mask, way_bytes * ddio_popcount64(m->ddio_mask) / mib);
    sb_printf(sb, "  %-34s %.2f MiB per core\n", "l2",
              (double)m->l2.sets * m->l2.ways * m->l2.line_size / mib);
    uint32_t buf = w->driver.mbuf_header + w->driver.headroom + w->driver.data_room;
    sb_printf(sb, "  %-34s %u buffers of %u B%s%s\n", "mempool", ddio_workload_mempool_size(w), buf,
              w->driver.align_4k ? ", 4 KiB aligned" : "", w->driver.mempool_size ? "" : " (auto)");
    sb_printf(sb, "  %-34s %.0f + %g/B cycles = %.1f ns for 1500 B at %g GHz\n", "service (compute only)",
              w->cycles_per_packet, w->cycles_per_byte, ddio_workload_cycles(w, 1500) / m->frequency_ghz,
              m->frequency_ghz);
    sb_printf(sb, "  %-34s %u lines per packet\n", "table footprint", ddio_workload_table_lines(w));
    sb_printf(sb, "  %-34s\n", "packet lines touched (64 B, 1500 B)");
    packet_lines(sb, c, 64);
    packet_lines(sb, c, 1500);
}

static char *format_json(const ddio_config *c, enum part only)
{
    cJSON *root;
    if (only == PART_MACHINE) {
        root = cfg_to_json(ddio_machine_table(), &c->machine);
    } else if (only == PART_WORKLOAD) {
        root = cfg_to_json(ddio_workload_table(), &c->workload);
    } else {
        root = cJSON_CreateObject();
        cJSON_AddItemToObject(root, "machine", cfg_to_json(ddio_machine_table(), &c->machine));
        cJSON_AddItemToObject(root, "workload", cfg_to_json(ddio_workload_table(), &c->workload));
    }
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    return s;
}

static int run_list(const config_opts *o, ddio_err *e)
{
    char machines[2048], workloads[2048];
    ddio_config_list("machines", machines, sizeof machines);
    ddio_config_list("workloads", workloads, sizeof workloads);
    /* Nothing to list: say why rather than print empty lists. */
    char dir[DDIO_DATA_PATH_MAX];
    if (!machines[0] && !workloads[0] && ddio_datadir(dir, sizeof dir, e) != 0)
        return -1;
    strbuf sb = {0};
    if (o->cc.fmt == FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        const char *lists[2] = {machines, workloads}, *keys[2] = {"machines", "workloads"};
        for (int k = 0; k < 2; k++) {
            cJSON *arr = cJSON_AddArrayToObject(root, keys[k]);
            for (const char *p = lists[k]; *p;) {
                size_t n = strcspn(p, ",");
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)n, p);
                cJSON_AddItemToArray(arr, cJSON_CreateString(name));
                p += n;
                while (*p == ',' || *p == ' ')
                    p++;
            }
        }
        char *s = cJSON_Print(root);
        cJSON_Delete(root);
        sb_printf(&sb, "%s\n", s);
        free(s);
    } else {
        sb_printf(&sb, "machines   %s\nworkloads  %s\n", machines, workloads);
    }
    int rc = cli_write_output(o->cc.out, sb.data, e);
    sb_free(&sb);
    return rc;
}

int cmd_config(int argc, char **argv)
{
    ddio_err e = {0};
    if (argc < 2)
        return cli_usage_error("config", "missing action: show or list");
    const char *action = argv[1];
    if (strcmp(action, "--help") == 0 || strcmp(action, "-h") == 0) {
        print_usage(stdout);
        return DDIO_EXIT_OK;
    }
    int is_show = strcmp(action, "show") == 0, is_list = strcmp(action, "list") == 0;
    if (!is_show && !is_list)
        return cli_usage_error("config", "unknown action '%.64s' (show or list)", action);
    config_opts o = {.cc = {.fmt = FMT_TABLE}, .only = PART_ALL};
    ddio_config_args_init(&o.args);
    int rc = parse_opts(argc - 1, argv + 1, &o, &e);
    if (rc == 1) {
        print_usage(stdout);
        return DDIO_EXIT_OK;
    }
    if (rc == -2)
        return cli_usage_error("config", "%s", e.msg);
    if (rc != 0)
        return cli_value_error("config", &e);
    if (is_list)
        return run_list(&o, &e) ? cli_fail("config", &e) : DDIO_EXIT_OK;

    ddio_config *c = malloc(sizeof *c);
    ddio_config_origin *org = malloc(sizeof *org);
    if (!c || !org) {
        free(c);
        free(org);
        ddio_errf(&e, DDIO_EXIT_IO, "out of memory");
        return cli_fail("config", &e);
    }
    ddio_file_arg ins[DDIO_MAX_OVERRIDES + 4];
    rc = ddio_config_resolve(&o.args, c, org, &e);
    if (rc == 0) {
        cli_config_inputs(&o.args, c, (ddio_file_arg){0}, ins, sizeof ins / sizeof *ins);
        rc = ddio_outfile_check((ddio_file_arg[]){{"-o", o.cc.out}, {0}}, ins, &e);
    }
    if (rc != 0) {
        free(c);
        free(org);
        return cli_value_error("config", &e);
    }
    strbuf sb = {0};
    if (o.cc.fmt == FMT_JSON) {
        char *s = format_json(c, o.only);
        sb_printf(&sb, "%s\n", s);
        free(s);
    } else {
        format_table(&sb, c, org, o.only);
    }
    rc = cli_write_output(o.cc.out, sb.data, &e);
    sb_free(&sb);
    free(c);
    free(org);
    return rc ? cli_fail("config", &e) : DDIO_EXIT_OK;
}
