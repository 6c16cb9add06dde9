/* solve.h - stationary vector of a column-stochastic matrix (paper, Eq. 1).
 *
 * Layout: P is n x n, row-major, P[i*n + j] = probability of moving from
 * state j to state i, so every *column* sums to 1 (Fig. 11's convention)
 * and the stationary vector solves P x = x, x >= 0, sum x = 1.
 *
 * Three solvers:
 *   eigen  LAPACKE_dgeev on a copy; the right eigenvector of the eigenvalue
 *          nearest to 1.  Works for periodic chains too (Eq. 1's
 *          block-cyclic matrix has every |L|-th root of unity as eigenvalue).
 *   power  x <- (1 - lazy) P x + lazy x until ||P x - x||_1 <= tol.  With
 *          lazy = 0 this is plain power iteration, which oscillates forever on
 *          a periodic chain such as Eq. 1's; lazy in (0, 1) makes the chain
 *          aperiodic without changing its stationary vector.
 *   lu     one linear solve (LAPACKE_dgesv), the fast direct method.
 * Both check P first (exit 2 if not column-stochastic) and fail with exit 3
 * (DDIO_EXIT_NOCONV) and the residual in the message when they do not
 * produce a stationary distribution. */
#ifndef DDIOSIM_MARKOV_SOLVE_H
#define DDIOSIM_MARKOV_SOLVE_H

#include <stddef.h>

#include "sim/common/err.h"

/* Column sums within this of 1 count as stochastic in the solvers' check. */
#define MK_STOCH_TOL 1e-9

typedef struct mk_solve_info {
    int iterations;         /* power: matrix-vector products; eigen: 0 */
    double residual;        /* ||P x - x||_1 of the returned x */
    double eigenvalue_re;   /* eigen: the chosen eigenvalue */
    double eigenvalue_im;
    int unit_eigenvalues;   /* eigen: eigenvalues within 1e-8 of 1; > 1 = x not unique */
    double min_entry;       /* eigen: most negative entry before clamping to 0 */
} mk_solve_info;

/* 0 if every entry is in [0, 1] and every column sums to 1 within tol;
 * else -1 with e naming the first bad column / entry (DDIO_EXIT_USAGE). */
int mk_check_column_stochastic(const double *P, size_t n, double tol, ddio_err *e);

/* ||P x - x||_1. */
double mk_residual_l1(const double *P, size_t n, const double *x);

/* Stationary vector by LAPACKE_dgeev.  tol (e.g. 1e-9) bounds: the
 * imaginary part of the chosen eigenvalue, the negative entries of the
 * normalized eigenvector (then clamped to 0 and renormalized), and the final
 * residual.  x: n doubles out.  info may be NULL. */
int mk_stationary_eigen(const double *P, size_t n, double tol, double *x,
                            mk_solve_info *info, ddio_err *e);

/* Mark (reach[i] = 1) the states reachable from `start` in P's graph (an
 * edge j -> i where P[i*n + j] > 0), start included.  Returns how many. */
size_t mk_reachable(const double *P, size_t n, size_t start, unsigned char *reach);

/* mk_stationary_eigen on the states reachable from `start` only (a
 * closed set), zero elsewhere.  A chain can hold closed classes its start
 * never reaches (a state no event leads into that maps to itself); the
 * whole matrix then has one eigenvalue 1 per class and no unique vector,
 * while the chain that starts in `start` (the paper's "everything in
 * memory") has one, unless it can end in two classes (then exit 3). */
int mk_stationary_eigen_from(const double *P, size_t n, size_t start, double tol, double *x,
                                 mk_solve_info *info, ddio_err *e);

/* Stationary vector by one LU solve (LAPACKE_dgesv) of (P - I) x = 0 with
 * the last equation replaced by sum(x) = 1: ~15x cheaper than dgeev at
 * n = 100 with the reference LAPACK, same contract (tol bounds negative
 * entries and the residual).  A singular system (several closed classes,
 * so no unique stationary vector) fails with exit 3. */
int mk_stationary_lu(const double *P, size_t n, double tol, double *x,
                         mk_solve_info *info, ddio_err *e);

typedef struct mk_power_opts {
    double tol;             /* stop when ||P x - x||_1 <= tol (e.g. 1e-12) */
    int max_iter;           /* cap on matrix-vector products (>= 1) */
    double lazy;            /* in [0, 1): weight of the identity, see above */
    const double *x0;       /* start distribution, or NULL for uniform */
} mk_power_opts;

/* Stationary vector by (lazy) power iteration.  On non-convergence x holds
 * the last iterate, info the residual, and the call fails with exit 3. */
int mk_stationary_power(const double *P, size_t n, const mk_power_opts *o, double *x,
                            mk_solve_info *info, ddio_err *e);

#endif
