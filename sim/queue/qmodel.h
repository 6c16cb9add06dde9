/* qmodel.h - closed-form queueing estimates for the simulator's "queueing estimate".
 *
 * Textbook single-server results (Gross & Harris, Kleinrock):
 *   M/G/1 (Pollaczek-Khinchine)  Lq = rho^2 (1 + cs2) / (2 (1 - rho))
 *   M/D/1                        the M/G/1 with cs2 = 0: Lq = rho^2 / (2 (1 - rho))
 *   M/M/1                        the M/G/1 with cs2 = 1: Lq = rho^2 / (1 - rho)
 *   M/M/1/K (K in the system, one in service)
 *                                p_n = rho^n (1 - rho) / (1 - rho^(K+1)), p_n = 1/(K+1) at rho = 1
 *                                blocking p_K, L = sum n p_n, throughput lambda (1 - p_K)
 *   G/G/1 (Kingman)              Wq ~ rho / (1 - rho) * (ca2 + cs2) / 2 * E[S]
 * with rho = lambda E[S], ca2 / cs2 the squared coefficients of variation of
 * interarrival and service times, and Little's law L = lambda_eff W.
 * Rates are per unit of time (the caller picks: per ns, per s). */
#ifndef DDIOSIM_QUEUE_QMODEL_H
#define DDIOSIM_QUEUE_QMODEL_H

#include <stdint.h>
#include "sim/common/err.h"

typedef struct qm_result {
    double rho;           /* offered load lambda * E[S] */
    double L;             /* mean number in the system */
    double Lq;            /* mean number waiting */
    double W;             /* mean time in the system */
    double Wq;            /* mean wait before service */
    double p_block;       /* probability an arrival is refused (finite K), else 0 */
    double throughput;    /* accepted arrival rate */
} qm_result;

/* M/G/1 with arrival rate lambda, mean service s and service SCV cs2;
 * fails unless 0 < rho < 1. */
int qm_mg1(double lambda, double s, double cs2, qm_result *r, ddio_err *e);
int qm_md1(double lambda, double s, qm_result *r, ddio_err *e);
int qm_mm1(double lambda, double s, qm_result *r, ddio_err *e);
/* M/M/1/K, K in [1, 2^28] places in the system (the one in service included);
 * any rho > 0; O(K). */
int qm_mm1k(double lambda, double s, uint32_t K, qm_result *r, ddio_err *e);
/* Kingman's G/G/1 approximation; fails unless 0 < rho < 1. */
int qm_kingman(double lambda, double s, double ca2, double cs2, qm_result *r, ddio_err *e);

#endif
