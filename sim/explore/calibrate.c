/* calibrate.c - the fit and the cross-validation (calibrate.h). */
#include "sim/explore/calibrate.h"

#include <assert.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "configs/overlay.h"
#include "configs/schema.h"
#include "sim/common/parse.h"

#define DEFAULT_MAX_EVALS 120
#define SIMPLEX_TOL 1e-3            /* simplex size, in the bounded coordinate u (radians): about the
                                       trial values' resolution, a thousandth of the range */
#define HALF_PI 1.57079632679489661923
#define SET_LEN (CAL_PATH_LEN + CAL_CHOICE_LEN + 2)

/* ------------------------------------------------------------ --fit */

static const cfg_field *field_of(const char *path, int *part)
{
    const cfg_table *t;
    if (strncmp(path, "machine.", 8) == 0)
        *part = 0, t = ddio_machine_table(), path += 8;
    else if (strncmp(path, "workload.", 9) == 0)
        *part = 1, t = ddio_workload_table(), path += 9;
    else
        return NULL;
    int i = strchr(path, '[') ? -1 : cfg_index(t, path);
    return i < 0 ? NULL : &t->f[i];
}

/* The value text v is one field f takes, as --set would: 0, or -1 with msg. */
static int field_takes(const char *path, const char *v, char *msg, size_t cap)
{
    char set[SET_LEN + 8];
    snprintf(set, sizeof set, "%s=%s", path, v);
    return ddio_overlay_check_set(set, msg, cap);
}

static int parse_choices(const char *arg, const char *list, const cfg_field *f, cal_param *p, ddio_err *e)
{
    p->discrete = 1;
    if (!list) {    /* a bare enum field: every name */
        for (const char *const *nm = f->names; nm && *nm; nm++) {
            if (p->n_choice >= CAL_MAX_CHOICES)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: more than %d choices", arg, CAL_MAX_CHOICES);
            snprintf(p->choice[p->n_choice++], CAL_CHOICE_LEN, "%s", *nm);
        }
        return 0;
    }
    const char *s = list;
    for (;;) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= CAL_CHOICE_LEN)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s choice in the list", arg,
                             len ? "a too long" : "an empty");
        if (p->n_choice >= CAL_MAX_CHOICES)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: more than %d choices", arg, CAL_MAX_CHOICES);
        char *c = p->choice[p->n_choice];
        snprintf(c, CAL_CHOICE_LEN, "%.*s", (int)len, s);
        char msg[300];
        if (field_takes(p->path, c, msg, sizeof msg) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s", arg, msg);
        for (uint32_t k = 0; k < p->n_choice; k++)
            if (strcmp(p->choice[k], c) == 0)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: '%s' is listed twice", arg, c);
        p->n_choice++;
        if (!s[len])
            break;
        s += len + 1;
    }
    if (p->n_choice < 2)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: a list needs two choices or more (A,B)", arg);
    return 0;
}

static int parse_range(const char *arg, const char *r, const cfg_field *f, cal_param *p, ddio_err *e)
{
    if (f->type != CFG_U32 && f->type != CFG_U64 && f->type != CFG_F64)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s is not a number: give a list of choices (A,B)", arg,
                         p->path);
    if (f->flags & CFG_POW2)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s is a power of two: give a list of choices (A,B)", arg,
                         p->path);
    char part[3][64];
    int n = 0;
    for (const char *s = r;; n++) {
        size_t len = strcspn(s, ":");
        if (n >= 3 || len >= sizeof part[0])
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: expected LO:HI or LO:HI:STEP", arg);
        snprintf(part[n], sizeof part[n], "%.*s", (int)len, s);
        if (!s[len]) {
            n++;
            break;
        }
        s += len + 1;
    }
    if (n < 2)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: expected LO:HI or LO:HI:STEP", arg);
    double v[3];
    char msg[300];
    for (int i = 0; i < n; i++) {
        size_t len = ddio_decimal_len(part[i], 1);
        if (!len || part[i][len])
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: '%s' is not a number", arg, part[i]);
        v[i] = strtod(part[i], NULL);
        if (!isfinite(v[i]))
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: '%s' is not a finite number", arg, part[i]);
        if (i < 2 && field_takes(p->path, part[i], msg, sizeof msg) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s", arg, msg);
    }
    p->integer = f->type != CFG_F64;
    if (!(v[0] < v[1]))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: the range is empty (LO must be below HI)", arg);
    if (p->integer && (v[0] != floor(v[0]) || v[1] != floor(v[1])))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s holds whole numbers: LO and HI must be too", arg,
                         p->path);
    /* Trial values are printed to a thousandth of the range (as_run). */
    if (v[1] - v[0] < 1e-9 * fmax(1.0, fmax(fabs(v[0]), fabs(v[1]))))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: the range is narrower than a billionth of its values", arg);
    p->lo = v[0];
    p->hi = v[1];
    if (n == 3) {
        double span = v[1] - v[0];
        if (!(v[2] > 0) || v[2] > span)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: STEP must be above 0 and at most HI - LO", arg);
        double k = ceil(span / v[2] - 1e-9);
        if (k > CAL_MAX_GRID - 1)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: STEP gives more than %d scan points", arg,
                             CAL_MAX_GRID);
        p->intervals = (uint32_t)k;
    }
    return 0;
}

int cal_param_parse(const char *arg, cal_param *p, ddio_err *e)
{
    memset(p, 0, sizeof *p);
    size_t plen = strcspn(arg, "=");
    if (plen == 0 || plen >= CAL_PATH_LEN)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: expected NAME=LO:HI[:STEP] or NAME=A,B,...", arg);
    snprintf(p->path, sizeof p->path, "%.*s", (int)plen, arg);
    int part;
    const cfg_field *f = field_of(p->path, &part);
    if (!f || f->type == CFG_ARRAY)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s is not a field --set can set (machine.PATH or "
                         "workload.PATH; see ddiosim config show)", arg, p->path);
    const char *val = arg[plen] ? arg + plen + 1 : NULL;
    if (!val || !*val) {
        if (f->type == CFG_ENUM)
            return parse_choices(arg, NULL, f, p, e);
        if (f->type == CFG_U32 || f->type == CFG_U64 || f->type == CFG_F64)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: a number needs its range, %s=LO:HI", arg, p->path);
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: %s is not a number: give a list of choices (%s=A,B)",
                         arg, p->path, p->path);
    }
    if (strchr(val, ','))
        return parse_choices(arg, val, f, p, e);
    if (strchr(val, ':'))
        return parse_range(arg, val, f, p, e);
    return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: one value is nothing to fit: give LO:HI or A,B", arg);
}

/* ------------------------------------------------------------ the points */

/* A trial: the values of the fields being fitted (active[i] = 0: field i
 * is left at the configuration's value). */
typedef struct trial {
    int active[CAL_MAX_FIT];
    double value[CAL_MAX_FIT];
    int choice[CAL_MAX_FIT];
} trial;

/* The cached outcome of one trial: each point's prediction, once run. */
typedef struct entry {
    char *key;                      /* the sets, '\n'-joined: the trial's identity */
    char set[CAL_MAX_FIT][SET_LEN];
    const char *setp[CAL_MAX_FIT];
    int n_sets;
    double *pred;                   /* [point][term] (CAL_TERMS) */
    uint8_t *done;                  /* [point] */
} entry;

typedef struct ctx {
    const cal_problem *p;
    size_t n_pts;
    size_t *exp_of;                 /* [point] */
    const vd_point **pt;            /* [point] */
    runner_job *job;                    /* [point] */
    entry **ent;
    size_t n_ent, cap_ent;
    cal_result *r;
    const char *stage;              /* for the progress line */
    double best_seen;
    ddio_err *e;
} ctx;

/* The decimal digits of a real field's trial grid: that of the power of
 * ten at or below a thousandth of its range (10:200 -> 1, 0:1 -> 3). */
static int decimals_of(const cal_param *f)
{
    double d = -floor(log10((f->hi - f->lo) / 1000.0));
    return f->integer || d < 0 ? 0 : d > 17 ? 17 : (int)d;
}

static void value_text(const cal_param *f, double v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*f", decimals_of(f), v);
}

/* Trial values as run, and as their text says: integers rounded; reals to
 * decimals_of (10:200 -> 0.1), finer than any measurement resolves, so
 * that the simplex's last steps, which move less, meet the trials already
 * run instead of new ones.  Within [lo, hi]: a bound off the grid gives the
 * grid value just inside it (the range holds at least a thousand steps). */
static double as_run(const cal_param *f, double v)
{
    char b[64];
    double step = pow(10.0, -decimals_of(f));
    v = v < f->lo ? f->lo : v > f->hi ? f->hi : v;
    value_text(f, v, b, sizeof b);
    double r = strtod(b, NULL);
    if (r < f->lo)
        value_text(f, r + step, b, sizeof b), r = strtod(b, NULL);
    else if (r > f->hi)
        value_text(f, r - step, b, sizeof b), r = strtod(b, NULL);
    assert(r >= f->lo && r <= f->hi);
    return r;
}

static void trial_set(const cal_problem *p, const trial *t, uint32_t i, char *buf, size_t cap)
{
    const cal_param *f = &p->fit[i];
    if (f->discrete) {
        snprintf(buf, cap, "%s=%s", f->path, f->choice[t->choice[i]]);
        return;
    }
    char v[64];
    value_text(f, t->value[i], v, sizeof v);
    snprintf(buf, cap, "%s=%s", f->path, v);
}

void cal_set_text(const cal_problem *p, const cal_fit *f, uint32_t i, char *buf, size_t cap)
{
    trial t;
    memset(&t, 0, sizeof t);
    t.value[i] = f->value[i];
    t.choice[i] = f->choice[i];
    trial_set(p, &t, i, buf, cap);
}

static entry *find_entry(ctx *c, const trial *t)
{
    char set[CAL_MAX_FIT][SET_LEN], key[CAL_MAX_FIT * (SET_LEN + 1) + 1];
    int n = 0;
    size_t len = 0;
    key[0] = '\0';
    for (uint32_t i = 0; i < c->p->n_fit; i++)
        if (t->active[i]) {
            trial_set(c->p, t, i, set[n], SET_LEN);
            len += (size_t)snprintf(key + len, sizeof key - len, "%s\n", set[n]);
            n++;
        }
    for (size_t k = 0; k < c->n_ent; k++)
        if (strcmp(c->ent[k]->key, key) == 0)
            return c->ent[k];
    if (c->n_ent == c->cap_ent) {
        size_t cap = c->cap_ent ? 2 * c->cap_ent : 64;
        entry **g = realloc(c->ent, cap * sizeof *g);
        if (!g)
            return NULL;
        c->ent = g;
        c->cap_ent = cap;
    }
    entry *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->key = strdup(key);
    x->pred = calloc(c->n_pts * CAL_TERMS + 1, sizeof *x->pred);
    x->done = calloc(c->n_pts + 1, 1);
    if (!x->key || !x->pred || !x->done) {
        free(x->key), free(x->pred), free(x->done), free(x);
        return NULL;
    }
    memcpy(x->set, set, sizeof set);
    for (int i = 0; i < n; i++)
        x->setp[i] = x->set[i];
    x->n_sets = n;
    c->ent[c->n_ent++] = x;
    c->r->trials++;
    return x;
}

/* The prediction of the engine that is fitted, for metric m. */
static double predicted(const cal_problem *p, const runner_outcome *o, int m)
{
    if (m == CAL_TERM_RATE)
        return p->engine == RUNNER_ENGINE_SIM ? o->sim_mpps : o->model_mpps;
    return p->engine == RUNNER_ENGINE_SIM ? o->sim[m] : o->model_est[m];
}

int cal_uses(enum cal_objective o, int m)
{
    return m == CAL_TERM_RATE ? o != CAL_OBJ_HITS : o != CAL_OBJ_RATE;
}

const char *cal_unit(enum cal_objective o)
{
    return o == CAL_OBJ_HITS ? "points" : o == CAL_OBJ_RATE ? "percent" : "points / percent";
}

int cal_objective_parse(const char *arg, enum cal_objective *o, ddio_err *e)
{
    if (strcmp(arg, "hits") == 0)
        *o = CAL_OBJ_HITS;
    else if (strcmp(arg, "rate") == 0)
        *o = CAL_OBJ_RATE;
    else if (strcmp(arg, "both") == 0)
        *o = CAL_OBJ_BOTH;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "--objective: '%s' is not hits, rate or both", arg);
    return 0;
}

const vd_record *cal_term_record(const vd_point *pt, int m)
{
    if (m == CAL_TERM_RATE)
        return pt->has_ev[VD_EV_MPPS] ? &pt->ev[VD_EV_MPPS] : NULL;
    return pt->has[m] ? &pt->m[m] : NULL;
}

/* Term m of pt as the objective compares it: measured, used by the
 * objective, and for the rate above 0 (a relative error needs one); NULL
 * otherwise. */
static const vd_record *compared(const cal_problem *p, const vd_point *pt, int m)
{
    const vd_record *r = cal_uses(p->objective, m) ? cal_term_record(pt, m) : NULL;
    return r && (m != CAL_TERM_RATE || r->mean > 0) ? r : NULL;
}

/* The error of prediction pr against measured mv for term m: points for a
 * hit rate, percent of the measured rate for the rate. */
static double term_error(int m, double pr, double mv)
{
    return m == CAL_TERM_RATE ? 100.0 * fabs(pr - mv) / mv : 100.0 * fabs(pr - mv);
}

/* Whether the engine predicts metric m at all: the model has no partial
 * line writes.  A metric it predicts must come out finite wherever it was
 * measured, or a trial could lower the objective by predicting nothing. */
static int predicts(const cal_problem *p, int m)
{
    return p->engine == RUNNER_ENGINE_SIM || m != VD_PCIE_WRITE_PARTIAL_HIT;
}

/* "the configured values" or the trial's settings on one line. */
static void trial_name(const entry *en, char *with, size_t cap)
{
    snprintf(with, cap, "%s", en->key[0] ? en->key : "the configured values");
    for (char *s = with; *s; s++)
        if (*s == '\n')
            *s = s[1] ? ' ' : '\0';
}

/* Run, in one batch on the runner's threads, every point of an experiment
 * in `mask` that one of the entries has not run yet. */
static int run_missing(ctx *c, entry **x, size_t n, const uint8_t *mask)
{
    size_t most = 0;
    for (size_t t = 0; t < n; t++)
        for (size_t k = 0; k < c->n_pts; k++)
            most += mask[c->exp_of[k]] && !x[t]->done[k];
    if (most == 0)
        return 0;
    runner_job *jobs = calloc(most, sizeof *jobs);
    runner_outcome *out = calloc(most, sizeof *out);
    size_t *which = calloc(most, 2 * sizeof *which);
    if (!jobs || !out || !which) {
        free(jobs), free(out), free(which);
        return ddio_errf(c->e, DDIO_EXIT_IO, "out of memory");
    }
    /* Two trials of the batch may round to one entry: it runs once. */
    size_t need = 0;
    for (size_t t = 0; t < n; t++)
        for (size_t k = 0; k < c->n_pts; k++)
            if (mask[c->exp_of[k]] && !x[t]->done[k]) {
                x[t]->done[k] = 1;
                jobs[need] = c->job[k];
                jobs[need].sets = x[t]->setp;
                jobs[need].n_sets = x[t]->n_sets;
                which[2 * need] = t;
                which[2 * need + 1] = k;
                need++;
            }
    assert(need <= most);
    int rc = runner_all(jobs, need, &c->p->run, out, c->e);
    for (size_t i = 0; rc >= 0 && i < need; i++) {
        entry *en = x[which[2 * i]];
        size_t k = which[2 * i + 1];
        const vd_experiment *xp = &c->p->exp[c->exp_of[k]];
        char with[200];
        trial_name(en, with, sizeof with);
        if (out[i].failed) {
            rc = ddio_errf(c->e, DDIO_EXIT_USAGE, "%s: point %s, with %s: %s", xp->name, c->pt[k]->where, with,
                           out[i].err.msg);
            break;
        }
        for (int m = 0; m < CAL_TERMS; m++) {
            double v = predicted(c->p, &out[i], m);
            const vd_record *mr = cal_uses(c->p->objective, m) ? cal_term_record(c->pt[k], m) : NULL;
            if (mr && predicts(c->p, m) && !isfinite(v)) {
                rc = ddio_errf(c->e, DDIO_EXIT_USAGE, "%s: point %s, with %s: no %s predicted (measured %.4f)",
                               xp->name, c->pt[k]->where, with,
                               m == CAL_TERM_RATE ? "forwarding rate" : vd_metric_name(m), mr->mean);
                break;
            }
            en->pred[k * CAL_TERMS + m] = v;
        }
    }
    c->r->point_runs += need;
    free(jobs), free(out), free(which);
    return rc < 0 ? -1 : 0;
}

/* The errors of entry x per experiment (err[n_exp]; experiments out of
 * mask are left zero). */
static void errors_of(const ctx *c, const entry *x, const uint8_t *mask, cal_err *err)
{
    memset(err, 0, c->p->n_exp * sizeof *err);
    for (size_t k = 0; k < c->n_pts; k++) {
        size_t xi = c->exp_of[k];
        if (!mask[xi])
            continue;
        for (int m = 0; m < CAL_TERMS; m++) {
            double pr = x->pred[k * CAL_TERMS + m];
            const vd_record *mr = compared(c->p, c->pt[k], m);
            if (!mr || !isfinite(pr))
                continue;
            err[xi].sum[m] += term_error(m, pr, mr->mean);
            err[xi].n[m]++;
        }
    }
}

double cal_err_mae(const cal_err *x, int m)
{
    double s = 0;
    uint32_t n = 0;
    for (int k = 0; k < CAL_TERMS; k++)
        if (m < 0 || m == k)
            s += x->sum[k], n += x->n[k];
    return n ? s / n : NAN;
}

static double objective_of(const cal_problem *p, const cal_err *err, const uint8_t *mask)
{
    double s = 0;
    uint32_t n = 0;
    for (size_t i = 0; i < p->n_exp; i++) {
        if (!mask[i])
            continue;
        double mae = cal_err_mae(&err[i], -1);
        if (p->weight == CAL_WEIGHT_EXPERIMENT) {
            if (isfinite(mae))
                s += mae, n++;
        } else {
            for (int m = 0; m < CAL_TERMS; m++)
                s += err[i].sum[m], n += err[i].n[m];
        }
    }
    return n ? s / n : NAN;
}

static void progress(ctx *c)
{
    if (c->p->progress)
        c->p->progress(c->p->progress_arg, c->stage, c->r->evaluations, c->best_seen);
}

/* Objectives of n trials over mask (obj[n]); err (may be NULL) gets the
 * per-experiment errors of the last trial. */
static int evaluate(ctx *c, const trial *t, size_t n, const uint8_t *mask, double *obj, cal_err *err)
{
    entry **x = calloc(n ? n : 1, sizeof *x);
    cal_err *tmp = calloc(c->p->n_exp, sizeof *tmp);
    int rc = x && tmp ? 0 : ddio_errf(c->e, DDIO_EXIT_IO, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!(x[i] = find_entry(c, &t[i])))
            rc = ddio_errf(c->e, DDIO_EXIT_IO, "out of memory");
    if (rc == 0)
        rc = run_missing(c, x, n, mask);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        errors_of(c, x[i], mask, tmp);
        obj[i] = objective_of(c->p, tmp, mask);
        c->r->evaluations++;
        if (obj[i] < c->best_seen)
            c->best_seen = obj[i];
        if (err && i + 1 == n)
            memcpy(err, tmp, c->p->n_exp * sizeof *err);
    }
    if (rc == 0)
        progress(c);
    free(x);
    free(tmp);
    return rc;
}

/* Mean standard error of the measured means over mask, points; points of
 * one run have no estimate of their noise and are left out. */
static double noise_of(const ctx *c, const uint8_t *mask)
{
    double s = 0;
    uint32_t n = 0;
    for (size_t k = 0; k < c->n_pts; k++)
        for (int m = 0; m < CAL_TERMS; m++) {
            const vd_record *r = mask[c->exp_of[k]] ? compared(c->p, c->pt[k], m) : NULL;
            if (!r || r->runs < 2)
                continue;
            s += 100.0 * r->sd / sqrt((double)r->runs) / (m == CAL_TERM_RATE ? r->mean : 1.0);   /* the errors' units */
            n++;
        }
    return n ? s / n : 0;
}

/* ------------------------------------------------------------ the fit */

typedef struct scan {
    uint32_t cont[CAL_MAX_FIT], n_cont;     /* active continuous fields */
    uint32_t disc[CAL_MAX_FIT], n_disc;     /* active discrete fields */
    uint32_t intervals[CAL_MAX_FIT];        /* by field */
    size_t n_grid, n_combo;
} scan;

static void scan_shape(const cal_problem *p, const int *active, scan *s)
{
    memset(s, 0, sizeof *s);
    for (uint32_t i = 0; i < p->n_fit; i++)
        if (active[i]) {
            if (p->fit[i].discrete)
                s->disc[s->n_disc++] = i;
            else
                s->cont[s->n_cont++] = i;
        }
    /* About 16 scan intervals in all by default: 16 for one field, 4 x 4
     * for two, 2 x 2 x 2 for three or more. */
    uint32_t def = s->n_cont ? (uint32_t)floor(pow(16.0, 1.0 / s->n_cont) + 1e-9) : 1;
    if (def < 2)
        def = 2;
    s->n_grid = s->n_combo = 1;
    for (uint32_t k = 0; k < s->n_cont; k++) {
        uint32_t i = s->cont[k];
        s->intervals[i] = p->fit[i].intervals ? p->fit[i].intervals : def;
        s->n_grid *= s->intervals[i] + 1;
    }
    for (uint32_t k = 0; k < s->n_disc; k++)
        s->n_combo *= p->fit[s->disc[k]].n_choice;
}

/* Grid point g of combination cb as a trial. */
static void grid_trial(const cal_problem *p, const int *active, const scan *s, size_t cb, size_t g, trial *t)
{
    memset(t, 0, sizeof *t);
    memcpy(t->active, active, sizeof t->active);
    for (uint32_t k = 0; k < s->n_disc; k++) {
        uint32_t i = s->disc[k];
        t->choice[i] = (int)(cb % p->fit[i].n_choice);
        cb /= p->fit[i].n_choice;
    }
    for (uint32_t k = 0; k < s->n_cont; k++) {
        uint32_t i = s->cont[k], n = s->intervals[i];
        const cal_param *f = &p->fit[i];
        t->value[i] = as_run(f, f->lo + (f->hi - f->lo) * (double)(g % (n + 1)) / n);
        g /= n + 1;
    }
}

/* The objective's change along coordinate k (of n points, stride st)
 * through index at. */
static double line_range(const double *obj, size_t at, size_t stride, uint32_t n)
{
    size_t base = at - (at / stride % n) * stride;
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t j = 0; j < n; j++) {
        double v = obj[base + j * stride];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    return hi - lo;
}

/* The simplex over the continuous fields of trial `start`. */
typedef struct nm_ctx {
    ctx *c;
    const scan *s;
    const uint8_t *mask;
    trial base, best;
    double best_obj;
    uint32_t evals;
    int failed;
} nm_ctx;

static void u_to_trial(const nm_ctx *n, const gsl_vector *u, trial *t)
{
    *t = n->base;
    for (uint32_t k = 0; k < n->s->n_cont; k++) {
        uint32_t i = n->s->cont[k];
        const cal_param *f = &n->c->p->fit[i];
        double x = f->lo + (f->hi - f->lo) * (1.0 + sin(gsl_vector_get(u, k))) / 2.0;
        t->value[i] = as_run(f, x < f->lo ? f->lo : x > f->hi ? f->hi : x);
    }
}

/* a below b, a number below NAN (ties keep the first: deterministic). */
static int better(double a, double b)
{
    return a < b || (isnan(b) && !isnan(a));
}

static double nm_f(const gsl_vector *u, void *arg)
{
    nm_ctx *n = arg;
    if (n->failed)
        return 1e300;
    trial t;
    double obj;
    u_to_trial(n, u, &t);
    n->evals++;
    if (evaluate(n->c, &t, 1, n->mask, &obj, NULL) != 0) {
        n->failed = 1;
        return 1e300;
    }
    if (!isfinite(obj))
        return 1e300;
    if (better(obj, n->best_obj))
        n->best_obj = obj, n->best = t;
    return obj;
}

static int simplex(ctx *c, const scan *s, const uint8_t *mask, trial *t, double *obj)
{
    if (s->n_cont == 0)
        return 0;
    nm_ctx n = {.c = c, .s = s, .mask = mask, .base = *t, .best = *t, .best_obj = *obj};
    gsl_vector *u = gsl_vector_alloc(s->n_cont), *step = gsl_vector_alloc(s->n_cont);
    gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, s->n_cont);
    if (!u || !step || !m) {
        gsl_vector_free(u), gsl_vector_free(step), gsl_multimin_fminimizer_free(m);
        return ddio_errf(c->e, DDIO_EXIT_IO, "out of memory");
    }
    for (uint32_t k = 0; k < s->n_cont; k++) {
        uint32_t i = s->cont[k];
        const cal_param *f = &c->p->fit[i];
        double y = 2.0 * (t->value[i] - f->lo) / (f->hi - f->lo) - 1.0;
        gsl_vector_set(u, k, asin(y < -1 ? -1 : y > 1 ? 1 : y));
        gsl_vector_set(step, k, HALF_PI / s->intervals[i]);
    }
    gsl_multimin_function fn = {.f = nm_f, .n = s->n_cont, .params = &n};
    uint32_t max = c->p->max_evals ? c->p->max_evals : DEFAULT_MAX_EVALS;
    if (gsl_multimin_fminimizer_set(m, &fn, u, step) == GSL_SUCCESS)
        while (!n.failed && n.evals < max) {
            if (gsl_multimin_fminimizer_iterate(m) != GSL_SUCCESS)
                break;
            if (gsl_multimin_fminimizer_size(m) < SIMPLEX_TOL)
                break;
        }
    gsl_vector_free(u), gsl_vector_free(step), gsl_multimin_fminimizer_free(m);
    if (n.failed)
        return -1;
    *t = n.best;
    *obj = n.best_obj;
    return 0;
}

/* Scan every combination's grid: the best trial and objective, and each
 * active field's change of the objective through it into range[]. */
static int scan_all(ctx *c, const int *active, const scan *s, const uint8_t *mask, trial *cb_best, double *cb_obj,
                    double *range, size_t *best_cb)
{
    size_t n = s->n_grid * s->n_combo;
    trial *t = malloc(n * sizeof *t);
    double *obj = malloc(n * sizeof *obj);
    if (!t || !obj) {
        free(t), free(obj);
        return ddio_errf(c->e, DDIO_EXIT_IO, "out of memory");
    }
    for (size_t cb = 0; cb < s->n_combo; cb++)
        for (size_t g = 0; g < s->n_grid; g++)
            grid_trial(c->p, active, s, cb, g, &t[cb * s->n_grid + g]);
    int rc = evaluate(c, t, n, mask, obj, NULL);
    if (rc == 0) {
        size_t b = 0;
        for (size_t cb = 0; cb < s->n_combo; cb++) {
            size_t cbest = cb * s->n_grid;
            for (size_t g = 1; g < s->n_grid; g++)
                if (better(obj[cb * s->n_grid + g], obj[cbest]))
                    cbest = cb * s->n_grid + g;
            cb_best[cb] = t[cbest];
            cb_obj[cb] = obj[cbest];
            if (better(obj[cbest], obj[b]))
                b = cbest;
        }
        *best_cb = b / s->n_grid;
        size_t g = b % s->n_grid, stride = 1;
        for (uint32_t k = 0; k < s->n_cont; k++) {
            uint32_t i = s->cont[k], pts = s->intervals[i] + 1;
            range[i] = line_range(obj + *best_cb * s->n_grid, g, stride, pts);
            stride *= pts;
        }
        /* A discrete field: the best of each of its choices' grids, the
         * other discrete fields as in the best combination. */
        size_t cstride = 1;
        for (uint32_t k = 0; k < s->n_disc; k++) {
            uint32_t i = s->disc[k], nc = c->p->fit[i].n_choice;
            double lo = INFINITY, hi = -INFINITY;
            size_t base = *best_cb - (*best_cb / cstride % nc) * cstride;
            for (uint32_t j = 0; j < nc; j++) {
                double mn = cb_obj[base + j * cstride];
                lo = mn < lo ? mn : lo;
                hi = mn > hi ? mn : hi;
            }
            range[i] = hi - lo;
            cstride *= nc;
        }
    }
    free(t), free(obj);
    return rc;
}

/* Fit over mask into f. */
static int fit(ctx *c, const uint8_t *mask, cal_fit *f)
{
    const cal_problem *p = c->p;
    int active[CAL_MAX_FIT] = {0};
    for (uint32_t i = 0; i < p->n_fit; i++)
        active[i] = 1;
    double noise = noise_of(c, mask);
    memset(f, 0, sizeof *f);
    for (;;) {
        scan s;
        scan_shape(p, active, &s);
        double range[CAL_MAX_FIT] = {0};
        size_t cb = 0;
        trial cb_best[CAL_MAX_COMBOS];
        double cb_obj[CAL_MAX_COMBOS];
        if (scan_all(c, active, &s, mask, cb_best, cb_obj, range, &cb) != 0)
            return -1;
        /* Without evidence a field is not fitted: scan again without it. */
        int dropped = 0;
        for (uint32_t i = 0; i < p->n_fit; i++)
            if (active[i]) {
                f->range[i] = range[i];
                if (noise > 0 && !(range[i] > noise))
                    active[i] = 0, dropped = 1;
            }
        if (dropped)
            continue;
        /* Every combination's simplex, from its grid's best point. */
        trial best_t = cb_best[cb];
        double best_obj = cb_obj[cb];
        for (size_t k = 0; k < s.n_combo; k++) {
            if (simplex(c, &s, mask, &cb_best[k], &cb_obj[k]) != 0)
                return -1;
            if (better(cb_obj[k], best_obj))
                best_obj = cb_obj[k], best_t = cb_best[k];
        }
        memcpy(f->fitted, active, sizeof f->fitted);
        memcpy(f->value, best_t.value, sizeof f->value);
        memcpy(f->choice, best_t.choice, sizeof f->choice);
        f->objective = best_obj;
        return 0;
    }
}

static void fit_trial(const cal_problem *p, const cal_fit *f, trial *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < p->n_fit; i++)
        t->active[i] = f->fitted[i];
    memcpy(t->value, f->value, sizeof t->value);
    memcpy(t->choice, f->choice, sizeof t->choice);
}

/* ------------------------------------------------------------ checks */

/* A fitted field must be one value at every point: not one that a
 * point's parameter sets (--extra-cycles adds to the cycles, after every
 * --set: fitting the cycles it adds to is fine), nor one given twice. */
static int check_fields(const cal_problem *p, ddio_err *e)
{
    if (p->n_fit == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit: nothing to fit (give --fit NAME=LO:HI)");
    for (uint32_t i = 0; i < p->n_fit; i++) {
        const char *path = p->fit[i].path;
        size_t len = strlen(path);
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(p->fit[k].path, path) == 0)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: given twice", path);
        for (int k = 0; k < p->run.n_sets; k++)
            if (strncmp(p->run.sets[k], path, len) == 0 && p->run.sets[k][len] == '=')
                return ddio_errf(e, DDIO_EXIT_USAGE, "--fit %s: also given one value (%s, by --set or --overlay): fit it or set it, not both", path,
                                 p->run.sets[k]);
        for (size_t x = 0; x < p->n_exp; x++)
            for (size_t q = 0; q < p->exp[x].n; q++) {
                const vd_point *pt = &p->exp[x].point[q];
                for (uint32_t a = 0; a < pt->n_params; a++) {
                    const vd_param_spec *ps = vd_param_find(pt->param[a].name);
                    for (int o = 0; ps && o < DDIO_CFG_NOPTS; o++) {
                        int part;
                        const char *fld = ddio_config_option_field((enum ddio_cfg_opt)o, &part);
                        if (!fld || o == DDIO_CFG_OPT_EXTRA_CYCLES ||
                            strcmp(ddio_config_option_name((enum ddio_cfg_opt)o), ps->option) != 0)
                            continue;
                        char full[128];
                        snprintf(full, sizeof full, "%s.%s", part ? "workload" : "machine", fld);
                        if (strcmp(full, path) == 0)
                            return ddio_errf(e, DDIO_EXIT_USAGE,
                                             "--fit %s: experiment %s sets it at its points (%s): a fitted "
                                             "parameter is one value for every point",
                                             path, p->exp[x].name, pt->param[a].name);
                    }
                }
            }
    }
    /* The scan's size: every combination of the choices, each with its
     * grid of the ranges (fields dropped later only shrink it). */
    int all[CAL_MAX_FIT];
    for (uint32_t i = 0; i < CAL_MAX_FIT; i++)
        all[i] = i < p->n_fit;
    double combos = 1, grid = 1;
    for (uint32_t i = 0; i < p->n_fit; i++)
        if (p->fit[i].discrete)
            combos *= p->fit[i].n_choice;
    if (combos > CAL_MAX_COMBOS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit: %.0f combinations of the listed choices, more than %d", combos,
                         CAL_MAX_COMBOS);
    scan s;
    scan_shape(p, all, &s);
    for (uint32_t k = 0; k < s.n_cont; k++)
        grid *= s.intervals[s.cont[k]] + 1.0;
    if (grid > CAL_MAX_GRID)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--fit: the ranges' scan has %.0f points, more than %d (a larger STEP)",
                         grid, CAL_MAX_GRID);
    if (grid * combos > CAL_MAX_SCAN)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "--fit: the scan runs %.0f trials (%.0f combinations x %.0f grid points), more than %d", grid * combos,
                         combos, grid, CAL_MAX_SCAN);
    size_t pairs = 0;
    for (size_t x = 0; x < p->n_exp; x++)
        for (size_t q = 0; q < p->exp[x].n; q++)
            for (int m = 0; m < CAL_TERMS; m++)
                pairs += cal_uses(p->objective, m) && cal_term_record(&p->exp[x].point[q], m);
    if (p->n_exp == 0 || pairs == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, p->objective == CAL_OBJ_RATE
                                                 ? "nothing measured to fit to (no experiment measured a forwarding "
                                                   "rate: experiment.json evidence.mpps)"
                                                 : "nothing measured to fit to (no experiment has a measured point)");
    if (p->engine != RUNNER_ENGINE_SIM && p->engine != RUNNER_ENGINE_MODEL)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--engine: calibrate fits one engine, sim or model");
    return 0;
}

/* ------------------------------------------------------------ run */

static void ctx_free(ctx *c)
{
    for (size_t k = 0; k < c->n_ent; k++) {
        free(c->ent[k]->key), free(c->ent[k]->pred), free(c->ent[k]->done);
        free(c->ent[k]);
    }
    free(c->ent);
    free(c->exp_of), free(c->pt), free(c->job);
}

static int ctx_init(ctx *c, const cal_problem *p, cal_result *r, ddio_err *e)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    c->r = r;
    c->e = e;
    c->best_seen = INFINITY;
    for (size_t x = 0; x < p->n_exp; x++)
        c->n_pts += p->exp[x].n;
    c->exp_of = calloc(c->n_pts + 1, sizeof *c->exp_of);
    c->pt = calloc(c->n_pts + 1, sizeof *c->pt);
    c->job = calloc(c->n_pts + 1, sizeof *c->job);
    if (!c->exp_of || !c->pt || !c->job)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    size_t k = 0;
    for (size_t x = 0; x < p->n_exp; x++)
        for (size_t q = 0; q < p->exp[x].n; q++, k++) {
            c->exp_of[k] = x;
            c->pt[k] = &p->exp[x].point[q];
            c->job[k] = (runner_job){.machine = p->exp[x].machine, .workload = p->exp[x].workload,
                                 .n_params = c->pt[k]->n_params, .param = c->pt[k]->param};
        }
    return 0;
}

void cal_result_free(cal_result *r)
{
    free(r->err_before), free(r->err_after), free(r->fold), free(r->err_cv);
    memset(r, 0, sizeof *r);
}

int cal_run(const cal_problem *p, int cv, cal_result *r, ddio_err *e)
{
    memset(r, 0, sizeof *r);
    if (check_fields(p, e) != 0)
        return -1;
    if (cv && p->n_exp < 2)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--cv: leaving one experiment out needs two experiments or more");
    assert(p->run.engines == p->engine);
    ctx c;
    size_t n = p->n_exp;
    uint8_t *mask = calloc(n, 1);
    r->err_before = calloc(n, sizeof *r->err_before);
    r->err_after = calloc(n, sizeof *r->err_after);
    r->fold = calloc(n, sizeof *r->fold);
    r->err_cv = calloc(n, sizeof *r->err_cv);
    int rc = ctx_init(&c, p, r, e);
    if (rc == 0 && (!mask || !r->err_before || !r->err_after || !r->fold || !r->err_cv))
        rc = ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    if (rc == 0) {
        memset(mask, 1, n);
        r->noise = noise_of(&c, mask);
        trial t;
    memset(&t, 0, sizeof t);
        c.stage = "configured values";
        rc = evaluate(&c, &t, 1, mask, &r->before, r->err_before);
    }
    if (rc == 0) {
        c.stage = "fit on every experiment";
        rc = fit(&c, mask, &r->all);
    }
    if (rc == 0) {
        trial t;
        fit_trial(p, &r->all, &t);
        rc = evaluate(&c, &t, 1, mask, &r->after, r->err_after);
    }
    char stage[128];
    for (size_t x = 0; cv && rc == 0 && x < n; x++) {
        snprintf(stage, sizeof stage, "fold %zu of %zu (without %s)", x + 1, n, p->exp[x].name);
        c.stage = stage;
        c.best_seen = INFINITY;
        memset(mask, 1, n);
        mask[x] = 0;
        rc = fit(&c, mask, &r->fold[x]);
        if (rc == 0) {
            trial t;
            double o;
            cal_err *all = calloc(n, sizeof *all);
            memset(mask, 0, n);
            mask[x] = 1;
            rc = all ? evaluate(&c, (fit_trial(p, &r->fold[x], &t), &t), 1, mask, &o, all)
                     : ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            if (rc == 0)
                r->err_cv[x] = all[x];
            free(all);
        }
    }
    r->cv = cv && rc == 0;
    if (p->progress)
        p->progress(p->progress_arg, NULL, r->evaluations, c.best_seen);
    ctx_free(&c);
    free(mask);
    if (rc != 0)
        cal_result_free(r);
    return rc == 0 ? 0 : -1;
}
