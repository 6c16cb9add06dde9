/* hier_test.h - what the tests may see of the hierarchy's fast paths
 * (hier_fast.c, hier_run.c): which of them a hierarchy takes, and how often
 * it took some.  The tests that replay a stream through a normal and a
 * general-only hierarchy (hier_set_general_only) check with it that the
 * path they mean to compare was really taken. */
#ifndef DDIOSIM_CACHE_HIER_TEST_H
#define DDIOSIM_CACHE_HIER_TEST_H

#include <stdint.h>

#include "sim/cache/hier.h"

/* Counts of fast paths taken.  Kept only where DDIOSIM_EXPENSIVE_CHECKS is
 * defined (the sanitizer build): a count on the hot paths of the shipped
 * build would cost for the tests alone. */
typedef struct hier_taken {
    uint64_t tight_lines;   /* DMA run lines the tight loop took */
    uint64_t rd_owned;      /* PCIe reads with a known set found first through the snoop filter in an L2 in E/M */
    uint64_t wr_owned;      /* PCIe writes with a known set found the same way */
    uint64_t hint_moves;    /* core moves done from a hint's way */
    uint64_t run_misses;    /* write-run lines missed in the tight loop (hier_run.c run_miss) */
    uint64_t l2_hinted;     /* own-L2 hits taken in the entry from the set's hint bytes (QLRU L2: core_l2_hinted) */
    uint64_t l2_hinted2;    /* those of them from the second hint (the way hit or filled before the last) */
} hier_taken;

/* The lean own-L2 entry's hint bytes per L2 set block (hier_paths.l2_hint_off). */
#define HIER_L2_HINT_BYTES 2

typedef struct hier_paths {
    int llc_lean;           /* PCIe requests with a known set: the lean LLC_KEEP hit (LRU / BIP LLC) */
    int llc_rule_lean;      /* the same by another inline hit rule (RRIP, QLRU LLC: hier_fast.c pcie_entry_rule) */
    int l2_lean;            /* core requests: the lean own-L2 hit (L2s mapped by a mask, an inline hit rule) */
    uint32_t l2_hint_off;   /* the lean own-L2 hit's HIER_L2_HINT_BYTES hint bytes in each L2 set block (QLRU), 0: none; the general path leaves them 0 */
    int l2_recency;         /* LRU / BIP in the L2s: their removals inline (a PCIe write's drop of an L2 (E/M) copy in pcie_entry) */
    int move_lean;          /* the core's move of an LLC line into its L2 from the layouts (LRU both ends) */
    int rd_miss_fast;       /* a PCIe read the LLC misses */
    int wr_miss_fast[2];    /* a PCIe write the LLC misses: [REQ_PCIE_WR_FULL], [REQ_PCIE_WR_PART] */
    uint64_t core_move_ways;    /* LLC ways whose line a core request moves to its L2 */
    int counted;            /* 1 when `taken` counts (DDIOSIM_EXPENSIVE_CHECKS), else it stays zero */
    hier_taken taken;
} hier_paths;

/* The fast paths of `h` as hier_init (or hier_set_general_only) derived
 * them, and the counts so far. */
hier_paths hier_paths_of(const hier *h);

#endif
