/* infer stage: the ENV logical network of a run, by probing, or from an edited DOT file
 * (the logic of `contend infer`). */
#ifndef INFER_STAGE_H
#define INFER_STAGE_H

#include <stdbool.h>
#include <stdio.h>

#include "infer/probe.h"
#include "lib/err.h"

/* What to infer and how: `contend infer`'s options. Strings are borrowed for the call.
 * Start from infer_opts_init's defaults. */
struct infer_opts {
	const char *run;		/* the run (passive), or NULL with probe or from_dot */
	const char *out;		/* where topology.* go; NULL: run (passive only) */
	const char *from_dot;		/* an (edited) topology.dot to write again, or NULL */
	bool probe;			/* measure actively (out needed) */
	bool no_render;			/* DOT and TSV only, no PDF or SVG */
	int testbed;			/* with probe: the testbed whose workstations run the
					 * agents, -1 none */
	struct probe_opts po;		/* with probe */
	FILE *graph;			/* where the graph's nets and links go once it is
					 * built, or NULL */
};

/* Defaults of every option (o->run, o->out or the mode still to be set). */
void infer_opts_init(struct infer_opts *o);

/* Infer as o says: from o->from_dot when set, else by probing when o->probe, else
 * passively from o->run; write OUT/topology.{dot,tsv} (and .pdf, .svg unless no_render;
 * passively also topology-tests.tsv). Progress and problems that leave a graph are said on
 * stderr. Returns 0; 1 when a drawing or a file failed or a capture was damaged (said);
 * with probe, the agent's or the testbed's status; or negative with e set when nothing
 * could be inferred or written (a missing run, no hosts, an unreadable DOT file, an
 * unwritable directory). o->out must be set with probe or from_dot. */
int infer_run(const struct infer_opts *o, struct err *e) WUR;

#endif
