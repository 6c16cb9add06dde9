/* err.h - one-line error reports returned (never printed) below the CLI.
 *
 * Every fallible function in the library takes a `ddio_err *` and returns
 * a negative value on failure after filling it with a single line that names
 * the file / field / line / packet at fault.  Only the CLI prints it. */
#ifndef DDIOSIM_COMMON_ERR_H
#define DDIOSIM_COMMON_ERR_H

#include <stddef.h>

/* Exit codes shared by every subcommand. */
enum ddio_exit {
    DDIO_EXIT_OK = 0,
    DDIO_EXIT_IO = 1,       /* I/O or internal failure */
    DDIO_EXIT_USAGE = 2,    /* bad command line or bad input data */
    DDIO_EXIT_NOCONV = 3,   /* a numerical model did not converge */
    DDIO_EXIT_UNCHECKED = 4,    /* validate could not make a check it was asked for */
    DDIO_EXIT_ABOVE_LIMIT = 5,  /* validate: an accuracy figure above its --max-mae */
    DDIO_EXIT_INFEASIBLE = 6,   /* advise: no point of the grid meets every constraint */
};

typedef struct ddio_err {
    int exit_code;          /* one of enum ddio_exit */
    char msg[512];
} ddio_err;

/* Fill `e` (may be NULL) with a formatted message and exit code; returns -1
 * so callers can write `return ddio_errf(e, DDIO_EXIT_USAGE, "...")`. */
int ddio_errf(ddio_err *e, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix an existing message with "prefix: " (e.g. a file name). */
void ddio_err_prefix(ddio_err *e, const char *prefix);

#endif
