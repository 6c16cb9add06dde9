#include "sim/cache/replay.h"

#include <string.h>

#include "sim/cache/coherence.h"

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

uint64_t replay_run(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
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
