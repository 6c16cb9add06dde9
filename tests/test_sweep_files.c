/* test_sweep_files.c - the files sweep and advise read and write: every
 * parameter read from a file goes through its option's range (one --rate
 * rule everywhere), spec errors stop a run before its output exists, a
 * --set cannot silently override the spec, and a results file is only
 * ever resumed when it is one this run wrote (not another file, not a
 * locked one, not one whose machine has changed); --retry-errors. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/helpers.h"
#include "sim/explore/sweep.h"
#include "validate/experiment.h"


static int exists_in(const char *dir, const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static char *read_in(const char *dir, const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return slurp(p, NULL);
}

/* Run `ddiosim ARGS` in dir; expect exit 2 and exactly the one line `want`. */
static void expect_refusal(const char *dir, const char *args, const char *want)
{
    cli_run r = run_shellf(dir, "'%s' %s", ddiosim_bin(), args);
    cr_expect_eq(r.status, 2, "%s: exit %d: %s", args, r.status, r.err);
    cr_expect_str_eq(r.err, want, "%s", args);
    cli_run_free(&r);
}

#define SMALL_GRID "\"grid\": {\"rx_ring\": [256, 512], \"ddio_ways\": [2, 4]}"

Test(sweep_files, a_rate_read_from_a_file_has_the_options_range, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "tiny.json", "{\"fixed\": {\"pkt_size\": 1500, \"rate\": 1e-300}, " SMALL_GRID "}");
    expect_refusal(dir, "sweep --spec tiny.json -o r.csv --engine model",
                   "ddiosim sweep: tiny.json: fixed.rate: --rate: 1e-300 is out of range [0.001, 10000]\n");
    cr_expect(!exists_in(dir, "r.csv"));
    put_file(dir, "huge.json", "{\"fixed\": {\"pkt_size\": 1500}, \"grid\": {\"rate\": [10, 1e300]}}");
    expect_refusal(dir, "sweep --spec huge.json -o r.csv --engine model",
                   "ddiosim sweep: huge.json: grid.rate[1]: --rate: 1e+300 is out of range [0.001, 10000]\n");
    cr_expect(!exists_in(dir, "r.csv"));
    put_file(dir, "q.json", "{\"fixed\": {\"pkt_size\": 1500, \"rate\": 1e-6}, " SMALL_GRID
                       ", \"constraints\": {\"drop_rate\": {\"max\": 0.1}}}");
    expect_refusal(dir, "advise --spec q.json --engine model",
                   "ddiosim advise: q.json: fixed.rate: --rate: 1e-06 is out of range [0.001, 10000]\n");
    /* An experiment's parameters, as it is read. */
    cli_run r = run_shellf(dir, "cp -r '%s/validate/data/ddio-bench/cores' d && sed -i 's/\"rate\": \"offered\"/\"rate\": "
                                "1e-300/' d/experiment.json && grep -c 1e-300 d/experiment.json", DDIOSIM_SOURCE_DIR);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = run_shellf(dir, "'%s' validate --engine model --measured d --jobs 1", ddiosim_bin());
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.err, "ddiosim validate: d/experiment.json: fixed.rate: --rate: 1e-300 is out of range [0.001, "
                            "10000]\n");
    cli_run_free(&r);
    rm_rf(dir);
}

/* One --rate rule: simulate, predict and trace gen take the same range and
 * say so in the same words. */
Test(sweep_files, one_rate_rule_for_every_command, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cli_run r = run_shellf(dir, "'%s' trace gen --profile fixed:64 --packets 20 --rate 5000 -o g.pcap", ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    cr_expect(exists_in(dir, "g.pcap"));
    expect_refusal(dir, "trace gen --profile fixed:64 --packets 20 --rate 10001 -o h.pcap",
                   "ddiosim trace gen: --rate: 10001 is out of range [0.001, 10000]\n");
    expect_refusal(dir, "simulate --profile fixed:64 --packets 20 --rate 10001",
                   "ddiosim simulate: --rate: 10001 is out of range [0.001, 10000]\n");
    expect_refusal(dir, "predict --pkt-size 64 --rate 0.0001",
                   "ddiosim predict: --rate: 0.0001 is out of range [0.001, 10000]\n");
    rm_rf(dir);
}

Test(sweep_files, resume_refuses_a_file_that_is_not_a_results_file, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "s.json", "{\"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    static const char *const mine[][2] = {
        {"keep.json", "{\"my\":\"data\"}"},       /* one line, no newline */
        {"keep.csv", "id,my,own\n1,2"},          /* a cut line that is not a row */
        {"keep.jsonl", "{\"ddiosim_sweep\":2}"}, /* almost a header */
    };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        put_file(dir, mine[i][0], mine[i][1]);
        char args[200];
        snprintf(args, sizeof args, "sweep --spec s.json -o %s --engine model --resume", mine[i][0]);
        cli_run r = run_shellf(dir, "'%s' %s", ddiosim_bin(), args);
        cr_expect_eq(r.status, 2, "%s: exit %d: %s", mine[i][0], r.status, r.err);
        cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
        cr_expect(strncmp(r.err, "ddiosim sweep: ", 15) == 0 && strstr(r.err, mine[i][0]) &&
                  strstr(r.err, "not resumed"), "%s", r.err);
        cli_run_free(&r);
        char *now = read_in(dir, mine[i][0]);
        cr_expect_str_eq(now, mine[i][1], "%s was changed", mine[i][0]);
        free(now);
    }
    /* What a kill leaves is still resumed: a header cut before its newline
     * (the sidecar is written first), or nothing at all. */
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o full.csv --engine model && printf 'id,pkt_s' > cut.csv && "
                                "cp full.csv.meta.json cut.csv.meta.json && : > empty.csv && "
                                "'%s' sweep --spec s.json -o empty.csv --engine model --resume && "
                                "'%s' sweep --spec s.json -o cut.csv --engine model --resume",
                           ddiosim_bin(), ddiosim_bin(), ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "4 points computed, 0 already in cut.csv"), "%s", r.err);
    cli_run_free(&r);
    rm_rf(dir);
}

/* Another sweep holds the file: refused at once, file untouched.  The lock
 * is held by this process, so nothing depends on timing. */
Test(sweep_files, a_locked_results_file_is_refused, .timeout = 120)
{
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "s.json", "{\"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    put_file(dir, "r.csv", "");
    snprintf(path, sizeof path, "%s/r.csv", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    cr_assert(fd >= 0);
    cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    expect_refusal(dir, "sweep --spec s.json -o r.csv --engine model --resume",
                   "ddiosim sweep: r.csv: another sweep is writing it (it is locked): not touched\n");
    char *t = read_in(dir, "r.csv");
    cr_expect_str_eq(t, "");
    free(t);
    close(fd);
    /* Unlocked, the same command completes it. */
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv --engine model --resume", ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    t = read_in(dir, "r.csv");
    cr_expect_eq(count_lines_with(t, ",ok,"), 4, "%s", t);
    free(t);
    rm_rf(dir);
}

/* The run hash covers what the machine file holds: an edited machine is
 * another run, refused on --resume. */
Test(sweep_files, resume_refuses_an_edited_machine, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cli_run r = run_shellf(dir, "cp '%s/configs/machines/skylake-6140.json' m.json", DDIOSIM_SOURCE_DIR);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    put_file(dir, "s.json", "{\"machine\": \"m.json\", \"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv --engine model && head -n 3 r.csv > cut.csv && "
                        "cp r.csv.meta.json cut.csv.meta.json",
                   ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char *before = read_in(dir, "cut.csv");
    r = run_shellf(dir, "sed -i 's/\"ways\": 11/\"ways\": 12/' m.json && grep -c '\"ways\": 12' m.json");
    cr_assert_eq(r.status, 0, "the machine file has no \"ways\": 11: %s", r.out);
    cli_run_free(&r);
    expect_refusal(dir, "sweep --spec s.json -o cut.csv --engine model --resume",
                   "ddiosim sweep: cut.csv.meta.json: sweep.run: the file was started by another spec or other "
                   "options: not resumed\n");
    char *after = read_in(dir, "cut.csv");
    cr_expect_str_eq(after, before);
    free(before);
    free(after);
    rm_rf(dir);
}

/* The row of grid point `row` (1-based) of a CSV file turned into an
 * error row, as a point that failed writes it. */
static void make_error_row(const char *dir, const char *name, int row)
{
    char *t = read_in(dir, name);
    cr_assert(t);
    char *line = t;
    for (int i = 0; i < row; i++)   /* the column names first */
        line = strchr(line, '\n') + 1;
    char *ok = strstr(line, ",ok,"), *end = strchr(line, '\n');
    cr_assert(ok && ok < end);
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    fwrite(t, 1, (size_t)(ok - t), f);
    fputs(",error,\"injected\"", f);
    fputs(end, f);
    fclose(f);
    free(t);
}

Test(sweep_files, retry_errors_recomputes_the_error_rows_in_place, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "s.json", "{\"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv --engine model && cp r.csv whole.csv",
                           ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    make_error_row(dir, "r.csv", 2);
    make_error_row(dir, "r.csv", 4);
    char *with_errors = read_in(dir, "r.csv");
    cr_assert_eq(count_lines_with(with_errors, ",error,\"injected\""), 2, "%s", with_errors);
    /* --resume alone keeps them. */
    r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv --engine model --resume", ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "0 points computed, 4 already in r.csv"), "%s", r.err);
    cli_run_free(&r);
    char *t = read_in(dir, "r.csv");
    cr_expect_str_eq(t, with_errors);
    free(t);
    /* --retry-errors computes them again, each in its place. */
    r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv --engine model --resume --retry-errors", ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "2 points computed, 2 already in r.csv, 0 failed"), "%s", r.err);
    cli_run_free(&r);
    char *whole = read_in(dir, "whole.csv");
    t = read_in(dir, "r.csv");
    cr_expect_str_eq(t, whole);
    free(t);
    free(whole);
    free(with_errors);
    expect_refusal(dir, "sweep --spec s.json -o r.csv --engine model --retry-errors",
                   "ddiosim sweep: --retry-errors needs --resume (see 'ddiosim sweep --help')\n");
    rm_rf(dir);
}

/* A --set of a field a parameter of the spec sets would run other points
 * than the rows say: refused, as --ddio-ways with a DDIO mask is. */
Test(sweep_files, a_set_of_a_field_the_spec_varies_is_refused, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "s.json", "{\"fixed\": {\"pkt_size\": 1500, \"rx_ring\": 512}, \"grid\": {\"policy\": [\"lru\", \"bip\"], "
                       "\"ddio_ways\": [2, 4]}}");
    expect_refusal(dir, "sweep --spec s.json -o r.csv --engine model --set machine.llc.policy=srrip",
                   "ddiosim sweep: --set machine.llc.policy=srrip: s.json: grid.policy sets the same field; vary it "
                   "in the spec, or drop the --set\n");
    expect_refusal(dir, "sweep --spec s.json -o r.csv --engine model --set machine.ddio_mask=0x3",
                   "ddiosim sweep: --set machine.ddio_mask=0x3: s.json: grid.ddio_ways sets the same field; vary it "
                   "in the spec, or drop the --set\n");
    expect_refusal(dir, "sweep --spec s.json -o r.csv --engine model --set workload.driver.rx_ring=256",
                   "ddiosim sweep: --set workload.driver.rx_ring=256: s.json: fixed.rx_ring sets the same field; "
                   "vary it in the spec, or drop the --set\n");
    cr_expect(!exists_in(dir, "r.csv"));
    put_file(dir, "q.json", "{\"fixed\": {\"pkt_size\": 1500}, \"grid\": {\"policy\": [\"lru\", \"bip\"]}, "
                       "\"constraints\": {\"drop_rate\": {\"max\": 0.1}}}");
    expect_refusal(dir, "advise --spec q.json --engine model --set machine.llc.policy=srrip",
                   "ddiosim advise: --set machine.llc.policy=srrip: q.json: grid.policy sets the same field; vary it "
                   "in the spec, or drop the --set\n");
    /* A field no parameter sets is fine. */
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv --engine model --set machine.llc.ways=12",
                           ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    rm_rf(dir);
}

/* A --set whose path or value is wrong fails every point: one line, exit
 * 2, before the output exists (not a file of error rows). */
Test(sweep_files, a_bad_set_is_refused_before_the_run, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "s.json", "{\"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    expect_refusal(dir, "sweep --spec s.json -o r.csv --engine model --set machine.llc.ways=abc",
                   "ddiosim sweep: --set machine.llc.ways: 'abc' is not an integer\n");
    cr_expect(!exists_in(dir, "r.csv"));
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv --engine model --set machine.llc.nosuch=3",
                           ddiosim_bin());
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cr_expect(strncmp(r.err, "ddiosim sweep: --set machine.llc.nosuch", 39) == 0, "%s", r.err);
    cr_expect(!exists_in(dir, "r.csv"));
    cli_run_free(&r);
    rm_rf(dir);
}

/* A machine or workload the spec names that cannot load: one line naming
 * the spec's key, exit 2, before anything runs or the output exists. */
Test(sweep_files, spec_errors_stop_before_the_output_exists, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "a.json", "{\"machine\": \"nosuch\", \"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    cli_run r = run_shellf(dir, "'%s' sweep --spec a.json -o r.csv --engine model", ddiosim_bin());
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cr_expect(strncmp(r.err, "ddiosim sweep: a.json: machine: unknown machine 'nosuch' (known: ", 64) == 0, "%s",
              r.err);
    cli_run_free(&r);
    cr_expect(!exists_in(dir, "r.csv"));
    put_file(dir, "b.json", "{\"workload\": \"/dev/null\", \"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    r = run_shellf(dir, "'%s' sweep --spec b.json -o r.csv --engine model", ddiosim_bin());
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cr_expect(strncmp(r.err, "ddiosim sweep: b.json: workload: /dev/null", 42) == 0, "%s", r.err);
    cli_run_free(&r);
    cr_expect(!exists_in(dir, "r.csv"));
    put_file(dir, "q.json", "{\"machine\": \"nosuch\", \"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID
                       ", \"constraints\": {\"drop_rate\": {\"max\": 0.1}}}");
    r = run_shellf(dir, "'%s' advise --spec q.json --engine model", ddiosim_bin());
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strncmp(r.err, "ddiosim advise: q.json: machine: unknown machine 'nosuch' (known: ", 65) == 0, "%s",
              r.err);
    cr_expect(!strstr(r.err, "--machine"), "%s", r.err);
    cli_run_free(&r);
    rm_rf(dir);
}

/* advise streams the grid as sweep does: a 10 M-point grid (within the
 * spec's limits) whose filter keeps 20 points runs in constant memory, and
 * the best are those a whole ranking would give (keep: 3 of 20, so the
 * kept buffer is ranked and cut several times). */
Test(sweep_files, advise_streams_a_large_grid, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "q.json", "{\"fixed\": {\"pkt_size\": 1500, \"rx_ring\": 512}, \"grid\": {\"extra_cycles\": {\"range\": "
                       "[0, 9999]}, \"uncore_ghz\": {\"range\": [1, 1000]}}, \"filter\": \"extra_cycles <= 9 && "
                       "uncore_ghz <= 2\", \"constraints\": {\"drop_rate\": {\"max\": 1}}, \"prefer\": "
                       "[\"-uncore_ghz\", \"extra_cycles\"], \"confirm\": 0}");
    cli_run r = run_shellf(dir, "'%s' advise --spec q.json --engine model --top 3 --format json", ddiosim_bin());
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cr_expect_eq(cJSON_GetObjectItem(j, "points")->valuedouble, 20);
    cr_expect_eq(cJSON_GetObjectItem(j, "feasible")->valuedouble, 20);
    const cJSON *c = cJSON_GetObjectItem(j, "candidates");
    cr_assert_eq(cJSON_GetArraySize(c), 3, "%s", r.out);
    for (int i = 0; i < 3; i++) {
        const cJSON *p = cJSON_GetObjectItem(cJSON_GetArrayItem(c, i), "params");
        cr_expect_eq(cJSON_GetObjectItem(p, "uncore_ghz")->valuedouble, 2, "%s", r.out);
        cr_expect_eq(cJSON_GetObjectItem(p, "extra_cycles")->valuedouble, i, "%s", r.out);
    }
    cJSON_Delete(j);
    cli_run_free(&r);
    rm_rf(dir);
}

/* sw_resume_scan on bytes: what it keeps, what it cuts, what it refuses
 * (the reader the results-file fuzz target calls). */
Test(sweep_files, resume_scan_keeps_whole_rows_and_cuts_only_its_own_lines)
{
    static const char header[] = "# h\nid,x,status,error\n";
    static const struct {
        const char *text;
        int rc;
        long long good;
        size_t rows, failed;
    } cases[] = {
        {"", 0, 0, 0, 0},
        {"# h\nid,x,st", 0, 0, 0, 0},                                  /* a cut header: a fresh start */
        {"# h\nid,x,status,error\n", 0, 22, 0, 0},
        {"# h\nid,x,status,error\n0123456789abcdef,1,ok,\n0123", 0, 45, 1, 0},
        {"# h\nid,x,status,error\n0123456789abcdef,1,ok,\n0123456789abcdef,2,e", 0, 45, 1, 0},
        {"# h\nid,x,status,error\n0123456789abcdef,1,error,\"no\"\n", 0, 52, 1, 1},
        {"{\"my\":\"data\"}", -1, 0, 0, 0},                           /* not the start of the header */
        {"# h\nid,x,status,error\n0123456789abcdef,1,ok,\nhello", -1, 0, 0, 0},
        {"# h\nid,x,status,error\n0123456789abcdef;1", -1, 0, 0, 0},
        {"# h\nid,y,status,error\n", -1, 0, 0, 0},                    /* another run's header */
        {"# h\nid,x,status,error\nhello\n", -1, 0, 0, 0},
    };
    char dir[64], path[128];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/r.csv", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        put_file(dir, "r.csv", cases[i].text);
        sw_done d;
        ddio_err e = {0};
        int rc = sw_resume_scan(path, header, SW_CSV, &d, &e);
        cr_expect_eq(rc, cases[i].rc, "case %zu: %s", i, e.msg);
        if (rc != 0) {
            cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "case %zu", i);
            cr_expect(strstr(e.msg, "not resumed"), "case %zu: %s", i, e.msg);
            continue;
        }
        cr_expect_eq(d.good_bytes, cases[i].good, "case %zu", i);
        cr_expect_eq(d.n, cases[i].rows, "case %zu", i);
        cr_expect_eq(d.n_failed, cases[i].failed, "case %zu", i);
        if (d.n)
            cr_expect_eq(d.row[0].id, 0x0123456789abcdefull, "case %zu", i);
        sw_done_free(&d);
    }
    rm_rf(dir);
}

/* --format npf writes NPF's --single-output layout; validate's reader of
 * that layout (experiment.json "format": "single-output") reads it back as
 * it is: the same points, the same values as the csv of the same sweep. */
Test(sweep_files, npf_format_reads_back_as_single_output, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "s.json", "{\"fixed\": {\"pkt_size\": 1500, \"cores\": 1}, "
                            "\"grid\": {\"rx_ring\": [256, 4096], \"ddio_ways\": [2, 4]}}");
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o r.npf.csv --format npf --engine model && "
                                "'%s' sweep --spec s.json -o r.csv --engine model", ddiosim_bin(), ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char *npf = read_in(dir, "r.npf.csv");
    cr_assert_not_null(npf);
    static const char head[] = "index,build,test_index,pkt_size,cores,rx_ring,ddio_ways,model_pcie_write_hit_frac,";
    cr_expect(strncmp(npf, head, strlen(head)) == 0, "%.120s", npf);
    cr_expect_eq(count_lines_with(npf, ",ddiosim,"), 4);
    cr_expect_eq(count_lines_with(npf, ",ok,,0"), 4);   /* status, error, run_index last */
    cr_expect_null(strchr(npf, '#'), "no comment line: pandas reads it as it is");
    free(npf);
    put_file(dir, "experiment.json",
             "{\"name\": \"rt\", \"source\": \"npf\", \"format\": \"single-output\", \"file\": \"r.npf.csv\",\n"
             " \"fixed\": {\"pkt_size\": 1500, \"cores\": 1}, \"values\": \"fraction\",\n"
             " \"x\": [{\"param\": \"rx_ring\"}, {\"param\": \"ddio_ways\"}],\n"
             " \"metrics\": {\"pcie_write_hit\": \"model_pcie_write_hit\", \"pcie_read_hit\": \"model_pcie_read_hit_frac\"}}");
    /* (an old column name, model_pcie_write_hit, still names its column: sim/common/names.h) */
    vd_experiment x;
    ddio_err e = {0};
    cr_assert_eq(vd_experiment_load(dir, &x, &e), 0, "%s", e.msg);
    cr_assert_eq(x.n, 4);
    cr_expect_eq(x.n_warning, 1);   /* one row per point: said */
    char path[128];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    sw_table t;
    cr_assert_eq(sw_table_load(path, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.nrow, 4);
    int crx = -1, cways = -1, cw = -1, cr = -1;
    for (size_t c = 0; c < t.ncol; c++) {
        crx = strcmp(t.col[c], "rx_ring") == 0 ? (int)c : crx;
        cways = strcmp(t.col[c], "ddio_ways") == 0 ? (int)c : cways;
        cw = strcmp(t.col[c], "model_pcie_write_hit_frac") == 0 ? (int)c : cw;
        cr = strcmp(t.col[c], "model_pcie_read_hit_frac") == 0 ? (int)c : cr;
    }
    cr_assert(crx >= 0 && cways >= 0 && cw >= 0 && cr >= 0);
    for (size_t i = 0; i < t.nrow; i++) {
        char *const *row = t.cell + i * t.ncol;
        const vd_point *p = NULL;
        for (size_t k = 0; k < x.n && !p; k++)
            if (vd_point_param(&x.point[k], "rx_ring")->value == strtod(row[crx], NULL) &&
                vd_point_param(&x.point[k], "ddio_ways")->value == strtod(row[cways], NULL))
                p = &x.point[k];
        cr_assert_not_null(p, "no point for rx_ring %s ddio_ways %s", row[crx], row[cways]);
        cr_expect_eq(p->m[VD_PCIE_WRITE_HIT].runs, 1);
        cr_expect_eq(p->m[VD_PCIE_WRITE_HIT].mean, strtod(row[cw], NULL), "%s: %.17g vs %s", p->where,
                     p->m[VD_PCIE_WRITE_HIT].mean, row[cw]);
        cr_expect_eq(p->m[VD_PCIE_READ_HIT].mean, strtod(row[cr], NULL), "%s: %.17g vs %s", p->where,
                     p->m[VD_PCIE_READ_HIT].mean, row[cr]);
        cr_expect_eq(vd_point_param(p, "pkt_size")->value, 1500);
    }
    /* Not every value is 1: the round trip is seen on numbers that differ. */
    cr_expect_neq(x.point[0].m[VD_PCIE_WRITE_HIT].mean, x.point[3].m[VD_PCIE_WRITE_HIT].mean);
    sw_table_free(&t);
    vd_experiment_free(&x);
    /* The file's own pkt_size column is checked against the fixed one. */
    put_file(dir, "experiment.json",
             "{\"name\": \"rt\", \"source\": \"npf\", \"format\": \"single-output\", \"file\": \"r.npf.csv\",\n"
             " \"fixed\": {\"pkt_size\": 64, \"cores\": 1}, \"values\": \"fraction\",\n"
             " \"x\": [{\"param\": \"rx_ring\"}, {\"param\": \"ddio_ways\"}],\n"
             " \"metrics\": {\"pcie_write_hit\": \"model_pcie_write_hit\"}}");
    e = (ddio_err){0};
    cr_expect_eq(vd_experiment_load(dir, &x, &e), -1);
    char want[300];
    snprintf(want, sizeof want, "%s/r.npf.csv:2: column pkt_size is '1500', but experiment.json fixes pkt_size = 64",
             dir);
    cr_expect_str_eq(e.msg, want);
    expect_refusal(dir, "sweep --spec s.json -o r.npf.csv --format npf --engine model --resume",
                   "ddiosim sweep: --resume: not with --format npf (NPF's layout has no line naming the run, so "
                   "another run's file could not be told apart): sweep to csv or jsonl to resume (see 'ddiosim "
                   "sweep --help')\n");
    expect_refusal(dir, "sweep --spec s.json -o q.csv --format pandas",
                   "ddiosim sweep: --format: 'pandas' is not csv, jsonl or npf\n");
    rm_rf(dir);
}

/* A CSV an older version wrote (its run on a "# ddiosim sweep 1" first
 * line, its columns under their old names, no sidecar) is still resumed:
 * it keeps its lines and its names, its rows are the same figures in the
 * same order, and it gets no sidecar that would not describe it. */
Test(sweep_files, resume_completes_a_file_of_an_older_version, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "s.json", "{\"fixed\": {\"pkt_size\": 1500}, " SMALL_GRID "}");
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o new.csv --engine model", ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char *meta = read_in(dir, "new.csv.meta.json");
    cJSON *m = cJSON_Parse(meta);
    const cJSON *sw = cJSON_GetObjectItem(m, "sweep");
    cr_assert(sw, "%s", meta);
    r = run_shellf(dir, "(printf '# ddiosim sweep 1 run=%s engine=model packets=%.0f seed=1\\n'; sed -e '1s/_hit_frac_lower/"
                        "_lower/g; 1s/_hit_frac_upper/_upper/g; 1s/_hit_frac/_hit/g; 1s/drop_frac/drop_rate/g; "
                        "1s/_gbyte_s/_gbps/g' new.csv | head -n 3) > old.csv && head -n 2 old.csv > old-head && "
                        "'%s' sweep --spec s.json -o old.csv --engine model --resume",
                   cJSON_GetStringValue(cJSON_GetObjectItem(sw, "run")), cJSON_GetObjectItem(sw, "packets")->valuedouble,
                   ddiosim_bin());
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "2 points computed, 2 already in old.csv"), "%s", r.err);
    cli_run_free(&r);
    cr_expect(!exists_in(dir, "old.csv.meta.json"));
    char *head = read_in(dir, "old-head"), *old = read_in(dir, "old.csv"), *now = read_in(dir, "new.csv");
    cr_expect(strstr(head, ",model_pcie_write_hit,model_pcie_write_lower,") && strncmp(old, head, strlen(head)) == 0,
              "%s", old);
    /* the same rows as the new file's, in the same order */
    cr_expect_str_eq(old + strlen(head), strchr(now, '\n') + 1);
    /* an older file of another run is refused, untouched */
    r = run_shellf(dir, "(cp old.csv other.csv && '%s' sweep --spec s.json -o other.csv --engine model --resume "
                        "--seed 2; cmp old.csv other.csv)", ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect(strstr(r.err, "other.csv:1: the file was started by another spec or other options"), "%s", r.err);
    cli_run_free(&r);
    cJSON_Delete(m);
    free(meta), free(head), free(old), free(now);
    rm_rf(dir);
}

/* A sidecar is an output like the file it describes: a sweep whose
 * OUT.meta.json would be its own spec is refused before anything is
 * written, and the spec is left as it was; the same for validate's CSV. */
Test(sweep_files, a_sidecar_never_overwrites_an_input, .timeout = 60)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    static const char spec[] = "{\"fixed\": {\"pkt_size\": 1500, \"cores\": 1}, \"grid\": {\"rx_ring\": [256]}}";
    put_file(dir, "grid.meta.json", spec);
    expect_refusal(dir, "sweep --spec grid.meta.json -o grid --engine model",
                   "ddiosim sweep: -o (its sidecar) grid.meta.json is the file --spec reads: it would be "
                   "overwritten\n");
    char *kept = read_in(dir, "grid.meta.json");
    cr_assert_not_null(kept);
    cr_expect_str_eq(kept, spec);
    free(kept);
    cr_expect(!exists_in(dir, "grid"), "the CSV was written");
    rm_rf(dir);
}
