/* predict: the `contend predict` command: its options and what it prints (the stage is
 * predict/stage.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/err.h"
#include "predict/calib.h"
#include "predict/headline.h"
#include "predict/models.h"
#include "predict/p000.h"
#include "predict/predict_cmd.h"
#include "predict/stage.h"

const char usage_predict[] =
	"usage: contend predict RUN --scenario FILE [--model NAME] [--dedicated RUN2]... [--errors FILE]\n"
	"       contend predict --select RUN [--scenario FILE] [--policy NAME] [--model NAME]\n"
	"       contend predict --score TABLE\n"
	"       contend predict --list-models\n"
	"       contend predict --calibrate-delay-comm [--instance K] [--points N] [-o FILE]\n"
	"\n"
	"Predict how long the run in RUN would take under the what-if scenario FILE (an INI\n"
	"file, docs/scenario.md): competing processes on nodes, slower or shared links, a\n"
	"partitioning policy. The first line is the answer: the prediction of the model the\n"
	"scope rules pick for this run and scenario (or of another that was closer on enough\n"
	"measured cells), with an interval from what was measured (the quantiles of the\n"
	"model's error on other programs, the dedicated runs' spread, the measured noise;\n"
	"docs/validation.md). Then the measured dedicated time, each\n"
	"model's prediction and what each loaded node and changed link adds. Writes\n"
	"RUN/predict/<name>.tsv (<name>: FILE's base name without .ini; format in\n"
	"docs/formats.md). A model that does not apply to the run, or does not see a resource\n"
	"the scenario changes, says why instead of giving a number. Reads RUN/profile/ (from\n"
	"'contend parse') and RUN/topology.tsv when present.\n"
	"\n"
	"options:\n"
	"  -s, --scenario FILE        the scenario\n"
	"  -m, --model NAME           only this model (see --list-models)\n"
	"  -d, --dedicated RUN2       another dedicated run of the same program (parsed; up to\n"
	"                             15): the runs' spread widens the interval\n"
	"  -e, --errors FILE          the models' measured errors for the interval: a\n"
	"                             contend-accuracy file (bench/accuracy, bench/realapps);\n"
	"                             default bench/realapps' table of the run's platform:\n"
	"                             ranks with a whole CPU each, the 2x1 layout's, else the\n"
	"                             4x1 layout's (shared cores), beside the binary's source\n"
	"                             tree or installed in ../share/contend; else the built-in\n"
	"                             bench/results/accuracy.tsv\n"
	"      --score TABLE          score the headline on a contend-accuracy TABLE with a kind\n"
	"                             column, leave one program out: per cell, the pick and the\n"
	"                             interval from the other programs' cells and the models'\n"
	"                             numbers in TABLE; one TSV row per cell on stdout\n"
	"                             (bench/realapps/score.sh)\n"
	"  -l, --list-models          list the models, their papers and inputs\n"
	"      --select               answer the papers' resource questions, ranked: best master\n"
	"                             and slaves (p001), best processor set (p004); candidates\n"
	"                             from the scenario's [select], else every host; writes\n"
	"                             RUN/predict/select-<name>.tsv\n"
	"  -p, --policy NAME          p004's selection policy: fig5, greedy, cost (eq. 35 with\n"
	"                             [policy] x and node cost), goal ([policy] deadline) or\n"
	"                             budget ([policy] budget); default greedy, or fig5 when\n"
	"                             every node has the same speed\n"
	"      --delay-comm FILE      paper 000's delay_comm curves from FILE (a calibration,\n"
	"                             format delaycomm), whatever the scenario says\n"
	"      --sleep-credit F       share of a rank's sleep the scheduler credits back (p003,\n"
	"                             docs/predict.md): 1 the paper's (default), 0 Linux's EEVDF\n"
	"      --observer-cost C      what collect's capture cost a rank per packet it sent: ns,\n"
	"                             a file from bench/observer_cost.sh, or none; the replay\n"
	"                             does not stretch that time on a loaded node (default the\n"
	"                             calibration beside the binary's source tree or in\n"
	"                             ../share/contend, else none)\n"
	"      --calibrate-delay-comm measure paper 000's delay_comm curves on a running testbed\n"
	"                             (docs/validation.md): a CPU-bound probe in ws1 against 1..3\n"
	"                             transfers to ws2 at several caps of ws1's link; about 1 min\n"
	"  -I, --instance K           the testbed instance to calibrate on (default 0)\n"
	"      --points N             link caps to measure, 4..16 (default 4), 8 to 512 Mbit/s\n"
	"      --competitors N        communicating competitors 1..N (default 3, at most 8)\n"
	"      --probe-ms MS          CPU work of one probe (default 300)\n"
	"      --reps N               probes per point, the median is kept (default 1)\n"
	"  -o, --out FILE             where --calibrate-delay-comm writes its curves\n"
	"                             (default delaycomm.tsv)\n"
	"  -h, --help                 this text\n"
	"\n"
	"Exit status: 0 when at least one model gave a prediction, 1 when none did or on an\n"
	"error, 2 on a usage error.\n"
	"\n"
	"examples:\n"
	"  contend predict --list-models\n"
	"  contend predict traces/stencil-4ws --scenario traces/scenarios/stencil-load-c3ws2.ini\n"
	"  contend predict RUN --scenario docs/scenarios/slow-link.ini --model p003\n"
	"  contend predict RUN1 --scenario S.ini --dedicated RUN2 --dedicated RUN3\n"
	"  contend predict RUN --scenario docs/scenarios/background-queue.ini --model p004\n"
	"  contend predict --select RUN --scenario docs/scenarios/background-queue.ini --policy cost\n"
	"  contend testbed up -n 3 && contend predict --calibrate-delay-comm -o dc.tsv\n"
	"  contend predict RUN --scenario docs/scenarios/shared-cluster.ini --delay-comm dc.tsv\n";

static void
list_models(void)
{
	for (const struct model *m = models; m->name != NULL; m++) {
		printf("%s  (paper %s) %s\n", m->name, m->paper, m->cite);
		printf("    equations: %s\n", m->equations);
		printf("    inputs:    %s\n", m->inputs);
		printf("    sees:      %s%s%s%s%s (a scenario changing anything else: does not apply)\n",
		       m->covers & SCOPE_CPU ? "CPU" : "", m->covers & SCOPE_COMM ? ", communicating competitors" : "",
		       m->covers & SCOPE_LINK ? ", links" : "", m->covers & SCOPE_QUEUE ? ", background arrivals" : "",
		       m->covers & SCOPE_SPEED ? ", node speed" : "");
		printf("    shared nodes: %s\n", m->covers & SCOPE_COLOC ? "a node's ranks share its cores" :
		       "does not apply when ranks share a loaded node");
	}
	printf("\nselection (--select):\n");
	for (const struct selector *x = selectors; x->name != NULL; x++)
		printf("%s  (paper %s) %s%s%s\n", x->name, x->paper, x->question,
		       x->policies[0] ? "; policies: " : "", x->policies);
}

/* One breakdown row for people: what it adds (when it adds something) and its value. */
static void
print_item(const struct pred_item *it)
{
	char b2[64], b3[64];

	if (isnan(it->added_ns))
		snprintf(b2, sizeof b2, "-");
	else
		snprintf(b2, sizeof b2, "%+.3f s", it->added_ns / 1e9);
	if (isnan(it->value))
		snprintf(b3, sizeof b3, "-");
	else
		snprintf(b3, sizeof b3, "%.4g", it->value);
	printf("  %-6s %-22s %12s %10s  %-16s %s\n", it->kind, it->name, b2, b3, it->equation, it->detail);
}

/* Seconds with 3 decimals for people. */
static void
secs(char *buf, size_t n, double ns)
{
	snprintf(buf, n, "%.3f s", ns / 1e9);
}

/* Progress of the calibration, one line per point. */
static void
calib_line(void *arg, const struct calib_point *pt)
{
	(void)arg;
	if (pt->i == 0)
		printf("%8.1f Mbit/s  dedicated probe %.3f s\n", pt->bw_Bps * 8 / 1e6, (double)pt->t_ns / 1e9);
	else
		printf("%8.1f Mbit/s  %d competitor%s  probe %.3f s  delay_comm %.3f\n", pt->bw_Bps * 8 / 1e6,
		       pt->i, pt->i == 1 ? " " : "s", (double)pt->t_ns / 1e9, pt->delay);
	fflush(stdout);
}

/* --calibrate-delay-comm: paper 000's benchmark on a running testbed, fitted and saved. */
static int
calibrate(struct calib_opts *o, const char *out)
{
	struct p000_delay d;
	struct err e;

	printf("delay_comm on testbed %d: probe %g ms of CPU in %s, 1..%d transfers to %s, %d link caps%s\n",
	       o->instance, o->probe_cpu_ms, o->ws, o->max_i, o->peer, o->nrates,
	       o->uncapped ? " and the link uncapped" : "");
	fflush(stdout);
	if (predict_calibrate(o, out, calib_line, NULL, &d, &e) < 0)
		die("predict: calibration: %s", e.msg);
	if (o->uncapped)
		printf("uncapped: one transfer reached %.1f MB/s (%.1f Mbit/s), the k of the uncapped points\n",
		       o->uncapped_Bps / 1e6, o->uncapped_Bps * 8 / 1e6);
	for (int j = 0; j < d.n; j++)
		printf("i = %d: k < %.1f: %.3f %+.5f k, else %.3f %+.5f k, up to k = %.1f  (k in Mbit/s)\n",
		       d.c[j].i, d.c[j].k_break, d.c[j].lo_a, d.c[j].lo_b, d.c[j].hi_a, d.c[j].hi_b,
		       d.c[j].k_max);
	printf("wrote '%s'\n", out);
	return 0;
}

/* The notes on what the profile rests on (a hung end, a partial trace). */
static void
print_notes(const struct predict_result *r)
{
	if (r->note_tail != NULL)
		printf("%s\n", r->note_tail);
	if (r->note_cov != NULL)
		printf("%s\n", r->note_cov);
	if (r->note_start != NULL)
		printf("%s\n", r->note_start);
}

/* The run's size and dedicated time, and the scenario when there is one. */
static void
print_run(const struct predict_result *r, const char *run, bool scen)
{
	char b1[64];

	secs(b1, sizeof b1, r->T);
	printf("run '%s': %d ranks on %d hosts, dedicated %s (run time: the longest rank's, from "
	       "its CPU samples%s)\n", run, r->p.nranks, prof_nhosts(&r->p), b1,
	       r->p.skew_ns > 0 ? ", from the last rank's start" : "");
	if (scen)
		printf("scenario '%s'%s%s\n", r->s.path, r->s.description ? ": " : "",
		       r->s.description ? r->s.description : "");
}

/* A model's breakdown rows, the ones left out and its note. */
static void
print_breakdown(const struct pred_result *pr)
{
	for (int k = 0; k < pr->nitems; k++)
		print_item(&pr->items[k]);
	if (pr->dropped > 0)
		printf("  (%ld more items not shown)\n", pr->dropped);
	if (pr->note[0])
		printf("  note: %s\n", pr->note);
}

/* Where the TSV went, or why it could not be written (then the exit status is 1). */
static void
print_wrote(const struct predict_result *r)
{
	if (r->tsv_path != NULL)
		printf("\nwrote '%s'\n", r->tsv_path);
	else
		warnx_("predict: %s", r->tsv_err.msg);
}

/* The headline: the answer, its interval and what the interval came from. */
static void
print_headline(const struct predict_result *r)
{
	const struct predict_headline *h = &r->hl;
	const struct hl_answer *a = &h->a;
	const char *kind = hl_kind_name(h->kind);
	char b1[64], b2[64], b3[64], pk[96];

	if (a->pick < 0) {
		printf("answer: none: no model gives a number for this run and scenario (each says why below)\n");
		return;
	}
	secs(b1, sizeof b1, a->pred_ns);
	secs(b2, sizeof b2, a->lo_ns);
	secs(b3, sizeof b3, a->hi_ns);
	if (a->pick == a->rule)
		snprintf(pk, sizeof pk, "the scope rules' pick");
	else
		snprintf(pk, sizeof pk, "closer than %s on the measured cells", r->ms[a->rule]->name);
	printf("answer: %s [%s, %s]  (%s, %s; program kind %s, scenario kind %s)\n", b1, b2, b3,
	       r->ms[a->pick]->name, pk, kind, h->cls);
	if (a->nall > 0)
		printf("  interval from: %s's error on %d measured cell%s (%d under %s scenarios, %d of them of kind "
		       "%s, from %d program%s%s), %.0f %% central range %s; measured noise %.1f %%; ",
		       r->ms[a->pick]->name, a->nall, a->nall == 1 ? "" : "s", a->nclass, h->cls, a->nkind, kind,
		       a->nkind_progs, a->nkind_progs == 1 ? "" : "s",
		       a->nkind > 0 && a->nkind_progs < HL_MIN_PROGS ? ", too few to count" : "", 100 * HL_COVER,
		       h->err_terms, 100 * a->noise);
	else
		printf("  interval from: %s's error: none measured; the disagreement of %d other model%s %s; ",
		       r->ms[a->pick]->name, a->nother, a->nother == 1 ? "" : "s", h->dis_terms);
	if (a->nded > 1)
		printf("the spread of %d dedicated runs %s\n", a->nded, h->spread_terms);
	else
		printf("one dedicated run, no spread (--dedicated adds more)\n");
	if (a->race > 0)
		printf("  rendezvous race: up to +%.1f %% if every rendezvous exchange on a changed link went one "
		       "way after the other (the interval reaches it; no model tells which way they go)\n",
		       100 * a->race);
	printf("  errors from: %s\n", h->source);
	printf("  kind: %s (%s)\n", kind, h->why);
}

/* Each model's prediction, its error against a measured time, and its breakdown. */
static void
print_models(const struct predict_result *r)
{
	char b1[64];

	for (int i = 0; i < r->nm; i++) {
		const struct model *m = r->ms[i];
		const struct pred_result *pr = &r->rs[i];

		printf("\n%s (paper %s): ", m->name, m->paper);
		if (pr->status == PRED_NA) {
			printf("does not apply: %s\n", pr->why);
			continue;
		}
		secs(b1, sizeof b1, pr->predicted_ns);
		printf("%s  (x%.3f, %s)", b1, pr->predicted_ns / r->T, pr->equation);
		if (r->measured_ns > 0)
			printf("  error %+.1f%%", 100 * (pr->predicted_ns - (double)r->measured_ns) /
			       (double)r->measured_ns);
		printf("\n");
		print_breakdown(pr);
	}
}

int
predict_cmd_run(const struct predict_opts *o)
{
	struct predict_result r;
	struct err e;
	char b1[64];
	int rc = predict_run(o, &r, &e);

	print_notes(&r);
	if (rc < 0) {
		predict_result_release(&r);
		die("predict: %s", e.msg);
	}
	if (r.ran) {
		print_headline(&r);
		print_run(&r, o->run, true);
		if (r.measured_ns >= 0) {
			secs(b1, sizeof b1, (double)r.measured_ns);
			printf("measured under the scenario: %s\n", b1);
		}
		print_models(&r);
		print_wrote(&r);
	}
	predict_result_release(&r);
	return rc;
}

/* --select: every selector (or the one named), ranked rows, RUN/predict/select-<name>.tsv. */
static int
run_select(const struct predict_select_opts *o)
{
	struct predict_result r;
	struct err e;
	char b1[64];
	int rc = predict_select(o, &r, &e);

	print_notes(&r);
	if (r.ran)	/* also before a selector refused the policy */
		print_run(&r, o->run, o->scenario != NULL);
	for (int i = 0; i < r.nm; i++) {
		const struct pred_result *pr = &r.rs[i];
		const struct selector *x = selectors;

		while (strcmp(x->name, r.ms[i]->name) != 0)
			x++;
		printf("\n%s (paper %s): %s\n", x->name, x->paper, x->question);
		if (pr->status == PRED_NA) {
			printf("  does not apply: %s\n", pr->why);
			continue;
		}
		secs(b1, sizeof b1, pr->predicted_ns);
		printf("  predicted with the selection: %s  (x%.3f, %s)\n", b1, pr->predicted_ns / r.T,
		       pr->equation);
		print_breakdown(pr);
	}
	if (rc < 0) {
		predict_result_release(&r);
		if (rc == -E_USAGE)
			die_usage("predict: %s", e.msg);
		die("predict: %s", e.msg);
	}
	print_wrote(&r);
	predict_result_release(&r);
	return rc;
}

/* --score TABLE: the headline scored on a table of measured cells, one row per cell. */
static int
score(const char *path)
{
	struct hl_table t;
	struct err e;
	int n;

	if (hl_table_load(&t, path, &e) < 0)
		die("predict: --score: %s", e.msg);
	n = hl_score(&t, stdout);
	hl_table_free(&t);
	if (n == 0)
		die("predict: --score: '%s' has no cell a model gives a number for", path);
	return 0;
}

/* `contend predict --probe-cpu MS`: the calibration's probe, run inside a workstation by
 * --calibrate-delay-comm (predict/calib.c): burn MS of CPU, print the wall time it took. */
static int
cmd_predict_probe(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "probe-cpu", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	double probe_ms = -1;
	int c;

	while ((c = cli_getopt(argc, argv, "h", longopts, usage_predict)) != -1)
		if (c == 'X')
			probe_ms = cli_f64(optarg, "--probe-cpu", 1, 60000);
	if (optind != argc)
		die_usage("predict: --probe-cpu takes no RUN");
	printf("wall_ns %lld\n", (long long)calib_probe(probe_ms));
	return 0;
}

int
cmd_predict(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "model", required_argument, NULL, 'm' },
		{ "dedicated", required_argument, NULL, 'd' },
		{ "errors", required_argument, NULL, 'e' },
		{ "list-models", no_argument, NULL, 'l' },
		{ "score", required_argument, NULL, 'Q' },
		{ "select", no_argument, NULL, 'S' },
		{ "calibrate-delay-comm", no_argument, NULL, 'C' },
		{ "out", required_argument, NULL, 'o' },
		{ "policy", required_argument, NULL, 'p' },
		{ "instance", required_argument, NULL, 'I' },
		{ "points", required_argument, NULL, 'P' },
		{ "competitors", required_argument, NULL, 'N' },
		{ "probe-ms", required_argument, NULL, 'M' },
		{ "reps", required_argument, NULL, 'R' },
		{ "delay-comm", required_argument, NULL, 'D' },
		{ "sleep-credit", required_argument, NULL, 'Z' },
		{ "observer-cost", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = "delaycomm.tsv", *score_path = NULL, *ded[PREDICT_MAX_DEDICATED];
	struct predict_opts o;
	bool list = false, select = false, calib = false;
	const char *policy = NULL;
	static char self_exe[4096];
	struct calib_opts co;
	int c;

	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "--probe-cpu", 11) == 0)
			return cmd_predict_probe(argc, argv);
	predict_opts_init(&o);
	o.dedicated = ded;
	calib_opts_default(&co);
	while ((c = cli_getopt(argc, argv, "s:m:d:e:lo:p:I:h", longopts, usage_predict)) != -1) {
		switch (c) {
		case 's': o.scenario = optarg; break;
		case 'm': o.model = optarg; break;
		case 'd':
			if (o.ndedicated == PREDICT_MAX_DEDICATED)
				die_usage("predict: at most 15 --dedicated runs");
			ded[o.ndedicated++] = optarg;
			break;
		case 'e': o.errors = optarg; break;
		case 'l': list = true; break;
		case 'Q': score_path = optarg; break;
		case 'S': select = true; break;
		case 'C': calib = true; break;
		case 'o': out = optarg; break;
		case 'p': policy = optarg; break;
		case 'I': co.instance = (int)cli_i64(optarg, "--instance", 0, 99); break;
		case 'P': calib_opts_rates(&co, (int)cli_i64(optarg, "--points", 4, CALIB_MAX_RATES), 8e6, 512e6); break;
		case 'N': co.max_i = (int)cli_i64(optarg, "--competitors", 1, CALIB_MAX_I); break;
		case 'M': co.probe_cpu_ms = cli_f64(optarg, "--probe-ms", 1, 60000); break;
		case 'R': co.reps = (int)cli_i64(optarg, "--reps", 1, 32); break;
		case 'D': o.delay_comm = optarg; break;
		case 'Z': o.sleep_credit = cli_f64(optarg, "--sleep-credit", 0, 1); break;
		case 'O': o.observer_cost = optarg; break;
		default: break;
		}
	}
	if (score_path != NULL) {
		if (optind != argc)
			die_usage("predict: --score takes no RUN");
		return score(score_path);
	}
	if (list) {
		if (optind != argc)
			die_usage("predict: --list-models takes no RUN");
		list_models();
		return 0;
	}
	if (calib) {
		if (optind != argc)
			die_usage("predict: --calibrate-delay-comm takes no RUN");
		co.exe = self_exe;
		if (readlink("/proc/self/exe", self_exe, sizeof self_exe - 1) < 0)
			die("predict: cannot find the contend binary (/proc/self/exe)");
		return calibrate(&co, out);
	}
	if (optind + 1 != argc)
		die_usage("predict: expected one RUN directory (see 'contend predict --help')");
	o.run = argv[optind];
	if (select && (o.ndedicated > 0 || o.errors != NULL))
		die_usage("predict: --dedicated and --errors are for the headline of a scenario, not --select");
	if (select)
		return run_select(&(struct predict_select_opts){ .run = o.run, .scenario = o.scenario,
			.model = o.model, .policy = policy, .sleep_credit = o.sleep_credit });
	if (policy != NULL)
		die_usage("predict: --policy goes with --select");
	if (o.scenario == NULL)
		die_usage("predict: --scenario FILE is required (see docs/scenario.md)");
	if (o.model != NULL && model_find(o.model) == NULL)
		die_usage("predict: unknown model '%s' (see 'contend predict --list-models')", o.model);
	return predict_cmd_run(&o);
}
