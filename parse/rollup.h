/* rollup: the per-rank and per-link summaries of a parsed run (paper 003, Figure 3) and the
 * network parameters used to split busy time into computation and communication.
 *
 * Definitions (docs/parse.md):
 *   exec      = t_last - t_first of the rank's CPU samples (else of its messages);
 *   busy      = total length of the rank's busy phases; idle = exec - busy;
 *   comm_raw  = sum over the messages it sent and received of (L + bytes / B)
 *             = n_msgs * L + bytes / B;
 *   comm      = min(comm_raw, busy)   (communication is busy CPU time, as in Figure 3);
 *   comp      = busy - comm;
 *   comp% + comm% + idle% = 100.
 * L is the one-way latency (half the median SYN -> ACK handshake time) and B the bandwidth
 * (the 90th percentile of the throughput of messages of at least ROLLUP_BW_MIN_BYTES that
 * lasted at least ROLLUP_BW_MIN_NS), unless given by the user. */
#ifndef PARSE_ROLLUP_H
#define PARSE_ROLLUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/msg.h"

#define ROLLUP_MAX_RANKS (1 << 20)	/* highest rank kept + 1 */
#define ROLLUP_MAX_LINKS (1u << 20)	/* directed rank pairs kept */
#define ROLLUP_MAX_SAMPLES (1u << 20)	/* RTT and bandwidth samples kept */
#define ROLLUP_BW_MIN_BYTES 65536
#define ROLLUP_BW_MIN_NS 10000
#define ROLLUP_DEFAULT_LAT_NS 50000.0	/* when nothing was measured: 50 us */
#define ROLLUP_DEFAULT_BW_BPS 117.5e6	/* and gigabit Ethernet's TCP goodput */

struct rollup_rank {
	bool present;		/* seen in samples or messages */
	uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
	int64_t t_first_msg_ns, t_last_msg_ns;	/* INT64_MAX / INT64_MIN when none */
	bool has_cpu;		/* CPU fields below are set */
	int64_t t_first_ns, t_last_ns;	/* of the samples */
	int64_t busy_ns;	/* total length of busy phases */
	int64_t n_busy, n_idle, avg_busy_ns, avg_idle_ns;
	double cpu_frac;	/* 0..1 */
	int64_t run_ns, wait_ns;
};

struct rollup_link {
	int32_t src, dst;	/* world ranks (both known: messages with an unknown end are not in links) */
	uint64_t msgs, bytes;
	int64_t t_first_ns, t_last_ns;
	int64_t active_ns;	/* union of message intervals, closed ones */
	int64_t cur_a_ns, cur_b_ns;	/* the interval being grown */
};

/* Result of rollup_split for one rank, in ns. */
struct rollup_split {
	int64_t exec_ns;
	double comp_ns, comm_ns, idle_ns;
	double comm_raw_ns;	/* before clipping to busy */
};

struct netparams {
	double lat_ns;		/* one-way latency */
	const char *lat_source;	/* "handshake", "option", "default" */
	uint64_t lat_samples;
	double rtt_median_ns;	/* -1 when none */
	double bw_Bps;
	const char *bw_source;	/* "transfers", "option", "default" */
	uint64_t bw_samples;
};

struct rollup {
	struct rollup_rank *ranks;	/* indexed by rank */
	size_t nranks;			/* allocated */
	struct rollup_link *links;	/* open-addressing table */
	size_t links_cap, nlinks;
	uint64_t links_over_cap, ranks_over_cap;
	uint64_t unknown_rank_msgs;	/* messages with src or dst unknown (not in links) */
	uint64_t unknown_rank_bytes;	/* their payload bytes */
	uint64_t ctrl_msgs;		/* PROTO_CTRL: not counted as messages */
	double *rtt;			/* samples, ns */
	size_t nrtt, rtt_cap;
	double *bw;			/* samples, B/s */
	size_t nbw, bw_cap;
};

void rollup_init(struct rollup *p);
void rollup_release(struct rollup *p);
/* Count one message (ranks, links, bandwidth sample). */
void rollup_msg(struct rollup *p, const struct msg *m);
/* One handshake SYN -> ACK time. */
void rollup_rtt(struct rollup *p, int64_t rtt_ns);
/* The rank's slot (created), NULL past ROLLUP_MAX_RANKS or for rank < 0. */
struct rollup_rank *rollup_rank(struct rollup *p, int32_t rank);
/* L and B: given (> 0) or measured, else defaults. */
void rollup_netparams(struct rollup *p, double lat_opt_ns, double bw_opt_Bps,
		       struct netparams *out);
/* Split a rank's time with L and B as defined at the top of this file. */
void rollup_split(const struct rollup_rank *r, double lat_ns, double bw_Bps, struct rollup_split *out);
/* Links in a stable order (by src, dst), for writing; returns a fresh array of nlinks
 * pointers (caller frees) after closing the open intervals. */
struct rollup_link **rollup_links_sorted(struct rollup *p);

#endif
