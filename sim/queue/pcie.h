/* pcie.h - the PCIe link model of Neugebauer et al. (SIGCOMM 2018) (pcie-bench, Section 3, Eq. 1-3).
 *
 * Bandwidth.  A lane carries gen1 2.5 GT/s, gen2 5, gen3 8, gen4 16, gen5
 * 32 GT/s, with 8b/10b encoding up to gen2 and 128b/130b from gen3; the
 * physical rate is that times the lanes (gen3 x8: 63.02 Gb/s; the paper
 * rounds a lane to 7.87 and prints 62.96).  The data link layer then loses
 * a fraction to ACK and flow-control DLLPs and SKIP ordered sets: the paper
 * says 8-10%, and 57.88 Gb/s remain at the TLP layer for gen3 x8.  We derive
 * that fraction the way the paper's model does (the spec's recommended ACK
 * and FC-update rates per MPS and width, 8 B per DLLP, plus 4 SKIP symbols
 * per 1538), which gives 8.14% and 57.88 Gb/s for gen3 x8 MPS 256; a
 * config may override it.  Rates are per direction; the link is full duplex.
 *
 * Bytes on the wire (every TLP pays 2 B framing + 6 B DLL + 4 B TLP header):
 *   MWr  (device writes host memory):       ceil(sz / MPS)  * 24 + sz   (Eq. 1)
 *   MRd  (device asks to read host memory): ceil(sz / MRRS) * 24        (Eq. 2)
 *   CplD (the data coming back):            ceil(sz / MPS)  * 20 + sz   (Eq. 3)
 * (MWr/MRd headers are 12 B with 64-bit addresses, 8 B with 32-bit; CplD 8 B;
 * ECRC adds 4 B.)  Eq. 2 as printed in the seed text adds "+ sz"; a read
 * request carries no payload, the data is counted once in Eq. 3, and the
 * paper's own model code counts only the headers, so we do too.
 *
 * Directions, from the device's point of view: UP (device -> host) carries
 * MWr (packet and descriptor write-backs, interrupts) and MRd requests;
 * DOWN (host -> device) carries CplD and the host's MMIO writes (doorbells).
 * pcie_link keeps a "busy until" time per direction, so transfers
 * serialize on each direction and a simulator learns when each completes. */
#ifndef DDIOSIM_QUEUE_PCIE_H
#define DDIOSIM_QUEUE_PCIE_H

#include <stdint.h>
#include "sim/common/err.h"
#include "sim/queue/u63.h"

enum pcie_dir { PCIE_UP = 0, PCIE_DOWN = 1 };

#define PCIE_DLL_SPEC (-1.0)   /* dll_overhead: derive from the spec's ACK/FC/SKIP rates */

/* Descriptor DMA sizes, bytes per descriptor. */
typedef struct pcie_desc_sizes {
    uint32_t rx_desc;   /* RX descriptor the NIC reads (buffer address) */
    uint32_t rx_wb;     /* what the NIC writes back per received packet */
    uint32_t tx_desc;   /* TX descriptor the NIC reads */
    uint32_t tx_wb;     /* what the NIC writes back per completed transmit */
    /* Received packets per RX write-back: 1, or PCIE_MLX5_MINI_CQES when
     * mlx5 compresses its completions (rxq_cqe_comp_en): the NIC then
     * writes the 8-byte mini-CQEs of eight packets as one 64-byte line
     * instead of a 64-byte CQE per packet.  Sessions are taken as long
     * (a loaded queue): one rx_wb line per rx_wb_per packets. */
    uint32_t rx_wb_per;
} pcie_desc_sizes;

/* Mini-CQEs in one 64-byte line of an mlx5 compressed completion session
 * (MLX5_MINI_CQE_ARRAY_SIZE). */
#define PCIE_MLX5_MINI_CQES 8

/* A NIC fetches descriptors a 64-byte line at a time: descriptor i of
 * `bytes` bytes (16: an RX WQE, an eMPW data segment; 64: a TX WQE) starts
 * a fetch when it is the first of its line. */
static inline int pcie_desc_starts_line(uint32_t bytes, uint64_t i)
{
    return bytes >= 64 || (i * bytes) % 64 == 0;
}
/* Descriptor lines fetched per packet: bytes / 64 (a quarter for 16). */
static inline double pcie_desc_lines(uint32_t bytes)
{
    return bytes >= 64 ? (double)((bytes + 63) / 64) : (double)bytes / 64.0;
}

/* 1 when the i-th received packet (from 0) starts an RX write-back line:
 * the NIC writes it, with that packet, and the driver reads it. */
static inline int pcie_rx_wb_due(const pcie_desc_sizes *d, uint64_t i)
{
    const uint32_t per = d->rx_wb_per;
    if (per <= 1)
        return 1;
    /* A power of two (mlx5's mini-CQEs per line) without the division,
     * twice per packet. */
    return (per & (per - 1)) == 0 ? (i & (per - 1)) == 0 : i % per == 0;
}

enum pcie_desc_preset {
    PCIE_DESC_INTEL = 0,  /* ixgbe/i40e style: 16 B descriptors, written back in place */
    PCIE_DESC_MLX5,       /* mlx5: 16 B RX WQE, 64 B TX WQE (one WQEBB), 64 B CQEs */
};

typedef struct pcie_config {
    uint32_t gen;           /* 1..5 */
    uint32_t lanes;         /* 1, 2, 4, 8, 16 or 32 */
    uint32_t mps;           /* Maximum Payload Size, 128..4096, power of two */
    uint32_t mrrs;          /* Maximum Read Request Size, 128..4096, power of two */
    uint32_t rcb;           /* Read Completion Boundary, 64..512 */
    int rcb_chunks;         /* completions are cut at RCB rather than MPS */
    int addr64;             /* 64-bit addresses: 12 B MWr/MRd headers (else 8 B) */
    int ecrc;               /* 4 B end-to-end CRC digest on every TLP */
    double dll_overhead;    /* fraction of the physical rate lost below the TLP
                               layer, in [0, 0.5); PCIE_DLL_SPEC to derive it */
    uint32_t read_latency_ns;  /* host turnaround of a DMA read: end of the MRd
                                  to the first CplD byte on the link */
    pcie_desc_sizes desc;
} pcie_config;

typedef struct pcie_link {
    pcie_config cfg;
    uint32_t mwr_hdr, mrd_hdr, cpld_hdr;  /* bytes per TLP, framing + DLL included */
    uint32_t cpl_chunk;                   /* completion payload granule: MPS or RCB */
    uint32_t mps_shift, mrrs_shift, cpl_shift;   /* log2 of mps, mrrs, cpl_chunk (powers of two) */
    double phys_gbps;                     /* per direction */
    double tlp_gbps;                      /* per direction, after the DLL overhead */
    double ps_per_byte;                   /* at tlp_gbps */
    double read_latency_ps;               /* cfg.read_latency_ns x 1000 */
    double busy_ps[2];                    /* each direction is busy until then (ps); a double,
                                             so per-transfer rounding never accumulates */
    uint64_t bytes[2];                    /* wire bytes sent so far, per direction */
    uint64_t tlps[2];                     /* TLPs sent so far, per direction */
} pcie_link;

/* Gen3 x8, MPS 256, MRRS 512, RCB 64, 64-bit addresses, no ECRC, spec DLL
 * overhead, 500 ns read latency, Intel descriptors. */
void pcie_config_default(pcie_config *c);
void pcie_desc_preset(pcie_desc_sizes *d, enum pcie_desc_preset p);
int pcie_config_validate(const pcie_config *c, ddio_err *e);

/* Physical rate per direction in Gb/s (0 for an unknown gen / width). */
double pcie_phys_gbps(uint32_t gen, uint32_t lanes);
/* The paper model's DLL overhead for (gen, lanes, MPS); gen4/5 reuse the
 * gen3 table as the model does.  -1 for an unknown combination. */
double pcie_dll_overhead_spec(uint32_t gen, uint32_t lanes, uint32_t mps);
/* The same intervals read in the spec's unit: an ACK or FC-update interval
 * is a number of symbol times, and a symbol time carries one byte on each
 * lane, so a DLLP's 8 bytes cost 8 / (interval x lanes) of the link (the
 * SKIP ordered sets go on every lane at once: the same fraction either
 * way).  -1 for an unknown combination. */
double pcie_dll_overhead_per_lane(uint32_t gen, uint32_t lanes, uint32_t mps);

int pcie_link_init(pcie_link *l, const pcie_config *c, ddio_err *e);
/* Idle the link and zero the counters. */
void pcie_link_reset(pcie_link *l);

static inline uint64_t pcie_div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
/* The same for b = 2^shift: MPS, MRRS and RCB are powers of two (validated),
 * and a division per TLP count is slow. */
static inline uint64_t pcie_div_up_pow2(uint64_t a, uint32_t shift) { return (a + (1ull << shift) - 1) >> shift; }

/* TLPs of a sz-byte write, of its read requests, of its completions. */
static inline uint64_t pcie_mwr_tlps(const pcie_link *l, uint32_t sz) { return pcie_div_up_pow2(sz, l->mps_shift); }
static inline uint64_t pcie_mrd_tlps(const pcie_link *l, uint32_t sz) { return pcie_div_up_pow2(sz, l->mrrs_shift); }
static inline uint64_t pcie_cpld_tlps(const pcie_link *l, uint32_t sz) { return pcie_div_up_pow2(sz, l->cpl_shift); }

/* Eq. 1: wire bytes of a sz-byte DMA write (device -> host). */
static inline uint64_t pcie_mwr_bytes(const pcie_link *l, uint32_t sz)
{
    return pcie_mwr_tlps(l, sz) * l->mwr_hdr + sz;
}
/* Eq. 2: wire bytes of the read requests of a sz-byte DMA read (UP). */
static inline uint64_t pcie_mrd_bytes(const pcie_link *l, uint32_t sz)
{
    return pcie_mrd_tlps(l, sz) * l->mrd_hdr;
}
/* Eq. 3: wire bytes of the completions of a sz-byte DMA read (DOWN). */
static inline uint64_t pcie_cpld_bytes(const pcie_link *l, uint32_t sz)
{
    return pcie_cpld_tlps(l, sz) * l->cpld_hdr + sz;
}

/* Serialize `bytes` taking `ps` (bytes x ps_per_byte) on direction `dir`,
 * starting no earlier than now_ps; returns the ps at which the last byte
 * has been sent. */
static inline double pcie_link_send_time(pcie_link *l, enum pcie_dir dir, double now_ps, double ps,
                                         uint64_t bytes, uint64_t tlps)
{
    double start = l->busy_ps[dir] > now_ps ? l->busy_ps[dir] : now_ps;
    l->busy_ps[dir] = start + ps;
    l->bytes[dir] += bytes;
    l->tlps[dir] += tlps;
    return l->busy_ps[dir];
}
static inline double pcie_link_send_ps(pcie_link *l, enum pcie_dir dir, double now_ps,
                                       uint64_t bytes, uint64_t tlps)
{
    return pcie_link_send_time(l, dir, now_ps, u63_to_double(bytes) * l->ps_per_byte, bytes, tlps);
}

/* ps -> ns, rounded up (an event at that ns sees the transfer complete). */
static inline uint64_t pcie_ps_to_ns_up(double ps)
{
    uint64_t ns = u63_from_double(ps / 1000.0);
    return u63_to_double(ns) * 1000.0 < ps ? ns + 1 : ns;
}

/* A sz-byte DMA write by the device issued at now_ns; returns the ns when
 * its last TLP has crossed the link (UP).  Inline, as the nonposted read
 * below: the simulator calls them four times per packet. */
static inline double pcie_link_write_ps(pcie_link *l, uint64_t now_ns, uint32_t sz);
static inline uint64_t pcie_link_write(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    return pcie_ps_to_ns_up(pcie_link_write_ps(l, now_ns, sz));
}
/* The same write, its end left in ps: for a caller that issues a later
 * transfer in the same direction, which ends no earlier (each direction is
 * a FIFO: start >= busy_ps, and adding a transfer's non-negative time
 * never rounds below start), so only the later one's ns is needed. */
static inline double pcie_link_write_ps(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    return pcie_link_send_ps(l, PCIE_UP, u63_to_double(now_ns) * 1000.0, pcie_mwr_bytes(l, sz),
                             pcie_mwr_tlps(l, sz));
}
/* A sz-byte DMA read by the device issued at now_ns: the MRd requests go UP,
 * then after read_latency_ns the completions come DOWN; returns the ns at
 * which the device has all the data. */
uint64_t pcie_link_read(pcie_link *l, uint64_t now_ns, uint32_t sz);

/* The same read, but its MRd requests are not queued behind the posted
 * writes already waiting on the upstream link: PCIe keeps separate flow
 * control credits for posted (MWr) and non-posted (MRd) requests and the
 * link interleaves them.  The requests still use upstream bandwidth: they
 * push the queued writes back by their own size.  This is what a NIC that
 * receives and transmits at once sees; with a single FIFO, a backlog of
 * received packets would stall every transmit fetch behind it. */
static inline double pcie_link_read_nonposted_ps(pcie_link *l, uint64_t now_ns, uint32_t sz);
static inline uint64_t pcie_link_read_nonposted(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    return pcie_ps_to_ns_up(pcie_link_read_nonposted_ps(l, now_ns, sz));
}
/* A DMA read's wire bytes, TLPs and link times, for a size (pcie_read_of)
 * or precomputed for a fixed one (the descriptor reads): the same products
 * either way. */
typedef struct pcie_read_cost {
    uint64_t req_bytes, req_tlps, cpl_bytes, cpl_tlps;
    double req_ps, cpl_ps;
} pcie_read_cost;
static inline pcie_read_cost pcie_read_of(const pcie_link *l, uint32_t sz)
{
    pcie_read_cost c = {.req_bytes = pcie_mrd_bytes(l, sz), .req_tlps = pcie_mrd_tlps(l, sz),
                        .cpl_bytes = pcie_cpld_bytes(l, sz), .cpl_tlps = pcie_cpld_tlps(l, sz)};
    c.req_ps = u63_to_double(c.req_bytes) * l->ps_per_byte;
    c.cpl_ps = u63_to_double(c.cpl_bytes) * l->ps_per_byte;
    return c;
}
/* A write's, likewise. */
typedef struct pcie_write_cost {
    uint64_t bytes, tlps;
    double ps;
} pcie_write_cost;
static inline pcie_write_cost pcie_write_of(const pcie_link *l, uint32_t sz)
{
    pcie_write_cost c = {.bytes = pcie_mwr_bytes(l, sz), .tlps = pcie_mwr_tlps(l, sz)};
    c.ps = u63_to_double(c.bytes) * l->ps_per_byte;
    return c;
}

/* pcie_link_read_nonposted_ps for a read of cost c. */
static inline double pcie_link_read_nonposted_cost(pcie_link *l, uint64_t now_ns, const pcie_read_cost *c)
{
    double now_ps = u63_to_double(now_ns) * 1000.0;
    double req_done = now_ps + c->req_ps;
    /* The requests take their slot now; queued writes move back by as much. */
    l->busy_ps[PCIE_UP] = (l->busy_ps[PCIE_UP] > now_ps ? l->busy_ps[PCIE_UP] : now_ps) + c->req_ps;
    l->bytes[PCIE_UP] += c->req_bytes;
    l->tlps[PCIE_UP] += c->req_tlps;
    double ready = req_done + l->read_latency_ps;
    return pcie_link_send_time(l, PCIE_DOWN, ready, c->cpl_ps, c->cpl_bytes, c->cpl_tlps);
}
/* The same read, its end left in ps (as pcie_link_write_ps: a later read's
 * completions, DOWN, end no earlier). */
static inline double pcie_link_read_nonposted_ps(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    pcie_read_cost c = pcie_read_of(l, sz);
    return pcie_link_read_nonposted_cost(l, now_ns, &c);
}
/* pcie_link_write for a write of cost c. */
static inline uint64_t pcie_link_write_cost(pcie_link *l, uint64_t now_ns, const pcie_write_cost *c)
{
    return pcie_ps_to_ns_up(
        pcie_link_send_time(l, PCIE_UP, u63_to_double(now_ns) * 1000.0, c->ps, c->bytes, c->tlps));
}
/* A sz-byte MMIO write by the host (e.g. a 4 B doorbell / tail pointer),
 * sent DOWN as an MWr; returns the ns it has reached the device. */
uint64_t pcie_link_host_write(pcie_link *l, uint64_t now_ns, uint32_t sz);
/* The fewest ns d >= 1 of link time whose bytes, d x tlp_gbps / 8 in
 * doubles, exceed `bytes` (UINT64_MAX if no d below 2^62): a backlog of
 * b >= 1 ns holds more than `bytes` iff b >= this. */
uint64_t pcie_backlog_ns_over(const pcie_link *l, uint64_t bytes);
/* The ns at which direction `dir` becomes idle. */
static inline uint64_t pcie_link_busy_until(const pcie_link *l, enum pcie_dir dir)
{
    return pcie_ps_to_ns_up(l->busy_ps[dir]);
}

/* Wire bytes per packet of a DPDK-style NIC in each direction, for a DMA of
 * `dma_sz` bytes (the frame without FCS).  rx: the NIC reads RX descriptors
 * in batches of `batch`, writes the packet and writes back one rx_wb per
 * rx_wb_per packets (rounded up) in batches of `batch`; tx: it reads TX descriptors in batches,
 * reads the packet, writes back tx_wb once per `batch` packets (Intel RS
 * bit / mlx5 completion request); the driver rings one 4 B doorbell per
 * batch and per direction.  No interrupts, no head-pointer reads (DPDK
 * polls descriptors in host memory). */
typedef struct pcie_pkt_cost {
    double up;              /* device -> host bytes per packet */
    double down;            /* host -> device bytes per packet */
} pcie_pkt_cost;
void pcie_nic_cost(const pcie_link *l, uint32_t dma_sz, uint32_t batch, int rx, int tx,
                   pcie_pkt_cost *out);
/* Packets per second the link sustains for a per-packet cost (the busier
 * direction limits). */
double pcie_max_pps(const pcie_link *l, const pcie_pkt_cost *c);

#endif
