#include "sim/cache/replay.h"

#include <string.h>

#include "sim/cache/coherence.h"
#include "sim/cache/lru_order.h"

int replay_init(replay *r, const cache_geom *g, const repl_config *rc, uint64_t alloc_mask,
                uint64_t ddio_mask, ddio_err *e)
{
    memset(r, 0, sizeof *r);
    if (cache_geom_validate(g, "cache", e) != 0)
        return -1;
    uint64_t full = g->ways == 64 ? UINT64_MAX : (1ull << g->ways) - 1;
    if (!alloc_mask || (alloc_mask & ~full))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--alloc-mask: 0x%llx must select at least one of the %u ways",
                         (unsigned long long)alloc_mask, g->ways);
    if (!ddio_mask || (ddio_mask & ~full))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--ddio-mask: 0x%llx must select at least one of the %u ways",
                         (unsigned long long)ddio_mask, g->ways);
    if (cache_init(&r->c, g, rc, e) != 0)
        return -1;
    r->alloc_mask = alloc_mask;
    r->ddio_mask = ddio_mask;
    r->isa = replay_best_isa();
    r->nonfull_sets = r->c.nsets;
    return 0;
}

void replay_free(replay *r)
{
    cache_free(&r->c);
}

static void flush_all(replay *r)
{
    cache *c = &r->c;
    for (uint32_t s = 0; s < c->nsets; s++)
        for (uint32_t w = 0; w < c->ways; w++)
            if (cache_tags(c, s)[w] != CACHE_INVALID) {
                if (*cache_meta(c, s, w) == ST_M)
                    r->op[OP_FLUSH].writebacks++;
                cache_remove(c, s, w);
            }
    r->nonfull_sets = c->nsets;
}

int replay_access(replay *r, enum replay_op op, uint64_t addr)
{
    replay_counts *k = &r->op[op];
    k->accesses++;
    if (op == OP_FLUSH) {
        flush_all(r);
        return 0;
    }
    cache *c = &r->c;
    uint64_t line = addr >> c->map.line_shift;
    uint32_t set = cache_set(c, line);
    int way = cache_find(c, set, line);
    int writes = op == OP_WRITE || op == OP_PCIE_WR_FULL || op == OP_PCIE_WR_PART;
    if (way >= 0) {
        k->hits++;
        cache_hit(c, set, (uint32_t)way);
        if (writes)
            *cache_meta(c, set, (uint32_t)way) = ST_M;
        return 1;
    }
    k->misses++;
    if (op == OP_PCIE_RD) {       /* served from memory, no allocation */
        k->mem_reads++;
        return 0;
    }
    if (op != OP_PCIE_WR_FULL)    /* ItoM overwrites the whole line */
        k->mem_reads++;
    uint64_t mask = (op == OP_PCIE_WR_FULL || op == OP_PCIE_WR_PART) ? r->ddio_mask : r->alloc_mask;
    cache_evicted ev;
    cache_fill(c, set, mask, line, writes ? ST_M : ST_E, &ev);
    if (ev.line == CACHE_INVALID && *cache_valid(c, set) == c->full_mask)
        r->nonfull_sets--;   /* filled the set's last empty way */
    if (ev.line != CACHE_INVALID && ev.meta == ST_M)
        k->writebacks++;
    return 0;
}

#define PREFETCH_DISTANCE 8   /* replay_run's generic path */
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

/* The probe's way code (kernel_probe): the hit way (below 16), or
 * KERNEL_MISS_W plus something below 16 on a miss: bit 6 is the miss.  The
 * entry of the state and counter table is at 4 * code + the way's old
 * state: hits below 64, misses from 256. */
#define KERNEL_MISS_W 64u
#define KERNEL_ROW (4u * (KERNEL_MISS_W + 16u))

/* The kernel's block offsets as constants of its tag-slot count (cache_init
 * lays blocks out so for any ways in slots-3..slots; run_lru_kernel checks). */
#define KERNEL_META_OFF(slots) (8u + 8u * (slots))
#define KERNEL_REPL_OFF(slots) (KERNEL_META_OFF(slots) + (((slots) + 4u) & ~7u))
#define KERNEL_BLOCK_BYTES(slots) ((KERNEL_REPL_OFF(slots) + 8u + 63u) & ~63u)
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
    uint64_t const_words[2];            /* -LRU_ONES, LRU_HIGHS, opaque to GCC (see kernel_fast) */
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
     * table for kernel_ops_steady). */
    _Alignas(16) uint8_t steady_bytes[16];
    uint8_t op_state[OP_COUNT];         /* coherence state of a line each op fills */
    /* Row op, entry 4 * way code + state of the way before the access (a
     * hit: the line's; a miss: the victim's): the packed counter increment
     * (an access, a hit, a writeback) with the way's new state in its low
     * byte (see PACK_ACC). */
    uint64_t state_count[OP_COUNT][KERNEL_ROW];
    /* state_count[op]: a load where the op varies (a multiply by the row
     * size took four instructions). */
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

/* Line bits 11..21 (the index into the second slice-hash table); `bmi`
 * (the x86-64-v3 kernel): one bextr instead of a copy, a shift and a mask
 * (inline assembly: the function is inlined into the base kernel too). */
static inline __attribute__((always_inline)) uint64_t kernel_bits11(uint64_t line, const int bmi)
{
    _Static_assert(CACHE_XOR_TABLE_BITS == 11, "bextr control 0x0B0B: 11 bits from bit 11");
#if defined(__x86_64__) && defined(__GNUC__)
    if (bmi) {
        uint64_t r;
        __asm__("bextr %2, %1, %0" : "=r"(r) : "rm"(line), "r"((uint64_t)0x0B0B) : "cc");
        return r;
    }
#endif
    return (line >> CACHE_XOR_TABLE_BITS) & ((1u << CACHE_XOR_TABLE_BITS) - 1);
}

/* kernel_map for a whole batch with the xor mapping.  The slice hash is
 * linear over GF(2) (the XOR of each line bit's part), so when the batch's
 * lines agree above their low 22 bits (lines within one 2^22-line region:
 * 256 MiB of 64-byte lines, as a trace's working set mostly is), the hash
 * of those upper bits is computed once from the first line and each line
 * looks up only its low two chunks: 2 table lookups per access instead of
 * 4.  A batch whose lines spread further is mapped line by line. */
static inline __attribute__((always_inline)) void kernel_map_batch_xor(const kernel_env *ke, const uint64_t *addrs,
                                                                       uint8_t **pb, uint64_t (*pl)[2],
                                                                       const uint32_t slots, const int bmi)
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
    /* The lines are read back from the ring: else GCC computes every
     * access's table indices in the loop above and spills them. */
    __asm__("" : : : "memory");
    const uint64_t tk = (1u << CACHE_XOR_TABLE_BITS) - 1;
    const uint32_t hi = cache_xor_slice_hash(ke->map, first & ~((1ull << KERNEL_HASH_LOW_BITS) - 1));
#pragma GCC unroll 8
    for (size_t k = 0; k < KERNEL_BATCH; k++) {
        const uint64_t line = pl[k][0];
        const uint32_t h = ke->lfold32[0][line & tk] ^ ke->lfold32[1][kernel_bits11(line, bmi)] ^ hi;
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

/* One access (not a flush) of the kernel to the set block `blk`, or 0 when
 * it is one for kernel_step_general (nothing changed then).  A hit and the
 * steady-state miss (full set, every way allowed: the victim is the LRU
 * end) are one branch-free path, since whether an access hits is what a
 * branch predictor cannot guess: the way is the hit way or the victim, its
 * tag is rewritten (unchanged on a hit), its state and the counters come
 * from tables indexed by (op, hit, old state), and it moves to the front. */
/* Two x86-64 instructions GCC does not give the kernel by itself: a
 * conditional move for c ? a : b, which it compiles into a branch that a
 * 25-45 % hit rate mispredicts (the masks of the fallback cost 4
 * instructions), and a count of trailing zeros as a 64-bit index (tzcnt, a
 * bsf where BMI1 is missing: the same for x != 0), which it sign-extends
 * from int. */
__attribute__((unused))   /* no caller left: clang -Werror rejects it otherwise */
static inline uint64_t kernel_select(uint64_t c, uint64_t a, uint64_t b)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("test %1, %1\n\tcmovnz %2, %0" : "+r"(b) : "r"(c), "rm"(a) : "cc");
    return b;
#else
    return b ^ ((a ^ b) & (0 - (uint64_t)(c != 0)));
#endif
}

/* kernel_ctz of x as *w, and *miss: all ones if x is 0, else 0 (tzcnt sets
 * the carry flag for a zero source, sbb spreads it). */
__attribute__((unused))   /* used by the x86-64-v3 kernel only, which clang does not build */
static inline void kernel_ctz_miss(uint64_t x, uint64_t *w, uint64_t *miss)
{
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t r, c;
    __asm__("tzcnt %2, %0\n\tsbb %1, %1" : "=r"(r), "=r"(c) : "rm"(x) : "cc");
    *w = r;
    *miss = c;
#else
    *w = x ? (uint64_t)__builtin_ctzll(x) : 64;
    *miss = 0 - (uint64_t)(x == 0);
#endif
}

static inline uint64_t kernel_ctz(uint64_t x)
{
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t r;
    __asm__("tzcnt %1, %0" : "=r"(r) : "rm"(x) : "cc");
    return r;
#else
    return (uint64_t)__builtin_ctzll(x);
#endif
}

/* x << 4 as a multiply: one instruction with its own destination, where
 * the shift needs a copy of x first (x is used again).  The multiply's
 * latency is that of the zero-field search beside it. */
static inline uint64_t kernel_times16(uint64_t x)
{
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t y;
    __asm__("imul $16, %1, %0" : "=r"(y) : "rm"(x) : "cc");
    return y;
#else
    return x << 4;
#endif
}

/* cache_match_candidates for the kernel: bits past `slots` may be set too
 * (copies of lower ones: the last group of 4 or 8 is packed with itself
 * rather than with zeros), which neither the first candidate below the
 * last slot nor "any candidate" depends on. */
static inline __attribute__((always_inline)) uint64_t kernel_candidates(const uint64_t *t, const uint32_t slots,
                                                                        const uint64_t *lslot)
{
    const uint64_t line = lslot[0];
#ifdef __SSE2__
    if (slots <= 12) {
        /* The key from the line's 16-byte slot: one shuffle with its load. */
        const __m128i key = _mm_shuffle_epi32(_mm_load_si128((const __m128i *)(const void *)lslot), 0);
        const __m128i e0 = cache_match_lo4(t, key);
        const __m128i e1 = slots > 4 ? cache_match_lo4(t + 4, key) : e0;
        const __m128i p01 = _mm_packs_epi32(e0, e1);
        const __m128i e2 = slots > 8 ? cache_match_lo4(t + 8, key) : e0;
        const __m128i p2 = slots > 8 ? _mm_packs_epi32(e2, e2) : p01;
        return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(p01, p2));
    }
#endif
    return cache_match_candidates(t, slots, line);
}

/* The x86-64-v3 build of the kernel (run_lru_kernel_v3, GCC 12 or later on
 * x86-64: the target attribute and __builtin_cpu_supports("x86-64-v3")). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define KERNEL_X86_64_V3 1

/* The ways of `slots` tags at t (32-byte aligned) that hold the line at
 * *lslot: full 64-bit compares, 4 tags per AVX2 vpcmpeqq, so no candidate
 * needs verifying.  Inline assembly: the function is also inlined into the
 * base build's kernel, where the AVX2 intrinsics could not be (only the
 * x86-64-v3 kernel executes it).  Empty ways and padding slots hold
 * CACHE_INVALID, which no line number equals (lines are addresses shifted
 * right by at least 4 bits). */
static inline __attribute__((always_inline)) uint64_t kernel_match_avx2(const uint64_t *t, const uint32_t slots,
                                                                        const uint64_t *lslot)
{
    typedef struct { uint64_t q[4]; } tags4;
    const tags4 *g = (const tags4 *)(const void *)t;
    uint32_t m0, m1 = 0, m2 = 0, m3 = 0;
    if (slots == 4)
        __asm__("vpbroadcastq %[key], %%ymm15\n\t"
                "vpcmpeqq %[t0], %%ymm15, %%ymm15\n\t"
                "vmovmskpd %%ymm15, %[m0]"
                : [m0] "=r"(m0) : [key] "m"(*lslot), [t0] "m"(g[0]) : "xmm15");
    else if (slots == 8)
        __asm__("vpbroadcastq %[key], %%ymm15\n\t"
                "vpcmpeqq %[t0], %%ymm15, %%ymm14\n\t"
                "vpcmpeqq %[t1], %%ymm15, %%ymm15\n\t"
                "vmovmskpd %%ymm14, %[m0]\n\t"
                "vmovmskpd %%ymm15, %[m1]"
                : [m0] "=r"(m0), [m1] "=r"(m1) : [key] "m"(*lslot), [t0] "m"(g[0]), [t1] "m"(g[1])
                : "xmm14", "xmm15");
    else if (slots == 12)
        __asm__("vpbroadcastq %[key], %%ymm15\n\t"
                "vpcmpeqq %[t0], %%ymm15, %%ymm13\n\t"
                "vpcmpeqq %[t1], %%ymm15, %%ymm14\n\t"
                "vpcmpeqq %[t2], %%ymm15, %%ymm15\n\t"
                "vmovmskpd %%ymm13, %[m0]\n\t"
                "vmovmskpd %%ymm14, %[m1]\n\t"
                "vmovmskpd %%ymm15, %[m2]"
                : [m0] "=r"(m0), [m1] "=r"(m1), [m2] "=r"(m2)
                : [key] "m"(*lslot), [t0] "m"(g[0]), [t1] "m"(g[1]), [t2] "m"(g[2])
                : "xmm13", "xmm14", "xmm15");
    else
        __asm__("vpbroadcastq %[key], %%ymm15\n\t"
                "vpcmpeqq %[t0], %%ymm15, %%ymm12\n\t"
                "vpcmpeqq %[t1], %%ymm15, %%ymm13\n\t"
                "vpcmpeqq %[t2], %%ymm15, %%ymm14\n\t"
                "vpcmpeqq %[t3], %%ymm15, %%ymm15\n\t"
                "vmovmskpd %%ymm12, %[m0]\n\t"
                "vmovmskpd %%ymm13, %[m1]\n\t"
                "vmovmskpd %%ymm14, %[m2]\n\t"
                "vmovmskpd %%ymm15, %[m3]"
                : [m0] "=r"(m0), [m1] "=r"(m1), [m2] "=r"(m2), [m3] "=r"(m3)
                : [key] "m"(*lslot), [t0] "m"(g[0]), [t1] "m"(g[1]), [t2] "m"(g[2]), [t3] "m"(g[3])
                : "xmm12", "xmm13", "xmm14", "xmm15");
    return m0 | m1 << 4 | m2 << 8 | (uint64_t)m3 << 12;
}
#endif

/* The first half of kernel_fast: the way code `*wm` (KERNEL_MISS_W: the
 * way that holds the line if any, else 64 or more), and whether the access
 * is one for kernel_step_general (nonzero: a miss that is not the steady
 * case); `op_full` is ke->op_full of the op.  `exact` (the x86-64-v3
 * kernel): full-tag compares instead of candidates on the low 32 bits and a
 * check of the first one. */
static inline __attribute__((always_inline)) uint64_t kernel_probe(uint64_t op_full, const uint64_t *lslot,
                                                                   const uint8_t *blk, const uint32_t slots,
                                                                   const int exact, const int full, uint64_t *wm)
{
    const uint64_t *tags = (const uint64_t *)(const void *)blk, *valid = tags + slots;
    uint64_t miss;
#ifdef KERNEL_X86_64_V3
    if (exact) {
        /* The match itself (at most one way holds a line): on a miss the
         * code is tzcnt's 64; a miss is the steady case if the set is full
         * and the op may use every way. */
        const uint64_t m = kernel_match_avx2(tags, slots, lslot);
        if (full) {   /* every miss is the steady case */
            *wm = kernel_ctz(m);
            return 0;
        }
        kernel_ctz_miss(m, wm, &miss);
        return (*valid ^ op_full) & miss;
    }
#endif
    const uint64_t cand = kernel_candidates(tags, slots, lslot);
    /* The first candidate, or the last slot when there is none: that slot
     * does not hold `line` then (it would be a candidate). */
    const uint64_t w = kernel_ctz(cand | (1ull << (slots - 1)));
    miss = 0 - (uint64_t)(tags[w] != lslot[0]);
    *wm = w | (miss & KERNEL_MISS_W);
    /* A miss leaves the fast path unless the set is full, the op may use
     * every way (op_full) and no way other than w can hold the line (no
     * candidate at all: a candidate that is not the line may hide a second
     * one; a padding slot that is a candidate sends the access to the
     * general path too, correctly). */
    const uint64_t unsteady = full ? cand : (*valid ^ op_full) | cand;
    return unsteady & miss;
}

/* The way of code wm if it is a hit, else `victim` (a conditional move:
 * see kernel_select). */
static inline uint64_t kernel_select_way(uint64_t wm, uint64_t victim)
{
#if defined(__x86_64__) && defined(__GNUC__)
    _Static_assert(KERNEL_MISS_W == 64, "test $64");
    __asm__("test $64, %1\n\tcmovz %1, %0" : "+r"(victim) : "r"(wm) : "cc");
    return victim;
#else
    return wm & KERNEL_MISS_W ? victim : wm;
#endif
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
    const uint64_t way = kernel_select_way(wm, kernel_victim(ke, blk, o, slots, cways));
    const uint32_t old = meta[way];
    KERNEL_CHECK(way < ke->ways && old <= ST_M && wm < KERNEL_ROW / 4);
    const uint64_t e = row[4 * wm + old];
    meta[way] = (uint8_t)e;
    *packed += e;
    tags[way] = line;
    /* lru_order_to_mru_spread with its two 64-bit constants read from
     * memory: as immediates they take two movabs per access, the kernel
     * having no register left for them.  With x = o ^ spread (way in every
     * field), (o << 4) | way = (x << 4) ^ spread, so the fields 0..pos of
     * the new order are those of o ^ x ^ (x << 4). */
    const uint64_t x = o ^ ke->spread[way];
    const uint64_t z = (x + ke->const_words[0]) & ~x & ke->const_words[1];
    const uint64_t upto = z ^ (z - 1);
    *order = o ^ ((x ^ kernel_times16(x)) & upto);
}

/* One access (not a flush) of the kernel to the set block `blk`, or 0 when
 * it is one for kernel_step_general (nothing changed then).  A hit and the
 * steady-state miss (full set, every way allowed: the victim is the LRU
 * end) are one branch-free path, since whether an access hits is what a
 * branch predictor cannot guess. */
static inline __attribute__((always_inline)) int kernel_fast(kernel_env *ke, uint32_t op, const uint64_t *lslot,
                                                             uint8_t *blk, const uint32_t slots, const uint32_t cways,
                                                             const int exact, size_t k)
{
    uint64_t wm;
    if (__builtin_expect(kernel_probe(ke->op_full[op], lslot, blk, slots, exact, 0, &wm) != 0, 0))
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
                                                                   const int exact, size_t a, const int uniform,
                                                                   uint32_t uop, const int full)
{
    uint64_t w0, w1, w2, w3;
#define KERNEL_OP(I) (uniform ? uop : ops[a + (I)])
#define KERNEL_OP_FULL(I) (ke->op_full[KERNEL_OP(I)])
    uint64_t bad = kernel_probe(KERNEL_OP_FULL(0), lslot[a], blk[a], slots, exact, full, &w0) |
                   kernel_probe(KERNEL_OP_FULL(1), lslot[a + 1], blk[a + 1], slots, exact, full, &w1) |
                   kernel_probe(KERNEL_OP_FULL(2), lslot[a + 2], blk[a + 2], slots, exact, full, &w2) |
                   kernel_probe(KERNEL_OP_FULL(3), lslot[a + 3], blk[a + 3], slots, exact, full, &w3);
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
    /* The ops and lines are read again rather than kept in registers
     * through the probes (GCC spilled them). */
    __asm__("" : : : "memory");
#define KERNEL_UPDATE_AT(I, W)                                                                              \
    kernel_update(ke, uniform ? ke->state_count[uop] : ke->state_row[ops[a + (I)]],                              \
                  &ke->packed[a + (I)][KERNEL_OP(I)], lslot[a + (I)][0],                                        \
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
                                                             const int exact, size_t k)
{
    assert(op < OP_COUNT);
    if (op == OP_FLUSH)
        return 0;
    return kernel_fast(ke, op, lslot, blk, slots, cways, exact, k);
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
#define KERNEL_FAST_GROUP_AT(K, U, UOP, F)                                        \
    case K:                                                                    \
        if (!kernel_fast_group(ke, bops, bl, bb, slots, cways, exact, K, U, UOP, F)) {           \
            k = K;                                                             \
            break;                                                             \
        }                                                                      \
        __attribute__((fallthrough));
#define KERNEL_PLAIN_BATCH(U, UOP, F)                                                                     \
    do {                                                                                               \
        for (;;) {                                                                                     \
            switch (k) {                                                                               \
            KERNEL_FAST_GROUP_AT(0, U, UOP, F)                                                            \
            KERNEL_FAST_GROUP_AT(4, U, UOP, F)                                                            \
            case KERNEL_BATCH:                                                                         \
                k = KERNEL_BATCH;                                                                      \
                break;                                                                                 \
            default:                                                                                   \
                __builtin_unreachable();                                                               \
            }                                                                                          \
            if (k == KERNEL_BATCH)                                                                     \
                break;                                                                                 \
            for (size_t e = k + KERNEL_GROUP; k < e; k++)                                              \
                if (!kernel_fast(ke, bops[k], bl[k], bb[k], slots, cways, exact, k))                             \
                    kernel_step_general(ke, bops[k], bl[k][0], bb[k], slots);                          \
            if (k == KERNEL_BATCH)                                                                     \
                break;                                                                                 \
        }                                                                                              \
    } while (0)
_Static_assert(KERNEL_BATCH == 8 && KERNEL_GROUP == 4, "KERNEL_PLAIN_BATCH: groups at 0 and 4");

/* Whether the 8 plain ops at `ops` (in range: kernel_ops_plain) are all in
 * ke->steady_ops, so that a mixed batch can skip the steady-miss test
 * too.  Only in the x86-64-v3 kernel (`ssse3`): one byte shuffle of the
 * ops through steady_bytes, in inline assembly (see kernel_match_avx2);
 * else 0 (the batch takes the general test). */
static inline __attribute__((always_inline)) int kernel_ops_steady(const kernel_env *ke, const uint8_t *ops,
                                                                   const int ssse3)
{
#ifdef KERNEL_X86_64_V3
    if (ssse3) {
        typedef struct { uint8_t b[8]; } ops8;
        typedef struct { uint8_t b[16]; } bytes16;
        uint32_t m;
        __asm__("vmovq %[ops], %%xmm14\n\t"
                "vmovdqa %[tab], %%xmm15\n\t"
                "vpshufb %%xmm14, %%xmm15, %%xmm15\n\t"
                "vpmovmskb %%xmm15, %[m]"
                : [m] "=r"(m)
                : [ops] "m"(*(const ops8 *)(const void *)ops), [tab] "m"(*(const bytes16 *)(const void *)ke->steady_bytes)
                : "xmm14", "xmm15");
        return (m & 0xFF) == 0xFF;
    }
#endif
    (void)ke;
    (void)ops;
    return 0;
}

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
                                                               const uint32_t cways, const int exact)
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
        if (kernel_ops_steady(ke, bops, exact))
            KERNEL_PLAIN_BATCH(0, 0, 1);
        else
            KERNEL_PLAIN_BATCH(0, 0, 0);
    } else {
        while (k < m) {
            for (; k < m; k++)
                if (!kernel_step(ke, bops[k], bl[k], bb[k], slots, cways, exact, k))
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
           const uint32_t cways, const int xor_map, const int exact)
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
    ke.const_words[0] = 0 - LRU_ONES;
    ke.const_words[1] = LRU_HIGHS;
    /* GCC cannot see through the asm, so it reads the words where they are
     * used instead of materialising the constants. */
    __asm__("" : : "r"(ke.const_words) : "memory");
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
    /* Line numbers, one per 16-byte slot (kernel_candidates); the upper half
     * of each slot is not used. */
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
            kernel_map_batch_xor(&ke, addrs + j + KERNEL_AHEAD * KERNEL_BATCH, blk[ab], line[ab], slots, exact);
        } else {
#pragma GCC unroll 8
            for (size_t k = 0; k < KERNEL_BATCH; k++)
                kernel_map(&ke, addrs[j + KERNEL_AHEAD * KERNEL_BATCH + k], &blk[ab][k], &line[ab][k][0], slots, 0);
        }
        kernel_batch(&ke, ops + j, line[b % KERNEL_RING], blk[b % KERNEL_RING], KERNEL_BATCH, slots, cways, exact);
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
        kernel_batch(&ke, ops + j, line[b % KERNEL_RING], blk[b % KERNEL_RING], m, slots, cways, exact);
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

/* The kernel's instances, by tag-slot count, way count and mapping. */
static inline __attribute__((always_inline)) uint64_t run_lru_kernel_any(replay *r, const uint8_t *ops,
                                                                         const uint64_t *addrs, size_t n,
                                                                         const int exact)
{
    assert(r->c.meta_off == KERNEL_META_OFF(r->c.tag_slots) && r->c.repl_off == KERNEL_REPL_OFF(r->c.tag_slots) &&
           r->c.block_bytes == KERNEL_BLOCK_BYTES(r->c.tag_slots));
    /* More slices than slice_base holds: the mapping through cache_mapper_set. */
    const int x = r->c.map.kind == MAP_XOR && r->c.map.slices <= KERNEL_MAX_SLICES;
    switch (r->c.tag_slots) {
    case 4: return x ? lru_kernel(r, ops, addrs, n, 4, 0, 1, exact) : lru_kernel(r, ops, addrs, n, 4, 0, 0, exact);
    case 8: return x ? lru_kernel(r, ops, addrs, n, 8, 0, 1, exact) : lru_kernel(r, ops, addrs, n, 8, 0, 0, exact);
    case 12:
        /* 11 ways (the Skylake-SP LLC) with the victim's shift a constant. */
        if (x && r->c.ways == 11)
            return lru_kernel(r, ops, addrs, n, 12, 11, 1, exact);
        return x ? lru_kernel(r, ops, addrs, n, 12, 0, 1, exact) : lru_kernel(r, ops, addrs, n, 12, 0, 0, exact);
    default:
        assert(r->c.tag_slots == 16);
        return x ? lru_kernel(r, ops, addrs, n, 16, 0, 1, exact) : lru_kernel(r, ops, addrs, n, 16, 0, 0, exact);
    }
}

static uint64_t run_lru_kernel(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
    return run_lru_kernel_any(r, ops, addrs, n, 0);
}

/* The same kernel compiled for x86-64-v3 (GCC 12 or later on x86-64: the
 * target attribute and __builtin_cpu_supports("x86-64-v3")), chosen at run
 * time: three-operand VEX forms, andn, blsmsk, shrx and the like take
 * about 5 instructions per access fewer (docs/performance.md); the base
 * build of the project stays plain x86-64. */
#ifdef KERNEL_X86_64_V3
__attribute__((target("arch=x86-64-v3"))) static uint64_t run_lru_kernel_v3(replay *r, const uint8_t *ops,
                                                                            const uint64_t *addrs, size_t n)
{
    const uint64_t hits = run_lru_kernel_any(r, ops, addrs, n, 1);
    /* kernel_match_avx2 leaves the upper halves of ymm12-15 set, which GCC
     * does not know of: clear them for the caller's SSE code. */
    __asm__ volatile("vzeroupper" : : : "xmm12", "xmm13", "xmm14", "xmm15");
    return hits;
}
#endif

enum replay_isa replay_best_isa(void)
{
#ifdef KERNEL_X86_64_V3
    if (__builtin_cpu_supports("x86-64-v3"))
        return REPLAY_ISA_X86_64_V3;
#endif
    return REPLAY_ISA_BASE;
}

uint64_t replay_run(replay *r, const uint8_t *ops, const uint64_t *addrs, size_t n)
{
    /* The kernel tells blocks apart by the low 32 bits of their addresses. */
    if (r->c.repl->ops == &repl_lru_ops && r->c.ways <= LRU_ORDER_MAX_WAYS &&
        (uint64_t)r->c.nsets * r->c.block_bytes <= (1ull << 32)) {
#ifdef KERNEL_X86_64_V3
        if (r->isa == REPLAY_ISA_X86_64_V3)
            return run_lru_kernel_v3(r, ops, addrs, n);
#endif
        return run_lru_kernel(r, ops, addrs, n);
    }
    uint64_t hits = 0;
    uint32_t shift = r->c.map.line_shift;
    for (size_t i = 0; i < n; i++) {
        if (i + PREFETCH_DISTANCE < n)
            cache_prefetch(&r->c, addrs[i + PREFETCH_DISTANCE] >> shift);
        hits += (uint64_t)replay_access(r, (enum replay_op)ops[i], addrs[i]);
    }
    return hits;
}

replay_counts replay_total(const replay *r)
{
    replay_counts t = {0};
    for (int i = 0; i < OP_COUNT; i++) {
        if (i == OP_FLUSH) {
            t.writebacks += r->op[i].writebacks;
            continue;
        }
        t.accesses += r->op[i].accesses;
        t.hits += r->op[i].hits;
        t.misses += r->op[i].misses;
        t.mem_reads += r->op[i].mem_reads;
        t.writebacks += r->op[i].writebacks;
    }
    return t;
}
