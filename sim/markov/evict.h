/* evict.h - survival probabilities behind the eviction matrices (paper,
 * Section 4.3 and Appendix D.1): the probability that a buffer's cache line
 * is still in its cache region after T other unique lines were accessed.
 *
 * Reuse distances are real numbers in the model (K * S * M * L).  Every
 * function here accepts a real T >= 0 and evaluates the formula at the two
 * neighbouring integers, mixing them linearly:
 *     p(T) = (1 - w) p(floor T) + w p(floor T + 1),   w = T - floor T.
 * That is the exact hit probability of a line whose reuse distance is the
 * random integer floor T or floor T + 1 with mean T, so it stays a
 * probability, keeps every ordering between formulas (LRU <= QLRU <= BIP,
 * column sums <= 1) and agrees with the paper at integers.  Eq. 9 and 10 mix
 * both of their distances independently (bilinear); Eq. 4 mixes only the
 * range of its sum (see mk_l2_to_l3).  See
 * docs/model-math.md for the alternative considered (the incomplete beta
 * extension of F_B) and why it was not taken.
 *
 * Precision: Eq. 2, 3, 9, 10, 12 to ~1e-13 relative or better (no
 * truncation: Eq. 3's infinite sum has a closed form, see evict.c); Eq. 4's
 * sum over the negative binomial leaves out less than MK_TAIL_TOL (1e-12)
 * of probability mass. */
#ifndef DDIOSIM_MARKOV_EVICT_H
#define DDIOSIM_MARKOV_EVICT_H

#include "sim/markov/binom.h"

/* Replacement policy of a region, as the model approximates it. */
typedef enum mk_policy {
    MK_LRU = 0,     /* Eq. 2: the lower bound */
    MK_BIP,         /* Eq. 3, full sum: the upper bound for BIP */
    MK_QLRU,        /* Eq. 3 cut after a few terms (the paper: "at 3") */
} mk_policy;

/* Default QLRU cut: the three terms k = N, N+1, N+2 of Eq. 3.  A 2-bit RRPV
 * tells four ages apart, so a line outlives at most three insertions beyond
 * the N that fill its set.  The literal reading of "cut the upper bound of
 * the sum from infinity to 3" (k <= 3) is mk_hit_eq3(T, N, C, 3). */
#define MK_QLRU_TERMS 3u

/* How a set mapping spreads the buffer lines over the sets (docs/model.md
 * section 12): of the `pop` lines of other buffers a line competes with,
 * share w[k] of the lines have exactly c[k] of them in their own set.  The
 * paper assumes a uniform random mapping, c ~ Bin(pop, 1/C); a real mapping
 * and address layout give another distribution (mk_setmix_build).  A reuse
 * distance of T unique lines is taken as a uniform draw of T of the pop
 * lines without replacement, so the lines that land in the set are the
 * mixture of hypergeometrics
 *     sum_k w[k] Hyp(pop, c[k], T)
 * in place of Bin(T, 1/C): exactly Bin(T, 1/C) when w is Bin(pop, 1/C)
 * (any fixed T of pop lines placed independently at random put Bin(T, 1/C)
 * in a set).  c ascending, w > 0, sum w = 1. */
typedef struct mk_setmix {
    double pop;             /* lines of other buffers, >= 1 */
    unsigned n;             /* distinct counts */
    unsigned *c;
    double *w;
} mk_setmix;

/* One cache region as Eq. 2 / 3 see it. */
typedef struct mk_region {
    double sets;            /* C >= 1 */
    unsigned ways;          /* N: the ways the region's lines may occupy */
    mk_policy policy;
    double qlru_k_last;     /* QLRU: last k of Eq. 3's sum; 0 = N + MK_QLRU_TERMS - 1 */
    const mk_setmix *mix;   /* the set mapping's occupancy; NULL: uniform random (the paper) */
} mk_region;

const char *mk_policy_name(mk_policy p);

/* Eq. 2 (LRU): F_B(N-1; T, 1/C).  N = 0 gives 0 (no way to live in). */
double mk_hit_lru(double T, unsigned N, double C);

/* Eq. 3 with its sum over k = N .. k_last:
 *   F_B(N-1; T, 1/C) + sum_{k=N}^{k_last} (N-1)/(k+1) f_B(k; T, 1/C).
 * k_last = INFINITY is the paper's BIP, evaluated exactly through
 *   sum_{k>=N} (N-1)/(k+1) f_B(k; T, p) = (N-1) P(Bin(T+1, p) > N) / ((T+1) p).
 * Result in [Eq. 2, 1]; any cut is <= the full sum up to rounding (1e-15). */
double mk_hit_eq3(double T, unsigned N, double C, double k_last);

/* Eq. 3, full sum (BIP upper bound). */
double mk_hit_bip(double T, unsigned N, double C);

/* Eq. 3 over k = N .. N + terms - 1 (QLRU upper bound; terms =
 * MK_QLRU_TERMS by default, 0 terms = LRU). */
double mk_hit_qlru(double T, unsigned N, double C, unsigned terms);

/* The survival probability of region r at reuse distance T, by its policy
 * (the paper's random mapping; r->mix is not looked at). */
double mk_survive(const mk_region *r, double T);

/* The same for a distance T of which T_out (<= T) are lines outside the
 * buffer footprint (table lines): with r->mix, the footprint part T - T_out
 * (at most pop; the rest counts as outside) puts the mixture of
 * mk_setmix in the set and T_out adds Bin(T_out, 1/C) lines; the
 * policy's weight (Eq. 2 / 3: 1 below N lines, (N-1)/(k+1) for the
 * protected k) is summed over that count: exact, O(sum_k c_k) per call,
 * twice for a real T (the neighbouring integers mixed as everywhere here).
 * Without r->mix, mk_survive(r, T). */
double mk_survive_mix(const mk_region *r, double T, double T_out);

/* How Eq. 4 counts the L2 accesses that precede the line's L2 eviction. */
enum mk_eq4_form {
    /* t = unique L2 accesses landing in *other* L2 sets before the N_L2-th
     * one landing in the line's set (which evicts it under LRU): eviction
     * happens at access t + N_L2, so it happens within the wait iff
     * t <= T_L2 - N_L2, and the line then faces the remaining fraction
     * 1 - (t + N_L2) / T_L2 of the wait's L3* accesses.  Consistent with
     * Eq. 2: with a certain L3* survival this is exactly 1 - F_B(N_L2-1;
     * T_L2, 1/C_L2), so an L2 column of the eviction matrix never exceeds 1. */
    MK_EQ4_EXACT = 0,
    /* The paper as printed: t = 0 .. T_L2 and remaining fraction 1 - t/T_L2.
     * Counts evictions that would happen after the wait; the L2 column can
     * sum above 1 (docs/model-math.md has an example). */
    MK_EQ4_PAPER,
};

/* Eq. 4: probability that a line in L2 at the start of a wait is in L3* at
 * its end (evicted from L2 by LRU into L3*, then surviving there):
 *   sum_t f_NB(t; N_L2, 1 - 1/C_L2) * S_L3*(remaining fraction * T_L3)
 * with S_L3* = mk_survive(l3, .).  T_l2 and T_l3 are the unique L2 and
 * L3* accesses of the whole wait.  A real T_l2 mixes only the range (the
 * eviction at access floor(T_l2) + 1 counts with weight T_l2 - floor(T_l2));
 * the elapsed fraction is taken against T_l2 itself.  With a certain L3*
 * survival the exact form is then 1 - mk_hit_lru(T_l2, N_l2, C_l2) at
 * every real T_l2, so stay + move <= 1 holds exactly.
 * Cost: one L3* survival per significant negative-binomial term, about
 * 2 * 7.4 sd of NB(N_L2, 1 - 1/C_L2) clipped to [0, T_l2]: ~0.1 ms at
 * T_l2 = 2500, ~1-2 ms at 1e4 (L2 16 ways x 1024 sets; docs/model-math.md). */
double mk_l2_to_l3(double T_l2, unsigned N_l2, double C_l2,
                       const mk_region *l3, double T_l3, enum mk_eq4_form form);
/* The same with T_l3_out of T_l3 outside the buffer footprint: the L3*
 * survival is mk_survive_mix(l3, f T_l3, f T_l3_out) at elapsed share f. */
double mk_l2_to_l3_mix(double T_l2, unsigned N_l2, double C_l2, const mk_region *l3, double T_l3,
                           double T_l3_out, enum mk_eq4_form form);

/* Eq. 9 (Appendix D.1, L3* overlapping DDIO ways): a line in the a DDIO ways
 * of an N-way LRU set survives T_D unique DDIO and T unique L3* accesses:
 *   sum_{i=0}^{a-1} f_B(i; T_D, 1/C) F_B(N-1-i; T, 1/C). */
double mk_hit_ddio_overlap(double T, double T_D, unsigned N, unsigned a, double C);

/* Eq. 10: a line in the non-DDIO ways survives T unique L3* and T_io unique
 * DDIO accesses, the latter occupying at most a ways of its set:
 *   sum_{i=0}^{T_io} f_B(i; T_io, 1/C) F_B(N-1-min(i, a); T, 1/C). */
double mk_hit_l3_overlap(double T, double T_io, unsigned N, unsigned a, double C);

/* Eq. 9 and Eq. 10 under a set mapping: the DDIO window (T_D lines, all
 * buffer lines) and the L3* one (T, of which T_out outside the footprint)
 * are disjoint uniform draws from the pop lines (multivariate
 * hypergeometric; scaled to pop together when they exceed it), T_out adds
 * Bin(T_out, 1/C).  With the random mapping's occupancy these are Eq. 9 /
 * 10 exactly (disjoint lines land independently).  mix = NULL:
 * mk_hit_ddio_overlap / mk_hit_l3_overlap.  Cost: O(sum_k c_k^2)
 * per call (Eq. 10), four times for real window sizes. */
double mk_hit_ddio_overlap_mix(double T, double T_out, double T_D, unsigned N, unsigned a, double C,
                                   const mk_setmix *mix);
double mk_hit_l3_overlap_mix(double T, double T_out, double T_io, unsigned N, unsigned a, double C,
                                 const mk_setmix *mix);

/* Eq. 12: in an n-way LRU set receiving unique lines, each restricted to the
 * m leftmost ways with probability alpha, the probability that an
 * unrestricted fill lands in the restricted ways:
 *   C(n-1, m-1) (1-alpha)^(n-m) / sum_{k=0}^{n-m} C(m-1+k, m-1) (1-alpha)^k.
 * m/n at alpha = 0, 0 at alpha = 1 (n > m), 1 when m = n, 0 when m = 0.
 * 1 <= n <= 64, m <= n, 0 <= alpha <= 1. */
double mk_placement_prob(unsigned n, unsigned m, double alpha);

#endif
