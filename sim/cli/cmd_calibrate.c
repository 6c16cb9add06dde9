/* cmd_calibrate.c - `ddiosim calibrate`: fit a machine's or a workload's
 * free parameters to measured counters, report the fit in-sample and, with
 * --cv, leaving one experiment out; write the fitted values as an overlay
 * that every command takes with --overlay (docs/calibrate.md). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_runner.h"
#include "sim/common/parse.h"
#include "sim/common/provenance.h"
#include "sim/explore/calibrate.h"

static const char usage[] =
    "usage: ddiosim calibrate --fit NAME=LO:HI[:STEP] [--fit ...] [options]\n"
    "\n"
    "Fit machine or workload fields to the hit rates measured on a server, and\n"
    "say how well the fit predicts what was not measured: with --cv, each\n"
    "experiment is predicted by a fit on the others.  One value per field for\n"
    "every point (docs/calibrate.md).\n"
    "\n"
    "  --fit NAME=LO:HI[:STEP]  a numeric field over a range (STEP: the coarse\n"
    "                     scan's; default 16 intervals in all), e.g.\n"
    "                     workload.cycles_per_packet=10:200\n"
    "  --fit NAME=A,B,...  a field over a list (machine.llc.policy=lru,bip); a bare\n"
    "                     enum NAME is all its names; repeatable, up to 8 fields\n"
    "  --measured DIR     an experiment folder; repeat for more (default: every\n"
    "                     experiment shipped in validate/data)\n"
    "  --engine E         model | sim (model)\n"
    "  --cv               leave-one-experiment-out cross-validation (printed first)\n"
    "  --weight W         experiment: each experiment's MAE counts once, however\n"
    "                     many points it has (default: an experiment is one\n"
    "                     mechanism; a 24-point one must not drown a 7-point one);\n"
    "                     point: every measured point counts once\n"
    "  --objective O      hits: the hit rates' absolute errors (points; default);\n"
    "                     rate: the forwarding rate's relative error (percent;\n"
    "                     experiments that measured it: evidence.mpps); both\n"
    "  --max-evals N      simplex evaluations per fit (120)\n"
    "  --jobs N           points computed in parallel (the cores online); the\n"
    "                     results do not depend on it\n"
    "  --packets N        simulator: packets per point (300000:\n"
    "                     at most half of it warm-up; 100000 moves a hit rate\n"
    "                     by <= 0.5 point)\n"
    "  --seed S           seed of every point (1)\n"
    "  --seeds K          each point the mean over K placements of the buffers in\n"
    "                     physical frames, seeds S .. S+K-1 (1)\n"
    "  --set PATH=VALUE   a field for every point, not fitted; repeatable\n"
    "  --overlay FILE     start from an earlier calibration's fitted values\n"
    "  -o, --output FILE  write the fitted values as an overlay (atomically; never\n"
    "                     over an input)\n"
    "  --report FILE      write the report to FILE instead of stdout\n"
    "  -h, --help         this help\n"
    "\n"
    "A field whose scan changes the objective by no more than the measurement\n"
    "noise has no evidence in the experiments: it is left at its configured value,\n"
    "with a warning.  The time taken is printed on stderr.\n"
    "\n"
    "Exit status: 0 ok; 1 an I/O failure; 2 bad options, bad input or a point\n"
    "that cannot run.\n";

typedef struct cal_opts {
    const char *dir[CLI_MAX_EXPERIMENTS];
    int n_dir;
    cal_param fit[CAL_MAX_FIT];
    uint32_t n_fit;
    int engine, cv;
    enum cal_weight weight;
    enum cal_objective objective;
    uint32_t max_evals;
    uint32_t seeds;             /* placements per point (--seeds) */
    cli_run_args run;
    const char *out, *report;
} cal_opts;

enum { O_MEASURED = 300, O_FIT, O_ENGINE, O_CV, O_WEIGHT, O_MAXEVALS, O_REPORT, O_OBJECTIVE, O_SEEDS };

/* --fit ARG into o->fit: shared with validate's --fit. */
int cli_fit_option(const char *arg, cal_param *fit, uint32_t *n_fit, ddio_err *e)
{
    if (*n_fit >= CAL_MAX_FIT)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit: at most %d fields", CAL_MAX_FIT);
    if (cal_param_parse(arg, &fit[*n_fit], e) != 0)
        return -1;
    (*n_fit)++;
    return 0;
}

int cli_weight_option(const char *arg, enum cal_weight *w, ddio_err *e)
{
    if (strcmp(arg, "experiment") == 0)
        *w = CAL_WEIGHT_EXPERIMENT;
    else if (strcmp(arg, "point") == 0)
        *w = CAL_WEIGHT_POINT;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "--weight: '%s' is not experiment or point", arg);
    return 0;
}

static int parse(int argc, char **argv, cal_opts *o, ddio_err *e)
{
    static const struct option longopts[] = {
        {"measured", required_argument, 0, O_MEASURED}, {"fit", required_argument, 0, O_FIT},
        {"engine", required_argument, 0, O_ENGINE},     {"cv", no_argument, 0, O_CV},
        {"weight", required_argument, 0, O_WEIGHT},     {"max-evals", required_argument, 0, O_MAXEVALS},
        {"objective", required_argument, 0, O_OBJECTIVE}, {"seeds", required_argument, 0, O_SEEDS},
        {"report", required_argument, 0, O_REPORT},     {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},                  CLI_RUN_LONGOPTS,
        {0, 0, 0, 0},
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
        case O_REPORT: o->report = optarg; break;
        case O_SEEDS:
            if (ddio_parse_u64(optarg, 1, 64, &v, "--seeds", e)) return -1;
            o->seeds = (uint32_t)v;
            break;
        case O_MEASURED:
            if (o->n_dir >= CLI_MAX_EXPERIMENTS)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--measured: at most %d experiments", CLI_MAX_EXPERIMENTS);
            o->dir[o->n_dir++] = optarg;
            break;
        case O_FIT:
            if (cli_fit_option(optarg, o->fit, &o->n_fit, e)) return -1;
            break;
        case O_ENGINE:
            if (strcmp(optarg, "sim") == 0) o->engine = RUNNER_ENGINE_SIM;
            else if (strcmp(optarg, "model") == 0) o->engine = RUNNER_ENGINE_MODEL;
            else return ddio_errf(e, DDIO_EXIT_USAGE, "--engine: '%s' is not model or sim (a fit is of one engine)",
                                  optarg);
            break;
        case O_CV: o->cv = 1; break;
        case O_OBJECTIVE:
            if (cal_objective_parse(optarg, &o->objective, e)) return -1;
            break;
        case O_WEIGHT:
            if (cli_weight_option(optarg, &o->weight, e)) return -1;
            break;
        case O_MAXEVALS:
            if (ddio_parse_u64(optarg, 1, 100000, &v, "--max-evals", e)) return -1;
            o->max_evals = (uint32_t)v;
            break;
        case ':': return ddio_errf(e, DDIO_EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]), -2;
        default: return ddio_errf(e, DDIO_EXIT_USAGE, "unknown option '%s'", argv[optind - 1]), -2;
        }
    }
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if (o->n_fit == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit: nothing to fit (give --fit NAME=LO:HI)"), -2;
    return 0;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The checks before the run: outputs that are not directories, not the
 * same file twice, and none of them an input (a measured file, a machine or
 * workload file, the --overlay read). */
static int check_outputs(const cli_cal_args *a, const vd_experiment *exp, size_t n_exp, ddio_err *e)
{
    /* "-o -" is the overlay on stdout, where the report goes by default. */
    if (a->overlay_out && !cli_out_path(a->overlay_out) && !cli_out_path(a->report_out))
        return ddio_errf(e, DDIO_EXIT_USAGE, "-o -: the report is on stdout; write it to a file with %s FILE",
                         a->report_opt);
    ddio_file_arg outs[] = {{"-o", a->overlay_out}, {a->report_opt, a->report_out}, {0}};
    if (ddio_outfile_check(outs, (ddio_file_arg[]){{"--overlay", a->overlay_in}, {0}}, e) != 0)
        return -1;
    for (size_t i = 0; i < n_exp; i++)
        for (size_t k = 0; k < exp[i].n_input; k++)
            if (ddio_outfile_check(outs, (ddio_file_arg[]){{"--measured", exp[i].input[k]}, {0}}, e) != 0)
                return -1;
    return 0;
}

static void warn_unfitted(const char *cmd, const cal_problem *p, const cal_result *r)
{
    for (uint32_t i = 0; i < p->n_fit; i++)
        if (!r->all.fitted[i])
            fprintf(stderr,
                    "ddiosim %s: warning: %s: the objective changes by %.2f %s across the scan, not more than "
                    "the measurement noise (%.2f): not fitted, left at the configuration's value\n",
                    cmd, p->fit[i].path, r->all.range[i], cal_unit(p->objective), r->noise);
}

/* The progress line on a tty, rewritten in place; cleared at the end. */
static void show_progress(void *arg, const char *stage, uint64_t evaluations, double best)
{
    (void)arg;
    if (stage)
        fprintf(stderr, "\rcalibrate: %s: evaluation %llu, best %.3f points   ", stage,
                (unsigned long long)evaluations, best);
    else
        fprintf(stderr, "\r%*s\r", 100, "");
    fflush(stderr);
}

int cli_calibrate(const char *cmd, const cli_cal_args *a)
{
    ddio_err e = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *dirs[CLI_MAX_EXPERIMENTS];
    int n = 0;
    if (cli_experiment_dirs(a->dir, a->n_dir, dirs, &n, &e) != 0)
        return cli_fail(cmd, &e);
    vd_experiment *exp = calloc((size_t)n + 1, sizeof *exp);
    cal_problem *p = calloc(1, sizeof *p);
    runner_job *jobs = NULL;
    ddio_outfile rep = {0}, ov = {0};
    int opened = 0, rc = -1;
    cal_result r;
    memset(&r, 0, sizeof r);
    size_t n_pts;
    if (!exp || !p) {
        ddio_errf(&e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    runner_opts ro = a->run;
    ro.engines = a->engine;
    if (cli_load_experiments(dirs, (size_t)n, &ro, NULL, exp, &jobs, &n_pts, &e) != 0 ||
        check_outputs(a, exp, (size_t)n, &e) != 0)
        goto done;
    *p = (cal_problem){.n_exp = (size_t)n, .exp = exp, .engine = a->engine, .run = ro, .weight = a->weight,
                       .objective = a->objective,
                       .n_fit = a->n_fit, .max_evals = a->max_evals,
                       .progress = isatty(STDERR_FILENO) ? show_progress : NULL};
    memcpy(p->fit, a->fit, a->n_fit * sizeof *a->fit);
    /* Outputs are created before the run (a path that cannot be written
     * fails now, not after the fit) and renamed into place after it. */
    if (ddio_outfile_open(&rep, cli_out_path(a->report_out), &e) != 0)
        goto done;
    opened = 1;
    if (a->overlay_out && ddio_outfile_open(&ov, cli_out_path(a->overlay_out), &e) != 0)
        goto done;
    opened |= a->overlay_out ? 2 : 0;
    if (cal_run(p, a->cv, &r, &e) != 0)
        goto done;
    warn_unfitted(cmd, p, &r);
    char *text = cal_report(p, &r);
    char *command = ddio_command_line(a->argc, a->argv);
    char *json = a->overlay_out && command ? cal_overlay_json(p, &r, command) : NULL;
    free(command);
    if (!text || (a->overlay_out && !json)) {
        free(text), free(json);
        ddio_errf(&e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    fputs(text, rep.f);
    if (json)
        fprintf(ov.f, "%s\n", json);
    free(text), free(json);
    /* The report first: an overlay is only left behind with its report. */
    opened &= ~1;
    if (ddio_outfile_commit(&rep, &e) != 0)
        goto done;
    opened = 0;
    if (a->overlay_out && ddio_outfile_commit(&ov, &e) != 0)
        goto done;
    fprintf(stderr, "ddiosim %s: %llu evaluations (%llu point runs) in %.1f s with %d job%s\n", cmd,
            (unsigned long long)r.evaluations, (unsigned long long)r.point_runs, seconds_since(&t0), ro.jobs,
            ro.jobs == 1 ? "" : "s");
    rc = 0;
done:
    if (opened & 2)
        ddio_outfile_abort(&ov);
    if (opened & 1)
        ddio_outfile_abort(&rep);
    cal_result_free(&r);
    for (int i = 0; exp && i < n; i++)
        vd_experiment_free(&exp[i]);
    for (int i = 0; i < n; i++)
        free(dirs[i]);
    free(exp), free(p), free(jobs);
    return rc == 0 ? 0 : cli_fail(cmd, &e);
}

int cmd_calibrate(int argc, char **argv)
{
    ddio_err e = {0};
    cal_opts o;
    memset(&o, 0, sizeof o);
    o.engine = RUNNER_ENGINE_MODEL;
    o.weight = CAL_WEIGHT_EXPERIMENT;
    cli_run_args_default(&o.run);
    int rc = cli_parse_outcome("calibrate", parse(argc, argv, &o, &e), usage, &e);
    if (rc >= 0)
        return rc;
    char trace[1024];
    cli_cal_args a = {.argc = argc, .argv = argv, .dir = o.dir, .n_dir = o.n_dir, .fit = o.fit, .n_fit = o.n_fit, .engine = o.engine,
                      .cv = o.cv, .weight = o.weight, .objective = o.objective, .max_evals = o.max_evals,
                      .run = cli_run_opts(&o.run, o.engine, trace, sizeof trace), .overlay_out = o.out,
                      .report_out = o.report, .report_opt = "--report", .overlay_in = o.run.overlay_path};
    a.run.seeds = o.seeds;
    return cli_calibrate("calibrate", &a);
}
