/* hier_run.c - the NIC's DMA runs: the n consecutive lines of one buffer
 * read or written in one go (hier_dma_run), with the per-line work that
 * does not change a result (set mapping, lookups, counters) shared over
 * the run.  Each line has exactly the effect of one hier_access (the tests
 * compare both on random runs); the lines no fast path takes go through
 * hier_fast.c's and hier.c's paths. */
#include <assert.h>

#include "sim/cache/hier_int.h"

#define RUN_CHUNK 64u

/* pcie_run's way masks (from fast_ways / drop_ways), a hint's way byte
 * tested by its low 6 bits: way 63 left out, so HINT_NO_WAY (63 in those
 * bits) fails without a bound check (the tight loop needs the nibble
 * order, at most 16 ways, so no way is lost). */
void hier_run_derive(hier *h)
{
    struct hier_fast *f = hier_fast_of(h);
    const uint64_t no63 = ~(1ull << 63);
    f->run_plain[0] = f->fast_ways[REQ_PCIE_RD] & ~f->drop_ways[REQ_PCIE_RD] & no63;
    f->run_plain[1] = f->fast_ways[REQ_PCIE_WR_FULL] & ~f->drop_ways[REQ_PCIE_WR_FULL] & no63;
    f->run_drop = f->drop_ways[REQ_PCIE_WR_FULL] & no63;
    f->run_plain_part = f->fast_ways[REQ_PCIE_WR_PART] & ~f->drop_ways[REQ_PCIE_WR_PART] & no63;
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
        cnt[hier_fast_of(h)->fast_col[w]]++;
    }
    return hp;
}

/* The lines first.. of one DMA, in order: hier_access for each, with the
 * fast path's work done on locals (the metadata byte stores may alias any
 * field of h, the fast state included, so what the loop reads is copied first) and its counters
 * added at the end.  `hints` (optional): per line, 0 or (set + 1) << 8 |
 * way where the line was found last time (HINT_NO_WAY: only the set is
 * known); the set of a line never changes, and the way is trusted only if
 * that way's tag is the line. */
static inline __attribute__((always_inline)) uint32_t pcie_run(hier *h, int write, uint64_t first, uint32_t n,
                                                               int head_partial, int tail_partial,
                                                               uint32_t *part_hits, uint64_t *hints)
{
    struct hier_fast *const f = hier_fast_of(h);
    const cache_view v = cache_view_of(&h->llc);
    const uint32_t slots = h->llc.tag_slots, ways = h->llc.ways;
    const enum coh_req req_full = write ? REQ_PCIE_WR_FULL : REQ_PCIE_RD;
    /* What only the line code below needs (the run's first and last lines,
     * mostly) is read from h there, not kept for the whole run. */
    /* The tight loop: LRU / BIP with their order words in the set blocks. */
    const int lean = f->llc_lean;
    const uint32_t repl_off = f->llc_repl_off;
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
    const uint64_t plain_tight = f->run_plain[write];
    /* The full lines' drop ways (an L2 (S) copy is dropped first). */
    const uint64_t drop_tight = write ? f->run_drop : 0;
    /* The same for a partial write (the run's tail line). */
    const uint64_t plain_part = write ? f->run_plain_part : 0;
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
                f->tight_lines += i - start;
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
                        l2_drop_any(h, dline);
                        repl_order_hit((uint64_t *)(void *)(blk + repl_off), w);
                        blk[v.meta_off + w] = ST_M;
                        cnt[f->fast_col[w]]++;
                        hits++;
                        f->tight_lines++;
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
                        rp->hit_col[f->fast_col[w]]++;
                        phits++;
                        hits++;
                        f->tight_lines++;
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
            } else if (hints && !write && f->rd_miss_fast) {
                /* A read run's line that left its way: most often to a
                 * core's L2 in E/M (a packet's first line), which puts it
                 * in no LLC way (non-inclusive), so the snoop filter
                 * (which access_pcie_rd_miss asks anyway) goes first. */
                rd_meta = l2_meta_of(h, line);
                if (rd_meta && coh_l2_col((enum coh_state)META_STATE(*rd_meta)) == COL_L2_EM) {
                    hier_result r;
                    uint32_t way = pcie_rd_miss_at(h, line, set, rd_meta, &r);
                    hits++;
                    f->rd_owned++;
                    hints[k] = (uint64_t)(set + 1) << 8 | (way < ways ? way : HINT_NO_WAY);
                    continue;
                }
                match = match_tags(t, slots, line);
            } else {
                match = match_tags(t, slots, line);
            }
            const enum coh_req req = partial ? REQ_PCIE_WR_PART : req_full;
            const uint64_t drop = f->drop_ways[req];
            if (match & (f->fast_ways[req] | drop)) {
                uint32_t way = (uint32_t)__builtin_ctzll(match);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
                assert((((h->cfg.shared_mask >> way) & 1) || snoop_get(&h->sf, line) < 0) &&
                       "a DDIO/L3* line with an L2 copy");
                assert(match == match_in(&h->llc, set, line));
#endif
                if (match & drop) {
                    l2_drop_any(h, line);
                }
                uint8_t *meta = cache_view_meta(v, set, way);
                if (f->llc_nibble) {
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
                    rs->hit_col[f->fast_col[way]]++;
                    phits++;
                } else {
                    cnt[f->fast_col[way]]++;
                }
                hits++;
                if (hints)
                    hints[k] = (uint64_t)(set + 1) << 8 | way;
            } else {
                hier_result r;
                uint32_t hint_way = HINT_NO_WAY;
                if (!write && !match && f->rd_miss_fast) {
                    /* The Shared way a copy went to, for the next DMA (the first data line's write);
                     * with hints the snoop filter was asked above. */
                    uint32_t way = hints ? pcie_rd_miss_at(h, line, set, rd_meta, &r) : access_pcie_rd_miss(h, line, set, &r);
                    if (way < ways)
                        hint_way = way;
                } else if (write && !match && f->wr_miss_fast[partial ? REQ_PCIE_WR_PART : req_full]) {
                    hier_pcie_wr_miss(h, partial ? REQ_PCIE_WR_PART : req_full, line, set, &r);
                } else {
                    hier_access_general(h, partial ? REQ_PCIE_WR_PART : req_full, 0, line, set, match, &r);
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
    if (part_hits)
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
    if (hints)
        return pcie_run(h, 0, first, n, 0, 0, NULL, hints);
    return pcie_run(h, 0, first, n, 0, 0, NULL, NULL);
}

uint32_t hier_dma_run(hier *h, const hier_dma *d, uint64_t *hints, uint32_t *part_hits)
{
    if (d->write)
        return hier_pcie_write_run(h, d->first, d->n, d->head_partial, d->tail_partial, part_hits, hints);
    if (part_hits)
        *part_hits = 0;
    return hier_pcie_read_run(h, d->first, d->n, hints);
}
