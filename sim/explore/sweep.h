/* sweep.h - a design-space sweep: a base configuration and parameter axes
 * whose cartesian product (less the points a filter drops) is the grid
 * `ddiosim sweep` computes with validate's point runner (runner.h).
 *
 * The spec is JSON (docs/sweep.md):
 *   { "machine": "skylake-6140", "workload": "l2fwd",
 *     "fixed": { "pkt_size": 1500, "rate": "max" },
 *     "grid":  { "rx_ring": {"pow2": [128, 4096]},
 *                "ddio_ways": {"range": [2, 11]},
 *                "cores": [1, 2, 4] },
 *     "filter": "ddio_ways <= 4 || rx_ring <= 1024" }
 * Parameters are validate's (the simulate / predict option names with
 * underscores, vd_param_find).  An axis is a list of values, a linear range
 * [lo, hi] or [lo, hi, step] (inclusive), or a power-of-two range.
 *
 * Every grid point has a stable id: a hash of its parameters by name, so
 * that it does not depend on the order of the axes or on the other points. */
#ifndef DDIOSIM_EXPLORE_SWEEP_H
#define DDIOSIM_EXPLORE_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"
#include "validate/experiment.h"
#include "validate/figure.h"
#include "sim/explore/runner.h"

#define SW_MAX_POINTS 10000000u   /* grid points before the filter */
#define SW_MAX_VALUES 100000u     /* values of one axis */

typedef struct sw_expr sw_expr;   /* a compiled filter (sweep_expr.c) */

typedef struct sw_axis {
    char name[VD_NAME_LEN];
    size_t n;
    vd_param *v;                /* n values; owned */
} sw_axis;

typedef struct sw_spec {
    char file[512];             /* for messages */
    char machine[512];          /* "" = the built-in default */
    char workload[512];
    uint32_t n_fixed;
    vd_param fixed[VD_MAX_PARAMS];
    uint32_t n_axes;
    sw_axis axis[VD_MAX_PARAMS];
    char filter[512];           /* "" = none */
    sw_expr *expr;              /* compiled filter, NULL if none */
    size_t n_grid;              /* product of the axes' sizes */
    uint64_t hash;              /* of everything above that decides a point's result,
                                   but the machine's and workload's names */
    uint64_t config_hash;       /* of what the machine and workload hold (sw_spec_check) */
} sw_spec;

/* Parse the spec text (`file` names it in messages).  Errors are one line,
 * "FILE: json.path: problem", exit code 2: a malformed document, an unknown
 * key or parameter, a value of the wrong type, an empty range, a parameter
 * given twice, a filter naming a parameter the grid does not set. */
int sw_spec_parse(const char *text, const char *file, sw_spec *s, ddio_err *e);
/* The checks of a parsed spec against the run's options, before anything
 * runs or any file is created (sweep and advise).  Its machine and workload
 * load (errors name the spec's key: "FILE: machine: unknown machine 'x'
 * (known: ...)"); no --set sets a field a parameter of the spec sets
 * ("--set machine.llc.policy=srrip: FILE: grid.policy sets the same
 * field"); s->config_hash: a hash of the machine and workload as loaded
 * (their JSON), so that a resumed run sees an edited machine file. */
int sw_spec_check(sw_spec *s, const runner_opts *o, ddio_err *e);
/* The text of the spec file at `path` (at most 1 MiB, no NUL byte),
 * malloc'ed; NULL with e filled. */
char *sw_read_spec(const char *path, ddio_err *e);
void sw_spec_free(sw_spec *s);

/* The parameters of grid point k (0 <= k < n_grid, the last axis varying
 * fastest): the fixed ones, then one per axis; returns their count. */
uint32_t sw_point_params(const sw_spec *s, size_t k, vd_param *out);

/* 1 when the filter keeps the point (always, without a filter). */
int sw_point_selected(const sw_spec *s, const vd_param *p, uint32_t n);

/* The point's id: FNV-1a of "name=value\n" over its parameters sorted by
 * name, values as vd_param_format prints them. */
uint64_t sw_point_id(const vd_param *p, uint32_t n);

/* --- results files (sweep_out.c) ------------------------------------------
 * CSV: a comment line naming the run (`# ddiosim sweep 1 run=HASH engine=E
 * packets=N seed=S`), the column names, then a row per point: its id (16
 * hex digits), its parameters, status (ok | error), the error message, and
 * the outputs of the engines run.  JSONL: a first object naming the run,
 * then an object per point.  A row is always one whole line; a point that
 * failed is a row with status error.  The run hash covers the spec, what
 * its machine and workload hold (config_hash: not their names or paths),
 * the engines, the simulator's packets and seed, the model's iteration cap
 * and every --set.  NPF: NPF's --single-output layout (a pandas CSV, read
 * by pandas and by validate's "format": "single-output" as it is): the
 * column line alone, then a row per point: index and test_index (the id),
 * build "ddiosim", the parameters, the outputs, status, error, run_index
 * 0.  It names no run, so it is not resumed (sw_resume_scan: CSV, JSONL). */
enum sw_format { SW_CSV = 0, SW_JSONL, SW_NPF };

uint64_t sw_run_hash(const sw_spec *s, const runner_opts *o);
/* "sim", "model" or "both": the engines as a results file names them. */
const char *sw_engine_word(int engines);
/* The header lines of a results file (malloc'ed; NULL: out of memory). */
char *sw_header(const sw_spec *s, const runner_opts *o, enum sw_format f);
/* The row of point (id, p[0..n)) with outcome r, its final newline
 * included (malloc'ed; NULL: out of memory). */
char *sw_row(const sw_spec *s, const runner_opts *o, enum sw_format f, uint64_t id, const vd_param *p, uint32_t n,
             const runner_outcome *r);

/* What a results file already holds. */
typedef struct sw_row_at {
    uint64_t id;
    long long offset;           /* where its line starts */
    size_t len;                 /* with its newline */
    int failed;                 /* status error */
} sw_row_at;
typedef struct sw_done {
    sw_row_at *row;             /* its whole rows, in file order (malloc'ed) */
    size_t n, cap, n_failed;
    long long good_bytes;       /* its length up to the end of the last whole line */
} sw_done;
/* Read the results file at `path` for a resumed run whose header is
 * `header`.  On success (0): the whole rows, and the length of the whole
 * lines, good_bytes, which is 0 (an empty file, or the start of `header` cut
 * anywhere by a kill: started again) or at least the header's length; past good_bytes there is
 * at most a cut last line that is the start of the header or of a row (16
 * hex digits): the caller cuts it.  Errors (exit 2), nothing to cut: a
 * header that is not exactly `header` (another spec or other options), a
 * line that is not a row, a cut last line that is neither (not a results
 * file).  Any bytes give one of these (the fuzz target's invariant). */
int sw_resume_scan(const char *path, const char *header, enum sw_format f, sw_done *out, ddio_err *e);
/* Release what sw_resume_scan returned; d is left empty. */
void sw_done_free(sw_done *d);

/* --- the sidecar (sweep_meta.c) -------------------------------------------
 * A results file OUT has OUT.meta.json beside it: the ddiosim version and
 * command line that made it, and the run it belongs to (the hash of the
 * spec and options, engines, packets, seed), so that OUT itself is a plain
 * table (a CSV loads in pandas or a spreadsheet as it is).  A CSV is
 * resumed when its sidecar names this run; a CSV written before sidecars
 * (its first line "# ddiosim sweep 1 run=...", its columns under their old
 * names: sim/common/names.h) is resumed when that line names this run and
 * its columns are this run's under their current names. */

/* The sidecar's text (malloc'ed; NULL: out of memory). */
char *sw_meta_json(const sw_spec *s, const runner_opts *o, enum sw_format f, const char *command);
/* The header lines an existing CSV must start with to be resumed: `header`
 * when its sidecar names this run, else the old comment and column lines
 * when it is a file of an older version of this run (*legacy = 1: it keeps
 * them, and gets no sidecar).  *use is malloc'ed.  0, or -1 with e filled
 * (exit 2: another run's file, or not a sweep's). */
int sw_resume_header(const char *path, const sw_spec *s, const runner_opts *o, const char *header, char **use,
                     int *legacy, ddio_err *e);

/* --- results tables (sweep_plot.c) ---------------------------------------
 * A CSV results file as `plot` reads it: RFC 4180 fields (a quoted field
 * may hold commas, "" for a quote and line breaks), lines ending in LF or
 * CRLF, `#` lines and blank lines skipped.  The header starts with `id`
 * and has a `status` column; the columns between them are the
 * parameters. */
#define SW_TABLE_MAX_COLS 128
#define SW_RESULTS_MAX_BYTES (64ll << 20)   /* plot refuses a larger file */
typedef struct sw_table {
    size_t ncol, nrow;
    char *col[SW_TABLE_MAX_COLS];
    char **cell;                /* nrow x ncol, pointers into text */
    size_t *line;               /* the line each row starts on */
    size_t first_param, n_param;   /* the parameter columns: after id, before status */
    int status;                 /* column of status */
    size_t header_line;         /* the line of the header */
    size_t cut_line;            /* 0, or the line of a last row cut short (no end of line): left out */
    char *text;
} sw_table;

/* Parse `text` (len bytes, text[len] == '\0', malloc'ed: t owns it from
 * the call on, also on error) named `name` in messages.  0, or -1 with e
 * filled, exit 2: "NAME:LINE: what is wrong" (a NUL byte, a field count
 * that is not the header's, text after a closing quote, no header, more
 * than SW_TABLE_MAX_COLS columns), and t empty.  A last row without its
 * end of line (a run killed mid-write) is not a row: t->cut_line says
 * where it was. */
int sw_table_parse(char *text, size_t len, const char *name, sw_table *t, ddio_err *e);
/* Read and parse the regular file `path`, of at most SW_RESULTS_MAX_BYTES
 * (anything else is refused, exit 2, without blocking on a FIFO). */
int sw_table_load(const char *path, sw_table *t, ddio_err *e);
/* Release a table (its text too); t is left empty. */
void sw_table_free(sw_table *t);

/* --- plots (sweep_plot.c) --------------------------------------------------
 * One metric column (y) of a CSV results file against one parameter (x),
 * a line per value of `series`, the model's bounds as a band when y is a
 * model hit rate, or a heat map of y over x and `heatmap`; only rows with
 * status ok and every `where` (PARAM=VALUE); every other parameter must be
 * the same on those rows.  Hit rates are drawn in %.  The axes are
 * labelled in words with units (validate/label.h) unless xlabel / ylabel
 * say otherwise; title (may be NULL) above.  Drawn by gnuplot as `out`
 * says (validate/figure.h: the file, its size and font, the saved
 * script), whole or not at all.  Errors (exit 2): a column that is not
 * there (the message lists those that are), a parameter that varies
 * unplotted, no point to draw, a drawn text (column name, value, title,
 * label) with a control character.  A last row cut short is left out:
 * `warn` (may be NULL) then says so (warn->msg empty: nothing to say). */
#define SW_PLOT_MAX_WHERE 8
typedef struct sw_plot_opts {
    const char *x, *y, *series, *heatmap;
    const char *where[SW_PLOT_MAX_WHERE];
    int n_where;
    const char *title, *xlabel, *ylabel;   /* NULL: none / the columns' words */
} sw_plot_opts;
int sw_plot(const char *results, const sw_plot_opts *o, const vd_fig_out *out, ddio_err *warn, ddio_err *e);

/* --- filter expressions (sweep_expr.c) ------------------------------------
 * Numbers, parameter names, ( ), unary - and !, * / %, + -, < <= > >= ==
 * !=, && and ||, with C's precedence; a comparison or a logical operator
 * gives 1 or 0, and a point is kept when the value is neither 0 nor NaN
 * (a word parameter such as policy has no number: NaN).  A name must
 * be one of `names` (the numeric parameters of the grid). */
int sw_expr_compile(const char *text, const char *const *names, size_t n_names, sw_expr **out, char *msg,
                    size_t cap);
/* The value of x where names[i] (as compiled) has value vals[i]. */
double sw_expr_eval(const sw_expr *x, const double *vals);
void sw_expr_free(sw_expr *x);

#endif
