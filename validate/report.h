/* report.h - the accuracy of the predictions against the measurements:
 * per point, per experiment and overall, as a table, JSON, CSV or
 * Markdown (docs/validation.md is made of the Markdown).
 *
 * Errors are in percentage points, predicted - measured: a positive bias
 * means the engine predicts more hits than the hardware had.  The model's
 * prediction is the mean of its LRU (lower) and BIP / QLRU (upper) bounds,
 * as the paper reports it. */
#ifndef DDIOSIM_VALIDATE_REPORT_H
#define DDIOSIM_VALIDATE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "validate/experiment.h"
#include "sim/explore/runner.h"

enum { VD_ENG_SIM = 0, VD_ENG_MODEL = 1, VD_ENG_COUNT = 2 };

/* Everything one validation computed: the experiments, and the outcome of
 * every point of every experiment, in order (experiment 0's points first). */
typedef struct vd_set {
    size_t n_exp;
    const vd_experiment *exp;
    const runner_outcome *out;
    int engines;                /* RUNNER_ENGINE_* bits that ran */
    uint64_t packets, seed;     /* the simulator's run, for the header */
    uint32_t seeds;             /* placements averaged per point (0, 1: one) */
    const char *const *sets;    /* the --set overrides of every point, for the header */
    int n_sets;
} vd_set;

typedef struct vd_stat {
    uint32_t n;                 /* points with both a measurement and a prediction */
    double mae, max, bias;      /* percentage points */
    uint32_t in_bounds;         /* model: measured mean within [lower, upper] */
} vd_stat;

/* The statistics of engine `eng` on metric m, over experiment `exp`, or
 * over every experiment when exp == s->n_exp. */
void vd_stat_of(const vd_set *s, size_t exp, int eng, int m, vd_stat *st);

/* The report as text (malloc'ed; NULL when out of memory). */
enum vd_format { VD_FMT_TABLE = 0, VD_FMT_JSON, VD_FMT_CSV, VD_FMT_MD };
char *vd_report(const vd_set *s, enum vd_format f);

/* The points' names: "pkt_size=1500 rx_ring=4096" (the parameters the
 * experiment varies). */
void vd_point_label(const vd_experiment *x, const vd_point *p, char *buf, size_t cap);
/* The width of e's widest point label, at least 12 (a table's column). */
int vd_label_width(const vd_experiment *e);
/* Index of experiment x's first outcome in s->out. */
size_t vd_first_outcome(const vd_set *s, size_t x);

#endif
