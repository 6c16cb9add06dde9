/* schema.c - the JSON Schema subset checker of tests/schema.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tests/schema.h"

typedef struct ctx {
    const cJSON *root;
    char *why;
    size_t cap;
} ctx;

static int fail(ctx *c, const char *path, const char *what, const char *name)
{
    snprintf(c->why, c->cap, "%s: %s%s", path, what, name ? name : "");
    return -1;
}

static int is_type(const cJSON *d, const char *t)
{
    if (strcmp(t, "object") == 0) return cJSON_IsObject(d);
    if (strcmp(t, "array") == 0) return cJSON_IsArray(d);
    if (strcmp(t, "string") == 0) return cJSON_IsString(d);
    if (strcmp(t, "number") == 0) return cJSON_IsNumber(d);
    if (strcmp(t, "integer") == 0) return cJSON_IsNumber(d) && d->valuedouble == floor(d->valuedouble);
    if (strcmp(t, "boolean") == 0) return cJSON_IsBool(d);
    if (strcmp(t, "null") == 0) return cJSON_IsNull(d);
    return 0;
}

static int check(ctx *c, const cJSON *s, const cJSON *d, const char *path);

static int check_type(ctx *c, const cJSON *t, const cJSON *d, const char *path)
{
    if (cJSON_IsString(t))
        return is_type(d, t->valuestring) ? 0 : fail(c, path, "not of type ", t->valuestring);
    for (const cJSON *x = t ? t->child : NULL; x; x = x->next)
        if (cJSON_IsString(x) && is_type(d, x->valuestring))
            return 0;
    return fail(c, path, "not of any type listed", NULL);
}

static int check_enum(ctx *c, const cJSON *en, const cJSON *d, const char *path)
{
    for (const cJSON *x = en->child; x; x = x->next)
        if (cJSON_Compare(x, d, 1))
            return 0;
    return fail(c, path, "not one of the enum", NULL);
}

static int check_object(ctx *c, const cJSON *s, const cJSON *d, const char *path)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties"),
                *req = cJSON_GetObjectItemCaseSensitive(s, "required"),
                *add = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
    char sub[512];
    for (const cJSON *r = req ? req->child : NULL; r; r = r->next)
        if (!cJSON_GetObjectItemCaseSensitive(d, r->valuestring))
            return fail(c, path, "missing required key ", r->valuestring);
    for (const cJSON *k = d->child; k; k = k->next) {
        snprintf(sub, sizeof sub, "%s.%s", path, k->string);
        const cJSON *ps = props ? cJSON_GetObjectItemCaseSensitive(props, k->string) : NULL;
        if (ps) {
            if (check(c, ps, k, sub) != 0)
                return -1;
        } else if (cJSON_IsFalse(add)) {
            return fail(c, sub, "a key the schema does not allow", NULL);
        } else if (cJSON_IsObject(add) && check(c, add, k, sub) != 0) {
            return -1;
        }
    }
    return 0;
}

static int check_items(ctx *c, const cJSON *items, const cJSON *d, const char *path)
{
    char sub[512];
    int i = 0;
    for (const cJSON *x = d->child; x; x = x->next, i++) {
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        if (check(c, items, x, sub) != 0)
            return -1;
    }
    return 0;
}

/* "$ref": "#/$defs/NAME", the only reference the schemas use. */
static const cJSON *deref(ctx *c, const cJSON *ref, const char *path)
{
    const char *p = cJSON_GetStringValue(ref);
    const cJSON *t = p && strncmp(p, "#/$defs/", 8) == 0
                         ? cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c->root, "$defs"), p + 8)
                         : NULL;
    if (!t)
        fail(c, path, "unresolved $ref ", p ? p : "?");
    return t;
}

static int known_keyword(const char *k)
{
    static const char *const kw[] = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties",
                                     "required", "additionalProperties", "items", "enum", "minimum", "maximum"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (strcmp(k, kw[i]) == 0)
            return 1;
    return 0;
}

static int check(ctx *c, const cJSON *s, const cJSON *d, const char *path)
{
    for (const cJSON *k = s->child; k; k = k->next)
        if (!known_keyword(k->string))
            return fail(c, path, "the schema uses a keyword this checker does not know: ", k->string);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
    if (ref) {
        const cJSON *t = deref(c, ref, path);
        if (!t || check(c, t, d, path) != 0)
            return -1;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type"), *en = cJSON_GetObjectItemCaseSensitive(s, "enum"),
                *mn = cJSON_GetObjectItemCaseSensitive(s, "minimum"), *mx = cJSON_GetObjectItemCaseSensitive(s, "maximum"),
                *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    if (t && check_type(c, t, d, path) != 0)
        return -1;
    if (en && check_enum(c, en, d, path) != 0)
        return -1;
    if (cJSON_IsNumber(d) && mn && d->valuedouble < mn->valuedouble)
        return fail(c, path, "below the minimum", NULL);
    if (cJSON_IsNumber(d) && mx && d->valuedouble > mx->valuedouble)
        return fail(c, path, "above the maximum", NULL);
    if (cJSON_IsObject(d) && check_object(c, s, d, path) != 0)
        return -1;
    if (cJSON_IsArray(d) && items && check_items(c, items, d, path) != 0)
        return -1;
    return 0;
}

int schema_check(const cJSON *root, const cJSON *doc, char *why, size_t cap)
{
    ctx c = {.root = root, .why = why, .cap = cap};
    why[0] = '\0';
    return check(&c, root, doc, "$");
}
