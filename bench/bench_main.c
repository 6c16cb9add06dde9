/* bench_main.c - `make bench`: ddiosim's performance figures.
 *
 * Each figure is reported next to a baseline measured in the same process,
 * so the ratio is meaningful on a shared, noisy machine. */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int rc = 0;
    if (!only || strcmp(only, "cache") == 0)
        rc |= bench_cache();
    if (!only || strcmp(only, "sim") == 0)
        rc |= bench_sim();
    if (!only || strcmp(only, "model") == 0)
        rc |= bench_model();
    return rc;
}
