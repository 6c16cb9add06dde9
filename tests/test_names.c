/* test_names.c - the output naming convention (docs/conventions.md,
 * "Output names and units"): the one table of old names, that the docs
 * list it whole, that no output column breaks the rule, and that the exit
 * codes are documented where a user looks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/err.h"
#include "sim/common/names.h"
#include "tests/helpers.h"

static char *source_file(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", DDIOSIM_SOURCE_DIR, rel);
    char *t = slurp(p, NULL);
    cr_assert(t, "%s", p);
    return t;
}

Test(names, old_names_map_to_new_ones)
{
    cr_expect_str_eq(ddio_name_current("sim_mem_gbps"), "sim_mem_gbyte_s");
    cr_expect_str_eq(ddio_name_current("model_pcie_write_lower"), "model_pcie_write_hit_frac_lower");
    cr_expect_str_eq(ddio_name_current("drop_rate"), "drop_frac");
    cr_expect_str_eq(ddio_name_current("sim_throughput_gbps"), "sim_throughput_gbps");   /* Gb/s: kept */
    cr_expect_str_eq(ddio_name_current("rx_ring"), "rx_ring");
    cr_expect(ddio_name_same("model_pcie_read_hit", "model_pcie_read_hit_frac"));
    cr_expect(ddio_name_same("sim_gbps", "sim_throughput_gbps"));
    cr_expect(!ddio_name_same("sim_mem_gbps", "sim_mem_write_gbyte_s"));
    /* no new name is an old one: one lookup is enough */
    size_t n;
    const ddio_rename *t = ddio_name_table(&n);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(ddio_name_current(t[i].new_name), t[i].new_name, "%s", t[i].new_name);
}

Test(names, conventions_lists_every_rename)
{
    char *doc = source_file("docs/conventions.md");
    size_t n;
    const ddio_rename *t = ddio_name_table(&n);
    for (size_t i = 0; i < n; i++) {
        char row[200];
        snprintf(row, sizeof row, "| `%s` | `%s` |", t[i].old_name, t[i].new_name);
        cr_expect(strstr(doc, row), "docs/conventions.md has no row %s", row);
    }
    free(doc);
}

/* A column named against the rule: a hit rate without its unit, GB/s
 * under _gbps, percentage points under _pp. */
static int breaks_rule(const char *c, size_t len)
{
    static const char *const bad_end[] = {"_hit", "_rate", "_pp", "_lower", "_upper", "mem_gbps", "mem_write_gbps"};
    for (size_t i = 0; i < sizeof bad_end / sizeof bad_end[0]; i++) {
        size_t k = strlen(bad_end[i]);
        if (len >= k && strncmp(c + len - k, bad_end[i], k) == 0 &&
            !(k == 6 && len >= 15 && strncmp(c + len - 15, "_hit_frac", 9) == 0))   /* _hit_frac_lower */
            return 1;
    }
    return 0;
}

static void expect_header_follows_rule(const char *header)
{
    for (const char *c = header; *c && *c != '\n';) {
        size_t len = strcspn(c, ",\n");
        cr_expect(!breaks_rule(c, len), "column %.*s breaks the naming rule", (int)len, c);
        c += len + (c[len] == ',');
    }
}

Test(names, sweep_and_validate_columns_follow_the_rule, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    sweep_and_validate_csv(dir, "{\"fixed\": {\"pkt_size\": 1500, \"rate\": 10}, \"grid\": {\"ddio_ways\": [2]}}",
                           "--packets 2000");
    char p[128];
    snprintf(p, sizeof p, "%s/r.csv", dir);
    char *sweep = slurp(p, NULL);
    snprintf(p, sizeof p, "%s/v.csv", dir);
    char *val = slurp(p, NULL);
    cr_assert(sweep && val);
    cr_expect_eq(strncmp(sweep, "id,", 3), 0, "a plain table: %.40s", sweep);
    expect_header_follows_rule(sweep);
    expect_header_follows_rule(val);
    /* the same figure, the same name */
    cr_expect(strstr(sweep, ",sim_throughput_gbps,") && strstr(val, ",sim_throughput_gbps,"));
    cr_expect(strstr(sweep, ",sim_q_rx,") && strstr(val, ",sim_q_rx,"));
    cr_expect(strstr(sweep, ",model_pcie_write_hit_frac_lower,") && strstr(val, ",model_hit_frac_lower,"));
    free(sweep);
    free(val);
    rm_rf(dir);
}

/* Every exit code is in the man page's EXIT STATUS and in the table of
 * docs/conventions.md. */
Test(names, exit_codes_are_documented)
{
    char *man = source_file("docs/ddiosim.1"), *conv = source_file("docs/conventions.md");
    const char *exits = strstr(man, ".SH EXIT STATUS");
    cr_assert(exits);
    const char *end = strstr(exits + 1, ".SH ");
    static const char *const in_man[] = {"0 success", "1 I/O", "2 bad command line", "3 the model",
                                         "4 validate could not", "5 validate: an accuracy figure",
                                         "6 advise: no point"};
    for (int k = DDIO_EXIT_OK; k <= DDIO_EXIT_INFEASIBLE; k++) {
        const char *at = strstr(exits, in_man[k]);
        cr_expect(at && (!end || at < end), "the man page's EXIT STATUS has no '%s'", in_man[k]);
        char row[32];
        snprintf(row, sizeof row, "\n| %d | `", k);
        cr_expect(strstr(conv, row), "docs/conventions.md has no row for exit %d", k);
    }
    free(man);
    free(conv);
}
