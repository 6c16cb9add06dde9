/* test_configs_validate_opts.c - the configuration options that make every
 * parameter of a validation experiment one command-line option:
 * --rx-ring-total, --extra-cycles, --uncore-ghz, --write-ratio.  Expected
 * values are computed by hand in the comments. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configs/config.h"
#include "configs/schema.h"
#include "sim/queue/qest.h"
#include "tests/helpers.h"

/* Resolve a command line of configuration options: pairs (option, value)
 * ending with NULL.  Returns ddio_config_resolve's code; `origin` may be
 * NULL. */
static int resolve(ddio_config *c, ddio_config_origin *origin, ddio_err *e, const char *const *opts)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    for (size_t i = 0; opts[i]; i += 2) {
        int opt = -1;
        for (int k = 0; k < DDIO_CFG_NOPTS; k++)
            if (strcmp(opts[i], ddio_config_option_name((enum ddio_cfg_opt)k)) == 0)
                opt = k;
        cr_assert_geq(opt, 0, "unknown option %s", opts[i]);
        cr_assert_eq(ddio_config_args_add(&a, (enum ddio_cfg_opt)opt, opts[i + 1], e), 0);
    }
    return ddio_config_resolve(&a, c, origin, e);
}

static void expect_ok(ddio_config *c, ddio_config_origin *origin, const char *const *opts)
{
    ddio_err e = {0};
    cr_assert_eq(resolve(c, origin, &e, opts), 0, "%s", e.msg);
}

/* The options fail with exactly `want` through the library and through
 * `ddiosim config show` (one line, exit code 2). */
static void expect_error(const char *const *opts, const char *want)
{
    ddio_config c;
    ddio_err e = {0};
    cr_assert_eq(resolve(&c, NULL, &e, opts), -1, "accepted; expected %s", want);
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_assert_str_eq(e.msg, want);
    char args[600] = "config show";
    for (size_t i = 0; opts[i]; i += 2) {
        size_t n = strlen(args);
        snprintf(args + n, sizeof args - n, " %s '%s'", opts[i], opts[i + 1]);
    }
    char want_err[700];
    snprintf(want_err, sizeof want_err, "ddiosim config: %s\n", want);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, DDIO_EXIT_USAGE, "%s -> %d", args, r.status);
    cr_assert_str_eq(r.err, want_err);
    cr_assert_str_eq(r.out, "");
    cli_run_free(&r);
}

static const char *wfield_origin(const ddio_config_origin *o, const char *path)
{
    return o->workload[cfg_index(ddio_workload_table(), path)];
}

static const char *mfield_origin(const ddio_config_origin *o, const char *path)
{
    return o->machine[cfg_index(ddio_machine_table(), path)];
}

/* ------------------------------------------------------------ --rx-ring-total */

Test(config_opts, rx_ring_total_divides_over_the_final_cores)
{
    /* 4096 / 1 = 4096; 4096 / 3 = 1365 -> 2048; 4096 / 6 = 682 -> 1024;
     * 4096 / 18 = 227 -> 256 (the next power of two, as mlx5 rounds). */
    static const char *const cores[] = {"1", "3", "6", "18"};
    static const uint32_t want[] = {4096, 2048, 1024, 256};
    for (size_t i = 0; i < 4; i++) {
        ddio_config c;
        ddio_config_origin o;
        /* --cores after --rx-ring-total: the division uses the final cores. */
        expect_ok(&c, &o, (const char *const[]){"--rx-ring-total", "4096", "--cores", cores[i], NULL});
        cr_expect_eq(c.workload.driver.rx_ring, want[i], "%s cores: %u", cores[i], c.workload.driver.rx_ring);
        cr_expect_str_eq(wfield_origin(&o, "driver.rx_ring"), "--rx-ring-total");
    }
    /* A power of two stays: 1024 / 4 = 256.  The cores of --set count too:
     * 4096 / 5 = 819 -> 1024. */
    ddio_config c;
    expect_ok(&c, NULL, (const char *const[]){"--rx-ring-total", "1024", "--cores", "4", NULL});
    cr_expect_eq(c.workload.driver.rx_ring, 256);
    expect_ok(&c, NULL, (const char *const[]){"--rx-ring-total", "4096", "--set", "workload.cores=5", NULL});
    cr_expect_eq(c.workload.driver.rx_ring, 1024);
    /* The workload file's cores: acrobat has 4, 2048 / 4 = 512. */
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e = {0};
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_WORKLOAD, "acrobat", &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_RX_RING_TOTAL, "2048", &e), 0);
    cr_assert_eq(ddio_config_resolve(&a, &c, NULL, &e), 0, "%s", e.msg);
    cr_expect_eq(c.workload.driver.rx_ring, 512);
}

Test(config_opts, rx_ring_total_errors_name_the_option)
{
    expect_error((const char *const[]){"--rx-ring-total", "4096", "--rx-ring", "512", NULL},
                 "--rx-ring-total: cannot be combined with --rx-ring");
    expect_error((const char *const[]){"--rx-ring", "512", "--rx-ring-total", "4096", NULL},
                 "--rx-ring-total: cannot be combined with --rx-ring");
    expect_error((const char *const[]){"--rx-ring-total", "4096", "--set", "workload.driver.rx_ring=512", NULL},
                 "--rx-ring-total: cannot be combined with --set workload.driver.rx_ring");
    expect_error((const char *const[]){"--rx-ring-total", "0", NULL},
                 "--rx-ring-total: 0 is out of range [1, 8355840]");
    expect_error((const char *const[]){"--rx-ring-total", "abc", NULL}, "--rx-ring-total: 'abc' is not an integer");
    expect_error((const char *const[]){"--rx-ring-total", "3", "--cores", "4", NULL},
                 "--rx-ring-total: 3 descriptors over 4 cores is less than one per core");
    /* 16 / 4 = 4 < the ring's minimum 8; 100000 / 2 = 50000 -> 65536 > 32768. */
    expect_error((const char *const[]){"--rx-ring-total", "16", "--cores", "4", NULL},
                 "--rx-ring-total: 16 descriptors over 4 cores -> driver.rx_ring 4: 4 is out of range [8, 32768]");
    expect_error((const char *const[]){"--rx-ring-total", "100000", "--cores", "2", NULL},
                 "--rx-ring-total: 100000 descriptors over 2 cores -> driver.rx_ring 65536: "
                 "65536 is out of range [8, 32768]");
    /* The checks between fields name it too: 64 / 4 = 16 < burst 32. */
    expect_error((const char *const[]){"--rx-ring-total", "64", "--cores", "4", NULL},
                 "--rx-ring-total: burst 32 is larger than the RX ring (16 descriptors)");
}

Test(config_opts, rx_ring_total_shown_with_its_origin)
{
    cli_run r = run_ddiosim("config show --rx-ring-total 1024 --cores 4");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "driver.rx_ring                     256                        --rx-ring-total"),
                 1, "%s", r.out);
    cli_run_free(&r);
}

/* ------------------------------------------------------------ --extra-cycles */

Test(config_opts, extra_cycles_add_to_the_final_cycles)
{
    ddio_config c;
    ddio_config_origin o;
    /* l2fwd: 25 + 10 = 35. */
    expect_ok(&c, &o, (const char *const[]){"--extra-cycles", "10", NULL});
    cr_expect_eq(c.workload.cycles_per_packet, 35.0);
    cr_expect_str_eq(wfield_origin(&o, "cycles_per_packet"), "--extra-cycles");
    /* After a --set of the cycles, wherever it is on the line: 100 + 10.5. */
    expect_ok(&c, NULL, (const char *const[]){"--set", "workload.cycles_per_packet=100", "--extra-cycles", "10.5", NULL});
    cr_expect_eq(c.workload.cycles_per_packet, 110.5);
    expect_ok(&c, NULL, (const char *const[]){"--extra-cycles", "10.5", "--set", "workload.cycles_per_packet=100", NULL});
    cr_expect_eq(c.workload.cycles_per_packet, 110.5);
    /* Repeated: the last one counts, as for any other option.  0 is allowed. */
    expect_ok(&c, NULL, (const char *const[]){"--extra-cycles", "10", "--extra-cycles", "0", NULL});
    cr_expect_eq(c.workload.cycles_per_packet, 25.0);
    /* On a resolved configuration (sweeps) it adds to what is there. */
    ddio_err e = {0};
    cr_assert_eq(ddio_config_apply_override(&c, "--extra-cycles", "6", &e), 0, "%s", e.msg);
    cr_expect_eq(c.workload.cycles_per_packet, 31.0);
}

Test(config_opts, extra_cycles_errors)
{
    expect_error((const char *const[]){"--extra-cycles", "-1", NULL}, "--extra-cycles: -1 is out of range [0, 1e+07]");
    expect_error((const char *const[]){"--extra-cycles", "x", NULL}, "--extra-cycles: 'x' is not a number");
    expect_error((const char *const[]){"--extra-cycles", "9999990", NULL},
                 "--extra-cycles: cycles_per_packet 25 + 9999990 = 10000015 is more than 10000000");
}

/* ------------------------------------------------------------ --uncore-ghz */

Test(config_opts, uncore_clock_defaults_and_files)
{
    ddio_machine m;
    ddio_machine_default(&m);
    cr_expect_eq(m.uncore.ghz, 2.4);
    cr_expect_eq(m.uncore.latency_ghz, 2.4);
    /* At the measured clock the latencies are the file's, to the bit. */
    double l2, llc, mem;
    ddio_machine_core_latency(&m, &l2, &llc, &mem);
    cr_expect_eq(l2, 6.1);
    cr_expect_eq(llc, 26.0);
    cr_expect_eq(mem, 94.1);
    /* A file giving only the clock it runs at: its latencies were measured
     * there. */
    static const char text[] = "{\"uncore\": {\"ghz\": 2.0}}";
    ddio_err e = {0};
    cr_assert_eq(ddio_machine_parse(&m, text, strlen(text), "m.json", &e), 0, "%s", e.msg);
    cr_expect_eq(m.uncore.latency_ghz, 2.0);
    ddio_machine_core_latency(&m, &l2, &llc, &mem);
    cr_expect_eq(llc, 26.0);
    static const char bad[] = "{\"uncore\": {\"latency_ghz\": 20}}";
    cr_assert_eq(ddio_machine_parse(&m, bad, strlen(bad), "m.json", &e), -1);
    cr_expect_str_eq(e.msg, "m.json: uncore.latency_ghz: 20 is out of range [0.1, 10]");
}

Test(config_opts, uncore_ghz_scales_the_llc_part_of_core_latencies)
{
    ddio_config c;
    ddio_config_origin o;
    double l2, llc, mem;
    /* 1.2 GHz: scale 2.4 / 1.2 = 2; LLC hit 26 x 2 = 52; memory
     * 94.1 - 26 + 52 = 120.1; L2 6.1 (core clock). */
    expect_ok(&c, &o, (const char *const[]){"--uncore-ghz", "1.2", NULL});
    cr_expect_eq(c.machine.uncore.ghz, 1.2);
    cr_expect_eq(c.machine.uncore.latency_ghz, 2.4);
    cr_expect_str_eq(mfield_origin(&o, "uncore.ghz"), "--uncore-ghz");
    cr_expect_str_eq(mfield_origin(&o, "uncore.latency_ghz"), "derived");
    ddio_machine_core_latency(&c.machine, &l2, &llc, &mem);
    cr_expect_eq(l2, 6.1);
    expect_near(llc, 52.0, 1e-12);
    expect_near(mem, 120.1, 1e-12);
    /* 3.2 GHz: scale 0.75; 19.5 and 94.1 - 6.5 = 87.6. */
    expect_ok(&c, NULL, (const char *const[]){"--uncore-ghz", "3.2", NULL});
    ddio_machine_core_latency(&c.machine, &l2, &llc, &mem);
    cr_expect_eq(l2, 6.1);
    expect_near(llc, 19.5, 1e-12);
    expect_near(mem, 87.6, 1e-12);
    /* 2.4 is the measured clock: nothing changes, to the bit. */
    expect_ok(&c, NULL, (const char *const[]){"--uncore-ghz", "2.4", NULL});
    ddio_machine_core_latency(&c.machine, &l2, &llc, &mem);
    cr_expect_eq(l2, 6.1);
    cr_expect_eq(llc, 26.0);
    cr_expect_eq(mem, 94.1);
    /* On a resolved configuration (sweeps): only the running clock moves. */
    ddio_err e = {0};
    cr_assert_eq(ddio_config_apply_override(&c, "--uncore-ghz", "1.2", &e), 0, "%s", e.msg);
    ddio_machine_core_latency(&c.machine, &l2, &llc, &mem);
    expect_near(llc, 52.0, 1e-12);
    expect_error((const char *const[]){"--uncore-ghz", "0.05", NULL}, "--uncore-ghz: 0.05 is out of range [0.1, 10]");
    expect_error((const char *const[]){"--uncore-ghz", "fast", NULL}, "--uncore-ghz: 'fast' is not a number");
}

Test(config_opts, uncore_ghz_moves_the_queueing_estimate_service_time)
{
    /* l2fwd, 1500 B: the read of line 0 is a first access (cpu_hit x LLC +
     * (1 - cpu_hit) x memory), the write of it an L2 hit, and the core waits
     * for 0.45 of their latency (latency_exposed).  At 1.2 GHz LLC and
     * memory both grow by 26 ns, so the service time grows by 0.45 x 26 ns
     * for any cpu_hit. */
    qest_input in = {.rate_gbps = 0, .mean_pkt = 1500, .ca2 = 0, .share = NULL, .cpu_hit = 0.5};
    ddio_config c24, c12;
    expect_ok(&c24, NULL, (const char *const[]){NULL});
    expect_ok(&c12, NULL, (const char *const[]){"--uncore-ghz", "1.2", NULL});
    qest_result r24, r12;
    ddio_err e = {0};
    cr_assert_eq(qest_estimate(&c24, &in, &r24, &e), 0, "%s", e.msg);
    cr_assert_eq(qest_estimate(&c12, &in, &r12, &e), 0, "%s", e.msg);
    /* 25 + 0.164 x 1500 = 271 cycles at 2.3 GHz, + 0.45 (0.5 x 26 + 0.5 x 94.1 + 6.1). */
    expect_near(r24.service_ns, 271.0 / 2.3 + 0.45 * (0.5 * 26.0 + 0.5 * 94.1 + 6.1), 1e-9);
    expect_near(r12.service_ns - r24.service_ns, 0.45 * 26.0, 1e-9);
    qest_result_free(&r24);
    qest_result_free(&r12);
}

static double simulate_gbps(const char *extra)
{
    char args[300];
    snprintf(args, sizeof args, "simulate %s --profile fixed:1500 --rate max --packets 20000 --format json", extra);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "throughput_gbps");
    cr_assert(cJSON_IsNumber(t));
    double v = t->valuedouble;
    cJSON_Delete(j);
    cli_run_free(&r);
    return v;
}

Test(config_opts, simulate_is_slower_at_a_lower_uncore_clock, .timeout = 120)
{
    /* l2fwd at 1500 B is core-bound (305 cycles a packet at 2.3 GHz is 7.5
     * Mpps, below the 8.2 Mpps of 100 Gb/s): 26 ns more per LLC hit lowers
     * the throughput; 2.4 GHz, the measured clock, changes nothing. */
    double at24 = simulate_gbps("");
    double same = simulate_gbps("--uncore-ghz 2.4");
    double at12 = simulate_gbps("--uncore-ghz 1.2");
    cr_expect_eq(same, at24);
    cr_expect_lt(at12, at24 * 0.95, "1.2 GHz %.3f Gb/s, 2.4 GHz %.3f Gb/s", at12, at24);
}

/* ------------------------------------------------------------ --write-ratio */

static void expect_segment(const ddio_segment *s, enum ddio_seg_op op, uint32_t offset, bool follow,
                           enum ddio_seg_unit unit, double length)
{
    cr_expect_eq(s->op, op);
    cr_expect_eq(s->offset, offset);
    cr_expect_eq(s->follow, follow);
    cr_expect_eq(s->unit, unit);
    cr_expect_eq(s->length, length);
}

Test(config_opts, write_ratio_replaces_the_write_segments)
{
    ddio_config c;
    ddio_config_origin o;
    /* l2fwd: read bytes 0-11 and the 12-byte MAC write stay; a write of
     * 0.4 of the packet from byte 0 is appended (l2fwd has no ratio write). */
    expect_ok(&c, &o, (const char *const[]){"--write-ratio", "0.4", NULL});
    cr_assert_eq(c.workload.n_access, 3);
    expect_segment(&c.workload.access[0], DDIO_SEG_READ, 0, false, DDIO_UNIT_BYTES, 12);
    expect_segment(&c.workload.access[1], DDIO_SEG_WRITE, 0, false, DDIO_UNIT_BYTES, 12);
    expect_segment(&c.workload.access[2], DDIO_SEG_WRITE, 0, false, DDIO_UNIT_RATIO, 0.4);
    cr_expect_str_eq(wfield_origin(&o, "access"), "--write-ratio");
    /* 1500 B from byte 0 of a line (headroom 128 = 2 lines): 24 lines;
     * ceil(0.4 x 1500) = 600 B written = bytes 0-599 = lines 0-9 (576-639 is
     * line 9): 10 written; read 1 (bytes 0-11); touched 10. */
    ddio_touch t;
    ddio_workload_touch(&c.workload, 1500, 64, c.workload.driver.headroom, &t);
    cr_expect_eq(t.lines, 24);
    cr_expect_eq(t.written, 10);
    cr_expect_eq(t.read, 1);
    cr_expect_eq(t.flushed, 0);
    cr_expect_eq(t.touched, 10);
    /* 0: no ratio write; the MAC write (line 0) stays, as in Algorithm 1. */
    expect_ok(&c, NULL, (const char *const[]){"--write-ratio", "0", NULL});
    cr_assert_eq(c.workload.n_access, 2);
    expect_segment(&c.workload.access[0], DDIO_SEG_READ, 0, false, DDIO_UNIT_BYTES, 12);
    expect_segment(&c.workload.access[1], DDIO_SEG_WRITE, 0, false, DDIO_UNIT_BYTES, 12);
    ddio_workload_touch(&c.workload, 1500, 64, 0, &t);
    cr_expect_eq(t.written, 1);
    cr_expect_eq(t.touched, 1);
}

Test(config_opts, write_ratio_on_acrobat_keeps_read_and_flush)
{
    /* acrobat: [write 12 B (set_mac), read ratio 0, write ratio 0.2 follow,
     * flush ratio 0 follow] -> [write 12 B, read ratio 0, write ratio 0.7
     * follow, flush ratio 0 follow]: Algorithm 1 with write_ratio 0.7. */
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e = {0};
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_WORKLOAD, "acrobat", &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_WRITE_RATIO, "0.7", &e), 0);
    ddio_config c;
    cr_assert_eq(ddio_config_resolve(&a, &c, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(c.workload.n_access, 4);
    expect_segment(&c.workload.access[0], DDIO_SEG_WRITE, 0, false, DDIO_UNIT_BYTES, 12);
    expect_segment(&c.workload.access[1], DDIO_SEG_READ, 0, false, DDIO_UNIT_RATIO, 0);
    expect_segment(&c.workload.access[2], DDIO_SEG_WRITE, 0, true, DDIO_UNIT_RATIO, 0.7);
    expect_segment(&c.workload.access[3], DDIO_SEG_FLUSH, 0, true, DDIO_UNIT_RATIO, 0);
    /* 64 B: ceil(0.7 x 64) = 45 B -> line 0 only; 1000 B: 700 B -> lines
     * 0-10 (640-699 is line 10): 11 of 16. */
    ddio_touch t;
    ddio_workload_touch(&c.workload, 64, 64, 0, &t);
    cr_expect_eq(t.written, 1);
    ddio_workload_touch(&c.workload, 1000, 64, 0, &t);
    cr_expect_eq(t.lines, 16);
    cr_expect_eq(t.written, 11);
    cr_expect_eq(t.read, 0);
    /* Twice: the same place, the last ratio. */
    cr_assert_eq(ddio_config_apply_override(&c, "--write-ratio", "0.25", &e), 0, "%s", e.msg);
    cr_assert_eq(c.workload.n_access, 4);
    expect_segment(&c.workload.access[2], DDIO_SEG_WRITE, 0, true, DDIO_UNIT_RATIO, 0.25);
}

Test(config_opts, write_ratio_errors)
{
    expect_error((const char *const[]){"--write-ratio", "1.5", NULL}, "--write-ratio: 1.5 is out of range [0, 1]");
    expect_error((const char *const[]){"--write-ratio", "-0.1", NULL}, "--write-ratio: -0.1 is out of range [0, 1]");
    expect_error((const char *const[]){"--write-ratio", "half", NULL}, "--write-ratio: 'half' is not a number");
    /* 16 read segments, no write: no room for one more (ratio 0 needs none). */
    char json[2048] = "{\"access\": [";
    for (int i = 0; i < DDIO_MAX_SEGMENTS; i++) {
        size_t n = strlen(json);
        snprintf(json + n, sizeof json - n, "%s{\"op\": \"read\", \"length\": %d}", i ? ", " : "", i + 1);
    }
    strcat(json, "]}");
    char *path = write_temp(".json", json, strlen(json));
    cr_assert_not_null(path);
    expect_error((const char *const[]){"--workload", path, "--write-ratio", "0.5", NULL},
                 "--write-ratio: the workload's 16 access segments leave no room for a write segment");
    ddio_config c;
    expect_ok(&c, NULL, (const char *const[]){"--workload", path, "--write-ratio", "0", NULL});
    cr_expect_eq(c.workload.n_access, DDIO_MAX_SEGMENTS);
    unlink(path);
    free(path);
}

/* ------------------------------------------------------------ help */

Test(config_opts, simulate_and_predict_help_list_the_options)
{
    const char *cmds[] = {"simulate --help", "predict --help", "config show --help"};
    const char *opts[] = {"--rx-ring-total N", "--extra-cycles C", "--uncore-ghz F", "--write-ratio R"};
    for (size_t i = 0; i < 3; i++) {
        cli_run r = run_ddiosim(cmds[i]);
        cr_assert_eq(r.status, 0, "%s: %s", cmds[i], r.err);
        for (size_t k = 0; k < 4; k++)
            cr_expect_eq(count_lines_with(r.out, opts[k]), 1, "%s: %s", cmds[i], opts[k]);
        cli_run_free(&r);
    }
}
