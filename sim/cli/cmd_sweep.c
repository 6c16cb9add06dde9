/* cmd_sweep.c - `ddiosim sweep`: compute every point of a design-space grid
 * with the simulator and / or the model (validate's point runner, in
 * parallel) and append one whole line per point to a results file, so that
 * a sweep killed at any moment can be resumed where it stopped. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_runner.h"
#include "sim/cli/sweep_mpi.h"
#include "sim/common/datadir.h"
#include "sim/common/parse.h"
#include "sim/common/provenance.h"
#include "sim/explore/sweep.h"


static const char usage[] =
    "usage: ddiosim sweep --spec SPEC.json -o RESULTS [options]\n"
    "\n"
    "Compute every point of a design-space grid (docs/sweep.md): a base machine,\n"
    "workload and traffic, and the values of the parameters to vary; their\n"
    "cartesian product, less what the spec's filter drops, is the grid.  One line\n"
    "per point is appended to RESULTS as soon as it is computed.\n"
    "\n"
    "  --spec FILE        the sweep spec (JSON)\n"
    "  -o, --output FILE  the results file; it must not exist unless --resume;\n"
    "                     locked while the sweep runs (a second one is refused)\n"
    "  --resume           complete RESULTS: compute only the points it lacks (a\n"
    "                     spec, machine or workload contents or options other\n"
    "                     than its own are refused)\n"
    "  --retry-errors     with --resume: compute the rows with status error again\n"
    "                     too (the file is rewritten, one row per point in grid\n"
    "                     order)\n"
    "  --engine E         sim | model | both (both)\n"
    "  --jobs N           points computed in parallel (default: the cores online);\n"
    "                     the results do not depend on it\n"
    "  --format F         csv | jsonl | npf (csv; jsonl when FILE ends in .jsonl);\n"
    "                     npf: NPF's --single-output CSV (pandas), not resumable\n"
    "  --packets N        simulator: packets injected per point (300000:\n"
    "                     at most half of it warm-up; 100000 moves a hit rate\n"
    "                     by <= 0.5 point)\n"
    "  --seed S           simulator: seed of every point (1)\n"
    "  --max-iter N       model: fixed-point iteration cap (predict's, 500); a point\n"
    "                     that does not converge is a row with status error\n"
    "  --set PATH=VALUE   a machine or workload field for every point, after the\n"
    "                     spec's parameters (machine.llc.policy=bip); repeatable;\n"
    "                     a field a parameter of the spec sets is refused\n"
    "  -h, --help         this help\n";

typedef struct sweep_opts {
    const char *spec, *out;
    char *command;              /* the command line, for the sidecar */
    int resume, retry, engines, fmt_given;
    enum sw_format fmt;
    int max_iter;
    cli_run_args run;           /* --jobs, --packets, --seed, --set */
} sweep_opts;

enum { O_SPEC = 300, O_RESUME, O_RETRY, O_ENGINE, O_FORMAT, O_MAXIT };

static int parse(int argc, char **argv, sweep_opts *o, ddio_err *e)
{
    static const struct option longopts[] = {
        {"spec", required_argument, 0, O_SPEC},     {"output", required_argument, 0, 'o'},
        {"resume", no_argument, 0, O_RESUME},       {"retry-errors", no_argument, 0, O_RETRY},
        {"engine", required_argument, 0, O_ENGINE},
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
        case O_RETRY: o->retry = 1; break;
        case O_ENGINE:
            if (cli_parse_engine(optarg, 1, &o->engines, e)) return -1;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "csv") == 0) o->fmt = SW_CSV;
            else if (strcmp(optarg, "jsonl") == 0) o->fmt = SW_JSONL;
            else if (strcmp(optarg, "npf") == 0) o->fmt = SW_NPF;
            else return ddio_errf(e, DDIO_EXIT_USAGE, "--format: '%s' is not csv, jsonl or npf", optarg);
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
    if (o->retry && !o->resume)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--retry-errors needs --resume"), -2;
    if (o->resume && o->fmt_given && o->fmt == SW_NPF)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--resume: not with --format npf (NPF's layout has no line naming the "
                         "run, so another run's file could not be told apart): sweep to csv or jsonl to resume"), -2;
    if (!o->fmt_given) {
        size_t n = strlen(o->out);
        o->fmt = n > 6 && strcmp(o->out + n - 6, ".jsonl") == 0 ? SW_JSONL : SW_CSV;
    }
    return 0;
}

/* A row of the file being resumed, by id (for the lookups of the grid). */
typedef struct done_id {
    uint64_t id;
    const sw_row_at *row;
} done_id;

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const done_id *)a)->id, y = ((const done_id *)b)->id;
    return x < y ? -1 : x > y;
}

/* The plan of a run: the selected points of the grid to compute (not in
 * the file, or an error row to retry), their grid indices in grid order;
 * and the rows of the file kept, in grid order, each with the grid index
 * it is the row of. */
typedef struct plan {
    size_t *todo, n_todo, n_sel;
    const sw_row_at **keep;
    size_t *keep_k, n_keep;
} plan;

static void plan_free(plan *p)
{
    free(p->todo);
    free(p->keep);
    free(p->keep_k);
    memset(p, 0, sizeof *p);
}

static int make_plan(const sw_spec *s, const sw_done *done, int retry, plan *p, ddio_err *e)
{
    memset(p, 0, sizeof *p);
    size_t cap = s->n_grid ? s->n_grid : 1;
    done_id *by = malloc((done->n ? done->n : 1) * sizeof *by);
    p->todo = malloc(cap * sizeof *p->todo);
    p->keep = malloc((done->n ? done->n : 1) * sizeof *p->keep);
    p->keep_k = malloc((done->n ? done->n : 1) * sizeof *p->keep_k);
    if (!by || !p->todo || !p->keep || !p->keep_k) {
        free(by);
        plan_free(p);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (size_t i = 0; i < done->n; i++)
        by[i] = (done_id){done->row[i].id, &done->row[i]};
    qsort(by, done->n, sizeof *by, by_id);
    vd_param prm[VD_MAX_PARAMS];
    for (size_t k = 0; k < s->n_grid; k++) {
        uint32_t np = sw_point_params(s, k, prm);
        if (!sw_point_selected(s, prm, np))
            continue;
        p->n_sel++;
        done_id key = {sw_point_id(prm, np), NULL};
        const done_id *d = done->n ? bsearch(&key, by, done->n, sizeof *by, by_id) : NULL;
        if (d && !(retry && d->row->failed) && p->n_keep < done->n) {
            p->keep[p->n_keep] = d->row;
            p->keep_k[p->n_keep++] = k;
        } else {
            p->todo[p->n_todo++] = k;
        }
    }
    free(by);
    return 0;
}

/* What the callbacks of runner_stream share. */
typedef struct writer {
    const sw_spec *s;
    const runner_opts *ro;
    const sweep_opts *o;
    const plan *pl;
    size_t n, written, failed;
    int fd;
    int old_fd;                 /* >= 0: rewriting, the kept rows copied from it in grid order */
    size_t next_keep;
    cli_progress bar;
} writer;

/* Rewriting: copy the kept rows of the old file that come before grid
 * point k (all of them: k = SIZE_MAX). */
static int copy_kept(writer *w, size_t k, ddio_err *e)
{
    for (; w->next_keep < w->pl->n_keep && w->pl->keep_k[w->next_keep] < k; w->next_keep++) {
        const sw_row_at *r = w->pl->keep[w->next_keep];
        char *buf = malloc(r->len);
        if (!buf)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        errno = 0;   /* a short read sets none: "changed while read" */
        ssize_t got = pread(w->old_fd, buf, r->len, (off_t)r->offset);
        int bad = got != (ssize_t)r->len || ddio_write_all(w->fd, buf, r->len) != 0;
        free(buf);
        if (bad)
            return ddio_errf(e, DDIO_EXIT_IO, "%s: %s", w->o->out, got < 0 || errno ? strerror(errno) : "changed while read");
    }
    return 0;
}

static int job_of(size_t i, void *ctx, runner_job *job, vd_param *params, ddio_err *e)
{
    const writer *w = ctx;
    (void)e;
    *job = (runner_job){.machine = w->s->machine, .workload = w->s->workload,
                    .n_params = sw_point_params(w->s, w->pl->todo[i], params), .param = params};
    return 0;
}

static int emit(size_t i, const runner_job *job, const runner_outcome *out, void *ctx, ddio_err *e)
{
    writer *w = ctx;
    if (w->old_fd >= 0 && copy_kept(w, w->pl->todo[i], e) != 0)
        return -1;
    w->failed += out->failed != 0;
    char *row = sw_row(w->s, w->ro, w->o->fmt, sw_point_id(job->param, job->n_params), job->param, job->n_params, out);
    if (!row)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    int bad = ddio_write_all(w->fd, row, strlen(row));
    free(row);
    if (bad)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: %s", w->o->out, strerror(errno));
    w->written++;
    cli_progress_point(&w->bar, NULL, w->written, w->n);
    return 0;
}

/* The point runner's options of the command line. */
static runner_opts run_opts_of(const sweep_opts *o, char *trace, size_t cap)
{
    runner_opts ro = cli_run_opts(&o->run, o->engines, trace, cap);
    ro.model_max_iter = o->max_iter;
    return ro;
}

/* The results file, opened and locked for this run: an existing one
 * (--resume) as it is, a new one created (O_EXCL: never a file another
 * process made in between).  The advisory lock, held until the run ends,
 * keeps two sweeps from writing one file.  *created: this run made it. */
static int open_results(const sweep_opts *o, int *created, ddio_err *e)
{
    struct stat st;
    int exists = stat(o->out, &st) == 0;
    *created = 0;
    if (exists && !S_ISREG(st.st_mode))
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a regular file", o->out);
    if (exists && !o->resume)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s exists: --resume completes it, or remove it first", o->out);
    int fd = exists ? open(o->out, O_RDWR | O_CLOEXEC) : open(o->out, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s exists: --resume completes it, or remove it first", o->out);
    if (fd < 0)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: %s", o->out, strerror(errno));
    *created = !exists;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int locked = errno == EWOULDBLOCK;
        ddio_errf(e, locked ? DDIO_EXIT_USAGE : DDIO_EXIT_IO, "%s: %s: not touched", o->out,
                  locked ? "another sweep is writing it (it is locked)" : strerror(errno));
        close(fd);
        *created = 0;   /* the other sweep's now */
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ddio_errf(e, DDIO_EXIT_USAGE, "%s: not a regular file", o->out);
        close(fd);
        return -1;
    }
    return fd;
}

/* The spec, checked against the options before any file is touched. */
static int load_spec(const sweep_opts *o, const runner_opts *ro, char **text, sw_spec *s, ddio_err *e)
{
    *text = sw_read_spec(o->spec, e);
    if (!*text || sw_spec_parse(*text, o->spec, s, e) != 0 || sw_spec_check(s, ro, e) != 0)
        return -1;
    /* The sidecar (OUT.meta.json) is an output too: it must not be an input. */
    char *side = cli_sidecar_of(o->out);
    ddio_file_arg outs[] = {{"-o", o->out}, {"-o (its sidecar)", side}, {0}};
    int rc = ddio_outfile_check(
        outs, (ddio_file_arg[]){{"--spec", o->spec}, {"--overlay", o->run.overlay_path}, {0}}, e);
    free(side);
    return rc;
}

/* Compute the plan's points into w->fd (threads, or the other MPI ranks);
 * rows are written in grid order, each as soon as it and those before it
 * are done. */
static int compute(writer *w, const sweep_mpi *mpi, const runner_opts *ro, ddio_err *e)
{
    if (mpi->on)
        return sweep_mpi_master(mpi, w->pl->todo, w->n, w->fd, (size_t)(mpi->size - 1) * 16, &w->failed, e);
    if (runner_stream(w->n, ro, (size_t)(ro->jobs < 1 ? 1 : ro->jobs) * 16, job_of, emit, w, e) != 0)
        return -1;
    return w->old_fd >= 0 ? copy_kept(w, SIZE_MAX, e) : 0;
}

/* --retry-errors with error rows: the file is rewritten whole (a
 * temporary renamed over it), its kept rows and the recomputed ones in grid
 * order, so that it stays one row per point; killed, it is left as it was. */
static int rewrite(writer *w, const sweep_mpi *mpi, const runner_opts *ro, const char *header, ddio_err *e)
{
    ddio_outfile of;
    if (ddio_outfile_open(&of, w->o->out, e) != 0)
        return -1;
    int old_fd = w->fd;
    w->old_fd = old_fd;
    w->fd = fileno(of.f);   /* rows go straight to the descriptor: nothing through the stream */
    int rc = ddio_write_all(w->fd, header, strlen(header)) != 0
                 ? ddio_errf(e, DDIO_EXIT_IO, "%s: %s", w->o->out, strerror(errno))
                 : compute(w, mpi, ro, e);
    w->fd = old_fd;
    w->old_fd = -1;
    if (rc == 0 && fsync(fileno(of.f)) != 0)
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: %s", w->o->out, strerror(errno));
    if (rc != 0) {
        ddio_outfile_abort(&of);
        return -1;
    }
    return ddio_outfile_commit(&of, e);
}

/* The header an existing CSV must start with (sw_resume_header: its
 * sidecar's, or an older version's); JSONL names its run in its header. */
static int start_header(const sweep_opts *o, const sw_spec *s, const runner_opts *ro, int created, char **header,
                        int *legacy, ddio_err *e)
{
    char *use;
    if (created || o->fmt != SW_CSV)
        return 0;
    if (sw_resume_header(o->out, s, ro, *header, &use, legacy, e) != 0)
        return -1;
    free(*header);
    *header = use;
    return 0;
}

/* OUT.meta.json, written whole before any row (and again, the same run,
 * when resumed). */
static int write_meta(const sweep_opts *o, const sw_spec *s, const runner_opts *ro, ddio_err *e)
{
    char *path = ddio_sidecar_path(o->out), *text = sw_meta_json(s, ro, o->fmt, o->command);
    int rc = path && text ? cli_write_output(path, text, e) : ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    free(path);
    free(text);
    return rc;
}

static int run(const sweep_opts *o, const sweep_mpi *mpi, ddio_err *e)
{
    sw_spec s;
    memset(&s, 0, sizeof s);
    int rc = -1, fd = -1, shared = 0, created = 0, legacy = 0;
    char *text = NULL, *header = NULL;
    plan pl = {0};
    sw_done done = {0};
    char trace[DDIO_DATA_PATH_MAX];
    runner_opts ro = run_opts_of(o, trace, sizeof trace);
    if (load_spec(o, &ro, &text, &s, e) != 0)
        goto done;
    if (mpi->on && o->retry) {
        ddio_errf(e, DDIO_EXIT_USAGE, "--retry-errors: not with MPI ranks (resume on one rank)");
        goto done;
    }
    header = sw_header(&s, &ro, o->fmt);
    if (!header) {
        ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto done;
    }
    if ((fd = open_results(o, &created, e)) < 0 || start_header(o, &s, &ro, created, &header, &legacy, e) != 0 ||
        (!created && sw_resume_scan(o->out, header, o->fmt, &done, e) != 0) ||
        make_plan(&s, &done, o->retry, &pl, e) != 0 || (!legacy && write_meta(o, &s, &ro, e) != 0))
        goto done;
    writer w = {.s = &s, .ro = &ro, .o = o, .pl = &pl, .n = pl.n_todo, .fd = fd, .old_fd = -1};
    cli_progress_init(&w.bar, "sweep");
    const double t0 = cli_now_s();
    sweep_mpi_share_spec(mpi, text, e);
    shared = 1;
    if (o->retry && done.n_failed) {
        if (rewrite(&w, mpi, &ro, header, e) != 0)
            goto done;
    } else {
        /* A partial last line (a run killed mid-write) is cut; a fresh file
         * gets its header.  Then every row is appended. */
        if (ftruncate(fd, (off_t)done.good_bytes) != 0 || lseek(fd, 0, SEEK_END) < 0 ||
            (done.good_bytes == 0 && ddio_write_all(fd, header, strlen(header)) != 0)) {
            ddio_errf(e, DDIO_EXIT_IO, "%s: %s", o->out, strerror(errno));
            goto done;
        }
        created = 0;   /* written: kept, whatever happens next */
        if (compute(&w, mpi, &ro, e) != 0 || fsync(fd) != 0) {
            if (!e->msg[0])
                ddio_errf(e, DDIO_EXIT_IO, "%s: %s", o->out, strerror(errno));
            goto done;
        }
    }
    fprintf(stderr, "sweep: %zu points computed, %zu already in %s, %zu failed (%zu of %zu grid points selected) "
                    "in %.1f s\n", pl.n_todo, pl.n_keep, o->out, w.failed, pl.n_sel, s.n_grid, cli_now_s() - t0);
    rc = 0;
done:
    if (!shared)
        sweep_mpi_share_spec(mpi, NULL, e);   /* the other ranks stop too */
    if (created) {
        unlink(o->out);   /* made by this run, which failed before writing it */
        char *meta = ddio_sidecar_path(o->out);
        if (meta)
            unlink(meta);   /* and its sidecar, if it got that far */
        free(meta);
    }
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        rc = -1;
        ddio_errf(e, DDIO_EXIT_IO, "%s: %s", o->out, strerror(errno));
    }
    free(text);
    free(header);
    plan_free(&pl);
    sw_done_free(&done);
    sw_spec_free(&s);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    ddio_err e = {0};
    sweep_opts o;
    memset(&o, 0, sizeof o);
    o.engines = RUNNER_ENGINE_BOTH;
    cli_run_args_default(&o.run);
    o.command = ddio_command_line(argc, argv);   /* before getopt reorders argv */
    if (!o.command)
        return ddio_errf(&e, DDIO_EXIT_IO, "out of memory"), cli_fail("sweep", &e);
    int rc = cli_parse_outcome("sweep", parse(argc, argv, &o, &e), usage, &e);
    if (rc >= 0) {
        free(o.command);
        return rc;
    }
    sweep_mpi mpi;
    sweep_mpi_init(&argc, &argv, &mpi);
    if (mpi.on && mpi.rank > 0) {   /* a worker rank: rank 0 reads, writes and reports */
        char trace[DDIO_DATA_PATH_MAX];
        runner_opts ro = run_opts_of(&o, trace, sizeof trace);
        ro.jobs = 1;
        rc = sweep_mpi_worker(&mpi, o.spec, &ro, o.fmt);
        sweep_mpi_finalize(&mpi);
        free(o.command);
        return rc;
    }
    rc = run(&o, &mpi, &e) != 0 ? cli_fail("sweep", &e) : 0;
    sweep_mpi_finalize(&mpi);
    free(o.command);
    return rc;
}
