/* model.c - the Markov model's chain and its fixed point (Wang, Xu, Wu,
 * "Understanding I/O Direct Cache Access Performance for End Host
 * Networking", SIGMETRICS 2022, Section 4.2, Eq. 1, Appendix D.2-D.4): the
 * stages a buffer line goes through on its path, the access and eviction
 * matrix of each (model_access.c, model_reuse.c), the equilibrium of the
 * block-cyclic chain (Eq. 1), the paper's fixed-point iteration between the
 * distributions and the reuse distances, warm starts, and the results.
 * Choices are documented in docs/model.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/markov/model_int.h"
#include "sim/markov/solve.h"


void mk_params_default(mk_params *p)
{
    memset(p, 0, sizeof *p);
    p->mode = HIER_NONINCLUSIVE;
    p->S = 1;
    p->policy = MK_LRU;
    p->count_read_refs = 1;
    p->tol = 1e-9;
    p->max_iter = 500;
    p->geom.eq4 = MK_EQ4_EXACT;
}

/* The path's queues, each followed by an event, starting where a buffer's
 * life begins (Fig. 10; Appendix D.4 for the one-way paths). */
typedef struct step {
    uint8_t q, ev;
} step;

static size_t path_steps(enum mk_path path, step *out)
{
    static const step fwd[] = {{Q_RX_REPLENISH, MKE_NIC_WRITE}, {Q_RX, MKE_CPU}, {Q_SW, MKE_NONE},
                               {Q_TX, MKE_NIC_READ},   {Q_TX_RECYCLE, MKE_NONE}, {Q_IDLE, MKE_NONE}};
    static const step rxo[] = {{Q_RX_REPLENISH, MKE_NIC_WRITE}, {Q_RX, MKE_CPU}, {Q_IDLE, MKE_NONE}};
    static const step txo[] = {{Q_IDLE, MKE_CPU}, {Q_SW, MKE_NONE}, {Q_TX, MKE_NIC_READ}, {Q_TX_RECYCLE, MKE_NONE}};
    const step *s = path == MK_RX_ONLY ? rxo : path == MK_TX_ONLY ? txo : fwd;
    size_t n = path == MK_RX_ONLY ? 3 : path == MK_TX_ONLY ? 4 : 6;
    memcpy(out, s, n * sizeof *s);
    return n;
}

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
    step sp[Q_MODEL_COUNT];
    double pos[Q_MODEL_COUNT];      /* cycle position of each step's event */
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

static int has_l2em(const mk_space *sp, const double *v)
{
    for (unsigned i = 0; i < sp->n; i++)
        if (sp->st[i].l2 == ST_M && sp->st[i].llc == REG_MEM && v && v[i] > 0)
            return 1;
    return 0;
}

/* Build class c's matrices from the current reference lists.  enter: the
 * previous enter distributions (decides where Eq. 4 is needed), or NULL. */
static int build_chain(ctx *x, const mk_class *c, const double (*enter)[MK_MAX_STATES], chain *ch, ddio_err *e)
{
    ch->ns = build_stages(x->p, c, ch->st);
    for (size_t s = 0; s < ch->ns; s++) {
        const stage *st = &ch->st[s];
        uint8_t prev_ev = ch->st[(s + ch->ns - 1) % ch->ns].ev;
        int need4 = x->sp.mode == HIER_NONINCLUSIVE &&
                    ((prev_ev == MKE_CPU && c->nops > 0) || has_l2em(&x->sp, enter ? enter[s] : NULL) ||
                     (x->p->per_queue && c->nops > 0));
        mk_wait mix;
        mk_stage_wait(x, c, st, need4, &mix);
        if (mk_evict_matrix(&x->sp, &mix, ch->E[s], ch->ewb[s], e) != 0)
            return -1;
        ch->l2_move[s] = 1 - mix.s_l2;
        ch->place_ddio[s] = mix.place_ddio;
        if (mk_event_matrix(&x->sp, c, st->ev, ch->place_ddio[s], ch->A[s], ch->amr[s], ch->awb[s], e) != 0)
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
        mk_solve_info info;
        /* From block 0 (entering stage 0), state memory: the paper's start. */
        int rc = mk_stationary_eigen_from(P, dim, x->sp.mem, 1e-9, v, &info, e);
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
        mk_solve_info info;
        ddio_err le;
        if (mk_stationary_lu(P, n, 1e-9, x0, &info, &le) != 0) {
            /* Several closed classes (nothing is ever evicted): the limit
             * from the previous iterate, as the paper's iteration from
             * "everything in memory" reaches. */
            double start[MK_MAX_STATES];
            memset(start, 0, sizeof start);
            start[x->sp.mem] = 1;
            mk_power_opts po = {.tol = 1e-13, .max_iter = 1000000, .lazy = 0.5,
                                    .x0 = prev ? prev->enter[0] : start};
            if (mk_stationary_power(P, n, &po, x0, &info, e) != 0)
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


static int check_params(const mk_params *p, ddio_err *e)
{
    if (p->n_classes == 0 || !p->classes)
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: no buffer lines to model");
    if (!(p->S > 0) || !isfinite(p->S))
        return ddio_errf(e, DDIO_EXIT_USAGE, "model: cores (S) must be positive, not %g", p->S);
    for (int q = 0; q < Q_MODEL_COUNT; q++)
        if (!(p->L[q] >= 0) || !isfinite(p->L[q]))
            return ddio_errf(e, DDIO_EXIT_USAGE, "model: queue %s has length %g", lqueue_name((enum lqueue)q), p->L[q]);
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
            mk_window(x, Lp, x->sp.mode == HIER_NONINCLUSIVE && cl->nops > 0, &dd, &w);
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
            mk_reuse_reset(x);
            for (size_t c = 0; c < nc; c++)
                if (build_chain(x, &p->classes[c], hot ? (const double (*)[MK_MAX_STATES])cd[c]->enter : NULL, ch[c],
                                e) != 0)
                    return -1;
            mk_reference_lists(x, ch, cd);
        }
    }
    mk_reuse_reset(x);
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
        mk_reference_lists(x, ch, cd);
        mk_reuse_reset(x);
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
    mk_space_init(&x->sp, p->mode, p->geom.ddio.ways > 0);
    x->n = x->sp.n;
    for (size_t c = 0; c < p->n_classes; c++)
        x->sum_w += p->classes[c].weight;
    step sp[Q_MODEL_COUNT];
    size_t ns = path_steps(p->path, sp);
    for (size_t i = 0; i < ns; i++)
        x->L_cycle += p->L[sp[i].q];
    size_t nc = w->nc = p->n_classes;
    w->ch = calloc(nc, sizeof *w->ch);
    w->cd = calloc(nc, sizeof *w->cd);
    w->old = calloc(nc, sizeof *w->old);
    x->ev = calloc(nc * RG_N, sizeof *x->ev);
    x->dm = calloc(MK_DMEMO_SLOTS, sizeof *x->dm);
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
    const int wr_can_hit = mk_req_can_hit(&x->sp, REQ_PCIE_WR_FULL);   /* 0: DDIO off */
    for (size_t c = 0; c < wk.nc; c++) {
        const mk_class *cl = &p->classes[c];
        const chain *h = wk.ch[c];
        const cdist *d = wk.cd[c];
        wsum += cl->weight;
        for (size_t s = 0; s < h->ns; s++) {
            double miss = d->leave[s][x->sp.mem];
            switch (h->st[s].ev) {
            case MKE_NIC_WRITE: wr += wr_can_hit ? cl->weight * (1 - miss) : 0; wrw += cl->weight; break;
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
        for (int q = 0; q < Q_MODEL_COUNT; q++) {
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
    for (int q = 0; q < Q_MODEL_COUNT; q++)
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

