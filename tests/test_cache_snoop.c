/* test_cache_snoop.c - the snoop filter's growth: it starts small, doubles
 * exactly when an insertion would pass an eighth full (SNOOP_LOAD_SHIFT),
 * never past twice the
 * entries it was sized for, answers the same before and after, and its
 * occupancy bitmap agrees with its keys through growth and erasure. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/cache/snoop.h"

/* The occupancy bitmap says of every slot what its key says. */
static void check_bitmap(const snoop_filter *sf)
{
    uint64_t set = 0;
    for (uint64_t i = 0; i <= sf->mask; i++) {
        cr_assert_eq(snoop_occupied(sf, i), sf->keys[i] != UINT64_MAX, "slot %llu", (unsigned long long)i);
        set += (uint64_t)snoop_occupied(sf, i);
    }
    cr_assert_eq(set, sf->count);
}

/* The capacity after n distinct insertions into a filter sized for `max`:
 * the first 4 Ki slots, doubled while n passes an eighth (up to the
 * largest, twice max rounded up to a power of two). */
static uint64_t expected_cap(uint64_t n, uint64_t max)
{
    uint64_t maxcap = 16;
    while (maxcap < 2 * max)
        maxcap *= 2;
    uint64_t cap = maxcap < 4096 ? maxcap : 4096;
    while (n > (cap >> SNOOP_LOAD_SHIFT) && cap < maxcap)
        cap *= 2;
    cr_assert_leq(cap, maxcap);
    return cap;
}

/* n lines `stride` apart through the three insertions, growth checked
 * after each, then every line found with its core and way, then every
 * other one erased and the rest still found. */
static void grow_walk(uint64_t max, uint64_t n, uint64_t stride)
{
    snoop_filter sf;
    ddio_err e;
    cr_assert_eq(snoop_init(&sf, max, &e), 0, "%s", e.msg);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t line = (i + 1) * stride;
        int core = (int)(i % 251);
        uint32_t way = (uint32_t)(i % SNOOP_MAX_WAYS);
        if (i % 3 == 0) {
            uint64_t slot = snoop_find(&sf, line);   /* the insertion doubles the table under it */
            snoop_put_way_at(&sf, slot, line, core, way);
        } else if (i % 3 == 1) {
            snoop_put_way(&sf, line, core, way);
        } else {
            snoop_put_way(&sf, line, core, 0);
            snoop_put_way(&sf, line, core, way);   /* an update: no new entry, no growth */
        }
        cr_assert_eq(sf.count, i + 1);
        cr_assert_eq(sf.mask + 1, expected_cap(i + 1, max), "after %llu lines", (unsigned long long)i + 1);
        if ((i & (i + 1)) == 0 || i + 1 == n)   /* at powers of two: across each growth */
            check_bitmap(&sf);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t way = UINT32_MAX;
        cr_assert_eq(snoop_get_way(&sf, (i + 1) * stride, &way), (int)(i % 251));
        cr_assert_eq(way, (uint32_t)(i % SNOOP_MAX_WAYS));
    }
    cr_assert_eq(snoop_get(&sf, (n + 1) * stride), -1);
    for (uint64_t i = 0; i < n; i += 2)
        snoop_erase(&sf, (i + 1) * stride);
    cr_assert_eq(sf.count, n - (n + 1) / 2);
    check_bitmap(&sf);   /* erasures, backward shifts included */
    for (uint64_t i = 0; i < n; i++)
        cr_assert_eq(snoop_get(&sf, (i + 1) * stride), i % 2 ? (int)(i % 251) : -1);
    snoop_free(&sf);
}

Test(cache_snoop, starts_at_4ki_slots_and_doubles_past_an_eighth)
{
    grow_walk(20000, 20000, 1);   /* 4 Ki -> 64 Ki slots, the largest for 20 000 lines: half full there */
}

Test(cache_snoop, strided_lines_grow_the_same)
{
    grow_walk(9000, 9000, 4096);   /* lines a power of two apart: the hash's worst pattern */
}

Test(cache_snoop, a_small_filter_starts_at_its_largest)
{
    grow_walk(100, 100, 3);   /* 256 slots from the start, never grown */
}
