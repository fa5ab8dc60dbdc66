/* calib: measures paper 000's delay_comm curves on the testbed: a CPU-bound probe on one
 * workstation against i = 1..n communicating competitors at several link bandwidths, each
 * curve fitted with the two-piece linear regression (Figueira & Berman, Section 4).
 *
 * The testbed is driven through the `contend testbed` command (its public interface), the
 * probe runs inside the workstation as `contend predict --probe-cpu MS`. */
#ifndef PREDICT_CALIB_H
#define PREDICT_CALIB_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/p000.h"

#define CALIB_MAX_RATES 16	/* link bandwidths measured */
#define CALIB_MAX_I 8		/* communicating competitors at most */
#define CALIB_MAX_POINTS (CALIB_MAX_RATES * CALIB_MAX_I)
/* Points calib_measure may write: every cap and the uncapped link, i = 0 .. max_i. */
#define CALIB_MAX_ALL ((CALIB_MAX_RATES + 1) * (CALIB_MAX_I + 1))
#define CALIB_K_UNIT_BPS 125000.0	/* curves' k unit: 1 Mbit/s in bytes/s */

struct calib_opts {
	const char *exe;	/* the contend binary to run (testbed commands, the probe) */
	int instance;		/* testbed instance */
	const char *ws;		/* probe's workstation ("ws1") */
	const char *peer;	/* where the competitors send ("ws2") */
	int max_i;		/* competitors 1 .. max_i, at most CALIB_MAX_I */
	int nrates;		/* link bandwidths, at most CALIB_MAX_RATES, at least 4 */
	double rates_bps[CALIB_MAX_RATES];	/* link caps, bit/s */
	double probe_cpu_ms;	/* CPU work of one probe, ms of its own CPU time */
	int reps;		/* probes per point; the median is kept */
	bool uncapped;		/* also measure with the link uncapped, k = what one competitor
				 * reached (default true) */
	double uncapped_Bps;	/* out: that rate, 0 when not measured */
};

/* One measured point: the probe's slowdown against i competitors at one link cap. */
struct calib_point {
	int i;			/* communicating competitors (0: the dedicated probe) */
	double bw_Bps;		/* the link cap, bytes/s */
	int64_t t_ns;		/* probe's wall time (median of reps) */
	int64_t t0_ns;		/* dedicated probe's wall time at the same cap */
	double delay;		/* t / t0 - 1: delay_comm^{i,k} with the competitors always communicating */
};

/* Called after each point (for progress output); may be NULL. */
typedef void (*calib_progress_fn)(void *arg, const struct calib_point *pt);

/* The defaults: ws1 -> ws2, i = 1..3, four caps 8, 32, 128 and 512 Mbit/s, 300 ms probes,
 * one probe per point (about a minute on a default testbed). */
void calib_opts_default(struct calib_opts *o);
/* Spread n caps (4 <= n <= CALIB_MAX_RATES) evenly on a log scale over [lo, hi] bit/s. */
void calib_opts_rates(struct calib_opts *o, int n, double lo_bps, double hi_bps);

/* Run the measurement on the running testbed instance o->instance: per cap, `testbed link`,
 * a dedicated probe, then one more `testbed load WS --comm PEER --duty 1` before each probe
 * with i competitors, `testbed unload WS` at the end; the link is uncapped when done (also
 * on failure). With o->uncapped, one more pass on the uncapped link, whose k is the rate
 * one competitor reached (WS's eth0 transmit counter over its probe, read through `testbed
 * exec`), stored in o->uncapped_Bps. pts (room for CALIB_MAX_ALL) receives max_i + 1 points
 * per pass (i = 0 included), *npts how many.
 * Returns 0, or negative with e set: -E_USAGE for bad options, -E_IO when a testbed command
 * or a probe fails (the message names the command and its first error line). */
int calib_measure(struct calib_opts *o, struct calib_point *pts, int *npts,
		  calib_progress_fn fn, void *arg, struct err *e) WUR;

/* Fit one two-piece curve per i from the points (i = 0 rows ignored) into d, k in
 * CALIB_K_UNIT_BPS units, each curve's k_max its largest k (the uncapped transfer's rate
 * when measured); d->source says where from. Returns 0, or -E_USAGE when some i has fewer
 * than 4 distinct caps. */
int calib_fit(const struct calib_point *pts, int npts, const char *source, struct p000_delay *d,
	      struct err *e) WUR;

/* The probe: burn cpu_ms of this thread's CPU time and return the wall time it took, ns. */
int64_t calib_probe(double cpu_ms);

#endif
