/* hash.h - 64-bit bijective mixers.
 *
 * ddio_mix64 is the splitmix64 finalizer; it is a permutation of the 64-bit
 * integers, so `ddio_unmix64(ddio_mix64(x)) == x`.  The cache's `random`
 * set mapping relies on that to recover a line address from (set, tag). */
#ifndef DDIOSIM_COMMON_HASH_H
#define DDIOSIM_COMMON_HASH_H

#include <stdint.h>

static inline uint64_t ddio_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t ddio_unshift_xor(uint64_t y, int s)
{
    uint64_t x = y;
    for (int i = s; i < 64; i += s)
        x = y ^ (x >> s);
    return x;
}

static inline uint64_t ddio_unmix64(uint64_t z)
{
    /* Modular inverses of the two multipliers mod 2^64. */
    z = ddio_unshift_xor(z, 31);
    z *= 0x319642B2D24D8EC3ull;
    z = ddio_unshift_xor(z, 27);
    z *= 0x96DE1B173F119089ull;
    return ddio_unshift_xor(z, 30);
}

#endif
