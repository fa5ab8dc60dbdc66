/* profile: a parsed run as the models see it: RUN/profile/ranks.tsv, links.tsv,
 * netparams.tsv, messages.tsv, phases.tsv and, when present, RUN/topology.tsv (formats in
 * docs/formats.md).
 *
 * Every file is read through lib/tsv.h and every field is checked: a damaged or
 * implausible row is counted in damaged and skipped, a file that ends early keeps the
 * rows before the cut (counted in truncated). ranks.tsv is required; links.tsv,
 * netparams.tsv, messages.tsv (or .gz), phases.tsv (or .gz) and topology.tsv are optional
 * (their have_* flag says). Messages and busy phases past their caps are counted in
 * capped, not kept. */
#ifndef PREDICT_PROFILE_H
#define PREDICT_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"

#define PROF_MAX_RANKS 65536	/* rows in ranks.tsv */
#define PROF_MAX_LINKS 1048576	/* rows in links.tsv */
#define PROF_MAX_TOPO 65536	/* rows in topology.tsv */
#define PROF_HOST_MAX 128	/* bytes in a host name */
#define PROF_MAX_MSGS (1L << 24)	/* rows of messages.tsv kept */
#define PROF_MAX_BUSY (1L << 24)	/* busy rows of phases.tsv kept, and idle rows */

/* One row of ranks.tsv: paper 003's Figure 3 for one rank. */
struct prof_rank {
	int rank;		/* world rank */
	char host[PROF_HOST_MAX];
	int64_t exec_ns;	/* the rank's wall time, dedicated run */
	double comp_pct;	/* % of exec in computation (busy, not communicating) */
	double comm_pct;	/* % busy communicating */
	double idle_pct;	/* % idle */
	double avg_busy_ns;	/* mean busy phase */
	double avg_idle_ns;	/* mean idle phase */
	int64_t n_busy, n_idle;	/* phase counts */
	double cpu_pct;		/* CPU use, % of exec */
	int64_t run_ns, wait_ns;	/* schedstat run and run-queue wait */
	int64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
	int64_t pkts_sent;	/* packets it sent on the captured connections to other ranks
				 * (conns.tsv), -1 unknown */
	int64_t early_ns;	/* how long it ran before the job's last rank started, taken out
				 * of exec_ns by prof_start_together; 0 before or without it */
};

/* One row of links.tsv: a directed rank pair. */
struct prof_link {
	int src, dst;		/* world ranks */
	int64_t msgs;		/* messages src -> dst */
	int64_t bytes;		/* their payload bytes */
	double avg_bytes;	/* bytes / msgs */
	int64_t active_ns;	/* time the pair spent transferring */
	int64_t t_first_ns, t_last_ns;
};

/* One row of topology.tsv. */
struct prof_topo {
	char kind[8];		/* "net", "member" or "link" */
	char a[PROF_HOST_MAX], b[PROF_HOST_MAX];	/* net: a = net; member: a = host, b = net;
							 * link: its two ends */
	double bw_Bps;		/* NAN unknown */
	int64_t lat_ns;		/* -1 unknown */
	double cap_tps;		/* NAN unknown */
};

#define PROF_NPROTO 7	/* messages.tsv proto values: eager sync rndv-put rndv-frag ctrl unknown other */

/* The proto names, prof_msg.proto's index; the last one, "other", stands for any value not
 * listed. */
extern const char *const prof_proto_names[PROF_NPROTO];

#define PROF_MAX_NAMES 64	/* distinct tag_name values kept (collectives), more are "other" */

/* One row of messages.tsv, the fields the models and export use. */
struct prof_msg {
	int64_t t_ns;		/* t_first_ns: capture time of its first byte */
	int64_t t_last_ns;	/* capture time of its last byte (t_ns when the file has no
				 * t_last_ns column or the value is bad) */
	int32_t src, dst;	/* world ranks, -1 unknown */
	int64_t bytes;		/* user payload bytes */
	int32_t tag;		/* MPI tag, meaningful when have_tag */
	int32_t cid;		/* communicator context id, -1 unknown */
	bool have_tag;		/* the file gave a tag */
	bool ctrl;		/* proto "ctrl": a protocol record, not a user message */
	uint8_t name;		/* tag_name as p->names[name - 1], 0 none */
	uint8_t proto;		/* prof_proto_names index ("unknown" without a proto column) */
	uint32_t hdr;		/* wire_bytes - bytes: the MPI's own headers in the stream (0
				 * without a wire_bytes column) */
	bool after_answer;	/* flags after-answer: a rendezvous request its sender made
				 * after answering one of its receiver's (docs/parse.md) */
};

/* One busy (or idle) row of phases.tsv. */
struct prof_busy {
	int32_t rank;
	int64_t t_start_ns, t_end_ns;
	int64_t run_ns;		/* CPU time of the rank's threads in the phase, -1 unknown */
	int64_t wait_ns;	/* their run-queue wait in the phase, -1 unknown */
};

/* qsort's order of busy phases: by rank, then by start. */
static inline int
prof_busy_cmp(const void *x, const void *y)
{
	const struct prof_busy *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->t_start_ns < b->t_start_ns ? -1 : a->t_start_ns > b->t_start_ns;
}

struct prof {
	char *run;			/* the run directory, owned */
	int nranks;
	struct prof_rank *ranks;	/* owned, sorted by rank */
	bool have_links;
	int nlinks;
	struct prof_link *links;	/* owned */
	bool have_net;			/* netparams.tsv read with both values */
	int64_t lat_ns;			/* measured user-level latency L */
	double bw_Bps;			/* measured bandwidth B */
	char lat_how[128], bw_how[128];	/* how each was obtained ("-" unknown) */
	bool have_topo;
	int ntopo;
	struct prof_topo *topo;		/* owned */
	bool have_msgs;			/* messages.tsv read */
	long nmsgs;
	struct prof_msg *msgs;		/* owned, in file order */
	bool have_phases;		/* phases.tsv read */
	long nbusy;
	struct prof_busy *busy;		/* owned, busy phases in file order */
	long nidle;
	struct prof_busy *idle;		/* owned, idle phases in file order (same cap) */
	int nnames;
	char names[PROF_MAX_NAMES][24];	/* tag_name values met in messages.tsv */
	int64_t t_phase0_ns, t_phase1_ns;	/* earliest start, latest end of any phase (busy or
						 * idle); 0 without phases */
	long capped;			/* messages and phases past their caps, not kept */
	long damaged;			/* rows skipped as damaged or implausible */
	long truncated;			/* files that ended early */
	char first_damage[ERR_MSG_MAX];	/* the first damaged row's message */
	char coverage[16];		/* stats.tsv: "full", "partial", "unknown"; "" when absent */
	char coverage_note[256];	/* stats.tsv's coverage_note, "" when absent */
	int64_t skew_ns;		/* prof_start_together: the ranks' starts this far apart,
					 * 0 before or without it */
};

/* Read RUN's profile into *p. Returns 0, or negative with e set when ranks.tsv is missing,
 * unreadable or has no good row, or a present optional file has a bad header. Free with
 * prof_free (also after a failure). */
int prof_load(struct prof *p, const char *run, struct err *e) WUR;
void prof_free(struct prof *p);

/* The indexes of p->msgs sorted by their first byte's time (messages.tsv is written per
 * connection, not in time order). Owned by the caller (free); NULL when there are none. */
long *prof_msgs_by_time(const struct prof *p);

/* The largest world rank plus one (ranks.tsv rows are sorted): the size of per-rank arrays. */
int prof_rank_span(const struct prof *p);

/* The rank's row, or NULL. */
const struct prof_rank *prof_rank(const struct prof *p, int rank);
/* Start every rank's time where the job's last rank started (its first phase): before
 * that, the ranks that started early were waiting for it in MPI's start, for as long as the
 * launcher and the observer made them (contend collect starts each application once its
 * own node's capture is ready, 0.1-0.4 s apart on a loaded testbed, where a bare job's
 * ranks start within a few ms). Each rank's exec_ns loses its early_ns, its percentages
 * are rescaled to the shorter time (the early part's CPU stays in it), and p->skew_ns
 * says how far apart the starts were. Nothing changes without phases of every rank.
 * Returns p->skew_ns. */
int64_t prof_start_together(struct prof *p);
/* The measured dedicated time of the run: the longest rank's exec_ns. */
int64_t prof_dedicated_ns(const struct prof *p);
/* Number of distinct hosts. */
int prof_nhosts(const struct prof *p);
/* True when p->ranks[i] is the first row on its host. */
bool prof_host_first(const struct prof *p, int i);
/* True when some rank runs on host. */
bool prof_has_host(const struct prof *p, const char *host);
/* Per rank (index in p->ranks) the index of its host, the hosts numbered 0.. in the order of
 * their first rank, and in *nhosts their count: what prof_host_first and a search by name
 * give, in one sort of the ranks (n log n, where a search per rank is n^2). Caller frees;
 * never NULL. */
int *prof_host_ids(const struct prof *p, int *nhosts);

#endif
