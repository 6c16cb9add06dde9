/* outfile.h - an output file written whole or not at all.
 *
 * ddio_outfile_open follows PATH's symbolic links to the file they name
 * (the target: a link given to -o is followed, not replaced) and then:
 *   - a regular file, or none yet: creates TARGET.tmpXXXXXX beside the
 *     target, with the target's mode (and owner, where the process may set
 *     it) when it exists, else the mode a plain fopen would give (0666 less
 *     the umask); ddio_outfile_commit renames it over the target, so that
 *     readers never see a half-written file;
 *   - anything else but a directory (a FIFO, a character device such as
 *     /dev/null): opens it and writes to it directly, since renaming a
 *     file over it would replace the device or pipe itself (a FIFO's open
 *     waits for a reader, as a shell's redirection does);
 *   - a directory: refused, "PATH: is a directory" (exit 2).
 * The caller writes to f; ddio_outfile_commit closes it (and renames the
 * temporary into place), ddio_outfile_abort closes it and removes the
 * temporary.  Either one releases everything, also on error, so a failed
 * run never leaves a half-written file.  A temporary is also removed when
 * the process is killed by SIGINT, SIGTERM or SIGHUP while it exists (see
 * outfile.c): only an uncatchable SIGKILL or a crash leaves one.  A NULL
 * path writes to stdout: commit flushes it. */
#ifndef DDIOSIM_COMMON_OUTFILE_H
#define DDIOSIM_COMMON_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "sim/common/err.h"

typedef struct ddio_outfile {
    FILE *f;
    char *path;                 /* a copy of the path given, for messages; NULL: stdout */
    char *target;               /* the file written: path with its symbolic links followed */
    char *tmp;                  /* the temporary renamed over target; NULL: stdout or written in place */
} ddio_outfile;

int ddio_outfile_open(ddio_outfile *o, const char *path, ddio_err *e);
/* The stream's error flag (a failed fwrite / fputs) is reported here. */
int ddio_outfile_commit(ddio_outfile *o, ddio_err *e);
void ddio_outfile_abort(ddio_outfile *o);

/* A file a command reads or writes, with the option that named it. */
typedef struct ddio_file_arg {
    const char *opt;            /* "-o", "--timeline", "--trace", "TRACE"...; NULL ends a list */
    const char *path;           /* NULL or "-" (stdin / stdout): skipped */
} ddio_file_arg;

/* The checks a command makes before it runs, so that a mistake fails at
 * once instead of after the run or by destroying an input: an output
 * that is a directory ("PATH: is a directory"), two outputs that are the
 * same file (the report would be lost), an output that is one of the
 * inputs (the run would overwrite what it reads).  "The same file": the
 * same regular file (device and inode) when both exist, else the same path
 * once symbolic links and the directory are resolved; a device or a FIFO
 * (-o /dev/null twice, a terminal as /dev/stdin and /dev/stdout) is no
 * conflict.  `outs` and `ins` end with an entry
 * whose opt is NULL (ins may be NULL).  0, or -1 with e filled (exit 2). */
int ddio_outfile_check(const ddio_file_arg *outs, const ddio_file_arg *ins, ddio_err *e);

/* Run args[0] (found on PATH) with args, stdin from in_fd and stdout and
 * stderr to out_fd (-1: inherited), as a child that the cleanup signals
 * (SIGINT, SIGTERM, SIGHUP) kill and reap before they remove the
 * temporaries, so that it neither outlives the process nor writes into a
 * temporary after its removal.  Its pid, or -1 with errno set.  A program
 * that cannot be run exits with status 127. */
pid_t ddio_spawn(char *const args[], int in_fd, int out_fd);
/* Wait for a child of ddio_spawn: its exit status, or -1 when it did not
 * exit (killed by a signal) or could not be waited for. */
int ddio_spawn_wait(pid_t pid);

/* Write all n bytes of s to fd, retrying short writes and EINTR: 0, or -1
 * with errno set.  (A sweep appends each row with one call: whole lines.) */
int ddio_write_all(int fd, const char *s, size_t n);

#endif
