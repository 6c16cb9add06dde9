/* model.h - the analytical Markov model of buffer cache-line states (Wang,
 * Xu, Wu, "Understanding I/O Direct Cache Access Performance for End Host
 * Networking", SIGMETRICS 2022, Section 4 and Appendix D): where a buffer's
 * cache line is (physical state) each time it enters and leaves a logical
 * queue, at equilibrium.
 *
 * Physical states are pairs (LLC copy, L2 copy).  Access matrices are
 * generated from the cells of sim/cache/coherence.h (Table 1) and the rules
 * around it there: each state is mapped to its Table 1 column, the cell says
 * what happens to the LLC and L2 copies, and the pair is mapped back to a
 * state.  No second copy of Table 1 or of those rules exists here.
 * Eviction matrices come from reuse distances (Section 4.3.1) through
 * sim/markov/evict.h.  docs/model.md explains every choice.
 *
 * The code: model_access.c (states, access matrices), model_reuse.c (reuse
 * distances, eviction matrices), model.c (the chain and its fixed point),
 * model_int.h (their shared types). */
#ifndef DDIOSIM_MARKOV_MODEL_H
#define DDIOSIM_MARKOV_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/cache/coherence.h"
#include "sim/cache/hier.h"
#include "sim/common/err.h"
#include "sim/markov/evict.h"
#include "sim/queue/lqueue.h"

#define MK_MAX_STATES 8
#define MK_MAX_OPS 8

/* ------------------------------------------------------------ states */

/* One physical state: the region of the LLC copy (REG_DDIO, REG_SHARED,
 * REG_L3, or REG_MEM for none) and the L2 copy (ST_I none, ST_S, ST_M for
 * E or M). */
typedef struct mk_state {
    uint8_t llc;
    uint8_t l2;
} mk_state;

/* The state set of a hierarchy.
 *   non-inclusive (7): L2(E/M), L2(S), DDIO, Shared, Shared+L2(S), L3*, Memory
 *   inclusive (5):     DDIO, L3, DDIO+L2, L3+L2, Memory
 * The paper's five Skylake states are L2 = L2(E/M) + L2(S) and
 * Shared = Shared + Shared+L2(S): Table 1 tells the refined states apart
 * (a PCIe read leaves an S copy in L2 next to the Shared copy; each copy is
 * evicted on its own). */
typedef struct mk_space {
    enum hier_mode mode;
    int ddio;                       /* the LLC has DDIO ways; 0: DDIO off (coherence.h, coh_lookup_io) */
    unsigned n;
    unsigned mem;                   /* index of Memory */
    mk_state st[MK_MAX_STATES];
    const char *name[MK_MAX_STATES];
} mk_space;

/* The states of `mode`; `ddio` 0 for an LLC without DDIO ways, whose PCIe
 * writes take the DDIO-off cells (coh_lookup_io). */
void mk_space_init(mk_space *sp, enum hier_mode mode, int ddio);
/* Index of (llc, l2) in the space, or -1. */
int mk_space_find(const mk_space *sp, unsigned llc, unsigned l2);
/* Table 1 column of a state (coh_col_of, the column rule of docs/cache-model.md). */
enum coh_col mk_state_col(const mk_space *sp, unsigned s);
/* 1 when request `req` hits some cached state (coh_cell_hit); 0 when it
 * misses wherever the line is (a PCIe write with DDIO off). */
int mk_req_can_hit(const mk_space *sp, enum coh_req req);
/* A dirty copy exists (every buffer line is dirty: the NIC or the core
 * wrote it; docs/model.md section 3).  Inline: the eviction matrices ask
 * it for every pair of states. */
static inline int mk_state_dirty(const mk_space *sp, unsigned s)
{
    return sp->st[s].llc != REG_MEM || sp->st[s].l2 == ST_M;
}

/* ------------------------------------------------------------ access matrices */

/* Matrices are n x n row-major, A[to * n + from] (columns sum to 1, Fig. 11).
 * Per source state: mem_read[from] = memory line reads, wb[from] = memory
 * line writes of the access (write-backs; DDIO off, a PCIe write's own,
 * coh_cell_mem_writes).  Any of them may be NULL. */

/* One request from Table 1.  `l3_to_ddio` / `l3_to_shared`: probability that
 * an allocation in the core's ways (LLC_TO_CORE) lands in DDIO / Shared ways
 * (Appendix D.1, Eq. 12; 0 without overlap). */
int mk_access_matrix(const mk_space *sp, enum coh_req req, double l3_to_ddio, double l3_to_shared,
                     double *A, double *mem_read, double *wb, ddio_err *e);

/* The core's operations on one line in program order (enum ddio_seg_op:
 * 0 read, 1 write, 2 flush): the product of the per-operation matrices.  A
 * core access to a line in its own L2 is an L2 hit (Table 1's empty cells;
 * docs/cache-model.md choice 5: a write upgrades S to M and, non-inclusive,
 * takes the Shared copy: coh_l2_hit_state / coh_l2_hit_takes_llc); a miss
 * leaves the L2 copy coh_core_fill_state gives; a flush writes a dirty line
 * back and drops every copy.  nops = 0 gives the identity. */
int mk_cpu_matrix(const mk_space *sp, const uint8_t *ops, size_t nops, double l3_to_ddio, double l3_to_shared,
                  double *A, double *mem_read, double *wb, ddio_err *e);

/* ------------------------------------------------------------ eviction matrices */

/* The cache regions a wait sees. */
typedef struct mk_geom {
    mk_region ddio, shared, l3, l2;
    /* Appendix D.1: the core's CAT ways overlap the DDIO (Shared) ways.  Then
     * `all_ways` is the associativity the core's fills see, Eq. 9 / 10 give
     * survival, Eq. 12 the placement of L2 victims. */
    int overlap;
    unsigned all_ways, ddio_ways;
    enum mk_eq4_form eq4;
} mk_geom;

/* Reuse distances of one wait: unique lines accessed in each region. */
typedef struct mk_dist {
    double ddio, shared, l3, l2;
    double l3_out;          /* of l3: lines outside the buffer footprint (tables; the set mapping's
                               mixture leaves them uniformly random) */
} mk_dist;

/* Survival and movement probabilities of a wait (filled by mk_wait_probs). */
typedef struct mk_wait {
    double s_ddio, s_shared, s_l3, s_l2;
    double l2_to_l3;        /* Eq. 4: an L2(E/M) line ends the wait in the LLC */
    double place_ddio;      /* Eq. 12: share of L2 victims landing in DDIO ways (overlap) */
} mk_wait;

void mk_wait_probs(const mk_geom *g, const mk_dist *d, mk_wait *w);

/* The eviction matrix of a wait, generated from the Evict cells of Table 1;
 * wb[from] = expected write-backs (a dirty copy lost).  Column-stochastic. */
int mk_evict_matrix(const mk_space *sp, const mk_wait *w, double *E, double *wb, ddio_err *e);

/* ------------------------------------------------------------ the model */

/* The logical queues are sim/queue/lqueue.h's, Q_IDLE (the idle pool)
 * included: Q_MODEL_COUNT of them. */
/* What happens when a buffer leaves a queue. */
enum mk_event { MKE_NONE = 0, MKE_NIC_WRITE, MKE_CPU, MKE_NIC_READ };
/* Paths (Appendix D.4): forward, RX only (the core consumes the packet),
 * TX only (the core writes the packet, e.g. a traffic generator). */
enum mk_path { MK_FORWARD = 0, MK_RX_ONLY, MK_TX_ONLY };

/* A group of buffer lines with one access pattern (the basic model groups
 * the packet's lines by what the core does to them; the per-line model has
 * one class per offset, Appendix D.3). */
typedef struct mk_class {
    double weight;          /* buffer lines per packet it stands for (<= lines used) */
    double used;            /* probability the packet has this line (d_i); 1 in the basic model */
    double partial;         /* share of its NIC writes that are partial-line (RFO) */
    double first;           /* share of packets whose first core access is to this class */
    uint8_t nops;           /* core operations on the line (0: untouched) */
    uint8_t ops[MK_MAX_OPS];
} mk_class;

/* Non-buffer lines per packet (A(L), Section 4.3.1): tables the core reads. */
typedef struct mk_tables {
    double lines;           /* table lines (footprint); 0: none */
    double per_packet;      /* lines touched per packet */
    double write_fraction;  /* share of those touches that write (these pass through L3*) */
} mk_tables;

typedef struct mk_params {
    enum hier_mode mode;
    mk_geom geom;
    enum mk_path path;
    double S;               /* cores sharing the LLC (basic), or beta_i (per-core, D.2) */
    double burst;           /* flow bursts through RSS: packets of a flow in a row (0, 1: a steady
                               share of the traffic per queue; docs/model.md, "Flow bursts") */
    double L[Q_MODEL_COUNT];    /* mean queue lengths of this core (packets) */
    size_t n_classes;
    const mk_class *classes;
    mk_tables tables;
    mk_policy policy;   /* LLC regions' policy (LRU lower, BIP / QLRU upper) */
    /* Choices (docs/model.md). */
    int per_queue;          /* 1: the paper's literal chain, an eviction matrix per queue;
                               0 (default): waits between two references of a line are merged */
    int count_read_refs;    /* count PCIe read hits as references in K_x (the LLC promotes them) */
    /* Fixed point. */
    double tol;             /* on the L1 change of every distribution */
    int max_iter;
    double damping;         /* x <- (1-d) x_new + d x_old; 0 = the paper's plain iteration */
    int eigen;              /* solve Eq. 1's full block matrix with dgeev instead of LU on the cycle */
} mk_params;

void mk_params_default(mk_params *p);

/* K_x of Section 4.3.1 (lines per packet per core entering region x). */
typedef struct mk_k {
    double ddio, shared, l3, l2;
} mk_k;

typedef struct mk_result {
    double pcie_write_hit, pcie_read_hit, cpu_first_hit;
    /* Line-weighted distribution of physical states entering / leaving each
     * queue (index [q][0] enter, [q][1] leave); zero for queues not visited. */
    double dist[Q_MODEL_COUNT][2][MK_MAX_STATES];
    int visited[Q_MODEL_COUNT];
    mk_space space;
    mk_k k;
    int iterations;
    double residual;
    /* Per packet. */
    double mem_read_lines, mem_write_lines;
    /* Buffer lines cached, per core, time average (footprint), per region. */
    double footprint_lines, footprint_region[REG_COUNT];
} mk_result;

/* Solve the fixed point for one core.  Exit 3 with the residual when the
 * iteration cap is reached; exit 2 on bad parameters. */
int mk_solve(const mk_params *p, mk_result *r, ddio_err *e);

/* A converged fixed point kept to start the next solve from (warm start).
 * The cores of the per-core model (D.2) differ only in their share (beta)
 * and queue lengths, so core i's distributions and reference lists are a
 * close first iterate for core i+1: the fixed point is the same, reached in
 * fewer iterations (docs/model.md section 7).  Private layout (model_int.h);
 * a start whose classes, path or hierarchy differ is ignored. */
typedef struct mk_warm {
    int valid;
    const mk_class *classes;    /* identity and shape of the solve it came from */
    size_t n_classes;
    enum hier_mode mode;
    enum mk_path path;
    int per_queue;
    double L[Q_MODEL_COUNT];
    double S;
    void *dist;                 /* per class: entering / leaving distributions of every stage */
    void *ev;                   /* per class and region: the reference lists */
    /* The solve before it, when it had the same queues: the start is then
     * extrapolated linearly in S (beta) from the two. */
    int prev_valid;
    double prev_S;
    void *prev_dist, *prev_ev;
} mk_warm;

void mk_warm_init(mk_warm *w);
void mk_warm_free(mk_warm *w);
/* mk_solve started from `warm` when it is valid and fits (else from
 * "everything in memory"); on success `warm` holds this solve's fixed point.
 * warm = NULL is mk_solve. */
int mk_solve_warm(const mk_params *p, mk_warm *warm, mk_result *r, ddio_err *e);

/* For tests: Eq. 1's block matrix of class c at the fixed point (blocks:
 * entering stage 0, leaving it, entering stage 1, ...; a stage is the wait
 * between two references of the line, or one queue with per_queue) and, if
 * `cycle` is not NULL, the product of the cycle's matrices (n x n).  Returns
 * malloc'ed storage of *dim x *dim, NULL with e on error. */
double *mk_eq1_matrix(const mk_params *p, size_t c, size_t *dim, double *cycle, ddio_err *e);

#endif
