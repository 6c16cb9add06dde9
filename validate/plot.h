/* plot.h - the validation plot: one row of panels per experiment (PCIe
 * write hits left, PCIe read hits right), the measured means with their
 * standard deviation as error bars, the simulator, and the model with its
 * LRU..BIP band, drawn by gnuplot into an SVG or PNG file. */
#ifndef DDIOSIM_VALIDATE_PLOT_H
#define DDIOSIM_VALIDATE_PLOT_H

#include "sim/common/err.h"
#include "validate/report.h"

/* 0 when `gnuplot` runs (the plot can be drawn), else -1 with e filled.
 * `out` must end in .svg or .png. */
int vd_plot_check(const char *out, ddio_err *e);

/* Run gnuplot on `body` (commands after the terminal and the output are
 * set: an SVG or PNG terminal of width x height pixels by out's extension;
 * data inline as datablocks) into `out`, written whole or not at all.
 * Returns 0 or -1 with e filled (out's name, gnuplot missing or failing
 * with the first line it printed, the file not writable). */
int vd_gnuplot(const char *body, int width, int height, const char *out, ddio_err *e);

/* Draw s into `out` (written whole or not at all).  Returns 0 or -1 with e
 * filled (gnuplot missing or failing, the file not writable). */
int vd_plot(const vd_set *s, const char *out, ddio_err *e);

#endif
