/* test_queue_pktsrc.c - a trace held in memory gives the packets of the
 * same trace streamed from its file, and so does one lent from an earlier
 * source's parse (pktsrc_keep_trace): lengths, arrival times, tuples and
 * passes, at the trace's timing, at a rate and back to back, looped. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/queue/pktsrc.h"

#ifndef DDIOSIM_SOURCE_DIR
#error "DDIOSIM_SOURCE_DIR must be defined by the build"
#endif

/* The trace of `from` parsed by a source opened for a few packets at
 * another rate, kept (pktsrc_keep_trace) and the source closed. */
static void keep_parsed(const dsim_source *from, pktsrc_trace *t)
{
    pktsrc *k = malloc(sizeof *k);
    cr_assert_not_null(k);
    ddio_err e;
    cr_assert_eq(pktsrc_open(k, from, 7, 3.0, 100.0, 0, 9, &e), 0, "%s", e.msg);
    pktsrc_pkt p;
    cr_assert_eq(pktsrc_next(k, &p, &e), 1);
    cr_assert_eq(pktsrc_keep_trace(k, t), 1, "a held trace is kept");
    cr_assert_eq(t->mem, k->mem);
    pktsrc_close(k);   /* leaves them: t's now */
    free(k);
}

/* `n` packets (0: the trace once) of `trace` at `rate`, held (mem_max 0,
 * the default), streamed (mem_max 1) and lent (an earlier source's parse),
 * compared packet by packet. */
static void held_equals_streamed(const char *trace, uint64_t n, double rate)
{
    pktsrc *a = malloc(sizeof *a), *b = malloc(sizeof *b), *c = malloc(sizeof *c);
    cr_assert(a && b && c);
    ddio_err e;
    dsim_source held = {.trace = trace}, streamed = {.trace = trace, .trace_mem_max = 1};
    pktsrc_trace kept;
    keep_parsed(&held, &kept);
    dsim_source lent = held;
    lent.parsed = &kept;
    cr_assert_eq(pktsrc_open(a, &held, n, rate, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(pktsrc_open(b, &streamed, n, rate, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(pktsrc_open(c, &lent, n, rate, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_not_null(a->mem, "the trace fits in memory");
    cr_assert_null(b->mem, "a one-packet budget streams the trace");
    cr_assert_eq(c->mem, kept.mem, "the parsed trace is read, not the file");
    cr_assert_eq(a->expected, b->expected);
    cr_assert_eq(c->expected, b->expected);
    cr_assert(c->scale == a->scale && c->mean_gap_ns == a->mean_gap_ns);
    uint64_t k = 0;
    for (;; k++) {
        pktsrc_pkt p = {0}, q = {0}, r = {0};
        int ra = pktsrc_next(a, &p, &e), rb = pktsrc_next(b, &q, &e), rc = pktsrc_next(c, &r, &e);
        cr_assert(ra == rb && rc == rb, "packet %llu", (unsigned long long)k);
        if (ra != 1)
            break;
        cr_assert(p.ts_ns == q.ts_ns && p.len == q.len && p.src_ip == q.src_ip && p.dst_ip == q.dst_ip &&
                      p.src_port == q.src_port && p.dst_port == q.dst_port && p.proto == q.proto &&
                      p.has_tuple == q.has_tuple && p.has_flow == 0 && q.has_flow == 0,
                  "%s rate %g packet %llu", trace, rate, (unsigned long long)k);
        cr_assert(memcmp(&p, &r, sizeof p) == 0, "%s rate %g lent packet %llu", trace, rate, (unsigned long long)k);
    }
    cr_assert_eq(k, a->expected);
    cr_assert_eq(a->passes, b->passes);
    cr_assert_eq(c->passes, b->passes);
    cr_assert_eq(a->reordered, b->reordered);
    cr_assert_eq(c->reordered, b->reordered);
    cr_assert(memcmp(c->skipped, a->skipped, sizeof a->skipped) == 0);
    if (n)   /* the passes begun after the first: one per record count started past it */
        cr_assert_eq(a->passes, (n - 1) / a->mem_n, "the run loops the trace");
    pktsrc_trace lent_again;
    cr_assert_eq(pktsrc_keep_trace(c, &lent_again), 0, "a lent trace is not the source's to keep");
    cr_assert_null(lent_again.mem);
    cr_assert_eq(pktsrc_keep_trace(b, &lent_again), 0, "a streamed trace holds nothing to keep");
    pktsrc_close(a);
    pktsrc_close(b);
    pktsrc_close(c);   /* leaves the lent packets to `kept` */
    pktsrc_trace_free(&kept);
    free(a);
    free(b);
    free(c);
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

/* A parse is lent only to a source that would parse the same: another
 * trace, the filter off (--all) or another memory budget parse their own;
 * the generator ignores it. */
Test(queue_pktsrc, a_parse_is_lent_only_to_the_same_trace)
{
    const char *imix = DDIOSIM_SOURCE_DIR "/traces/samples/imix-10k.pcap";
    pktsrc_trace kept;
    const dsim_source held = {.trace = imix};
    keep_parsed(&held, &kept);
    cr_assert_eq(kept.mem_n, 10000);
    cr_assert(pktsrc_trace_fits(&kept, &held));
    dsim_source other[4] = {held, held, held, {.profile = "fixed:1500"}};
    other[0].trace = DDIOSIM_SOURCE_DIR "/traces/samples/fixed1500-10k.pcap";
    other[1].keep_all = 1;
    other[2].trace_mem_max = 20000;
    pktsrc *s = malloc(sizeof *s);
    cr_assert_not_null(s);
    ddio_err e;
    for (int i = 0; i < 4; i++) {
        other[i].parsed = &kept;
        cr_assert_not(pktsrc_trace_fits(&kept, &other[i]), "source %d", i);
        cr_assert_eq(pktsrc_open(s, &other[i], 100, 0, 100.0, 0, 1, &e), 0, "%s", e.msg);
        cr_assert(s->mem != kept.mem, "source %d parsed its own", i);
        pktsrc_close(s);
    }
    /* The same trace by another string of the same path is lent. */
    char copy[512];
    snprintf(copy, sizeof copy, "%s", imix);
    dsim_source same = {.trace = copy, .trace_mem_max = PKTSRC_TRACE_MEM_MAX, .parsed = &kept};
    cr_assert_eq(pktsrc_open(s, &same, 100, 0, 100.0, 0, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(s->mem, kept.mem);
    pktsrc_close(s);
    pktsrc_trace_free(&kept);
    cr_assert_null(kept.mem);
    free(s);
}

/* pktsrc_trace_load: the trace held, or nothing past the memory budget
 * (the pass stops there), or the reader's error. */
Test(queue_pktsrc, a_trace_is_loaded_only_when_it_fits)
{
    pktsrc_trace t;
    ddio_err e;
    dsim_source from = {.trace = DDIOSIM_SOURCE_DIR "/traces/samples/imix-10k.pcap"};
    cr_assert_eq(pktsrc_trace_load(&t, &from, &e), 0, "%s", e.msg);
    cr_expect_eq(t.mem_n, 10000);
    cr_expect(pktsrc_trace_fits(&t, &from));
    pktsrc_trace_free(&t);
    from.trace_mem_max = 9999;
    cr_assert_eq(pktsrc_trace_load(&t, &from, &e), 0, "%s", e.msg);
    cr_expect_null(t.mem, "past the budget: nothing kept");
    const dsim_source bad = {.trace = DDIOSIM_SOURCE_DIR "/traces/samples/README.md"};
    cr_expect_eq(pktsrc_trace_load(&t, &bad, &e), -1);
    cr_expect_null(t.mem);
    cr_expect(strstr(e.msg, "not a readable pcap") != NULL, "%s", e.msg);
    const dsim_source profile = {.profile = "fixed:64"};
    cr_expect_eq(pktsrc_trace_load(&t, &profile, &e), 0);
    cr_expect_null(t.mem, "the generator: no trace");
}
