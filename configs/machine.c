/* machine.c - the machine's field table, its built-in defaults (the Xeon
 * Gold 6140 testbed of ddio-bench), its checks and its conversion into the
 * cache hierarchy of sim/cache/hier.h.  Sources of the numbers:
 * docs/configs.md. */
#include <stdio.h>
#include <string.h>

#include "configs/schema.h"
#include "sim/cache/repl.h"

_Static_assert(sizeof(enum cache_mapping) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum model_estimate) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum hier_mode) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum pcie_hit_update) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum pcie_dllp) == sizeof(int), "enums are stored as int");

/* Same order as enum cache_mapping / enum hier_mode / enum model_estimate /
 * enum pcie_hit_update / enum pcie_dllp. */
static const char *const mapping_names[] = {"modulo", "xor", "random", "skx18", NULL};
static const char *const hierarchy_names[] = {"non-inclusive", "inclusive", NULL};
static const char *const estimate_names[] = {"policy", "mean", "lower", "upper", NULL};
static const char *const pcie_hit_update_names[] = {"all", "writes", "reads", "none", NULL};
static const char *const pcie_dllp_names[] = {"per_lane", "table", NULL};
static const char *const nic_driver_names[] = {"mlx5", "ice", "i40e", NULL};

/* Array elements: a CAT way mask, a class number. */
static const cfg_field class_mask_fields[] = {
    {"", CFG_MASK, 0, sizeof(uint64_t), .doc = "CAT capacity bitmask of one class of service"},
};
static const cfg_table class_mask_table = {"CAT class", class_mask_fields, 1, sizeof(uint64_t), NULL};
static const cfg_field core_class_fields[] = {
    {"", CFG_U32, 0, sizeof(uint32_t), .lo = 0, .hi = DDIO_MAX_CLASSES - 1, .doc = "class of service of one core"},
};
static const cfg_table core_class_table = {"core class", core_class_fields, 1, sizeof(uint32_t), NULL};

#define M(path, type, member, ...) {path, type, CFG_AT(ddio_machine, member), __VA_ARGS__}
#define LAT(row, col, what) \
    M("latency_ns." #row "." #col, CFG_F64, latency_ns.row.col, .hi = 1e4, .doc = what)
#define LAT_ROW(row, what)                                                  \
    LAT(row, llc, what " of a line in the LLC, ns"),                        \
    LAT(row, l2_s, what " of a line in an L2 in S (broadwell: +L2 S), ns"), \
    LAT(row, l2_m, what " of a line in an L2 in M (broadwell: +L2 M), ns"), \
    LAT(row, memory, what " of a line only in memory, ns")

static const cfg_field machine_fields[] = {
    M("name", CFG_STR, name, .flags = CFG_NONEMPTY, .doc = "short name, as given to --machine"),
    M("description", CFG_STR, description, .doc = "one line on what this machine is"),
    M("cpu", CFG_STR, cpu, .doc = "processor model"),
    M("cores", CFG_U32, cores, .lo = 1, .hi = DDIO_MAX_CORES, .doc = "physical cores of the socket"),
    M("frequency_ghz", CFG_F64, frequency_ghz, .lo = 0.1, .hi = 10, .doc = "core clock, GHz"),
    M("uncore.ghz", CFG_F64, uncore.ghz, .lo = 0.1, .hi = 10, .doc = "uncore (mesh, CHA, LLC, IIO) clock, GHz"),
    M("uncore.latency_ghz", CFG_F64, uncore.latency_ghz, .lo = 0.1, .hi = 10,
      .doc = "uncore clock the latency_ns figures were measured at, GHz (default: uncore.ghz)"),
    M("l2.sets", CFG_U32, l2.sets, .lo = 1, .hi = 1 << 20, .flags = CFG_POW2, .doc = "L2 sets per core"),
    M("l2.ways", CFG_U32, l2.ways, .lo = 1, .hi = CACHE_MAX_WAYS, .doc = "L2 associativity"),
    M("l2.line_size", CFG_U32, l2.line_size, .lo = 16, .hi = 4096, .flags = CFG_POW2, .doc = "L2 line, bytes"),
    M("l2.policy", CFG_STR, l2.policy, .flags = CFG_NONEMPTY, .check = repl_check_name,
      .doc = "L2 replacement policy: lru, bip, srrip (qlru), brrip, drrip, dip, QLRU_H<xy>_M<m>_R<r>_U<u>[_UMO], "
             "duel:<A>,<B>"),
    M("l2.prefetch_lines", CFG_U32, l2.prefetch_lines, .hi = 64,
      .doc = "L2 streamer: the lines after each packet line the core touches that the L2 prefetchers bring in, "
             "within the packet (0: off)"),
    M("llc.slices", CFG_U32, llc.slices, .lo = 1, .hi = 1024, .doc = "LLC slices (one per core on Xeon)"),
    M("llc.sets_per_slice", CFG_U32, llc.sets_per_slice, .lo = 1, .hi = 1 << 20, .flags = CFG_POW2,
      .doc = "LLC sets per slice"),
    M("llc.ways", CFG_U32, llc.ways, .lo = 1, .hi = CACHE_MAX_WAYS, .doc = "LLC associativity"),
    M("llc.line_size", CFG_U32, llc.line_size, .lo = 16, .hi = 4096, .flags = CFG_POW2, .doc = "LLC line, bytes"),
    M("llc.mapping", CFG_ENUM, llc.mapping, .names = mapping_names,
      .doc = "address to set: modulo, xor (Intel-like slice hash), random (the model's assumption), skx18 "
             "(the measured hash of 18-slice Skylake-SP)"),
    M("llc.frame_bytes", CFG_U32, llc.frame_bytes, .lo = 1 << 17, .hi = 1 << 30, .flags = CFG_POW2 | CFG_ZERO_OK,
      .doc = "skx18: page size the OS places at random physical frames (DPDK's huge pages), bytes; 0: "
             "addresses are physical; the other mappings ignore it"),
    M("llc.policy", CFG_STR, llc.policy, .flags = CFG_NONEMPTY, .check = repl_check_name,
      .doc = "LLC replacement policy, as l2.policy"),
    M("llc.bip_epsilon", CFG_F64, llc.bip_epsilon, .lo = 0, .hi = 1,
      .doc = "BIP/BRRIP probability of an MRU (long) insertion (the L2 uses it too)"),
    M("llc.duel_leaders", CFG_U32, llc.duel_leaders, .lo = 2, .hi = 4096, .flags = CFG_POW2 | CFG_ZERO_OK,
      .doc = "set dueling: leader sets per policy (per slice for duel:A,B); 0 = the policy's own: 32 for dip and "
             "drrip, 16 for duel:A,B (the L2 uses it too)"),
    M("llc.psel_bits", CFG_U32, llc.psel_bits, .lo = 1, .hi = 30,
      .doc = "set dueling: PSEL counter width, bits (the L2 uses it too)"),
    M("llc.qlru_mask_age", CFG_BOOL, llc.qlru_mask_age,
      .doc = "QLRU policies, a fill whose partial way mask (DDIO, CAT) holds no way of age 3: false = evict the "
             "mask's oldest way (R1: its lowest) and age nothing, true = age the mask's ways until one is at 3 "
             "(neither is published)"),
    M("llc.model_estimate", CFG_ENUM, llc.model_estimate, .names = estimate_names,
      .doc = "the Markov model's point estimate: policy (its LRU bound when llc.policy is lru, else the mean of "
             "the bounds), mean (Wang, Xu, Wu's midpoint), lower, upper"),
    M("llc.pcie_hit_update", CFG_ENUM, llc.pcie_hit_update, .names = pcie_hit_update_names,
      .doc = "which PCIe hits in the LLC update its replacement state as a core's hit does: all, writes (ItoM), "
             "reads (PCIRdCur), none (the simulator; the model counts every access)"),
    M("hierarchy", CFG_ENUM, hierarchy, .names = hierarchy_names,
      .doc = "non-inclusive (Skylake-SP) or inclusive (Broadwell) LLC"),
    M("ddio_mask", CFG_MASK, ddio_mask, .doc = "LLC ways PCIe writes allocate into (IIO_LLC_WAYS); 0x0: DDIO off"),
    M("shared_mask", CFG_MASK, shared_mask,
      .doc = "LLC ways for lines in both L2 and LLC (non-inclusive only; 0x0 when inclusive)"),
    {"cat.classes", CFG_ARRAY, CFG_AT(ddio_machine, cat_class), .lo = 1, .hi = DDIO_MAX_CLASSES,
     .elem = &class_mask_table, .count_off = offsetof(ddio_machine, n_classes),
     .doc = "CAT classes of service: one contiguous way mask each"},
    {"cat.core_class", CFG_ARRAY, CFG_AT(ddio_machine, core_class), .lo = 0, .hi = DDIO_MAX_CORES,
     .elem = &core_class_table, .count_off = offsetof(ddio_machine, n_core_class),
     .doc = "class of core 0, 1, ...; cores not listed use class 0"},
    M("latency_ns.memory", CFG_F64, latency_ns.memory, .hi = 1e4, .doc = "core load from local DRAM, ns"),
    M("latency_ns.core_l2_hit", CFG_F64, latency_ns.core_l2_hit, .hi = 1e4, .doc = "core load hitting its L2, ns"),
    M("latency_ns.core_llc_hit", CFG_F64, latency_ns.core_llc_hit, .hi = 1e4, .doc = "core load hitting the LLC, ns"),
    M("latency_ns.eviction", CFG_F64, latency_ns.eviction, .hi = 1e4, .doc = "Table 3 Eviction transaction, ns"),
    LAT_ROW(pcirdcur, "PCIRdCur (PCIe read) in the caching agent"),
    LAT_ROW(itom, "ItoM (PCIe full-line write) in the caching agent"),
    LAT_ROW(rfo, "RFO (PCIe partial-line write) in the caching agent"),
    LAT_ROW(wbmtoi, "WbMtoI (DDIO write-back) in the caching agent"),
    LAT_ROW(pcie_read, "PCIe read measured in the IIO"),
    LAT_ROW(pcie_write, "PCIe write measured in the IIO"),
    M("nic.model", CFG_STR, nic.model, .doc = "network card"),
    M("nic.driver", CFG_ENUM, nic.driver, .names = nic_driver_names,
      .doc = "the NIC's DPDK driver: mlx5 (CQEs, refill every burst), ice or i40e (descriptor write-back in the "
             "RX ring, refill at rx_free_thresh, TX freed in blocks of tx_rs_thresh)"),
    M("nic.line_rate_gbps", CFG_F64, nic.line_rate_gbps, .lo = 0.01, .hi = 1600, .doc = "port line rate, Gb/s"),
    M("nic.rx_hold_bytes", CFG_U32, nic.rx_hold_bytes, .lo = 0, .hi = 1u << 30,
      .doc = "frame bytes the NIC keeps, in arrival order, while their queue has no RX descriptor, written when "
             "the driver posts one (0: such a frame is dropped at once)"),
    M("nic.tx_packet_ns", CFG_F64, nic.tx_packet_ns, .lo = 0, .hi = 1e5,
      .doc = "a TX queue's own work per packet, ns: its next packet's data comes after this packet's data and this "
             "long (0: queues fetch freely)"),
    M("pcie.gen", CFG_U32, pcie.gen, .lo = 1, .hi = 6, .doc = "PCIe generation of the NIC link"),
    M("pcie.lanes", CFG_U32, pcie.lanes, .lo = 1, .hi = 32, .flags = CFG_POW2, .doc = "PCIe lanes"),
    M("pcie.mps", CFG_U32, pcie.mps, .lo = 128, .hi = 4096, .flags = CFG_POW2,
      .doc = "Maximum Payload Size, bytes"),
    M("pcie.mrrs", CFG_U32, pcie.mrrs, .lo = 128, .hi = 4096, .flags = CFG_POW2,
      .doc = "Maximum Read Request Size, bytes"),
    M("pcie.dllp", CFG_ENUM, pcie.dllp, .names = pcie_dllp_names,
      .doc = "ACK / flow-control DLLP overhead: per_lane (the spec's intervals are symbol times, each carrying a "
             "byte per lane) or table (one DLLP per interval byte, as Neugebauer et al.'s model tabulates)"),
};

static const cfg_table machine_table = {"machine", machine_fields, sizeof machine_fields / sizeof machine_fields[0],
                                        sizeof(ddio_machine), NULL};

const cfg_table *ddio_machine_table(void) { return &machine_table; }

uint64_t ddio_leftmost_ways(uint32_t k, uint32_t ways)
{
    if (k > ways)
        k = ways;
    uint64_t low = k >= 64 ? UINT64_MAX : (1ull << k) - 1;
    return k == 0 ? 0 : low << (ways - k);
}

static uint64_t all_ways(uint32_t ways) { return ways >= 64 ? UINT64_MAX : (1ull << ways) - 1; }

void ddio_machine_default(ddio_machine *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "skylake-6140");
    snprintf(m->description, sizeof m->description,
             "ddio-bench testbed (Farshin et al., ATC 2020): one Skylake-SP socket, ConnectX-5 100G");
    snprintf(m->cpu, sizeof m->cpu, "Intel Xeon Gold 6140");
    m->cores = 18;
    m->frequency_ghz = 2.3;
    /* The maximum uncore clock of the Gold 6140; the latencies below are
     * taken as measured there (docs/configs.md). */
    m->uncore = (ddio_uncore_spec){.ghz = 2.4, .latency_ghz = 2.4};
    m->l2 = (ddio_l2_spec){.sets = 1024, .ways = 16, .line_size = 64, .policy = "lru"};
    /* McCalpin's measured slice hash of 18-slice Skylake-SP, DPDK's 2 MiB
     * huge pages at random frames (docs/validation.md, "The LLC's set
     * mapping": the page size chosen on the `cores` points alone). */
    m->llc = (ddio_llc_spec){.slices = 18, .sets_per_slice = 2048, .ways = 11, .line_size = 64,
                             .mapping = MAP_SKX18, .frame_bytes = 2u << 20, .policy = "lru",
                             .bip_epsilon = 1.0 / 32.0, .duel_leaders = 0, .psel_bits = 10};
    m->hierarchy = HIER_NONINCLUSIVE;
    m->ddio_mask = 0x600;
    m->shared_mask = 0x3;
    m->n_classes = 1;
    m->cat_class[0] = 0x7ff;
    m->n_core_class = 0;
    /* Wang, Xu, Wu (SIGMETRICS 2022) Table 3, skylake column (measured on the Gold 6132, same
     * microarchitecture; PCIRdCur at 100 Gb/s).  Core latencies: estimates,
     * see docs/configs.md. */
    m->latency_ns = (ddio_latency){
        .memory = 94.1, .core_l2_hit = 6.1, .core_llc_hit = 26.0, .eviction = 51.4,
        .pcirdcur = {15.1, 135.0, 56.9, 94.1},
        .itom = {14.8, 34.5, 44.9, 15.4},
        .rfo = {16.7, 36.0, 41.2, 89.9},
        .wbmtoi = {50.7, 49.5, 49.3, 50.2},
        .pcie_read = {171.6, 776.03, 223.34, 425.5},
        .pcie_write = {138.2, 145.47, 155.93, 146.0},
    };
    snprintf(m->nic.model, sizeof m->nic.model, "Mellanox ConnectX-5");
    m->nic.line_rate_gbps = 100;
    m->nic.rx_hold_bytes = 1290000;
    m->pcie = (ddio_pcie_spec){.gen = 3, .lanes = 16, .mps = 256, .mrrs = 512};
}

void ddio_machine_derive_file(ddio_machine *m, const uint8_t *set, uint8_t *derived)
{
    int ilat = cfg_index(&machine_table, "uncore.latency_ghz");
    if (!set[ilat]) {
        m->uncore.latency_ghz = m->uncore.ghz;
        if (derived) derived[ilat] = 1;
    }
}

void ddio_machine_core_latency(const ddio_machine *m, double *l2_hit, double *llc_hit, double *memory)
{
    const ddio_latency *l = &m->latency_ns;
    /* x / x is exactly 1 and llc - llc exactly 0, so at the measured clock
     * the results are the file's values to the bit. */
    double llc = l->core_llc_hit * (m->uncore.latency_ghz / m->uncore.ghz);
    *l2_hit = l->core_l2_hit;
    *llc_hit = llc;
    *memory = l->memory + (llc - l->core_llc_hit);
}

void ddio_machine_derive(ddio_machine *m, const uint8_t *set, const char **src, uint8_t *derived)
{
    const cfg_table *t = &machine_table;
    int iways = cfg_index(t, "llc.ways"), ihier = cfg_index(t, "hierarchy");
    int iddio = cfg_index(t, "ddio_mask"), ishared = cfg_index(t, "shared_mask");
    int icat = cfg_index(t, "cat.classes");
    const char *ways_src = src ? src[iways] : NULL;
    const char *hier_src = src && src[ihier] ? src[ihier] : ways_src;
    uint32_t w = m->llc.ways;
    /* Intel's default IIO_LLC_WAYS are the two leftmost ways and the Shared
     * ways the two rightmost (Wang, Xu, Wu, SIGMETRICS 2022, Section 3.4.3). */
    if (!set[iddio]) {
        m->ddio_mask = ddio_leftmost_ways(2, w);
        if (src) src[iddio] = ways_src;
        if (derived) derived[iddio] = 1;
    }
    if (!set[ishared]) {
        m->shared_mask = m->hierarchy == HIER_INCLUSIVE ? 0 : all_ways(w < 2 ? w : 2);
        if (src) src[ishared] = hier_src;
        if (derived) derived[ishared] = 1;
    }
    if (!set[icat]) {
        m->n_classes = 1;
        memset(m->cat_class, 0, sizeof m->cat_class);
        m->cat_class[0] = all_ways(w);
        if (src) src[icat] = ways_src;
        if (derived) derived[icat] = 1;
    }
}

int ddio_machine_check(const ddio_machine *m, const cfg_ctx *c, ddio_err *e)
{
    char msg[200];
    if (m->l2.line_size != m->llc.line_size)
        return cfg_fail(c, e, "l2.line_size,llc.line_size", "L2 line size %u differs from the LLC line size %u",
                        m->l2.line_size, m->llc.line_size);
    uint64_t sets = (uint64_t)m->llc.slices * m->llc.sets_per_slice;
    if (sets > CACHE_MAX_SETS)
        return cfg_fail(c, e, "llc.sets_per_slice,llc.slices", "%u slices x %u sets is more than the %u sets supported",
                        m->llc.slices, m->llc.sets_per_slice, CACHE_MAX_SETS);
    /* Before anything is allocated: a cache too big to simulate fails
     * here, not gigabytes later. */
    uint64_t l2_lines = (uint64_t)m->l2.sets * m->l2.ways;
    if (l2_lines > CACHE_MAX_LINES)
        return cfg_fail(c, e, "l2.sets,l2.ways", "an L2 of %u sets x %u ways is %llu lines, more than the %u one cache may hold",
                        m->l2.sets, m->l2.ways, (unsigned long long)l2_lines, CACHE_MAX_LINES);
    if (sets * m->llc.ways > CACHE_MAX_LINES)
        return cfg_fail(c, e, "llc.sets_per_slice,llc.slices,llc.ways",
                        "an LLC of %llu sets x %u ways is %llu lines, more than the %u one cache may hold",
                        (unsigned long long)sets, m->llc.ways, (unsigned long long)(sets * m->llc.ways), CACHE_MAX_LINES);
    if (m->ddio_mask && cfg_check_mask(m->ddio_mask, m->llc.ways, 0, msg, sizeof msg))   /* 0: DDIO off */
        return cfg_fail(c, e, "ddio_mask,llc.ways", "%s", msg);
    if (m->hierarchy == HIER_INCLUSIVE) {
        if (m->shared_mask)
            return cfg_fail(c, e, "shared_mask,hierarchy", "0x%llx: an inclusive LLC has no Shared ways (use \"0x0\")",
                            (unsigned long long)m->shared_mask);
    } else if (cfg_check_mask(m->shared_mask, m->llc.ways, 0, msg, sizeof msg)) {
        return cfg_fail(c, e, "shared_mask,llc.ways,hierarchy", "%s", msg);
    }
    for (uint32_t i = 0; i < m->n_classes; i++)
        if (cfg_check_mask(m->cat_class[i], m->llc.ways, 1, msg, sizeof msg)) {
            char path[64];
            snprintf(path, sizeof path, "cat.classes[%u],llc.ways", i);
            return cfg_fail(c, e, path, "%s", msg);
        }
    if (m->n_core_class > m->cores)
        return cfg_fail(c, e, "cat.core_class,cores", "%u entries for a machine of %u cores", m->n_core_class,
                        m->cores);
    for (uint32_t i = 0; i < m->n_core_class; i++)
        if (m->core_class[i] >= m->n_classes) {
            char path[64];
            snprintf(path, sizeof path, "cat.core_class[%u],cat.classes", i);
            return cfg_fail(c, e, path, "core %u uses class %u but only %u class%s defined", i, m->core_class[i],
                            m->n_classes, m->n_classes == 1 ? " is" : "es are");
        }
    /* What the hierarchy checks of the caches it builds (a mapping's own
     * geometry: skx18 is 18 x 2048 sets, xor needs a power of two), so a
     * machine that validates can be simulated. */
    hier_config h;
    ddio_err why = {0};
    if (m->cores >= 1 && machine_to_hier_config(m, 1, &h, &why) != 0)
        return cfg_fail(c, e, "llc.mapping,llc.slices,llc.sets_per_slice,llc.line_size", "%s", why.msg);
    return 0;
}

int ddio_machine_validate(const ddio_machine *m, const char *file, ddio_err *e)
{
    cfg_ctx c = {&machine_table, file ? file : "(built-in)", NULL};
    return ddio_machine_check(m, &c, e);
}

int machine_to_hier_config(const ddio_machine *m, uint32_t cores, hier_config *out, ddio_err *e)
{
    if (cores < 1 || cores > m->cores || cores > HIER_MAX_CORES)
        return ddio_errf(e, DDIO_EXIT_USAGE, "cores: %u is out of range [1, %u] (machine %s)", cores, m->cores,
                         m->name);
    memset(out, 0, sizeof *out);
    out->mode = m->hierarchy;
    out->llc = (cache_geom){.line_size = m->llc.line_size, .slices = m->llc.slices,
                            .sets_per_slice = m->llc.sets_per_slice, .ways = m->llc.ways,
                            .mapping = m->llc.mapping, .seed = 1,
                            /* Frames place pages for skx18's physical hash; the other
                             * mappings ignore them (so --mapping xor needs no second --set). */
                            .frame_shift = m->llc.frame_bytes && m->llc.mapping == MAP_SKX18
                                               ? (uint32_t)__builtin_ctz(m->llc.frame_bytes)
                                               : 0};
    repl_config_default(&out->llc_repl);
    snprintf(out->llc_repl.name, sizeof out->llc_repl.name, "%s", m->llc.policy);
    out->llc_repl.bip_epsilon = m->llc.bip_epsilon;
    out->llc_repl.duel_leaders = m->llc.duel_leaders;
    out->llc_repl.psel_bits = m->llc.psel_bits;
    out->llc_repl.qlru_mask_age = m->llc.qlru_mask_age;
    /* The private L2 is one slice indexed by the low line-number bits. */
    out->l2 = (cache_geom){.line_size = m->l2.line_size, .slices = 1, .sets_per_slice = m->l2.sets,
                           .ways = m->l2.ways, .mapping = MAP_MODULO, .seed = 1};
    repl_config_default(&out->l2_repl);
    snprintf(out->l2_repl.name, sizeof out->l2_repl.name, "%s", m->l2.policy);
    out->l2_repl.bip_epsilon = m->llc.bip_epsilon;
    out->l2_repl.duel_leaders = m->llc.duel_leaders;
    out->l2_repl.psel_bits = m->llc.psel_bits;
    out->l2_repl.qlru_mask_age = m->llc.qlru_mask_age;
    out->cores = cores;
    out->ddio_mask = m->ddio_mask;
    out->shared_mask = m->shared_mask;
    /* The hits each value leaves still: the ones it does not name. */
    static const uint8_t still[] = {
        [PCIE_HIT_UPDATE_ALL] = 0,
        [PCIE_HIT_UPDATE_WRITES] = HIER_STILL_PCIE_RD,
        [PCIE_HIT_UPDATE_READS] = HIER_STILL_PCIE_WR,
        [PCIE_HIT_UPDATE_NONE] = HIER_STILL_PCIE_RD | HIER_STILL_PCIE_WR,
    };
    out->pcie_hit_still = still[m->llc.pcie_hit_update];
    out->n_cos = m->n_classes;
    memcpy(out->cos_mask, m->cat_class, sizeof out->cos_mask);
    for (uint32_t i = 0; i < cores; i++)
        out->core_cos[i] = (uint8_t)(i < m->n_core_class ? m->core_class[i] : 0);
    return hier_config_validate(out, e);
}
