/* test_queue_pcie.c - the PCIe model of Neugebauer et al. (SIGCOMM 2018) (Section 3, Eq. 1-3).
 *
 * Byte counts are worked out by hand from the equations (MWr/MRd header
 * 24 B = 2 framing + 6 DLL + 4 TLP + 12 MWr/MRd; CplD 20 B). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "sim/queue/pcie.h"
#include "sim/queue/u63.h"

static void link_default(pcie_link *l)
{
    pcie_config c;
    pcie_config_default(&c);
    ddio_err e;
    cr_assert_eq(pcie_link_init(l, &c, &e), 0, "%s", e.msg);
}

Test(queue_pcie, gen3_x8_bandwidth_matches_the_paper)
{
    pcie_link l;
    link_default(&l);
    /* 8 lanes x 8 GT/s x 128/130 = 63.015 Gb/s; the paper rounds a lane to
     * 7.87 Gb/s and prints 8 x 7.87 = 62.96. */
    cr_assert_float_eq(l.phys_gbps, 64.0 * 128.0 / 130.0, 1e-9);
    cr_assert_lt(fabs(l.phys_gbps - 62.96), 0.06, "phys %.3f", l.phys_gbps);
    /* DLL: 8-10% (paper); ACK + FC every 203 symbols and SKIP 4/1538 give 8.14%. */
    cr_assert_float_eq(l.cfg.dll_overhead, 16.0 / 203.0 + 4.0 / 1538.0, 1e-12);
    cr_assert(l.cfg.dll_overhead >= 0.08 && l.cfg.dll_overhead <= 0.10);
    /* "around 57.88 Gb/s available at the TLP layer" */
    cr_assert_lt(fabs(l.tlp_gbps - 57.88), 0.005, "tlp %.4f", l.tlp_gbps);
}

Test(queue_pcie, physical_rates_of_each_generation)
{
    cr_assert_float_eq(pcie_phys_gbps(1, 1), 2.0, 1e-12);            /* 2.5 GT/s 8b/10b */
    cr_assert_float_eq(pcie_phys_gbps(2, 4), 16.0, 1e-12);           /* 5 GT/s 8b/10b */
    cr_assert_float_eq(pcie_phys_gbps(3, 16), 128.0 * 128 / 130, 1e-9);
    cr_assert_float_eq(pcie_phys_gbps(4, 16), 256.0 * 128 / 130, 1e-9);
    cr_assert_float_eq(pcie_phys_gbps(5, 16), 512.0 * 128 / 130, 1e-9);
    cr_assert_eq(pcie_phys_gbps(6, 8), 0);
    cr_assert_eq(pcie_phys_gbps(3, 3), 0);
    /* Smaller MPS: more frequent ACK/FC DLLPs (gen3 x8 MPS 128: every 163). */
    cr_assert_float_eq(pcie_dll_overhead_spec(3, 8, 128), 16.0 / 163 + 4.0 / 1538, 1e-12);
    cr_assert_float_eq(pcie_dll_overhead_spec(4, 8, 256), pcie_dll_overhead_spec(3, 8, 256), 1e-15);
    cr_assert_eq(pcie_dll_overhead_spec(3, 8, 100), -1);
    /* In the spec's unit an interval of 168 symbol times (gen3 x16 MPS 256)
     * carries 168 x 16 bytes: an ACK and an FC update cost 16 / 2688. */
    cr_assert_float_eq(pcie_dll_overhead_per_lane(3, 16, 256), 16.0 / (168 * 16) + 4.0 / 1538, 1e-12);
    cr_assert_float_eq(pcie_dll_overhead_per_lane(3, 1, 256), pcie_dll_overhead_spec(3, 1, 256), 1e-15);
    cr_assert_eq(pcie_dll_overhead_per_lane(3, 16, 100), -1);
}

Test(queue_pcie, equation_1_to_3_byte_counts)
{
    pcie_link l;
    link_default(&l);                   /* MPS 256, MRRS 512 */
    cr_assert_eq(l.mwr_hdr, 24);
    cr_assert_eq(l.mrd_hdr, 24);
    cr_assert_eq(l.cpld_hdr, 20);
    /* Eq. 1: ceil(sz/256) * 24 + sz */
    cr_assert_eq(pcie_mwr_bytes(&l, 64), 88);
    cr_assert_eq(pcie_mwr_bytes(&l, 256), 280);
    cr_assert_eq(pcie_mwr_bytes(&l, 257), 305);
    cr_assert_eq(pcie_mwr_bytes(&l, 1500), 6 * 24 + 1500);
    /* Eq. 2: ceil(sz/512) * 24 (requests carry no data) */
    cr_assert_eq(pcie_mrd_bytes(&l, 64), 24);
    cr_assert_eq(pcie_mrd_bytes(&l, 256), 24);
    cr_assert_eq(pcie_mrd_bytes(&l, 513), 48);
    cr_assert_eq(pcie_mrd_bytes(&l, 1500), 72);
    /* Eq. 3: ceil(sz/256) * 20 + sz */
    cr_assert_eq(pcie_cpld_bytes(&l, 64), 84);
    cr_assert_eq(pcie_cpld_bytes(&l, 256), 276);
    cr_assert_eq(pcie_cpld_bytes(&l, 1500), 6 * 20 + 1500);

    pcie_config c;
    pcie_config_default(&c);
    c.addr64 = 0;
    c.ecrc = 1;
    c.rcb_chunks = 1;
    c.mps = 512;
    ddio_err e;
    cr_assert_eq(pcie_link_init(&l, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(l.mwr_hdr, 24);            /* 8 + 4 + 8 (32-bit) + 4 ECRC */
    cr_assert_eq(l.cpld_hdr, 24);
    cr_assert_eq(pcie_mwr_bytes(&l, 1500), 3 * 24 + 1500);
    cr_assert_eq(pcie_cpld_bytes(&l, 1500), 24 * 24 + 1500);   /* cut at RCB 64: 24 completions */
}

Test(queue_pcie, invalid_configs_are_rejected)
{
    pcie_config c;
    pcie_link l;
    ddio_err e;
    pcie_config_default(&c);
    c.mps = 300;
    cr_assert_eq(pcie_link_init(&l, &c, &e), -1);
    cr_assert(strstr(e.msg, "MPS 300"), "%s", e.msg);
    pcie_config_default(&c);
    c.gen = 7;
    cr_assert_eq(pcie_link_init(&l, &c, &e), -1);
    pcie_config_default(&c);
    c.dll_overhead = 0.7;
    cr_assert_eq(pcie_link_init(&l, &c, &e), -1);
    pcie_config_default(&c);
    c.desc.tx_wb = 0;
    cr_assert_eq(pcie_link_init(&l, &c, &e), -1);
    cr_assert(strstr(e.msg, "tx_wb"), "%s", e.msg);
    pcie_config_default(&c);
    c.dll_overhead = 0.1;
    cr_assert_eq(pcie_link_init(&l, &c, &e), 0);
    cr_assert_float_eq(l.tlp_gbps, 0.9 * 64 * 128 / 130.0, 1e-9);
}

/* ns to send b wire bytes at the default gen3 x8 TLP rate */
static double wire_ns(const pcie_link *l, double b) { return b * 8.0 / l->tlp_gbps; }

Test(queue_pcie, each_direction_serializes_its_transfers)
{
    pcie_link l;
    link_default(&l);
    /* 88 B at 57.8848 Gb/s = 12.16 ns: done at 13 ns, the next at 24.3 -> 25 ns. */
    cr_assert_eq(pcie_link_write(&l, 0, 64), 13);
    cr_assert_eq(pcie_link_write(&l, 0, 64), 25);
    /* Idle until 100: 112.16 -> 113. */
    cr_assert_eq(pcie_link_write(&l, 100, 64), 113);
    cr_assert_eq(l.bytes[PCIE_UP], 3 * 88);
    cr_assert_eq(l.tlps[PCIE_UP], 3);
    cr_assert_eq(l.bytes[PCIE_DOWN], 0);

    /* A read: 24 B request (3.32 ns) after the writes, 500 ns turnaround,
     * 84 B of completion (11.61 ns) on the idle downstream. */
    pcie_link_reset(&l);
    double t = wire_ns(&l, 24) + 500 + wire_ns(&l, 84);
    cr_assert_eq(pcie_link_read(&l, 0, 64), (uint64_t)ceil(t));
    cr_assert_eq(l.bytes[PCIE_UP], 24);
    cr_assert_eq(l.bytes[PCIE_DOWN], 84);
    /* The request waits for a 1500 B write on the shared upstream. */
    pcie_link_reset(&l);
    uint64_t w = pcie_link_write(&l, 0, 1500);
    t = wire_ns(&l, 1644) + wire_ns(&l, 24) + 500 + wire_ns(&l, 84);
    cr_assert_eq(w, (uint64_t)ceil(wire_ns(&l, 1644)));
    cr_assert_eq(pcie_link_read(&l, 0, 64), (uint64_t)ceil(t));
    /* Host MMIO writes use downstream only. */
    uint64_t up_before = pcie_link_busy_until(&l, PCIE_UP);
    pcie_link_host_write(&l, 0, 4);
    cr_assert_eq(pcie_link_busy_until(&l, PCIE_UP), up_before);
    cr_assert_eq(l.bytes[PCIE_DOWN], 84 + 28);
}

Test(queue_pcie, back_to_back_transfers_do_not_accumulate_rounding)
{
    pcie_link l;
    link_default(&l);
    uint64_t done = 0;
    for (int i = 0; i < 100000; i++)
        done = pcie_link_write(&l, 0, 64);
    double exact = wire_ns(&l, 100000.0 * 88);          /* 1.216 ms */
    cr_assert_lt(fabs((double)done - exact), 1.0, "done %llu, exact %.3f",
                 (unsigned long long)done, exact);
}

/* Neugebauer et al. (SIGCOMM 2018) Section 3 / Fig. 1, "Simple NIC": per packet, TX = tail pointer
 * write, 16 B descriptor read, packet read, interrupt, head pointer read;
 * RX = tail pointer write, 16 B descriptor read, packet write, 16 B
 * descriptor write-back, interrupt, head pointer read.  "Such a device would
 * only achieve 40 Gb/s line rate throughput for Ethernet frames larger than
 * 512B."  A 64 B packet needs several times the link. */
static void simple_nic(const pcie_link *l, uint32_t sz, uint64_t *up, uint64_t *down)
{
    uint64_t u = 0, d = 0;
    /* TX */
    d += pcie_mwr_bytes(l, 4);                                   /* host: tail pointer */
    u += pcie_mrd_bytes(l, 16); d += pcie_cpld_bytes(l, 16);     /* descriptor */
    u += pcie_mrd_bytes(l, sz); d += pcie_cpld_bytes(l, sz);     /* packet */
    u += pcie_mwr_bytes(l, 4);                                   /* MSI */
    d += pcie_mrd_bytes(l, 4); u += pcie_cpld_bytes(l, 4);       /* host: head pointer */
    /* RX */
    d += pcie_mwr_bytes(l, 4);
    u += pcie_mrd_bytes(l, 16); d += pcie_cpld_bytes(l, 16);
    u += pcie_mwr_bytes(l, sz);                                  /* packet */
    u += pcie_mwr_bytes(l, 16);                                  /* descriptor write-back */
    u += pcie_mwr_bytes(l, 4);
    d += pcie_mrd_bytes(l, 4); u += pcie_cpld_bytes(l, 4);
    *up = u;
    *down = d;
}

static double line_rate_pps(uint32_t frame) { return 40e9 / ((frame + 20.0) * 8); }

Test(queue_pcie, simple_nic_cannot_sustain_40g_for_small_frames)
{
    pcie_link l;
    link_default(&l);
    uint64_t up, down;
    /* 64 B frame, 60 B DMA (FCS stripped): up 100 (TX) + 200 (RX), down 168 + 88. */
    simple_nic(&l, 60, &up, &down);
    cr_assert_eq(up, 300);
    cr_assert_eq(down, 256);
    double need_up_gbps = line_rate_pps(64) * 300 * 8 / 1e9;     /* 142.9 Gb/s */
    cr_assert_gt(need_up_gbps, 2 * l.tlp_gbps, "64 B at 40 GbE needs %.1f Gb/s upstream", need_up_gbps);
    double achieved = l.tlp_gbps / (8.0 * 300) * 60 * 8;           /* data Gb/s */
    cr_assert_float_eq(achieved, 11.577, 1e-3);
    /* Line rate needs frames above 512 B; with exact accounting (frame + 20 B
     * on the wire) the saw-tooth crosses for good at 625 B. */
    for (uint32_t f = 64; f <= 1518; f++) {
        simple_nic(&l, f - 4, &up, &down);
        double pps = l.tlp_gbps * 1e9 / 8 / (double)(up > down ? up : down);
        if (f <= 624)
            cr_assert_lt(pps, line_rate_pps(f), "frame %u sustains line rate", f);
        else
            cr_assert_geq(pps, line_rate_pps(f), "frame %u misses line rate", f);
    }
}

/* A DPDK-style NIC batches descriptors (32) and polls: RX+TX of 64 B frames
 * still exceeds gen3 x8 at 40 GbE, 128 B frames fit. */
Test(queue_pcie, dpdk_nic_batched_descriptors)
{
    pcie_link l;
    link_default(&l);
    pcie_pkt_cost c;
    pcie_nic_cost(&l, 60, 32, 1, 1, &c);
    /* up: RX desc 24/32 + packet 84 + write-backs (2*24+512)/32 + TX desc 24/32
     *     + packet MRd 24 + one TX write-back 40/32 */
    cr_assert_float_eq(c.up, 0.75 + 84 + 17.5 + 0.75 + 24 + 1.25, 1e-9);
    /* down: RX desc CplD (2*20+512)/32 + doorbell 28/32 + TX desc 17.25 + packet 80 + doorbell */
    cr_assert_float_eq(c.down, 17.25 + 0.875 + 17.25 + 80 + 0.875, 1e-9);
    cr_assert_lt(pcie_max_pps(&l, &c), line_rate_pps(64));          /* 56.4 < 59.5 Mpps */
    pcie_nic_cost(&l, 124, 32, 1, 1, &c);
    cr_assert_gt(pcie_max_pps(&l, &c), line_rate_pps(128));         /* 37.6 > 33.8 Mpps */
    /* RX only, unbatched, mlx5 sizes: 16 B WQE read, 64 B CQE written. */
    pcie_config cf;
    pcie_config_default(&cf);
    pcie_desc_preset(&cf.desc, PCIE_DESC_MLX5);
    ddio_err e;
    cr_assert_eq(pcie_link_init(&l, &cf, &e), 0);
    pcie_nic_cost(&l, 60, 1, 1, 0, &c);
    cr_assert_float_eq(c.up, 24 + 84 + 88, 1e-9);
    cr_assert_float_eq(c.down, 36 + 28, 1e-9);
    /* mlx5 CQE compression: eight packets' mini-CQEs in one 64-byte line.
     * A batch of 32 writes 4 lines (one 256-byte MWr, 280 B on the wire)
     * where it wrote 32 CQEs (2 x 24 + 2048 B); one packet alone still
     * writes a whole line. */
    cf.desc.rx_wb_per = PCIE_MLX5_MINI_CQES;
    cr_assert_eq(pcie_link_init(&l, &cf, &e), 0);
    pcie_nic_cost(&l, 60, 32, 1, 0, &c);
    cr_assert_float_eq(c.up, 24 / 32.0 + 84 + 280 / 32.0, 1e-9);   /* WQE reads, packet, CQE lines */
    pcie_nic_cost(&l, 60, 1, 1, 0, &c);
    cr_assert_float_eq(c.up, 24 + 84 + 88, 1e-9);
    cr_assert(pcie_rx_wb_due(&cf.desc, 0) && pcie_rx_wb_due(&cf.desc, 8) && pcie_rx_wb_due(&cf.desc, 16));
    for (uint64_t i = 1; i < 8; i++)
        cr_assert(!pcie_rx_wb_due(&cf.desc, i) && !pcie_rx_wb_due(&cf.desc, 8 + i));
    cf.desc.rx_wb_per = 1;
    for (uint64_t i = 0; i < 9; i++)
        cr_assert(pcie_rx_wb_due(&cf.desc, i));
    /* Every count per line, powers of two (a mask) or not (a division):
     * packets 0, per, 2 per, ... start a line. */
    for (uint32_t per = 2; per <= 64; per++) {
        cf.desc.rx_wb_per = per;
        uint32_t due = 0;
        for (uint64_t i = 0; i < 3 * (uint64_t)per + 1; i++) {
            cr_assert_eq(pcie_rx_wb_due(&cf.desc, i), (i / per) * per == i, "per %u, packet %lu", per,
                         (unsigned long)i);
            due += (uint32_t)pcie_rx_wb_due(&cf.desc, i);
        }
        cr_assert_eq(due, 4);
    }
    /* Out of range: refused with the field named. */
    cf.desc.rx_wb_per = 0;
    cr_assert_eq(pcie_link_init(&l, &cf, &e), -1);
    cr_assert(strstr(e.msg, "packets per RX write-back"), "%s", e.msg);
    cf.desc.rx_wb_per = 65;
    cr_assert_eq(pcie_link_init(&l, &cf, &e), -1);
    /* Descriptors are fetched by the line: 16-byte ones four to a line. */
    for (uint64_t i = 0; i < 12; i++) {
        cr_assert_eq(pcie_desc_starts_line(16, i), i % 4 == 0, "16-byte descriptor %llu", (unsigned long long)i);
        cr_assert(pcie_desc_starts_line(64, i));
    }
    cr_assert_float_eq(pcie_desc_lines(16), 0.25, 1e-12);
    cr_assert_float_eq(pcie_desc_lines(64), 1.0, 1e-12);
    cr_assert_float_eq(pcie_desc_lines(128), 2.0, 1e-12);
}

/* Two links from one configuration, to drive side by side. */
static void twin_links(const pcie_config *c, pcie_link *a, pcie_link *b)
{
    ddio_err e;
    cr_assert_eq(pcie_link_init(a, c, &e), 0, "%s", e.msg);
    cr_assert_eq(pcie_link_init(b, c, &e), 0, "%s", e.msg);
}

/* Non-posted reads are not queued behind posted writes, but take their share
 * of the upstream link. */
Test(queue_pcie, nonposted_reads_bypass_queued_writes)
{
    pcie_config c;
    pcie_config_default(&c);
    pcie_link a, b;
    twin_links(&c, &a, &b);
    /* 64 KiB of writes queue up on both links. */
    for (int i = 0; i < 64; i++) {
        pcie_link_write(&a, 0, 1024);
        pcie_link_write(&b, 0, 1024);
    }
    uint64_t backlog = pcie_link_busy_until(&a, PCIE_UP);
    uint64_t fifo = pcie_link_read(&a, 0, 64);
    uint64_t np = pcie_link_read_nonposted(&b, 0, 64);
    cr_expect(fifo > backlog, "a FIFO read waits for the writes: %llu vs %llu", (unsigned long long)fifo,
              (unsigned long long)backlog);
    cr_expect(np < backlog, "a non-posted read does not: %llu vs %llu", (unsigned long long)np,
              (unsigned long long)backlog);
    cr_expect_eq(a.bytes[PCIE_UP], b.bytes[PCIE_UP], "both count the same upstream bytes");
    cr_expect(pcie_link_busy_until(&b, PCIE_UP) > backlog, "the writes are pushed back");
}

/* The TLP counts by shift (MPS, MRRS, RCB are powers of two) equal the
 * ceiling divisions they replace, for every valid size and every size of
 * a transfer up to 16 KiB. */
Test(queue_pcie, tlp_counts_by_shift_equal_division)
{
    const uint32_t sizes[] = {128, 256, 512, 1024, 2048, 4096};
    const uint32_t rcbs[] = {64, 128, 256, 512};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 4; k++)
                for (int chunks = 0; chunks < 2; chunks++) {
                    pcie_config c;
                    pcie_config_default(&c);
                    c.mps = sizes[i];
                    c.mrrs = sizes[j];
                    c.rcb = rcbs[k];
                    c.rcb_chunks = chunks;
                    pcie_link l;
                    ddio_err e;
                    cr_assert_eq(pcie_link_init(&l, &c, &e), 0, "%s", e.msg);
                    for (uint32_t sz = 1; sz <= 16384; sz++) {
                        cr_assert_eq(pcie_mwr_tlps(&l, sz), pcie_div_up(sz, c.mps));
                        cr_assert_eq(pcie_mrd_tlps(&l, sz), pcie_div_up(sz, c.mrrs));
                        cr_assert_eq(pcie_cpld_tlps(&l, sz), pcie_div_up(sz, chunks ? c.rcb : c.mps));
                    }
                }
}

/* u63.h: the signed conversions give the unsigned ones' values below 2^63
 * (times, byte counts on the simulator's hot paths). */
Test(queue_pcie, u63_conversions_equal_unsigned_ones)
{
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = x >> (1 + i % 63);   /* every magnitude below 2^63 */
        double a = u63_to_double(v), b = (double)v;
        cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "%llu", (unsigned long long)v);
        double d = (double)v + (double)(x & 1023) / 1024.0;
        if (d < 0x1p63)
            cr_assert_eq(u63_from_double(d), (uint64_t)d, "%.17g", d);
    }
    cr_assert_eq(u63_from_double(0x1p63 - 1024.0), (uint64_t)(0x1p63 - 1024.0));
}

/* dsim_nic issues two transfers in one direction at once (an RX DMA's data
 * then its CQE; a TX fetch's WQE then its data) and converts only the
 * second's end to ns: each direction is a FIFO, so the first never ends
 * later.  Random gens, widths, times, sizes and backlogs; the _ps forms
 * also leave the link as the ns forms do. */
Test(queue_pcie, a_later_transfer_never_ends_earlier)
{
    const uint32_t gens[] = {1, 2, 3, 4, 5}, lanes[] = {1, 2, 4, 8, 16};
    uint64_t x = 0x243F6A8885A308D3ull;
    for (int g = 0; g < 5; g++)
        for (int w = 0; w < 5; w++) {
            pcie_config c;
            pcie_config_default(&c);
            c.gen = gens[g];
            c.lanes = lanes[w];
            pcie_link a, b;
            twin_links(&c, &a, &b);
            uint64_t now = 0;
            for (int i = 0; i < 20000; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                now += x % 4 == 0 ? 0 : (x >> 8) % 2000;   /* often the same time, sometimes a backlog */
                uint32_t s1 = 1 + (uint32_t)(x >> 20) % 9000, s2 = 1 + (uint32_t)(x >> 40) % 9000;
                if (x & 1024) {
                    double first = pcie_link_write_ps(&a, now, s1);
                    uint64_t second = pcie_link_write(&a, now, s2);
                    cr_assert_leq(pcie_ps_to_ns_up(first), second);
                    cr_assert_eq(pcie_link_write(&b, now, s1), pcie_ps_to_ns_up(first));
                    cr_assert_eq(pcie_link_write(&b, now, s2), second);
                } else {
                    double first = pcie_link_read_nonposted_ps(&a, now, s1);
                    uint64_t second = pcie_link_read_nonposted(&a, now, s2);
                    cr_assert_leq(pcie_ps_to_ns_up(first), second);
                    cr_assert_eq(pcie_link_read_nonposted(&b, now, s1), pcie_ps_to_ns_up(first));
                    cr_assert_eq(pcie_link_read_nonposted(&b, now, s2), second);
                }
                cr_assert_eq(memcmp(a.busy_ps, b.busy_ps, sizeof a.busy_ps), 0);
            }
        }
}

/* pcie_backlog_ns_over: b >= it iff b x tlp_gbps / 8 > bytes, the
 * simulator's NIC buffer test, around the threshold and far from it, for
 * every gen and width and buffer sizes from 0 to 64 MiB. */
Test(queue_pcie, backlog_threshold_equals_the_product_test)
{
    const uint32_t gens[] = {1, 2, 3, 4, 5}, lanes[] = {1, 2, 4, 8, 16};
    const uint64_t bufs[] = {0, 1, 7, 1000, 4096, 256 * 1024, 1000003, 64ull << 20};
    for (int g = 0; g < 5; g++)
        for (int w = 0; w < 5; w++) {
            pcie_config c;
            pcie_config_default(&c);
            c.gen = gens[g];
            c.lanes = lanes[w];
            pcie_link l;
            ddio_err e;
            cr_assert_eq(pcie_link_init(&l, &c, &e), 0, "%s", e.msg);
            for (int k = 0; k < 8; k++) {
                uint64_t d = pcie_backlog_ns_over(&l, bufs[k]);
                cr_assert(d >= 1 && d < (1ull << 62));
                for (uint64_t b = d > 1000 ? d - 1000 : 1; b < d + 1000; b++)
                    cr_assert_eq(b >= d, (double)b * l.tlp_gbps / 8.0 > (double)bufs[k], "b %llu d %llu",
                                 (unsigned long long)b, (unsigned long long)d);
                for (uint64_t b = 1; b < (1ull << 61); b = b * 3 + 1)
                    cr_assert_eq(b >= d, (double)b * l.tlp_gbps / 8.0 > (double)bufs[k]);
            }
        }
}

/* pcie_link_read_nonposted_ps as first written (sizes turned into bytes,
 * TLPs and times at each call): the reference for the precomputed costs. */
static double ref_read_nonposted_ps(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    double now_ps = (double)now_ns * 1000.0;
    uint64_t req_bytes = pcie_mrd_bytes(l, sz);
    double req_ps = (double)req_bytes * l->ps_per_byte;
    double req_done = now_ps + req_ps;
    l->busy_ps[PCIE_UP] = (l->busy_ps[PCIE_UP] > now_ps ? l->busy_ps[PCIE_UP] : now_ps) + req_ps;
    l->bytes[PCIE_UP] += req_bytes;
    l->tlps[PCIE_UP] += pcie_mrd_tlps(l, sz);
    double ready = req_done + l->cfg.read_latency_ns * 1000.0;
    uint64_t cpl_bytes = pcie_cpld_bytes(l, sz);
    double start = l->busy_ps[PCIE_DOWN] > ready ? l->busy_ps[PCIE_DOWN] : ready;
    l->busy_ps[PCIE_DOWN] = start + (double)cpl_bytes * l->ps_per_byte;
    l->bytes[PCIE_DOWN] += cpl_bytes;
    l->tlps[PCIE_DOWN] += pcie_cpld_tlps(l, sz);
    return l->busy_ps[PCIE_DOWN];
}
static uint64_t ref_write(pcie_link *l, uint64_t now_ns, uint32_t sz)
{
    double now_ps = (double)now_ns * 1000.0;
    uint64_t bytes = pcie_mwr_bytes(l, sz);
    double start = l->busy_ps[PCIE_UP] > now_ps ? l->busy_ps[PCIE_UP] : now_ps;
    l->busy_ps[PCIE_UP] = start + (double)bytes * l->ps_per_byte;
    l->bytes[PCIE_UP] += bytes;
    l->tlps[PCIE_UP] += pcie_mwr_tlps(l, sz);
    return pcie_ps_to_ns_up(l->busy_ps[PCIE_UP]);
}

/* Precomputed transfer costs (pcie_write_of / pcie_read_of, the simulator's
 * descriptor DMAs) move a link exactly as the sized calls do: every gen,
 * width, MPS / MRRS / RCB mode, random times and sizes, and a read latency
 * other than the default. */
Test(queue_pcie, precomputed_costs_equal_sized_transfers)
{
    const uint32_t gens[] = {1, 3, 5}, lanes[] = {1, 8, 16}, mps[] = {128, 256, 4096};
    uint64_t x = 0x13198A2E03707344ull;
    for (int g = 0; g < 3; g++)
        for (int w = 0; w < 3; w++)
            for (int m = 0; m < 3; m++) {
                pcie_config c;
                pcie_config_default(&c);
                c.gen = gens[g];
                c.lanes = lanes[w];
                c.mps = mps[m];
                c.mrrs = mps[2 - m];
                c.rcb_chunks = m == 1;
                c.read_latency_ns = 300 + 100 * (uint32_t)m;
                pcie_link a, b;
                twin_links(&c, &a, &b);
                uint64_t now = 0;
                for (int i = 0; i < 5000; i++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    now += (x >> 8) % 300;
                    uint32_t sz = 1 + (uint32_t)(x >> 20) % 9000;
                    if (x & 2048) {
                        pcie_write_cost wc = pcie_write_of(&b, sz);
                        cr_assert_eq(ref_write(&a, now, sz), pcie_link_write_cost(&b, now, &wc));
                    } else {
                        pcie_read_cost rc = pcie_read_of(&b, sz);
                        double pa = ref_read_nonposted_ps(&a, now, sz);
                        double pb = pcie_link_read_nonposted_cost(&b, now, &rc);
                        cr_assert_eq(memcmp(&pa, &pb, sizeof pa), 0);
                    }
                    cr_assert_eq(memcmp(a.busy_ps, b.busy_ps, sizeof a.busy_ps), 0);
                    cr_assert_eq(memcmp(a.bytes, b.bytes, sizeof a.bytes), 0);
                    cr_assert_eq(memcmp(a.tlps, b.tlps, sizeof a.tlps), 0);
                }
            }
}
