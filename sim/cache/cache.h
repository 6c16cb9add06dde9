/* cache.h - one set-associative cache level: tags, per-line metadata, a
 * replacement policy and way-masked allocation.
 *
 * A lookup hits wherever the line is; an allocation (after a miss) may only
 * use the ways of the requester's mask (DDIO, CAT class, Shared ways).  The
 * invariant "a fill never lands outside its mask" is asserted here.
 * Lines are identified by their line number (address / line size), which is
 * also the stored tag, so any set mapping works without an inverse.
 *
 * Each set is one contiguous, 64-byte aligned block: the tags (padded with
 * CACHE_INVALID to a multiple of 4, cache_match; first, so that each pair
 * of them is 16-byte aligned), a bitmask of the valid ways, one metadata
 * byte per line for the caller (coherence state), then the policy's
 * per-line metadata.  One simulated access therefore touches one small
 * region of memory.  Before set 0's block lies a guard block whose tags
 * are all CACHE_INVALID and which nothing writes: the DMA runs' tight loop
 * (hier_run.c) reads way 0 of "set -1" for a zero hint word, and finds no
 * line there, without a test of its own. */
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
    uint8_t *blocks;        /* nsets blocks of block_bytes, after a guard block (below) */
    uint64_t block_bytes;
    uint32_t tag_slots;     /* ways rounded up to a multiple of 4: tags are compared 4 at a time */
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
    return (uint64_t *)(void *)(c->blocks + (uint64_t)set * c->block_bytes + 8u * c->tag_slots);
}

/* The tags of `set` (c->tag_slots entries, CACHE_INVALID = empty way or padding),
 * 16-byte aligned. */
static inline uint64_t *cache_tags(const cache *c, uint32_t set)
{
    return (uint64_t *)(void *)(c->blocks + (uint64_t)set * c->block_bytes);
}

static inline uint8_t *cache_meta(const cache *c, uint32_t set, uint32_t way)
{
    return c->blocks + (uint64_t)set * c->block_bytes + c->meta_off + way;
}

/* The fields the block accessors read, copied into a local value: a loop
 * that stores metadata bytes (which may alias anything) and reads blocks
 * through a view keeps them in registers instead of reloading `c`. */
typedef struct cache_view {
    uint8_t *blocks;
    uint64_t block_bytes;
    uint32_t meta_off;
} cache_view;

static inline cache_view cache_view_of(const cache *c)
{
    return (cache_view){.blocks = c->blocks, .block_bytes = c->block_bytes, .meta_off = c->meta_off};
}

static inline uint64_t *cache_view_tags(cache_view v, uint32_t set)
{
    return (uint64_t *)(void *)(v.blocks + (uint64_t)set * v.block_bytes);   /* = cache_tags */
}

static inline uint8_t *cache_view_meta(cache_view v, uint32_t set, uint32_t way)
{
    return v.blocks + (uint64_t)set * v.block_bytes + v.meta_off + way;
}

/* Candidates for `line` among `slots` tags (a multiple of 4): bit w set when
 * the low 32 bits of tag w equal those of `line`.  Four tags per SSE2
 * compare (their low halves gathered by one shuffle), 16 per movemask; a
 * candidate is a
 * match only if its full tag is `line` too (cache_match_verify).  Padding
 * slots and empty ways hold CACHE_INVALID, which is never a line: they can
 * be candidates, never matches. */
#ifdef __SSE2__
/* Tags t[0..3] whose low 32 bits are `key`'s: one dword lane each (t is
 * 16-byte aligned: the second load folds into the shuffle). */
static inline __m128i cache_match_lo4(const uint64_t *t, __m128i key)
{
    __m128 a = _mm_castsi128_ps(_mm_load_si128((const __m128i *)(const void *)t));
    __m128 b = _mm_castsi128_ps(_mm_load_si128((const __m128i *)(const void *)(t + 2)));
    return _mm_cmpeq_epi32(_mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))), key);
}
#endif

static inline uint64_t cache_match_candidates(const uint64_t *t, uint32_t slots, uint64_t line)
{
    uint64_t m = 0;
#ifdef __SSE2__
    /* 16 tags per step: four 4-tag compares, narrowed to one byte per tag by
     * two signed packs (0 / -1 survive saturation), one movemask. */
    const __m128i key = _mm_set1_epi32((int)(uint32_t)line), zero = _mm_setzero_si128();
#pragma GCC unroll 4
    for (uint32_t w = 0; w < slots; w += 16) {
        __m128i e0 = cache_match_lo4(t + w, key);
        __m128i e1 = w + 4 < slots ? cache_match_lo4(t + w + 4, key) : zero;
        __m128i e2 = w + 8 < slots ? cache_match_lo4(t + w + 8, key) : zero;
        __m128i e3 = w + 12 < slots ? cache_match_lo4(t + w + 12, key) : zero;
        __m128i b = _mm_packs_epi16(_mm_packs_epi32(e0, e1), _mm_packs_epi32(e2, e3));
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(b) << w;
    }
#else
    for (uint32_t w = 0; w < slots; w++)
        m |= (uint64_t)((uint32_t)t[w] == (uint32_t)line) << w;
#endif
    return m;
}

/* The candidates whose full tag is `line`. */
static inline uint64_t cache_match_verify(const uint64_t *t, uint64_t cand, uint64_t line)
{
    uint64_t m = 0;
    for (; cand; cand &= cand - 1) {
        uint32_t w = (uint32_t)__builtin_ctzll(cand);
        m |= (uint64_t)(t[w] == line) << w;
    }
    return m;
}

/* Bit w set when way w of `set` holds `line`. */
static inline uint64_t cache_match(const cache *c, uint32_t set, uint64_t line)
{
    const uint64_t *t = cache_tags(c, set);
    return cache_match_verify(t, cache_match_candidates(t, c->tag_slots, line), line);
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
 * serialise (docs/performance.md). */
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
