/* model_int.h - the Markov model's internal types, shared by model.c (the
 * fixed point: stages, chains, Eq. 1, results), model_access.c (the state
 * space and the access matrices) and model_reuse.c (reuse distances and
 * the eviction matrix of a wait).  Not a public header: model.h is. */
#ifndef DDIOSIM_MARKOV_MODEL_INT_H
#define DDIOSIM_MARKOV_MODEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/markov/model.h"

#define MK_MAX_STAGES Q_MODEL_COUNT
#define MK_EXT_MAX 64       /* unused-cycle count cap of the extended reuse distance */
#define MK_MAX_EV (2 * MK_MAX_STAGES)
#define MK_DMEMO_SLOTS 1024

/* A stage: waits in one or more queues, then one event. */
typedef struct stage {
    unsigned nq;
    uint8_t q[Q_MODEL_COUNT];
    uint8_t ev;
    int extended;       /* the wait that spans cycles in which the line is not used (D.3) */
    double start, end;  /* cycle positions (packets) of the stage's start and of its event */
} stage;

/* Regions whose unique accesses the reuse distances count. */
enum { RG_DDIO = 0, RG_SHARED, RG_L3, RG_L2, RG_N };

/* The references one line of a class receives per cycle in one region:
 * at cycle position pos, it is put in (or promoted in) the region with
 * probability place, or taken out of it with conditional probability rho. */
typedef struct evlist {
    int n;
    double pos[MK_MAX_EV], place[MK_MAX_EV], rho[MK_MAX_EV];
} evlist;

/* Per-solve context. */
typedef struct ctx {
    const mk_params *p;
    mk_space sp;
    unsigned n;
    double sum_w;           /* buffer lines per packet (sum of weights) */
    double L_cycle;         /* packets in one whole cycle (per core) */
    evlist *ev;             /* n_classes x RG_N */
    mk_k slope;             /* unique lines per packet in a short window */
    /* Eq. 4 memo. */
    double memo_t2[8], memo_t3[8], memo_v[8];
    int memo_n;
    /* Distances and survivals by window length: the same for every class
     * within one iteration (cleared when the reference lists change). */
    struct dmemo {
        double W;
        unsigned used;      /* the generation it was filled in */
        int has4;
        mk_dist d;
        mk_wait w, w4;
    } *dm;                  /* MK_DMEMO_SLOTS */
    unsigned gen;
    /* Per class and region: unique_in_window at a whole cycle, and at the
     * last remainder asked for. */
    double *ufull, *ur_key, *ur_val;
    double *ulog;           /* log(1 - used ufull / L_cycle) */
} ctx;

/* The matrices of class c's stages. */
typedef struct chain {
    size_t ns;
    stage st[MK_MAX_STAGES];
    double E[MK_MAX_STAGES][MK_MAX_STATES * MK_MAX_STATES];
    double A[MK_MAX_STAGES][MK_MAX_STATES * MK_MAX_STATES];
    double ewb[MK_MAX_STAGES][MK_MAX_STATES];   /* write-backs of the wait, per start state */
    double amr[MK_MAX_STAGES][MK_MAX_STATES];   /* memory reads of the event */
    double awb[MK_MAX_STAGES][MK_MAX_STATES];   /* write-backs of the event (flush) */
    double l2_move[MK_MAX_STAGES];              /* P(L2(E/M) line evicted from L2 during the wait) */
    double place_ddio[MK_MAX_STAGES];
} chain;

/* Distributions of one class: enter[s] (after the previous event) and
 * leave[s] (after the wait, before stage s's event). */
typedef struct cdist {
    double enter[MK_MAX_STAGES][MK_MAX_STATES];
    double leave[MK_MAX_STAGES][MK_MAX_STATES];
} cdist;

/* ------------------------------------------------------------ model_access.c */

/* Add probability `pr` of moving from state `from` to (llc, l2) to the
 * matrix A (A[to * n + from]); a pair outside the state set is an internal
 * error (exit 1), not a silent mapping. */
int mk_move(const mk_space *sp, double *A, unsigned from, unsigned llc, unsigned l2, double pr, ddio_err *e);
/* The model's L2 state (ST_I, ST_S, ST_M for E or M) after a Table 1
 * cell's L2 action on a copy in state l2. */
unsigned mk_l2_after(const coh_cell *c, unsigned l2);
/* The access matrix of event `ev` (enum mk_event) for a line of class c:
 * the NIC write's mix of ItoM and RFO(PCIe) by c->partial, the NIC read,
 * the core's operations, or the identity (MKE_NONE).  `to_ddio`: the
 * Eq. 12 share of LLC_TO_CORE placements landing in DDIO ways. */
int mk_event_matrix(const mk_space *sp, const mk_class *c, uint8_t ev, double to_ddio, double *A, double *mr,
                    double *wb, ddio_err *e);

/* ------------------------------------------------------------ model_reuse.c */

/* The reference lists changed: forget the memoised distances and recompute
 * the per-class whole-cycle terms. */
void mk_reuse_reset(ctx *x);
/* Reuse distances and wait probabilities of a window of W packets of this
 * core (memoised); need4: evaluate Eq. 4 (an L2(E/M) line waits). */
#define MK_BURST_NODES 16   /* quantiles of the others' packets in a wait, with flow bursts */
void mk_window(ctx *x, double W, int need4, mk_dist *d, mk_wait *w);
/* The wait probabilities of stage st of class c: Appendix D.3's mixture
 * over the cycles in which the line is not used. */
void mk_stage_wait(ctx *x, const mk_class *c, const stage *st, int need4, mk_wait *mix);
/* The reference lists (x->ev) and K_x (x->slope) from the current chains
 * and distributions (Section 4.3.1, generalised: docs/model.md). */
void mk_reference_lists(ctx *x, chain *const *ch, cdist *const *cd);

#endif
