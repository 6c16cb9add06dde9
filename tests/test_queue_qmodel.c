/* test_queue_qmodel.c - closed-form queueing results against textbook values. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/queue/qmodel.h"

#define EPS 1e-12

Test(queue_qmodel, md1_and_mm1)
{
    qm_result r;
    ddio_err e;
    /* M/D/1, rho = 0.5: Lq = 0.25 / (2 * 0.5) = 0.25, Wq = 0.5, W = 1.5, L = 0.75. */
    cr_assert_eq(qm_md1(0.5, 1.0, &r, &e), 0, "%s", e.msg);
    cr_assert_float_eq(r.Lq, 0.25, EPS);
    cr_assert_float_eq(r.Wq, 0.5, EPS);
    cr_assert_float_eq(r.W, 1.5, EPS);
    cr_assert_float_eq(r.L, 0.75, EPS);
    /* M/M/1, rho = 0.8: L = rho / (1 - rho) = 4, W = 1 / (mu - lambda) = 5 s. */
    cr_assert_eq(qm_mm1(0.8, 1.0, &r, &e), 0);
    cr_assert_float_eq(r.L, 4.0, 1e-9);
    cr_assert_float_eq(r.Lq, 3.2, 1e-9);
    cr_assert_float_eq(r.W, 5.0, 1e-9);
    /* Scale: lambda 2 per us, service 0.25 us: rho 0.5, M/M/1 W = 1 / (4 - 2) = 0.5 us. */
    cr_assert_eq(qm_mm1(2.0, 0.25, &r, &e), 0);
    cr_assert_float_eq(r.W, 0.5, EPS);
    cr_assert_float_eq(r.rho, 0.5, EPS);
    /* M/G/1 with exponential service equals M/M/1; with cs2 = 0.5 in between. */
    cr_assert_eq(qm_mg1(0.5, 1.0, 0.5, &r, &e), 0);
    cr_assert_float_eq(r.Lq, 0.375, EPS);
    cr_assert_eq(qm_md1(1.0, 1.0, &r, &e), -1);
    cr_assert(strstr(e.msg, "no steady state"), "%s", e.msg);
    cr_assert_eq(qm_md1(0, 1.0, &r, &e), -1);
}

Test(queue_qmodel, mm1k_finite_capacity)
{
    qm_result r;
    ddio_err e;
    /* rho = 0.5, K = 3: p = (8, 4, 2, 1) / 15. */
    cr_assert_eq(qm_mm1k(0.5, 1.0, 3, &r, &e), 0, "%s", e.msg);
    cr_assert_float_eq(r.p_block, 1.0 / 15, EPS);
    cr_assert_float_eq(r.L, 11.0 / 15, EPS);
    cr_assert_float_eq(r.Lq, 11.0 / 15 - 7.0 / 15, EPS);
    cr_assert_float_eq(r.throughput, 0.5 * 14 / 15, EPS);
    cr_assert_float_eq(r.W, 11.0 / 7, 1e-12);
    /* rho = 1: uniform over 0..K. */
    cr_assert_eq(qm_mm1k(1.0, 1.0, 4, &r, &e), 0);
    cr_assert_float_eq(r.p_block, 0.2, EPS);
    cr_assert_float_eq(r.L, 2.0, EPS);
    /* Overload rho = 2, K = 2: p = (1, 2, 4) / 7. */
    cr_assert_eq(qm_mm1k(2.0, 1.0, 2, &r, &e), 0);
    cr_assert_float_eq(r.p_block, 4.0 / 7, EPS);
    cr_assert_float_eq(r.L, 10.0 / 7, EPS);
    cr_assert_float_eq(r.throughput, 2.0 * 3 / 7, EPS);
    /* Closed form at rho = 0.9, K = 10: P_K = rho^K (1 - rho) / (1 - rho^(K+1)). */
    cr_assert_eq(qm_mm1k(0.9, 1.0, 10, &r, &e), 0);
    double rk = 0.34867844010000015;   /* 0.9^10 */
    cr_assert_float_eq(r.p_block, rk * 0.1 / (1 - rk * 0.9), 1e-12);
    double L = 0.9 / 0.1 - 11 * rk * 0.9 / (1 - rk * 0.9);
    cr_assert_float_eq(r.L, L, 1e-9);
    /* Long overloaded queue, rho = 2, K = 5000: P_K -> 1 - 1/rho, L -> K - 1,
     * with no overflow of rho^K. */
    cr_assert_eq(qm_mm1k(2.0, 1.0, 5000, &r, &e), 0);
    cr_assert_float_eq(r.p_block, 0.5, 1e-12);
    cr_assert_float_eq(r.L, 4999.0, 1e-9);
    cr_assert_float_eq(r.Lq, 4998.0, 1e-9);
    cr_assert_eq(qm_mm1k(0.5, 1.0, 0, &r, &e), -1);
}

Test(queue_qmodel, kingman_reduces_to_exact_cases)
{
    qm_result r;
    ddio_err e;
    /* ca2 = cs2 = 1: the M/M/1 wait rho / (1 - rho) * s = 4 s at rho 0.8. */
    cr_assert_eq(qm_kingman(0.8, 1.0, 1, 1, &r, &e), 0, "%s", e.msg);
    cr_assert_float_eq(r.Wq, 4.0, 1e-9);
    /* ca2 = 1, cs2 = 0: the M/D/1 wait rho s / (2 (1 - rho)) = 2. */
    cr_assert_eq(qm_kingman(0.8, 1.0, 1, 0, &r, &e), 0);
    cr_assert_float_eq(r.Wq, 2.0, 1e-9);
    /* rho 0.9, s 2, ca2 0.5, cs2 0.25: 9 * 0.375 * 2 = 6.75; L = lambda W. */
    cr_assert_eq(qm_kingman(0.45, 2.0, 0.5, 0.25, &r, &e), 0);
    cr_assert_float_eq(r.Wq, 6.75, 1e-9);
    cr_assert_float_eq(r.L, 0.45 * 8.75, 1e-9);
    cr_assert_eq(qm_kingman(0.5, 2.0, 1, 1, &r, &e), -1);
}
