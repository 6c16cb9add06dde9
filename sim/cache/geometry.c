/* geometry.c - cache shapes (geometry.h): validating one, and the
 * address -> set mappings' set-up (modulo, xor with its slice hash masks,
 * random) and names. */
#include "sim/cache/geometry.h"

#include <string.h>

#include "sim/common/hash.h"
#include "sim/common/parse.h"

int cache_geom_validate(const cache_geom *g, const char *what, ddio_err *e)
{
    if (!ddio_is_pow2(g->line_size) || g->line_size < 16 || g->line_size > 4096)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: line size %u is not a power of two in [16, 4096]",
                         what, g->line_size);
    if (g->ways < 1 || g->ways > CACHE_MAX_WAYS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %u ways is out of range [1, %d]", what, g->ways,
                         CACHE_MAX_WAYS);
    if (g->slices < 1 || g->sets_per_slice < 1)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: slices and sets per slice must be at least 1", what);
    if (cache_geom_total_sets(g) > CACHE_MAX_SETS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %llu sets is more than the %u supported", what,
                         (unsigned long long)cache_geom_total_sets(g), CACHE_MAX_SETS);
    if (cache_geom_total_sets(g) * g->ways > CACHE_MAX_LINES)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %llu sets x %u ways is %llu lines, more than the %u one cache may hold",
                         what, (unsigned long long)cache_geom_total_sets(g), g->ways,
                         (unsigned long long)(cache_geom_total_sets(g) * g->ways), CACHE_MAX_LINES);
    if (g->mapping == MAP_XOR && !ddio_is_pow2(g->sets_per_slice))
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s: the xor mapping needs a power-of-two number of sets per slice, not %u",
                         what, g->sets_per_slice);
    if (g->mapping != MAP_MODULO && g->mapping != MAP_XOR && g->mapping != MAP_RANDOM)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: unknown set mapping", what);
    return 0;
}

/* Slice-hash masks over physical address bits published by Maurice et al.
 * (RAID 2015) for Intel parts with 2, 4 and 8 slices: output bit i is the
 * parity of (address & mask_i).  Bits 3..15 of our hash use further masks
 * from a fixed pseudo-random generator so any slice count gets a linear
 * (XOR-folding) function of the address bits 6..63. */
static const uint64_t maurice_masks[3] = {0x1B5F575440ull, 0x2EB5FAA880ull, 0x3CCCC93100ull};

static uint64_t slice_mask(int bit)
{
    if (bit < 3)
        return maurice_masks[bit];
    /* Address bits 6..47 only (48-bit physical addresses); never bits 0..5. */
    return ddio_mix64(0xD1B54A32D192ED03ull + (uint64_t)bit) & 0x0000FFFFFFFFFFC0ull;
}

void cache_mapper_init(cache_mapper *m, const cache_geom *g)
{
    memset(m, 0, sizeof *m);
    m->kind = g->mapping;
    m->slices = g->slices;
    m->sets_per_slice = g->sets_per_slice;
    m->total_sets = cache_geom_total_sets(g);
    m->seed = g->seed;
    m->line_shift = (uint32_t)__builtin_ctz(g->line_size);
    m->total_mask = ddio_is_pow2(m->total_sets) ? m->total_sets - 1 : 0;
    /* ceil(2^32 / div) modulo 2^32 (0 for one slice, which the formula
     * turns into remainder 0 as it should). */
    m->slice_div = g->slices < 65536 ? g->slices : 65536;
    m->slice_mul = (uint32_t)(UINT32_MAX / m->slice_div + 1);
    if (g->mapping != MAP_XOR)
        return;
    /* lfold[k][v] = hash of the address of line v << 11k; the hash is linear
     * over GF(2) so the chunks combine by XOR.  Address bits shifted out of 64
     * bits, like those above 47, are in no mask. */
    _Static_assert(CACHE_XOR_TABLES * CACHE_XOR_TABLE_BITS + 4 >= 48, "tables cover address bits 4..47");
    for (int k = 0; k < CACHE_XOR_TABLES; k++) {
        uint16_t *t = m->lfold[k];
        t[0] = 0;
        for (uint32_t v = 1; v < (1u << CACHE_XOR_TABLE_BITS); v++) {
            uint32_t low = (uint32_t)__builtin_ctz(v);
            if (v == 1u << low) {   /* one line bit: its address bit's column of the masks */
                uint64_t addr = ((uint64_t)v << (CACHE_XOR_TABLE_BITS * k)) << m->line_shift;
                uint16_t h = 0;
                for (int bit = 0; bit < 16; bit++)
                    h |= (uint16_t)(__builtin_parityll(addr & slice_mask(bit)) << bit);
                t[v] = h;
            } else {
                t[v] = t[v & (v - 1)] ^ t[1u << low];
            }
        }
    }
}

int cache_parse_mapping(const char *s, enum cache_mapping *out, ddio_err *e)
{
    if (strcmp(s, "modulo") == 0)
        *out = MAP_MODULO;
    else if (strcmp(s, "xor") == 0)
        *out = MAP_XOR;
    else if (strcmp(s, "random") == 0)
        *out = MAP_RANDOM;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "mapping '%s' is not one of modulo, xor, random", s);
    return 0;
}

const char *cache_mapping_name(enum cache_mapping m)
{
    switch (m) {
    case MAP_MODULO: return "modulo";
    case MAP_XOR: return "xor";
    case MAP_RANDOM: return "random";
    }
    return "?";
}
