/* parse stage: captures and samples in, a profile directory out (the logic of `contend parse`). */
#ifndef PARSE_STAGE_H
#define PARSE_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/err.h"
#include "parse/coverage.h"
#include "parse/flows.h"
#include "parse/phases.h"
#include "parse/rollup.h"

#define PARSE_MAX_FILES 4096		/* captures or samples files of a kind */
#define PARSE_DEFAULT_BUSY_THRESHOLD 0.5

/* What to parse and how: `contend parse`'s options. Strings and arrays are borrowed for
 * the call. Start from parse_opts_init's defaults. */
struct parse_opts {
	const char *run;		/* RUN, or NULL with pcaps */
	const char *outdir;		/* NULL: RUN/profile */
	char **pcaps;			/* captures to read instead of RUN */
	size_t npcaps;
	char **samples;			/* samples files of one rank each (with pcaps) */
	size_t nsamples;
	enum flows_mpi mpi;
	int64_t idle_gap_ns;		/* a pause that ends a generic message */
	double busy_threshold;		/* fraction of a sample interval on CPU that is busy */
	bool busy_threshold_set;	/* given: used as is, not scaled by CPU capacity */
	bool user_only;			/* weight CPU time by the rank's user share */
	enum phases_wait_rule waits;	/* which trace gaps are waits (--waits) */
	double lat_ns, bw_Bps;		/* 0: measure */
	size_t max_streams, max_buffer;	/* 0: flows' defaults */
	bool force;			/* overwrite an existing profile */
	long jobs;			/* captures parsed at once (0: the CPUs available) */
	const char *part;		/* that node's part only ("." this host), or NULL */
	bool merge;			/* the parts into the profile instead of the captures */
	bool times;			/* each step's time on stderr */
	bool keep_tail;			/* a hung end is reported, not cut */
	FILE *table;			/* where the per-rank table goes as it is made, or NULL */
};

/* Seconds spent in each step (--times). */
struct parse_times {
	double wait_s;			/* waiting for parts to be parsed */
	double merge_s;			/* merging them into messages.tsv and conns.tsv */
	double samples_s;		/* reading the samples into phases.tsv */
	double out_s;			/* writing the other outputs */
	double total_s;
};

/* What a parse found, for the command's summary. */
struct parse_summary {
	struct netparams np;		/* latency and bandwidth used */
	struct flows_stats st;		/* packets, streams, messages */
	char cov_note[COV_NOTE_MAX + 16];	/* the run's coverage in words */
	struct parse_times times;
	bool parts_only;		/* --part: only parts were written, nothing to summarise */
};

/* Defaults of every option (o->run and the inputs still to be set). */
void parse_opts_init(struct parse_opts *o);

/* Parse as o says, writing the profile (or with o->part the node's parts). Damaged or
 * missing input is warned about on stderr (counted in warnings.tsv) and the rest used.
 * Returns 0 for a complete profile, 1 for a partial one (warnings given or a write
 * failed, said on stderr), or a negative code with e set when nothing usable could be
 * written (a missing run directory, an existing profile without force, an unwritable
 * directory). s is filled when the return is not negative. */
int parse_run(const struct parse_opts *o, struct parse_summary *s, struct err *e) WUR;

#endif
