/* cmd_advise.c - `ddiosim advise`: the choices of a grid (ring sizes, DDIO
 * ways, cores, ...) that meet a set of constraints, best first, with their
 * predicted metrics and the margin to each constraint: the model on every
 * point, the simulator on the best few (sim/explore/advise.h). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_runner.h"
#include "sim/common/datadir.h"
#include "sim/common/parse.h"
#include "sim/explore/advise.h"


static const char usage[] =
    "usage: ddiosim advise --spec QUERY.json [options]\n"
    "\n"
    "Search a grid (a sweep spec, docs/sweep.md) for the choices that meet every\n"
    "constraint of the query (memory write traffic, I/O footprint in the LLC, drop\n"
    "rate, PCIe hit rates, throughput): the model on every point, then the simulator\n"
    "on the best few to confirm them.  Prints the feasible choices best first (the\n"
    "query's preferences), their metrics and the margin to each constraint.  Exit 6\n"
    "when no point meets every constraint (1: an I/O failure, 2: bad input).\n"
    "\n"
    "  --spec FILE        the query\n"
    "  --engine E         model | both (both: the simulator confirms the best)\n"
    "  --top N            choices printed (10)\n"
    "  --jobs N           points computed in parallel (default: the cores online)\n"
    "  --packets N        simulator: packets per confirmed point (300000:\n"
    "                     at most half of it warm-up; 100000 moves a hit rate\n"
    "                     by <= 0.5 point)\n"
    "  --seed S           seed of every point (1)\n"
    "  --set PATH=VALUE   a machine or workload field for every point; repeatable;\n"
    "                     a field a parameter of the query sets is refused\n"
    "  --format F         table | json (table)\n"
    "  -o, --output FILE  write to FILE (atomically) instead of stdout\n"
    "  -h, --help         this help\n";

typedef struct adv_opts {
    const char *spec, *out;
    int engines, json;
    unsigned top;
    cli_run_args run;           /* --jobs, --packets, --seed, --set */
} adv_opts;

enum { O_SPEC = 300, O_ENGINE, O_TOP, O_FORMAT };

static int parse(int argc, char **argv, adv_opts *o, ddio_err *e)
{
    static const struct option longopts[] = {
        {"spec", required_argument, 0, O_SPEC},     {"engine", required_argument, 0, O_ENGINE},
        {"top", required_argument, 0, O_TOP},       {"format", required_argument, 0, O_FORMAT},
        {"output", required_argument, 0, 'o'},      {"help", no_argument, 0, 'h'},
        CLI_RUN_LONGOPTS,                           {0, 0, 0, 0},
    };
    uint64_t v;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        int taken = cli_run_option(c, optarg, &o->run, e);
        if (taken < 0)
            return -1;
        if (taken)
            continue;
        switch (c) {
        case 'h': return 1;
        case 'o': o->out = optarg; break;
        case O_SPEC: o->spec = optarg; break;
        case O_ENGINE:
            if (cli_parse_engine(optarg, 0, &o->engines, e)) return -1;
            break;
        case O_TOP:
            if (ddio_parse_u64(optarg, 1, 1000000, &v, "--top", e)) return -1;
            o->top = (unsigned)v;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "table") == 0) o->json = 0;
            else if (strcmp(optarg, "json") == 0) o->json = 1;
            else return ddio_errf(e, DDIO_EXIT_USAGE, "--format: '%s' is not table or json", optarg);
            break;
        case ':': return ddio_errf(e, DDIO_EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]), -2;
        default: return ddio_errf(e, DDIO_EXIT_USAGE, "unknown option '%s'", argv[optind - 1]), -2;
        }
    }
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if (!o->spec)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--spec is required"), -2;
    return 0;
}

/* The LLC's size in bytes for the query's machine (and --set). */
static int llc_bytes_of(const ad_spec *s, const adv_opts *o, double *out, ddio_err *e)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    if (s->grid.machine[0])
        a.machine = s->grid.machine;
    if (s->grid.workload[0])
        a.workload = s->grid.workload;
    for (int i = 0; i < o->run.n_set; i++)
        if (ddio_config_args_add(&a, DDIO_CFG_OPT_SET, o->run.set[i], e) != 0)
            return -1;
    ddio_config *cfg = malloc(sizeof *cfg);
    if (!cfg)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    int rc = ddio_config_resolve(&a, cfg, NULL, e);
    if (rc == 0)
        *out = (double)cfg->machine.llc.slices * cfg->machine.llc.sets_per_slice * cfg->machine.llc.ways *
               cfg->machine.llc.line_size;
    free(cfg);
    return rc;
}

static void bound_text(const ad_constraint *c, char *buf, size_t cap)
{
    if (isfinite(c->lo) && isfinite(c->hi))
        snprintf(buf, cap, "%s in [%g, %g]", ad_metric_name(c->m), c->lo, c->hi);
    else if (isfinite(c->lo))
        snprintf(buf, cap, "%s >= %g", ad_metric_name(c->m), c->lo);
    else
        snprintf(buf, cap, "%s <= %g", ad_metric_name(c->m), c->hi);
}

/* c[0..n): the best candidates; feasible: all the points that met the
 * constraints, of the `points` searched. */
static char *table(const ad_spec *s, const ad_candidate *c, size_t n, size_t feasible, size_t points, unsigned top,
                   double llc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    size_t confirmed = 0;
    for (size_t i = 0; i < n; i++)
        confirmed += (size_t)c[i].confirmed;
    fprintf(f, "advise: %zu of %zu points meet every constraint (the model's estimates)", feasible, points);
    if (confirmed)
        fprintf(f, "; the simulator ran the best %zu", confirmed);
    fprintf(f, "\nconstraints:");
    for (int k = 0; k < s->n_c; k++) {
        char b[96];
        bound_text(&s->c[k], b, sizeof b);
        fprintf(f, "%s %s", k ? "," : "", b);
    }
    fprintf(f, "\n\n%-5s", "rank");
    for (uint32_t a = 0; a < s->grid.n_axes; a++)
        fprintf(f, " %12s", s->grid.axis[a].name);
    for (int k = 0; k < s->n_c; k++)
        fprintf(f, " %26s", ad_metric_name(s->c[k].m));
    fprintf(f, "  simulator\n");
    for (size_t i = 0; i < n && i < top; i++) {
        fprintf(f, "%-5zu", i + 1);
        for (uint32_t a = 0; a < s->grid.n_axes; a++) {
            char t[VD_TEXT_LEN + 16];
            vd_param_format(&c[i].param[s->grid.n_fixed + a], t, sizeof t);
            fprintf(f, " %12s", t);
        }
        for (int k = 0; k < s->n_c; k++) {
            double v = ad_metric_of(&c[i].model, s->c[k].m, 0, llc);
            char t[64];
            snprintf(t, sizeof t, "%.4g (margin %.3g)", v, ad_margin(&s->c[k], v));
            fprintf(f, " %26s", t);
        }
        if (!c[i].confirmed) {
            fprintf(f, "  -\n");
            continue;
        }
        if (c[i].sim.failed) {
            fprintf(f, "  failed: %s\n", c[i].sim.err.msg);
            continue;
        }
        fprintf(f, "  %s:", c[i].sim_ok ? "meets" : "VIOLATES");
        for (int k = 0; k < s->n_c; k++)
            fprintf(f, " %.4g", ad_metric_of(&c[i].sim, s->c[k].m, 1, llc));
        fprintf(f, "\n");
    }
    if (n) {
        fprintf(f, "\nadvice:");
        for (uint32_t a = 0; a < s->grid.n_axes; a++) {
            char t[VD_TEXT_LEN + 16];
            vd_param_format(&c[0].param[s->grid.n_fixed + a], t, sizeof t);
            fprintf(f, " %s=%s", s->grid.axis[a].name, t);
        }
        fprintf(f, "\n");
    } else {
        fprintf(f, "\nno point of the grid meets every constraint\n");
    }
    fclose(f);
    return buf;
}

static cJSON *metrics_json(const ad_spec *s, const runner_outcome *o, int sim, double llc)
{
    cJSON *m = cJSON_CreateObject();
    for (int k = 0; k < s->n_c; k++) {
        double v = ad_metric_of(o, s->c[k].m, sim, llc);
        cJSON *x = cJSON_AddObjectToObject(m, ad_metric_name(s->c[k].m));
        if (isfinite(v)) {
            cJSON_AddNumberToObject(x, "value", v);
            cJSON_AddNumberToObject(x, "margin", ad_margin(&s->c[k], v));
        } else {
            cJSON_AddNullToObject(x, "value");
        }
    }
    return m;
}

static cJSON *params_json(const ad_spec *s, const ad_candidate *c)
{
    cJSON *p = cJSON_CreateObject();
    for (uint32_t a = 0; a < s->grid.n_axes; a++) {
        const vd_param *v = &c->param[s->grid.n_fixed + a];
        if (v->text[0])
            cJSON_AddStringToObject(p, v->name, v->text);
        else
            cJSON_AddNumberToObject(p, v->name, v->value);
    }
    return p;
}

static char *json(const ad_spec *s, const ad_candidate *c, size_t n, size_t feasible, size_t points, unsigned top,
                  double llc)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "points", (double)points);
    cJSON_AddNumberToObject(j, "feasible", (double)feasible);
    if (n)
        cJSON_AddItemToObject(j, "advice", params_json(s, &c[0]));
    else
        cJSON_AddNullToObject(j, "advice");
    cJSON *arr = cJSON_AddArrayToObject(j, "candidates");
    for (size_t i = 0; i < n && i < top; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "params", params_json(s, &c[i]));
        cJSON_AddItemToObject(x, "model", metrics_json(s, &c[i].model, 0, llc));
        if (c[i].confirmed) {
            if (c[i].sim.failed) {
                cJSON_AddStringToObject(x, "sim_error", c[i].sim.err.msg);
            } else {
                cJSON_AddItemToObject(x, "sim", metrics_json(s, &c[i].sim, 1, llc));
                cJSON_AddBoolToObject(x, "sim_meets", c[i].sim_ok);
            }
        }
        cJSON_AddItemToArray(arr, x);
    }
    char *t = cJSON_Print(j);
    cJSON_Delete(j);
    if (!t)
        return NULL;
    size_t len = strlen(t);
    char *out = realloc(t, len + 2);
    if (!out) {
        free(t);
        return NULL;
    }
    out[len] = '\n';
    out[len + 1] = '\0';
    return out;
}

int cmd_advise(int argc, char **argv)
{
    ddio_err e = {0};
    adv_opts o;
    memset(&o, 0, sizeof o);
    o.engines = RUNNER_ENGINE_BOTH;
    o.top = 10;
    cli_run_args_default(&o.run);
    int rc = cli_parse_outcome("advise", parse(argc, argv, &o, &e), usage, &e);
    if (rc >= 0)
        return rc;
    ad_spec s;
    if (ad_spec_load(o.spec, &s, &e) != 0)
        return cli_value_error("advise", &e);
    char trace[DDIO_DATA_PATH_MAX];
    runner_opts ro = cli_run_opts(&o.run, o.engines, trace, sizeof trace);
    ddio_file_arg outs[] = {{"-o", o.out}, {0}};
    double llc = 0;
    if (sw_spec_check(&s.grid, &ro, &e) != 0 ||
        ddio_outfile_check(outs, (ddio_file_arg[]){{"--spec", o.spec}, {"--overlay", o.run.overlay_path}, {0}}, &e) !=
            0 ||
        llc_bytes_of(&s, &o, &llc, &e) != 0) {
        ad_spec_free(&s);
        return cli_value_error("advise", &e);
    }
    ad_candidate *c = NULL;
    size_t n = 0, feasible = 0, points = 0;
    cli_progress bar;
    cli_progress_init(&bar, "advise");
    ro.progress = cli_progress_point;
    ro.progress_ctx = &bar;
    if (ad_run(&s, &ro, llc, o.top, &c, &n, &feasible, &points, &e) != 0) {
        ad_spec_free(&s);
        return cli_fail("advise", &e);
    }
    char *text = o.json ? json(&s, c, n, feasible, points, o.top, llc) : table(&s, c, n, feasible, points, o.top, llc);
    if (o.json && text)
        text = cli_provenance(text, argc, argv);
    free(c);
    ad_spec_free(&s);
    if (!text) {
        ddio_errf(&e, DDIO_EXIT_IO, "out of memory");
        return cli_fail("advise", &e);
    }
    rc = cli_write_output(o.out, text, &e);
    free(text);
    if (rc != 0)
        return cli_fail("advise", &e);
    return n ? DDIO_EXIT_OK : DDIO_EXIT_INFEASIBLE;
}
