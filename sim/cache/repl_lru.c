/* repl_lru.c - the recency family: LRU and BIP.
 *
 * Each set keeps its ways in recency order, MRU first.  Up to 16 ways the
 * order is one 64-bit word of 4-bit fields (field i = the way at recency
 * position i), so promoting a way is a handful of bit operations; wider
 * sets use one byte per position.  A hit or an MRU insertion moves the way
 * to the front; the victim is the way nearest the LRU end that the mask
 * allows (one step when the mask is the whole set).  An invalidated way moves
 * to the LRU end, where the cache refills it first.  BIP (Qureshi et al.,
 * ISCA 2007) inserts at MRU with probability epsilon and otherwise at the
 * LRU end, which protects a cyclic working set slightly larger than the
 * cache from thrashing. */
#include <string.h>

#include "sim/cache/lru_order.h"
#include "sim/cache/repl.h"

#define NIBBLE_WAYS LRU_ORDER_MAX_WAYS

static uint32_t recency_set_bytes(const char *name, uint32_t ways)
{
    (void)name;
    return ways <= NIBBLE_WAYS ? 8 : ways;
}

static inline uint64_t *word_of(repl_policy *p, uint32_t set)
{
    return (uint64_t *)(void *)repl_line_state(p, set);
}

/* --- byte order (ways > 16) --------------------------------------------- */

static inline uint32_t byte_position(const uint8_t *order, uint32_t ways, uint32_t way)
{
    const uint8_t *at = memchr(order, (int)way, ways);
    return (uint32_t)(at - order);
}

/* --- ops ---------------------------------------------------------------- */

static void recency_init_set(repl_policy *p, uint32_t set)
{
    if (p->ways <= NIBBLE_WAYS) {
        *word_of(p, set) = lru_order_init(p->ways);
        return;
    }
    uint8_t *order = repl_line_state(p, set);
    for (uint32_t w = 0; w < p->ways; w++)
        order[w] = (uint8_t)w;
}

static void recency_to_mru(repl_policy *p, uint32_t set, uint32_t way)
{
    if (p->ways <= NIBBLE_WAYS) {
        repl_order_hit(word_of(p, set), way);   /* REPL_HIT_NIBBLE */
        return;
    }
    uint8_t *order = repl_line_state(p, set);
    uint32_t pos = byte_position(order, p->ways, way);
    memmove(order + 1, order, pos);
    order[0] = (uint8_t)way;
}

static void recency_to_lru(repl_policy *p, uint32_t set, uint32_t way)
{
    if (p->ways <= NIBBLE_WAYS) {
        uint64_t *o = word_of(p, set);
        repl_order_remove(o, way, p->ways);
        return;
    }
    uint8_t *order = repl_line_state(p, set);
    uint32_t pos = byte_position(order, p->ways, way);
    memmove(order + pos, order + pos + 1, p->ways - 1 - pos);
    order[p->ways - 1] = (uint8_t)way;
}

static uint32_t recency_victim(repl_policy *p, uint32_t set, uint64_t mask)
{
    if (p->ways <= NIBBLE_WAYS)
        return lru_order_victim(*word_of(p, set), p->ways, mask);
    const uint8_t *order = repl_line_state(p, set);
    for (uint32_t i = p->ways; i-- > 0;)
        if ((mask >> order[i]) & 1)
            return order[i];
    return UINT32_MAX;
}

static void bip_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    if (ddio_rng_uniform(&p->rng) < p->epsilon)
        recency_to_mru(p, set, way);
    else
        recency_to_lru(p, set, way);
}

static void recency_hit_rule(const repl_policy *p, repl_hit_rule *r)
{
    if (p->ways <= NIBBLE_WAYS)
        r->kind = REPL_HIT_NIBBLE;   /* recency_to_mru's word case */
}

const repl_ops repl_lru_ops = {
    .name = "lru",
    .family = "recency",
    .model_bound = REPL_BOUND_BIP,   /* its own chain is the lower bound */
    .set_bytes = recency_set_bytes,
    .init_set = recency_init_set,
    .on_hit = recency_to_mru,
    .on_fill = recency_to_mru,
    .victim = recency_victim,
    .on_invalidate = recency_to_lru,
    .hit_rule = recency_hit_rule,
};

const repl_ops repl_bip_ops = {
    .name = "bip",
    .family = "recency",
    .model_bound = REPL_BOUND_BIP,
    .set_bytes = recency_set_bytes,
    .init_set = recency_init_set,
    .on_hit = recency_to_mru,
    .on_fill = bip_fill,
    .victim = recency_victim,
    .on_invalidate = recency_to_lru,
    .hit_rule = recency_hit_rule,
};

int repl_recency_nibble(const repl_policy *p)
{
    return p->ops->on_hit == recency_to_mru && p->ways <= NIBBLE_WAYS;
}
