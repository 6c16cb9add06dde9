/* calibrate.h - fit a machine's or a workload's free parameters to the
 * counters measured on a server, and say how well the fit predicts what
 * was not measured (leave-one-experiment-out cross-validation).
 *
 * A fitted parameter is any numeric machine or workload field (`--set`
 * path) over a range, or any field over a list of choices.  It is global:
 * one value for every point of every experiment, never per point, so a
 * field that an experiment sets at its points is refused.
 *
 * The objective is the mean absolute error, in percentage points, between
 * one engine's predictions and the measured hit rates (every metric a
 * point measured), averaged per experiment (CAL_WEIGHT_EXPERIMENT: each
 * experiment counts once, however many points it has) or over all points.
 * A fit enumerates the discrete choices; for each it scans a coarse grid of
 * the continuous ranges (an objective is often flat with steps: a core
 * saturates, a ring fills) and starts GSL's Nelder-Mead simplex
 * (nmsimplex2) from the best grid point, in a bounded coordinate
 * x = lo + (hi - lo) (1 + sin u) / 2.  A parameter whose grid changes the
 * objective by less than the measurement noise (the mean standard error of
 * the measured means) has no evidence in the experiments: it is not
 * fitted (kept at the configuration's value) and named in a warning.
 *
 * Every evaluation runs the points through sim/explore/runner.c with the
 * trial values as per-point --set overrides; results are cached per trial
 * values and point, so the folds of the cross-validation share their grid.
 * The outcome depends on the seed, never on the thread count. */
#ifndef DDIOSIM_EXPLORE_CALIBRATE_H
#define DDIOSIM_EXPLORE_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"
#include "validate/experiment.h"
#include "sim/explore/runner.h"

#define CAL_MAX_FIT 8
#define CAL_MAX_CHOICES 16
#define CAL_PATH_LEN 96
#define CAL_CHOICE_LEN 64
#define CAL_MAX_COMBOS 256          /* discrete choices, all fields together */
#define CAL_MAX_GRID 4096           /* coarse-scan points per discrete combination */
#define CAL_MAX_SCAN 8192           /* coarse-scan trials, combinations x grid (each runs every point) */

enum cal_weight { CAL_WEIGHT_EXPERIMENT = 0, CAL_WEIGHT_POINT };

/* What the objective compares: the hit rates (absolute errors, points),
 * the forwarding rate an experiment measured as evidence.mpps (relative
 * errors, percent: a rate of 7.5 Mpps predicted as 7.35 is 2 off), or
 * both, each error counting once.  The rate is the evidence on the core's
 * cost and the queues that the hit rates barely carry (docs/calibrate.md). */
enum cal_objective { CAL_OBJ_HITS = 0, CAL_OBJ_RATE, CAL_OBJ_BOTH };
/* The error terms: the hit-rate metrics (enum vd_metric), then the rate. */
#define CAL_TERM_RATE VD_METRIC_COUNT
#define CAL_TERMS (VD_METRIC_COUNT + 1)

typedef struct cal_param {
    char path[CAL_PATH_LEN];        /* "workload.cycles_per_packet" */
    int discrete;                   /* 1: one of choice[]; 0: a value in [lo, hi] */
    double lo, hi;
    uint32_t intervals;             /* coarse scan: intervals of [lo, hi] (0: the default) */
    int integer;                    /* the field holds whole numbers: trial values are rounded */
    uint32_t n_choice;
    char choice[CAL_MAX_CHOICES][CAL_CHOICE_LEN];
} cal_param;

/* Parse one --fit: NAME=LO:HI[:STEP] (a numeric field), NAME=A,B[,...]
 * (any field; for an enum field a bare NAME is every name).  Checks the
 * field exists, is settable, and that the bounds or choices are values it
 * takes.  Errors: "--fit ARG: ..." (exit 2). */
int cal_param_parse(const char *arg, cal_param *p, ddio_err *e);

typedef struct cal_problem {
    size_t n_exp;
    const vd_experiment *exp;       /* borrowed */
    int engine;                     /* RUNNER_ENGINE_SIM or RUNNER_ENGINE_MODEL */
    runner_opts run;                /* engines is set from `engine`; run.sets: the base overrides */
    enum cal_weight weight;
    enum cal_objective objective;
    uint32_t n_fit;
    cal_param fit[CAL_MAX_FIT];
    uint32_t max_evals;             /* simplex evaluations per fit and combination (0: 120) */
    /* Called (may be NULL) after each batch of evaluations with the stage
     * ("scan", "fit", "fold cores"...), the evaluations so far and the best
     * objective seen; once more at the end with stage NULL. */
    void (*progress)(void *arg, const char *stage, uint64_t evaluations, double best);
    void *progress_arg;
} cal_problem;

/* The error of one evaluation, per experiment and term (CAL_TERMS). */
typedef struct cal_err {
    double sum[CAL_TERMS];          /* hit rates: sum of |predicted - measured|, points; the rate: of
                                       100 |predicted - measured| / measured, percent */
    uint32_t n[CAL_TERMS];
} cal_err;

/* One fit: the values found and what they give. */
typedef struct cal_fit {
    int fitted[CAL_MAX_FIT];        /* 0: no evidence, not fitted (kept at the configuration's value) */
    double value[CAL_MAX_FIT];      /* continuous fields, as run (rounded for integer fields) */
    int choice[CAL_MAX_FIT];        /* discrete fields: index into choice[] */
    double objective;               /* at the fitted values, over the experiments fitted on */
    double range[CAL_MAX_FIT];      /* the objective's change along the field on the grid, points */
} cal_fit;

typedef struct cal_result {
    double noise;                   /* mean standard error of the measured means, points (all points) */
    cal_fit all;                    /* fitted on every experiment */
    double before, after;           /* objective at the configured values, at all's values */
    cal_err *err_before, *err_after;        /* per experiment (malloc'ed, n_exp) */
    int cv;                         /* 1: the cross-validation ran */
    cal_fit *fold;                  /* fold[e]: fitted without experiment e (malloc'ed, n_exp) */
    cal_err *err_cv;                /* experiment e at fold[e]'s values */
    uint64_t evaluations;           /* objective evaluations asked for */
    uint64_t trials;                /* distinct trial values run */
    uint64_t point_runs;            /* points run (an engine run each) */
} cal_result;

/* Fit (and with cv, each fold).  Needs at least one experiment with a
 * measured point, and two for cv.  0, or -1 with e filled: a point that
 * fails to run, or runs and predicts no value for a metric it measured,
 * names its experiment, point and trial values (exit 2: the values given
 * cannot be evaluated).  r is filled even on failure; free it with cal_result_free. */
int cal_run(const cal_problem *p, int cv, cal_result *r, ddio_err *e);
/* Free what cal_run allocated in r (safe on a zeroed or failed r). */
void cal_result_free(cal_result *r);

/* MAE of an error record: every term (m < 0) or one (a vd_metric or
 * CAL_TERM_RATE). */
double cal_err_mae(const cal_err *x, int m);
/* Parse --objective: hits | rate | both. */
int cal_objective_parse(const char *arg, enum cal_objective *o, ddio_err *e);
/* Does objective o use term m? */
int cal_uses(enum cal_objective o, int m);
/* Term m of point pt as measured (a hit-rate metric's record, or for
 * CAL_TERM_RATE the forwarding rate's), or NULL when it was not. */
const vd_record *cal_term_record(const vd_point *pt, int m);
/* The unit of o's errors: "points", "percent" or "points / percent". */
const char *cal_unit(enum cal_objective o);

/* The report (malloc'ed text; NULL when out of memory): the
 * cross-validated table first when r->cv, then the in-sample fit.  Nothing
 * in it depends on the time or the thread count. */
char *cal_report(const cal_problem *p, const cal_result *r);

/* The overlay JSON of r->all (configs/overlay.h): the fitted fields under
 * "set", what fitted them under "calibration" (malloc'ed text). */
char *cal_overlay_json(const cal_problem *p, const cal_result *r, const char *command);

/* The --set text of field i of fit f: "PATH=VALUE" into buf. */
void cal_set_text(const cal_problem *p, const cal_fit *f, uint32_t i, char *buf, size_t cap);

#endif
