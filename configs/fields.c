/* fields.c - load, set, print and compare structs through their
 * field-descriptor tables (see fields.h). */
#include "configs/fields.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/parse.h"

#define PATH_CAP 256
/* Integers travel as JSON numbers (doubles): beyond 2^53 they stop being exact. */
#define MAX_EXACT 9007199254740992.0

static void *at(void *obj, size_t off) { return (char *)obj + off; }
static const void *cat_(const void *obj, size_t off) { return (const char *)obj + off; }

static int is_leaf_path(const cfg_field *f) { return f->path[0] != '\0'; }

/* ------------------------------------------------------------ lookups */

/* Copy `path` without array indices after the first one: "cat.classes[1]" ->
 * "cat.classes", "access[2].length" -> "access". */
static void strip_index(const char *path, char *out, size_t cap)
{
    size_t i = 0;
    for (; path[i] && path[i] != '[' && i + 1 < cap; i++)
        out[i] = path[i];
    out[i] = '\0';
}

int cfg_index(const cfg_table *t, const char *path)
{
    char p[PATH_CAP];
    strip_index(path, p, sizeof p);
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->f[i].path, p) == 0)
            return (int)i;
    return -1;
}

/* Is `prefix` a group (an object) of t: some path starts with "prefix."? */
static int is_group(const cfg_table *t, const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < t->n; i++)
        if (strncmp(t->f[i].path, prefix, n) == 0 && t->f[i].path[n] == '.')
            return 1;
    return 0;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

/* The closest key allowed in the object at `prefix` to `key`, within two edits. */
static void suggest(const cfg_table *t, const char *prefix, const char *key, char *out, size_t cap)
{
    size_t pl = strlen(prefix), best = 3;
    out[0] = '\0';
    for (size_t i = 0; i < t->n; i++) {
        const char *p = t->f[i].path;
        if (pl) {
            if (strncmp(p, prefix, pl) != 0 || p[pl] != '.')
                continue;
            p += pl + 1;
        }
        char cand[PATH_CAP];
        size_t k = 0;
        for (; p[k] && p[k] != '.' && k + 1 < sizeof cand; k++)
            cand[k] = p[k];
        cand[k] = '\0';
        size_t d = edit_distance(key, cand);
        if (d < best && k > 0) {
            best = d;
            snprintf(out, cap, "%s", cand);
        }
    }
}

/* ------------------------------------------------------------ one value */

static void fmt_number(enum cfg_type type, double v, char *buf, size_t cap)
{
    if (type == CFG_F64 || fabs(v) >= 1e15 || v != floor(v))
        snprintf(buf, cap, "%g", v);
    else
        snprintf(buf, cap, "%.0f", v);
}

static int store_number(const cfg_field *f, void *obj, double v, char *msg, size_t cap)
{
    char vs[40], los[40], his[40];
    if (!isfinite(v)) {
        snprintf(msg, cap, "%g is not a finite number", v);
        return -1;
    }
    fmt_number(f->type, v, vs, sizeof vs);
    if (f->type != CFG_F64 && v != floor(v)) {
        snprintf(msg, cap, "%s is not an integer", vs);
        return -1;
    }
    int zero_ok = v == 0 && (f->flags & CFG_ZERO_OK);
    if (!zero_ok && (v < f->lo || v > f->hi)) {
        fmt_number(f->type, f->lo, los, sizeof los);
        fmt_number(f->type, f->hi, his, sizeof his);
        snprintf(msg, cap, "%s is out of range [%s, %s]%s", vs, los, his,
                 (f->flags & CFG_ZERO_OK) ? " (or 0)" : "");
        return -1;
    }
    if ((f->flags & CFG_POW2) && !zero_ok && !ddio_is_pow2((uint64_t)v)) {
        snprintf(msg, cap, "%s is not a power of two", vs);
        return -1;
    }
    void *p = at(obj, f->off);
    switch (f->type) {
    case CFG_U32: *(uint32_t *)p = (uint32_t)v; break;
    case CFG_U64: *(uint64_t *)p = (uint64_t)v; break;
    case CFG_F64: *(double *)p = v; break;
    default: assert(0 && "store_number on a non-number");
    }
    return 0;
}

static void join_names(const char *const *names, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; names[i]; i++)
        n += (size_t)snprintf(buf + (n < cap ? n : cap - 1), n < cap ? cap - n : 1, "%s%s",
                              i ? ", " : "", names[i]);
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int parse_mask(const char *s, uint64_t *out)
{
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    size_t n = strlen(p);
    if (n == 0 || n > 16)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = hex_digit(p[i]);
        if (d < 0)
            return -1;
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* The code point of the UTF-8 sequence at s (n bytes available) in *cp and
 * its length, or 0 when it is not valid UTF-8 (overlong forms, surrogates
 * and values above U+10FFFF included, as RFC 3629 says). */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0], v, min;
    size_t k;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        k = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        k = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        k = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return k;
}

/* C0, DEL and C1: what a terminal acts on instead of printing. */
static int is_control(unsigned cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

/* Text values are printed in tables, on terminals and in JSON: they must
 * be valid UTF-8 without control characters (an escape sequence in a
 * machine's name would reach the terminal, invalid UTF-8 would make the
 * JSON output invalid). */
static int check_text(const char *s, char *msg, size_t cap)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (!k) {
            snprintf(msg, cap, "is not valid UTF-8 (byte %zu is 0x%02x)", i + 1, (unsigned char)s[i]);
            return -1;
        }
        if (is_control(cp)) {
            snprintf(msg, cap, "has a control character (U+%04X) at byte %zu", cp, i + 1);
            return -1;
        }
        i += k;
    }
    return 0;
}

/* Strings, enum names and masks: the same text from JSON or the command line. */
static int store_text(const cfg_field *f, void *obj, const char *s, char *msg, size_t cap)
{
    void *p = at(obj, f->off);
    if (check_text(s, msg, cap) != 0)
        return -1;
    switch (f->type) {
    case CFG_STR: {
        size_t n = strlen(s);
        if (n + 1 > f->msize) {
            snprintf(msg, cap, "is %zu characters long, more than the %zu allowed", n, f->msize - 1);
            return -1;
        }
        if (n == 0 && (f->flags & CFG_NONEMPTY)) {
            snprintf(msg, cap, "must not be empty");
            return -1;
        }
        if (f->check && f->check(s, msg, cap) != 0)
            return -1;
        memcpy(p, s, n + 1);
        return 0;
    }
    case CFG_ENUM:
        for (int i = 0; f->names[i]; i++)
            if (strcmp(f->names[i], s) == 0) {
                *(int *)p = i;
                return 0;
            }
        char list[256];
        join_names(f->names, list, sizeof list);
        snprintf(msg, cap, "'%.64s' is not one of %s", s, list);
        return -1;
    case CFG_MASK: {
        uint64_t v;
        if (parse_mask(s, &v) != 0) {
            snprintf(msg, cap, "'%.64s' is not a hexadecimal way mask like \"0x600\"", s);
            return -1;
        }
        *(uint64_t *)p = v;
        return 0;
    }
    default:
        assert(0 && "store_text on a non-text field");
        return -1;
    }
}

static const char *json_kind(const cJSON *v)
{
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "a list";
    if (cJSON_IsObject(v)) return "an object";
    return "an invalid value";
}

static const char *type_wanted(const cfg_field *f)
{
    switch (f->type) {
    case CFG_U32: case CFG_U64: return "an integer";
    case CFG_F64: return "a number";
    case CFG_BOOL: return "true or false";
    case CFG_ENUM: case CFG_STR: return "a string";
    case CFG_MASK: return "a hex string like \"0x600\"";
    case CFG_ARRAY: return "a list";
    }
    return "?";
}

/* A scalar field from a JSON value. */
static int set_json(const cfg_field *f, void *obj, const cJSON *v, char *msg, size_t cap)
{
    switch (f->type) {
    case CFG_U32: case CFG_U64: case CFG_F64:
        if (!cJSON_IsNumber(v))
            break;
        return store_number(f, obj, v->valuedouble, msg, cap);
    case CFG_BOOL:
        if (!cJSON_IsBool(v))
            break;
        *(bool *)at(obj, f->off) = cJSON_IsTrue(v);
        return 0;
    case CFG_ENUM: case CFG_STR: case CFG_MASK:
        if (!cJSON_IsString(v))
            break;
        return store_text(f, obj, v->valuestring, msg, cap);
    case CFG_ARRAY:
        assert(0 && "arrays are loaded by load_array");
        return -1;
    }
    snprintf(msg, cap, "expected %s, got %s", type_wanted(f), json_kind(v));
    return -1;
}

int cfg_set_text(const cfg_field *f, void *obj, const char *text, char *msg, size_t cap)
{
    if (!text || !*text) {
        snprintf(msg, cap, "empty value");
        return -1;
    }
    switch (f->type) {
    case CFG_U32: case CFG_U64: case CFG_F64: {
        /* A decimal number, integer or not, so "2.5" and "-1" reach the
         * same checks (and words) as the JSON numbers 2.5 and -1. */
        size_t n = ddio_decimal_len(text, 1);
        double v = n && !text[n] ? strtod(text, NULL) : NAN;
        if (isnan(v)) {
            snprintf(msg, cap, "'%.64s' is not %s", text, f->type == CFG_F64 ? "a number" : "an integer");
            return -1;
        }
        if (isinf(v)) {
            snprintf(msg, cap, "'%.64s' is beyond the largest number, %g", text, DBL_MAX);
            return -1;
        }
        return store_number(f, obj, v, msg, cap);
    }
    case CFG_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
            *(bool *)at(obj, f->off) = text[0] == 't';
            return 0;
        }
        snprintf(msg, cap, "'%.64s' is not true or false", text);
        return -1;
    case CFG_ENUM: case CFG_STR: case CFG_MASK:
        return store_text(f, obj, text, msg, cap);
    case CFG_ARRAY:
        snprintf(msg, cap, "is a list: set it in a JSON file");
        return -1;
    }
    return -1;
}

/* ------------------------------------------------------------ loading */

static int load_object(const cfg_table *t, void *obj, const cJSON *json, const char *tprefix,
                       const char *dprefix, uint8_t *set, const char *file, ddio_err *e);

static void join_path(char *out, size_t cap, const char *a, const char *b)
{
    /* Paths are short; an over-long key (from a hostile file) is cut, which
     * only shortens the message that names it. */
    int n = a && *a ? snprintf(out, cap, "%s.%s", a, b) : snprintf(out, cap, "%s", b);
    if (n < 0)
        out[0] = '\0';
}

static int load_array(const cfg_field *f, void *obj, const cJSON *v, const char *dpath,
                      const char *file, ddio_err *e)
{
    if (!cJSON_IsArray(v))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: expected a list, got %s", file, dpath, json_kind(v));
    int n = cJSON_GetArraySize(v);
    if (n < f->lo)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: needs at least %.0f element%s", file, dpath, f->lo,
                         f->lo == 1 ? "" : "s");
    if (n > f->hi)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: has %d elements, at most %.0f are allowed", file, dpath,
                         n, f->hi);
    const cfg_table *et = f->elem;
    void *base = at(obj, f->off);
    memset(base, 0, f->msize);
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        void *eo = (char *)base + (size_t)i * et->obj_size;
        if (et->init)
            et->init(eo);
        char dp[PATH_CAP];
        snprintf(dp, sizeof dp, "%.200s[%d]", dpath, i);
        if (et->n == 1 && !is_leaf_path(&et->f[0])) {
            char msg[300];
            if (set_json(&et->f[0], eo, it, msg, sizeof msg) != 0)
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: %s", file, dp, msg);
            continue;
        }
        uint8_t eset[64] = {0};
        assert(et->n <= sizeof eset);
        if (load_object(et, eo, it, "", dp, eset, file, e) != 0)
            return -1;
        for (size_t j = 0; j < et->n; j++)
            if ((et->f[j].flags & CFG_REQUIRED) && !eset[j])
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: missing key \"%s\"", file, dp, et->f[j].path);
    }
    *(uint32_t *)at(obj, f->count_off) = (uint32_t)n;
    return 0;
}

static int load_object(const cfg_table *t, void *obj, const cJSON *json, const char *tprefix,
                       const char *dprefix, uint8_t *set, const char *file, ddio_err *e)
{
    char here[PATH_CAP];
    join_path(here, sizeof here, dprefix, tprefix);
    if (!cJSON_IsObject(json)) {
        if (!here[0])
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: expected a JSON object at the top level, got %s", file,
                             json_kind(json));
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: expected an object, got %s", file, here, json_kind(json));
    }
    for (const cJSON *it = json->child; it; it = it->next) {
        const char *key = it->string;
        char tpath[PATH_CAP], dpath[PATH_CAP];
        join_path(tpath, sizeof tpath, tprefix, key);
        join_path(dpath, sizeof dpath, dprefix, tpath);
        /* A literal dot would alias a nested path ("llc.ways" for llc: {ways}). */
        int idx = strpbrk(key, ".[") || !*key ? -1 : cfg_index(t, tpath);
        if (idx >= 0) {
            const cfg_field *f = &t->f[idx];
            if (f->type == CFG_ARRAY) {
                if (load_array(f, obj, it, dpath, file, e) != 0)
                    return -1;
            } else {
                char msg[300];
                if (set_json(f, obj, it, msg, sizeof msg) != 0)
                    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: %s", file, dpath, msg);
            }
            if (set)
                set[idx] = 1;
        } else if (!strpbrk(key, ".[") && *key && is_group(t, tpath)) {
            if (load_object(t, obj, it, tpath, dprefix, set, file, e) != 0)
                return -1;
        } else {
            char best[PATH_CAP];
            suggest(t, tprefix, key, best, sizeof best);
            if (best[0])
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: unknown key (did you mean \"%s\"?)", file, dpath,
                                 best);
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: unknown key", file, dpath);
        }
    }
    return 0;
}

int cfg_from_json(const cfg_table *t, void *obj, const cJSON *json, const char *file, uint8_t *set,
                  ddio_err *e)
{
    return load_object(t, obj, json, "", "", set, file, e);
}

/* Where text[pos] is, for messages: its line and column (bytes), from 1. */
static void line_col(const char *text, size_t pos, unsigned *line, size_t *col)
{
    size_t start = 0;
    *line = 1;
    for (size_t i = 0; i < pos; i++)
        if (text[i] == '\n') {
            ++*line;
            start = i + 1;
        }
    *col = pos - start + 1;
}

/* A string's escape at s[0] = '\\' (n bytes available): the code point it
 * stands for, or -1 when it is not one cJSON would decode to a single
 * character we need to look at (\" \\ \/, a malformed escape, a surrogate). */
static long escape_value(const char *s, size_t n)
{
    if (n < 2)
        return -1;
    switch (s[1]) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'u':
        break;
    default:
        return -1;
    }
    long v = 0;
    for (size_t i = 2; i < 6; i++) {
        int d = i < n ? hex_digit(s[i]) : -1;
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* A number whose value is beyond a double's range (cJSON reads 1e999 as
 * infinity): its length from text[i], or 0. */
static size_t infinite_number(const char *text, size_t i, size_t end)
{
    size_t j = i;
    while (j < end && text[j] && strchr("0123456789+-.eE", text[j]))
        j++;
    char *tok = malloc(j - i + 1);
    if (!tok)
        return 0;
    memcpy(tok, text + i, j - i);
    tok[j - i] = '\0';
    char *stop;
    double v = strtod(tok, &stop);
    int inf = *stop == '\0' && isinf(v);
    free(tok);
    return inf ? j - i : 0;
}

/* What cJSON accepts, or refuses without saying why, in text[0, end): a
 * string that is not valid UTF-8 or holds a control character (raw or
 * escaped, \u0000 included: cJSON would cut the string there), a number
 * beyond a double's range, nesting deeper than CFG_JSON_MAX_DEPTH.  The
 * offset of the first one, with msg filled, or end when there is none. */
static size_t json_problem(const char *text, size_t end, char *msg, size_t cap)
{
    int depth = 0;
    for (size_t i = 0; i < end; i++) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < end && text[i] != '"';) {
                unsigned cp;
                size_t k = 2;
                if (text[i] == '\\') {
                    long v = escape_value(text + i, end - i);
                    if (v >= 0 && is_control((unsigned)v)) {
                        snprintf(msg, cap, "%.*s: a control character (U+%04lX) in a string", text[i + 1] == 'u' ? 6 : 2,
                                 text + i, v);
                        return i;
                    }
                } else if (!(k = utf8_decode((const unsigned char *)text + i, end - i, &cp))) {
                    snprintf(msg, cap, "invalid UTF-8 (byte 0x%02x) in a string", (unsigned char)text[i]);
                    return i;
                } else if (is_control(cp)) {
                    snprintf(msg, cap, "a control character (U+%04X) in a string", cp);
                    return i;
                }
                i += k;
            }
        } else if (c == '[' || c == '{') {
            if (++depth > CFG_JSON_MAX_DEPTH) {
                snprintf(msg, cap, "nested deeper than %d levels", CFG_JSON_MAX_DEPTH);
                return i;
            }
        } else if (c == ']' || c == '}') {
            depth--;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t k = infinite_number(text, i, end);
            if (k) {
                snprintf(msg, cap, "the number %.*s%s is beyond the largest number, %g", k > 40 ? 40 : (int)k, text + i,
                         k > 40 ? "..." : "", DBL_MAX);
                return i;
            }
            while (i + 1 < end && text[i + 1] && strchr("0123456789+-.eE", text[i + 1]))
                i++;
        }
    }
    return end;
}

/* A key of an object with its place, for finding duplicates by sorting. */
typedef struct key_at {
    const char *key;
    size_t i;
} key_at;

static int cmp_key_at(const void *a, const void *b)
{
    const key_at *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The member of object j that repeats an earlier key (the first such in the
 * object's order), or NULL; sorting keeps a huge object O(n log n).  -1
 * when out of memory. */
static int repeated_key(const cJSON *j, const cJSON **dup)
{
    size_t n = 0;
    *dup = NULL;
    for (const cJSON *c = j->child; c; c = c->next)
        n++;
    if (n < 2)
        return 0;
    key_at *k = malloc(n * sizeof *k);
    if (!k)
        return -1;
    size_t i = 0;
    for (const cJSON *c = j->child; c; c = c->next, i++)
        k[i] = (key_at){c->string ? c->string : "", i};
    qsort(k, n, sizeof *k, cmp_key_at);
    size_t first = n;
    for (i = 1; i < n; i++)
        if (strcmp(k[i - 1].key, k[i].key) == 0 && k[i].i < first)
            first = k[i].i;
    free(k);
    if (first < n) {
        const cJSON *c = j->child;
        while (first--)
            c = c->next;
        *dup = c;
    }
    return 0;
}

/* Refuse a key given twice in one object, anywhere in j: cJSON keeps both
 * and a lookup finds the first, so the second would be silently ignored.
 * path: where j is ("" at the top), extended in place. */
static int check_unique_keys(const cJSON *j, char *path, size_t cap, const char *file, ddio_err *e)
{
    size_t len = strlen(path);
    if (cJSON_IsObject(j)) {
        const cJSON *dup;
        if (repeated_key(j, &dup) != 0)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        if (dup)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s%s%.60s: duplicate key", file, path,
                             len ? "." : "", dup->string);
    }
    size_t i = 0;
    for (const cJSON *c = j->child; c; c = c->next, i++) {
        if (cJSON_IsObject(j))
            snprintf(path + len, cap - len, "%s%.60s", len ? "." : "", c->string);
        else
            snprintf(path + len, cap - len, "[%zu]", i);
        int rc = check_unique_keys(c, path, cap, file, e);
        path[len] = '\0';
        if (rc != 0)
            return rc;
    }
    return 0;
}

cJSON *cfg_parse_text(const char *text, size_t len, const char *file, ddio_err *e)
{
    size_t k = 0;
    while (k < len && isspace((unsigned char)text[k]))
        k++;
    if (k == len) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: malformed JSON: the file is empty", file);
        return NULL;
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    size_t pos = end && end >= text ? (size_t)(end - text) : 0;
    if (j) {
        /* cJSON stops after the first value; anything but blanks after it is an error. */
        while (pos < len && isspace((unsigned char)text[pos]))
            pos++;
        if (pos < len) {
            cJSON_Delete(j);
            j = NULL;
        }
    }
    /* What cJSON let through, or a problem before the place it stopped
     * (the cause: a too deep nesting), is reported first. */
    char why[160];
    size_t scan = j || pos >= len ? len : pos + 1;
    size_t bad = json_problem(text, scan, why, sizeof why);
    unsigned line;
    size_t col;
    if (bad < scan) {
        cJSON_Delete(j);
        line_col(text, bad, &line, &col);
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: line %u, column %zu: %s", file, line, col, why);
        return NULL;
    }
    if (j) {
        char path[1024] = "";
        if (check_unique_keys(j, path, sizeof path, file, e) != 0) {
            cJSON_Delete(j);
            return NULL;
        }
        return j;
    }
    /* cJSON reports one past the first character of a bad bare word; show
     * the whole word ("oops", not "ops"). */
    while (pos > 0 && pos < len && isalnum((unsigned char)text[pos - 1]))
        pos--;
    line_col(text, pos, &line, &col);
    char near[24];
    size_t n = 0;
    for (size_t i = pos; i < len && n < 16 && text[i] != '\n'; i++)
        near[n++] = isprint((unsigned char)text[i]) ? text[i] : '?';
    near[n] = '\0';
    if (pos >= len || !n)
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: line %u, column %zu: malformed JSON: unexpected end", file, line, col);
    else
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: line %u, column %zu: malformed JSON near '%s'", file, line, col, near);
    return NULL;
}

/* ------------------------------------------------------------ output */

void cfg_format(const cfg_field *f, const void *obj, char *buf, size_t cap)
{
    const void *p = cat_(obj, f->off);
    switch (f->type) {
    case CFG_U32: snprintf(buf, cap, "%u", *(const uint32_t *)p); break;
    case CFG_U64: snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)p); break;
    case CFG_F64: snprintf(buf, cap, "%.15g", *(const double *)p); break;
    case CFG_BOOL: snprintf(buf, cap, "%s", *(const bool *)p ? "true" : "false"); break;
    case CFG_ENUM: {
        int v = *(const int *)p, n = 0;
        while (f->names[n])
            n++;
        snprintf(buf, cap, "%s", v >= 0 && v < n ? f->names[v] : "?");
        break;
    }
    case CFG_STR: snprintf(buf, cap, "%s", (const char *)p); break;
    case CFG_MASK: snprintf(buf, cap, "0x%llx", (unsigned long long)*(const uint64_t *)p); break;
    case CFG_ARRAY:
        snprintf(buf, cap, "[%u]", *(const uint32_t *)cat_(obj, f->count_off));
        break;
    }
}

/* A double as JSON text that reads back to the same bits: the shortest of
 * %.15g, %.16g, %.17g that does.  cJSON's own printer stops at 15 digits
 * whenever they are within a relative DBL_EPSILON of the value, so
 * 2.3000000000000003 would come back as 2.3. */
static cJSON *exact_number(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();   /* as cJSON prints it */
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return cJSON_CreateRaw(buf);
}

static cJSON *value_json(const cfg_field *f, const void *obj)
{
    const void *p = cat_(obj, f->off);
    char buf[64];
    switch (f->type) {
    case CFG_U32: return cJSON_CreateNumber(*(const uint32_t *)p);
    case CFG_U64: return cJSON_CreateNumber((double)*(const uint64_t *)p);
    case CFG_F64: return exact_number(*(const double *)p);
    case CFG_BOOL: return cJSON_CreateBool(*(const bool *)p);
    case CFG_ENUM: case CFG_MASK:
        cfg_format(f, obj, buf, sizeof buf);
        return cJSON_CreateString(buf);
    case CFG_STR: return cJSON_CreateString((const char *)p);
    case CFG_ARRAY: {
        cJSON *arr = cJSON_CreateArray();
        const cfg_table *et = f->elem;
        uint32_t n = *(const uint32_t *)cat_(obj, f->count_off);
        for (uint32_t i = 0; i < n; i++) {
            const void *eo = (const char *)p + (size_t)i * et->obj_size;
            if (et->n == 1 && !is_leaf_path(&et->f[0]))
                cJSON_AddItemToArray(arr, value_json(&et->f[0], eo));
            else
                cJSON_AddItemToArray(arr, cfg_to_json(et, eo));
        }
        return arr;
    }
    }
    return cJSON_CreateNull();
}

cJSON *cfg_to_json(const cfg_table *t, const void *obj)
{
    cJSON *root = cJSON_CreateObject();
    for (size_t i = 0; i < t->n; i++) {
        const cfg_field *f = &t->f[i];
        /* Walk / create the parent objects of a dotted path. */
        cJSON *parent = root;
        char seg[PATH_CAP];
        const char *p = f->path;
        for (const char *dot; (dot = strchr(p, '.')) != NULL; p = dot + 1) {
            snprintf(seg, sizeof seg, "%.*s", (int)(dot - p), p);
            cJSON *child = cJSON_GetObjectItemCaseSensitive(parent, seg);
            if (!child)
                child = cJSON_AddObjectToObject(parent, seg);
            parent = child;
        }
        cJSON_AddItemToObject(parent, p, value_json(f, obj));
    }
    return root;
}

void cfg_walk(const cfg_table *t, const void *obj, const char *dprefix, int top, cfg_row_fn fn, void *ud)
{
    for (size_t i = 0; i < t->n; i++) {
        const cfg_field *f = &t->f[i];
        int idx = top >= 0 ? top : (int)i;
        char dp[PATH_CAP], val[320];
        if (is_leaf_path(f))
            join_path(dp, sizeof dp, dprefix, f->path);
        else
            snprintf(dp, sizeof dp, "%s", dprefix);
        if (f->type != CFG_ARRAY) {
            cfg_format(f, obj, val, sizeof val);
            fn(ud, dp, val, idx);
            continue;
        }
        const cfg_table *et = f->elem;
        uint32_t n = *(const uint32_t *)cat_(obj, f->count_off);
        if (n == 0)
            fn(ud, dp, "[]", idx);
        for (uint32_t k = 0; k < n; k++) {
            char ep[PATH_CAP];
            snprintf(ep, sizeof ep, "%.200s[%u]", dp, k);
            cfg_walk(et, (const char *)cat_(obj, f->off) + (size_t)k * et->obj_size, ep, idx, fn, ud);
        }
    }
}

/* ------------------------------------------------------------ comparison */

static int scalar_equal(const cfg_field *f, const void *a, const void *b)
{
    const void *pa = cat_(a, f->off), *pb = cat_(b, f->off);
    switch (f->type) {
    case CFG_U32: return *(const uint32_t *)pa == *(const uint32_t *)pb;
    case CFG_U64: case CFG_MASK: return *(const uint64_t *)pa == *(const uint64_t *)pb;
    case CFG_F64: return *(const double *)pa == *(const double *)pb;
    case CFG_BOOL: return *(const bool *)pa == *(const bool *)pb;
    case CFG_ENUM: return *(const int *)pa == *(const int *)pb;
    case CFG_STR: return strcmp((const char *)pa, (const char *)pb) == 0;
    case CFG_ARRAY: break;
    }
    return 0;
}

static int diff_in(const cfg_table *t, const void *a, const void *b, const char *dprefix, char *path,
                   size_t cap)
{
    for (size_t i = 0; i < t->n; i++) {
        const cfg_field *f = &t->f[i];
        char dp[PATH_CAP];
        if (is_leaf_path(f))
            join_path(dp, sizeof dp, dprefix, f->path);
        else
            snprintf(dp, sizeof dp, "%s", dprefix);
        if (f->type != CFG_ARRAY) {
            if (!scalar_equal(f, a, b)) {
                snprintf(path, cap, "%s", dp);
                return 1;
            }
            continue;
        }
        uint32_t na = *(const uint32_t *)cat_(a, f->count_off), nb = *(const uint32_t *)cat_(b, f->count_off);
        if (na != nb) {
            snprintf(path, cap, "%s", dp);
            return 1;
        }
        const cfg_table *et = f->elem;
        for (uint32_t k = 0; k < na; k++) {
            const void *ea = (const char *)cat_(a, f->off) + (size_t)k * et->obj_size;
            const void *eb = (const char *)cat_(b, f->off) + (size_t)k * et->obj_size;
            char ep[PATH_CAP];
            snprintf(ep, sizeof ep, "%.200s[%u]", dp, k);
            if (diff_in(et, ea, eb, ep, path, cap))
                return 1;
        }
    }
    return 0;
}

int cfg_diff(const cfg_table *t, const void *a, const void *b, char *path, size_t cap)
{
    if (cap)
        path[0] = '\0';
    return diff_in(t, a, b, "", path, cap);
}

/* ------------------------------------------------------------ errors */

const char *cfg_src_of(const cfg_ctx *c, const char *paths)
{
    if (!c->src)
        return NULL;
    char one[PATH_CAP];
    for (const char *p = paths; *p;) {
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)n, p);
        int idx = cfg_index(c->t, one);
        if (idx >= 0 && c->src[idx])
            return c->src[idx];
        p += n;
        if (*p == ',')
            p++;
    }
    return NULL;
}

int cfg_fail(const cfg_ctx *c, ddio_err *e, const char *paths, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *opt = cfg_src_of(c, paths);
    if (opt)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", opt, msg);
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %.*s: %s", c->file, (int)strcspn(paths, ","), paths, msg);
}

int cfg_check_mask(uint64_t mask, uint32_t ways, int contiguous, char *msg, size_t cap)
{
    uint64_t full = ways >= 64 ? UINT64_MAX : (1ull << ways) - 1;
    if (!mask) {
        snprintf(msg, cap, "0x0 selects no LLC way");
        return -1;
    }
    if (mask & ~full) {
        snprintf(msg, cap, "0x%llx is wider than the %u-way LLC (0x%llx)", (unsigned long long)mask, ways,
                 (unsigned long long)full);
        return -1;
    }
    uint64_t run = mask >> __builtin_ctzll(mask);
    if (contiguous && (run & (run + 1))) {
        snprintf(msg, cap, "0x%llx is not a contiguous run of ways (CAT requires one)", (unsigned long long)mask);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ self-check */

int cfg_table_check(const cfg_table *t, ddio_err *e)
{
    for (size_t i = 0; i < t->n; i++) {
        const cfg_field *f = &t->f[i];
        size_t want = 0;
        switch (f->type) {
        case CFG_U32: want = sizeof(uint32_t); break;
        case CFG_U64: case CFG_MASK: want = sizeof(uint64_t); break;
        case CFG_F64: want = sizeof(double); break;
        case CFG_BOOL: want = sizeof(bool); break;
        case CFG_ENUM: want = sizeof(int); break;
        case CFG_STR: want = f->msize >= 2 ? f->msize : 0; break;
        case CFG_ARRAY: want = f->elem ? f->elem->obj_size * (size_t)f->hi : 0; break;
        }
        if (f->msize != want)
            return ddio_errf(e, DDIO_EXIT_IO, "%s: %s: member size %zu does not fit its type", t->what, f->path,
                             f->msize);
        if (f->type == CFG_ENUM && !f->names)
            return ddio_errf(e, DDIO_EXIT_IO, "%s: %s: enum without names", t->what, f->path);
        if (f->lo > f->hi || (f->type != CFG_F64 && f->hi > MAX_EXACT))
            return ddio_errf(e, DDIO_EXIT_IO, "%s: %s: bad range", t->what, f->path);
        if (!f->doc || !*f->doc)
            return ddio_errf(e, DDIO_EXIT_IO, "%s: %s: undocumented", t->what, f->path);
        for (size_t j = 0; j < i; j++)
            if (strcmp(t->f[j].path, f->path) == 0)
                return ddio_errf(e, DDIO_EXIT_IO, "%s: %s: duplicate path", t->what, f->path);
        if (is_leaf_path(f) && is_group(t, f->path))
            return ddio_errf(e, DDIO_EXIT_IO, "%s: %s: both a value and an object", t->what, f->path);
        if (f->type == CFG_ARRAY && cfg_table_check(f->elem, e) != 0)
            return -1;
    }
    return 0;
}
