/* npf.c - reader of NPF result files (the format ddio-bench publishes its
 * measurements in): one file per metric, one line per x value,
 * "<x> <run1> <run2> ...", whitespace separated.
 *
 * Strict on purpose: a measurement that cannot be read exactly is an error
 * naming the file and line, never a row silently dropped, because a
 * validation figure computed from a partly-read file would look trusted. */
#include <errno.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/infile.h"
#include "sim/common/parse.h"
#include "validate/measure.h"

#define NPF_MAX_LINE 65536
#define NPF_MAX_ROWS 100000
/* The blanks between values: isspace's set, which strtod skips too, so a
 * line the reader calls blank is one the numbers would call blank. */
#define NPF_BLANKS " \t\r\n\v\f"

/* Parse one non-blank, non-comment line into row (line number `ln`). */
static int parse_row(char *line, uint32_t ln, const char *path, vd_npf_row *row, ddio_err *e)
{
    char *save = NULL;
    char *tok = strtok_r(line, NPF_BLANKS, &save);
    memset(row, 0, sizeof *row);
    row->line = ln;
    if (ddio_decimal_double(tok, &row->x) != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: x value '%.40s' is not a finite number", path, ln, tok);
    size_t cap = 0;
    while ((tok = strtok_r(NULL, NPF_BLANKS, &save)) != NULL) {
        double v;
        if (ddio_decimal_double(tok, &v) != 0) {
            free(row->run);
            row->run = NULL;
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: run %u: '%.40s' is not a finite number", path, ln,
                             row->runs + 1, tok);
        }
        if (row->runs == cap) {
            cap = cap ? 2 * cap : 16;
            double *g = realloc(row->run, cap * sizeof *g);
            if (!g) {
                free(row->run);
                row->run = NULL;
                return ddio_errf(e, DDIO_EXIT_IO, "%s:%u: out of memory", path, ln);
            }
            row->run = g;
        }
        row->run[row->runs++] = v;
    }
    if (row->runs == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: x = %g has no runs", path, ln, row->x);
    return 0;
}

static int add_row(vd_npf *out, size_t *cap, const vd_npf_row *row, const char *path, ddio_err *e)
{
    for (size_t i = 0; i < out->n; i++)
        if (out->row[i].x == row->x)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: x = %g repeats line %u", path, row->line, row->x,
                             out->row[i].line);
    if (out->n >= NPF_MAX_ROWS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: more than %d rows", path, row->line, NPF_MAX_ROWS);
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        vd_npf_row *g = realloc(out->row, *cap * sizeof *g);
        if (!g)
            return ddio_errf(e, DDIO_EXIT_IO, "%s: out of memory", path);
        out->row = g;
    }
    out->row[out->n++] = *row;
    return 0;
}

int vd_npf_read(const char *path, vd_npf *out, ddio_err *e)
{
    memset(out, 0, sizeof *out);
    FILE *f = ddio_open_data(path, VD_MAX_FILE_BYTES, e);
    if (!f)
        return -1;
    char *line = NULL;
    size_t linecap = 0, cap = 0;
    uint32_t ln = 0;
    int rc = 0;
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &linecap, f)) >= 0) {
        ln++;
        if (len > NPF_MAX_LINE) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: line longer than %d bytes", path, ln, NPF_MAX_LINE);
            break;
        }
        if (strlen(line) != (size_t)len) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: NUL byte in the line", path, ln);
            break;
        }
        const char *p = line + strspn(line, NPF_BLANKS);
        if (*p == '\0' || *p == '#')
            continue;
        /* No newline: the file may have been cut in the middle of a number. */
        if (line[len - 1] != '\n') {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: the last line has no newline: the file may be cut short",
                           path, ln);
            break;
        }
        vd_npf_row row;
        rc = parse_row(line, ln, path, &row, e);
        if (rc == 0 && (rc = add_row(out, &cap, &row, path, e)) != 0)
            free(row.run);
    }
    if (rc == 0 && ferror(f))
        rc = ddio_errf(e, errno == EISDIR ? DDIO_EXIT_USAGE : DDIO_EXIT_IO, "%s: %s", path, strerror(errno));
    if (rc == 0 && out->n == 0)
        rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: no measurements (an empty file)", path);
    free(line);
    fclose(f);
    if (rc != 0)
        vd_npf_free(out);
    return rc;
}

void vd_npf_free(vd_npf *n)
{
    for (size_t i = 0; i < n->n; i++)
        free(n->row[i].run);
    free(n->row);
    memset(n, 0, sizeof *n);
}
