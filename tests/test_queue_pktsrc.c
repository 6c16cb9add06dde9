/* test_queue_pktsrc.c - a trace held in memory gives the packets of the
 * same trace streamed from its file: lengths, arrival times, tuples and
 * passes, at the trace's timing, at a rate and back to back, looped. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sim/queue/pktsrc.h"

#ifndef DDIOSIM_SOURCE_DIR
#error "DDIOSIM_SOURCE_DIR must be defined by the build"
#endif

/* `n` packets (0: the trace once) of `trace` at `rate`, held (mem_max 0,
 * the default) and streamed (mem_max 1), compared packet by packet. */
static void held_equals_streamed(const char *trace, uint64_t n, double rate)
{
    pktsrc *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    cr_assert(a && b);
    ddio_err e;
    dsim_source held = {.trace = trace}, streamed = {.trace = trace, .trace_mem_max = 1};
    cr_assert_eq(pktsrc_open(a, &held, n, rate, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(pktsrc_open(b, &streamed, n, rate, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_not_null(a->mem, "the trace fits in memory");
    cr_assert_null(b->mem, "a one-packet budget streams the trace");
    cr_assert_eq(a->expected, b->expected);
    uint64_t k = 0;
    for (;; k++) {
        pktsrc_pkt p = {0}, q = {0};
        int ra = pktsrc_next(a, &p, &e), rb = pktsrc_next(b, &q, &e);
        cr_assert_eq(ra, rb, "packet %llu", (unsigned long long)k);
        if (ra != 1)
            break;
        cr_assert(p.ts_ns == q.ts_ns && p.len == q.len && p.src_ip == q.src_ip && p.dst_ip == q.dst_ip &&
                      p.src_port == q.src_port && p.dst_port == q.dst_port && p.proto == q.proto &&
                      p.has_tuple == q.has_tuple && p.has_flow == 0 && q.has_flow == 0,
                  "%s rate %g packet %llu", trace, rate, (unsigned long long)k);
    }
    cr_assert_eq(k, a->expected);
    cr_assert_eq(a->passes, b->passes);
    cr_assert_eq(a->reordered, b->reordered);
    if (n)   /* the passes begun after the first: one per record count started past it */
        cr_assert_eq(a->passes, (n - 1) / a->mem_n, "the run loops the trace");
    pktsrc_close(a);
    pktsrc_close(b);
    free(a);
    free(b);
}

Test(queue_pktsrc, held_trace_equals_streamed_trace)
{
    const char *traces[] = {DDIOSIM_SOURCE_DIR "/traces/samples/imix-10k.pcap",
                            DDIOSIM_SOURCE_DIR "/traces/samples/fixed1500-10k.pcap"};
    const double rates[] = {0.0, 25.0, -1.0};
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < 3; r++) {
            held_equals_streamed(traces[t], 0, rates[r]);
            held_equals_streamed(traces[t], 25001, rates[r]);   /* two passes and a half */
            /* Exactly two passes: a held trace's batch must not start a
             * third (the passes are compared). */
            held_equals_streamed(traces[t], 20000, rates[r]);
        }
}

/* A budget smaller than the trace streams it: the array is dropped at the
 * packet that does not fit, and the run sees the whole trace. */
Test(queue_pktsrc, a_trace_past_the_budget_is_streamed)
{
    pktsrc *s = malloc(sizeof *s);
    cr_assert_not_null(s);
    ddio_err e;
    dsim_source from = {.trace = DDIOSIM_SOURCE_DIR "/traces/samples/imix-10k.pcap", .trace_mem_max = 9999};
    cr_assert_eq(pktsrc_open(s, &from, 0, 0, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_null(s->mem);
    uint64_t k = 0;
    pktsrc_pkt p;
    while (pktsrc_next(s, &p, &e) == 1)
        k++;
    cr_assert_eq(k, 10000);
    pktsrc_close(s);
    from.trace_mem_max = 10000;   /* exactly the trace: held */
    cr_assert_eq(pktsrc_open(s, &from, 0, 0, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_not_null(s->mem);
    cr_assert_eq(s->mem_n, 10000);
    pktsrc_close(s);
    free(s);
}
