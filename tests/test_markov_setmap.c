/* test_markov_setmap.c - the model's set mapping (sim/markov/setmap.h and
 * the mixture survivals of evict.h): the mixture over a footprint's set
 * occupancy is the paper's binomial when the occupancy is the random
 * mapping's (binomial thinning), hand-computed values for occupancies laid
 * out by hand, the occupancy of a simulator layout, and the predictions
 * (random: untouched; other mappings: changed). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/rng.h"
#include "sim/markov/binom.h"
#include "sim/markov/evict.h"
#include "sim/markov/predict.h"
#include "sim/markov/setmap.h"
#include "tests/helpers.h"

/* The random mapping's occupancy: c ~ Bin(pop, 1/C), cut where the rest of
 * the mass is below 1e-17. */
static void random_mix(mk_setmix *m, double pop, double C)
{
    unsigned cap = 4096;
    m->c = malloc(cap * sizeof *m->c);
    m->w = malloc(cap * sizeof *m->w);
    m->pop = pop;
    m->n = 0;
    double mass = 0;
    for (unsigned c = 0; c < cap && mass < 1 - 1e-17; c++) {
        double w = mk_binom_pmf(c, pop, 1 / C);
        if (w > 0) {
            m->c[m->n] = c;
            m->w[m->n++] = w;
            mass += w;
        }
    }
    cr_assert_gt(mass, 1 - 1e-15);
}

/* One count for every line. */
static mk_setmix point_mix(unsigned *c, double *w, double pop)
{
    *w = 1;
    return (mk_setmix){.pop = pop, .n = 1, .c = c, .w = w};
}

Test(markov_setmap_mix, random_occupancy_is_the_binomial)
{
    /* Any T fixed lines of the pop placed independently at random put
     * Bin(T, 1/C) in a set: sum_c Bin(pop, 1/C)(c) Hyp(pop, c, T) = Bin(T, 1/C).
     * So every policy's survival is the paper's, at real distances too (both
     * mix the neighbouring integers linearly), also with lines outside the
     * footprint (Bin(m, p) + Bin(n, p) = Bin(m + n, p), integers) and in
     * Eq. 4's L3* factor. */
    const double pops[] = {500, 120000}, sets[] = {64, 36864};
    const unsigned ways[] = {1, 2, 4, 11};
    const mk_policy pol[] = {MK_LRU, MK_BIP, MK_QLRU};
    for (int g = 0; g < 2; g++) {
        mk_setmix mix;
        random_mix(&mix, pops[g], sets[g]);
        for (int wi = 0; wi < 4; wi++)
            for (int pi = 0; pi < 3; pi++) {
                mk_region paper = {sets[g], ways[wi], pol[pi], 0, NULL}, mapped = paper;
                mapped.mix = &mix;
                for (double f = 0; f <= 1; f += 0.0625) {
                    double T = f * pops[g] * 0.999, m = floor(T), out = floor(0.3 * m);
                    expect_near(mk_survive_mix(&mapped, T, 0), mk_survive(&paper, T), 1e-12);
                    expect_near(mk_survive_mix(&mapped, m + out, out), mk_survive(&paper, m + out), 1e-12);
                }
                double T3 = 0.4 * pops[g];
                expect_near(mk_l2_to_l3_mix(700.5, 16, 1024, &mapped, T3, 0, MK_EQ4_EXACT),
                            mk_l2_to_l3(700.5, 16, 1024, &paper, T3, MK_EQ4_EXACT), 1e-12);
            }
        /* Eq. 9 / 10: disjoint DDIO and L3* windows. */
        for (double f = 0.05; f < 0.5; f += 0.1) {
            double T_D = f * pops[g], T = (0.45 - f / 2) * pops[g];
            expect_near(mk_hit_ddio_overlap_mix(T, 0, T_D, 11, 2, sets[g], &mix),
                        mk_hit_ddio_overlap(T, T_D, 11, 2, sets[g]), 1e-12);
            expect_near(mk_hit_l3_overlap_mix(T, 0, T_D, 11, 2, sets[g], &mix),
                        mk_hit_l3_overlap(T, T_D, 11, 2, sets[g]), 1e-12);
        }
        /* No mixture: the paper's formulas, bit for bit. */
        cr_expect_eq(mk_hit_ddio_overlap_mix(300, 0, 200, 11, 2, sets[g], NULL),
                     mk_hit_ddio_overlap(300, 200, 11, 2, sets[g]));
        free(mix.c);
        free(mix.w);
    }
}

/* Hyp(48, 3, m)(k) = C(3, k) [m]_k [48 - m]_(3-k) / [48]_3 (falling factorials). */
static double hyp48(double m, int k)
{
    double num = k == 0 ? 1 : k == 3 ? 1 : 3;
    for (int i = 0; i < k; i++)
        num *= m - i;
    for (int i = 0; i < 3 - k; i++)
        num *= 48 - m - i;
    return num / (48.0 * 47 * 46);
}

Test(markov_setmap_mix, every_set_holds_c_lines)
{
    /* Every line has c = 3 other footprint lines in its set (4 buffers of 16
     * lines, set = line mod 16): a window of m of the pop = 48 lines leaves
     * K ~ Hyp(48, 3, m) of them in the set.  LRU, N ways:
     *   N = 4: never evicted (3 < 4), whatever m - the paper's Bin(48, 1/16)
     *          evicts at m = 48 with probability 1 - F_B(3; 48, 1/16) = 0.35;
     *   N = 3: evicted iff all 3 came: 1 - P(K = 3);
     *   N = 2: P(K <= 1);
     * BIP, N = 2: + P(K = 2) / 3 + P(K = 3) / 4; QLRU cut at k = 2: + P(K = 2) / 3. */
    unsigned c = 3;
    double w;
    mk_setmix mix = point_mix(&c, &w, 48);
    mk_region r = {16, 4, MK_LRU, 0, &mix};
    for (double m = 0; m <= 48; m += 6) {
        r.ways = 4;
        r.policy = MK_LRU;
        expect_near(mk_survive_mix(&r, m, 0), 1.0, 1e-15);
        r.ways = 3;
        expect_near(mk_survive_mix(&r, m, 0), 1 - hyp48(m, 3), 1e-15);
        r.ways = 2;
        double lru2 = hyp48(m, 0) + hyp48(m, 1);
        expect_near(mk_survive_mix(&r, m, 0), lru2, 1e-15);
        r.policy = MK_BIP;
        expect_near(mk_survive_mix(&r, m, 0), lru2 + hyp48(m, 2) / 3 + hyp48(m, 3) / 4, 1e-15);
        r.policy = MK_QLRU;
        r.qlru_k_last = 2;
        expect_near(mk_survive_mix(&r, m, 0), lru2 + hyp48(m, 2) / 3, 1e-15);
        r.qlru_k_last = 0;
    }
    mk_region paper = {16, 4, MK_LRU, 0, NULL};
    cr_expect_lt(mk_survive(&paper, 48), 0.7);

    /* Plus lines outside the footprint, Y ~ Bin(1, 1/16): LRU, N = 3, m = 24:
     * P(K + Y <= 2) = 15/16 (1 - P(K = 3)) + 1/16 P(K <= 1). */
    r.ways = 3;
    r.policy = MK_LRU;
    expect_near(mk_survive_mix(&r, 25, 1), 15.0 / 16 * (1 - hyp48(24, 3)) + (hyp48(24, 0) + hyp48(24, 1)) / 16,
                1e-15);
    /* BIP, N = 2, the whole footprint (K = 3) and Y: (N-1)/(k+1) = 1/4 (1/5).
     * A distance beyond the footprint (49 of pop 48) adds its excess to Y. */
    r.ways = 2;
    r.policy = MK_BIP;
    expect_near(mk_survive_mix(&r, 49, 1), 15.0 / 16 / 4 + 1.0 / 16 / 5, 1e-15);
    expect_near(mk_survive_mix(&r, 49, 0), 15.0 / 16 / 4 + 1.0 / 16 / 5, 1e-15);
}

Test(markov_setmap_mix, overlap_by_hand)
{
    /* c = 2 other lines in every set, pop = 10, N = 2 ways, a = 1 DDIO way.
     * DDIO window 3 lines: K_D ~ Hyp(10, 2, 3) = {56, 56, 8} / 120; then the
     * L3* window, 4 of the 7 left: Hyp(7, 2 - i, 4).
     * Eq. 9: K_D = 0 and at most 1 of 2 in L3*: 56/120 (1 - 2/7) = 1/3.
     * Eq. 10: + K_D = 1 (the DDIO line holds the a = 1 way) and the other
     * not in L3*: 56/120 * 3/7 = 1/5, + K_D = 2: 8/120 = 1/15; total 3/5. */
    unsigned c = 2;
    double w;
    mk_setmix mix = point_mix(&c, &w, 10);
    expect_near(mk_hit_ddio_overlap_mix(4, 0, 3, 2, 1, 16, &mix), 1.0 / 3, 1e-15);
    expect_near(mk_hit_l3_overlap_mix(4, 0, 3, 2, 1, 16, &mix), 0.6, 1e-15);
    /* Windows over pop are scaled to it: T_D = 6, T = 9 -> 4 and 6: the L3*
     * window takes both lines the DDIO one left. */
    expect_near(mk_hit_ddio_overlap_mix(9, 0, 6, 2, 1, 16, &mix), 0.0, 1e-15);
}

Test(markov_setmap_build, hand_laid_sets)
{
    /* 3 buffers of 2 lines: sets {0, 1}, {0, 2}, {0, 1}.  Set 0 holds one line
     * of each buffer (c = 2 for those 3 lines), set 1 two (c = 1), set 2
     * one (c = 0): w = {0: 1/6, 1: 2/6, 2: 3/6}, pop = 4. */
    const uint32_t set[] = {0, 1, 0, 2, 0, 1};
    mk_setmix m;
    ddio_err e;
    cr_assert_eq(mk_setmix_from_sets(set, 3, 2, 4, &m, &e), 0, "%s", e.msg);
    cr_assert_eq(m.n, 3);
    expect_near(m.pop, 4, 0);
    const double want[] = {1.0 / 6, 2.0 / 6, 3.0 / 6};
    for (unsigned k = 0; k < 3; k++) {
        cr_expect_eq(m.c[k], k);
        expect_near(m.w[k], want[k], 1e-15);
    }
    mk_setmix_free(&m);
    /* A buffer's own lines in its set do not count: {0, 0}, {1, 1}. */
    const uint32_t own[] = {0, 0, 1, 1};
    cr_assert_eq(mk_setmix_from_sets(own, 2, 2, 2, &m, &e), 0, "%s", e.msg);
    cr_expect(m.n == 1 && m.c[0] == 0 && m.w[0] == 1);
    mk_setmix_free(&m);
    cr_expect_eq(mk_setmix_from_sets(own, 1, 4, 2, &m, &e), -1);
    cr_expect_eq(mk_setmix_from_sets(set, 3, 2, 2, &m, &e), -1);    /* set 2 of 2 */
}

/* Both ways of counting (by set when no buffer has two lines in one set, by
 * buffer otherwise) against the definition, on random footprints. */
Test(markov_setmap, mixture_matches_the_definition)
{
    ddio_rng r;
    ddio_rng_seed(&r, 11);
    enum { B = 40, L = 6, S = 50 };
    uint32_t set[B * L];
    for (int trial = 0; trial < 40; trial++) {
        for (int b = 0; b < B; b++)
            for (int j = 0; j < L; j++) {
                uint32_t s = (uint32_t)ddio_rng_below(&r, S);
                if (trial % 2 == 0)   /* even trials: distinct sets within a buffer */
                    for (int k = 0; k < j; k++)
                        if (set[b * L + k] == s) {
                            s = (s + 1) % S;
                            k = -1;
                        }
                set[b * L + j] = s;
            }
        double ref[B * L] = {0};
        for (int x = 0; x < B * L; x++) {
            int c = 0;
            for (int y = 0; y < B * L; y++)
                c += y / L != x / L && set[y] == set[x];
            ref[c] += 1.0 / (B * L);
        }
        mk_setmix m;
        ddio_err e;
        cr_assert_eq(mk_setmix_from_sets(set, B, L, S, &m, &e), 0, "%s", e.msg);
        double got[B * L] = {0};
        for (unsigned k = 0; k < m.n; k++)
            got[m.c[k]] = m.w[k];
        for (int c = 0; c < B * L; c++)
            expect_near(got[c], ref[c], 1e-12);
        mk_setmix_free(&m);
    }
}

Test(markov_setmap_build, aligned_buffers_share_one_set_per_line)
{
    /* 4 KiB-aligned buffers (stride 64 lines) on a modulo LLC of 64 sets:
     * line j of every buffer lands in the same set, so each of the 64 x 24
     * lines has the other 63 buffers' line in its set. */
    ddio_config cfg;
    ddio_config_default(&cfg);
    cfg.machine.llc.mapping = MAP_MODULO;
    cfg.machine.llc.slices = 1;
    cfg.machine.llc.sets_per_slice = 64;
    cfg.workload.driver.align_4k = true;
    cfg.workload.driver.rx_ring = 64;
    uint32_t bufs[1] = {64};
    mk_setmix m;
    ddio_err e;
    cr_assert_eq(mk_setmix_build(&cfg, 1, bufs, 24, &m, &e), 0, "%s", e.msg);
    cr_expect(m.n == 1 && m.c[0] == 63 && m.w[0] == 1, "n %u c %u", m.n, m.c[0]);
    expect_near(m.pop, 63 * 24, 0);
    mk_setmix_free(&m);
    /* 128 sets: buffers of odd and even index alternate halves. */
    cfg.machine.llc.sets_per_slice = 128;
    cr_assert_eq(mk_setmix_build(&cfg, 1, bufs, 24, &m, &e), 0, "%s", e.msg);
    double mean = 0;
    for (unsigned k = 0; k < m.n; k++)
        mean += m.w[k] * m.c[k];
    cr_expect_lt(m.c[m.n - 1], 63);
    expect_near(mean + 1, 64.0 / 2, 8);
    mk_setmix_free(&m);
}

static void predict(ddio_config *cfg, int random_sets, mk_prediction *out)
{
    mk_traffic t;
    ddio_err e;
    cr_assert_eq(mk_traffic_fixed(&t, 1500, cfg->workload.cores, &e), 0);
    double *qs = calloc((size_t)cfg->workload.cores * Q_COUNT, sizeof *qs);
    for (uint32_t c = 0; c < cfg->workload.cores; c++) {
        qs[(size_t)c * Q_COUNT + Q_RX] = 200;
        qs[(size_t)c * Q_COUNT + Q_RX_REPLENISH] = 56;
        qs[(size_t)c * Q_COUNT + Q_TX] = 10;
    }
    mk_predict_opts o;
    mk_predict_opts_default(&o);
    o.queues = qs;
    o.random_sets = random_sets;
    cr_assert_eq(mk_predict(cfg, &t, &o, out, &e), 0, "%s", e.msg);
    free(qs);
    mk_traffic_free(&t);
}

Test(markov_setmap_predict, random_untouched_others_follow_the_mapping)
{
    ddio_config cfg;
    ddio_config_default(&cfg);
    cfg.workload.cores = 12;
    mk_prediction a, b;
    /* random: the paper's model whatever the option. */
    cfg.machine.llc.mapping = MAP_RANDOM;
    predict(&cfg, 0, &a);
    predict(&cfg, 1, &b);
    cr_expect_eq(a.pcie_write_hit.lower, b.pcie_write_hit.lower);
    cr_expect_eq(a.pcie_write_hit.upper, b.pcie_write_hit.upper);
    cr_expect_eq(a.pcie_read_hit.lower, b.pcie_read_hit.lower);
    /* skx18 with huge-page frames spreads the lines more evenly than random:
     * more write hits (the simulator: 72.95 % vs 60.03 % at 10 cores). */
    cfg.machine.llc.mapping = MAP_SKX18;
    cfg.machine.llc.frame_bytes = 2u << 20;
    predict(&cfg, 0, &a);
    predict(&cfg, 1, &b);
    cr_expect_gt(a.pcie_write_hit.lower, b.pcie_write_hit.lower + 0.02, "skx18 %g, random %g",
                 a.pcie_write_hit.lower, b.pcie_write_hit.lower);
    cr_expect_leq(a.pcie_write_hit.lower, a.pcie_write_hit.upper);
}
