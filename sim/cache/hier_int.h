/* hier_int.h - the hierarchy's private half: what hier.c (the semantics),
 * hier_fast.c (the fast paths derived from it) and hier_run.c (the DMA
 * runs) share, and what the tests look at.  Only sim/cache/hier*.c, the
 * tests and the simulator (sim/queue/dsim_int.h: the fixed-request
 * entries, for speed) include it; everything here may change with the
 * fast paths.
 *
 * The fast paths' state (struct hier_fast) is derived from the coherence
 * table and the cache layouts at hier_init, and again by
 * hier_set_general_only; it never holds a line or a counter of a result. */
#ifndef DDIOSIM_CACHE_HIER_INT_H
#define DDIOSIM_CACHE_HIER_INT_H

#include <assert.h>

#include "sim/cache/hier.h"
#include "sim/cache/hier_test.h"
#include "sim/cache/lru_order.h"

/* Per-line metadata byte: the coherence state (ST_M means dirty). */
#define META_STATE(m) ((uint8_t)((m) & 3))

/* The columns of LLC ways (fast_col): COL_DDIO, COL_L3, COL_SHARED. */
#define LLC_COLS (COL_SHARED + 1)
_Static_assert(COL_DDIO < LLC_COLS && COL_L3 < LLC_COLS && COL_SHARED < LLC_COLS, "LLC columns first");

/* A hint word's way byte when only the set is known (hier_hint). */
#define HINT_NO_WAY 0xFFu
_Static_assert(HINT_NO_WAY == HIER_HINT_NO_WAY, "one hint format");

_Static_assert(HIER_MAX_CORES <= SNOOP_MAX_CORES && CACHE_MAX_WAYS <= SNOOP_MAX_WAYS,
               "the snoop filter stores a core and an L2 way");

struct hier_fast {
    uint64_t fast_ways[REQ_COUNT];  /* LLC ways where a hit of this request is a plain LLC_KEEP cell */
    uint64_t drop_ways[REQ_COUNT];  /* LLC ways where a hit is LLC_KEEP, reads no memory and drops any L2 copy */
    uint8_t fast_col[CACHE_MAX_WAYS];   /* Table 1 column of each LLC way */
    int core_fast;                  /* a core request first looks in its own L2 */
    int llc_nibble, l2_nibble;      /* LRU / BIP hit updates inline (repl_recency_nibble) */
    int llc_recency, l2_recency;    /* LRU / BIP: victim choice and invalidation inline (fill_in / remove_in) */
    int llc_lru_fill, l2_lru_fill;  /* LRU: the fill's MRU insertion inline */
    int llc_lean;                   /* a PCIe request with a known set: hier_fast.c pcie_lean */
    uint32_t llc_repl_off;          /* its order word's offset in a set block */
    uint64_t core_move_ways;        /* LLC ways whose line a core request moves to its L2 (access_core_move) */
    int rd_miss_fast;               /* a PCIe read the LLC misses: pcie_rd_miss_at */
    uint8_t rd_mem_read[COL_COUNT]; /* its cells' memory reads, by column */
    uint8_t wr_miss_fast[REQ_COUNT];    /* a PCIe write the LLC misses (full, partial): hier_pcie_wr_miss */
    uint8_t wr_mem_read[REQ_COUNT][COL_COUNT];  /* its cells' memory reads, by request and column */
    uint64_t wr_miss_mask;          /* the ways its cells allocate the line in (LLC_TO_DDIO: the DDIO ways) */
    uint64_t run_plain[2];          /* DMA runs (read, write): full lines' plain fast ways, without way 63 */
    uint64_t run_drop, run_plain_part;  /* write runs: full lines' drop ways, partial lines' plain ways (the same) */
    int l2_lean;                    /* a core request's own-L2 hit: hier_fast.c core_l2_mru / core_entry_in, with: */
    int l2_mask_map;                /* the L2s map by a mask: a line's L2 set is line & l2_set_mask */
    uint64_t l2_set_mask;
    uint64_t l2_block_bytes;
    uint32_t l2_tag_slots, l2_meta_off, l2_repl_off, l2_ways;
    uint64_t l2_full_mask;          /* every way of an L2 */
    int move_lean;                  /* a core move of an LLC line with both ends' layouts here: core_move_lean */
    uint8_t *l2_blocks[HIER_MAX_CORES];   /* each core's L2 set blocks (l2[c].blocks): one load in the entry */
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    hier_taken taken;               /* the tests' counts (hier_test.h), not in the shipped build */
#endif
};

_Static_assert(sizeof(struct hier_fast) <= HIER_FAST_ROOM, "struct hier_fast fits in hier.fast_room");
_Static_assert(_Alignof(struct hier_fast) <= 8, "hier.fast_room is 8-byte aligned");

/* The fast paths' state of `h`.  Only ever accessed as a struct hier_fast
 * (hier_init zeroes it with the rest of h). */
static inline __attribute__((always_inline)) struct hier_fast *hier_fast_of(const hier *h)
{
    return (struct hier_fast *)(void *)h->fast_room;
}

/* Count `n` more of a fast path taken (hier_test.h), where counts are kept. */
#ifdef DDIOSIM_EXPENSIVE_CHECKS
#define HIER_TAKEN(h, field, n) (hier_fast_of(h)->taken.field += (n))
#else
#define HIER_TAKEN(h, field, n) ((void)0)
#endif

/* --- between the files ------------------------------------------------------ */

/* hier_run.c: the DMA runs' way masks, from the fast paths' (struct hier_fast). */
void hier_run_derive(hier *h);

/* hier.c: every request, cell by cell (the executor of Table 1);
 * `llc_match` is cache_match(llc, llc_set, line). */
void hier_access_general(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint32_t llc_set,
                         uint64_t llc_match, hier_result *res);

/* hier.c: allocate the absent `line` in its LLC set `set` inside `mask`
 * in state `state`, any policy; a victim leaves by Table 1's eviction row
 * (its write-back counted in `res`).  Returns the way. */
uint32_t hier_llc_insert(hier *h, uint64_t line, uint32_t set, uint64_t mask, uint8_t state, hier_result *res);

/* hier.c: the L2 victim `line` of `core` (its metadata byte `meta`) has
 * left the L2: Table 1's eviction row of its state (non-inclusive, E/M to
 * the core's LLC ways; inclusive, its dirt into the LLC copy). */
void hier_l2_victim(hier *h, uint32_t core, uint64_t line, uint8_t meta, hier_result *res);

/* hier_fast.c: a PCIe write (full or partial) of a line no LLC way holds
 * (wr_miss_fast[req]); `llc_set` is the line's LLC set. */
void hier_pcie_wr_miss(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set, hier_result *res);

/* The hint word of (set, way) (hier_hint_at). */
static inline uint64_t hint_word(uint32_t set, uint32_t way)
{
    return hier_hint_at(set, way);
}

/* --- the regions and columns ------------------------------------------------ */

/* The region a Table 1 column's line is in (the inverse of coherence.h's
 * coh_region_col and coh_l2_col), for a result's `region`. */
static inline uint8_t col_region(uint32_t col)
{
    static const uint8_t t[COL_COUNT] = {
        [COL_DDIO] = REG_DDIO, [COL_L3] = REG_L3, [COL_SHARED] = REG_SHARED,
        [COL_L2_EM] = REG_L2, [COL_L2_S] = REG_L2, [COL_MEM] = REG_MEM,
    };
    return t[col];
}

static inline uint64_t core_mask(const hier *h, uint32_t core)
{
    return h->cfg.cos_mask[h->cfg.core_cos[core]];
}

/* The counters of one access of `req` that gave `res`. */
static inline __attribute__((always_inline)) void count_access(hier *h, enum coh_req req, const hier_result *res)
{
    hier_req_stats *rs = &h->stats.req[req];
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

/* --- lookups ---------------------------------------------------------------- */

/* The set of `line` in every L2 (they share one geometry): a mask when
 * they map by one (hier_fast.c l2_lean_init), the same value as cache_set. */
static inline uint32_t l2_set_of(const hier *h, uint64_t line)
{
    const struct hier_fast *f = hier_fast_of(h);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(!f->l2_mask_map || (uint32_t)(line & f->l2_set_mask) == cache_set(&h->l2[0], line));
#endif
    return f->l2_mask_map ? (uint32_t)(line & f->l2_set_mask) : cache_set(&h->l2[0], line);
}

/* cache_match_verify for a set that holds each line at most once (every
 * cache of the hierarchy: a fill only follows a miss): the first candidate
 * whose full tag is `line` is the match, so the loop stops there (one
 * candidate, the usual case, is one compare). */
static inline __attribute__((always_inline)) uint64_t match_first(const uint64_t *t, uint64_t cand, uint64_t line)
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

/* The way of `line` among its candidates `cand`, or -1: match_first as a
 * way number (no mask to take apart again). */
static inline __attribute__((always_inline)) int way_first(const uint64_t *t, uint64_t cand, uint64_t line)
{
    for (; cand; cand &= cand - 1) {
        int w = __builtin_ctzll(cand);
        if (t[w] == line)
            return w;
    }
    return -1;
}

/* match_tags as a way number, or -1 (the same slot counts unrolled). */
static inline __attribute__((always_inline)) int way_of_tags(const uint64_t *t, uint32_t slots, uint64_t line)
{
    int w;
    switch (slots) {
    case 4: w = way_first(t, cache_match_candidates(t, 4, line), line); break;
    case 8: w = way_first(t, cache_match_candidates(t, 8, line), line); break;
    case 12: w = way_first(t, cache_match_candidates(t, 12, line), line); break;
    case 16: w = way_first(t, cache_match_candidates(t, 16, line), line); break;
    default: w = way_first(t, cache_match_candidates(t, slots, line), line); break;
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    uint64_t all = cache_match_verify(t, cache_match_candidates(t, slots, line), line);
    assert(all == (w < 0 ? 0 : 1ull << w) && "a line held twice in one set");
#endif
    return w;
}

/* cache_match with the tag slot count known at compile time for the usual
 * sizes (the compare loop unrolls, no bounds tests). */
static inline __attribute__((always_inline)) uint64_t match_tags(const uint64_t *t, uint32_t slots, uint64_t line)
{
    switch (slots) {
    case 4: return match_first(t, cache_match_candidates(t, 4, line), line);
    case 8: return match_first(t, cache_match_candidates(t, 8, line), line);
    case 12: return match_first(t, cache_match_candidates(t, 12, line), line);
    case 16: return match_first(t, cache_match_candidates(t, 16, line), line);
    default: return match_first(t, cache_match_candidates(t, slots, line), line);
    }
}

static inline __attribute__((always_inline)) uint64_t match_in(const cache *c, uint32_t set, uint64_t line)
{
    return match_tags(cache_tags(c, set), c->tag_slots, line);
}

static inline int find_in(const cache *c, uint32_t set, uint64_t line)
{
    uint64_t m = match_in(c, set, line);
    return m ? __builtin_ctzll(m) : -1;
}

/* The way of `line` in set `set` of `core`'s L2, which holds it: `hint`
 * (the way the snoop filter stored with it, l2_insert) if that way's tag is
 * the line, else a search. */
static inline uint32_t l2_way_of(const hier *h, uint32_t core, uint32_t set, uint64_t line, uint32_t hint)
{
    const cache *l2 = &h->l2[core];
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(find_in(l2, set, line) == (int)hint && "a snoop filter entry with a wrong way");
#endif
    if (hint < l2->ways && cache_tags(l2, set)[hint] == line)
        return hint;
    int way = find_in(l2, set, line);
    assert(way >= 0 && "snoop filter and L2 disagree");
    return (uint32_t)way;
}

/* --- replacement updates, fills and removals -------------------------------- */

/* Replacement update of a hit, inline for LRU / BIP. */
static inline void llc_touch(hier *h, uint32_t set, uint32_t way)
{
    struct hier_fast *const f = hier_fast_of(h);
    if (f->llc_nibble)
        repl_recency_hit(h->llc.repl, set, way);
    else
        cache_hit(&h->llc, set, way);
}

static inline void l2_touch(hier *h, cache *l2, uint32_t set, uint32_t way)
{
    struct hier_fast *const f = hier_fast_of(h);
    if (f->l2_nibble)
        repl_recency_hit(l2->repl, set, way);
    else
        cache_hit(l2, set, way);
}

/* cache_fill / cache_remove with the policy work inline when `recency`
 * (LRU / BIP on the nibble order, hier_fast.c recency_inline) and, for the
 * fill's MRU insertion, `lru_fill` (LRU); the same effect on the set block,
 * which tests/test_cache_hier.c checks against a general-only hierarchy
 * (it uses cache.c's). */
static inline __attribute__((always_inline)) uint32_t fill_in(cache *c, int recency, int lru_fill, uint32_t set,
                                                              uint64_t mask, uint64_t line, uint8_t meta,
                                                              cache_evicted *ev)
{
    if (!recency)
        return cache_fill(c, set, mask, line, meta, ev);
    mask &= c->full_mask;
    assert(mask != 0 && "allocation mask selects no way");
    /* Every address first: the stores below (a metadata byte may alias
     * anything) would make the compiler reload c's fields. */
    uint64_t *t = cache_tags(c, set);
    uint64_t *valid = cache_valid(c, set);
    uint8_t *metas = cache_meta(c, set, 0);
    uint64_t *o = (uint64_t *)(void *)repl_line_state(c->repl, set);
    uint64_t empty = ~*valid & mask;
    uint32_t way;
    if (empty) {
        way = (uint32_t)__builtin_ctzll(empty);
        ev->line = CACHE_INVALID;
        ev->meta = 0;
    } else {
        way = lru_order_victim(*o, c->ways, mask);
        ev->line = t[way];
        ev->meta = metas[way];
    }
    assert(way < c->ways && ((mask >> way) & 1));
    t[way] = line;
    *valid |= 1ull << way;
    metas[way] = meta;
    if (lru_fill)
        *o = lru_order_to_mru(*o, way);
    else
        c->repl->ops->on_fill(c->repl, set, way);
    return way;
}

static inline __attribute__((always_inline)) void remove_in(cache *c, int recency, uint32_t set, uint32_t way)
{
    if (!recency) {
        cache_remove(c, set, way);
        return;
    }
    assert(way < c->ways);
    /* Every address and c's fields first, as in fill_in. */
    uint64_t *t = cache_tags(c, set);
    uint64_t *valid = cache_valid(c, set);
    uint8_t *meta = cache_meta(c, set, way);
    uint64_t *o = (uint64_t *)(void *)repl_line_state(c->repl, set);
    const uint32_t ways = c->ways;
    t[way] = CACHE_INVALID;
    *valid &= ~(1ull << way);
    *meta = 0;
    repl_order_remove(o, way, ways);
}

/* --- taking a line out of an L2 ----------------------------------------------
 *
 * Every path's (the general one's evictions and flush, the fast paths'
 * drops): inline, as when everything was one file. */

/* Remove the line in (set, way) of `core`'s L2 from that L2 (the caller
 * erases its snoop filter entry); returns its state. */
static inline uint8_t l2_remove_at(hier *h, uint32_t core, uint32_t set, uint32_t way)
{
    cache *l2 = &h->l2[core];
    uint8_t st = META_STATE(*cache_meta(l2, set, way));
    remove_in(l2, hier_fast_of(h)->l2_recency, set, way);
    return st;
}

/* l2_take with the line's set and way in `core`'s L2 and its snoop filter
 * slot known (snoop_get_slot); returns the line's state. */
static inline uint8_t l2_take_at_slot(hier *h, uint32_t core, uint32_t set, uint32_t way, uint64_t slot)
{
    uint8_t st = l2_remove_at(h, core, set, way);
    snoop_erase_slot(&h->sf, slot);
    return st;
}

/* Remove `line` from `core`'s L2 (`way`, `slot`: the snoop filter's way and
 * slot, snoop_get_slot); returns its state. */
static inline uint8_t l2_take(hier *h, uint32_t core, uint64_t line, uint32_t way, uint64_t slot)
{
    uint32_t set = l2_set_of(h, line);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(h->sf.keys[slot] == line && "a snoop filter slot that is not the line's");
#endif
    return l2_take_at_slot(h, core, set, l2_way_of(h, core, set, line, way), slot);
}

/* --- the fast paths' helpers the DMA runs share ------------------------------ */

/* l2_take for a hierarchy with l2_lean (the L2 block layout
 * in the fast state) and l2_recency (LRU / BIP removal on the nibble
 * order), inline: the same stores as its remove_in and snoop_erase_slot,
 * without the cache struct.  The set block of `line` in `core`'s L2 ... */
static inline __attribute__((always_inline)) uint8_t *l2_block_lean(const hier *h, uint32_t core, uint64_t line)
{
    const struct hier_fast *const f = hier_fast_of(h);
    uint8_t *b = f->l2_blocks[core] + (line & f->l2_set_mask) * f->l2_block_bytes;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(f->l2_lean && b == (uint8_t *)cache_tags(&h->l2[core], cache_set(&h->l2[core], line)));
#endif
    return b;
}

/* ... and the way of `line`, which it holds: the snoop filter's way `sway`
 * (below tag_slots: a way of this L2) if its tag is the line, else a search. */
static inline __attribute__((always_inline)) uint32_t l2_way_lean(const hier *h, const uint8_t *b, uint64_t line,
                                                                  uint32_t sway)
{
    const struct hier_fast *const f = hier_fast_of(h);
    const uint64_t *t = (const uint64_t *)(const void *)b;
    const uint32_t way = t[sway] == line ? sway : (uint32_t)way_of_tags(t, f->l2_tag_slots, line);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(sway < f->l2_ways && way < f->l2_ways && t[way] == line);
#endif
    return way;
}

/* Remove the line in `way` of the L2 set block `b` (l2_block_lean), whose
 * snoop filter entry is at `slot`: the stores of l2_take_at_slot's
 * remove_in (LRU / BIP, l2_recency) and snoop_erase_slot. */
static inline __attribute__((always_inline)) void l2_remove_lean(hier *h, uint8_t *b, uint32_t way, uint64_t slot)
{
    struct hier_fast *const f = hier_fast_of(h);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(f->l2_lean && f->l2_recency && way < f->l2_ways);
#endif
    ((uint64_t *)(void *)b)[way] = CACHE_INVALID;
    *(uint64_t *)(void *)(b + 8u * f->l2_tag_slots) &= ~(1ull << way);   /* cache_valid */
    b[f->l2_meta_off + way] = 0;
    repl_order_remove((uint64_t *)(void *)(b + f->l2_repl_off), way, f->l2_ways);
    snoop_erase_slot(&h->sf, slot);
}

static inline __attribute__((always_inline)) void l2_drop_lean(hier *h, uint32_t core, uint64_t line, uint32_t sway,
                                                               uint64_t slot)
{
    uint8_t *b = l2_block_lean(h, core, line);
    const uint32_t way = l2_way_lean(h, b, line, sway);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(h->sf.keys[slot] == line);
    assert((int)way == find_in(&h->l2[core], cache_set(&h->l2[core], line), line));
#endif
    l2_remove_lean(h, b, way, slot);
}

/* Drop the L2 copy of `line`, if an L2 holds one: a PCIe write's L2_DROP
 * on a line the LLC keeps in a Shared way (drop_ways), by l2_drop_lean
 * when the L2 layout allows it, else l2_take. */
static inline __attribute__((always_inline)) void l2_drop_any(hier *h, uint64_t line)
{
    const struct hier_fast *const f = hier_fast_of(h);
    uint32_t sway;
    uint64_t sslot = 0;
    int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
    if (owner >= 0 && f->l2_lean && f->l2_recency)   /* remove_in's inline form */
        l2_drop_lean(h, (uint32_t)owner, line, sway, sslot);
    else if (owner >= 0)
        l2_take(h, (uint32_t)owner, line, sway, sslot);
}

/* Allocate the absent `line` in its LLC set `set` (inline: a PCIe read's
 * Shared-way copy, a PCIe write's DDIO copy, about once per packet each).
 * With LRU on the set blocks' order words (llc_lean, llc_lru_fill), a set
 * with an empty way in `mask` (the usual case: the Shared and DDIO ways'
 * lines move on to the L2s) is filled here with fill_in's stores; the
 * rest goes through hier_llc_insert. */
static inline __attribute__((always_inline)) uint32_t llc_insert_inline(hier *h, uint64_t line, uint32_t set,
                                                                        uint64_t mask, uint8_t state,
                                                                        hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set == cache_set(&h->llc, line));
    assert(find_in(&h->llc, set, line) < 0);
#endif
    if (f->llc_lean && f->llc_lru_fill) {
        uint8_t *b = h->llc.blocks + (uint64_t)set * h->llc.block_bytes;
        uint64_t *valid = (uint64_t *)(void *)(b + 8u * h->llc.tag_slots);
        const uint64_t empty = ~*valid & mask & h->llc.full_mask;
        if (__builtin_expect(empty != 0, 1)) {
            const uint32_t way = (uint32_t)__builtin_ctzll(empty);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
            assert(b == (uint8_t *)cache_tags(&h->llc, set) && valid == cache_valid(&h->llc, set));
            assert(b + f->llc_repl_off == (uint8_t *)repl_line_state(h->llc.repl, set));
#endif
            ((uint64_t *)(void *)b)[way] = line;
            *valid |= 1ull << way;
            b[h->llc.meta_off + way] = state;
            uint64_t *o = (uint64_t *)(void *)(b + f->llc_repl_off);
            *o = lru_order_to_mru(*o, way);
            return way;
        }
    }
    return hier_llc_insert(h, line, set, mask, state, res);
}

/* Fast path 3 (rd_miss_fast): a PCIe read of a line a non-inclusive LLC
 * does not hold, once the L2 copy is known (`meta`: the owner's metadata
 * byte of the line, or NULL when no L2 holds it).  Its cells, checked at
 * init: in an L2 in E/M the line leaves an S copy there and its data
 * (dirty or not) goes to the Shared ways (LLC_TO_SHARED, L2_TO_S); in an
 * L2 in S or only in memory nothing moves (LLC_KEEP, L2_KEEP).
 * hier_access_general's work for these cells without the table walk;
 * `llc_set` is the line's LLC set.  Returns the Shared way a copy went to,
 * or UINT32_MAX.  Here, not in hier_fast.c: the DMA runs use it too. */
static inline __attribute__((always_inline)) uint32_t pcie_rd_miss_at(hier *h, uint64_t line, uint32_t llc_set,
                                                                      uint8_t *meta, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint32_t way = UINT32_MAX;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set == cache_set(&h->llc, line) && find_in(&h->llc, llc_set, line) < 0);
#endif
    res->mem_writebacks = 0;
    uint32_t col = COL_MEM;
    if (meta) {
        const enum coh_state st = (enum coh_state)META_STATE(*meta);
        col = coh_l2_col(st);
        if (col == COL_L2_EM) {
            *meta = ST_S;   /* L2_TO_S */
            way = llc_insert_inline(h, line, llc_set, h->cfg.shared_mask, (uint8_t)coh_llc_fill_state(st == ST_M), res);
        }
    }
    res->hit = (uint8_t)coh_col_hit((enum coh_col)col);
    res->col = (uint8_t)col;
    res->region = col_region(col);
    res->mem_reads = f->rd_mem_read[col];
    count_access(h, REQ_PCIE_RD, res);
    return way;
}

/* The metadata byte of `line` in the L2 that holds it (the snoop filter's
 * answer), or NULL. */
static inline __attribute__((always_inline)) uint8_t *l2_meta_of(hier *h, uint64_t line)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint32_t sway;
    int owner = snoop_get_way(&h->sf, line, &sway);
    if (owner < 0)
        return NULL;
    if (f->l2_lean) {   /* the L2 layout in the fast state */
        uint8_t *b = l2_block_lean(h, (uint32_t)owner, line);
        return b + f->l2_meta_off + l2_way_lean(h, b, line, sway);
    }
    uint32_t set = l2_set_of(h, line);
    return cache_meta(&h->l2[owner], set, l2_way_of(h, (uint32_t)owner, set, line, sway));
}

/* Fast path 3 for a line whose L2 copy is not known yet. */
static inline __attribute__((always_inline)) uint32_t access_pcie_rd_miss(hier *h, uint64_t line, uint32_t llc_set,
                                                                          hier_result *res)
{
    return pcie_rd_miss_at(h, line, llc_set, l2_meta_of(h, line), res);
}

#endif
