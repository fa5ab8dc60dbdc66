/* run001: paper 001 on a parsed run: the master/slave pattern, Table 1, graph G, simulation. */
#include "predict/run001.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "infer/graph.h"
#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/p001.h"
#include "predict/p003.h"
#include "predict/run003.h"

#define MS_MAX_RANKS 4096	/* ranks the dense pair-count matrix is built for */
#define SEL_TOLERANCE 0.05	/* slave selection: stop within 5 % of the predicted AppRate */

/* Messages per directed rank pair, dense [n * n], from links.tsv or else messages.tsv. */
static int64_t *
pair_counts(const struct prof *p, int n)
{
	int64_t *c = xcalloc((size_t)n * (size_t)n, sizeof *c);

	if (p->have_links) {
		for (int i = 0; i < p->nlinks; i++) {
			const struct prof_link *l = &p->links[i];

			if (l->src < n && l->dst < n)
				c[(size_t)l->src * (size_t)n + (size_t)l->dst] += l->msgs;
		}
		return c;
	}
	for (long i = 0; i < p->nmsgs; i++) {
		const struct prof_msg *m = &p->msgs[i];

		if (m->src >= 0 && m->dst >= 0 && m->src < n && m->dst < n && m->src != m->dst)
			c[(size_t)m->src * (size_t)n + (size_t)m->dst]++;
	}
	return c;
}

int
run001_ms_pattern(const struct prof *p, int *master, char *why, size_t whylen)
{
	int n = prof_rank_span(p);
	int64_t *c, total = 0, best_busy = -1, best_other = -1;
	int busiest = -1, best = -1;

#define C(a, b) c[(size_t)(a) * (size_t)n + (size_t)(b)]
	if (p->nranks < 2) {
		snprintf(why, whylen, "the run has a single rank");
		return 0;
	}
	if (!p->have_links && !p->have_msgs) {
		snprintf(why, whylen, "the run has no message counts ('%s/profile/links.tsv' or "
			 "messages.tsv)", p->run);
		return 0;
	}
	if (n > MS_MAX_RANKS) {
		snprintf(why, whylen, "more than %d ranks: the master/slave pattern is not checked", MS_MAX_RANKS);
		return 0;
	}
	c = pair_counts(p, n);
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
		total += c[i];
	if (total == 0) {
		free(c);
		snprintf(why, whylen, "the run exchanged no messages between ranks");
		return 0;
	}
	for (int i = 0; i < p->nranks; i++) {
		int m = p->ranks[i].rank;
		int64_t own = 0;
		bool all = true;

		for (int j = 0; j < p->nranks; j++) {
			int o = p->ranks[j].rank;

			if (o == m)
				continue;
			own += C(m, o) + C(o, m);
			if (C(m, o) == 0 || C(o, m) == 0)
				all = false;
		}
		if (own > best_busy) {
			best_busy = own;
			busiest = m;
		}
		/* among the ranks that talk to everyone, the one leaving the least between others */
		if (all && (best < 0 || total - own < best_other)) {
			best = m;
			best_other = total - own;
		}
	}
	if (best < 0) {
		for (int j = 0; j < p->nranks; j++) {
			int o = p->ranks[j].rank;

			if (o != busiest && (C(busiest, o) == 0 || C(o, busiest) == 0)) {
				snprintf(why, whylen, "no master/slave pattern: no rank exchanges messages with every "
					 "other rank both ways (the busiest, rank %d, %s rank %d)", busiest,
					 C(busiest, o) == 0 ? "sends nothing to" : "receives nothing from", o);
				break;
			}
		}
		free(c);
		return 0;
	}
	if ((double)best_other > RUN001_SLAVE_TRAFFIC_MAX * (double)total) {
		int a = -1, b = -1;

		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (i != best && j != best && i != j && (a < 0 || C(i, j) > C(a, b))) {
					a = i;
					b = j;
				}
		snprintf(why, whylen, "no master/slave pattern: rank %d exchanges with every other rank, but "
			 "%.0f%% of the messages pass between the others (rank %d sent %lld to rank %d; at "
			 "most %.0f%% allowed)", best, 100.0 * (double)best_other / (double)total, a,
			 (long long)C(a, b), b, 100 * RUN001_SLAVE_TRAFFIC_MAX);
		free(c);
		return 0;
	}
#undef C
	free(c);
	*master = best;
	return 1;
}

/* What the run says about its master/slave computation. */
struct ms_run {
	int master;			/* world rank */
	struct p001_derived d;		/* Table 1 */
	struct p001_app app;
	int64_t span_ns;		/* first to last master-slave message */
	double *t_slave_s;		/* [nranks, by index in p->ranks] T_SlaveCPU of each processor */
	double *t_master_s;		/* [nranks] T_MasterCPU of each processor */
	bool slave_guessed;		/* a rank without tasks got the mean T_SlaveCPU */
	struct coloc_rank *cl;		/* [nranks] each rank's node neighbours (coloc_read) */
};

static void
ms_run_release(struct ms_run *m)
{
	p001_derived_release(&m->d);
	free(m->t_slave_s);
	free(m->t_master_s);
	free(m->cl);
	memset(m, 0, sizeof *m);
}

/* Avail_CPU of the rank at index i under s (eqs. 6, 7): its CPU share, capacity / (1 + k)
 * (pred_cpu_share); 1 without a scenario. Beyond the paper (docs/predict.md, p001): a rank
 * whose node holds other ranks shared the node with them in the run its T_SlaveCPU was
 * measured in, so the competitors leave it the share coloc_stretch gives, the rule the
 * replay and p003 stretch busy time by. */
static double
avail_cpu(const struct prof *p, const struct ms_run *m, const struct scen *s, int i)
{
	const struct scen_node *n;
	double share;

	if (s == NULL)
		return 1;
	n = scen_node_for(s, p->ranks[i].rank, p->ranks[i].host);
	share = pred_cpu_share(n);
	if (n == NULL || m->cl == NULL || m->cl[i].nlocal < 2 || !(share > 0))
		return share;
	return 1 / coloc_stretch(1 / share, n->capacity, &m->cl[i]);
}

/* How many of the master's peers exchange with it rather than ask and answer: walking the
 * turns of each master-peer pair in time, a requester always opens the pairs of turns, in
 * a swap which end opens changes (p003_pair_order, p003_is_exchange). */
static int
exchanging_slaves(const struct prof *p, int master)
{
	int n = prof_rank_span(p), count = 0;
	struct p003_pair_order *po = xcalloc((size_t)n + 1, sizeof *po);
	long *idx = prof_msgs_by_time(p);

	for (int r = 0; r <= n; r++)
		p003_pair_order_init(&po[r]);
	for (long i = 0; i < p->nmsgs; i++) {
		const struct prof_msg *x = &p->msgs[idx[i]];
		int peer, dir;

		if (x->ctrl || x->src < 0 || x->dst < 0 || x->src >= n || x->dst >= n || x->src == x->dst)
			continue;
		if (x->src == master)
			peer = x->dst, dir = 0;
		else if (x->dst == master)
			peer = x->src, dir = 1;
		else
			continue;
		p003_pair_order_add(&po[peer], dir, x->t_ns, x->t_last_ns);
	}
	for (int r = 0; r < n; r++)
		if (r != master && p003_is_exchange(po[r].lead[0], po[r].lead[1]))
			count++;
	free(idx);
	free(po);
	return count;
}

int
run001_derive(const struct prof *p, struct p001_derived *d, char *why, size_t whylen, struct err *e)
{
	int n = prof_rank_span(p), master;
	int rc;

	memset(d, 0, sizeof *d);
	if (!run001_ms_pattern(p, &master, why, whylen))
		return 0;
	if (!p->have_msgs || p->nmsgs == 0) {
		snprintf(why, whylen, "the run has a master/slave pattern (master rank %d) but no messages "
			 "('%s/profile/messages.tsv') to count its tasks", master, p->run);
		return 0;
	}
	if (!p->have_phases || p->nbusy == 0) {
		snprintf(why, whylen, "the run has a master/slave pattern (master rank %d) but no busy "
			 "phases ('%s/profile/phases.tsv') for T_SlaveCPU", master, p->run);
		return 0;
	}
	rc = p001_derive(p->msgs, (size_t)p->nmsgs, p->busy, (size_t)p->nbusy, n, master, d, e);
	if (rc == -E_FORMAT) {
		snprintf(why, whylen, "master/slave pattern (master rank %d) but %.180s", master, e->msg);
		p001_derived_release(d);
		return 0;
	}
	if (rc < 0) {
		p001_derived_release(d);
		return rc;
	}
	if (exchanging_slaves(p, master) * 2 > n - 1) {
		snprintf(why, whylen, "the hub rank %d swaps data with its peers (which end sends first "
			 "changes, as in a halo exchange), it does not answer requests: not a master/slave run",
			 master);
		p001_derived_release(d);
		return 0;
	}
	if (d->tasks < 2 * (long long)(n - 1)) {
		/* a barrier or a gather has the shape of one hand-out and its result per rank */
		snprintf(why, whylen, "master/slave pattern (master rank %d) but only %lld hand-out/result "
			 "cycles for %d slaves: fewer than 2 each, too few to tell tasks from collectives",
			 master, (long long)d->tasks, n - 1);
		p001_derived_release(d);
		return 0;
	}
	if (!(d->t_slave_s > 0)) {
		snprintf(why, whylen, "master/slave pattern (master rank %d, %lld tasks) but the slaves show "
			 "no busy time between hand-out and result (T_SlaveCPU is 0)", master,
			 (long long)d->tasks);
		p001_derived_release(d);
		return 0;
	}
	d->master = master;
	return 1;
}

/* 1 derived, 0 not applicable (why set), negative error. */
static int
derive(const struct prof *p, struct ms_run *m, char *why, size_t whylen, struct err *e)
{
	int n = prof_rank_span(p);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	int rc;

	memset(m, 0, sizeof *m);
	if ((rc = run001_derive(p, &m->d, why, whylen, e)) <= 0)
		return rc;
	m->master = m->d.master;
	for (long i = 0; i < p->nmsgs; i++) {	/* the span of master-slave messages */
		const struct prof_msg *x = &p->msgs[i];

		if (x->src < 0 || x->dst < 0 || x->src >= n || x->dst >= n ||
		    (x->src == m->master) == (x->dst == m->master))
			continue;
		if (x->t_ns < t0)
			t0 = x->t_ns;
		if (x->t_ns > t1)
			t1 = x->t_ns;
	}
	m->span_ns = t1 > t0 ? t1 - t0 : 0;
	m->app = (struct p001_app){ .t_slave_s = m->d.t_slave_s, .t_master_s = m->d.t_master_s,
				    .size_taskxfer_bytes = m->d.size_taskxfer_bytes,
				    .out_fraction = m->d.out_fraction };
	m->t_slave_s = xcalloc((size_t)p->nranks, sizeof *m->t_slave_s);
	m->t_master_s = xcalloc((size_t)p->nranks, sizeof *m->t_master_s);
	for (int i = 0; i < p->nranks; i++) {
		int rk = p->ranks[i].rank;
		double ts = rk < n ? m->d.t_slave_rank_s[rk] : NAN;

		if (!(ts > 0) || !isfinite(ts)) {
			ts = m->d.t_slave_s;
			if (rk != m->master)
				m->slave_guessed = true;
		}
		m->t_slave_s[i] = ts;
		/* a processor's relative speed, from its slave time, scales its master time too */
		m->t_master_s[i] = m->d.t_master_s * ts / m->d.t_slave_s;
	}
	m->cl = xcalloc((size_t)p->nranks + 1, sizeof *m->cl);
	coloc_read(p, m->cl);
	return 1;
}

/* The processor name of the rank at index i: its host, or host/rR when ranks share it. */
static void
proc_name(const struct prof *p, int i, char *out, size_t n)
{
	int same = 0;

	for (int j = 0; j < p->nranks; j++)
		if (strcmp(p->ranks[j].host, p->ranks[i].host) == 0)
			same++;
	if (same > 1)
		snprintf(out, n, "%s/r%d", p->ranks[i].host, p->ranks[i].rank);
	else
		snprintf(out, n, "%s", p->ranks[i].host);
}

/* Graph G with one processor per included rank (idx[h] = its index in p->ranks): nets,
 * routers and links from RUN/topology.dot when it names every included host, else one flat
 * network with the run's measured bandwidth. Capacities: share / T (eqs. 6, 7), a host's
 * slave_tps in the topology times share. gnote says which graph. */
static int
build_graph(const struct prof *p, const struct ms_run *m, const bool *inc, const struct scen *s,
	    struct graph *g, int *idx, double *mtps_out, char *gnote, size_t gnlen, struct err *e)
{
	struct graph t;
	bool use_topo = false;
	char *path = xasprintf("%s/topology.dot", p->run);
	struct stat st;
	int rc, nh = 0;

	graph_init_empty(g, 0);
	graph_init_empty(&t, 0);
	if (stat(path, &st) == 0) {
		struct err te;

		if (graph_read_dot(&t, path, 0, &te) < 0) {
			snprintf(gnote, gnlen, "flat graph from netparams ('%s' unreadable: %.150s)", path, te.msg);
		} else {
			use_topo = true;
			for (int i = 0; i < p->nranks && use_topo; i++)
				if (inc[i] && graph_find_host(&t, p->ranks[i].host) < 0) {
					snprintf(gnote, gnlen, "flat graph from netparams ('%s' has no host '%s')",
						 path, p->ranks[i].host);
					use_topo = false;
				}
			if (use_topo)
				snprintf(gnote, gnlen, "G from '%s' (%d networks, %d links)", path, t.nnet, t.nlink);
		}
	} else {
		snprintf(gnote, gnlen, "flat graph from netparams (no '%s'): one local network%s", path,
			 p->have_net ? " at the measured bandwidth" : " of unknown (unconstrained) capacity");
	}
	free(path);
	if (use_topo) {
		for (int j = 0; j < t.nnet; j++)
			if ((rc = graph_add_net(g, t.nets[j].name, &t.nets[j].attr, e)) < 0)
				goto out;
		for (int j = 0; j < t.nrouter; j++)
			if ((rc = graph_add_router(g, t.routers[j].name, t.routers[j].note, e)) < 0)
				goto out;
		for (int j = 0; j < t.nlink; j++)
			if ((rc = graph_add_link(g, t.links[j].name, t.links[j].a, t.links[j].b, &t.links[j].attr,
						 e)) < 0)
				goto out;
	} else {
		struct graph_attr a = graph_attr_unknown();

		if (p->have_net) {
			a.bw_Bps = p->bw_Bps;
			a.lat_ns = p->lat_ns;
		}
		if ((rc = graph_add_net(g, "lan", &a, e)) < 0)
			goto out;
	}
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *rk = &p->ranks[i];
		double share = avail_cpu(p, m, s, i);
		double stps = share / m->t_slave_s[i];
		double mtps = m->t_master_s[i] > 0 ? share / m->t_master_s[i] : INFINITY;
		int net = 0;
		char name[PROF_HOST_MAX + 16];

		if (!inc[i])
			continue;
		if (use_topo) {
			const struct graph_host *th = &t.hosts[graph_find_host(&t, rk->host)];

			net = th->net;
			if (!isnan(th->slave_tps))
				stps = share * th->slave_tps;
			if (!isnan(th->master_tps))
				mtps = share * th->master_tps;
		}
		proc_name(p, i, name, sizeof name);
		/* the graph holds finite capacities only; an unbounded master is set in the caps */
		if ((rc = graph_add_host(g, name, net, stps, isfinite(mtps) ? mtps : 0, NULL, e)) < 0)
			goto out;
		mtps_out[nh] = mtps;
		idx[nh++] = i;
	}
	rc = 0;
out:
	graph_release(&t);
	return rc;
}

/* Graph, capacities and index map for one system. */
struct system {
	struct graph g;
	struct p001_caps c;
	int *idx;			/* [g.nhost] index in p->ranks */
	double *mtps;			/* [g.nhost] W_MasterCPU, INFINITY when unbounded */
	char gnote[PROF_HOST_MAX * 4];
};

static void
system_release(struct system *y)
{
	graph_release(&y->g);
	p001_caps_release(&y->c);
	free(y->idx);
	free(y->mtps);
	memset(y, 0, sizeof *y);
}

static int
system_build(const struct prof *p, const struct ms_run *m, const bool *inc, const struct scen *s,
	     struct system *y, struct err *e)
{
	int rc;

	memset(y, 0, sizeof *y);
	y->idx = xcalloc((size_t)p->nranks + 1, sizeof *y->idx);
	y->mtps = xcalloc((size_t)p->nranks + 1, sizeof *y->mtps);
	if ((rc = build_graph(p, m, inc, s, &y->g, y->idx, y->mtps, y->gnote, sizeof y->gnote, e)) < 0)
		return rc;
	if ((rc = p001_caps_init(&y->c, &y->g, &m->app, NULL, e)) < 0)
		return rc;
	for (int h = 0; h < y->g.nhost; h++)
		y->c.master_tps[h] = y->mtps[h];
	return 0;
}

/* Host index of world rank r in y, or -1. */
static int
host_of(const struct prof *p, const struct system *y, int r)
{
	for (int h = 0; h < y->g.nhost; h++)
		if (p->ranks[y->idx[h]].rank == r)
			return h;
	return -1;
}

/* The scenario's links on the master's routes to its slaves, as p001 extra links. */
struct xlinks {
	struct p001_xlink *x;		/* [nx] */
	int nx, nxres;
	int *sec;			/* [nxres] the scenario's [link] section of each extra link */
};

static void
xlinks_release(struct xlinks *k)
{
	free(k->x);
	free(k->sec);
	memset(k, 0, sizeof *k);
}

/* Paper 001's network stages for the routes a scenario's [link] sections change: each
 * slave whose host pair with the master's host has a section gets an extra link with the
 * capacity and latency p003 takes from the section (p003_link_new: bandwidth, competing
 * traffic, latency), the latency above the measured one, the slave's own hand-out and
 * result bytes per task from the trace, and the section's token bucket over the run's
 * measured bandwidth. Returns 0, or 1 with why set when a link leaves the run no
 * bandwidth. */
static int
xlinks_build(const struct prof *p, const struct ms_run *m, const struct system *y, const struct scen *s, int hm,
	     struct xlinks *k, char *why, size_t whylen)
{
	const char *mh = p->ranks[y->idx[hm]].host;
	double lat0_ns = p->have_net && p->lat_ns > 0 ? (double)p->lat_ns : 0;
	double bw0_Bps = p->have_net && p->bw_Bps > 0 ? p->bw_Bps : NAN;

	memset(k, 0, sizeof *k);
	if (s == NULL || s->nlinks == 0)
		return 0;
	k->x = xcalloc((size_t)y->g.nhost + 1, sizeof *k->x);
	k->sec = xcalloc((size_t)s->nlinks + 1, sizeof *k->sec);
	for (int h = 0; h < y->g.nhost; h++) {
		const struct prof_rank *rk = &p->ranks[y->idx[h]];
		const struct scen_link *sl;
		int sec, xr;
		double nlat_ns, nbw_Bps, ob, ib;

		if (h == hm || strcmp(rk->host, mh) == 0 || (sl = scen_link_for(s, mh, rk->host)) == NULL)
			continue;
		if (p003_link_new(sl, lat0_ns, bw0_Bps, &nlat_ns, &nbw_Bps) < 0 || !isfinite(nbw_Bps)) {
			snprintf(why, whylen, "link %.60s-%.60s leaves the run %s", sl->a, sl->b, isnan(nbw_Bps) ?
				 "an unknown bandwidth (no bandwidth in the scenario, none measured)" : "no bandwidth");
			return 1;
		}
		sec = (int)(sl - s->links);
		for (xr = 0; xr < k->nxres && k->sec[xr] != sec; xr++)
			;
		if (xr == k->nxres)
			k->sec[k->nxres++] = sec;
		ob = rk->rank < m->d.nranks ? m->d.out_bytes_rank[rk->rank] : NAN;
		ib = rk->rank < m->d.nranks ? m->d.in_bytes_rank[rk->rank] : NAN;
		if (!(ob >= 0) || !(ib >= 0)) {	/* a rank without tasks: the run's mean task */
			ob = m->d.size_taskxfer_bytes * m->d.out_fraction;
			ib = m->d.size_taskxfer_bytes * (1 - m->d.out_fraction);
		}
		k->x[k->nx++] = (struct p001_xlink){
			.host = h, .xres = xr, .bw_Bps = nbw_Bps, .lat_s = fmax(0, nlat_ns - lat0_ns) / 1e9,
			.out_bytes = ob, .in_bytes = ib,
			/* without a measured line rate the bucket cannot be told from the line: strict */
			.burst_bytes = sl->burst_bytes > 0 && bw0_Bps > nbw_Bps ? (double)sl->burst_bytes : 0,
			.peak_Bps = bw0_Bps > nbw_Bps ? bw0_Bps : nbw_Bps };
	}
	return 0;
}

/* A row per extra link, and one per scenario link no master-slave route crosses. */
static void
xlink_rows(const struct prof *p, const struct system *y, const struct scen *s, const struct xlinks *k,
	   struct pred_result *r)
{
	for (int i = 0; s != NULL && i < s->nlinks; i++) {
		const struct scen_link *sl = &s->links[i];
		char name[2 * SCEN_MAX_NAME + 8];	/* "link A-B" */
		int xr = -1, n = 0;

		for (int j = 0; j < k->nxres; j++)
			if (k->sec[j] == i)
				xr = j;
		snprintf(name, sizeof name, "link %s-%s", sl->a, sl->b);
		if (xr < 0) {
			pred_add(r, "factor", name, NAN, NAN, "001 Sec. 4.5",
				 "no master-slave route crosses it (the slaves do not talk to each other)");
			continue;
		}
		for (int j = 0; j < k->nx; j++) {
			const struct p001_xlink *x = &k->x[j];

			if (x->xres != xr || n++ > 0)
				continue;
			pred_add(r, "factor", name, NAN, x->bw_Bps, "001 eq. 8, Sec. 4.5",
				 "%.3g MB/s to rank %d: hand-out %.0f B in %.3f ms, result %.0f B in %.3f ms "
				 "(+%.3f ms latency)%s", x->bw_Bps / 1e6, p->ranks[y->idx[x->host]].rank, x->out_bytes,
				 1e3 * x->out_bytes / x->bw_Bps, x->in_bytes, 1e3 * x->in_bytes / x->bw_Bps,
				 1e3 * x->lat_s, x->burst_bytes > 0 ? "; a token bucket: bursts at the measured rate" : "");
		}
	}
}

static void
table1_rows(const struct ms_run *m, const struct system *y, struct pred_result *r)
{
	pred_add(r, "factor", "Table 1", NAN, (double)m->d.tasks, "001 Table 1",
		 "master rank %d, Tasks %lld, T_SlaveCPU %.3f ms, T_MasterCPU %.3f ms, Size_TaskXfer %.0f B "
		 "(%.0f%% hand-out)", m->master, (long long)m->d.tasks, m->d.t_slave_s * 1e3,
		 m->d.t_master_s * 1e3, m->d.size_taskxfer_bytes, 100 * m->d.out_fraction);
	pred_add(r, "factor", "graph G", NAN, NAN, "001 Sec. 3", "%s", y->gnote);
}

/* Whether s changes a node's speed, which eqs. 6-7 do not see (Avail_CPU is a share of the
 * node as it ran): then r says so. */
static bool
speed_refused(const struct prof *p, const struct scen *s, struct pred_result *r)
{
	const struct prof_rank *sp = s != NULL ? run003_speed_changed(p, s) : NULL;

	if (sp != NULL)
		pred_na(r, "the scenario changes the speed of rank %d's node ('%s'), which paper 001's work "
			"rates (eqs. 6-7) do not model (paper 004's delta)", sp->rank, sp->host);
	return sp != NULL;
}

/* The opening both entry points share: the refusal of a changed node speed, then m derived.
 * 1 derived (the caller releases m), 0 the model does not apply (r says why), negative
 * error; m holds nothing to release on 0 or error. */
static int
refuse_or_derive(const struct prof *p, const struct scen *s, struct ms_run *m, struct pred_result *r,
		 struct err *e)
{
	char why[256];
	int rc;

	if (speed_refused(p, s, r))
		return 0;
	rc = derive(p, m, why, sizeof why, e);
	if (rc <= 0) {
		ms_run_release(m);
		return rc < 0 ? rc : pred_na(r, "%s", why);
	}
	return 1;
}

int
run001_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	double T = (double)prof_dedicated_ns(p);
	struct ms_run m;
	struct system ded, sc;
	struct mwsim_result simd, sims;
	struct p001_masters ms;
	struct xlinks xl;
	bool *inc;
	char why[256];
	int rc, hm;

	r->dedicated_ns = T;
	snprintf(r->equation, sizeof r->equation, "001 Sec. 4.5");
	if ((rc = refuse_or_derive(p, s, &m, r, e)) <= 0)
		return rc;
	memset(&ded, 0, sizeof ded);
	memset(&sc, 0, sizeof sc);
	memset(&simd, 0, sizeof simd);
	memset(&sims, 0, sizeof sims);
	memset(&ms, 0, sizeof ms);
	memset(&xl, 0, sizeof xl);
	inc = xcalloc((size_t)p->nranks, sizeof *inc);
	for (int i = 0; i < p->nranks; i++)
		inc[i] = true;
	if ((rc = system_build(p, &m, inc, NULL, &ded, e)) < 0 ||
	    (rc = system_build(p, &m, inc, s, &sc, e)) < 0)
		goto out;
	hm = host_of(p, &sc, m.master);
	if (xlinks_build(p, &m, &sc, s, hm, &xl, why, sizeof why) > 0) {
		rc = pred_na(r, "%s", why);
		goto out;
	}
	if ((rc = p001_simulate(&ded.g, &ded.c, &m.app, hm, NULL, m.d.tasks, 1, &simd, e)) < 0 ||
	    (rc = p001_simulate_links(&sc.g, &sc.c, &m.app, hm, NULL, xl.x, xl.nx, xl.nxres, m.d.tasks, 1,
				      &sims, e)) < 0 ||
	    (rc = p001_select_master(&sc.g, &sc.c, P001_MAXFLOW, &ms, e)) < 0)
		goto out;
	r->predicted_ns = T - (double)m.span_ns + sims.makespan_s * 1e9;
	table1_rows(&m, &sc, r);
	xlink_rows(p, &sc, s, &xl, r);
	pred_add(r, "factor", "dedicated simulation", NAN, simd.makespan_s, "001 Sec. 4.5",
		 "the simulator gives %.3f s for the measured master/slave span of %.3f s (%+.1f%%)",
		 simd.makespan_s, (double)m.span_ns / 1e9,
		 m.span_ns > 0 ? 100 * (simd.makespan_s * 1e9 - (double)m.span_ns) / (double)m.span_ns : 0.0);
	for (int h = 0; h < sc.g.nhost; h++) {
		double rate = ms.per_master[h].app_rate_tps;
		char name[GRAPH_NAME_MAX + 16];

		snprintf(name, sizeof name, "master %s", sc.g.hosts[h].name);
		pred_add(r, "rate", name, NAN, rate, "001 eqs. 1-5, 2",
			 "AppRate %.2f tasks/s, ExecTime = Tasks / AppRate = %.3f s%s%s", rate,
			 p001_exec_time_s((double)m.d.tasks, rate), h == hm ? " (the run's master)" : "",
			 h == ms.best ? " (best)" : "");
	}
	for (int h = 0; h < sc.g.nhost; h++) {
		const struct prof_rank *rk = &p->ranks[sc.idx[h]];
		char name[PROF_HOST_MAX + 32];

		if (h == hm)
			continue;
		snprintf(name, sizeof name, "rank %d (%s)", rk->rank, rk->host);
		pred_add(r, "node", name, NAN, sims.slave_idle_s[h], "001 Sec. 4.4",
			 "slave idle %.3f s of %.3f s, %lld tasks, Avail_CPU %.3f, W_SlaveCPU %.2f tasks/s",
			 sims.slave_idle_s[h], sims.makespan_s, (long long)sims.slave_tasks[h],
			 avail_cpu(p, &m, s, sc.idx[h]), sc.c.slave_tps[h]);
	}
	for (int k = 0; k < sims.nres; k++) {
		char name[GRAPH_NAME_MAX + 16];

		if (k < sc.g.nhost)
			snprintf(name, sizeof name, "cpu %s", sc.g.hosts[k].name);
		else if (k < sc.g.nhost + sc.g.nnet)
			snprintf(name, sizeof name, "net %s", sc.g.nets[k - sc.g.nhost].name);
		else if (k < p001_res_xlink(&sc.g, 0))
			snprintf(name, sizeof name, "link %s", sc.g.links[k - sc.g.nhost - sc.g.nnet].name);
		else
			snprintf(name, sizeof name, "link %.60s-%.60s", s->links[xl.sec[k - p001_res_xlink(&sc.g, 0)]].a,
				 s->links[xl.sec[k - p001_res_xlink(&sc.g, 0)]].b);
		pred_add(r, "util", name, NAN, sims.util[k], "001 Sec. 4.5",
			 "busy %.3f s, queueing %.3f s", sims.busy_s[k], sims.wait_s[k]);
	}
	snprintf(r->note, sizeof r->note, "the measured master/slave span (%.3f s) replaced by the simulated "
		 "one; Table 1 measured on the run's machines as loaded then%s%s", (double)m.span_ns / 1e9,
		 m.slave_guessed ? "; ranks without tasks given the mean T_SlaveCPU" : "",
		 m.d.t_master_s > 0 ? "" : "; the master showed no busy time (its capacity is unbounded)");
out:
	free(inc);
	xlinks_release(&xl);
	mwsim_result_release(&simd);
	mwsim_result_release(&sims);
	p001_masters_release(&ms);
	system_release(&ded);
	system_release(&sc);
	ms_run_release(&m);
	return rc;
}

static bool
is_candidate(const struct scen *s, const char *host)
{
	if (s == NULL || s->ncand == 0)
		return true;
	for (int i = 0; i < s->ncand; i++)
		if (strcmp(s->cand[i], host) == 0)
			return true;
	return false;
}

int
run001_select(const struct prof *p, const struct scen *s, const char *policy, struct pred_result *r,
	      struct err *e)
{
	double T = (double)prof_dedicated_ns(p);
	struct ms_run m;
	struct system y;
	struct p001_masters ms;
	struct p001_slaves sl;
	bool *inc;
	int *order = NULL;
	int rc, ninc = 0, best;

	r->dedicated_ns = T;
	snprintf(r->equation, sizeof r->equation, "001 Sec. 4.6");
	if (policy != NULL)
		return err_set(e, E_USAGE, "paper 001's selection takes no --policy (got '%s')", policy);
	if ((rc = refuse_or_derive(p, s, &m, r, e)) <= 0)
		return rc;
	memset(&y, 0, sizeof y);
	memset(&ms, 0, sizeof ms);
	memset(&sl, 0, sizeof sl);
	inc = xcalloc((size_t)p->nranks, sizeof *inc);
	for (int i = 0; i < p->nranks; i++)
		if ((inc[i] = is_candidate(s, p->ranks[i].host)))
			ninc++;
	if (ninc < 2) {
		rc = pred_na(r, "fewer than two of the run's ranks are on the candidate hosts");
		goto out;
	}
	for (int i = 0; s != NULL && i < s->nlinks; i++) {
		const struct scen_link *ln = &s->links[i];
		bool ina = false, inb = false;

		for (int k = 0; k < p->nranks; k++) {
			ina |= inc[k] && strcmp(p->ranks[k].host, ln->a) == 0;
			inb |= inc[k] && strcmp(p->ranks[k].host, ln->b) == 0;
		}
		/* max flow and Figure 2 see G only; a changed link is a stage on the routes of one
		 * master (p001_simulate_links), and each candidate master has its own; a fixed
		 * master's routes cross only the links of its host */
		if (ina && inb && (s->master == NULL || strcmp(ln->a, s->master) == 0 || strcmp(ln->b, s->master) == 0)) {
			rc = pred_na(r, "link %.60s-%.60s joins two candidate hosts, and the selection (max-flow "
				     "AppRate, Figure 2) does not model a changed link; --model p001 simulates "
				     "it for the run's master", ln->a, ln->b);
			goto out;
		}
	}
	if ((rc = system_build(p, &m, inc, s, &y, e)) < 0 ||
	    (rc = p001_select_master(&y.g, &y.c, P001_MAXFLOW, &ms, e)) < 0)
		goto out;
	best = ms.best;
	if (s != NULL && s->master != NULL) {
		best = -1;
		for (int h = 0; h < y.g.nhost && best < 0; h++)
			if (strcmp(p->ranks[y.idx[h]].host, s->master) == 0)
				best = h;
		if (best < 0) {
			rc = pred_na(r, "the fixed master '%s' is not among the candidate hosts of the run", s->master);
			goto out;
		}
	}
	order = xcalloc((size_t)y.g.nhost, sizeof *order);
	for (int h = 0; h < y.g.nhost; h++)
		order[h] = h;
	for (int a = 1; a < y.g.nhost; a++)	/* insertion sort by AppRate, best first */
		for (int b = a; b > 0 && ms.per_master[order[b]].app_rate_tps >
				       ms.per_master[order[b - 1]].app_rate_tps; b--) {
			int x = order[b];

			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	table1_rows(&m, &y, r);
	for (int k = 0; k < y.g.nhost; k++) {
		int h = order[k];
		double rate = ms.per_master[h].app_rate_tps;
		char found[200] = "";
		size_t used = 0;

		for (int i = 0; i < y.g.nhost; i++)
			if (ms.per_master[h].found[i] && used + 2 < sizeof found) {
				int w = snprintf(found + used, sizeof found - used, "%s%s", used ? "," : "",
						 y.g.hosts[i].name);
				used += w > 0 ? (size_t)w : 0;
				if (used >= sizeof found)
					used = sizeof found - 1;
			}
		pred_add(r, "master", y.g.hosts[h].name, NAN, rate, "001 Fig. 2",
			 "#%d: AppRate %.2f tasks/s, ExecTime %.3f s, Found {%s}%s", k + 1, rate,
			 p001_exec_time_s((double)m.d.tasks, rate), found, h == best ? " (selected)" : "");
	}
	if ((rc = p001_select_slaves(&y.g, &y.c, &m.app, best, m.d.tasks, 1, SEL_TOLERANCE, &sl, e)) < 0)
		goto out;
	for (int h = 0; h < y.g.nhost; h++)
		if (sl.use[h])
			pred_add(r, "slave", y.g.hosts[h].name, NAN, (double)sl.sim.slave_tasks[h], "001 Sec. 4.6",
				 "W_SlaveCPU %.2f tasks/s, %lld tasks, idle %.3f s", y.c.slave_tps[h],
				 (long long)sl.sim.slave_tasks[h], sl.sim.slave_idle_s[h]);
	r->predicted_ns = T - (double)m.span_ns + sl.sim.makespan_s * 1e9;
	snprintf(r->note, sizeof r->note, "master %s; AppRate %.2f tasks/s predicted, %.2f simulated after %d "
		 "simulation%s; %.120s", y.g.hosts[best].name, sl.predicted_tps, sl.simulated_tps, sl.rounds,
		 sl.rounds == 1 ? "" : "s", y.gnote);
	rc = 0;
out:
	free(inc);
	free(order);
	p001_slaves_release(&sl);
	p001_masters_release(&ms);
	system_release(&y);
	ms_run_release(&m);
	return rc;
}
