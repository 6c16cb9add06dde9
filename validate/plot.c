/* plot.c - draw the validation figure with gnuplot (validate/plot.h),
 * and the rules for handing gnuplot text.
 *
 * The data are one data set per panel and series value, every text from a
 * data file a single-quoted string (gnuplot substitutes nothing in one);
 * validate/figure.c runs gnuplot and writes the file. */
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

#include "validate/figure.h"
#include "validate/label.h"

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

/* A data set without a point still takes its index: one row of NaN
 * (gnuplot reads several blank lines in a row as one separator). */
static void close_set(vd_buf *f, int rows)
{
    if (!rows)
        vd_bprintf(f, "NaN NaN NaN NaN NaN NaN NaN\n");
}

/* Append experiment x's data for metric m to f, one data set per series
 * value (each after two blank lines when f is not empty); returns the set
 * count and their series values in sv. */
static int write_data(const vd_set *s, size_t x, size_t first, int m, vd_buf *f, double *sv, int max_sv)
{
    const vd_experiment *e = &s->exp[x];
    int nb = 0, rows = 0;
    for (size_t i = 0; i < e->n; i++) {
        double v = series_of(e, i);
        if (i == 0 || v != series_of(e, i - 1)) {
            if (nb == max_sv)
                break;
            if (nb)
                close_set(f, rows);
            vd_bprintf(f, "%s", f->len ? "\n\n" : "");
            sv[nb++] = v;
            rows = 0;
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
        rows++;
    }
    close_set(f, rows);   /* e has a point: nb >= 1 */
    return nb;
}

/* The x axis of experiment x: its range (log2 when it spans 8x) and its
 * label, the varied parameter in words. */
static void x_axis(vd_buf *g, const vd_experiment *e)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < e->n; i++) {
        lo = fmin(lo, x_of(e, i));
        hi = fmax(hi, x_of(e, i));
    }
    char xl[128] = "Point";
    if (e->x_param[0])
        vd_label(e->x_param, xl, sizeof xl, NULL);
    vd_bprintf(g, "set xlabel ");
    vd_gp_quotef(g, "%s", xl);
    vd_bprintf(g, "\n");
    int logx = lo > 0 && hi / lo >= 8;
    double pad = logx ? 0 : (hi - lo) * 0.05 + (hi == lo);
    vd_bprintf(g, "%s\n", logx ? "set logscale x 2" : "unset logscale x");
    if (logx)
        vd_bprintf(g, "set xrange [%g:%g]\n", lo / 1.2, hi * 1.2);
    else
        vd_bprintf(g, "set xrange [%g:%g]\n", lo - pad, hi + pad);
}

/* One panel: experiment x's metric m, its data sets from `base` on. */
static void panel(vd_buf *g, const vd_set *s, size_t x, int m, int base, const double *sv, int nb)
{
    const vd_experiment *e = &s->exp[x];
    const char *metric = m == VD_PCIE_WRITE_HIT ? "pcie_write_hit" : "pcie_read_hit";
    char yl[128], title[128];
    vd_label(metric, yl, sizeof yl, NULL);
    vd_label(metric, title, sizeof title, NULL);
    char *unit = strstr(title, " (");
    if (unit)
        *unit = '\0';   /* "PCIe write hit", without its unit */
    /* The name is any text (checked by vd_plot_check_set): single-quoted,
     * gnuplot substitutes nothing in it. */
    vd_bprintf(g, "set title ");
    vd_gp_quotef(g, "%s: %s", e->name, title);
    vd_bprintf(g, "\nset ylabel ");
    vd_gp_quotef(g, "%s", yl);
    vd_bprintf(g, "\n");
    x_axis(g, e);
    int sim = s->engines & RUNNER_ENGINE_SIM, mod = s->engines & RUNNER_ENGINE_MODEL;
    /* The key: each style once, in black; each series value once, on its
     * measured points. */
    vd_bprintf(g, "plot NaN with yerrorbars pt 7 ps 0.6 lc rgb 'black' title 'measured (mean, sd)'");
    if (sim)
        vd_bprintf(g, ", NaN with linespoints pt 6 lw 1.5 lc rgb 'black' title 'simulator'");
    if (mod)
        vd_bprintf(g, ", NaN with lines dt 2 lw 1.5 lc rgb 'black' title 'model', "
                      "NaN with boxes fs solid 0.3 noborder lc rgb 'grey' title 'model (lower-upper bound)'");
    for (int b = 0; b < nb; b++) {
        const char *c = colors[b % N_COLORS];
        int k = base + b;
        vd_bprintf(g, ", \\\n     ");
        if (mod)
            vd_bprintf(g, "data index %d using 1:6:7 with filledcurves fc rgb '%s' fs transparent solid 0.15 "
                       "notitle, data index %d using 1:5 with lines dt 2 lw 1.5 lc rgb '%s' notitle, ",
                    k, c, k, c);
        if (sim)
            vd_bprintf(g, "data index %d using 1:4 with linespoints pt 6 lw 1.5 lc rgb '%s' notitle, ", k, c);
        vd_bprintf(g, "data index %d using 1:2:3 with yerrorbars pt 7 ps 0.6 lc rgb '%s' ", k, c);
        if (e->series_param[0]) {
            char sl[100];
            vd_label(e->series_param, sl, sizeof sl, NULL);
            vd_bprintf(g, "title ");
            vd_gp_quotef(g, "%s = %g", sl, sv[b]);
        } else {
            vd_bprintf(g, "notitle");
        }
    }
    vd_bprintf(g, "\n");
}

/* Whether experiment e measured metric m on any point. */
static int measured(const vd_experiment *e, int m)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->point[i].has[m])
            return 1;
    return 0;
}

int vd_plot(const vd_set *s, const char *out, ddio_err *e)
{
    if (vd_plot_check_set(s->exp, s->n_exp, e) != 0)
        return -1;
    vd_buf d = {0}, g = {0};
    vd_bprintf(&g, "set datafile missing 'NaN'\nset key bottom left font ',9' spacing 1.1\nset grid\n"
                   "set yrange [0:105]\nset multiplot layout %zu,2\n", s->n_exp);
    size_t first = 0;
    int base = 0;
    for (size_t x = 0; x < s->n_exp; x++) {
        for (int m = 0; m < 2; m++) {
            if (!measured(&s->exp[x], m)) {   /* no panel for a metric the experiment did not measure */
                vd_bprintf(&g, "set multiplot next\n");
                continue;
            }
            double sv[N_COLORS];
            int nb = write_data(s, x, first, m, &d, sv, (int)N_COLORS);
            panel(&g, s, x, m, base, sv, nb);
            base += nb;
        }
        first += s->exp[x].n;
    }
    vd_bprintf(&g, "unset multiplot\n");
    vd_fig_out o = {.opt = "--plot", .path = out};
    int rc = d.oom || g.oom ? ddio_errf(e, DDIO_EXIT_IO, "--plot: out of memory")
                            : vd_figure_write(d.data, g.data, 1200, 440 * (int)s->n_exp, &o, e);
    free(d.data);
    free(g.data);
    return rc;
}
