/* test_cache_qlru.c - the QLRU family (repl_qlru.c) and duel:A,B
 * (repl_duel.c): the worked examples of Abel and Reineke's definitions
 * ("nanoBench: A Low-Overhead Tool for Running Microbenchmarks on x86
 * Systems", ISPASS 2020) as exact hit / miss sequences on one 4-way set,
 * one example per H, M, R and U digit that tells it from its neighbours
 * (derived by hand from the definitions in repl_qlru.c; ages are written
 * per way, way 0 first), name parsing, an independent reference model on
 * random sequences, and set dueling. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/cache/cache.h"
#include "sim/cache/repl.h"
#include "sim/common/rng.h"

/* ------------------------------------------------------------ helpers */

static void make_cache_opt(cache *c, const char *policy, uint32_t slices, uint32_t sets, uint32_t ways,
                           uint32_t leaders, uint32_t mask_age)
{
    cache_geom g = {.line_size = 64, .slices = slices, .sets_per_slice = sets, .ways = ways,
                    .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    snprintf(rc.name, sizeof rc.name, "%s", policy);
    rc.duel_leaders = leaders;
    rc.qlru_mask_age = mask_age;
    ddio_err e;
    cr_assert_eq(cache_init(c, &g, &rc, &e), 0, "%s: %s", policy, e.msg);
}

static void make_cache(cache *c, const char *policy, uint32_t slices, uint32_t sets, uint32_t ways,
                       uint32_t leaders)
{
    make_cache_opt(c, policy, slices, sets, ways, leaders, 0);
}

typedef struct trace {
    char hm[80];        /* H or M per access (flushes print nothing) */
    char tags[17];      /* per way: the line's letter, '-' for an empty way */
    char ages[17];      /* per way: its age */
} trace;

/* Run `seq` ("A B C A! D": a letter is a read of that line, "X!" flushes X)
 * on a one-set cache of `ways` ways. */
static trace run_seq(const char *policy, uint32_t ways, const char *seq)
{
    cache c;
    make_cache(&c, policy, 1, 1, ways, 0);
    trace t;
    memset(&t, 0, sizeof t);
    size_t n = 0;
    for (const char *s = seq; *s; s++) {
        if (*s < 'A' || *s > 'Z')
            continue;
        uint64_t line = (uint64_t)(*s - 'A') + 1;
        if (s[1] == '!') {
            int w = cache_find(&c, 0, line);
            cr_assert_geq(w, 0, "flush of %c, which is not cached", *s);
            cache_remove(&c, 0, (uint32_t)w);
            s++;
            continue;
        }
        cache_evicted ev;
        t.hm[n++] = cache_access(&c, line, c.full_mask, 1, &ev) ? 'H' : 'M';
    }
    for (uint32_t w = 0; w < ways; w++) {
        uint64_t tag = cache_tags(&c, 0)[w];
        t.tags[w] = tag == CACHE_INVALID ? '-' : (char)('A' + tag - 1);
        t.ages[w] = (char)('0' + repl_qlru_age(c.repl, 0, w));
    }
    cache_free(&c);
    return t;
}

static void expect_seq(const char *policy, const char *seq, const char *hm, const char *tags, const char *ages)
{
    trace t = run_seq(policy, 4, seq);
    cr_expect_str_eq(t.hm, hm, "%s on %s", policy, seq);
    if (tags)
        cr_expect_str_eq(t.tags, tags, "%s on %s: lines per way", policy, seq);
    if (ages)
        cr_expect_str_eq(t.ages, ages, "%s on %s: ages per way", policy, seq);
}

/* ------------------------------------------------- the published examples */

Test(cache_qlru, worked_examples_cfl_l3)
{
    const char *p = "QLRU_H11_M1_R0_U0";
    /* A, B, C fill ways 0..2 at age 1; empty ways stay at 3, so U0 adds
     * nothing until D fills the set: 1111 -> +2 -> 3333.  E evicts way 0
     * (A): 1333; A evicts way 1 (B): 1133. */
    expect_seq(p, "A B C D E A", "MMMMMM", "EACD", "1133");
    /* The hit on A: 3 -> 1 (1333).  E evicts B (1133), B evicts C (1113), C
     * evicts D (1111 -> U0 -> 3333). */
    expect_seq(p, "A B C D A E B C", "MMMMHMMM", "AEBC", "3333");
    /* The second hit on A: 1 -> 0.  E, F fill ways 1, 2 (0113); A hits (0);
     * G fills way 3: 0111 -> +2 -> 2333; H evicts way 1 (E): 2133. */
    expect_seq(p, "A B C D A A E F A G H", "MMMMHHMMHMM", "AHFG", "2133");
    /* The hits take A, B, C, D to 1 one by one; the last leaves 1111, which
     * U0 lifts to 3333: the hit line too.  E evicts way 0 (A). */
    expect_seq(p, "A B C D A B C D E", "MMMMHHHHM", "EBCD", "1333");
}

Test(cache_qlru, worked_examples_other_variants)
{
    /* CFL L2: R2 fills the set right to left (D C B A).  D's fill: 1111, U1
     * lifts the others by 2: 1333.  E evicts way 1 (C): 1133.  A (way 3)
     * hits: 3 -> 0, others' max 3: 1130.  B (way 2) hits: 3 -> 0, others'
     * max 1 -> +2: 3302. */
    expect_seq("QLRU_H00_M1_R2_U1", "A B C D E A B", "MMMMMHH", "DEBA", "3302");
    /* IVB L3: U2 adds only 1 when no way is at 3: after D 2222.  A hits:
     * 2 -> 1, 1222 -> +1 -> 2333.  E takes way 1, F way 2: 2113. */
    expect_seq("QLRU_H11_M1_R1_U2", "A B C D A E F", "MMMMHMM", "AEFD", "2113");
    /* SRRIP as QLRU: after D 2222 (no ageing after fills); E ages first to
     * 3333, then evicts way 0: 2333; A evicts way 1: 2233. */
    expect_seq("QLRU_H00_M2_R0_U0_UMO", "A B C D E A", "MMMMMM", "EACD", "2233");
}

/* ------------------------------------------------------- one digit each */

Test(cache_qlru, hit_promotion_digits)
{
    /* H<xy> with M1 R0 U0.  After A B C D every way is at 3 (3333).
     *
     * S1 "A B C D A E F G H A": A hits, 3 -> x.  E F G fill ways 1..3 at 1:
     * x111, U0 lifts the max to 3.  x = 0: 2333, H evicts E and A hits;
     * x = 1: 3333, x = 2: 3222, H evicts A (way 0) and A misses.
     * S2 "A B C D D E F G H D": D hits, 3 -> x (333x).  E F G: 111x, U0:
     * x = 2: 2223, H evicts D and D misses; x = 1: 3333, x = 0: 3332, H
     * evicts E (way 0) and D hits.
     * S3 "A B C D A A E F G A H I J K A", for x = 1: A 3 -> 1 -> 0 (0333);
     * E F G: 0111 -> 2333; A hits at age 2 -> y.  H I J fill ways 1..3:
     * y111 -> U0.  y = 1: 3333, K evicts A, A misses; y = 0: 2333, K evicts
     * H, A hits.  (x = 0 behaves as y = 0: A is at 0 before its age-2 hit.)
     * S4 "A B C D A A E F G H A", for x = 2: A 3 -> 2 -> y.  E F G: y111.
     * y = 1: 3333, H evicts A, A misses; y = 0: 2333, H evicts E, A hits. */
    static const struct {
        const char *policy, *s1, *s2, *s3, *s4;
    } c[] = {
        {"QLRU_H00_M1_R0_U0", "MMMMHMMMMH", "MMMMHMMMMH", "MMMMHHMMMHMMMMH", "MMMMHHMMMMH"},
        {"QLRU_H10_M1_R0_U0", "MMMMHMMMMM", "MMMMHMMMMH", "MMMMHHMMMHMMMMH", "MMMMHHMMMMH"},
        {"QLRU_H11_M1_R0_U0", "MMMMHMMMMM", "MMMMHMMMMH", "MMMMHHMMMHMMMMM", "MMMMHHMMMMH"},
        {"QLRU_H20_M1_R0_U0", "MMMMHMMMMM", "MMMMHMMMMM", "MMMMHHMMMHMMMMH", "MMMMHHMMMMH"},
        {"QLRU_H21_M1_R0_U0", "MMMMHMMMMM", "MMMMHMMMMM", "MMMMHHMMMHMMMMM", "MMMMHHMMMMM"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        expect_seq(c[i].policy, "A B C D A E F G H A", c[i].s1, NULL, NULL);
        expect_seq(c[i].policy, "A B C D D E F G H D", c[i].s2, NULL, NULL);
        expect_seq(c[i].policy, "A B C D A A E F G A H I J K A", c[i].s3, NULL, NULL);
        expect_seq(c[i].policy, "A B C D A A E F G H A", c[i].s4, NULL, NULL);
    }
}

Test(cache_qlru, insertion_digits)
{
    /* M<m> with H11 R0 U0.  Whatever m, the fill of D lifts the set to 3333
     * (empty ways count at 3 until then).  B hits: 3133.  E evicts A, F
     * evicts C, G evicts D: m1mm, and U0 lifts the max to 3:
     *   m = 0: 2322, m = 1: 3333, m = 2: 3233, m = 3: 3133 (no lift).
     * S1 "... H B": H evicts the leftmost 3: B (way 1) for m = 0, else E.
     * S2 "... H I B": m = 1: H at way 0 (1333), I evicts B; m = 2: H 2233,
     * I evicts F; m = 3: H 3133, I evicts H; m = 0: B is gone already.
     * S3 "... H I H": only m = 3 lost H to I. */
    static const struct {
        const char *policy, *s1, *s2, *s3;
    } c[] = {
        {"QLRU_H11_M0_R0_U0", "MMMMHMMMMM", "MMMMHMMMMMM", "MMMMHMMMMMH"},
        {"QLRU_H11_M1_R0_U0", "MMMMHMMMMH", "MMMMHMMMMMM", "MMMMHMMMMMH"},
        {"QLRU_H11_M2_R0_U0", "MMMMHMMMMH", "MMMMHMMMMMH", "MMMMHMMMMMH"},
        {"QLRU_H11_M3_R0_U0", "MMMMHMMMMH", "MMMMHMMMMMH", "MMMMHMMMMMM"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        expect_seq(c[i].policy, "A B C D B E F G H B", c[i].s1, NULL, NULL);
        expect_seq(c[i].policy, "A B C D B E F G H I B", c[i].s2, NULL, NULL);
        expect_seq(c[i].policy, "A B C D B E F G H I H", c[i].s3, NULL, NULL);
    }
}

Test(cache_qlru, randomised_insertion)
{
    /* MR31: age 1 one time in 16, else 3, from the policy's seeded rng.
     * With U1 a fill leaves its own way's age alone, so the age right
     * after each fill is the inserted one.  16000 fills: 1000 expected at
     * age 1, sd 30.6; the seed is fixed, so the count is too. */
    cache c;
    make_cache(&c, "QLRU_H00_MR31_R0_U1", 1, 64, 4, 0);
    uint32_t at[4] = {0};
    for (uint64_t i = 0; i < 16000; i++) {
        uint64_t line = 1000 + i;
        uint32_t set = cache_set(&c, line);
        cache_evicted ev;
        cr_assert_eq(cache_access(&c, line, c.full_mask, 1, &ev), 0);
        at[repl_qlru_age(c.repl, set, (uint32_t)cache_find(&c, set, line))]++;
    }
    cr_expect_eq(at[0] + at[2], 0);
    cr_expect(at[1] > 880 && at[1] < 1120, "%u insertions at age 1 of 16000", at[1]);
    cache_free(&c);
    /* MR13, the other way round (Ice Lake's "occasionally age 3 instead of 1"). */
    make_cache(&c, "qlru_h00_mr13_r0_u1", 1, 64, 4, 0);
    memset(at, 0, sizeof at);
    for (uint64_t i = 0; i < 16000; i++) {
        uint64_t line = 1000 + i;
        uint32_t set = cache_set(&c, line);
        cache_evicted ev;
        cache_access(&c, line, c.full_mask, 1, &ev);
        at[repl_qlru_age(c.repl, set, (uint32_t)cache_find(&c, set, line))]++;
    }
    cr_expect(at[3] > 880 && at[3] < 1120, "%u insertions at age 3 of 16000", at[3]);
    cr_expect_eq(at[1] + at[3], 16000);
    cache_free(&c);
}

Test(cache_qlru, victim_rule_digits)
{
    /* R2 fills empty ways right to left, R0 and R1 left to right. */
    cr_expect_str_eq(run_seq("QLRU_H00_M1_R2_U1", 4, "A B").tags, "--BA");
    cr_expect_str_eq(run_seq("QLRU_H00_M1_R0_U1", 4, "A B").tags, "AB--");
    cr_expect_str_eq(run_seq("QLRU_H00_M1_R1_U1", 4, "A B").tags, "AB--");
    /* "A B C D E A B" with H00 M1 U1.  R0: A..D in ways 0..3; D's fill
     * lifts the others: 3331.  E evicts A (way 0): 1331; A evicts B, B
     * evicts C: no hit.  R2 put A in way 3, so E evicted C instead and A,
     * B hit (worked example above).  R1 = R0 here: a way of age 3 exists at
     * every miss (U1 keeps one among the other ways). */
    expect_seq("QLRU_H00_M1_R0_U1", "A B C D E A B", "MMMMMMM", "EABD", "3313");
    expect_seq("QLRU_H00_M1_R1_U1", "A B C D E A B", "MMMMMMM", "EABD", "3313");
    /* R1's own rule, way 0 when no way is at 3, needs U2 / U3: after D,
     * U2 leaves 2222; E takes way 0 (1222 -> 2333), A then way 1. */
    expect_seq("QLRU_H11_M1_R1_U2", "A B C D E A", "MMMMMM", "EACD", "2133");
}

Test(cache_qlru, victim_rule_with_a_way_mask)
{
    /* Our extension: the way mask of a DDIO or CAT fill.  Ages 3 outside
     * the mask do not count; with none at 3 inside, R1 takes the mask's
     * lowest way, R0 / R2 its oldest (leftmost on a tie).  H11 M1 U0: A B C
     * D fill ways 0..3 (R2: 3..0) and leave 3333; C hits twice (3 -> 1 -> 0)
     * and D once (3 -> 1): 3301 (R2: 1033).  A fill with mask 0xC (R2: 0x3),
     * the ways of C and D, finds no 3 there: R0 takes D's way (age 1), R1
     * the mask's lowest way (C's), R2 D's way. */
    const char *names[] = {"QLRU_H11_M1_R0_U0", "QLRU_H11_M1_R1_U0", "QLRU_H11_M1_R2_U0"};
    const uint32_t want[] = {3, 2, 3};
    for (int i = 0; i < 3; i++) {
        cache c;
        make_cache(&c, names[i], 1, 1, 4, 0);
        cache_evicted ev;
        for (uint64_t l = 1; l <= 4; l++)
            cache_access(&c, l, c.full_mask, 1, &ev);
        const uint64_t hits[] = {3, 3, 4};
        for (int k = 0; k < 3; k++)
            cr_assert_eq(cache_access(&c, hits[k], c.full_mask, 1, &ev), 1);
        int a[4];
        for (uint32_t w = 0; w < 4; w++)
            a[w] = repl_qlru_age(c.repl, 0, w);
        /* R2 filled right to left: C is in way 1, D in way 0. */
        if (i == 2)
            cr_expect(a[0] == 1 && a[1] == 0 && a[2] == 3 && a[3] == 3, "R2 ages %u%u%u%u", a[0], a[1], a[2],
                      a[3]);
        else
            cr_expect(a[0] == 3 && a[1] == 3 && a[2] == 0 && a[3] == 1, "ages %u%u%u%u", a[0], a[1], a[2], a[3]);
        /* R2's mask: ways 0 and 1, where its C and D are. */
        uint64_t mask = i == 2 ? 0x3 : 0xC;
        uint32_t way = cache_fill(&c, 0, mask, 9, 0, &ev);
        cr_expect_eq(way, i == 2 ? 0u : want[i], "%s filled way %u", names[i], way);
        cache_free(&c);
    }
}

Test(cache_qlru, young_lines_in_a_partial_mask)
{
    /* A 2-way "DDIO" mask (ways 2, 3) in a 4-way set whose ways 0, 1 stay
     * empty at age 3, H11 M1 R0 U0.  A, B fill ways 2, 3 at 1: 3311, and U0
     * lifts nothing (the set's oldest is at 3).  C finds no 3 in the mask:
     * by default the mask's leftmost oldest, way 2, goes and nothing ages
     * (3311 again); so does D, and B, never evicted, hits.  With
     * qlru_mask_age the mask's ways are lifted to 3 first (3333): C takes
     * way 2 (3313), D way 3, the one at 3 (B's), and B misses. */
    for (uint32_t mask_age = 0; mask_age < 2; mask_age++) {
        cache c;
        make_cache_opt(&c, "QLRU_H11_M1_R0_U0", 1, 1, 4, 0, mask_age);
        char hm[8] = {0};
        const uint64_t seq[] = {1, 2, 3, 4, 2};
        for (int i = 0; i < 5; i++) {
            cache_evicted ev;
            hm[i] = cache_access(&c, seq[i], 0xC, 1, &ev) ? 'H' : 'M';
        }
        cr_expect_str_eq(hm, mask_age ? "MMMMM" : "MMMMH", "qlru_mask_age %u", mask_age);
        cache_free(&c);
    }
}

Test(cache_qlru, ageing_digits)
{
    /* U0 vs U1 (H11 M1 R0), "A B C D E F G H D".  U0: after D 3333; E, F, G,
     * H evict ways 0..3 in turn (the last fill lifts 1111 to 3333), so H
     * evicts D.  U1: D's fill lifts only the others: 3331; E evicts way 0
     * (1331), F way 1 (1131), G way 2: 1111 -> others +2: 3313; H evicts
     * way 0 (E), and D hits. */
    expect_seq("QLRU_H11_M1_R0_U0", "A B C D E F G H D", "MMMMMMMMM", "DFGH", "1333");
    expect_seq("QLRU_H11_M1_R0_U1", "A B C D E F G H D", "MMMMMMMMH", "HFGD", "1311");
    /* U2 vs U3 (H11 M1 R1), "A B C D E F G H I J K L H".  U2: 2222 after
     * D; the set then cycles through ways 0..3 in order, so L evicts H
     * (way 3) and H misses.  U3 (the accessed way is not lifted): D 2221;
     * E way 0 (1332), F way 1 (1132), G way 2 (1112 -> 2213), H way 3
     * (2211 -> 3321), I way 0 (1321), J way 1 (1121 -> 2132), K way 2
     * (2112 -> 3213), L takes way 0 (the first at 3), and H (way 3) hits. */
    expect_seq("QLRU_H11_M1_R1_U2", "A B C D E F G H I J K L H", "MMMMMMMMMMMMM", "HJKL", "2333");
    expect_seq("QLRU_H11_M1_R1_U3", "A B C D E F G H I J K L H", "MMMMMMMMMMMMH", "LJKH", "2321");
    /* UMO (H11 M1 R0 U0), "A B C D A B C D A E A".  Without UMO: 3333 after
     * D; the hits take A..D to 1 (1111 -> 3333), A's hit to 1 again: 1333;
     * E evicts B and A hits.  With UMO nothing ages before the first miss
     * with a full set: D leaves 1111, the hits take A..D to 0 (0000), A stays
     * 0; E ages the set first (3333) and evicts A, which then misses. */
    expect_seq("QLRU_H11_M1_R0_U0", "A B C D A B C D A E A", "MMMMHHHHHMH", "AECD", "0133");
    expect_seq("QLRU_H11_M1_R0_U0_UMO", "A B C D A B C D A E A", "MMMMHHHHHMM", "EACD", "1133");
}

Test(cache_qlru, empty_ways_start_at_3_and_keep_their_age)
{
    /* Every way starts at 3: with U0 nothing ages while a way is empty. */
    expect_seq("QLRU_H11_M1_R0_U0", "A B C", "MMM", "ABC-", "1113");
    /* A flush empties the way and leaves its age.  H00 M1 R0 U0: after D
     * 3333; B hits (3033) and leaves (way 1 empty at 0); A, C, D hit: 0000,
     * and U0 lifts the whole set, the empty way included, to 3333.  Had the
     * empty way counted as 3, the set would have stayed at 0300.  E fills
     * the empty way 1 (3133); F evicts A (way 0), so A misses. */
    expect_seq("QLRU_H00_M1_R0_U0", "A B C D B B! A C D", "MMMMHHHH", "A-CD", "3333");
    expect_seq("QLRU_H00_M1_R0_U0", "A B C D B B! A C D E F A", "MMMMHHHHMMM", "FEAD", "1113");
}

/* -------------------------------------------------------------- names */

static void expect_name_error(const char *name, const char *want)
{
    char msg[300];
    cr_expect_eq(repl_check_name(name, msg, sizeof msg), -1, "%s accepted", name);
    cr_expect_str_eq(msg, want);
    cr_expect_null(repl_find(name));
}

Test(cache_qlru, names)
{
    char msg[300];
    const char *good[] = {"QLRU_H11_M1_R0_U0", "qlru_h00_m1_r2_u1", "Qlru_H21_M2_R0_U0_umo", "QLRU_H11_M1_R1_U2",
                          "QLRU_H10_M0_R1_U3_UMO", "QLRU_H20_MR32_R0_U1", "QLRU_H00_MR13_R2_U0",
                          "duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR13_R0_U1", "DUEL:lru,bip", "duel:srrip,brrip"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        cr_expect_eq(repl_check_name(good[i], msg, sizeof msg), 0, "%s: %s", good[i], msg);
        cr_expect_not_null(repl_find(good[i]));
    }
    cr_expect_eq(repl_find("QLRU_H11_M1_R0_U0"), &repl_qlru_ops);
    cr_expect_eq(repl_find("qlru"), &repl_srrip_ops);   /* the old alias */
    cr_expect_str_eq(repl_family("QLRU_H11_M1_R0_U0"), "qlru");
    cr_expect_str_eq(repl_family("duel:QLRU_H11_M1_R0_U0,QLRU_H11_M3_R0_U0"), "qlru");
    cr_expect_str_eq(repl_family("qlru"), "rrip");
    cr_expect_null(repl_family("plru"));
    expect_name_error("QLRU_H12_M1_R0_U0",
                      "'QLRU_H12_M1_R0_U0': hit promotion 'H12' is not one of H21, H20, H11, H10, H00");
    expect_name_error("qlru_h11_m4_r0_u0", "'qlru_h11_m4_r0_u0': insertion 'M4' is not one of M0, M1, M2, M3, "
                                           "MR<a><b> (a, b in 0-3, a != b)");
    expect_name_error("QLRU_H11_MR33_R0_U0", "'QLRU_H11_MR33_R0_U0': insertion 'MR33' is not one of M0, M1, M2, "
                                             "M3, MR<a><b> (a, b in 0-3, a != b)");
    expect_name_error("QLRU_H11_M1_R3_U0", "'QLRU_H11_M1_R3_U0': victim rule 'R3' is not one of R0, R1, R2");
    expect_name_error("QLRU_H11_M1_R0_U4", "'QLRU_H11_M1_R0_U4': ageing 'U4' is not one of U0, U1, U2, U3");
    expect_name_error("QLRU_H11_M1_R0_U0_X",
                      "'QLRU_H11_M1_R0_U0_X': 'X' after the U field is not UMO (update on miss only)");
    expect_name_error("QLRU_H11_M1_R0_U0_UMO_X",
                      "'QLRU_H11_M1_R0_U0_UMO_X': 'X' after the U field is not UMO (update on miss only)");
    expect_name_error("QLRU_H11_M1", "'QLRU_H11_M1': expected QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO]");
    expect_name_error("QLRU_H11_M1_R2_U3", "'QLRU_H11_M1_R2_U3': U2 and U3 go with R1 only (R0 and R2 take a way "
                                           "of age 3, which U2 and U3 do not keep)");
    expect_name_error("duel:QLRU_H11_M1_R0_U0", "'duel:QLRU_H11_M1_R0_U0': expected duel:<A>,<B> (two policies of "
                                                "one family)");
    expect_name_error("duel:QLRU_H11_M1_R0_U0,QLRU_H1_M1_R0_U0",
                      "'duel:QLRU_H11_M1_R0_U0,QLRU_H1_M1_R0_U0': 'QLRU_H1_M1_R0_U0': hit promotion 'H1' is not "
                      "one of H21, H20, H11, H10, H00");
    expect_name_error("duel:dip,lru", "'duel:dip,lru': 'dip' is itself a duel; duel:<A>,<B> takes two single "
                                      "policies");
    expect_name_error("duel:QLRU_H11_M1_R0_U0,srrip",
                      "'duel:QLRU_H11_M1_R0_U0,srrip': QLRU_H11_M1_R0_U0 (qlru family) and srrip (rrip family) "
                      "keep different per-line state; a duel needs two policies of one family");
    expect_name_error("qlru_", "'qlru_': expected QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO]");
}

/* ------------------------------------------- random sequences: references */

/* The definitions once more, written as plainly as possible: a one-set
 * reference the module must match access for access. */
typedef struct ref_set {
    int n, h[4], m, r, u, umo, mask_age;
    int tag[64], age[64];   /* tag -1: empty */
} ref_set;

static void ref_init(ref_set *s, int n, int hx, int hy, int m, int r, int u, int umo, int mask_age)
{
    memset(s, 0, sizeof *s);
    s->mask_age = mask_age;
    s->n = n;
    s->h[3] = hx, s->h[2] = hy, s->h[1] = 0, s->h[0] = 0;
    s->m = m, s->r = r, s->u = u, s->umo = umo;
    for (int w = 0; w < n; w++)
        s->tag[w] = -1, s->age[w] = 3;
}

static void ref_update(ref_set *s, int i)
{
    int others_only = (s->u == 1 || s->u == 3) && i >= 0;
    if (s->u <= 1) {
        int mx = -1;
        for (int w = 0; w < s->n; w++)
            if (!(others_only && w == i) && s->age[w] > mx)
                mx = s->age[w];
        if (mx < 0)
            return;
        for (int w = 0; w < s->n; w++)
            if (!(others_only && w == i))
                s->age[w] += 3 - mx;
    } else {
        for (int w = 0; w < s->n; w++)
            if (s->age[w] == 3)
                return;
        for (int w = 0; w < s->n; w++)
            if (!(others_only && w == i))
                s->age[w] += 1;
    }
}

/* One access inside `mask`; returns 1 on a hit. */
static int ref_access(ref_set *s, int line, uint64_t mask)
{
    for (int w = 0; w < s->n; w++)
        if (s->tag[w] == line) {
            s->age[w] = s->h[s->age[w]];
            if (!s->umo)
                ref_update(s, w);
            return 1;
        }
    if (s->umo)
        ref_update(s, -1);
    int way = -1;
    for (int w = 0; w < s->n; w++)     /* an empty way: leftmost, R2 rightmost */
        if (((mask >> w) & 1) && s->tag[w] < 0 && (way < 0 || s->r == 2))
            way = w;
    if (way < 0) {
        int oldest = -1;
        for (int w = 0; w < s->n; w++)
            if ((mask >> w) & 1) {
                if (s->age[w] == 3) {
                    way = w;
                    break;
                }
                if (oldest < 0 || s->age[w] > s->age[oldest])
                    oldest = w;
            }
        const uint64_t full = s->n == 64 ? UINT64_MAX : (1ull << s->n) - 1;
        if (way < 0 && s->mask_age && mask != full) {   /* lift the mask's ways, the oldest to 3 */
            const int d = 3 - s->age[oldest];
            for (int w = 0; w < s->n; w++)
                if ((mask >> w) & 1)
                    s->age[w] += d;
            way = oldest;
        }
        if (way < 0)
            way = s->r == 1 ? __builtin_ctzll(mask) : oldest;
    }
    s->tag[way] = line;
    s->age[way] = s->m;
    if (!s->umo)
        ref_update(s, way);
    return 0;
}

/* Every deterministic variant (5 H x 4 M x 3 R x 4 U x UMO, less R0 / R2
 * with U2 / U3: 320 policies) on `accesses` accesses to `ways` + 3 lines of
 * one set of `ways` ways, with flushes and random way masks; returns the
 * number of policies run. */
static int against_reference(uint32_t ways, int accesses, uint32_t mask_age)
{
    static const int hx[] = {2, 2, 1, 1, 0}, hy[] = {1, 0, 1, 0, 0};
    const uint64_t full = ways == 64 ? UINT64_MAX : (1ull << ways) - 1;
    int policies = 0;
    for (int h = 0; h < 5; h++)
        for (int m = 0; m < 4; m++)
            for (int r = 0; r < 3; r++)
                for (int u = 0; u < 4; u++)
                    for (int umo = 0; umo < 2; umo++) {
                        if (u >= 2 && r != 1)
                            continue;
                        char name[80];
                        snprintf(name, sizeof name, "QLRU_H%d%d_M%d_R%d_U%d%s", hx[h], hy[h], m, r, u,
                                 umo ? "_UMO" : "");
                        cache c;
                        make_cache_opt(&c, name, 1, 1, ways, 0, mask_age);
                        ref_set s;
                        ref_init(&s, (int)ways, hx[h], hy[h], m, r, u, umo, (int)mask_age);
                        ddio_rng rng;
                        ddio_rng_seed(&rng, 7 + (uint64_t)policies + ways);
                        for (int k = 0; k < accesses; k++) {
                            const int line = (int)ddio_rng_below(&rng, ways + 3) + 1;
                            if (ddio_rng_below(&rng, 10) == 0) {   /* flush */
                                int w = cache_find(&c, 0, (uint64_t)line);
                                for (uint32_t x = 0; x < ways; x++)
                                    if (s.tag[x] == line)
                                        s.tag[x] = -1;
                                if (w >= 0)
                                    cache_remove(&c, 0, (uint32_t)w);
                                continue;
                            }
                            uint64_t mask = full;
                            if (ddio_rng_below(&rng, 4) == 0)
                                while (!(mask = ddio_rng_next(&rng) & full))
                                    ;
                            cache_evicted ev;
                            int hit = cache_access(&c, (uint64_t)line, mask, 1, &ev);
                            int want = ref_access(&s, line, mask);
                            cr_assert_eq(hit, want, "%s: access %d to line %d", name, k, line);
                            for (uint32_t x = 0; x < ways; x++) {
                                uint64_t t = cache_tags(&c, 0)[x];
                                cr_assert_eq(t == CACHE_INVALID ? -1 : (int)t, s.tag[x], "%s: access %d way %u",
                                             name, k, x);
                                cr_assert_eq(repl_qlru_age(c.repl, 0, x), s.age[x], "%s, %u ways: access %d: age of "
                                             "way %u", name, ways, k, x);
                            }
                        }
                        cache_free(&c);
                        policies++;
                    }
    return policies;
}

Test(cache_qlru, matches_a_reference_on_random_sequences)
{
    /* Ages packed 2 bits per way up to 32 ways, one byte per way beyond. */
    cr_expect_eq(against_reference(6, 3000, 0), 320);
    cr_expect_eq(against_reference(32, 1500, 0), 320);
    cr_expect_eq(against_reference(40, 1000, 0), 320);
    cr_expect_eq(against_reference(64, 500, 0), 320);
    /* The other rule for a partial mask without a way at 3. */
    cr_expect_eq(against_reference(6, 3000, 1), 320);
    cr_expect_eq(against_reference(40, 1000, 1), 320);
}

/* The hits of `n` random reads (full masks, no flush) on a 16-set cache. */
static void random_hits(const char *policy, uint32_t ways, uint64_t seed, uint8_t *hits, int n)
{
    cache c;
    make_cache(&c, policy, 1, 16, ways, 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) {
        cache_evicted ev;
        hits[i] = (uint8_t)cache_access(&c, ddio_rng_below(&rng, 16 * (ways + 3)), c.full_mask, 1, &ev);
    }
    cache_free(&c);
}

Test(cache_qlru, srrip_is_qlru_h00_m2_r0_u0_umo_on_full_masks)
{
    /* SRRIP (hit -> 0, insert at 2, first way at 3 after ageing the set
     * until one is) is Abel and Reineke's QLRU_H00_M2_R0_U0_UMO: access for
     * access, as long as every fill may use every way and no line leaves
     * otherwise (srrip resets a departed line's RRPV to 3 and ages only a
     * fill's mask; QLRU keeps the age and ages the whole set).  Not without
     * UMO: there a hit's age 0 comes after the set was lifted, which leaves
     * the hit line younger relative to the others. */
    enum { N = 60000 };
    static uint8_t a[N], b[N], c[N];
    const uint32_t ways[] = {2, 4, 11, 16};
    for (int i = 0; i < 4; i++) {
        random_hits("srrip", ways[i], 11 + (uint64_t)i, a, N);
        random_hits("QLRU_H00_M2_R0_U0_UMO", ways[i], 11 + (uint64_t)i, b, N);
        random_hits("QLRU_H00_M2_R0_U0", ways[i], 11 + (uint64_t)i, c, N);
        cr_expect_eq(memcmp(a, b, N), 0, "%u ways: srrip differs from QLRU_H00_M2_R0_U0_UMO", ways[i]);
        cr_expect_neq(memcmp(a, c, N), 0, "%u ways: srrip equals QLRU_H00_M2_R0_U0", ways[i]);
    }
    /* ... and not once a line leaves: H00 M2 R0 U0 UMO after A B C D: 2222;
     * B leaves (way 1 empty, age kept 2), E fills it at 2 (the ageing before
     * sees a 2 at most: 3333 first, E 3233); F evicts way 0.  srrip resets
     * way 1 to RRPV 3, fills E there without ageing (2222), and ages the set
     * for F to 3333: F evicts way 0 too, but then G evicts way 2 (C) under
     * QLRU (3 at way 2) and way 1 (E) under srrip.  The next E tells. */
    expect_seq("QLRU_H00_M2_R0_U0_UMO", "A B C D B! E F G E", "MMMMMMMH", NULL, NULL);
    expect_seq("srrip", "A B C D B! E F G E", "MMMMMMMM", NULL, NULL);
}

Test(cache_qlru, r0_and_r1_agree_with_u0_u1_on_full_masks)
{
    /* With U0 / U1 some way is at age 3 at every miss, so R1's "way 0" never
     * applies on a full mask. */
    enum { N = 30000 };
    static uint8_t a[N], b[N];
    const char *pairs[][2] = {{"QLRU_H11_M1_R0_U0", "QLRU_H11_M1_R1_U0"},
                              {"QLRU_H00_M1_R0_U1", "QLRU_H00_M1_R1_U1"},
                              {"QLRU_H21_M2_R0_U1_UMO", "QLRU_H21_M2_R1_U1_UMO"}};
    for (int i = 0; i < 3; i++) {
        random_hits(pairs[i][0], 11, 5, a, N);
        random_hits(pairs[i][1], 11, 5, b, N);
        cr_expect_eq(memcmp(a, b, N), 0, "%s and %s differ", pairs[i][0], pairs[i][1]);
    }
}

/* -------------------------------------------------------------- dueling */

/* Cyclic 5 lines through a 4-way set (lines map to `set` of 64): M1 (CFL's
 * insertion at 1) thrashes, never hits; M3 (insertion at 3) keeps ways 1..3
 * and evicts only way 0: after the first round B, C, D hit every round. */
static int cyclic(cache *c, uint64_t set, int rounds)
{
    int hits = 0;
    for (int r = 0; r < rounds; r++)
        for (uint64_t k = 0; k < 5; k++) {
            cache_evicted ev;
            hits += cache_access(c, set + 64 * (1000 + k), c->full_mask, 1, &ev);
        }
    return hits;
}

#define DUEL "duel:QLRU_H11_M1_R0_U0,QLRU_H11_M3_R0_U0"

Test(cache_qlru, duel_leaders_psel_followers)
{
    /* 64 sets, one slice, 4 leaders per policy: 8 groups of 8 sets; group g's
     * diagonal set is 9g; g mod 4 in {0, 1} leads for A: sets 0, 9, 36, 45;
     * B: 18, 27, 54, 63. */
    cache c;
    make_cache(&c, DUEL, 1, 64, 4, 4);
    for (uint32_t s = 0; s < 64; s++) {
        int want = (s == 0 || s == 9 || s == 36 || s == 45) ? 1 : (s == 18 || s == 27 || s == 54 || s == 63) ? 2 : 0;
        cr_expect_eq(repl_duel_leader(c.repl, s), want, "set %u", s);
    }
    uint32_t psel, mid;
    cr_assert_eq(repl_duel_psel(c.repl, &psel, &mid), 0);
    cr_expect_eq(psel, 512);
    cr_expect_eq(mid, 512);
    /* Followers start with A: a cyclic pattern never hits (5 rounds). */
    cr_expect_eq(cyclic(&c, 1, 5), 0);
    repl_duel_psel(c.repl, &psel, &mid);
    cr_expect_eq(psel, 512, "follower misses move PSEL");
    /* A B-leader set runs B whatever PSEL says: 3 hits per round after the
     * first; its 13 misses (5 + 2 per round) take PSEL down by 13. */
    cr_expect_eq(cyclic(&c, 18, 5), 12);
    repl_duel_psel(c.repl, &psel, &mid);
    cr_expect_eq(psel, 512 - 13);
    /* An A-leader set runs A: 25 misses, PSEL back up by 25 to 524 > mid. */
    cr_expect_eq(cyclic(&c, 9, 5), 0);
    repl_duel_psel(c.repl, &psel, &mid);
    cr_expect_eq(psel, 524);
    /* Followers now use B, on their hits and fills both. */
    cr_expect_eq(cyclic(&c, 2, 5), 12);
    /* Hits do not move PSEL; the A leader still runs A with PSEL above mid. */
    cr_expect_eq(cyclic(&c, 36, 5), 0);
    repl_duel_psel(c.repl, &psel, &mid);
    cr_expect_eq(psel, 524 + 25);
    cache_free(&c);
}

Test(cache_qlru, duel_follower_uses_the_whole_policy_it_is_switched_to)
{
    /* A = H11, B = H00 (same M, R, U): a follower's hit promotes by the
     * policy PSEL selects now.  After A B C D the set is 3333; a hit on way 0
     * takes it to 1 under A, to 0 under B. */
    cache c;
    make_cache(&c, "duel:QLRU_H11_M1_R0_U0,QLRU_H00_M1_R0_U0", 1, 64, 4, 4);
    cache_evicted ev;
    for (uint64_t k = 0; k < 4; k++)
        cache_access(&c, 5 + 64 * k, c.full_mask, 1, &ev);
    cache_access(&c, 5, c.full_mask, 1, &ev);
    cr_expect_eq(repl_qlru_age(c.repl, 5, 0), 1);
    /* 40 misses in the A-leader set 0 take PSEL above mid: B from now on. */
    for (uint64_t k = 0; k < 40; k++)
        cache_access(&c, 0 + 64 * (100 + k), c.full_mask, 1, &ev);
    uint32_t psel, mid;
    repl_duel_psel(c.repl, &psel, &mid);
    cr_assert_gt(psel, mid);
    for (uint64_t k = 0; k < 4; k++)
        cache_access(&c, 6 + 64 * k, c.full_mask, 1, &ev);
    cache_access(&c, 6, c.full_mask, 1, &ev);
    cr_expect_eq(repl_qlru_age(c.repl, 6, 0), 0);
    cache_free(&c);
}

Test(cache_qlru, duel_ice_lake_leader_sets)
{
    /* The default rule on Ice Lake's geometry (1024 sets per slice, 16
     * leaders per policy): the A leaders are the sets uops.info lists for
     * the Core i5-1035G1 L3, in every slice. */
    static const uint32_t icl[] = {0, 33, 132, 165, 264, 297, 396, 429, 528, 561, 660, 693, 792, 825, 924, 957};
    cache c;
    make_cache(&c, "duel:QLRU_H00_M1_R0_U1,QLRU_H00_MR13_R0_U1", 2, 1024, 4, 0);
    uint32_t na = 0, nb = 0;
    for (uint32_t s = 0; s < 2048; s++) {
        int l = repl_duel_leader(c.repl, s);
        na += l == 1;
        nb += l == 2;
        int is_icl = 0;
        for (size_t i = 0; i < 16; i++)
            is_icl |= s % 1024 == icl[i];
        cr_expect_eq(l == 1, is_icl, "set %u", s);
        if (l == 2)   /* our assumption: the other half of the diagonal */
            cr_expect((s % 1024) % 33 == 0 && ((s % 1024) / 33 & 2), "B leader %u", s);
    }
    cr_expect_eq(na, 32);
    cr_expect_eq(nb, 32);
    cache_free(&c);
    /* Bad leader counts for duel:A,B. */
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = 64, .ways = 4, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    snprintf(rc.name, sizeof rc.name, "%s", DUEL);
    rc.duel_leaders = 3;
    ddio_err e;
    cr_expect_eq(cache_init(&c, &g, &rc, &e), -1);
    cr_expect_str_eq(e.msg, "policy " DUEL ": 3 leader sets per policy: duel:<A>,<B> takes a power of two >= 2");
}
