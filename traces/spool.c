/* spool.c - a trace read from a pipe, read once (spool.h). */
#include "traces/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/common/infile.h"
#include "sim/common/outfile.h"

#define SPOOL_BLOCK 65536

/* Does path need a copy to be read twice? */
static int needs_spool(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 1;
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* A new temporary file, already unlinked: its descriptor, or -1. */
static int unlinked_temp(ddio_err *e)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + sizeof "/ddiosim-trace-XXXXXX";
    char *tmpl = malloc(n);
    if (!tmpl)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    snprintf(tmpl, n, "%s/ddiosim-trace-XXXXXX", dir);
    int fd = mkstemp(tmpl);
    if (fd < 0)
        ddio_errf(e, DDIO_EXIT_IO, "cannot create a temporary copy of the trace in %s: %s", dir, strerror(errno));
    else
        unlink(tmpl);
    free(tmpl);
    return fd;
}

/* Copy f to fd: the bytes copied, or -1 with e filled.  Stops after the
 * first block when the stream is not a capture (spool.h). */
static long long copy_stream(FILE *f, int fd, const char *path, ddio_err *e)
{
    char *buf = malloc(SPOOL_BLOCK);
    if (!buf)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    long long total = 0;
    size_t got;
    while ((got = fread(buf, 1, SPOOL_BLOCK, f)) > 0) {
        if (ddio_write_all(fd, buf, got) != 0) {
            free(buf);
            return ddio_errf(e, DDIO_EXIT_IO, "%s: cannot copy the trace to a temporary file: %s", path,
                             strerror(errno));
        }
        int capture = total > 0 || (got >= 4 && trace_magic_known((const uint8_t *)buf));
        total += (long long)got;
        if (!capture)
            break;
    }
    free(buf);
    if (ferror(f))
        return ddio_errf(e, DDIO_EXIT_IO, "%s: read error", path);
    return total;
}

int trace_spool_open(trace_spool *s, const char *path, ddio_err *e)
{
    memset(s, 0, sizeof *s);
    if (!needs_spool(path))
        return 0;
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : ddio_open_input(path, e);
    if (!f)
        return -1;
    int fd = unlinked_temp(e);
    long long n = fd < 0 ? -1 : copy_stream(f, fd, path, e);
    if (!is_stdin)
        fclose(f);
    if (n == 0)
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a readable pcap or pcapng capture: the input is empty", path);
    void *map = MAP_FAILED;
    if (n > 0 && (map = mmap(NULL, (size_t)n, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
        ddio_errf(e, DDIO_EXIT_IO, "%s: cannot map the copy of the trace: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);   /* the mapping keeps the file */
    if (map == MAP_FAILED)
        return -1;
    s->data = map;
    s->size = (size_t)n;
    return 0;
}

int trace_spool_reader(const trace_spool *s, trace_reader *r, const char *path, int keep_all, ddio_err *e)
{
    if (!s || !s->data)
        return trace_reader_open(r, path, keep_all, e);
    FILE *f = fmemopen(s->data, s->size, "rb");
    if (!f) {
        memset(r, 0, sizeof *r);
        return ddio_errf(e, DDIO_EXIT_IO, "%s: cannot read the copy of the trace: %s", path, strerror(errno));
    }
    return trace_reader_open_stream(r, f, path, keep_all, e);
}

void trace_spool_close(trace_spool *s)
{
    if (s->data)
        munmap(s->data, s->size);
    memset(s, 0, sizeof *s);
}
