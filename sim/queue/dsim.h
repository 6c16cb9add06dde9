/* dsim.h - the trace-driven discrete-event simulator: NIC RX/TX rings,
 * cores, a DPDK-like mempool and the PCIe link drive the cache hierarchy of
 * sim/cache with every line a packet touches.
 *
 * The model (docs/simulator.md) follows Wang, Xu, Wu's ring model (Section 2.1,
 * Fig. 10): a buffer cycles through the logical queues RX Replenish (posted
 * on the RX ring, empty), RX (received, waiting for the core), TX (on the TX
 * ring, waiting for the NIC), TX Recycle (sent, waiting for the driver to
 * free it) and the idle pool (mempool).  The simulator measures the
 * time-averaged length of each queue, which is what the Markov model takes
 * as input, and the hit rates the model predicts. */
#ifndef DDIOSIM_QUEUE_DSIM_H
#define DDIOSIM_QUEUE_DSIM_H

#include <stdint.h>
#include <stdio.h>

#include "configs/config.h"
#include "sim/cache/hier.h"
#include "sim/common/err.h"
#include "sim/queue/lqueue.h"
#include "sim/queue/mempool.h"
#include "sim/queue/pcie.h"
#include "sim/queue/pktsrc.h"

struct nic_trace_ev;   /* sim/queue/nic.h (dsim_options.nic_trace) */

typedef struct dsim_options {
    dsim_source src;
    /* NULL, or where a run that succeeds keeps the trace it held in memory
     * (pktsrc_keep_trace; zeroed by dsim_run, and left so when there is
     * none or the run fails; the caller frees it with pktsrc_trace_free),
     * for a later source of the same trace (dsim_source.parsed:
     * `simulate`'s model cross-check). */
    pktsrc_trace *trace_out;
    uint64_t packets;           /* packets to inject (the trace loops if shorter); 0 = whole trace */
    double rate_gbps;           /* offered rate (frame bytes); 0 = trace timing; < 0 = line rate ("max") */
    uint32_t pkt_size;          /* 0, or force every frame to this size */
    uint64_t seed;
    uint64_t warmup_packets;    /* UINT64_MAX = default: until the buffers have cycled twice and the
                                   queues have settled (dsim.c: warm-up), at most half the packets */
    int desc_access;            /* model descriptor / completion / mbuf header line accesses */
    uint32_t nic_buffer_bytes;  /* NIC RX packet buffer in front of PCIe */
    FILE *timeline;             /* CSV stream (header, then a row every timeline_us), or NULL; the
                                   caller creates and closes it (the CLI: atomically, sim/cli/cli.h) */
    double timeline_us;         /* timeline sampling period */
    /* Called every 2^16 events, at most every 0.25 s and not before
     * progress_after_s of wall time (1 s: no bar for short runs), with the
     * fraction of packets injected (the CLI draws a progress bar with it);
     * may be NULL. */
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;
    double progress_after_s;
    /* The wall clock of the progress reports and of wall_seconds: seconds
     * from any origin, never decreasing.  NULL: CLOCK_MONOTONIC.  Tests
     * pass a fake one, so that what they check does not depend on how fast
     * the build or the machine is. */
    double (*wall_clock)(void *ctx);
    void *wall_clock_ctx;
    /* Tests: integrate the queue lengths in integers for at most this many
     * ns of the measured interval, then in doubles (dsim_account); 0: as
     * long as the integrals stay exact.  The results are the same. */
    uint64_t area_exact_ns;
    /* Tests: called with what the NIC and its driver do (sim/queue/nic.h,
     * nic_trace_ev: completion lines written, refills, frees); NULL: off. */
    void (*nic_trace)(void *ctx, const struct nic_trace_ev *ev);
    void *nic_trace_ctx;
    /* 1: the hierarchy executes every access on its general path, Table 1
     * cell by cell, without the fast paths (hier_set_general_only): the
     * same results, slower; tests compare the two. */
    int general_only;
    /* 1: the event loop's shortcuts off: every poll and TX start goes
     * through the event queue (none runs in place: core_wake_last,
     * evq_front_take), the TX round robin scans every core, a looped
     * trace's RSS queues are hashed at every packet.  The same results,
     * slower; tests compare the two. */
    int plain_events;
} dsim_options;

void dsim_options_default(dsim_options *o);

/* Per-request cache counters, summed over the measured interval. */
typedef struct dsim_hits {
    uint64_t hits, accesses;
} dsim_hits;

typedef struct dsim_result {
    /* Hit rates of buffer data lines (what the model predicts). */
    dsim_hits pcie_write, pcie_write_full, pcie_write_partial, pcie_read, cpu_first;
    /* Including descriptor / completion lines (what uncore counters see). */
    dsim_hits pcie_write_all, pcie_read_all;
    /* Time-averaged logical queue lengths, per core and mean over cores. */
    uint32_t cores;
    double *queue_len;          /* cores x Q_COUNT */
    double queue_mean[Q_COUNT];
    /* Per core, the time-averaged part of RX still in DMA (the NIC has not
     * written the lines yet) and of TX already fetched (the NIC has read the
     * lines): cores x 2.  The Markov model needs the events at that boundary. */
    double *inflight;
    /* Packets. */
    uint64_t injected, delivered, dropped, drop_rx_ring, drop_nic_buffer, drop_tx, drop_oversize;
    uint64_t reordered;         /* a trace: packets stamped before their predecessor in one pass,
                                   which arrive at its time (trace_reader_next clamps them) */
    uint64_t trace_skipped[TRACE_NCLASSES];   /* a trace: records per class the filter leaves out of
                                                 a pass (pktsrc.skipped) */
    uint64_t measured_packets;  /* delivered in the measured interval */
    uint64_t warmup_packets;    /* received before the measured interval began */
    int warmup_settled;         /* default warm-up: 1 if it ended because the queues settled,
                                   0 if it ran into its cap (the queues were still moving) */
    double sim_seconds, measured_seconds;
    double throughput_gbps, mpps;
    double latency_p50_us, latency_p99_us;
    double latency_mean_us;     /* from the NIC's arrival to the packet's delivery, measured interval */
    /* Memory traffic over the measured interval. */
    uint64_t mem_read_lines, mem_write_lines;
    double mem_read_bytes_per_pkt, mem_write_bytes_per_pkt, mem_gbps;
    /* LLC occupancy at the end, lines per region (REG_L2 = lines in all L2s). */
    uint64_t occupancy[REG_COUNT];
    hier_stats cache;           /* raw hierarchy counters of the measured interval */
    /* Wall clock (the only fields that differ between identical runs). */
    double wall_seconds, sim_mpps;
} dsim_result;

void dsim_result_free(dsim_result *r);

/* Simulate `cfg` with `opt`.  Returns 0, or -1 with e filled (bad trace,
 * impossible configuration, a buffer lost: never a crash). */
int dsim_run(const ddio_config *cfg, const dsim_options *opt, dsim_result *out, ddio_err *e);

/* The address layout of the simulator's packet buffers for driver d and a
 * line of line_size bytes: what dsim_run uses, for the model's set-mapping
 * mixture to map the same addresses (sim/markov/setmap.c). */
int dsim_buffer_layout(const ddio_driver *d, uint32_t line_size, mbuf_layout *out, ddio_err *e);

/* The simulator's PCIe link for `cfg`: the machine's generation, lanes,
 * MPS and MRRS, and the descriptor sizes of its NIC driver (nic.h: mlx5's
 * with its completion compression, driver.rx_cqe_comp, or ice's).  The
 * queueing estimate (qest.c) costs its packets on the same link. */
void dsim_pcie_config(const ddio_config *cfg, pcie_config *out);

static inline double dsim_rate(dsim_hits h)
{
    return h.accesses ? (double)h.hits / (double)h.accesses : 0.0;
}

#endif
