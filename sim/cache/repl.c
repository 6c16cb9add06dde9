/* repl.c - the policy registry and the generic create/destroy. */
#include "sim/cache/repl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The policy table: every module, in the order of the lists it prints.  A
 * new module's ops are declared here (repl.h declares only the ones other
 * files use); the fast paths of the hierarchy recognise theirs by address,
 * so a new policy runs on the general path. */
static const repl_ops *const registry[] = {
    &repl_lru_ops, &repl_bip_ops, &repl_srrip_ops, &repl_brrip_ops, &repl_drrip_ops, &repl_dip_ops,
    &repl_qlru_ops, &repl_duel_ops,
};
#define NREG (sizeof registry / sizeof registry[0])

void repl_config_default(repl_config *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->name, "lru");
    c->bip_epsilon = 1.0 / 32.0;
    c->duel_leaders = 0;
    c->psel_bits = 10;
    c->seed = 1;
}

/* The module of `name` (NULL: none), and 1 / 0 / -1 as ops->parse says
 * (1 for a plain registry name). */
static const repl_ops *lookup(const char *name, int *how, char *msg, size_t cap)
{
    /* "qlru" alone is kept for files written before the QLRU family: it is
     * SRRIP, which Abel and Reineke write QLRU_H00_M2_R0_U0_UMO (equal on
     * full masks without invalidations, docs/cache-model.md). */
    if (strcmp(name, "qlru") == 0)
        name = "srrip";
    if (strlen(name) >= REPL_NAME_LEN) {
        snprintf(msg, cap, "'%.64s...' is longer than the %d characters of any policy name", name,
                 REPL_NAME_LEN - 1);
        *how = -1;
        return NULL;
    }
    for (size_t i = 0; i < NREG; i++) {
        const repl_ops *o = registry[i];
        if (strcmp(o->name, name) == 0 && !o->parse) {
            *how = 1;
            return o;
        }
        if (o->parse) {
            int r = o->parse(name, msg, cap);
            if (r != 0) {
                *how = r;
                return r > 0 ? o : NULL;
            }
        }
    }
    *how = 0;
    return NULL;
}

const repl_ops *repl_find(const char *name)
{
    char msg[8];
    int how;
    return lookup(name, &how, msg, sizeof msg);
}

int repl_check_name(const char *name, char *msg, size_t cap)
{
    int how;
    if (lookup(name, &how, msg, cap))
        return 0;
    if (how == 0) {
        char names[256];
        snprintf(msg, cap, "'%.64s' is not one of %s", name, repl_names(names, sizeof names));
    }
    return -1;
}

/* The module of `name`, of its first policy for duel:A,B (NULL: none). */
static const repl_ops *first_member(const char *name)
{
    const repl_ops *o = repl_find(name);
    if (o == &repl_duel_ops) {
        char a[REPL_NAME_LEN];
        const char *s = name + 5;   /* after "duel:" */
        snprintf(a, sizeof a, "%.*s", (int)strcspn(s, ","), s);
        o = repl_find(a);
    }
    return o;
}

const char *repl_family(const char *name)
{
    const repl_ops *o = first_member(name);
    return o ? o->family : NULL;
}

repl_bound repl_model_bound(const char *name)
{
    const repl_ops *o = first_member(name);
    return o ? o->model_bound : REPL_BOUND_NONE;
}

char *repl_names(char *buf, size_t cap)
{
    size_t n = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < NREG && n < cap; i++) {
        const char *u = registry[i]->usage ? registry[i]->usage : registry[i]->name;
        int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", u);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    return buf;
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
    }
    return ops->init ? ops->init(p, e) : 0;
}

repl_policy *repl_create(const repl_config *c, uint32_t nsets, uint32_t ways, uint8_t *base,
                         uint64_t stride, ddio_err *e)
{
    const repl_ops *ops = repl_find(c->name);
    if (!ops) {
        char msg[300];
        repl_check_name(c->name, msg, sizeof msg);
        ddio_errf(e, DDIO_EXIT_USAGE, "policy %s", msg);
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

repl_hit_rule repl_hit_rule_of(const repl_policy *p)
{
    repl_hit_rule r = {.kind = REPL_HIT_OPS};
    if (p->ops->hit_rule)
        p->ops->hit_rule(p, &r);
    return r;
}

repl_evict_rule repl_evict_rule_of(const repl_policy *p)
{
    repl_evict_rule r = {.kind = REPL_EVICT_OPS};
    if (p->ops->evict_rule)
        p->ops->evict_rule(p, &r);
    return r;
}
