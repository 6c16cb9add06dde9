/* advise.h - design queries: the grid points of a sweep spec that meet a
 * set of constraints (memory write traffic below X GB/s, I/O buffers in at
 * most Y of the LLC, drop rate below Z, PCIe write hit at least H, ...),
 * ranked by the spec's preferences: the model on every point, the simulator
 * on the best few to confirm them (`ddiosim advise`, docs/sweep.md).
 *
 * The spec is a sweep spec (sweep.h) with three more keys:
 *   "constraints": { "mem_write_gbps": {"max": 1.0}, "pcie_write_hit": {"min": 0.9} },
 *   "prefer": ["ddio_ways", "-rx_ring"],   (ascending; "-": descending)
 *   "confirm": 3                            (simulator runs of the best; 0: none) */
#ifndef DDIOSIM_EXPLORE_ADVISE_H
#define DDIOSIM_EXPLORE_ADVISE_H

#include "sim/explore/runner.h"
#include "sim/explore/sweep.h"

/* The metrics a constraint may name. */
enum ad_metric { AD_PCIE_WRITE_HIT = 0, AD_PCIE_READ_HIT, AD_MEM_WRITE_GBPS, AD_MEM_GBPS, AD_DROP_RATE,
                 AD_IO_LLC_FRACTION, AD_THROUGHPUT_GBPS, AD_METRIC_COUNT };
const char *ad_metric_name(enum ad_metric m);

/* The model runs on this many points at a time: advise's memory does not
 * grow with the grid (a candidate is about 4 KB). */
#define AD_CHUNK 4096u
#define AD_MAX_CONSTRAINTS 8
#define AD_MAX_PREFER 8

typedef struct ad_constraint {
    enum ad_metric m;
    double lo, hi;              /* -inf / +inf when not given */
} ad_constraint;

typedef struct ad_spec {
    sw_spec grid;
    int n_c;
    ad_constraint c[AD_MAX_CONSTRAINTS];
    int n_prefer;
    char prefer[AD_MAX_PREFER][VD_NAME_LEN];
    int descending[AD_MAX_PREFER];
    unsigned confirm;
} ad_spec;

/* Parse / load an advise spec; errors as sw_spec_parse ("FILE: json.path:
 * problem", exit 2): an unknown metric, a bound that is not a number, a
 * preference that is not a parameter of the grid. */
int ad_spec_parse(const char *text, const char *file, ad_spec *s, ddio_err *e);
int ad_spec_load(const char *path, ad_spec *s, ddio_err *e);
void ad_spec_free(ad_spec *s);

/* Metric m of an outcome: the model's estimate (sim = 0) or the
 * simulator's (sim = 1; its PCIe hit rates are the buffers' data lines, as
 * the model's), NaN when that engine did not give it.  llc_bytes: the
 * LLC's size, for AD_IO_LLC_FRACTION. */
double ad_metric_of(const runner_outcome *o, enum ad_metric m, int sim, double llc_bytes);

/* The margin of value v to constraint c: how far inside the bound it is
 * (>= 0: met; the smaller of the two sides when both are given), in the
 * metric's unit. */
double ad_margin(const ad_constraint *c, double v);

/* One candidate: a grid point and what the engines said. */
typedef struct ad_candidate {
    uint32_t n_params;
    vd_param param[VD_MAX_PARAMS];
    runner_outcome model, sim;
    int confirmed;              /* the simulator ran it */
    int sim_ok;                 /* ... and it met every constraint */
} ad_candidate;

/* Run the query: the model on every selected grid point, AD_CHUNK points
 * at a time, keeping the best max(keep, confirm) feasible candidates (the
 * preferences, ties in grid order); then the simulator on the best
 * `confirm` of them.  *out: those candidates, best first (malloc'ed; *n may
 * be 0); *n_feasible: every point that met the constraints; *n_points: the
 * points the model ran.  Memory does not grow with the grid.  Returns 0 or
 * -1 with e filled. */
int ad_run(const ad_spec *s, const runner_opts *o, double llc_bytes, size_t keep, ad_candidate **out, size_t *n,
           size_t *n_feasible, size_t *n_points, ddio_err *e);

#endif
