/* label.c - labels in words for figures (validate/label.h). */
#include <stdio.h>
#include <string.h>

#include "validate/label.h"

typedef struct words {
    const char *name, *words, *unit;   /* unit "" for none; "%" draws the fraction in % */
} words;

/* The parameters of a sweep or an experiment (validate/experiment.c). */
static const words params[] = {
    {"cores", "Cores", ""},
    {"rx_ring", "RX ring", "descriptors"},
    {"rx_ring_total", "RX descriptors, all cores", ""},
    {"tx_ring", "TX ring", "descriptors"},
    {"burst", "Burst", "packets"},
    {"ddio_ways", "DDIO ways", ""},
    {"policy", "Replacement policy", ""},
    {"extra_cycles", "Extra cycles per packet", ""},
    {"uncore_ghz", "Uncore", "GHz"},
    {"write_ratio", "Write ratio", ""},
    {"pkt_size", "Packet size", "B"},
    {"rate", "Offered rate", "Gb/s"},
    {"flows", "Flows", ""},
    {"flow_burst", "Flow burst", "packets"},
    {"gen_threads", "Generator threads", ""},
    {"flow_tuples", "Flow tuples", ""},
};

/* The metrics, by their stem: the column's name after sim_ or model_,
 * without a _frac suffix. */
static const words metrics[] = {
    {"pcie_write_hit", "PCIe write hit", "%"},
    {"pcie_read_hit", "PCIe read hit", "%"},
    {"pcie_write_partial_hit", "PCIe partial write hit", "%"},
    {"data_write_hit", "Data write hit", "%"},
    {"data_read_hit", "Data read hit", "%"},
    {"pcie_write_lower", "PCIe write hit, lower bound", "%"},
    {"pcie_write_upper", "PCIe write hit, upper bound", "%"},
    {"pcie_read_lower", "PCIe read hit, lower bound", "%"},
    {"pcie_read_upper", "PCIe read hit, upper bound", "%"},
    {"throughput_gbps", "Throughput", "Gb/s"},
    {"drop_rate", "Drops", "%"},
    {"mem_read_bytes_per_pkt", "Memory reads", "B per packet"},
    {"mem_write_bytes_per_pkt", "Memory writes", "B per packet"},
    {"mem_gbps", "Memory traffic", "GB/s"},
    {"mem_gbyte_s", "Memory traffic", "GB/s"},
    {"mem_write_gbps", "Memory write traffic", "GB/s"},
    {"mem_write_gbyte_s", "Memory write traffic", "GB/s"},
    {"footprint_bytes", "Cached I/O buffers", "B"},
    {"q_rx_replenish", "RX replenish queue", "packets"},
    {"q_rx", "RX queue", "packets"},
    {"q_sw_queue", "Software queue", "packets"},
    {"q_tx", "TX queue", "packets"},
    {"q_tx_recycle", "TX recycle queue", "packets"},
    {"q_idle", "Idle queue", "packets"},
    {"lines_l2", "Lines in L2", "lines"},
    {"lines_ddio", "Lines in the DDIO ways", "lines"},
    {"lines_shared", "Lines in the shared ways", "lines"},
    {"lines_l3", "Lines in L3", "lines"},
};

static const words *find(const words *w, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(w[i].name) == len && strncmp(w[i].name, name, len) == 0)
            return &w[i];
    return NULL;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && strncmp(s + n - k, suffix, k) == 0;
}

/* "WORDS[, ENGINE] (UNIT)". */
static void put(char *buf, size_t cap, const char *w, const char *engine, const char *unit)
{
    snprintf(buf, cap, "%s%s%s%s%s%s", w, engine ? ", " : "", engine ? engine : "", unit[0] ? " (" : "", unit,
             unit[0] ? ")" : "");
}

void vd_label(const char *name, char *buf, size_t cap, int *percent)
{
    int pct_local;
    percent = percent ? percent : &pct_local;
    const words *p = find(params, sizeof params / sizeof params[0], name, strlen(name));
    if (p) {
        *percent = 0;
        put(buf, cap, p->words, NULL, p->unit);
        return;
    }
    const char *engine = NULL, *stem = name;
    if (strncmp(name, "sim_", 4) == 0)
        engine = "simulator", stem = name + 4;
    else if (strncmp(name, "model_", 6) == 0)
        engine = "model", stem = name + 6;
    size_t len = strlen(stem);
    int frac = ends_with(stem, len, "_frac");
    const words *m = find(metrics, sizeof metrics / sizeof metrics[0], stem, frac ? len - 5 : len);
    if (m) {
        *percent = strcmp(m->unit, "%") == 0;
        put(buf, cap, m->words, engine, m->unit);
        return;
    }
    /* Unknown: the name itself; a fraction by its name is drawn in %. */
    *percent = frac || ends_with(name, strlen(name), "_hit");
    put(buf, cap, name, NULL, *percent ? "%" : "");
}
