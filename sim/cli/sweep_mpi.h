/* sweep_mpi.h - `mpirun -np N ddiosim sweep ...`: rank 0 reads the spec
 * and the results file, hands the points out one at a time to the ranks
 * that ask (dynamic load balancing: points differ 100x in cost), and
 * writes their rows in grid order; ranks 1..N-1 compute.  Built when Open
 * MPI (or another MPI) is found (DDIOSIM_MPI); without it, or with one
 * rank, the sweep runs on its own threads. */
#ifndef DDIOSIM_SWEEP_MPI_H
#define DDIOSIM_SWEEP_MPI_H

#include <stddef.h>

#include "sim/common/err.h"
#include "sim/explore/sweep.h"

typedef struct sweep_mpi {
    int on;                     /* MPI initialised: several ranks */
    int rank, size;
} sweep_mpi;

/* Start MPI when this process is one of several ranks of an MPI job (and
 * ddiosim was built with MPI); m->on = 0 otherwise. */
void sweep_mpi_init(int *argc, char ***argv, sweep_mpi *m);
void sweep_mpi_finalize(sweep_mpi *m);

/* Rank 0: send the spec's text (or, text NULL, the news that the sweep
 * stops before it starts) to the other ranks. */
int sweep_mpi_share_spec(const sweep_mpi *m, const char *text, ddio_err *e);

/* Rank 0: hand out the grid points todo[0..n) and write each row to fd in
 * order as it comes back.  *failed counts the rows with status error. */
int sweep_mpi_master(const sweep_mpi *m, const size_t *todo, size_t n, int fd, size_t window, size_t *failed,
                     ddio_err *e);

/* Ranks 1..N-1: take the spec, then compute what rank 0 hands out until it
 * says stop.  Returns the exit code. */
int sweep_mpi_worker(const sweep_mpi *m, const char *spec_name, const runner_opts *o, enum sw_format f);

#endif
