/* mem.h - allocation of large simulator tables.
 *
 * Cache blocks and snoop-filter tables are megabytes large and accessed at
 * random; backing them with transparent huge pages removes most TLB misses,
 * which otherwise dominate the cost of a simulated access. */
#ifndef DDIOSIM_COMMON_MEM_H
#define DDIOSIM_COMMON_MEM_H

#include <stddef.h>

/* Zeroed, 64-byte aligned memory of `size` bytes; when large (2 MiB or
 * more), a mapping of whole 2 MiB huge pages starting on a 2 MiB boundary,
 * advised for huge pages.  Release with ddio_table_free(p, size) using the
 * same size. */
void *ddio_table_alloc(size_t size);
void ddio_table_free(void *p, size_t size);

#endif
