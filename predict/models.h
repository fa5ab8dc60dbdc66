/* models: the registry of prediction models and the result every model fills.
 *
 * Each model applies one paper's equations to a parsed run (predict/profile.h) under a
 * scenario (predict/scenario.h) and returns a predicted time plus a breakdown: what each
 * loaded node and each changed link adds. A model that does not apply to the run says why
 * (status PRED_NA) instead of giving a number. */
#ifndef PREDICT_MODELS_H
#define PREDICT_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/profile.h"
#include "predict/scenario.h"

#define PRED_MAX_ITEMS 4096	/* breakdown rows per result; more are counted in dropped */

enum pred_status {
	PRED_OK = 0,		/* predicted_ns holds the prediction */
	PRED_NA = 1,		/* the model does not apply; why says why */
};

/* One breakdown row. */
struct pred_item {
	char kind[8];		/* "node", "link", "factor", "rate", "util", "master", "slave", "set" */
	char name[160];		/* "rank 2 (ws2)", "ws1-ws2", ... */
	double added_ns;	/* what this item alone adds to the dedicated time, ns; NAN for
				 * rows that only report a figure (value) */
	double value;		/* the item's own number (slowdown, increase fraction), NAN if none */
	char equation[40];	/* "003 Sec. 2.1", "000 eq. 2", ... */
	char detail[200];	/* the inputs it used, for people */
};

struct pred_result {
	enum pred_status status;
	char why[256];		/* PRED_NA: the reason */
	double dedicated_ns;	/* measured dedicated time the model started from */
	double predicted_ns;	/* the prediction (PRED_OK) */
	char equation[40];	/* equation of the total */
	char note[256];		/* assumptions worth printing, may be empty */
	int nitems;
	struct pred_item *items;	/* owned */
	int cap;
	long dropped;		/* items past PRED_MAX_ITEMS */
};

void pred_result_init(struct pred_result *r);
void pred_result_free(struct pred_result *r);	/* accepts a zeroed result; reusable after init */
/* Set PRED_NA with a reason; returns 0 so models can `return pred_na(...)`. */
int pred_na(struct pred_result *r, const char *fmt, ...) PRINTF(2, 3);
/* Append a breakdown row (value may be NAN); past the cap it is counted in dropped. */
void pred_add(struct pred_result *r, const char *kind, const char *name, double added_ns,
	      double value, const char *equation, const char *detail_fmt, ...) PRINTF(7, 8);

/* A model: fills r from the run and the scenario. Returns 0 (r->status says whether it
 * applied), or negative with e set when the inputs are broken (a missing file, say). */
typedef int (*model_fn)(const struct prof *p, const struct scen *s, struct pred_result *r,
			struct err *e);

/* The resources a scenario can change (pred_scen_changes) and a model can see (covers). */
enum pred_scope {
	SCOPE_CPU = 1,		/* CPU-bound competitors, load average, CPU capacity */
	SCOPE_COMM = 2,		/* communicating competitors on a node (comm_procs) */
	SCOPE_LINK = 4,		/* a link's bandwidth, latency or competing traffic */
	SCOPE_QUEUE = 8,	/* background arrivals (lambda, paper 004) */
	SCOPE_COLOC = 16,	/* several ranks on a node sharing its CPUs (a model's covers only) */
	SCOPE_SPEED = 32,	/* a run's node at another relative speed (paper 004's delta; a
				 * model's covers only: model_run checks the run's nodes) */
	SCOPE_OBSERVER = 64,	/* nothing but collect's own work taken away: a scenario
				 * without sections (the program alone, docs/scenario.md) */
};

struct model {
	const char *name;	/* for --model */
	const char *paper;	/* "003", "000", ... (the file in the papers directory) */
	const char *cite;	/* authors and short title */
	const char *equations;	/* which equations it implements */
	const char *inputs;	/* what it reads from the run and the scenario */
	model_fn predict;
	unsigned covers;	/* enum pred_scope bits the model sees */
};

extern const struct model models[];	/* terminated by a NULL name */
/* NULL when no model has that name. */
const struct model *model_find(const char *name);

/* The enum pred_scope bits of what s changes against the dedicated run: SCOPE_OBSERVER
 * alone for a scenario without [node], [rank] or [link] sections. */
unsigned pred_scen_changes(const struct scen *s);
/* Run model m on p under s, unless s changes a resource m does not see: then r is PRED_NA
 * with why naming the first such resource ("does not model ..."), because the model would
 * give a number that leaves the change out (the dedicated time, for a link change that a
 * CPU model ignores); or when s loads a CPU and the run has ranks sharing a node, unless m
 * covers SCOPE_COLOC. Returns what m->predict returns (0 for the refusal). */
int model_run(const struct model *m, const struct prof *p, const struct scen *s, struct pred_result *r,
	      struct err *e) WUR;

/* A resource-selection answer (`contend predict --select`): fills r with ranked rows
 * (kind "master", "slave", "set", ...) and predicted_ns the predicted time of the chosen
 * resources, or PRED_NA with the reason. s may hold no sections (all hosts are candidates).
 * policy: NULL or a selector-specific name. Returns 0, or negative with e set for broken
 * inputs or an unknown policy (-E_USAGE). */
typedef int (*select_fn)(const struct prof *p, const struct scen *s, const char *policy,
			 struct pred_result *r, struct err *e);

struct selector {
	const char *name;	/* "p001", "p004" */
	const char *paper;
	const char *question;	/* what it answers, for people */
	const char *policies;	/* the --policy names it knows, "" for none */
	select_fn select;
};

extern const struct selector selectors[];	/* terminated by a NULL name */

/* The share of a CPU the application gets on a node under the scenario: capacity (default 1)
 * divided by 1 + the competing CPU-bound processes (or 1 + the load average). n may be NULL
 * (1). Fair sharing among runnable processes is assumed (papers 001 and 002's Avail_CPU). */
double pred_cpu_share(const struct scen_node *n);

#endif
