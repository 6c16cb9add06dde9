/* runner.c - run the simulator and the model on many points, in parallel,
 * each point independent of the others (sim/explore/runner.h). */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/markov/predict.h"
#include "sim/queue/qest.h"
#include "traces/gen.h"
#include "sim/explore/runner.h"

/* The configuration option whose name is `option` ("--rx-ring"), or -1. */
static int config_option(const char *option)
{
    for (int i = 0; i < DDIO_CFG_NOPTS; i++)
        if (strcmp(ddio_config_option_name((enum ddio_cfg_opt)i), option) == 0)
            return i;
    return -1;
}

/* A generator parameter of the point (flows, flow_burst, gen_threads,
 * flow_tuples), checked by vd_param_check, into d->src. */
static int traffic_param(dsim_options *d, const vd_param *p, const char *text, ddio_err *e)
{
    if (strcmp(p->name, "flow_tuples") == 0)
        return gen_parse_tuples(text, &d->src.random_tuples, "--flow-tuples", e);
    if (strcmp(p->name, "flows") == 0)
        d->src.flows = (uint32_t)p->value;
    else if (strcmp(p->name, "flow_burst") == 0)
        d->src.flow_burst = (uint32_t)p->value;
    else if (strcmp(p->name, "gen_threads") == 0)
        d->src.gen_threads = (uint32_t)p->value;
    return 0;
}

int runner_job_config(const runner_job *j, const runner_opts *o, ddio_config *cfg, dsim_options *d, char *profile,
                  size_t cap, ddio_err *e)
{
    ddio_config_args a;
    char text[VD_MAX_PARAMS][VD_TEXT_LEN + 16];
    ddio_config_args_init(&a);
    if (j->machine && j->machine[0])
        a.machine = j->machine;
    if (j->workload && j->workload[0])
        a.workload = j->workload;
    dsim_options_default(d);
    d->packets = o->packets;
    d->seed = o->seed;
    d->rate_gbps = -1;          /* line rate unless the point says */
    d->src.trace = o->trace && o->trace[0] ? o->trace : NULL;
    profile[0] = '\0';
    for (uint32_t i = 0; i < j->n_params && i < VD_MAX_PARAMS; i++) {
        const vd_param *p = &j->param[i];
        const vd_param_spec *s = vd_param_find(p->name);
        if (vd_param_check(p, e) != 0)
            return -1;
        vd_param_format(p, text[i], sizeof text[i]);
        if (strcmp(p->name, "pkt_size") == 0) {
            snprintf(profile, cap, "fixed:%u", (unsigned)p->value);
            d->src.trace = NULL;
            d->src.profile = profile;
        } else if (strcmp(p->name, "rate") == 0) {
            d->rate_gbps = strcmp(p->text, "max") == 0 ? -1 : p->value;   /* "offered": its measured value */
        } else if (s->engine_sim) {
            if (traffic_param(d, p, text[i], e) != 0)
                return -1;
        } else {
            int opt = config_option(s->option);
            if (opt < 0)
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s: this build has no such option", s->option);
            if (ddio_config_args_add(&a, (enum ddio_cfg_opt)opt, text[i], e) != 0)
                return -1;
        }
    }
    d->src.parsed = d->src.trace ? o->parsed : NULL;
    for (int i = 0; i < o->n_sets; i++)
        if (ddio_config_args_add(&a, DDIO_CFG_OPT_SET, o->sets[i], e) != 0)
            return -1;
    for (int i = 0; i < j->n_sets; i++)
        if (ddio_config_args_add(&a, DDIO_CFG_OPT_SET, j->sets[i], e) != 0)
            return -1;
    if (!d->src.trace && !d->src.profile)
        return ddio_errf(e, DDIO_EXIT_IO, "no pkt_size, and no sample trace to run the point on "
                                          "(no data directory: see ddiosim help files)");
    return ddio_config_resolve(&a, cfg, NULL, e);
}

/* The simulator's run of the point. */
static int run_sim(const ddio_config *cfg, const dsim_options *d, runner_outcome *out, ddio_err *e)
{
    dsim_result r;
    if (dsim_run(cfg, d, &r, e) != 0)
        return -1;
    /* What ItoM and PCIRdCur count: the descriptor and completion lines
     * too, not only the buffers' data lines.  ItoM is a full-line write:
     * the partial last line of a packet is an RFO (its own metric). */
    dsim_hits w = r.pcie_write_all;
    w.hits -= r.pcie_write_partial.hits;
    w.accesses -= r.pcie_write_partial.accesses;
    out->sim[VD_PCIE_WRITE_HIT] = dsim_rate(w);
    out->sim[VD_PCIE_READ_HIT] = dsim_rate(r.pcie_read_all);
    out->sim[VD_PCIE_WRITE_PARTIAL_HIT] = r.pcie_write_partial.accesses ? dsim_rate(r.pcie_write_partial) : NAN;
    out->sim_data[0] = dsim_rate(r.pcie_write_full);
    out->sim_data[1] = dsim_rate(r.pcie_read);
    memcpy(out->sim_queue, r.queue_mean, sizeof out->sim_queue);
    out->sim_gbps = r.throughput_gbps;
    out->sim_mpps = r.mpps;
    out->sim_latency_us = r.latency_mean_us;
    out->sim_drop_rate = r.injected ? (double)r.dropped / (double)r.injected : 0;
    out->sim_settled = r.warmup_settled;
    out->sim_mem_read_bpp = r.mem_read_bytes_per_pkt;
    out->sim_mem_write_bpp = r.mem_write_bytes_per_pkt;
    out->sim_mem_gbps = r.mem_gbps;
    out->sim_mem_write_gbps = r.mem_write_bytes_per_pkt * r.mpps * 1e6 / 1e9;
    for (int g = 0; g < REG_COUNT; g++)
        out->sim_llc_lines[g] = (double)r.occupancy[g];
    dsim_result_free(&r);
    return 0;
}

/* The model with the queueing estimate, as `ddiosim predict` runs it. */
static int run_model(const ddio_config *cfg, const dsim_options *d, const runner_opts *o, runner_outcome *out, ddio_err *e)
{
    mk_traffic t;
    uint32_t S = cfg->workload.cores;
    int rc = d->src.profile ? mk_traffic_fixed(&t, (uint32_t)atoi(d->src.profile + 6), S, e)
                            : mk_traffic_from_source(&t, &d->src, 0, d->seed, S, 0, e);
    if (rc != 0)
        return -1;
    if (d->src.profile)
        t.burst = d->src.flow_burst;   /* the generator's, as predict; a trace has none (mk_traffic_from_source) */
    if (mk_traffic_fit(&t, cfg->workload.driver.data_room, e) != 0) {   /* as the simulator's NIC */
        mk_traffic_free(&t);
        return -1;
    }
    qest_input qi = {.rate_gbps = d->rate_gbps, .mean_pkt = t.mean, .ca2 = t.ca2, .share = t.share, .cpu_hit = 1.0};
    qest_result qr;
    memset(&qr, 0, sizeof qr);
    rc = qest_estimate(cfg, &qi, &qr, e);
    mk_prediction p;
    if (rc == 0) {
        mk_predict_opts po;
        mk_predict_opts_default(&po);
        rc = mk_upper_policy(&cfg->machine, &po.upper, e);
        po.seed = d->seed;
        po.queues = qr.per_core;
        po.inflight = qr.inflight;
        po.pps = qr.accepted_pps;
        if (o->model_max_iter > 0)
            po.max_iter = o->model_max_iter;
        if (rc == 0)
            rc = mk_predict(cfg, &t, &po, &p, e);
    }
    if (rc == 0) {
        const mk_bounds *b[VD_METRIC_COUNT] = {&p.pcie_write_hit, &p.pcie_read_hit, NULL};
        for (int m = 0; m < VD_METRIC_COUNT; m++) {
            out->model_lower[m] = b[m] ? b[m]->lower : NAN;
            out->model_upper[m] = b[m] ? b[m]->upper : NAN;
            out->model_mean[m] = b[m] ? b[m]->mean : NAN;
            out->model_est[m] = b[m] ? b[m]->estimate : NAN;
        }
        memcpy(out->model_queue, qr.mean, sizeof out->model_queue);
        out->model_gbps = qr.accepted_pps * t.mean * 8 / 1e9;
        out->model_mpps = qr.accepted_pps / 1e6;
        double held = (qr.mean[Q_RX] + qr.mean[Q_TX] + qr.mean[Q_SW]) * (double)S + qr.nic_held;
        out->model_latency_us = qr.accepted_pps > 0 ? held / qr.accepted_pps * 1e6 : NAN;
        out->model_mem_read_bpp = p.mem_read_bytes_per_pkt.estimate;
        out->model_mem_write_bpp = p.mem_write_bytes_per_pkt.estimate;
        out->model_mem_gbps = p.mem_gbps.estimate;
        out->model_mem_write_gbps = p.mem_write_bytes_per_pkt.estimate * qr.accepted_pps / 1e9;
        out->model_drop_rate = qr.offered_pps > 0 ? 1 - qr.accepted_pps / qr.offered_pps : 0;
        out->model_footprint_bytes = p.footprint_bytes.estimate;
    }
    qest_result_free(&qr);
    mk_traffic_free(&t);
    return rc;
}

/* Every figure of an outcome, for the mean over placements: the scalars,
 * then the arrays, each as (pointer, count).  A new field of
 * runner_outcome is listed here (outcome_fields_cover asserts the count). */
static size_t outcome_fields(runner_outcome *x, double **f, size_t *n, size_t max)
{
    size_t k = 0;
#define ARR(a) (f[k] = (a), n[k] = sizeof(a) / sizeof *(a), k++)
#define ONE(v) (f[k] = &(v), n[k] = 1, k++)
    ARR(x->sim);
    ARR(x->sim_data);
    ARR(x->sim_queue);
    ONE(x->sim_gbps);
    ONE(x->sim_drop_rate);
    ONE(x->sim_mpps);
    ONE(x->sim_latency_us);
    ONE(x->sim_mem_read_bpp);
    ONE(x->sim_mem_write_bpp);
    ONE(x->sim_mem_gbps);
    ONE(x->sim_mem_write_gbps);
    ARR(x->sim_llc_lines);
    ARR(x->model_lower);
    ARR(x->model_upper);
    ARR(x->model_mean);
    ARR(x->model_est);
    ARR(x->model_queue);
    ONE(x->model_gbps);
    ONE(x->model_mpps);
    ONE(x->model_latency_us);
    ONE(x->model_mem_read_bpp);
    ONE(x->model_mem_write_bpp);
    ONE(x->model_mem_gbps);
    ONE(x->model_mem_write_gbps);
    ONE(x->model_drop_rate);
    ONE(x->model_footprint_bytes);
#undef ARR
#undef ONE
    assert(k <= max);
    (void)max;
    return k;
}

/* The doubles of runner_outcome are all listed by outcome_fields: the
 * struct holds them, `failed`, `err` and `sim_settled`, and padding. */
#ifndef NDEBUG
static void outcome_fields_cover(void)
{
    runner_outcome x;
    double *f[64];
    size_t n[64], total = 0, k = outcome_fields(&x, f, n, 64);
    for (size_t i = 0; i < k; i++)
        total += n[i];
    assert(total * sizeof(double) + sizeof x.failed + sizeof x.err + sizeof x.sim_settled <= sizeof x &&
           sizeof x - total * sizeof(double) - sizeof x.err <= 16 && "a runner_outcome field outcome_fields misses");
    (void)total;
}
#endif

/* One placement: the point at seed d->seed (runner_point's body). */
static int point_once(const runner_job *j, const runner_opts *o, uint64_t seed, runner_outcome *out)
{
    memset(out, 0, sizeof *out);
    for (int m = 0; m < VD_METRIC_COUNT; m++)
        out->sim[m] = out->model_lower[m] = out->model_upper[m] = out->model_mean[m] = out->model_est[m] = NAN;
    out->sim_data[0] = out->sim_data[1] = out->sim_gbps = out->sim_drop_rate = NAN;
    out->sim_mpps = out->sim_latency_us = out->model_mpps = out->model_latency_us = NAN;
    out->sim_mem_read_bpp = out->sim_mem_write_bpp = out->sim_mem_gbps = out->sim_mem_write_gbps = NAN;
    out->model_mem_write_gbps = out->model_drop_rate = NAN;
    for (int g = 0; g < REG_COUNT; g++)
        out->sim_llc_lines[g] = NAN;
    for (int q = 0; q < Q_COUNT; q++)
        out->sim_queue[q] = out->model_queue[q] = NAN;
    out->model_gbps = out->model_mem_read_bpp = out->model_mem_write_bpp = out->model_mem_gbps = NAN;
    out->model_footprint_bytes = NAN;
    ddio_config *cfg = malloc(sizeof *cfg);
    dsim_options d;
    char profile[32];
    int rc = -1;
    if (!cfg)
        ddio_errf(&out->err, DDIO_EXIT_IO, "out of memory");
    else if (runner_job_config(j, o, cfg, &d, profile, sizeof profile, &out->err) == 0) {
        d.seed = seed;
        rc = ((o->engines & RUNNER_ENGINE_SIM) && run_sim(cfg, &d, out, &out->err) != 0) ||
                     ((o->engines & RUNNER_ENGINE_MODEL) && run_model(cfg, &d, o, out, &out->err) != 0)
                 ? -1
                 : 0;
    }
    free(cfg);
    out->failed = rc != 0;
    return rc;
}

int runner_point(const runner_job *j, const runner_opts *o, runner_outcome *out)
{
    const uint32_t K = o->seeds > 1 ? o->seeds : 1;
    if (K == 1)
        return point_once(j, o, o->seed, out);
#ifndef NDEBUG
    outcome_fields_cover();
#endif
    /* The mean over placements, in seed order (the same sums whichever
     * thread runs the point); settled only if every run settled. */
    runner_outcome *one = malloc(sizeof *one);
    if (!one) {
        memset(out, 0, sizeof *out);
        out->failed = 1;
        return ddio_errf(&out->err, DDIO_EXIT_IO, "out of memory");
    }
    double *fs[64], *fo[64];
    size_t ns[64], no[64];
    int rc = 0;
    for (uint32_t k = 0; k < K && rc == 0; k++) {
        rc = point_once(j, o, o->seed + k, k ? one : out);
        if (rc != 0) {
            if (k)
                *out = *one;   /* its error */
            break;
        }
        if (!k)
            continue;
        size_t m = outcome_fields(out, fs, ns, 64);
        outcome_fields(one, fo, no, 64);
        for (size_t i = 0; i < m; i++)
            for (size_t t = 0; t < ns[i]; t++)
                fs[i][t] += fo[i][t];
        out->sim_settled = out->sim_settled && one->sim_settled;
    }
    if (rc == 0) {
        size_t m = outcome_fields(out, fs, ns, 64);
        for (size_t i = 0; i < m; i++)
            for (size_t t = 0; t < ns[i]; t++)
                fs[i][t] /= K;
    }
    free(one);
    return rc;
}

/* ------------------------------------------------------------ threads */

typedef struct pool {
    pthread_mutex_t lock;
    size_t next, n;
    const size_t *order;        /* the order points are handed out in */
    const runner_job *job;
    const runner_opts *o;
    runner_outcome *out;
    int failed;
    size_t done;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t k = p->next < p->n ? p->order[p->next++] : SIZE_MAX;
        pthread_mutex_unlock(&p->lock);
        if (k == SIZE_MAX)
            return NULL;
        int bad = runner_point(&p->job[k], p->o, &p->out[k]) != 0;
        pthread_mutex_lock(&p->lock);
        p->failed += bad;
        p->done++;
        if (p->o->progress)
            p->o->progress(p->o->progress_ctx, p->o->progress_phase, p->o->progress_base + p->done,
                           p->o->progress_total ? p->o->progress_total : p->n);
        pthread_mutex_unlock(&p->lock);
    }
}

/* A point's cost grows with its cores (each simulated packet then touches
 * more queues); starting the costly points first keeps the last thread
 * from finishing long after the others.  Only the order work is handed
 * out in changes, never a result. */
static double cost(const runner_job *j)
{
    for (uint32_t i = 0; i < j->n_params; i++)
        if (strcmp(j->param[i].name, "cores") == 0 && !j->param[i].text[0])
            return j->param[i].value;
    return 1;
}

int runner_job_uses_trace(const runner_job *j)
{
    for (uint32_t i = 0; i < j->n_params; i++)
        if (strcmp(j->param[i].name, "pkt_size") == 0)
            return 0;
    return 1;
}

const runner_opts *runner_parse_trace(const runner_opts *o, int needed, runner_opts *copy, pktsrc_trace *t)
{
    memset(t, 0, sizeof *t);
    if (!needed || o->parsed || !o->trace || !o->trace[0])
        return o;
    const dsim_source src = {.trace = o->trace};
    ddio_err e;
    if (pktsrc_trace_load(t, &src, &e) != 0 || !t->mem)
        return o;
    *copy = *o;
    copy->parsed = t;
    return copy;
}

int runner_all(const runner_job *job, size_t n, const runner_opts *o, runner_outcome *out, ddio_err *e)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    int T = o->jobs < 1 ? 1 : o->jobs;
    if ((size_t)T > n)
        T = n ? (int)n : 1;
    pthread_t *tid = malloc((size_t)T * sizeof *tid);
    if (!order || !tid) {
        free(order);
        free(tid);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {   /* insertion sort by cost, descending, stable */
        size_t k = i;
        while (k > 0 && cost(&job[order[k - 1]]) < cost(&job[i])) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    int on_trace = 0;
    for (size_t i = 0; i < n && !on_trace; i++)
        on_trace = runner_job_uses_trace(&job[i]);
    runner_opts own;
    pktsrc_trace parsed;
    o = runner_parse_trace(o, on_trace, &own, &parsed);
    pool p = {.next = 0, .n = n, .order = order, .job = job, .o = o, .out = out, .failed = 0, .done = 0};
    pthread_mutex_init(&p.lock, NULL);
    int started = 0, rc = 0;
    for (int t = 1; t < T; t++) {
        if (pthread_create(&tid[t], NULL, worker, &p) != 0)
            break;
        started++;
    }
    worker(&p);   /* the calling thread works too */
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&p.lock);
    rc = p.failed;
    pktsrc_trace_free(&parsed);
    free(order);
    free(tid);
    return rc;
}

/* ------------------------------------------------------------ streaming */

typedef struct slot {
    runner_job job;
    vd_param param[VD_MAX_PARAMS];
    runner_outcome out;
    int state;                  /* 0 free, 1 taken, 2 done */
    int job_failed;             /* job_of failed: out.err says why */
} slot;

typedef struct stream {
    pthread_mutex_t lock;
    pthread_cond_t done, space;
    size_t n, window, next, emitted;
    int stop;
    slot *s;
    const runner_opts *o;
    runner_job_fn job_of;
    void *ctx;
    /* The points' trace, parsed when the first point that runs on it
     * comes (under `lock`): o with it lent, or o; NULL before. */
    runner_opts own;
    pktsrc_trace parsed;
    const runner_opts *lent;
} stream;

/* The options a stream's point `j` runs with: the first point on the
 * trace parses it for every later one (runner_parse_trace). */
static const runner_opts *stream_opts(stream *st, const runner_job *j)
{
    if (!runner_job_uses_trace(j))
        return st->o;
    pthread_mutex_lock(&st->lock);
    if (!st->lent)
        st->lent = runner_parse_trace(st->o, 1, &st->own, &st->parsed);
    const runner_opts *o = st->lent;
    pthread_mutex_unlock(&st->lock);
    return o;
}

static void *stream_worker(void *arg)
{
    stream *st = arg;
    for (;;) {
        pthread_mutex_lock(&st->lock);
        while (!st->stop && st->next < st->n && st->next >= st->emitted + st->window)
            pthread_cond_wait(&st->space, &st->lock);
        if (st->stop || st->next >= st->n) {
            pthread_mutex_unlock(&st->lock);
            return NULL;
        }
        size_t i = st->next++;
        slot *sl = &st->s[i % st->window];
        sl->state = 1;
        pthread_mutex_unlock(&st->lock);
        memset(&sl->out, 0, sizeof sl->out);
        sl->job_failed = st->job_of(i, st->ctx, &sl->job, sl->param, &sl->out.err) != 0;
        if (!sl->job_failed)
            runner_point(&sl->job, stream_opts(st, &sl->job), &sl->out);
        pthread_mutex_lock(&st->lock);
        sl->state = 2;
        pthread_cond_broadcast(&st->done);
        pthread_mutex_unlock(&st->lock);
    }
}

int runner_stream(size_t n, const runner_opts *o, size_t window, runner_job_fn job_of, runner_emit_fn emit, void *ctx,
                  ddio_err *e)
{
    int T = o->jobs < 1 ? 1 : o->jobs;
    if (window < (size_t)T)
        window = (size_t)T;
    stream st = {.n = n, .window = window, .o = o, .job_of = job_of, .ctx = ctx};
    st.s = calloc(window, sizeof *st.s);
    pthread_t *tid = malloc((size_t)T * sizeof *tid);
    if (!st.s || !tid) {
        free(st.s);
        free(tid);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    pthread_mutex_init(&st.lock, NULL);
    pthread_cond_init(&st.done, NULL);
    pthread_cond_init(&st.space, NULL);
    int started = 0, rc = 0;
    for (int t = 0; t < T; t++) {
        if (pthread_create(&tid[t], NULL, stream_worker, &st) != 0)
            break;
        started++;
    }
    if (!started)
        rc = ddio_errf(e, DDIO_EXIT_IO, "cannot start a worker thread");
    for (size_t i = 0; i < n && rc == 0; i++) {
        slot *sl = &st.s[i % window];
        pthread_mutex_lock(&st.lock);
        while (sl->state != 2)
            pthread_cond_wait(&st.done, &st.lock);
        pthread_mutex_unlock(&st.lock);
        if (sl->job_failed) {
            *e = sl->out.err;
            rc = -1;
        } else if (emit(i, &sl->job, &sl->out, ctx, e) != 0) {
            rc = -1;
        }
        pthread_mutex_lock(&st.lock);
        sl->state = 0;
        st.emitted++;
        if (rc != 0)
            st.stop = 1;
        pthread_cond_broadcast(&st.space);
        pthread_mutex_unlock(&st.lock);
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_cond_destroy(&st.done);
    pthread_cond_destroy(&st.space);
    pthread_mutex_destroy(&st.lock);
    pktsrc_trace_free(&st.parsed);
    free(st.s);
    free(tid);
    return rc;
}
