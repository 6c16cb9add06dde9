/* fuzz_experiment.c - libFuzzer target: the input is the experiment.json of
 * a folder for vd_experiment_load() (validate/experiment.h; the checks:
 * tests/fuzz/fuzz_entries.c). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_experiment(data, size);
}
