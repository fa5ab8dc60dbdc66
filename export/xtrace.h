/* xtrace: a parsed run laid out for the exporters: ranks grouped by host, the messages
 * between known ranks in time order, each rank's busy and idle phases in time order, and
 * each node's CPU load from its samples.
 *
 * Everything is read through predict/profile.h (RUN/profile/ranks.tsv, messages.tsv,
 * phases.tsv, netparams.tsv, RUN/topology.tsv) and lib/tsv.h (RUN/meta/run.tsv for clk_tck,
 * RUN/samples/node-HOST.tsv.gz); formats in docs/formats.md. Damaged rows are counted and
 * skipped as the profile reader does; node samples are optional. */
#ifndef EXPORT_XTRACE_H
#define EXPORT_XTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/profile.h"

#define XT_MAX_LOAD (1L << 22)	/* node load intervals kept over all hosts */

/* One busy or idle phase of a rank. */
struct xt_phase {
	int32_t rank;		/* world rank */
	bool busy;
	int64_t t0_ns, t1_ns;	/* CLOCK_REALTIME of its first and last sample */
	int64_t run_ns;		/* CPU time of the rank in it, -1 unknown */
};

/* One interval between two samples of a node's /proc/stat. */
struct xt_load {
	int host;		/* index in hosts[] */
	int64_t t0_ns, t1_ns;	/* CLOCK_REALTIME of the two samples */
	double busy_cpus;	/* CPUs' worth of non-idle time on the node */
	double foreign_cpus;	/* busy_cpus less what the run's own ranks ran there, >= 0 */
};

struct xtrace {
	struct prof p;		/* the profile, owned */
	int nhosts;
	char (*hosts)[PROF_HOST_MAX];	/* owned; in order of their first rank; "unknown" for "-" */
	int *host_of;		/* owned [p.nranks]: host index of p.ranks[i] */
	int *host_ranks;	/* owned [p.nranks]: indexes into p.ranks, host after host */
	int *host_first;	/* owned [nhosts + 1]: the ranks of host h are
				 * host_ranks[host_first[h] .. host_first[h + 1]) */
	int *rank_idx;		/* owned [span]: index in p.ranks of a world rank, -1 none */
	int span;		/* prof_rank_span */
	long nmsgs;
	long *msgs;		/* owned: indexes into p.msgs of the messages between two ranks of
				 * ranks.tsv, not ctrl records, sorted by first byte */
	long *rmsgs;		/* owned: for each rank, the kept messages it sends or receives
				 * (indexes into p.msgs, by first byte), rank after rank */
	long *rmsgs_first;	/* owned [p.nranks + 1]: those of p.ranks[i] are
				 * rmsgs[rmsgs_first[i] .. rmsgs_first[i + 1]) */
	long msgs_unknown;	/* messages left out: an end unknown or not in ranks.tsv */
	long msgs_ctrl;		/* protocol records left out */
	long nph;
	struct xt_phase *ph;	/* owned: sorted by rank, then start */
	long *ph_first;		/* owned [p.nranks + 1]: phases of p.ranks[i] are
				 * ph[ph_first[i] .. ph_first[i + 1]) */
	long nload;
	struct xt_load *load;	/* owned: sorted by host, then time */
	long load_damaged;	/* node sample rows skipped */
	long load_bad_files;	/* node sample files there but unreadable, left out */
	char load_bad_file[512];	/* the first one's error */
	int64_t t0_ns, t1_ns;	/* earliest and latest time of any phase or kept message */
};

/* Load RUN. Returns 0, or negative with e set (no profile: "run 'contend parse RUN'
 * first"). Free with xtrace_free, also after a failure. */
int xtrace_load(struct xtrace *x, const char *run, struct err *e) WUR;
void xtrace_free(struct xtrace *x);

/* Index in p.ranks of world rank r, or -1. */
int xtrace_rank(const struct xtrace *x, int rank);
/* Host index of world rank r (which must be in ranks.tsv). */
int xtrace_host(const struct xtrace *x, int rank);

#endif
