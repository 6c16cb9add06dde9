/* lqueue.h - the logical queues of Wang, Xu and Wu's ring model
 * ("Understanding I/O Direct Cache Access Performance for End Host
 * Networking", SIGMETRICS 2022), in the order a forwarded buffer visits
 * them (Fig. 10), and their names.  One ordering for the simulator's
 * counters, the queueing estimate, the model and every output: an array
 * indexed by a queue means the same thing everywhere. */
#ifndef DDIOSIM_QUEUE_LQUEUE_H
#define DDIOSIM_QUEUE_LQUEUE_H

enum lqueue {
    Q_RX_REPLENISH = 0,   /* empty buffers on RX descriptors, waiting for a packet */
    Q_RX,                 /* received packets waiting for the core */
    Q_SW,                 /* the software TX queue in front of the TX ring (FastClick's IQUEUE) */
    Q_TX,                 /* packets on TX descriptors, waiting for the NIC */
    Q_TX_RECYCLE,         /* sent buffers waiting to be freed to the mempool */
    Q_COUNT,              /* the queues the simulator and the queueing estimate measure */
    Q_IDLE = Q_COUNT,     /* the model only: the idle pool (mempool), after the rings */
    Q_MODEL_COUNT
};

/* The queue's name in outputs ("rx_replenish", "rx", "sw_queue", "tx",
 * "tx_recycle", "idle"); "?" outside the enum. */
const char *lqueue_name(enum lqueue q);

#endif
