/* infile.h - opening an input file the same way everywhere.
 *
 * Every reader of a file named on the command line or by a config (pcap
 * and din traces, machine and workload files, measured data) opens it
 * here, so that one mistake gets one message and one exit code wherever
 * it is made.  A directory is refused at once, "PATH: is a directory":
 * fopen accepts one on Linux and only the first read fails, which each
 * reader would word differently ("read error", exit 1).
 * A file that cannot be opened is "PATH: cannot open: REASON". */
#ifndef DDIOSIM_COMMON_INFILE_H
#define DDIOSIM_COMMON_INFILE_H

#include <stdio.h>

#include "sim/common/err.h"

/* fopen(path, "rb"), or NULL with e filled: exit 2 (bad input: missing,
 * unreadable, a directory), or 1 when the system failed (EIO, out of
 * memory or file descriptors). */
FILE *ddio_open_input(const char *path, ddio_err *e);

/* ddio_open_input for a measured-data file, which is a record on disk:
 * anything but a regular file (a FIFO, /dev/zero, a terminal) is refused
 * before it is opened, "PATH: not a regular file", so that a wrong path
 * can neither block the open nor be read forever; so is a file larger
 * than max_bytes, "PATH: larger than N bytes".  Exit 2 for both. */
FILE *ddio_open_data(const char *path, long long max_bytes, ddio_err *e);

/* The whole of the open stream f (named `path`), read to its end, not to
 * the size stat gives (a /proc file says 0; a file may grow while read):
 * a malloc'ed text of *len bytes plus a NUL, f closed in every case.  NULL
 * with e filled: more than max_bytes, "PATH: larger than N bytes" followed
 * by `why` ("" or the caller's reason), exit 2; a read error, "PATH: read
 * error", or no memory, exit 1. */
char *ddio_read_all(FILE *f, const char *path, size_t max_bytes, const char *why, size_t *len, ddio_err *e);

#endif
