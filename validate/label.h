/* label.h - a figure's axis and key labels in words, with units: one
 * table for the parameters (rx_ring: "RX ring (descriptors)") and one for
 * the metrics, keyed by the metric's stem, the engine in words
 * (sim_pcie_write_hit: "PCIe write hit, simulator (%)").  Both spellings of
 * the output columns are known: a hit fraction with or without its _frac
 * suffix, memory traffic as _gbps or _gbyte_s (GB/s either way; any other
 * _gbps is Gb/s). */
#ifndef DDIOSIM_VALIDATE_LABEL_H
#define DDIOSIM_VALIDATE_LABEL_H

#include <stddef.h>

/* The label of the column or parameter `name` into buf: in words with its
 * unit when the name is known, else the name itself (with " (%)" when it
 * is drawn in %).  *percent (may be NULL) is 1 when the column holds a
 * fraction that a figure draws in % (hit rates, their bounds, drops, any
 * name ending in _hit or _frac), else 0. */
void vd_label(const char *name, char *buf, size_t cap, int *percent);

#endif
