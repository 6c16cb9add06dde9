/* test_plot_figure.c - how `plot` dresses a figure (sim/cli/cmd_plot.c,
 * validate/figure.c, validate/label.c): --title, --xlabel, --ylabel,
 * --size and --font-size as they end up in the SVG / PDF, labels in words
 * for known columns (old and new column names) and as written for unknown
 * ones, the key's entry for the model's band, the --script round trip
 * (gnuplot on the saved script draws the same figure, from any folder),
 * errors that name the option as it was typed, and validate --plot's
 * panels in words.  gnuplot is installed by scripts/install-deps.sh. */
#define _GNU_SOURCE 1
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers.h"
#include "validate/figure.h"
#include "validate/label.h"

/* A model sweep with bounds, a simulator column and an unknown one. */
#define CSV                                                                                               \
    "id,rx_ring,ddio_ways,status,error,model_pcie_write_hit,model_pcie_write_lower,model_pcie_write_upper," \
    "sim_mem_gbps,my_metric\n"                                                                            \
    "1,64,2,ok,,0.5,0.4,0.6,1.5,7\n"                                                                      \
    "2,128,2,ok,,0.75,0.7,0.8,2,8\n"                                                                      \
    "3,64,4,ok,,0.625,0.6,0.7,3,9\n"                                                                      \
    "4,128,4,ok,,0.875,0.8,0.9,4,10\n"
#define SERIES "--x rx_ring --y model_pcie_write_hit --series ddio_ways"


/* A new folder holding CSV as r.csv. */
static void csv_dir(char *dir, size_t cap)
{
    make_tmpdir(dir, cap);
    put_file(dir, "r.csv", CSV);
}

/* `ddiosim plot ARGS` in dir must succeed silently. */
static void plot_ok(const char *dir, const char *args)
{
    cli_run r = run_shellf(dir, "'%s' plot %s", ddiosim_bin(), args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    cr_expect_str_eq(r.err, "", "%s", args);
    cli_run_free(&r);
}

Test(plot_figure, labels_in_words_old_and_new_column_names)
{
    static const struct {
        const char *name, *want;
        int pct;
    } c[] = {
        {"rx_ring", "RX ring (descriptors)", 0},
        {"ddio_ways", "DDIO ways", 0},
        {"pkt_size", "Packet size (B)", 0},
        {"uncore_ghz", "Uncore (GHz)", 0},
        {"cores", "Cores", 0},
        {"sim_pcie_write_hit", "PCIe write hit, simulator (%)", 1},
        {"sim_pcie_write_hit_frac", "PCIe write hit, simulator (%)", 1},
        {"model_pcie_read_hit", "PCIe read hit, model (%)", 1},
        {"model_pcie_write_lower_frac", "PCIe write hit, lower bound, model (%)", 1},
        {"pcie_write_hit", "PCIe write hit (%)", 1},
        {"sim_throughput_gbps", "Throughput, simulator (Gb/s)", 0},
        {"sim_mem_gbps", "Memory traffic, simulator (GB/s)", 0},
        {"sim_mem_gbyte_s", "Memory traffic, simulator (GB/s)", 0},
        {"model_mem_write_gbps", "Memory write traffic, model (GB/s)", 0},
        {"model_mem_write_gbyte_s", "Memory write traffic, model (GB/s)", 0},
        {"my_metric", "my_metric", 0},
        {"my_hit", "my_hit (%)", 1},
        {"sim_new_thing_frac", "sim_new_thing_frac (%)", 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char buf[128];
        int pct = -1;
        vd_label(c[i].name, buf, sizeof buf, &pct);
        cr_expect_str_eq(buf, c[i].want, "%s", c[i].name);
        cr_expect_eq(pct, c[i].pct, "%s", c[i].name);
    }
}

Test(plot_figure, data_file_beside_the_script)
{
    char buf[64];
    vd_fig_data_path("fig.gp", buf, sizeof buf);
    cr_expect_str_eq(buf, "fig.dat");
    vd_fig_data_path("a.b/fig", buf, sizeof buf);
    cr_expect_str_eq(buf, "a.b/fig.dat");
    vd_fig_data_path("d/.hidden", buf, sizeof buf);
    cr_expect_str_eq(buf, "d/.hidden.dat");
    vd_fig_data_path("x.dat", buf, sizeof buf);
    cr_expect_str_eq(buf, "", "a .dat script would be its own data");
}

/* Title (quotes, backslashes, a gnuplot escape and macro drawn as written),
 * both labels, the size in pixels and the font size, in the SVG. */
Test(plot_figure, title_labels_size_and_font_in_the_svg, .timeout = 120)
{
    char dir[64];
    csv_dir(dir, sizeof dir);
    plot_ok(dir, "r.csv " SERIES " -o a.svg --title 'It'\\''s \"q\" \\n a\\b @x `x`' --xlabel 'Ring, per core' "
                 "--ylabel 'Hits [%]' --size 800x500 --font-size 14");
    char *svg = slurp_in(dir, "a.svg", NULL);
    /* gnuplot writes XML's quotes as entities. */
    cr_expect(strstr(svg, "It&apos;s &quot;q&quot; \\n a\\b @x `x`") || strstr(svg, "It's \"q\" \\n a\\b @x `x`"),
              "the title is not drawn as written");
    cr_expect(strstr(svg, ">Ring, per core<"), "no x label");
    cr_expect(strstr(svg, ">Hits [%]<"), "no y label");
    cr_expect(strstr(svg, "width=\"800\" height=\"500\""), "not 800x500");
    cr_expect(strstr(svg, "font-size=\"14.00\""), "not 14 pt");
    cr_expect(!strstr(svg, "font-size=\"11.00\""), "a text kept the default size");
    free(svg);
    char listing[256];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "a.svg,r.csv");
    rm_rf(dir);
}

/* Without options: the axes in words with units, the key names the
 * series in words and the model's band; an unknown column as written. */
Test(plot_figure, default_labels_and_the_key, .timeout = 120)
{
    char dir[64];
    csv_dir(dir, sizeof dir);
    plot_ok(dir, "r.csv " SERIES " -o a.svg");
    plot_ok(dir, "r.csv --x rx_ring --y sim_mem_gbps --where ddio_ways=2 -o b.svg");
    plot_ok(dir, "r.csv --x rx_ring --y my_metric --where ddio_ways=2 -o c.svg");
    plot_ok(dir, "r.csv --x rx_ring --y model_pcie_write_hit --heatmap ddio_ways -o d.svg");
    char *a = slurp_in(dir, "a.svg", NULL), *b = slurp_in(dir, "b.svg", NULL);
    char *c = slurp_in(dir, "c.svg", NULL), *d = slurp_in(dir, "d.svg", NULL);
    cr_expect(strstr(a, ">RX ring (descriptors)<"), "x label");
    cr_expect(strstr(a, ">PCIe write hit, model (%)<"), "y label");
    cr_expect(strstr(a, ">model (lower-upper bound)<"), "no key entry for the band");
    cr_expect(strstr(a, ">DDIO ways = 2<") && strstr(a, ">DDIO ways = 4<"), "series in words");
    cr_expect(!strstr(a, "model_pcie_write_hit"), "a raw column name is drawn");
    cr_expect(strstr(b, ">Memory traffic, simulator (GB/s)<"), "GB/s label");
    cr_expect(!strstr(b, "lower-upper"), "a band key without a band");
    cr_expect(strstr(c, ">my_metric<"), "an unknown column as written");
    /* Heat map: the parameters in words, the metric on the colour box. */
    cr_expect(strstr(d, ">DDIO ways<") && strstr(d, ">RX ring (descriptors)<"), "heat-map axes");
    cr_expect(strstr(d, ">PCIe write hit, model (%)<"), "no colour-box label");
    free(a);
    free(b);
    free(c);
    free(d);
    rm_rf(dir);
}

/* The current column names (docs/conventions.md: _hit_frac, its bounds
 * _hit_frac_lower / _upper, _gbyte_s) draw the same figure as an older
 * version's, band included. */
Test(plot_figure, frac_columns_draw_the_same_figure, .timeout = 120)
{
    char dir[64];
    csv_dir(dir, sizeof dir);
    cr_assert_eq(shf("cd '%s' && sed '1s/_hit,/_hit_frac,/; 1s/write_lower/write_hit_frac_lower/; "
                     "1s/write_upper/write_hit_frac_upper/; 1s/mem_gbps/mem_gbyte_s/' r.csv > f.csv",
                     dir),
                 0);
    plot_ok(dir, "r.csv " SERIES " -o a.svg");
    plot_ok(dir, "f.csv --x rx_ring --y model_pcie_write_hit_frac --series ddio_ways -o b.svg");
    char *a = slurp_in(dir, "a.svg", NULL), *b = slurp_in(dir, "b.svg", NULL);
    cr_expect(strstr(b, ">model (lower-upper bound)<"), "the band of the current names");
    cr_expect_str_eq(b, a, "model_pcie_write_hit_frac is drawn otherwise");
    free(a);
    free(b);
    rm_rf(dir);
}

/* A PDF of the size asked in inches (72 points each), its signature. */
Test(plot_figure, pdf_size_in_inches, .timeout = 120)
{
    char dir[64];
    csv_dir(dir, sizeof dir);
    plot_ok(dir, "r.csv " SERIES " -o a.pdf --size 3.5x2.5 --font-size 8 --title 'Fig. 17'");
    size_t len = 0;
    char *pdf = slurp_in(dir, "a.pdf", &len);
    cr_assert_gt(len, 100);
    cr_expect(memcmp(pdf, "%PDF-", 5) == 0, "not a PDF signature: %.8s", pdf);
    cr_expect(memmem(pdf, len, "/MediaBox [ 0 0 252 180 ]", 25) != NULL, "not 3.5 x 2.5 in");
    free(pdf);
    rm_rf(dir);
}

/* --script: the script and its data file beside it; gnuplot on the script,
 * run from another folder, draws the figure ddiosim drew, byte for byte. */
Test(plot_figure, script_round_trip, .timeout = 120)
{
    char dir[64];
    csv_dir(dir, sizeof dir);
    cr_assert_eq(shf("mkdir '%s/s' '%s/elsewhere'", dir, dir), 0);
    const char *title = "--title 'Round '\\''trip'\\'' \\\\ @x'";
    for (int heat = 0; heat < 2; heat++) {
        char args[512];
        snprintf(args, sizeof args, "r.csv --x rx_ring --y model_pcie_write_hit %s ddio_ways %s -o \"$PWD/a.svg\" "
                 "--script s/fig.gp --size 700x400", heat ? "--heatmap" : "--series", title);
        plot_ok(dir, args);
        char listing[256];
        cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "a.svg,elsewhere,r.csv,s");
        cr_expect_str_eq(dir_listing(strcat(strcpy(args, dir), "/s"), listing, sizeof listing), "fig.dat,fig.gp");
        char *want = slurp_in(dir, "a.svg", NULL), *gp = slurp_in(dir, "s/fig.gp", NULL);
        char *dat = slurp_in(dir, "s/fig.dat", NULL);
        cr_expect(strstr(gp, "'fig.dat'") && !strstr(gp, "EOD"), "the script does not read its data file");
        cr_expect(strstr(dat, heat ? "1 1 87.5" : "128 87.5 80 90"), "%s", dat);
        cr_assert_eq(shf("rm '%s/a.svg' && cd '%s/elsewhere' && gnuplot ../s/fig.gp 2>/dev/null", dir, dir), 0);
        char *again = slurp_in(dir, "a.svg", NULL);
        cr_expect(strstr(again, "Round &apos;trip&apos; \\\\ @x") || strstr(again, "Round 'trip' \\\\ @x"),
                  "no title");
        cr_expect_str_eq(again, want, "gnuplot on the saved script draws another figure");
        free(want);
        free(gp);
        free(dat);
        free(again);
    }
    rm_rf(dir);
}

/* Errors name the option as the user typed it, and write nothing. */
Test(plot_figure, errors_name_the_option_as_typed, .timeout = 120)
{
    char dir[64];
    csv_dir(dir, sizeof dir);
    static const struct {
        const char *args, *want;
    } c[] = {
        {"-o a.jpg", "ddiosim plot: -o a.jpg: the file name must end in .svg, .png or .pdf\n"},
        {"--output a.jpg", "ddiosim plot: --output a.jpg: the file name must end in .svg, .png or .pdf\n"},
        {"--output=a.jpg", "ddiosim plot: --output a.jpg: the file name must end in .svg, .png or .pdf\n"},
        {"-oa.jpg", "ddiosim plot: -o a.jpg: the file name must end in .svg, .png or .pdf\n"},
        {"--output no/a.svg", "ddiosim plot: --output: no/a.svg: cannot create: No such file or directory\n"},
        {"-o a.svg --script no/f.gp", "ddiosim plot: --script: no/f.gp: cannot create: No such file or directory\n"},
        {"-o a.svg --script f.dat",
         "ddiosim plot: --script f.dat: its data file (the name with .dat) would be itself: name it F.gp\n"},
        {"--output a.svg --script a.svg",
         "ddiosim plot: --output and --script name the same file (a.svg): one would overwrite the other\n"},
        {"-o a.svg --script r.csv",
         "ddiosim plot: --script r.csv is the file results reads: it would be overwritten\n"},
        {"-o a.svg --size 3x2",
         "ddiosim plot: --size 3x2: a .svg or .png is WxH whole pixels, each 64 to 20000 (e.g. 960x600)\n"},
        {"-o a.png --size 800.5x600",
         "ddiosim plot: --size 800.5x600: a .svg or .png is WxH whole pixels, each 64 to 20000 (e.g. 960x600)\n"},
        {"-o a.pdf --size 960x600", "ddiosim plot: --size 960x600: a .pdf is WxH inches, each 0.5 to 200 (e.g. 3.5x2.5)\n"},
        {"-o a.pdf --size 4", "ddiosim plot: --size 4: a .pdf is WxH inches, each 0.5 to 200 (e.g. 3.5x2.5)\n"},
        {"-o a.svg --font-size 2", "ddiosim plot: --font-size 2: the font size is points, 4 to 72\n"},
        {"-o a.svg --title \"$(printf 'a\\nb')\"",
         "ddiosim plot: --title: the text 'a\\nb' holds a control character, which a figure cannot show\n"},
        {"-o a.svg --xlabel \"$(printf 'a\\tb')\"",
         "ddiosim plot: --xlabel: the text 'a\\tb' holds a control character, which a figure cannot show\n"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        cli_run r = run_shellf(dir, "'%s' plot r.csv " SERIES " %s", ddiosim_bin(), c[i].args);
        cr_expect_eq(r.status, i == 4 || i == 5 ? 1 : 2, "%s: exit %d", c[i].args, r.status);
        cr_expect_str_eq(r.err, c[i].want, "%s", c[i].args);
        cli_run_free(&r);
    }
    char listing[256];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "r.csv");
    rm_rf(dir);
}

/* validate --plot: a row per experiment, its panels titled and labelled in
 * words, the key naming measured, simulator, model and the model's band,
 * a line per series value in words; no panel for a metric not measured. */
Test(plot_figure, validate_plot_in_words, .timeout = 240)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/e", dir);
    cr_assert_eq(shf("mkdir '%s'", sub), 0);
    put_file(sub, "experiment.json",
             "{\"name\": \"ring\", \"source\": \"npf\", \"fixed\": {\"cores\": 1},"
             " \"x\": {\"param\": \"rx_ring\"}, \"series\": {\"param\": \"pkt_size\"}, \"values\": \"percent\","
             " \"metrics\": {\"pcie_write_hit\": \"W\", \"pcie_read_hit\": \"R\"}}");
    put_file(sub, "256W.csv", "64 90 92\n128 95 97\n");
    put_file(sub, "1500W.csv", "64 80 82\n128 85 87\n");
    put_file(sub, "256R.csv", "64 80 84\n128 88 90\n");
    put_file(sub, "1500R.csv", "64 70 74\n128 78 80\n");
    /* A second experiment measured write hits only: no read panel. */
    snprintf(sub, sizeof sub, "%s/w", dir);
    cr_assert_eq(shf("mkdir '%s'", sub), 0);
    put_file(sub, "experiment.json",
             "{\"name\": \"wonly\", \"source\": \"npf\", \"fixed\": {\"cores\": 1, \"pkt_size\": 1500},"
             " \"x\": {\"param\": \"ddio_ways\"}, \"values\": \"percent\", \"metrics\": {\"pcie_write_hit\": \"W\"}}");
    put_file(sub, "W.csv", "2 90 92\n4 95 97\n");
    cli_run r = run_shellf(dir, "'%s' validate --measured e --measured w --packets 20000 --plot f.svg -o v.txt",
                           ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char *svg = slurp_in(dir, "f.svg", NULL);
    static const char *const want[] = {
        ">ring: PCIe write hit<", ">ring: PCIe read hit<", ">PCIe write hit (%)<", ">PCIe read hit (%)<",
        ">RX ring (descriptors)<", ">measured (mean, sd)<", ">simulator<", ">model<",
        ">model (lower-upper bound)<", ">Packet size (B) = 256<", ">Packet size (B) = 1500<",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(svg, want[i]), "no %s", want[i]);
    cr_expect(strstr(svg, ">wonly: PCIe write hit<") && strstr(svg, ">DDIO ways<"), "no panel of wonly");
    cr_expect(!strstr(svg, ">wonly: PCIe read hit<"), "a panel of a metric wonly did not measure");
    cr_expect(strstr(svg, "width=\"1200\" height=\"880\""), "not 1200 x 2 x 440");
    free(svg);
    rm_rf(dir);
}
