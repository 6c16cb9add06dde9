/* fuzz_pcap.c - libFuzzer target: the input is a pcap / pcapng file for
 * traces/pcap.h and one raw frame for trace_parse_frame() (the checks:
 * tests/fuzz/fuzz_entries.c). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_pcap(data, size);
}
