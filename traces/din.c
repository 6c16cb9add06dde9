/* din.c - the DineroIV "din" address-trace reader, extended for DMA
 * (din.h). */
#include "traces/din.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void din_reader_init(din_reader *r, FILE *f, const char *name)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->name = name;
}

void din_reader_free(din_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

int din_parse_line(const char *s, size_t len, din_record *rec, const char *name, uint64_t lineno,
                   ddio_err *e)
{
    size_t i = 0;
    while (i < len && is_blank((unsigned char)s[i]))
        i++;
    if (i == len || s[i] == '#')
        return 0;
    if (s[i] < '0' || s[i] > '9')
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%llu: label '%c' is not a number 0-7", name,
                         (unsigned long long)lineno, s[i]);
    unsigned label = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        label = label * 10 + (unsigned)(s[i] - '0');
        if (label >= 100)
            break;
        i++;
    }
    if (label >= DIN_LABELS || label == DIN_ESCAPE)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%llu: unsupported label %u (use 0-2, 4-7)", name,
                         (unsigned long long)lineno, label);
    if (i == len || !is_blank((unsigned char)s[i]))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%llu: expected '<label> <hex address>'", name,
                         (unsigned long long)lineno);
    while (i < len && is_blank((unsigned char)s[i]))
        i++;
    if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
        i += 2;
    uint64_t addr = 0;
    int digits = 0;
    for (; i < len && !is_blank((unsigned char)s[i]); i++) {
        int v = hexval((unsigned char)s[i]);
        if (v < 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%llu: address has a non-hex character '%c'", name,
                             (unsigned long long)lineno, s[i]);
        if (++digits > 16)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%llu: address is wider than 64 bits", name,
                             (unsigned long long)lineno);
        addr = (addr << 4) | (uint64_t)v;
    }
    if (!digits)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%llu: missing address", name, (unsigned long long)lineno);
    rec->label = (enum din_label)label;
    rec->addr = addr;
    return 1;
}

/* The next line of the buffer: its text without the terminator, which is
 * LF, CRLF or a lone CR (old Mac tools and some Windows exports end lines
 * with CR only: read as one line, such a trace was one access long).
 * getline stops after an LF, so a CRLF pair is never split between two
 * reads.  0 at the end of the input. */
static int next_line(din_reader *r, const char **line, size_t *len, ddio_err *e)
{
    if (r->pos >= r->len) {
        ssize_t n = getline(&r->buf, &r->cap, r->f);
        if (n < 0) {
            if (ferror(r->f))
                return ddio_errf(e, DDIO_EXIT_IO, "%s:%llu: read error", r->name,
                                 (unsigned long long)r->lineno + 1);
            return 0;
        }
        r->pos = 0;
        r->len = (size_t)n;
    }
    const char *s = r->buf + r->pos;
    size_t rest = r->len - r->pos, k = 0;
    while (k < rest && s[k] != '\n' && s[k] != '\r')
        k++;
    *line = s;
    *len = k;
    if (k < rest)
        k += s[k] == '\r' && k + 1 < rest && s[k + 1] == '\n' ? 2 : 1;
    r->pos += k;
    r->lineno++;
    return 1;
}

int din_next(din_reader *r, din_record *rec, ddio_err *e)
{
    for (;;) {
        const char *s = NULL;
        size_t n = 0;
        int got = next_line(r, &s, &n, e);
        if (got <= 0)
            return got;
        if (memchr(s, '\0', n))
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%llu: NUL byte in a text trace", r->name,
                             (unsigned long long)r->lineno);
        int rc = din_parse_line(s, n, rec, r->name, r->lineno, e);
        if (rc != 0)
            return rc;
    }
}

const char *din_label_name(enum din_label l)
{
    static const char *names[DIN_LABELS] = {"read", "write", "ifetch", "escape", "flush",
                                            "pcie_write_full", "pcie_write_partial", "pcie_read"};
    return (unsigned)l < DIN_LABELS ? names[l] : "?";
}
