/* test_cli_noddio.c - DDIO off from the command line: --no-ddio,
 * --ddio-mask 0x0, --ddio-ways 0 and a machine file's mask 0x0 resolve to
 * an empty DDIO mask, contradictions are one-line errors, and simulate,
 * predict and cache-replay give the rule's values (docs/cache-model.md,
 * "DDIO off"). */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configs/config.h"
#include "configs/schema.h"
#include "tests/helpers.h"

/* Resolve the options `opts` (NULL-terminated; an option and its value
 * are two words, --no-ddio one). */
static int resolve(ddio_config *c, ddio_config_origin *origin, ddio_err *e, const char *const *opts)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    for (size_t i = 0; opts[i]; i++) {
        int opt = -1;
        for (int k = 0; k < DDIO_CFG_NOPTS; k++)
            if (strcmp(opts[i], ddio_config_option_name((enum ddio_cfg_opt)k)) == 0)
                opt = k;
        cr_assert_geq(opt, 0, "unknown option %s", opts[i]);
        const char *value = opt == DDIO_CFG_OPT_NO_DDIO ? NULL : opts[++i];
        cr_assert_eq(ddio_config_args_add(&a, (enum ddio_cfg_opt)opt, value, e), 0);
    }
    return ddio_config_resolve(&a, c, origin, e);
}

Test(cli_noddio, every_spelling_is_an_empty_mask)
{
    const char *const *cases[] = {
        (const char *const[]){"--no-ddio", NULL},
        (const char *const[]){"--ddio-mask", "0x0", NULL},
        (const char *const[]){"--ddio-ways", "0", NULL},
        (const char *const[]){"--no-ddio", "--ddio-mask", "0x0", NULL},
        (const char *const[]){"--ddio-ways", "0", "--no-ddio", NULL},
        (const char *const[]){"--set", "machine.ddio_mask=0x0", "--no-ddio", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ddio_config c;
        ddio_config_origin o;
        ddio_err e = {0};
        cr_assert_eq(resolve(&c, &o, &e, cases[i]), 0, "case %zu: %s", i, e.msg);
        cr_expect_eq(c.machine.ddio_mask, 0, "case %zu", i);
        cr_expect_str_eq(o.machine[cfg_index(ddio_machine_table(), "ddio_mask")],
                         i == 0 || i >= 3 ? "--no-ddio" : cases[i][0], "case %zu", i);
    }
}

Test(cli_noddio, machine_file_mask_zero_is_ddio_off)
{
    const char *json = "{\"ddio_mask\": \"0x0\"}";
    char *path = write_temp(".json", json, strlen(json));
    cr_assert_not_null(path);
    ddio_config c;
    ddio_err e = {0};
    cr_assert_eq(resolve(&c, NULL, &e, (const char *const[]){"--machine", path, NULL}), 0, "%s", e.msg);
    cr_expect_eq(c.machine.ddio_mask, 0);
    unlink(path);
    free(path);
}

Test(cli_noddio, contradictions_are_one_line_errors, .timeout = 60)
{
    static const cli_error_case cases[] = {
        {"config show --no-ddio --ddio-ways 2", "ddiosim config: --no-ddio: contradicts --ddio-ways 2", 0},
        {"config show --ddio-ways 2 --no-ddio", "ddiosim config: --no-ddio: contradicts --ddio-ways 2", 0},
        {"config show --no-ddio --ddio-mask 0x600", "ddiosim config: --no-ddio: contradicts --ddio-mask 0x600", 0},
        {"config show --no-ddio --set machine.ddio_mask=0x3",
         "ddiosim config: --no-ddio: contradicts --set machine.ddio_mask 0x3", 0},
        {"simulate --no-ddio --ddio-ways 3", "ddiosim simulate: --no-ddio: contradicts --ddio-ways 3", 0},
        {"predict --no-ddio --ddio-mask 0x1", "ddiosim predict: --no-ddio: contradicts --ddio-mask 0x1", 0},
        {"cache-replay --no-ddio --ddio-mask 0x3 < /dev/null",
         "ddiosim cache-replay: --no-ddio: contradicts --ddio-mask 0x3", 0},
        {"config show --ddio-mask 0x800", "ddiosim config: --ddio-mask: 0x800 is wider than the 11-way LLC (0x7ff)", 0},
    };
    expect_cli_errors(cases, sizeof cases / sizeof cases[0]);
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert(cJSON_IsNumber(x), "\"%s\" is not a number", name);
    return x->valuedouble;
}

/* l2fwd, 1500 B frames at 10 Gb/s, no descriptor lines: each packet's 24
 * data lines (1500 B from a line-aligned headroom) are written to memory,
 * every write a miss.  The core reads and writes line 0 (the MAC swap):
 * its first access misses (the NIC's write left no copy) and the TX read
 * hits that line alone, 1 of 24, reading the other 23 from memory; with
 * the core's read of line 0, 24 lines read per packet. */
Test(cli_noddio, simulate_writes_every_data_line_to_memory, .timeout = 120)
{
    cJSON *j = run_ddiosim_json("simulate --profile fixed:1500 --rate 10 --packets 20000 --no-desc --no-model "
                                "--no-ddio --format json");
    cr_expect_eq(num(j, "pcie_write_hit_frac"), 0);
    cr_expect_eq(num(j, "pcie_write_all_hit_frac"), 0);
    cr_expect_eq(num(j, "pcie_read_hit_frac"), 1.0 / 24);
    cr_expect_eq(num(j, "cpu_first_hit_frac"), 0);
    cr_expect_eq(num(j, "mem_read_bytes_per_pkt"), 24 * 64);
    /* The lines written in the measured interval are whole packets' 24,
     * one packet more or less than those measured (the interval's edges). */
    double m = num(j, "measured_packets");
    double lines = num(j, "mem_write_bytes_per_pkt") * m / 64;
    double pkts = lines / 24;
    expect_near(lines, 24 * (double)(long long)(pkts + 0.5), 1e-6);
    cr_expect(pkts >= m - 1 && pkts <= m + 1, "%g packets written, %g measured", pkts, m);
    const cJSON *occ = cJSON_GetObjectItemCaseSensitive(j, "llc_occupancy_lines");
    cr_expect_eq(num(occ, "DDIO"), 0);
    cJSON_Delete(j);
}

/* The model with the same rule: write hit 0 in both bounds; the read hit
 * is the share of lines the core touched (line 0 of 24), still in its L2
 * when the NIC reads it, as in the simulator above. */
Test(cli_noddio, predict_gives_write_hit_zero, .timeout = 60)
{
    cJSON *j = run_ddiosim_json("predict --profile fixed:1500 --rate 10 --no-ddio --format json");
    const char *b[] = {"lower", "upper", "estimate"};
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(j, "pcie_write_hit_frac"), b[i]), 0, "%s", b[i]);
        expect_near(num(cJSON_GetObjectItemCaseSensitive(j, "pcie_read_hit_frac"), b[i]), 1.0 / 24, 1e-12);
        cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(j, "cpu_first_hit_frac"), b[i]), 0, "%s", b[i]);
    }
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(j, "memory");
    expect_near(num(cJSON_GetObjectItemCaseSensitive(mem, "read_bytes_per_pkt"), "estimate"), 1536, 1e-9);
    /* 24 lines written by the NIC, plus the rare write-back of the core's
     * dirty line 0 when a wait evicts it. */
    double w = num(cJSON_GetObjectItemCaseSensitive(mem, "write_bytes_per_pkt"), "estimate");
    cr_expect(w >= 1536 && w < 1537, "write bytes per packet %.17g", w);
    cJSON_Delete(j);
}

/* cache-replay --no-ddio on a 4-way, one-set cache: the core's line is
 * dropped by the NIC's write, which misses and writes memory; a PCIe read
 * of the core's line hits; nothing the NIC writes is allocated. */
Test(cli_noddio, cache_replay_writes_to_memory, .timeout = 60)
{
    cJSON *j = run_ddiosim_json("cache-replay --no-ddio --ways 4 --sets 1 --slices 1 --mapping modulo --format json "
                                "< tests/data/noddio.din");
    cr_expect_eq(num(j, "accesses"), 6);
    cr_expect_eq(num(j, "hits"), 1);
    cr_expect_eq(num(j, "writebacks"), 2);
    cr_expect_eq(num(j, "mem_reads"), 3);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "by_type");
    cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(t, "pcie_write_full"), "hits"), 0);
    cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(t, "pcie_write_partial"), "hits"), 0);
    cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(t, "pcie_read"), "hits"), 1);
    cJSON_Delete(j);
}

Test(cli_noddio, help_lists_the_option)
{
    const char *cmds[] = {"simulate --help", "predict --help", "config show --help", "cache-replay --help"};
    for (size_t i = 0; i < 4; i++) {
        cli_run r = run_ddiosim(cmds[i]);
        cr_assert_eq(r.status, 0, "%s: %s", cmds[i], r.err);
        cr_expect_eq(count_lines_with(r.out, "--no-ddio"), 1, "%s", cmds[i]);
        cli_run_free(&r);
    }
}
