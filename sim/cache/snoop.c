/* snoop.c - the snoop filter (snoop.h), which core's L2 holds a line: its
 * table's allocation, and the insertions and erasures (backward-shift
 * deletion) that do not fit inline. */
#include "sim/cache/snoop.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/hash.h"
#include "sim/common/mem.h"

#define SF_EMPTY UINT64_MAX

/* The first capacity: 4 Ki slots (32 KiB of keys) hold 2 Ki lines, what a
 * few cores' L2s keep of a forwarding workload's lines; a run that keeps
 * more doubles it a few times, once each. */
#define SF_FIRST_CAP 4096u

/* The bitmap's bytes for `cap` slots (whole words). */
static uint64_t occ_bytes(uint64_t cap)
{
    return (cap + 63) / 64 * sizeof(uint64_t);
}

/* Use region r at capacity cap: the first cap slots emptied. */
static void use_region(snoop_filter *sf, int r, uint64_t cap)
{
    sf->cur = r;
    sf->keys = sf->region_keys[r];
    sf->core = sf->region_core[r];
    sf->mask = cap - 1;
    sf->shift = 64u - (uint32_t)__builtin_ctzll(cap);
    memset(sf->keys, 0xFF, cap * sizeof *sf->keys);
    memset(sf->occ, 0, occ_bytes(cap));
}

int snoop_init(snoop_filter *sf, uint64_t max_entries, ddio_err *e)
{
    memset(sf, 0, sizeof *sf);
    uint64_t cap = 16;
    while (cap < 2 * max_entries)
        cap *= 2;
    sf->max_cap = cap;
    for (int r = 0; r < 2; r++) {
        sf->region_keys[r] = ddio_table_alloc(cap * sizeof *sf->keys);
        sf->region_core[r] = ddio_table_alloc(cap * sizeof *sf->core);
        if (!sf->region_keys[r] || !sf->region_core[r]) {
            snoop_free(sf);
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory for the snoop filter");
        }
    }
    sf->occ = ddio_table_alloc(occ_bytes(cap));
    if (!sf->occ) {
        snoop_free(sf);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory for the snoop filter");
    }
    use_region(sf, 0, cap < SF_FIRST_CAP ? cap : SF_FIRST_CAP);
    return 0;
}

void snoop_free(snoop_filter *sf)
{
    for (int r = 0; r < 2; r++) {
        ddio_table_free(sf->region_keys[r], sf->max_cap * sizeof *sf->keys);
        ddio_table_free(sf->region_core[r], sf->max_cap * sizeof *sf->core);
    }
    ddio_table_free(sf->occ, occ_bytes(sf->max_cap));
    memset(sf, 0, sizeof *sf);
}

void snoop_grow(snoop_filter *sf)
{
    const uint64_t old_cap = sf->mask + 1;
    assert(old_cap < sf->max_cap && "a full snoop filter holds more lines than the L2s");
    const uint64_t *ok = sf->keys;
    const uint16_t *oc = sf->core;
    use_region(sf, !sf->cur, old_cap * 2);
    /* Every entry again from its home: the new table has no deletions to
     * repair, and an answer never depends on where an entry sits. */
    for (uint64_t i = 0; i < old_cap; i++) {
        if (ok[i] == SF_EMPTY)
            continue;
        uint64_t j = snoop_home(sf, ok[i]);
        while (sf->keys[j] != SF_EMPTY)
            j = (j + 1) & sf->mask;
        sf->keys[j] = ok[i];
        sf->core[j] = oc[i];
        snoop_occ_set(sf, j);
    }
}

static inline uint64_t slot_of(const snoop_filter *sf, uint64_t line)
{
    return snoop_home(sf, line);
}

void snoop_put_way(snoop_filter *sf, uint64_t line, int core, uint32_t way)
{
    /* One rule for an insertion (growth included): snoop_put_way_at's. */
    snoop_put_way_at(sf, snoop_find(sf, line), line, core, way);
}

void snoop_put(snoop_filter *sf, uint64_t line, int core)
{
    snoop_put_way(sf, line, core, 0);
}

void snoop_erase(snoop_filter *sf, uint64_t line)
{
    uint64_t i = slot_of(sf, line);
    while (sf->keys[i] != line) {
        if (sf->keys[i] == SF_EMPTY)
            return;
        i = (i + 1) & sf->mask;
    }
    snoop_erase_slot(sf, i);
}

void snoop_erase_shift(snoop_filter *sf, uint64_t i)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(i <= sf->mask && sf->keys[i] != SF_EMPTY);
#endif
    /* Backward-shift deletion keeps every probe chain unbroken. */
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & sf->mask;
        if (sf->keys[j] == SF_EMPTY)
            break;
        uint64_t home = slot_of(sf, sf->keys[j]);
        /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
        int in_range = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            sf->keys[i] = sf->keys[j];
            sf->core[i] = sf->core[j];
            i = j;
        }
    }
    sf->keys[i] = SF_EMPTY;
    snoop_occ_clear(sf, i);
    sf->count--;
}
