/* cli_runner.h - the options shared by the commands that run many points
 * on validate's point runner (validate, sweep, advise). */
#ifndef DDIOSIM_CLI_RUNNER_H
#define DDIOSIM_CLI_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"
#include "validate/runner.h"

/* --jobs' default: the CPUs online (1 when unknown, at most 1024). */
int cli_jobs_default(void);

/* --engine S into *out (VD_ENGINE_SIM, _MODEL or _BOTH): "model" and
 * "both", and "sim" when allow_sim.  0, or -1 with the one-line error. */
int cli_parse_engine(const char *s, int allow_sim, int *out, ddio_err *e);

/* --jobs, --packets, --seed and --set of sweep and advise: their getopt
 * codes (out of the commands' own ranges), their long options, and what
 * they set. */
enum { CLI_RUN_JOBS = 400, CLI_RUN_PACKETS, CLI_RUN_SEED, CLI_RUN_SET };
#define CLI_RUN_LONGOPTS                                                                                    \
    {"jobs", required_argument, 0, CLI_RUN_JOBS}, {"packets", required_argument, 0, CLI_RUN_PACKETS},     \
        {"seed", required_argument, 0, CLI_RUN_SEED}, {"set", required_argument, 0, CLI_RUN_SET}
#define CLI_RUN_MAX_SETS 16

typedef struct cli_run_args {
    int jobs;
    uint64_t packets, seed;
    const char *set[CLI_RUN_MAX_SETS];
    int n_set;
} cli_run_args;

/* The defaults: the CPUs online, 300 000 packets, seed 1, no --set. */
void cli_run_args_default(cli_run_args *a);

/* getopt's code c with its argument: 1 when it was one of these options
 * (taken), 0 when it is not, -1 with the one-line error of a bad value. */
int cli_run_option(int c, const char *arg, cli_run_args *a, ddio_err *e);

/* The runner's options for `engines` and a: points without a pkt_size run
 * on the sample trace of the data directory, found into trace[cap] ("" when
 * there is none). */
vd_run_opts cli_run_opts(const cli_run_args *a, int engines, char *trace, size_t cap);

#endif
