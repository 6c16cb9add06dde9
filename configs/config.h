/* config.h - the machine and the workload a prediction is made for.
 *
 * A `ddio_machine` describes the hardware (cores, L2/LLC geometry, DDIO,
 * Shared and CAT masks, latencies, NIC, PCIe link); a `ddio_workload` the
 * packet-processing program on it (which packet lines it touches, the tables
 * it reads, its cycles per packet) and its DPDK driver settings (rings,
 * burst, refill / recycle thresholds, mempool, buffer layout).
 *
 * Both come from built-in defaults (the skylake-6140 testbed of ddio-bench
 * running l2fwd), optionally overlaid by a JSON file and by command-line
 * overrides.  JSON keys, CLI overrides, the `config show` output and the
 * field-by-field comparison are all driven by ONE field-descriptor table per
 * struct (machine.c / workload.c), so a value is checked the same way
 * wherever it comes from.  Where each default comes from: docs/configs.md.
 *
 * Errors are one line: "FILE: json.path: what is wrong" for a file,
 * "--option: what is wrong" for a command-line override; exit code 2. */
#ifndef DDIOSIM_CONFIGS_CONFIG_H
#define DDIOSIM_CONFIGS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/cache/geometry.h"
#include "sim/cache/hier.h"
#include "sim/common/err.h"

#define DDIO_NAME_LEN 64
#define DDIO_TEXT_LEN 256
#define DDIO_MAX_CORES (HIER_MAX_CORES - 1)   /* one hier core is kept for a distractor */
#define DDIO_MAX_CLASSES HIER_MAX_COS
#define DDIO_MAX_SEGMENTS 16
#define DDIO_MAX_TABLES 8
/* The most cache lines a configuration may simulate: the LLC's and every
 * simulated core's L2's together, 2^26 (docs/configs.md).  With the snoop
 * filter that tracks the L2 lines, a line costs the simulator 10 to 40
 * bytes, so this bounds its memory to about 2 GB; one cache alone is held
 * to CACHE_MAX_LINES, the same number. */
#define DDIO_MAX_CACHE_LINES (1ull << 26)

/* ------------------------------------------------------------------ machine */

/* Latency of one coherence transaction by the state the line is met in: the
 * columns of the paper's Table 3 (broadwell: LLC, +L2 S, +L2 M, Memory). */
typedef struct ddio_lat_row {
    double llc, l2_s, l2_m, memory;
} ddio_lat_row;

typedef struct ddio_latency {
    double memory;          /* a core's miss to local DRAM */
    double core_l2_hit;     /* a core's load that hits its L2 */
    double core_llc_hit;    /* a core's load that hits the LLC */
    double eviction;        /* Table 3 "Eviction" (write-back of a victim) */
    ddio_lat_row pcirdcur, itom, rfo, wbmtoi;   /* CA-measured (Table 3) */
    ddio_lat_row pcie_read, pcie_write;         /* IIO-measured DMA (Table 3) */
} ddio_latency;

/* Replacement policies are names as sim/cache/repl.c knows them (lru, ...,
 * QLRU_H11_M1_R0_U0, duel:A,B), kept as written so that a file round-trips
 * with the name it used (qlru stays qlru, not srrip). */
typedef struct ddio_l2_spec {
    uint32_t sets, ways, line_size;
    char policy[REPL_NAME_LEN];
    uint32_t prefetch_lines; /* L2 streamer reach: lines after each core-touched packet line (0: off) */
} ddio_l2_spec;

/* The Markov model's point estimate (predict's "estimate", validate's model
 * column).  POLICY: the LRU bound when llc.policy is lru (that chain is the
 * policy the simulator runs), the mean of the bounds otherwise (Wang, Xu,
 * Wu's figure for a policy between LRU and BIP / QLRU). */
enum model_estimate { EST_POLICY = 0, EST_MEAN, EST_LOWER, EST_UPPER };

/* Which PCIe hits in the LLC update its replacement state (as a core's
 * hit does): all (the default), writes (ItoM) only, reads (PCIRdCur) only,
 * none.  A hit that does not update leaves the line's age as it was. */
enum pcie_hit_update { PCIE_HIT_UPDATE_ALL = 0, PCIE_HIT_UPDATE_WRITES, PCIE_HIT_UPDATE_READS, PCIE_HIT_UPDATE_NONE };

typedef struct ddio_llc_spec {
    uint32_t slices, sets_per_slice, ways, line_size;
    enum cache_mapping mapping;
    uint32_t frame_bytes;   /* skx18: huge-page size placed at random physical frames; 0: none */
    char policy[REPL_NAME_LEN];
    double bip_epsilon;     /* BIP / BRRIP long-insertion probability */
    uint32_t duel_leaders;  /* set dueling: leader sets per policy (per slice for duel:A,B); 0 = the policy's */
    uint32_t psel_bits;     /* set dueling: PSEL width */
    bool qlru_mask_age;     /* QLRU, partial way mask with no way at age 3: age the mask's ways (repl.h) */
    enum model_estimate model_estimate; /* the Markov model's point estimate: which bound, or their mean */
    enum pcie_hit_update pcie_hit_update; /* which PCIe hits update the replacement state */
} ddio_llc_spec;

/* The NIC's DPDK driver (sim/queue/nic.h): how descriptors, completions,
 * RX refill and TX freeing work.  i40e is ice's behaviour with its own
 * defaults, which DPDK makes equal (docs/simulator.md, "NIC drivers"). */
enum ddio_nic_driver { DDIO_NIC_MLX5 = 0, DDIO_NIC_ICE, DDIO_NIC_I40E, DDIO_NIC_COUNT };

typedef struct ddio_nic_spec {
    char model[DDIO_NAME_LEN];
    enum ddio_nic_driver driver;
    double line_rate_gbps;
    double tx_packet_ns;    /* a TX queue's work per packet, serial with its own data transfer (0: none) */
    uint32_t rx_hold_bytes; /* frames kept in the NIC while their queue has no RX descriptor (0: dropped) */
} ddio_nic_spec;

/* How the link's ACK and flow-control DLLPs are counted (pcie.h). */
enum pcie_dllp { PCIE_DLLP_PER_LANE = 0, PCIE_DLLP_TABLE };

typedef struct ddio_pcie_spec {
    uint32_t gen, lanes, mps, mrrs;     /* MPS / MRRS in bytes */
    enum pcie_dllp dllp;                /* the DLL overhead: per_lane (the spec's units) or table */
} ddio_pcie_spec;

/* The uncore (mesh / ring, CHA, LLC, IIO) clock.  `latency_ghz` is the clock
 * the file's latency_ns figures were measured at, `ghz` the one the machine
 * runs at; a core's LLC hit scales with latency_ghz / ghz
 * (ddio_machine_core_latency). */
typedef struct ddio_uncore_spec {
    double ghz, latency_ghz;
} ddio_uncore_spec;

typedef struct ddio_machine {
    char name[DDIO_NAME_LEN];
    char description[DDIO_TEXT_LEN];
    char cpu[DDIO_NAME_LEN];
    uint32_t cores;                 /* physical cores of the socket */
    double frequency_ghz;
    ddio_uncore_spec uncore;
    ddio_l2_spec l2;
    ddio_llc_spec llc;
    enum hier_mode hierarchy;
    uint64_t ddio_mask;             /* IIO_LLC_WAYS; way w is bit w, 0x600 = the two leftmost of 11; 0: DDIO off */
    uint64_t shared_mask;           /* non-inclusive only; 0 when inclusive */
    uint32_t n_classes;             /* CAT classes of service (>= 1) */
    uint64_t cat_class[DDIO_MAX_CLASSES];
    uint32_t n_core_class;          /* cores listed in the map; the others use class 0 */
    uint32_t core_class[DDIO_MAX_CORES];
    ddio_latency latency_ns;
    ddio_nic_spec nic;
    ddio_pcie_spec pcie;
} ddio_machine;

/* ----------------------------------------------------------------- workload */

enum ddio_mode { DDIO_MODE_FORWARD = 0, DDIO_MODE_RECEIVE, DDIO_MODE_SEND, DDIO_MODE_COUNT };
enum ddio_seg_op { DDIO_SEG_READ = 0, DDIO_SEG_WRITE, DDIO_SEG_FLUSH, DDIO_SEG_OP_COUNT };
enum ddio_seg_unit { DDIO_UNIT_BYTES = 0, DDIO_UNIT_RATIO };
enum ddio_rx_refill { DDIO_REFILL_IMMEDIATE = 0, DDIO_REFILL_THRESHOLD };
enum ddio_tx_recycle { DDIO_RECYCLE_EAGER = 0, DDIO_RECYCLE_THRESHOLD };
enum ddio_dist { DDIO_DIST_UNIFORM = 0, DDIO_DIST_ZIPF };

/* One byte range of the packet the core reads, writes or flushes.  It starts
 * at `offset` (bytes from the first byte of the frame), or where the previous
 * segment ended when `follow` is set, and is `length` bytes long (unit
 * bytes) or ceil(length x packet length) bytes (unit ratio), as in the
 * paper's Algorithm 1 (packet-acrobat).  Ranges are cut at the packet end. */
typedef struct ddio_segment {
    enum ddio_seg_op op;
    uint32_t offset;
    bool follow;
    enum ddio_seg_unit unit;
    double length;
} ddio_segment;

/* A table the workload reads per packet (its non-buffer footprint). */
typedef struct ddio_table {
    char name[32];
    uint64_t bytes;                 /* table size */
    uint32_t lines_per_packet;      /* lines touched per packet */
    double write_fraction;          /* of those touches, the share that writes */
    enum ddio_dist distribution;    /* which lines: uniform, or zipf over the table's lines */
    double zipf_s;                  /* zipf exponent */
} ddio_table;

typedef struct ddio_driver {
    uint32_t rx_ring, tx_ring;      /* descriptors per ring, one RX + one TX ring per core */
    uint32_t burst;                 /* rx / tx burst */
    enum ddio_rx_refill rx_refill;  /* immediate: refill after each burst (mlx5) */
    uint32_t rx_free_thresh;        /* threshold: refill once this many descriptors are free */
    enum ddio_tx_recycle tx_recycle;/* eager: free a TX buffer as soon as it is sent */
    uint32_t tx_free_thresh;        /* threshold: free once this many descriptors are done */
    uint32_t tx_rs_thresh;          /* ice / i40e: the RS bit every this many TX descriptors, freed in blocks of it */
    uint32_t mempool_size;          /* buffers in the shared pool; 0 = auto (ddio_workload_mempool_size) */
    uint32_t mempool_cache;         /* per-core LIFO cache */
    uint32_t data_room, headroom, mbuf_header;  /* bytes; buffer = header + headroom + data room */
    bool align_4k;                  /* each buffer starts on a 4 KiB page */
    uint32_t sw_tx_queue;           /* software queue before the TX ring (FastClick); 0 = none */
    bool rx_cqe_comp;               /* mlx5 CQE compression: one completion line per 8 packets */
    bool tx_mpw;                    /* mlx5 eMPW: a 16-byte TX descriptor per packet, four to a line */
    bool rx_desc_16b;               /* ice / i40e built with 16-byte RX descriptors, four to a line */
} ddio_driver;

/* An LLC co-runner (Wang, Xu, Wu, SIGMETRICS 2022, Algorithm 2) on one extra core. */
typedef struct ddio_distractor {
    uint64_t working_set;           /* bytes; 0 = no distractor */
    uint32_t stride;                /* bytes between two accesses */
    double access_interval_ns;      /* time between two of its line accesses */
    uint64_t cat_mask;              /* its CAT ways (required when enabled) */
} ddio_distractor;

typedef struct ddio_workload {
    char name[DDIO_NAME_LEN];
    char description[DDIO_TEXT_LEN];
    enum ddio_mode mode;
    uint32_t cores;                 /* cores running it (S), each with its rings */
    double cycles_per_packet;       /* compute, excluding the memory accesses modelled */
    double cycles_per_byte;
    double latency_exposed;         /* fraction of its memory accesses' latency the core waits for */
    uint32_t n_access;
    ddio_segment access[DDIO_MAX_SEGMENTS];
    uint32_t n_tables;
    ddio_table tables[DDIO_MAX_TABLES];
    ddio_driver driver;
    ddio_distractor distractor;
} ddio_workload;

typedef struct ddio_config {
    ddio_machine machine;
    ddio_workload workload;
    char machine_file[512];         /* where it came from: a path, or "(built-in)" */
    char workload_file[512];
} ddio_config;

/* ------------------------------------------------------------- defaults */

/* Built-in defaults: equal, field by field, to configs/machines/skylake-6140.json
 * and configs/workloads/l2fwd.json. */
void ddio_machine_default(ddio_machine *m);
void ddio_workload_default(ddio_workload *w);
void ddio_config_default(ddio_config *c);

/* ------------------------------------------------------------- loading */

/* Resolve a machine / workload name to a file.  `kind` is "machines" or
 * "workloads".  A name containing '/' or ending in ".json" is a path; any
 * other name is looked up as $DDIOSIM_CONFIG_DIR/KIND/NAME.json, then
 * DATADIR/configs/KIND/NAME.json (the data directory: sim/common/datadir.h). */
int ddio_config_find(const char *kind, const char *name, char *path, size_t cap, ddio_err *e);

/* Load (defaults, then the file's keys), fill derived defaults, validate.
 * `name_or_path` as for ddio_config_find. */
int ddio_machine_load(ddio_machine *m, const char *name_or_path, ddio_err *e);
int ddio_workload_load(ddio_workload *w, const char *name_or_path, ddio_err *e);

/* The same from text in memory; `file` names it in messages. */
int ddio_machine_parse(ddio_machine *m, const char *text, size_t len, const char *file, ddio_err *e);
int ddio_workload_parse(ddio_workload *w, const char *text, size_t len, const char *file, ddio_err *e);

/* Check a struct on its own; `file` names it in messages. */
int ddio_machine_validate(const ddio_machine *m, const char *file, ddio_err *e);
int ddio_workload_validate(const ddio_workload *w, const char *file, ddio_err *e);
/* Both structs and the checks between them (cores, distractor mask, ...). */
int ddio_config_validate(const ddio_config *c, ddio_err *e);

/* ------------------------------------------------------------- command line */

/* The options every config-using subcommand accepts.  Embed them in a
 * getopt_long table with DDIO_CONFIG_LONGOPTS(base) and hand each one whose
 * code is in [base, base + DDIO_CFG_NOPTS) to ddio_config_args_add. */
enum ddio_cfg_opt {
    DDIO_CFG_OPT_MACHINE = 0, DDIO_CFG_OPT_WORKLOAD, DDIO_CFG_OPT_RX_RING, DDIO_CFG_OPT_TX_RING,
    DDIO_CFG_OPT_BURST, DDIO_CFG_OPT_CORES, DDIO_CFG_OPT_DDIO_WAYS, DDIO_CFG_OPT_DDIO_MASK,
    DDIO_CFG_OPT_POLICY, DDIO_CFG_OPT_MAPPING, DDIO_CFG_OPT_SET, DDIO_CFG_OPT_RX_RING_TOTAL,
    DDIO_CFG_OPT_EXTRA_CYCLES, DDIO_CFG_OPT_UNCORE_GHZ, DDIO_CFG_OPT_WRITE_RATIO, DDIO_CFG_OPT_OVERLAY,
    DDIO_CFG_OPT_NO_DDIO,
    DDIO_CFG_NOPTS
};

#define DDIO_CONFIG_LONGOPTS(base)                                             \
    {"machine", required_argument, 0, (base) + DDIO_CFG_OPT_MACHINE},          \
    {"workload", required_argument, 0, (base) + DDIO_CFG_OPT_WORKLOAD},        \
    {"rx-ring", required_argument, 0, (base) + DDIO_CFG_OPT_RX_RING},          \
    {"tx-ring", required_argument, 0, (base) + DDIO_CFG_OPT_TX_RING},          \
    {"burst", required_argument, 0, (base) + DDIO_CFG_OPT_BURST},              \
    {"cores", required_argument, 0, (base) + DDIO_CFG_OPT_CORES},              \
    {"ddio-ways", required_argument, 0, (base) + DDIO_CFG_OPT_DDIO_WAYS},      \
    {"ddio-mask", required_argument, 0, (base) + DDIO_CFG_OPT_DDIO_MASK},      \
    {"policy", required_argument, 0, (base) + DDIO_CFG_OPT_POLICY},            \
    {"mapping", required_argument, 0, (base) + DDIO_CFG_OPT_MAPPING},          \
    {"set", required_argument, 0, (base) + DDIO_CFG_OPT_SET},                  \
    {"rx-ring-total", required_argument, 0, (base) + DDIO_CFG_OPT_RX_RING_TOTAL}, \
    {"extra-cycles", required_argument, 0, (base) + DDIO_CFG_OPT_EXTRA_CYCLES},   \
    {"uncore-ghz", required_argument, 0, (base) + DDIO_CFG_OPT_UNCORE_GHZ},       \
    {"write-ratio", required_argument, 0, (base) + DDIO_CFG_OPT_WRITE_RATIO},     \
    {"overlay", required_argument, 0, (base) + DDIO_CFG_OPT_OVERLAY},            \
    {"no-ddio", no_argument, 0, (base) + DDIO_CFG_OPT_NO_DDIO}

/* "--rx-ring" etc. */
const char *ddio_config_option_name(enum ddio_cfg_opt opt);
/* The field option opt sets in the end: *part 0 (machine) or 1 (workload)
 * and its path ("llc.policy"; --ddio-ways: "ddio_mask"); NULL for --machine,
 * --workload and --set.  For the callers that must refuse a --set of a
 * field an option also sets (sweep's grid). */
const char *ddio_config_option_field(enum ddio_cfg_opt opt, int *part);

#define DDIO_MAX_OVERRIDES 64

typedef struct ddio_config_override {
    enum ddio_cfg_opt opt;
    const char *value;              /* borrowed (argv) */
} ddio_config_override;

/* What the command line asked for; strings are borrowed (argv). */
typedef struct ddio_config_args {
    const char *machine, *workload; /* name or path; NULL = built-in default */
    uint32_t n;
    ddio_config_override ov[DDIO_MAX_OVERRIDES];
} ddio_config_args;

void ddio_config_args_init(ddio_config_args *a);
/* Record one option; values are checked by ddio_config_resolve.  `value`
 * is NULL for an option without one (--no-ddio). */
int ddio_config_args_add(ddio_config_args *a, enum ddio_cfg_opt opt, const char *value, ddio_err *e);

/* Where each field's value came from (for `config show`): "default",
 * "derived", "file" or the option that set it ("--rx-ring"). */
#define DDIO_CFG_MAX_FIELDS 96
typedef struct ddio_config_origin {
    const char *machine[DDIO_CFG_MAX_FIELDS];
    const char *workload[DDIO_CFG_MAX_FIELDS];
} ddio_config_origin;

/* Defaults -> files -> overrides in command-line order -> the options that
 * need the final values (--ddio-ways against the final LLC, --rx-ring-total
 * over the final cores, --extra-cycles on the final cycles per packet) ->
 * derived defaults (masks that depend on the LLC ways) -> validation.  A
 * failing check names the override when one of the fields involved came
 * from the command line, else the file.  `origin` may be NULL. */
int ddio_config_resolve(const ddio_config_args *a, ddio_config *out, ddio_config_origin *origin,
                        ddio_err *e);

/* Apply one more override to a resolved configuration and re-validate (for
 * sweeps).  `option` is "--rx-ring", "--ddio-ways", "--set"...; on error `c`
 * is unchanged.  Masks are not re-derived: after changing the LLC ways, set
 * the masks too.  --rx-ring-total divides over c's cores and --extra-cycles
 * adds to c's cycles per packet (applied twice, it adds twice). */
int ddio_config_apply_override(ddio_config *c, const char *option, const char *value, ddio_err *e);

/* The K leftmost ways of a `ways`-way LLC: 2 of 11 -> 0x600. */
uint64_t ddio_leftmost_ways(uint32_t k, uint32_t ways);

/* ------------------------------------------------------------- output */

/* Print as JSON (cJSON_Print; caller frees with free()).  The text loads back
 * to an identical struct. */
char *ddio_machine_to_json(const ddio_machine *m);
char *ddio_workload_to_json(const ddio_workload *w);

/* Field-by-field comparison through the descriptor tables: 0 if equal, else
 * 1 with the first differing JSON path in `path`. */
int ddio_machine_diff(const ddio_machine *a, const ddio_machine *b, char *path, size_t cap);
int ddio_workload_diff(const ddio_workload *a, const ddio_workload *b, char *path, size_t cap);

/* Names of the shipped (or $DDIOSIM_CONFIG_DIR) files of a kind, sorted,
 * comma separated, into buf. */
void ddio_config_list(const char *kind, char *buf, size_t cap);

/* ------------------------------------------------------------- use */

/* The cache hierarchy of `m` with `cores` cores (the workload's, plus one
 * for a distractor).  Mapping and policy seeds are 1; callers set them. */
int machine_to_hier_config(const ddio_machine *m, uint32_t cores, hier_config *out, ddio_err *e);
/* The hierarchy for a whole configuration: workload cores, plus the
 * distractor core (core index = workload.cores) in a CAT class with its mask. */
int ddio_config_to_hier(const ddio_config *c, hier_config *out, ddio_err *e);

/* A core's load latency, ns, that hits its L2 / hits the LLC / goes to
 * memory, at the machine's uncore clock: the LLC hit is latency_ns.core_llc_hit
 * x uncore.latency_ghz / uncore.ghz (its time is uncore cycles: mesh, CHA,
 * LLC); memory is latency_ns.memory with its LLC part scaled the same way
 * (the on-die way to the memory controller scales, DRAM does not); the L2
 * hit is core-clocked and unchanged.  With ghz == latency_ghz the three are
 * latency_ns's values exactly. */
void ddio_machine_core_latency(const ddio_machine *m, double *l2_hit, double *llc_hit, double *memory);

const char *ddio_mode_name(enum ddio_mode m);
const char *ddio_seg_op_name(enum ddio_seg_op op);

/* The lines a packet of `pkt_len` bytes has touched, in program order: one
 * entry per (line, op), repeats of the same (line, op) dropped.  Lines are
 * numbered from the line holding the frame's first byte, which sits
 * `first_byte` bytes into that line (headroom mod line size).  Returns the
 * number of entries; writes at most `cap` of them. */
typedef struct ddio_line_op {
    uint32_t line;
    uint8_t op;         /* enum ddio_seg_op */
    uint8_t prefetch;   /* 1: a read the L2 prefetcher issued (ddio_packet_ops), not the core's */
} ddio_line_op;
size_t ddio_workload_expand(const ddio_workload *w, uint32_t pkt_len, uint32_t line_size,
                            uint32_t first_byte, ddio_line_op *out, size_t cap);

/* The workload's ops (ddio_workload_expand) followed by the reads the
 * machine's L2 prefetcher adds: for each packet line the core reads or
 * writes, the next l2.prefetch_lines lines of the packet that the core does
 * not touch itself, in ascending order, each once (op READ, prefetch 1).
 * Both engines take a packet's line ops from here, so the prefetcher is one
 * rule for the simulator and the model.  Same return and cap contract. */
size_t ddio_packet_ops(const ddio_machine *m, const ddio_workload *w, uint32_t pkt_len, uint32_t line_size,
                       uint32_t first_byte, ddio_line_op *out, size_t cap);

/* Per-packet summary: lines of the packet, lines read / written / flushed,
 * and lines touched by the core (read or written): alpha = touched / lines. */
typedef struct ddio_touch {
    uint32_t lines, read, written, flushed, touched;
} ddio_touch;
void ddio_workload_touch(const ddio_workload *w, uint32_t pkt_len, uint32_t line_size,
                         uint32_t first_byte, ddio_touch *t);

/* Service cycles of one packet, memory accesses excluded. */
static inline double ddio_workload_cycles(const ddio_workload *w, uint32_t pkt_len)
{
    return w->cycles_per_packet + w->cycles_per_byte * (double)pkt_len;
}

/* The part of `latency_ns` of memory accesses that the core waits for: the
 * rest overlaps with its other work (out-of-order execution, the driver's
 * and the application's prefetches).  Both engines charge a packet's
 * accesses through this, so they stall alike. */
static inline double ddio_workload_stall_ns(const ddio_workload *w, double latency_ns)
{
    return w->latency_exposed * latency_ns;
}

/* The mempool size in buffers: driver.mempool_size, or when 0 the DPDK
 * examples' rule max(cores x (rx + tx + sw queue + burst + cache), 8192). */
uint32_t ddio_workload_mempool_size(const ddio_workload *w);

/* Distinct lines read per packet from tables: the footprint A(L) per packet. */
uint32_t ddio_workload_table_lines(const ddio_workload *w);

#endif
