/* snoop.h - the snoop filter: which core's L2 holds a line.
 *
 * Skylake-SP keeps such a directory so the LLC can find lines that live only
 * in an L2; we need it for the same reason (a PCIe access must find the L2
 * copy without searching every core).  Open addressing with linear probing
 * and backward-shift deletion: the table starts small and doubles when an
 * insertion would fill more than an eighth of it, up to twice the total L2 lines
 * (so it can never fill up).  A bitmap of the occupied slots (one bit per
 * slot, 128 KiB for a million slots) stands in front of the keys: a line
 * whose home slot is empty is absent, and at most an eighth of the slots
 * are occupied, so most lookups of a line no L2 holds (a DMA write's usual
 * case) are answered from the bitmap, which stays in the host's caches
 * where the keys (8 MiB at 18 cores) do not.  Sized by what it holds, not by what it could
 * hold: 18 L2s of 1 MiB could hold 295 k lines, but the lines a simulation
 * leaves in them are a few tens of thousands, and a table of a million
 * slots would miss the host's caches on every probe.  Both regions a table
 * can grow into are reserved at init (untouched pages cost nothing), so an
 * insertion never fails.  One L2 holds a given line at a time. */
#ifndef DDIOSIM_CACHE_SNOOP_H
#define DDIOSIM_CACHE_SNOOP_H

#include <assert.h>
#include <stdint.h>
#include "sim/common/err.h"
#include "sim/common/hash.h"

typedef struct snoop_filter {
    uint64_t *keys;     /* line numbers, UINT64_MAX = empty; the first mask + 1 of a region */
    uint64_t *occ;      /* bit i: keys[i] is not empty (max_cap bits; the first mask + 1 used) */
    uint16_t *core;     /* core | way << SNOOP_CORE_BITS */
    uint64_t mask;      /* capacity - 1 */
    uint64_t count;
    uint32_t shift;     /* 64 - log2(capacity): snoop_home takes a product's top bits */
    uint64_t max_cap;   /* the largest capacity: twice the entries it may ever hold */
    uint64_t *region_keys[2];   /* two tables of max_cap slots: the current one and the next */
    uint16_t *region_core[2];
    int cur;            /* keys == region_keys[cur] */
} snoop_filter;

/* The table doubles when an insertion would fill more than 1 / 2^this of
 * it (until it reaches its largest size, where it is at most half full):
 * a sparse table keeps probe chains short, so that most erasures find an
 * empty slot right after theirs (no backward shift). */
#define SNOOP_LOAD_SHIFT 3

/* Is slot i occupied?  The same answer as keys[i] != UINT64_MAX, from the
 * bitmap. */
static inline int snoop_occupied(const snoop_filter *sf, uint64_t i)
{
    return (int)((sf->occ[i >> 6] >> (i & 63)) & 1);
}

static inline void snoop_occ_set(snoop_filter *sf, uint64_t i)
{
    sf->occ[i >> 6] |= 1ull << (i & 63);
}

static inline void snoop_occ_clear(snoop_filter *sf, uint64_t i)
{
    sf->occ[i >> 6] &= ~(1ull << (i & 63));
}

/* Would the insertion of a new line pass the load the table keeps? */
static inline int snoop_wants_growth(const snoop_filter *sf)
{
    return sf->count + 1 > ((sf->mask + 1) >> SNOOP_LOAD_SHIFT) && sf->mask + 1 < sf->max_cap;
}

/* A line's home slot: Fibonacci hashing, the top log2(capacity) bits of
 * line x 2^64 / phi: a multiply and a shift, on the path of most
 * accesses; consecutive lines and lines a power of two apart land far
 * apart.  Only the filter's layout depends on it, never an answer. */
static inline uint64_t snoop_home(const snoop_filter *sf, uint64_t line)
{
    return (line * 0x9E3779B97F4A7C15ull) >> sf->shift;
}

/* A filter that will hold at most max_entries lines (the L2s' lines);
 * -1 with e filled when the memory cannot be reserved. */
int snoop_init(snoop_filter *sf, uint64_t max_entries, ddio_err *e);
void snoop_free(snoop_filter *sf);
/* Double the table (rehash into the other region); the caller's slots are
 * stale afterwards.  Called by the insertions only. */
void snoop_grow(snoop_filter *sf);
/* An entry's value: the core (bits 0-7) and a way the caller may store with
 * it (bits 8-13, snoop_put_way: where the line sits in that core's L2). */
#define SNOOP_CORE_BITS 8
#define SNOOP_MAX_CORES (1 << SNOOP_CORE_BITS)
#define SNOOP_MAX_WAYS 64

/* Core holding `line`, or -1; *way gets the way stored with it.  Inline:
 * on the path of most accesses. */
static inline int snoop_get_way(const snoop_filter *sf, uint64_t line, uint32_t *way)
{
    const uint64_t home = snoop_home(sf, line);
    if (!snoop_occupied(sf, home))
        return -1;
    for (uint64_t i = home;; i = (i + 1) & sf->mask) {
        if (sf->keys[i] == line) {
            *way = (uint32_t)sf->core[i] >> SNOOP_CORE_BITS;
            return sf->core[i] & (SNOOP_MAX_CORES - 1);
        }
        if (sf->keys[i] == UINT64_MAX)
            return -1;
    }
}

/* snoop_get_way that also gives the entry's slot (*slot, when found) for
 * snoop_erase_slot. */
static inline int snoop_get_slot(const snoop_filter *sf, uint64_t line, uint32_t *way, uint64_t *slot)
{
    const uint64_t home = snoop_home(sf, line);
    if (!snoop_occupied(sf, home))
        return -1;
    for (uint64_t i = home;; i = (i + 1) & sf->mask) {
        if (sf->keys[i] == line) {
            *way = (uint32_t)sf->core[i] >> SNOOP_CORE_BITS;
            *slot = i;
            return sf->core[i] & (SNOOP_MAX_CORES - 1);
        }
        if (sf->keys[i] == UINT64_MAX)
            return -1;
    }
}

/* Core holding `line`, or -1. */
static inline int snoop_get(const snoop_filter *sf, uint64_t line)
{
    uint32_t way;
    return snoop_get_way(sf, line, &way);
}
/* The slot holding `line`, or else the empty slot that ends its probe
 * chain: where snoop_put_way would put it.  A caller that looks a line up
 * and then adds it (snoop_put_way_at) probes once. */
static inline uint64_t snoop_find(const snoop_filter *sf, uint64_t line)
{
    uint64_t i = snoop_home(sf, line);
    if (!snoop_occupied(sf, i))
        return i;
    while (sf->keys[i] != line && sf->keys[i] != UINT64_MAX)
        i = (i + 1) & sf->mask;
    return i;
}

/* Does `slot` (snoop_find's for `line`) hold `line`?  An empty slot is
 * answered from the bitmap, without loading its key. */
static inline int snoop_at(const snoop_filter *sf, uint64_t slot, uint64_t line)
{
    return snoop_occupied(sf, slot) && sf->keys[slot] == line;
}

/* snoop_put_way at `slot`, snoop_find's for `line` with the filter
 * unchanged since (no put or erase in between). */
static inline void snoop_put_way_at(snoop_filter *sf, uint64_t slot, uint64_t line, int core, uint32_t way)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(slot == snoop_find(sf, line) && "a snoop filter slot found before a change");
    assert(core >= 0 && core < SNOOP_MAX_CORES && way < SNOOP_MAX_WAYS);
#endif
    if (sf->keys[slot] != line) {
        if (snoop_wants_growth(sf)) {   /* rare: the table doubles */
            snoop_grow(sf);
            slot = snoop_find(sf, line);
        }
        assert(sf->count < sf->mask / 2 + 1 && "snoop filter over capacity");
        sf->keys[slot] = line;
        snoop_occ_set(sf, slot);
        sf->count++;
    }
    sf->core[slot] = (uint16_t)((uint32_t)core | way << SNOOP_CORE_BITS);
}

/* core < SNOOP_MAX_CORES, way < SNOOP_MAX_WAYS; snoop_put stores way 0. */
void snoop_put_way(snoop_filter *sf, uint64_t line, int core, uint32_t way);
void snoop_put(snoop_filter *sf, uint64_t line, int core);
void snoop_erase(snoop_filter *sf, uint64_t line);
/* snoop_erase_slot when entries follow the slot (backward shift). */
void snoop_erase_shift(snoop_filter *sf, uint64_t slot);

/* Erase the entry at `slot` (snoop_get_slot's, the filter unchanged since).
 * Inline for the usual case, an empty slot right after it (the filter is
 * sparse): nothing to shift back. */
static inline void snoop_erase_slot(snoop_filter *sf, uint64_t slot)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(slot <= sf->mask && sf->keys[slot] != UINT64_MAX);
#endif
    if (snoop_occupied(sf, (slot + 1) & sf->mask)) {
        snoop_erase_shift(sf, slot);
        return;
    }
    sf->keys[slot] = UINT64_MAX;
    snoop_occ_clear(sf, slot);
    sf->count--;
}

#endif
