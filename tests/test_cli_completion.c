/* test_cli_completion.c - the bash completion (scripts/ddiosim-completion.bash)
 * against the built binary: subcommands, a command's options, machine and
 * workload names, help topics, the sub-subcommands of trace and config, the
 * values of --engine, each from the binary's own lists. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/helpers.h"

/* COMPREPLY for the words (the binary's path is the first), one line. */
static cli_run complete(const char *dir, const char *words)
{
    return run_shellf(dir,
                      "bash -c 'source \"%s/scripts/ddiosim-completion.bash\"; COMP_WORDS=(\"%s\" %s); "
                      "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ddiosim; echo \"${COMPREPLY[*]}\"'",
                      DDIOSIM_SOURCE_DIR, ddiosim_bin(), words);
}

Test(cli_completion, completes_from_the_binarys_own_lists, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    static const struct {
        const char *words, *want;
    } c[] = {
        {"si", "simulate\n"},
        {"ca", "cache-replay calibrate\n"},
        {"simulate --mach", "--machine\n"},
        {"simulate --machine sky", "skylake-6132 skylake-6140\n"},
        {"predict --workload l", "l2fwd l3router loadbalancer\n"},
        {"trace st", "stats\n"},
        {"trace stats --fo", "--format\n"},
        {"config s", "show\n"},
        {"help qu", "queues\n"},
        {"validate --max", "--max-mae\n"},
        {"sweep --engine m", "model\n"},
        {"plot --s", "--script --series --size\n"},
        {"plot --f", "--font-size\n"},
        {"plot --xl", "--xlabel\n"},
        {"--ver", "--version\n"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        cli_run r = complete(dir, c[i].words);
        cr_expect_eq(r.status, 0, "%s: %s", c[i].words, r.err);
        cr_expect_str_eq(r.out, c[i].want, "ddiosim %s<TAB>", c[i].words);
        cli_run_free(&r);
    }
}
