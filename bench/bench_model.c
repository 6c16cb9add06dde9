/* bench_model.c - Markov model solve time per variant (basic, per-line,
 * per-core x per-line), best of several solves, the queue lengths fixed so
 * every variant solves the same chain.  Baseline in the same process: one
 * LU solve of a 64-state column-stochastic system (the unit the model's
 * fixed point repeats). */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "configs/config.h"
#include "sim/common/rng.h"
#include "sim/markov/predict.h"
#include "sim/markov/solve.h"

static double lu_baseline(void)
{
    enum { N = 64 };
    double *P = malloc(sizeof(double) * N * N), x[N];
    ddio_rng rng;
    ddio_rng_seed(&rng, 3);
    for (int j = 0; j < N; j++) {
        double s = 0;
        for (int i = 0; i < N; i++)
            s += P[i * N + j] = ddio_rng_uniform(&rng);
        for (int i = 0; i < N; i++)
            P[i * N + j] /= s;
    }
    double best = 1e9;
    for (int k = 0; k < 20; k++) {
        mk_solve_info info;
        ddio_err e;
        double t0 = bench_now();
        mk_stationary_lu(P, N, 1e-9, x, &info, &e);
        double t = bench_now() - t0;
        if (t < best)
            best = t;
    }
    free(P);
    return best;
}

static int solve_case(cJSON *out, const char *label, uint32_t cores, enum mk_variant v, double base)
{
    ddio_config cfg;
    ddio_config_args a;
    ddio_config_args_init(&a);
    ddio_err e;
    if (ddio_config_resolve(&a, &cfg, NULL, &e) != 0)
        return fprintf(stderr, "bench: %s\n", e.msg), 1;
    cfg.workload.cores = cores;
    mk_traffic t;
    if (mk_traffic_from_source(&t, &(dsim_source){.trace = DDIOSIM_SOURCE_DIR "/traces/samples/mawi-64k.pcap"}, 0, 1, cores, 0, &e) != 0)
        return fprintf(stderr, "bench: %s\n", e.msg), 1;
    double *q = calloc((size_t)cores * Q_COUNT, sizeof(double));
    for (uint32_t c = 0; c < cores; c++) {
        q[c * Q_COUNT + Q_RX] = 200;
        q[c * Q_COUNT + Q_RX_REPLENISH] = 40;
        q[c * Q_COUNT + Q_TX] = 20;
        q[c * Q_COUNT + Q_TX_RECYCLE] = 15;
    }
    mk_predict_opts o;
    mk_predict_opts_default(&o);
    o.variant = v;
    o.queues = q;
    double best = 1e9;
    int iters = 0, solves = 0;
    for (int k = 0; k < 5; k++) {
        mk_prediction p;
        if (mk_predict(&cfg, &t, &o, &p, &e) != 0) {
            fprintf(stderr, "bench: %s\n", e.msg);
            break;
        }
        if (p.solve_seconds < best)
            best = p.solve_seconds;
        iters = p.iterations;
        solves = p.solves;
    }
    printf("%-34s %10.3f ms %8d %8d %10.0fx\n", label, best * 1e3, iters, solves, best / base);
    bench_record(out, "model_solve_seconds", label, best, "s", "one 64-state LU solve", base);
    free(q);
    mk_traffic_free(&t);
    return 0;
}

int bench_model(cJSON *out)
{
    double base = lu_baseline();
    printf("\nMarkov model: skylake-6140, l2fwd, MAWI-style sizes, queues RX 200 / RXR 40 / TX 20 / TXR 15 (best of 5)\n");
    printf("%-34s %13s %8s %8s %11s\n", "variant", "solve time", "iters", "chains", "vs one LU");
    printf("%-34s %10.3f ms\n", "baseline: one 64-state LU solve", base * 1e3);
    int rc = 0;
    rc |= solve_case(out, "basic, 1 core", 1, MK_VARIANT_BASIC, base);
    rc |= solve_case(out, "per-line, 1 core", 1, MK_VARIANT_PER_LINE, base);
    rc |= solve_case(out, "per-core x per-line, 18 cores", 18, MK_VARIANT_PER_CORE, base);
    return rc;
}
