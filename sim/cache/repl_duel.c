/* repl_duel.c - set dueling between two policies of one family
 * (Qureshi et al., "Adaptive Insertion Policies for High Performance
 * Caching", ISCA 2007): DIP = LRU vs BIP, DRRIP = SRRIP vs BRRIP, and
 * `duel:<A>,<B>` for any two policies of one family, e.g. two QLRU variants
 * as in the "Adaptive" L3 policies Abel and Reineke measured ("nanoBench: A
 * Low-Overhead Tool for Running Microbenchmarks on x86 Systems", ISPASS 2020,
 * and uops.info's cache page).
 *
 * A few leader sets always use policy A, as many always use B, and a
 * saturating PSEL counter counts their misses (a fill is a miss): a miss in
 * an A leader increments it, a miss in a B leader decrements it.  Follower
 * sets use A while PSEL <= its midpoint, B above it.  In DIP and DRRIP the
 * two policies differ only in how they insert, so hits and victims are A's
 * everywhere; in duel:A,B every rule of a set (hit, choice of way, fill) is
 * the one of the policy the set uses at that moment.
 *
 * Leader placement, with L leader sets per policy:
 *  - dip, drrip (L = 32 by default, at most nsets / 2): the sets are cut into
 *    L regions of nsets / L sets; the first set of each region leads for A
 *    and the set in its middle leads for B.
 *  - duel:A,B (L = 16 by default, a power of two >= 2), per slice of S sets:
 *    the slice is cut into 2L groups of S / 2L sets; group g's diagonal set
 *    is the one at offset g (mod the group size); it leads for A when
 *    g mod 4 is 0 or 1 and for B when it is 2 or 3.  With Ice Lake's 1024
 *    sets per slice and L = 16, the A leaders are sets 0, 33, 132, 165, ...,
 *    957 in every slice: the sets uops.info lists as always running
 *    QLRU_H00_M1_R0_U1 on the Core i5-1035G1 L3 (a 10-bit set index whose
 *    high 5 bits equal its low 5 bits, bit 1 clear).  That B leads the other
 *    half of that diagonal is our assumption: the B leaders, PSEL's width
 *    and its threshold are not published (nor is anything for Skylake-SP),
 *    hence the parameters (repl_config: duel_leaders, psel_bits). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cache/repl.h"

enum rule { REGION, DIAGONAL };

typedef struct duel {
    repl_policy a, b;       /* b shares a's state */
    uint32_t psel, psel_max, mid;
    enum rule rule;
    uint32_t region;                    /* REGION: sets per region, 0 = no leaders */
    uint32_t slice_sets, groups, group_sets;   /* DIAGONAL; groups = 0: no leaders */
    int split;              /* 1: A and B differ beyond insertion, each op asks the set's policy */
    uint8_t *role;          /* role_of() per set, so that a hit or a fill costs no division */
} duel;

enum { FOLLOWER = 0, LEADER_A, LEADER_B };

static int role_of(const duel *d, uint32_t set)
{
    if (d->rule == REGION) {
        if (!d->region)
            return FOLLOWER;
        uint32_t r = set % d->region;
        return r == 0 ? LEADER_A : (r == d->region / 2 ? LEADER_B : FOLLOWER);
    }
    if (!d->groups)
        return FOLLOWER;
    const uint32_t s = set % d->slice_sets, g = s / d->group_sets;
    if (g >= d->groups || s % d->group_sets != g % d->group_sets)
        return FOLLOWER;
    return (g & 2) ? LEADER_B : LEADER_A;
}

static inline int leader_of(const duel *d, uint32_t set)
{
    return d->role ? d->role[set] : role_of(d, set);
}

/* The policy `set` uses now. */
static inline repl_policy *member(duel *d, uint32_t set)
{
    switch (leader_of(d, set)) {
    case LEADER_A: return &d->a;
    case LEADER_B: return &d->b;
    default: return d->psel <= d->mid ? &d->a : &d->b;
    }
}

/* --- duel:A,B names ------------------------------------------------------ */

static int is_duel(const repl_ops *o)
{
    return o == &repl_dip_ops || o == &repl_drrip_ops || o == &repl_duel_ops;
}

/* Split "duel:A,B" (any case for "duel:") into a and b; 0 when the name is
 * not of that form. */
static int split_name(const char *name, char *a, char *b, size_t cap)
{
    static const char pre[] = "duel:";
    for (size_t i = 0; i + 1 < sizeof pre; i++)
        if (tolower((unsigned char)name[i]) != pre[i])
            return 0;
    const char *s = name + sizeof pre - 1, *comma = strchr(s, ',');
    size_t la = comma ? (size_t)(comma - s) : strlen(s);
    snprintf(a, cap, "%.*s", (int)(la < cap ? la : cap - 1), s);
    snprintf(b, cap, "%s", comma ? comma + 1 : "");
    return 1;
}

static int duel_parse(const char *name, char *msg, size_t cap)
{
    char a[REPL_NAME_LEN], b[REPL_NAME_LEN], why[300];
    if (!split_name(name, a, b, sizeof a))
        return 0;
    if (!strchr(name, ',') || !*a || !*b) {
        snprintf(msg, cap, "'%.64s': expected duel:<A>,<B> (two policies of one family)", name);
        return -1;
    }
    const char *half[2] = {a, b};
    const repl_ops *o[2];
    for (int i = 0; i < 2; i++) {
        if (repl_check_name(half[i], why, sizeof why) != 0) {
            snprintf(msg, cap, "'%.64s': %s", name, why);
            return -1;
        }
        o[i] = repl_find(half[i]);
        if (is_duel(o[i])) {
            snprintf(msg, cap, "'%.64s': '%s' is itself a duel; duel:<A>,<B> takes two single policies", name,
                     half[i]);
            return -1;
        }
    }
    if (strcmp(o[0]->family, o[1]->family) != 0) {
        snprintf(msg, cap, "'%.64s': %s (%s family) and %s (%s family) keep different per-line state; "
                 "a duel needs two policies of one family", name, a, o[0]->family, b, o[1]->family);
        return -1;
    }
    return 1;
}

/* --- shared ops ---------------------------------------------------------- */

static int duel_init_with(repl_policy *p, const repl_ops *a, const char *a_name, const repl_ops *b,
                          const char *b_name, enum rule rule, ddio_err *e)
{
    uint32_t leaders = p->cfg.duel_leaders;
    if (rule == DIAGONAL && leaders && (leaders < 2 || (leaders & (leaders - 1))))
        return ddio_errf(e, DDIO_EXIT_USAGE, "policy %s: %u leader sets per policy: duel:<A>,<B> takes a power "
                         "of two >= 2", p->cfg.name, leaders);
    duel *d = calloc(1, sizeof *d);
    if (!d)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    repl_config ca = p->cfg, cb = p->cfg;
    snprintf(ca.name, sizeof ca.name, "%s", a_name);
    snprintf(cb.name, sizeof cb.name, "%s", b_name);
    cb.seed ^= 0xB1B1B1B1ull;
    if (repl_init_member(&d->a, a, &ca, p->nsets, p->ways, p->base, p->stride, NULL, e) != 0) {
        free(d);
        return -1;
    }
    if (repl_init_member(&d->b, b, &cb, p->nsets, p->ways, p->base, p->stride, d->a.state, e) != 0) {
        if (a->free)
            a->free(&d->a);
        free(d);
        return -1;
    }
    uint32_t bits = p->cfg.psel_bits ? p->cfg.psel_bits : 10;
    if (bits > 30)
        bits = 30;
    d->psel_max = (1u << bits) - 1;
    d->mid = 1u << (bits - 1);
    d->psel = d->mid;
    d->rule = rule;
    if (rule == REGION) {
        if (!leaders)
            leaders = 32;
        if (leaders > p->nsets / 2)
            leaders = p->nsets / 2;
        d->region = leaders ? p->nsets / leaders : 0;
    } else {
        if (!leaders)
            leaders = 16;
        const uint32_t s = p->cfg.sets_per_slice && p->cfg.sets_per_slice <= p->nsets ? p->cfg.sets_per_slice
                                                                                       : p->nsets;
        d->slice_sets = s;
        /* A slice too small for 2L groups gets fewer (a power of two, at
         * least 2 per policy so that both lead), or none. */
        while (leaders >= 2 && 2 * leaders > s)
            leaders /= 2;
        d->groups = leaders >= 2 ? 2 * leaders : 0;
        d->group_sets = d->groups ? s / d->groups : 1;
    }
    d->split = !(a->on_hit == b->on_hit && a->victim == b->victim && a->on_invalidate == b->on_invalidate &&
                 a->fill_way == b->fill_way && !d->a.priv && !d->b.priv);
    /* Every set's role, so that a hit or a fill costs no division. */
    d->role = malloc(p->nsets);
    if (!d->role) {
        if (b->free)
            b->free(&d->b);
        if (a->free)
            a->free(&d->a);
        free(d);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (uint32_t set = 0; set < p->nsets; set++)
        d->role[set] = (uint8_t)role_of(d, set);
    p->priv = d;
    p->state = d->a.state;
    return 0;
}

static void duel_hit(repl_policy *p, uint32_t set, uint32_t way)
{
    duel *d = p->priv;
    repl_policy *m = d->split ? member(d, set) : &d->a;
    m->ops->on_hit(m, set, way);
}

static uint32_t duel_victim(repl_policy *p, uint32_t set, uint64_t mask)
{
    duel *d = p->priv;
    repl_policy *m = d->split ? member(d, set) : &d->a;
    return m->ops->victim(m, set, mask);
}

static uint32_t duel_fill_way(repl_policy *p, uint32_t set, uint64_t mask, uint64_t empty)
{
    duel *d = p->priv;
    return repl_fill_way(d->split ? member(d, set) : &d->a, set, mask, empty);
}

static void duel_invalidate(repl_policy *p, uint32_t set, uint32_t way)
{
    duel *d = p->priv;
    repl_policy *m = d->split ? member(d, set) : &d->a;
    m->ops->on_invalidate(m, set, way);
}

static void duel_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    duel *d = p->priv;
    repl_policy *m;
    switch (leader_of(d, set)) {
    case LEADER_A:
        if (d->psel < d->psel_max)
            d->psel++;
        m = &d->a;
        break;
    case LEADER_B:
        if (d->psel > 0)
            d->psel--;
        m = &d->b;
        break;
    default:
        m = d->psel <= d->mid ? &d->a : &d->b;
    }
    m->ops->on_fill(m, set, way);
}

/* A set's hit is its policy's: the members' rule when they share one (a
 * duel of insertions, or a split duel whose members hit alike), so that
 * the hit is the same whichever member the set uses. */
static void duel_hit_rule(const repl_policy *p, repl_hit_rule *r)
{
    const duel *d = p->priv;
    const repl_hit_rule a = repl_hit_rule_of(&d->a), b = repl_hit_rule_of(&d->b);
    if (!d->split || repl_hit_rule_same(&a, &b))
        *r = a;
}

/* A set's victims and removals are its policy's: the members' rule when
 * they choose alike (every set then does whichever member it uses); its
 * fills go through duel_fill, which counts PSEL. */
static void duel_evict_rule(const repl_policy *p, repl_evict_rule *r)
{
    const duel *d = p->priv;
    const repl_evict_rule a = repl_evict_rule_of(&d->a), b = repl_evict_rule_of(&d->b);
    if (!d->split || repl_evict_choice_same(&a, &b)) {
        *r = a;
        r->fill = 0;
    }
}

static void duel_init_set(repl_policy *p, uint32_t set)
{
    duel *d = p->priv;
    if (d->a.ops->init_set)
        d->a.ops->init_set(&d->a, set);
}

static void duel_free(repl_policy *p)
{
    duel *d = p->priv;
    if (d) {
        if (d->b.ops->free)
            d->b.ops->free(&d->b);
        if (d->a.ops->free)
            d->a.ops->free(&d->a);
        free(d->role);
        free(d);
    }
    p->priv = NULL;
    p->state = NULL;
}

/* --- dip, drrip ---------------------------------------------------------- */

static int dip_init(repl_policy *p, ddio_err *e)
{
    return duel_init_with(p, &repl_lru_ops, "lru", &repl_bip_ops, "bip", REGION, e);
}

static int drrip_init(repl_policy *p, ddio_err *e)
{
    return duel_init_with(p, &repl_srrip_ops, "srrip", &repl_brrip_ops, "brrip", REGION, e);
}

static uint32_t dip_set_bytes(const char *name, uint32_t ways) { return repl_lru_ops.set_bytes(name, ways); }
static uint32_t drrip_set_bytes(const char *name, uint32_t ways) { return repl_srrip_ops.set_bytes(name, ways); }

const repl_ops repl_dip_ops = {
    .name = "dip",
    .family = "recency",
    .model_bound = REPL_BOUND_BIP,
    .set_bytes = dip_set_bytes,
    .init_set = duel_init_set,
    .init = dip_init,
    .on_hit = duel_hit,
    .on_fill = duel_fill,
    .victim = duel_victim,
    .on_invalidate = duel_invalidate,
    .free = duel_free,
    .hit_rule = duel_hit_rule,
    .evict_rule = duel_evict_rule,
};

const repl_ops repl_drrip_ops = {
    .name = "drrip",
    .family = "rrip",
    .model_bound = REPL_BOUND_QLRU,
    .set_bytes = drrip_set_bytes,
    .init = drrip_init,
    .on_hit = duel_hit,
    .on_fill = duel_fill,
    .victim = duel_victim,
    .on_invalidate = duel_invalidate,
    .free = duel_free,
    .hit_rule = duel_hit_rule,
    .evict_rule = duel_evict_rule,
};

/* --- duel:A,B ------------------------------------------------------------ */

static int duel_named_init(repl_policy *p, ddio_err *e)
{
    char a[REPL_NAME_LEN], b[REPL_NAME_LEN], msg[300];
    if (duel_parse(p->cfg.name, msg, sizeof msg) != 1)
        return ddio_errf(e, DDIO_EXIT_USAGE, "policy %s", msg);
    split_name(p->cfg.name, a, b, sizeof a);
    return duel_init_with(p, repl_find(a), a, repl_find(b), b, DIAGONAL, e);
}

static uint32_t duel_named_set_bytes(const char *name, uint32_t ways)
{
    char a[REPL_NAME_LEN], b[REPL_NAME_LEN];
    split_name(name, a, b, sizeof a);
    const repl_ops *o = repl_find(a);
    return o ? o->set_bytes(a, ways) : 0;
}

const repl_ops repl_duel_ops = {
    .name = "duel",
    .family = "duel",
    .usage = "duel:<A>,<B>",
    .model_bound = REPL_BOUND_NONE,  /* its first member's (repl_model_bound) */
    .parse = duel_parse,
    .set_bytes = duel_named_set_bytes,
    .init = duel_named_init,
    .init_set = duel_init_set,
    .on_hit = duel_hit,
    .on_fill = duel_fill,
    .victim = duel_victim,
    .on_invalidate = duel_invalidate,
    .free = duel_free,
    .hit_rule = duel_hit_rule,
    .fill_way = duel_fill_way,
    .evict_rule = duel_evict_rule,
};

int repl_duel_psel(const repl_policy *p, uint32_t *psel, uint32_t *mid)
{
    if (!is_duel(p->ops))
        return -1;
    const duel *d = p->priv;
    *psel = d->psel;
    *mid = d->mid;
    return 0;
}

int repl_duel_leader(const repl_policy *p, uint32_t set)
{
    if (!is_duel(p->ops))
        return -1;
    return leader_of(p->priv, set);
}
