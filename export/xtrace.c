/* xtrace: a parsed run laid out for the exporters (ranks by host, messages and phases in
 * time order, node CPU load). */
#include "export/xtrace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tsv.h"
#include "lib/xalloc.h"

static int
cmp_phase(const void *a, const void *b)
{
	const struct xt_phase *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->t0_ns > y->t0_ns) - (x->t0_ns < y->t0_ns);
}

static int
cmp_load(const void *a, const void *b)
{
	const struct xt_load *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return (x->t0_ns > y->t0_ns) - (x->t0_ns < y->t0_ns);
}

int
xtrace_rank(const struct xtrace *x, int rank)
{
	if (rank < 0 || rank >= x->span)
		return -1;
	return x->rank_idx[rank];
}

int
xtrace_host(const struct xtrace *x, int rank)
{
	int i = xtrace_rank(x, rank);

	if (i < 0)
		BUG("rank %d is not in the profile", rank);
	return x->host_of[i];
}

static void
widen(struct xtrace *x, int64_t t0, int64_t t1)
{
	if (t0 < x->t0_ns)
		x->t0_ns = t0;
	if (t1 > x->t1_ns)
		x->t1_ns = t1;
}

/* Hosts in order of their first rank, and each rank's host. */
static void
group_hosts(struct xtrace *x)
{
	const struct prof *p = &x->p;

	x->hosts = xcalloc((size_t)p->nranks, sizeof *x->hosts);
	x->host_of = xcalloc((size_t)p->nranks, sizeof *x->host_of);
	for (int i = 0; i < p->nranks; i++) {
		const char *h = strcmp(p->ranks[i].host, "-") == 0 ? "unknown" : p->ranks[i].host;
		int k;

		for (k = 0; k < x->nhosts; k++)
			if (strcmp(x->hosts[k], h) == 0)
				break;
		if (k == x->nhosts)
			snprintf(x->hosts[x->nhosts++], sizeof x->hosts[0], "%s", h);
		x->host_of[i] = k;
	}
	x->host_first = xcalloc((size_t)x->nhosts + 1, sizeof *x->host_first);
	x->host_ranks = xcalloc((size_t)p->nranks, sizeof *x->host_ranks);
	for (int i = 0; i < p->nranks; i++)
		x->host_first[x->host_of[i] + 1]++;
	for (int h = 0; h < x->nhosts; h++)
		x->host_first[h + 1] += x->host_first[h];
	{
		int *fill = xcalloc((size_t)x->nhosts, sizeof *fill);

		for (int i = 0; i < p->nranks; i++)
			x->host_ranks[x->host_first[x->host_of[i]] + fill[x->host_of[i]]++] = i;
		free(fill);
	}
	x->span = prof_rank_span(p);
	x->rank_idx = xmallocarray((size_t)x->span, sizeof *x->rank_idx);
	for (int r = 0; r < x->span; r++)
		x->rank_idx[r] = -1;
	for (int i = 0; i < p->nranks; i++)
		x->rank_idx[p->ranks[i].rank] = i;
}

static void
keep_messages(struct xtrace *x)
{
	const struct prof *p = &x->p;
	long *all = prof_msgs_by_time(p);

	x->msgs = xcalloc((size_t)p->nmsgs + 1, sizeof *x->msgs);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[all[k]];

		if (m->ctrl) {
			x->msgs_ctrl++;
			continue;
		}
		if (xtrace_rank(x, m->src) < 0 || xtrace_rank(x, m->dst) < 0 || m->src == m->dst) {
			x->msgs_unknown++;
			continue;
		}
		x->msgs[x->nmsgs++] = all[k];
		widen(x, m->t_ns, m->t_last_ns);
	}
	free(all);
	/* each rank's messages, in the same time order */
	x->rmsgs_first = xcalloc((size_t)p->nranks + 1, sizeof *x->rmsgs_first);
	x->rmsgs = xcalloc(2 * (size_t)x->nmsgs + 1, sizeof *x->rmsgs);
	for (long k = 0; k < x->nmsgs; k++) {
		x->rmsgs_first[xtrace_rank(x, p->msgs[x->msgs[k]].src) + 1]++;
		x->rmsgs_first[xtrace_rank(x, p->msgs[x->msgs[k]].dst) + 1]++;
	}
	for (int i = 0; i < p->nranks; i++)
		x->rmsgs_first[i + 1] += x->rmsgs_first[i];
	{
		long *fill = xcalloc((size_t)p->nranks + 1, sizeof *fill);

		for (long k = 0; k < x->nmsgs; k++) {
			int a = xtrace_rank(x, p->msgs[x->msgs[k]].src), b = xtrace_rank(x, p->msgs[x->msgs[k]].dst);

			x->rmsgs[x->rmsgs_first[a] + fill[a]++] = x->msgs[k];
			x->rmsgs[x->rmsgs_first[b] + fill[b]++] = x->msgs[k];
		}
		free(fill);
	}
}

static void
sort_phases(struct xtrace *x)
{
	const struct prof *p = &x->p;
	long n = 0;

	x->ph = xcalloc((size_t)(p->nbusy + p->nidle) + 1, sizeof *x->ph);
	for (int kind = 0; kind < 2; kind++) {
		const struct prof_busy *src = kind == 0 ? p->busy : p->idle;
		long cnt = kind == 0 ? p->nbusy : p->nidle;

		for (long k = 0; k < cnt; k++) {
			if (xtrace_rank(x, src[k].rank) < 0)
				continue;	/* a rank ranks.tsv left out */
			x->ph[n++] = (struct xt_phase){ .rank = src[k].rank, .busy = kind == 0,
							.t0_ns = src[k].t_start_ns, .t1_ns = src[k].t_end_ns,
							.run_ns = src[k].run_ns };
			widen(x, src[k].t_start_ns, src[k].t_end_ns);
		}
	}
	x->nph = n;
	qsort(x->ph, (size_t)n, sizeof *x->ph, cmp_phase);
	x->ph_first = xcalloc((size_t)p->nranks + 1, sizeof *x->ph_first);
	for (int i = 0, k = 0; i <= p->nranks; i++) {
		while (k < n && i < p->nranks && x->ph[k].rank < p->ranks[i].rank)
			k++;
		x->ph_first[i] = i == p->nranks ? n : k;
	}
}

/* clk_tck from RUN/meta/run.tsv; 100 when it cannot be read. */
static int64_t
run_clk_tck(const char *run)
{
	static const char *const cols[] = { "key", "value", NULL };
	char *path = xasprintf("%s/meta/run.tsv", run);
	struct tsv_r t;
	struct err e;
	int64_t tck = 100, v;

	if (tsv_r_open(&t, path, "meta", 1, cols, &e) == 0) {
		while (tsv_r_next(&t, &e) == 1)
			if (strcmp(tsv_r_str(&t, 0), "clk_tck") == 0 && tsv_r_i64(&t, 1, &v, &e) == 0 &&
			    v > 0 && v <= 1000000)
				tck = v;
		tsv_r_close(&t);
	}
	free(path);
	return tck;
}

/* The CPU time the run's ranks on host h spent in [a, b), from their phases' run_ns spread
 * evenly over each phase. cur[i] is a cursor into the phases of p.ranks[i] (intervals come
 * in time order per host). */
static double
ranks_run_ns(const struct xtrace *x, int h, int64_t a, int64_t b, long *cur)
{
	double sum = 0;

	for (int j = x->host_first[h]; j < x->host_first[h + 1]; j++) {
		int i = x->host_ranks[j];

		while (cur[i] < x->ph_first[i + 1] && x->ph[cur[i]].t1_ns <= a)
			cur[i]++;
		for (long k = cur[i]; k < x->ph_first[i + 1] && x->ph[k].t0_ns < b; k++) {
			const struct xt_phase *ph = &x->ph[k];
			int64_t lo = ph->t0_ns > a ? ph->t0_ns : a, hi = ph->t1_ns < b ? ph->t1_ns : b;

			if (hi > lo && ph->run_ns >= 0 && ph->t1_ns > ph->t0_ns)
				sum += (double)ph->run_ns * (double)(hi - lo) / (double)(ph->t1_ns - ph->t0_ns);
		}
	}
	return sum;
}

static const char *const load_cols[] = { "t_real_ns", "cpu_user", "cpu_nice", "cpu_system",
	"cpu_irq", "cpu_softirq", "cpu_steal", NULL };

/* RUN/samples/node-HOST.tsv.gz of host h into x->load; a missing file is no error, one
 * that is there but unreadable is counted in x->load_bad_files. */
static void
read_node_load(struct xtrace *x, const char *run, int h, int64_t tck, size_t *cap, long *cur)
{
	char *path = xasprintf("%s/samples/node-%s.tsv.gz", run, x->hosts[h]);
	int idx[7];
	int64_t prev_t = -1, prev_busy = 0;
	struct tsv_r t;
	struct err e;
	int rc;

	if ((rc = tsv_r_open_opt(&t, path, "nodeload", 1, load_cols, &e)) != 0) {
		if (rc < 0 && x->load_bad_files++ == 0)
			snprintf(x->load_bad_file, sizeof x->load_bad_file, "%s", e.msg);
		free(path);
		return;
	}
	free(path);
	for (int i = 0; i < 7; i++)
		idx[i] = tsv_r_col(&t, load_cols[i]);
	while ((rc = tsv_r_next(&t, &e)) != 0) {
		int64_t v[7], busy = 0;
		bool bad = false;

		if (rc < 0) {
			x->load_damaged++;
			if (rc == -E_FORMAT || rc == -E_LIMIT)
				continue;
			break;
		}
		for (int i = 0; i < 7; i++)
			if (tsv_r_i64(&t, idx[i], &v[i], &e) < 0 || v[i] < 0)
				bad = true;
		for (int i = 1; i < 7 && !bad; i++)
			busy += v[i];
		if (bad || (prev_t >= 0 && (v[0] <= prev_t || busy < prev_busy))) {
			x->load_damaged++;
			continue;
		}
		if (prev_t >= 0 && x->nload < XT_MAX_LOAD) {
			double dt_s = (double)(v[0] - prev_t) / 1e9;
			double cpus = (double)(busy - prev_busy) / (double)tck / dt_s;
			double own = ranks_run_ns(x, h, prev_t, v[0], cur) / 1e9 / dt_s;

			x->load = xgrow(x->load, cap, (size_t)x->nload + 1, sizeof *x->load);
			x->load[x->nload++] = (struct xt_load){ .host = h, .t0_ns = prev_t, .t1_ns = v[0],
								.busy_cpus = cpus,
								.foreign_cpus = cpus > own ? cpus - own : 0 };
		}
		prev_t = v[0];
		prev_busy = busy;
	}
	tsv_r_close(&t);
}

int
xtrace_load(struct xtrace *x, const char *run, struct err *e)
{
	size_t cap = 0;
	long *cur;
	int64_t tck;
	int rc;

	memset(x, 0, sizeof *x);
	x->t0_ns = INT64_MAX;
	x->t1_ns = INT64_MIN;
	if ((rc = prof_load(&x->p, run, e)) < 0)
		return rc;
	group_hosts(x);
	keep_messages(x);
	sort_phases(x);
	if (x->t0_ns > x->t1_ns)
		return err_set(e, E_FORMAT, "'%s' has no phase and no message between known ranks", run);
	tck = run_clk_tck(run);
	cur = xcalloc((size_t)x->p.nranks + 1, sizeof *cur);
	for (int h = 0; h < x->nhosts; h++) {
		for (int i = 0; i < x->p.nranks; i++)
			cur[i] = x->ph_first[i];
		read_node_load(x, run, h, tck, &cap, cur);
	}
	free(cur);
	if (x->nload > 0)
		qsort(x->load, (size_t)x->nload, sizeof *x->load, cmp_load);
	return 0;
}

void
xtrace_free(struct xtrace *x)
{
	if (x == NULL)
		return;
	prof_free(&x->p);
	free(x->hosts);
	free(x->host_of);
	free(x->host_ranks);
	free(x->host_first);
	free(x->rmsgs);
	free(x->rmsgs_first);
	free(x->rank_idx);
	free(x->msgs);
	free(x->ph);
	free(x->ph_first);
	free(x->load);
	memset(x, 0, sizeof *x);
}
