/* test_cache_policy.c - each replacement policy's defining behaviour on
 * hand-built sequences with exact hit counts, set dueling, and the property
 * that no fill ever lands outside its way mask. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/cache/lru_order.h"
#include "sim/cache/repl.h"
#include "sim/cache/replay.h"
#include "sim/common/rng.h"

static void make(replay *r, const char *policy, uint32_t sets, uint32_t ways, double eps)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = sets, .ways = ways, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    snprintf(rc.name, sizeof rc.name, "%s", policy);
    rc.bip_epsilon = eps;
    rc.duel_leaders = 4;
    uint64_t full = (1ull << ways) - 1;
    ddio_err e;
    cr_assert_eq(replay_init(r, &g, &rc, full, full, &e), 0, "%s", e.msg);
}

/* Replay line numbers (all reads); returns the hit count. */
static int run(replay *r, const uint64_t *lines, size_t n)
{
    int hits = 0;
    for (size_t i = 0; i < n; i++)
        hits += replay_access(r, OP_READ, lines[i] * 64);
    return hits;
}

static int run_policy(const char *policy, double eps, uint32_t ways, const uint64_t *lines, size_t n)
{
    replay r;
    make(&r, policy, 1, ways, eps);
    int h = run(&r, lines, n);
    replay_free(&r);
    return h;
}

enum { A = 1, B = 2, C = 3 };
static const uint64_t abacba[] = {A, B, A, C, B, A};
static const uint64_t cyclic3x4[] = {A, B, C, A, B, C, A, B, C, A, B, C};

Test(cache_policy, lru_exact)
{
    /* 2 ways: A m, B m, A h, C m (evicts B), B m (evicts A), A m -> 1 hit. */
    cr_expect_eq(run_policy("lru", 0, 2, abacba, 6), 1);
    /* Cyclic over 3 lines in 2 ways: LRU thrashes, never hits. */
    cr_expect_eq(run_policy("lru", 0, 2, cyclic3x4, 12), 0);
    /* Cyclic over 3 lines in 3 ways: everything after the first pass hits. */
    cr_expect_eq(run_policy("lru", 0, 3, cyclic3x4, 12), 9);
}

Test(cache_policy, bip_exact)
{
    /* epsilon 0: every fill goes to the LRU position.  Cyclic A B C in 2
     * ways: A stays (it is re-referenced), B and C fight for the LRU slot:
     * A hits in every pass after the first -> 3 hits. */
    cr_expect_eq(run_policy("bip", 0.0, 2, cyclic3x4, 12), 3);
    /* epsilon 1: always MRU insertion, i.e. LRU. */
    cr_expect_eq(run_policy("bip", 1.0, 2, cyclic3x4, 12), 0);
    cr_expect_eq(run_policy("bip", 1.0, 2, abacba, 6), 1);
    /* A B A C B A with LRU-position insertion: A m, B m (below A), A h,
     * C m (evicts B, below A), B m (evicts C), A h -> 2 hits. */
    cr_expect_eq(run_policy("bip", 0.0, 2, abacba, 6), 2);
}

Test(cache_policy, srrip_exact)
{
    /* RRPV insert 2, hit 0.  A(2) B(2) A h(0); C: no 3 -> age A1 B3 -> evict
     * B; B: A1 C2 -> age A2 C3 -> evict C; A h -> 2 hits (LRU gets 1). */
    cr_expect_eq(run_policy("srrip", 0, 2, abacba, 6), 2);
    cr_expect_eq(run_policy("qlru", 0, 2, abacba, 6), 2);
    /* Cyclic 3 lines in 2 ways: every miss ages both lines to 3 and evicts
     * the first way -> no hits. */
    cr_expect_eq(run_policy("srrip", 0, 2, cyclic3x4, 12), 0);
}

Test(cache_policy, brrip_exact)
{
    /* epsilon 0: insert at 3.  A(3) B(3) A h(0); C evicts B (first RRPV 3);
     * B evicts C; A h -> 2 hits. */
    cr_expect_eq(run_policy("brrip", 0.0, 2, abacba, 6), 2);
    /* Cyclic A B C in 2 ways: A(3) B(3); C evicts A (way 0); A evicts C;
     * B hits (0); C evicts A; ... B hits in passes 2-4 -> 3 hits. */
    cr_expect_eq(run_policy("brrip", 0.0, 2, cyclic3x4, 12), 3);
    /* epsilon 1: inserts at 2, i.e. SRRIP. */
    cr_expect_eq(run_policy("brrip", 1.0, 2, abacba, 6), 2);
    cr_expect_eq(run_policy("brrip", 1.0, 2, cyclic3x4, 12), 0);
}

/* Lines mapping to set `s` of a 64-set modulo cache. */
static int thrash_set(replay *r, uint64_t s)
{
    uint64_t seq[12];
    for (int i = 0; i < 12; i++)
        seq[i] = s + 64 * (uint64_t)(i % 3);
    return run(r, seq, 12);
}

static void duel_case(const char *policy, int b_hits)
{
    /* 64 sets, 4 leaders per policy: A leads sets 0,16,32,48, B leads
     * 8,24,40,56; PSEL has 10 bits and starts at its midpoint 512. */
    replay r;
    make(&r, policy, 64, 2, 0.0);
    uint32_t psel, mid;
    cr_assert_eq(repl_duel_psel(r.c.repl, &psel, &mid), 0);
    cr_expect_eq(psel, 512);
    cr_expect_eq(mid, 512);
    /* Followers start with policy A (LRU / SRRIP): a thrashing follower set
     * never hits. */
    cr_expect_eq(thrash_set(&r, 1), 0);
    /* One miss in an A-leader set: PSEL 513 > mid, followers switch to B. */
    replay_access(&r, OP_READ, 0 * 64);
    repl_duel_psel(r.c.repl, &psel, &mid);
    cr_expect_eq(psel, 513);
    cr_expect_eq(thrash_set(&r, 2), b_hits, "%s follower with PSEL above mid must behave as B", policy);
    /* Two misses in a B-leader set: PSEL 511, followers back to A. */
    replay_access(&r, OP_READ, 8 * 64);
    replay_access(&r, OP_READ, (8 + 64) * 64);
    repl_duel_psel(r.c.repl, &psel, &mid);
    cr_expect_eq(psel, 511);
    cr_expect_eq(thrash_set(&r, 3), 0);
    /* Leader sets ignore PSEL: B-leader set 24 thrashes like B even now. */
    cr_expect_eq(thrash_set(&r, 24), b_hits);
    replay_free(&r);
}

Test(cache_policy, dip_set_dueling) { duel_case("dip", 3); }
Test(cache_policy, drrip_set_dueling) { duel_case("drrip", 3); }

Test(cache_policy, psel_saturates)
{
    replay r;
    make(&r, "drrip", 64, 2, 0.0);
    for (int i = 0; i < 3000; i++)
        replay_access(&r, OP_READ, (uint64_t)(i * 64) * 64);   /* always set 0: A leader misses */
    uint32_t psel, mid;
    repl_duel_psel(r.c.repl, &psel, &mid);
    cr_expect_eq(psel, 1023);
    replay_free(&r);
    make(&r, "lru", 64, 2, 0.0);
    cr_expect_eq(repl_duel_psel(r.c.repl, &psel, &mid), -1);
    replay_free(&r);
}

Test(cache_policy, unknown_policy_rejected)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = 4, .ways = 2, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    strcpy(rc.name, "fifo");
    cache c;
    ddio_err e;
    cr_expect_eq(cache_init(&c, &g, &rc, &e), -1);
    cr_expect_str_eq(e.msg, "policy 'fifo' is not one of lru, bip, srrip (qlru), brrip, drrip, dip, "
                            "QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO], duel:<A>,<B>");
}

/* Property: with random masks per fill, every policy places each line inside
 * its mask, and the ways outside the mask are untouched by the fill. */
Test(cache_policy, fills_never_leave_mask)
{
    const char *policies[] = {"lru", "bip", "srrip", "brrip", "drrip", "dip", "QLRU_H11_M1_R0_U0",
                              "QLRU_H00_M1_R2_U1", "QLRU_H11_M1_R1_U2", "QLRU_H21_MR31_R1_U3_UMO",
                              "duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR13_R0_U1", "duel:lru,bip"};
    for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
        cache_geom g = {.line_size = 64, .slices = 2, .sets_per_slice = 16, .ways = 11, .mapping = MAP_RANDOM, .seed = 5};
        repl_config rc;
        repl_config_default(&rc);
        snprintf(rc.name, sizeof rc.name, "%s", policies[p]);
        rc.duel_leaders = 4;
        cache c;
        ddio_err e;
        cr_assert_eq(cache_init(&c, &g, &rc, &e), 0, "%s", e.msg);
        ddio_rng rng;
        ddio_rng_seed(&rng, 100 + p);
        uint64_t before[11];
        for (int i = 0; i < 50000; i++) {
            uint64_t line = ddio_rng_below(&rng, 2000);
            uint32_t set = cache_set(&c, line);
            if (cache_find(&c, set, line) >= 0) {
                cache_hit(&c, set, (uint32_t)cache_find(&c, set, line));
                continue;
            }
            uint64_t mask = ddio_rng_below(&rng, (1u << 11) - 1) + 1;
            memcpy(before, cache_tags(&c, set), sizeof before);
            cache_evicted ev;
            uint32_t way = cache_fill(&c, set, mask, line, 0, &ev);
            cr_assert((mask >> way) & 1, "%s: fill to way %u outside mask 0x%llx", policies[p], way,
                      (unsigned long long)mask);
            for (uint32_t w = 0; w < 11; w++)
                if (w != way)
                    cr_assert_eq(cache_tags(&c, set)[w], before[w]);
            cr_assert(ev.line == CACHE_INVALID || ev.line == before[way]);
        }
        cache_free(&c);
    }
}

/* A random LRU order word: a permutation of the ways in fields 0..ways-1,
 * with random garbage in the fields past the last way when `garbage`. */
static uint64_t random_order(ddio_rng *rng, uint32_t ways, int garbage)
{
    uint32_t perm[LRU_ORDER_MAX_WAYS];
    for (uint32_t i = 0; i < ways; i++)
        perm[i] = i;
    for (uint32_t i = ways; i-- > 1;) {
        uint32_t j = (uint32_t)(ddio_rng_next(rng) % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    uint64_t o = 0;
    for (uint32_t i = 0; i < ways; i++)
        o |= (uint64_t)perm[i] << (4 * i);
    if (garbage && ways < LRU_ORDER_MAX_WAYS)
        o |= ddio_rng_next(rng) & ~lru_order_below(ways);
    return o;
}

/* lru_order_to_lru (branch-free) equals its reference form for every way
 * count, every position and random orders, including orders whose fields
 * past the last way are not zero. */
Test(cache_policy, lru_order_to_lru_equals_reference)
{
    ddio_rng rng;
    ddio_rng_seed(&rng, 99);
    for (uint32_t ways = 1; ways <= LRU_ORDER_MAX_WAYS; ways++) {
        for (int rep = 0; rep < 2000; rep++) {
            uint64_t o = random_order(&rng, ways, rep & 1);
            for (uint32_t w = 0; w < ways; w++)
                cr_assert_eq(lru_order_to_lru(o, w, ways), lru_order_to_lru_ref(o, w, ways),
                             "ways %u way %u order %016llx", ways, w, (unsigned long long)o);
        }
    }
}

/* lru_order_victim (two ways' flags, the LRU way, the per-way search of
 * small masks, the scan) equals the scan from the LRU end for every way count, random
 * orders with and without garbage past the last way, and random masks of
 * every size, with bits past the last way too. */
Test(cache_policy, lru_order_victim_equals_reference)
{
    ddio_rng rng;
    ddio_rng_seed(&rng, 7);
    uint64_t small = 0, two = 0;
    for (uint32_t ways = 1; ways <= LRU_ORDER_MAX_WAYS; ways++) {
        for (int rep = 0; rep < 4000; rep++) {
            const uint64_t o = random_order(&rng, ways, rep & 1);
            uint64_t mask = ddio_rng_next(&rng) & 0xFFFF;
            for (int k = rep % 4; k > 0; k--)   /* sparser masks: 1-4 ways often */
                mask &= ddio_rng_next(&rng);
            if (rep % 7 == 0)
                mask = 1ull << (ddio_rng_next(&rng) % 16);
            const uint32_t ref = lru_order_victim_ref(o, ways, mask);
            cr_assert_eq(lru_order_victim(o, ways, mask), ref, "ways %u mask %04llx order %016llx", ways,
                         (unsigned long long)mask, (unsigned long long)o);
            const int n = __builtin_popcountll(mask & ((1ull << ways) - 1));
            small += ref != UINT32_MAX && n <= 4 && n != 2 && ref != ((o >> (4 * (ways - 1))) & 0xF);
            two += n == 2;
        }
    }
    cr_assert_gt(small, 5000, "the per-way search ran %llu times", (unsigned long long)small);
    cr_assert_gt(two, 5000, "two ways' flags ran %llu times", (unsigned long long)two);
}

/* repl_order_hit (no store when the way is already the most recent) against
 * lru_order_to_mru, repl_order_remove (short form for the most recent way)
 * against lru_order_to_lru: every way count and way, random orders, the MRU
 * way included, with and without garbage past the last way. */
Test(cache_policy, repl_order_hit_and_remove_equal_lru_order)
{
    ddio_rng rng;
    ddio_rng_seed(&rng, 98);
    for (uint32_t ways = 1; ways <= LRU_ORDER_MAX_WAYS; ways++) {
        for (int rep = 0; rep < 1000; rep++) {
            uint64_t o = random_order(&rng, ways, rep & 1);
            for (uint32_t w = 0; w < ways; w++) {
                uint64_t r = o;
                repl_order_remove(&r, w, ways);
                cr_assert_eq(r, lru_order_to_lru(o, w, ways), "remove: ways %u way %u order %016llx", ways, w,
                             (unsigned long long)o);
                uint64_t a = o;
                repl_order_hit(&a, w);
                cr_assert_eq(a, lru_order_to_mru(o, w), "ways %u way %u order %016llx", ways, w,
                             (unsigned long long)o);
                if (w == (uint32_t)(o & 0xF))   /* field 0: the most recent way */
                    cr_assert_eq(a, o, "the most recent way's hit leaves the order");
            }
        }
    }
}
