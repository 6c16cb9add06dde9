/* test_validate.c - `ddiosim validate`'s inputs and command: the NPF reader
 * (validate/npf.c), experiment folders (validate/experiment.c: the four
 * shipped ddio-bench experiments, every experiment.json error, the perf and
 * pcm-pcie sources) and the command itself (sim/cli/cmd_validate.c: options,
 * reports that do not depend on --jobs, the JSON report's arithmetic,
 * --max-mae, --plot).
 *
 * The expected means and standard deviations of the shipped experiments are
 * computed from the CSV files with exact rational arithmetic (python3,
 * fractions.Fraction of the decimal text / 100); the C code divides in
 * doubles, hence the 1e-12 tolerance.  The CLI tests use a tiny temporary
 * experiment (2 points, 2 runs each) and 20000 simulated packets. */
#define _DEFAULT_SOURCE 1   /* mkdtemp, strdup */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "validate/experiment.h"
#include "validate/measure.h"
#include "sim/explore/runner.h"

#define BENCH DDIOSIM_SOURCE_DIR "/validate/data/ddio-bench/"
#define SAMPLES DDIOSIM_SOURCE_DIR "/tests/data/validate/"
#define KNOWN_PARAMS                                                                                          \
    "cores, rx_ring, rx_ring_total, tx_ring, burst, ddio_ways, policy, extra_cycles, uncore_ghz, write_ratio, " \
    "pkt_size, rate, flows, flow_burst, gen_threads, flow_tuples"

/* ------------------------------------------------------------ helpers */

/* A fresh empty folder (malloc'ed path). */
static char *temp_dir(void)
{
    char tmpl[] = "/tmp/ddiosim-validate-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl), "mkdtemp");
    return strdup(tmpl);
}


/* Number of entries of a folder (without . and ..). */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Remove a flat folder and its files; frees the path. */
static void remove_dir(char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

/* `fmt` with every '@' replaced by `dir` (static buffer). */
static const char *at(const char *fmt, const char *dir)
{
    static char buf[1400];
    size_t n = 0;
    for (const char *p = fmt; *p && n + 1 < sizeof buf; p++) {
        if (*p == '@') {
            size_t k = strlen(dir);
            cr_assert(n + k + 1 < sizeof buf);
            memcpy(buf + n, dir, k);
            n += k;
        } else {
            buf[n++] = *p;
        }
    }
    buf[n] = '\0';
    return buf;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ------------------------------------------------------------ NPF reader */

static char *npf_file(const char *text)
{
    char *p = write_temp(".csv", text, strlen(text));
    cr_assert_not_null(p);
    return p;
}

static void expect_row(const vd_npf_row *r, double x, uint32_t line, uint32_t runs, const double *run)
{
    cr_expect_eq(r->x, x, "x %.17g, expected %.17g", r->x, x);
    cr_expect_eq(r->line, line, "x %g: line %u, expected %u", x, r->line, line);
    cr_assert_eq(r->runs, runs, "x %g: %u runs, expected %u", x, r->runs, runs);
    for (uint32_t k = 0; k < runs; k++)
        cr_expect_eq(r->run[k], run[k], "x %g run %u: %.17g, expected %.17g", x, k, r->run[k], run[k]);
}

/* vd_npf_read(text) fails with exit code 2 and the message want (@ = the file). */
static void expect_npf_error(const char *text, const char *want)
{
    char *p = npf_file(text);
    vd_npf n;
    ddio_err e = {0};
    cr_expect_eq(vd_npf_read(p, &n, &e), -1, "no error for '%s'", text);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "exit code %d: %s", e.exit_code, e.msg);
    cr_expect_str_eq(e.msg, at(want, p));
    cr_expect_eq(n.n, 0);
    cr_expect_null(n.row);
    unlink(p);
    free(p);
}

Test(validate_npf, rows_runs_and_lines_skipping_blanks_and_comments)
{
    char *p = npf_file("# ddio-bench, ItoM-HIT-RATE\n"
                       "\n"
                       "64 90.5 91 92.25\n"
                       "  \t\n"
                       "   # an indented comment\n"
                       "128\t95   97\n"
                       "2.5e2 -1 0 1e-3\n");
    vd_npf n;
    ddio_err e = {0};
    cr_assert_eq(vd_npf_read(p, &n, &e), 0, "%s", e.msg);
    cr_assert_eq(n.n, 3);
    expect_row(&n.row[0], 64, 3, 3, (double[]){90.5, 91, 92.25});
    expect_row(&n.row[1], 128, 6, 2, (double[]){95, 97});
    expect_row(&n.row[2], 250, 7, 3, (double[]){-1, 0, 0.001});
    vd_npf_free(&n);
    cr_expect_eq(n.n, 0);
    cr_expect_null(n.row);
    unlink(p);
    free(p);
}

/* ddio-bench's pktsize-desc files end their lines in CRLF. */
Test(validate_npf, crlf_line_endings)
{
    char *p = npf_file("1 2 3\r\n\r\n# c\r\n2.5 4e1 5\r\n");
    vd_npf n;
    ddio_err e = {0};
    cr_assert_eq(vd_npf_read(p, &n, &e), 0, "%s", e.msg);
    cr_assert_eq(n.n, 2);
    expect_row(&n.row[0], 1, 1, 2, (double[]){2, 3});
    expect_row(&n.row[1], 2.5, 4, 2, (double[]){40, 5});
    vd_npf_free(&n);
    unlink(p);
    free(p);
}

/* A last row without a newline may have been cut mid-number: refused
 * (tests/test_validate_inputs.c has the cut file and the harmless comment). */
Test(validate_npf, last_line_without_newline)
{
    expect_npf_error("1 2\n3 4 5", "@:2: the last line has no newline: the file may be cut short");
}

Test(validate_npf, errors_name_the_file_and_line)
{
    expect_npf_error("64 90\n4\n", "@:2: x = 4 has no runs");
    expect_npf_error("4 \r\n", "@:1: x = 4 has no runs");
    expect_npf_error("1 2\n\n1 2 abc 3\n", "@:3: run 2: 'abc' is not a finite number");
    expect_npf_error("abc 1 2\n", "@:1: x value 'abc' is not a finite number");
    expect_npf_error("12x 1 2\n", "@:1: x value '12x' is not a finite number");
    expect_npf_error("nan 1\n", "@:1: x value 'nan' is not a finite number");
    expect_npf_error("inf 1\n", "@:1: x value 'inf' is not a finite number");
    expect_npf_error("1 inf\n", "@:1: run 1: 'inf' is not a finite number");
    expect_npf_error("1 2 -nan\n", "@:1: run 2: '-nan' is not a finite number");
    expect_npf_error("1 1e999\n", "@:1: run 1: '1e999' is not a finite number");
    expect_npf_error("1 2\n2 3\n1.0 4\n", "@:3: x = 1 repeats line 1");
    expect_npf_error("", "@: no measurements (an empty file)");
    expect_npf_error("# only a comment\n\n", "@: no measurements (an empty file)");
}

Test(validate_npf, missing_file_and_folder)
{
    vd_npf n;
    ddio_err e = {0};
    char *d = temp_dir();
    char path[600];
    snprintf(path, sizeof path, "%s/nope.csv", d);
    cr_expect_eq(vd_npf_read(path, &n, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect_str_eq(e.msg, at("@/nope.csv: cannot open: No such file or directory", d));
    e = (ddio_err){0};
    cr_expect_eq(vd_npf_read(d, &n, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect_str_eq(e.msg, at("@: is a directory", d));
    cr_expect_eq(n.n, 0);
    remove_dir(d);
}

/* ------------------------------------------------------------ shipped experiments */

static void load_ok(const char *dir, vd_experiment *x)
{
    ddio_err e = {0};
    cr_assert_eq(vd_experiment_load(dir, x, &e), 0, "%s: %s", dir, e.msg);
}

/* Parameter i of point p is name = value (a number). */
static void expect_num(const vd_point *p, uint32_t i, const char *name, double value)
{
    cr_assert_lt(i, p->n_params, "parameter %u of %u", i, p->n_params);
    cr_expect_str_eq(p->param[i].name, name);
    cr_expect_eq(p->param[i].value, value, "%s = %.17g, expected %.17g", name, p->param[i].value, value);
    cr_expect_str_eq(p->param[i].text, "", "%s", name);
}

/* Parameter i of point p is name = word. */
static void expect_word(const vd_point *p, uint32_t i, const char *name, const char *word)
{
    cr_assert_lt(i, p->n_params, "parameter %u of %u", i, p->n_params);
    cr_expect_str_eq(p->param[i].name, name);
    cr_expect(isnan(p->param[i].value), "%s: value %g for a word", name, p->param[i].value);
    cr_expect_str_eq(p->param[i].text, word);
}

/* The shipped experiments run at the generator's measured rate: ~99.4 Gb/s
 * on the wire at 1024 and 1500 B (the 256 B one is checked by value). */
static void expect_offered(const vd_point *p, uint32_t i)
{
    cr_assert_lt(i, p->n_params, "parameter %u of %u", i, p->n_params);
    cr_expect_str_eq(p->param[i].name, "rate");
    cr_expect_str_eq(p->param[i].text, "offered");
    cr_expect(p->param[i].value > 20 && p->param[i].value < 99.5, "rate %g", p->param[i].value);
}

/* Metric m of point p: runs, mean and sample sd. */
static void expect_measured(const vd_point *p, int m, uint32_t runs, double mean, double sd)
{
    cr_assert(p->has[m], "%s: no %s", p->where, vd_metric_name((enum vd_metric)m));
    const vd_record *r = &p->m[m];
    cr_expect_str_eq(r->metric, vd_metric_name((enum vd_metric)m));
    cr_expect_eq(r->runs, runs, "%s: %u runs", p->where, r->runs);
    expect_near(r->mean, mean, 1e-12);
    expect_near(r->sd, sd, 1e-12);
    cr_expect_eq(r->n_params, p->n_params);
}

/* Points in increasing order of (series, x). */
static void expect_sorted(const vd_experiment *x)
{
    for (size_t i = 1; i < x->n; i++) {
        const vd_param *s0 = x->series_param[0] ? vd_point_param(&x->point[i - 1], x->series_param) : NULL;
        const vd_param *s1 = x->series_param[0] ? vd_point_param(&x->point[i], x->series_param) : NULL;
        double x0 = vd_point_param(&x->point[i - 1], x->x_param)->value;
        double x1 = vd_point_param(&x->point[i], x->x_param)->value;
        int ok = s0 ? (s0->value < s1->value || (s0->value == s1->value && x0 < x1)) : x0 < x1;
        cr_expect(ok, "%s: point %zu is not after point %zu", x->name, i, i - 1);
    }
}

/* The ddio-bench generator (FastClick, 4 threads, 4096 UDP flows, a flow
 * drawn for every packet: no flow_burst), fixed in every shipped experiment
 * from parameter k on. */
static void expect_generator(const vd_point *p, uint32_t k)
{
    expect_num(p, k, "flows", 4096);
    expect_num(p, k + 1, "gen_threads", 4);
    expect_word(p, k + 2, "flow_tuples", "random");
    cr_expect_null(vd_point_param(p, "flow_burst"));
}

Test(validate_experiment, pktsize_desc_series_of_packet_sizes)
{
    vd_experiment x;
    load_ok(BENCH "pktsize-desc", &x);
    cr_expect_str_eq(x.name, "pktsize-desc");
    cr_expect_str_eq(x.source, "npf");
    cr_expect_str_eq(x.machine, "skylake-6140");
    cr_expect_str_eq(x.workload, "l2fwd");
    cr_expect_str_eq(x.x_param, "rx_ring");
    cr_expect_str_eq(x.series_param, "pkt_size");
    cr_expect_str_eq(x.dir, BENCH "pktsize-desc");
    /* 4 packet sizes (file-name prefixes 256, 512, 1024, 1500) x 6 ring sizes. */
    cr_assert_eq(x.n, 24);
    cr_expect_eq(x.n_fixed, 6);
    static const double sizes[] = {256, 512, 1024, 1500}, rings[] = {128, 256, 512, 1024, 2048, 4096};
    for (size_t i = 0; i < x.n; i++) {
        const vd_point *p = &x.point[i];
        cr_assert_eq(p->n_params, 8, "point %zu", i);
        expect_num(p, 0, "cores", 1);
        expect_num(p, 1, "ddio_ways", 2);
        expect_offered(p, 2);
        expect_generator(p, 3);
        expect_num(p, 6, "pkt_size", sizes[i / 6]);
        expect_num(p, 7, "rx_ring", rings[i % 6]);
        cr_expect(p->has[VD_PCIE_WRITE_HIT] && p->has[VD_PCIE_READ_HIT], "point %zu", i);
        cr_expect(!p->has[VD_PCIE_WRITE_PARTIAL_HIT], "point %zu", i);
    }
    expect_sorted(&x);
    cr_expect_str_eq(x.point[0].where, "256ItoM-HIT-RATE.csv:1");
    cr_expect_str_eq(x.point[23].where, "1500ItoM-HIT-RATE.csv:6");
    cr_expect_str_eq(vd_point_param(&x.point[0], "rate")->text, "offered");
    /* 256TXRATE.csv, row 128: the generator offered 26.758 Gb/s on the wire
     * (it cannot make 256 B frames at line rate), 24.464 Gb/s of frames. */
    expect_near(vd_point_param(&x.point[0], "rate")->value, 26.75801748152 * 256 / 280, 1e-9);
    cr_expect_null(vd_point_param(&x.point[0], "policy"));
    /* 256ItoM-HIT-RATE.csv, row 128 (ten runs around 99.99999 %). */
    expect_measured(&x.point[0], VD_PCIE_WRITE_HIT, 10, 0.99999985555483772, 9.4952578102421988e-08);
    /* 1500PCIeRdCur-HIT-RATE.csv, row 4096. */
    expect_measured(&x.point[23], VD_PCIE_READ_HIT, 10, 0.39859367277568308, 0.023713267787858892);
    vd_experiment_free(&x);
    cr_expect_eq(x.n, 0);
    cr_expect_null(x.point);
}

Test(validate_experiment, cores)
{
    vd_experiment x;
    load_ok(BENCH "cores", &x);
    cr_assert_eq(x.n, 10);
    cr_expect_eq(x.n_fixed, 7);
    cr_expect_str_eq(x.x_param, "cores");
    cr_expect_str_eq(x.series_param, "");
    static const double cores[] = {1, 2, 4, 6, 8, 10, 12, 14, 16, 18};
    for (size_t i = 0; i < x.n; i++) {
        const vd_point *p = &x.point[i];
        cr_assert_eq(p->n_params, 8, "point %zu", i);
        expect_num(p, 0, "rx_ring", 256);
        expect_num(p, 1, "pkt_size", 1500);
        expect_num(p, 2, "ddio_ways", 2);
        expect_offered(p, 3);
        expect_generator(p, 4);
        expect_num(p, 7, "cores", cores[i]);
    }
    expect_sorted(&x);
    cr_expect_str_eq(x.point[1].where, "ItoM-HIT-RATE.csv:2");
    /* Row "2" of ItoM-HIT-RATE.csv and of PCIeRdCur-HIT-RATE.csv: 10 runs
     * (63.09 ... 61.33 % and 62.85 ... 63.47 %). */
    expect_measured(&x.point[1], VD_PCIE_WRITE_HIT, 10, 0.72073576903363312, 0.11031951989581704);
    expect_measured(&x.point[1], VD_PCIE_READ_HIT, 10, 0.75225252445746371, 0.12144134148835486);
    vd_experiment_free(&x);
}

Test(validate_experiment, ddio_tune_nine_runs_at_two_ways)
{
    vd_experiment x;
    load_ok(BENCH "ddio-tune", &x);
    cr_assert_eq(x.n, 10);
    cr_expect_eq(x.n_fixed, 7);
    cr_expect_str_eq(x.x_param, "ddio_ways");
    for (size_t i = 0; i < x.n; i++) {
        const vd_point *p = &x.point[i];
        cr_assert_eq(p->n_params, 8, "point %zu", i);
        expect_num(p, 0, "cores", 1);
        expect_num(p, 1, "rx_ring", 4096);
        expect_num(p, 2, "pkt_size", 1024);
        expect_offered(p, 3);
        expect_generator(p, 4);
        expect_num(p, 7, "ddio_ways", (double)(i + 2));
        cr_expect_eq(p->m[VD_PCIE_WRITE_HIT].runs, i == 0 ? 9u : 10u, "point %zu", i);
    }
    /* Row "2" has 9 runs in both files (64.95 ... 61.87 %, 65.66 ... 61.82 %). */
    expect_measured(&x.point[0], VD_PCIE_WRITE_HIT, 9, 0.6339569478109095, 0.014836753302459021);
    expect_measured(&x.point[0], VD_PCIE_READ_HIT, 9, 0.63158030841736124, 0.018744217194520959);
    vd_experiment_free(&x);
}

/* 4096 RX descriptors in total, divided over 1, 2 or 4 cores (the series,
 * from the file-name prefix) x 2 to 8 DDIO ways (the first column). */
Test(validate_experiment, cores_vs_ways_total_descriptors)
{
    vd_experiment x;
    load_ok(BENCH "cores-vs-ways", &x);
    cr_assert_eq(x.n, 12);
    cr_expect_eq(x.n_fixed, 6);
    cr_expect_str_eq(x.x_param, "ddio_ways");
    cr_expect_str_eq(x.series_param, "cores");
    for (size_t i = 0; i < x.n; i++) {
        const vd_point *p = &x.point[i];
        cr_assert_eq(p->n_params, 8, "point %zu", i);
        expect_num(p, 0, "rx_ring_total", 4096);
        expect_num(p, 1, "pkt_size", 1500);
        expect_offered(p, 2);
        expect_generator(p, 3);
        expect_num(p, 6, "cores", (double)(1u << (i / 4)));
        expect_num(p, 7, "ddio_ways", (double)(2 + 2 * (i % 4)));
        cr_expect(p->has[VD_PCIE_WRITE_HIT] && p->has[VD_PCIE_READ_HIT], "point %zu", i);
    }
    expect_sorted(&x);
    cr_expect_str_eq(x.point[4].where, "2ItoM-HIT-RATE.csv:1");
    /* 2ItoM-HIT-RATE.csv, row 2: ten runs, 22.3 ... 32.5 %. */
    cr_expect(fabs(x.point[4].m[VD_PCIE_WRITE_HIT].mean - 0.2567) < 5e-4, "%.6f",
              x.point[4].m[VD_PCIE_WRITE_HIT].mean);
    vd_experiment_free(&x);
}

/* x.scale 0.1: the first column is the uncore clock in 100 MHz. */
Test(validate_experiment, freq_scaled_x)
{
    vd_experiment x;
    load_ok(BENCH "freq", &x);
    cr_assert_eq(x.n, 7);
    cr_expect_eq(x.n_fixed, 8);
    cr_expect_str_eq(x.x_param, "uncore_ghz");
    for (size_t i = 0; i < x.n; i++) {
        const vd_point *p = &x.point[i];
        cr_assert_eq(p->n_params, 9, "point %zu", i);
        expect_num(p, 0, "cores", 1);
        expect_num(p, 1, "rx_ring", 4096);
        expect_num(p, 2, "pkt_size", 1500);
        expect_num(p, 3, "ddio_ways", 2);
        expect_offered(p, 4);
        expect_generator(p, 5);
        cr_expect_str_eq(p->param[8].name, "uncore_ghz");
        expect_near(p->param[8].value, 1.2 + 0.2 * (double)i, 1e-12);   /* 12 * 0.1 ... 24 * 0.1 */
    }
    expect_sorted(&x);
    char v[32];
    vd_param_format(&x.point[0].param[8], v, sizeof v);
    cr_expect_str_eq(v, "1.2");
    vd_param_format(&x.point[0].param[4], v, sizeof v);
    cr_expect_str_eq(v, "offered");
    /* Row "12" of ItoM-HIT-RATE.csv: 34.38 ... 33.04 %. */
    expect_measured(&x.point[0], VD_PCIE_WRITE_HIT, 10, 0.37425462679099758, 0.02392686431171025);
    vd_experiment_free(&x);
}

/* ------------------------------------------------------------ experiment.json errors */

/* A folder holding experiment.json = json and W.csv = w (when not NULL). */
static char *experiment_dir(const char *json, const char *w)
{
    char *d = temp_dir();
    put_file(d, "experiment.json", json);
    if (w)
        put_file(d, "W.csv", w);
    return d;
}

/* Loading fails with exit code 2 and the message want (@ = the folder). */
static void expect_load_error(const char *json, const char *w, const char *want)
{
    char *d = experiment_dir(json, w);
    vd_experiment x;
    ddio_err e = {0};
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1, "no error for %s", json);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "exit code %d: %s", e.exit_code, e.msg);
    cr_expect_str_eq(e.msg, at(want, d), "for %s", json);
    cr_expect_null(strchr(e.msg, '\n'));
    cr_expect_eq(x.n, 0);
    cr_expect_null(x.point);
    remove_dir(d);
}

/* An NPF experiment over rx_ring, one metric in W.csv. */
#define NPF_HEAD "\"name\": \"t\", \"source\": \"npf\", "
#define NPF_X "\"x\": {\"param\": \"rx_ring\"}, "
#define NPF_W "\"metrics\": {\"pcie_write_hit\": \"W\"}"
#define W_ROWS "64 90 92\n128 95 97\n"

Test(validate_experiment, a_small_npf_experiment)
{
    char *d = experiment_dir("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": \"max\", \"pkt_size\": 1500}}",
                             "# W\n128 95 97\n64 90 92\n");
    vd_experiment x;
    load_ok(d, &x);
    cr_expect_str_eq(x.machine, "");
    cr_expect_str_eq(x.workload, "");
    cr_assert_eq(x.n, 2);
    cr_expect_eq(x.n_fixed, 2);
    /* Sorted by x, though the file lists 128 first. */
    expect_word(&x.point[0], 0, "rate", "max");
    expect_num(&x.point[0], 1, "pkt_size", 1500);
    expect_num(&x.point[0], 2, "rx_ring", 64);
    expect_num(&x.point[1], 2, "rx_ring", 128);
    cr_expect_str_eq(x.point[0].where, "W.csv:3");
    /* (90 + 92) / 2 %, sd sqrt(1 + 1) %. */
    expect_measured(&x.point[0], VD_PCIE_WRITE_HIT, 2, 0.91, 0.014142135623730951);
    expect_measured(&x.point[1], VD_PCIE_WRITE_HIT, 2, 0.96, 0.014142135623730951);
    cr_expect(!x.point[0].has[VD_PCIE_READ_HIT]);
    vd_experiment_free(&x);
    remove_dir(d);

    /* Fractions, a rate in Gb/s, x = first column * 64 + 0 and a series. */
    d = experiment_dir("{" NPF_HEAD "\"x\": {\"param\": \"rx_ring\", \"scale\": 64, \"offset\": 0}, "
                       "\"series\": {\"param\": \"pkt_size\"}, \"values\": \"fraction\", "
                       "\"fixed\": {\"rate\": 40}, \"metrics\": {\"pcie_read_hit\": \"R\"}}",
                       NULL);
    put_file(d, "1500R.csv", "1 0.5 0.75\n2 1 1\n");
    put_file(d, "64R.csv", "2 0.25\n");
    put_file(d, "XR.csv", "not a series: skipped\n");
    load_ok(d, &x);
    cr_assert_eq(x.n, 3);
    cr_expect_eq(x.n_fixed, 1);
    expect_num(&x.point[0], 0, "rate", 40);
    expect_num(&x.point[0], 1, "pkt_size", 64);
    expect_num(&x.point[0], 2, "rx_ring", 128);
    expect_num(&x.point[1], 1, "pkt_size", 1500);
    expect_num(&x.point[1], 2, "rx_ring", 64);
    expect_num(&x.point[2], 2, "rx_ring", 128);
    cr_expect_str_eq(x.point[0].where, "64R.csv:1");
    expect_measured(&x.point[0], VD_PCIE_READ_HIT, 1, 0.25, 0);
    expect_measured(&x.point[1], VD_PCIE_READ_HIT, 2, 0.625, 0.17677669529663689);   /* 0.25 / sqrt 2 */
    expect_measured(&x.point[2], VD_PCIE_READ_HIT, 2, 1, 0);
    vd_experiment_free(&x);
    remove_dir(d);
}

Test(validate_experiment, json_and_schema_errors)
{
    expect_load_error("{\"name\": oops}", NULL,
                      "@/experiment.json: line 1, column 10: malformed JSON near 'oops}'");
    expect_load_error("", NULL, "@/experiment.json: malformed JSON: the file is empty");
    expect_load_error("[1]", NULL, "@/experiment.json: (top): must be a JSON object");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixd\": {\"cores\": 1}}", W_ROWS,
                      "@/experiment.json: fixd: unknown key");
    expect_load_error("{\"source\": \"npf\", " NPF_X NPF_W "}", W_ROWS, "@/experiment.json: name: missing (required)");
    expect_load_error("{\"name\": \"\", \"source\": \"npf\", " NPF_X NPF_W "}", W_ROWS,
                      "@/experiment.json: name: must be a non-empty string");
    expect_load_error("{\"name\": \"t\", " NPF_X NPF_W "}", W_ROWS, "@/experiment.json: source: missing (required)");
    expect_load_error("{" NPF_HEAD NPF_X "\"values\": \"percent\"}", W_ROWS,
                      "@/experiment.json: metrics: missing (required)");
    expect_load_error("{" NPF_HEAD NPF_X "\"metrics\": {}}", W_ROWS,
                      "@/experiment.json: metrics: must be a non-empty object of metric: measured name");
    expect_load_error("{\"name\": \"t\", \"source\": \"csv\", " NPF_X NPF_W "}", W_ROWS,
                      "@/experiment.json: source: 'csv' is not one of npf, pcm-pcie, perf");
    expect_load_error("{" NPF_HEAD NPF_X "\"metrics\": {\"pcie_hit\": \"W\"}}", W_ROWS,
                      "@/experiment.json: metrics.pcie_hit: unknown metric (known: pcie_write_hit, pcie_read_hit, "
                      "pcie_write_partial_hit)");
    expect_load_error("{" NPF_HEAD NPF_X "\"metrics\": {\"pcie_write_hit\": \"../W\"}}", W_ROWS,
                      "@/experiment.json: metrics.pcie_write_hit: must be the measured file's or counter's name "
                      "(a string, no '/')");
}

Test(validate_experiment, fixed_parameter_errors)
{
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"ring\": 64}}", W_ROWS,
                      "@/experiment.json: fixed.ring: unknown parameter 'ring' (known: " KNOWN_PARAMS ")");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"cores\": \"two\"}}", W_ROWS,
                      "@/experiment.json: fixed.cores: must be a number, not a string");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"cores\": 1.5}}", W_ROWS,
                      "@/experiment.json: fixed.cores: must be a whole number >= 0");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": \"fast\"}}", W_ROWS,
                      "@/experiment.json: fixed.rate: must be a number (Gb/s) or \"max\"");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": 0}}", W_ROWS,
                      "@/experiment.json: fixed.rate: must be > 0 (Gb/s) or \"max\"");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"policy\": 3}}", W_ROWS,
                      "@/experiment.json: fixed.policy: must be a string");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": [1]}", W_ROWS,
                      "@/experiment.json: fixed: must be an object of parameter: value");
}

Test(validate_experiment, machine_and_workload_errors)
{
    unsetenv("DDIOSIM_CONFIG_DIR");
    char want[1024];
    snprintf(want, sizeof want,
             "@/experiment.json: machine: --machine: unknown machine 'nosuch' (known: broadwell-2650v4, "
             "cascadelake-6248, icelake-6338, sapphirerapids-6430, skylake-6132, skylake-6140; searched %s/configs/machines)",
             DDIOSIM_SOURCE_DIR);
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"machine\": \"nosuch\"}", W_ROWS, want);
    /* A path (relative: to the folder) must exist. */
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"machine\": \"m/mine.json\"}", W_ROWS,
                      "@/experiment.json: machine: @/m/mine.json: No such file or directory");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"workload\": \"/nonexistent/w.json\"}", W_ROWS,
                      "@/experiment.json: workload: /nonexistent/w.json: No such file or directory");
    /* A machine file next to experiment.json is found. */
    char *d = experiment_dir("{" NPF_HEAD NPF_X NPF_W ", \"machine\": \"mine.json\"}", W_ROWS);
    put_file(d, "mine.json", "{}\n");
    vd_experiment x;
    load_ok(d, &x);
    cr_expect_str_eq(x.machine, at("@/mine.json", d));
    vd_experiment_free(&x);
    remove_dir(d);
}

Test(validate_experiment, x_and_series_errors)
{
    expect_load_error("{" NPF_HEAD NPF_W "}", W_ROWS, "@/experiment.json: x: missing (required for source npf)");
    expect_load_error("{" NPF_HEAD "\"x\": {}, " NPF_W "}", W_ROWS,
                      "@/experiment.json: x.param: missing, or not a string");
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"ring\"}, " NPF_W "}", W_ROWS,
                      "@/experiment.json: x.param: unknown parameter 'ring' (known: " KNOWN_PARAMS ")");
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"policy\"}, " NPF_W "}", W_ROWS,
                      "@/experiment.json: x.param: 'policy' is not numeric");
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"rx_ring\", \"scale\": 0}, " NPF_W "}", W_ROWS,
                      "@/experiment.json: x.scale: must not be 0");
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"rx_ring\", \"step\": 1}, " NPF_W "}", W_ROWS,
                      "@/experiment.json: x.step: unknown key");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"cores\": 1, \"rx_ring\": 64}}", W_ROWS,
                      "@/experiment.json: fixed: fixes 'rx_ring', which the experiment varies");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"series\": {\"param\": \"pkt_size\"}}", W_ROWS,
                      "@/experiment.json: series: no measured file named <value>W.csv in the folder");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"series\": {\"param\": \"rx_ring\"}}", W_ROWS,
                      "@/experiment.json: series.param: 'rx_ring' is already x.param");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"values\": \"ratio\"}", W_ROWS,
                      "@/experiment.json: values: 'ratio' is not percent or fraction");
    /* x = first column * 0.5: 65 * 0.5 is not a ring size. */
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"rx_ring\", \"scale\": 0.5}, " NPF_W "}", "65 90\n",
                      "@/W.csv:1: rx_ring = 32.5: must be a whole number >= 0 (x.scale / x.offset?)");
    /* Found by the experiment fuzz target's checks: the x of a row passed
     * unchecked but for whole numbers (a ring of 1e30, a rate below 0 were
     * loaded), and two rows that map to one x overwrote the first row's
     * runs (lost, and leaked). */
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"rx_ring\", \"offset\": 1e30}, " NPF_W "}", W_ROWS,
                      "@/W.csv:1: rx_ring = 1e+30: must be a whole number >= 0 (x.scale / x.offset?)");
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"rate\", \"offset\": -100}, " NPF_W "}", W_ROWS,
                      "@/W.csv:1: rate = -36: must be > 0 (Gb/s) or \"max\" (x.scale / x.offset?)");
    expect_load_error("{" NPF_HEAD "\"x\": {\"param\": \"extra_cycles\", \"offset\": 1e30}, " NPF_W "}", W_ROWS,
                      "@/W.csv:2: extra_cycles = 1e+30 again (as at W.csv:1): x.scale, x.offset or x_from map two "
                      "rows to one value");
}

Test(validate_experiment, measured_file_errors)
{
    /* A metric whose file is missing: the message names the file. */
    expect_load_error("{" NPF_HEAD NPF_X "\"metrics\": {\"pcie_write_hit\": \"W\", \"pcie_read_hit\": \"R\"}}", W_ROWS,
                      "@/R.csv: cannot open: No such file or directory");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W "}", "64 90 92\n128\n", "@/W.csv:2: x = 128 has no runs");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W "}", "64 90 abc\n", "@/W.csv:1: run 2: 'abc' is not a finite number");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W "}", "", "@/W.csv: no measurements (an empty file)");
    /* Percent (the default) above 100, and fractions above 1. */
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"values\": \"percent\"}", "64 90 92\n128 150 160\n",
                      "@/W.csv:2: mean 155 is not a rate in [0, 100] (\"values\"?)");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"values\": \"fraction\"}", "64 1.5 1.7\n",
                      "@/W.csv:1: mean 1.6 is not a rate in [0, 1] (\"values\"?)");
}

/* A measured file that is not a regular file is refused before it is
 * opened: a FIFO blocked the open, /dev/zero was read until memory ran
 * out.  x_from names a file in the folder, like the metrics. */
Test(validate_experiment, measured_files_must_be_regular_files)
{
    char *d = experiment_dir("{" NPF_HEAD NPF_X NPF_W "}", NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/W.csv", d);
    cr_assert_eq(mkfifo(path, 0600), 0);
    vd_experiment x;
    ddio_err e = {0};
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect_str_eq(e.msg, at("@/W.csv: not a regular file", d));
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(symlink("/dev/zero", path), 0);
    e = (ddio_err){0};
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1);
    cr_expect_str_eq(e.msg, at("@/W.csv: not a regular file", d));
    cr_assert_eq(unlink(path), 0);
    snprintf(path, sizeof path, "%s/experiment.json", d);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkfifo(path, 0600), 0);
    e = (ddio_err){0};
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1);
    cr_expect_str_eq(e.msg, at("@/experiment.json: not a regular file", d));
    remove_dir(d);
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"x_from\": \"../X\"}", W_ROWS,
                      "@/experiment.json: x_from: must be a measured file's name in the folder (a string, no '/')");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"x_from\": \"\"}", W_ROWS,
                      "@/experiment.json: x_from: must be a non-empty string");
}

#define PERF_HEAD "\"name\": \"p\", \"source\": \"perf\", "
#define PERF_M "\"metrics\": {\"pcie_write_hit\": \"itom\", \"pcie_read_hit\": \"pcirdcur\"}"
#define PERF_PTS "\"points\": [{\"params\": {\"pkt_size\": 1500}, \"runs\": [\"a.csv\"]}]"

Test(validate_experiment, source_specific_keys)
{
    expect_load_error("{" PERF_HEAD PERF_M ", " NPF_X PERF_PTS "}", NULL,
                      "@/experiment.json: x: only for source npf (this experiment's points are listed in points)");
    expect_load_error("{" PERF_HEAD PERF_M ", \"values\": \"percent\", " PERF_PTS "}", NULL,
                      "@/experiment.json: values: only for source npf (this experiment's points are listed in "
                      "points)");
    expect_load_error("{" PERF_HEAD PERF_M ", \"socket\": 1, " PERF_PTS "}", NULL,
                      "@/experiment.json: socket: only for source pcm-pcie (perf's output is per socket already)");
    expect_load_error("{" PERF_HEAD PERF_M "}", NULL,
                      "@/experiment.json: points: missing, or not a non-empty array (required for this source)");
    expect_load_error("{" PERF_HEAD PERF_M ", \"points\": [{\"params\": {\"pkt_size\": 1500}}]}", NULL,
                      "@/experiment.json: points[0]: runs: missing, or not a non-empty array of file names");
    expect_load_error("{" PERF_HEAD PERF_M ", \"points\": [{\"params\": {\"ring\": 1}, \"runs\": [\"a.csv\"]}]}",
                      NULL,
                      "@/experiment.json: points[0].params.ring: unknown parameter 'ring' (known: " KNOWN_PARAMS
                      ")");
    expect_load_error("{" PERF_HEAD PERF_M ", \"points\": [{\"run\": [\"a.csv\"]}]}", NULL,
                      "@/experiment.json: points[0].run: unknown key");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", " PERF_PTS "}", W_ROWS,
                      "@/experiment.json: points: not for source npf (its points are the rows of its files)");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"socket\": 0}", W_ROWS,
                      "@/experiment.json: socket: only for source pcm-pcie");
    expect_load_error("{\"name\": \"c\", \"source\": \"pcm-pcie\", \"socket\": 1.5, " PERF_M ", " PERF_PTS "}", NULL,
                      "@/experiment.json: socket: must be a socket number 0 to 64");
}

/* perf stat files: each run's rate is hit / (hit + miss) of the file, as
 * vd_perf_read and vd_counts_rate compute it. */
Test(validate_experiment, perf_points_and_runs)
{
    char *d = experiment_dir("{" PERF_HEAD PERF_M ", \"fixed\": {\"cores\": 1}, \"points\": ["
                             "{\"params\": {\"pkt_size\": 1500, \"rx_ring\": 512},"
                             " \"runs\": [\"total.csv\", \"" SAMPLES "perf-interval.csv\"]},"
                             "{\"params\": {\"pkt_size\": 64}, \"runs\": [\"total2.csv\"]}]}",
                             NULL);
    /* Each run its own file (one file in two points is refused). */
    char *total = slurp(SAMPLES "perf-total.csv", NULL);
    cr_assert_not_null(total);
    put_file(d, "total.csv", total);
    put_file(d, "total2.csv", total);
    free(total);
    vd_experiment x;
    load_ok(d, &x);
    cr_expect_str_eq(x.source, "perf");
    cr_expect_str_eq(x.x_param, "");
    cr_assert_eq(x.n, 2);
    cr_expect_eq(x.n_fixed, 1);
    /* Points stay in file order. */
    cr_assert_eq(x.point[0].n_params, 3);
    expect_num(&x.point[0], 0, "cores", 1);
    expect_num(&x.point[0], 1, "pkt_size", 1500);
    expect_num(&x.point[0], 2, "rx_ring", 512);
    cr_assert_eq(x.point[1].n_params, 2);
    expect_num(&x.point[1], 1, "pkt_size", 64);
    cr_expect_str_eq(x.point[0].where, "points[0]");
    cr_expect_str_eq(x.point[1].where, "points[1]");

    /* The rates as the reader computes them. */
    vd_counts c;
    ddio_err e = {0};
    cr_assert_eq(vd_perf_read(SAMPLES "perf-total.csv", "itom", &c, &e), 0, "%s", e.msg);
    double itom_total = vd_counts_rate(&c, "perf-total.csv", &e);
    cr_assert_eq(vd_perf_read(SAMPLES "perf-total.csv", "pcirdcur", &c, &e), 0, "%s", e.msg);
    double rd_total = vd_counts_rate(&c, "perf-total.csv", &e);
    cr_expect_eq(itom_total, 9876543.0 / 12000000.0);
    cr_expect_eq(rd_total, 4251877.0 / 4344981.0);

    const vd_record *w = &x.point[1].m[VD_PCIE_WRITE_HIT];
    cr_assert_eq(w->runs, 1);
    cr_expect_eq(w->mean, itom_total);
    cr_expect_eq(w->sd, 0);
    cr_expect_eq(x.point[1].m[VD_PCIE_READ_HIT].mean, rd_total);
    /* Point 0: perf-total (itom 0.82304525) and perf-interval (itom
     * 9600000 / 12000000 = 0.8): mean 0.811522625, sd |a - b| / sqrt 2. */
    w = &x.point[0].m[VD_PCIE_WRITE_HIT];
    cr_assert_eq(w->runs, 2);
    cr_expect_eq(w->run[0], itom_total);
    cr_expect_eq(w->run[1], 0.8);
    expect_near(w->mean, 0.811522625, 1e-15);
    expect_near(w->sd, 0.023045250 / sqrt(2), 1e-15);
    cr_expect(!x.point[0].has[VD_PCIE_WRITE_PARTIAL_HIT]);
    vd_experiment_free(&x);
    remove_dir(d);

    /* A run file that is not there names it. */
    expect_load_error("{" PERF_HEAD PERF_M ", " PERF_PTS "}", NULL, "@/a.csv: cannot open: No such file or directory");
}

/* pcm-pcie: the (Hit) and (Miss) rows of the experiment's socket. */
Test(validate_experiment, pcm_pcie_socket)
{
    char *d = experiment_dir("{\"name\": \"c\", \"source\": \"pcm-pcie\", \"socket\": 1, "
                             "\"metrics\": {\"pcie_write_hit\": \"ItoM\", \"pcie_write_partial_hit\": \"RFO\"}, "
                             "\"points\": [{\"params\": {\"pkt_size\": 1500}, \"runs\": [\"" SAMPLES
                             "pcm-skylake.csv\"]}]}",
                             NULL);
    vd_experiment x;
    load_ok(d, &x);
    cr_expect_str_eq(x.source, "pcm-pcie");
    cr_assert_eq(x.n, 1);
    cr_expect_eq(x.n_fixed, 0);
    /* Socket 1 ItoM: hits 90 + 110 + 100, misses 210 + 190 + 200.  Its RFO
     * column is 0 in every sample: no lookups, so the metric is left out. */
    expect_measured(&x.point[0], VD_PCIE_WRITE_HIT, 1, 300.0 / 900.0, 0);
    cr_expect(!x.point[0].has[VD_PCIE_WRITE_PARTIAL_HIT]);
    cr_expect(!x.point[0].has[VD_PCIE_READ_HIT]);
    vd_experiment_free(&x);
    remove_dir(d);

    /* Socket 0 (the default): the rates vd_pcm_read and vd_counts_rate give. */
    d = experiment_dir("{\"name\": \"c\", \"source\": \"pcm-pcie\", "
                       "\"metrics\": {\"pcie_read_hit\": \"PCIRdCur\", \"pcie_write_partial_hit\": \"RFO\"}, "
                       "\"points\": [{\"params\": {\"pkt_size\": 1500}, \"runs\": [\"" SAMPLES
                       "pcm-skylake.csv\", \"copy.csv\"]}]}",
                       NULL);
    /* Two runs, two files (one file twice is refused): a copy. */
    char *sample = slurp(SAMPLES "pcm-skylake.csv", NULL);
    cr_assert_not_null(sample);
    put_file(d, "copy.csv", sample);
    free(sample);
    load_ok(d, &x);
    vd_counts c;
    ddio_err e = {0};
    cr_assert_eq(vd_pcm_read(SAMPLES "pcm-skylake.csv", "RFO", 0, &c, &e), 0, "%s", e.msg);
    double rfo = vd_counts_rate(&c, "pcm-skylake.csv", &e);
    cr_assert_eq(vd_pcm_read(SAMPLES "pcm-skylake.csv", "PCIRdCur", 0, &c, &e), 0, "%s", e.msg);
    double rd = vd_counts_rate(&c, "pcm-skylake.csv", &e);
    cr_expect_eq(rfo, 0.8);                     /* 480 / 600 */
    cr_expect_eq(rd, 149400.0 / 153000.0);
    cr_expect_eq(x.point[0].m[VD_PCIE_WRITE_PARTIAL_HIT].mean, rfo);
    cr_expect_eq(x.point[0].m[VD_PCIE_WRITE_PARTIAL_HIT].runs, 2);
    cr_expect_eq(x.point[0].m[VD_PCIE_WRITE_PARTIAL_HIT].sd, 0);
    cr_expect_eq(x.point[0].m[VD_PCIE_READ_HIT].mean, rd);
    cr_expect(!x.point[0].has[VD_PCIE_WRITE_HIT]);
    vd_experiment_free(&x);
    remove_dir(d);
}

Test(validate_experiment, not_a_folder)
{
    vd_experiment x;
    ddio_err e = {0};
    cr_expect_eq(vd_experiment_load("/nonexistent/exp", &x, &e), -1);
    cr_expect_str_eq(e.msg, "/nonexistent/exp: No such file or directory");
    cr_expect_eq(vd_experiment_load(BENCH "cores/experiment.json", &x, &e), -1);
    cr_expect_str_eq(e.msg, BENCH "cores/experiment.json: not a folder (an experiment is a folder with an "
                                  "experiment.json)");
    char *d = temp_dir();
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1);
    cr_expect_str_eq(e.msg, at("@/experiment.json: cannot open: No such file or directory", d));
    remove_dir(d);
}

/* ------------------------------------------------------------ the command */

/* The tiny experiment: pkt_size 1500, cores 1, rx_ring 64 and 128, two runs
 * each of pcie_write_hit (W.csv) and pcie_read_hit (R.csv). */
static char *tiny_dir(void)
{
    char *d = experiment_dir("{\"name\": \"tiny\", \"source\": \"npf\", \"fixed\": {\"pkt_size\": 1500, \"cores\": 1},"
                             " \"x\": {\"param\": \"rx_ring\"}, \"values\": \"percent\","
                             " \"metrics\": {\"pcie_write_hit\": \"W\", \"pcie_read_hit\": \"R\"}}",
                             "64 90 92\n128 95 97\n");
    put_file(d, "R.csv", "64 80 84\n128 88 90\n");
    return d;
}

static cli_run validate(const char *dir, const char *opts)
{
    char args[1200];
    int n = snprintf(args, sizeof args, "validate --measured '%s' --packets 20000 %s", dir, opts);
    cr_assert(n > 0 && (size_t)n < sizeof args, "command line too long");
    return run_ddiosim(args);
}

static const cJSON *get(const cJSON *o, const char *name)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert_not_null(x, "no \"%s\"", name);
    return x;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *x = get(o, name);
    cr_assert(cJSON_IsNumber(x), "\"%s\" is not a number", name);
    return x->valuedouble;
}

static cJSON *validate_json(const char *dir, const char *opts)
{
    char o[600];
    snprintf(o, sizeof o, "--format json %s", opts);
    cli_run r = validate(dir, o);
    cr_assert_eq(r.status, 0, "%s: %s", opts, r.err);
    cr_expect_str_eq(r.err, "");
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON: %s", r.out);
    cli_run_free(&r);
    return j;
}

Test(validate_cli, help)
{
    cli_run r = run_ddiosim("validate --help");
    cr_expect_eq(r.status, 0);
    cr_expect(strncmp(r.out, "usage: ddiosim validate [options]\n", 34) == 0, "%s", r.out);
    cr_expect(strstr(r.out, "--max-mae ENGINE:METRIC=PP"), "%s", r.out);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
}

Test(validate_cli, bad_options)
{
    static const cli_error_case cases[] = {
        {"validate --engine x", "ddiosim validate: --engine: 'x' is not sim, model or both\n", 0},
        {"validate --jobs 0", "ddiosim validate: --jobs: 0 is out of range [1, 1024]\n", 0},
        {"validate --format xml", "ddiosim validate: --format: 'xml' is not table, json, csv or md\n", 0},
        {"validate --max-mae abc", "ddiosim validate: --max-mae: 'abc' is not a number\n", 0},
        {"validate --max-mae 101", "ddiosim validate: --max-mae: 101 is out of range [0, 100]\n", 0},
        {"validate --max-mae sim:bogus=3",
         "ddiosim validate: --max-mae: metric 'bogus' is not pcie_write_hit, pcie_read_hit or "
         "pcie_write_partial_hit\n",
         0},
        {"validate --max-mae gpu:pcie_write_hit=3", "ddiosim validate: --max-mae: engine 'gpu' is not sim or model\n",
         0},
        {"validate --max-mae pcie_write_hit=3",
         "ddiosim validate: --max-mae: 'pcie_write_hit=3' is not PP or ENGINE:METRIC=PP\n", 0},
        {"validate --packets 10", "ddiosim validate: --packets: 10 is out of range [1000, 4294967296]\n", 0},
        {"validate --seed -1", "ddiosim validate: --seed: '-1' is not a non-negative integer\n", 0},
        /* Usage mistakes: where the options are listed follows. */
        {"validate --bogus", "ddiosim validate: unknown option '--bogus' (see 'ddiosim validate --help')\n", 1},
        {"validate --engine", "ddiosim validate: option '--engine' needs a value (see 'ddiosim validate --help')\n",
         1},
        {"validate extra", "ddiosim validate: unexpected argument 'extra' (see 'ddiosim validate --help')\n", 1},
    };
    expect_cli_errors(cases, sizeof cases / sizeof cases[0]);
}

/* A bad experiment fails before anything runs: one line, no output file. */
Test(validate_cli, bad_experiment_is_one_line_and_writes_nothing)
{
    char *d = experiment_dir("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"ring\": 64}}", W_ROWS);
    char *o = temp_dir();
    char opts[800], out[700];
    snprintf(out, sizeof out, "%s/report.json", o);
    snprintf(opts, sizeof opts, "--format json -o '%s'", out);
    cli_run r = validate(d, opts);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, at("ddiosim validate: @/experiment.json: fixed.ring: unknown parameter 'ring' (known: " KNOWN_PARAMS
                               ")\n",
                               d));
    cr_expect_str_eq(r.out, "");
    cr_expect(!file_exists(out));
    cr_expect_eq(count_entries(o), 0, "a temporary file was left in %s", o);
    cli_run_free(&r);
    remove_dir(o);
    remove_dir(d);

    /* A parameter value the configuration refuses (not a power of two). */
    d = experiment_dir("{" NPF_HEAD NPF_X NPF_W "}", "100 90 92\n");
    r = validate(d, "--jobs 1");
    cr_expect_eq(r.status, 2);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    const char *want = at("ddiosim validate: @/experiment.json: point W.csv:1: --rx-ring", d);
    cr_expect(strncmp(r.err, want, strlen(want)) == 0, "%s", r.err);
    cli_run_free(&r);
    remove_dir(d);

    /* The generator's parameters, each out of its range or misspelt. */
    static const char *const traffic[][2] = {
        {"\"flow_burst\": 0", "--flow-burst: 0 is not in [1, 65536]"},
        {"\"gen_threads\": 65", "--gen-threads: 65 is not in [1, 64]"},
        {"\"flows\": 0", "--flows: 0 is not in [1, 16777216]"},
        {"\"flow_tuples\": \"hashed\"", "--flow-tuples: 'hashed' is not one of range, random"},
    };
    for (size_t i = 0; i < sizeof traffic / sizeof traffic[0]; i++) {
        char json[600];
        snprintf(json, sizeof json, "{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"pkt_size\": 1500, %s}}", traffic[i][0]);
        d = experiment_dir(json, W_ROWS);
        r = validate(d, "--jobs 1");
        cr_expect_eq(r.status, 2, "%s", traffic[i][0]);
        cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
        cr_expect(strstr(r.err, traffic[i][1]), "%s: %s", traffic[i][0], r.err);
        cli_run_free(&r);
        remove_dir(d);
    }
}

Test(validate_cli, output_does_not_depend_on_jobs)
{
    char *d = tiny_dir();
    static const char *const formats[] = {"json", "csv", "table"};
    for (size_t f = 0; f < 3; f++) {
        char o1[64], o2[64];
        snprintf(o1, sizeof o1, "--format %s --jobs 1", formats[f]);
        snprintf(o2, sizeof o2, "--format %s --jobs 2", formats[f]);
        cli_run a = validate(d, o1), b = validate(d, o2);
        cr_expect_eq(a.status, 0, "%s: %s", o1, a.err);
        cr_expect_eq(b.status, 0, "%s: %s", o2, b.err);
        cr_expect_gt(strlen(a.out), 100, "%s: %s", o1, a.out);
        drop_line_with(a.out, "\"ddiosim\":");
        drop_line_with(b.out, "\"ddiosim\":");
        cr_expect_str_eq(a.out, b.out, "%s", formats[f]);
        cli_run_free(&a);
        cli_run_free(&b);
    }
    remove_dir(d);
}

/* One point of the JSON report: params, measured, sim and model. */
static void check_point(const cJSON *p, const char *metric, double rx_ring, double mean, double sd, int sim)
{
    cr_expect_str_eq(get(p, "experiment")->valuestring, "tiny");
    cr_expect_str_eq(get(p, "metric")->valuestring, metric);
    const cJSON *pa = get(p, "params");
    cr_expect_eq(cJSON_GetArraySize(pa), 3);
    cr_expect_str_eq(pa->child->string, "pkt_size");
    cr_expect_eq(num(pa, "pkt_size"), 1500);
    cr_expect_eq(num(pa, "cores"), 1);
    cr_expect_eq(num(pa, "rx_ring"), rx_ring);
    const cJSON *me = get(p, "measured");
    expect_near(num(me, "hit_frac"), mean, 1e-12);
    expect_near(num(me, "hit_frac_sd"), sd, 1e-12);
    cr_expect_eq(num(me, "runs"), 2);
    const cJSON *mo = get(p, "model");
    /* An LRU LLC: the estimate compared is the LRU bound. */
    double v = num(mo, "hit_frac");
    expect_near(num(mo, "error_pts"), 100 * (v - num(me, "hit_frac")), 1e-9);
    cr_expect_eq(v, num(mo, "hit_frac_lower"));
    cr_expect(num(mo, "hit_frac_lower") <= num(mo, "hit_frac_upper"), "model [%g, %g]", num(mo, "hit_frac_lower"), num(mo, "hit_frac_upper"));
    expect_near(num(mo, "hit_frac_mean"), (num(mo, "hit_frac_lower") + num(mo, "hit_frac_upper")) / 2, 1e-12);
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(p, "sim") != NULL, sim);
    if (sim) {
        const cJSON *si = get(p, "sim");
        double s = num(si, "hit_frac");
        cr_expect(s >= 0 && s <= 1, "sim %g", s);
        expect_near(num(si, "error_pts"), 100 * (s - num(me, "hit_frac")), 1e-9);
    }
}

/* The summary entries of engine `eng` agree with the points' error_pts. */
static void check_summary(const cJSON *j, const char *eng, int expect_entries)
{
    const cJSON *pts = get(j, "points"), *sum = get(j, "summary");
    int seen = 0;
    for (const cJSON *s = sum->child; s; s = s->next) {
        const char *exp = get(s, "experiment")->valuestring, *metric = get(s, "metric")->valuestring;
        cr_expect(strcmp(exp, "tiny") == 0 || strcmp(exp, "all") == 0, "%s", exp);
        if (strcmp(get(s, "engine")->valuestring, eng) != 0)
            continue;
        seen++;
        double abs_sum = 0, sum_err = 0, max = 0;
        int n = 0, in = 0;
        for (const cJSON *p = pts->child; p; p = p->next) {
            if (strcmp(get(p, "metric")->valuestring, metric) != 0)
                continue;
            const cJSON *e = get(p, eng);
            double err = num(e, "error_pts");
            n++;
            abs_sum += fabs(err);
            sum_err += err;
            max = fmax(max, fabs(err));
            if (strcmp(eng, "model") == 0) {
                double m = num(get(p, "measured"), "hit_frac");
                in += m >= num(e, "hit_frac_lower") - 1e-12 && m <= num(e, "hit_frac_upper") + 1e-12;
            }
        }
        cr_expect_eq(n, 2, "%s %s", eng, metric);
        cr_expect_eq(num(s, "n"), n, "%s %s", eng, metric);
        expect_near(num(s, "mae_pts"), abs_sum / n, 1e-9);
        expect_near(num(s, "bias_pts"), sum_err / n, 1e-9);
        expect_near(num(s, "max_error_pts"), max, 1e-9);
        if (strcmp(eng, "model") == 0)
            cr_expect_eq(num(s, "in_bounds"), in, "%s", metric);
        else
            cr_expect_null(cJSON_GetObjectItemCaseSensitive(s, "in_bounds"));
    }
    cr_expect_eq(seen, expect_entries, "%s: %d summary entries", eng, seen);
}

Test(validate_cli, json_points_and_summary)
{
    char *d = tiny_dir();
    cJSON *j = validate_json(d, "--jobs 2");
    const cJSON *run = get(j, "run");
    cr_expect_eq(num(run, "packets"), 20000);
    cr_expect_eq(num(run, "seed"), 1);
    cr_expect_eq(cJSON_GetArraySize(get(run, "engines")), 2);
    const cJSON *pts = get(j, "points");
    cr_assert_eq(cJSON_GetArraySize(pts), 4, "2 points x 2 metrics");
    /* W.csv: 64 -> 90, 92; 128 -> 95, 97.  R.csv: 64 -> 80, 84; 128 -> 88, 90
     * (percent).  sd: sqrt(2) and 2 sqrt(2) points. */
    check_point(cJSON_GetArrayItem(pts, 0), "pcie_write_hit", 64, 0.91, 0.014142135623730951, 1);
    check_point(cJSON_GetArrayItem(pts, 1), "pcie_read_hit", 64, 0.82, 0.028284271247461901, 1);
    check_point(cJSON_GetArrayItem(pts, 2), "pcie_write_hit", 128, 0.96, 0.014142135623730951, 1);
    check_point(cJSON_GetArrayItem(pts, 3), "pcie_read_hit", 128, 0.89, 0.014142135623730951, 1);
    cr_expect_str_eq(get(cJSON_GetArrayItem(pts, 0), "source")->valuestring, "W.csv:1");
    cr_expect_str_eq(get(cJSON_GetArrayItem(pts, 2), "source")->valuestring, "W.csv:2");
    /* Each metric names its own file. */
    cr_expect_str_eq(get(cJSON_GetArrayItem(pts, 1), "source")->valuestring, "R.csv:1");
    cr_expect_str_eq(get(cJSON_GetArrayItem(pts, 3), "source")->valuestring, "R.csv:2");
    /* tiny and all, 2 metrics each. */
    cr_expect_eq(cJSON_GetArraySize(get(j, "summary")), 8);
    check_summary(j, "sim", 4);
    check_summary(j, "model", 4);
    cJSON_Delete(j);
    remove_dir(d);
}

/* --set applies to every point, after the experiment's own parameters, is
 * named in the report, and a bad one is the option's error before any run. */
Test(validate_cli, set_overrides_every_point)
{
    char *d = tiny_dir();
    cJSON *base = validate_json(d, "--jobs 1 --engine model");
    cJSON *small = validate_json(d, "--jobs 1 --engine model --set machine.llc.sets_per_slice=16 --set machine.llc.mapping=xor");
    const cJSON *sets = get(get(small, "run"), "sets");
    cr_assert_eq(cJSON_GetArraySize(sets), 2);
    cr_expect_str_eq(sets->child->valuestring, "machine.llc.sets_per_slice=16");
    cr_expect_str_eq(sets->child->next->valuestring, "machine.llc.mapping=xor");
    cr_expect_eq(cJSON_GetArraySize(get(get(base, "run"), "sets")), 0);
    for (int i = 0; i < 4; i++) {
        double b = num(get(cJSON_GetArrayItem(get(base, "points"), i), "model"), "hit_frac_mean");
        double s = num(get(cJSON_GetArrayItem(get(small, "points"), i), "model"), "hit_frac_mean");
        cr_expect_lt(s, b - 0.1, "point %d: an LLC of 16 sets per slice holds less (%g vs %g)", i, s, b);
    }
    cJSON_Delete(base);
    cJSON_Delete(small);
    cli_run r = validate(d, "--set machine.llc.nope=1");
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.out, "");
    cr_expect_str_eq(r.err, "ddiosim validate: --set machine.llc.nope: no such field\n");
    cli_run_free(&r);
    r = validate(d, "--format md --engine model --set machine.llc.ways=16");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_neq(strstr(r.out, "Overrides of every point: --set machine.llc.ways=16."), NULL);
    cli_run_free(&r);
    remove_dir(d);
}

Test(validate_cli, engine_model_has_no_sim)
{
    char *d = tiny_dir();
    cJSON *j = validate_json(d, "--jobs 1 --engine model");
    const cJSON *eng = get(get(j, "run"), "engines");
    cr_assert_eq(cJSON_GetArraySize(eng), 1);
    cr_expect_str_eq(eng->child->valuestring, "model");
    const cJSON *pts = get(j, "points");
    cr_assert_eq(cJSON_GetArraySize(pts), 4);
    check_point(cJSON_GetArrayItem(pts, 0), "pcie_write_hit", 64, 0.91, 0.014142135623730951, 0);
    check_point(cJSON_GetArrayItem(pts, 3), "pcie_read_hit", 128, 0.89, 0.014142135623730951, 0);
    cr_expect_eq(cJSON_GetArraySize(get(j, "summary")), 4);
    check_summary(j, "model", 4);
    check_summary(j, "sim", 0);
    cJSON_Delete(j);
    remove_dir(d);
}

Test(validate_cli, max_mae)
{
    char *d = tiny_dir();
    char *o = temp_dir();
    char out[700], opts[800];
    snprintf(out, sizeof out, "%s/report.json", o);
    snprintf(opts, sizeof opts, "--jobs 2 --format json --max-mae 0 -o '%s'", out);
    cli_run r = validate(d, opts);
    cr_expect_eq(r.status, 5, "%s", r.err);
    cr_expect_str_eq(r.out, "");
    /* The report is written all the same; the message names the first MAE
     * above the limit (the simulator's, on PCIe writes). */
    char *text = slurp(out, NULL);
    cr_assert_not_null(text, "%s not written", out);
    cJSON *j = cJSON_Parse(text);
    cr_assert_not_null(j);
    double mae = -1;
    for (const cJSON *s = get(j, "summary")->child; s; s = s->next)
        if (strcmp(get(s, "experiment")->valuestring, "all") == 0 &&
            strcmp(get(s, "engine")->valuestring, "sim") == 0 &&
            strcmp(get(s, "metric")->valuestring, "pcie_write_hit") == 0)
            mae = num(s, "mae_pts");
    cr_assert_gt(mae, 0);
    char want[300];
    snprintf(want, sizeof want,
             "ddiosim validate: the simulator's mean absolute error on pcie_write_hit is %.2f points, above "
             "--max-mae 0\n",
             mae);
    cr_expect_str_eq(r.err, want);
    cJSON_Delete(j);
    free(text);
    cli_run_free(&r);

    r = validate(d, "--jobs 2 --engine model --max-mae model:pcie_read_hit=0");
    cr_expect_eq(r.status, 5, "%s", r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cr_expect(strstr(r.err, "ddiosim validate: the model's mean absolute error on pcie_read_hit is "), "%s", r.err);
    cli_run_free(&r);

    r = validate(d, "--jobs 2 --max-mae 100");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    r = validate(d, "--jobs 2 --max-mae model:pcie_write_hit=100");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    remove_dir(o);
    remove_dir(d);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

Test(validate_cli, plot_png_and_svg)
{
    char *d = tiny_dir();
    char *o = temp_dir();
    char png[700], svg[700], opts[800];
    snprintf(png, sizeof png, "%s/fig.png", o);
    snprintf(opts, sizeof opts, "--jobs 2 --format csv --plot '%s'", png);
    cli_run r = validate(d, opts);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    size_t len = 0;
    unsigned char *b = (unsigned char *)slurp(png, &len);
    cr_assert_not_null(b, "%s not written", png);
    cr_assert_gt(len, 33);
    cr_expect(memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0, "PNG signature");
    cr_expect_eq(be32(b + 8), 13, "IHDR length");
    cr_expect(memcmp(b + 12, "IHDR", 4) == 0, "IHDR first");
    cr_expect_eq(be32(b + 16), 1200, "width");
    cr_expect_eq(be32(b + 20), 440, "height: 440 per experiment");
    free(b);

    snprintf(svg, sizeof svg, "%s/fig.svg", o);
    snprintf(opts, sizeof opts, "--jobs 2 --engine model --format csv --plot '%s'", svg);
    r = validate(d, opts);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char *s = slurp(svg, NULL);
    cr_assert_not_null(s, "%s not written", svg);
    cr_expect(strstr(s, "<svg"), "no <svg");
    cr_expect(strstr(s, "</svg>"), "no </svg>");
    free(s);
    cr_expect_eq(count_entries(o), 2, "only the two figures in %s", o);
    remove_dir(o);
    remove_dir(d);
}

Test(validate_cli, plot_jpg_is_refused_before_running)
{
    char *d = tiny_dir();
    char *o = temp_dir();
    char fig[700], out[700], opts[1600];
    snprintf(fig, sizeof fig, "%s/fig.jpg", o);
    snprintf(out, sizeof out, "%s/report.txt", o);
    snprintf(opts, sizeof opts, "--plot '%s' -o '%s'", fig, out);
    cli_run r = validate(d, opts);
    cr_expect_eq(r.status, 2);
    char want[1000];
    snprintf(want, sizeof want, "ddiosim validate: --plot %s: the file name must end in .svg, .png or .pdf\n", fig);
    cr_expect_str_eq(r.err, want);
    cr_expect_str_eq(r.out, "");
    cr_expect_eq(count_entries(o), 0, "nothing written in %s", o);
    cli_run_free(&r);
    remove_dir(o);
    remove_dir(d);
}

/* ------------------------------------------------------------ evidence */

/* The forwarding rate and mean latency go with the metrics' points, as
 * measured (no percent scaling), and the report compares their excess
 * over the fastest point with the engines'. */
Test(validate_experiment, evidence_rate_and_latency)
{
    char *d = experiment_dir("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": \"max\", \"pkt_size\": 1500}, "
                             "\"evidence\": {\"mpps\": \"P\", \"latency_avg_us\": \"L\"}}",
                             W_ROWS);
    put_file(d, "P.csv", "64 7.5 7.7\n128 8.0 8.2\n");
    put_file(d, "L.csv", "128 700 710\n64 900 1000\n");
    vd_experiment x;
    load_ok(d, &x);
    cr_assert_eq(x.n, 2);
    cr_expect(x.point[0].has_ev[VD_EV_MPPS] && x.point[0].has_ev[VD_EV_LATENCY_AVG_US]);
    expect_near(x.point[0].ev[VD_EV_MPPS].mean, 7.6, 1e-12);
    expect_near(x.point[1].ev[VD_EV_MPPS].mean, 8.1, 1e-12);
    expect_near(x.point[0].ev[VD_EV_LATENCY_AVG_US].mean, 950, 1e-9);
    cr_expect_eq(x.point[1].ev[VD_EV_LATENCY_AVG_US].runs, 2);
    cr_expect_eq(x.latency_by_series, 0);
    /* Every file read is an input: none may be overwritten. */
    int seen = 0;
    for (size_t i = 0; i < x.n_input; i++)
        seen += strstr(x.input[i], "/P.csv") != NULL || strstr(x.input[i], "/L.csv") != NULL;
    cr_expect_eq(seen, 2);
    vd_experiment_free(&x);
    remove_dir(d);

    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"evidence\": {\"pps\": \"P\"}}", W_ROWS,
                      "@/experiment.json: evidence.pps: unknown evidence (known: mpps, latency_avg_us, "
                      "offered_gbps, latency_baseline)");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"evidence\": [\"P\"]}", W_ROWS,
                      "@/experiment.json: evidence: must be an object of evidence: measured file name");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"evidence\": {\"mpps\": \"a/P\"}}", W_ROWS,
                      "@/experiment.json: evidence.mpps: must be the measured file's name (a string, no '/')");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"evidence\": {\"latency_baseline\": \"series\"}}", W_ROWS,
                      "@/experiment.json: evidence.latency_baseline: \"series\" needs a series");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"evidence\": {\"latency_baseline\": 1}}", W_ROWS,
                      "@/experiment.json: evidence.latency_baseline: must be \"experiment\" or \"series\"");
    expect_load_error("{\"name\": \"t\", \"source\": \"perf\", \"metrics\": {\"pcie_write_hit\": \"itom\"}, "
                      "\"evidence\": {\"mpps\": \"P\"}, \"points\": []}",
                      NULL, "@/experiment.json: evidence: only for source npf (this experiment's points are listed "
                            "in points)");
    /* A row for an x without a measured hit rate, and a negative run. */
    d = experiment_dir("{" NPF_HEAD NPF_X NPF_W ", \"evidence\": {\"mpps\": \"P\"}}", W_ROWS);
    put_file(d, "P.csv", "64 7.5\n256 8.0\n");
    ddio_err e = {0};
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1);
    cr_expect_str_eq(e.msg, at("@/P.csv:2: rx_ring = 256 has no measured hit rate (evidence goes with the "
                               "metrics' points)", d));
    put_file(d, "P.csv", "64 7.5 -1\n");
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1);
    cr_expect_str_eq(e.msg, at("@/P.csv:1: run 2: -1 is negative", d));
    remove_dir(d);
}

/* "rate": "offered": a point runs at the rate its generator measured, in
 * frame bits: 99.06 Gb/s on the wire at 1500 B is 99.06 x 1500 / 1524
 * = 97.5 Gb/s of frames. */
Test(validate_experiment, offered_rate_from_the_generator)
{
    char *d = experiment_dir("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": \"offered\", \"pkt_size\": 1500}, "
                             "\"evidence\": {\"offered_gbps\": \"T\"}}",
                             W_ROWS);
    put_file(d, "T.csv", "64 99.00 99.12\n128 26.67\n");
    vd_experiment x;
    load_ok(d, &x);
    cr_assert_eq(x.n, 2);
    cr_expect_eq(x.rate_offered, 1);
    const vd_param *r0 = vd_point_param(&x.point[0], "rate"), *r1 = vd_point_param(&x.point[1], "rate");
    cr_assert(r0 && r1);
    cr_expect_str_eq(r0->text, "offered");
    expect_near(r0->value, 99.06 * 1500 / 1524, 1e-9);
    expect_near(r1->value, 26.67 * 1500 / 1524, 1e-9);
    /* The job runs at that rate (runner_job_config), not at the line rate. */
    runner_job j = {.n_params = x.point[0].n_params, .param = x.point[0].param};
    runner_opts o = {.packets = 1000, .seed = 1};
    ddio_config cfg;
    dsim_options dopt;
    char profile[32];
    ddio_err e = {0};
    cr_assert_eq(runner_job_config(&j, &o, &cfg, &dopt, profile, sizeof profile, &e), 0, "%s", e.msg);
    expect_near(dopt.rate_gbps, 99.06 * 1500 / 1524, 1e-9);
    vd_experiment_free(&x);
    /* A point without a measured offered rate, and no pkt_size. */
    put_file(d, "T.csv", "64 99.0\n");
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1);
    cr_expect_str_eq(e.msg, at("@/experiment.json: fixed.rate: \"offered\", but W.csv:2 has no offered_gbps "
                               "measured", d));
    remove_dir(d);
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": \"offered\"}, "
                      "\"evidence\": {\"offered_gbps\": \"W\"}}", W_ROWS,
                      "@/experiment.json: fixed.rate: \"offered\" needs pkt_size (the wire counts 24 bytes more "
                      "per frame)");
    expect_load_error("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": \"offered\", \"pkt_size\": 1500}}", W_ROWS,
                      "@/experiment.json: fixed.rate: \"offered\", but W.csv:1 has no offered_gbps measured");
}

/* The shipped cores-vs-ways: 2 cores x 2048 at 2 DDIO ways forwarded
 * 8.14 Mpps (2PPS.csv, row 2) with a mean latency of about 1 030 us. */
Test(validate_experiment, shipped_evidence_of_cores_vs_ways)
{
    vd_experiment x;
    load_ok(BENCH "cores-vs-ways", &x);
    const vd_point *p = &x.point[4];
    cr_assert(p->has_ev[VD_EV_MPPS] && p->has_ev[VD_EV_LATENCY_AVG_US]);
    cr_expect(fabs(p->ev[VD_EV_MPPS].mean - 8.143) < 0.001, "%.4f", p->ev[VD_EV_MPPS].mean);
    cr_expect(p->ev[VD_EV_LATENCY_AVG_US].mean > 950 && p->ev[VD_EV_LATENCY_AVG_US].mean < 1100, "%.1f",
              p->ev[VD_EV_LATENCY_AVG_US].mean);
    vd_experiment_free(&x);
}

/* validate's report puts the measured rate and latency excess next to the
 * engines' (the model alone here: its estimate is deterministic). */
Test(validate_report, evidence_block_in_the_table_and_markdown, .timeout = 60)
{
    char *d = experiment_dir("{" NPF_HEAD NPF_X NPF_W ", \"fixed\": {\"rate\": \"max\", \"pkt_size\": 1500, "
                             "\"cores\": 1}, \"evidence\": {\"mpps\": \"P\", \"latency_avg_us\": \"L\"}}",
                             W_ROWS);
    put_file(d, "P.csv", "64 7.5 7.7\n128 8.0 8.2\n");
    put_file(d, "L.csv", "128 700 710\n64 900 1000\n");
    char args[512];
    snprintf(args, sizeof args, "validate --engine model --measured %s", d);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "forwarding rate, Mpps, and latency excess over the fastest point (rx_ring=128), us"),
              "%s", r.out);
    /* rx_ring=64: 7.6 Mpps measured, 950 - 705 = 245 us more than rx_ring=128. */
    cr_expect(strstr(r.out, "\n  rx_ring=64       7.600     n/a   7.560       245     n/a      -8\n"), "%s", r.out);
    /* |7.560 - 7.6| / 7.6 and |7.560 - 8.1| / 8.1: 0.5 % and 6.7 %; |-8 - 245| and 0 over two points. */
    cr_expect(strstr(r.out, "  model: rate off by 3.6 % on average, 6.7 % at worst (2 points); latency excess off "
                            "by 127 us on average (2 points)\n"), "%s", r.out);
    cli_run_free(&r);
    snprintf(args, sizeof args, "validate --engine model --format md --measured %s", d);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "| rx_ring=64 | 7.600 | n/a |"), "%s", r.out);
    cli_run_free(&r);
    snprintf(args, sizeof args, "validate --engine model --format json --measured %s", d);
    r = run_ddiosim(args);
    cr_expect(strstr(r.out, "\"latency_excess_us\""), "%s", r.out);
    cli_run_free(&r);
    remove_dir(d);
}
