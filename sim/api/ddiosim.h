/* ddiosim.h - the C API of libddiosim: the DDIO hit-rate engines for other
 * programs (docs/api.md).
 *
 * JSON in, JSON out: a request is a JSON object whose keys are the long
 * options of the matching `ddiosim` command (docs/ddiosim.1) and whose
 * result is the very document that command writes with `--format json`,
 * so that the API stays the same while options and fields grow.
 *
 *   char err[256], *out = NULL;
 *   int rc = ddiosim_predict("{\"machine\": \"skylake-6140\", \"rx-ring\": 512}", &out, err, sizeof err);
 *   if (rc == DDIOSIM_OK) { puts(out); ddiosim_free(out); } else fprintf(stderr, "%s\n", err);
 *
 * Versioning: DDIOSIM_API_VERSION grows by one when a function's signature
 * or meaning changes incompatibly; new functions, request keys and result
 * fields do not change it.  The library's soname follows it.
 *
 * Threads: calls may come from any thread; the library runs one request at
 * a time (option parsing uses getopt's process-wide state). */
#ifndef DDIOSIM_API_H
#define DDIOSIM_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(DDIOSIM_BUILDING_LIBRARY)
#define DDIOSIM_EXPORT __attribute__((visibility("default")))
#else
#define DDIOSIM_EXPORT
#endif

#define DDIOSIM_API_VERSION 1

/* Return codes: the exit codes of the `ddiosim` command for the same
 * error, so that a program can treat both alike. */
enum ddiosim_status {
    DDIOSIM_OK = 0,
    DDIOSIM_E_RUN = 1,          /* I/O or internal failure: a file that cannot be read, out of memory */
    DDIOSIM_E_REQUEST = 2,      /* bad request: not a JSON object, an unknown key, a bad value, file or field */
    DDIOSIM_E_NOCONV = 3,       /* predict: the model did not converge (raise max-iter / tol) */
    DDIOSIM_E_UNCHECKED = 4,    /* validate: a max-mae limit could not be checked */
    DDIOSIM_E_ABOVE_LIMIT = 5,  /* validate: a mean absolute error above its max-mae limit */
};

/* Each engine: `request_json` (NUL-terminated JSON object, NULL or "" for
 * {}: the command's defaults) in; DDIOSIM_OK and the command's JSON
 * document in *result_json (free it with ddiosim_free), or a nonzero
 * status and one line in err[errlen] (naming the request key at fault when
 * there is one).  *result_json is NULL on error, except for validate's
 * DDIOSIM_E_ABOVE_LIMIT and DDIOSIM_E_UNCHECKED, which come with the
 * report.  On DDIOSIM_OK, err holds the command's warnings (the lines the
 * CLI prints on stderr, each ending in a newline; cut to errlen), or "".
 * err may be NULL (errlen 0).  Nothing is printed; the process never
 * exits. */
DDIOSIM_EXPORT int ddiosim_predict(const char *request_json, char **result_json, char *err, size_t errlen);
DDIOSIM_EXPORT int ddiosim_simulate(const char *request_json, char **result_json, char *err, size_t errlen);
DDIOSIM_EXPORT int ddiosim_cache_replay(const char *request_json, char **result_json, char *err, size_t errlen);
DDIOSIM_EXPORT int ddiosim_validate(const char *request_json, char **result_json, char *err, size_t errlen);

/* Release a result of the functions above (NULL: nothing). */
DDIOSIM_EXPORT void ddiosim_free(char *result_json);

/* The library's version, "MAJOR.MINOR.PATCH" (static storage). */
DDIOSIM_EXPORT const char *ddiosim_version(void);

/* The DDIOSIM_API_VERSION the library was built with: a program can check
 * it against the header it was compiled with. */
DDIOSIM_EXPORT int ddiosim_api_version(void);

#ifdef __cplusplus
}
#endif

#endif
