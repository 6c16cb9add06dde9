/* sweep_meta.c - a results file's sidecar, OUT.meta.json, and the header a
 * file must start with to be resumed (sim/explore/sweep.h, "the sidecar"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim/common/infile.h"
#include "sim/common/names.h"
#include "sim/common/provenance.h"
#include "sim/explore/sweep.h"

#define META_MAX_BYTES (1 << 20)

static const char *const format_word[] = {[SW_CSV] = "csv", [SW_JSONL] = "jsonl", [SW_NPF] = "npf"};

/* The run a file belongs to, as hex: what its sidecar (and an old file's
 * first line) compares. */
static void run_hex(const sw_spec *s, const runner_opts *o, char *t, size_t cap)
{
    snprintf(t, cap, "%016llx", (unsigned long long)sw_run_hash(s, o));
}

char *sw_meta_json(const sw_spec *s, const runner_opts *o, enum sw_format f, const char *command)
{
    cJSON *j = cJSON_CreateObject(), *w = cJSON_CreateObject();
    char run[32];
    run_hex(s, o, run, sizeof run);
    char *text = NULL;
    if (j && w && cJSON_AddItemToObject(j, "sweep", w) && ddio_provenance_add(j, command) == 0 &&
        cJSON_AddStringToObject(w, "format", format_word[f]) && cJSON_AddStringToObject(w, "run", run) &&
        cJSON_AddStringToObject(w, "engine", sw_engine_word(o->engines)) &&
        cJSON_AddNumberToObject(w, "packets", (double)o->packets) &&
        cJSON_AddNumberToObject(w, "seed", (double)o->seed))
        text = cJSON_Print(j);
    else if (!cJSON_GetObjectItemCaseSensitive(j, "sweep"))
        cJSON_Delete(w);
    cJSON_Delete(j);
    size_t n = text ? strlen(text) : 0;
    char *line = text ? realloc(text, n + 2) : NULL;   /* a text file: its last line ends */
    if (!line) {
        free(text);
        return NULL;
    }
    memcpy(line + n, "\n", 2);
    return line;
}

/* The first two lines of a file, their newlines included; "" for a line
 * it does not have. */
static void first_lines(FILE *f, char *l1, char *l2, size_t cap)
{
    l1[0] = l2[0] = '\0';
    if (fgets(l1, (int)cap, f))
        if (!fgets(l2, (int)cap, f))
            l2[0] = '\0';
}

/* Whether the column line `old` is `now` with some names as an older
 * version wrote them. */
static int same_columns(const char *old, const char *now)
{
    char a[64];
    while (*old && *now) {
        size_t n = strcspn(old, ",\n");
        if (n >= sizeof a)
            return 0;
        memcpy(a, old, n);
        a[n] = '\0';
        const char *cur = ddio_name_current(a);
        size_t m = strlen(cur);
        if (strncmp(now, cur, m) != 0 || (now[m] != ',' && now[m] != '\n'))
            return 0;
        if (old[n] != now[m])
            return 0;
        old += n + (old[n] != '\0');
        now += m + (now[m] != '\0');
    }
    return *old == *now;
}

/* An existing CSV without a sidecar: one of an older version, whose first
 * line names its run (0), or an empty one (1). */
static int legacy_header(const char *path, const sw_spec *s, const runner_opts *o, const char *header, char **use,
                         ddio_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: %s", path, strerror(errno));
    enum { CAP = 8192 };
    char *l1 = malloc(CAP), *l2 = malloc(CAP), want[160], run[32];
    int rc = -1;
    if (!l1 || !l2) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    first_lines(f, l1, l2, CAP);
    run_hex(s, o, run, sizeof run);
    snprintf(want, sizeof want, "# ddiosim sweep 1 run=%s engine=%s packets=%llu seed=%llu\n", run,
             sw_engine_word(o->engines), (unsigned long long)o->packets, (unsigned long long)o->seed);
    if (!l1[0]) {   /* empty: killed before its sidecar and header were written */
        if ((*use = strdup(header)) == NULL)
            ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        rc = *use ? 1 : -1;
    } else if (strncmp(l1, "# ddiosim sweep 1 ", 18) != 0) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: no sidecar %s.meta.json beside it (the run that started it is "
                  "unknown): not resumed", path, path);
    } else if (strcmp(l1, want) != 0 || !same_columns(l2, header)) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s:1: the file was started by another spec or other options (its header "
                  "differs): not resumed", path);
    } else {
        size_t n1 = strlen(l1), n2 = strlen(l2);
        if ((*use = malloc(n1 + n2 + 1)) == NULL) {
            ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            goto out;
        }
        memcpy(*use, l1, n1);
        memcpy(*use + n1, l2, n2 + 1);
        rc = 0;
    }
out:
    free(l1);
    free(l2);
    fclose(f);
    return rc;
}

/* The sidecar's "sweep" names this run. */
static int meta_matches(const char *meta, const char *text, const sw_spec *s, const runner_opts *o, ddio_err *e)
{
    cJSON *j = cJSON_Parse(text);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "sweep");
    const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "run"));
    char run[32];
    run_hex(s, o, run, sizeof run);
    int ok = got && strcmp(got, run) == 0;
    cJSON_Delete(j);
    if (!got)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: sweep.run: missing (not a sweep's sidecar): not resumed", meta);
    if (!ok)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: sweep.run: the file was started by another spec or other options: "
                         "not resumed", meta);
    return 0;
}

int sw_resume_header(const char *path, const sw_spec *s, const runner_opts *o, const char *header, char **use,
                     int *legacy, ddio_err *e)
{
    *use = NULL;
    *legacy = 0;
    char *meta = ddio_sidecar_path(path);
    if (!meta)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    FILE *f = fopen(meta, "rb");
    int rc;
    if (!f && errno == ENOENT) {
        rc = legacy_header(path, s, o, header, use, e);
        *legacy = rc == 0;
        rc = rc < 0 ? -1 : 0;
    } else if (!f) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: %s", meta, strerror(errno));
    } else {
        size_t len;
        char *text = ddio_read_all(f, meta, META_MAX_BYTES, "", &len, e);
        rc = text ? meta_matches(meta, text, s, o, e) : -1;
        free(text);
        if (rc == 0 && (*use = strdup(header)) == NULL)
            rc = ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    free(meta);
    return rc;
}
