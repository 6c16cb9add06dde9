/* counts.c - from measured counts to the numbers compared with the models:
 * a hit rate from hit and miss counts, and the mean and sample standard
 * deviation of a record's runs. */
#include <math.h>
#include <stdlib.h>

#include "validate/measure.h"

double vd_counts_rate(const vd_counts *c, const char *path, ddio_err *e)
{
    double lookups = c->hit + c->miss;
    if (!isfinite(lookups)) {   /* the readers refuse such sums; a NaN rate would pass any check */
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: hit + miss is not a finite number", path ? path : "counts");
        return -1;
    }
    if (!(lookups > 0)) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: no lookups (hit + miss = 0): the counters saw no DMA",
                  path ? path : "counts");
        return -1;
    }
    return c->hit / lookups;
}

/* No runs leave mean and sd NaN: nothing to compare, and it shows. */
void vd_record_stats(vd_record *r)
{
    if (r->runs == 0) {
        r->mean = r->sd = NAN;
        return;
    }
    /* Two passes: the deviations are small next to the mean. */
    double sum = 0;
    for (uint32_t i = 0; i < r->runs; i++)
        sum += r->run[i];
    r->mean = sum / r->runs;
    if (r->runs == 1) {
        r->sd = 0;
        return;
    }
    double ss = 0;
    for (uint32_t i = 0; i < r->runs; i++) {
        double d = r->run[i] - r->mean;
        ss += d * d;
    }
    r->sd = sqrt(ss / (r->runs - 1));
}

void vd_record_free(vd_record *r)
{
    free(r->run);
    r->run = NULL;
    r->runs = 0;
}
