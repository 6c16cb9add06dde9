/* repl.h - replacement policies behind one ops interface (libCacheSim style).
 *
 * A policy keeps `set_bytes(ways)` bytes of metadata per set.  For locality
 * the cache stores them inside each set's block, next to the tags (8-byte
 * aligned), and hands the policy their base and the block stride
 * (`repl_line_state`).  The cache calls:
 *   on_hit(set, way)       a lookup found the line in `way`
 *   victim(set, mask)      every way in `mask` is valid: choose one to evict
 *   on_fill(set, way)      a new line was placed in `way` (after a miss)
 *   on_invalidate(set, way) the line left the cache (moved up, or dropped)
 * Unless the policy has a fill_way op, the cache prefers the lowest invalid
 * way inside the mask before it asks for a victim, so such policies only
 * ever rank valid lines.  fill_way lets a policy choose among the empty ways
 * too (QLRU's R2 takes the rightmost) and update its state on every miss
 * (QLRU's "update on miss only" ages the set before it chooses).
 *
 * Policies of one `family` share a metadata layout (recency order, 2-bit
 * RRPVs, 2-bit QLRU ages), which is what lets the dueling policy
 * (repl_duel.c) run two of them on one shared state.
 *
 * A module may serve a whole family of names (QLRU_H11_M1_R0_U0, ...): its
 * `parse` op recognises them and its init reads p->cfg.name.
 *
 * Adding a policy: one file with its ops (its `model_bound` says which of
 * the analytical model's chains bounds it), the ops' entry in repl.c's
 * registry, and its tests.  Lists of names (usage messages) are built from
 * the registry. */
#ifndef DDIOSIM_CACHE_REPL_H
#define DDIOSIM_CACHE_REPL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/cache/lru_order.h"
#include "sim/common/err.h"
#include "sim/common/rng.h"

typedef struct repl_policy repl_policy;

/* How a policy's hit changes its set's state, when the change is set-local
 * and a few word operations on the state at repl_line_state() (no coin
 * flip, no counter shared by sets): a caller may then do the hit inline
 * (repl_hit_apply, a switch on `kind`) instead of through ops->on_hit.
 * The policy's own on_hit uses the same inline rule, so it lives once. */
typedef enum repl_hit_kind {
    REPL_HIT_OPS = 0,   /* none of these: ops->on_hit */
    REPL_HIT_NIBBLE,    /* the nibble order word (lru_order.h): the way becomes the most recent */
    REPL_HIT_RRPV,      /* one RRPV byte per way: the way's becomes 0 */
    REPL_HIT_QLRU,      /* QLRU's 2-bit ages packed in one word (up to 32 ways): repl_qlru_hit_word */
} repl_hit_kind;

typedef struct repl_hit_rule {
    repl_hit_kind kind;
    uint8_t qlru_hit[4];    /* QLRU: the age after a hit, by the age before */
    uint8_t qlru_table;     /* QLRU: qlru_hit as 2-bit fields (age a's at bits 2a), one register in a loop */
    uint8_t qlru_u;         /* QLRU: the U<u> ageing rule */
    uint8_t qlru_umo;       /* QLRU: update on miss only (no ageing after a hit) */
    uint64_t qlru_lo;       /* QLRU: bit 2w set for every way w */
} repl_hit_rule;

/* How a policy chooses the way a miss fills and how a fill and a removal
 * change its set, when that is set-local (like repl_hit_kind): a caller
 * may then do them inline (repl_evict_way, repl_evict_fill,
 * repl_evict_remove) instead of through ops->fill_way / victim, on_fill
 * and on_invalidate.  The policy's own ops use the same inline rules.
 * LRU / BIP on the nibble order have their own inline path (setblock.h
 * fill_in, remove_in) and keep REPL_EVICT_OPS here. */
typedef enum repl_evict_kind {
    REPL_EVICT_OPS = 0, /* none of these: the ops */
    REPL_EVICT_RRPV,    /* one RRPV byte per way: repl_rrpv_victim; a removal sets 3 */
    REPL_EVICT_QLRU,    /* QLRU's packed ages (up to 32 ways): repl_qlru_fill_way; a removal keeps the age */
} repl_evict_kind;

typedef struct repl_evict_rule {
    repl_evict_kind kind;
    uint8_t fill;           /* 1: the fill's update inline too (repl_evict_fill); 0: ops->on_fill (a coin, a duel's PSEL) */
    uint8_t rrpv_fill;      /* RRPV: a new line's RRPV */
    uint8_t qlru_miss;      /* QLRU: a new line's age */
    uint8_t qlru_r, qlru_u, qlru_umo, qlru_mask_age;   /* QLRU: R<r>, U<u>, UMO, repl_config.qlru_mask_age */
    uint64_t qlru_full;     /* QLRU: every way of the set */
    uint64_t qlru_lo;       /* QLRU: bit 2w set for every way w */
} repl_evict_rule;

/* Which chain of the analytical model (Wang, Xu, Wu, SIGMETRICS 2022,
 * Eq. 3) bounds a policy's hit rates from above: the bimodal-insertion
 * cut (BIP) or the 2-bit one (QLRU).  NONE, the zero value, makes the model
 * refuse the policy with a one-line error rather than lend it another's. */
typedef enum repl_bound { REPL_BOUND_NONE = 0, REPL_BOUND_BIP, REPL_BOUND_QLRU } repl_bound;

typedef struct repl_ops {
    const char *name;     /* the registry name; a module with `parse` serves more names */
    const char *family;   /* "recency", "rrip" or "qlru" */
    const char *usage;    /* optional: how the names are written in lists, else `name` */
    repl_bound model_bound;   /* the model's upper-bound chain; NONE: the model refuses it */
    /* Optional, for a module serving a family of names: 1 when `name` is
     * one of them, 0 when it is not the module's, -1 when it is the
     * module's syntax but malformed (msg says which field, and what is
     * allowed). */
    int (*parse)(const char *name, char *msg, size_t cap);
    uint32_t (*set_bytes)(const char *name, uint32_t ways);  /* metadata bytes per set, in the set blocks */
    /* Optional: parameters (from p->cfg) and, unless p->shared_state,
     * family-wide state.  Called for every policy, dueling members too. */
    int (*init)(repl_policy *p, ddio_err *e);
    void (*init_set)(repl_policy *p, uint32_t set);      /* optional: a set's metadata (else zeroes) */
    void (*on_hit)(repl_policy *p, uint32_t set, uint32_t way);
    void (*on_fill)(repl_policy *p, uint32_t set, uint32_t way);
    uint32_t (*victim)(repl_policy *p, uint32_t set, uint64_t mask);
    void (*on_invalidate)(repl_policy *p, uint32_t set, uint32_t way);
    void (*free)(repl_policy *p);                        /* optional */
    /* Optional: the way a miss fills, inside `mask`, given the empty ways
     * of the mask (`empty`, may be 0); may update the set's state.
     * Without it: the lowest empty way, else victim() (repl_fill_way). */
    uint32_t (*fill_way)(repl_policy *p, uint32_t set, uint64_t mask, uint64_t empty);
    /* Optional: p's hit rule when on_hit is one of repl_hit_kind's (else
     * leave *r as it is, REPL_HIT_OPS). */
    void (*hit_rule)(const repl_policy *p, repl_hit_rule *r);
    /* Optional: p's fill / victim / removal rule when its ops are
     * repl_evict_kind's (else leave *r as it is, REPL_EVICT_OPS). */
    void (*evict_rule)(const repl_policy *p, repl_evict_rule *r);
} repl_ops;

/* Longest policy name + 1: "duel:QLRU_H11_MR31_R0_U0_UMO,QLRU_H11_MR31_R0_U0_UMO" fits. */
#define REPL_NAME_LEN 64

/* Parameters a policy may use; defaults from repl_config_default(). */
typedef struct repl_config {
    char name[REPL_NAME_LEN];   /* lru, bip, srrip (= qlru), brrip, drrip, dip, QLRU_..., duel:A,B */
    double bip_epsilon;     /* BIP/BRRIP: probability of an MRU / long insertion (1/32) */
    uint32_t duel_leaders;  /* dueling: leader sets per policy; 0 = the duel's default (repl_duel.c) */
    uint32_t psel_bits;     /* dueling: PSEL counter width (10) */
    uint32_t sets_per_slice; /* dueling leader rule per slice; 0 = every set is one slice (cache_init sets it) */
    /* QLRU, a miss whose partial way mask has no way of age 3: 0 = take the
     * mask's oldest way (R1: its lowest), ageing nothing; 1 = age the mask's
     * ways until one is at 3, then take the leftmost at 3 (repl_qlru.c). */
    uint32_t qlru_mask_age;
    uint64_t seed;          /* for the policies' coin flips */
} repl_config;

struct repl_policy {
    const repl_ops *ops;
    uint32_t nsets, ways;
    uint8_t *base;          /* set 0's per-line metadata; set s at base + s * stride */
    uint64_t stride;        /* bytes between two sets' metadata */
    double epsilon;
    ddio_rng rng;
    void *state;            /* family-wide state (e.g. a clock), owned unless `shared_state` */
    int shared_state;       /* 1: state belongs to another policy (dueling) */
    void *priv;             /* policy-private extra data (dueling) */
    repl_config cfg;
};

void repl_config_default(repl_config *c);

/* Create the policy named c->name for nsets x ways whose per-line metadata
 * (ops->set_bytes(ways) per set, zero-filled) lives at base + set * stride. */
repl_policy *repl_create(const repl_config *c, uint32_t nsets, uint32_t ways, uint8_t *base,
                         uint64_t stride, ddio_err *e);

/* The metadata of the lines of `set`. */
static inline uint8_t *repl_line_state(const repl_policy *p, uint32_t set)
{
    return p->base + (uint64_t)set * p->stride;
}
void repl_destroy(repl_policy *p);

/* 1 when p's on_hit is the recency family's "move to MRU" on the 16-way
 * nibble order (lru_order.h) kept as one 64-bit word at repl_line_state():
 * a caller may then do the hit update inline (repl_recency_hit) instead of
 * through the ops table.  LRU and BIP with up to 16 ways. */
int repl_recency_nibble(const repl_policy *p);

/* lru_order_to_mru on an order word in place, with no work when `way` is
 * already the most recent (the move would leave the word as it is): the
 * common hit of a forwarding run, a line used again before its set saw
 * another access (the core's read then write of a packet line, the NIC's
 * read of the lines it wrote: 80-90 % of the hierarchy's hits). */
static inline void repl_order_hit(uint64_t *o, uint32_t way)
{
    uint64_t v = *o;
    if ((v & 0xF) != way)
        *o = lru_order_to_mru(v, way);
}

/* lru_order_to_lru on an order word in place, shorter when `way` is the
 * most recent (the usual removal: a line moving on right after its last
 * access): position 0 known, every other field moves one down. */
static inline void repl_order_remove(uint64_t *o, uint32_t way, uint32_t ways)
{
    const uint64_t v = *o;
    if ((v & 0xF) == way) {
        const uint32_t sh = 4 * (ways - 1);
        const uint64_t below_last = (1ull << sh) - 1;
        *o = ((v >> 4) & below_last) | ((uint64_t)way << sh) | (v & ~(below_last << 4 | 0xF));
    } else {
        *o = lru_order_to_lru(v, way, ways);
    }
}

/* on_hit of a policy for which repl_recency_nibble() is 1. */
static inline void repl_recency_hit(repl_policy *p, uint32_t set, uint32_t way)
{
    repl_order_hit((uint64_t *)(void *)repl_line_state(p, set), way);
}

/* p's hit rule (repl_ops.hit_rule), REPL_HIT_OPS when it has none. */
repl_hit_rule repl_hit_rule_of(const repl_policy *p);

/* 1 when hits under rules a and b change a set alike. */
static inline int repl_hit_rule_same(const repl_hit_rule *a, const repl_hit_rule *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind != REPL_HIT_QLRU)
        return 1;
    for (int i = 0; i < 4; i++)
        if (a->qlru_hit[i] != b->qlru_hit[i])
            return 0;
    assert(a->qlru_table == b->qlru_table);   /* both from qlru_hit */
    return a->qlru_u == b->qlru_u && a->qlru_umo == b->qlru_umo && a->qlru_lo == b->qlru_lo;
}

/* QLRU on packed ages (repl_qlru.c; way w's age at bits 2w, 2w+1, fields
 * past the last way 0): bit 2w set where way w is at age 3 ... */
static inline uint64_t repl_qlru_at3(uint64_t x, uint64_t lo) { return x & (x >> 1) & lo; }

/* ... the largest age among the fields of `lo` (x is 0 elsewhere) ... */
static inline uint32_t repl_qlru_max_age(uint64_t x, uint64_t lo)
{
    if (repl_qlru_at3(x, lo))
        return 3;
    if (x & (lo << 1))
        return 2;
    return x ? 1 : 0;
}

/* ... U0 / U1's lift of the ways `o`, none at 3: the oldest of them to 3,
 * each field by the same amount (none overflows: each is at most the
 * oldest) ... */
static inline uint64_t repl_qlru_lift(uint64_t x, uint64_t o)
{
    const uint64_t fields = o | (o << 1);
    return x + (uint64_t)(3 - repl_qlru_max_age(x & fields, o)) * o;
}

/* ... U<u> after an access to way i (i < 0: a UMO miss); inline in every
 * caller up to the usual case, a way at 3 already, which leaves x ... */
static inline __attribute__((always_inline)) uint64_t repl_qlru_age_word(uint32_t u, uint64_t x, uint64_t lo,
                                                                        int32_t i)
{
    /* The ways that age: all, or all but i (U1, U3). */
    const uint64_t o = (u & 1) && i >= 0 ? lo & ~(1ull << (2 * i)) : lo;
    if (u <= 1)   /* U0, U1: lift the oldest of those ways to 3 */
        return repl_qlru_at3(x, o) ? x : repl_qlru_lift(x, o);
    /* U2, U3: one step when no way, i included, is at 3. */
    return repl_qlru_at3(x, lo) ? x : x + o;
}

/* ... 1 when a hit on `way` under rule r leaves the ages x as they are:
 * the way's age stays (a line hit again) and a way is at 3, so that no U
 * lifts or steps (UMO: sufficient, not necessary).  Every H<xy> keeps
 * age 0 alone (packed_rule checks it), so that way at 3 is
 * another ... */
static inline __attribute__((always_inline)) int repl_qlru_hit_keeps(const repl_hit_rule *r, uint64_t x, uint32_t way)
{
    return !((x >> (2 * way)) & 3) && repl_qlru_at3(x, r->qlru_lo) != 0;
}

/* ... the ages x with way `way`'s set as a hit makes it (rule r), before
 * U ... */
static inline __attribute__((always_inline)) uint64_t repl_qlru_hit_set(const repl_hit_rule *r, uint64_t x,
                                                                        uint32_t way)
{
    const uint32_t sh = 2 * way, a = (uint32_t)(x >> sh) & 3;
    const uint32_t v = ((uint32_t)r->qlru_table >> (2 * a)) & 3;
    return (x & ~(3ull << sh)) | (uint64_t)v << sh;
}

/* ... 1 when the ages y = repl_qlru_hit_set(r, x, way) are the hit's
 * result: a way is at 3 in y, so that no U lifts or steps (that way is
 * another: a hit makes an age at most 2, packed_rule) ... */
static inline __attribute__((always_inline)) int repl_qlru_hit_set_done(const repl_hit_rule *r, uint64_t y)
{
    return repl_qlru_at3(y, r->qlru_lo) != 0;
}

/* ... and the ages after a hit on `way` under rule r (REPL_HIT_QLRU). */
static inline uint64_t repl_qlru_hit_word(const repl_hit_rule *r, uint64_t x, uint32_t way)
{
    /* Tested first, with the fewest operations: the hits of a forwarding
     * run are mostly this. */
    if (repl_qlru_hit_keeps(r, x, way))
        return x;
    const uint64_t y = repl_qlru_hit_set(r, x, way);
    return r->qlru_umo || repl_qlru_hit_set_done(r, y) ? y
                                                       : repl_qlru_age_word(r->qlru_u, y, r->qlru_lo, (int32_t)way);
}

/* A hit on `way` of the set whose policy state is at `state`, under rule r
 * (not REPL_HIT_OPS).  Inlined with a constant r->kind, one case is left. */
static inline __attribute__((always_inline)) void repl_hit_apply(const repl_hit_rule *r, uint8_t *state, uint32_t way)
{
    switch (r->kind) {
    case REPL_HIT_NIBBLE: repl_order_hit((uint64_t *)(void *)state, way); break;
    case REPL_HIT_RRPV: state[way] = 0; break;
    case REPL_HIT_QLRU: {
        /* The usual hit, which leaves the ages, inline in every caller
         * (no store); repl_qlru_hit_word tests it first too. */
        uint64_t *x = (uint64_t *)(void *)state;
        const uint64_t v = *x;
        if (!repl_qlru_hit_keeps(r, v, way))
            *x = repl_qlru_hit_word(r, v, way);
        break;
    }
    default: assert(0 && "no inline hit rule"); break;
    }
}

/* p's fill / victim / removal rule (repl_ops.evict_rule), REPL_EVICT_OPS
 * when it has none. */
repl_evict_rule repl_evict_rule_of(const repl_policy *p);

/* 1 when rules a and b choose victims and remove lines alike (their fills
 * may differ: a duel's members). */
static inline int repl_evict_choice_same(const repl_evict_rule *a, const repl_evict_rule *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind != REPL_EVICT_QLRU)
        return 1;
    return a->qlru_r == b->qlru_r && a->qlru_u == b->qlru_u && a->qlru_umo == b->qlru_umo &&
           a->qlru_mask_age == b->qlru_mask_age && a->qlru_full == b->qlru_full && a->qlru_lo == b->qlru_lo;
}

/* RRIP's victim among the valid ways `mask` of the RRPV bytes `r`: the
 * first (lowest) way at RRPV 3; if there is none, every way of the mask
 * ages by one and the search repeats (repl_rrip.c). */
static inline uint32_t repl_rrpv_victim(uint8_t *r, uint64_t mask)
{
    for (;;) {
        for (uint64_t m = mask; m; m &= m - 1) {
            const uint32_t w = (uint32_t)__builtin_ctzll(m);
            if (r[w] >= 3)
                return w;
        }
        for (uint64_t m = mask; m; m &= m - 1)
            r[__builtin_ctzll(m)]++;
    }
}

/* Bit 2w set for each bit w of a 32-bit mask (QLRU's packed fields). */
static inline uint64_t repl_qlru_spread(uint64_t m)
{
    m = (m | (m << 16)) & 0x0000FFFF0000FFFFull;
    m = (m | (m << 8)) & 0x00FF00FF00FF00FFull;
    m = (m | (m << 4)) & 0x0F0F0F0F0F0F0F0Full;
    m = (m | (m << 2)) & 0x3333333333333333ull;
    return (m | (m << 1)) & 0x5555555555555555ull;
}

/* QLRU's choice among the empty ways `empty` (not 0) under R<r>: R2 the
 * highest, R0 / R1 the lowest. */
static inline uint32_t repl_qlru_empty_way(uint32_t r, uint64_t empty)
{
    return r == 2 ? 63u - (uint32_t)__builtin_clzll(empty) : (uint32_t)__builtin_ctzll(empty);
}

/* repl_qlru.c: repl_qlru_fill_way's rare case, a partial mask with no way
 * of age 3. */
uint32_t repl_qlru_fill_rare(const repl_evict_rule *r, uint64_t *x, uint64_t mask);

/* QLRU's choice of the way a miss fills in the packed ages *x (rule r),
 * inside `mask` whose empty ways are `empty` (repl_qlru.c has the rules):
 * UMO ages the set first; then R's empty way, else the mask's leftmost way
 * of age 3, else repl_qlru_fill_rare. */
static inline uint32_t repl_qlru_fill_way(const repl_evict_rule *r, uint64_t *x, uint64_t mask, uint64_t empty)
{
    if (r->qlru_umo)
        *x = repl_qlru_age_word(r->qlru_u, *x, r->qlru_lo, -1);
    if (empty)
        return repl_qlru_empty_way(r->qlru_r, empty);
    const uint64_t c = repl_qlru_at3(*x, mask == r->qlru_full ? r->qlru_lo : repl_qlru_spread(mask));
    if (c)
        return (uint32_t)__builtin_ctzll(c) / 2;
    return repl_qlru_fill_rare(r, x, mask);
}

/* The packed ages after way w's becomes v, then U for an access to w
 * (unless UMO). */
static inline __attribute__((always_inline)) uint64_t repl_qlru_set_word(const repl_evict_rule *r, uint64_t x, uint32_t w, uint32_t v)
{
    const uint64_t y = (x & ~(3ull << (2 * w))) | (uint64_t)v << (2 * w);
    return r->qlru_umo ? y : repl_qlru_age_word(r->qlru_u, y, r->qlru_lo, (int32_t)w);
}

/* Under rule r (not REPL_EVICT_OPS), on the policy state `state` of a set
 * of `ways` ways: the way a miss fills inside `mask` (empty ways `empty`),
 * which may update the state (RRIP's and QLRU UMO's ageing) ... */
static inline __attribute__((always_inline)) uint32_t repl_evict_way(const repl_evict_rule *r, uint8_t *state,
                                                                     uint64_t mask, uint64_t empty)
{
    switch (r->kind) {
    case REPL_EVICT_RRPV: return empty ? (uint32_t)__builtin_ctzll(empty) : repl_rrpv_victim(state, mask);
    case REPL_EVICT_QLRU: return repl_qlru_fill_way(r, (uint64_t *)(void *)state, mask, empty);
    default: assert(0 && "no inline evict rule"); return UINT32_MAX;
    }
}

/* ... a new line's update in `way` (when r->fill) ... */
static inline __attribute__((always_inline)) void repl_evict_fill(const repl_evict_rule *r, uint8_t *state, uint32_t way)
{
    switch (r->kind) {
    case REPL_EVICT_RRPV: state[way] = r->rrpv_fill; break;
    case REPL_EVICT_QLRU: {
        uint64_t *x = (uint64_t *)(void *)state;
        *x = repl_qlru_set_word(r, *x, way, r->qlru_miss);
        break;
    }
    default: assert(0 && "no inline evict rule"); break;
    }
}

/* ... and the removal of the line in `way`. */
static inline __attribute__((always_inline)) void repl_evict_remove(const repl_evict_rule *r, uint8_t *state, uint32_t way)
{
    switch (r->kind) {
    case REPL_EVICT_RRPV: state[way] = 3; break;
    case REPL_EVICT_QLRU: break;   /* the way keeps its age */
    default: assert(0 && "no inline evict rule"); break;
    }
}

/* The way a miss in `set` fills inside `mask`, whose empty ways are `empty`:
 * the policy's fill_way, else the lowest empty way, else its victim. */
static inline uint32_t repl_fill_way(repl_policy *p, uint32_t set, uint64_t mask, uint64_t empty)
{
    if (p->ops->fill_way)
        return p->ops->fill_way(p, set, mask, empty);
    return empty ? (uint32_t)__builtin_ctzll(empty) : p->ops->victim(p, set, mask);
}

/* Look up an ops table by name (NULL if unknown).  Names: see repl.c. */
const repl_ops *repl_find(const char *name);
/* 0 when `name` is a policy; else -1 and one line in msg on what is wrong
 * (the field of a QLRU name, the allowed values). */
int repl_check_name(const char *name, char *msg, size_t cap);
/* The family of policy `name` (of its first policy for duel:A,B), NULL when
 * `name` is no policy. */
const char *repl_family(const char *name);
/* The comma-separated list of the registry's names (each module's `usage`
 * or `name`), for usage messages, into buf (cap bytes, always terminated,
 * cut if short); returns buf. */
char *repl_names(char *buf, size_t cap);
/* The model's upper-bound chain of policy `name` (of its first policy for
 * duel:A,B); REPL_BOUND_NONE when `name` is no policy or has none. */
repl_bound repl_model_bound(const char *name);

/* Ops tables, one per policy module. */
extern const repl_ops repl_lru_ops, repl_bip_ops;     /* repl_lru.c  */
extern const repl_ops repl_srrip_ops, repl_brrip_ops; /* repl_rrip.c */
extern const repl_ops repl_qlru_ops;                  /* repl_qlru.c */
extern const repl_ops repl_drrip_ops, repl_dip_ops, repl_duel_ops;   /* repl_duel.c */

/* QLRU family (and duels of it) only: the age of (set, way), 0..3. */
int repl_qlru_age(const repl_policy *p, uint32_t set, uint32_t way);

/* Dueling policies only: current PSEL and its midpoint (-1 for others). */
int repl_duel_psel(const repl_policy *p, uint32_t *psel, uint32_t *mid);
/* Dueling policies only: 1 when `set` is a leader of the first policy, 2 of
 * the second, 0 a follower (-1 for other policies). */
int repl_duel_leader(const repl_policy *p, uint32_t set);

/* Internal to the dueling module: create a non-dueling policy sharing state. */
int repl_init_member(repl_policy *p, const repl_ops *ops, const repl_config *c, uint32_t nsets,
                     uint32_t ways, uint8_t *base, uint64_t stride, void *shared_state, ddio_err *e);

#endif
