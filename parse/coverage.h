/* coverage: which rank pairs' messages a run's capture could see, and which it saw.
 *
 * Ranks on different nodes talk through a network interface, where the capture sees them.
 * Ranks of one node talk through shared memory unless their MPI was told to use TCP
 * (collect --see-local, or the launcher's own options); their TCP traffic then goes through
 * the node's loopback interface, which collect captures when ranks share the node. A node's
 * pair with no captured message is "hidden" when nothing shows that the MPI sent node-local
 * messages over TCP (no other pair of one node was seen, and --see-local was off): its
 * messages, if any, are not in the trace. */
#ifndef PARSE_COVERAGE_H
#define PARSE_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COV_MAX_ROWS ((size_t)1 << 20)	/* pair rows returned; past it counted in rows_capped */
#define COV_NOTE_MAX 240		/* a note fits a stats.tsv value (docs/formats.md) */

enum cov_state {
	COV_SEEN,	/* messages captured */
	COV_QUIET,	/* none captured on a path the capture sees: the pair did not talk */
	COV_HIDDEN,	/* one node, no sign of TCP between its ranks: shared memory, not seen */
};

/* A directed rank pair and the messages captured on it (links.tsv's rows). */
struct cov_link {
	int32_t src, dst;	/* world ranks */
	uint64_t msgs;
};

/* One unordered rank pair: every seen pair, and every pair of one node. */
struct cov_pair {
	int32_t r0, r1;		/* r0 < r1 */
	bool same_node;
	uint64_t msgs;		/* both directions */
	enum cov_state state;
};

struct cov_stats {
	uint64_t ranks;			/* ranks whose node is known */
	uint64_t hosts;			/* nodes with one of them */
	uint64_t pairs;			/* unordered pairs of those ranks */
	uint64_t pairs_remote, pairs_remote_seen;	/* on different nodes; with messages */
	uint64_t pairs_local, pairs_local_seen;		/* on one node; with messages */
	uint64_t pairs_local_hidden;	/* on one node, not seen, no sign of TCP between them */
	uint64_t msgs_remote, msgs_local;	/* messages of seen pairs */
	uint64_t msgs_unplaced;		/* messages with a rank whose node is unknown */
	uint64_t rows_capped;		/* pairs past COV_MAX_ROWS, not in rows */
	const char *local_path;		/* "none" (no pair shares a node), "tcp", "shared memory" */
	const char *coverage;		/* "full", "partial" or "unknown" (no node known) */
};

/* Classify every pair of ranks 0..nranks-1 whose host[r] is not NULL (borrowed), from the
 * directed links[0..nlinks-1] (self-pairs and unknown ranks skipped); see_local: the run was
 * recorded with node-local messages over TCP. Fills *s; *rows gets the pairs sorted by
 * (r0, r1), caller frees, *nrows their count. Cannot fail (allocation dies). */
void cov_compute(int32_t nranks, const char *const *host, const struct cov_link *links,
		 size_t nlinks, bool see_local, struct cov_stats *s, struct cov_pair **rows,
		 size_t *nrows);
/* The coverage in one sentence for people (stdout, stats.tsv, the report), at most
 * COV_NOTE_MAX characters. */
void cov_note(const struct cov_stats *s, bool see_local, char *out, size_t len);
/* "seen", "quiet", "hidden". */
const char *cov_state_name(enum cov_state st);

#endif
