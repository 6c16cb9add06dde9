/* report.c - accuracy statistics and the four report formats of
 * `ddiosim validate` (validate/report.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "validate/evidence.h"
#include "validate/report.h"
#include "validate/text.h"

/* ------------------------------------------------------------ text buffer */

typedef vd_buf buf;
#define bprintf vd_bprintf

static char *bdone(buf *b)
{
    if (b->oom) {
        free(b->data);
        return NULL;
    }
    if (!b->data)
        bprintf(b, "%s", "");
    return b->data;
}

/* ------------------------------------------------------------ statistics */

static const char *const eng_name[VD_ENG_COUNT] = {"sim", "model"};
static const char *const metric_short[VD_METRIC_COUNT] = {"write", "read", "partial"};

/* The prediction of engine eng for metric m at outcome o (NAN: none). */
static double predicted(const vd_set *s, const runner_outcome *o, int eng, int m)
{
    if (o->failed || !(s->engines & (eng == VD_ENG_SIM ? RUNNER_ENGINE_SIM : RUNNER_ENGINE_MODEL)))
        return NAN;
    return eng == VD_ENG_SIM ? o->sim[m] : o->model_est[m];
}

size_t vd_first_outcome(const vd_set *s, size_t x)
{
    size_t k = 0;
    for (size_t i = 0; i < x; i++)
        k += s->exp[i].n;
    return k;
}

void vd_stat_of(const vd_set *s, size_t exp, int eng, int m, vd_stat *st)
{
    memset(st, 0, sizeof *st);
    double sum = 0, sum_signed = 0;
    for (size_t x = exp == s->n_exp ? 0 : exp; x < (exp == s->n_exp ? s->n_exp : exp + 1); x++) {
        size_t k = vd_first_outcome(s, x);
        for (size_t i = 0; i < s->exp[x].n; i++) {
            const vd_point *p = &s->exp[x].point[i];
            const runner_outcome *o = &s->out[k + i];
            double v = predicted(s, o, eng, m);
            if (!p->has[m] || isnan(v))
                continue;
            double err = 100 * (v - p->m[m].mean);
            st->n++;
            sum += fabs(err);
            sum_signed += err;
            if (fabs(err) > st->max)
                st->max = fabs(err);
            if (eng == VD_ENG_MODEL && p->m[m].mean >= o->model_lower[m] - 1e-12 &&
                p->m[m].mean <= o->model_upper[m] + 1e-12)
                st->in_bounds++;
        }
    }
    st->mae = st->n ? sum / st->n : NAN;
    st->bias = st->n ? sum_signed / st->n : NAN;
}

/* Call fn for every (experiment or "all", engine, metric) that has points,
 * in report order: the experiments, then all. */
typedef void (*stat_fn)(void *ud, const char *exp, int eng, int m, const vd_stat *st);
static void each_stat(const vd_set *s, stat_fn fn, void *ud)
{
    for (size_t x = 0; x <= s->n_exp; x++)
        for (int eng = 0; eng < VD_ENG_COUNT; eng++)
            for (int m = 0; m < VD_METRIC_COUNT; m++) {
                vd_stat st;
                vd_stat_of(s, x, eng, m, &st);
                if (st.n)
                    fn(ud, x == s->n_exp ? NULL : s->exp[x].name, eng, m, &st);
            }
}

int vd_label_width(const vd_experiment *e)
{
    int w = 12;
    for (size_t i = 0; i < e->n; i++) {
        char lab[160];
        vd_point_label(e, &e->point[i], lab, sizeof lab);
        w = (int)strlen(lab) > w ? (int)strlen(lab) : w;
    }
    return w;
}

void vd_point_label(const vd_experiment *x, const vd_point *p, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (uint32_t i = x->n_fixed; i < p->n_params && len + 1 < cap; i++) {
        char v[48];
        vd_param_format(&p->param[i], v, sizeof v);
        int n = snprintf(out + len, cap - len, "%s%s=%s", len ? " " : "", p->param[i].name, v);
        len += n > 0 ? (size_t)n : 0;
    }
    if (len >= cap)
        out[cap - 1] = '\0';
}

static void fixed_label(const vd_experiment *x, char *out, size_t cap)
{
    vd_point f = x->point[0];
    vd_experiment y = *x;
    f.n_params = x->n_fixed;
    y.n_fixed = 0;
    vd_point_label(&y, &f, out, cap);
}

/* ------------------------------------------------------------ table */

static void pct(buf *b, double v, int width, int prec)
{
    if (isnan(v))
        bprintf(b, "%*s", width, "n/a");
    else
        bprintf(b, "%*.*f", width, prec, 100 * v);
}

static void err_pp(buf *b, double pred, double meas, int width)
{
    if (isnan(pred))
        bprintf(b, "%*s", width, "n/a");
    else
        bprintf(b, "%+*.2f", width, 100 * (pred - meas));
}

static void queues(buf *b, const double *q)
{
    char t[64];
    snprintf(t, sizeof t, "%.0f/%.0f/%.0f/%.0f", q[Q_RX], q[Q_RX_REPLENISH], q[Q_TX], q[Q_TX_RECYCLE]);
    bprintf(b, " %21s", t);
}

static void summary_row(void *ud, const char *exp, int eng, int m, const vd_stat *st)
{
    buf *b = ud;
    bprintf(b, "  %-22s %-6s %-7s %4u %7.2f %7.2f %+7.2f", exp ? exp : "all", eng_name[eng], metric_short[m], st->n,
            st->mae, st->max, st->bias);
    if (eng == VD_ENG_MODEL)
        bprintf(b, " %6u/%-3u", st->in_bounds, st->n);
    bprintf(b, "\n");
}

static void summary_table(buf *b, const vd_set *s)
{
    bprintf(b, "\nsummary (percentage points, predicted - measured; model = its estimate, llc.model_estimate)\n");
    bprintf(b, "  %-22s %-6s %-7s %4s %7s %7s %7s %9s\n", "experiment", "engine", "metric", "n", "MAE", "max",
            "bias", "in bounds");
    each_stat(s, summary_row, b);
}

/* With --seeds K > 1: every figure is the mean of K placements. */
static void seeds_note(buf *b, const vd_set *s)
{
    if (s->seeds > 1)
        bprintf(b, "  Each point: the mean of %u placements of the buffers in physical frames (seeds %llu to %llu).",
                s->seeds, (unsigned long long)s->seed, (unsigned long long)(s->seed + s->seeds - 1));
}

/* " Overrides of every point: --set A --set B." or nothing. */
static void overrides(buf *b, const vd_set *s)
{
    if (!s->n_sets)
        return;
    bprintf(b, " Overrides of every point:");
    for (int i = 0; i < s->n_sets; i++)
        bprintf(b, " --set %s", s->sets[i]);
    bprintf(b, ".");
}

static void table(buf *b, const vd_set *s)
{
    size_t k = 0;
    bprintf(b, "hit rates in %%; errors in percentage points (predicted - measured); queues: mean packets per core,\n"
               "RX/RX replenish/TX/TX recycle (sim: measured by the run of %llu packets, seed %llu; model: the\n"
               "queueing estimate).",
            (unsigned long long)s->packets, (unsigned long long)s->seed);
    seeds_note(b, s);
    overrides(b, s);
    bprintf(b, "\n");
    for (size_t x = 0; x < s->n_exp; x++) {
        const vd_experiment *e = &s->exp[x];
        char fl[256];
        fixed_label(e, fl, sizeof fl);
        bprintf(b, "\n%s (%s; %s, %s; fixed %s)\n", e->name, e->source, e->machine[0] ? e->machine : "skylake-6140",
                e->workload[0] ? e->workload : "l2fwd", fl[0] ? fl : "nothing");
        int w = vd_label_width(e);
        bprintf(b, "  %-*s %-7s %16s %8s %7s %8s %17s %7s %21s %21s\n", w, "point", "metric", "measured (sd, n)",
                "sim", "err", "model", "[LRU, BIP]", "err", "sim queues", "model queues");
        for (size_t i = 0; i < e->n; i++, k++) {
            const vd_point *p = &e->point[i];
            const runner_outcome *o = &s->out[k];
            char lab[160];
            vd_point_label(e, p, lab, sizeof lab);
            for (int m = 0; m < VD_METRIC_COUNT; m++) {
                if (!p->has[m])
                    continue;
                const vd_record *r = &p->m[m];
                bprintf(b, "  %-*s %-7s", w, lab, metric_short[m]);
                pct(b, r->mean, 7, 2);
                bprintf(b, " (%5.2f,%3u)", 100 * r->sd, r->runs);
                if (o->failed) {
                    bprintf(b, "  failed: %s\n", o->err.msg);
                    continue;
                }
                double sv = predicted(s, o, VD_ENG_SIM, m), mv = predicted(s, o, VD_ENG_MODEL, m);
                pct(b, sv, 8, 2);
                err_pp(b, sv, r->mean, 7);
                pct(b, mv, 8, 2);
                if (isnan(mv)) {
                    bprintf(b, " %17s", "");
                } else {
                    char band[40];
                    snprintf(band, sizeof band, "[%.1f, %.1f]", 100 * o->model_lower[m], 100 * o->model_upper[m]);
                    bprintf(b, " %17s", band);
                }
                err_pp(b, mv, r->mean, 7);
                if (s->engines & RUNNER_ENGINE_SIM)
                    queues(b, o->sim_queue);
                else
                    bprintf(b, " %21s", "");
                if (s->engines & RUNNER_ENGINE_MODEL)
                    queues(b, o->model_queue);
                bprintf(b, "\n");
            }
        }
        vd_evidence_block(b, s, x, 0);
    }
    summary_table(b, s);
}

/* ------------------------------------------------------------ JSON */

static void add_num(cJSON *o, const char *k, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, v);
}

static void add_queues(cJSON *o, const char *k, const double *q)
{
    cJSON *j = cJSON_AddObjectToObject(o, k);
    for (int i = 0; i < Q_COUNT; i++)
        cJSON_AddNumberToObject(j, lqueue_name((enum lqueue)i), q[i]);
}

static cJSON *point_json(const vd_set *s, const vd_experiment *e, const vd_point *p, const runner_outcome *o, int m)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "experiment", e->name);
    cJSON *pa = cJSON_AddObjectToObject(j, "params");
    for (uint32_t i = 0; i < p->n_params; i++) {
        if (p->param[i].text[0])
            cJSON_AddStringToObject(pa, p->param[i].name, p->param[i].text);
        else
            cJSON_AddNumberToObject(pa, p->param[i].name, p->param[i].value);
    }
    cJSON_AddStringToObject(j, "metric", vd_metric_name((enum vd_metric)m));
    cJSON_AddStringToObject(j, "source", p->source[m]);
    cJSON *me = cJSON_AddObjectToObject(j, "measured");
    cJSON_AddNumberToObject(me, "hit_frac", p->m[m].mean);
    cJSON_AddNumberToObject(me, "hit_frac_sd", p->m[m].sd);
    cJSON_AddNumberToObject(me, "runs", p->m[m].runs);
    if (o->failed) {
        cJSON_AddStringToObject(j, "error", o->err.msg);
        return j;
    }
    if (s->engines & RUNNER_ENGINE_SIM) {
        cJSON *si = cJSON_AddObjectToObject(j, "sim");
        add_num(si, "hit_frac", o->sim[m]);
        add_num(si, "error_pts", 100 * (o->sim[m] - p->m[m].mean));
        if (m < 2)
            add_num(si, "data_hit_frac", o->sim_data[m]);
        add_queues(si, "queues", o->sim_queue);
        cJSON_AddNumberToObject(si, "throughput_gbps", o->sim_gbps);
        cJSON_AddNumberToObject(si, "drop_frac", o->sim_drop_rate);
        cJSON_AddBoolToObject(si, "warmup_settled", o->sim_settled);
    }
    if (s->engines & RUNNER_ENGINE_MODEL) {
        cJSON *mo = cJSON_AddObjectToObject(j, "model");
        add_num(mo, "hit_frac", o->model_est[m]);
        add_num(mo, "hit_frac_mean", o->model_mean[m]);
        add_num(mo, "hit_frac_lower", o->model_lower[m]);
        add_num(mo, "hit_frac_upper", o->model_upper[m]);
        add_num(mo, "error_pts", 100 * (o->model_est[m] - p->m[m].mean));
        add_queues(mo, "queues", o->model_queue);
        cJSON_AddNumberToObject(mo, "throughput_gbps", o->model_gbps);
    }
    return j;
}

static void summary_json(void *ud, const char *exp, int eng, int m, const vd_stat *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "experiment", exp ? exp : "all");
    cJSON_AddStringToObject(o, "engine", eng_name[eng]);
    cJSON_AddStringToObject(o, "metric", vd_metric_name((enum vd_metric)m));
    cJSON_AddNumberToObject(o, "n", st->n);
    cJSON_AddNumberToObject(o, "mae_pts", st->mae);
    cJSON_AddNumberToObject(o, "max_error_pts", st->max);
    cJSON_AddNumberToObject(o, "bias_pts", st->bias);
    if (eng == VD_ENG_MODEL)
        cJSON_AddNumberToObject(o, "in_bounds", st->in_bounds);
    cJSON_AddItemToArray((cJSON *)ud, o);
}

static char *json(const vd_set *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *run = cJSON_AddObjectToObject(j, "run");
    cJSON_AddNumberToObject(run, "packets", (double)s->packets);
    cJSON_AddNumberToObject(run, "seed", (double)s->seed);
    cJSON_AddNumberToObject(run, "seeds", s->seeds > 1 ? (double)s->seeds : 1.0);
    cJSON *sets = cJSON_AddArrayToObject(run, "sets");
    for (int i = 0; i < s->n_sets; i++)
        cJSON_AddItemToArray(sets, cJSON_CreateString(s->sets[i]));
    cJSON *eng = cJSON_AddArrayToObject(run, "engines");
    for (int e = 0; e < VD_ENG_COUNT; e++)
        if (s->engines & (e == VD_ENG_SIM ? RUNNER_ENGINE_SIM : RUNNER_ENGINE_MODEL))
            cJSON_AddItemToArray(eng, cJSON_CreateString(eng_name[e]));
    cJSON *pts = cJSON_AddArrayToObject(j, "points");
    size_t k = 0;
    for (size_t x = 0; x < s->n_exp; x++)
        for (size_t i = 0; i < s->exp[x].n; i++, k++)
            for (int m = 0; m < VD_METRIC_COUNT; m++)
                if (s->exp[x].point[i].has[m])
                    cJSON_AddItemToArray(pts, point_json(s, &s->exp[x], &s->exp[x].point[i], &s->out[k], m));
    cJSON *ev = cJSON_AddArrayToObject(j, "evidence");
    for (size_t x = 0; x < s->n_exp; x++)
        for (size_t i = 0; i < s->exp[x].n; i++) {
            const vd_point *p = &s->exp[x].point[i];
            if (!p->has_ev[VD_EV_MPPS] && !p->has_ev[VD_EV_LATENCY_AVG_US])
                continue;
            vd_ev_row r;
            vd_evidence_row(s, x, i, &r);
            char lab[160];
            vd_point_label(&s->exp[x], p, lab, sizeof lab);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddItemToArray(ev, o);
            cJSON_AddStringToObject(o, "experiment", s->exp[x].name);
            cJSON_AddStringToObject(o, "point", lab);
            static const char *const who[3] = {"measured", "sim", "model"};
            cJSON *mp = cJSON_AddObjectToObject(o, "mpps"), *le = cJSON_AddObjectToObject(o, "latency_excess_us");
            for (int w = 0; w < 3; w++) {
                add_num(mp, who[w], r.mpps[w]);
                add_num(le, who[w], r.excess_us[w]);
            }
        }
    each_stat(s, summary_json, cJSON_AddArrayToObject(j, "summary"));
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    char *t = realloc(text, n + 2);
    if (!t) {
        free(text);
        return NULL;
    }
    t[n] = '\n';
    t[n + 1] = '\0';
    return t;
}

/* ------------------------------------------------------------ CSV */

static void csv_num(buf *b, double v)
{
    if (isnan(v))
        bprintf(b, ",");
    else
        bprintf(b, ",%.6g", v);
}

static void csv(buf *b, const vd_set *s)
{
    bprintf(b, "experiment,point,metric,measured_hit_frac,measured_hit_frac_sd,runs,sim_hit_frac,sim_error_pts,"
               "model_hit_frac,model_hit_frac_lower,model_hit_frac_upper,model_error_pts");
    for (int w = 0; w < 2; w++)
        for (int q = 0; q < Q_COUNT; q++)
            bprintf(b, ",%s_q_%s", w ? "model" : "sim", lqueue_name((enum lqueue)q));   /* as sweep's */
    bprintf(b, ",sim_throughput_gbps,model_throughput_gbps,error\n");
    size_t k = 0;
    for (size_t x = 0; x < s->n_exp; x++)
        for (size_t i = 0; i < s->exp[x].n; i++, k++) {
            const vd_point *p = &s->exp[x].point[i];
            const runner_outcome *o = &s->out[k];
            char lab[160];
            vd_point_label(&s->exp[x], p, lab, sizeof lab);
            for (int m = 0; m < VD_METRIC_COUNT; m++) {
                if (!p->has[m])
                    continue;
                vd_csv_field(b, s->exp[x].name, 0);
                bprintf(b, ",");
                vd_csv_field(b, lab, 0);
                bprintf(b, ",%s,%.6g,%.6g,%u", vd_metric_name((enum vd_metric)m), p->m[m].mean, p->m[m].sd,
                        p->m[m].runs);
                double sv = predicted(s, o, VD_ENG_SIM, m), mv = predicted(s, o, VD_ENG_MODEL, m);
                csv_num(b, sv);
                csv_num(b, 100 * (sv - p->m[m].mean));
                csv_num(b, mv);
                csv_num(b, isnan(mv) ? NAN : o->model_lower[m]);
                csv_num(b, isnan(mv) ? NAN : o->model_upper[m]);
                csv_num(b, 100 * (mv - p->m[m].mean));
                for (int q = 0; q < Q_COUNT; q++)
                    csv_num(b, isnan(sv) ? NAN : o->sim_queue[q]);
                for (int q = 0; q < Q_COUNT; q++)
                    csv_num(b, isnan(mv) ? NAN : o->model_queue[q]);
                csv_num(b, isnan(sv) ? NAN : o->sim_gbps);
                csv_num(b, isnan(mv) ? NAN : o->model_gbps);
                bprintf(b, ",");
                if (o->failed)
                    vd_csv_field(b, o->err.msg, 1);
                bprintf(b, "\n");
            }
        }
}

/* ------------------------------------------------------------ Markdown */

static void summary_md(void *ud, const char *exp, int eng, int m, const vd_stat *st)
{
    buf *b = ud;
    bprintf(b, "| %s | %s | %s | %u | %.2f | %.2f | %+.2f | ", exp ? exp : "**all**", eng_name[eng], metric_short[m],
            st->n, st->mae, st->max, st->bias);
    if (eng == VD_ENG_MODEL)
        bprintf(b, "%u/%u |\n", st->in_bounds, st->n);
    else
        bprintf(b, "|\n");
}

static void md(buf *b, const vd_set *s)
{
    bprintf(b, "### Summary\n\nPercentage points, predicted - measured; the model's prediction is its "
               "estimate (`llc.model_estimate`: the LRU bound when the LLC runs LRU, else the mean of the LRU and "
               "BIP bounds); \"in bounds\": points whose measured mean lies within them.  Simulator: "
               "%llu packets per point, seed %llu.",
            (unsigned long long)s->packets, (unsigned long long)s->seed);
    seeds_note(b, s);
    overrides(b, s);
    bprintf(b, "\n\n");
    bprintf(b, "| experiment | engine | metric | n | MAE | max | bias | in bounds |\n|---|---|---|---:|---:|---:|---:|---:|\n");
    each_stat(s, summary_md, b);
    size_t k = 0;
    for (size_t x = 0; x < s->n_exp; x++) {
        char fl[256];
        fixed_label(&s->exp[x], fl, sizeof fl);
        bprintf(b, "\n### %s\n\nFixed: %s.  Hit rates in %%, errors in points; queues RX / RX replenish / TX / "
                   "TX recycle, packets per core.\n\n",
                s->exp[x].name, fl);
        bprintf(b, "| point | metric | measured (sd, n) | sim | err | model [LRU, BIP] | err | sim queues | model "
                   "queues |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < s->exp[x].n; i++, k++) {
            const vd_point *p = &s->exp[x].point[i];
            const runner_outcome *o = &s->out[k];
            char lab[160];
            vd_point_label(&s->exp[x], p, lab, sizeof lab);
            for (int m = 0; m < VD_METRIC_COUNT; m++) {
                if (!p->has[m])
                    continue;
                double sv = predicted(s, o, VD_ENG_SIM, m), mv = predicted(s, o, VD_ENG_MODEL, m);
                double meas = p->m[m].mean;
                bprintf(b, "| %s | %s | %.2f (%.2f, %u) | ", lab, metric_short[m], 100 * meas, 100 * p->m[m].sd,
                        p->m[m].runs);
                if (isnan(sv))
                    bprintf(b, "n/a | n/a | ");
                else
                    bprintf(b, "%.2f | %+.2f | ", 100 * sv, 100 * (sv - meas));
                if (isnan(mv))
                    bprintf(b, "n/a | n/a | ");
                else
                    bprintf(b, "%.2f [%.1f, %.1f] | %+.2f | ", 100 * mv, 100 * o->model_lower[m],
                            100 * o->model_upper[m], 100 * (mv - meas));
                const double *q = o->sim_queue;
                if (isnan(sv))
                    bprintf(b, "n/a | ");
                else
                    bprintf(b, "%.0f/%.0f/%.0f/%.0f | ", q[Q_RX], q[Q_RX_REPLENISH], q[Q_TX], q[Q_TX_RECYCLE]);
                q = o->model_queue;
                if (isnan(mv))
                    bprintf(b, "n/a |\n");
                else
                    bprintf(b, "%.0f/%.0f/%.0f/%.0f |\n", q[Q_RX], q[Q_RX_REPLENISH], q[Q_TX], q[Q_TX_RECYCLE]);
            }
        }
        vd_evidence_block(b, s, x, 1);
    }
}

char *vd_report(const vd_set *s, enum vd_format f)
{
    if (f == VD_FMT_JSON)
        return json(s);
    buf b = {0};
    if (f == VD_FMT_CSV)
        csv(&b, s);
    else if (f == VD_FMT_MD)
        md(&b, s);
    else
        table(&b, s);
    return bdone(&b);
}
