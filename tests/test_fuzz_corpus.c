/* test_fuzz_corpus.c - replay the fuzz targets' inputs under ASan + UBSan:
 * every file of tests/fuzz/seeds/NAME/ and tests/fuzz/corpus/NAME/ (the
 * regression corpus: each input that once crashed a parser or broke one of
 * its invariants) goes through the target's entry, which checks the
 * invariants of docs/fuzzing.md and aborts on a violation.  One test per
 * file, so a regression names its input. */
#define _DEFAULT_SOURCE 1   /* DT_REG */

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz_entries.h"
#include "tests/helpers.h"

#define FUZZ_DIR DDIOSIM_SOURCE_DIR "/tests/fuzz"

/* Every fuzz target, by its folder name under seeds/ and corpus/. */
static const struct {
    const char *name;
    int (*entry)(const uint8_t *, size_t);
} targets[] = {
    {"pcap", fuzz_pcap}, {"config", fuzz_config}, {"din", fuzz_din},          {"npf", fuzz_npf},
    {"pcm", fuzz_pcm},   {"perf", fuzz_perf},     {"experiment", fuzz_experiment}, {"sweep", fuzz_sweep},
    {"results", fuzz_results},
};
static const char *const kinds[] = {"seeds", "corpus"};
#define N_TARGETS (sizeof targets / sizeof targets[0])

typedef struct fuzz_case {
    char target[16];
    char path[480];
} fuzz_case;

static int cmp_case(const void *a, const void *b)
{
    return strcmp(((const fuzz_case *)a)->path, ((const fuzz_case *)b)->path);
}

/* Regular files of one folder (names starting with '.' skipped). */
static size_t list_files(const char *dir, const char *target, fuzz_case *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        fuzz_case c;
        memset(&c, 0, sizeof c);
        snprintf(c.target, sizeof c.target, "%s", target);
        if ((size_t)snprintf(c.path, sizeof c.path, "%s/%s", dir, de->d_name) >= sizeof c.path)
            continue;
        struct stat st;
        if (stat(c.path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (out && n < cap)
            out[n] = c;
        n++;
    }
    closedir(d);
    return n;
}

static size_t all_cases(fuzz_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t t = 0; t < N_TARGETS; t++)
        for (size_t k = 0; k < 2; k++) {
            char dir[400];
            snprintf(dir, sizeof dir, "%s/%s/%s", FUZZ_DIR, kinds[k], targets[t].name);
            n += list_files(dir, targets[t].name, out ? out + (n < cap ? n : cap) : NULL, n < cap ? cap - n : 0);
        }
    return n;
}

static void free_cases(struct criterion_test_params *p)
{
    cr_free(p->params);
}

ParameterizedTestParameters(fuzz_corpus, replay)
{
    size_t n = all_cases(NULL, 0);
    fuzz_case *cases = cr_malloc(sizeof *cases * (n ? n : 1));
    memset(cases, 0, sizeof *cases * (n ? n : 1));
    n = all_cases(cases, n);
    qsort(cases, n, sizeof *cases, cmp_case);
    return cr_make_param_array(fuzz_case, cases, n, free_cases);
}

ParameterizedTest(fuzz_case *c, fuzz_corpus, replay)
{
    size_t len = 0;
    char *data = slurp(c->path, &len);
    cr_assert_not_null(data, "cannot read %s", c->path);
    /* Named up front: an invariant violation aborts the test. */
    cr_log_info("%s", c->path + strlen(FUZZ_DIR) + 1);
    const uint8_t *d = (const uint8_t *)data;
    int rc = -1;
    for (size_t t = 0; t < N_TARGETS; t++)
        if (strcmp(c->target, targets[t].name) == 0)
            rc = targets[t].entry(d, len);
    cr_expect_eq(rc, 0, "%s", c->path);
    free(data);
}

/* Every folder holds inputs (a target replaying nothing proves nothing),
 * and the seeds stay small enough to ship (under 1 MB in all). */
Test(fuzz_corpus, folders)
{
    off_t seed_bytes = 0;
    for (size_t t = 0; t < N_TARGETS; t++)
        for (size_t k = 0; k < 2; k++) {
            char dir[400];
            snprintf(dir, sizeof dir, "%s/%s/%s", FUZZ_DIR, kinds[k], targets[t].name);
            size_t n = list_files(dir, targets[t].name, NULL, 0);
            cr_expect_geq(n, 1, "%s is empty", dir);
            fuzz_case cs[256];
            n = list_files(dir, targets[t].name, cs, 256);
            for (size_t i = 0; k == 0 && i < n && i < 256; i++) {
                struct stat st;
                cr_assert_eq(stat(cs[i].path, &st), 0);
                seed_bytes += st.st_size;
            }
        }
    cr_expect_lt(seed_bytes, 1 << 20, "seeds take %lld bytes", (long long)seed_bytes);
}
