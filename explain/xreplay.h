/* xreplay: the run's own trace replayed with a cause taken out, for `contend explain`.
 *
 * predict/replay.h goes from a dedicated run to a loaded one, so it only ever adds time.
 * A post-mortem goes the other way: a rank's busy phases get shorter (its run-queue wait
 * taken out, its own work set to the others'), a message arrives sooner (its link at the
 * best throughput the pair reached). The bookkeeping is the same as predict's replay
 * (docs/predict.md, "replay"): D[r], how late rank r runs against the measured trace; busy
 * time scaled by f moves D by busy * (f - 1), f < 1 included; a send leaves D[r] late, the
 * message arrives D[r] + dt late; a receive that waited W idle before the message and where
 * the message waited S for the rank gives D[r] = max(D[r] - W, D_msg - S), W all the idle
 * time since the rank's previous event. Idle time before a send (and before a receive
 * that came while the rank was busy with earlier work) is the rank getting there: a reply
 * after a message handled in system calls reads idle by demand, yet a rank whose CPU was
 * taken answers late; it is scaled like busy time, by its own factor. The replayed
 * run is the longest rank's exec_ns + D; with nothing changed it is the measured time.
 *
 * Everything that does not depend on the change (the events in time order, W, S, the busy
 * time before each event) is worked out once by xrep_init, so a replay is one pass. */
#ifndef EXPLAIN_XREPLAY_H
#define EXPLAIN_XREPLAY_H

#include <stdint.h>

#include "lib/err.h"
#include "predict/profile.h"

/* A message that came while its receiver was busy, later than this after the phase began,
 * was needed at the phase's end: the CPU samples' grain (20 ms) blurs a phase's start. */
#define XREP_GRAIN_NS 20000000LL

struct xrep_ev {
	int64_t t_ns;		/* measured time: departure, or when the receive was needed */
	long msg;		/* index into prof->msgs */
	int rank;		/* index into prof->ranks */
	int recv;		/* 0 send, 1 receive */
	int answer;		/* recv: came in a busy phase between a send and the next, both
				 * within XREP_GRAIN_NS of it: the rank was waiting for it */
	double busy_ns;		/* the rank's busy time before t_ns */
	double wait_ns;		/* recv: W, the rank sat idle for it just before */
	double slack_ns;	/* recv: S, the message waited for the rank */
	double gap_ns;		/* idle time since the rank's previous event that was not W: the
				 * rank getting to this send (processing what it received, in
				 * system calls that read idle by demand), scaled by idle_f */
};

struct xrep {
	const struct prof *p;	/* borrowed: must outlive the xrep */
	double *busy_ns;	/* [p->nranks] each rank's total busy time */
	long nev;
	struct xrep_ev *ev;	/* owned, in replay order */
};

/* The changes of one counterfactual; NULL arrays change nothing. */
struct xrep_change {
	const double *busy_f;		/* [p->nranks] factor on the rank's busy time (>= 0) */
	const double *msg_dt_ns;	/* [p->nmsgs] change of the message's time on the wire */
	const double *idle_f;		/* [p->nranks] factor on the rank's gaps (xrep_ev gap_ns) */
};

/* Build the events of p (messages between two known ranks; busy phases from phases.tsv).
 * Cannot fail; a run without messages replays its busy time alone. Free with xrep_free. */
void xrep_init(struct xrep *x, const struct prof *p);
void xrep_free(struct xrep *x);

/* The run time, ns, with c applied (c may be NULL); late_ns, when not NULL, gets [nranks]
 * each rank's D at its end. */
double xrep_run(const struct xrep *x, const struct xrep_change *c, double *late_ns);

#endif
