/* run003: paper 003's model applied to a parsed run (the registry's "p003"): the
 * per-rank busy/idle phases, the messages on changed links and their overlap, the node's
 * load and capacity from the scenario, combined per rank by p003.h's pure functions. */
#include "predict/run003.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/u64map.h"
#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/p003.h"

/* The share of a rank's idle time it was not asleep: on a CPU (an MPI library polling for
 * its messages) or runnable on a run queue, from the dedicated run's schedstat totals. The
 * run and wait time beyond its busy time fall in its idle time, less 5 % of the run time
 * for the rounding of ranks.tsv's percentages and the 20 ms grain of the phases; 0 (the
 * paper's case: idle means asleep) when the profile has no idle time or no schedstat
 * figures. */
static double
awake_frac(const struct prof_rank *rk)
{
	double exec = (double)rk->exec_ns;
	double idle = exec * rk->idle_pct / 100;
	double busy = exec - idle;
	double awake;

	if (!(idle > 0) || rk->run_ns < 0 || rk->wait_ns < 0)
		return 0;
	awake = (double)rk->run_ns + (double)rk->wait_ns - busy - 0.05 * exec;
	if (!(awake > 0))
		return 0;
	return awake >= idle ? 1 : awake / idle;
}

const struct prof_rank *
run003_speed_changed(const struct prof *p, const struct scen *s)
{
	for (int i = 0; i < p->nranks; i++) {
		const struct scen_node *n = scen_node_for(s, p->ranks[i].rank, p->ranks[i].host);

		if (n != NULL && !isnan(n->speed) && n->speed != 1)
			return &p->ranks[i];
	}
	return NULL;
}

/* The link of message m when it crosses a changed link with a bucket that acts (new
 * bandwidth below the measured one), with its new bandwidth; NULL otherwise. */
static const struct scen_link *
bucket_link(const struct prof *p, const struct scen *s, const struct prof_msg *m, double *nbw)
{
	const struct prof_rank *a, *b;
	const struct scen_link *sl;
	double nlat;

	if (m->src < 0 || m->dst < 0 || (a = prof_rank(p, m->src)) == NULL || (b = prof_rank(p, m->dst)) == NULL ||
	    strcmp(a->host, b->host) == 0 || (sl = scen_link_for(s, a->host, b->host)) == NULL ||
	    !(sl->burst_bytes > 0) || p003_link_new(sl, (double)p->lat_ns, p->bw_Bps, &nlat, nbw) < 0 ||
	    !(*nbw < p->bw_Bps))
		return NULL;
	return sl;
}

int
run003_link_fast(const struct prof *p, const struct scen *s, double **fast, const struct scen_link **burst_link)
{
	double *tok, *tok_t;	/* per [link] section and direction: tokens, bytes, and when, ns */
	long *idx;
	bool any = false;

	*fast = NULL;
	*burst_link = NULL;
	if (s->nlinks == 0 || !p->have_net || !(p->bw_Bps > 0))
		return 0;
	for (int i = 0; i < p->nlinks && !any; i++) {	/* links.tsv: is any bucket crossed? */
		const struct prof_rank *a = prof_rank(p, p->links[i].src), *b = prof_rank(p, p->links[i].dst);
		const struct scen_link *sl;
		double nlat, nbw;

		if (a != NULL && b != NULL && strcmp(a->host, b->host) != 0 && p->links[i].msgs > 0 &&
		    (sl = scen_link_for(s, a->host, b->host)) != NULL && sl->burst_bytes > 0 &&
		    p003_link_new(sl, (double)p->lat_ns, p->bw_Bps, &nlat, &nbw) == 0 && nbw < p->bw_Bps) {
			any = true;
			*burst_link = sl;
		}
	}
	for (long k = 0; k < p->nmsgs && !any; k++) {
		double nbw;

		if ((*burst_link = bucket_link(p, s, &p->msgs[k], &nbw)) != NULL)
			any = true;
	}
	if (!any)
		return 0;
	if (!p->have_msgs || p->nmsgs == 0)
		return -1;
	*burst_link = NULL;
	*fast = xcalloc((size_t)p->nmsgs, sizeof **fast);
	tok = xcalloc(2 * (size_t)s->nlinks, sizeof *tok);
	tok_t = xcalloc(2 * (size_t)s->nlinks, sizeof *tok_t);
	for (int i = 0; i < 2 * s->nlinks; i++) {
		tok[i] = INFINITY;	/* full: capped at the bucket below */
		tok_t[i] = -INFINITY;
	}
	idx = prof_msgs_by_time(p);
	for (long j = 0; j < p->nmsgs; j++) {
		const struct prof_msg *m = &p->msgs[idx[j]];
		const struct scen_link *sl;
		double nbw, t = (double)m->t_ns;
		size_t d;

		if ((sl = bucket_link(p, s, m, &nbw)) == NULL)
			continue;
		d = 2 * (size_t)(sl - s->links) + (strcmp(prof_rank(p, m->src)->host, sl->a) == 0 ? 0 : 1);
		tok[d] = fmin((double)sl->burst_bytes, tok[d] + fmax(0, t - tok_t[d]) * nbw / 1e9);
		tok_t[d] = t;
		(*fast)[idx[j]] = fmin((double)m->bytes, tok[d]);
		tok[d] -= (*fast)[idx[j]];
	}
	free(idx);
	free(tok);
	free(tok_t);
	return 1;
}

/* The message's ranks' indices in p->ranks and its times before and after the scenario's
 * change, when it crosses a changed link between two hosts; false otherwise. fast (NULL:
 * none) holds per message the bytes a bucket passes at the measured bandwidth
 * (run003_link_fast). */
static bool
msg_on_changed_link(const struct prof *p, const struct scen *s, const double *fast, const struct prof_msg *m,
		    int *ia, int *ib, double *old_ns, double *new_ns)
{
	double quick;	/* bytes at the measured bandwidth */

	const struct prof_rank *a, *b;
	const struct scen_link *sl;
	double nlat, nbw;

	if (m->src < 0 || m->dst < 0 || (a = prof_rank(p, m->src)) == NULL || (b = prof_rank(p, m->dst)) == NULL ||
	    strcmp(a->host, b->host) == 0 || (sl = scen_link_for(s, a->host, b->host)) == NULL ||
	    p003_link_new(sl, (double)p->lat_ns, p->bw_Bps, &nlat, &nbw) < 0)
		return false;
	*ia = (int)(a - p->ranks);
	*ib = (int)(b - p->ranks);
	*old_ns = (double)p->lat_ns + (double)m->bytes / p->bw_Bps * 1e9;
	quick = fast != NULL ? fast[m - p->msgs] : 0;
	*new_ns = nlat + ((double)m->bytes - quick) / nbw * 1e9 + quick / p->bw_Bps * 1e9;
	return true;
}

/* The key of rank indexes ia and ib in exchange_pairs' map, the smaller first. */
static uint64_t
pair_key(int ia, int ib)
{
	return ia < ib ? (uint64_t)ia << 32 | (uint64_t)ib : (uint64_t)ib << 32 | (uint64_t)ia;
}

/* The rank pairs with messages on changed links, numbered in *at (pair_key -> number) in
 * the order of their first such message, and for each number whether the pair exchanges
 * (p003_is_exchange on the order of its messages). Only those pairs are held, not a table
 * of every rank pair (nranks^2: 48 MB at 1024 ranks). Caller frees the result and releases
 * *at; NULL with fewer than two ranks. */
static bool *
exchange_pairs(const struct prof *p, const struct scen *s, struct u64map *at)
{
	struct p003_pair_order *po = NULL;
	size_t cap = 0;
	long n = 0;
	bool *ex;
	long *idx;

	if (p->nranks < 2)
		return NULL;
	idx = prof_msgs_by_time(p);
	for (long j = 0; j < p->nmsgs; j++) {
		const struct prof_msg *x = &p->msgs[idx[j]];
		int ia, ib;
		long k;
		double o, nw;

		if (!msg_on_changed_link(p, s, NULL, x, &ia, &ib, &o, &nw))	/* ia sends */
			continue;
		k = u64map_put(at, pair_key(ia, ib), n);
		if (k == n) {
			po = xgrow(po, &cap, (size_t)n + 1, sizeof *po);
			p003_pair_order_init(&po[n++]);
		}
		p003_pair_order_add(&po[k], ia < ib ? 0 : 1, x->t_ns, x->t_last_ns);
	}
	ex = xcalloc((size_t)n + 1, sizeof *ex);
	for (long k = 0; k < n; k++)
		ex[k] = p003_is_exchange(po[k].lead[0], po[k].lead[1]);
	free(po);
	free(idx);
	return ex;
}

/* share[i]: the part of rank i's Section 2.2 time it waits for once its sends and receives
 * that overlap in time, or belong to exchanging rank pairs, are counted once
 * (p003_overlap_share on the dedicated run's message timing); 1, the paper's sum, for a
 * rank without timed messages on a changed link. */
static void
overlap_shares(const struct prof *p, const struct scen *s, const double *fast, double *share)
{
	size_t *cnt, *at, total = 0;
	struct p003_xfer *xs;
	struct u64map pairs = U64MAP_INIT;	/* exchange_pairs' numbers */
	bool *ex;

	for (int i = 0; i < p->nranks; i++)
		share[i] = 1;
	if (!p->have_msgs || p->nmsgs == 0 || s->nlinks == 0 || !p->have_net)
		return;
	cnt = xcalloc((size_t)p->nranks, sizeof *cnt);
	at = xcalloc((size_t)p->nranks + 1, sizeof *at);
	for (long k = 0; k < p->nmsgs; k++) {
		int ia, ib;
		double o, nw;

		if (msg_on_changed_link(p, s, fast, &p->msgs[k], &ia, &ib, &o, &nw)) {
			cnt[ia]++;
			cnt[ib]++;
		}
	}
	for (int i = 0; i < p->nranks; i++) {
		at[i] = total;
		total += cnt[i];
	}
	at[p->nranks] = total;
	if (total == 0) {
		free(cnt);
		free(at);
		return;
	}
	ex = exchange_pairs(p, s, &pairs);
	xs = xcalloc(total, sizeof *xs);
	memset(cnt, 0, (size_t)p->nranks * sizeof *cnt);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int ia, ib, x;
		long j;
		double o, nw;
		int64_t t1;

		if (!msg_on_changed_link(p, s, fast, m, &ia, &ib, &o, &nw))
			continue;
		x = ex != NULL && (j = u64map_get(&pairs, pair_key(ia, ib))) >= 0 && ex[j];
		/* a message holds the link for at least its transfer time: a capture stamps a
		 * message carried by one (segmentation-offloaded) packet with one time */
		t1 = m->t_last_ns;
		if ((double)(t1 - m->t_ns) < o)
			t1 = m->t_ns + (int64_t)o;
		xs[at[ia] + cnt[ia]++] = (struct p003_xfer){ m->t_ns, t1, o, nw, 1, x };
		xs[at[ib] + cnt[ib]++] = (struct p003_xfer){ m->t_ns, t1, o, nw, 0, x };
	}
	for (int i = 0; i < p->nranks; i++)
		share[i] = p003_overlap_share(xs + at[i], cnt[i], NULL, NULL);
	free(ex);
	u64map_release(&pairs);
	free(xs);
	free(cnt);
	free(at);
}

/* Paper 003's model over one run and scenario while it is worked out. */
struct r3 {
	const struct prof *p;
	const struct scen *s;
	double T;		/* dedicated time, ns */
	double *added;		/* per rank index: Section 2.2 time on its changed links */
	double *share;		/* per rank index: the part of it not overlapped */
	double *link_sum;	/* per scenario link: added time over all its rank pairs */
	int64_t *link_msgs;
	double *link_save;	/* per scenario link: time its bucket saves, ns */
	double *fast;		/* per message: bytes a bucket passes at the measured rate, or NULL */
	struct coloc_rank *cl;	/* per rank index: its node's other ranks (coloc_read) */
};

static void
r3_free(struct r3 *st)
{
	free(st->share);
	free(st->added);
	free(st->link_sum);
	free(st->link_msgs);
	free(st->link_save);
	free(st->fast);
	free(st->cl);
}

/* Whether the model applies to p under s: 1, or 0 with r saying why not. Sets st->fast. */
static int
r3_applies(struct r3 *st, struct pred_result *r)
{
	const struct prof *p = st->p;
	const struct scen *s = st->s;
	const struct scen_link *bl;
	const struct prof_rank *sp;
	bool any_node = false;

	if ((sp = run003_speed_changed(p, s)) != NULL)
		return pred_na(r, "the scenario changes the speed of rank %d's node ('%s'), which this model "
			       "does not model (paper 004's delta)", sp->rank, sp->host);
	if (s->nlinks > 0 && !p->have_net)
		return pred_na(r, "the scenario changes links, and this model needs the run's measured "
			       "latency and bandwidth ('%s/profile/netparams.tsv')", p->run);
	if (s->nlinks > 0 && !p->have_links)
		return pred_na(r, "the scenario changes links, and the run has no per-link message counts "
			       "('%s/profile/links.tsv')", p->run);
	for (int i = 0; i < p->nranks; i++) {
		const struct scen_node *n = scen_node_for(s, p->ranks[i].rank, p->ranks[i].host);

		if (n != NULL && (n->cpu_procs > 0 || (!isnan(n->load_avg) && n->load_avg > 0) ||
				  (!isnan(n->capacity) && n->capacity < 1)))
			any_node = true;
	}
	if (!any_node && s->nlinks == 0)
		return pred_na(r, "the scenario changes nothing this model sees (CPU-bound competitors, "
			       "load average, CPU capacity, link latency or bandwidth)");
	if (run003_link_fast(p, s, &st->fast, &bl) < 0)
		return pred_na(r, "link %s-%s is a token bucket (burst), and this model needs the run's messages "
			       "('%s/profile/messages.tsv') to tell which of them fit in it", bl->a, bl->b, p->run);
	return 1;
}

/* Section 2.2 per rank and per changed link from the run's per-link counts, less what the
 * links' buckets let through at the measured bandwidth. Returns 1, or 0 with r saying why
 * not. */
static int
r3_link_times(struct r3 *st, struct pred_result *r)
{
	const struct prof *p = st->p;
	const struct scen *s = st->s;

	st->added = xcalloc((size_t)p->nranks, sizeof *st->added);
	st->link_sum = xcalloc((size_t)s->nlinks + 1, sizeof *st->link_sum);
	st->link_msgs = xcalloc((size_t)s->nlinks + 1, sizeof *st->link_msgs);
	st->link_save = xcalloc((size_t)s->nlinks + 1, sizeof *st->link_save);
	for (int i = 0; i < p->nlinks; i++) {
		const struct prof_link *l = &p->links[i];
		const struct prof_rank *a = prof_rank(p, l->src), *b = prof_rank(p, l->dst);
		const struct scen_link *sl;
		double nlat, nbw, add;

		if (a == NULL || b == NULL || strcmp(a->host, b->host) == 0 || l->msgs == 0)
			continue;
		sl = scen_link_for(s, a->host, b->host);
		if (sl == NULL)
			continue;
		if (p003_link_new(sl, (double)p->lat_ns, p->bw_Bps, &nlat, &nbw) < 0)
			return pred_na(r, "link %s-%s: the competing traffic leaves no bandwidth", sl->a, sl->b);
		add = p003_link_added_ns((double)l->msgs, l->avg_bytes, (double)p->lat_ns, p->bw_Bps, nlat, nbw);
		/* the sender and the receiver both wait for the transfer */
		st->added[a - p->ranks] += add;
		st->added[b - p->ranks] += add;
		st->link_sum[sl - s->links] += add;
		st->link_msgs[sl - s->links] += l->msgs;
	}
	/* the bytes a link's bucket lets through at the measured bandwidth wait no longer */
	for (long k = 0; st->fast != NULL && k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct scen_link *bl;
		int ia, ib;
		double o, strict_ns, bucket_ns, save;

		if (!(st->fast[k] > 0) || !msg_on_changed_link(p, s, NULL, m, &ia, &ib, &o, &strict_ns) ||
		    !msg_on_changed_link(p, s, st->fast, m, &ia, &ib, &o, &bucket_ns))
			continue;
		save = strict_ns - bucket_ns;
		st->added[ia] -= save;
		st->added[ib] -= save;
		bl = scen_link_for(s, p->ranks[ia].host, p->ranks[ib].host);
		st->link_sum[bl - s->links] -= save;
		st->link_save[bl - s->links] += save;
	}
	return 1;
}

/* Whether the scenario loads rank index i's CPU (competitors, a load average, a smaller
 * capacity). */
static bool
rank_loaded(const struct r3 *st, int i)
{
	const struct scen_node *n = scen_node_for(st->s, st->p->ranks[i].rank, st->p->ranks[i].host);

	return scen_node_loaded(n) && (n->cpu_procs > 0 || (!isnan(n->load_avg) && n->load_avg > 0) ||
				       (!isnan(n->capacity) && n->capacity < 1));
}

/* Whether rank index i is the first loaded rank of its node: a node counts once. */
static bool
first_loaded_on_node(const struct r3 *st, int i)
{
	for (int j = 0; j < i; j++)
		if (strcmp(st->p->ranks[j].host, st->p->ranks[i].host) == 0 && rank_loaded(st, j))
			return false;
	return true;
}

/* Rank i under the scenario: its link change, then CPU sharing on the new busy/idle
 * pattern (Section 3.3); a row for a loaded rank. Returns its predicted time, or a negative
 * number with r saying why the model does not apply. */
static double
r3_rank(struct r3 *st, int i, struct pred_result *r, int *nloaded)
{
	const struct prof_rank *rk = &st->p->ranks[i];
	const struct scen_node *n = scen_node_for(st->s, rk->rank, rk->host);
	struct p003_node_in in;
	struct p003_node_out out;
	double beta = st->s->comm_busy_frac;
	double cpu_add;

	if (isnan(beta))
		beta = rk->comm_pct + rk->idle_pct > 0 ? rk->comm_pct / (rk->comm_pct + rk->idle_pct) : 0;
	memset(&in, 0, sizeof in);
	in.t_ns = st->T;
	in.busy_ns = rk->avg_busy_ns;
	in.idle_ns = rk->avg_idle_ns;
	in.n_busy = (double)rk->n_busy;
	in.n_idle = (double)rk->n_idle;
	in.link_added_ns = st->added[i];
	in.comm_busy_frac = beta;
	in.k = n != NULL && n->cpu_procs > 0 ? n->cpu_procs : 0;
	in.load_avg = n != NULL && !isnan(n->load_avg) ? n->load_avg : -1;
	in.capacity = n != NULL && !isnan(n->capacity) ? n->capacity : 1;
	/* idle time that earns no credit: awake, or asleep on a scheduler that forgets */
	in.awake_frac = 1 - st->s->sleep_credit * (1 - awake_frac(rk));
	if (st->cl[i].nlocal > 1 && (in.k > 0 || in.load_avg > 0)) {
		/* beyond the paper (docs/predict.md, p003): Section 2.1 takes the rank to have the CPU
		 * alone between competitors; a rank whose node holds other ranks shared it with
		 * them in the dedicated run already, so n competitors stretch its busy phases
		 * only by what coloc_stretch gives, the replay's rule: its neighbours counted by
		 * how much of its busy time they were busy too, as Section 2.1 counts processes
		 * by their busy phases */
		double n0 = in.load_avg >= 0 ? floor(in.load_avg) : (double)in.k;

		in.shared = true;
		in.kx[0] = coloc_stretch(n0 + 1, 1, &st->cl[i]) - 1;
		in.kx[1] = coloc_stretch(n0 + 2, 1, &st->cl[i]) - 1;
	}
	if (p003_node(&in, &out) < 0)
		BUG("p003_node rejected checked inputs for rank %d", rk->rank);
	cpu_add = out.t_ns - out.t_link_ns;
	if (rank_loaded(st, i)) {
		char name[160], shared[160];

		if (first_loaded_on_node(st, i))
			(*nloaded)++;
		if (!(rk->avg_busy_ns + rk->avg_idle_ns > 0)) {
			pred_na(r, "rank %d on loaded node '%s' has no busy/idle phases in the profile", rk->rank,
				rk->host);
			return -1;
		}
		snprintf(name, sizeof name, "rank %d (%s)", rk->rank, rk->host);
		if (in.shared)
			snprintf(shared, sizeof shared, "; %d ranks share %.3g cores, others busy %.2f of its "
				 "busy time: k' %.3g", st->cl[i].nlocal, st->cl[i].cores, st->cl[i].others_busy,
				 in.kx[0]);
		else
			shared[0] = '\0';
		pred_add(r, "node", name, cpu_add, out.increase, "003 Sec. 2.1",
			 "busy %.1f ms idle %.1f ms (%.0f%% uncredited)%s, %s %g%s%s", out.busy_ns / 1e6,
			 out.idle_ns / 1e6, 100 * in.awake_frac, st->added[i] != 0 ? " after its link change" : "",
			 in.load_avg >= 0 ? "load average" : "competitors",
			 in.load_avg >= 0 ? in.load_avg : (double)in.k,
			 in.capacity < 1 ? ", reduced CPU capacity" : "", shared);
	}
	return out.t_ns;
}

/* A row per changed link: its Section 2.2 time over all its rank pairs, and its bucket. */
static void
r3_link_rows(const struct r3 *st, struct pred_result *r)
{
	const struct prof *p = st->p;

	for (int i = 0; i < st->s->nlinks; i++) {
		const struct scen_link *sl = &st->s->links[i];
		char name[300];
		char bucket[100];
		double nlat = 0, nbw = 0;

		snprintf(name, sizeof name, "%s-%s", sl->a, sl->b);
		if (st->link_msgs[i] == 0) {
			pred_add(r, "link", name, 0, NAN, "003 Sec. 2.2", "no messages between these hosts in this run");
			continue;
		}
		(void)p003_link_new(sl, (double)p->lat_ns, p->bw_Bps, &nlat, &nbw);
		if (st->link_save[i] > 0)
			snprintf(bucket, sizeof bucket, "; a %lld B token bucket passes bursts at the measured "
				 "rate (%.3f s less)", (long long)sl->burst_bytes, st->link_save[i] / 1e9);
		else if (sl->burst_bytes > 0)
			snprintf(bucket, sizeof bucket, "; its %lld B token bucket saves nothing (%s)",
				 (long long)sl->burst_bytes, nbw < p->bw_Bps ? "no message found tokens" :
				 "B is not cut");
		else
			bucket[0] = '\0';
		pred_add(r, "link", name, st->link_sum[i], NAN, "003 Sec. 2.2",
			 "%lld msgs, L %.1f us -> %.1f us, B %.3g -> %.3g MB/s%s", (long long)st->link_msgs[i],
			 (double)p->lat_ns / 1e3, nlat / 1e3, p->bw_Bps / 1e6, nbw / 1e6, bucket);
	}
}

int
run003_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	struct r3 st = { .p = p, .s = s, .T = (double)prof_dedicated_ns(p) };
	double naive_max = 0;	/* the largest rank's Section 2.2 sum before overlap */
	int worst_link = -1;	/* the rank index with the most added link time */
	double worst = st.T;
	int nloaded = 0;
	char ovl[200] = "";

	(void)e;
	r->dedicated_ns = st.T;
	snprintf(r->equation, sizeof r->equation, "003 Sec. 3.3");
	if (r3_applies(&st, r) == 0 || r3_link_times(&st, r) == 0) {
		r3_free(&st);
		return 0;
	}
	st.cl = xcalloc((size_t)p->nranks + 1, sizeof *st.cl);
	coloc_read(p, st.cl);
	/* a rank waits once for its sends and receives that go on at once (full duplex) */
	st.share = xcalloc((size_t)p->nranks, sizeof *st.share);
	overlap_shares(p, s, st.fast, st.share);
	for (int i = 0; i < p->nranks; i++) {
		if (fabs(st.added[i]) > fabs(naive_max)) {
			naive_max = st.added[i];
			worst_link = i;
		}
		st.added[i] *= st.share[i];
	}
	for (int i = 0; i < p->nranks; i++) {
		double t = r3_rank(&st, i, r, &nloaded);

		if (t < 0) {
			r3_free(&st);
			return 0;
		}
		if (t > worst)
			worst = t;
	}
	r3_link_rows(&st, r);
	r->predicted_ns = worst;
	if (worst_link >= 0 && st.share[worst_link] < 1)
		snprintf(ovl, sizeof ovl, "; link time counted once where a rank's sends and receives "
			 "overlap (rank %d: %.3f s of %.3f s)", p->ranks[worst_link].rank,
			 st.added[worst_link] / 1e9, naive_max / 1e9);
	/* a note for people: cut to its buffer when both asides are there */
	if (snprintf(r->note, sizeof r->note, "run = slowest rank; each rank: link change first, then CPU "
		     "sharing on its new busy/idle pattern%s%s", nloaded > 1 ? " (several loaded nodes: "
		     "beyond the paper, which loads one)" : "", ovl) >= (int)sizeof r->note)
		r->note[sizeof r->note - 1] = '\0';
	r3_free(&st);
	return 0;
}
