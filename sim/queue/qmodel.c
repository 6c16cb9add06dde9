/* qmodel.c - the textbook single-server queueing results (qmodel.h) behind
 * the simulator's "queueing estimate". */
#include "sim/queue/qmodel.h"

#include <math.h>
#include <string.h>

static int check_open(double lambda, double s, const char *what, ddio_err *e)
{
    if (!(lambda > 0) || !(s > 0) || !isfinite(lambda) || !isfinite(s))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: arrival rate %g and service time %g must be positive",
                         what, lambda, s);
    if (!(lambda * s < 1))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: load %g >= 1 has no steady state", what, lambda * s);
    return 0;
}

/* Fill W, Wq, L from Lq (or Wq) with Little's law for an infinite queue. */
static void finish_open(double lambda, double s, double wq, qm_result *r)
{
    r->rho = lambda * s;
    r->Wq = wq;
    r->W = wq + s;
    r->Lq = lambda * wq;
    r->L = lambda * r->W;
    r->p_block = 0;
    r->throughput = lambda;
}

int qm_mg1(double lambda, double s, double cs2, qm_result *r, ddio_err *e)
{
    if (check_open(lambda, s, "M/G/1", e) < 0)
        return -1;
    if (!(cs2 >= 0))
        return ddio_errf(e, DDIO_EXIT_USAGE, "M/G/1: service SCV %g is negative", cs2);
    double rho = lambda * s;
    double lq = rho * rho * (1 + cs2) / (2 * (1 - rho));
    finish_open(lambda, s, lq / lambda, r);
    r->Lq = lq;
    return 0;
}

int qm_md1(double lambda, double s, qm_result *r, ddio_err *e)
{
    return qm_mg1(lambda, s, 0.0, r, e);
}

int qm_mm1(double lambda, double s, qm_result *r, ddio_err *e)
{
    return qm_mg1(lambda, s, 1.0, r, e);
}

int qm_mm1k(double lambda, double s, uint32_t K, qm_result *r, ddio_err *e)
{
    if (!(lambda > 0) || !(s > 0) || !isfinite(lambda) || !isfinite(s))
        return ddio_errf(e, DDIO_EXIT_USAGE, "M/M/1/K: arrival rate %g and service time %g must be positive",
                         lambda, s);
    if (K < 1 || K > (1u << 28))
        return ddio_errf(e, DDIO_EXIT_USAGE, "M/M/1/K: capacity K = %u is not in [1, 2^28]", K);
    double rho = lambda * s;
    /* Sum the unnormalised geometric distribution directly: exact at rho = 1
     * and without cancellation.  Under overload count from the top (weights
     * (1/rho)^(K-n)) so that rho^K cannot overflow for long queues. */
    double z = 0, m = 0, w = 1, top, bottom;
    if (rho <= 1) {
        for (uint32_t n = 0; n <= K; n++) {
            z += w;
            m += n * w;
            if (n < K)
                w *= rho;
        }
        top = w;            /* rho^K */
        bottom = 1;
    } else {
        double q = 1 / rho;
        for (uint32_t k = 0; k <= K; k++) {
            z += w;
            m += (double)(K - k) * w;
            if (k < K)
                w *= q;
        }
        top = 1;
        bottom = w;         /* rho^-K */
    }
    memset(r, 0, sizeof *r);
    r->rho = rho;
    r->p_block = top / z;
    r->L = m / z;
    double p0 = bottom / z;
    r->Lq = r->L - (1 - p0);
    r->throughput = lambda * (1 - r->p_block);
    r->W = r->L / r->throughput;
    r->Wq = r->Lq / r->throughput;
    return 0;
}

int qm_kingman(double lambda, double s, double ca2, double cs2, qm_result *r, ddio_err *e)
{
    if (check_open(lambda, s, "Kingman G/G/1", e) < 0)
        return -1;
    if (!(ca2 >= 0) || !(cs2 >= 0))
        return ddio_errf(e, DDIO_EXIT_USAGE, "Kingman G/G/1: SCVs %g, %g must be non-negative", ca2, cs2);
    double rho = lambda * s;
    finish_open(lambda, s, rho / (1 - rho) * (ca2 + cs2) / 2 * s, r);
    return 0;
}
