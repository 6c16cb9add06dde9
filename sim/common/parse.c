/* parse.c - strict number parsing (parse.h): a whole string or an error
 * naming it, never a silent prefix. */
#include "sim/common/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int ddio_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                   const char *what, ddio_err *e)
{
    if (!s || !*s)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: empty value", what);
    if (*s == '-' || *s == '+' || *s == ' ')
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a non-negative integer", what, s);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a non-negative integer", what, s);
    if (v < lo || v > hi)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %llu is out of range [%llu, %llu]", what, v,
                         (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return 0;
}

int ddio_parse_hex(const char *s, uint64_t *out, const char *what, ddio_err *e)
{
    if (!s || !*s)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: empty value", what);
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    if (!*p || *p == '-' || *p == '+' || *p == ' ')
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a hexadecimal number", what, s);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 16);
    if (errno || *end)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a hexadecimal number", what, s);
    *out = v;
    return 0;
}

int ddio_parse_double(const char *s, double lo, double hi, double *out,
                      const char *what, ddio_err *e)
{
    if (!s || !*s)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: empty value", what);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a number", what, s);
    if (v < lo || v > hi)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %g is out of range [%g, %g]", what, v, lo, hi);
    *out = v;
    return 0;
}
