/* outfile.c - output files written whole or not at all (temp file +
 * rename), written in place when they are not regular files, their
 * temporaries removed (and the children writing them killed) when a signal
 * ends the process, and the checks a command makes on its file arguments
 * before it runs (see outfile.h). */
#define _DEFAULT_SOURCE 1   /* realpath */
#include "sim/common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ temporaries
 *
 * The registry of the temporaries that exist, which the handler of SIGINT,
 * SIGTERM and SIGHUP removes before the process dies of the signal.  It is
 * the one global state of the project, and has to be: a signal handler
 * receives nothing but the signal number, so what it must clean up can
 * only be reached through static storage, and a signal ends the whole
 * process whichever thread created the file.  A slot holds the path of one
 * temporary from its creation to its rename or removal.  Slots are
 * lock-free atomic pointers, so the handler may read them (and call only
 * kill, waitpid, unlink, sigaction and raise: async-signal-safe
 * functions). */

#define MAX_TEMPS 16   /* temporaries open at once: a command has two at most */

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "the signal handler reads the slots: they must be lock-free");

static _Atomic(char *) temps[MAX_TEMPS];

/* Children (gnuplot) that would outlive the process and write into a
 * temporary after it was removed: the handler kills and reaps them first.
 * 0 is a free slot. */
#define MAX_CHILDREN 4
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler reads the child slots: they must be lock-free");
static atomic_int children[MAX_CHILDREN];
static atomic_flag handlers_installed = ATOMIC_FLAG_INIT;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Remove every registered temporary, then die of `sig` as if there had been
 * no handler (the exit status says which signal ended the process).  The
 * signal is blocked while its handler runs: raise() leaves it pending, and
 * it is delivered, with the default action, when the handler returns. */
static void remove_temps_and_die(int sig)
{
    for (size_t i = 0; i < MAX_CHILDREN; i++) {
        pid_t pid = (pid_t)atomic_load(&children[i]);
        if (pid > 0 && kill(pid, SIGKILL) == 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
    }
    for (size_t i = 0; i < MAX_TEMPS; i++) {
        char *p = atomic_load(&temps[i]);
        if (p)
            unlink(p);
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

/* Once per process.  A signal the process ignores (nohup, a background
 * job's SIGINT) stays ignored. */
static void install_handlers(void)
{
    if (atomic_flag_test_and_set(&handlers_installed))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temps_and_die;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaddset(&sa.sa_mask, cleanup_signals[i]);   /* one cleanup at a time */
    for (size_t i = 0; i < NSIGNALS; i++) {
        struct sigaction old;
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(cleanup_signals[i], &sa, NULL);
    }
}

static int temp_register(char *path)
{
    for (size_t i = 0; i < MAX_TEMPS; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&temps[i], &none, path))
            return 0;
    }
    return -1;
}

static void temp_unregister(char *path)
{
    for (size_t i = 0; i < MAX_TEMPS; i++) {
        char *mine = path;
        if (atomic_compare_exchange_strong(&temps[i], &mine, NULL))
            return;
    }
}

/* mkstemp(tmpl) and its registration with the cleanup signals blocked, so
 * that no signal finds the file created and not yet registered.  -1 with
 * errno set when either fails (nothing is left behind). */
static int create_temp(char *tmpl)
{
    install_handlers();
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaddset(&block, cleanup_signals[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(tmpl);
    if (fd >= 0 && temp_register(tmpl) != 0) {
        close(fd);
        unlink(tmpl);
        fd = -1;
        errno = EMFILE;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return fd;
}

static void cleanup_mask(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaddset(set, cleanup_signals[i]);
}

/* In the child, before exec: the cleanup handlers are the parent's (an
 * exec resets them anyway, but a signal before it would run them here). */
static void child_defaults(void)
{
    for (size_t i = 0; i < NSIGNALS; i++) {
        struct sigaction old;
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == remove_temps_and_die) {
            struct sigaction dfl;
            memset(&dfl, 0, sizeof dfl);
            dfl.sa_handler = SIG_DFL;
            sigemptyset(&dfl.sa_mask);
            sigaction(cleanup_signals[i], &dfl, NULL);
        }
    }
}

pid_t ddio_spawn(char *const args[], int in_fd, int out_fd)
{
    install_handlers();
    sigset_t block, old;
    cleanup_mask(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid == 0) {
        child_defaults();
        sigprocmask(SIG_SETMASK, &old, NULL);
        if ((in_fd >= 0 && dup2(in_fd, 0) < 0) || (out_fd >= 0 && (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)))
            _exit(127);
        execvp(args[0], args);
        _exit(127);
    }
    if (pid > 0) {
        size_t i = 0;
        for (int none = 0; i < MAX_CHILDREN; i++, none = 0)
            if (atomic_compare_exchange_strong(&children[i], &none, (int)pid))
                break;
        if (i == MAX_CHILDREN) {
            kill(pid, SIGKILL);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
            pid = -1;
            errno = EAGAIN;
        }
    }
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return pid;
}

int ddio_spawn_wait(pid_t pid)
{
    /* Wait without reaping, then reap with the signals blocked once the
     * slot is free: the handler never kills a pid that was reused. */
    siginfo_t info;
    int rc;
    while ((rc = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT)) < 0 && errno == EINTR)
        ;
    sigset_t block, old;
    cleanup_mask(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (size_t i = 0; i < MAX_CHILDREN; i++) {
        int mine = (int)pid;
        if (atomic_compare_exchange_strong(&children[i], &mine, 0))
            break;
    }
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0 || w < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ------------------------------------------------------------ paths */

/* path with its symbolic links followed, link by link, to the file they
 * name, which need not exist (fopen would create a dangling link's
 * target).  Links in the directories on the way are left to the kernel:
 * a temporary beside the target lives in the same directory either way.
 * NULL with errno set (ELOOP after 40 links, as the kernel counts). */
static char *follow_links(const char *path)
{
    char *p = strdup(path);
    for (int hops = 0; p; hops++) {
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            return p;   /* not a link, or missing: creating it tells why */
        char to[PATH_MAX];
        ssize_t n = hops < 40 ? readlink(p, to, sizeof to - 1) : (errno = ELOOP, -1);
        if (n < 0) {
            int err = errno;
            free(p);
            errno = err;
            return NULL;
        }
        to[n] = '\0';
        const char *slash = strrchr(p, '/');
        size_t dl = to[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;   /* relative: to the link's folder */
        char *next = malloc(dl + (size_t)n + 1);
        if (next) {
            memcpy(next, p, dl);
            memcpy(next + dl, to, (size_t)n + 1);
        }
        free(p);
        p = next;
    }
    return NULL;
}

/* A canonical name for comparing files that may not exist yet: realpath
 * of the link-followed path, or of its folder plus its last component; the
 * link-followed path itself when the folder does not exist either. */
static char *canonical(const char *path)
{
    char *t = follow_links(path);
    if (!t)
        return NULL;
    char *r = realpath(t, NULL);
    if (r) {
        free(t);
        return r;
    }
    char *slash = strrchr(t, '/'), *dir;
    const char *base = slash ? slash + 1 : t;
    if (!slash) {
        dir = realpath(".", NULL);
    } else if (slash == t) {
        dir = strdup("/");
    } else {
        *slash = '\0';
        dir = realpath(t, NULL);
        *slash = '/';
    }
    if (!dir)
        return t;
    size_t n = strlen(dir) + strlen(base) + 2;
    r = malloc(n);
    if (r)
        snprintf(r, n, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, base);
    free(dir);
    free(t);
    return r;
}

/* ------------------------------------------------------------ the file */

static void outfile_release(ddio_outfile *o)
{
    free(o->path);
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

/* Not a regular file (a FIFO, a device): written to directly. */
static int open_in_place(ddio_outfile *o)
{
    int fd = open(o->target, O_WRONLY | O_NOCTTY);
    if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return o->f ? 0 : -1;
}

/* A regular file or a new one: a temporary beside it.  `old` is the
 * target's stat, NULL when it does not exist. */
static int open_temp(ddio_outfile *o, const struct stat *old)
{
    size_t tl = strlen(o->target) + 16;
    if (!(o->tmp = malloc(tl))) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(o->tmp, tl, "%s.tmpXXXXXX", o->target);
    int fd = create_temp(o->tmp);
    if (fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    if (old) {
        /* Replace the file as it was: its owner where the process may set
         * it (root, or a group it is in), then its mode (chown may clear
         * set-id bits). */
        if (fchown(fd, old->st_uid, old->st_gid) != 0)
            (void)fchown(fd, (uid_t)-1, old->st_gid);
        (void)fchmod(fd, old->st_mode & 07777);
    } else {
        /* mkstemp creates 0600; give the file the mode a plain fopen would. */
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    if (!(o->f = fdopen(fd, "w"))) {
        int err = errno;
        close(fd);
        unlink(o->tmp);
        temp_unregister(o->tmp);
        errno = err;
        return -1;
    }
    return 0;
}

int ddio_outfile_open(ddio_outfile *o, const char *path, ddio_err *e)
{
    memset(o, 0, sizeof *o);
    if (!path) {
        o->f = stdout;
        return 0;
    }
    if (!(o->path = strdup(path))) {
        outfile_release(o);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    /* What the path names, the kernel following its links: a FIFO or a
     * device is opened by that path (magic links such as /dev/stdout ->
     * /proc/self/fd/1 -> "pipe:[...]" are only followed there); a regular
     * file, or a name that does not exist yet, needs the target's folder
     * for its temporary. */
    struct stat st;
    int exists = stat(path, &st) == 0, rc;
    if (exists && S_ISDIR(st.st_mode)) {
        outfile_release(o);
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: is a directory", path);
    }
    if (exists && !S_ISREG(st.st_mode))
        rc = (o->target = strdup(path)) ? open_in_place(o) : (errno = ENOMEM, -1);
    else
        rc = (o->target = follow_links(path)) ? open_temp(o, exists ? &st : NULL) : -1;
    if (rc != 0) {
        ddio_errf(e, DDIO_EXIT_IO, "%s: cannot create: %s", path, strerror(errno));
        outfile_release(o);
        return -1;
    }
    return 0;
}

int ddio_outfile_commit(ddio_outfile *o, ddio_err *e)
{
    if (!o->path) {
        int bad = ferror(stdout) || fflush(stdout) != 0;
        outfile_release(o);
        return bad ? ddio_errf(e, DDIO_EXIT_IO, "stdout: write failed: %s", strerror(errno)) : 0;
    }
    int ok = !ferror(o->f);
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
    int rc = 0;
    if (!o->tmp) {
        if (!ok)
            rc = ddio_errf(e, DDIO_EXIT_IO, "%s: write failed: %s", o->path, strerror(errno));
    } else if (!ok || rename(o->tmp, o->target) != 0) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: write failed: %s", o->path, strerror(errno));
        unlink(o->tmp);
    }
    /* After the rename: a signal in between finds the name gone, harmless. */
    if (o->tmp)
        temp_unregister(o->tmp);
    outfile_release(o);
    return rc;
}

void ddio_outfile_abort(ddio_outfile *o)
{
    if (o->f && o->path)
        fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        temp_unregister(o->tmp);
    }
    outfile_release(o);
}

/* ------------------------------------------------------------ checks */

static int skipped(const ddio_file_arg *a) { return !a->path || strcmp(a->path, "-") == 0; }

/* 1 when a and b name the same regular file, or will (see outfile.h).
 * Devices and FIFOs are left alone: -o /dev/null --timeline /dev/null, or
 * a terminal read as /dev/stdin and written as /dev/stdout, are fine. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb)
        return 0;
    char *ca = canonical(a), *cb = canonical(b);
    int same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

int ddio_outfile_check(const ddio_file_arg *outs, const ddio_file_arg *ins, ddio_err *e)
{
    for (const ddio_file_arg *o = outs; o->opt; o++) {
        if (skipped(o))
            continue;
        struct stat st;
        if (stat(o->path, &st) == 0 && S_ISDIR(st.st_mode))
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: is a directory", o->path);
        for (const ddio_file_arg *p = outs; p != o; p++)
            if (!skipped(p) && same_file(p->path, o->path))
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s and %s name the same file (%s): one would overwrite the other",
                                 p->opt, o->opt, o->path);
        /* An input that does not exist cannot be overwritten (reading it
         * fails with its own message). */
        for (const ddio_file_arg *in = ins; in && in->opt; in++) {
            struct stat si;
            if (!skipped(in) && stat(in->path, &si) == 0 && S_ISREG(si.st_mode) && stat(o->path, &st) == 0 &&
                si.st_dev == st.st_dev && si.st_ino == st.st_ino) {
                int same_name = strcmp(in->path, o->path) == 0;
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s %s is the file %s reads%s%s%s: it would be overwritten", o->opt,
                                 o->path, in->opt, same_name ? "" : " (", same_name ? "" : in->path, same_name ? "" : ")");
            }
        }
    }
    return 0;
}

int ddio_write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        s += k;
        n -= (size_t)k;
    }
    return 0;
}
