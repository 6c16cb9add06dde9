/* geometry.h - cache shape and the address -> (slice, set) mapping.
 *
 * Sets are numbered globally: set = slice * sets_per_slice + set_in_slice.
 * Mappings:
 *   modulo  set = line mod (slices * sets_per_slice); slices are concatenated.
 *   xor     set_in_slice = line mod sets_per_slice (the index bits, as on
 *           Intel parts) and slice = an XOR-folding hash of the physical
 *           address bits (Intel-like complex addressing; see docs/cache-model.md).
 *   random  set = (mix64(line ^ seed) * total sets) >> 64, i.e. a fixed
 *           pseudo-random permutation of the line numbers scaled onto the
 *           sets: the model's "uniformly and randomly mapped" assumption.
 *   skx18   the slice hash measured on 18-slice Skylake-SP / Cascade Lake
 *           Xeons (hash_skx18.h), set_in_slice = the index bits as for xor.
 *           Only for 18 slices x 2048 sets of 64-byte lines.  With
 *           frame_shift, the simulator's addresses are virtual: each page of
 *           2^frame_shift bytes sits at a pseudo-random physical frame below
 *           256 GiB (seeded), as DPDK's huge pages do, and the hash sees the
 *           physical address. */
#ifndef DDIOSIM_CACHE_GEOMETRY_H
#define DDIOSIM_CACHE_GEOMETRY_H

#include <stdint.h>
#include "sim/common/err.h"
#include "sim/cache/hash_skx18.h"
#include "sim/common/hash.h"

#define CACHE_MAX_WAYS 64
#define CACHE_MAX_SETS (1u << 28)
/* The most lines one cache may hold, 2^26 (4 GiB of 64-byte lines): the
 * simulator keeps about 10 bytes of tags and policy state per line, and a
 * bigger cache would rather exhaust the host's memory than simulate
 * anything real.  Checked before anything is allocated (docs/configs.md). */
#define CACHE_MAX_LINES (1u << 26)

enum cache_mapping { MAP_MODULO = 0, MAP_XOR, MAP_RANDOM, MAP_SKX18 };

typedef struct cache_geom {
    uint32_t line_size;       /* bytes, a power of two, 16..4096 */
    uint32_t slices;          /* >= 1 */
    uint32_t sets_per_slice;  /* >= 1; a power of two for the xor mapping */
    uint32_t ways;            /* 1..64 */
    enum cache_mapping mapping;
    uint64_t seed;            /* random mapping, skx18's frames */
    uint32_t frame_shift;     /* skx18: log2 of the page size placed at random frames, 17..30; 0: addresses are physical */
} cache_geom;

/* Check the geometry; `what` names it in the error ("--sets", "llc"...). */
int cache_geom_validate(const cache_geom *g, const char *what, ddio_err *e);

static inline uint64_t cache_geom_total_sets(const cache_geom *g)
{
    return (uint64_t)g->slices * g->sets_per_slice;
}

static inline uint64_t cache_geom_bytes(const cache_geom *g)
{
    return cache_geom_total_sets(g) * g->ways * g->line_size;
}

#define CACHE_XOR_TABLES 4
#define CACHE_XOR_TABLE_BITS 11

/* Precomputed state of a mapping (XOR fold tables). */
typedef struct cache_mapper {
    enum cache_mapping kind;
    uint32_t slices, sets_per_slice, line_shift;
    uint64_t total_sets, seed;
    uint64_t total_mask;      /* total_sets - 1 when a power of two, else 0 */
    /* xor: hash % slices by Lemire's direct remainder on 32 bits (Lemire,
     * Kaser, Kurz 2019, Theorem 1: exact for 16-bit numerators and divisors),
     * see cache_xor_slice.  slice_div is the number of slices, or 65536 when
     * there are more (a 16-bit hash is its own remainder then). */
    uint32_t slice_mul, slice_div;
    /* xor: lfold[k][v] = the slice-hash contribution of v in line-number bits
     * 11k..11k+10.  Indexed by the line, not the address, so the hash is 4
     * lookups and no shift; 4 x 11 bits cover every line bit that lands in
     * address bits 6..47 for lines of 16 B or more (higher address bits are
     * outside every mask, so their tables hold zeros). */
    uint16_t lfold[CACHE_XOR_TABLES][1u << CACHE_XOR_TABLE_BITS];
    /* skx18: pfold[k][v] = the permutation bits of v in line-number bits
     * 12 + 10k .. 21 + 10k (address bits 18..37); frame_shift in lines
     * (0: no frames) and the frame-number mask below 2^38 bytes. */
    uint16_t pfold[2][1024];
    uint32_t frame_lines_shift;
    uint64_t frame_mask;
} cache_mapper;

void cache_mapper_init(cache_mapper *m, const cache_geom *g);
/* The xor mapping's raw 16-bit slice hash of a line number: the hash is
 * linear over GF(2), so it is the XOR of each 11-bit chunk's part. */
static inline uint32_t cache_xor_slice_hash(const cache_mapper *m, uint64_t line)
{
    const uint64_t k = (1u << CACHE_XOR_TABLE_BITS) - 1;
    return m->lfold[0][line & k] ^ m->lfold[1][(line >> 11) & k] ^ m->lfold[2][(line >> 22) & k] ^
           m->lfold[3][(line >> 33) & k];
}

/* The slice of a 16-bit slice hash: h % slices, exactly (geometry.c,
 * tests/test_cache_replay.c check it against `%`).  Two multiplies and a
 * shift: (uint32_t)(mul * h) is the fraction h / div scaled by 2^32, and its
 * product with div has the remainder in the upper 32 bits. */
static inline uint32_t cache_xor_slice(const cache_mapper *m, uint32_t h)
{
    return (uint32_t)(((uint64_t)(uint32_t)(m->slice_mul * h) * m->slice_div) >> 32);
}

/* skx18: the physical line of a line, through its page's frame. */
static inline uint64_t cache_skx18_line(const cache_mapper *m, uint64_t line)
{
    if (!m->frame_lines_shift)
        return line;
    uint64_t in_page = line & ((1ull << m->frame_lines_shift) - 1);
    uint64_t frame = ddio_mix64((line >> m->frame_lines_shift) ^ m->seed) & m->frame_mask;
    return frame << m->frame_lines_shift | in_page;
}

/* skx18: the slice of a physical line. */
static inline uint32_t cache_skx18_slice(const cache_mapper *m, uint64_t pline)
{
    uint32_t p = m->pfold[0][(pline >> 12) & 1023] ^ m->pfold[1][(pline >> 22) & 1023];
    return skx18_base[(pline & (SKX18_BASE_LEN - 1)) ^ p];
}

/* Global set index of a line number (address >> log2(line_size)).  Inline:
 * it is on the path of every simulated access. */
static inline uint32_t cache_mapper_set(const cache_mapper *m, uint64_t line)
{
    switch (m->kind) {
    case MAP_MODULO:
        return (uint32_t)(m->total_mask ? line & m->total_mask : line % m->total_sets);
    case MAP_RANDOM:
        return (uint32_t)(((unsigned __int128)ddio_mix64(line ^ m->seed) * m->total_sets) >> 64);
    case MAP_XOR: {
        uint32_t in_slice = (uint32_t)(line & (m->sets_per_slice - 1));
        return cache_xor_slice(m, cache_xor_slice_hash(m, line)) * m->sets_per_slice + in_slice;
    }
    case MAP_SKX18:
        return cache_skx18_slice(m, cache_skx18_line(m, line)) * m->sets_per_slice +
               (uint32_t)(line & (m->sets_per_slice - 1));
    }
    return 0;
}

/* skx18 over a run: the frame and the permutation bits of the line bits
 * above the lowest 12 are shared by the lines of one 4096-line block (and
 * of one frame, when frames are smaller), so they are computed once per
 * block; inside it the physical line advances with the line. */
static inline void cache_skx18_set_run(const cache_mapper *m, uint64_t first, uint32_t n, uint32_t *out)
{
    const uint64_t blk = m->frame_lines_shift && m->frame_lines_shift < 12 ? (1ull << m->frame_lines_shift) - 1 : 4095;
    uint64_t pline = 0;
    uint32_t p = 0;
    for (uint32_t i = 0; i < n; i++, pline++) {
        uint64_t line = first + i;
        if (i == 0 || (line & blk) == 0) {
            pline = cache_skx18_line(m, line);
            p = m->pfold[0][(pline >> 12) & 1023] ^ m->pfold[1][(pline >> 22) & 1023];
        }
        out[i] = (uint32_t)skx18_base[(pline & (SKX18_BASE_LEN - 1)) ^ p] * m->sets_per_slice +
                 (uint32_t)(line & (m->sets_per_slice - 1));
    }
}

/* Sets of the n consecutive lines first, first + 1, ... into out[]: the
 * same as cache_mapper_set on each.  For the xor mapping the hash of the
 * line bits above the lowest 11 is shared by the run (recomputed when the
 * run crosses a 2048-line boundary), one table lookup per line; skx18
 * shares its frame and permutation per 4096-line block. */
static inline void cache_mapper_set_run(const cache_mapper *m, uint64_t first, uint32_t n, uint32_t *out)
{
    if (m->kind == MAP_SKX18) {
        cache_skx18_set_run(m, first, n, out);
        return;
    }
    if (m->kind != MAP_XOR) {
        for (uint32_t i = 0; i < n; i++)
            out[i] = cache_mapper_set(m, first + i);
        return;
    }
    const uint64_t k = (1u << CACHE_XOR_TABLE_BITS) - 1;
    uint32_t hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t line = first + i;
        if (i == 0 || (line & k) == 0)
            hi = m->lfold[1][(line >> 11) & k] ^ m->lfold[2][(line >> 22) & k] ^ m->lfold[3][(line >> 33) & k];
        uint32_t h = hi ^ m->lfold[0][line & k];
        out[i] = cache_xor_slice(m, h) * m->sets_per_slice + (uint32_t)(line & (m->sets_per_slice - 1));
    }
}

int cache_parse_mapping(const char *s, enum cache_mapping *out, ddio_err *e);
const char *cache_mapping_name(enum cache_mapping m);

#endif
