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
 *  - a changed link with a burst (the scenario's `burst`: a token bucket, as tc's tbf and
 *    the testbed cap a link) gives each host side a bucket of that many bytes, filled at
 *    newB: what it holds passes at the run's measured bandwidth, only the rest at newB, so
 *    bursts that fit in the bucket cost nothing more (without a burst the link is strict);
 *  - a receive is needed where the rank was when it arrived: at its arrival if the rank was
 *    idle (waiting), at the end of the busy phase it arrived in otherwise; the rank goes on
 *    at the later of its own time and the message's. With W the idle time the rank spent
 *    waiting just before (it would have spent it anyway) and S the time the message waited
 *    for the rank, D[r] = max(D[r] - W, D_msg - S);
 *  - except in an exchange: two ranks' messages to each other paired (the second leaving
 *    within 10 ms of the first's arrival), each rank first in at least a quarter of the
 *    pairs (a request and its reply start on one side), the second was posted with the
 *    receive of the first and left late only because its rank got to it late; the receive
 *    is then needed only once the second has left, so the send does not inherit it;
 *  - a rank that waited for the message (W > 0) and still waits in the replay (the message's
 *    term is the larger) on a node with k > 0 CPU-bound competitors gets the CPU only when
 *    they have used their time slices: D[r] = D_msg - S + wake, with wake =
 *    replay_wake_ns(k, slice, capacity). An MPI rank waiting for a message polls: it never
 *    sleeps, so the scheduler gives it no wake-up preemption, and the message finds the CPU
 *    with a competitor k / (k + 1) of the time, with k slices of it to go, k * slice / 2 on
 *    average; under a cgroup quota of capacity c a slice of CPU takes slice / c of wall time.
 *    The slice is the node's (collect records sched_slice_ns), else REPLAY_SLICE_NS.
 *
 * A rank's predicted time is its exec time plus its final D; the run's is the longest.
 * Under an empty scenario every D stays 0: the replay gives the dedicated time back. What it
 * does not see: work that moves between ranks (a master/slave farm hands fewer tasks to a
 * slow slave; paper 001 is the model for that), messages sent only because of timing, and
 * senders blocked by full socket buffers (every send is taken as buffered). */
#ifndef PREDICT_REPLAY_H
#define PREDICT_REPLAY_H

#include "predict/models.h"

/* The scheduler slice taken when the run's node meta has none: EEVDF's base_slice_ns
 * default (3 ms, Linux 6.6 on) and CFS's sched_min_granularity_ns order before it. */
#define REPLAY_SLICE_NS 3000000.0

/* The expected delay before a polling rank that shares its CPU with k CPU-bound competitors
 * runs again once its message arrives: k / (k + 1) * k * slice_ns / 2, divided by the CPU
 * capacity (in (0, 1]; anything else is 1). 0 for k <= 0. */
double replay_wake_ns(int k, double slice_ns, double capacity);

/* The model: needs messages.tsv and phases.tsv. Returns 0 (r->status says whether it
 * applied) or negative with e set. */
int replay_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e);

#endif
