/* solve.c - stationary vectors by LAPACK's eigen-decomposition and by
 * (lazy) power iteration (see solve.h for the layout and the contract). */
#include "sim/markov/solve.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mk_check_column_stochastic(const double *P, size_t n, double tol, ddio_err *e)
{
    if (n == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "transition matrix: empty (n = 0)");
    for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (size_t i = 0; i < n; i++) {
            double v = P[i * n + j];
            /* !(v >= -tol) also rejects NaN. */
            if (!(v >= -tol && v <= 1 + tol))
                return ddio_errf(e, DDIO_EXIT_USAGE,
                                 "transition matrix: entry (%zu, %zu) = %.17g is not a probability",
                                 i, j, v);
            s += v;
        }
        if (!(fabs(s - 1) <= tol))
            return ddio_errf(e, DDIO_EXIT_USAGE,
                             "transition matrix: column %zu sums to %.17g, not 1 (tolerance %g)",
                             j, s, tol);
    }
    return 0;
}

/* y = P x */
static void matvec(const double *P, size_t n, const double *x, double *y)
{
    for (size_t i = 0; i < n; i++) {
        const double *row = &P[i * n];
        double s = 0;
        for (size_t j = 0; j < n; j++)
            s += row[j] * x[j];
        y[i] = s;
    }
}

double mk_residual_l1(const double *P, size_t n, const double *x)
{
    double r = 0;
    for (size_t i = 0; i < n; i++) {
        const double *row = &P[i * n];
        double s = 0;
        for (size_t j = 0; j < n; j++)
            s += row[j] * x[j];
        r += fabs(s - x[i]);
    }
    return r;
}

static void normalize(double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    for (size_t i = 0; i < n; i++)
        x[i] /= s;
}

int mk_stationary_eigen(const double *P, size_t n, double tol, double *x,
                            mk_solve_info *info, ddio_err *e)
{
    mk_solve_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (mk_check_column_stochastic(P, n, MK_STOCH_TOL, e) != 0)
        return -1;
    if (n > 46340)  /* n * n must fit lapack_int on 32-bit-int builds */
        return ddio_errf(e, DDIO_EXIT_USAGE, "eigen solve: %zu states is too many", n);

    double *a = malloc(n * n * sizeof *a);
    double *vr = malloc(n * n * sizeof *vr);
    double *wr = malloc(n * sizeof *wr);
    double *wi = malloc(n * sizeof *wi);
    int rc = -1;
    if (!a || !vr || !wr || !wi) {
        ddio_errf(e, DDIO_EXIT_IO, "eigen solve: out of memory for %zu states", n);
        goto out;
    }
    memcpy(a, P, n * n * sizeof *a);    /* dgeev destroys its input */
    lapack_int ln = (lapack_int)n;
    lapack_int st = LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'V', ln, a, ln, wr, wi, NULL, 1, vr, ln);
    if (st > 0) {
        ddio_errf(e, DDIO_EXIT_NOCONV,
                  "eigen solve: LAPACK dgeev's QR algorithm did not converge (%d eigenvalues missing)",
                  (int)st);
        goto out;
    }
    if (st < 0) {
        ddio_errf(e, DDIO_EXIT_IO, "eigen solve: LAPACK dgeev rejected argument %d", (int)-st);
        goto out;
    }

    size_t best = 0;
    double bestd = INFINITY;
    int unit = 0;
    for (size_t j = 0; j < n; j++) {
        double d = hypot(wr[j] - 1, wi[j]);
        if (d < bestd) {
            bestd = d;
            best = j;
        }
        if (d < 1e-8)
            unit++;
    }
    info->eigenvalue_re = wr[best];
    info->eigenvalue_im = wi[best];
    info->unit_eigenvalues = unit;
    if (bestd > tol) {
        ddio_errf(e, DDIO_EXIT_NOCONV,
                  "eigen solve: no eigenvalue within %g of 1 (nearest %.17g%+.3gi)", tol, wr[best], wi[best]);
        goto out;
    }
    /* A complex pair stores (re, im) in columns (j, j+1); wi < 0 marks the
     * second of the pair.  |wi| <= tol here, so the real part is what we want. */
    size_t col = (wi[best] < 0 && best > 0) ? best - 1 : best;
    for (size_t i = 0; i < n; i++)
        x[i] = vr[i * n + col];
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    if (!(fabs(s) > 0)) {
        ddio_errf(e, DDIO_EXIT_NOCONV, "eigen solve: the eigenvector of eigenvalue %.17g sums to 0", wr[best]);
        goto out;
    }
    double mn = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] /= s;
        if (x[i] < mn)
            mn = x[i];
    }
    info->min_entry = mn;
    if (mn < -tol) {
        ddio_errf(e, DDIO_EXIT_NOCONV,
                  "eigen solve: eigenvector has a negative entry %.3g (%d eigenvalues at 1: "
                  "the stationary vector is not unique)", mn, unit);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (x[i] < 0)
            x[i] = 0;
    normalize(x, n);
    info->residual = mk_residual_l1(P, n, x);
    if (!(info->residual <= tol)) {
        ddio_errf(e, DDIO_EXIT_NOCONV, "eigen solve: residual ||Px - x||_1 = %.3g above tolerance %g",
                  info->residual, tol);
        goto out;
    }
    rc = 0;
out:
    free(a);
    free(vr);
    free(wr);
    free(wi);
    return rc;
}

/* The end of mk_stationary_lu: clip, normalise, check. */
static int lu_finish(const double *P, size_t n, double tol, double *x, mk_solve_info *info, ddio_err *e)
{
    double mn = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] < mn)
            mn = x[i];
    info->min_entry = mn;
    if (mn < -tol)
        return ddio_errf(e, DDIO_EXIT_NOCONV, "LU solve: negative entry %.3g in the solution", mn);
    for (size_t i = 0; i < n; i++)
        if (x[i] < 0)
            x[i] = 0;
    normalize(x, n);
    info->residual = mk_residual_l1(P, n, x);
    if (!(info->residual <= tol))
        return ddio_errf(e, DDIO_EXIT_NOCONV, "LU solve: residual ||Px - x||_1 = %.3g above tolerance %g",
                         info->residual, tol);
    return 0;
}

/* Small systems (the Markov model's cycle products, n <= 8, solved
 * hundreds of thousands of times per prediction): Gaussian elimination with
 * partial pivoting on the stack, the algorithm of LAPACK's dgetf2 (first
 * largest pivot; an exactly zero pivot is reported as singular) without the
 * LAPACKE copies and allocations. */
#define LU_SMALL 16

static int lu_small(const double *P, size_t n, double tol, double *x, mk_solve_info *info, ddio_err *e)
{
    double a[LU_SMALL * LU_SMALL];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[i * n + j] = i == n - 1 ? 1.0 : P[i * n + j] - (i == j ? 1.0 : 0.0);
    for (size_t i = 0; i < n; i++)
        x[i] = i == n - 1 ? 1.0 : 0.0;
    size_t singular = 0;
    for (size_t k = 0; k < n; k++) {
        size_t piv = k;
        double best = fabs(a[k * n + k]);
        for (size_t i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > best) {
                best = fabs(a[i * n + k]);
                piv = i;
            }
        if (best == 0) {
            if (!singular)
                singular = k + 1;
            continue;
        }
        if (piv != k) {
            for (size_t j = 0; j < n; j++) {
                double t = a[k * n + j];
                a[k * n + j] = a[piv * n + j];
                a[piv * n + j] = t;
            }
            double t = x[k];
            x[k] = x[piv];
            x[piv] = t;
        }
        double inv = 1.0 / a[k * n + k];
        for (size_t i = k + 1; i < n; i++) {
            double f = a[i * n + k] * inv;
            if (f == 0)
                continue;
            for (size_t j = k + 1; j < n; j++)
                a[i * n + j] -= f * a[k * n + j];
            x[i] -= f * x[k];
        }
    }
    if (singular)
        return ddio_errf(e, DDIO_EXIT_NOCONV,
                         "LU solve: singular system (U(%zu,%zu) = 0): the stationary vector is not unique",
                         singular, singular);
    for (size_t k = n; k-- > 0;) {
        double s = x[k];
        for (size_t j = k + 1; j < n; j++)
            s -= a[k * n + j] * x[j];
        x[k] = s / a[k * n + k];
    }
    return lu_finish(P, n, tol, x, info, e);
}

size_t mk_reachable(const double *P, size_t n, size_t start, unsigned char *reach)
{
    memset(reach, 0, n);
    size_t *stack = malloc(n * sizeof *stack);
    if (!stack)
        return 0;
    size_t top = 0, count = 1;
    reach[start] = 1;
    stack[top++] = start;
    while (top > 0) {
        size_t j = stack[--top];
        for (size_t i = 0; i < n; i++)
            if (!reach[i] && P[i * n + j] > 0) {
                reach[i] = 1;
                stack[top++] = i;
                count++;
            }
    }
    free(stack);
    return count;
}

int mk_stationary_eigen_from(const double *P, size_t n, size_t start, double tol, double *x,
                                 mk_solve_info *info, ddio_err *e)
{
    mk_solve_info dummy;
    if (!info)
        info = &dummy;   /* the residual is written below */
    if (start >= n)
        return ddio_errf(e, DDIO_EXIT_USAGE, "eigen solve: start state %zu of %zu", start, n);
    if (mk_check_column_stochastic(P, n, MK_STOCH_TOL, e) != 0)
        return -1;
    unsigned char *reach = malloc(n);
    size_t *idx = malloc(n * sizeof *idx);
    if (!reach || !idx) {
        free(reach);
        free(idx);
        return ddio_errf(e, DDIO_EXIT_IO, "eigen solve: out of memory for %zu states", n);
    }
    size_t m = mk_reachable(P, n, start, reach);
    double *sub = m ? malloc(m * m * sizeof *sub) : NULL;
    double *y = m ? malloc(m * sizeof *y) : NULL;
    int rc = -1;
    if (!m || !sub || !y) {
        ddio_errf(e, DDIO_EXIT_IO, "eigen solve: out of memory for %zu states", n);
        goto out;
    }
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (reach[i])
            idx[m++] = i;
    /* The reachable set is closed: its columns still sum to 1. */
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++)
            sub[a * m + b] = P[idx[a] * n + idx[b]];
    rc = mk_stationary_eigen(sub, m, tol, y, info, e);
    if (rc == 0) {
        memset(x, 0, n * sizeof *x);
        for (size_t a = 0; a < m; a++)
            x[idx[a]] = y[a];
        info->residual = mk_residual_l1(P, n, x);
    }
out:
    free(reach);
    free(idx);
    free(sub);
    free(y);
    return rc;
}

int mk_stationary_lu(const double *P, size_t n, double tol, double *x,
                         mk_solve_info *info, ddio_err *e)
{
    mk_solve_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (mk_check_column_stochastic(P, n, MK_STOCH_TOL, e) != 0)
        return -1;
    if (n > 46340)
        return ddio_errf(e, DDIO_EXIT_USAGE, "LU solve: %zu states is too many", n);
    if (n <= LU_SMALL)
        return lu_small(P, n, tol, x, info, e);
    double *a = malloc(n * n * sizeof *a);
    lapack_int *piv = malloc(n * sizeof *piv);
    if (!a || !piv) {
        free(a);
        free(piv);
        return ddio_errf(e, DDIO_EXIT_IO, "LU solve: out of memory for %zu states", n);
    }
    /* (P - I) x = 0 has rank n-1 when the stationary vector is unique; its
     * rows sum to 0, so any one of them is redundant: replace the last by
     * sum(x) = 1. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[i * n + j] = i == n - 1 ? 1.0 : P[i * n + j] - (i == j ? 1.0 : 0.0);
    for (size_t i = 0; i < n; i++)
        x[i] = i == n - 1 ? 1.0 : 0.0;
    lapack_int ln = (lapack_int)n;
    lapack_int st = LAPACKE_dgesv(LAPACK_ROW_MAJOR, ln, 1, a, ln, piv, x, 1);
    free(a);
    free(piv);
    if (st > 0)
        return ddio_errf(e, DDIO_EXIT_NOCONV,
                         "LU solve: singular system (U(%d,%d) = 0): the stationary vector is not unique",
                         (int)st, (int)st);
    if (st < 0)
        return ddio_errf(e, DDIO_EXIT_IO, "LU solve: LAPACK dgesv rejected argument %d", (int)-st);
    return lu_finish(P, n, tol, x, info, e);
}

int mk_stationary_power(const double *P, size_t n, const mk_power_opts *o, double *x,
                            mk_solve_info *info, ddio_err *e)
{
    mk_solve_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (!(o->tol > 0) || o->max_iter < 1 || !(o->lazy >= 0 && o->lazy < 1))
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "power iteration: need tol > 0, max_iter >= 1, 0 <= lazy < 1 (got %g, %d, %g)",
                         o->tol, o->max_iter, o->lazy);
    if (mk_check_column_stochastic(P, n, MK_STOCH_TOL, e) != 0)
        return -1;
    double *y = malloc(n * sizeof *y);
    if (!y)
        return ddio_errf(e, DDIO_EXIT_IO, "power iteration: out of memory for %zu states", n);
    if (o->x0) {
        for (size_t i = 0; i < n; i++)
            x[i] = o->x0[i];
        normalize(x, n);
    } else {
        for (size_t i = 0; i < n; i++)
            x[i] = 1.0 / (double)n;
    }
    double r = INFINITY;
    int it = 0;
    for (;;) {
        matvec(P, n, x, y);
        it++;
        r = 0;
        for (size_t i = 0; i < n; i++)
            r += fabs(y[i] - x[i]);
        if (r <= o->tol || it >= o->max_iter)
            break;
        for (size_t i = 0; i < n; i++)
            x[i] = (1 - o->lazy) * y[i] + o->lazy * x[i];
        normalize(x, n);    /* keep rounding from drifting the total */
    }
    free(y);
    info->iterations = it;
    info->residual = r;     /* of x, the vector returned */
    if (!(r <= o->tol))
        return ddio_errf(e, DDIO_EXIT_NOCONV,
                         "power iteration did not converge: residual ||Px - x||_1 = %.3g > %g after %d iterations",
                         r, o->tol, it);
    return 0;
}
