/* report stage: each run's RUN/report.pdf and RUN/figures/, or the validation report of a
 * bench/accuracy results directory (the logic of `contend report`). */
#ifndef REPORT_STAGE_H
#define REPORT_STAGE_H

#include <stdbool.h>

/* `contend report`'s options. Strings and arrays are borrowed for the call. Start from
 * report_opts_init's defaults. */
struct report_opts {
	const char *const *runs;	/* the run directories (none with accuracy) */
	int nruns;
	const char *accuracy;		/* a results directory of bench/accuracy, or NULL */
	const char *out;		/* with accuracy: the PDF, NULL: DIR/accuracy.pdf */
	bool png;			/* PNG figures beside the PDF ones */
	int group_by;			/* 0 automatic, -1 by node, N ranks per group */
};

/* Defaults of every option (PNG figures, rows grouped automatically; no run yet). */
void report_opts_init(struct report_opts *o);

/* Draw the report of every run of o (or the validation report of o->accuracy). A run that
 * cannot be read, a page or a report that fails is said on stderr and the others are still
 * drawn. SIGPIPE is ignored from here on (a gnuplot that dies must not end the program).
 * Returns 0 when every report was written with every page that applies, 1 when not. */
int report_run(const struct report_opts *o);

#endif
