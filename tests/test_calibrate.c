/* test_calibrate.c - `ddiosim calibrate` (sim/explore/calibrate.h) and the
 * overlays it writes (configs/overlay.h).
 *
 * The recovery tests measure nothing real: their "measured" hit rates are
 * ddiosim's own predictions for a known value of a field, written as an
 * NPF experiment; calibrate, started 3x away from that value, must find it
 * again.  The field is llc.slices, the LLC's capacity, with a random set
 * mapping, under which the hit rates grow smoothly with it (under modulo
 * they jump with the set count's factors).  The cycles per packet would
 * not do: on most points every RX descriptor holds a buffer whether the
 * core is busy or not, and the hit rates barely move with them. */
#define _DEFAULT_SOURCE 1
#include <cjson/cJSON.h>
#include <math.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configs/config.h"
#include "configs/overlay.h"
#include "tests/helpers.h"
#include "sim/explore/calibrate.h"
#include "validate/experiment.h"
#include "sim/explore/runner.h"

/* DIR/NAME (static buffer). */
static const char *at_path(const char *dir, const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* ------------------------------------------------------------ --fit */

Test(calibrate, fit_takes_ranges_and_lists)
{
    cal_param p;
    ddio_err e = {0};
    cr_assert_eq(cal_param_parse("workload.cycles_per_packet=10:200", &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.discrete, 0);
    cr_expect_eq(p.integer, 0);
    cr_expect_eq(p.lo, 10);
    cr_expect_eq(p.hi, 200);
    cr_expect_eq(p.intervals, 0);
    cr_assert_eq(cal_param_parse("machine.llc.slices=2:60:4", &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.integer, 1);
    cr_expect_eq(p.intervals, 15, "58 / 4 = 14.5 intervals, rounded up: %u", p.intervals);
    cr_assert_eq(cal_param_parse("machine.llc.policy=lru,bip,srrip", &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.discrete, 1);
    cr_expect_eq(p.n_choice, 3);
    cr_expect_str_eq(p.choice[2], "srrip");
    cr_assert_eq(cal_param_parse("machine.llc.model_estimate", &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.n_choice, 4, "a bare enum field is every name: %u", p.n_choice);
    cr_expect_str_eq(p.choice[0], "policy");
}

Test(calibrate, a_bad_fit_is_one_line)
{
    static const struct {
        const char *arg, *want;
    } bad[] = {
        {"workload.nope=1:2", "workload.nope is not a field --set can set"},
        {"nope=1:2", "nope is not a field"},
        {"machine.llc.policy=1:2", "machine.llc.policy is not a number"},
        {"workload.cycles_per_packet=-5:10", "-5 is out of range"},
        {"workload.cycles_per_packet=10:1e9", "1e+09 is out of range"},
        {"workload.cycles_per_packet=20:10", "the range is empty"},
        {"workload.cycles_per_packet=10:10", "the range is empty"},
        {"workload.cycles_per_packet=a:10", "'a' is not a number"},
        {"workload.cycles_per_packet=0x1:10", "'0x1' is not a number"},
        {"workload.cycles_per_packet=1:10:0", "STEP must be above 0"},
        {"workload.cycles_per_packet=1:10:20", "STEP must be above 0 and at most HI - LO"},
        {"workload.cycles_per_packet=1:10:2:3", "expected LO:HI or LO:HI:STEP"},
        {"workload.cycles_per_packet=1", "one value is nothing to fit"},
        {"workload.cycles_per_packet", "a number needs its range"},
        {"machine.llc.slices=1.5:4", "1.5 is not an integer"},
        {"workload.driver.rx_ring=64:4096", "is a power of two: give a list"},
        {"machine.llc.policy=lru", "one value is nothing to fit"},
        {"machine.llc.policy", "give a list of choices"},
        {"machine.llc.policy=lru,nope", "nope"},
        {"machine.llc.policy=lru,lru", "listed twice"},
        {"machine.llc.policy=lru,,bip", "an empty choice"},
        {"workload.access=1:2", "not a field --set can set"},
        {"=1:2", "expected NAME=LO:HI"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cal_param p;
        ddio_err e = {0};
        cr_expect_eq(cal_param_parse(bad[i].arg, &p, &e), -1, "%s was taken", bad[i].arg);
        cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "%s", bad[i].arg);
        cr_expect(strstr(e.msg, bad[i].want) != NULL, "--fit %s: '%s' lacks '%s'", bad[i].arg, e.msg, bad[i].want);
        cr_expect(strncmp(e.msg, "--fit ", 6) == 0, "%s", e.msg);
        cr_expect(strchr(e.msg, '\n') == NULL, "%s", e.msg);
    }
}

/* ------------------------------------------------------------ synthetic data */

/* An NPF experiment in dir: `name`, machine file m.json = machine_json,
 * points rx_ring in rings[], measured = engine's prediction with `truth`
 * (PATH=VALUE) set, one run each (no noise estimate) or two equal runs. */
static void synthetic(const char *dir, const char *name, const char *machine_json, const uint32_t *rings, size_t n,
                      int engine, const char *truth, uint64_t packets, int runs)
{
    char json[1024], wfile[64], rfile[64];
    put_file(dir, "m.json", machine_json);
    snprintf(json, sizeof json,
             "{\"name\": \"%s\", \"source\": \"npf\", \"machine\": \"m.json\", \"workload\": \"l2fwd\",\n"
             " \"output_columns\": [\"x\", \"all\"],\n"
             " \"fixed\": {\"cores\": 1, \"pkt_size\": 1500, \"ddio_ways\": 2, \"rate\": 60},\n"
             " \"x\": {\"param\": \"rx_ring\", \"scale\": 1, \"offset\": 0},\n"
             " \"values\": \"fraction\",\n"
             " \"metrics\": {\"pcie_write_hit\": \"W\", \"pcie_read_hit\": \"R\"}}\n",
             name);
    put_file(dir, "experiment.json", json);
    char w[4096] = "", r[4096] = "";
    size_t wl = 0, rl = 0;
    char mpath[512];
    snprintf(mpath, sizeof mpath, "%s/m.json", dir);
    for (size_t i = 0; i < n; i++) {
        vd_param p[5] = {{"cores", 1, ""}, {"pkt_size", 1500, ""}, {"ddio_ways", 2, ""}, {"rate", 60, ""},
                         {"rx_ring", rings[i], ""}};
        const char *sets[1] = {truth};
        runner_job j = {.machine = mpath, .workload = "l2fwd", .n_params = 5, .param = p, .sets = sets, .n_sets = 1};
        runner_opts o = {.engines = engine, .packets = packets, .seed = 1, .jobs = 1};
        runner_outcome out;
        memset(&out, 0, sizeof out);
        cr_assert_eq(runner_point(&j, &o, &out), 0, "%s", out.err.msg);
        double wv = engine == RUNNER_ENGINE_SIM ? out.sim[VD_PCIE_WRITE_HIT] : out.model_est[VD_PCIE_WRITE_HIT];
        double rv = engine == RUNNER_ENGINE_SIM ? out.sim[VD_PCIE_READ_HIT] : out.model_est[VD_PCIE_READ_HIT];
        /* A second run a hair apart gives the points a noise estimate. */
        if (runs == 2) {
            wl += (size_t)snprintf(w + wl, sizeof w - wl, "%u %.17g %.17g\n", rings[i], wv, wv * 0.999);
            rl += (size_t)snprintf(r + rl, sizeof r - rl, "%u %.17g %.17g\n", rings[i], rv, rv * 0.999);
        } else {
            wl += (size_t)snprintf(w + wl, sizeof w - wl, "%u %.17g\n", rings[i], wv);
            rl += (size_t)snprintf(r + rl, sizeof r - rl, "%u %.17g\n", rings[i], rv);
        }
    }
    snprintf(wfile, sizeof wfile, "W.csv");
    snprintf(rfile, sizeof rfile, "R.csv");
    put_file(dir, wfile, w);
    put_file(dir, rfile, r);
}

static const char model_machine[] = "{\"llc\": {\"slices\": 6, \"mapping\": \"random\"}}\n";
static const uint32_t model_rings[] = {512, 1024, 2048, 4096};

/* Fit `fit` on the experiment folders dirs[n] with engine, comparing what
 * `objective` names. */
static void fit_on(char **dirs, size_t n, int engine, uint64_t packets, enum cal_objective objective, const char *fit,
                   int cv, cal_result *r, cal_problem *p, vd_experiment *exp)
{
    ddio_err e = {0};
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(vd_experiment_load(dirs[i], &exp[i], &e), 0, "%s", e.msg);
    p->n_exp = n;
    p->exp = exp;
    p->engine = engine;
    p->objective = objective;
    p->run = (runner_opts){.engines = engine, .packets = packets, .seed = 1, .jobs = 2};
    p->n_fit = 1;
    cr_assert_eq(cal_param_parse(fit, &p->fit[0], &e), 0, "%s", e.msg);
    cr_assert_eq(cal_run(p, cv, r, &e), 0, "%s", e.msg);
}

Test(calibrate, the_model_recovers_the_slices_it_was_generated_with, .timeout = 120)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    /* Generated with 18 slices; the machine file says 6, 3x fewer. */
    synthetic(dir, "synth", model_machine, model_rings, 4, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    char *dirs[1] = {dir};
    vd_experiment exp[1];
    cal_problem p;
    cal_result r;
    fit_on(dirs, 1, RUNNER_ENGINE_MODEL, 0, CAL_OBJ_HITS, "machine.llc.slices=2:60", 0, &r, &p, exp);
    cr_expect_eq(r.all.fitted[0], 1);
    cr_expect(fabs(r.all.value[0] - 18) <= 0.02 * 18, "fitted %g slices, generated with 18", r.all.value[0]);
    cr_expect(r.before > 5, "the machine file's 6 slices are far off: %g points", r.before);
    expect_near(r.after, 0, 1e-9);
    cal_result_free(&r);
    vd_experiment_free(&exp[0]);
    rm_rf(dir);
}

Test(calibrate, the_simulator_recovers_the_slices_it_was_generated_with, .timeout = 300)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    static const char m[] = "{\"llc\": {\"slices\": 2, \"sets_per_slice\": 512, \"mapping\": \"random\"}}\n";
    static const uint32_t rings[] = {128, 256, 512};
    synthetic(dir, "synth", m, rings, 3, RUNNER_ENGINE_SIM, "machine.llc.slices=6", 20000, 1);
    char *dirs[1] = {dir};
    vd_experiment exp[1];
    cal_problem p;
    cal_result r;
    fit_on(dirs, 1, RUNNER_ENGINE_SIM, 20000, CAL_OBJ_HITS, "machine.llc.slices=1:16", 0, &r, &p, exp);
    cr_expect(fabs(r.all.value[0] - 6) <= 0.02 * 6, "fitted %g slices, generated with 6", r.all.value[0]);
    expect_near(r.after, 0, 1e-9);
    cal_result_free(&r);
    vd_experiment_free(&exp[0]);
    rm_rf(dir);
}

Test(calibrate, cross_validation_fits_each_fold_without_its_experiment, .timeout = 120)
{
    char a[64], b[64];
    make_tmpdir(a, sizeof a);
    make_tmpdir(b, sizeof b);
    static const uint32_t ra[] = {512, 4096}, rb[] = {2048, 4096};
    synthetic(a, "small-rings", model_machine, ra, 2, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    synthetic(b, "large-rings", model_machine, rb, 2, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    char *dirs[2] = {a, b};
    vd_experiment exp[2];
    cal_problem p;
    cal_result r;
    fit_on(dirs, 2, RUNNER_ENGINE_MODEL, 0, CAL_OBJ_HITS, "machine.llc.slices=2:60", 1, &r, &p, exp);
    cr_assert_eq(r.cv, 1);
    /* Each fold sees one experiment generated with the same value; the
     * value it finds predicts the other one as well as the full fit. */
    for (int x = 0; x < 2; x++) {
        cr_expect_eq(r.fold[x].fitted[0], 1);
        expect_near(cal_err_mae(&r.err_cv[x], -1), cal_err_mae(&r.err_after[x], -1), 1.0);
        cr_expect_eq(cal_err_mae(&r.err_cv[x], -1) == cal_err_mae(&r.err_cv[x], -1), 1, "a number");
    }
    cr_expect_gt(r.trials, 0);
    cr_expect_lt(r.trials, r.evaluations, "the folds share the scan: %llu trials for %llu evaluations",
                 (unsigned long long)r.trials, (unsigned long long)r.evaluations);
    char *text = cal_report(&p, &r);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "leave-one-experiment-out") < strstr(text, "in-sample fit"), "the honest table first");
    free(text);
    cal_result_free(&r);
    vd_experiment_free(&exp[0]);
    vd_experiment_free(&exp[1]);
    rm_rf(a);
    rm_rf(b);
}

/* ------------------------------------------------------------ the command */

Test(calibrate, jobs_do_not_change_a_byte, .timeout = 120)
{
    char a[64], b[64], o[64];
    make_tmpdir(a, sizeof a);
    make_tmpdir(b, sizeof b);
    make_tmpdir(o, sizeof o);
    static const uint32_t ra[] = {512, 4096}, rb[] = {2048, 4096};
    synthetic(a, "small-rings", model_machine, ra, 2, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    synthetic(b, "large-rings", model_machine, rb, 2, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    char args[1024];
    cli_run run[2];
    for (int j = 0; j < 2; j++) {
        snprintf(args, sizeof args,
                 "calibrate --measured %s --measured %s --fit machine.llc.slices=2:60 --fit machine.llc.policy=lru,bip "
                 "--cv --jobs %d -o %s/fit%d.json",
                 a, b, j + 1, o, j + 1);
        run[j] = run_ddiosim(args);
        cr_assert_eq(run[j].status, 0, "%s", run[j].err);
    }
    cr_expect_str_eq(run[0].out, run[1].out);
    char p1[128], p2[128];
    snprintf(p1, sizeof p1, "%s/fit1.json", o);
    snprintf(p2, sizeof p2, "%s/fit2.json", o);
    char *f1 = slurp(p1, NULL), *f2 = slurp(p2, NULL);
    cr_assert(f1 && f2);
    drop_line_with(f1, "\"command\":");   /* --jobs 1 and 2 */
    drop_line_with(f2, "\"command\":");
    cr_expect_str_eq(f1, f2);
    /* The overlay reads back, and it is what was fitted. */
    ddio_overlay ov;
    ddio_err e = {0};
    cr_assert_eq(ddio_overlay_load(p1, &ov, &e), 0, "%s", e.msg);
    cr_expect_eq(ov.n, 2);
    cr_expect_str_eq(ov.set[0], "machine.llc.slices=18");
    free(f1), free(f2);
    cli_run_free(&run[0]);
    cli_run_free(&run[1]);
    /* validate --fit --cv prints the same report. */
    snprintf(args, sizeof args,
             "validate --engine model --measured %s --measured %s --fit machine.llc.slices=2:60 "
             "--fit machine.llc.policy=lru,bip --cv --jobs 2",
             a, b);
    cli_run v = run_ddiosim(args);
    snprintf(args, sizeof args,
             "calibrate --measured %s --measured %s --fit machine.llc.slices=2:60 --fit machine.llc.policy=lru,bip "
             "--cv --jobs 2",
             a, b);
    cli_run c = run_ddiosim(args);
    cr_assert_eq(v.status, 0, "%s", v.err);
    cr_expect_str_eq(v.out, c.out);
    cli_run_free(&v);
    cli_run_free(&c);
    rm_rf(a);
    rm_rf(b);
    rm_rf(o);
}

Test(calibrate, errors_are_one_line_exit_2_and_write_no_overlay, .timeout = 120)
{
    char a[64], o[64];
    make_tmpdir(a, sizeof a);
    make_tmpdir(o, sizeof o);
    static const uint32_t ra[] = {512, 1024};
    synthetic(a, "synth", model_machine, ra, 2, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    char empty[64];
    make_tmpdir(empty, sizeof empty);
    static const struct {
        const char *fit, *extra, *want;
    } bad[] = {
        {"workload.nope=1:2", "", "workload.nope is not a field"},
        {"machine.llc.policy=1:2", "", "is not a number"},
        {"workload.cycles_per_packet=9:3", "", "the range is empty"},
        /* 2 ways leave no room for the DDIO mask of these points: the point fails. */
        {"machine.llc.ways=1:4", "", "point W.csv:1, with machine.llc.ways=1: --ddio-ways: 2 is more than the 1 ways"},
        {"workload.cores=1,2", "", "experiment synth sets it at its points (cores)"},
        {"machine.llc.slices=2:60", "--cv", "--cv: leaving one experiment out needs two experiments"},
        {"workload.cycles_per_packet=10:100", "--set workload.cycles_per_packet=40", "also given one value"},
        {"machine.llc.slices=2:60", "--engine both", "--engine: 'both' is not model or sim"},
        {"machine.llc.slices=2:60", "--weight all", "--weight: 'all' is not experiment or point"},
        {"machine.llc.slices=2:60", "--max-evals 0", "--max-evals"},
        {"machine.llc.policy=lru,bip,srrip,brrip,drrip,dip",
         "--fit machine.llc.model_estimate --fit machine.llc.mapping --fit machine.l2.policy=lru,bip,srrip",
         "288 combinations of the listed choices, more than 256"},
        {"workload.cycles_per_packet=0:100:1", "--fit workload.cycles_per_byte=0:1:0.01",
         "the ranges' scan has 10201 points, more than 4096"},
        {"machine.llc.slices=2:60", "--fit machine.llc.slices=3:9", "--fit machine.llc.slices: given twice"},
        {"workload.cycles_per_packet=0:100:0.1", "--fit machine.llc.policy=lru,bip,srrip,brrip,drrip,dip,qlru "
         "--fit machine.llc.mapping", "the scan runs 28028 trials (28 combinations x 1001 grid points), more than 8192"},
        {"workload.cycles_per_packet=100:100.0000000001", "", "narrower than a billionth"},
    };
    char args[1024], out[128];
    snprintf(out, sizeof out, "%s/fit.json", o);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "calibrate --measured %s --fit %s %s -o %s", a, bad[i].fit, bad[i].extra, out);
        cli_run r = run_ddiosim(args);
        cr_expect_eq(r.status, 2, "%s: exit %d: %s", args, r.status, r.err);
        cr_expect_eq(count_lines_with(r.err, ""), 1, "%s: one line: %s", args, r.err);
        cr_expect(strstr(r.err, bad[i].want) != NULL, "%s: '%s' lacks '%s'", args, r.err, bad[i].want);
        cr_expect(strncmp(r.err, "ddiosim calibrate: ", 19) == 0, "%s", r.err);
        cr_expect_eq(access(out, F_OK), -1, "%s: an overlay was written", args);
        char listing[512];
        cr_expect_str_eq(dir_listing(o, listing, sizeof listing), "", "%s: left %s", args, listing);
        cli_run_free(&r);
    }
    /* No measured point at all: an empty data directory. */
    cli_run r = run_shellf(".", "DDIOSIM_DATA_DIR=%s %s calibrate --fit machine.llc.slices=2:60 -o %s", empty,
                           ddiosim_bin(), out);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "no experiment.json found") || strstr(r.err, "validate/data"), "%s", r.err);
    cr_expect_eq(access(out, F_OK), -1);
    cli_run_free(&r);
    /* Never over an input: the experiment's own files, the overlay read. */
    char *before = slurp(at_path(a, "experiment.json"), NULL);
    snprintf(args, sizeof args, "calibrate --measured %s --fit machine.llc.slices=2:60 -o %s/experiment.json", a, a);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s", r.err);
    char *after = slurp(at_path(a, "experiment.json"), NULL);
    cr_expect_str_eq(before, after);
    free(before), free(after);
    cli_run_free(&r);
    put_file(o, "in.json", "{\"ddiosim\": \"overlay\", \"set\": {\"workload.cycles_per_packet\": 40}}\n");
    snprintf(args, sizeof args, "calibrate --measured %s --fit machine.llc.slices=2:60 --overlay %s/in.json -o %s/in.json",
             a, o, o);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "--overlay") != NULL, "%s", r.err);
    cli_run_free(&r);
    rm_rf(a);
    rm_rf(o);
    rm_rf(empty);
}

Test(calibrate, a_metric_the_engine_leaves_unpredicted_is_an_error, .timeout = 120)
{
    /* Whole-line packets: the simulator sees no partial line writes, so
     * it has no partial-hit rate for a point that measured one.  Skipping
     * the metric would let a trial lower the objective by predicting less. */
    char a[64], o[64];
    make_tmpdir(a, sizeof a);
    make_tmpdir(o, sizeof o);
    put_file(a, "experiment.json",
             "{\"name\": \"whole\", \"source\": \"npf\", \"workload\": \"l2fwd\", \"output_columns\": [\"x\", \"all\"],\n"
             " \"fixed\": {\"cores\": 1, \"pkt_size\": 1536, \"ddio_ways\": 2, \"rate\": 60},\n"
             " \"x\": {\"param\": \"rx_ring\", \"scale\": 1, \"offset\": 0}, \"values\": \"fraction\",\n"
             " \"metrics\": {\"pcie_write_hit\": \"W\", \"pcie_write_partial_hit\": \"P\"}}\n");
    put_file(a, "W.csv", "512 0.5\n1024 0.4\n");
    put_file(a, "P.csv", "512 0.5\n1024 0.4\n");
    char args[512];
    snprintf(args, sizeof args,
             "calibrate --measured %s --engine sim --packets 3000 --fit workload.cycles_per_packet=10:200 -o %s/f.json",
             a, o);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_str_eq(r.err, "ddiosim calibrate: whole: point W.csv:1, with the configured values: no "
                            "pcie_write_partial_hit predicted (measured 0.5000)\n");
    cr_expect_eq(access(at_path(o, "f.json"), F_OK), -1);
    cli_run_free(&r);
    /* The model predicts no partial hits at all: that metric is left out
     * of its objective, and the write hits are fitted. */
    snprintf(args, sizeof args, "calibrate --measured %s --engine model --fit workload.cycles_per_packet=10:200", a);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    rm_rf(a);
    rm_rf(o);
}

Test(calibrate, outputs_never_half_written_nor_over_an_input, .timeout = 120)
{
    char a[64], o[64];
    make_tmpdir(a, sizeof a);
    make_tmpdir(o, sizeof o);
    static const uint32_t ra[] = {512, 1024};
    synthetic(a, "synth", model_machine, ra, 2, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    char args[512];
    /* "-o -" and the report both on stdout: refused. */
    snprintf(args, sizeof args, "calibrate --measured %s --fit machine.llc.slices=2:60 -o -", a);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_str_eq(r.err, "ddiosim calibrate: -o -: the report is on stdout; write it to a file with --report FILE\n");
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);
    /* A report that cannot be written leaves no overlay behind. */
    snprintf(args, sizeof args, "calibrate --measured %s --fit machine.llc.slices=2:60 --report /dev/full -o %s/f.json",
             a, o);
    r = run_ddiosim(args);
    cr_expect_neq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cr_expect_eq(access(at_path(o, "f.json"), F_OK), -1);
    cli_run_free(&r);
    /* "-o -" with the report in a file: the overlay on stdout. */
    snprintf(args, sizeof args, "calibrate --measured %s --fit machine.llc.slices=2:60 --report %s/r.txt -o -", a, o);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "{\n\t\"ddiosim\":\t\"overlay\"", 23) == 0, "%s", r.out);
    cr_expect_eq(access("-", F_OK), -1, "a file named '-' was written");
    /* what made it: in its calibration block (the overlay is an input) */
    cJSON *ov = cJSON_Parse(r.out);
    const cJSON *cal = cJSON_GetObjectItem(ov, "calibration");
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cal, "version")), DDIOSIM_VERSION);
    cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(cal, "command")), "ddiosim calibrate "), "%s", r.out);
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(cal, "mae_in_sample_pts")), "%s", r.out);
    cJSON_Delete(ov);
    char *rep = slurp(at_path(o, "r.txt"), NULL);
    cr_assert(rep);
    cr_expect(strstr(rep, "in-sample fit on every experiment") != NULL);
    free(rep);
    /* Every command that reads an overlay refuses to write over it. */
    put_file(o, "in.json", r.out);
    cli_run_free(&r);
    char *before = slurp(at_path(o, "in.json"), NULL);
    static const char *const cmds[] = {
        "predict --pkt-size 1500", "simulate --packets 2000", "config show",
        "sweep --spec configs/sweeps/fig17.json --engine model", "validate --engine model",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(args, sizeof args, "%s --overlay %s/in.json -o %s/in.json", cmds[i], o, o);
        r = run_ddiosim(args);
        cr_expect_eq(r.status, 2, "%s: exit %d: %s", args, r.status, r.err);
        cr_expect(strstr(r.err, "is the file --overlay reads") != NULL, "%s: %s", args, r.err);
        char *after = slurp(at_path(o, "in.json"), NULL);
        cr_expect_str_eq(before, after, "%s touched its overlay", args);
        free(after);
        cli_run_free(&r);
    }
    free(before);
    /* validate's --weight belongs to --fit, whichever value it names. */
    r = run_ddiosim("validate --engine model --weight experiment");
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "--weight: needs --fit") != NULL, "%s", r.err);
    cli_run_free(&r);
    rm_rf(a);
    rm_rf(o);
}

Test(calibrate, a_field_without_evidence_is_not_fitted_and_named, .timeout = 120)
{
    char a[64];
    make_tmpdir(a, sizeof a);
    static const uint32_t ra[] = {1024, 2048, 4096};
    /* Two runs per point: a noise estimate.  BIP's epsilon does not move
     * the hit rates of an LRU LLC. */
    synthetic(a, "synth", model_machine, ra, 3, RUNNER_ENGINE_MODEL, "machine.llc.slices=6", 0, 2);
    char args[512];
    snprintf(args, sizeof args, "calibrate --measured %s --fit machine.llc.bip_epsilon=0.001:0.25", a);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "warning: machine.llc.bip_epsilon: the objective changes by") != NULL, "%s", r.err);
    cr_expect(strstr(r.out, "machine.llc.bip_epsilon: not fitted") != NULL, "%s", r.out);
    cli_run_free(&r);
    rm_rf(a);
}

/* ------------------------------------------------------------ overlays */

Test(overlay, reads_fields_as_sets_in_file_order)
{
    static const char t[] = "{\"ddiosim\": \"overlay\", \"set\": {\"workload.cycles_per_packet\": 57.25, "
                            "\"machine.llc.policy\": \"bip\", \"machine.llc.qlru_mask_age\": true, "
                            "\"machine.llc.bip_epsilon\": 0.1}, \"calibration\": {\"anything\": [1, 2]}}";
    ddio_overlay ov;
    ddio_err e = {0};
    cr_assert_eq(ddio_overlay_parse(t, strlen(t), "f.json", &ov, &e), 0, "%s", e.msg);
    cr_assert_eq(ov.n, 4);
    cr_expect_str_eq(ov.set[0], "workload.cycles_per_packet=57.25");
    cr_expect_str_eq(ov.set[1], "machine.llc.policy=bip");
    cr_expect_str_eq(ov.set[2], "machine.llc.qlru_mask_age=true");
    cr_expect_str_eq(ov.set[3], "machine.llc.bip_epsilon=0.1", "the shortest text of the same double");
}

Test(overlay, a_bad_overlay_names_the_file_and_field)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[]", "f.json: expected a JSON object"},
        {"{\"set\": {}}", "f.json: ddiosim: must be \"overlay\""},
        {"{\"ddiosim\": \"config\", \"set\": {}}", "ddiosim: must be \"overlay\""},
        {"{\"ddiosim\": \"overlay\"}", "f.json: set: missing"},
        {"{\"ddiosim\": \"overlay\", \"set\": []}", "f.json: set: expected an object"},
        {"{\"ddiosim\": \"overlay\", \"set\": {}, \"x\": 1}", "f.json: x: unknown key"},
        {"{\"ddiosim\": \"overlay\", \"set\": {}, \"calibration\": 3}", "calibration: expected an object"},
        {"{\"ddiosim\": \"overlay\", \"set\": {\"workload.nope\": 1}}", "f.json: set.workload.nope: no such field"},
        {"{\"ddiosim\": \"overlay\", \"set\": {\"nope\": 1}}", "set.nope: the path must start with machine."},
        {"{\"ddiosim\": \"overlay\", \"set\": {\"workload.cycles_per_packet\": -1}}",
         "set.workload.cycles_per_packet: -1 is out of range"},
        {"{\"ddiosim\": \"overlay\", \"set\": {\"workload.cycles_per_packet\": null}}", "expected a number, a string"},
        {"{\"ddiosim\": \"overlay\", \"set\": {\"workload.access[0].length\": 3}}", "list elements cannot be set"},
        {"{\"ddiosim\": \"overlay\", \"set\": {\"a=b\": 3}}", "no such field"},
        {"{\"ddiosim\": \"overlay\", \"set\": {\"machine.llc.ways\": 8, \"machine.llc.ways\": 9}}", "duplicate key"},
        {"{\"ddiosim\": \"overlay\", \"set\": {", "f.json: line 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ddio_overlay ov;
        ddio_err e = {0};
        cr_expect_eq(ddio_overlay_parse(bad[i].text, strlen(bad[i].text), "f.json", &ov, &e), -1, "%s", bad[i].text);
        cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE, "%s", bad[i].text);
        cr_expect(strstr(e.msg, bad[i].want) != NULL, "%s: '%s' lacks '%s'", bad[i].text, e.msg, bad[i].want);
        cr_expect_eq(ov.n, 0);
    }
}

/* Remove the lines that time the run (wall_seconds, sim_mpps,
 * solve_seconds): the wall clock is not the run's result. */
static void drop_timing(char *s)
{
    char *w = s;
    for (char *l = s; *l;) {
        char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l + 1) : strlen(l);
        int timing = 0;
        for (size_t k = 0; k + 7 <= len; k++)
            timing |= strncmp(l + k, "seconds", 7) == 0 || strncmp(l + k, "sim_mpps", 8) == 0;
        if (!timing) {
            memmove(w, l, len);
            w += len;
        }
        l += len;
    }
    *w = '\0';
}

Test(overlay, every_command_applies_it_as_the_sets)
{
    char d[64];
    make_tmpdir(d, sizeof d);
    put_file(d, "o.json", "{\"ddiosim\": \"overlay\", \"set\": {\"workload.cycles_per_packet\": 57.25, "
                          "\"machine.llc.slices\": 12, \"machine.llc.mapping\": \"modulo\"}}\n");
    static const char *const cmds[] = {
        "predict --pkt-size 1500 --rx-ring 2048 --format json",
        "simulate --profile fixed:1500 --packets 3000 --rx-ring 256 --format json",
        "config show --format json",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char a1[512], a2[512];
        snprintf(a1, sizeof a1, "%s --overlay %s/o.json", cmds[i], d);
        snprintf(a2, sizeof a2,
                 "%s --set workload.cycles_per_packet=57.25 --set machine.llc.slices=12 --set machine.llc.mapping=modulo",
                 cmds[i]);
        cli_run r1 = run_ddiosim(a1), r2 = run_ddiosim(a2);
        cr_expect_eq(r1.status, 0, "%s: %s", a1, r1.err);
        cr_expect_eq(r2.status, 0, "%s: %s", a2, r2.err);
        if (strncmp(cmds[i], "config", 6) == 0) {   /* the origin column names the overlay */
            cr_expect(strstr(r1.out, "12") != NULL);
        } else {
            drop_timing(r1.out);
            drop_timing(r2.out);
            drop_line_with(r1.out, "\"ddiosim\":");   /* the command lines differ */
            drop_line_with(r2.out, "\"ddiosim\":");
            cr_expect_str_eq(r1.out, r2.out, "%s", cmds[i]);
        }
        cli_run_free(&r1);
        cli_run_free(&r2);
    }
    /* A bad overlay is one line naming the file and the field. */
    put_file(d, "bad.json", "{\"ddiosim\": \"overlay\", \"set\": {\"machine.llc.slices\": 0}}\n");
    char a[512];
    snprintf(a, sizeof a, "predict --overlay %s/bad.json", d);
    cli_run r = run_ddiosim(a);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "bad.json: set.machine.llc.slices:") != NULL, "%s", r.err);
    cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
    cli_run_free(&r);
    /* A sweep with the overlay writes the file a sweep with the sets writes. */
    char f1[128], f2[128];
    snprintf(f1, sizeof f1, "%s/o.csv", d);
    snprintf(f2, sizeof f2, "%s/s.csv", d);
    snprintf(a, sizeof a, "sweep --spec configs/sweeps/fig17.json --engine model -o %s --overlay %s/o.json", f1, d);
    r = run_ddiosim(a);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(a, sizeof a,
             "sweep --spec configs/sweeps/fig17.json --engine model -o %s --set workload.cycles_per_packet=57.25 "
             "--set machine.llc.slices=12 --set machine.llc.mapping=modulo",
             f2);
    r = run_ddiosim(a);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char *c1 = slurp(f1, NULL), *c2 = slurp(f2, NULL);
    cr_assert(c1 && c2);
    cr_expect_str_eq(c1, c2);
    free(c1), free(c2);
    /* validate, sweep and advise take it too; two overlays are refused. */
    snprintf(a, sizeof a, "validate --engine model --overlay %s/o.json --overlay %s/o.json", d, d);
    r = run_ddiosim(a);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--overlay: given twice") != NULL, "%s", r.err);
    cli_run_free(&r);
    rm_rf(d);
}

/* ------------------------------------------------------------ --objective rate */

/* An experiment over packet sizes at line rate, one core: W.csv the
 * model's write hits and P.csv its forwarding rate, both with `truth` set
 * (the core is the limit: the rate is the evidence on its cost). */
static void synthetic_rates(const char *dir, const char *truth)
{
    put_file(dir, "experiment.json",
             "{\"name\": \"sizes\", \"source\": \"npf\", \"workload\": \"l2fwd\", \"output_columns\": [\"x\", \"all\"],\n"
             " \"fixed\": {\"cores\": 1, \"rx_ring\": 256, \"ddio_ways\": 2, \"rate\": \"max\"},\n"
             " \"x\": {\"param\": \"pkt_size\"}, \"values\": \"fraction\",\n"
             " \"metrics\": {\"pcie_write_hit\": \"W\"}, \"evidence\": {\"mpps\": \"P\"}}\n");
    static const uint32_t sizes[] = {256, 512, 1024, 1500};
    char w[512] = "", pps[512] = "";
    size_t wl = 0, pl = 0;
    for (size_t i = 0; i < 4; i++) {
        vd_param p[5] = {{"cores", 1, ""}, {"rx_ring", 256, ""}, {"ddio_ways", 2, ""}, {"rate", NAN, "max"},
                         {"pkt_size", sizes[i], ""}};
        const char *sets[1] = {truth};
        runner_job j = {.workload = "l2fwd", .n_params = 5, .param = p, .sets = sets, .n_sets = 1};
        runner_opts o = {.engines = RUNNER_ENGINE_MODEL, .seed = 1, .jobs = 1};
        runner_outcome out;
        cr_assert_eq(runner_point(&j, &o, &out), 0, "%s", out.err.msg);
        cr_assert(out.model_mpps > 0);
        wl += (size_t)snprintf(w + wl, sizeof w - wl, "%u %.17g\n", sizes[i], out.model_est[VD_PCIE_WRITE_HIT]);
        pl += (size_t)snprintf(pps + pl, sizeof pps - pl, "%u %.17g %.17g\n", sizes[i], out.model_mpps,
                               out.model_mpps * 1.001);
    }
    put_file(dir, "W.csv", w);
    put_file(dir, "P.csv", pps);
}

/* The hit rates say nothing about the cycles per packet here; the rate
 * does: from l2fwd's configured 34 cycles, over 10:200, the fit finds the
 * 57 the rates were generated with, within 2 %. */
Test(calibrate, the_rate_objective_recovers_the_cycles_per_packet, .timeout = 120)
{
    char a[64];
    make_tmpdir(a, sizeof a);
    synthetic_rates(a, "workload.cycles_per_packet=57");
    char args[512];
    snprintf(args, sizeof args,
             "calibrate --measured %s --objective rate --fit workload.cycles_per_packet=10:200 "
             "--set workload.cycles_per_packet=171",
             a);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "a field both set and fitted: %s", r.err);
    cli_run_free(&r);
    cal_problem p;
    vd_experiment exp[1];
    cal_result res;
    char *dirs[1] = {a};
    fit_on(dirs, 1, RUNNER_ENGINE_MODEL, 0, CAL_OBJ_RATE, "workload.cycles_per_packet=10:200", 0, &res, &p, exp);
    cr_expect(res.all.fitted[0]);
    cr_expect(fabs(res.all.value[0] - 57) <= 0.02 * 57, "fitted %.2f", res.all.value[0]);
    cr_expect(res.after < 0.1, "objective %.4f %%", res.after);
    cr_expect(cal_uses(CAL_OBJ_RATE, CAL_TERM_RATE) && !cal_uses(CAL_OBJ_RATE, VD_PCIE_WRITE_HIT));
    cr_expect_eq(res.err_after[0].n[VD_PCIE_WRITE_HIT], 0);
    cr_expect_eq(res.err_after[0].n[CAL_TERM_RATE], 4);
    cal_result_free(&res);
    vd_experiment_free(&exp[0]);
    /* The CLI's report names the rate's unit and column. */
    snprintf(args, sizeof args, "calibrate --measured %s --objective rate --fit workload.cycles_per_packet=10:200", a);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "objective: mean relative error of the measured forwarding rate (percent; --objective rate)"),
              "%s", r.out);
    cr_expect(strstr(r.out, "rate %: before"), "%s", r.out);
    cli_run_free(&r);
    /* --objective both counts the hit rates too; a bad name is one line. */
    snprintf(args, sizeof args, "calibrate --measured %s --objective all --fit workload.cycles_per_packet=10:200", a);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim calibrate: --objective: 'all' is not hits, rate or both\n");
    cli_run_free(&r);
    rm_rf(a);
}

/* Experiments that measured no forwarding rate give the rate objective
 * nothing to fit to: one line, exit 2. */
Test(calibrate, the_rate_objective_needs_a_measured_rate, .timeout = 60)
{
    char a[64], o[64];
    make_tmpdir(a, sizeof a);
    make_tmpdir(o, sizeof o);
    static const uint32_t ra[] = {512, 1024};
    synthetic(a, "synth", model_machine, ra, 2, RUNNER_ENGINE_MODEL, "machine.llc.slices=18", 0, 1);
    char args[512];
    snprintf(args, sizeof args,
             "calibrate --measured %s --objective rate --fit workload.cycles_per_packet=10:200 -o %s/f.json", a, o);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_str_eq(r.err, "ddiosim calibrate: nothing measured to fit to (no experiment measured a forwarding "
                            "rate: experiment.json evidence.mpps)\n");
    cr_expect_eq(access(at_path(o, "f.json"), F_OK), -1);
    cli_run_free(&r);
    r = run_ddiosim("validate --objective rate");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--objective: needs --fit"), "%s", r.err);
    cli_run_free(&r);
    rm_rf(a);
    rm_rf(o);
}
