/* test_sweep.c - `ddiosim sweep`: the spec (every error with its JSON
 * path), the grid (ranges, order, filter), the points' ids, results that
 * do not depend on --jobs, resuming after a kill, and failed points. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "sim/explore/advise.h"
#include "sim/explore/sweep.h"
#include <cjson/cJSON.h>

static void parse_ok(const char *text, sw_spec *s)
{
    ddio_err e = {0};
    cr_assert_eq(sw_spec_parse(text, "spec.json", s, &e), 0, "%s", e.msg);
}

static void parse_fails(const char *text, const char *want)
{
    sw_spec s;
    ddio_err e = {0};
    cr_expect_eq(sw_spec_parse(text, "spec.json", &s, &e), -1, "accepted: %s", text);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "%s", e.msg);
    cr_expect(strstr(e.msg, want), "%s\n  wanted: %s", e.msg, want);
}

Test(sweep, spec_errors_name_their_json_path)
{
    parse_fails("[1]", "spec.json: expected a JSON object, got a list");
    parse_fails("{\"grid\": {\"rx_ring\": [128]}, \"extra\": 1}", "spec.json: extra: unknown key");
    parse_fails("{}", "spec.json: grid: missing");
    parse_fails("{\"grid\": {}}", "spec.json: grid: no parameters");
    parse_fails("{\"grid\": []}", "spec.json: grid: expected an object, got a list");
    parse_fails("{\"grid\": {\"rx_rign\": [128]}}", "spec.json: grid.rx_rign: unknown parameter 'rx_rign'");
    parse_fails("{\"grid\": {\"rx_ring\": [128, \"x\"]}}", "spec.json: grid.rx_ring[1]: must be a number, not a string");
    parse_fails("{\"grid\": {\"rx_ring\": [128, 128]}}", "grid.rx_ring[1]: the value 128 is listed twice");
    parse_fails("{\"grid\": {\"rx_ring\": []}}", "spec.json: grid.rx_ring: no values");
    /* Range values closer than the 10 digits rows print them are one value. */
    parse_fails("{\"grid\": {\"uncore_ghz\": {\"range\": [1, 1.0000000001, 1e-12]}}}",
                "grid.uncore_ghz.range: the value 1 is listed twice");
    parse_fails("{\"grid\": {\"rx_ring\": {\"range\": [1, 200000]}}}", "grid.rx_ring.range: more than 100000 values");
    parse_fails("{\"grid\": {\"rx_ring\": 128}}", "grid.rx_ring: expected a list or a range, got a number");
    parse_fails("{\"grid\": {\"rx_ring\": {\"range\": [512, 256]}}}", "grid.rx_ring.range: empty range: 512 > 256");
    parse_fails("{\"grid\": {\"rx_ring\": {\"range\": [1, 4, 0]}}}", "grid.rx_ring.range: the step must be > 0");
    parse_fails("{\"grid\": {\"rx_ring\": {\"range\": [1]}}}", "grid.rx_ring.range: expected [lo, hi]");
    parse_fails("{\"grid\": {\"rx_ring\": {\"range\": [1, \"4\"]}}}", "grid.rx_ring.range[1]: expected a number, got a string");
    parse_fails("{\"grid\": {\"rx_ring\": {\"pow2\": [100, 400]}}}", "grid.rx_ring.pow2: 100 is not a power of two");
    parse_fails("{\"grid\": {\"rx_ring\": {\"pow2\": [128, 4096, 2]}}}", "grid.rx_ring.pow2: expected [lo, hi]");
    parse_fails("{\"grid\": {\"rx_ring\": {\"steps\": [1, 2]}}}", "grid.rx_ring: expected a list, {\"range\"");
    parse_fails("{\"grid\": {\"cores\": [0.5]}}", "grid.cores[0]: must be a whole number >= 0");
    parse_fails("{\"fixed\": {\"cores\": 2}, \"grid\": {\"cores\": [1, 2]}}",
                "grid.cores: parameter given twice (fixed and varied?)");
    parse_fails("{\"fixed\": [1], \"grid\": {\"cores\": [1]}}", "spec.json: fixed: expected an object, got a list");
    parse_fails("{\"fixed\": {\"rate\": \"fast\"}, \"grid\": {\"cores\": [1]}}",
                "fixed.rate: must be a number (Gb/s) or \"max\"");
    parse_fails("{\"machine\": 3, \"grid\": {\"cores\": [1]}}", "spec.json: machine: expected a string, got a number");
    parse_fails("{\"grid\": {\"cores\": [1]}, \"filter\": \"cores >\"}", "spec.json: filter: unexpected end");
    parse_fails("{\"grid\": {\"cores\": [1]}, \"filter\": \"ways > 2\"}",
                "filter: 'ways' is not a parameter of the grid at character 1");
    parse_fails("{\"grid\": {\"cores\": [1]}, \"filter\": \"(cores > 2\"}", "filter: ')' expected");
    parse_fails("{\"grid\": {\"cores\": [1]}, \"filter\": \"cores 2\"}", "filter: an operator expected at character 7");
    parse_fails("{\"grid\": {\"cores\": [1]", "spec.json");   /* malformed JSON: the parser's own message */
    /* The largest axis is accepted at once (its duplicate check sorts). */
    sw_spec s;
    parse_ok("{\"grid\": {\"rx_ring\": {\"range\": [1, 100000]}}}", &s);
    cr_expect_eq(s.n_grid, 100000);
    sw_spec_free(&s);
}

Test(sweep, grid_ranges_order_and_filter)
{
    sw_spec s;
    parse_ok("{\"fixed\": {\"pkt_size\": 1500}, \"grid\": {\"rx_ring\": {\"pow2\": [128, 1024]},"
             " \"ddio_ways\": {\"range\": [2, 6, 2]}, \"uncore_ghz\": {\"range\": [1.2, 1.5, 0.1]}},"
             " \"filter\": \"ddio_ways * 256 >= rx_ring && !(uncore_ghz > 1.45)\"}",
             &s);
    cr_assert_eq(s.n_axes, 3);
    cr_assert_eq(s.axis[0].n, 4);   /* 128 256 512 1024 */
    cr_assert_eq(s.axis[1].n, 3);   /* 2 4 6 */
    cr_assert_eq(s.axis[2].n, 4);   /* 1.2 1.3 1.4 1.5: no drift past 1.5 */
    cr_assert_float_eq(s.axis[2].v[3].value, 1.5, 1e-9);
    cr_assert_float_eq(s.axis[0].v[3].value, 1024, 0);
    cr_assert_eq(s.n_grid, 48);
    vd_param p[VD_MAX_PARAMS];
    /* The last axis varies fastest; the fixed parameters come first. */
    cr_assert_eq(sw_point_params(&s, 0, p), 4);
    cr_assert_str_eq(p[0].name, "pkt_size");
    cr_assert_float_eq(p[1].value, 128, 0);
    cr_assert_float_eq(p[2].value, 2, 0);
    cr_assert_float_eq(p[3].value, 1.2, 1e-12);
    sw_point_params(&s, 1, p);
    cr_assert_float_eq(p[3].value, 1.3, 1e-12);
    sw_point_params(&s, 4, p);
    cr_assert_float_eq(p[2].value, 4, 0);
    sw_point_params(&s, 47, p);
    cr_assert_float_eq(p[1].value, 1024, 0);
    cr_assert_float_eq(p[2].value, 6, 0);
    cr_assert_float_eq(p[3].value, 1.5, 1e-12);
    /* Kept: ways x 256 >= ring and uncore <= 1.4: by hand, per ring, the
     * ways that pass are 128, 256, 512: 2, 4, 6; 1024: 4, 6; each with 3
     * uncore values: (3 + 3 + 3 + 2) x 3 = 33. */
    size_t kept = 0;
    for (size_t k = 0; k < s.n_grid; k++) {
        uint32_t n = sw_point_params(&s, k, p);
        kept += (size_t)sw_point_selected(&s, p, n);
    }
    cr_expect_eq(kept, 33, "%zu kept", kept);
    sw_spec_free(&s);
}

Test(sweep, filter_precedence_is_c_s)
{
    const char *names[] = {"a", "b"};
    struct {
        const char *x;
        double want;
    } cases[] = {
        {"1 + 2 * 3", 7},      {"(1 + 2) * 3", 9},     {"a - b - 1", 0},      {"-a * 2", -6},
        {"a < b == 1", 0},     {"a > b || 0 && 0", 1}, {"!a", 0},              {"!(a - 3)", 1},
        {"7 % 4 + a / b", 4.5}, {"a >= 3 && b <= 2", 1}, {"a != b", 1},        {"1.5e1 > 14", 1},
    };
    double v[2] = {3, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sw_expr *x;
        char msg[200];
        cr_assert_eq(sw_expr_compile(cases[i].x, names, 2, &x, msg, sizeof msg), 0, "%s: %s", cases[i].x, msg);
        cr_expect_float_eq(sw_expr_eval(x, v), cases[i].want, 1e-12, "%s = %g", cases[i].x, sw_expr_eval(x, v));
        sw_expr_free(x);
    }
}

/* An id names the parameters, not their place: the same point has the same
 * id whatever the order of the axes or what else the grid holds. */
Test(sweep, point_ids_name_the_parameters)
{
    sw_spec a, b;
    parse_ok("{\"grid\": {\"rx_ring\": [256, 512], \"cores\": [1, 2]}}", &a);
    parse_ok("{\"grid\": {\"cores\": [2, 1, 4], \"rx_ring\": [512, 256]}}", &b);
    vd_param p[VD_MAX_PARAMS], q[VD_MAX_PARAMS];
    for (size_t i = 0; i < a.n_grid; i++) {
        uint32_t n = sw_point_params(&a, i, p);
        uint64_t id = sw_point_id(p, n);
        int found = 0;
        for (size_t k = 0; k < b.n_grid; k++) {
            uint32_t m = sw_point_params(&b, k, q);
            found += sw_point_id(q, m) == id;
        }
        cr_expect_eq(found, 1, "point %zu of a is %d points of b", i, found);
    }
    uint32_t n = sw_point_params(&a, 0, p);
    p[0].value = 1024;
    cr_expect_neq(sw_point_id(p, n), sw_point_id(q, sw_point_params(&a, 0, q)));
    cr_expect_neq(a.hash, b.hash);
    sw_spec_free(&a);
    sw_spec_free(&b);
}

/* The 24-point grid of the tests: model, so that it runs in a blink. */
static const char grid24[] = "{\"machine\": \"skylake-6140\", \"workload\": \"l2fwd\","
                             " \"fixed\": {\"pkt_size\": 1500, \"rate\": \"max\"},"
                             " \"grid\": {\"rx_ring\": {\"pow2\": [128, 4096]}, \"cores\": [1, 2],"
                             " \"ddio_ways\": [2, 4]}}";

static char *sorted_lines(const char *path)
{
    char *t = slurp(path, NULL);
    cr_assert(t, "%s", path);
    size_t n = 0, cap = 64;
    char **l = malloc(cap * sizeof *l);
    for (char *s = strtok(t, "\n"); s; s = strtok(NULL, "\n")) {
        if (n == cap)
            l = realloc(l, (cap *= 2) * sizeof *l);
        l[n++] = s;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && strcmp(l[k - 1], l[k]) > 0; k--) {
            char *x = l[k];
            l[k] = l[k - 1];
            l[k - 1] = x;
        }
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(l[i]) + 1;
    char *out = malloc(len + 1), *w = out;
    for (size_t i = 0; i < n; i++)
        w += sprintf(w, "%s\n", l[i]);
    *w = '\0';
    free(l);
    free(t);
    return out;
}

Test(sweep, results_do_not_depend_on_jobs, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char spec[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    FILE *f = fopen(spec, "w");
    fputs(grid24, f);
    fclose(f);
    cli_run r = run_shellf(dir, "'%s' sweep --spec spec.json -o a.csv --engine model --jobs 1", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "24 points computed, 0 already in a.csv, 0 failed (24 of 24"), "%s", r.err);
    cli_run_free(&r);
    r = run_shellf(dir, "'%s' sweep --spec spec.json -o b.csv --engine model --jobs 2", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char pa[128], pb[128];
    snprintf(pa, sizeof pa, "%s/a.csv", dir);
    snprintf(pb, sizeof pb, "%s/b.csv", dir);
    char *a = slurp(pa, NULL), *b = slurp(pb, NULL);
    /* Rows are written in grid order whatever the thread count. */
    cr_expect_str_eq(a, b);
    cr_expect_eq(count_lines_with(a, ",ok,"), 24);
    /* A plain table (pandas reads it as it is); what made it is beside it. */
    cr_expect(strncmp(a, "id,pkt_size,rate,rx_ring,cores,ddio_ways,status,error,model_pcie_write_hit_frac,"
                         "model_pcie_write_hit_frac_lower,model_pcie_write_hit_frac_upper,", 138) == 0, "%.300s", a);
    snprintf(pa, sizeof pa, "%s/a.csv.meta.json", dir);
    char *meta = slurp(pa, NULL);
    cJSON *mj = cJSON_Parse(meta);
    cr_assert(mj, "%s", meta);
    const cJSON *dd = cJSON_GetObjectItem(mj, "ddiosim"), *sw = cJSON_GetObjectItem(mj, "sweep");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(dd, "version")), DDIOSIM_VERSION);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(dd, "command")),
                     "ddiosim sweep --spec spec.json -o a.csv --engine model --jobs 1");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(sw, "engine")), "model");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(sw, "format")), "csv");
    cr_expect_eq(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(sw, "run"))), 16);
    cJSON_Delete(mj);
    free(meta);
    free(a);
    free(b);
    /* JSONL: the same points. */
    r = run_shellf(dir, "'%s' sweep --spec spec.json -o c.jsonl --engine model --jobs 2", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(pa, sizeof pa, "%s/c.jsonl", dir);
    char *c = slurp(pa, NULL);
    cr_expect_eq(count_lines_with(c, "\"status\":\"ok\""), 24);
    cr_expect(strstr(c, "{\"id\":\""), "%.200s", c);
    free(c);
    rm_rf(dir);
}

/* A kill at any moment loses nothing but the points in flight: cut the file
 * in the middle of a row, resume, and every point is there exactly once,
 * with the rows a run in one go writes. */
Test(sweep, resume_completes_a_cut_file, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char spec[128], pa[128], pb[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    FILE *f = fopen(spec, "w");
    fputs(grid24, f);
    fclose(f);
    cli_run r = run_shellf(dir, "'%s' sweep --spec spec.json -o a.csv --engine model", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(pa, sizeof pa, "%s/a.csv", dir);
    snprintf(pb, sizeof pb, "%s/b.csv", dir);
    size_t len;
    char *a = slurp(pa, &len);
    /* Keep the header, 9 rows and half of the 10th (and the sidecar). */
    const char *cut = a;
    for (int nl = 0; nl < 10; nl++)
        cut = strchr(cut, '\n') + 1;
    size_t keep = (size_t)(cut - a) + 40;
    f = fopen(pb, "w");
    fwrite(a, 1, keep, f);
    fclose(f);
    r = run_shellf(dir, "cp a.csv.meta.json b.csv.meta.json && '%s' sweep --spec spec.json -o b.csv --engine model "
                        "--resume --jobs 2", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "15 points computed, 9 already in b.csv"), "%s", r.err);
    cli_run_free(&r);
    char *sa = sorted_lines(pa), *sb = sorted_lines(pb);
    cr_expect_str_eq(sa, sb);
    free(sa);
    free(sb);
    /* Resumed again: nothing to do, nothing changes. */
    char *before = slurp(pb, NULL);
    r = run_shellf(dir, "'%s' sweep --spec spec.json -o b.csv --engine model --resume", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "0 points computed, 24 already in b.csv"), "%s", r.err);
    cli_run_free(&r);
    char *after = slurp(pb, NULL);
    cr_expect_str_eq(before, after);
    /* Another spec, or other options, do not resume it, and leave it as it is. */
    r = run_shellf(dir, "'%s' sweep --spec spec.json -o b.csv --engine model --resume --seed 7", ddiosim_bin());
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "b.csv.meta.json: sweep.run: the file was started by another spec or other options"), "%s",
              r.err);
    cli_run_free(&r);
    r = run_shellf(dir, "sed 's/4096/2048/' spec.json > spec2.json && '%s' sweep --spec spec2.json -o b.csv "
                        "--engine model --resume", ddiosim_bin());
    cr_expect_eq(r.status, 2, "%s", r.err);
    cli_run_free(&r);
    r = run_shellf(dir, "'%s' sweep --spec spec.json -o b.csv --engine model", ddiosim_bin());
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "b.csv exists: --resume completes it, or remove it first"), "%s", r.err);
    cli_run_free(&r);
    char *still = slurp(pb, NULL);
    cr_expect_str_eq(before, still);
    free(before);
    free(after);
    free(still);
    free(a);
    rm_rf(dir);
}

/* A kill in the middle of a simulator sweep, then --resume: every point
 * of the grid exactly once.  The kill comes at a byte, not at a time: the
 * file size limit (RLIMIT_FSIZE) kills the sweep with SIGXFSZ when a row
 * would pass it, in the middle of that row, however fast the machine. */
#define KILL_AT_BYTES 1500
Test(sweep, resume_after_a_kill_mid_row, .timeout = 300)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char spec[128], res[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    snprintf(res, sizeof res, "%s/r.csv", dir);
    FILE *f = fopen(spec, "w");
    fputs("{\"fixed\": {\"pkt_size\": 1500, \"rate\": 10},"
          " \"grid\": {\"rx_ring\": [128, 256, 512, 1024], \"ddio_ways\": [2, 3, 4]}}", f);
    fclose(f);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        struct rlimit lim = {KILL_AT_BYTES, KILL_AT_BYTES};
        signal(SIGXFSZ, SIG_DFL);
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(126);
        execl(ddiosim_bin(), "ddiosim", "sweep", "--spec", spec, "-o", res, "--engine", "sim", "--jobs", "2",
              "--packets", "50000", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ, "the sweep was not killed at %d bytes (status %d)",
              KILL_AT_BYTES, st);
    size_t len = 0;
    char *cut = slurp(res, &len);
    cr_assert_eq(len, KILL_AT_BYTES);
    int whole = -2;   /* the lines after the comment and the column names */
    for (size_t i = 0; i < len; i++)
        whole += cut[i] == '\n';
    cr_expect(whole >= 1 && whole < 12, "%d whole rows:\n%s", whole, cut);
    free(cut);
    cli_run r = run_shellf(dir, "'%s' sweep --spec spec.json -o r.csv --engine sim --jobs 2 --packets 50000 --resume",
                           ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char *t = slurp(res, NULL);
    cr_assert_eq(count_lines_with(t, ",ok,"), 12, "%s", t);
    /* Each id once. */
    char ids[12][17];
    int n = 0;
    for (char *s = strtok(t, "\n"); s; s = strtok(NULL, "\n"))
        if (strstr(s, ",ok,"))
            snprintf(ids[n++], 17, "%.16s", s);
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            cr_expect_str_neq(ids[i], ids[k]);
    free(t);
    rm_rf(dir);
}

/* A point that cannot run is a row with its error; the others go on. */
Test(sweep, a_failed_point_is_an_error_row, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char spec[128], res[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    snprintf(res, sizeof res, "%s/r.csv", dir);
    FILE *f = fopen(spec, "w");
    fputs("{\"grid\": {\"pkt_size\": [1500, 3000], \"rx_ring\": [256, 300]}}", f);
    fclose(f);
    cli_run r = run_shellf(dir, "'%s' sweep --spec spec.json -o r.csv --engine model", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "4 points computed, 0 already in r.csv, 3 failed"), "%s", r.err);
    cli_run_free(&r);
    char *t = slurp(res, NULL);
    cr_expect_eq(count_lines_with(t, ",ok,"), 1, "%s", t);
    cr_expect_eq(count_lines_with(t, ",error,\""), 3, "%s", t);
    cr_expect_eq(count_lines_with(t, "--rx-ring: 300 is not a power of two"), 2, "%s", t);
    free(t);
    rm_rf(dir);
}

/* The spec the README and docs/sweep.md show runs as shown. */
Test(sweep, the_shipped_example_runs, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cli_run r = run_shellf(dir, "'%s' sweep --spec '%s/configs/sweeps/fig17.json' -o fig17.csv --engine model",
                           ddiosim_bin(), DDIOSIM_SOURCE_DIR);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "360 points computed, 0 already in fig17.csv, 0 failed (360 of 480 grid points"), "%s",
              r.err);
    cli_run_free(&r);
    rm_rf(dir);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* plot: a PNG (signature, IHDR, the size asked) and an SVG, from a sweep's
 * results; the errors name what is wrong; a failed plot writes nothing. */
Test(sweep, plot_draws_png_and_svg, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char spec[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    FILE *f = fopen(spec, "w");
    fputs(grid24, f);
    fclose(f);
    cli_run r = run_shellf(dir, "'%s' sweep --spec spec.json -o r.csv --engine model", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = run_shellf(dir, "'%s' plot r.csv --x rx_ring --y model_pcie_write_hit_frac --series ddio_ways --where cores=2 "
                        "-o a.png", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char p[128];
    snprintf(p, sizeof p, "%s/a.png", dir);
    size_t len;
    unsigned char *png = (unsigned char *)slurp(p, &len);
    cr_assert(png && len > 33);
    cr_expect(memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "not a PNG signature");
    cr_expect(memcmp(png + 12, "IHDR", 4) == 0);
    cr_expect_eq(be32(png + 16), 960);
    cr_expect_eq(be32(png + 20), 600);
    free(png);
    /* an old name of the column still draws it (sim/common/names.h) */
    r = run_shellf(dir, "'%s' plot r.csv --x rx_ring --y model_pcie_write_hit --heatmap ddio_ways --where cores=1 "
                        "-o b.svg", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(p, sizeof p, "%s/b.svg", dir);
    char *svg = slurp(p, NULL);
    cr_assert(svg);
    cr_expect(strstr(svg, "<svg") && strstr(svg, "</svg>"), "not an SVG document");
    cr_expect(strstr(svg, "width=\"960\"") || strstr(svg, "width=\"960"), "%.300s", svg);
    free(svg);
    static const struct {
        const char *args, *want;
    } bad[] = {
        {"--x rx_ring --y model_pcie_write_hit -o c.png", "parameter 'cores' varies (1, 2): give it --series"},
        {"--x rx_rng --y model_pcie_write_hit -o c.png", "--x: 'rx_rng' is not a parameter of r.csv (parameters: pkt_size"},
        {"--x rx_ring --y sim_pcie_write_hit --where cores=1 --series ddio_ways -o c.png",
         "--y: 'sim_pcie_write_hit' is not a column of r.csv"},
        {"--x rx_ring --y model_pcie_write_hit --where cores=3 --series ddio_ways -o c.png",
         "no computed point matches the --where"},
        {"--x rx_ring --y model_pcie_write_hit --where cores -o c.png", "--where: 'cores' is not PARAM=VALUE"},
        {"--x rx_ring --y model_pcie_write_hit --where cores=1 --series ddio_ways -o c.jpg", "must end in .svg, .png or .pdf"},
        {"--x rx_ring --y model_pcie_write_hit --series cores --heatmap ddio_ways -o c.png",
         "--series and --heatmap do not go together"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_shellf(dir, "'%s' plot r.csv %s", ddiosim_bin(), bad[i].args);
        cr_expect_eq(r.status, 2, "%s: exit %d", bad[i].args, r.status);
        cr_expect(strstr(r.err, bad[i].want), "%s:\n%s", bad[i].args, r.err);
        cli_run_free(&r);
    }
    char listing[512];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "a.png,b.svg,r.csv,r.csv.meta.json,spec.json");
    r = run_shellf(dir, "printf 'x,y\\n1,2\\n' > junk.csv && '%s' plot junk.csv --x x --y y -o d.png", ddiosim_bin());
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "junk.csv:1: not the header of a ddiosim sweep CSV"), "%s", r.err);
    cli_run_free(&r);
    rm_rf(dir);
}

/* advise on the Fig. 17 case (configs/sweeps/fig17-advise.json): its
 * answer is the fewest DDIO ways whose model memory write traffic is under
 * the budget in a brute-force sweep of the same grid. */
Test(sweep, advise_matches_a_brute_force_sweep, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cli_run r = run_shellf(dir, "'%s' advise --spec '%s/configs/sweeps/fig17-advise.json' --engine model --format json "
                                "-o advice.json", ddiosim_bin(), DDIOSIM_SOURCE_DIR);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char p[128];
    snprintf(p, sizeof p, "%s/advice.json", dir);
    char *t = slurp(p, NULL);
    cJSON *j = cJSON_Parse(t);
    cr_assert(j, "%s", t);
    const cJSON *adv = cJSON_GetObjectItem(j, "advice");
    cr_assert(cJSON_IsObject(adv), "%s", t);
    int ways = cJSON_GetObjectItem(adv, "ddio_ways")->valueint;
    cr_expect_eq(cJSON_GetObjectItem(j, "points")->valueint, 11);
    int feasible = cJSON_GetObjectItem(j, "feasible")->valueint;
    cJSON_Delete(j);
    free(t);
    /* The same grid as a sweep. */
    FILE *f = fopen((snprintf(p, sizeof p, "%s/spec.json", dir), p), "w");
    fputs("{\"fixed\": {\"pkt_size\": 1500, \"rate\": \"max\", \"cores\": 1, \"rx_ring\": 2048},"
          " \"grid\": {\"ddio_ways\": {\"range\": [1, 11]}}}", f);
    fclose(f);
    r = run_shellf(dir, "'%s' sweep --spec spec.json -o r.jsonl --engine model", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(p, sizeof p, "%s/r.jsonl", dir);
    t = slurp(p, NULL);
    int best = 0, n_ok = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *row = cJSON_Parse(line);
        const cJSON *mo = cJSON_GetObjectItem(row, "model");
        if (mo) {
            double w = cJSON_GetObjectItem(mo, "mem_write_gbyte_s")->valuedouble;
            int k = cJSON_GetObjectItem(cJSON_GetObjectItem(row, "params"), "ddio_ways")->valueint;
            if (w <= 1.0) {
                n_ok++;
                if (!best || k < best)
                    best = k;
            }
        }
        cJSON_Delete(row);
    }
    free(t);
    cr_expect_eq(ways, best, "advise: %d ways, the sweep: %d", ways, best);
    cr_expect_eq(feasible, n_ok);
    cr_expect(best >= 2 && best <= 6, "%d ways", best);
    /* No answer (no rate is negative): exit 6, said. */
    r = run_shellf(dir, "sed 's/\"max\": 1.0/\"max\": -1/' '%s/configs/sweeps/fig17-advise.json' > none.json && "
                        "'%s' advise --spec none.json --engine model", DDIOSIM_SOURCE_DIR, ddiosim_bin());
    cr_expect_eq(r.status, 6, "%s", r.err);
    cr_expect(strstr(r.out, "no point of the grid meets every constraint"), "%s", r.out);
    cli_run_free(&r);
    rm_rf(dir);
}

Test(sweep, advise_spec_errors)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"{\"grid\": {\"ddio_ways\": [2, 3]}}", "q.json: constraints: missing"},
        {"{\"grid\": {\"ddio_ways\": [2, 3]}, \"constraints\": {\"speed\": {\"max\": 1}}}",
         "q.json: constraints.speed: unknown metric"},
        {"{\"grid\": {\"ddio_ways\": [2, 3]}, \"constraints\": {\"drop_rate\": {\"max\": \"low\"}}}",
         "q.json: constraints.drop_rate.max: expected a number"},
        {"{\"grid\": {\"ddio_ways\": [2, 3]}, \"constraints\": {\"drop_rate\": {\"below\": 1}}}",
         "q.json: constraints.drop_rate.below: unknown key (min, max)"},
        {"{\"grid\": {\"ddio_ways\": [2, 3]}, \"constraints\": {\"pcie_write_hit\": {\"min\": 0.9, \"max\": 0.5}}}",
         "constraints.pcie_write_hit: min is above max"},
        {"{\"grid\": {\"ddio_ways\": [2, 3]}, \"constraints\": {}}", "q.json: constraints: no constraint"},
        {"{\"grid\": {\"ddio_ways\": [2, 3]}, \"constraints\": {\"drop_rate\": {\"max\": 1}}, \"prefer\": [\"cores\"]}",
         "q.json: prefer[0]: 'cores' is not a parameter of the grid"},
        {"{\"grid\": {\"ddio_ways\": [2, 3]}, \"constraints\": {\"drop_rate\": {\"max\": 1}}, \"confirm\": -1}",
         "q.json: confirm: expected a whole number"},
        {"{\"grid\": {\"ddio_way\": [2, 3]}, \"constraints\": {\"drop_rate\": {\"max\": 1}}}",
         "q.json: grid.ddio_way: unknown parameter"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ad_spec s;
        ddio_err e = {0};
        cr_expect_eq(ad_spec_parse(bad[i].text, "q.json", &s, &e), -1, "accepted: %s", bad[i].text);
        cr_expect(strstr(e.msg, bad[i].want), "%s\n  wanted: %s", e.msg, bad[i].want);
    }
}

/* MPI (`mpirun -np N ddiosim sweep`, sim/cli/sweep_mpi.c): the 24-point grid
 * gives the bytes --jobs 1 and --jobs 2 give, with 2 and 3 ranks; a
 * refusal on rank 0 stops every rank; a resumed file completes.  (Root may
 * run Open MPI only when told; its library's allocations at exit are not
 * ours to free: no leak check under mpirun.) */
Test(sweep, mpi_ranks_write_the_same_file, .timeout = 300)
{
    cr_assert(DDIOSIM_HAVE_MPI, "ddiosim was built without MPI (scripts/install-deps.sh installs Open MPI)");
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char spec[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    FILE *f = fopen(spec, "w");
    fputs(grid24, f);
    fclose(f);
    static const char env[] = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 "
                              "OMPI_MCA_btl_vader_single_copy_mechanism=none";
    /* (Each command list in parentheses: run_shellf's redirections apply to one command.) */
    cli_run r = run_shellf(dir, "('%s' sweep --spec spec.json -o j1.csv --engine model --jobs 1 && "
                                "'%s' sweep --spec spec.json -o j2.csv --engine model --jobs 2 && "
                                "%s mpirun -np 2 --oversubscribe '%s' sweep --spec spec.json -o n2.csv --engine model && "
                                "%s mpirun -np 3 --oversubscribe '%s' sweep --spec spec.json -o n3.csv --engine model && "
                                "cmp j1.csv j2.csv && cmp j1.csv n2.csv && cmp j1.csv n3.csv)",
                           ddiosim_bin(), ddiosim_bin(), env, ddiosim_bin(), env, ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    /* Rank 0 refuses (the file exists): every rank ends, exit 2, the file as it was. */
    r = run_shellf(dir, "(%s mpirun -np 2 --oversubscribe '%s' sweep --spec spec.json -o n2.csv --engine model; "
                        "echo \"exit $?\"; cmp j1.csv n2.csv)",
                   env, ddiosim_bin());
    cr_expect(strstr(r.err, "n2.csv exists: --resume completes it"), "%s", r.err);
    cr_expect(strstr(r.out, "exit 0") == NULL, "%s", r.out);
    cr_expect_eq(r.status, 0, "the file changed: %s", r.out);
    cli_run_free(&r);
    /* Cut mid-row and resumed by 2 ranks: the same rows. */
    r = run_shellf(dir, "(head -c 1500 j1.csv > cut.csv && cp j1.csv.meta.json cut.csv.meta.json && %s mpirun -np 2 --oversubscribe '%s' sweep --spec "
                        "spec.json -o cut.csv --engine model --resume && sort cut.csv > a && sort j1.csv > b && cmp a b)",
                   env, ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    rm_rf(dir);
}

/* A point whose model does not converge is a row with its error, not a
 * lost point (one fixed-point iteration converges nowhere). */
Test(sweep, a_model_that_does_not_converge_is_an_error_row, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    char spec[128], res[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    snprintf(res, sizeof res, "%s/r.csv", dir);
    FILE *f = fopen(spec, "w");
    fputs("{\"fixed\": {\"pkt_size\": 1500, \"rate\": \"max\"}, \"grid\": {\"rx_ring\": [1024, 2048, 4096]}}", f);
    fclose(f);
    cli_run r = run_shellf(dir, "'%s' sweep --spec spec.json -o r.csv --engine model --max-iter 1", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "3 points computed, 0 already in r.csv, 3 failed"), "%s", r.err);
    cli_run_free(&r);
    char *t = slurp(res, NULL);
    cr_expect_eq(count_lines_with(t, ",error,\"model did not converge: residual"), 3, "%s", t);
    free(t);
    rm_rf(dir);
}

Test(sweep, cli_errors)
{
    static const cli_error_case cases[] = {
        {"sweep -o x.csv", "--spec is required", 1},
        {"sweep --spec s.json", "-o is required", 1},
        {"sweep --spec s.json -o x.csv --engine fast", "--engine: 'fast' is not sim, model or both", 0},
        {"sweep --spec s.json -o x.csv --format xml", "--format: 'xml' is not csv, jsonl or npf", 0},
        {"sweep --spec s.json -o x.csv --jobs 0", "--jobs", 0},
        {"sweep --spec /nonexistent/s.json -o /tmp/ddiosim-never.csv", "/nonexistent/s.json", 0},
        {"sweep --spec s.json -o x.csv extra", "unexpected argument 'extra'", 1},
    };
    expect_cli_errors(cases, sizeof cases / sizeof cases[0]);
}
