/* fluid: flows sharing capped resources, max-min fair (the flow-level network model that
 * SimGrid validated for TCP: Velho & Legrand, "Accuracy study and improvement of network
 * simulation in the SimGrid framework", SIMUTools 2009).
 *
 * Each flow has a start time, a size and up to two resources it crosses (a host's sending
 * and receiving side); each resource a capacity. While a set of flows is active, their
 * rates are the max-min fair allocation (progressive filling: the resource with the
 * smallest fair share fixes the rates of its flows, which are then taken out of the others,
 * and so on); the rates change only when a flow starts or ends. A flow alone on its
 * resources moves at the smallest of their capacities; two flows starting together on one
 * resource end together, at twice one's time; a short flow that starts behind a long one is
 * not held up behind it (as it would be in a FIFO queue) but shares the capacity, unless
 * it is the same stream's (a later message of one TCP connection): that one waits for the
 * flow it comes after (fluid_flow after) and then has the stream's share to itself.
 *
 * A resource may be a token bucket (tc's tbf, a provider's rate limiter): tokens come at its
 * capacity up to burst_bytes, and while the bucket holds tokens the resource passes peak_Bps
 * (the line underneath); empty, it passes its capacity. A bucket starts full. Bursts
 * shorter than the bucket then go at the line's speed, and only a sustained load over the
 * capacity is held to it.
 *
 * Flows that cross the same resources always get the same rate, so the simulation moves
 * them as one class: a step costs the classes in flight (at most the pairs of hosts), not
 * the flows (a QR test's 152,000 messages on a link slowed to 100 Mbit/s, thousands in
 * flight at once, took minutes flow by flow and take half a second). */
#ifndef PREDICT_FLUID_H
#define PREDICT_FLUID_H

#include "lib/err.h"

#define FLUID_MAX_RES 2		/* resources a flow crosses */

struct fluid_flow {
	double start_ns;	/* when its first byte may go */
	double bytes;		/* its size, >= 0 */
	int res[FLUID_MAX_RES];	/* resource indexes, -1 for none */
	double done_ns;		/* out: when its last byte has gone */
	long after;		/* 1 + the index of an earlier flow of its TCP stream, whose
				 * bytes go first: it starts no sooner than that one is done
				 * (0: none) */
};

/* Run the flows f[0..n) over resources of capacities cap_Bps[0..nres) (bytes/s, > 0) and
 * fill each done_ns. A flow with no resource or no bytes is done at its start. Returns 0, or
 * -E_USAGE with e set for a resource index out of range or a capacity <= 0. */
int fluid_run(struct fluid_flow *f, long n, const double *cap_Bps, int nres, struct err *e) WUR;

/* A resource's token bucket: burst_bytes 0 for none (a strict capacity). */
struct fluid_bucket {
	double burst_bytes;	/* the bucket's size, >= 0 */
	double peak_Bps;	/* what passes while it holds tokens, >= the capacity */
};

/* fluid_run with a token bucket per resource, bk[0..nres) (NULL: none). Returns as
 * fluid_run, and -E_USAGE for a negative burst or a peak under the capacity. */
int fluid_run_bucket(struct fluid_flow *f, long n, const double *cap_Bps, const struct fluid_bucket *bk, int nres,
		     struct err *e) WUR;

/* The same simulation driven from outside, for a caller whose flows start only once it
 * has seen earlier ones end (predict/replay.c: a send leaves when its rank has received
 * what it waited for). Time only moves forward. */
struct fluid_sim;

/* A simulation of the flows f[0..n) (their bytes and res are read; start_ns and done_ns
 * are set as they start and end) over resources as in fluid_run_bucket (bk may be NULL).
 * f, cap_Bps and bk are borrowed until fluid_sim_free. Returns 0 with *out set, or -E_USAGE as
 * fluid_run_bucket (then *out is NULL). Free with fluid_sim_free (accepts NULL). */
int fluid_sim_new(struct fluid_sim **out, struct fluid_flow *f, long n, const double *cap_Bps,
		  const struct fluid_bucket *bk, int nres, struct err *e) WUR;
void fluid_sim_free(struct fluid_sim *sim);

/* When the next flow in flight ends or the rates change (a bucket runs dry): the time to
 * run to before starting anything later; INFINITY when no flow is in flight. */
double fluid_sim_next_ns(struct fluid_sim *sim);

/* Move the simulation to t_ns (nothing when it is there already): flows end on the way. */
void fluid_sim_run_to(struct fluid_sim *sim, double t_ns);

/* Move the simulation to its next event (fluid_sim_next_ns), exactly: the flow that ends
 * then is done even when the time, rounded, hardly moves. Nothing with no flow in flight. */
void fluid_sim_step(struct fluid_sim *sim);

/* Flow i (of f[0..n)) starts at t_ns, after the simulation has run to it; a t_ns already
 * passed is taken as now; a flow whose `after` is not done yet starts when that one is
 * done (its start_ns then). Each flow starts once (twice is a BUG). */
void fluid_sim_start(struct fluid_sim *sim, long i, double t_ns);

/* The flows that ended since the last call (their done_ns set), *n of them: borrowed until
 * the next call on sim. */
const long *fluid_sim_done(struct fluid_sim *sim, long *n);

#endif
