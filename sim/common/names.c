/* names.c - old output names and their current ones (sim/common/names.h).
 * One table, so that plot, advise and the docs agree on what an old name
 * means; tests/test_names.c checks docs/conventions.md lists every row. */
#include <string.h>

#include "sim/common/names.h"

static const ddio_rename renames[] = {
    /* sweep CSV columns */
    {"sim_pcie_write_hit", "sim_pcie_write_hit_frac"},
    {"sim_pcie_read_hit", "sim_pcie_read_hit_frac"},
    {"sim_pcie_write_partial_hit", "sim_pcie_write_partial_hit_frac"},
    {"sim_data_write_hit", "sim_data_write_hit_frac"},
    {"sim_data_read_hit", "sim_data_read_hit_frac"},
    {"sim_drop_rate", "sim_drop_frac"},
    {"sim_mem_gbps", "sim_mem_gbyte_s"},
    {"sim_mem_write_gbps", "sim_mem_write_gbyte_s"},
    {"model_pcie_write_hit", "model_pcie_write_hit_frac"},
    {"model_pcie_write_lower", "model_pcie_write_hit_frac_lower"},
    {"model_pcie_write_upper", "model_pcie_write_hit_frac_upper"},
    {"model_pcie_read_hit", "model_pcie_read_hit_frac"},
    {"model_pcie_read_lower", "model_pcie_read_hit_frac_lower"},
    {"model_pcie_read_upper", "model_pcie_read_hit_frac_upper"},
    {"model_drop_rate", "model_drop_frac"},
    {"model_mem_gbps", "model_mem_gbyte_s"},
    {"model_mem_write_gbps", "model_mem_write_gbyte_s"},
    /* validate CSV columns: one row per point and metric (the metric
     * column names it), so the figures are the metric's hit fraction */
    {"measured_mean", "measured_hit_frac"},
    {"measured_sd", "measured_hit_frac_sd"},
    {"sim", "sim_hit_frac"},
    {"sim_error_pp", "sim_error_pts"},
    {"model_estimate", "model_hit_frac"},
    {"model_lower", "model_hit_frac_lower"},
    {"model_upper", "model_hit_frac_upper"},
    {"model_error_pp", "model_error_pts"},
    {"sim_gbps", "sim_throughput_gbps"},
    {"model_gbps", "model_throughput_gbps"},
    {"sim_rx_replenish", "sim_q_rx_replenish"},
    {"sim_rx", "sim_q_rx"},
    {"sim_sw_queue", "sim_q_sw_queue"},
    {"sim_tx", "sim_q_tx"},
    {"sim_tx_recycle", "sim_q_tx_recycle"},
    {"model_rx_replenish", "model_q_rx_replenish"},
    {"model_rx", "model_q_rx"},
    {"model_sw_queue", "model_q_sw_queue"},
    {"model_tx", "model_q_tx"},
    {"model_tx_recycle", "model_q_tx_recycle"},
    /* advise's metrics (constraints, and the keys of its JSON) */
    {"pcie_write_hit", "pcie_write_hit_frac"},
    {"pcie_read_hit", "pcie_read_hit_frac"},
    {"mem_write_gbps", "mem_write_gbyte_s"},
    {"mem_gbps", "mem_gbyte_s"},
    {"drop_rate", "drop_frac"},
    {"io_llc_fraction", "io_llc_frac"},
};

const char *ddio_name_current(const char *name)
{
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++)
        if (strcmp(name, renames[i].old_name) == 0)
            return renames[i].new_name;
    return name;
}

int ddio_name_same(const char *a, const char *b)
{
    return strcmp(a, b) == 0 || strcmp(ddio_name_current(a), ddio_name_current(b)) == 0;
}

const ddio_rename *ddio_name_table(size_t *n)
{
    *n = sizeof renames / sizeof renames[0];
    return renames;
}
