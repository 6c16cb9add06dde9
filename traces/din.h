/* din.h - reader for DineroIV "din" address traces, extended for DMA.
 *
 * One access per line: `<label> <hex address> [anything]`; what follows the
 * address is ignored, as in DineroIV.  Lines end with LF, CRLF or CR.
 * Blank lines and lines starting with '#' are skipped.  Labels:
 *   0 data read        1 data write        2 instruction fetch
 *   4 flush (write back and invalidate the whole cache)
 *   5 PCIe full-line write (ItoM)   6 PCIe partial write (RFO)   7 PCIe read (PCIRdCur)
 * Label 3 (DineroIV's "escape") is rejected. */
#ifndef DDIOSIM_TRACES_DIN_H
#define DDIOSIM_TRACES_DIN_H

#include <stdint.h>
#include <stdio.h>

#include "sim/common/err.h"

enum din_label {
    DIN_READ = 0, DIN_WRITE = 1, DIN_IFETCH = 2, DIN_ESCAPE = 3, DIN_FLUSH = 4,
    DIN_PCIE_WR_FULL = 5, DIN_PCIE_WR_PART = 6, DIN_PCIE_RD = 7, DIN_LABELS = 8
};

typedef struct din_record {
    enum din_label label;
    uint64_t addr;
} din_record;

typedef struct din_reader {
    FILE *f;
    const char *name;     /* for error messages ("FILE:LINE: ...") */
    uint64_t lineno;
    char *buf;                /* what getline read last */
    size_t cap;
    size_t pos, len;          /* buf[pos, len): not yet returned (lines ended by CR share a read) */
} din_reader;

void din_reader_init(din_reader *r, FILE *f, const char *name);
void din_reader_free(din_reader *r);
/* 1: a record; 0: end of input; -1: malformed line (e names file and line). */
int din_next(din_reader *r, din_record *rec, ddio_err *e);
/* Parse one text line (no newline needed); 1 record, 0 blank/comment, -1 error. */
int din_parse_line(const char *s, size_t len, din_record *rec, const char *name, uint64_t lineno,
                   ddio_err *e);
const char *din_label_name(enum din_label l);

#endif
