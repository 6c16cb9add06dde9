/* overlay.h - a calibration overlay: fitted values of machine and workload
 * fields, applied on top of whatever machine and workload a run uses.
 *
 * `ddiosim calibrate -o FILE` writes one; `--overlay FILE` (simulate,
 * predict, config, validate, sweep, advise) reads it.  The file is JSON:
 *
 *   { "ddiosim": "overlay",
 *     "set": { "workload.cycles_per_packet": 57.25, "machine.llc.policy": "bip" },
 *     "calibration": { ... what fitted it: free, not read back ... } }
 *
 * Each entry of "set" is one `--set PATH=VALUE`, in file order.  A reader
 * is strict, as for config files: an unknown top-level key, a path that is
 * not a settable field, a value the field refuses, a key given twice, are
 * one line "FILE: set.PATH: what is wrong", exit 2. */
#ifndef DDIOSIM_CONFIGS_OVERLAY_H
#define DDIOSIM_CONFIGS_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"

#define DDIO_OVERLAY_MAX 32             /* fields an overlay may set */
#define DDIO_OVERLAY_SET_LEN 192        /* "PATH=VALUE" */
#define DDIO_OVERLAY_MAX_BYTES (1 << 20)

typedef struct ddio_overlay {
    uint32_t n;
    char set[DDIO_OVERLAY_MAX][DDIO_OVERLAY_SET_LEN];   /* "workload.cycles_per_packet=57.25" */
} ddio_overlay;

/* Parse overlay text (len bytes; `file` names it in messages) into ov.
 * Every entry is checked on its own against its field (type, range, enum
 * name), not against the other fields: those checks are the run's, when
 * the overlay meets a machine and a workload.  0, or -1 with e filled
 * (exit 2). */
int ddio_overlay_parse(const char *text, size_t len, const char *file, ddio_overlay *ov, ddio_err *e);

/* Read and parse the file at path (ddio_overlay_parse).  Errors as there,
 * or "PATH: cannot open: ..." (exit 2). */
int ddio_overlay_load(const char *path, ddio_overlay *ov, ddio_err *e);

/* Check one "PATH=VALUE" as --set would take it, on its own: 0, or -1 with
 * the reason in msg ("no such field", "300 is out of range [...]"). */
int ddio_overlay_check_set(const char *set, char *msg, size_t cap);

#endif
