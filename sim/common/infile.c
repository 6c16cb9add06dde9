/* infile.c - opening an input file with one set of messages (infile.h). */
#include "sim/common/infile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Failures of the system, not of the path the user gave. */
static int system_failure(int err)
{
    return err == EIO || err == ENOMEM || err == EMFILE || err == ENFILE;
}

FILE *ddio_open_input(const char *path, ddio_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int err = errno;
        if (err == EISDIR)
            ddio_errf(e, DDIO_EXIT_USAGE, "%s: is a directory", path);
        else
            ddio_errf(e, system_failure(err) ? DDIO_EXIT_IO : DDIO_EXIT_USAGE, "%s: cannot open: %s", path,
                      strerror(err));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: is a directory", path);
        return NULL;
    }
    return f;
}

FILE *ddio_open_data(const char *path, long long max_bytes, ddio_err *e)
{
    /* stat before the open: opening a FIFO blocks until a writer comes. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a regular file", path);
        return NULL;
    }
    FILE *f = ddio_open_input(path, e);
    if (!f)
        return NULL;
    /* fstat again: the path may have been replaced between the two calls. */
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a regular file", path);
        return NULL;
    }
    if ((long long)st.st_size > max_bytes) {
        fclose(f);
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: larger than %lld bytes", path, max_bytes);
        return NULL;
    }
    return f;
}

char *ddio_read_all(FILE *f, const char *path, size_t max_bytes, const char *why, size_t *len, ddio_err *e)
{
    /* Room for the size stat gives, doubled while there is more, up to one
     * byte past the limit: that byte says the stream is too long. */
    struct stat st;
    size_t cap = fstat(fileno(f), &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 4096;
    if (cap > max_bytes)
        cap = max_bytes + 1;
    char *buf = NULL;
    size_t n = 0;
    int rc = 0;
    for (;;) {
        char *g = realloc(buf, cap + 1);
        if (!g) {
            rc = ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            break;
        }
        buf = g;
        n += fread(buf + n, 1, cap - n, f);
        if (n > max_bytes) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: larger than %zu bytes%s", path, max_bytes, why);
            break;
        }
        if (n < cap) {   /* the end, or an error */
            if (ferror(f))
                rc = ddio_errf(e, DDIO_EXIT_IO, "%s: read error", path);
            break;
        }
        cap = cap > max_bytes / 2 ? max_bytes + 1 : 2 * cap;
    }
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
