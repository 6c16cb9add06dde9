/* calibrate_out.c - the report and the overlay of a calibration
 * (calibrate.h). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/explore/calibrate.h"

typedef struct buf {
    char *s;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? 2 * b->cap : 4096) + (size_t)n;
        char *g = realloc(b->s, cap);
        if (!g) {
            b->oom = 1;
            return;
        }
        b->s = g;
        b->cap = cap;
    }
}

static const char *engine_name(const cal_problem *p)
{
    return p->engine == RUNNER_ENGINE_SIM ? "simulator" : "model";
}

/* The points of x that the objective compares. */
static size_t points_of(const cal_problem *p, const vd_experiment *x)
{
    size_t n = 0;
    for (size_t q = 0; q < x->n; q++) {
        int any = 0;
        for (int m = 0; m < CAL_TERMS; m++)
            any |= cal_uses(p->objective, m) && cal_term_record(&x->point[q], m);
        n += any;
    }
    return n;
}

/* "8.21" or "n/a" in w columns. */
static void put_pp(buf *b, int w, double v)
{
    if (isfinite(v))
        put(b, " %*.2f", w, v);
    else
        put(b, " %*s", w, "n/a");
}

/* The fitted values of f, "a=1 b=lru", or what it left alone. */
static void put_values(buf *b, const cal_problem *p, const cal_fit *f)
{
    int any = 0;
    for (uint32_t i = 0; i < p->n_fit; i++) {
        if (!f->fitted[i])
            continue;
        char set[256];
        cal_set_text(p, f, i, set, sizeof set);
        put(b, "%s%s", any ? " " : "", set);
        any = 1;
    }
    if (!any)
        put(b, "(nothing fitted)");
}

static double overall(const cal_problem *p, const cal_err *err)
{
    double s = 0;
    uint32_t n = 0;
    for (size_t i = 0; i < p->n_exp; i++) {
        if (p->weight == CAL_WEIGHT_EXPERIMENT) {
            double m = cal_err_mae(&err[i], -1);
            if (isfinite(m))
                s += m, n++;
        } else {
            for (int m = 0; m < CAL_TERMS; m++)
                s += err[i].sum[m], n += err[i].n[m];
        }
    }
    return n ? s / n : NAN;
}

static void put_fields(buf *b, const cal_problem *p)
{
    for (uint32_t i = 0; i < p->n_fit; i++) {
        const cal_param *f = &p->fit[i];
        put(b, "%s %s", i ? "," : "fit:", f->path);
        if (f->discrete) {
            put(b, " in {");
            for (uint32_t k = 0; k < f->n_choice; k++)
                put(b, "%s%s", k ? ", " : "", f->choice[k]);
            put(b, "}");
        } else {
            put(b, " in [%g, %g]", f->lo, f->hi);
        }
    }
    put(b, "\n");
}

static void put_cv(buf *b, const cal_problem *p, const cal_result *r)
{
    put(b, "\nleave-one-experiment-out cross-validation: each experiment predicted by a fit on the others\n"
           "(mean %s error, %s; the honest figure is the cross-validated one)\n",
        p->objective == CAL_OBJ_HITS ? "absolute" : p->objective == CAL_OBJ_RATE ? "relative" : "absolute / relative",
        cal_unit(p->objective));
    put(b, "  %-22s %6s %11s %10s %16s  %s\n", "experiment", "points", "configured", "in-sample", "cross-validated",
        "fitted without it");
    for (size_t x = 0; x < p->n_exp; x++) {
        put(b, "  %-22.22s %6zu", p->exp[x].name, points_of(p, &p->exp[x]));
        put_pp(b, 11, cal_err_mae(&r->err_before[x], -1));
        put_pp(b, 10, cal_err_mae(&r->err_after[x], -1));
        put_pp(b, 16, cal_err_mae(&r->err_cv[x], -1));
        put(b, "  ");
        put_values(b, p, &r->fold[x]);
        put(b, "\n");
    }
    size_t pts = 0;
    for (size_t x = 0; x < p->n_exp; x++)
        pts += points_of(p, &p->exp[x]);
    put(b, "  %-22s %6zu", "all", pts);
    put_pp(b, 11, overall(p, r->err_before));
    put_pp(b, 10, overall(p, r->err_after));
    put_pp(b, 16, overall(p, r->err_cv));
    put(b, "\n");
}

static void put_fit(buf *b, const cal_problem *p, const cal_result *r)
{
    put(b, "\nin-sample fit on every experiment\n");
    for (uint32_t i = 0; i < p->n_fit; i++) {
        char set[256];
        if (r->all.fitted[i]) {
            cal_set_text(p, &r->all, i, set, sizeof set);
            put(b, "  %s   (the objective changes by %.2f %s across the scan)\n", set, r->all.range[i],
                cal_unit(p->objective));
        } else {
            put(b, "  %s: not fitted: the objective changes by %.2f %s across the scan, not more than the "
                   "measurement noise (%.2f): left at the configuration's value\n",
                p->fit[i].path, r->all.range[i], cal_unit(p->objective), r->noise);
        }
    }
    put(b, "  objective: %.3f -> %.3f %s\n", r->before, r->after, cal_unit(p->objective));
    int hits = cal_uses(p->objective, VD_PCIE_WRITE_HIT), rate = cal_uses(p->objective, CAL_TERM_RATE);
    put(b, "  %-22s %6s", "experiment", "points");
    if (hits)
        put(b, " %15s %9s %15s %9s", "write: before", "after", "read: before", "after");
    if (rate)
        put(b, " %16s %9s", "rate %: before", "after");
    put(b, "\n");
    for (size_t x = 0; x < p->n_exp; x++) {
        put(b, "  %-22.22s %6zu", p->exp[x].name, points_of(p, &p->exp[x]));
        if (hits) {
            put_pp(b, 15, cal_err_mae(&r->err_before[x], VD_PCIE_WRITE_HIT));
            put_pp(b, 9, cal_err_mae(&r->err_after[x], VD_PCIE_WRITE_HIT));
            put_pp(b, 15, cal_err_mae(&r->err_before[x], VD_PCIE_READ_HIT));
            put_pp(b, 9, cal_err_mae(&r->err_after[x], VD_PCIE_READ_HIT));
        }
        if (rate) {
            put_pp(b, 16, cal_err_mae(&r->err_before[x], CAL_TERM_RATE));
            put_pp(b, 9, cal_err_mae(&r->err_after[x], CAL_TERM_RATE));
        }
        put(b, "\n");
    }
}

char *cal_report(const cal_problem *p, const cal_result *r)
{
    buf b = {0};
    size_t pts = 0;
    for (size_t x = 0; x < p->n_exp; x++)
        pts += points_of(p, &p->exp[x]);
    put(&b, "calibrate: the %s on %zu experiment%s (%zu measured points)", engine_name(p), p->n_exp,
        p->n_exp == 1 ? "" : "s", pts);
    if (p->engine == RUNNER_ENGINE_SIM)
        put(&b, ", %llu packets per point, seed %llu", (unsigned long long)p->run.packets,
            (unsigned long long)p->run.seed);
    static const char *const what[] = {
        [CAL_OBJ_HITS] = "mean absolute error of every measured hit rate (points)",
        [CAL_OBJ_RATE] = "mean relative error of the measured forwarding rate (percent; --objective rate)",
        [CAL_OBJ_BOTH] = ("mean error of every measured hit rate (points) and forwarding rate (percent; "
                          "--objective both)"),
    };
    put(&b, "\nobjective: %s, %s\n", what[p->objective],
        p->weight == CAL_WEIGHT_EXPERIMENT ? "per experiment, then the mean of the experiments (--weight experiment)"
                                           : "over all points together (--weight point)");
    put_fields(&b, p);
    for (int i = 0; i < p->run.n_sets; i++)
        put(&b, "%s %s", i ? "," : "with", p->run.sets[i]);
    if (p->run.n_sets)
        put(&b, "\n");
    put(&b, "measurement noise: %.2f %s (mean standard error of the measured means)\n", r->noise,
        cal_unit(p->objective));
    if (r->cv)
        put_cv(&b, p, r);
    put_fit(&b, p, r);
    put(&b, "\nevaluations: %llu of the objective, %llu trial values run, %llu point runs\n",
        (unsigned long long)r->evaluations, (unsigned long long)r->trials, (unsigned long long)r->point_runs);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ------------------------------------------------------------ overlay */

static cJSON *value_json(const cal_problem *p, const cal_fit *f, uint32_t i)
{
    const cal_param *c = &p->fit[i];
    if (!c->discrete)
        return cJSON_CreateNumber(f->value[i]);
    const char *v = c->choice[f->choice[i]];
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
        return cJSON_CreateBool(v[0] == 't');
    return cJSON_CreateString(v);
}

/* Add item to object o under name (to array o when name is NULL); on
 * failure the item is freed.  1 when added: the overlay is built whole or
 * not at all. */
static int jput(cJSON *o, const char *name, cJSON *item)
{
    int ok = item && (name ? cJSON_AddItemToObject(o, name, item) : cJSON_AddItemToArray(o, item));
    if (!ok)
        cJSON_Delete(item);
    return ok;
}

static int put_mae(cJSON *o, const char *name, double v)
{
    return jput(o, name, isfinite(v) ? cJSON_CreateNumber(round(v * 1000) / 1000) : cJSON_CreateNull());
}

char *cal_overlay_json(const cal_problem *p, const cal_result *r, const char *command)
{
    cJSON *root = cJSON_CreateObject(), *set = cJSON_CreateObject(), *cal = cJSON_CreateObject();
    cJSON *exps = cJSON_CreateArray(), *left = cJSON_CreateArray();
    if (!root || !set || !cal || !exps || !left) {
        cJSON_Delete(root), cJSON_Delete(set), cJSON_Delete(cal), cJSON_Delete(exps), cJSON_Delete(left);
        return NULL;
    }
    /* Each container is added to its parent whatever else fails (jput
     * frees one it cannot add), so that deleting root frees them all. */
    int ok = jput(root, "ddiosim", cJSON_CreateString("overlay"));
    ok &= jput(root, "set", set);
    if (!jput(root, "calibration", cal)) {
        cJSON_Delete(root), cJSON_Delete(exps), cJSON_Delete(left);
        return NULL;
    }
    ok = ok && jput(cal, "by", cJSON_CreateString("ddiosim calibrate"));
    /* the overlay is an input ("ddiosim": "overlay"): what made it goes here */
    ok = ok && jput(cal, "version", cJSON_CreateString(DDIOSIM_VERSION)) &&
         jput(cal, "command", cJSON_CreateString(command ? command : ""));
    ok = ok && jput(cal, "engine", cJSON_CreateString(p->engine == RUNNER_ENGINE_SIM ? "sim" : "model"));
    if (p->engine == RUNNER_ENGINE_SIM) {
        ok = ok && jput(cal, "packets", cJSON_CreateNumber((double)p->run.packets));
        ok = ok && jput(cal, "seed", cJSON_CreateNumber((double)p->run.seed));
    }
    ok = ok && jput(cal, "weight", cJSON_CreateString(p->weight == CAL_WEIGHT_EXPERIMENT ? "experiment" : "point"));
    static const char *const obj[] = {[CAL_OBJ_HITS] = "hits", [CAL_OBJ_RATE] = "rate", [CAL_OBJ_BOTH] = "both"};
    ok = ok && jput(cal, "objective", cJSON_CreateString(obj[p->objective]));
    ok &= jput(cal, "experiments", exps);
    ok &= jput(cal, "not_fitted", left);
    for (uint32_t i = 0; ok && i < p->n_fit; i++)
        ok = r->all.fitted[i] ? jput(set, p->fit[i].path, value_json(p, &r->all, i))
                              : jput(left, NULL, cJSON_CreateString(p->fit[i].path));
    for (size_t x = 0; ok && x < p->n_exp; x++)
        ok = jput(exps, NULL, cJSON_CreateString(p->exp[x].name));
    ok = ok && put_mae(cal, "mae_configured_pts", r->before) && put_mae(cal, "mae_in_sample_pts", r->after);
    ok = ok && put_mae(cal, "mae_cross_validated_pts", r->cv ? overall(p, r->err_cv) : NAN);
    if (ok && r->cv) {
        cJSON *per = cJSON_CreateArray();
        ok = jput(cal, "mae_cross_validated_per_experiment_pts", per);
        for (size_t x = 0; ok && x < p->n_exp; x++) {
            cJSON *one = cJSON_CreateObject();
            ok = jput(per, NULL, one) && jput(one, "experiment", cJSON_CreateString(p->exp[x].name)) &&
                 put_mae(one, "mae_pts", cal_err_mae(&r->err_cv[x], -1));
        }
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}
