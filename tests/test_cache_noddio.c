/* test_cache_noddio.c - DDIO off (no DDIO ways): the rule of coherence.h
 * (coh_lookup_io) as the hierarchy, the single-level replay and the Markov
 * model's access matrices carry it out.
 *
 * The expected outcomes are written out by hand from the rule
 * (docs/cache-model.md, "DDIO off"): a PCIe write misses wherever the line
 * is, leaves no cached copy and writes one line to memory; a PCIe read is
 * served from a cached copy (a hit) and does not allocate. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/cache/hier.h"
#include "sim/cache/replay.h"
#include "sim/markov/model.h"
#include "tests/helpers.h"

/* The one-set hierarchy of test_cache_table.c without DDIO ways
 * (tests/helpers.h). */
static void tiny(hier *h, enum hier_mode mode, uint32_t cores)
{
    tiny_hier(h, mode, cores, 0);
}

#define A 0x1000ull   /* the line under test */

/* A PCIe write (full or partial) of a dirty line in every column the mode
 * has: a miss, no copy left anywhere, one line written to memory, none read. */
static void write_every_column(enum hier_mode mode)
{
    static const enum coh_col cols[] = {COL_L3, COL_SHARED, COL_L2_EM, COL_L2_S, COL_MEM};
    for (int q = REQ_PCIE_WR_FULL; q <= REQ_PCIE_WR_PART; q++)
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
            if (mode == HIER_INCLUSIVE && cols[i] == COL_SHARED)
                continue;
            hier h;
            tiny(&h, mode, 1);
            cr_assert_eq(hier_place(&h, 0, A, cols[i], 1), 0);
            hier_result r;
            hier_access(&h, (enum coh_req)q, 0, A, 0, &r);
            hier_where w = hier_locate(&h, A);
            const char *what = coh_col_name(cols[i]);
            cr_expect_eq(r.hit, 0, "%s %s on %s: a hit", hier_mode_name(mode), coh_req_name(q), what);
            cr_expect_eq(r.col, cols[i], "%s on %s: column %u", coh_req_name(q), what, r.col);
            cr_expect_eq(w.llc_region, REG_MEM, "%s on %s: an LLC copy in %s", coh_req_name(q), what,
                         hier_region_name(w.llc_region));
            cr_expect_eq(w.l2_core, -1, "%s on %s: an L2 copy", coh_req_name(q), what);
            cr_expect_eq(r.mem_writebacks, 1, "%s on %s: memory writes", coh_req_name(q), what);
            cr_expect_eq(r.mem_reads, 0, "%s on %s: memory reads", coh_req_name(q), what);
            cr_expect_eq(h.stats.req[q].hits, 0);
            cr_expect_eq(h.stats.req[q].misses, 1);
            cr_expect_eq(h.stats.req[q].mem_writebacks, 1);
            hier_free(&h);
        }
}

Test(noddio, pcie_write_misses_and_invalidates_every_copy)
{
    write_every_column(HIER_NONINCLUSIVE);
    write_every_column(HIER_INCLUSIVE);
}

/* A core's line (dirty in its L2), written by the NIC, then read by the
 * core: the write invalidates the L2 copy, the read misses to memory. */
Test(noddio, core_read_after_nic_write_misses)
{
    for (int mode = 0; mode < HIER_MODE_COUNT; mode++) {
        hier h;
        tiny(&h, (enum hier_mode)mode, 2);
        hier_result r;
        hier_access(&h, REQ_CORE_WR, 1, A, 0, &r);
        cr_expect_eq(r.hit, 0);
        hier_access(&h, REQ_PCIE_WR_FULL, 0, A, 0, &r);
        cr_expect_eq(r.hit, 0);
        cr_expect_eq(r.col, COL_L2_EM);
        hier_access(&h, REQ_CORE_RD, 1, A, 0, &r);
        cr_expect_eq(r.hit, 0, "%s: the core's read hit", hier_mode_name((enum hier_mode)mode));
        cr_expect_eq(r.col, COL_MEM);
        cr_expect_eq(r.mem_reads, 1);
        /* Memory writes: the NIC's line only (the core's dirty copy was
         * overwritten, not written back). */
        cr_expect_eq(h.stats.req[REQ_PCIE_WR_FULL].mem_writebacks, 1);
        cr_expect_eq(h.stats.req[REQ_CORE_WR].mem_writebacks + h.stats.req[REQ_CORE_RD].mem_writebacks, 0);
        hier_free(&h);
    }
}

/* A PCIe read of a line a core wrote is served from the cache (a hit,
 * Table 1's read row); a read of a line only in memory misses and leaves
 * no copy. */
Test(noddio, pcie_read_hits_a_cached_line_and_never_allocates)
{
    for (int mode = 0; mode < HIER_MODE_COUNT; mode++) {
        hier h;
        tiny(&h, (enum hier_mode)mode, 1);
        hier_result r;
        hier_access(&h, REQ_CORE_WR, 0, A, 0, &r);
        hier_access(&h, REQ_PCIE_RD, 0, A, 0, &r);
        cr_expect_eq(r.hit, 1, "%s: the read of the core's line missed", hier_mode_name((enum hier_mode)mode));
        cr_expect_eq(r.col, COL_L2_EM);
        cr_expect_eq(r.mem_reads, 0);
        hier_access(&h, REQ_PCIE_RD, 0, A + 1, 0, &r);
        cr_expect_eq(r.hit, 0);
        cr_expect_eq(r.mem_reads, 1);
        hier_where w = hier_locate(&h, A + 1);
        cr_expect_eq(w.llc_region, REG_MEM);
        cr_expect_eq(w.l2_core, -1);
        hier_free(&h);
    }
}

/* The NIC's DMA runs (hier_dma_run): 5 lines written, the first in part,
 * then read back: 0 write hits, 5 lines written to memory, 0 read hits
 * (nothing allocated), 5 lines read from memory. */
Test(noddio, dma_runs_write_to_memory)
{
    hier h;
    tiny(&h, HIER_NONINCLUSIVE, 1);
    hier_dma wr = {.first = 0x100, .n = 5, .write = 1, .head_partial = 1};
    uint32_t part = 9;
    cr_expect_eq(hier_dma_run(&h, &wr, NULL, &part), 0);
    cr_expect_eq(part, 0);
    hier_dma rd = {.first = 0x100, .n = 5, .write = 0};
    cr_expect_eq(hier_dma_run(&h, &rd, NULL, NULL), 0);
    const hier_stats *s = &h.stats;
    cr_expect_eq(s->req[REQ_PCIE_WR_FULL].accesses + s->req[REQ_PCIE_WR_PART].accesses, 5);
    cr_expect_eq(s->req[REQ_PCIE_WR_PART].accesses, 1);
    cr_expect_eq(s->req[REQ_PCIE_WR_FULL].mem_writebacks + s->req[REQ_PCIE_WR_PART].mem_writebacks, 5);
    cr_expect_eq(s->req[REQ_PCIE_WR_FULL].mem_reads + s->req[REQ_PCIE_WR_PART].mem_reads, 0);
    cr_expect_eq(s->req[REQ_PCIE_RD].hits, 0);
    cr_expect_eq(s->req[REQ_PCIE_RD].mem_reads, 5);
    uint64_t occ[REG_COUNT];
    hier_occupancy(&h, occ);
    cr_expect_eq(occ[REG_DDIO] + occ[REG_SHARED] + occ[REG_L3] + occ[REG_L2], 0);
    hier_free(&h);
}

/* The configuration: mask 0 is DDIO off, a way beyond the LLC is refused. */
Test(noddio, config_accepts_no_ddio_ways)
{
    hier_config c;
    hier_config_default(&c);
    ddio_err e;
    c.ddio_mask = 0;
    cr_expect_eq(hier_config_validate(&c, &e), 0, "%s", e.msg);
    hier h;
    c.mode = HIER_NONINCLUSIVE;
    cr_assert_eq(hier_init(&h, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(hier_place(&h, 0, A, COL_DDIO, 1), -1, "a line placed in no DDIO ways");
    hier_free(&h);
    c.ddio_mask = 0x800;   /* way 11 of 11 */
    cr_expect_eq(hier_config_validate(&c, &e), -1);
    cr_expect(strstr(e.msg, "ddio_mask: 0x800") != NULL, "%s", e.msg);
}

/* The rule itself: DDIO off changes the PCIe write rows only. */
Test(noddio, rule_replaces_the_write_rows_only)
{
    for (int mode = 0; mode < HIER_MODE_COUNT; mode++)
        for (int q = 0; q < REQ_EVICT; q++)
            for (int col = 0; col < COL_COUNT; col++) {
                const coh_cell *on = coh_lookup((enum hier_mode)mode, (enum coh_req)q, (enum coh_col)col);
                const coh_cell *off = coh_lookup_io((enum hier_mode)mode, 0, (enum coh_req)q, (enum coh_col)col);
                cr_expect_eq(coh_lookup_io((enum hier_mode)mode, 1, (enum coh_req)q, (enum coh_col)col), on);
                if (q != REQ_PCIE_WR_FULL && q != REQ_PCIE_WR_PART) {
                    cr_expect_eq(off, on);
                    continue;
                }
                if (!off->defined)
                    continue;
                cr_expect_eq(off->llc, LLC_WRITE_MEM);
                cr_expect_eq(coh_cell_hit(off, (enum coh_col)col), 0);
                cr_expect_eq(coh_cell_mem_writes(off), 1);
                cr_expect_eq(off->mem_read, 0);
                cr_expect_eq(off->l2, col == COL_MEM ? L2_KEEP : L2_DROP);
            }
}

/* The model's matrices: with DDIO off a NIC write takes every state to
 * Memory with one memory write; it can never hit.  With DDIO it can. */
Test(noddio, model_write_matrix_goes_to_memory)
{
    for (int mode = 0; mode < HIER_MODE_COUNT; mode++) {
        mk_space sp;
        mk_space_init(&sp, (enum hier_mode)mode, 0);
        double A_[MK_MAX_STATES * MK_MAX_STATES], mr[MK_MAX_STATES], wb[MK_MAX_STATES];
        ddio_err e;
        for (int q = REQ_PCIE_WR_FULL; q <= REQ_PCIE_WR_PART; q++) {
            cr_assert_eq(mk_access_matrix(&sp, (enum coh_req)q, 0, 0, A_, mr, wb, &e), 0, "%s", e.msg);
            for (unsigned s = 0; s < sp.n; s++) {
                for (unsigned t = 0; t < sp.n; t++)
                    cr_expect_eq(A_[t * sp.n + s], t == sp.mem ? 1.0 : 0.0, "%s -> %s", sp.name[s], sp.name[t]);
                cr_expect_eq(mr[s], 0);
                cr_expect_eq(wb[s], 1);
            }
        }
        cr_expect_eq(mk_req_can_hit(&sp, REQ_PCIE_WR_FULL), 0);
        cr_expect_eq(mk_req_can_hit(&sp, REQ_PCIE_RD), 1);
        mk_space_init(&sp, (enum hier_mode)mode, 1);
        cr_expect_eq(mk_req_can_hit(&sp, REQ_PCIE_WR_FULL), 1);
    }
}

/* cache-replay's single level: a PCIe write misses, drops the cached copy
 * and writes memory; replay_run (which then takes the generic path) agrees
 * with replay_access. */
Test(noddio, replay_write_goes_to_memory)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = 1, .ways = 4, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    replay r;
    ddio_err e;
    cr_assert_eq(replay_init(&r, &g, &rc, 0xF, 0, &e), 0, "%s", e.msg);
    cr_expect_eq(replay_access(&r, OP_WRITE, 0x40), 0);
    cr_expect_eq(replay_access(&r, OP_PCIE_WR_FULL, 0x40), 0);
    cr_expect_eq(replay_access(&r, OP_READ, 0x40), 0);      /* the copy went */
    cr_expect_eq(replay_access(&r, OP_PCIE_RD, 0x40), 1);   /* the core's copy serves it */
    cr_expect_eq(replay_access(&r, OP_PCIE_WR_PART, 0x80), 0);
    cr_expect_eq(replay_access(&r, OP_PCIE_RD, 0x80), 0);   /* nothing allocated */
    cr_expect_eq(r.op[OP_PCIE_WR_FULL].writebacks + r.op[OP_PCIE_WR_PART].writebacks, 2);
    cr_expect_eq(r.op[OP_PCIE_WR_FULL].hits + r.op[OP_PCIE_WR_PART].hits, 0);

    replay b;
    cr_assert_eq(replay_init(&b, &g, &rc, 0xF, 0, &e), 0, "%s", e.msg);
    const uint8_t ops[] = {OP_WRITE, OP_PCIE_WR_FULL, OP_READ, OP_PCIE_RD, OP_PCIE_WR_PART, OP_PCIE_RD};
    const uint64_t addrs[] = {0x40, 0x40, 0x40, 0x40, 0x80, 0x80};
    cr_expect_eq(replay_run(&b, ops, addrs, 6), 1);
    cr_expect_eq(memcmp(r.op, b.op, sizeof r.op), 0);
    replay_free(&r);
    replay_free(&b);
}
