/* mempool.h - a model of DPDK's rte_mempool of packet buffers (mbufs) and of their addresses.
 *
 * Buffers are indices 0..n-1.  Free buffers live in a shared FIFO ring (the
 * default "ring_mp_mc" mempool driver) or in one of the per-core LIFO
 * caches, exactly as rte_mempool_do_generic_get / _put move them (DPDK
 * lib/mempool/rte_mempool.h; see docs/queue-blocks.md for the commits read):
 *
 *   flushthresh = cache_size * 3 / 2   (CACHE_FLUSHTHRESH_MULTIPLIER 1.5, truncated)
 *
 *   get(n):  take min(n, len) objects from the top of the cache (hottest
 *            first).  If r = n - len > 0 remain: dequeue cache_size + r
 *            objects from the ring into cache slots 0.., hand out the top r
 *            (the last ones dequeued) and leave len = cache_size.  If the
 *            ring has fewer than cache_size + r, take the r straight from
 *            the ring instead; if it has fewer than r, the get fails and the
 *            cache is restored (all or nothing, -ENOENT in DPDK).
 *            r > MEMPOOL_CACHE_MAX_SIZE also goes straight to the ring.
 *   put(n), MEMPOOL_PUT_TRIM (the classic algorithm): append the n objects;
 *            if then len >= flushthresh, enqueue slots [cache_size, len) to
 *            the ring and set len = cache_size.  n > MEMPOOL_CACHE_MAX_SIZE
 *            goes straight to the ring.
 *   put(n), MEMPOOL_PUT_FLUSH_ALL (the newer algorithm): if len + n <=
 *            flushthresh append; otherwise enqueue the whole cache (len
 *            objects) to the ring, then the cache holds just the n.
 *            n > flushthresh goes straight to the ring.
 *
 * A core id >= n_caches (e.g. MEMPOOL_NO_CACHE), or cache_size 0, bypasses
 * the caches like a non-EAL thread does.
 *
 * The address layout (mbuf_layout) maps a buffer index to the addresses the
 * NIC and the cores touch: the rte_mbuf header lines and the data lines. */
#ifndef DDIOSIM_QUEUE_MEMPOOL_H
#define DDIOSIM_QUEUE_MEMPOOL_H

#include <stddef.h>
#include <stdint.h>
#include "sim/common/err.h"
#include "sim/queue/ring.h"

#define MEMPOOL_CACHE_MAX_SIZE 512u      /* RTE_MEMPOOL_CACHE_MAX_SIZE */
#define MEMPOOL_NO_CACHE UINT32_MAX      /* a core id that bypasses every cache */

enum mempool_put_mode {
    MEMPOOL_PUT_TRIM = 0,     /* append, then trim back to cache_size at flushthresh */
    MEMPOOL_PUT_FLUSH_ALL,    /* flush the whole cache when the put would cross flushthresh */
};

/* Counters, per cache (and one set for cache-less requests). */
typedef struct mempool_stats {
    uint64_t get_objs;        /* objects handed out */
    uint64_t put_objs;        /* objects returned */
    uint64_t refills;         /* ring -> cache refills (cache_size + r objects each) */
    uint64_t refill_objs;
    uint64_t flushes;         /* cache -> ring flushes of at least one object */
    uint64_t flush_objs;
    uint64_t ring_gets;       /* get requests served straight from the ring */
    uint64_t ring_puts;       /* put requests sent straight to the ring */
    uint64_t get_fails;       /* get requests refused: not enough free buffers */
} mempool_stats;

typedef struct mempool_cache {
    uint32_t len;
    uint32_t *objs;           /* LIFO: objs[len - 1] is the most recently freed */
    mempool_stats st;
} mempool_cache;

typedef struct mempool_config {
    uint32_t n_bufs;          /* >= 1 */
    uint32_t n_caches;        /* per-core caches (one per lcore) */
    uint32_t cache_size;      /* 0 (no caches) .. 512, with cache_size * 1.5 <= n_bufs */
    enum mempool_put_mode put_mode;
} mempool_config;

typedef struct mempool {
    uint32_t n;               /* buffers 0..n-1 */
    uint32_t n_caches;        /* caches in use (0 when cache_size == 0) */
    uint32_t cache_size, flushthresh;
    uint32_t put_limit;       /* a put of k stays in the cache, no flush, iff len + k < put_limit */
    enum mempool_put_mode put_mode;
    ring ring;                /* the common pool, FIFO; holds 0..n-1 in order after init */
    mempool_cache *caches;
    uint32_t *cache_mem;
    mempool_stats st;         /* requests that bypassed the caches */
} mempool;

int mempool_init(mempool *mp, const mempool_config *c, ddio_err *e);
void mempool_free(mempool *mp);

/* Slow paths of the inline functions below (also callable directly). */
int mempool_get_bulk_slow(mempool *mp, uint32_t core, uint32_t *objs, uint32_t n);
void mempool_put_bulk_slow(mempool *mp, uint32_t core, const uint32_t *objs, uint32_t n);

/* Get n >= 1 buffers for `core`, all or nothing: 0, or -1 when the pool
 * (ring + this core's cache) does not hold n.  objs[0] is the hottest. */
static inline int mempool_get_bulk(mempool *mp, uint32_t core, uint32_t *objs, uint32_t n)
{
    if (core < mp->n_caches) {
        mempool_cache *c = &mp->caches[core];
        if (n <= c->len) {
            const uint32_t *top = &c->objs[c->len];
            for (uint32_t k = 0; k < n; k++)
                objs[k] = *--top;
            c->len -= n;
            c->st.get_objs += n;
            return 0;
        }
    }
    return mempool_get_bulk_slow(mp, core, objs, n);
}

static inline int mempool_get(mempool *mp, uint32_t core, uint32_t *obj)
{
    if (core < mp->n_caches) {
        mempool_cache *c = &mp->caches[core];
        if (c->len) {
            *obj = c->objs[--c->len];
            c->st.get_objs++;
            return 0;
        }
    }
    return mempool_get_bulk_slow(mp, core, obj, 1);
}

/* Return n >= 1 buffers from `core`; never fails (the ring holds all n). */
static inline void mempool_put_bulk(mempool *mp, uint32_t core, const uint32_t *objs, uint32_t n)
{
    if (core < mp->n_caches) {
        mempool_cache *c = &mp->caches[core];
        if (c->len + n < mp->put_limit && n <= MEMPOOL_CACHE_MAX_SIZE) {
            for (uint32_t k = 0; k < n; k++)
                c->objs[c->len + k] = objs[k];
            c->len += n;
            c->st.put_objs += n;
            return;
        }
    }
    mempool_put_bulk_slow(mp, core, objs, n);
}

static inline void mempool_put(mempool *mp, uint32_t core, uint32_t obj)
{
    if (core < mp->n_caches) {
        mempool_cache *c = &mp->caches[core];
        if (c->len + 1 < mp->put_limit) {
            c->objs[c->len++] = obj;
            c->st.put_objs++;
            return;
        }
    }
    mempool_put_bulk_slow(mp, core, &obj, 1);
}

/* Like rte_mempool_cache_flush: move the whole cache of `core` to the ring. */
void mempool_cache_flush(mempool *mp, uint32_t core);

/* Free buffers: in the ring plus in every cache (rte_mempool_avail_count). */
uint32_t mempool_avail_count(const mempool *mp);
static inline uint32_t mempool_in_use_count(const mempool *mp)
{
    return mp->n - mempool_avail_count(mp);
}
/* The cache length of `core` (0 when it has none). */
static inline uint32_t mempool_cache_len(const mempool *mp, uint32_t core)
{
    return core < mp->n_caches ? mp->caches[core].len : 0;
}

/* Debug check for tests and end-of-run audits: every buffer is in exactly
 * one place, the ring, one cache, or the caller's `out` set (buffers held
 * by NIC rings, software queues, cores...).  Returns 0, or -1 naming the
 * first buffer that is missing, duplicated or out of range. */
int mempool_check_conservation(const mempool *mp, const uint32_t *out, size_t n_out, ddio_err *e);

/* ---------------------------------------------------------------------
 * Address layout.
 *
 * DPDK (rte_pktmbuf_pool_create) lays each element out as
 *   [rte_mempool_objhdr, padded to a line][struct rte_mbuf][priv][headroom][data room][pad]
 * with the element size rounded to a cache line (RTE_MEMPOOL_ALIGN) and
 * then padded so that its size in lines is coprime with channels * ranks
 * (arch_mem_object_align on x86; 4 when unknown), elements packed back to
 * back and, when populating from pages, never straddling a page.  Defaults:
 * 64 + 128 + 0 + 128 + 2048 = 2368 B = 37 lines, so the stride is 2368 B.
 *
 * With `align` set (e.g. 4096) every buffer's data start, the first line
 * the NIC writes, is a multiple of `align` (Linux-style page buffers), the
 * metadata sitting just before it: the layout of Wang, Xu, Wu (SIGMETRICS 2022) Appendix D.5,
 * where 4 KiB-aligned first lines crowd into few sets. */

typedef struct mbuf_layout_config {
    uint64_t base;            /* address of element 0: a multiple of line_size (and page_size) */
    uint32_t line_size;       /* 64 */
    uint32_t objhdr_size;     /* 64: rte_mempool_objhdr rounded up to a line */
    uint32_t mbuf_size;       /* 128: sizeof(struct rte_mbuf), two lines */
    uint32_t priv_size;       /* 0: application private area after the rte_mbuf */
    uint32_t headroom;        /* 128: RTE_PKTMBUF_HEADROOM */
    uint32_t data_room;       /* 2048: RTE_MBUF_DEFAULT_DATAROOM */
    uint32_t align;           /* 0: DPDK packing; else a power of two >= line_size */
    uint32_t spread;          /* channels * ranks for DPDK's spread padding; 0 or 1: none */
    uint64_t page_size;       /* 0: ignore; else elements never straddle a page (packed mode) */
} mbuf_layout_config;

typedef struct mbuf_layout {
    mbuf_layout_config cfg;
    uint32_t line_shift;
    uint64_t hdr_back;        /* data start -> mbuf header: headroom + priv + mbuf (one subtraction) */
    uint32_t pre;             /* element start -> data start: objhdr + mbuf + priv + headroom */
    uint32_t elt_size;        /* bytes an element uses: pre + data_room */
    uint64_t stride;          /* element i+1 - element i (within a page) */
    uint64_t first_data;      /* data start of buffer 0 */
    uint64_t per_page;        /* elements per page; 0 when pages are ignored */
} mbuf_layout;

/* A run of cache lines touched by a byte range. */
typedef struct line_span {
    uint64_t first;           /* first line number (address >> line_shift) */
    uint32_t n;               /* number of lines */
    uint8_t head_partial;     /* the first line is not entirely covered */
    uint8_t tail_partial;     /* the last line is not entirely covered */
} line_span;

void mbuf_layout_config_default(mbuf_layout_config *c);
int mbuf_layout_init(mbuf_layout *l, const mbuf_layout_config *c, ddio_err *e);

/* Start of buffer i's data area: buf_addr + headroom, where the NIC writes. */
static inline uint64_t mbuf_data_addr(const mbuf_layout *l, uint32_t i)
{
    if (l->per_page)
        return l->first_data + (i / l->per_page) * l->cfg.page_size + (i % l->per_page) * l->stride;
    return l->first_data + (uint64_t)i * l->stride;
}

/* Start of the mempool element (its objhdr). */
static inline uint64_t mbuf_elt_addr(const mbuf_layout *l, uint32_t i)
{
    return mbuf_data_addr(l, i) - l->pre;
}

/* The *_at forms below take the buffer's data start (mbuf_data_addr, which
 * divides by per_page) instead of its index, for callers that keep it. */

/* The struct rte_mbuf of buffer i (the metadata drivers read and write). */
static inline uint64_t mbuf_hdr_addr_at(const mbuf_layout *l, uint64_t data_addr)
{
    return data_addr - l->hdr_back;
}
static inline uint64_t mbuf_hdr_addr(const mbuf_layout *l, uint32_t i)
{
    return mbuf_hdr_addr_at(l, mbuf_data_addr(l, i));
}

/* buf_addr: start of the headroom. */
static inline uint64_t mbuf_buf_addr(const mbuf_layout *l, uint32_t i)
{
    return mbuf_data_addr(l, i) - l->cfg.headroom;
}

/* Line number of the k-th line of the rte_mbuf (k = 0: cacheline0, RX
 * fields; k = 1: cacheline1, pool/next/tx_offload). */
static inline uint64_t mbuf_hdr_line_at(const mbuf_layout *l, uint64_t data_addr, uint32_t k)
{
    return (mbuf_hdr_addr_at(l, data_addr) >> l->line_shift) + k;
}
static inline uint64_t mbuf_hdr_line(const mbuf_layout *l, uint32_t i, uint32_t k)
{
    return mbuf_hdr_line_at(l, mbuf_data_addr(l, i), k);
}

/* Byte address of the k-th cache line of buffer i's data area, counting from
 * the line that holds the data start. */
static inline uint64_t mbuf_data_line_addr_at(const mbuf_layout *l, uint64_t data_addr, uint32_t k)
{
    uint64_t a = data_addr & ~(uint64_t)(l->cfg.line_size - 1);
    return a + ((uint64_t)k << l->line_shift);
}
static inline uint64_t mbuf_data_line_addr(const mbuf_layout *l, uint32_t i, uint32_t k)
{
    return mbuf_data_line_addr_at(l, mbuf_data_addr(l, i), k);
}

/* The lines covering bytes [off, off + len) of buffer i's data area, len >= 1:
 * a DMA of a len-byte frame is span(i, 0, len); a partial tail line is an
 * RFO rather than an ItoM for DDIO. */
static inline line_span mbuf_data_span_at(const mbuf_layout *l, uint64_t data_addr, uint32_t off, uint32_t len)
{
    uint64_t a = data_addr + off, end = a + len;
    uint64_t m = l->cfg.line_size - 1;
    line_span s;
    s.first = a >> l->line_shift;
    s.n = (uint32_t)(((end - 1) >> l->line_shift) - s.first + 1);
    s.head_partial = (a & m) != 0;
    s.tail_partial = (end & m) != 0;
    return s;
}
static inline line_span mbuf_data_span(const mbuf_layout *l, uint32_t i, uint32_t off, uint32_t len)
{
    return mbuf_data_span_at(l, mbuf_data_addr(l, i), off, len);
}

#endif
