/* fuzz_results.c - libFuzzer target: the input is a sweep results file
 * (the readers of `plot` and of `sweep --resume`, sim/explore/sweep.h; the checks:
 * tests/fuzz/fuzz_entries.c). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_results(data, size);
}
