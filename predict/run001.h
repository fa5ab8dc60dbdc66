/* run001: paper 001 (Shao, Berman & Wolski, master/slave work rates) applied to a parsed run.
 *
 * Detects the master/slave message pattern, derives Table 1's parameters from the trace
 * (p001_derive), builds the ENV graph G from RUN/topology.dot or, without one, a flat graph
 * from the run's netparams, and predicts the run under a scenario with the simulator of
 * Section 4.5; --select ranks the candidate masters by AppRate and picks slaves (Section 4.6).
 * docs/predict.md says what each row means and when the model refuses. */
#ifndef PREDICT_RUN001_H
#define PREDICT_RUN001_H

#include <stddef.h>

#include "lib/err.h"
#include "predict/p001.h"
#include "predict/models.h"
#include "predict/profile.h"
#include "predict/scenario.h"

/* Share of all messages that may pass between slaves (collectives at start-up and
 * shut-down) before a run stops counting as master/slave. */
#define RUN001_SLAVE_TRAFFIC_MAX 0.05

/* Whether the run has the master/slave pattern: one rank exchanges messages with every other
 * rank in both directions, and the others exchange (almost) nothing with each other. Uses
 * links.tsv, else messages.tsv. Returns 1 with *master set, or 0 with why (a sentence
 * naming the ranks that break the pattern) filled. */
int run001_ms_pattern(const struct prof *p, int *master, char *why, size_t whylen);

/* Whether paper 001 applies to the run, the one test the model and the report share: the
 * master/slave pattern (run001_ms_pattern), a hub that answers requests rather than swaps
 * data, at least two hand-out/result cycles per slave and slave busy time between them.
 * Returns 1 with d filled from the trace (d->master the master; release with
 * p001_derived_release), 0 with why filled and d zeroed, or negative with e set. */
int run001_derive(const struct prof *p, struct p001_derived *d, char *why, size_t whylen,
		  struct err *e) WUR;

/* The model (struct model's predict). Rows: "factor" Table 1 values and the graph, "rate"
 * AppRate per candidate master (eqs. 1-5, 2), "node" each slave's idle time (value, s),
 * "util" each resource's utilisation (value, 0..1). */
int run001_predict(const struct prof *p, const struct scen *s, struct pred_result *r,
		   struct err *e) WUR;

/* The selector (struct selector's select): rows "master" (every candidate by AppRate, the
 * best first) and "slave" (the selected slaves); predicted_ns the simulated run with them.
 * Candidates: the scenario's [select] candidates, else every host of the run; a [select]
 * master fixes the master. policy must be NULL. */
int run001_select(const struct prof *p, const struct scen *s, const char *policy,
		  struct pred_result *r, struct err *e) WUR;

#endif
