/* test_install.c - an installed or copied ddiosim finds its own data and
 * never the source tree: the data directory rule (sim/common/datadir.h) on
 * fake trees, `cmake --install` of this build into a temporary prefix with
 * the installed binary run from / with no options, the installed library
 * used from C and Python, a binary copied alone;
 * and `ddiosim help TOPIC`. */
#define _DEFAULT_SOURCE 1 /* mkdtemp */
#include "tests/helpers.h"

#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/common/datadir.h"

/* The variables that would point a run elsewhere, unset for every run. */
#define CLEAN_ENV "env -u DDIOSIM_DATA_DIR -u DDIOSIM_CONFIG_DIR"

/* Run a shell command (a printf format and its arguments) from /, stdin
 * from /dev/null, stdout and stderr captured (cli_run_free). */
#define run_at_root(fmt, ...) run_shellf("/", fmt " </dev/null", __VA_ARGS__)

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------------------ the rule */

/* The data directory for an executable at t/exe, with $DDIOSIM_DATA_DIR
 * `env`; "" and e filled on error. */
static const char *datadir_of(const char *t, const char *exe, const char *env, ddio_err *e)
{
    static char dir[DDIO_DATA_PATH_MAX];
    char path[DDIO_DATA_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", t, exe);
    if (ddio_datadir_for(path, env, dir, sizeof dir, e) != 0)
        dir[0] = '\0';
    return dir;
}

Test(install_datadir, an_install_tree_is_bindir_parent_share_ddiosim)
{
    char t[64], want[128];
    make_tmpdir(t, sizeof t);
    cr_assert_eq(shf("mkdir -p '%s/bin' '%s/share/ddiosim/configs/machines'", t, t), 0);
    ddio_err e = {0};
    snprintf(want, sizeof want, "%s/share/ddiosim", t);
    cr_expect_str_eq(datadir_of(t, "bin/ddiosim", NULL, &e), want, "%s", e.msg);
    rm_rf(t);
}

Test(install_datadir, a_build_tree_is_bindir_parent)
{
    char t[64];
    make_tmpdir(t, sizeof t);
    cr_assert_eq(shf("mkdir -p '%s/build-test' '%s/configs/machines'", t, t), 0);
    ddio_err e = {0};
    cr_expect_str_eq(datadir_of(t, "build-test/ddiosim_tests", NULL, &e), t, "%s", e.msg);
    rm_rf(t);
}

Test(install_datadir, the_install_tree_comes_first)
{
    char t[64], want[128];
    make_tmpdir(t, sizeof t);
    cr_assert_eq(shf("mkdir -p '%s/configs/machines' '%s/share/ddiosim/configs/machines'", t, t), 0);
    ddio_err e = {0};
    snprintf(want, sizeof want, "%s/share/ddiosim", t);
    cr_expect_str_eq(datadir_of(t, "bin/ddiosim", NULL, &e), want, "%s", e.msg);
    rm_rf(t);
}

Test(install_datadir, neither_is_an_error_naming_both)
{
    char t[64], want[512];
    make_tmpdir(t, sizeof t);
    /* configs/ without machines/ is not a data directory. */
    cr_assert_eq(shf("mkdir -p '%s/bin' '%s/configs/workloads'", t, t), 0);
    ddio_err e = {0};
    cr_expect_str_eq(datadir_of(t, "bin/ddiosim", NULL, &e), "");
    cr_expect_eq(e.exit_code, DDIO_EXIT_IO);
    snprintf(want, sizeof want,
             "no data files for %s/bin/ddiosim: neither %s/share/ddiosim nor %s holds configs/machines "
             "(install with cmake --install, or set DDIOSIM_DATA_DIR)",
             t, t, t);
    cr_expect_str_eq(e.msg, want);
    rm_rf(t);
}

Test(install_datadir, ddiosim_data_dir_wins_and_must_be_a_directory)
{
    char t[64], env[128], want[256];
    make_tmpdir(t, sizeof t);
    cr_assert_eq(shf("mkdir -p '%s/share/ddiosim/configs/machines' '%s/elsewhere' && touch '%s/file'", t, t, t), 0);
    ddio_err e = {0};
    /* Taken as given (no configs/machines needed), trailing '/' dropped. */
    snprintf(env, sizeof env, "%s/elsewhere//", t);
    snprintf(want, sizeof want, "%s/elsewhere", t);
    cr_expect_str_eq(datadir_of(t, "bin/ddiosim", env, &e), want, "%s", e.msg);
    snprintf(env, sizeof env, "%s/missing", t);
    cr_expect_str_eq(datadir_of(t, "bin/ddiosim", env, &e), "");
    snprintf(want, sizeof want, "DDIOSIM_DATA_DIR=%s/missing: No such file or directory", t);
    cr_expect_str_eq(e.msg, want);
    snprintf(env, sizeof env, "%s/file", t);
    cr_expect_str_eq(datadir_of(t, "bin/ddiosim", env, &e), "");
    snprintf(want, sizeof want, "DDIOSIM_DATA_DIR=%s/file: not a directory", t);
    cr_expect_str_eq(e.msg, want);
    rm_rf(t);
}

/* The test binary sits in the build tree (SRC/build-test): its data are the
 * source tree's, which is how the rest of the suite finds configs by name. */
Test(install_datadir, the_tests_use_the_source_tree_as_a_build_tree)
{
    unsetenv("DDIOSIM_DATA_DIR");
    char path[DDIO_DATA_PATH_MAX];
    ddio_err e = {0};
    cr_assert_eq(ddio_datapath(DDIO_DATA_SAMPLE_TRACE, path, sizeof path, &e), 0, "%s", e.msg);
    cr_expect_str_eq(path, DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap");
    cr_assert_eq(ddio_datapath(DDIO_DATA_EXPERIMENTS, path, sizeof path, &e), 0, "%s", e.msg);
    cr_expect_str_eq(path, DDIOSIM_SOURCE_DIR "/validate/data");
}

/* ------------------------------------------------------------ installed */

Test(install, installed_binary_runs_from_root_on_its_own_data, .timeout = 300)
{
    char p[64], path[256];
    make_tmpdir(p, sizeof p);
    cr_assert_eq(shf("'%s' --install '%s' --prefix '%s' >/dev/null", DDIOSIM_CMAKE, DDIOSIM_BUILD_DIR, p), 0);
    static const char *const files[] = {
        "bin/ddiosim", "bin/ddio-harness", "share/ddiosim/configs/machines/skylake-6140.json",
        "share/ddiosim/configs/workloads/l2fwd.json", "share/ddiosim/traces/samples/mawi-64k.pcap",
        "share/ddiosim/validate/data/ddio-bench/cores/experiment.json", "share/man/man1/ddiosim.1",
        "share/ddiosim/configs/sweeps/fig17.json", "share/doc/ddiosim/README.md",
        "share/bash-completion/completions/ddiosim", "share/ddiosim/validate/harness/ddio-harness.npf",
        "share/doc/ddiosim/docs/sweep.md", "share/doc/ddiosim/docs/validation.md",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", p, files[i]);
        cr_expect_eq(access(path, R_OK), 0, "%s not installed", files[i]);
    }
    snprintf(path, sizeof path, "%s/bin/ddio-harness", p);
    cr_expect_eq(access(path, X_OK), 0, "ddio-harness not executable");

    /* No options but the length: the default trace is the installed one. */
    cli_run r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' simulate --packets 2000", p);
    cr_expect_eq(r.status, 0, "%s", r.err);
    snprintf(path, sizeof path, "traffic %s/share/ddiosim/traces/samples/mawi-64k.pcap", p);
    cr_expect_eq(count_lines_with(r.out, path), 1, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "packets          2000 injected"), 1, "%s", r.out);
    cli_run_free(&r);

    r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' config show --machine skylake-6132 --workload ipsec", p);
    cr_expect_eq(r.status, 0, "%s", r.err);
    snprintf(path, sizeof path, "machine skylake-6132  from %s/share/ddiosim/configs/machines/skylake-6132.json", p);
    cr_expect_eq(count_lines_with(r.out, path), 1, "%s", r.out);
    snprintf(path, sizeof path, "workload ipsec  from %s/share/ddiosim/configs/workloads/ipsec.json", p);
    cr_expect_eq(count_lines_with(r.out, path), 1, "%s", r.out);
    cli_run_free(&r);

    r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' config list", p);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "machines   broadwell-2650v4, cascadelake-6248, icelake-6338, sapphirerapids-6430, skylake-6132, skylake-6140\n"
                            "workloads  acrobat, firewall, ipsec, l2fwd, l3router, loadbalancer\n");
    cli_run_free(&r);

    /* Every shipped experiment, from the installed copy: the same report
     * as the build tree's binary on the source tree. */
    r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' validate --engine model", p);
    cli_run here = run_ddiosim("validate --engine model");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(here.status, 0, "%s", here.err);
    cr_expect_eq(count_lines_with(r.out, "  all                    model  write     63 "), 1, "%s", r.out);
    cr_expect_str_eq(r.out, here.out);
    cli_run_free(&r);
    cli_run_free(&here);

    r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' help files", p);
    snprintf(path, sizeof path, "\nThis binary's data directory: %s/share/ddiosim\n", p);
    cr_expect(strstr(r.out, path), "%s", r.out);
    cli_run_free(&r);
    rm_rf(p);
}

/* The library installed (docs/api.md): only <ddiosim.h> of the headers,
 * pkg-config and find_package(ddiosim) build the example against it, which
 * finds the data installed with the library; the Python module finds the
 * library installed with it.  Under the sanitizers the programs built are
 * instrumented too, and Python is left out (it would need their runtime
 * preloaded). */
#define SANITIZE_FLAGS (DDIOSIM_SANITIZED ? "-fsanitize=address,undefined" : "")
Test(install, the_installed_library_builds_programs, .timeout = 300)
{
    char p[64], path[256];
    make_tmpdir(p, sizeof p);
    cr_assert_eq(shf("'%s' --install '%s' --prefix '%s' >/dev/null", DDIOSIM_CMAKE, DDIOSIM_BUILD_DIR, p), 0);
    static const char *const files[] = {
        "include/ddiosim.h", "lib/libddiosim.so.1", "lib/libddiosim.so", "lib/pkgconfig/ddiosim.pc",
        "lib/cmake/ddiosim/ddiosimConfig.cmake", "lib/cmake/ddiosim/ddiosimConfigVersion.cmake",
        "lib/cmake/ddiosim/ddiosimTargets.cmake", "lib/python3/dist-packages/ddiosim/__init__.py",
        "lib/python3/dist-packages/ddiosim/_libdir.py",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", p, files[i]);
        cr_expect_eq(access(path, R_OK), 0, "%s not installed", files[i]);
    }
    char list[256];
    snprintf(path, sizeof path, "%s/include", p);
    cr_expect_str_eq(dir_listing(path, list, sizeof list), "ddiosim.h");

    const char *want = "rx-ring 256: PCIe write hit ";
    cli_run r = run_at_root("cc -std=c11 %s '%s/docs/examples/predict.c' $(PKG_CONFIG_PATH='%s/lib/pkgconfig' "
                            "pkg-config --cflags --libs ddiosim) -o '%s/predict-pc' && " CLEAN_ENV
                            " LD_LIBRARY_PATH='%s/lib' '%s/predict-pc'",
                            SANITIZE_FLAGS, DDIOSIM_SOURCE_DIR, p, p, p, p);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, want), 1, "%s", r.out);
    cli_run_free(&r);

    char cm[128];
    snprintf(cm, sizeof cm, "%s/use", p);
    cr_assert_eq(shf("mkdir '%s'", cm), 0);
    char text[1024];
    snprintf(text, sizeof text, "cmake_minimum_required(VERSION 3.18)\nproject(use C)\n"
                                "find_package(ddiosim 0.1 REQUIRED)\n"
                                "add_executable(predict %s/docs/examples/predict.c)\n"
                                "target_link_libraries(predict PRIVATE ddiosim::ddiosim)\n", DDIOSIM_SOURCE_DIR);
    put_file(cm, "CMakeLists.txt", text);
    r = run_at_root("'%s' -S '%s' -B '%s/b' -DCMAKE_PREFIX_PATH='%s' -DCMAKE_C_FLAGS='%s' >/dev/null && "
                    "'%s' --build '%s/b' >/dev/null && " CLEAN_ENV " '%s/b/predict'",
                    DDIOSIM_CMAKE, cm, cm, p, SANITIZE_FLAGS, DDIOSIM_CMAKE, cm, cm);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, want), 1, "%s", r.out);
    cli_run_free(&r);

    if (!DDIOSIM_SANITIZED) {
        r = run_at_root(CLEAN_ENV " -u DDIOSIM_LIB PYTHONPATH='%s/lib/python3/dist-packages' /usr/bin/python3 -c "
                        "'import ddiosim; print(ddiosim.predict(rx_ring=512)[\"input\"][\"rx_ring\"])'", p);
        cr_expect_eq(r.status, 0, "%s", r.err);
        cr_expect_str_eq(r.out, "512\n");
        cli_run_free(&r);
    }
    rm_rf(p);
}

/* A binary copied alone has no data: what needs them fails with one line
 * saying so (exit 1), what does not (built-in machine and workload, a
 * generated profile) runs; $DDIOSIM_DATA_DIR and $DDIOSIM_CONFIG_DIR point
 * it at data. */
Test(install, a_binary_copied_alone_reads_no_source_tree, .timeout = 120)
{
    char t[64], want[512];
    make_tmpdir(t, sizeof t);
    cr_assert_eq(shf("mkdir '%s/bin' && cp '%s' '%s/bin/ddiosim'", t, DDIOSIM_BIN, t), 0);
    char nodata[400];
    snprintf(nodata, sizeof nodata,
             "no data files for %s/bin/ddiosim: neither %s/share/ddiosim nor %s holds configs/machines "
             "(install with cmake --install, or set DDIOSIM_DATA_DIR)",
             t, t, t);

    cli_run r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' simulate --packets 2000", t);
    cr_expect_eq(r.status, 1);
    snprintf(want, sizeof want, "ddiosim simulate: %s\n", nodata);
    cr_expect_str_eq(r.err, want);
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);

    r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' simulate --profile mawi --packets 2000", t);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "traffic mawi"), 1, "%s", r.out);
    cli_run_free(&r);

    r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' config show --machine skylake-6132", t);
    cr_expect_eq(r.status, 2);
    snprintf(want, sizeof want, "ddiosim config: --machine: unknown machine 'skylake-6132' (known: none; %s)\n",
             nodata);
    cr_expect_str_eq(r.err, want);
    cli_run_free(&r);

    r = run_at_root(CLEAN_ENV " '%s/bin/ddiosim' validate --engine model", t);
    cr_expect_eq(r.status, 1);
    snprintf(want, sizeof want, "ddiosim validate: %s\n", nodata);
    cr_expect_str_eq(r.err, want);
    cli_run_free(&r);

    r = run_at_root("env -u DDIOSIM_CONFIG_DIR DDIOSIM_DATA_DIR='%s' '%s/bin/ddiosim' simulate --packets 2000",
                    DDIOSIM_SOURCE_DIR, t);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_lines_with(r.out, "traffic " DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap"), 1, "%s",
                 r.out);
    cli_run_free(&r);

    r = run_at_root("env -u DDIOSIM_DATA_DIR DDIOSIM_CONFIG_DIR='%s/configs' '%s/bin/ddiosim' config show "
                    "--machine skylake-6132",
                    DDIOSIM_SOURCE_DIR, t);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(
        count_lines_with(r.out, "machine skylake-6132  from " DDIOSIM_SOURCE_DIR "/configs/machines/skylake-6132.json"),
        1, "%s", r.out);
    cli_run_free(&r);
    cr_expect(is_dir(t));
    rm_rf(t);
}

/* ------------------------------------------------------------ help */

Test(help, lists_the_topics)
{
    cli_run r = run_ddiosim("help");
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out,
                     "usage: ddiosim help TOPIC\n"
                     "\n"
                     "What the terms of ddiosim's output mean.  Topics:\n"
                     "  regions    DDIO, Shared and L3* ways of the LLC; L2; memory\n"
                     "  hit-rates  PCIe write (ItoM, RFO) and read (PCIRdCur), CPU first, descriptors\n"
                     "  bounds     the model's LRU and BIP / QLRU bounds, their mean, its estimate\n"
                     "  queues     RX replenish, RX, TX, TX recycle, sw queue, idle\n"
                     "  accuracy   validate's err, MAE, max, bias and in bounds\n"
                     "  memory     memory traffic per packet and the I/O footprint\n"
                     "  files      where the machine, workload, trace and experiment files are found\n"
                     "\n"
                     "The commands and their options: ddiosim --help, ddiosim COMMAND --help.\n");
    cli_run_free(&r);
    /* --help of help is the same list; the commands' usage lists help. */
    r = run_ddiosim("help --help");
    cr_expect_eq(count_lines_with(r.out, "  regions    "), 1);
    cli_run_free(&r);
    r = run_ddiosim("--help");
    cr_expect_eq(count_lines_with(r.out, "  help           what the terms of the output mean"), 1, "%s", r.out);
    cli_run_free(&r);
}

/* Each term of the output leads to the topic that explains it. */
Test(help, the_terms_of_the_output_lead_to_their_topic)
{
    static const struct {
        const char *word, *topic, *says;
    } cases[] = {
        {"'L3*'", "regions", "  L3*      every other way"},
        {"Shared", "regions", "  Shared   the ways that hold a line also kept by an L2"},
        {"'CPU first'", "hit-rates", "  CPU first    the core's first access to each received packet"},
        {"'with descriptors'", "hit-rates", "\"with descriptors\" counts also"},
        {"ItoM", "hit-rates", "is an ItoM request"},
        {"pcie_read_hit", "hit-rates", "PCIRdCur"},
        {"LRU", "bounds", "  lower   LRU"},
        {"mean", "bounds", "  mean    (lower + upper) / 2"},
        {"'RX replenish'", "queues", "  RX replenish  empty buffers posted on the RX ring"},
        {"'TX recycle'", "queues", "  TX recycle    sent buffers"},
        {"'sw queue'", "queues", "  sw queue      packets in the software queue"},
        {"MAE", "accuracy", "  MAE               mean absolute error"},
        {"'in bounds'", "accuracy", "  in bounds         points whose measured mean lies within"},
        {"bias", "accuracy", "negative = the engine predicts fewer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "help %s", cases[i].word);
        cli_run r = run_ddiosim(args);
        snprintf(args, sizeof args, "help %s", cases[i].topic);
        cli_run t = run_ddiosim(args);
        cr_expect_eq(r.status, 0, "%s: %s", cases[i].word, r.err);
        cr_expect_str_eq(r.out, t.out, "help %s is not help %s", cases[i].word, cases[i].topic);
        cr_expect(strstr(r.out, cases[i].says), "help %s: %s", cases[i].word, r.out);
        cli_run_free(&r);
        cli_run_free(&t);
    }
}

Test(help, an_unknown_topic_is_one_line_and_exit_2)
{
    cli_run r = run_ddiosim("help simulate");
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim help: unknown topic 'simulate' (topics: regions, hit-rates, bounds, queues, "
                            "accuracy, memory, files; a command's options: ddiosim COMMAND --help)\n");
    cr_expect_str_eq(r.out, "");
    cli_run_free(&r);
    r = run_ddiosim("help bounds queues");
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim help: one topic at a time (see ddiosim help)\n");
    cli_run_free(&r);
}
