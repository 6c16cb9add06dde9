/* test_validate_harness.c - validate/harness/ddio-harness, the perf-based
 * DDIO counter harness (docs/harness.md): the commands of --dry-run
 * (recorded byte for byte in tests/data/harness/), its one-line errors, and
 * the experiment folder it writes, with a fake perf, a fake sysfs and a fake
 * /proc, so that no uncore PMU, root or real perf is needed. */
#define _DEFAULT_SOURCE 1 /* mkdtemp */
#include "tests/helpers.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "validate/experiment.h"

#define HARNESS DDIOSIM_SOURCE_DIR "/validate/harness/ddio-harness"
#define HDATA DDIOSIM_SOURCE_DIR "/tests/data/harness"

/* Environment variables of the harness, unset so the caller's never leak in. */
#define CLEAN_ENV                                                                  \
    "env -u DDIO_HARNESS_SYSFS -u DDIO_HARNESS_PROC -u DDIO_HARNESS_PERF "        \
    "-u DDIO_HARNESS_SKIP_ROOT"

/* A sysfs with four CPUs, 0-1 on socket 0 and 2-3 on socket 1, and, when
 * `uncore`, a Skylake-SP CHA (with the filter_opc0 format and a cpumask
 * listing CPU 0 for socket 0 and 2 for socket 1) and IMC PMU. */
static void fake_sysfs(const char *root, int uncore)
{
    for (int c = 0; c < 4; c++)
        cr_assert_eq(shf("mkdir -p '%s/devices/system/cpu/cpu%d/topology' && "
                         "echo %d > '%s/devices/system/cpu/cpu%d/topology/physical_package_id'",
                         root, c, c / 2, root, c),
                     0);
    if (uncore)
        cr_assert_eq(shf("d='%s/bus/event_source/devices' && mkdir -p \"$d/uncore_cha_0/format\" "
                         "\"$d/uncore_imc_0\" && echo config1:41-50 > \"$d/uncore_cha_0/format/filter_opc0\" "
                         "&& echo config:8-15 > \"$d/uncore_cha_0/format/umask\" "
                         "&& echo 0,2 > \"$d/uncore_cha_0/cpumask\"",
                         root),
                     0);
}

/* A /proc of an Intel family 6 CPU of this model and stepping. */
static void fake_proc_model(const char *root, int model, int stepping, const char *name)
{
    cr_assert_eq(shf("mkdir -p '%s/sys/kernel' && echo 2 > '%s/sys/kernel/perf_event_paranoid' && "
                     "printf 'processor\\t: 0\\nvendor_id\\t: GenuineIntel\\ncpu family\\t: 6\\n"
                     "model\\t\\t: %d\\nmodel name\\t: %s\\n"
                     "stepping\\t: %d\\n\\nprocessor\\t: 1\\n' > '%s/cpuinfo'",
                     root, root, model, name, stepping, root),
                 0);
}

/* A /proc of a Xeon Gold 6140 (family 6, model 85, stepping 4: Skylake-SP). */
static void fake_proc(const char *root)
{
    fake_proc_model(root, 85, 4, "Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz");
}

/* A fake perf: logs its arguments (one line per call) to `log`, then writes
 * the recorded perf output to the file given with -o, or exits with `rc`
 * when rc != 0. */
static void fake_perf(const char *path, const char *log, int rc)
{
    char *script = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&script, &len);
    cr_assert_not_null(f);
    fprintf(f,
            "#!/bin/sh\n"
            "if [ \"$1\" = --version ]; then echo 'perf version fake'; exit 0; fi\n"
            "echo \"$*\" >> '%s'\n"
            "[ %d -eq 0 ] || exit %d\n"
            "out=\n"
            "while [ $# -gt 0 ]; do\n"
            "  case $1 in -o) out=$2; shift 2 ;; --) break ;; *) shift ;; esac\n"
            "done\n"
            "[ -n \"$out\" ] || exit 1\n"
            "cat '" HDATA "/perf-skylake.csv' > \"$out\"\n",
            log, rc, rc);
    fclose(f);
    FILE *o = fopen(path, "w");
    cr_assert_not_null(o);
    fputs(script, o);
    fclose(o);
    free(script);
    cr_assert_eq(chmod(path, 0755), 0);
}

/* Run the harness from `cwd` with `env` (VAR=value words) and `args`. */
static cli_run run_harness(const char *cwd, const char *env, const char *args)
{
    cli_run r = {-1, NULL, NULL};
    char outp[] = "/tmp/ddio-harness-out-XXXXXX", errp[] = "/tmp/ddio-harness-err-XXXXXX";
    int fo = mkstemp(outp), fe = mkstemp(errp);
    cr_assert(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    r.status = shf("cd '%s' && " CLEAN_ENV " %s '" HARNESS "' %s </dev/null >'%s' 2>'%s'", cwd, env,
                   args, outp, errp);
    r.out = slurp(outp, NULL);
    r.err = slurp(errp, NULL);
    unlink(outp);
    unlink(errp);
    cr_assert(r.out && r.err);
    return r;
}

static void expect_file_eq(const char *got_path, const char *want_path)
{
    char *got = slurp(got_path, NULL), *want = slurp(want_path, NULL);
    cr_assert_not_null(got, "%s missing", got_path);
    cr_assert_not_null(want, "%s missing", want_path);
    cr_expect_str_eq(got, want, "%s differs from %s", got_path, want_path);
    free(got);
    free(want);
}

/* One line on stderr, ending with a newline, containing `want`. */
static void expect_one_line(const cli_run *r, const char *want, const char *what)
{
    cr_expect_eq(count_lines_with(r->err, ""), 1, "%s: stderr is not one line: [%s]", what, r->err);
    size_t n = strlen(r->err);
    cr_expect(n > 0 && r->err[n - 1] == '\n', "%s: stderr [%s]", what, r->err);
    cr_expect(strstr(r->err, "ddio-harness: ") == r->err, "%s: stderr [%s]", what, r->err);
    cr_expect(strstr(r->err, want) != NULL, "%s: [%s] does not name [%s]", what, r->err, want);
}

/* The one-line warning of --ddio-ways on Ice Lake-SP and later. */
#define MSR_WARNING "writing MSR 0xC8B (IIO_LLC_WAYS) may not change the LLC ways DDIO writes into"

/* The dry run of `args` prints `recorded` on stdout and, on stderr, nothing
 * or (warning != NULL) one line naming `warning`. */
static void dry_run_matches(const char *args, const char *recorded, const char *warning)
{
    char tmp[64], sys[128], env[160], want[256];
    make_tmpdir(tmp, sizeof tmp);
    snprintf(sys, sizeof sys, "%s/sys", tmp);
    fake_sysfs(sys, 0); /* dry-run needs no uncore PMU */
    snprintf(env, sizeof env, "DDIO_HARNESS_SYSFS='%s'", sys);
    cli_run r = run_harness(tmp, env, args);
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    if (warning)
        expect_one_line(&r, warning, recorded);
    else
        cr_expect_str_eq(r.err, "");
    snprintf(want, sizeof want, HDATA "/%s", recorded);
    char *w = slurp(want, NULL);
    cr_assert_not_null(w);
    cr_expect_str_eq(r.out, w, "dry-run output differs from %s", recorded);
    free(w);
    /* the printed commands are a shell script (quoting, $(...)) */
    char script[128];
    snprintf(script, sizeof script, "%s/dry.sh", tmp);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fputs(r.out, f);
    fclose(f);
    cr_expect_eq(shf("bash -n '%s'", script), 0);
    /* and nothing was created */
    cr_expect_eq(shf("test ! -e '%s/results' && test ! -e '%s/out'", tmp, tmp), 0);
    cli_run_free(&r);
    rm_rf(tmp);
}

Test(validate_harness, dry_run_skylake_matches_recorded)
{
    /* socket 1 -> CPU 2; 4 of 11 ways -> 0x780; opcode filter events */
    dry_run_matches("--dry-run --cpu skylake --socket 1 --ddio-ways 4 --cat 0x07f --cat-cores 2-3 "
                    "--runs 2 --duration 30 --interval 1000 --machine skylake-6140 --workload l2fwd "
                    "--param rx_ring=1024 --param cores=1 -o results/skx-l2fwd -- "
                    "./build/l2fwd -l 2 -n 4 -- -p 0x1 --name 'rx run'",
                    "dry-run-skylake.txt", NULL);
}

Test(validate_harness, dry_run_icelake_matches_recorded)
{
    /* 2 of 12 ways -> 0xc00; extended-umask events, ICX CAS encodings; the
     * commands are for an Ice Lake-SP, so --ddio-ways warns that the MSR
     * may not take effect there */
    dry_run_matches("--dry-run --cpu icelake --ddio-ways 2 --runs 1 --delay 2000 --machine icelake-8380 "
                    "--workload l3router --fixed pkt_size=1500 --param rate=max --param cores=2 "
                    "-o out/icx -- l3fwd -l 1-2",
                    "dry-run-icelake.txt", "--ddio-ways: on Ice Lake-SP " MSR_WARNING);
}

Test(validate_harness, no_uncore_pmu_is_one_line_exit_2)
{
    char tmp[64], env[160];
    make_tmpdir(tmp, sizeof tmp); /* an empty sysfs: no uncore_cha_0 */
    snprintf(env, sizeof env, "DDIO_HARNESS_SYSFS='%s' DDIO_HARNESS_SKIP_ROOT=1", tmp);
    cli_run r = run_harness(tmp, env,
                            "--cpu skylake --machine skylake-6140 --workload l2fwd -o exp -- true");
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "no Intel uncore PMU", "no uncore");
    cr_expect_str_eq(r.out, "");
    cr_expect_eq(shf("test ! -e '%s/exp'", tmp), 0, "the experiment folder was created");
    cli_run_free(&r);
    rm_rf(tmp);
}

Test(validate_harness, unknown_param_is_one_line_exit_2)
{
    cli_run r = run_harness("/tmp", "", "--dry-run --cpu skylake --machine skylake-6140 --workload l2fwd "
                                        "--param rx_ring=1024 --param ring_size=512 -o exp -- true");
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "unknown parameter 'ring_size'", "unknown param");
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);
}

Test(validate_harness, bad_cpu_is_one_line_exit_2)
{
    cli_run r = run_harness("/tmp", "", "--dry-run --cpu haswell --machine m --workload w -o exp -- true");
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "--cpu: unknown generation 'haswell'", "bad cpu");
    cli_run_free(&r);
}

Test(validate_harness, missing_command_is_one_line_exit_2)
{
    cli_run r = run_harness("/tmp", "", "--dry-run --cpu skylake --machine m --workload w -o exp --");
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "no workload command", "no command");
    cli_run_free(&r);
}

Test(validate_harness, bad_options_are_one_line_exit_2)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"--bogus", "unknown option '--bogus'"},
        {"--dry-run --cpu skylake -o e --runs", "--runs needs a value"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --runs 0 -- true", "--runs: '0'"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --ddio-ways 12 -- true",
         "--ddio-ways 12: the LLC has 11 ways"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --cat 0xf -- true",
         "--cat and --cat-cores go together"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --cat 15 --cat-cores 1 -- true",
         "--cat: '15' is not a hex way mask"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --param cores= -- true",
         "--param: cores has an empty value"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --param cores=1 --param cores=2 -- true",
         "--param: cores given twice"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --ddio-ways 3 --param ddio_ways=4 -- true",
         "contradicts --ddio-ways 3"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --socket 7 -- true",
         "--socket 7: no CPU"},
        {"--dry-run --cpu skylake -o e --machine m --workload w --fixed cores=4 --param cores=1 -- true",
         "--param cores: cores is a fixed parameter of the experiment (cores=4)"},
        {"--dry-run --cpu skylake -o e --machine m --workload w ./l2fwd", "stray argument './l2fwd'"},
        {"--dry-run --cpu skylake -o e --workload w -- true", "no --machine"},
        {"--dry-run --cpu skylake --machine m --workload w -- true", "no output folder"},
    };
    char tmp[64], sys[128], env[160];
    make_tmpdir(tmp, sizeof tmp);
    snprintf(sys, sizeof sys, "%s/sys", tmp);
    fake_sysfs(sys, 0);
    snprintf(env, sizeof env, "DDIO_HARNESS_SYSFS='%s'", sys);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_run r = run_harness(tmp, env, cases[i].args);
        cr_expect_eq(r.status, 2, "%s -> %d", cases[i].args, r.status);
        expect_one_line(&r, cases[i].want, cases[i].args);
        cli_run_free(&r);
    }
    rm_rf(tmp);
}

Test(validate_harness, help_exits_0)
{
    cli_run r = run_harness("/tmp", "", "--help");
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: ddio-harness") == r.out, "%s", r.out);
    cr_expect(strstr(r.out, "--ddio-ways K") != NULL);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
}

/* The environment of a measuring run on the fake Skylake-SP: fake sysfs with
 * uncore PMUs, fake /proc, fake perf, no root check. */
static void fake_machine(const char *tmp, int perf_rc, char *env, size_t n)
{
    char sys[128], proc[128], perf[128], log[128];
    snprintf(sys, sizeof sys, "%s/sys", tmp);
    snprintf(proc, sizeof proc, "%s/proc", tmp);
    snprintf(perf, sizeof perf, "%s/perf", tmp);
    snprintf(log, sizeof log, "%s/perf.log", tmp);
    fake_sysfs(sys, 1);
    fake_proc(proc);
    fake_perf(perf, log, perf_rc);
    snprintf(env, n,
             "DDIO_HARNESS_SYSFS='%s' DDIO_HARNESS_PROC='%s' DDIO_HARNESS_PERF='%s' DDIO_HARNESS_SKIP_ROOT=1",
             sys, proc, perf);
}

Test(validate_harness, experiment_json_of_two_points)
{
    char tmp[64], env[512], path[256];
    make_tmpdir(tmp, sizeof tmp);
    fake_machine(tmp, 0, env, sizeof env);

    /* point 1, two runs; no --cpu: Skylake-SP from the fake cpuinfo */
    cli_run r = run_harness(tmp, env,
                            "--runs 2 --machine skylake-6140 --workload l2fwd --fixed pkt_size=1500 "
                            "--param rx_ring=1024 --param cores=1 -o exp -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    /* point 2: other parameters add a point (machine etc. are remembered) */
    r = run_harness(tmp, env, "--param rx_ring=2048 --param cores=1 --param rate=max -o exp -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    /* the parameters of point 1 again, in another order: one more run of it */
    r = run_harness(tmp, env, "--param cores=1 --param rx_ring=1024 -o exp/ -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);

    snprintf(path, sizeof path, "%s/exp/experiment.json", tmp);
    expect_file_eq(path, HDATA "/experiment.json");
    static const char *runs[] = {"1/run-1", "1/run-2", "1/run-3", "2/run-1"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/exp/points/%s.csv", tmp, runs[i]);
        expect_file_eq(path, HDATA "/perf-skylake.csv");
    }
    /* perf ran four times, system-wide on socket 0's CPU, with the SKX events */
    snprintf(path, sizeof path, "%s/perf.log", tmp);
    char *log = slurp(path, NULL);
    cr_assert_not_null(log);
    cr_expect_eq(count_lines_with(log, ""), 4, "%s", log);
    cr_expect_eq(count_lines_with(log, "stat -x, -a -C 0 -o exp/points/"), 4, "%s", log);
    cr_expect_eq(count_lines_with(log, "filter_opc0=0x248,filter_loc=1,filter_rem=1,filter_nm=1,"
                                       "filter_not_nm=1,name=itom_hit/"),
                 4);
    cr_expect_eq(count_lines_with(log, "-- true"), 4);
    free(log);
    rm_rf(tmp);
}

Test(validate_harness, another_machine_in_the_same_folder_is_refused)
{
    char tmp[64], env[512];
    make_tmpdir(tmp, sizeof tmp);
    fake_machine(tmp, 0, env, sizeof env);
    cli_run r = run_harness(tmp, env, "--machine skylake-6140 --workload l2fwd --param cores=1 -o exp -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = run_harness(tmp, env, "--machine skylake-6132 --param cores=2 -o exp -- true");
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "--machine skylake-6132: the experiment in exp is on skylake-6140", "machine");
    cli_run_free(&r);
    rm_rf(tmp);
}

Test(validate_harness, failed_run_records_nothing)
{
    char tmp[64], env[512], path[128];
    make_tmpdir(tmp, sizeof tmp);
    fake_machine(tmp, 3, env, sizeof env); /* perf (the workload) exits 3 */
    cli_run r = run_harness(tmp, env, "--machine skylake-6140 --workload l2fwd --param cores=1 -o exp -- true");
    cr_expect_eq(r.status, 1);
    expect_one_line(&r, "run 1: perf / the workload exited with status 3", "failed run");
    snprintf(path, sizeof path, "%s/exp/experiment.json", tmp);
    cr_expect_eq(access(path, F_OK), -1, "experiment.json written for a failed run");
    cli_run_free(&r);
    rm_rf(tmp);
}

/* ---- issue 24, item 20 ------------------------------------------------------ */

/* The dry run's stdout for `args` with the fake sysfs (4 CPUs, no uncore),
 * plus `extra` shell commands run on it first (from the sysfs folder). */
static cli_run dry_run(const char *tmp, const char *extra, const char *args)
{
    char sys[128], env[160];
    snprintf(sys, sizeof sys, "%s/sys", tmp);
    fake_sysfs(sys, 0);
    if (extra)
        cr_assert_eq(shf("cd '%s' && %s", sys, extra), 0);
    snprintf(env, sizeof env, "DDIO_HARNESS_SYSFS='%s'", sys);
    return run_harness(tmp, env, args);
}

Test(validate_harness, way_counts_are_1_to_32_and_32_ways_are_a_full_mask)
{
    char tmp[64];
    make_tmpdir(tmp, sizeof tmp);
    /* 1 << 64 wrapped: the mask written was 0x0 */
    cli_run r = dry_run(tmp, NULL, "--dry-run --cpu skylake --ddio-ways 64 --llc-ways 64 --machine m --workload w "
                                   "-o e -- true");
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "--ddio-ways: '64' is not a way count in 1..32", "64 ways");
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);
    r = dry_run(tmp, NULL, "--dry-run --cpu skylake --ddio-ways 4 --llc-ways 33 --machine m --workload w -o e -- true");
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "--llc-ways: '33' is not a way count in 1..32", "33 ways");
    cli_run_free(&r);
    r = dry_run(tmp, NULL, "--dry-run --cpu skylake --ddio-ways 32 --llc-ways 32 --machine m --workload w -o e -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\nwrmsr -p 0 0xc8b 0xffffffff\n") != NULL, "%s", r.out);
    cli_run_free(&r);
    r = dry_run(tmp, NULL, "--dry-run --cpu skylake --ddio-ways 1 --llc-ways 32 --machine m --workload w -o e -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\nwrmsr -p 0 0xc8b 0x80000000\n") != NULL, "%s", r.out);
    cli_run_free(&r);
    rm_rf(tmp);
}

Test(validate_harness, dry_run_takes_the_ways_of_the_named_cpu_not_of_this_one)
{
    char tmp[64];
    make_tmpdir(tmp, sizeof tmp);
    /* this machine's LLC has 20 ways; a Skylake-SP's has 11: 2 of 11 = 0x600 */
    cli_run r = dry_run(tmp, "d=devices/system/cpu/cpu0/cache/index3 && mkdir -p $d && echo 3 > $d/level && "
                             "echo 20 > $d/ways_of_associativity",
                        "--dry-run --cpu skylake --ddio-ways 2 --machine m --workload w -o e -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\nwrmsr -p 0 0xc8b 0x600\n") != NULL, "%s", r.out);
    cli_run_free(&r);
    rm_rf(tmp);
}

Test(validate_harness, a_folder_name_ddiosim_would_refuse_is_refused_first)
{
    char tmp[64];
    make_tmpdir(tmp, sizeof tmp);
    const char *n64 = "a123456789b123456789c123456789d123456789e123456789f123456789g123";
    char args[256];
    snprintf(args, sizeof args, "--dry-run --cpu skylake --machine m --workload w -o 'x/%s' -- true", n64);
    cli_run r = dry_run(tmp, NULL, args);
    cr_expect_eq(r.status, 2);
    expect_one_line(&r, "-o: the folder name 'a123456789b123456789c123456789d123456789e123456789f123456789g123' "
                        "is 64 bytes; ddiosim names the experiment after it, at most 63", "64 bytes");
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);
    /* 63 bytes are fine */
    snprintf(args, sizeof args, "--dry-run --cpu skylake --machine m --workload w -o 'x/%.63s' -- true", n64);
    r = dry_run(tmp, NULL, args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    rm_rf(tmp);
}

Test(validate_harness, every_parameter_of_experiment_json_can_be_recorded)
{
    char tmp[64], env[512], path[256];
    make_tmpdir(tmp, sizeof tmp);
    fake_machine(tmp, 0, env, sizeof env);
    cli_run r = run_harness(tmp, env, "--machine skylake-6140 --workload l2fwd --param burst=32 --param flows=4096 "
                                      "--param flow_burst=128 --param gen_threads=4 --param flow_tuples=random "
                                      "-o exp -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(path, sizeof path, "%s/exp/experiment.json", tmp);
    char *j = slurp(path, NULL);
    cr_assert_not_null(j);
    cr_expect(strstr(j, "{\"params\": {\"burst\": 32, \"flows\": 4096, \"flow_burst\": 128, \"gen_threads\": 4, "
                        "\"flow_tuples\": \"random\"}, \"runs\": [\"points/1/run-1.csv\"]}") != NULL,
              "%s", j);
    free(j);
    rm_rf(tmp);
}

static void write_script(const char *tmp, const char *name, const char *body)
{
    char path[256];
    snprintf(path, sizeof path, "%s/bin/%s", tmp, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fprintf(f, "#!/bin/sh\necho \"%s $*\" >> '%s/tools.log'\n%s", name, tmp, body);
    fclose(f);
    cr_assert_eq(chmod(path, 0755), 0);
}

/* Fake modprobe, rdmsr (MSR 0xC8B reads 0x600, 0xC91 0x7ff, 0xC8F of CPU c
 * has class c in bits 32-63; not logged), wrmsr exiting `wrmsr_rc`, and
 * pqos, each logging its arguments to tmp/tools.log; PATH=... for the
 * environment into path_env. */
static void fake_tools(const char *tmp, int wrmsr_rc, char *path_env, size_t n)
{
    char bin[128], wr[32];
    snprintf(bin, sizeof bin, "%s/bin", tmp);
    cr_assert_eq(mkdir(bin, 0755), 0);
    write_script(tmp, "modprobe", "");
    snprintf(wr, sizeof wr, "exit %d\n", wrmsr_rc);
    write_script(tmp, "wrmsr", wr);
    write_script(tmp, "pqos", "");
    char path[256];
    snprintf(path, sizeof path, "%s/rdmsr", bin);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("#!/bin/sh\ncase $4 in 0xc8b) echo 0x600 ;; 0xc91) echo 0x7ff ;; *) printf '0x%x\\n' $(($2 << 32)) ;; esac\n", f);
    fclose(f);
    cr_assert_eq(chmod(path, 0755), 0);
    snprintf(path_env, n, "PATH='%s':\"$PATH\"", bin);
}

Test(validate_harness, a_failed_wrmsr_says_so_and_restores_nothing)
{
    char tmp[64], env[512], pathv[256], all[800], log[128];
    make_tmpdir(tmp, sizeof tmp);
    fake_machine(tmp, 0, env, sizeof env);
    fake_tools(tmp, 1, pathv, sizeof pathv);
    snprintf(all, sizeof all, "%s %s", env, pathv);
    cli_run r = run_harness(tmp, all, "--machine skylake-6140 --workload l2fwd --ddio-ways 2 -o exp -- true");
    cr_expect_eq(r.status, 1);
    expect_one_line(&r, "wrmsr of MSR 0xC8B on cpu 0 failed: MSR 0xC8B is still 0x600, nothing was run", "wrmsr");
    cr_expect(strstr(r.err, "restore") == NULL, "%s", r.err);
    cli_run_free(&r);
    snprintf(log, sizeof log, "%s/tools.log", tmp);
    char *t = slurp(log, NULL);
    cr_assert_not_null(t);
    cr_expect_str_eq(t, "modprobe msr\nwrmsr -p 0 0xc8b 0x600\n");
    free(t);
    rm_rf(tmp);
}

Test(validate_harness, cat_is_restored_to_what_it_was_not_reset)
{
    char tmp[64], env[512], pathv[256], all[800], log[128];
    make_tmpdir(tmp, sizeof tmp);
    fake_machine(tmp, 0, env, sizeof env);
    fake_tools(tmp, 0, pathv, sizeof pathv);
    snprintf(all, sizeof all, "%s %s", env, pathv);
    cli_run r = run_harness(tmp, all, "--machine skylake-6140 --workload l2fwd --cat 0x00f --cat-cores 1-2 "
                                      "-o exp -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(log, sizeof log, "%s/tools.log", tmp);
    char *t = slurp(log, NULL);
    cr_assert_not_null(t);
    /* no pqos -R: class 1 gets its ways back, cores 1 and 2 their classes */
    cr_expect_str_eq(t, "modprobe msr\npqos -e llc:1=0x00f\npqos -a llc:1=1-2\n"
                        "pqos -e llc:1=0x7ff\npqos -a llc:1=1\npqos -a llc:2=2\n");
    free(t);
    rm_rf(tmp);
}

/* A measuring run on a fake CPU of this model (and its uncore formats), with
 * the fake msr tools: env into `all`. */
static void fake_machine_model(const char *tmp, int model, int stepping, char *all, size_t n)
{
    char env[512], pathv[256], proc[128];
    fake_machine(tmp, 0, env, sizeof env);
    snprintf(proc, sizeof proc, "%s/proc", tmp);
    fake_proc_model(proc, model, stepping, "Intel(R) Xeon(R) CPU");
    /* the extended umask of Ice Lake-SP and later, besides Skylake-SP's filter_opc0 */
    cr_assert_eq(shf("echo config:8-15,32-57 > '%s/sys/bus/event_source/devices/uncore_cha_0/format/umask'", tmp), 0);
    fake_tools(tmp, 0, pathv, sizeof pathv);
    snprintf(all, n, "%s %s", env, pathv);
}

Test(validate_harness, ddio_ways_on_icelake_and_later_warn_that_the_msr_may_not_work)
{
    static const struct {
        int model, stepping;
        const char *cpu, *names;
    } cpus[] = {
        {106, 6, "", "on Ice Lake-SP "},                          /* 0x6A, detected as icelake */
        {143, 8, "", "on Sapphire Rapids "},                      /* 0x8F */
        {207, 2, "--cpu sapphirerapids", "on Sapphire Rapids "}, /* Emerald Rapids, not detected */
        {173, 1, "--cpu skylake", "on CPU model 0xAD "},         /* Granite Rapids: by its model alone */
        {108, 1, "--cpu skylake", "on CPU model 0x6C "},         /* Ice Lake-D */
    };
    for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
        char tmp[64], all[800], args[256], want[256], log[128];
        make_tmpdir(tmp, sizeof tmp);
        fake_machine_model(tmp, cpus[i].model, cpus[i].stepping, all, sizeof all);
        snprintf(args, sizeof args, "%s --machine icelake-6338 --workload l2fwd --ddio-ways 2 --llc-ways 12 -o exp -- true",
                 cpus[i].cpu);
        cli_run r = run_harness(tmp, all, args);
        /* a warning, not an error: the MSR is written, the run recorded */
        cr_expect_eq(r.status, 0, "model %d: %s", cpus[i].model, r.err);
        snprintf(want, sizeof want, "ddio-harness: warning: --ddio-ways: %s" MSR_WARNING
                 " (reported by users of FastClick's DDIOTune, tbarbette/fastclick#392); check that the hit rates move\n",
                 cpus[i].names);
        cr_expect_str_eq(r.err, want, "model %d", cpus[i].model);
        cli_run_free(&r);
        snprintf(log, sizeof log, "%s/tools.log", tmp);
        char *t = slurp(log, NULL);
        cr_assert_not_null(t);
        cr_expect_str_eq(t, "modprobe msr\nwrmsr -p 0 0xc8b 0xc00\nwrmsr -p 0 0xc8b 0x600\n", "model %d", cpus[i].model);
        free(t);
        snprintf(log, sizeof log, "%s/exp/experiment.json", tmp);
        cr_expect_eq(access(log, F_OK), 0, "model %d: nothing recorded", cpus[i].model);
        rm_rf(tmp);
    }
}

Test(validate_harness, ddio_ways_on_skylake_and_cascade_lake_do_not_warn)
{
    static const struct {
        int model, stepping;
    } cpus[] = {{85, 4}, {85, 7}}; /* Skylake-SP (Gold 6140), Cascade Lake (Gold 6248) */
    for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
        char tmp[64], all[800], log[128];
        make_tmpdir(tmp, sizeof tmp);
        fake_machine_model(tmp, cpus[i].model, cpus[i].stepping, all, sizeof all);
        cli_run r = run_harness(tmp, all, "--machine skylake-6140 --workload l2fwd --ddio-ways 4 -o exp -- true");
        cr_expect_eq(r.status, 0, "stepping %d: %s", cpus[i].stepping, r.err);
        cr_expect_str_eq(r.err, "", "stepping %d", cpus[i].stepping);
        cli_run_free(&r);
        snprintf(log, sizeof log, "%s/tools.log", tmp);
        char *t = slurp(log, NULL);
        cr_assert_not_null(t);
        /* 4 of 11 ways (no sysfs cache info: the Skylake-SP default) */
        cr_expect_str_eq(t, "modprobe msr\nwrmsr -p 0 0xc8b 0x780\nwrmsr -p 0 0xc8b 0x600\n");
        free(t);
        rm_rf(tmp);
    }
    /* a dry run for an Ice Lake-SP warns whatever this machine is; one for a
     * Skylake-SP does not, and nothing warns without --ddio-ways */
    char tmp[64];
    make_tmpdir(tmp, sizeof tmp);
    cli_run r = dry_run(tmp, NULL, "--dry-run --cpu skylake --ddio-ways 2 --machine m --workload w -o e -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    r = dry_run(tmp, NULL, "--dry-run --cpu sapphirerapids --machine m --workload w -o e -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cli_run_free(&r);
    r = dry_run(tmp, NULL, "--dry-run --cpu sapphirerapids --ddio-ways 2 --machine m --workload w -o e -- true");
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_one_line(&r, "--ddio-ways: on Sapphire Rapids " MSR_WARNING, "spr dry run");
    cr_expect(strstr(r.out, "\nwrmsr -p 0 0xc8b 0x6000\n") != NULL, "%s", r.out);
    cli_run_free(&r);
    rm_rf(tmp);
}

/* ------------------------------------------------------------ the NPF test script */

#define TESTIE DDIOSIM_SOURCE_DIR "/validate/harness/ddio-harness.npf"
#define NPF_MAX_VARS 32
#define NPF_MAX_VALUES 64

/* The testie as NPF reads it (npf/section.py, SectionFactory and
 * SectionVariable): lines starting with % open a section; every line of
 * %variables and %config is NAME=VALUE. */
typedef struct testie {
    char *text;
    int n_info, n_config, n_variables, n_script;
    size_t nvar;
    char name[NPF_MAX_VARS][32];
    char value[NPF_MAX_VARS][256];
    size_t nconf;
    char conf[8][32];
    char script[8192];
} testie;

static void testie_load(testie *t)
{
    memset(t, 0, sizeof *t);
    t->text = slurp(TESTIE, NULL);
    cr_assert_not_null(t->text, TESTIE " missing");
    char *save = NULL, *copy = strdup(t->text);
    cr_assert_not_null(copy);
    const char *section = "";
    size_t sl = 0;
    /* strtok_r skips empty lines, which NPF skips too in these sections */
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '%') {
            char word[32] = "";
            sscanf(line + 1, "%31[a-z_]", word);
            cr_assert(strcmp(word, "info") == 0 || strcmp(word, "config") == 0 || strcmp(word, "variables") == 0 ||
                          strcmp(word, "script") == 0,
                      "unknown section line '%s'", line);
            cr_assert(strcmp(word, "script") != 0 || strcmp(line, "%script") == 0 ||
                          strncmp(line, "%script@", 8) == 0 || strncmp(line, "%script ", 8) == 0,
                      "bad script header '%s'", line);
            t->n_info += strcmp(word, "info") == 0;
            t->n_config += strcmp(word, "config") == 0;
            t->n_variables += strcmp(word, "variables") == 0;
            t->n_script += strcmp(word, "script") == 0;
            section = strcmp(word, "info") == 0 ? "info" : strcmp(word, "config") == 0 ? "config"
                          : strcmp(word, "variables") == 0 ? "variables" : "script";
            continue;
        }
        if (strcmp(section, "variables") == 0 || strcmp(section, "config") == 0) {
            char *eq = strchr(line, '=');
            cr_assert_not_null(eq, "%%%s: '%s' is not NAME=VALUE", section, line);
            *eq = '\0';
            cr_assert(strlen(line) > 0 && strlen(line) < 32 && strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                              "abcdefghijklmnopqrstuvwxyz0123456789_")
                                                                    == strlen(line),
                      "%%%s: bad name '%s'", section, line);
            if (strcmp(section, "config") == 0) {
                cr_assert_lt(t->nconf, 8);
                snprintf(t->conf[t->nconf++], 32, "%s", line);
            } else {
                cr_assert_lt(t->nvar, NPF_MAX_VARS);
                snprintf(t->name[t->nvar], 32, "%s", line);
                snprintf(t->value[t->nvar++], 256, "%s", eq + 1);
            }
        } else if (strcmp(section, "script") == 0) {
            cr_assert_lt(sl + strlen(line) + 2, sizeof t->script);
            sl += (size_t)sprintf(t->script + sl, "%s\n", line);
        } else {
            cr_assert_str_eq(section, "info", "text before the first section: '%s'", line);
        }
    }
    free(copy);
}

static int testie_var(const testie *t, const char *name)
{
    for (size_t i = 0; i < t->nvar; i++)
        if (strcmp(t->name[i], name) == 0)
            return (int)i;
    return -1;
}

/* A variable's values as NPF's VariableFactory makes them: {a,b,...} a
 * list, [a-b] a range by 1, [a*b] by doubling, anything else one value. */
static size_t testie_values(const char *v, char out[][64])
{
    size_t n = 0;
    long a, b;
    char op;
    if (sscanf(v, "[%ld%c%ld]", &a, &op, &b) == 3 && (op == '-' || op == '*')) {
        for (long x = a; x <= b && n < NPF_MAX_VALUES; x = op == '*' ? x * 2 : x + 1)
            snprintf(out[n++], 64, "%ld", x);
        return n;
    }
    size_t len = strlen(v);
    if (len >= 2 && v[0] == '{' && v[len - 1] == '}') {
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(len - 2), v + 1);
        char *save = NULL;
        for (char *w = strtok_r(buf, ",", &save); w && n < NPF_MAX_VALUES; w = strtok_r(NULL, ",", &save))
            snprintf(out[n++], 64, "%s", w);
        return n;
    }
    snprintf(out[0], 64, "%s", v);
    return 1;
}

/* The file is NPF's format, and every variable it hands the harness as a
 * ddiosim parameter (--param / --fixed NAME=$VAR, --ddio-ways $VAR) is a
 * parameter of experiment.json whose every value the schema accepts. */
Test(validate_harness, npf_testie_sections_and_variables_match_the_schema)
{
    testie t;
    testie_load(&t);
    cr_expect_eq(t.n_info, 1);
    cr_expect_eq(t.n_config, 1);
    cr_expect_eq(t.n_variables, 1);
    cr_expect_eq(t.n_script, 1);
    /* %config: only keys NPF's SectionConfig knows (it refuses others) */
    for (size_t i = 0; i < t.nconf; i++)
        cr_expect(strcmp(t.conf[i], "n_runs") == 0 || strcmp(t.conf[i], "timeout") == 0 ||
                      strcmp(t.conf[i], "var_names") == 0, "%%config: %s", t.conf[i]);
    /* every $NAME in upper case is a variable NPF replaces; lower case
     * names are the script's own shell variables */
    for (const char *p = strchr(t.script, '$'); p; p = strchr(p + 1, '$')) {
        char name[32] = "";
        if (sscanf(p + 1, "%31[A-Z0-9_]", name) == 1 && name[0] >= 'A' && name[0] <= 'Z')
            cr_expect_geq(testie_var(&t, name), 0, "$%s is not a variable of %%variables", name);
        cr_expect_neq(strncmp(p, "$((", 3), 0, "NPF evaluates $((...)) itself");
    }
    /* the parameters */
    static const char *const opts[] = {"--param ", "--fixed ", "--ddio-ways "};
    int found = 0;
    for (size_t o = 0; o < 3; o++)
        for (const char *p = strstr(t.script, opts[o]); p; p = strstr(p + 1, opts[o])) {
            char param[32], var[32];
            const char *q = p + strlen(opts[o]);
            if (o == 2) {
                snprintf(param, sizeof param, "ddio_ways");
                cr_assert_eq(sscanf(q, "$%31[A-Z0-9_]", var), 1, "%.40s", p);
            } else {
                cr_assert_eq(sscanf(q, "%31[a-z_]=$%31[A-Z0-9_]", param, var), 2, "%.40s", p);
            }
            cr_assert_not_null(vd_param_find(param), "%s is not a parameter of experiment.json", param);
            int v = testie_var(&t, var);
            cr_assert_geq(v, 0, "%s: $%s is not a variable", param, var);
            char values[NPF_MAX_VALUES][64];
            size_t n = testie_values(t.value[v], values);
            cr_expect_geq(n, 1);
            for (size_t k = 0; k < n; k++) {
                char *end;
                double x = strtod(values[k], &end);
                cJSON *j = *end ? cJSON_CreateString(values[k]) : cJSON_CreateNumber(x);
                vd_param out;
                char msg[400];
                cr_expect_eq(vd_param_from_json(param, j, &out, msg, sizeof msg), 0, "%s=%s: %s", param, values[k],
                             msg);
                if (strcmp(param, "ddio_ways") == 0)
                    cr_expect(x >= 1 && x <= 32, "--ddio-ways %s", values[k]);
                cJSON_Delete(j);
            }
            found++;
        }
    cr_expect_eq(found, 4, "pkt_size, cores, rx_ring and ddio_ways");
    /* NDESC and DDIO_WAYS vary: NPF's --output writes them as the x columns,
     * in its (sorted) order of the variables: DDIO_WAYS, then NDESC */
    char values[NPF_MAX_VALUES][64];
    cr_expect_eq(testie_values(t.value[testie_var(&t, "NDESC")], values), 5);
    cr_expect_str_eq(values[4], "4096");
    cr_expect_eq(testie_values(t.value[testie_var(&t, "DDIO_WAYS")], values), 3);
    cr_expect_str_eq(values[2], "4");
    size_t varied = 0;
    for (size_t i = 0; i < t.nvar; i++)
        varied += testie_values(t.value[i], values) > 1;
    cr_expect_eq(varied, 2);
    /* the results: names NPF's result_regex takes ([A-Z0-9_:~-]) */
    int results = 0;
    for (const char *p = strstr(t.script, "RESULT-"); p; p = strstr(p + 1, "RESULT-"), results++) {
        size_t k = strspn(p + 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:~-");
        cr_expect(k > 0 && p[7 + k] == ' ', "%.40s", p);
    }
    cr_expect_eq(results, 2);
    free(t.text);
}

/* Run the %script as NPF would, its variables replaced (here: the shell
 * expands them from the environment), under the fake machine of the tests
 * above: the harness records the runs in the folder, the script prints the
 * run's rates as NPF results, and both the folder and NPF's
 * --single-output of those results load as experiments. */
Test(validate_harness, npf_testie_script_runs_the_harness_and_prints_results)
{
    testie t;
    testie_load(&t);
    char tmp[64], env[512], pathv[256], path[256];
    make_tmpdir(tmp, sizeof tmp);
    fake_machine(tmp, 0, env, sizeof env);
    fake_tools(tmp, 0, pathv, sizeof pathv);
    snprintf(path, sizeof path, "%s/script.sh", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(t.script, f);
    fclose(f);
    /* two runs of (256, 2 ways), one of (512, 2 ways) */
    static const char *const grid[][2] = {{"256", "2"}, {"256", "2"}, {"512", "2"}};
    char want[128];
    snprintf(want, sizeof want, "RESULT-ITOM-HIT-RATE %.6f\nRESULT-PCIRDCUR-HIT-RATE %.6f\n",
             100.0 * 812391 / (812391 + 95112), 100.0 * 771021 / (771021 + 40020));
    char csv[2048];
    size_t cl = (size_t)snprintf(csv, sizeof csv, "index,build,test_index,CORES,DDIO_WAYS,LENGTH,NDESC,"
                                                  "ITOM-HIT-RATE,PCIRDCUR-HIT-RATE,run_index\n");
    for (size_t i = 0; i < 3; i++) {
        char vars[1024] = "";
        size_t vl = 0;
        for (size_t k = 0; k < t.nvar; k++) {
            const char *v = t.value[k];
            if (strcmp(t.name[k], "NDESC") == 0)
                v = grid[i][0];
            else if (strcmp(t.name[k], "DDIO_WAYS") == 0)
                v = grid[i][1];
            else if (strcmp(t.name[k], "EXP") == 0)
                v = "exp";
            else if (strcmp(t.name[k], "HARNESS") == 0)
                v = HARNESS;
            else if (strcmp(t.name[k], "WORKLOAD_CMD") == 0)
                v = "true";
            vl += (size_t)snprintf(vars + vl, sizeof vars - vl, "%s='%s' ", t.name[k], v);
        }
        char outp[128];
        snprintf(outp, sizeof outp, "%s/out-%zu.txt", tmp, i);
        int rc = shf("cd '%s' && " CLEAN_ENV " %s %s %s bash script.sh >'%s' 2>/dev/null", tmp, env, pathv, vars, outp);
        cr_assert_eq(rc, 0, "run %zu", i);
        char *out = slurp(outp, NULL);
        cr_assert_not_null(out);
        cr_expect_str_eq(out, want, "run %zu", i);
        char w[64] = "", r[64] = "";
        cr_assert_eq(sscanf(out, "RESULT-ITOM-HIT-RATE %63s\nRESULT-PCIRDCUR-HIT-RATE %63s", w, r), 2);
        /* the row NPF's --single-output writes for this run (the variables
         * that matter here, the results, the run's index) */
        cl += (size_t)snprintf(csv + cl, sizeof csv - cl, "%zu,Local,%d,1,%s,1500,%s,%s,%s,%d\n", i, i == 2,
                               grid[i][1], grid[i][0], w, r, i == 1);
        free(out);
    }
    /* the harness's folder: a perf experiment of two points */
    snprintf(path, sizeof path, "%s/exp", tmp);
    vd_experiment x;
    ddio_err e = {0};
    cr_assert_eq(vd_experiment_load(path, &x, &e), 0, "%s", e.msg);
    cr_assert_eq(x.n, 2);
    const vd_point *p = &x.point[0];
    cr_expect_eq(vd_point_param(p, "rx_ring")->value, 256);
    cr_expect_eq(vd_point_param(p, "ddio_ways")->value, 2);
    cr_expect_eq(vd_point_param(p, "pkt_size")->value, 1500);
    cr_expect_eq(vd_point_param(p, "cores")->value, 1);
    cr_expect_eq(p->m[VD_PCIE_WRITE_HIT].runs, 2);
    cr_expect_eq(p->m[VD_PCIE_WRITE_HIT].mean, 812391.0 / (812391.0 + 95112.0));
    cr_expect_eq(x.point[1].m[VD_PCIE_WRITE_HIT].runs, 1);
    cr_expect_eq(vd_point_param(&x.point[1], "rx_ring")->value, 512);
    vd_experiment_free(&x);
    /* NPF's --single-output of these results, read as docs/harness.md says */
    char npf[128];
    snprintf(npf, sizeof npf, "%s/npf", tmp);
    cr_assert_eq(mkdir(npf, 0755), 0);
    put_file(npf, "results.csv", csv);
    put_file(npf, "experiment.json",
             "{\"name\": \"npf\", \"source\": \"npf\", \"format\": \"single-output\", \"file\": \"results.csv\",\n"
             " \"machine\": \"skylake-6140\", \"workload\": \"l2fwd\", \"fixed\": {\"pkt_size\": 1500, \"cores\": 1},\n"
             " \"x\": [{\"param\": \"ddio_ways\", \"column\": \"DDIO_WAYS\"}, {\"param\": \"rx_ring\", \"column\": \"NDESC\"}],\n"
             " \"metrics\": {\"pcie_write_hit\": \"ITOM-HIT-RATE\", \"pcie_read_hit\": \"PCIRDCUR-HIT-RATE\"}}\n");
    cr_assert_eq(vd_experiment_load(npf, &x, &e), 0, "%s", e.msg);
    cr_assert_eq(x.n, 2);
    cr_expect_eq(x.n_warning, 0);
    cr_expect_eq(x.point[0].m[VD_PCIE_WRITE_HIT].runs, 2);
    cr_expect(fabs(x.point[0].m[VD_PCIE_WRITE_HIT].mean - 812391.0 / (812391.0 + 95112.0)) < 1e-8, "%.17g",
              x.point[0].m[VD_PCIE_WRITE_HIT].mean);
    cr_expect_eq(vd_point_param(&x.point[1], "rx_ring")->value, 512);
    vd_experiment_free(&x);
    rm_rf(tmp);
    free(t.text);
}
