/* sweep_mpi.c - a sweep spread over the ranks of an MPI job (sweep_mpi.h).
 *
 * Messages: a worker sends TAG_ROW with the previous point's row (none on
 * its first message); rank 0 answers TAG_POINT with the next grid index,
 * or -1: stop.  A row message is [position (int64), failed (int64), row
 * text]; rank 0 keeps rows that come back early until the ones before them
 * have been written, handing out at most `window` points past the last
 * written row. */
#include "sim/cli/sweep_mpi.h"

#include "sim/common/outfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef DDIOSIM_MPI
#include <mpi.h>

enum { TAG_ROW = 1, TAG_POINT = 2 };

void sweep_mpi_init(int *argc, char ***argv, sweep_mpi *m)
{
    memset(m, 0, sizeof *m);
    m->size = 1;
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!n)
        n = getenv("PMI_SIZE");
    if (!n || atoi(n) < 2)
        return;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    m->on = m->size > 1;
}

void sweep_mpi_finalize(sweep_mpi *m)
{
    if (m->size > 1 || m->on)
        MPI_Finalize();
    m->on = 0;
}

int sweep_mpi_share_spec(const sweep_mpi *m, const char *text, ddio_err *e)
{
    (void)e;
    if (!m->on)
        return 0;
    long long len = text ? (long long)strlen(text) : -1;
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (len > 0)
        MPI_Bcast((void *)text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    return 0;
}

int sweep_mpi_master(const sweep_mpi *m, const size_t *todo, size_t n, int fd, size_t window, size_t *failed,
                     ddio_err *e)
{
    char **row = calloc(window, sizeof *row);
    int *parked = calloc((size_t)m->size, sizeof *parked);
    size_t next = 0, written = 0;
    int n_parked = 0, active = m->size - 1, rc = 0;
    *failed = 0;
    if (!row || !parked) {
        free(row);
        free(parked);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    /* Until every worker has been told to stop (after an error too: they
     * must not be left waiting). */
    while (active > 0) {
        MPI_Status st;
        MPI_Probe(MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &st);
        int len;
        MPI_Get_count(&st, MPI_CHAR, &len);
        char *msg = malloc((size_t)len + 1);
        if (!msg) {
            rc = ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            msg = NULL;
        }
        char tmp[16];
        MPI_Recv(msg ? msg : tmp, msg ? len : 0, MPI_CHAR, st.MPI_SOURCE, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (msg && len >= 16) {
            int64_t pos, bad;
            memcpy(&pos, msg, 8);
            memcpy(&bad, msg + 8, 8);
            msg[len] = '\0';
            if (pos >= 0 && (size_t)pos >= written && (size_t)pos < written + window && !row[pos % window]) {
                row[pos % window] = strdup(msg + 16);
                *failed += bad != 0;
            } else if (rc == 0) {
                rc = ddio_errf(e, DDIO_EXIT_IO, "MPI: rank %d sent a row for point %lld out of turn", st.MPI_SOURCE,
                               (long long)pos);
            }
        }
        free(msg);
        /* Write what is now in order. */
        while (rc == 0 && written < n && row[written % window]) {
            char *r = row[written % window];
            if (ddio_write_all(fd, r, strlen(r)) != 0)
                rc = ddio_errf(e, DDIO_EXIT_IO, "the results file: %s", strerror(errno));
            free(r);
            row[written % window] = NULL;
            written++;
        }
        parked[n_parked++] = st.MPI_SOURCE;
        /* Serve the workers waiting for a point. */
        while (n_parked > 0) {
            long long k;
            if (rc != 0 || next >= n)
                k = -1;
            else if (next < written + window)
                k = (long long)todo[next];
            else
                break;   /* the window is full: wait for rows */
            int w = parked[--n_parked];
            long long msg_k[2] = {k, (long long)next};
            MPI_Send(msg_k, 2, MPI_LONG_LONG, w, TAG_POINT, MPI_COMM_WORLD);
            if (k < 0)
                active--;
            else
                next++;
        }
    }
    for (size_t i = 0; i < window; i++)
        free(row[i]);
    free(row);
    free(parked);
    if (rc == 0 && written != n)
        rc = ddio_errf(e, DDIO_EXIT_IO, "MPI: %zu of %zu rows came back", written, n);
    return rc;
}

int sweep_mpi_worker(const sweep_mpi *m, const char *spec_name, const runner_opts *o, enum sw_format f)
{
    (void)m;
    long long len;
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (len < 0)
        return 2;   /* rank 0 stopped before the sweep (and said why) */
    char *text = malloc((size_t)len + 1);
    if (!text)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[len] = '\0';
    sw_spec s;
    ddio_err e = {0};
    if (sw_spec_parse(text, spec_name, &s, &e) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);   /* rank 0 parsed the same text */
    free(text);
    char *out = NULL;           /* the previous point's message */
    size_t out_len = 0;
    runner_opts own;
    pktsrc_trace parsed = {0};  /* the trace, parsed at this rank's first point on it */
    int parse_tried = 0;
    for (;;) {
        MPI_Send(out ? out : "", (int)out_len, MPI_CHAR, 0, TAG_ROW, MPI_COMM_WORLD);
        free(out);
        out = NULL;
        out_len = 0;
        long long k[2];
        MPI_Recv(k, 2, MPI_LONG_LONG, 0, TAG_POINT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (k[0] < 0)
            break;
        vd_param p[VD_MAX_PARAMS];
        uint32_t np = sw_point_params(&s, (size_t)k[0], p);
        runner_job job = {.machine = s.machine, .workload = s.workload, .n_params = np, .param = p};
        if (!parse_tried && runner_job_uses_trace(&job)) {
            o = runner_parse_trace(o, 1, &own, &parsed);
            parse_tried = 1;
        }
        runner_outcome r;
        runner_point(&job, o, &r);
        char *row = sw_row(&s, o, f, sw_point_id(p, np), p, np, &r);
        if (!row)
            MPI_Abort(MPI_COMM_WORLD, 1);
        size_t rl = strlen(row);
        out = malloc(16 + rl);
        if (!out)
            MPI_Abort(MPI_COMM_WORLD, 1);
        int64_t pos = k[1], bad = r.failed != 0;
        memcpy(out, &pos, 8);
        memcpy(out + 8, &bad, 8);
        memcpy(out + 16, row, rl);
        out_len = 16 + rl;
        free(row);
    }
    pktsrc_trace_free(&parsed);
    sw_spec_free(&s);
    return 0;
}

#else   /* no MPI: every sweep runs on its own threads */

void sweep_mpi_init(int *argc, char ***argv, sweep_mpi *m)
{
    (void)argc;
    (void)argv;
    memset(m, 0, sizeof *m);
    m->size = 1;
}

void sweep_mpi_finalize(sweep_mpi *m)
{
    (void)m;
}

int sweep_mpi_share_spec(const sweep_mpi *m, const char *text, ddio_err *e)
{
    (void)m;
    (void)text;
    (void)e;
    return 0;
}

int sweep_mpi_master(const sweep_mpi *m, const size_t *todo, size_t n, int fd, size_t window, size_t *failed,
                     ddio_err *e)
{
    (void)m;
    (void)todo;
    (void)n;
    (void)fd;
    (void)window;
    (void)failed;
    return ddio_errf(e, DDIO_EXIT_USAGE, "this ddiosim was built without MPI");
}

int sweep_mpi_worker(const sweep_mpi *m, const char *spec_name, const runner_opts *o, enum sw_format f)
{
    (void)m;
    (void)spec_name;
    (void)o;
    (void)f;
    return 2;
}

#endif
