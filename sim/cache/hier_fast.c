/* hier_fast.c - the fast paths of single accesses, derived from the
 * hierarchy's semantics (hier.c): what they do is what hier_access_general
 * does for the same line in the same state, with less work, and the tests
 * check it.  Also the public entry, hier_access.
 *
 * The fast paths are derived here from the coherence table at init, never
 * written as rules of their own: where one needs a rule around the table
 * (the column of an L2 copy, the L2 hit, the state of a new or kept copy,
 * what is a hit), it calls coherence.h's inline function, and it changes a
 * set block only through setblock.h.  Which situations they cover, and why
 * each may skip what it skips: docs/cache-model.md, "The fast paths".
 *
 * tests/test_cache_hier.c replays random request streams through the fast
 * and the general-only hierarchy and compares every line's place and every
 * counter; tests/test_sim_equiv.c compares whole simulations. */
#include <assert.h>

#include "sim/cache/hier_int.h"

void hier_touch_rule(const repl_hit_rule *rule, cache *c, uint32_t set, uint32_t way)
{
    (void)rule;
    assert(rule->kind == REPL_HIT_OPS);
    cache_hit(c, set, way);
}

/* Fast path 1: a PCIe request meeting an LLC_KEEP cell in a way with no L2
 * copy (fast_ways).  Returns the hit (always 1). */
static inline int access_llc_fast(hier *h, enum coh_req req, uint64_t line, uint32_t set, uint64_t match,
                                  hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint32_t way = (uint32_t)__builtin_ctzll(match);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((((h->cfg.shared_mask >> way) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
    assert(match == (match & -match));
#else
    (void)line;
#endif
    llc_touch(h, set, way);
    sb_keep_state(sb_layout_of(&h->llc), (uint8_t *)cache_tags(&h->llc, set), way, req);
    uint32_t col = f->fast_col[way];
    sb_count_hit(&h->stats, req, col);
    if (res)
        sb_hit_result(res, col, col_region(col));
    return 1;
}

/* The counters and result of an L2 hit (the line stays where it is). */
static inline __attribute__((always_inline)) void count_l2_hit(hier *h, enum coh_req req, uint32_t col,
                                                               hier_result *res)
{
    sb_count_hit(&h->stats, req, col);
    h->stats.req[req].l2_hits++;
    sb_hit_result(res, col, REG_L2);
}

/* The own-L2 hit's rule (choice 5, core_l2_hit) on the line whose L2
 * metadata byte is `meta` (its order already updated): the state it
 * takes, the counters and the result.  Returns 1 when the hit takes the
 * LLC's copy, which the caller then removes. */
static inline __attribute__((always_inline)) int own_l2_hit(hier *h, enum coh_req req, uint8_t *meta,
                                                            hier_result *res)
{
    const uint8_t st = *meta;   /* the state alone: a read's store below folds away */
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(st == META_STATE(st));
#endif
    *meta = (uint8_t)coh_l2_hit_state(req, (enum coh_state)st);
    count_l2_hit(h, req, coh_l2_col((enum coh_state)st), res);
    return coh_l2_hit_takes_llc(h->cfg.mode, req, (enum coh_state)st);
}

/* Fast path 2: a core request for a line in its own L2: an L2 hit, which
 * touches neither the LLC nor another L2 in E or M, and in S (core_l2_hit)
 * only drops a non-inclusive LLC's Shared copy when it writes.  Returns 1
 * when it applied. */
static inline __attribute__((always_inline)) int access_core_fast(hier *h, enum coh_req req, uint32_t core,
                                                                 uint64_t line, int set_known, uint32_t llc_set,
                                                                 hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    cache *l2 = &h->l2[core];
    uint32_t set = l2_set_of(h, line);
    uint64_t m = match_in(l2, set, line);
    if (!m)
        return 0;
    uint32_t way = (uint32_t)__builtin_ctzll(m);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    const uint8_t st = META_STATE(*cache_meta(l2, set, way));
    assert(snoop_get(&h->sf, line) == (int)core && "snoop filter and L2 disagree");
    assert(h->cfg.mode != HIER_NONINCLUSIVE || st == ST_S || find_in(&h->llc, cache_set(&h->llc, line), line) < 0);
#endif
    l2_touch(h, l2, set, way);
    if (own_l2_hit(h, req, cache_meta(l2, set, way), res)) {
        /* The upgrade takes the Shared copy and its dirt (core_l2_hit). */
        uint32_t lset = set_known ? llc_set : cache_set(&h->llc, line);
        uint64_t lm = match_in(&h->llc, lset, line);
        if (lm)
            remove_in(&h->llc, f->llc_recency, &f->llc_evict, lset, (uint32_t)__builtin_ctzll(lm));
    }
    return 1;
}

/* Fast path 3 (a PCIe read the LLC misses) is hier_int.h's
 * pcie_rd_miss_at: the DMA runs use it too. */

/* Fast path 5 (wr_miss_fast[req], non-inclusive): a PCIe write of a
 * line no LLC way holds.  Its cells, checked at init: the line goes to the
 * DDIO ways (LLC_TO_DDIO), modified (the request writes: hier_access_general's
 * `dirty`), and an L2 copy, in E/M or S, is dropped (L2_DROP); a line only
 * in memory has none.  hier_access_general's work for these cells without the
 * table walk, once the caller dropped the L2 copy: `col` is the column
 * the line was in (COL_L2_EM, COL_L2_S or COL_MEM). */
static inline __attribute__((always_inline)) uint32_t pcie_wr_miss_at(hier *h, enum coh_req req, uint64_t line,
                                                                      uint32_t llc_set, uint32_t col,
                                                                      hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set == cache_set(&h->llc, line) && find_in(&h->llc, llc_set, line) < 0);
    assert(snoop_get(&h->sf, line) < 0 && "the caller drops the L2 copy");
#endif
    const uint8_t mem_reads = f->wr_mem_read[req][col];
    res->hit = (uint8_t)coh_col_hit((enum coh_col)col);
    res->col = (uint8_t)col;
    res->region = col_region(col);
    res->mem_reads = mem_reads;
    res->mem_writebacks = 0;
    /* M: the request writes (choice 1) */
    const uint32_t way = llc_insert_inline(h, line, llc_set, f->wr_miss_mask, ST_M, 1, res);
    count_access(h, req, res);
    return way;
}

/* pcie_wr_miss_at after dropping the L2 copy the snoop filter names;
 * `llc_set` is the line's LLC set, which misses.  Returns the way the
 * line went to. */
__attribute__((noinline)) uint32_t hier_pcie_wr_miss(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set,
                                                   hier_result *res)
{
    const uint8_t st = l2_drop_any(h, line);
    return pcie_wr_miss_at(h, req, line, llc_set, st == ST_I ? COL_MEM : coh_l2_col((enum coh_state)st), res);
}

/* l2_insert_at_slot out of line: core_move_lean's fill into a full L2 set
 * (a victim to evict). */
static __attribute__((noinline)) void l2_insert_victim(hier *h, uint32_t core, uint64_t line, uint8_t state,
                                                       uint64_t slot, hier_result *res)
{
    l2_insert_at_slot(h, core, line, state, slot, res);
}

/* access_core_move's work (move_lean) from the layouts in the fast state: the line
 * leaves way `way` of LLC set `set` (remove_in's stores, LRU / BIP) and
 * goes to `core`'s L2, into the first empty way (fill_in's choice, with
 * LRU's MRU insertion) and the snoop filter at `slot` (snoop_find's, no
 * entry for the line); a full L2 set goes through l2_insert_victim.  The
 * LLC removal comes first, as there: an L2 victim may go to the L3* ways. */
static inline __attribute__((always_inline)) void core_move_lean(hier *h, enum coh_req req, uint32_t core,
                                                                 uint64_t line, uint32_t set, uint32_t way,
                                                                 uint64_t slot, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    const sb_layout l = sb_layout_of(&h->llc), l2 = f->l2_lay;
    uint8_t *b = (uint8_t *)cache_tags(&h->llc, set);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(f->move_lean && cache_tags(&h->llc, set)[way] == line);
    assert(sb_order(l, b) == (uint64_t *)(void *)repl_line_state(h->llc.repl, set));
#endif
    const uint32_t col = f->fast_col[way];
    const uint8_t st =
        (uint8_t)coh_core_fill_state(HIER_NONINCLUSIVE, req, L2_TO_EM, META_STATE(*sb_meta(l, b, way)) == ST_M);
    sb_remove(l, b, way);
    sb_hit_result(res, col, col_region(col));
    const uint32_t w2 = sb_fill_empty(l2, l2_block_lean(h, core, line), l2.full_mask, line, st);
    if (__builtin_expect(w2 != UINT32_MAX, 1))
        snoop_put_way_at(&h->sf, slot, line, (int)core, w2);
    else
        l2_insert_victim(h, core, line, st, slot, res);
    sb_count_hit(&h->stats, req, col);
    h->stats.req[req].mem_writebacks += res->mem_writebacks;
}

/* Fast path 4 (core_move_ways, non-inclusive): a core request for a
 * line the LLC holds in a way whose cells move it to the requester's L2
 * (LLC_DROP, L2_TO_EM: E, or M if it was dirty or is written) when no L2
 * has a copy; a Shared-way line may have one (another core's: the own L2
 * was searched first), then hier_access_general migrates it.  Returns 1 when it
 * applied. */
static inline __attribute__((always_inline)) int access_core_move(hier *h, enum coh_req req, uint32_t core,
                                                                  uint64_t line, uint32_t set, uint64_t match,
                                                                  hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint32_t way = (uint32_t)__builtin_ctzll(match);
    /* Probed for every way: the L2 fill puts the entry at the slot found. */
    uint64_t slot = snoop_find(&h->sf, line);
    if (snoop_at(&h->sf, slot, line)) {
        assert(((h->cfg.shared_mask >> way) & 1) && "a DDIO/L3* line with an L2 copy");
        return 0;
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(snoop_get(&h->sf, line) < 0 && "a DDIO/L3* line with an L2 copy");
    assert(core < h->cfg.cores);
#endif
    if (f->move_lean) {
        core_move_lean(h, req, core, line, set, way, slot, res);
        return 1;
    }
    uint8_t llc_st = META_STATE(*cache_meta(&h->llc, set, way));
    uint32_t col = f->fast_col[way];
    remove_in(&h->llc, f->llc_recency, &f->llc_evict, set, way);
    sb_hit_result(res, col, col_region(col));
    l2_insert_at_slot(h, core, line, (uint8_t)coh_core_fill_state(HIER_NONINCLUSIVE, req, L2_TO_EM, llc_st == ST_M),
                      slot, res);
    sb_count_hit(&h->stats, req, col);
    h->stats.req[req].mem_writebacks += res->mem_writebacks;
    return 1;
}

static inline __attribute__((always_inline)) void access_matched(hier *h, enum coh_req req, uint32_t core,
                                                                 uint64_t line, uint32_t set, uint64_t match,
                                                                 hier_result *res);

/* One access; `set_known`: `llc_set` is the line's LLC set (the caller
 * remembered it), else it is computed when needed. */
static inline __attribute__((always_inline)) void access_one(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                             int set_known, uint32_t llc_set, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(!set_known || llc_set == cache_set(&h->llc, line));
#endif
    if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && f->core_fast && !f->l2_lean && core < h->cfg.cores &&
        access_core_fast(h, req, core, line, set_known, llc_set, res))
        return;
    uint32_t set = set_known ? llc_set : cache_set(&h->llc, line);
    access_matched(h, req, core, line, set, match_in(&h->llc, set, line), res);
}

/* access_one past the LLC lookup (`match`: match_in of the line's set). */
static __attribute__((noinline)) void access_rest_matched(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                          uint32_t set, uint64_t match, hier_result *res)
{
    access_matched(h, req, core, line, set, match, res);
}

/* Fast path 1 once more, lean: a PCIe request whose LLC set the caller
 * knows (descriptor and completion lines) meeting a plain LLC_KEEP cell
 * (fast_ways), no stack frame; anything else goes on with the match
 * found.  `nibble` (a constant): LRU / BIP (llc_lean), else the LLC
 * policy's inline hit rule (llc_run_inline: RRIP, QLRU).  The same work as
 * access_llc_fast. */
static inline __attribute__((always_inline)) void pcie_lean(hier *h, enum coh_req req, uint64_t line, uint32_t set,
                                                            int nibble, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    const sb_layout l = sb_layout_of(&h->llc);
    uint8_t *b = (uint8_t *)cache_tags(&h->llc, set);
    /* The most recent way was tried (pcie_mru): the search at once. */
    const int mw = sb_way(sb_tags(b), l.tag_slots, line);
    uint64_t match = mw < 0 ? 0 : 1ull << mw;
    if (!(match & f->fast_ways[req])) {
        access_matched(h, req, 0, line, set, match, res);
        return;
    }
    uint32_t way = (uint32_t)__builtin_ctzll(match);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((((h->cfg.shared_mask >> way) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
    assert(b + l.repl_off == repl_line_state(h->llc.repl, set));
#endif
    if (nibble) {
        sb_keep_hit(l, b, way, req);
    } else {
        const repl_hit_rule rule = f->llc_hit;   /* before the stores, which may alias it */
        sb_keep_hit_rule(l, b, way, req, &rule);
    }
    uint32_t col = f->fast_col[way];
    sb_count_hit(&h->stats, req, col);
    sb_hit_result(res, col, col_region(col));
}

/* The requests after the LLC lookup, fast paths first. */
static inline __attribute__((always_inline)) void access_matched(hier *h, enum coh_req req, uint32_t core,
                                                                 uint64_t line, uint32_t set, uint64_t match,
                                                                 hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    if (req < REQ_EVICT && (match & f->drop_ways[req])) {
        l2_drop_any(h, line);
        access_llc_fast(h, req, line, set, match, res);
        return;
    }
    if (req < REQ_EVICT && (match & f->fast_ways[req])) {
        access_llc_fast(h, req, line, set, match, res);
        return;
    }
    if (req == REQ_PCIE_RD && !match && f->rd_miss_fast) {
        access_pcie_rd_miss(h, line, set, res);
        return;
    }
    if ((req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART) && !match && f->wr_miss_fast[req]) {
        (void)hier_pcie_wr_miss(h, req, line, set, res);
        return;
    }
    if ((match & f->core_move_ways) && (req == REQ_CORE_RD || req == REQ_CORE_WR) &&
        access_core_move(h, req, core, line, set, match, res))
        return;
    hier_access_general(h, req, core, line, set, match, res);
}

/* access_one out of line (`llc_set` UINT32_MAX: not known), for the entry
 * points' tail calls. */
static __attribute__((noinline)) void access_rest(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                  uint32_t llc_set, hier_result *res)
{
    if (llc_set != UINT32_MAX)
        access_one(h, req, core, line, 1, llc_set, res);
    else
        access_one(h, req, core, line, 0, 0, res);
}

/* The upgrade of an own L2 (S) line a core writes, non-inclusive: the
 * Shared copy (and its dirt) goes to the writer (core_l2_hit). */
static inline __attribute__((always_inline)) void drop_shared_copy_in(hier *h, uint64_t line, uint32_t llc_set)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint32_t set = llc_set != UINT32_MAX ? llc_set : cache_set(&h->llc, line);
    const sb_layout l = sb_layout_of(&h->llc);
    uint8_t *b = (uint8_t *)cache_tags(&h->llc, set);
    const int w = f->llc_lean ? sb_way_mru_first(l, b, line) : sb_way(sb_tags(b), l.tag_slots, line);
    if (w >= 0)
        remove_in(&h->llc, f->llc_recency, &f->llc_evict, set, (uint32_t)w);
}

static __attribute__((noinline, flatten)) void drop_shared_copy(hier *h, uint64_t line, uint32_t llc_set)
{
    drop_shared_copy_in(h, line, llc_set);
}

/* Fast path 2 once more, lean (l2_lean: the L2s map by a mask and their
 * policy's hit is inline): the own-L2 hit of a core request on `way` of
 * its L2 set block `b` (core_entry_in or core_entry_rule found it;
 * core_l2_mru took the most recent way), with the L2 geometry read from the
 * fast state; `nibble` (a constant): the L2 keeps nibble orders
 * (L2_LEAN_NIBBLE), else its hit rule is hier_fast.l2_hit.  The same work
 * as access_core_fast. */
static inline __attribute__((always_inline)) void core_l2_hit_lean(hier *h, enum coh_req req, uint32_t core,
                                                                   uint64_t line, uint32_t llc_set, uint8_t *b,
                                                                   uint32_t way, int nibble, hier_result *res)
{
    const sb_layout l2 = hier_fast_of(h)->l2_lay;
    (void)core;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    const uint8_t st = *sb_meta(l2, b, way);
    assert(b == (uint8_t *)cache_tags(&h->l2[core], cache_set(&h->l2[core], line)));
    assert(sb_meta(l2, b, way) == cache_meta(&h->l2[core], cache_set(&h->l2[core], line), way));
    assert(snoop_get(&h->sf, line) == (int)core && "snoop filter and L2 disagree");
    assert(h->cfg.mode != HIER_NONINCLUSIVE || st == ST_S || find_in(&h->llc, cache_set(&h->llc, line), line) < 0);
#endif
    if (nibble) {
        sb_touch(l2, b, way);
    } else {
        const repl_hit_rule rule = hier_fast_of(h)->l2_hit;   /* before the stores, which may alias it */
        sb_touch_rule(l2, b, way, &rule);
    }
    if (own_l2_hit(h, req, sb_meta(l2, b, way), res))
        drop_shared_copy_in(h, line, llc_set);
}

/* A core request the lean path found not in its own L2 (so access_one's
 * first fast path is done): the move of an LLC line into the L2 here, the
 * rest with the LLC match found. */
static inline __attribute__((always_inline)) void core_miss(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                            uint32_t llc_set, uint64_t slot, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint32_t set = llc_set != UINT32_MAX ? llc_set : cache_set(&h->llc, line);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set == cache_set(&h->llc, line));
    assert(find_in(&h->l2[core], l2_set_of(h, line), line) < 0);
#endif
    uint64_t match;
    if (f->llc_lean) {
        const int mw = sb_way_mru_first(sb_layout_of(&h->llc), (uint8_t *)cache_tags(&h->llc, set), line);
        match = mw < 0 ? 0 : 1ull << mw;
    } else {
        match = match_in(&h->llc, set, line);
    }
    /* access_matched's earlier fast paths are for PCIe requests only. */
    assert(!(match & (f->drop_ways[req] | f->fast_ways[req])));
    if ((match & f->core_move_ways) && f->move_lean && !snoop_at(&h->sf, slot, line)) {
        /* No L2 holds the line (`slot`, snoop_find's, has no entry for it). */
        core_move_lean(h, req, core, line, set, (uint32_t)__builtin_ctzll(match), slot, res);
        return;
    }
    if ((match & f->core_move_ways) && access_core_move(h, req, core, line, set, match, res))
        return;
    access_rest_matched(h, req, core, line, set, match, res);
}

/* A core request core_l2_mru did not finish: the lean hit anywhere in the
 * own L2, else the move from the LLC. */
static inline __attribute__((always_inline)) void core_entry_in(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                 uint32_t llc_set, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint8_t *b = l2_block_lean(h, core, line);
    /* The most recent way was tried (core_l2_mru): the second most recent
     * (a line used again after one other line of its set, such as a
     * packet's mbuf header; its nibble is a way even with one L2 way:
     * unused fields hold 0, lru_order.h), then the snoop filter instead of
     * an L2 search:
     * it names the L2 and way that hold the line, and the move of a line
     * no L2 holds puts the entry at the slot it probed (snoop_find). */
    const uint32_t w1 = (uint32_t)(*sb_order(f->l2_lay, b) >> 4) & 0xF;
    if (sb_tags(b)[w1] == line) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(sb_way(sb_tags(b), f->l2_lay.tag_slots, line) == (int)w1);
#endif
        core_l2_hit_lean(h, req, core, line, llc_set, b, w1, 1, res);
        return;
    }
    const uint64_t slot = snoop_find(&h->sf, line);
    if (snoop_at(&h->sf, slot, line) && (h->sf.core[slot] & (SNOOP_MAX_CORES - 1)) == core) {
        core_l2_hit_lean(h, req, core, line, llc_set, b, l2_way_lean(h, b, line, h->sf.core[slot] >> SNOOP_CORE_BITS),
                         1, res);
        return;
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(sb_way(sb_tags(b), f->l2_lay.tag_slots, line) < 0);
#endif
    core_miss(h, req, core, line, llc_set, slot, res);
}

/* core_miss out of line, for core_entry_rule: its hit keeps no frame. */
static __attribute__((noinline)) void core_rule_miss(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                     uint32_t llc_set, hier_result *res)
{
    /* core_miss's snoop filter slot serves only core_move_lean, which
     * needs an LRU L2 (l2_lru_fill). */
    assert(!hier_fast_of(h)->move_lean);
    core_miss(h, req, core, line, llc_set, 0, res);
}

/* A core request with the lean own-L2 entry of an L2 whose hit rule is
 * not the nibble order's (L2_LEAN_RULE: RRIP, QLRU): no most recent way to
 * try, so the own L2 set is searched at once; a hit there by the policy's
 * rule, else the move from the LLC or the rest (core_miss). */
static inline __attribute__((always_inline)) void core_entry_rule_in(hier *h, enum coh_req req, uint32_t core,
                                                                     uint64_t line, uint32_t llc_set, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    uint8_t *b = l2_block_lean(h, core, line);
    if (f->l2_hint_off) {
        /* QLRU: the first hint's way (core_l2_hinted found it, but its
         * hit changes the ages), then the second's (the way hit or filled
         * before it: core_entry_in's second most recent, a line used again
         * after one other line of its set), else a search; the way found
         * is the first hint for the line's next access. */
        int w = (int)l2_hint_get(f, b, 0);
        if (sb_tags(b)[w] != line) {
            w = (int)l2_hint_get(f, b, 1);
            if (sb_tags(b)[w] == line) {
                HIER_TAKEN(h, l2_hinted2, 1);
            } else {
                w = sb_way(sb_tags(b), f->l2_lay.tag_slots, line);
                if (w < 0) {
                    core_rule_miss(h, req, core, line, llc_set, res);
                    return;
                }
            }
            l2_hint_put(f, b, (uint32_t)w);
        }
        core_l2_hit_lean(h, req, core, line, llc_set, b, (uint32_t)w, 0, res);
        return;
    }
    const int w = sb_way(sb_tags(b), f->l2_lay.tag_slots, line);
    if (w >= 0) {
        core_l2_hit_lean(h, req, core, line, llc_set, b, (uint32_t)w, 0, res);
        return;
    }
    core_rule_miss(h, req, core, line, llc_set, res);
}

/* pcie_lean out of line (the entry's tail call). */
static inline __attribute__((always_inline)) void pcie_entry_in(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set,
                                                 int nibble, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    if (req == REQ_PCIE_RD && f->rd_miss_fast) {
        /* A descriptor the driver just wrote: in its L2 in E/M, so in no
         * LLC way (non-inclusive); the snoop filter before the search. */
        uint8_t *meta = l2_meta_of(h, line);
        if (meta && coh_l2_col((enum coh_state)META_STATE(*meta)) == COL_L2_EM) {
            HIER_TAKEN(h, rd_owned, 1);
            pcie_rd_miss_at(h, line, llc_set, meta, res);
            return;
        }
    } else if (req != REQ_PCIE_RD && f->wr_miss_fast[req] && f->l2_lean && f->l2_recency) {
        /* A completion line the driver read: in its L2 in E/M, so in no
         * LLC way (non-inclusive); the snoop filter before the search, and
         * the L2 copy dropped right here. */
        uint32_t sway;
        uint64_t sslot = 0;
        int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
        if (owner >= 0) {
            uint8_t *b = l2_block_lean(h, (uint32_t)owner, line);
            const uint32_t way = l2_way_lean(h, b, line, sway);
            if (coh_l2_col((enum coh_state)META_STATE(*sb_meta(f->l2_lay, b, way))) == COL_L2_EM) {
                HIER_TAKEN(h, wr_owned, 1);
                l2_remove_lean(h, b, way, sslot);
                pcie_wr_miss_at(h, req, line, llc_set, COL_L2_EM, res);
                return;
            }
        }
    }
    pcie_lean(h, req, line, llc_set, nibble, res);
}

/* core_entry_in and pcie_entry_in out of line (the entry's tail calls):
 * for any request, and compiled once more for each request of the
 * fixed-request entries (hier_core_rd_set, ...), where the request's tests
 * fold (the L2 state on a write, the counters' address, pcie_entry's
 * choice between the read and the write path). */
static __attribute__((noinline, flatten)) void core_entry(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                          uint32_t llc_set, hier_result *res)
{
    core_entry_in(h, req, core, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void core_entry_rd(hier *h, uint32_t core, uint64_t line, uint32_t llc_set,
                                                             hier_result *res)
{
    core_entry_in(h, REQ_CORE_RD, core, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void core_entry_wr(hier *h, uint32_t core, uint64_t line, uint32_t llc_set,
                                                             hier_result *res)
{
    core_entry_in(h, REQ_CORE_WR, core, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void core_entry_rule(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                               uint32_t llc_set, hier_result *res)
{
    core_entry_rule_in(h, req, core, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void core_entry_rule_rd(hier *h, uint32_t core, uint64_t line,
                                                                  uint32_t llc_set, hier_result *res)
{
    core_entry_rule_in(h, REQ_CORE_RD, core, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void core_entry_rule_wr(hier *h, uint32_t core, uint64_t line,
                                                                  uint32_t llc_set, hier_result *res)
{
    core_entry_rule_in(h, REQ_CORE_WR, core, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void pcie_entry(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set,
                                                          hier_result *res)
{
    pcie_entry_in(h, req, line, llc_set, 1, res);
}

static __attribute__((noinline, flatten)) void pcie_entry_rd(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
    pcie_entry_in(h, REQ_PCIE_RD, line, llc_set, 1, res);
}

static __attribute__((noinline, flatten)) void pcie_entry_wr(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
    pcie_entry_in(h, REQ_PCIE_WR_FULL, line, llc_set, 1, res);
}

/* The same for an LLC policy with another inline hit rule (llc_run_inline
 * without llc_lean). */
static __attribute__((noinline, flatten)) void pcie_entry_rule(hier *h, enum coh_req req, uint64_t line,
                                                               uint32_t llc_set, hier_result *res)
{
    pcie_entry_in(h, req, line, llc_set, 0, res);
}

static __attribute__((noinline, flatten)) void pcie_entry_rule_rd(hier *h, uint64_t line, uint32_t llc_set,
                                                                  hier_result *res)
{
    pcie_entry_in(h, REQ_PCIE_RD, line, llc_set, 0, res);
}

static __attribute__((noinline, flatten)) void pcie_entry_rule_wr(hier *h, uint64_t line, uint32_t llc_set,
                                                                  hier_result *res)
{
    pcie_entry_in(h, REQ_PCIE_WR_FULL, line, llc_set, 0, res);
}

/* core_l2_mru's write to its own L2 (S) line on the most recent way: the
 * upgrade to M, which also drops a non-inclusive LLC's Shared copy
 * (core_l2_hit); `meta` is the line's L2 metadata byte. */
static __attribute__((noinline)) void core_upgrade_mru(hier *h, uint64_t line, uint32_t llc_set, hier_result *res,
                                                       uint8_t *meta)
{
    if (own_l2_hit(h, REQ_CORE_WR, meta, res))
        drop_shared_copy(h, line, llc_set);
}

/* An own-L2 hit whose replacement update is done (the lean entries'
 * core_l2_mru, core_l2_hinted), on the line whose L2
 * metadata byte is `meta`: own_l2_hit, a write to an S line a tail call
 * (core_upgrade_mru). */
static inline __attribute__((always_inline)) void l2_hit_finish(hier *h, enum coh_req req, uint64_t line,
                                                             uint32_t llc_set, uint8_t *meta, hier_result *res)
{
    /* Only a write to an S copy may take the LLC's copy
     * (coh_l2_hit_takes_llc): out of line, where the mode is tested, so
     * that the entry keeps no frame. */
    if (req == REQ_CORE_WR && *meta == ST_S) {
        core_upgrade_mru(h, line, llc_set, res, meta);
        return;
    }
    (void)own_l2_hit(h, req, meta, res);   /* 0: not a write to an S copy */
}

/* The most frequent access of all, in the entry itself with few enough
 * live values for a frame-less leaf: a core request whose line is the
 * most recent way of its own L2 set (core_l2_hit_lean without the order
 * update, which would leave the word as it is, repl_order_hit); a write
 * to an S line is a tail call (core_upgrade_mru).  Returns 1 when done. */
static inline __attribute__((always_inline)) int core_l2_mru(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                            uint32_t llc_set, hier_result *res)
{
    const sb_layout l2 = hier_fast_of(h)->l2_lay;
    uint8_t *b = l2_block_lean(h, core, line);
    const uint32_t w0 = (uint32_t)*sb_order(l2, b) & 0xF;
    if (sb_tags(b)[w0] != line)
        return 0;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(sb_way(sb_tags(b), l2.tag_slots, line) == (int)w0);
    assert(snoop_get(&h->sf, line) == (int)core && "snoop filter and L2 disagree");
#endif
    l2_hit_finish(h, req, line, llc_set, sb_meta(l2, b, w0), res);
    return 1;
}

/* core_l2_mru for an L2 of QLRU ages (l2_hint_off): the way last hit or
 * filled in the set (the block's first hint byte) tried first, and the
 * hit taken here when U has nothing to do after it
 * (repl_qlru_hit_set_done: the usual case); else core_entry_rule.
 * Returns 1 when done. */
static inline __attribute__((always_inline)) int core_l2_hinted(hier *h, enum coh_req req, uint32_t core,
                                                               uint64_t line, uint32_t llc_set, hier_result *res)
{
    const struct hier_fast *const f = hier_fast_of(h);
    const sb_layout l2 = f->l2_lay;
    uint8_t *b = l2_block_lean(h, core, line);
    const uint32_t w = l2_hint_get(f, b, 0);
    assert(f->l2_hit.kind == REPL_HIT_QLRU);
    if (sb_tags(b)[w] != line)
        return 0;
    uint64_t *x = (uint64_t *)(void *)(b + l2.repl_off);
    const uint64_t y = repl_qlru_hit_set(&f->l2_hit, *x, w);
    if (!repl_qlru_hit_set_done(&f->l2_hit, y))
        return 0;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(sb_way(sb_tags(b), l2.tag_slots, line) == (int)w);
    assert(snoop_get(&h->sf, line) == (int)core && "snoop filter and L2 disagree");
    assert(repl_qlru_hit_word(&f->l2_hit, *x, w) == y);
#endif
    *x = y;
    HIER_TAKEN(h, l2_hinted, 1);
    l2_hit_finish(h, req, line, llc_set, sb_meta(l2, b, w), res);
    return 1;
}

/* pcie_lean's hit on the most recent way of the set (no order update),
 * frame-less in the entry like core_l2_mru.  Returns 1 when done. */
static inline __attribute__((always_inline)) int pcie_mru(hier *h, enum coh_req req, uint64_t line, uint32_t set,
                                                         hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    const sb_layout l = sb_layout_of(&h->llc);
    uint8_t *b = (uint8_t *)cache_tags(&h->llc, set);
    const uint32_t w0 = (uint32_t)*sb_order(l, b) & 0xF;
    if (sb_tags(b)[w0] != line || !((f->fast_ways[req] >> w0) & 1))
        return 0;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((1ull << w0) == match_in(&h->llc, set, line));
    assert((((h->cfg.shared_mask >> w0) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
#endif
    sb_keep_state(l, b, w0, req);   /* the most recent way: the order stays */
    const uint32_t col = f->fast_col[w0];
    sb_count_hit(&h->stats, req, col);
    sb_hit_result(res, col, col_region(col));
    return 1;
}

/* The entry points: the own-L2 MRU hit inline, everything else in tail
 * calls. */
static inline __attribute__((always_inline)) void access_entry(hier *h, enum coh_req req, uint32_t core,
                                                               uint64_t line, uint32_t llc_set, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && f->l2_lean == L2_LEAN_NIBBLE && core < h->cfg.cores) {
        if (core_l2_mru(h, req, core, line, llc_set, res))
            return;
        if (__builtin_constant_p(req) && req == REQ_CORE_RD)   /* the fixed-request entries */
            core_entry_rd(h, core, line, llc_set, res);
        else if (__builtin_constant_p(req) && req == REQ_CORE_WR)
            core_entry_wr(h, core, line, llc_set, res);
        else
            core_entry(h, req, core, line, llc_set, res);
        return;
    }
    if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && f->l2_lean == L2_LEAN_RULE && core < h->cfg.cores) {
        if (f->l2_hint_off && core_l2_hinted(h, req, core, line, llc_set, res))
            return;
        if (__builtin_constant_p(req) && req == REQ_CORE_RD)
            core_entry_rule_rd(h, core, line, llc_set, res);
        else if (__builtin_constant_p(req) && req == REQ_CORE_WR)
            core_entry_rule_wr(h, core, line, llc_set, res);
        else
            core_entry_rule(h, req, core, line, llc_set, res);
        return;
    }
    if (req <= REQ_PCIE_RD && f->llc_lean && llc_set != UINT32_MAX) {
        if (pcie_mru(h, req, line, llc_set, res))
            return;
        if (__builtin_constant_p(req) && req == REQ_PCIE_RD)
            pcie_entry_rd(h, line, llc_set, res);
        else if (__builtin_constant_p(req) && req == REQ_PCIE_WR_FULL)
            pcie_entry_wr(h, line, llc_set, res);
        else
            pcie_entry(h, req, line, llc_set, res);
        return;
    }
    if (req <= REQ_PCIE_RD && f->llc_run_inline && llc_set != UINT32_MAX) {
        if (__builtin_constant_p(req) && req == REQ_PCIE_RD)
            pcie_entry_rule_rd(h, line, llc_set, res);
        else if (__builtin_constant_p(req) && req == REQ_PCIE_WR_FULL)
            pcie_entry_rule_wr(h, line, llc_set, res);
        else
            pcie_entry_rule(h, req, line, llc_set, res);
        return;
    }
    access_rest(h, req, core, line, llc_set, res);
}

void hier_access_set(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set < h->llc.nsets);
#endif
    access_entry(h, req, core, line, llc_set, res);
}

/* hier_access_set with the request fixed (hier_int.h): the entry's
 * request tests fold away and core_entry / pcie_entry get constants. */
void hier_core_rd_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set < h->llc.nsets);
#endif
    access_entry(h, REQ_CORE_RD, core, line, llc_set, res);
}

void hier_core_wr_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set < h->llc.nsets);
#endif
    access_entry(h, REQ_CORE_WR, core, line, llc_set, res);
}

void hier_pcie_rd_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set < h->llc.nsets);
#endif
    access_entry(h, REQ_PCIE_RD, 0, line, llc_set, res);
}

void hier_pcie_wr_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set < h->llc.nsets);
#endif
    access_entry(h, REQ_PCIE_WR_FULL, 0, line, llc_set, res);
}

/* A core request for a line whose DMA hint names an LLC way of
 * core_move_ways that holds it: when no L2 has a copy (the snoop filter
 * probe access_core_move makes anyway), the own-L2 lookup would miss and
 * the LLC lookup find that way, so the move is done at once.  Anything
 * else goes through the entry as hier_access_set. */
static inline __attribute__((always_inline)) void hint_move_in(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                               uint32_t set, uint32_t way, hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((1ull << way) == match_in(&h->llc, set, line));
    assert(core >= h->cfg.cores || snoop_get(&h->sf, line) >= 0 || find_in(&h->l2[core], l2_set_of(h, line), line) < 0);
#endif
    if (core < h->cfg.cores && access_core_move(h, req, core, line, set, 1ull << way, res)) {
        HIER_TAKEN(h, hint_moves, 1);
        return;
    }
    access_entry(h, req, core, line, set, res);
}

/* hint_move_in out of line: for any request, and once more for each core
 * request (the fixed-request hint entries, hier_core_rd_hint / _wr_hint). */
static __attribute__((noinline, flatten)) void hint_move(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                         uint32_t set, uint32_t way, hier_result *res)
{
    hint_move_in(h, req, core, line, set, way, res);
}

static __attribute__((noinline, flatten)) void hint_move_rd(hier *h, uint32_t core, uint64_t line, uint32_t set,
                                                            uint32_t way, hier_result *res)
{
    hint_move_in(h, REQ_CORE_RD, core, line, set, way, res);
}

static __attribute__((noinline, flatten)) void hint_move_wr(hier *h, uint32_t core, uint64_t line, uint32_t set,
                                                            uint32_t way, hier_result *res)
{
    hint_move_in(h, REQ_CORE_WR, core, line, set, way, res);
}

/* The test in the entry, frame-less like access_entry's own: a hint's way
 * byte by its low 6 bits in core_move_ways without way 63 (HIER_HINT_NO_WAY
 * fails), as in pcie_run's tight loop. */
static inline __attribute__((always_inline)) void access_hint_in(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                                 uint64_t hint, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    const uint32_t set = (uint32_t)(hint >> 8) - 1, way = (uint32_t)hint & 63;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(hint >= 0x100 && set < h->llc.nsets);
    assert(set == cache_set(&h->llc, line) && "a line hint with a wrong set");
#endif
    if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && (((f->core_move_ways & ~(1ull << 63)) >> way) & 1) &&
        cache_tags(&h->llc, set)[way] == line) {
        if (__builtin_constant_p(req) && req == REQ_CORE_RD)
            hint_move_rd(h, core, line, set, way, res);
        else if (__builtin_constant_p(req) && req == REQ_CORE_WR)
            hint_move_wr(h, core, line, set, way, res);
        else
            hint_move(h, req, core, line, set, way, res);
        return;
    }
    access_entry(h, req, core, line, set, res);
}

void hier_core_rd_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res)
{
    access_hint_in(h, REQ_CORE_RD, core, line, hint, res);
}

void hier_core_wr_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res)
{
    access_hint_in(h, REQ_CORE_WR, core, line, hint, res);
}

void hier_access(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint64_t hint, hier_result *res)
{
    if (hint)
        access_hint_in(h, req, core, line, hint, res);
    else
        access_entry(h, req, core, line, UINT32_MAX, res);
}
