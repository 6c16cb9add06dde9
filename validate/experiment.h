/* experiment.h - a measured experiment: what was varied, what was fixed,
 * and the measured points, as one folder's `experiment.json` describes.
 *
 * An experiment folder holds the measured files and an experiment.json
 * (schema in docs/validation.md).  Loading it checks every name it uses
 * (parameters, metrics, the machine and workload) and reads every measured
 * file, so that an experiment that loads is one that can be validated.
 *
 * Parameters are the simulate / predict option names with underscores
 * (runner_job_config maps them back to options); the measured values of a point are
 * grouped per metric in vd_point. */
#ifndef DDIOSIM_VALIDATE_EXPERIMENT_H
#define DDIOSIM_VALIDATE_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"
#include "validate/measure.h"

/* The metrics validate compares, in output order. */
enum vd_metric { VD_PCIE_WRITE_HIT = 0, VD_PCIE_READ_HIT, VD_PCIE_WRITE_PARTIAL_HIT, VD_METRIC_COUNT };
const char *vd_metric_name(enum vd_metric m);
/* -1 when `name` is not a metric. */
int vd_metric_from_name(const char *name);

/* What was measured besides the hit rates: evidence on the queues that
 * does not come from the cache (the forwarding rate in Mpps, the mean
 * latency in microseconds), and the generator's offered rate (Gb/s on the
 * wire: 24 bytes of FCS, preamble and gap per frame counted), kept as
 * measured, with no unit scaling.  The offered rate is an input: with
 * "rate": "offered" among an experiment's fixed parameters, each point
 * runs at the rate its generator measured (vd_experiment_load). */
enum vd_evidence { VD_EV_MPPS = 0, VD_EV_LATENCY_AVG_US, VD_EV_OFFERED_GBPS, VD_EV_COUNT };
const char *vd_evidence_name(enum vd_evidence v);
/* -1 when `name` is not one. */
int vd_evidence_from_name(const char *name);

/* Parameter names, their option and kind. */
enum vd_param_kind { VD_KIND_UINT, VD_KIND_REAL, VD_KIND_RATE, VD_KIND_WORD };
typedef struct vd_param_spec {
    const char *name;           /* "rx_ring" */
    const char *option;         /* "--rx-ring" */
    enum vd_param_kind kind;    /* UINT: a whole number; RATE: Gb/s or "max"; WORD: a name */
    int engine_sim;             /* 1: a traffic option (cli_sim), 0: a configuration option */
} vd_param_spec;
/* NULL when `name` is not a parameter. */
const vd_param_spec *vd_param_find(const char *name);
/* The names, comma separated (for messages and --help). */
const char *vd_param_names(void);
/* The range check of a traffic parameter's value (pkt_size, rate, flows,
 * flow_burst, gen_threads, flow_tuples): the one its simulate / predict
 * option applies, with the option's message ("--rate: 1e-300 is out of
 * range [0.001, 10000]"), exit code 2.  vd_param_from_json calls it (so a
 * sweep spec, an advise query and an experiment.json refuse a value as
 * they are read), and runner_job_config (a point's parameters from elsewhere).  A configuration parameter is checked when a point's
 * configuration is resolved (its limits depend on the machine): 0. */
int vd_param_check(const vd_param *p, ddio_err *e);

/* A value of parameter `name` from JSON, checked against the parameter's
 * kind and range (vd_param_check): 0, or -1 with the problem in msg ("must be a whole number >= 0";
 * "unknown parameter 'x' (known: ...)"), for the caller to prefix with
 * its file and JSON path. */
struct cJSON;
int vd_param_from_json(const char *name, const struct cJSON *v, vd_param *out, char *msg, size_t cap);
/* The option value text of p: its word, or its number ("%.10g"). */
void vd_param_format(const vd_param *p, char *buf, size_t cap);

/* One measured point: its parameters (fixed ones first, then the series
 * and x parameters) and, per metric, the measurement (has[m] = 0: not
 * measured at this point). */
typedef struct vd_point {
    uint32_t n_params;
    vd_param param[VD_MAX_PARAMS];
    uint8_t has[VD_METRIC_COUNT];
    vd_record m[VD_METRIC_COUNT];
    char where[160];            /* "1500ItoM-HIT-RATE.csv:4" or "points[2]": for messages */
    char source[VD_METRIC_COUNT][160];  /* where each metric was read from (its file and line) */
    uint8_t has_ev[VD_EV_COUNT];        /* the evidence measured at this point (npf "evidence") */
    vd_record ev[VD_EV_COUNT];
} vd_point;

typedef struct vd_experiment {
    char name[64];
    char dir[512];
    char source[16];            /* "npf", "pcm-pcie", "perf" */
    char machine[512];          /* as for --machine: a name, or a path (relative: to dir) */
    char workload[512];
    char x_param[VD_NAME_LEN];  /* the varied parameter ("" when points list their own) */
    char series_param[VD_NAME_LEN];
    int rate_offered;           /* fixed.rate "offered": each point's rate param holds its measured
                                   offered rate in frame Gb/s (text "offered", value set) */
    int latency_by_series;      /* evidence.latency_baseline "series": a point's latency excess is over
                                   the fastest point of its series, not of the experiment */
    uint32_t n_fixed;           /* the first n_fixed parameters of every point are the fixed ones */
    size_t n;
    vd_point *point;            /* sorted by series value, then x */
    size_t n_input;
    char **input;               /* every file read: experiment.json, the measured files, a machine / workload file */
    size_t n_warning;
    char **warning;             /* what loaded but deserves a word, one line each naming its file ("F: holds
                                   means only ... n = 1 per point, no spread"); the CLI prints them */
} vd_experiment;

/* Load DIR/experiment.json and the files it names.  Errors are one line
 * naming the file (DIR/experiment.json: json.path: ..., or a measured
 * file's FILE:LINE: ...), exit code 2. */
int vd_experiment_load(const char *dir, vd_experiment *x, ddio_err *e);
void vd_experiment_free(vd_experiment *x);

/* The value of parameter `name` at point p, or NULL. */
const vd_param *vd_point_param(const vd_point *p, const char *name);

#endif
