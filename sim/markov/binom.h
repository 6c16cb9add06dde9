/* binom.h - binomial and negative binomial probabilities for the Markov
 * model's eviction formulas (paper, Appendix C: Eq. 5-8).
 *
 * The model asks for f_B(k; T, 1/C) with T (a stack reuse distance) in the
 * tens of thousands to millions and C (sets) in the tens of thousands, and
 * sums it against weights over long ranges (Eq. 4).  Two things make that
 * accurate and fast:
 *   - one pmf value is computed with Loader's saddle-point form ("Fast and
 *     accurate computation of binomial probabilities", 2000; the algorithm
 *     behind R's dbinom), relative error <= 3e-13 for any n (measured against
 *     40-digit values); small n and the usual k <= 64 use a plain product
 *     (same accuracy, 3x faster).  The textbook exp(lnchoose + k log p +
 *     (n-k) log q) (gsl_ran_binomial_pdf) subtracts log-factorials of size
 *     n log n: 3e-10 relative at n = 1e5, 2e-8 at 1e7; gsl_cdf_binomial_P
 *     (incomplete beta) is off by 2.4e-5 relative at n = 1e6, p = 1/36864,
 *     k = 0, and by 2e-8 near the mean at n = 1e7; so neither is used;
 *   - every other term of a sum comes from the exact ratio of neighbouring
 *     terms, walking outward from the mode; a walk stops when a geometric
 *     bound on everything it has not summed yet drops below a tolerance
 *     (the pmf ratio is monotone, so the bound is rigorous).
 *
 * Parameters are doubles holding integer values (n up to 2^53), so the
 * callers' real-valued reuse distances are rounded by the caller, not here:
 * see evict.h for how a non-integer T is handled. */
#ifndef DDIOSIM_MARKOV_BINOM_H
#define DDIOSIM_MARKOV_BINOM_H

/* Truncation tolerance of the infinite / long sums: the total probability
 * mass left out (times weights <= 1) is below this. */
#define MK_TAIL_TOL 1e-12

/* f_B(k; n, p) = C(n,k) p^k (1-p)^(n-k), Eq. 5; 0 outside 0 <= k <= n.
 * k and n integer-valued, n >= 0, 0 <= p <= 1. */
double mk_binom_pmf(double k, double n, double p);

/* F_B(k; n, p) = sum_{i<=k} f_B(i; n, p), Eq. 6, with Eq. 7's extension
 * (1 for k >= n) and 0 for k < 0.  Summed to double precision, no
 * truncation (the model's k is a way count: a few dozen terms at most). */
double mk_binom_cdf(double k, double n, double p);

/* The same, also returning f_B(k; n, p) through *pmf_k (may be NULL): the
 * pair gives F_B(k; n+1, p) = F_B(k; n, p) - p f_B(k; n, p) for free. */
double mk_binom_cdf_pmf(double k, double n, double p, double *pmf_k);

/* Upper tail P(X > k) = 1 - F_B(k; n, p), to relative precision even when
 * it is tiny (summed directly instead of subtracted from 1). */
double mk_binom_sf(double k, double n, double p);

/* f_NB(k; r, p) = C(k+r-1, k) (1-p)^r p^k, Eq. 8: probability of k
 * successes (probability p each) before the r-th failure.  r >= 1. */
double mk_negbin_pmf(double k, double r, double p);

/* Weight of a term in a weighted sum; must lie in [0, 1]. */
typedef double (*mk_weight_fn)(double k, void *ctx);

/* sum_{k=a}^{b} w(k) f_B(k; n, p), k integer (a, b are clamped to [0, n];
 * b may be INFINITY).  w == NULL means w = 1.  Terms are summed outward from
 * the mode of the range; the mass not summed is < tol (tol = 0: sum until
 * the terms underflow or the range ends). */
double mk_binom_wsum(double n, double p, double a, double b,
                         mk_weight_fn w, void *ctx, double tol);

/* sum_{k=a}^{b} w(k) f_NB(k; r, p), same contract (b may be INFINITY). */
double mk_negbin_wsum(double r, double p, double a, double b,
                          mk_weight_fn w, void *ctx, double tol);

#endif
