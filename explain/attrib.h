/* attrib: a slow run's time split among its causes, each cost a counterfactual replay.
 *
 * Causes (docs/explain.md):
 *  - cpu: CPU taken by other processes on a node. Each rank on it loses the run-queue wait
 *    of its busy phases (schedstat, measured directly); the counterfactual shortens its busy
 *    phases by that wait (with a baseline: by the wait above the baseline's; without one,
 *    by the wait beyond what its own CPU limit, shared with its node's ranks as busy as
 *    they were, imposes), and takes out the wake-up delay (predict/replay.h) of each
 *    receive that found it waiting, for the competitors that wait implies, at the
 *    receive; a delay the samples put inside a busy phase is left out of the phase's
 *    shortening (counted once). With a baseline, a rank's own work beyond the same rank's
 *    there is no work of the program (waiting that read busy, or work the competitor
 *    slowed): it is out of every rank's own work, and a rank behind competitors loses it
 *    with its node's cause. A rank without competitors was waiting: that busy time, and
 *    the run-queue wait its own CPU limit put on it, is read as waiting in every replay
 *    (where the rank's busy time grew: before receives it waited for, and before sends),
 *    so it goes with whatever made the rank wait, and is no cpu cause of its node; so does
 *    the rest of its time between its events that grew with its waits over the baseline
 *    (its gaps, its busy time outside the waits), in proportion as a replay shortens
 *    them (replay_in free_f; not in the ideal run, which takes it out as work). A
 *    rendezvous to a rank behind competitors that was busy after its first byte came
 *    waited for that rank, as long as it was busy: it comes as soon as the rank gets to
 *    the receive.
 *  - link: a slow or shared link between two hosts. Each large message's time on the wire
 *    against its rank pair's reference for its size (with a baseline: the baseline's
 *    throughput at the message's place among the pair's messages of its size class;
 *    without one, what a tenth of them reached here); the counterfactual sends every one
 *    at its reference, and a sender that waited before a send while its earlier messages
 *    on the link were still on the wire (the queue), or right after the last of them for
 *    the cap's token bucket, waits that much less. A smaller message that took over
 *    EVID_QUEUED_NS (and its pair's fastest time) longer than the pair's fastest plus its
 *    bytes at the pair's throughput (evid_pair best_Bps) waited in a queue on the way
 *    (with both ends captured its arrival is the receiver's): it comes that much sooner.
 *  - imbalance: ranks waiting for a rank that was late for its own reasons. Own work is
 *    busy time minus run-queue wait; the counterfactual gives every rank the mean (with a
 *    baseline the cost is what exceeds the baseline's own imbalance cost; a cost below 0,
 *    the ranks balanced replaying slower, is none).
 *  - startup, finish: time before the first message and after the last (with a baseline:
 *    what exceeds its; less, for the start-up, what the cpu causes take off it: the ranks
 *    leave it together, as the slowest is done, and a cause shortens it as it shortens
 *    that rank's busy time in it and, for a rank behind competitors, its launch (its first
 *    CPU sample after the run's first, against the baseline's) and its idle time there,
 *    at the pace of its gaps).
 *
 * A cause's cost is the measured time minus the replay of the trace with that cause alone
 * taken out (predict/replay.h, REPLAY_MEASURED). With every cause taken out the replay gives the ideal
 * time T0, so that measured = T0 + sum of costs + interaction exactly; the interaction is
 * what the causes cost together beyond their sum (negative when they overlap). T0 is then
 * split into the ranks' own work and the residual: what no named cause explains (without
 * a baseline: communication at the links' references, latency, anything unseen; with
 * one: T0 minus the baseline's time). */
#ifndef EXPLAIN_ATTRIB_H
#define EXPLAIN_ATTRIB_H

#include <stdbool.h>

#include "explain/evidence.h"
#include "lib/err.h"
#include "predict/profile.h"

#define ATTR_MAX_LINKS 64	/* host pairs replayed one by one (the largest savings first) */
#define ATTR_MAX_CPU 64		/* loaded hosts replayed one by one (the most run-queue wait
				 * first) */
#define ATTR_MAX_SHAPLEY 10	/* cpu causes shared out by replaying every subset (2^n) */
#define ATTR_SHAPLEY_EVENTS 100000000L	/* ... while the 2^n - 1 replays take at most this
					 * many events in all (a few seconds) */

enum attr_kind {
	ATTR_CPU,
	ATTR_LINK,
	ATTR_IMBALANCE,
	ATTR_STARTUP,
	ATTR_FINISH,
};

struct attr_cause {
	enum attr_kind kind;
	char where[200];	/* "c3ws2 (rank 1)", "c3ws1-c3ws2 (ranks 0, 1)", "rank 3" */
	char host[PROF_HOST_MAX];	/* cpu: the host; link: one end; else "" */
	char host2[PROF_HOST_MAX];	/* link: the other end; else "" */
	int rank;		/* imbalance: the late rank; cpu: the rank that waited most; -1 */
	double cost_ns;		/* measured time minus the run with this cause taken out */
	double share_ns;	/* cpu: its share of every node's cpu cost taken out together
				 * (Shapley value over the nodes, up to ATTR_MAX_SHAPLEY of
				 * them and ATTR_SHAPLEY_EVENTS replayed); NAN */
	bool uncertain;		/* the trace is partial where the cause lies: hidden rank pairs
				 * on its node, gaps in the capture (said in evidence) */
	char evidence[400];	/* what was measured, for people */
};

/* One rank's time split (for the report): start-up (up to its first message), then own
 * work, CPU taken by others (busy-phase run-queue wait), waiting on the network (its
 * messages' time over the pair's best) and waiting on other ranks (the rest). */
struct attr_rank {
	int rank;
	double exec_ns, startup_ns, work_ns, cpu_wait_ns;
	double net_ns;		/* waiting on the network: its messages' time over the best */
	double others_ns;	/* waiting on other ranks: exec - work - cpu_wait - net - startup */
};

struct attr_result {
	double measured_ns;	/* the run's time: the longest rank's exec_ns */
	double baseline_ns;	/* the baseline's, NAN without one */
	double ideal_ns;	/* T0: every cause taken out */
	double work_ns;		/* own work per rank between the first and the last message
				 * (the mean): what the ideal run cannot do without */
	double causes_ns;	/* sum of the causes' costs */
	double observer_ns;	/* what collect's agents held the start-up (evid start_hold_ns)
				 * beyond the baseline's: the observer's, not a cause of the
				 * program's, so not ranked among them nor in causes_ns */
	char observer_evidence[240];	/* "" when the run's meta does not say */
	double interaction_ns;	/* measured - ideal - causes - observer */
	double residual_ns;	/* see above */
	double cpu_all_ns;	/* every node's cpu cause taken out together, NAN when < 2 */
	double link_all_ns;	/* every link's, NAN when < 2 */
	bool replayed;		/* the run had messages and busy phases */
	int n;
	struct attr_cause *c;	/* owned, biggest cost first */
	int nranks;
	struct attr_rank *ranks;	/* owned, as p->ranks */
	char note[800];		/* caveats worth printing, "" none: a partial trace first */
};

/* Explain run p (evidence v); bp, bv the baseline run or NULL. Returns 0, or -E_FORMAT
 * with e set when the run has no rank with an exec time. Free r with attr_result_free
 * (also after a failure). */
int attr_explain(const struct prof *p, const struct evid *v, const struct prof *bp, const struct evid *bv,
		 struct attr_result *r, struct err *e) WUR;
void attr_result_free(struct attr_result *r);

/* "cpu", "link", "imbalance", "startup", "finish". */
const char *attr_kind_name(enum attr_kind k);

#endif
