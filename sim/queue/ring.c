/* ring.c - a fixed-capacity FIFO of buffer indices shaped like DPDK's
 * rte_ring (ring.h). */
#include "sim/queue/ring.h"

#include <stdlib.h>
#include "sim/common/parse.h"

int ring_init(ring *r, uint32_t capacity, const char *what, ddio_err *e)
{
    r->slots = NULL;
    r->mask = 0;
    r->head = r->tail = 0;
    if (!what)
        what = "ring";
    if (!ddio_is_pow2(capacity) || capacity > RING_MAX_CAPACITY)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s: capacity %u is not a power of two in [1, %u]",
                         what, capacity, RING_MAX_CAPACITY);
    r->slots = malloc((size_t)capacity * sizeof *r->slots);
    if (!r->slots)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: cannot allocate %u slots", what, capacity);
    r->mask = capacity - 1;
    return 0;
}

void ring_free(ring *r)
{
    free(r->slots);
    r->slots = NULL;
    r->mask = 0;
    r->head = r->tail = 0;
}
