/* rollup: Figure 3 of paper 003 per rank, messages per link, and L/B for the comm split. */
#include "parse/rollup.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

void
rollup_init(struct rollup *p)
{
	memset(p, 0, sizeof *p);
}

void
rollup_release(struct rollup *p)
{
	free(p->ranks);
	free(p->links);
	free(p->rtt);
	free(p->bw);
	memset(p, 0, sizeof *p);
}

struct rollup_rank *
rollup_rank(struct rollup *p, int32_t rank)
{
	struct rollup_rank *r;

	if (rank < 0)
		return NULL;
	if (rank >= ROLLUP_MAX_RANKS) {
		p->ranks_over_cap++;
		return NULL;
	}
	if ((size_t)rank >= p->nranks) {
		size_t n = p->nranks, i;

		p->ranks = xgrow(p->ranks, &n, (size_t)rank + 1, sizeof *p->ranks);
		memset(p->ranks + p->nranks, 0, (n - p->nranks) * sizeof *p->ranks);
		for (i = p->nranks; i < n; i++) {
			p->ranks[i].t_first_msg_ns = INT64_MAX;
			p->ranks[i].t_last_msg_ns = INT64_MIN;
		}
		p->nranks = n;
	}
	r = &p->ranks[rank];
	r->present = true;
	return r;
}

static uint64_t
link_hash(int32_t s, int32_t d)
{
	uint64_t h = ((uint64_t)(uint32_t)s << 32 | (uint32_t)d) * 0x9E3779B97F4A7C15ULL;

	return h ^ (h >> 31);
}

static void
links_grow(struct rollup *p)
{
	struct rollup_link *old = p->links;
	size_t oldcap = p->links_cap, i;

	p->links_cap = oldcap ? oldcap * 2 : 256;
	p->links = xcalloc(p->links_cap, sizeof *p->links);
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (old[i].msgs == 0)
			continue;
		j = link_hash(old[i].src, old[i].dst) & (p->links_cap - 1);
		while (p->links[j].msgs != 0)
			j = (j + 1) & (p->links_cap - 1);
		p->links[j] = old[i];
	}
	free(old);
}

static struct rollup_link *
link_get(struct rollup *p, int32_t s, int32_t d)
{
	size_t j;

	if (p->nlinks * 2 >= p->links_cap) {
		if (p->nlinks >= ROLLUP_MAX_LINKS)
			goto full;
		links_grow(p);
	}
	j = link_hash(s, d) & (p->links_cap - 1);
	while (p->links[j].msgs != 0) {
		if (p->links[j].src == s && p->links[j].dst == d)
			return &p->links[j];
		j = (j + 1) & (p->links_cap - 1);
	}
	if (p->nlinks >= ROLLUP_MAX_LINKS)
		goto full;
	p->nlinks++;
	p->links[j].src = s;
	p->links[j].dst = d;
	p->links[j].t_first_ns = INT64_MAX;
	p->links[j].t_last_ns = INT64_MIN;
	p->links[j].cur_a_ns = INT64_MIN;
	return &p->links[j];
full:
	p->links_over_cap++;
	return NULL;
}

static void
add_sample(double **a, size_t *n, size_t *cap, double v)
{
	if (*n >= ROLLUP_MAX_SAMPLES)
		return;
	*a = xgrow(*a, cap, *n + 1, sizeof **a);
	(*a)[(*n)++] = v;
}

void
rollup_msg(struct rollup *p, const struct msg *m)
{
	struct rollup_rank *r;
	struct rollup_link *l;
	int64_t dur = m->t_last_ns - m->t_first_ns;

	if (m->proto == PROTO_CTRL) {
		p->ctrl_msgs++;
		return;
	}
	if (m->src_world < 0 || m->dst_world < 0) {
		p->unknown_rank_msgs++;
		p->unknown_rank_bytes += m->bytes;
	}
	if ((r = rollup_rank(p, m->src_world)) != NULL) {
		r->msgs_sent++;
		r->bytes_sent += m->bytes;
		if (m->t_first_ns < r->t_first_msg_ns)
			r->t_first_msg_ns = m->t_first_ns;
		if (m->t_last_ns > r->t_last_msg_ns)
			r->t_last_msg_ns = m->t_last_ns;
	}
	if ((r = rollup_rank(p, m->dst_world)) != NULL) {
		r->msgs_recv++;
		r->bytes_recv += m->bytes;
		if (m->t_first_ns < r->t_first_msg_ns)
			r->t_first_msg_ns = m->t_first_ns;
		if (m->t_last_ns > r->t_last_msg_ns)
			r->t_last_msg_ns = m->t_last_ns;
	}
	/* a link is a pair of known ranks; the rest is counted in unknown_rank_msgs */
	if (m->src_world >= 0 && m->dst_world >= 0 && (l = link_get(p, m->src_world, m->dst_world)) != NULL) {
		l->msgs++;
		l->bytes += m->bytes;
		if (m->t_first_ns < l->t_first_ns)
			l->t_first_ns = m->t_first_ns;
		if (m->t_last_ns > l->t_last_ns)
			l->t_last_ns = m->t_last_ns;
		/* messages of a link come nearly in time order: grow or close the interval */
		if (l->cur_a_ns != INT64_MIN && m->t_first_ns <= l->cur_b_ns) {
			if (m->t_last_ns > l->cur_b_ns)
				l->cur_b_ns = m->t_last_ns;
			if (m->t_first_ns < l->cur_a_ns)
				l->cur_a_ns = m->t_first_ns;
		} else {
			if (l->cur_a_ns != INT64_MIN)
				l->active_ns += l->cur_b_ns - l->cur_a_ns;
			l->cur_a_ns = m->t_first_ns;
			l->cur_b_ns = m->t_last_ns;
		}
	}
	if (m->wire_bytes >= ROLLUP_BW_MIN_BYTES && dur >= ROLLUP_BW_MIN_NS && !(m->flags & MSG_F_GAP))
		add_sample(&p->bw, &p->nbw, &p->bw_cap, (double)m->wire_bytes * 1e9 / (double)dur);
}

void
rollup_rtt(struct rollup *p, int64_t rtt_ns)
{
	if (rtt_ns > 0)
		add_sample(&p->rtt, &p->nrtt, &p->rtt_cap, (double)rtt_ns);
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of a[0..n), n > 0, nearest rank; sorts a. */
static double
quantile(double *a, size_t n, double q)
{
	size_t i;

	qsort(a, n, sizeof *a, dbl_cmp);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	return a[i < n ? i : n - 1];
}

void
rollup_netparams(struct rollup *p, double lat_opt_ns, double bw_opt_Bps, struct netparams *o)
{
	memset(o, 0, sizeof *o);
	o->lat_samples = p->nrtt;
	o->bw_samples = p->nbw;
	o->rtt_median_ns = p->nrtt ? quantile(p->rtt, p->nrtt, 0.5) : -1;
	if (lat_opt_ns > 0) {
		o->lat_ns = lat_opt_ns;
		o->lat_source = "option";
	} else if (p->nrtt) {
		o->lat_ns = o->rtt_median_ns / 2;
		o->lat_source = "handshake";
	} else {
		o->lat_ns = ROLLUP_DEFAULT_LAT_NS;
		o->lat_source = "default";
	}
	if (bw_opt_Bps > 0) {
		o->bw_Bps = bw_opt_Bps;
		o->bw_source = "option";
	} else if (p->nbw) {
		o->bw_Bps = quantile(p->bw, p->nbw, 0.9);
		o->bw_source = "transfers";
	} else {
		o->bw_Bps = ROLLUP_DEFAULT_BW_BPS;
		o->bw_source = "default";
	}
}

void
rollup_split(const struct rollup_rank *r, double lat_ns, double bw_Bps, struct rollup_split *o)
{
	uint64_t n = r->msgs_sent + r->msgs_recv;
	double bytes = (double)r->bytes_sent + (double)r->bytes_recv;
	double busy;

	memset(o, 0, sizeof *o);
	o->comm_raw_ns = (double)n * lat_ns + (bw_Bps > 0 ? bytes / bw_Bps * 1e9 : 0);
	if (r->has_cpu) {
		o->exec_ns = r->t_last_ns - r->t_first_ns;
		busy = (double)r->busy_ns;
		if (busy > (double)o->exec_ns)
			busy = (double)o->exec_ns;
		o->comm_ns = o->comm_raw_ns < busy ? o->comm_raw_ns : busy;
		o->comp_ns = busy - o->comm_ns;
		o->idle_ns = (double)o->exec_ns - busy;
	} else {
		/* no CPU samples: only the message span and the communication estimate */
		o->exec_ns = r->t_last_msg_ns > r->t_first_msg_ns ? r->t_last_msg_ns - r->t_first_msg_ns : 0;
		o->comm_ns = o->comm_raw_ns < (double)o->exec_ns ? o->comm_raw_ns : (double)o->exec_ns;
		o->comp_ns = -1;
		o->idle_ns = -1;
	}
}

static int
link_cmp(const void *a, const void *b)
{
	const struct rollup_link *x = *(const struct rollup_link *const *)a;
	const struct rollup_link *y = *(const struct rollup_link *const *)b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

struct rollup_link **
rollup_links_sorted(struct rollup *p)
{
	struct rollup_link **v = xcalloc(p->nlinks ? p->nlinks : 1, sizeof *v);
	size_t i, n = 0;

	for (i = 0; i < p->links_cap; i++) {
		struct rollup_link *l = &p->links[i];

		if (l->msgs == 0)
			continue;
		if (l->cur_a_ns != INT64_MIN) {
			l->active_ns += l->cur_b_ns - l->cur_a_ns;
			l->cur_a_ns = INT64_MIN;
		}
		v[n++] = l;
	}
	qsort(v, n, sizeof *v, link_cmp);
	return v;
}
