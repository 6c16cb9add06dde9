/* datadir.h - where ddiosim's data files are: the machine and workload
 * files (configs/machines, configs/workloads), the sample traces
 * (traces/samples) and the measured experiments (validate/data), laid out
 * in the data directory as in the source tree.
 *
 * The data directory is the first of
 *   1. $DDIOSIM_DATA_DIR, if set and not empty;
 *   2. BINDIR/../share/ddiosim, an install tree (cmake --install puts the
 *      binary in PREFIX/bin and the data in PREFIX/share/ddiosim);
 *   3. BINDIR/.., a build tree inside the source tree (SRC/build/ddiosim);
 * where BINDIR is the directory of the running executable
 * (/proc/self/exe, symbolic links resolved).  2 and 3 count only if they
 * hold configs/machines.  When neither does and this code runs in
 * libddiosim.so loaded by another program, 2 and 3 again with LIBDIR, the
 * library's directory, for BINDIR (PREFIX/lib/libddiosim.so finds
 * PREFIX/share/ddiosim; SRC/build/libddiosim.so the source tree); a
 * multiarch LIBDIR (lib/x86_64-linux-gnu) needs DDIOSIM_DATA_DIR.  So a binary finds the data installed or copied
 * with it, and never the source tree it was merely compiled from: nothing
 * of the source directory is compiled in.  (The machine and workload
 * names are also looked up in $DDIOSIM_CONFIG_DIR first: configs/config.h.) */
#ifndef DDIOSIM_COMMON_DATADIR_H
#define DDIOSIM_COMMON_DATADIR_H

#include <stddef.h>

#include "sim/common/err.h"

/* The data files the commands use by default, relative to the data directory. */
#define DDIO_DATA_SAMPLE_TRACE "traces/samples/mawi-64k.pcap"
#define DDIO_DATA_EXPERIMENTS "validate/data"

/* A path buffer large enough for any data path. */
#define DDIO_DATA_PATH_MAX 4096

/* The data directory of this process into dir (no trailing '/').  Returns
 * 0, or -1 with e (exit code DDIO_EXIT_IO) saying which directories were
 * tried and that DDIOSIM_DATA_DIR can name one. */
int ddio_datadir(char *dir, size_t cap, ddio_err *e);

/* The same for an executable at `exe` (an absolute path) and a value of
 * $DDIOSIM_DATA_DIR (NULL or "" = unset): the rule above, without the
 * process's environment, for tests. */
int ddio_datadir_for(const char *exe, const char *env, char *dir, size_t cap, ddio_err *e);

/* DATADIR/rel into path: a data file such as DDIO_DATA_SAMPLE_TRACE.  The
 * file need not exist (whoever opens it names it in its error).  Returns 0,
 * or -1 with e as ddio_datadir. */
int ddio_datapath(const char *rel, char *path, size_t cap, ddio_err *e);

#endif
