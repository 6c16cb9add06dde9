/* test_cli_progress.c - sweep, validate and advise draw a progress bar on a
 * terminal (here a pseudo-terminal from util-linux's script(1)), one bar
 * per phase ending at total/total points, and none when stderr is a file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers.h"

Test(cli_progress, validate_and_advise_draw_a_bar_on_a_terminal, .timeout = 240)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cli_run r = run_shellf(dir, "command -v script >/dev/null || exit 77; "
                                "script -qc \"'%s' validate --engine model --jobs 2 --measured "
                                "'%s/validate/data/ddio-bench/freq' -o v.txt\" /dev/null",
                           ddiosim_bin(), DDIOSIM_SOURCE_DIR);
    if (r.status == 77) {
        cli_run_free(&r);
        cr_skip_test("no script(1) to give the command a terminal");
    }
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "\rvalidate [##############################] 7/7 points"), "%s", r.out);
    cli_run_free(&r);
    r = run_shellf(dir, "script -qc \"'%s' advise --spec '%s/configs/sweeps/fig17-advise.json' --engine both "
                        "--packets 20000 -o a.txt\" /dev/null",
                   ddiosim_bin(), DDIOSIM_SOURCE_DIR);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "\radvise model [##############################] 11/11 points"), "%s", r.out);
    cr_expect(strstr(r.out, "\radvise simulator [##############################] 2/2 points"), "%s", r.out);
    cli_run_free(&r);
    /* Not a terminal: not a byte of it. */
    r = run_shellf(dir, "'%s' validate --engine model --jobs 2 --measured '%s/validate/data/ddio-bench/freq' -o w.txt",
                   ddiosim_bin(), DDIOSIM_SOURCE_DIR);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
}
