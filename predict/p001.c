/* p001: paper 001's work-rate model, master and slave selection, and its Table 1 inputs. */
#include "predict/p001.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/maxflow.h"

#define RATE_EPS 1e-9		/* tasks/s below which a rate counts as zero */

double
p001_w_cpu(double avail, double t_task_s)
{
	if (!(t_task_s > 0) || !(avail >= 0 && avail <= 1))
		return NAN;
	return avail / t_task_s;
}

double
p001_w_net(double bw_Bps, double size_taskxfer_bytes)
{
	if (!(size_taskxfer_bytes > 0) || !(bw_Bps >= 0))
		return NAN;
	return bw_Bps / size_taskxfer_bytes;
}

double
p001_exec_time_s(double tasks, double app_rate_tps)
{
	if (!(app_rate_tps > 0))
		return tasks > 0 ? INFINITY : 0;
	return tasks / app_rate_tps;
}

void
p001_caps_release(struct p001_caps *c)
{
	if (c == NULL)
		return;
	free(c->slave_tps);
	free(c->master_tps);
	free(c->net_tps);
	free(c->link_tps);
	memset(c, 0, sizeof *c);
}

static double
net_cap(const struct graph_attr *a, const struct p001_app *app)
{
	double w;

	if (!isnan(a->cap_tps))
		return a->cap_tps;
	if (app != NULL && !isnan(a->bw_Bps) && !isnan(w = p001_w_net(a->bw_Bps, app->size_taskxfer_bytes)))
		return w;
	return INFINITY;
}

int
p001_caps_init(struct p001_caps *c, const struct graph *g, const struct p001_app *app,
	       const double *avail, struct err *e)
{
	memset(c, 0, sizeof *c);
	c->nhost = g->nhost;
	c->nnet = g->nnet;
	c->nlink = g->nlink;
	c->slave_tps = xcalloc((size_t)g->nhost + 1, sizeof *c->slave_tps);
	c->master_tps = xcalloc((size_t)g->nhost + 1, sizeof *c->master_tps);
	c->net_tps = xcalloc((size_t)g->nnet + 1, sizeof *c->net_tps);
	c->link_tps = xcalloc((size_t)g->nlink + 1, sizeof *c->link_tps);
	for (int i = 0; i < g->nhost; i++) {
		const struct graph_host *h = &g->hosts[i];
		double av = avail ? avail[i] : 1;

		c->slave_tps[i] = !isnan(h->slave_tps) ? h->slave_tps :
				  app ? p001_w_cpu(av, app->t_slave_s) : NAN;
		c->master_tps[i] = !isnan(h->master_tps) ? h->master_tps :
				   app ? p001_w_cpu(av, app->t_master_s) : NAN;
		if (isnan(c->slave_tps[i]) || isnan(c->master_tps[i]))
			return err_set(e, E_USAGE,
				       "host '%s': no %s work capacity (give %s in the topology or T_%sCPU "
				       "and a CPU availability in [0, 1])", h->name,
				       isnan(c->slave_tps[i]) ? "slave" : "master",
				       isnan(c->slave_tps[i]) ? "slave_tps" : "master_tps",
				       isnan(c->slave_tps[i]) ? "Slave" : "Master");
	}
	for (int j = 0; j < g->nnet; j++)
		c->net_tps[j] = net_cap(&g->nets[j].attr, app);
	for (int l = 0; l < g->nlink; l++)
		c->link_tps[l] = net_cap(&g->links[l].attr, app);
	return 0;
}

void
p001_rates_release(struct p001_rates *r)
{
	if (r == NULL)
		return;
	free(r->slave_tps);
	free(r->found);
	free(r->net_tps);
	free(r->link_tps);
	memset(r, 0, sizeof *r);
}

static void
rates_alloc(struct p001_rates *r, const struct graph *g, int master)
{
	memset(r, 0, sizeof *r);
	r->master = master;
	r->nhost = g->nhost;
	r->nnet = g->nnet;
	r->nlink = g->nlink;
	r->slave_tps = xcalloc((size_t)g->nhost + 1, sizeof *r->slave_tps);
	r->found = xcalloc((size_t)g->nhost + 1, sizeof *r->found);
	r->net_tps = xcalloc((size_t)g->nnet + 1, sizeof *r->net_tps);
	r->link_tps = xcalloc((size_t)g->nlink + 1, sizeof *r->link_tps);
}

static bool
in_S(const bool *use, int i, int master)
{
	return i != master && (use == NULL || use[i]);
}

static int
check_master(const struct graph *g, const struct p001_caps *c, int master, struct err *e)
{
	if (master < 0 || master >= g->nhost)
		return err_set(e, E_USAGE, "no host with index %d to be the master", master);
	if (c->nhost != g->nhost || c->nnet != g->nnet || c->nlink != g->nlink)
		return err_set(e, E_USAGE, "work capacities do not belong to this topology");
	return 0;
}

int
p001_app_rate(const struct graph *g, const struct p001_caps *c, int master, const bool *use,
	      struct p001_rates *r, struct err *e)
{
	/* Node numbering: 0 source, 1 sink, hosts, network in/out pairs, routers, link in/out. */
	int host0 = 2, net0 = host0 + g->nhost, rt0 = net0 + 2 * g->nnet, link0 = rt0 + g->nrouter;
	int nnodes = link0 + 2 * g->nlink;
	int max_edges = 4 + g->nnet + 2 * g->nhost + 5 * g->nlink;
	int *net_edge = NULL, *link_edge = NULL, *slave_edge = NULL, master_edge, rc;
	struct maxflow *f;
	double flow;

	memset(r, 0, sizeof *r);
	if ((rc = check_master(g, c, master, e)) < 0)
		return rc;
	rates_alloc(r, g, master);
	f = maxflow_new(nnodes, max_edges, e);
	if (f == NULL)
		return e ? e->code : -E_USAGE;
	net_edge = xmallocarray((size_t)g->nnet + 1, sizeof *net_edge);
	link_edge = xmallocarray((size_t)g->nlink + 1, sizeof *link_edge);
	slave_edge = xmallocarray((size_t)g->nhost + 1, sizeof *slave_edge);
	master_edge = maxflow_add_edge(f, 0, host0 + master, c->master_tps[master], e);
	rc = master_edge < 0 ? master_edge :
	     maxflow_add_edge(f, host0 + master, net0 + 2 * g->hosts[master].net, INFINITY, e);
	for (int j = 0; rc >= 0 && j < g->nnet; j++)
		rc = net_edge[j] = maxflow_add_edge(f, net0 + 2 * j, net0 + 2 * j + 1, c->net_tps[j], e);
	for (int i = 0; rc >= 0 && i < g->nhost; i++) {
		slave_edge[i] = -1;
		if (!in_S(use, i, master))
			continue;
		rc = maxflow_add_edge(f, net0 + 2 * g->hosts[i].net + 1, host0 + i, INFINITY, e);
		if (rc >= 0)
			rc = slave_edge[i] = maxflow_add_edge(f, host0 + i, 1, c->slave_tps[i], e);
	}
	for (int l = 0; rc >= 0 && l < g->nlink; l++) {
		const struct graph_link *k = &g->links[l];
		int ends[2][2];	/* [end][0 = node flow leaves by, 1 = node flow enters by] */

		for (int s = 0; s < 2; s++) {
			struct graph_end end = s == 0 ? k->a : k->b;

			if (end.kind == GRAPH_END_NET) {
				ends[s][0] = net0 + 2 * end.idx + 1;
				ends[s][1] = net0 + 2 * end.idx;
			} else {
				ends[s][0] = ends[s][1] = rt0 + end.idx;
			}
		}
		rc = maxflow_add_edge(f, ends[0][0], link0 + 2 * l, INFINITY, e);
		if (rc >= 0)
			rc = maxflow_add_edge(f, ends[1][0], link0 + 2 * l, INFINITY, e);
		if (rc >= 0)
			rc = link_edge[l] = maxflow_add_edge(f, link0 + 2 * l, link0 + 2 * l + 1, c->link_tps[l], e);
		if (rc >= 0)
			rc = maxflow_add_edge(f, link0 + 2 * l + 1, ends[0][1], INFINITY, e);
		if (rc >= 0)
			rc = maxflow_add_edge(f, link0 + 2 * l + 1, ends[1][1], INFINITY, e);
	}
	if (rc < 0)
		goto out;
	flow = maxflow_run(f, 0, 1);
	r->app_rate_tps = flow;
	r->master_tps = maxflow_edge_flow(f, master_edge);
	for (int i = 0; i < g->nhost; i++) {
		if (slave_edge[i] < 0)
			continue;
		r->slave_tps[i] = maxflow_edge_flow(f, slave_edge[i]);
		r->found[i] = r->slave_tps[i] > RATE_EPS;
	}
	for (int j = 0; j < g->nnet; j++)
		r->net_tps[j] = maxflow_edge_flow(f, net_edge[j]);
	for (int l = 0; l < g->nlink; l++)
		r->link_tps[l] = maxflow_edge_flow(f, link_edge[l]);
	rc = 0;
out:
	maxflow_free(f);
	free(net_edge);
	free(link_edge);
	free(slave_edge);
	return rc;
}

/* The resources a task of slave q crosses, in p001_simulate numbering, master side first: m's
 * network, then each link and every network it passes through, then q's network. Returns
 * their number, or -1 when q cannot be reached within max. */
static int
path_res(const struct graph *g, int master, int q, int *res, int max)
{
	int n = g->hosts[master].net, qn = g->hosts[q].net, links[MWSIM_MAX_HOPS], k = 0;
	int np = graph_net_path(g, n, qn, links, MWSIM_MAX_HOPS);
	struct graph_end at = { GRAPH_END_NET, n };	/* where the walk along the path is */

	if (np < 0 || 2 * np + 1 > max)
		return -1;
	res[k++] = p001_res_net(g, n);
	for (int h = 0; h < np; h++) {
		const struct graph_link *l = &g->links[links[h]];
		bool from_a = l->a.kind == at.kind && l->a.idx == at.idx;

		at = from_a ? l->b : l->a;
		res[k++] = p001_res_link(g, links[h]);
		if (at.kind == GRAPH_END_NET)
			res[k++] = p001_res_net(g, at.idx);	/* a crossed network, or q's own */
	}
	return k;
}

/* Capacity and current flow of resource res (p001_simulate numbering, networks and links). */
static double *
res_flow(const struct graph *g, struct p001_rates *r, int res)
{
	return res < g->nhost + g->nnet ? &r->net_tps[res - g->nhost] : &r->link_tps[res - g->nhost - g->nnet];
}

static double
res_cap(const struct graph *g, const struct p001_caps *c, int res)
{
	return res < g->nhost + g->nnet ? c->net_tps[res - g->nhost] : c->link_tps[res - g->nhost - g->nnet];
}

struct cand {
	int host;
	double w;	/* W_SlaveCPU */
};

static int
cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return a->host - b->host;
}

int
p001_greedy_rate(const struct graph *g, const struct p001_caps *c, int master, const bool *use,
		 struct p001_rates *r, struct err *e)
{
	int n, ncand = 0, rc;
	struct cand *cand;
	double cand_rate = 0;

	memset(r, 0, sizeof *r);
	if ((rc = check_master(g, c, master, e)) < 0)
		return rc;
	rates_alloc(r, g, master);
	n = g->hosts[master].net;
	cand = xmallocarray((size_t)g->nhost + 1, sizeof *cand);
	/* Local slaves first (first loop of Figure 2), then the others (second loop). */
	for (int pass = 0; pass < 2; pass++) {
		int first = ncand;

		for (int i = 0; i < g->nhost; i++)
			if (in_S(use, i, master) && (g->hosts[i].net == n) == (pass == 0))
				cand[ncand++] = (struct cand){ i, c->slave_tps[i] };
		qsort(cand + first, (size_t)(ncand - first), sizeof *cand, cmp_cand);
	}
	for (int k = 0; k < ncand; k++) {
		int q = cand[k].host, res[MWSIM_MAX_HOPS];
		int np = path_res(g, master, q, res, MWSIM_MAX_HOPS);
		double F = fmin(cand[k].w, c->master_tps[master] - cand_rate);

		if (np < 0)
			continue;	/* not reachable: no path in G */
		for (int h = 0; h < np; h++)
			F = fmin(F, res_cap(g, c, res[h]) - *res_flow(g, r, res[h]));
		if (!(F > RATE_EPS))
			continue;
		cand_rate += F;
		r->slave_tps[q] = F;
		r->found[q] = true;
		for (int h = 0; h < np; h++)
			*res_flow(g, r, res[h]) += F;
	}
	r->app_rate_tps = cand_rate;
	r->master_tps = cand_rate;
	free(cand);
	return 0;
}

void
p001_masters_release(struct p001_masters *m)
{
	if (m == NULL)
		return;
	for (int i = 0; m->per_master && i < m->nhost; i++)
		p001_rates_release(&m->per_master[i]);
	free(m->per_master);
	memset(m, 0, sizeof *m);
}

int
p001_select_master(const struct graph *g, const struct p001_caps *c, enum p001_method how,
		   struct p001_masters *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (g->nhost < 1)
		return err_set(e, E_USAGE, "no hosts to choose a master from");
	out->nhost = g->nhost;
	out->best = 0;
	out->per_master = xcalloc((size_t)g->nhost, sizeof *out->per_master);
	for (int p = 0; p < g->nhost; p++) {
		int rc = how == P001_GREEDY ? p001_greedy_rate(g, c, p, NULL, &out->per_master[p], e) :
			 p001_app_rate(g, c, p, NULL, &out->per_master[p], e);

		if (rc < 0)
			return rc;
		if (out->per_master[p].app_rate_tps > out->per_master[out->best].app_rate_tps + RATE_EPS)
			out->best = p;
	}
	return 0;
}

int
p001_res_net(const struct graph *g, int net)
{
	return g->nhost + net;
}

int
p001_res_link(const struct graph *g, int link)
{
	return g->nhost + g->nnet + link;
}

static double
svc_s(double share, double w_tps)
{
	return isinf(w_tps) || share <= 0 ? 0 : share / w_tps;
}

int
p001_res_xlink(const struct graph *g, int xres)
{
	return g->nhost + g->nnet + g->nlink + xres;
}

static int
check_xlinks(const struct graph *g, const struct p001_xlink *x, int nx, int nxres, struct err *e)
{
	if (nx < 0 || nxres < 0 || (nx > 0 && x == NULL))
		return err_set(e, E_USAGE, "bad list of extra links");
	for (int k = 0; k < nx; k++) {
		const struct p001_xlink *l = &x[k];

		if (l->host < 0 || l->host >= g->nhost || l->xres < 0 || l->xres >= nxres ||
		    !(l->bw_Bps > 0) || !isfinite(l->bw_Bps) || !(l->lat_s >= 0) || !isfinite(l->lat_s) ||
		    !(l->out_bytes >= 0) || !(l->in_bytes >= 0) || !isfinite(l->out_bytes + l->in_bytes) ||
		    !(l->burst_bytes >= 0) || !isfinite(l->burst_bytes) ||
		    (l->burst_bytes > 0 && !(l->peak_Bps >= l->bw_Bps && isfinite(l->peak_Bps))))
			return err_set(e, E_USAGE, "extra link %d (to host %d): bad capacity, latency, sizes or "
				       "token bucket", k, l->host);
		for (int j = 0; j < k; j++)
			if (x[j].host == l->host)
				return err_set(e, E_USAGE, "host '%s' has more than one extra link",
					       g->hosts[l->host].name);
	}
	return 0;
}

int
p001_simulate(const struct graph *g, const struct p001_caps *c, const struct p001_app *app,
	      int master, const bool *use, int64_t tasks, int depth, struct mwsim_result *r,
	      struct err *e)
{
	return p001_simulate_links(g, c, app, master, use, NULL, 0, 0, tasks, depth, r, e);
}

int
p001_simulate_links(const struct graph *g, const struct p001_caps *c, const struct p001_app *app,
		    int master, const bool *use, const struct p001_xlink *x, int nx, int nxres,
		    int64_t tasks, int depth, struct mwsim_result *r, struct err *e)
{
	double out = app && app->out_fraction >= 0 && app->out_fraction <= 1 ? app->out_fraction : 0.5;
	int ns = 0, rc, nres = g->nhost + g->nnet + g->nlink + nxres;
	struct mwsim_slave *sl;
	struct mwsim_bucket *bk = NULL;
	struct mwsim_config cfg;

	memset(r, 0, sizeof *r);
	if ((rc = check_master(g, c, master, e)) < 0 || (rc = check_xlinks(g, x, nx, nxres, e)) < 0)
		return rc;
	sl = xcalloc((size_t)g->nhost + 1, sizeof *sl);
	for (int i = 0; i < g->nhost; i++) {
		struct mwsim_slave *s = &sl[ns];
		int np;

		if (!in_S(use, i, master) || !(c->slave_tps[i] > 0))
			continue;
		/* room for one extra link after G's networks */
		np = path_res(g, master, i, s->hops, MWSIM_MAX_HOPS - 1);
		if (np < 0)
			continue;
		s->nhops = np;
		s->cpu = i;
		s->cpu_s = 1 / c->slave_tps[i];
		for (int h = 0; h < s->nhops; h++) {
			double w = res_cap(g, c, s->hops[h]);

			s->out_s[h] = svc_s(out, w);
			s->in_s[h] = svc_s(1 - out, w);
		}
		for (int k = 0; k < nx; k++) {
			const struct p001_xlink *l = &x[k];

			if (l->host != i)
				continue;
			/* eq. 8 for this route: W_Net = BW / bytes, each way with the slave's own bytes */
			s->hops[s->nhops] = p001_res_xlink(g, l->xres);
			s->out_s[s->nhops] = l->lat_s + l->out_bytes / l->bw_Bps;
			s->in_s[s->nhops] = l->lat_s + l->in_bytes / l->bw_Bps;
			s->nhops++;
			if (l->burst_bytes > 0) {
				if (bk == NULL)
					bk = xcalloc((size_t)nres, sizeof *bk);
				bk[p001_res_xlink(g, l->xres)] = (struct mwsim_bucket){
					.burst_s = l->burst_bytes / l->bw_Bps, .peak_x = l->peak_Bps / l->bw_Bps };
			}
		}
		ns++;
	}
	if (ns == 0) {
		free(sl);
		free(bk);
		return err_set(e, E_USAGE, "master '%s' has no reachable slave with a work capacity",
			       g->hosts[master].name);
	}
	cfg = (struct mwsim_config){ .nres = nres, .nslave = ns,
				     .slaves = sl, .master_cpu = master,
				     .master_s = svc_s(1, c->master_tps[master]),
				     .tasks = tasks, .depth = depth, .bucket = bk };
	rc = mwsim_run(&cfg, r, e);
	free(bk);
	/* The simulator numbers slaves 0..ns-1; report idle time and tasks by host index. */
	if (rc == 0) {
		double *idle = xcalloc((size_t)g->nhost + 1, sizeof *idle);
		int64_t *done = xcalloc((size_t)g->nhost + 1, sizeof *done);

		for (int i = 0; i < g->nhost; i++)
			idle[i] = r->makespan_s - r->busy_s[i];
		for (int k = 0; k < ns; k++)
			done[sl[k].cpu] = r->slave_tasks[k];
		free(r->slave_idle_s);
		free(r->slave_tasks);
		r->slave_idle_s = idle;
		r->slave_tasks = done;
		r->nslave = g->nhost;
	}
	free(sl);
	return rc;
}

void
p001_slaves_release(struct p001_slaves *s)
{
	if (s == NULL)
		return;
	free(s->use);
	mwsim_result_release(&s->sim);
	memset(s, 0, sizeof *s);
}

/* True when every network on the path from master to host q is below saturation. */
/* True when the master and every network on the path from it to host q are below saturation. */
static bool
path_has_room(const struct graph *g, const struct mwsim_result *sim, int master, int q)
{
	int res[MWSIM_MAX_HOPS], np = path_res(g, master, q, res, MWSIM_MAX_HOPS);

	if (np < 0 || sim->util[master] >= 0.99)
		return false;
	for (int h = 0; h < np; h++)
		if (sim->util[res[h]] >= 0.99)
			return false;
	return true;
}

int
p001_select_slaves(const struct graph *g, const struct p001_caps *c, const struct p001_app *app,
		   int master, int64_t tasks, int depth, double tolerance, struct p001_slaves *out,
		   struct err *e)
{
	struct p001_rates rates;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = p001_app_rate(g, c, master, NULL, &rates, e)) < 0) {
		p001_rates_release(&rates);
		return rc;
	}
	out->nhost = g->nhost;
	out->use = xcalloc((size_t)g->nhost + 1, sizeof *out->use);
	memcpy(out->use, rates.found, (size_t)g->nhost * sizeof *out->use);
	out->predicted_tps = rates.app_rate_tps;
	p001_rates_release(&rates);
	if ((rc = p001_simulate(g, c, app, master, out->use, tasks, depth, &out->sim, e)) < 0)
		return rc;
	out->rounds = 1;
	out->simulated_tps = out->sim.steady_tps;
	while (out->simulated_tps < (1 - tolerance) * out->predicted_tps) {
		int best = -1;
		struct mwsim_result next;

		for (int i = 0; i < g->nhost; i++)
			if (i != master && !out->use[i] && c->slave_tps[i] > 0 &&
			    path_has_room(g, &out->sim, master, i) &&
			    (best < 0 || c->slave_tps[i] > c->slave_tps[best]))
				best = i;
		if (best < 0)
			break;
		out->use[best] = true;
		if ((rc = p001_simulate(g, c, app, master, out->use, tasks, depth, &next, e)) < 0) {
			mwsim_result_release(&next);
			return rc;
		}
		out->rounds++;
		if (next.steady_tps <= out->simulated_tps * (1 + tolerance / 10)) {
			out->use[best] = false;	/* no real gain: keep the smaller set */
			mwsim_result_release(&next);
			break;
		}
		mwsim_result_release(&out->sim);
		out->sim = next;
		out->simulated_tps = next.steady_tps;
	}
	return 0;
}

/* ---- Table 1 from a profile ---- */

void
p001_derived_release(struct p001_derived *d)
{
	if (d == NULL)
		return;
	free(d->t_slave_rank_s);
	free(d->tasks_rank);
	free(d->out_bytes_rank);
	free(d->in_bytes_rank);
	memset(d, 0, sizeof *d);
}

static int
cmp_msg_t(const void *x, const void *y)
{
	const struct prof_msg *a = x, *b = y;

	return a->t_ns < b->t_ns ? -1 : a->t_ns > b->t_ns;
}

/* Busy phases merged per rank: ph[first[r] .. first[r + 1]) are rank r's, sorted, disjoint. */
struct busyset {
	struct prof_busy *ph;
	size_t *first;		/* [nranks + 1] */
};

static void
busyset_init(struct busyset *b, const struct prof_busy *busy, size_t nbusy, int nranks)
{
	size_t n = 0;

	b->ph = xmallocarray(nbusy + 1, sizeof *b->ph);
	b->first = xcalloc((size_t)nranks + 1, sizeof *b->first);
	for (size_t i = 0; i < nbusy; i++)
		if (busy[i].rank >= 0 && busy[i].rank < nranks && busy[i].t_end_ns > busy[i].t_start_ns)
			b->ph[n++] = busy[i];
	qsort(b->ph, n, sizeof *b->ph, prof_busy_cmp);
	{
		size_t w = 0;

		for (size_t i = 0; i < n; i++) {
			if (w > 0 && b->ph[w - 1].rank == b->ph[i].rank &&
			    b->ph[i].t_start_ns <= b->ph[w - 1].t_end_ns) {
				if (b->ph[i].t_end_ns > b->ph[w - 1].t_end_ns)
					b->ph[w - 1].t_end_ns = b->ph[i].t_end_ns;
				continue;
			}
			b->ph[w++] = b->ph[i];
		}
		n = w;
	}
	for (int r = 0, i = 0; r <= nranks; r++) {
		while ((size_t)i < n && b->ph[i].rank < r)
			i++;
		b->first[r] = (size_t)i;
	}
}

/* Busy ns of rank in [a, b). */
static int64_t
busy_in(const struct busyset *s, int rank, int64_t a, int64_t b)
{
	size_t lo = s->first[rank], hi = s->first[rank + 1];
	int64_t sum = 0;

	while (lo < hi) {	/* first phase ending after a */
		size_t mid = lo + (hi - lo) / 2;

		if (s->ph[mid].t_end_ns <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < s->first[rank + 1] && s->ph[i].t_start_ns < b; i++) {
		int64_t x = s->ph[i].t_start_ns > a ? s->ph[i].t_start_ns : a;
		int64_t y = s->ph[i].t_end_ns < b ? s->ph[i].t_end_ns : b;

		if (y > x)
			sum += y - x;
	}
	return sum;
}

int
p001_derive(const struct prof_msg *msgs, size_t nmsg, const struct prof_busy *busy, size_t nbusy,
	    int nranks, int master, struct p001_derived *d, struct err *e)
{
	struct prof_msg *m;
	size_t nm = 0;
	struct busyset bs;
	int64_t *count, bytes_out = 0, bytes_in = 0, t0 = INT64_MAX, t1 = INT64_MIN;
	double slave_busy_total = 0;
	/* Per slave, the open cycle: 0 none, 1 hand-out seen, 2 result seen. */
	struct cyc {
		int state;
		int64_t out_bytes, in_bytes;
		int64_t t_out_last, t_in_first;
		double busy_sum_ns;
		double out_sum, in_sum;	/* bytes of the closed cycles */
	} *cy;

	memset(d, 0, sizeof *d);
	if (nranks < 2 || nranks > (1 << 24) || master >= nranks || (nmsg > 0 && msgs == NULL) ||
	    (nbusy > 0 && busy == NULL))
		return err_set(e, E_USAGE, "master/slave profile needs 2 or more ranks and a valid master");
	count = xcalloc((size_t)nranks, sizeof *count);
	for (size_t i = 0; i < nmsg; i++) {
		if (msgs[i].src >= 0 && msgs[i].src < nranks)
			count[msgs[i].src]++;
		if (msgs[i].dst >= 0 && msgs[i].dst < nranks)
			count[msgs[i].dst]++;
	}
	if (master < 0) {
		master = 0;
		for (int r = 1; r < nranks; r++)
			if (count[r] > count[master])
				master = r;
	}
	free(count);
	d->master = master;
	d->nranks = nranks;
	d->t_slave_rank_s = xmallocarray((size_t)nranks, sizeof *d->t_slave_rank_s);
	d->tasks_rank = xcalloc((size_t)nranks, sizeof *d->tasks_rank);
	d->out_bytes_rank = xmallocarray((size_t)nranks, sizeof *d->out_bytes_rank);
	d->in_bytes_rank = xmallocarray((size_t)nranks, sizeof *d->in_bytes_rank);
	m = xmallocarray(nmsg + 1, sizeof *m);
	for (size_t i = 0; i < nmsg; i++) {
		if (msgs[i].src < 0 || msgs[i].dst < 0 || msgs[i].src >= nranks || msgs[i].dst >= nranks) {
			d->skipped_msgs++;	/* an unknown rank or one outside the run */
			continue;
		}
		m[nm++] = msgs[i];
	}
	qsort(m, nm, sizeof *m, cmp_msg_t);
	busyset_init(&bs, busy, nbusy, nranks);
	cy = xcalloc((size_t)nranks, sizeof *cy);

	for (size_t i = 0; i <= nm; i++) {
		bool last = i == nm;
		int s = -1;
		bool out = false;

		if (!last) {
			const struct prof_msg *x = &m[i];

			if (x->src == master && x->dst >= 0 && x->dst < nranks && x->dst != master) {
				s = x->dst;
				out = true;
			} else if (x->dst == master && x->src >= 0 && x->src < nranks && x->src != master) {
				s = x->src;
			} else {
				d->skipped_msgs++;
				continue;
			}
			if (x->t_ns < t0)
				t0 = x->t_ns;
			if (x->t_ns > t1)
				t1 = x->t_ns;
		}
		/* Close cycles: the slave's, when a new hand-out follows a result; all, at the end. */
		for (int r = last ? 0 : s; r < (last ? nranks : s + 1); r++) {
			struct cyc *c = &cy[r];

			if (c->state == 2 && (last || out)) {
				d->tasks_rank[r]++;
				d->tasks++;
				bytes_out += c->out_bytes;
				bytes_in += c->in_bytes;
				c->out_sum += (double)c->out_bytes;
				c->in_sum += (double)c->in_bytes;
				c->busy_sum_ns += (double)busy_in(&bs, r, c->t_out_last, c->t_in_first);
				c->state = 0;
			}
		}
		if (last)
			break;
		if (out) {
			if (cy[s].state != 1)
				cy[s].out_bytes = 0;
			cy[s].state = 1;
			cy[s].out_bytes += m[i].bytes;
			cy[s].t_out_last = m[i].t_ns;
		} else if (cy[s].state == 0) {
			d->skipped_msgs++;	/* a result with no hand-out before it (a request) */
		} else {
			if (cy[s].state == 1) {
				cy[s].in_bytes = 0;
				cy[s].t_in_first = m[i].t_ns;
			}
			cy[s].state = 2;
			cy[s].in_bytes += m[i].bytes;
		}
	}
	for (int r = 0; r < nranks; r++) {
		d->t_slave_rank_s[r] = d->tasks_rank[r] > 0 ?
				       cy[r].busy_sum_ns / (double)d->tasks_rank[r] / 1e9 : NAN;
		d->out_bytes_rank[r] = d->tasks_rank[r] > 0 ? cy[r].out_sum / (double)d->tasks_rank[r] : NAN;
		d->in_bytes_rank[r] = d->tasks_rank[r] > 0 ? cy[r].in_sum / (double)d->tasks_rank[r] : NAN;
		if (d->tasks_rank[r] > 0)
			slave_busy_total += cy[r].busy_sum_ns;
	}
	if (d->tasks == 0) {
		free(m);
		free(cy);
		free(bs.ph);
		free(bs.first);
		return err_set(e, E_FORMAT, "no hand-out/result cycle between master rank %d and a slave",
			       master);
	}
	d->t_slave_s = slave_busy_total / (double)d->tasks / 1e9;
	d->t_master_s = (double)busy_in(&bs, master, t0, t1 + 1) / (double)d->tasks / 1e9;
	d->size_taskxfer_bytes = (double)(bytes_out + bytes_in) / (double)d->tasks;
	d->out_fraction = bytes_out + bytes_in > 0 ? (double)bytes_out / (double)(bytes_out + bytes_in) : 0.5;
	free(m);
	free(cy);
	free(bs.ph);
	free(bs.first);
	return 0;
}
