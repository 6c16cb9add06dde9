/* err.c - filling a one-line error report (err.h); nothing below the CLI
 * prints. */
#include "sim/common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ddio_errf(ddio_err *e, int exit_code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->exit_code = exit_code;
        /* Keep the message to one line whatever the caller formatted. */
        for (char *p = e->msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    return -1;
}

void ddio_err_prefix(ddio_err *e, const char *prefix)
{
    if (!e || !prefix)
        return;
    char tmp[sizeof e->msg];
    size_t pl = strlen(prefix);
    if (pl > sizeof tmp - 3)
        pl = sizeof tmp - 3;
    memcpy(tmp, prefix, pl);
    memcpy(tmp + pl, ": ", 2);
    size_t room = sizeof tmp - pl - 3;
    size_t ml = strnlen(e->msg, room);
    memcpy(tmp + pl + 2, e->msg, ml);
    tmp[pl + 2 + ml] = '\0';
    memcpy(e->msg, tmp, sizeof e->msg);
}
