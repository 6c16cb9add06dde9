/* helpers.h - shared test helpers: run the ddiosim binary or a shell command,
 * read and write files and folders. */
#ifndef DDIOSIM_TESTS_HELPERS_H
#define DDIOSIM_TESTS_HELPERS_H

#include <math.h>
#include <stddef.h>

/* Criterion expectation that |got - want| <= tol, printing both values to
 * 17 digits (the model tests compare with hand-computed values). */
#define expect_near(got, want, tol)                                                       \
    do {                                                                                  \
        double g_ = (got), w_ = (want), t_ = (tol);                                       \
        cr_expect(fabs(g_ - w_) <= t_, "%s = %.17g, expected %.17g (|diff| %.3g > %.3g)", \
                  #got, g_, w_, fabs(g_ - w_), t_);                                       \
    } while (0)

/* Output of one CLI run. */
typedef struct cli_run {
    int status;     /* exit code, or -1 if it did not exit normally (crash) */
    char *out;      /* captured stdout (NUL-terminated, caller frees with cli_run_free) */
    char *err;      /* captured stderr */
} cli_run;

/* The binary the CLI tests run: $DDIOSIM_TEST_BIN when set (to see a new
 * test fail on another build, e.g. main's), else the one built with them. */
const char *ddiosim_bin(void);

/* Run `ddiosim <args>` through /bin/sh (args are shell words, may contain
 * redirections such as "< file"), from the project source directory. */
cli_run run_ddiosim(const char *args);
/* Run a shell command built like printf from folder `dir`, its stdout and
 * stderr captured (stdin as the command sets it: it inherits the test's
 * otherwise).  Failing to capture is asserted. */
cli_run run_shellf(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_run_free(cli_run *r);
/* run_ddiosim(args), asserting exit 0 and a JSON document on stdout, which
 * is returned (the caller frees it with cJSON_Delete). */
struct cJSON *run_ddiosim_json(const char *args);

/* A command line that must fail with exit code 2: stderr is one line,
 * "ddiosim CMD: ...", that contains `want`; `usage` says whether it is a
 * usage mistake, which ends in "(see 'ddiosim CMD --help')", or a bad value,
 * which does not.  No command prints its whole usage on an error. */
typedef struct cli_error_case {
    const char *args, *want;
    int usage;
} cli_error_case;

/* Run every case and check it (Criterion expectations). */
void expect_cli_errors(const cli_error_case *cases, size_t n);

/* Whole file into a NUL-terminated buffer (NULL if unreadable); *len optional. */
char *slurp(const char *path, size_t *len);
/* Write a string to a fresh temporary file; returns its malloc'ed path. */
char *write_temp(const char *suffix, const char *content, size_t len);
/* DIR/NAME's contents, asserted readable (Criterion: the test fails when
 * it is not written); *len optional, the caller frees. */
char *slurp_in(const char *dir, const char *name, size_t *len);
/* Number of lines in s that contain `needle`. */
int count_lines_with(const char *s, const char *needle);
/* The names in `dir` (at most 64), sorted and comma-separated ("" when
 * empty), into buf; returns buf. */
const char *dir_listing(const char *dir, char *buf, size_t cap);
/* Run a shell command built like printf; its exit code (-1 if it did not
 * exit). */
int shf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A new empty folder /tmp/ddiosim-test-XXXXXX, its path into buf. */
void make_tmpdir(char *buf, size_t n);
/* DIR/NAME holding exactly `text` (the test fails if it cannot be written). */
void put_file(const char *dir, const char *name, const char *text);
/* In dir: `sweep` of a one- or two-point grid (spec: its "fixed" and "grid"
 * members) to r.csv with `opts`, then `validate --engine model --format csv
 * -o v.csv` on the shipped cores experiment; both must succeed.  For the
 * tests of what outputs are named and what they carry. */
void sweep_and_validate_csv(const char *dir, const char *spec, const char *opts);
/* s without the first line that holds `needle`, in place (an output's
 * provenance, whose command line differs between runs compared). */
void drop_line_with(char *s, const char *needle);
/* Remove a folder and everything below it (asserted). */
void rm_rf(const char *dir);

struct ddio_config;
/* For the L2 prefetcher's tests: `off` with l2.prefetch_lines = lines into
 * *pf, and `off` whose workload also reads packet bytes 64 .. 64 (lines +
 * 1) - 1 itself (lines 1..lines, the data starting on a line) into *rd. */
void prefetch_variants(const struct ddio_config *off, unsigned lines, struct ddio_config *pf,
                       struct ddio_config *rd);

struct hier;
/* The one-set hierarchy of the Table 1 tests: a 6-way LLC (non-inclusive,
 * mode 0: Shared = ways 0-1, the core's L3* = ways 2-3; inclusive: L3 =
 * ways 0-3) whose DDIO ways are `ddio_mask` (0x30: ways 4-5; 0: DDIO off),
 * one-set 2-way L2s for `cores` cores (asserted to build). */
void tiny_hier(struct hier *h, int mode, unsigned cores, unsigned long long ddio_mask);

#endif
