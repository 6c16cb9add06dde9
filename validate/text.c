/* text.c - the line reading and comma splitting of the CSV-like outputs of
 * pcm-pcie and perf stat (validate/text.h): one implementation, so both
 * readers agree on what a line and a field are, and word errors alike. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "sim/common/err.h"
#include "validate/text.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

char *vd_trim(char *s)
{
    while (is_space(*s))
        s++;
    size_t n = strlen(s);
    while (n && is_space(s[n - 1]))
        s[--n] = '\0';
    return s;
}

size_t vd_split_fields(char *s, char **f, size_t max)
{
    size_t n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        if (n < max)
            f[n] = vd_trim(s);
        n++;
        if (!comma)
            return n;
        s = comma + 1;
    }
}

char *vd_next_line(vd_lines *r, int *rc, ddio_err *e)
{
    *rc = 0;
    ssize_t len = getline(&r->buf, &r->cap, r->f);
    if (len < 0) {
        if (ferror(r->f))
            *rc = errno == EISDIR ? ddio_errf(e, DDIO_EXIT_USAGE, "%s: %s", r->path, strerror(errno))
                                  : ddio_errf(e, DDIO_EXIT_IO, "%s:%lu: read error", r->path, r->line + 1);
        return NULL;
    }
    r->line++;
    if (memchr(r->buf, '\0', (size_t)len)) {
        *rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: NUL byte in a text file", r->path, r->line);
        return NULL;
    }
    return vd_trim(r->buf);
}

void vd_bprintf(vd_buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->oom = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
}

void vd_csv_field(vd_buf *b, const char *t, int always)
{
    int quote = always || strpbrk(t, ",\"") != NULL;
    if (quote)
        vd_bprintf(b, "\"");
    for (; *t; t++) {
        if (*t == '"')
            vd_bprintf(b, "\"\"");   /* only inside quotes: a quote makes the field quoted */
        else
            vd_bprintf(b, "%c", *t == '\n' || *t == '\r' ? ' ' : *t);
    }
    if (quote)
        vd_bprintf(b, "\"");
}
