/* cache.h - one set-associative cache level: tags, per-line metadata, a
 * replacement policy and way-masked allocation.
 *
 * A lookup hits wherever the line is; an allocation (after a miss) may only
 * use the ways of the requester's mask (DDIO, CAT class, Shared ways).  The
 * invariant "a fill never lands outside its mask" is asserted here.
 * Lines are identified by their line number (address / line size), which is
 * also the stored tag, so any set mapping works without an inverse. */
#ifndef DDIOSIM_CACHE_CACHE_H
#define DDIOSIM_CACHE_CACHE_H

#include <assert.h>
#include <stdint.h>

#include "sim/cache/geometry.h"
#include "sim/cache/repl.h"

#define CACHE_INVALID UINT64_MAX

typedef struct cache {
    cache_geom geom;
    cache_mapper map;
    uint32_t nsets, ways;
    uint64_t full_mask;     /* all ways */
    uint64_t *tags;         /* nsets * ways line numbers, CACHE_INVALID = empty */
    uint8_t *meta;          /* nsets * ways caller-defined bits (state, dirty) */
    repl_policy *repl;
} cache;

typedef struct cache_evicted {
    uint64_t line;          /* CACHE_INVALID when the fill used an empty way */
    uint8_t meta;
} cache_evicted;

int cache_init(cache *c, const cache_geom *g, const repl_config *rc, ddio_err *e);
void cache_free(cache *c);

static inline uint32_t cache_set(const cache *c, uint64_t line)
{
    return cache_mapper_set(&c->map, line);
}

/* Way holding `line` in `set`, or -1. */
static inline int cache_find(const cache *c, uint32_t set, uint64_t line)
{
    const uint64_t *t = &c->tags[(uint64_t)set * c->ways];
    for (uint32_t w = 0; w < c->ways; w++)
        if (t[w] == line)
            return (int)w;
    return -1;
}

static inline void cache_hit(cache *c, uint32_t set, uint32_t way)
{
    c->repl->ops->on_hit(c->repl, set, way);
}

static inline uint8_t *cache_meta(cache *c, uint32_t set, uint32_t way)
{
    return &c->meta[(uint64_t)set * c->ways + way];
}

/* Place `line` in `set` inside `mask` (an empty way first, else the policy's
 * victim), reporting the evicted line.  Returns the way used. */
uint32_t cache_fill(cache *c, uint32_t set, uint64_t mask, uint64_t line, uint8_t meta,
                    cache_evicted *ev);

/* Remove the line in (set, way): it moved to another level or was dropped. */
void cache_remove(cache *c, uint32_t set, uint32_t way);

/* One access for single-level replay: hit -> policy update, returns 1;
 * miss -> fill inside alloc_mask (when allocate), returns 0. */
int cache_access(cache *c, uint64_t line, uint64_t alloc_mask, int allocate, cache_evicted *ev);

/* Number of valid lines whose way is in `mask` (occupancy by region). */
uint64_t cache_count_valid(const cache *c, uint64_t mask);

#endif
