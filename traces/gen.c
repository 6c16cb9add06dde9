/* gen.c - deterministic synthetic traffic (gen.h): fixed size, IMIX and a
 * MAWI-like mix. */
#include "traces/gen.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/hash.h"
#include "sim/common/parse.h"
#include "traces/pcap.h"

/* ---- size distributions (docs/traces.md explains where they come from) ---- */

/* IMIX: 7:4:1 of 64/570/1518 B, in shuffled blocks of 12 so every block
 * has the exact classic mean (353.83 B) and a short trace cannot drift. */
static const uint16_t imix_sizes[3] = {64, 570, 1518};
static const uint8_t imix_block[12] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2};

/* mawi: piecewise-uniform frame sizes (pcap bytes, no FCS), shares in per mille. */
typedef struct size_bin {
    uint16_t lo, hi, permille;
} size_bin;
static const size_bin mawi_bins[] = {
    {60, 60, 250},     /* TCP pure ACKs: 54 B padded to the 60-B minimum frame */
    {66, 66, 170},     /* pure ACKs with the TCP timestamp option (and small UDP) */
    {67, 127, 95},     /* DNS, small UDP, ACKs with SACK blocks */
    {128, 575, 95},
    {576, 1023, 50},
    {1024, 1399, 60},  /* reduced-MTU (VPN/tunnel ~1300 B) and QUIC (~1250-1350 B) */
    {1400, 1513, 40},
    {1514, 1514, 240}, /* full 1500-B MTU packets */
};
#define MAWI_NBINS (sizeof mawi_bins / sizeof mawi_bins[0])
#define MAWI_TCP_PERMILLE 800   /* share of flows that are TCP */

enum { ETH_HLEN = 14, IP_HLEN = 20, TCP_HLEN = 20, UDP_HLEN = 8 };

void gen_config_default(gen_config *c)
{
    memset(c, 0, sizeof *c);
    c->profile = GEN_FIXED;
    c->fixed_size = 64;
    c->packets = 1000;
    c->rate_gbps = 10.0;
    c->flows = 0;
    c->zipf = -1.0;
    c->seed = 1;
    c->snaplen = 0;
    c->nano = 1;
}

int gen_parse_profile(const char *s, gen_config *c, const char *what, ddio_err *e)
{
    if (strcmp(s, "imix") == 0) {
        c->profile = GEN_IMIX;
        return 0;
    }
    if (strcmp(s, "mawi") == 0) {
        c->profile = GEN_MAWI;
        return 0;
    }
    if (strncmp(s, "fixed:", 6) == 0) {
        uint64_t v;
        char w[64];
        snprintf(w, sizeof w, "%s fixed:SIZE", what);
        if (ddio_parse_u64(s + 6, GEN_MIN_FRAME, GEN_MAX_FRAME, &v, w, e))
            return -1;
        c->profile = GEN_FIXED;
        c->fixed_size = (uint32_t)v;
        return 0;
    }
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not one of fixed:SIZE, imix, mawi", what, s);
}

int gen_parse_tuples(const char *s, int *random_tuples, const char *what, ddio_err *e)
{
    if (strcmp(s, "range") == 0 || strcmp(s, "random") == 0) {
        *random_tuples = strcmp(s, "random") == 0;
        return 0;
    }
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not one of range, random", what, s);
}

const char *gen_profile_name(const gen_config *c, char *buf, size_t n)
{
    switch (c->profile) {
    case GEN_IMIX: snprintf(buf, n, "imix"); break;
    case GEN_MAWI: snprintf(buf, n, "mawi"); break;
    default: snprintf(buf, n, "fixed:%u", c->fixed_size); break;
    }
    return buf;
}

uint32_t gen_flows(const gen_config *c)
{
    if (c->flows)
        return c->flows;
    return c->profile == GEN_MAWI ? 100000u : 1024u;
}

double gen_zipf(const gen_config *c)
{
    if (c->zipf >= 0)
        return c->zipf;
    return c->profile == GEN_MAWI ? 1.0 : 0.0;
}

double gen_mean_size(const gen_config *c)
{
    switch (c->profile) {
    case GEN_IMIX: {
        double s = 0;
        for (int i = 0; i < 12; i++)
            s += imix_sizes[imix_block[i]];
        return s / 12.0;
    }
    case GEN_MAWI: {
        double s = 0;
        for (size_t i = 0; i < MAWI_NBINS; i++)
            s += mawi_bins[i].permille / 1000.0 * (mawi_bins[i].lo + mawi_bins[i].hi) / 2.0;
        return s;
    }
    default:
        return c->fixed_size;
    }
}

/* ---- Zipf (rejection-inversion, Hoermann & Derflinger 1996) ---- */

/* log1p(x)/x and expm1(x)/x, with their series near 0 where the quotient
 * would lose all precision. */
static double helper1(double x) { return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x)); }
static double helper2(double x) { return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x)); }
static double zipf_h(double s, double x) { return exp(-s * log(x)); }
/* Integral of x^-s, written so that s = 1 (log x) needs no special case. */
static double zipf_H(double s, double x)
{
    double lx = log(x);
    return helper2((1.0 - s) * lx) * lx;
}
static double zipf_Hinv(double s, double x)
{
    double t = x * (1.0 - s);
    if (t < -1.0)
        t = -1.0;
    return exp(helper1(t) * x);
}

void gen_zipf_init(gen_zipf_sampler *z, uint64_t n, double s)
{
    for (int j = 0; j < 32; j++)
        z->exp2_tab[j] = exp2(j / 32.0);
    z->n = n;
    z->nd = (double)n;
    z->s = s;
    z->h_x1 = zipf_H(s, 1.5) - 1.0;
    z->h_n = zipf_H(s, (double)n + 0.5);
    z->sc = 2.0 - zipf_Hinv(s, zipf_H(s, 2.5) - zipf_h(s, 2.0));
}

/* exp(u) for u in (-20, 13.8), relative error below 2^-46: u = k ln2/32 + r
 * with |r| <= ln2/64 (ln2/32 in two parts, the first with 21 trailing zero
 * bits, so k x hi is exact), exp(r) by its Taylor polynomial of degree 5
 * (the remainder is below 2^-48), 2^(k/32) from the table and the exponent
 * bits.  Inline and without libm, so the draw keeps its state in registers. */
static inline double zipf_fast_exp(const gen_zipf_sampler *z, double u)
{
    const double inv = 0x1.71547652b82fep+5;       /* 32 / ln2 */
    const double hi = 0x1.62e42fee00000p-6;        /* ln2 / 32, high part */
    const double lo = 0x1.a39ef35793c76p-38;       /* ln2 / 32 - hi */
    const double shift = 0x1.8p52;                 /* rounds to an integer */
    double kd = (u * inv + shift) - shift;
    int64_t k = (int64_t)kd;
    double r = (u - kd * hi) - kd * lo;
    double p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120)))));
    uint64_t e = (uint64_t)((k >> 5) + 1023) << 52;   /* 2^(k div 32): k >= -20 x 47 */
    double scale;
    memcpy(&scale, &e, sizeof scale);
    return z->exp2_tab[k & 31] * scale * p;
}

double gen_zipf_fast_exp(const gen_zipf_sampler *z, double u)
{
    return zipf_fast_exp(z, u);
}

/* The s = 1 draw's outcome from y ~ exp(u) when it is certain.  glibc's
 * exp is within a few ulps of e^u and y within 2^-46 of it (relative), so
 * for y < 2^20 they are less than 2^-20 apart: the rank floor(x + 0.5) is
 * floor(y + 0.5) when y + 0.5 is at least 2^-18 from an integer, and the
 * acceptance kc - x <= sc holds when kc - y <= sc - 2^-18.  Otherwise
 * (about 10^-5 of the draws, and every draw the acceptance test rejects
 * at first) 0, and the caller takes the exact path with libm's exp. */
static inline uint64_t zipf_fast_rank(const gen_zipf_sampler *z, double u)
{
    const double margin = 0x1p-18;
    if (!(u > -20.0 && u < 13.8))
        return 0;
    double y = zipf_fast_exp(z, u);
    double yh = y + 0.5;
    double kd = (double)(int64_t)yh;   /* y > 0: truncation is floor */
    double frac = yh - kd;
    if (frac < margin || frac > 1.0 - margin)
        return 0;
    double kc = kd < 1.0 ? 1.0 : kd > z->nd ? z->nd : kd;
    if (!(kc - y <= z->sc - margin))
        return 0;
    return kd > z->nd ? z->n : (uint64_t)(int64_t)kc;
}

/* The draw's outcome for the uniform u, exactly as first written: its
 * rank, or 0 if the acceptance test rejects it.  With s = 1 the inversion
 * is exactly exp(u): t = u * 0 is +-0, helper1's series gives 1.0, and
 * 1.0 * u is u (test: traces_gen: zipf_fast_paths_equal_reference).  Out of
 * line: the s = 1 draw needs it rarely (zipf_fast_rank). */
__attribute__((noinline, cold)) static uint64_t zipf_rank_exact(const gen_zipf_sampler *z, double u)
{
    double x = z->s == 1.0 ? exp(u) : zipf_Hinv(z->s, u);
    /* x > 0 (an exp): truncation is floor, without a libm call. */
    double kd = x + 0.5 < 0x1p62 ? (double)(int64_t)(x + 0.5) : floor(x + 0.5);
    /* k = clamp(kd, 1, n) as an integer; kd is integral, so the clamp in
     * doubles (z->nd = (double)n) is (double)k exactly, without the
     * unsigned conversions back and forth. */
    double kc = kd < 1.0 ? 1.0 : kd > z->nd ? z->nd : kd;
    uint64_t k = kd > z->nd ? z->n : kc < 0x1p63 ? (uint64_t)(int64_t)kc : (uint64_t)kc;
    if (kc - x <= z->sc || u >= zipf_H(z->s, kc + 0.5) - zipf_h(z->s, kc))
        return k;
    return 0;
}

/* Inline (the generator's batch keeps the random state in registers). */
__attribute__((always_inline)) static inline uint64_t zipf_draw(const gen_zipf_sampler *z, ddio_rng *rng)
{
    for (;;) {
        double u = z->h_n + ddio_rng_uniform(rng) * (z->h_x1 - z->h_n);
        uint64_t k = z->s == 1.0 ? zipf_fast_rank(z, u) : 0;
        if (!k)
            k = zipf_rank_exact(z, u);
        if (k)
            return k;
    }
}

uint64_t gen_zipf_next(gen_zipf_sampler *z, ddio_rng *rng)
{
    return zipf_draw(z, rng);
}

double gen_zipf_inverse(double s, double u)
{
    return zipf_Hinv(s, u);
}

/* ---- flows ---- */

/* A bijection of the 24-bit integers (odd multipliers and xorshifts are
 * invertible mod 2^24): distinct flow indices get distinct source addresses,
 * so the trace holds exactly as many 5-tuples as flows drawn. */
static uint32_t perm24(uint32_t x)
{
    const uint32_t m = 0xffffff;
    x = (x * 0x2c1b3du) & m;
    x ^= x >> 11;
    x = (x * 0x297a2du) & m;
    x ^= x >> 13;
    return x;
}

typedef struct flow_tuple {
    uint32_t src, dst;
    uint16_t sport, dport;
    uint8_t proto;
} flow_tuple;

static flow_tuple flow_of(const gen *g, uint32_t i)
{
    flow_tuple f;
    if (g->c.profile != GEN_MAWI && !g->c.random_tuples) {
        /* Packet-generator style (TRex, pktgen ranges): GEN_SRC_HOSTS source
         * addresses, one destination, flows told apart by the UDP ports - a
         * mixed-radix split of i, so the F tuples are distinct.  Few
         * addresses also keep `tcpdump -r` (no -n) fast: it resolves every
         * distinct address by a reverse DNS query. */
        f.src = 0x0a000001u + i % GEN_SRC_HOSTS;                      /* 10.0.0.1.. */
        f.dst = 0xac100001u;                                           /* 172.16.0.1 */
        f.sport = (uint16_t)(1024 + (i / GEN_SRC_HOSTS) % 64512);
        f.dport = (uint16_t)(5000 + i / (GEN_SRC_HOSTS * 64512u));
        f.proto = 17;
        return f;
    }
    uint64_t h = ddio_mix64(g->salt + i);
    uint64_t h2 = ddio_mix64(h ^ 0x632be59bd9b4e019ull);
    if (g->c.profile != GEN_MAWI) {
        /* Random-looking tuples of UDP flows (random_tuples): a bijection of
         * the index in the source address keeps them distinct; through a
         * Toeplitz hash, which is linear in the tuple's bits, the ranges
         * above put consecutive flows on queues in a regular pattern,
         * these do not. */
        f.src = 0x0a000000u | perm24((i + (uint32_t)g->salt) & 0xffffff);
        f.dst = 0xac100001u;
        f.sport = (uint16_t)(1024 + (h >> 32) % 64512);
        f.dport = (uint16_t)(1024 + (h2 >> 32) % 64512);
        f.proto = 17;
        return f;
    }
    /* One source address per flow, in 10/8 (a bijection of the flow index),
     * destinations in 172.16/12: private ranges, whose reverse lookups
     * resolvers usually answer locally (RFC 6303). */
    f.src = 0x0a000000u | perm24((i + (uint32_t)g->salt) & 0xffffff);
    f.dst = 0xac100000u | (uint32_t)(h2 >> 32 & 0xfffff);
    f.sport = (uint16_t)(1024 + (h >> 32) % 64512);
    int tcp = h2 % 1000 < MAWI_TCP_PERMILLE;
    f.proto = tcp ? 6 : 17;
    uint32_t pick = (uint32_t)(h2 >> 16 & 0xffff) % 100;
    uint16_t other = (uint16_t)(1024 + (h2 >> 40) % 64512);
    if (tcp)
        f.dport = pick < 60 ? 443 : pick < 85 ? 80 : other;
    else
        f.dport = pick < 50 ? 443 : pick < 70 ? 53 : other;
    return f;
}

/* ---- frames ---- */

static void put16(uint8_t *b, uint16_t v) { b[0] = (uint8_t)(v >> 8), b[1] = (uint8_t)v; }
static void put32(uint8_t *b, uint32_t v) { put16(b, (uint16_t)(v >> 16)), put16(b + 2, (uint16_t)v); }

static uint32_t sum16(const uint8_t *b, size_t n, uint32_t s)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(b[i] << 8 | b[i + 1]);
    if (n & 1)
        s += (uint32_t)b[n - 1] << 8;
    return s;
}

static uint16_t fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* Headers only: the payload bytes stay zero from gen_init, and zeros add
 * nothing to a ones'-complement sum, so the L4 checksum over the header and
 * pseudo-header is the checksum of the whole segment. */
static void build_frame(gen *g, ddio_rng *rng, const flow_tuple *f, uint32_t len)
{
    static const uint8_t macs[12] = {0x02, 0xdd, 0x10, 0x00, 0x00, 0x01, 0x02, 0xdd, 0x10, 0x00, 0x00, 0x02};
    uint8_t *b = g->frame;
    memcpy(b, macs, sizeof macs);
    put16(b + 12, 0x0800);
    uint8_t *ip = b + ETH_HLEN;
    uint16_t tot = (uint16_t)(len - ETH_HLEN);
    /* A 60-B TCP frame is a 40-B pure ACK plus Ethernet padding, as on a real link. */
    if (f->proto == 6 && len == 60)
        tot = IP_HLEN + TCP_HLEN;
    ip[0] = 0x45;
    ip[1] = 0;
    put16(ip + 2, tot);
    put16(ip + 4, (uint16_t)g->i);
    put16(ip + 6, 0x4000); /* DF, offset 0: passes the unfragmented filter */
    ip[8] = 64;
    ip[9] = f->proto;
    put16(ip + 10, 0);
    put32(ip + 12, f->src);
    put32(ip + 16, f->dst);
    put16(ip + 10, fold(sum16(ip, IP_HLEN, 0)));

    uint8_t *l4 = ip + IP_HLEN;
    uint16_t l4len = (uint16_t)(tot - IP_HLEN);
    uint32_t pseudo = sum16(ip + 12, 8, 0) + f->proto + l4len;
    put16(l4, f->sport);
    put16(l4 + 2, f->dport);
    if (f->proto == 6) {
        uint64_t r = ddio_rng_next(rng);
        put32(l4 + 4, (uint32_t)r);         /* seq */
        put32(l4 + 8, (uint32_t)(r >> 32)); /* ack */
        l4[12] = 5 << 4;
        l4[13] = l4len > TCP_HLEN ? 0x18 : 0x10; /* PSH|ACK with data, else a pure ACK */
        put16(l4 + 14, 502);
        put16(l4 + 16, 0);
        put16(l4 + 18, 0);
        put16(l4 + 16, fold(sum16(l4, TCP_HLEN, pseudo)));
    } else {
        /* Clear what a previous TCP header left where this UDP payload starts. */
        memset(l4 + UDP_HLEN, 0, TCP_HLEN - UDP_HLEN);
        put16(l4 + 4, l4len);
        put16(l4 + 6, 0);
        uint16_t c = fold(sum16(l4, UDP_HLEN, pseudo));
        put16(l4 + 6, c ? c : 0xffff); /* 0 would mean "no checksum" */
    }
}

/* The reference draw (tests: the table below must give the same sizes). */
static uint32_t mawi_size_ref(ddio_rng *rng)
{
    uint32_t u = (uint32_t)ddio_rng_below(rng, 1000);
    for (size_t i = 0; i < MAWI_NBINS; i++) {
        if (u < mawi_bins[i].permille) {
            const size_bin *b = &mawi_bins[i];
            return b->lo + (uint32_t)ddio_rng_below(rng, (uint64_t)(b->hi - b->lo) + 1);
        }
        u -= mawi_bins[i].permille;
    }
    return mawi_bins[MAWI_NBINS - 1].hi;
}

uint32_t gen_mawi_size_ref(ddio_rng *rng)
{
    return mawi_size_ref(rng);
}

/* mawi_size_ref's bin by the first draw, u in [0, 1000), read from a table
 * (the shares add up to 1000, so every u has a bin). */
static void mawi_bin_table(uint8_t *bin_of)
{
    uint32_t u = 0;
    for (size_t i = 0; i < MAWI_NBINS; i++)
        for (uint32_t k = 0; k < mawi_bins[i].permille; k++)
            bin_of[u++] = (uint8_t)i;
    assert(u == 1000);
}

static inline uint32_t mawi_size(const gen *g, ddio_rng *rng)
{
    const size_bin *b = &mawi_bins[g->mawi_bin[ddio_rng_below(rng, 1000)]];
    return b->lo + (uint32_t)ddio_rng_below(rng, (uint64_t)(b->hi - b->lo) + 1);
}

uint32_t gen_mawi_size(const gen *g, ddio_rng *rng)
{
    return mawi_size(g, rng);
}

static void shuffle_imix(gen *g, ddio_rng *rng)
{
    memcpy(g->imix_cycle, imix_block, sizeof imix_block);
    for (uint32_t i = 11; i > 0; i--) {
        uint32_t j = (uint32_t)ddio_rng_below(rng, i + 1);
        uint8_t t = g->imix_cycle[i];
        g->imix_cycle[i] = g->imix_cycle[j];
        g->imix_cycle[j] = t;
    }
}

int gen_check_rate(double gbps, const char *what, ddio_err *e)
{
    if (!(gbps >= GEN_MIN_RATE_GBPS && gbps <= GEN_MAX_RATE_GBPS))   /* NaN too */
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %g is out of range [%g, %g]", what, gbps, GEN_MIN_RATE_GBPS,
                         GEN_MAX_RATE_GBPS);
    return 0;
}

int gen_init(gen *g, const gen_config *c, ddio_err *e)
{
    if (c->packets < 1 || c->packets > 10000000000ull)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--packets: %llu is out of range [1, 10000000000]",
                         (unsigned long long)c->packets);
    /* The user's rate is checked where it is read (gen_check_rate); a
     * source scaled to forced frame sizes (sim/queue/pktsrc.c) may go past
     * it, which the generator handles. */
    if (!(c->rate_gbps > 0 && isfinite(c->rate_gbps)))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--rate: %g is not a positive number", c->rate_gbps);
    uint32_t flows = gen_flows(c);
    if (flows < 1 || flows > GEN_MAX_FLOWS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--flows: %u is out of range [1, %u]", flows, GEN_MAX_FLOWS);
    if (c->flow_burst > GEN_MAX_FLOW_BURST)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--flow-burst: %u is out of range [1, %u]", c->flow_burst,
                         GEN_MAX_FLOW_BURST);
    if (c->threads > GEN_MAX_THREADS || c->threads > flows)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--gen-threads: %u is out of range [1, %u] (at most the %u flows)",
                         c->threads, GEN_MAX_THREADS < flows ? GEN_MAX_THREADS : flows, flows);
    double s = gen_zipf(c);
    if (!(s >= 0.0 && s <= 5.0))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--zipf: %g is out of range [0, 5]", s);
    if (c->snaplen && (c->snaplen < GEN_MIN_SNAPLEN || c->snaplen > GEN_MAX_SNAPLEN))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--snaplen: %u is out of range [%u, %u]", c->snaplen,
                         GEN_MIN_SNAPLEN, GEN_MAX_SNAPLEN);
    if (c->profile == GEN_FIXED && (c->fixed_size < GEN_MIN_FRAME || c->fixed_size > GEN_MAX_FRAME))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--profile: fixed:%u is out of range [%u, %u]", c->fixed_size,
                         GEN_MIN_FRAME, GEN_MAX_FRAME);
    memset(g, 0, sizeof *g);   /* no tcp_cache */
    g->c = *c;
    g->flows = flows;
    ddio_rng_seed(&g->rng, c->seed);
    /* Flow identities hash (salt, index) rather than drawing from the rng,
     * so a flow's 5-tuple does not depend on which packets came before. */
    g->salt = ddio_mix64(c->seed ^ 0xd1b54a32d192ed03ull);
    g->zipf_on = s > 0;
    g->burst = c->flow_burst ? c->flow_burst : 1;
    g->threads = c->threads ? c->threads : 1;
    g->bursty = g->burst > 1 || g->threads > 1;
    mawi_bin_table(g->mawi_bin);
    if (s > 0)
        gen_zipf_init(&g->zipf, flows, s);
    return 0;
}

/* Whether flow i is TCP (flow_of's proto == 6), without the rest of its
 * tuple; remembered in the caller's cache when there is one (gen_set_tcp_cache). */
static inline int flow_is_tcp(const gen *g, uint32_t i)
{
    if (g->c.profile != GEN_MAWI)
        return 0;
    if (g->tcp_cache && g->tcp_cache[i])
        return g->tcp_cache[i] - 1;
    uint64_t h2 = ddio_mix64(ddio_mix64(g->salt + i) ^ 0x632be59bd9b4e019ull);
    int tcp = h2 % 1000 < MAWI_TCP_PERMILLE;
    if (g->tcp_cache)
        g->tcp_cache[i] = (uint8_t)(1 + tcp);
    return tcp;
}

void gen_flow_meta(const gen *g, uint32_t flow, gen_meta *m)
{
    flow_tuple f = flow_of(g, flow);
    m->src_ip = f.src;
    m->dst_ip = f.dst;
    m->src_port = f.sport;
    m->dst_port = f.dport;
    m->proto = f.proto;
}

void gen_set_tcp_cache(gen *g, uint8_t *cache)
{
    g->tcp_cache = cache;
}

/* The flow of packet g->i when flows come in bursts (g->bursty): packet i
 * is thread t = i mod threads's packet k = i / threads.  Thread t owns
 * flows t, t + threads, t + 2 threads ... and sends `burst` packets of one
 * of them in a row: round robin over its flows, or a Zipf draw (of any
 * flow) at the start of each of its bursts.  One thread and bursts of one
 * give the plain order (packet i: flow i mod flows, or a draw per packet). */
static uint32_t burst_flow(gen *g, ddio_rng *rng)
{
    uint32_t t = (uint32_t)(g->i % g->threads);
    uint64_t k = g->i / g->threads;
    if (g->zipf_on) {
        if (k % g->burst == 0)
            g->cur_flow[t] = (uint32_t)(zipf_draw(&g->zipf, rng) - 1);
        return g->cur_flow[t];
    }
    uint32_t own = (g->flows - t + g->threads - 1) / g->threads;   /* >= 1: threads <= flows */
    return t + g->threads * (uint32_t)((k / g->burst) % own);
}

/* The next packet, drawing from *rng (g->rng, or the batch's copy of it). */
/* Always inline: in gen_next_meta_batch *rng must stay a register copy. */
__attribute__((always_inline)) static inline int next_packet(gen *g, ddio_rng *rng, gen_pkt *p, gen_meta *meta,
                                                            int no_time)
{
    const gen_config *c = &g->c;
    if (g->i >= c->packets)
        return 0;
    uint32_t len;
    switch (c->profile) {
    case GEN_IMIX:
        if (g->i % 12 == 0)
            shuffle_imix(g, rng);
        len = imix_sizes[g->imix_cycle[g->i % 12]];
        break;
    case GEN_MAWI:
        len = mawi_size(g, rng);
        break;
    default:
        len = c->fixed_size;
        break;
    }
    assert(len >= GEN_MIN_FRAME && len <= GEN_MAX_FRAME);
    uint32_t flow = g->bursty    ? burst_flow(g, rng)
                    : g->zipf_on ? (uint32_t)(zipf_draw(&g->zipf, rng) - 1)
                                 : (uint32_t)(g->i % g->flows);
    assert(flow < g->flows);
    if (meta && g->no_tuple) {
        /* The caller ignores the tuple: only the TCP sequence draw, which
         * keeps the random stream (gen_set_no_tuple). */
        if (flow_is_tcp(g, flow))
            (void)ddio_rng_next(rng);
        memset(meta, 0, sizeof *meta);
        goto timestamps;
    }
    flow_tuple f = flow_of(g, flow);
    if (meta) {
        /* What trace_parse_frame reads back from the frame build_frame
         * writes; the TCP sequence numbers are drawn all the same, so the
         * random stream (and every later packet) is unchanged. */
        if (f.proto == 6)
            (void)ddio_rng_next(rng);
        meta->src_ip = f.src;
        meta->dst_ip = f.dst;
        meta->src_port = f.sport;
        meta->dst_port = f.dport;
        meta->proto = f.proto;
    } else {
        build_frame(g, rng, &f, len);
    }

    /* Timestamps: the packet starts at t; the next one starts one gap later. */
timestamps:;
    double bits = 8.0 * len;
    if (c->profile == GEN_MAWI && c->rate_gbps < GEN_LINK_GBPS) {
        /* Poisson-like arrivals with a dead time: the frame occupies the
         * 100 Gb/s link for its serialization time, then the link idles an
         * exponential time whose mean makes the average gap len*8/rate. */
        double busy = bits / GEN_LINK_GBPS, mean = bits / c->rate_gbps;
        double u = ddio_rng_uniform(rng);
        if (no_time) {
            p->ts_ns = 0;   /* the caller ignores time; the draw above keeps the stream */
        } else {
            p->ts_ns = GEN_EPOCH_S * 1000000000ull + (uint64_t)llround(g->t_ns);
            g->t_ns += busy + (mean - busy) * -log1p(-u);
        }
    } else if (no_time) {
        p->ts_ns = 0;
    } else {
        /* Constant bit rate, from the running bit count (no accumulated rounding). */
        p->ts_ns = GEN_EPOCH_S * 1000000000ull + (uint64_t)llround((double)g->cum_bits / c->rate_gbps);
        g->cum_bits += (uint64_t)len * 8;
    }
    p->len = len;
    p->flow = flow;
    p->frame = meta ? NULL : g->frame;
    g->i++;
    return 1;
}

int gen_next(gen *g, gen_pkt *p)
{
    return next_packet(g, &g->rng, p, NULL, 0);
}

void gen_set_no_tuple(gen *g, int on)
{
    g->no_tuple = on;
}

int gen_next_meta(gen *g, gen_pkt *p, gen_meta *m, int no_time)
{
    return next_packet(g, &g->rng, p, m, no_time);
}

/* next_packet for a mawi packet without tuple and time (the simulator's
 * usual source): the same draws - the size, the flow, the TCP sequence of
 * a TCP flow, the gap's uniform draw - with nothing else computed.  The
 * rest of the packet once its size and flow are drawn: */
__attribute__((always_inline)) static inline void lean_mawi_finish(gen *g, ddio_rng *rng, gen_pkt *p,
                                                                   gen_meta *meta, uint32_t len, uint32_t flow)
{
    if (flow_is_tcp(g, flow))
        (void)ddio_rng_next(rng);
    if (g->c.rate_gbps < GEN_LINK_GBPS)
        (void)ddio_rng_next(rng);   /* ddio_rng_uniform's draw for the gap */
    p->ts_ns = 0;
    p->len = len;
    p->flow = flow;
    p->frame = NULL;
    memset(meta, 0, sizeof *meta);
    g->i++;
}

/* Lean mawi packets k .. n-1, until one whose Zipf draw the fast rank
 * cannot decide (zipf_fast_rank): returns the index reached; for a packet
 * stopped there, its size is in *len and its first uniform draw in *u (both
 * already drawn).  No calls inside, so the random state stays in registers
 * (a call anywhere in the loop made the compiler keep it on the stack). */
__attribute__((noinline)) static uint32_t lean_mawi_run(gen *g, ddio_rng *state, gen_pkt *p, gen_meta *m,
                                                        uint32_t k, uint32_t n, uint32_t *len, double *u)
{
    ddio_rng rng = *state;
    const gen_zipf_sampler *z = &g->zipf;
    for (; k < n; k++) {
        uint32_t size = mawi_size(g, &rng);
        uint32_t flow;
        if (g->zipf_on) {
            double x = z->h_n + ddio_rng_uniform(&rng) * (z->h_x1 - z->h_n);
            uint64_t rank = z->s == 1.0 ? zipf_fast_rank(z, x) : 0;
            if (!rank) {
                *len = size;
                *u = x;
                break;
            }
            flow = (uint32_t)(rank - 1);
        } else {
            flow = (uint32_t)(g->i % g->flows);
        }
        lean_mawi_finish(g, &rng, &p[k], &m[k], size, flow);
    }
    *state = rng;
    return k;
}

uint32_t gen_next_meta_batch(gen *g, gen_pkt *p, gen_meta *m, uint32_t n, int no_time)
{
    /* The generator's state in a local copy: it stays in registers across
     * the loop instead of being loaded and stored at every draw. */
    ddio_rng rng = g->rng;
    uint32_t k = 0;
    if (no_time && g->no_tuple && g->c.profile == GEN_MAWI && !g->bursty && (!g->zipf_on || g->zipf.s == 1.0)) {
        uint64_t left = g->i < g->c.packets ? g->c.packets - g->i : 0;
        uint32_t want = left < n ? (uint32_t)left : n;
        for (;;) {
            uint32_t len = 0;
            double u = 0;
            k = lean_mawi_run(g, &rng, p, m, k, want, &len, &u);
            if (k == want)
                break;
            /* Packet k's Zipf draw stopped at its first uniform: finish it as
             * zipf_draw does - that u's exact outcome, and if it is rejected,
             * the draws that follow. */
            uint64_t rank = zipf_rank_exact(&g->zipf, u);
            if (!rank)
                rank = zipf_draw(&g->zipf, &rng);
            lean_mawi_finish(g, &rng, &p[k], &m[k], len, (uint32_t)(rank - 1));
            k++;
        }
    } else {
        while (k < n && next_packet(g, &rng, &p[k], &m[k], no_time))
            k++;
    }
    g->rng = rng;
    return k;
}

int gen_write_pcap(const gen_config *c, const char *path, ddio_err *e)
{
    gen *g = malloc(sizeof *g);
    if (!g)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    if (gen_init(g, c, e) != 0) {
        free(g);
        return -1;
    }
    trace_writer w;
    uint32_t snap = c->snaplen ? c->snaplen : GEN_MAX_SNAPLEN;
    if (trace_writer_open(&w, path, snap, c->nano, TRACE_DLT_EN10MB, e) != 0) {
        free(g);
        return -1;
    }
    gen_pkt p;
    while (gen_next(g, &p) == 1) {
        if (trace_writer_write(&w, p.ts_ns, p.frame, p.len, p.len, e) != 0) {
            trace_writer_abort(&w);
            free(g);
            return -1;
        }
    }
    free(g);
    return trace_writer_commit(&w, e);
}
