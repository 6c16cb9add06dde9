/* model.c - the Markov model of buffer line states (seed 003, Section 4,
 * Appendix D): states, access matrices from Table 1, eviction matrices from
 * reuse distances, the block-cyclic equilibrium (Eq. 1) inside the paper's
 * fixed-point iteration.  Choices are documented in docs/model.md. */
#include "sim/markov/model.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "sim/markov/solve.h"

/* ------------------------------------------------------------ states */

void mk_space_init(mk_space *sp, enum hier_mode mode)
{
    memset(sp, 0, sizeof *sp);
    sp->mode = mode;
    if (mode == HIER_NONINCLUSIVE) {
        static const mk_state st[] = {{REG_MEM, ST_M}, {REG_MEM, ST_S}, {REG_DDIO, ST_I}, {REG_SHARED, ST_I},
                                      {REG_SHARED, ST_S}, {REG_L3, ST_I}, {REG_MEM, ST_I}};
        static const char *nm[] = {"L2", "L2(S)", "DDIO", "Shared", "Shared+L2(S)", "L3*", "Memory"};
        sp->n = 7;
        memcpy(sp->st, st, sizeof st);
        memcpy(sp->name, nm, sizeof nm);
    } else {
        static const mk_state st[] = {{REG_DDIO, ST_I}, {REG_L3, ST_I}, {REG_DDIO, ST_M}, {REG_L3, ST_M},
                                      {REG_MEM, ST_I}};
        static const char *nm[] = {"DDIO", "L3", "DDIO+L2", "L3+L2", "Memory"};
        sp->n = 5;
        memcpy(sp->st, st, sizeof st);
        memcpy(sp->name, nm, sizeof nm);
    }
    sp->mem = (unsigned)mk_space_find(sp, REG_MEM, ST_I);
}

int mk_space_find(const mk_space *sp, unsigned llc, unsigned l2)
{
    for (unsigned i = 0; i < sp->n; i++)
        if (sp->st[i].llc == llc && sp->st[i].l2 == l2)
            return (int)i;
    return -1;
}

static enum coh_col region_col(unsigned reg)
{
    switch (reg) {
    case REG_DDIO: return COL_DDIO;
    case REG_SHARED: return COL_SHARED;
    case REG_L3: return COL_L3;
    default: return COL_MEM;
    }
}

enum coh_col mk_state_col(const mk_space *sp, unsigned s)
{
    mk_state x = sp->st[s];
    /* docs/cache-model.md: an L2 copy in E/M first (inclusive: any L2 copy),
     * else the LLC copy's region, else an L2 S copy, else memory. */
    if (x.l2 == ST_M || (sp->mode == HIER_INCLUSIVE && x.l2 == ST_S))
        return x.l2 == ST_S ? COL_L2_S : COL_L2_EM;
    if (x.llc != REG_MEM)
        return region_col(x.llc);
    if (x.l2 == ST_S)
        return COL_L2_S;
    return COL_MEM;
}

int mk_state_dirty(const mk_space *sp, unsigned s)
{
    return sp->st[s].llc != REG_MEM || sp->st[s].l2 == ST_M;
}

/* ------------------------------------------------------------ access matrices */

/* Add probability `pr` of moving from `from` to (llc, l2); the LLC_TO_CORE
 * destination is split by the D.1 placement probabilities. */
static int put(const mk_space *sp, double *A, unsigned from, unsigned llc, unsigned l2, double pr, ddio_err *e)
{
    if (pr == 0)
        return 0;
    int to = mk_space_find(sp, llc, l2);
    if (to < 0)
        return ddio_errf(e, DDIO_EXIT_IO, "internal: model state (LLC %s, L2 %u) reached from %s is not in the %s state set",
                         hier_region_name((enum hier_region)llc), l2, sp->name[from], hier_mode_name(sp->mode));
    A[(unsigned)to * sp->n + from] += pr;
    return 0;
}

static unsigned l2_after(const coh_cell *c, unsigned l2)
{
    switch ((enum coh_l2)c->l2) {
    case L2_KEEP: return l2;
    case L2_DROP: return ST_I;
    case L2_TO_S: return ST_S;
    default: return ST_M;   /* E, M, E/M: the model's L2(E/M) */
    }
}

/* Apply one Table 1 cell to state `from` with probability mass 1. */
static int apply_cell(const mk_space *sp, const coh_cell *c, unsigned from, double to_ddio, double to_shared,
                      double *A, ddio_err *e)
{
    mk_state x = sp->st[from];
    unsigned l2 = l2_after(c, x.l2);
    switch ((enum coh_llc)c->llc) {
    case LLC_KEEP: return put(sp, A, from, x.llc, l2, 1, e);
    case LLC_DROP:
    case LLC_TO_MEM: return put(sp, A, from, REG_MEM, l2, 1, e);
    case LLC_TO_DDIO: return put(sp, A, from, REG_DDIO, l2, 1, e);
    case LLC_TO_SHARED: return put(sp, A, from, REG_SHARED, l2, 1, e);
    case LLC_TO_CORE:
        if (put(sp, A, from, REG_DDIO, l2, to_ddio, e) || put(sp, A, from, REG_SHARED, l2, to_shared, e))
            return -1;
        return put(sp, A, from, REG_L3, l2, 1 - to_ddio - to_shared, e);
    }
    return ddio_errf(e, DDIO_EXIT_IO, "internal: unknown LLC action %u", c->llc);
}

/* The Table 1 cell `req` meets in state s; NULL (e filled) if undefined. */
static const coh_cell *table_cell(const mk_space *sp, enum coh_req req, unsigned s, ddio_err *e)
{
    enum coh_col col = mk_state_col(sp, s);
    const coh_cell *c = coh_lookup(sp->mode, req, col);
    if (!c || !c->defined) {
        ddio_errf(e, DDIO_EXIT_IO, "internal: Table 1 (%s) has no cell for %s in state %s", hier_mode_name(sp->mode),
                  coh_req_name(req), coh_col_name(col));
        return NULL;
    }
    return c;
}

int mk_access_matrix(const mk_space *sp, enum coh_req req, double to_ddio, double to_shared, double *A,
                     double *mem_read, double *wb, ddio_err *e)
{
    unsigned n = sp->n;
    memset(A, 0, sizeof(double) * n * n);
    for (unsigned s = 0; s < n; s++) {
        const coh_cell *c = table_cell(sp, req, s, e);
        if (!c || apply_cell(sp, c, s, to_ddio, to_shared, A, e) != 0)
            return -1;
        if (mem_read)
            mem_read[s] = c->mem_read;
        if (wb)
            wb[s] = 0;
    }
    return 0;
}

/* One core operation as a matrix (see mk_cpu_matrix for the L2-hit rule). */
static int cpu_op_matrix(const mk_space *sp, uint8_t op, double to_ddio, double to_shared, double *A, double *mr,
                         double *wb, ddio_err *e)
{
    unsigned n = sp->n;
    if (op == DDIO_SEG_FLUSH) {
        memset(A, 0, sizeof(double) * n * n);
        for (unsigned s = 0; s < n; s++) {
            A[sp->mem * n + s] = 1;
            mr[s] = 0;
            wb[s] = mk_state_dirty(sp, s);
        }
        return 0;
    }
    enum coh_req req = op == DDIO_SEG_WRITE ? REQ_CORE_WR : REQ_CORE_RD;
    memset(A, 0, sizeof(double) * n * n);
    for (unsigned s = 0; s < n; s++) {
        mk_state x = sp->st[s];
        mr[s] = 0;
        wb[s] = 0;
        if (x.l2 != ST_I) {
            /* L2 hit: not a Table 1 request (empty cells). */
            unsigned llc = x.llc, l2 = x.l2;
            if (req == REQ_CORE_WR) {
                if (x.l2 == ST_S && sp->mode == HIER_NONINCLUSIVE)
                    llc = REG_MEM;
                l2 = ST_M;
            }
            if (put(sp, A, s, llc, l2, 1, e) != 0)
                return -1;
            continue;
        }
        const coh_cell *c = table_cell(sp, req, s, e);
        if (!c || apply_cell(sp, c, s, to_ddio, to_shared, A, e) != 0)
            return -1;
        mr[s] = c->mem_read;
    }
    /* The store completes after the RFO: an L2 S copy becomes M (hier.c). */
    if (req == REQ_CORE_WR)
        for (unsigned from = 0; from < n; from++)
            for (unsigned to = 0; to < n; to++)
                if (A[to * n + from] != 0 && sp->st[to].l2 == ST_S) {
                    unsigned llc = sp->st[to].llc;
                    if (sp->mode == HIER_NONINCLUSIVE)
                        llc = REG_MEM;  /* non-inclusive: the writer owns the line */
                    double pr = A[to * n + from];
                    A[to * n + from] = 0;
                    if (put(sp, A, from, llc, ST_M, pr, e) != 0)
                        return -1;
                }
    return 0;
}

int mk_cpu_matrix(const mk_space *sp, const uint8_t *ops, size_t nops, double to_ddio, double to_shared, double *A,
                  double *mem_read, double *wb, ddio_err *e)
{
    unsigned n = sp->n;
    double Op[MK_MAX_STATES * MK_MAX_STATES], mr[MK_MAX_STATES], w[MK_MAX_STATES];
    double v[MK_MAX_STATES], nv[MK_MAX_STATES];
    if (nops > MK_MAX_OPS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: %zu core operations on one line (at most %d)", nops, MK_MAX_OPS);
    memset(A, 0, sizeof(double) * n * n);
    for (unsigned s = 0; s < n; s++) {
        double reads = 0, wbs = 0;
        memset(v, 0, sizeof v);
        v[s] = 1;
        for (size_t k = 0; k < nops; k++) {
            if (cpu_op_matrix(sp, ops[k], to_ddio, to_shared, Op, mr, w, e) != 0)
                return -1;
            for (unsigned i = 0; i < n; i++) {
                reads += v[i] * mr[i];
                wbs += v[i] * w[i];
            }
            for (unsigned i = 0; i < n; i++) {
                nv[i] = 0;
                for (unsigned j = 0; j < n; j++)
                    nv[i] += Op[i * n + j] * v[j];
            }
            memcpy(v, nv, sizeof v);
        }
        for (unsigned i = 0; i < n; i++)
            A[i * n + s] = v[i];
        if (mem_read)
            mem_read[s] = reads;
        if (wb)
            wb[s] = wbs;
    }
    return 0;
}

/* ------------------------------------------------------------ eviction matrices */

void mk_wait_probs(const mk_geom *g, const mk_dist *d, mk_wait *w)
{
    memset(w, 0, sizeof *w);
    w->s_l2 = markov_survive(&g->l2, d->l2);
    if (!g->overlap) {
        w->s_ddio = markov_survive(&g->ddio, d->ddio);
        w->s_shared = markov_survive(&g->shared, d->shared);
        w->s_l3 = markov_survive(&g->l3, d->l3);
        w->l2_to_l3 = markov_l2_to_l3(d->l2, g->l2.ways, g->l2.sets, &g->l3, d->l3, g->eq4);
        return;
    }
    /* Appendix D.1: L3* (and Shared) fills may use the DDIO ways.  Eq. 9 /
     * 10 are LRU formulas; the unrestricted stream is L3* + Shared. */
    double T = d->l3 + d->shared, C = g->l3.sets;
    double tot = d->ddio + T;
    w->place_ddio = markov_placement_prob(g->all_ways, g->ddio_ways, tot > 0 ? d->ddio / tot : 0);
    markov_region inner = g->l3;
    inner.ways = g->all_ways - g->ddio_ways;
    if (g->l3.policy == MARKOV_LRU) {
        w->s_ddio = markov_hit_ddio_overlap(T, d->ddio, g->all_ways, g->ddio_ways, C);
        w->s_l3 = markov_hit_l3_overlap(T, d->ddio, g->all_ways, g->ddio_ways, C);
    } else {
        /* BIP / QLRU: no overlap formula in the paper.  Effective partition:
         * the DDIO ways take the DDIO fills plus the share Eq. 12 of the
         * unrestricted ones, the other ways the rest (docs/model.md). */
        markov_region dd = g->ddio;
        w->s_ddio = markov_survive(&dd, d->ddio + w->place_ddio * T);
        w->s_l3 = markov_survive(&inner, (1 - w->place_ddio) * T);
    }
    w->s_shared = w->s_l3;
    w->l2_to_l3 = markov_l2_to_l3(d->l2, g->l2.ways, g->l2.sets, &inner, (1 - w->place_ddio) * T, g->eq4);
}

static double region_survival(const mk_wait *w, unsigned reg)
{
    switch (reg) {
    case REG_DDIO: return w->s_ddio;
    case REG_SHARED: return w->s_shared;
    case REG_L3: return w->s_l3;
    default: return 1;
    }
}

int mk_evict_matrix(const mk_space *sp, const mk_wait *w, double *E, double *wb, ddio_err *e)
{
    unsigned n = sp->n;
    memset(E, 0, sizeof(double) * n * n);
    for (unsigned s = 0; s < n; s++) {
        mk_state x = sp->st[s];
        double sl = x.llc == REG_MEM ? 1 : region_survival(w, x.llc);
        double s2 = x.l2 == ST_I ? 1 : w->s_l2;
        /* Where each copy goes when evicted: the Evict row of Table 1. */
        const coh_cell *cl = x.llc == REG_MEM ? NULL : coh_lookup(sp->mode, REQ_EVICT, region_col(x.llc));
        const coh_cell *c2 = x.l2 == ST_I ? NULL : coh_lookup(sp->mode, REQ_EVICT, x.l2 == ST_S ? COL_L2_S : COL_L2_EM);
        if ((cl && !cl->defined) || (c2 && !c2->defined))
            return ddio_errf(e, DDIO_EXIT_IO, "internal: Table 1 has no eviction cell for %s", sp->name[s]);
        unsigned l2_gone = c2 ? l2_after(c2, x.l2) : ST_I;
        /* L2 victim moving into the LLC (non-inclusive E/M: LLC_TO_CORE). */
        int l2_moves = c2 && c2->llc == LLC_TO_CORE;
        /* LLC copy survives. */
        if (put(sp, E, s, x.llc, x.l2, sl * s2, e))
            return -1;
        if (x.l2 != ST_I) {
            if (l2_moves) {
                /* Only when there is no LLC copy (a non-inclusive invariant). */
                assert(x.llc == REG_MEM);
                double mv = w->l2_to_l3;
                if (mv > 1 - s2)
                    mv = 1 - s2;
                if (put(sp, E, s, REG_DDIO, ST_I, mv * w->place_ddio, e) ||
                    put(sp, E, s, REG_L3, ST_I, mv * (1 - w->place_ddio), e) ||
                    put(sp, E, s, REG_MEM, ST_I, 1 - s2 - mv, e))
                    return -1;
            } else if (put(sp, E, s, x.llc, l2_gone, sl * (1 - s2), e)) {
                return -1;
            }
        }
        if (x.llc != REG_MEM) {
            /* LLC victim: memory; inclusive back-invalidates the L2 copy. */
            unsigned l2_left = cl->l2 == L2_DROP ? ST_I : x.l2;
            if (l2_left == ST_I) {
                if (put(sp, E, s, REG_MEM, ST_I, 1 - sl, e))
                    return -1;
            } else if (put(sp, E, s, REG_MEM, l2_left, (1 - sl) * s2, e) ||
                       put(sp, E, s, REG_MEM, l2_gone, (1 - sl) * (1 - s2), e)) {
                return -1;
            }
        }
        if (wb) {
            wb[s] = 0;
            if (mk_state_dirty(sp, s))
                for (unsigned t = 0; t < n; t++)
                    if (!mk_state_dirty(sp, t))
                        wb[s] += E[t * n + s];
        }
    }
    return 0;
}

/* ------------------------------------------------------------ the model */

const char *mk_queue_name(enum mk_queue q)
{
    static const char *names[MKQ_COUNT] = {"rx_replenish", "rx", "sw_queue", "tx", "tx_recycle", "idle"};
    return (unsigned)q < MKQ_COUNT ? names[q] : "?";
}

void mk_params_default(mk_params *p)
{
    memset(p, 0, sizeof *p);
    p->mode = HIER_NONINCLUSIVE;
    p->S = 1;
    p->policy = MARKOV_LRU;
    p->count_read_refs = 1;
    p->tol = 1e-9;
    p->max_iter = 500;
    p->geom.eq4 = MARKOV_EQ4_EXACT;
}

/* The path's queues, each followed by an event, starting where a buffer's
 * life begins (Fig. 10; Appendix D.4 for the one-way paths). */
typedef struct step {
    uint8_t q, ev;
} step;

static size_t path_steps(enum mk_path path, step *out)
{
    static const step fwd[] = {{MKQ_RXR, MKE_NIC_WRITE}, {MKQ_RX, MKE_CPU}, {MKQ_SW, MKE_NONE},
                               {MKQ_TX, MKE_NIC_READ},   {MKQ_TXR, MKE_NONE}, {MKQ_IDLE, MKE_NONE}};
    static const step rxo[] = {{MKQ_RXR, MKE_NIC_WRITE}, {MKQ_RX, MKE_CPU}, {MKQ_IDLE, MKE_NONE}};
    static const step txo[] = {{MKQ_IDLE, MKE_CPU}, {MKQ_SW, MKE_NONE}, {MKQ_TX, MKE_NIC_READ}, {MKQ_TXR, MKE_NONE}};
    const step *s = path == MK_RX_ONLY ? rxo : path == MK_TX_ONLY ? txo : fwd;
    size_t n = path == MK_RX_ONLY ? 3 : path == MK_TX_ONLY ? 4 : 6;
    memcpy(out, s, n * sizeof *s);
    return n;
}
/* A stage: waits in one or more queues, then one event. */
typedef struct stage {
    unsigned nq;
    uint8_t q[MKQ_COUNT];
    uint8_t ev;
    int extended;       /* the wait that spans cycles in which the line is not used (D.3) */
    double start, end;  /* cycle positions (packets) of the stage's start and of its event */
} stage;

static int is_ref(const mk_class *c, uint8_t ev)
{
    return ev == MKE_NIC_WRITE || ev == MKE_NIC_READ || (ev == MKE_CPU && c->nops > 0);
}

/* Group the path's steps into stages for class c.  Merged (default): a
 * stage runs from one reference of the line to the next, so a line's LRU age
 * is not reset at queue boundaries where nothing touches it.  Per queue (the
 * paper's literal Eq. 1): one stage per queue. */
static size_t build_stages(const mk_params *p, const mk_class *c, stage *st)
{
    step sp[MKQ_COUNT];
    double pos[MKQ_COUNT];      /* cycle position of each step's event */
    size_t ns = path_steps(p->path, sp), nst = 0;
    size_t first_ref = ns, last_ref = ns;
    double acc = 0;
    for (size_t i = 0; i < ns; i++) {
        acc += p->L[sp[i].q];
        pos[i] = acc;
        if (is_ref(c, sp[i].ev)) {
            if (first_ref == ns)
                first_ref = i;
            last_ref = i;
        }
    }
    if (p->per_queue || first_ref == ns) {
        for (size_t i = 0; i < ns; i++) {
            memset(&st[nst], 0, sizeof st[nst]);
            st[nst].nq = 1;
            st[nst].q[0] = sp[i].q;
            st[nst].ev = sp[i].ev;
            st[nst].extended = i == first_ref;
            st[nst].end = pos[i];
            st[nst].start = pos[i] - p->L[sp[i].q];
            nst++;
        }
        return nst;
    }
    /* Start right after the last reference, so every stage ends in one. */
    memset(&st[0], 0, sizeof st[0]);
    st[0].start = pos[last_ref];
    for (size_t k = 1; k <= ns; k++) {
        size_t i = (last_ref + k) % ns;
        stage *cur = &st[nst];
        cur->q[cur->nq++] = sp[i].q;
        if (is_ref(c, sp[i].ev)) {
            cur->ev = sp[i].ev;
            cur->extended = i == first_ref;
            cur->end = pos[i];
            nst++;
            if (k < ns) {
                memset(&st[nst], 0, sizeof st[nst]);
                st[nst].start = pos[i];
            }
        }
    }
    return nst;
}

/* Unique table lines touched while L packets are processed (A(L)), uniform
 * over the table. */
static double table_unique(const mk_tables *t, double L)
{
    if (t->lines <= 0 || t->per_packet <= 0 || L <= 0)
        return 0;
    double draws = L * t->per_packet;
    if (t->lines <= 1)
        return 1;
    return t->lines * -expm1(draws * log1p(-1 / t->lines));
}

#define MK_MAX_STAGES MKQ_COUNT
#define MK_EXT_MAX 64       /* unused-cycle count cap of the extended reuse distance */
#define MK_MAX_EV (2 * MK_MAX_STAGES)

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
    } *dm;
    unsigned gen;
    /* Per class and region: unique_in_window at a whole cycle, and at the
     * last remainder asked for. */
    double *ufull, *ur_key, *ur_val;
    double *ulog;           /* log(1 - used ufull / L_cycle) */
} ctx;

#define DMEMO_SLOTS 1024

static double stage_len(const ctx *x, const stage *s)
{
    double L = 0;
    for (unsigned i = 0; i < s->nq; i++)
        L += x->p->L[s->q[i]];
    return L;
}

/* v modulo Lc in [0, Lc).  Cycle positions are mostly in [0, Lc) or one
 * cycle off: no fmod then (a tenth of the solve time). */
static double wrap(double v, double Lc)
{
    if (v >= 0 && v < Lc)
        return v;
    if (v < 0 && v >= -Lc) {
        v += Lc;
        return v < Lc ? v : 0;
    }
    v = fmod(v, Lc);
    if (v < 0)
        v += Lc;
    return v < Lc ? v : 0;
}

/* Expected number of other buffers (phases uniform over the cycle, one per
 * packet) whose line is referenced in the region within a window of W <=
 * L_cycle packets and not taken out again before the window ends: the
 * unique lines of a stack reuse distance (Section 4.3.1), counting each
 * buffer once however many of its references fall in the window. */
static double unique_in_window(const evlist *ev, double W, double Lc)
{
    if (ev->n == 0 || W <= 0 || Lc <= 0)
        return 0;
    if (W > Lc)
        W = Lc;
    double bp[2 * MK_MAX_EV + 2];
    int nb = 0;
    bp[nb++] = 0;
    for (int i = 0; i < ev->n; i++) {
        bp[nb++] = wrap(ev->pos[i], Lc);
        bp[nb++] = wrap(ev->pos[i] - W, Lc);
    }
    for (int i = 1; i < nb; i++)    /* insertion sort: a dozen points */
        for (int j = i; j > 0 && bp[j] < bp[j - 1]; j--) {
            double t = bp[j];
            bp[j] = bp[j - 1];
            bp[j - 1] = t;
        }
    double total = 0;
    for (int k = 0; k < nb; k++) {
        double a = bp[k], b = k + 1 < nb ? bp[k + 1] : Lc;
        if (b - a <= 0)
            continue;
        double u = 0.5 * (a + b);
        /* Events in [u, u + W), latest first. */
        double off[MK_MAX_EV];
        int idx[MK_MAX_EV], m = 0;
        for (int i = 0; i < ev->n; i++) {
            double o = wrap(ev->pos[i] - u, Lc);
            if (o < W || W >= Lc) {
                int j = m++;
                while (j > 0 && off[j - 1] < o) {
                    off[j] = off[j - 1];
                    idx[j] = idx[j - 1];
                    j--;
                }
                off[j] = o;
                idx[j] = i;
            }
        }
        double alive = 1, counted = 0;  /* not yet counted and not removed later */
        for (int j = 0; j < m; j++) {
            int i = idx[j];
            alive *= 1 - ev->rho[i];
            counted += alive * ev->place[i];
            alive *= 1 - ev->place[i];
        }
        total += (b - a) * counted;
    }
    return total;
}

/* Lines of one class met in window W (any length): whole cycles saturate,
 * each buffer counts once (Appendix D.3's effective queue length R). */
static double class_lines(const ctx *x, size_t c, int rg, double W)
{
    const mk_class *cl = &x->p->classes[c];
    const evlist *ev = &x->ev[c * RG_N + rg];
    double Lc = x->L_cycle, d = cl->used, nl = cl->used > 0 ? cl->weight / cl->used : 0;
    if (ev->n == 0 || W <= 0 || Lc <= 0)
        return 0;
    if (W <= Lc)
        return nl * d * unique_in_window(ev, W, Lc);
    double k = floor(W / Lc), r = W - k * Lc;
    size_t i = c * RG_N + rg;
    if (x->ur_key[i] != r) {
        x->ur_key[i] = r;
        x->ur_val[i] = unique_in_window(ev, r, Lc);
    }
    double ur = x->ur_val[i] / Lc;
    /* (1 - d uf)^k, the logarithm kept per generation (pow was a tenth of
     * the solve time). */
    return nl * Lc * (1 - exp(k * x->ulog[i]) * (1 - d * ur));
}

/* Reuse distances of a wait of W packets of this core. */
static void distances(const ctx *x, double W, mk_dist *d)
{
    const mk_params *p = x->p;
    double lines[RG_N] = {0};
    for (size_t c = 0; c < p->n_classes; c++)
        for (int g = 0; g < RG_N; g++)
            lines[g] += class_lines(x, c, g, W);
    double a = table_unique(&p->tables, W);
    d->ddio = p->S * lines[RG_DDIO];
    d->shared = p->S * lines[RG_SHARED];
    d->l3 = p->S * (lines[RG_L3] + a * p->tables.write_fraction);
    d->l2 = lines[RG_L2] + a;
}

static double eq4_memo(const ctx *x, const mk_dist *d)
{
    for (int i = 0; i < x->memo_n; i++)
        if (x->memo_t2[i] == d->l2 && x->memo_t3[i] == d->l3 + d->shared + d->ddio)
            return x->memo_v[i];
    return NAN;
}

static void wait_probs(ctx *x, const mk_dist *d, int need_eq4, mk_wait *w)
{
    const mk_geom *g = &x->p->geom;
    double memo = need_eq4 ? eq4_memo(x, d) : 0;
    if (!need_eq4 || !isnan(memo)) {
        /* Skip Eq. 4 (the expensive term) when no L2(E/M) line waits here,
         * or reuse it: evaluate with a zero L2 distance, then patch. */
        mk_dist dd = *d;
        dd.l2 = 0;
        mk_wait_probs(g, &dd, w);
        w->s_l2 = markov_survive(&g->l2, d->l2);
        w->l2_to_l3 = need_eq4 ? memo : 0;
        return;
    }
    mk_wait_probs(g, d, w);
    int i = x->memo_n < 8 ? x->memo_n++ : 7;
    x->memo_t2[i] = d->l2;
    x->memo_t3[i] = d->l3 + d->shared + d->ddio;
    x->memo_v[i] = w->l2_to_l3;
}

static void dmemo_clear(ctx *x)
{
    x->gen++;
    for (size_t c = 0; c < x->p->n_classes; c++)
        for (int g = 0; g < RG_N; g++) {
            x->ufull[c * RG_N + g] = unique_in_window(&x->ev[c * RG_N + g], x->L_cycle, x->L_cycle);
            x->ur_key[c * RG_N + g] = -1;
            double q = x->L_cycle > 0 ? 1 - x->p->classes[c].used * x->ufull[c * RG_N + g] / x->L_cycle : 1;
            x->ulog[c * RG_N + g] = q > 0 ? log(q) : -INFINITY;
        }
}

/* Distances and wait probabilities of a window of W packets, memoised. */
static void window(ctx *x, double W, int need4, mk_dist *d, mk_wait *w)
{
    uint64_t bits;
    memcpy(&bits, &W, sizeof bits);
    bits ^= bits >> 29;
    bits *= 0x9E3779B97F4A7C15ull;
    size_t h = (size_t)(bits >> 52) % DMEMO_SLOTS;
    for (size_t probe = 0; probe < DMEMO_SLOTS; probe++) {
        struct dmemo *m = &x->dm[(h + probe) % DMEMO_SLOTS];
        if (m->used == x->gen && m->W == W) {
            *d = m->d;
            if (need4 && !m->has4) {
                wait_probs(x, &m->d, 1, &m->w4);
                m->has4 = 1;
            }
            *w = need4 ? m->w4 : m->w;
            return;
        }
        if (m->used != x->gen) {
            m->used = x->gen;
            m->W = W;
            distances(x, W, &m->d);
            wait_probs(x, &m->d, 0, &m->w);
            m->has4 = 0;
            if (need4) {
                wait_probs(x, &m->d, 1, &m->w4);
                m->has4 = 1;
            }
            *d = m->d;
            *w = need4 ? m->w4 : m->w;
            return;
        }
    }
    distances(x, W, d);   /* table full: no memo */
    wait_probs(x, d, need4, w);
}

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

static int has_l2em(const mk_space *sp, const double *v)
{
    for (unsigned i = 0; i < sp->n; i++)
        if (sp->st[i].l2 == ST_M && sp->st[i].llc == REG_MEM && v && v[i] > 0)
            return 1;
    return 0;
}

static int event_matrix(ctx *x, const mk_class *c, uint8_t ev, double to_ddio, double *A, double *mr, double *wb,
                        ddio_err *e)
{
    unsigned n = x->n;
    switch (ev) {
    case MKE_NIC_WRITE: {
        double A2[MK_MAX_STATES * MK_MAX_STATES], mr2[MK_MAX_STATES];
        if (mk_access_matrix(&x->sp, REQ_PCIE_WR_FULL, to_ddio, 0, A, mr, wb, e) ||
            mk_access_matrix(&x->sp, REQ_PCIE_WR_PART, to_ddio, 0, A2, mr2, NULL, e))
            return -1;
        for (unsigned i = 0; i < n * n; i++)
            A[i] = (1 - c->partial) * A[i] + c->partial * A2[i];
        for (unsigned i = 0; i < n; i++)
            mr[i] = (1 - c->partial) * mr[i] + c->partial * mr2[i];
        return 0;
    }
    case MKE_NIC_READ: return mk_access_matrix(&x->sp, REQ_PCIE_RD, to_ddio, 0, A, mr, wb, e);
    case MKE_CPU: return mk_cpu_matrix(&x->sp, c->ops, c->nops, to_ddio, 0, A, mr, wb, e);
    default:
        memset(A, 0, sizeof(double) * n * n);
        for (unsigned i = 0; i < n; i++) {
            A[i * n + i] = 1;
            mr[i] = wb[i] = 0;
        }
        return 0;
    }
}

/* Build class c's matrices from the current reference lists.  enter: the
 * previous enter distributions (decides where Eq. 4 is needed), or NULL. */
static int build_chain(ctx *x, const mk_class *c, const double (*enter)[MK_MAX_STATES], chain *ch, ddio_err *e)
{
    ch->ns = build_stages(x->p, c, ch->st);
    for (size_t s = 0; s < ch->ns; s++) {
        const stage *st = &ch->st[s];
        double L = stage_len(x, st);
        uint8_t prev_ev = ch->st[(s + ch->ns - 1) % ch->ns].ev;
        int need4 = x->sp.mode == HIER_NONINCLUSIVE &&
                    ((prev_ev == MKE_CPU && c->nops > 0) || has_l2em(&x->sp, enter ? enter[s] : NULL) ||
                     (x->p->per_queue && c->nops > 0));
        double ext = st->extended && c->used < 1 ? c->used : 1;
        /* Appendix D.3: the line is unused for k cycles (probability
         * d (1-d)^k), so its wait spans k more cycles.  The survival
         * probabilities are mixed over k; the eviction matrix is built once
         * from the mixture (exact for one-copy states; for a state with an
         * LLC and an L2 copy the product of the mixtures stands for the
         * mixture of the products - docs/model.md). */
        mk_wait mix;
        memset(&mix, 0, sizeof mix);
        double mass = 0;
        mk_dist dprev = {-1, -1, -1, -1};
        double qk = 1;      /* (1 - ext)^k */
        for (int k = 0; k <= MK_EXT_MAX; k++, qk *= 1 - ext) {
            double wk = ext * qk;
            mk_dist d;
            mk_wait w;
            window(x, L + k * x->L_cycle, need4, &d, &w);
            int same = k > 0 && fabs(d.ddio - dprev.ddio) <= 1e-7 * (1 + d.ddio) &&
                       fabs(d.shared - dprev.shared) <= 1e-7 * (1 + d.shared) &&
                       fabs(d.l3 - dprev.l3) <= 1e-7 * (1 + d.l3) && fabs(d.l2 - dprev.l2) <= 1e-7 * (1 + d.l2);
            if (k == MK_EXT_MAX || same || ext >= 1 || qk * (1 - ext) < 1e-10)
                wk = 1 - mass;      /* the rest, at this (saturated) distance */
            mix.s_ddio += wk * w.s_ddio;
            mix.s_shared += wk * w.s_shared;
            mix.s_l3 += wk * w.s_l3;
            mix.s_l2 += wk * w.s_l2;
            mix.l2_to_l3 += wk * w.l2_to_l3;
            mix.place_ddio += wk * w.place_ddio;
            mass += wk;
            if (mass >= 1 - 1e-15)
                break;
            dprev = d;
        }
        if (mk_evict_matrix(&x->sp, &mix, ch->E[s], ch->ewb[s], e) != 0)
            return -1;
        ch->l2_move[s] = 1 - mix.s_l2;
        ch->place_ddio[s] = mix.place_ddio;
        if (event_matrix(x, c, st->ev, ch->place_ddio[s], ch->A[s], ch->amr[s], ch->awb[s], e) != 0)
            return -1;
    }
    return 0;
}

/* C = A B.  Access and eviction matrices are mostly zeros (a state goes to
 * at most four others): skip them, row by row. */
static void matmul(unsigned n, const double *A, const double *B, double *C)
{
    double T[MK_MAX_STATES * MK_MAX_STATES];
    memset(T, 0, sizeof(double) * n * n);
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0; k < n; k++) {
            double a = A[i * n + k];
            if (a == 0)
                continue;
            for (unsigned j = 0; j < n; j++)
                T[i * n + j] += a * B[k * n + j];
        }
    memcpy(C, T, sizeof(double) * n * n);
}

static void matvec(unsigned n, const double *A, const double *v, double *y)
{
    for (unsigned i = 0; i < n; i++) {
        double s = 0;
        for (unsigned k = 0; k < n; k++)
            s += A[i * n + k] * v[k];
        y[i] = s;
    }
}

/* Distributions of one class: enter[s] (after the previous event) and
 * leave[s] (after the wait, before stage s's event). */
typedef struct cdist {
    double enter[MK_MAX_STAGES][MK_MAX_STATES];
    double leave[MK_MAX_STAGES][MK_MAX_STATES];
} cdist;

static double *eq1_from_chain(const chain *ch, unsigned n, size_t *dim_out)
{
    size_t dim = 2 * ch->ns * n;
    double *P = calloc(dim * dim, sizeof *P);
    if (!P)
        return NULL;
    /* Block 2s = entering stage s, block 2s+1 = leaving it (Eq. 1). */
    for (size_t s = 0; s < ch->ns; s++) {
        size_t be = 2 * s, bl = 2 * s + 1, bn = (2 * s + 2) % (2 * ch->ns);
        for (unsigned i = 0; i < n; i++)
            for (unsigned j = 0; j < n; j++) {
                P[(bl * n + i) * dim + be * n + j] = ch->E[s][i * n + j];
                P[(bn * n + i) * dim + bl * n + j] = ch->A[s][i * n + j];
            }
    }
    *dim_out = dim;
    return P;
}

static int solve_chain(ctx *x, const chain *ch, cdist *out, const cdist *prev, ddio_err *e)
{
    unsigned n = x->n;
    double x0[MK_MAX_STATES];
    if (x->p->eigen) {
        size_t dim = 0;
        double *P = eq1_from_chain(ch, n, &dim);
        double *v = malloc((dim ? dim : 1) * sizeof *v);
        if (!P || !v) {
            free(P);
            free(v);
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        }
        markov_solve_info info;
        /* From block 0 (entering stage 0), state memory: the paper's start. */
        int rc = markov_stationary_eigen_from(P, dim, x->sp.mem, 1e-9, v, &info, e);
        if (rc == 0 && info.unit_eigenvalues > 1)
            rc = ddio_errf(e, DDIO_EXIT_NOCONV,
                           "eigen solve: from memory the chain can end in %d closed classes (no unique stationary "
                           "vector; --solver lu follows the iteration from memory instead)",
                           info.unit_eigenvalues);
        if (rc == 0) {
            double s = 0;
            for (unsigned i = 0; i < n; i++)
                s += v[i];
            for (unsigned i = 0; i < n; i++)
                x0[i] = s > 0 ? v[i] / s : 0;
        }
        free(P);
        free(v);
        if (rc != 0)
            return -1;
    } else {
        /* The product of the cycle's matrices, P = A_{k-1} E_{k-1} ... A_0 E_0:
         * its stationary vector is Eq. 1's block "entering stage 0". */
        double P[MK_MAX_STATES * MK_MAX_STATES], T[MK_MAX_STATES * MK_MAX_STATES];
        memset(P, 0, sizeof P);
        for (unsigned i = 0; i < n; i++)
            P[i * n + i] = 1;
        for (size_t s = 0; s < ch->ns; s++) {
            matmul(n, ch->E[s], P, T);
            matmul(n, ch->A[s], T, P);
        }
        markov_solve_info info;
        ddio_err le;
        if (markov_stationary_lu(P, n, 1e-9, x0, &info, &le) != 0) {
            /* Several closed classes (nothing is ever evicted): the limit
             * from the previous iterate, as the paper's iteration from
             * "everything in memory" reaches. */
            double start[MK_MAX_STATES];
            memset(start, 0, sizeof start);
            start[x->sp.mem] = 1;
            markov_power_opts po = {.tol = 1e-13, .max_iter = 1000000, .lazy = 0.5,
                                    .x0 = prev ? prev->enter[0] : start};
            if (markov_stationary_power(P, n, &po, x0, &info, e) != 0)
                return -1;
        }
    }
    memcpy(out->enter[0], x0, sizeof(double) * n);
    for (size_t s = 0; s < ch->ns; s++) {
        matvec(n, ch->E[s], out->enter[s], out->leave[s]);
        if (s + 1 < ch->ns)
            matvec(n, ch->A[s], out->leave[s], out->enter[s + 1]);
    }
    return 0;
}

static void ev_add(evlist *l, double pos, double place, double rho)
{
    if (place <= 0 && rho <= 0)
        return;
    if (l->n >= MK_MAX_EV)
        return;
    l->pos[l->n] = pos;
    l->place[l->n] = place < 0 ? 0 : place > 1 ? 1 : place;
    l->rho[l->n] = rho < 0 ? 0 : rho > 1 ? 1 : rho;
    l->n++;
}

static int llc_rg(unsigned reg)
{
    return reg == REG_DDIO ? RG_DDIO : reg == REG_SHARED ? RG_SHARED : reg == REG_L3 ? RG_L3 : -1;
}

/* Where and how each class's lines are referenced in each region, from the
 * current distributions (Section 4.3.1's K_x, generalised: docs/model.md). */
static void compute_events(ctx *x, chain *const *ch, cdist *const *cd)
{
    const mk_params *p = x->p;
    const mk_space *sp = &x->sp;
    unsigned n = x->n;
    memset(&x->slope, 0, sizeof x->slope);
    for (size_t c = 0; c < p->n_classes; c++) {
        const mk_class *cl = &p->classes[c];
        const chain *h = ch[c];
        const cdist *d = cd[c];
        evlist *ev = &x->ev[c * RG_N];
        for (int g = 0; g < RG_N; g++)
            ev[g].n = 0;
        for (size_t s = 0; s < h->ns; s++) {
            const double *pre = d->leave[s];
            const double *A = h->A[s];
            uint8_t e = h->st[s].ev;
            double place[RG_N] = {0}, out[RG_N] = {0}, in[RG_N] = {0};
            for (unsigned f = 0; f < n; f++) {
                int gf = llc_rg(sp->st[f].llc);
                if (gf >= 0)
                    in[gf] += pre[f];
                if (sp->st[f].l2 != ST_I)
                    in[RG_L2] += pre[f];
                for (unsigned t = 0; t < n; t++) {
                    double m = A[t * n + f] * pre[f];
                    if (m == 0)
                        continue;
                    int gt = llc_rg(sp->st[t].llc);
                    if (e == MKE_NIC_WRITE || e == MKE_NIC_READ) {
                        if (gt >= 0 && (gf != gt || e == MKE_NIC_WRITE || p->count_read_refs))
                            place[gt] += m;
                        if (e == MKE_NIC_WRITE && sp->st[f].l2 != ST_I && sp->st[t].l2 == ST_I)
                            out[RG_L2] += m;    /* the write invalidates the L2 copy */
                    } else if (e == MKE_CPU && cl->nops > 0) {
                        if (gf >= 0 && gt != gf)
                            out[gf] += m;       /* moved to L2: frees its way */
                        if (gt >= 0 && (gf != gt || sp->st[f].l2 == ST_I))
                            place[gt] += m;     /* inclusive: referenced in the LLC */
                        if (sp->st[t].l2 != ST_I)
                            place[RG_L2] += m;  /* the core's access */
                    }
                }
            }
            for (int g = 0; g < RG_N; g++) {
                double rho = in[g] > 0 ? out[g] / in[g] : 0;
                ev_add(&ev[g], h->st[s].end, place[g], rho);
            }
            x->slope.ddio += cl->weight * place[RG_DDIO];
            x->slope.shared += cl->weight * place[RG_SHARED];
            x->slope.l3 += cl->weight * place[RG_L3];
            x->slope.l2 += cl->weight * place[RG_L2];
            /* L2 victims entering the LLC during the wait: mid-wait. */
            if (sp->mode == HIER_NONINCLUSIVE) {
                double m = 0;
                for (unsigned f = 0; f < n; f++)
                    if (sp->st[f].l2 == ST_M && sp->st[f].llc == REG_MEM)
                        m += d->enter[s][f] * h->l2_move[s];
                double mid = 0.5 * (h->st[s].start + h->st[s].end);
                ev_add(&ev[RG_DDIO], mid, m * h->place_ddio[s], 0);
                ev_add(&ev[RG_L3], mid, m * (1 - h->place_ddio[s]), 0);
                x->slope.ddio += cl->weight * m * h->place_ddio[s];
                x->slope.l3 += cl->weight * m * (1 - h->place_ddio[s]);
            }
        }
    }
}

static int check_params(const mk_params *p, ddio_err *e)
{
    if (p->n_classes == 0 || !p->classes)
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: no buffer lines to model");
    if (!(p->S > 0) || !isfinite(p->S))
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: cores (S) must be positive, not %g", p->S);
    for (int q = 0; q < MKQ_COUNT; q++)
        if (!(p->L[q] >= 0) || !isfinite(p->L[q]))
            return ddio_errf(e, DDIO_EXIT_USAGE, "model: queue %s has length %g", mk_queue_name((enum mk_queue)q), p->L[q]);
    if (!(p->tol > 0) || p->max_iter < 1)
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: tolerance must be > 0 and the iteration cap >= 1");
    if (!(p->damping >= 0 && p->damping < 1))
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: damping must be in [0, 1)");
    for (size_t c = 0; c < p->n_classes; c++) {
        const mk_class *cl = &p->classes[c];
        if (!(cl->weight >= 0) || !(cl->used > 0 && cl->used <= 1) || !(cl->partial >= 0 && cl->partial <= 1) ||
            cl->nops > MK_MAX_OPS)
            return ddio_errf(e, DDIO_EXIT_USAGE, "model: line class %zu: bad weight / use / partial share", c);
    }
    return 0;
}

/* Distribution at queue q of a class: entering (which = 0) or leaving (1). */
static int queue_dist(ctx *x, const mk_class *cl, const chain *h, const cdist *d, int q, int which, double *out,
                      ddio_err *e)
{
    unsigned n = x->n;
    for (size_t s = 0; s < h->ns; s++) {
        const stage *st = &h->st[s];
        double Lb = 0;
        for (unsigned i = 0; i < st->nq; i++) {
            if (st->q[i] != q) {
                Lb += x->p->L[st->q[i]];
                continue;
            }
            if (which == 1 && i + 1 == st->nq) {
                memcpy(out, d->leave[s], sizeof(double) * n);
                return 1;
            }
            double Lp = Lb + (which ? x->p->L[q] : 0);
            if (Lp == 0) {
                memcpy(out, d->enter[s], sizeof(double) * n);
                return 1;
            }
            mk_dist dd;
            mk_wait w;
            window(x, Lp, x->sp.mode == HIER_NONINCLUSIVE && cl->nops > 0, &dd, &w);
            double E[MK_MAX_STATES * MK_MAX_STATES];
            if (mk_evict_matrix(&x->sp, &w, E, NULL, e) != 0)
                return -1;
            matvec(n, E, d->enter[s], out);
            return 1;
        }
    }
    return 0;
}

/* Linear extrapolation of the start from the last two solves (same
 * queues, different S): x = x1 + t (x1 - x0), t = (S - S1) / (S1 - S0),
 * used for 0 < t <= 2 (the per-core model solves the cores in the order of
 * beta).  Only the start moves: the fixed point and its tolerance do not. */
static double warm_secant(const mk_warm *w, const mk_params *p)
{
    if (!w->prev_valid || memcmp(w->L, p->L, sizeof p->L) != 0 || w->S == w->prev_S)
        return 0;
    double t = (p->S - w->S) / (w->S - w->prev_S);
    return t > 0 && t <= 2 ? t : 0;
}

static void extrapolate_vec(double *v, const double *v0, double t, unsigned n)
{
    double sum = 0;
    for (unsigned i = 0; i < n; i++) {
        double y = v[i] + t * (v[i] - v0[i]);
        v[i] = y > 0 ? y : 0;
        sum += v[i];
    }
    if (sum > 0)
        for (unsigned i = 0; i < n; i++)
            v[i] /= sum;
}

static void extrapolate_dist(cdist *d, const cdist *d0, double t, size_t ns, unsigned n)
{
    for (size_t s = 0; s < ns; s++) {
        extrapolate_vec(d->enter[s], d0->enter[s], t, n);
        extrapolate_vec(d->leave[s], d0->leave[s], t, n);
    }
}

static double clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

static void extrapolate_ev(evlist *l, const evlist *l0, double t)
{
    if (l->n != l0->n)
        return;
    for (int i = 0; i < l->n; i++)
        if (l->pos[i] != l0->pos[i])
            return;
    for (int i = 0; i < l->n; i++) {
        l->place[i] = clamp01(l->place[i] + t * (l->place[i] - l0->place[i]));
        l->rho[i] = clamp01(l->rho[i] + t * (l->rho[i] - l0->rho[i]));
    }
}

static int warm_fits(const mk_warm *w, const mk_params *p)
{
    return w && w->valid && w->classes == p->classes && w->n_classes == p->n_classes && w->mode == p->mode &&
           w->path == p->path && w->per_queue == p->per_queue;
}

/* The fixed point; on success ch / cd hold the final chains. */
static int fixed_point(ctx *x, const mk_warm *warm, chain **ch, cdist **cd, cdist **old, int *iters, double *resid,
                       ddio_err *e)
{
    const mk_params *p = x->p;
    size_t nc = p->n_classes;
    int hot = warm_fits(warm, p);
    double secant = hot ? warm_secant(warm, p) : 0;
    for (size_t c = 0; c < nc; c++) {
        ch[c]->ns = build_stages(p, &p->classes[c], ch[c]->st);
        if (hot) {
            /* Warm start: the fixed point of a neighbouring solve. */
            *cd[c] = ((const cdist *)warm->dist)[c];
            if (secant > 0)
                extrapolate_dist(cd[c], &((const cdist *)warm->prev_dist)[c], secant, ch[c]->ns, x->n);
            continue;
        }
        /* Start: everything in memory (Section 4.2). */
        memset(cd[c], 0, sizeof *cd[c]);
        for (size_t s = 0; s < ch[c]->ns; s++) {
            cd[c]->enter[s][x->sp.mem] = 1;
            cd[c]->leave[s][x->sp.mem] = 1;
        }
    }
    if (hot && memcmp(warm->L, p->L, sizeof p->L) == 0) {
        /* Same queues: the reference lists (cycle positions and per-line
         * probabilities; S scales them later) are those of the start. */
        memcpy(x->ev, warm->ev, nc * RG_N * sizeof *x->ev);
        if (secant > 0)
            for (size_t i = 0; i < nc * RG_N; i++)
                extrapolate_ev(&x->ev[i], &((const evlist *)warm->prev_ev)[i], secant);
    } else {
        /* The access matrices (all the first references need) do not depend
         * on the reuse distances: build them with empty reference lists.  A
         * warm start with other queue lengths takes a second round, so that
         * its first reference lists see the start's evictions. */
        for (size_t c = 0; c < nc * RG_N; c++)
            x->ev[c].n = 0;
        for (int round = 0; round < (hot ? 2 : 1); round++) {
            dmemo_clear(x);
            for (size_t c = 0; c < nc; c++)
                if (build_chain(x, &p->classes[c], hot ? (const double (*)[MK_MAX_STATES])cd[c]->enter : NULL, ch[c],
                                e) != 0)
                    return -1;
            compute_events(x, ch, cd);
        }
    }
    dmemo_clear(x);
    double res = INFINITY;
    int it;
    for (it = 1; it <= p->max_iter; it++) {
        res = 0;
        for (size_t c = 0; c < nc; c++) {
            *old[c] = *cd[c];
            if (build_chain(x, &p->classes[c], (const double (*)[MK_MAX_STATES])old[c]->enter, ch[c], e) != 0 ||
                solve_chain(x, ch[c], cd[c], old[c], e) != 0)
                return -1;
            /* The paper's plain iteration; if it has not settled after 30
             * rounds (it can oscillate between "all cached" and "all
             * evicted" when the distances swing), damp it. */
            double damp = p->damping > 0 ? p->damping : it > 30 ? 0.5 : 0;
            for (size_t s = 0; s < ch[c]->ns; s++) {
                double dd = 0;
                for (unsigned i = 0; i < x->n; i++) {
                    if (damp > 0) {
                        cd[c]->enter[s][i] = (1 - damp) * cd[c]->enter[s][i] + damp * old[c]->enter[s][i];
                        cd[c]->leave[s][i] = (1 - damp) * cd[c]->leave[s][i] + damp * old[c]->leave[s][i];
                    }
                    dd += fabs(cd[c]->leave[s][i] - old[c]->leave[s][i]) + fabs(cd[c]->enter[s][i] - old[c]->enter[s][i]);
                }
                if (dd > res)
                    res = dd;
            }
        }
        compute_events(x, ch, cd);
        dmemo_clear(x);
        if (res <= p->tol)
            break;
    }
    *iters = it > p->max_iter ? p->max_iter : it;
    *resid = res;
    if (!(res <= p->tol))
        return ddio_errf(e, DDIO_EXIT_NOCONV,
                         "model did not converge: residual %.3g after %d iterations (tolerance %g; raise --max-iter or --tol)",
                         res, p->max_iter, p->tol);
    return 0;
}

typedef struct work {
    ctx x;
    chain **ch;
    cdist **cd, **old;
    size_t nc;
} work;

static void work_free(work *w)
{
    for (size_t c = 0; c < w->nc; c++) {
        if (w->ch)
            free(w->ch[c]);
        if (w->cd)
            free(w->cd[c]);
        if (w->old)
            free(w->old[c]);
    }
    free(w->ch);
    free(w->cd);
    free(w->old);
    free(w->x.ev);
    free(w->x.dm);
    free(w->x.ufull);
    free(w->x.ur_key);
    free(w->x.ur_val);
    free(w->x.ulog);
}

static int work_init(work *w, const mk_params *p, ddio_err *e)
{
    memset(w, 0, sizeof *w);
    ctx *x = &w->x;
    x->p = p;
    mk_space_init(&x->sp, p->mode);
    x->n = x->sp.n;
    for (size_t c = 0; c < p->n_classes; c++)
        x->sum_w += p->classes[c].weight;
    step sp[MKQ_COUNT];
    size_t ns = path_steps(p->path, sp);
    for (size_t i = 0; i < ns; i++)
        x->L_cycle += p->L[sp[i].q];
    size_t nc = w->nc = p->n_classes;
    w->ch = calloc(nc, sizeof *w->ch);
    w->cd = calloc(nc, sizeof *w->cd);
    w->old = calloc(nc, sizeof *w->old);
    x->ev = calloc(nc * RG_N, sizeof *x->ev);
    x->dm = calloc(DMEMO_SLOTS, sizeof *x->dm);
    x->ufull = calloc(nc * RG_N, sizeof *x->ufull);
    x->ur_key = calloc(nc * RG_N, sizeof *x->ur_key);
    x->ur_val = calloc(nc * RG_N, sizeof *x->ur_val);
    x->ulog = calloc(nc * RG_N, sizeof *x->ulog);
    if (!w->ch || !w->cd || !w->old || !x->ev || !x->dm || !x->ufull || !x->ur_key || !x->ur_val || !x->ulog)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    for (size_t c = 0; c < nc; c++) {
        w->ch[c] = calloc(1, sizeof **w->ch);
        w->cd[c] = calloc(1, sizeof **w->cd);
        w->old[c] = calloc(1, sizeof **w->old);
        if (!w->ch[c] || !w->cd[c] || !w->old[c])
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    return 0;
}

void mk_warm_init(mk_warm *w)
{
    memset(w, 0, sizeof *w);
}

void mk_warm_free(mk_warm *w)
{
    free(w->dist);
    free(w->ev);
    free(w->prev_dist);
    free(w->prev_ev);
    memset(w, 0, sizeof *w);
}

/* Keep the converged state of a solve for the next one. */
static int warm_store(mk_warm *w, const work *wk, ddio_err *e)
{
    const mk_params *p = wk->x.p;
    size_t nc = p->n_classes;
    /* The current start becomes the previous one when it fits. */
    int keep = warm_fits(w, p) && memcmp(w->L, p->L, sizeof w->L) == 0 && w->S != p->S;
    void *pd = w->prev_dist, *pe = w->prev_ev;
    w->prev_dist = keep ? w->dist : NULL;
    w->prev_ev = keep ? w->ev : NULL;
    w->prev_S = w->S;
    w->prev_valid = keep;
    w->dist = keep ? pd : w->dist;
    w->ev = keep ? pe : w->ev;
    if (!keep) {
        free(pd);
        free(pe);
    }
    if (!w->dist || !w->ev || (!keep && w->n_classes != nc)) {
        free(w->dist);
        free(w->ev);
        w->dist = w->ev = NULL;
        w->valid = 0;
        w->n_classes = 0;
        w->dist = malloc(nc * sizeof(cdist));
        w->ev = malloc(nc * RG_N * sizeof(evlist));
        if (!w->dist || !w->ev)
            return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    for (size_t c = 0; c < nc; c++)
        ((cdist *)w->dist)[c] = *wk->cd[c];
    memcpy(w->ev, wk->x.ev, nc * RG_N * sizeof(evlist));
    w->classes = p->classes;
    w->n_classes = nc;
    w->mode = p->mode;
    w->path = p->path;
    w->per_queue = p->per_queue;
    memcpy(w->L, p->L, sizeof w->L);
    w->S = p->S;
    w->valid = 1;
    return 0;
}

int mk_solve(const mk_params *p, mk_result *r, ddio_err *e)
{
    return mk_solve_warm(p, NULL, r, e);
}

int mk_solve_warm(const mk_params *p, mk_warm *warm, mk_result *r, ddio_err *e)
{
    memset(r, 0, sizeof *r);
    if (check_params(p, e) != 0)
        return -1;
    work wk;
    int rc = -1;
    if (work_init(&wk, p, e) != 0)
        goto out;
    ctx *x = &wk.x;
    rc = fixed_point(x, warm, wk.ch, wk.cd, wk.old, &r->iterations, &r->residual, e);
    r->k = x->slope;
    r->space = x->sp;
    if (rc != 0)
        goto out;
    if (warm && warm_store(warm, &wk, e) != 0) {
        rc = -1;
        goto out;
    }
    rc = -1;
    /* Results, weighted by buffer lines. */
    double wsum = 0, wr = 0, rd = 0, fsum = 0, cpu = 0, rdw = 0, wrw = 0;
    for (size_t c = 0; c < wk.nc; c++) {
        const mk_class *cl = &p->classes[c];
        const chain *h = wk.ch[c];
        const cdist *d = wk.cd[c];
        wsum += cl->weight;
        for (size_t s = 0; s < h->ns; s++) {
            double miss = d->leave[s][x->sp.mem];
            switch (h->st[s].ev) {
            case MKE_NIC_WRITE: wr += cl->weight * (1 - miss); wrw += cl->weight; break;
            case MKE_NIC_READ: rd += cl->weight * (1 - miss); rdw += cl->weight; break;
            case MKE_CPU:
                if (cl->nops > 0) {
                    cpu += cl->first * (1 - miss);
                    fsum += cl->first;
                }
                break;
            default: break;
            }
            for (unsigned i = 0; i < x->n; i++) {
                r->mem_read_lines += cl->weight * d->leave[s][i] * h->amr[s][i];
                r->mem_write_lines += cl->weight * (d->leave[s][i] * h->awb[s][i] + d->enter[s][i] * h->ewb[s][i]);
            }
        }
        /* Per queue distributions and the footprint. */
        for (int q = 0; q < MKQ_COUNT; q++) {
            double en[MK_MAX_STATES], lv[MK_MAX_STATES];
            int f1 = queue_dist(x, cl, h, d, q, 0, en, e), f2 = queue_dist(x, cl, h, d, q, 1, lv, e);
            if (f1 < 0 || f2 < 0)
                goto out;
            if (!f1)
                continue;
            r->visited[q] = 1;
            for (unsigned i = 0; i < x->n; i++) {
                r->dist[q][0][i] += cl->weight * en[i];
                r->dist[q][1][i] += cl->weight * lv[i];
                double avg = 0.5 * (en[i] + lv[i]) * cl->weight * p->L[q];
                if (i != x->sp.mem)
                    r->footprint_lines += avg;
                if (x->sp.st[i].llc != REG_MEM)
                    r->footprint_region[x->sp.st[i].llc] += avg;
                if (x->sp.st[i].l2 != ST_I)
                    r->footprint_region[REG_L2] += avg;
            }
        }
    }
    for (int q = 0; q < MKQ_COUNT; q++)
        for (int w2 = 0; w2 < 2; w2++)
            for (unsigned i = 0; i < x->n; i++)
                r->dist[q][w2][i] = wsum > 0 ? r->dist[q][w2][i] / wsum : 0;
    r->pcie_write_hit = wrw > 0 ? wr / wrw : NAN;
    r->pcie_read_hit = rdw > 0 ? rd / rdw : NAN;
    r->cpu_first_hit = fsum > 0 ? cpu / fsum : NAN;
    rc = 0;
out:
    work_free(&wk);
    return rc;
}

double *mk_eq1_matrix(const mk_params *p, size_t c, size_t *dim, double *cycle, ddio_err *e)
{
    if (check_params(p, e) != 0)
        return NULL;
    if (c >= p->n_classes) {
        ddio_errf(e, DDIO_EXIT_USAGE, "model: no line class %zu", c);
        return NULL;
    }
    work wk;
    double *P = NULL;
    int it;
    double res;
    if (work_init(&wk, p, e) == 0 && fixed_point(&wk.x, NULL, wk.ch, wk.cd, wk.old, &it, &res, e) == 0) {
        const chain *ch = wk.ch[c];
        unsigned n = wk.x.n;
        P = eq1_from_chain(ch, n, dim);
        if (!P)
            ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        if (P && cycle) {
            double T[MK_MAX_STATES * MK_MAX_STATES];
            memset(cycle, 0, sizeof(double) * n * n);
            for (unsigned i = 0; i < n; i++)
                cycle[i * n + i] = 1;
            for (size_t s = 0; s < ch->ns; s++) {
                matmul(n, ch->E[s], cycle, T);
                matmul(n, ch->A[s], T, cycle);
            }
        }
    }
    work_free(&wk);
    return P;
}
