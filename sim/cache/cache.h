/* cache.h - one set-associative cache level: tags, per-line metadata, a
 * replacement policy and way-masked allocation.
 *
 * A lookup hits wherever the line is; an allocation (after a miss) may only
 * use the ways of the requester's mask (DDIO, CAT class, Shared ways).  The
 * invariant "a fill never lands outside its mask" is asserted here.
 * Lines are identified by their line number (address / line size), which is
 * also the stored tag, so any set mapping works without an inverse.
 *
 * Each set is one contiguous, 64-byte aligned block: a bitmask of the valid
 * ways, the tags (padded to an even count), one metadata byte per line for
 * the caller (coherence state), then the policy's per-line metadata.  One
 * simulated access therefore touches one small region of memory. */
#ifndef DDIOSIM_CACHE_CACHE_H
#define DDIOSIM_CACHE_CACHE_H

#include <assert.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sim/cache/geometry.h"
#include "sim/cache/repl.h"

#define CACHE_INVALID UINT64_MAX

typedef struct cache {
    cache_geom geom;
    cache_mapper map;
    uint32_t nsets, ways;
    uint64_t full_mask;     /* all ways */
    uint8_t *blocks;        /* nsets blocks of block_bytes */
    uint64_t block_bytes;
    uint32_t tag_slots;     /* ways rounded up to even: tags are compared in pairs */
    uint32_t meta_off;      /* offset of the caller's metadata bytes in a block */
    uint32_t repl_off;      /* offset of the policy's metadata in a block */
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

/* Bit w set when way w of `set` holds a line. */
static inline uint64_t *cache_valid(const cache *c, uint32_t set)
{
    return (uint64_t *)(void *)(c->blocks + (uint64_t)set * c->block_bytes);
}

/* The tags of `set` (c->ways entries, CACHE_INVALID = empty way). */
static inline uint64_t *cache_tags(const cache *c, uint32_t set)
{
    return (uint64_t *)(void *)(c->blocks + (uint64_t)set * c->block_bytes + 8);
}

static inline uint8_t *cache_meta(const cache *c, uint32_t set, uint32_t way)
{
    return c->blocks + (uint64_t)set * c->block_bytes + c->meta_off + way;
}

/* Bit w set when way w of `set` holds `line`: branch-free, two tags per
 * SSE2 compare (padding slots hold CACHE_INVALID and never match a line). */
static inline uint64_t cache_match(const cache *c, uint32_t set, uint64_t line)
{
    const uint64_t *t = cache_tags(c, set);
    uint64_t m = 0;
#ifdef __SSE2__
    const __m128i key = _mm_set1_epi64x((long long)line);
    for (uint32_t w = 0; w < c->tag_slots; w += 2) {
        __m128i eq = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(t + w)), key);
        eq = _mm_and_si128(eq, _mm_shuffle_epi32(eq, _MM_SHUFFLE(2, 3, 0, 1)));
        m |= (uint64_t)_mm_movemask_pd(_mm_castsi128_pd(eq)) << w;
    }
#else
    for (uint32_t w = 0; w < c->ways; w++)
        m |= (uint64_t)(t[w] == line) << w;
#endif
    return m;
}

/* Way holding `line` in `set`, or -1. */
static inline int cache_find(const cache *c, uint32_t set, uint64_t line)
{
    uint64_t m = cache_match(c, set, line);
    return m ? __builtin_ctzll(m) : -1;
}

/* Start loading the block of `line`'s set.  A replay loop that prefetches a
 * few accesses ahead overlaps the memory latency of independent accesses,
 * which the data-dependent branches of a simulated access otherwise
 * serialise (about 2x on a 24.75 MiB LLC, see docs/performance.md). */
/* always_inline: GCC 12 deems a helper whose only effect is a prefetch
 * "const" and deletes the call before inlining it. */
static inline __attribute__((always_inline)) void cache_prefetch(const cache *c, uint64_t line)
{
    const uint8_t *b = c->blocks + (uint64_t)cache_set(c, line) * c->block_bytes;
    __builtin_prefetch(b);
    if (c->block_bytes > 64)
        __builtin_prefetch(b + 64);
}

static inline void cache_hit(cache *c, uint32_t set, uint32_t way)
{
    c->repl->ops->on_hit(c->repl, set, way);
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
