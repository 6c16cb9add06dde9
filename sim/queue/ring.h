/* ring.h - a fixed-capacity FIFO of uint32 buffer indices, shaped like DPDK's rte_ring.
 *
 * Single-threaded (the simulator is), so there is no producer/consumer
 * split of head and tail: `tail` is where the producer writes, `head`
 * where the consumer reads, both free-running uint32 counters masked into
 * the slot array.  The capacity is a power of two and, unlike rte_ring
 * (which keeps one slot empty unless RING_F_EXACT_SZ), every slot is usable.
 *
 * Naming follows DPDK:
 *   _bulk   all or nothing: moves exactly n objects or none, returns n or 0;
 *   _burst  as many as possible up to n, returns the number moved.
 * Single-object enqueue/dequeue return 0 or -1 (rte_ring: -ENOBUFS/-ENOENT).
 * Bulk copies take two memcpy at most (the wrap point). */
#ifndef DDIOSIM_QUEUE_RING_H
#define DDIOSIM_QUEUE_RING_H

#include <assert.h>
#include <stdint.h>
#include <string.h>
#include "sim/common/err.h"

#define RING_MAX_CAPACITY (1u << 31)

typedef struct ring {
    uint32_t *slots;
    uint32_t mask;      /* capacity - 1 */
    uint32_t head;      /* consumer position (next to dequeue) */
    uint32_t tail;      /* producer position (next free slot) */
} ring;

/* `capacity` must be a power of two in [1, RING_MAX_CAPACITY]; `what`
 * names the ring in the error ("rx ring", "--rx-ring"...), may be NULL. */
int ring_init(ring *r, uint32_t capacity, const char *what, ddio_err *e);
void ring_free(ring *r);
/* Empty the ring (keeps the allocation). */
static inline void ring_reset(ring *r) { r->head = r->tail = 0; }

static inline uint32_t ring_capacity(const ring *r) { return r->mask + 1; }
static inline uint32_t ring_count(const ring *r) { return r->tail - r->head; }
static inline uint32_t ring_free_count(const ring *r) { return r->mask + 1 - (r->tail - r->head); }
static inline int ring_empty(const ring *r) { return r->tail == r->head; }
static inline int ring_full(const ring *r) { return r->tail - r->head == r->mask + 1; }

/* The i-th oldest object (i < ring_count): 0 is the next to be dequeued. */
static inline uint32_t ring_peek(const ring *r, uint32_t i)
{
    assert(i < ring_count(r));
    return r->slots[(r->head + i) & r->mask];
}

static inline int ring_enqueue(ring *r, uint32_t obj)
{
    if (ring_full(r))
        return -1;
    r->slots[r->tail++ & r->mask] = obj;
    return 0;
}

static inline int ring_dequeue(ring *r, uint32_t *obj)
{
    if (ring_empty(r))
        return -1;
    *obj = r->slots[r->head++ & r->mask];
    return 0;
}

/* Unchecked copies of n >= 1 objects (the caller checked room / count). */
static inline void ring_copy_in(ring *r, const uint32_t *objs, uint32_t n)
{
    uint32_t idx = r->tail & r->mask, room = r->mask + 1 - idx;
    if (n <= room) {
        memcpy(&r->slots[idx], objs, (size_t)n * sizeof *objs);
    } else {
        memcpy(&r->slots[idx], objs, (size_t)room * sizeof *objs);
        memcpy(r->slots, objs + room, (size_t)(n - room) * sizeof *objs);
    }
    r->tail += n;
}

static inline void ring_copy_out(ring *r, uint32_t *objs, uint32_t n)
{
    uint32_t idx = r->head & r->mask, room = r->mask + 1 - idx;
    if (n <= room) {
        memcpy(objs, &r->slots[idx], (size_t)n * sizeof *objs);
    } else {
        memcpy(objs, &r->slots[idx], (size_t)room * sizeof *objs);
        memcpy(objs + room, r->slots, (size_t)(n - room) * sizeof *objs);
    }
    r->head += n;
}

/* All n or nothing; returns n or 0. */
static inline uint32_t ring_enqueue_bulk(ring *r, const uint32_t *objs, uint32_t n)
{
    if (n == 0 || n > ring_free_count(r))
        return 0;
    ring_copy_in(r, objs, n);
    return n;
}

/* Up to n; returns how many were enqueued. */
static inline uint32_t ring_enqueue_burst(ring *r, const uint32_t *objs, uint32_t n)
{
    uint32_t room = ring_free_count(r);
    if (n > room)
        n = room;
    if (n)
        ring_copy_in(r, objs, n);
    return n;
}

/* All n or nothing; returns n or 0. */
static inline uint32_t ring_dequeue_bulk(ring *r, uint32_t *objs, uint32_t n)
{
    if (n == 0 || n > ring_count(r))
        return 0;
    ring_copy_out(r, objs, n);
    return n;
}

/* Up to n; returns how many were dequeued. */
static inline uint32_t ring_dequeue_burst(ring *r, uint32_t *objs, uint32_t n)
{
    uint32_t avail = ring_count(r);
    if (n > avail)
        n = avail;
    if (n == 1)   /* a poll's usual burst at a few cores: no copy loop */
        objs[0] = r->slots[r->head++ & r->mask];
    else if (n)
        ring_copy_out(r, objs, n);
    return n;
}

#endif
