/* cmd_validate.c - `ddiosim validate`: run the simulator and the model on
 * every measured point of the shipped (or given) experiments and report how
 * far each prediction is from the hardware, per point, per experiment and
 * overall; exit 5 when an accuracy figure is worse than --max-mae. */
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_io.h"
#include "sim/cli/cli_runner.h"
#include "sim/common/datadir.h"
#include "sim/common/parse.h"
#include "validate/experiment.h"
#include "validate/plot.h"
#include "validate/report.h"
#include "sim/explore/calibrate.h"
#include "sim/explore/runner.h"

#define MAX_EXPERIMENTS 64
#define MAX_LIMITS 16
#define DEFAULT_PACKETS 300000

static const char usage[] =
    "usage: ddiosim validate [options]\n"
    "\n"
    "Compare the simulator's and the model's DDIO hit rates with hit rates measured\n"
    "on real servers (uncore counters): per point, per experiment and overall.  With\n"
    "no options: every experiment shipped in validate/data, both engines.\n"
    "\n"
    "  --measured DIR     an experiment folder (its experiment.json and measured\n"
    "                     files, docs/validation.md); repeat for more (default:\n"
    "                     every folder under validate/data with an experiment.json)\n"
    "  --engine E         sim | model | both (both)\n"
    "  --jobs N           points computed in parallel (default: the cores online);\n"
    "                     the results do not depend on it\n"
    "  --packets N        simulator: packets injected per point (300000:\n"
    "                     at most half of it warm-up; 100000 moves a hit rate\n"
    "                     by <= 0.5 point)\n"
    "  --seed S           seed of every point (1)\n"
    "  --seeds K          the mean of each point over K placements of the buffers in\n"
    "                     physical frames, seeds S .. S+K-1 (1); a hit rate moves by\n"
    "                     several points from one to another\n"
    "  --set PATH=VALUE   a machine or workload field for every point, after the\n"
    "                     experiment's own (machine.llc.policy=bip); repeatable\n"
    "  --overlay FILE     the fitted values of `ddiosim calibrate -o FILE`, for every\n"
    "                     point, at its place among the --set options\n"
    "  --fit NAME=...     run calibrate on these experiments instead (its --fit;\n"
    "                     needs --engine sim or model; -o names the report)\n"
    "  --cv               with --fit: leave-one-experiment-out cross-validation\n"
    "  --weight W         with --fit: experiment | point (experiment)\n"
    "  --objective O      with --fit: hits | rate | both (hits; see calibrate --help)\n"
    "  --max-mae PP       exit 1 when an overall mean absolute error (any engine,\n"
    "                     any metric) is above PP percentage points; or\n"
    "  --max-mae ENGINE:METRIC=PP  the same for one (sim:pcie_write_hit=6.5);\n"
    "                     repeatable.  Exit 4 when a limit cannot be checked: its\n"
    "                     engine did not run, no point has its metric, an error is\n"
    "                     not a number, or a point measured no metric\n"
    "  --format F         table | json | csv | md (table)\n"
    "  -o, --output FILE  write to FILE (atomically) instead of stdout\n"
    "  --plot FILE        also draw the figure (.svg, .png or .pdf) with gnuplot\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 ok; 1 an I/O failure; 2 bad options or bad input; 3 the model\n"
    "did not converge; 4 a --max-mae limit could not be checked; 5 an error above\n"
    "--max-mae.\n";

typedef struct mae_limit {
    int eng;                    /* -1: every engine */
    int metric;                 /* -1: every metric */
    double pp;
    const char *text;           /* as typed, for messages */
} mae_limit;

typedef struct val_opts {
    int argc;                   /* the command's words, for the JSON's provenance */
    char **argv;
    const char *dir[MAX_EXPERIMENTS];
    int n_dir;
    int engines;
    int jobs;
    uint64_t packets, seed;
    uint32_t seeds;             /* placements per point (--seeds) */
    mae_limit limit[MAX_LIMITS];
    int n_limit;
    cli_run_args run;           /* --set and --overlay alone (set, n_set); the rest is validate's own */
    cal_param fit[CAL_MAX_FIT]; /* --fit: calibrate's report instead of validate's */
    uint32_t n_fit;
    int cv, fmt_given;
    enum cal_weight weight;
    int weight_given;
    enum cal_objective objective;
    int objective_given;
    enum vd_format fmt;
    const char *out, *plot;
    char sample_trace[DDIO_DATA_PATH_MAX];  /* in the data directory; "" if there is none */
} val_opts;

enum { O_MEASURED = 300, O_ENGINE, O_JOBS, O_PACKETS, O_SEED, O_SEEDS, O_MAXMAE, O_FORMAT, O_PLOT, O_SET, O_OVERLAY, O_FIT,
       O_CV, O_WEIGHT, O_OBJECTIVE };

static int parse_limit(const char *s, val_opts *o, ddio_err *e)
{
    if (o->n_limit >= MAX_LIMITS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--max-mae: at most %d limits", MAX_LIMITS);
    mae_limit *l = &o->limit[o->n_limit];
    l->eng = l->metric = -1;
    l->text = s;
    const char *eq = strchr(s, '=');
    if (eq) {
        char who[64];
        snprintf(who, sizeof who, "%.*s", (int)(eq - s), s);
        char *colon = strchr(who, ':');
        if (!colon)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--max-mae: '%s' is not PP or ENGINE:METRIC=PP", s);
        *colon = '\0';
        l->eng = strcmp(who, "sim") == 0 ? VD_ENG_SIM : strcmp(who, "model") == 0 ? VD_ENG_MODEL : -2;
        l->metric = vd_metric_from_name(colon + 1);
        if (l->eng == -2)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--max-mae: engine '%s' is not sim or model", who);
        if (l->metric < 0)
            return ddio_errf(e, DDIO_EXIT_USAGE,
                             "--max-mae: metric '%s' is not pcie_write_hit, pcie_read_hit or pcie_write_partial_hit",
                             colon + 1);
        s = eq + 1;
    }
    if (ddio_parse_double(s, 0, 100, &l->pp, "--max-mae", e) != 0)
        return -1;
    o->n_limit++;
    return 0;
}

static int parse(int argc, char **argv, val_opts *o, ddio_err *e)
{
    static const struct option longopts[] = {
        {"measured", required_argument, 0, O_MEASURED}, {"engine", required_argument, 0, O_ENGINE},
        {"jobs", required_argument, 0, O_JOBS},         {"packets", required_argument, 0, O_PACKETS},
        {"seed", required_argument, 0, O_SEED},         {"seeds", required_argument, 0, O_SEEDS},
        {"max-mae", required_argument, 0, O_MAXMAE},
        {"format", required_argument, 0, O_FORMAT},     {"output", required_argument, 0, 'o'},
        {"plot", required_argument, 0, O_PLOT},         {"set", required_argument, 0, O_SET},
        {"overlay", required_argument, 0, O_OVERLAY},   {"fit", required_argument, 0, O_FIT},
        {"cv", no_argument, 0, O_CV},                   {"weight", required_argument, 0, O_WEIGHT},
        {"objective", required_argument, 0, O_OBJECTIVE},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    uint64_t v;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case 'o': o->out = optarg; break;
        case O_PLOT: o->plot = optarg; break;
        case O_MEASURED:
            if (o->n_dir >= MAX_EXPERIMENTS)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--measured: at most %d experiments", MAX_EXPERIMENTS);
            o->dir[o->n_dir++] = optarg;
            break;
        case O_ENGINE:
            if (cli_parse_engine(optarg, 1, &o->engines, e)) return -1;
            break;
        case O_JOBS:
            if (ddio_parse_u64(optarg, 1, 1024, &v, "--jobs", e)) return -1;
            o->jobs = (int)v;
            break;
        case O_PACKETS:
            if (ddio_parse_u64(optarg, 1000, 1ull << 32, &o->packets, "--packets", e)) return -1;
            break;
        case O_SEED:
            if (ddio_parse_u64(optarg, 0, UINT64_MAX, &o->seed, "--seed", e)) return -1;
            break;
        case O_SEEDS:
            if (ddio_parse_u64(optarg, 1, 64, &v, "--seeds", e)) return -1;
            o->seeds = (uint32_t)v;
            break;
        case O_MAXMAE:
            if (parse_limit(optarg, o, e)) return -1;
            break;
        case O_SET:
            if (cli_run_option(CLI_RUN_SET, optarg, &o->run, e) < 0) return -1;
            break;
        case O_OVERLAY:
            if (cli_run_overlay(optarg, &o->run, e)) return -1;
            break;
        case O_FIT:
            if (cli_fit_option(optarg, o->fit, &o->n_fit, e)) return -1;
            break;
        case O_CV: o->cv = 1; break;
        case O_OBJECTIVE:
            if (cal_objective_parse(optarg, &o->objective, e)) return -1;
            o->objective_given = 1;
            break;
        case O_WEIGHT:
            if (cli_weight_option(optarg, &o->weight, e)) return -1;
            o->weight_given = 1;
            break;
        case O_FORMAT:
            o->fmt_given = 1;
            if (strcmp(optarg, "table") == 0) o->fmt = VD_FMT_TABLE;
            else if (strcmp(optarg, "json") == 0) o->fmt = VD_FMT_JSON;
            else if (strcmp(optarg, "csv") == 0) o->fmt = VD_FMT_CSV;
            else if (strcmp(optarg, "md") == 0) o->fmt = VD_FMT_MD;
            else return ddio_errf(e, DDIO_EXIT_USAGE, "--format: '%s' is not table, json, csv or md", optarg);
            break;
        case ':': return ddio_errf(e, DDIO_EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]), -2;
        default: return ddio_errf(e, DDIO_EXIT_USAGE, "unknown option '%s'", argv[optind - 1]), -2;
        }
    }
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if ((o->cv || o->weight_given || o->objective_given) && o->n_fit == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: needs --fit (what to fit on the other experiments)",
                         o->cv ? "--cv" : o->weight_given ? "--weight" : "--objective"), -2;
    if (o->n_fit && o->engines == RUNNER_ENGINE_BOTH)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit: give --engine sim or --engine model (a fit is of one engine)"),
               -2;
    if (o->n_fit && (o->plot || o->n_limit || o->fmt_given))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit: not with %s (calibrate's report is a table)",
                         o->plot ? "--plot" : o->n_limit ? "--max-mae" : "--format"), -2;
    return 0;
}

/* ------------------------------------------------------------ limits */

static const char *engine_noun(int eng)
{
    return eng == VD_ENG_SIM ? "simulator" : "model";
}

static int engine_ran(const vd_set *s, int eng)
{
    return (s->engines & (eng == VD_ENG_SIM ? RUNNER_ENGINE_SIM : RUNNER_ENGINE_MODEL)) != 0;
}

/* Does limit l cover engine eng and metric m? */
static int covers(const mae_limit *l, int eng, int m)
{
    return (l->eng < 0 || l->eng == eng) && (l->metric < 0 || l->metric == m);
}

/* The first point that measured no metric at all (its counters saw no
 * lookup): no limit can check it.  Returns 0 and sets *x, *p, or -1. */
static int point_without_metric(const vd_set *s, size_t *x, size_t *p)
{
    for (*x = 0; *x < s->n_exp; (*x)++)
        for (*p = 0; *p < s->exp[*x].n; (*p)++) {
            const vd_point *pt = &s->exp[*x].point[*p];
            int any = 0;
            for (int m = 0; m < VD_METRIC_COUNT; m++)
                any |= pt->has[m];
            if (!any)
                return 0;
        }
    return -1;
}

static int measured_anywhere(const vd_set *s, int m)
{
    for (size_t x = 0; x < s->n_exp; x++)
        for (size_t p = 0; p < s->exp[x].n; p++)
            if (s->exp[x].point[p].has[m])
                return 1;
    return 0;
}

/* Why limit l checks nothing, or checks a figure that is not a number: a
 * message into why ("" when it can check). */
static void unchecked(const mae_limit *l, const vd_set *s, char *why, size_t cap)
{
    why[0] = '\0';
    if (l->eng >= 0 && !engine_ran(s, l->eng)) {
        snprintf(why, cap, "nothing to check: the %s did not run (--engine %s)", engine_noun(l->eng),
                 l->eng == VD_ENG_SIM ? "model" : "sim");
        return;
    }
    if (l->metric >= 0 && !measured_anywhere(s, l->metric)) {
        snprintf(why, cap, "nothing to check: no point measured %s", vd_metric_name((enum vd_metric)l->metric));
        return;
    }
    uint32_t n = 0;
    for (int eng = 0; eng < VD_ENG_COUNT; eng++)
        for (int m = 0; m < VD_METRIC_COUNT; m++) {
            if (!covers(l, eng, m))
                continue;
            vd_stat st;
            vd_stat_of(s, s->n_exp, eng, m, &st);
            n += st.n;
            if (st.n && !(isfinite(st.mae) && isfinite(st.max))) {
                snprintf(why, cap, "the %s's mean absolute error on %s is not a number (%g)", engine_noun(eng),
                         vd_metric_name((enum vd_metric)m), st.mae);
                return;
            }
        }
    if (n == 0)
        snprintf(why, cap, "nothing to check: no point has both a measurement and a prediction%s%s",
                 l->metric >= 0 ? " of " : "", l->metric >= 0 ? vd_metric_name((enum vd_metric)l->metric) : "");
}

/* 0 when every limited MAE is within its limit; DDIO_EXIT_UNCHECKED when a
 * limit could not be checked (before any comparison: a check that did not
 * happen must not read as a pass); else DDIO_EXIT_ABOVE_LIMIT with the first MAE above its
 * limit.  One line on stderr (or into io) for a non-zero result. */
static int check_limits(const val_opts *o, const vd_set *s, cli_io *io)
{
    if (o->n_limit == 0)
        return 0;
    size_t x, p;
    if (point_without_metric(s, &x, &p) == 0) {
        cli_io_error(io, "validate", "%s: point %s: no metric was measured (no run's counters saw a "
                     "lookup): --max-mae cannot check it", s->exp[x].name, s->exp[x].point[p].where);
        return DDIO_EXIT_UNCHECKED;
    }
    for (int i = 0; i < o->n_limit; i++) {
        char why[200];
        unchecked(&o->limit[i], s, why, sizeof why);
        if (why[0]) {
            cli_io_error(io, "validate", "--max-mae %s: %s", o->limit[i].text, why);
            return DDIO_EXIT_UNCHECKED;
        }
    }
    for (int i = 0; i < o->n_limit; i++)
        for (int eng = 0; eng < VD_ENG_COUNT; eng++)
            for (int m = 0; m < VD_METRIC_COUNT; m++) {
                const mae_limit *l = &o->limit[i];
                if (!covers(l, eng, m))
                    continue;
                vd_stat st;
                vd_stat_of(s, s->n_exp, eng, m, &st);
                if (st.n && st.mae > l->pp) {
                    cli_io_error(io, "validate", "the %s's mean absolute error on %s is %.2f points, above "
                                 "--max-mae %g", engine_noun(eng), vd_metric_name((enum vd_metric)m), st.mae, l->pp);
                    return DDIO_EXIT_ABOVE_LIMIT;
                }
            }
    return 0;
}

/* ------------------------------------------------------------ the command */

static int run(val_opts *o, char **dirs, size_t n_exp, cli_io *io, ddio_err *e)
{
    vd_experiment *exp = calloc(n_exp, sizeof *exp);
    runner_job *jobs = NULL;
    runner_outcome *out = NULL;
    ddio_outfile of = {0};
    char *side = NULL;
    int rc = -1, opened = 0;
    if (!exp) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    runner_opts ro = {.engines = o->engines, .packets = o->packets, .seed = o->seed, .seeds = o->seeds,
                      .jobs = o->jobs, .trace = o->sample_trace, .sets = o->run.set, .n_sets = o->run.n_set};
    size_t n;
    if (cli_load_experiments(dirs, n_exp, &ro, io, exp, &jobs, &n, e) != 0)
        goto done;
    /* A CSV's sidecar (OUT.meta.json) is an output too: it must not be an input. */
    side = o->fmt == VD_FMT_CSV ? cli_sidecar_of(o->out) : NULL;
    ddio_file_arg outs[] = {{"-o", o->out}, {"-o (its sidecar)", side}, {"--plot", o->plot}, {0}};
    if (ddio_outfile_check(outs, (ddio_file_arg[]){{"--overlay", o->run.overlay_path}, {0}}, e) != 0)
        goto done;
    for (size_t i = 0; i < n_exp; i++)
        for (size_t k = 0; k < exp[i].n_input; k++)
            if (ddio_outfile_check(outs, (ddio_file_arg[]){{"--measured", exp[i].input[k]}, {0}}, e) != 0)
                goto done;
    if (o->plot && (vd_plot_check("--plot", o->plot, e) != 0 || vd_plot_check_set(exp, n_exp, e) != 0))
        goto done;
    /* The output is created before the run, so a path that cannot be
     * written fails at once, not after minutes of simulation. */
    if (cli_io_open(io, &of, cli_out_path(o->out), e) != 0)
        goto done;
    opened = 1;
    out = calloc(n + 1, sizeof *out);
    if (!out) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    cli_progress bar;
    cli_progress_init(&bar, "validate");
    if (cli_io_tty(io)) {   /* cli_progress_point draws on a terminal only: none for the library */
        ro.progress = cli_progress_point;
        ro.progress_ctx = &bar;
    }
    if (runner_all(jobs, n, &ro, out, e) < 0)
        goto done;
    /* A point that failed to run is reported, not averaged away. */
    size_t k = 0;
    for (size_t i = 0; i < n_exp; i++)
        for (size_t p = 0; p < exp[i].n; p++, k++)
            if (out[k].failed) {
                ddio_errf(e, out[k].err.exit_code ? out[k].err.exit_code : DDIO_EXIT_IO,
                          "%s: point %s: %s", exp[i].name, exp[i].point[p].where, out[k].err.msg);
                goto done;
            }
    vd_set s = {.n_exp = n_exp, .exp = exp, .out = out, .engines = o->engines, .packets = o->packets,
                .seed = o->seed, .seeds = o->seeds, .sets = o->run.set, .n_sets = o->run.n_set};
    char *text = vd_report(&s, o->fmt);
    if (text && o->fmt == VD_FMT_JSON)
        text = cli_provenance(text, o->argc, o->argv);
    if (!text) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    fputs(text, of.f);
    free(text);
    if (o->plot && vd_plot(&s, o->plot, e) != 0)
        goto done;
    opened = 0;
    if (cli_io_commit(io, &of, e) != 0 ||
        (o->fmt == VD_FMT_CSV && cli_write_sidecar(o->out, o->argc, o->argv, e) != 0))
        goto done;
    rc = check_limits(o, &s, io);
done:
    if (opened)
        cli_io_abort(io, &of);
    free(side);
    for (size_t i = 0; exp && i < n_exp; i++)
        vd_experiment_free(&exp[i]);
    free(exp);
    free(jobs);
    free(out);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    return cmd_validate_io(argc, argv, NULL);
}

int cmd_validate_io(int argc, char **argv, cli_io *io)
{
    ddio_err e = {0};
    val_opts o;
    memset(&o, 0, sizeof o);
    o.engines = RUNNER_ENGINE_BOTH;
    o.packets = DEFAULT_PACKETS;
    o.seed = 1;
    o.jobs = cli_jobs_default();
    o.fmt = VD_FMT_TABLE;
    o.argc = argc, o.argv = argv;
    int rc = cli_io_parse_outcome(io, "validate", parse(argc, argv, &o, &e), usage, &e);
    if (rc >= 0)
        return rc;
    /* Points without a pkt_size run on the sample trace; experiments given
     * with --measured need no data directory otherwise. */
    ddio_err no_trace = {0};
    if (ddio_datapath(DDIO_DATA_SAMPLE_TRACE, o.sample_trace, sizeof o.sample_trace, &no_trace) != 0)
        o.sample_trace[0] = '\0';
    if (o.n_fit) {
        runner_opts ro = {.engines = o.engines, .packets = o.packets, .seed = o.seed, .seeds = o.seeds, .jobs = o.jobs,
                          .trace = o.sample_trace, .sets = o.run.set, .n_sets = o.run.n_set};
        cli_cal_args a = {.argc = argc, .argv = argv, .dir = o.dir, .n_dir = o.n_dir, .fit = o.fit, .n_fit = o.n_fit, .engine = o.engines,
                          .cv = o.cv, .weight = o.weight, .objective = o.objective, .run = ro, .report_out = o.out,
                          .report_opt = "-o",
                          .overlay_in = o.run.overlay_path};
        return cli_calibrate("validate", &a);
    }
    char *dirs[CLI_MAX_EXPERIMENTS];
    int n = 0;
    if (cli_experiment_dirs(o.dir, o.n_dir, dirs, &n, &e) != 0)
        return cli_io_fail(io, "validate", &e);
    rc = run(&o, dirs, (size_t)n, io, &e);
    for (int i = 0; i < n; i++)
        free(dirs[i]);
    if (rc < 0)
        return cli_io_fail(io, "validate", &e);
    return rc;
}
