/* test_configs.c - the config library: shipped files, built-in defaults,
 * JSON round trips, overrides, derived masks, the lines a packet touches,
 * and the conversion into the cache hierarchy. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configs/schema.h"
#include "tests/helpers.h"

static const char *const machines[] = {"skylake-6140",     "skylake-6132",  "broadwell-2650v4",
                                        "cascadelake-6248", "icelake-6338", "sapphirerapids-6430"};
static const char *const workloads[] = {"l2fwd", "acrobat", "l3router", "loadbalancer", "firewall", "ipsec"};
#define NM (sizeof machines / sizeof machines[0])
#define NW (sizeof workloads / sizeof workloads[0])

/* ------------------------------------------------------------ shipped files */

Test(configs_files, tables_are_consistent)
{
    ddio_err e = {0};
    cr_assert_eq(cfg_table_check(ddio_machine_table(), &e), 0, "%s", e.msg);
    cr_assert_eq(cfg_table_check(ddio_workload_table(), &e), 0, "%s", e.msg);
    cr_assert_leq(ddio_machine_table()->n, DDIO_CFG_MAX_FIELDS);
    cr_assert_leq(ddio_workload_table()->n, DDIO_CFG_MAX_FIELDS);
}

Test(configs_files, every_machine_loads_and_builds_a_hierarchy)
{
    for (size_t i = 0; i < NM; i++) {
        ddio_machine m;
        ddio_err e = {0};
        cr_assert_eq(ddio_machine_load(&m, machines[i], &e), 0, "%s: %s", machines[i], e.msg);
        cr_assert_str_eq(m.name, machines[i]);
        hier_config hc;
        cr_assert_eq(machine_to_hier_config(&m, m.cores, &hc, &e), 0, "%s: %s", machines[i], e.msg);
        cr_assert_eq(hc.cores, m.cores);
        hier h;
        cr_assert_eq(machine_to_hier_config(&m, 1, &hc, &e), 0, "%s", e.msg);
        cr_assert_eq(hier_init(&h, &hc, &e), 0, "%s: %s", machines[i], e.msg);
        hier_free(&h);
    }
}

Test(configs_files, table4_testbeds)
{
    ddio_machine m;
    ddio_err e = {0};
    cr_assert_eq(ddio_machine_load(&m, "skylake-6132", &e), 0, "%s", e.msg);
    /* Wang, Xu, Wu (SIGMETRICS 2022) Table 4: 14 x 2048 sets x 11 ways = 19.25 MiB, 1 MiB L2. */
    cr_assert_eq((uint64_t)m.llc.slices * m.llc.sets_per_slice * m.llc.ways * m.llc.line_size, 19712ull * 1024);
    cr_assert_eq((uint64_t)m.l2.sets * m.l2.ways * m.l2.line_size, 1024 * 1024);
    cr_assert_eq(m.hierarchy, HIER_NONINCLUSIVE);
    cr_assert_eq(m.ddio_mask, 0x600);
    cr_assert_eq(m.shared_mask, 0x3);
    cr_assert_float_eq(m.latency_ns.pcirdcur.l2_m, 56.9, 1e-12);
    cr_assert_eq(ddio_machine_load(&m, "broadwell-2650v4", &e), 0, "%s", e.msg);
    /* 12 x 2048 x 20 = 30 MiB inclusive, 256 KiB L2, DDIO 0xC0000 (Table 1's caption). */
    cr_assert_eq((uint64_t)m.llc.slices * m.llc.sets_per_slice * m.llc.ways * m.llc.line_size, 30ull << 20);
    cr_assert_eq((uint64_t)m.l2.sets * m.l2.ways * m.l2.line_size, 256 * 1024);
    cr_assert_eq(m.hierarchy, HIER_INCLUSIVE);
    cr_assert_eq(m.ddio_mask, 0xC0000);
    cr_assert_eq(m.shared_mask, 0);
    cr_assert_eq(m.cat_class[0], 0xFFFFF);
    cr_assert_float_eq(m.nic.line_rate_gbps, 40.0, 1e-12);
}

/* The machines people own today (docs/configs.md, "Where the numbers come
 * from"): LLC = slices x LLC per core, 2048 sets per slice, ways from the
 * per-core LLC size; the DDIO default as read from IIO_LLC_WAYS. */
Test(configs_files, current_generations)
{
    static const struct {
        const char *name, *cpu;
        unsigned cores, ways, l2_ways, pcie_gen, lanes;
        uint64_t llc_bytes, l2_bytes;
        uint32_t ddio, shared;
        double ghz, gbps;
    } want[] = {
        /* 20 x 1.375 MiB = 27.5 MiB, 11 ways; 1 MiB L2 16-way; 0x600 */
        {"cascadelake-6248", "Intel Xeon Gold 6248", 20, 11, 16, 3, 16, 28160ull * 1024, 1024 * 1024, 0x600, 0x3,
         2.5, 100},
        /* 32 x 1.5 MiB = 48 MiB, 12 ways; 1.25 MiB L2 20-way; 0xc00 */
        {"icelake-6338", "Intel Xeon Gold 6338", 32, 12, 20, 4, 16, 48ull << 20, 1280 * 1024, 0xC00, 0x3, 2.0, 100},
        /* 32 x 1.875 MiB = 60 MiB, 15 ways; 2 MiB L2 16-way; 0x6000 */
        {"sapphirerapids-6430", "Intel Xeon Gold 6430", 32, 15, 16, 5, 16, 60ull << 20, 2048 * 1024, 0x6000, 0x3, 2.1,
         200},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ddio_machine m;
        ddio_err e = {0};
        cr_assert_eq(ddio_machine_load(&m, want[i].name, &e), 0, "%s: %s", want[i].name, e.msg);
        cr_expect_str_eq(m.cpu, want[i].cpu);
        cr_expect_eq(m.cores, want[i].cores, "%s", want[i].name);
        cr_expect_float_eq(m.frequency_ghz, want[i].ghz, 1e-12, "%s", want[i].name);
        cr_expect_eq(m.llc.slices, want[i].cores, "%s: one LLC slice per core", want[i].name);
        cr_expect_eq(m.llc.sets_per_slice, 2048u, "%s", want[i].name);
        cr_expect_eq(m.llc.ways, want[i].ways, "%s", want[i].name);
        cr_expect_eq((uint64_t)m.llc.slices * m.llc.sets_per_slice * m.llc.ways * m.llc.line_size, want[i].llc_bytes,
                     "%s", want[i].name);
        cr_expect_eq(m.l2.ways, want[i].l2_ways, "%s", want[i].name);
        cr_expect_eq((uint64_t)m.l2.sets * m.l2.ways * m.l2.line_size, want[i].l2_bytes, "%s", want[i].name);
        cr_expect_eq(m.hierarchy, HIER_NONINCLUSIVE, "%s", want[i].name);
        cr_expect_eq(m.ddio_mask, want[i].ddio, "%s", want[i].name);
        /* the two leftmost ways, as the derived default would give */
        cr_expect_eq(m.ddio_mask, 3u << (want[i].ways - 2), "%s", want[i].name);
        cr_expect_eq(m.shared_mask, want[i].shared, "%s", want[i].name);
        cr_expect_eq(m.cat_class[0], (1u << want[i].ways) - 1, "%s", want[i].name);
        cr_expect_eq(m.llc.mapping, MAP_XOR, "%s: no published slice hash", want[i].name);
        cr_expect_eq(m.pcie.gen, want[i].pcie_gen, "%s", want[i].name);
        cr_expect_eq(m.pcie.lanes, want[i].lanes, "%s", want[i].name);
        cr_expect_float_eq(m.nic.line_rate_gbps, want[i].gbps, 1e-12, "%s", want[i].name);
        cr_expect_eq(m.nic.rx_hold_bytes, 0u, "%s", want[i].name);
        cr_expect_eq(ddio_machine_validate(&m, NULL, &e), 0, "%s: %s", want[i].name, e.msg);
    }
}

Test(configs_files, every_workload_loads_and_fits_every_machine)
{
    for (size_t i = 0; i < NW; i++) {
        ddio_config c;
        ddio_err e = {0};
        ddio_config_default(&c);
        cr_assert_eq(ddio_workload_load(&c.workload, workloads[i], &e), 0, "%s: %s", workloads[i], e.msg);
        cr_assert_str_eq(c.workload.name, workloads[i]);
        for (size_t j = 0; j < NM; j++) {
            cr_assert_eq(ddio_machine_load(&c.machine, machines[j], &e), 0, "%s", e.msg);
            cr_assert_eq(ddio_config_validate(&c, &e), 0, "%s on %s: %s", workloads[i], machines[j], e.msg);
            hier_config hc;
            cr_assert_eq(ddio_config_to_hier(&c, &hc, &e), 0, "%s", e.msg);
            cr_assert_eq(hc.cores, c.workload.cores);
        }
    }
}

Test(configs_files, list_names)
{
    unsetenv("DDIOSIM_CONFIG_DIR");
    char buf[1024];
    ddio_config_list("machines", buf, sizeof buf);
    cr_assert_str_eq(buf, "broadwell-2650v4, cascadelake-6248, icelake-6338, sapphirerapids-6430, skylake-6132, skylake-6140");
    ddio_config_list("workloads", buf, sizeof buf);
    cr_assert_str_eq(buf, "acrobat, firewall, ipsec, l2fwd, l3router, loadbalancer");
}

/* ------------------------------------------------------------ defaults */

Test(configs_defaults, builtin_machine_equals_skylake_6140_json)
{
    ddio_machine def, file;
    ddio_err e = {0};
    ddio_machine_default(&def);
    cr_assert_eq(ddio_machine_load(&file, "skylake-6140", &e), 0, "%s", e.msg);
    char path[256];
    cr_assert_eq(ddio_machine_diff(&def, &file, path, sizeof path), 0, "differs at %s", path);
    cr_assert_eq(ddio_machine_validate(&def, NULL, &e), 0, "%s", e.msg);
}

Test(configs_defaults, builtin_workload_equals_l2fwd_json)
{
    ddio_workload def, file;
    ddio_err e = {0};
    ddio_workload_default(&def);
    cr_assert_eq(ddio_workload_load(&file, "l2fwd", &e), 0, "%s", e.msg);
    char path[256];
    cr_assert_eq(ddio_workload_diff(&def, &file, path, sizeof path), 0, "differs at %s", path);
    cr_assert_eq(ddio_workload_validate(&def, NULL, &e), 0, "%s", e.msg);
}

Test(configs_defaults, diff_names_the_first_difference)
{
    ddio_workload a, b;
    ddio_workload_default(&a);
    ddio_workload_default(&b);
    b.access[1].length = 13;
    char path[256];
    cr_assert_eq(ddio_workload_diff(&a, &b, path, sizeof path), 1);
    cr_assert_str_eq(path, "access[1].length");
    b = a;
    b.driver.tx_ring = 512;
    cr_assert_eq(ddio_workload_diff(&a, &b, path, sizeof path), 1);
    cr_assert_str_eq(path, "driver.tx_ring");
}

/* The default machine is the cache model's own default hierarchy. */
Test(configs_defaults, default_machine_is_hier_config_default)
{
    ddio_machine m;
    ddio_machine_default(&m);
    hier_config mine, theirs;
    ddio_err e = {0};
    cr_assert_eq(machine_to_hier_config(&m, 1, &mine, &e), 0, "%s", e.msg);
    hier_config_default(&theirs);
    cr_assert_eq(memcmp(&mine, &theirs, sizeof mine), 0);
}

Test(configs_defaults, leftmost_ways)
{
    cr_assert_eq(ddio_leftmost_ways(2, 11), 0x600);
    cr_assert_eq(ddio_leftmost_ways(4, 11), 0x780);
    cr_assert_eq(ddio_leftmost_ways(11, 11), 0x7FF);
    cr_assert_eq(ddio_leftmost_ways(2, 20), 0xC0000);
    cr_assert_eq(ddio_leftmost_ways(1, 1), 0x1);
    cr_assert_eq(ddio_leftmost_ways(64, 64), UINT64_MAX);
}

/* Masks left out of a file follow its LLC: two leftmost DDIO ways, two
 * rightmost Shared ways (none when inclusive), one class of all ways. */
Test(configs_defaults, derived_masks_follow_the_llc)
{
    ddio_machine m;
    ddio_err e = {0};
    const char *t1 = "{\"llc\": {\"ways\": 16}}";
    cr_assert_eq(ddio_machine_parse(&m, t1, strlen(t1), "t1", &e), 0, "%s", e.msg);
    cr_assert_eq(m.ddio_mask, 0xC000);
    cr_assert_eq(m.shared_mask, 0x3);
    cr_assert_eq(m.n_classes, 1);
    cr_assert_eq(m.cat_class[0], 0xFFFF);
    const char *t2 = "{\"hierarchy\": \"inclusive\", \"llc\": {\"ways\": 20}, \"ddio_mask\": \"0x3\"}";
    cr_assert_eq(ddio_machine_parse(&m, t2, strlen(t2), "t2", &e), 0, "%s", e.msg);
    cr_assert_eq(m.ddio_mask, 0x3);
    cr_assert_eq(m.shared_mask, 0);
    cr_assert_eq(m.cat_class[0], 0xFFFFF);
}

/* ------------------------------------------------------------ round trips */

static void machine_roundtrip(const ddio_machine *m)
{
    char *text = ddio_machine_to_json(m);
    ddio_machine back;
    ddio_err e = {0};
    cr_assert_eq(ddio_machine_parse(&back, text, strlen(text), "roundtrip", &e), 0, "%s\n%s", e.msg, text);
    char path[256];
    cr_assert_eq(ddio_machine_diff(m, &back, path, sizeof path), 0, "%s: differs at %s", m->name, path);
    free(text);
}

static void workload_roundtrip(const ddio_workload *w)
{
    char *text = ddio_workload_to_json(w);
    ddio_workload back;
    ddio_err e = {0};
    cr_assert_eq(ddio_workload_parse(&back, text, strlen(text), "roundtrip", &e), 0, "%s\n%s", e.msg, text);
    char path[256];
    cr_assert_eq(ddio_workload_diff(w, &back, path, sizeof path), 0, "%s: differs at %s", w->name, path);
    free(text);
}

Test(configs_roundtrip, library_json_of_every_file)
{
    ddio_err e = {0};
    for (size_t i = 0; i < NM; i++) {
        ddio_machine m;
        cr_assert_eq(ddio_machine_load(&m, machines[i], &e), 0, "%s", e.msg);
        machine_roundtrip(&m);
    }
    for (size_t i = 0; i < NW; i++) {
        ddio_workload w;
        cr_assert_eq(ddio_workload_load(&w, workloads[i], &e), 0, "%s", e.msg);
        workload_roundtrip(&w);
    }
}

Test(configs_roundtrip, library_json_after_overrides)
{
    ddio_config c;
    ddio_err e = {0};
    ddio_config_default(&c);
    const char *ov[][2] = {
        {"--ddio-ways", "5"}, {"--policy", "qlru"}, {"--mapping", "random"}, {"--rx-ring", "4096"},
        {"--set", "machine.llc.bip_epsilon=0.1"}, {"--set", "machine.frequency_ghz=2.123456789"},
        {"--set", "workload.distractor.cat_mask=0x00f"}, {"--set", "workload.distractor.working_set=33554432"},
        {"--set", "workload.cycles_per_byte=0.3"}, {"--set", "workload.driver.align_4k=true"},
    };
    for (size_t i = 0; i < sizeof ov / sizeof ov[0]; i++)
        cr_assert_eq(ddio_config_apply_override(&c, ov[i][0], ov[i][1], &e), 0, "%s %s: %s", ov[i][0], ov[i][1],
                     e.msg);
    cr_assert_eq(c.machine.ddio_mask, 0x7C0);
    machine_roundtrip(&c.machine);
    workload_roundtrip(&c.workload);
    /* QLRU names and a duel keep their spelling through JSON; the dueling
     * parameters reach the hierarchy's policies, the L2's too. */
    const char *q[][2] = {
        {"--policy", "qlru_h11_m1_r0_u0"},
        {"--set", "machine.l2.policy=duel:QLRU_H00_M1_R2_U1,QLRU_H00_MR31_R2_U1"},
        {"--set", "machine.llc.duel_leaders=8"}, {"--set", "machine.llc.psel_bits=6"},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        cr_assert_eq(ddio_config_apply_override(&c, q[i][0], q[i][1], &e), 0, "%s %s: %s", q[i][0], q[i][1], e.msg);
    cr_assert_str_eq(c.machine.llc.policy, "qlru_h11_m1_r0_u0");
    machine_roundtrip(&c.machine);
    hier_config h;
    cr_assert_eq(machine_to_hier_config(&c.machine, 2, &h, &e), 0, "%s", e.msg);
    cr_assert_str_eq(h.llc_repl.name, "qlru_h11_m1_r0_u0");
    cr_assert_str_eq(h.l2_repl.name, "duel:QLRU_H00_M1_R2_U1,QLRU_H00_MR31_R2_U1");
    cr_assert(h.l2_repl.duel_leaders == 8 && h.l2_repl.psel_bits == 6 && h.llc_repl.psel_bits == 6);
}

/* ------------------------------------------------------------ overrides */

Test(configs_overrides, resolve_applies_files_then_overrides)
{
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e = {0};
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_MACHINE, "skylake-6132", &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_WORKLOAD, "acrobat", &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_RX_RING, "1024", &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_CORES, "2", &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_DDIO_WAYS, "3", &e), 0);
    cr_assert_eq(ddio_config_args_add(&a, DDIO_CFG_OPT_SET, "machine.llc.ways=12", &e), 0);
    ddio_config c;
    ddio_config_origin org;
    cr_assert_eq(ddio_config_resolve(&a, &c, &org, &e), 0, "%s", e.msg);
    cr_assert_str_eq(c.machine.name, "skylake-6132");
    cr_assert_eq(c.workload.driver.rx_ring, 1024);
    cr_assert_eq(c.workload.driver.tx_ring, 512);
    cr_assert_eq(c.workload.cores, 2);
    /* --ddio-ways counts against the final LLC (12 ways, set later on the line). */
    cr_assert_eq(c.machine.ddio_mask, 0xE00);
    /* The file gave the Shared and CAT masks, so they do not follow the ways. */
    cr_assert_eq(c.machine.cat_class[0], 0x7FF);
    const cfg_table *wt = ddio_workload_table(), *mt = ddio_machine_table();
    cr_assert_str_eq(org.workload[cfg_index(wt, "driver.rx_ring")], "--rx-ring");
    cr_assert_str_eq(org.workload[cfg_index(wt, "driver.tx_ring")], "file");
    cr_assert_str_eq(org.machine[cfg_index(mt, "ddio_mask")], "--ddio-ways");
    cr_assert_str_eq(org.machine[cfg_index(mt, "llc.ways")], "--set");
    ddio_config_args_init(&a);
    cr_assert_eq(ddio_config_resolve(&a, &c, &org, &e), 0, "%s", e.msg);
    cr_assert_str_eq(org.machine[cfg_index(mt, "cores")], "default");
    cr_assert_str_eq(org.machine[cfg_index(mt, "ddio_mask")], "derived");
    cr_assert_str_eq(c.machine_file, "(built-in)");
}

Test(configs_overrides, apply_override_keeps_config_on_error)
{
    ddio_config c, before;
    ddio_err e = {0};
    ddio_config_default(&c);
    before = c;
    cr_assert_eq(ddio_config_apply_override(&c, "--rx-ring", "16", &e), -1);
    cr_assert_str_eq(e.msg, "--rx-ring: burst 32 is larger than the RX ring (16 descriptors)");
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_assert_eq(memcmp(&c, &before, sizeof c), 0);
    cr_assert_eq(ddio_config_apply_override(&c, "--burst", "16", &e), 0, "%s", e.msg);
    cr_assert_eq(ddio_config_apply_override(&c, "--rx-ring", "16", &e), 0, "%s", e.msg);
    cr_assert_eq(c.workload.driver.rx_ring, 16);
    cr_assert_eq(ddio_config_apply_override(&c, "--machine", "x", &e), -1);
    cr_assert_str_eq(e.msg, "--machine: not an override option");
}

Test(configs_overrides, config_dir_is_searched_first)
{
    char dir[] = "/tmp/ddiosim-cfgdir-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sub[300], file[400];
    snprintf(sub, sizeof sub, "%s/machines", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    snprintf(file, sizeof file, "%s/skylake-6140.json", sub);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fputs("{\"name\": \"mine\", \"cores\": 4}\n", f);
    fclose(f);
    setenv("DDIOSIM_CONFIG_DIR", dir, 1);
    ddio_machine m;
    ddio_err e = {0};
    char path[1024];
    cr_assert_eq(ddio_config_find("machines", "skylake-6140", path, sizeof path, &e), 0, "%s", e.msg);
    cr_assert_str_eq(path, file);
    cr_assert_eq(ddio_machine_load(&m, "skylake-6140", &e), 0, "%s", e.msg);
    cr_assert_str_eq(m.name, "mine");
    cr_assert_eq(m.cores, 4);
    /* Names not in the directory still come from the source tree. */
    cr_assert_eq(ddio_machine_load(&m, "skylake-6132", &e), 0, "%s", e.msg);
    cr_assert_eq(m.cores, 14);
    unsetenv("DDIOSIM_CONFIG_DIR");
    unlink(file);
    rmdir(sub);
    rmdir(dir);
}

/* ------------------------------------------------------------ lines touched */

static size_t expand(const ddio_workload *w, uint32_t len, uint32_t first, char *out, size_t cap)
{
    ddio_line_op ops[256];
    size_t n = ddio_workload_expand(w, len, 64, first, ops, 256);
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && i < 256; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%c%u", i ? " " : "", "RWF"[ops[i].op], ops[i].line);
    return n;
}

Test(configs_access, l2fwd_touches_the_first_line)
{
    ddio_workload w;
    ddio_workload_default(&w);
    char s[2048];
    cr_assert_eq(expand(&w, 1500, 0, s, sizeof s), 2);
    cr_assert_str_eq(s, "R0 W0");
    cr_assert_eq(expand(&w, 64, 60, s, sizeof s), 4);   /* MAC bytes straddle two lines */
    cr_assert_str_eq(s, "R0 R1 W0 W1");
    ddio_touch t;
    ddio_workload_touch(&w, 1500, 64, 0, &t);
    cr_assert_eq(t.lines, 24);
    cr_assert_eq(t.read, 1);
    cr_assert_eq(t.written, 1);
    cr_assert_eq(t.touched, 1);
}

Test(configs_access, acrobat_follows_algorithm_1)
{
    ddio_workload w;
    ddio_err e = {0};
    cr_assert_eq(ddio_workload_load(&w, "acrobat", &e), 0, "%s", e.msg);
    char s[2048];
    /* 1472 B: set_mac writes line 0; write_ratio 0.2 = ceil(294.4) = 295 bytes
     * = lines 0-4 (line 0 already written). */
    cr_assert_eq(expand(&w, 1472, 0, s, sizeof s), 5);
    cr_assert_str_eq(s, "W0 W1 W2 W3 W4");
    /* read 0.1, write 0.2, flush 0.3 of 640 B: [0,64) [64,192) [192,384). */
    w.access[1].length = 0.1;
    w.access[3].length = 0.3;
    cr_assert_eq(expand(&w, 640, 0, s, sizeof s), 7);
    cr_assert_str_eq(s, "W0 R0 W1 W2 F3 F4 F5");
    ddio_touch t;
    ddio_workload_touch(&w, 640, 64, 0, &t);
    cr_assert_eq(t.lines, 10);
    cr_assert_eq(t.read, 1);
    cr_assert_eq(t.written, 3);
    cr_assert_eq(t.flushed, 3);
    cr_assert_eq(t.touched, 3);
    /* ceil(0.7 x 100) is 70 bytes, not 71 (floating-point slack). */
    w.n_access = 1;
    w.access[0] = (ddio_segment){.op = DDIO_SEG_READ, .unit = DDIO_UNIT_RATIO, .length = 0.7};
    cr_assert_eq(expand(&w, 100, 58, s, sizeof s), 2);   /* bytes 58..127 of the line grid */
    cr_assert_str_eq(s, "R0 R1");
    cr_assert_eq(expand(&w, 100, 59, s, sizeof s), 3);
}

Test(configs_access, ipsec_rewrites_the_whole_packet)
{
    ddio_workload w;
    ddio_err e = {0};
    cr_assert_eq(ddio_workload_load(&w, "ipsec", &e), 0, "%s", e.msg);
    ddio_touch t;
    ddio_workload_touch(&w, 1500, 64, 0, &t);
    cr_assert_eq(t.lines, 24);
    cr_assert_eq(t.read, 24);
    cr_assert_eq(t.written, 24);
    cr_assert_eq(t.touched, 24);
    char s[4096];
    cr_assert_eq(expand(&w, 130, 0, s, sizeof s), 6);
    cr_assert_str_eq(s, "R0 R1 R2 W0 W1 W2");
    cr_assert_float_eq(ddio_workload_cycles(&w, 603), 500.0 + 603.0, 1e-9);
    cr_assert_eq(ddio_workload_table_lines(&w), 4);
}

/* The L2 prefetcher's reads (ddio_packet_ops), as "P<line>" after the
 * workload's own ops. */
static size_t packet_ops(const ddio_machine *m, const ddio_workload *w, uint32_t len, uint32_t first, char *out,
                         size_t cap_ops)
{
    ddio_line_op ops[256];
    size_t n = ddio_packet_ops(m, w, len, 64, first, ops, cap_ops);
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && i < cap_ops; i++) {
        cr_assert(!ops[i].prefetch || ops[i].op == DDIO_SEG_READ);
        k += (size_t)snprintf(out + k, 2048 - k, "%s%c%u", i ? " " : "", ops[i].prefetch ? 'P' : "RWF"[ops[i].op],
                              ops[i].line);
    }
    return n;
}

Test(configs_access, l2_prefetcher_reads_the_next_lines_of_the_packet)
{
    ddio_machine m;
    ddio_workload w;
    ddio_machine_default(&m);
    ddio_workload_default(&w);
    char s[2048];
    /* Off: the workload's ops alone, in the same order. */
    cr_assert_eq(m.l2.prefetch_lines, 0);
    cr_assert_eq(packet_ops(&m, &w, 1500, 0, s, 256), 2);
    cr_assert_str_eq(s, "R0 W0");
    /* l2fwd touches line 0: the prefetcher reads lines 1 and 2, once. */
    m.l2.prefetch_lines = 2;
    cr_assert_eq(packet_ops(&m, &w, 1500, 0, s, 256), 4);
    cr_assert_str_eq(s, "R0 W0 P1 P2");
    /* Not beyond the packet: 100 bytes are lines 0 and 1. */
    m.l2.prefetch_lines = 4;
    cr_assert_eq(packet_ops(&m, &w, 100, 0, s, 256), 3);
    cr_assert_str_eq(s, "R0 W0 P1");
    /* The MAC bytes straddle lines 0 and 1 (60 bytes in): the core touches
     * both, so the prefetcher adds only lines 2..5, each once. */
    cr_assert_eq(packet_ops(&m, &w, 1500, 60, s, 256), 8);
    cr_assert_str_eq(s, "R0 R1 W0 W1 P2 P3 P4 P5");
    /* A line the core touches itself is not prefetched, nor one it flushes
     * (the prefetches come after the packet's ops and would undo the
     * flush); a flush does not train the prefetcher.  Workload: read line
     * 0, read line 3, flush line 6. */
    w.n_access = 3;
    w.access[0] = (ddio_segment){.op = DDIO_SEG_READ, .offset = 0, .unit = DDIO_UNIT_BYTES, .length = 1};
    w.access[1] = (ddio_segment){.op = DDIO_SEG_READ, .offset = 192, .unit = DDIO_UNIT_BYTES, .length = 1};
    w.access[2] = (ddio_segment){.op = DDIO_SEG_FLUSH, .offset = 384, .unit = DDIO_UNIT_BYTES, .length = 1};
    m.l2.prefetch_lines = 3;
    cr_assert_eq(packet_ops(&m, &w, 1500, 0, s, 256), 7);
    cr_assert_str_eq(s, "R0 R3 F6 P1 P2 P4 P5");
    w.access[2].offset = 1408;   /* the flush on line 22: line 6 is free, 23-25 are not trained */
    cr_assert_eq(packet_ops(&m, &w, 1500, 0, s, 256), 8);
    cr_assert_str_eq(s, "R0 R3 F22 P1 P2 P4 P5 P6");
    /* The cap: the count is returned, at most cap entries written. */
    cr_assert_eq(packet_ops(&m, &w, 1500, 0, s, 4), 8);
    cr_assert_str_eq(s, "R0 R3 F22 P1");
}

Test(configs_access, mempool_size)
{
    ddio_workload w;
    ddio_err e = {0};
    ddio_workload_default(&w);
    cr_assert_eq(ddio_workload_mempool_size(&w), 65535);
    cr_assert_eq(ddio_workload_load(&w, "acrobat", &e), 0, "%s", e.msg);
    /* 4 x (512 + 512 + 0 + 32 + 256) = 5248 -> the 8192 floor. */
    cr_assert_eq(ddio_workload_mempool_size(&w), 8192);
    w.driver.rx_ring = 4096;
    /* 4 x (4096 + 512 + 32 + 256) = 19584. */
    cr_assert_eq(ddio_workload_mempool_size(&w), 19584);
}

/* ------------------------------------------------------------ hierarchy */

Test(configs_hier, distractor_gets_a_core_and_a_class)
{
    ddio_config c;
    ddio_err e = {0};
    ddio_config_default(&c);
    cr_assert_eq(ddio_config_apply_override(&c, "--cores", "3", &e), 0, "%s", e.msg);
    cr_assert_eq(ddio_config_apply_override(&c, "--set", "workload.distractor.cat_mask=0x00f", &e), 0, "%s", e.msg);
    cr_assert_eq(ddio_config_apply_override(&c, "--set", "workload.distractor.working_set=8388608", &e), 0, "%s",
                 e.msg);
    hier_config hc;
    cr_assert_eq(ddio_config_to_hier(&c, &hc, &e), 0, "%s", e.msg);
    cr_assert_eq(hc.cores, 4);
    cr_assert_eq(hc.n_cos, 2);
    cr_assert_eq(hc.cos_mask[1], 0xF);
    cr_assert_eq(hc.core_cos[0], 0);
    cr_assert_eq(hc.core_cos[2], 0);
    cr_assert_eq(hc.core_cos[3], 1);
}

Test(configs_hier, core_class_map)
{
    ddio_machine m;
    ddio_err e = {0};
    const char *t = "{\"cat\": {\"classes\": [\"0x7ff\", \"0x0f0\"], \"core_class\": [1, 0, 1]},"
                    " \"llc\": {\"policy\": \"qlru\", \"mapping\": \"random\"}}";
    cr_assert_eq(ddio_machine_parse(&m, t, strlen(t), "t", &e), 0, "%s", e.msg);
    hier_config hc;
    cr_assert_eq(machine_to_hier_config(&m, 4, &hc, &e), 0, "%s", e.msg);
    cr_assert_eq(hc.n_cos, 2);
    cr_assert_eq(hc.cos_mask[1], 0xF0);
    uint8_t want[4] = {1, 0, 1, 0};
    cr_assert_eq(memcmp(hc.core_cos, want, 4), 0);
    cr_assert_str_eq(hc.llc_repl.name, "qlru");
    cr_assert_eq(hc.llc.mapping, MAP_RANDOM);
    cr_assert_eq(machine_to_hier_config(&m, 19, &hc, &e), -1);
    cr_assert_str_eq(e.msg, "cores: 19 is out of range [1, 18] (machine skylake-6140)");
}
