/* repl.c - the policy registry and the generic create/destroy. */
#include "sim/cache/repl.h"

#include <stdlib.h>
#include <string.h>

static const repl_ops *const registry[] = {
    &repl_lru_ops, &repl_bip_ops, &repl_srrip_ops, &repl_brrip_ops, &repl_drrip_ops, &repl_dip_ops,
};
#define NREG (sizeof registry / sizeof registry[0])

void repl_config_default(repl_config *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->name, "lru");
    c->bip_epsilon = 1.0 / 32.0;
    c->duel_leaders = 32;
    c->psel_bits = 10;
    c->seed = 1;
}

const repl_ops *repl_find(const char *name)
{
    if (strcmp(name, "qlru") == 0)      /* QLRU is Intel's name for 2-bit SRRIP */
        name = "srrip";
    for (size_t i = 0; i < NREG; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *repl_names(void)
{
    return "lru, bip, srrip (qlru), brrip, drrip, dip";
}

int repl_init_member(repl_policy *p, const repl_ops *ops, const repl_config *c, uint32_t nsets,
                     uint32_t ways, uint8_t *base, uint64_t stride, void *shared_state, ddio_err *e)
{
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->nsets = nsets;
    p->ways = ways;
    p->base = base;
    p->stride = stride;
    p->cfg = *c;
    p->epsilon = c->bip_epsilon;
    ddio_rng_seed(&p->rng, c->seed ^ 0x5EEDull);
    if (shared_state) {
        p->state = shared_state;
        p->shared_state = 1;
        return 0;
    }
    return ops->init ? ops->init(p, e) : 0;
}

repl_policy *repl_create(const repl_config *c, uint32_t nsets, uint32_t ways, uint8_t *base,
                         uint64_t stride, ddio_err *e)
{
    const repl_ops *ops = repl_find(c->name);
    if (!ops) {
        ddio_errf(e, DDIO_EXIT_USAGE, "policy '%s' is not one of %s", c->name, repl_names());
        return NULL;
    }
    if (!(c->bip_epsilon >= 0.0 && c->bip_epsilon <= 1.0)) {
        ddio_errf(e, DDIO_EXIT_USAGE, "policy '%s': epsilon %g is not in [0, 1]", c->name, c->bip_epsilon);
        return NULL;
    }
    repl_policy *p = malloc(sizeof *p);
    if (!p) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        return NULL;
    }
    if (repl_init_member(p, ops, c, nsets, ways, base, stride, NULL, e) != 0) {
        free(p);
        return NULL;
    }
    if (ops->init_set)
        for (uint32_t s = 0; s < nsets; s++)
            ops->init_set(p, s);
    return p;
}

void repl_destroy(repl_policy *p)
{
    if (!p)
        return;
    if (p->ops->free)
        p->ops->free(p);
    free(p);
}
