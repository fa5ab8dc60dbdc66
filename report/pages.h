/* pages: the figures of a run's report, each built into a struct plot (report/plot.h).
 *
 * A page function fills p with one figure and returns 1; returns 0 with why filled when the
 * page does not apply to the run (the front page lists these); negative with why filled
 * when its inputs are broken. Pages only read the run (report/data.h) and call the predict
 * library; they never print. */
#ifndef REPORT_PAGES_H
#define REPORT_PAGES_H

#include <stddef.h>

#include "report/data.h"
#include "report/plot.h"

#define PAGE_TIMELINE_MAX_RANKS 64	/* boxes and arrows up to this many ranks, a heat map beyond */
#define PAGE_TIMELINE_MAX_PHASES 20000	/* phases drawn one by one; beyond, time bins */
#define PAGE_TIMELINE_MAX_ARROWS 1500	/* messages drawn; beyond, one in N (said in the title) */
#define PAGE_MATRIX_MAX_CELLS 64	/* ranks per matrix side; beyond, rank groups */
#define PAGE_GROUP_ABOVE 64		/* above this many ranks, per-rank pages draw rank groups */
#define PAGE_GROUPS 32			/* groups (rows of the table, bars of explain) at most */
#define PAGE_TOP_LINKS 12		/* busiest links listed; the rest are summed in one row */

/* What a page sees: the run it is drawn for and every run given on the command line. */
struct page_ctx {
	const struct rep_run *run;
	const struct rep_run *const *all;	/* [nall], includes run */
	int nall;
	int group_by;		/* rank groups: 0 automatic, -1 by node, N ranks per group */
};

typedef int (*page_fn)(const struct page_ctx *c, struct plot *p, char *why, size_t why_cap);

struct page {
	const char *id;		/* file name stem in RUN/figures/, e.g. "02-timeline" */
	const char *title;	/* for the front page's list */
	page_fn fn;		/* NULL: the topology page (RUN/topology.pdf placed as it is) */
};

/* Every page after the front page, in report order; terminated by a NULL id. */
extern const struct page pages[];

/* The front page: run facts, parse statistics and the list of pages left out.
 * included[i] / why[i] describe pages[i] (why[i] == NULL when it is included). */
int page_front(const struct page_ctx *c, struct plot *p, const int *included,
	       const char *const *why, char *err_why, size_t err_cap);

/* The slowdown of a rank with average busy and idle phases busy_ns, idle_ns under k
 * competing CPU-bound processes (paper 003 Section 2.1), as drawn on the slowdown page. */
double page_cpu_slowdown(double busy_ns, double idle_ns, int k);

#endif
