/* run000: paper 000's model applied to a parsed run (the registry's "p000"): each rank's
 * node slowdown (eq. 2), the aggregate by the scenario's partitioning, the changed links'
 * communication slowdown (eq. 3), from p000.h's pure functions. */
#include "predict/run000.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/p000.h"
#include "predict/p003.h"
#include "predict/run003.h"

static double
aggregate(enum scen_part part, int n, const double *w, const double *sd, const double *f1,
	  const double *f2)
{
	switch (part) {
	case SCEN_PART_LOAD:
		return p000_sd_load_dependent(n, w, sd);
	case SCEN_PART_UNIFORM:
		return p000_sd_uniform_ded(n, w, sd, f1);
	case SCEN_PART_CONSTRAINT:
	case SCEN_PART_UNSET:
		break;
	}
	return p000_sd_constraint(n, w, sd, f1, f2);
}

/* Paper 000's model over one run and scenario while it is worked out. */
struct r0 {
	const struct prof *p;
	const struct scen *s;
	int n;			/* ranks */
	double T;		/* dedicated time, ns */
	enum scen_part part;
	int nweight, nserial, nf1;	/* ranks with weight, serial_time, work_fraction */
	double *w, *sd, *busy;
	double *f2;		/* dedicated partitioning (measured) */
	double *f1;		/* partitioning under contention */
	double *ladd;		/* eq. 3 time added per rank */
	double *fast;		/* per message: bytes a link's bucket passes at ib (run003_link_fast) */
	const char *wsrc;	/* where the weights came from */
};

static void
r0_free(struct r0 *st)
{
	free(st->w);
	free(st->sd);
	free(st->busy);
	free(st->f2);
	free(st->f1);
	free(st->ladd);
	free(st->fast);
}

/* Whether the model applies and the scenario's weights and fractions are whole: 1, or 0
 * with r saying why not. Counts the ranks with each and their busy time. */
static int
r0_applies(struct r0 *st, struct pred_result *r)
{
	const struct prof *p = st->p;
	const struct prof_rank *sp;
	bool any = false;

	if ((sp = run003_speed_changed(p, st->s)) != NULL)
		return pred_na(r, "the scenario changes the speed of rank %d's node ('%s'), which eq. 2 does not "
			       "model (paper 004's delta)", sp->rank, sp->host);
	for (int a = 0; a < st->n; a++) {
		const struct scen_node *sn = scen_node_for(st->s, p->ranks[a].rank, p->ranks[a].host);

		if (sn != NULL && !isnan(sn->weight))
			st->nweight++;
		if (sn != NULL && sn->serial_ns > 0)
			st->nserial++;
		if (sn != NULL && !isnan(sn->work_frac))
			st->nf1++;
		if (sn != NULL && (sn->cpu_procs > 0 || sn->ncomm > 0 || (!isnan(sn->capacity) && sn->capacity < 1) ||
				   (!isnan(sn->load_avg) && sn->load_avg > 0)))
			any = true;
		st->busy[a] = (double)p->ranks[a].exec_ns * p->ranks[a].comp_pct / 100;
	}
	if (!any && st->s->nlinks == 0)
		return pred_na(r, "the scenario changes nothing this model sees (competing CPU-bound or "
			       "communicating processes, load average, CPU capacity, link bandwidth or latency)");
	if ((st->nweight > 0 && st->nweight < st->n) || (st->nserial > 0 && st->nserial < st->n) ||
	    (st->nweight > 0 && st->nserial > 0))
		return pred_na(r, "node weights must be given for every rank or none, all as weight or all "
			       "as serial_time (%d of %d ranks have weight, %d serial_time)", st->nweight, st->n,
			       st->nserial);
	if (st->nf1 > 0 && st->nf1 < st->n)
		return pred_na(r, "work_fraction must be given for every rank or none (%d of %d have it)",
			       st->nf1, st->n);
	return 1;
}

/* Weights: the scenario's, a serial benchmark's, the run's busy time under a uniform
 * partitioning, or equal. Then the work fractions, dedicated (f2, measured) and under
 * contention (f1). Returns 1, or 0 with r saying why not. */
static int
r0_partitioning(struct r0 *st, struct pred_result *r)
{
	const struct prof *p = st->p;
	const struct scen *s = st->s;
	int n = st->n;
	double f1sum = 0;

	if (st->nweight > 0) {
		for (int a = 0; a < n; a++)
			st->w[a] = scen_node_for(s, p->ranks[a].rank, p->ranks[a].host)->weight;
		st->wsrc = "scenario weight";
	} else if (st->nserial > 0) {
		for (int a = 0; a < n; a++)
			st->busy[a] = (double)scen_node_for(s, p->ranks[a].rank, p->ranks[a].host)->serial_ns;
		if (p000_weights_from_times(n, st->busy, st->w) < 0)
			BUG("serial times were checked positive");
		for (int a = 0; a < n; a++)
			st->busy[a] = (double)p->ranks[a].exec_ns * p->ranks[a].comp_pct / 100;
		st->wsrc = "serial benchmark (w = t_slowest / t)";
	} else if (st->part == SCEN_PART_UNIFORM && p000_weights_from_times(n, st->busy, st->w) == 0) {
		st->wsrc = "the run's busy time under uniform work (w = busy_slowest / busy)";
	} else {
		for (int a = 0; a < n; a++)
			st->w[a] = 1;
		st->wsrc = "equal (homogeneous)";
	}
	if (p000_fractions_from_busy(n, st->busy, st->w, st->f2) < 0)
		return pred_na(r, "no rank was busy computing in the run, so its work fractions are unknown");
	if (st->part == SCEN_PART_UNIFORM && st->nf1 == 0) {
		for (int a = 0; a < n; a++)
			st->f1[a] = 1.0 / n;
		return 1;
	}
	for (int a = 0; a < n; a++) {
		const struct scen_node *sn = scen_node_for(s, p->ranks[a].rank, p->ranks[a].host);

		st->f1[a] = st->nf1 > 0 ? sn->work_frac : st->f2[a];
		f1sum += st->f1[a];
	}
	if (st->nf1 > 0 && fabs(f1sum - 1) > 0.01)
		return pred_na(r, "the scenario's work fractions add up to %.3f, not 1", f1sum);
	return 1;
}

/* Eq. 2 per rank, the aggregate slowdown, and a row per loaded rank with the aggregate were
 * it the only one loaded. Returns the aggregate; *extrap: a curve was extrapolated.
 *
 * Ranks that share a node (beyond the paper, docs/predict.md, p000): Section 3 takes the
 * application's process to have its node's CPU alone in the dedicated run, which sd is
 * relative to. A rank whose node holds other ranks shared the node's cores with them already
 * in the dedicated run, so eq. 2 is applied to the node as a whole: the rank's neighbours
 * are competitors there in both runs, each computing its runnable share of the run (an MPI
 * library that polls keeps a waiting rank on the CPU), and the slowdown is the ratio of the
 * two (coloc_stretch_run, the rule the replay shares the node by). With CPU-bound
 * competitors on one core that is (1 + u + k) / (1 + u) for k competitors and neighbours
 * runnable u of the time, where eq. 2 alone gives 1 + k; a rank alone on its node keeps
 * eq. 2's number. */
static double
r0_nodes(struct r0 *st, const struct p000_delay *d, struct pred_result *r, bool *extrap)
{
	const struct prof *p = st->p;
	int n = st->n;
	struct coloc_rank *cl = xcalloc((size_t)n, sizeof *cl);	/* the ranks' neighbours */
	double *one = xcalloc((size_t)n, sizeof *one);	/* sd with only one rank loaded */
	double agg;

	*extrap = false;
	coloc_read(p, cl);
	for (int a = 0; a < n; a++) {
		const struct scen_node *sn = scen_node_for(st->s, p->ranks[a].rank, p->ranks[a].host);
		bool x;

		st->sd[a] = sn == NULL ? 1 : coloc_stretch_run(p000_node_sd(sn, d, &x), sn->capacity, &cl[a]);
		if (sn != NULL)
			*extrap |= x;
	}
	agg = aggregate(st->part, n, st->w, st->sd, st->f1, st->f2);
	for (int a = 0; a < n; a++) {
		const struct scen_node *sn = scen_node_for(st->s, p->ranks[a].rank, p->ranks[a].host);
		char name[160], shared[120];

		if (!(st->sd[a] > 1) && !(sn != NULL && sn->ncomm > 0))
			continue;
		for (int b = 0; b < n; b++)
			one[b] = b == a ? st->sd[a] : 1;
		snprintf(name, sizeof name, "rank %d (%s)", p->ranks[a].rank, p->ranks[a].host);
		if (cl[a].nlocal > 1)
			snprintf(shared, sizeof shared, "; %d ranks share %.3g cores, others runnable %.2f",
				 cl[a].nlocal, cl[a].cores, cl[a].others_runnable);
		else
			shared[0] = '\0';
		pred_add(r, "node", name, st->T * (aggregate(st->part, n, st->w, one, st->f1, st->f2) - 1), st->sd[a],
			 "000 eq. 2", "sd %.3f from %g CPU-bound%s and %d communicating competitors%s%s; w %.3g, f %.3f",
			 st->sd[a], sn->cpu_procs > 0 ? (double)sn->cpu_procs : !isnan(sn->load_avg) ? sn->load_avg : 0.0,
			 !isnan(sn->load_avg) ? " (load average)" : "", sn->ncomm,
			 !isnan(sn->capacity) && sn->capacity < 1 ? " and a reduced CPU share" : "", shared, st->w[a],
			 st->f1[a]);
	}
	free(one);
	free(cl);
	return agg;
}

/* Eq. 3 on changed link sl: its communication time (L + avg/B per message) grows by ib / cb;
 * a latency change adds its own term per message, as paper 003 Sec. 2.2's (eq. 3 sees
 * bandwidth only); the bytes its bucket lets through go at ib, slowdown 1 (beyond the
 * paper, as the replay reads `burst`). Adds to both ends' st->ladd and a row. Returns 1, or
 * 0 with r saying why not. */
static int
r0_link(struct r0 *st, const struct scen_link *sl, struct pred_result *r)
{
	const struct prof *p = st->p;
	double tcomm = 0, tfast = 0, tlat = 0, cb, sdl;
	double dlat = sl->lat_ns >= 0 ? (double)sl->lat_ns - (double)p->lat_ns : 0;	/* ns */
	char name[300], bucket[160] = "";

	if (!p->have_net || !p->have_links)
		return pred_na(r, "the scenario changes links, and eq. 3 needs the run's measured "
			       "bandwidth and per-link messages (profile/netparams.tsv, links.tsv)");
	cb = !isnan(sl->bw_Bps) ? sl->bw_Bps : p->bw_Bps;
	if (!isnan(sl->competing_Bps))
		cb -= sl->competing_Bps;
	if (sl->competing_flows > 0)
		cb /= sl->competing_flows + 1;
	if (!(cb > 0))
		return pred_na(r, "link %s-%s: the competing traffic leaves no bandwidth", sl->a, sl->b);
	sdl = p000_comm_sd(p->bw_Bps, cb);
	for (int k = 0; k < p->nlinks; k++) {
		const struct prof_link *l = &p->links[k];
		const struct prof_rank *ra = prof_rank(p, l->src), *rb = prof_rank(p, l->dst);
		double t;

		if (ra == NULL || rb == NULL || strcmp(ra->host, rb->host) == 0 ||
		    scen_link_for(st->s, ra->host, rb->host) != sl)
			continue;
		t = (double)l->msgs * ((double)p->lat_ns + l->avg_bytes / p->bw_Bps * 1e9);
		tcomm += t;
		tlat += (double)l->msgs * dlat;
		st->ladd[ra - p->ranks] += t * (sdl - 1) + (double)l->msgs * dlat;
		st->ladd[rb - p->ranks] += t * (sdl - 1) + (double)l->msgs * dlat;
	}
	for (long k = 0; st->fast != NULL && k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct prof_rank *ra, *rb;
		double t;

		if (!(st->fast[k] > 0) || (ra = prof_rank(p, m->src)) == NULL || (rb = prof_rank(p, m->dst)) == NULL ||
		    scen_link_for(st->s, ra->host, rb->host) != sl)
			continue;
		t = st->fast[k] / p->bw_Bps * 1e9;	/* its dedicated time, not slowed down */
		tfast += t;
		st->ladd[ra - p->ranks] -= t * (sdl - 1);
		st->ladd[rb - p->ranks] -= t * (sdl - 1);
	}
	if (tfast > 0)
		snprintf(bucket, sizeof bucket, "; a %lld B token bucket passes %.3f s of it at ib",
			 (long long)sl->burst_bytes, tfast / 1e9);
	if (dlat != 0 && tlat != 0)
		snprintf(bucket + strlen(bucket), sizeof bucket - strlen(bucket), "; latency %+.1f us a "
			 "message (%+.3f s, as 003 Sec. 2.2)", dlat / 1e3, tlat / 1e9);
	snprintf(name, sizeof name, "%s-%s", sl->a, sl->b);
	pred_add(r, "link", name, (tcomm - tfast) * (sdl - 1) + tlat, sdl, "000 eq. 3",
		 "ib %.3g MB/s, cb %.3g MB/s, dedicated communication %.3f s%s", p->bw_Bps / 1e6,
		 cb / 1e6, tcomm / 1e9, bucket);
	return 1;
}

int
run000_predict_with(const struct prof *p, const struct scen *s, const struct p000_delay *d,
		    struct pred_result *r, struct err *e)
{
	int n = p->nranks;
	struct r0 st = {
		.p = p, .s = s, .n = n, .T = (double)prof_dedicated_ns(p),
		.part = s->part == SCEN_PART_UNSET ? SCEN_PART_CONSTRAINT : s->part,
		.w = xcalloc((size_t)n, sizeof *st.w), .sd = xcalloc((size_t)n, sizeof *st.sd),
		.busy = xcalloc((size_t)n, sizeof *st.busy), .f2 = xcalloc((size_t)n, sizeof *st.f2),
		.f1 = xcalloc((size_t)n, sizeof *st.f1), .ladd = xcalloc((size_t)n, sizeof *st.ladd),
	};
	const struct scen_link *bl;
	bool extrap_any;
	double agg, worst_link = 0;
	int rc = 0;

	(void)e;
	r->dedicated_ns = st.T;
	if (r0_applies(&st, r) == 0 || r0_partitioning(&st, r) == 0)
		goto out;
	agg = r0_nodes(&st, d, r, &extrap_any);
	/* eq. 3 on each changed link; a rank waits for all its links, the run for its slowest
	 * rank */
	if (run003_link_fast(p, s, &st.fast, &bl) < 0) {
		rc = pred_na(r, "link %s-%s is a token bucket (burst), and eq. 3 needs the run's messages "
			     "('%s/profile/messages.tsv') to tell which of them fit in it", bl->a, bl->b, p->run);
		goto out;
	}
	for (int i = 0; i < s->nlinks; i++)
		if (r0_link(&st, &s->links[i], r) == 0)
			goto out;
	for (int a = 0; a < n; a++)
		if (st.ladd[a] > worst_link)
			worst_link = st.ladd[a];
	r->predicted_ns = st.T * agg + worst_link;
	snprintf(r->equation, sizeof r->equation, "000 eq. %s",
		 st.part == SCEN_PART_LOAD ? "5" : st.part == SCEN_PART_UNIFORM ? "11" : st.nf1 > 0 ? "9" : "8");
	pred_add(r, "factor", "aggregate slowdown", st.T * (agg - 1), agg, r->equation,
		 "%s partitioning%s; weights %s; delay_comm %s%s", scen_part_name(st.part),
		 s->part == SCEN_PART_UNSET ? " (the default)" : "", st.wsrc, d->source,
		 extrap_any ? "; curves extrapolated past the largest i" : "");
	snprintf(r->note, sizeof r->note, "X = X_ded * sd (eq. 4)%s",
		 s->nlinks > 0 ? " plus the slowest rank's eq. 3 link time" : "");
out:
	r0_free(&st);
	return rc;
}

int
run000_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	struct p000_delay d;
	int rc = p000_scenario_curves(s, &d, e);

	return rc < 0 ? rc : run000_predict_with(p, s, &d, r, e);
}
