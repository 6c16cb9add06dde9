/* stats.c - the summary of a packet trace (stats.h): counts, sizes, flows,
 * offered rate. */
#include "traces/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/hash.h"

const trace_size_bin trace_size_bins[TRACE_NBINS] = {
    {0, 63},     {64, 127},   {128, 255},   {256, 511},
    {512, 1023}, {1024, 1518}, {1519, 9018}, {9019, UINT32_MAX},
};

enum { FLOW_CAP0 = 1024 };

/* An empty set of keys of `words` words: -1 when out of memory. */
static int flowset_init(trace_flowset *f, unsigned words)
{
    f->keys = calloc((size_t)words * FLOW_CAP0, sizeof *f->keys);
    f->cap = f->keys ? FLOW_CAP0 : 0;
    f->n = 0;
    f->words = words;
    return f->keys ? 0 : -1;
}

int trace_stats_init(trace_stats *s, ddio_err *e)
{
    memset(s, 0, sizeof *s);
    s->len_count = calloc(TRACE_STATS_MAXLEN + 2, sizeof *s->len_count);
    int fail = flowset_init(&s->flows4, 2) | flowset_init(&s->flows6, 5);
    if (!s->len_count || fail) {
        trace_stats_free(s);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    s->min_len = UINT32_MAX;
    return 0;
}

void trace_stats_free(trace_stats *s)
{
    free(s->len_count);
    free(s->flows4.keys);
    free(s->flows6.keys);
    s->len_count = s->flows4.keys = s->flows6.keys = NULL;
    s->flows4.cap = s->flows6.cap = 0;
}

/* Insert key k (f->words words, the last one never 0) into the table of
 * cap (a power of two) slots at keys.  Returns 1 if it was new. */
static int flow_insert(uint64_t *keys, size_t cap, unsigned words, const uint64_t *k)
{
    size_t mask = cap - 1;
    assert(k[words - 1] != 0 && (cap & mask) == 0);
    uint64_t h = 0;
    for (unsigned w = 0; w < words; w++)
        h = ddio_mix64(h ^ k[w]);
    size_t i = (size_t)h & mask;
    size_t bytes = words * sizeof *k;
    for (;;) {
        uint64_t *slot = keys + (size_t)words * i;
        if (slot[words - 1] == 0) {
            memcpy(slot, k, bytes);
            return 1;
        }
        if (memcmp(slot, k, bytes) == 0)
            return 0;
        i = (i + 1) & mask;
    }
}

static int flow_grow(trace_flowset *f, ddio_err *e)
{
    size_t cap = f->cap * 2, w = f->words;
    uint64_t *k = calloc(w * cap, sizeof *k);
    if (!k)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory counting %zu distinct flows", f->n);
    for (size_t i = 0; i < f->cap; i++)
        if (f->keys[w * i + w - 1])
            flow_insert(k, cap, f->words, f->keys + w * i);
    free(f->keys);
    f->keys = k;
    f->cap = cap;
    return 0;
}

/* Count key k in set f; -1 only when the set cannot grow. */
static int flow_add(trace_flowset *f, const uint64_t *k, ddio_err *e)
{
    /* Keep the load <= 1/2 so linear probing stays short. */
    if (2 * (f->n + 1) > f->cap && flow_grow(f, e) != 0)
        return -1;
    f->n += (size_t)flow_insert(f->keys, f->cap, f->words, k);
    return 0;
}

static uint64_t load_be64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

/* The 5-tuple of p in its set's words: addresses, then ports and protocol
 * with bit 63 set (a slot is empty when that word is 0). */
static int flow_count(trace_stats *s, const trace_pkt *p, ddio_err *e)
{
    uint64_t last = 1ull << 63 | (uint64_t)p->src_port << 24 | (uint64_t)p->dst_port << 8 | p->proto;
    int rc;
    if (p->ipv6) {
        uint64_t k[5] = {load_be64(p->src6), load_be64(p->src6 + 8), load_be64(p->dst6), load_be64(p->dst6 + 8),
                         last};
        rc = flow_add(&s->flows6, k, e);
    } else {
        uint64_t k[2] = {(uint64_t)p->src_ip << 32 | p->dst_ip, last};
        rc = flow_add(&s->flows4, k, e);
    }
    s->flows = s->flows4.n + s->flows6.n;
    return rc;
}

int trace_stats_add(trace_stats *s, const trace_pkt *p, ddio_err *e)
{
    uint32_t len = p->wire_len;
    if (s->packets == 0) {
        s->ts_min = s->ts_max = p->ts_ns;
        s->len_at_max = len;
    } else {
        if (p->ts_ns < s->ts_min)
            s->ts_min = p->ts_ns;
        if (p->ts_ns >= s->ts_max) {
            s->ts_max = p->ts_ns;
            s->len_at_max = len;
        }
    }
    s->packets++;
    s->ipv6 += p->ipv6;
    s->bytes += len;
    s->cap_bytes += p->cap_len;
    if (p->cap_len < len)
        s->snap_truncated++;
    if (len < s->min_len)
        s->min_len = len;
    if (len > s->max_len)
        s->max_len = len;
    s->len_count[len <= TRACE_STATS_MAXLEN ? len : TRACE_STATS_MAXLEN + 1]++;
    for (int b = 0; b < TRACE_NBINS; b++)
        if (len <= trace_size_bins[b].hi) {
            s->bins[b]++;
            break;
        }
    if (!p->has_tuple) {
        s->no_tuple++;
        return 0;
    }
    return flow_count(s, p, e);
}

int trace_stats_read(trace_stats *s, const char *path, int keep_all, ddio_err *e)
{
    if (trace_stats_init(s, e) != 0)
        return -1;
    s->keep_all = keep_all;
    trace_reader r;
    if (trace_reader_open(&r, path, keep_all, e) != 0)
        return -1;
    trace_pkt p;
    int st;
    while ((st = trace_reader_next(&r, &p, e)) == 1)
        if (trace_stats_add(s, &p, e) != 0) {
            st = -1;
            break;
        }
    s->records = r.records;
    s->out_of_order = r.reordered;
    memcpy(s->count, r.count, sizeof s->count);
    trace_reader_close(&r);
    return st < 0 ? -1 : 0;
}

uint32_t trace_stats_percentile(const trace_stats *s, double pct)
{
    if (s->packets == 0)
        return 0;
    double r = ceil(pct / 100.0 * (double)s->packets);
    uint64_t rank = r < 1.0 ? 1 : r > (double)s->packets ? s->packets : (uint64_t)r;
    uint64_t cum = 0;
    for (uint32_t l = 0; l <= TRACE_STATS_MAXLEN; l++) {
        cum += s->len_count[l];
        if (cum >= rank)
            return l;
    }
    return s->max_len;
}

double trace_stats_mean(const trace_stats *s)
{
    return s->packets ? (double)s->bytes / (double)s->packets : 0.0;
}

double trace_stats_duration_s(const trace_stats *s)
{
    return s->packets ? (double)(s->ts_max - s->ts_min) * 1e-9 : 0.0;
}

double trace_stats_gbps(const trace_stats *s, uint32_t overhead)
{
    if (s->packets < 2 || s->ts_max == s->ts_min)
        return 0.0;
    double bytes = (double)(s->bytes - s->len_at_max) + (double)overhead * (double)(s->packets - 1);
    return bytes * 8.0 / (double)(s->ts_max - s->ts_min);   /* bits per ns = Gb/s */
}

double trace_stats_mpps(const trace_stats *s)
{
    if (s->packets < 2 || s->ts_max == s->ts_min)
        return 0.0;
    return (double)(s->packets - 1) * 1e3 / (double)(s->ts_max - s->ts_min);
}

uint64_t trace_stats_skipped(const trace_stats *s)
{
    if (s->keep_all)
        return 0;
    uint64_t n = 0;
    for (int c = 1; c < TRACE_NCLASSES; c++)
        n += s->count[c];
    return n;
}
