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

int snoop_init(snoop_filter *sf, uint64_t max_entries, ddio_err *e)
{
    memset(sf, 0, sizeof *sf);
    uint64_t cap = 16;
    while (cap < 2 * max_entries)
        cap *= 2;
    sf->mask = cap - 1;
    sf->shift = 64u - (uint32_t)__builtin_ctzll(cap);
    sf->keys = ddio_table_alloc(cap * sizeof *sf->keys);
    sf->core = ddio_table_alloc(cap * sizeof *sf->core);
    if (!sf->keys || !sf->core) {
        snoop_free(sf);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory for the snoop filter");
    }
    memset(sf->keys, 0xFF, cap * sizeof *sf->keys);
    return 0;
}

void snoop_free(snoop_filter *sf)
{
    ddio_table_free(sf->keys, (sf->mask + 1) * sizeof *sf->keys);
    ddio_table_free(sf->core, (sf->mask + 1) * sizeof *sf->core);
    memset(sf, 0, sizeof *sf);
}

static inline uint64_t slot_of(const snoop_filter *sf, uint64_t line)
{
    return snoop_home(sf, line);
}

void snoop_put_way(snoop_filter *sf, uint64_t line, int core, uint32_t way)
{
    assert(core >= 0 && core < SNOOP_MAX_CORES && way < SNOOP_MAX_WAYS);
    uint16_t v = (uint16_t)((uint32_t)core | way << SNOOP_CORE_BITS);
    for (uint64_t i = slot_of(sf, line);; i = (i + 1) & sf->mask) {
        if (sf->keys[i] == line) {
            sf->core[i] = v;
            return;
        }
        if (sf->keys[i] == SF_EMPTY) {
            assert(sf->count < sf->mask / 2 + 1 && "snoop filter over capacity");
            sf->keys[i] = line;
            sf->core[i] = v;
            sf->count++;
            return;
        }
    }
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
    assert(i <= sf->mask && sf->keys[i] != SF_EMPTY);
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
    sf->count--;
}
