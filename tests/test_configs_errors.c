/* test_configs_errors.c - one test per validation error class, each checked
 * through the library and through `ddiosim config show` (exact message,
 * exit code 2): a file's error names FILE and the JSON path, an override's
 * error names the option, and both use the same words. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configs/config.h"
#include "tests/helpers.h"

/* Load `json` as a machine or workload file through the library and the CLI;
 * both must fail with "FILE: <tail>" and exit code 2.  Returns the library's
 * message without the file (for comparing with the override's wording). */
/* The policy names of every "is not one of" message (repl_names). */
#define POLICIES "lru, bip, srrip (qlru), brrip, drrip, dip, QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO], duel:<A>,<B>"

static void expect_file_error(int workload, const char *json, const char *tail, char *lib_tail, size_t cap)
{
    char *path = write_temp(".json", json, strlen(json));
    cr_assert_not_null(path);
    ddio_err e = {0};
    int rc;
    if (workload) {
        ddio_workload w;
        rc = ddio_workload_load(&w, path, &e);
    } else {
        ddio_machine m;
        rc = ddio_machine_load(&m, path, &e);
    }
    char want[1024];
    snprintf(want, sizeof want, "%s: %s", path, tail);
    cr_assert_eq(rc, -1, "accepted: %s", json);
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_assert_str_eq(e.msg, want);
    if (lib_tail)
        snprintf(lib_tail, cap, "%s", e.msg + strlen(path) + 2);

    char args[600], want_err[1100];
    snprintf(args, sizeof args, "config show --%s '%s'", workload ? "workload" : "machine", path);
    snprintf(want_err, sizeof want_err, "ddiosim config: %s\n", want);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, DDIO_EXIT_USAGE, "%s -> %d", args, r.status);
    cr_assert_str_eq(r.err, want_err);
    cr_assert_str_eq(r.out, "");
    cli_run_free(&r);
    unlink(path);
    free(path);
}

/* One override (on `machine`, NULL = built-in) through ddio_config_resolve
 * and through the CLI. */
static void expect_override_error_on(const char *machine, enum ddio_cfg_opt opt, const char *value,
                                     const char *want)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e = {0};
    if (machine)
        cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_MACHINE, machine, &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, opt, value, &e), 0);
    ddio_config c;
    cr_assert_eq(ddio_config_resolve(&a, &c, NULL, &e), -1, "%s %s accepted", ddio_config_option_name(opt), value);
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_assert_str_eq(e.msg, want);

    char args[300], want_err[600];
    snprintf(args, sizeof args, "config show %s%s %s '%s'", machine ? "--machine " : "", machine ? machine : "",
             ddio_config_option_name(opt), value);
    snprintf(want_err, sizeof want_err, "ddiosim config: %s\n", want);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, DDIO_EXIT_USAGE, "%s -> %d", args, r.status);
    cr_assert_str_eq(r.err, want_err);
    cr_assert_str_eq(r.out, "");
    cli_run_free(&r);
}

static void expect_override_error(enum ddio_cfg_opt opt, const char *value, const char *want)
{
    expect_override_error_on(NULL, opt, value, want);
}

Test(configs_errors, malformed_json)
{
    expect_file_error(0, "{\n  \"name\": \"x\",\n  \"cores\": 18,\n  oops\n}\n",
                      "line 4, column 3: malformed JSON near 'oops'", NULL, 0);
    expect_file_error(1, "{\"cores\": 2,}", "line 1, column 13: malformed JSON near '}'", NULL, 0);
    expect_file_error(1, "{\"cores\": 2} {}", "line 1, column 14: malformed JSON near '{}'", NULL, 0);
    expect_file_error(1, "  \n", "malformed JSON: the file is empty", NULL, 0);
    expect_file_error(0, "[1, 2]", "expected a JSON object at the top level, got a list", NULL, 0);
}

Test(configs_errors, unknown_key)
{
    expect_file_error(0, "{\"llc\": {\"wayz\": 11}}", "llc.wayz: unknown key (did you mean \"ways\"?)", NULL, 0);
    expect_file_error(1, "{\"driver\": {\"descriptors\": 1}}", "driver.descriptors: unknown key", NULL, 0);
    expect_file_error(1, "{\"access\": [{\"op\": \"read\", \"length\": 1, \"size\": 3}]}",
                      "access[0].size: unknown key", NULL, 0);
    /* A dotted key is not a shortcut for a nested one. */
    expect_file_error(0, "{\"llc.ways\": 12}", "llc.ways: unknown key", NULL, 0);
    expect_file_error(1, "{\"cores\": 1, \"cores\": 2}", "cores: duplicate key", NULL, 0);
}

Test(configs_errors, wrong_type)
{
    expect_file_error(0, "{\"cores\": \"18\"}", "cores: expected an integer, got a string", NULL, 0);
    expect_file_error(0, "{\"llc\": 11}", "llc: expected an object, got a number", NULL, 0);
    expect_file_error(0, "{\"ddio_mask\": 1536}", "ddio_mask: expected a hex string like \"0x600\", got a number",
                      NULL, 0);
    expect_file_error(1, "{\"driver\": {\"align_4k\": 1}}", "driver.align_4k: expected true or false, got a number",
                      NULL, 0);
    expect_file_error(1, "{\"driver\": {\"rx_cqe_comp\": \"yes\"}}",
                      "driver.rx_cqe_comp: expected true or false, got a string", NULL, 0);
    expect_file_error(1, "{\"cores\": 2.5}", "cores: 2.5 is not an integer", NULL, 0);
    expect_file_error(1, "{\"access\": {\"op\": \"read\"}}", "access: expected a list, got an object", NULL, 0);
    expect_file_error(1, "{\"access\": [{\"op\": \"read\"}]}", "access[0]: missing key \"length\"", NULL, 0);
    expect_file_error(0, "{\"shared_mask\": \"0xZZ\"}",
                      "shared_mask: '0xZZ' is not a hexadecimal way mask like \"0x600\"", NULL, 0);
}

Test(configs_errors, out_of_range)
{
    char file_tail[512];
    expect_file_error(0, "{\"llc\": {\"ways\": 65}}", "llc.ways: 65 is out of range [1, 64]", NULL, 0);
    expect_file_error(1, "{\"cores\": 0}", "cores: 0 is out of range [1, 255]", file_tail, sizeof file_tail);
    expect_override_error(DDIO_CFG_OPT_CORES, "0", "--cores: 0 is out of range [1, 255]");
    cr_assert_str_eq(strchr(file_tail, ' ') + 1, "0 is out of range [1, 255]");
    expect_file_error(1, "{\"driver\": {\"mempool_size\": 10}}",
                      "driver.mempool_size: 10 is out of range [64, 16777216] (or 0)", NULL, 0);
    expect_file_error(0, "{\"llc\": {\"policy\": \"plru\"}}",
                      "llc.policy: 'plru' is not one of " POLICIES, NULL, 0);
    expect_file_error(0, "{\"l2\": {\"policy\": \"QLRU_H12_M1_R0_U0\"}}",
                      "l2.policy: 'QLRU_H12_M1_R0_U0': hit promotion 'H12' is not one of H21, H20, H11, H10, H00",
                      NULL, 0);
    expect_file_error(0, "{\"cat\": {\"classes\": []}}", "cat.classes: needs at least 1 element", NULL, 0);
}

Test(configs_errors, ddio_mask_wider_than_llc)
{
    expect_file_error(0, "{\"ddio_mask\": \"0x1600\"}", "ddio_mask: 0x1600 is wider than the 11-way LLC (0x7ff)",
                      NULL, 0);
    expect_override_error(DDIO_CFG_OPT_DDIO_MASK, "0x1600", "--ddio-mask: 0x1600 is wider than the 11-way LLC (0x7ff)");
    expect_override_error(DDIO_CFG_OPT_DDIO_WAYS, "12", "--ddio-ways: 12 is more than the 11 ways of the LLC");
    /* Shrinking the LLC under a file's mask is the override's fault. */
    expect_override_error_on("skylake-6140", DDIO_CFG_OPT_SET, "machine.llc.ways=8",
                          "--set machine.llc.ways: 0x600 is wider than the 8-way LLC (0xff)");
}

Test(configs_errors, cat_class_with_no_way)
{
    expect_file_error(0, "{\"cat\": {\"classes\": [\"0x7ff\", \"0x0\"]}}", "cat.classes[1]: 0x0 selects no LLC way",
                      NULL, 0);
    expect_file_error(0, "{\"cat\": {\"classes\": [\"0x505\"]}}",
                      "cat.classes[0]: 0x505 is not a contiguous run of ways (CAT requires one)", NULL, 0);
    expect_file_error(0, "{\"cat\": {\"core_class\": [0, 1]}}",
                      "cat.core_class[1]: core 1 uses class 1 but only 1 class is defined", NULL, 0);
    expect_file_error(1, "{\"distractor\": {\"working_set\": 1048576}}",
                      "distractor.cat_mask: 0x0 selects no LLC way (a distractor needs its CAT ways)", NULL, 0);
}

Test(configs_errors, not_power_of_two)
{
    char file_tail[512];
    expect_file_error(1, "{\"driver\": {\"rx_ring\": 1000}}", "driver.rx_ring: 1000 is not a power of two", file_tail,
                      sizeof file_tail);
    expect_override_error(DDIO_CFG_OPT_RX_RING, "1000", "--rx-ring: 1000 is not a power of two");
    /* One check, one wording, wherever the value comes from. */
    cr_assert_str_eq(strchr(file_tail, ' ') + 1, "1000 is not a power of two");
    expect_override_error(DDIO_CFG_OPT_TX_RING, "768", "--tx-ring: 768 is not a power of two");
    expect_file_error(0, "{\"llc\": {\"sets_per_slice\": 2000}}", "llc.sets_per_slice: 2000 is not a power of two",
                      NULL, 0);
    expect_file_error(0, "{\"pcie\": {\"mps\": 384}}", "pcie.mps: 384 is not a power of two", NULL, 0);
}

Test(configs_errors, cross_field)
{
    expect_file_error(1, "{\"driver\": {\"rx_ring\": 16}}",
                      "driver.burst: burst 32 is larger than the RX ring (16 descriptors)", NULL, 0);
    expect_override_error(DDIO_CFG_OPT_RX_RING, "16", "--rx-ring: burst 32 is larger than the RX ring (16 descriptors)");
    expect_file_error(1, "{\"driver\": {\"rx_refill\": \"threshold\", \"rx_free_thresh\": 256}}",
                      "driver.rx_free_thresh: rx_free_thresh 256 must be smaller than the RX ring (256 descriptors)",
                      NULL, 0);
    expect_file_error(0, "{\"l2\": {\"line_size\": 128}}",
                      "l2.line_size: L2 line size 128 differs from the LLC line size 64", NULL, 0);
    expect_file_error(0, "{\"hierarchy\": \"inclusive\", \"shared_mask\": \"0x3\"}",
                      "shared_mask: 0x3: an inclusive LLC has no Shared ways (use \"0x0\")", NULL, 0);
    expect_file_error(1, "{\"cores\": 2, \"driver\": {\"rx_ring\": 32768, \"mempool_size\": 40000}}",
                      "driver.mempool_size: 40000 buffers cannot fill 2 RX rings of 32768 descriptors "
                      "(65536 needed; 0 = auto size)", NULL, 0);
    expect_file_error(1, "{\"access\": [{\"op\": \"write\", \"unit\": \"ratio\", \"length\": 1.5}]}",
                      "access[0].length: ratio 1.5 is more than 1", NULL, 0);
    expect_override_error(DDIO_CFG_OPT_CORES, "19", "--cores: 19 cores exceed the 18 of machine skylake-6140");
}

#define E810 DDIOSIM_SOURCE_DIR "/tests/data/skylake-6140-e810.json"

/* nic.driver: the name, and DPDK's queue set-up rules of ice / i40e
 * (ice_rx_queue_setup's bulk-alloc preconditions, ice_tx_queue_setup). */
Test(configs_errors, nic_driver)
{
    expect_file_error(0, "{\"nic\": {\"driver\": \"x\"}}", "nic.driver: 'x' is not one of mlx5, ice, i40e", NULL, 0);
    expect_override_error(DDIO_CFG_OPT_SET, "machine.nic.driver=ixgbe",
                          "--set machine.nic.driver: 'ixgbe' is not one of mlx5, ice, i40e");
    expect_override_error_on(E810, DDIO_CFG_OPT_SET, "workload.driver.rx_free_thresh=16",
                             "--set workload.driver.rx_free_thresh: ice: rx_free_thresh 16 must be at least 32, "
                             "smaller than the RX ring (256 descriptors) and divide it");
    expect_override_error_on(E810, DDIO_CFG_OPT_SET, "workload.driver.rx_free_thresh=96",
                             "--set workload.driver.rx_free_thresh: ice: rx_free_thresh 96 must be at least 32, "
                             "smaller than the RX ring (256 descriptors) and divide it");
    expect_override_error_on(E810, DDIO_CFG_OPT_SET, "workload.driver.tx_ring=32",
                             "--set workload.driver.tx_ring: ice: tx_rs_thresh 32 must be at least 32, smaller than "
                             "the TX ring (32 descriptors) minus 2 and divide it");
    expect_override_error_on(E810, DDIO_CFG_OPT_SET, "workload.driver.tx_rs_thresh=64",
                             "--set workload.driver.tx_rs_thresh: ice: tx_free_thresh 32 must be smaller than the TX "
                             "ring (256 descriptors) minus 3, at least tx_rs_thresh (64), and with it at most the "
                             "ring");
    /* mlx5 has no such rules: the same values load. */
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e = {0};
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, "workload.driver.rx_free_thresh=16", &e), 0);
    ddio_config c;
    cr_expect_eq(ddio_config_resolve(&a, &c, NULL, &e), 0, "%s", e.msg);
    cr_expect_eq(c.machine.nic.driver, DDIO_NIC_MLX5, "the default driver");
}

Test(configs_errors, cli_override_errors)
{
    expect_override_error(DDIO_CFG_OPT_RX_RING, "abc", "--rx-ring: 'abc' is not an integer");
    expect_override_error(DDIO_CFG_OPT_RX_RING, "-1", "--rx-ring: -1 is out of range [8, 32768]");
    expect_override_error(DDIO_CFG_OPT_BURST, "", "--burst: empty value");
    expect_override_error(DDIO_CFG_OPT_DDIO_WAYS, "65", "--ddio-ways: 65 is out of range [0, 64]");
    expect_override_error(DDIO_CFG_OPT_DDIO_MASK, "0xg", "--ddio-mask: '0xg' is not a hexadecimal way mask like \"0x600\"");
    expect_override_error(DDIO_CFG_OPT_POLICY, "plru", "--policy: 'plru' is not one of " POLICIES);
    expect_override_error(DDIO_CFG_OPT_POLICY, "qlru_h11_m1_r0_u2",
                          "--policy: 'qlru_h11_m1_r0_u2': U2 and U3 go with R1 only (R0 and R2 take a way of age 3, "
                          "which U2 and U3 do not keep)");
    expect_override_error(DDIO_CFG_OPT_SET, "machine.llc.policy=duel:lru,srrip",
                          "--set machine.llc.policy: 'duel:lru,srrip': lru (recency family) and srrip (rrip family) "
                          "keep different per-line state; a duel needs two policies of one family");
    expect_override_error(DDIO_CFG_OPT_SET, "machine.llc.duel_leaders=3",
                          "--set machine.llc.duel_leaders: 3 is not a power of two");
    expect_override_error(DDIO_CFG_OPT_MAPPING, "hash", "--mapping: 'hash' is not one of modulo, xor, random, skx18");
    expect_override_error(DDIO_CFG_OPT_SET, "workload.driver.rx_ring=1000",
                          "--set workload.driver.rx_ring: 1000 is not a power of two");
    expect_override_error(DDIO_CFG_OPT_SET, "machine.llc.wayz=3", "--set machine.llc.wayz: no such field");
    expect_override_error(DDIO_CFG_OPT_SET, "llc.ways=3", "--set llc.ways: the path must start with machine. or workload.");
    expect_override_error(DDIO_CFG_OPT_SET, "machine.cat.classes=0x3",
                          "--set machine.cat.classes: is a list: set it in a JSON file");
    /* Two overrides that cannot both hold. */
    cli_run r = run_ddiosim("config show --ddio-ways 2 --ddio-mask 0x600");
    cr_assert_eq(r.status, DDIO_EXIT_USAGE);
    cr_assert_str_eq(r.err, "ddiosim config: --ddio-ways: cannot be combined with a DDIO mask override\n");
    cli_run_free(&r);
    r = run_ddiosim("config show --cores 18 --rx-ring 4096");
    cr_assert_eq(r.status, DDIO_EXIT_USAGE);
    cr_assert_str_eq(r.err, "ddiosim config: --cores: 65535 buffers cannot fill 18 RX rings of 4096 descriptors "
                            "(73728 needed; 0 = auto size)\n");
    cli_run_free(&r);
}

Test(configs_errors, unknown_machine_name)
{
    unsetenv("DDIOSIM_CONFIG_DIR");
    char want[1024], want_err[1100];
    snprintf(want, sizeof want,
             "--machine: unknown machine 'nosuch' (known: broadwell-2650v4, cascadelake-6248, icelake-6338, "
             "sapphirerapids-6430, skylake-6132, skylake-6140; "
             "searched %s/configs/machines)", DDIOSIM_SOURCE_DIR);
    ddio_machine m;
    ddio_err e = {0};
    cr_assert_eq(ddio_machine_load(&m, "nosuch", &e), -1);
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_assert_str_eq(e.msg, want);
    snprintf(want_err, sizeof want_err, "ddiosim config: %s\n", want);
    cli_run r = run_ddiosim("config show --machine nosuch");
    cr_assert_eq(r.status, DDIO_EXIT_USAGE);
    cr_assert_str_eq(r.err, want_err);
    cli_run_free(&r);

    snprintf(want, sizeof want,
             "--workload: unknown workload 'l2fw' (known: acrobat, firewall, ipsec, l2fwd, l3router, loadbalancer; "
             "searched %s/configs/workloads)", DDIOSIM_SOURCE_DIR);
    ddio_workload w;
    cr_assert_eq(ddio_workload_load(&w, "l2fw", &e), -1);
    cr_assert_str_eq(e.msg, want);
    /* A path is taken as given. */
    cr_assert_eq(ddio_machine_load(&m, "/nonexistent/m.json", &e), -1);
    cr_assert_str_eq(e.msg, "/nonexistent/m.json: cannot open: No such file or directory");
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
}
