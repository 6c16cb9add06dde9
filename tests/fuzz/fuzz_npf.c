/* fuzz_npf.c - libFuzzer target: the input is an NPF result file for
 * vd_npf_read() (validate/measure.h; the checks: tests/fuzz/fuzz_entries.c). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_npf(data, size);
}
