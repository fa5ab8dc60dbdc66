/* predict stage: what-if predictions for a parsed run (the logic of `contend predict`). */
#ifndef PREDICT_STAGE_H
#define PREDICT_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/calib.h"
#include "predict/headline.h"
#include "predict/models.h"
#include "predict/p000.h"
#include "predict/profile.h"
#include "predict/scenario.h"

#define PREDICT_MAX_MODELS 32
#define PREDICT_MAX_DEDICATED 15	/* --dedicated runs */

/* A prediction: `contend predict RUN --scenario FILE`'s options. Strings are borrowed for
 * the call. */
struct predict_opts {
	const char *run;		/* the parsed run */
	const char *scenario;		/* the scenario file */
	const char *model;		/* only this model (models[]), or NULL: every one */
	const char *const *dedicated;	/* other dedicated runs of the program, for the spread */
	int ndedicated;			/* at most PREDICT_MAX_DEDICATED */
	const char *errors;		/* the measured errors (contend-accuracy), NULL: the default */
	const char *delay_comm;		/* paper 000's curves over the scenario's, or NULL */
	double sleep_credit;		/* share of a rank's sleep credited back (p003), 1 the paper's */
	const char *observer_cost;	/* collect's capture cost per packet: ns, a
					 * contend-observer-cost file or "none"; NULL the
					 * calibration beside the binary (load_observer_cost) */
};

/* The --select questions: `contend predict --select RUN`'s options. */
struct predict_select_opts {
	const char *run;
	const char *scenario;		/* candidates from its [select], or NULL: every host */
	const char *model;		/* only this selector, or NULL */
	const char *policy;		/* p004's policy, or NULL: its default */
	double sleep_credit;
};

/* The headline: the pick, its interval and what the interval came from. */
struct predict_headline {
	struct hl_answer a;		/* a.pick < 0: no model gives a number */
	int kind;			/* the program's kind (hl_kind_name) */
	char why[256];			/* why that kind */
	const char *cls;		/* the scenario's class (hl_scen_class), static */
	char source[300];		/* where the measured errors came from */
	char err_terms[48];		/* the model-error terms, "-3.1/+2.0 %" */
	char spread_terms[48];		/* the dedicated runs' spread */
	char dis_terms[48];		/* the other models' disagreement */
	char detail[512];		/* the TSV rows' detail */
};

/* What a prediction or a selection found; release with predict_result_release. */
struct predict_result {
	struct prof p;			/* the run's profile */
	struct scen s;			/* the scenario ("all" for a selection without one) */
	bool has_scen;			/* s loaded */
	double T;			/* the measured dedicated time, ns */
	int64_t measured_ns;		/* measured under the scenario, -1 unknown */
	char *note_tail;		/* "note: ..." about a hung end, or NULL; owned */
	char *note_cov;			/* "note: ..." about a partial trace, or NULL; owned */
	char *note_start;		/* "note: ..." about the ranks' starts apart, or NULL; owned */
	bool ran;			/* the models ran (false: the scenario changes nothing the
					 * run uses, said on stderr) */
	int nm;				/* models (or selectors) run */
	const struct model *ms[PREDICT_MAX_MODELS];	/* borrowed: models[] or as_model */
	struct pred_result rs[PREDICT_MAX_MODELS];	/* owned */
	struct model as_model[8];	/* a selector's name and paper, as a model */
	struct predict_headline hl;	/* predict_run only */
	char *tsv_path;			/* RUN/predict/<name>.tsv written, or NULL when writing
					 * failed (why in tsv_err); owned */
	struct err tsv_err;
	bool partial;			/* the profile is partial */
};

/* Defaults of every option (o->run and o->scenario still to be set). */
void predict_opts_init(struct predict_opts *o);

/* Run every model (or o->model) on o->run under o->scenario, pick the headline and write
 * RUN/predict/<name>.tsv. Problems with the run or the scenario that leave an answer are
 * warned about on stderr. Returns 0 when a model gave a number, the profile was complete
 * and the TSV was written; 1 when not; or negative with e set (an unreadable scenario,
 * profile or --errors file; -E_USAGE for a bad option). r is filled when the return is not
 * negative (with a negative return, r's notes are set when the profile was read), and
 * must be released in every case. */
int predict_run(const struct predict_opts *o, struct predict_result *r, struct err *e) WUR;

/* The selectors (or o->model's) on o->run: ranked rows in r, RUN/predict/select-<name>.tsv
 * written. Returns as predict_run; -E_USAGE for an unknown selector or a policy the
 * selector refuses (r then holds the selectors before it, r->ran set). */
int predict_select(const struct predict_select_opts *o, struct predict_result *r, struct err *e) WUR;

/* Free what r holds; accepts a zeroed result. */
void predict_result_release(struct predict_result *r);

/* Paper 000's delay_comm calibration on a running testbed: measure (fn called per point),
 * fit, and save the curves to out; d receives them. Returns 0, or negative with e set (a
 * failed measurement's message says which testbed it expected). */
int predict_calibrate(struct calib_opts *o, const char *out, calib_progress_fn fn, void *arg,
		      struct p000_delay *d, struct err *e) WUR;

#endif
