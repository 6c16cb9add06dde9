/* evidence.c - the measured rate and latency against the engines'
 * (validate/evidence.h). */
#include <math.h>
#include <string.h>

#include "validate/evidence.h"

/* Are points i and k peers for the latency baseline? */
static int peers(const vd_experiment *e, size_t i, size_t k)
{
    if (!e->latency_by_series)
        return 1;
    const vd_param *a = vd_point_param(&e->point[i], e->series_param), *b = vd_point_param(&e->point[k], e->series_param);
    return a && b && a->value == b->value;
}

size_t vd_fastest_point(const vd_experiment *e, size_t i)
{
    size_t best = e->n;
    for (size_t k = 0; k < e->n; k++)
        if (peers(e, i, k) && e->point[k].has_ev[VD_EV_LATENCY_AVG_US] &&
            (best == e->n || e->point[k].ev[VD_EV_LATENCY_AVG_US].mean < e->point[best].ev[VD_EV_LATENCY_AVG_US].mean))
            best = k;
    return best;
}

static double sim_lat(const vd_set *s, const runner_outcome *o)
{
    return (s->engines & RUNNER_ENGINE_SIM) && !o->failed ? o->sim_latency_us : NAN;
}

static double model_lat(const vd_set *s, const runner_outcome *o)
{
    return (s->engines & RUNNER_ENGINE_MODEL) && !o->failed ? o->model_latency_us : NAN;
}

void vd_evidence_row(const vd_set *s, size_t x, size_t i, vd_ev_row *r)
{
    const vd_experiment *e = &s->exp[x];
    const vd_point *p = &e->point[i];
    const runner_outcome *o = &s->out[vd_first_outcome(s, x) + i];
    size_t f = vd_fastest_point(e, i);
    const runner_outcome *of = f < e->n ? &s->out[vd_first_outcome(s, x) + f] : NULL;
    int sim = (s->engines & RUNNER_ENGINE_SIM) && !o->failed, mod = (s->engines & RUNNER_ENGINE_MODEL) && !o->failed;
    r->mpps[0] = p->has_ev[VD_EV_MPPS] ? p->ev[VD_EV_MPPS].mean : NAN;
    r->mpps[1] = sim ? o->sim_mpps : NAN;
    r->mpps[2] = mod ? o->model_mpps : NAN;
    r->excess_us[0] = r->excess_us[1] = r->excess_us[2] = NAN;
    if (!of || !p->has_ev[VD_EV_LATENCY_AVG_US])
        return;
    r->excess_us[0] = p->ev[VD_EV_LATENCY_AVG_US].mean - e->point[f].ev[VD_EV_LATENCY_AVG_US].mean;
    r->excess_us[1] = sim_lat(s, o) - sim_lat(s, of);
    r->excess_us[2] = model_lat(s, o) - model_lat(s, of);
}

static void num(vd_buf *b, double v, int width, int prec, int md)
{
    if (md)
        isnan(v) ? vd_bprintf(b, " n/a |") : vd_bprintf(b, " %.*f |", prec, v);
    else
        isnan(v) ? vd_bprintf(b, " %*s", width, "n/a") : vd_bprintf(b, " %*.*f", width, prec, v);
}

void vd_evidence_block(vd_buf *b, const vd_set *s, size_t x, int md)
{
    const vd_experiment *e = &s->exp[x];
    int any = 0;
    for (size_t i = 0; i < e->n; i++)
        any |= e->point[i].has_ev[VD_EV_MPPS] | e->point[i].has_ev[VD_EV_LATENCY_AVG_US];
    if (!any)
        return;
    char fast[200] = "none measured";
    if (e->latency_by_series) {
        snprintf(fast, sizeof fast, "of its %s", e->series_param);
    } else {
        size_t f = vd_fastest_point(e, 0);
        if (f < e->n)
            vd_point_label(e, &e->point[f], fast, sizeof fast);
    }
    int w = vd_label_width(e);
    if (md)
        vd_bprintf(b, "\nForwarding rate (Mpps) and mean latency's excess over the fastest point (%s), us: "
                      "measured, simulator, model.\n\n| point | Mpps measured | sim | model | excess measured | sim "
                      "| model |\n|---|---:|---:|---:|---:|---:|---:|\n", fast);
    else
        vd_bprintf(b, "  forwarding rate, Mpps, and latency excess over the fastest point (%s), us\n  %-*s %9s %7s %7s"
                      " %9s %7s %7s\n", fast, w, "point", "Mpps", "sim", "model", "excess", "sim", "model");
    double rel[2] = {0}, worst[2] = {0}, lat[2] = {0};
    unsigned nr[2] = {0}, nl[2] = {0};
    for (size_t i = 0; i < e->n; i++) {
        char lab[160];
        vd_point_label(e, &e->point[i], lab, sizeof lab);
        vd_ev_row r;
        vd_evidence_row(s, x, i, &r);
        md ? vd_bprintf(b, "| %s |", lab) : vd_bprintf(b, "  %-*s", w, lab);
        for (int k = 0; k < 3; k++)
            num(b, r.mpps[k], k ? 7 : 9, 3, md);
        for (int k = 0; k < 3; k++)
            num(b, r.excess_us[k], k ? 7 : 9, 0, md);
        vd_bprintf(b, "\n");
        for (int k = 0; k < 2; k++) {
            double d = fabs(r.mpps[k + 1] - r.mpps[0]) / r.mpps[0];
            if (isfinite(d)) {
                rel[k] += d, nr[k]++;
                worst[k] = d > worst[k] ? d : worst[k];
            }
            double l = fabs(r.excess_us[k + 1] - r.excess_us[0]);
            if (isfinite(l))
                lat[k] += l, nl[k]++;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (!nr[k] && !nl[k])
            continue;
        vd_bprintf(b, "%s%s: rate off by %.1f %% on average, %.1f %% at worst (%u points); latency excess off by "
                      "%.0f us on average (%u points)\n",
                   md ? "\n" : "  ", k ? "model" : "simulator", nr[k] ? 100 * rel[k] / nr[k] : NAN,
                   100 * worst[k], nr[k], nl[k] ? lat[k] / nl[k] : NAN, nl[k]);
    }
}
