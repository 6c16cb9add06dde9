/* spool.h - a trace read from a pipe, read once.
 *
 * A run reads its trace more than once: a first pass for the packet count,
 * bytes and duration the offered rate is scaled against, then the packets,
 * again for every loop when more packets are asked than the trace holds
 * (pktsrc), and predict --from-sim does it all twice.  A regular file is
 * simply opened again; a pipe, a FIFO (`--trace <(zcat x.pcap.gz)`) or
 * standard input can be read only once.  trace_spool_open copies such a
 * trace, once, into a temporary file that is unlinked as soon as it is
 * created (nothing is left behind, whatever kills the process) and maps
 * it; every reader then reads the mapping.  Memory does not grow with the
 * trace: the pages are the file's, the kernel's to evict. */
#ifndef DDIOSIM_TRACES_SPOOL_H
#define DDIOSIM_TRACES_SPOOL_H

#include <stddef.h>

#include "sim/common/err.h"
#include "traces/pcap.h"

typedef struct trace_spool {
    void *data;     /* the trace's bytes, NULL when it is read from its path */
    size_t size;
} trace_spool;

/* Spool `path` ("-": standard input) when it is neither a regular file nor
 * a directory; otherwise leave it (s->data NULL: readers open the path,
 * which reports a missing file or a directory).  The copy is taken from
 * $TMPDIR, else /tmp.  A stream that does not start with a pcap or pcapng
 * magic is not copied further than its first block, so that a wrong path
 * (/dev/zero) fails as a capture would instead of filling the disk.
 * Errors: an empty input (exit 2), a temporary that cannot be made or
 * written, a read error (exit 1). */
int trace_spool_open(trace_spool *s, const char *path, ddio_err *e);
/* A reader of the trace: the spool's copy when s holds one, else `path`
 * (s may be NULL); messages name `path` either way. */
int trace_spool_reader(const trace_spool *s, trace_reader *r, const char *path, int keep_all, ddio_err *e);
/* Unmap the spool's copy (nothing when it holds none); s is left empty. */
void trace_spool_close(trace_spool *s);

#endif
