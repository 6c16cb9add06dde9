/* advise.c - design queries over a sweep's grid (sim/explore/advise.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "configs/fields.h"
#include "sim/common/names.h"
#include "sim/explore/advise.h"

static const char *const metric_names[AD_METRIC_COUNT] = {
    "pcie_write_hit_frac", "pcie_read_hit_frac", "mem_write_gbyte_s", "mem_gbyte_s", "drop_frac", "io_llc_frac",
    "throughput_gbps",
};

const char *ad_metric_name(enum ad_metric m)
{
    return (unsigned)m < AD_METRIC_COUNT ? metric_names[m] : "?";
}

static int fail(ddio_err *e, const char *file, const char *path, const char *msg)
{
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s: %s", file, path, msg);
}

static int parse_constraints(const cJSON *c, const char *file, ad_spec *s, ddio_err *e)
{
    if (!cJSON_IsObject(c))
        return fail(e, file, "constraints", "expected an object {\"metric\": {\"min\": x, \"max\": y}}");
    for (const cJSON *k = c->child; k; k = k->next) {
        char path[160];
        snprintf(path, sizeof path, "constraints.%s", k->string);
        int m = -1;
        for (int i = 0; i < AD_METRIC_COUNT; i++)
            if (strcmp(ddio_name_current(k->string), metric_names[i]) == 0)   /* old names too */
                m = i;
        if (m < 0)
            return fail(e, file, path,
                        "unknown metric (known: pcie_write_hit_frac, pcie_read_hit_frac, mem_write_gbyte_s, "
                        "mem_gbyte_s, drop_frac, io_llc_frac, throughput_gbps)");
        if (s->n_c >= AD_MAX_CONSTRAINTS)
            return fail(e, file, path, "too many constraints");
        ad_constraint *x = &s->c[s->n_c++];
        x->m = (enum ad_metric)m;
        x->lo = -INFINITY;
        x->hi = INFINITY;
        if (!cJSON_IsObject(k) || !k->child)
            return fail(e, file, path, "expected {\"min\": x} and / or {\"max\": y}");
        for (const cJSON *b = k->child; b; b = b->next) {
            char bp[200];
            snprintf(bp, sizeof bp, "%s.%s", path, b->string);
            if (strcmp(b->string, "min") != 0 && strcmp(b->string, "max") != 0)
                return fail(e, file, bp, "unknown key (min, max)");
            if (!cJSON_IsNumber(b) || !isfinite(b->valuedouble))
                return fail(e, file, bp, "expected a number");
            if (strcmp(b->string, "min") == 0)
                x->lo = b->valuedouble;
            else
                x->hi = b->valuedouble;
        }
        if (x->lo > x->hi)
            return fail(e, file, path, "min is above max: no point can meet it");
    }
    if (s->n_c == 0)
        return fail(e, file, "constraints", "no constraint");
    return 0;
}

static int is_grid_param(const sw_spec *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_axes; i++)
        if (strcmp(g->axis[i].name, name) == 0)
            return 1;
    return 0;
}

int ad_spec_parse(const char *text, const char *file, ad_spec *s, ddio_err *e)
{
    memset(s, 0, sizeof *s);
    cJSON *j = cfg_parse_text(text, strlen(text), file, e);
    if (!j)
        return -1;
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: expected a JSON object", file);
    }
    /* The advise keys come out; the rest is a sweep spec. */
    cJSON *c = cJSON_DetachItemFromObjectCaseSensitive(j, "constraints");
    cJSON *p = cJSON_DetachItemFromObjectCaseSensitive(j, "prefer");
    cJSON *k = cJSON_DetachItemFromObjectCaseSensitive(j, "confirm");
    char *rest = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    int rc = -1;
    if (!rest) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    if (sw_spec_parse(rest, file, &s->grid, e) != 0)
        goto out;
    if (!c) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: constraints: missing (what the choices must meet)", file);
        goto out;
    }
    if (parse_constraints(c, file, s, e) != 0)
        goto out;
    if (p) {
        if (!cJSON_IsArray(p)) {
            fail(e, file, "prefer", "expected a list of parameters (\"-name\": larger first)");
            goto out;
        }
        int i = 0;
        for (const cJSON *x = p->child; x; x = x->next, i++) {
            char path[64];
            snprintf(path, sizeof path, "prefer[%d]", i);
            if (!cJSON_IsString(x)) {
                fail(e, file, path, "expected a parameter name");
                goto out;
            }
            const char *name = x->valuestring + (x->valuestring[0] == '-');
            if (!is_grid_param(&s->grid, name)) {
                char msg[160];
                snprintf(msg, sizeof msg, "'%.40s' is not a parameter of the grid", name);
                fail(e, file, path, msg);
                goto out;
            }
            if (s->n_prefer >= AD_MAX_PREFER) {
                fail(e, file, path, "too many preferences");
                goto out;
            }
            snprintf(s->prefer[s->n_prefer], sizeof s->prefer[0], "%s", name);
            s->descending[s->n_prefer++] = x->valuestring[0] == '-';
        }
    }
    s->confirm = 3;
    if (k) {
        if (!cJSON_IsNumber(k) || k->valuedouble < 0 || k->valuedouble > 1000 || k->valuedouble != floor(k->valuedouble)) {
            fail(e, file, "confirm", "expected a whole number of points in [0, 1000]");
            goto out;
        }
        s->confirm = (unsigned)k->valuedouble;
    }
    rc = 0;
out:
    cJSON_Delete(c);
    cJSON_Delete(p);
    cJSON_Delete(k);
    free(rest);
    if (rc != 0)
        ad_spec_free(s);
    return rc;
}

int ad_spec_load(const char *path, ad_spec *s, ddio_err *e)
{
    memset(s, 0, sizeof *s);
    char *buf = sw_read_spec(path, e);
    if (!buf)
        return -1;
    int rc = ad_spec_parse(buf, path, s, e);
    free(buf);
    return rc;
}

void ad_spec_free(ad_spec *s)
{
    sw_spec_free(&s->grid);
    memset(s, 0, sizeof *s);
}

double ad_metric_of(const runner_outcome *o, enum ad_metric m, int sim, double llc_bytes)
{
    if (o->failed)
        return NAN;
    switch (m) {
    case AD_PCIE_WRITE_HIT: return sim ? o->sim_data[0] : o->model_est[VD_PCIE_WRITE_HIT];
    case AD_PCIE_READ_HIT: return sim ? o->sim_data[1] : o->model_est[VD_PCIE_READ_HIT];
    case AD_MEM_WRITE_GBPS: return sim ? o->sim_mem_write_gbps : o->model_mem_write_gbps;
    case AD_MEM_GBPS: return sim ? o->sim_mem_gbps : o->model_mem_gbps;
    case AD_DROP_RATE: return sim ? o->sim_drop_rate : o->model_drop_rate;
    case AD_IO_LLC_FRACTION:
        if (!(llc_bytes > 0))
            return NAN;
        /* The simulator: every line the LLC holds (for a forwarding
         * workload: buffers, descriptors, mbuf headers); the model: its
         * buffers' cached footprint. */
        return sim ? (o->sim_llc_lines[REG_DDIO] + o->sim_llc_lines[REG_SHARED] + o->sim_llc_lines[REG_L3]) * 64 /
                         llc_bytes
                   : o->model_footprint_bytes / llc_bytes;
    case AD_THROUGHPUT_GBPS: return sim ? o->sim_gbps : o->model_gbps;
    default: return NAN;
    }
}

double ad_margin(const ad_constraint *c, double v)
{
    double a = v - c->lo, b = c->hi - v;
    return a < b ? a : b;
}

static int meets(const ad_spec *s, const runner_outcome *o, int sim, double llc)
{
    for (int i = 0; i < s->n_c; i++) {
        double v = ad_metric_of(o, s->c[i].m, sim, llc);
        if (!(ad_margin(&s->c[i], v) >= 0))   /* NaN: not met */
            return 0;
    }
    return 1;
}

static const vd_param *param_of(const ad_candidate *c, const char *name)
{
    for (uint32_t i = 0; i < c->n_params; i++)
        if (strcmp(c->param[i].name, name) == 0)
            return &c->param[i];
    return NULL;
}

/* The ranking: the preferences in order (ties: the grid order, the sort
 * below being stable). */
static int by_preference(const ad_spec *s, const ad_candidate *x, const ad_candidate *y)
{
    for (int i = 0; i < s->n_prefer; i++) {
        const vd_param *p = param_of(x, s->prefer[i]), *q = param_of(y, s->prefer[i]);
        if (!p || !q)
            continue;
        int c = p->text[0] || q->text[0] ? strcmp(p->text, q->text) : (p->value > q->value) - (p->value < q->value);
        if (c)
            return s->descending[i] ? -c : c;
    }
    return 0;
}

/* Sort c[0..n) by preference, stably (a bottom-up merge sort of indices:
 * qsort is not stable, and a candidate is too large to move often). */
static int rank(const ad_spec *s, ad_candidate *c, size_t n, ddio_err *e)
{
    if (n < 2)
        return 0;
    size_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    ad_candidate *sorted = malloc(n * sizeof *sorted);
    if (!a || !b || !sorted) {
        free(a);
        free(b);
        free(sorted);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = by_preference(s, &c[a[j]], &c[a[i]]) < 0 ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        size_t *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = c[a[i]];
    memcpy(c, sorted, n * sizeof *c);
    free(a);
    free(b);
    free(sorted);
    return 0;
}

/* The best `keep` feasible candidates seen so far: appended in grid order
 * to a buffer of 2 keep, which is ranked and cut back to keep when full
 * (the ranking is stable and the buffer in grid order, so ties keep the
 * grid's order). */
typedef struct best {
    ad_candidate *c;
    size_t n, cap, keep;
} best;

static int best_add(const ad_spec *s, best *b, const ad_candidate *x, ddio_err *e)
{
    if (b->n == b->cap && b->cap >= 2 * b->keep) {
        if (rank(s, b->c, b->n, e) != 0)
            return -1;
        b->n = b->keep;
    }
    if (b->n == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 16;
        if (nc > 2 * b->keep)
            nc = 2 * b->keep;
        ad_candidate *g = realloc(b->c, nc * sizeof *g);
        if (!g)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        b->c = g;
        b->cap = nc;
    }
    b->c[b->n++] = *x;
    return 0;
}

/* The next chunk of selected grid points from *k on: their parameters into
 * c[0..m), their jobs into job; returns m (0: the grid is done). */
static size_t next_chunk(const sw_spec *g, size_t *k, ad_candidate *c, runner_job *job)
{
    size_t m = 0;
    for (; *k < g->n_grid && m < AD_CHUNK; ++*k) {
        c[m].n_params = sw_point_params(g, *k, c[m].param);
        if (sw_point_selected(g, c[m].param, c[m].n_params))
            m++;
    }
    for (size_t i = 0; i < m; i++)
        job[i] = (runner_job){.machine = g->machine, .workload = g->workload, .n_params = c[i].n_params,
                          .param = c[i].param};
    return m;
}

/* The grid's selected points (for the progress bar's total); c is room
 * for one candidate's parameters. */
static size_t selected_points(const sw_spec *g, ad_candidate *c)
{
    size_t n = 0;
    for (size_t k = 0; k < g->n_grid; k++) {
        c->n_params = sw_point_params(g, k, c->param);
        n += sw_point_selected(g, c->param, c->n_params) != 0;
    }
    return n;
}

/* The model on every selected point, chunk by chunk, into b. */
static int model_pass(const ad_spec *s, const runner_opts *o, double llc_bytes, best *b, size_t *n_feasible,
                      size_t *n_points, ddio_err *e)
{
    runner_job *jobs = malloc(AD_CHUNK * sizeof *jobs);
    ad_candidate *c = malloc(AD_CHUNK * sizeof *c);
    runner_outcome *res = malloc(AD_CHUNK * sizeof *res);
    int rc = -1;
    if (!jobs || !c || !res) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    runner_opts mo = *o;
    mo.engines = RUNNER_ENGINE_MODEL;
    mo.progress_phase = "model";
    mo.progress_total = o->progress ? selected_points(&s->grid, c) : 0;   /* a pass over the grid for the bar alone */
    size_t k = 0, m;
    while ((m = next_chunk(&s->grid, &k, c, jobs)) > 0) {
        mo.progress_base = *n_points;
        if (runner_all(jobs, m, &mo, res, e) < 0)
            goto done;
        *n_points += m;
        for (size_t i = 0; i < m; i++) {
            if (!meets(s, &res[i], 0, llc_bytes))
                continue;
            c[i].model = res[i];
            memset(&c[i].sim, 0, sizeof c[i].sim);
            c[i].confirmed = c[i].sim_ok = 0;
            ++*n_feasible;
            if (best_add(s, b, &c[i], e) != 0)
                goto done;
        }
    }
    rc = 0;
done:
    free(jobs);
    free(c);
    free(res);
    return rc;
}

int ad_run(const ad_spec *s, const runner_opts *o, double llc_bytes, size_t keep, ad_candidate **out, size_t *n,
           size_t *n_feasible, size_t *n_points, ddio_err *e)
{
    *out = NULL;
    *n = *n_feasible = *n_points = 0;
    const sw_spec *g = &s->grid;
    best b = {.keep = keep > s->confirm ? keep : s->confirm};
    if (b.keep < 1)
        b.keep = 1;
    if (model_pass(s, o, llc_bytes, &b, n_feasible, n_points, e) != 0 || rank(s, b.c, b.n, e) != 0) {
        free(b.c);
        return -1;
    }
    if (b.n > b.keep)
        b.n = b.keep;
    size_t nc = b.n < s->confirm ? b.n : s->confirm;
    if (nc && (o->engines & RUNNER_ENGINE_SIM)) {
        runner_job *jobs = malloc(nc * sizeof *jobs);
        runner_outcome *res = malloc(nc * sizeof *res);
        runner_opts so = *o;
        so.engines = RUNNER_ENGINE_SIM;
        so.progress_phase = "simulator";
        so.progress_base = 0;
        so.progress_total = nc;
        int bad = !jobs || !res;
        if (bad)
            ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        for (size_t i = 0; !bad && i < nc; i++)
            jobs[i] = (runner_job){.machine = g->machine, .workload = g->workload, .n_params = b.c[i].n_params,
                               .param = b.c[i].param};
        bad = bad || runner_all(jobs, nc, &so, res, e) < 0;
        for (size_t i = 0; !bad && i < nc; i++) {
            b.c[i].sim = res[i];
            b.c[i].confirmed = 1;
            b.c[i].sim_ok = meets(s, &res[i], 1, llc_bytes);
        }
        free(jobs);
        free(res);
        if (bad) {
            free(b.c);
            return -1;
        }
    }
    *out = b.c;
    *n = b.n;
    return 0;
}
