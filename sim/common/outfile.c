#include "sim/common/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void outfile_release(ddio_outfile *o)
{
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int ddio_outfile_open(ddio_outfile *o, const char *path, ddio_err *e)
{
    memset(o, 0, sizeof *o);
    if (!path) {
        o->f = stdout;
        return 0;
    }
    size_t tl = strlen(path) + 16;
    o->path = strdup(path);
    o->tmp = malloc(tl);
    if (!o->path || !o->tmp) {
        outfile_release(o);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    snprintf(o->tmp, tl, "%s.tmpXXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd >= 0) {
        /* mkstemp creates 0600; give the file the mode a plain fopen would. */
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
        if (!(o->f = fdopen(fd, "w"))) {
            int err = errno;
            close(fd);
            unlink(o->tmp);
            errno = err;
        }
    }
    if (!o->f) {
        ddio_errf(e, DDIO_EXIT_IO, "%s: cannot create: %s", path, strerror(errno));
        outfile_release(o);
        return -1;
    }
    return 0;
}

int ddio_outfile_commit(ddio_outfile *o, ddio_err *e)
{
    if (!o->tmp) {
        int bad = ferror(stdout) || fflush(stdout) != 0;
        outfile_release(o);
        return bad ? ddio_errf(e, DDIO_EXIT_IO, "stdout: write failed: %s", strerror(errno)) : 0;
    }
    int ok = !ferror(o->f);
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
    int rc = 0;
    if (!ok || rename(o->tmp, o->path) != 0) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: write failed: %s", o->path, strerror(errno));
        unlink(o->tmp);
    }
    outfile_release(o);
    return rc;
}

void ddio_outfile_abort(ddio_outfile *o)
{
    if (o->tmp) {
        if (o->f)
            fclose(o->f);
        unlink(o->tmp);
    }
    outfile_release(o);
}
