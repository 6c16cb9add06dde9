/* test_queue_event.c - the event engine pops in (time, insertion) order.
 *
 * References are independent of the heap: a stable sort of the pushed
 * events, and a linear scan for the minimum in an interleaved run. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/rng.h"
#include "sim/queue/event.h"

typedef struct ref_ev {
    uint64_t time, idx;
} ref_ev;

static int ref_cmp(const void *pa, const void *pb)
{
    const ref_ev *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

Test(queue_event, random_pushes_pop_sorted_with_fifo_ties)
{
    enum { N = 5000 };
    ddio_rng r;
    ddio_rng_seed(&r, 42);
    evq q;
    ddio_err e;
    cr_assert_eq(evq_init(&q, 1, &e), 0, "%s", e.msg);   /* force many grows */
    ref_ev *ref = malloc(N * sizeof *ref);
    for (uint64_t i = 0; i < N; i++) {
        uint64_t t = ddio_rng_below(&r, 100);         /* ~50 events per time: many ties */
        ref[i] = (ref_ev){t, i};
        cr_assert_eq(evq_push(&q, (sim_event){.time_ns = t, .type = (int32_t)(i % 7), .a = i, .b = ~i}, &e), 0);
    }
    cr_assert_eq(evq_size(&q), N);
    qsort(ref, N, sizeof *ref, ref_cmp);
    sim_event ev;
    for (size_t k = 0; k < N; k++) {
        cr_assert_eq(evq_peek(&q)->seq, ref[k].idx);
        cr_assert_eq(evq_pop(&q, &ev), 1);
        cr_assert_eq(ev.time_ns, ref[k].time, "pop %zu: time %llu, expected %llu", k,
                     (unsigned long long)ev.time_ns, (unsigned long long)ref[k].time);
        cr_assert_eq(ev.seq, ref[k].idx, "pop %zu: seq %llu, expected %llu (tie order)", k,
                     (unsigned long long)ev.seq, (unsigned long long)ref[k].idx);
        cr_assert_eq(ev.a, ref[k].idx);
        cr_assert_eq(ev.b, ~ref[k].idx);
        cr_assert_eq(ev.type, (int32_t)(ref[k].idx % 7));
        cr_assert_eq(evq_now(&q), ref[k].time);
    }
    cr_assert_eq(evq_pop(&q, &ev), 0);
    cr_assert_null(evq_peek(&q));
    free(ref);
    evq_free(&q);
}

/* A simulation-shaped run: pop the earliest, push 0-3 successors at or after
 * it; the reference keeps the pending events in a plain array. */
Test(queue_event, interleaved_push_pop_matches_linear_scan)
{
    enum { CAP = 4096 };
    ddio_rng r;
    ddio_rng_seed(&r, 7);
    evq q;
    ddio_err e;
    cr_assert_eq(evq_init(&q, 0, &e), 0);
    ref_ev *pend = malloc(CAP * sizeof *pend);
    size_t np = 0;
    uint64_t seq = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t t = ddio_rng_below(&r, 1000);
        pend[np++] = (ref_ev){t, seq};
        evq_push(&q, (sim_event){.time_ns = t, .a = seq++}, &e);
    }
    for (int step = 0; step < 30000 && np; step++) {
        size_t best = 0;
        for (size_t k = 1; k < np; k++)
            if (ref_cmp(&pend[k], &pend[best]) < 0)
                best = k;
        ref_ev want = pend[best];
        pend[best] = pend[--np];
        sim_event ev;
        cr_assert_eq(evq_pop(&q, &ev), 1);
        cr_assert_eq(ev.time_ns, want.time, "step %d", step);
        cr_assert_eq(ev.seq, want.idx, "step %d", step);
        cr_assert_eq(ev.a, want.idx);
        uint64_t kids = ddio_rng_below(&r, 4);
        if (np + kids > CAP - 1)
            kids = 0;
        for (uint64_t k = 0; k < kids; k++) {
            uint64_t t = ev.time_ns + ddio_rng_below(&r, 20);   /* 0 delay: same-time ties */
            pend[np++] = (ref_ev){t, seq};
            cr_assert_eq(evq_push(&q, (sim_event){.time_ns = t, .a = seq++}, &e), 0);
        }
        cr_assert_eq(evq_size(&q), np);
    }
    free(pend);
    evq_free(&q);
}

Test(queue_event, equal_times_pop_in_push_order_and_payload_kept)
{
    evq q;
    ddio_err e;
    cr_assert_eq(evq_init(&q, 2, &e), 0);
    int target = 5;
    evq_push(&q, (sim_event){.time_ns = 10, .type = 1, .id = 3}, &e);
    evq_push(&q, (sim_event){.time_ns = 5, .type = 2, .ptr = &target}, &e);
    evq_push(&q, (sim_event){.time_ns = 10, .type = 3}, &e);
    evq_push(&q, (sim_event){.time_ns = 10, .type = 4}, &e);
    evq_push(&q, (sim_event){.time_ns = 5, .type = 5, .seq = 999}, &e);  /* seq is overwritten */
    static const int32_t want[5] = {2, 5, 1, 3, 4};
    static const uint64_t want_seq[5] = {1, 4, 0, 2, 3};
    sim_event ev;
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(evq_pop(&q, &ev), 1);
        cr_assert_eq(ev.type, want[k], "pop %d: type %d, expected %d", k, ev.type, want[k]);
        cr_assert_eq(ev.seq, want_seq[k]);
        if (ev.type == 2)
            cr_assert_eq(*(int *)ev.ptr, 5);
        if (ev.type == 1)
            cr_assert_eq(ev.id, 3);
    }
    cr_assert_eq(evq_now(&q), 10);
    evq_clear(&q);
    cr_assert_eq(evq_size(&q), 0);
    cr_assert_eq(evq_now(&q), 0);
    evq_push(&q, (sim_event){.time_ns = 1}, &e);
    cr_assert_eq(evq_peek(&q)->seq, 0, "seq restarts after clear");
    evq_free(&q);
}

Test(queue_event, seq_limit_is_a_clean_error)
{
    evq q;
    ddio_err e;
    cr_assert_eq(evq_init(&q, 4, &e), 0);
    q.next_seq = EVQ_MAX_SEQ - 1;
    cr_assert_eq(evq_push(&q, (sim_event){.time_ns = 3, .a = 1}, &e), 0);
    cr_assert_eq(evq_push(&q, (sim_event){.time_ns = 3, .a = 2}, &e), -1);
    cr_assert(strstr(e.msg, "events pushed"), "%s", e.msg);
    sim_event ev;
    cr_assert_eq(evq_pop(&q, &ev), 1);
    cr_assert_eq(ev.seq, EVQ_MAX_SEQ - 1);
    cr_assert_eq(ev.a, 1);
    evq_free(&q);
}

/* Lanes (evq_push_lane) change nothing in the order: the same pushes, some
 * into lanes (in order, out of order: then the heap), some into the heap,
 * pop exactly as from the heap alone, interleaved with pops. */
Test(queue_event, lanes_pop_in_heap_order)
{
    evq a, b;
    ddio_err e;
    cr_assert_eq(evq_init(&a, 4, &e), 0);
    cr_assert_eq(evq_init(&b, 4, &e), 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, 42);
    uint64_t lane_t[EVQ_LANES] = {0};
    for (uint32_t i = 0; i < 200000; i++) {
        uint32_t what = (uint32_t)ddio_rng_below(&rng, 10);
        if (what < 6) {
            uint64_t now = evq_now(&a);
            int lane = (int)ddio_rng_below(&rng, EVQ_LANES + 1) - 1;
            uint64_t t;
            if (lane >= 0 && ddio_rng_below(&rng, 8)) {
                /* mostly in order within the lane, often equal times */
                if (lane_t[lane] < now)
                    lane_t[lane] = now;
                lane_t[lane] += ddio_rng_below(&rng, 3) * ddio_rng_below(&rng, 50);
                t = lane_t[lane];
            } else {
                t = now + ddio_rng_below(&rng, 400);
            }
            sim_event ev = {.time_ns = t, .type = (int32_t)(lane + 1), .a = i};
            if (lane >= 0 && (i & 1) && evq_lane_fits(&a, lane, t))
                evq_lane_put(&a, lane, ev);   /* the inline fast path dsim_push takes */
            else
                cr_assert_eq(lane >= 0 ? evq_push_lane(&a, lane, ev, &e) : evq_push(&a, ev, &e), 0);
            cr_assert_eq(evq_push(&b, ev, &e), 0);
        } else {
            sim_event x = {0}, y = {0};   /* read only after both pops returned 1 */
            const sim_event *p = evq_peek(&a);
            uint64_t next = evq_next_time(&a);
            /* With a lane empty, the time without it is the same. */
            for (int l = 0; l < EVQ_LANES; l++)
                if (!a.lane[l].n)
                    cr_assert_eq(evq_next_time_without(&a, l), next);
            int ra = evq_pop(&a, &x), rb = evq_pop(&b, &y);
            cr_assert_eq(ra, rb);
            if (!ra) {
                cr_assert_null(p);
                cr_assert_eq(next, UINT64_MAX);
                continue;
            }
            cr_assert_eq(next, x.time_ns);
            cr_assert(p && p->a == x.a);
            cr_assert(x.time_ns == y.time_ns && x.seq == y.seq && x.a == y.a && x.type == y.type,
                      "pop %u: lane queue gave event %llu, heap %llu", i, (unsigned long long)x.a,
                      (unsigned long long)y.a);
        }
        cr_assert_eq(evq_size(&a), evq_size(&b));
    }
    sim_event x, y;
    while (evq_pop(&b, &y)) {
        cr_assert_eq(evq_pop(&a, &x), 1);
        cr_assert(x.seq == y.seq && x.a == y.a);
    }
    cr_assert_eq(evq_pop(&a, &x), 0);
    evq_clear(&a);
    cr_assert_eq(evq_size(&a), 0);
    cr_assert_eq(evq_next_time(&a), UINT64_MAX);
    /* After a clear the lane keys and the empty heap's top are reset too. */
    cr_assert_eq(evq_push_lane(&a, 0, (sim_event){.time_ns = 7, .a = 1}, &e), 0);
    cr_assert_eq(evq_push(&a, (sim_event){.time_ns = 5, .a = 2}, &e), 0);
    cr_assert_eq(evq_next_time(&a), 5);
    cr_assert(evq_pop(&a, &x) == 1 && x.a == 2);
    cr_assert(evq_pop(&a, &x) == 1 && x.a == 1);
    cr_assert_eq(evq_pop(&a, &x), 0);
    evq_free(&a);
    evq_free(&b);
}

/* The front (evq_front_fits / evq_front_put: an event due now when nothing
 * else is) pops exactly where the heap alone puts it, whatever is pushed
 * after it: heap events and lanes, at the same time or later. */
Test(queue_event, front_pops_in_heap_order)
{
    evq a, b;
    ddio_err e;
    cr_assert_eq(evq_init(&a, 4, &e), 0);
    cr_assert_eq(evq_init(&b, 4, &e), 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, 11);
    uint32_t fronts = 0, refused = 0;
    for (uint32_t i = 0; i < 200000; i++) {
        uint32_t what = (uint32_t)ddio_rng_below(&rng, 10);
        uint64_t now = evq_now(&a);
        if (what < 5) {   /* as many pushes as pops: the queue stays short, often with nothing due now */
            /* often "now", so that the front is tried and often taken */
            uint64_t t = now + (ddio_rng_below(&rng, 2) ? 0 : ddio_rng_below(&rng, 40));
            /* half of them the heap's kind, that may go to the front */
            int lane = ddio_rng_below(&rng, 2) ? -1 : (int)ddio_rng_below(&rng, EVQ_LANES);
            sim_event ev = {.time_ns = t, .type = (int32_t)(lane + 1), .a = i};
            int fits = evq_front_fits(&a, t);
            cr_assert_eq(evq_all_after(&a, t), evq_next_time(&a) > t);
            cr_assert_eq(evq_all_after(&a, now), evq_next_time(&a) > now);
            /* the reference: due now and before every pending event */
            cr_assert_eq(fits, t == now && !a.front_n && t < evq_next_time(&a));
            if (lane < 0 && fits) {
                evq_front_put(&a, ev);
                fronts++;
                cr_assert_eq(evq_next_time(&a), t);
                cr_assert_eq(evq_peek(&a)->a, i);
            } else {
                refused += lane < 0;
                cr_assert_eq(lane >= 0 ? evq_push_lane(&a, lane, ev, &e) : evq_push(&a, ev, &e), 0);
            }
            cr_assert_eq(evq_push(&b, ev, &e), 0);
        } else {
            sim_event x = {0}, y = {0};   /* read only after both pops returned 1 */
            uint64_t next = evq_next_time(&a);
            for (int l = 0; l < EVQ_LANES; l++)
                if (!a.lane[l].n)
                    cr_assert_eq(evq_next_time_without(&a, l), next);
            int ra = evq_pop(&a, &x), rb = evq_pop(&b, &y);
            cr_assert_eq(ra, rb);
            if (!ra)
                continue;
            cr_assert_eq(next, x.time_ns);
            cr_assert_eq(evq_now(&a), x.time_ns);
            cr_assert(x.time_ns == y.time_ns && x.seq == y.seq && x.a == y.a && x.type == y.type,
                      "pop %u: front queue gave event %llu, heap %llu", i, (unsigned long long)x.a,
                      (unsigned long long)y.a);
        }
        cr_assert_eq(evq_size(&a), evq_size(&b));
    }
    cr_expect_gt(fronts, 2000u, "%u fronts", fronts);
    cr_expect_gt(refused, 5000u, "%u heap pushes", refused);
    sim_event x, y;
    while (evq_pop(&b, &y))
        cr_assert(evq_pop(&a, &x) == 1 && x.seq == y.seq && x.a == y.a);
    cr_assert_eq(evq_pop(&a, &x), 0);
    /* A clear empties the front too. */
    evq_front_put(&a, (sim_event){.time_ns = evq_now(&a), .a = 5});
    evq_clear(&a);
    cr_assert_eq(evq_size(&a), 0);
    cr_assert_null(evq_peek(&a));
    evq_free(&a);
    evq_free(&b);
}

/* evq_advance moves the clock to a time before every pending event and
 * changes nothing else: the pending events pop as before. */
Test(queue_event, advance_moves_the_clock_only)
{
    evq q;
    ddio_err e;
    cr_assert_eq(evq_init(&q, 4, &e), 0);
    cr_assert_eq(evq_push_lane(&q, 1, (sim_event){.time_ns = 50, .a = 1}, &e), 0);
    cr_assert_eq(evq_push(&q, (sim_event){.time_ns = 40, .a = 2}, &e), 0);
    evq_advance(&q, 10);
    cr_assert_eq(evq_now(&q), 10);
    evq_advance(&q, 39);
    cr_assert_eq(evq_now(&q), 39);
    cr_assert_eq(evq_size(&q), 2);
    sim_event x;
    cr_assert(evq_pop(&q, &x) == 1 && x.a == 2 && evq_now(&q) == 40);
    cr_assert(evq_pop(&q, &x) == 1 && x.a == 1 && evq_now(&q) == 50);
    evq_advance(&q, 1000);   /* empty: any later time */
    cr_assert_eq(evq_now(&q), 1000);
    evq_free(&q);
}

/* A single-slot lane (evq_lane_single / evq_single_put: the simulator's
 * next arrival) pops its proto with the pushed time and seq, in the heap's
 * order among other events; a push into it while it holds one is refused
 * and leaves everything as it was. */
Test(queue_event, single_slot_lane_pops_in_heap_order)
{
    evq a, b;
    ddio_err e;
    cr_assert_eq(evq_init(&a, 4, &e), 0);
    cr_assert_eq(evq_init(&b, 4, &e), 0);
    const sim_event proto = {.type = 9, .id = 5, .a = 77, .b = 78};
    cr_assert_eq(evq_lane_single(&a, 0, proto, &e), 0);
    ddio_rng rng;
    ddio_rng_seed(&rng, 7);
    uint64_t single_t = 0;
    uint32_t singles = 0;
    for (uint32_t i = 0; i < 100000; i++) {
        uint32_t what = (uint32_t)ddio_rng_below(&rng, 10);
        uint64_t now = evq_now(&a);
        if (what < 3) {
            single_t = (single_t > now ? single_t : now) + ddio_rng_below(&rng, 30);
            uint64_t seq = a.next_seq;
            if (a.lane[0].n) {
                cr_assert_eq(evq_single_put(&a, 0, single_t), -1);
                cr_assert_eq(a.next_seq, seq);
                continue;
            }
            cr_assert_eq(evq_single_put(&a, 0, single_t), 0);
            sim_event ev = proto;
            ev.time_ns = single_t;
            cr_assert_eq(evq_push(&b, ev, &e), 0);
            singles++;
        } else if (what < 6) {
            int lane = 1 + (int)ddio_rng_below(&rng, EVQ_LANES - 1);
            sim_event ev = {.time_ns = now + ddio_rng_below(&rng, 60), .type = lane, .a = i};
            cr_assert_eq(evq_push_lane(&a, lane, ev, &e), 0);
            cr_assert_eq(evq_push(&b, ev, &e), 0);
        } else {
            sim_event x = {0}, y = {0};   /* read only after both pops returned 1 */
            int ra = evq_pop(&a, &x), rb = evq_pop(&b, &y);
            cr_assert_eq(ra, rb);
            if (ra)
                cr_assert(x.time_ns == y.time_ns && x.seq == y.seq && x.type == y.type && x.id == y.id && x.a == y.a &&
                              x.b == y.b,
                          "pop %u", i);
        }
    }
    cr_assert_gt(singles, 5000u, "%u single pushes", singles);
    sim_event x, y;
    while (evq_pop(&b, &y))
        cr_assert(evq_pop(&a, &x) == 1 && x.seq == y.seq && x.type == y.type && x.a == y.a);
    cr_assert_eq(evq_pop(&a, &x), 0);
    evq_free(&a);
    evq_free(&b);
}

/* evq_pop_ref hands out the event in place, from the front, a lane and the
 * heap alike, in evq_pop's order; a push after it may reuse the slot, so
 * the caller reads the fields first (dsim_run). */
Test(queue_event, pop_ref_in_place_in_pop_order)
{
    evq q;
    ddio_err e;
    cr_assert_eq(evq_init(&q, 4, &e), 0);
    cr_assert_eq(evq_push_lane(&q, 2, (sim_event){.time_ns = 30, .type = 3, .a = 1, .b = 11}, &e), 0);
    cr_assert_eq(evq_push(&q, (sim_event){.time_ns = 20, .type = 4, .a = 2, .b = 12}, &e), 0);
    cr_assert_eq(evq_push_lane(&q, 2, (sim_event){.time_ns = 30, .type = 3, .a = 3, .b = 13}, &e), 0);
    const sim_event *ev = evq_pop_ref(&q);
    cr_assert(ev && ev->type == 4 && ev->a == 2 && ev->b == 12 && evq_now(&q) == 20);
    cr_assert(evq_front_fits(&q, 20));
    evq_front_put(&q, (sim_event){.time_ns = 20, .type = 5, .a = 4});
    ev = evq_pop_ref(&q);
    cr_assert(ev && ev->type == 5 && ev->a == 4 && evq_now(&q) == 20);
    ev = evq_pop_ref(&q);
    cr_assert(ev && ev->type == 3 && ev->a == 1 && ev->b == 11 && evq_now(&q) == 30);
    ev = evq_pop_ref(&q);
    cr_assert(ev && ev->a == 3 && ev->b == 13 && ev->seq == 2);
    cr_assert_null(evq_pop_ref(&q));
    cr_assert_eq(evq_size(&q), 0);
    evq_free(&q);
}
