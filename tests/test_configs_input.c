/* test_configs_input.c - config input the tool cannot hold or print is
 * refused with a precise one-line message, through the CLI: text that is
 * not valid UTF-8 or holds control characters, \u0000, numbers beyond a
 * double, nesting deeper than CFG_JSON_MAX_DEPTH, and caches too big to
 * simulate (checked before anything is allocated). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers.h"

/* err is one line that ends with `tail`. */
static void expect_tail(const cli_run *r, const char *tail, const char *what)
{
    size_t n = strlen(r->err), t = strlen(tail);
    cr_expect_eq(r->status, 2, "%s: %s", what, r->err);
    cr_expect(n > t && strncmp(r->err + n - t - 1, tail, t) == 0 && r->err[n - 1] == '\n',
              "%s:\n%s\nexpected the end:\n%s", what, r->err, tail);
    cr_expect_eq(count_lines_with(r->err, ""), 1, "%s: %s", what, r->err);
}

/* `config show --machine FILE` of a file holding `text`: its error must end
 * with "FILE: " + tail. */
static void expect_machine_error(const char *text, size_t len, const char *tail)
{
    char *path = write_temp(".json", text, len);
    cr_assert_not_null(path);
    char args[300], want[600];
    snprintf(args, sizeof args, "config show --format json --machine %s", path);
    snprintf(want, sizeof want, "%s: %s", path, tail);
    cli_run r = run_ddiosim(args);
    expect_tail(&r, want, text);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

#define MACHINE_ERROR(text, tail) expect_machine_error(text, sizeof text - 1, tail)

Test(configs_input, text_with_control_characters_or_bad_utf8_is_refused)
{
    /* Column 13 is the backslash of the escape, 12 the byte itself. */
    MACHINE_ERROR("{\"name\": \"ab\\u001b[31mc\"}", "line 1, column 13: \\u001b: a control character (U+001B) in a string");
    MACHINE_ERROR("{\"name\": \"ab\\u009Bc\"}", "line 1, column 13: \\u009B: a control character (U+009B) in a string");
    MACHINE_ERROR("{\"name\": \"ab\x07x\"}", "line 1, column 13: a control character (U+0007) in a string");
    MACHINE_ERROR("{\"name\": \"ab\xc2\x9b[2Jx\"}", "line 1, column 13: a control character (U+009B) in a string");
    MACHINE_ERROR("{\"name\": \"ab\xffx\"}", "line 1, column 13: invalid UTF-8 (byte 0xff) in a string");
    MACHINE_ERROR("{\"name\": \"ab\xc0\xafx\"}", "line 1, column 13: invalid UTF-8 (byte 0xc0) in a string");
    MACHINE_ERROR("{\"name\": \"ab\xed\xa0\x80x\"}", "line 1, column 13: invalid UTF-8 (byte 0xed) in a string");
    MACHINE_ERROR("{\n  \"description\": \"two\\nlines\"\n}",
                  "line 2, column 22: \\n: a control character (U+000A) in a string");
    /* cJSON would end the string at the NUL: "ab", silently. */
    MACHINE_ERROR("{\"name\": \"ab\\u0000cd\"}", "line 1, column 13: \\u0000: a control character (U+0000) in a string");
    /* In a key too (the message that names it would print it). */
    MACHINE_ERROR("{\"n\\u001bame\": \"x\"}", "line 1, column 4: \\u001b: a control character (U+001B) in a string");
}

Test(configs_input, text_set_on_the_command_line_is_checked_the_same_way)
{
    cli_run r = run_ddiosim("config show --set \"machine.name=$(printf 'ab\\033[31mc')\"");
    expect_tail(&r, "machine.name: has a control character (U+001B) at byte 3", "--set machine.name=ESC");
    cli_run_free(&r);
    r = run_ddiosim("config show --set \"workload.name=$(printf 'ab\\377')\"");
    expect_tail(&r, "workload.name: is not valid UTF-8 (byte 3 is 0xff)", "--set workload.name=0xff");
    cli_run_free(&r);
    r = run_ddiosim("config show --set machine.cores=1e999");
    expect_tail(&r, "machine.cores: '1e999' is beyond the largest number, 1.79769e+308", "--set cores=1e999");
    cli_run_free(&r);
}

/* Printable UTF-8 is a name like any other, in tables and in JSON. */
Test(configs_input, printable_utf8_text_is_kept)
{
    const char text[] = "{\"name\": \"xeon\xc2\xae-\xe2\x80\x94-\xf0\x9f\x96\xa5\", \"description\": \"\\u00e9t\\u00e9\"}";
    char *path = write_temp(".json", text, sizeof text - 1);
    char args[300];
    snprintf(args, sizeof args, "config show --format json --machine %s", path);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"name\":\t\"xeon\xc2\xae-\xe2\x80\x94-\xf0\x9f\x96\xa5\""), "%s", r.out);
    cr_expect(strstr(r.out, "\"description\":\t\"\xc3\xa9t\xc3\xa9\""), "%s", r.out);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

Test(configs_input, numbers_beyond_a_double_name_their_value)
{
    MACHINE_ERROR("{\"cores\": 1e999}", "line 1, column 11: the number 1e999 is beyond the largest number, 1.79769e+308");
    MACHINE_ERROR("{\"llc\": {\n\"ways\": -2.5E400}}",
                  "line 2, column 9: the number -2.5E400 is beyond the largest number, 1.79769e+308");
    /* Tiny numbers are 0, an ordinary value for the field's checks. */
    MACHINE_ERROR("{\"cores\": 1e-999}", "cores: 0 is out of range [1, 255]");
}

Test(configs_input, deep_nesting_is_named)
{
    /* 10 000 levels, where cJSON says only that it failed. */
    size_t depth = 10000, n = 2 * depth + 20;
    char *text = malloc(n);
    size_t k = (size_t)snprintf(text, n, "{\"cores\": ");
    for (size_t i = 0; i < depth; i++)
        text[k++] = '[';
    for (size_t i = 0; i < depth; i++)
        text[k++] = ']';
    text[k++] = '}';
    expect_machine_error(text, k, "line 1, column 74: nested deeper than 64 levels");
    /* 64 levels are parsed (and then refused for what they hold). */
    k = (size_t)snprintf(text, n, "{\"cores\": ");
    for (size_t i = 0; i < 63; i++)
        text[k++] = '[';
    for (size_t i = 0; i < 63; i++)
        text[k++] = ']';
    text[k++] = '}';
    expect_machine_error(text, k, "cores: expected an integer, got a list");
    free(text);
}

/* A cache too big to simulate is refused by the configuration's checks,
 * before any command allocates it (the L2 of 2^20 sets x 64 ways on 18
 * cores grew to 13 GB before failing; the LLC variant failed with "out of
 * memory for a 0-set cache").  One cache holds at most 2^26 lines, all of
 * them together (the LLC and one L2 per simulated core) too. */
Test(configs_input, caches_too_big_to_simulate_are_refused_before_allocating)
{
    const char *cmds[] = {"config show", "predict"};
    for (size_t i = 0; i < 2; i++) {
        char args[400];
        snprintf(args, sizeof args, "%s --set machine.l2.sets=1048576 --set machine.l2.ways=64 --cores 18", cmds[i]);
        cli_run r = run_ddiosim(args);
        expect_tail(&r,
                    "--cores: 18 L2s of 67108864 lines and an LLC of 405504 lines are 1208365056 lines, more than the "
                    "67108864 the simulator holds",
                    args);
        cli_run_free(&r);
        snprintf(args, sizeof args, "%s --set machine.llc.sets_per_slice=1048576 --set machine.llc.ways=64", cmds[i]);
        r = run_ddiosim(args);
        expect_tail(&r,
                    "--set machine.llc.sets_per_slice: an LLC of 18874368 sets x 64 ways is 1207959552 lines, more "
                    "than the 67108864 one cache may hold",
                    args);
        cli_run_free(&r);
    }
    /* Just within: 15 L2s of 2^22 lines and the LLC's 405 504. */
    cli_run r = run_ddiosim("config show --set machine.l2.sets=262144 --cores 15");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    /* cache-replay's one cache. */
    r = run_ddiosim("cache-replay --sets 4194304 --slices 64 --ways 64 traces/samples/ddio-ring.din");
    expect_tail(&r, "cache: 268435456 sets x 64 ways is 17179869184 lines, more than the 67108864 one cache may hold",
                "cache-replay");
    cli_run_free(&r);
}
