/* p003: Venkataramaiah & Subhlok, "Performance Prediction for Simple CPU and Network
 * Sharing" (LACSI 2002): CPU sharing from busy/idle phases (Section 2.1, generalised to k
 * competitors and to a load average, docs/predict.md), link sharing from message count and
 * size (Section 2.2), and the combined case (Section 3.3), applied per rank and per link.
 *
 * Times are nanoseconds (doubles), bandwidths bytes/s. The functions are pure. */
#ifndef PREDICT_P003_H
#define PREDICT_P003_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/models.h"

/* Section 2.1, generalised (docs/predict.md, "CPU sharing with k competitors"): the
 * fraction by which run time grows when k CPU-bound processes share the CPU fairly with an
 * application whose average busy and idle phases are busy_ns and idle_ns:
 *	max(0, k * busy - idle) / (busy + idle)
 * For k = 1 this is the paper's (busy - idle) / (busy + idle) when busy > idle, else 0.
 * k >= 0 whole; 0 when busy + idle is 0. Unitless. */
double p003_cpu_increase(double busy_ns, double idle_ns, int k);

/* The same for a competing load average (docs/predict.md, "load average"): a load average
 * L = n + f (n whole, 0 <= f < 1) is n competitors always there plus one more a fraction f
 * of the time, so the increase is (1 - f) * inc(n) + f * inc(n + 1). Unitless; L >= 0. */
double p003_cpu_increase_load(double busy_ns, double idle_ns, double load_avg);

/* The same two with the scheduler's credit limited to the idle time the application really
 * slept (docs/predict.md, "Idle time that is not sleep"): Section 2.1's credit is earned by
 * sleeping, so a fraction awake_frac of the idle time spent runnable (an MPI library that
 * polls while it waits, or time on the run queue) earns none:
 *	max(0, k * busy - (1 - awake_frac) * idle) / (busy + idle)
 * awake_frac in [0, 1] (clamped); 0 gives the functions above. k need not be whole: a rank
 * that shares its node with other ranks meets the competitors' extra demand on its busy time
 * k' = coloc_stretch - 1, a fraction of k (p003_node_in.kx). Unitless. */
double p003_cpu_increase_awake(double busy_ns, double idle_ns, double k, double awake_frac);
double p003_cpu_increase_load_awake(double busy_ns, double idle_ns, double load_avg, double awake_frac);

/* Section 2.2: time added to communication when a link's latency and bandwidth change from
 * (lat_ns, bw_Bps) to (new_lat_ns, new_bw_Bps), for nmsgs messages of avg_bytes on it:
 *	[(newL + avg/newB) - (L + avg/B)] * nmsgs		(ns; negative when faster) */
double p003_link_added_ns(double nmsgs, double avg_bytes, double lat_ns, double bw_Bps,
			  double new_lat_ns, double new_bw_Bps);

/* The effective new latency and bandwidth of a scenario link (its bandwidth and latency,
 * else the run's; less competing traffic; shared with competing flows), given the run's
 * measured lat_ns and bw_Bps. Returns 0, or -1 when no bandwidth is left. */
int p003_link_new(const struct scen_link *l, double lat_ns, double bw_Bps, double *nlat, double *nbw);


/* One message of a rank on a changed link, for p003_overlap_share. */
struct p003_xfer {
	int64_t t0_ns, t1_ns;	/* its first and last byte in the dedicated run */
	double old_ns;		/* L + bytes / B: its transfer time on the measured link */
	double new_ns;		/* newL + bytes / newB: on the changed link */
	int out;		/* 1: the rank sends it; 0: the rank receives it */
	int ex;			/* 1: its rank pair exchanges (p003_is_exchange): it overlaps the
				 * rank's other exchange messages in the other direction */
};

/* Whether a rank pair exchanges data rather than asking and answering, from the order of
 * its messages in the dedicated run: walking them in time, a message the other way than
 * the one before closes a pair of the two (the next message opens a new one); lead_ab
 * counts the pairs a -> b opened, lead_ba those b -> a opened. A request/reply pair always leads the same way (the
 * requester first); in an exchange (a halo swap, an all-to-all, an allreduce step) both
 * ends send without waiting for each other, and which goes first changes with the ranks'
 * speeds. True when there are at least 4 pairs and the rarer order makes at
 * least P003_EXCHANGE_MIN_SHARE of them. Two ranks of steadily different speed exchange
 * with one order only and are taken as request/reply: the paper's sum, the safe side. */
#define P003_EXCHANGE_MIN_SHARE 0.2
bool p003_is_exchange(long lead_ab, long lead_ba);

/* The order of one rank pair's turns, for p003_is_exchange: start with
 * p003_pair_order_init, add each message of the pair in time order with its direction (0
 * a -> b, 1 b -> a) and its first and last byte's times. A turn is what one end sends
 * before the other answers, one message or several (HyPhy sends a length, then the data):
 * a message the same way as the one before continues its turn when it follows that one
 * more closely than the turn followed the other end's last message; after a longer gap it
 * is a turn of its own (in a swap, this end's message of the next iteration). A turn the
 * other way than the one before closes a pair of the two. */
struct p003_pair_order {
	signed char last;	/* direction of the open pair's first turn, -1 none open */
	long lead[2];		/* turn pairs (one each way) opened by a -> b, by b -> a */
	signed char dir;	/* direction of the pair's last message, -1 none yet */
	int64_t t_last_ns;	/* when that message ended */
	int64_t open_gap_ns;	/* from the other end's last message to this turn's first */
};
void p003_pair_order_init(struct p003_pair_order *q);
void p003_pair_order_add(struct p003_pair_order *q, int dir, int64_t t_first_ns, int64_t t_last_ns);

/* Section 2.2 per rank with full-duplex links (docs/predict.md, "Link change: overlapping
 * transfers"): the share of a rank's added transfer time it really waits for. The rank's
 * messages on changed links are merged into groups whose dedicated intervals [t0, t1]
 * overlap in time (a message that starts after another ended may be its reply; one that
 * starts before cannot be). Within a group the messages it sends share its link's outgoing
 * direction and add up, those it receives share the incoming one, and the two directions
 * transfer at once, so the group takes max(sum out, sum in); groups add up:
 *	added = sum over groups of max(On, In) - max(Oo, Io)
 *	naive = sum over all messages of (new - old)	(Section 2.2 as the paper applies it)
 * Returns added / naive clamped to [0, 1], or 1 when naive is 0 or n is 0 (nothing to
 * share: the paper's sum). A request/reply pattern (no overlap) gives 1; a symmetric
 * exchange in both directions at once 1/2. Messages with ex set form one more group of
 * their own whatever their times: a rank's exchanges go on in both directions at once on
 * the changed link (its sends queue behind each other, so do its receives), so they add
 * max(sum out, sum in) of their new - old. xs is sorted in place by t0_ns; *added_ns and
 * *naive_ns (may be NULL) receive the two sums. */
double p003_overlap_share(struct p003_xfer *xs, size_t n, double *added_ns, double *naive_ns);

/* One rank under a scenario: Section 3.3's order (link change first, then CPU sharing on
 * the busy/idle pattern the link change produced). */
struct p003_node_in {
	double t_ns;		/* dedicated run time the rank is part of */
	double busy_ns;		/* average busy phase */
	double idle_ns;		/* average idle phase */
	double n_busy;		/* busy phases in the run */
	double n_idle;		/* idle phases in the run */
	double link_added_ns;	/* Section 2.2 time added on this rank's changed links */
	double comm_busy_frac;	/* share of the added link time the CPU is busy, [0, 1] */
	int k;			/* competing CPU-bound processes (ignored when load_avg >= 0) */
	double load_avg;	/* competing load average, or negative for "use k" */
	double capacity;	/* share of the CPU the application may use, (0, 1] */
	double awake_frac;	/* share of idle time not asleep, [0, 1]; 0: the paper's case */
	bool shared;		/* the rank shares its node with other ranks: kx stands in for
				 * the competitor counts; false (a rank alone): k or load_avg */
	double kx[2];		/* with shared: the extra CPU demand on the rank's busy time of n
				 * and of n + 1 competitors (n = k, or floor(load_avg)), in place
				 * of n and n + 1 in Section 2.1 (coloc_stretch - 1,
				 * docs/predict.md, p003), 0 <= kx[0] <= kx[1] */
};
struct p003_node_out {
	double t_link_ns;	/* after the link change alone */
	double busy_ns;		/* average busy phase after the link change, before sharing */
	double idle_ns;		/* average idle phase after the link change */
	double increase;	/* Section 2.1 fraction applied after the link change */
	double t_ns;		/* predicted time of the rank */
};
/* Returns 0, or -E_USAGE when an input is out of range (negative times, capacity not in
 * (0, 1], comm_busy_frac or awake_frac not in [0, 1], with shared kx not 0 <= kx[0] <= kx[1]). */
int p003_node(const struct p003_node_in *in, struct p003_node_out *out) WUR;

#endif
