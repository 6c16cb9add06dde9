/* repl_lru.c - the recency family: LRU and BIP.
 *
 * Each set keeps its ways in recency order, one byte per way: order[0] is the
 * most recently used way, order[ways-1] the least.  A hit or an MRU insertion
 * moves the way to the front; the victim is the way nearest the LRU end that
 * the allocation mask allows (one step when the mask is the whole set).  An
 * invalidated way moves to the LRU end, where the cache refills it first.
 * BIP (Qureshi et al., ISCA 2007) inserts at MRU with probability epsilon and
 * otherwise at the LRU end, which protects a cyclic working set slightly
 * larger than the cache from thrashing. */
#include <string.h>

#include "sim/cache/repl.h"

static inline uint8_t *order_of(repl_policy *p, uint32_t set)
{
    return repl_line_state(p, set);
}

static inline uint32_t position_of(const uint8_t *order, uint32_t ways, uint32_t way)
{
    const uint8_t *at = memchr(order, (int)way, ways);
    return (uint32_t)(at - order);
}

static void recency_init_set(repl_policy *p, uint32_t set)
{
    uint8_t *order = order_of(p, set);
    for (uint32_t w = 0; w < p->ways; w++)
        order[w] = (uint8_t)w;
}

static void recency_to_mru(repl_policy *p, uint32_t set, uint32_t way)
{
    uint8_t *order = order_of(p, set);
    uint32_t pos = position_of(order, p->ways, way);
    memmove(order + 1, order, pos);
    order[0] = (uint8_t)way;
}

static void recency_to_lru(repl_policy *p, uint32_t set, uint32_t way)
{
    uint8_t *order = order_of(p, set);
    uint32_t pos = position_of(order, p->ways, way);
    memmove(order + pos, order + pos + 1, p->ways - 1 - pos);
    order[p->ways - 1] = (uint8_t)way;
}

static uint32_t recency_victim(repl_policy *p, uint32_t set, uint64_t mask)
{
    const uint8_t *order = order_of(p, set);
    for (uint32_t i = p->ways; i-- > 0;)
        if ((mask >> order[i]) & 1)
            return order[i];
    return UINT32_MAX;   /* unreachable: the cache never passes an empty mask */
}

static void bip_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    if (ddio_rng_uniform(&p->rng) < p->epsilon)
        recency_to_mru(p, set, way);
    else
        recency_to_lru(p, set, way);
}

const repl_ops repl_lru_ops = {
    .name = "lru",
    .family = "recency",
    .line_bytes = 1,
    .init_set = recency_init_set,
    .on_hit = recency_to_mru,
    .on_fill = recency_to_mru,
    .victim = recency_victim,
    .on_invalidate = recency_to_lru,
};

const repl_ops repl_bip_ops = {
    .name = "bip",
    .family = "recency",
    .line_bytes = 1,
    .init_set = recency_init_set,
    .on_hit = recency_to_mru,
    .on_fill = bip_fill,
    .victim = recency_victim,
    .on_invalidate = recency_to_lru,
};
