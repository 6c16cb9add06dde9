/* outfile.h - an output file written whole or not at all.
 *
 * ddio_outfile_open creates PATH.tmpXXXXXX beside PATH with the mode a plain
 * fopen would give (0666 less the umask); the caller writes to f;
 * ddio_outfile_commit closes it and renames it over PATH, ddio_outfile_abort
 * closes and removes it.  Either one releases everything, also on error, so
 * a failed run never leaves a half-written file (only a killed one leaves
 * its temporary).  A NULL path writes to stdout: commit flushes it. */
#ifndef DDIOSIM_COMMON_OUTFILE_H
#define DDIOSIM_COMMON_OUTFILE_H

#include <stdio.h>

#include "sim/common/err.h"

typedef struct ddio_outfile {
    FILE *f;
    char *path;                 /* a copy of the path; NULL: stdout */
    char *tmp;                  /* the temporary file; NULL: stdout */
} ddio_outfile;

int ddio_outfile_open(ddio_outfile *o, const char *path, ddio_err *e);
/* The stream's error flag (a failed fwrite / fputs) is reported here. */
int ddio_outfile_commit(ddio_outfile *o, ddio_err *e);
void ddio_outfile_abort(ddio_outfile *o);

#endif
