/* helpers.c - the shared test helpers of helpers.h: run the ddiosim binary,
 * read and write temporary files, list a folder. */
#define _DEFAULT_SOURCE 1
#include "tests/helpers.h"
#include "configs/config.h"
#include "sim/cache/hier.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *slurp_in(const char *dir, const char *name, size_t *len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *s = slurp(path, len);
    cr_assert_not_null(s, "%s not written", path);
    return s;
}

char *write_temp(const char *suffix, const char *content, size_t len)
{
    char tmpl[256];
    snprintf(tmpl, sizeof tmpl, "/tmp/ddiosim-test-XXXXXX%s", suffix ? suffix : "");
    int fd = mkstemps(tmpl, suffix ? (int)strlen(suffix) : 0);
    if (fd < 0)
        return NULL;
    if (len && write(fd, content, len) != (ssize_t)len) {
        close(fd);
        return NULL;
    }
    close(fd);
    return strdup(tmpl);
}

const char *ddiosim_bin(void)
{
    const char *bin = getenv("DDIOSIM_TEST_BIN");
    return bin && *bin ? bin : DDIOSIM_BIN;
}

/* `fmt` and `ap` formatted into a malloc'ed command (asserted). */
static char *vformat_cmd(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    cr_assert(n > 0, "cannot format: %s", fmt);
    char *cmd = malloc((size_t)n + 1);
    cr_assert(cmd);
    vsnprintf(cmd, (size_t)n + 1, fmt, ap);
    return cmd;
}

cli_run run_shellf(const char *dir, const char *fmt, ...)
{
    char outp[] = "/tmp/ddiosim-out-XXXXXX", errp[] = "/tmp/ddiosim-err-XXXXXX";
    int fo = mkstemp(outp), fe = mkstemp(errp);
    cr_assert(fo >= 0 && fe >= 0, "cannot create the capture files");
    close(fo);
    close(fe);
    va_list ap;
    va_start(ap, fmt);
    char *cmd = vformat_cmd(fmt, ap);
    va_end(ap);
    size_t n = strlen(dir) + strlen(cmd) + sizeof outp + sizeof errp + 32;
    char *full = malloc(n);
    cr_assert(full);
    snprintf(full, n, "cd '%s' && %s >'%s' 2>'%s'", dir, cmd, outp, errp);
    free(cmd);
    int st = system(full);
    free(full);
    cli_run r = {(st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1, slurp(outp, NULL), slurp(errp, NULL)};
    unlink(outp);
    unlink(errp);
    cr_assert(r.out && r.err, "cannot read the captured output");
    return r;
}

cli_run run_ddiosim(const char *args)
{
    /* stdin defaults to /dev/null; a "< file" in args comes later and wins. */
    return run_shellf(DDIOSIM_SOURCE_DIR, "'%s' </dev/null %s", ddiosim_bin(), args);
}

void cli_run_free(cli_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void expect_cli_errors(const cli_error_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cli_run r = run_ddiosim(cases[i].args);
        cr_expect_eq(r.status, 2, "%s", cases[i].args);
        cr_expect(strstr(r.err, cases[i].want), "%s -> %s", cases[i].args, r.err);
        /* One line, "ddiosim CMD: ...", ending in where the options are
         * listed for a usage mistake. */
        cr_expect_eq(count_lines_with(r.err, ""), 1, "%s", r.err);
        size_t cmd = strcspn(cases[i].args, " ");
        cr_expect(strncmp(r.err, "ddiosim ", 8) == 0 && strncmp(r.err + 8, cases[i].args, cmd) == 0, "%s -> %s",
                  cases[i].args, r.err);
        const char *see = strstr(r.err, " (see 'ddiosim ");
        cr_expect_eq(see != NULL && strstr(see, " --help')\n") != NULL, cases[i].usage, "%s -> %s", cases[i].args,
                     r.err);
        cr_expect_null(strstr(r.err, "usage:"), "%s -> %s", cases[i].args, r.err);
        cli_run_free(&r);
    }
}

int count_lines_with(const char *s, const char *needle)
{
    int n = 0;
    const char *p = s;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, len);
        if (strstr(line, needle))
            n++;
        free(line);
        p = nl ? nl + 1 : NULL;
    }
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *dir_listing(const char *dir, char *buf, size_t cap)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    char *names[64];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 && n < 64)
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, "%s%s", i ? "," : "", names[i]);
        free(names[i]);
    }
    return buf;
}

int shf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cmd = vformat_cmd(fmt, ap);
    va_end(ap);
    int st = system(cmd);
    free(cmd);
    return (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
}

void make_tmpdir(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/ddiosim-test-XXXXXX");
    cr_assert_not_null(mkdtemp(buf));
}

void rm_rf(const char *dir)
{
    cr_assert_eq(shf("rm -rf '%s'", dir), 0);
}

cJSON *run_ddiosim_json(const char *args)
{
    cli_run r = run_ddiosim(args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s: not JSON: %s", args, r.out);
    cli_run_free(&r);
    return j;
}

void prefetch_variants(const ddio_config *off, unsigned lines, ddio_config *pf, ddio_config *rd)
{
    *pf = *off;
    pf->machine.l2.prefetch_lines = lines;
    *rd = *off;
    ddio_workload *w = &rd->workload;
    cr_assert_lt(w->n_access, DDIO_MAX_SEGMENTS);
    w->access[w->n_access++] = (ddio_segment){.op = DDIO_SEG_READ, .offset = 64, .unit = DDIO_UNIT_BYTES,
                                              .length = 64.0 * lines};
}

void put_file(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0, "%s", path);
}

void tiny_hier(struct hier *h, int mode, unsigned cores, unsigned long long ddio_mask)
{
    hier_config c;
    hier_config_default(&c);
    c.mode = (enum hier_mode)mode;
    c.llc = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 1, .ways = 6, .mapping = MAP_MODULO};
    c.l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 1, .ways = 2, .mapping = MAP_MODULO};
    c.cores = cores;
    c.ddio_mask = ddio_mask;
    c.shared_mask = mode == HIER_NONINCLUSIVE ? 0x03 : 0;
    c.n_cos = 1;
    c.cos_mask[0] = mode == HIER_NONINCLUSIVE ? 0x0C : 0x0F;
    ddio_err e;
    cr_assert_eq(hier_init(h, &c, &e), 0, "%s", e.msg);
}

void drop_line_with(char *s, const char *needle)
{
    char *at = strstr(s, needle);
    if (!at)
        return;
    char *start = at, *end = strchr(at, '\n');
    while (start > s && start[-1] != '\n')
        start--;
    const char *rest = end ? end + 1 : at + strlen(at);
    memmove(start, rest, strlen(rest) + 1);
}

void sweep_and_validate_csv(const char *dir, const char *spec, const char *opts)
{
    put_file(dir, "s.json", spec);
    cli_run r = run_shellf(dir, "'%s' sweep --spec s.json -o r.csv %s && '%s' validate --engine model --jobs 1 "
                           "--measured '%s/validate/data/ddio-bench/cores' --format csv -o v.csv",
                           ddiosim_bin(), opts, ddiosim_bin(), DDIOSIM_SOURCE_DIR);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
}
