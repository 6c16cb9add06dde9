/* figure.c - write a gnuplot figure, and its script on request
 * (validate/figure.h).
 *
 * ddiosim's own script reaches gnuplot on its stdin from an anonymous
 * file, its data inline as the datablock $data; gnuplot writes the figure
 * to the temporary of a ddio_outfile, renamed into place only when gnuplot
 * succeeded, so a failed or interrupted plot leaves nothing behind.  The
 * saved script differs only in its first lines: the figure's name as
 * given, and `data` naming the data file beside the script. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate/figure.h"

#include "sim/common/outfile.h"
#include "sim/common/parse.h"
#include "validate/plot.h"

#define DEFAULT_PX_PER_IN 100.0   /* a PDF's default size: the pixels' at 100 to the inch */

static int is_ext(const char *s, const char *ext)
{
    size_t n = strlen(s), k = strlen(ext);
    return n >= k && strcmp(s + n - k, ext) == 0;
}

int vd_fig_size_parse(const char *opt, const char *text, const char *out, double *w, double *h, ddio_err *e)
{
    int pdf = is_ext(out, ".pdf");
    double lo = pdf ? 0.5 : 64, hi = pdf ? 200 : 20000;
    const char *x = strchr(text, 'x');
    char a[64] = "", b[64] = "";
    if (x && (size_t)(x - text) < sizeof a && strlen(x + 1) < sizeof b) {
        memcpy(a, text, (size_t)(x - text));
        strcpy(b, x + 1);
    }
    int ok = ddio_decimal_double(a, w) == 0 && ddio_decimal_double(b, h) == 0 && *w >= lo && *w <= hi &&
             *h >= lo && *h <= hi && (pdf || (*w == floor(*w) && *h == floor(*h)));
    if (ok)
        return 0;
    char v[80];
    vd_gp_visible(text, v, sizeof v);
    if (pdf)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s %s: a .pdf is WxH inches, each 0.5 to 200 (e.g. 3.5x2.5)", opt, v);
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s %s: a .svg or .png is WxH whole pixels, each 64 to 20000 (e.g. 960x600)",
                     opt, v);
}

int vd_fig_font_parse(const char *opt, const char *text, double *pt, ddio_err *e)
{
    if (ddio_decimal_double(text, pt) == 0 && *pt >= 4 && *pt <= 72)
        return 0;
    char v[80];
    vd_gp_visible(text, v, sizeof v);
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s %s: the font size is points, 4 to 72", opt, v);
}

void vd_fig_data_path(const char *script, char *buf, size_t cap)
{
    const char *base = strrchr(script, '/');
    base = base ? base + 1 : script;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot > base ? (size_t)(dot - script) : strlen(script);
    if (is_ext(base, ".dat") || stem + 5 > cap) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, cap, "%.*s.dat", (int)stem, script);
}

/* The terminal of the figure `out` (by its extension): SVG, PNG (cairo) or
 * PDF (cairo, vector, what papers use). */
static void terminal_of(vd_buf *g, const vd_fig_out *o, int default_w, int default_h)
{
    double w = o->width ? o->width : default_w, h = o->height ? o->height : default_h;
    if (is_ext(o->path, ".pdf")) {
        if (!o->width)
            w /= DEFAULT_PX_PER_IN, h /= DEFAULT_PX_PER_IN;
        vd_bprintf(g, "set terminal pdfcairo size %gin,%gin noenhanced font 'sans,%g'\n", w, h,
                   o->font_pt ? o->font_pt : 10);
    } else if (is_ext(o->path, ".png")) {
        vd_bprintf(g, "set terminal pngcairo size %.0f,%.0f noenhanced font 'sans,%g'\n", w, h,
                   o->font_pt ? o->font_pt : 10);
    } else {
        vd_bprintf(g, "set terminal svg size %.0f,%.0f noenhanced font 'sans,%g' background rgb 'white'\n", w, h,
                   o->font_pt ? o->font_pt : 11);
    }
}

/* ddiosim's script: the terminal, the output `file` (quoted: the path may
 * hold quotes), the data inline, the commands. */
static char *live_script(const char *data, const char *cmds, int dw, int dh, const vd_fig_out *o, const char *file)
{
    vd_buf g = {0};
    terminal_of(&g, o, dw, dh);
    vd_bprintf(&g, "set output ");
    vd_gp_quotef(&g, "%s", file);
    vd_bprintf(&g, "\n$data << EOD\n%sEOD\ndata = '$data'\n%sunset output\n", data, cmds);
    if (g.oom)
        free(g.data), g.data = NULL;
    return g.data;
}

/* The saved script: the same but for the output (o->path as given) and
 * `data`, the data file `dat`'s name in the script's own folder (ARG0 is
 * the script's path as gnuplot was given it). */
static char *saved_script(const char *cmds, int dw, int dh, const vd_fig_out *o, const char *dat)
{
    const char *base = strrchr(dat, '/');
    vd_buf g = {0};
    vd_bprintf(&g, "# Drawn by ddiosim; `gnuplot THIS_FILE` draws the figure again (from any folder: the\n"
                   "# data are read beside this file, the figure is written to its name from the folder\n"
                   "# gnuplot runs in).\n");
    terminal_of(&g, o, dw, dh);
    vd_bprintf(&g, "set output ");
    vd_gp_quotef(&g, "%s", o->path);
    vd_bprintf(&g, "\ndir_of(s) = (s eq '' || s[strlen(s):strlen(s)] eq '/') ? s : dir_of(s[1:strlen(s) - 1])\n"
                   "data = dir_of(exists('ARG0') ? ARG0 : '') . ");
    vd_gp_quotef(&g, "%s", base ? base + 1 : dat);
    vd_bprintf(&g, "\n%sunset output\n", cmds);
    if (g.oom)
        free(g.data), g.data = NULL;
    return g.data;
}

/* The first line of gnuplot's output that is not blank, for the error
 * message. */
static void first_line(FILE *f, char *buf, size_t cap)
{
    buf[0] = '\0';
    rewind(f);
    while (fgets(buf, (int)cap, f))
        if (strspn(buf, " \t\r\n") != strlen(buf))
            break;
    buf[strcspn(buf, "\r\n")] = '\0';
}

/* Run gnuplot on `script` (fed on its stdin from an anonymous file, read
 * as the script file /dev/stdin so that it stops at the first error);
 * 0, or -1 with e filled. */
static int gnuplot_script(const char *script, ddio_err *e)
{
    FILE *in = tmpfile(), *log = tmpfile();
    int rc = 0;
    if (!in || !log || fputs(script, in) == EOF || fflush(in) != 0 || fseek(in, 0, SEEK_SET) != 0) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "cannot write the plot script: %s", strerror(errno));
        goto out;
    }
    char *args[] = {"gnuplot", "/dev/stdin", NULL};
    pid_t pid = ddio_spawn(args, fileno(in), fileno(log));
    int st = pid < 0 ? -1 : ddio_spawn_wait(pid);
    if (st != 0) {
        char line[300];
        first_line(log, line, sizeof line);
        rc = ddio_errf(e, DDIO_EXIT_IO, "gnuplot failed (status %d)%s%s", st, line[0] ? ": " : "", line);
    }
out:
    if (in)
        fclose(in);
    if (log)
        fclose(log);
    return rc;
}

/* Open `path` (named by `opt`) as an output whose written file's name is
 * drawable (it is a string of the script: a symbolic link's target too). */
static int open_out(ddio_outfile *of, const char *opt, const char *path, ddio_err *e)
{
    if (vd_gp_text_check(path, opt, "the file name", e) != 0)
        return -1;
    if (ddio_outfile_open(of, path, e) != 0) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        return ddio_errf(e, e->exit_code, "%s: %s", opt, msg);
    }
    if (vd_gp_text_check(of->tmp ? of->tmp : of->target, opt, "the file written", e) != 0) {
        ddio_outfile_abort(of);
        return -1;
    }
    return 0;
}

/* Write `text` into an opened output and commit it. */
static int put_out(ddio_outfile *of, const char *text, ddio_err *e)
{
    if (fputs(text, of->f) == EOF) {
        ddio_outfile_abort(of);
        return ddio_errf(e, DDIO_EXIT_IO, "%s: %s", of->path, strerror(errno));
    }
    return ddio_outfile_commit(of, e);
}

/* The script and its data file, each whole or not at all. */
static int save_script(const char *data, const char *cmds, int dw, int dh, const vd_fig_out *o, ddio_err *e)
{
    char dat[4096];
    vd_fig_data_path(o->script, dat, sizeof dat);
    if (!dat[0])
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: the data file beside it would be the script itself (name it .gp)",
                         o->script_opt);
    char *text = saved_script(cmds, dw, dh, o, dat);
    if (!text)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    ddio_outfile sf, df;
    int rc = -1;
    if (open_out(&sf, o->script_opt, o->script, e) != 0)
        goto done;
    if (open_out(&df, o->script_opt, dat, e) != 0) {
        ddio_outfile_abort(&sf);
        goto done;
    }
    rc = put_out(&df, data, e);
    if (rc != 0)
        ddio_outfile_abort(&sf);
    else
        rc = put_out(&sf, text, e);
done:
    free(text);
    return rc;
}

int vd_figure_write(const char *data, const char *cmds, int default_w, int default_h, const vd_fig_out *o,
                    ddio_err *e)
{
    if (vd_plot_check(o->opt, o->path, e) != 0)
        return -1;
    ddio_outfile of;
    if (open_out(&of, o->opt, o->path, e) != 0)
        return -1;
    char *script = live_script(data, cmds, default_w, default_h, o, of.tmp ? of.tmp : of.target);
    int rc = script ? gnuplot_script(script, e) : ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    free(script);
    if (rc != 0) {
        ddio_outfile_abort(&of);
        return -1;
    }
    /* The script only with a figure: a failed run leaves neither. */
    if (o->script && save_script(data, cmds, default_w, default_h, o, e) != 0) {
        ddio_outfile_abort(&of);
        return -1;
    }
    return ddio_outfile_commit(&of, e);
}
