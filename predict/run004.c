/* run004: paper 004 on a parsed run: iterations, eta under background load, R_P, selection. */
#include "predict/run004.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/p004.h"

#define EXHAUSTIVE_MAX 16	/* pools up to this size are searched exhaustively */
#define RANKED_ROWS 64		/* prefix rows shown by --select */

/* The iteration structure of the run. */
struct iters {
	struct p004_detect d;
	double eta_meas;	/* the run's own imbalance (1 when not measurable) */
	double r_ded_ns;	/* eq. 5 with eta_meas: I t_iter */
};

/* 1 found, 0 not applicable (why), negative error. */
static int
detect(const struct prof *p, struct iters *it, char *why, size_t wl, struct err *e)
{
	int span = prof_rank_span(p);
	int rc;

	memset(it, 0, sizeof *it);
	if (!p->have_msgs || p->nmsgs == 0) {
		snprintf(why, wl, "the run has no messages ('%s/profile/messages.tsv') to find iterations in", p->run);
		return 0;
	}
	if (!p->have_phases || p->nbusy == 0) {
		snprintf(why, wl, "the run has no busy phases ('%s/profile/phases.tsv') to time its iterations",
			 p->run);
		return 0;
	}
	rc = p004_detect_iterations(p->msgs, (size_t)p->nmsgs, p->busy, (size_t)p->nbusy, (size_t)span, NULL,
				    &it->d, e);
	if (rc == -E_FORMAT) {
		snprintf(why, wl, "no synchronous iterative pattern: %.200s", e->msg);
		return 0;
	}
	if (rc < 0)
		return rc;
	if (!(it->d.it.t_par_wk_ns > 0) || isnan(it->d.it.t_overhead_ns)) {
		snprintf(why, wl, "%zu iterations found, but the ranks show no busy time inside them", it->d.iters);
		return 0;
	}
	it->eta_meas = it->d.eta_measured >= 1 ? it->d.eta_measured : 1;
	it->r_ded_ns = p004_runtime_ns(&it->d.it, it->eta_meas, it->d.nranks);
	return 1;
}

/* One processor under the scenario. */
struct proc4 {
	bool has_gamma;
	struct p004_pmf gamma;	/* background slowdown, owned when has_gamma */
	unsigned delta;		/* time per unit work; RUN004_DELTA = as fast as in the run */
	double mean_gamma;	/* E[gamma] (1 without load) */
	char desc[160];
};

static void
procs_free(struct proc4 *q, size_t n)
{
	for (size_t j = 0; q != NULL && j < n; j++)
		if (q[j].has_gamma)
			p004_pmf_free(&q[j].gamma);
	free(q);
}

/* Add competitors to a gamma distribution (or to the point mass 1 when there is none):
 * k always there and, with probability f, one more (a load average L is floor(L) competitors
 * that always compute and one that computes the rest, f = L - floor(L), as p000 reads it).
 * The new distribution is the old one convolved with {k: 1 - f, k + 1: f}. */
static void
add_competitors(struct proc4 *q, int k, double f)
{
	size_t n = q->has_gamma ? q->gamma.n : 2;
	double *np = xcalloc(n + (size_t)k + 1, sizeof *np);

	if (!q->has_gamma) {
		q->gamma.p = xcalloc(2, sizeof *q->gamma.p);
		q->gamma.p[1] = 1;
		q->gamma.tail = 0;
	}
	for (size_t v = 0; v < n; v++) {
		np[v + (size_t)k] += q->gamma.p[v] * (1 - f);
		np[v + (size_t)k + 1] += q->gamma.p[v] * f;
	}
	free(q->gamma.p);
	q->gamma.p = np;
	q->gamma.n = f > 0 ? n + (size_t)k + 1 : n + (size_t)k;
	q->has_gamma = true;
}

/* 1 set, 0 not applicable (why), negative error. */
static int
proc_from_node(const struct scen_node *n, const char *who, size_t nproc, struct proc4 *q, char *why,
	       size_t wl, struct err *e)
{
	double f = 1;
	size_t used = 0;
	int rc;

	memset(q, 0, sizeof *q);
	q->delta = RUN004_DELTA;
	q->mean_gamma = 1;
	if (n == NULL)
		return 1;
	if (!isnan(n->speed))
		f *= n->speed;
	if (!isnan(n->capacity))
		f *= n->capacity;
	if (f != 1) {
		double d = round(RUN004_DELTA / f);

		q->delta = d < 1 ? 1 : d > 1e6 ? 1000000 : (unsigned)d;
		used += (size_t)snprintf(q->desc + used, sizeof q->desc - used, "delta %u/%d; ", q->delta,
					 RUN004_DELTA);
	}
	if (!isnan(n->lambda_per_s) && n->lambda_per_s > 0) {
		if (n->service_mean_ns > 0) {
			double rho = n->lambda_per_s * (double)n->service_mean_ns / 1e9;

			if (!(rho < 1)) {
				snprintf(why, wl, "%s: background utilisation rho = %.3f is not below 1", who, rho);
				return 0;
			}
			if ((rc = p004_pmf_gamma_ps(rho, P004_TOL_DEFAULT / (double)nproc, &q->gamma, e)) < 0)
				return rc;
			used += (size_t)snprintf(q->desc + used, sizeof q->desc - used,
						 "processor sharing rho %.3f (eq. 20); ", rho);
		} else {
			struct p004_h2 h = { .lambda_per_s = n->lambda_per_s, .pi_a = n->service_pa,
					     .mu_a_per_s = 1e9 / (double)n->service_a_ns,
					     .mu_b_per_s = 1e9 / (double)n->service_b_ns };
			double rho = p004_h2_rho(&h);
			struct p004_inv_report rep;

			if (!(rho < 1)) {
				snprintf(why, wl, "%s: background utilisation rho = %.3f is not below 1", who, rho);
				return 0;
			}
			rc = p004_pmf_gamma_mg1_h2(&h, NULL, &q->gamma, &rep, e);
			if (rc == -E_LIMIT) {
				snprintf(why, wl, "%.60s: %.180s", who, e->msg);
				return 0;
			}
			if (rc < 0)
				return rc;
			used += (size_t)snprintf(q->desc + used, sizeof q->desc - used,
						 "M/G/1 H2 rho %.3f (eqs. 25-29, tail %.1e); ", rho, rep.tail);
		}
		q->has_gamma = true;
	}
	if (n->cpu_procs > 0) {
		add_competitors(q, n->cpu_procs, 0);
		used += (size_t)snprintf(q->desc + used, sizeof q->desc - used, "%d CPU-bound; ", n->cpu_procs);
	}
	if (!isnan(n->load_avg) && n->load_avg > 0) {
		double whole = floor(n->load_avg);

		if (n->load_avg > 1000) {
			snprintf(why, wl, "%s: load average %g is above 1000", who, n->load_avg);
			return 0;
		}
		add_competitors(q, (int)whole, n->load_avg - whole);
		used += (size_t)snprintf(q->desc + used, sizeof q->desc - used, "load average %g; ", n->load_avg);
	}
	if (used >= sizeof q->desc)
		used = sizeof q->desc - 1;
	if (used >= 2)
		q->desc[used - 2] = '\0';
	if (q->has_gamma) {
		q->mean_gamma = 0;
		for (size_t v = 0; v < q->gamma.n; v++)
			q->mean_gamma += (double)v * q->gamma.p[v];
	}
	return 1;
}

static bool
proc_loaded(const struct proc4 *q)
{
	return q->has_gamma || q->delta != RUN004_DELTA;
}

/* A pool of processors for the objective functions. */
struct pool {
	const struct iters *it;
	const struct proc4 *q;
	size_t n;
	double base_ns;		/* the dedicated time outside the iterations: T - I t_iter */
	int max_procs;		/* sets larger than this are infeasible; <= 0 no limit */
	int only;		/* >= 0: every processor but this one unloaded */
	double last_eta;	/* eta of the last evaluation */
};

/* The predicted run time of a set (ns): the time outside the iterations plus eq. 5. */
static int
pool_time(void *ctx, const size_t *set, size_t n, double *v, struct err *e)
{
	struct pool *pl = ctx;
	struct p004_proc *pr;
	struct p004_eta eta;
	int rc;

	if (pl->max_procs > 0 && n > (size_t)pl->max_procs) {
		*v = INFINITY;
		return 0;
	}
	pr = xcalloc(n, sizeof *pr);
	for (size_t j = 0; j < n; j++) {
		const struct proc4 *q = &pl->q[set[j]];
		bool on = pl->only < 0 || (size_t)pl->only == set[j];

		pr[j].beta = NULL;
		pr[j].gamma = on && q->has_gamma ? &q->gamma : NULL;
		pr[j].delta = on ? q->delta : RUN004_DELTA;
	}
	rc = p004_eta_general(pr, n, 1, RUN004_DELTA, NULL, &eta, e);
	free(pr);
	if (rc < 0)
		return rc;
	pl->last_eta = eta.eta;
	*v = pl->base_ns + p004_runtime_ns(&pl->it->d.it, pl->it->eta_meas * eta.eta, n);
	return 0;
}

static void
iter_row(const struct iters *it, struct pred_result *r)
{
	const struct p004_detect *d = &it->d;

	pred_add(r, "factor", "iterations", NAN, (double)d->iters, "004 eq. 5",
		 "I %zu (rank %d, %zu messages per iteration, match %.0f%%): t_iter %.3f ms, t_serial %.3f "
		 "ms, t_PAR_WK %.3f ms, overhead %.3f ms, eta measured %.3f", d->iters, d->ref_rank,
		 d->ref_period, 100 * d->match, d->t_iter_ns / 1e6, d->it.t_serial_ns / 1e6,
		 d->it.t_par_wk_ns / 1e6, d->it.t_overhead_ns / 1e6, it->eta_meas);
}

int
run004_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	double T = (double)prof_dedicated_ns(p);
	struct iters it;
	struct proc4 *q;
	struct pool pl;
	size_t P, *set;
	char why[256];
	double t_scen;
	int rc, nloaded = 0;

	r->dedicated_ns = T;
	snprintf(r->equation, sizeof r->equation, "004 eqs. 5, 11");
	if ((rc = detect(p, &it, why, sizeof why, e)) <= 0)
		return rc < 0 ? rc : pred_na(r, "%s", why);
	P = it.d.nranks;
	q = xcalloc(P, sizeof *q);
	set = xcalloc(P, sizeof *set);
	for (size_t j = 0; j < P; j++) {
		const struct prof_rank *rk = prof_rank(p, (int)j);
		char who[PROF_HOST_MAX + 32];

		set[j] = j;
		snprintf(who, sizeof who, "rank %zu (%s)", j, rk ? rk->host : "?");
		rc = proc_from_node(rk ? scen_node_for(s, rk->rank, rk->host) : NULL, who, P, &q[j], why,
				    sizeof why, e);
		if (rc <= 0) {
			procs_free(q, P);
			free(set);
			return rc < 0 ? rc : pred_na(r, "%s", why);
		}
		nloaded += proc_loaded(&q[j]);
	}
	pl = (struct pool){ .it = &it, .q = q, .n = P, .base_ns = T - it.r_ded_ns, .only = -1 };
	if ((rc = pool_time(&pl, set, P, &t_scen, e)) < 0)
		goto out;
	r->predicted_ns = t_scen;
	iter_row(&it, r);
	pred_add(r, "factor", "eta", NAN, pl.last_eta, "004 eq. 11",
		 "background imbalance under the scenario over %zu processors; times the measured %.3f", P,
		 it.eta_meas);
	for (size_t j = 0; j < P; j++) {
		const struct prof_rank *rk = prof_rank(p, (int)j);
		char name[PROF_HOST_MAX + 32];
		double t1;

		if (!proc_loaded(&q[j]))
			continue;
		pl.only = (int)j;
		if ((rc = pool_time(&pl, set, P, &t1, e)) < 0)
			goto out;
		snprintf(name, sizeof name, "rank %zu (%s)", j, rk ? rk->host : "?");
		pred_add(r, "node", name, t1 - T, q[j].mean_gamma, "004 eqs. 20-29",
			 "E[gamma] %.3f: %s", q[j].mean_gamma, q[j].desc);
	}
	snprintf(r->note, sizeof r->note, "R_P = I (t_serial + eta_measured eta t_PAR_WK / P + overhead); the "
		 "run's own imbalance and the background's are taken as independent%s",
		 nloaded ? "" : "; the scenario loads no processor this model sees");
	rc = 0;
out:
	procs_free(q, P);
	free(set);
	return rc;
}

/* ---- selection ---- */

static int
add_host(char ***names, int *n, size_t *cap, const char *h)
{
	for (int i = 0; i < *n; i++)
		if (strcmp((*names)[i], h) == 0)
			return 0;
	*names = xgrow(*names, cap, (size_t)*n + 1, sizeof **names);
	(*names)[(*n)++] = xstrdup(h);
	return 1;
}

static void
join_set(char *out, size_t len, char **names, const size_t *set, size_t n)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < len; i++) {
		int w = snprintf(out + used, len - used, "%s%s", i ? "," : "", names[set[i]]);

		used += w > 0 ? (size_t)w : 0;
	}
}

static int
order_cmp_key(const double *key, size_t a, size_t b)
{
	return key[a] < key[b] ? -1 : key[a] > key[b] ? 1 : (a > b) - (a < b);
}

/* The pool: the [select] candidates, or the run's hosts and the scenario's extra nodes. */
static int
pool_hosts(const struct prof *p, const struct scen *s, char ***names, size_t *cap)
{
	int n = 0;

	if (s->ncand > 0) {
		for (int i = 0; i < s->ncand; i++)
			add_host(names, &n, cap, s->cand[i]);
	} else {
		for (int i = 0; i < p->nranks; i++)
			add_host(names, &n, cap, p->ranks[i].host);
		for (int i = 0; i < s->nnodes; i++)
			if (s->nodes[i].rank < 0)
				add_host(names, &n, cap, s->nodes[i].host);
	}
	return n;
}

/* What a policy chose: the set's size, its objective's value, its run time, and whether
 * the value is a cost. */
struct pick {
	size_t nset;
	double val, t_best;
	bool cost_obj;
};

/* Run policy pol over the pool of n hosts (keys key, costs c): the chosen set in set[].
 * Returns 1 chosen, 0 the policy does not apply (r says why), or a negative error. */
static int
select_by_policy(const char *pol, const struct scen *s, struct pool *pl, const double *key,
		 const double *c, int n, size_t *set, struct pick *pk, struct pred_result *r,
		 struct err *e)
{
	int rc;

	pk->val = pk->t_best = NAN;
	if (strcmp(pol, "fig5") == 0 || strcmp(pol, "greedy") == 0) {
		rc = p004_select_fig5((size_t)n, key, pool_time, pl, 0, set, &pk->nset, &pk->val, e);
		pk->t_best = pk->val;
	} else if (strcmp(pol, "cost") == 0) {
		struct p004_cost_ctx cc = { .runtime = pool_time, .runtime_ctx = pl, .x_per_s = s->x, .c_per_s = c };

		if (isnan(s->x))
			return pred_na(r, "policy 'cost' needs [policy] x, the cost per second of run time (eq. 35)");
		pk->cost_obj = true;
		rc = n <= EXHAUSTIVE_MAX ?
		     p004_select_exhaustive((size_t)n, p004_cost_objective, &cc, set, &pk->nset, &pk->val, e) :
		     p004_select_fig5((size_t)n, key, p004_cost_objective, &cc, 1, set, &pk->nset, &pk->val, e);
		if (rc == 0)
			rc = pool_time(pl, set, pk->nset, &pk->t_best, e);
	} else {
		struct p004_choice ch;
		bool goal = strcmp(pol, "goal") == 0;
		enum p004_search how = n <= EXHAUSTIVE_MAX ? P004_SEARCH_EXHAUSTIVE : P004_SEARCH_PREFIX;

		if (goal && s->deadline_ns < 0)
			return pred_na(r, "policy 'goal' needs [policy] deadline, the run-time goal");
		if (!goal && isnan(s->budget))
			return pred_na(r, "policy 'budget' needs [policy] budget, the cost bound");
		rc = goal ? p004_select_min_cost_goal((size_t)n, key, pool_time, pl, c, (double)s->deadline_ns,
						      how, set, &ch, e) :
			    p004_select_min_time_budget((size_t)n, key, pool_time, pl, c, s->budget, how, set,
							&ch, e);
		if (rc == 0 && ch.nset == 0)
			return pred_na(r, goal ? "no processor set meets the deadline of %.3f s" :
					       "no processor set stays within the budget of %g", goal ?
				       (double)s->deadline_ns / 1e9 : s->budget);
		if (rc == 0) {
			pk->nset = ch.nset;
			pk->t_best = ch.r_ns;
			pk->val = goal ? ch.use_cost : ch.r_ns;
			pk->cost_obj = goal;
		}
	}
	if (rc < 0)
		return rc;
	if (!isfinite(pk->t_best))
		return pred_na(r, "no processor set is feasible (max_procs %d)", s->max_procs);
	return 1;
}

/* Every prefix of the key order, ranked by predicted time: the best RANKED_ROWS as rows. */
static int
ranked_prefixes(struct pool *pl, char **names, const double *key, const double *c, double x, int n,
		double T, struct pred_result *r, struct err *e)
{
	double *tk = xcalloc((size_t)n + 1, sizeof *tk);
	size_t *rank = xcalloc((size_t)n + 1, sizeof *rank);
	size_t *ord = xcalloc((size_t)n + 1, sizeof *ord);
	char list[512];
	int rc = 0;

	for (int i = 0; i < n; i++)
		ord[i] = (size_t)i;
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && order_cmp_key(key, ord[b], ord[b - 1]) < 0; b--) {
			size_t t = ord[b];

			ord[b] = ord[b - 1];
			ord[b - 1] = t;
		}
	for (int k = 1; k <= n && rc == 0; k++) {
		rc = pool_time(pl, ord, (size_t)k, &tk[k], e);
		rank[k - 1] = (size_t)k;
	}
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && tk[rank[b]] < tk[rank[b - 1]]; b--) {
			size_t t = rank[b];

			rank[b] = rank[b - 1];
			rank[b - 1] = t;
		}
	for (int i = 0; rc == 0 && i < n && i < RANKED_ROWS; i++) {
		size_t k = rank[i];
		char name[32];

		if (!isfinite(tk[k]))
			continue;
		join_set(list, sizeof list, names, ord, k);
		snprintf(name, sizeof name, "#%d: P = %zu", i + 1, k);
		pred_add(r, "set", name, tk[k] - T, tk[k] / 1e9, "004 eq. 5",
			 "the %zu with the lowest key: {%s}, cost %.4g", k, list,
			 p004_cost(tk[k], isnan(x) ? 0 : x, c, ord, k));
	}
	free(tk);
	free(rank);
	free(ord);
	return rc;
}

int
run004_select(const struct prof *p, const struct scen *s, const char *policy, struct pred_result *r,
	      struct err *e)
{
	double T = (double)prof_dedicated_ns(p);
	struct iters it;
	struct proc4 *q = NULL;
	struct pool pl;
	struct pick pk = { 0 };
	char **names = NULL, why[256], list[512];
	size_t cap = 0, *set = NULL;
	double *key = NULL, *c = NULL;
	bool hetero = false;
	const char *pol = policy;
	int rc, n = 0;

	r->dedicated_ns = T;
	snprintf(r->equation, sizeof r->equation, "004 Fig. 5");
	if (pol != NULL && strcmp(pol, "fig5") != 0 && strcmp(pol, "greedy") != 0 && strcmp(pol, "cost") != 0 &&
	    strcmp(pol, "goal") != 0 && strcmp(pol, "budget") != 0)
		return err_set(e, E_USAGE, "unknown policy '%s' (use fig5, greedy, cost, goal or budget)", pol);
	if ((rc = detect(p, &it, why, sizeof why, e)) <= 0)
		return rc < 0 ? rc : pred_na(r, "%s", why);
	n = pool_hosts(p, s, &names, &cap);
	q = xcalloc((size_t)n, sizeof *q);
	key = xcalloc((size_t)n, sizeof *key);
	c = xcalloc((size_t)n, sizeof *c);
	set = xcalloc((size_t)n, sizeof *set);
	for (int j = 0; j < n; j++) {
		const struct scen_node *nd = scen_node_for(s, -1, names[j]);

		rc = proc_from_node(nd, names[j], (size_t)n, &q[j], why, sizeof why, e);
		if (rc <= 0) {
			if (rc == 0)
				rc = pred_na(r, "%s", why);
			n = j + 1;
			goto out;
		}
		c[j] = nd != NULL && !isnan(nd->cost) ? nd->cost : 0;
		if (q[j].delta != q[0].delta)
			hetero = true;
	}
	if (pol == NULL)
		pol = hetero ? "greedy" : "fig5";
	for (int j = 0; j < n; j++)
		key[j] = strcmp(pol, "fig5") == 0 ? q[j].mean_gamma :
			 q[j].mean_gamma * q[j].delta / RUN004_DELTA;
	pl = (struct pool){ .it = &it, .q = q, .n = (size_t)n, .base_ns = T - it.r_ded_ns,
			    .max_procs = s->max_procs, .only = -1 };
	rc = select_by_policy(pol, s, &pl, key, c, n, set, &pk, r, e);
	if (rc <= 0)
		goto out;
	r->predicted_ns = pk.t_best;
	iter_row(&it, r);
	join_set(list, sizeof list, names, set, pk.nset);
	pred_add(r, "set", "chosen", pk.t_best - T, pk.cost_obj ? pk.val : pk.t_best / 1e9, "004 Sec. 3",
		 "policy %s: {%s}, P = %zu, predicted %.3f s%s", pol, list, pk.nset, pk.t_best / 1e9,
		 pk.cost_obj ? " (value: cost)" : "");
	rc = ranked_prefixes(&pl, names, key, c, s->x, n, T, r, e);
	snprintf(r->note, sizeof r->note, "pool of %d hosts (%s); key: %s", n,
		 s->ncand > 0 ? "[select] candidates" : "the run's hosts and [node] sections",
		 strcmp(pol, "fig5") == 0 ? "E[gamma] (background slowdown)" : "delta E[gamma] / Delta (expected slowdown)");
out:
	if (q != NULL)
		procs_free(q, (size_t)n);
	for (int i = 0; names != NULL && i < (int)cap && i < n; i++)
		free(names[i]);
	free(names);
	free(key);
	free(c);
	free(set);
	return rc;
}
