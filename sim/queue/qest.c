/* qest.c - the queueing estimate of the logical queue lengths (see qest.h;
 * the approximation and its error are in docs/model.md, "Queueing estimate").
 *
 * Per core i, with arrival rate lambda_i and service time s per packet:
 *   light load (rho_i = lambda_i s < 1):
 *     RX          = lambda_i (DMA time + Kingman wait for the core)
 *     RX Replenish= Q_RX - RX - U                 (U: consumed, not yet refilled)
 *     TX          = lambda_i (PCIe read latency + data + wire time + wire queueing)
 *   core-bound (rho_i >= 1): the core takes full bursts of `burst`
 *     RX Replenish= P                             (refilled, then consumed by the NIC)
 *     RX          = Q_RX - RX Replenish - U
 *     TX          = (1/s) T_tx + burst/2 min(1, S wire/s)   (bursts drained by the wire)
 *   U, P and TX Recycle follow the NIC driver's refill and free rules: the
 *   driver's nic_ops.qest (nic.h; mlx5 refills after every burst: U = 0, P =
 *   burst / (2 rho_i), and frees at every tx_burst).
 *   The software queue stays empty unless the wire cannot carry the output. */
#include "sim/queue/qest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/queue/nic.h"
#include "sim/queue/pcie.h"
#include "sim/queue/pktsrc.h"
#include "sim/queue/qmodel.h"

/* dsim_options_default's NIC packet buffer (bytes). */
#define DSIM_NIC_BUFFER_DEFAULT (256 * 1024)

void qest_result_free(qest_result *r)
{
    free(r->per_core);
    free(r->inflight);
    r->per_core = NULL;
    r->inflight = NULL;
}

/* nic.tx_packet_ns: the time core i's TX queue gives a packet (its own
 * work and its data's link time, once per queue fetching at once: this one
 * and each other in the fraction of time it has a packet), or the core's
 * service time s when that is longer: what bounds the core's rate. */
static double core_or_tx(const ddio_config *cfg, const qest_input *in, double pps, double s, double xfer, uint32_t i)
{
    double tq = cfg->machine.nic.tx_packet_ns;
    if (tq <= 0)
        return s;
    uint32_t S = cfg->workload.cores;
    double sharing = 1;
    for (uint32_t j = 0; j < S; j++) {
        if (j == i)
            continue;
        double busy = pps * (in->share ? in->share[j] : 1.0 / S) * 1e-9 * (tq + xfer);
        sharing += busy < 1 ? busy : 1;
    }
    double p = tq + xfer * sharing;
    return p > s ? p : s;
}

/* Service time of one packet: the workload's cycles plus the latency of its
 * line accesses (first access to a line: LLC or memory by cpu_hit; later
 * accesses to it: L2) and of its table lines (LLC), at the machine's uncore
 * clock as the simulator charges them (ddio_machine_core_latency). */
static double service_ns(const ddio_config *cfg, double len, double cpu_hit)
{
    const ddio_machine *m = &cfg->machine;
    const ddio_workload *w = &cfg->workload;
    uint32_t ls = m->llc.line_size;
    ddio_line_op ops[1024];
    size_t n = ddio_workload_expand(w, (uint32_t)len, ls, w->driver.headroom % ls, ops, 1024);
    if (n > 1024)
        n = 1024;
    double l2_ns, llc_ns, mem_ns;
    ddio_machine_core_latency(m, &l2_ns, &llc_ns, &mem_ns);
    double lat = 0;
    for (size_t i = 0; i < n; i++) {
        if (ops[i].op == DDIO_SEG_FLUSH)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= ops[j].line == ops[i].line && ops[j].op != DDIO_SEG_FLUSH;
        if (w->mode == DDIO_MODE_SEND || seen)
            lat += l2_ns;
        else
            lat += cpu_hit * llc_ns + (1 - cpu_hit) * mem_ns;
    }
    if (w->mode == DDIO_MODE_SEND)
        lat = ceil(len / ls) * l2_ns;   /* the core writes every line of the packet (L2) */
    lat += ddio_workload_table_lines(w) * llc_ns;
    return ddio_workload_stall_ns(w, lat) + ddio_workload_cycles(w, (uint32_t)len) / m->frequency_ghz;
}

int qest_estimate(const ddio_config *cfg, const qest_input *in, qest_result *r, ddio_err *e)
{
    memset(r, 0, sizeof *r);
    const ddio_machine *m = &cfg->machine;
    const ddio_workload *w = &cfg->workload;
    const ddio_driver *d = &w->driver;
    uint32_t S = w->cores;
    if (!(in->mean_pkt >= 60 && in->mean_pkt <= 9000))
        return ddio_errf(e, DDIO_EXIT_USAGE, "queueing estimate: mean packet size %g is outside 60..9000 bytes",
                         in->mean_pkt);
    pcie_config pc;
    dsim_pcie_config(cfg, &pc);
    pcie_link link;
    if (pcie_link_init(&link, &pc, e) != 0)
        return -1;
    r->per_core = calloc((size_t)S * Q_COUNT, sizeof(double));
    r->inflight = calloc((size_t)S * 2, sizeof(double));
    if (!r->per_core || !r->inflight)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    r->cores = S;
    double len = in->mean_pkt, line = m->nic.line_rate_gbps;
    double line_pps = line * 1e9 / 8.0 / (len + PKTSRC_WIRE_OVERHEAD);
    double pps = in->rate_gbps > 0 ? in->rate_gbps * 1e9 / 8.0 / len : line_pps;
    if (pps > line_pps)
        pps = line_pps;
    r->offered_pps = pps;
    double s = service_ns(cfg, len, in->cpu_hit);
    double wire = (len + PKTSRC_WIRE_OVERHEAD) * 8.0 / line;
    double dma = (double)pcie_mwr_bytes(&link, (uint32_t)len) * link.ps_per_byte / 1000.0;
    /* A frame's read completions on the link: the TX read's data time, and
     * what nic.tx_packet_ns charges once per queue sharing the link. */
    double xfer = (double)pcie_cpld_bytes(&link, (uint32_t)len) * link.ps_per_byte / 1000.0;
    double rd = link.cfg.read_latency_ns + xfer;
    r->service_ns = s;
    r->wire_ns = wire;
    /* PCIe: per packet, upstream the data and CQE writes and the TX read
     * requests, downstream the completions (the simulator's NIC). */
    const pcie_desc_sizes *dz = &link.cfg.desc;
    const uint32_t wqe_line = dz->tx_desc < 64 ? 64 : dz->tx_desc;   /* fetched a line at a time */
    const double wqe_share = pcie_desc_lines(dz->tx_desc) * 64.0 / wqe_line;
    double up_b = (double)(pcie_mwr_bytes(&link, (uint32_t)len) + pcie_mrd_bytes(&link, (uint32_t)len)) +
                  (double)pcie_mrd_bytes(&link, wqe_line) * wqe_share +
                  (double)pcie_mwr_bytes(&link, dz->rx_wb) / dz->rx_wb_per;
    double dn_b = (double)pcie_cpld_bytes(&link, wqe_line) * wqe_share + (double)pcie_cpld_bytes(&link, (uint32_t)len);
    double pcie_ns = (up_b > dn_b ? up_b : dn_b) * link.ps_per_byte / 1000.0;
    double burst = d->burst, ca2 = in->ca2;
    /* An overflowing RX ring with a NIC hold behind it: every descriptor the
     * driver posts takes a held frame at once (nic.rx_hold_bytes). */
    const int hold = m->nic.rx_hold_bytes >= len;
    const nic_ops *nic = nic_ops_of(cfg);
    double accepted = 0, out_total = 0;
    for (uint32_t i = 0; i < S; i++) {
        double sh = in->share ? in->share[i] : 1.0 / S;
        double lam = pps * sh * 1e-9;   /* per ns */
        double rho = lam * core_or_tx(cfg, in, pps, s, xfer, i);
        if (rho > r->rho_max)
            r->rho_max = rho;
        double mu = rho < 1 ? lam : 1.0 / core_or_tx(cfg, in, pps, s, xfer, i);
        out_total += mu;
    }
    /* The PCIe link: when the packets the cores can take exceed what it
     * carries, the NIC's packet buffer stays full and every DMA waits behind
     * it (RX in flight grows with the buffer, not with the ring; the TX
     * read requests are small and not delayed by it). */
    double rho_p = out_total * pcie_ns, delay_up = 0, scale = 1;
    if (rho_p >= 0.999) {
        delay_up = (double)DSIM_NIC_BUFFER_DEFAULT * link.ps_per_byte / 1000.0;
        scale = 1.0 / (rho_p > 1 ? rho_p : 1);
        out_total *= scale;
        r->regime = "pcie-bound";
    }
    /* The wire serves every core: its load decides the TX queueing. */
    double rho_w = out_total * wire;
    if (rho_w > 1 && rho_w < 1 + 1e-9)
        rho_w = 1;  /* forwarding at line rate: the output cannot exceed the input */
    double wq_wire = 0;
    if (rho_w < 1 - 1e-9 && rho_w > 0) {
        qm_result q;
        if (qm_kingman(out_total, wire, ca2, 0, &q, e) != 0)
            return -1;
        wq_wire = q.Wq;
    } else if (rho_w > 1) {
        wq_wire = INFINITY;
    }
    double t_tx = rd + wire + (isfinite(wq_wire) ? wq_wire : 0);
    if (!r->regime)
        r->regime = "light";
    for (uint32_t i = 0; i < S; i++) {
        double sh = in->share ? in->share[i] : 1.0 / S;
        double si = core_or_tx(cfg, in, pps, s, xfer, i);   /* the core's, or its TX queue's if slower */
        double lam = pps * sh * 1e-9 * (rho_p >= 0.999 && pps * sh * 1e-9 * si < 1 ? scale : 1);
        double rho = lam * si;
        double *L = &r->per_core[(size_t)i * Q_COUNT];
        double mu_i = rho < 1 ? lam : 1.0 / si;
        r->inflight[2 * i] = mu_i * (dma + delay_up);
        r->inflight[2 * i + 1] = mu_i * (rd + wire);
        if (lam <= 0) {
            L[Q_RX_REPLENISH] = d->rx_ring;
            continue;
        }
        if (rho < 1) {
            double wq = 0;
            if (ca2 > 0) {
                qm_result q;
                if (qm_kingman(lam, si, ca2, 0, &q, e) != 0)
                    return -1;
                wq = q.Wq;
            }
            double rx = lam * (dma + wq + delay_up);
            double cap = d->rx_ring - burst / (2 * (rho > 0.5 ? rho : 0.5));
            if (rx > cap)
                rx = cap;
            double x = lam * t_tx;
            nic_qest_out dq;
            nic->qest(cfg, &(nic_qest_in){.rho = rho, .tx_x = x, .ca2 = ca2, .tx = x, .tx_full = rho_w > 1}, &dq);
            L[Q_RX] = rx;
            L[Q_RX_REPLENISH] = d->rx_ring - rx - dq.rx_unposted;
            L[Q_TX] = x;
            L[Q_TX_RECYCLE] = dq.tx_recycle;
            accepted += lam;
        } else if (si > s) {
            /* The TX queue is the slower: the core waits on it (a blocking
             * software queue), so it, the TX ring and the RX ring fill. */
            r->regime = "tx-bound";
            nic_qest_out dq;
            nic->qest(cfg, &(nic_qest_in){.core_bound = 1, .tx_full = 1, .rho = rho, .ca2 = ca2}, &dq);
            L[Q_RX_REPLENISH] = hold ? 0 : dq.rx_posted_full;
            L[Q_RX] = d->rx_ring - L[Q_RX_REPLENISH] - dq.rx_unposted;
            L[Q_TX_RECYCLE] = dq.tx_recycle;
            L[Q_TX] = d->tx_ring - L[Q_TX_RECYCLE];
            L[Q_SW] = d->sw_tx_queue;
            accepted += 1.0 / si;
        } else {
            r->regime = "core-bound";
            double mu = 1.0 / s;
            double drain = S * wire / s;
            L[Q_TX] = mu * t_tx + burst / 2 * (drain < 1 ? drain : 1);
            nic_qest_out dq;
            nic->qest(cfg, &(nic_qest_in){.core_bound = 1, .tx_full = rho_w > 1, .rho = rho, .ca2 = ca2, .tx = L[Q_TX]},
                      &dq);
            L[Q_RX_REPLENISH] = hold ? 0 : dq.rx_posted_full;
            L[Q_RX] = d->rx_ring - L[Q_RX_REPLENISH] - dq.rx_unposted;
            L[Q_TX_RECYCLE] = dq.tx_recycle;
            accepted += mu;
        }
        if (rho_w > 1) {
            /* The wire cannot carry the output: TX rings and software queues fill. */
            r->regime = "wire-bound";
            L[Q_TX] = d->tx_ring - L[Q_TX_RECYCLE];
            L[Q_SW] = d->sw_tx_queue;
        }
    }
    if (rho_w > 1)
        accepted = 1.0 / wire;
    /* An RX ring that overflows keeps the NIC's hold full (nic.rx_hold_bytes). */
    if (r->regime && (strcmp(r->regime, "core-bound") == 0 || strcmp(r->regime, "tx-bound") == 0))
        r->nic_held = floor(m->nic.rx_hold_bytes / len);
    r->accepted_pps = accepted * 1e9;
    for (uint32_t i = 0; i < S; i++)
        for (int q = 0; q < Q_COUNT; q++)
            r->mean[q] += r->per_core[(size_t)i * Q_COUNT + q] / S;
    return 0;
}
