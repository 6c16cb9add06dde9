/* lqueue.c - the logical queues' names. */
#include "sim/queue/lqueue.h"

const char *lqueue_name(enum lqueue q)
{
    static const char *const names[Q_MODEL_COUNT] = {
        [Q_RX_REPLENISH] = "rx_replenish", [Q_RX] = "rx", [Q_SW] = "sw_queue",
        [Q_TX] = "tx", [Q_TX_RECYCLE] = "tx_recycle", [Q_IDLE] = "idle",
    };
    return (unsigned)q < Q_MODEL_COUNT ? names[q] : "?";
}
