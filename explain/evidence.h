/* evidence: what `contend explain` reads beside the profile: each rank's run-queue wait
 * inside its busy phases (phases.tsv wait_ns, which prof_load does not keep), the CPU the
 * node's other processes used (RUN/samples/node-HOST.tsv.gz against the ranks' own run
 * time), TCP retransmissions (profile/stats.tsv), and the throughput each rank pair
 * achieved on its large messages and the fastest of its smaller ones (from the profile's
 * messages).
 *
 * Everything here is optional: a missing file leaves its have_* flag false, a damaged row
 * is counted in damaged and skipped, a file that is there but cannot be read as its
 * format is counted in bad_files and left out. */
#ifndef EXPLAIN_EVIDENCE_H
#define EXPLAIN_EVIDENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/profile.h"

/* Share of what a rank may run that its run time plus run-queue wait, weighted by the user
 * share of the interval's own ticks, must reach for the interval to be busy by demand. On
 * the testbed's loaded stencil 0.5, 0.6 and 0.7 gave cpu costs of 0.95, 1.21 and 1.25 s
 * (measured 1.50 s). */
#define EVID_DEMAND_THRESHOLD 0.6
#define EVID_MIN_BYTES 16384	/* a message this large gives a throughput (smaller ones
				 * are latency, not bandwidth); LAMMPS's halos are 20-32 KiB
				 * and a 64 KiB floor hid a capped link from it entirely */
#define EVID_QUEUED_NS 100000	/* a smaller message later than its pair's fastest (and its
				 * bytes at the pair's best throughput) by more than this, and
				 * by more than that fastest time, waited in a queue on the
				 * way: in the testbed's LU and QR runs (Open MPI, 4 ranks, 4367
				 * and 12113 such messages) 0-26 do when dedicated or under a CPU
				 * competitor (at most 4 ms in all), 5-99 under a 20 Mbit/s cap
				 * (18-123 ms) */

struct evid_rank {
	double busy_wait_ns;	/* run-queue wait inside its busy phases (the demand phases
				 * when there are some) */
	double start_held_ns;	/* how much later the rank's first CPU sample came, after the
				 * run's first, than without collect's agents holding the
				 * ranks' start (evid start_hold_ns); 0 unknown */
	double idle_ns;		/* time in its idle phases (same phases) */
	double idle_wait_ns;	/* run-queue wait inside them: a rank answering a message in
				 * system calls, or polling for one, while another process runs */
	double idle_run_ns;	/* its run time inside them */
};

#define EVID_TOP_SHARE 0.1	/* a pair's reference throughput without a baseline: what this
				 * share of its messages of a size class reached (the fastest
				 * alone is an outlier: on the testbed's dedicated LU a 32 KiB
				 * message at 12 GB/s, where its 128 KiB ones go at 1-2 GB/s) */

/* A large message's size class: 0 for [EVID_MIN_BYTES, 2 x EVID_MIN_BYTES), 1 for the
 * next doubling, ... TCP moves a message that fits its window in one burst and a larger
 * one at the pace of the acknowledgements, and an MPI library sends the largest in a
 * rendezvous: throughput depends on the size, so messages are compared within a class. */
int evid_size_class(int64_t bytes);

/* One large message of a pair: its size class and its throughput (bytes over its time on
 * the wire). */
struct evid_xput {
	int cls;
	double Bps;
};

/* A directed rank pair on two hosts with messages that took time on the wire. */
struct evid_pair {
	int src, dst;		/* world ranks */
	long nbig;		/* messages >= EVID_MIN_BYTES that took time on the wire */
	double bytes;		/* their bytes */
	double xfer_ns;		/* their time on the wire, first to last byte */
	double best_Bps;	/* the throughput EVID_TOP_SHARE of them reached, all sizes
				 * together (evid_top), 0 none */
	long xoff;		/* their throughputs: v->xput[xoff, xoff + nbig), by class, then
				 * slowest first */
	long nsmall;		/* smaller messages that took time on the wire (with both ends
				 * captured, parse takes the arrival from the receiver's
				 * capture: their latency, and a queue on the way) */
	double lat_ns;		/* the fastest of them, first to last byte; INFINITY none */
};

/* Round trips between two hosts: the TCP handshakes of the ranks' connections (conns.tsv
 * rtt_ns, SYN to the handshake's last ACK), the median. A connection opened while the link
 * was queued or capped shows it; one opened before the load does not. */
struct evid_rtt {
	char host[PROF_HOST_MAX], host2[PROF_HOST_MAX];	/* host < host2 (strcmp) */
	int n;			/* handshakes seen */
	double med_ns;		/* their median */
};

struct evid_host {
	char host[PROF_HOST_MAX];
	bool have_load;		/* node samples covered the run */
	double node_cpus;	/* CPUs' worth the whole node used over the run */
	double own_cpus;	/* ... of which the ranks on it */
	double load1_max;	/* highest 1-minute load average seen */
	double capacity;	/* CPUs' worth its ranks may run (meta cpu_capacity: a quota or
				 * affinity limit), NAN unknown */
	int hidden_pairs;	/* rank pairs on it whose messages the capture could not see
				 * (coverage.tsv state hidden: shared memory) */
};

struct evid {
	int nranks;
	struct evid_rank *rank;	/* owned, [p->nranks], index as p->ranks */
	bool have_phase_wait;	/* phases.tsv had wait_ns, or the demand phases were built */
	bool have_demand;	/* every rank's samples read: demand replaces phases.tsv */
	long ndemand;
	struct prof_busy *demand;	/* owned: busy phases by demand, see evid_load */
	int npairs;
	struct evid_pair *pair;	/* owned, sorted by (src, dst) */
	struct evid_xput *xput;	/* owned, the pairs' large messages (evid_pair xoff) */
	int nhosts;
	struct evid_host *host;	/* owned, one per host of p */
	int nrtts;
	struct evid_rtt *rtt;	/* owned, one per host pair with a handshake seen */
	bool have_stats;
	int64_t retrans, segments;	/* stats.tsv retransmissions and segments */
	/* how whole the trace is (stats.tsv; 0 when unknown) */
	int64_t gaps;		/* stretches of TCP payload the capture lost */
	int64_t warnings;	/* warnings parse printed */
	bool incomplete;	/* stats.tsv complete is not yes */
	int64_t hidden_pairs;	/* pairs_local_hidden */
	int64_t ranks_unsampled;	/* ranks left out for want of CPU samples */
	/* collect's agents start their ranks only after setting up (the capture, the
	 * samplers: RUN/meta/rank-R.tsv start_cost_ns after the agent's own start_real_ns);
	 * the bare program would start when its agent did. What that held the run's start-up,
	 * the first message waiting for the last rank's start and the first sample moved
	 * with the first rank's: (the last rank's start less the last agent's) less (the
	 * first rank's start less the first agent's), ns; 0 when a rank's meta lacks them */
	double start_hold_ns;
	double start_cost_min_ns, start_cost_max_ns;	/* the agents' start_cost_ns; 0 0 unknown */
	long damaged;		/* rows skipped */
	long bad_files;		/* files there but unreadable (not their format, damaged), left out */
	char bad_file[512];	/* the first one's error */
};

/* Read the evidence of p's run (p->run); cannot fail: a missing file only leaves its
 * flag false. Free with evid_free (accepts a zeroed struct).
 *
 * When every rank's samples (RUN/samples/rank-R.tsv[.gz]) can be read, the busy phases
 * are rebuilt by demand (parse/phases.h count_wait, user-weighted): an interval is busy
 * when the rank's run time plus run-queue wait, weighted by the user share of the
 * interval's own ticks (parse/phases.h user_alone), reach EVID_DEMAND_THRESHOLD of what it
 * may run (cpu_capacity). A rank starved by another process then still reads
 * busy (by run time alone it would read idle, as if waiting for a message), and a rank
 * that polls in the kernel while it waits (Open MPI) reads idle, however parse was run.
 * busy_wait_ns is then the wait inside these phases. */
void evid_load(struct evid *v, const struct prof *p);
/* Only the pairs, from p's messages (evid_load calls it); v->pair is replaced. */
void evid_pairs(struct evid *v, const struct prof *p);
void evid_free(struct evid *v);

/* The pair (src, dst), or NULL. */
const struct evid_pair *evid_pair(const struct evid *v, int src, int dst);
/* The pair q's large messages of size class cls, slowest first, in *x; how many. */
long evid_class(const struct evid *v, const struct evid_pair *q, int cls, const struct evid_xput **x);
/* Of n throughputs x, slowest first: the one EVID_TOP_SHARE of them reached (the
 * ceil(n x share)-th fastest); 0 when n is 0. */
double evid_top(const struct evid_xput *x, long n);
/* Of n throughputs x of one class, slowest first: where Bps stands among them, the share
 * of them below it (those equal to it counted half; the k-th slowest of distinct ones at
 * (k + 1/2) / n); NAN when n is 0. */
double evid_place(const struct evid_xput *x, long n, double Bps);
/* Of n throughputs x, slowest first: the one at share u of the way (evid_place's scale),
 * between neighbours as far as u lies between them; 0 when n is 0. */
double evid_at(const struct evid_xput *x, long n, double u);
/* The round trips between hosts a and b (either order), or NULL. */
const struct evid_rtt *evid_rtt(const struct evid *v, const char *a, const char *b);
/* The host's entry, or NULL. */
const struct evid_host *evid_host(const struct evid *v, const char *host);

#endif
