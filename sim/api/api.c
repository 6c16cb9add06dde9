/* api.c - the library's entry points (sim/api/ddiosim.h): each runs the
 * CLI's command on the request's command line, with its document and
 * messages into buffers (sim/cli/cli_io.h), so that the library returns
 * exactly what `ddiosim CMD --format json` writes. */
#include <gsl/gsl_errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/api/api_request.h"
#include "sim/api/ddiosim.h"
#include "sim/cli/cli_io.h"

typedef int (*api_cmd)(int argc, char **argv, cli_io *io);

/* The one lock of the library: the commands parse their options with
 * getopt, whose state (optind, optarg) is the process's, and GSL's error
 * handler is the process's too.  One request runs at a time. */
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

/* Whether a failed command still returns its document: validate's limit
 * checks come after the report is written. */
static int keeps_document(int rc)
{
    return rc == DDIOSIM_E_UNCHECKED || rc == DDIOSIM_E_ABOVE_LIMIT;
}

/* Run `cmd` on the request's command line with the lock held. */
static int run_locked(api_cmd cmd, const api_argv *a, char **result, char *err, size_t errlen)
{
    cli_io io;
    memset(&io, 0, sizeof io);
    /* GSL's default handler aborts the process: its errors are return
     * codes here, checked where GSL is called (as in sim/cli/main.c). */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = cmd(a->argc, a->argv, &io);
    gsl_set_error_handler(old);
    if ((rc == DDIOSIM_OK || keeps_document(rc)) && io.out.data) {
        *result = strdup(io.out.data);
        if (!*result && rc == DDIOSIM_OK) {
            rc = DDIOSIM_E_RUN;
            snprintf(io.err, sizeof io.err, "out of memory");
        }
    } else if (rc == DDIOSIM_OK) {
        rc = DDIOSIM_E_RUN;
        snprintf(io.err, sizeof io.err, "the command wrote no document");
    }
    if (rc != DDIOSIM_OK)
        set_err(err, errlen, io.err[0] ? io.err : "failed (no message)");
    else if (io.warn.data)
        set_err(err, errlen, io.warn.data);   /* the warnings the CLI prints on stderr */
    cli_io_free(&io);
    return rc;
}

/* A command of the library: its function, name, the request key that is
 * its argument (NULL: none), the keys it refuses (NULL-terminated). */
typedef struct api_command {
    api_cmd run;
    const char *name, *positional;
    const char *const *refused;
} api_command;

static int api_run(const api_command *c, const char *request, char **result, char *err, size_t errlen)
{
    set_err(err, errlen, "");
    if (!result) {
        set_err(err, errlen, "result_json: NULL");
        return DDIOSIM_E_REQUEST;
    }
    *result = NULL;
    ddio_err e = {0};
    api_argv a;
    pthread_mutex_lock(&api_lock);
    int rc;
    if (api_argv_from_json(c->name, request, c->positional, c->refused, &a, &e) != 0) {
        set_err(err, errlen, e.msg);
        rc = e.exit_code ? e.exit_code : DDIOSIM_E_REQUEST;
    } else {
        rc = run_locked(c->run, &a, result, err, errlen);
    }
    api_argv_free(&a);
    pthread_mutex_unlock(&api_lock);
    return rc;
}

int ddiosim_predict(const char *request_json, char **result_json, char *err, size_t errlen)
{
    static const api_command c = {cmd_predict_io, "predict", NULL, NULL};
    return api_run(&c, request_json, result_json, err, errlen);
}

int ddiosim_simulate(const char *request_json, char **result_json, char *err, size_t errlen)
{
    static const api_command c = {cmd_simulate_io, "simulate", NULL, NULL};
    return api_run(&c, request_json, result_json, err, errlen);
}

int ddiosim_cache_replay(const char *request_json, char **result_json, char *err, size_t errlen)
{
    static const api_command c = {cmd_cache_replay_io, "cache-replay", "trace", NULL};
    return api_run(&c, request_json, result_json, err, errlen);
}

int ddiosim_validate(const char *request_json, char **result_json, char *err, size_t errlen)
{
    /* --fit is calibrate's, whose report is a table written by the CLI. */
    static const char *const refused[] = {"fit", NULL};
    static const api_command c = {cmd_validate_io, "validate", NULL, refused};
    return api_run(&c, request_json, result_json, err, errlen);
}

void ddiosim_free(char *result_json)
{
    free(result_json);
}

const char *ddiosim_version(void)
{
    return DDIOSIM_VERSION;
}

int ddiosim_api_version(void)
{
    return DDIOSIM_API_VERSION;
}
