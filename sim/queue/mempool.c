/* mempool.c - DPDK's rte_mempool of mbufs (mempool.h): the common ring, the
 * per-lcore caches and the buffer address layout. */
#include "sim/queue/mempool.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/common/parse.h"

enum { MEMPOOL_MAX_CACHES = 4096 };

int mempool_init(mempool *mp, const mempool_config *c, ddio_err *e)
{
    memset(mp, 0, sizeof *mp);
    if (c->n_bufs == 0 || c->n_bufs > RING_MAX_CAPACITY)
        return ddio_errf(e, DDIO_EXIT_USAGE, "mempool: %u buffers is out of range [1, %u]",
                         c->n_bufs, RING_MAX_CAPACITY);
    if (c->cache_size > MEMPOOL_CACHE_MAX_SIZE)
        return ddio_errf(e, DDIO_EXIT_USAGE, "mempool: cache size %u exceeds %u",
                         c->cache_size, MEMPOOL_CACHE_MAX_SIZE);
    /* CALC_CACHE_FLUSHTHRESH: size * 1.5 truncated to an integer. */
    uint32_t thresh = c->cache_size + c->cache_size / 2;
    if (thresh > c->n_bufs)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "mempool: cache size %u needs at least %u buffers (1.5x), pool has %u",
                         c->cache_size, thresh, c->n_bufs);
    if (c->n_caches > MEMPOOL_MAX_CACHES)
        return ddio_errf(e, DDIO_EXIT_USAGE, "mempool: %u caches exceeds %u",
                         c->n_caches, MEMPOOL_MAX_CACHES);
    if (c->put_mode != MEMPOOL_PUT_TRIM && c->put_mode != MEMPOOL_PUT_FLUSH_ALL)
        return ddio_errf(e, DDIO_EXIT_USAGE, "mempool: unknown put mode %d", (int)c->put_mode);

    uint32_t cap = 1;
    while (cap < c->n_bufs)
        cap <<= 1;
    if (ring_init(&mp->ring, cap, "mempool ring", e) < 0)
        return -1;
    /* DPDK's populate enqueues the objects one by one in address order. */
    for (uint32_t i = 0; i < c->n_bufs; i++)
        ring_enqueue(&mp->ring, i);

    mp->n = c->n_bufs;
    mp->cache_size = c->cache_size;
    mp->flushthresh = thresh;
    mp->put_mode = c->put_mode;
    mp->put_limit = c->put_mode == MEMPOOL_PUT_TRIM ? thresh : thresh + 1;
    mp->n_caches = c->cache_size ? c->n_caches : 0;
    if (mp->n_caches) {
        /* Room for a TRIM put of MAX objects just below the threshold and for
         * a refill of cache_size + MAX (DPDK sizes objs[] the same way). */
        size_t slots = (size_t)thresh + MEMPOOL_CACHE_MAX_SIZE;
        mp->caches = calloc(mp->n_caches, sizeof *mp->caches);
        mp->cache_mem = malloc(slots * mp->n_caches * sizeof *mp->cache_mem);
        if (!mp->caches || !mp->cache_mem) {
            mempool_free(mp);
            return ddio_errf(e, DDIO_EXIT_IO, "mempool: cannot allocate %u caches", c->n_caches);
        }
        for (uint32_t k = 0; k < mp->n_caches; k++)
            mp->caches[k].objs = mp->cache_mem + slots * k;
    }
    return 0;
}

void mempool_free(mempool *mp)
{
    ring_free(&mp->ring);
    free(mp->caches);
    free(mp->cache_mem);
    mp->caches = NULL;
    mp->cache_mem = NULL;
    mp->n_caches = 0;
}

/* Enqueue that cannot fail unless buffers were duplicated (then the ring,
 * sized for all n buffers, overflows). */
static void ring_put_all(mempool *mp, const uint32_t *objs, uint32_t n)
{
    uint32_t done = ring_enqueue_bulk(&mp->ring, objs, n);
    assert(done == n && "mempool ring overflow: a buffer was freed twice");
    (void)done;
}

int mempool_get_bulk_slow(mempool *mp, uint32_t core, uint32_t *objs, uint32_t n)
{
    assert(n >= 1);
    if (core >= mp->n_caches) {
        if (ring_dequeue_bulk(&mp->ring, objs, n)) {
            mp->st.ring_gets++;
            mp->st.get_objs += n;
            return 0;
        }
        mp->st.get_fails++;
        return -1;
    }
    mempool_cache *c = &mp->caches[core];
    /* Hot objects first, from the top of the stack. */
    uint32_t len = n < c->len ? n : c->len;
    const uint32_t *top = &c->objs[c->len];
    for (uint32_t k = 0; k < len; k++)
        objs[k] = *--top;
    c->len -= len;
    uint32_t rem = n - len;
    if (rem == 0) {
        c->st.get_objs += n;
        return 0;
    }
    /* The cache is now empty: refill it with cache_size + rem and serve the
     * rem from the top of what was dequeued. */
    if (rem <= MEMPOOL_CACHE_MAX_SIZE &&
        ring_dequeue_bulk(&mp->ring, c->objs, mp->cache_size + rem)) {
        top = &c->objs[mp->cache_size + rem];
        for (uint32_t k = 0; k < rem; k++)
            objs[len + k] = *--top;
        c->len = mp->cache_size;
        c->st.refills++;
        c->st.refill_objs += mp->cache_size + rem;
        c->st.get_objs += n;
        return 0;
    }
    /* Buffer constrained: take the rem straight from the ring. */
    if (ring_dequeue_bulk(&mp->ring, objs + len, rem)) {
        c->st.ring_gets++;
        c->st.get_objs += n;
        return 0;
    }
    /* Not enough anywhere: the cache objects were only copied, so giving
     * them back is restoring the length. */
    c->len += len;
    c->st.get_fails++;
    return -1;
}

void mempool_put_bulk_slow(mempool *mp, uint32_t core, const uint32_t *objs, uint32_t n)
{
    assert(n >= 1);
    if (core >= mp->n_caches) {
        ring_put_all(mp, objs, n);
        mp->st.ring_puts++;
        mp->st.put_objs += n;
        return;
    }
    mempool_cache *c = &mp->caches[core];
    c->st.put_objs += n;
    if (mp->put_mode == MEMPOOL_PUT_TRIM) {
        if (n > MEMPOOL_CACHE_MAX_SIZE) {
            ring_put_all(mp, objs, n);
            c->st.ring_puts++;
            return;
        }
        memcpy(&c->objs[c->len], objs, (size_t)n * sizeof *objs);
        c->len += n;
        if (c->len >= mp->flushthresh) {
            uint32_t k = c->len - mp->cache_size;
            if (k) {
                ring_put_all(mp, &c->objs[mp->cache_size], k);
                c->st.flushes++;
                c->st.flush_objs += k;
            }
            c->len = mp->cache_size;
        }
        return;
    }
    /* MEMPOOL_PUT_FLUSH_ALL */
    if (n > mp->flushthresh) {
        ring_put_all(mp, objs, n);
        c->st.ring_puts++;
        return;
    }
    if (c->len + n <= mp->flushthresh) {
        memcpy(&c->objs[c->len], objs, (size_t)n * sizeof *objs);
        c->len += n;
        return;
    }
    if (c->len) {
        ring_put_all(mp, c->objs, c->len);
        c->st.flushes++;
        c->st.flush_objs += c->len;
    }
    memcpy(c->objs, objs, (size_t)n * sizeof *objs);
    c->len = n;
}

void mempool_cache_flush(mempool *mp, uint32_t core)
{
    if (core >= mp->n_caches)
        return;
    mempool_cache *c = &mp->caches[core];
    if (c->len == 0)
        return;
    ring_put_all(mp, c->objs, c->len);
    c->st.flushes++;
    c->st.flush_objs += c->len;
    c->len = 0;
}

uint32_t mempool_avail_count(const mempool *mp)
{
    uint32_t n = ring_count(&mp->ring);
    for (uint32_t k = 0; k < mp->n_caches; k++)
        n += mp->caches[k].len;
    return n;
}

/* Location codes of the conservation check: 0 nowhere, 1 ring, 2 out, 3+k cache k. */
enum { LOC_NONE = 0, LOC_RING = 1, LOC_OUT = 2, LOC_CACHE = 3 };

static void loc_name(uint32_t loc, char *buf, size_t len)
{
    if (loc == LOC_RING)
        snprintf(buf, len, "the ring");
    else if (loc == LOC_OUT)
        snprintf(buf, len, "the out set");
    else
        snprintf(buf, len, "the cache of core %u", loc - LOC_CACHE);
}

static int place(uint32_t *where, uint32_t n, uint32_t obj, uint32_t loc, ddio_err *e)
{
    char a[48], b[48];
    if (obj >= n) {
        loc_name(loc, a, sizeof a);
        return ddio_errf(e, DDIO_EXIT_IO, "mempool: buffer id %u in %s is out of range [0, %u)",
                         obj, a, n);
    }
    if (where[obj] != LOC_NONE) {
        loc_name(where[obj], a, sizeof a);
        loc_name(loc, b, sizeof b);
        return ddio_errf(e, DDIO_EXIT_IO, "mempool: buffer %u is both in %s and in %s", obj, a, b);
    }
    where[obj] = loc;
    return 0;
}

int mempool_check_conservation(const mempool *mp, const uint32_t *out, size_t n_out, ddio_err *e)
{
    uint32_t *where = calloc(mp->n ? mp->n : 1, sizeof *where);
    if (!where)
        return ddio_errf(e, DDIO_EXIT_IO, "mempool: cannot allocate the conservation check");
    int rc = 0;
    uint32_t cnt = ring_count(&mp->ring);
    for (uint32_t i = 0; i < cnt && rc == 0; i++)
        rc = place(where, mp->n, ring_peek(&mp->ring, i), LOC_RING, e);
    for (uint32_t k = 0; k < mp->n_caches && rc == 0; k++)
        for (uint32_t i = 0; i < mp->caches[k].len && rc == 0; i++)
            rc = place(where, mp->n, mp->caches[k].objs[i], LOC_CACHE + k, e);
    for (size_t i = 0; i < n_out && rc == 0; i++)
        rc = place(where, mp->n, out[i], LOC_OUT, e);
    for (uint32_t i = 0; i < mp->n && rc == 0; i++)
        if (where[i] == LOC_NONE)
            rc = ddio_errf(e, DDIO_EXIT_IO,
                           "mempool: buffer %u is lost (not in the ring, a cache or the out set)", i);
    free(where);
    return rc;
}

/* ------------------------------------------------------------------ layout */

void mbuf_layout_config_default(mbuf_layout_config *c)
{
    memset(c, 0, sizeof *c);
    c->base = 1ull << 32;          /* 4 GiB: any hugepage-aligned address */
    c->line_size = 64;
    c->objhdr_size = 64;
    c->mbuf_size = 128;
    c->priv_size = 0;
    c->headroom = 128;
    c->data_room = 2048;
    c->align = 0;
    c->spread = 4;                 /* arch_mem_object_align: nchan 4 x nrank 1 when unknown */
    c->page_size = 2u << 20;       /* 2 MiB hugepages */
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

int mbuf_layout_init(mbuf_layout *l, const mbuf_layout_config *c, ddio_err *e)
{
    memset(l, 0, sizeof *l);
    if (!ddio_is_pow2(c->line_size) || c->line_size < 16 || c->line_size > 4096)
        return ddio_errf(e, DDIO_EXIT_USAGE, "mbuf layout: line size %u is not a power of two in [16, 4096]",
                         c->line_size);
    if (c->base % c->line_size)
        return ddio_errf(e, DDIO_EXIT_USAGE, "mbuf layout: base 0x%llx is not line aligned",
                         (unsigned long long)c->base);
    if (c->data_room == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "mbuf layout: data room is 0");
    if (c->align && (!ddio_is_pow2(c->align) || c->align < c->line_size))
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "mbuf layout: alignment %u is not a power of two >= the line size %u",
                         c->align, c->line_size);
    uint64_t pre = (uint64_t)c->objhdr_size + c->mbuf_size + c->priv_size + c->headroom;
    uint64_t used = pre + c->data_room;
    if (used > (1u << 30))
        return ddio_errf(e, DDIO_EXIT_USAGE, "mbuf layout: element of %llu bytes is too large",
                         (unsigned long long)used);
    l->cfg = *c;
    l->line_shift = (uint32_t)__builtin_ctz(c->line_size);
    l->hdr_back = (uint64_t)c->headroom + c->priv_size + c->mbuf_size;
    l->pre = (uint32_t)pre;
    l->elt_size = (uint32_t)used;

    if (c->align) {
        /* Data starts on `align` boundaries, metadata just before them. */
        l->stride = round_up(used, c->align);
        l->first_data = round_up(c->base + pre, c->align);
        l->per_page = 0;
        return 0;
    }
    /* DPDK packing: round to a line, then pad until the size in lines is
     * coprime with channels * ranks. */
    uint64_t lines = round_up(used, c->line_size) / c->line_size;
    if (c->spread > 1)
        while (gcd64(lines, c->spread) != 1)
            lines++;
    l->stride = lines * c->line_size;
    l->first_data = c->base + pre;
    if (c->page_size) {
        if (!ddio_is_pow2(c->page_size) || c->page_size < c->line_size)
            return ddio_errf(e, DDIO_EXIT_USAGE, "mbuf layout: page size %llu is not a power of two",
                             (unsigned long long)c->page_size);
        if (c->base % c->page_size)
            return ddio_errf(e, DDIO_EXIT_USAGE, "mbuf layout: base 0x%llx is not page aligned",
                             (unsigned long long)c->base);
        /* An element larger than a page may straddle (check_obj_bounds). */
        if (l->stride <= c->page_size)
            l->per_page = c->page_size / l->stride;
    }
    return 0;
}
