/* hier.h - the cache hierarchy: a way-partitioned LLC (DDIO / Shared / L3*
 * ways, CAT classes) and one private L2 per core, moving lines by the
 * coherence table of coherence.h (the paper's Table 1).
 *
 * Every access reports whether it hit, the table column (state) the line was
 * in, and the memory traffic it caused; per-request counters accumulate in
 * `stats`.  A line lives in at most one L2 at a time.
 *
 * hier.c executes the table cell by cell: it defines what every access
 * does.  hier_fast.c (single accesses) and hier_run.c (the NIC's DMA runs)
 * take shortcuts derived from it at init, which the tests check against
 * it; hier_int.h and setblock.h are their private headers, hier_test.h
 * what the tests may see of them. */
#ifndef DDIOSIM_CACHE_HIER_H
#define DDIOSIM_CACHE_HIER_H

#include <stdint.h>

#include "sim/cache/cache.h"
#include "sim/cache/coherence.h"
#include "sim/cache/snoop.h"

#define HIER_MAX_CORES 256
#define HIER_STILL_PCIE_RD 1u       /* PCIe read (PCIRdCur) hits */
#define HIER_STILL_PCIE_WR 2u       /* PCIe write (ItoM, RFO) hits */
#define HIER_MAX_COS 16

typedef struct hier_config {
    enum hier_mode mode;
    cache_geom llc;
    repl_config llc_repl;
    cache_geom l2;
    repl_config l2_repl;
    uint32_t cores;                 /* 1..HIER_MAX_CORES (a distractor is one more core) */
    uint64_t ddio_mask;             /* IIO_LLC_WAYS, e.g. 0x600; 0: DDIO off (coherence.h, coh_lookup_io) */
    uint64_t shared_mask;           /* non-inclusive only, e.g. 0x003; 0 when inclusive */
    uint8_t pcie_hit_still;         /* HIER_STILL_*: PCIe LLC hits that leave the replacement state as it
                                       was (0: every hit updates it, as a core's); any bit runs the general
                                       path alone (the fast paths update on every hit) */
    uint32_t n_cos;                 /* CAT classes of service, >= 1 */
    uint64_t cos_mask[HIER_MAX_COS];
    uint8_t core_cos[HIER_MAX_CORES];
} hier_config;

typedef struct hier_req_stats {
    uint64_t accesses, hits, misses;
    uint64_t hit_col[COL_COUNT];    /* state met by hits (table column) */
    uint64_t l2_hits;               /* core requests: hits in the requester's or another L2 */
    uint64_t mem_reads;             /* lines read from memory */
    uint64_t mem_writebacks;        /* lines written to memory: dirty write-backs and, DDIO off, PCIe writes */
} hier_req_stats;

typedef struct hier_stats {
    hier_req_stats req[REQ_COUNT];  /* REQ_EVICT unused */
    uint64_t llc_evictions, l2_evictions, l2_to_llc;
    uint64_t flushes, flush_writebacks;   /* CLFLUSH by cores (hier_flush) */
} hier_stats;

typedef struct hier_result {
    uint8_t hit;
    uint8_t col;        /* enum coh_col met before the access (COL_L2_EM for any L2 hit of a core) */
    uint8_t region;     /* enum hier_region met */
    uint8_t mem_reads, mem_writebacks;  /* mem_writebacks: lines written to memory (hier_req_stats) */
} hier_result;

/* Where a line is right now (for tests and the explain output). */
typedef struct hier_where {
    int l2_core;        /* -1: in no L2 */
    uint8_t l2_state;   /* enum coh_state */
    uint8_t llc_region; /* REG_DDIO / REG_SHARED / REG_L3, or REG_MEM if not in the LLC */
    uint8_t llc_state;  /* enum coh_state, ST_I if absent */
} hier_where;

/* Room for the fast paths' state, struct hier_fast (sim/cache/hier_int.h,
 * which checks that it fits). */
#define HIER_FAST_ROOM 3072

typedef struct hier {
    hier_config cfg;
    cache llc;
    cache *l2;              /* cfg.cores private L2s */
    snoop_filter sf;
    uint8_t way_region[CACHE_MAX_WAYS];
    hier_stats stats;
    /* The fast paths' state, derived at init from the above and the
     * coherence table: private (hier_int.h, hier_fast_of).  Kept here, not
     * behind a pointer: the fast paths reach it at an offset from h, one
     * load less per entry (docs/performance.md). */
    _Alignas(8) unsigned char fast_room[HIER_FAST_ROOM];
} hier;

/* Defaults: the Skylake-SP Xeon Gold 6140 of the ddio-bench data. */
void hier_config_default(hier_config *c);

/* 0 if `c` describes a hierarchy hier_init can build (geometries, core
 * count, way masks that select existing ways, Shared ways exactly when
 * non-inclusive, CAT classes); else -1 with the first problem in `e`. */
int hier_config_validate(const hier_config *c, ddio_err *e);

/* An empty hierarchy of configuration `c` (validated: -1 and `e` if it is
 * not), its fast paths derived; hier_free releases it. */
int hier_init(hier *h, const hier_config *c, ddio_err *e);
void hier_free(hier *h);

/* A hint word: where a line is in the LLC, kept by a caller for lines that
 * recur (descriptor rings, mbuf headers, a buffer's data lines).  0: none;
 * else (set + 1) << 8 | way, where `way` is HIER_HINT_NO_WAY when only the
 * set is known (hier_hint).  The set of a line never changes; the way is
 * trusted only after its tag is checked.  A hint never changes a result,
 * only saves the set mapping and lookups. */
#define HIER_HINT_NO_WAY 0xFFu

/* A hint word as callers keep it, per line (hier_dma_run's `hints`): 32
 * bits, so that a buffer's hints take half the host memory (at 18 cores
 * their loads are a cold miss per DMA).  A word of an LLC with
 * HIER_HINT_MAX_SETS sets or more would not fit: for such a hierarchy the
 * DMA runs leave the words at 0 (no hint), which never changes a result. */
typedef uint32_t hier_hint_word;
#define HIER_HINT_MAX_SETS ((1u << 24) - 1)

/* The hint word naming the LLC set of `line` (a pure function of it). */
static inline uint64_t hier_hint(const hier *h, uint64_t line)
{
    return (uint64_t)(cache_set(&h->llc, line) + 1) << 8 | HIER_HINT_NO_WAY;
}

/* One request for one line (line number = address / line size): the
 * coherence table's cell for the line's state executed, `res` filled and
 * the counters in `stats` updated.  `core` is the requesting core for core
 * requests, ignored for PCIe requests.  `hint`: 0, or a hint word for this
 * line (hier_hint, or one a DMA run left in its `hints`). */
void hier_access(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint64_t hint, hier_result *res);

/* One DMA of the NIC: the n consecutive lines first.. of one buffer. */
typedef struct hier_dma {
    uint64_t first;
    uint32_t n;
    uint8_t write;          /* 1: PCIe writes (full-line ItoM), 0: PCIe reads (PCIRdCur) */
    uint8_t head_partial;   /* writes: the first line is written in part (RFO) */
    uint8_t tail_partial;   /* writes: the last line is written in part (RFO) */
} hier_dma;

/* The DMA `d`: exactly n hier_access calls in line order, with the
 * per-call work (set mapping, counters) shared.  Returns the hits;
 * *part_hits (optional) gets the hits among the partial lines.
 *
 * `hints` (optional, NULL for none): n hint words the caller keeps for
 * these lines between calls (e.g. per buffer line), zero-initialised, read
 * and written here: where each line was found last time.  A core's later
 * hier_access of such a line may pass its word. */
uint32_t hier_dma_run(hier *h, const hier_dma *d, hier_hint_word *hints, uint32_t *part_hits);

/* --- entries for a caller that remembers where its lines are -----------------
 *
 * The simulator's descriptor, completion and buffer lines recur, so it
 * keeps each one's LLC set (hier_llc_set) or hint word and calls these
 * entries, which do exactly what hier_access does for the same request and
 * line (tests/test_cache_hier.c compares them) with the work a known set
 * or a fixed request saves left out. */

/* The LLC set of `line`: a pure function of the line. */
static inline uint32_t hier_llc_set(const hier *h, uint64_t line)
{
    return cache_set(&h->llc, line);
}

/* The hint word of (set, way): `way` HIER_HINT_NO_WAY names the set only. */
static inline uint64_t hier_hint_at(uint32_t set, uint32_t way)
{
    return (uint64_t)(set + 1) << 8 | way;
}

/* hier_access of `line`, whose LLC set is `llc_set` (hier_llc_set): any
 * request, and one entry per request that the simulator issues with a
 * known set, where the request's tests are resolved at compile time. */
void hier_access_set(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res);
void hier_core_rd_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res);
void hier_core_wr_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res);
void hier_pcie_rd_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res);
void hier_pcie_wr_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res);

/* hier_access of a core read or write with a nonzero hint word. */
void hier_core_rd_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res);
void hier_core_wr_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res);

/* hier_dma_run of a write and of a read, the DMA's fields as arguments
 * (the simulator's NIC calls them once per DMA). */
uint32_t hier_pcie_write_run(hier *h, uint64_t first, uint32_t n, int head_partial, int tail_partial,
                             uint32_t *part_hits, hier_hint_word *hints);
uint32_t hier_pcie_read_run(hier *h, uint64_t first, uint32_t n, hier_hint_word *hints);

/* hier_access_set through the entry for `req` when there is one: with a
 * constant `req` the choice is made at compile time. */
static inline __attribute__((always_inline)) void hier_access_set_fixed(hier *h, enum coh_req req, uint32_t core,
                                                                        uint64_t line, uint32_t llc_set,
                                                                        hier_result *res)
{
    switch (req) {
    case REQ_CORE_RD: hier_core_rd_set(h, core, line, llc_set, res); break;
    case REQ_CORE_WR: hier_core_wr_set(h, core, line, llc_set, res); break;
    case REQ_PCIE_RD: hier_pcie_rd_set(h, line, llc_set, res); break;
    case REQ_PCIE_WR_FULL: hier_pcie_wr_set(h, line, llc_set, res); break;
    default: hier_access_set(h, req, core, line, llc_set, res); break;
    }
}

/* With `on`, every access of `h` executes Table 1 cell by cell (hier.c's
 * general path) and no fast path is taken; with 0, the fast paths are
 * derived again (hier_init's state).  The results, counters and line
 * places are the same either way, only slower: the tests and the
 * simulator's general_only option compare the two. */
void hier_set_general_only(hier *h, int on);

/* CLFLUSH from a core (packet-acrobat's flush_ratio): write a dirty line
 * back and drop every copy.  Not a Table 1 request; counted in stats.flushes. */
void hier_flush(hier *h, uint64_t line, hier_result *res);

/* Start loading what an access to `line` (with hint word `hint`, or 0)
 * will read: its LLC set block and snoop-filter slot.  Callers with
 * several independent accesses (the lines of one DMA, a packet's lines)
 * prefetch them all first, so their memory latencies overlap. */
static inline __attribute__((always_inline)) void hier_prefetch(const hier *h, uint64_t line, uint64_t hint)
{
    if (hint) {
        const uint8_t *b = (const uint8_t *)cache_tags(&h->llc, (uint32_t)(hint >> 8) - 1);   /* the set block */
        __builtin_prefetch(b);
        if (h->llc.block_bytes > 64)
            __builtin_prefetch(b + 64);
    } else {
        cache_prefetch(&h->llc, line);
    }
    __builtin_prefetch(&h->sf.occ[snoop_home(&h->sf, line) >> 6]);
}

/* Where `line` is (tests and the explain output); changes nothing. */
hier_where hier_locate(const hier *h, uint64_t line);

/* Put an absent line directly into the state of Table 1 column `col` for
 * `core` (tests and warm starts): DDIO / L3* / Shared -> an LLC copy in that
 * region's ways (M if dirty, else E); L2(E/M) -> the core's L2 (plus, when
 * inclusive, an LLC copy in the core's ways); L2(S) -> an S copy in L2 (plus
 * an LLC copy when inclusive); Memory -> nothing.  Evictions it causes are
 * handled as usual.  Returns -1 if the line is already cached or the column
 * does not exist in this mode (Shared ways when inclusive, DDIO ways when
 * DDIO is off). */
int hier_place(hier *h, uint32_t core, uint64_t line, enum coh_col col, int dirty);

/* Valid LLC lines per region (occupancy) and in all L2s. */
void hier_occupancy(const hier *h, uint64_t llc_lines[REG_COUNT]);

/* Zero the counters (`stats`), keeping the lines where they are. */
void hier_reset_stats(hier *h);

/* The name of region `r` as the outputs print it ("L2", "DDIO", "Shared",
 * "L3*", "Memory"); "?" out of range. */
const char *hier_region_name(enum hier_region r);

/* The hierarchy mode named `s` ("non-inclusive" or "noninclusive",
 * "inclusive") into *out: 0, or -1 with a usage error in `e`. */
int hier_parse_mode(const char *s, enum hier_mode *out, ddio_err *e);

#endif
