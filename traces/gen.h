/* gen.h - deterministic synthetic traces: fixed size, IMIX, and a MAWI-like mix.
 *
 * Every byte comes from the caller's seed (ddio_rng and ddio_mix64), never
 * from the clock: the same configuration writes the same file.  Frames are
 * real Ethernet/IPv4/UDP or TCP with valid IPv4 and L4 checksums.
 *
 * Sizes are frame lengths as a pcap stores them: Ethernet header to the end
 * of the payload, without the 4-byte FCS that NICs strip before DMA.  The
 * rate counts those bytes only, like Wang, Xu, Wu's (SIGMETRICS 2022) "71.8 Gb/s at
 * 14.9 Mpps" (= 603 B x 8 x 14.9 M); on the wire each frame also carries
 * FCS + preamble + inter-frame gap (24 B).  docs/traces.md has the details
 * and the published statistics behind the mawi profile. */
#ifndef DDIOSIM_TRACES_GEN_H
#define DDIOSIM_TRACES_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"
#include "sim/common/rng.h"

enum gen_profile { GEN_FIXED, GEN_IMIX, GEN_MAWI };

/* Frame sizes of fixed:SIZE and of simulate / predict --pkt-size: from the
 * least Ethernet frame without its FCS (pcap lengths have none) to a jumbo. */
#define GEN_MIN_FRAME 60u
#define GEN_MAX_FRAME 9000u
#define GEN_MAX_FLOWS (1u << 24)  /* mawi: flow i's source address holds a 24-bit permutation of i */
#define GEN_MAX_FLOW_BURST 65536u /* --flow-burst */
#define GEN_MAX_THREADS 64u       /* --gen-threads */
#define GEN_SRC_HOSTS 16u         /* fixed/imix: source addresses 10.0.0.1-10.0.0.16 */
#define GEN_MIN_SNAPLEN 54u       /* Ethernet + IPv4 + the TCP ports: the 5-tuple survives */
#define GEN_MAX_SNAPLEN 65535u
/* Every offered rate, Gb/s of frame bytes: simulate / predict --rate, trace
 * gen --rate, a "rate" in a sweep spec, advise query or experiment.json.
 * One rule for all (docs/simulator.md): gen_check_rate. */
#define GEN_MIN_RATE_GBPS 0.001
#define GEN_MAX_RATE_GBPS 10000.0
#define GEN_LINK_GBPS 100.0       /* mawi: link speed under the idle gaps (see gen.c) */
#define GEN_EPOCH_S 1554818400ull /* 2019-04-09 14:00 UTC, a MAWI samplepoint-F slot */

/* Flows: packet i is of flow i mod flows (round robin), or of a Zipf draw.
 * With `threads` and `flow_burst`, as a multi-threaded generator replaying
 * flows in bursts does: packet i comes from thread t = i mod threads, which
 * owns flows t, t + threads, ... and sends flow_burst packets of each in a
 * row (gen.c burst_flow). */
typedef struct gen_config {
    enum gen_profile profile;
    uint32_t fixed_size;    /* GEN_FIXED: frame bytes */
    uint64_t packets;
    double rate_gbps;       /* offered rate, frame bytes only (no FCS/preamble/IFG) */
    uint32_t flows;         /* 0: the profile's default */
    uint32_t flow_burst;    /* packets of a flow in a row, per thread (0 or 1: a new flow each packet) */
    uint32_t threads;       /* generator threads, each with its own flows, interleaved packet by
                               packet (0 or 1: one) */
    int random_tuples;      /* fixed/imix: 5-tuples hashed from the flow index (1), or the port and
                               address ranges of TRex / pktgen (0); mawi's are always hashed */
    double zipf;            /* flow popularity exponent; < 0: the profile's default */
    uint64_t seed;
    uint32_t snaplen;       /* bytes kept per record; 0: whole frames */
    int nano;               /* nanosecond (1) or microsecond (0) pcap timestamps */
} gen_config;

/* 0 when gbps is an offered rate in [GEN_MIN_RATE_GBPS, GEN_MAX_RATE_GBPS];
 * else -1 with "WHAT: X is out of range [0.001, 10000]" (WHAT: the option,
 * "--rate"), exit code 2. */
int gen_check_rate(double gbps, const char *what, ddio_err *e);

/* Defaults: 1000 packets at 10 Gb/s, seed 1, whole frames, ns timestamps. */
void gen_config_default(gen_config *c);
/* "fixed:SIZE", "imix" or "mawi"; `what` names the option in errors. */
int gen_parse_profile(const char *s, gen_config *c, const char *what, ddio_err *e);
const char *gen_profile_name(const gen_config *c, char *buf, size_t n);
/* "range" (0) or "random" (1) into *random_tuples; `what` names the option. */
int gen_parse_tuples(const char *s, int *random_tuples, const char *what, ddio_err *e);
/* Flows and Zipf exponent after defaults are applied. */
uint32_t gen_flows(const gen_config *c);
double gen_zipf(const gen_config *c);
/* Mean frame size of the profile's size distribution (exact, not sampled). */
double gen_mean_size(const gen_config *c);

/* Rejection-inversion Zipf sampler (Hoermann & Derflinger 1996): ranks
 * 1..n with P(k) ~ k^-s, O(1) memory whatever n. */
typedef struct gen_zipf_sampler {
    uint64_t n;
    double nd;      /* (double)n */
    double s, h_x1, h_n, sc;
    double exp2_tab[32];   /* 2^(j/32): the s = 1 draw's fast exp (gen.c zipf_fast_exp) */
} gen_zipf_sampler;
void gen_zipf_init(gen_zipf_sampler *z, uint64_t n, double s);
uint64_t gen_zipf_next(gen_zipf_sampler *z, ddio_rng *rng);
/* The sampler's inversion H^-1(u) for exponent s (exposed for tests). */
double gen_zipf_inverse(double s, double u);
/* The s = 1 draw's approximation of exp(u), for u in (-20, 13.8) (exposed
 * for tests: relative error below 2^-44). */
double gen_zipf_fast_exp(const gen_zipf_sampler *z, double u);

/* Streaming generator: one frame at a time, memory independent of length. */
typedef struct gen {
    gen_config c;
    ddio_rng rng;
    gen_zipf_sampler zipf;
    uint32_t flows;
    uint64_t salt;
    uint64_t i;             /* packets produced */
    double t_ns;            /* start of the next packet, relative to the epoch */
    uint64_t cum_bits;      /* CBR profiles: bits sent so far (timestamps without drift) */
    uint8_t imix_cycle[12]; /* IMIX: a shuffled block of 7x64, 4x570, 1x1518 */
    int no_tuple;           /* gen_next_meta: leave the 5-tuple out (gen_set_no_tuple) */
    int zipf_on;            /* flows drawn from `zipf` (exponent > 0), else round robin */
    int bursty;             /* flow_burst or threads above 1 (gen.c burst_flow) */
    uint32_t burst, threads;
    uint32_t cur_flow[GEN_MAX_THREADS];   /* Zipf with bursts: each thread's flow of its burst */
    uint8_t *tcp_cache;     /* gen_set_tcp_cache: per flow 0 unknown, 1 UDP, 2 TCP; NULL: none */
    uint8_t mawi_bin[1000]; /* mawi: size bin by the first draw (gen.c mawi_size) */
    uint8_t frame[GEN_MAX_FRAME];
} gen;

typedef struct gen_pkt {
    uint64_t ts_ns;
    uint32_t len;           /* frame length (wire length in the pcap) */
    uint32_t flow;          /* flow index, 0 = most popular */
    const uint8_t *frame;   /* len bytes, valid until the next gen_next() */
} gen_pkt;

int gen_init(gen *g, const gen_config *c, ddio_err *e);
/* 1: *p filled; 0: all c.packets produced. */
int gen_next(gen *g, gen_pkt *p);

/* The 5-tuple of a generated frame, as trace_parse_frame reads it back
 * (every generated frame is unfragmented IPv4 TCP or UDP). */
typedef struct gen_meta {
    uint32_t src_ip, dst_ip;    /* host byte order */
    uint16_t src_port, dst_port;
    uint8_t proto;
} gen_meta;

/* gen_next without the frame: the same packet sequence (sizes, flows,
 * timestamps, the random stream), p->frame NULL, the tuple in *m.  With
 * no_time the timestamps are not computed (p->ts_ns 0, g's clock does not
 * advance) for callers that ignore them; later packets are the same. */
int gen_next_meta(gen *g, gen_pkt *p, gen_meta *m, int no_time);
/* From now on gen_next_meta leaves the tuple out (all zero): the same
 * packets, lengths, flows and random stream, for a caller that ignores it. */
void gen_set_no_tuple(gen *g, int on);
/* Up to n packets of gen_next_meta at once into p[] and m[]: the same
 * packets, the same random draws; returns how many (0: all produced). */
uint32_t gen_next_meta_batch(gen *g, gen_pkt *p, gen_meta *m, uint32_t n, int no_time);
/* Without the tuple, a mawi packet still needs whether its flow is TCP (two
 * hashes); `cache`, `flows` zeroed bytes owned by the caller (NULL: none),
 * remembers it per flow.  The packets are the same. */
void gen_set_tcp_cache(gen *g, uint8_t *cache);
/* The 5-tuple of flow `flow` (< flows): a pure function of the seed and the
 * flow, the one gen_next_meta reports for every packet of the flow. */
void gen_flow_meta(const gen *g, uint32_t flow, gen_meta *m);
/* The mawi size draw by the generator's bin table, and the reference
 * search over the bins it replaces (exposed for tests). */
uint32_t gen_mawi_size(const gen *g, ddio_rng *rng);
uint32_t gen_mawi_size_ref(ddio_rng *rng);

/* Generate the whole trace into `path` (written atomically). */
int gen_write_pcap(const gen_config *c, const char *path, ddio_err *e);

#endif
