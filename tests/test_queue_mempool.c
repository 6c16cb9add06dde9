/* test_queue_mempool.c - DPDK mempool cache semantics, buffer conservation, address layout.
 *
 * The exact sequences are traced by hand from rte_mempool_do_generic_get /
 * _put (see the comment in sim/queue/mempool.h); the ring starts as 0..n-1. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cache/geometry.h"
#include "sim/common/rng.h"
#include "sim/queue/mempool.h"

static void mk(mempool *mp, uint32_t n, uint32_t caches, uint32_t size, enum mempool_put_mode mode)
{
    mempool_config c = {.n_bufs = n, .n_caches = caches, .cache_size = size, .put_mode = mode};
    ddio_err e;
    cr_assert_eq(mempool_init(mp, &c, &e), 0, "%s", e.msg);
}

Test(queue_mempool, config_limits_follow_dpdk)
{
    mempool mp;
    ddio_err e;
    mempool_config c = {.n_bufs = 16, .n_caches = 2, .cache_size = 11};
    cr_assert_eq(mempool_init(&mp, &c, &e), 0, "%s", e.msg);   /* 11 * 1.5 = 16 <= 16 */
    cr_assert_eq(mp.flushthresh, 16);
    mempool_free(&mp);
    c.cache_size = 12;                                          /* 18 > 16 */
    cr_assert_eq(mempool_init(&mp, &c, &e), -1);
    cr_assert(strstr(e.msg, "cache size 12"), "%s", e.msg);
    c = (mempool_config){.n_bufs = 4096, .n_caches = 1, .cache_size = 513};
    cr_assert_eq(mempool_init(&mp, &c, &e), -1);
    c = (mempool_config){.n_bufs = 0, .n_caches = 1, .cache_size = 0};
    cr_assert_eq(mempool_init(&mp, &c, &e), -1);
    cr_assert_eq(e.exit_code, DDIO_EXIT_USAGE);
    c = (mempool_config){.n_bufs = 8192, .n_caches = 4, .cache_size = 256};
    cr_assert_eq(mempool_init(&mp, &c, &e), 0);
    cr_assert_eq(mp.flushthresh, 384);
    cr_assert_eq(mempool_avail_count(&mp), 8192);
    mempool_free(&mp);
}

/* n = 64, cache_size 8 (flushthresh 12), classic put. */
Test(queue_mempool, trim_mode_exact_sequence)
{
    mempool mp;
    mk(&mp, 64, 2, 8, MEMPOOL_PUT_TRIM);
    ddio_err e;
    uint32_t x, v[16];

    /* Empty cache: dequeue 8 + 1 = 9 (0..8), hand out the top (8), keep 0..7. */
    cr_assert_eq(mempool_get(&mp, 0, &x), 0);
    cr_assert_eq(x, 8);
    cr_assert_eq(mempool_cache_len(&mp, 0), 8);
    cr_assert_eq(ring_count(&mp.ring), 55);
    cr_assert_eq(mp.caches[0].st.refills, 1);
    cr_assert_eq(mp.caches[0].st.refill_objs, 9);
    /* From the cache, LIFO. */
    cr_assert_eq(mempool_get(&mp, 0, &x), 0);
    cr_assert_eq(x, 7);
    /* 10 with 7 cached: the 7 (6..0), then refill 8 + 3 = 11 (9..19) and hand
     * out the top three (19, 18, 17), keeping 9..16. */
    cr_assert_eq(mempool_get_bulk(&mp, 0, v, 10), 0);
    static const uint32_t want1[10] = {6, 5, 4, 3, 2, 1, 0, 19, 18, 17};
    cr_assert_arr_eq(v, want1, sizeof want1);
    cr_assert_eq(mempool_cache_len(&mp, 0), 8);
    cr_assert_eq(mp.caches[0].objs[0], 9);
    cr_assert_eq(mp.caches[0].objs[7], 16);
    cr_assert_eq(ring_count(&mp.ring), 44);
    cr_assert_eq(mp.caches[0].st.refills, 2);
    cr_assert_eq(mp.caches[0].st.refill_objs, 20);

    /* Puts one by one: len 9, 10, 11, then 12 >= 12 flushes slots 8..11. */
    static const uint32_t back[4] = {8, 7, 6, 5};
    for (int k = 0; k < 3; k++) {
        mempool_put(&mp, 0, back[k]);
        cr_assert_eq(mp.caches[0].st.flushes, 0);
    }
    cr_assert_eq(mempool_cache_len(&mp, 0), 11);
    mempool_put(&mp, 0, back[3]);
    cr_assert_eq(mempool_cache_len(&mp, 0), 8);
    cr_assert_eq(mp.caches[0].st.flushes, 1);
    cr_assert_eq(mp.caches[0].st.flush_objs, 4);
    cr_assert_eq(ring_count(&mp.ring), 48);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(ring_peek(&mp.ring, 44 + k), back[k], "flushed in cache order");
    /* A bulk put of 5 crosses the threshold (13): flush 5, back to 8. */
    static const uint32_t back2[5] = {4, 3, 2, 1, 0};
    mempool_put_bulk(&mp, 0, back2, 5);
    cr_assert_eq(mempool_cache_len(&mp, 0), 8);
    cr_assert_eq(mp.caches[0].st.flushes, 2);
    cr_assert_eq(mp.caches[0].st.flush_objs, 9);
    cr_assert_eq(ring_peek(&mp.ring, 52), 0);
    /* The cache kept the hot objects below the threshold: 9..16. */
    cr_assert_eq(mempool_get(&mp, 0, &x), 0);
    cr_assert_eq(x, 16);
    mempool_put(&mp, 0, x);

    /* Core 1 refills from the ring's head: 20..28, hands out 28. */
    cr_assert_eq(mempool_get(&mp, 1, &x), 0);
    cr_assert_eq(x, 28);
    cr_assert_eq(mempool_cache_len(&mp, 1), 8);
    cr_assert_eq(mempool_avail_count(&mp), 60);
    cr_assert_eq(mempool_in_use_count(&mp), 4);
    cr_assert_eq(mp.caches[0].st.get_objs, 13);
    cr_assert_eq(mp.caches[0].st.put_objs, 10);

    uint32_t out[4] = {19, 18, 17, 28};
    cr_assert_eq(mempool_check_conservation(&mp, out, 4, &e), 0, "%s", e.msg);
    cr_assert_eq(mempool_check_conservation(&mp, out, 3, &e), -1);
    cr_assert(strstr(e.msg, "buffer 28 is lost"), "%s", e.msg);
    uint32_t dup[5] = {19, 18, 17, 28, 16};
    cr_assert_eq(mempool_check_conservation(&mp, dup, 5, &e), -1);
    cr_assert(strstr(e.msg, "buffer 16 is both in the cache of core 0 and in the out set"), "%s", e.msg);
    uint32_t bad[5] = {19, 18, 17, 28, 64};
    cr_assert_eq(mempool_check_conservation(&mp, bad, 5, &e), -1);
    cr_assert(strstr(e.msg, "64") && strstr(e.msg, "out of range"), "%s", e.msg);
    mempool_free(&mp);
}

/* The newer put: flush the whole cache when a put would exceed the threshold. */
Test(queue_mempool, flush_all_mode_exact_sequence)
{
    mempool mp;
    mk(&mp, 64, 1, 8, MEMPOOL_PUT_FLUSH_ALL);
    uint32_t v[16], x;
    /* Refill 8 + 12 = 20 (0..19), hand out 19..8, keep 0..7. */
    cr_assert_eq(mempool_get_bulk(&mp, 0, v, 12), 0);
    cr_assert_eq(v[0], 19);
    cr_assert_eq(v[11], 8);
    cr_assert_eq(mempool_cache_len(&mp, 0), 8);
    /* 8 + 4 = 12 <= 12 still fits. */
    for (int k = 0; k < 4; k++)
        mempool_put(&mp, 0, v[k]);           /* 19, 18, 17, 16 */
    cr_assert_eq(mempool_cache_len(&mp, 0), 12);
    cr_assert_eq(mp.caches[0].st.flushes, 0);
    /* 13 > 12: the 12 cached go to the ring, the cache holds just 15. */
    mempool_put(&mp, 0, v[4]);
    cr_assert_eq(mempool_cache_len(&mp, 0), 1);
    cr_assert_eq(mp.caches[0].st.flushes, 1);
    cr_assert_eq(mp.caches[0].st.flush_objs, 12);
    cr_assert_eq(ring_count(&mp.ring), 44 + 12);
    cr_assert_eq(ring_peek(&mp.ring, 44), 0);
    cr_assert_eq(ring_peek(&mp.ring, 55), 16);
    cr_assert_eq(mempool_get(&mp, 0, &x), 0);
    cr_assert_eq(x, 15);
    mempool_put(&mp, 0, x);
    /* A put larger than the threshold bypasses the cache. */
    uint32_t big[13];
    for (int k = 0; k < 7; k++)
        big[k] = v[5 + k];                   /* 14..8 */
    cr_assert_eq(mempool_get_bulk(&mp, MEMPOOL_NO_CACHE, big + 7, 6), 0);
    cr_assert_eq(big[7], 20, "no-cache gets come from the ring head");
    mempool_put_bulk(&mp, 0, big, 13);
    cr_assert_eq(mp.caches[0].st.ring_puts, 1);
    cr_assert_eq(mempool_cache_len(&mp, 0), 1);
    cr_assert_eq(mempool_avail_count(&mp), 64);
    ddio_err e;
    cr_assert_eq(mempool_check_conservation(&mp, NULL, 0, &e), 0, "%s", e.msg);
    mempool_cache_flush(&mp, 0);
    cr_assert_eq(ring_count(&mp.ring), 64);
    mempool_free(&mp);
}

/* Buffer-constrained paths: refill impossible, direct dequeue, all-or-nothing failure. */
Test(queue_mempool, exhaustion_is_all_or_nothing)
{
    mempool mp;
    mk(&mp, 16, 2, 8, MEMPOOL_PUT_TRIM);
    uint32_t x, v[16];
    cr_assert_eq(mempool_get(&mp, 0, &x), 0);           /* refill 0..8, get 8 */
    cr_assert_eq(x, 8);
    cr_assert_eq(ring_count(&mp.ring), 7);              /* 9..15 */
    /* Core 1: 8 needs a refill of 16 (no) or 8 straight from the ring (no). */
    cr_assert_eq(mempool_get_bulk(&mp, 1, v, 8), -1);
    cr_assert_eq(mp.caches[1].st.get_fails, 1);
    cr_assert_eq(ring_count(&mp.ring), 7);
    /* 7: refill of 15 impossible, the 7 come straight from the ring, FIFO. */
    cr_assert_eq(mempool_get_bulk(&mp, 1, v, 7), 0);
    cr_assert_eq(v[0], 9);
    cr_assert_eq(v[6], 15);
    cr_assert_eq(mp.caches[1].st.ring_gets, 1);
    cr_assert_eq(mempool_cache_len(&mp, 1), 0);
    /* Core 1 fails although core 0's cache holds 8 (as DPDK documents). */
    cr_assert_eq(mempool_get(&mp, 1, &x), -1);
    /* Core 0 asks for 10 with 8 cached and an empty ring: refused, and its
     * cache is intact (top still 7). */
    cr_assert_eq(mempool_get_bulk(&mp, 0, v + 8, 10), -1);
    cr_assert_eq(mempool_cache_len(&mp, 0), 8);
    cr_assert_eq(mempool_get(&mp, 0, &x), 0);
    cr_assert_eq(x, 7);
    mempool_free(&mp);
}

Test(queue_mempool, no_cache_goes_through_the_ring)
{
    mempool mp;
    mk(&mp, 8, 4, 0, MEMPOOL_PUT_TRIM);                /* cache_size 0: no caches */
    uint32_t x;
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_eq(mempool_get(&mp, 2, &x), 0);
        cr_assert_eq(x, i);
    }
    mempool_put(&mp, 2, 1);
    cr_assert_eq(ring_peek(&mp.ring, ring_count(&mp.ring) - 1), 1);
    cr_assert_eq(mp.st.ring_gets, 3);
    cr_assert_eq(mp.st.ring_puts, 1);
    cr_assert_eq(mempool_cache_len(&mp, 2), 0);
    mempool_free(&mp);
}

/* Random gets and puts on 4 cores: the free count always matches, and every
 * buffer is in exactly one place. */
static void random_conservation(enum mempool_put_mode mode, uint64_t seed)
{
    enum { N = 1024, CORES = 4 };
    mempool mp;
    mk(&mp, N, CORES, 32, mode);
    ddio_rng g;
    ddio_rng_seed(&g, seed);
    uint32_t *out = malloc(N * sizeof *out), v[64];
    size_t nout = 0;
    ddio_err e;
    for (int op = 0; op < 100000; op++) {
        uint32_t core = (uint32_t)ddio_rng_below(&g, CORES + 1);
        if (core == CORES)
            core = MEMPOOL_NO_CACHE;
        uint32_t n = 1 + (uint32_t)ddio_rng_below(&g, 40);
        if (ddio_rng_below(&g, 2)) {
            uint32_t avail_core = ring_count(&mp.ring) + mempool_cache_len(&mp, core);
            int rc = n == 1 ? mempool_get(&mp, core, v) : mempool_get_bulk(&mp, core, v, n);
            cr_assert_eq(rc, n <= avail_core ? 0 : -1, "op %d", op);
            if (rc == 0)
                for (uint32_t k = 0; k < n; k++)
                    out[nout++] = v[k];
        } else if (nout) {
            if (n > nout)
                n = (uint32_t)nout;
            for (uint32_t k = 0; k < n; k++) {   /* return random held buffers */
                size_t j = ddio_rng_below(&g, nout);
                v[k] = out[j];
                out[j] = out[--nout];
            }
            if (n == 1)
                mempool_put(&mp, core, v[0]);
            else
                mempool_put_bulk(&mp, core, v, n);
        }
        cr_assert_eq(mempool_avail_count(&mp) + nout, N, "op %d", op);
        for (uint32_t k = 0; k < CORES; k++)
            cr_assert_leq(mempool_cache_len(&mp, k), mode == MEMPOOL_PUT_TRIM ? 47 : 48);
        if (op % 5000 == 0)
            cr_assert_eq(mempool_check_conservation(&mp, out, nout, &e), 0, "op %d: %s", op, e.msg);
    }
    cr_assert_eq(mempool_check_conservation(&mp, out, nout, &e), 0, "%s", e.msg);
    free(out);
    mempool_free(&mp);
}

Test(queue_mempool, random_ops_conserve_buffers_trim) { random_conservation(MEMPOOL_PUT_TRIM, 99); }
Test(queue_mempool, random_ops_conserve_buffers_flush_all) { random_conservation(MEMPOOL_PUT_FLUSH_ALL, 100); }

/* ------------------------------------------------------------------ layout */

static void layout(mbuf_layout *l, uint32_t align, uint32_t priv, uint64_t page)
{
    mbuf_layout_config c;
    mbuf_layout_config_default(&c);
    c.align = align;
    c.priv_size = priv;
    c.page_size = page;
    ddio_err e;
    cr_assert_eq(mbuf_layout_init(l, &c, &e), 0, "%s", e.msg);
}

Test(queue_layout, dpdk_default_element)
{
    mbuf_layout l;
    layout(&l, 0, 0, 2u << 20);
    const uint64_t B = 1ull << 32;
    /* 64 objhdr + 128 rte_mbuf + 128 headroom + 2048 data = 2368 = 37 lines (odd: no spread pad). */
    cr_assert_eq(l.stride, 2368);
    cr_assert_eq(mbuf_elt_addr(&l, 0), B);
    cr_assert_eq(mbuf_hdr_addr(&l, 0), B + 64);
    cr_assert_eq(mbuf_buf_addr(&l, 0), B + 192);
    cr_assert_eq(mbuf_data_addr(&l, 0), B + 320);
    cr_assert_eq(mbuf_data_addr(&l, 1), B + 2368 + 320);
    cr_assert_eq(mbuf_hdr_line(&l, 1, 0), (B + 2368 + 64) >> 6);
    cr_assert_eq(mbuf_hdr_line(&l, 1, 1), ((B + 2368 + 64) >> 6) + 1);
    cr_assert_eq(mbuf_data_line_addr(&l, 1, 3), B + 2368 + 320 + 3 * 64);
    /* 2 MiB pages hold 885 elements; element 885 starts the next page. */
    cr_assert_eq(l.per_page, 885);
    cr_assert_eq(mbuf_elt_addr(&l, 884), B + 884ull * 2368);
    cr_assert_eq(mbuf_elt_addr(&l, 885), B + (2u << 20));
    cr_assert_eq(mbuf_data_addr(&l, 886), B + (2u << 20) + 2368 + 320);
}

Test(queue_layout, spread_padding_makes_lines_coprime_with_channels)
{
    mbuf_layout l;
    layout(&l, 0, 64, 0);                   /* 2432 B = 38 lines -> 39 */
    cr_assert_eq(l.stride, 39 * 64);
    cr_assert_eq(mbuf_data_addr(&l, 2) - mbuf_data_addr(&l, 1), 39 * 64);
    cr_assert_eq(mbuf_hdr_addr(&l, 0), (1ull << 32) + 64);
    cr_assert_eq(mbuf_data_addr(&l, 0), (1ull << 32) + 384);
}

Test(queue_layout, aligned_buffers_start_on_4k)
{
    mbuf_layout l;
    layout(&l, 4096, 0, 0);
    cr_assert_eq(l.stride, 4096);
    for (uint32_t i = 0; i < 5000; i++) {
        uint64_t d = mbuf_data_addr(&l, i);
        cr_assert_eq(d % 4096, 0, "buffer %u data at 0x%llx", i, (unsigned long long)d);
        cr_assert_eq(mbuf_hdr_addr(&l, i), d - 256);
        cr_assert_eq(mbuf_elt_addr(&l, i), d - 320);
    }
    cr_assert_eq(mbuf_data_addr(&l, 0), (1ull << 32) + 4096);
    cr_assert_geq(mbuf_elt_addr(&l, 0), 1ull << 32);
}

static void check_disjoint(const mbuf_layout *l, uint32_t n)
{
    for (uint32_t i = 0; i + 1 < n; i++) {
        uint64_t end = mbuf_elt_addr(l, i) + l->elt_size;
        cr_assert_leq(end, mbuf_elt_addr(l, i + 1), "buffers %u and %u overlap", i, i + 1);
        /* The data area holds data_room bytes inside the element. */
        cr_assert_eq(mbuf_data_addr(l, i) + l->cfg.data_room, end);
    }
}

Test(queue_layout, distinct_buffers_never_overlap)
{
    mbuf_layout l;
    layout(&l, 0, 0, 2u << 20);
    check_disjoint(&l, 4000);
    layout(&l, 0, 0, 0);
    check_disjoint(&l, 4000);
    layout(&l, 4096, 0, 0);
    check_disjoint(&l, 4000);
    layout(&l, 0, 64, 4096);                /* a page per element (39 lines < 64) */
    cr_assert_eq(l.per_page, 1);
    check_disjoint(&l, 100);
    for (uint32_t i = 0; i < 100; i++) {
        uint64_t a = mbuf_elt_addr(&l, i);
        cr_assert_eq(a / 4096, (a + l.stride - 1) / 4096, "element %u straddles a page", i);
    }
}

Test(queue_layout, line_spans_of_dma_writes)
{
    mbuf_layout l;
    layout(&l, 0, 0, 0);
    uint64_t first = mbuf_data_addr(&l, 3) >> 6;
    line_span s = mbuf_data_span(&l, 3, 0, 64);
    cr_assert(s.first == first && s.n == 1 && !s.head_partial && !s.tail_partial);
    s = mbuf_data_span(&l, 3, 0, 60);                  /* 64 B frame without FCS */
    cr_assert(s.n == 1 && !s.head_partial && s.tail_partial);
    s = mbuf_data_span(&l, 3, 0, 1500);
    cr_assert(s.first == first && s.n == 24 && s.tail_partial);
    s = mbuf_data_span(&l, 3, 0, 1536);
    cr_assert(s.n == 24 && !s.tail_partial);
    s = mbuf_data_span(&l, 3, 14, 50);
    cr_assert(s.first == first && s.n == 1 && s.head_partial && !s.tail_partial);
    s = mbuf_data_span(&l, 3, 60, 8);
    cr_assert(s.first == first && s.n == 2 && s.head_partial && s.tail_partial);
}

/* Wang, Xu, Wu (SIGMETRICS 2022) Appendix D.5: with 4 KiB-aligned buffers the first line of every
 * buffer falls in only 32 of a slice's 2048 sets (index bits 6..11 are zero).
 * DPDK's packing (37-line stride, coprime with 2048) reaches every set index,
 * except that with 2 MiB pages each page restarts the same pattern: only the
 * 885 residues of one page are used. */
static uint32_t distinct_first_line_sets(const cache_mapper *m, const mbuf_layout *l, uint32_t n)
{
    uint8_t seen[2048] = {0};
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = cache_mapper_set(m, mbuf_data_addr(l, i) >> 6) % 2048;
        cnt += !seen[s];
        seen[s] = 1;
    }
    return cnt;
}

Test(queue_layout, aligned_first_lines_crowd_into_32_sets_per_slice)
{
    cache_geom g = {.line_size = 64, .slices = 18, .sets_per_slice = 2048, .ways = 11,
                    .mapping = MAP_XOR};
    cache_mapper m;
    cache_mapper_init(&m, &g);
    mbuf_layout l;
    layout(&l, 4096, 0, 0);
    cr_assert_eq(distinct_first_line_sets(&m, &l, 4096), 32);
    layout(&l, 0, 0, 0);
    cr_assert_eq(distinct_first_line_sets(&m, &l, 4096), 2048);
    layout(&l, 0, 0, 2u << 20);
    cr_assert_eq(distinct_first_line_sets(&m, &l, 4096), 885);
}
