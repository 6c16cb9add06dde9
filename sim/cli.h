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
#include "sim/common/outfile.h"
#include "sim/queue/dsim.h"

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
int cmd_validate(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* Print "ddiosim: <msg>" on stderr and return e->exit_code. */
int cli_fail(const ddio_err *e);

/* A bad option value found while parsing `cmd`'s options: print
 * "ddiosim <cmd>: <msg>" (one line, no usage: the option was understood,
 * its value was not) and return e->exit_code (2). */
int cli_value_error(const char *cmd, const ddio_err *e);

/* Report an unknown/missing option for `cmd`, print its usage, return 2. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write `text` to `path` atomically (temp file + rename), or to stdout when
 * path is NULL or "-".  A failed run never leaves a half-written file. */
int cli_write_output(const char *path, const char *text, ddio_err *e);

/* path as given to -o: NULL or "-" is stdout (NULL for ddio_outfile_open). */
const char *cli_out_path(const char *path);

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
 * options) and returns exit code 0; -2 (a usage mistake: unknown or missing
 * option, stray argument) reports e with the usage and returns 2; -1 (a bad
 * value) reports e on one line and returns its exit code; 0 resolves the configuration into *out and returns -1
 * (go on), or reports the error and returns its exit code. */
int cli_config_finish(const char *cmd, const char *usage_head, int parse_rc, const ddio_config_args *a,
                      ddio_config *out, ddio_err *e);

enum { CLI_OPT_DONE = 0, CLI_OPT_HELP = 1, CLI_OPT_BAD_VALUE = -1, CLI_OPT_USAGE = -2 };
/* CLI_OPT_DONE: handled; CLI_OPT_HELP: --help; CLI_OPT_BAD_VALUE: a bad
 * --format value; CLI_OPT_USAGE: a missing value or an unknown option (the
 * caller shows its usage).  Errors are in e. */
int cli_common_option(int c, char **argv, cli_common *cc, ddio_err *e);

/* The traffic and simulator-run options of `simulate` and `predict
 * --from-sim` (sim/cli_sim.c), so that predict can run the very simulation
 * simulate ran.  Put CLI_SIM_LONGOPTS(base) in the getopt_long table and
 * offer each option to cli_sim_option: 1 when it was one of them, 0 when
 * not, -1 with e filled for a bad value ("--NAME: ..."). */
enum cli_sim_opt {
    CLI_SIM_OPT_TRACE = 0, CLI_SIM_OPT_PROFILE, CLI_SIM_OPT_FLOWS, CLI_SIM_OPT_ALL, CLI_SIM_OPT_PKT_SIZE,
    CLI_SIM_OPT_RATE, CLI_SIM_OPT_PACKETS, CLI_SIM_OPT_SEED, CLI_SIM_OPT_WARMUP, CLI_SIM_OPT_NO_DESC,
    CLI_SIM_OPT_NIC_BUFFER, CLI_SIM_NOPTS
};

#define CLI_SIM_LONGOPTS(base)                                                   \
    {"trace", required_argument, 0, (base) + CLI_SIM_OPT_TRACE},                 \
    {"profile", required_argument, 0, (base) + CLI_SIM_OPT_PROFILE},             \
    {"flows", required_argument, 0, (base) + CLI_SIM_OPT_FLOWS},                 \
    {"all", no_argument, 0, (base) + CLI_SIM_OPT_ALL},                           \
    {"pkt-size", required_argument, 0, (base) + CLI_SIM_OPT_PKT_SIZE},           \
    {"rate", required_argument, 0, (base) + CLI_SIM_OPT_RATE},                   \
    {"packets", required_argument, 0, (base) + CLI_SIM_OPT_PACKETS},             \
    {"seed", required_argument, 0, (base) + CLI_SIM_OPT_SEED},                   \
    {"warmup", required_argument, 0, (base) + CLI_SIM_OPT_WARMUP},               \
    {"no-desc", no_argument, 0, (base) + CLI_SIM_OPT_NO_DESC},                   \
    {"nic-buffer", required_argument, 0, (base) + CLI_SIM_OPT_NIC_BUFFER}

/* What those options asked for.  d.src.trace and d.src.profile stay NULL
 * unless given: the commands pick their default source differently. */
typedef struct cli_sim {
    dsim_options d;
    int rate_set;               /* --rate given */
    uint64_t min_packets;       /* the command's lower bound for --packets */
} cli_sim;

/* dsim_options_default, then the command's own defaults, which differ:
 * packets (0 = the whole trace), the least --packets accepted, and the rate
 * (0 = the trace's timing, -1 = max). */
void cli_sim_init(cli_sim *s, uint64_t packets, uint64_t min_packets, double rate_gbps);
int cli_sim_option(int c, int base, cli_sim *s, ddio_err *e);
/* After the options: 0, or -1 (usage error) when --trace and --profile are
 * both given. */
int cli_sim_check(const cli_sim *s, ddio_err *e);

#endif
