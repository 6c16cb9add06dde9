/* repl_rrip.c - the RRIP family (Jaleel et al., ISCA 2010): SRRIP and BRRIP
 * with 2-bit re-reference prediction values (RRPV 0 = near, 3 = distant).
 *
 * SRRIP-HP: a hit sets RRPV to 0, a fill inserts at 2, and the victim is
 * the first way (lowest index) inside the mask whose RRPV is 3; if there is
 * none, every way of the mask ages by one and the search repeats.  Ageing
 * only the masked ways is our choice for way-partitioned (CAT/DDIO)
 * allocation.  In Abel and Reineke's QLRU notation (repl_qlru.c) this is
 * QLRU_H00_M2_R0_U0_UMO, equal to it on full masks when lines leave only by
 * eviction; "qlru" remains a name of srrip for older configurations.
 * BRRIP inserts at 3 ("distant") except with probability epsilon at 2. */
#include "sim/cache/repl.h"

#define RRPV_MAX 3
#define RRPV_LONG 2

/* Per line: one uint8_t RRPV in the cache's set blocks.  The cache zeroes
 * them, but the value of an invalid way is never read: the cache fills
 * invalid ways before it asks for a victim. */

static inline uint8_t *rrpv_of(repl_policy *p, uint32_t set)
{
    return repl_line_state(p, set);
}

static uint32_t rrip_set_bytes(const char *name, uint32_t ways)
{
    (void)name;
    return ways;   /* one RRPV byte per line */
}

static const repl_hit_rule rrpv_rule = {.kind = REPL_HIT_RRPV};

static void rrip_hit(repl_policy *p, uint32_t set, uint32_t way)
{
    repl_hit_apply(&rrpv_rule, rrpv_of(p, set), way);
}

static void rrip_hit_rule(const repl_policy *p, repl_hit_rule *r)
{
    (void)p;
    *r = rrpv_rule;
}

static uint32_t rrip_victim(repl_policy *p, uint32_t set, uint64_t mask)
{
    return repl_rrpv_victim(rrpv_of(p, set), mask);
}

/* SRRIP's fill, victims and removals (BRRIP's victims and removals: its
 * fill flips a coin). */
static const repl_evict_rule srrip_rule = {.kind = REPL_EVICT_RRPV, .fill = 1, .rrpv_fill = RRPV_LONG};

static void srrip_evict_rule(const repl_policy *p, repl_evict_rule *r)
{
    (void)p;
    *r = srrip_rule;
}

static void brrip_evict_rule(const repl_policy *p, repl_evict_rule *r)
{
    (void)p;
    *r = srrip_rule;
    r->fill = 0;
}

static void rrip_invalidate(repl_policy *p, uint32_t set, uint32_t way)
{
    repl_evict_remove(&srrip_rule, rrpv_of(p, set), way);
}

static void srrip_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    repl_evict_fill(&srrip_rule, rrpv_of(p, set), way);
}

static void brrip_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    rrpv_of(p, set)[way] = ddio_rng_uniform(&p->rng) < p->epsilon ? RRPV_LONG : RRPV_MAX;
}

const repl_ops repl_srrip_ops = {
    .name = "srrip",
    .family = "rrip",
    .usage = "srrip (qlru)",
    .model_bound = REPL_BOUND_QLRU,
    .set_bytes = rrip_set_bytes,
    .on_hit = rrip_hit,
    .on_fill = srrip_fill,
    .victim = rrip_victim,
    .on_invalidate = rrip_invalidate,
    .hit_rule = rrip_hit_rule,
    .evict_rule = srrip_evict_rule,
};

const repl_ops repl_brrip_ops = {
    .name = "brrip",
    .family = "rrip",
    .model_bound = REPL_BOUND_BIP,   /* mostly distant insertions: bimodal */
    .set_bytes = rrip_set_bytes,
    .on_hit = rrip_hit,
    .on_fill = brrip_fill,
    .victim = rrip_victim,
    .on_invalidate = rrip_invalidate,
    .hit_rule = rrip_hit_rule,
    .evict_rule = brrip_evict_rule,
};
