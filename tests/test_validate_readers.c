/* test_validate_readers.c - the measured-data readers of validate/: Intel
 * PCM's pcm-pcie CSV (Skylake, Ice Lake and pre-2020 layouts), perf stat -x,
 * (totals, -I intervals with <not counted>, --no-merge boxes, --per-socket,
 * --summary), hit rates and run statistics.  The recorded samples are in
 * tests/data/validate/ (README.md there); every expected sum below is added
 * up by hand from those files. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "validate/experiment.h"
#include "validate/measure.h"

#define DATA DDIOSIM_SOURCE_DIR "/tests/data/validate/"

/* Read with vd_pcm_read, asserting success. */
static vd_counts pcm_ok(const char *file, const char *column, int socket)
{
    vd_counts c = {0};
    ddio_err e = {0};
    int rc = vd_pcm_read(file, column, socket, &c, &e);
    cr_assert_eq(rc, 0, "%s %s socket %d: %s", file, column, socket, e.msg);
    return c;
}

static vd_counts perf_ok(const char *file, const char *name)
{
    vd_counts c = {0};
    ddio_err e = {0};
    int rc = vd_perf_read(file, name, &c, &e);
    cr_assert_eq(rc, 0, "%s %s: %s", file, name, e.msg);
    return c;
}

static void expect_counts(vd_counts c, double hit, double miss, uint32_t samples)
{
    cr_expect_eq(c.hit, hit, "hit %.17g, expected %.17g", c.hit, hit);
    cr_expect_eq(c.miss, miss, "miss %.17g, expected %.17g", c.miss, miss);
    cr_expect_eq(c.samples, samples, "samples %u, expected %u", c.samples, samples);
}

/* The reader fails with exit code `code` and a message equal to `want`. */
static void expect_pcm_error(const char *file, const char *column, int socket, int code,
                             const char *want)
{
    vd_counts c = {0};
    ddio_err e = {0};
    cr_expect_eq(vd_pcm_read(file, column, socket, &c, &e), -1, "%s: no error", file);
    cr_expect_eq(e.exit_code, code, "exit code %d for '%s'", e.exit_code, e.msg);
    cr_expect_str_eq(e.msg, want);
}

static void expect_perf_error(const char *file, const char *name, const char *want)
{
    vd_counts c = {0};
    ddio_err e = {0};
    cr_expect_eq(vd_perf_read(file, name, &c, &e), -1, "%s: no error", file);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "exit code %d for '%s'", e.exit_code, e.msg);
    cr_expect_str_eq(e.msg, want);
}

/* `text` in a fresh temporary file; the caller unlinks and frees the path. */
static char *temp_file(const char *text)
{
    char *path = write_temp(".csv", text, strlen(text));
    cr_assert_not_null(path);
    return path;
}

/* An expected message: fmt with the temporary file's path for its %s. */
static char *msg(const char *fmt, const char *path)
{
    static char buf[600];
    snprintf(buf, sizeof buf, fmt, path);
    return buf;
}

/* ------------------------------------------------------------ pcm-pcie */

/* Skylake, three samples, two sockets, the legend PCM prints on stdout first.
 * Socket 0 ItoM: hits 310000 + 305000 + 312000, misses 90000 + 95000 + 88000. */
Test(validate_readers, pcm_skylake_sums_hit_and_miss_rows_of_the_socket)
{
    const char *f = DATA "pcm-skylake.csv";
    expect_counts(pcm_ok(f, "ItoM", 0), 927000, 273000, 3);
    expect_counts(pcm_ok(f, "PCIRdCur", 0), 48800 + 49700 + 50900, 1200 + 1300 + 1100, 3);
    expect_counts(pcm_ok(f, "RFO", 0), 160 + 165 + 155, 40 + 35 + 45, 3);
    expect_counts(pcm_ok(f, "ItoM", 1), 90 + 110 + 100, 210 + 190 + 200, 3);
    expect_counts(pcm_ok(f, "DRd", 1), 9 + 7 + 8, 3 + 2 + 4, 3);
    /* The pre-2020 name of the read column reads the same column. */
    expect_counts(pcm_ok(f, "PCIeRdCur", 0), 149400, 3600, 3);
}

Test(validate_readers, pcm_skylake_rates)
{
    const char *f = DATA "pcm-skylake.csv";
    ddio_err e = {0};
    vd_counts c = pcm_ok(f, "ItoM", 0);
    cr_expect_eq(vd_counts_rate(&c, f, &e), 0.7725);     /* 927000 / 1200000 */
    c = pcm_ok(f, "RFO", 0);
    cr_expect_eq(vd_counts_rate(&c, f, &e), 0.8);        /* 480 / 600 */
    c = pcm_ok(f, "PCIRdCur", 0);
    cr_expect_eq(vd_counts_rate(&c, f, &e), 149400.0 / 153000.0);
}

/* Ice Lake with -B: no RFO column, so "RFO" is ItoMCacheNear; the bandwidth
 * columns ("PCIe Rd (B)", ...) sit between the counts and the suffix. */
Test(validate_readers, pcm_icelake_rfo_is_itomcachenear)
{
    const char *f = DATA "pcm-icelake.csv";
    expect_counts(pcm_ok(f, "RFO", 0), 9000 + 9500, 3000 + 2500, 2);
    expect_counts(pcm_ok(f, "ItoMCacheNear", 0), 18500, 5500, 2);
    expect_counts(pcm_ok(f, "ItoM", 0), 450000 + 460000, 150000 + 140000, 2);
    expect_counts(pcm_ok(f, "PCIRdCur", 0), 98000 + 97600, 2000 + 2400, 2);
    expect_counts(pcm_ok(f, "RFO", 1), 0, 0 + 2, 2);
    ddio_err e = {0};
    vd_counts c = pcm_ok(f, "ItoM", 0);
    cr_expect_eq(vd_counts_rate(&c, f, &e), 910000.0 / 1200000.0);
    c = pcm_ok(f, "RFO", 0);
    cr_expect_eq(vd_counts_rate(&c, f, &e), 18500.0 / 24000.0);
}

/* Pre-2020 PCM: "PCIeRdCur" header, a tab before "(Hit)". */
Test(validate_readers, pcm_old_layout_pcierdcur_and_tab_before_the_suffix)
{
    const char *f = DATA "pcm-haswell-old.csv";
    expect_counts(pcm_ok(f, "PCIRdCur", 0), 39200 + 39100, 800 + 900, 2);
    expect_counts(pcm_ok(f, "PCIeRdCur", 0), 78300, 1700, 2);
    expect_counts(pcm_ok(f, "ItoM", 0), 140000 + 142000, 60000 + 58000, 2);
    expect_counts(pcm_ok(f, "ItoM", 1), 30 + 20, 50 + 40, 2);
    ddio_err e = {0};
    vd_counts c = pcm_ok(f, "PCIRdCur", 0);
    cr_expect_eq(vd_counts_rate(&c, f, &e), 0.97875);    /* 78300 / 80000 */
}

/* PCM fork with -t: a "time" column first; found by name like the rest. */
Test(validate_readers, pcm_columns_are_found_by_name)
{
    char *p = temp_file("time,Skt,ItoM,PCIRdCur\n"
                        "1000,0,10,5(Total)\n1000,0,4,1(Miss)\n1000,0,6,4(Hit)\n"
                        "1000,1,0,0(Total)\n1000,1,0,0(Miss)\n1000,1,0,0(Hit)\n"
                        "\n"
                        "Skt,PCIRdCur,ItoM\n"
                        "0,7,20(Total)\n0,2,5(Miss)\n0,5,15(Hit)\n");
    expect_counts(pcm_ok(p, "ItoM", 0), 6 + 15, 4 + 5, 2);
    expect_counts(pcm_ok(p, "PCIRdCur", 0), 4 + 5, 1 + 2, 2);
    /* Socket 1 only appears in the first sample. */
    expect_counts(pcm_ok(p, "ItoM", 1), 0, 0, 1);
    unlink(p);
    free(p);
}

Test(validate_readers, pcm_errors_name_the_file_and_line)
{
    expect_pcm_error(DATA "no-such-file.csv", "ItoM", 0, DDIO_EXIT_USAGE,
                     DATA "no-such-file.csv: cannot open: No such file or directory");
    expect_pcm_error(DATA "pcm-icelake.csv", "CRd", 0, DDIO_EXIT_USAGE,
                     DATA "pcm-icelake.csv:1: no column 'CRd' in the pcm-pcie header "
                     "(Skt,PCIRdCur,ItoM,ItoMCacheNear,UCRdF,WiL,PCIe Rd (B),PCIe Wr (B))");
    expect_pcm_error(DATA "pcm-skylake.csv", "ItoM", 2, DDIO_EXIT_USAGE,
                     DATA "pcm-skylake.csv: no (Hit)/(Miss) rows for socket 2 (the file has sockets 0-1)");
    expect_pcm_error(DATA "pcm-skylake.csv", "ItoM", -1, DDIO_EXIT_USAGE,
                     DATA "pcm-skylake.csv: socket -1 is negative");

    struct { const char *text, *column, *want; } cases[] = {
        /* A value that is not a count, on the requested column. */
        {"Skt,PCIRdCur,RFO,CRd,DRd,ItoM,PRd,WiL\n"
         "0,50000,200,0,0,400000,0,6(Total)\n0,1200,40,0,0,90000,0,6(Miss)\n"
         "0,48800,160,0,0,31O000,0,0(Hit)\n",
         "ItoM", "%s:4: ItoM: '31O000' is not a count"},
        /* Junk between two samples (a 2>&1 capture). */
        {"Skt,ItoM\n0,10(Total)\n0,4(Miss)\n0,6(Hit)\nCleaning up\nSkt,ItoM\n0,1(Total)\n0,0(Miss)\n0,1(Hit)\n",
         "ItoM", "%s:5: not a pcm-pcie row ending in (Total), (Miss) or (Hit) (record with pcm-pcie -e -csv)"},
        /* Recorded without -e: totals only. */
        {"Skt,PCIRdCur,ItoM\n0,100,200\n1,0,0\n",
         "ItoM", "%s:2: not a pcm-pcie row ending in (Total), (Miss) or (Hit) (record with pcm-pcie -e -csv)"},
        {"Skt,ItoM,WiL\n0,10(Total)\n",
         "ItoM", "%s:2: 2 fields, but the header on line 1 has 3"},
        {"Skt,ItoM\n0,10(Total)\n0,6(Hit)\n1,0(Total)\n",
         "ItoM", "%s:1: the sample under this header has a (Hit) row for socket 0 but no (Miss) row"},
        {"Skt,ItoM\n0,10(Total)\n0,4(Miss)\n0,6(Hit)\n0,6(Hit)\n",
         "ItoM", "%s:5: second (Hit) row for socket 0 after the header on line 1 (first on line 4)"},
        {"Skt,ItoM\nx,10(Total)\n", "ItoM", "%s:2: Skt: 'x' is not a socket number"},
        {"Skt,ItoM\n0,-3(Miss)\n", "ItoM", "%s:2: ItoM: '-3' is not a count"},
        {"Intel(r) Performance Counter Monitor\n", "ItoM", "%s: no pcm-pcie -csv header (a line starting Skt,...)"},
        {"", "ItoM", "%s: empty file"},
        {"Skt,ItoM\n\n", "ItoM", "%s: no pcm-pcie rows"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = temp_file(cases[i].text);
        expect_pcm_error(p, cases[i].column, 0, DDIO_EXIT_USAGE, msg(cases[i].want, p));
        unlink(p);
        free(p);
    }
}

/* ------------------------------------------------------------ perf stat */

Test(validate_readers, perf_totals_without_interval)
{
    const char *f = DATA "perf-total.csv";
    expect_counts(perf_ok(f, "itom"), 9876543, 2123457, 1);
    expect_counts(perf_ok(f, "pcirdcur"), 4251877, 93104, 1);
    expect_counts(perf_ok(f, "rfo"), 12002, 2998, 1);
    ddio_err e = {0};
    vd_counts c = perf_ok(f, "itom");
    cr_expect_eq(vd_counts_rate(&c, f, &e), 9876543.0 / 12000000.0);
    c = perf_ok(f, "rfo");
    cr_expect_eq(vd_counts_rate(&c, f, &e), 12002.0 / 15000.0);
}

/* -I 1000: the intervals are added up; <not counted> rows are skipped and
 * their interval is not a sample (itom: the first; pcirdcur: every interval
 * has a counted hit row). */
Test(validate_readers, perf_intervals_skip_not_counted)
{
    const char *f = DATA "perf-interval.csv";
    expect_counts(perf_ok(f, "itom"), 2398765 + 2401234 + 2399999 + 2400002,
                  601235 + 598766 + 600001 + 599998, 4);
    expect_counts(perf_ok(f, "pcirdcur"), 5000000, 20000 + 19990 + 20010 + 20000, 5);
    ddio_err e = {0};
    vd_counts c = perf_ok(f, "itom");
    cr_expect_eq(vd_counts_rate(&c, f, &e), 0.8);        /* 9600000 / 12000000 */
}

/* --no-merge on perf 5.x: one row per CHA, "itom_hit [uncore_cha_K]";
 * box K counted 500000 + 1000 K hits and 100000 + 500 K misses. */
Test(validate_readers, perf_no_merge_sums_the_boxes)
{
    const char *f = DATA "perf-no-merge.csv";
    expect_counts(perf_ok(f, "itom"), 18 * 500000 + 1000 * 153, 18 * 100000 + 500 * 153, 1);
}

/* -I --per-socket --no-merge on perf 6.x: "S0,1," before the value and the
 * name= name repeated for each of the 8 boxes of each socket.  Interval i,
 * socket s, box k: hits 10000 (s + 1) + 100 k + i, misses 2000 (s + 1) + 10 k. */
Test(validate_readers, perf_per_socket_no_merge_intervals)
{
    double hit = 0, miss = 0;
    for (int i = 1; i <= 2; i++)
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 8; k++) {
                hit += 10000 * (s + 1) + 100 * k + i;
                miss += 2000 * (s + 1) + 10 * k;
            }
    cr_assert_eq(hit, 491248);
    cr_assert_eq(miss, 97120);
    expect_counts(perf_ok(DATA "perf-per-socket.csv", "itom"), 491248, 97120, 2);
}

/* -I --summary: the summary rows are the totals; the intervals are not added again. */
Test(validate_readers, perf_summary_rows_are_the_totals)
{
    expect_counts(perf_ok(DATA "perf-summary.csv", "itom"), 2400, 600, 1);
    /* --no-csv-summary: the summary rows lose their "summary" field. */
    char *p = temp_file("1.001011200,700,,itom_hit,1001002003,100.00,,\n"
                        "1.001011200,300,,itom_miss,1001002003,100.00,,\n"
                        "2.002030117,800,,itom_hit,1001002003,100.00,,\n"
                        "2.002030117,200,,itom_miss,1001002003,100.00,,\n"
                        "1500,,itom_hit,2002004006,100.00,,\n"
                        "500,,itom_miss,2002004006,100.00,,\n");
    expect_counts(perf_ok(p, "itom"), 1500, 500, 1);
    unlink(p);
    free(p);
}

/* -A: uncore counts are read on one CPU per socket; both are summed.  Also
 * other events, a -r variance field and the metric columns. */
Test(validate_readers, perf_per_cpu_rows_and_other_events)
{
    char *p = temp_file("# started on Thu Mar  6 14:02:11 2025\n\n"
                        "CPU0,1000,,itom_hit,10001000000,100.00,,\n"
                        "CPU18,250,,itom_hit,10001000000,100.00,,\n"
                        "CPU0,100,,itom_miss,10001000000,100.00,,\n"
                        "CPU18,50,,itom_miss,10001000000,100.00,,\n"
                        "CPU0,3456789,,cycles,10001000000,100.00,,\n"
                        "CPU0,<not counted>,,itom_hit,0,0.00,,\n");
    expect_counts(perf_ok(p, "itom"), 1250, 150, 1);
    unlink(p);
    free(p);
    p = temp_file("812.00,,itom_hit,0.35%,10001000000,100.00,,\n"
                  "10208.50,msec,task-clock,10208500000,100.00,1.020,CPUs utilized\n"
                  "188.00,,itom_miss,1.02%,10001000000,100.00,,\n");
    expect_counts(perf_ok(p, "itom"), 812, 188, 1);
    unlink(p);
    free(p);
}

Test(validate_readers, perf_errors_name_the_file_the_line_or_the_event)
{
    vd_counts c = {0};
    ddio_err e = {0};
    cr_expect_eq(vd_perf_read(DATA "no-such-file.csv", "itom", &c, &e), -1);
    cr_expect_str_eq(e.msg, DATA "no-such-file.csv: cannot open: No such file or directory");

    expect_perf_error(DATA "perf-total.csv", "wil", DATA "perf-total.csv: no row for event wil_hit");
    expect_perf_error(DATA "perf-interval.csv", "rfo",
                      DATA "perf-interval.csv: event rfo_hit was never counted (5 rows, all "
                      "<not counted> or <not supported>)");

    struct { const char *text, *want; } cases[] = {
        {"# started on Thu Mar  6 14:02:11 2025\n\n812,,itom_hit,10001000000,100.00,,\n"
         "1,88,,itom_miss,10001000000,100.00,,\n"
         "18x8,,itom_miss,10001000000,100.00,,\n",
         "%s:4: itom_miss: unexpected fields before the value (expected [time stamp,]"
         "[aggregation id like S0 or CPU3,][CPU count,]value,unit,event,...)"},
        {"812,,itom_hit,10001000000,100.00,,\n18x8,,itom_miss,10001000000,100.00,,\n",
         "%s:2: itom_miss: value '18x8' is not a count, <not counted> or <not supported>"},
        {"1.000512844,-5,,itom_hit,1001000567,100.00,,\n",
         "%s:1: itom_hit: value '-5' is not a count, <not counted> or <not supported>"},
        {"812,,itom_hit,10001000000,100.00,,\nSegmentation fault\n", "%s:2: not a perf stat -x, row "
         "(expected value,unit,event,...)"},
        {"1.000512844,812,itom_hit,1001000567,100.00\n",
         "%s:1: itom_hit: the unit field is the number '812' (expected value,unit,event,...)"},
        {"812,,itom_hit,10001000000,100.00,,\n", "%s: no row for event itom_miss"},
        {"", "%s: no row for event itom_hit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = temp_file(cases[i].text);
        expect_perf_error(p, "itom", msg(cases[i].want, p));
        unlink(p);
        free(p);
    }
}

/* A name that cannot be a readable file is bad input (exit 2), as for the
 * NPF reader: a folder (fopen succeeds, the first read fails with EISDIR:
 * it was "read error", exit 1), a name longer than the system allows, a
 * path through a file (both were exit 1). */
Test(validate_readers, unreadable_names_are_bad_input)
{
    char *f = temp_file("x\n"), through[600], longname[400];
    snprintf(through, sizeof through, "%s/a.csv", f);
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    struct { const char *path, *want; } cases[] = {
        {DDIOSIM_SOURCE_DIR "/tests", DDIOSIM_SOURCE_DIR "/tests: is a directory"},
        {longname, "%s: cannot open: File name too long"},
        {through, "%s: cannot open: Not a directory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *want = msg(cases[i].want, cases[i].path);
        expect_pcm_error(cases[i].path, "ItoM", 0, DDIO_EXIT_USAGE, want);
        vd_counts c = {0};
        ddio_err e = {0};
        cr_expect_eq(vd_perf_read(cases[i].path, "itom", &c, &e), -1);
        cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "exit code %d for '%s'", e.exit_code, e.msg);
        cr_expect_str_eq(e.msg, want);
    }
    unlink(f);
    free(f);
}

/* ------------------------------------------------------------ counts */

Test(validate_readers, rate_needs_lookups)
{
    ddio_err e = {0};
    vd_counts c = {.hit = 3, .miss = 1, .samples = 1};
    cr_expect_eq(vd_counts_rate(&c, "x.csv", &e), 0.75);
    c = (vd_counts){.hit = 0, .miss = 7, .samples = 1};
    cr_expect_eq(vd_counts_rate(&c, "x.csv", &e), 0.0);
    c = (vd_counts){0};
    cr_expect_eq(vd_counts_rate(&c, "x.csv", &e), -1.0);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect_str_eq(e.msg, "x.csv: no lookups (hit + miss = 0): the counters saw no DMA");
}

Test(validate_readers, record_stats_mean_and_sample_sd)
{
    vd_record r = {0};
    r.runs = 3;
    r.run = malloc(3 * sizeof *r.run);
    cr_assert_not_null(r.run);
    r.run[0] = 0.25;
    r.run[1] = 0.5;
    r.run[2] = 0.75;
    vd_record_stats(&r);
    cr_expect_eq(r.mean, 0.5);
    cr_expect_eq(r.sd, 0.25);       /* sqrt((0.0625 + 0 + 0.0625) / (3 - 1)) */
    r.runs = 1;
    vd_record_stats(&r);
    cr_expect_eq(r.mean, 0.25);
    cr_expect_eq(r.sd, 0.0);
    vd_record_free(&r);
    cr_expect_null(r.run);
    cr_expect_eq(r.runs, 0);
    vd_record_stats(&r);            /* no runs: nothing to compare */
    cr_expect(isnan(r.mean) && isnan(r.sd));
    vd_record_free(&r);             /* twice is harmless */
}

/* ------------------------------------------------------------ NPF in: --single-output, several x, means */

/* An experiment folder: experiment.json = json, then name / text pairs. */
static void npf_folder(char *dir, size_t cap, const char *json, const char *const *files)
{
    make_tmpdir(dir, cap);
    put_file(dir, "experiment.json", json);
    for (; files && files[0]; files += 2)
        put_file(dir, files[0], files[1]);
}

static void npf_load_ok(const char *dir, vd_experiment *x)
{
    ddio_err e = {0};
    cr_assert_eq(vd_experiment_load(dir, x, &e), 0, "%s", e.msg);
}

/* Loading fails, exit 2, one line: want with @ for the folder. */
static void npf_load_error(const char *json, const char *const *files, const char *want)
{
    char d[64], full[800];
    npf_folder(d, sizeof d, json, files);
    vd_experiment x;
    ddio_err e = {0};
    cr_expect_eq(vd_experiment_load(d, &x, &e), -1, "no error for %s", json);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "exit %d: %s", e.exit_code, e.msg);
    size_t at = 0;
    for (const char *c = want; *c && at + 1 < sizeof full; c++)
        at += (size_t)snprintf(full + at, sizeof full - at, *c == '@' ? "%s" : "%.1s", *c == '@' ? d : c);
    cr_expect_str_eq(e.msg, full);
    cr_expect_null(strchr(e.msg, '\n'));
    rm_rf(d);
}

static void expect_runs(const vd_point *p, int m, uint32_t runs, const double *run)
{
    cr_assert(p->has[m], "metric %d not measured at %s", m, p->where);
    cr_expect_eq(p->m[m].runs, runs, "%s metric %d: %u runs", p->where, m, p->m[m].runs);
    for (uint32_t k = 0; k < runs && k < p->m[m].runs; k++)
        cr_expect_eq(p->m[m].run[k], run[k], "%s run %u: %.17g, expected %.17g", p->where, k, p->m[m].run[k],
                     run[k]);
}

static void expect_param(const vd_point *p, const char *name, double v)
{
    const vd_param *q = vd_point_param(p, name);
    cr_assert_not_null(q, "%s: no %s", p->where, name);
    cr_expect_eq(q->value, v, "%s: %s = %g, expected %g", p->where, name, q->value, v);
}

#define SINGLE_JSON(extra)                                                                                       \
    "{\"name\": \"so\", \"source\": \"npf\", \"format\": \"single-output\", \"file\": \"results.csv\",\n"        \
    " \"fixed\": {\"cores\": 1}, \"x\": [{\"param\": \"rx_ring\", \"column\": \"NDESC\"},\n"                      \
    "  {\"param\": \"pkt_size\", \"column\": \"LENGTH\"}],\n"                                                    \
    " \"metrics\": {\"pcie_write_hit\": \"ItoM-HIT-RATE\", \"pcie_read_hit\": \"PCIeRdCur-HIT-RATE\"}" extra "}"

/* NPF's --single-output as pandas writes it: index, build, test_index, the
 * variables, the results (LATAVG as y_LATAVG: a variable had its name),
 * run_index; one row per run, a missing run an empty field. */
static const char single_csv[] =
    "index,build,test_index,NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE,y_LATAVG,run_index\n"
    "0,Local,0,128,1500,97.5,99.0,12.5,0\n"
    "1,Local,0,128,1500,96.5,98.0,13.5,1\r\n"
    "\n"
    "2,Local,1,256,1500,80,90,20,0\n"
    "3,Local,1,256,1500,,91,21,1\n"
    "4,Local,2,128,64,100,100,5,0\n";

Test(validate_readers, npf_single_output_rows_grouped_by_point)
{
    char d[64];
    npf_folder(d, sizeof d, SINGLE_JSON(", \"evidence\": {\"latency_avg_us\": \"LATAVG\"}"),
               (const char *const[]){"results.csv", single_csv, NULL});
    vd_experiment x;
    npf_load_ok(d, &x);
    cr_assert_eq(x.n, 3);
    cr_expect_str_eq(x.series_param, "rx_ring");   /* two x: the first draws the lines, the last the axis */
    cr_expect_str_eq(x.x_param, "pkt_size");
    cr_expect_eq(x.n_warning, 0);
    /* Sorted by rx_ring, then pkt_size. */
    expect_param(&x.point[0], "rx_ring", 128);
    expect_param(&x.point[0], "pkt_size", 64);
    expect_param(&x.point[0], "cores", 1);
    expect_runs(&x.point[0], VD_PCIE_WRITE_HIT, 1, (double[]){100 * 0.01});
    expect_param(&x.point[1], "rx_ring", 128);
    expect_param(&x.point[1], "pkt_size", 1500);
    expect_runs(&x.point[1], VD_PCIE_WRITE_HIT, 2, (double[]){97.5 * 0.01, 96.5 * 0.01});
    expect_runs(&x.point[1], VD_PCIE_READ_HIT, 2, (double[]){99 * 0.01, 98 * 0.01});
    cr_expect_eq(x.point[1].m[VD_PCIE_WRITE_HIT].mean, (97.5 * 0.01 + 96.5 * 0.01) / 2);
    cr_expect_str_eq(x.point[1].source[VD_PCIE_WRITE_HIT], "results.csv:2");
    cr_assert(x.point[1].has_ev[VD_EV_LATENCY_AVG_US]);
    cr_expect_eq(x.point[1].ev[VD_EV_LATENCY_AVG_US].runs, 2);
    cr_expect_eq(x.point[1].ev[VD_EV_LATENCY_AVG_US].mean, 13);
    /* The empty field is a run left out. */
    expect_runs(&x.point[2], VD_PCIE_WRITE_HIT, 1, (double[]){80 * 0.01});
    expect_runs(&x.point[2], VD_PCIE_READ_HIT, 2, (double[]){90 * 0.01, 91 * 0.01});
    vd_experiment_free(&x);
    rm_rf(d);
}

Test(validate_readers, npf_single_output_one_row_per_point_warns)
{
    char d[64];
    npf_folder(d, sizeof d, SINGLE_JSON(""),
               (const char *const[]){"results.csv",
                                     "NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n128,1500,97,99\n256,1500,80,90\n",
                                     NULL});
    vd_experiment x;
    npf_load_ok(d, &x);
    cr_assert_eq(x.n, 2);
    cr_assert_eq(x.n_warning, 1);
    char want[300];
    snprintf(want, sizeof want, "%s/results.csv: one row per point: n = 1 per point, no spread (NPF's "
             "--single-output writes a row per run)", d);
    cr_expect_str_eq(x.warning[0], want);
    vd_experiment_free(&x);
    rm_rf(d);
}

Test(validate_readers, npf_single_output_build_picks_a_series)
{
    char d[64];
    npf_folder(d, sizeof d, SINGLE_JSON(", \"build\": \"B\""),
               (const char *const[]){"results.csv",
                                     "build,test_index,NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n"
                                     "A,0,128,1500,10,20\n\"B\",0,128,1500,30,40\nB,0,128,1500,50,60\n",
                                     NULL});
    vd_experiment x;
    npf_load_ok(d, &x);
    cr_assert_eq(x.n, 1);
    expect_runs(&x.point[0], VD_PCIE_WRITE_HIT, 2, (double[]){30 * 0.01, 50 * 0.01});
    vd_experiment_free(&x);
    rm_rf(d);
}

Test(validate_readers, npf_single_output_errors)
{
    const char *two_builds[] = {"results.csv", "build,NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n"
                                               "A,128,1500,1,2\nB,128,1500,1,2\n", NULL};
    npf_load_error(SINGLE_JSON(""), two_builds,
                   "@/results.csv:3: build 'B', line 2's is 'A': several builds (series); pick one with \"build\"");
    const char *other_var[] = {"results.csv", "test_index,NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n"
                                              "0,128,1500,1,2\n1,128,1500,1,2\n", NULL};
    npf_load_error(SINGLE_JSON(""), other_var,
                   "@/results.csv:3: test_index 1, but line 2 ((rx_ring, pkt_size) = (128, 1500)) has test_index 0: "
                   "another variable varies (name it in x)");
    const char *no_col[] = {"results.csv", "NDESC,LEN,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n128,1500,1,2\n", NULL};
    npf_load_error(SINGLE_JSON(""), no_col,
                   "@/experiment.json: x[]: no column 'LENGTH' in @/results.csv (the variable's name: \"column\")");
    const char *no_metric[] = {"results.csv", "NDESC,LENGTH,ItoM-HIT-RATE\n128,1500,1\n", NULL};
    npf_load_error(SINGLE_JSON(""), no_metric,
                   "@/experiment.json: metrics.pcie_read_hit: no column 'PCIeRdCur-HIT-RATE' (nor "
                   "y_PCIeRdCur-HIT-RATE) in @/results.csv");
    const char *bad_num[] = {"results.csv", "NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n128,1500,1,x2\n", NULL};
    npf_load_error(SINGLE_JSON(""), bad_num, "@/results.csv:2: column PCIeRdCur-HIT-RATE: 'x2' is not a finite number");
    const char *bad_x[] = {"results.csv", "NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\nmany,1500,1,2\n", NULL};
    npf_load_error(SINGLE_JSON(""), bad_x, "@/results.csv:2: column NDESC: 'many' is not a finite number");
    const char *short_row[] = {"results.csv", "NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n128,1500,1\n", NULL};
    npf_load_error(SINGLE_JSON(""), short_row, "@/results.csv:2: 3 fields, the header (line 1) has 4");
    const char *rate[] = {"results.csv", "NDESC,LENGTH,ItoM-HIT-RATE,PCIeRdCur-HIT-RATE\n128,1500,1,200\n", NULL};
    npf_load_error(SINGLE_JSON(""), rate, "@/results.csv:2: mean 200 is not a rate in [0, 100] (\"values\"?)");
    npf_load_error("{\"name\": \"so\", \"source\": \"npf\", \"format\": \"single-output\", \"x\": {\"param\": "
                   "\"rx_ring\"}, \"metrics\": {\"pcie_write_hit\": \"W\"}}", NULL,
                   "@/experiment.json: file: missing (required with \"format\": \"single-output\": the CSV NPF wrote)");
    npf_load_error("{\"name\": \"so\", \"source\": \"npf\", \"format\": \"pandas\", \"x\": {\"param\": "
                   "\"rx_ring\"}, \"metrics\": {\"pcie_write_hit\": \"W\"}}", NULL,
                   "@/experiment.json: format: 'pandas' is not output (NPF's --output files, one per metric) or "
                   "single-output (NPF's --single-output CSV)");
    npf_load_error("{\"name\": \"so\", \"source\": \"npf\", \"x\": {\"param\": \"rx_ring\", \"column\": \"N\"}, "
                   "\"metrics\": {\"pcie_write_hit\": \"W\"}}", NULL,
                   "@/experiment.json: x.column: only with \"format\": \"single-output\" (the per-metric files' x "
                   "columns have no names)");
    npf_load_error("{\"name\": \"so\", \"source\": \"perf\", \"format\": \"single-output\", \"metrics\": "
                   "{\"pcie_write_hit\": \"itom\"}, \"points\": [{\"runs\": [\"a\"]}]}", NULL,
                   "@/experiment.json: format: only for source npf (this experiment's points are listed in points)");
}

Test(validate_readers, npf_table_reader_errors)
{
    static const struct { const char *text, *want; } cases[] = {
        {"a,b\n1,\"2\n", "%s:2: field 2: a quoted field runs past the end of the line"},
        {"a,b\n1,\"2\"x\n", "%s:2: field 2: text after its closing quote"},
        {"a,b\n1,2\"\n", "%s:2: field 2: a quote inside an unquoted field"},
        {"a,b,a\n1,2,3\n", "%s:1: column 'a' is named twice (columns 1 and 3)"},
        {"a,b\n1,2\n3,4", "%s:3: the last line has no newline: the file may be cut short"},
        {"a,b\n", "%s: no measurements (a header and no rows)"},
        {"\n\n", "%s: no measurements (an empty file)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = temp_file(cases[i].text);
        vd_npf_table t;
        ddio_err e = {0};
        cr_expect_eq(vd_npf_table_read(p, &t, &e), -1, "no error for '%s'", cases[i].text);
        cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
        cr_expect_str_eq(e.msg, msg(cases[i].want, p));
        cr_expect_null(t.cell);
        unlink(p);
        free(p);
    }
    /* Quotes, "" and commas inside them, CRLF. */
    char *p = temp_file("name,\"v,1\"\r\n\"a \"\"b\"\", c\",\"\"\r\n");
    vd_npf_table t;
    ddio_err e = {0};
    cr_assert_eq(vd_npf_table_read(p, &t, &e), 0, "%s", e.msg);
    cr_expect_eq(t.ncol, 2);
    cr_expect_eq(t.nrow, 1);
    cr_expect_str_eq(t.col[1], "v,1");
    cr_expect_str_eq(t.cell[0], "a \"b\", c");
    cr_expect_str_eq(t.cell[1], "");
    cr_expect_eq(vd_npf_table_col(&t, "v,1"), 1);
    cr_expect_eq(vd_npf_table_col(&t, "nope"), -1);
    vd_npf_table_free(&t);
    unlink(p);
    free(p);
}

#define TWO_X_JSON(extra)                                                                                        \
    "{\"name\": \"two\", \"source\": \"npf\", \"x\": [{\"param\": \"pkt_size\"}, {\"param\": \"rx_ring\"}],\n"   \
    " \"metrics\": {\"pcie_write_hit\": \"ItoM-HIT-RATE\"}" extra "}"

/* NPF's --output writes one x column per varied variable: two here. */
Test(validate_readers, npf_output_rows_with_two_varied_parameters)
{
    char d[64];
    npf_folder(d, sizeof d, TWO_X_JSON(""),
               (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97 98\n1500 256 80 82 84\n1024 128 99 100\n",
                                     NULL});
    vd_experiment x;
    npf_load_ok(d, &x);
    cr_assert_eq(x.n, 3);
    cr_expect_eq(x.n_warning, 0);
    expect_param(&x.point[0], "pkt_size", 1024);
    expect_param(&x.point[0], "rx_ring", 128);
    expect_runs(&x.point[0], VD_PCIE_WRITE_HIT, 2, (double[]){99 * 0.01, 100 * 0.01});
    expect_param(&x.point[2], "pkt_size", 1500);
    expect_param(&x.point[2], "rx_ring", 256);
    expect_runs(&x.point[2], VD_PCIE_WRITE_HIT, 3, (double[]){80 * 0.01, 82 * 0.01, 84 * 0.01});
    cr_expect_str_eq(x.point[2].source[VD_PCIE_WRITE_HIT], "ItoM-HIT-RATE.csv:2");
    vd_experiment_free(&x);
    rm_rf(d);
    npf_load_error(TWO_X_JSON(""), (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97\n1500 128 98\n", NULL},
                   "@/ItoM-HIT-RATE.csv:2: x = (1500, 128) repeats line 1");
    npf_load_error(TWO_X_JSON(""), (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128\n", NULL},
                   "@/ItoM-HIT-RATE.csv:1: x = (1500, 128) has no runs");
    npf_load_error(TWO_X_JSON(""), (const char *const[]){"ItoM-HIT-RATE.csv", "1500 12x 4\n", NULL},
                   "@/ItoM-HIT-RATE.csv:1: x value 2 '12x' is not a finite number");
    npf_load_error("{\"name\": \"two\", \"source\": \"npf\", \"x\": [{\"param\": \"pkt_size\"}, {\"param\": "
                   "\"pkt_size\"}], \"metrics\": {\"pcie_write_hit\": \"W\"}}", NULL,
                   "@/experiment.json: x[1]: 'pkt_size' is already x[0]");
}

/* NPF's default --output-columns is "x mean": one value per line, no spread. */
Test(validate_readers, npf_output_means_only_warn)
{
    char d[64], want[400];
    npf_folder(d, sizeof d, TWO_X_JSON(", \"output_columns\": [\"x\", \"mean\"]"),
               (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97.5\n1500 256 80\n", NULL});
    vd_experiment x;
    npf_load_ok(d, &x);
    cr_assert_eq(x.n, 2);
    expect_runs(&x.point[0], VD_PCIE_WRITE_HIT, 1, (double[]){97.5 * 0.01});
    cr_expect_eq(x.point[0].m[VD_PCIE_WRITE_HIT].sd, 0);
    cr_assert_eq(x.n_warning, 1);
    snprintf(want, sizeof want, "%s/ItoM-HIT-RATE.csv: holds means only (output_columns has no \"all\"): n = 1 per "
             "point, no spread", d);
    cr_expect_str_eq(x.warning[0], want);
    vd_experiment_free(&x);
    rm_rf(d);
    /* The default columns (x all) and one value on every line: the same
     * file, said so, not a silent n = 1. */
    npf_folder(d, sizeof d, TWO_X_JSON(""),
               (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97.5\n1500 256 80\n", NULL});
    npf_load_ok(d, &x);
    cr_assert_eq(x.n_warning, 1);
    snprintf(want, sizeof want, "%s/ItoM-HIT-RATE.csv: one value per row: n = 1 per point, no spread (NPF's default "
             "--output-columns x mean writes means only; --output-columns x all writes every run)", d);
    cr_expect_str_eq(x.warning[0], want);
    vd_experiment_free(&x);
    rm_rf(d);
    /* output_columns ["x", "all"] given: the values are runs, one each. */
    npf_folder(d, sizeof d, TWO_X_JSON(", \"output_columns\": [\"x\", \"all\"]"),
               (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97.5\n1500 256 80\n", NULL});
    npf_load_ok(d, &x);
    cr_expect_eq(x.n_warning, 0);
    expect_runs(&x.point[0], VD_PCIE_WRITE_HIT, 1, (double[]){97.5 * 0.01});
    vd_experiment_free(&x);
    rm_rf(d);
}

/* Other --output-columns words are read past: the runs are where "all" is. */
Test(validate_readers, npf_output_columns_place_the_runs)
{
    char d[64];
    npf_folder(d, sizeof d, TWO_X_JSON(", \"output_columns\": [\"x\", \"mean\", \"std\", \"all\", \"n\"]"),
               (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97.5 0.5 97 98 2\n", NULL});
    vd_experiment x;
    npf_load_ok(d, &x);
    cr_assert_eq(x.n, 1);
    cr_expect_eq(x.n_warning, 0);
    expect_runs(&x.point[0], VD_PCIE_WRITE_HIT, 2, (double[]){97 * 0.01, 98 * 0.01});
    vd_experiment_free(&x);
    rm_rf(d);
    npf_load_error(TWO_X_JSON(", \"output_columns\": [\"x\", \"mean\", \"std\"]"),
                   (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97\n", NULL},
                   "@/ItoM-HIT-RATE.csv:1: 1 values after the x, but output_columns makes 2");
    npf_load_error(TWO_X_JSON(", \"output_columns\": [\"x\", \"mean\", \"all\"]"),
                   (const char *const[]){"ItoM-HIT-RATE.csv", "1500 128 97\n", NULL},
                   "@/ItoM-HIT-RATE.csv:1: 1 values after the x, but output_columns makes more than 1");
    npf_load_error(TWO_X_JSON(", \"output_columns\": [\"x\", \"avg\", \"stdev\"]"), NULL,
                   "@/experiment.json: output_columns[2]: 'stdev' is not an --output-columns word NPF writes after "
                   "x (mean, avg, average, min, max, med, median, percNN, std, n, nres, first, last, all, raw)");
    npf_load_error(TWO_X_JSON(", \"output_columns\": [\"mean\", \"x\"]"), NULL,
                   "@/experiment.json: output_columns[0]: must be \"x\" (the x columns come first)");
    npf_load_error(TWO_X_JSON(", \"output_columns\": [\"x\", \"std\"]"), NULL,
                   "@/experiment.json: output_columns: has neither \"all\" (the runs) nor \"mean\": nothing to "
                   "compare");
    npf_load_error(TWO_X_JSON(", \"output_columns\": [\"x\", \"all\", \"raw\"]"), NULL,
                   "@/experiment.json: output_columns[2]: a second \"all\": the runs of a row could not be told "
                   "apart");
}
