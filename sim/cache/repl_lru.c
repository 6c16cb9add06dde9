/* repl_lru.c - the recency family: LRU and BIP.
 *
 * Each line carries a 64-bit recency stamp; larger is younger.  A hit or an
 * MRU insertion stamps the line with a fresh clock value, the victim is the
 * oldest line inside the allocation mask.  Stamp 0 marks an invalid way.
 * BIP (Qureshi et al., ISCA 2007) inserts at MRU with probability epsilon and
 * otherwise at the LRU position, which is what protects a cyclic working set
 * slightly larger than the cache from thrashing. */
#include <stdlib.h>

#include "sim/cache/repl.h"

typedef struct recency_state {
    uint64_t clock;
    uint64_t stamp[];   /* nsets * ways */
} recency_state;

/* Clock starts high so LRU-position insertions (min - 1) stay above 0. */
#define RECENCY_CLOCK0 (1ull << 40)

static int recency_init(repl_policy *p, ddio_err *e)
{
    size_t n = (size_t)p->nsets * p->ways;
    recency_state *s = calloc(1, sizeof *s + n * sizeof s->stamp[0]);
    if (!s)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory for LRU state (%zu lines)", n);
    s->clock = RECENCY_CLOCK0;
    p->state = s;
    return 0;
}

static void recency_free(repl_policy *p)
{
    if (!p->shared_state)
        free(p->state);
    p->state = NULL;
}

static void recency_touch(repl_policy *p, uint32_t set, uint32_t way)
{
    recency_state *s = p->state;
    s->stamp[(size_t)set * p->ways + way] = ++s->clock;
}

static uint32_t recency_victim(repl_policy *p, uint32_t set, uint64_t mask)
{
    recency_state *s = p->state;
    const uint64_t *st = &s->stamp[(size_t)set * p->ways];
    uint32_t best = UINT32_MAX;
    uint64_t oldest = UINT64_MAX;
    for (uint64_t m = mask; m; m &= m - 1) {
        uint32_t w = (uint32_t)__builtin_ctzll(m);
        if (st[w] < oldest) {
            oldest = st[w];
            best = w;
        }
    }
    return best;
}

static void recency_invalidate(repl_policy *p, uint32_t set, uint32_t way)
{
    recency_state *s = p->state;
    s->stamp[(size_t)set * p->ways + way] = 0;
}

/* Place `way` just below the oldest valid line of its set. */
static void recency_insert_lru(repl_policy *p, uint32_t set, uint32_t way)
{
    recency_state *s = p->state;
    uint64_t *st = &s->stamp[(size_t)set * p->ways];
    uint64_t oldest = UINT64_MAX;
    for (uint32_t w = 0; w < p->ways; w++)
        if (w != way && st[w] != 0 && st[w] < oldest)
            oldest = st[w];
    st[way] = oldest == UINT64_MAX ? ++s->clock : oldest - 1;
}

static void bip_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    if (ddio_rng_uniform(&p->rng) < p->epsilon)
        recency_touch(p, set, way);
    else
        recency_insert_lru(p, set, way);
}

const repl_ops repl_lru_ops = {
    .name = "lru",
    .family = "recency",
    .init = recency_init,
    .on_hit = recency_touch,
    .on_fill = recency_touch,
    .victim = recency_victim,
    .on_invalidate = recency_invalidate,
    .free = recency_free,
};

const repl_ops repl_bip_ops = {
    .name = "bip",
    .family = "recency",
    .init = recency_init,
    .on_hit = recency_touch,
    .on_fill = bip_fill,
    .victim = recency_victim,
    .on_invalidate = recency_invalidate,
    .free = recency_free,
};
