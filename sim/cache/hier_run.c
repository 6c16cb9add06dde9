/* hier_run.c - the NIC's DMA runs: the n consecutive lines of one buffer
 * read or written in one go (hier_dma_run), with the per-line work that
 * does not change a result (set mapping, lookups, counters) shared over
 * the run.  Each line has exactly the effect of one hier_access (the tests
 * compare both on random runs); the lines no fast path takes go through
 * hier_fast.c's and hier.c's paths. */
#include <assert.h>

#include "sim/cache/hier_int.h"

#define RUN_CHUNK 64u

static inline __attribute__((always_inline)) void prefetch_set(const cache *c, uint32_t set)
{
    const uint8_t *b = (const uint8_t *)cache_tags(c, set);   /* the block's start */
    __builtin_prefetch(b);
    if (c->block_bytes > 64)
        __builtin_prefetch(b + 64);
}

/* A write run's full lines that missed in its tight loop (run_miss):
 * their counts, added to the counters at the run's end (run_count), and
 * the run's hint words, which a miss rewrites. */
typedef struct run_misses {
    hier_hint_word *hints;      /* the run's hint words (pcie_run's `hints`) */
    uint32_t misses, writebacks;
} run_misses;

/* The hint word of (set, way) as the runs store it: hier_hint_at in 32
 * bits, which it fits when hints are kept (hier_fast.run_hints). */
static inline __attribute__((always_inline)) hier_hint_word run_hint_at(uint32_t set, uint32_t way)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(set < HIER_HINT_MAX_SETS && way <= HIER_HINT_NO_WAY);
#endif
    return (hier_hint_word)hier_hint_at(set, way);
}

/* Line `line` of a write run, a full line whose hint *hp names its set
 * (block `blk`) and a way holding another line: when no way holds it and
 * no L2 has a copy, fast path 5's cell of a line only in memory (no hit,
 * derive_runs) without its frame: the LRU fill into the DDIO ways with the
 * victim's cell (llc_fill_lru, as pcie_wr_miss_at's), the counts in `mc`,
 * the hint word.  At many cores most of a buffer's lines miss, each one
 * here instead of leaving the tight loop.  Returns 0, nothing done, for
 * any other line.  Inline: only write_run_miss's loop has it, and there a
 * call's frame cost more (~25 a line) than the registers it saves. */
static inline __attribute__((always_inline)) int run_miss(hier *h, run_misses *mc, const hier_hint_word *hp,
                                                          uint64_t line, const uint8_t *blk)
{
    if (sb_match((const uint64_t *)(const void *)blk, h->llc.tag_slots, line) || snoop_get(&h->sf, line) >= 0)
        return 0;
    const uint32_t set = (uint32_t)(*hp >> 8) - 1;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(hier_fast_of(h)->run_miss_lean && set == cache_set(&h->llc, line));
    assert(blk == (const uint8_t *)cache_tags(&h->llc, set));
#endif
    hier_result res = {0};   /* the victim's write-back */
    const uint32_t way = llc_fill_lru(h, line, set, hier_fast_of(h)->wr_miss_mask, ST_M, &res);
    mc->misses++;
    mc->writebacks += res.mem_writebacks;
    mc->hints[hp - mc->hints] = run_hint_at(set, way);
    HIER_TAKEN(h, run_misses, 1);
    return 1;
}

/* pcie_run's tight loop over the hints hp..he of lines line..: full lines
 * whose hint names both the set and a way of `plain_tight` holding the
 * line, and (`mc`, a write run's, not NULL) the full lines run_miss takes;
 * returns where it stopped.  `l`: the LLC's block layout, constants
 * at the usual call; `rule`: the LLC policy's hit rule, its kind a
 * constant (run_tight). */
static inline __attribute__((always_inline)) const hier_hint_word *
tight_lines(hier *h, int write, const hier_hint_word *hp, const hier_hint_word *he, uint64_t line, uintptr_t blocks_m1,
            sb_layout l, uint64_t plain_tight, const repl_hit_rule rule, uint32_t *cnt, run_misses *mc)
{
    for (; hp < he; hp++, line++) {
        const uint64_t hv = *hp;
        const uint32_t w = (uint32_t)hv & 63;
        /* A zero hint (a line no run met yet) reads way 0 of the guard
         * block before set 0 (cache.h), whose tags hold no line. */
        if (!((plain_tight >> w) & 1))
            break;
        uint8_t *blk = (uint8_t *)(blocks_m1 + (hv >> 8) * l.block_bytes);   /* cache_tags */
        if (((const uint64_t *)(const void *)blk)[w] != line) {
            if (write && mc && run_miss(h, mc, hp, line, blk))
                continue;
            break;
        }
#ifdef DDIOSIM_EXPENSIVE_CHECKS
        const uint32_t set = (uint32_t)(hv >> 8) - 1;
        assert(w == (hv & 0xFF) && w < h->llc.ways);
        assert(blk == (uint8_t *)cache_tags(&h->llc, set));
        assert(set == cache_set(&h->llc, line));
        assert((1ull << w) == match_in(&h->llc, set, line));
        assert((((h->cfg.shared_mask >> w) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
        assert(sb_meta(l, blk, w) == cache_meta(&h->llc, set, w));
        assert(blk + l.repl_off == repl_line_state(h->llc.repl, set));
#endif
        /* the policy's bytes in the block: llc_run_inline */
        sb_keep_hit_rule(l, blk, w, write ? REQ_PCIE_WR_FULL : REQ_PCIE_RD, &rule);
        cnt[hier_fast_of(h)->fast_col[w]]++;
    }
    return hp;
}

static const repl_hit_rule nibble_rule = {.kind = REPL_HIT_NIBBLE};

/* tight_lines for QLRU on the 9-12-way block layout (the usual LLCs'),
 * for ageing rule U<u> (or UMO: none after a hit) as a constant: the hit's
 * other fields then stay in registers; the rule copied first (a metadata
 * store may alias the fast state). */
static inline __attribute__((always_inline)) const hier_hint_word *
tight_qlru(hier *h, int write, const hier_hint_word *hp, const hier_hint_word *he, uint64_t line, uintptr_t blocks_m1,
           uint64_t plain_tight, uint32_t *cnt, uint8_t u, uint8_t umo)
{
    repl_hit_rule rk = hier_fast_of(h)->llc_hit;
    assert(rk.kind == REPL_HIT_QLRU && rk.qlru_umo == umo && (umo || rk.qlru_u == u));
    rk.kind = REPL_HIT_QLRU;
    rk.qlru_u = u;
    rk.qlru_umo = umo;
    return tight_lines(h, write, hp, he, line, blocks_m1, sb_layout_make(12, sizeof(uint64_t)), plain_tight, rk, cnt,
                       NULL);
}

#define TIGHT_ARGS                                                                                                     \
    hier *h, int write, const hier_hint_word *hp, const hier_hint_word *he, uint64_t line, uintptr_t blocks_m1,       \
        uint64_t plain_tight, uint32_t *cnt

/* The tight loops out of line, one per run direction each (`write` a
 * constant: a read's state stays, a write's becomes M, with no test and
 * one register more for the loop): name_rd and name_wr running `call`
 * with `write` 0 and 1. */
#define TIGHT_PAIR(name, call)                                                                                         \
    static __attribute__((noinline)) const hier_hint_word *name##_rd(TIGHT_ARGS)                                      \
    {                                                                                                                  \
        assert(!write);                                                                                                \
        enum { W = 0 };                                                                                                \
        return call;                                                                                                   \
    }                                                                                                                  \
    static __attribute__((noinline)) const hier_hint_word *name##_wr(TIGHT_ARGS)                                      \
    {                                                                                                                  \
        assert(write);                                                                                                 \
        enum { W = 1 };                                                                                                \
        return call;                                                                                                   \
    }

TIGHT_PAIR(tight_qlru_u0, tight_qlru(h, W, hp, he, line, blocks_m1, plain_tight, cnt, 0, 0))
TIGHT_PAIR(tight_qlru_u1, tight_qlru(h, W, hp, he, line, blocks_m1, plain_tight, cnt, 1, 0))
TIGHT_PAIR(tight_qlru_u2, tight_qlru(h, W, hp, he, line, blocks_m1, plain_tight, cnt, 2, 0))
TIGHT_PAIR(tight_qlru_u3, tight_qlru(h, W, hp, he, line, blocks_m1, plain_tight, cnt, 3, 0))
TIGHT_PAIR(tight_qlru_umo, tight_qlru(h, W, hp, he, line, blocks_m1, plain_tight, cnt, 0, 1))

/* RRIP (any block layout), and QLRU on other layouts (the rule's fields
 * loaded), the kind a constant in each. */
static inline __attribute__((always_inline)) const hier_hint_word *tight_rrpv(TIGHT_ARGS)
{
    repl_hit_rule rk = hier_fast_of(h)->llc_hit;
    assert(rk.kind == REPL_HIT_RRPV);
    rk.kind = REPL_HIT_RRPV;
    return tight_lines(h, write, hp, he, line, blocks_m1, sb_layout_of(&h->llc), plain_tight, rk, cnt, NULL);
}

static inline __attribute__((always_inline)) const hier_hint_word *tight_qlru_any(TIGHT_ARGS)
{
    repl_hit_rule rk = hier_fast_of(h)->llc_hit;
    assert(rk.kind == REPL_HIT_QLRU);
    rk.kind = REPL_HIT_QLRU;
    return tight_lines(h, write, hp, he, line, blocks_m1, sb_layout_of(&h->llc), plain_tight, rk, cnt, NULL);
}

TIGHT_PAIR(tight_rrpv, tight_rrpv(h, W, hp, he, line, blocks_m1, plain_tight, cnt))
TIGHT_PAIR(tight_qlru_any, tight_qlru_any(h, W, hp, he, line, blocks_m1, plain_tight, cnt))

#undef TIGHT_PAIR
#undef TIGHT_ARGS

hier_tight_fn hier_run_tight_of(const hier *h, int write)
{
    const struct hier_fast *f = hier_fast_of(h);
    const repl_hit_rule *r = &f->llc_hit;
    if (!f->llc_run_inline || r->kind == REPL_HIT_NIBBLE || r->kind == REPL_HIT_OPS)
        return NULL;
    if (r->kind == REPL_HIT_RRPV)
        return write ? tight_rrpv_wr : tight_rrpv_rd;
    assert(r->kind == REPL_HIT_QLRU);
    if (!sb_same_places(sb_layout_of(&h->llc), sb_layout_make(12, sizeof(uint64_t))))
        return write ? tight_qlru_any_wr : tight_qlru_any_rd;
    if (r->qlru_umo)
        return write ? tight_qlru_umo_wr : tight_qlru_umo_rd;
    static const hier_tight_fn by_u[2][4] = {
        {tight_qlru_u0_rd, tight_qlru_u1_rd, tight_qlru_u2_rd, tight_qlru_u3_rd},
        {tight_qlru_u0_wr, tight_qlru_u1_wr, tight_qlru_u2_wr, tight_qlru_u3_wr},
    };
    assert(r->qlru_u < 4);
    return by_u[write != 0][r->qlru_u];
}

/* One DMA run's constants and its counts so far (pcie_run).  A local of
 * pcie_run, whose helpers are all inline: the compiler keeps its fields in
 * registers, as locals of one function.  (Not the full lines' counts by
 * column, `cnt`, an array indexed by a variable: in the struct it would
 * keep the struct in memory, and its fields would be loaded again after
 * each metadata store, which may alias them.) */
typedef struct run {
    sb_layout lay;              /* the LLC's block layout */
    uint8_t *blocks;            /* its set blocks */
    uint64_t first;             /* the run's first line */
    enum coh_req req_full;      /* the request of a full line */
    uint32_t part_first, part_last;     /* the partial lines' indices (UINT32_MAX: none) */
    uint32_t tight_lo, tight_hi;        /* the tight loop's range: no partial line */
    int lean;                   /* the tight loop: the hit inline on the set blocks (llc_run_inline) */
    repl_hit_kind kind;         /* the LLC policy's hit rule's kind (the rule: hier_fast.llc_hit) */
    uint64_t plain_tight;       /* full lines' ways for the tight loop (fast, no L2 copy to drop) */
    uint64_t drop_tight;        /* full lines' drop ways (an L2 (S) copy is dropped first) */
    uint64_t plain_part;        /* a partial write's plain ways (the run's tail line) */
    uintptr_t blocks_m1;        /* set s's block is at blocks_m1 + (s + 1) x block_bytes */
    int geom12;                 /* the LLC block layout of 9 - 12 ways with a nibble order */
    uint32_t hits, phits;       /* hits, and hits of partial lines */
} run;

/* The set block of the set a hint word `hv` names (cache_tags of set
 * (hv >> 8) - 1; a zero hint: the guard block before set 0, cache.h). */
static inline __attribute__((always_inline)) uint8_t *run_block(const run *r, uint64_t hv)
{
    return (uint8_t *)(r->blocks_m1 + (hv >> 8) * r->lay.block_bytes);
}

/* The constants of a run of `n` lines from `first`. */
static inline __attribute__((always_inline)) void run_init(hier *h, run *r, int write, uint64_t first, uint32_t n,
                                                           int head_partial, int tail_partial)
{
    const struct hier_fast *const f = hier_fast_of(h);
    r->lay = sb_layout_of(&h->llc);
    r->blocks = h->llc.blocks;
    r->first = first;
    r->req_full = write ? REQ_PCIE_WR_FULL : REQ_PCIE_RD;
    r->part_first = write && head_partial ? 0 : UINT32_MAX;
    r->part_last = write && tail_partial ? n - 1 : UINT32_MAX;
    r->tight_lo = r->part_first == 0 ? 1 : 0;
    r->tight_hi = r->part_last == n - 1 ? n - 1 : n;
    r->lean = f->llc_run_inline;
    r->kind = f->llc_hit.kind;
    /* The tight loop tests a hint's way byte (a way, or HIER_HINT_NO_WAY) by
     * its low 6 bits in these masks, without a bound check against `ways`:
     * way 63 is left out, so
     * HIER_HINT_NO_WAY (63 in those bits) fails (hier_derive.c derive_runs, at init). */
    _Static_assert((HIER_HINT_NO_WAY & 63) == 63 && CACHE_MAX_WAYS <= 64, "a hint's way byte: a way, or HIER_HINT_NO_WAY");
    r->plain_tight = f->run_plain[write];
    r->drop_tight = write ? f->run_drop : 0;
    r->plain_part = write ? f->run_plain_part : 0;
    /* A hint word's upper part (set + 1) indexes a block directly. */
    r->blocks_m1 = (uintptr_t)r->blocks - r->lay.block_bytes;
    r->geom12 = sb_same_places(r->lay, sb_layout_make(12, sizeof(uint64_t)));
    r->hits = 0;
    r->phits = 0;
}

/* Start loading the set blocks of lines base..base+m-1 of the run; without
 * hints their sets go to `sets`. */
static inline __attribute__((always_inline)) void run_prefetch(hier *h, const run *r, int write,
                                                               const hier_hint_word *hints, uint32_t base, uint32_t m,
                                                               uint32_t *sets)
{
    if (hints && write) {
        /* The set from the hint (the line code reads it again), both host
         * lines of its block prefetched unconditionally (a prefetch past a
         * one-line block is harmless).  Not for a read run: its lines are
         * the ones a write run did shortly before, so their blocks are
         * still in the host's caches (docs/performance.md). */
        for (const hier_hint_word *hp = hints + base, *he = hp + m; hp < he; hp++) {
            /* A zero hint (a buffer's first DMA) prefetches the guard
             * block (cache.h): no test per line. */
            const uint64_t hv = *hp;
            /* cache_tags of the hint's set */
            const uint8_t *b = run_block(r, hv);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
            const uint64_t line = r->first + (uint64_t)(hp - hints);
            assert((!hv || b == (const uint8_t *)cache_tags(&h->llc, cache_set(&h->llc, line))) &&
                   "a line hint with a wrong set");
#endif
            __builtin_prefetch(b);
            __builtin_prefetch(b + 64);
        }
    } else if (!hints) {
        cache_mapper_set_run(&h->llc.map, r->first + base, m, sets);
        for (uint32_t i = 0; i < m; i++)
            prefetch_set(&h->llc, sets[i]);
    }
}

/* Line k of a write run, when its hint names a way of `ways` that holds
 * it: its set block, and its way in *w, else NULL. */
static inline __attribute__((always_inline)) uint8_t *run_hinted(const hier *h, const run *r, const hier_hint_word *hints,
                                                                 uint32_t k, uint64_t ways, uint32_t *w)
{
    const uint64_t hv = hints[k];
    *w = (uint32_t)hv & 63;
    uint8_t *blk = run_block(r, hv);
    if (!((ways >> *w) & 1) || ((const uint64_t *)(const void *)blk)[*w] != r->first + k)   /* 0: the guard */
        return NULL;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    const uint32_t set = (uint32_t)(hv >> 8) - 1;
    assert(*w == (hv & 0xFF) && set == cache_set(&h->llc, r->first + k));
    assert((1ull << *w) == match_in(&h->llc, set, r->first + k));
#else
    (void)h;
#endif
    return blk;
}

/* The tight loop's work for the line in way w of LLC set block `blk`, a
 * write run's LLC_KEEP (`req`: full or partial): the order word, the
 * state, the counts but the column's. */
static inline __attribute__((always_inline)) void tight_hit(hier *h, run *r, uint8_t *blk, uint32_t w,
                                                            enum coh_req req)
{
    if (r->kind == REPL_HIT_NIBBLE)
        sb_keep_hit(r->lay, blk, w, req);
    else
        sb_keep_hit_rule(r->lay, blk, w, req, &hier_fast_of(h)->llc_hit);
    r->hits++;
    HIER_TAKEN(h, tight_lines, 1);
}

/* Line k of a write run, a full line, when its hint names a drop way that
 * holds it (a packet's first line: in the Shared way its last read run's
 * copy went to, with the core's L2 (S) copy, which is dropped): the tight
 * loop's work.  Returns 1 when done. */
static inline __attribute__((always_inline)) int tight_drop_line(hier *h, run *r, uint32_t *cnt,
                                                                 const hier_hint_word *hints, uint32_t k)
{
    uint32_t w;
    uint8_t *blk = run_hinted(h, r, hints, k, r->drop_tight, &w);
    if (!blk)
        return 0;
    l2_drop_any(h, r->first + k);
    tight_hit(h, r, blk, w, REQ_PCIE_WR_FULL);
    cnt[hier_fast_of(h)->fast_col[w]]++;
    return 1;
}

/* The partial last line k of a write run (most runs' tail), when its hint
 * names a plain way of the partial write that holds it: the tight loop's
 * work, counted as partial.  Returns 1 when done. */
static inline __attribute__((always_inline)) int tight_part_line(hier *h, run *r, const hier_hint_word *hints, uint32_t k)
{
    uint32_t w;
    uint8_t *blk = run_hinted(h, r, hints, k, r->plain_part, &w);
    if (!blk)
        return 0;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((((h->cfg.shared_mask >> w) & 1) || snoop_get(&h->sf, r->first + k) < 0) &&
           "a DDIO/L3* line with an L2 copy");
#endif
    tight_hit(h, r, blk, w, REQ_PCIE_WR_PART);
    sb_count_hit(&h->stats, REQ_PCIE_WR_PART, hier_fast_of(h)->fast_col[w]);
    r->phits++;
    return 1;
}

/* Line k (`line`, LLC set `set`, in no way of it) of a write run, `req`
 * a PCIe write whose misses take fast path 5 (wr_miss_fast): its hint
 * word names the way the line went to, for the read run that follows (the
 * packet's transmission), whose tight loop then takes the line. */
static inline __attribute__((always_inline)) void run_wr_miss(hier *h, run *r, hier_hint_word *hints, uint32_t k,
                                                              uint64_t line, uint32_t set, enum coh_req req,
                                                              int partial)
{
    hier_result res;
    const uint32_t way = hier_pcie_wr_miss(h, req, line, set, &res);
    r->hits += res.hit;
    r->phits += (uint32_t)(res.hit & partial);
    if (hints)
        hints[k] = run_hint_at(set, way);
}

/* Line k of a write run, a full line, when its set (named by its hint)
 * holds it in no way and its request's misses take fast path 5 (at many
 * cores, the DDIO ways hold fewer buffers than the cores keep in
 * circulation and most lines miss): run_line's work for it, without its
 * hint test and set lookup again.  Returns 1 when done. */
static inline __attribute__((always_inline)) int tight_miss_line(hier *h, run *r, hier_hint_word *hints, uint32_t k)
{
    const uint64_t hv = hints[k];
    if (!hv || !hier_fast_of(h)->wr_miss_fast[REQ_PCIE_WR_FULL])
        return 0;
    const uint64_t line = r->first + k;
    if (sb_match(sb_tags(run_block(r, hv)), r->lay.tag_slots, line))
        return 0;
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((uint32_t)(hv >> 8) - 1 == cache_set(&h->llc, line) && k != r->part_first && k != r->part_last);
#endif
    run_wr_miss(h, r, hints, k, line, (uint32_t)(hv >> 8) - 1, REQ_PCIE_WR_FULL, 0);
    return 1;
}

/* What the tight part of a run left for line i: its general work, the
 * next line, or the end of the chunk. */
enum { TIGHT_LINE = 0, TIGHT_NEXT, TIGHT_BREAK };

/* From line i (at least tight_lo) of the chunk at `base` (m lines): the
 * tight loop (full lines whose hint names both the set and a way of
 * plain_tight holding the line: the common case, the buffer's lines, DMAed
 * before), then at the line it stopped on (*ip), a full line in a drop way
 * or the partial last line in a plain way, which take the tight loop's
 * work too.  It does what run_line does for them (the hint it would store
 * is the one read). */
static inline __attribute__((always_inline)) int run_tight(hier *h, run *r, uint32_t *cnt, run_misses *mc, int write,
                                                           hier_hint_word *hints, uint32_t base, uint32_t *ip,
                                                           uint32_t m)
{
    uint32_t start = *ip;
    const uint32_t end = r->tight_hi - base < m ? r->tight_hi - base : m;
    for (;;) {
        /* Walked by pointer, the set block from the hint's set + 1. */
        const hier_hint_word *hp = hints + base + start;
        const hier_hint_word *const he = hints + base + (end > start ? end : start);
        const uint64_t line = r->first + base + start;
        const uint32_t misses0 = mc ? mc->misses : 0;
        if (r->kind != REPL_HIT_NIBBLE) {   /* the policy's copy, out of line: this one's registers stay the nibble loop's */
            assert(hier_fast_of(h)->run_tight_rule[write]);
            hp = hier_fast_of(h)->run_tight_rule[write](h, write, hp, he, line, r->blocks_m1, r->plain_tight, cnt);
        } else if (r->geom12) {   /* the layout as constants: fewer live registers */
            hp = tight_lines(h, write, hp, he, line, r->blocks_m1, sb_layout_make(12, sizeof(uint64_t)),
                             r->plain_tight, nibble_rule, cnt, mc);
        } else {
            hp = tight_lines(h, write, hp, he, line, r->blocks_m1, r->lay, r->plain_tight, nibble_rule, cnt, mc);
        }
        const uint32_t missed = mc ? mc->misses - misses0 : 0;   /* the lines run_miss took: no hits */
        const uint32_t i = (uint32_t)(hp - (hints + base));
        *ip = i;
        r->hits += i - start - missed;
        HIER_TAKEN(h, tight_lines, i - start - missed);
        if (i == m)
            return TIGHT_BREAK;
        const uint32_t k = base + i;
        if (write && k != r->part_last && (tight_drop_line(h, r, cnt, hints, k) || tight_miss_line(h, r, hints, k))) {
            /* Line i done: the tight loop again from the next, as the
             * caller would (at many cores most lines miss). */
            if (i + 1 < end) {
                start = i + 1;
                continue;
            }
            return TIGHT_NEXT;
        }
        if (write && k == r->part_last && tight_part_line(h, r, hints, k))
            return TIGHT_BREAK;   /* the last line of the run */
        return TIGHT_LINE;
    }
}

/* Line k (`line`, LLC set `set`, found in `match`) meeting a plain LLC_KEEP
 * cell of `req` (fast_ways, or drop_ways: an L2 (S) copy is dropped first):
 * fast path 1's work, a full line's count left for the end of the run. */
static inline __attribute__((always_inline)) void run_keep_hit(hier *h, run *r, uint32_t *cnt,
                                                               hier_hint_word *hints, uint32_t k, uint64_t line,
                                                               uint32_t set, uint64_t match, enum coh_req req,
                                                               int partial)
{
    struct hier_fast *const f = hier_fast_of(h);
    const uint32_t way = (uint32_t)__builtin_ctzll(match);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert((((h->cfg.shared_mask >> way) & 1) || snoop_get(&h->sf, line) < 0) && "a DDIO/L3* line with an L2 copy");
    assert(match == match_in(&h->llc, set, line));
#endif
    if (match & f->drop_ways[req])
        l2_drop_any(h, line);
    llc_touch(h, set, way);
    /* A partial write leaves the state a full one does (coh_keep_state). */
    sb_keep_state(r->lay, r->blocks + (uint64_t)set * r->lay.block_bytes, way, r->req_full);
    if (partial) {
        /* Counted at once: the end of the run folds the full lines' counts only. */
        sb_count_hit(&h->stats, REQ_PCIE_WR_PART, f->fast_col[way]);
        r->phits++;
    } else {
        cnt[f->fast_col[way]]++;
    }
    r->hits++;
    if (hints)
        hints[k] = run_hint_at(set, way);
}

/* Line k (`line`, LLC set `set`, found in `match`) meeting any other cell:
 * the PCIe read or write miss fast paths, or the general access.  `rd_meta`:
 * for a hinted read, the L2 metadata byte run_line found (or NULL). */
static inline __attribute__((always_inline)) void run_other(hier *h, run *r, int write, hier_hint_word *hints,
                                                            uint32_t k, uint64_t line, uint32_t set, uint64_t match,
                                                            int partial, uint8_t *rd_meta)
{
    const struct hier_fast *const f = hier_fast_of(h);
    const enum coh_req req = partial ? REQ_PCIE_WR_PART : r->req_full;
    hier_result res;
    uint32_t hint_way = HIER_HINT_NO_WAY;
    if (!write && !match && f->rd_miss_fast) {
        /* The Shared way a copy went to, for the next DMA (the first data
         * line's write); with hints the snoop filter was asked already. */
        uint32_t way = hints ? pcie_rd_miss_at(h, line, set, rd_meta, &res) : access_pcie_rd_miss(h, line, set, &res);
        if (way < r->lay.ways)
            hint_way = way;
    } else if (write && !match && f->wr_miss_fast[req]) {
        run_wr_miss(h, r, hints, k, line, set, req, partial);
        return;
    } else {
        hier_access_general(h, req, 0, line, set, match, &res);
    }
    r->hits += res.hit;
    r->phits += (uint32_t)(res.hit & partial);
    if (hints)
        hints[k] = run_hint_at(set, hint_way);
}

/* Line k of the run, in LLC set `set`, the tight loop's lines aside:
 * exactly one hier_access, and its hint word updated. */
static inline __attribute__((always_inline)) void run_line(hier *h, run *r, uint32_t *cnt, int write,
                                                           hier_hint_word *hints, uint32_t k, uint32_t set)
{
    struct hier_fast *const f = hier_fast_of(h);
    const uint64_t line = r->first + k;
    const int partial = write && (k == r->part_first || k == r->part_last);
    const uint64_t *t = sb_tags(r->blocks + (uint64_t)set * r->lay.block_bytes);
    const uint32_t hw = hints ? (uint32_t)(hints[k] & 0xFF) : HIER_HINT_NO_WAY;
    /* A line is in one way at most: a tag equal to it is the match. */
    uint64_t match;
    uint8_t *rd_meta = NULL;
    if (hw < r->lay.ways && t[hw] == line) {
        match = 1ull << hw;
    } else if (hints && !write && f->rd_miss_fast) {
        /* A read run's line that left its way: most often to a core's L2
         * in E/M (a packet's first line), which puts it in no LLC way
         * (non-inclusive), so the snoop filter (which access_pcie_rd_miss
         * asks anyway) goes first. */
        rd_meta = l2_meta_of(h, line);
        if (rd_meta && coh_l2_col((enum coh_state)META_STATE(*rd_meta)) == COL_L2_EM) {
            hier_result res;
            const uint32_t way = pcie_rd_miss_at(h, line, set, rd_meta, &res);
            r->hits++;
            HIER_TAKEN(h, rd_owned, 1);
            hints[k] = run_hint_at(set, way < r->lay.ways ? way : HIER_HINT_NO_WAY);
            return;
        }
        match = sb_match(t, r->lay.tag_slots, line);
    } else {
        match = sb_match(t, r->lay.tag_slots, line);
    }
    const enum coh_req req = partial ? REQ_PCIE_WR_PART : r->req_full;
    if (match & (f->fast_ways[req] | f->drop_ways[req]))
        run_keep_hit(h, r, cnt, hints, k, line, set, match, req, partial);
    else
        run_other(h, r, write, hints, k, line, set, match, partial, rd_meta);
}

/* The full lines' counts by column, kept for the run's end, into the
 * counters. */
static inline __attribute__((always_inline)) void run_count(hier *h, const run *r, const uint32_t *cnt,
                                                            const run_misses *mc)
{
    hier_req_stats *rs = &h->stats.req[r->req_full];
    assert(!mc->misses || r->req_full == REQ_PCIE_WR_FULL);
    if (mc->misses) {   /* pcie_wr_miss_at's count_access of each, a line only in memory */
        rs->accesses += mc->misses;
        rs->misses += mc->misses;
        rs->mem_reads += (uint64_t)mc->misses * hier_fast_of(h)->wr_mem_read[REQ_PCIE_WR_FULL][COL_MEM];
        rs->mem_writebacks += mc->writebacks;
    }
    const uint32_t sum = cnt[COL_DDIO] + cnt[COL_L3] + cnt[COL_SHARED];
    _Static_assert(LLC_COLS == 3, "the LLC columns are DDIO, L3*, Shared");
    rs->hit_col[COL_DDIO] += cnt[COL_DDIO];
    rs->hit_col[COL_L3] += cnt[COL_L3];
    rs->hit_col[COL_SHARED] += cnt[COL_SHARED];
    rs->accesses += sum;
    rs->hits += sum;
}

/* The lines first.. of one DMA, in order: hier_access for each, in chunks
 * whose set blocks are prefetched first.  `hints` (optional): per line, 0
 * or the hint word of where the line was found last time (HIER_HINT_NO_WAY:
 * only the set is known); the set of a line never changes, and the way is
 * trusted only if that way's tag is the line.  The metadata byte stores
 * may alias any field of h, the fast state included, so what the loop
 * reads is copied into the run first. */
static inline __attribute__((always_inline)) uint32_t pcie_run(hier *h, int write, uint64_t first, uint32_t n,
                                                               int head_partial, int tail_partial,
                                                               uint32_t *part_hits, hier_hint_word *hints, int miss)
{
    run r;
    run_init(h, &r, write, first, n, head_partial, tail_partial);
    uint32_t cnt[LLC_COLS] = {0};   /* fast hits of full lines by column (an LLC way's) */
    run_misses mc = {.hints = hints};
    uint32_t sets[RUN_CHUNK];
    for (uint32_t base = 0; base < n; base += RUN_CHUNK) {
        const uint32_t m = n - base < RUN_CHUNK ? n - base : RUN_CHUNK;
        run_prefetch(h, &r, write, hints, base, m, sets);
        for (uint32_t i = 0; i < m; i++) {
            if (hints && r.lean && base + i >= r.tight_lo) {
                const int next = run_tight(h, &r, cnt, miss ? &mc : NULL, write, hints, base, &i, m);
                if (next == TIGHT_BREAK)
                    break;
                if (next == TIGHT_NEXT)
                    continue;
            }
            const uint32_t k = base + i;
            const uint32_t set = !hints   ? sets[i]
                                 : hints[k] ? (uint32_t)(hints[k] >> 8) - 1
                                            : cache_set(&h->llc, first + k);
#ifdef DDIOSIM_EXPENSIVE_CHECKS
            assert(set == cache_set(&h->llc, first + k) && "a line hint with a wrong set");
#endif
            run_line(h, &r, cnt, write, hints, k, set);
        }
    }
    run_count(h, &r, cnt, &mc);
    if (write && hints && hier_fast_of(h)->run_miss_lean)   /* the next write run's copy: run_miss's after many misses */
        hier_fast_of(h)->run_miss_loop = 4 * (n - r.hits) >= n;
    if (part_hits)
        *part_hits = r.phits;
    return r.hits;
}

/* A write run with hints: pcie_run with run_miss in the tight loop
 * (`miss`) when a quarter or more of the last write run's lines did not
 * hit (hier_fast.run_miss_loop: at many cores most lines miss), else
 * without it, whose loop keeps its values in registers. */
static __attribute__((noinline)) uint32_t write_run_miss(hier *h, uint64_t first, uint32_t n, int head_partial,
                                                         int tail_partial, uint32_t *part_hits, hier_hint_word *hints)
{
    return pcie_run(h, 1, first, n, head_partial, tail_partial, part_hits, hints, 1);
}

static inline __attribute__((always_inline)) uint32_t write_run_hinted(hier *h, uint64_t first, uint32_t n,
                                                                       int head_partial, int tail_partial,
                                                                       uint32_t *part_hits, hier_hint_word *hints)
{
    const struct hier_fast *f = hier_fast_of(h);
    if (f->run_miss_lean && f->run_miss_loop)
        return write_run_miss(h, first, n, head_partial, tail_partial, part_hits, hints);
    return pcie_run(h, 1, first, n, head_partial, tail_partial, part_hits, hints, 0);
}

/* pcie_run is compiled once per (write, hints or not, miss): the hint tests
 * leave the line loop.  The hints of an LLC whose hint words would not fit
 * in 32 bits are not used (they stay 0). */
uint32_t hier_pcie_write_run(hier *h, uint64_t first, uint32_t n, int head_partial, int tail_partial,
                             uint32_t *part_hits, hier_hint_word *hints)
{
    if (hints && hier_fast_of(h)->run_hints)
        return write_run_hinted(h, first, n, head_partial, tail_partial, part_hits, hints);
    return pcie_run(h, 1, first, n, head_partial, tail_partial, part_hits, NULL, 0);
}

uint32_t hier_pcie_read_run(hier *h, uint64_t first, uint32_t n, hier_hint_word *hints)
{
    if (hints && hier_fast_of(h)->run_hints)
        return pcie_run(h, 0, first, n, 0, 0, NULL, hints, 0);
    return pcie_run(h, 0, first, n, 0, 0, NULL, NULL, 0);
}

uint32_t hier_dma_run(hier *h, const hier_dma *d, hier_hint_word *hints, uint32_t *part_hits)
{
    if (d->write)
        return hier_pcie_write_run(h, d->first, d->n, d->head_partial, d->tail_partial, part_hits, hints);
    if (part_hits)
        *part_hits = 0;
    return hier_pcie_read_run(h, d->first, d->n, hints);
}
