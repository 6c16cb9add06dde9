#include "sim/cache/replay.h"

#include <string.h>

#include "sim/cache/coherence.h"
#include "sim/cache/lru_order.h"

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
    if (!ddio_mask || (ddio_mask & ~full))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--ddio-mask: 0x%llx must select at least one of the %u ways",
                         (unsigned long long)ddio_mask, g->ways);
    if (cache_init(&r->c, g, rc, e) != 0)
        return -1;
    r->alloc_mask = alloc_mask;
    r->ddio_mask = ddio_mask;
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
    if (ev.line != CACHE_INVALID && ev.meta == ST_M)
        k->writebacks++;
    return 0;
}

#define PREFETCH_DISTANCE 8
#define SET_RING 16   /* > PREFETCH_DISTANCE, a power of two */

/* The LRU kernel: the same semantics as replay_access, specialised for the
 * default policy (LRU, up to 16 ways), which it updates in place through the
 * packed order of lru_order.h instead of the policy's ops.  Each set index is
 * computed once, when the access is prefetched PREFETCH_DISTANCE ahead.
 * tests/test_cache_replay.c checks it against the generic path, state and
 * counters, access by access. */
static uint64_t run_lru_kernel(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
    cache *c = &r->c;
    const uint32_t shift = c->map.line_shift, ways = c->ways;
    uint32_t sets[SET_RING];
    uint64_t hits = 0;
    for (size_t i = 0; i < n && i < PREFETCH_DISTANCE; i++)
        sets[i % SET_RING] = cache_set(c, addrs[i] >> shift);
    for (size_t i = 0; i < n; i++) {
        if (i + PREFETCH_DISTANCE < n) {
            uint32_t s = cache_set(c, addrs[i + PREFETCH_DISTANCE] >> shift);
            sets[(i + PREFETCH_DISTANCE) % SET_RING] = s;
            const uint8_t *pb = c->blocks + (uint64_t)s * c->block_bytes;
            __builtin_prefetch(pb);
            __builtin_prefetch(pb + 64);
        }
        enum replay_op op = (enum replay_op)ops[i];
        if (op == OP_FLUSH) {
            replay_access(r, op, addrs[i]);
            continue;
        }
        uint64_t line = addrs[i] >> shift;
        uint32_t set = sets[i % SET_RING];
        uint8_t *blk = c->blocks + (uint64_t)set * c->block_bytes;
        uint64_t *valid = cache_valid(c, set), *order = (uint64_t *)(void *)(blk + c->repl_off);
        uint8_t *meta = blk + c->meta_off;
        replay_counts *k = &r->op[op];
        int pcie_write = op == OP_PCIE_WR_FULL || op == OP_PCIE_WR_PART;
        int writes = op == OP_WRITE || pcie_write;
        k->accesses++;
        uint64_t m = cache_match(c, set, line);
        if (m) {
            uint32_t way = (uint32_t)__builtin_ctzll(m);
            *order = lru_order_to_mru(*order, way);
            if (writes)
                meta[way] = ST_M;
            k->hits++;
            hits++;
            continue;
        }
        k->misses++;
        if (op == OP_PCIE_RD) {
            k->mem_reads++;
            continue;
        }
        if (op != OP_PCIE_WR_FULL)
            k->mem_reads++;
        uint64_t mask = pcie_write ? r->ddio_mask : r->alloc_mask;
        uint64_t empty = ~*valid & mask;
        uint32_t way = empty ? (uint32_t)__builtin_ctzll(empty) : lru_order_victim(*order, ways, mask);
        assert(way < ways && ((mask >> way) & 1));
        if (!empty && meta[way] == ST_M)
            k->writebacks++;
        cache_tags(c, set)[way] = line;
        *valid |= 1ull << way;
        meta[way] = writes ? ST_M : ST_E;
        *order = lru_order_to_mru(*order, way);
    }
    return hits;
}

uint64_t replay_run(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
    if (r->c.repl->ops == &repl_lru_ops && r->c.ways <= LRU_ORDER_MAX_WAYS)
        return run_lru_kernel(r, ops, addrs, n);
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
