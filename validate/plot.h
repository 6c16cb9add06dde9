/* plot.h - the validation plot: one row of panels per experiment (PCIe
 * write hits left, PCIe read hits right), the measured means with their
 * standard deviation as error bars, the simulator, and the model with its
 * LRU..BIP band, drawn by gnuplot into an SVG, PNG or PDF file; and the rules
 * every figure follows to hand gnuplot text from data files. */
#ifndef DDIOSIM_VALIDATE_PLOT_H
#define DDIOSIM_VALIDATE_PLOT_H

#include "sim/common/err.h"
#include "validate/report.h"
#include "validate/text.h"

#define VD_PLOT_MAX_EXPERIMENTS 64   /* panels' rows in one figure */

/* 0 when `gnuplot` runs (the plot can be drawn), else -1 with e filled.
 * `out` must end in .svg, .png or .pdf and hold no control character; `opt` is
 * the option that named it, for the messages ("-o", "--plot"). */
int vd_plot_check(const char *opt, const char *out, ddio_err *e);

/* 0 when the experiments can be drawn in one figure (at most
 * VD_PLOT_MAX_EXPERIMENTS, every name drawable: vd_gp_text_check), else
 * -1 with e filled (exit 2).  validate calls it before the run. */
int vd_plot_check_set(const vd_experiment *x, size_t n, ddio_err *e);

/* Text from a data file (a name, a column name, a cell) reaches gnuplot
 * only as a single-quoted string written by vd_gp_quotef: gnuplot performs
 * no backquote (`cmd`) or macro (@var) substitution and no backslash
 * processing in one, and '' stands for a quote.  The terminals are set
 * noenhanced, so no markup either.  A line break cannot be inside such a
 * string (it ends the command), so text with a control character (bytes
 * 0x01-0x1f, 0x7f) is refused: vd_gp_text_check returns 0 when s has none,
 * else -1 with e filled, exit 2: "WHERE: WHAT 'S' holds a control
 * character, which a figure cannot show" (control characters shown as \n,
 * \r, \t, \xNN). */
int vd_gp_text_check(const char *s, const char *where, const char *what, ddio_err *e);
/* s for a one-line message (cap >= 6): control characters as \n, \r, \t
 * or \xNN, cut to fit. */
void vd_gp_visible(const char *s, char *buf, size_t cap);
/* Append the printf-formatted text to b as a gnuplot single-quoted string. */
void vd_gp_quotef(vd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Draw s into `out` (--plot; as vd_figure_write writes, validate/figure.h):
 * a row per experiment, its PCIe write and read hits in words, the
 * measured points, the simulator, the model and its bounds in the key.  Returns 0 or -1 with
 * e filled (vd_plot_check_set's, gnuplot missing or failing, the file not
 * writable). */
int vd_plot(const vd_set *s, const char *out, ddio_err *e);

#endif
