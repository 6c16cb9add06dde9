/* nic.h - the NIC seam: what the NIC and its DPDK driver do differently
 * from one driver to another, behind one table of operations (DPDK's
 * eth_dev_ops, libCacheSim's cache_ops).  One file per driver:
 *
 *   nic_mlx5.c  Mellanox ConnectX (DPDK drivers/net/mlx5): RX WQEs the NIC
 *               fetches, completions written as CQEs into a ring of their
 *               own (compressed: eight mini-CQEs a line), the RX ring
 *               refilled after every burst, a TX completion every 32 WQEs;
 *   nic_ice.c   Intel E810 / XL710 (DPDK drivers/net/ice, drivers/net/i40e):
 *               descriptors written back in place into the RX ring, the RX
 *               ring refilled in blocks of rx_free_thresh, the RS bit every
 *               tx_rs_thresh TX descriptors (DD written back into that
 *               descriptor only), sent buffers freed tx_rs_thresh at a time
 *               once fewer than tx_free_thresh descriptors are free.
 *
 * The simulator (dsim_nic.c, dsim_core.c) keeps what every driver shares -
 * the rings, the DMA of the packets, the descriptor fetches a line at a
 * time - and asks the ops, through the geometry they fill at set-up, where
 * completions go and how often, and through their functions when the
 * driver refills, frees and writes TX completions.  The queueing estimate
 * (qest.c) asks the same ops for the queue lengths the driver's rules
 * leave, so the model follows the driver the simulator runs. */
#ifndef DDIOSIM_QUEUE_NIC_H
#define DDIOSIM_QUEUE_NIC_H

#include <stdint.h>

#include "configs/config.h"
#include "sim/queue/pcie.h"

struct dsim;
struct dsim_core;

/* What the simulator's shared code needs to know of a driver's
 * descriptors, per packet; filled once by nic_ops.geometry. */
typedef struct nic_geometry {
    pcie_desc_sizes desc;       /* bytes per descriptor / write-back, and packets per RX write-back */
    /* Where the NIC writes a received packet's completion: 1 = in place,
     * into the packet's own RX descriptor (Intel: no completion ring); 0 =
     * a completion ring beside the RX ring, rx_wb bytes a slot (mlx5). */
    int rx_wb_in_ring;
    /* The write-back covers part of a line (a PCIe partial write, RFO),
     * else whole lines (ItoM). */
    int rx_wb_partial;
    /* The driver reads the completion line of received packet i when
     * (i & rx_wb_read_mask) == 0: once per line of write-backs. */
    uint32_t rx_wb_read_mask;
    /* The NIC writes a TX completion every this many sent packets. */
    uint32_t tx_comp_every;
    /* Packets the NIC keeps fetched (PCIe reads outstanding or data in its
     * buffer) and not yet sent: its read concurrency. */
    uint32_t tx_max_fetched;
} nic_geometry;

/* The queueing estimate's view of one core (qest.c), for nic_ops.qest. */
typedef struct nic_qest_in {
    int core_bound;             /* the core (or its TX queue) is the bottleneck: it takes full bursts */
    int tx_full;                /* its TX ring stays full (TX queue or wire the bottleneck) */
    double rho;                 /* the core's load */
    double tx_x;                /* light load: packets in TX (lambda x the TX time) */
    double ca2;                 /* arrivals' squared coefficient of variation */
    double tx;                  /* the TX queue's mean length (light and core-bound) */
} nic_qest_in;

/* What the driver's rules leave in the queues, time-averaged. */
typedef struct nic_qest_out {
    double rx_unposted;         /* RX descriptors consumed and not yet refilled: in no queue */
    double rx_posted_full;      /* RX Replenish when the ring is full of received packets */
    double tx_recycle;          /* TX Recycle */
} nic_qest_out;

typedef struct nic_ops {
    const char *name;
    /* Set-up: the descriptor geometry for `cfg` (whose machine names this
     * driver).  Never fails: the configuration was validated. */
    void (*geometry)(const ddio_config *cfg, nic_geometry *g);
    /* Set-up of core c's driver state after its rings (the completion
     * ring's LLC sets); 0, or -1 with the simulator's error set. */
    int (*init_core)(struct dsim *s, uint32_t c);
    /* The NIC writes the TX completion of core c's latest
     * tx_comp_every sends (cs->tx_comps is its count, a multiple). */
    void (*tx_completion)(struct dsim *s, uint32_t c);
    /* Would the driver refill core c's RX ring now?  (An idle core wakes
     * for it.)  rx_refill posts what its rule posts, after a burst of `n`
     * received packets (n may be 0: an idle poll).  With no descriptor
     * consumed and unposted (rx_unposted 0) neither is due nor does
     * anything, so the simulator does not call them then. */
    int (*rx_refill_due)(const struct dsim *s, const struct dsim_core *cs);
    void (*rx_refill)(struct dsim *s, uint32_t c, uint32_t n);
    /* Would tx_burst free sent buffers now (never with none sent:
     * core_idle_work asks only when some are)?  tx_free frees what its
     * rule frees (the start of every tx_burst). */
    int (*tx_free_due)(const struct dsim *s, const struct dsim_core *cs);
    void (*tx_free)(struct dsim *s, uint32_t c);
    /* Queueing estimate (qest.c): the queue lengths this driver's refill
     * and free rules leave for one core. */
    void (*qest)(const ddio_config *cfg, const nic_qest_in *in, nic_qest_out *out);
} nic_ops;

/* The driver the machine names (cfg->machine.nic.driver). */
const nic_ops *nic_ops_of(const ddio_config *cfg);

/* The drivers (nic_mlx5.c, nic_ice.c). */
extern const nic_ops nic_mlx5_ops;
extern const nic_ops nic_ice_ops;

/* Test hook (dsim_options.nic_trace): what the NIC and the driver did, with
 * the line they wrote or read where there is one. */
enum nic_trace_kind {
    NIC_TR_RX_FETCH,    /* the NIC read a line of RX descriptors (addr; n = the first one's index) */
    NIC_TR_RX_WB,       /* the NIC wrote packet n's completion (addr; aux = 1: part of a line) */
    NIC_TR_RX_REFILL,   /* the driver posted n RX descriptors (aux: consumed and unposted before) */
    NIC_TR_TX_FETCH,    /* the NIC read a line of TX descriptors (addr; n = the first one's index) */
    NIC_TR_TX_COMP,     /* the NIC wrote a TX completion (addr; n = sends so far) */
    NIC_TR_TX_FREE,     /* the driver freed n sent buffers (aux: free TX descriptors before) */
};
typedef struct nic_trace_ev {
    enum nic_trace_kind kind;
    uint32_t core;
    uint64_t addr;      /* byte address in the line (FETCH, RX_WB, TX_COMP) */
    uint64_t n;
    uint64_t aux;
} nic_trace_ev;

#endif
