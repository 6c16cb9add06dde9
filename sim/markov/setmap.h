/* setmap.h - the LLC set mapping as the Markov model sees it: how the
 * buffer lines the NIC writes spread over the LLC's sets (mk_setmix,
 * evict.h), computed with the simulator's own mapper (sim/cache/geometry.h)
 * on the simulator's own buffer addresses (sim/queue/mempool.h).  The
 * paper assumes a uniform random mapping; docs/model.md section 12 says
 * what the model does with the mixture and what it changes, measured. */
#ifndef DDIOSIM_MARKOV_SETMAP_H
#define DDIOSIM_MARKOV_SETMAP_H

#include <stddef.h>
#include <stdint.h>

#include "configs/config.h"
#include "sim/common/err.h"
#include "sim/markov/evict.h"

/* Whether the model replaces the paper's random mapping by the mixture for
 * this mapping: every mapping but `random` (which is the paper's). */
int mk_mapping_mixed(enum cache_mapping m);

/* The mixture of n_bufs buffers of `lines` lines each, line j of buffer b
 * in set set[b * lines + j] (< total_sets): for every line, the number c of
 * lines of *other* buffers in its set; pop = (n_bufs - 1) * lines.  -1
 * (exit 2) for fewer than 2 buffers or a set out of range. */
int mk_setmix_from_sets(const uint32_t *set, size_t n_bufs, uint32_t lines, uint64_t total_sets,
                        mk_setmix *out, ddio_err *e);

/* The footprint of a configuration: data lines 0..lines-1 (what the NIC
 * writes) of the buffers core c circulates, bufs[c] of them, as the
 * simulator lays them out (dsim.c: mbuf_layout from the workload's driver
 * fields) and hands them out (its mempool: the RX rings filled core by
 * core at start-up, then the rest of each core's cycle taken from its
 * cache in turns), mapped by the machine's LLC mapping with `seed` (the
 * simulator's seed: the random mapping, skx18's frames). */
int mk_setmix_build(const ddio_config *cfg, uint64_t seed, const uint32_t *bufs, uint32_t lines,
                    mk_setmix *out, ddio_err *e);

void mk_setmix_free(mk_setmix *m);

#endif
