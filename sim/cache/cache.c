/* cache.c - one set-associative cache level (cache.h): the set blocks'
 * allocation and the out-of-line operations through the replacement
 * policy's ops (fill with a way mask, remove, a plain access, counting);
 * the lookups are inline in cache.h. */
#include "sim/cache/cache.h"
#include "sim/cache/setblock.h"

#include <stdlib.h>
#include <string.h>

#include "sim/common/mem.h"

int cache_init(cache *c, const cache_geom *g, const repl_config *rc, ddio_err *e)
{
    memset(c, 0, sizeof *c);
    if (cache_geom_validate(g, "cache", e) != 0)
        return -1;
    const repl_ops *ops = repl_find(rc->name);
    if (!ops) {
        char msg[300];
        repl_check_name(rc->name, msg, sizeof msg);
        return ddio_errf(e, DDIO_EXIT_USAGE, "policy %s", msg);
    }
    c->geom = *g;
    cache_mapper_init(&c->map, g);
    c->nsets = (uint32_t)cache_geom_total_sets(g);
    c->ways = g->ways;
    c->full_mask = g->ways == 64 ? UINT64_MAX : ((1ull << g->ways) - 1);
    /* The block layout (setblock.h): with 11 ways and LRU a set fits in
     * two host cache lines. */
    const sb_layout l = sb_layout_make(c->ways, ops->set_bytes(rc->name, c->ways));
    c->tag_slots = l.tag_slots;
    c->meta_off = l.meta_off;
    c->repl_off = l.repl_off;
    c->block_bytes = l.block_bytes;
    uint8_t *table = ddio_table_alloc(c->block_bytes * (c->nsets + (uint64_t)1));
    if (!table) {
        uint32_t nsets = c->nsets;   /* cache_free clears it */
        cache_free(c);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory for a %u-set cache", nsets);
    }
    c->blocks = table + c->block_bytes;   /* after the guard block (cache.h) */
    memset(table, 0xFF, c->tag_slots * sizeof(uint64_t));
    for (uint32_t s = 0; s < c->nsets; s++)
        memset(cache_tags(c, s), 0xFF, c->tag_slots * sizeof(uint64_t));   /* CACHE_INVALID */
    repl_config prc = *rc;
    if (!prc.sets_per_slice)
        prc.sets_per_slice = g->sets_per_slice;   /* set dueling picks its leaders per slice */
    c->repl = repl_create(&prc, c->nsets, c->ways, c->blocks + c->repl_off, c->block_bytes, e);
    if (!c->repl) {
        cache_free(c);
        return -1;
    }
    return 0;
}

void cache_free(cache *c)
{
    repl_destroy(c->repl);
    if (c->blocks)
        ddio_table_free(c->blocks - c->block_bytes, c->block_bytes * (c->nsets + (uint64_t)1));
    memset(c, 0, sizeof *c);
}

uint32_t cache_fill(cache *c, uint32_t set, uint64_t mask, uint64_t line, uint8_t meta,
                    cache_evicted *ev)
{
    mask &= c->full_mask;
    assert(mask != 0 && "allocation mask selects no way");
    assert(line != CACHE_INVALID);
    uint64_t *t = cache_tags(c, set);
    uint64_t *valid = cache_valid(c, set);
    uint64_t empty = ~*valid & mask;
    uint32_t way = repl_fill_way(c->repl, set, mask, empty);
    ev->line = CACHE_INVALID;
    ev->meta = 0;
    if (!((empty >> way) & 1)) {
        assert(!empty && "a policy filled a valid way while its mask had an empty one");
        ev->line = t[way];
        ev->meta = *cache_meta(c, set, way);
    }
    /* The invariant every partitioning result rests on. */
    assert(way < c->ways && ((mask >> way) & 1));
    sb_put(sb_layout_of(c), (uint8_t *)t, way, line, meta);
    c->repl->ops->on_fill(c->repl, set, way);
    return way;
}

void cache_remove(cache *c, uint32_t set, uint32_t way)
{
    assert(way < c->ways);
    sb_clear(sb_layout_of(c), (uint8_t *)cache_tags(c, set), way);
    c->repl->ops->on_invalidate(c->repl, set, way);
}

int cache_access(cache *c, uint64_t line, uint64_t alloc_mask, int allocate, cache_evicted *ev)
{
    uint32_t set = cache_set(c, line);
    int way = cache_find(c, set, line);
    if (way >= 0) {
        cache_hit(c, set, (uint32_t)way);
        ev->line = CACHE_INVALID;
        return 1;
    }
    if (allocate)
        cache_fill(c, set, alloc_mask, line, 0, ev);
    else
        ev->line = CACHE_INVALID;
    return 0;
}

uint64_t cache_count_valid(const cache *c, uint64_t mask)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < c->nsets; s++) {
        n += (uint64_t)__builtin_popcountll(*cache_valid(c, s) & mask);
    }
    return n;
}
