/* test_markov_math.c - the numerical core of the Markov model: binomial
 * kernels, the eviction formulas (paper Eq. 2, 3, 4, 9, 10, 12) and the
 * stationary-vector solvers.
 *
 * Each formula is checked three ways: hand-computed values (worked out in
 * the comments), a naive independent implementation in long double that
 * follows the paper's printed sums term by term, and (Eq. 2, Eq. 12) Monte
 * Carlo on the project's cache simulator with fixed seeds, tolerances derived
 * from the sample size. */
#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cache/cache.h"
#include "sim/common/rng.h"
#include "sim/markov/binom.h"
#include "sim/markov/evict.h"
#include "sim/markov/solve.h"
#include "tests/helpers.h"

/* ---- naive reference implementations (long double, term by term) -------- */

/* C(n,k) p^k q^(n-k) by plain multiplication: no lgamma, no saddle point. */
static long double naive_pmf(long n, long k, long double p)
{
    if (k < 0 || k > n)
        return 0.0L;
    long double c = 1.0L;
    for (long i = 1; i <= k; i++)
        c *= (long double)(n - k + i) / (long double)i * p;
    return c * powl(1.0L - p, (long double)(n - k));
}

static long double naive_cdf(long k, long n, long double p)
{
    if (k < 0)
        return 0.0L;
    long double s = 0.0L;
    for (long i = 0; i <= k && i <= n; i++)
        s += naive_pmf(n, i, p);
    return s;
}

/* C(t+r-1, t) (1-p)^r p^t, Eq. 8. */
static long double naive_nb_pmf(long t, long r, long double p)
{
    long double c = 1.0L;
    for (long i = 1; i <= t; i++)
        c *= (long double)(r - 1 + i) / (long double)i * p;
    return c * powl(1.0L - p, (long double)r);
}

/* Eq. 3 summed to k = min(T, k_last) with no truncation at all; the pmf by
 * the forward recurrence from f(0) = q^T (long double does not underflow
 * for the cases used), F_B(N-1) as the first N terms. */
static long double naive_eq3(long T, long N, long double C, long k_last)
{
    long double p = 1.0L / C, q = 1.0L - p;
    long double f = powl(q, (long double)T), s = 0.0L;
    for (long k = 0; k <= T; k++) {
        if (k >= N && k > k_last)
            break;
        s += k < N ? f : (long double)(N - 1) / (long double)(k + 1) * f;
        f *= (long double)(T - k) / (long double)(k + 1) * p / q;
    }
    return s;
}

/* The documented real-T convention, applied to the naive LRU. */
static long double naive_lru_real(double T, long N, long double C)
{
    long t0 = (long)floor(T);
    long double w = (long double)(T - floor(T));
    long double v = naive_cdf(N - 1, t0, 1.0L / C);
    return w > 0 ? (1 - w) * v + w * naive_cdf(N - 1, t0 + 1, 1.0L / C) : v;
}

/* Eq. 4 (integer T2, LRU in L3*), every term of the printed sum. */
static long double naive_eq4(long T2, long N2, long double C2, long N3, long double C3, double T3,
                             int paper)
{
    long double s = 0.0L;
    long last = paper ? T2 : T2 - N2;
    for (long t = 0; t <= last; t++) {
        double frac = paper ? (T2 > 0 ? (double)t / (double)T2 : 0.0) : (double)(t + N2) / (double)T2;
        s += naive_nb_pmf(t, N2, 1.0L - 1.0L / C2) * naive_lru_real((1 - frac) * T3, N3, C3);
    }
    return s;
}

/* Eq. 4 at a real T2 by the documented convention: the integer sum up to
 * floor(T2) plus the next term weighted by the fractional part, the elapsed
 * fraction always against T2 itself. */
static long double naive_eq4_real(double T2, long N2, long double C2, long N3, long double C3, double T3)
{
    long t0 = (long)floor(T2);
    long double w = (long double)(T2 - floor(T2)), s = 0.0L;
    for (long t = 0; t <= t0 - N2 + 1; t++) {
        double rest = 1 - (double)(t + N2) / T2;
        long double term = naive_nb_pmf(t, N2, 1.0L - 1.0L / C2) * naive_lru_real(rest < 0 ? 0 : rest * T3, N3, C3);
        s += t <= t0 - N2 ? term : w * term;
    }
    return s;
}

/* ---- markov_math_binom: the kernels -------------------------------------- */

Test(markov_math_binom, hand_values)
{
    /* Bin(3, 1/2): 1/8 3/8 3/8 1/8.  F_B(1; 3, 1/2) = 1/8 + 3/8 = 1/2. */
    cr_expect_eq(mk_binom_cdf(1, 3, 0.5), 0.5);
    expect_near(mk_binom_pmf(0, 3, 0.5), 0.125, 1e-16);
    expect_near(mk_binom_pmf(1, 3, 0.5), 0.375, 1e-16);
    expect_near(mk_binom_pmf(3, 3, 0.5), 0.125, 1e-16);
    cr_expect_eq(mk_binom_pmf(4, 3, 0.5), 0.0);
    /* Eq. 7's extension: F_B(k; n, p) = 1 for k >= n; and 0 for k < 0. */
    cr_expect_eq(mk_binom_cdf(3, 3, 0.5), 1.0);
    cr_expect_eq(mk_binom_cdf(7, 3, 0.5), 1.0);
    cr_expect_eq(mk_binom_cdf(-1, 3, 0.5), 0.0);
    /* Degenerate p and n. */
    cr_expect_eq(mk_binom_pmf(0, 0, 0.3), 1.0);
    cr_expect_eq(mk_binom_pmf(0, 5, 0.0), 1.0);
    cr_expect_eq(mk_binom_pmf(5, 5, 1.0), 1.0);
    cr_expect_eq(mk_binom_pmf(4, 5, 1.0), 0.0);
    /* Bin(4, 1/4): f(1) = 4 * 1/4 * 27/64 = 27/64; F(1) = 81/256 + 108/256. */
    expect_near(mk_binom_pmf(1, 4, 0.25), 27.0 / 64, 1e-16);
    expect_near(mk_binom_cdf(1, 4, 0.25), 189.0 / 256, 1e-16);
    /* f_NB(t; 2, 3/4) = (t+1) (1/4)^2 (3/4)^t: t=0 1/16, t=2 27/256. */
    expect_near(mk_negbin_pmf(0, 2, 0.75), 1.0 / 16, 1e-16);
    expect_near(mk_negbin_pmf(2, 2, 0.75), 27.0 / 256, 1e-16);
}

Test(markov_math_binom, pmf_cdf_against_naive_and_gsl)
{
    static const long ns[] = {1, 2, 7, 50, 300, 2000};
    static const double Cs[] = {2, 3, 16, 64, 1024};
    double worst_pmf = 0, worst_cdf = 0;
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof Cs / sizeof Cs[0]; b++) {
            long n = ns[a];
            double p = 1.0 / Cs[b];
            for (long k = 0; k <= n; k++) {
                long double ref = naive_pmf(n, k, 1.0L / Cs[b]);
                if (ref < 1e-250L)
                    continue;
                double got = mk_binom_pmf((double)k, (double)n, p);
                double rel = (double)fabsl((got - ref) / ref);
                worst_pmf = rel > worst_pmf ? rel : worst_pmf;
                /* GSL as a second, independent oracle (moderate n only). */
                double g = gsl_ran_binomial_pdf((unsigned)k, p, (unsigned)n);
                cr_expect(fabs(got - g) <= 1e-11 * g, "pmf(%ld; %ld, 1/%g) %.17g vs gsl %.17g",
                          k, n, Cs[b], got, g);
            }
            for (long k = 0; k <= n && k <= 70; k++) {
                long double ref = naive_cdf(k, n, 1.0L / Cs[b]);
                if (ref < 1e-250L)
                    continue;
                double got = mk_binom_cdf((double)k, (double)n, p);
                double rel = (double)fabsl((got - ref) / ref);
                worst_cdf = rel > worst_cdf ? rel : worst_cdf;
                double g = gsl_cdf_binomial_P((unsigned)k, p, (unsigned)n);
                cr_expect(fabs(got - g) <= 1e-11, "cdf(%ld; %ld, 1/%g) %.17g vs gsl %.17g",
                          k, n, Cs[b], got, g);
            }
        }
    cr_expect(worst_pmf < 1e-12, "worst relative pmf error %.3g", worst_pmf);
    cr_expect(worst_cdf < 1e-12, "worst relative cdf error %.3g", worst_cdf);
}

Test(markov_math_binom, negbin_against_naive_and_gsl)
{
    static const long rs[] = {1, 2, 11, 16};
    static const double Cs[] = {2, 16, 1024};
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 3; b++)
            for (long t = 0; t < 3000; t += 7) {
                double p = 1 - 1.0 / Cs[b];
                long double ref = naive_nb_pmf(t, rs[a], 1.0L - 1.0L / Cs[b]);
                if (ref < 1e-250L)
                    continue;
                double got = mk_negbin_pmf((double)t, (double)rs[a], p);
                cr_expect(fabsl((got - ref) / ref) < 1e-12L, "f_NB(%ld; %ld, 1-1/%g)", t, rs[a], Cs[b]);
                /* GSL's NB counts the other outcome: its p is our 1 - p. */
                double g = gsl_ran_negative_binomial_pdf((unsigned)t, 1.0 / Cs[b], (double)rs[a]);
                cr_expect(fabs(got - g) <= 1e-10 * g + 1e-300, "f_NB vs gsl at t=%ld", t);
            }
}

Test(markov_math_binom, upper_tail_and_pairs)
{
    /* P(X > k) against the naive complement, relative in the far tail. */
    static const long ns[] = {3, 40, 600, 3000};
    static const double Cs[] = {2, 16, 1024};
    static long double tail[3002];
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 3; b++) {
            long n = ns[a];
            long double p = 1.0L / Cs[b], f = powl(1 - p, (long double)n);
            long double pmf[3001];
            for (long i = 0; i <= n; i++) {         /* forward recurrence, long double */
                pmf[i] = f;
                f *= (long double)(n - i) / (long double)(i + 1) * p / (1 - p);
            }
            tail[n + 1] = 0;                        /* tail[i] = P(X >= i), summed from the top */
            for (long i = n; i >= 0; i--)
                tail[i] = tail[i + 1] + pmf[i];
            for (long k = -1; k <= 40 && k <= n; k++) {
                long double ref = tail[k + 1];
                double got = mk_binom_sf((double)k, (double)n, 1.0 / Cs[b]);
                if (ref < 1e-250L)
                    continue;
                cr_expect(fabsl((got - ref) / ref) < 1e-12L, "sf(%ld; %ld, 1/%g) %.17g vs %.17Lg",
                          k, n, Cs[b], got, ref);
            }
        }
    /* The CDF's companion pmf, and the n -> n+1 step it allows. */
    double f;
    double F = mk_binom_cdf_pmf(3, 1000, 1.0 / 64, &f);
    expect_near(f, mk_binom_pmf(3, 1000, 1.0 / 64), 1e-13 * f);
    expect_near(F - f / 64, mk_binom_cdf(3, 1001, 1.0 / 64), 1e-14);
    F = mk_binom_cdf_pmf(30, 1000, 1.0 / 64, &f);   /* mode 15 < 30 */
    expect_near(f, mk_binom_pmf(30, 1000, 1.0 / 64), 1e-13 * f);
}

/* Mass sums to 1 over the whole support at model-sized parameters: the
 * truncation bound (1e-12) and the ratio walk's rounding together. */
Test(markov_math_binom, total_mass_large_parameters)
{
    expect_near(mk_binom_wsum(1e6, 1.0 / 1000, 0, INFINITY, NULL, NULL, MK_TAIL_TOL), 1.0, 2e-12);
    expect_near(mk_binom_wsum(5e4, 1.0 / 36864, 0, INFINITY, NULL, NULL, MK_TAIL_TOL), 1.0, 2e-12);
    expect_near(mk_binom_wsum(3e7, 0.5, 0, INFINITY, NULL, NULL, MK_TAIL_TOL), 1.0, 2e-12);
    expect_near(mk_negbin_wsum(16, 1 - 1.0 / 1024, 0, INFINITY, NULL, NULL, MK_TAIL_TOL), 1.0, 2e-12);
    expect_near(mk_negbin_wsum(1, 0.5, 0, INFINITY, NULL, NULL, MK_TAIL_TOL), 1.0, 2e-12);
    /* CDF + upper tail = 1 at n = 1e6 (cdf summed exactly, tail by the walk). */
    double n = 1e6, p = 1.0 / 1000;
    double F = mk_binom_cdf(1000, n, p);
    double Q = mk_binom_wsum(n, p, 1001, INFINITY, NULL, NULL, MK_TAIL_TOL);
    expect_near(F + Q, 1.0, 2e-12);
    /* F_B(1000; 1e6, 1/1000) from a 40-digit evaluation (mpmath). */
    expect_near(F, 0.50840936822077580767, 1e-14);
}

/* ---- markov_math_lru: Eq. 2 ----------------------------------------------- */

Test(markov_math_lru, hand_values)
{
    /* T = 3 unique lines, 2 sets, 2 ways: survive iff <= 1 of 3 in our set:
     * F_B(1; 3, 1/2) = 1/2 exactly. */
    cr_expect_eq(mk_hit_lru(3, 2, 2), 0.5);
    /* Fewer other lines than ways: always a hit.  No way: never. */
    cr_expect_eq(mk_hit_lru(1, 2, 2), 1.0);
    cr_expect_eq(mk_hit_lru(0, 1, 1000), 1.0);
    cr_expect_eq(mk_hit_lru(5, 0, 8), 0.0);
    /* One set (fully associative): a hit iff T <= N-1. */
    cr_expect_eq(mk_hit_lru(3, 4, 1), 1.0);
    cr_expect_eq(mk_hit_lru(4, 4, 1), 0.0);
    /* 1 way, C sets: (1 - 1/C)^T; C = 4, T = 2: 9/16. */
    expect_near(mk_hit_lru(2, 1, 4), 9.0 / 16, 1e-16);
}

Test(markov_math_lru, against_naive)
{
    static const long Ts[] = {0, 1, 5, 40, 333, 2048, 5000};
    static const long Ns[] = {1, 2, 4, 11, 16};
    static const double Cs[] = {1, 2, 64, 1024, 2048};
    for (size_t a = 0; a < 7; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t c = 0; c < 5; c++) {
                long double ref = naive_cdf(Ns[b] - 1, Ts[a], 1.0L / Cs[c]);
                double got = mk_hit_lru((double)Ts[a], (unsigned)Ns[b], Cs[c]);
                cr_expect(fabsl(got - ref) <= 1e-13L + 1e-12L * ref,
                          "Eq.2 T=%ld N=%ld C=%g: %.17g vs naive %.17Lg", Ts[a], Ns[b], Cs[c], got, ref);
            }
}

Test(markov_math_lru, non_integer_T)
{
    /* p(T) = (1-w) p(floor T) + w p(floor T + 1). */
    double v0 = mk_hit_lru(2000, 2, 2048), v1 = mk_hit_lru(2001, 2, 2048);
    expect_near(mk_hit_lru(2000.25, 2, 2048), 0.75 * v0 + 0.25 * v1, 1e-15);
    /* Hand: T = 2.5, N = 2, C = 2: (F_B(1;2,.5) + F_B(1;3,.5))/2 = (3/4 + 1/2)/2. */
    expect_near(mk_hit_lru(2.5, 2, 2), 0.625, 1e-15);
    /* Continuous and non-increasing across integers. */
    double prev = 1.0;
    for (double T = 0; T <= 40; T += 0.125) {
        double v = mk_hit_lru(T, 3, 8);
        cr_expect(v <= prev + 1e-15, "Eq.2 increases at T=%g", T);
        prev = v;
    }
    expect_near(mk_hit_lru(17 - 1e-9, 3, 8), mk_hit_lru(17, 3, 8), 1e-9);
    /* The incomplete-beta continuation of F_B differs by far less than the
     * model's own error at realistic T (docs/model-math.md quotes the figure). */
    double T = 2048.5, p = 1.0 / 2048;
    double beta = gsl_cdf_beta_P(1 - p, T - 1, 2);  /* I_{1-p}(T - k, k + 1), k = 1 */
    expect_near(mk_hit_lru(T, 2, 2048), beta, 1e-6);
}

/* One trial: fill a fresh target line, then T fresh lines; does it survive? */
static double mc_lru(uint32_t sets, uint32_t ways, uint32_t T, int trials, uint64_t seed)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = sets, .ways = ways,
                    .mapping = MAP_RANDOM, .seed = seed};
    repl_config rc;
    repl_config_default(&rc);
    cache c;
    ddio_err e;
    cr_assert_eq(cache_init(&c, &g, &rc, &e), 0, "%s", e.msg);
    uint64_t next = 1;      /* line numbers never repeat: every access is unique */
    int hits = 0;
    cache_evicted ev;
    for (int r = 0; r < trials; r++) {
        uint64_t x = next++;
        cache_fill(&c, cache_set(&c, x), c.full_mask, x, 0, &ev);
        for (uint32_t i = 0; i < T; i++) {
            uint64_t l = next++;
            uint32_t s = cache_set(&c, l);
            cache_fill(&c, s, c.full_mask, l, 0, &ev);
        }
        hits += cache_find(&c, cache_set(&c, x), x) >= 0;
    }
    cache_free(&c);
    return (double)hits / trials;
}

Test(markov_math_lru, monte_carlo_cache_sim)
{
    /* Random set mapping, LRU: the model's own assumptions, so Eq. 2 is exact
     * and the only difference is sampling error; 4 standard errors. */
    static const struct { uint32_t sets, ways, T; int trials; } cfg[] = {
        {64, 4, 100, 6000}, {64, 4, 250, 6000}, {1024, 2, 1024, 2500}, {2048, 2, 4096, 1500},
        {256, 11, 2048, 2000},
    };
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        double sim = mc_lru(cfg[i].sets, cfg[i].ways, cfg[i].T, cfg[i].trials, 0x5EED0 + i);
        double model = mk_hit_lru(cfg[i].T, cfg[i].ways, cfg[i].sets);
        double se = sqrt(model * (1 - model) / cfg[i].trials);
        cr_expect(fabs(sim - model) <= 4 * se + 1e-9,
                  "Eq.2 vs cache sim, C=%u N=%u T=%u: model %.4f sim %.4f (4 SE = %.4f)",
                  cfg[i].sets, cfg[i].ways, cfg[i].T, model, sim, 4 * se);
        cr_log_info("markov_math MC Eq.2 C=%u N=%u T=%u: model %.4f sim %.4f diff %+.4f (SE %.4f)",
                    cfg[i].sets, cfg[i].ways, cfg[i].T, model, sim, sim - model, se);
    }
}

/* ---- markov_math_bip: Eq. 3 and the QLRU cut ------------------------------ */

Test(markov_math_bip, hand_values)
{
    /* T=3, N=2, C=2.  F_B(1;3,1/2) = 1/2; sum over k=2,3 of (1/(k+1)) f(k):
     * (1/3)(3/8) + (1/4)(1/8) = 1/8 + 1/32 = 5/32  ->  21/32. */
    expect_near(mk_hit_bip(3, 2, 2), 21.0 / 32, 1e-15);
    expect_near(mk_hit_qlru(3, 2, 2, MK_QLRU_TERMS), 21.0 / 32, 1e-15);
    /* T=4, N=2, C=2.  F_B(1;4,1/2) = 5/16.  k=2: (1/3)(6/16) = 2/16,
     * k=3: (1/4)(4/16) = 1/16, k=4: (1/5)(1/16) = 1/80.
     * BIP = 5/16 + 3/16 + 1/80 = 41/80; QLRU (k = 2,3,4) the same;
     * literal cut k <= 3: 5/16 + 3/16 = 1/2. */
    expect_near(mk_hit_bip(4, 2, 2), 41.0 / 80, 1e-15);
    expect_near(mk_hit_qlru(4, 2, 2, 3), 41.0 / 80, 1e-15);
    expect_near(mk_hit_eq3(4, 2, 2, 3), 0.5, 1e-15);
    /* QLRU with 2 terms = k = 2,3 = the literal cut when N = 2. */
    expect_near(mk_hit_qlru(4, 2, 2, 2), 0.5, 1e-15);
    /* 0 terms is LRU; N = 1 has weight (N-1)/(k+1) = 0: BIP = LRU. */
    cr_expect_eq(mk_hit_qlru(4, 2, 2, 0), mk_hit_lru(4, 2, 2));
    cr_expect_eq(mk_hit_bip(50, 1, 8), mk_hit_lru(50, 1, 8));
    /* The region dispatcher, default QLRU cut (k_last = 0 -> N + 2). */
    mk_region r = {.sets = 2, .ways = 2, .policy = MK_QLRU};
    expect_near(mk_survive(&r, 4), 41.0 / 80, 1e-15);
    r.qlru_k_last = 3;
    expect_near(mk_survive(&r, 4), 0.5, 1e-15);
    r.policy = MK_BIP;
    expect_near(mk_survive(&r, 4), 41.0 / 80, 1e-15);
    r.policy = MK_LRU;
    expect_near(mk_survive(&r, 4), 5.0 / 16, 1e-16);
}

Test(markov_math_bip, against_naive)
{
    static const long Ts[] = {2, 9, 64, 700, 4096};
    static const long Ns[] = {2, 3, 11, 16};
    static const double Cs[] = {2, 32, 512, 2048};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t c = 0; c < 4; c++) {
                long T = Ts[a], N = Ns[b];
                long double bip = naive_eq3(T, N, Cs[c], T);
                long double qlru = naive_eq3(T, N, Cs[c], N + 2);
                long double lit = naive_eq3(T, N, Cs[c], 3);
                cr_expect(fabsl(mk_hit_bip((double)T, (unsigned)N, Cs[c]) - bip) <= 2e-12L,
                          "BIP T=%ld N=%ld C=%g", T, N, Cs[c]);
                double gq = mk_hit_qlru((double)T, (unsigned)N, Cs[c], 3);
                double gl = mk_hit_eq3((double)T, (unsigned)N, Cs[c], 3);
                cr_expect(fabsl(gq - qlru) <= 1e-13L, "QLRU T=%ld N=%ld C=%g: %.17g vs naive %.17Lg",
                          T, N, Cs[c], gq, qlru);
                cr_expect(fabsl(gl - lit) <= 1e-13L, "literal cut T=%ld N=%ld C=%g: %.17g vs naive %.17Lg",
                          T, N, Cs[c], gl, lit);
            }
    /* One model-sized case: T = 50000 over 2048 sets, 2 DDIO ways. */
    long double ref = naive_eq3(50000, 2, 2048, 50000);
    expect_near(mk_hit_bip(50000, 2, 2048), (double)ref, 2e-12);
}

Test(markov_math_bip, bounds_and_ordering)
{
    static const double Ts[] = {0, 1, 1.5, 3, 10, 100.25, 1000, 2e4, 5e4, 3e5};
    static const unsigned Ns[] = {1, 2, 4, 11, 16};
    static const double Cs[] = {1, 2, 64, 2048, 36864};
    for (size_t a = 0; a < 10; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t c = 0; c < 5; c++) {
                double T = Ts[a], C = Cs[c];
                unsigned N = Ns[b];
                double lru = mk_hit_lru(T, N, C);
                double q = mk_hit_qlru(T, N, C, MK_QLRU_TERMS);
                double lit = mk_hit_eq3(T, N, C, 3);
                double bip = mk_hit_bip(T, N, C);
                cr_expect(lru >= 0 && lru <= 1, "LRU out of [0,1]");
                /* LRU <= cut sums and <= 1 exactly; cut <= BIP to rounding
                 * (they are summed differently, see evict.c). */
                cr_expect(lru <= q && q <= bip + 1e-15 && lru <= lit && lit <= bip + 1e-15 && bip <= 1,
                          "T=%g N=%u C=%g: lru %.17g qlru %.17g literal %.17g bip %.17g", T, N, C,
                          lru, q, lit, bip);
                if (T <= N - 1.0) {
                    /* Fewer other lines than ways: no k >= N term exists,
                     * every formula says hit. */
                    cr_expect_eq(lru, 1.0);
                    cr_expect_eq(q, 1.0);
                    cr_expect_eq(bip, 1.0);
                }
            }
}

/* Eq. 3 is the hit rate of cyclic access over T+1 lines under BIP in the
 * limit epsilon -> 0: in a set holding k+1 of the lines, N-1 stay resident
 * and the rest rotate through the last way, so (N-1)/(k+1) of them hit.
 * Each run is one random mapping (seeds far apart: the random mapping is
 * mix64(line ^ seed), so seeds differing in low bits permute small line
 * numbers among themselves and give nearly the same mapping).  Tolerance:
 * 4.5 standard errors over 24 mappings (Student t, 23 degrees of freedom:
 * two-sided 0.1 %) plus 0.01 for BIP's epsilon = 1/32. */
static double mc_cyclic(const char *policy, uint32_t sets, uint32_t ways, uint32_t W, uint64_t seed)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = sets, .ways = ways,
                    .mapping = MAP_RANDOM, .seed = seed};
    repl_config rc;
    repl_config_default(&rc);
    snprintf(rc.name, sizeof rc.name, "%s", policy);
    rc.seed = seed;
    cache c;
    ddio_err e;
    cr_assert_eq(cache_init(&c, &g, &rc, &e), 0, "%s", e.msg);
    long hits = 0, n = 0;
    cache_evicted ev;
    for (int pass = 0; pass < 16; pass++)
        for (uint64_t l = 1; l <= W; l++) {
            int h = cache_access(&c, l, c.full_mask, 1, &ev);
            if (pass >= 8) {        /* steady state only */
                hits += h;
                n++;
            }
        }
    cache_free(&c);
    return (double)hits / (double)n;
}

Test(markov_math_bip, monte_carlo_cyclic_bip)
{
    static const struct { uint32_t sets, ways, T; } cfg[] = {{2048, 2, 4096}, {256, 11, 3072}, {64, 4, 512}};
    enum { S = 24 };
    for (size_t i = 0; i < 3; i++) {
        const char *pol[2] = {"lru", "bip"};
        for (int k = 0; k < 2; k++) {
            double x[S], mean = 0, var = 0;
            for (int s = 0; s < S; s++) {
                x[s] = mc_cyclic(pol[k], cfg[i].sets, cfg[i].ways, cfg[i].T + 1,
                                 0x9E3779B97F4A7C15ull * (uint64_t)(s + 1));
                mean += x[s] / S;
            }
            for (int s = 0; s < S; s++)
                var += (x[s] - mean) * (x[s] - mean) / (S - 1);
            double se = sqrt(var / S);
            double model = k == 0 ? mk_hit_lru(cfg[i].T, cfg[i].ways, cfg[i].sets)
                                  : mk_hit_bip(cfg[i].T, cfg[i].ways, cfg[i].sets);
            double allow = 4.5 * se + (k == 1 ? 0.01 : 0.0);
            cr_expect(fabs(mean - model) <= allow, "cyclic %s C=%u N=%u T=%u: model %.4f sim %.4f (allowed %.4f)",
                      pol[k], cfg[i].sets, cfg[i].ways, cfg[i].T, model, mean, allow);
            cr_log_info("markov_math MC cyclic %s C=%u N=%u T=%u: model %.4f sim %.4f diff %+.4f (SE %.4f)",
                        pol[k], cfg[i].sets, cfg[i].ways, cfg[i].T, model, mean, mean - model, se);
        }
    }
}

/* ---- markov_math_eq4: L2 -> L3* ------------------------------------------- */

Test(markov_math_eq4, hand_values)
{
    /* N_L2 = 1, C_L2 = 2, T_L2 = 2; L3*: LRU, 2 ways, 2 sets, T_L3 = 6.
     * f_NB(t; 1, 1/2) = (1/2)(1/2)^t.
     * Exact form: t = 0..T_L2-N_L2 = 0..1, L3* share left 1 - (t+1)/2:
     *   t=0: 1/2 * S(3) = 1/2 * F_B(1;3,1/2) = 1/4;  t=1: 1/4 * S(0) = 1/4.
     *   -> 1/2.  (Stays in L2: F_B(0;2,1/2) = 1/4; memory: 1/4.)
     * Paper form: t = 0..2, share left 1 - t/2:
     *   1/2 S(6) + 1/4 S(3) + 1/8 S(0) = 1/2 * 7/64 + 1/8 + 1/8 = 39/128. */
    mk_region l3 = {.sets = 2, .ways = 2, .policy = MK_LRU};
    expect_near(mk_l2_to_l3(2, 1, 2, &l3, 6, MK_EQ4_EXACT), 0.5, 1e-15);
    expect_near(mk_l2_to_l3(2, 1, 2, &l3, 6, MK_EQ4_PAPER), 39.0 / 128, 1e-15);
    /* Fewer L2 accesses than L2 ways: the line cannot have left L2. */
    cr_expect_eq(mk_l2_to_l3(3, 4, 64, &l3, 100, MK_EQ4_EXACT), 0.0);
}

/* With a certain L3* survival (T_L3 = 0) the exact form is the probability of
 * leaving L2 at all, 1 - Eq. 2: the L2 column of an eviction matrix sums to 1. */
Test(markov_math_eq4, exact_form_matches_eq2)
{
    mk_region l3 = {.sets = 36864, .ways = 9, .policy = MK_LRU};
    static const double T2s[] = {0, 1, 2, 15, 16, 17, 100, 1000.5, 16384, 20000};
    static const struct { unsigned N; double C; } l2[] = {{1, 2}, {2, 4}, {16, 1024}, {4, 1}};
    for (size_t a = 0; a < 10; a++)
        for (size_t b = 0; b < 4; b++) {
            double T2 = T2s[a];
            double leave = mk_l2_to_l3(T2, l2[b].N, l2[b].C, &l3, 0, MK_EQ4_EXACT);
            double stay = mk_hit_lru(T2, l2[b].N, l2[b].C);
            expect_near(leave + stay, 1.0, 2e-12);
        }
}

/* The paper's printed form counts evictions after the wait: its L2 column can
 * exceed 1.  N_L2 = 2, C_L2 = 4, T_L2 = 4, T_L3 = 0:
 *   stay = F_B(1; 4, 1/4) = 189/256;
 *   paper sum_{t<=4} f_NB(t; 2, 3/4) = P(Bin(6, 1/4) >= 2) = 1909/4096;
 *   column = 4933/4096 > 1.  Exact form: 1 - 189/256 = 67/256. */
Test(markov_math_eq4, paper_form_overcounts)
{
    mk_region l3 = {.sets = 8, .ways = 2, .policy = MK_LRU};
    expect_near(mk_hit_lru(4, 2, 4), 189.0 / 256, 1e-15);
    expect_near(mk_l2_to_l3(4, 2, 4, &l3, 0, MK_EQ4_PAPER), 1909.0 / 4096, 1e-15);
    expect_near(mk_l2_to_l3(4, 2, 4, &l3, 0, MK_EQ4_EXACT), 67.0 / 256, 1e-15);
}

Test(markov_math_eq4, against_naive)
{
    static const long T2s[] = {1, 3, 20, 150, 1200};
    static const struct { long N; double C; } l2[] = {{1, 2}, {2, 8}, {16, 64}, {8, 16}};
    static const double T3s[] = {0, 7, 96.5, 3000};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t c = 0; c < 4; c++)
                for (int paper = 0; paper < 2; paper++) {
                    mk_region l3 = {.sets = 64, .ways = 5, .policy = MK_LRU};
                    long double ref = naive_eq4(T2s[a], l2[b].N, l2[b].C, 5, 64, T3s[c], paper);
                    double got = mk_l2_to_l3((double)T2s[a], (unsigned)l2[b].N, l2[b].C, &l3, T3s[c],
                                                 paper ? MK_EQ4_PAPER : MK_EQ4_EXACT);
                    cr_expect(fabsl(got - ref) <= 2e-12L,
                              "Eq.4 %s T2=%ld N2=%ld C2=%g T3=%g: %.17g vs naive %.17Lg",
                              paper ? "paper" : "exact", T2s[a], l2[b].N, l2[b].C, T3s[c], got, ref);
                }
}

Test(markov_math_eq4, non_integer_T2)
{
    mk_region l3 = {.sets = 64, .ways = 5, .policy = MK_LRU};
    static const double T2s[] = {0.5, 15.25, 16.75, 150.5, 999.9};
    for (size_t i = 0; i < 5; i++) {
        long double ref = naive_eq4_real(T2s[i], 16, 64, 5, 64, 777.7);
        double got = mk_l2_to_l3(T2s[i], 16, 64, &l3, 777.7, MK_EQ4_EXACT);
        cr_expect(fabsl(got - ref) <= 2e-12L, "Eq.4 T2=%g: %.17g vs naive %.17Lg", T2s[i], got, ref);
    }
    /* Between its integer neighbours. */
    double lo = mk_l2_to_l3(150, 16, 64, &l3, 777.7, MK_EQ4_EXACT);
    double hi = mk_l2_to_l3(151, 16, 64, &l3, 777.7, MK_EQ4_EXACT);
    double mid = mk_l2_to_l3(150.5, 16, 64, &l3, 777.7, MK_EQ4_EXACT);
    cr_expect((mid - lo) * (mid - hi) <= 0, "%.17g not between %.17g and %.17g", mid, lo, hi);
}

Test(markov_math_eq4, column_bounds_all_policies)
{
    /* stay (Eq. 2) + move-to-L3* (Eq. 4, exact) <= 1 for every L3* policy. */
    static const mk_policy pol[] = {MK_LRU, MK_BIP, MK_QLRU};
    for (int p = 0; p < 3; p++)
        for (double T2 = 0; T2 <= 6000; T2 += 750.5) {
            mk_region l3 = {.sets = 2048, .ways = 9, .policy = pol[p]};
            double stay = mk_hit_lru(T2, 16, 1024);
            double move = mk_l2_to_l3(T2, 16, 1024, &l3, 40000, MK_EQ4_EXACT);
            cr_expect(move >= 0 && stay + move <= 1 + 1e-12, "%s T2=%g: stay %.17g move %.17g",
                      mk_policy_name(pol[p]), T2, stay, move);
        }
}

/* ---- markov_math_shared: Appendix D.1 --------------------------------------- */

Test(markov_math_shared, eq9_eq10_hand_values)
{
    /* Eq. 9, N=3, a=2, C=2, T=2, T_D=2:
     *   i=0: f(0;2,1/2) F(2;2,1/2) = 1/4 * 1 = 1/4
     *   i=1: f(1;2,1/2) F(1;2,1/2) = 1/2 * 3/4 = 3/8      -> 5/8. */
    expect_near(mk_hit_ddio_overlap(2, 2, 3, 2, 2), 5.0 / 8, 1e-15);
    /* No DDIO traffic: Eq. 9 is Eq. 2 over the whole set. */
    expect_near(mk_hit_ddio_overlap(70, 0, 11, 2, 64), mk_hit_lru(70, 11, 64), 1e-15);
    /* Eq. 10, N=3, a=1, C=2, T=2, T_io=2:
     *   i=0: 1/4 * F(2;2) = 1/4;  i=1: 1/2 * F(1;2) = 3/8;
     *   i=2: 1/4 * F(3-1-min(2,1)=1; 2) = 3/16            -> 13/16. */
    expect_near(mk_hit_l3_overlap(2, 2, 3, 1, 2), 13.0 / 16, 1e-15);
    expect_near(mk_hit_l3_overlap(70, 0, 11, 2, 64), mk_hit_lru(70, 11, 64), 1e-15);
}

static long double naive_eq9(long T, long TD, long N, long a, long double C)
{
    long double s = 0;
    for (long i = 0; i <= a - 1; i++)
        s += naive_pmf(TD, i, 1 / C) * naive_cdf(N - 1 - i, T, 1 / C);
    return s;
}

static long double naive_eq10(long T, long Tio, long N, long a, long double C)
{
    long double s = 0;
    for (long i = 0; i <= Tio; i++)
        s += naive_pmf(Tio, i, 1 / C) * naive_cdf(N - 1 - (i < a ? i : a), T, 1 / C);
    return s;
}

Test(markov_math_shared, eq9_eq10_against_naive)
{
    static const long Ts[] = {0, 5, 80, 900};
    static const long TDs[] = {0, 3, 64, 1500};
    static const struct { long N, a; } na[] = {{11, 2}, {11, 4}, {4, 6}, {20, 2}};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++)
            for (size_t k = 0; k < 4; k++) {
                long T = Ts[i], TD = TDs[j], N = na[k].N, a = na[k].a;
                long double r9 = naive_eq9(T, TD, N, a, 64), r10 = naive_eq10(T, TD, N, a, 64);
                double g9 = mk_hit_ddio_overlap((double)T, (double)TD, (unsigned)N, (unsigned)a, 64);
                double g10 = mk_hit_l3_overlap((double)T, (double)TD, (unsigned)N, (unsigned)a, 64);
                cr_expect(fabsl(g9 - r9) <= 1e-13L, "Eq.9 T=%ld TD=%ld N=%ld a=%ld", T, TD, N, a);
                cr_expect(fabsl(g10 - r10) <= 1e-13L, "Eq.10 T=%ld Tio=%ld N=%ld a=%ld", T, TD, N, a);
            }
    /* Real distances mix floor / ceil of both: bilinear. */
    double v00 = mk_hit_ddio_overlap(80, 64, 11, 2, 64), v01 = mk_hit_ddio_overlap(80, 65, 11, 2, 64);
    double v10 = mk_hit_ddio_overlap(81, 64, 11, 2, 64), v11 = mk_hit_ddio_overlap(81, 65, 11, 2, 64);
    expect_near(mk_hit_ddio_overlap(80.25, 64.5, 11, 2, 64),
                0.75 * 0.5 * (v00 + v01) + 0.25 * 0.5 * (v10 + v11), 1e-15);
}

Test(markov_math_shared, eq12_hand_values)
{
    /* alpha = 0: every way alike, m/n. */
    expect_near(mk_placement_prob(11, 2, 0), 2.0 / 11, 1e-15);
    expect_near(mk_placement_prob(20, 2, 0), 0.1, 1e-15);
    /* alpha = 1: restricted ways always young, unrestricted fill never there. */
    cr_expect_eq(mk_placement_prob(11, 2, 1), 0.0);
    cr_expect_eq(mk_placement_prob(4, 4, 0.3), 1.0);
    cr_expect_eq(mk_placement_prob(4, 0, 0.3), 0.0);
    /* n=3, m=2, alpha=1/2: C(2,1)(1/2) / [C(1,1) + C(2,1)(1/2)] = 1/2. */
    expect_near(mk_placement_prob(3, 2, 0.5), 0.5, 1e-15);
    /* n=5, m=2, alpha=1/2: C(4,1)/8 / [1 + 2/2 + 3/4 + 4/8] = (1/2)/(13/4) = 2/13. */
    expect_near(mk_placement_prob(5, 2, 0.5), 2.0 / 13, 1e-15);
    /* m = 1: the restricted way is the LRU line iff the last n-1 fills were
     * unrestricted: (1-a)^(n-1) / sum_k (1-a)^k. */
    double b = 0.7;
    expect_near(mk_placement_prob(4, 1, 0.3), pow(b, 3) / (1 + b + b * b + b * b * b), 1e-15);
    /* Decreasing in alpha. */
    double prev = 1;
    for (double a = 0; a <= 1; a += 1.0 / 64) {
        double v = mk_placement_prob(11, 2, a);
        cr_expect(v <= prev + 1e-15);
        prev = v;
    }
}

static double naive_eq12(unsigned n, unsigned m, double alpha)
{
    double num = exp(lgamma(n) - lgamma(m) - lgamma(n - m + 1)) * pow(1 - alpha, n - m);
    double den = 0;
    for (unsigned k = 0; k <= n - m; k++)
        den += exp(lgamma(m + k) - lgamma(m) - lgamma(k + 1)) * pow(1 - alpha, k);
    return num / den;
}

Test(markov_math_shared, eq12_against_naive)
{
    for (unsigned n = 1; n <= 64; n++)
        for (unsigned m = 1; m <= n; m++)
            for (double a = 0; a <= 1; a += 0.125)
                expect_near(mk_placement_prob(n, m, a), naive_eq12(n, m, a), 1e-12);
}

/* Appendix D.1's chain on diff-age vectors (x_1..x_m), x_i >= 1, sum <= n,
 * solved with our eigen solver: P(sum = n) must be Eq. 12. */
static double chain_eq12(unsigned n, unsigned m, double alpha)
{
    /* Enumerate compositions with sum <= n by index = mixed radix over 1..n. */
    size_t cap = 1;
    for (unsigned i = 0; i < m; i++)
        cap *= n;
    int *id = malloc(cap * sizeof *id);
    unsigned *vec = malloc(cap * m * sizeof *vec);
    size_t ns = 0;
    for (size_t c = 0; c < cap; c++) {
        size_t r = c;
        unsigned s = 0;
        for (unsigned i = 0; i < m; i++) {
            vec[c * m + i] = (unsigned)(r % n) + 1;
            s += vec[c * m + i];
            r /= n;
        }
        id[c] = s <= n ? (int)ns++ : -1;
    }
    double *P = calloc(ns * ns, sizeof *P);
    for (size_t c = 0; c < cap; c++) {
        if (id[c] < 0)
            continue;
        const unsigned *x = &vec[c * m];
        unsigned s = 0;
        for (unsigned i = 0; i < m; i++)
            s += x[i];
        /* Restricted fill (or any fill when the oldest line is restricted):
         * (1, x_1, ..., x_{m-1}).  Otherwise the restricted lines age: x_1+1. */
        size_t to_new = 0, to_age = 0, mul = 1;
        for (unsigned i = 0; i < m; i++) {
            unsigned nv = i == 0 ? 1 : x[i - 1];
            unsigned av = i == 0 ? x[0] + 1 : x[i];
            to_new += (nv - 1) * mul;
            to_age += (av - 1) * mul;
            mul *= n;
        }
        int j = id[c];
        if (s == n) {
            P[(size_t)id[to_new] * ns + (size_t)j] += 1.0;
        } else {
            P[(size_t)id[to_new] * ns + (size_t)j] += alpha;
            P[(size_t)id[to_age] * ns + (size_t)j] += 1 - alpha;
        }
    }
    double *x = malloc(ns * sizeof *x);
    ddio_err e;
    cr_assert_eq(mk_stationary_eigen(P, ns, 1e-9, x, NULL, &e), 0, "%s", e.msg);
    double p = 0;
    for (size_t c = 0; c < cap; c++) {
        if (id[c] < 0)
            continue;
        unsigned s = 0;
        for (unsigned i = 0; i < m; i++)
            s += vec[c * m + i];
        if (s == n)
            p += x[id[c]];
    }
    free(id);
    free(vec);
    free(P);
    free(x);
    return p;
}

Test(markov_math_shared, eq12_is_the_chains_stationary_mass)
{
    static const struct { unsigned n, m; } nm[] = {{5, 2}, {6, 3}, {11, 2}, {8, 1}};
    static const double alphas[] = {0.1, 0.5, 0.9};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 3; j++)
            expect_near(chain_eq12(nm[i].n, nm[i].m, alphas[j]),
                        mk_placement_prob(nm[i].n, nm[i].m, alphas[j]), 1e-10);
}

/* One n-way LRU set; unique lines, each restricted to the m leftmost ways
 * (the high bits, as 0x600 on the 11-way part) with probability alpha.
 * Returns the fraction of unrestricted fills placed in the restricted ways
 * and, through *se, its batch-means standard error (consecutive fills are
 * correlated through the set's age order, so the binomial SE would be too
 * small). */
static double mc_placement(uint32_t n, uint32_t m, double alpha, int batches, int per_batch,
                           uint64_t seed, double *se)
{
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = 1, .ways = n, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    cache c;
    ddio_err e;
    cr_assert_eq(cache_init(&c, &g, &rc, &e), 0, "%s", e.msg);
    uint64_t restricted = ((1ull << m) - 1) << (n - m);
    ddio_rng rng;
    ddio_rng_seed(&rng, seed);
    cache_evicted ev;
    uint64_t next = 1;
    for (int i = 0; i < 50 * (int)n; i++) {     /* warm-up: fill and mix the set */
        uint64_t mask = ddio_rng_uniform(&rng) < alpha ? restricted : c.full_mask;
        cache_fill(&c, 0, mask, next++, 0, &ev);
    }
    double sum = 0, sum2 = 0;
    long tot_in = 0, tot_un = 0;
    for (int b = 0; b < batches; b++) {
        long in = 0, un = 0;
        for (int i = 0; i < per_batch; i++) {
            int restr = ddio_rng_uniform(&rng) < alpha;
            uint32_t w = cache_fill(&c, 0, restr ? restricted : c.full_mask, next++, 0, &ev);
            if (!restr) {
                un++;
                in += (restricted >> w) & 1;
            }
        }
        double r = un ? (double)in / (double)un : 0;
        sum += r;
        sum2 += r * r;
        tot_in += in;
        tot_un += un;
    }
    cache_free(&c);
    double mean = sum / batches;
    *se = sqrt((sum2 / batches - mean * mean) / (batches - 1));
    return (double)tot_in / (double)tot_un;
}

Test(markov_math_shared, eq12_monte_carlo_cache_sim)
{
    static const struct { uint32_t n, m; double alpha; } cfg[] = {
        {11, 2, 0.0}, {11, 2, 0.2}, {11, 2, 0.5}, {11, 2, 0.8}, {4, 2, 0.3}, {20, 2, 0.1}, {16, 5, 0.25},
    };
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        double se;
        double sim = mc_placement(cfg[i].n, cfg[i].m, cfg[i].alpha, 40, 10000, 0xD10 + i, &se);
        double model = mk_placement_prob(cfg[i].n, cfg[i].m, cfg[i].alpha);
        cr_expect(fabs(sim - model) <= 4 * se + 1e-4,
                  "Eq.12 vs cache sim n=%u m=%u alpha=%.2f: model %.5f sim %.5f (4 SE = %.5f)",
                  cfg[i].n, cfg[i].m, cfg[i].alpha, model, sim, 4 * se);
        cr_log_info("markov_math MC Eq.12 n=%u m=%u alpha=%.2f: model %.5f sim %.5f diff %+.5f (SE %.5f)",
                    cfg[i].n, cfg[i].m, cfg[i].alpha, model, sim, sim - model, se);
    }
}

/* ---- markov_math_solve ------------------------------------------------------ */

Test(markov_math_solve, two_state_chain)
{
    /* Column-stochastic: leave state 0 w.p. a = 0.3, leave state 1 w.p. b = 0.1.
     * Stationary: (b, a)/(a+b) = (1/4, 3/4). */
    const double P[4] = {0.7, 0.1,
                         0.3, 0.9};
    double x[2];
    mk_solve_info info;
    ddio_err e;
    cr_assert_eq(mk_stationary_eigen(P, 2, 1e-9, x, &info, &e), 0, "%s", e.msg);
    expect_near(x[0], 0.25, 1e-14);
    expect_near(x[1], 0.75, 1e-14);
    expect_near(info.eigenvalue_re, 1.0, 1e-14);
    cr_expect_eq(info.unit_eigenvalues, 1);
    cr_expect(info.residual < 1e-14);
    cr_assert_eq(mk_stationary_lu(P, 2, 1e-9, x, &info, &e), 0, "%s", e.msg);
    expect_near(x[0], 0.25, 1e-14);
    expect_near(x[1], 0.75, 1e-14);
    mk_power_opts o = {.tol = 1e-13, .max_iter = 1000, .lazy = 0};
    cr_assert_eq(mk_stationary_power(P, 2, &o, x, &info, &e), 0, "%s", e.msg);
    expect_near(x[0], 0.25, 1e-12);
    expect_near(x[1], 0.75, 1e-12);
    /* Second eigenvalue 1 - a - b = 0.6: the error shrinks 0.6x per step. */
    cr_expect(info.iterations > 10 && info.iterations < 100, "%d iterations", info.iterations);
    cr_expect(info.residual <= 1e-13);
}

static void random_stochastic(double *P, size_t n, ddio_rng *r, double sparsity)
{
    for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (size_t i = 0; i < n; i++) {
            double v = ddio_rng_uniform(r) < sparsity ? 0.0 : ddio_rng_uniform(r);
            P[i * n + j] = v;
            s += v;
        }
        if (s == 0) {
            P[j * n + j] = 1;
            s = 1;
        }
        for (size_t i = 0; i < n; i++)
            P[i * n + j] /= s;
    }
}

Test(markov_math_solve, eigen_vs_power_random)
{
    static const size_t ns[] = {3, 17, 60, 250};
    ddio_rng r;
    ddio_rng_seed(&r, 20220606);
    for (size_t t = 0; t < 4; t++) {
        size_t n = ns[t];
        double *P = malloc(n * n * sizeof *P), *xe = malloc(n * sizeof *xe), *xp = malloc(n * sizeof *xp);
        random_stochastic(P, n, &r, 0.5);
        ddio_err e;
        mk_solve_info ie, ip;
        cr_assert_eq(mk_check_column_stochastic(P, n, 1e-12, &e), 0, "%s", e.msg);
        cr_assert_eq(mk_stationary_eigen(P, n, 1e-9, xe, &ie, &e), 0, "%s", e.msg);
        mk_power_opts o = {.tol = 1e-13, .max_iter = 100000, .lazy = 0};
        cr_assert_eq(mk_stationary_power(P, n, &o, xp, &ip, &e), 0, "%s", e.msg);
        double *xl = malloc(n * sizeof *xl);
        cr_assert_eq(mk_stationary_lu(P, n, 1e-9, xl, NULL, &e), 0, "%s", e.msg);
        double d = 0, s = 0, dl = 0;
        for (size_t i = 0; i < n; i++) {
            dl += fabs(xe[i] - xl[i]);
            d += fabs(xe[i] - xp[i]);
            s += xe[i];
            cr_expect(xe[i] >= 0);
        }
        expect_near(s, 1.0, 1e-12);
        cr_expect(d < 1e-10, "n=%zu: ||x_eig - x_pow||_1 = %.3g", n, d);
        cr_expect(dl < 1e-12, "n=%zu: ||x_eig - x_lu||_1 = %.3g", n, dl);
        free(xl);
        cr_expect(ie.residual < 1e-12, "n=%zu: eigen residual %.3g", n, ie.residual);
        cr_log_info("markov_math solve n=%zu: |eig-pow|_1 %.2e, eigen residual %.2e, power %d its residual %.2e",
                    n, d, ie.residual, ip.iterations, ip.residual);
        free(P);
        free(xe);
        free(xp);
    }
}

/* Eq. 1's matrix is block-cyclic: plain power iteration never settles on
 * it; the eigen solver and lazy power iteration do. */
Test(markov_math_solve, periodic_chain)
{
    const double swap[4] = {0, 1,
                            1, 0};
    const double start[2] = {1, 0};
    double x[2];
    ddio_err e;
    mk_solve_info info;
    mk_power_opts o = {.tol = 1e-12, .max_iter = 500, .lazy = 0, .x0 = start};
    cr_expect_eq(mk_stationary_power(swap, 2, &o, x, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_NOCONV);
    cr_expect(strstr(e.msg, "residual") != NULL, "%s", e.msg);
    cr_expect(strstr(e.msg, "500 iterations") != NULL, "%s", e.msg);
    cr_expect_eq(info.iterations, 500);
    expect_near(info.residual, 2.0, 1e-15);
    o.lazy = 0.5;
    cr_assert_eq(mk_stationary_power(swap, 2, &o, x, &info, &e), 0, "%s", e.msg);
    expect_near(x[0], 0.5, 1e-12);
    cr_assert_eq(mk_stationary_eigen(swap, 2, 1e-9, x, &info, &e), 0, "%s", e.msg);
    expect_near(x[0], 0.5, 1e-14);
    expect_near(x[1], 0.5, 1e-14);
    cr_assert_eq(mk_stationary_lu(swap, 2, 1e-9, x, &info, &e), 0, "%s", e.msg);
    expect_near(x[0], 0.5, 1e-15);

    /* A 3-block cycle as in Eq. 1 (blocks of 2 states): the stationary vector
     * is 1/3 of each block's distribution, p_{k+1} = P_k p_k. */
    const double A[4] = {0.9, 0.2, 0.1, 0.8}, B[4] = {0.5, 0.0, 0.5, 1.0}, C[4] = {0.3, 0.6, 0.7, 0.4};
    double M[36] = {0};
    const double *blk[3] = {C, A, B};   /* block row k receives from block k-1 */
    for (int k = 0; k < 3; k++) {
        int from = (k + 2) % 3;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                M[(2 * k + i) * 6 + 2 * from + j] = blk[k][i * 2 + j];
    }
    double y[6];
    cr_assert_eq(mk_stationary_eigen(M, 6, 1e-9, y, &info, &e), 0, "%s", e.msg);
    cr_expect_eq(info.unit_eigenvalues, 1);
    /* Check p_1 = A p_0, p_2 = B p_1, p_0 = C p_2, each block summing to 1/3. */
    for (int k = 0; k < 3; k++) {
        const double *Pk = k == 0 ? A : k == 1 ? B : C;
        const double *in = &y[2 * k], *outv = &y[2 * ((k + 1) % 3)];
        expect_near(in[0] + in[1], 1.0 / 3, 1e-13);
        expect_near(Pk[0] * in[0] + Pk[1] * in[1], outv[0], 1e-13);
        expect_near(Pk[2] * in[0] + Pk[3] * in[1], outv[1], 1e-13);
    }
    /* From a point mass the block masses rotate forever.  (From the uniform
     * vector they would not: each block already holds 1/3.) */
    const double e0[6] = {1, 0, 0, 0, 0, 0};
    o.lazy = 0;
    o.x0 = e0;
    o.max_iter = 300;
    double z[6];
    cr_expect_eq(mk_stationary_power(M, 6, &o, z, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_NOCONV);
    cr_assert_eq(mk_stationary_lu(M, 6, 1e-9, z, &info, &e), 0, "%s", e.msg);
    for (int i = 0; i < 6; i++)
        expect_near(z[i], y[i], 1e-13);
}

/* A 3-state chain: 0 <-> 1 communicate (0 -> 1 always, 1 -> 0 or 1 with
 * 1/2 each), 2 is absorbing and nothing leads into it.  From 0 the unique
 * answer is (1/3, 2/3, 0); from 2 it is (0, 0, 1). */
Test(markov_math_solve, eigen_from_a_start_state)
{
    /* Column j = from state j. */
    const double P[9] = {0, 0.5, 0,
                         1, 0.5, 0,
                         0, 0,   1};
    unsigned char reach[3];
    cr_expect_eq(mk_reachable(P, 3, 0, reach), 2);
    cr_expect(reach[0] && reach[1] && !reach[2]);
    cr_expect_eq(mk_reachable(P, 3, 2, reach), 1);
    double x[3];
    ddio_err e;
    mk_solve_info info;
    cr_assert_eq(mk_stationary_eigen_from(P, 3, 0, 1e-9, x, &info, &e), 0, "%s", e.msg);
    cr_expect_eq(info.unit_eigenvalues, 1);
    expect_near(x[0], 1.0 / 3, 1e-14);
    expect_near(x[1], 2.0 / 3, 1e-14);
    cr_expect_eq(x[2], 0.0);
    cr_assert_eq(mk_stationary_eigen_from(P, 3, 2, 1e-9, x, &info, &e), 0, "%s", e.msg);
    expect_near(x[2], 1.0, 1e-15);
    /* info is optional, as for the other solvers. */
    cr_assert_eq(mk_stationary_eigen_from(P, 3, 0, 1e-9, x, NULL, &e), 0, "%s", e.msg);
    expect_near(x[1], 2.0 / 3, 1e-14);
    /* A start that can end in either of two classes: not unique, said. */
    const double Q[9] = {0,   0, 0,
                         0.5, 1, 0,
                         0.5, 0, 1};
    cr_assert_eq(mk_stationary_eigen_from(Q, 3, 0, 1e-9, x, &info, &e), 0, "%s", e.msg);
    cr_expect_eq(info.unit_eigenvalues, 2);
    cr_expect_eq(mk_stationary_eigen_from(Q, 3, 3, 1e-9, x, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
}

/* Two closed classes: no unique stationary vector.  LU finds the system
 * singular (exit 3); the eigen solver returns one valid vector and says
 * that eigenvalue 1 is double. */
Test(markov_math_solve, reducible_chain)
{
    const double I2[4] = {1, 0, 0, 1};
    double x[2];
    ddio_err e;
    mk_solve_info info;
    cr_expect_eq(mk_stationary_lu(I2, 2, 1e-9, x, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_NOCONV);
    cr_expect(strstr(e.msg, "not unique") != NULL, "%s", e.msg);
    cr_assert_eq(mk_stationary_eigen(I2, 2, 1e-9, x, &info, &e), 0, "%s", e.msg);
    cr_expect_eq(info.unit_eigenvalues, 2);
    expect_near(x[0] + x[1], 1.0, 1e-15);
}

Test(markov_math_solve, non_convergence_and_bad_input)
{
    /* Slow mixing (second eigenvalue 0.999) and a small cap: exit 3. */
    const double P[4] = {0.9995, 0.0005, 0.0005, 0.9995};
    const double start[2] = {1, 0};
    double x[2];
    ddio_err e;
    mk_solve_info info;
    mk_power_opts o = {.tol = 1e-12, .max_iter = 20, .lazy = 0, .x0 = start};
    cr_expect_eq(mk_stationary_power(P, 2, &o, x, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_NOCONV);
    /* x = (1/2 + d, 1/2 - d): residual 0.002 d, d = 0.5 * 0.999^19 after 20 products. */
    expect_near(info.residual, 0.001 * pow(0.999, 19), 1e-12);
    cr_expect_eq(info.iterations, 20);
    /* Bad options: exit 2. */
    o.lazy = 1.0;
    cr_expect_eq(mk_stationary_power(P, 2, &o, x, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    /* A non-stochastic matrix is refused by both solvers with exit 2. */
    const double bad[4] = {0.5, 0.5, 0.6, 0.5};
    o.lazy = 0;
    cr_expect_eq(mk_stationary_power(bad, 2, &o, x, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect_eq(mk_stationary_eigen(bad, 2, 1e-9, x, &info, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect(strstr(e.msg, "column 0 sums to 1.1") != NULL, "%s", e.msg);
}

Test(markov_math_solve, column_stochastic_checker)
{
    ddio_err e;
    const double ok[9] = {0.2, 0, 1, 0.3, 0.5, 0, 0.5, 0.5, 0};
    cr_expect_eq(mk_check_column_stochastic(ok, 3, 1e-12, &e), 0);
    const double sum_off[4] = {0.5, 0.5, 0.5, 0.4};    /* column 1 sums to 0.9 */
    cr_expect_eq(mk_check_column_stochastic(sum_off, 2, 1e-12, &e), -1);
    cr_expect_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_expect(strstr(e.msg, "column 1 sums to 0.9") != NULL, "%s", e.msg);
    /* Within tolerance passes, outside fails. */
    const double near[4] = {0.5, 0.5, 0.5 + 1e-10, 0.5};
    cr_expect_eq(mk_check_column_stochastic(near, 2, 1e-9, &e), 0);
    cr_expect_eq(mk_check_column_stochastic(near, 2, 1e-12, &e), -1);
    const double neg[4] = {1.5, 0, -0.5, 1};           /* sums to 1 but not probabilities */
    cr_expect_eq(mk_check_column_stochastic(neg, 2, 1e-12, &e), -1);
    cr_expect(strstr(e.msg, "entry (0, 0) = 1.5") != NULL, "%s", e.msg);
    const double nan_[4] = {NAN, 0, 1, 1};
    cr_expect_eq(mk_check_column_stochastic(nan_, 2, 1e-12, &e), -1);
    cr_expect(strstr(e.msg, "entry (0, 0)") != NULL, "%s", e.msg);
    cr_expect_eq(mk_check_column_stochastic(ok, 0, 1e-12, &e), -1);
    /* Residual helper: the 2-state chain at its stationary vector is 0, at
     * (1, 0) it is |0.7-1| + |0.3-0| = 0.6. */
    const double P[4] = {0.7, 0.1, 0.3, 0.9};
    const double xs[2] = {0.25, 0.75}, x0[2] = {1, 0};
    expect_near(mk_residual_l1(P, 2, xs), 0.0, 1e-16);
    expect_near(mk_residual_l1(P, 2, x0), 0.6, 1e-15);
}
