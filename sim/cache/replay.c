/* replay.c - one cache level driven by an address stream (replay.h): the
 * reference path (replay_access: one access through the cache's generic
 * operations), the LRU kernel in portable C, and replay_run, which
 * dispatches to a kernel by policy and instruction set.  The kernel itself
 * is in replay_kernel.h, its x86-64-v3 build in replay_x86.c;
 * tests/test_cache_replay.c checks every kernel against replay_access and
 * the x86-64-v3 kernel against the portable one. */
#include "sim/cache/replay.h"

#include <string.h>

#include "sim/cache/coherence.h"
#include "sim/cache/replay_kernel.h"

int replay_init(replay *r, const cache_geom *g, const repl_config *rc, uint64_t alloc_mask,
                uint64_t ddio_mask, ddio_err *e)
{
    memset(r, 0, sizeof *r);
    if (cache_geom_validate(g, "cache", e) != 0)
        return -1;
    uint64_t full = g->ways == 64 ? UINT64_MAX : (1ull << g->ways) - 1;
    if (!alloc_mask || (alloc_mask & ~full))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--alloc-mask: 0x%llx must select at least one of the %u ways",
                         (unsigned long long)alloc_mask, g->ways);
    if (ddio_mask & ~full)   /* 0: DDIO off */
        return ddio_errf(e, DDIO_EXIT_USAGE, "--ddio-mask: 0x%llx selects ways beyond the %u of the cache",
                         (unsigned long long)ddio_mask, g->ways);
    if (cache_init(&r->c, g, rc, e) != 0)
        return -1;
    r->alloc_mask = alloc_mask;
    r->ddio_mask = ddio_mask;
    r->isa = replay_best_isa();
    r->nonfull_sets = r->c.nsets;
    return 0;
}

void replay_free(replay *r)
{
    cache_free(&r->c);
}

static void flush_all(replay *r)
{
    cache *c = &r->c;
    for (uint32_t s = 0; s < c->nsets; s++)
        for (uint32_t w = 0; w < c->ways; w++)
            if (cache_tags(c, s)[w] != CACHE_INVALID) {
                if (*cache_meta(c, s, w) == ST_M)
                    r->op[OP_FLUSH].writebacks++;
                cache_remove(c, s, w);
            }
    r->nonfull_sets = c->nsets;
}

/* DDIO off (no DDIO ways; the rule of coherence.h, coh_lookup_io): a PCIe
 * write misses, invalidates the cached copy (way `way` of `set`, -1: none)
 * and writes the line to memory, counted with the write-backs. */
static int pcie_write_noddio(replay *r, replay_counts *k, uint32_t set, int way)
{
    cache *c = &r->c;
    k->misses++;
    k->writebacks++;
    if (way >= 0) {
        if (*cache_valid(c, set) == c->full_mask)
            r->nonfull_sets++;   /* the set gets an empty way */
        cache_remove(c, set, (uint32_t)way);
    }
    return 0;
}

int replay_access(replay *r, enum replay_op op, uint64_t addr)
{
    replay_counts *k = &r->op[op];
    k->accesses++;
    if (op == OP_FLUSH) {
        flush_all(r);
        return 0;
    }
    cache *c = &r->c;
    uint64_t line = addr >> c->map.line_shift;
    uint32_t set = cache_set(c, line);
    int way = cache_find(c, set, line);
    int writes = op == OP_WRITE || op == OP_PCIE_WR_FULL || op == OP_PCIE_WR_PART;
    if (writes && op != OP_WRITE && !r->ddio_mask)
        return pcie_write_noddio(r, k, set, way);
    if (way >= 0) {
        k->hits++;
        cache_hit(c, set, (uint32_t)way);
        if (writes)
            *cache_meta(c, set, (uint32_t)way) = ST_M;
        return 1;
    }
    k->misses++;
    if (op == OP_PCIE_RD) {       /* served from memory, no allocation */
        k->mem_reads++;
        return 0;
    }
    if (op != OP_PCIE_WR_FULL)    /* ItoM overwrites the whole line */
        k->mem_reads++;
    uint64_t mask = (op == OP_PCIE_WR_FULL || op == OP_PCIE_WR_PART) ? r->ddio_mask : r->alloc_mask;
    cache_evicted ev;
    cache_fill(c, set, mask, line, writes ? ST_M : ST_E, &ev);
    if (ev.line == CACHE_INVALID && *cache_valid(c, set) == c->full_mask)
        r->nonfull_sets--;   /* filled the set's last empty way */
    if (ev.line != CACHE_INVALID && ev.meta == ST_M)
        k->writebacks++;
    return 0;
}

#define PREFETCH_DISTANCE 8   /* replay_run's generic path */

/* The kernel's instruction-set layer (replay_kernel.h) in portable C: the
 * build's baseline (SSE2 on x86-64, through intrinsics with a plain
 * fallback). */

/* cache_match_candidates for the kernel: bits past `slots` may be set too
 * (copies of lower ones: the last group of 4 or 8 is packed with itself
 * rather than with zeros), which neither the first candidate below the
 * last slot nor "any candidate" depends on. */
static inline __attribute__((always_inline)) uint64_t kernel_candidates(const uint64_t *t, const uint32_t slots,
                                                                        const uint64_t *lslot)
{
    const uint64_t line = lslot[0];
#ifdef __SSE2__
    if (slots <= 12) {
        /* The key from the line's 16-byte slot: one shuffle with its load. */
        const __m128i key = _mm_shuffle_epi32(_mm_load_si128((const __m128i *)(const void *)lslot), 0);
        const __m128i e0 = cache_match_lo4(t, key);
        const __m128i e1 = slots > 4 ? cache_match_lo4(t + 4, key) : e0;
        const __m128i p01 = _mm_packs_epi32(e0, e1);
        const __m128i e2 = slots > 8 ? cache_match_lo4(t + 8, key) : e0;
        const __m128i p2 = slots > 8 ? _mm_packs_epi32(e2, e2) : p01;
        return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(p01, p2));
    }
#endif
    return cache_match_candidates(t, slots, line);
}

/* The tags are matched on their low 32 bits (kernel_candidates) and the
 * first candidate checked in full. */
KERNEL_ISA uint64_t kernel_isa_probe(uint64_t op_full, const uint64_t *lslot, const uint8_t *blk,
                                     const uint32_t slots, const int full, uint64_t *wm)
{
    const uint64_t *tags = (const uint64_t *)(const void *)blk, *valid = tags + slots;
    const uint64_t cand = kernel_candidates(tags, slots, lslot);
    /* The first candidate, or the last slot when there is none: that slot
     * does not hold `line` then (it would be a candidate). */
    const uint64_t w = (uint64_t)__builtin_ctzll(cand | (1ull << (slots - 1)));
    const uint64_t miss = 0 - (uint64_t)(tags[w] != lslot[0]);
    *wm = w | (miss & KERNEL_MISS_W);
    /* A miss leaves the fast path unless the set is full, the op may use
     * every way (op_full) and no way other than w can hold the line (no
     * candidate at all: a candidate that is not the line may hide a second
     * one; a padding slot that is a candidate sends the access to the
     * general path too, correctly). */
    const uint64_t unsteady = full ? cand : (*valid ^ op_full) | cand;
    return unsteady & miss;
}

/* Always 0 (the batch takes the general test): the test is one byte
 * shuffle (replay_x86.c), which baseline x86-64 (SSE2) does not have. */
KERNEL_ISA int kernel_isa_ops_steady(const uint8_t *steady_bytes, const uint8_t *ops)
{
    (void)steady_bytes;
    (void)ops;
    return 0;
}

static uint64_t run_lru_kernel(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
    return lru_kernel_run(r, ops, addrs, n);
}

enum replay_isa replay_best_isa(void)
{
#ifdef REPLAY_X86_64_V3
    if (__builtin_cpu_supports("x86-64-v3"))
        return REPLAY_ISA_X86_64_V3;
#endif
    return REPLAY_ISA_BASE;
}

uint64_t replay_run(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
    /* The kernel tells blocks apart by the low 32 bits of their addresses;
     * it allocates every PCIe write (DDIO off: replay_access). */
    if (r->ddio_mask && r->c.repl->ops == &repl_lru_ops && r->c.ways <= LRU_ORDER_MAX_WAYS &&
        (uint64_t)r->c.nsets * r->c.block_bytes <= (1ull << 32)) {
#ifdef REPLAY_X86_64_V3
        if (r->isa == REPLAY_ISA_X86_64_V3)
            return replay_run_x86_64_v3(r, ops, addrs, n);
#endif
        return run_lru_kernel(r, ops, addrs, n);
    }
    uint64_t hits = 0;
    uint32_t shift = r->c.map.line_shift;
    for (size_t i = 0; i < n; i++) {
        if (i + PREFETCH_DISTANCE < n)
            cache_prefetch(&r->c, addrs[i + PREFETCH_DISTANCE] >> shift);
        hits += (uint64_t)replay_access(r, (enum replay_op)ops[i], addrs[i]);
    }
    return hits;
}

replay_counts replay_total(const replay *r)
{
    replay_counts t = {0};
    for (int i = 0; i < OP_COUNT; i++) {
        if (i == OP_FLUSH) {
            t.writebacks += r->op[i].writebacks;
            continue;
        }
        t.accesses += r->op[i].accesses;
        t.hits += r->op[i].hits;
        t.misses += r->op[i].misses;
        t.mem_reads += r->op[i].mem_reads;
        t.writebacks += r->op[i].writebacks;
    }
    return t;
}
