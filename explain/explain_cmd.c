/* explain: the `contend explain` command: its options and the table of causes (the stage,
 * why a run was slow and its time split among causes, is explain/stage.c). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "explain/attrib.h"
#include "explain/stage.h"
#include "lib/err.h"

#define SHOW_MIN_PCT 0.5	/* causes below this share of the run are only in the file */

const char usage_explain[] =
	"usage: contend explain RUN [--baseline RUN2] [--all]\n"
	"\n"
	"Why was RUN slow? Splits the run's measured time among its causes, biggest first:\n"
	"CPU taken by other processes on a node (the ranks' run-queue wait in their busy\n"
	"phases and in the idle time before they answer a message, beyond what their own CPU\n"
	"limit and the node's other ranks impose, the wake-up delay of each message that\n"
	"found a rank waiting, and the node's CPU use), a slow or shared link (each rank\n"
	"pair's large messages against the same pair's of their size in the baseline, and its\n"
	"senders' waits behind them), imbalance (waiting for a rank that was late for its own\n"
	"reasons), start-up and finish. Each cause's cost is a counterfactual: the run's own\n"
	"trace replayed with that cause taken out. With every cause out the replay gives the\n"
	"ideal time; measured = ideal + causes + collect's own start-up (what its agents held\n"
	"the ranks' start, said apart: not the program's) + interaction, and what no cause\n"
	"explains is printed as the residual. With --baseline, a run of the same program (a\n"
	"dedicated one, say), each rank and each link is compared against it and the\n"
	"residual is the ideal time minus the baseline's; a rank without competitors that\n"
	"read busy beyond the baseline was polling, and that time is read as waiting. Reads\n"
	"RUN/profile/ (from 'contend parse'), RUN/samples/ and RUN/meta/: busy phases are\n"
	"rebuilt by demand (run time plus run-queue wait, weighted by the user share), so a\n"
	"starved rank reads busy and a rank polling in MPI reads idle. A partial trace (rank\n"
	"pairs on one node unseen, gaps in the capture, ranks without samples, parse\n"
	"warnings) is said in a note, and the causes it cannot back are marked '?'\n"
	"(uncertain). Writes RUN/explain.tsv (docs/formats.md). The method and its limits:\n"
	"docs/explain.md.\n"
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
	if (r->observer_evidence[0] != '\0')
		printf("%-39s %9.3f %7.1f  (not a cause of the program's: %s)\n", "collect's own start-up",
		       r->observer_ns / 1e9, 100 * r->observer_ns / T, r->observer_evidence);
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
		printf("%-39s %9.3f %7.1f  (ideal minus own work: communication at the\n%59s"
		       "links' references, latency, and what no cause explains)\n",
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
	struct explain_opts o = { 0 };
	struct explain_result r;
	bool all = false, quiet = false;
	struct err e;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "b:aqh", longopts, usage_explain)) != -1) {
		switch (c) {
		case 'b': o.baseline = optarg; break;
		case 'a': all = true; break;
		case 'q': quiet = true; break;
		default: die_usage("unexpected option");
		}
	}
	if (optind + 1 != argc)
		die_usage("explain takes one run directory (see 'contend explain --help')");
	o.run = argv[optind];
	rc = explain_run(&o, &r, &e);
	if (r.explained && !quiet)
		print_table(o.run, &r.a, all);
	explain_result_release(&r);
	if (rc < 0)
		die("%s", e.msg);
	return 0;
}
