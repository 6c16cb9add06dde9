/* text.c - the comma splitting of the CSV-like outputs of pcm-pcie and
 * perf stat (validate/text.h): one implementation, so both readers agree on
 * what a field is; and the exit code of a file they cannot read. */
#include <errno.h>
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
