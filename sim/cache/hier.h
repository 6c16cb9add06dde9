/* hier.h - the cache hierarchy: a way-partitioned LLC (DDIO / Shared / L3*
 * ways, CAT classes) and one private L2 per core, moving lines by the
 * coherence table of coherence.h (the paper's Table 1).
 *
 * Every access reports whether it hit, the table column (state) the line was
 * in, and the memory traffic it caused; per-request counters accumulate in
 * `stats`.  A line lives in at most one L2 at a time. */
#ifndef DDIOSIM_CACHE_HIER_H
#define DDIOSIM_CACHE_HIER_H

#include <stdint.h>

#include "sim/cache/cache.h"
#include "sim/cache/coherence.h"
#include "sim/cache/snoop.h"

#define HIER_MAX_CORES 256
#define HIER_MAX_COS 16

typedef struct hier_config {
    enum hier_mode mode;
    cache_geom llc;
    repl_config llc_repl;
    cache_geom l2;
    repl_config l2_repl;
    uint32_t cores;                 /* 1..HIER_MAX_CORES (a distractor is one more core) */
    uint64_t ddio_mask;             /* IIO_LLC_WAYS, e.g. 0x600 */
    uint64_t shared_mask;           /* non-inclusive only, e.g. 0x003; 0 when inclusive */
    uint32_t n_cos;                 /* CAT classes of service, >= 1 */
    uint64_t cos_mask[HIER_MAX_COS];
    uint8_t core_cos[HIER_MAX_CORES];
} hier_config;

typedef struct hier_req_stats {
    uint64_t accesses, hits, misses;
    uint64_t hit_col[COL_COUNT];    /* state met by hits (table column) */
    uint64_t l2_hits;               /* core requests: hits in the requester's or another L2 */
    uint64_t mem_reads;             /* lines read from memory */
    uint64_t mem_writebacks;        /* dirty lines written back to memory */
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
    uint8_t mem_reads, mem_writebacks;
} hier_result;

/* Where a line is right now (for tests and the explain output). */
typedef struct hier_where {
    int l2_core;        /* -1: in no L2 */
    uint8_t l2_state;   /* enum coh_state */
    uint8_t llc_region; /* REG_DDIO / REG_SHARED / REG_L3, or REG_MEM if not in the LLC */
    uint8_t llc_state;  /* enum coh_state, ST_I if absent */
} hier_where;

typedef struct hier {
    hier_config cfg;
    cache llc;
    cache *l2;              /* cfg.cores private L2s */
    snoop_filter sf;
    uint8_t way_region[CACHE_MAX_WAYS];
    hier_stats stats;
    /* Fast paths (hier.c, "fast paths"), all derived at init: */
    uint64_t fast_ways[REQ_COUNT];  /* LLC ways where a hit of this request is a plain LLC_KEEP cell */
    uint64_t drop_ways[REQ_COUNT];  /* LLC ways where a hit is LLC_KEEP, reads no memory and drops any L2 copy */
    uint8_t fast_col[CACHE_MAX_WAYS];   /* Table 1 column of each LLC way */
    int core_fast;                  /* a core request first looks in its own L2 */
    int llc_nibble, l2_nibble;      /* LRU / BIP hit updates inline (repl_recency_nibble) */
    int llc_recency, l2_recency;    /* LRU / BIP: victim choice and invalidation inline (hier.c fill_in / remove_in) */
    int llc_lru_fill, l2_lru_fill;  /* LRU: the fill's MRU insertion inline */
    int llc_lean;                   /* a PCIe request with a known set: hier.c pcie_lean */
    uint32_t llc_repl_off;          /* its order word's offset in a set block */
    uint64_t core_move_ways;        /* LLC ways whose line a core request moves to its L2 (core_move_fast) */
    int rd_miss_fast;               /* a PCIe read the LLC misses: hier.c access_pcie_rd_miss */
    uint8_t rd_mem_read[COL_COUNT]; /* its cells' memory reads, by column */
    uint8_t wr_miss_fast[REQ_COUNT];    /* a PCIe write the LLC misses (full, partial): hier.c pcie_wr_miss */
    uint8_t wr_mem_read[REQ_COUNT][COL_COUNT];  /* its cells' memory reads, by request and column */
    uint64_t wr_miss_mask;          /* the ways its cells allocate the line in (LLC_TO_DDIO: the DDIO ways) */
    uint64_t run_plain[2];          /* DMA runs (read, write): full lines' plain fast ways, without way 63 */
    uint64_t run_drop, run_plain_part;  /* write runs: full lines' drop ways, partial lines' plain ways (the same) */
    uint64_t tight_lines;           /* DMA run lines the tight loop took (tests) */
    uint64_t rd_owned;              /* PCIe reads (read run lines, singles with a known set) found first through the snoop filter in an L2 in E/M (tests) */
    uint64_t wr_owned;              /* PCIe writes with a known set found first through the snoop filter in an L2 in E/M (tests) */
    uint64_t hint_moves;            /* core moves hier_access_hint did from the hint's way (tests) */
    int l2_lean;                    /* a core request's own-L2 hit: hier.c core_l2_lean, with: */
    int l2_mask_map;                /* the L2s map by a mask: a line's L2 set is line & l2_set_mask */
    uint64_t l2_set_mask;
    uint64_t l2_block_bytes;
    uint32_t l2_tag_slots, l2_meta_off, l2_repl_off, l2_ways;
    uint64_t l2_full_mask;          /* every way of an L2 */
    int move_lean;                  /* a core move of an LLC line with both ends' layouts in h: hier.c core_move_lean */
    uint8_t *l2_blocks[HIER_MAX_CORES];   /* each core's L2 set blocks (l2[c].blocks): one load in the entry */
} hier;

/* Defaults: the Skylake-SP Xeon Gold 6140 of the ddio-bench data. */
void hier_config_default(hier_config *c);
int hier_config_validate(const hier_config *c, ddio_err *e);

int hier_init(hier *h, const hier_config *c, ddio_err *e);
void hier_free(hier *h);

/* One request for one line (line number = address / line size). `core` is
 * the requesting core for core requests, ignored for PCIe requests. */
void hier_access(hier *h, enum coh_req req, uint32_t core, uint64_t line, hier_result *res);

/* hier_access for a line whose LLC set the caller already knows
 * (hier_llc_set: a pure function of the line, so it can be remembered for
 * lines that recur, such as descriptor rings); the same effect. */
void hier_access_set(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res);

/* hier_access_set for one fixed request (the simulator's descriptor,
 * completion and mbuf lines: each call site has a constant request), the
 * same effect with the entry's request tests resolved at compile time:
 * REQ_CORE_RD, REQ_CORE_WR, REQ_PCIE_RD and REQ_PCIE_WR_FULL (the PCIe
 * ones as core 0, which a PCIe request ignores). */
void hier_core_rd_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res);
void hier_core_wr_set(hier *h, uint32_t core, uint64_t line, uint32_t llc_set, hier_result *res);
void hier_pcie_rd_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res);
void hier_pcie_wr_set(hier *h, uint64_t line, uint32_t llc_set, hier_result *res);

/* hier_access_set through the fixed-request entry for `req` when there is
 * one: with a constant `req` the choice is made at compile time. */
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

/* The LLC set of `line` (for hier_access_set and hier_prefetch_set). */
static inline uint32_t hier_llc_set(const hier *h, uint64_t line)
{
    return cache_set(&h->llc, line);
}

/* hier_access_set for a line with a DMA run's hint word (see
 * hier_pcie_write_run; nonzero, so it names the set): the same effect.  A
 * core request for a line still in the way the hint names skips the L2 and
 * LLC lookups when no L2 holds it (the core's first access to a packet's
 * first line, which the NIC just wrote). */
void hier_access_hint(hier *h, enum coh_req req, uint32_t core, uint64_t line, uint64_t hint, hier_result *res);

/* The same for REQ_CORE_RD and REQ_CORE_WR, the request's tests resolved at
 * compile time (as hier_core_rd_set). */
void hier_core_rd_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res);
void hier_core_wr_hint(hier *h, uint32_t core, uint64_t line, uint64_t hint, hier_result *res);

/* The NIC writes (DMA) the n consecutive lines first.. of one buffer: PCIe
 * writes, partial (RFO) for the first line if head_partial and for the last
 * if tail_partial, full-line (ItoM) otherwise.  Exactly n hier_access calls
 * in line order, with the per-call work (set mapping, counters) shared.
 * Returns the hits; *part_hits gets the hits among the partial lines.
 *
 * `hints` (optional, NULL for none): n words the caller keeps for these
 * lines between calls (e.g. per buffer line), zero-initialised, read and
 * written here: where each line was found last time (its set, which never
 * changes, and its way, which is checked against the tag before use).  They
 * never change a result, only save the set mapping and the tag match. */
uint32_t hier_pcie_write_run(hier *h, uint64_t first, uint32_t n, int head_partial, int tail_partial,
                             uint32_t *part_hits, uint64_t *hints);

/* The NIC reads (PCIRdCur) the n consecutive lines first..; returns the hits. */
uint32_t hier_pcie_read_run(hier *h, uint64_t first, uint32_t n, uint64_t *hints);

/* Tests: 1 turns every fast path off (each access takes the general path
 * that executes Table 1 cell by cell), 0 derives them again. */
void hier_set_general_only(hier *h, int on);

/* CLFLUSH from a core (packet-acrobat's flush_ratio): write a dirty line
 * back and drop every copy.  Not a Table 1 request; counted in stats.flushes. */
void hier_flush(hier *h, uint64_t line, hier_result *res);

/* Start loading what an access to `line` will read (its LLC set block and
 * snoop-filter slot).  Callers with several independent accesses (the lines
 * of one DMA) prefetch them all first, so their memory latencies overlap. */
static inline __attribute__((always_inline)) void hier_prefetch(const hier *h, uint64_t line)
{
    cache_prefetch(&h->llc, line);
    __builtin_prefetch(&h->sf.keys[snoop_home(&h->sf, line)]);
}

/* The LLC set a DMA run's hint word (see hier_pcie_write_run) records for
 * its line: 1 and *set, or 0 if the word is still zero. */
static inline int hier_hint_set(uint64_t hint, uint32_t *set)
{
    if (!hint)
        return 0;
    *set = (uint32_t)(hint >> 8) - 1;
    return 1;
}

/* hier_prefetch for a line whose LLC set is known. */
static inline __attribute__((always_inline)) void hier_prefetch_set(const hier *h, uint64_t line, uint32_t llc_set)
{
    const uint8_t *b = (const uint8_t *)cache_tags(&h->llc, llc_set);   /* the set block's start */
    __builtin_prefetch(b);
    if (h->llc.block_bytes > 64)
        __builtin_prefetch(b + 64);
    __builtin_prefetch(&h->sf.keys[snoop_home(&h->sf, line)]);
}

hier_where hier_locate(const hier *h, uint64_t line);

/* Put an absent line directly into the state of Table 1 column `col` for
 * `core` (tests and warm starts): DDIO / L3* / Shared -> an LLC copy in that
 * region's ways (M if dirty, else E); L2(E/M) -> the core's L2 (plus, when
 * inclusive, an LLC copy in the core's ways); L2(S) -> an S copy in L2 (plus
 * an LLC copy when inclusive); Memory -> nothing.  Evictions it causes are
 * handled as usual.  Returns -1 if the line is already cached or the column
 * does not exist in this mode (Shared ways when inclusive). */
int hier_place(hier *h, uint32_t core, uint64_t line, enum coh_col col, int dirty);

/* Valid LLC lines per region (occupancy) and in all L2s. */
void hier_occupancy(const hier *h, uint64_t llc_lines[REG_COUNT]);

void hier_reset_stats(hier *h);

const char *hier_region_name(enum hier_region r);
int hier_parse_mode(const char *s, enum hier_mode *out, ddio_err *e);

#endif
