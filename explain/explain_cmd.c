/* explain: the `contend explain` command: why a run was slow, its time split among causes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "explain/attrib.h"
#include "explain/evidence.h"
#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "predict/profile.h"

#define SHOW_MIN_PCT 0.5	/* causes below this share of the run are only in the file */

const char usage_explain[] =
	"usage: contend explain RUN [--baseline RUN2] [--all]\n"
	"\n"
	"Why was RUN slow? Splits the run's measured time among its causes, biggest first:\n"
	"CPU taken by other processes on a node (the ranks' run-queue wait in their busy\n"
	"phases and in the idle time before they answer a message, beyond what their own CPU\n"
	"limit and the node's other ranks impose, the wake-up delay of each message that\n"
	"found a rank waiting, and the node's CPU use), a slow or shared link (each rank pair's\n"
	"large messages against the best throughput the pair reached), imbalance (waiting for\n"
	"a rank that was late for its own reasons), start-up and finish. Each cause's cost is\n"
	"a counterfactual: the run's own trace replayed with that cause taken out. With every\n"
	"cause out the replay gives the ideal time; measured = ideal + causes + interaction,\n"
	"and what no cause explains is printed as the residual. With --baseline, a run of the\n"
	"same program (a dedicated one, say), each rank and each link is compared against it\n"
	"and the residual is the ideal time minus the baseline's. Reads RUN/profile/ (from\n"
	"'contend parse') and RUN/samples/: busy phases are rebuilt by demand (run time plus\n"
	"run-queue wait, weighted by the user share), so a starved rank reads busy and a rank\n"
	"polling in MPI reads idle. A partial trace (rank pairs on one node unseen, gaps in\n"
	"the capture, ranks without samples, parse warnings) is said in a note, and the\n"
	"causes it cannot back are marked '?' (uncertain). Writes RUN/explain.tsv\n"
	"(docs/formats.md). The method and its limits: docs/explain.md.\n"
	"\n"
	"options:\n"
	"  -b, --baseline RUN2   compare against RUN2, parsed the same way\n"
	"  -a, --all             print every cause (default: those costing 0.5 % or more)\n"
	"  -q, --quiet           no table, only RUN/explain.tsv\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 explained, 1 on an error (a run without ranks.tsv), 2 on a usage error.\n"
	"\n"
	"examples:\n"
	"  contend parse run1 && contend explain run1\n"
	"  contend explain run-loaded --baseline run-dedicated\n";

static void
load_run(struct prof *p, struct evid *v, const char *run)
{
	struct err e;

	if (prof_load(p, run, &e) < 0) {
		prof_free(p);
		die("%s", e.msg);
	}
	evid_load(v, p);
	if (p->damaged > 0 || v->damaged > 0)
		warnx_("'%s': %ld damaged rows skipped", run, p->damaged + v->damaged);
}

/* One row of explain.tsv. */
static void
row(struct tsv_w *t, const char *kind, const char *where, const char *h1, const char *h2, int rank,
    double ns, double T, const char *evidence)
{
	tsv_w_str(t, kind);
	tsv_w_str(t, where != NULL && *where ? where : "-");
	tsv_w_str(t, h1 != NULL && *h1 ? h1 : "-");
	tsv_w_str(t, h2 != NULL && *h2 ? h2 : "-");
	tsv_w_i64(t, rank);
	tsv_w_i64(t, isfinite(ns) ? (int64_t)llround(ns) : -1);
	tsv_w_f64(t, isfinite(ns) && T > 0 ? round(1e4 * ns / T) / 1e4 * 100 : NAN);
	tsv_w_str(t, evidence != NULL && *evidence ? evidence : "-");
}

static int
write_tsv(const char *run, const char *baseline, const struct attr_result *r, struct err *e)
{
	static const char *const cols[] = { "kind", "where", "host", "host2", "rank", "time_ns", "pct",
					    "evidence", NULL };
	char *path = xasprintf("%s/explain.tsv", run);
	double T = r->measured_ns;
	struct tsv_w t;
	int rc;

	rc = tsv_w_open(&t, path, "explain", 1, cols, false, true, e);
	free(path);
	if (rc < 0)
		return rc;
	rc = tsv_w_comment(&t, e, "baseline %s", baseline != NULL ? baseline : "-");
	row(&t, "measured", NULL, NULL, NULL, -1, T, T, "the longest rank's exec time");
	rc = rc < 0 ? rc : tsv_w_end(&t, e);
	for (int i = 0; i < r->n && rc == 0; i++) {
		const struct attr_cause *c = &r->c[i];

		row(&t, attr_kind_name(c->kind), c->where, c->host, c->host2, c->rank, c->cost_ns, T, c->evidence);
		rc = tsv_w_end(&t, e);
	}
	if (rc == 0) {
		row(&t, "interaction", NULL, NULL, NULL, -1, r->interaction_ns, T, "what the causes cost beyond their sum");
		rc = tsv_w_end(&t, e);
	}
	if (rc == 0 && isfinite(r->cpu_all_ns)) {
		row(&t, "cpu-all", NULL, NULL, NULL, -1, r->cpu_all_ns, T, "every node's cpu cause together (not in the sum)");
		rc = tsv_w_end(&t, e);
	}
	if (rc == 0 && isfinite(r->link_all_ns)) {
		row(&t, "link-all", NULL, NULL, NULL, -1, r->link_all_ns, T, "every link at its best together (not in the sum)");
		rc = tsv_w_end(&t, e);
	}
	if (rc == 0) {
		row(&t, "ideal", NULL, NULL, NULL, -1, r->ideal_ns, T, "the replay with every cause taken out");
		rc = tsv_w_end(&t, e);
	}
	if (rc == 0) {
		row(&t, "work", NULL, NULL, NULL, -1, r->work_ns, T, "own work per rank (the mean)");
		rc = tsv_w_end(&t, e);
	}
	if (rc == 0 && isfinite(r->baseline_ns)) {
		row(&t, "baseline", NULL, NULL, NULL, -1, r->baseline_ns, T, baseline);
		rc = tsv_w_end(&t, e);
	}
	if (rc == 0) {
		row(&t, "residual", NULL, NULL, NULL, -1, r->residual_ns, T,
		    isfinite(r->baseline_ns) ? "ideal minus baseline" : "ideal minus own work: communication, latency, unseen");
		rc = tsv_w_end(&t, e);
	}
	for (int i = 0; i < r->nranks && rc == 0; i++) {
		const struct attr_rank *a = &r->ranks[i];
		const struct {
			const char *kind;
			double ns;
		} parts[] = { { "rank-work", a->work_ns }, { "rank-cpu", a->cpu_wait_ns }, { "rank-net", a->net_ns },
			      { "rank-others", a->others_ns }, { "rank-startup", a->startup_ns } };

		for (size_t k = 0; k < sizeof parts / sizeof parts[0] && rc == 0; k++) {
			row(&t, parts[k].kind, NULL, NULL, NULL, a->rank, parts[k].ns, a->exec_ns, NULL);
			rc = tsv_w_end(&t, e);
		}
	}
	if (rc < 0) {
		(void)tsv_w_close(&t, NULL);
		return rc;
	}
	return tsv_w_close(&t, e);
}

static void
print_table(const char *run, const struct attr_result *r, bool all)
{
	double T = r->measured_ns;
	int hidden = 0;

	printf("run %s: %.3f s measured (the longest rank)", run, T / 1e9);
	if (isfinite(r->baseline_ns))
		printf(", baseline %.3f s (%+.1f %%)", r->baseline_ns / 1e9, 100 * (T - r->baseline_ns) / r->baseline_ns);
	printf("\n\n%-10s %-28s %9s %7s  %s\n", "cause", "where", "cost s", "% run", "evidence");
	for (int i = 0; i < r->n; i++) {
		const struct attr_cause *c = &r->c[i];
		double pct = 100 * c->cost_ns / T;

		if (!all && fabs(pct) < SHOW_MIN_PCT) {
			hidden++;
			continue;
		}
		printf("%-10s %-28s %8.3f%c %7.1f  %s\n", attr_kind_name(c->kind), c->where, c->cost_ns / 1e9,
		       c->uncertain ? '?' : ' ', pct, c->evidence);
	}
	if (hidden > 0)
		printf("(%d more below %.1f %% of the run: --all)\n", hidden, SHOW_MIN_PCT);
	printf("\n%-39s %9.3f %7.1f\n", "sum of the causes", r->causes_ns / 1e9, 100 * r->causes_ns / T);
	if (isfinite(r->cpu_all_ns))
		printf("%-39s %9.3f %7.1f  (not in the sum)\n", "cpu of every node taken out together",
		       r->cpu_all_ns / 1e9, 100 * r->cpu_all_ns / T);
	if (isfinite(r->link_all_ns))
		printf("%-39s %9.3f %7.1f  (not in the sum)\n", "every link at its best together",
		       r->link_all_ns / 1e9, 100 * r->link_all_ns / T);
	printf("%-39s %9.3f %7.1f  (negative: the causes overlap)\n", "interaction", r->interaction_ns / 1e9,
	       100 * r->interaction_ns / T);
	printf("%-39s %9.3f %7.1f  (own work %.3f s per rank)\n", "without every cause (ideal)", r->ideal_ns / 1e9,
	       100 * r->ideal_ns / T, r->work_ns / 1e9);
	if (isfinite(r->baseline_ns))
		printf("%-39s %9.3f %7.1f  (ideal minus the baseline: not explained)\n", "residual", r->residual_ns / 1e9,
		       100 * r->residual_ns / T);
	else
		printf("%-39s %9.3f %7.1f  (ideal minus own work: communication at the best\n%59s"
		       "throughput seen, latency, and what no cause explains)\n",
		       "residual", r->residual_ns / 1e9, 100 * r->residual_ns / T, "");
	if (r->note[0] != '\0')
		printf("note: %s\n", r->note);
}

int
cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "all", no_argument, NULL, 'a' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run, *base = NULL;
	bool all = false, quiet = false;
	struct prof p, bp;
	struct evid v, bv;
	struct attr_result r;
	struct err e;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "b:aqh", longopts, usage_explain)) != -1) {
		switch (c) {
		case 'b': base = optarg; break;
		case 'a': all = true; break;
		case 'q': quiet = true; break;
		default: die_usage("unexpected option");
		}
	}
	if (optind + 1 != argc)
		die_usage("explain takes one run directory (see 'contend explain --help')");
	run = argv[optind];
	load_run(&p, &v, run);
	if (base != NULL)
		load_run(&bp, &bv, base);
	rc = attr_explain(&p, &v, base != NULL ? &bp : NULL, base != NULL ? &bv : NULL, &r, &e);
	if (rc == 0) {
		if (!quiet)
			print_table(run, &r, all);
		rc = write_tsv(run, base, &r, &e);
	}
	attr_result_free(&r);
	evid_free(&v);
	prof_free(&p);
	if (base != NULL) {
		evid_free(&bv);
		prof_free(&bp);
	}
	if (rc < 0)
		die("%s", e.msg);
	return 0;
}
