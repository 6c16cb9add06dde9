/* measure.h - measured DDIO hit rates, normalised to one record, and the
 * readers of what people measure them with.
 *
 * Whatever produced a measurement (an NPF result file of ddio-bench, the CSV
 * of Intel PCM's pcm-pcie, the output of `perf stat -x,` on the CHA uncore
 * events), validate/ turns it into a `vd_record`: the parameters of the
 * point, the metric, and the runs with their mean and standard deviation.
 * The readers below return per-run values; experiment.c groups runs into
 * records as the experiment's `experiment.json` describes.
 *
 * Metrics are fractions in [0, 1] ("pcie_write_hit" = ItoM hits / ItoM
 * lookups, "pcie_read_hit" = PCIRdCur hits / PCIRdCur lookups,
 * "pcie_write_partial_hit" = RFO, or Ice Lake's ItoMCacheNear).
 *
 * Errors: one line naming the file (and line) in e, exit code 2 for bad
 * input, 1 for I/O. */
#ifndef DDIOSIM_VALIDATE_MEASURE_H
#define DDIOSIM_VALIDATE_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"

#define VD_NAME_LEN 32
#define VD_TEXT_LEN 32
#define VD_MAX_PARAMS 16
/* Largest measured-data file a reader takes (an hour of pcm-pcie samples
 * at one per second is about 10 MB). */
#define VD_MAX_FILE_BYTES (256ll << 20)

/* One parameter of a point: `name` is a simulate / predict option name with
 * underscores ("rx_ring"); `value` its number, or NAN with `text` set for a
 * word ("max", "lru"). */
typedef struct vd_param {
    char name[VD_NAME_LEN];
    double value;
    char text[VD_TEXT_LEN];
} vd_param;

/* One measured point of one metric. */
typedef struct vd_record {
    uint32_t n_params;
    vd_param param[VD_MAX_PARAMS];
    char metric[VD_NAME_LEN];       /* "pcie_write_hit", ... */
    uint32_t runs;
    double *run;                    /* runs values, fractions; owned */
    double mean, sd;                /* sd: sample standard deviation (0 for one run) */
} vd_record;

/* mean and sample standard deviation of r->run[0 .. r->runs). */
void vd_record_stats(vd_record *r);
void vd_record_free(vd_record *r);

/* ------------------------------------------------------------ NPF */

/* One row of an NPF result file: "<x> <run1> <run2> ...", or with
 * several varied parameters "<x1> <x2> ... <run1> ..." (NPF's `--output`
 * writes one x column per variable that is not static). */
#define VD_NPF_MAX_X 8
typedef struct vd_npf_row {
    double x;                       /* xs[0] */
    uint32_t line;                  /* 1-based line in the file */
    uint32_t runs;
    double *run;                    /* as written in the file (percent stays percent) */
    uint32_t nx;                    /* x columns */
    double xs[VD_NPF_MAX_X];
} vd_npf_row;

typedef struct vd_npf {
    size_t n;
    vd_npf_row *row;
} vd_npf;

/* Read an NPF result file.  Values are separated by blanks (space, tab,
 * CR, \v, \f); blank lines and lines starting with '#' are skipped; any
 * other line needs a number and at least one run, and a newline at its end
 * (a last line without one may have been cut mid-number).  Errors:
 * "FILE:LINE: ..." (a row with no runs, a value that is not a finite
 * number, a repeated x, no final newline), "FILE: ..." (missing, empty). */
int vd_npf_read(const char *path, vd_npf *out, ddio_err *e);
/* The same with nx (1 to VD_NPF_MAX_X) x columns before the runs: a row is
 * refused when its x values repeat an earlier row's ("x = (1500, 128)
 * repeats line 2"), or when it has no value after them. */
int vd_npf_read_x(const char *path, uint32_t nx, vd_npf *out, ddio_err *e);
void vd_npf_free(vd_npf *n);

/* NPF's `--single-output FILE` (alias `--pandas`): a pandas DataFrame
 * written by `to_csv` with a header line: columns index, build,
 * test_index, the test's variables, the results (prefixed y_ where a
 * result has a variable's name) and run_index; one row per run.  Read as
 * text: RFC 4180 fields (quoted fields with "" for a quote; no line break
 * inside a field), LF or CRLF line ends, blank lines skipped.  Errors
 * (exit 2): "FILE:LINE: ..." (a field count that is not the header's, a
 * column named twice, a quote in the wrong place, a NUL byte, a last line
 * without newline), "FILE: no measurements (...)". */
typedef struct vd_npf_table {
    size_t ncol, nrow;
    char **col;                     /* ncol names, pointers into text */
    char **cell;                    /* nrow x ncol */
    uint32_t *line;                 /* the line of each row */
    uint32_t header_line;
    char *text;
} vd_npf_table;
int vd_npf_table_read(const char *path, vd_npf_table *t, ddio_err *e);
/* The index of column `name`, or -1. */
int vd_npf_table_col(const vd_npf_table *t, const char *name);
void vd_npf_table_free(vd_npf_table *t);

/* ------------------------------------------------------------ pcm-pcie */

/* Counts of one opcode over a whole pcm-pcie run, one socket. */
typedef struct vd_counts {
    double hit, miss;               /* hit + miss = lookups */
    uint32_t samples;               /* samples that had the column */
} vd_counts;

/* Sum the (Hit) and (Miss) rows of `socket` over every sample of a
 * `pcm-pcie -csv` file, for the opcode `column` as the paper names it:
 * "ItoM", "PCIRdCur" (also accepted: "PCIeRdCur"), "RFO" (Skylake /
 * Cascade Lake's RFO column; on Ice Lake and later, whose header has no RFO,
 * ItoMCacheNear, the partial writes).  Columns are found by name in each
 * sample's header, never by position.  Errors name the file and line. */
int vd_pcm_read(const char *path, const char *column, int socket, vd_counts *out, ddio_err *e);

/* ------------------------------------------------------------ perf stat */

/* Sum the counts of the events named `name`_hit and `name`_miss (e.g.
 * "itom_hit", "itom_miss": the harness names its events so, with perf's
 * name= term) in a `perf stat -x,` output, with or without -I intervals,
 * with or without --no-merge (per-box rows are added up).  Rows reading
 * "<not counted>" or "<not supported>" are skipped and counted in
 * out->samples only when counted; an event with no counted row is an
 * error naming the file, and so are counts that add up beyond the largest
 * double (naming the line; hit + miss: the file). */
int vd_perf_read(const char *path, const char *name, vd_counts *out, ddio_err *e);

/* hit / (hit + miss), or -1 with e filled when there were no lookups or
 * hit + miss is not finite. */
double vd_counts_rate(const vd_counts *c, const char *path, ddio_err *e);

#endif
