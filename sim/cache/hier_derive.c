/* hier_derive.c - the fast paths' state (struct hier_fast, hier_int.h),
 * derived from the coherence table and the cache layouts at hier_init and
 * again by hier_set_general_only: which LLC ways, requests and misses each
 * fast path of hier_fast.c and hier_run.c may take, and the layouts and
 * policies whose work they do inline.  Nothing here runs per access. */
#include <assert.h>
#include <string.h>

#include "sim/cache/hier_int.h"

/* LRU, BIP and DIP on the nibble order (lru_order.h): their victim choice
 * and invalidation (and LRU's fill) are a few bit operations that fill_in /
 * remove_in do inline instead of through the ops table.  DIP's victims and
 * invalidations are LRU's in every set (its members differ only in how
 * they insert: repl_duel.c); its fills go through its ops (PSEL). */
static int recency_inline(const repl_policy *p)
{
    return (p->ops == &repl_lru_ops || p->ops == &repl_bip_ops || p->ops == &repl_dip_ops) &&
           p->ways <= LRU_ORDER_MAX_WAYS;
}

/* The lean own-L2 entries' L2 layout (every L2 has the same): usable when
 * the L2 maps by a mask (modulo, a power of two of sets), its policy's hit
 * is inline (LRU / BIP nibble orders: L2_LEAN_NIBBLE, with the most recent
 * way tried first; RRIP, QLRU: L2_LEAN_RULE, a full set search) and its
 * policy state sits in the set blocks. */
static void l2_lean_init(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    const cache *l2 = &h->l2[0];
    f->l2_mask_map = l2->map.kind == MAP_MODULO && (l2->map.total_mask || l2->nsets == 1);
    f->l2_set_mask = f->l2_mask_map ? l2->map.total_mask : 0;
    f->l2_lay = sb_layout_of(l2);
    f->l2_lean = !f->core_fast || !f->l2_mask_map ? 0
                 : f->l2_nibble                    ? L2_LEAN_NIBBLE
                 : f->l2_hit.kind != REPL_HIT_OPS  ? L2_LEAN_RULE
                                                   : 0;
    for (uint32_t c = 0; c < h->cfg.cores; c++)
        f->l2_blocks[c] = h->l2[c].blocks;
    for (uint32_t c = 0; c < h->cfg.cores; c++)
        if (h->l2[c].repl->base != h->l2[c].blocks + f->l2_lay.repl_off || h->l2[c].repl->stride != f->l2_lay.block_bytes)
            f->l2_lean = 0;
    /* QLRU's hint bytes: in the block's padding past the policy's bytes,
     * which nothing else uses (sb_layout_make). */
    const repl_policy *p = h->l2[0].repl;
    const uint64_t hint_off = f->l2_lay.repl_off + (uint64_t)p->ops->set_bytes(p->cfg.name, p->ways);
    f->l2_hint_off = f->l2_lean == L2_LEAN_RULE && f->l2_hit.kind == REPL_HIT_QLRU && hint_off + HIER_L2_HINT_BYTES <= f->l2_lay.block_bytes
                         ? (uint32_t)hint_off
                         : 0;
}

/* What the cache layouts and policies allow (each off with `on`): inline
 * replacement work, the lean entries' layouts, the LLC ways' columns. */
static void derive_layouts(hier *h, int on)
{
    struct hier_fast *f = hier_fast_of(h);
    for (uint32_t w = 0; w < h->cfg.llc.ways; w++) {
        f->fast_col[w] = coh_region_col((enum hier_region)h->way_region[w]);
        assert(f->fast_col[w] < LLC_COLS && "an LLC way's column is an LLC column");
    }
    f->core_fast = !on;
    const repl_hit_rule ops = {.kind = REPL_HIT_OPS};
    f->llc_hit = on ? ops : repl_hit_rule_of(h->llc.repl);
    f->l2_hit = on ? ops : repl_hit_rule_of(h->l2[0].repl);   /* every L2 has the same policy */
    f->llc_nibble = f->llc_hit.kind == REPL_HIT_NIBBLE;
    f->l2_nibble = f->l2_hit.kind == REPL_HIT_NIBBLE;
    f->llc_recency = !on && recency_inline(h->llc.repl);
    f->l2_recency = !on && recency_inline(h->l2[0].repl);
    f->llc_lru_fill = f->llc_recency && h->llc.repl->ops == &repl_lru_ops;
    const repl_evict_rule no_rule = {.kind = REPL_EVICT_OPS};
    f->llc_evict = on || f->llc_recency ? no_rule : repl_evict_rule_of(h->llc.repl);
    f->l2_evict = on || f->l2_recency ? no_rule : repl_evict_rule_of(h->l2[0].repl);   /* every L2 has the same policy */
    /* pcie_lean: LRU / BIP order words at a fixed offset of each set block. */
    const int llc_in_blocks = h->llc.repl->base == h->llc.blocks + h->llc.repl_off &&
                              h->llc.repl->stride == h->llc.block_bytes;
    f->llc_lean = f->llc_nibble && llc_in_blocks;
    /* The runs' tight loop needs only the hit inline, on the set block. */
    f->llc_run_inline = f->llc_hit.kind != REPL_HIT_OPS && llc_in_blocks;
    f->l2_lru_fill = f->l2_recency && h->l2[0].repl->ops == &repl_lru_ops;
    l2_lean_init(h);
    /* core_move_lean: LLC removal (LRU / BIP) and L2 fill (LRU) from the layouts in f. */
    f->move_lean = f->llc_lean && f->llc_recency && f->l2_lean && f->l2_lru_fill;
}

/* Fast path 3 (rd_miss_fast): whether a PCIe read the LLC misses meets
 * the cells pcie_rd_miss_at carries out, and their memory reads. */
static void derive_pcie_rd_miss(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    const coh_cell *rd_em = coh_lookup(h->cfg.mode, REQ_PCIE_RD, COL_L2_EM);
    const coh_cell *rd_s = coh_lookup(h->cfg.mode, REQ_PCIE_RD, COL_L2_S);
    const coh_cell *rd_mem = coh_lookup(h->cfg.mode, REQ_PCIE_RD, COL_MEM);
    f->rd_miss_fast = rd_em->defined && rd_em->llc == LLC_TO_SHARED && rd_em->l2 == L2_TO_S && rd_s->defined &&
                      rd_s->llc == LLC_KEEP && rd_s->l2 == L2_KEEP && rd_mem->defined && rd_mem->llc == LLC_KEEP &&
                      rd_mem->l2 == L2_KEEP;
    f->rd_mem_read[COL_L2_EM] = rd_em->mem_read;
    f->rd_mem_read[COL_L2_S] = rd_s->mem_read;
    f->rd_mem_read[COL_MEM] = rd_mem->mem_read;
}

/* Fast path 5 (wr_miss_fast): a PCIe write the LLC misses, when every such
 * cell allocates the line in the DDIO ways (M: the request writes) and
 * drops any L2 copy (only in memory there is none to act on). */
static void derive_pcie_wr_miss(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    f->wr_miss_mask = h->cfg.ddio_mask;
    for (int q = REQ_PCIE_WR_FULL; q <= REQ_PCIE_WR_PART; q++) {
        const coh_cell *em = coh_lookup(h->cfg.mode, (enum coh_req)q, COL_L2_EM);
        const coh_cell *s = coh_lookup(h->cfg.mode, (enum coh_req)q, COL_L2_S);
        const coh_cell *mem = coh_lookup(h->cfg.mode, (enum coh_req)q, COL_MEM);
        f->wr_miss_fast[q] = em->defined && em->llc == LLC_TO_DDIO && em->l2 == L2_DROP && s->defined &&
                             s->llc == LLC_TO_DDIO && s->l2 == L2_DROP && mem->defined && mem->llc == LLC_TO_DDIO &&
                             (mem->l2 == L2_KEEP || mem->l2 == L2_DROP);
        f->wr_mem_read[q][COL_L2_EM] = em->mem_read;
        f->wr_mem_read[q][COL_L2_S] = s->mem_read;
        f->wr_mem_read[q][COL_MEM] = mem->mem_read;
    }
}

/* llc_victim_at: the LLC ways whose eviction cell sends the line to
 * memory and has no L2 copy to back-invalidate (no hier_llc_victim_l2). */
static void derive_llc_victim(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    for (uint32_t w = 0; w < h->cfg.llc.ways; w++) {
        const coh_cell *ev = coh_lookup(h->cfg.mode, REQ_EVICT, coh_region_col((enum hier_region)h->way_region[w]));
        if (ev->llc == LLC_TO_MEM && ev->l2 != L2_DROP)
            f->victim_plain |= 1ull << w;
    }
}

/* Fast path 4 (core_move_ways): the LLC ways whose cells move a core's
 * line to its L2 (LLC_DROP, L2_TO_EM, no memory read) for reads and writes. */
static void derive_core_move(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    for (uint32_t w = 0; w < h->cfg.llc.ways; w++) {
        const coh_cell *rd = coh_lookup(h->cfg.mode, REQ_CORE_RD, (enum coh_col)f->fast_col[w]);
        const coh_cell *wr = coh_lookup(h->cfg.mode, REQ_CORE_WR, (enum coh_col)f->fast_col[w]);
        if (rd->defined && wr->defined && rd->llc == LLC_DROP && wr->llc == LLC_DROP && rd->l2 == L2_TO_EM &&
            wr->l2 == L2_TO_EM && !rd->mem_read && !wr->mem_read)
            f->core_move_ways |= 1ull << w;
    }
}

/* Fast path 1 (fast_ways, drop_ways): the LLC ways where a PCIe request's
 * cell keeps the line in place (LLC_KEEP) and reads no memory. */
static void derive_keep_ways(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    for (int q = 0; q < REQ_EVICT; q++) {
        if (q == REQ_CORE_RD || q == REQ_CORE_WR)
            continue;   /* a core request always leaves an L2 copy */
        for (uint32_t w = 0; w < h->cfg.llc.ways; w++) {
            const coh_cell *cell = coh_lookup(h->cfg.mode, (enum coh_req)q, (enum coh_col)f->fast_col[w]);
            /* A Shared-way line may have an L2 (S) copy: fast only when
             * the cell leaves it alone (a PCIe read). */
            if (!cell->defined || cell->llc != LLC_KEEP || cell->mem_read)
                continue;
            if (((h->cfg.shared_mask >> w) & 1) && cell->l2 == L2_DROP)
                f->drop_ways[q] |= 1ull << w;   /* a PCIe write: first drop the L2 (S) copy, if any */
            else if (!((h->cfg.shared_mask >> w) & 1) || cell->l2 == L2_KEEP)
                f->fast_ways[q] |= 1ull << w;
        }
    }
}

/* Every fast path's state from the table and the layouts, or (`on`) none. */
static void derive_fast_paths(hier *h, int on)
{
    struct hier_fast *f = hier_fast_of(h);
    memset(f->fast_ways, 0, sizeof f->fast_ways);
    memset(f->drop_ways, 0, sizeof f->drop_ways);
    f->rd_miss_fast = 0;
    memset(f->wr_miss_fast, 0, sizeof f->wr_miss_fast);
    f->core_move_ways = 0;
    f->victim_plain = 0;
    derive_layouts(h, on);
    if (on || h->cfg.mode != HIER_NONINCLUSIVE)
        return;   /* inclusive: any LLC line may have an L2 copy */
    derive_pcie_rd_miss(h);
    derive_pcie_wr_miss(h);
    derive_llc_victim(h);
    derive_core_move(h);
    derive_keep_ways(h);
}

/* pcie_run's way masks (from fast_ways / drop_ways), a hint's way byte
 * tested by its low 6 bits: way 63 left out, so HIER_HINT_NO_WAY (63 in those
 * bits) fails without a bound check (the tight loop needs the nibble
 * order, at most 16 ways, so no way is lost); and whether the runs keep
 * hint words at all (they must fit in a hier_hint_word). */
static void derive_runs(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    const uint64_t no63 = ~(1ull << 63);
    f->run_plain[0] = f->fast_ways[REQ_PCIE_RD] & ~f->drop_ways[REQ_PCIE_RD] & no63;
    f->run_plain[1] = f->fast_ways[REQ_PCIE_WR_FULL] & ~f->drop_ways[REQ_PCIE_WR_FULL] & no63;
    f->run_drop = f->drop_ways[REQ_PCIE_WR_FULL] & no63;
    f->run_plain_part = f->fast_ways[REQ_PCIE_WR_PART] & ~f->drop_ways[REQ_PCIE_WR_PART] & no63;
    f->run_hints = h->llc.nsets < HIER_HINT_MAX_SETS;
    f->run_tight_rule[0] = hier_run_tight_of(h, 0);
    f->run_tight_rule[1] = hier_run_tight_of(h, 1);
    /* A full line's miss with no L2 copy in the write runs' tight loop:
     * fast path 5's cell of a line only in memory (no hit), its LRU fill
     * (llc_fill_lru) and counts summed over the run. */
    f->run_miss_lean = f->run_hints && f->wr_miss_fast[REQ_PCIE_WR_FULL] && f->llc_lean && f->llc_lru_fill &&
                       !coh_col_hit(COL_MEM);
}

void hier_set_general_only(hier *h, int on)
{
    /* The fast paths update the replacement state on every LLC hit: a
     * configuration that leaves some PCIe hits still runs without them.
     * They carry out Table 1's PCIe write rows: DDIO off (no DDIO ways,
     * coherence.h coh_lookup_io) runs without them too. */
    derive_fast_paths(h, on || h->cfg.pcie_hit_still || !h->cfg.ddio_mask);
    derive_runs(h);
}

hier_paths hier_paths_of(const hier *h)
{
    const struct hier_fast *f = hier_fast_of(h);
    hier_paths p = {.llc_lean = f->llc_lean, .llc_rule_lean = f->llc_run_inline && !f->llc_lean,
                    .l2_lean = f->l2_lean != 0, .l2_hint_off = f->l2_hint_off, .l2_recency = f->l2_recency, .move_lean = f->move_lean,
                    .rd_miss_fast = f->rd_miss_fast, .core_move_ways = f->core_move_ways};
    p.wr_miss_fast[REQ_PCIE_WR_FULL] = f->wr_miss_fast[REQ_PCIE_WR_FULL];
    p.wr_miss_fast[REQ_PCIE_WR_PART] = f->wr_miss_fast[REQ_PCIE_WR_PART];
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    p.counted = 1;
    p.taken = f->taken;
#endif
    return p;
}
