/* api_request.c - a JSON request as a command line (api_request.h): the
 * library runs the CLI's own commands, so that a request means what the
 * same options mean on the command line and the result is the same
 * document. */
#include "sim/api/api_request.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Append a copy of s (NULL: the terminator's slot only).  0, or -1. */
static int push(api_argv *a, const char *s, ddio_err *e)
{
    if (a->argc + 2 > a->cap) {
        int cap = a->cap ? a->cap * 2 : 16;
        char **v = realloc(a->argv, (size_t)cap * sizeof *v);
        if (!v)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        a->argv = v;
        a->cap = cap;
    }
    a->argv[a->argc] = strdup(s);
    if (!a->argv[a->argc])
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    a->argv[++a->argc] = NULL;
    return 0;
}

/* An inline object into a temporary file (TMPDIR or /tmp) whose path goes
 * into path[cap]: the configuration readers take files. */
static int inline_file(api_argv *a, const char *key, const cJSON *obj, char *path, size_t cap, ddio_err *e)
{
    if (a->n_tmp == API_MAX_TMP)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: more than %d inline objects in one request", key, API_MAX_TMP);
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/ddiosim-api-XXXXXX", dir && *dir ? dir : "/tmp");   /* a path with a '/' is a file */
    int fd = mkstemp(path);
    if (fd < 0)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: cannot create a temporary file in %s", key, dir && *dir ? dir : "/tmp");
    a->tmp[a->n_tmp] = strdup(path);
    char *text = cJSON_PrintUnformatted(obj);
    FILE *f = fdopen(fd, "w");
    int bad = !a->tmp[a->n_tmp] || !text || !f || fputs(text, f) < 0;
    bad |= f ? fclose(f) != 0 : close(fd) != 0;
    free(text);
    if (a->tmp[a->n_tmp])
        a->n_tmp++;
    else
        unlink(path);
    return bad ? ddio_errf(e, DDIO_EXIT_IO, "%s: cannot write the inline object to %s", key, path) : 0;
}

/* One value of option `opt` ("--rx-ring") for request key `key`:
 * "--rx-ring=512", or the bare value when opt is NULL (the argument). */
static int add_value(api_argv *a, const char *key, const char *opt, const cJSON *v, ddio_err *e)
{
    char val[4096], path[4096], num[64];
    const char *s;
    if (cJSON_IsString(v)) {
        s = v->valuestring;
    } else if (cJSON_IsNumber(v)) {
        snprintf(num, sizeof num, "%.15g", v->valuedouble);   /* 512, 0.25; 17 digits when 15 do not round-trip */
        if (strtod(num, NULL) != v->valuedouble)
            snprintf(num, sizeof num, "%.17g", v->valuedouble);
        s = num;
    } else if (cJSON_IsObject(v) && opt) {
        if (inline_file(a, key, v, path, sizeof path, e) != 0)
            return -1;
        s = path;
    } else {
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: expected a string or a number%s", key,
                         opt ? ", true, an array of them or an object" : "");
    }
    if (!opt)
        return push(a, s, e);
    if ((size_t)snprintf(val, sizeof val, "%s=%s", opt, s) >= sizeof val)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: value too long", key);
    return push(a, val, e);
}

/* The option of key `key`: "--" and the key with '_' read as '-'. */
static int option_name(const char *key, const char *const *refused, char *opt, size_t cap, ddio_err *e)
{
    static const char *const answered[] = {"format", "output", "o", "help", "h"};
    size_t n = strlen(key);
    if (n == 0 || n + 3 > cap || strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-_") != n)
        return ddio_errf(e, DDIO_EXIT_USAGE, "request key '%s': not an option name", key);
    /* A key that begins one of these names is refused too: getopt_long
     * takes any unambiguous prefix of a long option ("forma" is --format). */
    for (size_t i = 0; i < sizeof answered / sizeof *answered; i++)
        if (strncmp(answered[i], key, n) == 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "request key '%s': not offered by the library (the result is "
                             "returned, as JSON)", key);
    for (size_t i = 0; refused && refused[i]; i++)
        if (strncmp(refused[i], key, n) == 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "request key '%s': not offered by the library (see docs/api.md)",
                             key);
    snprintf(opt, cap, "--%s", key);
    for (char *p = opt + 2; *p; p++)
        if (*p == '_')
            *p = '-';
    return 0;
}

static int add_key(api_argv *a, const cJSON *item, const char *const *refused, ddio_err *e)
{
    char opt[128];
    if (option_name(item->string, refused, opt, sizeof opt, e) != 0)
        return -1;
    if (cJSON_IsTrue(item))
        return push(a, opt, e);
    if (cJSON_IsFalse(item) || cJSON_IsNull(item))
        return 0;
    if (!cJSON_IsArray(item))
        return add_value(a, item->string, opt, item, e);
    for (const cJSON *v = item->child; v; v = v->next)
        if (add_value(a, item->string, opt, v, e) != 0)
            return -1;
    return 0;
}

static int add_positional(api_argv *a, const cJSON *req, const char *positional, ddio_err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, positional);
    if (!v)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: missing (the file to read)", positional);
    if (cJSON_IsString(v) && strcmp(v->valuestring, "-") == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '-' (standard input) is not offered by the library", positional);
    /* "--": a file whose name starts with '-' is no option. */
    return push(a, "--", e) != 0 ? -1 : add_value(a, positional, NULL, v, e);
}

int api_argv_from_json(const char *cmd, const char *request, const char *positional, const char *const *refused,
                       api_argv *a, ddio_err *e)
{
    memset(a, 0, sizeof *a);
    cJSON *req = cJSON_Parse(request && *request ? request : "{}");
    if (!req || !cJSON_IsObject(req)) {
        cJSON_Delete(req);
        return ddio_errf(e, DDIO_EXIT_USAGE, "request: not a JSON object");
    }
    /* The flags (true) last: one given true by mistake for an option that
     * takes a value then takes no other option as its value ("option
     * '--rx-ring' needs a value", or the flag after it, named). */
    int rc = push(a, cmd, e) != 0 || push(a, "--format=json", e) != 0 ? -1 : 0;
    for (int flags = 0; flags < 2; flags++)
        for (const cJSON *item = req->child; rc == 0 && item; item = item->next)
            if ((!positional || strcmp(item->string, positional) != 0) && cJSON_IsTrue(item) == flags)
                rc = add_key(a, item, refused, e);
    if (rc == 0 && positional)
        rc = add_positional(a, req, positional, e);
    cJSON_Delete(req);
    return rc;
}

void api_argv_free(api_argv *a)
{
    for (int i = 0; i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
    for (int i = 0; i < a->n_tmp; i++) {
        unlink(a->tmp[i]);
        free(a->tmp[i]);
    }
    memset(a, 0, sizeof *a);
}
