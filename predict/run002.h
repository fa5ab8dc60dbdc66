/* run002: paper 002 (Zhang & Yan, heterogeneous networks of workstations) applied to a parsed
 * run: power weights from per-rank busy time (or the scenario's serial_time), heterogeneity
 * H, parallelism degree P_deg from the busy phases, speedup and efficiency of the run, and a
 * prediction under the scenario's changed weights (docs/predict.md). */
#ifndef PREDICT_RUN002_H
#define PREDICT_RUN002_H

#include "lib/err.h"
#include "predict/models.h"
#include "predict/profile.h"
#include "predict/scenario.h"

/* The model (struct model's predict). Rows: "node" per rank (value: its power weight in the
 * run; added_ns: what its changed weight alone adds), "factor" H, P_deg, speedup and
 * efficiency (value: the run's; detail: also under the scenario). Refuses without busy
 * phases, or when a rank shows no busy time and the scenario gives no serial_time. */
int run002_predict(const struct prof *p, const struct scen *s, struct pred_result *r,
		   struct err *e) WUR;

#endif
