/* run003: paper 003's model (p003.h) applied to a parsed run: the registry's "p003", and
 * what p000 and the scope gate share with it (a link's token bucket, a node's speed). */
#ifndef PREDICT_RUN003_H
#define PREDICT_RUN003_H

#include "lib/err.h"
#include "predict/models.h"
#include "predict/profile.h"
#include "predict/scenario.h"

/* A changed link's token bucket (the scenario's `burst`, as the replay reads it,
 * predict/replay.h): each direction of a [link] section is a bucket of burst_bytes filled
 * at the link's new bandwidth (p003_link_new) and full at the start; a message takes the
 * tokens it finds at its dedicated start time and those bytes pass at the run's measured
 * bandwidth, only the rest at the new one. The buckets are per host pair and direction, so
 * the rank pairs of two hosts draw on the same one; the messages keep their dedicated times
 * (a slower link would leave more time to refill: the bucket saves at least this much).
 * A bucket acts only where the new bandwidth is below the measured one.
 *
 * run003_link_fast: *fast (per message, owned by the caller, free()) the bytes that pass at
 * the measured bandwidth, 0 for the rest. Returns 0 and *fast NULL when no link of s has a
 * bucket that acts on p; 1 with *fast set; -1 with *fast NULL and *burst_link the first
 * such link when p has no messages (messages.tsv) to tell which fit. */
int run003_link_fast(const struct prof *p, const struct scen *s, double **fast, const struct scen_link **burst_link);

/* The first rank of p whose node or rank section changes its speed (`speed`, paper 004's
 * delta, != 1), or NULL. p003, p000 and p001 do not model a node's speed: they say they do
 * not apply rather than leave it out. */
const struct prof_rank *run003_speed_changed(const struct prof *p, const struct scen *s);

/* The registry's model: every rank of the run under the scenario, the run being the
 * slowest rank (the paper's one-node result applied to each node, then the max). Idle time
 * that is sleep earns the scheduler's credit in the share s->sleep_credit. */
int run003_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e);

#endif
