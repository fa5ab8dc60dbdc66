/* run000: paper 000's model (p000.h) applied to a parsed run: the registry's "p000". */
#ifndef PREDICT_RUN000_H
#define PREDICT_RUN000_H

#include "lib/err.h"
#include "predict/models.h"
#include "predict/p000.h"
#include "predict/profile.h"
#include "predict/scenario.h"

/* The registry's model: local slowdown per rank (eq. 2), aggregate slowdown by the
 * scenario's partitioning policy (eq. 5, 8/9 or 11), communication slowdown per changed
 * link (eq. 3). d: the delay_comm curves the scenario chose. */
int run000_predict_with(const struct prof *p, const struct scen *s, const struct p000_delay *d,
			struct pred_result *r, struct err *e);
/* The same with the curves the scenario names (p000_scenario_curves). */
int run000_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e);

#endif
