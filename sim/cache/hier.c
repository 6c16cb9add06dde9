/* hier.c - the hierarchy's semantics: configuration, init, and the general
 * access that executes the coherence table (coherence.c, the paper's
 * Table 1) cell by cell on a way-partitioned LLC and per-core L2s, with the
 * evictions, hier_place, hier_locate and hier_flush.  What it does is the
 * definition; hier_fast.c (single accesses) and hier_run.c (DMA runs) take
 * shortcuts derived from it, and the tests check them against it.  See
 * docs/cache-model.md for the choices made where Table 1 is silent. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cache/hier_int.h"

void hier_config_default(hier_config *c)
{
    memset(c, 0, sizeof *c);
    c->mode = HIER_NONINCLUSIVE;
    /* Xeon Gold 6140: 18 slices x 2048 sets x 11 ways x 64 B = 24.75 MiB,
     * its measured slice hash over 2 MiB pages at random frames. */
    c->llc = (cache_geom){.line_size = 64, .slices = 18, .sets_per_slice = 2048, .ways = 11,
                          .mapping = MAP_SKX18, .seed = 1, .frame_shift = 21};
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
    if (c->ddio_mask & ~full)   /* 0: DDIO off (coherence.h, coh_lookup_io) */
        return ddio_errf(e, DDIO_EXIT_USAGE, "ddio_mask: 0x%llx selects ways beyond the %u of the LLC",
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

/* --- moving lines: takes, fills and the evictions they cause ----------------- */

/* Remove `line`, found in (set, way) of `core`'s L2; returns its state. */
static uint8_t l2_take_at(hier *h, uint32_t core, uint64_t line, uint32_t set, uint32_t way)
{
    uint8_t st = l2_remove_at(h, core, set, way);
    snoop_erase(&h->sf, line);
    return st;
}

__attribute__((noinline)) int hier_llc_victim_l2(hier *h, uint32_t way, uint64_t line)
{
    const coh_cell *cell = coh_lookup(h->cfg.mode, REQ_EVICT, coh_region_col((enum hier_region)h->way_region[way]));
    assert(cell->llc == LLC_TO_MEM);
    if (cell->l2 != L2_DROP)
        return 0;
    /* Inclusive: back-invalidate the L2 copy; its dirt goes to memory too. */
    uint32_t sway;
    uint64_t sslot = 0;
    int owner = snoop_get_slot(&h->sf, line, &sway, &sslot);
    return owner >= 0 && l2_take(h, (uint32_t)owner, line, sway, sslot) == ST_M;
}

uint32_t hier_llc_insert(hier *h, uint64_t line, uint32_t set, uint64_t mask, uint8_t state, hier_result *res)
{
    struct hier_fast *const f = hier_fast_of(h);
    llc_absent_check(h, line, set);
    cache_evicted ev;
    uint32_t way = fill_in(&h->llc, f->llc_recency, f->llc_lru_fill, &f->llc_evict, set, mask, line, state, &ev);
    if (__builtin_expect(ev.line != CACHE_INVALID, 0))
        llc_victim_at(h, way, ev.line, ev.meta, res);
    return way;
}

__attribute__((noinline)) uint32_t hier_llc_insert_lru(hier *h, uint64_t line, uint32_t set, uint64_t mask,
                                                      uint8_t state, hier_result *res)
{
    llc_absent_check(h, line, set);
    return llc_fill_lru(h, line, set, mask, state, res);
}

void hier_l2_victim(hier *h, uint32_t core, uint64_t line, uint8_t meta, hier_result *res)
{
    h->stats.l2_evictions++;
    snoop_erase(&h->sf, line);
    uint8_t st = META_STATE(meta);
    const coh_cell *cell = coh_lookup(h->cfg.mode, REQ_EVICT, coh_l2_col((enum coh_state)st));
    assert(cell->defined);
    if (cell->llc == LLC_TO_CORE) {
        /* Non-inclusive: an E/M line leaves L2 for the core's L3* ways. */
        h->stats.l2_to_llc++;
        hier_llc_insert(h, line, cache_set(&h->llc, line), core_mask(h, core),
                        (uint8_t)coh_llc_fill_state(st == ST_M), res);
    } else if (cell->llc == LLC_KEEP && cell->llc_state == ST_M && st == ST_M) {
        /* Inclusive: a dirty L2 victim is written into its LLC copy. */
        uint32_t set = cache_set(&h->llc, line);
        int way = find_in(&h->llc, set, line);
        assert(way >= 0 && "inclusive LLC lost an L2 line");
        *cache_meta(&h->llc, set, (uint32_t)way) = ST_M;
    }
}

/* Put the absent `line` in `core`'s L2 in state `state`. */
static void l2_insert(hier *h, uint32_t core, uint64_t line, uint8_t state, hier_result *res)
{
    l2_insert_at_slot(h, core, line, state, L2_NO_SLOT, res);
}

/* hier_llc_insert for a line whose set is not known yet. */
static void llc_insert(hier *h, uint64_t line, uint64_t mask, uint8_t state, hier_result *res)
{
    hier_llc_insert(h, line, cache_set(&h->llc, line), mask, state, res);
}

/* --- one access ---------------------------------------------------------- */

/* Where a line is before a request (hier_access_general). */
typedef struct line_place {
    int llc_way;        /* -1: not in the LLC */
    uint8_t llc_st;     /* its LLC copy's state, ST_I if none */
    int owner;          /* the core whose L2 holds it, -1: none */
    uint32_t l2_set;    /* there: its set, way and state (ST_I if none) */
    int l2_way;
    uint8_t l2_st;
} line_place;

/* Find `line` (LLC set `llc_set`, where cache_match gave `llc_match`) in
 * the LLC and the L2s. */
static void find_line(hier *h, uint64_t line, uint32_t llc_set, uint64_t llc_match, line_place *p)
{
    p->llc_way = llc_match ? __builtin_ctzll(llc_match) : -1;
    p->llc_st = p->llc_way >= 0 ? META_STATE(*cache_meta(&h->llc, llc_set, (uint32_t)p->llc_way)) : ST_I;
    /* Non-inclusive, only a line the Shared ways hold can also have an L2
     * copy (the S copy a PCIe read leaves); skip the snoop filter otherwise. */
    p->owner = -1;
    uint32_t sway = 0;
    if (h->cfg.mode == HIER_INCLUSIVE || p->llc_way < 0 || ((h->cfg.shared_mask >> p->llc_way) & 1))
        p->owner = snoop_get_way(&h->sf, line, &sway);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    else
        assert(snoop_get(&h->sf, line) < 0 && "a DDIO/L3* line with an L2 copy");
#endif
    p->l2_st = ST_I;
    p->l2_set = 0;
    p->l2_way = -1;
    if (p->owner >= 0) {
        p->l2_set = l2_set_of(h, line);
        p->l2_way = (int)l2_way_of(h, (uint32_t)p->owner, p->l2_set, line, sway);
        p->l2_st = META_STATE(*cache_meta(&h->l2[p->owner], p->l2_set, (uint32_t)p->l2_way));
    }
    /* Hierarchy invariants. */
    assert(h->cfg.mode != HIER_NONINCLUSIVE || !(p->llc_way >= 0 && (p->l2_st == ST_E || p->l2_st == ST_M)));
    assert(h->cfg.mode != HIER_INCLUSIVE || p->owner < 0 || p->llc_way >= 0);
}

/* A core request for a line some L2 holds (`p`): served by L2 (Table 1
 * has no row for it, choices 5 and 6).  A line in another core's L2
 * migrates to the requester. */
static void core_l2_hit(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint32_t llc_set,
                        const line_place *p, hier_result *res)
{
    const enum coh_state st = (enum coh_state)p->l2_st;
    cache *l2 = &h->l2[p->owner];
    uint32_t set = p->l2_set;
    int way = p->l2_way;
    res->hit = 1;
    res->col = coh_l2_col(st);
    res->region = REG_L2;
    if ((uint32_t)p->owner != core) {
        l2_take_at(h, (uint32_t)p->owner, line, set, (uint32_t)way);
        l2_insert(h, core, line, st, res);
        l2 = &h->l2[core];
        set = l2_set_of(h, line);
        way = find_in(l2, set, line);
        assert(way >= 0);
    } else {
        l2_touch(h, l2, set, (uint32_t)way);
    }
    if (coh_l2_hit_state(req, st) != st) {
        /* Upgrade: a non-inclusive LLC gives up its (Shared) copy, and its
         * dirt, to the writer; an inclusive one keeps a stale copy. */
        if (coh_l2_hit_takes_llc(h->cfg.mode, req, st) && p->llc_way >= 0)
            remove_in(&h->llc, hier_fast_of(h)->llc_recency, &hier_fast_of(h)->llc_evict, llc_set, (uint32_t)p->llc_way);
        *cache_meta(l2, set, (uint32_t)way) = (uint8_t)coh_l2_hit_state(req, st);
    }
}

/* Does an LLC hit of req update the replacement state?  A core's always;
 * a PCIe request's unless the configuration leaves it still. */
static int hit_updates(const hier *h, enum coh_req req)
{
    unsigned still = req == REQ_PCIE_RD                                     ? HIER_STILL_PCIE_RD
                     : req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART ? HIER_STILL_PCIE_WR
                                                                            : 0;
    return !(h->cfg.pcie_hit_still & still);
}

/* The LLC half of `cell` for the line at `p` (`dirty`: its data differs
 * from memory, or the request writes).  Returns whether the dirt is still
 * the new L2 copy's to carry: an inclusive miss leaves it with the L2. */
static int llc_action(hier *h, enum coh_req req, const coh_cell *cell, uint32_t core, uint64_t line, uint32_t llc_set,
                      const line_place *p, int dirty, hier_result *res)
{
    switch ((enum coh_llc)cell->llc) {
    case LLC_KEEP:
        if (p->llc_way >= 0) {
            if (hit_updates(h, req))
                llc_touch(h, llc_set, (uint32_t)p->llc_way);
            uint8_t *meta = cache_meta(&h->llc, llc_set, (uint32_t)p->llc_way);
            *meta = (uint8_t)coh_keep_state(req, dirty ? ST_M : (enum coh_state)p->llc_st);
        }
        return dirty;
    case LLC_DROP:
        assert(p->llc_way >= 0);
        remove_in(&h->llc, hier_fast_of(h)->llc_recency, &hier_fast_of(h)->llc_evict, llc_set, (uint32_t)p->llc_way);
        return dirty;
    case LLC_TO_DDIO:
        assert(p->llc_way < 0);
        hier_llc_insert(h, line, llc_set, h->cfg.ddio_mask, (uint8_t)coh_llc_fill_state(dirty), res);
        return dirty;
    case LLC_TO_SHARED:
        assert(p->llc_way < 0);
        hier_llc_insert(h, line, llc_set, h->cfg.shared_mask, (uint8_t)coh_llc_fill_state(dirty), res);
        return dirty;
    case LLC_TO_CORE:
        /* Inclusive miss: L3(E) + an L2 copy that carries any later write. */
        assert(p->llc_way < 0);
        hier_llc_insert(h, line, llc_set, core_mask(h, core), ST_E, res);
        return 0;
    case LLC_WRITE_MEM:
        /* DDIO off: the copy goes, the request writes the line to memory. */
        if (p->llc_way >= 0)
            remove_in(&h->llc, hier_fast_of(h)->llc_recency, &hier_fast_of(h)->llc_evict, llc_set, (uint32_t)p->llc_way);
        res->mem_writebacks += (uint8_t)coh_cell_mem_writes(cell);
        return 0;
    case LLC_TO_MEM:
        break;
    }
    assert(0 && "eviction row used for an access");
    return dirty;
}

/* Every request, cell by cell (hier_int.h): find the line, read the cell
 * of its column, carry out the cell's L2 action, then its LLC action, then
 * a core request's new L2 copy. */
__attribute__((noinline)) void hier_access_general(hier *h, enum coh_req req, uint32_t core, uint64_t line,
                                                 uint32_t llc_set, uint64_t llc_match, hier_result *res)
{
    assert(req < REQ_EVICT);
    memset(res, 0, sizeof *res);
    const int is_core = req == REQ_CORE_RD || req == REQ_CORE_WR;
    const int is_pcie_write = req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART;
    assert(!is_core || core < h->cfg.cores);
    line_place p;
    find_line(h, line, llc_set, llc_match, &p);
    if (is_core && p.owner >= 0) {
        core_l2_hit(h, req, core, line, llc_set, &p, res);
        count_access(h, req, res);
        return;
    }

    enum coh_col col = coh_col_of(h->cfg.mode, p.llc_way >= 0 ? (enum hier_region)h->way_region[p.llc_way] : REG_MEM,
                                  (enum coh_state)p.l2_st);
    const coh_cell *cell = coh_lookup_io(h->cfg.mode, h->cfg.ddio_mask != 0, req, col);
    assert(cell && cell->defined && "request met a state Table 1 does not cover");
    res->col = (uint8_t)col;
    res->region = col_region(col);
    res->hit = (uint8_t)coh_cell_hit(cell, col);
    res->mem_reads = cell->mem_read;

    /* The L2 copy first: a dropped copy hands its dirt to `dirty`. */
    int dirty = p.l2_st == ST_M || p.llc_st == ST_M || is_pcie_write;
    if (cell->l2 == L2_DROP && p.owner >= 0)
        l2_take_at(h, (uint32_t)p.owner, line, p.l2_set, (uint32_t)p.l2_way);
    else if (cell->l2 == L2_TO_S && p.owner >= 0)
        *cache_meta(&h->l2[p.owner], p.l2_set, (uint32_t)p.l2_way) = ST_S;
    dirty = llc_action(h, req, cell, core, line, llc_set, &p, dirty, res);
    if (is_core) {
        uint8_t st = (uint8_t)coh_core_fill_state(h->cfg.mode, req, (enum coh_l2)cell->l2, dirty);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        assert(st != ST_I && "core request without an L2 destination");
#endif
        l2_insert(h, core, line, st, res);
    }
    count_access(h, req, res);
}

/* --- outside Table 1: flush, place, locate --------------------------------- */

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
    uint8_t st = (uint8_t)coh_llc_fill_state(dirty);
    int incl = h->cfg.mode == HIER_INCLUSIVE;
    switch (col) {
    case COL_DDIO:
        if (!h->cfg.ddio_mask)
            return -1;   /* DDIO off: no DDIO ways */
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
