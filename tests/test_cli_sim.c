/* test_cli_sim.c - the traffic and simulator-run options shared by
 * `ddiosim simulate` and `ddiosim predict` (sim/cli/cli_sim.c): predict's
 * simulator run (--from-sim) is the one simulate makes with the same
 * options, each command keeps its own defaults, a value is accepted or
 * refused alike with the same message in both, and both helps describe
 * the options with the same words. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "tests/helpers.h"

/* A small LLC keeps the runs short; the rate and packets are given because
 * the two commands default them differently. */
#define BASE "--profile fixed:1500 --rate max --packets 20000 --seed 7 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor"
#define SMALL_TRACE "traces/samples/imix-10k.pcap"

static cJSON *get(const cJSON *o, const char *name)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert_not_null(x, "no \"%s\"", name);
    return x;
}

/* One simulator run as either command reports it: simulate at the top
 * level, predict in its "simulated" block; both list the queue lengths per
 * core under queues.per_core. */
typedef struct sim_run {
    cJSON *root;
    const cJSON *per_core;
    double packets, measured, warmup;
} sim_run;

static sim_run run_simulate(const char *opts)
{
    char args[600];
    snprintf(args, sizeof args, "simulate %s --no-model --format json", opts);
    sim_run s = {.root = run_ddiosim_json(args)};
    s.per_core = get(get(s.root, "queues"), "per_core");
    s.packets = get(s.root, "packets")->valuedouble;
    s.measured = get(s.root, "measured_packets")->valuedouble;
    s.warmup = get(get(s.root, "warmup"), "packets")->valuedouble;
    return s;
}

static sim_run run_predict(const char *opts)
{
    char args[600];
    snprintf(args, sizeof args, "predict %s --from-sim --format json", opts);
    sim_run s = {.root = run_ddiosim_json(args)};
    const cJSON *q = get(s.root, "queues");
    cr_assert_str_eq(get(q, "source")->valuestring, "simulated");
    s.per_core = get(q, "per_core");
    const cJSON *sim = get(s.root, "simulated");
    s.packets = get(sim, "packets")->valuedouble;
    s.measured = get(sim, "measured_packets")->valuedouble;
    s.warmup = get(get(sim, "warmup"), "packets")->valuedouble;
    return s;
}

/* Every per-core queue length equal, to the last bit: the same run. */
static int same_queues(const sim_run *a, const sim_run *b)
{
    int n = cJSON_GetArraySize(a->per_core);
    if (n != cJSON_GetArraySize(b->per_core))
        return 0;
    for (int c = 0; c < n; c++) {
        const cJSON *qa = cJSON_GetArrayItem(a->per_core, c), *qb = cJSON_GetArrayItem(b->per_core, c);
        for (int k = 0; k < Q_COUNT; k++) {
            const char *name = lqueue_name((enum lqueue)k);
            if (get(qa, name)->valuedouble != get(qb, name)->valuedouble)
                return 0;
        }
    }
    return 1;
}

static void expect_same_run(const sim_run *sim, const sim_run *pred, const char *opts)
{
    cr_expect(same_queues(sim, pred), "%s: predict --from-sim measured other queue lengths than simulate", opts);
    cr_expect_eq(sim->packets, pred->packets, "%s: packets", opts);
    cr_expect_eq(sim->measured, pred->measured, "%s: measured packets", opts);
    cr_expect_eq(sim->warmup, pred->warmup, "%s: warm-up", opts);
}

static void sim_run_free(sim_run *s)
{
    cJSON_Delete(s->root);
}

/* predict --from-sim with simulate's options: the same run, and each option
 * changes that run. */
Test(cli_sim, predict_from_sim_is_simulates_run, .timeout = 240)
{
    const char *variants[] = {
        BASE,
        BASE " --warmup 5000",
        BASE " --nic-buffer 2048",
        BASE " --cores 2",
        BASE " --cores 2 --flows 1",
        BASE " --no-desc --seed 3",
        BASE " --cores 2 --flows 64 --flow-burst 32 --gen-threads 2 --flow-tuples random",
        "--trace " SMALL_TRACE " --all --rate 40 --packets 20000 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor",
    };
    enum { N = sizeof variants / sizeof variants[0] };
    sim_run sim[N], pred[N];
    for (int i = 0; i < N; i++) {
        sim[i] = run_simulate(variants[i]);
        pred[i] = run_predict(variants[i]);
        expect_same_run(&sim[i], &pred[i], variants[i]);
    }
    /* --warmup N: exactly N packets received before measuring (by default
     * this run warms up longer), and other measured queue lengths. */
    cr_expect_eq(pred[1].warmup, 5000);
    cr_expect_neq(pred[0].warmup, 5000);
    cr_expect_not(same_queues(&pred[0], &pred[1]), "--warmup did not change the run");
    /* A 2 KiB NIC buffer (one frame) drops what the default one queues. */
    cr_expect_not(same_queues(&pred[0], &pred[2]), "--nic-buffer did not change the run");
    /* One flow: RSS sends every packet to one core, the other receives
     * nothing (no packet in RX, TX or TX Recycle, ever). */
    cr_expect_not(same_queues(&pred[3], &pred[4]), "--flows did not change the run");
    int idle = 0;
    for (int c = 0; c < 2; c++) {
        const cJSON *q = cJSON_GetArrayItem(pred[4].per_core, c);
        idle += get(q, "rx")->valuedouble == 0 && get(q, "tx")->valuedouble == 0 &&
                get(q, "tx_recycle")->valuedouble == 0;
    }
    cr_expect_eq(idle, 1, "--flows 1 on 2 cores: one idle core");
    cr_expect_not(same_queues(&pred[0], &pred[5]), "--no-desc --seed did not change the run");
    cr_expect_not(same_queues(&pred[3], &pred[6]), "flow bursts did not change the run");
    for (int i = 0; i < N; i++) {
        sim_run_free(&sim[i]);
        sim_run_free(&pred[i]);
    }
}

/* The defaults that differ, each as documented in the command's --help. */
Test(cli_sim, per_command_defaults, .timeout = 240)
{
    /* Rate: predict's default is max = line rate (simulate's: a profile's
     * generator rate) ... */
    sim_run s = run_simulate(BASE);
    sim_run p = run_predict("--profile fixed:1500 --packets 20000 --seed 7 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor");
    expect_same_run(&s, &p, "predict without --rate = simulate --rate max");
    sim_run_free(&s);
    sim_run_free(&p);
    /* ... but a --from-sim run of a trace keeps the trace's timing, as
     * simulate does by default. */
    s = run_simulate("--trace " SMALL_TRACE " --packets 20000");
    p = run_predict("--trace " SMALL_TRACE " --packets 20000");
    expect_same_run(&s, &p, "a trace's timing");
    sim_run_free(&s);
    sim_run_free(&p);
    /* Packets: simulate injects the whole trace once, predict 200000. */
    s = run_simulate("--trace " SMALL_TRACE " --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor");
    cr_expect_eq(s.packets, 10000);
    sim_run_free(&s);
    p = run_predict("--trace " SMALL_TRACE " --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor");
    cr_expect_eq(p.packets, 200000);
    sim_run_free(&p);
    /* One least number of packets for both (a run too short to measure
     * anything is an error of the run, in both). */
    s = run_simulate("--profile fixed:1500 --packets 999 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor");
    cr_expect_eq(s.packets, 999);
    sim_run_free(&s);
    p = run_predict("--profile fixed:1500 --packets 999 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor");
    cr_expect_eq(p.packets, 999);
    sim_run_free(&p);
    /* Without --from-sim predict makes no run: the traffic options count,
     * an option that only shapes a run is refused rather than ignored. */
    cli_run r = run_ddiosim("predict --pkt-size 1500 --flows 2 --all --seed 3 --rate 20 --format json");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"source\":\t\"estimated\""));
    cr_expect_null(strstr(r.out, "\"simulated\""));
    cli_run_free(&r);
    static const char *run_only[] = {"--packets 5000", "--warmup 5", "--no-desc", "--nic-buffer 4096"};
    for (size_t i = 0; i < sizeof run_only / sizeof run_only[0]; i++) {
        char args[100], want[200];
        snprintf(args, sizeof args, "predict --pkt-size 1500 %s", run_only[i]);
        snprintf(want, sizeof want, "ddiosim predict: %.*s shapes a simulator run: add --from-sim\n",
                 (int)strcspn(run_only[i], " "), run_only[i]);
        r = run_ddiosim(args);
        cr_expect_eq(r.status, DDIO_EXIT_USAGE, "%s", args);
        cr_expect_str_eq(r.err, want);
        cli_run_free(&r);
    }
}

/* The message of a one-line error "ddiosim CMD: MESSAGE[ (see 'ddiosim CMD
 * --help')]" (malloc'ed); *see: whether the pointer to the help ends it. */
static char *message(const char *err, const char *cmd, int *see)
{
    char prefix[64], tail[96];
    snprintf(prefix, sizeof prefix, "ddiosim %s: ", cmd);
    snprintf(tail, sizeof tail, " (see 'ddiosim %s --help')", cmd);
    size_t n = strcspn(err, "\n");
    cr_expect(strncmp(err, prefix, strlen(prefix)) == 0, "%s", err);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        return strndup(err, n);
    const char *m = err + strlen(prefix);
    n -= strlen(prefix);
    *see = n >= strlen(tail) && strncmp(m + n - strlen(tail), tail, strlen(tail)) == 0;
    return strndup(m, *see ? n - strlen(tail) : n);
}

/* A bad value of a shared option: exit 2 and the same message, naming the
 * option (or the file), on one line in both commands; a mistake found while
 * parsing ends with where the options are listed, as for every option. */
Test(cli_sim, bad_values_same_error_in_both, .timeout = 120)
{
    static const struct {
        const char *args, *names;
    } cases[] = {
        {"--trace /nonexistent.pcap", "/nonexistent.pcap"},
        {"--trace " SMALL_TRACE " --profile imix", "--trace and --profile exclude each other"},
        {"--profile jumbo", "--profile: 'jumbo'"},
        {"--flows 0", "--flows: 0 is out of range"},
        {"--flows x", "--flows: 'x'"},
        {"--flow-burst 0", "--flow-burst: 0 is out of range [1, 65536]"},
        {"--gen-threads 65", "--gen-threads: 65 is out of range [1, 64]"},
 {"--profile fixed:1500 --flows 6 --gen-threads 7", "--gen-threads: 7 is out of range [1, 6] (at most the 6 flows)"},
        {"--flow-tuples rnd", "--flow-tuples: 'rnd' is not one of range, random"},
        {"--trace " SMALL_TRACE " --flow-burst 4", "--flow-burst shapes generated traffic, and this run reads a "
                                                   "trace: give --profile"},
        {"--flow-tuples random", "--flow-tuples shapes generated traffic, and this run reads a trace: give --profile"},
        {"--all=1", "'--all=1'"},
        /* One range for a frame size, given either way. */
        {"--pkt-size 59", "--pkt-size: 59 is out of range [60, 9000]"},
        {"--profile fixed:59", "--profile fixed:SIZE: 59 is out of range [60, 9000]"},
        {"--pkt-size 9001", "--pkt-size: 9001 is out of range [60, 9000]"},
        {"--profile fixed:9001", "--profile fixed:SIZE: 9001 is out of range [60, 9000]"},
        /* In range, but larger than a buffer's data room: the simulator's
         * NIC would drop every frame, so neither command answers. */
        {"--pkt-size 9000", "--pkt-size: 9000 B frames do not fit the data room (2048 B; "
                            "workload.driver.data_room)"},
        {"--profile fixed:2049", "--profile fixed:2049: 2049 B frames do not fit the data room (2048 B; "},
        {"--rate fast", "--rate: 'fast'"},
        {"--rate 0", "--rate: 0 is out of range"},
        {"--rate", "option '--rate' needs a value"},
        {"--packets x", "--packets: 'x'"},
        {"--packets 0", "--packets: 0 is out of range [1, "},
        {"--seed -1", "--seed: '-1'"},
        {"--warmup x", "--warmup: 'x'"},
        {"--warmup 2000000000000", "--warmup: 2000000000000 is out of range"},
        {"--no-desc=1", "'--no-desc=1'"},
        {"--nic-buffer 2047", "--nic-buffer: 2047 is out of range [2048, "},
        {"--nic-buffer 1k", "--nic-buffer: '1k'"},
    };
    const char *cmds[] = {"simulate", "predict --from-sim"}, *names[] = {"simulate", "predict"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *msg[2];
        int see[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            char args[300];
            snprintf(args, sizeof args, "%s --packets 2000 %s", cmds[k], cases[i].args);
            cli_run r = run_ddiosim(args);
            cr_expect_eq(r.status, DDIO_EXIT_USAGE, "%s: status %d", args, r.status);
            cr_expect_eq(count_lines_with(r.err, ""), 1, "%s: more than one line: %s", args, r.err);
            msg[k] = message(r.err, names[k], &see[k]);
            cr_expect(strstr(msg[k], cases[i].names), "%s: %s", args, msg[k]);
            cli_run_free(&r);
        }
        cr_expect_str_eq(msg[0], msg[1], "%s", cases[i].args);
        cr_expect_eq(see[0], see[1], "%s", cases[i].args);
        free(msg[0]);
        free(msg[1]);
    }
}

/* The frame sizes both commands accept: the generator's whole range, given
 * as --pkt-size or as --profile fixed:SIZE (the least: 60 B). */
Test(cli_sim, least_frame_size_accepted_both_ways, .timeout = 120)
{
    const char *args[] = {
        "simulate --pkt-size 60 --profile imix --packets 3000 --no-model --format json",
        "simulate --profile fixed:60 --packets 3000 --no-model --format json",
        "predict --pkt-size 60 --format json",
        "predict --profile fixed:60 --format json",
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        cli_run r = run_ddiosim(args[i]);
        cr_expect_eq(r.status, 0, "%s: %s", args[i], r.err);
        cli_run_free(&r);
    }
}

/* Both --help texts list every shared option and state their own defaults. */
Test(cli_sim, help_lists_the_shared_options)
{
    static const struct option shared[] = {CLI_SIM_LONGOPTS(0)};
    cli_run s = run_ddiosim("simulate --help"), p = run_ddiosim("predict --help");
    cr_assert_eq(s.status, 0);
    cr_assert_eq(p.status, 0);
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        char opt[64];
        snprintf(opt, sizeof opt, "  --%s ", shared[i].name);
        cr_expect_eq(count_lines_with(s.out, opt), 1, "simulate --help: %s", opt);
        cr_expect_eq(count_lines_with(p.out, opt), 1, "predict --help: %s", opt);
    }
    /* The same text of each option in both, but for its default. */
    cr_expect_eq(count_lines_with(s.out, "line rate (the trace's timing, a profile 10)"), 1, "%s", s.out);
    cr_expect_eq(count_lines_with(s.out, "(the whole"), 1, "%s", s.out);
    cr_expect_eq(count_lines_with(p.out, "line rate (max; a --from-sim run of a trace keeps the"), 1, "%s", p.out);
    cr_expect_eq(count_lines_with(p.out, "--packets N       packets to inject, at least 1; a trace loops (200000; long"),
                 1, "%s", p.out);
    cr_expect_eq(count_lines_with(p.out, "enough for the queues to settle at line rate)"), 1, "%s", p.out);
    cr_expect_eq(count_lines_with(s.out, "sweep, advise and calibrate run 300000 per point)"), 1, "%s", s.out);
    cr_expect_eq(count_lines_with(s.out, "--packets N       packets to inject, at least 1; a trace loops (the"), 1,
                 "%s", s.out);
    cr_expect_eq(count_lines_with(p.out, "the simulator run (with --from-sim only"), 1, "%s", p.out);
    cr_expect_eq(count_lines_with(s.out, "--nic-buffer B    NIC packet buffer in front of PCIe, bytes (262144)"), 1);
    cr_expect_eq(count_lines_with(p.out, "--nic-buffer B    NIC packet buffer in front of PCIe, bytes (262144)"), 1);
    cli_run_free(&s);
    cli_run_free(&p);
}
