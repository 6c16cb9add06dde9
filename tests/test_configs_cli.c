/* test_configs_cli.c - `ddiosim config show | list`: JSON that loads back,
 * the table with each value's origin, list, help and usage errors. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configs/config.h"
#include "tests/helpers.h"

/* Run `first`, save its stdout, load it back with `reload_opt FILE` and
 * print again: the two outputs must be identical. */
static void cli_roundtrip(const char *first, const char *reload_opt, const char *part)
{
    cli_run a = run_ddiosim(first);
    cr_assert_eq(a.status, 0, "%s: %s", first, a.err);
    char *path = write_temp(".json", a.out, strlen(a.out));
    char args[700];
    snprintf(args, sizeof args, "config show %s '%s' --only %s --format json", reload_opt, path, part);
    cli_run b = run_ddiosim(args);
    cr_assert_eq(b.status, 0, "%s: %s", args, b.err);
    cr_assert_str_eq(b.out, a.out);
    cli_run_free(&a);
    cli_run_free(&b);
    unlink(path);
    free(path);
}

Test(configs_cli, show_json_roundtrips)
{
    cli_roundtrip("config show --only machine --format json", "--machine", "machine");
    cli_roundtrip("config show --only machine --format json --machine broadwell-2650v4 --ddio-ways 4 --policy qlru "
                  "--mapping random --set machine.latency_ns.memory=81.25",
                  "--machine", "machine");
    cli_roundtrip("config show --only machine --format json --policy QLRU_H11_M1_R0_U0_UMO "
                  "--set machine.l2.policy=duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR13_R0_U1 "
                  "--set machine.llc.duel_leaders=32",
                  "--machine", "machine");
    cli_roundtrip("config show --only workload --format json", "--workload", "workload");
    const char *wl[] = {"acrobat", "l3router", "loadbalancer", "firewall", "ipsec"};
    for (size_t i = 0; i < sizeof wl / sizeof wl[0]; i++) {
        char args[300];
        snprintf(args, sizeof args,
                 "config show --only workload --format json --workload %s --rx-ring 2048 --cores 3 "
                 "--set workload.driver.align_4k=true --set workload.cycles_per_byte=0.25",
                 wl[i]);
        cli_roundtrip(args, "--workload", "workload");
    }
}

Test(configs_cli, show_json_has_both_parts)
{
    cli_run r = run_ddiosim("config show --format json --ddio-ways 4 --workload acrobat --tx-ring 1024");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "machine");
    cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "workload");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(m, "ddio_mask")->valuestring, "0x780");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring, "skylake-6140");
    cJSON *d = cJSON_GetObjectItemCaseSensitive(w, "driver");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(d, "tx_ring")->valueint, 1024);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(d, "rx_ring")->valueint, 512);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(w, "access")), 4);
    cJSON_Delete(j);
    cli_run_free(&r);
}

Test(configs_cli, show_table_names_origins)
{
    cli_run r = run_ddiosim("config show --machine skylake-6132 --rx-ring 512 --ddio-ways 3");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(count_lines_with(r.out, "machine skylake-6132  from "), 1);
    cr_assert_eq(count_lines_with(r.out, "workload l2fwd  (built-in)"), 1);
    cr_assert_eq(count_lines_with(r.out, "--rx-ring"), 1);
    cr_assert_eq(count_lines_with(r.out, "driver.rx_ring                     512"), 1);
    cr_assert_eq(count_lines_with(r.out, "ddio_mask                          0x700"), 1);
    cr_assert_eq(count_lines_with(r.out, "--ddio-ways"), 1);
    cr_assert_eq(count_lines_with(r.out, "llc.slices                         14                         file"), 1);
    cr_assert_eq(count_lines_with(r.out, "19.25 MiB (14 slices x 2048 sets x 11 ways x 64 B)"), 1);
    cr_assert_eq(count_lines_with(r.out, "3 of 11 ways (0x700) = 5.25 MiB"), 1);
    cr_assert_eq(count_lines_with(r.out, "24 lines; read 1, written 1, flushed 0; alpha 0.042; R0 W0"), 1);
    cli_run_free(&r);
}

Test(configs_cli, only_and_output_file)
{
    char *path = write_temp(".json", "", 0);
    char args[400];
    snprintf(args, sizeof args, "config show --only workload --format json --workload ipsec -o '%s'", path);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "");
    char *text = slurp(path, NULL);
    ddio_workload w;
    ddio_err e = {0};
    cr_assert_eq(ddio_workload_parse(&w, text, strlen(text), path, &e), 0, "%s", e.msg);
    cr_assert_str_eq(w.name, "ipsec");
    free(text);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

Test(configs_cli, list)
{
    unsetenv("DDIOSIM_CONFIG_DIR");
    cli_run r = run_ddiosim("config list");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "machines   broadwell-2650v4, cascadelake-6248, icelake-6338, sapphirerapids-6430, skylake-6132, skylake-6140\n"
                            "workloads  acrobat, firewall, ipsec, l2fwd, l3router, loadbalancer\n");
    cli_run_free(&r);
    r = run_ddiosim("config list --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "machines")), 6);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "workloads")), 6);
    cJSON_Delete(j);
    cli_run_free(&r);
}

Test(configs_cli, help_and_usage_errors)
{
    cli_run r = run_ddiosim("config --help");
    cr_assert_eq(r.status, 0);
    cr_assert_eq(count_lines_with(r.out, "usage: ddiosim config show"), 1);
    cr_assert_eq(count_lines_with(r.out, "--ddio-ways K"), 1);
    cli_run_free(&r);
    r = run_ddiosim("config show --help");
    cr_assert_eq(r.status, 0);
    cli_run_free(&r);
    r = run_ddiosim("config show --bogus");
    cr_assert_eq(r.status, DDIO_EXIT_USAGE);
    cr_assert_str_eq(r.err, "ddiosim config: unknown option '--bogus' (see 'ddiosim config --help')\n");
    cli_run_free(&r);
    r = run_ddiosim("config");
    cr_assert_eq(r.status, DDIO_EXIT_USAGE);
    cr_assert_eq(count_lines_with(r.err, "ddiosim config: missing action: show or list"), 1);
    cli_run_free(&r);
    r = run_ddiosim("config shw");
    cr_assert_eq(r.status, DDIO_EXIT_USAGE);
    cr_assert_eq(count_lines_with(r.err, "ddiosim config: unknown action 'shw' (show or list)"), 1);
    cli_run_free(&r);
    r = run_ddiosim("config show --format yaml");
    cr_assert_eq(r.status, DDIO_EXIT_USAGE);
    cr_assert_eq(count_lines_with(r.err, "ddiosim config: --format: 'yaml' is not one of json, table"), 1);
    cli_run_free(&r);
}

/* Every help that lists the configuration options gives each one's default,
 * the built-in configuration's value (equal to the default files'). */
Test(configs_cli, help_shows_the_built_in_defaults)
{
    ddio_config c;
    ddio_config_default(&c);
    char want[5][120];
    snprintf(want[0], sizeof want[0], "  --rx-ring N       RX descriptors per core, a power of two (%u)",
             c.workload.driver.rx_ring);
    snprintf(want[1], sizeof want[1], "  --tx-ring N       TX descriptors per core, a power of two (%u)",
             c.workload.driver.tx_ring);
    snprintf(want[2], sizeof want[2], "  --burst N         RX / TX burst (%u)", c.workload.driver.burst);
    snprintf(want[3], sizeof want[3], "  --cores S         cores running the workload (%u)", c.workload.cores);
    snprintf(want[4], sizeof want[4], "  --ddio-ways K     DDIO allocates in the K leftmost LLC ways (%d of %u)",
             __builtin_popcountll(c.machine.ddio_mask), c.machine.llc.ways);
    const char *cmds[] = {"simulate --help", "predict --help", "config --help", "config show --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cli_run r = run_ddiosim(cmds[i]);
        cr_expect_eq(r.status, 0, "%s", cmds[i]);
        for (int k = 0; k < 5; k++)
            cr_expect_eq(count_lines_with(r.out, want[k]), 1, "%s: no '%s'", cmds[i], want[k]);
        cli_run_free(&r);
    }
}

/* Every subcommand: every error is one line "ddiosim CMD: ..."; a bad value
 * of an option it understood names the option; an unknown option, a missing
 * value or a stray argument says where the options are listed (see 'ddiosim
 * CMD --help'), never prints the whole help. */
Test(configs_cli, bad_values_are_one_line_usage_mistakes_show_usage)
{
    static const cli_error_case cases[] = {
        {"simulate --rate abc", "ddiosim simulate: --rate: 'abc' is not a number", 0},
        {"simulate --rx-ring 3", "ddiosim simulate: --rx-ring: 3 is out of range", 0},
        {"simulate --format yaml", "ddiosim simulate: --format: 'yaml' is not one of json, table", 0},
        {"simulate --trace a.pcap --profile mawi", "ddiosim simulate: --trace and --profile exclude each other", 0},
        {"simulate --bogus", "ddiosim simulate: unknown option '--bogus'", 1},
        {"simulate --rate", "ddiosim simulate: option '--rate' needs a value", 1},
        {"simulate stray", "ddiosim simulate: unexpected argument 'stray'", 1},
        {"predict --tol 5", "ddiosim predict: --tol: 5 is out of range", 0},
        {"predict --solver qr", "ddiosim predict: --solver: 'qr' is not one of lu, eigen", 0},
        {"predict --bogus", "ddiosim predict: unknown option '--bogus'", 1},
        {"cache-replay --sets x", "ddiosim cache-replay: --sets: 'x' is not a non-negative integer", 0},
        {"cache-replay --bogus", "ddiosim cache-replay: unknown option '--bogus'", 1},
        {"config show --rx-ring 3", "ddiosim config: --rx-ring: 3 is out of range", 0},
        {"config show stray", "ddiosim config: unexpected argument 'stray'", 1},
        {"rss --queues 0", "ddiosim rss: --queues", 0},
        {"trace gen --profile nope --packets 1 -o x.pcap", "ddiosim trace gen: ", 0},
        {"trace gen --bogus", "ddiosim trace gen: unknown option '--bogus' (see 'ddiosim trace gen --help')", 1},
        {"trace stats --bogus x", "ddiosim trace stats: unknown option '--bogus' (see 'ddiosim trace stats --help')",
         1},
        {"trace", "ddiosim trace: missing subcommand: stats or gen (see 'ddiosim trace --help')", 1},
        {"rss --bogus", "ddiosim rss: unknown option '--bogus' (see 'ddiosim rss --help')", 1},
        {"validate --bogus", "ddiosim validate: unknown option '--bogus' (see 'ddiosim validate --help')", 1},
        {"config", "ddiosim config: missing action: show or list (see 'ddiosim config --help')", 1},
    };
    expect_cli_errors(cases, sizeof cases / sizeof cases[0]);
}

/* A hit rate object of predict's JSON: every bound a fraction, the estimate
 * between the bounds. */
static double expect_hit_rates(const cJSON *j, const char *key, const char *who)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, key);
    cr_assert(cJSON_IsObject(o), "%s: no %s", who, key);
    const char *names[] = {"lower", "upper", "mean", "estimate"};
    double v[4];
    for (size_t i = 0; i < 4; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, names[i]);
        cr_assert(cJSON_IsNumber(x), "%s: %s.%s", who, key, names[i]);
        v[i] = x->valuedouble;
        cr_expect(v[i] >= 0 && v[i] <= 1, "%s: %s.%s = %g", who, key, names[i], v[i]);
    }
    double lo = v[0] < v[1] ? v[0] : v[1], hi = v[0] < v[1] ? v[1] : v[0];
    cr_expect(v[3] >= lo - 1e-12 && v[3] <= hi + 1e-12, "%s: %s estimate %g outside [%g, %g]", who, key, v[3], lo,
              hi);
    return v[3];
}

/* The machine files of the CPUs people own today load by name, show, round
 * trip through JSON, and predict and simulate on them. */
Test(configs_cli, current_generations_show_predict_and_simulate)
{
    unsetenv("DDIOSIM_CONFIG_DIR");
    static const struct {
        const char *name, *ddio, *llc, *l2;
    } ms[] = {
        {"cascadelake-6248", "2 of 11 ways (0x600) = 5.00 MiB", "27.50 MiB (20 slices x 2048 sets x 11 ways x 64 B)",
         "1.00 MiB per core"},
        {"icelake-6338", "2 of 12 ways (0xc00) = 8.00 MiB", "48.00 MiB (32 slices x 2048 sets x 12 ways x 64 B)",
         "1.25 MiB per core"},
        {"sapphirerapids-6430", "2 of 15 ways (0x6000) = 8.00 MiB",
         "60.00 MiB (32 slices x 2048 sets x 15 ways x 64 B)", "2.00 MiB per core"},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        char args[300], want[300];
        snprintf(args, sizeof args, "config show --machine %s", ms[i].name);
        cli_run r = run_ddiosim(args);
        cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
        cr_expect_str_eq(r.err, "");
        snprintf(want, sizeof want, "machine %s  from " DDIOSIM_SOURCE_DIR "/configs/machines/%s.json", ms[i].name,
                 ms[i].name);
        cr_expect_eq(count_lines_with(r.out, want), 1, "%s", r.out);
        /* the derived sizes: LLC, DDIO ways, L2 */
        const char *rows[][2] = {{"llc", ms[i].llc}, {"ddio", ms[i].ddio}, {"l2", ms[i].l2}};
        for (size_t k = 0; k < 3; k++) {
            snprintf(want, sizeof want, "  %-34s %s", rows[k][0], rows[k][1]);
            cr_expect_eq(count_lines_with(r.out, want), 1, "%s: no [%s] in %s", ms[i].name, want, r.out);
        }
        cli_run_free(&r);
        snprintf(args, sizeof args, "config show --only machine --format json --machine %s", ms[i].name);
        cli_roundtrip(args, "--machine", "machine");

        /* a point where the DDIO ways overflow (8 cores, 4096-descriptor
         * rings): a write hit rate strictly inside (0, 1) */
        snprintf(args, sizeof args, "predict --machine %s --cores 8 --rx-ring 4096 --format json", ms[i].name);
        r = run_ddiosim(args);
        cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
        cJSON *j = cJSON_Parse(r.out);
        cr_assert_not_null(j, "%s: %s", args, r.out);
        double w = expect_hit_rates(j, "pcie_write_hit_frac", ms[i].name);
        cr_expect(w > 0 && w < 1, "%s: write hit %g", ms[i].name, w);
        expect_hit_rates(j, "pcie_read_hit_frac", ms[i].name);
        expect_hit_rates(j, "cpu_first_hit_frac", ms[i].name);
        cJSON_Delete(j);
        cli_run_free(&r);

        snprintf(args, sizeof args, "simulate --machine %s --packets 20000", ms[i].name);
        r = run_ddiosim(args);
        cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
        cr_expect_eq(count_lines_with(r.out, "packets          20000 injected"), 1, "%s", r.out);
        cli_run_free(&r);
    }
}
