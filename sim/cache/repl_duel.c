/* repl_duel.c - set dueling between two policies of one family
 * (Qureshi et al., ISCA 2007): DIP = LRU vs BIP, DRRIP = SRRIP vs BRRIP.
 *
 * A few leader sets always use policy A, as many always use B, and a
 * saturating PSEL counter counts their misses (a fill is a miss): a miss in
 * an A leader increments it, a miss in a B leader decrements it.  Follower
 * sets insert with A while PSEL <= its midpoint, with B above it.  Hits and
 * victim choice are the family's and do not depend on the duel.
 *
 * Leader placement: with L leaders per policy (at most nsets / 2), the sets
 * are cut into L regions of nsets / L sets; the first set of each region
 * leads for A and the set in its middle leads for B. */
#include <stdlib.h>
#include <string.h>

#include "sim/cache/repl.h"

typedef struct duel {
    repl_policy a, b;       /* b shares a's state */
    uint32_t psel, psel_max, mid, region;
} duel;

enum { FOLLOWER = 0, LEADER_A, LEADER_B };

static int leader_of(const duel *d, uint32_t set)
{
    if (!d->region)
        return FOLLOWER;
    uint32_t r = set % d->region;
    return r == 0 ? LEADER_A : (r == d->region / 2 ? LEADER_B : FOLLOWER);
}

static int duel_init_with(repl_policy *p, const repl_ops *a, const repl_ops *b, ddio_err *e)
{
    duel *d = calloc(1, sizeof *d);
    if (!d)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    repl_config ca = p->cfg, cb = p->cfg;
    cb.seed ^= 0xB1B1B1B1ull;
    if (repl_init_member(&d->a, a, &ca, p->nsets, p->ways, p->base, p->stride, NULL, e) != 0) {
        free(d);
        return -1;
    }
    repl_init_member(&d->b, b, &cb, p->nsets, p->ways, p->base, p->stride, d->a.state, e);
    uint32_t bits = p->cfg.psel_bits ? p->cfg.psel_bits : 10;
    if (bits > 30)
        bits = 30;
    d->psel_max = (1u << bits) - 1;
    d->mid = 1u << (bits - 1);
    d->psel = d->mid;
    uint32_t leaders = p->cfg.duel_leaders;
    if (leaders > p->nsets / 2)
        leaders = p->nsets / 2;
    d->region = leaders ? p->nsets / leaders : 0;
    p->priv = d;
    p->state = d->a.state;
    return 0;
}

static int dip_init(repl_policy *p, ddio_err *e) { return duel_init_with(p, &repl_lru_ops, &repl_bip_ops, e); }
static int drrip_init(repl_policy *p, ddio_err *e) { return duel_init_with(p, &repl_srrip_ops, &repl_brrip_ops, e); }

static uint32_t dip_set_bytes(uint32_t ways) { return repl_lru_ops.set_bytes(ways); }
static uint32_t drrip_set_bytes(uint32_t ways) { return repl_srrip_ops.set_bytes(ways); }

static void dip_init_set(repl_policy *p, uint32_t set)
{
    repl_lru_ops.init_set(p, set);
}

static void duel_hit(repl_policy *p, uint32_t set, uint32_t way)
{
    duel *d = p->priv;
    d->a.ops->on_hit(&d->a, set, way);
}

static uint32_t duel_victim(repl_policy *p, uint32_t set, uint64_t mask)
{
    duel *d = p->priv;
    return d->a.ops->victim(&d->a, set, mask);
}

static void duel_invalidate(repl_policy *p, uint32_t set, uint32_t way)
{
    duel *d = p->priv;
    d->a.ops->on_invalidate(&d->a, set, way);
}

static void duel_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    duel *d = p->priv;
    switch (leader_of(d, set)) {
    case LEADER_A:
        if (d->psel < d->psel_max)
            d->psel++;
        d->a.ops->on_fill(&d->a, set, way);
        return;
    case LEADER_B:
        if (d->psel > 0)
            d->psel--;
        d->b.ops->on_fill(&d->b, set, way);
        return;
    default:
        if (d->psel <= d->mid)
            d->a.ops->on_fill(&d->a, set, way);
        else
            d->b.ops->on_fill(&d->b, set, way);
    }
}

static void duel_free(repl_policy *p)
{
    duel *d = p->priv;
    if (d) {
        if (d->a.ops->free)
            d->a.ops->free(&d->a);
        free(d);
    }
    p->priv = NULL;
    p->state = NULL;
}

const repl_ops repl_dip_ops = {
    .name = "dip",
    .family = "recency",
    .set_bytes = dip_set_bytes,
    .init_set = dip_init_set,
    .init = dip_init,
    .on_hit = duel_hit,
    .on_fill = duel_fill,
    .victim = duel_victim,
    .on_invalidate = duel_invalidate,
    .free = duel_free,
};

const repl_ops repl_drrip_ops = {
    .name = "drrip",
    .family = "rrip",
    .set_bytes = drrip_set_bytes,
    .init = drrip_init,
    .on_hit = duel_hit,
    .on_fill = duel_fill,
    .victim = duel_victim,
    .on_invalidate = duel_invalidate,
    .free = duel_free,
};

int repl_duel_psel(const repl_policy *p, uint32_t *psel, uint32_t *mid)
{
    if (p->ops != &repl_dip_ops && p->ops != &repl_drrip_ops)
        return -1;
    const duel *d = p->priv;
    *psel = d->psel;
    *mid = d->mid;
    return 0;
}
