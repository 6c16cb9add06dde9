/* evidence.h - the queues seen from outside the cache (private to
 * validate/): the measured forwarding rate and mean latency of a point
 * against each engine's, in the validate report.
 *
 * Latency is compared as its excess over the experiment's fastest point
 * (the point of least measured mean latency; or its series'): the measured latency
 * includes the generator's and the wire's, the engines' only the server's,
 * and the excess is what the server's queues add.  By Little's law an
 * excess of L us at R Mpps is L x R packets more in the server. */
#ifndef DDIOSIM_VALIDATE_EVIDENCE_H
#define DDIOSIM_VALIDATE_EVIDENCE_H

#include <stddef.h>

#include "validate/report.h"
#include "validate/text.h"

/* The index of the point of least measured mean latency among point i's
 * peers: every point of experiment e, or those of i's series when e says
 * evidence.latency_baseline "series" (the generator's own latency moves
 * with what a series varies, e.g. the packet size); e->n when none
 * measured one. */
size_t vd_fastest_point(const vd_experiment *e, size_t i);

/* One point: measured, simulated and modelled rate (Mpps) and latency
 * excess (us); NAN where not measured or not predicted. */
typedef struct vd_ev_row {
    double mpps[3];             /* measured, sim, model */
    double excess_us[3];
} vd_ev_row;
void vd_evidence_row(const vd_set *s, size_t x, size_t i, vd_ev_row *r);

/* Append experiment x's block (nothing when it measured no evidence): a
 * row per point and a line of statistics; md: as a Markdown table. */
void vd_evidence_block(vd_buf *b, const vd_set *s, size_t x, int md);

#endif
