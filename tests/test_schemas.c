/* test_schemas.c - every JSON output meets its schema in docs/schemas/
 * (docs/conventions.md, "Output names and units"), checked by the subset
 * checker of tests/schema.h; and that checker refuses what it must. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tests/helpers.h"
#include "tests/schema.h"

static cJSON *load_schema(const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/docs/schemas/%s.schema.json", DDIOSIM_SOURCE_DIR, name);
    char *t = slurp(p, NULL);
    cr_assert(t, "%s", p);
    cJSON *s = cJSON_Parse(t);
    cr_assert(s, "%s: not JSON", p);
    free(t);
    return s;
}

/* text parsed meets docs/schemas/NAME.schema.json, and its provenance is
 * this binary's. */
static void expect_meets(const char *name, const char *text, const char *what)
{
    cJSON *doc = cJSON_Parse(text), *s = load_schema(name);
    cr_assert(doc, "%s: not JSON: %.200s", what, text);
    char why[512];
    cr_expect_eq(schema_check(s, doc, why, sizeof why), 0, "%s: %s", what, why);
    const cJSON *p = cJSON_GetObjectItem(doc, "ddiosim");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "version")), DDIOSIM_VERSION, "%s", what);
    cr_expect_eq(strncmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "command")), "ddiosim ", 8), 0, "%s", what);
    cr_expect_eq(doc->child, p, "%s: the provenance is not the first member", what);
    cJSON_Delete(doc);
    cJSON_Delete(s);
}

static void expect_command_meets(const char *name, const char *args)
{
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    expect_meets(name, r.out, args);
    cli_run_free(&r);
}

#define SMALL "--packets 3000 --set machine.llc.sets_per_slice=64 --set machine.llc.mapping=xor --format json"

Test(schemas, simulate_and_predict, .timeout = 120)
{
    expect_command_meets("simulate", "simulate " SMALL);
    expect_command_meets("simulate", "simulate --no-model " SMALL);
    expect_command_meets("predict", "predict --format json");
    expect_command_meets("predict", "predict --from-sim --explain " SMALL);
}

Test(schemas, traces_caches_and_rss, .timeout = 120)
{
    char args[512];
    snprintf(args, sizeof args, "trace stats --format json '%s/traces/samples/imix-10k.pcap'", DDIOSIM_SOURCE_DIR);
    expect_command_meets("trace-stats", args);
    snprintf(args, sizeof args, "cache-replay --sets 64 --format json '%s/traces/samples/ddio-ring.din'",
             DDIOSIM_SOURCE_DIR);
    expect_command_meets("cache-replay", args);
    expect_command_meets("rss", "rss --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --src-port 1 --dst-port 2 --format json");
    expect_command_meets("rss", "rss --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --format json");
}

Test(schemas, advise_validate_and_the_sidecars, .timeout = 120)
{
    char dir[64], args[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(args, sizeof args, "advise --spec '%s/configs/sweeps/fig17-advise.json' --engine model --format json",
             DDIOSIM_SOURCE_DIR);
    expect_command_meets("advise", args);
    snprintf(args, sizeof args, "validate --engine model --jobs 1 --measured '%s/validate/data/ddio-bench/cores' "
             "--format json", DDIOSIM_SOURCE_DIR);
    expect_command_meets("validate", args);
    sweep_and_validate_csv(dir, "{\"fixed\": {\"pkt_size\": 1500}, \"grid\": {\"ddio_ways\": [2, 4]}}",
                           "--engine model");
    char p[128];
    snprintf(p, sizeof p, "%s/r.csv.meta.json", dir);
    char *t = slurp(p, NULL);
    expect_meets("sweep-meta", t, p);
    free(t);
    snprintf(p, sizeof p, "%s/v.csv.meta.json", dir);
    t = slurp(p, NULL);
    expect_meets("csv-meta", t, p);
    free(t);
    rm_rf(dir);
}

/* The command line reads back as the words given: quoted where a shell
 * needs it. */
Test(schemas, the_command_is_shell_quoted)
{
    cli_run r = run_ddiosim("rss --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --key "
                            "'6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa' "
                            "--format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "ddiosim"), "command")),
                     "ddiosim rss --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --key "
                     "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa --format json");
    cJSON_Delete(j);
    cli_run_free(&r);
}

/* ------------------------------------------------ the checker itself */

static const char tiny[] =
    "{\"$defs\": {\"frac\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}},"
    " \"type\": \"object\", \"required\": [\"a_frac\", \"kind\"], \"additionalProperties\": false,"
    " \"properties\": {\"a_frac\": {\"$ref\": \"#/$defs/frac\"}, \"kind\": {\"enum\": [\"x\", \"y\"]},"
    "   \"n\": {\"type\": \"integer\"}, \"list\": {\"type\": \"array\", \"items\": {\"type\": [\"string\", \"null\"]}}}}";

/* The checker's verdict on doc against schema: "" when it meets it. */
static const char *verdict(const char *schema, const char *doc, char *why, size_t cap)
{
    cJSON *s = cJSON_Parse(schema), *d = cJSON_Parse(doc);
    cr_assert(s && d, "%s / %s", schema, doc);
    if (schema_check(s, d, why, cap) == 0)
        cr_expect_str_eq(why, "");
    cJSON_Delete(s);
    cJSON_Delete(d);
    return why;
}

Test(schemas, the_checker_refuses_what_it_must)
{
    static const char *const cases[][2] = {
        {"{\"a_frac\": 0.5, \"kind\": \"x\", \"n\": 3, \"list\": [\"s\", null]}", ""},
        {"{\"kind\": \"x\"}", "$: missing required key a_frac"},
        {"{\"a_frac\": 1.5, \"kind\": \"x\"}", "$.a_frac: above the maximum"},
        {"{\"a_frac\": -0.1, \"kind\": \"x\"}", "$.a_frac: below the minimum"},
        {"{\"a_frac\": \"half\", \"kind\": \"x\"}", "$.a_frac: not of type number"},
        {"{\"a_frac\": 0.5, \"kind\": \"z\"}", "$.kind: not one of the enum"},
        {"{\"a_frac\": 0.5, \"kind\": \"x\", \"n\": 2.5}", "$.n: not of type integer"},
        {"{\"a_frac\": 0.5, \"kind\": \"x\", \"list\": [\"s\", 3]}", "$.list[1]: not of any type listed"},
        {"{\"a_frac\": 0.5, \"kind\": \"x\", \"a_rate\": 0.5}", "$.a_rate: a key the schema does not allow"},
        {"[]", "$: not of type object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256];
        cr_expect_str_eq(verdict(tiny, cases[i][0], why, sizeof why), cases[i][1], "%s", cases[i][0]);
    }
    char why[256];
    cr_expect_str_eq(verdict("{\"$ref\": \"#/$defs/none\"}", "1", why, sizeof why), "$: unresolved $ref #/$defs/none");
    cr_expect_str_eq(verdict("{\"pattern\": \"^a\"}", "\"a\"", why, sizeof why),
                     "$: the schema uses a keyword this checker does not know: pattern");
}

/* An output missing a key its schema requires is refused: the schemas
 * check something. */
Test(schemas, an_output_without_a_required_key_fails, .timeout = 60)
{
    cli_run r = run_ddiosim("rss --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out), *s = load_schema("rss");
    char why[256];
    cr_expect_eq(schema_check(s, doc, why, sizeof why), 0, "%s", why);
    cJSON_DeleteItemFromObject(doc, "ddiosim");
    cr_expect_eq(schema_check(s, doc, why, sizeof why), -1);
    cr_expect_str_eq(why, "$: missing required key ddiosim");
    cJSON_Delete(doc);
    cJSON_Delete(s);
    cli_run_free(&r);
}
