/* bench_main.c - `make bench`: ddiosim's performance figures.
 *
 * Each figure is reported next to a baseline measured in the same process,
 * so the ratio is meaningful on a shared, noisy machine.  The tables go to
 * stdout; every figure also to bench/results.json (written whole).
 * `ddiosim_bench SECTION` runs one section: cache, sim, model or sweep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"

void bench_record(cJSON *out, const char *section, const char *name, double value, const char *unit,
                  const char *baseline, double baseline_value)
{
    if (!out)
        return;
    cJSON *s = cJSON_GetObjectItemCaseSensitive(out, section);
    if (!s)
        s = cJSON_AddArrayToObject(out, section);
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "name", name);
    cJSON_AddNumberToObject(f, "value", value);
    cJSON_AddStringToObject(f, "unit", unit);
    if (baseline) {
        cJSON_AddStringToObject(f, "baseline", baseline);
        cJSON_AddNumberToObject(f, "baseline_value", baseline_value);
        if (baseline_value != 0)
            cJSON_AddNumberToObject(f, "ratio", value / baseline_value);
    }
    cJSON_AddItemToArray(s, f);
}

/* bench/results.json of the source tree, through a temporary file. */
static int write_results(const cJSON *out)
{
    const char *path = DDIOSIM_SOURCE_DIR "/bench/results.json";
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    char *text = cJSON_Print(out);
    FILE *f = text ? fopen(tmp, "w") : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = f && fclose(f) == 0 && ok;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        fprintf(stderr, "bench: cannot write %s\n", path);
        return 1;
    }
    printf("\nbench: the figures are in %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    cJSON *out = cJSON_CreateObject();
    int rc = 0;
    if (!only || strcmp(only, "cache") == 0)
        rc |= bench_cache(out);
    if (!only || strcmp(only, "sim") == 0)
        rc |= bench_sim(out);
    if (!only || strcmp(only, "model") == 0)
        rc |= bench_model(out);
    if (!only || strcmp(only, "sweep") == 0)
        rc |= bench_sweep(out);
    rc |= write_results(out);
    cJSON_Delete(out);
    return rc;
}
