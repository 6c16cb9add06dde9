/* sweep_plot.c - draw a sweep's results (validate/sweep.h, sw_plot): one
 * metric against one parameter, a line per value of a series parameter,
 * the model's bounds as a band, or a heat map over two parameters. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/parse.h"
#include "validate/plot.h"
#include "validate/sweep.h"
#include "validate/text.h"

#define MAX_COLS 128
#define MAX_SERIES 12
#define PLOT_W 960
#define PLOT_H 600

typedef struct table {
    size_t ncol, nrow;
    char *col[MAX_COLS];
    char **cell;                /* nrow x ncol, pointers into text */
    size_t first_param, n_param;   /* the parameter columns: after id, before status */
    int status;                 /* column of status */
    char *text;
} table;

static void table_free(table *t)
{
    free(t->cell);
    free(t->text);
    memset(t, 0, sizeof *t);
}

/* Split one CSV line in place into at most max fields (quotes: "" is ").
 * Returns the field count, or -1 when there are more than max. */
static int split(char *s, char **f, int max)
{
    int n = 0;
    for (;;) {
        if (n == max)
            return -1;
        if (*s == '"') {
            char *w = ++s;
            f[n++] = w;
            while (*s && !(*s == '"' && s[1] != '"')) {
                if (*s == '"')
                    s++;
                *w++ = *s++;
            }
            if (*s == '"')
                s++;
            char *end = s;
            *w = '\0';
            s = end;
        } else {
            f[n++] = s;
            s += strcspn(s, ",");
        }
        if (*s != ',') {
            *s = '\0';
            return n;
        }
        *s++ = '\0';
    }
}

static int load(const char *path, table *t, ddio_err *e)
{
    memset(t, 0, sizeof *t);
    size_t len;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: cannot read it", path);
    if (fseek(f, 0, SEEK_END) != 0 || (long)(len = (size_t)ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return ddio_errf(e, DDIO_EXIT_IO, "%s: read error", path);
    }
    t->text = malloc(len + 1);
    if (!t->text || fread(t->text, 1, len, f) != len) {
        fclose(f);
        table_free(t);
        return ddio_errf(e, DDIO_EXIT_IO, "%s: read error", path);
    }
    fclose(f);
    t->text[len] = '\0';
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += t->text[i] == '\n';
    char *s = t->text, *next;
    size_t lineno = 0;
    int header = 0;
    for (; s && *s; s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (*s == '#' || !*s)
            continue;
        if (!header) {
            int n = split(s, t->col, MAX_COLS);
            if (n < 0)
                return table_free(t), ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: more than %d columns", path, lineno,
                                                MAX_COLS);
            t->ncol = (size_t)n;
            t->status = -1;
            for (size_t c = 0; c < t->ncol; c++)
                if (strcmp(t->col[c], "status") == 0)
                    t->status = (int)c;
            if (strcmp(t->col[0], "id") != 0 || t->status < 1)
                return table_free(t), ddio_errf(e, DDIO_EXIT_USAGE,
                                                "%s:%zu: not the header of a ddiosim sweep CSV (id, the "
                                                "parameters, status, ...)", path, lineno);
            t->first_param = 1;
            t->n_param = (size_t)t->status - 1;
            t->cell = malloc(lines * t->ncol * sizeof *t->cell);
            if (!t->cell)
                return table_free(t), ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            header = 1;
            continue;
        }
        char **row = &t->cell[t->nrow * t->ncol];
        int n = split(s, row, (int)t->ncol);
        if (n != (int)t->ncol)
            return table_free(t), ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: %s fields where the header has %zu", path,
                                            lineno, n < 0 ? "more" : "fewer", t->ncol);
        t->nrow++;
    }
    if (!header)
        return table_free(t), ddio_errf(e, DDIO_EXIT_USAGE, "%s: no header line", path);
    return 0;
}

static int column(const table *t, const char *name)
{
    for (size_t c = 0; c < t->ncol; c++)
        if (strcmp(t->col[c], name) == 0)
            return (int)c;
    return -1;
}

static int is_param(const table *t, int c)
{
    return c >= (int)t->first_param && c < (int)(t->first_param + t->n_param);
}

static int no_column(const table *t, const char *opt, const char *name, const char *path, int param, ddio_err *e)
{
    char list[2000] = "";
    size_t k = 0;
    for (size_t c = param ? t->first_param : 0; c < (param ? t->first_param + t->n_param : t->ncol); c++)
        k += (size_t)snprintf(list + k, k < sizeof list ? sizeof list - k : 0, "%s%s", k ? ", " : "", t->col[c]);
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a %s of %s (%s: %.1500s)", opt, name,
                     param ? "parameter" : "column", path, param ? "parameters" : "columns", list);
}

/* Axis label of a column, with its unit. */
static void label(const char *c, char *buf, size_t cap, int *percent)
{
    static const struct {
        const char *name, *label;
    } params[] = {{"rx_ring", "RX ring (descriptors per core)"}, {"rx_ring_total", "RX descriptors, all cores"},
                  {"tx_ring", "TX ring (descriptors per core)"}, {"cores", "cores"},
                  {"burst", "burst (packets)"},                   {"ddio_ways", "DDIO ways"},
                  {"pkt_size", "packet size (B)"},               {"uncore_ghz", "uncore clock (GHz)"},
                  {"rate", "offered rate (Gb/s)"},                {"extra_cycles", "extra cycles per packet"},
                  {"write_ratio", "write ratio"},                  {"flows", "flows"},
                  {"flow_burst", "flow burst (packets)"},         {"gen_threads", "generator threads"}};
    *percent = 0;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (strcmp(c, params[i].name) == 0) {
            snprintf(buf, cap, "%s", params[i].label);
            return;
        }
    size_t n = strlen(c);
    const char *unit = "";
    if (n > 4 && strcmp(c + n - 4, "_hit") == 0) {
        unit = " (%)";
        *percent = 1;
    } else if (strstr(c, "lower") || strstr(c, "upper")) {
        unit = " (%)";
        *percent = strstr(c, "_hit") || strstr(c, "pcie") ? 1 : 0;
    } else if (strstr(c, "mem_gbps")) {
        unit = " (GB/s)";
    } else if (strstr(c, "_gbps")) {
        unit = " (Gb/s)";
    } else if (strstr(c, "bytes_per_pkt")) {
        unit = " (B per packet)";
    } else if (strstr(c, "_q_")) {
        unit = " (packets)";
    } else if (strstr(c, "_lines_")) {
        unit = " (lines)";
    } else if (strstr(c, "footprint_bytes")) {
        unit = " (bytes)";
    }
    snprintf(buf, cap, "%s%s", c, unit);
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

int sw_plot(const char *path, const sw_plot_opts *o, const char *out, ddio_err *e)
{
    if (vd_plot_check(out, e) != 0)
        return -1;
    table t;
    if (load(path, &t, e) != 0)
        return -1;
    int rc = -1;
    char *keep = calloc(t.nrow ? t.nrow : 1, 1);
    pt *pts = calloc(t.nrow ? t.nrow : 1, sizeof *pts);
    vd_buf b = {0};
    if (!keep || !pts) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    int cx = column(&t, o->x), cy = column(&t, o->y), cs = o->series ? column(&t, o->series) : -1,
        ch = o->heatmap ? column(&t, o->heatmap) : -1;
    if (cx < 0 || !is_param(&t, cx)) {
        no_column(&t, "--x", o->x, path, 1, e);
        goto done;
    }
    if (cy < 0 || is_param(&t, cy) || cy <= t.status + 1) {
        no_column(&t, "--y", o->y, path, 0, e);
        goto done;
    }
    if (o->series && (cs < 0 || !is_param(&t, cs) || cs == cx)) {
        no_column(&t, "--series", o->series, path, 1, e);
        goto done;
    }
    if (o->heatmap && (ch < 0 || !is_param(&t, ch) || ch == cx || ch == cs)) {
        no_column(&t, "--heatmap", o->heatmap, path, 1, e);
        goto done;
    }
    int cw[SW_PLOT_MAX_WHERE];
    const char *wv[SW_PLOT_MAX_WHERE];
    for (int i = 0; i < o->n_where; i++) {
        const char *eq = strchr(o->where[i], '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - o->where[i]) : 0, o->where[i]);
        if (!eq || (cw[i] = column(&t, name)) < 0 || !is_param(&t, cw[i])) {
            if (!eq)
                ddio_errf(e, DDIO_EXIT_USAGE, "--where: '%s' is not PARAM=VALUE", o->where[i]);
            else
                no_column(&t, "--where", name, path, 1, e);
            goto done;
        }
        wv[i] = eq + 1;
    }
    size_t kept = 0;
    for (size_t r = 0; r < t.nrow; r++) {
        char **row = &t.cell[r * t.ncol];
        int ok = strcmp(row[t.status], "ok") == 0;
        for (int i = 0; i < o->n_where && ok; i++) {
            double a, v;
            ok = strcmp(row[cw[i]], wv[i]) == 0 || (num(row[cw[i]], &a) && num(wv[i], &v) && a == v);
        }
        keep[r] = (char)ok;
        kept += (size_t)ok;
    }
    if (!kept) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: no computed point%s", path, o->n_where ? " matches the --where" : "");
        goto done;
    }
    /* Every other parameter must be the same on all kept points. */
    for (size_t c = t.first_param; c < t.first_param + t.n_param; c++) {
        if ((int)c == cx || (int)c == cs || (int)c == ch)
            continue;
        const char *v[3];
        size_t n = distinct(&t, keep, (int)c, v, 2);
        if (n > 1) {
            ddio_errf(e, DDIO_EXIT_USAGE,
                      "%s: parameter '%s' varies (%s, %s%s): give it --series, or fix it with --where %s=VALUE", path,
                      t.col[c], v[0], v[1], n > 2 ? ", ..." : "", t.col[c]);
            goto done;
        }
    }
    int pct;
    char xl[128], yl[128];
    label(o->x, xl, sizeof xl, &pct);
    label(o->y, yl, sizeof yl, &pct);
    double scale = pct ? 100 : 1;
    char lo_name[128], up_name[128];
    int clo = -1, cup = -1;
    size_t yn = strlen(o->y);
    if (yn > 4 && strcmp(o->y + yn - 4, "_hit") == 0 && strncmp(o->y, "model_", 6) == 0) {
        snprintf(lo_name, sizeof lo_name, "%.*s_lower", (int)(yn - 4), o->y);
        snprintf(up_name, sizeof up_name, "%.*s_upper", (int)(yn - 4), o->y);
        clo = column(&t, lo_name);
        cup = column(&t, up_name);
    }
    size_t n = 0;
    double xmin = INFINITY, xmax = -INFINITY;
    for (size_t r = 0; r < t.nrow; r++) {
        if (!keep[r])
            continue;
        char **row = &t.cell[r * t.ncol];
        pt p = {.series = cs >= 0 ? row[cs] : "", .h = ch >= 0 ? row[ch] : "", .xs = row[cx]};
        if (!num(row[cx], &p.x)) {
            ddio_errf(e, DDIO_EXIT_USAGE, "--x: %s is a word ('%s'): give it --series, or fix it with --where",
                      o->x, row[cx]);
            goto done;
        }
        if (!num(row[cy], &p.y))
            continue;   /* not computed by this engine, or not a number here */
        p.lo = clo >= 0 && num(row[clo], &p.lo) ? p.lo : NAN;
        p.up = cup >= 0 && num(row[cup], &p.up) ? p.up : NAN;
        xmin = fmin(xmin, p.x);
        xmax = fmax(xmax, p.x);
        pts[n++] = p;
    }
    if (!n) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: no point has a number in column %s", path, o->y);
        goto done;
    }
    int logx = xmin > 0 && xmax / xmin >= 8;
    vd_bprintf(&b, "set grid\nset datafile missing 'NaN'\nset xlabel \"%s\"\n", xl);
    if (ch >= 0) {
        /* Heat map: the two parameters' values as categories, the metric as colour. */
        const char *hx[4096], *hy[4096];
        size_t nx = distinct(&t, keep, cx, hx, 4096), ny = distinct(&t, keep, ch, hy, 4096);
        if (nx > 4096 || ny > 4096) {
            ddio_errf(e, DDIO_EXIT_USAGE, "--heatmap: more than 4096 values on an axis");
            goto done;
        }
        qsort(hx, nx, sizeof *hx, cmp_numtext);
        qsort(hy, ny, sizeof *hy, cmp_numtext);
        char hl[128];
        int hp;
        label(o->heatmap, hl, sizeof hl, &hp);
        vd_bprintf(&b, "set ylabel \"%s\"\nset cblabel \"%s\"\nset palette rgbformulae 33,13,10\nunset grid\n", hl, yl);
        vd_bprintf(&b, "set xtics (");
        for (size_t i = 0; i < nx; i++)
            vd_bprintf(&b, "%s\"%s\" %zu", i ? ", " : "", hx[i], i);
        vd_bprintf(&b, ")\nset ytics (");
        for (size_t i = 0; i < ny; i++)
            vd_bprintf(&b, "%s\"%s\" %zu", i ? ", " : "", hy[i], i);
        vd_bprintf(&b, ")\nset xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n$d << EOD\n", nx - 1, ny - 1);
        for (size_t i = 0; i < n; i++) {
            size_t ix = 0, iy = 0;
            while (ix < nx && strcmp(hx[ix], pts[i].xs) != 0)
                ix++;
            while (iy < ny && strcmp(hy[iy], pts[i].h) != 0)
                iy++;
            vd_bprintf(&b, "%zu %zu %.10g\n", ix, iy, pts[i].y * scale);
        }
        vd_bprintf(&b, "EOD\nplot $d using 1:2:3 with image notitle\n");
    } else {
        qsort(pts, n, sizeof *pts, by_series_x);
        vd_bprintf(&b, "set ylabel \"%s\"\nset key outside right top\n", yl);
        if (logx)
            vd_bprintf(&b, "set logscale x 2\nset xrange [%g:%g]\n", xmin / 1.2, xmax * 1.2);
        if (pct)
            vd_bprintf(&b, "set yrange [0:105]\n");
        const char *sv[MAX_SERIES + 1];
        size_t ns = 0;
        for (size_t i = 0; i < n; i++)
            if (!ns || strcmp(sv[ns - 1], pts[i].series) != 0) {
                if (ns == MAX_SERIES) {
                    ddio_errf(e, DDIO_EXIT_USAGE, "--series %s: more than %d values", o->series, MAX_SERIES);
                    goto done;
                }
                sv[ns++] = pts[i].series;
            }
        int band = 0;
        for (size_t i = 0; i < n; i++)
            band |= !isnan(pts[i].lo) && !isnan(pts[i].up);
        for (size_t k = 0; k < ns; k++) {
            vd_bprintf(&b, "$s%zu << EOD\n", k);
            for (size_t i = 0; i < n; i++)
                if (strcmp(pts[i].series, sv[k]) == 0)
                    vd_bprintf(&b, "%.10g %.10g %.10g %.10g\n", pts[i].x, pts[i].y * scale, pts[i].lo * scale,
                        pts[i].up * scale);
            vd_bprintf(&b, "EOD\n");
        }
        static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                             "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#637939"};
        vd_bprintf(&b, "plot ");
        for (size_t k = 0; k < ns; k++) {
            const char *c = colors[k % (sizeof colors / sizeof colors[0])];
            char title[160];
            if (cs >= 0)
                snprintf(title, sizeof title, "title \"%s = %s\"", o->series, sv[k]);
            else
                snprintf(title, sizeof title, "title \"%s\"", o->y);
            if (band)
                vd_bprintf(&b, "%s$s%zu using 1:3:4 with filledcurves fc rgb '%s' fs transparent solid 0.15 %s", k ? ", " : "",
                    k, c, k ? "notitle" : "title 'model bounds (LRU .. BIP)'");
            vd_bprintf(&b, "%s$s%zu using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb '%s' %s", band || k ? ", " : "", k,
                c, title);
        }
        vd_bprintf(&b, "\n");
    }
    if (b.oom) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    rc = vd_gnuplot(b.data, PLOT_W, PLOT_H, out, e);
done:
    free(b.data);
    free(keep);
    free(pts);
    table_free(&t);
    return rc;
}
