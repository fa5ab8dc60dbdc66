/* replay: predict a run by replaying its own message trace under the scenario (beyond the
 * papers; docs/predict.md, "replay").
 *
 * Paper 003 adds each rank's extra CPU and link time on its own and takes the slowest rank;
 * its Section 5 says that loads on several nodes and links need the program's
 * synchronisation structure. The trace has it: every message says who waited for whom. The
 * replay keeps each rank's order of sends and receives and its CPU time between them, and
 * follows how late each rank and each message runs:
 *
 *  - D[r], how late rank r is against the dedicated run; between two of its events its busy
 *    time (phases.tsv) is stretched by f = (k + 1) / capacity on a node with k CPU-bound
 *    competitors (1 + load average for a load average; no credit for sleep), so D grows by
 *    busy * (f - 1);
 *  - a send leaves D[r] late; on an unchanged link the message arrives as late; on a changed
 *    link it takes newL plus its bytes at the max-min fair rate it gets among the transfers
 *    in flight (predict/fluid.h) across its host's sending and its peer's receiving side (a
 *    slower link is a host's NIC: its sends share it, so do its receives; the two
 *    directions do not); the departures come from a first replay with FIFO queues, and the
 *    replay is rerun with the shared finishing times until the departures settle;
 *  - a receive is needed where the rank was when it arrived: at its arrival if the rank was
 *    idle (waiting), at the end of the busy phase it arrived in otherwise; the rank goes on
 *    at the later of its own time and the message's. With W the idle time the rank spent
 *    waiting just before (it would have spent it anyway) and S the time the message waited
 *    for the rank, D[r] = max(D[r] - W, D_msg - S).
 *
 * A rank's predicted time is its exec time plus its final D; the run's is the longest.
 * Under an empty scenario every D stays 0: the replay gives the dedicated time back. What it
 * does not see: work that moves between ranks (a master/slave farm hands fewer tasks to a
 * slow slave; paper 001 is the model for that), messages sent only because of timing, and
 * senders blocked by full socket buffers (every send is taken as buffered). */
#ifndef PREDICT_REPLAY_H
#define PREDICT_REPLAY_H

#include "predict/models.h"

/* The model: needs messages.tsv and phases.tsv. Returns 0 (r->status says whether it
 * applied) or negative with e set. */
int replay_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e);

#endif
