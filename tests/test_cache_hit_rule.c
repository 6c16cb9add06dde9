/* test_cache_hit_rule.c - the policies' inline rules (repl.h
 * repl_hit_rule and repl_evict_rule, which the hierarchy's fast paths
 * apply instead of ops->on_hit, fill_way / victim, on_fill and
 * on_invalidate): on random access streams over a tiny cache, one cache
 * whose accesses all go through the ops and one whose hits go through
 * repl_hit_apply and whose fills and removals go through setblock.h's
 * fill_in / remove_in with the evict rule end with the same bytes in every
 * set block after every access (the same seeds).  Also the kinds each
 * shipped policy declares. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/cache/cache.h"
#include "sim/cache/repl.h"
#include "sim/cache/setblock.h"
#include "sim/common/rng.h"

static void make(cache *c, const char *policy, uint32_t sets, uint32_t ways, int mask_age)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = sets, .ways = ways, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    snprintf(rc.name, sizeof rc.name, "%s", policy);
    rc.duel_leaders = 2;
    rc.qlru_mask_age = (uint32_t)mask_age;
    ddio_err e;
    cr_assert_eq(cache_init(c, &g, &rc, &e), 0, "%s: %s", policy, e.msg);
}

/* `n` random reads (a partial mask on some misses) and removals of lines
 * from a pool twice the cache's size, compared block for block. */
static void same_as_ops_with(const char *policy, uint32_t sets, uint32_t ways, int mask_age, repl_hit_kind kind,
                             repl_evict_kind ekind, uint64_t seed)
{
    cache a, b;
    make(&a, policy, sets, ways, mask_age);
    make(&b, policy, sets, ways, mask_age);
    const repl_hit_rule rule = repl_hit_rule_of(b.repl);
    cr_assert_eq(rule.kind, kind, "%s, %u ways: hit rule kind %d, expected %d", policy, ways, rule.kind, kind);
    const repl_evict_rule er = repl_evict_rule_of(b.repl);
    cr_assert_eq(er.kind, ekind, "%s, %u ways: evict rule kind %d, expected %d", policy, ways, er.kind, ekind);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    const uint64_t pool = 2ull * sets * ways;
    for (int i = 0; i < 20000; i++) {
        const uint64_t line = ddio_rng_below(&rng, (uint32_t)pool);
        const uint32_t set = cache_set(&a, line);
        const int way = cache_find(&a, set, line);
        cr_assert_eq(way, cache_find(&b, set, line));
        const uint32_t r = ddio_rng_below(&rng, 8);
        if (way >= 0 && r == 0) {
            cache_remove(&a, set, (uint32_t)way);
            remove_in(&b, 0, &er, set, (uint32_t)way);
        } else if (way >= 0) {
            cache_hit(&a, set, (uint32_t)way);
            if (rule.kind != REPL_HIT_OPS)
                repl_hit_apply(&rule, repl_line_state(b.repl, set), (uint32_t)way);
            else
                cache_hit(&b, set, (uint32_t)way);
        } else {
            const uint64_t mask = r == 1 ? 3 : a.full_mask;   /* a DDIO-like partial mask now and then */
            cache_evicted ea, eb;
            cr_assert_eq(cache_fill(&a, set, mask, line, 0, &ea), fill_in(&b, 0, 0, &er, set, mask, line, 0, &eb));
            cr_assert_eq(ea.line, eb.line);
            cr_assert_eq(ea.meta, eb.meta);
        }
        cr_assert(memcmp(a.blocks, b.blocks, (size_t)a.block_bytes * a.nsets) == 0,
                  "%s, %u ways: the set blocks differ after access %d", policy, ways, i);
    }
    cache_free(&a);
    cache_free(&b);
}

static void same_as_ops_evict(const char *policy, uint32_t sets, uint32_t ways, repl_hit_kind kind,
                              repl_evict_kind ekind, uint64_t seed)
{
    same_as_ops_with(policy, sets, ways, 0, kind, ekind, seed);
}

/* same_as_ops_evict for a policy without an inline evict rule. */
static void same_as_ops(const char *policy, uint32_t sets, uint32_t ways, repl_hit_kind kind, uint64_t seed)
{
    same_as_ops_evict(policy, sets, ways, kind, REPL_EVICT_OPS, seed);
}

#define RRPV REPL_EVICT_RRPV
#define QLRU REPL_EVICT_QLRU

Test(cache_hit_rule, lru) { same_as_ops("lru", 8, 11, REPL_HIT_NIBBLE, 1); }
Test(cache_hit_rule, bip) { same_as_ops("bip", 8, 11, REPL_HIT_NIBBLE, 2); }
Test(cache_hit_rule, dip) { same_as_ops("dip", 8, 11, REPL_HIT_NIBBLE, 3); }
Test(cache_hit_rule, srrip) { same_as_ops_evict("srrip", 8, 11, REPL_HIT_RRPV, RRPV, 4); }
Test(cache_hit_rule, brrip) { same_as_ops_evict("brrip", 8, 11, REPL_HIT_RRPV, RRPV, 5); }
Test(cache_hit_rule, drrip) { same_as_ops_evict("drrip", 8, 11, REPL_HIT_RRPV, RRPV, 6); }
Test(cache_hit_rule, qlru)
{
    same_as_ops_evict("QLRU_H11_M1_R0_U0", 8, 11, REPL_HIT_QLRU, QLRU, 7);
    same_as_ops_evict("QLRU_H00_M1_R2_U1", 8, 4, REPL_HIT_QLRU, QLRU, 8);
    same_as_ops_evict("QLRU_H21_M2_R1_U2", 8, 16, REPL_HIT_QLRU, QLRU, 9);
    same_as_ops_evict("QLRU_H10_M1_R1_U3", 8, 12, REPL_HIT_QLRU, QLRU, 10);
    same_as_ops_evict("QLRU_H20_M3_R0_U0_UMO", 8, 11, REPL_HIT_QLRU, QLRU, 11);
    same_as_ops_evict("QLRU_H11_MR31_R2_U1_UMO", 8, 11, REPL_HIT_QLRU, QLRU, 18);
}
Test(cache_hit_rule, duel)
{
    same_as_ops_evict("duel:QLRU_H11_M1_R0_U0,QLRU_H11_MR31_R0_U0", 8, 11, REPL_HIT_QLRU, QLRU, 12);
    same_as_ops_evict("duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR13_R0_U1", 8, 11, REPL_HIT_QLRU, QLRU, 13);
    same_as_ops_evict("duel:srrip,brrip", 8, 11, REPL_HIT_RRPV, RRPV, 14);
}

/* No inline rule where one would be wrong: members that hit differently,
 * wider sets than the packed words hold. */
Test(cache_hit_rule, through_ops)
{
    same_as_ops_evict("duel:QLRU_H11_M1_R0_U0,QLRU_H00_M1_R0_U0", 8, 11, REPL_HIT_OPS, QLRU, 15);
    same_as_ops("duel:QLRU_H11_M1_R0_U0,QLRU_H11_M1_R2_U0", 8, 11, REPL_HIT_QLRU, 19);
    same_as_ops("lru", 4, 20, REPL_HIT_OPS, 16);
    same_as_ops("QLRU_H11_M1_R0_U0", 4, 40, REPL_HIT_OPS, 17);
}

/* QLRU's rare fill (a partial mask with no way of age 3), both choices of
 * repl_config.qlru_mask_age: a 2-way mask keeps young lines. */
Test(cache_hit_rule, qlru_mask_age)
{
    same_as_ops_with("QLRU_H00_M0_R0_U1", 8, 11, 0, REPL_HIT_QLRU, QLRU, 20);
    same_as_ops_with("QLRU_H00_M0_R2_U1", 8, 11, 1, REPL_HIT_QLRU, QLRU, 21);
    same_as_ops_with("QLRU_H11_M1_R1_U0", 8, 11, 1, REPL_HIT_QLRU, QLRU, 22);
}
