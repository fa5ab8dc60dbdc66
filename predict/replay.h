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
 *    directions do not); the replay and the sharing move on together, in time order: each
 *    rank goes through its events as far as what it receives is known, a changed-link send
 *    starts its transfer when the sharing's clock reaches its departure, and a transfer's
 *    end lets its receiver go on (one schedule: there are no passes to settle);
 *  - a changed link with a burst (the scenario's `burst`: a token bucket, as tc's tbf and
 *    the testbed cap a link) gives each host side a bucket of that many bytes, filled at
 *    newB: what it holds passes at the run's measured bandwidth, only the rest at newB, so
 *    bursts that fit in the bucket cost nothing more (without a burst the link is strict);
 *  - a receive takes its place among the rank's events where the rank was when it arrived:
 *    at its arrival if the rank was idle (waiting), at its next send or the end of the
 *    busy phase it arrived in otherwise; the rank goes on at the later of its own time and
 *    the message's. With W the idle time the rank spent waiting just before (it would have
 *    spent it anyway), D[r] = max(D[r] - W, D_msg): a rank polls inside MPI while it waits,
 *    which the samples read as busy, so a message that came in a busy phase was waited for
 *    all the same (with the PMPI truth, the receiver was inside a waiting MPI call when
 *    83-96 % of the messages of six third-party programs arrived), and its lateness is not
 *    the rank's slack; but a collective's message may come before its receiver enters the
 *    collective, at its next send: it keeps S, the time from the arrival to the receive's
 *    place, D[r] = max(D[r] - W, D_msg - S), as every message does in explain's
 *    REPLAY_MEASURED reading;
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

/* The grain of the busy phases: CPU samples every 20 ms make a phase start up to one
 * interval before what started it. */
#define REPLAY_GRAIN_NS 20000000LL

/* The scheduler slice taken when the run's node meta has none: EEVDF's base_slice_ns
 * default on a node of 8 CPUs or more (0.75 ms x (1 + log2 of the CPUs, at most 8): 1.5 ms
 * on 2, 3 ms from 8; Linux 6.6 on), and CFS's sched_min_granularity_ns order before it.
 * docs/validation.md ("The slice's size") measures how much the choice moves. */
#define REPLAY_SLICE_NS 3000000.0

/* The expected delay before a polling rank that shares its CPU with k CPU-bound competitors
 * runs again once its message arrives: k / (k + 1) * k * slice_ns / 2, divided by the CPU
 * capacity (in (0, 1]; anything else is 1). 0 for k <= 0. */
double replay_wake_ns(int k, double slice_ns, double capacity);

/* The model: needs messages.tsv and phases.tsv. Returns 0 (r->status says whether it
 * applied) or negative with e set. */
int replay_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e);

/* The engine, shared by replay_predict and by `contend explain` (explain/attrib.h), which
 * replays a loaded run with causes taken out: a trace built once (the events in time
 * order, each rank's busy phases), then one replay per change. */

/* Which run the trace is, and so how its receives are read. */
enum replay_kind {
	REPLAY_DEDICATED,	/* predict: W is the last idle stretch before the receive; a
				 * send within REPLAY_GRAIN_NS of an arrival, inside the busy
				 * phase it came in, replies to it (1 ms on a rank without a
				 * whole CPU: replay.c REPLAY_REPLY_NS) */
	REPLAY_MEASURED,	/* explain (docs/explain.md, "Method"): W is every idle stretch since
				 * the rank's previous event; a message arriving in a busy phase
				 * between two sends of its receiver, both within REPLAY_GRAIN_NS,
				 * was waited for (W all the time since), and so was one its
				 * receiver replied to, sending next within REPLAY_GRAIN_NS and
				 * inside that phase (W its idle time since); the idle time before
				 * a send that is not W is the rank's gap, scaled by replay_in
				 * gap_f */
};
/* Only predict's reading (REPLAY_DEDICATED) takes an exchange's receive after the rank's
 * own half (the exchange rule above); explain's (REPLAY_MEASURED) chains it, which was
 * closer on real programs (docs/explain.md, "Exchanges"). */

struct replay_ev;		/* one send or receive (replay.c) */

/* The trace's caps: message and busy phase indices are held in 32 bits, a rank's index in
 * 29 (struct replay_ev). prof_load keeps fewer (PROF_MAX_MSGS, PROF_MAX_BUSY,
 * PROF_MAX_RANKS); replay_fits checks a profile made otherwise. */
#define REPLAY_MAX_MSGS INT32_MAX
#define REPLAY_MAX_BUSY INT32_MAX
#define REPLAY_MAX_RANKS ((1 << 29) - 1)

struct replay_trace {
	const struct prof *p;	/* borrowed: must outlive the trace */
	enum replay_kind kind;
	long nev;		/* sends and receives between two known ranks */
	struct replay_ev *ev;	/* owned, [nev] in replay order */
	int64_t *need_ns;	/* owned, [p->nmsgs] when each receive was needed (unset for
				 * messages that are not between two known ranks) */
	double *wait_ns;	/* owned, [p->nmsgs] each receive's W (replay.c) */
	double *gap_ns;		/* owned, [nev] REPLAY_MEASURED: each event's gap; NULL for
				 * REPLAY_DEDICATED */
	double *next_ns;	/* owned, [p->nmsgs] REPLAY_MEASURED: for a receive whose
				 * rank's next event is a receive too, how long after its
				 * arrival that message came, else INFINITY (replay_in wake_ns:
				 * one wake-up for both); NULL for REPLAY_DEDICATED */
	int *host;		/* owned, [p->nranks] index of the rank's host */
	int nhosts;
	double *busy_ns;	/* owned, [p->nranks] each rank's busy time */
	double *lead_ns;	/* owned, [p->nranks] how long before its own rendezvous request
				 * each rank may have posted the receive of its peer's (replay.c
				 * answer_lead_ns) */
};

/* 0 when p is within the trace's caps (REPLAY_MAX_*), else negative with e set. */
int replay_fits(const struct prof *p, struct err *e) WUR;

/* What one replay changes; a NULL array changes nothing. */
struct replay_in {
	const double *busy_f;	/* [nranks] factor on the rank's busy time: > 1 stretched
				 * (competitors), < 1 shrunk (run-queue wait taken out) */
	const double *wake_ns;	/* [nranks] > 0: the delay of a receive the rank waited for and
				 * still waits for in the replay (replay_wake_ns); < 0: the delay
				 * the measured run had, taken out of every receive that found
				 * the rank waiting (REPLAY_MEASURED), once a wake-up: not of one
				 * whose rank's next event receives a message that came within
				 * that delay of it (replay_trace next_ns; the rank, woken for
				 * the first, found the second there) */
	const double *gap_f;	/* [nranks] factor on the rank's gaps (REPLAY_MEASURED) */
	const double *poll_f;	/* [nranks] REPLAY_MEASURED: the share of the busy time between
				 * the rank's previous event and a receive that found it waiting
				 * (W > 0, or needed on arrival with no idle time since that
				 * event; not an answer) that was waiting too (a polling loop
				 * read busy, REPLAY_SPLIT_WAITED): it joins W, so it goes when
				 * the message comes sooner; NULL none */
	const double *lat_ns;	/* [nmsgs] the changed link's latency, NAN on an unchanged one */
	const double *bw_Bps;	/* [nmsgs] its bandwidth, NAN on an unchanged link; both or
				 * neither of lat_ns and bw_Bps */
	const double *msg_dt_ns;	/* [nmsgs] change of the message's time on the wire, on
					 * an unchanged link */
	const double *send_dt_ns;	/* [nmsgs] change of the time the sender took to get to
					 * the send (its gap, the busy time before it): < 0 a
					 * wait taken out; the message leaves that much sooner */
	const double *burst_B;	/* [nmsgs] the changed link's token bucket, bytes (0 or NULL: a
				 * strict rate); it passes at the run's measured bandwidth */
	const double *start_ns;	/* [nranks] how late the rank starts (its D before its first
				 * event): a start-up the trace cannot replay made shorter (< 0)
				 * or, for what the rank's own busy time before its first event
				 * gives back, not (explain's start-up, docs/explain.md); NULL 0 */
	const uint8_t *rndv;	/* [nmsgs] nonzero: a rendezvous whose last bytes leave only once
				 * its receiver has got to the receive; it arrives no sooner than
				 * that, however much sooner it could leave (msg_dt_ns); NULL none */
	const double *size_B;	/* [nmsgs] what a changed-link transfer moves, in the bytes of
				 * bw_Bps (scen_link_wire_bytes: the frames' headers and the
				 * MPI's); NULL the message's bytes */
	const double *free_f;	/* [nranks] REPLAY_MEASURED: of a rank whose time that is not
				 * waiting grew with its waits (docs/explain.md, "Time that grows
				 * with the wait"), how much sooner it goes on per ns the replay
				 * takes off one of its waits (W at a receive), beyond that ns;
				 * NULL none */
	const double *free_max_ns;	/* [nranks] the most free_f gives the rank in all (what
					 * grew); NULL no limit */
};

struct replay_out {
	double run_ns;		/* the slowest rank's exec_ns + D; 0 without ranks */
	int worst;		/* its index in p->ranks, -1 */
	double *late_ns;	/* the caller's [nranks] array or NULL: each rank's D at its end */
	long nchanged;		/* messages on changed links */
	long nwoke;		/* receives given a wake-up delay (in the last replay) */
};

/* Build the trace of p (messages between two known ranks; busy phases from p->busy).
 * Cannot fail for a p within the caps (replay_fits: every profile prof_load gives; past
 * them it is a BUG); a run without messages replays its busy time alone. Free with
 * replay_trace_free (accepts a zeroed struct). */
void replay_trace_init(struct replay_trace *t, const struct prof *p, enum replay_kind kind);
void replay_trace_free(struct replay_trace *t);

/* Replay t with in's changes (in may be NULL) into out. Returns 0, or negative with e set
 * when the fair sharing of changed links fails; out is filled either way. */
int replay_run(const struct replay_trace *t, const struct replay_in *in, struct replay_out *out,
	       struct err *e) WUR;

/* Where a rank's busy time lies: between its previous event and (busy_ns[rank index *
 * REPLAY_SPLIT_N + one of these], the caller's array) ... */
enum {
	REPLAY_SPLIT_WAITED,	/* a receive that found it waiting (W > 0, or needed on
				 * arrival; not an answer): where replay_in poll_f applies */
	REPLAY_SPLIT_ANSWER,	/* an answer (REPLAY_MEASURED: its W holds that busy time) */
	REPLAY_SPLIT_BUSY,	/* a receive that found it busy with earlier work (W 0, needed
				 * at its next send or the phase's end) */
	REPLAY_SPLIT_SEND,	/* a send */
	REPLAY_SPLIT_N
};
void replay_busy_split(const struct replay_trace *t, double *busy_ns);

/* Per message (the caller's [nmsgs] arrays), what lies before its send: its sender's
 * previous event (from_ns, INT64_MIN none; also for messages not between two known
 * ranks), its gap (REPLAY_MEASURED, else 0) and the busy time since that event. */
void replay_send_spans(const struct replay_trace *t, int64_t *from_ns, double *gap_ns, double *busy_ns);

/* An upper bound of what replay_run can give for t under in (busy_f, wake_ns, lat_ns and
 * bw_Bps read; in may be NULL): the dedicated time with every busy phase at the largest
 * stretch, plus every receive's positive wake-up delay, plus every transfer on a changed
 * link twice (its sending and its receiving side) at the capacity of the slower of its two
 * host sides (the slowest changed link on each, as the replay shares them) with its new
 * latency, one after another. Delays add along the run's chains of events and no chain
 * holds an event twice, so a result above it is the replay's fault, not a slow run. */
double replay_bound_ns(const struct replay_trace *t, const struct replay_in *in);

/* What the order of rendezvous exchanges could add on the scenario's changed links. A
 * rendezvous message's data leave only once its receiver has answered, and over TCP that
 * answer travels in the receiver's own stream, behind what that stream is sending: when two
 * ranks exchange rendezvous messages both ways at once, a rank that pushes its own data
 * before it answers the other's request makes the pair go one after the other instead of
 * side by side, and which it does depends on which control record it handles first
 * (docs/validation.md, "MPB under the cap"), which the samples do not show. The replay takes
 * every pair side by side; this is what it would cost if every pair went one after the
 * other: over the pairs of rendezvous messages (messages.tsv proto rndv-put or rndv-frag)
 * between two hosts whose link the scenario changes, each message paired with one of the
 * other way that was still in flight when it began in the run, the shorter one's time on
 * the changed link (its frames beyond the link's bucket at the new bandwidth), summed per
 * changed link; the largest sum, in ns (0 when there is none). */
double replay_race_ns(const struct prof *p, const struct scen *s);

/* The guard on a result: 0 with r untouched when run_ns is at most bound_ns
 * (replay_bound_ns); above it, r says the replay does not apply, with both numbers, and
 * the return is pred_na's. */
int replay_check_bound(struct pred_result *r, double run_ns, double bound_ns);

/* replay_wake_ns for rank i (index in p->ranks) behind k CPU-bound competitors: the slice
 * its node's meta recorded (RUN/meta/node-HOST.tsv sched_slice_ns) or REPLAY_SLICE_NS, and
 * capacity, or when it is NAN the one its rank meta recorded (cpu_capacity, else 1). */
double replay_rank_wake_ns(const struct prof *p, int i, int k, double capacity);

#endif
