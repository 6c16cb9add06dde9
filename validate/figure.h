/* figure.h - how ddiosim writes a gnuplot figure: the figure file (SVG,
 * PNG or PDF, by its extension) at a size and a font size, and on request
 * the gnuplot script that drew it with its data file beside it, which draws
 * the same figure again with `gnuplot SCRIPT` (to edit it by hand).
 *
 * A figure is its data and its commands.  The data are one text of
 * columns, its data sets separated by two blank lines; the commands read
 * them through the string variable `data` (`plot data index 1 using 1:2`),
 * which names an inline datablock when ddiosim draws and the data file
 * when the saved script does, so both draw the same figure. */
#ifndef DDIOSIM_VALIDATE_FIGURE_H
#define DDIOSIM_VALIDATE_FIGURE_H

#include "sim/common/err.h"

/* Where and how a figure is written. */
typedef struct vd_fig_out {
    const char *opt, *path;          /* the figure, and the option (as typed) that named it */
    const char *script_opt, *script; /* also save the script there (NULL: no) */
    double width, height;            /* 0: the figure's default; pixels (.svg, .png) or inches (.pdf) */
    double font_pt;                  /* the font size in points; 0: 11 (.svg) or 10 (.png, .pdf) */
} vd_fig_out;

/* Parse the --size value `text` (WxH) for the figure `out`: whole pixels
 * from 64 to 20000 for .svg and .png, inches from 0.5 to 200 for .pdf.
 * 0, or -1 with e filled (exit 2) naming `opt` and the rule. */
int vd_fig_size_parse(const char *opt, const char *text, const char *out, double *w, double *h, ddio_err *e);
/* Parse the --font-size value `text`: points, 4 to 72.  0, or -1 with e
 * filled (exit 2). */
int vd_fig_font_parse(const char *opt, const char *text, double *pt, ddio_err *e);
/* The data file saved beside `script`: its name with the extension (of
 * the last path component) replaced by .dat, or .dat added.  "" when the
 * name does not fit in cap or would be the script itself (a .dat script). */
void vd_fig_data_path(const char *script, char *buf, size_t cap);

/* Draw the figure: gnuplot runs `cmds` on `data` (see above) into o->path,
 * at o's size or else default_w x default_h pixels (a PDF: 100 pixels to
 * the inch), written as every output is (through a symbolic link, whole
 * or not at all, its temporary removed and gnuplot killed by SIGINT /
 * SIGTERM / SIGHUP).  With o->script, the script and its data file are
 * written too, the same way, and only when the figure was drawn.  The
 * saved script reads its data file beside itself wherever gnuplot runs,
 * and writes the figure to o->path as given (from the folder gnuplot
 * runs in).  0, or -1 with e filled naming the option (a name with a
 * control character, gnuplot missing or failing with the first line it
 * printed, a file not writable). */
int vd_figure_write(const char *data, const char *cmds, int default_w, int default_h, const vd_fig_out *o,
                    ddio_err *e);

#endif
