/* experiment.c - load an experiment folder: its experiment.json, checked
 * against one schema whatever the source of the measurements, and every
 * measured file it names, grouped into points (docs/validation.md,
 * "Experiment folders").
 *
 * The schema is strict (an unknown key is an error) because a typo in an
 * experiment description silently changes what is compared: "fixd" would
 * otherwise validate the default configuration against the measurements. */
#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "configs/config.h"
#include "configs/fields.h"
#include "sim/common/infile.h"
#include "sim/common/parse.h"
#include "sim/queue/pktsrc.h"
#include "traces/gen.h"
#include "validate/experiment.h"

#define MAX_JSON_BYTES (1u << 20)
#define MAX_POINTS 100000

/* ------------------------------------------------------------ names */

/* The index of `name` among the n names, or -1. */
static int name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static const char *const metric_names[VD_METRIC_COUNT] = {
    [VD_PCIE_WRITE_HIT] = "pcie_write_hit",
    [VD_PCIE_READ_HIT] = "pcie_read_hit",
    [VD_PCIE_WRITE_PARTIAL_HIT] = "pcie_write_partial_hit",
};

const char *vd_metric_name(enum vd_metric m)
{
    return (unsigned)m < VD_METRIC_COUNT ? metric_names[m] : "?";
}

int vd_metric_from_name(const char *name)
{
    return name_index(metric_names, VD_METRIC_COUNT, name);
}

static const char *const evidence_names[VD_EV_COUNT] = {
    [VD_EV_MPPS] = "mpps",
    [VD_EV_LATENCY_AVG_US] = "latency_avg_us",
    [VD_EV_OFFERED_GBPS] = "offered_gbps",
};

const char *vd_evidence_name(enum vd_evidence v)
{
    return (unsigned)v < VD_EV_COUNT ? evidence_names[v] : "?";
}

int vd_evidence_from_name(const char *name)
{
    return name_index(evidence_names, VD_EV_COUNT, name);
}

/* Every parameter an experiment may vary or fix: one simulate / predict
 * option each (sim/cli/cli_sim.c, configs/config.c). */
static const vd_param_spec params[] = {
    {"cores", "--cores", VD_KIND_UINT, 0},
    {"rx_ring", "--rx-ring", VD_KIND_UINT, 0},
    {"rx_ring_total", "--rx-ring-total", VD_KIND_UINT, 0},
    {"tx_ring", "--tx-ring", VD_KIND_UINT, 0},
    {"burst", "--burst", VD_KIND_UINT, 0},
    {"ddio_ways", "--ddio-ways", VD_KIND_UINT, 0},
    {"policy", "--policy", VD_KIND_WORD, 0},
    {"extra_cycles", "--extra-cycles", VD_KIND_REAL, 0},
    {"uncore_ghz", "--uncore-ghz", VD_KIND_REAL, 0},
    {"write_ratio", "--write-ratio", VD_KIND_REAL, 0},
    {"pkt_size", "--pkt-size", VD_KIND_UINT, 1},
    {"rate", "--rate", VD_KIND_RATE, 1},
    {"flows", "--flows", VD_KIND_UINT, 1},
    {"flow_burst", "--flow-burst", VD_KIND_UINT, 1},
    {"gen_threads", "--gen-threads", VD_KIND_UINT, 1},
    {"flow_tuples", "--flow-tuples", VD_KIND_WORD, 1},
};
#define N_PARAMS (sizeof params / sizeof params[0])

const vd_param_spec *vd_param_find(const char *name)
{
    for (size_t i = 0; i < N_PARAMS; i++)
        if (strcmp(name, params[i].name) == 0)
            return &params[i];
    return NULL;
}

const char *vd_param_names(void)
{
    return "cores, rx_ring, rx_ring_total, tx_ring, burst, ddio_ways, policy, extra_cycles, uncore_ghz, "
           "write_ratio, pkt_size, rate, flows, flow_burst, gen_threads, flow_tuples";
}

void vd_param_format(const vd_param *p, char *buf, size_t cap)
{
    if (p->text[0])
        snprintf(buf, cap, "%s", p->text);
    else
        snprintf(buf, cap, "%.10g", p->value);
}

const vd_param *vd_point_param(const vd_point *p, const char *name)
{
    for (uint32_t i = 0; i < p->n_params; i++)
        if (strcmp(p->param[i].name, name) == 0)
            return &p->param[i];
    return NULL;
}

/* ------------------------------------------------------------ helpers */

typedef struct loader {
    const char *file;           /* DIR/experiment.json, for messages */
    const char *dir;
    ddio_err *e;
    vd_experiment *x;           /* x->input: the files read */
} loader;

/* Add path to the files the experiment reads (once). */
static int note_input(const loader *L, const char *path)
{
    vd_experiment *x = L->x;
    for (size_t i = 0; i < x->n_input; i++)
        if (strcmp(x->input[i], path) == 0)
            return 0;
    char **grown = realloc(x->input, (x->n_input + 1) * sizeof *grown);
    if (grown)
        x->input = grown;
    char *copy = grown ? strdup(path) : NULL;
    if (!copy)
        return ddio_errf(L->e, DDIO_EXIT_IO, "out of memory");
    x->input[x->n_input++] = copy;
    return 0;
}

static int fail(const loader *L, const char *path, const char *fmt, const char *arg)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg ? arg : "");
    return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: %s", L->file, path, msg);
}

static char *read_text(const char *path, size_t *len, ddio_err *e)
{
    FILE *f = ddio_open_data(path, MAX_JSON_BYTES, e);
    return f ? ddio_read_all(f, path, MAX_JSON_BYTES, "", len, e) : NULL;
}

/* Every key of object j is one of `keys` (NULL-terminated). */
static int check_keys(const loader *L, const cJSON *j, const char *path, const char *const *keys)
{
    for (const cJSON *c = j->child; c; c = c->next) {
        int ok = 0;
        for (const char *const *k = keys; *k; k++)
            ok |= strcmp(c->string, *k) == 0;
        if (!ok) {
            char p[200];
            snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", c->string);
            return fail(L, p, "unknown key%s", "");
        }
    }
    return 0;
}

/* A string member (required or not); *out = NULL when absent. */
static int get_string(const loader *L, const cJSON *j, const char *key, int required, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    *out = NULL;
    if (!v)
        return required ? fail(L, key, "missing (required)%s", "") : 0;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return fail(L, key, "must be a non-empty string%s", "");
    *out = v->valuestring;
    return 0;
}

static int get_number(const loader *L, const cJSON *j, const char *key, const char *path, double dflt,
                      double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    *out = dflt;
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return fail(L, path, "must be a finite number%s", "");
    *out = v->valuedouble;
    return 0;
}

/* What is wrong with the number x as a value of parameter s, or NULL. */
static const char *number_problem(const vd_param_spec *s, double x)
{
    if (s->kind == VD_KIND_WORD)
        return "must be a string";
    if (!isfinite(x))
        return "must be a finite number";
    if (s->kind == VD_KIND_UINT && (x < 0 || x != floor(x) || x > 4294967295.0))
        return "must be a whole number >= 0";
    if (s->kind == VD_KIND_RATE && x <= 0)
        return "must be > 0 (Gb/s) or \"max\"";
    return NULL;
}

/* The upper bound of a whole-number traffic parameter, 0 when p is not one. */
static uint32_t traffic_max(const char *name)
{
    return strcmp(name, "flows") == 0        ? GEN_MAX_FLOWS
         : strcmp(name, "flow_burst") == 0   ? GEN_MAX_FLOW_BURST
         : strcmp(name, "gen_threads") == 0  ? GEN_MAX_THREADS
                                             : 0;
}

int vd_param_check(const vd_param *p, ddio_err *e)
{
    const vd_param_spec *s = vd_param_find(p->name);
    if (!s)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unknown parameter '%s' (known: %s)", p->name, vd_param_names());
    if (!s->engine_sim)
        return 0;
    char text[VD_TEXT_LEN + 16];
    vd_param_format(p, text, sizeof text);
    if (strcmp(p->name, "pkt_size") == 0) {
        if (!(p->value >= GEN_MIN_FRAME && p->value <= GEN_MAX_FRAME))
            return ddio_errf(e, DDIO_EXIT_USAGE, "--pkt-size: %s is not in [%u, %u]", text, GEN_MIN_FRAME,
                             GEN_MAX_FRAME);
        return 0;
    }
    if (strcmp(p->name, "rate") == 0)   /* "max"; "offered" holds a checked value (offered_rates) */
        return strcmp(p->text, "max") == 0 ? 0 : gen_check_rate(p->value, "--rate", e);
    if (strcmp(p->name, "flow_tuples") == 0) {
        int random_tuples;
        return gen_parse_tuples(text, &random_tuples, s->option, e);
    }
    uint32_t hi = traffic_max(p->name);
    if (!hi)
        return ddio_errf(e, DDIO_EXIT_USAGE, "internal: traffic parameter '%s'", p->name);
    if (!(p->value >= 1 && p->value <= hi))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s is not in [1, %u]", s->option, text, hi);
    return 0;
}

int vd_param_from_json(const char *name, const cJSON *v, vd_param *out, char *msg, size_t cap)
{
    const vd_param_spec *s = vd_param_find(name);
    memset(out, 0, sizeof *out);
    if (!s) {
        snprintf(msg, cap, "unknown parameter '%.40s' (known: %s)", name, vd_param_names());
        return -1;
    }
    snprintf(out->name, sizeof out->name, "%s", name);
    out->value = NAN;
    const char *bad = NULL;
    if (cJSON_IsString(v)) {
        if (s->kind == VD_KIND_WORD || (s->kind == VD_KIND_RATE && strcmp(v->valuestring, "max") == 0)) {
            if (!v->valuestring[0] || strlen(v->valuestring) >= sizeof out->text)
                bad = "must be a name of 1 to 31 characters";
            else
                snprintf(out->text, sizeof out->text, "%s", v->valuestring);
        } else {
            bad = s->kind == VD_KIND_RATE ? "must be a number (Gb/s) or \"max\"" : "must be a number, not a string";
        }
    } else if (s->kind != VD_KIND_WORD && !cJSON_IsNumber(v)) {
        bad = "must be a finite number";
    } else {
        bad = number_problem(s, v->valuedouble);
        if (!bad)
            out->value = v->valuedouble;
    }
    ddio_err range = {0};
    if (!bad && vd_param_check(out, &range) != 0)   /* the option's range: nothing out of it runs */
        bad = range.msg;
    if (bad)
        snprintf(msg, cap, "%s", bad);
    return bad ? -1 : 0;
}

/* A parameter value from JSON, checked against its kind. */
static int param_from_json(const loader *L, const char *path, const char *name, const cJSON *v, vd_param *out)
{
    char msg[400];
    if (vd_param_from_json(name, v, out, msg, sizeof msg) != 0)
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: %s", L->file, path, msg);
    return 0;
}

static int add_param(const loader *L, vd_point *p, const vd_param *v, const char *path)
{
    if (vd_point_param(p, v->name))
        return fail(L, path, "parameter '%s' is given twice (fixed and varied?)", v->name);
    if (p->n_params >= VD_MAX_PARAMS)
        return fail(L, path, "more than 16 parameters%s", "");
    p->param[p->n_params++] = *v;
    return 0;
}

static int read_fixed(const loader *L, const cJSON *j, vd_point *base)
{
    const cJSON *fx = cJSON_GetObjectItemCaseSensitive(j, "fixed");
    memset(base, 0, sizeof *base);
    if (!fx)
        return 0;
    if (!cJSON_IsObject(fx))
        return fail(L, "fixed", "must be an object of parameter: value%s", "");
    for (const cJSON *c = fx->child; c; c = c->next) {
        char path[120];
        snprintf(path, sizeof path, "fixed.%.60s", c->string);
        vd_param v;
        if (strcmp(c->string, "rate") == 0 && cJSON_IsString(c) && strcmp(c->valuestring, "offered") == 0) {
            /* Each point's own measured rate: set once the evidence is read (offered_rates). */
            memset(&v, 0, sizeof v);
            snprintf(v.name, sizeof v.name, "rate");
            snprintf(v.text, sizeof v.text, "offered");
            v.value = NAN;
            if (add_param(L, base, &v, path) != 0)
                return -1;
            L->x->rate_offered = 1;
            continue;
        }
        if (param_from_json(L, path, c->string, c, &v) != 0 || add_param(L, base, &v, path) != 0)
            return -1;
    }
    return 0;
}

/* "rate": "offered": each point's rate is the generator's rate measured at
 * that point (evidence offered_gbps, the mean over runs), in the frame bits
 * the simulator's --rate counts: the wire's 24 bytes per frame (FCS,
 * preamble, gap) taken out, so pkt_size must be known. */
static int offered_rates(const loader *L, vd_experiment *x)
{
    if (!x->rate_offered)
        return 0;
    for (size_t i = 0; i < x->n; i++) {
        vd_point *p = &x->point[i];
        vd_param *r = NULL;
        for (uint32_t k = 0; k < p->n_params; k++)
            if (strcmp(p->param[k].name, "rate") == 0)
                r = &p->param[k];
        const vd_param *sz = vd_point_param(p, "pkt_size");
        assert(r && strcmp(r->text, "offered") == 0);
        if (!sz)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: fixed.rate: \"offered\" needs pkt_size (the wire counts "
                             "%u bytes more per frame)", L->file, PKTSRC_WIRE_OVERHEAD);
        if (!p->has_ev[VD_EV_OFFERED_GBPS])
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: fixed.rate: \"offered\", but %s has no offered_gbps "
                             "measured", L->file, p->where);
        double gbps = p->ev[VD_EV_OFFERED_GBPS].mean * sz->value / (sz->value + PKTSRC_WIRE_OVERHEAD);
        ddio_err e2 = {0};
        if (gen_check_rate(gbps, "--rate", &e2) != 0)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: fixed.rate: \"offered\" at %s: %s", L->file, p->where,
                             e2.msg);
        r->value = gbps;
    }
    return 0;
}

/* The machine / workload named: a name must be known, a path must exist
 * (relative paths are relative to the experiment folder). */
static int resolve_config(const loader *L, const char *kind, const char *key, const char *given, char *out,
                          size_t cap)
{
    out[0] = '\0';
    if (!given)
        return 0;
    int is_path = strchr(given, '/') != NULL || (strlen(given) > 5 && strcmp(given + strlen(given) - 5, ".json") == 0);
    if (is_path && given[0] != '/')
        snprintf(out, cap, "%s/%s", L->dir, given);
    else
        snprintf(out, cap, "%s", given);
    char path[600];
    ddio_err e2 = {0};
    if (ddio_config_find(kind, out, path, sizeof path, &e2) != 0)
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: %s", L->file, key, e2.msg);
    /* ddio_config_find takes a path as it is: check that it exists here,
     * and is a file, so that the error names this key, not a point. */
    struct stat st;
    if (is_path && (access(path, R_OK) != 0 || stat(path, &st) != 0))
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: %s: %s", L->file, key, path, strerror(errno));
    if (is_path && S_ISDIR(st.st_mode))
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: %s: is a directory, not a %s file", L->file, key, path,
                         key);
    if (is_path && !S_ISREG(st.st_mode))
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: %s: not a regular file", L->file, key, path);
    return note_input(L, path);
}

/* ------------------------------------------------------------ points */

static vd_point *new_point(vd_experiment *x, size_t *cap, const vd_point *base, const loader *L)
{
    if (x->n >= MAX_POINTS)
        return fail(L, "points", "more than 100000 points%s", ""), NULL;
    if (x->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        vd_point *g = realloc(x->point, *cap * sizeof *g);
        if (!g)
            return ddio_errf(L->e, DDIO_EXIT_IO, "out of memory"), NULL;
        x->point = g;
    }
    vd_point *p = &x->point[x->n++];
    *p = *base;
    memset(p->has, 0, sizeof p->has);
    memset(p->m, 0, sizeof p->m);
    memset(p->source, 0, sizeof p->source);
    return p;
}

/* Store runs (taken over) as metric m of point p. */
/* Record r of point p, named `name`, takes over run[runs]. */
static void set_record(const vd_point *p, vd_record *r, const char *name, double *run, uint32_t runs)
{
    memset(r, 0, sizeof *r);
    snprintf(r->metric, sizeof r->metric, "%s", name);
    r->n_params = p->n_params < VD_MAX_PARAMS ? p->n_params : VD_MAX_PARAMS;
    memcpy(r->param, p->param, sizeof(vd_param) * r->n_params);
    r->run = run;
    r->runs = runs;
    vd_record_stats(r);
}

static void set_metric(vd_point *p, int m, double *run, uint32_t runs)
{
    set_record(p, &p->m[m], vd_metric_name((enum vd_metric)m), run, runs);
    p->has[m] = 1;
}

/* ------------------------------------------------------------ NPF source */

/* One varied parameter of an NPF experiment: an x column of the per-metric
 * files (NPF's --output writes one per variable that is not static, in the
 * test's order), or a variable's column of a --single-output file. */
typedef struct npf_x_col {
    char param[VD_NAME_LEN];
    double scale, offset;
    char column[64];                    /* single-output: the variable's column ("" = param) */
} npf_x_col;

/* What an npf experiment.json says about its files. */
typedef struct npf_desc {
    uint32_t nx;
    npf_x_col x[VD_NPF_MAX_X];
    const char *x_from;                 /* metric file stem whose row mean is x, or NULL */
    char series_param[VD_NAME_LEN];     /* "" = no series */
    const char *stem[VD_METRIC_COUNT];  /* file stems (single-output: columns), NULL = metric not measured */
    const char *ev_stem[VD_EV_COUNT];   /* evidence file stems, NULL = not measured */
    double unit;                        /* 0.01 for percent */
    int single;                         /* format "single-output" */
    const char *file;                   /* single-output: the CSV */
    const char *build;                  /* single-output: the rows of this build only, or NULL */
    /* output_columns after "x": how many values, where the runs ("all")
     * or the mean is among them. */
    uint32_t n_after;                   /* words after x */
    int all_at, mean_at;                /* their index among those words, -1 = absent */
    int columns_given;                  /* output_columns in experiment.json (else x all assumed) */
} npf_desc;

/* Record warning `msg` of the experiment (a copy). */
static int warn(const loader *L, const char *msg)
{
    vd_experiment *x = L->x;
    char **g = realloc(x->warning, (x->n_warning + 1) * sizeof *g);
    if (g)
        x->warning = g;
    char *copy = g ? strdup(msg) : NULL;
    if (!copy)
        return ddio_errf(L->e, DDIO_EXIT_IO, "out of memory");
    x->warning[x->n_warning++] = copy;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The numeric file-name prefixes P of DIR/P<stem>.csv, sorted. */
static int list_series(const loader *L, const char *stem, double **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(L->dir);
    if (!d)
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s", L->dir, strerror(errno));
    char suffix[VD_NAME_LEN + 64];
    snprintf(suffix, sizeof suffix, "%s.csv", stem);
    size_t sl = strlen(suffix), cap = 0;
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);
        if (nl <= sl || strcmp(de->d_name + nl - sl, suffix) != 0)
            continue;
        char pre[64];
        if (nl - sl >= sizeof pre)
            continue;
        memcpy(pre, de->d_name, nl - sl);
        pre[nl - sl] = '\0';
        double v;
        if (ddio_decimal_double(pre, &v) != 0 || !isdigit((unsigned char)pre[0]))
            continue;   /* another metric whose name ends the same ("ItoM-HIT-RATE" in "XItoM-HIT-RATE") */
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            double *g = realloc(*out, cap * sizeof *g);
            if (!g) {
                rc = ddio_errf(L->e, DDIO_EXIT_IO, "out of memory");
                break;
            }
            *out = g;
        }
        (*out)[(*n)++] = v;
    }
    closedir(d);
    if (rc == 0 && *n == 0)
        rc = fail(L, "series", "no measured file named <value>%s in the folder", suffix);
    if (rc == 0)
        qsort(*out, *n, sizeof **out, cmp_double);
    return rc;
}

/* One x column: {"param", "scale", "offset"} (single-output: and "column"). */
static int read_x_col(const loader *L, const cJSON *xo, const char *path, int single, npf_x_col *c)
{
    char p[64];
    memset(c, 0, sizeof *c);
    if (!cJSON_IsObject(xo))
        return fail(L, path, "must be an object {\"param\", \"scale\", \"offset\"}%s", "");
    static const char *const xkeys[] = {"param", "scale", "offset", "column", NULL};
    if (check_keys(L, xo, path, xkeys) != 0)
        return -1;
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(xo, "param");
    snprintf(p, sizeof p, "%s.param", path);
    if (!cJSON_IsString(pv))
        return fail(L, p, "missing, or not a string%s", "");
    const char *xp = pv->valuestring;
    if (!vd_param_find(xp))
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: unknown parameter '%.40s' (known: %s)", L->file, p, xp,
                         vd_param_names());
    if (vd_param_find(xp)->kind == VD_KIND_WORD)
        return fail(L, p, "'%s' is not numeric", xp);
    snprintf(c->param, sizeof c->param, "%s", xp);
    char ps[64], po[64];
    snprintf(ps, sizeof ps, "%s.scale", path);
    snprintf(po, sizeof po, "%s.offset", path);
    if (get_number(L, xo, "scale", ps, 1, &c->scale) != 0 || get_number(L, xo, "offset", po, 0, &c->offset) != 0)
        return -1;
    if (c->scale == 0)
        return fail(L, ps, "must not be 0%s", "");
    const cJSON *cv = cJSON_GetObjectItemCaseSensitive(xo, "column");
    snprintf(p, sizeof p, "%s.column", path);
    if (cv && !single)
        return fail(L, p, "only with \"format\": \"single-output\" (the per-metric files' x columns have no "
                    "names)%s", "");
    if (cv && (!cJSON_IsString(cv) || !cv->valuestring[0] || strlen(cv->valuestring) >= sizeof c->column))
        return fail(L, p, "must be a column name of 1 to 63 characters%s", "");
    snprintf(c->column, sizeof c->column, "%s", cv ? cv->valuestring : xp);
    return 0;
}

/* "output_columns": NPF's --output-columns, "x" first, then the words NPF
 * writes a value for each (one for each but "all", which writes every run). */
static int read_output_columns(const loader *L, const cJSON *j, npf_desc *d)
{
    const cJSON *oc = cJSON_GetObjectItemCaseSensitive(j, "output_columns");
    d->all_at = 0;
    d->mean_at = -1;
    d->n_after = 1;   /* default: x all (ddio-bench's files) */
    if (!oc)
        return 0;
    d->columns_given = 1;
    if (d->single)
        return fail(L, "output_columns", "not with \"format\": \"single-output\" (its columns are named)%s", "");
    if (!cJSON_IsArray(oc) || cJSON_GetArraySize(oc) < 2)
        return fail(L, "output_columns", "must be an array of NPF's --output-columns words, \"x\" first%s", "");
    d->all_at = -1;
    d->n_after = 0;
    int i = 0;
    for (const cJSON *w = oc->child; w; w = w->next, i++) {
        char p[64];
        snprintf(p, sizeof p, "output_columns[%d]", i);
        const char *s = cJSON_IsString(w) ? w->valuestring : "";
        if (i == 0) {
            if (strcmp(s, "x") != 0)
                return fail(L, p, "must be \"x\" (the x columns come first)%s", "");
            continue;
        }
        int perc = strncmp(s, "perc", 4) == 0 && s[4] && strspn(s + 4, "0123456789") == strlen(s + 4) &&
                   strlen(s + 4) <= 3;
        static const char *const words[] = {"mean", "avg", "average", "min", "max", "med", "median", "std",
                                            "n", "nres", "first", "last", "all", "raw", NULL};
        int known = perc;
        for (const char *const *k = words; *k && !known; k++)
            known = strcmp(s, *k) == 0;
        if (!known)
            return fail(L, p, "'%.40s' is not an --output-columns word NPF writes after x (mean, avg, average, min, "
                        "max, med, median, percNN, std, n, nres, first, last, all, raw)", s);
        int all = strcmp(s, "all") == 0 || strcmp(s, "raw") == 0;
        if (all && d->all_at >= 0)
            return fail(L, p, "a second \"all\": the runs of a row could not be told apart%s", "");
        if (all)
            d->all_at = (int)d->n_after;
        if (d->mean_at < 0 && (strcmp(s, "mean") == 0 || strcmp(s, "avg") == 0 || strcmp(s, "average") == 0))
            d->mean_at = (int)d->n_after;
        d->n_after++;
    }
    if (d->all_at < 0 && d->mean_at < 0)
        return fail(L, "output_columns", "has neither \"all\" (the runs) nor \"mean\": nothing to compare%s", "");
    return 0;
}

static int read_npf_desc(const loader *L, const cJSON *j, npf_desc *d)
{
    memset(d, 0, sizeof *d);
    const char *format;
    if (get_string(L, j, "format", 0, &format) != 0)
        return -1;
    if (format && strcmp(format, "single-output") == 0)
        d->single = 1;
    else if (format && strcmp(format, "output") != 0)
        return fail(L, "format", "'%.40s' is not output (NPF's --output files, one per metric) or single-output "
                    "(NPF's --single-output CSV)", format);
    if (get_string(L, j, "file", 0, &d->file) != 0 || get_string(L, j, "build", 0, &d->build) != 0)
        return -1;
    if (d->single && !d->file)
        return fail(L, "file", "missing (required with \"format\": \"single-output\": the CSV NPF wrote)%s", "");
    if (d->file && !d->single)
        return fail(L, "file", "only with \"format\": \"single-output\" (the per-metric files are named by "
                    "metrics)%s", "");
    if (d->file && strchr(d->file, '/'))
        return fail(L, "file", "must be a file's name in the folder (no '/')%s", "");
    if (d->build && !d->single)
        return fail(L, "build", "only with \"format\": \"single-output\"%s", "");
    const cJSON *xo = cJSON_GetObjectItemCaseSensitive(j, "x");
    if (!xo)
        return fail(L, "x", "missing (required for source npf)%s", "");
    if (cJSON_IsArray(xo)) {
        int n = cJSON_GetArraySize(xo);
        if (n < 1 || n > VD_NPF_MAX_X)
            return fail(L, "x", "must be an array of 1 to 8 x objects, one per varied parameter%s", "");
        int i = 0;
        for (const cJSON *c = xo->child; c; c = c->next, i++) {
            char p[32];
            snprintf(p, sizeof p, "x[%d]", i);
            if (read_x_col(L, c, p, d->single, &d->x[i]) != 0)
                return -1;
            for (int k = 0; k < i; k++)
                if (strcmp(d->x[k].param, d->x[i].param) == 0)
                    return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: '%s' is already x[%d]", L->file, p,
                                     d->x[i].param, k);
        }
        d->nx = (uint32_t)n;
    } else {
        if (!cJSON_IsObject(xo))
            return fail(L, "x", "must be an object {\"param\", \"scale\", \"offset\"} or an array of them%s", "");
        if (read_x_col(L, xo, "x", d->single, &d->x[0]) != 0)
            return -1;
        d->nx = 1;
    }
    if (get_string(L, j, "x_from", 0, &d->x_from) != 0)
        return -1;
    if (d->x_from && strchr(d->x_from, '/'))
        return fail(L, "x_from", "must be a measured file's name in the folder (a string, no '/')%s", "");
    if (d->x_from && (d->single || d->nx > 1))
        return fail(L, "x_from", "only with one x and the per-metric files%s", "");
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(j, "series");
    if (so && d->single)
        return fail(L, "series", "not with \"format\": \"single-output\" (list every varied parameter in x)%s", "");
    if (so) {
        static const char *const skeys[] = {"param", NULL};
        if (!cJSON_IsObject(so) || check_keys(L, so, "series", skeys) != 0)
            return cJSON_IsObject(so) ? -1 : fail(L, "series", "must be an object {\"param\"}%s", "");
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(so, "param");
        if (!cJSON_IsString(sp))
            return fail(L, "series.param", "missing, or not a string%s", "");
        const vd_param_spec *s = vd_param_find(sp->valuestring);
        if (!s || s->kind == VD_KIND_WORD)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: series.param: '%.40s' is not a numeric parameter (%s)",
                             L->file, sp->valuestring, vd_param_names());
        for (uint32_t k = 0; k < d->nx; k++)
            if (strcmp(sp->valuestring, d->x[k].param) == 0)
                return fail(L, "series.param", "'%s' is already x.param", d->x[k].param);
        snprintf(d->series_param, sizeof d->series_param, "%s", sp->valuestring);
    }
    const char *values;
    if (get_string(L, j, "values", 0, &values) != 0)
        return -1;
    if (!values || strcmp(values, "percent") == 0)
        d->unit = 0.01;
    else if (strcmp(values, "fraction") == 0)
        d->unit = 1;
    else
        return fail(L, "values", "'%s' is not percent or fraction", values);
    return read_output_columns(L, j, d);
}

/* The x values of a row (its x columns, or x_from's row mean), scaled. */
static int npf_x(const loader *L, const npf_desc *d, const vd_npf *xf, const char *xfile, const vd_npf_row *row,
                 double *xv)
{
    for (uint32_t k = 0; k < d->nx; k++)
        xv[k] = row->xs[k] * d->x[k].scale + d->x[k].offset;
    if (xf) {
        const vd_npf_row *r = NULL;
        for (size_t i = 0; i < xf->n && !r; i++)
            if (xf->row[i].x == row->x)
                r = &xf->row[i];
        if (!r)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: no row for %g (x_from)", xfile, row->x);
        double raw = 0;
        for (uint32_t k = 0; k < r->runs; k++)
            raw += r->run[k] / r->runs;
        xv[0] = raw * d->x[0].scale + d->x[0].offset;
    }
    return 0;
}

/* "rx_ring = 128" or "(pkt_size, rx_ring) = (1500, 128)", for messages. */
static void xv_text(const npf_desc *d, const double *xv, char *buf, size_t cap)
{
    if (d->nx == 1) {
        snprintf(buf, cap, "%s = %g", d->x[0].param, xv[0]);
        return;
    }
    size_t at = 0;
    for (uint32_t k = 0; k < d->nx && at < cap; k++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", k ? ", " : "(", d->x[k].param);
    for (uint32_t k = 0; k < d->nx && at < cap; k++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%g", k ? ", " : ") = (", xv[k]);
    if (at < cap)
        snprintf(buf + at, cap - at, ")");
}

/* The point of (series value, x values), or NULL. */
static vd_point *npf_find(vd_experiment *x, const npf_desc *d, const double *sv, const double *xv)
{
    for (size_t i = 0; i < x->n; i++) {
        vd_point *p = &x->point[i];
        const vd_param *ps = sv ? vd_point_param(p, d->series_param) : NULL;
        int same = !sv || (ps && ps->value == *sv);
        for (uint32_t k = 0; k < d->nx && same; k++) {
            const vd_param *px = vd_point_param(p, d->x[k].param);
            same = px && px->value == xv[k];
        }
        if (same)
            return p;
    }
    return NULL;
}

/* The point of (series value, x values), created if new. */
static vd_point *npf_point(vd_experiment *x, size_t *cap, const vd_point *base, const npf_desc *d, const loader *L,
                           const double *sv, const double *xv, const char *where)
{
    vd_point *p = npf_find(x, d, sv, xv);
    if (p)
        return p;
    p = new_point(x, cap, base, L);
    if (!p)
        return NULL;
    vd_param v = {.value = 0};
    if (sv) {
        const char *bad = number_problem(vd_param_find(d->series_param), *sv);
        if (bad)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: %s = %g (the file name's prefix): %s", L->dir, where,
                             d->series_param, *sv, bad), NULL;
        snprintf(v.name, sizeof v.name, "%s", d->series_param);
        v.value = *sv;
        if (add_param(L, p, &v, "series.param") != 0)
            return NULL;
    }
    for (uint32_t k = 0; k < d->nx; k++) {
        snprintf(v.name, sizeof v.name, "%s", d->x[k].param);
        v.value = xv[k];
        const char *bad = number_problem(vd_param_find(d->x[k].param), xv[k]);
        if (bad)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: %s = %g: %s (x.scale / x.offset?)", L->dir, where,
                             d->x[k].param, xv[k], bad), NULL;
        if (add_param(L, p, &v, "x.param") != 0)
            return NULL;
    }
    snprintf(p->where, sizeof p->where, "%s", where);
    return p;
}

static int is_rate(double v)
{
    return v >= -1e-9 && v <= 1 + 1e-9;
}

/* The mean and then every run of r (fractions) are hit rates: a run of
 * 150 % next to one of -50 % would otherwise pass as a mean of 50 %. */
static int check_rates(const loader *L, const vd_record *r, double unit, const char *where)
{
    const char *top = unit == 1 ? "1" : "100";
    if (!is_rate(r->mean))
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: mean %g is not a rate in [0, %s] (\"values\"?)", L->dir,
                         where, r->mean / unit, top);
    for (uint32_t k = 0; k < r->runs; k++)
        if (!is_rate(r->run[k]))
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: run %u: %g is not a rate in [0, %s] (\"values\"?)",
                             L->dir, where, k + 1, r->run[k] / unit, top);
    return 0;
}

/* Keep, of the values after a row's x columns, its runs as output_columns
 * says where they are ("all"), or its mean alone (no "all"). */
static int pick_runs(const loader *L, const npf_desc *d, vd_npf_row *row, const char *where)
{
    uint32_t fixed = d->n_after - (d->all_at >= 0);
    if (d->all_at >= 0 ? row->runs <= fixed : row->runs != fixed)
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: %u values after the x, but output_columns makes %s%u", L->dir,
                         where, row->runs, d->all_at >= 0 ? "more than " : "", fixed);
    uint32_t from = (uint32_t)(d->all_at >= 0 ? d->all_at : d->mean_at);
    uint32_t n = d->all_at >= 0 ? row->runs - fixed : 1;
    memmove(row->run, row->run + from, n * sizeof *row->run);
    row->runs = n;
    return 0;
}

/* A metric file: a warning when it holds the means alone (output_columns
 * without "all"), or one value per row while experiment.json does not say
 * what its columns are (NPF's default --output-columns is x mean: the
 * same file).  An explicit "all" says the values are runs: no warning. */
static int warn_means(const loader *L, const npf_desc *d, const vd_npf *f, const char *path)
{
    int all_one = 1;
    for (size_t i = 0; i < f->n && all_one; i++)
        all_one = f->row[i].runs == 1;
    char msg[1600];
    if (d->all_at < 0)
        snprintf(msg, sizeof msg, "%s: holds means only (output_columns has no \"all\"): n = 1 per point, no "
                 "spread", path);
    else if (all_one && !d->columns_given)
        snprintf(msg, sizeof msg, "%s: one value per row: n = 1 per point, no spread (NPF's default "
                 "--output-columns x mean writes means only; --output-columns x all writes every run)", path);
    else
        return 0;
    return warn(L, msg);
}

/* Read one metric file of one series into the points. */
static int npf_metric(vd_experiment *x, size_t *cap, const vd_point *base, const npf_desc *d, const loader *L,
                      int m, const double *sv)
{
    char prefix[64] = "", path[1100], xpath[1100];
    if (sv)
        snprintf(prefix, sizeof prefix, "%.10g", *sv);
    snprintf(path, sizeof path, "%s/%s%s.csv", L->dir, prefix, d->stem[m]);
    vd_npf f, xf;
    memset(&xf, 0, sizeof xf);
    if (note_input(L, path) != 0 || vd_npf_read_x(path, d->nx, &f, L->e) != 0)
        return -1;
    int rc = 0;
    if (d->x_from) {
        snprintf(xpath, sizeof xpath, "%s/%s%s.csv", L->dir, prefix, d->x_from);
        rc = note_input(L, xpath) == 0 ? vd_npf_read(xpath, &xf, L->e) : -1;
    }
    for (size_t i = 0; rc == 0 && i < f.n; i++) {
        vd_npf_row *row = &f.row[i];
        double xv[VD_NPF_MAX_X];
        char where[160], xt[200];
        snprintf(where, sizeof where, "%s%s.csv:%u", prefix, d->stem[m], row->line);
        if ((rc = pick_runs(L, d, row, where)) != 0 ||
            (rc = npf_x(L, d, d->x_from ? &xf : NULL, xpath, row, xv)) != 0)
            break;
        vd_point *p = npf_point(x, cap, base, d, L, sv, xv, where);
        if (!p) {
            rc = -1;
            break;
        }
        if (p->has[m]) {   /* two rows, one x: the first would be lost */
            xv_text(d, xv, xt, sizeof xt);
            rc = ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: %s again (as at %s): x.scale, x.offset or x_from "
                           "map two rows to one value", L->dir, where, xt, p->source[m]);
            break;
        }
        for (uint32_t k = 0; k < row->runs; k++)
            row->run[k] *= d->unit;
        set_metric(p, m, row->run, row->runs);
        row->run = NULL;   /* taken over */
        snprintf(p->source[m], sizeof p->source[m], "%s", where);
        rc = check_rates(L, &p->m[m], d->unit, where);
    }
    if (rc == 0)
        rc = warn_means(L, d, &f, path);
    vd_npf_free(&f);
    vd_npf_free(&xf);
    return rc;
}

/* Read one evidence file of one series into the points its rows name,
 * which the metric files made: evidence goes with measured hit rates. */
static int npf_evidence(vd_experiment *x, const npf_desc *d, const loader *L, int v, const double *sv)
{
    char prefix[64] = "", path[1100];
    if (sv)
        snprintf(prefix, sizeof prefix, "%.10g", *sv);
    snprintf(path, sizeof path, "%s/%s%s.csv", L->dir, prefix, d->ev_stem[v]);
    vd_npf f;
    if (note_input(L, path) != 0 || vd_npf_read_x(path, d->nx, &f, L->e) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f.n; i++) {
        vd_npf_row *row = &f.row[i];
        char where[160], xt[200];
        snprintf(where, sizeof where, "%s%s.csv:%u", prefix, d->ev_stem[v], row->line);
        double xv[VD_NPF_MAX_X];
        if (d->x_from) {
            rc = ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: evidence with x_from is not supported", L->dir, where);
            break;
        }
        if ((rc = pick_runs(L, d, row, where)) != 0 || (rc = npf_x(L, d, NULL, NULL, row, xv)) != 0)
            break;
        xv_text(d, xv, xt, sizeof xt);
        vd_point *p = npf_find(x, d, sv, xv);
        if (!p) {
            rc = ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: %s has no measured hit rate (evidence goes with the "
                           "metrics' points)", L->dir, where, xt);
            break;
        }
        if (p->has_ev[v]) {
            rc = ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: %s again", L->dir, where, xt);
            break;
        }
        for (uint32_t k = 0; rc == 0 && k < row->runs; k++)
            if (!(row->run[k] >= 0))
                rc = ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: run %u: %g is negative", L->dir, where, k + 1,
                               row->run[k]);
        if (rc != 0)
            break;
        set_record(p, &p->ev[v], vd_evidence_name((enum vd_evidence)v), row->run, row->runs);
        row->run = NULL;   /* taken over */
        p->has_ev[v] = 1;
    }
    vd_npf_free(&f);
    return rc;
}

/* ------------------------------------------------------------ NPF --single-output */

/* The column of result `name` in t: as named, or with NPF's y_ prefix (a
 * result named like a variable); -1 with e filled when neither. */
static int result_col(const loader *L, const vd_npf_table *t, const char *path, const char *key, const char *name)
{
    int c = vd_npf_table_col(t, name);
    if (c < 0) {
        char y[VD_NAME_LEN + 70];
        snprintf(y, sizeof y, "y_%s", name);
        c = vd_npf_table_col(t, y);
    }
    if (c < 0)
        ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: %s: no column '%.60s' (nor y_%.60s) in %s", L->file, key, name, name,
                  path);
    return c;
}

/* Append value v to record r of point p (named `name`), growing its runs. */
static int add_run(const loader *L, vd_point *p, vd_record *r, uint8_t *has, const char *name, double v)
{
    if (!*has) {
        set_record(p, r, name, NULL, 0);
        *has = 1;
    }
    if ((r->runs & (r->runs - 1)) == 0) {   /* 0, 1, 2, 4, ...: grow to the next power of two */
        double *g = realloc(r->run, (r->runs ? 2 * r->runs : 1) * sizeof *g);
        if (!g)
            return ddio_errf(L->e, DDIO_EXIT_IO, "out of memory");
        r->run = g;
    }
    r->run[r->runs++] = v;
    return 0;
}

/* A cell of a result column: 1 with *v set, 0 empty or NaN (pandas writes
 * a missing run so: that run is left out), -1 with e filled. */
static int result_cell(const loader *L, const char *cell, const char *where, const char *col, double *v)
{
    if (!cell[0] || strcmp(cell, "nan") == 0 || strcmp(cell, "NaN") == 0)
        return 0;
    if (ddio_decimal_double(cell, v) != 0)
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: column %s: '%.40s' is not a finite number", L->dir, where,
                         col, cell);
    return 1;
}

/* A fixed parameter that is also a column of the table (a sweep's --format
 * npf file names its columns after the parameters) must have the fixed
 * value on every row: a file of another configuration is refused. */
static int single_fixed(const loader *L, const vd_point *base, const vd_npf_table *t, char *const *row,
                        const char *where)
{
    for (uint32_t k = 0; k < base->n_params; k++) {
        const vd_param *f = &base->param[k];
        int c = vd_npf_table_col(t, f->name);
        if (c < 0 || strcmp(f->text, "offered") == 0)
            continue;
        double v;
        int same = f->text[0] ? strcmp(row[c], f->text) == 0
                              : ddio_decimal_double(row[c], &v) == 0 && v == f->value;
        if (!same) {
            char fv[VD_TEXT_LEN + 16];
            vd_param_format(f, fv, sizeof fv);
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: column %s is '%.40s', but experiment.json fixes %s = %s",
                             L->dir, where, f->name, row[c], f->name, fv);
        }
    }
    return 0;
}

/* One row of the single-output table into its point. */
static int single_row(vd_experiment *x, size_t *cap, const vd_point *base, const npf_desc *d, const loader *L,
                      const vd_npf_table *t, size_t r, const int *xc, const int *mc, const int *ec, int ti,
                      size_t *first_row)
{
    char *const *row = t->cell + r * t->ncol;
    char where[160];
    snprintf(where, sizeof where, "%s:%u", d->file, t->line[r]);
    if (single_fixed(L, base, t, row, where) != 0)
        return -1;
    double xv[VD_NPF_MAX_X];
    for (uint32_t k = 0; k < d->nx; k++) {
        if (ddio_decimal_double(row[xc[k]], &xv[k]) != 0)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: column %s: '%.40s' is not a finite number", L->dir,
                             where, t->col[xc[k]], row[xc[k]]);
        xv[k] = xv[k] * d->x[k].scale + d->x[k].offset;
    }
    vd_point *p = npf_point(x, cap, base, d, L, NULL, xv, where);
    if (!p)
        return -1;
    size_t pi = (size_t)(p - x->point);
    if (pi == x->n - 1 && first_row[pi] == (size_t)-1)
        first_row[pi] = r;
    /* NPF numbers each combination of the variables (test_index): rows of
     * one point with two numbers differ in a variable that x does not name. */
    if (ti >= 0 && strcmp(t->cell[first_row[pi] * t->ncol + ti], row[ti]) != 0) {
        char xt[200];
        xv_text(d, xv, xt, sizeof xt);
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: test_index %.20s, but line %u (%s) has test_index %.20s: "
                         "another variable varies (name it in x)", L->dir, where, row[ti], t->line[first_row[pi]],
                         xt, t->cell[first_row[pi] * t->ncol + ti]);
    }
    for (int m = 0; m < VD_METRIC_COUNT; m++) {
        double v;
        int got = mc[m] < 0 ? 0 : result_cell(L, row[mc[m]], where, t->col[mc[m]], &v);
        if (got < 0)
            return -1;
        if (!got)
            continue;
        if (!p->has[m])
            snprintf(p->source[m], sizeof p->source[m], "%s", where);
        if (add_run(L, p, &p->m[m], &p->has[m], vd_metric_name((enum vd_metric)m), v * d->unit) != 0)
            return -1;
    }
    for (int v = 0; v < VD_EV_COUNT; v++) {
        double val;
        int got = ec[v] < 0 ? 0 : result_cell(L, row[ec[v]], where, t->col[ec[v]], &val);
        if (got < 0)
            return -1;
        if (got && !(val >= 0))
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: column %s: %g is negative", L->dir, where,
                             t->col[ec[v]], val);
        if (got && add_run(L, p, &p->ev[v], &p->has_ev[v], vd_evidence_name((enum vd_evidence)v), val) != 0)
            return -1;
    }
    return 0;
}

/* The columns of x, metrics, evidence, test_index and build in t. */
static int single_columns(const loader *L, const npf_desc *d, const vd_npf_table *t, const char *path, int *xc,
                          int *mc, int *ec, int *ti, int *bc)
{
    for (uint32_t k = 0; k < d->nx; k++)
        if ((xc[k] = vd_npf_table_col(t, d->x[k].column)) < 0)
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: x%s: no column '%s' in %s (the variable's name: "
                             "\"column\")", L->file, d->nx > 1 ? "[]" : "", d->x[k].column, path);
    for (int m = 0; m < VD_METRIC_COUNT; m++) {
        char key[64];
        snprintf(key, sizeof key, "metrics.%s", vd_metric_name((enum vd_metric)m));
        mc[m] = -1;
        if (d->stem[m] && (mc[m] = result_col(L, t, path, key, d->stem[m])) < 0)
            return -1;
    }
    for (int v = 0; v < VD_EV_COUNT; v++) {
        char key[64];
        snprintf(key, sizeof key, "evidence.%s", vd_evidence_name((enum vd_evidence)v));
        ec[v] = -1;
        if (d->ev_stem[v] && (ec[v] = result_col(L, t, path, key, d->ev_stem[v])) < 0)
            return -1;
    }
    *ti = vd_npf_table_col(t, "test_index");
    *bc = vd_npf_table_col(t, "build");
    if (d->build && *bc < 0)
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: build: %s has no build column", L->file, path);
    return 0;
}

/* Is row r one of the chosen build's?  Without "build", every row must be
 * of one build: several would mix series. */
static int single_build(const loader *L, const npf_desc *d, const vd_npf_table *t, size_t r, int bc, int *take)
{
    *take = 1;
    if (bc < 0)
        return 0;
    const char *b = t->cell[r * t->ncol + bc];
    if (d->build) {
        *take = strcmp(b, d->build) == 0;
        return 0;
    }
    const char *b0 = t->cell[bc];
    if (strcmp(b, b0) != 0)
        return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s:%u: build '%.40s', line %u's is '%.40s': several builds "
                         "(series); pick one with \"build\"", L->dir, d->file, t->line[r], b, t->line[0], b0);
    return 0;
}

static int load_single(vd_experiment *x, size_t *cap, const vd_point *base, const npf_desc *d, const loader *L)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", L->dir, d->file);
    vd_npf_table t;
    if (note_input(L, path) != 0 || vd_npf_table_read(path, &t, L->e) != 0)
        return -1;
    int xc[VD_NPF_MAX_X], mc[VD_METRIC_COUNT], ec[VD_EV_COUNT], ti = -1, bc = -1;
    size_t *first_row = malloc(t.nrow * sizeof *first_row);
    int rc = first_row ? single_columns(L, d, &t, path, xc, mc, ec, &ti, &bc)
                       : ddio_errf(L->e, DDIO_EXIT_IO, "out of memory");
    size_t taken = 0;
    for (size_t r = 0; rc == 0 && r < t.nrow; r++)
        first_row[r] = (size_t)-1;
    for (size_t r = 0; rc == 0 && r < t.nrow; r++) {
        int take;
        if ((rc = single_build(L, d, &t, r, bc, &take)) != 0 || !take)
            continue;
        taken++;
        rc = single_row(x, cap, base, d, L, &t, r, xc, mc, ec, ti, first_row);
    }
    if (rc == 0 && taken == 0)
        rc = ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: build: no row of %s has build '%.40s'", L->file, path, d->build);
    int all_one = 1;
    for (size_t i = 0; rc == 0 && i < x->n; i++) {
        int any = 0;
        for (int m = 0; m < VD_METRIC_COUNT; m++)
            any |= x->point[i].has[m];
        if (!any)
            rc = ddio_errf(L->e, DDIO_EXIT_USAGE, "%s/%s: no measured hit rate at this point (every metric's cell "
                           "is empty)", L->dir, x->point[i].where);
    }
    for (size_t i = 0; rc == 0 && i < x->n; i++)
        for (int m = 0; rc == 0 && m < VD_METRIC_COUNT; m++) {
            vd_point *p = &x->point[i];
            if (!p->has[m])
                continue;
            vd_record_stats(&p->m[m]);
            all_one &= p->m[m].runs == 1;
            rc = check_rates(L, &p->m[m], d->unit, p->source[m]);
        }
    for (size_t i = 0; rc == 0 && i < x->n; i++)
        for (int v = 0; v < VD_EV_COUNT; v++)
            if (x->point[i].has_ev[v])
                vd_record_stats(&x->point[i].ev[v]);
    if (rc == 0 && all_one) {
        char msg[1600];
        snprintf(msg, sizeof msg, "%s: one row per point: n = 1 per point, no spread (NPF's --single-output "
                 "writes a row per run)", path);
        rc = warn(L, msg);
    }
    free(first_row);
    vd_npf_table_free(&t);
    return rc;
}

static int load_npf(vd_experiment *x, const cJSON *j, const vd_point *base, const loader *L, const char **stem,
                    const char **ev_stem)
{
    npf_desc d;
    if (read_npf_desc(L, j, &d) != 0)
        return -1;
    memcpy(d.stem, stem, sizeof d.stem);
    memcpy(d.ev_stem, ev_stem, sizeof d.ev_stem);
    /* The plot's x axis: the last x; its lines: the series, or the first
     * of two x. */
    snprintf(x->x_param, sizeof x->x_param, "%s", d.x[d.nx - 1].param);
    snprintf(x->series_param, sizeof x->series_param, "%s",
             d.series_param[0] ? d.series_param : d.nx == 2 ? d.x[0].param : "");
    for (uint32_t k = 0; k < d.nx; k++)
        if (vd_point_param(base, d.x[k].param))
            return fail(L, "fixed", "fixes '%s', which the experiment varies", d.x[k].param);
    if (d.series_param[0] && vd_point_param(base, d.series_param))
        return fail(L, "fixed", "fixes '%s', which the experiment varies", d.series_param);
    size_t cap = 0;
    if (d.single)
        return load_single(x, &cap, base, &d, L);
    double *series = NULL;
    size_t ns = 0;
    int first = -1;
    for (int m = 0; m < VD_METRIC_COUNT && first < 0; m++)
        if (d.stem[m])
            first = m;
    if (d.series_param[0] && list_series(L, d.stem[first], &series, &ns) != 0)
        return -1;
    int rc = 0;
    for (size_t s = 0; rc == 0 && s < (d.series_param[0] ? ns : 1); s++)
        for (int m = 0; rc == 0 && m < VD_METRIC_COUNT; m++)
            if (d.stem[m])
                rc = npf_metric(x, &cap, base, &d, L, m, d.series_param[0] ? &series[s] : NULL);
    for (size_t s = 0; rc == 0 && s < (d.series_param[0] ? ns : 1); s++)
        for (int v = 0; rc == 0 && v < VD_EV_COUNT; v++)
            if (d.ev_stem[v])
                rc = npf_evidence(x, &d, L, v, d.series_param[0] ? &series[s] : NULL);
    free(series);
    return rc;
}

/* ------------------------------------------------------------ counter sources */

/* The path of a run file: as given when absolute, else in the folder. */
static void run_path(const loader *L, const char *file, char *path, size_t cap)
{
    snprintf(path, cap, "%s%s%s", file[0] == '/' ? "" : L->dir, file[0] == '/' ? "" : "/", file);
}

/* The hit rate of one run: 0, 1 when the counters saw no such request in
 * that run (no RFO when every packet fills whole lines: the run says
 * nothing about that metric), or -1 with the reader's error. */
static int run_rate(const loader *L, int pcm, int socket, const char *file, const char *name, double *rate)
{
    char path[1100];
    run_path(L, file, path, sizeof path);
    vd_counts c;
    if (note_input(L, path) != 0)
        return -1;
    int rc = pcm ? vd_pcm_read(path, name, socket, &c, L->e) : vd_perf_read(path, name, &c, L->e);
    if (rc != 0)
        return -1;
    if (c.hit + c.miss <= 0)
        return 1;
    *rate = vd_counts_rate(&c, path, L->e);
    return *rate < 0 ? -1 : 0;
}

/* Do points p and q have the same parameters (in any order)? */
static int same_params(const vd_point *p, const vd_point *q)
{
    if (p->n_params != q->n_params)
        return 0;
    for (uint32_t i = 0; i < p->n_params; i++) {
        const vd_param *a = &p->param[i], *b = vd_point_param(q, a->name);
        if (!b || strcmp(a->text, b->text) != 0 || (!a->text[0] && a->value != b->value))
            return 0;
    }
    return 1;
}

/* The run files seen so far, as files (device, inode): one file listed
 * twice, under any spelling, would count one run as two. */
typedef struct run_seen {
    dev_t dev;
    ino_t ino;
    int point, run;
} run_seen;

typedef struct run_files {
    run_seen *v;
    size_t n, cap;
} run_files;

/* Note run k of point i (file `file`); an error when that file was
 * already a run.  A file that cannot be stat'ed is left to its reader. */
static int note_run(const loader *L, run_files *rf, int i, int k, const char *file)
{
    char path[1100];
    struct stat st;
    run_path(L, file, path, sizeof path);
    if (stat(path, &st) != 0)
        return 0;
    for (size_t n = 0; n < rf->n; n++)
        if (rf->v[n].dev == st.st_dev && rf->v[n].ino == st.st_ino)
            return ddio_errf(L->e, DDIO_EXIT_USAGE,
                             "%s: points[%d].runs[%d]: '%.200s' is the file of points[%d].runs[%d]", L->file, i, k,
                             file, rf->v[n].point, rf->v[n].run);
    if (rf->n == rf->cap) {
        size_t cap = rf->cap ? 2 * rf->cap : 16;
        run_seen *g = realloc(rf->v, cap * sizeof *g);
        if (!g)
            return ddio_errf(L->e, DDIO_EXIT_IO, "out of memory");
        rf->v = g;
        rf->cap = cap;
    }
    rf->v[rf->n++] = (run_seen){st.st_dev, st.st_ino, i, k};
    return 0;
}

/* Refuse a point listed twice, and note the point's run files. */
static int check_point_once(const loader *L, const vd_experiment *x, const cJSON *runs, run_files *rf, int i)
{
    const vd_point *p = &x->point[x->n - 1];
    for (size_t q = 0; q + 1 < x->n; q++)
        if (same_params(&x->point[q], p))
            return ddio_errf(L->e, DDIO_EXIT_USAGE, "%s: points[%d]: the same parameters as %s", L->file, i,
                             x->point[q].where);
    int k = 0;
    for (const cJSON *r = runs->child; r; r = r->next, k++)
        if (cJSON_IsString(r) && r->valuestring[0] && note_run(L, rf, i, k, r->valuestring) != 0)
            return -1;
    return 0;
}

static int read_counter_points(vd_experiment *x, const cJSON *j, const vd_point *base, const loader *L,
                               const char **name, int pcm, run_files *rf)
{
    double sock = 0;
    if (get_number(L, j, "socket", "socket", 0, &sock) != 0)
        return -1;
    if (sock < 0 || sock > 64 || sock != floor(sock))
        return fail(L, "socket", "must be a socket number 0 to 64%s", "");
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(j, "points");
    if (!cJSON_IsArray(pts) || cJSON_GetArraySize(pts) == 0)
        return fail(L, "points", "missing, or not a non-empty array (required for this source)%s", "");
    size_t cap = 0;
    int i = 0;
    for (const cJSON *pt = pts->child; pt; pt = pt->next, i++) {
        char path[120];
        snprintf(path, sizeof path, "points[%d]", i);
        static const char *const pkeys[] = {"params", "runs", NULL};
        if (!cJSON_IsObject(pt))
            return fail(L, path, "must be an object {\"params\", \"runs\"}%s", "");
        if (check_keys(L, pt, path, pkeys) != 0)
            return -1;
        vd_point *p = new_point(x, &cap, base, L);
        if (!p)
            return -1;
        snprintf(p->where, sizeof p->where, "%s", path);
        const cJSON *pp = cJSON_GetObjectItemCaseSensitive(pt, "params");
        if (pp && !cJSON_IsObject(pp))
            return fail(L, path, "params must be an object%s", "");
        for (const cJSON *c = pp ? pp->child : NULL; c; c = c->next) {
            char vpath[200];
            snprintf(vpath, sizeof vpath, "%s.params.%.60s", path, c->string);
            vd_param v;
            if (param_from_json(L, vpath, c->string, c, &v) != 0 || add_param(L, p, &v, vpath) != 0)
                return -1;
        }
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(pt, "runs");
        int nr = cJSON_IsArray(runs) ? cJSON_GetArraySize(runs) : 0;
        if (nr == 0)
            return fail(L, path, "runs: missing, or not a non-empty array of file names%s", "");
        if (check_point_once(L, x, runs, rf, i) != 0)
            return -1;
        for (int m = 0; m < VD_METRIC_COUNT; m++) {
            if (!name[m])
                continue;
            double *v = malloc((size_t)nr * sizeof *v);
            if (!v)
                return ddio_errf(L->e, DDIO_EXIT_IO, "out of memory");
            int k = 0;
            for (const cJSON *r = runs->child; r; r = r->next) {
                if (!cJSON_IsString(r) || !r->valuestring[0]) {
                    free(v);
                    return fail(L, path, "runs: every run must be a file name%s", "");
                }
                int got = run_rate(L, pcm, (int)sock, r->valuestring, name[m], &v[k]);
                if (got < 0) {
                    free(v);
                    return -1;
                }
                k += got == 0;
            }
            if (k == 0) {   /* no run saw this request: not measured here */
                free(v);
                continue;
            }
            set_metric(p, m, v, (uint32_t)k);
            snprintf(p->source[m], sizeof p->source[m], "%s", path);
        }
    }
    return 0;
}

static int load_counters(vd_experiment *x, const cJSON *j, const vd_point *base, const loader *L, const char **name,
                         int pcm)
{
    run_files rf = {0};
    int rc = read_counter_points(x, j, base, L, name, pcm, &rf);
    free(rf.v);
    return rc;
}

/* ------------------------------------------------------------ the file */

static int read_metrics(const loader *L, const cJSON *j, const char **name)
{
    const cJSON *mo = cJSON_GetObjectItemCaseSensitive(j, "metrics");
    memset(name, 0, sizeof(char *) * VD_METRIC_COUNT);
    if (!mo)
        return fail(L, "metrics", "missing (required)%s", "");
    if (!cJSON_IsObject(mo) || !mo->child)
        return fail(L, "metrics", "must be a non-empty object of metric: measured name%s", "");
    for (const cJSON *c = mo->child; c; c = c->next) {
        char path[120];
        snprintf(path, sizeof path, "metrics.%.60s", c->string);
        int m = vd_metric_from_name(c->string);
        if (m < 0)
            return ddio_errf(L->e, DDIO_EXIT_USAGE,
                             "%s: %s: unknown metric (known: pcie_write_hit, pcie_read_hit, pcie_write_partial_hit)",
                             L->file, path);
        if (!cJSON_IsString(c) || !c->valuestring[0] || strchr(c->valuestring, '/'))
            return fail(L, path, "must be the measured file's or counter's name (a string, no '/')%s", "");
        name[m] = c->valuestring;
    }
    return 0;
}

/* The optional "evidence": {"mpps": STEM, "latency_avg_us": STEM, "offered_gbps": STEM,
 * "latency_baseline": "experiment" | "series"}. */
static int read_evidence(const loader *L, const cJSON *j, const char **name)
{
    const cJSON *eo = cJSON_GetObjectItemCaseSensitive(j, "evidence");
    memset(name, 0, sizeof(char *) * VD_EV_COUNT);
    if (!eo)
        return 0;
    if (!cJSON_IsObject(eo))
        return fail(L, "evidence", "must be an object of evidence: measured file name%s", "");
    for (const cJSON *c = eo->child; c; c = c->next) {
        char path[120];
        snprintf(path, sizeof path, "evidence.%.60s", c->string);
        if (strcmp(c->string, "latency_baseline") == 0) {
            int series = cJSON_IsString(c) && strcmp(c->valuestring, "series") == 0;
            if (!series && !(cJSON_IsString(c) && strcmp(c->valuestring, "experiment") == 0))
                return fail(L, path, "must be \"experiment\" or \"series\"%s", "");
            if (series && !cJSON_GetObjectItemCaseSensitive(j, "series"))
                return fail(L, path, "\"series\" needs a series%s", "");
            L->x->latency_by_series = series;
            continue;
        }
        int v = vd_evidence_from_name(c->string);
        if (v < 0)
            return ddio_errf(L->e, DDIO_EXIT_USAGE,
                             "%s: %s: unknown evidence (known: mpps, latency_avg_us, offered_gbps, latency_baseline)", L->file, path);
        if (!cJSON_IsString(c) || !c->valuestring[0] || strchr(c->valuestring, '/'))
            return fail(L, path, "must be the measured file's name (a string, no '/')%s", "");
        name[v] = c->valuestring;
    }
    return 0;
}

static int cmp_point(const void *a, const void *b, const char *series, const char *xp)
{
    const vd_point *p = a, *q = b;
    const char *keys[2] = {series, xp};
    for (int k = 0; k < 2; k++) {
        if (!keys[k] || !keys[k][0])
            continue;
        const vd_param *u = vd_point_param(p, keys[k]), *v = vd_point_param(q, keys[k]);
        if (u && v && u->value != v->value)
            return u->value < v->value ? -1 : 1;
    }
    return 0;
}

/* Insertion sort: stable, and the points are few and mostly in order. */
static void sort_points(vd_experiment *x)
{
    for (size_t i = 1; i < x->n; i++) {
        vd_point t = x->point[i];
        size_t k = i;
        while (k > 0 && cmp_point(&x->point[k - 1], &t, x->series_param, x->x_param) > 0) {
            x->point[k] = x->point[k - 1];
            k--;
        }
        x->point[k] = t;
    }
}

static int load_json(vd_experiment *x, const cJSON *j, const loader *L)
{
    static const char *const keys[] = {"name", "description", "source", "machine", "workload", "fixed", "x",
                                       "x_from", "series", "metrics", "evidence", "values", "socket", "points",
                                       "format", "file", "build", "output_columns", NULL};
    if (!cJSON_IsObject(j))
        return fail(L, "(top)", "must be a JSON object%s", "");
    if (check_keys(L, j, "", keys) != 0)
        return -1;
    const char *name, *source, *machine, *workload, *desc;
    if (get_string(L, j, "name", 1, &name) != 0 || get_string(L, j, "source", 1, &source) != 0 ||
        get_string(L, j, "machine", 0, &machine) != 0 || get_string(L, j, "workload", 0, &workload) != 0 ||
        get_string(L, j, "description", 0, &desc) != 0)
        return -1;
    if (strlen(name) >= sizeof x->name)
        return fail(L, "name", "longer than 63 characters%s", "");
    snprintf(x->name, sizeof x->name, "%s", name);
    int npf = strcmp(source, "npf") == 0, pcm = strcmp(source, "pcm-pcie") == 0, perf = strcmp(source, "perf") == 0;
    if (!npf && !pcm && !perf)
        return fail(L, "source", "'%.40s' is not one of npf, pcm-pcie, perf", source);
    snprintf(x->source, sizeof x->source, "%s", source);
    if (resolve_config(L, "machines", "machine", machine, x->machine, sizeof x->machine) != 0 ||
        resolve_config(L, "workloads", "workload", workload, x->workload, sizeof x->workload) != 0)
        return -1;
    const char *name_of[VD_METRIC_COUNT], *ev_of[VD_EV_COUNT];
    vd_point base;
    if (read_metrics(L, j, name_of) != 0 || read_evidence(L, j, ev_of) != 0 || read_fixed(L, j, &base) != 0)
        return -1;
    x->n_fixed = base.n_params;
    static const char *const npf_only[] = {"x", "x_from", "series", "values", "evidence", "format", "file",
                                            "build", "output_columns"};
    for (size_t i = 0; i < sizeof npf_only / sizeof *npf_only; i++)
        if (!npf && cJSON_GetObjectItemCaseSensitive(j, npf_only[i]))
            return fail(L, npf_only[i], "only for source npf (this experiment's points are listed in points)%s", "");
    if (npf && cJSON_GetObjectItemCaseSensitive(j, "points"))
        return fail(L, "points", "not for source npf (its points are the rows of its files)%s", "");
    if (npf && cJSON_GetObjectItemCaseSensitive(j, "socket"))
        return fail(L, "socket", "only for source pcm-pcie%s", "");
    if (perf && cJSON_GetObjectItemCaseSensitive(j, "socket"))
        return fail(L, "socket", "only for source pcm-pcie (perf's output is per socket already)%s", "");
    int rc = npf ? load_npf(x, j, &base, L, name_of, ev_of) : load_counters(x, j, &base, L, name_of, pcm);
    if (rc == 0)
        rc = offered_rates(L, x);
    if (rc == 0)
        sort_points(x);
    return rc;
}

int vd_experiment_load(const char *dir, vd_experiment *x, ddio_err *e)
{
    memset(x, 0, sizeof *x);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    if (dl >= sizeof x->dir - 32)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: path too long", dir);
    snprintf(x->dir, sizeof x->dir, "%.*s", (int)dl, dir);
    char file[600];
    snprintf(file, sizeof file, "%s/experiment.json", x->dir);
    struct stat st;
    if (stat(x->dir, &st) != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", x->dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a folder (an experiment is a folder with an experiment.json)",
                         x->dir);
    size_t len;
    char *text = read_text(file, &len, e);
    if (!text)
        return -1;
    cJSON *j = cfg_parse_text(text, len, file, e);
    free(text);
    if (!j)
        return -1;
    loader L = {.file = file, .dir = x->dir, .e = e, .x = x};
    int rc = note_input(&L, file);
    if (rc == 0)
        rc = load_json(x, j, &L);
    cJSON_Delete(j);
    if (rc == 0 && x->n == 0)
        rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: no measured points", file);
    if (rc != 0)
        vd_experiment_free(x);
    return rc;
}

void vd_experiment_free(vd_experiment *x)
{
    for (size_t i = 0; i < x->n; i++)
    {
        for (int m = 0; m < VD_METRIC_COUNT; m++)
            if (x->point[i].has[m])
                vd_record_free(&x->point[i].m[m]);
        for (int v = 0; v < VD_EV_COUNT; v++)
            if (x->point[i].has_ev[v])
                vd_record_free(&x->point[i].ev[v]);
    }
    free(x->point);
    x->point = NULL;
    x->n = 0;
    for (size_t i = 0; i < x->n_input; i++)
        free(x->input[i]);
    free(x->input);
    x->input = NULL;
    x->n_input = 0;
    for (size_t i = 0; i < x->n_warning; i++)
        free(x->warning[i]);
    free(x->warning);
    x->warning = NULL;
    x->n_warning = 0;
}
