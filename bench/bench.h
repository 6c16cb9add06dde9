/* bench.h - `make bench`: every figure is printed in a table next to a
 * baseline measured in the same process, and recorded for
 * bench/results.json. */
#ifndef DDIOSIM_BENCH_H
#define DDIOSIM_BENCH_H

struct cJSON;

double bench_now(void);
double bench_cpu_now(void);

/* Record one figure under out[section]: its value and unit and the
 * baseline it is compared with (NULL: none), with their ratio. */
void bench_record(struct cJSON *out, const char *section, const char *name, double value, const char *unit,
                  const char *baseline, double baseline_value);

int bench_cache(struct cJSON *out);
int bench_sim(struct cJSON *out);
int bench_model(struct cJSON *out);
int bench_sweep(struct cJSON *out);

#endif
