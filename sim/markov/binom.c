/* binom.c - accurate binomial / negative binomial pmfs and the outward
 * ratio-walk that sums them (see binom.h for why not gsl_ran_binomial_pdf). */
#include "sim/markov/binom.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

#define LN_2PI 1.837877066409345483560659472811235279722794947275566825634

/* stirlerr(n) = ln(n!) - ln(sqrt(2 pi n) (n/e)^n), the error of Stirling's
 * formula; integers 1..15 from a 40-digit evaluation, the asymptotic series
 * above (5 terms at n = 16 leave ~1e-16). */
static const double stirlerr_small[16] = {
    0.0, /* unused: n = 0 never reaches stirlerr */
    0.08106146679532725821967026, 0.04134069595540929409382208,
    0.02767792568499833914878929, 0.02079067210376509311152277,
    0.01664469118982119216319487, 0.01387612882307074799874573,
    0.01189670994589177009505572, 0.01041126526197209649747857,
    0.009255462182712732917728637, 0.008330563433362871256469319,
    0.007573675487951840794972024, 0.006942840107209529865664153,
    0.006408994188004207068439631, 0.005951370112758847735624416,
    0.00555473355196280137103869,
};

static double stirlerr(double n)
{
    assert(n >= 1 && n == floor(n));
    if (n <= 15)
        return stirlerr_small[(int)n];
    const double S0 = 1.0 / 12, S1 = 1.0 / 360, S2 = 1.0 / 1260, S3 = 1.0 / 1680, S4 = 1.0 / 1188;
    double nn = n * n;
    if (n > 500)
        return (S0 - S1 / nn) / n;
    if (n > 80)
        return (S0 - (S1 - S2 / nn) / nn) / n;
    if (n > 35)
        return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
    return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

/* bd0(x, np) = x ln(x/np) + np - x, the deviance term, without the
 * cancellation of the direct form when x is close to np (series in
 * v = (x-np)/(x+np)). */
static double bd0(double x, double np)
{
    if (fabs(x - np) < 0.1 * (x + np)) {
        double v = (x - np) / (x + np);
        double s = (x - np) * v;
        double ej = 2 * x * v;
        v *= v;
        for (int j = 1; j < 1000; j++) {
            ej *= v;
            double s1 = s + ej / (2 * j + 1);
            if (s1 == s)
                return s1;
            s = s1;
        }
    }
    return x * log(x / np) + np - x;
}

/* The binomial pmf with q = 1 - p given separately: a plain product for
 * small n or small k, else Loader's saddle point. */
static double binom_pmf_pq(double k, double n, double p, double q)
{
    if (k < 0 || k > n)
        return 0.0;
    if (p == 0)
        return k == 0 ? 1.0 : 0.0;
    if (q == 0)
        return k == n ? 1.0 : 0.0;
    if (k == 0) {
        if (n == 0)
            return 1.0;
        return exp(p < 0.1 ? -bd0(n, n * q) - n * p : n * log(q));
    }
    if (k == n)
        return exp(q < 0.1 ? -bd0(n, n * p) - n * q : n * log(p));
    if (n <= 64) {
        /* Small n (a set's worth): the plain product is as accurate and
         * exact for dyadic p, so hand-computed values come out exactly. */
        double c = 1.0, kk = k < n - k ? k : n - k;
        for (double i = 1; i <= kk; i++)
            c = c * (n - kk + i) / i;
        return c * pow(p, k) * pow(q, n - k);
    }
    if (k <= 64) {
        /* Large n, a way-count k (the model's usual case): the product
         * C(n,k) p^k = prod_{i<=k} (n-k+i) p / i (relative error ~k eps) times
         * q^(n-k) = exp((n-k) log1p(-p)) (relative error ~|exponent| eps,
         * below 2e-13 while it does not underflow).  About 3x cheaper than
         * the saddle point. */
        double c = 1.0;
        for (double i = 1; i <= k; i++)
            c *= (n - k + i) / i * p;
        double y = (n - k) * log1p(-p);
        if (c > 0 && isfinite(c) && y > -700)
            return c * exp(y);
    }
    double lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n * p) - bd0(n - k, n * q);
    double lf = LN_2PI + log(k) + log1p(-k / n);
    return exp(lc - 0.5 * lf);
}

double mk_binom_pmf(double k, double n, double p)
{
    assert(n >= 0 && n == floor(n) && k == floor(k));
    assert(p >= 0 && p <= 1);
    return binom_pmf_pq(k, n, p, 1 - p);
}

double mk_negbin_pmf(double k, double r, double p)
{
    assert(r >= 1 && r == floor(r) && k == floor(k));
    assert(p >= 0 && p < 1);
    if (k < 0)
        return 0.0;
    /* C(k+r-1, k) q^r p^k = r/(k+r) * C(k+r, r) q^r p^k = r/(k+r) f_B(r; k+r, q). */
    return r / (k + r) * binom_pmf_pq(r, k + r, 1 - p, p);
}

/* ---- outward walk ------------------------------------------------------ */

typedef struct dist {
    int negbin;     /* 0: Bin(n, p); 1: NB(r = n, p) */
    double n, p, q;
} dist;

static double dist_pmf(const dist *d, double k)
{
    return d->negbin ? mk_negbin_pmf(k, d->n, d->p) : binom_pmf_pq(k, d->n, d->p, d->q);
}

/* f(k+1) / f(k); non-increasing in k for both families. */
static double ratio_up(const dist *d, double k)
{
    if (d->negbin)
        return (k + d->n) / (k + 1) * d->p;
    return (d->n - k) / (k + 1) * (d->p / d->q);
}

/* f(k-1) / f(k), k >= 1; non-increasing as k decreases. */
static double ratio_down(const dist *d, double k)
{
    if (d->negbin)
        return k / ((k + d->n - 1) * d->p);
    return k / (d->n - k + 1) * (d->q / d->p);
}

static double dist_mode(const dist *d)
{
    if (d->negbin)
        return d->n > 1 ? floor((d->n - 1) * d->p / d->q) : 0.0;
    double m = floor((d->n + 1) * d->p);
    return m > d->n ? d->n : m;
}

static double weight(mk_weight_fn w, void *ctx, double k)
{
    if (!w)
        return 1.0;
    double x = w(k, ctx);
    assert(x >= 0 && x <= 1 + 1e-12 && "a weight outside [0, 1] voids the truncation bound");
    return x;
}

/* sum_{k=a}^{b} w(k) f(k) from the (clamped) mode outward.  The pmf
 * ratio in the walking direction only decreases, so once it is r < 1 the
 * terms not yet summed total at most f(k) r / (1 - r); each side stops when
 * that bound is below tol/2 or below rel times the sum so far (rel = 1e-17
 * is "to double precision").  Starting at the largest term of the range
 * also means no underflowed start can hide the mass. */
static double walk_from(const dist *d, double k0, double f0, double a, double b,
                        mk_weight_fn w, void *ctx, double tol, double rel)
{
    if (f0 == 0)
        return 0.0;     /* the largest term in the range underflows: so does the sum */
    double half = tol / 2;
    double sum = weight(w, ctx, k0) * f0;

    double f = f0;
    for (double k = k0; k < b; k++) {
        double r = ratio_up(d, k);
        if (r < 1) {
            double rest = f * r / (1 - r);
            if (rest < half || rest <= rel * sum || f * r == 0)
                break;
        }
        f *= r;
        sum += weight(w, ctx, k + 1) * f;
    }
    f = f0;
    for (double k = k0; k > a; k--) {
        double r = ratio_down(d, k);
        if (r < 1) {
            double rest = f * r / (1 - r);
            if (rest < half || rest <= rel * sum || f * r == 0)
                break;
        }
        f *= r;
        sum += weight(w, ctx, k - 1) * f;
    }
    return sum;
}

static double walk(const dist *d, double a, double b, mk_weight_fn w, void *ctx, double tol,
                   double rel)
{
    double top = d->negbin ? INFINITY : d->n;
    a = a < 0 ? 0 : ceil(a);
    b = b > top ? top : floor(b);
    if (!(a <= b))
        return 0.0;
    double k0 = dist_mode(d);
    k0 = k0 < a ? a : k0 > b ? b : k0;
    return walk_from(d, k0, dist_pmf(d, k0), a, b, w, ctx, tol, rel);
}

double mk_binom_wsum(double n, double p, double a, double b,
                         mk_weight_fn w, void *ctx, double tol)
{
    assert(n >= 0 && n == floor(n) && p >= 0 && p <= 1 && tol >= 0);
    if (p == 0 || p == 1) {
        double k = p == 0 ? 0 : n;     /* all mass on one point */
        return (k >= a && k <= b) ? weight(w, ctx, k) : 0.0;
    }
    dist d = {.negbin = 0, .n = n, .p = p, .q = 1 - p};
    return walk(&d, a, b, w, ctx, tol, 0.0);
}

double mk_negbin_wsum(double r, double p, double a, double b,
                          mk_weight_fn w, void *ctx, double tol)
{
    assert(r >= 1 && r == floor(r) && p >= 0 && p < 1 && tol >= 0);
    if (p == 0)
        return (0 >= a && 0 <= b) ? weight(w, ctx, 0) : 0.0;
    dist d = {.negbin = 1, .n = r, .p = p, .q = 1 - p};
    return walk(&d, a, b, w, ctx, tol, 0.0);
}

/* Relative stop "to double precision" for sums that are not truncated. */
#define REL_EXACT 1e-17

double mk_binom_cdf_pmf(double k, double n, double p, double *pmf_k)
{
    assert(n >= 0 && n == floor(n) && p >= 0 && p <= 1);
    k = floor(k);
    double fk = 0.0, F;
    if (k < 0) {
        F = 0.0;
    } else if (k >= n) {
        F = 1.0;
        fk = k == n ? mk_binom_pmf(n, n, p) : 0.0;
    } else if (p == 0 || p == 1) {
        F = p == 0 ? 1.0 : 0.0;
        fk = (p == 0 && k == 0) ? 1.0 : 0.0;
    } else if (k <= 64 && n > 64 && n * log1p(-p) > -700) {
        /* Forward from f(0) = q^n: k+1 positive terms, no bound checks. */
        double f = exp(n * log1p(-p)), pq = p / (1 - p);
        F = f;
        for (double i = 0; i < k; i++) {
            f *= (n - i) / (i + 1) * pq;
            F += f;
        }
        fk = f;
    } else {
        dist d = {.negbin = 0, .n = n, .p = p, .q = 1 - p};
        double m = dist_mode(&d);
        if (m >= k) {
            /* f(k) is the largest term: start there, walk down. */
            fk = binom_pmf_pq(k, n, p, d.q);
            F = walk_from(&d, k, fk, 0, k, NULL, NULL, 0.0, REL_EXACT);
        } else {
            /* The mode is inside [0, k]: every term from it up to k (k is a
             * way count in the model), so f(k) comes out of the sum; the
             * terms below the mode by the walk. */
            double fm = binom_pmf_pq(m, n, p, d.q), f = fm, up = 0;
            for (double i = m; i < k; i++) {
                f *= ratio_up(&d, i);
                up += f;
            }
            fk = f;
            F = up + walk_from(&d, m, fm, 0, m, NULL, NULL, 0.0, REL_EXACT);
        }
    }
    if (pmf_k)
        *pmf_k = fk;
    return F > 1 ? 1.0 : F;
}

double mk_binom_cdf(double k, double n, double p)
{
    return mk_binom_cdf_pmf(k, n, p, NULL);
}

double mk_binom_sf(double k, double n, double p)
{
    assert(n >= 0 && n == floor(n) && p >= 0 && p <= 1);
    k = floor(k);
    if (k < 0)
        return 1.0;
    if (k >= n)
        return 0.0;
    if (p == 0 || p == 1)
        return p == 1 ? 1.0 : 0.0;
    dist d = {.negbin = 0, .n = n, .p = p, .q = 1 - p};
    if (dist_mode(&d) <= k + 1)
        return walk(&d, k + 1, n, NULL, NULL, 0.0, REL_EXACT);   /* a decreasing tail */
    double F = mk_binom_cdf(k, n, p);                          /* <= about 1/2 here */
    return F >= 1 ? 0.0 : 1 - F;
}
