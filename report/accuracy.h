/* accuracy: the validation report of a results directory written by bench/accuracy: paper 003
 * Figure 3 across workloads, Figure 4 per scenario, and the error summary against the papers.
 *
 * Reads DIR/accuracy.tsv (format "accuracy" v1) and DIR/fig3.tsv (format "fig3" v1) through
 * lib/tsv.h with every field checked (docs/formats.md, "accuracy"). A damaged row is counted
 * and skipped; a row that parses but whose error_pct disagrees with its times is kept (the
 * error is recomputed) and counted in inconsistent. Arrays have caps; rows past a cap are
 * counted in *_dropped. Nothing here prints: the command layer (report_cmd.c) does. */
#ifndef REPORT_ACCURACY_H
#define REPORT_ACCURACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "report/plot.h"

#define ACC_MAX_ROWS 4096	/* rows kept from accuracy.tsv */
#define ACC_MAX_FIG3 64		/* rows kept from fig3.tsv */
#define ACC_MAX_SCEN 16		/* scenarios (one chart page each) */
#define ACC_MAX_WORK 24		/* workloads (bar groups per chart) */
#define ACC_MAX_MODEL 7		/* models (predicted bars per group): six and contend's pick */
#define ACC_NAME_MAX 64		/* workload, scenario and model names, NUL included */
#define ACC_ERR_TOL_PCT 0.06	/* error_pct may differ this much from the recomputed error
				 * (the file prints one decimal) */

struct acc_row {		/* one row of accuracy.tsv */
	char workload[ACC_NAME_MAX], scenario[ACC_NAME_MAX], model[ACC_NAME_MAX];
	double dedicated_ns, predicted_ns, measured_ns;	/* NAN unknown (-1 in the file) */
	double measured_min_ns, measured_max_ns;	/* NAN unknown */
	int64_t reps;			/* runs behind the measured time */
	double error_pct;		/* 100 (predicted - measured) / measured, recomputed; NAN unknown */
	char description[256];		/* the scenario in words */
};

struct acc_fig3 {		/* one row of fig3.tsv: a workload's dedicated run */
	char workload[ACC_NAME_MAX];
	double exec_ns;			/* dedicated run time */
	double comp_pct, comm_pct, idle_pct;	/* mean over ranks, NAN unknown */
	double avg_busy_ns, avg_idle_ns;	/* mean over ranks, NAN unknown */
	int64_t link_msgs;		/* messages on the busiest link, -1 unknown */
	double link_avg_bytes;		/* their average payload, NAN unknown */
	int64_t ranks;
};

struct acc_sum {		/* one (scenario, model) of the summary */
	char scenario[ACC_NAME_MAX], model[ACC_NAME_MAX];
	int nrows;			/* workloads with a row */
	int n;				/* of which with a known error */
	double avg_abs_pct, max_abs_pct;	/* mean and largest |error|, NAN when n == 0 */
	double paper_avg_pct, paper_max_pct;	/* the paper's figures, NAN when it gives none */
};

struct acc_data {
	char *dir;			/* owned */
	struct acc_row *rows;		/* owned [nrows], file order */
	int nrows;
	long rows_dropped;		/* past ACC_MAX_ROWS, or of a scenario/workload/model past its cap */
	struct acc_fig3 *fig3;		/* owned [nfig3], file order */
	int nfig3;
	long fig3_dropped;
	bool have_fig3;			/* fig3.tsv read with at least one usable row */
	char fig3_why[ERR_MSG_MAX];	/* why not, when !have_fig3 */
	/* Names in order of first appearance in accuracy.tsv. */
	int nscen, nwork, nmodel;
	char scen[ACC_MAX_SCEN][ACC_NAME_MAX];
	char work[ACC_MAX_WORK][ACC_NAME_MAX];
	char model[ACC_MAX_MODEL][ACC_NAME_MAX];
	long damaged;			/* rows skipped as damaged (both files) */
	char first_damage[ERR_MSG_MAX];
	long inconsistent;		/* rows whose error_pct disagrees with their times */
	char first_inconsistent[ERR_MSG_MAX];
};

/* Read dir/accuracy.tsv and dir/fig3.tsv. Returns 0, or negative with e set when
 * accuracy.tsv cannot be used: -E_IO (missing or unreadable), -E_FORMAT (not that format,
 * a column missing, or no usable row: the message names the file), -E_UNSUP (newer version).
 * A missing or unusable fig3.tsv is not an error here: have_fig3 is false and fig3_why says
 * why. Free with acc_free (also after a failure). */
int acc_load(struct acc_data *d, const char *dir, struct err *e) WUR;
void acc_free(struct acc_data *d);	/* accepts a zeroed struct */

/* The paper's error figures for a scenario predicted by a model: paper 003 for p003 with
 * cpu1, link and both (Section 4: average 2.3 / 2.0 / 5.7 %, largest 7.8 / 7.4 / 11.8 %),
 * paper 000 for p000 with agg (within 15 %). Returns true and sets both (NAN for a figure the
 * paper does not give), false for any other pair. */
bool acc_paper(const char *scenario, const char *model, double *avg_pct, double *max_pct);

/* The summary, one entry per (scenario, model) that has rows, scenarios and models in file
 * order, into out (cap entries). Returns the number of entries. Cannot fail. */
int acc_summarize(const struct acc_data *d, struct acc_sum *out, int cap);

/* Write the summary as path (format "accuracy-summary" v1), replacing it. Returns 0, or
 * negative with e set (from lib/tsv.h). */
int acc_write_summary(const char *path, const struct acc_sum *s, int n, struct err *e) WUR;

/* A file name stem for scenario i's chart: "fig4-" and the scenario name with every byte
 * other than letters, digits, '-' and '_' made '_', cut to fit cap. */
void acc_scen_stem(const struct acc_data *d, int i, char *dst, size_t cap);

/* The pages, each filling p with one figure. Return 1 drawn, 0 with why filled when there
 * is nothing to draw, negative with why filled when the figure cannot be built. */
int acc_page_fig3(const struct acc_data *d, struct plot *p, char *why, size_t why_cap);
int acc_page_scenario(const struct acc_data *d, int i, struct plot *p, char *why, size_t why_cap);
int acc_page_summary(const struct acc_data *d, const struct acc_sum *s, int n, struct plot *p,
		     char *why, size_t why_cap);

#endif
