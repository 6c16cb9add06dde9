/* cli_runner.c - options of the commands that run many points (cli_runner.h). */
#include "sim/cli_runner.h"

#include <string.h>
#include <unistd.h>

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
