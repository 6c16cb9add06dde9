/* config.c - finding and reading config files, command-line overrides, the
 * checks between machine and workload, and the configuration's cache
 * hierarchy. */
#include "configs/config.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configs/overlay.h"
#include "configs/schema.h"
#include "sim/common/datadir.h"
#include "sim/common/infile.h"

#define MAX_FILE_BYTES (1u << 20)
#define BUILTIN "(built-in)"

/* ------------------------------------------------------------ names */

static const char *const opt_names[DDIO_CFG_NOPTS] = {
    [DDIO_CFG_OPT_MACHINE] = "--machine",     [DDIO_CFG_OPT_WORKLOAD] = "--workload",
    [DDIO_CFG_OPT_RX_RING] = "--rx-ring",     [DDIO_CFG_OPT_TX_RING] = "--tx-ring",
    [DDIO_CFG_OPT_BURST] = "--burst",         [DDIO_CFG_OPT_CORES] = "--cores",
    [DDIO_CFG_OPT_DDIO_WAYS] = "--ddio-ways", [DDIO_CFG_OPT_DDIO_MASK] = "--ddio-mask",
    [DDIO_CFG_OPT_POLICY] = "--policy",       [DDIO_CFG_OPT_MAPPING] = "--mapping",
    [DDIO_CFG_OPT_SET] = "--set",             [DDIO_CFG_OPT_RX_RING_TOTAL] = "--rx-ring-total",
    [DDIO_CFG_OPT_EXTRA_CYCLES] = "--extra-cycles", [DDIO_CFG_OPT_UNCORE_GHZ] = "--uncore-ghz",
    [DDIO_CFG_OPT_WRITE_RATIO] = "--write-ratio", [DDIO_CFG_OPT_OVERLAY] = "--overlay",
    [DDIO_CFG_OPT_NO_DDIO] = "--no-ddio",
};

/* Options that set one field: which struct (0 machine, 1 workload) and path. */
static const struct {
    int part;
    const char *path;
} opt_field[DDIO_CFG_NOPTS] = {
    [DDIO_CFG_OPT_RX_RING] = {1, "driver.rx_ring"}, [DDIO_CFG_OPT_TX_RING] = {1, "driver.tx_ring"},
    [DDIO_CFG_OPT_BURST] = {1, "driver.burst"},     [DDIO_CFG_OPT_CORES] = {1, "cores"},
    [DDIO_CFG_OPT_DDIO_MASK] = {0, "ddio_mask"},    [DDIO_CFG_OPT_POLICY] = {0, "llc.policy"},
    [DDIO_CFG_OPT_MAPPING] = {0, "llc.mapping"},    [DDIO_CFG_OPT_UNCORE_GHZ] = {0, "uncore.ghz"},
};

const char *ddio_config_option_name(enum ddio_cfg_opt opt)
{
    return (unsigned)opt < DDIO_CFG_NOPTS ? opt_names[opt] : "?";
}

const char *ddio_config_option_field(enum ddio_cfg_opt opt, int *part)
{
    /* The options resolved after the overrides, and the field each ends in. */
    switch (opt) {
    case DDIO_CFG_OPT_DDIO_WAYS:
    case DDIO_CFG_OPT_NO_DDIO: *part = 0; return "ddio_mask";
    case DDIO_CFG_OPT_RX_RING_TOTAL: *part = 1; return "driver.rx_ring";
    case DDIO_CFG_OPT_EXTRA_CYCLES: *part = 1; return "cycles_per_packet";
    case DDIO_CFG_OPT_WRITE_RATIO: *part = 1; return "access";
    default: break;
    }
    if ((unsigned)opt >= DDIO_CFG_NOPTS || !opt_field[opt].path)
        return NULL;
    *part = opt_field[opt].part;
    return opt_field[opt].path;
}

void ddio_config_default(ddio_config *c)
{
    memset(c, 0, sizeof *c);
    ddio_machine_default(&c->machine);
    ddio_workload_default(&c->workload);
    snprintf(c->machine_file, sizeof c->machine_file, BUILTIN);
    snprintf(c->workload_file, sizeof c->workload_file, BUILTIN);
}

/* ------------------------------------------------------------ files */

static const char *kind_option(const char *kind)
{
    return strcmp(kind, "machines") == 0 ? "--machine" : "--workload";
}

static const char *kind_singular(const char *kind)
{
    return strcmp(kind, "machines") == 0 ? "machine" : "workload";
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The directories searched for names, in order: $DDIOSIM_CONFIG_DIR/KIND,
 * then the data directory's configs/KIND (sim/common/datadir.h); when the
 * data directory cannot be found, `why` says why. */
static int search_dirs(const char *kind, char dirs[2][DDIO_DATA_PATH_MAX], ddio_err *why)
{
    int n = 0;
    const char *env = getenv("DDIOSIM_CONFIG_DIR");
    if (env && *env)
        snprintf(dirs[n++], DDIO_DATA_PATH_MAX, "%s/%s", env, kind);
    char rel[64];
    snprintf(rel, sizeof rel, "configs/%s", kind);
    if (ddio_datapath(rel, dirs[n], DDIO_DATA_PATH_MAX, why) == 0)
        n++;
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void ddio_config_list(const char *kind, char *buf, size_t cap)
{
    char dirs[2][DDIO_DATA_PATH_MAX];
    ddio_err why = {0};
    int nd = search_dirs(kind, dirs, &why);
    char *names[256];
    size_t n = 0;
    for (int d = 0; d < nd; d++) {
        DIR *dir = opendir(dirs[d]);
        if (!dir)
            continue;
        struct dirent *de;
        while ((de = readdir(dir)) != NULL && n < 256) {
            if (de->d_name[0] == '.' || !ends_with(de->d_name, ".json"))
                continue;
            char *name = strndup(de->d_name, strlen(de->d_name) - 5);
            if (name)
                names[n++] = name;
        }
        closedir(dir);
    }
    qsort(names, n, sizeof names[0], cmp_str);
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if ((i == 0 || strcmp(names[i], names[i - 1]) != 0) && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", names[i]);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

int ddio_config_find(const char *kind, const char *name, char *path, size_t cap, ddio_err *e)
{
    const char *opt = kind_option(kind);
    if (!name || !*name)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: empty name", opt);
    if (strchr(name, '/') || ends_with(name, ".json")) {
        if ((size_t)snprintf(path, cap, "%s", name) >= cap)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: path too long", opt);
        return 0;
    }
    char dirs[2][DDIO_DATA_PATH_MAX];
    ddio_err why = {0};
    int nd = search_dirs(kind, dirs, &why);
    for (int d = 0; d < nd; d++) {
        if ((size_t)snprintf(path, cap, "%s/%s.json", dirs[d], name) >= cap)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: name too long", opt);
        if (access(path, R_OK) == 0)
            return 0;
    }
    char known[1024];
    ddio_config_list(kind, known, sizeof known);
    char where[2 * DDIO_DATA_PATH_MAX + 32] = "";
    if (nd > 0)
        snprintf(where, sizeof where, "searched %s%s%s%s", dirs[0], nd > 1 ? ", " : "", nd > 1 ? dirs[1] : "",
                 why.msg[0] ? "; " : "");
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: unknown %s '%s' (known: %s; %s%s)", opt, kind_singular(kind), name,
                     known[0] ? known : "none", where, why.msg);
}

static char *read_text(const char *path, size_t *len, ddio_err *e)
{
    FILE *f = ddio_open_input(path, e);
    return f ? ddio_read_all(f, path, MAX_FILE_BYTES, "; not a config file", len, e) : NULL;
}

/* Overlay the keys of `text` on `obj`. */
static int overlay_text(const cfg_table *t, void *obj, const char *text, size_t len, const char *file,
                        uint8_t *set, ddio_err *e)
{
    cJSON *j = cfg_parse_text(text, len, file, e);
    if (!j)
        return -1;
    int rc = cfg_from_json(t, obj, j, file, set, e);
    cJSON_Delete(j);
    return rc;
}

static int overlay_file(const cfg_table *t, void *obj, const char *path, uint8_t *set, ddio_err *e)
{
    size_t len;
    char *text = read_text(path, &len, e);
    if (!text)
        return -1;
    int rc = overlay_text(t, obj, text, len, path, set, e);
    free(text);
    return rc;
}

int ddio_machine_parse(ddio_machine *m, const char *text, size_t len, const char *file, ddio_err *e)
{
    uint8_t set[DDIO_CFG_MAX_FIELDS] = {0};
    ddio_machine_default(m);
    if (overlay_text(ddio_machine_table(), m, text, len, file, set, e) != 0)
        return -1;
    ddio_machine_derive_file(m, set, NULL);
    ddio_machine_derive(m, set, NULL, NULL);
    return ddio_machine_validate(m, file, e);
}

int ddio_workload_parse(ddio_workload *w, const char *text, size_t len, const char *file, ddio_err *e)
{
    ddio_workload_default(w);
    if (overlay_text(ddio_workload_table(), w, text, len, file, NULL, e) != 0)
        return -1;
    return ddio_workload_validate(w, file, e);
}

int ddio_machine_load(ddio_machine *m, const char *name_or_path, ddio_err *e)
{
    char path[1024];
    size_t len;
    if (ddio_config_find("machines", name_or_path, path, sizeof path, e) != 0)
        return -1;
    char *text = read_text(path, &len, e);
    if (!text)
        return -1;
    int rc = ddio_machine_parse(m, text, len, path, e);
    free(text);
    return rc;
}

int ddio_workload_load(ddio_workload *w, const char *name_or_path, ddio_err *e)
{
    char path[1024];
    size_t len;
    if (ddio_config_find("workloads", name_or_path, path, sizeof path, e) != 0)
        return -1;
    char *text = read_text(path, &len, e);
    if (!text)
        return -1;
    int rc = ddio_workload_parse(w, text, len, path, e);
    free(text);
    return rc;
}

/* ------------------------------------------------------------ checks */

/* Checks between machine and workload; the message names the workload
 * field, or the option that set one of the fields involved. */
static int cross_fail(const cfg_ctx *wc, const char *wpaths, const cfg_ctx *mc, const char *mpaths, ddio_err *e,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int cross_fail(const cfg_ctx *wc, const char *wpaths, const cfg_ctx *mc, const char *mpaths, ddio_err *e,
                      const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *opt = cfg_src_of(wc, wpaths);
    if (!opt)
        opt = cfg_src_of(mc, mpaths);
    if (opt)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", opt, msg);
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %.*s: %s", wc->file, (int)strcspn(wpaths, ","), wpaths, msg);
}

/* nic.driver ice / i40e: the queue set-up checks of DPDK's drivers, which
 * refuse these rings and thresholds (or, below 32, run another burst
 * function the simulator does not model).  DPDK drivers/net/ice/ice_rxtx.c:
 * ice_check_rx_burst_bulk_alloc_preconditions (rx_free_thresh >=
 * ICE_RX_MAX_BURST = 32, < the ring, dividing it), ice_tx_queue_setup (the
 * TX rules below) and ice_set_tx_function_flag (the simple TX path needs
 * tx_rs_thresh >= ICE_TX_MAX_BURST = 32); drivers/net/i40e/i40e_rxtx.c has
 * the same rules. */
static int intel_thresholds(const ddio_config *c, const cfg_ctx *mc, const cfg_ctx *wc, ddio_err *e)
{
    const ddio_driver *d = &c->workload.driver;
    const char *drv = c->machine.nic.driver == DDIO_NIC_I40E ? "i40e" : "ice";
    if (d->rx_free_thresh < 32 || d->rx_free_thresh >= d->rx_ring || d->rx_ring % d->rx_free_thresh)
        return cross_fail(wc, "driver.rx_free_thresh,driver.rx_ring", mc, "nic.driver", e,
                          "%s: rx_free_thresh %u must be at least 32, smaller than the RX ring (%u descriptors) and "
                          "divide it", drv, d->rx_free_thresh, d->rx_ring);
    if (d->tx_rs_thresh < 32 || d->tx_rs_thresh + 2 >= d->tx_ring || d->tx_ring % d->tx_rs_thresh)
        return cross_fail(wc, "driver.tx_rs_thresh,driver.tx_ring", mc, "nic.driver", e,
                          "%s: tx_rs_thresh %u must be at least 32, smaller than the TX ring (%u descriptors) minus "
                          "2 and divide it", drv, d->tx_rs_thresh, d->tx_ring);
    if (d->tx_free_thresh + 3 >= d->tx_ring || d->tx_free_thresh < d->tx_rs_thresh ||
        d->tx_free_thresh + d->tx_rs_thresh > d->tx_ring)
        return cross_fail(wc, "driver.tx_free_thresh,driver.tx_rs_thresh,driver.tx_ring", mc, "nic.driver", e,
                          "%s: tx_free_thresh %u must be smaller than the TX ring (%u descriptors) minus 3, at least "
                          "tx_rs_thresh (%u), and with it at most the ring",
                          drv, d->tx_free_thresh, d->tx_ring, d->tx_rs_thresh);
    return 0;
}

static int cross_check(const ddio_config *c, const cfg_ctx *mc, const cfg_ctx *wc, ddio_err *e)
{
    const ddio_machine *m = &c->machine;
    const ddio_workload *w = &c->workload;
    int dis = w->distractor.working_set != 0;
    if (w->cores + (uint32_t)dis > m->cores)
        return cross_fail(wc, "cores,distractor.working_set", mc, "cores", e,
                          "%u core%s%s exceed the %u of machine %s", w->cores, w->cores == 1 ? "" : "s",
                          dis ? " + 1 for the distractor" : "", m->cores, m->name);
    /* Each cache is within its limit (ddio_machine_check); all of them
     * together, every simulated core with its L2, within the simulator's. */
    uint64_t l2_lines = (uint64_t)m->l2.sets * m->l2.ways;
    uint64_t llc_lines = (uint64_t)m->llc.slices * m->llc.sets_per_slice * m->llc.ways;
    uint64_t l2s = w->cores + (uint64_t)dis, total = l2s * l2_lines + llc_lines;
    if (total > DDIO_MAX_CACHE_LINES)
        return cross_fail(wc, "cores,distractor.working_set", mc, "l2.sets,l2.ways,llc.sets_per_slice,llc.slices,llc.ways",
                          e, "%llu L2s of %llu lines and an LLC of %llu lines are %llu lines, more than the %llu the "
                          "simulator holds",
                          (unsigned long long)l2s, (unsigned long long)l2_lines, (unsigned long long)llc_lines,
                          (unsigned long long)total, (unsigned long long)DDIO_MAX_CACHE_LINES);
    char msg[200];
    if (dis) {
        if (cfg_check_mask(w->distractor.cat_mask, m->llc.ways, 1, msg, sizeof msg))
            return cross_fail(wc, "distractor.cat_mask", mc, "llc.ways", e, "%s", msg);
        int known = 0;
        for (uint32_t i = 0; i < m->n_classes; i++)
            known |= m->cat_class[i] == w->distractor.cat_mask;
        if (!known && m->n_classes >= DDIO_MAX_CLASSES)
            return cross_fail(wc, "distractor.cat_mask", mc, "cat.classes", e,
                              "no CAT class left for the distractor (%d in use)", DDIO_MAX_CLASSES);
    }
    if (m->nic.driver != DDIO_NIC_MLX5 && intel_thresholds(c, mc, wc, e) != 0)
        return -1;
    for (uint32_t i = 0; i < w->n_tables; i++)
        if (w->tables[i].bytes && w->tables[i].bytes < m->llc.line_size) {
            char path[64];
            snprintf(path, sizeof path, "tables[%u].bytes", i);
            return cross_fail(wc, path, mc, "llc.line_size", e, "%llu bytes is less than one %u-byte line",
                              (unsigned long long)w->tables[i].bytes, m->llc.line_size);
        }
    return 0;
}

static int check_all(const ddio_config *c, const char *const *msrc, const char *const *wsrc, ddio_err *e)
{
    cfg_ctx mc = {ddio_machine_table(), c->machine_file, msrc};
    cfg_ctx wc = {ddio_workload_table(), c->workload_file, wsrc};
    if (ddio_machine_check(&c->machine, &mc, e) != 0 || ddio_workload_check(&c->workload, &wc, e) != 0)
        return -1;
    return cross_check(c, &mc, &wc, e);
}

int ddio_config_validate(const ddio_config *c, ddio_err *e)
{
    return check_all(c, NULL, NULL, e);
}

/* ------------------------------------------------------------ overrides */

/* State of one round of overrides: who set what, and the options resolved
 * once every override is in (a later one may change what they depend on):
 * --ddio-ways against the final LLC ways, --rx-ring-total over the final
 * cores, --extra-cycles on the final cycles per packet.  A repeated option
 * of these keeps its last value, as a repeated field override does. */
typedef struct ov_state {
    uint8_t mset[DDIO_CFG_MAX_FIELDS], wset[DDIO_CFG_MAX_FIELDS];
    const char *msrc[DDIO_CFG_MAX_FIELDS], *wsrc[DDIO_CFG_MAX_FIELDS];
    const char *morigin[DDIO_CFG_MAX_FIELDS], *worigin[DDIO_CFG_MAX_FIELDS];
    char set_names[DDIO_MAX_OVERRIDES][160];   /* "--set machine.llc.ways" */
    uint32_t n_set_names;
    int ddio_ways;                  /* -1: not given */
    int ddio_mask_given;
    int no_ddio;                    /* --no-ddio given */
    int64_t rx_ring_total;          /* -1: not given */
    double extra_cycles;            /* < 0: not given */
} ov_state;

static void ov_init(ov_state *s)
{
    memset(s, 0, sizeof *s);
    s->ddio_ways = -1;
    s->rx_ring_total = -1;
    s->extra_cycles = -1;
}

/* The options that are not a field get the field checks through these rows. */
static const cfg_field ddio_ways_field = {"ddio_ways", CFG_U32, 0, sizeof(uint32_t), .lo = 0, .hi = CACHE_MAX_WAYS,
                                          .doc = "DDIO ways counted from the left (0: DDIO off)"};
/* Up to the largest ring on every core a machine can have. */
static const cfg_field rx_ring_total_field = {"rx_ring_total", CFG_U32, 0, sizeof(uint32_t), .lo = 1,
                                              .hi = 32768.0 * DDIO_MAX_CORES,
                                              .doc = "RX descriptors of all cores together"};
/* The bound of workload.cycles_per_packet. */
static const cfg_field extra_cycles_field = {"extra_cycles", CFG_F64, 0, sizeof(double), .lo = 0, .hi = 1e7,
                                             .doc = "cycles added to every packet"};
static const cfg_field write_ratio_field = {"write_ratio", CFG_F64, 0, sizeof(double), .lo = 0, .hi = 1,
                                            .doc = "share of each packet's bytes the core writes, from byte 0"};

/* Record that option `name` set field `idx` of the machine (part 0) or the
 * workload (part 1); `src` is what an error names ("--set machine.x"). */
static void ov_mark(ov_state *s, int part, int idx, const char *src, const char *name)
{
    if (part) {
        s->wset[idx] = 1;
        s->wsrc[idx] = src;
        s->worigin[idx] = name;
    } else {
        s->mset[idx] = 1;
        s->msrc[idx] = src;
        s->morigin[idx] = name;
    }
}

/* packet-acrobat's write_ratio (Wang, Xu, Wu, SIGMETRICS 2022, Algorithm 1):
 * the core writes ceil(ratio x length) bytes of each packet.  The
 * workload's ratio-sized write segments go; one ratio segment takes the
 * place of the last of them, with its offset and `follow` (Algorithm 1's
 * write range starts where its read range ends), or is appended from byte 0
 * when there was none.  Byte-sized writes stay: Algorithm 1 always writes
 * the MAC addresses (set_mac_address), and so does l2fwd.  Ratio 0 leaves
 * no ratio write. */
static int replace_writes(ddio_workload *w, double ratio, ddio_err *e)
{
    ddio_segment keep[DDIO_MAX_SEGMENTS];
    ddio_segment seg = {.op = DDIO_SEG_WRITE, .offset = 0, .follow = false, .unit = DDIO_UNIT_RATIO};
    uint32_t n = 0, at = UINT32_MAX;
    for (uint32_t i = 0; i < w->n_access; i++) {
        const ddio_segment *a = &w->access[i];
        if (a->op == DDIO_SEG_WRITE && a->unit == DDIO_UNIT_RATIO) {
            at = n;
            seg.offset = a->offset;
            seg.follow = a->follow;
        } else {
            keep[n++] = *a;
        }
    }
    if (at == UINT32_MAX)
        at = n;
    if (ratio > 0) {
        if (n >= DDIO_MAX_SEGMENTS)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--write-ratio: the workload's %d access segments leave no room "
                             "for a write segment", DDIO_MAX_SEGMENTS);
        memmove(&keep[at + 1], &keep[at], (n - at) * sizeof keep[0]);
        seg.length = ratio;
        keep[at] = seg;
        n++;
    }
    memset(w->access, 0, sizeof w->access);
    memcpy(w->access, keep, n * sizeof keep[0]);
    w->n_access = n;
    return 0;
}

/* Set field `path` of the machine (part 0) or workload (part 1) from
 * text; `src` is what an error and `config show` name. */
static int apply_field(ddio_config *c, ov_state *s, int part, const char *path, const char *value, const char *src,
                       const char *name, ddio_err *e)
{
    char msg[300];
    const cfg_table *t = part ? ddio_workload_table() : ddio_machine_table();
    void *obj = part ? (void *)&c->workload : (void *)&c->machine;
    int idx = cfg_index(t, path);
    if (strchr(path, '['))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: list elements cannot be set here; use a JSON file", src);
    if (idx < 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no such field", src);
    if (cfg_set_text(&t->f[idx], obj, value, msg, sizeof msg) != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", src, msg);
    ov_mark(s, part, idx, src, name);
    if (!part && strcmp(path, "ddio_mask") == 0)
        s->ddio_mask_given = 1;
    return 0;
}

/* One PATH=VALUE of --set, or of the overlay file `overlay` (NULL: --set),
 * whose errors name "OVERLAY: set.PATH". */
static int apply_set(ddio_config *c, ov_state *s, const char *value, const char *overlay, ddio_err *e)
{
    const char *eq = value ? strchr(value, '=') : NULL;
    if (!eq || eq == value)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--set: '%s' is not PATH=VALUE (e.g. machine.llc.ways=16)",
                         value ? value : "");
    char pathbuf[128];
    snprintf(pathbuf, sizeof pathbuf, "%.*s", (int)(eq - value), value);
    if (s->n_set_names >= DDIO_MAX_OVERRIDES)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--set: more than %d overrides", DDIO_MAX_OVERRIDES);
    char *slot = s->set_names[s->n_set_names];
    if (overlay)
        snprintf(slot, sizeof s->set_names[0], "%s: set.%s", overlay, pathbuf);
    else
        snprintf(slot, sizeof s->set_names[0], "--set %s", pathbuf);
    int part;
    if (strncmp(pathbuf, "machine.", 8) == 0)
        part = 0;
    else if (strncmp(pathbuf, "workload.", 9) == 0)
        part = 1;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: the path must start with machine. or workload.", slot);
    s->n_set_names++;
    return apply_field(c, s, part, pathbuf + (part ? 9 : 8), eq + 1, slot, overlay ? "--overlay" : "--set", e);
}

static int apply_one(ddio_config *c, ov_state *s, enum ddio_cfg_opt opt, const char *value, ddio_err *e)
{
    char msg[300];
    const char *name = ddio_config_option_name(opt);
    if (opt == DDIO_CFG_OPT_DDIO_WAYS) {
        uint32_t k;
        if (cfg_set_text(&ddio_ways_field, &k, value, msg, sizeof msg) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", name, msg);
        s->ddio_ways = (int)k;
        return 0;
    }
    if (opt == DDIO_CFG_OPT_NO_DDIO) {
        s->no_ddio = 1;
        return 0;
    }
    if (opt == DDIO_CFG_OPT_RX_RING_TOTAL) {
        uint32_t n;
        if (cfg_set_text(&rx_ring_total_field, &n, value, msg, sizeof msg) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", name, msg);
        s->rx_ring_total = n;
        return 0;
    }
    if (opt == DDIO_CFG_OPT_EXTRA_CYCLES) {
        double x;
        if (cfg_set_text(&extra_cycles_field, &x, value, msg, sizeof msg) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", name, msg);
        s->extra_cycles = x;
        return 0;
    }
    if (opt == DDIO_CFG_OPT_WRITE_RATIO) {
        /* Now, not at the end: nothing else on the command line changes the
         * segments (--set cannot set list elements). */
        double r;
        if (cfg_set_text(&write_ratio_field, &r, value, msg, sizeof msg) != 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", name, msg);
        if (replace_writes(&c->workload, r, e) != 0)
            return -1;
        ov_mark(s, 1, cfg_index(ddio_workload_table(), "access"), name, name);
        return 0;
    }
    if (opt == DDIO_CFG_OPT_OVERLAY) {
        /* Each of the file's fields as a --set, at the overlay's place on
         * the command line; an error names the file and the field. */
        ddio_overlay *ov = malloc(sizeof *ov);
        if (!ov)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        int rc = ddio_overlay_load(value, ov, e);
        for (uint32_t i = 0; rc == 0 && i < ov->n; i++)
            rc = apply_set(c, s, ov->set[i], value, e);
        free(ov);
        return rc;
    }
    if (opt == DDIO_CFG_OPT_SET)
        return apply_set(c, s, value, NULL, e);
    if (!opt_field[opt].path)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: not an override", name);
    return apply_field(c, s, opt_field[opt].part, opt_field[opt].path, value, name, name, e);
}

/* After all overrides: --no-ddio is DDIO ways 0 (an empty mask).  A
 * nonzero way count or mask beside it contradicts it; 0 agrees. */
static int finish_no_ddio(ddio_config *c, ov_state *s, ddio_err *e)
{
    if (!s->no_ddio)
        return 0;
    int idx = cfg_index(ddio_machine_table(), "ddio_mask");
    if (s->ddio_ways > 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--no-ddio: contradicts --ddio-ways %d", s->ddio_ways);
    if (s->ddio_mask_given && c->machine.ddio_mask)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--no-ddio: contradicts %s 0x%llx", s->msrc[idx],
                         (unsigned long long)c->machine.ddio_mask);
    c->machine.ddio_mask = 0;
    ov_mark(s, 0, idx, "--no-ddio", "--no-ddio");
    s->ddio_ways = -1;
    return 0;
}

/* After all overrides: turn --ddio-ways into a mask of the final LLC. */
static int finish_ddio_ways(ddio_config *c, ov_state *s, ddio_err *e)
{
    if (s->ddio_ways < 0)
        return 0;
    if (s->ddio_mask_given)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--ddio-ways: cannot be combined with a DDIO mask override");
    if ((uint32_t)s->ddio_ways > c->machine.llc.ways)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--ddio-ways: %d is more than the %u ways of the LLC", s->ddio_ways,
                         c->machine.llc.ways);
    int idx = cfg_index(ddio_machine_table(), "ddio_mask");
    c->machine.ddio_mask = ddio_leftmost_ways((uint32_t)s->ddio_ways, c->machine.llc.ways);
    ov_mark(s, 0, idx, "--ddio-ways", "--ddio-ways");
    return 0;
}

/* After all overrides: --rx-ring-total over the final cores.  A program such
 * as FastClick asks each queue for NDESC / NCORE descriptors (an integer
 * division) and the mlx5 PMD rounds a count that is not a power of two up
 * to the next one (mlx5_rx_queue_pre_setup: "increased number of
 * descriptors in Rx queue ... to the next power of two"). */
static int finish_rx_ring_total(ddio_config *c, ov_state *s, ddio_err *e)
{
    if (s->rx_ring_total < 0)
        return 0;
    const char *name = "--rx-ring-total";
    const cfg_table *t = ddio_workload_table();
    int idx = cfg_index(t, "driver.rx_ring");
    if (s->wset[idx])
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: cannot be combined with %s", name, s->wsrc[idx]);
    uint64_t total = (uint64_t)s->rx_ring_total, cores = c->workload.cores;
    uint64_t per = total / cores;
    if (per < 1)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %llu descriptors over %llu cores is less than one per core", name,
                         (unsigned long long)total, (unsigned long long)cores);
    uint64_t ring = 1;
    while (ring < per)
        ring <<= 1;
    char text[32], msg[300];
    snprintf(text, sizeof text, "%llu", (unsigned long long)ring);
    if (cfg_set_text(&t->f[idx], &c->workload, text, msg, sizeof msg) != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %llu descriptors over %llu core%s -> driver.rx_ring %s: %s", name,
                         (unsigned long long)total, (unsigned long long)cores, cores == 1 ? "" : "s", text, msg);
    ov_mark(s, 1, idx, name, name);
    return 0;
}

/* After all overrides: --extra-cycles on the final cycles per packet, so a
 * --set of the cycles anywhere on the line is the base it adds to. */
static int finish_extra_cycles(ddio_config *c, ov_state *s, ddio_err *e)
{
    if (s->extra_cycles < 0)
        return 0;
    const char *name = "--extra-cycles";
    const cfg_table *t = ddio_workload_table();
    int idx = cfg_index(t, "cycles_per_packet");
    const cfg_field *f = &t->f[idx];
    double base = c->workload.cycles_per_packet, sum = base + s->extra_cycles;
    /* The field's own bound, in full digits: "1e+07 is out of range [0,
     * 1e+07]" would hide which number is too large. */
    if (sum > f->hi)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: cycles_per_packet %.15g + %.15g = %.15g is more than %.15g", name,
                         base, s->extra_cycles, sum, f->hi);
    c->workload.cycles_per_packet = sum;
    ov_mark(s, 1, idx, name, name);
    return 0;
}

/* Every option that needs the final values, once all overrides are in. */
static int finish_overrides(ddio_config *c, ov_state *s, ddio_err *e)
{
    if (finish_no_ddio(c, s, e) != 0 || finish_ddio_ways(c, s, e) != 0 || finish_rx_ring_total(c, s, e) != 0 ||
        finish_extra_cycles(c, s, e) != 0)
        return -1;
    return 0;
}

void ddio_config_args_init(ddio_config_args *a)
{
    memset(a, 0, sizeof *a);
}

int ddio_config_args_add(ddio_config_args *a, enum ddio_cfg_opt opt, const char *value, ddio_err *e)
{
    if ((unsigned)opt >= DDIO_CFG_NOPTS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unknown configuration option %d", (int)opt);
    if (opt == DDIO_CFG_OPT_MACHINE) {
        a->machine = value;
        return 0;
    }
    if (opt == DDIO_CFG_OPT_WORKLOAD) {
        a->workload = value;
        return 0;
    }
    if (a->n >= DDIO_MAX_OVERRIDES)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: more than %d overrides", ddio_config_option_name(opt),
                         DDIO_MAX_OVERRIDES);
    a->ov[a->n++] = (ddio_config_override){opt, value};
    return 0;
}

int ddio_config_resolve(const ddio_config_args *a, ddio_config *out, ddio_config_origin *origin, ddio_err *e)
{
    /* Large (the override state holds names): keep it off the caller's stack. */
    ddio_config *c = malloc(sizeof *c);
    ov_state *s = malloc(sizeof *s);
    int rc = -1;
    if (!c || !s) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    ddio_config_default(c);
    ov_init(s);
    uint8_t mfile[DDIO_CFG_MAX_FIELDS] = {0}, wfile[DDIO_CFG_MAX_FIELDS] = {0};
    uint8_t mgiven[DDIO_CFG_MAX_FIELDS], derived[DDIO_CFG_MAX_FIELDS] = {0};
    if (a->machine) {
        if (ddio_config_find("machines", a->machine, c->machine_file, sizeof c->machine_file, e) != 0 ||
            overlay_file(ddio_machine_table(), &c->machine, c->machine_file, mfile, e) != 0)
            goto done;
    }
    ddio_machine_derive_file(&c->machine, mfile, derived);
    if (a->workload) {
        if (ddio_config_find("workloads", a->workload, c->workload_file, sizeof c->workload_file, e) != 0 ||
            overlay_file(ddio_workload_table(), &c->workload, c->workload_file, wfile, e) != 0)
            goto done;
    }
    for (uint32_t i = 0; i < a->n; i++)
        if (apply_one(c, s, a->ov[i].opt, a->ov[i].value, e) != 0)
            goto done;
    if (finish_overrides(c, s, e) != 0)
        goto done;
    for (size_t i = 0; i < DDIO_CFG_MAX_FIELDS; i++)
        mgiven[i] = mfile[i] | s->mset[i];
    ddio_machine_derive(&c->machine, mgiven, s->msrc, derived);
    if (check_all(c, s->msrc, s->wsrc, e) != 0)
        goto done;
    if (origin) {
        for (size_t i = 0; i < DDIO_CFG_MAX_FIELDS; i++) {
            origin->machine[i] = s->morigin[i] ? s->morigin[i] : derived[i] ? "derived" : mfile[i] ? "file" : "default";
            origin->workload[i] = s->worigin[i] ? s->worigin[i] : wfile[i] ? "file" : "default";
        }
    }
    *out = *c;
    rc = 0;
done:
    free(c);
    free(s);
    return rc;
}

int ddio_config_apply_override(ddio_config *c, const char *option, const char *value, ddio_err *e)
{
    int opt = -1;
    for (int i = 0; i < DDIO_CFG_NOPTS; i++)
        if (option && strcmp(option, opt_names[i]) == 0)
            opt = i;
    if (opt < 0 || opt == DDIO_CFG_OPT_MACHINE || opt == DDIO_CFG_OPT_WORKLOAD)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: not an override option", option ? option : "(null)");
    ddio_config *copy = malloc(sizeof *copy);
    ov_state *s = malloc(sizeof *s);
    int rc = -1;
    if (!copy || !s) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    *copy = *c;
    ov_init(s);
    if (apply_one(copy, s, (enum ddio_cfg_opt)opt, value, e) != 0 || finish_overrides(copy, s, e) != 0 ||
        check_all(copy, s->msrc, s->wsrc, e) != 0)
        goto done;
    *c = *copy;
    rc = 0;
done:
    free(copy);
    free(s);
    return rc;
}

/* ------------------------------------------------------------ output */

static char *print_json(const cfg_table *t, const void *obj)
{
    cJSON *j = cfg_to_json(t, obj);
    char *s = cJSON_Print(j);
    cJSON_Delete(j);
    return s;
}

char *ddio_machine_to_json(const ddio_machine *m) { return print_json(ddio_machine_table(), m); }
char *ddio_workload_to_json(const ddio_workload *w) { return print_json(ddio_workload_table(), w); }

int ddio_machine_diff(const ddio_machine *a, const ddio_machine *b, char *path, size_t cap)
{
    return cfg_diff(ddio_machine_table(), a, b, path, cap);
}

int ddio_workload_diff(const ddio_workload *a, const ddio_workload *b, char *path, size_t cap)
{
    return cfg_diff(ddio_workload_table(), a, b, path, cap);
}

/* ------------------------------------------------------------ hierarchy */

int ddio_config_to_hier(const ddio_config *c, hier_config *out, ddio_err *e)
{
    const ddio_workload *w = &c->workload;
    int dis = w->distractor.working_set != 0;
    if (machine_to_hier_config(&c->machine, w->cores + (uint32_t)dis, out, e) != 0)
        return -1;
    if (!dis)
        return 0;
    uint32_t k = 0;
    while (k < out->n_cos && out->cos_mask[k] != w->distractor.cat_mask)
        k++;
    if (k == out->n_cos) {
        if (out->n_cos >= HIER_MAX_COS)
            return ddio_errf(e, DDIO_EXIT_USAGE, "distractor.cat_mask: no CAT class left (%d in use)", HIER_MAX_COS);
        out->cos_mask[out->n_cos++] = w->distractor.cat_mask;
    }
    out->core_cos[w->cores] = (uint8_t)k;
    return hier_config_validate(out, e);
}
