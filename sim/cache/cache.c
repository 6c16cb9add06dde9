#include "sim/cache/cache.h"

#include <stdlib.h>
#include <string.h>

int cache_init(cache *c, const cache_geom *g, const repl_config *rc, ddio_err *e)
{
    memset(c, 0, sizeof *c);
    if (cache_geom_validate(g, "cache", e) != 0)
        return -1;
    c->geom = *g;
    cache_mapper_init(&c->map, g);
    c->nsets = (uint32_t)cache_geom_total_sets(g);
    c->ways = g->ways;
    c->full_mask = g->ways == 64 ? UINT64_MAX : ((1ull << g->ways) - 1);
    size_t n = (size_t)c->nsets * c->ways;
    c->tags = malloc(n * sizeof *c->tags);
    c->meta = calloc(n, 1);
    if (!c->tags || !c->meta) {
        cache_free(c);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory for a %zu-line cache", n);
    }
    memset(c->tags, 0xFF, n * sizeof *c->tags);   /* CACHE_INVALID */
    c->repl = repl_create(rc, c->nsets, c->ways, e);
    if (!c->repl) {
        cache_free(c);
        return -1;
    }
    return 0;
}

void cache_free(cache *c)
{
    repl_destroy(c->repl);
    free(c->tags);
    free(c->meta);
    memset(c, 0, sizeof *c);
}

uint32_t cache_fill(cache *c, uint32_t set, uint64_t mask, uint64_t line, uint8_t meta,
                    cache_evicted *ev)
{
    mask &= c->full_mask;
    assert(mask != 0 && "allocation mask selects no way");
    assert(line != CACHE_INVALID);
    uint64_t *t = &c->tags[(uint64_t)set * c->ways];
    uint32_t way = UINT32_MAX;
    for (uint64_t m = mask; m; m &= m - 1) {
        uint32_t w = (uint32_t)__builtin_ctzll(m);
        if (t[w] == CACHE_INVALID) {
            way = w;
            break;
        }
    }
    ev->line = CACHE_INVALID;
    ev->meta = 0;
    if (way == UINT32_MAX) {
        way = c->repl->ops->victim(c->repl, set, mask);
        ev->line = t[way];
        ev->meta = c->meta[(uint64_t)set * c->ways + way];
    }
    /* The invariant every partitioning result rests on. */
    assert(way < c->ways && ((mask >> way) & 1));
    t[way] = line;
    c->meta[(uint64_t)set * c->ways + way] = meta;
    c->repl->ops->on_fill(c->repl, set, way);
    return way;
}

void cache_remove(cache *c, uint32_t set, uint32_t way)
{
    assert(way < c->ways);
    c->tags[(uint64_t)set * c->ways + way] = CACHE_INVALID;
    c->meta[(uint64_t)set * c->ways + way] = 0;
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
    for (uint64_t s = 0; s < c->nsets; s++)
        for (uint32_t w = 0; w < c->ways; w++)
            if (((mask >> w) & 1) && c->tags[s * c->ways + w] != CACHE_INVALID)
                n++;
    return n;
}
