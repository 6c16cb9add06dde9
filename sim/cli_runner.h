/* cli_runner.h - the options shared by the commands that run many points
 * on validate's point runner (validate, sweep, advise). */
#ifndef DDIOSIM_CLI_RUNNER_H
#define DDIOSIM_CLI_RUNNER_H

#include "sim/common/err.h"

/* --jobs' default: the CPUs online (1 when unknown, at most 1024). */
int cli_jobs_default(void);

/* --engine S into *out (VD_ENGINE_SIM, _MODEL or _BOTH): "model" and
 * "both", and "sim" when allow_sim.  0, or -1 with the one-line error. */
int cli_parse_engine(const char *s, int allow_sim, int *out, ddio_err *e);

#endif
