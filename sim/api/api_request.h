/* api_request.h - a JSON request of the library (sim/api/ddiosim.h) as the
 * command line of the matching command. */
#ifndef DDIOSIM_API_REQUEST_H
#define DDIOSIM_API_REQUEST_H

#include "sim/common/err.h"

#define API_MAX_TMP 8

typedef struct api_argv {
    int argc;
    char **argv;                /* argv[0] the command; NULL-terminated; each malloc'ed */
    int cap;
    char *tmp[API_MAX_TMP];     /* files holding the request's inline objects */
    int n_tmp;
} api_argv;

/* The command line of `cmd` for `request` (a JSON object; NULL or "" is
 * {}): each key KEY (underscores read as dashes) becomes --KEY=VALUE for a
 * string or a number, --KEY for true (false and null: left out), one
 * --KEY=VALUE per element of an array, and --KEY=FILE for an object,
 * written to a temporary file (a machine or workload given inline).  The
 * key `positional` (NULL: none) is the command's argument instead, and
 * required.  --format=json comes first, the flags last.  Keys the library
 * answers itself (format, output, help) are refused, and so are those of
 * `refused` (NULL-terminated; NULL: none).  0, or -1 with e filled (exit 2)
 * naming the key; api_argv_free releases a in both cases. */
int api_argv_from_json(const char *cmd, const char *request, const char *positional, const char *const *refused,
                       api_argv *a, ddio_err *e);

/* Release a and remove its temporary files. */
void api_argv_free(api_argv *a);

#endif
