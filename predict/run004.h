/* run004: paper 004 (Peterson & Chamberlain, synchronous iterative programs under shared
 * load) applied to a parsed run: the iterations detected in the trace (I, t_serial, t_PAR_WK,
 * t_overhead, eta measured), eta under the scenario's background load (processor sharing or
 * M/G/1 with hyperexponential service per node, eq. 11), R_P (eq. 5), and processor
 * selection (Figure 5, greedy, eq. 35 and its constrained forms). docs/predict.md. */
#ifndef PREDICT_RUN004_H
#define PREDICT_RUN004_H

#include "lib/err.h"
#include "predict/models.h"
#include "predict/profile.h"
#include "predict/scenario.h"

#define RUN004_DELTA 20		/* baseline time per unit work: speeds are resolved to 1/20 */

/* The model (struct model's predict). Rows: "factor" iterations (value I) and eta (value:
 * eta under the scenario), "node" per loaded rank (added_ns: R_P with only that rank
 * loaded, minus the dedicated R_P; value: its expected background slowdown E[gamma]).
 * Refuses without messages or busy phases, when no periodic pattern is found, or when a
 * node's background utilisation is 1 or more. */
int run004_predict(const struct prof *p, const struct scen *s, struct pred_result *r,
		   struct err *e) WUR;

/* The selector: the pool is the scenario's [select] candidates, else the run's hosts and the
 * hosts of [node] sections; one processor per host. policy: "fig5" (sort by background
 * slowdown, add while R_P falls), "greedy" (sort by expected slowdown delta E[gamma] / Delta),
 * "cost" (minimise eq. 35 with [policy] x and each node's cost), "goal" (least cost with the
 * predicted time within [policy] deadline), "budget" (least time with cost within [policy]
 * budget); NULL: greedy, or fig5 when every speed is equal. Rows "set": the chosen set
 * first, then every prefix of the key order ranked by the objective. */
int run004_select(const struct prof *p, const struct scen *s, const char *policy,
		  struct pred_result *r, struct err *e) WUR;

#endif
