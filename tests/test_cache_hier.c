/* test_cache_hier.c - the hierarchy beyond single Table 1 cells: buffer
 * life cycles, counters, cross-core migration, masks, the snoop filter. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cache/hier_test.h"
#include "sim/common/rng.h"

/* A small two-level configuration: an LLC of 2 slices x 8 sets x 6 ways
 * (DDIO ways 0x30), L2s of 4 sets x 2 ways. */
static void small_config(hier_config *cp, enum hier_mode mode, uint32_t cores, enum cache_mapping map)
{
    hier_config c;
    hier_config_default(&c);
    c.mode = mode;
    c.llc = (cache_geom){.line_size = 64, .slices = 2, .sets_per_slice = 8, .ways = 6, .mapping = map, .seed = 3};
    c.l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 4, .ways = 2, .mapping = MAP_MODULO};
    c.cores = cores;
    c.ddio_mask = 0x30;
    c.shared_mask = mode == HIER_NONINCLUSIVE ? 0x03 : 0;
    c.n_cos = 2;
    c.cos_mask[0] = mode == HIER_NONINCLUSIVE ? 0x0C : 0x0F;
    c.cos_mask[1] = 0x08;
    for (uint32_t i = 0; i < cores; i++)
        c.core_cos[i] = (uint8_t)(i % 2);
    *cp = c;
}

static void small(hier *h, enum hier_mode mode, uint32_t cores, enum cache_mapping map)
{
    hier_config c;
    small_config(&c, mode, cores, map);
    ddio_err e;
    cr_assert_eq(hier_init(h, &c, &e), 0, "%s", e.msg);
}

/* The forwarding life cycle of one buffer line on Skylake: NIC write ->
 * core read/write -> NIC read -> NIC write again (the paper's Fig. 5). */
Test(cache_hier, forwarding_cycle_skylake)
{
    hier h;
    small(&h, HIER_NONINCLUSIVE, 1, MAP_MODULO);
    hier_result r;
    uint64_t L = 100;
    hier_access(&h, REQ_PCIE_WR_FULL, 0, L, 0, &r);
    cr_expect(!r.hit);
    cr_expect_eq(hier_locate(&h, L).llc_region, REG_DDIO);
    hier_access(&h, REQ_CORE_RD, 0, L, 0, &r);
    cr_expect(r.hit);
    cr_expect_eq(r.region, REG_DDIO);
    hier_access(&h, REQ_CORE_WR, 0, L, 0, &r);
    cr_expect(r.hit);
    cr_expect_eq(r.region, REG_L2);
    hier_where w = hier_locate(&h, L);
    cr_expect_eq(w.l2_state, ST_M);
    cr_expect_eq(w.llc_region, REG_MEM);
    hier_access(&h, REQ_PCIE_RD, 0, L, 0, &r);
    cr_expect(r.hit);
    cr_expect_eq(r.col, COL_L2_EM);
    w = hier_locate(&h, L);
    cr_expect_eq(w.llc_region, REG_SHARED);
    cr_expect_eq(w.l2_state, ST_S);
    hier_access(&h, REQ_PCIE_WR_FULL, 0, L, 0, &r);
    cr_expect(r.hit);
    cr_expect_eq(r.col, COL_SHARED);
    w = hier_locate(&h, L);
    cr_expect_eq(w.llc_region, REG_SHARED, "a PCIe write hit leaves the line in the Shared ways");
    cr_expect_eq(w.l2_core, -1, "and invalidates the S copy");
    /* Counters: 2 PCIe writes (1 hit), 1 PCIe read hit, 2 core accesses. */
    cr_expect_eq(h.stats.req[REQ_PCIE_WR_FULL].accesses, 2);
    cr_expect_eq(h.stats.req[REQ_PCIE_WR_FULL].hits, 1);
    cr_expect_eq(h.stats.req[REQ_PCIE_WR_FULL].hit_col[COL_SHARED], 1);
    cr_expect_eq(h.stats.req[REQ_PCIE_RD].hits, 1);
    cr_expect_eq(h.stats.req[REQ_PCIE_RD].hit_col[COL_L2_EM], 1);
    cr_expect_eq(h.stats.req[REQ_CORE_RD].hit_col[COL_DDIO], 1);
    cr_expect_eq(h.stats.req[REQ_CORE_WR].l2_hits, 1);
    uint64_t mem = 0;
    for (int q = 0; q < REQ_COUNT; q++)
        mem += h.stats.req[q].mem_reads + h.stats.req[q].mem_writebacks;
    cr_expect_eq(mem, 0, "a cycle that fits in the cache never touches memory");
    hier_free(&h);
}

Test(cache_hier, core_write_upgrade_of_shared_copy)
{
    hier h;
    small(&h, HIER_NONINCLUSIVE, 1, MAP_MODULO);
    hier_result r;
    hier_access(&h, REQ_CORE_WR, 0, 7, 0, &r);
    hier_access(&h, REQ_PCIE_RD, 0, 7, 0, &r);          /* Shared(M) + L2(S) */
    hier_access(&h, REQ_CORE_WR, 0, 7, 0, &r);          /* upgrade */
    cr_expect(r.hit);
    cr_expect_eq(r.col, COL_L2_S);
    hier_where w = hier_locate(&h, 7);
    cr_expect_eq(w.l2_state, ST_M);
    cr_expect_eq(w.llc_region, REG_MEM, "non-inclusive: the writer takes the line out of the LLC");
    hier_free(&h);
}

Test(cache_hier, remote_l2_migrates)
{
    hier h;
    small(&h, HIER_NONINCLUSIVE, 2, MAP_MODULO);
    hier_result r;
    hier_access(&h, REQ_CORE_WR, 0, 9, 0, &r);
    cr_expect_eq(hier_locate(&h, 9).l2_core, 0);
    hier_access(&h, REQ_CORE_RD, 1, 9, 0, &r);
    cr_expect(r.hit);
    cr_expect_eq(r.region, REG_L2);
    hier_where w = hier_locate(&h, 9);
    cr_expect_eq(w.l2_core, 1);
    cr_expect_eq(w.l2_state, ST_M, "dirty data moves with the line");
    cr_expect_eq(h.stats.req[REQ_CORE_RD].l2_hits, 1);
    hier_free(&h);
}

Test(cache_hier, cat_class_of_core_decides_l3star_ways)
{
    /* Core 1 is in class 1 (mask 0x08): its L2 victims may only use way 3. */
    hier h;
    small(&h, HIER_NONINCLUSIVE, 2, MAP_MODULO);
    hier_result r;
    /* L2 has 4 sets x 2 ways (modulo): lines 0, 4, 8 share L2 set 0. */
    hier_access(&h, REQ_CORE_WR, 1, 0, 0, &r);
    hier_access(&h, REQ_CORE_WR, 1, 4, 0, &r);
    hier_access(&h, REQ_CORE_WR, 1, 8, 0, &r);
    cr_assert_eq(hier_locate(&h, 0).llc_region, REG_L3);
    uint32_t set = cache_set(&h.llc, 0);
    cr_expect_eq(cache_find(&h.llc, set, 0), 3);
    hier_free(&h);
}

Test(cache_hier, invalid_configs_rejected)
{
    hier_config c;
    ddio_err e;
    hier_config_default(&c);
    c.ddio_mask = 0x800;   /* way 11 of an 11-way LLC */
    cr_expect_eq(hier_config_validate(&c, &e), -1);
    cr_expect_str_eq(e.msg, "ddio_mask: 0x800 selects ways beyond the 11 of the LLC");
    hier_config_default(&c);
    c.cos_mask[0] = 0;
    cr_expect_eq(hier_config_validate(&c, &e), -1);
    cr_expect_str_eq(e.msg, "cat: class 0 mask 0x0 must select at least one of the 11 LLC ways");
    hier_config_default(&c);
    c.mode = HIER_INCLUSIVE;
    cr_expect_eq(hier_config_validate(&c, &e), -1);
    cr_expect_str_eq(e.msg, "shared_mask: an inclusive LLC has no Shared ways (set it to 0)");
    hier_config_default(&c);
    c.core_cos[0] = 3;
    cr_expect_eq(hier_config_validate(&c, &e), -1);
    cr_expect_str_eq(e.msg, "cat: core 0 uses class 3 but only 1 are defined");
    hier_config_default(&c);
    c.l2.line_size = 128;
    cr_expect_eq(hier_config_validate(&c, &e), -1);
    cr_expect_str_eq(e.msg, "l2: line size 128 differs from the LLC's 64");
    hier_config_default(&c);
    c.llc.ways = 65;
    cr_expect_eq(hier_config_validate(&c, &e), -1);
    cr_expect_str_eq(e.msg, "llc: 65 ways is out of range [1, 64]");
    hier_config_default(&c);
    cr_expect_eq(hier_config_validate(&c, &e), 0);
}

/* Random requests on small hierarchies: the hierarchy's own asserts check
 * its invariants on every access (non-inclusive: no line in L2 E/M and the
 * LLC at once; inclusive: every L2 line has an LLC copy); here we also check
 * that each miss allocated its line inside the right ways, and that the
 * snoop filter and the L2s agree. */
static void random_walk(enum hier_mode mode, enum cache_mapping map, uint64_t seed)
{
    hier h;
    small(&h, mode, 3, map);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    for (int i = 0; i < 20000; i++) {
        enum coh_req q = (enum coh_req)ddio_rng_below(&rng, REQ_EVICT);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 3);
        uint64_t line = ddio_rng_below(&rng, 200);
        hier_result r;
        hier_access(&h, q, core, line, 0, &r);
        hier_where w = hier_locate(&h, line);
        if (!r.hit && (q == REQ_PCIE_WR_FULL || q == REQ_PCIE_WR_PART))
            cr_assert_eq(w.llc_region, REG_DDIO, "PCIe write miss allocated outside the DDIO ways");
        if (!r.hit && q == REQ_PCIE_RD)
            cr_assert_eq(w.llc_region, REG_MEM, "PCIe read miss must not allocate");
        if (mode == HIER_NONINCLUSIVE && r.col == COL_L2_EM && q == REQ_PCIE_RD)
            cr_assert_eq(w.llc_region, REG_SHARED);
        if (mode == HIER_INCLUSIVE && !r.hit && (q == REQ_CORE_RD || q == REQ_CORE_WR)) {
            uint32_t set = cache_set(&h.llc, line);
            int way = cache_find(&h.llc, set, line);
            cr_assert(way >= 0 && ((h.cfg.cos_mask[h.cfg.core_cos[core]] >> way) & 1),
                      "core miss allocated outside its CAT mask");
        }
        if (q == REQ_CORE_RD || q == REQ_CORE_WR)
            cr_assert_eq(w.l2_core, (int)core);
    }
    /* Snoop filter <-> L2 agreement, and the occupancy count. */
    uint64_t l2_lines = 0;
    for (uint32_t c = 0; c < 3; c++)
        l2_lines += cache_count_valid(&h.l2[c], h.l2[c].full_mask);
    cr_expect_eq(l2_lines, h.sf.count);
    uint64_t occ[REG_COUNT];
    hier_occupancy(&h, occ);
    cr_expect_eq(occ[REG_L2], l2_lines);
    cr_expect_eq(occ[REG_DDIO] + occ[REG_SHARED] + occ[REG_L3], cache_count_valid(&h.llc, h.llc.full_mask));
    hier_free(&h);
}

Test(cache_hier, random_walk_invariants)
{
    random_walk(HIER_NONINCLUSIVE, MAP_MODULO, 1);
    random_walk(HIER_NONINCLUSIVE, MAP_RANDOM, 2);
    random_walk(HIER_INCLUSIVE, MAP_XOR, 3);
    random_walk(HIER_INCLUSIVE, MAP_RANDOM, 4);
}

/* The snoop filter against a reference array; keys `stride` apart
 * (consecutive lines, and a power of two apart: snoop_home's worst
 * patterns for clustering), with wrap-around and backward shifts. */
static void snoop_reference_walk(uint64_t stride, uint64_t seed)
{
    snoop_filter sf;
    ddio_err e;
    cr_assert_eq(snoop_init(&sf, 64, &e), 0);
    int ref[512];
    uint32_t ref_way[512] = {0};
    for (int i = 0; i < 512; i++)
        ref[i] = -1;
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    for (int i = 0; i < 100000; i++) {
        uint64_t line = ddio_rng_below(&rng, 512);
        if (ddio_rng_below(&rng, 2) && (ref[line] >= 0 || sf.count < 64)) {
            /* Cores and ways over their whole ranges (both share a 16-bit value). */
            int core = i % 3 ? (int)ddio_rng_below(&rng, 7) : (int)ddio_rng_below(&rng, SNOOP_MAX_CORES);
            uint32_t way = i % 2 ? (uint32_t)ddio_rng_below(&rng, SNOOP_MAX_WAYS) : 0;
            if (i % 5 == 0) {
                /* Through the slot snoop_find names: the line's or the empty one ending its chain. */
                uint64_t slot = snoop_find(&sf, line * stride);
                cr_assert(sf.keys[slot] == (ref[line] >= 0 ? line * stride : UINT64_MAX));
                snoop_put_way_at(&sf, slot, line * stride, core, way);
            } else if (way) {
                snoop_put_way(&sf, line * stride, core, way);   /* strided keys collide in the hash */
            } else {
                snoop_put(&sf, line * stride, core);
            }
            ref[line] = core;
            ref_way[line] = way;
        } else {
            /* Half the erasures through the slot snoop_get_slot names. */
            uint64_t slot = UINT64_MAX;
            uint32_t sway = UINT32_MAX;
            int owner = snoop_get_slot(&sf, line * stride, &sway, &slot);
            cr_assert_eq(owner, ref[line]);
            if (owner >= 0) {
                cr_assert_eq(sway, ref_way[line]);
                cr_assert_eq(sf.keys[slot], line * stride);
            }
            if (owner >= 0 && i % 2)
                snoop_erase_slot(&sf, slot);
            else
                snoop_erase(&sf, line * stride);
            ref[line] = -1;
        }
        uint64_t probe = ddio_rng_below(&rng, 512);
        uint32_t way = UINT32_MAX;
        cr_assert_eq(snoop_get_way(&sf, probe * stride, &way), ref[probe]);
        cr_assert_eq(snoop_get(&sf, probe * stride), ref[probe]);
        if (ref[probe] >= 0)
            cr_assert_eq(way, ref_way[probe]);
    }
    snoop_free(&sf);
}

Test(cache_hier, snoop_filter_matches_reference)
{
    snoop_reference_walk(4096, 11);
    snoop_reference_walk(1, 12);
    snoop_reference_walk(1ull << 40, 13);
}

Test(cache_hier, clflush_writes_back_and_drops)
{
    hier h;
    small(&h, HIER_NONINCLUSIVE, 1, MAP_MODULO);
    hier_result r;
    hier_access(&h, REQ_PCIE_WR_FULL, 0, 5, 0, &r);   /* DDIO(M) */
    hier_flush(&h, 5, &r);
    cr_expect(r.hit);
    cr_expect_eq(r.region, REG_DDIO);
    cr_expect_eq(r.mem_writebacks, 1);
    cr_expect_eq(hier_locate(&h, 5).llc_region, REG_MEM);
    hier_access(&h, REQ_CORE_RD, 0, 6, 0, &r);        /* L2(S), clean */
    hier_flush(&h, 6, &r);
    cr_expect_eq(r.region, REG_L2);
    cr_expect_eq(r.mem_writebacks, 0);
    cr_expect_eq(hier_locate(&h, 6).l2_core, -1);
    hier_flush(&h, 7, &r);
    cr_expect(!r.hit);
    cr_expect_eq(h.stats.flushes, 3);
    cr_expect_eq(h.stats.flush_writebacks, 1);
    hier_free(&h);
}

/* Inclusive LLC: the eviction of a line an L2 holds in M back-invalidates
 * that copy, whose dirt goes to memory (Table 1's eviction row, L2_DROP).
 * An LLC of 4 sets x 6 ways (core ways 0x0F) under L2s of 16 sets x 2
 * ways, both modulo: lines 4 apart share an LLC set and not an L2 set, so
 * four reads after the write evict the written line from the LLC while its
 * L2 copy stays.  On both the fast and the general path. */
static void back_invalidation_writes_back(int general)
{
    hier_config c;
    small_config(&c, HIER_INCLUSIVE, 1, MAP_MODULO);
    c.llc = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 4, .ways = 6, .mapping = MAP_MODULO};
    c.l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 16, .ways = 2, .mapping = MAP_MODULO};
    hier h;
    ddio_err e;
    cr_assert_eq(hier_init(&h, &c, &e), 0, "%s", e.msg);
    hier_set_general_only(&h, general);
    const uint64_t X = 1;
    hier_result r;
    hier_access(&h, REQ_CORE_WR, 0, X, 0, &r);   /* from memory: L2 (M), an LLC copy */
    cr_assert_eq(hier_locate(&h, X).l2_state, ST_M);
    cr_assert_eq(h.stats.req[REQ_CORE_WR].mem_reads, 1);
    uint64_t wb = 0, evictions = 0;
    for (uint64_t k = 1; k <= 4; k++) {
        hier_access(&h, REQ_CORE_RD, 0, X + 4 * k, 0, &r);   /* the same LLC set, L2 sets 5, 9, 13, 1 */
        cr_assert(!r.hit);
        wb += r.mem_writebacks;
        evictions = h.stats.llc_evictions;
        if (k < 4) {
            cr_assert_eq(r.mem_writebacks, 0, "read %llu", (unsigned long long)k);
            cr_assert_eq(hier_locate(&h, X).l2_state, ST_M, "read %llu", (unsigned long long)k);
        }
    }
    /* The fifth core line in four core ways: X (the least recent) leaves
     * the LLC and, inclusive, core 0's L2, dirty. */
    cr_assert_eq(evictions, 1);
    cr_assert_eq(wb, 1);
    cr_assert_eq(h.stats.req[REQ_CORE_RD].mem_writebacks, 1);
    const hier_where w = hier_locate(&h, X);
    cr_assert_eq(w.l2_core, -1);
    cr_assert_eq(w.llc_region, REG_MEM);
    /* X + 16 shares X's L2 set: had X stayed there, this read would have
     * evicted a dirty line; now the set has room and nothing is written. */
    hier_access(&h, REQ_CORE_RD, 0, X + 16, 0, &r);
    cr_assert_eq(r.mem_writebacks, 0);
    /* Clean copies: X + 4 .. X + 16 (E) leave the LLC and their L2s with
     * four more reads, and nothing is written. */
    const uint64_t before = h.stats.req[REQ_CORE_RD].mem_writebacks;
    for (uint64_t k = 6; k <= 9; k++)
        hier_access(&h, REQ_CORE_RD, 0, X + 4 * k, 0, &r);
    cr_assert_eq(h.stats.req[REQ_CORE_RD].mem_writebacks, before);
    cr_assert_eq(hier_locate(&h, X + 4).l2_core, -1);
    hier_free(&h);
}

Test(cache_hier, inclusive_back_invalidation_writes_back_dirt)
{
    back_invalidation_writes_back(0);
    back_invalidation_writes_back(1);
}

/* ------------------------------------------- fast paths vs general path
 *
 * Each fast-path test runs the same requests through two hierarchies of one
 * configuration, the second on the general path only, and compares every
 * result, every line's place, the counters and the raw set blocks. */

/* A write DMA of n lines from `first` (the first / last written in part
 * when head / tail) through the public entry, hier_dma_run. */
static uint32_t write_run(hier *h, uint64_t first, uint32_t n, int head, int tail, hier_hint_word *hints,
                          uint32_t *part_hits)
{
    const hier_dma d = {.first = first, .n = n, .write = 1, .head_partial = (uint8_t)head,
                        .tail_partial = (uint8_t)tail};
    return hier_dma_run(h, &d, hints, part_hits);
}

/* A read DMA of n lines from `first`, the same way. */
static uint32_t read_run(hier *h, uint64_t first, uint32_t n, hier_hint_word *hints)
{
    const hier_dma d = {.first = first, .n = n};
    return hier_dma_run(h, &d, hints, NULL);
}

/* The small hierarchy the fast-path tests start from (each adjusts it):
 * LLC 2 slices x 4 sets x 6 ways (xor), L2 2 sets x 2 ways, 3 cores, DDIO
 * 0x30, Shared 0x03 (non-inclusive), core 2 in a class of its own (0x08). */
static hier_config pair_config(enum hier_mode mode, const char *llc_policy, const char *l2_policy)
{
    hier_config c;
    hier_config_default(&c);
    c.mode = mode;
    c.llc = (cache_geom){.line_size = 64, .slices = 2, .sets_per_slice = 4, .ways = 6, .mapping = MAP_XOR};
    c.l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 2, .ways = 2, .mapping = MAP_MODULO};
    c.cores = 3;
    c.ddio_mask = 0x30;
    c.shared_mask = mode == HIER_NONINCLUSIVE ? 0x03 : 0;
    c.n_cos = 2;
    c.cos_mask[0] = mode == HIER_NONINCLUSIVE ? 0x0C : 0x0F;
    c.cos_mask[1] = 0x08;
    c.core_cos[2] = 1;
    snprintf(c.llc_repl.name, sizeof c.llc_repl.name, "%s", llc_policy);
    if (l2_policy)
        snprintf(c.l2_repl.name, sizeof c.l2_repl.name, "%s", l2_policy);
    return c;
}

static void pair_init(hier h[2], const hier_config *c)
{
    for (int k = 0; k < 2; k++) {
        ddio_err e;
        cr_assert_eq(hier_init(&h[k], c, &e), 0, "%s", e.msg);
    }
    hier_set_general_only(&h[1], 1);
}

static void pair_expect_same_result(const hier_result *a, const hier_result *b, int i, const char *what,
                                    unsigned long long line)
{
    cr_assert(a->hit == b->hit && a->col == b->col && a->region == b->region && a->mem_reads == b->mem_reads &&
                  a->mem_writebacks == b->mem_writebacks,
              "access %d (%s) of line %llu differs", i, what, line);
}

/* The whole result of access i, byte for byte. */
static void pair_expect_same_access(const hier_result *a, const hier_result *b, int i, enum coh_req q, uint32_t core,
                                    uint64_t line)
{
    cr_assert_eq(memcmp(a, b, sizeof *a), 0, "access %d: %s by core %u of line %llu differs", i, coh_req_name(q), core,
                 (unsigned long long)line);
}

/* Lines 0..lines-1 are where the general path puts them. */
static void pair_expect_same_places(hier h[2], uint64_t lines, int i)
{
    for (uint64_t l = 0; l < lines; l++) {
        hier_where a = hier_locate(&h[0], l), b = hier_locate(&h[1], l);
        cr_assert(a.l2_core == b.l2_core && a.l2_state == b.l2_state && a.llc_region == b.llc_region &&
                      a.llc_state == b.llc_state,
                  "after access %d line %llu is not where the general path puts it", i, (unsigned long long)l);
    }
}

/* Same counters and same ways (the replacement state evolved identically). */
static void pair_expect_same_state_and_free(hier h[2])
{
    cr_expect_eq(memcmp(&h[0].stats, &h[1].stats, sizeof h[0].stats), 0, "counters differ");
    cr_expect_eq(memcmp(h[0].llc.blocks, h[1].llc.blocks, h[0].llc.block_bytes * h[0].llc.nsets), 0);
    /* The L2 blocks but the lean entry's hint bytes (guesses of the fast
     * path's own, which the general path leaves 0). */
    const uint32_t hint = hier_paths_of(&h[0]).l2_hint_off;
    for (uint32_t c = 0; c < h[0].cfg.cores; c++) {
        const uint64_t bb = h[0].l2[c].block_bytes;
        for (uint32_t s = 0; s < h[0].l2[c].nsets; s++) {
            const uint8_t *a = h[0].l2[c].blocks + s * bb, *b = h[1].l2[c].blocks + s * bb;
            const uint64_t cut = hint ? hint : bb;
            cr_expect_eq(memcmp(a, b, cut), 0, "L2 %u set %u differs", c, s);
            if (hint)
                cr_expect_eq(memcmp(a + cut + HIER_L2_HINT_BYTES, b + cut + HIER_L2_HINT_BYTES,
                                    bb - cut - HIER_L2_HINT_BYTES),
                             0, "L2 %u set %u differs", c, s);
        }
    }
    for (int k = 0; k < 2; k++)
        hier_free(&h[k]);
}

/* The fast paths (hier_fast.c, hier_run.c: LLC_KEEP cells in ways without
 * L2 copies, a core's own L2 hits, inline LRU updates, the DMA runs) against the general
 * path alone: the same random requests, single and in runs, must give the
 * same results, the same counters and every line in the same place. */
static void fast_equals_general(enum hier_mode mode, enum cache_mapping map, const char *policy, uint64_t seed)
{
    hier_config c = pair_config(mode, policy, NULL);
    c.llc = (cache_geom){.line_size = 64, .slices = 3, .sets_per_slice = 8, .ways = 6, .mapping = map, .seed = 3};
    c.l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 4, .ways = 3, .mapping = MAP_MODULO};
    c.core_cos[2] = 0;
    c.core_cos[1] = 1;
    hier h[2];
    pair_init(h, &c);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t lines = 300;
    /* Line hints for the run calls, per absolute line; every other run
     * goes without them. */
    hier_hint_word *hints = calloc(lines + 64, sizeof *hints);
    for (int i = 0; i < 30000; i++) {
        uint32_t kind = (uint32_t)ddio_rng_below(&rng, 8);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 3);
        uint64_t line = ddio_rng_below(&rng, lines);
        if (kind < 2) {
            /* A DMA run, through the run call and line by line. */
            uint32_t n = 1 + (uint32_t)ddio_rng_below(&rng, 40);
            if (kind == 0) {
                int head = (int)ddio_rng_below(&rng, 2), tail = (int)ddio_rng_below(&rng, 2);
                uint32_t ph, ref = 0, ref_ph = 0;
                uint32_t hits = write_run(&h[0], line, n, head, tail, i % 2 ? hints + line : NULL, &ph);
                for (uint32_t j = 0; j < n; j++) {
                    int partial = (j == 0 && head) || (j == n - 1 && tail);
                    hier_result r;
                    hier_access(&h[1], partial ? REQ_PCIE_WR_PART : REQ_PCIE_WR_FULL, 0, line + j, 0, &r);
                    ref += r.hit;
                    ref_ph += (uint32_t)(r.hit && partial);
                }
                cr_assert_eq(hits, ref);
                cr_assert_eq(ph, ref_ph);
            } else {
                uint32_t hits = read_run(&h[0], line, n, i % 2 ? hints + line : NULL), ref = 0;
                for (uint32_t j = 0; j < n; j++) {
                    hier_result r;
                    hier_access(&h[1], REQ_PCIE_RD, 0, line + j, 0, &r);
                    ref += r.hit;
                }
                cr_assert_eq(hits, ref);
            }
        } else if (kind == 7) {
            hier_result a, b;
            hier_flush(&h[0], line, &a);
            hier_flush(&h[1], line, &b);
            cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
        } else {
            enum coh_req q = (enum coh_req)(kind - 2 < REQ_EVICT ? kind - 2 : REQ_CORE_RD);
            hier_result a, b;
            hier_access(&h[0], q, core, line, 0, &a);
            hier_access(&h[1], q, core, line, 0, &b);
            pair_expect_same_result(&a, &b, i, coh_req_name(q), (unsigned long long)line);
        }
        if (i % 1000 == 0 || i == 29999)
            pair_expect_same_places(h, lines + 40, i);
    }
    /* The views the run calls read blocks through agree with the accessors. */
    cache_view v = cache_view_of(&h[0].llc);
    for (uint32_t set = 0; set < h[0].llc.nsets; set++)
        for (uint32_t w = 0; w < h[0].llc.ways; w++) {
            cr_assert_eq(cache_view_tags(v, set), cache_tags(&h[0].llc, set));
            cr_assert_eq(cache_view_meta(v, set, w), cache_meta(&h[0].llc, set, w));
        }
    free(hints);
    pair_expect_same_state_and_free(h);
}

/* A zero hint word (a line no run met yet) sends the runs' tight loop to
 * way 0 of the guard block before set 0 (cache.h), whose tags hold no
 * line: the guard's tags, and runs over line 0 (the line a zeroed tag
 * would name) with zero hints against the general path. */
Test(cache_hier, a_zero_hint_meets_the_guard_block)
{
    hier_config c = pair_config(HIER_NONINCLUSIVE, "lru", NULL);
    hier h[2];
    pair_init(h, &c);
    const uint64_t *guard = (const uint64_t *)(const void *)(h[0].llc.blocks - h[0].llc.block_bytes);
    for (uint32_t w = 0; w < h[0].llc.tag_slots; w++)
        cr_assert_eq(guard[w], CACHE_INVALID);
    for (int round = 0; round < 3; round++) {
        hier_hint_word hints[8] = {0};   /* fresh each round: zero hints on lines the LLC holds */
        uint32_t ph, ref = 0;
        cr_assert_eq(write_run(&h[0], 0, 8, 0, 0, hints, &ph), round ? 8u : 0u);
        for (uint64_t l = 0; l < 8; l++) {
            hier_result r;
            hier_access(&h[1], REQ_PCIE_WR_FULL, 0, l, 0, &r);
            ref += r.hit;
        }
        cr_assert_eq(ref, round ? 8u : 0u);
        memset(hints, 0, sizeof hints);
        cr_assert_eq(read_run(&h[0], 0, 8, hints), 8u);
        for (uint64_t l = 0; l < 8; l++) {
            hier_result r;
            hier_access(&h[1], REQ_PCIE_RD, 0, l, 0, &r);
        }
        pair_expect_same_places(h, 8, round);
    }
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, fast_paths_equal_general_path)
{
    fast_equals_general(HIER_NONINCLUSIVE, MAP_XOR, "lru", 1);
    fast_equals_general(HIER_NONINCLUSIVE, MAP_MODULO, "srrip", 2);
    fast_equals_general(HIER_NONINCLUSIVE, MAP_RANDOM, "bip", 3);
    fast_equals_general(HIER_NONINCLUSIVE, MAP_XOR, "drrip", 4);
    fast_equals_general(HIER_INCLUSIVE, MAP_XOR, "lru", 5);
    fast_equals_general(HIER_INCLUSIVE, MAP_MODULO, "dip", 6);
    fast_equals_general(HIER_NONINCLUSIVE, MAP_XOR, "QLRU_H11_M1_R0_U0", 7);
    fast_equals_general(HIER_NONINCLUSIVE, MAP_MODULO, "duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR31_R0_U1", 8);
    fast_equals_general(HIER_INCLUSIVE, MAP_XOR, "QLRU_H00_M1_R2_U1", 9);
}

/* The DMA runs' tight loop (full lines whose hint names a plain fast way)
 * against the general path: buffers DMAed again and again as the simulator
 * does (a write run, a core reading the first line or others, a read run),
 * with partial heads and tails, stray core accesses and other lines that
 * evict the buffers' lines (stale hints), LRU and BIP in both modes. */
static void tight_runs_equal(enum hier_mode mode, const char *policy, uint32_t llc_ways, uint64_t seed, uint32_t other)
{
    hier_config c = pair_config(mode, policy, policy);
    c.llc = (cache_geom){.line_size = 64, .slices = 3, .sets_per_slice = 8, .ways = llc_ways, .mapping = MAP_XOR, .seed = 5};
    c.l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 4, .ways = 4, .mapping = MAP_MODULO};
    hier h[2];
    pair_init(h, &c);
    /* 9 - 12 ways: the block layout pcie_run's tight loop has as constants. */
    if (llc_ways >= 9 && llc_ways <= 12)
        cr_assert(h[0].llc.block_bytes == 128 && h[0].llc.meta_off == 104 && h[0].llc.repl_off == 120);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    enum { BUFS = 6, BUF_LINES = 12 };
    const uint64_t lines = BUFS * BUF_LINES + other;
    hier_hint_word hints[BUFS * BUF_LINES];
    memset(hints, 0, sizeof hints);
    uint64_t total = 0;
    for (int i = 0; i < 6000; i++) {
        uint32_t b = (uint32_t)ddio_rng_below(&rng, BUFS), core = (uint32_t)ddio_rng_below(&rng, 3);
        uint64_t first = (uint64_t)b * BUF_LINES;
        uint32_t n = 1 + (uint32_t)ddio_rng_below(&rng, BUF_LINES);
        int head = ddio_rng_below(&rng, 4) == 0, tail = ddio_rng_below(&rng, 2) == 0;
        uint32_t ph, ref = 0, ref_ph = 0;
        uint32_t hits = write_run(&h[0], first, n, head, tail, hints + b * BUF_LINES, &ph);
        for (uint32_t j = 0; j < n; j++) {
            int partial = (j == 0 && head) || (j == n - 1 && tail);
            hier_result r;
            hier_access(&h[1], partial ? REQ_PCIE_WR_PART : REQ_PCIE_WR_FULL, 0, first + j, 0, &r);
            ref += r.hit;
            ref_ph += (uint32_t)(r.hit && partial);
        }
        total += n;
        cr_assert_eq(hits, ref, "write run %d", i);
        cr_assert_eq(ph, ref_ph, "write run %d", i);
        /* The core reads the first line (and sometimes writes another, or
         * touches a line elsewhere, which may evict buffer lines). */
        uint32_t kind = (uint32_t)ddio_rng_below(&rng, 8);
        uint64_t l2line = kind < 2 ? first + ddio_rng_below(&rng, n) : BUFS * BUF_LINES + ddio_rng_below(&rng, other);
        for (int k = 0; k < 2; k++) {
            hier_result a, bb;
            hier_access(&h[0], REQ_CORE_RD, core, first, 0, &a);
            hier_access(&h[1], REQ_CORE_RD, core, first, 0, &bb);
            pair_expect_same_result(&a, &bb, i, "core read", (unsigned long long)first);
            if (k == 1 || kind < 5) {
                enum coh_req q = kind % 2 ? REQ_CORE_WR : REQ_CORE_RD;
                hier_access(&h[0], q, core, l2line, 0, &a);
                hier_access(&h[1], q, core, l2line, 0, &bb);
                pair_expect_same_result(&a, &bb, i, "core access", (unsigned long long)l2line);
            }
        }
        hits = read_run(&h[0], first, n, hints + b * BUF_LINES);
        ref = 0;
        for (uint32_t j = 0; j < n; j++) {
            hier_result r;
            hier_access(&h[1], REQ_PCIE_RD, 0, first + j, 0, &r);
            ref += r.hit;
        }
        total += n;
        cr_assert_eq(hits, ref, "read run %d", i);
        if (i % 500 == 0)
            pair_expect_same_places(h, lines, i);
    }
    pair_expect_same_places(h, lines, 6000);
    if (!hier_paths_of(&h[0]).counted)
        ;   /* counts kept in the sanitizer build only */
    else if (mode == HIER_NONINCLUSIVE)   /* inclusive: any LLC line may have an L2 copy, no fast ways */
        cr_assert(hier_paths_of(&h[0]).taken.tight_lines > total / 4, "the tight loop took %llu of %llu lines",
                  (unsigned long long)hier_paths_of(&h[0]).taken.tight_lines, (unsigned long long)total);
    else
        cr_assert_eq(hier_paths_of(&h[0]).taken.tight_lines, 0);
    cr_assert_eq(hier_paths_of(&h[1]).taken.tight_lines, 0);
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, dma_run_tight_loop_equals_general_path)
{
    tight_runs_equal(HIER_NONINCLUSIVE, "lru", 6, 11, 200);
    tight_runs_equal(HIER_NONINCLUSIVE, "bip", 6, 12, 200);
    tight_runs_equal(HIER_INCLUSIVE, "lru", 6, 13, 200);
    tight_runs_equal(HIER_INCLUSIVE, "bip", 6, 14, 200);
    tight_runs_equal(HIER_NONINCLUSIVE, "lru", 11, 15, 200);
    tight_runs_equal(HIER_NONINCLUSIVE, "bip", 12, 16, 200);
    /* The rule kinds' tight loops (hier_run_tight_of), a copy per run
     * direction: QLRU per U on the 9-12-way layout, on others, RRIP; with
     * the same policy in the L2 (QLRU: the lean entry's hint byte).  More
     * other lines: full sets, whose QLRU hits may need U's lift. */
    tight_runs_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", 11, 17, 2000);
    tight_runs_equal(HIER_NONINCLUSIVE, "QLRU_H00_M1_R2_U1", 12, 18, 2000);
    tight_runs_equal(HIER_NONINCLUSIVE, "QLRU_H21_M2_R1_U2", 11, 19, 2000);
    tight_runs_equal(HIER_NONINCLUSIVE, "QLRU_H20_M3_R0_U0_UMO", 10, 20, 2000);
    tight_runs_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", 6, 21, 2000);
    tight_runs_equal(HIER_NONINCLUSIVE, "srrip", 6, 22, 2000);
    tight_runs_equal(HIER_NONINCLUSIVE, "duel:QLRU_H11_M1_R0_U0,QLRU_H11_MR31_R0_U0", 11, 23, 2000);
}

/* Write runs that miss most of their lines (many cores: the DDIO ways
 * hold fewer buffers than circulate): the tight loop's misses (run_miss,
 * taken after a run with many) against the general path.  16 buffers of
 * 12 lines for 16 DDIO slots; a core sometimes reads and writes a
 * buffer's first line, whose next write then meets its L2 copy (no
 * run_miss); evicted DDIO lines are dirty (write-backs). */
static void write_run_misses_equal(uint32_t llc_ways, uint64_t seed)
{
    hier_config c = pair_config(HIER_NONINCLUSIVE, "lru", NULL);
    c.llc.ways = llc_ways;
    hier h[2];
    pair_init(h, &c);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    enum { BUFS = 16, BUF_LINES = 12 };
    hier_hint_word hints[BUFS * BUF_LINES];
    memset(hints, 0, sizeof hints);
    uint64_t total = 0;
    for (int i = 0; i < 3000; i++) {
        const uint32_t b = (uint32_t)ddio_rng_below(&rng, BUFS), core = (uint32_t)ddio_rng_below(&rng, 3);
        const uint64_t first = (uint64_t)b * BUF_LINES;
        const int head = ddio_rng_below(&rng, 4) == 0, tail = ddio_rng_below(&rng, 4) == 0;
        uint32_t ph, ref = 0, ref_ph = 0;
        const uint32_t hits = write_run(&h[0], first, BUF_LINES, head, tail, hints + b * BUF_LINES, &ph);
        for (uint32_t j = 0; j < BUF_LINES; j++) {
            const int partial = (j == 0 && head) || (j == BUF_LINES - 1 && tail);
            hier_result r;
            hier_access(&h[1], partial ? REQ_PCIE_WR_PART : REQ_PCIE_WR_FULL, 0, first + j, 0, &r);
            ref += r.hit;
            ref_ph += (uint32_t)(r.hit && partial);
        }
        cr_assert_eq(hits, ref, "write run %d", i);
        cr_assert_eq(ph, ref_ph, "write run %d", i);
        if (ddio_rng_below(&rng, 3) == 0) {
            for (int k = 0; k < 2; k++) {
                hier_result a, bb;
                const enum coh_req q = k ? REQ_CORE_WR : REQ_CORE_RD;
                hier_access(&h[0], q, core, first, 0, &a);
                hier_access(&h[1], q, core, first, 0, &bb);
                pair_expect_same_result(&a, &bb, i, coh_req_name(q), (unsigned long long)first);
            }
        }
        cr_assert_eq(read_run(&h[0], first, BUF_LINES, hints + b * BUF_LINES),
                     read_run(&h[1], first, BUF_LINES, NULL), "read run %d", i);
        total += BUF_LINES;
        if (i % 300 == 0)
            pair_expect_same_places(h, BUFS * BUF_LINES, i);
    }
    pair_expect_same_places(h, BUFS * BUF_LINES, 3000);
    cr_assert(h[0].stats.req[REQ_PCIE_WR_FULL].mem_writebacks > total / 4, "dirty victims written back");
    if (hier_paths_of(&h[0]).counted)   /* counts kept in the sanitizer build only */
        cr_assert(hier_paths_of(&h[0]).taken.run_misses > total / 2, "run_miss took %llu of %llu lines",
                  (unsigned long long)hier_paths_of(&h[0]).taken.run_misses, (unsigned long long)total);
    cr_assert_eq(hier_paths_of(&h[1]).taken.run_misses, 0);
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, write_run_misses_equal_general_path)
{
    write_run_misses_equal(6, 21);
    write_run_misses_equal(11, 22);   /* the 9 - 12-way block layout as constants */
}

/* The core fast path's L2(S) hits (a read, and a write that upgrades and
 * takes the non-inclusive LLC's Shared copy) and the inline fills and
 * removals (LRU, BIP) against the general path with cache.c's fills: each
 * line first goes to a core's L2 (E/M), a PCIe read leaves it in L2(S)
 * (plus a Shared copy), then that core reads or writes it. */
static void own_l2_shared_equal(enum hier_mode mode, const char *policy)
{
    hier_config c = pair_config(mode, policy, policy);
    c.l2.ways = 4;
    c.cores = 2;
    c.n_cos = 1;
    c.core_cos[2] = 0;
    hier h[2];
    pair_init(h, &c);
    for (uint64_t i = 0; i < 400; i++) {
        uint64_t line = (i * 7) % 61;
        uint32_t core = (uint32_t)(i % 2);
        enum coh_req last = (i / 2) % 2 ? REQ_CORE_WR : REQ_CORE_RD;
        hier_result a[3], b[3];
        for (int k = 0; k < 2; k++) {
            hier_result *r = k ? b : a;
            hier_access(&h[k], REQ_CORE_WR, core, line, 0, &r[0]);
            hier_access(&h[k], REQ_PCIE_RD, 0, line, 0, &r[1]);
            hier_access(&h[k], last, core, line, 0, &r[2]);
        }
        cr_assert_eq(memcmp(a, b, sizeof a), 0, "line %llu", (unsigned long long)line);
        if (mode == HIER_NONINCLUSIVE)   /* inclusive: the PCIe read dropped the L2 copy */
            cr_assert(a[2].col == COL_L2_S && a[2].region == REG_L2);
        pair_expect_same_places(h, 61, (int)i);
        if (mode == HIER_NONINCLUSIVE && last == REQ_CORE_WR)
            cr_assert_eq(hier_locate(&h[0], line).llc_region, REG_MEM, "the upgrade takes the Shared copy");
    }
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, own_l2_shared_hits_and_inline_fills_equal_general_path)
{
    own_l2_shared_equal(HIER_NONINCLUSIVE, "lru");
    own_l2_shared_equal(HIER_NONINCLUSIVE, "bip");
    own_l2_shared_equal(HIER_INCLUSIVE, "lru");
    own_l2_shared_equal(HIER_INCLUSIVE, "srrip");
    own_l2_shared_equal(HIER_NONINCLUSIVE, "drrip");
    own_l2_shared_equal(HIER_NONINCLUSIVE, "QLRU_H00_M1_R2_U1");
}

/* The PCIe fast paths around the Shared ways (hier_fast.c): a write to a
 * Shared-way line that drops its L2(S) copy (drop_ways), a read of a line
 * the non-inclusive LLC misses (in a core's L2 in E/M -> Shared + L2(S), in L2(S), in memory:
 * access_pcie_rd_miss) and of a line in the Shared ways with or without an
 * L2(S) copy (the LLC_KEEP / L2_KEEP cell), single and in runs, against the
 * general path: lines are placed in every column (dirty and clean, the
 * Shared ways small enough to evict dirty lines), then read. */
static void pcie_read_equal(enum hier_mode mode, const char *policy, uint64_t seed)
{
    hier_config c = pair_config(mode, policy, NULL);
    c.l2.sets_per_slice = 4;
    c.l2.ways = 4;
    c.cores = 2;
    c.shared_mask = mode == HIER_NONINCLUSIVE ? 0x01 : 0;
    c.n_cos = 1;
    c.cos_mask[0] = mode == HIER_NONINCLUSIVE ? 0x0E : 0x0F;
    c.core_cos[2] = 0;
    hier h[2];
    pair_init(h, &c);
    cr_assert_eq(hier_paths_of(&h[0]).rd_miss_fast, mode == HIER_NONINCLUSIVE);
    cr_assert_eq(hier_paths_of(&h[1]).rd_miss_fast, 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t lines = 120;
    hier_hint_word hints[128];   /* lines + the longest run */
    memset(hints, 0, sizeof hints);
    uint64_t col_seen[COL_COUNT] = {0}, shared_with_copy = 0;
    for (int i = 0; i < 6000; i++) {
        uint64_t line = ddio_rng_below(&rng, lines);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 2);
        uint32_t kind = (uint32_t)ddio_rng_below(&rng, 6);
        hier_result a, b;
        if (kind < 2) {
            /* Into a core's L2 (E from a read, M from a write). */
            enum coh_req q = kind ? REQ_CORE_WR : REQ_CORE_RD;
            hier_access(&h[0], q, core, line, 0, &a);
            hier_access(&h[1], q, core, line, 0, &b);
        } else if (kind == 2) {
            /* PCIe writes, single and in runs: a Shared-way line with an
             * L2(S) copy takes the drop_ways fast path; every other time
             * the line is put there first (a core write, a PCIe read). */
            if (i % 2)
                for (int k = 0; k < 2; k++) {
                    hier_access(&h[k], REQ_CORE_WR, core, line, 0, &a);
                    hier_access(&h[k], REQ_PCIE_RD, 0, line, 0, &a);
                }
            hier_where w = hier_locate(&h[0], line);
            shared_with_copy += w.llc_region == REG_SHARED && w.l2_core >= 0;
            if (i % 3) {
                enum coh_req q = i % 3 == 1 ? REQ_PCIE_WR_FULL : REQ_PCIE_WR_PART;
                hier_access(&h[0], q, 0, line, 0, &a);
                hier_access(&h[1], q, 0, line, 0, &b);
            } else {
                uint32_t n = 1 + (uint32_t)ddio_rng_below(&rng, 8), ph, ref = 0, ref_ph = 0;
                int head = i % 2, tail = (i / 2) % 2;
                uint32_t hits = write_run(&h[0], line, n, head, tail, i % 4 ? hints + line : NULL, &ph);
                for (uint32_t j = 0; j < n; j++) {
                    int partial = (j == 0 && head) || (j == n - 1 && tail);
                    hier_result r;
                    hier_access(&h[1], partial ? REQ_PCIE_WR_PART : REQ_PCIE_WR_FULL, 0, line + j, 0, &r);
                    ref += r.hit;
                    ref_ph += (uint32_t)(r.hit && partial);
                }
                cr_assert(hits == ref && ph == ref_ph, "write run %d", i);
                continue;
            }
        } else if (kind == 3) {
            uint32_t n = 1 + (uint32_t)ddio_rng_below(&rng, 8);
            uint32_t ha = read_run(&h[0], line, n, i % 2 ? hints + line : NULL), hb = 0;
            for (uint32_t j = 0; j < n; j++) {
                hier_result r;
                hier_access(&h[1], REQ_PCIE_RD, 0, line + j, 0, &r);
                hb += r.hit;
            }
            cr_assert_eq(ha, hb, "read run %d", i);
            continue;
        } else {
            hier_where w = hier_locate(&h[0], line);
            enum coh_col col = w.llc_region != REG_MEM ? (w.llc_region == REG_SHARED ? COL_SHARED : COL_DDIO)
                               : w.l2_core >= 0 ? (w.l2_state == ST_S ? COL_L2_S : COL_L2_EM)
                                                : COL_MEM;
            col_seen[col]++;
            hier_access(&h[0], REQ_PCIE_RD, 0, line, 0, &a);
            hier_access(&h[1], REQ_PCIE_RD, 0, line, 0, &b);
        }
        pair_expect_same_result(&a, &b, i, kind < 2 ? "core" : kind == 2 ? "PCIe write" : "PCIe read",
                                (unsigned long long)line);
        pair_expect_same_places(h, lines + 8, i);
    }
    if (mode == HIER_NONINCLUSIVE)
        cr_assert_gt(shared_with_copy, 50);
    /* Read runs found lines in an L2 in E/M through the snoop filter first. */
    if (!hier_paths_of(&h[0]).counted)
        ;   /* counts kept in the sanitizer build only */
    else if (mode == HIER_NONINCLUSIVE)
        cr_assert_gt(hier_paths_of(&h[0]).taken.rd_owned, 50, "%llu", (unsigned long long)hier_paths_of(&h[0]).taken.rd_owned);
    else
        cr_assert_eq(hier_paths_of(&h[0]).taken.rd_owned, 0);
    if (mode == HIER_NONINCLUSIVE)
        for (int col = COL_SHARED; col <= COL_MEM; col++)
            cr_assert_gt(col_seen[col], 50, "column %s met %llu times", coh_col_name((enum coh_col)col),
                         (unsigned long long)col_seen[col]);
    cr_assert_gt(h[0].stats.req[REQ_PCIE_RD].mem_writebacks + h[0].stats.llc_evictions, 0);
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, pcie_shared_and_miss_fast_paths_equal_general_path)
{
    pcie_read_equal(HIER_NONINCLUSIVE, "lru", 11);
    pcie_read_equal(HIER_NONINCLUSIVE, "bip", 12);
    pcie_read_equal(HIER_NONINCLUSIVE, "srrip", 13);
    pcie_read_equal(HIER_INCLUSIVE, "lru", 14);
    pcie_read_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", 15);
}

/* The core fast path for LLC lines (hier_fast.c access_core_move): a core read or
 * write of a line in the DDIO, L3* or Shared ways, clean or dirty, with or
 * without another core's L2(S) copy (then the general path migrates it),
 * L2s small enough that the moves evict (E/M victims go to L3*, whose own
 * victims go to memory), against the general path. */
#define LLC_COLS_TESTED 3   /* COL_DDIO, COL_L3, COL_SHARED */

static void core_move_equal(const char *policy, uint64_t seed)
{
    hier_config c = pair_config(HIER_NONINCLUSIVE, policy, policy);
    hier h[2];
    pair_init(h, &c);
    cr_assert_neq(hier_paths_of(&h[0]).core_move_ways, 0);
    cr_assert_eq(hier_paths_of(&h[1]).core_move_ways, 0);
    /* LRU at both ends: the move from the layouts in h (hier_fast.c core_move_lean). */
    cr_assert_eq(hier_paths_of(&h[0]).move_lean, strcmp(policy, "lru") == 0);
    cr_assert_eq(hier_paths_of(&h[1]).move_lean, 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t lines = 90;
    uint64_t col_seen[COL_COUNT] = {0}, shared_remote = 0;
    for (int i = 0; i < 8000; i++) {
        uint64_t line = ddio_rng_below(&rng, lines);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 3);
        uint32_t kind = (uint32_t)ddio_rng_below(&rng, 8);
        hier_result a, b;
        enum coh_req q;
        if (kind == 7) {
            /* Clean lines too (every request above leaves them dirty or
             * in S): placed in an LLC column, E or M, when absent. */
            enum coh_col col = (enum coh_col)ddio_rng_below(&rng, LLC_COLS_TESTED);
            int dirty = (int)ddio_rng_below(&rng, 2);
            int pa = hier_place(&h[0], core, line, col, dirty), pb = hier_place(&h[1], core, line, col, dirty);
            cr_assert_eq(pa, pb);
            continue;
        }
        if (kind == 0 || kind >= 5) {
            q = kind == 0 ? REQ_PCIE_WR_FULL : REQ_PCIE_RD;   /* DDIO lines; Shared + L2(S) */
        } else {
            q = kind % 2 ? REQ_CORE_RD : REQ_CORE_WR;
            hier_where w = hier_locate(&h[0], line);
            if (w.llc_region != REG_MEM && w.l2_core != (int)core) {
                col_seen[w.llc_region == REG_DDIO ? COL_DDIO : w.llc_region == REG_SHARED ? COL_SHARED : COL_L3]++;
                shared_remote += w.llc_region == REG_SHARED && w.l2_core >= 0;
            }
        }
        hier_access(&h[0], q, core, line, 0, &a);
        hier_access(&h[1], q, core, line, 0, &b);
        pair_expect_same_access(&a, &b, i, q, core, line);
        pair_expect_same_places(h, lines, i);
    }
    cr_assert(col_seen[COL_DDIO] > 50 && col_seen[COL_L3] > 50 && col_seen[COL_SHARED] > 50 && shared_remote > 10,
              "DDIO %llu, L3* %llu, Shared %llu (%llu with a remote copy)", (unsigned long long)col_seen[COL_DDIO],
              (unsigned long long)col_seen[COL_L3], (unsigned long long)col_seen[COL_SHARED],
              (unsigned long long)shared_remote);
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, core_moves_of_llc_lines_equal_general_path)
{
    core_move_equal("lru", 21);
    core_move_equal("bip", 22);
    core_move_equal("srrip", 23);
    core_move_equal("drrip", 24);
    core_move_equal("QLRU_H11_M1_R0_U0", 25);
}

/* hier_access with a hint (a core request with a DMA hint word: the move from
 * the hint's LLC way without the L2 and LLC lookups), and every other core
 * request through hier_core_rd_hint / hier_core_wr_hint, against hier_access on
 * a general-only hierarchy.  The hints come from the write and read runs
 * of h[0], or name the right set and a random (often wrong) way; lines in
 * every place, with and without another core's L2 (S) copy. */
static void access_hint_equal(enum hier_mode mode, const char *policy, uint64_t seed)
{
    hier_config c = pair_config(mode, policy, policy);
    hier h[2];
    pair_init(h, &c);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t lines = 90;
    hier_hint_word hints[100];   /* lines + the longest run */
    memset(hints, 0, sizeof hints);
    for (int i = 0; i < 8000; i++) {
        uint64_t line = ddio_rng_below(&rng, lines);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 3);
        uint32_t kind = (uint32_t)ddio_rng_below(&rng, 8);
        hier_result a, b;
        if (kind < 2) {
            /* DMA runs keep the hints (a write run drops L2 (S) copies, a read run makes them). */
            uint32_t n = 1 + (uint32_t)ddio_rng_below(&rng, 6), ph, ha, hb = 0;
            if (kind == 0)
                ha = write_run(&h[0], line, n, i % 2, (i / 2) % 2, hints + line, &ph);
            else
                ha = read_run(&h[0], line, n, hints + line);
            for (uint32_t j = 0; j < n; j++) {
                int partial = kind == 0 && ((j == 0 && i % 2) || (j == n - 1 && (i / 2) % 2));
                enum coh_req q = kind == 1 ? REQ_PCIE_RD : partial ? REQ_PCIE_WR_PART : REQ_PCIE_WR_FULL;
                hier_access(&h[1], q, 0, line + j, 0, &b);
                hb += b.hit;
            }
            cr_assert_eq(ha, hb, "run %d", i);
            continue;
        }
        enum coh_req q = kind == 2 ? REQ_PCIE_RD : kind % 2 ? REQ_CORE_RD : REQ_CORE_WR;
        uint64_t hint = hints[line];
        if (kind == 3 || !hint) {
            uint32_t way = (uint32_t)ddio_rng_below(&rng, c.llc.ways + 1);
            hint = hier_hint_at(cache_set(&h[0].llc, line), way == c.llc.ways ? HIER_HINT_NO_WAY : way);
        }
        if (i % 2 && q == REQ_CORE_RD)   /* the fixed-request hint entries */
            hier_core_rd_hint(&h[0], core, line, hint, &a);
        else if (i % 2 && q == REQ_CORE_WR)
            hier_core_wr_hint(&h[0], core, line, hint, &a);
        else
            hier_access(&h[0], q, core, line, hint, &a);
        hier_access(&h[1], q, core, line, 0, &b);
        pair_expect_same_access(&a, &b, i, q, core, line);
        pair_expect_same_places(h, lines + 6, i);
    }
    if (!hier_paths_of(&h[0]).counted)
        ;   /* counts kept in the sanitizer build only */
    else if (mode == HIER_NONINCLUSIVE)
        cr_assert_gt(hier_paths_of(&h[0]).taken.hint_moves, 200, "%llu moves from a hint",
                     (unsigned long long)hier_paths_of(&h[0]).taken.hint_moves);
    else
        cr_assert_eq(hier_paths_of(&h[0]).taken.hint_moves, 0);
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, access_with_hint_equals_general_path)
{
    access_hint_equal(HIER_NONINCLUSIVE, "lru", 41);
    access_hint_equal(HIER_NONINCLUSIVE, "bip", 42);
    access_hint_equal(HIER_NONINCLUSIVE, "srrip", 43);
    access_hint_equal(HIER_INCLUSIVE, "lru", 44);
    access_hint_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", 45);
}

/* Access number i through each entry in turn: hier_access, hier_access_set,
 * the fixed-request entries (hier_access_set_fixed). */
static void access_by_turn(hier *h, int i, enum coh_req q, uint32_t core, uint64_t line, hier_result *r)
{
    if (i % 3 == 1)
        hier_access_set(h, q, core, line, cache_set(&h->llc, line), r);
    else if (i % 3 == 2)
        hier_access_set_fixed(h, q, core, line, cache_set(&h->llc, line), r);
    else
        hier_access(h, q, core, line, 0, r);
}

/* hier_access_set (the caller passes the LLC set, hier_llc_set) on the fast
 * paths against hier_access on a general-only hierarchy: every result,
 * place, counter and raw set block.  `fixed`: through hier_access_set_fixed's
 * entries instead (the reference's PCIe requests keep their random core). */
static void access_set_equal(enum hier_mode mode, const char *policy, uint64_t seed, int fixed)
{
    hier_config c = pair_config(mode, policy, policy);
    hier h[2];
    pair_init(h, &c);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t lines = 90;
    for (int i = 0; i < 6000; i++) {
        uint64_t line = ddio_rng_below(&rng, lines);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 3);
        static const enum coh_req reqs[] = {REQ_PCIE_WR_FULL, REQ_PCIE_WR_PART, REQ_PCIE_RD, REQ_CORE_RD,
                                            REQ_CORE_WR};
        enum coh_req q = reqs[ddio_rng_below(&rng, 5)];
        hier_result a, b;
        if (fixed)
            hier_access_set_fixed(&h[0], q, core, line, cache_set(&h[0].llc, line), &a);
        else
            hier_access_set(&h[0], q, core, line, cache_set(&h[0].llc, line), &a);
        hier_access(&h[1], q, core, line, 0, &b);
        pair_expect_same_access(&a, &b, i, q, core, line);
        pair_expect_same_places(h, lines, i);
    }
    /* PCIe reads of L2 (E/M) lines asked the snoop filter first (hier_fast.c pcie_entry). */
    if (!hier_paths_of(&h[0]).counted)
        ;   /* counts kept in the sanitizer build only */
    else if ((hier_paths_of(&h[0]).llc_lean || hier_paths_of(&h[0]).llc_rule_lean) && hier_paths_of(&h[0]).rd_miss_fast)
        cr_assert_gt(hier_paths_of(&h[0]).taken.rd_owned, 50, "%llu", (unsigned long long)hier_paths_of(&h[0]).taken.rd_owned);
    else
        cr_assert_eq(hier_paths_of(&h[0]).taken.rd_owned, 0);
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, access_with_known_set_equals_general_path)
{
    access_set_equal(HIER_NONINCLUSIVE, "lru", 31, 0);
    access_set_equal(HIER_NONINCLUSIVE, "bip", 32, 0);
    access_set_equal(HIER_NONINCLUSIVE, "srrip", 33, 0);
    access_set_equal(HIER_INCLUSIVE, "lru", 34, 0);
    access_set_equal(HIER_INCLUSIVE, "drrip", 35, 0);
    access_set_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", 36, 0);
}

/* The same through the fixed-request entries (hier_core_rd_set, ...). */
Test(cache_hier, fixed_request_entries_equal_general_path)
{
    access_set_equal(HIER_NONINCLUSIVE, "lru", 131, 1);
    access_set_equal(HIER_NONINCLUSIVE, "bip", 132, 1);
    access_set_equal(HIER_NONINCLUSIVE, "srrip", 133, 1);
    access_set_equal(HIER_INCLUSIVE, "lru", 134, 1);
    access_set_equal(HIER_INCLUSIVE, "drrip", 135, 1);
    access_set_equal(HIER_NONINCLUSIVE, "QLRU_H00_M1_R2_U1", 136, 1);
}

/* The lean own-L2 hit (hier_fast.c core_l2_mru / core_entry_in with LRU /
 * BIP, core_entry_rule with SRRIP and QLRU: L2 geometry read from the fast
 * state, the S upgrade's Shared-copy drop out of line) and the lean PCIe LLC
 * hit of a line whose set is known (pcie_lean) against the general path,
 * through hier_access and hier_access_set; L2s with 1, 2, 4 and 8 sets
 * (lean) and 3 sets (not lean: access_core_fast as before).  Core requests
 * dominate, with PCIe reads to make L2 (S) lines and writes to drop them. */
static void lean_l2_equal(enum hier_mode mode, const char *l2_policy, uint32_t l2_sets, int lean, uint64_t seed)
{
    hier_config c = pair_config(mode, "lru", l2_policy);
    c.l2.sets_per_slice = l2_sets;
    c.l2.ways = 3;
    hier h[2];
    pair_init(h, &c);
    cr_assert_eq(hier_paths_of(&h[0]).l2_lean, lean, "lean path %s for %u L2 sets, %s", lean ? "on" : "off", l2_sets,
                 l2_policy);
    cr_assert_eq(hier_paths_of(&h[1]).l2_lean, 0, "a general-only hierarchy takes no fast path");
    cr_assert_eq(hier_paths_of(&h[0]).llc_lean, 1, "PCIe requests with a known set take pcie_lean (LRU LLC)");
    cr_assert_eq(hier_paths_of(&h[1]).llc_lean, 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t lines = 40;
    uint64_t l2_hits = 0;
    for (int i = 0; i < 5000; i++) {
        uint64_t line = ddio_rng_below(&rng, lines);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 3);
        static const enum coh_req reqs[] = {REQ_CORE_RD, REQ_CORE_WR, REQ_CORE_RD, REQ_CORE_WR, REQ_PCIE_RD,
                                            REQ_PCIE_RD, REQ_PCIE_WR_FULL};
        enum coh_req q = reqs[ddio_rng_below(&rng, 7)];
        hier_result a, b;
        access_by_turn(&h[0], i, q, core, line, &a);
        hier_access(&h[1], q, core, line, 0, &b);
        pair_expect_same_access(&a, &b, i, q, core, line);
        l2_hits += a.region == REG_L2 && (q == REQ_CORE_RD || q == REQ_CORE_WR);
        pair_expect_same_places(h, lines, i);
    }
    cr_assert_gt(l2_hits, 500, "the stream meets L2 hits");
    /* A QLRU L2 in the lean entry keeps its hint bytes and takes hits from
     * them, from the second too (a random stream: a line seldom hit twice
     * in a row). */
    const int hinted = lean && strncmp(l2_policy, "QLRU", 4) == 0;
    cr_assert_eq(hier_paths_of(&h[0]).l2_hint_off != 0, hinted, "%s", l2_policy);
    cr_assert_eq(hier_paths_of(&h[1]).l2_hint_off, 0);
    const hier_paths p0 = hier_paths_of(&h[0]);
    if (p0.counted) {
        cr_assert(hinted ? p0.taken.l2_hinted > l2_hits / 20 : p0.taken.l2_hinted == 0,
                  "%llu of %llu L2 hits from the hint, %s", (unsigned long long)p0.taken.l2_hinted,
                  (unsigned long long)l2_hits, l2_policy);
        cr_assert(hinted ? p0.taken.l2_hinted2 > l2_hits / 50 : p0.taken.l2_hinted2 == 0,
                  "%llu of %llu L2 hits from the second hint, %s", (unsigned long long)p0.taken.l2_hinted2,
                  (unsigned long long)l2_hits, l2_policy);
    }
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, lean_l2_hits_equal_general_path)
{
    lean_l2_equal(HIER_NONINCLUSIVE, "lru", 4, 1, 41);
    lean_l2_equal(HIER_NONINCLUSIVE, "bip", 8, 1, 42);
    lean_l2_equal(HIER_NONINCLUSIVE, "lru", 1, 1, 43);
    lean_l2_equal(HIER_NONINCLUSIVE, "lru", 3, 0, 44);
    lean_l2_equal(HIER_NONINCLUSIVE, "srrip", 4, 1, 45);
    lean_l2_equal(HIER_NONINCLUSIVE, "QLRU_H00_M1_R2_U1", 4, 1, 48);
    lean_l2_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", 8, 1, 49);
    lean_l2_equal(HIER_NONINCLUSIVE, "QLRU_H00_M1_R2_U1", 3, 0, 50);
    lean_l2_equal(HIER_INCLUSIVE, "srrip", 2, 1, 51);
    lean_l2_equal(HIER_INCLUSIVE, "lru", 2, 1, 46);
    lean_l2_equal(HIER_INCLUSIVE, "bip", 4, 1, 47);
}

/* The PCIe write of a line the LLC misses (hier_fast.c hier_pcie_wr_miss: the line
 * in an L2 in E/M or S, or only in memory, goes to the DDIO ways and any L2
 * copy is dropped), full and partial, through hier_access_set (the snoop
 * filter first for an L2 (E/M) line: pcie_entry) and hier_access (after
 * the LLC search: access_matched), against the general path.  Lines are
 * put in every column first: core reads and writes (L2 E/M), PCIe reads of
 * those (L2 (S) plus a Shared copy, which the one Shared way soon evicts:
 * L2 (S) alone), memory; the DDIO ways are small enough to evict dirty
 * lines.  The snoop filter goes first with LRU / BIP L2s only (their
 * removal inline: l2_recency), with an LRU / BIP LLC (pcie_entry) or an
 * RRIP / QLRU one (pcie_entry_rule); `l2_policy` SRRIP leaves it to
 * access_matched; inclusive has no such fast path. */
static void pcie_write_miss_equal(enum hier_mode mode, const char *policy, const char *l2_policy, uint64_t seed)
{
    hier_config c = pair_config(mode, policy, l2_policy);
    c.l2.sets_per_slice = 4;
    c.l2.ways = 4;
    c.shared_mask = mode == HIER_NONINCLUSIVE ? 0x01 : 0;
    hier h[2];
    pair_init(h, &c);
    const int fast = mode == HIER_NONINCLUSIVE;
    cr_assert_eq(hier_paths_of(&h[0]).wr_miss_fast[REQ_PCIE_WR_FULL], fast);
    cr_assert_eq(hier_paths_of(&h[0]).wr_miss_fast[REQ_PCIE_WR_PART], fast);
    cr_assert_eq(hier_paths_of(&h[1]).wr_miss_fast[REQ_PCIE_WR_FULL], 0);
    cr_assert_eq(hier_paths_of(&h[1]).wr_miss_fast[REQ_PCIE_WR_PART], 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t lines = 150;
    uint64_t col_seen[COL_COUNT] = {0};
    for (int i = 0; i < 8000; i++) {
        uint64_t line = ddio_rng_below(&rng, lines);
        uint32_t core = (uint32_t)ddio_rng_below(&rng, 3);
        uint32_t kind = (uint32_t)ddio_rng_below(&rng, 8);
        static const enum coh_req reqs[] = {REQ_CORE_RD, REQ_CORE_WR, REQ_PCIE_RD, REQ_PCIE_RD};
        enum coh_req q = kind < 4 ? reqs[kind] : kind % 2 ? REQ_PCIE_WR_FULL : REQ_PCIE_WR_PART;
        if (q != REQ_CORE_RD && q != REQ_CORE_WR && q != REQ_PCIE_RD) {
            hier_where w = hier_locate(&h[0], line);
            if (w.llc_region == REG_MEM)
                col_seen[w.l2_core < 0 ? COL_MEM : w.l2_state == ST_S ? COL_L2_S : COL_L2_EM]++;
        }
        hier_result a, b;
        access_by_turn(&h[0], i, q, core, line, &a);
        hier_access(&h[1], q, core, line, 0, &b);
        pair_expect_same_access(&a, &b, i, q, core, line);
        pair_expect_same_places(h, lines, i);
    }
    for (int col = fast ? COL_L2_EM : COL_MEM; col <= COL_MEM; col++)   /* inclusive: an L2 line is in the LLC too */
        cr_assert_gt(col_seen[col], 50, "column %s met %llu times by a write the LLC misses",
                     coh_col_name((enum coh_col)col), (unsigned long long)col_seen[col]);
    cr_assert_gt(h[0].stats.llc_evictions, 100);
    /* Writes with a known set asked the snoop filter first (pcie_entry). */
    if (!hier_paths_of(&h[0]).counted)
        ;   /* counts kept in the sanitizer build only */
    else if (fast && (hier_paths_of(&h[0]).llc_lean || hier_paths_of(&h[0]).llc_rule_lean) &&
             hier_paths_of(&h[0]).l2_lean && hier_paths_of(&h[0]).l2_recency)
        cr_assert_gt(hier_paths_of(&h[0]).taken.wr_owned, 50, "%llu", (unsigned long long)hier_paths_of(&h[0]).taken.wr_owned);
    else
        cr_assert_eq(hier_paths_of(&h[0]).taken.wr_owned, 0);
    pair_expect_same_state_and_free(h);
}

Test(cache_hier, pcie_write_miss_fast_path_equals_general_path)
{
    pcie_write_miss_equal(HIER_NONINCLUSIVE, "lru", "lru", 51);
    pcie_write_miss_equal(HIER_NONINCLUSIVE, "bip", "bip", 52);
    pcie_write_miss_equal(HIER_NONINCLUSIVE, "lru", "srrip", 53);
    pcie_write_miss_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", "QLRU_H00_M1_R2_U1", 56);
    pcie_write_miss_equal(HIER_NONINCLUSIVE, "srrip", "lru", 54);
    pcie_write_miss_equal(HIER_NONINCLUSIVE, "QLRU_H11_M1_R0_U0", "lru", 57);
    pcie_write_miss_equal(HIER_INCLUSIVE, "lru", "lru", 55);
}

/* llc.pcie_hit_update: a PCIe read hit moves the line to the front of its
 * set's order (as a core's hit does) unless the configuration leaves PCIe
 * read hits still.  Two DDIO ways, three lines of one set: A and B written,
 * A read by the NIC, C written.  When the read updates, C evicts B; when it
 * does not, A is still the oldest and C evicts it.  The general path runs
 * alone whenever a hit is left still (the fast paths update on every hit). */
static void read_then_third_write(uint8_t still, int *a_kept, int *b_kept)
{
    hier h;
    hier_config c;
    small_config(&c, HIER_NONINCLUSIVE, 1, MAP_MODULO);
    c.pcie_hit_still = still;
    ddio_err e;
    cr_assert_eq(hier_init(&h, &c, &e), 0, "%s", e.msg);
    const uint64_t A = 3, B = 3 + 16, C = 3 + 32;   /* modulo 2 x 8 sets: one set */
    hier_result r;
    hier_access(&h, REQ_PCIE_WR_FULL, 0, A, 0, &r);
    hier_access(&h, REQ_PCIE_WR_FULL, 0, B, 0, &r);
    hier_access(&h, REQ_PCIE_RD, 0, A, 0, &r);
    cr_expect(r.hit);
    hier_access(&h, REQ_PCIE_WR_FULL, 0, C, 0, &r);
    cr_expect(!r.hit);
    cr_expect_eq(hier_locate(&h, C).llc_region, REG_DDIO);
    *a_kept = hier_locate(&h, A).llc_region == REG_DDIO;
    *b_kept = hier_locate(&h, B).llc_region == REG_DDIO;
    cr_expect_eq(h.stats.req[REQ_PCIE_RD].hits, 1);
    hier_free(&h);
}

Test(cache_hier, pcie_read_hits_update_the_order_unless_left_still)
{
    int a, b;
    read_then_third_write(0, &a, &b);
    cr_expect(a && !b, "a read hit makes A the newest: C evicts B (A %d, B %d)", a, b);
    read_then_third_write(HIER_STILL_PCIE_RD, &a, &b);
    cr_expect(!a && b, "a still read hit leaves A the oldest: C evicts A (A %d, B %d)", a, b);
    read_then_third_write(HIER_STILL_PCIE_WR, &a, &b);
    cr_expect(a && !b, "leaving write hits still does not change a read's (A %d, B %d)", a, b);
}
