/* test_markov_hier.c - the Markov model's access matrices against the cache
 * hierarchy that executes the same rulebook (Table 1 and the rules around
 * it, sim/cache/coherence.h).
 *
 * For every physical state of the model's state space (non-inclusive: 7,
 * inclusive: 5) and every access the model has (PCIe write full / partial,
 * PCIe read, a core read / write / flush, and every pair of core operations
 * as a workload line's program order), a line is placed in that state in a
 * tiny hierarchy, the access is run, and the line must end in the state the
 * model's matrix gives, with the same memory reads, write-backs and hit.  A
 * core access is run both by the core whose L2 holds the line and by
 * another core (the line then migrates, docs/cache-model.md choice 6; the
 * model, whose L2 is always the accessing core's, must give the same
 * state).  Both the general path and the fast paths of the hierarchy are
 * checked, through each entry (one access, one with a hint naming the
 * LLC set, a DMA run of one line for the PCIe requests), with the line the most
 * recent, the second or the third most recent of its L2 set (the lean
 * entry's three ways to find an own-L2 line). */
#include <criterion/criterion.h>
#include <stdio.h>

#include "configs/config.h"
#include "sim/cache/hier.h"
#include "sim/markov/model.h"

#define LINE 0x1000ull
#define OTHER(i) (0x2000ull + (i))  /* lines that make LINE older in its L2 set */

/* A one-set LLC of 6 ways (non-inclusive: Shared 0-1, L3* 2-3, DDIO 4-5;
 * inclusive: L3 0-3, DDIO 4-5; `ddio` 0: no DDIO ways, DDIO off) and
 * one-set 4-way L2s: the line under test and two others evict nothing, and
 * the core's ways (the CAT class) do not overlap the DDIO ways, so the
 * model's Eq. 12 placement share is 0. */
static void tiny(hier *h, enum hier_mode mode, int general_only, int ddio)
{
    hier_config c;
    hier_config_default(&c);
    c.mode = mode;
    c.llc = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 1, .ways = 6, .mapping = MAP_MODULO};
    c.l2 = (cache_geom){.line_size = 64, .slices = 1, .sets_per_slice = 1, .ways = 4, .mapping = MAP_MODULO};
    c.cores = 2;
    c.ddio_mask = ddio ? 0x30 : 0;
    c.shared_mask = mode == HIER_NONINCLUSIVE ? 0x03 : 0;
    c.n_cos = 1;
    c.cos_mask[0] = mode == HIER_NONINCLUSIVE ? 0x0C : 0x0F;
    ddio_err e;
    cr_assert_eq(hier_init(h, &c, &e), 0, "%s", e.msg);
    hier_set_general_only(h, general_only);
}

/* How a request enters the hierarchy. */
enum entry { ENTRY_ACCESS = 0, ENTRY_SET, ENTRY_RUN, ENTRY_COUNT };
static const char *const entry_name[ENTRY_COUNT] = {"hier_access", "hier_access with a set hint", "a DMA run"};

/* Memory reads and write-backs so far, every request and flush. */
static void traffic(const hier *h, unsigned *reads, unsigned *wbs)
{
    uint64_t r = 0, w = h->stats.flush_writebacks;
    for (int q = 0; q < REQ_COUNT; q++) {
        r += h->stats.req[q].mem_reads;
        w += h->stats.req[q].mem_writebacks;
    }
    *reads = (unsigned)r;
    *wbs = (unsigned)w;
}

/* The one place the test issues a request (a core's flush: 255) through
 * entry `en` (a DMA run only for PCIe requests); returns the hit. */
static unsigned run(hier *h, enum entry en, uint8_t kind, uint32_t core)
{
    hier_result r;
    if (kind == 255) {
        hier_flush(h, LINE, &r);
        return r.hit;
    }
    enum coh_req req = (enum coh_req)kind;
    if (en == ENTRY_RUN && (req == REQ_PCIE_RD || req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART)) {
        const uint8_t part = req == REQ_PCIE_WR_PART;
        const hier_dma d = {.first = LINE, .n = 1, .write = req != REQ_PCIE_RD, .head_partial = part,
                            .tail_partial = part};
        return hier_dma_run(h, &d, NULL, NULL);
    }
    hier_access(h, req, core, LINE, en == ENTRY_SET ? hier_hint(h, LINE) : 0, &r);
    return r.hit;
}

/* The model's L2 state of a copy: E and M are one state, L2(E/M). */
static unsigned model_l2(uint8_t st)
{
    return st == ST_E ? ST_M : st;
}

/* The model state the line is in, or -1 (with a message) when the pair is
 * not one of the space's states. */
static int where(const hier *h, const mk_space *sp, hier_where *w)
{
    *w = hier_locate(h, LINE);
    return mk_space_find(sp, w->llc_region, model_l2(w->l2_state));
}

/* Put LINE in state s of the model's space, its L2 copy (if any) in core
 * `owner`'s L2, then `older` other lines in that L2.  Every buffer line is dirty in the model (docs/model.md
 * section 3), so the lines are placed dirty.  States with two copies are
 * reached by the request that makes them: Shared+L2(S) by a PCIe read of an
 * L2(M) line, inclusive DDIO+L2 by a core read of a DDIO line. */
static void place(hier *h, const mk_space *sp, unsigned s, uint32_t owner, unsigned older)
{
    mk_state x = sp->st[s];
    hier_result r;
    if (x.l2 == ST_I) {
        if (x.llc != REG_MEM)
            cr_assert_eq(hier_place(h, owner, LINE, coh_region_col((enum hier_region)x.llc), 1), 0);
    } else if (x.llc == REG_MEM) {
        cr_assert_eq(hier_place(h, owner, LINE, coh_l2_col((enum coh_state)x.l2), 1), 0);
    } else if (sp->mode == HIER_NONINCLUSIVE) {
        cr_assert(x.llc == REG_SHARED && x.l2 == ST_S);
        cr_assert_eq(hier_place(h, owner, LINE, COL_L2_EM, 1), 0);
        hier_access(h, REQ_PCIE_RD, owner, LINE, 0, &r);
    } else if (x.llc == REG_L3) {
        cr_assert_eq(hier_place(h, owner, LINE, COL_L2_EM, 1), 0);
    } else {
        cr_assert_eq(hier_place(h, owner, LINE, COL_DDIO, 1), 0);
        hier_access(h, REQ_CORE_RD, owner, LINE, 0, &r);
    }
    for (unsigned i = 0; i < older; i++)
        cr_assert_eq(hier_place(h, owner, OTHER(i), COL_L2_EM, 1), 0);
    hier_where w;
    int got = where(h, sp, &w);
    cr_assert_eq(got, (int)s, "%s: placing %s gave LLC %s / L2 state %u", hier_mode_name(sp->mode), sp->name[s],
                 hier_region_name((enum hier_region)w.llc_region), w.l2_state);
    cr_assert(x.l2 == ST_I || w.l2_core == (int)owner);
}

/* The model's matrix column of state s: one destination with probability
 * 1 (no overlap, so no placement split), whose index is returned. */
static unsigned model_dest(const mk_space *sp, const double *A, unsigned s, const char *what)
{
    int dest = -1;
    for (unsigned t = 0; t < sp->n; t++) {
        double a = A[t * sp->n + s];
        cr_assert(a == 0 || a == 1, "%s from %s: entry %g is not 0 or 1", what, sp->name[s], a);
        if (a == 1) {
            cr_assert_eq(dest, -1, "%s from %s: two destinations", what, sp->name[s]);
            dest = (int)t;
        }
    }
    cr_assert_geq(dest, 0, "%s from %s: no destination", what, sp->name[s]);
    return (unsigned)dest;
}

/* An access as the model has it: one request (PCIe), or a core's
 * operations in program order (enum ddio_seg_op). */
typedef struct access {
    const char *name;
    int pcie;
    enum coh_req req;
    uint8_t nops;
    uint8_t ops[2];
} access;

static const char *op_name(uint8_t op)
{
    return op == DDIO_SEG_READ ? "read" : op == DDIO_SEG_WRITE ? "write" : "flush";
}

static uint8_t op_kind(uint8_t op)
{
    return op == DDIO_SEG_READ ? REQ_CORE_RD : op == DDIO_SEG_WRITE ? REQ_CORE_WR : 255;
}

/* The one disagreement (docs/model.md section 3): every buffer line is
 * dirty in the model, which has no clean states, but an inclusive core read
 * that misses leaves "L3(E) + L2(E)" (Table 1): clean copies, so the
 * hierarchy writes nothing back when a later flush (or eviction, outside
 * this test) drops them before anything writes the line; the model counts
 * one write-back.  Non-inclusive, every E/M copy descends from a write and
 * the model's only clean copies, L2(S), are clean in the hierarchy too.
 * Returns the write-backs the model counts and the hierarchy does not. */
static unsigned model_extra_writebacks(enum hier_mode mode, const mk_space *sp, unsigned s, const access *a)
{
    if (mode != HIER_INCLUSIVE || s != sp->mem || a->pcie || a->nops != 2)
        return 0;
    return a->ops[0] == DDIO_SEG_READ && a->ops[1] == DDIO_SEG_FLUSH;
}

/* How one case is run. */
typedef struct how {
    int general_only;
    int ddio;           /* 0: DDIO off (no DDIO ways) */
    enum entry entry;
    unsigned older;     /* lines used after LINE in its L2 set */
    uint32_t owner;     /* the core whose L2 holds LINE's L2 copy (if any) */
    uint32_t core;      /* the core that accesses it */
} how;

/* The state s, the access a, run as `hw` says: the hierarchy against the
 * model. */
static void check(enum hier_mode mode, const how *hw, const access *a, unsigned s)
{
    mk_space sp;
    mk_space_init(&sp, mode, hw->ddio);
    double A[MK_MAX_STATES * MK_MAX_STATES], mr[MK_MAX_STATES], wb[MK_MAX_STATES];
    ddio_err e;
    if (a->pcie)
        cr_assert_eq(mk_access_matrix(&sp, a->req, 0, 0, A, mr, wb, &e), 0, "%s", e.msg);
    else
        cr_assert_eq(mk_cpu_matrix(&sp, a->ops, a->nops, 0, 0, A, mr, wb, &e), 0, "%s", e.msg);
    char what[200];
    snprintf(what, sizeof what, "%s%s%s, %s through %s by core %u of a line of core %u, %u lines newer in its L2",
             hier_mode_name(mode), hw->ddio ? "" : " (DDIO off)", hw->general_only ? " (general path only)" : "",
             a->name, entry_name[hw->entry],
             hw->core, hw->owner, hw->older);
    unsigned want = model_dest(&sp, A, s, what);

    hier h;
    tiny(&h, mode, hw->general_only, hw->ddio);
    place(&h, &sp, s, hw->owner, hw->older);
    unsigned reads0, wbs0, reads, wbs, hit = 0;
    traffic(&h, &reads0, &wbs0);
    for (unsigned k = 0; k < (a->pcie ? 1u : a->nops); k++) {
        unsigned hk = run(&h, hw->entry, a->pcie ? (uint8_t)a->req : op_kind(a->ops[k]), hw->core);
        if (k == 0)
            hit = hk;
    }
    traffic(&h, &reads, &wbs);
    reads -= reads0;
    wbs -= wbs0;
    hier_where w;
    int got = where(&h, &sp, &w);
    cr_expect_eq(got, (int)want, "%s, from %s: the hierarchy ends in LLC %s / L2 state %u (%s), the model in %s",
                 what, sp.name[s], hier_region_name((enum hier_region)w.llc_region), w.l2_state,
                 got >= 0 ? sp.name[got] : "no model state", sp.name[want]);
    if (w.l2_core >= 0)
        cr_expect_eq(w.l2_core, (int)(a->pcie ? hw->owner : hw->core), "%s, from %s: the L2 copy is in core %d",
                     what, sp.name[s], w.l2_core);
    cr_expect_eq(reads, mr[s], "%s, from %s: %u memory reads, the model %g", what, sp.name[s], reads, mr[s]);
    unsigned extra = model_extra_writebacks(mode, &sp, s, a);
    cr_expect_eq(wbs + extra, wb[s], "%s, from %s: %u write-backs (+ %u known to differ), the model %g", what,
                 sp.name[s], wbs, extra, wb[s]);
    /* A hit is the line anywhere but only in memory before the access,
     * which is the model's hit (1 - P(Memory) before the event); a request
     * that can never hit (a PCIe write, DDIO off) misses everywhere. */
    int can_hit = !a->pcie || mk_req_can_hit(&sp, a->req);
    cr_expect_eq(hit, can_hit && s != sp.mem, "%s, from %s: hit %u", what, sp.name[s], hit);
    hier_free(&h);
}

/* Every access the model has: the three PCIe requests, one core operation,
 * and every pair of core operations. */
static size_t accesses(access *out)
{
    static const enum coh_req pcie[] = {REQ_PCIE_WR_FULL, REQ_PCIE_WR_PART, REQ_PCIE_RD};
    static char names[DDIO_SEG_OP_COUNT * (DDIO_SEG_OP_COUNT + 1)][32];
    size_t n = 0, nn = 0;
    for (size_t i = 0; i < 3; i++)
        out[n++] = (access){.name = coh_req_name(pcie[i]), .pcie = 1, .req = pcie[i]};
    for (uint8_t a = 0; a < DDIO_SEG_OP_COUNT; a++) {
        snprintf(names[nn], sizeof names[nn], "core %s", op_name(a));
        out[n++] = (access){.name = names[nn++], .nops = 1, .ops = {a}};
        for (uint8_t b = 0; b < DDIO_SEG_OP_COUNT; b++) {
            snprintf(names[nn], sizeof names[nn], "core %s + %s", op_name(a), op_name(b));
            out[n++] = (access){.name = names[nn++], .nops = 2, .ops = {a, b}};
        }
    }
    return n;
}

/* `ddio` 0: DDIO off, the states in DDIO ways left out (no line can be
 * there). */
static void every_state_and_access(enum hier_mode mode, int general_only, int ddio)
{
    access acc[3 + DDIO_SEG_OP_COUNT * (DDIO_SEG_OP_COUNT + 1)];
    size_t na = accesses(acc);
    mk_space sp;
    mk_space_init(&sp, mode, ddio);
    for (unsigned s = 0; s < sp.n; s++)
        for (size_t i = 0; i < na && (ddio || sp.st[s].llc != REG_DDIO); i++)
            for (int en = 0; en < ENTRY_COUNT; en++)
                for (unsigned older = 0; older <= 2; older++) {
                    if (en == ENTRY_RUN && !acc[i].pcie)
                        continue;   /* DMA runs are the NIC's */
                    how hw = {general_only, ddio, (enum entry)en, older, 0, 0};
                    check(mode, &hw, &acc[i], s);
                    if (!acc[i].pcie && sp.st[s].l2 != ST_I) {
                        hw.owner = 1;   /* the line is in another core's L2 */
                        check(mode, &hw, &acc[i], s);
                    }
                }
}

Test(markov_hier, noninclusive_every_state_and_access)
{
    every_state_and_access(HIER_NONINCLUSIVE, 0, 1);
    every_state_and_access(HIER_NONINCLUSIVE, 1, 1);
}

Test(markov_hier, inclusive_every_state_and_access)
{
    every_state_and_access(HIER_INCLUSIVE, 0, 1);
    every_state_and_access(HIER_INCLUSIVE, 1, 1);
}

/* DDIO off (coherence.h, coh_lookup_io): the same comparison, the model's
 * space built without DDIO ways, the hierarchy with none (it then takes
 * its general path alone). */
Test(markov_hier, noddio_every_state_and_access)
{
    every_state_and_access(HIER_NONINCLUSIVE, 0, 0);
    every_state_and_access(HIER_INCLUSIVE, 0, 0);
}

/* The column rule the model and the hierarchy share, state by state, as
 * docs/cache-model.md writes it: an L2 copy in E/M first (inclusive: in any
 * state), then the LLC region, then an L2 copy in S, then memory. */
Test(markov_hier, column_of_every_state)
{
    static const struct {
        enum hier_mode mode;
        uint8_t llc, l2;
        enum coh_col col;
    } k[] = {
        {HIER_NONINCLUSIVE, REG_MEM, ST_M, COL_L2_EM},      {HIER_NONINCLUSIVE, REG_MEM, ST_S, COL_L2_S},
        {HIER_NONINCLUSIVE, REG_DDIO, ST_I, COL_DDIO},      {HIER_NONINCLUSIVE, REG_SHARED, ST_I, COL_SHARED},
        {HIER_NONINCLUSIVE, REG_SHARED, ST_S, COL_SHARED},  {HIER_NONINCLUSIVE, REG_L3, ST_I, COL_L3},
        {HIER_NONINCLUSIVE, REG_MEM, ST_I, COL_MEM},        {HIER_INCLUSIVE, REG_DDIO, ST_I, COL_DDIO},
        {HIER_INCLUSIVE, REG_L3, ST_I, COL_L3},             {HIER_INCLUSIVE, REG_DDIO, ST_M, COL_L2_EM},
        {HIER_INCLUSIVE, REG_L3, ST_M, COL_L2_EM},          {HIER_INCLUSIVE, REG_MEM, ST_I, COL_MEM},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        mk_space sp;
        mk_space_init(&sp, k[i].mode, 1);
        int s = mk_space_find(&sp, k[i].llc, k[i].l2);
        cr_assert_geq(s, 0);
        cr_expect_eq(mk_state_col(&sp, (unsigned)s), k[i].col, "%s %s", hier_mode_name(k[i].mode), sp.name[s]);
        cr_expect_eq(coh_col_of(k[i].mode, (enum hier_region)k[i].llc, (enum coh_state)k[i].l2), k[i].col);
    }
    /* E is M's column; an inclusive L2(S) copy of an LLC line is L2(S). */
    cr_expect_eq(coh_col_of(HIER_NONINCLUSIVE, REG_MEM, ST_E), COL_L2_EM);
    cr_expect_eq(coh_col_of(HIER_INCLUSIVE, REG_L3, ST_S), COL_L2_S);
}

/* The L2-hit rule and the state of a new L2 copy, written out. */
Test(markov_hier, l2_hit_and_fill_rules)
{
    cr_expect_eq(coh_l2_hit_state(REQ_CORE_RD, ST_S), ST_S);
    cr_expect_eq(coh_l2_hit_state(REQ_CORE_RD, ST_E), ST_E);
    cr_expect_eq(coh_l2_hit_state(REQ_CORE_WR, ST_S), ST_M);
    cr_expect_eq(coh_l2_hit_state(REQ_CORE_WR, ST_E), ST_M);
    cr_expect_eq(coh_l2_hit_takes_llc(HIER_NONINCLUSIVE, REQ_CORE_WR, ST_S), 1);
    cr_expect_eq(coh_l2_hit_takes_llc(HIER_INCLUSIVE, REQ_CORE_WR, ST_S), 0);
    cr_expect_eq(coh_l2_hit_takes_llc(HIER_NONINCLUSIVE, REQ_CORE_RD, ST_S), 0);
    cr_expect_eq(coh_l2_hit_takes_llc(HIER_NONINCLUSIVE, REQ_CORE_WR, ST_E), 0);
    /* Non-inclusive: a dirty line moving up is M, a clean one E; inclusive
     * the LLC keeps the dirt; a write is M whatever the cell says. */
    cr_expect_eq(coh_core_fill_state(HIER_NONINCLUSIVE, REQ_CORE_RD, L2_TO_EM, 1), ST_M);
    cr_expect_eq(coh_core_fill_state(HIER_NONINCLUSIVE, REQ_CORE_RD, L2_TO_EM, 0), ST_E);
    cr_expect_eq(coh_core_fill_state(HIER_INCLUSIVE, REQ_CORE_RD, L2_TO_EM, 1), ST_E);
    cr_expect_eq(coh_core_fill_state(HIER_NONINCLUSIVE, REQ_CORE_RD, L2_TO_S, 1), ST_S);
    cr_expect_eq(coh_core_fill_state(HIER_NONINCLUSIVE, REQ_CORE_WR, L2_TO_E, 0), ST_M);
    cr_expect_eq(coh_core_fill_state(HIER_NONINCLUSIVE, REQ_CORE_WR, L2_TO_S, 0), ST_M);
    cr_expect_eq(coh_core_fill_state(HIER_NONINCLUSIVE, REQ_CORE_RD, L2_DROP, 1), ST_I);
}

/* The disagreement model_extra_writebacks allows, pinned: a Broadwell core
 * reads a buffer line the LLC lost, then flushes it.  The hierarchy has
 * L3(E) + L2(E) after the read (clean: Table 1) and writes nothing back;
 * the model, whose lines are all dirty, counts one write-back.  If either
 * side changes, this test says so. */
Test(markov_hier, inclusive_read_miss_then_flush_write_backs)
{
    mk_space sp;
    mk_space_init(&sp, HIER_INCLUSIVE, 1);
    double A[MK_MAX_STATES * MK_MAX_STATES], mr[MK_MAX_STATES], wb[MK_MAX_STATES];
    const uint8_t ops[] = {DDIO_SEG_READ, DDIO_SEG_FLUSH};
    ddio_err e;
    cr_assert_eq(mk_cpu_matrix(&sp, ops, 2, 0, 0, A, mr, wb, &e), 0, "%s", e.msg);
    cr_expect_eq(A[sp.mem * sp.n + sp.mem], 1.0);
    cr_expect_eq(mr[sp.mem], 1.0);
    cr_expect_eq(wb[sp.mem], 1.0);

    hier h;
    tiny(&h, HIER_INCLUSIVE, 0, 1);
    hier_result r;
    hier_access(&h, REQ_CORE_RD, 0, LINE, 0, &r);
    hier_where w = hier_locate(&h, LINE);
    cr_expect_eq(w.llc_region, REG_L3);
    cr_expect_eq(w.llc_state, ST_E);
    cr_expect_eq(w.l2_state, ST_E);
    hier_flush(&h, LINE, &r);
    cr_expect_eq(r.mem_writebacks, 0);
    hier_free(&h);
}
