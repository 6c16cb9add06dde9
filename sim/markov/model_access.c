/* model_access.c - the Markov model's state space and access matrices
 * (Wang, Xu, Wu, "Understanding I/O Direct Cache Access Performance for End
 * Host Networking", SIGMETRICS 2022, Section 4.1 and Fig. 11): the physical
 * states of a buffer line, and what each request does to them, generated
 * from the cells of Table 1 and the rules around it in
 * sim/cache/coherence.h, which the cache hierarchy executes too.  No copy
 * of Table 1 or of those rules exists here (docs/model.md section 2). */
#include <string.h>

#include "configs/config.h"
#include "sim/markov/model_int.h"

/* ------------------------------------------------------------ states */

void mk_space_init(mk_space *sp, enum hier_mode mode, int ddio)
{
    memset(sp, 0, sizeof *sp);
    sp->mode = mode;
    sp->ddio = ddio != 0;
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

enum coh_col mk_state_col(const mk_space *sp, unsigned s)
{
    return coh_col_of(sp->mode, (enum hier_region)sp->st[s].llc, (enum coh_state)sp->st[s].l2);
}

/* The model's L2 state of a copy in coherence state st: E and M are one
 * state, L2(E/M). */
static unsigned model_l2(enum coh_state st)
{
    return st == ST_E ? ST_M : (unsigned)st;
}

/* ------------------------------------------------------------ access matrices */

int mk_move(const mk_space *sp, double *A, unsigned from, unsigned llc, unsigned l2, double pr, ddio_err *e)
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

unsigned mk_l2_after(const coh_cell *c, unsigned l2)
{
    switch ((enum coh_l2)c->l2) {
    case L2_KEEP: return l2;
    case L2_DROP: return ST_I;
    case L2_TO_S: return ST_S;
    default: return ST_M;   /* E, M, E/M: the model's L2(E/M) */
    }
}

/* Apply one Table 1 cell to state `from` with probability mass 1, the L2
 * copy ending in state l2; the LLC_TO_CORE destination is split by the D.1
 * placement probabilities. */
static int apply_cell(const mk_space *sp, const coh_cell *c, unsigned from, unsigned l2, double to_ddio,
                      double to_shared, double *A, ddio_err *e)
{
    mk_state x = sp->st[from];
    switch ((enum coh_llc)c->llc) {
    case LLC_KEEP: return mk_move(sp, A, from, x.llc, l2, 1, e);
    case LLC_DROP:
    case LLC_TO_MEM:
    case LLC_WRITE_MEM: return mk_move(sp, A, from, REG_MEM, l2, 1, e);
    case LLC_TO_DDIO: return mk_move(sp, A, from, REG_DDIO, l2, 1, e);
    case LLC_TO_SHARED: return mk_move(sp, A, from, REG_SHARED, l2, 1, e);
    case LLC_TO_CORE:
        if (mk_move(sp, A, from, REG_DDIO, l2, to_ddio, e) || mk_move(sp, A, from, REG_SHARED, l2, to_shared, e))
            return -1;
        return mk_move(sp, A, from, REG_L3, l2, 1 - to_ddio - to_shared, e);
    }
    return ddio_errf(e, DDIO_EXIT_IO, "internal: unknown LLC action %u", c->llc);
}

/* The Table 1 cell `req` meets in state s; NULL (e filled) if undefined. */
static const coh_cell *table_cell(const mk_space *sp, enum coh_req req, unsigned s, ddio_err *e)
{
    enum coh_col col = mk_state_col(sp, s);
    const coh_cell *c = coh_lookup_io(sp->mode, sp->ddio, req, col);
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
        if (!c || apply_cell(sp, c, s, mk_l2_after(c, sp->st[s].l2), to_ddio, to_shared, A, e) != 0)
            return -1;
        if (mem_read)
            mem_read[s] = c->mem_read;
        if (wb)
            wb[s] = coh_cell_mem_writes(c);
    }
    return 0;
}

int mk_req_can_hit(const mk_space *sp, enum coh_req req)
{
    for (unsigned s = 0; s < sp->n; s++) {
        enum coh_col col = mk_state_col(sp, s);
        const coh_cell *c = coh_lookup_io(sp->mode, sp->ddio, req, col);
        if (s != sp->mem && c && c->defined && coh_cell_hit(c, col))
            return 1;
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
            /* The L2 hit: Table 1's empty cells, the rule of coherence.h. */
            enum coh_state l2 = (enum coh_state)x.l2;
            unsigned llc = coh_l2_hit_takes_llc(sp->mode, req, l2) ? REG_MEM : x.llc;
            if (mk_move(sp, A, s, llc, model_l2(coh_l2_hit_state(req, l2)), 1, e) != 0)
                return -1;
            continue;
        }
        const coh_cell *c = table_cell(sp, req, s, e);
        if (!c)
            return -1;
        /* The new L2 copy, the store completing after the RFO (coherence.h). */
        enum coh_state l2 = coh_core_fill_state(sp->mode, req, (enum coh_l2)c->l2, mk_state_dirty(sp, s));
        if (l2 == ST_I)
            return ddio_errf(e, DDIO_EXIT_IO, "internal: Table 1 (%s) leaves no L2 copy for %s in state %s",
                             hier_mode_name(sp->mode), coh_req_name(req), sp->name[s]);
        if (apply_cell(sp, c, s, model_l2(l2), to_ddio, to_shared, A, e) != 0)
            return -1;
        mr[s] = c->mem_read;
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

int mk_event_matrix(const mk_space *sp, const mk_class *c, uint8_t ev, double to_ddio, double *A, double *mr,
                    double *wb, ddio_err *e)
{
    unsigned n = sp->n;
    switch (ev) {
    case MKE_NIC_WRITE: {
        double A2[MK_MAX_STATES * MK_MAX_STATES], mr2[MK_MAX_STATES];
        if (mk_access_matrix(sp, REQ_PCIE_WR_FULL, to_ddio, 0, A, mr, wb, e) ||
            mk_access_matrix(sp, REQ_PCIE_WR_PART, to_ddio, 0, A2, mr2, NULL, e))
            return -1;
        for (unsigned i = 0; i < n * n; i++)
            A[i] = (1 - c->partial) * A[i] + c->partial * A2[i];
        for (unsigned i = 0; i < n; i++)
            mr[i] = (1 - c->partial) * mr[i] + c->partial * mr2[i];
        return 0;
    }
    case MKE_NIC_READ: return mk_access_matrix(sp, REQ_PCIE_RD, to_ddio, 0, A, mr, wb, e);
    case MKE_CPU: return mk_cpu_matrix(sp, c->ops, c->nops, to_ddio, 0, A, mr, wb, e);
    default:
        memset(A, 0, sizeof(double) * n * n);
        for (unsigned i = 0; i < n; i++) {
            A[i * n + i] = 1;
            mr[i] = wb[i] = 0;
        }
        return 0;
    }
}
