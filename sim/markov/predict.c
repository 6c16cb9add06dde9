/* predict.c - configuration + traffic + queue lengths -> the model's
 * parameters, the variants, the bounds (see predict.h, docs/model.md). */
#include "sim/markov/predict.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/markov/setmap.h"
#include "sim/queue/pktsrc.h"
#include "traces/rss.h"

const char *mk_variant_name(enum mk_variant v)
{
    static const char *names[] = {"basic", "per-line", "per-core"};
    return (unsigned)v <= MK_VARIANT_PER_CORE ? names[v] : "?";
}

int mk_parse_variant(const char *s, enum mk_variant *out, ddio_err *e)
{
    for (int v = 0; v <= MK_VARIANT_PER_CORE; v++)
        if (strcmp(s, mk_variant_name((enum mk_variant)v)) == 0) {
            *out = (enum mk_variant)v;
            return 0;
        }
    return ddio_errf(e, DDIO_EXIT_USAGE, "--model: '%s' is not one of basic, per-line, per-core", s);
}

/* ------------------------------------------------------------ traffic */

void mk_traffic_free(mk_traffic *t)
{
    free(t->size);
    free(t->weight);
    free(t->share);
    memset(t, 0, sizeof *t);
}

int mk_traffic_fixed(mk_traffic *t, uint32_t pkt_size, uint32_t cores, ddio_err *e)
{
    memset(t, 0, sizeof *t);
    t->size = malloc(sizeof *t->size);
    t->weight = malloc(sizeof *t->weight);
    t->share = calloc(cores ? cores : 1, sizeof *t->share);
    if (!t->size || !t->weight || !t->share) {
        mk_traffic_free(t);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    t->n_sizes = 1;
    t->size[0] = pkt_size;
    t->weight[0] = 1;
    t->mean = pkt_size;
    t->cores = cores;
    for (uint32_t i = 0; i < cores; i++)
        t->share[i] = 1.0 / cores;
    t->ca2 = 0;
    return 0;
}

int mk_traffic_fit(mk_traffic *t, uint32_t data_room, ddio_err *e)
{
    double kept = 0;
    size_t k = 0;
    for (size_t i = 0; i < t->n_sizes; i++)
        if (t->size[i] <= data_room)
            kept += t->weight[i];
    if (kept == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "every frame is larger than the data room (%u B; workload.driver.data_room): the NIC drops "
                         "them all (one buffer per frame, no scatter)", data_room);
    if (t->size[t->n_sizes - 1] <= data_room)
        return 0;   /* sizes ascend: all fit, the traffic stays as it was */
    t->oversize = 1 - kept;
    t->mean = 0;
    for (size_t i = 0; i < t->n_sizes; i++)
        if (t->size[i] <= data_room) {
            t->size[k] = t->size[i];
            t->weight[k] = t->weight[i] / kept;
            t->mean += t->size[k] * t->weight[k];
            k++;
        }
    t->n_sizes = k;
    return 0;
}

#define MAX_FRAME 9216u

int mk_traffic_from_source(mk_traffic *t, const dsim_source *from, uint32_t pkt_size, uint64_t seed, uint32_t cores,
                           uint64_t max_packets, ddio_err *e)
{
    memset(t, 0, sizeof *t);
    const char *trace = from->trace, *profile = from->profile;
    pktsrc src;
    memset(&src, 0, sizeof src);
    rss r;
    if (rss_init(&r, NULL, 0, cores, 128, e) != 0)
        return -1;
    if (pktsrc_open(&src, from, max_packets, 0, 100, pkt_size, seed, e) != 0)
        return -1;
    double *hist = calloc(MAX_FRAME + 1, sizeof *hist);
    double *cnt = calloc(cores, sizeof *cnt);
    if (!hist || !cnt) {
        free(hist);
        free(cnt);
        pktsrc_close(&src);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    pktsrc_pkt p;
    int rc;
    uint64_t n = 0;
    while ((rc = pktsrc_next(&src, &p, e)) == 1) {
        uint32_t len = p.len > MAX_FRAME ? MAX_FRAME : p.len;
        hist[len] += 1;
        uint32_t q = 0;
        if (cores > 1 && p.has_tuple) {
            q = rss_queue(&r, pktsrc_rss_hash(&r, &p));
        }
        cnt[q] += 1;
        if (++n >= (max_packets ? max_packets : UINT64_MAX))
            break;
    }
    t->reordered = src.reordered;
    pktsrc_close(&src);
    if (rc < 0 || n == 0) {
        free(hist);
        free(cnt);
        return rc < 0 ? -1 : ddio_errf(e, DDIO_EXIT_USAGE, "%s: no packets", trace ? trace : profile);
    }
    size_t k = 0;
    for (uint32_t s = 0; s <= MAX_FRAME; s++)
        k += hist[s] > 0;
    t->size = malloc(k * sizeof *t->size);
    t->weight = malloc(k * sizeof *t->weight);
    t->share = cnt;
    if (!t->size || !t->weight) {
        free(hist);
        mk_traffic_free(t);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (uint32_t s = 0; s <= MAX_FRAME; s++)
        if (hist[s] > 0) {
            t->size[t->n_sizes] = s;
            t->weight[t->n_sizes++] = hist[s] / (double)n;
            t->mean += s * hist[s] / (double)n;
        }
    free(hist);
    t->cores = cores;
    for (uint32_t i = 0; i < cores; i++)
        t->share[i] /= (double)n;
    t->packets = n;
    t->ca2 = (!trace && profile && strncmp(profile, "fixed", 5) == 0) ? 0 : 1;
    t->burst = trace ? 0 : from->flow_burst;
    return 0;
}

/* ------------------------------------------------------------ parameters */

int mk_upper_policy(const ddio_machine *m, mk_policy *out, ddio_err *e)
{
    /* The policy table says (repl_ops.model_bound): a policy whose module
     * names no chain is refused, never lent BIP's. */
    switch (repl_model_bound(m->llc.policy)) {
    case REPL_BOUND_BIP:
        *out = MK_BIP;
        return 0;
    case REPL_BOUND_QLRU:
        *out = MK_QLRU;
        return 0;
    case REPL_BOUND_NONE:
        break;
    }
    return ddio_errf(e, DDIO_EXIT_USAGE,
                     "llc.policy: the model has no upper bound for '%s' (its module names no model_bound; "
                     "choose one with predict --upper bip|qlru)", m->llc.policy);
}

enum model_estimate mk_estimate_of(const ddio_machine *m)
{
    if (m->llc.model_estimate != EST_POLICY)
        return m->llc.model_estimate;
    return strcmp(m->llc.policy, "lru") == 0 ? EST_LOWER : EST_MEAN;
}

static uint64_t core_mask(const ddio_machine *m)
{
    uint32_t cls = m->n_core_class > 0 ? m->core_class[0] : 0;
    return m->cat_class[cls];
}

void mk_geom_from_machine(const ddio_machine *m, mk_geom *g)
{
    memset(g, 0, sizeof *g);
    double sets = (double)m->llc.slices * m->llc.sets_per_slice;
    uint64_t cm = core_mask(m), io = m->ddio_mask | m->shared_mask;
    g->ddio = (mk_region){sets, (unsigned)__builtin_popcountll(m->ddio_mask), MK_LRU, 0, NULL};
    g->shared = (mk_region){sets, (unsigned)__builtin_popcountll(m->shared_mask), MK_LRU, 0, NULL};
    g->l3 = (mk_region){sets, (unsigned)__builtin_popcountll(cm & ~io), MK_LRU, 0, NULL};
    g->l2 = (mk_region){m->l2.sets, m->l2.ways, MK_LRU, 0, NULL};
    g->eq4 = MK_EQ4_EXACT;
    if (cm & m->ddio_mask) {
        /* Appendix D.1: the core's fills may land in the DDIO ways. */
        g->overlap = 1;
        g->all_ways = (unsigned)__builtin_popcountll(cm | m->ddio_mask);
        g->ddio_ways = g->ddio.ways;
    }
}

static void region_policy(mk_geom *g, mk_policy p)
{
    g->ddio.policy = g->shared.policy = g->l3.policy = p;
}

/* Op sequence of each line of one packet. */
typedef struct line_ops {
    uint8_t n;
    uint8_t op[MK_MAX_OPS];
} line_ops;

static int packet_lines(const ddio_config *cfg, uint32_t len, line_ops **out, uint32_t *lines, uint32_t *first,
                        uint32_t *partial_mask_first, uint32_t *partial_last, ddio_err *e)
{
    const ddio_workload *w = &cfg->workload;
    uint32_t ls = cfg->machine.llc.line_size, fb = w->driver.headroom % ls;
    uint32_t nl = (fb + len + ls - 1) / ls;
    line_ops *lo = calloc(nl ? nl : 1, sizeof *lo);
    ddio_line_op *ops = malloc(4096 * sizeof *ops);   /* expand fills what it returns */
    if (!lo || !ops) {
        free(lo);
        free(ops);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    *first = UINT32_MAX;
    if (w->mode == DDIO_MODE_SEND) {
        for (uint32_t i = 0; i < nl; i++) {
            lo[i].n = 1;
            lo[i].op[0] = DDIO_SEG_WRITE;
        }
        *first = 0;
    } else {
        size_t n = ddio_packet_ops(&cfg->machine, w, len, ls, fb, ops, 4096);
        for (size_t i = 0; i < n && i < 4096; i++) {
            if (ops[i].line >= nl)
                continue;
            line_ops *l = &lo[ops[i].line];
            if (l->n >= MK_MAX_OPS) {
                free(lo);
                free(ops);
                return ddio_errf(e, DDIO_EXIT_USAGE, "model: more than %d operations on one packet line", MK_MAX_OPS);
            }
            l->op[l->n++] = ops[i].op;
            if (*first == UINT32_MAX && ops[i].op != DDIO_SEG_FLUSH)
                *first = ops[i].line;
        }
    }
    free(ops);
    *out = lo;
    *lines = nl;
    *partial_mask_first = fb != 0;
    *partial_last = (fb + len) % ls != 0;
    return 0;
}

static int same_ops(const line_ops *a, const mk_class *c)
{
    return a->n == c->nops && memcmp(a->op, c->ops, a->n) == 0;
}

/* Add (offset j when per_line, else any) lines with ops `lo` to the classes. */
static int add_line(mk_class **cls, size_t *n, size_t *cap, size_t base, const line_ops *lo, double w, double used,
                    double partial, double first, ddio_err *e)
{
    for (size_t i = base; i < *n; i++)
        if (same_ops(lo, &(*cls)[i])) {
            mk_class *c = &(*cls)[i];
            c->partial = (c->partial * c->weight + partial * w) / (c->weight + w);
            c->weight += w;
            c->first += first;
            return 0;
        }
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        mk_class *p = realloc(*cls, nc * sizeof *p);
        if (!p)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        *cls = p;
        *cap = nc;
    }
    mk_class *c = &(*cls)[(*n)++];
    memset(c, 0, sizeof *c);
    c->weight = w;
    c->used = used;
    c->partial = partial;
    c->first = first;
    c->nops = lo->n;
    memcpy(c->ops, lo->op, lo->n);
    return 0;
}

int mk_classes_basic(const ddio_config *cfg, uint32_t pkt_size, mk_class **out, size_t *n, ddio_err *e)
{
    line_ops *lo;
    uint32_t nl, first, pf, pl;
    *out = NULL;
    *n = 0;
    if (packet_lines(cfg, pkt_size, &lo, &nl, &first, &pf, &pl, e) != 0)
        return -1;
    size_t cap = 0;
    for (uint32_t j = 0; j < nl; j++) {
        double part = (j == 0 && pf) || (j + 1 == nl && pl);
        if (add_line(out, n, &cap, 0, &lo[j], 1.0, 1.0, part, j == first, e) != 0) {
            free(lo);
            return -1;
        }
    }
    free(lo);
    return 0;
}

int mk_classes_per_line(const ddio_config *cfg, const mk_traffic *t, mk_class **out, size_t *n, ddio_err *e)
{
    *out = NULL;
    *n = 0;
    uint32_t ls = cfg->machine.llc.line_size, fb = cfg->workload.driver.headroom % ls;
    uint32_t maxl = 0;
    for (size_t s = 0; s < t->n_sizes; s++) {
        uint32_t nl = (fb + t->size[s] + ls - 1) / ls;
        if (nl > maxl)
            maxl = nl;
    }
    line_ops **all = calloc(t->n_sizes, sizeof *all);
    uint32_t *nls = calloc(t->n_sizes, sizeof *nls), *firsts = calloc(t->n_sizes, sizeof *firsts);
    uint32_t *pfs = calloc(t->n_sizes, sizeof *pfs), *pls = calloc(t->n_sizes, sizeof *pls);
    int rc = -1;
    if (!all || !nls || !firsts || !pfs || !pls) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    for (size_t s = 0; s < t->n_sizes; s++)
        if (packet_lines(cfg, t->size[s], &all[s], &nls[s], &firsts[s], &pfs[s], &pls[s], e) != 0)
            goto out;
    size_t cap = 0;
    for (uint32_t j = 0; j < maxl; j++) {
        double d = 0;
        for (size_t s = 0; s < t->n_sizes; s++)
            d += nls[s] > j ? t->weight[s] : 0;
        if (d <= 0)
            continue;
        if (d > 1)
            d = 1;
        size_t base = *n;
        for (size_t s = 0; s < t->n_sizes; s++) {
            if (nls[s] <= j)
                continue;
            double part = (j == 0 && pfs[s]) || (j + 1 == nls[s] && pls[s]);
            if (add_line(out, n, &cap, base, &all[s][j], t->weight[s], d, part, firsts[s] == j ? t->weight[s] : 0,
                         e) != 0)
                goto out;
        }
    }
    rc = 0;
out:
    if (all)
        for (size_t s = 0; s < t->n_sizes; s++)
            free(all[s]);
    free(all);
    free(nls);
    free(firsts);
    free(pfs);
    free(pls);
    if (rc != 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------ prediction */

void mk_predict_opts_default(mk_predict_opts *o)
{
    memset(o, 0, sizeof *o);
    o->variant = MK_VARIANT_BASIC;
    o->upper = MK_BIP;
    o->count_read_refs = 1;
    o->tol = 1e-9;
    o->max_iter = 500;
    o->seed = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* From the LRU chain's value and the BIP / QLRU chain's.  Wang, Xu, Wu
 * call them the lower and upper bound of the hit rate, which holds while
 * the footprint overflows the ways; when it nearly fits, BIP's insertion
 * at the LRU position loses lines LRU keeps, and its chain falls below
 * LRU's.  So the bounds are the two chains' minimum and maximum, for every
 * quantity (memory bytes fall as hit rates rise), and the estimate names a
 * chain: `lower` the LRU one, `upper` the other (configs.md). */
static void set_bounds(mk_bounds *b, double lru, double other, enum model_estimate est)
{
    int none = isnan(lru) || isnan(other);   /* fmin would hide a NaN */
    b->lower = none ? NAN : fmin(lru, other);
    b->upper = none ? NAN : fmax(lru, other);
    b->mean = 0.5 * (lru + other);
    b->estimate = est == EST_LOWER ? lru : est == EST_UPPER ? other : b->mean;
    assert(none || (b->lower <= b->mean && b->mean <= b->upper));
}

static void tables_of(const ddio_workload *w, uint32_t ls, mk_tables *t)
{
    memset(t, 0, sizeof *t);
    double wf = 0;
    for (uint32_t i = 0; i < w->n_tables; i++) {
        const ddio_table *tb = &w->tables[i];
        double lines = tb->bytes / ls ? (double)(tb->bytes / ls) : 1;
        t->lines += lines;
        t->per_packet += tb->lines_per_packet;
        wf += tb->lines_per_packet * tb->write_fraction;
    }
    t->write_fraction = t->per_packet > 0 ? wf / t->per_packet : 0;
}

/* The set mapping's mixture over the buffers in circulation: per core its
 * whole cycle (the queues it is given, at least the RX ring, which the
 * driver keeps full), data lines of the packet's mean line count
 * (docs/model.md section 12).  mix->n = 0 when one buffer circulates. */
static int footprint_mix(const ddio_config *cfg, const mk_predict_opts *o, const mk_class *cls, size_t ncls,
                         mk_setmix *mix, ddio_err *e)
{
    const ddio_workload *w = &cfg->workload;
    double lines = 0;
    for (size_t c = 0; c < ncls; c++)
        lines += cls[c].weight;
    uint32_t *bufs = calloc(w->cores, sizeof *bufs);
    if (!bufs)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    uint64_t total = 0;
    for (uint32_t c = 0; c < w->cores; c++) {
        double L = o->idle;
        for (int q = 0; q < Q_COUNT; q++)
            L += o->queues[(size_t)c * Q_COUNT + q];
        long k = lround(L);
        bufs[c] = k > (long)w->driver.rx_ring ? (uint32_t)k : w->driver.rx_ring;
        total += bufs[c];
    }
    long nl = lround(lines);
    int rc = total < 2 ? 0 : mk_setmix_build(cfg, o->seed, bufs, nl > 1 ? (uint32_t)nl : 1, mix, e);
    free(bufs);
    return rc;
}

int mk_predict_for_sim(const ddio_config *cfg, const mk_traffic *t, const dsim_result *r, uint64_t seed,
                       mk_prediction *out, ddio_err *e)
{
    mk_predict_opts po;
    mk_predict_opts_default(&po);
    po.seed = seed;
    po.queues = r->queue_len;
    po.inflight = r->inflight;
    po.pps = r->mpps * 1e6;
    if (mk_upper_policy(&cfg->machine, &po.upper, e))
        return -1;
    return mk_predict(cfg, t, &po, out, e);
}

int mk_predict(const ddio_config *cfg, const mk_traffic *t, const mk_predict_opts *o, mk_prediction *out,
               ddio_err *e)
{
    memset(out, 0, sizeof *out);
    const ddio_machine *m = &cfg->machine;
    const ddio_workload *w = &cfg->workload;
    uint32_t S = w->cores, ls = m->llc.line_size;
    if (!o->queues)
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: no queue lengths");
    mk_class *cls = NULL;
    size_t ncls = 0;
    int rc;
    if (o->variant == MK_VARIANT_BASIC)
        rc = mk_classes_basic(cfg, (uint32_t)lround(t->mean), &cls, &ncls, e);
    else
        rc = mk_classes_per_line(cfg, t, &cls, &ncls, e);
    if (rc != 0)
        return -1;
    out->n_classes = ncls;
    mk_params p;
    mk_params_default(&p);
    p.mode = m->hierarchy;
    mk_geom_from_machine(m, &p.geom);
    mk_setmix mix;
    memset(&mix, 0, sizeof mix);
    if (!o->random_sets && mk_mapping_mixed(m->llc.mapping)) {
        if (footprint_mix(cfg, o, cls, ncls, &mix, e) != 0) {
            free(cls);
            return -1;
        }
        if (mix.n)
            p.geom.ddio.mix = p.geom.shared.mix = p.geom.l3.mix = &mix;
    }
    p.path = w->mode == DDIO_MODE_RECEIVE ? MK_RX_ONLY : w->mode == DDIO_MODE_SEND ? MK_TX_ONLY : MK_FORWARD;
    p.classes = cls;
    p.n_classes = ncls;
    tables_of(w, ls, &p.tables);
    p.per_queue = o->per_queue;
    p.count_read_refs = o->count_read_refs;
    p.eigen = o->eigen;
    p.tol = o->tol;
    p.max_iter = o->max_iter;
    p.damping = o->damping;
    int per_core = o->variant == MK_VARIANT_PER_CORE;
    uint32_t runs = per_core ? S : 1;
    double lo[6] = {0}, up[6] = {0};   /* write, read, cpu, mem read, mem write, footprint */
    double t0 = now_s();
    double prevL[Q_MODEL_COUNT] = {0}, prevS = 0;
    static const mk_result zero_r;
    mk_result prev_r[2] = {zero_r, zero_r};
    mk_warm warm[2];
    mk_warm_init(&warm[0]);
    mk_warm_init(&warm[1]);
    uint32_t busiest = 0;
    for (uint32_t i = 0; i < S; i++)
        if (t->share && t->share[i] > t->share[busiest])
            busiest = i;
    /* Per-core: solve the cores in the order of their share, so that each
     * warm start comes from the nearest beta (and equal cores follow each
     * other). */
    uint32_t *ord = malloc((runs ? runs : 1) * sizeof *ord);
    if (!ord) {
        free(cls);
        mk_setmix_free(&mix);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (uint32_t i = 0; i < runs; i++) {
        uint32_t j = i;
        for (; j > 0 && per_core && t->share && t->share[ord[j - 1]] > t->share[i]; j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
    for (uint32_t nrun = 0; nrun < runs; nrun++) {
        uint32_t run = ord[nrun];
        double share = per_core ? (t->share ? t->share[run] : 1.0 / S) : 1.0;
        if (per_core && share <= 0)
            continue;
        memset(p.L, 0, sizeof p.L);
        for (int q = 0; q < Q_COUNT; q++) {
            if (per_core) {
                p.L[q] = o->queues[(size_t)run * Q_COUNT + q];
            } else {
                for (uint32_t c = 0; c < S; c++)
                    p.L[q] += o->queues[(size_t)c * Q_COUNT + q] / S;
            }
        }
        if (o->inflight) {
            /* The NIC writes a buffer when its DMA completes and reads it
             * when it fetches it: in-flight RX still waits for its write, an
             * in-flight TX buffer has been read. */
            for (uint32_t c = per_core ? run : 0; c < (per_core ? run + 1 : S); c++) {
                double k = per_core ? 1.0 : 1.0 / S;
                double rx = o->inflight[2 * c], tx = o->inflight[2 * c + 1];
                double qrx = o->queues[(size_t)c * Q_COUNT + Q_RX], qtx = o->queues[(size_t)c * Q_COUNT + Q_TX];
                rx = rx < qrx ? rx : qrx;
                tx = tx < qtx ? tx : qtx;
                p.L[Q_RX] -= k * rx;
                p.L[Q_RX_REPLENISH] += k * rx;
                p.L[Q_TX] -= k * tx;
                p.L[Q_TX_RECYCLE] += k * tx;
            }
            for (int q = 0; q < Q_MODEL_COUNT; q++)
                if (p.L[q] < 0)
                    p.L[q] = 0;
        }
        p.L[Q_IDLE] = o->idle;
        /* Appendix D.2: beta_i = sum t / t_i replaces S. */
        p.S = per_core ? 1.0 / share : S;
        p.burst = t->burst;
        /* Cores with the same share and queues have the same chains. */
        int same = nrun > 0 && memcmp(prevL, p.L, sizeof p.L) == 0 && prevS == p.S;
        memcpy(prevL, p.L, sizeof p.L);
        prevS = p.S;
        for (int b = 0; b < 2; b++) {
            mk_result r;
            if (same) {
                r = prev_r[b];
                goto accumulate;
            }
            region_policy(&p.geom, b == 0 ? MK_LRU : o->upper);
            p.policy = b == 0 ? MK_LRU : o->upper;
            /* Warm start (per-core): each bound from the same bound of the
             * previous core; the cores differ only in beta and queues. */
            if (mk_solve_warm(&p, per_core && !o->cold ? &warm[b] : NULL, &r, e) != 0) {
                free(ord);
                mk_warm_free(&warm[0]);
                mk_warm_free(&warm[1]);
                free(cls);
                mk_setmix_free(&mix);
                return -1;
            }
            out->solves++;
            if (r.iterations > out->iterations)
                out->iterations = r.iterations;
            if (r.residual > out->residual)
                out->residual = r.residual;
            prev_r[b] = r;
        accumulate:;
            double *acc = b == 0 ? lo : up;
            acc[0] += share * r.pcie_write_hit;
            acc[1] += share * r.pcie_read_hit;
            acc[2] += share * r.cpu_first_hit;
            acc[3] += share * r.mem_read_lines * ls;
            acc[4] += share * r.mem_write_lines * ls;
            acc[5] += r.footprint_lines * ls * (per_core ? 1.0 : S);
            if (run == (per_core ? busiest : 0)) {
                if (b == 0)
                    out->lower = r;
                else
                    out->upper = r;
            }
        }
    }
    out->solve_seconds = now_s() - t0;
    free(ord);
    mk_warm_free(&warm[0]);
    mk_warm_free(&warm[1]);
    free(cls);
    mk_setmix_free(&mix);
    enum model_estimate est = mk_estimate_of(&cfg->machine);
    set_bounds(&out->pcie_write_hit, lo[0], up[0], est);
    set_bounds(&out->pcie_read_hit, lo[1], up[1], est);
    set_bounds(&out->cpu_first_hit, lo[2], up[2], est);
    set_bounds(&out->mem_read_bytes_per_pkt, lo[3], up[3], est);
    set_bounds(&out->mem_write_bytes_per_pkt, lo[4], up[4], est);
    set_bounds(&out->mem_gbps, (lo[3] + lo[4]) * o->pps / 1e9, (up[3] + up[4]) * o->pps / 1e9, est);
    set_bounds(&out->footprint_bytes, lo[5], up[5], est);
    return 0;
}
