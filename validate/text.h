/* text.h - line splitting and file errors shared by the measured-data
 * readers, and the text buffer and CSV field of the writers (private to
 * validate/ and sim/explore/). */
#ifndef DDIOSIM_VALIDATE_TEXT_H
#define DDIOSIM_VALIDATE_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "sim/common/err.h"

/* s without leading and trailing blanks (cut in place). */
char *vd_trim(char *s);

/* Split s at commas, in place, into trimmed fields; stores at most `max`
 * of them in f and returns how many there are. */
size_t vd_split_fields(char *s, char **f, size_t max);

/* Reading a text file line by line: set f and path, the rest to 0. */
typedef struct vd_lines {
    FILE *f;
    const char *path;
    char *buf;              /* getline's buffer: free it when done */
    size_t cap;
    unsigned long line;     /* number of the line last returned */
} vd_lines;

/* The next line, trimmed; NULL at the end of the file (*rc = 0) or on an
 * error (*rc = -1, e filled: "PATH:LINE: NUL byte in a text file", exit 2;
 * a read error, exit 1). */
char *vd_next_line(vd_lines *r, int *rc, ddio_err *e);

/* A growing text buffer: zero-initialise it, append with vd_bprintf; on
 * out-of-memory `oom` is set and later appends do nothing.  The caller
 * frees `data`. */
typedef struct vd_buf {
    char *data;
    size_t len, cap;
    int oom;
} vd_buf;
void vd_bprintf(vd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append t as one CSV field (RFC 4180), for every CSV ddiosim writes: in
 * double quotes, quotes doubled, when it holds a comma or a quote, or
 * always when `always` (free text such as an error message, so that a
 * reader sees at once that it is text).  A line break is written as a
 * space: every record stays one line, for line readers (plot, --resume,
 * grep).  The caller writes the separating commas. */
void vd_csv_field(vd_buf *b, const char *t, int always);

#endif
