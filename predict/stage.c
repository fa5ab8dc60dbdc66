/* predict stage: the models on a parsed run and a scenario, the headline, RUN/predict/. */
#include "predict/stage.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/replay.h"

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

/* RUN/predict/NAME.tsv: the dedicated time, the headline (a, when not NULL) and each
 * model's total and breakdown. *out_path receives the path (caller frees) once it is known.
 * Returns 0, or negative with e set. */
static int
write_tsv(const char *run, const char *name, const struct scen *s, double T, int64_t skew_ns,
	  int64_t measured_ns, const struct model *const *ms, const struct pred_result *rs, int nm, const struct hl_answer *a,
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
	if (skew_ns > 0) {
		char d[160];

		snprintf(d, sizeof d, "the longest rank's exec_ns in the dedicated run, from the last "
			 "rank's start (the ranks started %.3f s apart)", (double)skew_ns / 1e9);
		tsv_w_str(&t, d);
	} else {
		tsv_w_str(&t, "the longest rank's exec_ns in the dedicated run");
	}
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

/* A rank that hung after the run's last message and was killed (parse's tail_* keys in
 * stats, docs/parse.md "A hung end"): whether its exec time, which the dedicated time comes
 * from, was cut there or holds the hang. Returns the note (caller frees), or NULL. */
static char *
tail_note(const char *stats, const char *run)
{
	char hung[256], ncut[24], who[512] = "";
	struct err e;
	size_t used = 0;

	if (tsv_kv_lookup(stats, "stats", "tail_hung", hung, sizeof hung, &e) != 1 ||
	    tsv_kv_lookup(stats, "stats", "tail_cut_ranks", ncut, sizeof ncut, &e) != 1)
		return NULL;
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
		return xasprintf("note: %s went on after the run's last message until killed, as an "
				 "MPI_Finalize that hangs does; parse cut the exec time there, so the "
				 "dedicated time leaves that out ('%s/profile/stats.tsv')", who, run);
	return xasprintf("note: %s went on after the run's last message until killed, as an "
			 "MPI_Finalize that hangs does; parsed with --keep-tail, the exec time and the "
			 "dedicated time hold it", who);
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

/* A file shipped with contend: SRC beside the binary's source tree (build/contend's ../SRC),
 * else INST where `make install` puts it (the binary's ../share/contend/INST). Returns the
 * readable one (free it), or NULL. */
static char *
beside_binary(const char *src, const char *inst)
{
	char exe[4096], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	path = xasprintf("%s/../%s", exe, src);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	path = xasprintf("%s/../share/contend/%s", exe, inst);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* The table of measured errors: FILE, else the bench/realapps table of the platform the
 * run's ranks had: with a whole CPU each (every rank coloc_whole_cpu), the 2x1 layout's
 * (bench/results/realapps/2x1/accuracy.tsv), else the shared cores' of the 4x1 layout
 * (bench/results/realapps/accuracy.tsv: two workstations' polling ranks on each core, the
 * errors of a time-shared platform). It is looked for beside the binary's source tree
 * (build/contend's ../), then where `make install` puts it (the binary's
 * ../share/contend/realapps-2x1.tsv or realapps-4x1.tsv); else the built-in one. Returns 0,
 * or negative with e set when FILE cannot be used (t is then empty). */
static int
load_errors(struct hl_table *t, const char *path, bool whole, struct err *e)
{
	char *auto_path = NULL;
	struct err le;

	if (path == NULL) {
		auto_path = beside_binary(whole ? "bench/results/realapps/2x1/accuracy.tsv" :
					  "bench/results/realapps/accuracy.tsv",
					  whole ? "realapps-2x1.tsv" : "realapps-4x1.tsv");
		path = auto_path;
	}
	if (path != NULL && hl_table_load(t, path, &le) < 0) {
		if (path != auto_path) {
			free(auto_path);
			return err_set(e, E_IO, "--errors: %s", le.msg);
		}
		warnx_("predict: %s; the built-in errors are used", le.msg);
		path = NULL;
	}
	if (path == NULL)
		hl_table_builtin(t);
	else if (t->skipped > 0)
		verbose("predict: '%s': %ld rows not used (other models or damaged)", path, t->skipped);
	free(auto_path);
	return 0;
}

/* Whether every rank of p had a whole CPU (coloc_whole_cpu): the platform whose measured
 * errors the headline's interval takes. */
static bool
whole_cpus(const struct prof *p)
{
	struct coloc_rank *cl = xcalloc((size_t)p->nranks + 1, sizeof *cl);
	bool all = p->nranks > 0;

	coloc_read(p, cl);
	for (int i = 0; i < p->nranks && all; i++)
		all = coloc_whole_cpu(p, cl, i);
	free(cl);
	return all;
}

/* Another run's time as predict counts its own: the longest rank's, from the last rank's
 * start (prof_start_together). Returns it, or -1 with e set when its profile cannot be
 * read. */
static int64_t
run_dedicated_ns(const char *run, struct err *e)
{
	struct prof q;
	int64_t ns = -1;

	if (prof_load(&q, run, e) == 0) {
		prof_start_together(&q);
		ns = prof_dedicated_ns(&q);
	}
	prof_free(&q);
	return ns;
}

/* The run's profile into r->p, with what it rests on: warnings on stderr for damaged rows,
 * notes in r for a hung end and a partial trace, r->partial for a partial parse. Returns 0,
 * or negative with e set when there is no profile to use. */
static int
load_profile(struct predict_result *r, const char *run, struct err *e)
{
	struct prof *p = &r->p;
	char *stats, v[16];
	struct err se;

	if (prof_load(p, run, e) < 0)
		return -E_IO;
	if (prof_start_together(p) > 0)
		r->note_start = xasprintf("note: the ranks started %.3f s apart (the launcher's and the "
					  "observer's doing; the early ones waited in MPI's start): the "
					  "run time counts from the last rank's start", (double)p->skew_ns / 1e9);
	/* a profile from damaged input: the answer says what it rests on */
	stats = xasprintf("%s/profile/stats.tsv", run);
	if (tsv_kv_lookup(stats, "stats", "complete", v, sizeof v, &se) == 1 && strcmp(v, "yes") != 0) {
		warnx_("predict: '%s/profile' is partial (parse met damaged or missing input; "
		       "its warnings are in profile/warnings.tsv): the predictions rest on what "
		       "parse could read", run);
		r->partial = true;
	}
	r->note_tail = tail_note(stats, run);
	free(stats);
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

		r->note_cov = xasprintf("note: a partial trace: %s; the models and the replay use the "
					"captured messages only, so the waits of ranks sharing a node on "
					"each other come from their CPU phases alone",
					why ? why + 2 : p->coverage_note);
	}
	return 0;
}

/* Signed percentages of an interval term pair, for people: "-3.1/+2.0 %". */
static void
pm(char *buf, size_t n, double lo, double hi)
{
	snprintf(buf, n, "-%.1f/+%.1f %%", 100 * lo, 100 * hi);
}

/* The headline of r's models: pick, interval and the TSV rows' detail into r->hl. Returns 0,
 * or negative with e set when the --errors file cannot be used. */
static int
headline(struct predict_result *r, const char *errors_path, const char *const *ded_runs, int nded,
	 struct err *e)
{
	struct predict_headline *h = &r->hl;
	struct hl_answer *a = &h->a;
	double ded[PREDICT_MAX_DEDICATED + 1];
	int n = 0;
	struct hl_table t;
	const char *e1 = h->err_terms, *e2 = h->spread_terms, *e3 = h->dis_terms;

	h->cls = hl_scen_class(&r->s);
	ded[n++] = (double)prof_dedicated_ns(&r->p);
	for (int i = 0; i < nded && n < PREDICT_MAX_DEDICATED + 1; i++) {
		struct err de;
		int64_t ns = run_dedicated_ns(ded_runs[i], &de);

		if (ns < 0)
			warnx_("predict: --dedicated: %s; that run is left out of the spread", de.msg);
		else
			ded[n++] = (double)ns;
	}
	if (load_errors(&t, errors_path, whole_cpus(&r->p), e) < 0)
		return -E_IO;
	snprintf(h->source, sizeof h->source, "%s", t.source);
	h->kind = hl_classify(&r->p, h->why, sizeof h->why);
	hl_answer(&t, NULL, h->kind, h->cls, r->ms, r->rs, r->nm, ded, n, a);
	hl_race(a, replay_race_ns(&r->p, &r->s));
	hl_table_free(&t);
	if (a->pick < 0) {
		snprintf(h->detail, sizeof h->detail, "no model gives a number");
		return 0;
	}
	pm(h->err_terms, sizeof h->err_terms, -expm1(-a->err_lo), expm1(a->err_hi));
	pm(h->spread_terms, sizeof h->spread_terms, a->spread, a->spread);
	pm(h->dis_terms, sizeof h->dis_terms, a->dis_lo, a->dis_hi);
	if (a->nall > 0)
		snprintf(h->detail, sizeof h->detail, "%s program, %s scenario; %s%s; error %s on %d "
			 "cells (%d of the class, %d of the kind), noise %.1f %%, spread %s of %d runs",
			 hl_kind_name(h->kind), h->cls, a->pick == a->rule ? "the rules' pick" :
			 "closer than ", a->pick == a->rule ? "" : r->ms[a->rule]->name, e1, a->nall,
			 a->nclass, a->nkind, 100 * a->noise, e2, n);
	else
		snprintf(h->detail, sizeof h->detail, "%s program, %s scenario; no measured error; "
			 "spread %s of %d runs, disagreement %s of %d models", hl_kind_name(h->kind),
			 h->cls, e2, n, e3, a->nother);
	if (a->race > 0) {
		size_t k = strlen(h->detail);

		snprintf(h->detail + k, sizeof h->detail - k, "; rendezvous race up to +%.1f %%",
			 100 * a->race);
	}
	return 0;
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

/* Models (or selectors) that gave a number. */
static int
count_ok(const struct predict_result *r)
{
	int nok = 0;

	for (int i = 0; i < r->nm; i++)
		nok += r->rs[i].status != PRED_NA;
	return nok;
}

/* The TSV of r into RUN/predict/NAME.tsv; a failure is kept in r->tsv_err. */
static void
write_result(struct predict_result *r, const char *run, const char *name, int64_t measured_ns,
	     const struct hl_answer *a, const char *hl_detail)
{
	char *path = NULL;

	if (write_tsv(run, name, &r->s, r->T, r->p.skew_ns, measured_ns, r->ms, r->rs, r->nm, a, hl_detail, &path,
		      &r->tsv_err) < 0)
		free(path);
	else
		r->tsv_path = path;
}

/* What collect's capture cost a rank per packet it sent, ns, into *ns: SPEC as a number of
 * ns, "none" (0), or a contend-observer-cost file (bench/observer_cost.sh -o); without SPEC
 * the calibration beside the binary's source tree (build/contend's
 * ../bench/results/observer-cost.tsv) or where `make install` puts it
 * (../share/contend/observer-cost.tsv), else 0. Returns 0, or negative with e set when
 * SPEC cannot be used. */
static int
load_observer_cost(const char *spec, double *ns, struct err *e)
{
	char val[64], *end, *auto_path = NULL;
	const char *path = spec;
	struct err le;
	int rc;

	*ns = 0;
	if (spec != NULL && strcmp(spec, "none") == 0)
		return 0;
	if (spec != NULL) {
		double v = strtod(spec, &end);

		if (end != spec && *end == '\0') {
			if (!(v >= 0) || !isfinite(v) || v > 1e6)
				return err_set(e, E_USAGE, "--observer-cost: '%s' is not a cost in ns per "
					       "packet (0 to 1e6), a file or 'none'", spec);
			*ns = v;
			return 0;
		}
	} else if ((auto_path = beside_binary("bench/results/observer-cost.tsv", "observer-cost.tsv")) != NULL) {
		path = auto_path;
	}
	if (path == NULL)
		return 0;
	rc = tsv_kv_lookup(path, "observer-cost", "ns_per_packet", val, sizeof val, &le);
	if (rc == 1) {
		double v = strtod(val, &end);

		if (end != val && *end == '\0' && v >= 0 && isfinite(v) && v <= 1e6) {
			*ns = v;
			free(auto_path);
			return 0;
		}
		snprintf(le.msg, sizeof le.msg, "'%s': ns_per_packet '%s' is not a cost in ns", path, val);
	} else if (rc == 0) {
		snprintf(le.msg, sizeof le.msg, "'%s' has no ns_per_packet", path);
	}
	if (path != auto_path)
		return err_set(e, E_USAGE, "--observer-cost: %s", le.msg);
	warnx_("predict: %s; collect's capture cost per packet is not used", le.msg);
	free(auto_path);
	return 0;
}

/* The scenario of o into r->s, with --sleep-credit, --observer-cost and --delay-comm. */
static int
load_scenario(struct predict_result *r, const struct predict_opts *o, struct err *e)
{
	int rc;

	if (scen_load(&r->s, o->scenario, e) < 0)
		return -E_FORMAT;
	r->has_scen = true;
	r->s.sleep_credit = o->sleep_credit;
	if ((rc = load_observer_cost(o->observer_cost, &r->s.observer_ns_per_pkt, e)) < 0)
		return rc;
	if (o->delay_comm != NULL) {	/* a calibration wins over the scenario's curves */
		char *abs = realpath(o->delay_comm, NULL);

		if (abs == NULL)
			return err_sys(e, E_IO, "cannot open '%s'", o->delay_comm);
		free(r->s.delay_file);
		r->s.delay_file = abs;
		r->s.delay = SCEN_DELAY_FILE;
	}
	return 0;
}

/* Under the scenario: its measured_ns, else its measured_run's dedicated time, else -1. */
static int64_t
measured_under(const struct scen *s)
{
	struct err e;
	int64_t ns;

	if (s->measured_ns >= 0)
		return s->measured_ns;
	if (s->measured_run == NULL)
		return -1;
	if ((ns = run_dedicated_ns(s->measured_run, &e)) < 0)
		warnx_("predict: measured_run: %s", e.msg);
	return ns;
}

void
predict_opts_init(struct predict_opts *o)
{
	*o = (struct predict_opts){ .sleep_credit = 1 };
}

int
predict_run(const struct predict_opts *o, struct predict_result *r, struct err *e)
{
	int rc;

	memset(r, 0, sizeof *r);
	r->measured_ns = -1;
	if ((rc = load_scenario(r, o, e)) < 0)
		return rc;
	if ((rc = load_profile(r, o->run, e)) < 0)
		return rc;
	/* a scenario without sections asks for the program alone (SCOPE_OBSERVER); one whose
	 * sections all name other hosts is a mistake */
	if (!(pred_scen_changes(&r->s) & SCOPE_OBSERVER) && scen_sections_used(&r->s, &r->p) == 0) {
		warnx_("predict: '%s' changes nothing this run uses (none of its [node], [rank] or "
		       "[link] sections names the run's hosts or ranks): no prediction", r->s.path);
		return 1;
	}
	r->ran = true;
	r->measured_ns = measured_under(&r->s);
	r->T = (double)prof_dedicated_ns(&r->p);
	for (const struct model *m = models; m->name != NULL && r->nm < PREDICT_MAX_MODELS; m++) {
		struct pred_result *pr = &r->rs[r->nm];
		struct err me;

		if (o->model != NULL && strcmp(o->model, m->name) != 0)
			continue;
		pred_result_init(pr);
		if (model_run(m, &r->p, &r->s, pr, &me) < 0)
			pred_na(pr, "%s", me.msg);
		r->ms[r->nm++] = m;
	}
	if ((rc = headline(r, o->errors, o->dedicated, o->ndedicated, e)) < 0)
		return rc;
	write_result(r, o->run, r->s.name, r->measured_ns, &r->hl.a, r->hl.detail);
	return count_ok(r) > 0 && r->tsv_path != NULL && !r->partial ? 0 : 1;
}

int
predict_select(const struct predict_select_opts *o, struct predict_result *r, struct err *e)
{
	bool known = false;
	char *name;
	int rc;

	memset(r, 0, sizeof *r);
	r->measured_ns = -1;
	for (const struct selector *x = selectors; x->name != NULL; x++)
		if (o->model == NULL || strcmp(o->model, x->name) == 0)
			known = true;
	if (!known)
		return err_set(e, E_USAGE, "--select: no selection for model '%s' (see 'contend predict "
			       "--list-models')", o->model);
	if (o->policy != NULL && o->model != NULL && strcmp(o->model, "p004") != 0)
		return err_set(e, E_USAGE, "--policy is for p004's selection");
	if (o->scenario != NULL)
		rc = scen_load(&r->s, o->scenario, e);
	else
		rc = scen_load_string(&r->s, "", "all", e);
	if (rc < 0)
		return -E_FORMAT;
	r->has_scen = true;
	r->s.sleep_credit = o->sleep_credit;
	if ((rc = load_profile(r, o->run, e)) < 0)
		return rc;
	r->ran = true;
	r->T = (double)prof_dedicated_ns(&r->p);
	for (const struct selector *x = selectors; x->name != NULL && r->nm < 8; x++) {
		struct pred_result *pr = &r->rs[r->nm];
		struct err se;

		if (o->model != NULL && strcmp(o->model, x->name) != 0)
			continue;
		pred_result_init(pr);
		r->as_model[r->nm] = (struct model){ .name = x->name, .paper = x->paper };
		r->ms[r->nm] = &r->as_model[r->nm];
		r->nm++;	/* released with r from here */
		if (x->select(&r->p, &r->s, x->policies[0] ? o->policy : NULL, pr, &se) < 0) {
			if (se.code == -E_USAGE && o->policy != NULL) {
				pred_result_free(pr);
				r->nm--;	/* r holds the selectors before it */
				return err_set(e, E_USAGE, "--select: %s", se.msg);
			}
			pred_na(pr, "%s", se.msg);
		}
	}
	name = xasprintf("select-%s", r->s.name);
	write_result(r, o->run, name, -1, NULL, NULL);
	free(name);
	return count_ok(r) > 0 && r->tsv_path != NULL && !r->partial ? 0 : 1;
}

void
predict_result_release(struct predict_result *r)
{
	for (int i = 0; i < r->nm; i++)
		pred_result_free(&r->rs[i]);
	r->nm = 0;
	prof_free(&r->p);
	if (r->has_scen)
		scen_free(&r->s);
	r->has_scen = false;
	free(r->note_tail);
	free(r->note_cov);
	free(r->note_start);
	free(r->tsv_path);
	r->note_tail = r->note_cov = r->note_start = r->tsv_path = NULL;
}

int
predict_calibrate(struct calib_opts *o, const char *out, calib_progress_fn fn, void *arg,
		  struct p000_delay *d, struct err *e)
{
	struct calib_point pts[CALIB_MAX_ALL];
	struct err me;
	char src[128];
	int npts = 0, rc;

	if ((rc = calib_measure(o, pts, &npts, fn, arg, &me)) < 0)
		return err_set(e, -rc, "%s (is testbed %d up with workstations '%s' and '%s'? "
			       "'contend testbed --instance %d up')", me.msg, o->instance, o->ws,
			       o->peer, o->instance);
	snprintf(src, sizeof src, "testbed %d, %s -> %s, probe %g ms, %d caps%s", o->instance, o->ws,
		 o->peer, o->probe_cpu_ms, o->nrates, o->uncapped ? " and uncapped" : "");
	if ((rc = calib_fit(pts, npts, src, d, e)) < 0 || (rc = p000_delay_save(d, out, e)) < 0)
		return rc;
	return 0;
}
