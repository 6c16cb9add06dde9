/* test_cache_replay.c - replay against a textbook LRU cache, the binomial
 * model of random-mapped LRU caches (Wang, Xu, Wu, SIGMETRICS 2022, Eq. 2), the set mappings,
 * and the din reader / cache-replay CLI. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cache/lru_textbook.h"
#include "sim/cache/replay.h"
#include "sim/common/hash.h"
#include "sim/common/mem.h"
#include "sim/common/rng.h"
#include "tests/helpers.h"
#include "traces/din.h"

/* Textbook set-associative LRU: each set is a recency list, MRU first. */
typedef struct ref_lru {
    uint32_t sets, ways;
    uint64_t *lines;    /* sets * ways, UINT64_MAX = empty */
} ref_lru;

static int ref_access(ref_lru *r, uint64_t line)
{
    return lru_textbook_access(&r->lines[(line % r->sets) * r->ways], r->ways, line);
}

Test(cache_replay, modulo_lru_equals_textbook)
{
    const uint32_t sets[] = {1, 3, 16, 64};
    /* Up to 16 ways LRU packs its order in one word; beyond, one byte a way. */
    const uint32_t ways[] = {1, 2, 4, 11, 16, 20, 64};
    ddio_rng rng;
    ddio_rng_seed(&rng, 42);
    for (size_t si = 0; si < 4; si++)
        for (size_t wi = 0; wi < 7; wi++) {
            uint32_t slices = (uint32_t)(1 + ddio_rng_below(&rng, 2));
            cache_geom g = {.line_size = 64, .slices = slices, .sets_per_slice = sets[si], .ways = ways[wi],
                            .mapping = MAP_MODULO};
            repl_config rc;
            repl_config_default(&rc);
            uint64_t full = ways[wi] == 64 ? UINT64_MAX : (1ull << ways[wi]) - 1;
            replay r;
            ddio_err e;
            cr_assert_eq(replay_init(&r, &g, &rc, full, full, &e), 0, "%s", e.msg);
            ref_lru ref = {sets[si] * slices, ways[wi], NULL};
            ref.lines = malloc(sizeof(uint64_t) * ref.sets * ref.ways);
            memset(ref.lines, 0xFF, sizeof(uint64_t) * ref.sets * ref.ways);
            uint64_t universe = (uint64_t)ref.sets * ways[wi] * 2 + 1;
            int hits = 0, ref_hits = 0;
            for (int i = 0; i < 20000; i++) {
                uint64_t line = ddio_rng_below(&rng, universe);
                enum replay_op op = ddio_rng_below(&rng, 2) ? OP_WRITE : OP_READ;
                hits += replay_access(&r, op, line * 64 + ddio_rng_below(&rng, 64));
                ref_hits += ref_access(&ref, line);
            }
            cr_expect_eq(hits, ref_hits, "sets %u x%u slices, %u ways: %d hits vs textbook %d", sets[si], slices,
                         ways[wi], hits, ref_hits);
            cr_expect(ref_hits > 0 && ref_hits < 20000);
            free(ref.lines);
            replay_free(&r);
        }
}

/* The CLI gives the same exact count on a din file. */
Test(cache_replay, cli_modulo_lru_equals_textbook)
{
    ref_lru ref = {16, 4, NULL};
    ref.lines = malloc(sizeof(uint64_t) * 64);
    memset(ref.lines, 0xFF, sizeof(uint64_t) * 64);
    ddio_rng rng;
    ddio_rng_seed(&rng, 7);
    size_t cap = 30000 * 24, len = 0;
    char *text = malloc(cap);
    int ref_hits = 0;
    for (int i = 0; i < 30000; i++) {
        uint64_t line = ddio_rng_below(&rng, 150);
        len += (size_t)snprintf(text + len, cap - len, "%d %llx\n", (int)ddio_rng_below(&rng, 3),
                                (unsigned long long)(line * 64 + 5));
        ref_hits += ref_access(&ref, line);
    }
    char *path = write_temp(".din", text, len);
    char args[512];
    snprintf(args, sizeof args, "cache-replay --mapping modulo --policy lru --sets 16 --slices 1 --ways 4 --format json %s",
             path);
    cli_run run = run_ddiosim(args);
    cr_assert_eq(run.status, 0, "%s", run.err);
    cJSON *j = cJSON_Parse(run.out);
    cr_assert(j);
    cr_expect_eq((int)cJSON_GetObjectItem(j, "hits")->valuedouble, ref_hits);
    cr_expect_eq((int)cJSON_GetObjectItem(j, "accesses")->valuedouble, 30000);
    cr_expect(cJSON_GetObjectItem(j, "hit_frac") && cJSON_GetObjectItem(j, "misses") &&
              cJSON_GetObjectItem(j, "accesses_per_sec"));
    cJSON_Delete(j);
    cli_run_free(&run);
    unlink(path);
    free(path);
    free(text);
    free(ref.lines);
}

/* Wang, Xu, Wu (SIGMETRICS 2022), Eq. 2: with random set mapping and LRU, a cyclic stream over T
 * unique lines hits with probability F_B(N-1; T, 1/C). */
Test(cache_replay, cyclic_lru_matches_binomial_cdf, .timeout = 120)
{
    const uint32_t C = 65536, N = 8;
    const double cap = (double)C * N;
    const double factors[] = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0};
    for (size_t f = 0; f < sizeof factors / sizeof factors[0]; f++) {
        uint64_t T = (uint64_t)(factors[f] * cap);
        cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = C, .ways = N, .mapping = MAP_RANDOM,
                        .seed = 1000 + f};
        repl_config rc;
        repl_config_default(&rc);
        replay r;
        ddio_err e;
        cr_assert_eq(replay_init(&r, &g, &rc, 0xFF, 0xFF, &e), 0, "%s", e.msg);
        for (uint64_t i = 0; i < T; i++)   /* warm-up pass */
            replay_access(&r, OP_READ, i * 64);
        uint64_t hits = 0;
        for (uint64_t i = 0; i < T; i++)
            hits += (uint64_t)replay_access(&r, OP_READ, i * 64);
        double sim = (double)hits / (double)T;
        double model = gsl_cdf_binomial_P(N - 1, 1.0 / C, (unsigned)T);
        cr_expect(sim > model - 0.01 && sim < model + 0.01, "T = %.2fx capacity: simulated %.4f, F_B = %.4f",
                  factors[f], sim, model);
        replay_free(&r);
    }
}

Test(cache_replay, modulo_mapping_is_line_mod_sets)
{
    cache_geom g = {.line_size = 64, .slices = 3, .sets_per_slice = 5, .ways = 2, .mapping = MAP_MODULO};
    cache_mapper m;
    cache_mapper_init(&m, &g);
    for (uint64_t line = 0; line < 1000; line++)
        cr_assert_eq(cache_mapper_set(&m, line), line % 15);
}

static int parity(uint64_t x) { return __builtin_parityll(x); }

Test(cache_replay, xor_mapping_matches_published_hash)
{
    /* For 8 slices the slice is the 3-bit Maurice et al. hash. */
    cache_geom g = {.line_size = 64, .slices = 8, .sets_per_slice = 2048, .ways = 11, .mapping = MAP_XOR};
    cache_mapper m;
    cache_mapper_init(&m, &g);
    ddio_rng rng;
    ddio_rng_seed(&rng, 9);
    for (int i = 0; i < 10000; i++) {
        uint64_t addr = ddio_rng_next(&rng) & 0x3FFFFFFFC0ull;
        uint32_t want = (uint32_t)(parity(addr & 0x1B5F575440ull) | parity(addr & 0x2EB5FAA880ull) << 1 |
                                   parity(addr & 0x3CCCC93100ull) << 2);
        uint64_t line = addr >> 6;
        uint32_t set = cache_mapper_set(&m, line);
        cr_assert_eq(set / 2048, want);
        cr_assert_eq(set % 2048, line % 2048, "the set inside a slice comes from the index bits");
    }
}

Test(cache_replay, xor_mapping_4k_aligned_uses_32_sets_per_slice)
{
    /* Wang, Xu, Wu (SIGMETRICS 2022), Appendix D.5: 4 KiB-aligned lines reach only 32 of the 2048
     * sets of each slice. */
    cache_geom g = {.line_size = 64, .slices = 18, .sets_per_slice = 2048, .ways = 11, .mapping = MAP_XOR};
    cache_mapper m;
    cache_mapper_init(&m, &g);
    static uint8_t seen[18 * 2048];
    memset(seen, 0, sizeof seen);
    int slices_used[18] = {0};
    for (uint64_t b = 0; b < 100000; b++) {
        uint32_t set = cache_mapper_set(&m, (0x100000000ull + b * 4096) >> 6);
        seen[set] = 1;
    }
    for (uint32_t s = 0; s < 18 * 2048; s++)
        if (seen[s]) {
            cr_assert_eq((s % 2048) % 64, 0);
            slices_used[s / 2048]++;
        }
    for (int sl = 0; sl < 18; sl++)
        cr_expect_eq(slices_used[sl], 32, "slice %d: %d sets used", sl, slices_used[sl]);
}

Test(cache_replay, random_mapping_is_uniform)
{
    cache_geom g = {.line_size = 64, .slices = 4, .sets_per_slice = 256, .ways = 8, .mapping = MAP_RANDOM, .seed = 77};
    cache_mapper m;
    cache_mapper_init(&m, &g);
    static uint32_t count[1024];
    memset(count, 0, sizeof count);
    const uint32_t n = 1024 * 1000;
    for (uint64_t line = 0; line < n; line++)   /* a contiguous (worst-case) range */
        count[cache_mapper_set(&m, line * 32)]++;
    double chi2 = 0;
    for (int s = 0; s < 1024; s++)
        chi2 += (count[s] - 1000.0) * (count[s] - 1000.0) / 1000.0;
    /* 1023 degrees of freedom: the 99.9th percentile is about 1168. */
    cr_expect(chi2 < 1168, "chi2 = %.1f", chi2);
    /* And the hash is a bijection (so the tag cannot alias). */
    for (uint64_t x = 0; x < 100000; x++)
        cr_assert_eq(ddio_unmix64(ddio_mix64(x * 0x9E3779B97F4A7C15ull)), x * 0x9E3779B97F4A7C15ull);
}

Test(cache_replay, geometry_errors)
{
    ddio_err e;
    cache_geom g = {.line_size = 48, .slices = 1, .sets_per_slice = 4, .ways = 2, .mapping = MAP_MODULO};
    cr_expect_eq(cache_geom_validate(&g, "--line", &e), -1);
    cr_expect_str_eq(e.msg, "--line: line size 48 is not a power of two in [16, 4096]");
    g.line_size = 64;
    g.ways = 0;
    cr_expect_eq(cache_geom_validate(&g, "llc", &e), -1);
    cr_expect_str_eq(e.msg, "llc: 0 ways is out of range [1, 64]");
    g.ways = 4;
    g.mapping = MAP_XOR;
    g.sets_per_slice = 1000;
    cr_expect_eq(cache_geom_validate(&g, "llc", &e), -1);
    cr_expect_str_eq(e.msg, "llc: the xor mapping needs a power-of-two number of sets per slice, not 1000");
}

Test(cache_replay, pcie_ops_and_memory_counts)
{
    /* 1 set, 4 ways, DDIO = 2 leftmost ways. */
    cache_geom g = {.line_size = 64, .slices = 1, .sets_per_slice = 1, .ways = 4, .mapping = MAP_MODULO};
    repl_config rc;
    repl_config_default(&rc);
    replay r;
    ddio_err e;
    cr_assert_eq(replay_init(&r, &g, &rc, 0xF, 0xC, &e), 0);
    cr_expect_eq(replay_access(&r, OP_PCIE_RD, 0x000), 0);      /* miss, no allocation */
    cr_expect_eq(replay_access(&r, OP_PCIE_RD, 0x000), 0);
    cr_expect_eq(replay_access(&r, OP_PCIE_WR_FULL, 0x040), 0);  /* ItoM miss: no memory read */
    cr_expect_eq(replay_access(&r, OP_PCIE_WR_PART, 0x080), 0);  /* RFO miss: memory read */
    cr_expect_eq(replay_access(&r, OP_PCIE_WR_FULL, 0x0C0), 0);  /* evicts dirty 0x040 */
    cr_expect_eq(replay_access(&r, OP_PCIE_RD, 0x0C0), 1);
    cr_expect_eq(r.op[OP_PCIE_RD].mem_reads, 2);
    cr_expect_eq(r.op[OP_PCIE_WR_FULL].mem_reads, 0);
    cr_expect_eq(r.op[OP_PCIE_WR_PART].mem_reads, 1);
    cr_expect_eq(r.op[OP_PCIE_WR_FULL].writebacks, 1);
    uint32_t set = cache_set(&r.c, 0x0C0 >> 6);
    int way = cache_find(&r.c, set, 0x0C0 >> 6);
    cr_expect(way == 2 || way == 3);
    replay_access(&r, OP_FLUSH, 0);
    cr_expect_eq(r.op[OP_FLUSH].writebacks, 2);
    cr_expect_eq(cache_count_valid(&r.c, 0xF), 0);
    replay_free(&r);
}

Test(cache_replay, din_parser)
{
    din_record rec;
    ddio_err e;
    cr_expect_eq(din_parse_line("0 1a2b\n", 7, &rec, "t", 1, &e), 1);
    cr_expect_eq(rec.label, DIN_READ);
    cr_expect_eq(rec.addr, 0x1a2b);
    cr_expect_eq(din_parse_line("  7\t0xFFFF 4 extra", 18, &rec, "t", 1, &e), 1);
    cr_expect_eq(rec.label, DIN_PCIE_RD);
    cr_expect_eq(rec.addr, 0xFFFF);
    cr_expect_eq(din_parse_line("# comment", 9, &rec, "t", 1, &e), 0);
    cr_expect_eq(din_parse_line("   \n", 4, &rec, "t", 1, &e), 0);
    cr_expect_eq(din_parse_line("3 100", 5, &rec, "t.din", 9, &e), -1);
    cr_expect_str_eq(e.msg, "t.din:9: unsupported label 3 (use 0-2, 4-7)");
    cr_expect_eq(din_parse_line("x 100", 5, &rec, "t.din", 2, &e), -1);
    cr_expect_str_eq(e.msg, "t.din:2: label 'x' is not a number 0-7");
    cr_expect_eq(din_parse_line("1", 1, &rec, "t.din", 4, &e), -1);
    cr_expect_str_eq(e.msg, "t.din:4: expected '<label> <hex address>'");
    cr_expect_eq(din_parse_line("1 12345678901234567", 19, &rec, "t.din", 5, &e), -1);
    cr_expect_str_eq(e.msg, "t.din:5: address is wider than 64 bits");
    cr_expect_eq(din_parse_line("1 ", 2, &rec, "t.din", 6, &e), -1);
    cr_expect_str_eq(e.msg, "t.din:6: missing address");
}

Test(cache_replay, cli_errors)
{
    char *path = write_temp(".din", "0 100\n1 200\n\n1 2g0\n", 19);
    char args[256];
    snprintf(args, sizeof args, "cache-replay %s", path);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2);
    char want[256];
    snprintf(want, sizeof want, "ddiosim cache-replay: %s:4: address has a non-hex character 'g'\n", path);
    cr_expect_str_eq(r.err, want);
    cr_expect_str_eq(r.out, "", "no partial output on error");
    cli_run_free(&r);
    unlink(path);
    free(path);

    r = run_ddiosim("cache-replay --ways 0 traces/samples/ddio-ring.din");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--ways: 0 is out of range [1, 64]"), "%s", r.err);
    cli_run_free(&r);
    r = run_ddiosim("cache-replay --alloc-mask 0x1000 traces/samples/ddio-ring.din");
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim cache-replay: --alloc-mask: 0x1000 must select at least one of the 11 ways\n");
    cli_run_free(&r);
    r = run_ddiosim("cache-replay --frobnicate");
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim cache-replay: unknown option '--frobnicate' (see 'ddiosim cache-replay --help')\n");
    cli_run_free(&r);
    r = run_ddiosim("cache-replay /nonexistent.din");
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "ddiosim cache-replay: /nonexistent.din: cannot open: No such file or directory\n");
    cli_run_free(&r);
    r = run_ddiosim("cache-replay --help");
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "--ddio-mask"));
    cli_run_free(&r);
    r = run_ddiosim("no-such-command");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown command 'no-such-command'") && strstr(r.err, "usage: ddiosim"), "%s", r.err);
    cli_run_free(&r);
    r = run_ddiosim("--frobnicate");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown option '--frobnicate'") && strstr(r.err, "usage: ddiosim"), "%s", r.err);
    cli_run_free(&r);
    r = run_ddiosim("");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "usage: ddiosim"), "%s", r.err);
    cli_run_free(&r);
    r = run_ddiosim("--version");
    cr_expect_eq(r.status, 0);
    cr_expect(strncmp(r.out, "ddiosim ", 8) == 0);
    cli_run_free(&r);
}

Test(cache_replay, cli_output_file_is_atomic)
{
    char *path = write_temp(".json", "old", 3);
    char args[256];
    /* A failing run must leave the previous file untouched. */
    snprintf(args, sizeof args, "cache-replay --format json -o %s < /dev/null --ways 99", path);
    cli_run r = run_ddiosim(args);
    cr_expect_eq(r.status, 2);
    char *content = slurp(path, NULL);
    cr_expect_str_eq(content, "old");
    free(content);
    cli_run_free(&r);
    snprintf(args, sizeof args, "cache-replay --format json -o %s traces/samples/ddio-ring.din", path);
    r = run_ddiosim(args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    content = slurp(path, NULL);
    cJSON *j = cJSON_Parse(content);
    cr_assert(j);
    cr_expect_eq((int)cJSON_GetObjectItem(j, "accesses")->valuedouble, 36864);
    cJSON_Delete(j);
    free(content);
    cli_run_free(&r);
    unlink(path);
    free(path);
}

/* The lines of a kernel_case stream.  SMALL: a few per set.  ALIASING:
 * they share their low 32 bits in groups, so the kernel's 32-bit tag
 * compare finds candidates that are not matches (and batches spread over
 * bits 32-34: the xor mapping hashes them line by line).  HIGH: SMALL
 * offset by a constant with bits above 22 set, which every batch shares
 * (the xor mapping hashes those bits once per batch: a wrong upper hash
 * maps to other sets).  STRADDLE: SMALL around a multiple of 2^22, so that
 * some batches share the upper bits and others do not. */
enum kernel_lines { LINES_SMALL, LINES_ALIASING, LINES_HIGH, LINES_STRADDLE, LINES_KINDS };

static uint64_t kernel_line(ddio_rng *rng, uint32_t w, enum kernel_lines kind)
{
    const uint64_t small = ddio_rng_below(rng, 16 * 4 * w);
    switch (kind) {
    case LINES_ALIASING:
        return ddio_rng_below(rng, 4 * w) + (ddio_rng_below(rng, 8) << 32);
    case LINES_HIGH:
        return small + 0x2B5A5ull * (1ull << 22);
    case LINES_STRADDLE:
        return small + (0x1D3ull << 22) - 8 * 4 * w;
    default:
        return small;
    }
}

/* One comparison of replay_run's LRU kernel with the generic path: random
 * ops (flushes included) and addresses, replayed in chunks of random length
 * (shorter and longer than the prefetch distance), state and counters
 * compared after every chunk.  `lines`: see kernel_lines.  `runs`: the ops
 * come in runs of one op (1 to 24 long), so that whole batches of one op
 * (the kernel's uniform-op path, every op) alternate with mixed ones; else
 * each op is drawn alone. */
static void kernel_case(ddio_rng *rng, uint32_t w, enum cache_mapping map, uint64_t alloc, uint64_t ddio,
                        enum kernel_lines lines, int runs, enum replay_isa isa)
{
    cache_geom g = {.line_size = 64, .slices = 2, .sets_per_slice = 8, .ways = w, .mapping = map, .seed = 1};
    repl_config rc;
    repl_config_default(&rc);
    replay fast, slow;
    ddio_err e;
    cr_assert_eq(replay_init(&fast, &g, &rc, alloc, ddio, &e), 0, "%s", e.msg);
    cr_assert_eq(replay_init(&slow, &g, &rc, alloc, ddio, &e), 0, "%s", e.msg);
    cr_assert_eq(fast.isa, replay_best_isa());
    fast.isa = isa;
    enum { N = 20000 };
    static uint8_t ops[N];
    static uint64_t addrs[N];
    const uint8_t kinds[] = {OP_READ, OP_WRITE, OP_IFETCH, OP_PCIE_WR_FULL, OP_PCIE_WR_PART, OP_PCIE_RD};
    uint8_t run_op = OP_READ;
    uint32_t run_left = 0;
    for (int i = 0; i < N; i++) {
        if (run_left == 0) {
            run_op = kinds[ddio_rng_below(rng, 6)];
            run_left = 1 + (uint32_t)ddio_rng_below(rng, 24);
        }
        run_left--;
        ops[i] = i % 5000 == 4999 ? OP_FLUSH : runs ? run_op : kinds[ddio_rng_below(rng, 6)];
        addrs[i] = kernel_line(rng, w, lines) * 64 + ddio_rng_below(rng, 64);
    }
    const char *what = cache_mapping_name(map);
    uint64_t hf = 0, hs = 0;
    for (size_t i = 0; i < N;) {
        size_t len = 1 + (size_t)ddio_rng_below(rng, 40);
        if (len > N - i)
            len = N - i;
        hf += replay_run(&fast, ops + i, addrs + i, len);
        for (size_t j = i; j < i + len; j++)
            hs += (uint64_t)replay_access(&slow, (enum replay_op)ops[j], addrs[j]);
        i += len;
        cr_assert_eq(hf, hs, "%u ways, %s, alloc 0x%llx, lines %d, runs %d, isa %d: %llu vs %llu hits after %zu", w,
                     what, (unsigned long long)alloc, (int)lines, runs, (int)isa, (unsigned long long)hf,
                     (unsigned long long)hs, i);
        cr_assert_eq(memcmp(fast.op, slow.op, sizeof fast.op), 0, "%u ways, %s: counters differ after %zu", w,
                     what, i);
        cr_assert_eq(memcmp(fast.c.blocks, slow.c.blocks, fast.c.block_bytes * fast.c.nsets), 0,
                     "%u ways, %s: cache state differs after %zu", w, what, i);
    }
    replay_free(&fast);
    replay_free(&slow);
}

/* replay_run takes a specialised path for LRU with up to 16 ways; it must
 * leave exactly the state and counters the generic path (replay_access)
 * leaves, for every op, any masks (the whole set: the kernel's steady-state
 * path; part of it: the general victim), both kernel mappings (xor inline,
 * others through cache_mapper_set), every tag-slot count (4, 8, 12, 16; 11
 * ways with the xor mapping is an instance of its own), batches of one op
 * (every op) as well as mixed ones, and lines near and far apart (the xor
 * mapping's per-batch hash of the upper line bits and its fallback); each
 * instruction set the kernel is compiled for that this CPU runs (x86-64-v3
 * as well as the base on most x86-64 machines). */
Test(cache_replay, lru_kernel_equals_generic_path)
{
    const uint32_t ways[] = {1, 3, 6, 11, 16};
    ddio_rng rng;
    ddio_rng_seed(&rng, 77);
    for (size_t wi = 0; wi < sizeof ways / sizeof *ways; wi++) {
        uint32_t w = ways[wi];
        uint64_t full = (1ull << w) - 1;
        uint64_t part = full & ~(w > 2 ? 1ull : 0), ddio = w > 1 ? (1ull << (w - 1)) | 1 : 1;
        for (int map = 0; map < 2; map++)
            for (int lines = 0; lines < LINES_KINDS; lines++)
                for (int runs = 0; runs < 2; runs++)
                    for (int isa = REPLAY_ISA_BASE; isa <= (int)replay_best_isa(); isa++) {
                        enum cache_mapping m = map ? MAP_MODULO : MAP_XOR;
                        kernel_case(&rng, w, m, part, ddio, (enum kernel_lines)lines, runs, (enum replay_isa)isa);
                        kernel_case(&rng, w, m, full, full, (enum kernel_lines)lines, runs, (enum replay_isa)isa);
                    }
    }
}

/* The kernel counts in packed 16-bit fields (one word per op and position
 * in the batch, the low field taking the next states' junk), folded every
 * 2^13 batches of one replay_run and at its end: one run of 3.5 Mi accesses
 * (56 folds inside it, and a run that does not end on a batch boundary)
 * must count as the generic path does, for each instruction set. */
Test(cache_replay, lru_kernel_folds_long_runs, .timeout = 120)
{
    cache_geom g = {.line_size = 64, .slices = 2, .sets_per_slice = 8, .ways = 11, .mapping = MAP_XOR, .seed = 1};
    repl_config rc;
    repl_config_default(&rc);
    const size_t n = ((size_t)7 << 19) + 5;   /* 3.5 Mi + 5 */
    uint8_t *ops = malloc(n);
    uint64_t *addrs = malloc(n * sizeof *addrs);
    cr_assert(ops && addrs);
    ddio_rng rng;
    ddio_rng_seed(&rng, 91);
    for (size_t i = 0; i < n; i++) {
        /* Runs of writes, and mixed reads and writes, over 1.25x the
         * capacity: hits, misses and writebacks, in uniform and in mixed
         * batches; more than 2^21 writes hit. */
        ops[i] = (i / 64) % 4 != 3 ? OP_WRITE : i % 2 ? OP_WRITE : OP_READ;
        addrs[i] = ddio_rng_below(&rng, 2 * 8 * 11 * 5 / 4) * 64;
    }
    for (int isa = REPLAY_ISA_BASE; isa <= (int)replay_best_isa(); isa++) {
        replay fast, slow;
        ddio_err e;
        cr_assert_eq(replay_init(&fast, &g, &rc, 0x7FF, 0x600, &e), 0, "%s", e.msg);
        cr_assert_eq(replay_init(&slow, &g, &rc, 0x7FF, 0x600, &e), 0, "%s", e.msg);
        fast.isa = (enum replay_isa)isa;
        const uint64_t hf = replay_run(&fast, ops, addrs, n);
        uint64_t hs = 0;
        for (size_t i = 0; i < n; i++)
            hs += (uint64_t)replay_access(&slow, (enum replay_op)ops[i], addrs[i]);
        cr_assert_eq(hf, hs, "isa %d: %llu vs %llu hits", isa, (unsigned long long)hf, (unsigned long long)hs);
        cr_assert_gt(slow.op[OP_WRITE].hits, (uint64_t)1 << 21);
        cr_assert_eq(memcmp(fast.op, slow.op, sizeof fast.op), 0, "isa %d: counters differ", isa);
        replay_free(&fast);
        replay_free(&slow);
    }
    free(ops);
    free(addrs);
}

/* The x86-64-v3 kernel (replay_x86.c) against the portable one (replay.c)
 * directly, on random traces from fixed seeds: every op, flushes, runs of
 * one op and mixed ones, lines near each other, far apart (high bits set)
 * and sharing their low 32 bits; each tag-slot count (4, 8, 12, 16; 11 ways
 * with the xor mapping is an instance of its own), both kernel mappings, a
 * whole-set and a partial allocation mask.  Replayed in chunks of random
 * length, the two must count the same hits and leave the same counters,
 * the same count of non-full sets and byte for byte the same set blocks
 * after every chunk.  Skipped where only the portable kernel runs. */
Test(cache_replay, x86_kernel_equals_portable_kernel, .timeout = 120)
{
    if (replay_best_isa() == REPLAY_ISA_BASE)
        cr_skip_test("only the portable kernel in this build or on this CPU");
    const uint32_t ways[] = {4, 7, 11, 12, 16};
    const uint8_t kinds[] = {OP_READ, OP_WRITE, OP_IFETCH, OP_PCIE_WR_FULL, OP_PCIE_WR_PART, OP_PCIE_RD};
    enum { N = 200000 };
    uint8_t *ops = malloc(N);
    uint64_t *addrs = malloc(N * sizeof *addrs);
    cr_assert(ops && addrs);
    ddio_rng rng;
    ddio_rng_seed(&rng, 2026);
    for (size_t wi = 0; wi < sizeof ways / sizeof *ways; wi++)
        for (int map = 0; map < 2; map++)
            for (int part = 0; part < 2; part++) {
                const uint32_t w = ways[wi];
                cache_geom g = {.line_size = 64, .slices = 3, .sets_per_slice = 64, .ways = w,
                                .mapping = map ? MAP_MODULO : MAP_XOR, .seed = 3};
                repl_config rc;
                repl_config_default(&rc);
                const uint64_t full = (1ull << w) - 1, alloc = part ? full & ~1ull : full;
                const uint64_t ddio = (1ull << (w - 1)) | (1ull << (w - 2));
                const uint64_t universe = 2ull * 3 * 64 * w;   /* twice the capacity */
                const uint64_t high = part ? 0x2B5A5ull << 22 : 0;
                uint8_t run_op = OP_READ;
                uint32_t run_left = 0;
                for (size_t i = 0; i < N; i++) {
                    if (run_left == 0) {
                        run_op = ddio_rng_below(&rng, 3) ? kinds[ddio_rng_below(&rng, 6)] : OP_COUNT;
                        run_left = 1 + (uint32_t)ddio_rng_below(&rng, 40);
                    }
                    run_left--;
                    ops[i] = i % 50000 == 49999 ? OP_FLUSH
                             : run_op < OP_COUNT ? run_op : kinds[ddio_rng_below(&rng, 6)];
                    uint64_t line = high + ddio_rng_below(&rng, universe);
                    if (ddio_rng_below(&rng, 16) == 0)
                        line += ddio_rng_below(&rng, 4) << 32;
                    addrs[i] = line * 64 + ddio_rng_below(&rng, 64);
                }
                replay port, x86;
                ddio_err e;
                cr_assert_eq(replay_init(&port, &g, &rc, alloc, ddio, &e), 0, "%s", e.msg);
                cr_assert_eq(replay_init(&x86, &g, &rc, alloc, ddio, &e), 0, "%s", e.msg);
                port.isa = REPLAY_ISA_BASE;
                uint64_t hp = 0, hx = 0;
                for (size_t i = 0; i < N;) {
                    size_t len = 1 + (size_t)ddio_rng_below(&rng, 5000);
                    if (len > N - i)
                        len = N - i;
                    hp += replay_run(&port, ops + i, addrs + i, len);
                    hx += replay_run(&x86, ops + i, addrs + i, len);
                    i += len;
                    cr_assert_eq(hx, hp, "%u ways, %s, alloc 0x%llx: %llu vs %llu hits after %zu", w,
                                 cache_mapping_name(g.mapping), (unsigned long long)alloc, (unsigned long long)hx,
                                 (unsigned long long)hp, i);
                    cr_assert_eq(memcmp(x86.op, port.op, sizeof port.op), 0, "%u ways, %s: counters differ after %zu",
                                 w, cache_mapping_name(g.mapping), i);
                    cr_assert_eq(x86.nonfull_sets, port.nonfull_sets);
                    cr_assert_eq(memcmp(x86.c.blocks, port.c.blocks, port.c.block_bytes * port.c.nsets), 0,
                                 "%u ways, %s: cache state differs after %zu", w, cache_mapping_name(g.mapping), i);
                }
                /* Not vacuous: hits, misses and writebacks of each kind. */
                const replay_counts t = replay_total(&port);
                cr_assert(t.hits > N / 10 && t.misses > N / 10 && t.writebacks > 0, "%u ways: %llu hits", w,
                          (unsigned long long)t.hits);
                replay_free(&port);
                replay_free(&x86);
            }
    free(ops);
    free(addrs);
}

/* The xor slice hash is table-driven over 11-bit chunks of the line number:
 * for 8 slices it must equal the published 3-bit hash of the address for
 * any 64-bit line and any line size (address bits beyond 47 are in no mask;
 * bits shifted out of the address do not count). */
Test(cache_replay, xor_slice_hash_any_line_any_line_size)
{
    ddio_rng rng;
    ddio_rng_seed(&rng, 5);
    for (uint32_t ls = 16; ls <= 4096; ls *= 2) {
        cache_geom g = {.line_size = ls, .slices = 8, .sets_per_slice = 64, .ways = 4, .mapping = MAP_XOR};
        cache_mapper m;
        cache_mapper_init(&m, &g);
        int shift = __builtin_ctz(ls);
        for (int i = 0; i < 20000; i++) {
            uint64_t line = ddio_rng_next(&rng) >> (i % 64);
            uint64_t addr = line << shift;
            uint32_t want = (uint32_t)(__builtin_parityll(addr & 0x1B5F575440ull) |
                                       __builtin_parityll(addr & 0x2EB5FAA880ull) << 1 |
                                       __builtin_parityll(addr & 0x3CCCC93100ull) << 2);
            uint32_t set = cache_mapper_set(&m, line);
            cr_assert_eq(set / 64, want, "line size %u, line 0x%llx", ls, (unsigned long long)line);
            cr_assert_eq(set % 64, line % 64);
        }
    }
}

/* The xor mapping's slice is the 16-bit slice hash modulo the number of
 * slices; cache_xor_slice computes it by multiplications (Lemire's direct
 * remainder on 32 bits).  Every hash value, for small, odd, even, power-of-
 * two and largest slice counts, and beyond 16 bits (the hash is its own
 * remainder); and the set of random lines on the LLC of the benchmarks. */
Test(cache_replay, xor_slice_is_hash_mod_slices)
{
    uint32_t divs[80 + 12];
    size_t nd = 0;
    for (uint32_t d = 1; d <= 80; d++)
        divs[nd++] = d;
    const uint32_t more[] = {127, 255, 256, 1000, 4095, 32767, 32768, 40000, 65535, 65536, 65537, 1u << 20};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        divs[nd++] = more[i];
    for (size_t i = 0; i < nd; i++) {
        cache_geom g = {.line_size = 64, .slices = divs[i], .sets_per_slice = 1, .ways = 4, .mapping = MAP_XOR};
        cache_mapper m;
        cache_mapper_init(&m, &g);
        uint32_t bad = 0, first = 0;
        for (uint32_t h = 0; h < 65536; h++)
            if (cache_xor_slice(&m, h) != h % divs[i] && bad++ == 0)
                first = h;
        cr_assert_eq(bad, 0, "%u slices: %u wrong remainders, first for hash %u", divs[i], bad, first);
    }
    cache_geom g = {.line_size = 64, .slices = 18, .sets_per_slice = 2048, .ways = 11, .mapping = MAP_XOR};
    cache_mapper m;
    cache_mapper_init(&m, &g);
    ddio_rng rng;
    ddio_rng_seed(&rng, 9);
    for (int i = 0; i < 100000; i++) {
        uint64_t line = ddio_rng_next(&rng) >> (i % 64);
        uint32_t want = cache_xor_slice_hash(&m, line) % 18 * 2048 + (uint32_t)(line % 2048);
        cr_assert_eq(cache_mapper_set(&m, line), want, "line 0x%llx", (unsigned long long)line);
    }
}

static size_t mapping_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    size_t n = 0;
    for (int ch; f && (ch = fgetc(f)) != EOF;)
        n += ch == '\n';
    if (f)
        fclose(f);
    return n;
}

/* ddio_table_alloc (the cache's set blocks): large tables start on a 2 MiB
 * boundary (so that huge pages can back all of them), are zeroed and
 * writable over their whole size, and free releases the whole mapping (the
 * over-allocated ends included: repeated alloc/free leaves no mapping
 * behind); small ones are 64-byte aligned and zeroed. */
Test(cache_replay, table_alloc_aligns_large_tables)
{
    const size_t sizes[] = {100, 4096, ((size_t)2 << 20) - 1, (size_t)2 << 20, ((size_t)9 << 19) + 100,
                            (size_t)6 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const size_t size = sizes[i];
        uint8_t *p = ddio_table_alloc(size);
        cr_assert(p, "%zu bytes", size);
        const uintptr_t align = size >= ((size_t)2 << 20) ? (uintptr_t)2 << 20 : 64;
        cr_expect_eq((uintptr_t)p % align, 0, "%zu bytes at %p", size, (void *)p);
        size_t nonzero = 0;
        for (size_t j = 0; j < size; j++)
            nonzero += p[j] != 0;
        cr_expect_eq(nonzero, 0, "%zu bytes: %zu not zeroed", size, nonzero);
        memset(p, 0xA5, size);
        ddio_table_free(p, size);
    }
    /* The first round may map (malloc arenas, stdio); later ones must not. */
    for (int round = 0; round < 2; round++) {
        const size_t before = mapping_count();
        for (int k = 0; k < 16; k++) {
            void *p = ddio_table_alloc(((size_t)9 << 19) + 64 * (size_t)k);
            cr_assert(p);
            ddio_table_free(p, ((size_t)9 << 19) + 64 * (size_t)k);
        }
        if (round == 1)
            cr_expect_eq(mapping_count(), before, "mappings left behind by alloc/free");
    }
}

/* replay.nonfull_sets (the LRU kernel skips the steady-miss test when it is
 * 0) counts the sets with an empty way exactly: through fills by
 * replay_access and by replay_run's general step, a partial allocation mask
 * (sets never fill), and flushes (every set empty again). */
static uint64_t count_nonfull(const replay *r)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < r->c.nsets; s++)
        n += *cache_valid(&r->c, s) != r->c.full_mask;
    return n;
}

Test(cache_replay, nonfull_sets_counts_sets_with_an_empty_way)
{
    cache_geom g = {.line_size = 64, .slices = 2, .sets_per_slice = 8, .ways = 4, .mapping = MAP_XOR, .seed = 1};
    repl_config rc;
    repl_config_default(&rc);
    ddio_rng rng;
    ddio_rng_seed(&rng, 5);
    for (int masked = 0; masked < 2; masked++)
        for (int use_run = 0; use_run < 2; use_run++) {
            replay r;
            ddio_err e;
            cr_assert_eq(replay_init(&r, &g, &rc, masked ? 0x7 : 0xF, 0xF, &e), 0, "%s", e.msg);
            cr_assert_eq(r.nonfull_sets, 16);
            uint8_t ops[64];
            uint64_t addrs[64];
            int seen_full = 0;
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < 64; i++) {
                    ops[i] = round % 10 == 9 && i == 20 ? OP_FLUSH : ddio_rng_below(&rng, 2) ? OP_WRITE : OP_READ;
                    addrs[i] = ddio_rng_below(&rng, 256) * 64;
                }
                if (use_run)
                    replay_run(&r, ops, addrs, 64);
                else
                    for (int i = 0; i < 64; i++)
                        replay_access(&r, (enum replay_op)ops[i], addrs[i]);
                cr_assert_eq(r.nonfull_sets, count_nonfull(&r), "masked %d, run %d, round %d", masked, use_run, round);
                if (masked)
                    cr_assert_eq(r.nonfull_sets, 16);
                seen_full |= r.nonfull_sets == 0;
            }
            cr_assert(masked || seen_full, "the cache never became full");
            replay_free(&r);
        }
}
