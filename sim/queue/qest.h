/* qest.h - the queueing estimate: mean lengths of the logical queues (RX
 * Replenish, RX, TX, TX Recycle, software queue) of each core when neither
 * the user nor a simulator run gives them.  The paper leaves this open
 * ("we need a queuing model which predicts the lengths of RX and TX
 * queues", Wang, Xu, Wu (SIGMETRICS 2022) Section 4.4); docs/model.md documents the approximation
 * and its measured error against sim/queue/dsim. */
#ifndef DDIOSIM_QUEUE_QEST_H
#define DDIOSIM_QUEUE_QEST_H

#include "configs/config.h"
#include "sim/common/err.h"
#include "sim/queue/dsim.h"

typedef struct qest_input {
    double rate_gbps;       /* offered rate, frame bytes (as dsim); <= 0: line rate */
    double mean_pkt;        /* mean frame bytes */
    double ca2;             /* squared coefficient of variation of arrivals (0: constant bit rate, 1: Poisson) */
    const double *share;    /* per-core traffic shares summing to 1, or NULL for equal shares */
    double cpu_hit;         /* hit rate of the core's first access to a packet line (service time) */
} qest_input;

typedef struct qest_result {
    uint32_t cores;
    double *per_core;           /* cores x Q_COUNT (enum lqueue order) */
    double mean[Q_COUNT];       /* mean over cores */
    /* Per core, the part of RX still in flight (DMA not complete: the NIC
     * write has not happened yet) and of TX already fetched by the NIC (the
     * NIC read has happened): cores x 2.  The simulator counts both in RX and
     * TX; the Markov model needs the events at the right boundary. */
    double *inflight;
    double service_ns;          /* one packet on one core */
    double wire_ns;             /* one packet on the wire */
    double offered_pps, accepted_pps;
    double rho_max;             /* highest core load */
    double nic_held;            /* frames held in the NIC for want of a descriptor (nic.rx_hold_bytes), all
                                   queues: they take no LLC lines, only time */
    const char *regime;         /* "light", "core-bound", "wire-bound" */
} qest_result;

int qest_estimate(const ddio_config *cfg, const qest_input *in, qest_result *r, ddio_err *e);
void qest_result_free(qest_result *r);

#endif
