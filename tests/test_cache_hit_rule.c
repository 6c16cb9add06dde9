/* test_cache_hit_rule.c - the policies' inline hit rules (repl.h
 * repl_hit_rule, which the hierarchy's fast paths apply instead of
 * ops->on_hit): on random access streams over a tiny cache, one cache
 * whose hits go through the ops and one whose hits go through
 * repl_hit_apply end with the same bytes in every set block after every
 * access (fills, victims and removals through the ops in both, with the
 * same seeds).  Also the kind each shipped policy declares. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/cache/cache.h"
#include "sim/cache/repl.h"
#include "sim/common/rng.h"

static void make(cache *c, const char *policy, uint32_t sets, uint32_t ways)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = sets, .ways = ways, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    snprintf(rc.name, sizeof rc.name, "%s", policy);
    rc.duel_leaders = 2;
    ddio_err e;
    cr_assert_eq(cache_init(c, &g, &rc, &e), 0, "%s: %s", policy, e.msg);
}

/* `n` random reads (a partial mask on some misses) and removals of lines
 * from a pool twice the cache's size, compared block for block. */
static void same_as_ops(const char *policy, uint32_t sets, uint32_t ways, repl_hit_kind kind, uint64_t seed)
{
    cache a, b;
    make(&a, policy, sets, ways);
    make(&b, policy, sets, ways);
    const repl_hit_rule rule = repl_hit_rule_of(b.repl);
    cr_assert_eq(rule.kind, kind, "%s, %u ways: hit rule kind %d, expected %d", policy, ways, rule.kind, kind);
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
            cache_remove(&b, set, (uint32_t)way);
        } else if (way >= 0) {
            cache_hit(&a, set, (uint32_t)way);
            if (rule.kind != REPL_HIT_OPS)
                repl_hit_apply(&rule, repl_line_state(b.repl, set), (uint32_t)way);
            else
                cache_hit(&b, set, (uint32_t)way);
        } else {
            const uint64_t mask = r == 1 ? 3 : a.full_mask;   /* a DDIO-like partial mask now and then */
            cache_evicted ea, eb;
            cr_assert_eq(cache_fill(&a, set, mask, line, 0, &ea), cache_fill(&b, set, mask, line, 0, &eb));
        }
        cr_assert(memcmp(a.blocks, b.blocks, (size_t)a.block_bytes * a.nsets) == 0,
                  "%s, %u ways: the set blocks differ after access %d", policy, ways, i);
    }
    cache_free(&a);
    cache_free(&b);
}

Test(cache_hit_rule, lru) { same_as_ops("lru", 8, 11, REPL_HIT_NIBBLE, 1); }
Test(cache_hit_rule, bip) { same_as_ops("bip", 8, 11, REPL_HIT_NIBBLE, 2); }
Test(cache_hit_rule, dip) { same_as_ops("dip", 8, 11, REPL_HIT_NIBBLE, 3); }
Test(cache_hit_rule, srrip) { same_as_ops("srrip", 8, 11, REPL_HIT_RRPV, 4); }
Test(cache_hit_rule, brrip) { same_as_ops("brrip", 8, 11, REPL_HIT_RRPV, 5); }
Test(cache_hit_rule, drrip) { same_as_ops("drrip", 8, 11, REPL_HIT_RRPV, 6); }
Test(cache_hit_rule, qlru)
{
    same_as_ops("QLRU_H11_M1_R0_U0", 8, 11, REPL_HIT_QLRU, 7);
    same_as_ops("QLRU_H00_M1_R2_U1", 8, 4, REPL_HIT_QLRU, 8);
    same_as_ops("QLRU_H21_M2_R1_U2", 8, 16, REPL_HIT_QLRU, 9);
    same_as_ops("QLRU_H10_M1_R1_U3", 8, 12, REPL_HIT_QLRU, 10);
    same_as_ops("QLRU_H20_M3_R0_U0_UMO", 8, 11, REPL_HIT_QLRU, 11);
}
Test(cache_hit_rule, duel)
{
    same_as_ops("duel:QLRU_H11_M1_R0_U0,QLRU_H11_MR31_R0_U0", 8, 11, REPL_HIT_QLRU, 12);
    same_as_ops("duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR13_R0_U1", 8, 11, REPL_HIT_QLRU, 13);
    same_as_ops("duel:srrip,brrip", 8, 11, REPL_HIT_RRPV, 14);
}

/* No inline rule where one would be wrong: members that hit differently,
 * wider sets than the packed words hold. */
Test(cache_hit_rule, through_ops)
{
    same_as_ops("duel:QLRU_H11_M1_R0_U0,QLRU_H00_M1_R0_U0", 8, 11, REPL_HIT_OPS, 15);
    same_as_ops("lru", 4, 20, REPL_HIT_OPS, 16);
    same_as_ops("QLRU_H11_M1_R0_U0", 4, 40, REPL_HIT_OPS, 17);
}
