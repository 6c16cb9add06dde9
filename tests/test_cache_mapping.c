/* test_cache_mapping.c - the skx18 set mapping (geometry.h, hash_skx18.h):
 * McCalpin's published structure of the 18-slice Skylake-SP slice hash, the
 * huge-page frames, and the geometry checks that go with them. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/cache/geometry.h"
#include "sim/cache/hash_skx18.h"
#include "sim/common/rng.h"

static const cache_geom skx = {.line_size = 64, .slices = 18, .sets_per_slice = 2048, .ways = 11,
                               .mapping = MAP_SKX18, .seed = 1};

static uint32_t parity(uint64_t x)
{
    return (uint32_t)__builtin_parityll(x);
}

/* The slice of physical address pa straight from the published definition:
 * base[((pa >> 6) & 4095) XOR p], bit k of p = parity(pa & mask_k). */
static uint32_t reference_slice(uint64_t pa)
{
    uint32_t p = 0;
    for (int k = 0; k < SKX18_PERM_BITS; k++)
        p |= parity(pa & skx18_masks[k]) << k;
    return skx18_base[((pa >> 6) & 4095) ^ p];
}

Test(cache_mapping, skx18_base_sequence_as_published)
{
    /* The report's first 16 entries, and its per-slice counts: every
     * aligned 256 KiB block gives slices 0-15 232 lines, 16-17 192. */
    static const uint8_t first[16] = {0, 11, 2, 9, 7, 12, 5, 14, 1, 10, 3, 8, 6, 13, 4, 15};
    cr_expect_eq(memcmp(skx18_base, first, sizeof first), 0);
    uint32_t count[18] = {0};
    for (uint32_t i = 0; i < SKX18_BASE_LEN; i++) {
        cr_assert_lt(skx18_base[i], 18);
        count[skx18_base[i]]++;
    }
    for (int s = 0; s < 18; s++)
        cr_expect_eq(count[s], s < 16 ? 232u : 192u, "slice %d", s);
}

Test(cache_mapping, skx18_matches_the_published_definition)
{
    cache_mapper m;
    cache_mapper_init(&m, &skx);
    ddio_rng rng;
    ddio_rng_seed(&rng, 11);
    for (int i = 0; i < 20000; i++) {
        uint64_t pa = ddio_rng_next(&rng) & ((1ull << SKX18_PA_BITS) - 64);
        uint64_t line = pa >> 6;
        uint32_t set = cache_mapper_set(&m, line);
        cr_assert_eq(set / 2048, reference_slice(pa), "pa 0x%llx", (unsigned long long)pa);
        cr_assert_eq(set % 2048, line % 2048, "the set inside a slice comes from the index bits");
    }
    /* Address bit 18 alone: its column of the masks is 0x865 (masks 0, 2,
     * 5, 6 and 11 have bit 18), so line 0x1000 takes base entry 0x865. */
    cr_expect_eq(cache_mapper_set(&m, 0x1000) / 2048, skx18_base[0x865]);
}

Test(cache_mapping, skx18_block_counts_do_not_depend_on_the_block)
{
    /* XOR permutes entries inside a 256 KiB block: any aligned block has
     * the base sequence's per-slice counts. */
    cache_mapper m;
    cache_mapper_init(&m, &skx);
    uint64_t blocks[] = {0, 1, 77, 4095, 123457, (1ull << 20) - 1};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t count[18] = {0};
        for (uint64_t i = 0; i < SKX18_BASE_LEN; i++)
            count[cache_mapper_set(&m, blocks[b] * SKX18_BASE_LEN + i) / 2048]++;
        for (int s = 0; s < 18; s++)
            cr_expect_eq(count[s], s < 16 ? 232u : 192u, "block %llu slice %d", (unsigned long long)blocks[b], s);
    }
}

Test(cache_mapping, skx18_frames_move_pages_not_lines_within_them)
{
    /* 2 MiB frames: two lines of one page keep their distance in the
     * physical address, so their slices are those of some physical frame;
     * the set inside the slice never changes; the placement is a function
     * of the seed. */
    cache_geom g = skx;
    g.frame_shift = 21;
    cache_mapper m, m2, none;
    cache_mapper_init(&m, &g);
    cache_mapper_init(&none, &skx);
    g.seed = 2;
    cache_mapper_init(&m2, &g);
    const uint64_t page_lines = 1ull << 15;
    int moved = 0, differs = 0;
    for (uint64_t page = 0; page < 64; page++) {
        uint64_t first = page * page_lines;
        uint64_t pline = cache_skx18_line(&m, first);
        cr_assert_eq(pline % page_lines, 0, "a frame is page-aligned");
        cr_assert_lt(pline, 1ull << (SKX18_PA_BITS - 6), "frames lie below 256 GiB");
        moved += pline != first;
        for (uint64_t off = 0; off < page_lines; off += 997) {
            cr_assert_eq(cache_skx18_line(&m, first + off), pline + off);
            uint32_t set = cache_mapper_set(&m, first + off);
            cr_assert_eq(set, cache_mapper_set(&none, pline + off));
            cr_assert_eq(set % 2048, (first + off) % 2048);
        }
        differs += cache_skx18_line(&m2, first) != pline;
    }
    cr_expect_gt(moved, 60);
    cr_expect_gt(differs, 60, "another seed, other frames");
}

/* The run form (the simulator's DMA runs, the model's set mixture) is the
 * per-line mapping: runs across 4096-line blocks and across frames of every
 * size, without frames, and starting anywhere. */
Test(cache_mapping, skx18_runs_equal_single_lines)
{
    static const uint32_t shifts[] = {0, 17, 18, 21, 30};
    ddio_rng r;
    ddio_rng_seed(&r, 7);
    uint32_t run[5000];
    for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
        cache_geom g = skx;
        g.frame_shift = shifts[s];
        cache_mapper m;
        cache_mapper_init(&m, &g);
        for (int k = 0; k < 200; k++) {
            uint64_t first = ddio_rng_next(&r) >> (k % 2 ? 30 : 20);
            if (k % 5 == 0)
                first = (first | 4095) - 3;   /* just before a block boundary */
            uint32_t n = 1 + (uint32_t)(ddio_rng_next(&r) % 5000);
            cache_mapper_set_run(&m, first, n, run);
            for (uint32_t i = 0; i < n; i++)
                cr_assert_eq(run[i], cache_mapper_set(&m, first + i), "frame shift %u, line %llu + %u", shifts[s],
                             (unsigned long long)first, i);
        }
    }
}

Test(cache_mapping, skx18_geometry_errors)
{
    ddio_err e = {0};
    cache_geom g = skx;
    cr_expect_eq(cache_geom_validate(&g, "llc", &e), 0);
    g.slices = 16;
    cr_expect_eq(cache_geom_validate(&g, "llc", &e), -1);
    cr_expect_str_eq(e.msg, "llc: the skx18 mapping is that of 18 slices x 2048 sets of 64-byte lines, not 16 x 2048 of 64");
    g = skx;
    g.frame_shift = 16;
    cr_expect_eq(cache_geom_validate(&g, "llc", &e), -1);
    cr_expect_str_eq(e.msg, "llc: page frames of 2^16 bytes: only with the skx18 mapping, 128 KiB to 1 GiB");
    g = skx;
    g.mapping = MAP_XOR;
    g.frame_shift = 21;
    cr_expect_eq(cache_geom_validate(&g, "llc", &e), -1);
    enum cache_mapping k;
    cr_expect_eq(cache_parse_mapping("skx18", &k, &e), 0);
    cr_expect_eq(k, MAP_SKX18);
    cr_expect_str_eq(cache_mapping_name(MAP_SKX18), "skx18");
}
