/* cli_runner.c - options of the commands that run many points (cli_runner.h). */
#include "sim/cli_runner.h"

#include <string.h>
#include <unistd.h>

#include "sim/common/datadir.h"
#include "sim/common/parse.h"

#include "validate/runner.h"

int cli_jobs_default(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (int)(cpus > 1024 ? 1024 : cpus) : 1;
}

int cli_parse_engine(const char *s, int allow_sim, int *out, ddio_err *e)
{
    if (allow_sim && strcmp(s, "sim") == 0)
        *out = VD_ENGINE_SIM;
    else if (strcmp(s, "model") == 0)
        *out = VD_ENGINE_MODEL;
    else if (strcmp(s, "both") == 0)
        *out = VD_ENGINE_BOTH;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "--engine: '%s' is not %s", s, allow_sim ? "sim, model or both"
                                                                                     : "model or both");
    return 0;
}

void cli_run_args_default(cli_run_args *a)
{
    memset(a, 0, sizeof *a);
    a->jobs = cli_jobs_default();
    a->packets = 300000;
    a->seed = 1;
}

int cli_run_option(int c, const char *arg, cli_run_args *a, ddio_err *e)
{
    uint64_t v;
    switch (c) {
    case CLI_RUN_JOBS:
        if (ddio_parse_u64(arg, 1, 1024, &v, "--jobs", e))
            return -1;
        a->jobs = (int)v;
        return 1;
    case CLI_RUN_PACKETS:
        return ddio_parse_u64(arg, 1, UINT64_C(1) << 40, &a->packets, "--packets", e) ? -1 : 1;
    case CLI_RUN_SEED:
        return ddio_parse_u64(arg, 0, UINT64_MAX, &a->seed, "--seed", e) ? -1 : 1;
    case CLI_RUN_SET:
        if (a->n_set >= CLI_RUN_MAX_SETS)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--set: at most %d", CLI_RUN_MAX_SETS);
        a->set[a->n_set++] = arg;
        return 1;
    default:
        return 0;
    }
}

vd_run_opts cli_run_opts(const cli_run_args *a, int engines, char *trace, size_t cap)
{
    ddio_err no_trace = {0};
    if (ddio_datapath(DDIO_DATA_SAMPLE_TRACE, trace, cap, &no_trace) != 0)
        trace[0] = '\0';
    return (vd_run_opts){.engines = engines, .packets = a->packets, .seed = a->seed, .jobs = a->jobs,
                         .trace = trace, .sets = a->set, .n_sets = a->n_set};
}
