/* parse.c - strict number parsing (parse.h): a whole string or an error
 * naming it, never a silent prefix. */
#include "sim/common/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t digits(const char *s)
{
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

size_t ddio_decimal_len(const char *s, int sign_ok)
{
    size_t i = sign_ok && (s[0] == '-' || s[0] == '+');
    size_t whole = digits(s + i);
    i += whole;
    size_t frac = s[i] == '.' ? digits(s + i + 1) : 0;
    if (!whole && !frac)
        return 0;
    if (s[i] == '.')
        i += 1 + frac;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1 + (s[i + 1] == '-' || s[i + 1] == '+');
        size_t exp = digits(s + j);
        if (exp)   /* "1e" is the number 1 followed by a stray 'e' */
            i = j + exp;
    }
    return i;
}

int ddio_decimal_double(const char *s, double *out)
{
    size_t n = ddio_decimal_len(s, 1);
    if (!n || s[n])
        return -1;
    errno = 0;
    double v = strtod(s, NULL);
    if (errno || !isfinite(v))   /* beyond a double's range, either way */
        return -1;
    *out = v;
    return 0;
}

int ddio_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                   const char *what, ddio_err *e)
{
    if (!s || !*s)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: empty value", what);
    if (s[digits(s)])   /* digits only: no sign, blank, point or "0x" */
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a non-negative integer", what, s);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno)
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
    double v;
    if (ddio_decimal_double(s, &v) != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a number", what, s);
    if (v < lo || v > hi)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: %g is out of range [%g, %g]", what, v, lo, hi);
    *out = v;
    return 0;
}
