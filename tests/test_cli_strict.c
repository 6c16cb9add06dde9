/* test_cli_strict.c - input read as documented and nothing looser: numbers
 * are decimal (no hexadecimal, no leading blank) in options, --set, NPF
 * and perf files; a trace given as a pipe or a FIFO is read (once) and
 * gives the run the same file gives. */
#define _DEFAULT_SOURCE 1
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/helpers.h"

#define CORES_DATA DDIOSIM_SOURCE_DIR "/validate/data/ddio-bench/cores"
#define PERF_RUN DDIOSIM_SOURCE_DIR "/tests/data/harness/perf-skylake.csv"
/* grep -v pattern of the JSON lines that hold the wall clock's figures */
#define WALL "'\"wall_seconds\"\\|\"solve_seconds\"\\|\"sim_mpps\"'"

/* `ddiosim ARGS` (from folder dir, or the source folder when dir is NULL)
 * exits 2 with stdout empty and stderr exactly `want` plus a newline. */
static void expect_exact_error(const char *dir, const char *args, const char *want)
{
    cli_run r = dir ? run_shellf(dir, "'%s' %s", ddiosim_bin(), args) : run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s: exit %d, stderr %s", args, r.status, r.err);
    cr_expect_str_eq(r.out, "", "%s", args);
    char line[1024];
    snprintf(line, sizeof line, "%s\n", want);
    cr_expect_str_eq(r.err, line, "%s", args);
    cli_run_free(&r);
}

/* ---- item 16: numbers are decimal ----------------------------------------- */

Test(cli_strict, hex_and_leading_blanks_in_options_are_refused)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"simulate --cores 0x10", "ddiosim simulate: --cores: '0x10' is not an integer"},
        {"simulate --packets 0x10", "ddiosim simulate: --packets: '0x10' is not a non-negative integer"},
        {"simulate --seed \"$(printf '\\t5')\"",
         "ddiosim simulate: --seed: '\t5' is not a non-negative integer"},
        {"simulate --timeline-us ' 5'", "ddiosim simulate: --timeline-us: ' 5' is not a number"},
        {"simulate --rate 0x1p3", "ddiosim simulate: --rate: '0x1p3' is not a number"},
        {"predict --idle ' 1'", "ddiosim predict: --idle: ' 1' is not a number"},
        {"simulate --set machine.llc.ways=0x10", "ddiosim simulate: --set machine.llc.ways: '0x10' is not an integer"},
        {"simulate --extra-cycles ' 8'", "ddiosim simulate: --extra-cycles: ' 8' is not a number"},
        {"trace gen --profile fixed:0x40 --packets 3 -o /dev/null",
         "ddiosim trace gen: --profile fixed:SIZE: '0x40' is not a non-negative integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_exact_error(NULL, cases[i].args, cases[i].want);
}

Test(cli_strict, decimal_numbers_with_leading_zeros_are_decimal)
{
    /* "01000" is a thousand, not octal 512. */
    cli_run a = run_ddiosim("simulate --profile fixed:64 --packets 01000 --seed 1 --format json");
    cr_expect_eq(a.status, 0, "%s", a.err);
    cr_expect(strstr(a.out, "\"packets\":\t1000,") != NULL, "%s", a.out);
    cli_run_free(&a);
}

/* A copy of the ddio-bench "cores" experiment in a new folder whose
 * ItoM-HIT-RATE.csv has `from` replaced by `to` (sed expressions). */
static void npf_copy(char *dir, size_t n, const char *from, const char *to)
{
    make_tmpdir(dir, n);
    cr_assert_eq(shf("cp -r '" CORES_DATA "' '%s/d' && sed -i 's/%s/%s/' '%s/d/ItoM-HIT-RATE.csv'", dir, from,
                     to, dir),
                 0);
}

Test(cli_strict, hex_numbers_in_npf_files_are_refused)
{
    char dir[64];
    npf_copy(dir, sizeof dir, "^2 ", "0x2 ");   /* the x value of line 2 */
    expect_exact_error(dir, "validate --engine model --measured d",
                       "ddiosim validate: d/ItoM-HIT-RATE.csv:2: x value '0x2' is not a finite number");
    rm_rf(dir);
    npf_copy(dir, sizeof dir, "^4 99.48824950812943 ", "4 0x63 ");   /* run 1 of line 3 */
    expect_exact_error(dir, "validate --engine model --measured d",
                       "ddiosim validate: d/ItoM-HIT-RATE.csv:3: run 1: '0x63' is not a finite number");
    rm_rf(dir);
}

Test(cli_strict, hex_counts_in_perf_files_are_refused)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cr_assert_eq(shf("cd '%s' && mkdir -p e/points/1 && "
                     "sed 's/^812391,/0xc6567,/' '" PERF_RUN "' > e/points/1/run-1.csv && "
                     "printf '%%s\\n' '{\"name\": \"e\", \"source\": \"perf\", \"machine\": \"skylake-6140\", "
                     "\"workload\": \"l2fwd\", \"metrics\": {\"pcie_write_hit\": \"itom\"}, "
                     "\"points\": [{\"params\": {\"cores\": 1}, \"runs\": [\"points/1/run-1.csv\"]}]}' "
                     "> e/experiment.json",
                     dir),
                 0);
    expect_exact_error(dir, "validate --engine model --measured e",
                       "ddiosim validate: e/points/1/run-1.csv:3: itom_hit: value '0xc6567' is not a count, "
                       "<not counted> or <not supported>");
    rm_rf(dir);
}

/* ---- item 17: a trace from a pipe or a FIFO ----------------------------------- */

/* A child that writes file `src` into the FIFO `fifo` once, as
 * `cat src > fifo` does, and then, until it is killed, opens and closes
 * the write end whenever a reader waits on the FIFO: a reader that opened
 * the FIFO a second time (the defect) then reads an empty stream and fails
 * at once instead of waiting forever for a writer.  Its pid. */
static pid_t fifo_feeder(const char *src, const char *fifo)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid > 0)
        return pid;
    int in = open(src, O_RDONLY), out = open(fifo, O_WRONLY);
    char buf[4096];
    ssize_t n;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            break;
    close(in);
    close(out);
    for (;;) {
        /* O_NONBLOCK: fails (ENXIO) while no reader has the FIFO open. */
        int fd = open(fifo, O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            close(fd);
        usleep(1000);
    }
}

/* Run `ddiosim ARGS` in dir while a feeder writes `src` into the FIFO
 * dir/t; its stdout, the lines that hold the wall clock dropped, into
 * dir/out_name. */
static void run_with_fifo(const char *dir, const char *src, const char *args, const char *out_name)
{
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/t", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t feeder = fifo_feeder(src, fifo);
    cli_run r = run_shellf(dir, "('%s' %s > raw; rc=$?; grep -v " WALL " raw > %s; rm -f raw; exit $rc)",
                           ddiosim_bin(), args, out_name);
    kill(feeder, SIGKILL);
    waitpid(feeder, NULL, 0);
    unlink(fifo);
    cr_expect_eq(r.status, 0, "%s (FIFO): %s", args, r.err);
    cr_expect_str_eq(r.err, "", "%s (FIFO)", args);
    cli_run_free(&r);
}

/* The same command with dir/t a regular file holding `src`. */
static void run_with_file(const char *dir, const char *src, const char *args, const char *out_name)
{
    cli_run r = run_shellf(dir, "(cp '%s' t && '%s' %s > raw && grep -v " WALL " raw > %s; rc=$?; rm -f t raw; "
                           "exit $rc)",
                           src, ddiosim_bin(), args, out_name);
    cr_expect_eq(r.status, 0, "%s (file): %s", args, r.err);
    cli_run_free(&r);
}

static void expect_same_files(const char *dir, const char *a, const char *b)
{
    char pa[128], pb[128];
    snprintf(pa, sizeof pa, "%s/%s", dir, a);
    snprintf(pb, sizeof pb, "%s/%s", dir, b);
    char *x = slurp(pa, NULL), *y = slurp(pb, NULL);
    cr_assert(x && y);
    cr_expect_gt(strlen(x), 100, "%s: %s", a, x);
    cr_expect_str_eq(x, y, "%s and %s differ", a, b);
    free(x);
    free(y);
}

Test(cli_strict, a_fifo_trace_is_read_once_and_runs_as_the_file_does)
{
    char dir[64], src[128];
    make_tmpdir(dir, sizeof dir);
    snprintf(src, sizeof src, "%s/x.pcap", dir);
    cr_assert_eq(shf("'%s' trace gen --profile imix --packets 200 --seed 3 -o '%s'", ddiosim_bin(), src), 0);
    /* 500 packets of a 200-packet trace: the rate's first pass, then three
     * passes over the packets. */
    const char *sim = "simulate --trace t --packets 500 --rate 10 --format json";
    run_with_file(dir, src, sim, "sim-file.json");
    run_with_fifo(dir, src, sim, "sim-fifo.json");
    expect_same_files(dir, "sim-file.json", "sim-fifo.json");
    /* predict reads it for the model and again for --from-sim */
    const char *pred = "predict --from-sim --trace t --packets 500 --rate 10 --format json";
    run_with_file(dir, src, pred, "pred-file.json");
    run_with_fifo(dir, src, pred, "pred-fifo.json");
    expect_same_files(dir, "pred-file.json", "pred-fifo.json");
    rm_rf(dir);
}

Test(cli_strict, a_trace_on_standard_input_runs_as_the_file_does)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cli_run r = run_shellf(dir, "(B='%s' && $B trace gen --profile imix --packets 200 --seed 3 -o x.pcap && "
                           "$B simulate --trace x.pcap --packets 500 --rate 10 --format json > a && "
                           "cat x.pcap | $B simulate --trace - --packets 500 --rate 10 --format json > b && "
                           "grep -v " WALL " a | grep -v '\"traffic\"\\|\"ddiosim\"' > fa && "   /* their command lines differ */
                           "grep -v " WALL " b | grep -v '\"traffic\"\\|\"ddiosim\"' > fb && "
                           "grep -c '\"traffic\":.\"-\"' b && cmp fa fb)",
                           ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.out, "1\n");
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    rm_rf(dir);
}

Test(cli_strict, an_empty_pipe_is_one_line_exit_2)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    expect_exact_error(dir, "simulate --trace - < /dev/null",
                       "ddiosim simulate: -: not a readable pcap or pcapng capture: the input is empty");
    rm_rf(dir);
}
