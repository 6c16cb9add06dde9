/* test_validate_guard.c - the accuracy regression guard: `ddiosim validate`
 * on every shipped experiment, both engines, must stay within limits set
 * just above the accuracy the project had when they were set.  A change that
 * makes an engine less accurate on the measured hardware fails here; one
 * that makes it more accurate should lower the limits (docs/validation.md,
 * "The regression guard").
 *
 * Overall MAE when the limits were set (300 000 packets per point, seed 1,
 * five experiments, 63 points): simulator 4.06 (write) / 2.50 (read),
 * model 4.38 / 2.63 points.  They rose from 2.8 / 2.1 and 2.3 / 2.2 on four
 * experiments when `cores-vs-ways` joined and the experiments stopped
 * describing the generator as sending flow bursts it does not send
 * (FastClick's FastUDPFlows draws a flow per packet): the earlier figures
 * rested on that mistake.  The multi-core mechanisms of docs/validation.md
 * are what is to bring them down again.
 *
 * The queues are guarded too, by what was measured besides the hit rates:
 * the forwarding rate (simulator and model 1.47 % off on average, 45 of the
 * 63 points within 2 %) and the mean latency's excess over the fastest
 * point on `cores` and `cores-vs-ways` (18 of their 22 points within 25 %
 * or 50 us, both engines). */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/helpers.h"

/* The evidence block's rate and latency figures of one engine. */
static void queue_figures(const cJSON *ev, const char *engine, double *rate_mean, int *rate_ok, int *lat_ok,
                          int *lat_n)
{
    double sum = 0;
    int n = 0;
    *rate_ok = *lat_ok = *lat_n = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, ev)
    {
        const cJSON *mp = cJSON_GetObjectItem(p, "mpps"), *lt = cJSON_GetObjectItem(p, "latency_excess_us");
        double m = cJSON_GetObjectItem(mp, "measured")->valuedouble, v = cJSON_GetObjectItem(mp, engine)->valuedouble;
        double err = fabs(v - m) / m * 100;
        sum += err;
        n++;
        *rate_ok += err <= 2;
        const char *x = cJSON_GetObjectItem(p, "experiment")->valuestring;
        if (strcmp(x, "cores") != 0 && strcmp(x, "cores-vs-ways") != 0)
            continue;
        double lm = cJSON_GetObjectItem(lt, "measured")->valuedouble, lv = cJSON_GetObjectItem(lt, engine)->valuedouble;
        double tol = fabs(lm) * 0.25 > 50 ? fabs(lm) * 0.25 : 50;
        *lat_ok += fabs(lv - lm) <= tol;
        (*lat_n)++;
    }
    *rate_mean = n ? sum / n : NAN;
    cr_expect_eq(n, 63);
}

Test(validate_guard, shipped_experiments_stay_within_the_accuracy_limits, .timeout = 1800)
{
    cli_run r = run_ddiosim("validate --jobs 2 --format json"
                            " --max-mae sim:pcie_write_hit=4.2 --max-mae sim:pcie_read_hit=2.6"
                            " --max-mae model:pcie_write_hit=4.5 --max-mae model:pcie_read_hit=2.7");
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_empty(r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    /* Every measured point and metric is there: 63 points x 2 metrics. */
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "points")), 63 * 2);
    const cJSON *ev = cJSON_GetObjectItem(j, "evidence");
    const char *engines[2] = {"sim", "model"};
    for (int k = 0; k < 2; k++) {
        double rate;
        int rate_ok, lat_ok, lat_n;
        queue_figures(ev, engines[k], &rate, &rate_ok, &lat_ok, &lat_n);
        cr_expect(rate <= 1.6, "%s: rate off by %.2f %% on average", engines[k], rate);
        cr_expect(rate_ok >= 45, "%s: %d points within 2 %% of the rate", engines[k], rate_ok);
        cr_expect_eq(lat_n, 22);
        cr_expect(lat_ok >= 18, "%s: %d of 22 latency excesses within 25 %% or 50 us", engines[k], lat_ok);
    }
    cJSON_Delete(j);
    cli_run_free(&r);
}
