/* fuzz_config.c - libFuzzer target: the input is a machine or workload JSON
 * file for configs/config.h (the checks: tests/fuzz/fuzz_entries.c). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_config(data, size);
}
