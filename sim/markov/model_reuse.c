/* model_reuse.c - the eviction matrix of a wait and the reuse distances it
 * comes from (Wang, Xu, Wu, "Understanding I/O Direct Cache Access
 * Performance for End Host Networking", SIGMETRICS 2022, Section 4.3 and
 * Appendix D.1 / D.3): survival of each copy over a wait (Eq. 2-4, 9, 10,
 * 12 through evict.h), where an evicted copy goes (the Evict row of Table
 * 1), and the unique lines each region sees in a window of W packets,
 * counted from the reference lists of every line class.  The choices are
 * docs/model.md sections 3-6. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "sim/markov/model_int.h"

/* ------------------------------------------------------------ eviction matrices */

void mk_wait_probs(const mk_geom *g, const mk_dist *d, mk_wait *w)
{
    memset(w, 0, sizeof *w);
    w->s_l2 = mk_survive(&g->l2, d->l2);
    /* The LLC regions' survivals follow the set mapping when the regions
     * carry its mixture (docs/model.md section 12); d->l3_out of L3*'s
     * lines are table lines, outside the buffer footprint. */
    if (!g->overlap) {
        /* DDIO off (no DDIO ways): no line is ever there to survive. */
        w->s_ddio = g->ddio.ways ? mk_survive_mix(&g->ddio, d->ddio, 0) : 0;
        w->s_shared = mk_survive_mix(&g->shared, d->shared, 0);
        w->s_l3 = mk_survive_mix(&g->l3, d->l3, d->l3_out);
        w->l2_to_l3 = mk_l2_to_l3_mix(d->l2, g->l2.ways, g->l2.sets, &g->l3, d->l3, d->l3_out, g->eq4);
        return;
    }
    /* Appendix D.1: L3* (and Shared) fills may use the DDIO ways.  Eq. 9 /
     * 10 are LRU formulas; the unrestricted stream is L3* + Shared. */
    double T = d->l3 + d->shared, C = g->l3.sets, To = d->l3_out;
    double tot = d->ddio + T;
    w->place_ddio = mk_placement_prob(g->all_ways, g->ddio_ways, tot > 0 ? d->ddio / tot : 0);
    mk_region inner = g->l3;
    inner.ways = g->all_ways - g->ddio_ways;
    if (g->l3.policy == MK_LRU) {
        w->s_ddio = mk_hit_ddio_overlap_mix(T, To, d->ddio, g->all_ways, g->ddio_ways, C, g->l3.mix);
        w->s_l3 = mk_hit_l3_overlap_mix(T, To, d->ddio, g->all_ways, g->ddio_ways, C, g->l3.mix);
    } else {
        /* BIP / QLRU: no overlap formula in the paper.  Effective partition:
         * the DDIO ways take the DDIO fills plus the share Eq. 12 of the
         * unrestricted ones, the other ways the rest (docs/model.md). */
        mk_region dd = g->ddio;
        w->s_ddio = mk_survive_mix(&dd, d->ddio + w->place_ddio * T, w->place_ddio * To);
        w->s_l3 = mk_survive_mix(&inner, (1 - w->place_ddio) * T, (1 - w->place_ddio) * To);
    }
    w->s_shared = w->s_l3;
    w->l2_to_l3 = mk_l2_to_l3_mix(d->l2, g->l2.ways, g->l2.sets, &inner, (1 - w->place_ddio) * T,
                                      (1 - w->place_ddio) * To, g->eq4);
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
        const coh_cell *cl =
            x.llc == REG_MEM ? NULL : coh_lookup(sp->mode, REQ_EVICT, coh_region_col((enum hier_region)x.llc));
        const coh_cell *c2 = x.l2 == ST_I ? NULL : coh_lookup(sp->mode, REQ_EVICT, coh_l2_col((enum coh_state)x.l2));
        if ((cl && !cl->defined) || (c2 && !c2->defined))
            return ddio_errf(e, DDIO_EXIT_IO, "internal: Table 1 has no eviction cell for %s", sp->name[s]);
        unsigned l2_gone = c2 ? mk_l2_after(c2, x.l2) : ST_I;
        /* L2 victim moving into the LLC (non-inclusive E/M: LLC_TO_CORE). */
        int l2_moves = c2 && c2->llc == LLC_TO_CORE;
        /* LLC copy survives. */
        if (mk_move(sp, E, s, x.llc, x.l2, sl * s2, e))
            return -1;
        if (x.l2 != ST_I) {
            if (l2_moves) {
                /* Only when there is no LLC copy (a non-inclusive invariant). */
                assert(x.llc == REG_MEM);
                double mv = w->l2_to_l3;
                if (mv > 1 - s2)
                    mv = 1 - s2;
                if (mk_move(sp, E, s, REG_DDIO, ST_I, mv * w->place_ddio, e) ||
                    mk_move(sp, E, s, REG_L3, ST_I, mv * (1 - w->place_ddio), e) ||
                    mk_move(sp, E, s, REG_MEM, ST_I, 1 - s2 - mv, e))
                    return -1;
            } else if (mk_move(sp, E, s, x.llc, l2_gone, sl * (1 - s2), e)) {
                return -1;
            }
        }
        if (x.llc != REG_MEM) {
            /* LLC victim: memory; inclusive back-invalidates the L2 copy. */
            unsigned l2_left = cl->l2 == L2_DROP ? ST_I : x.l2;
            if (l2_left == ST_I) {
                if (mk_move(sp, E, s, REG_MEM, ST_I, 1 - sl, e))
                    return -1;
            } else if (mk_move(sp, E, s, REG_MEM, l2_left, (1 - sl) * s2, e) ||
                       mk_move(sp, E, s, REG_MEM, l2_gone, (1 - sl) * (1 - s2), e)) {
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

/* ------------------------------------------------------------ reuse distances */

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

/* Reuse distances of a wait of W packets of this core, while the other
 * cores receive (mult - 1) W packets (mult = S: their mean). */
static void distances(const ctx *x, double W, double mult, mk_dist *d)
{
    const mk_params *p = x->p;
    double lines[RG_N] = {0};
    for (size_t c = 0; c < p->n_classes; c++)
        for (int g = 0; g < RG_N; g++)
            lines[g] += class_lines(x, c, g, W);
    double a = table_unique(&p->tables, W);
    d->ddio = mult * lines[RG_DDIO];
    d->shared = mult * lines[RG_SHARED];
    d->l3 = mult * (lines[RG_L3] + a * p->tables.write_fraction);
    d->l3_out = mult * a * p->tables.write_fraction;
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
        w->s_l2 = mk_survive(&g->l2, d->l2);
        w->l2_to_l3 = need_eq4 ? memo : 0;
        return;
    }
    mk_wait_probs(g, d, w);
    int i = x->memo_n < 8 ? x->memo_n++ : 7;
    x->memo_t2[i] = d->l2;
    x->memo_t3[i] = d->l3 + d->shared + d->ddio;
    x->memo_v[i] = w->l2_to_l3;
}

void mk_reuse_reset(ctx *x)
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

/* mix += wk w: one term of a mixture of waits' survivals (flow bursts,
 * Appendix D.3's extended waits). */
static void wait_add(mk_wait *mix, const mk_wait *w, double wk)
{
    mix->s_ddio += wk * w->s_ddio;
    mix->s_shared += wk * w->s_shared;
    mix->s_l3 += wk * w->s_l3;
    mix->s_l2 += wk * w->s_l2;
    mix->l2_to_l3 += wk * w->l2_to_l3;
    mix->place_ddio += wk * w->place_ddio;
}

/* The standard normal's quantiles at (j + 1/2) / MK_BURST_NODES. */
static const double burst_z[MK_BURST_NODES] = {
    -1.8627318674216511,  -1.3180108973035367,  -1.0099901692495821,  -0.7764217611479276,
    -0.57913216225555597, -0.40225006532172525, -0.23720210932878771, -0.078412412733112197,
    0.078412412733112197, 0.23720210932878771,  0.40225006532172525,  0.57913216225555597,
    0.7764217611479276,   1.0099901692495821,   1.3180108973035367,   1.8627318674216511,
};

/* Flow bursts (docs/model.md, "Flow bursts"): the packets of a flow come
 * B in a row and RSS sends a flow to one queue, so while this core's queue
 * receives W packets the others receive a random number of them: W / B
 * bursts of its own, separated by a negative-binomial number of bursts of
 * the others, mean (S - 1) W and variance B W (S - 1) S.  A lognormal of
 * that mean and variance stands for it; the wait's survivals are its
 * mixture over MK_BURST_NODES equal-mass quantiles.  Returns 0 when there
 * is nothing to mix (no bursts, one core). */
static int burst_mix(ctx *x, double W, int need4, mk_wait *w)
{
    const mk_params *p = x->p;
    double B = p->burst, S = p->S;
    if (!(B > 1) || !(S > 1) || !(W > 0))
        return 0;
    double mean = W * (S - 1), cv2 = B * S / mean;   /* variance / mean^2 */
    double sigma = sqrt(log1p(cv2)), mu = log(mean) - sigma * sigma / 2;
    memset(w, 0, sizeof *w);
    for (int j = 0; j < MK_BURST_NODES; j++) {
        double others = exp(mu + sigma * burst_z[j]);
        mk_dist d;
        mk_wait wj;
        distances(x, W, 1 + others / W, &d);
        wait_probs(x, &d, need4, &wj);
        wait_add(w, &wj, 1.0 / MK_BURST_NODES);
    }
    return 1;
}

/* The survivals of a wait of W packets whose mean distances are d: at the
 * others' mean share, or mixed over their bursts. */
static void window_probs(ctx *x, double W, int need4, const mk_dist *d, mk_wait *w)
{
    if (!burst_mix(x, W, need4, w))
        wait_probs(x, d, need4, w);
}

void mk_window(ctx *x, double W, int need4, mk_dist *d, mk_wait *w)
{
    uint64_t bits;
    memcpy(&bits, &W, sizeof bits);
    bits ^= bits >> 29;
    bits *= 0x9E3779B97F4A7C15ull;
    size_t h = (size_t)(bits >> 52) % MK_DMEMO_SLOTS;
    for (size_t probe = 0; probe < MK_DMEMO_SLOTS; probe++) {
        struct dmemo *m = &x->dm[(h + probe) % MK_DMEMO_SLOTS];
        if (m->used == x->gen && m->W == W) {
            *d = m->d;
            if (need4 && !m->has4) {
                window_probs(x, W, 1, &m->d, &m->w4);
                m->has4 = 1;
            }
            *w = need4 ? m->w4 : m->w;
            return;
        }
        if (m->used != x->gen) {
            m->used = x->gen;
            m->W = W;
            distances(x, W, x->p->S, &m->d);
            window_probs(x, W, 0, &m->d, &m->w);
            m->has4 = 0;
            if (need4) {
                window_probs(x, W, 1, &m->d, &m->w4);
                m->has4 = 1;
            }
            *d = m->d;
            *w = need4 ? m->w4 : m->w;
            return;
        }
    }
    distances(x, W, x->p->S, d);   /* table full: no memo */
    window_probs(x, W, need4, d, w);
}

void mk_stage_wait(ctx *x, const mk_class *c, const stage *st, int need4, mk_wait *mix)
{
    double L = stage_len(x, st);
    double ext = st->extended && c->used < 1 ? c->used : 1;
    /* Appendix D.3: the line is unused for k cycles (probability
     * d (1-d)^k), so its wait spans k more cycles.  The survival
     * probabilities are mixed over k; the eviction matrix is built once
     * from the mixture (exact for one-copy states; for a state with an
     * LLC and an L2 copy the product of the mixtures stands for the
     * mixture of the products - docs/model.md). */
    memset(mix, 0, sizeof *mix);
    double mass = 0;
    mk_dist dprev = {-1, -1, -1, -1, 0};
    double qk = 1;      /* (1 - ext)^k */
    for (int k = 0; k <= MK_EXT_MAX; k++, qk *= 1 - ext) {
        double wk = ext * qk;
        mk_dist d;
        mk_wait w;
        mk_window(x, L + k * x->L_cycle, need4, &d, &w);
        int same = k > 0 && fabs(d.ddio - dprev.ddio) <= 1e-7 * (1 + d.ddio) &&
                   fabs(d.shared - dprev.shared) <= 1e-7 * (1 + d.shared) &&
                   fabs(d.l3 - dprev.l3) <= 1e-7 * (1 + d.l3) && fabs(d.l2 - dprev.l2) <= 1e-7 * (1 + d.l2);
        if (k == MK_EXT_MAX || same || ext >= 1 || qk * (1 - ext) < 1e-10)
            wk = 1 - mass;      /* the rest, at this (saturated) distance */
        wait_add(mix, &w, wk);
        mass += wk;
        if (mass >= 1 - 1e-15)
            break;
        dprev = d;
    }
}

/* ------------------------------------------------------------ reference lists */

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
void mk_reference_lists(ctx *x, chain *const *ch, cdist *const *cd)
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
