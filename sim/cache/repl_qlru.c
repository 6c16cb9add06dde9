/* repl_qlru.c - the QLRU family: the policies with a 2-bit age per line that
 * A. Abel and J. Reineke measured in Intel's L2 and L3 caches ("nanoBench: A
 * Low-Overhead Tool for Running Microbenchmarks on x86 Systems", ISPASS
 * 2020; A. Abel, "Automatic Generation of Models of Microarchitectures",
 * PhD thesis, Saarland University, 2020; the policy names of their cache
 * analyser and simulator).  One module serves every member of the family;
 * the name says which:
 *
 *   QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO]   (any case: qlru_h11_m1_r0_u0)
 *
 * Each way has an age 0..3; every way starts at 3, empty ones included, and
 * a way keeps its age when its line leaves (a flush only empties the way).
 *   H<xy>  a hit on age 3 sets the line to x, on age 2 to y, on 1 or 0 to 0:
 *          H21, H20, H11, H10, H00.
 *   M<m>   a new line starts at age m (M0..M3).  MR<a><b>: at b with
 *          probability 1/16, else at a (their simulator's MR32, MR31, MR30,
 *          MR21, MR20, MR10; we accept any a != b, e.g. MR13 for the
 *          Ice Lake variant "that occasionally inserts with age 3 instead of
 *          age 1"); the draws come from the policy's seeded rng.
 *   R<r>   which way a miss fills: R0 the leftmost (lowest) empty way, else
 *          the leftmost way of age 3; R1 as R0, but way 0 when no way has
 *          age 3; R2 the rightmost empty way, else the leftmost of age 3.
 *   U<u>   ageing after every access to way i (hit or fill): U0 adds
 *          3 - (the largest age of the set) to every way, i included; U1 adds
 *          3 - (the largest age of the other ways) to the other ways; U2 adds
 *          1 to every way when none has age 3; U3 as U2 but not to way i.
 *          U2 and U3 go with R1 only (R0 / R2 need a way of age 3).
 *   _UMO   "update on miss only": no ageing after a hit; a miss ages the set
 *          first, all ways counting as "other", then chooses its way.
 *
 * Way masks (DDIO, CAT) are our extension; on the full mask the rules above
 * are exactly the published ones.  Ageing always covers the whole set (the
 * ages are the set's, whoever filled them); a miss chooses inside its mask:
 * the empty way R says, else the leftmost way of age 3 in the mask, else
 * (possible only when the mask is not the whole set) R1's lowest way of the
 * mask, or for R0 / R2 the leftmost way of the mask with the largest age.
 * Nothing ages then, so two young lines in a 2-way DDIO mask of a set whose
 * other ways are old stay young, and the leftmost is evicted again and again
 * while the other stays.  repl_config.qlru_mask_age chooses the other
 * plausible hardware: the mask's ways age until the oldest is at 3 (as
 * SRRIP's victim search does), and the leftmost of those goes.  Neither is
 * published.
 *
 * Abel and Reineke name SRRIP (repl_rrip.c) QLRU_H00_M2_R0_U0_UMO; see
 * docs/cache-model.md for when the two agree. */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "sim/cache/repl.h"

#define AGE_MAX 3

typedef struct qlru_params {
    uint8_t hit[4];     /* the age after a hit, by the age before */
    uint8_t miss;       /* insertion age */
    uint8_t miss_rare;  /* MR<a><b>: b (with probability 1/16); = miss otherwise */
    uint8_t rand;       /* MR: insertions draw */
    uint8_t r, u, umo;
    uint8_t mask_age;   /* repl_config.qlru_mask_age */
    uint64_t full;      /* every way of the set */
    uint64_t lo;        /* packed sets: bit 2w for every way w */
    repl_hit_rule rule; /* packed sets: the hit (packed_rule) */
    repl_evict_rule evict;  /* packed sets: the fill, victim, removal (packed_evict) */
} qlru_params;

/* --- names --------------------------------------------------------------- */

static int bad(char *msg, size_t cap, const char *name, const char *fmt, const char *field)
{
    char what[160];
    snprintf(what, sizeof what, fmt, field);
    snprintf(msg, cap, "'%.64s': %s", name, what);
    return -1;
}

static int digit03(char c) { return c >= '0' && c <= '3' ? c - '0' : -1; }

/* 1 and *q filled for a QLRU name, 0 for a name outside the family, -1
 * (msg) for a malformed one. */
static int parse_params(const char *name, qlru_params *q, char *msg, size_t cap)
{
    char low[REPL_NAME_LEN], up[REPL_NAME_LEN];
    size_t n = strlen(name);
    if (n < 5 || n >= sizeof low) {
        /* A name longer than any policy's is no QLRU name, unless it says so. */
        if (n < 5)
            return 0;
        for (int i = 0; i < 5; i++)
            if (tolower((unsigned char)name[i]) != "qlru_"[i])
                return 0;
        return bad(msg, cap, name, "%s", "is too long for a QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO] name");
    }
    for (size_t i = 0; i <= n; i++) {
        low[i] = (char)tolower((unsigned char)name[i]);
        up[i] = (char)toupper((unsigned char)name[i]);
    }
    if (strncmp(low, "qlru_", 5) != 0)
        return 0;
    /* The fields after "qlru_", split at '_'; tok[i] in low, the same
     * offset in up for the messages. */
    char *tok[6];
    int nt = 0;
    for (char *s = low + 5;;) {
        if (nt == 6)
            return bad(msg, cap, name, "%s", "has more fields than QLRU_H<xy>_M<m>_R<r>_U<u>_UMO");
        tok[nt++] = s;
        char *u = strchr(s, '_');
        if (!u)
            break;
        *u = 0;
        up[u - low] = 0;
        s = u + 1;
    }
#define UP(i) (up + (tok[i] - low))
    if (nt < 4)
        return bad(msg, cap, name, "%s", "expected QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO]");
    memset(q, 0, sizeof *q);
    const char *t = tok[0];
    static const char *const hits[] = {"h21", "h20", "h11", "h10", "h00"};
    int h = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(t, hits[i]) == 0)
            h = i;
    if (h < 0)
        return bad(msg, cap, name, "hit promotion '%s' is not one of H21, H20, H11, H10, H00", UP(0));
    q->hit[3] = (uint8_t)(t[1] - '0');
    q->hit[2] = (uint8_t)(t[2] - '0');
    q->hit[1] = q->hit[0] = 0;
    t = tok[1];
    if (t[0] == 'm' && digit03(t[1]) >= 0 && t[2] == 0) {
        q->miss = q->miss_rare = (uint8_t)digit03(t[1]);
    } else if (t[0] == 'm' && t[1] == 'r' && digit03(t[2]) >= 0 && digit03(t[3]) >= 0 && t[4] == 0 &&
               t[2] != t[3]) {
        q->miss = (uint8_t)digit03(t[2]);
        q->miss_rare = (uint8_t)digit03(t[3]);
        q->rand = 1;
    } else {
        return bad(msg, cap, name,
                   "insertion '%s' is not one of M0, M1, M2, M3, MR<a><b> (a, b in 0-3, a != b)", UP(1));
    }
    t = tok[2];
    if (!(t[0] == 'r' && t[1] >= '0' && t[1] <= '2' && t[2] == 0))
        return bad(msg, cap, name, "victim rule '%s' is not one of R0, R1, R2", UP(2));
    q->r = (uint8_t)(t[1] - '0');
    t = tok[3];
    if (!(t[0] == 'u' && digit03(t[1]) >= 0 && t[2] == 0))
        return bad(msg, cap, name, "ageing '%s' is not one of U0, U1, U2, U3", UP(3));
    q->u = (uint8_t)(t[1] - '0');
    if (nt > 4) {
        const int extra = strcmp(tok[4], "umo") != 0 ? 4 : 5;
        if (extra < nt)
            return bad(msg, cap, name, "'%s' after the U field is not UMO (update on miss only)", UP(extra));
        q->umo = 1;
    }
#undef UP
    if (q->u >= 2 && q->r != 1)
        return bad(msg, cap, name, "%s",
                   "U2 and U3 go with R1 only (R0 and R2 take a way of age 3, which U2 and U3 do not keep)");
    return 1;
}

static int qlru_parse(const char *name, char *msg, size_t cap)
{
    qlru_params q;
    return parse_params(name, &q, msg, cap);
}

/* --- the rules ----------------------------------------------------------- */

/* Up to 32 ways the ages are 2-bit fields of one 64-bit word (way w at bits
 * 2w, 2w+1; fields past the last way stay 0), so that "is a way at 3", the
 * largest age and U's lift are a few word operations: a hit, the most
 * common call, usually costs a load, two logic operations and a store.
 * Wider sets keep one byte per way.  `lo` has bit 2w set for every way. */
#define PACKED_WAYS 32

static inline uint64_t *word_of(repl_policy *p, uint32_t set)
{
    return (uint64_t *)(void *)repl_line_state(p, set);
}

/* The packed sets' rules (the hit, U, the fill's choice) are repl.h's,
 * which the hierarchy's inline hits and fills share. */

/* U on a byte-per-way set, the same rules as repl_qlru_age_word. */
static void age_bytes(const qlru_params *q, uint8_t *a, uint32_t n, int32_t i)
{
    const int32_t skip = (q->u & 1) && i >= 0 ? i : -1;
    if (q->u <= 1) {
        uint8_t m = 0;
        for (uint32_t w = 0; w < n; w++)
            if ((int32_t)w != skip && a[w] > m)
                m = a[w];
        const uint8_t d = (uint8_t)(AGE_MAX - m);
        for (uint32_t w = 0; w < n && d; w++)
            if ((int32_t)w != skip)
                a[w] = (uint8_t)(a[w] + d);
        return;
    }
    if (memchr(a, AGE_MAX, n))
        return;
    for (uint32_t w = 0; w < n; w++)
        if ((int32_t)w != skip)
            a[w]++;
}

static inline uint32_t age_of(repl_policy *p, uint32_t set, uint32_t way)
{
    if (p->ways <= PACKED_WAYS)
        return (uint32_t)(*word_of(p, set) >> (2 * way)) & 3;
    return repl_line_state(p, set)[way];
}

int repl_qlru_age(const repl_policy *p, uint32_t set, uint32_t way)
{
    return (int)age_of((repl_policy *)(uintptr_t)p, set, way);
}

/* Way w's age becomes v, then U runs for an access to w (unless UMO). */
static inline void set_and_age(repl_policy *p, const qlru_params *q, uint32_t set, uint32_t w, uint32_t v)
{
    if (p->ways <= PACKED_WAYS) {
        uint64_t *x = word_of(p, set);
        *x = repl_qlru_set_word(&q->evict, *x, w, v);
        return;
    }
    uint8_t *a = repl_line_state(p, set);
    a[w] = (uint8_t)v;
    if (!q->umo)
        age_bytes(q, a, p->ways, (int32_t)w);
}

/* The hit rule of packed sets (repl_hit_rule, REPL_HIT_QLRU). */
static repl_hit_rule packed_rule(const qlru_params *q)
{
    repl_hit_rule r = {.kind = REPL_HIT_QLRU, .qlru_u = q->u, .qlru_umo = q->umo, .qlru_lo = q->lo};
    for (int a = 0; a < 4; a++) {
        r.qlru_hit[a] = q->hit[a];
        r.qlru_table = (uint8_t)(r.qlru_table | q->hit[a] << (2 * a));
    }
    /* A hit on age 1, 2, 3 makes it 0, y <= 1 or x <= 2: only age 0
     * stays, which repl_qlru_hit_keeps relies on. */
    for (int a = 0; a < 4; a++) {
        assert((q->hit[a] == a) == (a == 0) && "a hit keeps age 0 alone");
        assert(r.qlru_hit[a] <= 2 && "a hit makes an age at most 2 (repl_qlru_hit_set_done)");
    }
    return r;
}

static void qlru_hit(repl_policy *p, uint32_t set, uint32_t way)
{
    const qlru_params *q = p->priv;
    if (p->ways <= PACKED_WAYS) {
        repl_hit_apply(&q->rule, repl_line_state(p, set), way);
        return;
    }
    set_and_age(p, q, set, way, q->hit[age_of(p, set, way)]);
}

static void qlru_hit_rule(const repl_policy *p, repl_hit_rule *r)
{
    if (p->ways <= PACKED_WAYS)
        *r = ((const qlru_params *)p->priv)->rule;
}

static void qlru_fill(repl_policy *p, uint32_t set, uint32_t way)
{
    const qlru_params *q = p->priv;
    set_and_age(p, q, set, way, q->rand && ddio_rng_below(&p->rng, 16) == 0 ? q->miss_rare : q->miss);
}

/* The packed sets' fill, victim and removal (repl_evict_rule); the fill
 * inline unless MR draws. */
static repl_evict_rule packed_evict(const qlru_params *q)
{
    return (repl_evict_rule){.kind = REPL_EVICT_QLRU, .fill = !q->rand, .qlru_miss = q->miss, .qlru_r = q->r,
                             .qlru_u = q->u, .qlru_umo = q->umo, .qlru_mask_age = q->mask_age,
                             .qlru_full = q->full, .qlru_lo = q->lo};
}

static void qlru_evict_rule(const repl_policy *p, repl_evict_rule *r)
{
    if (p->ways <= PACKED_WAYS)
        *r = ((const qlru_params *)p->priv)->evict;
}

/* No way of age 3 in the mask (only when the mask is not the whole set),
 * on packed ages *x or bytes a: R1 the mask's lowest way, R0 / R2 its
 * oldest; or, with mask_age, the mask's ways age until the oldest is at 3
 * and the leftmost of those goes (every R). */
static uint32_t pick_old(uint32_t r, uint32_t mask_age, uint64_t full, uint64_t *x, uint8_t *a, uint64_t mask)
{
    uint32_t best = (uint32_t)__builtin_ctzll(mask), best_age = 0;
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint32_t w = (uint32_t)__builtin_ctzll(m), age = x ? (uint32_t)(*x >> (2 * w)) & 3 : a[w];
        if (age == AGE_MAX)
            return w;
        if (age > best_age) {
            best_age = age;
            best = w;
        }
    }
    if (mask_age && mask != full) {
        const uint32_t d = AGE_MAX - best_age;
        if (x) {
            *x += (uint64_t)d * repl_qlru_spread(mask);
        } else {
            for (uint64_t m = mask; m; m &= m - 1)
                a[__builtin_ctzll(m)] = (uint8_t)(a[__builtin_ctzll(m)] + d);
        }
        return best;
    }
    return r == 1 ? (uint32_t)__builtin_ctzll(mask) : best;
}

uint32_t repl_qlru_fill_rare(const repl_evict_rule *r, uint64_t *x, uint64_t mask)
{
    return pick_old(r->qlru_r, r->qlru_mask_age, r->qlru_full, x, NULL, mask);
}

static uint32_t qlru_fill_way(repl_policy *p, uint32_t set, uint64_t mask, uint64_t empty)
{
    const qlru_params *q = p->priv;
    if (p->ways <= PACKED_WAYS)
        return repl_qlru_fill_way(&q->evict, word_of(p, set), mask, empty);
    uint8_t *a = repl_line_state(p, set);
    if (q->umo)
        age_bytes(q, a, p->ways, -1);
    if (empty)
        return repl_qlru_empty_way(q->r, empty);
    return pick_old(q->r, q->mask_age, q->full, NULL, a, mask);
}

static uint32_t qlru_victim(repl_policy *p, uint32_t set, uint64_t mask)
{
    return qlru_fill_way(p, set, mask, 0);
}

static void qlru_invalidate(repl_policy *p, uint32_t set, uint32_t way)
{
    (void)p, (void)set, (void)way;   /* the way keeps its age */
}

static uint32_t qlru_set_bytes(const char *name, uint32_t ways)
{
    (void)name;
    return ways <= PACKED_WAYS ? 8 : ways;
}

static int qlru_init(repl_policy *p, ddio_err *e)
{
    qlru_params *q = malloc(sizeof *q);
    if (!q)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    char msg[256];
    if (parse_params(p->cfg.name, q, msg, sizeof msg) != 1) {
        free(q);
        return ddio_errf(e, DDIO_EXIT_USAGE, "policy %s", msg);
    }
    q->full = p->ways >= 64 ? UINT64_MAX : (1ull << p->ways) - 1;
    q->mask_age = p->cfg.qlru_mask_age != 0;
    q->lo = p->ways <= PACKED_WAYS ? repl_qlru_spread(q->full) : 0;
    q->rule = packed_rule(q);
    q->evict = packed_evict(q);
    p->priv = q;
    return 0;
}

static void qlru_init_set(repl_policy *p, uint32_t set)
{
    const qlru_params *q = p->priv;
    if (p->ways <= PACKED_WAYS)
        *word_of(p, set) = AGE_MAX * q->lo;
    else
        memset(repl_line_state(p, set), AGE_MAX, p->ways);
}

static void qlru_free(repl_policy *p)
{
    free(p->priv);
    p->priv = NULL;
}

const repl_ops repl_qlru_ops = {
    .name = "QLRU",
    .family = "qlru",
    .usage = "QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO]",
    .model_bound = REPL_BOUND_QLRU,
    .parse = qlru_parse,
    .set_bytes = qlru_set_bytes,
    .init = qlru_init,
    .init_set = qlru_init_set,
    .on_hit = qlru_hit,
    .on_fill = qlru_fill,
    .victim = qlru_victim,
    .on_invalidate = qlru_invalidate,
    .free = qlru_free,
    .fill_way = qlru_fill_way,
    .hit_rule = qlru_hit_rule,
    .evict_rule = qlru_evict_rule,
};
