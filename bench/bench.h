#ifndef DDIOSIM_BENCH_H
#define DDIOSIM_BENCH_H

double bench_now(void);
double bench_cpu_now(void);
int bench_cache(void);
int bench_sim(void);
int bench_model(void);

#endif
