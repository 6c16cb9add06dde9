/* test_traces_din.c - line endings of DineroIV din traces: LF, CRLF and a
 * lone CR each end a line, through `ddiosim cache-replay` (a trace with CR
 * line endings was read as one line: one access, the rest dropped). */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers.h"

/* Replay `text` and return the JSON report's field `key` (by_type.KEY.accesses
 * when key names a request type), or -1 when the run failed. */
static double replay_count(const char *text, const char *type)
{
    char *path = write_temp(".din", text, strlen(text));
    cr_assert_not_null(path);
    char args[300];
    snprintf(args, sizeof args, "cache-replay --format json %s", path);
    cli_run r = run_ddiosim(args);
    unlink(path);
    free(path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    const cJSON *v = type ? cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "by_type"), type),
                                                "accesses")
                          : cJSON_GetObjectItem(j, "accesses");
    double n = cJSON_IsNumber(v) ? v->valuedouble : -1;
    cJSON_Delete(j);
    cli_run_free(&r);
    return n;
}

Test(traces_din, cr_crlf_and_lf_each_end_a_line)
{
    /* Three accesses of three types, whatever ends their lines. */
    const char *texts[] = {
        "0 100\n1 200\n5 300\n",
        "0 100\r\n1 200\r\n5 300\r\n",
        "0 100\r1 200\r5 300\r",
        "0 100\r1 200\n5 300",            /* mixed, the last line unterminated */
        "# comment\r\r0 100\r\n\r\n1 200\r5 300 trailing words\r",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        cr_expect_eq(replay_count(texts[i], NULL), 3, "text %zu", i);
        cr_expect_eq(replay_count(texts[i], "read"), 1, "text %zu", i);
        cr_expect_eq(replay_count(texts[i], "write"), 1, "text %zu", i);
        cr_expect_eq(replay_count(texts[i], "pcie_write_full"), 1, "text %zu", i);
    }
}

/* Line numbers in messages count CR-ended lines, and a CRLF pair is one
 * line end, not two. */
Test(traces_din, errors_name_the_line_whatever_ends_the_lines)
{
    const struct {
        const char *text;
        int line;
    } cases[] = {
        {"0 100\r\rx 1\r", 3},
        {"0 100\r\n\r\nx 1\r\n", 3},
        {"0 100\r\n1 200\rx 1", 3},
        {"0 100\n\n\nx 1\n", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *path = write_temp(".din", cases[i].text, strlen(cases[i].text));
        char args[300], want[400];
        snprintf(args, sizeof args, "cache-replay %s", path);
        cli_run r = run_ddiosim(args);
        cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
        snprintf(want, sizeof want, "%s:%d: label 'x' is not a number 0-7\n", path, cases[i].line);
        size_t n = strlen(r.err), w = strlen(want);
        cr_expect(n >= w && strcmp(r.err + n - w, want) == 0, "case %zu: %s, expected ...%s", i, r.err, want);
        cli_run_free(&r);
        unlink(path);
        free(path);
    }
}
