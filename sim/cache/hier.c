/* hier.c - executes the coherence table (coherence.c) on a way-partitioned
 * LLC and per-core L2s.  See docs/cache-model.md for the choices made where
 * the paper's Table 1 is silent. */
#include "sim/cache/hier.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/parse.h"

/* Per-line metadata byte: the coherence state (ST_M means dirty). */
#define META_STATE(m) ((uint8_t)((m) & 3))

/* The columns of LLC ways (fast_col): COL_DDIO, COL_L3, COL_SHARED. */
#define LLC_COLS (COL_SHARED + 1)
_Static_assert(COL_DDIO < LLC_COLS && COL_L3 < LLC_COLS && COL_SHARED < LLC_COLS, "LLC columns first");

static const uint8_t col_region[COL_COUNT] = {
    [COL_DDIO] = REG_DDIO, [COL_L3] = REG_L3, [COL_SHARED] = REG_SHARED,
    [COL_L2_EM] = REG_L2, [COL_L2_S] = REG_L2, [COL_MEM] = REG_MEM,
};

void hier_config_default(hier_config *c)
{
    memset(c, 0, sizeof *c);
    c->mode = HIER_NONINCLUSIVE;
    /* Xeon Gold 6140: 18 slices x 2048 sets x 11 ways x 64 B = 24.75 MiB. */
    c->llc = (cache_geom){.line_size = 64, .slices = 18, .sets_per_slice = 2048, .ways = 11,
                          .mapping = MAP_XOR, .seed = 1};
    repl_config_default(&c->llc_repl);
    /* 1 MiB, 16-way private L2 per core. */
    c->l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 1024, .ways = 16,
                         .mapping = MAP_MODULO, .seed = 1};
    repl_config_default(&c->l2_repl);
    c->cores = 1;
    c->ddio_mask = 0x600;
    c->shared_mask = 0x003;
    c->n_cos = 1;
    c->cos_mask[0] = 0x7FF;
}

int hier_config_validate(const hier_config *c, ddio_err *e)
{
    if (c->mode != HIER_NONINCLUSIVE && c->mode != HIER_INCLUSIVE)
        return ddio_errf(e, DDIO_EXIT_USAGE, "hierarchy: unknown mode");
    if (cache_geom_validate(&c->llc, "llc", e) || cache_geom_validate(&c->l2, "l2", e))
        return -1;
    if (c->llc.line_size != c->l2.line_size)
        return ddio_errf(e, DDIO_EXIT_USAGE, "l2: line size %u differs from the LLC's %u",
                         c->l2.line_size, c->llc.line_size);
    uint64_t full = c->llc.ways == 64 ? UINT64_MAX : (1ull << c->llc.ways) - 1;
    if (c->cores < 1 || c->cores > HIER_MAX_CORES)
        return ddio_errf(e, DDIO_EXIT_USAGE, "cores: %u is out of range [1, %d]", c->cores, HIER_MAX_CORES);
    if (!c->ddio_mask || (c->ddio_mask & ~full))
        return ddio_errf(e, DDIO_EXIT_USAGE, "ddio_mask: 0x%llx must select at least one of the %u LLC ways",
                         (unsigned long long)c->ddio_mask, c->llc.ways);
    if (c->mode == HIER_NONINCLUSIVE && (!c->shared_mask || (c->shared_mask & ~full)))
        return ddio_errf(e, DDIO_EXIT_USAGE, "shared_mask: 0x%llx must select at least one of the %u LLC ways",
                         (unsigned long long)c->shared_mask, c->llc.ways);
    if (c->mode == HIER_INCLUSIVE && c->shared_mask)
        return ddio_errf(e, DDIO_EXIT_USAGE, "shared_mask: an inclusive LLC has no Shared ways (set it to 0)");
    if (c->n_cos < 1 || c->n_cos > HIER_MAX_COS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "cat: %u classes of service is out of range [1, %d]", c->n_cos,
                         HIER_MAX_COS);
    for (uint32_t i = 0; i < c->n_cos; i++)
        if (!c->cos_mask[i] || (c->cos_mask[i] & ~full))
            return ddio_errf(e, DDIO_EXIT_USAGE, "cat: class %u mask 0x%llx must select at least one of the %u LLC ways",
                             i, (unsigned long long)c->cos_mask[i], c->llc.ways);
    for (uint32_t i = 0; i < c->cores; i++)
        if (c->core_cos[i] >= c->n_cos)
            return ddio_errf(e, DDIO_EXIT_USAGE, "cat: core %u uses class %u but only %u are defined", i,
                             c->core_cos[i], c->n_cos);
    return 0;
}

int hier_init(hier *h, const hier_config *c, ddio_err *e)
{
    memset(h, 0, sizeof *h);
    if (hier_config_validate(c, e) != 0)
        return -1;
    h->cfg = *c;
    if (cache_init(&h->llc, &c->llc, &c->llc_repl, e) != 0)
        return -1;
    h->l2 = calloc(c->cores, sizeof *h->l2);
    if (!h->l2) {
        hier_free(h);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (uint32_t i = 0; i < c->cores; i++) {
        repl_config rc = c->l2_repl;
        rc.seed += i;
        if (cache_init(&h->l2[i], &c->l2, &rc, e) != 0) {
            hier_free(h);
            return -1;
        }
    }
    uint64_t l2_lines = cache_geom_total_sets(&c->l2) * c->l2.ways * c->cores;
    if (snoop_init(&h->sf, l2_lines, e) != 0) {
        hier_free(h);
        return -1;
    }
    for (uint32_t w = 0; w < c->llc.ways; w++)
        h->way_region[w] = ((c->ddio_mask >> w) & 1) ? REG_DDIO
                           : ((c->shared_mask >> w) & 1) ? REG_SHARED : REG_L3;
    hier_set_general_only(h, 0);
    return 0;
}

/* --- fast paths ------------------------------------------------------------
 *
 * Most accesses of a forwarding run meet one of a few situations, each of
 * which the general path (access_general) executes with work that does not
 * change its outcome.  The fast paths do only the work that matters and are
 * derived here from the coherence table, never written as rules of their own:
 *
 *  - a PCIe request for a line the LLC holds in way w, when the cell of
 *    (request, column of w) keeps the line where it is (LLC_KEEP), reads no
 *    memory, and no L2 can hold the line.  Non-inclusive only, and not for
 *    the Shared ways: a line in the DDIO or L3* ways has no L2 copy (a core
 *    access moves it out of the LLC, a PCIe read of an L2 line puts the LLC
 *    copy in the Shared ways), so the cell's L2 action has nothing to act on
 *    and the snoop filter need not be asked.  The work left: the LLC
 *    replacement update, the dirty bit, the counters.  (Sanitizer builds
 *    check that the snoop filter indeed has no entry.)  A Shared-way line
 *    may have an L2 (S) copy, so those ways are fast only for cells that
 *    keep the L2 copy as it is (L2_KEEP: a PCIe read), where it does not
 *    matter whether there is one.  Cells that keep the line in place and
 *    drop the L2 copy (a PCIe write to a Shared-way line: h->drop_ways)
 *    take the same path after taking the L2 copy the snoop filter names.
 *  - a core request for a line in its own L2: an L2 hit, which Table 1 has
 *    no row for (core_l2_hit).  In E or M it touches neither the LLC nor
 *    another L2 in either mode, so the LLC lookup is skipped; in S only a
 *    write to a non-inclusive hierarchy looks it up, to drop the Shared
 *    copy it upgrades from.  The snoop filter is not asked: a line lives in
 *    one L2 at most.
 *  - a PCIe write of a line the LLC misses (pcie_wr_miss): its cells put
 *    the line in the DDIO ways and drop any L2 copy; with a known set and
 *    a lean L2, the snoop filter is asked before the LLC search (a
 *    completion line the driver read sits in its L2 in E/M, so in no LLC
 *    way) and the L2 copy is dropped in the entry.
 *  - fills and removals (fill_in / remove_in) do LRU's and BIP's policy
 *    work inline.  The out-of-line entries of the single accesses
 *    (core_entry, pcie_entry, hint_move, drop_shared_copy) are `flatten`:
 *    GCC otherwise calls the small helpers of lru_order.h, repl.h and
 *    snoop.h there (order moves, snoop filter stores) out of line.
 *  - the entry points (access_entry) do the two most frequent cases in a
 *    frame-less prologue and tail-call the rest: a core's own-L2 hit
 *    (core_l2_lean, with the L2 block layout copied into h), a PCIe request
 *    with a known set meeting a plain LLC_KEEP cell (pcie_lean); a core
 *    request that misses its L2 goes straight to the LLC move (core_miss).
 *    A core request that is not on its L2 set's two most recent ways asks
 *    the snoop filter instead of searching the L2 (core_entry): it names
 *    the way of an own-L2 line, and a move puts the entry at the slot found.
 *
 * tests/test_cache_hier.c replays random request streams through the fast
 * and the general-only hierarchy and compares every line's place and every
 * counter. */
/* LRU and BIP on the nibble order (lru_order.h): their victim choice and
 * invalidation (and LRU's fill) are a few bit operations that fill_in /
 * remove_in do inline instead of through the ops table. */
static int recency_inline(const repl_policy *p)
{
    return (p->ops == &repl_lru_ops || p->ops == &repl_bip_ops) && p->ways <= LRU_ORDER_MAX_WAYS;
}

/* core_l2_lean's L2 geometry (every L2 has the same): usable when the L2
 * maps by a mask (modulo, a power of two of sets), keeps LRU / BIP nibble
 * orders (l2_nibble) and its policy state sits in the set blocks. */
static void l2_lean_init(hier *h)
{
    const cache *l2 = &h->l2[0];
    h->l2_mask_map = l2->map.kind == MAP_MODULO && (l2->map.total_mask || l2->nsets == 1);
    h->l2_set_mask = h->l2_mask_map ? l2->map.total_mask : 0;
    h->l2_block_bytes = l2->block_bytes;
    h->l2_tag_slots = l2->tag_slots;
    h->l2_meta_off = l2->meta_off;
    h->l2_repl_off = l2->repl_off;
    h->l2_ways = l2->ways;
    h->l2_full_mask = l2->full_mask;
    h->l2_lean = h->core_fast && h->l2_nibble && h->l2_mask_map;
    for (uint32_t c = 0; c < h->cfg.cores; c++)
        h->l2_blocks[c] = h->l2[c].blocks;
    for (uint32_t c = 0; c < h->cfg.cores; c++)
        if (h->l2[c].repl->base != h->l2[c].blocks + h->l2_repl_off || h->l2[c].repl->stride != h->l2_block_bytes)
            h->l2_lean = 0;
}

static void derive_fast_paths(hier *h, int on);

/* pcie_run's way masks (from fast_ways / drop_ways), a hint's way byte
 * tested by its low 6 bits: way 63 left out, so HINT_NO_WAY (63 in those
 * bits) fails without a bound check (the tight loop needs the nibble
 * order, at most 16 ways, so no way is lost). */
static void derive_run_masks(hier *h)
{
    const uint64_t no63 = ~(1ull << 63);
    h->run_plain[0] = h->fast_ways[REQ_PCIE_RD] & ~h->drop_ways[REQ_PCIE_RD] & no63;
    h->run_plain[1] = h->fast_ways[REQ_PCIE_WR_FULL] & ~h->drop_ways[REQ_PCIE_WR_FULL] & no63;
    h->run_drop = h->drop_ways[REQ_PCIE_WR_FULL] & no63;
    h->run_plain_part = h->fast_ways[REQ_PCIE_WR_PART] & ~h->drop_ways[REQ_PCIE_WR_PART] & no63;
}

void hier_set_general_only(hier *h, int on)
{
    derive_fast_paths(h, on);
    derive_run_masks(h);
}

static void derive_fast_paths(hier *h, int on)
{
    memset(h->fast_ways, 0, sizeof h->fast_ways);
    memset(h->drop_ways, 0, sizeof h->drop_ways);
    for (uint32_t w = 0; w < h->cfg.llc.ways; w++) {
        h->fast_col[w] = coh_region_col((enum hier_region)h->way_region[w]);
        assert(h->fast_col[w] < LLC_COLS && "an LLC way's column is an LLC column");
    }
    h->core_fast = !on;
    h->llc_nibble = !on && repl_recency_nibble(h->llc.repl);
    h->l2_nibble = !on && repl_recency_nibble(h->l2[0].repl);   /* every L2 has the same policy */
    h->llc_recency = !on && recency_inline(h->llc.repl);
    h->l2_recency = !on && recency_inline(h->l2[0].repl);
    h->llc_lru_fill = h->llc_recency && h->llc.repl->ops == &repl_lru_ops;
    /* pcie_lean: LRU / BIP order words at a fixed offset of each set block. */
    h->llc_repl_off = h->llc.repl_off;
    h->llc_lean = h->llc_nibble && h->llc.repl->base == h->llc.blocks + h->llc.repl_off &&
                  h->llc.repl->stride == h->llc.block_bytes;
    h->l2_lru_fill = h->l2_recency && h->l2[0].repl->ops == &repl_lru_ops;
    h->rd_miss_fast = 0;
    memset(h->wr_miss_fast, 0, sizeof h->wr_miss_fast);
    h->core_move_ways = 0;
    l2_lean_init(h);
    /* core_move_lean: LLC removal (LRU / BIP) and L2 fill (LRU) from the layouts in h. */
    h->move_lean = h->llc_lean && h->llc_recency && h->l2_lean && h->l2_lru_fill;
    if (on || h->cfg.mode != HIER_NONINCLUSIVE)
        return;   /* inclusive: any LLC line may have an L2 copy */
    const coh_cell *rd_em = coh_lookup(h->cfg.mode, REQ_PCIE_RD, COL_L2_EM);
    const coh_cell *rd_s = coh_lookup(h->cfg.mode, REQ_PCIE_RD, COL_L2_S);
    const coh_cell *rd_mem = coh_lookup(h->cfg.mode, REQ_PCIE_RD, COL_MEM);
    h->rd_miss_fast = rd_em->defined && rd_em->llc == LLC_TO_SHARED && rd_em->l2 == L2_TO_S && rd_s->defined &&
                      rd_s->llc == LLC_KEEP && rd_s->l2 == L2_KEEP && rd_mem->defined && rd_mem->llc == LLC_KEEP &&
                      rd_mem->l2 == L2_KEEP;
    h->rd_mem_read[COL_L2_EM] = rd_em->mem_read;
    h->rd_mem_read[COL_L2_S] = rd_s->mem_read;
    h->rd_mem_read[COL_MEM] = rd_mem->mem_read;
    /* A PCIe write the LLC misses: every such cell allocates the line in the
     * DDIO ways (M: the request writes) and drops any L2 copy; only in
     * memory there is none to act on. */
    h->wr_miss_mask = h->cfg.ddio_mask;
    for (int q = REQ_PCIE_WR_FULL; q <= REQ_PCIE_WR_PART; q++) {
        const coh_cell *em = coh_lookup(h->cfg.mode, (enum coh_req)q, COL_L2_EM);
        const coh_cell *s = coh_lookup(h->cfg.mode, (enum coh_req)q, COL_L2_S);
        const coh_cell *mem = coh_lookup(h->cfg.mode, (enum coh_req)q, COL_MEM);
        h->wr_miss_fast[q] = em->defined && em->llc == LLC_TO_DDIO && em->l2 == L2_DROP && s->defined &&
                             s->llc == LLC_TO_DDIO && s->l2 == L2_DROP && mem->defined && mem->llc == LLC_TO_DDIO &&
                             (mem->l2 == L2_KEEP || mem->l2 == L2_DROP);
        h->wr_mem_read[q][COL_L2_EM] = em->mem_read;
        h->wr_mem_read[q][COL_L2_S] = s->mem_read;
        h->wr_mem_read[q][COL_MEM] = mem->mem_read;
    }
    for (uint32_t w = 0; w < h->cfg.llc.ways; w++) {
        const coh_cell *rd = coh_lookup(h->cfg.mode, REQ_CORE_RD, (enum coh_col)h->fast_col[w]);
        const coh_cell *wr = coh_lookup(h->cfg.mode, REQ_CORE_WR, (enum coh_col)h->fast_col[w]);
        if (rd->defined && wr->defined && rd->llc == LLC_DROP && wr->llc == LLC_DROP && rd->l2 == L2_TO_EM &&
            wr->l2 == L2_TO_EM && !rd->mem_read && !wr->mem_read)
            h->core_move_ways |= 1ull << w;
    }
    for (int q = 0; q < REQ_EVICT; q++) {
        if (q == REQ_CORE_RD || q == REQ_CORE_WR)
            continue;   /* a core request always leaves an L2 copy */
        for (uint32_t w = 0; w < h->cfg.llc.ways; w++) {
            const coh_cell *cell = coh_lookup(h->cfg.mode, (enum coh_req)q, (enum coh_col)h->fast_col[w]);
            /* A Shared-way line may have an L2 (S) copy: fast only when
             * the cell leaves it alone (a PCIe read). */
            if (!cell->defined || cell->llc != LLC_KEEP || cell->mem_read)
                continue;
            if (((h->cfg.shared_mask >> w) & 1) && cell->l2 == L2_DROP)
                h->drop_ways[q] |= 1ull << w;   /* a PCIe write: first drop the L2 (S) copy, if any */
            else if (!((h->cfg.shared_mask >> w) & 1) || cell->l2 == L2_KEEP)
                h->fast_ways[q] |= 1ull << w;
        }
    }
}

void hier_free(hier *h)
{
    if (h->l2)
        for (uint32_t i = 0; i < h->cfg.cores; i++)
            cache_free(&h->l2[i]);
    free(h->l2);
    cache_free(&h->llc);
    snoop_free(&h->sf);
    memset(h, 0, sizeof *h);
}

void hier_reset_stats(hier *h)
{
    memset(&h->stats, 0, sizeof h->stats);
}

static uint64_t core_mask(const hier *h, uint32_t core)
{
    return h->cfg.cos_mask[h->cfg.core_cos[core]];
}

/* The set of `line` in every L2 (they share one geometry): a mask when
 * they map by one (l2_lean_init), the same value as cache_set. */
static inline uint32_t l2_set_of(const hier *h, uint64_t line)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(!h->l2_mask_map || (uint32_t)(line & h->l2_set_mask) == cache_set(&h->l2[0], line));
#endif
    return h->l2_mask_map ? (uint32_t)(line & h->l2_set_mask) : cache_set(&h->l2[0], line);
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

/* way_of_tags for a set block whose nibble order word sits at `repl_off`
 * (l2_lean / llc_lean): the most recent way's tag first, which is the line
 * for most hits of a forwarding run (a line used again before its set saw
 * another access, repl_order_hit), else the search.  A line is in one way
 * at most, so a tag equal to it is its way. */
static inline __attribute__((always_inline)) int way_mru_first(const uint8_t *b, uint32_t repl_off, uint32_t slots,
                                                               uint64_t line)
{
    const uint32_t w0 = (uint32_t)*(const uint64_t *)(const void *)(b + repl_off) & 0xF;
    if (((const uint64_t *)(const void *)b)[w0] == line) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(way_of_tags((const uint64_t *)(const void *)b, slots, line) == (int)w0);
#endif
        return (int)w0;
    }
    return way_of_tags((const uint64_t *)(const void *)b, slots, line);
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

/* Replacement update of a hit, inline for LRU / BIP. */
static inline void llc_touch(hier *h, uint32_t set, uint32_t way)
{
    if (h->llc_nibble)
        repl_recency_hit(h->llc.repl, set, way);
    else
        cache_hit(&h->llc, set, way);
}

static inline void l2_touch(hier *h, cache *l2, uint32_t set, uint32_t way)
{
    if (h->l2_nibble)
        repl_recency_hit(l2->repl, set, way);
    else
        cache_hit(l2, set, way);
}

/* cache_fill / cache_remove with the policy work inline when `recency`
 * (LRU / BIP on the nibble order, recency_inline) and, for the fill's MRU
 * insertion, `lru_fill` (LRU); the same effect on the set block, which
 * tests/test_cache_hier.c checks against a general-only hierarchy (it uses
 * cache.c's). */
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

/* --- evictions ----------------------------------------------------------- */

/* Remove `line`, found in (set, way) of `core`'s L2; returns its state. */
static uint8_t l2_take_at(hier *h, uint32_t core, uint64_t line, uint32_t set, uint32_t way)
{
    cache *l2 = &h->l2[core];
    uint8_t st = META_STATE(*cache_meta(l2, set, way));
    remove_in(l2, h->l2_recency, set, way);
    snoop_erase(&h->sf, line);
    return st;
}

/* l2_take_at with the line's snoop filter slot known (snoop_get_slot). */
static uint8_t l2_take_at_slot(hier *h, uint32_t core, uint32_t set, uint32_t way, uint64_t slot)
{
    cache *l2 = &h->l2[core];
    uint8_t st = META_STATE(*cache_meta(l2, set, way));
    remove_in(l2, h->l2_recency, set, way);
    snoop_erase_slot(&h->sf, slot);
    return st;
}

_Static_assert(HIER_MAX_CORES <= SNOOP_MAX_CORES && CACHE_MAX_WAYS <= SNOOP_MAX_WAYS,
               "the snoop filter stores a core and an L2 way");

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

/* Remove `line` from `core`'s L2 (`way`, `slot`: the snoop filter's way and
 * slot, snoop_get_slot); returns its state. */
static uint8_t l2_take(hier *h, uint32_t core, uint64_t line, uint32_t way, uint64_t slot)
{
    uint32_t set = l2_set_of(h, line);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(h->sf.keys[slot] == line && "a snoop filter slot that is not the line's");
#endif
    return l2_take_at_slot(h, core, set, l2_way_of(h, core, set, line, way), slot);
}


/* l2_take for a hierarchy with h->l2_lean (the L2 block layout in h) and
 * h->l2_recency (LRU / BIP removal on the nibble order), inline: the same stores as l2_take_at_slot's
 * remove_in and snoop_erase_slot, without the cache struct. */
/* The set block of `line` in `core`'s L2 (h->l2_lean) ... */
static inline __attribute__((always_inline)) uint8_t *l2_block_lean(const hier *h, uint32_t core, uint64_t line)
{
    uint8_t *b = h->l2_blocks[core] + (line & h->l2_set_mask) * h->l2_block_bytes;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(h->l2_lean && b == (uint8_t *)cache_tags(&h->l2[core], cache_set(&h->l2[core], line)));
#endif
    return b;
}

/* ... and the way of `line`, which it holds: the snoop filter's way `sway`
 * (below tag_slots: a way of this L2) if its tag is the line, else a search. */
static inline __attribute__((always_inline)) uint32_t l2_way_lean(const hier *h, const uint8_t *b, uint64_t line,
                                                                  uint32_t sway)
{
    const uint64_t *t = (const uint64_t *)(const void *)b;
    const uint32_t way = t[sway] == line ? sway : (uint32_t)way_of_tags(t, h->l2_tag_slots, line);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(sway < h->l2_ways && way < h->l2_ways && t[way] == line);
#endif
    return way;
}

/* Remove the line in `way` of the L2 set block `b` (l2_block_lean), whose
 * snoop filter entry is at `slot`: the stores of l2_take_at_slot's
 * remove_in (LRU / BIP, h->l2_recency) and snoop_erase_slot. */
static inline __attribute__((always_inline)) void l2_remove_lean(hier *h, uint8_t *b, uint32_t way, uint64_t slot)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(h->l2_lean && h->l2_recency && way < h->l2_ways);
#endif
    ((uint64_t *)(void *)b)[way] = CACHE_INVALID;
    *(uint64_t *)(void *)(b + 8u * h->l2_tag_slots) &= ~(1ull << way);   /* cache_valid */
    b[h->l2_meta_off + way] = 0;
    repl_order_remove((uint64_t *)(void *)(b + h->l2_repl_off), way, h->l2_ways);
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

static __attribute__((noinline)) void on_llc_victim(hier *h, uint32_t way, uint64_t line, uint8_t meta,
                                                   hier_result *res)
{
    h->stats.llc_evictions++;
    int wb = META_STATE(meta) == ST_M;
    const coh_cell *cell = coh_lookup(h->cfg.mode, REQ_EVICT, coh_region_col((enum hier_region)h->way_region[way]));
    assert(cell->llc == LLC_TO_MEM);
    if (cell->l2 == L2_DROP) {
        /* Inclusive: back-invalidate the L2 copy; its dirt goes to memory too. */
        uint32_t sway;
        uint64_t sslot = 0;
        int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
        if (owner >= 0)
            wb |= l2_take(h, (uint32_t)owner, line, sway, sslot) == ST_M;
    }
    if (wb)
        res->mem_writebacks++;
}

/* The absent `line` into LLC set `set` (any policy). */
static inline __attribute__((always_inline)) uint32_t llc_insert_generic(hier *h, uint64_t line, uint32_t set,
                                                                         uint64_t mask, uint8_t state,
                                                                         hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set == cache_set(&h->llc, line));
    assert(find_in(&h->llc, set, line) < 0);
#endif
    cache_evicted ev;
    uint32_t way = fill_in(&h->llc, h->llc_recency, h->llc_lru_fill, set, mask, line, state, &ev);
    if (__builtin_expect(ev.line != CACHE_INVALID, 0))
        on_llc_victim(h, way, ev.line, ev.meta, res);
    return way;
}

/* llc_insert_inline's out-of-line fill (any policy, and an LLC set with no
 * empty way in `mask`: a victim). */
static __attribute__((noinline)) uint32_t llc_insert_fill(hier *h, uint64_t line, uint32_t set, uint64_t mask,
                                                          uint8_t state, hier_result *res)
{
    return llc_insert_generic(h, line, set, mask, state, res);
}

/* Allocate the absent `line` in its LLC set `set` (inline: a PCIe read's
 * Shared-way copy, a PCIe write's DDIO copy, about once per packet each).
 * With LRU on the set blocks' order words (llc_lean, llc_lru_fill), a set
 * with an empty way in `mask` (the usual case: the Shared and DDIO ways'
 * lines move on to the L2s) is filled here with fill_in's stores; the
 * rest goes through llc_insert_fill. */
static inline __attribute__((always_inline)) uint32_t llc_insert_inline(hier *h, uint64_t line, uint32_t set,
                                                                        uint64_t mask, uint8_t state,
                                                                        hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set == cache_set(&h->llc, line));
    assert(find_in(&h->llc, set, line) < 0);
#endif
    if (h->llc_lean && h->llc_lru_fill) {
        uint8_t *b = h->llc.blocks + (uint64_t)set * h->llc.block_bytes;
        uint64_t *valid = (uint64_t *)(void *)(b + 8u * h->llc.tag_slots);
        const uint64_t empty = ~*valid & mask & h->llc.full_mask;
        if (__builtin_expect(empty != 0, 1)) {
            const uint32_t way = (uint32_t)__builtin_ctzll(empty);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
            assert(b == (uint8_t *)cache_tags(&h->llc, set) && valid == cache_valid(&h->llc, set));
            assert(b + h->llc_repl_off == (uint8_t *)repl_line_state(h->llc.repl, set));
#endif
            ((uint64_t *)(void *)b)[way] = line;
            *valid |= 1ull << way;
            b[h->llc.meta_off + way] = state;
            uint64_t *o = (uint64_t *)(void *)(b + h->llc_repl_off);
            *o = lru_order_to_mru(*o, way);
            return way;
        }
    }
    return llc_insert_fill(h, line, set, mask, state, res);
}


/* Allocate the absent `line` in its LLC set `set`. */
static void llc_insert_at(hier *h, uint64_t line, uint32_t set, uint64_t mask, uint8_t state, hier_result *res)
{
    llc_insert_generic(h, line, set, mask, state, res);
}

static void llc_insert(hier *h, uint64_t line, uint64_t mask, uint8_t state, hier_result *res)
{
    llc_insert_at(h, line, cache_set(&h->llc, line), mask, state, res);
}

static void on_l2_victim(hier *h, uint32_t core, uint64_t line, uint8_t meta, hier_result *res)
{
    h->stats.l2_evictions++;
    snoop_erase(&h->sf, line);
    uint8_t st = META_STATE(meta);
    const coh_cell *cell = coh_lookup(h->cfg.mode, REQ_EVICT, coh_l2_col((enum coh_state)st));
    assert(cell->defined);
    if (cell->llc == LLC_TO_CORE) {
        /* Non-inclusive: an E/M line leaves L2 for the core's L3* ways. */
        h->stats.l2_to_llc++;
        llc_insert(h, line, core_mask(h, core), st == ST_M ? ST_M : ST_E, res);
    } else if (cell->llc == LLC_KEEP && cell->llc_state == ST_M && st == ST_M) {
        /* Inclusive: a dirty L2 victim is written into its LLC copy. */
        uint32_t set = cache_set(&h->llc, line);
        int way = find_in(&h->llc, set, line);
        assert(way >= 0 && "inclusive LLC lost an L2 line");
        *cache_meta(&h->llc, set, (uint32_t)way) = ST_M;
    }
}

/* l2_insert of a line no L2 holds, whose snoop filter slot (snoop_find:
 * the empty slot its entry goes to) the caller found: without an L2 victim
 * the filter is unchanged until the put, so the entry goes there; with one
 * the victim's erasure may move entries, and the put probes again. */
static inline __attribute__((always_inline)) void l2_insert_at_slot(hier *h, uint32_t core, uint64_t line,
                                                                    uint8_t state, uint64_t slot, hier_result *res)
{
    cache *l2 = &h->l2[core];
    uint32_t set = l2_set_of(h, line);
    cache_evicted ev;
    uint32_t way = fill_in(l2, h->l2_recency, h->l2_lru_fill, set, l2->full_mask, line, state, &ev);
    if (ev.line != CACHE_INVALID) {
        on_l2_victim(h, core, ev.line, ev.meta, res);
        snoop_put_way(&h->sf, line, (int)core, way);
    } else {
        snoop_put_way_at(&h->sf, slot, line, (int)core, way);
    }
}

static void l2_insert(hier *h, uint32_t core, uint64_t line, uint8_t state, hier_result *res)
{
    cache *l2 = &h->l2[core];
    uint32_t set = l2_set_of(h, line);
    cache_evicted ev;
    uint32_t way = fill_in(l2, h->l2_recency, h->l2_lru_fill, set, l2->full_mask, line, state, &ev);
    /* The victim's snoop entry goes first: with every L2 full the filter
     * (sized for all L2 lines) has no room for one more. */
    if (ev.line != CACHE_INVALID)
        on_l2_victim(h, core, ev.line, ev.meta, res);
    snoop_put_way(&h->sf, line, (int)core, way);
}

/* --- one access ---------------------------------------------------------- */

static inline __attribute__((always_inline)) void account(hier *h, enum coh_req req, hier_result *res)
{
    hier_req_stats *rs = &h->stats.req[req];
    rs->accesses++;
    if (res->hit) {
        rs->hits++;
        rs->hit_col[res->col]++;
        if (res->region == REG_L2 && (req == REQ_CORE_RD || req == REQ_CORE_WR))
            rs->l2_hits++;
    } else {
        rs->misses++;
    }
    rs->mem_reads += res->mem_reads;
    rs->mem_writebacks += res->mem_writebacks;
}

/* A hit that leaves the line where it is and reads or writes no memory
 * (the fast paths' LLC_KEEP cells, own-L2 hits): its counters, which
 * account() would add for it ... */
static inline __attribute__((always_inline)) void count_keep_hit(hier *h, enum coh_req req, uint32_t col)
{
    hier_req_stats *rs = &h->stats.req[req];
    rs->accesses++;
    rs->hits++;
    rs->hit_col[col]++;
}

/* ... and its result. */
static inline __attribute__((always_inline)) void keep_hit_result(hier_result *res, uint32_t col, uint8_t region)
{
    res->hit = 1;
    res->col = (uint8_t)col;
    res->region = region;
    res->mem_reads = 0;
    res->mem_writebacks = 0;
}

/* A core request for a line some L2 holds: served by L2 (Table 1 has no
 * row for it).  A line in another core's L2 migrates to the requester. */
static void core_l2_hit(hier *h, enum coh_req req, uint32_t core, int owner, uint64_t line, uint32_t set,
                        int way, int llc_way, uint32_t llc_set, hier_result *res)
{
    cache *l2 = &h->l2[owner];
    uint8_t st = META_STATE(*cache_meta(l2, set, (uint32_t)way));
    res->hit = 1;
    res->col = coh_l2_col((enum coh_state)st);
    res->region = REG_L2;
    if ((uint32_t)owner != core) {
        l2_take_at(h, (uint32_t)owner, line, set, (uint32_t)way);
        l2_insert(h, core, line, st, res);
        l2 = &h->l2[core];
        set = l2_set_of(h, line);
        way = find_in(l2, set, line);
        assert(way >= 0);
    } else {
        l2_touch(h, l2, set, (uint32_t)way);
    }
    if (coh_l2_hit_state(req, (enum coh_state)st) != st) {
        /* Upgrade: a non-inclusive LLC gives up its (Shared) copy, and its
         * dirt, to the writer; an inclusive one keeps a stale copy. */
        if (coh_l2_hit_takes_llc(h->cfg.mode, req, (enum coh_state)st) && llc_way >= 0)
            remove_in(&h->llc, h->llc_recency, llc_set, (uint32_t)llc_way);
        *cache_meta(l2, set, (uint32_t)way) = (uint8_t)coh_l2_hit_state(req, (enum coh_state)st);
    }
}

/* Every request, cell by cell; `llc_match` is cache_match(llc, llc_set, line). */
static __attribute__((noinline)) void access_general(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                     uint32_t llc_set, uint64_t llc_match, hier_result *res)
{
    assert(req < REQ_EVICT);
    memset(res, 0, sizeof *res);
    const int is_core = req == REQ_CORE_RD || req == REQ_CORE_WR;
    const int is_pcie_write = req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART;
    assert(!is_core || core < h->cfg.cores);

    int llc_way = llc_match ? __builtin_ctzll(llc_match) : -1;
    uint8_t llc_st = llc_way >= 0 ? META_STATE(*cache_meta(&h->llc, llc_set, (uint32_t)llc_way)) : ST_I;
    /* Non-inclusive, only a line the Shared ways hold can also have an L2
     * copy (the S copy a PCIe read leaves); skip the snoop filter otherwise. */
    int owner = -1;
    uint32_t sway = 0;
    if (h->cfg.mode == HIER_INCLUSIVE || llc_way < 0 || ((h->cfg.shared_mask >> llc_way) & 1))
        owner = snoop_get_way(&h->sf, line, &sway);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    else
        assert(snoop_get(&h->sf, line) < 0 && "a DDIO/L3* line with an L2 copy");
#endif
    uint8_t l2_st = ST_I;
    uint32_t l2_set = 0;
    int l2_way = -1;
    if (owner >= 0) {
        cache *l2 = &h->l2[owner];
        l2_set = l2_set_of(h, line);
        l2_way = (int)l2_way_of(h, (uint32_t)owner, l2_set, line, sway);
        l2_st = META_STATE(*cache_meta(l2, l2_set, (uint32_t)l2_way));
    }
    /* Hierarchy invariants. */
    assert(h->cfg.mode != HIER_NONINCLUSIVE || !(llc_way >= 0 && (l2_st == ST_E || l2_st == ST_M)));
    assert(h->cfg.mode != HIER_INCLUSIVE || owner < 0 || llc_way >= 0);

    if (is_core && owner >= 0) {
        core_l2_hit(h, req, core, owner, line, l2_set, l2_way, llc_way, llc_set, res);
        account(h, req, res);
        return;
    }

    /* Which Table 1 column the line is in. */
    enum coh_col col = coh_col_of(h->cfg.mode, llc_way >= 0 ? (enum hier_region)h->way_region[llc_way] : REG_MEM,
                                  (enum coh_state)l2_st);
    const coh_cell *cell = coh_lookup(h->cfg.mode, req, col);
    assert(cell && cell->defined && "request met a state Table 1 does not cover");

    res->col = (uint8_t)col;
    res->region = col_region[col];
    res->hit = col != COL_MEM;
    res->mem_reads = cell->mem_read;
    int dirty = l2_st == ST_M || llc_st == ST_M || is_pcie_write;

    /* L2 copy first: a dropped copy hands its dirt to `dirty`. */
    if (cell->l2 == L2_DROP && owner >= 0)
        l2_take_at(h, (uint32_t)owner, line, l2_set, (uint32_t)l2_way);
    else if (cell->l2 == L2_TO_S && owner >= 0)
        *cache_meta(&h->l2[owner], l2_set, (uint32_t)l2_way) = ST_S;

    switch ((enum coh_llc)cell->llc) {
    case LLC_KEEP:
        if (llc_way >= 0) {
            llc_touch(h, llc_set, (uint32_t)llc_way);
            if (dirty)
                *cache_meta(&h->llc, llc_set, (uint32_t)llc_way) = ST_M;
        }
        break;
    case LLC_DROP:
        assert(llc_way >= 0);
        remove_in(&h->llc, h->llc_recency, llc_set, (uint32_t)llc_way);
        break;
    case LLC_TO_DDIO:
        assert(llc_way < 0);
        llc_insert_at(h, line, llc_set, h->cfg.ddio_mask, dirty ? ST_M : ST_E, res);
        break;
    case LLC_TO_SHARED:
        assert(llc_way < 0);
        llc_insert_at(h, line, llc_set, h->cfg.shared_mask, dirty ? ST_M : ST_E, res);
        break;
    case LLC_TO_CORE:
        /* Inclusive miss: L3(E) + an L2 copy that carries any later write. */
        assert(llc_way < 0);
        llc_insert_at(h, line, llc_set, core_mask(h, core), ST_E, res);
        dirty = 0;
        break;
    case LLC_TO_MEM:
        assert(0 && "eviction row used for an access");
        break;
    }

    /* New L2 copy for core requests. */
    if (is_core) {
        uint8_t st = (uint8_t)coh_core_fill_state(h->cfg.mode, req, (enum coh_l2)cell->l2, dirty);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(st != ST_I && "core request without an L2 destination");
#endif
        l2_insert(h, core, line, st, res);
    }
    account(h, req, res);
}

/* Fast path 1: a PCIe request meeting an LLC_KEEP cell in a way with no L2
 * copy (h->fast_ways).  Returns the hit (always 1). */
static inline int access_llc_fast(hier *h, enum coh_req req, uint64_t line, uint32_t set, uint64_t match,
                                  hier_result *res)
{
    uint32_t way = (uint32_t)__builtin_ctzll(match);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((((h->cfg.shared_mask >> way) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
    assert(match == (match & -match));
#endif
    uint8_t *meta = cache_meta(&h->llc, set, way);
    llc_touch(h, set, way);
    if (req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART || META_STATE(*meta) == ST_M)
        *meta = ST_M;   /* LLC_KEEP: a dirty line (or one the request writes) stays M */
    uint32_t col = h->fast_col[way];
    count_keep_hit(h, req, col);
    if (res)
        keep_hit_result(res, col, col_region[col]);
    return 1;
}

/* The counters and result of an L2 hit (the line stays where it is). */
static inline __attribute__((always_inline)) void count_l2_hit(hier *h, enum coh_req req, uint32_t col,
                                                               hier_result *res)
{
    count_keep_hit(h, req, col);
    h->stats.req[req].l2_hits++;
    keep_hit_result(res, col, REG_L2);
}

/* Fast path 2: a core request for a line in its own L2: an L2 hit, which
 * touches neither the LLC nor another L2 in E or M, and in S (core_l2_hit)
 * only drops a non-inclusive LLC's Shared copy when it writes.  Returns 1
 * when it applied. */
static inline __attribute__((always_inline)) int access_core_fast(hier *h, enum coh_req req, uint32_t core,
                                                                 uint64_t line, int set_known, uint32_t llc_set,
                                                                 hier_result *res)
{
    cache *l2 = &h->l2[core];
    uint32_t set = l2_set_of(h, line);
    uint64_t m = match_in(l2, set, line);
    if (!m)
        return 0;
    uint32_t way = (uint32_t)__builtin_ctzll(m);
    uint8_t *meta = cache_meta(l2, set, way);
    uint8_t st = META_STATE(*meta);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(snoop_get(&h->sf, line) == (int)core && "snoop filter and L2 disagree");
    assert(h->cfg.mode != HIER_NONINCLUSIVE || st == ST_S || find_in(&h->llc, cache_set(&h->llc, line), line) < 0);
#endif
    l2_touch(h, l2, set, way);
    uint32_t col = coh_l2_col((enum coh_state)st);
    if (coh_l2_hit_takes_llc(h->cfg.mode, req, (enum coh_state)st)) {
        /* The upgrade takes the Shared copy and its dirt (core_l2_hit). */
        uint32_t lset = set_known ? llc_set : cache_set(&h->llc, line);
        uint64_t lm = match_in(&h->llc, lset, line);
        if (lm)
            remove_in(&h->llc, h->llc_recency, lset, (uint32_t)__builtin_ctzll(lm));
    }
    if (req == REQ_CORE_WR)
        *meta = (uint8_t)coh_l2_hit_state(req, (enum coh_state)st);
    count_l2_hit(h, req, col, res);
    return 1;
}

/* Fast path 3 (h->rd_miss_fast): a PCIe read of a line a non-inclusive LLC
 * does not hold.  Its cells, checked at init: in an L2 in E/M the line
 * leaves an S copy there and its data (dirty or not) goes to the Shared
 * ways (LLC_TO_SHARED, L2_TO_S); in an L2 in S or only in memory nothing
 * moves (LLC_KEEP, L2_KEEP).  access_general's work for these cells without
 * the table walk; `llc_set` is the line's LLC set. */
/* access_pcie_rd_miss's cells once the L2 copy is known: `meta`, the
 * owner's metadata byte of the line, or NULL when no L2 holds it.  Returns
 * the Shared way a copy went to, or UINT32_MAX. */
static inline __attribute__((always_inline)) uint32_t pcie_rd_miss_at(hier *h, uint64_t line, uint32_t llc_set,
                                                                      uint8_t *meta, hier_result *res)
{
    uint32_t way = UINT32_MAX;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set == cache_set(&h->llc, line) && find_in(&h->llc, llc_set, line) < 0);
#endif
    res->mem_writebacks = 0;
    uint32_t col = COL_MEM;
    if (meta) {
        uint8_t st = META_STATE(*meta);
        col = COL_L2_S;
        if (st != ST_S) {
            col = COL_L2_EM;
            *meta = ST_S;
            way = llc_insert_inline(h, line, llc_set, h->cfg.shared_mask, st == ST_M ? ST_M : ST_E, res);
        }
    }
    res->hit = col != COL_MEM;
    res->col = (uint8_t)col;
    res->region = col_region[col];
    res->mem_reads = h->rd_mem_read[col];
    hier_req_stats *rs = &h->stats.req[REQ_PCIE_RD];
    rs->accesses++;
    if (res->hit) {
        rs->hits++;
        rs->hit_col[col]++;
    } else {
        rs->misses++;
    }
    rs->mem_reads += res->mem_reads;
    rs->mem_writebacks += res->mem_writebacks;
    return way;
}

/* The metadata byte of `line` in the L2 that holds it (the snoop filter's
 * answer), or NULL. */
static inline __attribute__((always_inline)) uint8_t *l2_meta_of(hier *h, uint64_t line)
{
    uint32_t sway;
    int owner = snoop_get_way(&h->sf, line, &sway);
    if (owner < 0)
        return NULL;
    if (h->l2_lean) {   /* the L2 layout in h */
        uint8_t *b = l2_block_lean(h, (uint32_t)owner, line);
        return b + h->l2_meta_off + l2_way_lean(h, b, line, sway);
    }
    uint32_t set = l2_set_of(h, line);
    return cache_meta(&h->l2[owner], set, l2_way_of(h, (uint32_t)owner, set, line, sway));
}

static inline __attribute__((always_inline)) uint32_t access_pcie_rd_miss(hier *h, uint64_t line, uint32_t llc_set,
                                                                          hier_result *res)
{
    return pcie_rd_miss_at(h, line, llc_set, l2_meta_of(h, line), res);
}

/* Fast path 5 (h->wr_miss_fast[req], non-inclusive): a PCIe write of a
 * line no LLC way holds.  Its cells, checked at init: the line goes to the
 * DDIO ways (LLC_TO_DDIO), modified (the request writes: access_general's
 * `dirty`), and an L2 copy, in E/M or S, is dropped (L2_DROP); a line only
 * in memory has none.  access_general's work for these cells without the
 * table walk, once the caller dropped the L2 copy: `col` is the column
 * the line was in (COL_L2_EM, COL_L2_S or COL_MEM). */
static inline __attribute__((always_inline)) void pcie_wr_miss_at(hier *h, enum coh_req req, uint64_t line,
                                                                  uint32_t llc_set, uint32_t col, hier_result *res)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(llc_set == cache_set(&h->llc, line) && find_in(&h->llc, llc_set, line) < 0);
    assert(snoop_get(&h->sf, line) < 0 && "the caller drops the L2 copy");
#endif
    const uint8_t mem_reads = h->wr_mem_read[req][col];
    res->hit = col != COL_MEM;
    res->col = (uint8_t)col;
    res->region = col_region[col];
    res->mem_reads = mem_reads;
    res->mem_writebacks = 0;
    llc_insert_inline(h, line, llc_set, h->wr_miss_mask, ST_M, res);
    hier_req_stats *rs = &h->stats.req[req];
    rs->accesses++;
    if (col != COL_MEM) {
        rs->hits++;
        rs->hit_col[col]++;
    } else {
        rs->misses++;
    }
    rs->mem_reads += mem_reads;
    rs->mem_writebacks += res->mem_writebacks;
}

/* pcie_wr_miss_at after asking the snoop filter for an L2 copy (and
 * dropping it); `llc_set` is the line's LLC set, which misses. */
static __attribute__((noinline)) void pcie_wr_miss(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set,
                                                   hier_result *res)
{
    uint32_t sway, col = COL_MEM;
    uint64_t sslot = 0;
    int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
    if (owner >= 0 && h->l2_lean && h->l2_recency) {
        uint8_t *b = l2_block_lean(h, (uint32_t)owner, line);
        const uint32_t way = l2_way_lean(h, b, line, sway);
        col = coh_l2_col((enum coh_state)META_STATE(b[h->l2_meta_off + way]));
        l2_remove_lean(h, b, way, sslot);
    } else if (owner >= 0) {
        col = coh_l2_col((enum coh_state)l2_take(h, (uint32_t)owner, line, sway, sslot));
    }
    pcie_wr_miss_at(h, req, line, llc_set, col, res);
}

/* remove_in's stores (LRU / BIP: h->llc_lean, h->llc_recency) for way
 * `way` of the LLC set block `b`, from h->llc's layout. */
static inline __attribute__((always_inline)) void llc_remove_lean(hier *h, uint8_t *b, uint32_t way)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(h->llc_lean && h->llc_recency && way < h->llc.ways);
    assert((uint64_t)(b - h->llc.blocks) % h->llc.block_bytes == 0);
#endif
    ((uint64_t *)(void *)b)[way] = CACHE_INVALID;
    *(uint64_t *)(void *)(b + 8u * h->llc.tag_slots) &= ~(1ull << way);   /* cache_valid */
    b[h->llc.meta_off + way] = 0;
    repl_order_remove((uint64_t *)(void *)(b + h->llc_repl_off), way, h->llc.ways);
}

/* l2_insert_at_slot out of line: core_move_lean's fill into a full L2 set
 * (a victim to evict). */
static __attribute__((noinline)) void l2_insert_victim(hier *h, uint32_t core, uint64_t line, uint8_t state,
                                                       uint64_t slot, hier_result *res)
{
    l2_insert_at_slot(h, core, line, state, slot, res);
}

/* access_core_move's work (h->move_lean) from the layouts in h: the line
 * leaves way `way` of LLC set `set` (remove_in's stores, LRU / BIP) and
 * goes to `core`'s L2, into the first empty way (fill_in's choice, with
 * LRU's MRU insertion) and the snoop filter at `slot` (snoop_find's, no
 * entry for the line); a full L2 set goes through l2_insert_victim.  The
 * LLC removal comes first, as there: an L2 victim may go to the L3* ways. */
static inline __attribute__((always_inline)) void core_move_lean(hier *h, enum coh_req req, uint32_t core,
                                                                 uint64_t line, uint32_t set, uint32_t way,
                                                                 uint64_t slot, hier_result *res)
{
    uint8_t *b = h->llc.blocks + (uint64_t)set * h->llc.block_bytes;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(h->move_lean && b == (uint8_t *)cache_tags(&h->llc, set) && cache_tags(&h->llc, set)[way] == line);
    assert(b + h->llc_repl_off == (uint8_t *)repl_line_state(h->llc.repl, set));
#endif
    const uint32_t col = h->fast_col[way];
    const uint8_t st =
        (uint8_t)coh_core_fill_state(HIER_NONINCLUSIVE, req, L2_TO_EM, META_STATE(b[h->llc.meta_off + way]) == ST_M);
    llc_remove_lean(h, b, way);
    keep_hit_result(res, col, col_region[col]);
    uint8_t *b2 = l2_block_lean(h, core, line);
    uint64_t *valid = (uint64_t *)(void *)(b2 + 8u * h->l2_tag_slots);
    const uint64_t empty = ~*valid & h->l2_full_mask;
    if (__builtin_expect(empty != 0, 1)) {
        const uint32_t w2 = (uint32_t)__builtin_ctzll(empty);
        ((uint64_t *)(void *)b2)[w2] = line;
        *valid |= 1ull << w2;
        b2[h->l2_meta_off + w2] = st;
        uint64_t *o = (uint64_t *)(void *)(b2 + h->l2_repl_off);
        *o = lru_order_to_mru(*o, w2);
        snoop_put_way_at(&h->sf, slot, line, (int)core, w2);
    } else {
        l2_insert_victim(h, core, line, st, slot, res);
    }
    hier_req_stats *rs = &h->stats.req[req];
    rs->accesses++;
    rs->hits++;
    rs->hit_col[col]++;
    rs->mem_writebacks += res->mem_writebacks;
}

/* Fast path 4 (h->core_move_ways, non-inclusive): a core request for a
 * line the LLC holds in a way whose cells move it to the requester's L2
 * (LLC_DROP, L2_TO_EM: E, or M if it was dirty or is written) when no L2
 * has a copy; a Shared-way line may have one (another core's: the own L2
 * was searched first), then access_general migrates it.  Returns 1 when it
 * applied. */
static inline __attribute__((always_inline)) int access_core_move(hier *h, enum coh_req req, uint32_t core,
                                                                  uint64_t line, uint32_t set, uint64_t match,
                                                                  hier_result *res)
{
    uint32_t way = (uint32_t)__builtin_ctzll(match);
    /* Probed for every way: the L2 fill puts the entry at the slot found. */
    uint64_t slot = snoop_find(&h->sf, line);
    if (h->sf.keys[slot] == line) {
        assert(((h->cfg.shared_mask >> way) & 1) && "a DDIO/L3* line with an L2 copy");
        return 0;
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(snoop_get(&h->sf, line) < 0 && "a DDIO/L3* line with an L2 copy");
    assert(core < h->cfg.cores);
#endif
    if (h->move_lean) {
        core_move_lean(h, req, core, line, set, way, slot, res);
        return 1;
    }
    uint8_t llc_st = META_STATE(*cache_meta(&h->llc, set, way));
    uint32_t col = h->fast_col[way];
    remove_in(&h->llc, h->llc_recency, set, way);
    res->hit = 1;
    res->col = (uint8_t)col;
    res->region = col_region[col];
    res->mem_reads = 0;
    res->mem_writebacks = 0;
    l2_insert_at_slot(h, core, line, (uint8_t)coh_core_fill_state(HIER_NONINCLUSIVE, req, L2_TO_EM, llc_st == ST_M),
                      slot, res);
    hier_req_stats *rs = &h->stats.req[req];
    rs->accesses++;
    rs->hits++;
    rs->hit_col[col]++;
    rs->mem_writebacks += res->mem_writebacks;
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
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(!set_known || llc_set == cache_set(&h->llc, line));
#endif
    if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && h->core_fast && !h->l2_lean && core < h->cfg.cores &&
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
 * (fast_ways) with LRU / BIP, no stack frame; anything else goes on with
 * the match found.  The same work as access_llc_fast. */
static inline __attribute__((always_inline)) void pcie_lean(hier *h, enum coh_req req, uint64_t line, uint32_t set,
                                                            hier_result *res)
{
    uint8_t *b = (uint8_t *)cache_tags(&h->llc, set);
    /* The most recent way was tried (pcie_mru): the search at once. */
    const int mw = way_of_tags((const uint64_t *)(const void *)b, h->llc.tag_slots, line);
    uint64_t match = mw < 0 ? 0 : 1ull << mw;
    if (!(match & h->fast_ways[req])) {
        access_matched(h, req, 0, line, set, match, res);
        return;
    }
    uint32_t way = (uint32_t)__builtin_ctzll(match);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((((h->cfg.shared_mask >> way) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
    assert(b + h->llc_repl_off == (uint8_t *)repl_line_state(h->llc.repl, set));
#endif
    uint8_t *meta = b + h->llc.meta_off + way;
    repl_order_hit((uint64_t *)(void *)(b + h->llc_repl_off), way);
    if (req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART)
        *meta = ST_M;   /* LLC_KEEP: the request writes; a read leaves the state (M stays M) */
    uint32_t col = h->fast_col[way];
    count_keep_hit(h, req, col);
    keep_hit_result(res, col, col_region[col]);
}

/* The requests after the LLC lookup, fast paths first. */
static inline __attribute__((always_inline)) void access_matched(hier *h, enum coh_req req, uint32_t core,
                                                                 uint64_t line, uint32_t set, uint64_t match,
                                                                 hier_result *res)
{
    if (req < REQ_EVICT && (match & h->drop_ways[req])) {
        uint32_t sway;
        uint64_t sslot = 0;
        int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
        if (owner >= 0)
            l2_take(h, (uint32_t)owner, line, sway, sslot);
        access_llc_fast(h, req, line, set, match, res);
        return;
    }
    if (req < REQ_EVICT && (match & h->fast_ways[req])) {
        access_llc_fast(h, req, line, set, match, res);
        return;
    }
    if (req == REQ_PCIE_RD && !match && h->rd_miss_fast) {
        access_pcie_rd_miss(h, line, set, res);
        return;
    }
    if ((req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART) && !match && h->wr_miss_fast[req]) {
        pcie_wr_miss(h, req, line, set, res);
        return;
    }
    if ((match & h->core_move_ways) && (req == REQ_CORE_RD || req == REQ_CORE_WR) &&
        access_core_move(h, req, core, line, set, match, res))
        return;
    access_general(h, req, core, line, set, match, res);
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
    uint32_t set = llc_set != UINT32_MAX ? llc_set : cache_set(&h->llc, line);
    uint8_t *b = (uint8_t *)cache_tags(&h->llc, set);
    if (h->llc_lean && h->llc_recency) {
        const int w = way_mru_first(b, h->llc_repl_off, h->llc.tag_slots, line);
        if (w >= 0)
            llc_remove_lean(h, b, (uint32_t)w);
        return;
    }
    int w = h->llc_lean ? way_mru_first(b, h->llc_repl_off, h->llc.tag_slots, line)
                        : way_of_tags((const uint64_t *)(const void *)b, h->llc.tag_slots, line);
    if (w >= 0)
        remove_in(&h->llc, h->llc_recency, set, (uint32_t)w);
}

static __attribute__((noinline, flatten)) void drop_shared_copy(hier *h, uint64_t line, uint32_t llc_set)
{
    drop_shared_copy_in(h, line, llc_set);
}

/* Fast path 2 once more, lean (h->l2_lean: the L2s map by a mask and keep
 * LRU / BIP nibble orders): the own-L2 hit of a core request that is not
 * on the most recent way (core_l2_mru took those), with the L2 geometry
 * read from h and the Shared copy's drop of an S upgrade as a tail call.
 * The same work as access_core_fast; returns 0 (nothing done) on an L2
 * miss. */
/* core_l2_lean's hit on `way` of the own L2 set block `b`. */
static inline __attribute__((always_inline)) void core_l2_hit_lean(hier *h, enum coh_req req, uint32_t core,
                                                                   uint64_t line, uint32_t llc_set, uint8_t *b,
                                                                   uint32_t way, hier_result *res)
{
    (void)core;
    uint8_t *meta = b + h->l2_meta_off + way;
    uint8_t st = META_STATE(*meta);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(b == (uint8_t *)cache_tags(&h->l2[core], cache_set(&h->l2[core], line)));
    assert(meta == cache_meta(&h->l2[core], cache_set(&h->l2[core], line), way));
    assert(snoop_get(&h->sf, line) == (int)core && "snoop filter and L2 disagree");
    assert(h->cfg.mode != HIER_NONINCLUSIVE || st == ST_S || find_in(&h->llc, cache_set(&h->llc, line), line) < 0);
#endif
    repl_order_hit((uint64_t *)(void *)(b + h->l2_repl_off), way);
    uint32_t col = coh_l2_col((enum coh_state)st);
    if (req == REQ_CORE_WR)
        *meta = (uint8_t)coh_l2_hit_state(req, (enum coh_state)st);
    count_l2_hit(h, req, col, res);
    if (coh_l2_hit_takes_llc(h->cfg.mode, req, (enum coh_state)st))
        drop_shared_copy_in(h, line, llc_set);
}

/* A core request the lean path found not in its own L2 (so access_one's
 * first fast path is done): the move of an LLC line into the L2 here, the
 * rest with the LLC match found. */
static inline __attribute__((always_inline)) void core_miss(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                            uint32_t llc_set, uint64_t slot, hier_result *res)
{
    uint32_t set = llc_set != UINT32_MAX ? llc_set : cache_set(&h->llc, line);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set == cache_set(&h->llc, line));
    assert(find_in(&h->l2[core], l2_set_of(h, line), line) < 0);
#endif
    uint64_t match;
    if (h->llc_lean) {
        const int mw = way_mru_first((const uint8_t *)cache_tags(&h->llc, set), h->llc_repl_off, h->llc.tag_slots, line);
        match = mw < 0 ? 0 : 1ull << mw;
    } else {
        match = match_in(&h->llc, set, line);
    }
    /* access_matched's earlier fast paths are for PCIe requests only. */
    assert(!(match & (h->drop_ways[req] | h->fast_ways[req])));
    if ((match & h->core_move_ways) && h->move_lean && h->sf.keys[slot] != line) {
        /* No L2 holds the line (`slot`, snoop_find's, has no entry for it). */
        core_move_lean(h, req, core, line, set, (uint32_t)__builtin_ctzll(match), slot, res);
        return;
    }
    if ((match & h->core_move_ways) && access_core_move(h, req, core, line, set, match, res))
        return;
    access_rest_matched(h, req, core, line, set, match, res);
}

/* A core request core_l2_mru did not finish: the lean hit anywhere in the
 * own L2, else the move from the LLC. */
static inline __attribute__((always_inline)) void core_entry_in(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                 uint32_t llc_set, hier_result *res)
{
    uint8_t *b = l2_block_lean(h, core, line);
    /* The most recent way was tried (core_l2_mru): the second most recent
     * (a line used again after one other line of its set, such as a
     * packet's mbuf header; its nibble is a way even with one L2 way:
     * unused fields hold 0, lru_order.h), then the snoop filter instead of
     * an L2 search:
     * it names the L2 and way that hold the line, and the move of a line
     * no L2 holds puts the entry at the slot it probed (snoop_find). */
    const uint32_t w1 = (uint32_t)(*(const uint64_t *)(const void *)(b + h->l2_repl_off) >> 4) & 0xF;
    if (((const uint64_t *)(const void *)b)[w1] == line) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(way_of_tags((const uint64_t *)(const void *)b, h->l2_tag_slots, line) == (int)w1);
#endif
        core_l2_hit_lean(h, req, core, line, llc_set, b, w1, res);
        return;
    }
    const uint64_t slot = snoop_find(&h->sf, line);
    if (h->sf.keys[slot] == line && (h->sf.core[slot] & (SNOOP_MAX_CORES - 1)) == core) {
        core_l2_hit_lean(h, req, core, line, llc_set, b, l2_way_lean(h, b, line, h->sf.core[slot] >> SNOOP_CORE_BITS),
                         res);
        return;
    }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(way_of_tags((const uint64_t *)(const void *)b, h->l2_tag_slots, line) < 0);
#endif
    core_miss(h, req, core, line, llc_set, slot, res);
}

/* pcie_lean out of line (the entry's tail call). */
static inline __attribute__((always_inline)) void pcie_entry_in(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set,
                                                 hier_result *res)
{
    if (req == REQ_PCIE_RD && h->rd_miss_fast) {
        /* A descriptor the driver just wrote: in its L2 in E/M, so in no
         * LLC way (non-inclusive); the snoop filter before the search. */
        uint8_t *meta = l2_meta_of(h, line);
        if (meta && META_STATE(*meta) != ST_S) {
            h->rd_owned++;
            pcie_rd_miss_at(h, line, llc_set, meta, res);
            return;
        }
    } else if (req != REQ_PCIE_RD && h->wr_miss_fast[req] && h->l2_lean && h->l2_recency) {
        /* A completion line the driver read: in its L2 in E/M, so in no
         * LLC way (non-inclusive); the snoop filter before the search, and
         * the L2 copy dropped right here. */
        uint32_t sway;
        uint64_t sslot = 0;
        int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
        if (owner >= 0) {
            uint8_t *b = l2_block_lean(h, (uint32_t)owner, line);
            const uint32_t way = l2_way_lean(h, b, line, sway);
            if (META_STATE(b[h->l2_meta_off + way]) != ST_S) {
                h->wr_owned++;
                l2_remove_lean(h, b, way, sslot);
                pcie_wr_miss_at(h, req, line, llc_set, COL_L2_EM, res);
                return;
            }
        }
    }
    pcie_lean(h, req, line, llc_set, res);
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

static __attribute__((noinline, flatten)) void pcie_entry(hier *h, enum coh_req req, uint64_t line, uint32_t llc_set,
                                                          hier_result *res)
{
    pcie_entry_in(h, req, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void pcie_entry_rd(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
    pcie_entry_in(h, REQ_PCIE_RD, line, llc_set, res);
}

static __attribute__((noinline, flatten)) void pcie_entry_wr(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
    pcie_entry_in(h, REQ_PCIE_WR_FULL, line, llc_set, res);
}

/* The most frequent access of all, in the entry itself with few enough
 * live values for a frame-less leaf: a core request whose line is the
 * most recent way of its own L2 set (core_l2_lean's hit without the order
 * update, which would leave the word as it is, repl_order_hit); a write
 * to an S line is a tail call (core_upgrade_mru).  Returns 1 when done. */
/* core_l2_mru's write to its own L2 (S) line on the most recent way: the
 * upgrade to M, which also drops a non-inclusive LLC's Shared copy
 * (core_l2_hit); `meta` is the line's L2 metadata byte. */
static __attribute__((noinline)) void core_upgrade_mru(hier *h, uint64_t line, uint32_t llc_set, hier_result *res,
                                                       uint8_t *meta)
{
    *meta = (uint8_t)coh_l2_hit_state(REQ_CORE_WR, ST_S);
    count_l2_hit(h, REQ_CORE_WR, COL_L2_S, res);
    if (coh_l2_hit_takes_llc(h->cfg.mode, REQ_CORE_WR, ST_S))
        drop_shared_copy(h, line, llc_set);
}

static inline __attribute__((always_inline)) int core_l2_mru(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                            uint32_t llc_set, hier_result *res)
{
    const uint8_t *b = h->l2_blocks[core] + (line & h->l2_set_mask) * h->l2_block_bytes;
    const uint32_t w0 = (uint32_t)*(const uint64_t *)(const void *)(b + h->l2_repl_off) & 0xF;
    if (((const uint64_t *)(const void *)b)[w0] != line)
        return 0;
    uint8_t *meta = (uint8_t *)b + h->l2_meta_off + w0;
    const uint32_t st = META_STATE(*meta);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(way_of_tags((const uint64_t *)(const void *)b, h->l2_tag_slots, line) == (int)w0);
    assert(snoop_get(&h->sf, line) == (int)core && "snoop filter and L2 disagree");
#endif
    if (req == REQ_CORE_WR) {
        if (st == ST_S) {
            core_upgrade_mru(h, line, llc_set, res, meta);
            return 1;
        }
        *meta = (uint8_t)coh_l2_hit_state(req, (enum coh_state)st);
    }
    _Static_assert(COL_L2_S == COL_L2_EM + 1, "the L2 columns are adjacent");
    const uint32_t col = COL_L2_EM + (st == ST_S);
    count_l2_hit(h, req, col, res);
    return 1;
}

/* pcie_lean's hit on the most recent way of the set (no order update),
 * frame-less in the entry like core_l2_mru.  Returns 1 when done. */
static inline __attribute__((always_inline)) int pcie_mru(hier *h, enum coh_req req, uint64_t line, uint32_t set,
                                                         hier_result *res)
{
    uint8_t *b = h->llc.blocks + (uint64_t)set * h->llc.block_bytes;
    const uint32_t w0 = (uint32_t)*(const uint64_t *)(const void *)(b + h->llc_repl_off) & 0xF;
    if (((const uint64_t *)(const void *)b)[w0] != line || !((h->fast_ways[req] >> w0) & 1))
        return 0;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(b == (uint8_t *)cache_tags(&h->llc, set));
    assert((1ull << w0) == match_in(&h->llc, set, line));
    assert((((h->cfg.shared_mask >> w0) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
#endif
    if (req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART)
        b[h->llc.meta_off + w0] = ST_M;   /* LLC_KEEP: the request writes; a read leaves the state */
    const uint32_t col = h->fast_col[w0];
    count_keep_hit(h, req, col);
    keep_hit_result(res, col, col_region[col]);
    return 1;
}

/* The entry points: the own-L2 MRU hit inline, everything else in tail
 * calls. */
static inline __attribute__((always_inline)) void access_entry(hier *h, enum coh_req req, uint32_t core,
                                                               uint64_t line, uint32_t llc_set, hier_result *res)
{
    if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && h->l2_lean && core < h->cfg.cores) {
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
    if (req <= REQ_PCIE_RD && h->llc_lean && llc_set != UINT32_MAX) {
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
    access_rest(h, req, core, line, llc_set, res);
}

void hier_access(hier *h, enum coh_req req, uint32_t core, uint64_t line, hier_result *res)
{
    access_entry(h, req, core, line, UINT32_MAX, res);
}

void hier_access_set(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res)
{
    assert(llc_set < h->llc.nsets);
    access_entry(h, req, core, line, llc_set, res);
}

/* hier_access_set with the request fixed (see hier.h): the entry's
 * request tests fold away and core_entry / pcie_entry get constants. */
void hier_core_rd_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res)
{
    assert(llc_set < h->llc.nsets);
    access_entry(h, REQ_CORE_RD, core, line, llc_set, res);
}

void hier_core_wr_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res)
{
    assert(llc_set < h->llc.nsets);
    access_entry(h, REQ_CORE_WR, core, line, llc_set, res);
}

void hier_pcie_rd_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
    assert(llc_set < h->llc.nsets);
    access_entry(h, REQ_PCIE_RD, 0, line, llc_set, res);
}

void hier_pcie_wr_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res)
{
    assert(llc_set < h->llc.nsets);
    access_entry(h, REQ_PCIE_WR_FULL, 0, line, llc_set, res);
}

#define RUN_CHUNK 64u
#define HINT_NO_WAY 0xFFu

/* A core request for a line whose DMA hint names an LLC way of
 * h->core_move_ways that holds it: when no L2 has a copy (the snoop filter
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
        h->hint_moves++;
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
 * byte by its low 6 bits in core_move_ways without way 63 (HINT_NO_WAY
 * fails), as in pcie_run's tight loop. */
static inline __attribute__((always_inline)) void access_hint_in(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                                 uint64_t hint, hier_result *res)
{
    assert(hint >= 0x100 && (uint32_t)(hint >> 8) - 1 < h->llc.nsets);
    const uint32_t set = (uint32_t)(hint >> 8) - 1, way = (uint32_t)hint & 63;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set == cache_set(&h->llc, line) && "a line hint with a wrong set");
#endif
    if ((req == REQ_CORE_RD || req == REQ_CORE_WR) && (((h->core_move_ways & ~(1ull << 63)) >> way) & 1) &&
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

void hier_access_hint(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint64_t hint, hier_result *res)
{
    access_hint_in(h, req, core, line, hint, res);
}

void hier_core_rd_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res)
{
    access_hint_in(h, REQ_CORE_RD, core, line, hint, res);
}

void hier_core_wr_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res)
{
    access_hint_in(h, REQ_CORE_WR, core, line, hint, res);
}

static inline __attribute__((always_inline)) void prefetch_set(const cache *c, uint32_t set)
{
    const uint8_t *b = (const uint8_t *)cache_tags(c, set);   /* the block's start */
    __builtin_prefetch(b);
    if (c->block_bytes > 64)
        __builtin_prefetch(b + 64);
}

/* pcie_run's tight loop over the hints hp..he of lines line..: full lines
 * whose hint names both the set and a way of `plain_tight` holding the
 * line; returns where it stopped.  `block_bytes`, `meta_off`, `repl_off`:
 * the LLC's block layout, constants at the usual call. */
static inline __attribute__((always_inline)) const uint64_t *
tight_lines(hier *h, int write, const uint64_t *hp, const uint64_t *he, uint64_t line, uintptr_t blocks_m1,
            uint64_t block_bytes, uint32_t meta_off, uint32_t repl_off, uint64_t plain_tight, uint32_t *cnt)
{
    for (; hp < he; hp++, line++) {
        const uint64_t hv = *hp;
        const uint32_t w = (uint32_t)hv & 63;
        if (hv < 0x100 || !((plain_tight >> w) & 1))
            break;
        uint8_t *blk = (uint8_t *)(blocks_m1 + (hv >> 8) * block_bytes);   /* cache_view_tags */
        if (((const uint64_t *)(const void *)blk)[w] != line)
            break;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        const uint32_t set = (uint32_t)(hv >> 8) - 1;
        assert(w == (hv & 0xFF) && w < h->llc.ways);
        assert(blk == (uint8_t *)cache_tags(&h->llc, set));
        assert(set == cache_set(&h->llc, line));
        assert((1ull << w) == match_in(&h->llc, set, line));
        assert((((h->cfg.shared_mask >> w) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
        assert(blk + meta_off + w == cache_meta(&h->llc, set, w));
        assert(blk[meta_off + w] == META_STATE(blk[meta_off + w]));
        assert(blk + repl_off == (uint8_t *)repl_line_state(h->llc.repl, set));
#endif
        /* The order word and the metadata byte in the set's block (llc_lean). */
        repl_order_hit((uint64_t *)(void *)(blk + repl_off), w);
        if (write)
            blk[meta_off + w] = ST_M;
        cnt[h->fast_col[w]]++;
    }
    return hp;
}

/* The lines first.. of one DMA, in order: hier_access for each, with the
 * fast path's work done on locals (the metadata byte stores may alias any
 * field of h, so what the loop reads is copied first) and its counters
 * added at the end.  `hints` (optional): per line, 0 or (set + 1) << 8 |
 * way where the line was found last time (HINT_NO_WAY: only the set is
 * known); the set of a line never changes, and the way is trusted only if
 * that way's tag is the line. */
static inline __attribute__((always_inline)) uint32_t pcie_run(hier *h, int write, uint64_t first, uint32_t n,
                                                               int head_partial, int tail_partial,
                                                               uint32_t *part_hits, uint64_t *hints)
{
    const cache_view v = cache_view_of(&h->llc);
    const uint32_t slots = h->llc.tag_slots, ways = h->llc.ways;
    const enum coh_req req_full = write ? REQ_PCIE_WR_FULL : REQ_PCIE_RD;
    /* What only the line code below needs (the run's first and last lines,
     * mostly) is read from h there, not kept for the whole run. */
    /* The tight loop: LRU / BIP with their order words in the set blocks. */
    const int lean = h->llc_lean;
    const uint32_t repl_off = h->llc_repl_off;
    uint32_t cnt[LLC_COLS] = {0};   /* fast hits of full lines by column (an LLC way's) */
    uint32_t sets[RUN_CHUNK], hits = 0, phits = 0;
    /* The partial lines' indices (UINT32_MAX: none). */
    const uint32_t part_first = write && head_partial ? 0 : UINT32_MAX;
    const uint32_t part_last = write && tail_partial ? n - 1 : UINT32_MAX;
    /* The tight loop's range (no partial line) and ways (fast, no L2 copy to drop). */
    const uint32_t tight_lo = part_first == 0 ? 1 : 0, tight_hi = part_last == n - 1 ? n - 1 : n;
    /* The tight loop tests a hint's way byte (a way, or HINT_NO_WAY) by
     * its low 6 bits in this mask, without a bound check against `ways`
     * (two instructions per line less): way 63 is left out, so
     * HINT_NO_WAY (63 in those bits) fails (derive_run_masks, at init). */
    _Static_assert((HINT_NO_WAY & 63) == 63 && CACHE_MAX_WAYS <= 64, "a hint's way byte: a way, or HINT_NO_WAY");
    const uint64_t plain_tight = h->run_plain[write];
    /* The full lines' drop ways (an L2 (S) copy is dropped first). */
    const uint64_t drop_tight = write ? h->run_drop : 0;
    /* The same for a partial write (the run's tail line). */
    const uint64_t plain_part = write ? h->run_plain_part : 0;
    /* Set s's block is at blocks_m1 + (s + 1) x block_bytes: a hint word's
     * upper part indexes it directly. */
    const uintptr_t blocks_m1 = (uintptr_t)v.blocks - v.block_bytes;
    /* The LLC block layout of 9 - 12 ways with a nibble order (cache.c:
     * 12 tag slots, metadata at 104, order word at 120, 128 bytes). */
    const int geom12 = v.block_bytes == 128 && v.meta_off == 104 && repl_off == 120;
    for (uint32_t base = 0; base < n; base += RUN_CHUNK) {
        uint32_t m = n - base < RUN_CHUNK ? n - base : RUN_CHUNK;
        if (hints && write) {
            /* The set from the hint (the line code below reads it again),
             * both host lines of its block prefetched unconditionally (a
             * prefetch past a one-line block is harmless).  Not for a read
             * run: its lines are the ones a write run did shortly before
             * (their blocks are still in the host's caches), and skipping
             * the pass measured no slower wall-clock (MAWI, 1 core ring 256
             * and 4 cores rings 2048, 2026-11-22). */
            for (const uint64_t *hp = hints + base, *he = hp + m; hp < he; hp++) {
                /* A zero hint (a buffer's first DMA) prefetches the
                 * address before the blocks, which is harmless (a
                 * prefetch never faults): no test per line. */
                const uint64_t hv = *hp;
                const uint8_t *b = (const uint8_t *)(blocks_m1 + (hv >> 8) * v.block_bytes);   /* cache_view_tags of the hint's set */
#ifdef DDIOSIM_EXPENSIVE_CHECKS
                assert((!hv || b == (const uint8_t *)cache_tags(&h->llc, cache_set(&h->llc, first + (uint64_t)(hp - hints)))) &&
                       "a line hint with a wrong set");
#endif
                __builtin_prefetch(b);
                __builtin_prefetch(b + 64);
            }
        } else if (!hints) {
            cache_mapper_set_run(&h->llc.map, first + base, m, sets);
            for (uint32_t i = 0; i < m; i++)
                prefetch_set(&h->llc, sets[i]);
        }
        for (uint32_t i = 0; i < m; i++) {
            if (hints && lean && base + i >= tight_lo) {
                /* The tight loop: full lines whose hint names both the set
                 * and a way of `plain` holding the line (the common case:
                 * the buffer's lines, DMAed before).  It does what the
                 * general loop below does for them (the hint it would store
                 * is the one read); the first other line leaves it and goes
                 * through that loop, which re-enters here at the next line. */
                const uint32_t end = tight_hi - base < m ? tight_hi - base : m;
                const uint32_t start = i;
                /* Walked by pointer, the set block from the hint's set + 1
                 * (one instruction less each). */
                const uint64_t *hp = hints + base + i;
                const uint64_t *const he = hints + base + (end > i ? end : i);
                uint64_t line = first + base + i;
                if (geom12)   /* the layout as constants: fewer live registers */
                    hp = tight_lines(h, write, hp, he, line, blocks_m1, 128, 104, 120, plain_tight, cnt);
                else
                    hp = tight_lines(h, write, hp, he, line, blocks_m1, v.block_bytes, v.meta_off, repl_off,
                                     plain_tight, cnt);
                i = (uint32_t)(hp - (hints + base));
                hits += i - start;
                h->tight_lines += i - start;
                if (i == m)
                    break;
                if (write && base + i != part_last) {
                    /* A full line in a drop way (a packet's first line: in
                     * the Shared way its last read run's copy went to, with
                     * the core's L2 (S) copy): the L2 copy is dropped and
                     * the line takes the tight loop's work, then the loop
                     * goes on at the next line. */
                    const uint64_t hv = hints[base + i];
                    const uint32_t w = (uint32_t)hv & 63;
                    uint8_t *blk = (uint8_t *)(blocks_m1 + (hv >> 8) * v.block_bytes);
                    if (hv >= 0x100 && ((drop_tight >> w) & 1) &&
                        ((const uint64_t *)(const void *)blk)[w] == first + base + i) {
                        const uint64_t dline = first + base + i;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
                        const uint32_t set = (uint32_t)(hv >> 8) - 1;
                        assert(w == (hv & 0xFF) && set == cache_set(&h->llc, dline));
                        assert((1ull << w) == match_in(&h->llc, set, dline));
#endif
                        uint32_t sway;
                        uint64_t sslot = 0;
                        int owner = snoop_get_slot(&h->sf, dline, &sway, &sslot);
                        if (owner >= 0 && h->l2_lean && h->l2_recency)   /* remove_in's inline form */
                            l2_drop_lean(h, (uint32_t)owner, dline, sway, sslot);
                        else if (owner >= 0)
                            l2_take(h, (uint32_t)owner, dline, sway, sslot);
                        repl_order_hit((uint64_t *)(void *)(blk + repl_off), w);
                        blk[v.meta_off + w] = ST_M;
                        cnt[h->fast_col[w]]++;
                        hits++;
                        h->tight_lines++;
                        continue;
                    }
                }
                if (write && base + i == part_last) {
                    /* The partial last line (most runs' tail), when its
                     * hint names a plain way of the partial write holding
                     * it: the tight loop's work, counted as partial. */
                    const uint64_t hv = hints[base + i];
                    const uint32_t w = (uint32_t)hv & 63;
                    uint8_t *blk = (uint8_t *)(blocks_m1 + (hv >> 8) * v.block_bytes);
                    if (hv >= 0x100 && ((plain_part >> w) & 1) &&
                        ((const uint64_t *)(const void *)blk)[w] == first + base + i) {
#ifdef DDIOSIM_EXPENSIVE_CHECKS
                        const uint32_t set = (uint32_t)(hv >> 8) - 1;
                        assert(w == (hv & 0xFF) && set == cache_set(&h->llc, first + base + i));
                        assert((1ull << w) == match_in(&h->llc, set, first + base + i));
                        assert((((h->cfg.shared_mask >> w) & 1) || snoop_get(&h->sf, first + base + i) < 0) &&
                               "a DDIO/L3* line with an L2 copy");
#endif
                        repl_order_hit((uint64_t *)(void *)(blk + repl_off), w);
                        blk[v.meta_off + w] = ST_M;
                        hier_req_stats *rp = &h->stats.req[REQ_PCIE_WR_PART];
                        rp->accesses++;
                        rp->hits++;
                        rp->hit_col[h->fast_col[w]]++;
                        phits++;
                        hits++;
                        h->tight_lines++;
                        break;   /* the last line of the run */
                    }
                }
            }
            uint32_t k = base + i;
            uint32_t set = !hints ? sets[i] : hints[k] ? (uint32_t)(hints[k] >> 8) - 1 : cache_set(&h->llc, first + k);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
            assert(set == cache_set(&h->llc, first + k) && "a line hint with a wrong set");
#endif
            uint64_t line = first + k;
            int partial = write && (k == part_first || k == part_last);
            const uint64_t *t = cache_view_tags(v, set);
            uint32_t hw = hints ? (uint32_t)(hints[k] & 0xFF) : HINT_NO_WAY;
            /* A line is in one way at most: a tag equal to it is the match. */
            uint64_t match;
            uint8_t *rd_meta = NULL;
            if (hw < ways && t[hw] == line) {
                match = 1ull << hw;
            } else if (hints && !write && h->rd_miss_fast) {
                /* A read run's line that left its way: most often to a
                 * core's L2 in E/M (a packet's first line), which puts it
                 * in no LLC way (non-inclusive), so the snoop filter
                 * (which access_pcie_rd_miss asks anyway) goes first. */
                rd_meta = l2_meta_of(h, line);
                if (rd_meta && META_STATE(*rd_meta) != ST_S) {
                    hier_result r;
                    uint32_t way = pcie_rd_miss_at(h, line, set, rd_meta, &r);
                    hits++;
                    h->rd_owned++;
                    hints[k] = (uint64_t)(set + 1) << 8 | (way < ways ? way : HINT_NO_WAY);
                    continue;
                }
                match = match_tags(t, slots, line);
            } else {
                match = match_tags(t, slots, line);
            }
            const enum coh_req req = partial ? REQ_PCIE_WR_PART : req_full;
            const uint64_t drop = h->drop_ways[req];
            if (match & (h->fast_ways[req] | drop)) {
                uint32_t way = (uint32_t)__builtin_ctzll(match);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
                assert((((h->cfg.shared_mask >> way) & 1) || snoop_get(&h->sf, line) < 0) &&
                       "a DDIO/L3* line with an L2 copy");
                assert(match == match_in(&h->llc, set, line));
#endif
                if (match & drop) {
                    uint32_t sway;
                    uint64_t sslot = 0;
                    int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
                    if (owner >= 0 && h->l2_lean && h->l2_recency)   /* remove_in's inline form */
                        l2_drop_lean(h, (uint32_t)owner, line, sway, sslot);
                    else if (owner >= 0)
                        l2_take(h, (uint32_t)owner, line, sway, sslot);
                }
                uint8_t *meta = cache_view_meta(v, set, way);
                if (h->llc_nibble) {
                    repl_order_hit((uint64_t *)(void *)repl_line_state(h->llc.repl, set), way);
                } else {
                    cache_hit(&h->llc, set, way);
                }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
                assert(*meta == META_STATE(*meta) && "a metadata byte is the state alone");
#endif
                if (write)
                    *meta = ST_M;   /* LLC_KEEP: the request writes; a read leaves the state (M stays M) */
                if (partial) {
                    /* Counted at once: the end of the run folds the full lines' counts only. */
                    hier_req_stats *rs = &h->stats.req[REQ_PCIE_WR_PART];
                    rs->accesses++;
                    rs->hits++;
                    rs->hit_col[h->fast_col[way]]++;
                    phits++;
                } else {
                    cnt[h->fast_col[way]]++;
                }
                hits++;
                if (hints)
                    hints[k] = (uint64_t)(set + 1) << 8 | way;
            } else {
                hier_result r;
                uint32_t hint_way = HINT_NO_WAY;
                if (!write && !match && h->rd_miss_fast) {
                    /* The Shared way a copy went to, for the next DMA (the first data line's write);
                     * with hints the snoop filter was asked above. */
                    uint32_t way = hints ? pcie_rd_miss_at(h, line, set, rd_meta, &r) : access_pcie_rd_miss(h, line, set, &r);
                    if (way < ways)
                        hint_way = way;
                } else if (write && !match && h->wr_miss_fast[partial ? REQ_PCIE_WR_PART : req_full]) {
                    pcie_wr_miss(h, partial ? REQ_PCIE_WR_PART : req_full, line, set, &r);
                } else {
                    access_general(h, partial ? REQ_PCIE_WR_PART : req_full, 0, line, set, match, &r);
                }
                hits += r.hit;
                phits += (uint32_t)(r.hit & partial);
                if (hints)
                    hints[k] = (uint64_t)(set + 1) << 8 | hint_way;
            }
        }
    }
    hier_req_stats *rs = &h->stats.req[req_full];
    const uint32_t sum = cnt[COL_DDIO] + cnt[COL_L3] + cnt[COL_SHARED];
    _Static_assert(LLC_COLS == 3, "the LLC columns are DDIO, L3*, Shared");
    rs->hit_col[COL_DDIO] += cnt[COL_DDIO];
    rs->hit_col[COL_L3] += cnt[COL_L3];
    rs->hit_col[COL_SHARED] += cnt[COL_SHARED];
    rs->accesses += sum;
    rs->hits += sum;
    *part_hits = phits;
    return hits;
}

/* pcie_run is compiled once per (write, hints or not): the hint tests
 * leave the line loop. */
uint32_t hier_pcie_write_run(hier *h, uint64_t first, uint32_t n, int head_partial, int tail_partial,
                             uint32_t *part_hits, uint64_t *hints)
{
    if (hints)
        return pcie_run(h, 1, first, n, head_partial, tail_partial, part_hits, hints);
    return pcie_run(h, 1, first, n, head_partial, tail_partial, part_hits, NULL);
}

uint32_t hier_pcie_read_run(hier *h, uint64_t first, uint32_t n, uint64_t *hints)
{
    uint32_t part_hits;
    if (hints)
        return pcie_run(h, 0, first, n, 0, 0, &part_hits, hints);
    return pcie_run(h, 0, first, n, 0, 0, &part_hits, NULL);
}

void hier_flush(hier *h, uint64_t line, hier_result *res)
{
    memset(res, 0, sizeof *res);
    int dirty = 0;
    uint32_t sway;
    uint64_t sslot = 0;
    int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
    if (owner >= 0) {
        dirty |= l2_take(h, (uint32_t)owner, line, sway, sslot) == ST_M;
        res->hit = 1;
        res->region = REG_L2;
    }
    uint32_t set = cache_set(&h->llc, line);
    int way = find_in(&h->llc, set, line);
    if (way >= 0) {
        dirty |= META_STATE(*cache_meta(&h->llc, set, (uint32_t)way)) == ST_M;
        if (!res->hit)
            res->region = h->way_region[way];
        res->hit = 1;
        cache_remove(&h->llc, set, (uint32_t)way);
    }
    if (!res->hit)
        res->region = REG_MEM;
    res->mem_writebacks = (uint8_t)dirty;
    h->stats.flushes++;
    h->stats.flush_writebacks += (uint64_t)dirty;
}

int hier_place(hier *h, uint32_t core, uint64_t line, enum coh_col col, int dirty)
{
    hier_result scratch = {0};
    if (core >= h->cfg.cores || snoop_get(&h->sf, line) >= 0 ||
        find_in(&h->llc, cache_set(&h->llc, line), line) >= 0)
        return -1;
    uint8_t st = dirty ? ST_M : ST_E;
    int incl = h->cfg.mode == HIER_INCLUSIVE;
    switch (col) {
    case COL_DDIO:
        llc_insert(h, line, h->cfg.ddio_mask, st, &scratch);
        break;
    case COL_L3:
        /* L3*: the core's ways that are neither DDIO nor Shared ways. */
        if (!(core_mask(h, core) & ~(h->cfg.ddio_mask | h->cfg.shared_mask)))
            return -1;
        llc_insert(h, line, core_mask(h, core) & ~(h->cfg.ddio_mask | h->cfg.shared_mask), st, &scratch);
        break;
    case COL_SHARED:
        if (incl)
            return -1;
        llc_insert(h, line, h->cfg.shared_mask, st, &scratch);
        break;
    case COL_L2_EM:
    case COL_L2_S:
        if (incl)
            llc_insert(h, line, core_mask(h, core), col == COL_L2_EM ? ST_E : st, &scratch);
        l2_insert(h, core, line, col == COL_L2_S ? ST_S : st, &scratch);
        break;
    case COL_MEM:
        break;
    default:
        return -1;
    }
    return 0;
}

hier_where hier_locate(const hier *h, uint64_t line)
{
    hier_where w = {.l2_core = -1, .l2_state = ST_I, .llc_region = REG_MEM, .llc_state = ST_I};
    int owner = snoop_get(&h->sf, line);
    if (owner >= 0) {
        const cache *l2 = &h->l2[owner];
        uint32_t s = cache_set(l2, line);
        int way = find_in(l2, s, line);
        assert(way >= 0);
        w.l2_core = owner;
        w.l2_state = META_STATE(*cache_meta(l2, s, (uint32_t)way));
    }
    uint32_t s = cache_set(&h->llc, line);
    int way = find_in(&h->llc, s, line);
    if (way >= 0) {
        w.llc_region = h->way_region[way];
        w.llc_state = META_STATE(*cache_meta(&h->llc, s, (uint32_t)way));
    }
    return w;
}

void hier_occupancy(const hier *h, uint64_t lines[REG_COUNT])
{
    memset(lines, 0, sizeof(uint64_t) * REG_COUNT);
    const cache *c = &h->llc;
    for (uint32_t s = 0; s < c->nsets; s++) {
        const uint64_t *t = cache_tags(c, s);
        for (uint32_t w = 0; w < c->ways; w++)
            if (t[w] != CACHE_INVALID)
                lines[h->way_region[w]]++;
    }
    lines[REG_L2] = h->sf.count;
}

const char *hier_region_name(enum hier_region r)
{
    static const char *names[REG_COUNT] = {"L2", "DDIO", "Shared", "L3*", "Memory"};
    return (unsigned)r < REG_COUNT ? names[r] : "?";
}

int hier_parse_mode(const char *s, enum hier_mode *out, ddio_err *e)
{
    if (strcmp(s, "non-inclusive") == 0 || strcmp(s, "noninclusive") == 0)
        *out = HIER_NONINCLUSIVE;
    else if (strcmp(s, "inclusive") == 0)
        *out = HIER_INCLUSIVE;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "hierarchy '%s' is not one of non-inclusive, inclusive", s);
    return 0;
}
