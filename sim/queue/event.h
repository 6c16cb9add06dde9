/* event.h - the discrete-event engine core: a priority queue of timestamped events.
 *
 * A binary min-heap keyed by (time_ns, seq).  `seq` is assigned by
 * evq_push from a per-queue counter, so two events with the same time pop
 * in the order they were pushed: the simulation is a pure function of its
 * inputs, never of heap layout, allocation addresses or wall clock.
 *
 * Layout, for speed: the heap holds only 128-bit keys
 *   time_ns << 64 | seq << 24 | slot
 * compared as single integers (branch-free, 16 B moves), and the events
 * themselves stay in a slot table until popped.  Hence the limits: at most
 * EVQ_MAX_PENDING events pending at once and EVQ_MAX_SEQ pushes per queue
 * lifetime (evq_clear restarts the count); evq_push fails cleanly beyond.
 * Pop uses the bottom-up ("Floyd") sift-down: the hole at the root goes
 * down to a leaf with one comparison per level, then the last key is
 * sifted up, usually by zero or one level.
 *
 * Events are small values (40 bytes); a simulator that needs more state
 * keeps it in its own tables and passes an index in `a`/`b` (or a pointer in
 * `ptr`).  There is no cancellation: a stale event is recognised by the
 * simulator (e.g. a generation number in the payload) and ignored. */
#ifndef DDIOSIM_QUEUE_EVENT_H
#define DDIOSIM_QUEUE_EVENT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/common/err.h"

#define EVQ_SLOT_BITS 24
#define EVQ_MAX_PENDING (1u << EVQ_SLOT_BITS)            /* 16.7 M */
#define EVQ_MAX_SEQ (1ull << (64 - EVQ_SLOT_BITS))       /* 1.1e12 */

typedef struct sim_event {
    uint64_t time_ns;   /* when the event fires (simulated ns) */
    uint64_t seq;       /* set by evq_push: insertion order, breaks ties */
    int32_t type;       /* simulator-defined event kind */
    uint32_t id;        /* small integer payload: core, queue or port */
    uint64_t a;         /* payload */
    union {
        uint64_t b;     /* payload */
        void *ptr;      /* or a pointer, if the simulator prefers */
    };
} sim_event;

typedef unsigned __int128 evq_key;

/* Lanes: a simulator whose events of one kind are pushed in time order (a
 * FIFO link's completions, arrivals from a sorted trace, events "now") may
 * push them into a lane instead of the heap: a FIFO that is sorted by
 * (time, seq) because its times do not decrease and seq grows with every
 * push.  Pop takes the smallest (time, seq) of the heap top and the lane
 * heads, so the order of events is exactly the one the heap alone gives;
 * an event that would break a lane's order goes to the heap.
 *
 * Each lane's head key is kept in `lane_key` (all ones when the lane is
 * empty) and the heap's top stays in heap[0] (all ones when the heap is
 * empty), so finding the earliest event compares EVQ_LANES + 1 keys already
 * in place, without branches on emptiness (a real key never has all bits
 * set: seq < EVQ_MAX_SEQ). */
#define EVQ_LANES 3

typedef struct evq_lane {
    sim_event *ev;      /* ring of pending events, oldest at head */
    uint32_t head, n, mask;
    uint32_t size;      /* slots allocated: mask + 1, 0 before the first push */
    uint64_t last_ns;   /* time of the newest event pushed */
} evq_lane;

/* The front: an event pushed at the current time when no pending event is
 * due then (evq_front_fits) pops next, before every other pending event,
 * whatever is pushed meanwhile: every later push is at this time or after
 * and gets a larger seq.  So it needs no heap and no key: pop takes it
 * first (a core's poll and the NIC's TX start, pushed "now" by the event
 * being handled, are usually the next events of a lightly loaded run). */
typedef struct evq {
    evq_key *heap;      /* heap[0] is the earliest key (all ones when empty) */
    sim_event *slots;   /* events by slot (the key's low bits) */
    uint32_t *free;     /* stack of free slots */
    size_t n, cap;      /* pending events in the heap, slots allocated */
    size_t nfree;
    uint64_t next_seq;  /* seq of the next pushed event */
    uint64_t now_ns;    /* time of the last popped event (0 before any pop) */
    evq_key lane_key[EVQ_LANES];   /* each lane's head key; all ones when empty */
    evq_lane lane[EVQ_LANES];
    int front_n;        /* 1: `front` holds the next event (see above) */
    sim_event front;
} evq;

#define EVQ_NO_KEY (~(evq_key)0)

/* `initial_cap` events are preallocated (0 picks a small default); the
 * tables double when full. */
int evq_init(evq *q, size_t initial_cap, ddio_err *e);
void evq_free(evq *q);
/* Drop every event; keeps the allocation; seq and now restart at 0. */
void evq_clear(evq *q);
/* Out-of-line part of evq_push: grow, or fail at the limits. */
int evq_push_slow(evq *q, sim_event ev, ddio_err *e);

/* Out-of-line part of evq_push_lane: grow the lane's ring. */
int evq_lane_grow(evq *q, evq_lane *l, ddio_err *e);

/* Pending events (the lanes' counted here, not at every push and pop). */
static inline size_t evq_size(const evq *q)
{
    size_t n = q->n + (size_t)q->front_n;
    for (int i = 0; i < EVQ_LANES; i++)
        n += q->lane[i].n;
    return n;
}
static inline uint64_t evq_now(const evq *q) { return q->now_ns; }

static inline evq_key evq_event_key(const sim_event *ev)
{
    return ((evq_key)ev->time_ns << 64) | (ev->seq << EVQ_SLOT_BITS);
}

/* The smallest key of the heap top and the lane heads: -1 the heap, 0.. a
 * lane.  Empty lanes and an empty heap have all-ones keys, so with nothing
 * pending the heap "wins" (the caller tells by the count). */
static inline int evq_argmin(const evq *q)
{
    evq_key best = q->heap[0];
    int src = -1;
    for (int i = 0; i < EVQ_LANES; i++) {
        evq_key k = q->lane_key[i];
        src = k < best ? i : src;
        best = k < best ? k : best;
    }
    return src;
}

/* Where the earliest event is: -3 the front, -1 the heap, 0.. a lane, -2
 * nowhere. */
static inline int evq_earliest(const evq *q)
{
    if (q->front_n)
        return -3;
    return evq_size(q) ? evq_argmin(q) : -2;
}

/* The earliest event, or NULL when empty; valid until the next push or pop. */
static inline const sim_event *evq_peek(const evq *q)
{
    int src = evq_earliest(q);
    if (src == -3)
        return &q->front;
    if (src >= 0)
        return &q->lane[src].ev[q->lane[src].head & q->lane[src].mask];
    return src == -1 ? &q->slots[(uint32_t)q->heap[0] & (EVQ_MAX_PENDING - 1)] : NULL;
}

/* The time of the earliest event; UINT64_MAX when empty. */
static inline uint64_t evq_next_time(const evq *q)
{
    if (q->front_n)
        return q->front.time_ns;
    evq_key best = q->heap[0];
    for (int i = 0; i < EVQ_LANES; i++)
        best = q->lane_key[i] < best ? q->lane_key[i] : best;
    return (uint64_t)(best >> 64);
}

/* evq_next_time when lane `empty` holds nothing (its key is all ones, so
 * it cannot be the earliest): one key less to compare. */
static inline uint64_t evq_next_time_without(const evq *q, int empty)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(q->lane_key[empty] == EVQ_NO_KEY && q->lane[empty].n == 0);
#endif
    if (q->front_n)
        return q->front.time_ns;
    evq_key best = q->heap[0];
    for (int i = 0; i < EVQ_LANES; i++)
        if (i != empty)
            best = q->lane_key[i] < best ? q->lane_key[i] : best;
    return (uint64_t)(best >> 64);
}

/* Move the clock to t without popping: for a simulator that handles an
 * event it would push and pop at once (t is before every pending event,
 * which therefore would not have popped first; its seq would have been the
 * largest, so the order of everything else is unchanged). */
static inline void evq_advance(evq *q, uint64_t t)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(t < evq_next_time(q));
#endif
    assert(t >= q->now_ns);
    q->now_ns = t;
}

/* Can the heap take an event without growing and within the seq limit?
 * Then evq_heap_put may push it (evq_push's fast path, for callers that
 * keep the rest out of line). */
static inline int evq_heap_fits(const evq *q)
{
    return q->nfree != 0 && q->next_seq != EVQ_MAX_SEQ;
}

static inline void evq_heap_put(evq *q, sim_event ev)
{
    assert(ev.time_ns >= q->now_ns && evq_heap_fits(q));
    uint32_t slot = q->free[--q->nfree];
    ev.seq = q->next_seq++;
    q->slots[slot] = ev;
    evq_key k = ((evq_key)ev.time_ns << 64) | (ev.seq << EVQ_SLOT_BITS) | slot;
    evq_key *restrict h = q->heap;
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (!(k < h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = k;
}

/* Insert `ev` (its seq is overwritten).  Scheduling into the past, before
 * the last popped event, is a simulator bug and is asserted against.
 * Returns 0, or -1 if the queue could not grow or hit its limits. */
static inline int evq_push(evq *q, sim_event ev, ddio_err *e)
{
    assert(ev.time_ns >= q->now_ns);
    if (!evq_heap_fits(q))
        return evq_push_slow(q, ev, e);
    evq_heap_put(q, ev);
    return 0;
}

/* Is every pending event later than t?  evq_next_time(q) > t, on the
 * keys' times alone: no minimum to find, & rather than &&, no branch per
 * key. */
static inline int evq_all_after(const evq *q, uint64_t t)
{
    int later = !q->front_n || q->front.time_ns > t;
    later &= (uint64_t)(q->heap[0] >> 64) > t;
    for (int i = 0; i < EVQ_LANES; i++)
        later &= (uint64_t)(q->lane_key[i] >> 64) > t;
    return later;
}

/* Can an event at time t go to the front (it pops next)?  It must be due
 * now, before nothing else (a pending event due now has a smaller seq), and
 * the front empty.  Then evq_front_put may push it. */
static inline int evq_front_fits(const evq *q, uint64_t t)
{
    return t == q->now_ns && !q->front_n && q->next_seq != EVQ_MAX_SEQ && evq_all_after(q, t);
}

static inline void evq_front_put(evq *q, sim_event ev)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(evq_front_fits(q, ev.time_ns));
#endif
    ev.seq = q->next_seq++;
    q->front = ev;
    q->front_n = 1;
}

/* Pop the front if it holds an event of kind `type`: for a handler whose
 * last action is to run that event (the next one) itself.  Returns 1 if it
 * did (the clock stays: the front's time is now). */
static inline int evq_front_take(evq *q, int32_t type)
{
    if (!q->front_n || q->front.type != type)
        return 0;
    assert(q->front.time_ns == q->now_ns);
    q->front_n = 0;
    return 1;
}

/* Can `lane` take an event at time t without growing and in order?  Then
 * evq_lane_put may push it (the fast path of evq_push_lane, for callers
 * that keep the rare rest out of line). */
static inline int evq_lane_fits(const evq *q, int lane, uint64_t t)
{
    const evq_lane *l = &q->lane[lane];
    /* An empty lane's last_ns is no later than now (its events have
     * popped) and t >= now, so the order test needs no emptiness test. */
    return l->n < l->size && t >= l->last_ns && q->next_seq != EVQ_MAX_SEQ;
}

static inline void evq_lane_put(evq *q, int lane, sim_event ev)
{
#ifdef DDIOSIM_EXPENSIVE_CHECKS
    assert(evq_lane_fits(q, lane, ev.time_ns));
#endif
    assert(ev.time_ns >= q->now_ns);
    evq_lane *l = &q->lane[lane];
    ev.seq = q->next_seq++;
    if (!l->n)
        q->lane_key[lane] = evq_event_key(&ev);
    l->ev[(l->head + l->n++) & l->mask] = ev;
    l->last_ns = ev.time_ns;
}

/* A lane for events of one kind pushed one at a time (the next arrival):
 * its ring has a single slot holding `proto`, so a push writes only the
 * time and the seq (evq_single_put).  Call before the first push into the
 * lane; it stays an ordinary lane (evq_push_lane may still grow it). */
int evq_lane_single(evq *q, int lane, sim_event proto, ddio_err *e);

/* Push lane `lane`'s event (evq_lane_single's proto) at time t; -1 (nothing
 * done) unless the lane is a single slot and empty and a seq is left: the
 * caller then pushes the whole event as usual. */
static inline int evq_single_put(evq *q, int lane, uint64_t t)
{
    evq_lane *l = &q->lane[lane];
    if (l->size != 1 || l->n || q->next_seq == EVQ_MAX_SEQ)
        return -1;
    assert(t >= q->now_ns);
    sim_event *ev = &l->ev[0];
    ev->time_ns = t;
    ev->seq = q->next_seq++;
    q->lane_key[lane] = evq_event_key(ev);
    l->n = 1;
    l->last_ns = t;
    return 0;
}

/* Insert `ev` into lane `lane` (0 .. EVQ_LANES - 1), or into the heap if
 * its time is before the lane's newest event.  Same contract as evq_push. */
static inline int evq_push_lane(evq *q, int lane, sim_event ev, ddio_err *e)
{
    assert(ev.time_ns >= q->now_ns && lane >= 0 && lane < EVQ_LANES);
    evq_lane *l = &q->lane[lane];
    if ((l->n && ev.time_ns < l->last_ns) || q->next_seq == EVQ_MAX_SEQ)
        return evq_push(q, ev, e);
    if (l->n >= l->size && evq_lane_grow(q, l, e) != 0)
        return -1;
    evq_lane_put(q, lane, ev);
    return 0;
}

/* Remove the earliest event and return it in place, or NULL when empty:
 * the pointer is valid until the next push, which may reuse its slot (a
 * lane's ring, the heap's slot table, the front), so a caller reads what it
 * needs before it pushes.  No copy of the event (evq_pop makes one). */
static inline __attribute__((always_inline)) const sim_event *evq_pop_ref(evq *q)
{
    if (q->front_n) {   /* its time is now: the clock stays */
        assert(q->front.time_ns == q->now_ns);
        q->front_n = 0;
        return &q->front;
    }
    /* evq_earliest without its emptiness test (the heap's count says). */
    const int src = evq_argmin(q);
    if (src >= 0) {
        evq_lane *l = &q->lane[src];
        const sim_event *ev = &l->ev[l->head++ & l->mask];
        q->lane_key[src] = --l->n ? evq_event_key(&l->ev[l->head & l->mask]) : EVQ_NO_KEY;
        q->now_ns = ev->time_ns;
        return ev;
    }
    size_t n = q->n;
    if (!n)
        return NULL;
    evq_key *restrict h = q->heap;
    uint32_t slot = (uint32_t)h[0] & (EVQ_MAX_PENDING - 1);
    q->n = --n;
    q->free[q->nfree++] = slot;
    evq_key last = h[n];
    /* Move the hole at the root down to a leaf along the smaller children. */
    size_t i = 0, c;
    while ((c = 2 * i + 1) < n) {
        c += (c + 1 < n) && (h[c + 1] < h[c]);
        h[i] = h[c];
        i = c;
    }
    /* Put the former last key into the hole and sift it up. */
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (!(last < h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = last;
    h[n] = EVQ_NO_KEY;   /* n == 0: the empty heap's top; else past the end */
    const sim_event *ev = &q->slots[slot];
    q->now_ns = ev->time_ns;
    return ev;
}

/* Remove the earliest event into *out; returns 1, or 0 when empty. */
static inline int evq_pop(evq *q, sim_event *out)
{
    const sim_event *ev = evq_pop_ref(q);
    if (!ev)
        return 0;
    *out = *ev;
    return 1;
}

#endif
