/* test_cache_table.c - every non-empty cell of the paper's Table 1, executed
 * by the hierarchy, one assertion per cell (destination region and state).
 *
 * The expected outcomes below are written out by hand from the paper's
 * Table 1 (Wang, Xu, Wu, SIGMETRICS 2022, Section 3.4.3) and docs/cache-model.md, independently of
 * sim/cache/coherence.c, so a wrong table entry fails here. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/cache/hier.h"
#include "tests/helpers.h"

/* A tiny hierarchy where every placement is predictable: a one-set LLC with
 * 6 ways (Shared = ways 0-1, L3* = ways 2-3, DDIO = ways 4-5) and one-set,
 * 2-way L2s.  Inclusive mode: DDIO = ways 4-5, L3 = ways 0-3. */
static void tiny(hier *h, enum hier_mode mode, uint32_t cores)
{
    tiny_hier(h, mode, cores, 0x30);
}

typedef struct cell_case {
    enum coh_req req;
    enum coh_col col;
    uint8_t llc_region;     /* REG_MEM = no LLC copy */
    uint8_t llc_state;
    uint8_t l2_state;       /* ST_I = no L2 copy */
    uint8_t hit, mem_reads;
} cell_case;

#define A 0x1000ull   /* the line under test */

static void run_case(enum hier_mode mode, const cell_case *k)
{
    hier h;
    tiny(&h, mode, 1);
    cr_assert_eq(hier_place(&h, 0, A, k->col, 1), 0, "place %s", coh_col_name(k->col));
    hier_result r;
    hier_access(&h, k->req, 0, A, 0, &r);
    hier_where w = hier_locate(&h, A);
    cr_expect_eq(w.llc_region, k->llc_region, "%s %s on %s: LLC region %s, expected %s",
                 hier_mode_name(mode), coh_req_name(k->req), coh_col_name(k->col),
                 hier_region_name(w.llc_region), hier_region_name(k->llc_region));
    if (k->llc_region != REG_MEM)
        cr_expect_eq(w.llc_state, k->llc_state, "%s %s on %s: LLC state %d, expected %d",
                     hier_mode_name(mode), coh_req_name(k->req), coh_col_name(k->col), w.llc_state,
                     k->llc_state);
    cr_expect_eq(w.l2_state, k->l2_state, "%s %s on %s: L2 state %d, expected %d", hier_mode_name(mode),
                 coh_req_name(k->req), coh_col_name(k->col), w.l2_state, k->l2_state);
    cr_expect_eq(w.l2_core, k->l2_state == ST_I ? -1 : 0);
    cr_expect_eq(r.hit, k->hit, "%s %s on %s: hit", hier_mode_name(mode), coh_req_name(k->req),
                 coh_col_name(k->col));
    cr_expect_eq(r.mem_reads, k->mem_reads, "%s %s on %s: memory reads", hier_mode_name(mode),
                 coh_req_name(k->req), coh_col_name(k->col));
    cr_expect_eq(r.col, k->col);
    hier_free(&h);
}

/* Skylake, non-inclusive.  Placed lines are dirty (M). */
static const cell_case skylake[] = {
    /* PCIe write (ItoM): lines in the LLC are written in place; an L2 copy
     * moves to the DDIO ways; a miss allocates in the DDIO ways. */
    {REQ_PCIE_WR_FULL, COL_DDIO, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_L3, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_SHARED, REG_SHARED, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_L2_EM, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_L2_S, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_MEM, REG_DDIO, ST_M, ST_I, 0, 0},
    /* PCIe partial write (RFO): same places; a miss reads the line. */
    {REQ_PCIE_WR_PART, COL_DDIO, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_L3, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_SHARED, REG_SHARED, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_L2_EM, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_L2_S, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_MEM, REG_DDIO, ST_M, ST_I, 0, 1},
    /* PCIe read (PCIRdCur): LLC lines stay; an L2 E/M line leaves an S copy
     * and puts an M copy in the Shared ways; an L2(S) line stays (served
     * with a concurrent memory read); a miss reads memory, no allocation. */
    {REQ_PCIE_RD, COL_DDIO, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_RD, COL_L3, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_RD, COL_SHARED, REG_SHARED, ST_M, ST_I, 1, 0},
    {REQ_PCIE_RD, COL_L2_EM, REG_SHARED, ST_M, ST_S, 1, 0},
    {REQ_PCIE_RD, COL_L2_S, REG_MEM, ST_I, ST_S, 1, 1},
    {REQ_PCIE_RD, COL_MEM, REG_MEM, ST_I, ST_I, 0, 1},
    /* Core read (DRd): the line moves from the LLC to L2 (dirty data: M);
     * from memory it arrives as L2(S), as printed in Table 1. */
    {REQ_CORE_RD, COL_DDIO, REG_MEM, ST_I, ST_M, 1, 0},
    {REQ_CORE_RD, COL_L3, REG_MEM, ST_I, ST_M, 1, 0},
    {REQ_CORE_RD, COL_SHARED, REG_MEM, ST_I, ST_M, 1, 0},
    {REQ_CORE_RD, COL_MEM, REG_MEM, ST_I, ST_S, 0, 1},
    /* Core write (RFO): the line moves to L2 and is modified there. */
    {REQ_CORE_WR, COL_DDIO, REG_MEM, ST_I, ST_M, 1, 0},
    {REQ_CORE_WR, COL_L3, REG_MEM, ST_I, ST_M, 1, 0},
    {REQ_CORE_WR, COL_SHARED, REG_MEM, ST_I, ST_M, 1, 0},
    {REQ_CORE_WR, COL_MEM, REG_MEM, ST_I, ST_M, 0, 1},
};

/* Broadwell, inclusive.  L2 columns are an L2 copy of a line whose LLC copy
 * sits in the L3 ways (E; the dirt is in the M L2 copy). */
static const cell_case broadwell[] = {
    {REQ_PCIE_WR_FULL, COL_DDIO, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_L3, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_L2_EM, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_L2_S, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_FULL, COL_MEM, REG_DDIO, ST_M, ST_I, 0, 0},
    {REQ_PCIE_WR_PART, COL_DDIO, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_L3, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_L2_EM, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_L2_S, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_WR_PART, COL_MEM, REG_DDIO, ST_M, ST_I, 0, 1},
    /* PCIe read drops L2 copies (X); the LLC copy absorbs dirty data. */
    {REQ_PCIE_RD, COL_DDIO, REG_DDIO, ST_M, ST_I, 1, 0},
    {REQ_PCIE_RD, COL_L3, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_RD, COL_L2_EM, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_RD, COL_L2_S, REG_L3, ST_M, ST_I, 1, 0},
    {REQ_PCIE_RD, COL_MEM, REG_MEM, ST_I, ST_I, 0, 1},
    /* Core accesses keep the LLC copy and add an L2 copy ("- + L2(E/M)");
     * a miss allocates L3(E) plus L2(E) for a read, L2(M) for a write. */
    {REQ_CORE_RD, COL_DDIO, REG_DDIO, ST_M, ST_E, 1, 0},
    {REQ_CORE_RD, COL_L3, REG_L3, ST_M, ST_E, 1, 0},
    {REQ_CORE_RD, COL_MEM, REG_L3, ST_E, ST_E, 0, 1},
    {REQ_CORE_WR, COL_DDIO, REG_DDIO, ST_M, ST_M, 1, 0},
    {REQ_CORE_WR, COL_L3, REG_L3, ST_M, ST_M, 1, 0},
    {REQ_CORE_WR, COL_MEM, REG_L3, ST_E, ST_M, 0, 1},
};

Test(cache_table, skylake_access_cells)
{
    for (size_t i = 0; i < sizeof skylake / sizeof skylake[0]; i++)
        run_case(HIER_NONINCLUSIVE, &skylake[i]);
}

Test(cache_table, broadwell_access_cells)
{
    for (size_t i = 0; i < sizeof broadwell / sizeof broadwell[0]; i++)
        run_case(HIER_INCLUSIVE, &broadwell[i]);
}

/* Every defined cell of the data table is covered by the lists above or by
 * the eviction tests below, and the lists name no undefined cell. */
Test(cache_table, coverage_of_defined_cells)
{
    int covered[HIER_MODE_COUNT][REQ_COUNT][COL_COUNT] = {{{0}}};
    for (size_t i = 0; i < sizeof skylake / sizeof skylake[0]; i++)
        covered[HIER_NONINCLUSIVE][skylake[i].req][skylake[i].col] = 1;
    for (size_t i = 0; i < sizeof broadwell / sizeof broadwell[0]; i++)
        covered[HIER_INCLUSIVE][broadwell[i].req][broadwell[i].col] = 1;
    /* Evictions: tested one by one below. */
    enum coh_col ni_ev[] = {COL_DDIO, COL_L3, COL_SHARED, COL_L2_EM, COL_L2_S};
    enum coh_col in_ev[] = {COL_DDIO, COL_L3, COL_L2_EM, COL_L2_S};
    for (size_t i = 0; i < 5; i++)
        covered[HIER_NONINCLUSIVE][REQ_EVICT][ni_ev[i]] = 1;
    for (size_t i = 0; i < 4; i++)
        covered[HIER_INCLUSIVE][REQ_EVICT][in_ev[i]] = 1;
    int defined = 0;
    for (int m = 0; m < HIER_MODE_COUNT; m++)
        for (int r = 0; r < REQ_COUNT; r++)
            for (int c = 0; c < COL_COUNT; c++) {
                const coh_cell *cell = coh_lookup((enum hier_mode)m, (enum coh_req)r, (enum coh_col)c);
                cr_expect_eq(cell->defined, covered[m][r][c], "%s %s %s: defined=%d covered=%d",
                             hier_mode_name((enum hier_mode)m), coh_req_name((enum coh_req)r),
                             coh_col_name((enum coh_col)c), cell->defined, covered[m][r][c]);
                defined += cell->defined;
            }
    /* Skylake: 6+6+6+4+4+5 = 31 cells, Broadwell: 5+5+5+3+3+4 = 25 cells. */
    cr_expect_eq(defined, 56);
}

/* The labels as printed in Table 1 for a few cells the hierarchy applies
 * with extra knowledge (the store completing after an RFO from memory). */
Test(cache_table, printed_labels)
{
    cr_expect_str_eq(coh_lookup(HIER_NONINCLUSIVE, REQ_CORE_WR, COL_MEM)->label, "L2(E)");
    cr_expect_str_eq(coh_lookup(HIER_NONINCLUSIVE, REQ_CORE_RD, COL_MEM)->label, "L2(S)");
    cr_expect_str_eq(coh_lookup(HIER_NONINCLUSIVE, REQ_PCIE_RD, COL_L2_EM)->label, "Shared(M) + L2(S)");
    cr_expect_str_eq(coh_lookup(HIER_NONINCLUSIVE, REQ_EVICT, COL_L2_EM)->label, "L3*(M)");
    cr_expect_str_eq(coh_lookup(HIER_INCLUSIVE, REQ_CORE_WR, COL_MEM)->label, "L3(E) + L2(M)");
    cr_expect_str_eq(coh_lookup(HIER_INCLUSIVE, REQ_CORE_RD, COL_MEM)->label, "L3(E) + L2(E)");
    cr_expect_eq(coh_lookup(HIER_INCLUSIVE, REQ_PCIE_RD, COL_SHARED)->defined, 0);
}

/* --- eviction row ------------------------------------------------------- */

#define B 0x2000ull
#define C 0x3000ull
#define D 0x4000ull

/* LLC victims go to memory, written back when dirty. */
static void llc_evict_case(enum hier_mode mode, enum coh_col col)
{
    hier h;
    tiny(&h, mode, 1);
    cr_assert_eq(hier_place(&h, 0, A, col, 1), 0);
    cr_assert_eq(hier_place(&h, 0, B, col, 0), 0);
    /* A third line for the same two ways evicts the LRU one, A. */
    cr_assert_eq(hier_place(&h, 0, C, col, 0), 0);
    hier_where w = hier_locate(&h, A);
    cr_expect_eq(w.llc_region, REG_MEM, "%s evict %s: A still cached", hier_mode_name(mode), coh_col_name(col));
    cr_expect_eq(w.l2_core, -1);
    cr_expect_eq(h.stats.llc_evictions, 1);
    hier_free(&h);
}

Test(cache_table, evict_llc_regions_to_memory)
{
    llc_evict_case(HIER_NONINCLUSIVE, COL_DDIO);
    llc_evict_case(HIER_NONINCLUSIVE, COL_L3);
    llc_evict_case(HIER_NONINCLUSIVE, COL_SHARED);
    llc_evict_case(HIER_INCLUSIVE, COL_DDIO);
}

/* The LLC victim of an access that allocates in region col: the region is
 * filled with placed lines, the first one (A, the LRU one) dirty or clean,
 * then an access whose line lands in col pushes A out.  A dirty victim is
 * one memory write-back, charged to that access; a clean one is none. */
static void llc_victim_writeback_case(enum hier_mode mode, enum coh_col col, int dirty)
{
    static const uint64_t fill[] = {0x5000, 0x6000, 0x7000};
    hier h;
    tiny(&h, mode, 1);
    int ways = col == COL_L3 && mode == HIER_INCLUSIVE ? 4 : 2;
    cr_assert_eq(hier_place(&h, 0, A, col, dirty), 0);
    for (int i = 0; i < ways - 1; i++)
        cr_assert_eq(hier_place(&h, 0, fill[i], col, 0), 0);
    hier_result r;
    switch (col) {
    case COL_DDIO:      /* PCIe write miss: DDIO(M) */
        hier_access(&h, REQ_PCIE_WR_FULL, 0, B, 0, &r);
        break;
    case COL_SHARED:    /* PCIe read of an L2(M) line: Shared(M) + L2(S) */
        cr_assert_eq(hier_place(&h, 0, B, COL_L2_EM, 1), 0);
        hier_access(&h, REQ_PCIE_RD, 0, B, 0, &r);
        break;
    case COL_L3:
        if (mode == HIER_INCLUSIVE) {   /* core read miss: L3(E) + L2(E) */
            hier_access(&h, REQ_CORE_RD, 0, B, 0, &r);
        } else {                        /* the 2-way L2's M victim lands in L3* */
            hier_access(&h, REQ_CORE_WR, 0, B, 0, &r);
            hier_access(&h, REQ_CORE_WR, 0, C, 0, &r);
            cr_assert_eq(r.mem_writebacks, 0);
            hier_access(&h, REQ_CORE_WR, 0, D, 0, &r);
            cr_expect_eq(hier_locate(&h, B).llc_region, REG_L3);
        }
        break;
    default:
        cr_assert_fail("no eviction case for %s", coh_col_name(col));
    }
    const char *m = hier_mode_name(mode), *c = coh_col_name(col);
    cr_expect_eq(hier_locate(&h, A).llc_region, REG_MEM, "%s %s: A still cached", m, c);
    cr_expect_eq(r.mem_writebacks, dirty ? 1 : 0, "%s %s dirty=%d: %u write-backs", m, c, dirty,
                 r.mem_writebacks);
    cr_expect_eq(h.stats.llc_evictions, 1, "%s %s", m, c);
    hier_free(&h);
}

Test(cache_table, evict_llc_victim_written_back_when_dirty)
{
    for (int dirty = 0; dirty <= 1; dirty++) {
        llc_victim_writeback_case(HIER_NONINCLUSIVE, COL_DDIO, dirty);
        llc_victim_writeback_case(HIER_NONINCLUSIVE, COL_L3, dirty);
        llc_victim_writeback_case(HIER_NONINCLUSIVE, COL_SHARED, dirty);
        llc_victim_writeback_case(HIER_INCLUSIVE, COL_DDIO, dirty);
        llc_victim_writeback_case(HIER_INCLUSIVE, COL_L3, dirty);
    }
}

Test(cache_table, evict_writeback_counts)
{
    /* A dirty DDIO line pushed out by two PCIe writes is written back once,
     * charged to the PCIe write that evicted it. */
    hier h;
    tiny(&h, HIER_NONINCLUSIVE, 1);
    hier_result r;
    hier_access(&h, REQ_PCIE_WR_FULL, 0, A, 0, &r);
    hier_access(&h, REQ_PCIE_WR_FULL, 0, B, 0, &r);
    cr_expect_eq(r.mem_writebacks, 0);
    hier_access(&h, REQ_PCIE_WR_FULL, 0, C, 0, &r);
    cr_expect_eq(r.mem_writebacks, 1);
    cr_expect_eq(hier_locate(&h, A).llc_region, REG_MEM);
    cr_expect_eq(h.stats.req[REQ_PCIE_WR_FULL].mem_writebacks, 1);
    cr_expect_eq(h.stats.req[REQ_PCIE_WR_FULL].misses, 3);
    hier_free(&h);
}

Test(cache_table, evict_l2_em_to_l3star_noninclusive)
{
    hier h;
    tiny(&h, HIER_NONINCLUSIVE, 1);
    hier_result r;
    hier_access(&h, REQ_CORE_WR, 0, A, 0, &r);   /* L2(M) */
    hier_access(&h, REQ_CORE_WR, 0, B, 0, &r);
    hier_access(&h, REQ_CORE_WR, 0, C, 0, &r);   /* evicts A from the 2-way L2 */
    hier_where w = hier_locate(&h, A);
    cr_expect_eq(w.l2_core, -1);
    cr_expect_eq(w.llc_region, REG_L3, "L2(E/M) victim must land in L3*, got %s", hier_region_name(w.llc_region));
    cr_expect_eq(w.llc_state, ST_M);
    cr_expect_eq(r.mem_writebacks, 0);
    cr_expect_eq(h.stats.l2_to_llc, 1);
    hier_free(&h);
}

Test(cache_table, evict_l2_s_dropped_noninclusive)
{
    hier h;
    tiny(&h, HIER_NONINCLUSIVE, 1);
    hier_result r;
    hier_access(&h, REQ_CORE_RD, 0, A, 0, &r);   /* memory -> L2(S) */
    cr_expect_eq(hier_locate(&h, A).l2_state, ST_S);
    hier_access(&h, REQ_CORE_RD, 0, B, 0, &r);
    hier_access(&h, REQ_CORE_RD, 0, C, 0, &r);   /* evicts A: dropped silently */
    hier_where w = hier_locate(&h, A);
    cr_expect_eq(w.l2_core, -1);
    cr_expect_eq(w.llc_region, REG_MEM);
    cr_expect_eq(h.stats.l2_to_llc, 0);
    cr_expect_eq(r.mem_writebacks, 0);
    hier_free(&h);
}

Test(cache_table, evict_l2_inclusive)
{
    hier h;
    tiny(&h, HIER_INCLUSIVE, 1);
    hier_result r;
    hier_access(&h, REQ_CORE_WR, 0, A, 0, &r);   /* L3(E) + L2(M) */
    hier_access(&h, REQ_CORE_RD, 0, B, 0, &r);   /* L3(E) + L2(E) */
    hier_access(&h, REQ_CORE_RD, 0, C, 0, &r);   /* evicts A from L2: L3(M) */
    hier_where w = hier_locate(&h, A);
    cr_expect_eq(w.l2_core, -1);
    cr_expect_eq(w.llc_region, REG_L3);
    cr_expect_eq(w.llc_state, ST_M, "L2(E/M) victim writes its LLC copy: L3(M)");
    hier_access(&h, REQ_CORE_RD, 0, D, 0, &r);   /* evicts B (clean E) */
    w = hier_locate(&h, B);
    cr_expect_eq(w.llc_region, REG_L3);
    cr_expect_eq(w.llc_state, ST_E);
    hier_free(&h);

    /* L2(S) copy victim: dropped, LLC copy unchanged. */
    tiny(&h, HIER_INCLUSIVE, 1);
    cr_assert_eq(hier_place(&h, 0, A, COL_L2_S, 0), 0);
    hier_access(&h, REQ_CORE_RD, 0, B, 0, &r);
    hier_access(&h, REQ_CORE_RD, 0, C, 0, &r);
    w = hier_locate(&h, A);
    cr_expect_eq(w.l2_core, -1);
    cr_expect_eq(w.llc_region, REG_L3);
    cr_expect_eq(w.llc_state, ST_E);
    hier_free(&h);
}

Test(cache_table, evict_llc_back_invalidates_inclusive)
{
    hier h;
    tiny(&h, HIER_INCLUSIVE, 1);
    hier_result r;
    hier_access(&h, REQ_PCIE_WR_FULL, 0, A, 0, &r);  /* DDIO(M) */
    hier_access(&h, REQ_CORE_RD, 0, A, 0, &r);       /* + L2(E) copy */
    cr_expect_eq(hier_locate(&h, A).l2_core, 0);
    hier_access(&h, REQ_PCIE_WR_FULL, 0, B, 0, &r);
    hier_access(&h, REQ_PCIE_WR_FULL, 0, C, 0, &r);  /* evicts A from the DDIO ways */
    hier_where w = hier_locate(&h, A);
    cr_expect_eq(w.llc_region, REG_MEM);
    cr_expect_eq(w.l2_core, -1, "inclusion: the L2 copy must be back-invalidated");
    cr_expect_eq(r.mem_writebacks, 1);
    hier_free(&h);
}
