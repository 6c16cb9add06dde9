/* test_api.c - the library's C API (sim/api/ddiosim.h, docs/api.md): each
 * engine returns the very document its command writes with --format json
 * for the same options, an inline machine is the file it came from, and
 * bad requests give the documented status and a message naming the key. */
#include "tests/helpers.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/api/ddiosim.h"

#define REPLAY_TRACE DDIOSIM_SOURCE_DIR "/traces/samples/ddio-ring.din"
#define EXPERIMENT DDIOSIM_SOURCE_DIR "/validate/data/ddio-bench/cores"

/* Whether a equals b but where the two runs of the CLI, c1 and c2,
 * differ (the wall-clock figures: wall time, solve time, simulated packets
 * per second of wall time), without naming those keys.  The top-level
 * "ddiosim" object, the provenance, holds the command line, which the
 * library spells its own way (--key=value). */
static int same_but_clock(const cJSON *a, const cJSON *b, const cJSON *c1, const cJSON *c2, int top)
{
    if (!cJSON_IsObject(b) && !cJSON_IsArray(b))
        return cJSON_Compare(c1, c2, 1) ? cJSON_Compare(a, b, 1) : 1;
    if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b) || (cJSON_IsObject(a) != cJSON_IsObject(b)))
        return 0;
    const cJSON *x = a->child, *y = b->child, *z = c2->child;
    for (; x && y && z; x = x->next, y = y->next, z = z->next) {
        if (cJSON_IsObject(b) && (strcmp(x->string, y->string) != 0))
            return 0;
        if (top && strcmp(y->string, "ddiosim") == 0)
            continue;
        if (!same_but_clock(x, y, y, z, 0))
            return 0;
    }
    return 1;
}

/* The library's result for `request` against `ddiosim ARGS --format json`
 * run twice. */
static void expect_same_as_cli(int (*fn)(const char *, char **, char *, size_t), const char *request,
                               const char *args)
{
    char err[512], *out = NULL, cmd[1024];
    int rc = fn(request, &out, err, sizeof err);
    cr_assert_eq(rc, DDIOSIM_OK, "%s: %d %s", request, rc, err);
    cr_assert_str_eq(err, "");
    snprintf(cmd, sizeof cmd, "%s --format json", args);
    cJSON *c1 = run_ddiosim_json(cmd), *c2 = run_ddiosim_json(cmd), *a = cJSON_Parse(out);
    cr_assert(a, "not JSON: %s", out);
    char *ta = cJSON_Print(a), *tc = cJSON_Print(c1);
    cr_expect(same_but_clock(a, c1, c1, c2, 1), "library:\n%s\nCLI:\n%s", ta, tc);
    cr_expect_eq(out[strlen(out) - 1], '\n');   /* the CLI's bytes, its newline too */
    free(ta);
    free(tc);
    cJSON_Delete(a);
    cJSON_Delete(c1);
    cJSON_Delete(c2);
    ddiosim_free(out);
}

Test(api, predict_is_the_cli_document)
{
    expect_same_as_cli(ddiosim_predict, "{\"machine\": \"skylake-6132\", \"rx_ring\": 512, \"cores\": 2}",
                       "predict --machine skylake-6132 --rx-ring 512 --cores 2");
    expect_same_as_cli(ddiosim_predict, NULL, "predict");
    expect_same_as_cli(ddiosim_predict, "{\"queues\": \"10,20,5,5\", \"model\": \"per-line\", \"explain\": true, "
                                        "\"per-queue\": false, \"set\": [\"machine.llc.ways=12\", "
                                        "\"workload.cores=1\"]}",
                       "predict --queues 10,20,5,5 --model per-line --explain --set machine.llc.ways=12 "
                       "--set workload.cores=1");
}

Test(api, simulate_is_the_cli_document, .timeout = 120)
{
    expect_same_as_cli(ddiosim_simulate, "{\"packets\": 20000, \"profile\": \"imix\", \"seed\": 7}",
                       "simulate --packets 20000 --profile imix --seed 7");
}

Test(api, cache_replay_is_the_cli_document)
{
    expect_same_as_cli(ddiosim_cache_replay, "{\"trace\": \"" REPLAY_TRACE "\", \"ways\": 8, \"policy\": \"lru\"}",
                       "cache-replay --ways 8 --policy lru " REPLAY_TRACE);
}

Test(api, validate_is_the_cli_document, .timeout = 120)
{
    expect_same_as_cli(ddiosim_validate, "{\"engine\": \"model\", \"measured\": [\"" EXPERIMENT "\"]}",
                       "validate --engine model --measured " EXPERIMENT);
}

/* A machine given inline is the file it came from. */
Test(api, an_inline_machine_is_its_file)
{
    char *text = slurp(DDIOSIM_SOURCE_DIR "/configs/machines/skylake-6132.json", NULL);
    cr_assert(text);
    char *req = malloc(strlen(text) + 64), err[512], *out = NULL;
    sprintf(req, "{\"machine\": %s, \"rx-ring\": 256}", text);
    cr_assert_eq(ddiosim_predict(req, &out, err, sizeof err), DDIOSIM_OK, "%s", err);
    cJSON *a = cJSON_Parse(out), *c = run_ddiosim_json("predict --machine skylake-6132 --rx-ring 256 --format json");
    cJSON *c2 = run_ddiosim_json("predict --machine skylake-6132 --rx-ring 256 --format json");
    cr_expect(same_but_clock(a, c, c, c2, 1), "%s", out);
    cJSON_Delete(a);
    cJSON_Delete(c);
    cJSON_Delete(c2);
    ddiosim_free(out);
    free(req);
    free(text);
}

typedef struct bad_request {
    int (*fn)(const char *, char **, char *, size_t);
    const char *request;
    int status;
    const char *want;       /* in the message */
} bad_request;

Test(api, bad_requests_name_their_key)
{
    static const bad_request cases[] = {
        {ddiosim_predict, "[1]", DDIOSIM_E_REQUEST, "request: not a JSON object"},
        {ddiosim_predict, "{\"rx_ring\": ", DDIOSIM_E_REQUEST, "request: not a JSON object"},
        {ddiosim_predict, "{\"rx_ring\": 500}", DDIOSIM_E_REQUEST, "--rx-ring: 500 is not a power of two"},
        {ddiosim_predict, "{\"rx_ring\": true}", DDIOSIM_E_REQUEST, "option '--rx-ring' needs a value"},
        {ddiosim_predict, "{\"bogus\": 1}", DDIOSIM_E_REQUEST, "unknown option '--bogus=1'"},
        {ddiosim_predict, "{\"Rx Ring\": 1}", DDIOSIM_E_REQUEST, "request key 'Rx Ring': not an option name"},
        {ddiosim_predict, "{\"output\": \"x.json\"}", DDIOSIM_E_REQUEST, "request key 'output': not offered"},
        {ddiosim_predict, "{\"format\": \"table\"}", DDIOSIM_E_REQUEST, "request key 'format': not offered"},
        {ddiosim_predict, "{\"help\": true}", DDIOSIM_E_REQUEST, "request key 'help': not offered"},
        {ddiosim_predict, "{\"rx_ring\": [512, [1]]}", DDIOSIM_E_REQUEST, "rx_ring: expected a string or a number"},
        {ddiosim_predict, "{\"machine\": \"no-such-machine\"}", DDIOSIM_E_REQUEST, "no-such-machine"},
        {ddiosim_predict, "{\"max-iter\": 1}", DDIOSIM_E_NOCONV, ""},
        {ddiosim_simulate, "{\"packets\": -5}", DDIOSIM_E_REQUEST, "--packets"},
        {ddiosim_cache_replay, "{}", DDIOSIM_E_REQUEST, "trace: missing"},
        {ddiosim_cache_replay, "{\"trace\": \"-\"}", DDIOSIM_E_REQUEST, "trace: '-'"},
        {ddiosim_cache_replay, "{\"trace\": \"/nonexistent/t.din\"}", DDIOSIM_E_REQUEST,
         "/nonexistent/t.din: cannot open"},
        {ddiosim_validate, "{\"fit\": \"machine.llc.slices=2:60\", \"engine\": \"model\"}", DDIOSIM_E_REQUEST,
         "request key 'fit': not offered"},
        /* getopt_long takes an unambiguous prefix: a prefix of a refused option is refused */
        {ddiosim_predict, "{\"forma\": \"table\"}", DDIOSIM_E_REQUEST, "request key 'forma': not offered"},
        {ddiosim_predict, "{\"he\": true}", DDIOSIM_E_REQUEST, "request key 'he': not offered"},
        {ddiosim_validate, "{\"fi\": \"x\", \"engine\": \"model\"}", DDIOSIM_E_REQUEST,
         "request key 'fi': not offered"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static char untouched[] = "untouched";
        char err[512], *out = untouched;
        int rc = cases[i].fn(cases[i].request, &out, err, sizeof err);
        cr_expect_eq(rc, cases[i].status, "%s: status %d, want %d (%s)", cases[i].request, rc, cases[i].status, err);
        cr_expect(strstr(err, cases[i].want), "%s: '%s' lacks '%s'", cases[i].request, err, cases[i].want);
        cr_expect(!strchr(err, '\n'), "%s: not one line: %s", cases[i].request, err);
        cr_expect_null(out, "%s: a result on error", cases[i].request);
        ddiosim_free(out == untouched ? NULL : out);
    }
}

/* A success's warnings (what the CLI prints on stderr) come back in err. */
Test(api, warnings_come_back_in_err_on_success)
{
    char err[512] = "x", *out = NULL;
    cr_assert_eq(ddiosim_predict("{\"rate\": 1000}", &out, err, sizeof err), DDIOSIM_OK, "%s", err);
    cr_expect(strstr(err, "--rate 1000 Gb/s is above the NIC's 100 Gb/s line rate"), "%s", err);
    cr_expect(strchr(err, '\n') != NULL, "each warning ends in a newline: %s", err);
    ddiosim_free(out);
    out = NULL;
    cr_assert_eq(ddiosim_predict("{\"rx_ring\": 512}", &out, err, sizeof err), DDIOSIM_OK, "%s", err);
    cr_expect_str_eq(err, "");
    ddiosim_free(out);
}

Test(api, null_arguments_are_errors_not_crashes)
{
    char err[64];
    cr_expect_eq(ddiosim_predict("{}", NULL, err, sizeof err), DDIOSIM_E_REQUEST);
    cr_expect_str_eq(err, "result_json: NULL");
    char *out = NULL;
    cr_expect_eq(ddiosim_predict("{\"rx_ring\": 3}", &out, NULL, 0), DDIOSIM_E_REQUEST);
    char tiny[8];
    cr_expect_eq(ddiosim_predict("{\"rx_ring\": 3}", &out, tiny, sizeof tiny), DDIOSIM_E_REQUEST);
    cr_expect_str_eq(tiny, "--rx-ri");   /* cut to fit, NUL-terminated */
    ddiosim_free(NULL);
}

Test(api, versions)
{
    cr_expect_str_eq(ddiosim_version(), DDIOSIM_VERSION);
    cr_expect_eq(ddiosim_api_version(), DDIOSIM_API_VERSION);
    cr_expect_eq(DDIOSIM_API_VERSION, 1);
}
