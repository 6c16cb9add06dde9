/* event.c - the discrete-event engine (event.h): a binary min-heap of
 * (time, push order) keys over a slot table of events. */
#include "sim/queue/event.h"

#include <stdlib.h>
#include <string.h>

enum { EVQ_DEFAULT_CAP = 64 };

/* Make slots [from, to) free, so that the lowest pops first. */
static void push_free(evq *q, size_t from, size_t to)
{
    for (size_t s = to; s > from; s--)
        q->free[q->nfree++] = (uint32_t)(s - 1);
}

static int resize(evq *q, size_t ncap, ddio_err *e)
{
    evq_key *h = realloc(q->heap, ncap * sizeof *h);
    if (h)
        q->heap = h;
    sim_event *s = realloc(q->slots, ncap * sizeof *s);
    if (s)
        q->slots = s;
    uint32_t *f = realloc(q->free, ncap * sizeof *f);
    if (f)
        q->free = f;
    if (!h || !s || !f)
        return ddio_errf(e, DDIO_EXIT_IO, "event queue: cannot allocate %zu events", ncap);
    return 0;
}

int evq_init(evq *q, size_t initial_cap, ddio_err *e)
{
    memset(q, 0, sizeof *q);
    size_t cap = initial_cap ? initial_cap : EVQ_DEFAULT_CAP;
    if (cap > EVQ_MAX_PENDING)
        cap = EVQ_MAX_PENDING;
    if (resize(q, cap, e) < 0) {
        evq_free(q);
        return -1;
    }
    q->cap = cap;
    push_free(q, 0, cap);
    q->heap[0] = EVQ_NO_KEY;
    for (int i = 0; i < EVQ_LANES; i++)
        q->lane_key[i] = EVQ_NO_KEY;
    return 0;
}

void evq_free(evq *q)
{
    free(q->heap);
    free(q->slots);
    free(q->free);
    for (int i = 0; i < EVQ_LANES; i++)
        free(q->lane[i].ev);
    memset(q, 0, sizeof *q);
}

int evq_lane_grow(evq *q, evq_lane *l, ddio_err *e)
{
    size_t cap = l->size, ncap = cap ? 2 * cap : 64;
    if (evq_size(q) >= EVQ_MAX_PENDING)
        return ddio_errf(e, DDIO_EXIT_IO, "event queue: more than %u events pending", EVQ_MAX_PENDING);
    sim_event *ev = malloc(ncap * sizeof *ev);
    if (!ev)
        return ddio_errf(e, DDIO_EXIT_IO, "event queue: cannot allocate %zu events", ncap);
    for (uint32_t i = 0; i < l->n; i++)     /* unwrap, oldest first */
        ev[i] = l->ev[(l->head + i) & l->mask];
    free(l->ev);
    l->ev = ev;
    l->head = 0;
    l->mask = (uint32_t)(ncap - 1);
    l->size = (uint32_t)ncap;
    return 0;
}

int evq_lane_single(evq *q, int lane, sim_event proto, ddio_err *e)
{
    evq_lane *l = &q->lane[lane];
    if (l->n)
        return ddio_errf(e, DDIO_EXIT_IO, "event queue: lane %d is not empty", lane);
    sim_event *ev = malloc(sizeof *ev);
    if (!ev)
        return ddio_errf(e, DDIO_EXIT_IO, "event queue: out of memory");
    *ev = proto;
    free(l->ev);
    l->ev = ev;
    l->head = 0;
    l->mask = 0;
    l->size = 1;
    return 0;
}

void evq_clear(evq *q)
{
    for (int i = 0; i < EVQ_LANES; i++) {
        q->lane[i].head = q->lane[i].n = 0;
        q->lane[i].last_ns = 0;
        q->lane_key[i] = EVQ_NO_KEY;
    }
    q->heap[0] = EVQ_NO_KEY;
    q->front_n = 0;
    q->n = 0;
    q->nfree = 0;
    push_free(q, 0, q->cap);
    q->next_seq = 0;
    q->now_ns = 0;
}

int evq_push_slow(evq *q, sim_event ev, ddio_err *e)
{
    if (q->next_seq == EVQ_MAX_SEQ)
        return ddio_errf(e, DDIO_EXIT_IO, "event queue: more than %llu events pushed",
                         (unsigned long long)EVQ_MAX_SEQ);
    if (q->nfree == 0) {
        if (q->cap >= EVQ_MAX_PENDING)
            return ddio_errf(e, DDIO_EXIT_IO, "event queue: more than %u events pending",
                             EVQ_MAX_PENDING);
        size_t ncap = q->cap ? q->cap * 2 : EVQ_DEFAULT_CAP;
        if (ncap > EVQ_MAX_PENDING)
            ncap = EVQ_MAX_PENDING;
        if (resize(q, ncap, e) < 0)
            return -1;
        push_free(q, q->cap, ncap);
        q->cap = ncap;
    }
    return evq_push(q, ev, e);
}
