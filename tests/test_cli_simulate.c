/* test_cli_simulate.c - what `ddiosim simulate` prints and writes
 * (sim/cli/cmd_simulate.c, sim/queue/dsim.c): its defaults, every JSON field and
 * how the fields relate, determinism for a seed, the --timeline CSV, and
 * outputs that appear whole or not at all (-o and --timeline). */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/helpers.h"

/* A short run on a small LLC (18 slices x 64 sets x 11 ways), as in
 * test_sim.c: 1500 B frames at 10 Gb/s arrive every 1200 ns. */
#define SHORT "--profile fixed:1500 --rate 10 --packets 20000 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor --no-model"
/* Generated traffic whose sizes, flows and gaps come from the seed. */
#define RANDOM "--profile mawi --rate 10 --packets 20000 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor --no-model"

static cJSON *get(const cJSON *o, const char *name)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert_not_null(x, "no \"%s\"", name);
    return x;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *x = get(o, name);
    cr_assert(cJSON_IsNumber(x), "\"%s\" is not a number", name);
    return x->valuedouble;
}

static cJSON *run_json(const char *opts)
{
    char args[600];
    int n = snprintf(args, sizeof args, "simulate %s --format json", opts);
    cr_assert(n > 0 && (size_t)n < sizeof args, "command line too long");
    return run_ddiosim_json(args);
}

/* `s` with every line that contains one of the NULL-terminated `needles`
 * cut where the needle starts (malloc'ed): what may differ between two
 * runs of one seed goes, the rest of the line stays compared. */
static char *masked(const char *s, const char *const *needles)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    while (*s) {
        size_t len = strcspn(s, "\n");
        size_t keep = len;
        for (const char *const *n = needles; *n; n++) {
            const char *hit = strstr(s, *n);
            if (hit && (size_t)(hit - s) < keep)
                keep = (size_t)(hit - s);
        }
        memcpy(o, s, keep);
        o += keep;
        s += len;
        if (*s == '\n')
            *o++ = *s++;
    }
    *o = '\0';
    return out;
}

/* A fresh empty directory (malloc'ed path). */
static char *fresh_dir(void)
{
    char *dir = strdup("/tmp/ddiosim-simulate-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

/* Remove dir with its files and empty subdirectories. */
static void remove_dir(char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 && unlink(p) != 0)
            rmdir(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    free(dir);
}

/* No option at all: the run the help promises, skylake-6140 running l2fwd
 * on the sample MAWI-style trace, every packet of it once. */
Test(cli_simulate, no_options_runs_the_documented_defaults, .timeout = 120)
{
    cli_run r = run_ddiosim("simulate");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *first = "machine skylake-6140, workload l2fwd, 1 core(s), rings RX 256 / TX 256, DDIO 0x600\n";
    cr_expect(strncmp(r.out, first, strlen(first)) == 0, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "traffic " DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap"), 1, "%s",
                 r.out);
    /* 65536: every record of the trace (`trace stats`: all IPv4 TCP/UDP). */
    cr_expect_eq(count_lines_with(r.out, "packets          65536 injected, "), 1, "%s", r.out);
    cli_run_free(&r);

    cJSON *j = run_json("");
    const cJSON *in = get(j, "input");
    cr_expect_str_eq(get(in, "machine")->valuestring, "skylake-6140");
    cr_expect_str_eq(get(in, "workload")->valuestring, "l2fwd");
    cr_expect_str_eq(get(in, "traffic")->valuestring, DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap");
    cr_expect_eq(num(in, "seed"), 1);
    cr_expect_eq(num(j, "packets"), 65536);
    /* The Markov cross-check runs unless --no-model. */
    cr_expect_not_null(cJSON_GetObjectItemCaseSensitive(j, "model"));
    cJSON_Delete(j);
}

static void expect_rate(const cJSON *j, const char *name)
{
    double v = num(j, name);
    cr_expect(v >= 0 && v <= 1, "%s = %g outside [0, 1]", name, v);
}

/* Every field docs/simulator.md lists, in range and consistent with each
 * other.  At line rate two cores drop at the NIC buffer, so drop_rate is
 * not trivially 0, and per_core has two entries to average. */
Test(cli_simulate, json_reports_every_field_consistently, .timeout = 120)
{
    cJSON *j = run_json("--profile fixed:1500 --rate max --cores 2 --packets 20000 --set machine.pcie.dllp=table "
                        "--set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor --no-model");
    const char *rates[] = {"pcie_write_hit_frac", "pcie_read_hit_frac", "cpu_first_hit_frac", "pcie_write_full_hit_frac",
                           "pcie_write_partial_hit_frac", "pcie_write_all_hit_frac", "pcie_read_all_hit_frac"};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        expect_rate(j, rates[i]);
    /* The write hit rate is over full and partial line writes together: a
     * weighted mean of the two. */
    double w = num(j, "pcie_write_hit_frac"), full = num(j, "pcie_write_full_hit_frac"),
           part = num(j, "pcie_write_partial_hit_frac");
    cr_expect(w >= fmin(full, part) && w <= fmax(full, part), "write %g, full %g, partial %g", w, full, part);

    /* Queues: the mean over cores of per_core, one object per core. */
    const cJSON *q = get(j, "queues"), *pc = get(q, "per_core");
    cr_assert_eq(cJSON_GetArraySize(pc), 2);
    cr_expect_eq(num(get(j, "input"), "cores"), 2);
    const char *queues[] = {"rx_replenish", "rx", "tx", "tx_recycle", "sw_queue"};
    for (size_t k = 0; k < sizeof queues / sizeof queues[0]; k++) {
        double sum = 0;
        for (int c = 0; c < 2; c++) {
            double v = num(cJSON_GetArrayItem(pc, c), queues[k]);
            cr_expect(v >= 0, "core %d %s = %g", c, queues[k], v);
            sum += v;
        }
        expect_near(num(q, queues[k]), sum / 2, 1e-9);
    }

    /* Packets: every one delivered or dropped, drops by cause. */
    double packets = num(j, "packets"), delivered = num(j, "delivered"), dropped = num(j, "dropped");
    const cJSON *dr = get(j, "drops");
    cr_expect_eq(packets, 20000);
    cr_expect_eq(delivered + dropped, packets);
    cr_expect_gt(dropped, 0, "line rate on two cores should drop");
    cr_expect_eq(num(dr, "rx_ring") + num(dr, "nic_buffer") + num(dr, "tx") + num(dr, "oversize"), dropped);
    cr_expect_eq(num(j, "drop_frac"), dropped / packets);

    /* Rates over the measured interval: mpps = measured packets / measured
     * seconds; frames of 1500 B give 12 000 bits each, so Gb/s = 12 x
     * Mpps; memory traffic = bytes per packet x packets per second. */
    double mpps = num(j, "mpps"), measured = num(j, "measured_packets"), secs = num(j, "measured_seconds");
    cr_expect_gt(measured, 0);
    cr_expect_gt(secs, 0);
    expect_near(mpps, measured / secs / 1e6, 1e-9 * mpps);
    expect_near(num(j, "throughput_gbps"), 12 * mpps, 1e-9 * mpps);
    double rd = num(j, "mem_read_bytes_per_pkt"), wr = num(j, "mem_write_bytes_per_pkt"), gbps = num(j, "mem_gbyte_s");
    cr_expect(rd >= 0 && wr >= 0 && gbps >= 0, "memory %g %g %g", rd, wr, gbps);
    /* Every received packet's 1500 B are written once to memory or stay in
     * the LLC: a small LLC writes back most of them. */
    cr_expect_gt(wr, 0);
    expect_near(gbps, (rd + wr) * mpps / 1e3, 1e-9 * gbps);

    const cJSON *lat = get(j, "latency_us");
    cr_expect_gt(num(lat, "p50"), 0);
    cr_expect_leq(num(lat, "p50"), num(lat, "p99"));

    /* LLC occupancy by region, within the reduced LLC: the DDIO ways
     * (0x600: 2 of 11) hold 18 x 64 x 2 = 2304 lines, the LLC 12672. */
    const cJSON *occ = get(j, "llc_occupancy_lines");
    double ddio = num(occ, "DDIO"), shared = num(occ, "Shared"), l3 = num(occ, "L3*");
    cr_expect(ddio > 0 && ddio <= 2304, "DDIO %g", ddio);
    cr_expect(shared >= 0 && l3 >= 0 && ddio + shared + l3 <= 12672, "LLC %g + %g + %g", ddio, shared, l3);
    cr_expect_geq(num(occ, "L2"), 0);

    /* Times: the measured interval lies within the run. */
    cr_expect_geq(num(j, "sim_seconds"), secs);
    cr_expect_gt(num(j, "wall_seconds"), 0);
    cr_expect_gt(num(j, "sim_mpps"), 0);
    cJSON_Delete(j);
}

/* One run's output: stdout and, with a timeline, the CSV. */
typedef struct outputs {
    char *out, *csv;
} outputs;

static outputs run_outputs(const char *opts, const char *csv)
{
    char args[700];
    snprintf(args, sizeof args, "simulate %s%s%s", opts, csv ? " --timeline " : "", csv ? csv : "");
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    outputs o = {.out = strdup(r.out), .csv = csv ? slurp(csv, NULL) : NULL};
    cr_assert(!csv || o.csv, "%s: no timeline", args);
    cli_run_free(&r);
    return o;
}

/* Same seed, same bytes (but the wall clock's figures); another seed,
 * other packets and other figures. */
static void expect_deterministic(const char *opts, const char *const *wall, const char *csv)
{
    char with_seed[600];
    snprintf(with_seed, sizeof with_seed, "%s --seed 2", opts);
    outputs a = run_outputs(opts, csv), b = run_outputs(opts, csv), c = run_outputs(with_seed, csv);
    char *ma = masked(a.out, wall), *mb = masked(b.out, wall), *mc = masked(c.out, wall);
    /* The mask removed the wall clock (runs differ there) and little else. */
    cr_expect_neq(strcmp(a.out, ma), 0, "%s: nothing masked", opts);
    cr_expect_gt(strlen(ma), strlen(a.out) - 100, "%s: masked too much", opts);
    cr_expect_str_eq(ma, mb, "%s: two runs with one seed differ", opts);
    cr_expect_str_neq(ma, mc, "%s: --seed 2 changed nothing", opts);
    if (csv) {
        cr_expect_str_eq(a.csv, b.csv, "%s: two timelines with one seed differ", opts);
        cr_expect_str_neq(a.csv, c.csv, "%s: --seed 2 changed nothing in the timeline", opts);
    }
    free(ma);
    free(mb);
    free(mc);
    outputs all[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        free(all[i].out);
        free(all[i].csv);
    }
}

Test(cli_simulate, same_seed_same_output_but_the_wall_clock, .timeout = 240)
{
    char *dir = fresh_dir(), csv[300];
    snprintf(csv, sizeof csv, "%s/t.csv", dir);
    /* JSON: the two fields docs/simulator.md names as changing. */
    const char *json_wall[] = {"\"wall_seconds\"", "\"sim_mpps\"", NULL};
    expect_deterministic(RANDOM " --format json", json_wall, csv);
    /* Table: the "run" line from its wall time on. */
    const char *table_wall[] = {" measured), ", NULL};
    expect_deterministic(RANDOM, table_wall, NULL);
    remove_dir(dir);
}

/* --timeline: the documented columns, one row every --timeline-us from 0
 * (every sample after the previous), until the last arrival's period. */
Test(cli_simulate, timeline_has_a_row_every_period, .timeout = 120)
{
    char *dir = fresh_dir(), csv[300], args[600];
    snprintf(csv, sizeof csv, "%s/t.csv", dir);
    snprintf(args, sizeof args, SHORT " --timeline %s --timeline-us 25", csv);
    cJSON *j = run_json(args);
    double rx_ring = num(get(j, "input"), "rx_ring"), tx_ring = num(get(j, "input"), "tx_ring");
    double sim_us = num(j, "sim_seconds") * 1e6;
    char *text = slurp(csv, NULL);
    cr_assert_not_null(text);
    const char *header = "time_us,rx_replenish,rx,sw_queue,tx,tx_recycle,pcie_write_hit_frac,pcie_read_hit_frac,delivered,"
                         "dropped\n";
    cr_assert_eq(strncmp(text, header, strlen(header)), 0, "%.200s", text);
    int rows = 0;
    double prev = -1;
    for (char *line = strtok(text + strlen(header), "\n"); line; line = strtok(NULL, "\n")) {
        double t, rep, rx, tx, rec, sw, wh, rh;
        unsigned long long deliv, drop;
        int n = sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%llu,%llu", &t, &rep, &rx, &sw, &tx, &rec, &wh, &rh,
                       &deliv, &drop);
        cr_assert_eq(n, 10, "row %d: %s", rows, line);
        /* Integer nanoseconds printed in microseconds to 3 decimals: exact. */
        cr_expect_eq(t, rows * 25.0, "row %d: %s", rows, line);
        cr_expect_gt(t, prev);
        prev = t;
        /* One core: the RX ring's descriptors hold the posted buffers and
         * the received ones not yet polled. */
        cr_expect(rep >= 0 && rx >= 0 && rep + rx <= rx_ring, "row %d: %s", rows, line);
        cr_expect(tx >= 0 && rec >= 0 && tx + rec <= tx_ring, "row %d: %s", rows, line);
        cr_expect_eq(sw, 0, "l2fwd has no software TX queue: %s", line);
        cr_expect(wh >= 0 && wh <= 1 && rh >= 0 && rh <= 1, "row %d: %s", rows, line);
        cr_expect_leq(deliv + drop, 20000, "%s", line);
        rows++;
    }
    /* 20 000 arrivals 1200 ns apart: the last at 23 998.8 us, the run
     * drained at 23 999.8 us, samples at 0, 25, ..., 23 975 us (none after
     * the end). */
    cr_expect_eq(rows, 960);
    cr_expect(fabs(rows - sim_us / 25) <= 1, "%d rows over %g us", rows, sim_us);
    /* The timeline only observes: the run without it ends at the same time
     * (a sample due after the drain used to lengthen sim_seconds). */
    cJSON *plain = run_json(SHORT);
    cr_expect_eq(num(plain, "sim_seconds"), num(j, "sim_seconds"));
    const char *wall[] = {"wall_seconds", "sim_mpps", "ddiosim"};   /* ddiosim: the command lines differ */
    for (int k = 0; k < 3; k++) {
        cJSON_DeleteItemFromObject(plain, wall[k]);
        cJSON_DeleteItemFromObject(j, wall[k]);
    }
    cr_expect(cJSON_Compare(plain, j, 1), "the outputs differ with --timeline");
    cJSON_Delete(plain);
    free(text);
    cJSON_Delete(j);
    remove_dir(dir);
}

/* A run that fails leaves neither -o's file nor the timeline, nor their
 * temporary files; a run that succeeds writes both. */
Test(cli_simulate, outputs_are_whole_or_absent, .timeout = 120)
{
    static const struct {
        const char *opts, *want;
    } fails[] = {
        /* found before the run */
        {"--trace /nonexistent.pcap", "/nonexistent.pcap"},
        /* found at its end, after timeline rows were written */
        {SHORT " --warmup 30000", "the run ended during warm-up (20000 of the 30000 received packets --warmup asks for"},
    };
    char *dir = fresh_dir(), args[800], ls[400];
    for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
        snprintf(args, sizeof args, "simulate %s -o %s/out.json --timeline %s/t.csv", fails[i].opts, dir, dir);
        cli_run r = run_ddiosim(args);
        cr_expect_eq(r.status, 2, "%s: %d", args, r.status);
        cr_expect(strstr(r.err, fails[i].want), "%s: %s", args, r.err);
        cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "", "%s", args);
        cli_run_free(&r);
    }
    snprintf(args, sizeof args, "simulate " SHORT " --format json -o %s/out.json --timeline %s/t.csv", dir, dir);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "");
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "out.json,t.csv,t.csv.meta.json");
    char path[400];
    snprintf(path, sizeof path, "%s/out.json", dir);
    char *text = slurp(path, NULL);
    cJSON *j = cJSON_Parse(text);
    cr_expect_not_null(j, "%s", text);
    cJSON_Delete(j);
    free(text);
    snprintf(path, sizeof path, "%s/t.csv", dir);
    text = slurp(path, NULL);
    cr_expect_eq(strncmp(text, "time_us,", 8), 0, "%.100s", text);
    free(text);
    cli_run_free(&r);
    remove_dir(dir);
}

/* -o and --timeline get the mode a plain fopen would give them, 0666 less
 * the umask, not mkstemp's 0600: with umask 027, 0640 all (also the pcap
 * of `trace gen`, which was 0644 whatever the umask: one ddio_outfile now
 * writes every output file). */
Test(cli_simulate, outputs_follow_the_umask, .timeout = 120)
{
    char *dir = fresh_dir(), args[800], path[400];
    mode_t old = umask(027);
    snprintf(args, sizeof args, "simulate " SHORT " -o %s/out.txt --timeline %s/t.csv", dir, dir);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(args, sizeof args, "trace gen --profile imix --packets 100 -o %s/g.pcap", dir);
    r = run_ddiosim(args);
    umask(old);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *names[] = {"out.txt", "t.csv", "g.pcap"};
    for (int i = 0; i < 3; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cr_assert_eq(stat(path, &st), 0, "%s", path);
        cr_expect_eq(st.st_mode & 0777, 0640, "%s: mode %o", names[i], (unsigned)(st.st_mode & 0777));
    }
    cli_run_free(&r);
    remove_dir(dir);
}

/* An -o that cannot be written leaves no timeline behind (the command
 * fails: a lone timeline would look like the output of a run that
 * worked).  A directory that does not exist is found before the run: the
 * error is -o's, not the warm-up's this run would end with; so is an -o
 * that names a directory (docs/simulator.md, "Files"). */
Test(cli_simulate, unwritable_output_leaves_no_timeline, .timeout = 120)
{
    char *dir = fresh_dir(), args[800], want[400], ls[400];
    snprintf(args, sizeof args, "simulate " SHORT " --warmup 30000 -o %s/missing/out.json --timeline %s/t.csv", dir,
             dir);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 1, "%s", r.err);
    snprintf(want, sizeof want, "ddiosim simulate: %s/missing/out.json: cannot create: No such file or directory\n", dir);
    cr_expect_str_eq(r.err, want);
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "");
    cli_run_free(&r);

    snprintf(want, sizeof want, "%s/out.json", dir);
    cr_assert_eq(mkdir(want, 0700), 0);
    snprintf(args, sizeof args, "simulate " SHORT " -o %s/out.json --timeline %s/t.csv", dir, dir);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s", r.err);
    snprintf(want, sizeof want, "ddiosim simulate: %s/out.json: is a directory\n", dir);
    cr_expect_str_eq(r.err, want);
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "out.json");
    cli_run_free(&r);
    remove_dir(dir);
}

/* --rate above what the link carries: one warning line naming the limit
 * (frames of a fixed size: line rate x size / (size + 24)), the run goes
 * on at line rate; at or below the limit, nothing is said. */
Test(cli_simulate, rate_above_the_link_warns, .timeout = 120)
{
    static const struct {
        const char *cmd, *want;
    } c[] = {
        {"simulate --profile fixed:1500 --rate 99 --packets 5000",
         "ddiosim simulate: warning: --rate 99 Gb/s of 1500 B frames is above what the 100 Gb/s link carries "
         "(98.43 Gb/s of frames, 1524 B each on the wire): the packets arrive back to back, at line rate\n"},
        {"simulate --rate 150 --packets 5000",
         "ddiosim simulate: warning: --rate 150 Gb/s is above the NIC's 100 Gb/s line rate (nic.line_rate_gbps): "
         "the packets arrive back to back, at line rate\n"},
        {"predict --pkt-size 64 --rate 80",
         "ddiosim predict: warning: --rate 80 Gb/s of 64 B frames is above what the 100 Gb/s link carries "
         "(72.73 Gb/s of frames, 88 B each on the wire): the packets arrive back to back, at line rate\n"},
        {"simulate --profile fixed:1500 --rate 98.4 --packets 5000", ""},
        {"simulate --profile fixed:1500 --rate max --packets 5000", ""},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        cli_run r = run_ddiosim(c[i].cmd);
        cr_expect_eq(r.status, 0, "%s: %s", c[i].cmd, r.err);
        cr_expect_str_eq(r.err, c[i].want, "%s", c[i].cmd);
        cli_run_free(&r);
    }
}

/* The timeline's sidecar is checked with the outputs before the run: a
 * folder in its place fails at once, and neither -o nor the timeline is
 * written. */
Test(cli_simulate, a_timeline_sidecar_in_the_way_fails_before_the_run, .timeout = 60)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cli_run r = run_shellf(dir, "mkdir tl.csv.meta.json && '%s' simulate --packets 2000 --no-model --timeline tl.csv "
                                "-o out.json",
                           ddiosim_bin());
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim simulate: tl.csv.meta.json: is a directory\n");
    cli_run_free(&r);
    struct stat st;
    char path[128];
    snprintf(path, sizeof path, "%s/out.json", dir);
    cr_expect_neq(stat(path, &st), 0, "-o was written");
    snprintf(path, sizeof path, "%s/tl.csv", dir);
    cr_expect_neq(stat(path, &st), 0, "the timeline was written");
    rm_rf(dir);
}
