/* perf.c - reader of `perf stat -x,` output: the counts of the uncore events
 * a measurement named <name>_hit and <name>_miss (perf's name= event term),
 * summed over intervals, sockets and PMU boxes.
 *
 * A row is, in this order (tools/perf/Documentation/perf-stat.txt, "CSV
 * FORMAT", and tools/perf/util/stat-display.c):
 *
 *     [time stamp (-I)] [aggregation id (-A: CPU3; --per-socket: S0,
 *     --per-die: S0-D0, ...)] [number of CPUs aggregated (--per-*)]
 *     value, unit (empty for CHA counts), event, [variance (-r)],
 *     run time, percentage of time counted, [metric value, metric unit]
 *
 *     123456,,itom_hit,10001234567,100.00,,
 *     1.001043512,S0,1,4567,,itom_hit,1000987654,100.00,,
 *
 * The value is "<not counted>" when the event could not be scheduled in that
 * interval and "<not supported>" when the PMU rejected it.  With --no-merge
 * perf prints one row per PMU box: perf 6.x keeps a name= name as is (every
 * box's row reads "itom_hit"), older perf uniquified it as
 * "itom_hit [uncore_cha_3]"; both are summed.  With -I and --summary the
 * intervals are followed by "summary"-prefixed rows (or, with
 * --no-csv-summary, rows without a time stamp) holding the totals: then
 * those totals are read and the intervals are not added again.  perf -o adds
 * "# started on ..." and a blank line; '#' lines and blank lines are skipped
 * anywhere.  Rows of other events are ignored.
 *
 * out->samples is the number of -I intervals in which either event was
 * counted, or 1 when the totals are read. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "sim/common/infile.h"
#include "sim/common/parse.h"
#include "validate/measure.h"
#include "validate/text.h"

#define PERF_MAX_FIELDS 16
#define PERF_NAME_LEN 96

enum { EV_HIT, EV_MISS, EV_N };
enum { ROW_INTERVAL, ROW_TOTAL, ROW_KINDS };

/* What the rows of one event added up to, per kind of row. */
typedef struct perf_event_sum {
    double sum[ROW_KINDS];
    unsigned long rows[ROW_KINDS], counted[ROW_KINDS];
} perf_event_sum;

typedef struct perf_acc {
    char name[EV_N][PERF_NAME_LEN];
    perf_event_sum ev[EV_N];
    uint32_t intervals;             /* distinct time stamps with a counted row */
    char last_stamp[48];
} perf_acc;


static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* -I's time stamp: seconds, a dot, the fraction ("1.001043512"). */
static int is_stamp(const char *s)
{
    const char *dot = strchr(s, '.');
    if (!dot || dot == s || !dot[1])
        return 0;
    for (const char *p = s; *p; p++)
        if (p != dot && (*p < '0' || *p > '9'))
            return 0;
    return 1;
}

/* A finite, non-negative decimal number that is all of s. */
static int parse_value(const char *s, double *v)
{
    if (*s == '-' || *s == '+')
        return -1;
    return ddio_decimal_double(s, v);
}

/* Is `field` the event `name`, as perf prints it with or without
 * --no-merge ("itom_hit", or older perf's "itom_hit [uncore_cha_3]")? */
static int event_is(const char *field, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(field, name, n) != 0)
        return 0;
    if (!field[n])
        return 1;
    size_t len = strlen(field);
    return field[n] == ' ' && field[n + 1] == '[' && field[len - 1] == ']';
}

/* The fields before the value: [time stamp or "summary"] [aggregation id]
 * [CPU count].  Returns the kind of row, or -1 if they are not that. */
static int row_kind(char **f, size_t p, const char **stamp)
{
    size_t j = 0;
    int kind = ROW_TOTAL;
    *stamp = NULL;
    if (j < p && strcmp(f[j], "summary") == 0) {
        j++;
    } else if (j < p && is_stamp(f[j])) {
        kind = ROW_INTERVAL;
        *stamp = f[j++];
    }
    /* CPU3, S0, S0-D0, S0-D0-C1, N0: a letter first; --per-* then adds
     * the number of CPUs aggregated. */
    if (j < p && ((f[j][0] >= 'A' && f[j][0] <= 'Z') || (f[j][0] >= 'a' && f[j][0] <= 'z'))) {
        j++;
        if (j < p && all_digits(f[j]))
            j++;
    }
    return j == p ? kind : -1;
}

/* One row that names one of the two events. */
static int take_row(perf_acc *a, int ev, char **f, size_t vi, const char *path,
                    unsigned long line, ddio_err *e)
{
    const char *stamp;
    int kind = row_kind(f, vi, &stamp);
    if (kind < 0)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s:%lu: %s: unexpected fields before the value (expected [time stamp,]"
                         "[aggregation id like S0 or CPU3,][CPU count,]value,unit,event,...)",
                         path, line, a->name[ev]);
    double v;
    const char *unit = f[vi + 1];
    if (*unit && parse_value(unit, &v) == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: %s: the unit field is the number '%s' "
                         "(expected value,unit,event,...)", path, line, a->name[ev], unit);
    perf_event_sum *s = &a->ev[ev];
    s->rows[kind]++;
    const char *val = f[vi];
    if (strcmp(val, "<not counted>") == 0 || strcmp(val, "<not supported>") == 0)
        return 0;
    if (parse_value(val, &v) != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: %s: value '%s' is not a count, "
                         "<not counted> or <not supported>", path, line, a->name[ev], val);
    s->sum[kind] += v;
    if (!isfinite(s->sum[kind]))   /* an infinite sum would make the hit rate NaN */
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: %s: the counts add up to more than the largest number",
                         path, line, a->name[ev]);
    s->counted[kind]++;
    if (stamp && strcmp(stamp, a->last_stamp) != 0) {
        a->intervals++;
        snprintf(a->last_stamp, sizeof a->last_stamp, "%s", stamp);
    }
    return 0;
}

static int take_line(perf_acc *a, char *t, const char *path, unsigned long line, ddio_err *e)
{
    char *f[PERF_MAX_FIELDS];
    size_t n = vd_split_fields(t, f, PERF_MAX_FIELDS);
    if (n < 3)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s:%lu: not a perf stat -x, row (expected value,unit,event,...)", path, line);
    if (n > PERF_MAX_FIELDS)
        n = PERF_MAX_FIELDS;
    /* The event is the third field after at most three prefix fields. */
    for (size_t i = 2; i < n && i <= 5; i++)
        for (int ev = 0; ev < EV_N; ev++)
            if (event_is(f[i], a->name[ev]))
                return take_row(a, ev, f, i - 2, path, line, e);
    return 0;
}

int vd_perf_read(const char *path, const char *name, vd_counts *out, ddio_err *e)
{
    if (!name || !*name)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no perf event name given", path);
    perf_acc a;
    memset(&a, 0, sizeof a);
    if ((size_t)snprintf(a.name[EV_HIT], PERF_NAME_LEN, "%s_hit", name) >= PERF_NAME_LEN ||
        (size_t)snprintf(a.name[EV_MISS], PERF_NAME_LEN, "%s_miss", name) >= PERF_NAME_LEN)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: perf event name '%s' is too long", path, name);
    FILE *fp = ddio_open_data(path, VD_MAX_FILE_BYTES, e);
    if (!fp)
        return -1;

    vd_lines r = {.f = fp, .path = path};
    char *t;
    int rc = 0;
    while ((t = vd_next_line(&r, &rc, e)) != NULL) {
        if (!*t || *t == '#')
            continue;
        if ((rc = take_line(&a, t, path, r.line, e)) != 0)
            break;
    }
    free(r.buf);
    fclose(fp);
    if (rc != 0)
        return rc;

    /* Totals (a run without -I, or --summary after the intervals) win. */
    int kind = a.ev[EV_HIT].rows[ROW_TOTAL] || a.ev[EV_MISS].rows[ROW_TOTAL] ? ROW_TOTAL : ROW_INTERVAL;
    for (int ev = 0; ev < EV_N; ev++) {
        const perf_event_sum *s = &a.ev[ev];
        if (!s->rows[kind])
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no %srow for event %s", path,
                             kind == ROW_TOTAL && s->rows[ROW_INTERVAL] ? "total " : "", a.name[ev]);
        if (!s->counted[kind])
            return ddio_errf(e, DDIO_EXIT_USAGE,
                             "%s: event %s was never counted (%lu rows, all <not counted> or "
                             "<not supported>)", path, a.name[ev], s->rows[kind]);
    }
    if (!isfinite(a.ev[EV_HIT].sum[kind] + a.ev[EV_MISS].sum[kind]))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s + %s add up to more than the largest number", path,
                         a.name[EV_HIT], a.name[EV_MISS]);
    out->hit = a.ev[EV_HIT].sum[kind];
    out->miss = a.ev[EV_MISS].sum[kind];
    out->samples = kind == ROW_TOTAL ? 1 : a.intervals;
    return 0;
}
