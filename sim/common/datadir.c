/* datadir.c - finding the data directory (the machine and workload files,
 * sample traces and measured experiments) from the running executable's
 * place or $DDIOSIM_DATA_DIR (sim/common/datadir.h). */
#define _GNU_SOURCE   /* dladdr */
#include "sim/common/datadir.h"

#include <assert.h>
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether dir looks like a data directory: it holds configs/machines. */
static int is_data_dir(const char *dir)
{
    char p[DDIO_DATA_PATH_MAX];
    struct stat st;
    return (size_t)snprintf(p, sizeof p, "%s/configs/machines", dir) < sizeof p && stat(p, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

/* An absolute path without its last component: "/a/b" -> "/a", "/a" -> "/".
 * Textual, so that the paths printed stay free of "..". */
static void parent(char *path)
{
    assert(path[0] == '/');
    char *s = strrchr(path, '/');
    s[s == path] = '\0';
}

static int copy_path(char *dst, size_t cap, const char *src, ddio_err *e)
{
    if ((size_t)snprintf(dst, cap, "%s", src) >= cap)
        return ddio_errf(e, DDIO_EXIT_IO, "data directory path too long: %s", src);
    return 0;
}

int ddio_datadir_for(const char *exe, const char *env, char *dir, size_t cap, ddio_err *e)
{
    if (env && *env) {
        struct stat st;
        if (stat(env, &st) != 0)
            return ddio_errf(e, DDIO_EXIT_IO, "DDIOSIM_DATA_DIR=%s: %s", env, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            return ddio_errf(e, DDIO_EXIT_IO, "DDIOSIM_DATA_DIR=%s: not a directory", env);
        if (copy_path(dir, cap, env, e) != 0)
            return -1;
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = '\0';
        return 0;
    }
    assert(exe && exe[0] == '/');
    char up[DDIO_DATA_PATH_MAX], installed[DDIO_DATA_PATH_MAX];
    if (copy_path(up, sizeof up, exe, e) != 0)
        return -1;
    parent(up);     /* BINDIR */
    parent(up);     /* BINDIR/.. */
    if ((size_t)snprintf(installed, sizeof installed, "%s/share/ddiosim", strcmp(up, "/") ? up : "") >=
        sizeof installed)
        return ddio_errf(e, DDIO_EXIT_IO, "data directory path too long: %s", up);
    if (is_data_dir(installed))
        return copy_path(dir, cap, installed, e);
    if (is_data_dir(up))
        return copy_path(dir, cap, up, e);
    return ddio_errf(e, DDIO_EXIT_IO,
                     "no data files for %s: neither %s nor %s holds configs/machines "
                     "(install with cmake --install, or set DDIOSIM_DATA_DIR)",
                     exe, installed, up);
}

/* The absolute path of the file holding this code into path[PATH_MAX]:
 * the shared library when a program loaded libddiosim, else the
 * executable.  0, or -1. */
static int own_file(char *path)
{
    Dl_info info;
    if (!dladdr((void *)&ddio_datadir, &info) || !info.dli_fname || !realpath(info.dli_fname, path))
        return -1;
    return 0;
}

int ddio_datadir(char *dir, size_t cap, ddio_err *e)
{
    const char *env = getenv("DDIOSIM_DATA_DIR");
    if (env && *env)
        return ddio_datadir_for(NULL, env, dir, cap, e);
    char exe[DDIO_DATA_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || (size_t)n >= sizeof exe - 1 || exe[0] != '/')
        return ddio_errf(e, DDIO_EXIT_IO, "cannot find the running executable (/proc/self/exe: %s); "
                         "set DDIOSIM_DATA_DIR to the data directory", n < 0 ? strerror(errno) : "not a usable path");
    exe[n] = '\0';
    if (ddio_datadir_for(exe, NULL, dir, cap, e) == 0)
        return 0;
    /* A program that loaded libddiosim: the data installed or built with
     * the library (LIBDIR/../share/ddiosim, SRC/build/..). */
    char lib[PATH_MAX];
    ddio_err le;
    if (own_file(lib) == 0 && strcmp(lib, exe) != 0 && ddio_datadir_for(lib, NULL, dir, cap, &le) == 0)
        return 0;
    return -1;
}

int ddio_datapath(const char *rel, char *path, size_t cap, ddio_err *e)
{
    char dir[DDIO_DATA_PATH_MAX];
    if (ddio_datadir(dir, sizeof dir, e) != 0)
        return -1;
    if ((size_t)snprintf(path, cap, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", rel) >= cap)
        return ddio_errf(e, DDIO_EXIT_IO, "data path too long: %s/%s", dir, rel);
    return 0;
}
