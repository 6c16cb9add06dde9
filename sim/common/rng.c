/* rng.c - the deterministic PRNG every random choice draws from (rng.h):
 * xoshiro256**, seeded by splitmix64. */
#include "sim/common/rng.h"
#include "sim/common/hash.h"

void ddio_rng_seed(ddio_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        x += 0x9E3779B97F4A7C15ull;
        r->s[i] = ddio_mix64(x);
    }
}
