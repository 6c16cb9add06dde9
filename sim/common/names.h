/* names.h - the names of output figures: the one table of the names older
 * versions wrote and the names they have now (docs/conventions.md, "Output
 * names and units").
 *
 * Every figure a CSV column or JSON key holds says its unit by its last
 * word: _gbps Gb/s (bits), _gbyte_s GB/s (bytes), _frac a fraction of 1
 * (hit rates, drop rates), _pct percent, _pts percentage points, _bytes,
 * _s, _us.  A bound or spread of a figure follows its unit
 * (model_pcie_write_hit_frac_lower).  Where a user names a column (plot
 * --y, advise constraints) an old name still works: it is looked up here. */
#ifndef DDIOSIM_COMMON_NAMES_H
#define DDIOSIM_COMMON_NAMES_H

#include <stddef.h>

typedef struct ddio_rename {
    const char *old_name;       /* what ddiosim wrote before the unit rule (issue 29) */
    const char *new_name;       /* what is written now */
} ddio_rename;

/* The current name of an output figure: new_name when `name` is one of the
 * old names, else `name` itself (never NULL for a non-NULL name). */
const char *ddio_name_current(const char *name);
/* Whether two column names name the same figure: equal, or one an old
 * name of the other (a file of this version read with an old name, or an
 * old file read with a new one). */
int ddio_name_same(const char *a, const char *b);
/* The whole table (n entries into *n), for the docs' test and --help. */
const ddio_rename *ddio_name_table(size_t *n);

#endif
