/* test_plot_safety.c - what reaches gnuplot and what a plot leaves behind
 * (validate/plot.c, sim/explore/sweep_plot.c, sim/cli/cmd_plot.c, validate --plot):
 * text from data files (experiment names, column names, cell values) is
 * drawn, never run, and a control character gnuplot cannot be given is
 * refused before anything runs; `plot` reads only a regular file of a
 * bounded size; a signal during the gnuplot step leaves no temporary and no
 * gnuplot; a figure is written through a symbolic link as -o is; the plot
 * messages name what is wrong; a last row cut short is left out, with a
 * warning.  gnuplot is installed by scripts/install-deps.sh. */
#define _DEFAULT_SOURCE 1
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/helpers.h"

/* A sweep results file: rx_ring on x, ddio_ways as the series. */
#define BASIC_CSV                                        \
    "id,rx_ring,ddio_ways,status,error,model_pcie_write_hit\n" \
    "1,64,2,ok,,0.5\n"                                   \
    "2,128,2,ok,,0.75\n"                                 \
    "3,64,4,ok,,0.625\n"                                 \
    "4,128,4,ok,,0.875\n"
#define BASIC_ARGS "--x rx_ring --y model_pcie_write_hit --series ddio_ways"



/* s as one shell word (malloc'ed): single quotes, ' written '\''. */
static char *shq(const char *s)
{
    char *q = malloc(4 * strlen(s) + 3), *w = q;
    cr_assert(q);
    *w++ = '\'';
    for (; *s; s++)
        if (*s == '\'') {
            memcpy(w, "'\\''", 4);
            w += 4;
        } else {
            *w++ = *s;
        }
    *w++ = '\'';
    *w = '\0';
    return q;
}

/* A run that must fail with exit 2 and exactly the one line `want`. */
static void expect_refusal(const char *dir, const char *cmd, const char *want)
{
    cli_run r = run_shellf(dir, "'%s' %s", ddiosim_bin(), cmd);
    cr_expect_eq(r.status, 2, "%s: exit %d, %s", cmd, r.status, r.err);
    cr_expect_str_eq(r.err, want, "%s", cmd);
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);
}

/* ------------------------------------------------------------ item 1 */

/* Column names (the x axis, the series, the metric), series values and
 * the figure's own name hold backquotes, $(...), both quotes and a macro
 * (@x): each is drawn as text, none runs (a command would create a
 * PWNED file in the folder the command runs in). */
#define X_COL "x`touch PWNED1`"
#define S_COL "s$(touch PWNED2)'\"@x"
#define Y_COL "y`touch PWNED3`'\"_hit"
#define V1 "v`touch PWNED4`"
#define V2 "w$(touch PWNED5)'\"@x"
Test(plot_safety, plot_draws_data_text_and_runs_none_of_it, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "r.csv",
        "id," X_COL ",\"s$(touch PWNED2)'\"\"@x\",status,error,\"y`touch PWNED3`'\"\"_hit\"\n"
        "1,1," V1 ",ok,,0.5\n"
        "2,2," V1 ",ok,,0.6\n"
        "3,1,\"w$(touch PWNED5)'\"\"@x\",ok,,0.4\n"
        "4,2,\"w$(touch PWNED5)'\"\"@x\",ok,,0.3\n");
    char *x = shq(X_COL), *s = shq(S_COL), *y = shq(Y_COL), *out = shq("a'`touch PWNED6`$(touch PWNED7).svg");
    cli_run r = run_shellf(dir, "'%s' plot r.csv --x %s --y %s --series %s -o %s", ddiosim_bin(), x, y, s, out);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    r = run_shellf(dir, "'%s' plot r.csv --x %s --y %s --heatmap %s -o b.svg", ddiosim_bin(), x, y, s);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    char listing[512];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "a'`touch PWNED6`$(touch PWNED7).svg,b.svg,r.csv");
    char *svg = slurp_in(dir, "a'`touch PWNED6`$(touch PWNED7).svg", NULL);
    cr_expect(strstr(svg, "</svg>"), "not a whole SVG");
    /* The labels as they were written (gnuplot escapes XML's ' and "). */
    cr_expect(strstr(svg, "x`touch PWNED1`"), "the x label is not drawn");
    cr_expect(strstr(svg, "v`touch PWNED4`"), "the first series is not drawn");
    cr_expect(strstr(svg, "w$(touch PWNED5)"), "the second series is not drawn");
    free(svg);
    svg = slurp_in(dir, "b.svg", NULL);
    cr_expect(strstr(svg, "</svg>"), "not a whole SVG");
    cr_expect(strstr(svg, "v`touch PWNED4`"), "the first heat-map tic is not drawn");
    free(svg);
    free(x);
    free(s);
    free(y);
    free(out);
    rm_rf(dir);
}

/* A newline cannot be in a gnuplot string: a series value, a column name
 * or a heat-map value that holds one is refused, one line, exit 2, and
 * nothing is written. */
Test(plot_safety, plot_refuses_a_control_character_in_drawn_text, .timeout = 60)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "n.csv",
        "id,rx_ring,policy,status,error,model_pcie_write_hit\n"
        "1,64,lru,ok,,0.5\n"
        "2,64,\"a\n`touch PWNED`\",ok,,0.6\n");
    put_file(dir, "c.csv",
        "id,rx_ring,\"p\rq\",status,error,model_pcie_write_hit\n"
        "1,64,1,ok,,0.5\n");
    expect_refusal(dir, "plot n.csv --x rx_ring --y model_pcie_write_hit --series policy -o a.svg",
                   "ddiosim plot: n.csv:3: policy 'a\\n`touch PWNED`' holds a control character, "
                   "which a figure cannot show\n");
    expect_refusal(dir, "plot n.csv --x rx_ring --y model_pcie_write_hit --heatmap policy -o a.svg",
                   "ddiosim plot: n.csv:3: policy 'a\\n`touch PWNED`' holds a control character, "
                   "which a figure cannot show\n");
    expect_refusal(dir, "plot c.csv --x rx_ring --y model_pcie_write_hit --series \"$(printf 'p\\rq')\" -o a.svg",
                   "ddiosim plot: c.csv:1: column 'p\\rq' holds a control character, which a figure cannot show\n");
    /* The figure's name reaches gnuplot too: a symbolic link to a name with
     * a newline is refused, and its temporary removed. */
    cr_assert_eq(shf("cd '%s' && ln -s \"$(printf 'n\\nl.svg')\" l.svg", dir), 0);
    cli_run r = run_shellf(dir, "'%s' plot c.csv --x rx_ring --y model_pcie_write_hit -o l.svg", ddiosim_bin());
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cr_expect(strncmp(r.err, "ddiosim plot: -o: the file written 'n\\nl.svg.tmp", 48) == 0, "%s", r.err);
    cr_expect(strstr(r.err, "' holds a control character, which a figure cannot show\n"), "%s", r.err);
    cli_run_free(&r);
    char listing[512];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "c.csv,l.svg,n.csv");
    rm_rf(dir);
}

/* A tiny NPF experiment named `name` (a JSON string's contents) in DIR/SUB. */
static void experiment(const char *dir, const char *sub, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    cr_assert_eq(mkdir(path, 0777), 0, "%s", path);
    char json[600];
    snprintf(json, sizeof json,
             "{\"name\": \"%s\", \"source\": \"npf\", \"fixed\": {\"pkt_size\": 1500, \"cores\": 1},"
             " \"x\": {\"param\": \"rx_ring\"}, \"values\": \"percent\","
             " \"metrics\": {\"pcie_write_hit\": \"W\", \"pcie_read_hit\": \"R\"}}",
             name);
    put_file(path, "experiment.json", json);
    put_file(path, "W.csv", "64 90 92\n128 95 97\n");
    put_file(path, "R.csv", "64 80 84\n128 88 90\n");
}

/* validate --plot: the experiment's name (the harness's folder name) and
 * its folder's name are drawn or not used, never run; a name with a
 * newline is refused before the run. */
Test(plot_safety, validate_plot_draws_the_experiment_name_and_runs_none_of_it, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    experiment(dir, "e`touch PWNED0`", "a`touch PWNED1`$(touch PWNED2)'\\\"@x");
    cli_run r = run_shellf(dir, "'%s' validate --engine model --measured 'e`touch PWNED0`' --plot f.svg -o r.txt",
                           ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    char listing[512];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "e`touch PWNED0`,f.svg,r.txt");
    char *svg = slurp_in(dir, "f.svg", NULL);
    cr_expect(strstr(svg, "a`touch PWNED1`$(touch PWNED2)"), "the experiment's name is not drawn");
    cr_expect(strstr(svg, "</svg>"), "not a whole SVG");
    free(svg);

    /* A name cannot hold a newline: the JSON reader refuses every control
     * character in a string, before the run (vd_plot_check_set checks the
     * names again for the figure). */
    experiment(dir, "nl", "a\\n`touch PWNED3`");
    r = run_shellf(dir, "'%s' validate --engine model --measured nl --plot g.svg -o s.txt", ddiosim_bin());
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_str_eq(r.err, "ddiosim validate: nl/experiment.json: line 1, column 12: \\n: a control character "
                            "(U+000A) in a string\n");
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "e`touch PWNED0`,f.svg,nl,r.txt");
    rm_rf(dir);
}

/* ------------------------------------------------------------ item 11 */

/* plot reads a regular file of at most 64 MiB: a directory, a FIFO (which
 * must not block) and a larger file are refused, one line, exit 2. */
Test(plot_safety, plot_reads_only_a_bounded_regular_file, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    cr_assert_eq(shf("cd '%s' && mkdir d && mkfifo p && truncate -s 67108865 big.csv", dir), 0);
    expect_refusal(dir, "plot d " BASIC_ARGS " -o a.svg", "ddiosim plot: d: is a directory\n");
    expect_refusal(dir, "plot big.csv " BASIC_ARGS " -o a.svg",
                   "ddiosim plot: big.csv: larger than 67108864 bytes\n");
    /* `timeout` only ends the old behaviour, which blocked in open (exit
     * 124): the answer does not wait for anything. */
    cli_run r = run_shellf(dir, "timeout 60 '%s' plot p " BASIC_ARGS " -o a.svg", ddiosim_bin());
    cr_expect_eq(r.status, 2, "exit %d, %s", r.status, r.err);
    cr_expect_str_eq(r.err, "ddiosim plot: p: not a regular file\n");
    cli_run_free(&r);
    char listing[512];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "big.csv,d,p");
    rm_rf(dir);
}

/* ------------------------------------------------------------ item 12 */

/* A gnuplot first on PATH that sends SIGTERM (or SIGINT) to ddiosim and
 * then waits to be killed; it records its pid and, when it was given a
 * script in a folder of ddiosim's, that folder. */
static void fake_gnuplot(const char *dir, const char *sig)
{
    char bin[600], text[1200];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    cr_assert_eq(mkdir(bin, 0777), 0);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "if [ \"$1\" = --version ]; then echo 'gnuplot 5.4 patchlevel 4'; exit 0; fi\n"
             "case \"$1\" in */ddiosim-plot-*) dirname \"$1\" > '%s/gp.dir';; esac\n"
             "echo $$ > '%s/gp.pid'\n"
             "kill -%s $PPID\n"
             "exec sleep 300\n",
             dir, dir, sig);
    put_file(bin, "gnuplot", text);
    cr_assert_eq(shf("chmod +x '%s/gnuplot'", bin), 0);
}

/* After a run killed by the fake gnuplot: the fake is gone (killed and
 * reaped, not orphaned), the script's folder (if any) is gone, the private
 * TMPDIR is empty, and the work folder holds `want`. */
static void expect_clean(const char *dir, const char *want)
{
    char *pid = slurp_in(dir, "gp.pid", NULL);
    int alive = shf("kill -0 %d 2>/dev/null", atoi(pid));
    cr_expect_neq(alive, 0, "gnuplot (pid %d) is still running", atoi(pid));
    if (alive == 0)
        shf("kill -9 %d", atoi(pid));
    free(pid);
    char path[600];
    snprintf(path, sizeof path, "%s/gp.dir", dir);
    char *gpdir = slurp(path, NULL);
    if (gpdir) {
        gpdir[strcspn(gpdir, "\n")] = '\0';
        struct stat st;
        int left = stat(gpdir, &st) == 0;
        cr_expect(!left, "the script's folder %s is left", gpdir);
        if (left)
            rm_rf(gpdir);
        free(gpdir);
        unlink(path);
    }
    char listing[512], tmp[600];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    cr_expect_str_eq(dir_listing(tmp, listing, sizeof listing), "");
    unlink(strcat(strcpy(path, dir), "/gp.pid"));
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), want);
}

Test(plot_safety, a_signal_during_gnuplot_leaves_nothing, .timeout = 120)
{
    static const char *const sigs[] = {"TERM", "INT"};
    for (size_t i = 0; i < 2; i++) {
        char dir[64];
        make_tmpdir(dir, sizeof dir);
        fake_gnuplot(dir, sigs[i]);
        put_file(dir, "r.csv", BASIC_CSV);
        cr_assert_eq(shf("mkdir '%s/tmp'", dir), 0);
        /* The shell stays to record the status of ddiosim, killed by the
         * signal (128 + its number). */
        cli_run r = run_shellf(dir, "{ PATH=\"$PWD/bin:$PATH\" TMPDIR=\"$PWD/tmp\" '%s' plot r.csv " BASIC_ARGS
                                    " -o out.svg; echo $? > rc; }",
                               ddiosim_bin());
        cli_run_free(&r);
        char *rc = slurp_in(dir, "rc", NULL);
        char want[16];
        snprintf(want, sizeof want, "%d\n", 128 + (i == 0 ? SIGTERM : SIGINT));
        cr_expect_str_eq(rc, want, "SIG%s", sigs[i]);
        free(rc);
        expect_clean(dir, "bin,r.csv,rc,tmp");

        /* validate --plot too. */
        experiment(dir, "e", "e");
        r = run_shellf(dir, "{ PATH=\"$PWD/bin:$PATH\" TMPDIR=\"$PWD/tmp\" '%s' validate --engine model --measured e "
                            "--plot f.svg -o v.txt; echo $? > rc; }",
                       ddiosim_bin());
        cli_run_free(&r);
        rc = slurp_in(dir, "rc", NULL);
        cr_expect_str_eq(rc, want, "SIG%s", sigs[i]);
        free(rc);
        expect_clean(dir, "bin,e,r.csv,rc,tmp");
        rm_rf(dir);
    }
}

/* ------------------------------------------------------------ item 13 */

Test(plot_safety, plot_messages_name_what_is_wrong, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "b.csv", BASIC_CSV);
    put_file(dir, "few.csv", "id,rx_ring,ddio_ways,status,error,model_pcie_write_hit\n1,64,2,ok\n");
    put_file(dir, "many.csv", "id,rx_ring,ddio_ways,status,error,model_pcie_write_hit\n1,64,2,ok,,0.5,9\n");
    expect_refusal(dir, "plot few.csv " BASIC_ARGS " -o a.svg",
                   "ddiosim plot: few.csv:2: 4 fields where the header has 6\n");
    expect_refusal(dir, "plot many.csv " BASIC_ARGS " -o a.svg",
                   "ddiosim plot: many.csv:2: 7 fields where the header has 6\n");
    expect_refusal(dir, "plot b.csv --x rx_ring --y ddio_ways -o a.svg",
                   "ddiosim plot: --y: 'ddio_ways' is a parameter of b.csv, not a metric "
                   "(metrics: model_pcie_write_hit)\n");
    expect_refusal(dir, "plot b.csv --x rx_ring --y status -o a.svg",
                   "ddiosim plot: --y: 'status' is not a metric of b.csv (metrics: model_pcie_write_hit)\n");
    expect_refusal(dir, "plot b.csv --x rx_ring --y model_pcie_write_hit --series rx_ring -o a.svg",
                   "ddiosim plot: --series: 'rx_ring' is the --x parameter\n");
    expect_refusal(dir, "plot b.csv --x rx_ring --y model_pcie_write_hit --heatmap rx_ring -o a.svg",
                   "ddiosim plot: --heatmap: 'rx_ring' is the --x parameter\n");
    expect_refusal(dir, "plot b.csv " BASIC_ARGS " -o a.jpg",
                   "ddiosim plot: -o a.jpg: the file name must end in .svg, .png or .pdf\n");
    char listing[512];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "b.csv,few.csv,many.csv");
    rm_rf(dir);
}

/* A CRLF file draws the same figure as its LF original; a last row cut
 * short by a kill (no end of line) is left out with a warning, the rows
 * before it drawn. */
Test(plot_safety, plot_reads_crlf_and_a_cut_last_row, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "b.csv", BASIC_CSV);
    put_file(dir, "cut.csv", BASIC_CSV "5,256,4,ok,,0.9");
    cr_assert_eq(shf("cd '%s' && sed 's/$/\\r/' b.csv > crlf.csv", dir), 0);
    static const char *const in[] = {"b.csv", "crlf.csv", "cut.csv"};
    for (size_t i = 0; i < 3; i++) {
        cli_run r = run_shellf(dir, "'%s' plot %s " BASIC_ARGS " -o %s.svg", ddiosim_bin(), in[i], in[i]);
        cr_expect_eq(r.status, 0, "%s: %s", in[i], r.err);
        cr_expect_str_eq(r.err, i == 2 ? "ddiosim plot: warning: cut.csv:6: the last row is cut short (no end of "
                                         "line): it is left out\n" : "", "%s", in[i]);
        cli_run_free(&r);
    }
    char *a = slurp_in(dir, "b.csv.svg", NULL), *b = slurp_in(dir, "crlf.csv.svg", NULL);
    char *c = slurp_in(dir, "cut.csv.svg", NULL);
    cr_expect_str_eq(b, a, "the CRLF file's figure differs");
    cr_expect_str_eq(c, a, "the cut file's figure differs");
    free(a);
    free(b);
    free(c);
    rm_rf(dir);
}

/* ------------------------------------------------------------ item 14 */

/* The figure is written through a symbolic link, as -o is: the link stays,
 * its target (existing or not yet) gets the figure. */
Test(plot_safety, figures_are_written_through_a_symbolic_link, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    put_file(dir, "b.csv", BASIC_CSV);
    put_file(dir, "old.svg", "old\n");
    experiment(dir, "e", "e");
    cr_assert_eq(shf("cd '%s' && ln -s old.svg a.svg && ln -s new.svg b.svg", dir), 0);
    cli_run r = run_shellf(dir, "'%s' plot b.csv " BASIC_ARGS " -o a.svg", ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = run_shellf(dir, "'%s' validate --engine model --measured e --plot b.svg -o v.txt", ddiosim_bin());
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    static const char *const links[] = {"a.svg", "b.svg"}, *const targets[] = {"old.svg", "new.svg"};
    for (size_t i = 0; i < 2; i++) {
        char path[600], to[600] = "";
        snprintf(path, sizeof path, "%s/%s", dir, links[i]);
        ssize_t n = readlink(path, to, sizeof to - 1);
        cr_expect_gt(n, 0, "%s is no longer a symbolic link", links[i]);
        if (n > 0)
            to[n] = '\0';
        cr_expect_str_eq(to, targets[i]);
        char *svg = slurp_in(dir, targets[i], NULL);
        cr_expect(strstr(svg, "</svg>"), "%s holds no figure", targets[i]);
        free(svg);
    }
    char listing[512];
    cr_expect_str_eq(dir_listing(dir, listing, sizeof listing), "a.svg,b.csv,b.svg,e,new.svg,old.svg,v.txt");
    rm_rf(dir);
}
