/* cmd_sweep.c - `ddiosim sweep`: compute every point of a design-space grid
 * with the simulator and / or the model (validate's point runner, in
 * parallel) and append one whole line per point to a results file, so that
 * a sweep killed at any moment can be resumed where it stopped. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/cli.h"
#include "sim/cli_runner.h"
#include "sim/sweep_mpi.h"
#include "sim/common/datadir.h"
#include "sim/common/parse.h"
#include "validate/sweep.h"


static const char usage[] =
    "usage: ddiosim sweep --spec SPEC.json -o RESULTS [options]\n"
    "\n"
    "Compute every point of a design-space grid (docs/sweep.md): a base machine,\n"
    "workload and traffic, and the values of the parameters to vary; their\n"
    "cartesian product, less what the spec's filter drops, is the grid.  One line\n"
    "per point is appended to RESULTS as soon as it is computed.\n"
    "\n"
    "  --spec FILE        the sweep spec (JSON)\n"
    "  -o, --output FILE  the results file; it must not exist unless --resume\n"
    "  --resume           complete RESULTS: compute only the points it lacks (a\n"
    "                     spec or options other than its own are refused)\n"
    "  --engine E         sim | model | both (both)\n"
    "  --jobs N           points computed in parallel (default: the cores online);\n"
    "                     the results do not depend on it\n"
    "  --format F         csv | jsonl (csv; jsonl when FILE ends in .jsonl)\n"
    "  --packets N        simulator: packets injected per point (300000)\n"
    "  --seed S           simulator: seed of every point (1)\n"
    "  --max-iter N       model: fixed-point iteration cap (predict's, 500); a point\n"
    "                     that does not converge is a row with status error\n"
    "  --set PATH=VALUE   a machine or workload field for every point, after the\n"
    "                     spec's parameters (machine.llc.policy=bip); repeatable\n"
    "  -h, --help         this help\n";

typedef struct sweep_opts {
    const char *spec, *out;
    int resume, engines, fmt_given;
    enum sw_format fmt;
    int max_iter;
    cli_run_args run;           /* --jobs, --packets, --seed, --set */
} sweep_opts;

enum { O_SPEC = 300, O_RESUME, O_ENGINE, O_FORMAT, O_MAXIT };

static int parse(int argc, char **argv, sweep_opts *o, ddio_err *e)
{
    static const struct option longopts[] = {
        {"spec", required_argument, 0, O_SPEC},     {"output", required_argument, 0, 'o'},
        {"resume", no_argument, 0, O_RESUME},       {"engine", required_argument, 0, O_ENGINE},
        {"format", required_argument, 0, O_FORMAT}, {"max-iter", required_argument, 0, O_MAXIT},
        {"help", no_argument, 0, 'h'},              CLI_RUN_LONGOPTS,
        {0, 0, 0, 0},
    };
    uint64_t v;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        int taken = cli_run_option(c, optarg, &o->run, e);
        if (taken < 0)
            return -1;
        if (taken)
            continue;
        switch (c) {
        case 'h': return 1;
        case 'o': o->out = optarg; break;
        case O_SPEC: o->spec = optarg; break;
        case O_RESUME: o->resume = 1; break;
        case O_ENGINE:
            if (cli_parse_engine(optarg, 1, &o->engines, e)) return -1;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "csv") == 0) o->fmt = SW_CSV;
            else if (strcmp(optarg, "jsonl") == 0) o->fmt = SW_JSONL;
            else return ddio_errf(e, DDIO_EXIT_USAGE, "--format: '%s' is not csv or jsonl", optarg);
            o->fmt_given = 1;
            break;
        case O_MAXIT:
            if (ddio_parse_u64(optarg, 1, 1000000, &v, "--max-iter", e)) return -1;
            o->max_iter = (int)v;
            break;
        case ':': return ddio_errf(e, DDIO_EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]), -2;
        default: return ddio_errf(e, DDIO_EXIT_USAGE, "unknown option '%s'", argv[optind - 1]), -2;
        }
    }
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if (!o->spec)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--spec is required"), -2;
    if (!o->out)
        return ddio_errf(e, DDIO_EXIT_USAGE, "-o is required (the results file)"), -2;
    if (!o->fmt_given) {
        size_t n = strlen(o->out);
        o->fmt = n > 6 && strcmp(o->out + n - 6, ".jsonl") == 0 ? SW_JSONL : SW_CSV;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void progress(size_t done, size_t total, double t0, int final)
{
    double dt = now_s() - t0, rate = dt > 0 ? done / dt : 0;
    double eta = rate > 0 ? (total - done) / rate : 0;
    int w = 30, fill = total ? (int)(w * (double)done / total) : w;
    fprintf(stderr, "\rsweep [%.*s%*s] %zu/%zu points  %.1f/s  ETA %.0f s ", fill,
            "##############################", w - fill, "", done, total, rate, eta);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

/* The selected points of the grid not already in `done` (sorted ids):
 * their grid indices, in grid order. */
static int pending_points(const sw_spec *s, const uint64_t *done, size_t n_done, size_t **out, size_t *n,
                          size_t *n_sel, ddio_err *e)
{
    *out = malloc((s->n_grid ? s->n_grid : 1) * sizeof **out);
    if (!*out)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    *n = *n_sel = 0;
    vd_param p[VD_MAX_PARAMS];
    for (size_t k = 0; k < s->n_grid; k++) {
        uint32_t np = sw_point_params(s, k, p);
        if (!sw_point_selected(s, p, np))
            continue;
        ++*n_sel;
        uint64_t id = sw_point_id(p, np);
        if (n_done && bsearch(&id, done, n_done, sizeof *done, cmp_u64))
            continue;
        (*out)[(*n)++] = k;
    }
    return 0;
}

/* What the callbacks of vd_run_stream share. */
typedef struct writer {
    const sw_spec *s;
    const vd_run_opts *ro;
    const sweep_opts *o;
    const size_t *todo;         /* grid indices of the points to compute */
    size_t n, written, failed;
    int fd, tty;
    double t0, last_progress;
} writer;

static int job_of(size_t i, void *ctx, vd_job *job, vd_param *params, ddio_err *e)
{
    const writer *w = ctx;
    (void)e;
    *job = (vd_job){.machine = w->s->machine, .workload = w->s->workload,
                    .n_params = sw_point_params(w->s, w->todo[i], params), .param = params};
    return 0;
}

static int emit(size_t i, const vd_job *job, const vd_outcome *out, void *ctx, ddio_err *e)
{
    writer *w = ctx;
    (void)i;
    w->failed += out->failed != 0;
    char *row = sw_row(w->s, w->ro, w->o->fmt, sw_point_id(job->param, job->n_params), job->param, job->n_params, out);
    if (!row)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    int bad = ddio_write_all(w->fd, row, strlen(row));
    free(row);
    if (bad)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: %s", w->o->out, strerror(errno));
    w->written++;
    double t = now_s();
    if (w->tty && (t - w->last_progress > 0.1 || w->written == w->n)) {
        progress(w->written, w->n, w->t0, w->written == w->n);
        w->last_progress = t;
    }
    return 0;
}

/* The point runner's options of the command line. */
static vd_run_opts run_opts_of(const sweep_opts *o, char *trace, size_t cap)
{
    vd_run_opts ro = cli_run_opts(&o->run, o->engines, trace, cap);
    ro.model_max_iter = o->max_iter;
    return ro;
}

static int run(const sweep_opts *o, const sweep_mpi *mpi, ddio_err *e)
{
    sw_spec s;
    memset(&s, 0, sizeof s);
    int rc = -1, fd = -1, shared = 0;
    char *text = sw_read_spec(o->spec, e);
    char *header = NULL;
    size_t *todo = NULL;
    sw_done done = {0};
    char trace[DDIO_DATA_PATH_MAX];
    vd_run_opts ro = run_opts_of(o, trace, sizeof trace);
    if (!text || sw_spec_parse(text, o->spec, &s, e) != 0)
        goto done;
    ddio_file_arg outs[] = {{"-o", o->out}, {0}};
    if (ddio_outfile_check(outs, (ddio_file_arg[]){{"--spec", o->spec}, {0}}, e) != 0)
        goto done;
    header = sw_header(&s, &ro, o->fmt);
    if (!header) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    struct stat st;
    int exists = stat(o->out, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a regular file", o->out);
        goto done;
    }
    if (exists && !o->resume) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s exists: --resume completes it, or remove it first", o->out);
        goto done;
    }
    if (exists && sw_resume_scan(o->out, header, o->fmt, &done, e) != 0)
        goto done;
    if (done.n)
        qsort(done.id, done.n, sizeof *done.id, cmp_u64);
    size_t n_todo = 0, n_sel = 0;
    if (pending_points(&s, done.id, done.n, &todo, &n_todo, &n_sel, e) != 0)
        goto done;
    fd = open(o->out, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        ddio_errf(e, DDIO_EXIT_IO, "%s: %s", o->out, strerror(errno));
        goto done;
    }
    /* A partial last line (a run killed mid-write) is cut; a fresh file gets
     * its header.  Then every row is appended. */
    if (ftruncate(fd, (off_t)done.good_bytes) != 0 || lseek(fd, 0, SEEK_END) < 0 ||
        (done.good_bytes == 0 && ddio_write_all(fd, header, strlen(header)) != 0)) {
        ddio_errf(e, DDIO_EXIT_IO, "%s: %s", o->out, strerror(errno));
        goto done;
    }
    /* Points stream through the workers (threads, or the other MPI ranks);
     * rows are written in grid order, each as soon as it and those before
     * it are done. */
    writer w = {.s = &s, .ro = &ro, .o = o, .todo = todo, .n = n_todo, .fd = fd, .tty = isatty(2), .t0 = now_s()};
    sweep_mpi_share_spec(mpi, text, e);
    shared = 1;
    if (mpi->on ? sweep_mpi_master(mpi, todo, n_todo, fd, (size_t)(mpi->size - 1) * 16, &w.failed, e) != 0
                : vd_run_stream(n_todo, &ro, (size_t)(ro.jobs < 1 ? 1 : ro.jobs) * 16, job_of, emit, &w, e) != 0)
        goto done;
    size_t failed = w.failed;
    double t0 = w.t0;
    if (fsync(fd) != 0 || close(fd) != 0) {
        fd = -1;
        ddio_errf(e, DDIO_EXIT_IO, "%s: %s", o->out, strerror(errno));
        goto done;
    }
    fd = -1;
    fprintf(stderr, "sweep: %zu points computed, %zu already in %s, %zu failed (%zu of %zu grid points selected) "
                    "in %.1f s\n", n_todo, done.n, o->out, failed, n_sel, s.n_grid, now_s() - t0);
    rc = 0;
done:
    if (!shared)
        sweep_mpi_share_spec(mpi, NULL, e);   /* the other ranks stop too */
    if (fd >= 0)
        close(fd);
    free(text);
    free(header);
    free(todo);
    free(done.id);
    sw_spec_free(&s);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    ddio_err e = {0};
    sweep_opts o;
    memset(&o, 0, sizeof o);
    o.engines = VD_ENGINE_BOTH;
    cli_run_args_default(&o.run);
    int rc = cli_parse_outcome("sweep", parse(argc, argv, &o, &e), usage, &e);
    if (rc >= 0)
        return rc;
    sweep_mpi mpi;
    sweep_mpi_init(&argc, &argv, &mpi);
    if (mpi.on && mpi.rank > 0) {   /* a worker rank: rank 0 reads, writes and reports */
        char trace[DDIO_DATA_PATH_MAX];
        vd_run_opts ro = run_opts_of(&o, trace, sizeof trace);
        ro.jobs = 1;
        rc = sweep_mpi_worker(&mpi, o.spec, &ro, o.fmt);
        sweep_mpi_finalize(&mpi);
        return rc;
    }
    rc = run(&o, &mpi, &e) != 0 ? cli_fail("sweep", &e) : 0;
    sweep_mpi_finalize(&mpi);
    return rc;
}
