/* test_plot_heatmap.c - `plot --heatmap` puts every value in its own cell:
 * on a grid filtered with --where, from rows in any order, with a cell that
 * has no number left empty, read back from the cells gnuplot draws in the
 * SVG (one polygon per cell, `with image pixels`). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers.h"

typedef struct cell {
    double x0, y0;      /* the polygon's smallest SVG x and y */
    int r, g, b;
} cell;

/* The filled polygons of the SVG's plot (at most max): those of the
 * plot's group, not the colour box's. */
static size_t polygons(const char *svg, cell *c, size_t max)
{
    size_t n = 0;
    const char *plot = strstr(svg, "gnuplot_plot_1");
    cr_assert_not_null(plot);
    const char *first = strstr(plot, "<polygon fill = 'rgb(");
    cr_assert_not_null(first);
    const char *end = strstr(first, "</g>");
    cr_assert_not_null(end);
    for (const char *p = first; p && p < end && n < max; p = strstr(p + 1, "<polygon fill = 'rgb(")) {
        cell k;
        double x[4], y[4];
        if (sscanf(p, "<polygon fill = 'rgb(%d, %d, %d)' points = '%lf,%lf %lf,%lf %lf,%lf %lf,%lf", &k.r, &k.g, &k.b,
                   &x[0], &y[0], &x[1], &y[1], &x[2], &y[2], &x[3], &y[3]) != 11)
            continue;
        k.x0 = x[0];
        k.y0 = y[0];
        for (int i = 1; i < 4; i++) {
            k.x0 = x[i] < k.x0 ? x[i] : k.x0;
            k.y0 = y[i] < k.y0 ? y[i] : k.y0;
        }
        c[n++] = k;
    }
    return n;
}

/* The rank of v among the distinct values of the cells' x0 (by_x) or y0. */
static int rank(const cell *c, size_t n, double v, int by_x)
{
    int below = 0;
    double seen[64];
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        double w = by_x ? c[i].x0 : c[i].y0;
        int dup = 0;
        for (size_t j = 0; j < ns; j++)
            dup |= seen[j] > w - 0.01 && seen[j] < w + 0.01;
        if (dup || ns == 64)
            continue;
        seen[ns++] = w;
        below += w < v - 0.01;
    }
    return below;
}

Test(plot_heatmap, every_value_in_its_cell_on_a_filtered_grid, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    /* x = rx_ring (3 values), heat map = ddio_ways (2), cores filtered to 1.
     * At cores 1: (1024, 4) is the one high value, (512, 8) has no number;
     * the cores 2 rows and the order of the rows would shift a grid drawn
     * in file order. */
    put_file(dir, "r.csv",
             "id,rx_ring,ddio_ways,cores,status,error,model_pcie_write_hit\n"
             "1,1024,4,1,ok,,0.9\n"
             "2,256,8,2,ok,,0.1\n"
             "3,256,4,1,ok,,0.5\n"
             "4,512,8,1,ok,,\n"
             "5,512,4,2,ok,,0.2\n"
             "6,256,8,1,ok,,0.5\n"
             "7,1024,8,1,ok,,0.5\n"
             "8,512,4,1,ok,,0.5\n");
    cli_run r = run_shellf(dir, "'%s' plot r.csv --x rx_ring --y model_pcie_write_hit --heatmap ddio_ways "
                                "--where cores=1 -o h.svg", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char path[128];
    snprintf(path, sizeof path, "%s/h.svg", dir);
    char *svg = slurp(path, NULL);
    cr_assert_not_null(svg);
    cell c[16];
    size_t n = polygons(svg, c, 16);
    cr_assert_eq(n, 5, "six cells, one without a number: %zu polygons", n);
    /* Columns left to right 256, 512, 1024; rows bottom to top 4, 8 (SVG
     * y grows downwards: the bottom row has the larger y0). */
    int hot = 0, hot_col = -1, hot_row = -1, at_missing = 0;
    for (size_t i = 0; i < n; i++) {
        int col = rank(c, n, c[i].x0, 1), row = 1 - rank(c, n, c[i].y0, 0);
        int same = 0;   /* the cells of this one's colour, itself included */
        for (size_t j = 0; j < n; j++)
            same += c[j].r == c[i].r && c[j].g == c[i].g && c[j].b == c[i].b;
        if (same == 1) {
            hot++;
            hot_col = col;
            hot_row = row;
        }
        at_missing += col == 1 && row == 1;
    }
    cr_expect_eq(hot, 1, "one cell stands out");
    cr_expect_eq(hot_col, 2, "the high value at rx_ring 1024");
    cr_expect_eq(hot_row, 0, "the high value at ddio_ways 4");
    cr_expect_eq(at_missing, 0, "nothing drawn at (512, 8)");
    free(svg);
    /* Two points in one cell hide each other: refused, one line. */
    put_file(dir, "d.csv",
             "id,rx_ring,ddio_ways,status,error,model_pcie_write_hit\n"
             "1,256,4,ok,,0.5\n"
             "2,256,4,ok,,0.6\n");
    r = run_shellf(dir, "'%s' plot d.csv --x rx_ring --y model_pcie_write_hit --heatmap ddio_ways -o d.svg",
                   ddiosim_bin());
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim plot: --heatmap: two points at rx_ring=256, ddio_ways=4: keep one with --where\n");
    cli_run_free(&r);
}

/* -o F.pdf: a vector PDF from the cairo terminal (what papers use), for a
 * line plot and a heat map alike. */
Test(plot_heatmap, pdf_output, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "r.csv",
             "id,rx_ring,ddio_ways,status,error,model_pcie_write_hit\n"
             "1,256,4,ok,,0.9\n"
             "2,512,4,ok,,0.7\n"
             "3,256,8,ok,,0.95\n"
             "4,512,8,ok,,0.8\n");
    const char *args[] = {"--series ddio_ways -o a.pdf", "--heatmap ddio_ways -o b.pdf"};
    for (int i = 0; i < 2; i++) {
        cli_run r = run_shellf(dir, "'%s' plot r.csv --x rx_ring --y model_pcie_write_hit %s", ddiosim_bin(), args[i]);
        cr_assert_eq(r.status, 0, "%s: %s", args[i], r.err);
        cli_run_free(&r);
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, i ? "b.pdf" : "a.pdf");
        size_t len = 0;
        char *pdf = slurp(path, &len);
        cr_assert(pdf && len > 100, "%s", path);
        cr_expect(memcmp(pdf, "%PDF-", 5) == 0, "not a PDF signature: %.8s", pdf);
        cr_expect(strstr(pdf + len - 64 > pdf ? pdf + len - 64 : pdf, "%%EOF") != NULL, "no %%%%EOF at the end");
        free(pdf);
    }
}
