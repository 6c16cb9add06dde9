/* setmap.c - the set mapping's occupancy of the buffer footprint, from the
 * simulator's mapper and address layout (setmap.h, docs/model.md section 12). */
#include "sim/markov/setmap.h"

#include <stdlib.h>
#include <string.h>

#include "sim/cache/geometry.h"
#include "sim/queue/dsim.h"
#include "sim/queue/mempool.h"

int mk_mapping_mixed(enum cache_mapping m)
{
    return m != MAP_RANDOM;
}

void mk_setmix_free(mk_setmix *m)
{
    free(m->c);
    free(m->w);
    memset(m, 0, sizeof *m);
}

int mk_setmix_from_sets(const uint32_t *set, size_t n_bufs, uint32_t lines, uint64_t total_sets,
                        mk_setmix *out, ddio_err *e)
{
    memset(out, 0, sizeof *out);
    if (n_bufs < 2 || lines == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "set mapping: %zu buffers of %u lines have no other lines", n_bufs,
                         lines);
    size_t n = n_bufs * lines;
    uint32_t *all = calloc(total_sets, sizeof *all), *own = calloc(total_sets, sizeof *own),
             *stamp = calloc(total_sets, sizeof *stamp);
    size_t *hist = NULL, cmax = 0;
    int rc = -1;
    if (!all || !own || !stamp) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    /* Count the lines per set, and note whether any buffer has two lines
     * in one set (stamp[s]: the last buffer, + 1, with a line in s). */
    int shared = 0;
    for (size_t b = 0, i = 0; b < n_bufs; b++) {
        const uint32_t tag = (uint32_t)b + 1;
        for (uint32_t j = 0; j < lines; j++, i++) {
            if (set[i] >= total_sets) {
                ddio_errf(e, DDIO_EXIT_USAGE, "set mapping: set %u of line %zu is out of range [0, %llu)", set[i],
                          i, (unsigned long long)total_sets);
                goto out;
            }
            shared |= stamp[set[i]] == tag;
            stamp[set[i]] = tag;
            if (++all[set[i]] > cmax)
                cmax = all[set[i]];
        }
    }
    if (!(hist = calloc(cmax + 1, sizeof *hist))) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    if (!shared) {
        /* Every line of a set with k lines has k - 1 others there, none of
         * its own buffer: the usual case (a buffer's lines are consecutive,
         * and the mappings keep consecutive lines in distinct sets). */
        for (uint64_t s = 0; s < total_sets; s++)
            hist[all[s] ? all[s] - 1 : 0] += all[s];
    } else {
        memset(stamp, 0, total_sets * sizeof *stamp);
    }
    /* c(x) = lines in x's set minus those of x's own buffer.  own[] counts
     * a buffer's lines per set, tagged with the buffer (stamp[]) so that it
     * needs no clearing between buffers: b's count in set s is own[s] when
     * stamp[s] == b + 1, else 0. */
    for (size_t b = 0; shared && b < n_bufs; b++) {
        const uint32_t *s = &set[b * lines];
        const uint32_t tag = (uint32_t)b + 1;
        for (uint32_t j = 0; j < lines; j++) {
            if (stamp[s[j]] != tag) {
                stamp[s[j]] = tag;
                own[s[j]] = 0;
            }
            own[s[j]]++;
        }
        for (uint32_t j = 0; j < lines; j++)
            hist[all[s[j]] - own[s[j]]]++;
    }
    unsigned k = 0;
    for (size_t c = 0; c <= cmax; c++)
        k += hist[c] > 0;
    out->c = malloc(k * sizeof *out->c);
    out->w = malloc(k * sizeof *out->w);
    if (!out->c || !out->w) {
        mk_setmix_free(out);
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    for (size_t c = 0; c <= cmax; c++)
        if (hist[c] > 0) {
            out->c[out->n] = (unsigned)c;
            out->w[out->n++] = (double)hist[c] / (double)n;
        }
    out->pop = (double)(n - lines);
    rc = 0;
out:
    free(all);
    free(own);
    free(stamp);
    free(hist);
    return rc;
}

/* The buffers the cores circulate, in the simulator's order: every core's
 * RX ring at start-up (core_init_rings), then the rest of each cycle from
 * the core's cache, one buffer per core in turn.  Queues longer than the
 * pool holds (given ones: the simulator's never are) grow the pool, so
 * that the footprint is always the model's whole cycle. */
static int circulating(const ddio_workload *w, const uint32_t *bufs, size_t total, uint32_t *ids, size_t *n,
                       ddio_err *e)
{
    const ddio_driver *d = &w->driver;
    mempool mp;
    /* The pool's ring hands out buffers in index order, so a pool of just
     * the buffers these gets can take gives the ids the simulator's pool
     * (ddio_workload_mempool_size, often 65535) gives, at a fraction of the
     * set-up. */
    uint64_t need = total + (uint64_t)w->cores * (2 * d->mempool_cache + 1);
    mempool_config mc = {.n_bufs = (uint32_t)(need < RING_MAX_CAPACITY ? need : RING_MAX_CAPACITY),
                         .n_caches = w->cores, .cache_size = d->mempool_cache, .put_mode = MEMPOOL_PUT_TRIM};
    if (mempool_init(&mp, &mc, e) != 0)
        return -1;
    size_t k = 0;
    uint32_t *got = calloc(w->cores, sizeof *got);
    if (!got) {
        mempool_free(&mp);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (uint32_t c = 0; c < w->cores; c++)
        for (; got[c] < d->rx_ring && got[c] < bufs[c] && mempool_get(&mp, c, &ids[k]) == 0; got[c]++)
            k++;
    for (int more = 1; more;) {
        more = 0;
        for (uint32_t c = 0; c < w->cores; c++)
            if (got[c] < bufs[c] && mempool_get(&mp, c, &ids[k]) == 0) {
                k++;
                more |= ++got[c] < bufs[c];
            }
    }
    free(got);
    mempool_free(&mp);
    *n = k;
    return 0;
}

int mk_setmix_build(const ddio_config *cfg, uint64_t seed, const uint32_t *bufs, uint32_t lines,
                    mk_setmix *out, ddio_err *e)
{
    memset(out, 0, sizeof *out);
    const ddio_workload *w = &cfg->workload;
    hier_config hc;
    if (machine_to_hier_config(&cfg->machine, w->cores, &hc, e) != 0)
        return -1;
    hc.llc.seed = seed;   /* as dsim.c setup() */
    mbuf_layout lay;
    if (dsim_buffer_layout(&w->driver, hc.llc.line_size, &lay, e) != 0)
        return -1;
    size_t total = 0;
    for (uint32_t c = 0; c < w->cores; c++)
        total += bufs[c];
    uint32_t *ids = malloc((total ? total : 1) * sizeof *ids);
    cache_mapper *map = malloc(sizeof *map);
    uint32_t *set = NULL;
    size_t n = 0;
    int rc = -1;
    if (!ids || !map) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    if (circulating(w, bufs, total, ids, &n, e) != 0)
        goto out;
    if (!(set = malloc((n ? n : 1) * lines * sizeof *set))) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    cache_mapper_init(map, &hc.llc);
    for (size_t i = 0; i < n; i++)   /* a buffer's data lines are consecutive: one run each */
        cache_mapper_set_run(map, mbuf_data_line_addr(&lay, ids[i], 0) >> lay.line_shift, lines, &set[i * lines]);
    rc = mk_setmix_from_sets(set, n, lines, cache_geom_total_sets(&hc.llc), out, e);
out:
    free(ids);
    free(map);
    free(set);
    return rc;
}
