/* cmd_cache_replay.c - `ddiosim cache-replay`: replay a din address trace
 * through one cache level and summarise hits, misses and memory traffic. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cache/replay.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_io.h"
#include "sim/common/infile.h"
#include "sim/common/parse.h"
#include "traces/din.h"

static const char usage[] =
    "usage: ddiosim cache-replay [options] [TRACE.din | -]\n"
    "\n"
    "Replay a DineroIV din trace (\"<label> <hex address>\" per line; labels 0 read,\n"
    "1 write, 2 ifetch, 4 flush, 5 PCIe full write, 6 PCIe partial write, 7 PCIe read)\n"
    "through one set-associative cache.  Reads standard input when no file is given.\n"
    "\n"
    "options (defaults: the 24.75 MiB LLC of a Xeon Gold 6140):\n"
    "  --sets N          sets per slice (2048)\n"
    "  --slices N        slices (18)\n"
    "  --ways N          associativity, 1-64 (11)\n"
    "  --line B          line size in bytes, a power of two (64)\n"
    "  --mapping M       modulo | xor | random (xor)\n"
    "  --policy P        lru | bip | srrip (qlru) | brrip | drrip | dip |\n"
    "                    QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO] | duel:<A>,<B> (lru)\n"
    "  --epsilon E       BIP/BRRIP MRU-insertion probability (0.03125)\n"
    "  --alloc-mask HEX  ways core accesses may allocate into (all ways)\n"
    "  --ddio-mask HEX   ways PCIe writes may allocate into; 0x0: DDIO off, PCIe writes go\n"
    "                    to memory and drop any cached copy (the two leftmost ways)\n"
    "  --no-ddio         --ddio-mask 0x0\n"
    "  --seed S          seed of the random mapping and of the policies' coin flips (1)\n"
    "  --format F        table | json (table)\n"
    "  -o, --output FILE write the summary to FILE (atomically) instead of stdout\n"
    "  -h, --help        this help\n";

typedef struct replay_opts {
    cache_geom geom;
    repl_config rc;
    uint64_t alloc_mask, ddio_mask;
    int alloc_set, ddio_set, no_ddio;
    cli_common cc;
    const char *in;
} replay_opts;

static int parse_opts(int argc, char **argv, replay_opts *o, ddio_err *e)
{
    enum { O_SETS = 256, O_SLICES, O_WAYS, O_LINE, O_MAPPING, O_POLICY, O_EPS, O_ALLOC, O_DDIO, O_NO_DDIO, O_SEED };
    static const struct option longopts[] = {
        {"sets", required_argument, 0, O_SETS},     {"slices", required_argument, 0, O_SLICES},
        {"ways", required_argument, 0, O_WAYS},     {"line", required_argument, 0, O_LINE},
        {"mapping", required_argument, 0, O_MAPPING}, {"policy", required_argument, 0, O_POLICY},
        {"epsilon", required_argument, 0, O_EPS},   {"alloc-mask", required_argument, 0, O_ALLOC},
        {"ddio-mask", required_argument, 0, O_DDIO}, {"no-ddio", no_argument, 0, O_NO_DDIO},
        {"seed", required_argument, 0, O_SEED},
        CLI_COMMON_LONGOPTS,                        {0, 0, 0, 0},
    };
    uint64_t v;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case O_SETS:
            if (ddio_parse_u64(optarg, 1, CACHE_MAX_SETS, &v, "--sets", e)) return -1;
            o->geom.sets_per_slice = (uint32_t)v;
            break;
        case O_SLICES:
            if (ddio_parse_u64(optarg, 1, 1024, &v, "--slices", e)) return -1;
            o->geom.slices = (uint32_t)v;
            break;
        case O_WAYS:
            if (ddio_parse_u64(optarg, 1, CACHE_MAX_WAYS, &v, "--ways", e)) return -1;
            o->geom.ways = (uint32_t)v;
            break;
        case O_LINE:
            if (ddio_parse_u64(optarg, 16, 4096, &v, "--line", e)) return -1;
            o->geom.line_size = (uint32_t)v;
            break;
        case O_MAPPING:
            if (cache_parse_mapping(optarg, &o->geom.mapping, e)) {
                ddio_err_prefix(e, "--mapping");
                return -1;
            }
            break;
        case O_POLICY: {
            char msg[300];
            if (repl_check_name(optarg, msg, sizeof msg) != 0)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--policy: %s", msg);
            snprintf(o->rc.name, sizeof o->rc.name, "%s", optarg);
            break;
        }
        case O_EPS:
            if (ddio_parse_double(optarg, 0.0, 1.0, &o->rc.bip_epsilon, "--epsilon", e)) return -1;
            break;
        case O_ALLOC:
            if (ddio_parse_hex(optarg, &o->alloc_mask, "--alloc-mask", e)) return -1;
            o->alloc_set = 1;
            break;
        case O_DDIO:
            if (ddio_parse_hex(optarg, &o->ddio_mask, "--ddio-mask", e)) return -1;
            o->ddio_set = 1;
            break;
        case O_NO_DDIO:
            o->no_ddio = 1;
            break;
        case O_SEED:
            if (ddio_parse_u64(optarg, 0, UINT64_MAX, &v, "--seed", e)) return -1;
            o->geom.seed = v;
            o->rc.seed = v;
            break;
        default: {
            int r = cli_common_option(c, argv, &o->cc, e);
            if (r != CLI_OPT_DONE)
                return r;   /* 1 help, -1 bad value, -2 usage */
        }
        }
    }
    if (optind < argc)
        o->in = argv[optind++];
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    uint32_t w = o->geom.ways;
    uint64_t full = w == 64 ? UINT64_MAX : (1ull << w) - 1;
    if (!o->alloc_set)
        o->alloc_mask = full;
    if (o->no_ddio && o->ddio_set && o->ddio_mask)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--no-ddio: contradicts --ddio-mask 0x%llx",
                         (unsigned long long)o->ddio_mask);
    if (o->no_ddio)
        o->ddio_mask = 0;
    else if (!o->ddio_set)
        o->ddio_mask = w >= 2 ? (3ull << (w - 2)) : 1;
    return 0;
}

static double rate(uint64_t hits, uint64_t n) { return n ? (double)hits / (double)n : 0.0; }

static void format_table(strbuf *sb, const replay_opts *o, const replay *r, double secs)
{
    const cache_geom *g = &o->geom;
    double mib = (double)cache_geom_bytes(g) / (1024.0 * 1024.0);
    replay_counts t = replay_total(r);
    sb_printf(sb, "trace      %s\n", o->in ? o->in : "(stdin)");
    sb_printf(sb, "cache      %u slices x %u sets x %u ways x %u B = %.2f MiB, mapping %s, policy %s\n",
              g->slices, g->sets_per_slice, g->ways, g->line_size, mib, cache_mapping_name(g->mapping),
              o->rc.name);
    sb_printf(sb, "masks      alloc 0x%llx, ddio 0x%llx\n", (unsigned long long)o->alloc_mask,
              (unsigned long long)o->ddio_mask);
    sb_printf(sb, "%-20s %12s %12s %12s %9s\n", "type", "accesses", "hits", "misses", "hit rate");
    for (int i = 0; i < OP_COUNT; i++) {
        const replay_counts *k = &r->op[i];
        if (!k->accesses || i == OP_FLUSH)
            continue;
        sb_printf(sb, "%-20s %12llu %12llu %12llu %8.2f%%\n", din_label_name((enum din_label)i),
                  (unsigned long long)k->accesses, (unsigned long long)k->hits,
                  (unsigned long long)k->misses, 100.0 * rate(k->hits, k->accesses));
    }
    sb_printf(sb, "%-20s %12llu %12llu %12llu %8.2f%%\n", "total", (unsigned long long)t.accesses,
              (unsigned long long)t.hits, (unsigned long long)t.misses, 100.0 * rate(t.hits, t.accesses));
    if (r->op[OP_FLUSH].accesses)
        sb_printf(sb, "flushes    %llu\n", (unsigned long long)r->op[OP_FLUSH].accesses);
    sb_printf(sb, "memory     %llu line reads, %llu line write-backs\n", (unsigned long long)t.mem_reads,
              (unsigned long long)t.writebacks);
    sb_printf(sb, "speed      %.2f M accesses/s (%.3f s, parsing included)\n",
              secs > 0 ? (double)t.accesses / secs / 1e6 : 0.0, secs);
}

static void add_counts(cJSON *obj, const replay_counts *k)
{
    cJSON_AddNumberToObject(obj, "accesses", (double)k->accesses);
    cJSON_AddNumberToObject(obj, "hits", (double)k->hits);
    cJSON_AddNumberToObject(obj, "misses", (double)k->misses);
    cJSON_AddNumberToObject(obj, "hit_frac", rate(k->hits, k->accesses));
    cJSON_AddNumberToObject(obj, "mem_reads", (double)k->mem_reads);
    cJSON_AddNumberToObject(obj, "writebacks", (double)k->writebacks);
}

static char *format_json(const replay_opts *o, const replay *r, double secs)
{
    const cache_geom *g = &o->geom;
    replay_counts t = replay_total(r);
    cJSON *root = cJSON_CreateObject();
    add_counts(root, &t);
    cJSON_AddNumberToObject(root, "flushes", (double)r->op[OP_FLUSH].accesses);
    cJSON_AddNumberToObject(root, "wall_seconds", secs);
    cJSON_AddNumberToObject(root, "accesses_per_sec", secs > 0 ? (double)t.accesses / secs : 0.0);
    cJSON *by = cJSON_AddObjectToObject(root, "by_type");
    for (int i = 0; i < OP_COUNT; i++)
        if (i != OP_FLUSH && r->op[i].accesses)
            add_counts(cJSON_AddObjectToObject(by, din_label_name((enum din_label)i)), &r->op[i]);
    cJSON *cc = cJSON_AddObjectToObject(root, "cache");
    cJSON_AddNumberToObject(cc, "line_size", g->line_size);
    cJSON_AddNumberToObject(cc, "slices", g->slices);
    cJSON_AddNumberToObject(cc, "sets_per_slice", g->sets_per_slice);
    cJSON_AddNumberToObject(cc, "ways", g->ways);
    cJSON_AddNumberToObject(cc, "bytes", (double)cache_geom_bytes(g));
    cJSON_AddStringToObject(cc, "mapping", cache_mapping_name(g->mapping));
    cJSON_AddStringToObject(cc, "policy", o->rc.name);
    char hex[32];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)o->alloc_mask);
    cJSON_AddStringToObject(cc, "alloc_mask", hex);
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)o->ddio_mask);
    cJSON_AddStringToObject(cc, "ddio_mask", hex);
    cJSON_AddNumberToObject(cc, "seed", (double)g->seed);
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    return s;
}

int cmd_cache_replay(int argc, char **argv)
{
    return cmd_cache_replay_io(argc, argv, NULL);
}

int cmd_cache_replay_io(int argc, char **argv, cli_io *io)
{
    ddio_err e = {0};
    replay_opts o = {
        .geom = {.line_size = 64, .slices = 18, .sets_per_slice = 2048, .ways = 11, .mapping = MAP_XOR, .seed = 1},
    };
    repl_config_default(&o.rc);
    int rc = cli_io_parse_outcome(io, "cache-replay", parse_opts(argc, argv, &o, &e), usage, &e);
    if (rc >= 0)
        return rc;

    if (ddio_outfile_check((ddio_file_arg[]){{"-o", o.cc.out}, {0}}, (ddio_file_arg[]){{"TRACE", o.in}, {0}}, &e))
        return cli_io_value_error(io, "cache-replay", &e);
    replay r;
    if (replay_init(&r, &o.geom, &o.rc, o.alloc_mask, o.ddio_mask, &e) != 0)
        return cli_io_fail(io, "cache-replay", &e);
    FILE *in = stdin;
    const char *name = "(stdin)";
    if (o.in && strcmp(o.in, "-") != 0) {
        name = o.in;
        in = ddio_open_input(o.in, &e);
        if (!in) {
            replay_free(&r);
            return cli_io_fail(io, "cache-replay", &e);
        }
    }
    din_reader dr;
    din_reader_init(&dr, in, name);
    din_record rec;
    double t0 = cli_now_s();
    int st;
    /* Replay in batches so the cache can prefetch ahead (replay_run). */
    enum { BATCH = 4096 };
    uint8_t *ops = malloc(BATCH);
    uint64_t *addrs = malloc(BATCH * sizeof *addrs);
    size_t n = 0;
    if (!ops || !addrs)
        st = ddio_errf(&e, DDIO_EXIT_IO, "out of memory");
    else
    while ((st = din_next(&dr, &rec, &e)) == 1) {
        ops[n] = (uint8_t)rec.label;
        addrs[n++] = rec.addr;
        if (n == BATCH) {
            replay_run(&r, ops, addrs, n);
            n = 0;
        }
    }
    if (st == 0)
        replay_run(&r, ops, addrs, n);
    free(ops);
    free(addrs);
    double secs = cli_now_s() - t0;
    din_reader_free(&dr);
    if (in != stdin)
        fclose(in);
    if (st < 0) {
        replay_free(&r);
        return cli_io_fail(io, "cache-replay", &e);
    }

    strbuf sb = {0};
    char *json = NULL;
    const char *text;
    if (o.cc.fmt == FMT_JSON) {
        json = format_json(&o, &r, secs);
        json = json ? cli_provenance(json, argc, argv) : NULL;
        sb_printf(&sb, "%s\n", json);
    } else {
        format_table(&sb, &o, &r, secs);
    }
    text = sb.data;
    rc = cli_io_write(io, o.cc.out, text, &e);
    free(json);
    sb_free(&sb);
    replay_free(&r);
    return rc ? cli_io_fail(io, "cache-replay", &e) : DDIO_EXIT_OK;
}
