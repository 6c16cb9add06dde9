/* test_cli_limits.c - simulate, predict and trace stats at the edges of
 * their input: a trace whose time goes back, a run too short to measure
 * anything, hit rates a workload mode does not have, queue lengths no ring
 * holds, frames larger than a buffer, the --explain table, and a simulated
 * rate outside the model's bounds. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/common/err.h"
#include "tests/helpers.h"
#include "traces/gen.h"
#include "traces/pcap.h"

/* A small LLC keeps the runs short. */
#define SMALL "--set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor"

static cJSON *get(const cJSON *o, const char *name)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert_not_null(x, "no \"%s\"", name);
    return x;
}

/* A command that fails with exit 2 and one line: "ddiosim CMD: " + want. */
static void expect_error(const char *args, const char *want)
{
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, DDIO_EXIT_USAGE, "%s: status %d: %s", args, r.status, r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s: %s", args, r.err);
    cr_expect(strstr(r.err, want) != NULL, "%s: got '%s', want '%s'", args, r.err, want);
    cr_expect_str_eq(r.out, "", "%s", args);
    cli_run_free(&r);
}

/* ---- a trace whose time goes back --------------------------------------- */

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* 20 generated frames of 100 B (nanosecond pcap, record k at 24 + (k-1) x
 * 116), packet 2 stamped 1.1 us before packet 1: the capture of a merged
 * multi-queue trace.  *t1: packet 1's timestamp, *last: packet 20's. */
/* A 20-packet pcap of 100-byte frames (records of 116 bytes after the
 * 24-byte file header) at a new temporary path, and its bytes in *d. */
static char *twenty_packets(uint8_t **d, size_t *n)
{
    char *path = write_temp(".pcap", "", 0);
    gen_config c;
    gen_config_default(&c);
    c.fixed_size = 100;
    c.packets = 20;
    ddio_err e = {0};
    cr_assert_eq(gen_write_pcap(&c, path, &e), 0, "%s", e.msg);
    *d = (uint8_t *)slurp(path, n);
    cr_assert_eq(*n, 24 + 20 * 116);
    return path;
}

static char *backwards_trace(uint64_t *t1, uint64_t *last)
{
    size_t n;
    uint8_t *d;
    char *path = twenty_packets(&d, &n);
    uint8_t *r1 = d + 24, *r2 = d + 24 + 116, *r20 = d + 24 + 19 * 116;
    *t1 = le32(r1) * 1000000000ull + le32(r1 + 4);
    *last = le32(r20) * 1000000000ull + le32(r20 + 4);
    uint64_t t2 = *t1 - 1100;
    put32(r2, (uint32_t)(t2 / 1000000000ull));
    put32(r2 + 4, (uint32_t)(t2 % 1000000000ull));
    FILE *f = fopen(path, "wb");
    cr_assert(fwrite(d, 1, n, f) == n);
    fclose(f);
    free(d);
    return path;
}

/* The reader gives packet 2 packet 1's time and counts it: time never goes
 * back for whoever reads a trace. */
Test(cli_limits, reader_clamps_a_timestamp_that_goes_back)
{
    uint64_t t1, last;
    char *path = backwards_trace(&t1, &last);
    trace_reader r;
    ddio_err e = {0};
    cr_assert_eq(trace_reader_open(&r, path, 0, &e), 0, "%s", e.msg);
    trace_pkt p;
    uint64_t ts[20];
    for (int k = 0; k < 20; k++) {
        cr_assert_eq(trace_reader_next(&r, &p, &e), 1, "%s", e.msg);
        ts[k] = p.ts_ns;
    }
    cr_expect_eq(trace_reader_next(&r, &p, &e), 0);
    cr_expect_eq(ts[0], t1);
    cr_expect_eq(ts[1], t1, "packet 2 takes packet 1's time");
    cr_expect_gt(ts[2], t1);
    cr_expect_eq(ts[19], last);
    cr_expect_eq(r.reordered, 1);
    trace_reader_close(&r);
    unlink(path);
    free(path);
}

/* simulate, predict (its estimate and its simulator run) and trace stats
 * read the same trace the same way and each says how many packets it
 * clamped; the simulator does not fail on it. */
Test(cli_limits, a_trace_going_back_in_time_is_clamped_everywhere, .timeout = 120)
{
    uint64_t t1, last;
    char *path = backwards_trace(&t1, &last);
    char args[600];

    snprintf(args, sizeof args, "trace stats --format json %s", path);
    cJSON *j = run_ddiosim_json(args);
    cr_expect_eq(get(j, "out_of_order")->valuedouble, 1);
    cr_expect_eq(get(j, "first_ts_ns")->valuedouble, (double)t1);
    expect_near(get(j, "duration_s")->valuedouble, (double)(last - t1) * 1e-9, 1e-15);
    cJSON_Delete(j);
    /* The timestamps as integers, every nanosecond (a double would round
     * them to 256 ns). */
    cli_run r = run_ddiosim(args);
    char want[128];
    snprintf(want, sizeof want, "\"first_ts_ns\":\t%llu,\n", (unsigned long long)t1);
    cr_expect(strstr(r.out, want), "%s", r.out);
    snprintf(want, sizeof want, "\"last_ts_ns\":\t%llu,\n", (unsigned long long)last);
    cr_expect(strstr(r.out, want), "%s", r.out);
    cli_run_free(&r);
    snprintf(args, sizeof args, "trace stats %s", path);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0);
    cr_expect_eq(count_lines_with(r.out, "(1 packets stamped before their predecessor: taken at its time)"), 1, "%s",
                 r.out);
    cli_run_free(&r);

    snprintf(args, sizeof args, "simulate --trace %s --packets 2000 --no-model --format json " SMALL, path);
    j = run_ddiosim_json(args);
    cr_expect_eq(get(get(j, "input"), "out_of_order")->valuedouble, 1);
    cr_expect_eq(get(j, "packets")->valuedouble, 2000);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "simulate --trace %s --packets 2000 --no-model " SMALL, path);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "(1 packets stamped before their predecessor arrive at its time)"), 1, "%s",
                 r.out);
    cli_run_free(&r);

    snprintf(args, sizeof args, "predict --trace %s --format json", path);
    j = run_ddiosim_json(args);
    cr_expect_eq(get(get(j, "input"), "out_of_order")->valuedouble, 1);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "predict --trace %s --from-sim --packets 2000 --format json " SMALL, path);
    j = run_ddiosim_json(args);
    cr_expect_eq(get(get(j, "input"), "out_of_order")->valuedouble, 1);
    cJSON_Delete(j);
    unlink(path);
    free(path);
}

/* ---- a run that measures nothing --------------------------------------- */

/* One packet: it is the warm-up.  A warm-up as long as the run: it ends
 * after the last arrival.  Neither has a measured interval. */
Test(cli_limits, a_run_with_nothing_measured_is_an_error, .timeout = 120)
{
    expect_error("simulate --profile mawi --packets 1 " SMALL,
                 "ddiosim simulate: nothing was measured: the warm-up (1 packets received) ended after the last of "
                 "the 1 packets injected arrived; simulate more packets (--packets) or warm up fewer (--warmup)");
    expect_error("simulate --profile mawi --packets 20000 --warmup 20000 " SMALL,
                 "ddiosim simulate: nothing was measured: the warm-up (20000 packets received) ended after the last "
                 "of the 20000 packets injected arrived");
    expect_error("predict --from-sim --profile mawi --rate 10 --packets 20000 --warmup 20000 " SMALL,
                 "ddiosim predict: nothing was measured: the warm-up (20000 packets received)");
}

/* ---- rates a mode has not ----------------------------------------------- */

static void expect_null(const cJSON *o, const char *name)
{
    cr_expect(cJSON_IsNull(get(o, name)), "\"%s\" is not null", name);
}

static void expect_number(const cJSON *o, const char *name)
{
    cr_expect(cJSON_IsNumber(get(o, name)), "\"%s\" is not a number", name);
}

/* A receive-only workload never sends: no PCIe read of a packet.  A
 * send-only one never receives: no PCIe write of a packet, no first core
 * access to one.  Those rates are "n/a" and null, never 0 % or nan %. */
Test(cli_limits, rates_a_mode_has_not_are_na_and_null, .timeout = 120)
{
    cJSON *j = run_ddiosim_json("predict --set workload.mode=receive --format json");
    expect_null(get(j, "pcie_read_hit_frac"), "lower");
    expect_null(get(j, "pcie_read_hit_frac"), "upper");
    expect_null(get(j, "pcie_read_hit_frac"), "mean");
    expect_number(get(j, "pcie_write_hit_frac"), "lower");
    expect_number(get(j, "cpu_first_hit_frac"), "mean");
    cJSON_Delete(j);
    cli_run r = run_ddiosim("predict --set workload.mode=receive");
    cr_expect_eq(count_lines_with(r.out, "PCIe read hit        n/a       n/a       n/a"), 1, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "nan"), 0, "%s", r.out);
    cli_run_free(&r);

    j = run_ddiosim_json("predict --set workload.mode=send --format json");
    expect_null(get(j, "pcie_write_hit_frac"), "lower");
    expect_null(get(j, "cpu_first_hit_frac"), "lower");
    expect_number(get(j, "pcie_read_hit_frac"), "lower");
    cJSON_Delete(j);

    const char *send = "simulate --profile fixed:512 --rate 20 --packets 20000 --set workload.mode=send " SMALL;
    char args[300];
    snprintf(args, sizeof args, "%s --format json", send);
    j = run_ddiosim_json(args);
    expect_null(j, "pcie_write_hit_frac");
    expect_null(j, "cpu_first_hit_frac");
    expect_null(j, "pcie_write_full_hit_frac");
    expect_null(j, "pcie_write_partial_hit_frac");
    expect_number(j, "pcie_read_hit_frac");
    expect_number(j, "pcie_write_all_hit_frac");   /* the NIC writes TX completions */
    const cJSON *m = get(j, "model");
    expect_null(get(m, "pcie_write_hit_frac"), "lower");
    expect_null(get(m, "pcie_write_hit_frac"), "sim_minus_model");
    expect_number(get(m, "pcie_read_hit_frac"), "lower");
    cJSON_Delete(j);
    r = run_ddiosim(send);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "hit rates        PCIe write     n/a (full n/a, partial n/a)   PCIe read "), 1,
                 "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "CPU first     n/a"), 1, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "Markov model     PCIe write n/a, PCIe read "), 1, "%s", r.out);
    cli_run_free(&r);

    /* 64 B frames at 128 B of headroom fill one line: no partial write. */
    j = run_ddiosim_json("simulate --profile fixed:64 --rate 10 --packets 20000 --no-model --format json " SMALL);
    expect_null(j, "pcie_write_partial_hit_frac");
    expect_number(j, "pcie_write_full_hit_frac");
    cJSON_Delete(j);
}

/* ---- queue lengths no configuration holds -------------------------------- */

/* Buffers hold descriptors of their ring: the default l2fwd has RX and TX
 * rings of 256, a software queue of 1024 and a mempool of 65535. */
Test(cli_limits, given_queues_must_fit_the_rings)
{
    expect_error("predict --queues 200000,10,20,15",
                 "ddiosim predict: --queues: RX + RXR = 200010 buffers exceed the 256 descriptors of an RX ring "
                 "(--rx-ring)");
    expect_error("predict --queues 200,57,20,15",
                 "ddiosim predict: --queues: RX + RXR = 257 buffers exceed the 256 descriptors of an RX ring");
    expect_error("predict --queues 200,56,240,17",
                 "ddiosim predict: --queues: TX + TXR = 257 buffers exceed the 256 descriptors of a TX ring "
                 "(--tx-ring)");
    expect_error("predict --queues 200,56,20,15,1025",
                 "ddiosim predict: --queues: SW = 1025 buffers exceed the software queue's 1024 "
                 "(workload.driver.sw_tx_queue)");
    expect_error("predict --queues 200,56,20,15,0,65300",
                 "ddiosim predict: --queues: 1 cores x 65591 buffers exceed the mempool's 65535 "
                 "(workload.driver.mempool_size)");
    /* Full rings are possible. */
    cli_run r = run_ddiosim("predict --queues 200,56,241,15,1024 --format json");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    /* Possible queues whose footprint estimate overstates: 15 cores x 4000
     * buffers of 1500 B waiting in RX.  The LLC (24.75 MiB) and 15 L2s of
     * 1 MiB hold 39.75 MiB; the estimate says more, and the note says so. */
    r = run_ddiosim("predict --rx-ring 4096 --cores 15 --queues 4000,96,10,10 --pkt-size 1500");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "note            more than the 39.75 MiB the caches hold (LLC and L2s): "), 1,
                 "%s", r.out);
    cli_run_free(&r);
    r = run_ddiosim("predict");
    cr_expect_eq(count_lines_with(r.out, "note "), 0, "%s", r.out);
    cli_run_free(&r);
}

/* ---- frames larger than a buffer ----------------------------------------- */

/* The simulator's NIC drops a frame larger than the data room (one buffer
 * per frame); the model leaves it out as well.  A 12-packet IMIX trace:
 * 7 x 64, 4 x 570, 1 x 1518 B; with a data room of 1024 B, 1 of 12 is
 * dropped and the mean of the others is (7 x 64 + 4 x 570) / 11 = 248 B. */
Test(cli_limits, frames_larger_than_the_data_room_are_dropped_by_both, .timeout = 120)
{
    char *path = write_temp(".pcap", "", 0);
    gen_config c;
    gen_config_default(&c);
    cr_assert_eq(gen_parse_profile("imix", &c, "--profile", NULL), 0);
    c.packets = 12;
    ddio_err e = {0};
    cr_assert_eq(gen_write_pcap(&c, path, &e), 0, "%s", e.msg);
    char args[600];
    snprintf(args, sizeof args, "predict --trace %s --set workload.driver.data_room=1024 --format json", path);
    cJSON *j = run_ddiosim_json(args);
    const cJSON *in = get(j, "input");
    expect_near(get(in, "oversize")->valuedouble, 1.0 / 12, 1e-12);
    expect_near(get(in, "mean_pkt_bytes")->valuedouble, 248, 1e-9);
    cJSON_Delete(j);
    snprintf(args, sizeof args,
             "simulate --trace %s --set workload.driver.data_room=1024 --packets 1200 --no-model --format json", path);
    j = run_ddiosim_json(args);
    cr_expect_eq(get(get(j, "drops"), "oversize")->valuedouble, 100);
    cJSON_Delete(j);
    /* Every frame too large: both refuse, before any work. */
    expect_error("predict --pkt-size 9000",
                 "ddiosim predict: --pkt-size: 9000 B frames do not fit the data room (2048 B; "
                 "workload.driver.data_room): the NIC would drop every one (one buffer per frame, no scatter)");
    expect_error("simulate --pkt-size 9000",
                 "ddiosim simulate: --pkt-size: 9000 B frames do not fit the data room (2048 B; "
                 "workload.driver.data_room): the NIC would drop every one (one buffer per frame, no scatter)");
    unlink(path);
    /* A trace of 100 B frames and a data room of 64 B: nothing fits. */
    c.profile = GEN_FIXED;
    c.fixed_size = 100;
    cr_assert_eq(gen_write_pcap(&c, path, &e), 0, "%s", e.msg);
    snprintf(args, sizeof args, "predict --trace %s --set workload.driver.data_room=64", path);
    expect_error(args, "ddiosim predict: every frame is larger than the data room (64 B; workload.driver.data_room)");
    snprintf(args, sizeof args, "simulate --trace %s --set workload.driver.data_room=64 " SMALL, path);
    expect_error(args, "ddiosim simulate: no packet was received: all 12 were larger than the data room (64 B; "
                       "workload.driver.data_room)");
    unlink(path);
    free(path);
}

/* ---- predict --explain --------------------------------------------------- */

/* Every row of a distribution table as long as its header, and each
 * header's last character above a value's: right-aligned columns. */
Test(cli_limits, explain_columns_line_up_with_their_headers)
{
    cli_run r = run_ddiosim("predict --explain");
    cr_assert_eq(r.status, 0, "%s", r.err);
    int tables = 0;
    for (const char *p = strstr(r.out, "\n  queue "); p; p = strstr(p + 1, "\n  queue ")) {
        tables++;
        const char *head = p + 1;
        size_t hl = strcspn(head, "\n");
        int rows = 0;
        for (const char *row = head + hl + 1; *row == ' ' && row[1] == ' ' && row[2] != ' '; rows++) {
            size_t rl = strcspn(row, "\n");
            cr_expect_eq(rl, hl, "row '%.*s' under '%.*s'", (int)rl, row, (int)hl, head);
            /* Where a header name ends, a number ends. */
            for (size_t i = 1; i < hl && i < rl; i++)
                if (head[i] != ' ' && (i + 1 == hl || head[i + 1] == ' ') && i > 20)
                    cr_expect(row[i] >= '0' && row[i] <= '9', "column ending at %zu: '%.*s'", i, (int)rl, row);
            row += rl + (row[rl] == '\n');
        }
        cr_expect_gt(rows, 4);
    }
    cr_expect_eq(tables, 2);
    cli_run_free(&r);
}

/* ---- a simulated rate outside the model's bounds --------------------------- */

/* The bounds bound the model's chains, not the simulator: a short line says
 * why when a simulated rate leaves them, and nothing when it does not. */
Test(cli_limits, a_rate_outside_the_bounds_is_explained, .timeout = 180)
{
    /* The sample trace's 1449 sizes, the model's one mean size. */
    cli_run r = run_ddiosim("simulate");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "note             PCIe write outside the bounds: the model gives every frame "
                                         "the mean size, this"), 1, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "traffic has 1449 sizes; predict --from-sim --model per-line models them"), 1,
                 "%s", r.out);
    cli_run_free(&r);
    /* One size: descriptor lines and the xor set mapping, which the model
     * leaves out, take the simulated write hit below the LRU bound ... */
    const char *one = "simulate --profile fixed:1500 --rate 10 --packets 20000 " SMALL;
    r = run_ddiosim(one);
    cr_expect_eq(count_lines_with(r.out, "note             PCIe write outside the bounds, which bound the model's "
                                         "chains: those count no"), 1, "%s", r.out);
    cli_run_free(&r);
    /* ... and without them it is inside: no note. */
    char args[300];
    snprintf(args, sizeof args, "%s --no-desc --mapping random", one);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "note "), 0, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "Markov model "), 1, "%s", r.out);
    cli_run_free(&r);
}

/* A trace with records the filter leaves out (two LLDP frames, one ARP):
 * simulate says how many and why, in the text and in `input.skipped`, and
 * --all keeps them. */
Test(cli_limits, simulate_says_what_the_trace_filter_skipped, .timeout = 120)
{
    size_t n;
    uint8_t *d;
    char *path = twenty_packets(&d, &n);
    static const uint16_t type[3] = {0x88cc, 0x88cc, 0x0806};   /* records 3, 4: LLDP; 5: ARP */
    for (int k = 0; k < 3; k++) {
        uint8_t *eth = d + 24 + (size_t)(2 + k) * 116 + 16;
        eth[12] = (uint8_t)(type[k] >> 8);
        eth[13] = (uint8_t)type[k];
    }
    FILE *f = fopen(path, "wb");
    cr_assert(fwrite(d, 1, n, f) == n);
    fclose(f);
    free(d);
    char args[600];
    snprintf(args, sizeof args, "simulate --trace %s --packets 60 --warmup 0 --format json", path);
    cJSON *j = run_ddiosim_json(args);
    const cJSON *sk = get(get(j, "input"), "skipped");
    cr_expect_eq(get(sk, "total")->valuedouble, 3);
    cr_expect_eq(get(sk, "not_ip")->valuedouble, 3);
    cr_expect_eq(get(sk, "fragment")->valuedouble, 0);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "simulate --trace %s --packets 60 --warmup 0", path);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\n  3 records of each pass skipped (not_ip 3): only unfragmented IPv4/IPv6 TCP/UDP "
                            "is simulated; --all keeps the rest\n"),
              "%s", r.out);
    cli_run_free(&r);
    snprintf(args, sizeof args, "simulate --trace %s --packets 60 --warmup 0 --all --format json", path);
    j = run_ddiosim_json(args);
    cr_expect_eq(get(get(get(j, "input"), "skipped"), "total")->valuedouble, 0);
    cJSON_Delete(j);
    unlink(path);
    free(path);
}
