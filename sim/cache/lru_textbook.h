/* lru_textbook.h - the textbook set-associative LRU update: a set is a
 * recency list of line numbers, MRU first.  Not used by the simulator: it is
 * the oracle the tests compare `--mapping modulo --policy lru` with and the
 * baseline `make bench` times the cache kernel against, so both compare
 * with the same obvious code. */
#ifndef DDIOSIM_CACHE_LRU_TEXTBOOK_H
#define DDIOSIM_CACHE_LRU_TEXTBOOK_H

#include <stdint.h>
#include <string.h>

/* Access `line` in the set `s` of `ways` slots (empty slots hold a value that
 * is never a line, e.g. UINT64_MAX).  Returns 1 on a hit.  A miss overwrites
 * the LRU slot. */
static inline int lru_textbook_access(uint64_t *s, uint32_t ways, uint64_t line)
{
    uint32_t pos = ways - 1;
    int hit = 0;
    for (uint32_t i = 0; i < ways; i++)
        if (s[i] == line) {
            pos = i;
            hit = 1;
            break;
        }
    memmove(&s[1], &s[0], pos * sizeof *s);
    s[0] = line;
    return hit;
}

#endif
