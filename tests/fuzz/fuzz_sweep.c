/* fuzz_sweep.c - libFuzzer target: the input is a sweep spec or an advise
 * query (sim/explore/sweep.h, sim/explore/advise.h; the checks:
 * tests/fuzz/fuzz_entries.c). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sweep(data, size);
}
