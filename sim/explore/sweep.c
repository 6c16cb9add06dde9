/* sweep.c - a sweep spec: parsing, the grid and the points' ids
 * (sim/explore/sweep.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "configs/fields.h"
#include "sim/common/infile.h"
#include "sim/explore/sweep.h"

#define MAX_SPEC_BYTES (1u << 20)

typedef struct ctx {
    const char *file;
    ddio_err *e;
} ctx;

static int fail(const ctx *C, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ddio_errf(C->e, DDIO_EXIT_USAGE, "%s: %s: %s", C->file, path, msg);
}

static const char *type_name(const cJSON *v)
{
    return cJSON_IsNumber(v) ? "a number" : cJSON_IsString(v) ? "a string" : cJSON_IsArray(v) ? "a list"
         : cJSON_IsObject(v) ? "an object" : cJSON_IsBool(v) ? "a boolean" : "null";
}

static int get_text(const ctx *C, const cJSON *j, const char *key, char *out, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    out[0] = '\0';
    if (!v)
        return 0;
    if (!cJSON_IsString(v))
        return fail(C, key, "expected a string, got %s", type_name(v));
    if (!v->valuestring[0] || strlen(v->valuestring) >= cap)
        return fail(C, key, "must be 1 to %zu characters", cap - 1);
    snprintf(out, cap, "%s", v->valuestring);
    return 0;
}

/* Whether a parameter of that name is already in the spec. */
static int has_param(const sw_spec *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_fixed; i++)
        if (strcmp(s->fixed[i].name, name) == 0)
            return 1;
    for (uint32_t i = 0; i < s->n_axes; i++)
        if (strcmp(s->axis[i].name, name) == 0)
            return 1;
    return 0;
}

static int one_value(const ctx *C, const char *path, const char *name, const cJSON *v, vd_param *out)
{
    char msg[400];
    if (vd_param_from_json(name, v, out, msg, sizeof msg) != 0)
        return fail(C, path, "%s", msg);
    return 0;
}

static int push(const ctx *C, const char *path, sw_axis *a, const vd_param *v)
{
    if (a->n >= SW_MAX_VALUES)
        return fail(C, path, "more than %u values", SW_MAX_VALUES);
    if ((a->n & (a->n - 1)) == 0) {   /* grow at powers of two */
        vd_param *g = realloc(a->v, (a->n ? 2 * a->n : 1) * sizeof *g);
        if (!g)
            return ddio_errf(C->e, DDIO_EXIT_IO, "out of memory");
        a->v = g;
    }
    a->v[a->n++] = *v;
    return 0;
}

/* The two or three numbers of a range. */
static int range_args(const ctx *C, const char *path, const cJSON *r, int max_n, double *x, int *n)
{
    if (!cJSON_IsArray(r))
        return fail(C, path, "expected a list [lo, hi%s], got %s", max_n == 3 ? ", step" : "", type_name(r));
    *n = cJSON_GetArraySize(r);
    if (*n < 2 || *n > max_n)
        return fail(C, path, "expected [lo, hi%s]", max_n == 3 ? "] or [lo, hi, step" : "");
    for (int i = 0; i < *n; i++) {
        const cJSON *v = cJSON_GetArrayItem(r, i);
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
            char p[300];
            snprintf(p, sizeof p, "%s[%d]", path, i);
            return fail(C, p, "expected a number, got %s", type_name(v));
        }
        x[i] = v->valuedouble;
    }
    return 0;
}

/* A value as written, with where it came from: for the duplicate check. */
typedef struct written {
    char text[VD_TEXT_LEN + 16];
    size_t i;
} written;

static int by_text_then_index(const void *a, const void *b)
{
    const written *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* No value twice (as the results print it: two range values closer than
 * its 10 digits are the same value): sorted, so O(n log n) for the largest
 * axes.  `list`: the values came from a list, whose index names the second. */
static int no_twice(const ctx *C, const char *path, const sw_axis *a, int list)
{
    written *w = malloc((a->n ? a->n : 1) * sizeof *w);
    if (!w)
        return ddio_errf(C->e, DDIO_EXIT_IO, "out of memory");
    for (size_t i = 0; i < a->n; i++) {
        vd_param_format(&a->v[i], w[i].text, sizeof w[i].text);
        w[i].i = i;
    }
    qsort(w, a->n, sizeof *w, by_text_then_index);
    int rc = 0;
    for (size_t i = 1; i < a->n && rc == 0; i++)
        if (strcmp(w[i - 1].text, w[i].text) == 0) {
            char p[300];
            if (list)
                snprintf(p, sizeof p, "%s[%zu]", path, w[i].i);
            else
                snprintf(p, sizeof p, "%s", path);
            rc = fail(C, p, "the value %s is listed twice", w[i].text);
        }
    free(w);
    return rc;
}

static int axis_values(const ctx *C, const char *name, const cJSON *v, sw_axis *a)
{
    char path[200];
    snprintf(path, sizeof path, "grid.%s", name);
    vd_param p;
    if (cJSON_IsArray(v)) {
        int i = 0;
        for (const cJSON *c = v->child; c; c = c->next, i++) {
            char ip[220];
            snprintf(ip, sizeof ip, "%s[%d]", path, i);
            if (one_value(C, ip, name, c, &p) != 0 || push(C, ip, a, &p) != 0)
                return -1;
        }
        if (no_twice(C, path, a, 1) != 0)
            return -1;
    } else if (cJSON_IsObject(v)) {
        const cJSON *k = v->child;
        if (!k || k->next || (strcmp(k->string, "range") != 0 && strcmp(k->string, "pow2") != 0))
            return fail(C, path, "expected a list, {\"range\": [lo, hi(, step)]} or {\"pow2\": [lo, hi]}");
        char rp[220];
        snprintf(rp, sizeof rp, "%s.%s", path, k->string);
        double x[3] = {0, 0, 1};
        int n;
        int pow2 = strcmp(k->string, "pow2") == 0;
        if (range_args(C, rp, k, pow2 ? 2 : 3, x, &n) != 0)
            return -1;
        if (pow2) {
            for (int i = 0; i < 2; i++)
                if (!(x[i] >= 1 && x[i] <= 1073741824.0 && x[i] == floor(x[i]) && ((uint64_t)x[i] & ((uint64_t)x[i] - 1)) == 0))
                    return fail(C, rp, "%g is not a power of two in [1, 2^30]", x[i]);
        } else if (!(x[2] > 0)) {
            return fail(C, rp, "the step must be > 0");
        }
        if (x[1] < x[0])
            return fail(C, rp, "empty range: %g > %g", x[0], x[1]);
        cJSON *num = cJSON_CreateNumber(0);
        if (!num)
            return ddio_errf(C->e, DDIO_EXIT_IO, "out of memory");
        int rc = 0;
        /* Linear: lo + i x step, i counted, so that 0.1 steps do not drift. */
        for (double i = 0;; i++) {
            double val = pow2 ? x[0] * pow(2, i) : x[0] + i * x[2];
            if (val > x[1] * (1 + 1e-12) + 1e-12)
                break;
            cJSON_SetNumberValue(num, val);
            if ((rc = one_value(C, rp, name, num, &p)) != 0 || (rc = push(C, rp, a, &p)) != 0)
                break;
        }
        cJSON_Delete(num);
        if (rc != 0 || no_twice(C, rp, a, 0) != 0)
            return -1;
    } else {
        return fail(C, path, "expected a list or a range, got %s", type_name(v));
    }
    if (a->n == 0)
        return fail(C, path, "no values");
    return 0;
}

static void hash_text(uint64_t *h, const char *t)
{
    for (; *t; t++) {
        *h ^= (unsigned char)*t;
        *h *= 0x100000001B3ull;
    }
    *h ^= 0xFF;   /* a separator no text contains */
    *h *= 0x100000001B3ull;
}

static uint64_t spec_hash(const sw_spec *s)
{
    /* Not the machine's and workload's names: sw_spec_check hashes what
     * they hold. */
    uint64_t h = 0xCBF29CE484222325ull;
    char t[VD_TEXT_LEN + 16];
    for (uint32_t i = 0; i < s->n_fixed; i++) {
        hash_text(&h, s->fixed[i].name);
        vd_param_format(&s->fixed[i], t, sizeof t);
        hash_text(&h, t);
    }
    for (uint32_t i = 0; i < s->n_axes; i++) {
        hash_text(&h, s->axis[i].name);
        for (size_t k = 0; k < s->axis[i].n; k++) {
            vd_param_format(&s->axis[i].v[k], t, sizeof t);
            hash_text(&h, t);
        }
    }
    hash_text(&h, s->filter);
    return h;
}

static int parse_json(const cJSON *j, const ctx *C, sw_spec *s)
{
    static const char *const keys[] = {"machine", "workload", "fixed", "grid", "filter", "description", NULL};
    if (!cJSON_IsObject(j))
        return ddio_errf(C->e, DDIO_EXIT_USAGE, "%s: expected a JSON object, got %s", C->file, type_name(j));
    for (const cJSON *c = j->child; c; c = c->next) {
        int ok = 0;
        for (const char *const *k = keys; *k; k++)
            ok |= strcmp(c->string, *k) == 0;
        if (!ok)
            return fail(C, c->string, "unknown key (known: machine, workload, fixed, grid, filter, description)");
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "description");
    if (d && !cJSON_IsString(d))
        return fail(C, "description", "expected a string, got %s", type_name(d));
    if (get_text(C, j, "machine", s->machine, sizeof s->machine) != 0 ||
        get_text(C, j, "workload", s->workload, sizeof s->workload) != 0 ||
        get_text(C, j, "filter", s->filter, sizeof s->filter) != 0)
        return -1;
    const cJSON *fx = cJSON_GetObjectItemCaseSensitive(j, "fixed");
    if (fx) {
        if (!cJSON_IsObject(fx))
            return fail(C, "fixed", "expected an object, got %s", type_name(fx));
        for (const cJSON *c = fx->child; c; c = c->next) {
            char p[200];
            snprintf(p, sizeof p, "fixed.%s", c->string);
            if (has_param(s, c->string))
                return fail(C, p, "parameter given twice");
            if (s->n_fixed >= VD_MAX_PARAMS)
                return fail(C, p, "more than %d parameters", VD_MAX_PARAMS);
            if (one_value(C, p, c->string, c, &s->fixed[s->n_fixed]) != 0)
                return -1;
            s->n_fixed++;
        }
    }
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "grid");
    if (!g)
        return ddio_errf(C->e, DDIO_EXIT_USAGE, "%s: grid: missing (the parameters to vary)", C->file);
    if (!cJSON_IsObject(g))
        return fail(C, "grid", "expected an object, got %s", type_name(g));
    if (!g->child)
        return fail(C, "grid", "no parameters");
    s->n_grid = 1;
    for (const cJSON *c = g->child; c; c = c->next) {
        char p[200];
        snprintf(p, sizeof p, "grid.%s", c->string);
        if (!vd_param_find(c->string))
            return fail(C, p, "unknown parameter '%.40s' (known: %s)", c->string, vd_param_names());
        if (has_param(s, c->string))
            return fail(C, p, "parameter given twice (fixed and varied?)");
        if (s->n_fixed + s->n_axes >= VD_MAX_PARAMS)
            return fail(C, p, "more than %d parameters", VD_MAX_PARAMS);
        sw_axis *a = &s->axis[s->n_axes++];
        snprintf(a->name, sizeof a->name, "%s", c->string);
        if (axis_values(C, c->string, c, a) != 0)
            return -1;
        if ((double)s->n_grid * (double)a->n > SW_MAX_POINTS)
            return fail(C, "grid", "more than %u points", SW_MAX_POINTS);
        s->n_grid *= a->n;
    }
    if (s->filter[0]) {
        const char *names[2 * VD_MAX_PARAMS];
        size_t n = 0;
        for (uint32_t i = 0; i < s->n_fixed; i++)
            names[n++] = s->fixed[i].name;
        for (uint32_t i = 0; i < s->n_axes; i++)
            names[n++] = s->axis[i].name;
        char msg[300];
        if (sw_expr_compile(s->filter, names, n, &s->expr, msg, sizeof msg) != 0)
            return fail(C, "filter", "%s", msg);
    }
    s->hash = spec_hash(s);
    return 0;
}

int sw_spec_parse(const char *text, const char *file, sw_spec *s, ddio_err *e)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", file);
    cJSON *j = cfg_parse_text(text, strlen(text), file, e);
    if (!j)
        return -1;
    ctx C = {.file = file, .e = e};
    int rc = parse_json(j, &C, s);
    cJSON_Delete(j);
    if (rc != 0)
        sw_spec_free(s);
    return rc;
}

/* A machine or workload of the spec, loaded: its JSON into *h.  Errors name
 * the spec's key, not the option the user did not type. */
static int load_config(const sw_spec *s, int workload, ddio_config *c, uint64_t *h, ddio_err *e)
{
    const char *key = workload ? "workload" : "machine", *name = workload ? s->workload : s->machine;
    ddio_err why = {0};
    int rc = !name[0] ? 0
           : workload ? ddio_workload_load(&c->workload, name, &why)
                      : ddio_machine_load(&c->machine, name, &why);
    if (rc != 0) {
        const char *msg = why.msg;
        char opt[32];
        snprintf(opt, sizeof opt, "--%s: ", key);
        if (strncmp(msg, opt, strlen(opt)) == 0)
            msg += strlen(opt);
        return ddio_errf(e, why.exit_code ? why.exit_code : DDIO_EXIT_USAGE, "%s: %s: %s", s->file, key, msg);
    }
    char *json = workload ? ddio_workload_to_json(&c->workload) : ddio_machine_to_json(&c->machine);
    if (!json)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    hash_text(h, json);
    free(json);
    return 0;
}

/* The name of the spec's parameter that sets the field a --set (`set`:
 * PATH=VALUE) sets, where the spec gives it into `where` ("grid.policy");
 * NULL when no parameter does. */
static const char *param_setting(const sw_spec *s, const char *set, char *where, size_t cap)
{
    size_t plen = strcspn(set, "=");
    for (uint32_t i = 0; i < s->n_fixed + s->n_axes; i++) {
        int fixed = i < s->n_fixed;
        const char *name = fixed ? s->fixed[i].name : s->axis[i - s->n_fixed].name;
        const vd_param_spec *ps = vd_param_find(name);
        for (int o = 0; ps && o < DDIO_CFG_NOPTS; o++) {
            int part;
            const char *field = ddio_config_option_field((enum ddio_cfg_opt)o, &part);
            if (!field || strcmp(ddio_config_option_name((enum ddio_cfg_opt)o), ps->option) != 0)
                continue;
            char full[128];
            snprintf(full, sizeof full, "%s.%s", part ? "workload" : "machine", field);
            if (strlen(full) == plen && strncmp(full, set, plen) == 0) {
                snprintf(where, cap, "%s.%s", fixed ? "fixed" : "grid", name);
                return name;
            }
        }
    }
    return NULL;
}

/* A --set whose path or value is wrong is wrong for every point: configure
 * the grid's first point (c is scratch) and refuse, before anything runs,
 * an error that names a --set.  Other errors of a point (a value of the
 * grid out of its range) stay that point's error row. */
static int sets_apply(const sw_spec *s, const runner_opts *o, ddio_config *c, ddio_err *e)
{
    if (o->n_sets == 0)
        return 0;
    vd_param p[VD_MAX_PARAMS];
    runner_job j = {.machine = s->machine, .workload = s->workload, .n_params = sw_point_params(s, 0, p), .param = p};
    dsim_options d;
    char profile[32];
    ddio_err why = {0};
    if (runner_job_config(&j, o, c, &d, profile, sizeof profile, &why) == 0 || strncmp(why.msg, "--set ", 6) != 0)
        return 0;
    return ddio_errf(e, why.exit_code ? why.exit_code : DDIO_EXIT_USAGE, "%s", why.msg);
}

int sw_spec_check(sw_spec *s, const runner_opts *o, ddio_err *e)
{
    for (int i = 0; i < o->n_sets; i++) {
        char where[VD_NAME_LEN + 8];
        if (param_setting(s, o->sets[i], where, sizeof where))
            return ddio_errf(e, DDIO_EXIT_USAGE, "--set %s: %s: %s sets the same field; vary it in the spec, or "
                             "drop the --set", o->sets[i], s->file, where);
    }
    ddio_config *c = malloc(sizeof *c);
    if (!c)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    ddio_config_default(c);
    uint64_t h = 0xCBF29CE484222325ull;
    int rc = load_config(s, 0, c, &h, e) != 0 || load_config(s, 1, c, &h, e) != 0 || sets_apply(s, o, c, e) != 0
           ? -1 : 0;
    free(c);
    s->config_hash = h;
    return rc;
}

char *sw_read_spec(const char *path, ddio_err *e)
{
    FILE *f = ddio_open_data(path, MAX_SPEC_BYTES, e);
    size_t n;
    char *buf = f ? ddio_read_all(f, path, MAX_SPEC_BYTES, "", &n, e) : NULL;
    if (!buf)
        return NULL;
    if (strlen(buf) != n) {
        free(buf);
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: a NUL byte in the spec", path), NULL;
    }
    return buf;
}

void sw_spec_free(sw_spec *s)
{
    for (uint32_t i = 0; i < s->n_axes; i++)
        free(s->axis[i].v);
    sw_expr_free(s->expr);
    char file[sizeof s->file];
    memcpy(file, s->file, sizeof file);
    memset(s, 0, sizeof *s);
    memcpy(s->file, file, sizeof file);
}

uint32_t sw_point_params(const sw_spec *s, size_t k, vd_param *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_fixed; i++)
        out[n++] = s->fixed[i];
    /* Odometer: the last axis varies fastest. */
    size_t rest = k;
    for (uint32_t i = s->n_axes; i-- > 0;) {
        const sw_axis *a = &s->axis[i];
        out[s->n_fixed + i] = a->v[rest % a->n];
        rest /= a->n;
    }
    return s->n_fixed + s->n_axes;
}

int sw_point_selected(const sw_spec *s, const vd_param *p, uint32_t n)
{
    if (!s->expr)
        return 1;
    double v[2 * VD_MAX_PARAMS];
    for (uint32_t i = 0; i < n; i++)
        v[i] = p[i].text[0] ? NAN : p[i].value;
    double r = sw_expr_eval(s->expr, v);
    return r == r && r != 0;   /* NaN (arithmetic on a word parameter): dropped */
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const vd_param *)a)->name, ((const vd_param *)b)->name);
}

uint64_t sw_point_id(const vd_param *p, uint32_t n)
{
    vd_param sorted[VD_MAX_PARAMS];
    if (n > VD_MAX_PARAMS)
        n = VD_MAX_PARAMS;
    memcpy(sorted, p, n * sizeof *p);
    qsort(sorted, n, sizeof *sorted, by_name);
    uint64_t h = 0xCBF29CE484222325ull;
    for (uint32_t i = 0; i < n; i++) {
        char t[VD_TEXT_LEN + 16];
        vd_param_format(&sorted[i], t, sizeof t);
        const char *part[4] = {sorted[i].name, "=", t, "\n"};
        for (int k = 0; k < 4; k++)
            for (const char *c = part[k]; *c; c++) {
                h ^= (unsigned char)*c;
                h *= 0x100000001B3ull;
            }
    }
    return h;
}
