/* pcie.c - the PCIe link model (pcie.h) of Neugebauer et al., "Understanding
 * PCIe performance for end host networking", SIGCOMM 2018. */
#include "sim/queue/pcie.h"

#include <string.h>

/* Recommended ACK/FC-update intervals in symbol times per (gen, width, MPS),
 * PCIe Base Spec rev 5.0 Tables 3-7..3-9 (ACK limits; the FC update
 * guidelines of Tables 2-46..2-48 are used with the same values), as
 * tabulated by the paper's model (pcie-bench/pcie-model, model/pcie.py; its
 * FC table differs from its ACK table only at gen1 x32 MPS 2048 and gen2 x32
 * MPS 4096).  Rows x1..x32, columns MPS 128..4096. */
static const uint16_t ack_limit[3][6][6] = {
    { /* gen1 */
        {237, 416, 559, 1071, 2095, 4143},
        {128, 217, 289, 545, 1057, 2081},
        {73, 118, 154, 282, 538, 1050},
        {67, 107, 86, 150, 278, 534},
        {48, 72, 86, 150, 278, 534},
        {33, 45, 52, 84, 148, 276},
    },
    { /* gen2 */
        {288, 467, 610, 1122, 2146, 4194},
        {179, 268, 340, 596, 1108, 2132},
        {124, 169, 205, 333, 589, 1101},
        {118, 158, 137, 201, 329, 585},
        {99, 123, 137, 201, 329, 585},
        {84, 96, 103, 135, 199, 237},
    },
    { /* gen3 (and, as in the model, gen4/gen5) */
        {333, 512, 655, 1167, 2191, 4239},
        {224, 313, 385, 641, 1153, 2177},
        {169, 214, 250, 378, 634, 1146},
        {163, 203, 182, 246, 374, 630},
        {144, 168, 182, 246, 374, 630},
        {129, 141, 148, 180, 244, 372},
    },
};

enum {
    DLLP_BYTES = 8,          /* 2 B framing + 4 B DLLP + 2 B CRC, per ACK or FC update */
    SKIP_LEN = 4,            /* SKIP ordered set symbols ... */
    SKIP_INTERVAL = 1538,    /* ... per this many symbol times */
    FRAMING_DLL = 8,         /* 2 B physical framing + 6 B DLL (sequence number + LCRC) */
    TLP_COMMON_HDR = 4,
};

static int log2_index(uint32_t x, uint32_t lo, int n)
{
    for (int i = 0; i < n; i++)
        if (x == lo << i)
            return i;
    return -1;
}

double pcie_phys_gbps(uint32_t gen, uint32_t lanes)
{
    static const double gts[6] = {0, 2.5, 5.0, 8.0, 16.0, 32.0};
    if (gen < 1 || gen > 5 || log2_index(lanes, 1, 6) < 0)
        return 0;
    double enc = gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
    return gts[gen] * enc * lanes;
}

double pcie_dll_overhead_spec(uint32_t gen, uint32_t lanes, uint32_t mps)
{
    int li = log2_index(lanes, 1, 6), mi = log2_index(mps, 128, 6);
    if (gen < 1 || gen > 5 || li < 0 || mi < 0)
        return -1;
    uint32_t g = gen > 3 ? 3 : gen;
    double every = ack_limit[g - 1][li][mi];
    /* One ACK and one FC update per interval, plus clock-compensation SKIPs. */
    return 2.0 * DLLP_BYTES / every + (double)SKIP_LEN / SKIP_INTERVAL;
}

double pcie_dll_overhead_per_lane(uint32_t gen, uint32_t lanes, uint32_t mps)
{
    double table = pcie_dll_overhead_spec(gen, lanes, mps);
    if (table < 0)
        return -1;
    double skip = (double)SKIP_LEN / SKIP_INTERVAL;
    return (table - skip) / lanes + skip;
}

void pcie_desc_preset(pcie_desc_sizes *d, enum pcie_desc_preset p)
{
    d->rx_wb_per = 1;
    if (p == PCIE_DESC_MLX5) {
        d->rx_desc = 16;     /* mlx5_wqe_data_seg */
        d->rx_wb = 64;       /* CQE */
        d->tx_desc = 64;     /* one WQE basic block: ctrl + eth + data segments */
        d->tx_wb = 64;       /* CQE */
    } else {
        d->rx_desc = 16;     /* read format: packet + header buffer addresses */
        d->rx_wb = 16;       /* write-back format, in place */
        d->tx_desc = 16;
        d->tx_wb = 16;       /* DD bit written back in place (RS) */
    }
}

void pcie_config_default(pcie_config *c)
{
    memset(c, 0, sizeof *c);
    c->gen = 3;
    c->lanes = 8;
    c->mps = 256;
    c->mrrs = 512;
    c->rcb = 64;
    c->rcb_chunks = 0;
    c->addr64 = 1;
    c->ecrc = 0;
    c->dll_overhead = PCIE_DLL_SPEC;
    c->read_latency_ns = 500;
    pcie_desc_preset(&c->desc, PCIE_DESC_INTEL);
}

int pcie_config_validate(const pcie_config *c, ddio_err *e)
{
    if (c->gen < 1 || c->gen > 5)
        return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: gen %u is not in [1, 5]", c->gen);
    if (log2_index(c->lanes, 1, 6) < 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: %u lanes is not one of 1, 2, 4, 8, 16, 32", c->lanes);
    if (log2_index(c->mps, 128, 6) < 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: MPS %u is not one of 128..4096 (powers of two)", c->mps);
    if (log2_index(c->mrrs, 128, 6) < 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: MRRS %u is not one of 128..4096 (powers of two)", c->mrrs);
    if (log2_index(c->rcb, 64, 4) < 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: RCB %u is not one of 64, 128, 256, 512", c->rcb);
    if (c->dll_overhead != PCIE_DLL_SPEC && !(c->dll_overhead >= 0 && c->dll_overhead < 0.5))
        return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: DLL overhead %g is not in [0, 0.5)", c->dll_overhead);
    const uint32_t *d = &c->desc.rx_desc;
    static const char *dn[4] = {"rx_desc", "rx_wb", "tx_desc", "tx_wb"};
    for (int i = 0; i < 4; i++)
        if (d[i] == 0 || d[i] > 4096)
            return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: descriptor size %s = %u is not in [1, 4096]",
                             dn[i], d[i]);
    if (c->desc.rx_wb_per == 0 || c->desc.rx_wb_per > 64)
        return ddio_errf(e, DDIO_EXIT_USAGE, "pcie: %u packets per RX write-back is not in [1, 64]",
                         c->desc.rx_wb_per);
    return 0;
}

int pcie_link_init(pcie_link *l, const pcie_config *c, ddio_err *e)
{
    memset(l, 0, sizeof *l);
    if (pcie_config_validate(c, e) < 0)
        return -1;
    l->cfg = *c;
    uint32_t addr = c->addr64 ? 12 : 8, dig = c->ecrc ? 4 : 0;
    l->mwr_hdr = FRAMING_DLL + TLP_COMMON_HDR + addr + dig;   /* 24 */
    l->mrd_hdr = FRAMING_DLL + TLP_COMMON_HDR + addr + dig;   /* 24 */
    l->cpld_hdr = FRAMING_DLL + TLP_COMMON_HDR + 8 + dig;     /* 20 */
    l->cpl_chunk = c->rcb_chunks ? c->rcb : c->mps;
    l->mps_shift = (uint32_t)__builtin_ctz(c->mps);
    l->mrrs_shift = (uint32_t)__builtin_ctz(c->mrrs);
    l->cpl_shift = (uint32_t)__builtin_ctz(l->cpl_chunk);
    double ovh = c->dll_overhead == PCIE_DLL_SPEC
                     ? pcie_dll_overhead_spec(c->gen, c->lanes, c->mps)
                     : c->dll_overhead;
    l->cfg.dll_overhead = ovh;
    l->phys_gbps = pcie_phys_gbps(c->gen, c->lanes);
    l->tlp_gbps = l->phys_gbps * (1.0 - ovh);
    l->ps_per_byte = 8000.0 / l->tlp_gbps;
    l->read_latency_ps = l->cfg.read_latency_ns * 1000.0;
    return 0;
}

void pcie_link_reset(pcie_link *l)
{
    l->busy_ps[PCIE_UP] = l->busy_ps[PCIE_DOWN] = 0.0;
    memset(l->bytes, 0, sizeof l->bytes);
    memset(l->tlps, 0, sizeof l->tlps);
}

uint64_t pcie_link_read(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    double req_done = pcie_link_send_ps(l, PCIE_UP, now_ns * 1000.0, pcie_mrd_bytes(l, sz),
                                          pcie_mrd_tlps(l, sz));
    double ready = req_done + l->read_latency_ps;
    double done = pcie_link_send_ps(l, PCIE_DOWN, ready, pcie_cpld_bytes(l, sz),
                                      pcie_cpld_tlps(l, sz));
    return pcie_ps_to_ns_up(done);
}

uint64_t pcie_link_host_write(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    double done = pcie_link_send_ps(l, PCIE_DOWN, now_ns * 1000.0, pcie_mwr_bytes(l, sz),
                                      pcie_mwr_tlps(l, sz));
    return pcie_ps_to_ns_up(done);
}

void pcie_nic_cost(const pcie_link *l, uint32_t dma_sz, uint32_t batch, int rx, int tx,
                   pcie_pkt_cost *out)
{
    const pcie_desc_sizes *d = &l->cfg.desc;
    double b = batch ? batch : 1;
    uint32_t nb = (uint32_t)b;
    double up = 0, down = 0;
    const uint32_t doorbell = 4;
    if (rx) {
        up += (double)pcie_mrd_bytes(l, nb * d->rx_desc) / b;     /* fetch RX descriptors */
        down += (double)pcie_cpld_bytes(l, nb * d->rx_desc) / b;
        up += (double)pcie_mwr_bytes(l, dma_sz);                 /* the packet */
        /* write-backs / CQEs: a batch's lines, rx_wb_per packets to a line */
        up += (double)pcie_mwr_bytes(l, (nb + d->rx_wb_per - 1) / d->rx_wb_per * d->rx_wb) / b;
        down += (double)pcie_mwr_bytes(l, doorbell) / b;          /* RX tail doorbell */
    }
    if (tx) {
        up += (double)pcie_mrd_bytes(l, nb * d->tx_desc) / b;     /* fetch TX descriptors */
        down += (double)pcie_cpld_bytes(l, nb * d->tx_desc) / b;
        up += (double)pcie_mrd_bytes(l, dma_sz);                 /* read the packet */
        down += (double)pcie_cpld_bytes(l, dma_sz);
        up += (double)pcie_mwr_bytes(l, d->tx_wb) / b;            /* one completion per batch */
        down += (double)pcie_mwr_bytes(l, doorbell) / b;          /* TX tail doorbell */
    }
    out->up = up;
    out->down = down;
}

double pcie_max_pps(const pcie_link *l, const pcie_pkt_cost *c)
{
    double worst = c->up > c->down ? c->up : c->down;
    if (worst <= 0)
        return 0;
    return l->tlp_gbps * 1e9 / 8.0 / worst;
}

/* The backlog test on the hot path as an integer compare: d x tlp_gbps / 8
 * (doubles, as written there) is non-decreasing in d, so a binary search
 * finds where it first exceeds `bytes`. */
static int backlog_over(const pcie_link *l, uint64_t d, uint64_t bytes)
{
    return u63_to_double(d) * l->tlp_gbps / 8.0 > (double)bytes;
}

uint64_t pcie_backlog_ns_over(const pcie_link *l, uint64_t bytes)
{
    uint64_t lo = 1, hi = 1ull << 62;
    if (!backlog_over(l, hi, bytes))
        return UINT64_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (backlog_over(l, mid, bytes))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
