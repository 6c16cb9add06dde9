/* evict.c - Eq. 2, 3, 4, 9, 10, 12 of the paper at integer reuse distances,
 * and their linear mixing for real ones (see evict.h). */
#include "sim/markov/evict.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

const char *mk_policy_name(mk_policy p)
{
    switch (p) {
    case MK_LRU: return "lru";
    case MK_BIP: return "bip";
    case MK_QLRU: return "qlru";
    }
    return "?";
}

static void check_T(double T)
{
    assert(T >= 0 && isfinite(T) && "reuse distance must be finite and >= 0");
}

/* Split a real distance into floor and the weight of floor + 1. */
static double split(double T, double *w)
{
    check_T(T);
    double t0 = floor(T);
    *w = T - t0;
    return t0;
}

/* ---- Eq. 2 / Eq. 3 at integer T ---------------------------------------- */

/* Cuts of EQ3_SHORT_TERMS terms or fewer (QLRU, the literal "k <= 3") are
 * summed by the pmf ratio from f_B(N; n+1, p), which the CDF gives for free. */
#define EQ3_SHORT_TERMS 64

/* Eq. 3 with its sum cut at k_last (k_last < N: Eq. 2) at the two integers
 * n and n+1 (out[0], out[1]), which is what a real T needs.
 *
 * The sum has a closed form.  Since C(n,k)/(k+1) = C(n+1,k+1)/(n+1),
 *   f_B(k; n, p) / (k+1) = f_B(k+1; n+1, p) / ((n+1) p),
 * so  sum_{k=N}^{K} (N-1)/(k+1) f_B(k; n, p)
 *       = (N-1)/((n+1) p) * sum_{j=N+1}^{K+1} f_B(j; n+1, p),
 * and the paper's infinite BIP sum is (N-1)/((n+1) p) * P(Bin(n+1, p) > N):
 * no truncation at all.  Steps n -> n+1 are O(1):
 *   F_B(k; n+1) = F_B(k; n) - p f_B(k; n)
 *   H(m+1) = H(m) + p f_B(N; m) - p f_B(K+1; m)   (H = the j-sum at m). */
static void eq3_pair(double n, unsigned N, double p, double k_last, double out[2])
{
    if (N == 0) {
        out[0] = out[1] = 0.0;
        return;
    }
    double fa;                                  /* f_B(N-1; n, p) */
    double F0 = mk_binom_cdf_pmf((double)N - 1, n, p, &fa);
    double F1 = F0 - p * fa;                    /* F_B(N-1; n+1, p) */
    if (F1 < 0)
        F1 = 0.0;
    out[0] = F0;
    out[1] = F1;
    if (N == 1 || k_last < N)
        return;     /* weight (N-1)/(k+1) = 0, or an empty sum: Eq. 2 */

    double m = n + 1, q = 1 - p;
    double fN = m * p / N * fa;                 /* f_B(N; n+1, p) */
    double H0, H1;                              /* the j-sum at n+1 and n+2 */
    if (isinf(k_last)) {
        /* P(Bin(n+1, p) > N) = 1 - F_B(N-1; n+1) - f_B(N; n+1): free when it
         * is not small; a small tail is summed directly (relative precision,
         * which the factor (N-1)/((n+1)p) may amplify). */
        double tail = 1 - (F1 + fN);
        H0 = tail > 0.1 ? tail : mk_binom_sf(N, m, p);
        H1 = H0 + p * fN;
    } else if (q > 0 && k_last - N < EQ3_SHORT_TERMS) {
        double f = fN, h = 0;
        for (double j = N; j < k_last + 1; j++) {
            f *= (m - j) / (j + 1) * (p / q);   /* f_B(j+1; m, p) */
            h += f;
        }
        H0 = h;
        H1 = H0 + p * fN - p * f;
        if (H1 < 0)
            H1 = 0.0;
    } else {
        H0 = mk_binom_wsum(m, p, N + 1, k_last + 1, NULL, NULL, 0.0);
        H1 = mk_binom_wsum(m + 1, p, N + 1, k_last + 1, NULL, NULL, 0.0);
    }
    double v0 = F0 + ((double)N - 1) / (m * p) * H0;
    double v1 = F1 + ((double)N - 1) / ((m + 1) * p) * H1;
    out[0] = v0 > 1 ? 1.0 : v0;
    out[1] = v1 > 1 ? 1.0 : v1;
}

static double check_C(double C)
{
    assert(C >= 1 && isfinite(C) && "a region has at least one set");
    return 1.0 / C;
}

/* Eq. 3 (cut at k_last) at a real distance. */
static double eq3_real(double T, unsigned N, double C, double k_last)
{
    double p = check_C(C), w, t0 = split(T, &w);
    assert(!isnan(k_last));
    double v[2];
    eq3_pair(t0, N, p, k_last, v);
    return w > 0 ? (1 - w) * v[0] + w * v[1] : v[0];
}

double mk_hit_lru(double T, unsigned N, double C)
{
    return eq3_real(T, N, C, -1.0);
}

double mk_hit_eq3(double T, unsigned N, double C, double k_last)
{
    return eq3_real(T, N, C, k_last);
}

double mk_hit_bip(double T, unsigned N, double C)
{
    return eq3_real(T, N, C, INFINITY);
}

double mk_hit_qlru(double T, unsigned N, double C, unsigned terms)
{
    return eq3_real(T, N, C, (double)N + (double)terms - 1);
}

/* Eq. 3's cut of region r (k_last; < N for LRU). */
static double region_k_last(const mk_region *r)
{
    switch (r->policy) {
    case MK_LRU: return -1.0;
    case MK_BIP: return INFINITY;
    case MK_QLRU: return r->qlru_k_last > 0 ? r->qlru_k_last : (double)r->ways + MK_QLRU_TERMS - 1;
    }
    assert(0 && "unknown mk_policy");
    return -1.0;
}

double mk_survive(const mk_region *r, double T)
{
    return eq3_real(T, r->ways, r->sets, region_k_last(r));
}

/* ---- Eq. 4 --------------------------------------------------------------- */

typedef struct eq4_ctx {
    double T2, N2, T3, T3out;
    const mk_region *l3;
    enum mk_eq4_form form;
} eq4_ctx;

/* L3* survival after the L2 eviction that follows t other-set accesses. */
static double eq4_weight(double t, void *vctx)
{
    const eq4_ctx *c = vctx;
    double elapsed;
    if (c->form == MK_EQ4_EXACT)
        elapsed = (t + c->N2) / c->T2;
    else
        elapsed = c->T2 > 0 ? t / c->T2 : 0.0;
    double rest = 1 - elapsed;
    if (rest < 0)
        rest = 0;       /* evicted at (or, for the mixed last term, just after) the end */
    return mk_survive_mix(c->l3, rest * c->T3, rest * c->T3out);
}

double mk_l2_to_l3(double T_l2, unsigned N_l2, double C_l2,
                       const mk_region *l3, double T_l3, enum mk_eq4_form form)
{
    return mk_l2_to_l3_mix(T_l2, N_l2, C_l2, l3, T_l3, 0.0, form);
}

double mk_l2_to_l3_mix(double T_l2, unsigned N_l2, double C_l2, const mk_region *l3, double T_l3,
                           double T_l3_out, enum mk_eq4_form form)
{
    double q = 1 - check_C(C_l2), w, t0 = split(T_l2, &w);
    check_T(T_l3);
    if (N_l2 == 0)
        return 0.0;     /* degenerate: no L2 way to leave from */
    /* q = 0 (one L2 set) is fine: f_NB is then a point mass at t = 0. */
    eq4_ctx c = {.T2 = T_l2, .N2 = N_l2, .T3 = T_l3, .T3out = T_l3_out, .l3 = l3, .form = form};
    double t_last = form == MK_EQ4_EXACT ? t0 - N_l2 : t0;
    double s = 0.0;
    if (t_last >= 0)
        s = mk_negbin_wsum(N_l2, q, 0, t_last, eq4_weight, &c, MK_TAIL_TOL);
    /* Real T_L2: the number of L2 accesses is floor or floor + 1 (weight w),
     * which decides whether the eviction at t_last + 1 happens in the wait;
     * one extra term instead of a second sum.  The elapsed fraction uses
     * T_L2 itself. */
    if (w > 0 && t_last + 1 >= 0)
        s += w * mk_negbin_pmf(t_last + 1, N_l2, q) * eq4_weight(t_last + 1, &c);
    return s > 1 ? 1.0 : s;
}

/* ---- Eq. 9 / 10 ---------------------------------------------------------- */

/* Mixed pmf / cdf at a real distance (same floor / ceil weights). */
static double pmf_real(double i, double T, double p)
{
    double w, t0 = split(T, &w);
    double v = mk_binom_pmf(i, t0, p);
    return w > 0 ? (1 - w) * v + w * mk_binom_pmf(i, t0 + 1, p) : v;
}

static double cdf_real(double k, double T, double p)
{
    if (k < 0)
        return 0.0;
    double w, t0 = split(T, &w);
    double v = mk_binom_cdf(k, t0, p);
    return w > 0 ? (1 - w) * v + w * mk_binom_cdf(k, t0 + 1, p) : v;
}

double mk_hit_ddio_overlap(double T, double T_D, unsigned N, unsigned a, double C)
{
    double p = check_C(C);
    check_T(T);
    check_T(T_D);
    double s = 0;
    /* Terms with i > N-1 have F_B(negative) = 0. */
    for (unsigned i = 0; i < a && i < N; i++)
        s += pmf_real(i, T_D, p) * cdf_real((double)N - 1 - i, T, p);
    return s > 1 ? 1.0 : s;
}

double mk_hit_l3_overlap(double T, double T_io, unsigned N, unsigned a, double C)
{
    double p = check_C(C);
    check_T(T);
    check_T(T_io);
    double s = 0;
    for (unsigned i = 0; i < a && i < N; i++)
        s += pmf_real(i, T_io, p) * cdf_real((double)N - 1 - i, T, p);
    /* i >= a: the DDIO lines hold a ways whatever their number. */
    if (a < N) {
        double tail = 1 - cdf_real((double)a - 1, T_io, p);
        if (tail > 0)
            s += tail * cdf_real((double)N - 1 - a, T, p);
    }
    return s > 1 ? 1.0 : s;
}

/* ---- the set mapping's mixture (evict.h, mk_setmix) ------------------ */

#define CACHE_WAYS_MAX 64   /* N <= 64 (Eq. 12's bound; a cache has at most 64 ways) */

/* Eq. 3's weight of a line with k other lines in its set: it stays (k < N)
 * or the insertion protected it ((N-1)/(k+1), N <= k <= k_last). */
static double eq3_h(double k, unsigned N, double k_last)
{
    if (k < N)
        return 1.0;
    return k <= k_last ? ((double)N - 1) / (k + 1) : 0.0;
}

/* The hypergeometric pmf into f[0..c]: of c marked lines among pop, how
 * many a uniform draw of m (integer, 0..pop) without replacement takes.
 * From the mode outward by the ratio of neighbouring terms, normalised:
 * relative error ~c eps, no factorials. */
static void hyper_pmf(double pop, unsigned c, double m, double *f)
{
    for (unsigned k = 0; k <= c; k++)
        f[k] = 0.0;
    double lo = c + m - pop > 0 ? c + m - pop : 0, hi = m < c ? m : c;
    double mode = floor((c + 1.0) * (m + 1) / (pop + 2));
    mode = mode < lo ? lo : mode > hi ? hi : mode;
    unsigned md = (unsigned)mode;
    double s = f[md] = 1.0;
    for (double k = mode; k < hi; k++) {
        unsigned i = (unsigned)k;
        f[i + 1] = f[i] * (c - k) * (m - k) / ((k + 1) * (pop - c - m + k + 1));
        s += f[i + 1];
    }
    for (double k = mode; k > lo; k--) {
        unsigned i = (unsigned)k;
        f[i - 1] = f[i] * k * (pop - c - m + k) / ((c - k + 1) * (m - k + 1));
        s += f[i - 1];
    }
    for (unsigned k = 0; k <= c; k++)
        f[k] /= s;
}

static double *scratch(size_t n)
{
    double *f = malloc((n ? n : 1) * sizeof *f);
    assert(f && "out of memory");
    return f;
}

/* sum_k w_k sum_b Hyp(pop, c_k, m)(b) H(b), m integer. */
static double mix_dot(const mk_setmix *mx, double m, const double *H, double *f)
{
    double s = 0;
    for (unsigned k = 0; k < mx->n; k++) {
        unsigned c = mx->c[k];
        hyper_pmf(mx->pop, c, m, f);
        double t = 0;
        for (unsigned b = 0; b <= c; b++)
            t += f[b] * H[b];
        s += mx->w[k] * t;
    }
    return s;
}

double mk_survive_mix(const mk_region *r, double T, double T_out)
{
    const mk_setmix *mx = r->mix;
    if (!mx)
        return mk_survive(r, T);
    check_T(T);
    check_T(T_out);
    if (r->ways == 0)
        return 0.0;
    /* The footprint's part; lines beyond the footprint count as outside it. */
    double m = T - T_out > 0 ? T - T_out : 0, out = T_out;
    if (m > mx->pop) {
        out += m - mx->pop;
        m = mx->pop;
    }
    unsigned cmax = mx->c[mx->n - 1];
    double k_last = region_k_last(r), p = check_C(r->sets);
    double *H = scratch(2 * ((size_t)cmax + 1)), *f = H + cmax + 1;
    /* H(b) = E h(b + Y), Y ~ Bin(out, 1/C) (h(b) itself when out = 0). */
    double ymax = k_last < r->ways ? (double)r->ways - 1 : k_last, mass = 0;
    for (unsigned b = 0; b <= cmax; b++)
        H[b] = 0.0;
    for (double y = 0; y <= ymax && mass < 1 - 1e-16; y++) {
        double fy = out > 0 ? pmf_real(y, out, p) : y == 0;
        if (out > 0 && fy == 0 && y > out / r->sets)
            break;
        mass += fy;
        for (unsigned b = 0; b <= cmax; b++)
            H[b] += fy * eq3_h(b + y, r->ways, k_last);
    }
    double w, m0 = split(m, &w);
    double s = mix_dot(mx, m0, H, f);
    if (w > 0)
        s = (1 - w) * s + w * mix_dot(mx, m0 + 1, H, f);
    free(H);
    return s > 1 ? 1.0 : s;
}

/* P(Hyp + Y <= k) for the pmf f[0..c] and Y ~ Bin(n_out, p) at a real n_out. */
static double cdf_plus(double k, const double *f, unsigned c, double n_out, double p)
{
    if (k < 0)
        return 0.0;
    double F[CACHE_WAYS_MAX], acc = 0;    /* F[j] = P(Hyp <= j), j <= k */
    unsigned kk = (unsigned)k;
    assert(kk < CACHE_WAYS_MAX);
    for (unsigned j = 0; j <= kk; j++) {
        acc += j <= c ? f[j] : 0.0;
        F[j] = acc;
    }
    if (n_out <= 0)
        return F[kk];
    double s = 0;
    for (unsigned y = 0; y <= kk; y++)
        s += pmf_real(y, n_out, p) * F[kk - y];
    return s;
}

/* Eq. 9 (tail = 0) or Eq. 10 (tail = 1) for integer window sizes: of the c
 * other lines of the set, i come in the DDIO window (mD of pop), then of
 * the c - i left, the L3* window (mL of the pop - mD left) takes some. */
static double overlap_int(const mk_setmix *mx, double mD, double mL, double T_out, unsigned N, unsigned a,
                          double p, int tail, double *fD, double *fL)
{
    double s = 0;
    for (unsigned k = 0; k < mx->n; k++) {
        unsigned c = mx->c[k];
        double t = 0;
        hyper_pmf(mx->pop, c, mD, fD);
        for (unsigned i = 0; i <= c; i++) {
            int in_ddio = i < a;
            if (fD[i] == 0 || (!in_ddio && !tail) || (in_ddio && i >= N))
                continue;
            hyper_pmf(mx->pop - mD, c - i, mL, fL);
            t += fD[i] * cdf_plus((double)N - 1 - (in_ddio ? i : a), fL, c - i, T_out, p);
        }
        s += mx->w[k] * t;
    }
    return s;
}

/* Eq. 9 / 10 under the mixture: the real window sizes mixed bilinearly
 * from their neighbouring integers, as Eq. 9 and 10 themselves. */
static double overlap_mix(double T, double T_out, double T_D, unsigned N, unsigned a, double C,
                          const mk_setmix *mx, int tail)
{
    double p = check_C(C);
    check_T(T);
    check_T(T_out);
    check_T(T_D);
    if (a >= N)
        tail = 0;       /* Eq. 10's i >= a terms need a < N */
    double pop = mx->pop, mD = T_D, mL = T - T_out > 0 ? T - T_out : 0;
    if (mD + mL > pop) {
        mD = fmin(mD * (pop / (mD + mL)), pop);
        mL = pop - mD;
    }
    unsigned cmax = mx->c[mx->n - 1];
    double *fD = scratch(2 * ((size_t)cmax + 1)), *fL = fD + cmax + 1;
    double wD, wL, d0 = split(mD, &wD), l0 = split(mL, &wL), s = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double wt = (i ? wD : 1 - wD) * (j ? wL : 1 - wL);
            /* The neighbouring integers stay within the footprint. */
            double dd = fmin(d0 + i, pop), ll = fmin(l0 + j, pop - dd);
            if (wt > 0)
                s += wt * overlap_int(mx, dd, ll, T_out, N, a, p, tail, fD, fL);
        }
    free(fD);
    return s > 1 ? 1.0 : s;
}

double mk_hit_ddio_overlap_mix(double T, double T_out, double T_D, unsigned N, unsigned a, double C,
                                   const mk_setmix *mix)
{
    if (!mix)
        return mk_hit_ddio_overlap(T, T_D, N, a, C);
    return overlap_mix(T, T_out, T_D, N, a, C, mix, 0);
}

double mk_hit_l3_overlap_mix(double T, double T_out, double T_io, unsigned N, unsigned a, double C,
                                 const mk_setmix *mix)
{
    if (!mix)
        return mk_hit_l3_overlap(T, T_io, N, a, C);
    return overlap_mix(T, T_out, T_io, N, a, C, mix, 1);
}

/* ---- Eq. 12 -------------------------------------------------------------- */

double mk_placement_prob(unsigned n, unsigned m, double alpha)
{
    assert(n >= 1 && n <= 64 && m <= n);
    assert(alpha >= 0 && alpha <= 1);
    if (m == 0)
        return 0.0;
    double b = 1 - alpha;
    /* t_k = C(m-1+k, m-1) b^k by t_{k+1} = t_k (m+k)/(k+1) b; C(63, 31) < 1e19
     * keeps every term finite. */
    double t = 1.0, z = 1.0;
    for (unsigned k = 0; k < n - m; k++) {
        t *= (double)(m + k) / (double)(k + 1) * b;
        z += t;
    }
    return t / z;
}
