/* lru_order.h - a recency order of up to 16 ways packed in one 64-bit word:
 * 4-bit field i holds the way at recency position i (0 = most recent); the
 * fields past the last way hold 0, so the LRU way is o >> 4 (ways - 1).
 * Shared by the LRU/BIP policy (repl_lru.c) and the LRU replay kernel
 * (replay_kernel.h), which both keep a set's order in this form. */
#ifndef DDIOSIM_CACHE_LRU_ORDER_H
#define DDIOSIM_CACHE_LRU_ORDER_H

#include <stdint.h>

#define LRU_ORDER_MAX_WAYS 16
#define LRU_ONES 0x1111111111111111ull
#define LRU_HIGHS 0x8888888888888888ull

/* Bits below field `pos`, for pos in 0..16. */
static inline uint64_t lru_order_below(uint32_t pos)
{
    return pos >= 16 ? ~0ull : (1ull << (4 * pos)) - 1;
}

/* The order of a fresh set: way w at position w; unused fields hold 0 (a
 * search for way 0 meets its own field first, below them). */
static inline uint64_t lru_order_init(uint32_t ways)
{
    uint64_t o = 0;
    for (uint32_t w = 0; w < ways; w++)
        o |= (uint64_t)w << (4 * w);
    return o;
}

/* The SWAR zero-field search on `x`, an order xor'ed with a way in every
 * field: the top bit of each field found zero.  The lowest flag is always
 * a true zero field, the way's position (a borrow only reaches the fields
 * above it). */
static inline uint64_t lru_order_zero_flags(uint64_t x)
{
    return (x - LRU_ONES) & ~x & LRU_HIGHS;
}

/* Recency position of `way`. */
static inline uint32_t lru_order_position(uint64_t order, uint32_t way)
{
    return (uint32_t)__builtin_ctzll(lru_order_zero_flags(order ^ (LRU_ONES * way))) / 4;
}

/* Move `way` to the front: fields 0..pos-1 shift up one, `way` goes to 0.
 * z ^ (z - 1) is the mask of the bits up to the lowest flag, i.e. fields
 * 0..pos, without computing pos (no ctz, no variable shifts). */
static inline uint64_t lru_order_to_mru(uint64_t o, uint32_t way)
{
    uint64_t z = lru_order_zero_flags(o ^ (LRU_ONES * way));
    uint64_t upto = z ^ (z - 1);
    return (o & ~upto) | ((o << 4) & upto) | way;
}

/* The same with `spread` = LRU_ONES * way given (a table lookup instead of
 * a multiply): (o << 4) | way is the order with every field one position
 * later and `way` in front; it replaces fields 0..pos. */
static inline uint64_t lru_order_to_mru_spread(uint64_t o, uint64_t way, uint64_t spread)
{
    uint64_t z = lru_order_zero_flags(o ^ spread);
    uint64_t upto = z ^ (z - 1);
    return o ^ ((o ^ ((o << 4) | way)) & upto);
}

/* Move `way` to the LRU end (position ways - 1): fields pos+1..ways-1 shift
 * down one, fields past the last way are kept.  Branch-free: `low` (fields
 * 0..pos-1) comes from the zero-field flag as in lru_order_to_mru, and
 * below(ways) = below(ways - 1) << 4 | 0xF also holds for 16 ways. */
static inline uint64_t lru_order_to_lru(uint64_t o, uint32_t way, uint32_t ways)
{
    uint64_t z = lru_order_zero_flags(o ^ (LRU_ONES * way));
    uint64_t low = (z ^ (z - 1)) >> 4;
    uint32_t sh = 4 * (ways - 1);
    uint64_t below_last = (1ull << sh) - 1;
    return (o & low) | ((o >> 4) & below_last & ~low) | ((uint64_t)way << sh) | (o & ~(below_last << 4 | 0xF));
}

/* The reference form of lru_order_to_lru (tests compare the two). */
static inline uint64_t lru_order_to_lru_ref(uint64_t o, uint32_t way, uint32_t ways)
{
    uint32_t pos = lru_order_position(o, way);
    uint64_t keep_low = o & lru_order_below(pos);
    uint64_t shifted = (o >> 4) & lru_order_below(ways - 1) & ~lru_order_below(pos);
    return keep_low | shifted | ((uint64_t)way << (4 * (ways - 1))) | (o & ~lru_order_below(ways));
}

/* The way nearest the LRU end that `mask` allows (UINT32_MAX if none):
 * the reference form, a scan from the LRU end (tests compare the two). */
static inline uint32_t lru_order_victim_ref(uint64_t o, uint32_t ways, uint64_t mask)
{
    for (uint32_t i = ways; i-- > 0;) {
        uint32_t w = (uint32_t)(o >> (4 * i)) & 0xF;
        if ((mask >> w) & 1)
            return w;
    }
    return UINT32_MAX;
}

/* The flag of `way`'s field in the SWAR search (lru_order_position): one
 * bit, higher the nearer the way is to the LRU end. */
static inline uint64_t lru_order_flag(uint64_t order, uint32_t way)
{
    const uint64_t z = lru_order_zero_flags(order ^ (LRU_ONES * way));
    return z & (0 - z);
}

/* lru_order_victim_ref, fast: for a mask of two ways (the DDIO or the
 * Shared ways: a DMA write's miss at many cores), the one whose flag is
 * higher; the LRU way when `mask` allows it (a full mask's case); else,
 * for masks of at most 4 ways (a class's ways, whose lines sit near the
 * MRU end: the scan would walk most of the set), the allowed way of the
 * highest position, each found by the SWAR search; else the scan.  Ways >=
 * `ways` in `mask` are ignored, as the scan does; fields past the last way
 * may hold anything (the search for a way < `ways` meets its own field
 * first). */
static inline uint32_t lru_order_victim(uint64_t o, uint32_t ways, uint64_t mask)
{
    mask &= (1ull << ways) - 1;   /* ways <= 16 */
    const uint64_t second = mask & (mask - 1);
    if (second && !(second & (second - 1))) {
        const uint32_t a = (uint32_t)__builtin_ctzll(mask), b = (uint32_t)__builtin_ctzll(second);
        /* A select, not a branch: at many cores the two ways' order is
         * random, and the branch compilers make of `?:` here mispredicted
         * on every other DMA write miss. */
        const uint32_t pick_a = 0u - (uint32_t)(lru_order_flag(o, a) > lru_order_flag(o, b));
        return b ^ ((a ^ b) & pick_a);
    }
    const uint32_t last = (uint32_t)(o >> (4 * (ways - 1))) & 0xF;
    if ((mask >> last) & 1)
        return last;
    uint64_t rest = mask & (mask - 1);
    rest &= rest - 1;
    rest &= rest - 1;
    if (mask == 0 || (rest & (rest - 1)) != 0)
        return lru_order_victim_ref(o, ways, mask);
    uint32_t way = (uint32_t)__builtin_ctzll(mask), best = lru_order_position(o, way);
    for (uint64_t m = mask & (mask - 1); m; m &= m - 1) {
        const uint32_t w = (uint32_t)__builtin_ctzll(m), pos = lru_order_position(o, w);
        if (pos > best) {
            best = pos;
            way = w;
        }
    }
    return way;
}

#endif
