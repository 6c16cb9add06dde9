/* replay_kernel.h - replay_run's LRU kernel (replay.h) as inline functions,
 * for the files that instantiate it: replay.c in portable C (the reference,
 * and the kernel of every build) and replay_x86.c for x86-64-v3.  Each
 * defines the instruction-set layer declared below after including this
 * header, and wraps lru_kernel_run in a function of its own; replay_run
 * (replay.c) chooses between them by r->isa.  Internal to replay*.c. */
#ifndef DDIOSIM_CACHE_REPLAY_KERNEL_H
#define DDIOSIM_CACHE_REPLAY_KERNEL_H

#include <assert.h>
#include <string.h>

#include "sim/cache/coherence.h"
#include "sim/cache/lru_order.h"
#include "sim/cache/replay.h"
#include "sim/cache/setblock.h"

#define KERNEL_BATCH 8        /* the LRU kernel prefetches 8 to 16 accesses ahead */

/* Ops that write the line (M state) and PCIe writes (DDIO mask), as bit sets
 * over enum replay_op. */
#define WRITE_OPS ((1u << OP_WRITE) | (1u << OP_PCIE_WR_FULL) | (1u << OP_PCIE_WR_PART))
#define PCIE_WRITE_OPS ((1u << OP_PCIE_WR_FULL) | (1u << OP_PCIE_WR_PART))

/* Counters of a kernel run, folded into r->op at the end: misses = accesses -
 * hits, and every miss reads memory except an ItoM (OP_PCIE_WR_FULL). */
typedef struct kernel_counts {
    uint64_t accesses[OP_COUNT], hits[OP_COUNT], writebacks[OP_COUNT];
} kernel_counts;

static void kernel_counts_fold(replay *r, const kernel_counts *kc)
{
    for (int op = 0; op < OP_COUNT; op++) {
        replay_counts *k = &r->op[op];
        const uint64_t misses = kc->accesses[op] - kc->hits[op];
        k->accesses += kc->accesses[op];
        k->hits += kc->hits[op];
        k->misses += misses;
        if (op != OP_PCIE_WR_FULL)
            k->mem_reads += misses;
        k->writebacks += kc->writebacks[op];
    }
}

/* The fast path counts an access, a hit and a writeback with one add to a
 * packed counter per op and position in the batch: accesses in bits 16-31,
 * hits 32-47, writebacks 48-63.  The low 16 bits take the junk of the
 * increments' low byte, which is the way's next state (kernel_update stores
 * that byte as the state and adds the same word to the counters: one table
 * load for both): at most 3 per add.  A word gets at most one add per
 * batch, so folding into kernel_counts every KERNEL_FOLD_BATCHES batches
 * (and at the end) keeps every field below 2^16. */
#define PACK_ACC 16
#define PACK_HIT 32
#define PACK_WB 48
#define PACK_FIELD 0xFFFFull
#define KERNEL_FOLD_BATCHES (1u << 13)
_Static_assert(3ull * KERNEL_FOLD_BATCHES <= PACK_FIELD && KERNEL_FOLD_BATCHES <= PACK_FIELD,
               "packed counters and the state junk below them fold in time");

/* The probe's way code (kernel_isa_probe): the hit way (below 16), or
 * KERNEL_MISS_W plus something below 16 on a miss: bit 6 is the miss.  The
 * entry of the state and counter table is at 4 * code + the way's old
 * state: hits below 64, misses from 256. */
#define KERNEL_MISS_W 64u
#define KERNEL_ROW (4u * (KERNEL_MISS_W + 16u))

/* The kernel's block offsets as constants of its tag-slot count: the one
 * layout rule (setblock.h) for `slots` ways and LRU's 8-byte order word,
 * the same for any ways in slots-3..slots (lru_kernel_run checks). */
#define KERNEL_META_OFF(slots) (sb_layout_make((slots), 8).meta_off)
#define KERNEL_REPL_OFF(slots) (sb_layout_make((slots), 8).repl_off)
#define KERNEL_BLOCK_BYTES(slots) (sb_layout_make((slots), 8).block_bytes)
#define KERNEL_MAX_SLICES 64   /* the xor mapping inline: slice base addresses from a table */

/* Invariants too costly for the kernel's hot path in release builds; the
 * sanitizer builds (and so the tests) check them. */
#ifdef DDIOSIM_EXPENSIVE_CHECKS
#define KERNEL_CHECK(x) assert(x)
#else
#define KERNEL_CHECK(x) ((void)0)
#endif

/* What the LRU kernel's loop reads, in locals: the byte stores into the
 * blocks may alias any object, so fields read through `r` would be reloaded
 * after each of them. */
typedef struct kernel_env {
    replay *r;
    const cache_mapper *map;
    uint8_t *blocks;
    uint64_t block_bytes, full;
    uint8_t *slice_base[KERNEL_MAX_SLICES];   /* xor mapping: block of set 0 of each slice */
    uint32_t slice_mul, slice_div, in_slice_mask;
    /* The xor mapping's two low slice-hash tables (map->lfold[0], [1])
     * widened to 32 bits: the per-access lookups need no zero extension. */
    uint32_t lfold32[2][1u << CACHE_XOR_TABLE_BITS];
    uint32_t shift, ways, lru_shift, meta_off, repl_off;
    uint64_t spread[16];                /* LRU_ONES * way, for lru_order_to_mru_spread */
    uint64_t op_mask[OP_COUNT];         /* allocation mask of each op (0: none) */
    /* The valid mask of a full set when the op allocates in the whole set;
     * else ~0, which no valid mask equals: (valid ^ op_full[op]) != 0 says
     * that a miss of the op is not the steady case. */
    uint64_t op_full[OP_COUNT];
    /* The ops whose every miss is the steady case (bit op): those that may
     * use every way, while every set is full (r->nonfull_sets is 0); none
     * otherwise.  kernel_set_steady_ops keeps it up to date. */
    uint32_t full_ops, steady_ops;
    /* steady_ops as bytes: 0xFF at index op if its bit is set (a shuffle
     * table for kernel_isa_ops_steady). */
    _Alignas(16) uint8_t steady_bytes[16];
    uint8_t op_state[OP_COUNT];         /* coherence state of a line each op fills */
    /* Row op, entry 4 * way code + state of the way before the access (a
     * hit: the line's; a miss: the victim's): the packed counter increment
     * (an access, a hit, a writeback) with the way's new state in its low
     * byte (see PACK_ACC). */
    uint64_t state_count[OP_COUNT][KERNEL_ROW];
    /* state_count[op]: a load where the op varies, not a multiply by the
     * row size. */
    const uint64_t *state_row[OP_COUNT];
    /* One packed counter per op and position in the batch (k): the
     * increments of consecutive accesses go to different words, so they do
     * not wait for each other through memory. */
    uint64_t packed[KERNEL_BATCH][OP_COUNT];
    kernel_counts kc;
} kernel_env;

static void kernel_fold_packed(kernel_env *ke)
{
    for (int k = 0; k < KERNEL_BATCH; k++)
        for (int op = 0; op < OP_COUNT; op++) {
            const uint64_t p = ke->packed[k][op];
            ke->kc.accesses[op] += (p >> PACK_ACC) & PACK_FIELD;
            ke->kc.hits[op] += (p >> PACK_HIT) & PACK_FIELD;
            ke->kc.writebacks[op] += (p >> PACK_WB) & PACK_FIELD;
            ke->packed[k][op] = 0;
        }
}

/* The set block of `line` with the xor mapping, from its 16-bit slice hash
 * `h` (the slice h % slices as in cache_xor_slice, its block base from the
 * kernel's table). */
static inline __attribute__((always_inline)) uint8_t *kernel_xor_block(const kernel_env *ke, uint64_t line,
                                                                       uint32_t h, const uint32_t slots)
{
    const uint32_t slice = (uint32_t)(((uint64_t)(uint32_t)(ke->slice_mul * h) * ke->slice_div) >> 32);
    return ke->slice_base[slice] + (line & ke->in_slice_mask) * KERNEL_BLOCK_BYTES(slots);
}

/* Starts loading a set block: both of its host cache lines. */
static inline __attribute__((always_inline)) void kernel_prefetch_block(const uint8_t *b)
{
    __builtin_prefetch(b);
    __builtin_prefetch(b + 64);
}

/* Computes the block of the set of byte address `addr` and the line number,
 * and starts loading the block; `xor_map` is a constant in each kernel
 * instance (the xor mapping inline with its fields in locals). */
static inline __attribute__((always_inline)) void kernel_map(const kernel_env *ke, uint64_t addr, uint8_t **pb,
                                                             uint64_t *pl, const uint32_t slots, const int xor_map)
{
    const uint64_t line = addr >> ke->shift;
    uint8_t *b;
    if (xor_map)
        b = kernel_xor_block(ke, line, cache_xor_slice_hash(ke->map, line), slots);
    else
        b = ke->blocks + (uint64_t)cache_mapper_set(ke->map, line) * KERNEL_BLOCK_BYTES(slots);
    *pb = b;
    *pl = line;
    kernel_prefetch_block(b);
}

/* The line bits whose slice hash kernel_map_batch_xor looks up per access
 * (the first two 11-bit tables); the hash of the bits above is looked up
 * once per batch. */
#define KERNEL_HASH_LOW_BITS (2 * CACHE_XOR_TABLE_BITS)
_Static_assert(CACHE_XOR_TABLES == 4, "two tables per access, two per batch");

/* The instruction-set layer: what replay.c and replay_x86.c each define
 * after including this header.
 *
 * kernel_isa_probe: the first half of an access (kernel_fast): the way
 * code *wm (KERNEL_MISS_W: the way that holds lslot[0] if any, else 64 or
 * more), and whether the access is one for kernel_step_general (nonzero: a
 * miss that is not the steady case); `op_full` is ke->op_full of the op,
 * `full` says that every miss is the steady case (ke->steady_ops).
 * kernel_isa_ops_steady: whether the 8 plain ops at `ops` (in range:
 * kernel_ops_plain) all have 0xFF in `steady_bytes` (ke->steady_bytes), so
 * that a mixed batch can skip the steady-miss test too; or 0 (the batch
 * takes the general test). */
#define KERNEL_ISA static inline __attribute__((always_inline))
KERNEL_ISA uint64_t kernel_isa_probe(uint64_t op_full, const uint64_t *lslot, const uint8_t *blk, uint32_t slots,
                                     int full, uint64_t *wm);
KERNEL_ISA int kernel_isa_ops_steady(const uint8_t *steady_bytes, const uint8_t *ops);

/* kernel_map for a whole batch with the xor mapping.  The slice hash is
 * linear over GF(2) (the XOR of each line bit's part), so when the batch's
 * lines agree above their low 22 bits (lines within one 2^22-line region:
 * 256 MiB of 64-byte lines, as a trace's working set mostly is), the hash
 * of those upper bits is computed once from the first line and each line
 * looks up only its low two chunks: 2 table lookups per access instead of
 * 4.  A batch whose lines spread further is mapped line by line. */
static inline __attribute__((always_inline)) void kernel_map_batch_xor(const kernel_env *ke, const uint64_t *addrs,
                                                                       uint8_t **pb, uint64_t (*pl)[2],
                                                                       const uint32_t slots)
{
    const uint64_t first = addrs[0] >> ke->shift;
    uint64_t diff = 0;
#pragma GCC unroll 8
    for (size_t k = 0; k < KERNEL_BATCH; k++) {
        const uint64_t line = addrs[k] >> ke->shift;
        pl[k][0] = line;
        diff |= line ^ first;
    }
    if (__builtin_expect(diff >> KERNEL_HASH_LOW_BITS != 0, 0)) {
#pragma GCC unroll 8
        for (size_t k = 0; k < KERNEL_BATCH; k++)
            kernel_map(ke, addrs[k], &pb[k], &pl[k][0], slots, 1);
        return;
    }
    const uint64_t tk = (1u << CACHE_XOR_TABLE_BITS) - 1;
    const uint32_t hi = cache_xor_slice_hash(ke->map, first & ~((1ull << KERNEL_HASH_LOW_BITS) - 1));
#pragma GCC unroll 8
    for (size_t k = 0; k < KERNEL_BATCH; k++) {
        const uint64_t line = pl[k][0];
        const uint32_t h = ke->lfold32[0][line & tk] ^ ke->lfold32[1][(line >> CACHE_XOR_TABLE_BITS) & tk] ^ hi;
        uint8_t *b = kernel_xor_block(ke, line, h, slots);
        pb[k] = b;
        kernel_prefetch_block(b);
    }
}

/* The fast path's steady ops after the number of non-full sets changed. */
static void kernel_set_steady_ops(kernel_env *ke)
{
    ke->steady_ops = ke->r->nonfull_sets == 0 ? ke->full_ops : 0;
    for (uint32_t op = 0; op < 16; op++)
        ke->steady_bytes[op] = op < OP_COUNT && ((ke->steady_ops >> op) & 1) ? 0xFF : 0;
}

/* One access of the kernel to the set block `blk`, any case: the path of
 * the rare accesses kernel_fast leaves to it (filling an empty way, a
 * partial mask, a PCIe read miss, two tags equal in their low 32 bits). */
static void kernel_step_general(kernel_env *ke, uint32_t op, uint64_t line, uint8_t *blk, uint32_t slots)
{
    uint64_t *tags = (uint64_t *)(void *)blk, *valid = tags + slots;
    uint64_t *order = (uint64_t *)(void *)(blk + ke->repl_off);
    uint8_t *meta = blk + ke->meta_off;
    const uint64_t m = cache_match_verify(tags, cache_match_candidates(tags, slots, line), line);
    if (m) {
        const uint32_t way = (uint32_t)__builtin_ctzll(m);
        *order = lru_order_to_mru(*order, way);
        if ((WRITE_OPS >> op) & 1)
            meta[way] = ST_M;
        ke->kc.accesses[op]++;
        ke->kc.hits[op]++;
        return;
    }
    ke->kc.accesses[op]++;
    if (op == OP_PCIE_RD)   /* served from memory, no allocation */
        return;
    const uint64_t mask = ke->op_mask[op];
    const uint64_t empty = ~*valid & mask;
    uint32_t way;
    if (empty) {
        way = (uint32_t)__builtin_ctzll(empty);
        *valid |= 1ull << way;
        if (*valid == ke->full && --ke->r->nonfull_sets == 0)
            kernel_set_steady_ops(ke);
    } else {
        way = lru_order_victim(*order, ke->ways, mask);
        if (meta[way] == ST_M)
            ke->kc.writebacks[op]++;
    }
    /* The masks are inside the set (replay_init), so this is way < ways too. */
    assert((mask >> way) & 1);
    tags[way] = line;
    meta[way] = ke->op_state[op];
    *order = lru_order_to_mru(*order, way);
}

/* The LRU way of the block at blk whose order word is o: o >> 4 (ways - 1)
 * (fields past the last way are 0); for an odd constant way count, the low
 * nibble of a byte whose high nibble is 0: a load that does not wait for o
 * (little-endian hosts).  cways: the way count as a constant of the
 * instance (0: any, from ke). */
static inline __attribute__((always_inline)) uint64_t kernel_victim(const kernel_env *ke, const uint8_t *blk,
                                                                    uint64_t o, const uint32_t slots,
                                                                    const uint32_t cways)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (cways & 1)
        return blk[KERNEL_REPL_OFF(slots) + (cways - 1) / 2];
#endif
    return o >> (cways ? 4 * (cways - 1) : ke->lru_shift);
}

/* The second half: the way is the hit way or the victim, its tag is
 * rewritten (unchanged on a hit), its state and the counters come from one
 * entry of the op's table row, indexed by (way code, old state), and it
 * moves to the front. */
static inline __attribute__((always_inline)) void kernel_update(const kernel_env *ke, const uint64_t *row,
                                                                uint64_t *packed, uint64_t line, uint8_t *blk,
                                                                const uint32_t slots, const uint32_t cways,
                                                                uint64_t wm)
{
    uint64_t *tags = (uint64_t *)(void *)blk;
    uint64_t *order = (uint64_t *)(void *)(blk + KERNEL_REPL_OFF(slots));
    uint8_t *meta = blk + KERNEL_META_OFF(slots);
    const uint64_t o = *order;
    /* The victim is loaded whether the access hits or not, so that GCC
     * selects the way with a cmov: with the load in the arm of the select
     * it branches, which the hit rates of a replay mispredict
     * (docs/performance.md). */
    const uint64_t victim = kernel_victim(ke, blk, o, slots, cways);
    const uint64_t way = wm & KERNEL_MISS_W ? victim : wm;
    const uint32_t old = meta[way];
    KERNEL_CHECK(way < ke->ways && old <= ST_M && wm < KERNEL_ROW / 4);
    const uint64_t e = row[4 * wm + old];
    meta[way] = (uint8_t)e;
    *packed += e;
    tags[way] = line;
    /* lru_order_to_mru_spread without `way`: with x = o ^ spread (way in
     * every field), (o << 4) | way = (x << 4) ^ spread, so the fields
     * 0..pos of the new order are those of o ^ x ^ (x << 4). */
    const uint64_t x = o ^ ke->spread[way];
    const uint64_t z = lru_order_zero_flags(x);
    const uint64_t upto = z ^ (z - 1);
    *order = o ^ ((x ^ (x << 4)) & upto);
}

/* One access (not a flush) of the kernel to the set block `blk`, or 0 when
 * it is one for kernel_step_general (nothing changed then).  A hit and the
 * steady-state miss (full set, every way allowed: the victim is the LRU
 * end) are one branch-free path, since whether an access hits is what a
 * branch predictor cannot guess. */
static inline __attribute__((always_inline)) int kernel_fast(kernel_env *ke, uint32_t op, const uint64_t *lslot,
                                                             uint8_t *blk, const uint32_t slots, const uint32_t cways,
                                                             size_t k)
{
    uint64_t wm;
    if (__builtin_expect(kernel_isa_probe(ke->op_full[op], lslot, blk, slots, 0, &wm) != 0, 0))
        return 0;
    kernel_update(ke, ke->state_row[op], &ke->packed[k][op], lslot[0], blk, slots, cways, wm);
    return 1;
}

/* KERNEL_GROUP consecutive accesses a .. a + 3 of a batch to pairwise
 * different sets: all four probes come before the four updates (no update
 * touches another one's block), so the tag matches do not wait behind the
 * updates of the accesses before them: the out-of-order window holds only
 * about two accesses in program order.  0 when one of them is for
 * kernel_step_general or two sets are the same (nothing changed then: the
 * caller replays them in turn). */
#define KERNEL_GROUP 4
/* `uniform`: every op of the group is `uop` (a uniform batch), which is
 * then kept in a register instead of being loaded per access.  `full`:
 * every set of the cache is full and the ops may use every way, so every
 * miss is the steady case (ke->steady_ops). */
static inline __attribute__((always_inline)) int kernel_fast_group(kernel_env *ke, const uint8_t *ops,
                                                                   const uint64_t (*lslot)[2], uint8_t *const *blk,
                                                                   const uint32_t slots, const uint32_t cways,
                                                                   size_t a, const int uniform,
                                                                   uint32_t uop, const int full)
{
    uint64_t w0, w1, w2, w3;
#define KERNEL_OP(I) (uniform ? uop : ops[a + (I)])
#define KERNEL_OP_FULL(I) (ke->op_full[KERNEL_OP(I)])
    uint64_t bad = kernel_isa_probe(KERNEL_OP_FULL(0), lslot[a], blk[a], slots, full, &w0) |
                   kernel_isa_probe(KERNEL_OP_FULL(1), lslot[a + 1], blk[a + 1], slots, full, &w1) |
                   kernel_isa_probe(KERNEL_OP_FULL(2), lslot[a + 2], blk[a + 2], slots, full, &w2) |
                   kernel_isa_probe(KERNEL_OP_FULL(3), lslot[a + 3], blk[a + 3], slots, full, &w3);
#undef KERNEL_OP_FULL
#ifdef __SSE2__
    /* Two blocks are the same iff the low 32 bits of their addresses are
     * (the block array is smaller than 4 GiB: replay_run): the four low
     * halves against themselves rotated by one and by two are the six pairs. */
    const __m128i p = _mm_castps_si128(_mm_shuffle_ps(_mm_load_ps((const float *)(const void *)(blk + a)),
                                                      _mm_load_ps((const float *)(const void *)(blk + a + 2)),
                                                      _MM_SHUFFLE(2, 0, 2, 0)));
    const __m128i eq = _mm_or_si128(_mm_cmpeq_epi32(p, _mm_shuffle_epi32(p, _MM_SHUFFLE(0, 3, 2, 1))),
                                    _mm_cmpeq_epi32(p, _mm_shuffle_epi32(p, _MM_SHUFFLE(1, 0, 3, 2))));
    bad |= (uint32_t)_mm_movemask_epi8(eq);
#else
    bad |= (uint64_t)(blk[a] == blk[a + 1] || blk[a] == blk[a + 2] || blk[a] == blk[a + 3] ||
                      blk[a + 1] == blk[a + 2] || blk[a + 1] == blk[a + 3] || blk[a + 2] == blk[a + 3]);
#endif
    if (__builtin_expect(bad != 0, 0))
        return 0;
#define KERNEL_UPDATE_AT(I, W)                                                                      \
    kernel_update(ke, uniform ? ke->state_count[uop] : ke->state_row[ops[a + (I)]],                 \
                  &ke->packed[a + (I)][KERNEL_OP(I)], lslot[a + (I)][0],                            \
                  blk[a + (I)], slots, cways, W)
    KERNEL_UPDATE_AT(0, w0);
    KERNEL_UPDATE_AT(1, w1);
    KERNEL_UPDATE_AT(2, w2);
    KERNEL_UPDATE_AT(3, w3);
#undef KERNEL_UPDATE_AT
#undef KERNEL_OP
    return 1;
}

/* kernel_fast for any op: a flush (or an op out of range) leaves it. */
static inline __attribute__((always_inline)) int kernel_step(kernel_env *ke, uint32_t op, const uint64_t *lslot,
                                                             uint8_t *blk, const uint32_t slots, const uint32_t cways,
                                                             size_t k)
{
    assert(op < OP_COUNT);
    if (op == OP_FLUSH)
        return 0;
    return kernel_fast(ke, op, lslot, blk, slots, cways, k);
}

/* The access kernel_step left: a flush or kernel_step_general's cases. */
static void kernel_step_rare(kernel_env *ke, uint32_t op, uint64_t line, uint8_t *blk, uint32_t slots)
{
    if (op == OP_FLUSH) {
        replay_access(ke->r, OP_FLUSH, 0);
        kernel_set_steady_ops(ke);
    } else
        kernel_step_general(ke, op, line, blk, slots);
}

/* Whether the 8 ops at `ops` are all in range and none is a flush: such a
 * batch runs kernel_fast without a test of the op per access. */
static inline int kernel_ops_plain(const uint8_t *ops)
{
    _Static_assert(KERNEL_BATCH == 8 && OP_COUNT == 8, "8 ops in a word, 3 bits each");
#ifdef __SSE2__
    /* A byte is bad if it is a flush or above 7 (saturating x - 7 is not 0);
     * the upper 8 bytes of the load are 0, which is not bad. */
    const __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)ops);
    const __m128i bad = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(OP_FLUSH)), _mm_subs_epu8(x, _mm_set1_epi8(7)));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) == 0xFFFF;
#else
    uint64_t x;
    memcpy(&x, ops, sizeof x);
    const uint64_t f = x ^ (0x0101010101010101ull * OP_FLUSH);   /* a zero byte per flush */
    return ((x & 0xF8F8F8F8F8F8F8F8ull) | ((f - 0x0101010101010101ull) & ~f & 0x8080808080808080ull)) == 0;
#endif
}

/* A batch of 8 plain accesses in groups of 4 (kernel_fast_group), unrolled:
 * the groups follow each other without a loop test; a group that
 * kernel_fast_group declines leaves the switch, is replayed access by
 * access, and the next group resumes it at its position. */
#define KERNEL_FAST_GROUP_AT(K, U, UOP, F)                                                          \
    case K:                                                                                         \
        if (!kernel_fast_group(ke, bops, bl, bb, slots, cways, K, U, UOP, F)) {                     \
            k = K;                                                                                  \
            break;                                                                                  \
        }                                                                                           \
        __attribute__((fallthrough));
#define KERNEL_PLAIN_BATCH(U, UOP, F)                                                               \
    do {                                                                                            \
        for (;;) {                                                                                  \
            switch (k) {                                                                            \
            KERNEL_FAST_GROUP_AT(0, U, UOP, F)                                                      \
            KERNEL_FAST_GROUP_AT(4, U, UOP, F)                                                      \
            case KERNEL_BATCH:                                                                      \
                k = KERNEL_BATCH;                                                                   \
                break;                                                                              \
            default:                                                                                \
                __builtin_unreachable();                                                            \
            }                                                                                       \
            if (k == KERNEL_BATCH)                                                                  \
                break;                                                                              \
            for (size_t e = k + KERNEL_GROUP; k < e; k++)                                           \
                if (!kernel_fast(ke, bops[k], bl[k], bb[k], slots, cways, k))                       \
                    kernel_step_general(ke, bops[k], bl[k][0], bb[k], slots);                       \
            if (k == KERNEL_BATCH)                                                                  \
                break;                                                                              \
        }                                                                                           \
    } while (0)
_Static_assert(KERNEL_BATCH == 8 && KERNEL_GROUP == 4, "KERNEL_PLAIN_BATCH: groups at 0 and 4");

/* The op of the 8 ops at `ops` when they are all the same plain op (in range,
 * not a flush), else OP_COUNT. */
static inline uint32_t kernel_ops_uniform(const uint8_t *ops)
{
    uint64_t x;
    memcpy(&x, ops, sizeof x);
    const uint32_t op = ops[0];
    if (x != 0x0101010101010101ull * op || op >= OP_COUNT || op == OP_FLUSH)
        return OP_COUNT;
    return op;
}

/* Replays the m (1..8) accesses of one batch: ops at bops, line slots bl,
 * blocks bb.  The inner loops make no call, so that the kernel's state
 * stays in registers: they stop at an access for kernel_step_general or
 * kernel_step_rare. */
static inline __attribute__((always_inline)) void kernel_batch(kernel_env *ke, const uint8_t *bops,
                                                               const uint64_t (*bl)[2], uint8_t *const *bb,
                                                               const size_t m, const uint32_t slots,
                                                               const uint32_t cways)
{
    size_t k = 0;
    /* A batch of one op (common in real traces: runs of loads or stores):
     * the op's rows of the tables once for the batch. */
    const uint32_t uop = m == KERNEL_BATCH ? kernel_ops_uniform(bops) : OP_COUNT;
    if (uop < OP_COUNT) {
        if ((ke->steady_ops >> uop) & 1)
            KERNEL_PLAIN_BATCH(1, uop, 1);
        else
            KERNEL_PLAIN_BATCH(1, uop, 0);
    } else if (m == KERNEL_BATCH && kernel_ops_plain(bops)) {
        if (kernel_isa_ops_steady(ke->steady_bytes, bops))
            KERNEL_PLAIN_BATCH(0, 0, 1);
        else
            KERNEL_PLAIN_BATCH(0, 0, 0);
    } else {
        while (k < m) {
            for (; k < m; k++)
                if (!kernel_step(ke, bops[k], bl[k], bb[k], slots, cways, k))
                    break;
            if (k < m) {
                kernel_step_rare(ke, bops[k], bl[k][0], bb[k], slots);
                k++;
            }
        }
    }
}

/* The LRU kernel: the same semantics as replay_access, specialised for the
 * default policy (LRU, up to 16 ways), which it updates in place through the
 * packed order of lru_order.h instead of the policy's ops.  Each set's block
 * address and line number are computed once, when the access is prefetched
 * (a batch ahead); `slots` (the tag slots, 4..16) is a constant in each
 * instance, so the tag compare is unrolled and the block offsets are
 * constants; `xor_map` puts the xor set mapping inline.  Counters are kept
 * per op in locals and folded into r->op at the end.  See
 * docs/performance.md for the figures.  tests/test_cache_replay.c checks it
 * against the generic path, state and counters, after every chunk of a
 * randomly chunked replay. */
static inline __attribute__((always_inline)) uint64_t
lru_kernel(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n, const uint32_t slots,
           const uint32_t cways, const int xor_map)
{
    const cache *c = &r->c;
    kernel_env ke;
    memset(&ke, 0, sizeof ke);
    ke.r = r;
    ke.map = &c->map;
    ke.blocks = c->blocks;
    ke.block_bytes = c->block_bytes;
    ke.full = c->full_mask;
    for (uint32_t sl = 0; sl < c->map.slices && sl < KERNEL_MAX_SLICES; sl++)
        ke.slice_base[sl] = c->blocks + (uint64_t)sl * c->map.sets_per_slice * c->block_bytes;
    ke.slice_mul = c->map.slice_mul;
    ke.slice_div = c->map.slice_div;
    ke.in_slice_mask = c->map.sets_per_slice - 1;
    if (xor_map)
        for (uint32_t t = 0; t < 2; t++)
            for (uint32_t v = 0; v < (1u << CACHE_XOR_TABLE_BITS); v++)
                ke.lfold32[t][v] = c->map.lfold[t][v];
    ke.shift = c->map.line_shift;
    ke.ways = c->ways;
    ke.lru_shift = 4 * (c->ways - 1);
    ke.meta_off = c->meta_off;
    ke.repl_off = c->repl_off;
    for (uint32_t w = 0; w < 16; w++)
        ke.spread[w] = LRU_ONES * w;
    /* On a hit a write makes the line M whatever its state: M has every bit
     * of S and E. */
    _Static_assert((ST_M & ST_E) == ST_E && (ST_M & ST_S) == ST_S, "M covers S and E");
    _Static_assert(ST_I == 0 && ST_M == 3, "states fit in 2 bits");
    for (uint32_t op = 0; op < OP_COUNT; op++) {
        const int writes = (WRITE_OPS >> op) & 1;
        /* A PCIe read miss allocates nothing: mask 0 keeps it off the steady path. */
        ke.op_mask[op] = op == OP_PCIE_RD ? 0 : (PCIE_WRITE_OPS >> op) & 1 ? r->ddio_mask : r->alloc_mask;
        ke.op_full[op] = ke.op_mask[op] == ke.full ? ke.full : ~0ull;
        ke.full_ops |= (uint32_t)(ke.op_mask[op] == ke.full) << op;
        ke.op_state[op] = writes ? ST_M : ST_E;
        ke.state_row[op] = ke.state_count[op];
        for (uint32_t i = 0; i < KERNEL_ROW; i++) {
            const uint32_t old = i & 3;
            ke.state_count[op][i] = i < 4 * KERNEL_MISS_W
                ? (uint64_t)(old | (writes ? ST_M : 0)) + (1ull << PACK_ACC) + (1ull << PACK_HIT)
                : (uint64_t)ke.op_state[op] + (1ull << PACK_ACC) + ((uint64_t)(old == ST_M) << PACK_WB);
        }
    }
    kernel_set_steady_ops(&ke);
    /* Batches: the blocks of batch b + KERNEL_AHEAD are computed and
     * prefetched (a small loop of its own) before batch b is replayed, so
     * each access is prefetched KERNEL_AHEAD batches ahead or more (blocks
     * that come from DRAM need it), and the two loops do not compete for
     * registers.  blk and line are rings of KERNEL_RING batches (a power of
     * two: the slot of batch b is b % KERNEL_RING, a mask). */
#define KERNEL_AHEAD 2
#define KERNEL_RING 4
    _Static_assert(KERNEL_RING > KERNEL_AHEAD && (KERNEL_RING & (KERNEL_RING - 1)) == 0, "ring of batches");
    _Alignas(16) uint8_t *blk[KERNEL_RING][KERNEL_BATCH];
    /* Line numbers, one per 16-byte slot (the portable probe loads a slot
     * whole); the upper half of each slot is not used. */
    _Alignas(16) uint64_t line[KERNEL_RING][KERNEL_BATCH][2];
    memset(line, 0, sizeof line);
    for (size_t k = 0; k < n && k < KERNEL_AHEAD * KERNEL_BATCH; k++)
        kernel_map(&ke, addrs[k], &blk[k / KERNEL_BATCH][k % KERNEL_BATCH], &line[k / KERNEL_BATCH][k % KERNEL_BATCH][0],
                   slots, xor_map);
    size_t j = 0;
    /* The steady loop: the batch and the one KERNEL_AHEAD ahead are both
     * whole, so it has no length tests; the last batches follow in the
     * general loop below.  Both fold the packed counters every
     * KERNEL_FOLD_BATCHES batches of the run. */
    const size_t steady_end = n >= (KERNEL_AHEAD + 1) * KERNEL_BATCH ? n - (KERNEL_AHEAD + 1) * KERNEL_BATCH + 1 : 0;
    for (; j < steady_end; j += KERNEL_BATCH) {
        const size_t b = j / KERNEL_BATCH;
        const size_t ab = (b + KERNEL_AHEAD) % KERNEL_RING;
        if (xor_map) {
            kernel_map_batch_xor(&ke, addrs + j + KERNEL_AHEAD * KERNEL_BATCH, blk[ab], line[ab], slots);
        } else {
#pragma GCC unroll 8
            for (size_t k = 0; k < KERNEL_BATCH; k++)
                kernel_map(&ke, addrs[j + KERNEL_AHEAD * KERNEL_BATCH + k], &blk[ab][k], &line[ab][k][0], slots, 0);
        }
        kernel_batch(&ke, ops + j, line[b % KERNEL_RING], blk[b % KERNEL_RING], KERNEL_BATCH, slots, cways);
        if (((b + 1) & (KERNEL_FOLD_BATCHES - 1)) == 0)
            kernel_fold_packed(&ke);
    }
    for (; j < n; j += KERNEL_BATCH) {
        const size_t b = j / KERNEL_BATCH;
        const size_t ahead = j + KERNEL_AHEAD * KERNEL_BATCH,
                     na = ahead >= n ? 0 : n - ahead < KERNEL_BATCH ? n - ahead : KERNEL_BATCH;
        const size_t ab = (b + KERNEL_AHEAD) % KERNEL_RING;
        for (size_t k = 0; k < na; k++)
            kernel_map(&ke, addrs[ahead + k], &blk[ab][k], &line[ab][k][0], slots, xor_map);
        const size_t m = n - j < KERNEL_BATCH ? n - j : KERNEL_BATCH;
        kernel_batch(&ke, ops + j, line[b % KERNEL_RING], blk[b % KERNEL_RING], m, slots, cways);
        if (((b + 1) & (KERNEL_FOLD_BATCHES - 1)) == 0)
            kernel_fold_packed(&ke);
    }
    kernel_fold_packed(&ke);
    kernel_counts_fold(r, &ke.kc);
    uint64_t hits = 0;
    for (int op = 0; op < OP_COUNT; op++)
        hits += ke.kc.hits[op];
    return hits;
}

/* The kernel's instances, by tag-slot count, way count and mapping: the
 * LRU kernel for r (LRU, up to 16 ways, blocks below 4 GiB: replay_run). */
static inline __attribute__((always_inline)) uint64_t lru_kernel_run(replay *r, const uint8_t *ops,
                                                                     const uint64_t *addrs, size_t n)
{
    assert(r->c.meta_off == KERNEL_META_OFF(r->c.tag_slots) && r->c.repl_off == KERNEL_REPL_OFF(r->c.tag_slots) &&
           r->c.block_bytes == KERNEL_BLOCK_BYTES(r->c.tag_slots));
    /* More slices than slice_base holds: the mapping through cache_mapper_set. */
    const int x = r->c.map.kind == MAP_XOR && r->c.map.slices <= KERNEL_MAX_SLICES;
    switch (r->c.tag_slots) {
    case 4: return x ? lru_kernel(r, ops, addrs, n, 4, 0, 1) : lru_kernel(r, ops, addrs, n, 4, 0, 0);
    case 8: return x ? lru_kernel(r, ops, addrs, n, 8, 0, 1) : lru_kernel(r, ops, addrs, n, 8, 0, 0);
    case 12:
        /* 11 ways (the Skylake-SP LLC) with the victim's shift a constant. */
        if (x && r->c.ways == 11)
            return lru_kernel(r, ops, addrs, n, 12, 11, 1);
        return x ? lru_kernel(r, ops, addrs, n, 12, 0, 1) : lru_kernel(r, ops, addrs, n, 12, 0, 0);
    default:
        assert(r->c.tag_slots == 16);
        return x ? lru_kernel(r, ops, addrs, n, 16, 0, 1) : lru_kernel(r, ops, addrs, n, 16, 0, 0);
    }
}

#ifdef REPLAY_X86_64_V3
/* lru_kernel_run compiled for x86-64-v3 (replay_x86.c): what replay_run
 * calls when r->isa is REPLAY_ISA_X86_64_V3. */
uint64_t replay_run_x86_64_v3(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n);
#endif

#endif
