/* hier_int.h - the hierarchy's private half: what hier.c (the semantics),
 * hier_derive.c (the fast paths' state), hier_fast.c (the fast paths) and
 * hier_run.c (the DMA runs) share.  Only sim/cache/hier*.c include it:
 * the simulator's entries are in hier.h, what the tests see in
 * hier_test.h; everything here may change with the fast paths.
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
#include "sim/cache/setblock.h"

/* The columns of LLC ways (fast_col): COL_DDIO, COL_L3, COL_SHARED. */
#define LLC_COLS (COL_SHARED + 1)
_Static_assert(COL_DDIO < LLC_COLS && COL_L3 < LLC_COLS && COL_SHARED < LLC_COLS, "LLC columns first");

_Static_assert(HIER_MAX_CORES <= SNOOP_MAX_CORES && CACHE_MAX_WAYS <= SNOOP_MAX_WAYS,
               "the snoop filter stores a core and an L2 way");

/* The DMA runs' tight loop over the hinted lines hp..he of lines line..
 * for an LLC policy whose hit is not the nibble order's: a copy per rule
 * kind (QLRU: per ageing rule, its fields constants) and run direction
 * (`write` as the copy's), chosen at init (hier_run.c hier_run_tight_of);
 * returns where it stopped. */
typedef const hier_hint_word *(*hier_tight_fn)(hier *h, int write, const hier_hint_word *hp,
                                               const hier_hint_word *he, uint64_t line, uintptr_t blocks_m1,
                                               uint64_t plain_tight, uint32_t *cnt);

/* hier_fast.l2_lean: off, or the lean own-L2 entries of a nibble order
 * (the most recent way tried first) or of another inline hit rule (a full
 * set search); nonzero: the L2 layout in the fast state is usable. */
enum { L2_LEAN_NIBBLE = 1, L2_LEAN_RULE = 2 };

struct hier_fast {
    uint64_t fast_ways[REQ_COUNT];  /* LLC ways where a hit of this request is a plain LLC_KEEP cell */
    uint64_t drop_ways[REQ_COUNT];  /* LLC ways where a hit is LLC_KEEP, reads no memory and drops any L2 copy */
    uint8_t fast_col[CACHE_MAX_WAYS];   /* Table 1 column of each LLC way */
    int core_fast;                  /* a core request first looks in its own L2 */
    int llc_nibble, l2_nibble;      /* hits on a nibble order word (REPL_HIT_NIBBLE: LRU, BIP, DIP) */
    repl_hit_rule llc_hit, l2_hit;  /* the policies' hit rules: inline unless REPL_HIT_OPS (llc_touch) */
    int llc_run_inline;             /* llc_hit inline on the state at h->llc's repl_off: the DMA runs' tight loop */
    int llc_recency, l2_recency;    /* LRU / BIP: victim choice and invalidation inline (fill_in / remove_in) */
    int llc_lru_fill, l2_lru_fill;  /* LRU: the fill's MRU insertion inline */
    repl_evict_rule llc_evict, l2_evict;    /* the others (RRIP, QLRU): fill, victim, removal inline unless REPL_EVICT_OPS */
    int llc_lean;                   /* LRU / BIP order words at h->llc's repl_off: the lean LLC entries */
    uint64_t core_move_ways;        /* LLC ways whose line a core request moves to its L2 (access_core_move) */
    int rd_miss_fast;               /* a PCIe read the LLC misses: pcie_rd_miss_at */
    uint8_t rd_mem_read[COL_COUNT]; /* its cells' memory reads, by column */
    uint8_t wr_miss_fast[REQ_COUNT];    /* a PCIe write the LLC misses (full, partial): hier_pcie_wr_miss */
    uint8_t wr_mem_read[REQ_COUNT][COL_COUNT];  /* its cells' memory reads, by request and column */
    uint64_t wr_miss_mask;          /* the ways its cells allocate the line in (LLC_TO_DDIO: the DDIO ways) */
    uint64_t victim_plain;          /* LLC ways whose eviction cell has no L2 side (hier_llc_victim_l2 not needed) */
    uint64_t run_plain[2];          /* DMA runs (read, write): full lines' plain fast ways, without way 63 */
    uint64_t run_drop, run_plain_part;  /* write runs: full lines' drop ways, partial lines' plain ways (the same) */
    int run_hints;                  /* the runs keep hint words: the LLC has fewer than HIER_HINT_MAX_SETS sets */
    int run_miss_lean;              /* a write run's full line that misses, in no L2: in its tight loop (hier_run.c run_miss) */
    int run_miss_loop;              /* the next write run takes the tight loop with run_miss: a quarter or more of the
                                       last one's lines did not hit (a choice of speed, never of a result) */
    hier_tight_fn run_tight_rule[2];    /* the tight loop of llc_hit when not the nibble order's, for read and write runs (NULL: none) */
    int l2_lean;                    /* a core request's own-L2 hit: hier_fast.c core_l2_mru / core_entry_in (L2_LEAN_NIBBLE) or core_entry_rule (L2_LEAN_RULE), with: */
    int l2_mask_map;                /* the L2s map by a mask: a line's L2 set is line & l2_set_mask */
    uint64_t l2_set_mask;
    sb_layout l2_lay;               /* every L2's block layout, here for the lean entries */
    uint32_t l2_hint_off;           /* L2_LEAN_RULE of QLRU ages: each L2 set block's HIER_L2_HINT_BYTES past the policy's, the ways last hit or filled, tried first (hier_fast.c core_l2_hinted); 0: none */
    int move_lean;                  /* a core move of an LLC line with both ends' layouts here: core_move_lean */
    uint8_t *l2_blocks[HIER_MAX_CORES];   /* each core's L2 set blocks (l2[c].blocks): one load in the entry */
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    hier_taken taken;               /* the tests' counts (hier_test.h), not in the shipped build */
#endif
};

/* hier_run.c: the tight loop for h's LLC hit rule (llc_run_inline, not
 * the nibble order) in write (1) or read (0) runs, or NULL. */
hier_tight_fn hier_run_tight_of(const hier *h, int write);

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
#define HIER_TAKEN(h, field, n) ((void)(h))
#endif

/* --- between the files ------------------------------------------------------ */

/* hier.c: every request, cell by cell (the executor of Table 1);
 * `llc_match` is cache_match(llc, llc_set, line). */
void hier_access_general(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint32_t llc_set,
                         uint64_t llc_match, hier_result *res);

/* hier.c: the L2 side of the eviction cell (Table 1's eviction row) of
 * LLC way `way`'s column for its victim `line` (llc_victim_at, for the
 * ways not in victim_plain): an inclusive LLC back-invalidates the L2
 * copy.  Returns 1 when that copy was dirty (its data goes to memory). */
int hier_llc_victim_l2(hier *h, uint32_t way, uint64_t line);

/* hier.c: llc_fill_lru (below) out of line, for callers that fill an
 * empty way themselves (llc_insert_inline). */
uint32_t hier_llc_insert_lru(hier *h, uint64_t line, uint32_t set, uint64_t mask, uint8_t state, hier_result *res);

/* hier.c: allocate the absent `line` in its LLC set `set` inside `mask`
 * in state `state`, any policy; a victim leaves by Table 1's eviction row
 * (its write-back counted in `res`).  Returns the way. */
uint32_t hier_llc_insert(hier *h, uint64_t line, uint32_t set, uint64_t mask, uint8_t state, hier_result *res);

/* hier.c: the L2 victim `line` of `core` (its metadata byte `meta`) has
 * left the L2: Table 1's eviction row of its state (non-inclusive, E/M to
 * the core's LLC ways; inclusive, its dirt into the LLC copy). */
void hier_l2_victim(hier *h, uint32_t core, uint64_t line, uint8_t meta, hier_result *res);

/* hier_fast.c: a PCIe write (full or partial) of a line no LLC way holds
 * (wr_miss_fast[req]); `llc_set` is the line's LLC set.  Returns the LLC
 * way the line went to (a DMA run's hint for it). */
uint32_t hier_pcie_wr_miss(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set, hier_result *res);

/* --- the regions and columns ------------------------------------------------ */

/* The region a Table 1 column's line is in (the inverse of coherence.h's
 * coh_region_col and coh_l2_col), for a result's `region`. */
static inline uint8_t col_region(uint32_t col)
{
    static const uint8_t t[COL_COUNT] = {
        [COL_DDIO] = REG_DDIO, [COL_L3] = REG_L3, [COL_SHARED] = REG_SHARED,
        [COL_L2_EM] = REG_L2, [COL_L2_S] = REG_L2, [COL_MEM] = REG_MEM,
    };
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(col < COL_COUNT);
#endif
    return t[col < COL_COUNT ? col : COL_MEM]; /* the guard: -O2's array-bounds warning cannot see the assert */
}

static inline uint64_t core_mask(const hier *h, uint32_t core)
{
    return h->cfg.cos_mask[h->cfg.core_cos[core]];
}

/* The counters of one access of `req` that gave `res`. */
static inline __attribute__((always_inline)) void count_access(hier *h, enum coh_req req, const hier_result *res)
{
    sb_count_access(&h->stats, req, res);
}

/* --- lookups ---------------------------------------------------------------- */

/* The set of `line` in every L2 (they share one geometry): a mask when
 * they map by one (hier_derive.c l2_lean_init), the same value as cache_set. */
static inline uint32_t l2_set_of(const hier *h, uint64_t line)
{
    const struct hier_fast *f = hier_fast_of(h);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(!f->l2_mask_map || (uint32_t)(line & f->l2_set_mask) == cache_set(&h->l2[0], line));
#endif
    return f->l2_mask_map ? (uint32_t)(line & f->l2_set_mask) : cache_set(&h->l2[0], line);
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

/* Replacement update of a hit through the ops (a policy with no inline
 * hit rule): out of the callers. */
void hier_touch_rule(const repl_hit_rule *rule, cache *c, uint32_t set, uint32_t way);   /* hier_fast.c */

/* Replacement update of a hit by a rule other than the nibble order's
 * (`rule`, of c's policy): inline (the policy's bytes in the set block),
 * or through the ops (hier_touch_rule). */
static inline __attribute__((always_inline)) void touch_rule(const repl_hit_rule *rule, cache *c, uint32_t set,
                                                             uint32_t way)
{
    if (rule->kind == REPL_HIT_OPS) {
        hier_touch_rule(rule, c, set, way);
        return;
    }
    uint8_t *state = (uint8_t *)cache_tags(c, set) + c->repl_off;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(state == repl_line_state(c->repl, set));
#endif
    repl_hit_apply(rule, state, way);
}

/* Replacement update of a hit: the nibble order's inline (LRU, BIP, DIP),
 * the other policies' by their hit rule or ops (touch_rule). */
static inline __attribute__((always_inline)) void llc_touch(hier *h, uint32_t set, uint32_t way)
{
    struct hier_fast *const f = hier_fast_of(h);
    if (f->llc_nibble)
        repl_recency_hit(h->llc.repl, set, way);
    else
        touch_rule(&f->llc_hit, &h->llc, set, way);
}

static inline __attribute__((always_inline)) void l2_touch(hier *h, cache *l2, uint32_t set, uint32_t way)
{
    struct hier_fast *const f = hier_fast_of(h);
    if (f->l2_nibble)
        repl_recency_hit(l2->repl, set, way);
    else
        touch_rule(&f->l2_hit, l2, set, way);
}

/* --- taking a line out of an L2 ----------------------------------------------
 *
 * Every path's: the general one's evictions and flush, the fast paths'
 * drops. */

/* Remove the line in (set, way) of `core`'s L2 from that L2 (the caller
 * erases its snoop filter entry); returns its state. */
static inline uint8_t l2_remove_at(hier *h, uint32_t core, uint32_t set, uint32_t way)
{
    cache *l2 = &h->l2[core];
    uint8_t st = META_STATE(*cache_meta(l2, set, way));
    remove_in(l2, hier_fast_of(h)->l2_recency, &hier_fast_of(h)->l2_evict, set, way);
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

/* Hint `k` of L2 set block `b`, a way the lean entry tries first
 * (l2_hint_off): HIER_L2_HINT_BYTES bytes, k = 0 the way last hit or
 * filled and k = 1 the one before it (LRU's most and second most recent,
 * as far as hits and fills go), guesses: any ways, checked against the
 * line's tag; the blocks start zeroed ... */
static inline __attribute__((always_inline)) uint32_t l2_hint_get(const struct hier_fast *f, const uint8_t *b,
                                                                  uint32_t k)
{
    const uint32_t w = b[f->l2_hint_off + k];
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(f->l2_hint_off && k < HIER_L2_HINT_BYTES && w < f->l2_lay.ways);
#endif
    return w;
}

/* ... and `way` hit or filled: it becomes hint 0, hint 0 hint 1 (no
 * change when it is hint 0 already). */
static inline __attribute__((always_inline)) void l2_hint_put(const struct hier_fast *f, uint8_t *b, uint32_t way)
{
    assert(f->l2_hint_off && way < f->l2_lay.ways);
    uint8_t *p = b + f->l2_hint_off;
    if (p[0] != way) {
        p[1] = p[0];
        p[0] = (uint8_t)way;
    }
}

/* Put the absent `line` in `core`'s L2 in state `state`, a victim first
 * through Table 1's eviction row (hier_l2_victim): the victim's snoop
 * entry goes before the line's, as with every L2 full the filter (sized
 * for all L2 lines) has no room for one more.  `slot`: snoop_find's for
 * the line, probed with the filter as it is, or L2_NO_SLOT; a victim's
 * erasure may move entries, so the put then probes again. */
#define L2_NO_SLOT UINT64_MAX
static inline __attribute__((always_inline)) void l2_insert_at_slot(hier *h, uint32_t core, uint64_t line,
                                                                    uint8_t state, uint64_t slot, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    cache *l2 = &h->l2[core];
    cache_evicted ev;
    const uint32_t set = l2_set_of(h, line);
    uint32_t way = fill_in(l2, f->l2_recency, f->l2_lru_fill, &f->l2_evict, set, l2->full_mask, line, state, &ev);
    if (f->l2_hint_off)
        l2_hint_put(f, (uint8_t *)cache_tags(l2, set), way);   /* the line's next access is likely its next hit */
    if (ev.line != CACHE_INVALID)
        hier_l2_victim(h, core, ev.line, ev.meta, res);
    if (ev.line != CACHE_INVALID || slot == L2_NO_SLOT)
        snoop_put_way(&h->sf, line, (int)core, way);
    else
        snoop_put_way_at(&h->sf, slot, line, (int)core, way);
}

/* What an LLC insert assumes (sanitizer builds): `set` is the line's, and
 * no way of it holds the line. */
static inline void llc_absent_check(const hier *h, uint64_t line, uint32_t set)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set == cache_set(&h->llc, line));
    assert(find_in(&h->llc, set, line) < 0);
#else
    (void)h, (void)line, (void)set;
#endif
}

/* --- the fast paths' helpers the DMA runs share ------------------------------ */

/* l2_take for a hierarchy with l2_lean (the L2 block layout
 * in the fast state) and l2_recency (LRU / BIP removal on the nibble
 * order), inline: the same stores as its remove_in and snoop_erase_slot,
 * without the cache struct.  The set block of `line` in `core`'s L2 ... */
static inline __attribute__((always_inline)) uint8_t *l2_block_lean(const hier *h, uint32_t core, uint64_t line)
{
    const struct hier_fast *const f = hier_fast_of(h);
    uint8_t *b = f->l2_blocks[core] + (line & f->l2_set_mask) * f->l2_lay.block_bytes;
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
    const uint32_t way = t[sway] == line ? sway : (uint32_t)sb_way(t, f->l2_lay.tag_slots, line);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(sway < f->l2_lay.ways && way < f->l2_lay.ways && t[way] == line);
#endif
    return way;
}

/* Remove the line in `way` of the L2 set block `b` (l2_block_lean), whose
 * snoop filter entry is at `slot`: l2_take_at_slot with LRU / BIP
 * (l2_recency) or an inline evict rule (remove_in's stores). */
static inline __attribute__((always_inline)) void l2_remove_lean(hier *h, uint8_t *b, uint32_t way, uint64_t slot)
{
    struct hier_fast *const f = hier_fast_of(h);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(f->l2_lean && (f->l2_recency || f->l2_evict.kind != REPL_EVICT_OPS) && way < f->l2_lay.ways);
#endif
    sb_remove_rule(f->l2_lay, b, way, f->l2_recency, &f->l2_evict);
    snoop_erase_slot(&h->sf, slot);
}

/* Drop the L2 copy of `line`, if an L2 holds one (a PCIe write's
 * L2_DROP): inline when the L2 layout allows it (l2_lean, and l2_recency
 * or an inline evict rule: remove_in's stores), else l2_take.  Returns
 * the state the copy had, ST_I when there was none. */
static inline __attribute__((always_inline)) uint8_t l2_drop_any(hier *h, uint64_t line)
{
    const struct hier_fast *const f = hier_fast_of(h);
    uint32_t sway;
    uint64_t sslot = 0;
    const int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
    if (owner < 0)
        return ST_I;
    if (!f->l2_lean || (!f->l2_recency && f->l2_evict.kind == REPL_EVICT_OPS))
        return l2_take(h, (uint32_t)owner, line, sway, sslot);
    uint8_t *b = l2_block_lean(h, (uint32_t)owner, line);
    const uint32_t way = l2_way_lean(h, b, line, sway);
    const uint8_t st = META_STATE(*sb_meta(f->l2_lay, b, way));
    l2_remove_lean(h, b, way, sslot);
    return st;
}

/* The LLC victim `line` (its metadata `meta`) has left way `way`: Table
 * 1's eviction row of its column.  The line goes to memory if dirty; the
 * L2 side of the cell is out of line (hier_llc_victim_l2) except for a
 * victim_plain way (the usual one: a non-inclusive LLC's victim has no L2
 * copy), inline: the miss path of a run at many cores evicts on most
 * lines. */
static inline __attribute__((always_inline)) void llc_victim_at(hier *h, uint32_t way, uint64_t line, uint8_t meta,
                                                                hier_result *res)
{
    h->stats.llc_evictions++;
    int wb = META_STATE(meta) == ST_M;
    if (__builtin_expect(!((hier_fast_of(h)->victim_plain >> way) & 1), 0))
        wb |= hier_llc_victim_l2(h, way, line);
    res->mem_writebacks += wb;
}

/* hier_llc_insert's work for an LLC that is LRU on the set blocks' order
 * words (llc_lean, llc_lru_fill): fill_in's stores, its victim's cell
 * through llc_victim_at. */
static inline __attribute__((always_inline)) uint32_t llc_fill_lru(hier *h, uint64_t line, uint32_t set,
                                                                   uint64_t mask, uint8_t state, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    assert(f->llc_lean && f->llc_lru_fill);
    cache_evicted ev;
    const uint32_t way = fill_in(&h->llc, 1, 1, &f->llc_evict, set, mask, line, state, &ev);
    if (ev.line != CACHE_INVALID)
        llc_victim_at(h, way, ev.line, ev.meta, res);
    return way;
}

/* Allocate the absent `line` in its LLC set `set` (inline: a PCIe read's
 * Shared-way copy, a PCIe write's DDIO copy, about once per packet each).
 * With LRU on the set blocks' order words (llc_lean, llc_lru_fill) the
 * fill is llc_fill_lru: here when `victim_here` (a constant: a PCIe
 * write's, whose DDIO ways are full at many cores), else only into an
 * empty way of `mask` (the usual case of a few cores: the Shared and DDIO
 * ways' lines move on to the L2s), a full set through
 * hier_llc_insert_lru; the rest goes through hier_llc_insert. */
static inline __attribute__((always_inline)) uint32_t llc_insert_inline(hier *h, uint64_t line, uint32_t set,
                                                                        uint64_t mask, uint8_t state,
                                                                        int victim_here, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    llc_absent_check(h, line, set);
    if (f->llc_lean && f->llc_lru_fill) {
        if (victim_here)
            return llc_fill_lru(h, line, set, mask, state, res);
        const uint32_t way = sb_fill_empty(sb_layout_of(&h->llc), (uint8_t *)cache_tags(&h->llc, set), mask, line, state);
        if (__builtin_expect(way != UINT32_MAX, 1))
            return way;
        return hier_llc_insert_lru(h, line, set, mask, state, res);
    } else if (f->llc_evict.kind != REPL_EVICT_OPS &&
               sb_empty(sb_layout_of(&h->llc), (uint8_t *)cache_tags(&h->llc, set), mask)) {
        /* RRIP, QLRU: an empty way, no victim (fill_in's choice, which is
         * then an empty way). */
        cache_evicted ev;
        const uint32_t way = fill_in(&h->llc, 0, 0, &f->llc_evict, set, mask, line, state, &ev);
        assert(ev.line == CACHE_INVALID);
        return way;
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
            way = llc_insert_inline(h, line, llc_set, h->cfg.shared_mask, (uint8_t)coh_llc_fill_state(st == ST_M), 0,
                                    res);
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
        return sb_meta(f->l2_lay, b, l2_way_lean(h, b, line, sway));
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
