/* plot.c - draw the validation figure with gnuplot (validate/plot.h).
 *
 * The data are inline data blocks of the script (one block per series
 * value), every text from a data file a single-quoted string (gnuplot
 * substitutes nothing in one); the script reaches gnuplot on its stdin from
 * an anonymous file.  gnuplot writes the figure to the temporary of a
 * ddio_outfile, renamed into place only when gnuplot succeeded, so a failed
 * or interrupted plot leaves nothing behind. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "validate/plot.h"

#include "sim/common/outfile.h"

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
                                     "#17becf"};
#define N_COLORS (sizeof colors / sizeof colors[0])

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

void vd_gp_visible(const char *s, char *buf, size_t cap)
{
    size_t k = 0;
    for (; *s && k + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n' || c == '\r' || c == '\t')
            k += (size_t)snprintf(buf + k, cap - k, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20 || c == 0x7f)
            k += (size_t)snprintf(buf + k, cap - k, "\\x%02x", c);
        else
            buf[k++] = (char)c;
    }
    buf[k] = '\0';
}

int vd_gp_text_check(const char *s, const char *where, const char *what, ddio_err *e)
{
    if (!has_control(s))
        return 0;
    char v[160], w[200], t[100];
    vd_gp_visible(s, v, sizeof v);
    vd_gp_visible(where, w, sizeof w);   /* a folder's name may hold one too */
    vd_gp_visible(what, t, sizeof t);
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s '%s' holds a control character, which a figure cannot show", w, t,
                     v);
}

void vd_gp_quotef(vd_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n < 0 ? NULL : malloc((size_t)n + 1);
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    if (!text) {
        b->oom = 1;
        return;
    }
    vd_bprintf(b, "'");
    for (const char *c = text, *q; *c; c = q) {
        q = c + strcspn(c, "'");
        vd_bprintf(b, "%.*s", (int)(q - c), c);
        if (*q == '\'') {
            vd_bprintf(b, "''");
            q++;
        }
    }
    vd_bprintf(b, "'");
    free(text);
}

/* Run gnuplot with `args` (NULL-terminated, args[0] = "gnuplot"), the
 * script on its stdin (in_fd, -1: none), its output to out_fd.  Returns
 * its exit status, or -1 when it could not run. */
static int run_gnuplot(char *const args[], int in_fd, int out_fd)
{
    pid_t pid = ddio_spawn(args, in_fd, out_fd);
    return pid < 0 ? -1 : ddio_spawn_wait(pid);
}

int vd_plot_check(const char *opt, const char *out, ddio_err *e)
{
    if (!ends_with(out, ".svg") && !ends_with(out, ".png") && !ends_with(out, ".pdf"))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s %s: the file name must end in .svg, .png or .pdf", opt, out);
    if (has_control(out))   /* it is a string of gnuplot's script */
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: the file name may not hold a control character", opt);
    int null = open("/dev/null", O_RDWR);
    char *args[] = {"gnuplot", "--version", NULL};
    int st = run_gnuplot(args, null, null);
    if (null >= 0)
        close(null);
    if (st != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: gnuplot does not run (install it: scripts/install-deps.sh)", opt);
    return 0;
}

int vd_plot_check_set(const vd_experiment *x, size_t n, ddio_err *e)
{
    if (n > VD_PLOT_MAX_EXPERIMENTS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--plot: at most %d experiments in one figure", VD_PLOT_MAX_EXPERIMENTS);
    for (size_t i = 0; i < n; i++) {
        char where[600];
        snprintf(where, sizeof where, "%s/experiment.json", x[i].dir);
        if (vd_gp_text_check(x[i].name, where, "name", e) != 0)
            return -1;
    }
    return 0;
}

/* The x value of point i of experiment x (its index + 1 when the
 * experiment varies no single parameter). */
static double x_of(const vd_experiment *x, size_t i)
{
    const vd_param *p = x->x_param[0] ? vd_point_param(&x->point[i], x->x_param) : NULL;
    return p ? p->value : (double)(i + 1);
}

static double series_of(const vd_experiment *x, size_t i)
{
    const vd_param *p = x->series_param[0] ? vd_point_param(&x->point[i], x->series_param) : NULL;
    return p ? p->value : 0;
}

static void nan_or(vd_buf *f, double v)
{
    if (isnan(v))
        vd_bprintf(f, " NaN");
    else
        vd_bprintf(f, " %.6g", 100 * v);
}

/* Write experiment x's data for metric m to `path`, one block per series
 * value (blocks separated by two blank lines); returns the block count and
 * their series values in sv. */
static int write_data(const vd_set *s, size_t x, size_t first, int m, vd_buf *f, double *sv, int max_sv)
{
    const vd_experiment *e = &s->exp[x];
    int nb = 0;
    for (size_t i = 0; i < e->n; i++) {
        double v = series_of(e, i);
        if (i == 0 || v != series_of(e, i - 1)) {
            if (nb == max_sv)
                break;
            if (nb)
                vd_bprintf(f, "\n\n");
            sv[nb++] = v;
        }
        const vd_point *p = &e->point[i];
        const runner_outcome *o = &s->out[first + i];
        if (!p->has[m])
            continue;
        vd_bprintf(f, "%.10g", x_of(e, i));
        nan_or(f, p->m[m].mean);
        nan_or(f, p->m[m].sd);
        int sim = !o->failed && (s->engines & RUNNER_ENGINE_SIM), mod = !o->failed && (s->engines & RUNNER_ENGINE_MODEL);
        nan_or(f, sim ? o->sim[m] : NAN);
        nan_or(f, mod ? o->model_est[m] : NAN);
        nan_or(f, mod ? o->model_lower[m] : NAN);
        nan_or(f, mod ? o->model_upper[m] : NAN);
        vd_bprintf(f, "\n");
    }
    return nb;
}

/* One panel's plot command. */
static void panel(vd_buf *g, const vd_set *s, size_t x, int m, const char *data, const double *sv, int nb)
{
    const vd_experiment *e = &s->exp[x];
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < e->n; i++) {
        lo = fmin(lo, x_of(e, i));
        hi = fmax(hi, x_of(e, i));
    }
    /* The name is any text (checked by vd_plot_check_set): single-quoted,
     * gnuplot substitutes nothing in it. */
    vd_bprintf(g, "set title ");
    vd_gp_quotef(g, "%s: PCIe %s hit rate", e->name, m == VD_PCIE_WRITE_HIT ? "write (ItoM)" : "read (PCIRdCur)");
    vd_bprintf(g, "\nset xlabel ");
    vd_gp_quotef(g, "%s", e->x_param[0] ? e->x_param : "point");
    vd_bprintf(g, "\n");
    vd_bprintf(g, "%s\n", lo > 0 && hi / lo >= 8 ? "set logscale x 2" : "unset logscale x");
    double pad = lo > 0 && hi / lo >= 8 ? 0 : (hi - lo) * 0.05 + (hi == lo);
    if (lo > 0 && hi / lo >= 8)
        vd_bprintf(g, "set xrange [%g:%g]\n", lo / 1.2, hi * 1.2);
    else
        vd_bprintf(g, "set xrange [%g:%g]\n", lo - pad, hi + pad);
    int sim = s->engines & RUNNER_ENGINE_SIM, mod = s->engines & RUNNER_ENGINE_MODEL;
    /* The styles once, in black; each series value once, on its measured points. */
    vd_bprintf(g, "plot NaN with yerrorbars pt 7 ps 0.6 lc rgb 'black' title 'measured (mean, sd)'");
    if (sim)
        vd_bprintf(g, ", NaN with linespoints pt 6 lw 1.5 lc rgb 'black' title 'simulator'");
    if (mod)
        vd_bprintf(g, ", NaN with lines dt 2 lw 1.5 lc rgb 'black' title 'model, LRU..BIP band'");
    for (int b = 0; b < nb; b++) {
        const char *c = colors[b % N_COLORS];
        char name[64] = "";
        if (e->series_param[0])
            snprintf(name, sizeof name, "title '%s=%g'", e->series_param, sv[b]);
        else
            snprintf(name, sizeof name, "notitle");
        vd_bprintf(g, ", \\\n     ");
        if (mod)
            vd_bprintf(g, "%s index %d using 1:6:7 with filledcurves fc rgb '%s' fs transparent solid 0.15 "
                       "notitle, %s index %d using 1:5 with lines dt 2 lw 1.5 lc rgb '%s' notitle, ",
                    data, b, c, data, b, c);
        if (sim)
            vd_bprintf(g, "%s index %d using 1:4 with linespoints pt 6 lw 1.5 lc rgb '%s' notitle, ", data, b, c);
        vd_bprintf(g, "%s index %d using 1:2:3 with yerrorbars pt 7 ps 0.6 lc rgb '%s' %s", data, b, c, name);
    }
    vd_bprintf(g, "\n");
}

/* The figure's gnuplot commands (after its terminal and output): the data
 * of every panel as a datablock ($eXmM, one block per series value), then
 * the panels. */
static char *body_of(const vd_set *s)
{
    vd_buf g = {0};
    int rows = (int)s->n_exp;
    vd_bprintf(&g, "set datafile missing 'NaN'\nset key bottom left font ',7' spacing 0.9\nset grid\n"
                   "set ylabel 'hit rate (%%)'\nset yrange [0:105]\n");
    double sv[VD_PLOT_MAX_EXPERIMENTS][2][N_COLORS];
    int nb[VD_PLOT_MAX_EXPERIMENTS][2];
    size_t first = 0;
    for (size_t x = 0; x < s->n_exp && x < VD_PLOT_MAX_EXPERIMENTS; x++) {
        for (int m = 0; m < 2; m++) {
            vd_bprintf(&g, "$e%zum%d << EOD\n", x, m);
            nb[x][m] = write_data(s, x, first, m, &g, sv[x][m], (int)N_COLORS);
            vd_bprintf(&g, "EOD\n");
        }
        first += s->exp[x].n;
    }
    vd_bprintf(&g, "set multiplot layout %d,2\n", rows);
    for (size_t x = 0; x < s->n_exp && x < VD_PLOT_MAX_EXPERIMENTS; x++)
        for (int m = 0; m < 2; m++) {
            char data[32];
            snprintf(data, sizeof data, "$e%zum%d", x, m);
            panel(&g, s, x, m, data, sv[x][m], nb[x][m]);
        }
    vd_bprintf(&g, "unset multiplot\n");
    if (g.oom) {
        free(g.data);
        return NULL;
    }
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

/* The gnuplot terminal for a figure `width` x `height` pixels written to
 * `out` (by its extension): SVG, PNG (cairo) or PDF (cairo, vector, what
 * papers use: 100 pixels to the inch, so the same figure at 9.6 x 6 in). */
static void terminal_of(vd_buf *g, const char *out, int width, int height)
{
    if (ends_with(out, ".png"))
        vd_bprintf(g, "set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n", width, height);
    else if (ends_with(out, ".pdf"))
        vd_bprintf(g, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'sans,10'\n", width / 100.0,
                   height / 100.0);
    else
        vd_bprintf(g, "set terminal svg size %d,%d noenhanced font 'sans,11' background rgb 'white'\n", width,
                   height);
}

/* The whole script for a figure into `file`: the terminal, the output
 * (quoted: the path may hold quotes), the body. */
static char *script_of(const char *body, int width, int height, const char *file, const char *out)
{
    vd_buf g = {0};
    terminal_of(&g, out, width, height);
    vd_bprintf(&g, "set output ");
    vd_gp_quotef(&g, "%s", file);
    vd_bprintf(&g, "\n%s\nunset output\n", body);
    if (g.oom) {
        free(g.data);
        return NULL;
    }
    return g.data;
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
    int st = run_gnuplot(args, fileno(in), fileno(log));
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

int vd_gnuplot(const char *body, int width, int height, const char *opt, const char *out, ddio_err *e)
{
    if (vd_plot_check(opt, out, e) != 0)
        return -1;
    /* The figure is an output as -o is (through a symbolic link, by a
     * temporary that a signal removes): gnuplot writes the temporary. */
    ddio_outfile of;
    if (ddio_outfile_open(&of, out, e) != 0)
        return -1;
    const char *file = of.tmp ? of.tmp : of.target;
    if (vd_gp_text_check(file, opt, "the file written", e) != 0) {   /* a symbolic link's target */
        ddio_outfile_abort(&of);
        return -1;
    }
    char *script = script_of(body, width, height, file, out);
    int rc = script ? gnuplot_script(script, e) : ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    free(script);
    if (rc != 0) {
        ddio_outfile_abort(&of);
        return -1;
    }
    return ddio_outfile_commit(&of, e);
}

int vd_plot(const vd_set *s, const char *out, ddio_err *e)
{
    if (vd_plot_check_set(s->exp, s->n_exp, e) != 0)
        return -1;
    char *body = body_of(s);
    if (!body)
        return ddio_errf(e, DDIO_EXIT_IO, "--plot: out of memory");
    int rc = vd_gnuplot(body, 1200, 380 * (int)s->n_exp, "--plot", out, e);
    free(body);
    return rc;
}
