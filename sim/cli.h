/* cli.h - the glue shared by ddiosim's subcommands.
 *
 * Each subcommand lives in its own sim/cmd_*.c file and exposes one
 * `int cmd_NAME(int argc, char **argv)` returning a process exit code
 * (enum ddio_exit).  argv[0] is the subcommand name. */
#ifndef DDIOSIM_CLI_H
#define DDIOSIM_CLI_H

#include <stdio.h>
#include "configs/config.h"
#include "sim/common/err.h"

typedef struct ddio_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} ddio_cmd;

/* Subcommands (one file each). */
int cmd_cache_replay(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_rss(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_predict(int argc, char **argv);

/* Print "ddiosim: <msg>" on stderr and return e->exit_code. */
int cli_fail(const ddio_err *e);

/* Report an unknown/missing option for `cmd`, print its usage, return 2. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write `text` to `path` atomically (temp file + rename), or to stdout when
 * path is NULL or "-".  A failed run never leaves a half-written file. */
int cli_write_output(const char *path, const char *text, ddio_err *e);

/* Growable string buffer for building table/JSON output before writing. */
typedef struct strbuf {
    char *data;
    size_t len, cap;
} strbuf;
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(strbuf *sb);

enum output_format { FMT_TABLE, FMT_JSON };
/* Parse "json" / "table". */
int cli_parse_format(const char *s, enum output_format *out, ddio_err *e);

/* The options every subcommand takes: put CLI_COMMON_LONGOPTS in the
 * getopt_long table (short options ":ho:") and hand every option the
 * subcommand does not know to cli_common_option, which also turns getopt's
 * ':' and '?' into errors. */
#define CLI_OPT_FORMAT 0x7F00
#define CLI_COMMON_LONGOPTS                                       \
    {"format", required_argument, 0, CLI_OPT_FORMAT},             \
    {"output", required_argument, 0, 'o'},                        \
    {"help", no_argument, 0, 'h'}

typedef struct cli_common {
    enum output_format fmt;     /* --format (table) */
    const char *out;            /* -o/--output, NULL = stdout */
} cli_common;

/* Subcommands that take the configuration options (--machine, --rx-ring,
 * --set ...) put DDIO_CONFIG_LONGOPTS(base) in their table and offer each
 * option to cli_config_option first: 1 when it was one of them, 0 when not,
 * -1 with e filled for a bad value. */
int cli_config_option(int c, int base, ddio_config_args *a, ddio_err *e);

/* After parsing: parse_rc 1 prints the usage (usage_head + the configuration
 * options) and returns exit code 0; a negative parse_rc reports e with the
 * usage and returns 2; 0 resolves the configuration into *out and returns -1
 * (go on), or reports the error and returns its exit code. */
int cli_config_finish(const char *cmd, const char *usage_head, int parse_rc, const ddio_config_args *a,
                      ddio_config *out, ddio_err *e);

enum { CLI_OPT_DONE = 0, CLI_OPT_HELP = 1, CLI_OPT_BAD_VALUE = -1, CLI_OPT_USAGE = -2 };
/* CLI_OPT_DONE: handled; CLI_OPT_HELP: --help; CLI_OPT_BAD_VALUE: a bad
 * --format value; CLI_OPT_USAGE: a missing value or an unknown option (the
 * caller shows its usage).  Errors are in e. */
int cli_common_option(int c, char **argv, cli_common *cc, ddio_err *e);

#endif
