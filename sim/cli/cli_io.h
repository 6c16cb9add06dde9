/* cli_io.h - where a command's document and messages go.
 *
 * The commands the library offers (predict, simulate, cache-replay,
 * validate; sim/api/) run as `cmd_NAME_io(argc, argv, io)`.  With io NULL
 * they are the CLI: the document goes to -o or stdout, errors and warnings
 * to stderr as "ddiosim CMD: ...".  With an io they print nothing: the
 * document goes to io->out (-o is ignored), the one-line error to io->err,
 * warnings to io->warn, and no progress bar is drawn.  The command builds
 * the same document either way, so that the library returns exactly what
 * the CLI writes. */
#ifndef DDIOSIM_CLI_IO_H
#define DDIOSIM_CLI_IO_H

#include <stdio.h>

#include "sim/cli/cli.h"

typedef struct cli_io {
    strbuf out;                 /* the document */
    strbuf warn;                /* warnings, one line each ending in '\n' */
    char err[sizeof(((ddio_err *)0)->msg) + 64];   /* the error, one line (no "ddiosim CMD: ") */
    char *mem;                  /* an outfile in memory (cli_io_open) */
    size_t mem_len;
} cli_io;

/* Release what io holds (not io itself). */
void cli_io_free(cli_io *io);

/* cli_fail, cli_value_error and cli_parse_outcome, into io when there is
 * one (--help then gives its text as the document).  Same returns. */
int cli_io_fail(cli_io *io, const char *cmd, const ddio_err *e);
int cli_io_value_error(cli_io *io, const char *cmd, const ddio_err *e);
int cli_io_parse_outcome(cli_io *io, const char *cmd, int parse_rc, const char *help, const ddio_err *e);

/* cli_config_finish with its messages into io. */
int cli_io_config_finish(cli_io *io, const char *cmd, const char *help, int parse_rc, const ddio_config_args *a,
                         ddio_config *out, ddio_err *e);

/* An error or a warning line "ddiosim CMD: ..." on stderr, or into
 * io->err (error) / io->warn (warning) without the prefix. */
void cli_io_error(cli_io *io, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cli_io_warn(cli_io *io, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* cli_write_output, or text appended to io->out. */
int cli_io_write(cli_io *io, const char *path, const char *text, ddio_err *e);

/* ddio_outfile_open / _commit / _abort, or a stream in memory whose text
 * the commit appends to io->out. */
int cli_io_open(cli_io *io, ddio_outfile *o, const char *path, ddio_err *e);
int cli_io_commit(cli_io *io, ddio_outfile *o, ddio_err *e);
void cli_io_abort(cli_io *io, ddio_outfile *o);

/* The commands with an io (cmd_NAME(argc, argv) is cmd_NAME_io(argc, argv,
 * NULL)): the process exit code (enum ddio_exit). */
int cmd_predict_io(int argc, char **argv, cli_io *io);
int cmd_simulate_io(int argc, char **argv, cli_io *io);
int cmd_cache_replay_io(int argc, char **argv, cli_io *io);
int cmd_validate_io(int argc, char **argv, cli_io *io);

/* Whether a progress bar may be drawn: the CLI's stderr is a terminal. */
int cli_io_tty(const cli_io *io);

#endif
