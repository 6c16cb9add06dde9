/* setblock.h - the set-block executor: each change an access makes to one
 * set block of a cache (cache.h's layout: tags, valid mask, metadata
 * bytes, the policy's bytes), and the counting of a hit, written once.
 *
 * The hierarchy's general path (hier.c) and its fast paths (hier_fast.c,
 * hier_run.c) all call these, so that a rule of the hierarchy (what a hit
 * does to the order word, the state an LLC_KEEP cell leaves, the stores
 * of a fill or a removal) lives in one place.  They work on a block
 * pointer and a layout passed by value: once inlined, the layout's fields
 * are loaded once, before the metadata stores (a byte store may alias
 * anything), or are constants where the caller passes the usual geometry
 * (sb_layout_make with constant arguments).
 *
 * The order-word operations (touch, remove, fill's MRU insertion) are
 * those of LRU / BIP on the nibble order (lru_order.h); a caller uses them
 * only when the policy keeps one at repl_off (repl_recency_nibble), and
 * goes through the policy's ops otherwise.  Private to sim/cache. */
#ifndef DDIOSIM_CACHE_SETBLOCK_H
#define DDIOSIM_CACHE_SETBLOCK_H

#include <assert.h>
#include <stdint.h>

#include "sim/cache/cache.h"
#include "sim/cache/coherence.h"
#include "sim/cache/hier.h"
#include "sim/cache/lru_order.h"
#include "sim/cache/repl.h"

/* Per-line metadata byte: the coherence state (ST_M means dirty). */
#define META_STATE(m) ((uint8_t)((m) & 3))

/* Where the parts of a set block are. */
typedef struct sb_layout {
    uint64_t block_bytes;   /* a multiple of 64: blocks are 64-byte aligned */
    uint32_t tag_slots;     /* tags (ways rounded up to 4, cache_match_candidates), first */
    uint32_t meta_off;      /* then the valid mask (at 8 x tag_slots), then one metadata byte per way */
    uint32_t repl_off;      /* then the policy's bytes, 8-byte aligned */
    uint32_t ways;
    uint64_t full_mask;     /* every way */
} sb_layout;

/* The layout of a set of `ways` ways whose policy keeps `policy_bytes`
 * per set: the one rule cache_init lays blocks out by.  With constant
 * arguments it is a constant (the 11-way LLC: 128 bytes, metadata at
 * 104, the order word at 120). */
static inline __attribute__((always_inline)) sb_layout sb_layout_make(uint32_t ways, uint64_t policy_bytes)
{
    sb_layout l;
    l.ways = ways;
    l.full_mask = ways == 64 ? UINT64_MAX : (1ull << ways) - 1;
    l.tag_slots = (ways + 3) & ~3u;
    l.meta_off = 8 + l.tag_slots * 8;
    l.repl_off = (l.meta_off + ways + 7) & ~7u;
    l.block_bytes = (l.repl_off + policy_bytes + 63) & ~(uint64_t)63;
    return l;
}

/* The layout of cache `c`'s blocks. */
static inline __attribute__((always_inline)) sb_layout sb_layout_of(const cache *c)
{
    return (sb_layout){.block_bytes = c->block_bytes, .tag_slots = c->tag_slots, .meta_off = c->meta_off,
                       .repl_off = c->repl_off, .ways = c->ways, .full_mask = c->full_mask};
}

/* 1 when blocks of layouts `a` and `b` put tags, metadata and the policy's
 * bytes at the same places (their way counts may differ). */
static inline int sb_same_places(sb_layout a, sb_layout b)
{
    return a.block_bytes == b.block_bytes && a.tag_slots == b.tag_slots && a.meta_off == b.meta_off &&
           a.repl_off == b.repl_off;
}

/* --- the parts of block `b` -------------------------------------------------- */

static inline __attribute__((always_inline)) uint64_t *sb_tags(uint8_t *b)
{
    return (uint64_t *)(void *)b;
}

static inline __attribute__((always_inline)) uint64_t *sb_valid(sb_layout l, uint8_t *b)
{
    return (uint64_t *)(void *)(b + 8u * l.tag_slots);
}

static inline __attribute__((always_inline)) uint8_t *sb_meta(sb_layout l, uint8_t *b, uint32_t way)
{
    return b + l.meta_off + way;
}

/* The nibble order word (LRU / BIP). */
static inline __attribute__((always_inline)) uint64_t *sb_order(sb_layout l, uint8_t *b)
{
    return (uint64_t *)(void *)(b + l.repl_off);
}

/* --- lookups ------------------------------------------------------------------
 *
 * A set of the hierarchy holds each line at most once (a fill only follows
 * a miss), so the first candidate whose full tag is the line is its way. */

/* cache_match_verify stopping at the first match (one candidate, the usual
 * case, is one compare). */
static inline __attribute__((always_inline)) uint64_t sb_match_first(const uint64_t *t, uint64_t cand, uint64_t line)
{
    uint64_t m = 0;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    const uint64_t all = cand;
#endif
    for (; cand; cand &= cand - 1) {
        uint32_t w = (uint32_t)__builtin_ctzll(cand);
        if (t[w] == line) {
            m = 1ull << w;
            break;
        }
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(m == cache_match_verify(t, all, line) && "a line held twice in one set");
#endif
    return m;
}

/* The way of `line` among its candidates `cand`, or -1. */
static inline __attribute__((always_inline)) int sb_way_first(const uint64_t *t, uint64_t cand, uint64_t line)
{
    for (; cand; cand &= cand - 1) {
        int w = __builtin_ctzll(cand);
        if (t[w] == line)
            return w;
    }
    return -1;
}

/* The way of `line` among `slots` tags, or -1; the usual slot counts
 * unrolled (constant compare loops, no bound tests). */
static inline __attribute__((always_inline)) int sb_way(const uint64_t *t, uint32_t slots, uint64_t line)
{
    int w;
    switch (slots) {
    case 4: w = sb_way_first(t, cache_match_candidates(t, 4, line), line); break;
    case 8: w = sb_way_first(t, cache_match_candidates(t, 8, line), line); break;
    case 12: w = sb_way_first(t, cache_match_candidates(t, 12, line), line); break;
    case 16: w = sb_way_first(t, cache_match_candidates(t, 16, line), line); break;
    default: w = sb_way_first(t, cache_match_candidates(t, slots, line), line); break;
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    uint64_t all = cache_match_verify(t, cache_match_candidates(t, slots, line), line);
    assert(all == (w < 0 ? 0 : 1ull << w) && "a line held twice in one set");
#endif
    return w;
}

/* sb_way as a mask (cache_match), the same slot counts unrolled. */
static inline __attribute__((always_inline)) uint64_t sb_match(const uint64_t *t, uint32_t slots, uint64_t line)
{
    switch (slots) {
    case 4: return sb_match_first(t, cache_match_candidates(t, 4, line), line);
    case 8: return sb_match_first(t, cache_match_candidates(t, 8, line), line);
    case 12: return sb_match_first(t, cache_match_candidates(t, 12, line), line);
    case 16: return sb_match_first(t, cache_match_candidates(t, 16, line), line);
    default: return sb_match_first(t, cache_match_candidates(t, slots, line), line);
    }
}

/* sb_way with the most recent way of the nibble order tried first: the
 * line of most hits in a forwarding run (used again before its set saw
 * another access). */
static inline __attribute__((always_inline)) int sb_way_mru_first(sb_layout l, uint8_t *b, uint64_t line)
{
    const uint32_t w0 = (uint32_t)*sb_order(l, b) & 0xF;
    if (sb_tags(b)[w0] == line) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(sb_way(sb_tags(b), l.tag_slots, line) == (int)w0);
#endif
        return (int)w0;
    }
    return sb_way(sb_tags(b), l.tag_slots, line);
}

/* --- changes ------------------------------------------------------------------ */

/* A hit's replacement update on the order word: `way` becomes the most
 * recent (no store when it is already). */
static inline __attribute__((always_inline)) void sb_touch(sb_layout l, uint8_t *b, uint32_t way)
{
    repl_order_hit(sb_order(l, b), way);
}

/* A hit's replacement update by the policy's hit rule `r` (not
 * REPL_HIT_OPS) on the policy's bytes of the block: sb_touch for the
 * nibble order, the RRPV byte or the QLRU age word for the others.  With
 * r->kind constant (the DMA runs' tight loop) one case is left. */
static inline __attribute__((always_inline)) void sb_touch_rule(sb_layout l, uint8_t *b, uint32_t way,
                                                                const repl_hit_rule *r)
{
    if (r->kind == REPL_HIT_NIBBLE)
        sb_touch(l, b, way);
    else
        repl_hit_apply(r, b + l.repl_off, way);
}

/* The state an LLC_KEEP cell leaves the line in way `way` in
 * (coh_keep_state); the byte holds the state alone.  For a read with a
 * constant request this is no store at all. */
static inline __attribute__((always_inline)) void sb_keep_state(sb_layout l, uint8_t *b, uint32_t way,
                                                                enum coh_req req)
{
    uint8_t *m = sb_meta(l, b, way);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(*m == META_STATE(*m) && "a metadata byte is the state alone");
#endif
    *m = (uint8_t)coh_keep_state(req, (enum coh_state)*m);
}

/* A request meeting an LLC_KEEP cell on the line in `way`, reading no
 * memory and with no L2 copy to act on: the order update and the state. */
static inline __attribute__((always_inline)) void sb_keep_hit(sb_layout l, uint8_t *b, uint32_t way, enum coh_req req)
{
    sb_touch(l, b, way);
    sb_keep_state(l, b, way, req);
}

/* sb_keep_hit by the policy's hit rule `r` (sb_touch_rule). */
static inline __attribute__((always_inline)) void sb_keep_hit_rule(sb_layout l, uint8_t *b, uint32_t way,
                                                                   enum coh_req req, const repl_hit_rule *r)
{
    sb_touch_rule(l, b, way, r);
    sb_keep_state(l, b, way, req);
}

/* `line` enters the empty (or just emptied) way `way` with metadata byte
 * `meta`: the tag, the valid bit, the byte.  The policy's update is the
 * caller's. */
static inline __attribute__((always_inline)) void sb_put(sb_layout l, uint8_t *b, uint32_t way, uint64_t line,
                                                         uint8_t meta)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(way < l.ways);
#endif
    sb_tags(b)[way] = line;
    *sb_valid(l, b) |= 1ull << way;
    *sb_meta(l, b, way) = meta;
}

/* The line in `way` leaves: the tag, the valid bit, the byte cleared.  The
 * policy's update is the caller's. */
static inline __attribute__((always_inline)) void sb_clear(sb_layout l, uint8_t *b, uint32_t way)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(way < l.ways);
#endif
    sb_tags(b)[way] = CACHE_INVALID;
    *sb_valid(l, b) &= ~(1ull << way);
    *sb_meta(l, b, way) = 0;
}

/* The line in `way` leaves a block with a nibble order: its way goes to
 * the LRU end (on_invalidate of LRU / BIP). */
static inline __attribute__((always_inline)) void sb_remove(sb_layout l, uint8_t *b, uint32_t way)
{
    uint64_t *o = sb_order(l, b);   /* before the byte store, which may alias it */
    sb_clear(l, b, way);
    repl_order_remove(o, way, l.ways);
}

/* The line in `way` leaves block `b`: sb_remove when `recency` (LRU /
 * BIP on the nibble order), else sb_clear and the policy's evict rule `er`
 * (not REPL_EVICT_OPS). */
static inline __attribute__((always_inline)) void sb_remove_rule(sb_layout l, uint8_t *b, uint32_t way, int recency,
                                                                 const repl_evict_rule *er)
{
    if (recency) {
        sb_remove(l, b, way);
        return;
    }
    sb_clear(l, b, way);
    repl_evict_remove(er, b + l.repl_off, way);
}

/* The empty ways of `mask` in block `b`. */
static inline __attribute__((always_inline)) uint64_t sb_empty(sb_layout l, uint8_t *b, uint64_t mask)
{
    return ~*sb_valid(l, b) & mask & l.full_mask;
}

/* LRU's fill of `line` into `way` (an empty way of the mask, or the
 * victim's): sb_put and the MRU insertion. */
static inline __attribute__((always_inline)) void sb_fill_lru(sb_layout l, uint8_t *b, uint32_t way, uint64_t line,
                                                              uint8_t meta)
{
    uint64_t *o = sb_order(l, b);
    sb_put(l, b, way, line, meta);
    *o = lru_order_to_mru(*o, way);
}

/* LRU's fill of `line` into the first empty way of `mask`: the way, or
 * UINT32_MAX (nothing done) when the mask has none. */
static inline __attribute__((always_inline)) uint32_t sb_fill_empty(sb_layout l, uint8_t *b, uint64_t mask,
                                                                    uint64_t line, uint8_t meta)
{
    const uint64_t empty = sb_empty(l, b, mask);
    if (__builtin_expect(empty == 0, 0))
        return UINT32_MAX;
    const uint32_t way = (uint32_t)__builtin_ctzll(empty);
    sb_fill_lru(l, b, way, line, meta);
    return way;
}

/* --- a cache's sets ------------------------------------------------------------- */

/* cache_match of the hierarchy's caches (each line at most once). */
static inline __attribute__((always_inline)) uint64_t match_in(const cache *c, uint32_t set, uint64_t line)
{
    return sb_match(cache_tags(c, set), c->tag_slots, line);
}

static inline int find_in(const cache *c, uint32_t set, uint64_t line)
{
    uint64_t m = match_in(c, set, line);
    return m ? __builtin_ctzll(m) : -1;
}

/* cache_fill / cache_remove with the policy work inline when `recency`
 * (LRU / BIP on the nibble order, hier_derive.c recency_inline) and, for the
 * fill's MRU insertion, `lru_fill` (LRU), or else by the policy's evict
 * rule `er` unless it is REPL_EVICT_OPS (RRIP, packed QLRU): the stores
 * above, the same effect as cache.c's, which a general-only hierarchy
 * uses. */
static inline __attribute__((always_inline)) uint32_t fill_in(cache *c, int recency, int lru_fill,
                                                              const repl_evict_rule *er, uint32_t set,
                                                              uint64_t mask, uint64_t line, uint8_t meta,
                                                              cache_evicted *ev)
{
    if (!recency && er->kind == REPL_EVICT_OPS)
        return cache_fill(c, set, mask, line, meta, ev);
    const sb_layout l = sb_layout_of(c);
    uint8_t *b = (uint8_t *)cache_tags(c, set);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(b + l.repl_off == repl_line_state(c->repl, set));
#endif
    mask &= l.full_mask;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(mask != 0 && "allocation mask selects no way");
#endif
    const uint64_t empty = sb_empty(l, b, mask);
    uint32_t way;
    if (!recency)
        way = repl_evict_way(er, b + l.repl_off, mask, empty);
    else
        way = empty ? (uint32_t)__builtin_ctzll(empty) : lru_order_victim(*sb_order(l, b), l.ways, mask);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(way < l.ways && ((mask >> way) & 1));
#endif
    if ((empty >> way) & 1) {
        ev->line = CACHE_INVALID;
        ev->meta = 0;
    } else {
        assert(!empty && "a policy filled a valid way while its mask had an empty one");
        ev->line = sb_tags(b)[way];
        ev->meta = *sb_meta(l, b, way);
    }
    if (lru_fill) {
        sb_fill_lru(l, b, way, line, meta);
    } else if (!recency && er->fill) {
        sb_put(l, b, way, line, meta);
        repl_evict_fill(er, b + l.repl_off, way);
    } else {
        repl_policy *p = c->repl;   /* before the byte store, which may alias it */
        sb_put(l, b, way, line, meta);
        p->ops->on_fill(p, set, way);
    }
    return way;
}

static inline __attribute__((always_inline)) void remove_in(cache *c, int recency, const repl_evict_rule *er,
                                                            uint32_t set, uint32_t way)
{
    if (!recency && er->kind == REPL_EVICT_OPS) {
        cache_remove(c, set, way);
        return;
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(way < c->ways);
    assert((uint8_t *)cache_tags(c, set) + c->repl_off == repl_line_state(c->repl, set));
#endif
    sb_remove_rule(sb_layout_of(c), (uint8_t *)cache_tags(c, set), way, recency, er);
}

/* --- counting ------------------------------------------------------------------ */

/* A hit of `req` in column `col` that reads and writes no memory, counted
 * in `stats`. */
static inline __attribute__((always_inline)) void sb_count_hit(hier_stats *stats, enum coh_req req, uint32_t col)
{
    hier_req_stats *rs = &stats->req[req];
    rs->accesses++;
    rs->hits++;
    rs->hit_col[col]++;
}

/* The result of such a hit, met in `region`. */
static inline __attribute__((always_inline)) void sb_hit_result(hier_result *res, uint32_t col, uint8_t region)
{
    res->hit = 1;
    res->col = (uint8_t)col;
    res->region = region;
    res->mem_reads = 0;
    res->mem_writebacks = 0;
}

/* The counters of any access of `req` that gave `res`. */
static inline __attribute__((always_inline)) void sb_count_access(hier_stats *stats, enum coh_req req,
                                                                  const hier_result *res)
{
    hier_req_stats *rs = &stats->req[req];
    rs->accesses++;
    if (res->hit) {
        rs->hits++;
        rs->hit_col[res->col]++;
        if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && res->region == REG_L2)
            rs->l2_hits++;
    } else {
        rs->misses++;
    }
    rs->mem_reads += res->mem_reads;
    rs->mem_writebacks += res->mem_writebacks;
}

#endif
