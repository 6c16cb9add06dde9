/* predict.h - `ddiosim predict` below the CLI: turn a machine + workload
 * configuration, a traffic description and queue lengths into the model's
 * parameters (line classes, regions, reuse-distance inputs), run the
 * variants of Wang, Xu, Wu, SIGMETRICS 2022 (basic, per-line D.3, per-core D.2) for the LRU lower
 * and the BIP / QLRU upper bound, and combine the results. */
#ifndef DDIOSIM_MARKOV_PREDICT_H
#define DDIOSIM_MARKOV_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "configs/config.h"
#include "sim/common/err.h"
#include "sim/markov/model.h"
#include "sim/queue/dsim.h"

enum mk_variant { MK_VARIANT_BASIC = 0, MK_VARIANT_PER_LINE, MK_VARIANT_PER_CORE };

const char *mk_variant_name(enum mk_variant v);
int mk_parse_variant(const char *s, enum mk_variant *out, ddio_err *e);

/* Traffic as the model sees it: a frame-size distribution, per-core shares,
 * the burstiness of arrivals. */
typedef struct mk_traffic {
    size_t n_sizes;
    uint32_t *size;         /* frame bytes, ascending */
    double *weight;         /* probabilities, sum 1 */
    double mean;            /* mean frame bytes */
    uint32_t cores;
    double *share;          /* per-core share of the packets (sum 1) */
    double ca2;             /* arrival SCV: 0 for the fixed-size generator (CBR), else 1 */
    double burst;           /* packets of a flow in a row (the generator's --flow-burst); 0, 1: none.
                               The model then spreads each wait's reuse distance (mk_params.burst) */
    uint64_t packets;       /* packets read to build it */
    double oversize;        /* share of the packets dropped by mk_traffic_fit */
    uint64_t reordered;     /* a trace: packets stamped before their predecessor (clamped by the
                               reader, as the simulator sees them: trace_reader_next) */
} mk_traffic;

/* One fixed size, equal shares, constant bit rate. */
int mk_traffic_fixed(mk_traffic *t, uint32_t pkt_size, uint32_t cores, ddio_err *e);
/* From a pcap trace or a generator profile (at most max_packets packets,
 * 0 = the whole trace / 100 000 generated), shares by the simulator's RSS.
 * `src` (trace or profile, flows, keep_all), pkt_size and seed read the
 * packets as the simulator's run with the same options does (dsim_run), so
 * the model sees its traffic: --flows changes the per-core shares, --all
 * the sizes. */
int mk_traffic_from_source(mk_traffic *t, const dsim_source *src, uint32_t pkt_size, uint64_t seed, uint32_t cores,
                           uint64_t max_packets, ddio_err *e);
/* Drop the sizes larger than `data_room`, which the simulator's NIC drops
 * (one buffer per frame, no scatter: dsim_nic.c), and renormalise the
 * weights and the mean; the per-core shares stay those of every packet.
 * The traffic is untouched when every size fits.  -1 (exit 2) when none
 * does. */
int mk_traffic_fit(mk_traffic *t, uint32_t data_room, ddio_err *e);
void mk_traffic_free(mk_traffic *t);

/* lower: the LRU chain; upper: the BIP or QLRU chain; mean: their midpoint
 * (the paper's figure); estimate: the point estimate the machine's
 * llc.model_estimate names (mk_estimate_of). */
typedef struct mk_bounds {
    double lower, upper, mean, estimate;
} mk_bounds;

typedef struct mk_predict_opts {
    enum mk_variant variant;
    mk_policy upper;        /* BIP or QLRU */
    const double *queues;       /* cores x Q_COUNT (dsim order) per-core mean lengths */
    const double *inflight;     /* cores x 2 (qest.h): moved from RX to RX Replenish and from TX
                                   to TX Recycle, or NULL */
    double idle;                /* idle-pool (mempool) wait of a buffer, packets; 0 by default */
    double pps;                 /* accepted packets/s of the whole system (for GB/s); 0 = unknown */
    int per_queue, count_read_refs, eigen;
    double tol, damping;
    int max_iter;
    int cold;                   /* per-core: start every core's fixed point from memory instead of
                                   the previous core's (warm start, the default); for tests */
    uint64_t seed;              /* the simulator's seed: the LLC mapping's (random, skx18 frames); 1 */
    int random_sets;            /* 1: the paper's uniform random set mapping whatever the machine's
                                   (0, default: the machine's mapping through setmap.h) */
} mk_predict_opts;

void mk_predict_opts_default(mk_predict_opts *o);

typedef struct mk_prediction {
    mk_bounds pcie_write_hit, pcie_read_hit, cpu_first_hit;
    mk_bounds mem_read_bytes_per_pkt, mem_write_bytes_per_pkt, mem_gbps;
    mk_bounds footprint_bytes;      /* all cores */
    int iterations;                 /* the largest of all solves */
    double residual;
    double solve_seconds;
    int solves;                     /* chains solved (variants x bounds) */
    mk_result lower, upper;         /* core 0 (per-core: the busiest core), for --explain */
    size_t n_classes;
} mk_prediction;

/* The upper-bound chain of the machine's LLC policy, as the policy table
 * says (sim/cache/repl.h, repl_model_bound: srrip, drrip and the QLRU family
 * QLRU; lru, bip, brrip, dip BIP; a duel its first member's), into *out;
 * -1 with a one-line error for a policy that names none. */
int mk_upper_policy(const ddio_machine *m, mk_policy *out, ddio_err *e);

/* The bound llc.model_estimate names, EST_POLICY resolved: EST_LOWER for an
 * lru LLC (the LRU chain is that policy), else EST_MEAN; never EST_POLICY. */
enum model_estimate mk_estimate_of(const ddio_machine *m);

/* Regions of the machine (core class of core 0). */
void mk_geom_from_machine(const ddio_machine *m, mk_geom *g);

/* Line classes of the workload for the basic model (one packet size) or the
 * per-line model (a size distribution).  *out malloc'ed. */
int mk_classes_basic(const ddio_config *cfg, uint32_t pkt_size, mk_class **out, size_t *n, ddio_err *e);
int mk_classes_per_line(const ddio_config *cfg, const mk_traffic *t, mk_class **out, size_t *n, ddio_err *e);

int mk_predict(const ddio_config *cfg, const mk_traffic *t, const mk_predict_opts *o, mk_prediction *out,
               ddio_err *e);

/* The cross-check of `ddiosim simulate`: the model (basic variant, the
 * machine's policy bounds) for the queue lengths, in-flight split and packet
 * rate a simulator run with `seed` measured. */
int mk_predict_for_sim(const ddio_config *cfg, const mk_traffic *t, const dsim_result *r, uint64_t seed,
                       mk_prediction *out, ddio_err *e);

#endif
