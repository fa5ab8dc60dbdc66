/* evidence: run-queue wait per busy phase, node load, retransmissions and pair
 * throughput for `contend explain` (see evidence.h). */
#include "explain/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fsutil.h"
#include "lib/sortnum.h"
#include "lib/tsv.h"
#include "lib/u64map.h"
#include "lib/xalloc.h"
#include "parse/phases.h"

/* Open path as format fmt for v's evidence: 0, or -1 when it cannot be read; a file that is
 * there but not readable as fmt is counted in v->bad_files (the first error kept). */
static int
evid_open(struct evid *v, struct tsv_r *t, const char *path, const char *fmt, const char *const *cols)
{
	struct err e;
	int rc = path != NULL ? tsv_r_open_opt(t, path, fmt, 1, cols, &e) : 1;

	if (rc < 0 && v->bad_files++ == 0)
		snprintf(v->bad_file, sizeof v->bad_file, "%s", e.msg);
	return rc == 0 ? 0 : -1;
}

/* The next good row of t: 1, or 0 at the end or on a read error; damaged rows counted. */
static int
next_row(struct tsv_r *t, long *damaged)
{
	struct err e;
	int rc;

	while ((rc = tsv_r_next(t, &e)) < 0) {
		if (rc != -E_FORMAT && rc != -E_LIMIT)
			return 0;
		(*damaged)++;
	}
	return rc;
}

/* Run-queue wait inside each rank's busy phases. phases.tsv wait_ns is the interval's
 * schedstat wait summed over the rank's threads. */
static void
load_phase_wait(struct evid *v, const struct prof *p)
{
	static const char *const cols[] = { "rank", "kind", "t_start_ns", "t_end_ns", "run_ns", "wait_ns", NULL };
	char *path = fs_plain_or_gz(p->run, "profile/phases.tsv");
	int crank, ckind, cwait, ct0, ct1, crun;
	struct tsv_r t;
	struct err e;

	if (evid_open(v, &t, path, "phases", cols) < 0) {
		free(path);
		return;
	}
	free(path);
	v->have_phase_wait = true;
	crank = tsv_r_col(&t, "rank");
	ckind = tsv_r_col(&t, "kind");
	cwait = tsv_r_col(&t, "wait_ns");
	ct0 = tsv_r_col(&t, "t_start_ns");
	ct1 = tsv_r_col(&t, "t_end_ns");
	crun = tsv_r_col(&t, "run_ns");
	while (next_row(&t, &v->damaged)) {
		int64_t r, w;
		const struct prof_rank *rk;

		bool busy = strcmp(tsv_r_str(&t, ckind), "busy") == 0;
		int64_t t0, t1, run;

		if (!busy && strcmp(tsv_r_str(&t, ckind), "idle") != 0)
			continue;
		if (tsv_r_i64(&t, ct0, &t0, &e) < 0 || tsv_r_i64(&t, ct1, &t1, &e) < 0 ||
		    tsv_r_i64(&t, crun, &run, &e) < 0 || run < 0 || tsv_r_i64(&t, crank, &r, &e) < 0 || tsv_r_i64(&t, cwait, &w, &e) < 0 || w < 0 ||
		    r < 0 || r > INT32_MAX) {
			v->damaged++;
			continue;
		}
		if ((rk = prof_rank(p, (int)r)) == NULL)
			continue;
		if (busy) {
			v->rank[rk - p->ranks].busy_wait_ns += (double)w;
		} else if (t1 > t0) {
			v->rank[rk - p->ranks].idle_wait_ns += (double)w;
			v->rank[rk - p->ranks].idle_ns += (double)(t1 - t0);
			v->rank[rk - p->ranks].idle_run_ns += (double)run;
		}
	}
	tsv_r_close(&t);
}

/* A key of a key/value file (format fmt) as a number; dflt when absent or bad. */
static double
kv_num(const char *path, const char *fmt, const char *key, double dflt, bool *found)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	struct err e;
	long damaged = 0;
	double out = dflt;

	if (found != NULL)
		*found = false;
	if (tsv_r_open(&t, path, fmt, 1, cols, &e) < 0)
		return dflt;
	if (found != NULL)
		*found = true;
	while (next_row(&t, &damaged)) {
		double x;

		if (strcmp(tsv_r_str(&t, tsv_r_col(&t, "key")), key) == 0 &&
		    tsv_r_f64(&t, tsv_r_col(&t, "value"), &x, &e) == 0 && isfinite(x))
			out = x;
	}
	tsv_r_close(&t);
	return out;
}

/* Whether key of a key/value file is the string want. */
static bool
kv_is(const char *path, const char *fmt, const char *key, const char *want)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	struct err e;
	long damaged = 0;
	bool is = false;

	if (tsv_r_open(&t, path, fmt, 1, cols, &e) < 0)
		return false;
	while (next_row(&t, &damaged))
		if (strcmp(tsv_r_str(&t, tsv_r_col(&t, "key")), key) == 0)
			is = strcmp(tsv_r_str(&t, tsv_r_col(&t, "value")), want) == 0;
	tsv_r_close(&t);
	return is;
}

static void
load_stats(struct evid *v, const struct prof *p)
{
	char *path = xasprintf("%s/profile/stats.tsv", p->run);

	v->retrans = (int64_t)kv_num(path, "stats", "retransmissions", 0, &v->have_stats);
	v->segments = (int64_t)kv_num(path, "stats", "segments", 0, NULL);
	v->gaps = (int64_t)kv_num(path, "stats", "gaps", 0, NULL);
	v->warnings = (int64_t)kv_num(path, "stats", "warnings", 0, NULL);
	v->hidden_pairs = (int64_t)kv_num(path, "stats", "pairs_local_hidden", 0, NULL);
	v->ranks_unsampled = (int64_t)kv_num(path, "stats", "ranks_unsampled", 0, NULL);
	v->incomplete = v->have_stats && !kv_is(path, "stats", "complete", "yes");
	free(path);
}

/* The handshake round trips of each host pair (conns.tsv). */
static void
load_rtts(struct evid *v, const struct prof *p)
{
	static const char *const cols[] = { "rank0", "rank1", "rtt_ns", NULL };
	char *path = xasprintf("%s/profile/conns.tsv", p->run);
	struct {
		int pair;
		double ns;
	} *smp = NULL;
	size_t cap = 0, n = 0, rcap = 0;
	struct tsv_r t;
	struct err e;

	if (evid_open(v, &t, path, "conns", cols) < 0) {
		free(path);
		return;
	}
	free(path);
	while (next_row(&t, &v->damaged)) {
		int64_t r0, r1, rtt;
		const struct prof_rank *a, *b;
		const char *h, *h2;
		int j;

		if (tsv_r_i64(&t, tsv_r_col(&t, "rank0"), &r0, &e) < 0 || tsv_r_i64(&t, tsv_r_col(&t, "rank1"), &r1, &e) < 0 ||
		    tsv_r_i64(&t, tsv_r_col(&t, "rtt_ns"), &rtt, &e) < 0) {
			v->damaged++;
			continue;
		}
		if (rtt <= 0 || r0 < 0 || r1 < 0 || r0 > INT32_MAX || r1 > INT32_MAX ||
		    (a = prof_rank(p, (int)r0)) == NULL || (b = prof_rank(p, (int)r1)) == NULL ||
		    strcmp(a->host, b->host) == 0)
			continue;
		h = strcmp(a->host, b->host) < 0 ? a->host : b->host;
		h2 = h == a->host ? b->host : a->host;
		for (j = 0; j < v->nrtts && (strcmp(v->rtt[j].host, h) != 0 || strcmp(v->rtt[j].host2, h2) != 0); j++)
			;
		if (j == v->nrtts) {
			v->rtt = xgrow(v->rtt, &rcap, (size_t)v->nrtts + 1, sizeof *v->rtt);
			v->rtt[j] = (struct evid_rtt){ .n = 0 };
			snprintf(v->rtt[j].host, sizeof v->rtt[j].host, "%s", h);
			snprintf(v->rtt[j].host2, sizeof v->rtt[j].host2, "%s", h2);
			v->nrtts++;
		}
		smp = xgrow(smp, &cap, n + 1, sizeof *smp);
		smp[n].pair = j;
		smp[n++].ns = (double)rtt;
		v->rtt[j].n++;
	}
	tsv_r_close(&t);
	for (int j = 0; j < v->nrtts; j++) {
		double *x = xcalloc((size_t)v->rtt[j].n + 1, sizeof *x);
		int k = 0;

		for (size_t i = 0; i < n; i++)
			if (smp[i].pair == j)
				x[k++] = smp[i].ns;
		qsort(x, (size_t)k, sizeof *x, sortnum_cmp_f64);
		v->rtt[j].med_ns = k % 2 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) / 2;
		free(x);
	}
	free(smp);
}

const struct evid_rtt *
evid_rtt(const struct evid *v, const char *a, const char *b)
{
	for (int j = 0; j < v->nrtts; j++)
		if ((strcmp(v->rtt[j].host, a) == 0 && strcmp(v->rtt[j].host2, b) == 0) ||
		    (strcmp(v->rtt[j].host, b) == 0 && strcmp(v->rtt[j].host2, a) == 0))
			return &v->rtt[j];
	return NULL;
}

/* The hidden rank pairs of each host (coverage.tsv). */
static void
load_coverage(struct evid *v, const struct prof *p)
{
	static const char *const cols[] = { "host0", "state", NULL };
	char *path = xasprintf("%s/profile/coverage.tsv", p->run);
	struct tsv_r t;

	if (evid_open(v, &t, path, "coverage", cols) < 0) {
		free(path);
		return;
	}
	free(path);
	while (next_row(&t, &v->damaged)) {
		struct evid_host *h;

		if (strcmp(tsv_r_str(&t, tsv_r_col(&t, "state")), "hidden") != 0)
			continue;
		for (int i = 0; i < v->nhosts; i++) {
			h = &v->host[i];
			if (strcmp(h->host, tsv_r_str(&t, tsv_r_col(&t, "host0"))) == 0)
				h->hidden_pairs++;
		}
	}
	tsv_r_close(&t);
}

/* The node's CPU use over the run window [t0, t1] from its nodeload samples: the first and
 * last sample inside it. */
static void
load_node(struct evid *v, struct evid_host *h, const char *run, int64_t t0, int64_t t1, int64_t clk_tck)
{
	long *damaged = &v->damaged;
	static const char *const cols[] = { "t_real_ns", "load1", "cpu_user", "cpu_nice", "cpu_system",
					    "cpu_irq", "cpu_softirq", "cpu_steal", NULL };
	static const char *const busy[] = { "cpu_user", "cpu_nice", "cpu_system", "cpu_irq", "cpu_softirq",
					    "cpu_steal" };
	char *name = xasprintf("samples/node-%s.tsv", h->host), *path = fs_plain_or_gz(run, name);
	int64_t ta = -1, tb = -1, ba = 0, bb = 0;
	struct tsv_r t;
	struct err e;

	free(name);
	if (evid_open(v, &t, path, "nodeload", cols) < 0) {
		free(path);
		return;
	}
	free(path);
	while (next_row(&t, damaged)) {
		int64_t ts, ticks = 0, x;
		double l1;
		bool bad = tsv_r_i64(&t, tsv_r_col(&t, "t_real_ns"), &ts, &e) < 0 ||
			   tsv_r_f64(&t, tsv_r_col(&t, "load1"), &l1, &e) < 0;

		for (size_t k = 0; !bad && k < sizeof busy / sizeof busy[0]; k++) {
			bad = tsv_r_i64(&t, tsv_r_col(&t, busy[k]), &x, &e) < 0 || x < 0;
			ticks += bad ? 0 : x;
		}
		if (bad || !isfinite(l1)) {
			(*damaged)++;
			continue;
		}
		if (ts < t0 || ts > t1)
			continue;
		if (ta < 0) {
			ta = ts;
			ba = ticks;
		}
		tb = ts;
		bb = ticks;
		h->load1_max = fmax(h->load1_max, l1);
	}
	tsv_r_close(&t);
	if (ta >= 0 && tb > ta && bb >= ba && clk_tck > 0) {
		h->have_load = true;
		h->node_cpus = (double)(bb - ba) / (double)clk_tck / ((double)(tb - ta) / 1e9);
	}
}

static int
by_pair(const void *a, const void *b)
{
	const struct evid_pair *x = a, *y = b;

	if (x->src != y->src)
		return (x->src > y->src) - (x->src < y->src);
	return (x->dst > y->dst) - (x->dst < y->dst);
}

int
evid_size_class(int64_t bytes)
{
	int c = 0;

	for (int64_t b = bytes / EVID_MIN_BYTES; b > 1; b >>= 1)
		c++;
	return c;
}

static int
by_class(const void *a, const void *b)
{
	const struct evid_xput *x = a, *y = b;

	if (x->cls != y->cls)
		return (x->cls > y->cls) - (x->cls < y->cls);
	return (x->Bps > y->Bps) - (x->Bps < y->Bps);
}

static int
by_Bps(const void *a, const void *b)
{
	const struct evid_xput *x = a, *y = b;

	return (x->Bps > y->Bps) - (x->Bps < y->Bps);
}

double
evid_top(const struct evid_xput *x, long n)
{
	long k = (long)ceil((double)n * EVID_TOP_SHARE);

	return n > 0 ? x[n - (k > 0 ? k : 1)].Bps : 0;
}

/* Each pair's large messages into v->xput, by class then throughput, and its best_Bps. */
static void
pair_xputs(struct evid *v, const struct prof *p)
{
	long n = 0, *fill = xcalloc((size_t)v->npairs + 1, sizeof *fill);
	struct evid_xput *tmp;
	long most = 0;

	for (int j = 0; j < v->npairs; j++) {
		v->pair[j].xoff = fill[j] = n;
		n += v->pair[j].nbig;
		most = v->pair[j].nbig > most ? v->pair[j].nbig : most;
	}
	v->xput = xcalloc((size_t)n + 1, sizeof *v->xput);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		double ns = (double)(m->t_last_ns - m->t_ns);
		const struct evid_pair *q;

		if (m->bytes < EVID_MIN_BYTES || ns <= 0 || (q = evid_pair(v, m->src, m->dst)) == NULL)
			continue;
		v->xput[fill[q - v->pair]++] = (struct evid_xput){ .cls = evid_size_class(m->bytes),
								   .Bps = (double)m->bytes / ns * 1e9 };
	}
	tmp = xcalloc((size_t)most + 1, sizeof *tmp);
	for (int j = 0; j < v->npairs; j++) {
		struct evid_pair *q = &v->pair[j];

		memcpy(tmp, v->xput + q->xoff, (size_t)q->nbig * sizeof *tmp);
		qsort(tmp, (size_t)q->nbig, sizeof *tmp, by_Bps);
		q->best_Bps = evid_top(tmp, q->nbig);
		qsort(v->xput + q->xoff, (size_t)q->nbig, sizeof *v->xput, by_class);
	}
	free(tmp);
	free(fill);
}

/* The first of the n throughputs a (by class, then slowest first) past (cls, Bps), or with
 * after false the first not before it. */
static long
xput_bound(const struct evid_xput *a, long n, int cls, double Bps, bool after)
{
	long lo = 0, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		bool same = a[mid].cls == cls;

		if (a[mid].cls < cls || (same && a[mid].Bps < Bps) || (same && after && a[mid].Bps == Bps))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long
evid_class(const struct evid *v, const struct evid_pair *q, int cls, const struct evid_xput **x)
{
	const struct evid_xput *a = v->xput + q->xoff;
	long first = xput_bound(a, q->nbig, cls, -INFINITY, false);

	*x = a + first;
	return xput_bound(a, q->nbig, cls, INFINITY, true) - first;
}

double
evid_place(const struct evid_xput *x, long n, double Bps)
{
	if (n <= 0)
		return NAN;
	return ((double)xput_bound(x, n, x->cls, Bps, false) + (double)xput_bound(x, n, x->cls, Bps, true)) / 2 /
	       (double)n;
}

double
evid_at(const struct evid_xput *x, long n, double u)
{
	double at = u * (double)n - 0.5;
	long k = (long)floor(at);

	if (n <= 0)
		return 0;
	if (!(at > 0))
		return x[0].Bps;
	if (k >= n - 1)
		return x[n - 1].Bps;
	return x[k].Bps + (at - (double)k) * (x[k + 1].Bps - x[k].Bps);
}

/* The pairs are found through a map from (src, dst), not by a search of those found so
 * far: that search cost messages times pairs (an all-to-all of 256 ranks has 65 280). */
void
evid_pairs(struct evid *v, const struct prof *p)
{
	struct u64map at = U64MAP_INIT;	/* (src, dst) -> index in v->pair */
	size_t cap = 0;

	free(v->pair);
	free(v->xput);
	v->pair = NULL;
	v->xput = NULL;
	v->npairs = 0;
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct prof_rank *a = m->src >= 0 ? prof_rank(p, m->src) : NULL;
		const struct prof_rank *b = m->dst >= 0 ? prof_rank(p, m->dst) : NULL;
		double ns = (double)(m->t_last_ns - m->t_ns);
		struct evid_pair *q;
		long j;

		if (a == NULL || b == NULL || strcmp(a->host, b->host) == 0 || ns <= 0)
			continue;
		j = u64map_put(&at, (uint64_t)(uint32_t)m->src << 32 | (uint32_t)m->dst, v->npairs);
		if (j == v->npairs) {
			v->pair = xgrow(v->pair, &cap, (size_t)v->npairs + 1, sizeof *v->pair);
			v->pair[v->npairs++] = (struct evid_pair){ .src = m->src, .dst = m->dst, .lat_ns = INFINITY };
		}
		q = &v->pair[j];
		if (m->bytes < EVID_MIN_BYTES) {
			q->nsmall++;
			q->lat_ns = fmin(q->lat_ns, ns);
			continue;
		}
		q->nbig++;
		q->bytes += (double)m->bytes;
		q->xfer_ns += ns;
	}
	u64map_release(&at);
	if (v->npairs > 1)
		qsort(v->pair, (size_t)v->npairs, sizeof *v->pair, by_pair);
	pair_xputs(v, p);
}

/* The demand phases of every rank (see evidence.h); all or none. */
static void
load_demand(struct evid *v, const struct prof *p)
{
	size_t cap = 0;

	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *rk = &p->ranks[i];
		char *name = xasprintf("samples/rank-%d.tsv", rk->rank), *path = fs_plain_or_gz(p->run, name);
		char *meta = xasprintf("%s/meta/rank-%d.tsv", p->run, rk->rank);
		double capy = kv_num(meta, "meta", "cpu_capacity", 1, NULL);
		struct phases_opts o = { .busy_threshold = EVID_DEMAND_THRESHOLD * fmin(fmax(capy, 0.01), 1), .count_wait = true, .user_alone = true };
		struct rank_cpu rc = { 0 };
		struct err e;
		int ok;

		free(name);
		free(meta);
		ok = path != NULL && phases_from_samples_opt(path, &o, &rc, &e) == 0;
		free(path);
		if (!ok) {
			rank_cpu_release(&rc);
			free(v->demand);
			v->demand = NULL;
			v->ndemand = 0;
			for (int j = 0; j < p->nranks; j++)
				v->rank[j] = (struct evid_rank){ 0 };
			return;
		}
		v->damaged += (long)rc.bad_rows;
		for (size_t k = 0; k < rc.nphases; k++) {
			const struct phase *ph = &rc.phases[k];

			if (ph->t_end_ns <= ph->t_start_ns)
				continue;
			if (!ph->busy) {
				v->rank[i].idle_ns += (double)(ph->t_end_ns - ph->t_start_ns);
				v->rank[i].idle_wait_ns += (double)ph->wait_ns;
				v->rank[i].idle_run_ns += (double)ph->run_ns;
				continue;
			}
			v->demand = xgrow(v->demand, &cap, (size_t)v->ndemand + 1, sizeof *v->demand);
			v->demand[v->ndemand++] = (struct prof_busy){ .rank = rk->rank, .t_start_ns = ph->t_start_ns,
								   .t_end_ns = ph->t_end_ns, .run_ns = -1 };
			v->rank[i].busy_wait_ns += (double)ph->wait_ns;
		}
		rank_cpu_release(&rc);
	}
	v->have_demand = v->have_phase_wait = p->nranks > 0;
}

/* v->start_hold_ns and each rank's start_held_ns from the ranks' meta (struct evid). */
static void
load_start_hold(struct evid *v, const struct prof *p)
{
	double amin = INFINITY, amax = -INFINITY, smin = INFINITY, smax = -INFINITY;
	double cmin = INFINITY, cmax = -INFINITY;
	double *a = xcalloc((size_t)p->nranks + 1, sizeof *a), *c = xcalloc((size_t)p->nranks + 1, sizeof *c);
	int i;

	for (i = 0; i < p->nranks; i++) {
		char *meta = xasprintf("%s/meta/rank-%d.tsv", p->run, p->ranks[i].rank);

		a[i] = kv_num(meta, "meta", "start_real_ns", NAN, NULL);
		c[i] = kv_num(meta, "meta", "start_cost_ns", NAN, NULL);
		free(meta);
		if (!(a[i] > 0) || !(c[i] >= 0))
			break;
		amin = fmin(amin, a[i]);
		amax = fmax(amax, a[i]);
		smin = fmin(smin, a[i] + c[i]);
		smax = fmax(smax, a[i] + c[i]);
		cmin = fmin(cmin, c[i]);
		cmax = fmax(cmax, c[i]);
	}
	if (i == p->nranks && p->nranks > 0) {
		v->start_hold_ns = (smax - amax) - (smin - amin);
		v->start_cost_min_ns = cmin;
		v->start_cost_max_ns = cmax;
		for (i = 0; i < p->nranks; i++)	/* (a + c - smin) - (a - amin) */
			v->rank[i].start_held_ns = c[i] - (smin - amin);
	}
	free(a);
	free(c);
}

void
evid_load(struct evid *v, const struct prof *p)
{
	char *meta = xasprintf("%s/meta/run.tsv", p->run);
	int64_t clk_tck = (int64_t)kv_num(meta, "meta", "clk_tck", 100, NULL);

	free(meta);
	*v = (struct evid){ .nranks = p->nranks };
	v->rank = xcalloc((size_t)p->nranks + 1, sizeof *v->rank);
	load_demand(v, p);
	if (!v->have_demand)
		load_phase_wait(v, p);
	load_stats(v, p);
	evid_pairs(v, p);
	v->host = xcalloc((size_t)p->nranks + 1, sizeof *v->host);
	for (int i = 0; i < p->nranks; i++) {
		struct evid_host *h;

		if (!prof_host_first(p, i))
			continue;
		h = &v->host[v->nhosts++];
		snprintf(h->host, sizeof h->host, "%s", p->ranks[i].host);
		load_node(v, h, p->run, p->t_phase0_ns, p->t_phase1_ns, clk_tck);
		meta = xasprintf("%s/meta/rank-%d.tsv", p->run, p->ranks[i].rank);
		h->capacity = kv_num(meta, "meta", "cpu_capacity", NAN, NULL);
		free(meta);
		for (int j = 0; j < p->nranks; j++)
			if (strcmp(p->ranks[j].host, h->host) == 0 && p->ranks[j].run_ns > 0 && p->ranks[j].exec_ns > 0)
				h->own_cpus += (double)p->ranks[j].run_ns / (double)p->ranks[j].exec_ns;
	}
	load_coverage(v, p);
	load_rtts(v, p);
	load_start_hold(v, p);
}

void
evid_free(struct evid *v)
{
	if (v == NULL)
		return;
	free(v->rank);
	free(v->demand);
	free(v->pair);
	free(v->xput);
	free(v->host);
	free(v->rtt);
	*v = (struct evid){ 0 };
}

const struct evid_pair *
evid_pair(const struct evid *v, int src, int dst)
{
	struct evid_pair key = { .src = src, .dst = dst };

	return v->npairs > 0 ? bsearch(&key, v->pair, (size_t)v->npairs, sizeof key, by_pair) : NULL;
}

const struct evid_host *
evid_host(const struct evid *v, const char *host)
{
	for (int i = 0; i < v->nhosts; i++)
		if (strcmp(v->host[i].host, host) == 0)
			return &v->host[i];
	return NULL;
}
