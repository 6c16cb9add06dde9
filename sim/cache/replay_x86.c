/* replay_x86.c - replay_run's LRU kernel (replay_kernel.h) compiled for
 * x86-64-v3 and chosen at run time (replay_best_isa): three-operand VEX
 * forms, andn, blsmsk, shrx and the like take fewer instructions per
 * access, and the tags are matched in full, 4 at a time with AVX2, so no
 * candidate needs a second check (what it gains over the portable kernel:
 * docs/performance.md).  The project's flags stay plain x86-64: this file
 * alone is compiled for x86-64-v3, where the compiler has the target
 * pragma and __builtin_cpu_supports("x86-64-v3") (REPLAY_X86_64_V3).
 *
 * No inline assembly: intrinsics and plain C do as well here
 * (docs/performance.md, "Tried and not adopted"); GCC makes the way's
 * select a cmov itself. */
#include "sim/cache/replay.h"

#ifdef REPLAY_X86_64_V3

/* Every function below, those of the kernel included, is compiled for
 * x86-64-v3. */
#pragma GCC target("arch=x86-64-v3")

#include <immintrin.h>

#include "sim/cache/replay_kernel.h"

/* The ways of `slots` tags at t that hold the line at *lslot: full 64-bit
 * compares, 4 tags per vpcmpeqq.  Empty ways and padding slots hold
 * CACHE_INVALID, which no line number equals (lines are addresses shifted
 * right by at least 4 bits). */
static inline __attribute__((always_inline)) uint64_t kernel_match(const uint64_t *t, const uint32_t slots,
                                                                   const uint64_t *lslot)
{
    const __m256i key = _mm256_set1_epi64x((long long)*lslot);
    uint64_t m = 0;
#pragma GCC unroll 4
    for (uint32_t i = 0; i < slots; i += 4) {
        const __m256i eq = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(t + i)), key);
        m |= (uint64_t)(uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(eq)) << i;
    }
    return m;
}

/* The match itself (at most one way holds a line), so the way code is its
 * tzcnt: 64 (KERNEL_MISS_W) on a miss.  A miss is the steady case if the
 * set is full and the op may use every way. */
KERNEL_ISA uint64_t kernel_isa_probe(uint64_t op_full, const uint64_t *lslot, const uint8_t *blk,
                                     const uint32_t slots, const int full, uint64_t *wm)
{
    _Static_assert(KERNEL_MISS_W == 64, "a miss's way code is tzcnt of 0");
    const uint64_t *tags = (const uint64_t *)(const void *)blk, *valid = tags + slots;
    const uint64_t m = kernel_match(tags, slots, lslot);
    *wm = _tzcnt_u64(m);
    if (full)   /* every miss is the steady case */
        return 0;
    return (*valid ^ op_full) & (0 - (uint64_t)(m == 0));
}

/* One byte shuffle of the ops through steady_bytes (the upper 8 index
 * bytes are 0, and their results are not looked at). */
KERNEL_ISA int kernel_isa_ops_steady(const uint8_t *steady_bytes, const uint8_t *ops)
{
    const __m128i o = _mm_loadl_epi64((const __m128i *)(const void *)ops);
    const __m128i tab = _mm_load_si128((const __m128i *)(const void *)steady_bytes);
    return (_mm_movemask_epi8(_mm_shuffle_epi8(tab, o)) & 0xFF) == 0xFF;
}

uint64_t replay_run_x86_64_v3(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
    return lru_kernel_run(r, ops, addrs, n);
}

#endif
