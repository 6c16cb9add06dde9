/* replay.h - a single cache level driven by an address stream: what
 * `ddiosim cache-replay` and the cache benchmarks run.
 *
 * Core reads and writes allocate inside `alloc_mask` (write-allocate,
 * write-back); PCIe writes hit anywhere and allocate inside `ddio_mask`; a
 * PCIe read that misses is served from memory without allocating.  With
 * `ddio_mask` 0 (DDIO off) a PCIe write always misses, drops any cached
 * copy and writes the line to memory (counted in `writebacks`). */
#ifndef DDIOSIM_CACHE_REPLAY_H
#define DDIOSIM_CACHE_REPLAY_H

#include <stdint.h>

#include "sim/cache/cache.h"

/* Numbered like the din labels (traces/din.h). */
enum replay_op {
    OP_READ = 0, OP_WRITE = 1, OP_IFETCH = 2, OP_FLUSH = 4,
    OP_PCIE_WR_FULL = 5, OP_PCIE_WR_PART = 6, OP_PCIE_RD = 7, OP_COUNT = 8
};

typedef struct replay_counts {
    uint64_t accesses, hits, misses;
    uint64_t mem_reads, writebacks;     /* writebacks: line writes to memory */
} replay_counts;

/* The instruction set replay_run's LRU kernel is compiled for: the base of
 * the build (portable C: replay.c), or x86-64-v3 (AVX2, BMI1/2: fewer
 * instructions per access; replay_x86.c). */
enum replay_isa { REPLAY_ISA_BASE = 0, REPLAY_ISA_X86_64_V3 = 1 };

/* Defined when the build has the x86-64-v3 kernel: GCC 12 or later on
 * x86-64 (its target pragma and __builtin_cpu_supports("x86-64-v3")). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define REPLAY_X86_64_V3 1
#endif

typedef struct replay {
    cache c;
    uint64_t alloc_mask, ddio_mask;
    replay_counts op[OP_COUNT];
    /* The kernel's instruction set: replay_init sets the best this CPU runs
     * (replay_best_isa); a caller may lower it (the tests check each
     * version against the generic path), never raise it. */
    enum replay_isa isa;
    /* Sets with an empty way: the LRU kernel treats every miss of an op
     * that may use every way as the steady case (the victim is the LRU
     * end) when this is 0.  replay_* keep it; the cache must not be
     * changed otherwise. */
    uint64_t nonfull_sets;
} replay;

/* An empty cache of geometry g and policy rc, zero counters, the kernel's
 * instruction set replay_best_isa.  alloc_mask must select at least one
 * way, ddio_mask any (0: DDIO off), neither one beyond g->ways.  Returns 0, or -1 with
 * e filled (DDIO_EXIT_USAGE for a bad geometry or mask; r then needs no
 * replay_free). */
int replay_init(replay *r, const cache_geom *g, const repl_config *rc, uint64_t alloc_mask,
                uint64_t ddio_mask, ddio_err *e);
/* Frees what replay_init allocated. */
void replay_free(replay *r);
/* One access to byte address `addr` through the cache's generic operations
 * (the reference for replay_run); returns 1 on a hit.  OP_FLUSH empties the
 * cache, counting the writebacks of its M lines. */
int replay_access(replay *r, enum replay_op op, uint64_t addr);
/* n accesses (ops[i], an enum replay_op, to byte address addrs[i]):
 * exactly the state and counters of replay_access on each in turn, through
 * the LRU kernel of r->isa where it applies (LRU, up to 16 ways), else
 * replay_access prefetching a few ahead.  Returns the number of hits. */
uint64_t replay_run(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n);

/* The best instruction set for the LRU kernel on this CPU and build. */
enum replay_isa replay_best_isa(void);

/* Totals over every op except flushes (whose writebacks are counted). */
replay_counts replay_total(const replay *r);

#endif
