/* explain stage: why a run was slow, its time split among causes, written to
 * RUN/explain.tsv (the logic of `contend explain`). */
#include "explain/stage.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "explain/attrib.h"
#include "explain/evidence.h"
#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "predict/profile.h"

/* A run's profile and evidence; damaged rows are said in one warning. Returns 0, or
 * negative with e set (nothing to free then). */
static int
load_run(struct prof *p, struct evid *v, const char *run, struct err *e)
{
	int rc;

	if ((rc = prof_load(p, run, e)) < 0) {
		prof_free(p);
		return rc;
	}
	evid_load(v, p);
	if (p->damaged > 0 || v->damaged > 0)
		warnx_("'%s': %ld damaged rows skipped", run, p->damaged + v->damaged);
	if (v->bad_files > 0)
		warnx_("'%s': %ld evidence file%s unreadable and left out (first: %s)", run, v->bad_files,
		       v->bad_files == 1 ? "" : "s", v->bad_file);
	return 0;
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
	if (rc == 0 && r->observer_evidence[0] != '\0') {
		row(&t, "observer", NULL, NULL, NULL, -1, r->observer_ns, T, r->observer_evidence);
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

int
explain_run(const struct explain_opts *o, struct explain_result *r, struct err *e)
{
	struct prof p, bp;
	struct evid v, bv;
	bool base = o->baseline != NULL;
	int rc;

	*r = (struct explain_result){ 0 };
	if ((rc = load_run(&p, &v, o->run, e)) < 0)
		return rc;
	if (base && (rc = load_run(&bp, &bv, o->baseline, e)) < 0) {
		evid_free(&v);
		prof_free(&p);
		return rc;
	}
	rc = attr_explain(&p, &v, base ? &bp : NULL, base ? &bv : NULL, &r->a, e);
	if (rc == 0) {
		r->explained = true;
		rc = write_tsv(o->run, o->baseline, &r->a, e);
	}
	evid_free(&v);
	prof_free(&p);
	if (base) {
		evid_free(&bv);
		prof_free(&bp);
	}
	return rc;
}

void
explain_result_release(struct explain_result *r)
{
	if (r == NULL)
		return;
	attr_result_free(&r->a);
	r->explained = false;
}
