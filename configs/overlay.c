/* overlay.c - reading a calibration overlay (overlay.h). */
#include "configs/overlay.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "configs/schema.h"
#include "sim/common/infile.h"

int ddio_overlay_check_set(const char *set, char *msg, size_t cap)
{
    const char *eq = strchr(set, '=');
    if (!eq || eq == set) {
        snprintf(msg, cap, "not PATH=VALUE");
        return -1;
    }
    char path[128];
    if ((size_t)(eq - set) >= sizeof path) {
        snprintf(msg, cap, "no such field");
        return -1;
    }
    snprintf(path, sizeof path, "%.*s", (int)(eq - set), set);
    int part;
    const char *field;
    if (strncmp(path, "machine.", 8) == 0)
        part = 0, field = path + 8;
    else if (strncmp(path, "workload.", 9) == 0)
        part = 1, field = path + 9;
    else {
        snprintf(msg, cap, "the path must start with machine. or workload.");
        return -1;
    }
    if (strchr(field, '[')) {
        snprintf(msg, cap, "list elements cannot be set here; use a JSON file");
        return -1;
    }
    const cfg_table *t = part ? ddio_workload_table() : ddio_machine_table();
    int idx = cfg_index(t, field);
    if (idx < 0) {
        snprintf(msg, cap, "no such field");
        return -1;
    }
    /* The field's own checks, on a scratch struct of defaults. */
    ddio_config *c = malloc(sizeof *c);
    if (!c) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    ddio_config_default(c);
    int rc = cfg_set_text(&t->f[idx], part ? (void *)&c->workload : (void *)&c->machine, eq + 1, msg, cap);
    free(c);
    return rc;
}

/* The text --set would be given for JSON value v: a number in the
 * shortest form that reads back to the same double, a string as is. */
static int value_text(const cJSON *v, char *buf, size_t cap)
{
    if (cJSON_IsNumber(v)) {
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(buf, cap, "%.*g", prec, v->valuedouble);
            if (strtod(buf, NULL) == v->valuedouble)
                break;
        }
        return 0;
    }
    if (cJSON_IsBool(v)) {
        snprintf(buf, cap, "%s", cJSON_IsTrue(v) ? "true" : "false");
        return 0;
    }
    if (cJSON_IsString(v) && strlen(v->valuestring) < cap) {
        snprintf(buf, cap, "%s", v->valuestring);
        return 0;
    }
    return -1;
}

static int parse_set(const cJSON *set, const char *file, ddio_overlay *ov, ddio_err *e)
{
    if (!cJSON_IsObject(set))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: set: expected an object of PATH: VALUE", file);
    for (const cJSON *it = set->child; it; it = it->next) {
        const char *key = it->string ? it->string : "";
        if (ov->n >= DDIO_OVERLAY_MAX)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: set: more than %d fields", file, DDIO_OVERLAY_MAX);
        char value[DDIO_OVERLAY_SET_LEN], msg[300];
        if (value_text(it, value, sizeof value) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: set.%.128s: expected a number, a string or true / false",
                             file, key);
        char *slot = ov->set[ov->n];
        if ((size_t)snprintf(slot, DDIO_OVERLAY_SET_LEN, "%s=%s", key, value) >= DDIO_OVERLAY_SET_LEN)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: set.%.128s: too long", file, key);
        if (strchr(key, '=') || ddio_overlay_check_set(slot, msg, sizeof msg) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: set.%.128s: %s", file, key,
                             strchr(key, '=') ? "no such field" : msg);
        ov->n++;
    }
    return 0;
}

int ddio_overlay_parse(const char *text, size_t len, const char *file, ddio_overlay *ov, ddio_err *e)
{
    memset(ov, 0, sizeof *ov);
    cJSON *root = cfg_parse_text(text, len, file, e);
    if (!root)
        return -1;
    int rc = 0;
    const cJSON *set = NULL;
    if (!cJSON_IsObject(root)) {
        rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: expected a JSON object (an overlay: docs/calibrate.md)", file);
        goto done;
    }
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "ddiosim");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "overlay") != 0) {
        rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: ddiosim: must be \"overlay\" (an overlay: docs/calibrate.md)", file);
        goto done;
    }
    for (const cJSON *it = root->child; it; it = it->next) {
        const char *key = it->string ? it->string : "";
        if (strcmp(key, "ddiosim") == 0)
            continue;
        if (strcmp(key, "set") == 0)
            set = it;
        else if (strcmp(key, "calibration") == 0) {
            if (!cJSON_IsObject(it)) {
                rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: calibration: expected an object", file);
                goto done;
            }
        } else {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: %.128s: unknown key (known: ddiosim, set, calibration)", file,
                           key);
            goto done;
        }
    }
    if (!set) {
        rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: set: missing", file);
        goto done;
    }
    rc = parse_set(set, file, ov, e);
done:
    cJSON_Delete(root);
    if (rc != 0)
        ov->n = 0;
    return rc;
}

int ddio_overlay_load(const char *path, ddio_overlay *ov, ddio_err *e)
{
    FILE *f = ddio_open_input(path, e);
    if (!f)
        return -1;
    size_t len;
    char *text = ddio_read_all(f, path, DDIO_OVERLAY_MAX_BYTES, "", &len, e);
    if (!text)
        return -1;
    int rc = ddio_overlay_parse(text, len, path, ov, e);
    free(text);
    return rc;
}
