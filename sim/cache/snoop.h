/* snoop.h - the snoop filter: which core's L2 holds a line.
 *
 * Skylake-SP keeps such a directory so the LLC can find lines that live only
 * in an L2; we need it for the same reason (a PCIe access must find the L2
 * copy without searching every core).  Open addressing with linear probing
 * and backward-shift deletion; its capacity is fixed at twice the total L2
 * lines, so it can never fill up.  One L2 holds a given line at a time. */
#ifndef DDIOSIM_CACHE_SNOOP_H
#define DDIOSIM_CACHE_SNOOP_H

#include <stdint.h>
#include "sim/common/err.h"
#include "sim/common/hash.h"

typedef struct snoop_filter {
    uint64_t *keys;     /* line numbers, UINT64_MAX = empty */
    uint16_t *core;
    uint64_t mask;      /* capacity - 1 */
    uint64_t count;
} snoop_filter;

int snoop_init(snoop_filter *sf, uint64_t max_entries, ddio_err *e);
void snoop_free(snoop_filter *sf);
/* Core holding `line`, or -1.  Inline: on the path of most accesses. */
static inline int snoop_get(const snoop_filter *sf, uint64_t line)
{
    for (uint64_t i = ddio_mix64(line) & sf->mask;; i = (i + 1) & sf->mask) {
        if (sf->keys[i] == line)
            return sf->core[i];
        if (sf->keys[i] == UINT64_MAX)
            return -1;
    }
}
void snoop_put(snoop_filter *sf, uint64_t line, int core);
void snoop_erase(snoop_filter *sf, uint64_t line);

#endif
