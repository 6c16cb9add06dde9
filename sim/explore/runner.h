/* runner.h - compute the predictions of many points, in parallel, with
 * results that do not depend on how many threads computed them.
 *
 * A point is a machine, a workload and parameters (the simulate / predict
 * option names with underscores, validate/experiment.h).  Each engine runs
 * it exactly as the CLI would with those options: the simulator as
 * `ddiosim simulate --profile fixed:SIZE --rate R --packets N --seed S`,
 * the model as `ddiosim predict --pkt-size SIZE --rate R` (queue lengths
 * from the queueing estimate).  Every point has its own configuration,
 * simulator and model state and the same seed, so a point's result is the
 * same whichever thread ran it and whatever ran before it: that is what
 * makes `--jobs` safe, and what a design-space sweep reuses. */
#ifndef DDIOSIM_EXPLORE_RUNNER_H
#define DDIOSIM_EXPLORE_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "configs/config.h"
#include "sim/common/err.h"
#include "sim/queue/dsim.h"
#include "validate/experiment.h"

enum { RUNNER_ENGINE_SIM = 1, RUNNER_ENGINE_MODEL = 2, RUNNER_ENGINE_BOTH = 3 };

typedef struct runner_job {
    const char *machine;        /* name or path as for --machine; NULL or "" = built-in default */
    const char *workload;
    uint32_t n_params;
    const vd_param *param;      /* borrowed */
    const char *const *sets;    /* --set PATH=VALUE of this point alone, after o->sets (calibrate's
                                   trial values); borrowed, may be NULL */
    int n_sets;
} runner_job;

typedef struct runner_opts {
    int engines;                /* RUNNER_ENGINE_* bits */
    uint64_t packets;           /* simulator: packets injected per point */
    uint64_t seed;
    int jobs;                   /* worker threads, >= 1 */
    const char *trace;          /* the traffic of points that give no pkt_size: the sample
                                   trace (NULL or "": such a point is an error) */
    /* NULL, or `trace` parsed already (pktsrc_trace_load), lent to each
     * point's simulator and model sources instead of a parse of their
     * own.  runner_all, runner_stream (at the first point on the trace)
     * and an MPI sweep's ranks set it for their points
     * (runner_parse_trace); read only, so the worker threads share it. */
    const pktsrc_trace *parsed;
    const char *const *sets;    /* --set PATH=VALUE applied to every point, after its parameters */
    int n_sets;
    int model_max_iter;         /* the model's fixed-point iteration cap; 0: predict's default */
    /* Placements per point (0 or 1: one).  With K > 1 a point runs seeds
     * seed .. seed + K - 1 and reports the mean of every figure: the seed
     * places the buffers in physical frames (the LLC set mapping), which
     * moves a hit rate by several points (docs/validation.md); a measured
     * mean is compared with the mean over placements. */
    uint32_t seeds;
    /* Optional: runner_all calls progress(progress_ctx, progress_phase,
     * progress_base + points done, progress_total or n) after each point,
     * one call at a time (under its lock); it may draw a progress bar.  It
     * never changes a result. */
    void (*progress)(void *ctx, const char *phase, size_t done, size_t total);
    void *progress_ctx;
    const char *progress_phase;     /* what the points are ("model", "simulator"), or NULL */
    size_t progress_base, progress_total;
} runner_opts;

/* The estimate a point's model made, and the simulator's run. */
typedef struct runner_outcome {
    int failed;                 /* 1: err says why (the point's other fields are unset) */
    ddio_err err;
    /* simulator */
    double sim[VD_METRIC_COUNT];        /* as the uncore counters count: every full-line PCIe write
                                           (ItoM: packet data, completions) and every PCIe read
                                           (PCIRdCur: packet data, descriptors) */
    double sim_data[2];                 /* PCIe write (full lines) and read hit rates of the packet
                                           buffers' data lines alone (what the model predicts) */
    double sim_queue[Q_COUNT];          /* mean over cores */
    double sim_gbps, sim_drop_rate;
    double sim_mpps;                    /* forwarded (delivered) packets, Mpps */
    double sim_latency_us;              /* mean, from the NIC's arrival to the delivery */
    int sim_settled;
    double sim_mem_read_bpp, sim_mem_write_bpp, sim_mem_gbps;   /* memory traffic: bytes per packet, GB/s */
    double sim_mem_write_gbps;          /* memory writes alone, GB/s */
    double sim_llc_lines[REG_COUNT];    /* cache occupancy at the end, lines per region (REG_L2: all L2s) */
    /* model: LRU lower, BIP / QLRU upper, their mean, and the estimate the machine's
       llc.model_estimate names (what is compared) */
    double model_lower[VD_METRIC_COUNT], model_upper[VD_METRIC_COUNT], model_mean[VD_METRIC_COUNT];
    double model_est[VD_METRIC_COUNT];
    double model_queue[Q_COUNT];        /* the queueing estimate, mean over cores */
    double model_gbps;                  /* accepted throughput of the estimate */
    double model_mpps;                  /* accepted packets, Mpps */
    double model_latency_us;            /* Little's law over the queues that hold packets (RX, TX, the
                                           software queue) at the accepted rate */
    double model_mem_read_bpp, model_mem_write_bpp, model_mem_gbps;   /* estimates, as the hit rates' */
    double model_mem_write_gbps;        /* memory writes alone at the accepted rate, GB/s */
    double model_drop_rate;             /* 1 - accepted / offered packets of the queueing estimate */
    double model_footprint_bytes;       /* the I/O footprint of all cores (estimate) */
} runner_outcome;

/* The configuration and simulator options of job j (config overrides in
 * parameter order, after the machine and workload files, then o->sets,
 * then j->sets).  Errors: the
 * option's one-line message ("--rx-ring: 1000 is not a power of two"). */
int runner_job_config(const runner_job *j, const runner_opts *o, ddio_config *cfg, dsim_options *d, char *profile,
                  size_t cap, ddio_err *e);

/* Run one point (both engines as o->engines says).  Thread-safe.  Returns 0
 * or -1 with out->failed and out->err set. */
int runner_point(const runner_job *j, const runner_opts *o, runner_outcome *out);

/* Does job j run on o->trace (it gives no pkt_size: runner_job_config)? */
int runner_job_uses_trace(const runner_job *j);

/* o, or *copy: o with its trace parsed once into *t (zeroed first; the
 * caller frees it with pktsrc_trace_free after the points) for every
 * point to borrow (runner_opts.parsed), when `needed` (some point runs on
 * the trace).  A trace that cannot be read or held is left to the points:
 * each meets the error, or streams the trace, as without a parse. */
const runner_opts *runner_parse_trace(const runner_opts *o, int needed, runner_opts *copy, pktsrc_trace *t);

/* Run n points on o->jobs threads; out[i] is job[i]'s outcome whatever the
 * thread count.  Returns the number of failed points, or -1 with e filled
 * when the threads could not be started. */
int runner_all(const runner_job *job, size_t n, const runner_opts *o, runner_outcome *out, ddio_err *e);

/* Streaming: point i's job is filled by job_of(i, ctx, job, params)
 * (params: room for VD_MAX_PARAMS, kept until the point is emitted); o->jobs
 * worker threads compute the points, and the calling thread hands each
 * outcome to emit(i, ...) in index order as soon as it and all before it
 * are done, with at most `window` points computed ahead of the last one
 * emitted.  Unlike runner_all no point waits for a batch: a slow point
 * holds back only the emission, never the other threads.  Returns 0, or
 * -1 with e filled (the threads could not start, job_of or emit failed:
 * the workers stop after the points they hold). */
typedef int (*runner_job_fn)(size_t i, void *ctx, runner_job *job, vd_param *params, ddio_err *e);
typedef int (*runner_emit_fn)(size_t i, const runner_job *job, const runner_outcome *out, void *ctx, ddio_err *e);
int runner_stream(size_t n, const runner_opts *o, size_t window, runner_job_fn job_of, runner_emit_fn emit, void *ctx,
                  ddio_err *e);

#endif
