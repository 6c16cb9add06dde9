/* workload.c - the workload's field table, its built-in defaults (l2fwd as
 * run by the ddio-bench testbed), its checks, and the expansion of its access
 * segments into the lines a packet touches.  Sources: docs/configs.md. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "configs/schema.h"

_Static_assert(sizeof(enum ddio_mode) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum ddio_seg_op) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum ddio_seg_unit) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum ddio_rx_refill) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum ddio_tx_recycle) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum ddio_dist) == sizeof(int), "enums are stored as int");

static const char *const mode_names[] = {"forward", "receive", "send", NULL};
static const char *const op_names[] = {"read", "write", "flush", NULL};
static const char *const unit_names[] = {"bytes", "ratio", NULL};
static const char *const refill_names[] = {"immediate", "threshold", NULL};
static const char *const recycle_names[] = {"eager", "threshold", NULL};
static const char *const dist_names[] = {"uniform", "zipf", NULL};

const char *ddio_mode_name(enum ddio_mode m) { return (unsigned)m < DDIO_MODE_COUNT ? mode_names[m] : "?"; }
const char *ddio_seg_op_name(enum ddio_seg_op op) { return (unsigned)op < DDIO_SEG_OP_COUNT ? op_names[op] : "?"; }

#define S(path, type, member, ...) {path, type, CFG_AT(ddio_segment, member), __VA_ARGS__}
static const cfg_field segment_fields[] = {
    S("op", CFG_ENUM, op, .flags = CFG_REQUIRED, .names = op_names, .doc = "read, write or flush"),
    S("offset", CFG_U32, offset, .hi = 65535, .doc = "first byte, from the start of the frame"),
    S("follow", CFG_BOOL, follow, .doc = "start where the previous segment ended (offset must be 0)"),
    S("unit", CFG_ENUM, unit, .names = unit_names, .doc = "length in bytes, or as a ratio of the packet length"),
    S("length", CFG_F64, length, .flags = CFG_REQUIRED, .hi = 65535,
      .doc = "bytes, or ratio in [0, 1] (ceil(ratio x packet length) bytes)"),
};
static const cfg_table segment_table = {"access segment", segment_fields,
                                        sizeof segment_fields / sizeof segment_fields[0], sizeof(ddio_segment), NULL};

static void table_init(void *obj)
{
    ddio_table *t = obj;
    memset(t, 0, sizeof *t);
    t->distribution = DDIO_DIST_UNIFORM;
    t->zipf_s = 1.0;
}

#define T(path, type, member, ...) {path, type, CFG_AT(ddio_table, member), __VA_ARGS__}
static const cfg_field table_fields[] = {
    T("name", CFG_STR, name, .flags = CFG_REQUIRED | CFG_NONEMPTY, .doc = "what the table is"),
    T("bytes", CFG_U64, bytes, .flags = CFG_REQUIRED, .hi = 1099511627776.0, .doc = "table size, bytes"),
    T("lines_per_packet", CFG_U32, lines_per_packet, .flags = CFG_REQUIRED, .hi = 4096,
      .doc = "table lines touched per packet"),
    T("write_fraction", CFG_F64, write_fraction, .hi = 1, .doc = "share of those touches that write (0)"),
    T("distribution", CFG_ENUM, distribution, .names = dist_names,
      .doc = "which lines: uniform, or zipf over the table's lines (uniform)"),
    T("zipf_s", CFG_F64, zipf_s, .hi = 10, .doc = "zipf exponent (1.0)"),
};
static const cfg_table table_table = {"table", table_fields, sizeof table_fields / sizeof table_fields[0],
                                      sizeof(ddio_table), table_init};

#define W(path, type, member, ...) {path, type, CFG_AT(ddio_workload, member), __VA_ARGS__}
static const cfg_field workload_fields[] = {
    W("name", CFG_STR, name, .flags = CFG_NONEMPTY, .doc = "short name, as given to --workload"),
    W("description", CFG_STR, description, .doc = "one line on what this workload is"),
    W("mode", CFG_ENUM, mode, .names = mode_names,
      .doc = "forward (receive and send), receive only, send only (packet-acrobat's modes)"),
    W("cores", CFG_U32, cores, .lo = 1, .hi = DDIO_MAX_CORES, .doc = "cores running it, one RX + one TX ring each"),
    W("cycles_per_packet", CFG_F64, cycles_per_packet, .hi = 1e7,
      .doc = "compute cycles per packet, memory accesses excluded"),
    W("cycles_per_byte", CFG_F64, cycles_per_byte, .hi = 1e4, .doc = "extra compute cycles per packet byte"),
    W("latency_exposed", CFG_F64, latency_exposed, .lo = 0, .hi = 1,
      .doc = "fraction of its memory accesses' latency the core waits for (1: all; the rest overlaps with compute)"),
    {"access", CFG_ARRAY, CFG_AT(ddio_workload, access), .lo = 0, .hi = DDIO_MAX_SEGMENTS,
     .elem = &segment_table, .count_off = offsetof(ddio_workload, n_access),
     .doc = "packet bytes the core reads / writes / flushes, in program order"},
    {"tables", CFG_ARRAY, CFG_AT(ddio_workload, tables), .lo = 0, .hi = DDIO_MAX_TABLES,
     .elem = &table_table, .count_off = offsetof(ddio_workload, n_tables),
     .doc = "tables read per packet (the non-buffer footprint)"},
    W("driver.rx_ring", CFG_U32, driver.rx_ring, .lo = 8, .hi = 32768, .flags = CFG_POW2,
      .doc = "RX descriptors per core (Q_RX)"),
    W("driver.tx_ring", CFG_U32, driver.tx_ring, .lo = 8, .hi = 32768, .flags = CFG_POW2,
      .doc = "TX descriptors per core (Q_TX)"),
    W("driver.burst", CFG_U32, driver.burst, .lo = 1, .hi = 1024, .doc = "RX / TX burst, packets"),
    W("driver.rx_refill", CFG_ENUM, driver.rx_refill, .names = refill_names,
      .doc = "immediate: refill after every burst (mlx5); threshold: at rx_free_thresh free descriptors"),
    W("driver.rx_free_thresh", CFG_U32, driver.rx_free_thresh, .lo = 1, .hi = 32768,
      .doc = "free RX descriptors that trigger a refill (threshold mode)"),
    W("driver.tx_recycle", CFG_ENUM, driver.tx_recycle, .names = recycle_names,
      .doc = "eager: free each sent buffer at once; threshold: once fewer than tx_free_thresh descriptors are free"),
    W("driver.tx_free_thresh", CFG_U32, driver.tx_free_thresh, .lo = 1, .hi = 32768,
      .doc = "tx_burst frees sent buffers once fewer TX descriptors than this are free (threshold mode)"),
    W("driver.tx_rs_thresh", CFG_U32, driver.tx_rs_thresh, .lo = 1, .hi = 32768,
      .doc = "nic.driver ice / i40e: the RS bit every this many TX descriptors; sent buffers are freed this many "
             "at a time"),
    W("driver.mempool_size", CFG_U32, driver.mempool_size, .lo = 64, .hi = 1 << 24, .flags = CFG_ZERO_OK,
      .doc = "buffers in the mempool; 0 = auto (DPDK examples' rule)"),
    W("driver.mempool_cache", CFG_U32, driver.mempool_cache, .hi = 512,
      .doc = "per-core mempool cache (RTE_MEMPOOL_CACHE_MAX_SIZE = 512)"),
    W("driver.data_room", CFG_U32, driver.data_room, .lo = 64, .hi = 65535,
      .doc = "packet data bytes after the headroom"),
    W("driver.headroom", CFG_U32, driver.headroom, .hi = 4096, .doc = "bytes before the packet data"),
    W("driver.mbuf_header", CFG_U32, driver.mbuf_header, .hi = 4096,
      .doc = "struct rte_mbuf (+ private area) before the headroom, bytes"),
    W("driver.align_4k", CFG_BOOL, driver.align_4k, .doc = "each buffer starts on a 4 KiB page"),
    W("driver.sw_tx_queue", CFG_U32, driver.sw_tx_queue, .hi = 1 << 20,
      .doc = "software queue before the TX ring, packets (FastClick); 0 = none"),
    W("driver.rx_cqe_comp", CFG_BOOL, driver.rx_cqe_comp,
      .doc = "mlx5 CQE compression (rxq_cqe_comp_en): eight packets' completions in one 64-byte line"),
    W("driver.tx_mpw", CFG_BOOL, driver.tx_mpw,
      .doc = "mlx5 enhanced multi-packet write (txq_mpw_en): a 16-byte TX descriptor per packet, four to a line"),
    W("driver.rx_desc_16b", CFG_BOOL, driver.rx_desc_16b,
      .doc = "nic.driver ice / i40e: 16-byte RX descriptors (DPDK built with RTE_LIBRTE_ICE_16BYTE_RX_DESC / "
             "RTE_LIBRTE_I40E_16BYTE_RX_DESC), four to a line, instead of 32"),
    W("distractor.working_set", CFG_U64, distractor.working_set, .hi = 1099511627776.0,
      .doc = "LLC co-runner working set, bytes; 0 = no distractor"),
    W("distractor.stride", CFG_U32, distractor.stride, .lo = 1, .hi = 1 << 20,
      .doc = "bytes between two of its accesses"),
    W("distractor.access_interval_ns", CFG_F64, distractor.access_interval_ns, .lo = 0.01, .hi = 1e6,
      .doc = "time between two of its line accesses, ns"),
    W("distractor.cat_mask", CFG_MASK, distractor.cat_mask, .doc = "its CAT ways (required when enabled)"),
};

static const cfg_table workload_table = {"workload", workload_fields,
                                         sizeof workload_fields / sizeof workload_fields[0], sizeof(ddio_workload),
                                         NULL};

const cfg_table *ddio_workload_table(void) { return &workload_table; }

void ddio_workload_default(ddio_workload *w)
{
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "l2fwd");
    snprintf(w->description, sizeof w->description,
             "FastClick L2 forwarding of ddio-bench: swap the MAC addresses (first line), send back");
    w->mode = DDIO_MODE_FORWARD;
    w->cores = 1;
    w->cycles_per_packet = 25;
    w->cycles_per_byte = 0.164;
    w->latency_exposed = 0.45;
    /* EtherMirror swaps the 6-byte destination and source MAC addresses. */
    w->n_access = 2;
    w->access[0] = (ddio_segment){.op = DDIO_SEG_READ, .offset = 0, .unit = DDIO_UNIT_BYTES, .length = 12};
    w->access[1] = (ddio_segment){.op = DDIO_SEG_WRITE, .offset = 0, .unit = DDIO_UNIT_BYTES, .length = 12};
    w->n_tables = 0;
    w->driver = (ddio_driver){
        .rx_ring = 256, .tx_ring = 256, .burst = 32,
        .rx_refill = DDIO_REFILL_IMMEDIATE, .rx_free_thresh = 32,
        .tx_recycle = DDIO_RECYCLE_EAGER, .tx_free_thresh = 32, .tx_rs_thresh = 32,
        .mempool_size = 65535, .mempool_cache = 256,
        .data_room = 2048, .headroom = 128, .mbuf_header = 128, .align_4k = false,
        .sw_tx_queue = 1024, .rx_cqe_comp = true, .tx_mpw = false,
    };
    w->distractor = (ddio_distractor){.working_set = 0, .stride = 64, .access_interval_ns = 5.0, .cat_mask = 0};
}

uint32_t ddio_workload_mempool_size(const ddio_workload *w)
{
    const ddio_driver *d = &w->driver;
    if (d->mempool_size)
        return d->mempool_size;
    /* DPDK's l2fwd / l3fwd: max(ports x (rxd + txd + burst + lcores x cache), 8192),
     * with one ring pair per core; a software TX queue holds buffers too. */
    uint64_t n = (uint64_t)w->cores * ((uint64_t)d->rx_ring + d->tx_ring + d->sw_tx_queue + d->burst +
                                       d->mempool_cache);
    if (n < 8192)
        n = 8192;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

uint32_t ddio_workload_table_lines(const ddio_workload *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->n_tables; i++)
        n += w->tables[i].lines_per_packet;
    return n;
}

int ddio_workload_check(const ddio_workload *w, const cfg_ctx *c, ddio_err *e)
{
    const ddio_driver *d = &w->driver;
    if (d->burst > d->rx_ring)
        return cfg_fail(c, e, "driver.burst,driver.rx_ring", "burst %u is larger than the RX ring (%u descriptors)",
                        d->burst, d->rx_ring);
    if (d->burst > d->tx_ring)
        return cfg_fail(c, e, "driver.burst,driver.tx_ring", "burst %u is larger than the TX ring (%u descriptors)",
                        d->burst, d->tx_ring);
    /* The thresholds only matter in the modes that use them. */
    if (d->rx_refill == DDIO_REFILL_THRESHOLD && d->rx_free_thresh >= d->rx_ring)
        return cfg_fail(c, e, "driver.rx_free_thresh,driver.rx_ring",
                        "rx_free_thresh %u must be smaller than the RX ring (%u descriptors)", d->rx_free_thresh,
                        d->rx_ring);
    if (d->tx_recycle == DDIO_RECYCLE_THRESHOLD && d->tx_free_thresh >= d->tx_ring)
        return cfg_fail(c, e, "driver.tx_free_thresh,driver.tx_ring",
                        "tx_free_thresh %u must be smaller than the TX ring (%u descriptors)", d->tx_free_thresh,
                        d->tx_ring);
    if (d->mempool_size) {
        /* rte_mempool_create() refuses a cache whose flush threshold (1.5 x
         * size) exceeds the pool. */
        if ((uint64_t)d->mempool_cache * 3 > (uint64_t)d->mempool_size * 2)
            return cfg_fail(c, e, "driver.mempool_cache,driver.mempool_size",
                            "a per-core cache of %u buffers needs a mempool of at least %llu (DPDK: 1.5 x cache)",
                            d->mempool_cache, ((unsigned long long)d->mempool_cache * 3 + 1) / 2);
        /* The driver fills every RX descriptor at start; a smaller pool
         * makes the port fail to start. */
        uint64_t need = (uint64_t)w->cores * d->rx_ring;
        if (d->mempool_size < need)
            return cfg_fail(c, e, "driver.mempool_size,cores,driver.rx_ring",
                            "%u buffers cannot fill %u RX ring%s of %u descriptors (%llu needed; 0 = auto size)",
                            d->mempool_size, w->cores, w->cores == 1 ? "" : "s", d->rx_ring,
                            (unsigned long long)need);
    }
    if ((uint64_t)d->headroom + d->data_room > 65535)
        return cfg_fail(c, e, "driver.data_room,driver.headroom",
                        "headroom %u + data room %u exceed the 65535-byte mbuf buffer (buf_len is 16 bits)",
                        d->headroom, d->data_room);
    for (uint32_t i = 0; i < w->n_access; i++) {
        const ddio_segment *s = &w->access[i];
        char path[64];
        if (s->unit == DDIO_UNIT_RATIO && s->length > 1) {
            snprintf(path, sizeof path, "access[%u].length", i);
            return cfg_fail(c, e, path, "ratio %g is more than 1", s->length);
        }
        if (s->unit == DDIO_UNIT_BYTES && s->length != floor(s->length)) {
            snprintf(path, sizeof path, "access[%u].length", i);
            return cfg_fail(c, e, path, "%g bytes is not a whole number of bytes", s->length);
        }
        if (s->follow && s->offset) {
            snprintf(path, sizeof path, "access[%u].offset", i);
            return cfg_fail(c, e, path, "%u is ignored when \"follow\" is true (give one of them)", s->offset);
        }
    }
    for (uint32_t i = 0; i < w->n_tables; i++) {
        const ddio_table *t = &w->tables[i];
        char path[64];
        if (t->distribution == DDIO_DIST_ZIPF && t->zipf_s <= 0) {
            snprintf(path, sizeof path, "tables[%u].zipf_s", i);
            return cfg_fail(c, e, path, "a zipf distribution needs an exponent above 0");
        }
        if (t->lines_per_packet && !t->bytes) {
            snprintf(path, sizeof path, "tables[%u].bytes", i);
            return cfg_fail(c, e, path, "an empty table cannot be read %u times per packet", t->lines_per_packet);
        }
    }
    const ddio_distractor *x = &w->distractor;
    if (x->working_set) {
        if (x->stride > x->working_set)
            return cfg_fail(c, e, "distractor.stride,distractor.working_set",
                            "stride %u is larger than the working set (%llu bytes)", x->stride,
                            (unsigned long long)x->working_set);
        if (!x->cat_mask)
            return cfg_fail(c, e, "distractor.cat_mask,distractor.working_set",
                            "0x0 selects no LLC way (a distractor needs its CAT ways)");
    }
    return 0;
}

int ddio_workload_validate(const ddio_workload *w, const char *file, ddio_err *e)
{
    cfg_ctx c = {&workload_table, file ? file : "(built-in)", NULL};
    return ddio_workload_check(w, &c, e);
}

/* --------------------------------------------------------- lines touched */

typedef struct seg_lines {
    uint32_t lo, hi;    /* [lo, hi) lines, empty when lo == hi */
} seg_lines;

/* The line range of each segment for one packet (Algorithm 1's arithmetic). */
static void segment_lines(const ddio_workload *w, uint32_t pkt_len, uint32_t line_size, uint32_t first_byte,
                          seg_lines *out)
{
    uint64_t prev_end = 0;
    for (uint32_t i = 0; i < w->n_access; i++) {
        const ddio_segment *s = &w->access[i];
        uint64_t start = s->follow ? prev_end : s->offset;
        /* ceil(len x ratio) bytes, as packet-acrobat computes it; the tiny
         * slack keeps 0.7 x 100 from rounding up to 71. */
        uint64_t len = s->unit == DDIO_UNIT_BYTES ? (uint64_t)s->length
                                                   : (uint64_t)ceil(s->length * (double)pkt_len - 1e-9);
        prev_end = start + len;
        uint64_t a = start < pkt_len ? start : pkt_len, b = prev_end < pkt_len ? prev_end : pkt_len;
        if (a >= b) {
            out[i].lo = out[i].hi = 0;
            continue;
        }
        out[i].lo = (uint32_t)((first_byte + a) / line_size);
        out[i].hi = (uint32_t)((first_byte + b - 1) / line_size + 1);
    }
}

size_t ddio_workload_expand(const ddio_workload *w, uint32_t pkt_len, uint32_t line_size, uint32_t first_byte,
                            ddio_line_op *out, size_t cap)
{
    assert(line_size > 0 && w->n_access <= DDIO_MAX_SEGMENTS);
    seg_lines r[DDIO_MAX_SEGMENTS];
    segment_lines(w, pkt_len, line_size, first_byte % line_size, r);
    size_t n = 0;
    for (uint32_t i = 0; i < w->n_access; i++) {
        uint8_t op = (uint8_t)w->access[i].op;
        for (uint32_t line = r[i].lo; line < r[i].hi; line++) {
            int dup = 0;
            for (uint32_t j = 0; j < i && !dup; j++)
                dup = (uint8_t)w->access[j].op == op && line >= r[j].lo && line < r[j].hi;
            if (dup)
                continue;
            if (n < cap)
                out[n] = (ddio_line_op){.line = line, .op = op};
            n++;
        }
    }
    return n;
}

/* Lines of a packet of `pkt_len` bytes whose first byte sits `first_byte`
 * into its line. */
static uint32_t packet_line_count(uint32_t pkt_len, uint32_t line_size, uint32_t first_byte)
{
    return (uint32_t)(((uint64_t)first_byte % line_size + pkt_len + line_size - 1) / line_size);
}

/* Whether the L2 prefetcher reads `line`: some load or store of ops[0..n)
 * lies within `reach` lines before it, and none of ops[0..n) is on it. */
static int prefetched(const ddio_line_op *ops, size_t n, uint32_t reach, uint32_t line)
{
    int trained = 0;
    for (size_t i = 0; i < n; i++) {
        if (ops[i].line == line)
            return 0;
        trained |= ops[i].op != DDIO_SEG_FLUSH && ops[i].line < line && line - ops[i].line <= reach;
    }
    return trained;
}

size_t ddio_packet_ops(const ddio_machine *m, const ddio_workload *w, uint32_t pkt_len, uint32_t line_size,
                       uint32_t first_byte, ddio_line_op *out, size_t cap)
{
    size_t n = ddio_workload_expand(w, pkt_len, line_size, first_byte, out, cap);
    uint32_t reach = m->l2.prefetch_lines;
    if (!reach || n > cap || !pkt_len)
        return n;   /* off, or the demand ops alone overflow: the caller sees n > cap */
    /* Line by line, so each prefetch comes once and in ascending order
     * whatever the order of the workload's ops; a flush is no load and
     * trains nothing. */
    const size_t demand = n;
    for (uint32_t line = 1, lines = packet_line_count(pkt_len, line_size, first_byte); line < lines; line++) {
        if (!prefetched(out, demand, reach, line))
            continue;
        if (n < cap)
            out[n] = (ddio_line_op){.line = line, .op = DDIO_SEG_READ, .prefetch = 1};
        n++;
    }
    return n;
}

void ddio_workload_touch(const ddio_workload *w, uint32_t pkt_len, uint32_t line_size, uint32_t first_byte,
                         ddio_touch *t)
{
    assert(line_size > 0);
    memset(t, 0, sizeof *t);
    first_byte %= line_size;
    if (!pkt_len)
        return;
    t->lines = packet_line_count(pkt_len, line_size, first_byte);
    seg_lines r[DDIO_MAX_SEGMENTS];
    segment_lines(w, pkt_len, line_size, first_byte, r);
    /* Count line by line: a line is read / written / flushed / touched when
     * some segment of that kind covers it. */
    for (uint32_t line = 0; line < t->lines; line++) {
        int rd = 0, wr = 0, fl = 0;
        for (uint32_t i = 0; i < w->n_access; i++) {
            if (line < r[i].lo || line >= r[i].hi)
                continue;
            rd |= w->access[i].op == DDIO_SEG_READ;
            wr |= w->access[i].op == DDIO_SEG_WRITE;
            fl |= w->access[i].op == DDIO_SEG_FLUSH;
        }
        t->read += (uint32_t)rd;
        t->written += (uint32_t)wr;
        t->flushed += (uint32_t)fl;
        t->touched += (uint32_t)(rd | wr);
    }
}
