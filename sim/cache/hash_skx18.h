/* hash_skx18.h - the published LLC slice hash of 18-slice Skylake-SP /
 * Cascade Lake Xeons (McCalpin, "Mapping Addresses to L3/CHA Slices in Intel
 * Processors", TACC TR-2021-03, 2021), the `skx18` set mapping.
 *
 *   slice(PA) = skx18_base[((PA >> 6) & 4095) XOR p(PA)],
 *   bit k of p(PA) = parity(PA & skx18_masks[k]),
 *
 * valid for physical addresses below 2^38 (256 GiB), which the masks cover.
 * A 256 KiB block gives slices 0-15 232 lines each and slices 16-17 192. */
#ifndef DDIOSIM_CACHE_HASH_SKX18_H
#define DDIOSIM_CACHE_HASH_SKX18_H

#include <stdint.h>

#define SKX18_BASE_LEN 4096
#define SKX18_PERM_BITS 12
#define SKX18_PA_BITS 38

extern const uint8_t skx18_base[SKX18_BASE_LEN];
extern const uint64_t skx18_masks[SKX18_PERM_BITS];

#endif
