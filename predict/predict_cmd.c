/* predict: the `contend predict` command: what-if predictions for a parsed run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "predict/calib.h"
#include "predict/headline.h"
#include "predict/models.h"
#include "predict/p000.h"
#include "predict/profile.h"
#include "predict/scenario.h"

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
	"                             default bench/results/realapps/accuracy.tsv beside the\n"
	"                             binary's source tree when present, else the built-in\n"
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

/* The headline rows of the TSV: the pick's prediction, the interval's ends (or "none"). */
static int
write_headline(struct tsv_w *t, const struct hl_answer *a, const struct model *const *ms, double T,
	       int64_t measured_ns, const char *detail, struct err *e)
{
	static const char *const names[] = { "predicted", "lo", "hi" };
	int rc = 0;

	if (a->pick < 0) {
		tsv_w_str(t, "-");
		tsv_w_str(t, "-");
		tsv_w_str(t, "headline");
		tsv_w_str(t, "none");
		for (int k = 0; k < 5; k++)
			tsv_w_str(t, "-");
		tsv_w_str(t, "no model gives a number for this run and scenario");
		return tsv_w_end(t, e);
	}
	for (int k = 0; rc == 0 && k < 3; k++) {
		double v = k == 0 ? a->pred_ns : k == 1 ? a->lo_ns : a->hi_ns;

		tsv_w_str(t, ms[a->pick]->name);
		tsv_w_str(t, ms[a->pick]->paper);
		tsv_w_str(t, "headline");
		tsv_w_str(t, names[k]);
		tsv_w_i64(t, (int64_t)llround(v));
		tsv_w_i64(t, (int64_t)llround(v - T));
		measured_ns >= 0 ? tsv_w_i64(t, measured_ns) : tsv_w_str(t, "-");
		tsv_w_f64(t, v / T);
		tsv_w_str(t, "scope rules");
		tsv_w_str(t, detail);
		rc = tsv_w_end(t, e);
	}
	return rc;
}

static int
write_tsv(const char *run, const char *name, const struct scen *s, double T, int64_t measured_ns,
	  const struct model *const *ms, const struct pred_result *rs, int nm, const struct hl_answer *a,
	  const char *hl_detail, char **out_path, struct err *e)
{
	static const char *const cols[] = { "model", "paper", "item", "name", "predicted_ns", "added_ns",
					    "measured_ns", "value", "equation", "detail", NULL };
	char *dir = xasprintf("%s/predict", run);
	char *path;
	struct tsv_w t;
	int rc;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rc = err_sys(e, E_IO, "cannot create '%s'", dir);
		free(dir);
		return rc;
	}
	path = xasprintf("%s/%s.tsv", dir, name);
	free(dir);
	*out_path = path;
	if ((rc = tsv_w_open(&t, path, "predict", 1, cols, false, true, e)) < 0)
		return rc;
	rc = tsv_w_comment(&t, e, "scenario %s", s->path ? s->path : "(none)");
	/* the measured dedicated time */
	tsv_w_str(&t, "-");
	tsv_w_str(&t, "-");
	tsv_w_str(&t, "dedicated");
	tsv_w_str(&t, "run");
	tsv_w_i64(&t, (int64_t)llround(T));
	tsv_w_str(&t, "-");
	tsv_w_i64(&t, (int64_t)llround(T));
	tsv_w_str(&t, "-");
	tsv_w_str(&t, "-");
	tsv_w_str(&t, "the longest rank's exec_ns in the dedicated run");
	if (rc == 0)
		rc = tsv_w_end(&t, e);
	if (rc == 0 && a != NULL)
		rc = write_headline(&t, a, ms, T, measured_ns, hl_detail, e);
	for (int i = 0; rc == 0 && i < nm; i++) {
		const struct pred_result *r = &rs[i];

		tsv_w_str(&t, ms[i]->name);
		tsv_w_str(&t, ms[i]->paper);
		if (r->status == PRED_NA) {
			tsv_w_str(&t, "n/a");
			tsv_w_str(&t, "total");
			tsv_w_str(&t, "-");
			tsv_w_str(&t, "-");
			measured_ns >= 0 ? tsv_w_i64(&t, measured_ns) : tsv_w_str(&t, "-");
			tsv_w_str(&t, "-");
			tsv_w_str(&t, "-");
			tsv_w_str(&t, r->why);
			rc = tsv_w_end(&t, e);
			continue;
		}
		tsv_w_str(&t, "total");
		tsv_w_str(&t, "total");
		tsv_w_i64(&t, (int64_t)llround(r->predicted_ns));
		tsv_w_i64(&t, (int64_t)llround(r->predicted_ns - T));
		measured_ns >= 0 ? tsv_w_i64(&t, measured_ns) : tsv_w_str(&t, "-");
		tsv_w_f64(&t, r->predicted_ns / T);
		tsv_w_str(&t, r->equation);
		tsv_w_str(&t, r->note[0] ? r->note : NULL);
		rc = tsv_w_end(&t, e);
		for (int k = 0; rc == 0 && k < r->nitems; k++) {
			const struct pred_item *it = &r->items[k];

			tsv_w_str(&t, ms[i]->name);
			tsv_w_str(&t, ms[i]->paper);
			tsv_w_str(&t, it->kind);
			tsv_w_str(&t, it->name);
			if (isnan(it->added_ns)) {
				tsv_w_str(&t, "-");
				tsv_w_str(&t, "-");
			} else {
				tsv_w_i64(&t, (int64_t)llround(T + it->added_ns));
				tsv_w_i64(&t, (int64_t)llround(it->added_ns));
			}
			tsv_w_str(&t, "-");
			isnan(it->value) ? tsv_w_str(&t, "-") : tsv_w_f64(&t, it->value);
			tsv_w_str(&t, it->equation);
			tsv_w_str(&t, it->detail);
			rc = tsv_w_end(&t, e);
		}
	}
	if (rc < 0) {
		tsv_w_close(&t, NULL);
		return rc;
	}
	return tsv_w_close(&t, e);
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
	struct calib_point pts[CALIB_MAX_ALL];
	struct p000_delay d;
	struct err e;
	char src[128];
	int npts = 0;

	printf("delay_comm on testbed %d: probe %g ms of CPU in %s, 1..%d transfers to %s, %d link caps%s\n",
	       o->instance, o->probe_cpu_ms, o->ws, o->max_i, o->peer, o->nrates,
	       o->uncapped ? " and the link uncapped" : "");
	fflush(stdout);
	if (calib_measure(o, pts, &npts, calib_line, NULL, &e) < 0)
		die("predict: calibration: %s (is testbed %d up with workstations '%s' and '%s'? "
		    "'contend testbed --instance %d up')", e.msg, o->instance, o->ws, o->peer, o->instance);
	snprintf(src, sizeof src, "testbed %d, %s -> %s, probe %g ms, %d caps%s", o->instance, o->ws, o->peer,
		 o->probe_cpu_ms, o->nrates, o->uncapped ? " and uncapped" : "");
	if (o->uncapped)
		printf("uncapped: one transfer reached %.1f MB/s (%.1f Mbit/s), the k of the uncapped points\n",
		       o->uncapped_Bps / 1e6, o->uncapped_Bps * 8 / 1e6);
	if (calib_fit(pts, npts, src, &d, &e) < 0 || p000_delay_save(&d, out, &e) < 0)
		die("predict: calibration: %s", e.msg);
	for (int j = 0; j < d.n; j++)
		printf("i = %d: k < %.1f: %.3f %+.5f k, else %.3f %+.5f k  (k in Mbit/s)\n", d.c[j].i,
		       d.c[j].k_break, d.c[j].lo_a, d.c[j].lo_b, d.c[j].hi_a, d.c[j].hi_b);
	printf("wrote '%s'\n", out);
	return 0;
}

static bool profile_partial;	/* the run's stats.tsv says complete partial */

/* A rank that hung after the run's last message and was killed (parse's tail_* keys in
 * stats, docs/parse.md "A hung end"): say whether its exec time, which the dedicated time
 * comes from, was cut there or holds the hang. */
static void
tail_note(const char *stats, const char *run)
{
	char hung[256], ncut[24], who[512] = "";
	struct err e;
	size_t used = 0;

	if (tsv_kv_lookup(stats, "stats", "tail_hung", hung, sizeof hung, &e) != 1 ||
	    tsv_kv_lookup(stats, "stats", "tail_cut_ranks", ncut, sizeof ncut, &e) != 1)
		return;
	/* "2=10.056,3=9.871" -> "rank 2 (10.1 s), rank 3 (9.9 s)"; other words as they are */
	for (char *tok = hung, *next; tok != NULL && used + 1 < sizeof who; tok = next) {
		char *eq, *end;
		double s;

		if ((next = strchr(tok, ',')) != NULL)
			*next++ = '\0';
		eq = strchr(tok, '=');
		if (eq != NULL && (s = strtod(eq + 1, &end), *end == '\0' && end != eq + 1)) {
			*eq = '\0';
			snprintf(who + used, sizeof who - used, "%srank %s (%.1f s)", used ? ", " : "", tok, s);
		} else {
			snprintf(who + used, sizeof who - used, "%s%s", used ? ", " : "", tok);
		}
		used = strlen(who);
	}
	if (strcmp(ncut, "0") != 0)
		printf("note: %s went on after the run's last message until killed, as an "
		       "MPI_Finalize that hangs does; parse cut the exec time there, so the dedicated "
		       "time leaves that out ('%s/profile/stats.tsv')\n", who, run);
	else
		printf("note: %s went on after the run's last message until killed, as an "
		       "MPI_Finalize that hangs does; parsed with --keep-tail, the exec time and the "
		       "dedicated time hold it\n", who);
}

static void
load_run(struct prof *p, const char *run)
{
	struct err e;

	if (prof_load(p, run, &e) < 0) {
		prof_free(p);
		die("predict: %s", e.msg);
	}
	{
		/* a profile from damaged input: the answer says what it rests on */
		char *stats = xasprintf("%s/profile/stats.tsv", run), v[16];

		if (tsv_kv_lookup(stats, "stats", "complete", v, sizeof v, &e) == 1 &&
		    strcmp(v, "yes") != 0) {
			warnx_("predict: '%s/profile' is partial (parse met damaged or missing input; "
			       "its warnings are in profile/warnings.tsv): the predictions rest on what "
			       "parse could read", run);
			profile_partial = true;
		}
		tail_note(stats, run);
		free(stats);
	}
	if (p->damaged > 0)
		warnx_("predict: %ld damaged profile rows skipped; first: %s", p->damaged, p->first_damage);
	if (p->truncated > 0)
		warnx_("predict: %ld profile files end early; their rows before the cut are used", p->truncated);
	if (p->capped > 0)
		warnx_("predict: %ld messages or phases past the caps were not used", p->capped);
	/* Messages between ranks of one node that never reached an interface are missing from
	 * the profile: the message-driven models and the replay see only the others. */
	if (strcmp(p->coverage, "partial") == 0) {
		const char *why = strstr(p->coverage_note, ": ");

		printf("note: a partial trace: %s; the models and the replay use the captured "
		       "messages only, so the waits of ranks sharing a node on each other come from "
		       "their CPU phases alone\n", why ? why + 2 : p->coverage_note);
	}
}

/* --select: every selector (or the one named), ranked rows, RUN/predict/select-<name>.tsv. */
static int
cmd_select(const char *run, const char *scen_path, const char *model_name, const char *policy,
	   double sleep_credit)
{
	const struct model *ms[8];
	static struct model as_model[8];
	struct pred_result rs[8];
	struct scen s;
	struct prof p;
	struct err e;
	int nm = 0, nok = 0;
	double T;
	char *tsv_path = NULL, *name;
	char b1[64];
	bool known = false;

	for (const struct selector *x = selectors; x->name != NULL; x++)
		if (model_name == NULL || strcmp(model_name, x->name) == 0)
			known = true;
	if (!known)
		die_usage("predict: --select: no selection for model '%s' (see 'contend predict --list-models')",
			  model_name);
	if (policy != NULL && model_name != NULL && strcmp(model_name, "p004") != 0)
		die_usage("predict: --policy is for p004's selection");
	if (scen_path != NULL) {
		if (scen_load(&s, scen_path, &e) < 0)
			die("predict: %s", e.msg);
	} else if (scen_load_string(&s, "", "all", &e) < 0) {
		die("predict: %s", e.msg);
	}
	s.sleep_credit = sleep_credit;
	load_run(&p, run);
	T = (double)prof_dedicated_ns(&p);
	secs(b1, sizeof b1, T);
	printf("run '%s': %d ranks on %d hosts, dedicated %s (run time: the longest rank's, from "
	       "its CPU samples)\n", run, p.nranks, prof_nhosts(&p), b1);
	if (scen_path != NULL)
		printf("scenario '%s'%s%s\n", s.path, s.description ? ": " : "", s.description ? s.description : "");
	for (const struct selector *x = selectors; x->name != NULL && nm < 8; x++) {
		struct pred_result *r = &rs[nm];

		if (model_name != NULL && strcmp(model_name, x->name) != 0)
			continue;
		pred_result_init(r);
		if (x->select(&p, &s, x->policies[0] ? policy : NULL, r, &e) < 0) {
			if (e.code == -E_USAGE && policy != NULL) {
				for (int i = 0; i <= nm; i++)
					pred_result_free(&rs[i]);
				prof_free(&p);
				scen_free(&s);
				die_usage("predict: --select: %s", e.msg);
			}
			pred_na(r, "%s", e.msg);
		}
		as_model[nm] = (struct model){ .name = x->name, .paper = x->paper };
		ms[nm] = &as_model[nm];
		nm++;
		printf("\n%s (paper %s): %s\n", x->name, x->paper, x->question);
		if (r->status == PRED_NA) {
			printf("  does not apply: %s\n", r->why);
			continue;
		}
		nok++;
		secs(b1, sizeof b1, r->predicted_ns);
		printf("  predicted with the selection: %s  (x%.3f, %s)\n", b1, r->predicted_ns / T, r->equation);
		for (int k = 0; k < r->nitems; k++)
			print_item(&r->items[k]);
		if (r->dropped > 0)
			printf("  (%ld more items not shown)\n", r->dropped);
		if (r->note[0])
			printf("  note: %s\n", r->note);
	}
	name = xasprintf("select-%s", s.name);
	if (write_tsv(run, name, &s, T, -1, ms, rs, nm, NULL, NULL, &tsv_path, &e) < 0) {
		warnx_("predict: %s", e.msg);
		nok = 0;
	} else {
		printf("\nwrote '%s'\n", tsv_path);
	}
	free(name);
	free(tsv_path);
	for (int i = 0; i < nm; i++)
		pred_result_free(&rs[i]);
	prof_free(&p);
	scen_free(&s);
	return nok > 0 && !profile_partial ? 0 : 1;
}

/* The run's distinct hosts, comma-separated, into out (cut with "..." when long). */
static void
host_list(const struct prof *p, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < p->nranks && used + 1 < len; i++) {
		int n;

		if (!prof_host_first(p, i))
			continue;
		n = snprintf(out + used, len - used, "%s%s", used ? ", " : "", p->ranks[i].host);
		if (n < 0 || (size_t)n >= len - used) {
			if (len > 4)
				snprintf(out + len - 4, 4, "...");
			return;
		}
		used += (size_t)n;
	}
}

/* The table of measured errors: FILE, else bench/results/realapps/accuracy.tsv beside the
 * binary's source tree (build/contend's ../), else the built-in one. */
static void
load_errors(struct hl_table *t, const char *path)
{
	char exe[4096], *auto_path = NULL;
	ssize_t n;
	struct err e;

	if (path == NULL && (n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
		char *slash;

		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL)
			*slash = '\0';
		auto_path = xasprintf("%s/../bench/results/realapps/accuracy.tsv", exe);
		if (access(auto_path, R_OK) == 0)
			path = auto_path;
	}
	if (path != NULL && hl_table_load(t, path, &e) < 0) {
		if (path != auto_path) {
			free(auto_path);
			die("predict: --errors: %s", e.msg);
		}
		warnx_("predict: %s; the built-in errors are used", e.msg);
		path = NULL;
	}
	if (path == NULL)
		hl_table_builtin(t);
	else if (t->skipped > 0)
		verbose("predict: '%s': %ld rows not used (other models or damaged)", path, t->skipped);
	free(auto_path);
}

/* Signed percentages of an interval term pair, for people: "-3.1/+2.0 %". */
static void
pm(char *buf, size_t n, double lo, double hi)
{
	snprintf(buf, n, "-%.1f/+%.1f %%", 100 * lo, 100 * hi);
}

/* The headline: pick, interval, the lead lines on stdout and the TSV rows' detail. */
static void
headline(const struct prof *p, const struct scen *s, const char *errors_path, char *const *ded_runs, int nded,
	 const struct model *const *ms, const struct pred_result *rs, int nm, struct hl_answer *a, char *detail,
	 size_t dlen)
{
	double ded[16];
	int n = 0, kind;
	struct hl_table t;
	const char *cls = hl_scen_class(s);
	char why[256], b1[64], b2[64], b3[64], e1[48], e2[48], e3[48], pk[96];

	ded[n++] = (double)prof_dedicated_ns(p);
	for (int i = 0; i < nded && n < 16; i++) {
		struct prof q;
		struct err e;

		if (prof_load(&q, ded_runs[i], &e) < 0)
			warnx_("predict: --dedicated: %s; that run is left out of the spread", e.msg);
		else
			ded[n++] = (double)prof_dedicated_ns(&q);
		prof_free(&q);
	}
	load_errors(&t, errors_path);
	kind = hl_classify(p, why, sizeof why);
	hl_answer(&t, NULL, kind, cls, ms, rs, nm, ded, n, a);
	if (a->pick < 0) {
		printf("answer: none: no model gives a number for this run and scenario (each says why below)\n");
		snprintf(detail, dlen, "no model gives a number");
		hl_table_free(&t);
		return;
	}
	secs(b1, sizeof b1, a->pred_ns);
	secs(b2, sizeof b2, a->lo_ns);
	secs(b3, sizeof b3, a->hi_ns);
	if (a->pick == a->rule)
		snprintf(pk, sizeof pk, "the scope rules' pick");
	else
		snprintf(pk, sizeof pk, "closer than %s on the measured cells", ms[a->rule]->name);
	printf("answer: %s [%s, %s]  (%s, %s; program kind %s, scenario kind %s)\n", b1, b2, b3,
	       ms[a->pick]->name, pk, hl_kind_name(kind), cls);
	pm(e1, sizeof e1, -expm1(-a->err_lo), expm1(a->err_hi));
	pm(e2, sizeof e2, a->spread, a->spread);
	pm(e3, sizeof e3, a->dis_lo, a->dis_hi);
	if (a->nall > 0)
		printf("  interval from: %s's error on %d measured cell%s (%d under %s scenarios, %d of them of kind "
		       "%s), %.0f %% central range %s; measured noise %.1f %%; ", ms[a->pick]->name, a->nall,
		       a->nall == 1 ? "" : "s", a->nclass, cls, a->nkind, hl_kind_name(kind), 100 * HL_COVER, e1,
		       100 * a->noise);
	else
		printf("  interval from: %s's error: none measured; the disagreement of %d other model%s %s; ",
		       ms[a->pick]->name, a->nother, a->nother == 1 ? "" : "s", e3);
	if (n > 1)
		printf("the spread of %d dedicated runs %s\n", n, e2);
	else
		printf("one dedicated run, no spread (--dedicated adds more)\n");
	printf("  errors from: %s\n", t.source);
	printf("  kind: %s (%s)\n", hl_kind_name(kind), why);
	if (a->nall > 0)
		snprintf(detail, dlen, "%s program, %s scenario; %s%s; error %s on %d cells (%d of the class, %d of "
			 "the kind), noise %.1f %%, spread %s of %d runs", hl_kind_name(kind), cls,
			 a->pick == a->rule ? "the rules' pick" : "closer than ", a->pick == a->rule ? "" :
			 ms[a->rule]->name, e1, a->nall, a->nclass, a->nkind, 100 * a->noise, e2, n);
	else
		snprintf(detail, dlen, "%s program, %s scenario; no measured error; spread %s of %d runs, "
			 "disagreement %s of %d models", hl_kind_name(kind), cls, e2, n, e3, a->nother);
	hl_table_free(&t);
}

/* Warn about every section of s that names a host or rank the run lacks; returns the
 * number of sections that name the run's hosts or ranks. */
static int
scen_sections_used(const struct scen *s, const struct prof *p)
{
	char hosts[512];
	int used = 0;

	host_list(p, hosts, sizeof hosts);
	for (int i = 0; i < s->nnodes; i++) {
		const struct scen_node *n = &s->nodes[i];

		if (n->rank < 0 && !prof_has_host(p, n->host))
			warnx_("predict: '%s' line %d: host '%s' ran no rank of this run (its hosts: %s); "
			       "the section is ignored", s->path, n->line, n->host, hosts);
		else if (n->rank >= 0 && prof_rank(p, n->rank) == NULL)
			warnx_("predict: '%s' line %d: the run has no rank %d; the section is ignored",
			       s->path, n->line, n->rank);
		else
			used++;
	}
	for (int i = 0; i < s->nlinks; i++) {
		const struct scen_link *l = &s->links[i];
		const char *missing = !prof_has_host(p, l->a) ? l->a : !prof_has_host(p, l->b) ? l->b : NULL;

		if (missing != NULL)
			warnx_("predict: '%s' line %d: link '%s-%s': host '%s' ran no rank of this run "
			       "(its hosts: %s); the section is ignored", s->path, l->line, l->a, l->b,
			       missing, hosts);
		else
			used++;
	}
	return used;
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
		{ "probe-cpu", required_argument, NULL, 'X' },
		{ "delay-comm", required_argument, NULL, 'D' },
		{ "sleep-credit", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *scen_path = NULL, *model_name = NULL, *out = "delaycomm.tsv", *run;
	bool list = false, select = false, calib = false;
	const struct model *ms[32] = { 0 };
	struct pred_result rs[32];
	struct scen s;
	struct prof p;
	struct err e;
	int nm = 0, nok = 0, c;
	int64_t measured_ns = -1;
	double T;
	char *tsv_path = NULL;
	char b1[64];
	static char self_exe[4096];
	const char *policy = NULL, *delay_comm = NULL, *errors_path = NULL, *score = NULL;
	char *ded[15];
	int nded = 0;
	struct hl_answer hl;
	char hl_detail[512];
	struct calib_opts co;
	double probe_ms = -1;
	double sleep_credit = 1;	/* --sleep-credit: into the scenario, for p003 */

	calib_opts_default(&co);
	while ((c = cli_getopt(argc, argv, "s:m:d:e:lo:p:I:h", longopts, usage_predict)) != -1) {
		switch (c) {
		case 's': scen_path = optarg; break;
		case 'm': model_name = optarg; break;
		case 'd':
			if (nded == 15)
				die_usage("predict: at most 15 --dedicated runs");
			ded[nded++] = optarg;
			break;
		case 'e': errors_path = optarg; break;
		case 'l': list = true; break;
		case 'Q': score = optarg; break;
		case 'S': select = true; break;
		case 'C': calib = true; break;
		case 'o': out = optarg; break;
		case 'p': policy = optarg; break;
		case 'I': co.instance = (int)cli_i64(optarg, "--instance", 0, 99); break;
		case 'P': calib_opts_rates(&co, (int)cli_i64(optarg, "--points", 4, CALIB_MAX_RATES), 8e6, 512e6); break;
		case 'N': co.max_i = (int)cli_i64(optarg, "--competitors", 1, CALIB_MAX_I); break;
		case 'M': co.probe_cpu_ms = cli_f64(optarg, "--probe-ms", 1, 60000); break;
		case 'R': co.reps = (int)cli_i64(optarg, "--reps", 1, 32); break;
		case 'X': probe_ms = cli_f64(optarg, "--probe-cpu", 1, 60000); break;
		case 'D': delay_comm = optarg; break;
		case 'Z': sleep_credit = cli_f64(optarg, "--sleep-credit", 0, 1); break;
		default: break;
		}
	}
	if (probe_ms > 0) {	/* the calibration's probe, run inside a workstation */
		printf("wall_ns %lld\n", (long long)calib_probe(probe_ms));
		return 0;
	}
	if (score != NULL) {
		struct hl_table t;

		if (optind != argc)
			die_usage("predict: --score takes no RUN");
		if (hl_table_load(&t, score, &e) < 0)
			die("predict: --score: %s", e.msg);
		nm = hl_score(&t, stdout);
		hl_table_free(&t);
		if (nm == 0)
			die("predict: --score: '%s' has no cell a model gives a number for", score);
		return 0;
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
	run = argv[optind];
	if (select && (nded > 0 || errors_path != NULL))
		die_usage("predict: --dedicated and --errors are for the headline of a scenario, not --select");
	if (select)
		return cmd_select(run, scen_path, model_name, policy, sleep_credit);
	if (policy != NULL)
		die_usage("predict: --policy goes with --select");
	if (scen_path == NULL)
		die_usage("predict: --scenario FILE is required (see docs/scenario.md)");
	if (model_name != NULL && model_find(model_name) == NULL)
		die_usage("predict: unknown model '%s' (see 'contend predict --list-models')", model_name);
	if (scen_load(&s, scen_path, &e) < 0)
		die("predict: %s", e.msg);
	s.sleep_credit = sleep_credit;
	if (delay_comm != NULL) {	/* a calibration wins over the scenario's curves */
		char *abs = realpath(delay_comm, NULL);

		if (abs == NULL)
			die("predict: cannot open '%s': %s", delay_comm, strerror(errno));
		free(s.delay_file);
		s.delay_file = abs;
		s.delay = SCEN_DELAY_FILE;
	}
	load_run(&p, run);
	if (scen_sections_used(&s, &p) == 0) {
		warnx_("predict: '%s' changes nothing this run uses (none of its [node], [rank] or "
		       "[link] sections names the run's hosts or ranks): no prediction", s.path);
		prof_free(&p);
		scen_free(&s);
		return 1;
	}
	if (s.measured_ns >= 0) {
		measured_ns = s.measured_ns;
	} else if (s.measured_run != NULL) {
		struct prof q;

		if (prof_load(&q, s.measured_run, &e) < 0) {
			warnx_("predict: measured_run: %s", e.msg);
		} else {
			measured_ns = prof_dedicated_ns(&q);
		}
		prof_free(&q);
	}
	T = (double)prof_dedicated_ns(&p);
	for (const struct model *m = models; m->name != NULL && nm < 32; m++) {
		struct pred_result *r = &rs[nm];

		if (model_name != NULL && strcmp(model_name, m->name) != 0)
			continue;
		pred_result_init(r);
		if (model_run(m, &p, &s, r, &e) < 0)
			pred_na(r, "%s", e.msg);
		ms[nm++] = m;
	}
	headline(&p, &s, errors_path, ded, nded, ms, rs, nm, &hl, hl_detail, sizeof hl_detail);
	secs(b1, sizeof b1, T);
	printf("run '%s': %d ranks on %d hosts, dedicated %s (run time: the longest rank's, from "
	       "its CPU samples)\n", run, p.nranks, prof_nhosts(&p), b1);
	printf("scenario '%s'%s%s\n", s.path, s.description ? ": " : "", s.description ? s.description : "");
	if (measured_ns >= 0) {
		secs(b1, sizeof b1, (double)measured_ns);
		printf("measured under the scenario: %s\n", b1);
	}
	for (int i = 0; i < nm; i++) {
		const struct model *m = ms[i];
		struct pred_result *r = &rs[i];

		printf("\n%s (paper %s): ", m->name, m->paper);
		if (r->status == PRED_NA) {
			printf("does not apply: %s\n", r->why);
			continue;
		}
		nok++;
		secs(b1, sizeof b1, r->predicted_ns);
		printf("%s  (x%.3f, %s)", b1, r->predicted_ns / T, r->equation);
		if (measured_ns > 0)
			printf("  error %+.1f%%", 100 * (r->predicted_ns - (double)measured_ns) / (double)measured_ns);
		printf("\n");
		for (int k = 0; k < r->nitems; k++)
			print_item(&r->items[k]);
		if (r->dropped > 0)
			printf("  (%ld more items not shown)\n", r->dropped);
		if (r->note[0])
			printf("  note: %s\n", r->note);
	}
	if (write_tsv(run, s.name, &s, T, measured_ns, ms, rs, nm, &hl, hl_detail, &tsv_path, &e) < 0) {
		warnx_("predict: %s", e.msg);
		nok = 0;
	} else {
		printf("\nwrote '%s'\n", tsv_path);
	}
	free(tsv_path);
	for (int i = 0; i < nm; i++)
		pred_result_free(&rs[i]);
	prof_free(&p);
	scen_free(&s);
	return nok > 0 && !profile_partial ? 0 : 1;
}
