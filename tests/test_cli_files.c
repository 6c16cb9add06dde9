/* test_cli_files.c - the files a command writes and reads: -o follows a
 * symbolic link, writes a FIFO in place and keeps an existing file's mode;
 * SIGINT / SIGTERM remove the temporaries; an output that is a directory,
 * two outputs that are one file, and an output that is an input are
 * refused before the run; a directory given as an input is refused with
 * one message everywhere. */
#define _DEFAULT_SOURCE 1
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/helpers.h"

#define SAMPLE DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap"
/* A small pcap; its size is taken from a run to a new regular file. */
#define GEN10 "trace gen --profile imix --packets 10 --seed 3"

static char *fresh_dir(void)
{
    char *dir = strdup("/tmp/ddiosim-files-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

/* Remove dir and what it holds, one level of sub-folders included. */
static void remove_dir(char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* err is one line, "ddiosim[ COMMAND]: " then `tail` (the prefix is the
 * CLI's business, the message this file's). */
static void expect_error_line(const char *err, const char *tail, const char *args)
{
    size_t n = strlen(err), t = strlen(tail);
    cr_expect(strncmp(err, "ddiosim", 7) == 0, "%s: %s", args, err);
    cr_expect(n >= t + 1 && strncmp(err + n - t - 1, tail, t) == 0 && err[n - 1] == '\n', "%s:\n%s\nexpected the end:\n%s",
              args, err, tail);
    cr_expect_eq(count_lines_with(err, ""), 1, "%s: %s", args, err);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    cr_assert(fd >= 0, "%s", path);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    cr_assert_eq(chmod(path, mode), 0);   /* whatever the umask */
}

static size_t file_size(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s", path);
    return (size_t)st.st_size;
}

/* The size of GEN10's pcap, from a run to a plain new file. */
static size_t gen10_size(const char *dir)
{
    char args[600], path[400];
    snprintf(path, sizeof path, "%s/plain.pcap", dir);
    snprintf(args, sizeof args, GEN10 " -o %s", path);
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    size_t n = file_size(path);
    unlink(path);
    return n;
}

/* ------------------------------------------------------------ 1: what -o is */

/* A symbolic link is followed: the file it names gets the output and the
 * link stays a link, also when it dangles (its target is created). */
Test(cli_files, output_follows_a_symbolic_link)
{
    char *dir = fresh_dir(), args[600], link[400], real[400], ls[400];
    size_t want = gen10_size(dir);
    snprintf(real, sizeof real, "%s/real.pcap", dir);
    snprintf(link, sizeof link, "%s/link.pcap", dir);
    write_file(real, "old", 0644);
    cr_assert_eq(symlink("real.pcap", link), 0);
    snprintf(args, sizeof args, GEN10 " -o %s", link);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link was replaced by a file");
    cr_expect_eq(file_size(real), want);
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "link.pcap,real.pcap");

    /* A dangling link (to a file in a sub-folder): its target is created. */
    char sub[400], target[500];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    cr_assert_eq(unlink(link), 0);
    cr_assert_eq(symlink("sub/new.pcap", link), 0);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    cr_assert_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the dangling link was replaced by a file");
    snprintf(target, sizeof target, "%s/new.pcap", sub);
    cr_expect_eq(file_size(target), want);
    cr_expect_str_eq(dir_listing(sub, ls, sizeof ls), "new.pcap");
    remove_dir(dir);
}

/* A file that exists keeps its mode: a 0600 file stays 0600, a 0640 one
 * 0640, whatever the umask would give a new file. */
Test(cli_files, output_keeps_the_mode_of_the_file_it_replaces)
{
    char *dir = fresh_dir(), args[600], path[400];
    size_t want = gen10_size(dir);
    const mode_t modes[] = {0600, 0640, 0604};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/out.pcap", dir);
        write_file(path, "old", modes[i]);
        snprintf(args, sizeof args, GEN10 " -o %s", path);
        cli_run r = run_ddiosim(args);
        cr_expect_eq(r.status, 0, "%s", r.err);
        cli_run_free(&r);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        cr_expect_eq(st.st_mode & 07777, modes[i], "mode %o, expected %o", (unsigned)(st.st_mode & 07777),
                     (unsigned)modes[i]);
        cr_expect_eq((size_t)st.st_size, want);
        unlink(path);
    }
    remove_dir(dir);
}

/* A FIFO is written in place (renaming a file over it would replace the
 * FIFO, as it replaced /dev/null when run as root): the reader at its
 * other end gets the whole pcap and the FIFO is still there, with no
 * temporary beside it.  A table output (simulate's) too. */
static void read_fifo_while(const char *fifo, const char *args, const char *copy, int want_status)
{
    /* Held open for writing until the command is done, so that the reader
     * never waits for a writer that does not come (a command that fails, or
     * one that replaces the FIFO instead of opening it) and sees the end of
     * the data only after the command closed its end.  O_RDWR does not
     * block on Linux. */
    int keep = open(fifo, O_RDWR), in = open(fifo, O_RDONLY);
    cr_assert(keep >= 0 && in >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(keep);
        int out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char buf[4096];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(1);
        _exit(in >= 0 && out >= 0 ? 0 : 1);
    }
    close(in);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, want_status, "%s: %s", args, r.err);
    cli_run_free(&r);
    close(keep);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

Test(cli_files, output_writes_a_fifo_in_place, .timeout = 120)
{
    char *dir = fresh_dir(), args[600], fifo[400], copy[400], ls[400];
    size_t want = gen10_size(dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(copy, sizeof copy, "%s/copy", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof args, GEN10 " -o %s", fifo);
    read_fifo_while(fifo, args, copy, 0);
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    cr_expect_eq(file_size(copy), want);
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "copy,fifo");

    snprintf(args, sizeof args, "config show --format json -o %s", fifo);
    read_fifo_while(fifo, args, copy, 0);
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    char *text = slurp(copy, NULL);
    cr_expect(text && strstr(text, "\"name\":\t\"skylake-6140\""), "%s", text ? text : "(none)");
    free(text);
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "copy,fifo");
    remove_dir(dir);
}

/* ------------------------------------------------------------ 6: signals */

/* Start `ddiosim argv...` in dir, wait until it has created a temporary
 * whose name starts with `prefix` (each of them, comma separated), send
 * `sig`, and return its wait status. */
static int kill_when_temps_exist(char *const argv[], const char *dir, const char *prefixes, int sig)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(127);
        /* As from a shell: the signals at their defaults, none blocked. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        execv(ddiosim_bin(), argv);
        _exit(127);
    }
    int found = 0;
    /* 60 s at most: the sanitizer build starts slowly under load. */
    for (int tries = 0; tries < 12000 && !found; tries++) {
        char ls[2000], want[200];
        dir_listing(dir, ls, sizeof ls);
        found = 1;
        for (const char *p = prefixes; *p;) {
            size_t n = strcspn(p, ",");
            snprintf(want, sizeof want, "%.*s.tmp", (int)n, p);
            found &= strstr(ls, want) != NULL;
            p += n + (p[n] == ',');
        }
        if (!found) {
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    kill(pid, found ? sig : SIGKILL);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(found, "no temporary %s appeared", prefixes);
    return st;
}

Test(cli_files, sigterm_removes_the_temporary_of_trace_gen, .timeout = 120)
{
    char *dir = fresh_dir(), ls[400];
    char *argv[] = {"ddiosim", "trace", "gen", "--profile", "imix", "--packets", "10000000000", "-o", "big.pcap", NULL};
    int st = kill_when_temps_exist(argv, dir, "big.pcap", SIGTERM);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status 0x%x", st);
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "");
    remove_dir(dir);
}

Test(cli_files, sigint_removes_the_temporaries_of_simulate, .timeout = 120)
{
    char *dir = fresh_dir(), ls[400];
    char *argv[] = {"ddiosim", "simulate", "--profile", "fixed:64", "--rate", "max", "--packets", "1000000000",
                    "--no-model", "-o", "out.json", "--timeline", "t.csv", NULL};
    int st = kill_when_temps_exist(argv, dir, "out.json,t.csv", SIGINT);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "status 0x%x", st);
    cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "");
    remove_dir(dir);
}

/* ------------------------------------------------------------ 7: refused at once */

/* Each command refuses, before it runs, an -o that is a folder: one line,
 * exit 2, nothing written. */
Test(cli_files, output_that_is_a_folder_is_refused_at_once, .timeout = 120)
{
    char *dir = fresh_dir(), args[800], want[600], ls[400];
    const char *cmds[] = {
        "simulate --profile fixed:64 --rate max --packets 200000 --no-model",
        "predict --from-sim --profile fixed:64 --rate max --packets 200000",
        "trace gen --profile imix --packets 100000",
        "trace stats " SAMPLE,
        "cache-replay traces/samples/ddio-ring.din",
        "validate --engine model",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        snprintf(args, sizeof args, "%s -o %s", cmds[i], dir);
        cli_run r = run_ddiosim(args);
        cr_expect_eq(r.status, 2, "%s: %s", args, r.err);
        snprintf(want, sizeof want, ": %s: is a directory", dir);
        expect_error_line(r.err, want, args);
        cr_expect_str_eq(dir_listing(dir, ls, sizeof ls), "", "%s", args);
        cli_run_free(&r);
    }
    remove_dir(dir);
}

/* Two outputs that are one file (by name, through a link, or the same
 * file twice) and an output that is an input are refused before the run;
 * the input is left as it was. */
Test(cli_files, output_that_is_another_output_or_an_input_is_refused, .timeout = 120)
{
    char *dir = fresh_dir(), args[1200], in[400], din[400], link[400];
    snprintf(in, sizeof in, "%s/in.pcap", dir);
    snprintf(din, sizeof din, "%s/in.din", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    snprintf(args, sizeof args, "cp " SAMPLE " %s && printf '0 100\\n' > %s", in, din);
    cr_assert_eq(system(args), 0);
    size_t in_size = file_size(in);
    cr_assert_eq(symlink("x.csv", link), 0);

    struct {
        const char *fmt, *msg;
    } cases[] = {
        {"simulate --profile fixed:64 --rate max --packets 200000 -o @/x.csv --timeline @/x.csv",
         ": -o and --timeline name the same file (@/x.csv): one would overwrite the other"},
        {"simulate --profile fixed:64 --rate max --packets 200000 -o @/link.csv --timeline @/x.csv",
         ": -o and --timeline name the same file (@/x.csv): one would overwrite the other"},
        {"simulate --trace @/in.pcap --packets 200000 -o @/in.pcap",
         ": -o @/in.pcap is the file --trace reads: it would be overwritten"},
        {"simulate --trace @/in.pcap --packets 200000 --timeline @/../@@/in.pcap",
         ": --timeline @/../@@/in.pcap is the file --trace reads (@/in.pcap): it would be overwritten"},
        {"predict --trace @/in.pcap -o @/in.pcap", ": -o @/in.pcap is the file --trace reads: it would be overwritten"},
        {"trace stats @/in.pcap -o @/in.pcap", ": -o @/in.pcap is the file TRACE reads: it would be overwritten"},
        {"cache-replay @/in.din -o @/in.din", ": -o @/in.din is the file TRACE reads: it would be overwritten"},
    };
    const char *base = strrchr(dir, '/') + 1;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        /* @ is the folder, @@ its name alone. */
        char a[1200], w[1200];
        size_t k = 0, m = 0;
        for (const char *p = cases[i].fmt; *p && k + 400 < sizeof a; p++)
            k += *p != '@' ? (size_t)snprintf(a + k, 2, "%c", *p)
               : p[1] == '@' ? (p++, (size_t)snprintf(a + k, sizeof a - k, "%s", base))
                             : (size_t)snprintf(a + k, sizeof a - k, "%s", dir);
        for (const char *p = cases[i].msg; *p && m + 400 < sizeof w; p++)
            m += *p != '@' ? (size_t)snprintf(w + m, 2, "%c", *p)
               : p[1] == '@' ? (p++, (size_t)snprintf(w + m, sizeof w - m, "%s", base))
                             : (size_t)snprintf(w + m, sizeof w - m, "%s", dir);
        cli_run r = run_ddiosim(a);
        cr_expect_eq(r.status, 2, "%s: %s", a, r.err);
        expect_error_line(r.err, w, a);
        cli_run_free(&r);
        cr_expect_eq(file_size(in), in_size, "%s", a);
        cr_expect_eq(file_size(din), 6, "%s", a);
        cr_expect_eq(access(link, F_OK), -1, "%s", a);   /* x.csv was not created */
    }
    remove_dir(dir);
}

/* validate: -o and --plot naming the same file, and -o naming a file an
 * experiment reads (its experiment.json or a measured file), are refused
 * once the experiments are loaded, before any point runs. */
Test(cli_files, validate_refuses_an_output_that_is_an_input, .timeout = 120)
{
    char *dir = fresh_dir(), args[1200], want[1200], copy[1200];
    /* A fresh copy for each case, so that one overwritten input does not
     * fail the next case for the wrong reason. */
    snprintf(copy, sizeof copy, "cd '%s' && rm -rf %s/exp && cp -r validate/data/ddio-bench/freq %s/exp",
             DDIOSIM_SOURCE_DIR, dir, dir);
    const char *files[] = {"experiment.json", "ItoM-HIT-RATE.csv", "PCIeRdCur-HIT-RATE.csv"};
    for (size_t i = 0; i < 3; i++) {
        char path[600];
        cr_assert_eq(system(copy), 0);
        snprintf(path, sizeof path, "%s/exp/%s", dir, files[i]);
        size_t before = file_size(path);
        snprintf(args, sizeof args, "validate --engine model --measured %s/exp -o %s", dir, path);
        cli_run r = run_ddiosim(args);
        cr_expect_eq(r.status, 2, "%s: %s", args, r.err);
        snprintf(want, sizeof want, ": -o %s is the file --measured reads: it would be overwritten", path);
        expect_error_line(r.err, want, args);
        cr_expect_eq(file_size(path), before);
        cli_run_free(&r);
    }
    cr_assert_eq(system(copy), 0);
    snprintf(args, sizeof args, "validate --engine model --measured %s/exp -o %s/a.svg --plot %s/a.svg", dir, dir,
             dir);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s: %s", args, r.err);
    snprintf(want, sizeof want, ": -o and --plot name the same file (%s/a.svg): one would overwrite the other", dir);
    expect_error_line(r.err, want, args);
    cli_run_free(&r);
    remove_dir(dir);
}

/* ------------------------------------------------------------ 8: a folder as input */

/* A folder where a file is read: "PATH: is a directory", exit 2, one line,
 * from every reader (it was "read error", exit 1, for a config and a din
 * trace). */
Test(cli_files, input_that_is_a_folder_is_refused_the_same_way_everywhere, .timeout = 120)
{
    char *dir = fresh_dir(), args[1200], want[1200];
    const char *cases[] = {
        "simulate --workload @", "simulate --machine @", "simulate --trace @ --packets 10", "predict --workload @",
        "predict --trace @", "config show --machine @", "trace stats @", "cache-replay @",
    };
    snprintf(want, sizeof want, ": %s: is a directory", dir);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char a[800];
        const char *at = strchr(cases[i], '@');
        snprintf(a, sizeof a, "%.*s%s%s", (int)(at - cases[i]), cases[i], dir, at + 1);
        cli_run r = run_ddiosim(a);
        cr_expect_eq(r.status, 2, "%s: %s", a, r.err);
        expect_error_line(r.err, want, a);
        cli_run_free(&r);
    }
    /* A measured file of an experiment that is a folder. */
    snprintf(args, sizeof args, "cd '%s' && cp -r validate/data/ddio-bench/freq %s/exp && rm %s/exp/ItoM-HIT-RATE.csv && "
             "mkdir %s/exp/ItoM-HIT-RATE.csv", DDIOSIM_SOURCE_DIR, dir, dir, dir);
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "validate --engine model --measured %s/exp", dir);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2, "%s: %s", args, r.err);
    snprintf(want, sizeof want, ": %s/exp/ItoM-HIT-RATE.csv: is a directory", dir);
    expect_error_line(r.err, want, args);
    cli_run_free(&r);
    remove_dir(dir);
}
