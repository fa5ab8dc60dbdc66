/* headline: the one answer `contend predict` leads with: the model the scope rules pick for
 * a run and a scenario, and an interval whose width comes from what was measured
 * (docs/validation.md, "The headline answer").
 *
 * The rules: the first model of p001, replay, p003, p000, p004, p002 that gives a number
 * (model_run refuses a model that does not see a resource the scenario changes; p001 counts
 * only for master/slave runs of 3 ranks or more, the load balancing paper 003 Sec. 5 leaves
 * out), unless the error table says otherwise: on the measured cells of this class of
 * scenario and of the run's kind (none for a run of no known kind), another model that gave
 * a number wins when it is closer to the measured median than the rules' pick on at least
 * HL_PICK_WIN of HL_PICK_MIN or more shared cells and on average (|log(measured/predicted)|).
 *
 * The interval around the pick's prediction P: the empirical quantiles (HL_COVER central)
 * of the pick's signed error log(measured median / predicted) over the table's cells of
 * every class of scenario, shrunk toward this class's (weight n / (n + HL_SHRINK)) and then
 * toward this kind's in this class (cells of HL_MIN_PROGS programs or more), each clipped to
 * keep P inside; on each side the root sum of squares with the dedicated runs' spread,
 * (slowest - fastest) / 2 / median, and the measured noise (the median of the table cells'
 * (slowest - fastest) / 2 / median). Cells of the program named leave_out never count: the
 * scoring in bench/realapps leaves the scored program out. With no cell of the model at
 * all, the models' disagreement (half the distance from P to the median of the other
 * models, on that side) stands in for the error term. */
#ifndef PREDICT_HEADLINE_H
#define PREDICT_HEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/err.h"
#include "predict/models.h"
#include "predict/profile.h"
#include "predict/scenario.h"

#define HL_MIN_PROGS 3		/* programs of the run's kind (in the class's cells) below which
				 * the kind's own cells do not count */
#define HL_COVER 0.9		/* the interval's nominal central share */
#define HL_SHRINK 4.0		/* cells the wider pool's quantiles are worth against a narrower one's */
#define HL_PICK_MIN 8		/* shared cells of the run's kind below which the rules stand */
#define HL_PICK_WIN 0.75	/* share of the shared cells the other model must be closer on */
#define HL_MAX_CELLS 100000	/* rows kept from an error table */

/* Kinds of program (bench/realapps covers each). */
enum hl_kind {
	HL_HALO = 0,		/* each rank exchanges with a few neighbours, both ways */
	HL_COLLECTIVE,		/* every rank with every other, balanced volumes (all-to-all, allreduce) */
	HL_P2P,			/* point-to-point, irregular partners or volumes */
	HL_FARM,		/* master/slave (run001_ms_pattern), 3 ranks or more (with one
				 * slave no work can move) */
	HL_COMPUTE,		/* fewer than 2 data messages per rank per second, under 2 % of the link */
	HL_NKINDS
};

/* "halo", "collective", "p2p", "farm", "compute"; "-" for anything else. */
const char *hl_kind_name(int kind);
/* The kind named by a kind name or by one of bench/accuracy's workloads (stencil, alltoall,
 * solver, farm, compute); -1 when unknown. */
int hl_kind_from_name(const char *name);
/* The run's kind from its messages; why says what decided it. */
int hl_classify(const struct prof *p, char *why, size_t whylen);

/* The kind of scenario: "cpu" (CPU changed on one node), "link", "both" (CPU on one node
 * and links), "agg" (communicating competitors or CPU on several nodes, with or without
 * links), "queue" (background arrivals), "bare" (no sections: nothing but collect's own
 * work taken away, the program alone), "none". */
const char *hl_scen_class(const struct scen *s);
/* The same for a scenario name of bench/accuracy or bench/realapps ("cpu1", "cpu2" -> "cpu",
 * "strict" -> "link");
 * other names are returned as they are. Borrowed or static. */
const char *hl_scen_class_of_name(const char *name);

/* One measured cell: a model's prediction of one program under one scenario against that
 * scenario's measured runs. */
struct hl_cell {
	int kind;		/* enum hl_kind, -1 unknown */
	char workload[48];	/* the table's workload: one program, layout, MPI */
	char prog[32];		/* the program: the workload up to its first '-' */
	char sname[16];		/* the scenario as named in the table (cpu1, cpu2, ...) */
	char scen[16];		/* hl_scen_class_of_name of the scenario */
	char model[16];		/* "p001-u" is stored as "p001" */
	double pred_ns;		/* the prediction */
	double med_ns;		/* the measured median (measured_ns; the mid-range without it) */
	double min_ns, max_ns;	/* the fastest and the slowest measured run */
	double ded_spread;	/* the dedicated runs' spread (dedicated_spread; -1 without) */
};

struct hl_table {
	int n, cap;
	struct hl_cell *cells;	/* owned */
	const struct hl_cell **by_key;	/* owned: cells by workload, scenario, model (hl_table_load) */
	char source[300];	/* where the cells came from, for people */
	long skipped;		/* rows not used: other models, damaged or implausible */
};

/* Read a contend-accuracy file (bench/accuracy's, bench/realapps'; docs/formats.md): the
 * kind from its kind column when it has one, else from the workload name; the optional
 * dedicated_spread column (a fraction) is for hl_score. Rows of models
 * other than p000, p001(-u), p002, p003, p004 and replay, and damaged rows, are counted in
 * skipped. Returns 0, or negative with e set (nothing to free then). */
int hl_table_load(struct hl_table *t, const char *path, struct err *e) WUR;
/* The built-in table: bench/results/accuracy.tsv's rows of p003, p000, replay and p001-u. */
void hl_table_builtin(struct hl_table *t);
void hl_table_free(struct hl_table *t);

/* The scope rules: the index into ms/rs of the headline model, -1 when none gave a number.
 * p001 is picked only for a run of kind HL_FARM. */
int hl_pick(const struct model *const *ms, const struct pred_result *rs, int nm, int kind);
/* The pick with the error table: rule (hl_pick's) unless the table's cells, without
 * leave_out's (NULL: none), show another model closer (above). *ncmp: the shared cells the
 * choice was made on (0: no data, the rules stand); *own: they were of the run's kind. */
int hl_pick_data(const struct hl_table *t, const char *leave_out, int kind, const char *scen_class,
		 const struct model *const *ms, const struct pred_result *rs, int nm, int rule, int *ncmp,
		 bool *own);

struct hl_answer {
	int pick;		/* index into ms/rs, -1: no model applies */
	int rule;		/* the scope rules' own pick */
	int ncmp;		/* shared cells the pick was checked on, 0: the rules alone */
	bool cmp_own;		/* they were of the run's kind */
	double pred_ns;		/* the pick's prediction */
	double lo_ns, hi_ns;	/* the interval */
	double err_lo, err_hi;	/* the model-error terms, log(measured / predicted) >= 0, down and up */
	int nall, nclass, nkind;	/* the pick's cells: every class, this class, this class and kind */
	int nkind_progs;	/* the programs the kind's cells come from */
	double noise;		/* the measured noise term, fraction */
	double spread;		/* the dedicated runs' term, fraction */
	int nded;		/* dedicated runs it came from */
	double dis_lo, dis_hi;	/* the disagreement terms, fractions >= 0 */
	int nother;		/* other models that gave a number */
	double race;		/* the rendezvous race (hl_race), fraction of pred_ns, 0 none */
};

/* The headline for a run of kind `kind` under a scenario of class scen_class: the pick among
 * ms/rs and its interval, from t's cells without those of program leave_out (NULL: none).
 * ded_ns: the exec times of the dedicated runs (nded >= 1). */
void hl_answer(const struct hl_table *t, const char *leave_out, int kind, const char *scen_class,
	       const struct model *const *ms, const struct pred_result *rs, int nm, const double *ded_ns, int nded,
	       struct hl_answer *a);

/* Widen a's interval for the rendezvous race (replay_race_ns): what the run would take if
 * every rendezvous pair on a changed link went one after the other instead of side by side,
 * race_ns more; no model decides it, so the interval reaches at least that far up. The
 * prediction stays. */
void hl_race(struct hl_answer *a, double race_ns);

/* Score the headline on t itself, leave one program out: for every (workload, scenario) of
 * t, in the order of their names, the models' predictions from its rows, the pick and the
 * interval from the other programs' cells, the dedicated spread from its dedicated_spread
 * column. One TSV row per cell on out (workload, scenario, kind, pick, rule, predicted_ns,
 * lo_ns, hi_ns, measured_ns, inside, width_pct, error_pct). Returns the cells scored. */
int hl_score(const struct hl_table *t, FILE *out);

#endif
