/* cli.h - the glue shared by ddiosim's subcommands.
 *
 * Each subcommand lives in its own sim/cli/cmd_*.c file and exposes one
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
int cmd_calibrate(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* Every error of subcommand `cmd` ("simulate", "trace gen") is one line on
 * stderr that starts with "ddiosim CMD: ".  Three kinds:
 *   cli_fail         a run-time error (a file, the run, a write); exit code
 *                    e->exit_code, 1 (I/O) when unset;
 *   cli_value_error  a bad value of an option that was understood, or a bad
 *                    configuration file or field; exit code 2 when unset;
 *   cli_usage_error  a usage mistake (unknown option, missing value, missing
 *                    or stray argument): the message, then where the options
 *                    are listed: "(see 'ddiosim CMD --help')"; exit code 2.
 * Each returns the exit code. */
int cli_fail(const char *cmd, const ddio_err *e);

/* A progress bar on stderr, for the commands that run many points
 * (sweep, validate, advise): "CMD [phase] [####    ] done/total points
 * rate/s ETA s", redrawn at most every 0.1 s and at the last point (then a
 * newline); a new phase starts a new bar.  Draws only when stderr is a
 * terminal (cli_progress_init checks).  Its callback has runner_opts'
 * progress signature. */
/* Seconds on the monotonic clock (for elapsed times only). */
double cli_now_s(void);

typedef struct cli_progress {
    const char *cmd;
    int tty;
    const char *phase;
    double t0, last;
} cli_progress;
void cli_progress_init(cli_progress *p, const char *cmd);
void cli_progress_point(void *ctx, const char *phase, size_t done, size_t total);
int cli_value_error(const char *cmd, const ddio_err *e);
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The outcome of a subcommand's option parser (1 help, 0 go on, -1 a bad
 * value, -2 a usage mistake, as cli_common_option): prints `help` on stdout
 * for 1 and the error of e for -1 / -2.  Returns -1 to go on (parse_rc 0),
 * else the exit code. */
int cli_parse_outcome(const char *cmd, int parse_rc, const char *help, const ddio_err *e);

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

/* One option of a --help: "  --opt ARG         text (def)", the text from
 * column 20, wrapped below 80 columns; def NULL or "" for no default. */
void cli_help_line(strbuf *sb, const char *opt, const char *text, const char *def);

/* The three hit rates of the model and the simulator, and whether a
 * workload mode has them: a receive-only workload never sends (no PCIe
 * read of a packet), a send-only one never receives (no PCIe write of a
 * packet, no first core access to one).  A rate a run does not have is
 * printed "n/a" in a table and null in JSON, never 0 / 0. */
enum cli_rate { CLI_RATE_PCIE_WRITE, CLI_RATE_PCIE_READ, CLI_RATE_CPU_FIRST };
int cli_mode_has_rate(enum ddio_mode m, enum cli_rate r);
/* v as a percentage with 2 decimals ("%*.2f%%", `width` characters in all),
 * or "n/a" right-aligned in as many when !ok; returns buf. */
const char *cli_pct(char *buf, size_t n, int width, double v, int ok);
/* Add name: v to a cJSON object, or name: null when !ok. */
struct cJSON;
void cli_json_rate(struct cJSON *o, const char *name, double v, int ok);

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
    int argc;                   /* the command's words, for the provenance of */
    char **argv;                /* a JSON output (cli_provenance) */
} cli_common;

/* A command's JSON text js (malloc'ed, consumed) with its provenance first:
 * "ddiosim": {"version", "command"}, the command ddiosim and argv[0..argc)
 * shell-quoted (after getopt: its options before its operands).  NULL when
 * out of memory. */
char *cli_provenance(char *js, int argc, char **argv);
/* The sidecar OUT.meta.json (ddio_sidecar_path) of the output `out`, or
 * NULL when it has none (stdout: out NULL or "-") or out of memory: the
 * path the checks before a run and cli_write_sidecar both use. */
char *cli_sidecar_of(const char *out);
/* OUT.meta.json beside the CSV file `out` (cli_sidecar_of), written
 * whole: {"ddiosim": {"version", "command"}}.  Nothing for stdout (out
 * NULL or "-").  0, or -1 with e filled. */
int cli_write_sidecar(const char *out, int argc, char **argv, ddio_err *e);

/* Subcommands that take the configuration options (--machine, --rx-ring,
 * --set ...) put DDIO_CONFIG_LONGOPTS(base) in their table and offer each
 * option to cli_config_option first: 1 when it was one of them, 0 when not,
 * -1 with e filled for a bad value. */
int cli_config_option(int c, int base, ddio_config_args *a, ddio_err *e);

/* The help of those options, each with its default: the value of the
 * built-in configuration (ddio_config_default), so that it cannot drift
 * from what a run uses. */
void cli_config_usage(strbuf *sb);

/* After parsing: cli_parse_outcome (1: `help` on stdout, exit 0; -1 / -2:
 * the error, exit 2), then for 0 the configuration resolved into *out:
 * returns -1 (go on), or reports the error on one line and returns its
 * exit code. */
int cli_config_finish(const char *cmd, const char *help, int parse_rc, const ddio_config_args *a,
                      ddio_config *out, ddio_err *e);

/* The files a resolved configuration was read from, as the inputs of
 * ddio_outfile_check: `extra` (a trace; may be {0}), the machine and
 * workload files and every --overlay, into ins[0..max-1], ended by {0}.
 * An output that names one of them is refused before anything is written. */
void cli_config_inputs(const ddio_config_args *a, const ddio_config *c, ddio_file_arg extra, ddio_file_arg *ins,
                       size_t max);

enum { CLI_OPT_DONE = 0, CLI_OPT_HELP = 1, CLI_OPT_BAD_VALUE = -1, CLI_OPT_USAGE = -2 };
/* CLI_OPT_DONE: handled; CLI_OPT_HELP: --help; CLI_OPT_BAD_VALUE: a bad
 * --format value; CLI_OPT_USAGE: a missing value or an unknown option (the
 * caller shows its usage).  Errors are in e. */
int cli_common_option(int c, char **argv, cli_common *cc, ddio_err *e);

/* The traffic and simulator-run options of `simulate` and `predict`
 * (sim/cli/cli_sim.c), so that predict can run the very simulation simulate
 * ran.  Put CLI_SIM_LONGOPTS(base) in the getopt_long table and offer each
 * option to cli_sim_option: 1 when it was one of them, 0 when not, -1 with
 * e filled for a bad value ("--NAME: ..."). */
enum cli_sim_opt {
    CLI_SIM_OPT_TRACE = 0, CLI_SIM_OPT_PROFILE, CLI_SIM_OPT_FLOWS, CLI_SIM_OPT_FLOW_BURST, CLI_SIM_OPT_GEN_THREADS,
    CLI_SIM_OPT_FLOW_TUPLES,    CLI_SIM_OPT_ALL, CLI_SIM_OPT_PKT_SIZE,
    CLI_SIM_OPT_RATE, CLI_SIM_OPT_PACKETS, CLI_SIM_OPT_SEED, CLI_SIM_OPT_WARMUP, CLI_SIM_OPT_NO_DESC,
    CLI_SIM_OPT_NIC_BUFFER, CLI_SIM_NOPTS
};

#define CLI_SIM_LONGOPTS(base)                                                   \
    {"trace", required_argument, 0, (base) + CLI_SIM_OPT_TRACE},                 \
    {"profile", required_argument, 0, (base) + CLI_SIM_OPT_PROFILE},             \
    {"flows", required_argument, 0, (base) + CLI_SIM_OPT_FLOWS},                 \
    {"flow-burst", required_argument, 0, (base) + CLI_SIM_OPT_FLOW_BURST},       \
    {"gen-threads", required_argument, 0, (base) + CLI_SIM_OPT_GEN_THREADS},     \
    {"flow-tuples", required_argument, 0, (base) + CLI_SIM_OPT_FLOW_TUPLES},     \
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
    int given[CLI_SIM_NOPTS];   /* which options were given */
    /* The command's words after an option's default in its help (NULL:
     * none), e.g. where its default source differs. */
    const char *note[CLI_SIM_NOPTS];
} cli_sim;

/* dsim_options_default, then the command's own defaults, which differ:
 * packets (0 = the whole trace once, a profile PKTSRC_DEFAULT_PACKETS) and
 * the rate (0 = the trace's timing, -1 = max). */
void cli_sim_init(cli_sim *s, uint64_t packets, double rate_gbps);
int cli_sim_option(int c, int base, cli_sim *s, ddio_err *e);
/* After the options: 0, or -1 (e filled) when --trace and --profile are
 * both given, or when `runs` is 0 (predict without --from-sim) and an
 * option that only shapes a simulator run was given. */
int cli_sim_check(const cli_sim *s, int runs, ddio_err *e);
/* -1 (e filled) when the run reads `trace` (given, or the command's default;
 * NULL: generated traffic) and a generator-only option (--flow-burst,
 * --gen-threads, --flow-tuples) was given; else 0. */
int cli_sim_check_source(const cli_sim *s, const char *trace, ddio_err *e);
/* After the configuration is resolved: -1 (e filled) when --pkt-size or
 * --profile fixed:SIZE asks for frames larger than the workload's data room,
 * which the simulator's NIC drops (no scatter), so that both commands refuse
 * them alike; else 0. */
int cli_sim_check_frame(const cli_sim *s, const ddio_config *cfg, ddio_err *e);
/* A warning (one line, into w, else w[0] = 0) when --rate asks for more
 * than the NIC's link carries: frame bytes at most line rate x size /
 * (size + 24) for a fixed size (preamble, FCS and gap take the rest), at
 * most the line rate for any traffic.  The run then offers the line rate:
 * packets arrive back to back. */
void cli_sim_rate_warning(const cli_sim *s, const ddio_config *cfg, char *w, size_t cap);
/* The help of those options: one line each, with this command's defaults
 * (from s after cli_sim_init, and its notes).  predict passes
 * runs_only_with_from_sim 1 (the run options need --from-sim). */
void cli_sim_usage(strbuf *sb, const cli_sim *s, int runs_only_with_from_sim);

#endif
