/* cli_runner.h - the options shared by the commands that run many points
 * on validate's point runner (validate, sweep, advise). */
#ifndef DDIOSIM_CLI_RUNNER_H
#define DDIOSIM_CLI_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "configs/overlay.h"
#include "sim/common/err.h"
#include "sim/explore/calibrate.h"
#include "validate/experiment.h"
#include "sim/explore/runner.h"

/* --jobs' default: the CPUs online (1 when unknown, at most 1024). */
int cli_jobs_default(void);

/* --engine S into *out (RUNNER_ENGINE_SIM, _MODEL or _BOTH): "model" and
 * "both", and "sim" when allow_sim.  0, or -1 with the one-line error. */
int cli_parse_engine(const char *s, int allow_sim, int *out, ddio_err *e);

/* --jobs, --packets, --seed and --set of sweep and advise: their getopt
 * codes (out of the commands' own ranges), their long options, and what
 * they set. */
enum { CLI_RUN_JOBS = 400, CLI_RUN_PACKETS, CLI_RUN_SEED, CLI_RUN_SET };
#define CLI_RUN_LONGOPTS                                                                                    \
    {"jobs", required_argument, 0, CLI_RUN_JOBS}, {"packets", required_argument, 0, CLI_RUN_PACKETS},     \
        {"seed", required_argument, 0, CLI_RUN_SEED}, {"set", required_argument, 0, CLI_RUN_SET},        \
        {"overlay", required_argument, 0, CLI_RUN_SET + 1}
#define CLI_RUN_MAX_SETS 16

typedef struct cli_run_args {
    int jobs;
    uint64_t packets, seed;
    const char *set[CLI_RUN_MAX_SETS + DDIO_OVERLAY_MAX];  /* --set's and the overlay's, in line order */
    int n_set;
    int n_given;                /* --set options among them */
    ddio_overlay overlay;       /* --overlay's fields (set[] points into it) */
    const char *overlay_path;
} cli_run_args;

/* --overlay PATH into a: 0, or -1 with the reader's one-line error. */
int cli_run_overlay(const char *path, cli_run_args *a, ddio_err *e);

/* --overlay FILE: its fields join the --set list at this place of the
 * command line (configs/overlay.h); one overlay per command. */
#define CLI_RUN_OVERLAY (CLI_RUN_SET + 1)

/* The defaults: the CPUs online, 300 000 packets, seed 1, no --set. */
void cli_run_args_default(cli_run_args *a);

/* getopt's code c with its argument: 1 when it was one of these options
 * (taken), 0 when it is not, -1 with the one-line error of a bad value. */
int cli_run_option(int c, const char *arg, cli_run_args *a, ddio_err *e);

/* The runner's options for `engines` and a: points without a pkt_size run
 * on the sample trace of the data directory, found into trace[cap] ("" when
 * there is none). */
runner_opts cli_run_opts(const cli_run_args *a, int engines, char *trace, size_t cap);

/* ------------------------------------------------------------ experiments */

#define CLI_MAX_EXPERIMENTS 64

/* The experiment folders to run: `given` (the --measured folders, none
 * given twice however spelt: compared as files, their points would count
 * twice) or, when n_given is 0, every folder under the data directory's
 * validate/data (two levels) holding an experiment.json, sorted by path.
 * Malloc'ed copies into dirs[*n] (at most CLI_MAX_EXPERIMENTS; free each).
 * 0, or -1 with e filled (exit 2). */
int cli_experiment_dirs(const char *const *given, int n_given, char **dirs, int *n, ddio_err *e);

/* Load the n experiments of dirs into exp[n] (vd_experiment_free each,
 * also on error) and make one job per point, in order (*jobs, malloc'ed;
 * *n_points), checking that every point's configuration resolves with o's
 * overrides, so that a bad experiment fails before anything runs.  The
 * loader's warnings go to stderr, or into io->warn (sim/cli/cli_io.h).  A bad
 * override is its own error, not a point's.  0, or -1 with e filled. */
struct cli_io;
int cli_load_experiments(char *const *dirs, size_t n, const runner_opts *o, struct cli_io *io, vd_experiment *exp,
                         runner_job **jobs, size_t *n_points, ddio_err *e);

/* ------------------------------------------------------------ calibrate */

/* What `calibrate` and `validate --fit` run (sim/explore/calibrate.h). */
typedef struct cli_cal_args {
    const char *const *dir;     /* --measured folders (n_dir 0: the shipped experiments) */
    int n_dir;
    const cal_param *fit;
    uint32_t n_fit;
    int engine;                 /* RUNNER_ENGINE_SIM or RUNNER_ENGINE_MODEL */
    int cv;
    enum cal_weight weight;
    enum cal_objective objective;
    uint32_t max_evals;         /* 0: the default */
    runner_opts run;            /* jobs, packets, seed, trace, --set and --overlay fields */
    const char *overlay_out;    /* -o: the overlay written (NULL: none) */
    const char *report_out;     /* the report (NULL or "-": stdout) */
    const char *report_opt;     /* the option that named report_out, for messages */
    const char *overlay_in;     /* --overlay read (NULL: none): never written over */
    int argc;                   /* the command's words, for the overlay's provenance */
    char **argv;
} cli_cal_args;

/* Run the calibration and write its report and overlay; warnings and the
 * time on stderr, errors as one line "ddiosim CMD: ...".  Returns the exit
 * code. */
int cli_calibrate(const char *cmd, const cli_cal_args *a);

/* --fit ARG appended to fit[*n_fit] (at most CAL_MAX_FIT); --weight ARG.
 * 0, or -1 with the one-line error. */
int cli_fit_option(const char *arg, cal_param *fit, uint32_t *n_fit, ddio_err *e);
int cli_weight_option(const char *arg, enum cal_weight *w, ddio_err *e);

#endif
