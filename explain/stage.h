/* explain stage: a run's time split among its causes, written to RUN/explain.tsv (the logic
 * of `contend explain`). */
#ifndef EXPLAIN_STAGE_H
#define EXPLAIN_STAGE_H

#include <stdbool.h>

#include "explain/attrib.h"
#include "lib/err.h"

/* `contend explain`'s options. Strings are borrowed for the call. */
struct explain_opts {
	const char *run;		/* the parsed run to explain */
	const char *baseline;		/* a run of the same program to compare against, or NULL */
};

/* What explain_run found; release with explain_result_release. */
struct explain_result {
	bool explained;			/* a (the causes, their costs) is set */
	struct attr_result a;
};

/* Explain o->run (against o->baseline when set) and write RUN/explain.tsv. Damaged rows of
 * either run are counted in a warning on stderr. Returns 0, or negative with e set: a run
 * that cannot be read or has no rank with an exec time (r->explained false), or
 * explain.tsv that cannot be written (r->explained true: the causes are still there). r
 * must be released in every case. */
int explain_run(const struct explain_opts *o, struct explain_result *r, struct err *e) WUR;

/* Free what r holds; accepts a zeroed result. */
void explain_result_release(struct explain_result *r);

#endif
