/* replay.h - a single cache level driven by an address stream: what
 * `ddiosim cache-replay` and the cache benchmarks run.
 *
 * Core reads and writes allocate inside `alloc_mask` (write-allocate,
 * write-back); PCIe writes hit anywhere and allocate inside `ddio_mask`; a
 * PCIe read that misses is served from memory without allocating. */
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
    uint64_t mem_reads, writebacks;
} replay_counts;

/* The instruction set replay_run's LRU kernel is compiled for: the base of
 * the build, or x86-64-v3 (AVX2, BMI1/2: fewer instructions per access). */
enum replay_isa { REPLAY_ISA_BASE = 0, REPLAY_ISA_X86_64_V3 = 1 };

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

int replay_init(replay *r, const cache_geom *g, const repl_config *rc, uint64_t alloc_mask,
                uint64_t ddio_mask, ddio_err *e);
void replay_free(replay *r);
/* One access to byte address `addr`; returns 1 on a hit. */
int replay_access(replay *r, enum replay_op op, uint64_t addr);
/* n accesses, prefetching a few ahead; returns the number of hits. */
uint64_t replay_run(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n);

/* The best instruction set for the LRU kernel on this CPU and build. */
enum replay_isa replay_best_isa(void);

/* Totals over every op except flushes. */
replay_counts replay_total(const replay *r);

#endif
