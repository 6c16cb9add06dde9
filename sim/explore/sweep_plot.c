/* sweep_plot.c - read a sweep's CSV results (sim/explore/sweep.h, sw_table)
 * and draw them (sw_plot): one metric against one parameter, a line per
 * value of a series parameter, the model's bounds as a band, or a heat map
 * over two parameters.  Every text drawn goes to gnuplot through
 * vd_gp_quotef, after vd_gp_text_check (validate/plot.h). */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/common/infile.h"
#include "sim/common/names.h"

#include "sim/common/parse.h"
#include "validate/figure.h"
#include "validate/label.h"
#include "validate/plot.h"
#include "sim/explore/sweep.h"
#include "validate/text.h"

#define MAX_SERIES 12
#define PLOT_W 960
#define PLOT_H 600

typedef sw_table table;

void sw_table_free(sw_table *t)
{
    free(t->cell);
    free(t->line);
    free(t->text);
    memset(t, 0, sizeof *t);
}

/* The parser's place in the text. */
typedef struct cursor {
    char *p, *end;
    size_t line;                /* of p */
    const char *name;
} cursor;

/* One field at c->p, written back in place (a quoted field shifts left
 * over its quotes) and NUL-terminated; *f points at it.  Returns the
 * character that ended it: ',', '\n', or '\0' at the end of the text (for
 * a quoted field not closed: 'q'); -1 with e filled when a closing quote
 * is followed by something else than a comma or an end of line. */
static int field(cursor *c, char **f, ddio_err *e)
{
    char *w = c->p;
    *f = w;
    if (c->p < c->end && *c->p == '"') {
        c->p++;
        for (;;) {
            if (c->p == c->end)
                return *w = '\0', 'q';
            if (*c->p == '"' && c->p + 1 < c->end && c->p[1] == '"') {
                *w++ = '"';
                c->p += 2;
            } else if (*c->p == '"') {
                c->p++;
                break;
            } else {
                c->line += *c->p == '\n';
                *w++ = *c->p++;
            }
        }
        if (c->p + 1 < c->end && c->p[0] == '\r' && c->p[1] == '\n')
            c->p++;
        if (c->p < c->end && *c->p != ',' && *c->p != '\n')
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: text after a closing quote", c->name, c->line);
    } else {
        while (c->p < c->end && *c->p != ',' && *c->p != '\n')
            w = ++c->p;
        if (w > *f && w[-1] == '\r' && c->p < c->end && *c->p == '\n')
            w--;   /* CRLF */
    }
    int end = c->p == c->end ? '\0' : *c->p++;
    c->line += end == '\n';
    *w = '\0';
    return end;
}

/* The fields of one record (a row or the header) into f (at most max;
 * *n counts them all).  1: a whole record; 0: the text ended inside it
 * (cut short); -1 with e filled. */
static int record(cursor *c, char **f, size_t max, size_t *n, ddio_err *e)
{
    *n = 0;
    for (;;) {
        char *v;
        int end = field(c, &v, e);
        if (end < 0)
            return -1;
        if (*n < max)
            f[*n] = v;
        ++*n;
        if (end == '\n')
            return 1;
        if (end != ',')
            return 0;
    }
}

/* The header's columns; t->status and the parameter columns. */
static int header(cursor *c, size_t line, table *t, ddio_err *e)
{
    size_t n;
    int whole = record(c, t->col, SW_TABLE_MAX_COLS, &n, e);
    if (whole < 0)
        return -1;
    if (n > SW_TABLE_MAX_COLS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: more than %d columns", c->name, line, SW_TABLE_MAX_COLS);
    t->ncol = n;
    t->status = -1;
    for (size_t k = 0; k < n; k++)
        if (strcmp(t->col[k], "status") == 0)
            t->status = (int)k;
    if (!whole || strcmp(t->col[0], "id") != 0 || t->status < 1)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s:%zu: not the header of a ddiosim sweep CSV (id, the parameters, status, ...)", c->name,
                         line);
    t->first_param = 1;
    t->n_param = (size_t)t->status - 1;
    t->header_line = line;
    return 0;
}

/* Room for one more row. */
static int grow(table *t, size_t *cap)
{
    if (t->nrow < *cap)
        return 0;
    size_t k = *cap ? 2 * *cap : 64;
    char **cell = realloc(t->cell, k * t->ncol * sizeof *cell);
    if (cell)
        t->cell = cell;
    size_t *line = realloc(t->line, k * sizeof *line);
    if (line)
        t->line = line;
    if (!cell || !line)
        return -1;
    *cap = k;
    return 0;
}

int sw_table_parse(char *text, size_t len, const char *name, sw_table *t, ddio_err *e)
{
    memset(t, 0, sizeof *t);
    t->text = text;
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        size_t line = 1;
        for (const char *q = text; q < nul; q++)
            line += *q == '\n';
        ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: NUL byte in a text file", name, line);
        goto fail;
    }
    cursor c = {.p = text, .end = text + len, .line = 1, .name = name};
    size_t cap = 0;
    while (c.p < c.end) {
        size_t line = c.line;
        if (*c.p == '#' || *c.p == '\n' || (*c.p == '\r' && c.p + 1 < c.end && c.p[1] == '\n')) {
            char *nl = memchr(c.p, '\n', (size_t)(c.end - c.p));
            c.p = nl ? nl + 1 : c.end;
            c.line++;
            continue;
        }
        if (!t->ncol) {
            if (header(&c, line, t, e) != 0)
                goto fail;
            continue;
        }
        if (grow(t, &cap) != 0) {
            ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            goto fail;
        }
        size_t n;
        int whole = record(&c, &t->cell[t->nrow * t->ncol], t->ncol, &n, e);
        if (whole < 0)
            goto fail;
        if (!whole) {
            t->cut_line = line;   /* a row being written when the run was killed */
            break;
        }
        if (n != t->ncol) {
            ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: %zu fields where the header has %zu", name, line, n, t->ncol);
            goto fail;
        }
        t->line[t->nrow++] = line;
    }
    if (!t->ncol) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: no header line", name);
        goto fail;
    }
    return 0;
fail:
    sw_table_free(t);
    return -1;
}

int sw_table_load(const char *path, sw_table *t, ddio_err *e)
{
    memset(t, 0, sizeof *t);
    FILE *f = ddio_open_data(path, SW_RESULTS_MAX_BYTES, e);
    size_t len;
    char *text = f ? ddio_read_all(f, path, SW_RESULTS_MAX_BYTES, "", &len, e) : NULL;
    if (!text)
        return -1;
    /* A sweep still appending: its rows up to here, a cut last one left out. */
    return sw_table_parse(text, len, path, t, e);
}

/* A column by name: as written, else an old name of it
 * (sim/common/names.h) in a file of this version, or a new name in an
 * older version's file. */
static int column(const table *t, const char *name)
{
    for (size_t c = 0; c < t->ncol; c++)
        if (ddio_name_same(t->col[c], name))
            return (int)c;
    return -1;
}

static int is_param(const table *t, int c)
{
    return c >= (int)t->first_param && c < (int)(t->first_param + t->n_param);
}

/* The names of the parameter columns (param) or of the metric columns
 * (after status and error), comma separated, into list. */
static void names(const table *t, int param, char *list, size_t cap)
{
    size_t k = 0, from = param ? t->first_param : (size_t)t->status + 2,
           to = param ? t->first_param + t->n_param : t->ncol;
    list[0] = '\0';
    for (size_t c = from; c < to; c++)
        k += (size_t)snprintf(list + k, k < cap ? cap - k : 0, "%s%s", k ? ", " : "", t->col[c]);
}

static int no_column(const table *t, const char *opt, const char *name, const char *path, int param, ddio_err *e)
{
    char list[2000];
    names(t, param, list, sizeof list);
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a %s of %s (%s: %.1500s)", opt, name,
                     param ? "parameter" : "column", path, param ? "parameters" : "metrics", list);
}

/* --y names a metric: not a parameter, not id, status or error. */
static int no_metric(const table *t, int c, const char *name, const char *path, ddio_err *e)
{
    if (c < 0)
        return no_column(t, "--y", name, path, 0, e);
    char list[2000];
    names(t, 0, list, sizeof list);
    if (is_param(t, c))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--y: '%s' is a parameter of %s, not a metric (metrics: %.1500s)", name,
                         path, list);
    return ddio_errf(e, DDIO_EXIT_USAGE, "--y: '%s' is not a metric of %s (metrics: %.1500s)", name, path, list);
}

/* --series / --heatmap PARAM: a parameter that is not --x. */
static int bad_group(const table *t, int c, int cx, const char *opt, const char *name, const char *path,
                     ddio_err *e)
{
    if (c == cx)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is the --x parameter", opt, name);
    return no_column(t, opt, name, path, 1, e);
}

/* The columns the options name: 0, or -1 with e filled. */
static int columns(const table *t, const sw_plot_opts *o, const char *path, int *cx, int *cy, int *cs, int *ch,
                   ddio_err *e)
{
    *cx = column(t, o->x);
    *cy = column(t, o->y);
    *cs = o->series ? column(t, o->series) : -1;
    *ch = o->heatmap ? column(t, o->heatmap) : -1;
    if (*cx < 0 || !is_param(t, *cx))
        return no_column(t, "--x", o->x, path, 1, e);
    if (*cy < 0 || is_param(t, *cy) || *cy <= t->status + 1)
        return no_metric(t, *cy, o->y, path, e);
    if (o->series && (*cs < 0 || !is_param(t, *cs) || *cs == *cx))
        return bad_group(t, *cs, *cx, "--series", o->series, path, e);
    if (o->heatmap && (*ch < 0 || !is_param(t, *ch) || *ch == *cx))
        return bad_group(t, *ch, *cx, "--heatmap", o->heatmap, path, e);
    /* Their names are drawn (axis labels, titles). */
    char where[600];
    snprintf(where, sizeof where, "%s:%zu", path, t->header_line);
    const int drawn[] = {*cx, *cy, *cs, *ch};
    for (size_t i = 0; i < sizeof drawn / sizeof drawn[0]; i++)
        if (drawn[i] >= 0 && vd_gp_text_check(t->col[drawn[i]], where, "column", e) != 0)
            return -1;
    return 0;
}

/* The values drawn as text (series names, heat-map tics: x too) on the
 * kept rows must be drawable. */
static int drawable_values(const table *t, const char *keep, const int *cols, size_t n, const char *path,
                           ddio_err *e)
{
    for (size_t r = 0; r < t->nrow; r++)
        for (size_t i = 0; keep[r] && i < n; i++) {
            if (cols[i] < 0)
                continue;
            char where[600];
            snprintf(where, sizeof where, "%s:%zu", path, t->line[r]);
            if (vd_gp_text_check(t->cell[r * t->ncol + (size_t)cols[i]], where, t->col[cols[i]], e) != 0)
                return -1;
        }
    return 0;
}

static int num(const char *s, double *v)
{
    return ddio_decimal_double(s, v) == 0;
}


typedef struct pt {
    double x, y, lo, up;
    const char *series, *h, *xs;   /* the series and heat-map values, the x value as written */
} pt;

static int by_series_x(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    double sp, sq;
    int c = num(p->series, &sp) && num(q->series, &sq) ? (sp > sq) - (sp < sq) : strcmp(p->series, q->series);
    return c ? c : (p->x > q->x) - (p->x < q->x);
}

/* The heat map's data: the whole nx x ny rectangle that gnuplot's `with
 * image` needs, a row per heat-map value (blank lines between), each cell
 * at its x and y categories' positions, NaN where no point has a number.
 * Two points in one cell are refused (they would hide each other). */
static int heat_grid(vd_buf *b, const pt *pts, size_t n, const char *const *hx, size_t nx, const char *const *hy,
                     size_t ny, double scale, const sw_plot_opts *o, ddio_err *e)
{
    double *cell = malloc(nx * ny * sizeof *cell);
    if (!cell)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    for (size_t i = 0; i < nx * ny; i++)
        cell[i] = NAN;
    for (size_t i = 0; i < n; i++) {
        size_t ix = 0, iy = 0;
        while (ix < nx && strcmp(hx[ix], pts[i].xs) != 0)
            ix++;
        while (iy < ny && strcmp(hy[iy], pts[i].h) != 0)
            iy++;
        assert(ix < nx && iy < ny && "a kept point's values are among the axes' categories");
        if (!isnan(cell[iy * nx + ix])) {
            char xv[64], hv[64];
            vd_gp_visible(pts[i].xs, xv, sizeof xv);
            vd_gp_visible(pts[i].h, hv, sizeof hv);
            free(cell);
            return ddio_errf(e, DDIO_EXIT_USAGE, "--heatmap: two points at %s=%s, %s=%s: keep one with --where", o->x,
                             xv, o->heatmap, hv);
        }
        cell[iy * nx + ix] = pts[i].y * scale;
    }
    for (size_t iy = 0; iy < ny; iy++) {
        for (size_t ix = 0; ix < nx; ix++) {
            if (isnan(cell[iy * nx + ix]))
                vd_bprintf(b, "%zu %zu NaN\n", ix, iy);
            else
                vd_bprintf(b, "%zu %zu %.10g\n", ix, iy, cell[iy * nx + ix]);
        }
        vd_bprintf(b, "\n");
    }
    free(cell);
    return 0;
}

/* Distinct values of column c over the kept rows, in the order first met. */
static size_t distinct(const table *t, const char *keep, int c, const char **v, size_t max)
{
    size_t n = 0;
    for (size_t r = 0; r < t->nrow; r++) {
        if (!keep[r])
            continue;
        const char *s = t->cell[r * t->ncol + (size_t)c];
        size_t i = 0;
        while (i < n && strcmp(v[i], s) != 0)
            i++;
        if (i == n) {
            if (n == max)
                return max + 1;
            v[n++] = s;
        }
    }
    return n;
}

static int cmp_numtext(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    double p, q;
    if (num(x, &p) && num(y, &q))
        return (p > q) - (p < q);
    return strcmp(x, y);
}


/* The figure's title and axis labels: the options' words, else the
 * columns' (validate/label.h).  Every text is single-quoted
 * (vd_gp_quotef): gnuplot substitutes nothing in it. */
static void texts(vd_buf *c, const sw_plot_opts *o, const char *xl, const char *yl)
{
    if (o->title) {
        vd_bprintf(c, "set title ");
        vd_gp_quotef(c, "%s", o->title);
        vd_bprintf(c, "\n");
    }
    vd_bprintf(c, "set xlabel ");
    vd_gp_quotef(c, "%s", o->xlabel ? o->xlabel : xl);
    vd_bprintf(c, "\nset ylabel ");
    vd_gp_quotef(c, "%s", o->ylabel ? o->ylabel : yl);
    vd_bprintf(c, "\n");
}

/* The tics of a heat-map axis: each category's value at its position. */
static void heat_tics(vd_buf *c, const char *axis, const char *const *v, size_t n)
{
    vd_bprintf(c, "set %stics (", axis);
    for (size_t i = 0; i < n; i++) {
        vd_bprintf(c, "%s", i ? ", " : "");
        vd_gp_quotef(c, "%s", v[i]);
        vd_bprintf(c, " %zu", i);
    }
    vd_bprintf(c, ")\n");
}

/* Heat map: the two parameters' values as categories, the metric as
 * colour (its label on the colour box). */
static int heat_figure(vd_buf *d, vd_buf *c, const table *t, const char *keep, const pt *pts, size_t n, int cx,
                       int ch, double scale, const char *xl, const char *yl, const sw_plot_opts *o, ddio_err *e)
{
    const char *hx[4096], *hy[4096];
    size_t nx = distinct(t, keep, cx, hx, 4096), ny = distinct(t, keep, ch, hy, 4096);
    if (nx > 4096 || ny > 4096)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--heatmap: more than 4096 values on an axis");
    qsort(hx, nx, sizeof *hx, cmp_numtext);
    qsort(hy, ny, sizeof *hy, cmp_numtext);
    char hl[128];
    vd_label(o->heatmap, hl, sizeof hl, NULL);
    texts(c, o, xl, hl);
    vd_bprintf(c, "set cblabel ");
    vd_gp_quotef(c, "%s", yl);
    /* viridis (van der Walt and Smith): sequential, readable in grey and
     * by the colour-blind. */
    vd_bprintf(c, "\nset palette defined (0 '#440154', 1 '#3b528b', 2 '#21908d', 3 '#5dc963', 4 '#fde725')\n"
                  "set colorbox\n");
    heat_tics(c, "x", hx, nx);
    heat_tics(c, "y", hy, ny);
    vd_bprintf(c, "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n", nx - 1, ny - 1);
    if (heat_grid(d, pts, n, hx, nx, hy, ny, scale, o, e) != 0)
        return -1;
    /* `pixels`: a polygon per cell, none for a missing one (NaN). */
    vd_bprintf(c, "plot data using 1:2:3 with image pixels notitle\n");
    return 0;
}

/* Lines: one data set per series value (points sorted by series, then
 * x), the model's bounds as a band under each line. */
static int line_figure(vd_buf *d, vd_buf *c, pt *pts, size_t n, int logx, double xmin, double xmax, double scale,
                       const char *xl, const char *yl, const sw_plot_opts *o, ddio_err *e)
{
    qsort(pts, n, sizeof *pts, by_series_x);
    const char *sv[MAX_SERIES + 1];
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        if (!ns || strcmp(sv[ns - 1], pts[i].series) != 0) {
            if (ns == MAX_SERIES)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--series %s: more than %d values", o->series, MAX_SERIES);
            sv[ns++] = pts[i].series;
        }
    int band = 0;
    for (size_t i = 0; i < n; i++) {
        band |= !isnan(pts[i].lo) && !isnan(pts[i].up);
        vd_bprintf(d, "%s%.10g %.10g %.10g %.10g\n", i && strcmp(pts[i].series, pts[i - 1].series) != 0 ? "\n\n" : "",
                   pts[i].x, pts[i].y * scale, pts[i].lo * scale, pts[i].up * scale);
    }
    vd_bprintf(c, "set grid\nset datafile missing 'NaN'\nset key outside right top\n");
    texts(c, o, xl, yl);
    if (logx)
        vd_bprintf(c, "set logscale x 2\nset xrange [%g:%g]\n", xmin / 1.2, xmax * 1.2);
    if (scale == 100)
        vd_bprintf(c, "set yrange [0:105]\n");
    static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                         "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#637939"};
    char sl[128] = "";
    if (o->series)
        vd_label(o->series, sl, sizeof sl, NULL);
    vd_bprintf(c, "plot ");
    for (size_t k = 0; k < ns; k++) {
        const char *col = colors[k % (sizeof colors / sizeof colors[0])];
        if (band)   /* one key entry for the bands: each is its line's colour */
            vd_bprintf(c, "%sdata index %zu using 1:3:4 with filledcurves fc rgb '%s' fs transparent solid 0.15 %s",
                       k ? ", \\\n     " : "", k, col, k ? "notitle" : "title 'model (lower-upper bound)'");
        vd_bprintf(c, "%sdata index %zu using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb '%s' title ",
                   band || k ? ", \\\n     " : "", k, col);
        if (o->series)
            vd_gp_quotef(c, "%s = %s", sl, sv[k]);
        else
            vd_gp_quotef(c, "%s", yl);
    }
    vd_bprintf(c, "\n");
    return 0;
}

/* The user's texts (--title, --xlabel, --ylabel) reach gnuplot too. */
static int drawable_options(const sw_plot_opts *o, ddio_err *e)
{
    const char *const v[] = {o->title, o->xlabel, o->ylabel}, *const opt[] = {"--title", "--xlabel", "--ylabel"};
    for (size_t i = 0; i < 3; i++)
        if (v[i] && vd_gp_text_check(v[i], opt[i], "the text", e) != 0)
            return -1;
    return 0;
}

/* The columns of the model's bounds of a hit rate y (model_X_hit_frac, or
 * its older name model_X_hit: model_X_hit_frac_lower / _upper, or their
 * older names); -1 when y has none. */
static void band_columns(const table *t, const char *y, int *clo, int *cup)
{
    *clo = *cup = -1;
    const char *ycur = ddio_name_current(y);   /* the bounds' names follow the current names */
    size_t n = strlen(ycur);
    if (strncmp(ycur, "model_", 6) != 0 || n <= 9 || strcmp(ycur + n - 9, "_hit_frac") != 0)
        return;
    char name[300];
    snprintf(name, sizeof name, "%s_lower", ycur);
    *clo = column(t, name);   /* column(): an older file's names too (ddio_name_same) */
    snprintf(name, sizeof name, "%s_upper", ycur);
    *cup = column(t, name);
}

/* The kept rows of t: status ok and every --where.  Their count, or -1
 * with e filled. */
static long keep_rows(const table *t, const sw_plot_opts *o, const char *path, char *keep, ddio_err *e)
{
    int cw[SW_PLOT_MAX_WHERE];
    const char *wv[SW_PLOT_MAX_WHERE];
    for (int i = 0; i < o->n_where; i++) {
        const char *eq = strchr(o->where[i], '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - o->where[i]) : 0, o->where[i]);
        if (!eq)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--where: '%s' is not PARAM=VALUE", o->where[i]);
        if ((cw[i] = column(t, name)) < 0 || !is_param(t, cw[i]))
            return no_column(t, "--where", name, path, 1, e);
        wv[i] = eq + 1;
    }
    long kept = 0;
    for (size_t r = 0; r < t->nrow; r++) {
        char **row = &t->cell[r * t->ncol];
        int ok = strcmp(row[t->status], "ok") == 0;
        for (int i = 0; i < o->n_where && ok; i++) {
            double a, v;
            ok = strcmp(row[cw[i]], wv[i]) == 0 || (num(row[cw[i]], &a) && num(wv[i], &v) && a == v);
        }
        keep[r] = (char)ok;
        kept += ok;
    }
    if (!kept)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no computed point%s", path, o->n_where ? " matches the --where" : "");
    return kept;
}

/* Every parameter not drawn must be the same on all kept points. */
static int one_value_each(const table *t, const char *keep, const int *drawn, const char *path, ddio_err *e)
{
    for (size_t c = t->first_param; c < t->first_param + t->n_param; c++) {
        if ((int)c == drawn[0] || (int)c == drawn[1] || (int)c == drawn[2])
            continue;
        const char *v[3];
        size_t n = distinct(t, keep, (int)c, v, 2);
        if (n > 1) {
            char v0[64], v1[64], col[64];
            vd_gp_visible(v[0], v0, sizeof v0);
            vd_gp_visible(v[1], v1, sizeof v1);
            vd_gp_visible(t->col[c], col, sizeof col);
            return ddio_errf(e, DDIO_EXIT_USAGE,
                             "%s: parameter '%s' varies (%s, %s%s): give it --series, or fix it with --where %s=VALUE",
                             path, col, v0, v1, n > 2 ? ", ..." : "", col);
        }
    }
    return 0;
}

/* The kept points that have a number in y, into pts; their count (0 with
 * e filled: none), or -1 with e filled. */
static long points(const table *t, const char *keep, const int *col, const sw_plot_opts *o, pt *pts, ddio_err *e)
{
    int cx = col[0], cy = col[1], cs = col[2], ch = col[3], clo, cup;
    band_columns(t, o->y, &clo, &cup);
    long n = 0;
    for (size_t r = 0; r < t->nrow; r++) {
        if (!keep[r])
            continue;
        char **row = &t->cell[r * t->ncol];
        pt p = {.series = cs >= 0 ? row[cs] : "", .h = ch >= 0 ? row[ch] : "", .xs = row[cx]};
        if (!num(row[cx], &p.x))
            return ddio_errf(e, DDIO_EXIT_USAGE, "--x: %s is a word ('%s'): give it --series, or fix it with --where",
                             o->x, row[cx]);
        if (!num(row[cy], &p.y))
            continue;   /* not computed by this engine, or not a number here */
        p.lo = clo >= 0 && num(row[clo], &p.lo) ? p.lo : NAN;
        p.up = cup >= 0 && num(row[cup], &p.up) ? p.up : NAN;
        pts[n++] = p;
    }
    return n;
}

int sw_plot(const char *path, const sw_plot_opts *o, const vd_fig_out *out, ddio_err *warn, ddio_err *e)
{
    if (warn)
        warn->msg[0] = '\0';
    if (drawable_options(o, e) != 0)   /* the figure's name: vd_figure_write checks it */
        return -1;
    table t;
    if (sw_table_load(path, &t, e) != 0)
        return -1;
    if (t.cut_line && warn)
        ddio_errf(warn, DDIO_EXIT_OK, "%s:%zu: the last row is cut short (no end of line): it is left out", path,
                  t.cut_line);
    int rc = -1;
    char *keep = calloc(t.nrow ? t.nrow : 1, 1);
    pt *pts = calloc(t.nrow ? t.nrow : 1, sizeof *pts);
    vd_buf d = {0}, c = {0};
    int col[4];
    if (!keep || !pts) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    if (columns(&t, o, path, &col[0], &col[1], &col[2], &col[3], e) != 0 || keep_rows(&t, o, path, keep, e) < 0 ||
        drawable_values(&t, keep, (const int[]){col[2], col[3], col[3] >= 0 ? col[0] : -1}, 3, path, e) != 0 ||
        one_value_each(&t, keep, (const int[]){col[0], col[2], col[3]}, path, e) != 0)
        goto done;
    long n = points(&t, keep, col, o, pts, e);
    if (n <= 0) {
        if (n == 0)
            ddio_errf(e, DDIO_EXIT_USAGE, "%s: no point has a number in column %s", path, o->y);
        goto done;
    }
    double xmin = INFINITY, xmax = -INFINITY;
    for (long i = 0; i < n; i++)
        xmin = fmin(xmin, pts[i].x), xmax = fmax(xmax, pts[i].x);
    int pct;
    char xl[128], yl[128];
    vd_label(o->x, xl, sizeof xl, NULL);
    vd_label(o->y, yl, sizeof yl, &pct);
    double scale = pct ? 100 : 1;
    if (col[3] >= 0 ? heat_figure(&d, &c, &t, keep, pts, (size_t)n, col[0], col[3], scale, xl, yl, o, e)
                    : line_figure(&d, &c, pts, (size_t)n, xmin > 0 && xmax / xmin >= 8, xmin, xmax, scale, xl, yl, o,
                                  e))
        goto done;
    if (d.oom || c.oom) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    rc = vd_figure_write(d.data, c.data, PLOT_W, PLOT_H, out, e);
done:
    free(d.data);
    free(c.data);
    free(keep);
    free(pts);
    sw_table_free(&t);
    return rc;
}
