/* test_validate_inputs.c - bad input to `ddiosim validate` and its readers
 * (issue 24, items 4, 5, 6, 15, 21): a --max-mae that cannot check is exit
 * 4, never a pass; NPF runs are rates and a cut file is refused; CSV fields
 * are quoted (RFC 4180); duplicates (points, run files, --measured folders,
 * JSON keys) are refused; the messages name the right key and file.
 *
 * CLI runs use --engine model (no simulation) on experiments of one or two
 * points: nothing here depends on the machine's speed. */
#define _DEFAULT_SOURCE 1   /* symlink, strdup */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "validate/experiment.h"
#include "validate/measure.h"

/* ------------------------------------------------------------ helpers */


/* `fmt` with every '@' replaced by `dir` (static buffer). */
static const char *at(const char *fmt, const char *dir)
{
    static char buf[2000];
    size_t n = 0;
    for (const char *p = fmt; *p; p++) {
        size_t k = *p == '@' ? strlen(dir) : 1;
        cr_assert(n + k + 1 < sizeof buf);
        memcpy(buf + n, *p == '@' ? dir : p, k);
        n += k;
    }
    buf[n] = '\0';
    return buf;
}

/* A new folder holding experiment.json = json (path into dir). */
static void experiment(char *dir, size_t cap, const char *json)
{
    make_tmpdir(dir, cap);
    put_file(dir, "experiment.json", json);
}

/* Loading `dir` fails with exit code 2 and exactly `want` (@ = dir). */
static void expect_load_error(const char *dir, const char *want)
{
    vd_experiment x;
    ddio_err e = {0};
    int rc = vd_experiment_load(dir, &x, &e);
    cr_expect_eq(rc, -1, "no error, expected %s", at(want, dir));
    if (rc == 0)
        vd_experiment_free(&x);
    cr_expect_eq(e.exit_code, 2, "exit code %d: %s", e.exit_code, e.msg);
    cr_expect_str_eq(e.msg, at(want, dir));
    cr_expect_eq(x.n, 0);
}

/* `ddiosim validate --engine model --jobs 1 --measured DIR OPTS`. */
static cli_run validate_model(const char *dir, const char *opts)
{
    char args[1400];
    int n = snprintf(args, sizeof args, "validate --engine model --jobs 1 --measured '%s' %s", dir, opts);
    cr_assert(n > 0 && (size_t)n < sizeof args);
    return run_ddiosim(args);
}

/* The run exited with `status` and printed exactly `want` (@ = dir) on stderr. */
static void expect_exit(cli_run *r, int status, const char *want, const char *dir)
{
    cr_expect_eq(r->status, status, "exit %d, expected %d: %s", r->status, status, r->err);
    cr_expect_str_eq(r->err, at(want, dir));
    cli_run_free(r);
}

/* An NPF experiment over rx_ring (1500 B packets, one core), pcie_write_hit in W.csv. */
#define NPF_JSON(extra)                                                                                   \
    "{\"name\": \"t\", \"source\": \"npf\", \"fixed\": {\"pkt_size\": 1500, \"cores\": 1}, "             \
    "\"x\": {\"param\": \"rx_ring\"}, \"metrics\": {\"pcie_write_hit\": \"W\"}" extra "}"

/* A perf experiment: pcie_write_hit from the itom_hit / itom_miss events. */
#define PERF_JSON(name, points)                                                                           \
    "{\"name\": \"" name "\", \"source\": \"perf\", \"fixed\": {\"pkt_size\": 1500, \"cores\": 1}, "    \
    "\"metrics\": {\"pcie_write_hit\": \"itom\"}, \"points\": [" points "]}"

#define PERF_RUN(hit, miss) hit ",,itom_hit,20004106117,100.00,,\n" miss ",,itom_miss,20004106117,100.00,,\n"

/* 10^308 as a perf count: digits only, 309 of them (static buffer). */
static const char *e308(void)
{
    static char s[310];
    s[0] = '1';
    memset(s + 1, '0', 308);
    s[309] = '\0';
    return s;
}

/* ------------------------------------------------------------ item 4: --max-mae */

/* A limit on the engine that did not run, or on a metric no point
 * measured, checks nothing: exit 4, not a pass; the report is written. */
Test(validate_inputs, max_mae_on_what_was_not_computed_is_exit_4)
{
    char d[64];
    experiment(d, sizeof d, NPF_JSON(""));
    put_file(d, "W.csv", "64 90 92\n128 95 97\n");
    cli_run r = validate_model(d, "--max-mae sim:pcie_write_hit=1");
    cr_expect_neq(strstr(r.out, "summary"), NULL, "no report: %s", r.out);
    expect_exit(&r, 4,
                "ddiosim validate: --max-mae sim:pcie_write_hit=1: nothing to check: the simulator did not run "
                "(--engine model)\n",
                d);
    r = validate_model(d, "--max-mae model:pcie_write_partial_hit=50");
    expect_exit(&r, 4,
                "ddiosim validate: --max-mae model:pcie_write_partial_hit=50: nothing to check: no point "
                "measured pcie_write_partial_hit\n",
                d);
    /* What was computed is checked as before. */
    r = validate_model(d, "--max-mae model:pcie_write_hit=100 --max-mae 100");
    expect_exit(&r, 0, "", d);
    rm_rf(d);
}

/* A point whose counters saw no lookup has no metric: --max-mae cannot
 * check it. */
Test(validate_inputs, max_mae_with_a_point_of_no_metric_is_exit_4)
{
    char d[64];
    experiment(d, sizeof d,
               PERF_JSON("p", "{\"params\": {\"rx_ring\": 64}, \"runs\": [\"a.csv\"]},"
                              "{\"params\": {\"rx_ring\": 128}, \"runs\": [\"z.csv\"]}"));
    put_file(d, "a.csv", PERF_RUN("900", "100"));
    put_file(d, "z.csv", PERF_RUN("0", "0"));
    cli_run r = validate_model(d, "--max-mae 100");
    expect_exit(&r, 4,
                "ddiosim validate: p: point points[1]: no metric was measured (no run's counters saw a lookup): "
                "--max-mae cannot check it\n",
                d);
    rm_rf(d);
}

/* Counts that add up beyond the largest double are refused where they are
 * read (before: an infinite sum, a NaN hit rate and --max-mae passed). */
Test(validate_inputs, perf_counts_beyond_the_largest_number_are_refused)
{
    char d[64], text[1000];
    experiment(d, sizeof d, PERF_JSON("p", "{\"params\": {\"rx_ring\": 64}, \"runs\": [\"big.csv\"]}"));
    snprintf(text, sizeof text, "%s,,itom_hit,1,100.00,,\n%s,,itom_hit,1,100.00,,\n5,,itom_miss,1,100.00,,\n",
             e308(), e308());
    put_file(d, "big.csv", text);
    cli_run r = validate_model(d, "--max-mae 1");
    expect_exit(&r, 2,
                "ddiosim validate: @/big.csv:2: itom_hit: the counts add up to more than the largest number\n", d);
    /* Each sum finite, hit + miss not. */
    snprintf(text, sizeof text, "%s,,itom_hit,1,100.00,,\n%s,,itom_miss,1,100.00,,\n", e308(), e308());
    put_file(d, "big.csv", text);
    r = validate_model(d, "--max-mae 1");
    expect_exit(&r, 2,
                "ddiosim validate: @/big.csv: itom_hit + itom_miss add up to more than the largest number\n", d);
    rm_rf(d);
}

/* ------------------------------------------------------------ item 5: NPF runs */

/* Every run is a rate, not only the mean: 150 and -50 average to 50. */
Test(validate_inputs, npf_runs_are_rates)
{
    static const char *const cases[][3] = {
        {"", "64 150 -50\n128 95 97\n", "@/W.csv:1: run 1: 150 is not a rate in [0, 100] (\"values\"?)"},
        {"", "64 90 92\n128 95 -5\n", "@/W.csv:2: run 2: -5 is not a rate in [0, 100] (\"values\"?)"},
        {"", "64 1e308 -1e308\n", "@/W.csv:1: run 1: 1e+308 is not a rate in [0, 100] (\"values\"?)"},
        {", \"values\": \"fraction\"", "64 0.5 1.5\n", "@/W.csv:1: run 2: 1.5 is not a rate in [0, 1] (\"values\"?)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char d[64], json[600];
        snprintf(json, sizeof json,
                 "{\"name\": \"t\", \"source\": \"npf\", \"fixed\": {\"pkt_size\": 1500, \"cores\": 1}, "
                 "\"x\": {\"param\": \"rx_ring\"}, \"metrics\": {\"pcie_write_hit\": \"W\"}%s}",
                 cases[i][0]);
        experiment(d, sizeof d, json);
        put_file(d, "W.csv", cases[i][1]);
        expect_load_error(d, cases[i][2]);
        rm_rf(d);
    }
}

/* A file whose last line has no newline may have been cut mid-number
 * (`head -c`): refused, naming the line; a last comment line is harmless. */
Test(validate_inputs, npf_file_cut_mid_line_is_refused)
{
    char *p = write_temp(".csv", "64 90 92\n128 95 9", 17);
    cr_assert_not_null(p);
    vd_npf n;
    ddio_err e = {0};
    cr_expect_eq(vd_npf_read(p, &n, &e), -1);
    cr_expect_eq(e.exit_code, 2);
    cr_expect_str_eq(e.msg, at("@:2: the last line has no newline: the file may be cut short", p));
    cr_expect_eq(n.n, 0);
    unlink(p);
    free(p);
    p = write_temp(".csv", "64 90 92\n# end", 14);
    cr_assert_not_null(p);
    cr_expect_eq(vd_npf_read(p, &n, &e), 0, "%s", e.msg);
    cr_expect_eq(n.n, 1);
    vd_npf_free(&n);
    unlink(p);
    free(p);
}

/* ------------------------------------------------------------ item 6: CSV */

/* The fields of one RFC 4180 record starting at *s (quotes doubled inside
 * quoted fields); *s is moved past its line break.  Returns the count and
 * copies field i (when asked) into out. */
static int csv_record(const char **s, int want, char *out, size_t cap)
{
    int n = 0;
    size_t len = 0;
    int quoted = 0;
    out[0] = '\0';
    for (const char *p = *s;; p++) {
        if (quoted) {
            if (*p == '\0')
                cr_assert_fail("unterminated quoted field");
            if (*p == '"' && p[1] == '"')
                p++;
            else if (*p == '"') {
                quoted = 0;
                continue;
            }
        } else if (*p == '"') {
            quoted = 1;
            continue;
        } else if (*p == ',' || *p == '\n' || *p == '\0') {
            if (n == want)
                out[len] = '\0';
            n++;
            if (*p != ',') {
                *s = *p ? p + 1 : p;
                return n;
            }
            continue;
        }
        if (n == want && len + 1 < cap)
            out[len++] = *p;
    }
}

/* A name and a policy holding commas and quotes are quoted fields: every
 * row has the header's 25 columns. */
Test(validate_inputs, csv_report_quotes_fields)
{
    char d[64];
    experiment(d, sizeof d,
               PERF_JSON("a,\\\"b\\\"", "{\"params\": {\"policy\": \"duel:lru,bip\"}, \"runs\": [\"a.csv\"]}"));
    put_file(d, "a.csv", PERF_RUN("900", "100"));
    cli_run r = validate_model(d, "--format csv");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *s = r.out;
    char f[200];
    int cols = csv_record(&s, -1, f, sizeof f);
    cr_expect_eq(cols, 25);
    const char *row = s;
    cr_expect_eq(csv_record(&s, 0, f, sizeof f), cols, "%s", row);
    cr_expect_str_eq(f, "a,\"b\"");
    s = row;
    csv_record(&s, 1, f, sizeof f);
    cr_expect_str_eq(f, "policy=duel:lru,bip");
    static const char start[] = "\"a,\"\"b\"\"\",\"policy=duel:lru,bip\",pcie_write_hit,0.9,0,1,";
    cr_expect(strncmp(row, start, sizeof start - 1) == 0, "%s", row);
    cr_expect_str_eq(s, "");
    cli_run_free(&r);
    rm_rf(d);
}

/* sweep's results file quotes a policy with a comma the same way. */
Test(validate_inputs, sweep_csv_quotes_a_policy_with_a_comma)
{
    char d[64];
    make_tmpdir(d, sizeof d);
    put_file(d, "spec.json", "{\"fixed\": {\"pkt_size\": 1500, \"cores\": 1, \"rx_ring\": 64}, "
                        "\"grid\": {\"policy\": [\"duel:lru,bip\", \"lru\"]}}");
    cli_run r = run_shellf(d, "'%s' sweep --spec spec.json -o a.csv --engine model --jobs 1", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char path[128];
    snprintf(path, sizeof path, "%s/a.csv", d);
    char *t = slurp(path, NULL);
    cr_assert_not_null(t);
    const char *s = t;   /* the column names, then the rows */
    char f[200];
    int cols = csv_record(&s, -1, f, sizeof f);
    for (int k = 0; k < 2; k++) {
        const char *row = s;
        cr_expect_eq(csv_record(&s, -1, f, sizeof f), cols, "%s", row);
        s = row;
        csv_record(&s, 4, f, sizeof f);   /* id, pkt_size, cores, rx_ring, policy */
        cr_expect_str_eq(f, k ? "lru" : "duel:lru,bip", "%s", row);
    }
    cr_expect_eq(count_lines_with(t, ",\"duel:lru,bip\",ok,"), 1, "%s", t);
    free(t);
    rm_rf(d);
}

/* ------------------------------------------------------------ item 15: duplicates */

Test(validate_inputs, the_same_point_twice_is_refused)
{
    char d[64];
    experiment(d, sizeof d,
               PERF_JSON("p", "{\"params\": {\"rx_ring\": 64, \"burst\": 32}, \"runs\": [\"a.csv\"]},"
                              "{\"params\": {\"burst\": 32, \"rx_ring\": 64}, \"runs\": [\"b.csv\"]}"));
    put_file(d, "a.csv", PERF_RUN("900", "100"));
    put_file(d, "b.csv", PERF_RUN("800", "200"));
    expect_load_error(d, "@/experiment.json: points[1]: the same parameters as points[0]");
    rm_rf(d);
}

/* One file, two spellings: compared as files (device and inode). */
Test(validate_inputs, the_same_run_file_twice_is_refused)
{
    char d[64];
    experiment(d, sizeof d, PERF_JSON("p", "{\"params\": {\"rx_ring\": 64}, \"runs\": [\"a.csv\", \"./a.csv\"]}"));
    put_file(d, "a.csv", PERF_RUN("900", "100"));
    expect_load_error(d, "@/experiment.json: points[0].runs[1]: './a.csv' is the file of points[0].runs[0]");
    rm_rf(d);
    experiment(d, sizeof d,
               PERF_JSON("p", "{\"params\": {\"rx_ring\": 64}, \"runs\": [\"a.csv\"]},"
                              "{\"params\": {\"rx_ring\": 128}, \"runs\": [\"b.csv\", \"a.csv\"]}"));
    put_file(d, "a.csv", PERF_RUN("900", "100"));
    put_file(d, "b.csv", PERF_RUN("800", "200"));
    expect_load_error(d, "@/experiment.json: points[1].runs[1]: 'a.csv' is the file of points[0].runs[0]");
    rm_rf(d);
}

Test(validate_inputs, the_same_measured_folder_twice_is_refused)
{
    char d[64];
    experiment(d, sizeof d, NPF_JSON(""));
    put_file(d, "W.csv", "64 90 92\n");
    cli_run r = run_shellf(d, "'%s' validate --engine model --measured '%s' --measured ../'%s'/.", ddiosim_bin(), d,
                           strrchr(d, '/') + 1);
    char want[400];
    snprintf(want, sizeof want, "ddiosim validate: --measured ../%s/.: the same folder as --measured @\n",
             strrchr(d, '/') + 1);
    cr_expect_str_eq(r.out, "");
    expect_exit(&r, 2, want, d);
    rm_rf(d);
}

/* A key twice in one object: the second would silently win or be lost. */
Test(validate_inputs, duplicate_json_keys_are_refused)
{
    char d[64];
    experiment(d, sizeof d,
               "{\"name\": \"t\", \"source\": \"npf\", \"name\": \"u\", \"x\": {\"param\": \"rx_ring\"}, "
               "\"metrics\": {\"pcie_write_hit\": \"W\"}}");
    put_file(d, "W.csv", "64 90 92\n");
    expect_load_error(d, "@/experiment.json: name: duplicate key");
    rm_rf(d);
    experiment(d, sizeof d,
               PERF_JSON("p", "{\"params\": {\"rx_ring\": 64}, \"runs\": [\"a.csv\"]},"
                              "{\"params\": {\"rx_ring\": 128, \"cores\": 2, \"rx_ring\": 256}, "
                              "\"runs\": [\"b.csv\"]}"));
    expect_load_error(d, "@/experiment.json: points[1].params.rx_ring: duplicate key");
    rm_rf(d);

    /* Every JSON file ddiosim reads: a machine file, a sweep spec. */
    make_tmpdir(d, sizeof d);
    put_file(d, "m.json", "{\"llc\": {\"ways\": 11, \"ways\": 12}}");
    cli_run r = run_shellf(d, "'%s' predict --machine ./m.json", ddiosim_bin());
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cr_expect(strstr(r.err, "./m.json: llc.ways: duplicate key\n"), "%s", r.err);
    cli_run_free(&r);
    put_file(d, "spec.json", "{\"grid\": {\"rx_ring\": [64]}, \"grid\": {\"rx_ring\": [128]}}");
    r = run_shellf(d, "'%s' sweep --spec spec.json -o a.csv --engine model", ddiosim_bin());
    expect_exit(&r, 2, "ddiosim sweep: spec.json: grid: duplicate key\n", d);
    rm_rf(d);
}

/* ------------------------------------------------------------ item 21: messages */

/* A "machine" that is a folder is the machine key's error, not a point's. */
Test(validate_inputs, machine_naming_a_folder_is_the_machine_key)
{
    char d[64], sub[128];
    experiment(d, sizeof d, NPF_JSON(", \"machine\": \"./sub\""));
    put_file(d, "W.csv", "64 90 92\n");
    snprintf(sub, sizeof sub, "%s/sub", d);
    cr_assert_eq(mkdir(sub, 0755), 0);
    expect_load_error(d, "@/experiment.json: machine: @/./sub: is a directory, not a machine file");
    rm_rf(d);
}

/* /proc files have size 0 by stat but are not empty: read to the end. */
Test(validate_inputs, experiment_json_from_proc_is_read)
{
    struct stat st;
    cr_assert_eq(stat("/proc/sys/kernel/ostype", &st), 0, "no /proc/sys/kernel/ostype");
    char d[64], link[128];
    make_tmpdir(d, sizeof d);
    snprintf(link, sizeof link, "%s/experiment.json", d);
    cr_assert_eq(symlink("/proc/sys/kernel/ostype", link), 0);
    expect_load_error(d, "@/experiment.json: line 1, column 1: malformed JSON near 'Linux'");
    rm_rf(d);
}

/* \v and \f are blanks, as for strtod: a line of them is a blank line. */
Test(validate_inputs, npf_vertical_tab_and_form_feed_are_blanks)
{
    const char text[] = "64 90\v92\n\v\f\n128\f95 97\n";
    char *p = write_temp(".csv", text, sizeof text - 1);
    cr_assert_not_null(p);
    vd_npf n;
    ddio_err e = {0};
    cr_assert_eq(vd_npf_read(p, &n, &e), 0, "%s", e.msg);
    cr_assert_eq(n.n, 2);
    cr_expect_eq(n.row[0].runs, 2);
    cr_expect_eq(n.row[0].run[1], 92);
    cr_expect_eq(n.row[1].x, 128);
    cr_expect_eq(n.row[1].line, 3);
    cr_expect_eq(n.row[1].runs, 2);
    vd_npf_free(&n);
    unlink(p);
    free(p);
}
