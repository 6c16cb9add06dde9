/* test_queue_ring.c - ring capacity, wrap-around, bulk/burst counts, against a plain FIFO. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/rng.h"
#include "sim/queue/ring.h"

Test(queue_ring, capacity_must_be_a_power_of_two)
{
    ring r;
    ddio_err e;
    cr_assert_eq(ring_init(&r, 0, "--rx-ring", &e), -1);
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
    cr_assert(strstr(e.msg, "--rx-ring") && strstr(e.msg, "power of two"), "%s", e.msg);
    cr_assert_eq(ring_init(&r, 3, NULL, &e), -1);
    cr_assert_eq(ring_init(&r, 1000, NULL, &e), -1);
    cr_assert_eq(ring_init(&r, 1, NULL, &e), 0);
    cr_assert_eq(ring_capacity(&r), 1);
    cr_assert_eq(ring_enqueue(&r, 9), 0);
    cr_assert(ring_full(&r));
    cr_assert_eq(ring_enqueue(&r, 10), -1);
    ring_free(&r);
    cr_assert_eq(ring_init(&r, 512, NULL, &e), 0);
    cr_assert_eq(ring_capacity(&r), 512);
    cr_assert_eq(ring_free_count(&r), 512, "every slot is usable");
    ring_free(&r);
}

Test(queue_ring, wrap_around_and_bulk_burst_counts)
{
    ring r;
    ddio_err e;
    cr_assert_eq(ring_init(&r, 8, NULL, &e), 0);
    uint32_t in[16], out[16];
    for (uint32_t i = 0; i < 16; i++)
        in[i] = 100 + i;
    cr_assert_eq(ring_enqueue_bulk(&r, in, 5), 5);              /* 100..104 */
    cr_assert_eq(ring_dequeue_bulk(&r, out, 3), 3);
    cr_assert_eq(out[0], 100);
    cr_assert_eq(out[2], 102);
    cr_assert_eq(ring_count(&r), 2);
    cr_assert_eq(ring_free_count(&r), 6);
    /* 6 more: slots 5,6,7 then wrap to 0,1,2. */
    cr_assert_eq(ring_enqueue_bulk(&r, in + 5, 6), 6);          /* 105..110 */
    cr_assert(ring_full(&r));
    cr_assert_eq(ring_peek(&r, 0), 103);
    cr_assert_eq(ring_peek(&r, 7), 110);
    /* Bulk is all or nothing, burst takes what fits. */
    cr_assert_eq(ring_enqueue_bulk(&r, in, 1), 0);
    cr_assert_eq(ring_enqueue(&r, 1), -1);
    cr_assert_eq(ring_dequeue_bulk(&r, out, 3), 3);             /* 103..105 */
    cr_assert_eq(ring_enqueue_bulk(&r, in + 11, 4), 0, "4 do not fit in 3");
    cr_assert_eq(ring_count(&r), 5);
    cr_assert_eq(ring_enqueue_burst(&r, in + 11, 4), 3);        /* 111..113 */
    cr_assert(ring_full(&r));
    cr_assert_eq(ring_dequeue_bulk(&r, out, 9), 0, "9 are not there");
    cr_assert_eq(ring_count(&r), 8);
    cr_assert_eq(ring_dequeue_burst(&r, out, 16), 8);
    static const uint32_t want[8] = {106, 107, 108, 109, 110, 111, 112, 113};
    cr_assert_arr_eq(out, want, sizeof want);
    cr_assert(ring_empty(&r));
    uint32_t x;
    cr_assert_eq(ring_dequeue(&r, &x), -1);
    cr_assert_eq(ring_dequeue_burst(&r, out, 4), 0);
    cr_assert_eq(ring_enqueue_bulk(&r, in, 0), 0);
    ring_free(&r);
}

Test(queue_ring, free_running_indices_wrap_at_2_pow_32)
{
    ring r;
    ddio_err e;
    cr_assert_eq(ring_init(&r, 4, NULL, &e), 0);
    r.head = r.tail = UINT32_MAX - 1;   /* two steps from the counter wrap */
    uint32_t in[4] = {1, 2, 3, 4}, out[4];
    cr_assert_eq(ring_enqueue_bulk(&r, in, 4), 4);
    cr_assert_eq(ring_count(&r), 4);
    cr_assert(ring_full(&r));
    cr_assert_eq(ring_dequeue_bulk(&r, out, 4), 4);
    cr_assert_arr_eq(out, in, sizeof in);
    cr_assert(ring_empty(&r));
    ring_free(&r);
}

/* Random bulk/burst traffic against a plain array FIFO. */
Test(queue_ring, random_ops_match_reference_fifo)
{
    enum { CAP = 64, OPS = 50000 };
    ring r;
    ddio_err e;
    cr_assert_eq(ring_init(&r, CAP, NULL, &e), 0);
    uint32_t *ref = malloc(sizeof(uint32_t) * (OPS * 40 + 64));
    size_t rh = 0, rt = 0;
    uint32_t next = 0, buf[40], got[40];
    ddio_rng g;
    ddio_rng_seed(&g, 1234);
    for (int op = 0; op < OPS; op++) {
        uint32_t n = (uint32_t)ddio_rng_below(&g, 40);
        uint32_t cnt = (uint32_t)(rt - rh);
        switch (ddio_rng_below(&g, 4)) {
        case 0: {   /* enqueue bulk */
            for (uint32_t k = 0; k < n; k++)
                buf[k] = next + k;
            uint32_t want = (n && n <= CAP - cnt) ? n : 0;
            cr_assert_eq(ring_enqueue_bulk(&r, buf, n), want);
            for (uint32_t k = 0; k < want; k++)
                ref[rt++] = buf[k];
            next += want;
            break;
        }
        case 1: {   /* enqueue burst */
            for (uint32_t k = 0; k < n; k++)
                buf[k] = next + k;
            uint32_t want = n < CAP - cnt ? n : CAP - cnt;
            cr_assert_eq(ring_enqueue_burst(&r, buf, n), want);
            for (uint32_t k = 0; k < want; k++)
                ref[rt++] = buf[k];
            next += want;
            break;
        }
        case 2: {   /* dequeue bulk */
            uint32_t want = (n && n <= cnt) ? n : 0;
            cr_assert_eq(ring_dequeue_bulk(&r, got, n), want);
            for (uint32_t k = 0; k < want; k++)
                cr_assert_eq(got[k], ref[rh++]);
            break;
        }
        default: {  /* dequeue burst */
            uint32_t want = n < cnt ? n : cnt;
            cr_assert_eq(ring_dequeue_burst(&r, got, n), want);
            for (uint32_t k = 0; k < want; k++)
                cr_assert_eq(got[k], ref[rh++]);
            break;
        }
        }
        cr_assert_eq(ring_count(&r), rt - rh);
        cr_assert_eq(ring_free_count(&r), CAP - (rt - rh));
    }
    free(ref);
    ring_free(&r);
}
