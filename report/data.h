/* data: what the report reads from one run directory: the key/value files of RUN/meta/, the files of
 * RUN/profile/ and RUN/predict/, and whether RUN/topology.pdf and .dot exist.
 *
 * Every file is read through lib/tsv.h and every field it uses is checked: a damaged row is
 * counted (per run, in damaged) and skipped; a missing optional file leaves its have_* flag
 * false. Growable arrays have caps; rows past a cap are counted in the matching *_dropped. */
#ifndef REPORT_DATA_H
#define REPORT_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/tsv.h"
#include "predict/profile.h"

#define REP_MAX_KV 256		/* key/value rows kept per meta or stats file */
#define REP_MAX_WARN 5		/* parse warnings kept for the front page */
#define REP_MAX_NODES 1024	/* node files read from RUN/meta/ */
#define REP_MAX_MSGS 200000	/* messages drawn (an even sample beyond; all are counted) */
#define REP_MAX_SCEN 64		/* scenario files read from RUN/predict/ */
#define REP_MAX_PRED 64		/* model rows kept per scenario */
#define REP_SIZE_BINS 41	/* message size bins: [2^i, 2^(i+1)) bytes, i = 0..39, bin 40 = 0 bytes */

struct rep_kv {
	char key[64];
	char value[256];
};

struct rep_node {		/* RUN/meta/node-<host>.tsv */
	char host[128];
	int64_t pcap_recv, pcap_drop, pcap_ifdrop;	/* -1 unknown */
	char payload[16];		/* what the capture kept: framed, full, cut */
	int64_t bytes_captured, bytes_written;	/* -1 unknown */
	int64_t framing_lost, framing_gave_up;	/* framed captures; -1 unknown */
};

struct rep_pred {		/* one model's total (or n/a) row of a scenario */
	char model[48];
	char paper[8];
	bool na;		/* the model does not apply (why in detail) */
	double predicted_ns;	/* NAN unknown */
	double measured_ns;	/* NAN when the scenario gives no measurement */
	char equation[40];
	char detail[200];
};

struct rep_scen {		/* RUN/predict/<name>.tsv */
	char name[128];
	double dedicated_ns;	/* the dedicated row's measured time, NAN unknown */
	int npred;
	struct rep_pred pred[REP_MAX_PRED];
};

struct rep_run {
	char *dir;			/* owned */
	char name[256];			/* the run's base name */
	int nrun_kv, nstats;
	struct rep_kv run_kv[REP_MAX_KV];	/* meta/run.tsv */
	struct rep_kv stats[REP_MAX_KV];	/* profile/stats.tsv */
	bool have_meta, have_stats;
	int nnodes;
	struct rep_node *nodes;		/* owned [nnodes] */
	int nrank_meta;			/* meta/rank-*.tsv files found */
	int64_t start_real_ns, end_real_ns;	/* from the rank meta files, -1 unknown */
	int64_t observer_cpu_ns, app_cpu_ns;	/* agents' and applications' CPU, summed */
	int64_t start_cost_ns, stop_cost_ns;	/* collect's longest start before an application
						 * and stop after a node's last rank; -1 unknown */

	bool have_prof;			/* ranks.tsv read (links, netparams optional: prof.have_*) */
	struct prof prof;
	char prof_why[ERR_MSG_MAX];	/* why not, when !have_prof */

	/* Messages and phases are the profile's (prof.msgs, prof.busy, prof.idle, with its caps):
	 * false and empty without ranks.tsv. */
	bool have_msgs;
	const struct prof_msg *msgs;	/* [nmsgs]: prof.msgs, or when there are more than
					 * REP_MAX_MSGS the ones whose index is a multiple of
					 * msg_stride (then msgs_own) */
	struct prof_msg *msgs_own;	/* owned, the sample, NULL when none */
	long nmsgs, msgs_total;		/* drawn, and kept in the profile */
	long msg_stride;		/* 1 when every message is drawn; a power of two */
	int64_t size_hist[PROF_NPROTO][REP_SIZE_BINS];	/* every message, per proto */
	bool have_phases;
	long nphases;			/* prof.nbusy + prof.nidle */
	int64_t t0_ns, t1_ns;		/* span of phases and messages, 0 when none */

	int nscen;
	struct rep_scen *scen;		/* owned [nscen], sorted by name */
	bool have_topo_pdf, have_topo_dot;

	/* What parse said about its input (profile/warnings.tsv, stats.tsv's complete). */
	bool partial;			/* stats.tsv says complete is not yes */
	int nwarn;			/* warnings kept, at most REP_MAX_WARN */
	long warn_total;		/* warnings in the file */
	char warn[REP_MAX_WARN][300];	/* the first ones */

	long damaged;			/* rows skipped as damaged by this module's readers (the
					 * profile reader counts its own in prof.damaged) */
	char first_damage[ERR_MSG_MAX];	/* the first one's message */
};

/* Read everything the report uses from dir. Only a missing or unreadable directory is an
 * error (-E_IO with e set); every missing file is recorded in the flags. Free with
 * rep_run_free (also after a failure). */
int rep_run_load(struct rep_run *r, const char *dir, struct err *e) WUR;
void rep_run_free(struct rep_run *r);

/* The value of key in a key/value list, or NULL. */
const char *rep_kv_get(const struct rep_kv *kv, int n, const char *key);
/* The number of ranks known: profile, else meta, else the largest rank seen + 1. */
int rep_nranks(const struct rep_run *r);
/* Host of a rank (profile, else "?"). */
const char *rep_host(const struct rep_run *r, int rank);

/* Count a damaged row in *damaged and keep the first one's message in first (cap bytes). */
void rep_damage(long *damaged, char *first, size_t cap, const struct err *e);
/* The next row of t: 1 a row, 0 the end (also after an I/O error or a cut file: the rows
 * before it count). Damaged lines are counted with rep_damage and skipped. */
int rep_next_row(struct tsv_r *t, long *damaged, char *first, size_t cap);

#endif
