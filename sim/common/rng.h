/* rng.h - small deterministic PRNG (xoshiro256**, seeded by splitmix64).
 *
 * Every random choice in ddiosim draws from an explicit `ddio_rng` owned by
 * the caller, so results depend only on the seed, never on thread count or
 * wall clock. */
#ifndef DDIOSIM_COMMON_RNG_H
#define DDIOSIM_COMMON_RNG_H

#include <stdint.h>

typedef struct ddio_rng {
    uint64_t s[4];
} ddio_rng;

void ddio_rng_seed(ddio_rng *r, uint64_t seed);

static inline uint64_t ddio_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t ddio_rng_next(ddio_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = ddio_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ddio_rng_rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1). */
static inline double ddio_rng_uniform(ddio_rng *r)
{
    return (double)(ddio_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, bias < 2^-64*n). */
static inline uint64_t ddio_rng_below(ddio_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)ddio_rng_next(r) * n) >> 64);
}

#endif
