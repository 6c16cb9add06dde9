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
#include "sim/common/names.h"
#include "sim/common/parse.h"
#include "validate/measure.h"

#define NPF_MAX_LINE 65536
#define NPF_MAX_ROWS 100000
/* The blanks between values: isspace's set, which strtod skips too, so a
 * line the reader calls blank is one the numbers would call blank. */
#define NPF_BLANKS " \t\r\n\v\f"

/* "x = 4" (one x column) or "x = (1500, 128)" (several), for messages. */
static void x_text(const vd_npf_row *row, char *buf, size_t cap)
{
    if (row->nx <= 1) {
        snprintf(buf, cap, "x = %g", row->x);
        return;
    }
    size_t at = (size_t)snprintf(buf, cap, "x = (");
    for (uint32_t k = 0; k < row->nx && at < cap; k++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%g", k ? ", " : "", row->xs[k]);
    if (at < cap)
        snprintf(buf + at, cap - at, ")");
}

/* Parse one non-blank, non-comment line into row (line number `ln`): its
 * nx x values, then the runs. */
static int parse_row(char *line, uint32_t ln, uint32_t nx, const char *path, vd_npf_row *row, ddio_err *e)
{
    char *save = NULL;
    char *tok = strtok_r(line, NPF_BLANKS, &save);
    memset(row, 0, sizeof *row);
    row->line = ln;
    row->nx = nx;
    for (uint32_t k = 0; k < nx; k++) {
        if (k > 0 && (tok = strtok_r(NULL, NPF_BLANKS, &save)) == NULL)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: %u values, not the %u x values and the runs", path, ln, k,
                             nx);
        if (ddio_decimal_double(tok, &row->xs[k]) != 0) {
            if (nx == 1)
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: x value '%.40s' is not a finite number", path, ln, tok);
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: x value %u '%.40s' is not a finite number", path, ln, k + 1,
                             tok);
        }
    }
    row->x = row->xs[0];
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
    if (row->runs == 0) {
        char xt[200];
        x_text(row, xt, sizeof xt);
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: %s has no runs", path, ln, xt);
    }
    return 0;
}

static int same_x(const vd_npf_row *a, const vd_npf_row *b)
{
    for (uint32_t k = 0; k < a->nx; k++)
        if (a->xs[k] != b->xs[k])
            return 0;
    return 1;
}

static int add_row(vd_npf *out, size_t *cap, const vd_npf_row *row, const char *path, ddio_err *e)
{
    for (size_t i = 0; i < out->n; i++)
        if (same_x(&out->row[i], row)) {
            char xt[200];
            x_text(row, xt, sizeof xt);
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: %s repeats line %u", path, row->line, xt,
                             out->row[i].line);
        }
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
    return vd_npf_read_x(path, 1, out, e);
}

int vd_npf_read_x(const char *path, uint32_t nx, vd_npf *out, ddio_err *e)
{
    memset(out, 0, sizeof *out);
    if (nx < 1 || nx > VD_NPF_MAX_X)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %u x columns: 1 to %d", path, nx, VD_NPF_MAX_X);
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
        rc = parse_row(line, ln, nx, path, &row, e);
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

/* ------------------------------------------------------------ --single-output */

#define CSV_MAX_COLS 4096
#define CSV_MAX_ROWS 10000000

/* Split one line (no line end) into RFC 4180 fields, in place: a quoted
 * field has its quotes removed and "" turned into ". */
static int csv_fields(char *s, char ***f, size_t *n, size_t *cap, const char *path, uint32_t ln, ddio_err *e)
{
    *n = 0;
    for (;;) {
        char *start = s, *w = s;
        if (*s == '"') {
            s++;
            for (;;) {
                if (*s == '\0')
                    return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: field %zu: a quoted field runs past the end of the "
                                     "line", path, ln, *n + 1);
                if (*s == '"' && s[1] == '"') {
                    *w++ = '"';
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    *w++ = *s++;
                }
            }
            if (*s != ',' && *s != '\0')
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: field %zu: text after its closing quote", path, ln,
                                 *n + 1);
        } else {
            while (*s != ',' && *s != '\0') {
                if (*s == '"')
                    return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: field %zu: a quote inside an unquoted field", path,
                                     ln, *n + 1);
                s++;
            }
            w = s;
        }
        char end = *s;
        *w = '\0';
        if (*n >= CSV_MAX_COLS)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: more than %d fields", path, ln, CSV_MAX_COLS);
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 32;
            char **g = realloc(*f, nc * sizeof *g);
            if (!g)
                return ddio_errf(e, DDIO_EXIT_IO, "%s: out of memory", path);
            *f = g;
            *cap = nc;
        }
        (*f)[(*n)++] = start;
        if (end == '\0')
            return 0;
        s++;
    }
}

static int csv_add_row(vd_npf_table *t, size_t *cap, char **f, uint32_t ln, const char *path, ddio_err *e)
{
    if (t->nrow >= CSV_MAX_ROWS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: more than %d rows", path, ln, CSV_MAX_ROWS);
    if (t->nrow == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        char **g = realloc(t->cell, nc * t->ncol * sizeof *g);
        uint32_t *l = g ? realloc(t->line, nc * sizeof *l) : NULL;
        if (g)
            t->cell = g;
        if (!l)
            return ddio_errf(e, DDIO_EXIT_IO, "%s: out of memory", path);
        t->line = l;
        *cap = nc;
    }
    memcpy(t->cell + t->nrow * t->ncol, f, t->ncol * sizeof *f);
    t->line[t->nrow++] = ln;
    return 0;
}

int vd_npf_table_read(const char *path, vd_npf_table *t, ddio_err *e)
{
    memset(t, 0, sizeof *t);
    FILE *f = ddio_open_data(path, VD_MAX_FILE_BYTES, e);
    if (!f)
        return -1;
    size_t len;
    t->text = ddio_read_all(f, path, VD_MAX_FILE_BYTES, "", &len, e);
    if (!t->text)
        return -1;
    char **fld = NULL;
    size_t nf = 0, fcap = 0, rcap = 0;
    uint32_t ln = 0;
    int rc = 0;
    char *s = t->text, *end = t->text + len;
    while (rc == 0 && s < end) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        char *le = nl ? nl : end;
        ln++;
        if (memchr(s, '\0', (size_t)(le - s))) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: NUL byte in the line", path, ln);
            break;
        }
        if (le - s > NPF_MAX_LINE) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: line longer than %d bytes", path, ln, NPF_MAX_LINE);
            break;
        }
        char *line = s;
        s = nl ? nl + 1 : end;
        *le = '\0';
        if (le > line && le[-1] == '\r')
            le[-1] = '\0';
        if (strchr(line, '\r')) {   /* a message quoting a field must stay one line */
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: a carriage return inside the line", path, ln);
            break;
        }
        if (line[strspn(line, NPF_BLANKS)] == '\0')
            continue;
        if (!nl) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: the last line has no newline: the file may be cut short",
                           path, ln);
            break;
        }
        if ((rc = csv_fields(line, &fld, &nf, &fcap, path, ln, e)) != 0)
            break;
        if (!t->col) {   /* the header */
            t->col = malloc(nf * sizeof *t->col);
            if (!t->col) {
                rc = ddio_errf(e, DDIO_EXIT_IO, "%s: out of memory", path);
                break;
            }
            t->ncol = nf;
            t->header_line = ln;
            for (size_t i = 0; i < nf && rc == 0; i++) {
                t->col[i] = fld[i];
                for (size_t k = 0; k < i && rc == 0; k++)
                    if (strcmp(fld[k], fld[i]) == 0)
                        rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: column '%.40s' is named twice (columns %zu and "
                                       "%zu)", path, ln, fld[i], k + 1, i + 1);
            }
            continue;
        }
        if (nf != t->ncol) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%u: %zu fields, the header (line %u) has %zu", path, ln, nf,
                           t->header_line, t->ncol);
            break;
        }
        rc = csv_add_row(t, &rcap, fld, ln, path, e);
    }
    free(fld);
    if (rc == 0 && t->nrow == 0)
        rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: no measurements (%s)", path,
                       t->col ? "a header and no rows" : "an empty file");
    if (rc != 0)
        vd_npf_table_free(t);
    return rc;
}

int vd_npf_table_col(const vd_npf_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (strcmp(t->col[i], name) == 0)
            return (int)i;
    /* not there as written: a column of ddiosim's under its old or new name */
    for (size_t i = 0; i < t->ncol; i++)
        if (ddio_name_same(t->col[i], name))
            return (int)i;
    return -1;
}

void vd_npf_table_free(vd_npf_table *t)
{
    free(t->col);
    free(t->cell);
    free(t->line);
    free(t->text);
    memset(t, 0, sizeof *t);
}
