/* passive: the ENV logical network of a recorded run, inferred from its packets alone. */
#include "infer/passive.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/clock.h"
#include "lib/sortnum.h"
#include "lib/xalloc.h"

#define M PASV_MAX_HOSTS
#define MAX_CONNS 65536
#define MAX_GW 256

struct pasv_conn {
	int cap;			/* capture host */
	int lhost, rhost;		/* local (the capture's) and remote host */
	uint16_t lport, rport;
	int64_t syn_t_ns;		/* our SYN, 0 when none pending */
	bool pend;			/* a data segment is being timed */
	uint32_t pend_end;		/* its last sequence number + 1 */
	int64_t pend_t_ns;
	bool have_max;
	uint32_t max_end;		/* highest sequence end sent so far */
};

/* One span of time [a, b]. */
struct span {
	int64_t a, b;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

struct pasv_opts
pasv_opts_default(void)
{
	struct pasv_opts o = {
		.gap_min_ns = 20000000,		/* 20 ms */
		.gap_max_ns = 250000000,	/* 250 ms */
		.min_span_ns = 200000000,	/* 200 ms */
		.min_piece_ns = 10000000,	/* 10 ms */
		.min_flow_bytes = 1000000,
		.shared_below = 0.75,
		.indep_above = 0.85,
		.conserve = 0.7,
		.conf_ns = NS_PER_S,
		.exonerate = 1.5,
		.peak_window_ns = 100000000,	/* 100 ms */
		.max_samples = 50000000,
		.max_pairs = 200000,
	};
	return o;
}

void
pasv_init(struct pasv *p, const struct pasv_opts *o)
{
	memset(p, 0, sizeof *p);
	p->o = o ? *o : pasv_opts_default();
	p->hosts = xcalloc(M, sizeof *p->hosts);
	p->same_seg = xcalloc((size_t)M * M, sizeof *p->same_seg);
	p->via_gw = xcalloc((size_t)M * M, sizeof *p->via_gw);
	p->gw = xmallocarray((size_t)M * M, sizeof *p->gw);
	p->hops = xmallocarray((size_t)M * M, sizeof *p->hops);
	p->rtt_ns = xmallocarray((size_t)M * M, sizeof *p->rtt_ns);
	for (size_t i = 0; i < (size_t)M * M; i++) {
		p->gw[i] = -1;
		p->hops[i] = -1;
		p->rtt_ns[i] = -1;
	}
	p->gw_mac = xcalloc(MAX_GW, sizeof *p->gw_mac);
	p->root = -1;
}

void
pasv_release(struct pasv *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < p->nflow; i++)
		free(p->flows[i].s);
	free(p->flows);
	free(p->hosts);
	free(p->same_seg);
	free(p->via_gw);
	free(p->gw);
	free(p->hops);
	free(p->rtt_ns);
	free(p->gw_mac);
	free(p->conns);
	free(p->pairs);
	memset(p, 0, sizeof *p);
}

const char *
pasv_verdict_name(enum pasv_verdict v)
{
	switch (v) {
	case PASV_SHARED: return "shared";
	case PASV_INDEPENDENT: return "independent";
	case PASV_INCONCLUSIVE: return "inconclusive";
	default: return "untested";
	}
}

int
pasv_find_host(const struct pasv *p, const char *name)
{
	for (int i = 0; i < p->nhost; i++)
		if (strcmp(p->hosts[i].name, name) == 0)
			return i;
	return -1;
}

int
pasv_add_host(struct pasv *p, const char *name, bool has_capture, struct err *e)
{
	struct pasv_host *h;

	if (name == NULL || name[0] == '\0' || strlen(name) > GRAPH_NAME_MAX)
		return err_set(e, E_USAGE, "host name '%s' is empty or too long", name ? name : "");
	if (pasv_find_host(p, name) >= 0)
		return err_set(e, E_USAGE, "host '%s' given twice", name);
	if (p->nhost >= M)
		return err_set(e, E_LIMIT, "more than %d hosts", M);
	h = &p->hosts[p->nhost];
	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "%s", name);
	h->has_capture = has_capture;
	h->cluster = -1;
	return p->nhost++;
}

int
pasv_add_addr(struct pasv *p, int hi, const char *text, struct err *e)
{
	struct pasv_host *h;
	uint8_t a[16] = { 0 };
	int af;

	if (hi < 0 || hi >= p->nhost)
		return err_set(e, E_USAGE, "bad host index %d", hi);
	h = &p->hosts[hi];
	if (inet_pton(AF_INET, text, a) == 1)
		af = AF_INET;
	else if (inet_pton(AF_INET6, text, a) == 1)
		af = AF_INET6;
	else
		return err_set(e, E_FORMAT, "'%s' is not an IP address", text);
	if (pasv_host_of(p, af, a) == hi)
		return 0;
	if (h->naddr >= PASV_MAX_ADDRS)
		return err_set(e, E_LIMIT, "host '%s': more than %d addresses", h->name, PASV_MAX_ADDRS);
	memcpy(h->addr[h->naddr], a, 16);
	h->addr_af[h->naddr++] = af;
	return 0;
}

int
pasv_add_mac(struct pasv *p, int hi, const char *text, struct err *e)
{
	struct pasv_host *h;
	unsigned int b[6];
	char tail;

	if (hi < 0 || hi >= p->nhost)
		return err_set(e, E_USAGE, "bad host index %d", hi);
	h = &p->hosts[hi];
	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6)
		return err_set(e, E_FORMAT, "'%s' is not a MAC address", text);
	if (h->nmac >= PASV_MAX_MACS)
		return err_set(e, E_LIMIT, "host '%s': more than %d MACs", h->name, PASV_MAX_MACS);
	for (int i = 0; i < 6; i++)
		h->mac[h->nmac][i] = (uint8_t)b[i];
	h->nmac++;
	return 0;
}

int
pasv_host_of(const struct pasv *p, int af, const uint8_t *addr)
{
	size_t len = af == AF_INET ? 4 : 16;

	for (int i = 0; i < p->nhost; i++)
		for (int j = 0; j < p->hosts[i].naddr; j++)
			if (p->hosts[i].addr_af[j] == af && memcmp(p->hosts[i].addr[j], addr, len) == 0)
				return i;
	return -1;
}

static bool
host_has_mac(const struct pasv_host *h, const uint8_t *mac)
{
	for (int i = 0; i < h->nmac; i++)
		if (memcmp(h->mac[i], mac, 6) == 0)
			return true;
	return false;
}

static bool
any_host_has_mac(const struct pasv *p, const uint8_t *mac)
{
	for (int i = 0; i < p->nhost; i++)
		if (host_has_mac(&p->hosts[i], mac))
			return true;
	return false;
}

static int
gw_index(struct pasv *p, const uint8_t *mac)
{
	for (int i = 0; i < p->ngw; i++)
		if (memcmp(p->gw_mac[i], mac, 6) == 0)
			return i;
	if (p->ngw >= MAX_GW) {
		p->over_cap++;
		return -1;
	}
	memcpy(p->gw_mac[p->ngw], mac, 6);
	return p->ngw++;
}

int
pasv_find_flow(const struct pasv *p, int src, int dst)
{
	for (int i = 0; i < p->nflow; i++)
		if (p->flows[i].src == src && p->flows[i].dst == dst)
			return i;
	return -1;
}

int
pasv_flow_add(struct pasv *p, int src, int dst, int64_t t_ns, int64_t bytes, bool from_receiver,
	      struct err *e)
{
	struct pasv_flow *f;
	int fi;

	if (src < 0 || src >= p->nhost || dst < 0 || dst >= p->nhost || src == dst || bytes < 0)
		return err_set(e, E_USAGE, "bad flow %d -> %d", src, dst);
	if (p->nsamples >= p->o.max_samples) {
		p->over_cap++;
		return err_set(e, E_LIMIT, "more than %zu samples", p->o.max_samples);
	}
	fi = pasv_find_flow(p, src, dst);
	if (fi < 0) {
		size_t cap = (size_t)p->cap_flow_;

		p->flows = xgrow(p->flows, &cap, (size_t)p->nflow + 1, sizeof *p->flows);
		p->cap_flow_ = (int)cap;
		fi = p->nflow++;
		memset(&p->flows[fi], 0, sizeof p->flows[fi]);
		p->flows[fi].src = src;
		p->flows[fi].dst = dst;
		p->flows[fi].from_receiver = from_receiver;
	}
	f = &p->flows[fi];
	f->s = xgrow(f->s, &f->cap_, f->n + 1, sizeof *f->s);
	f->s[f->n++] = (struct pasv_sample){ t_ns, bytes };
	f->bytes += bytes;
	p->nsamples++;
	return 0;
}

/* ---- packets ----------------------------------------------------------------------------- */

static bool
seq_ge(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

static struct pasv_conn *
conn_get(struct pasv *p, int cap, int lhost, uint16_t lport, int rhost, uint16_t rport)
{
	struct pasv_conn *c;

	for (int i = p->nconn - 1; i >= 0; i--) {
		c = &p->conns[i];
		if (c->cap == cap && c->lhost == lhost && c->rhost == rhost && c->lport == lport &&
		    c->rport == rport)
			return c;
	}
	if (p->nconn >= MAX_CONNS) {
		p->over_cap++;
		return NULL;
	}
	{
		size_t cap_ = (size_t)p->cap_conn_;

		p->conns = xgrow(p->conns, &cap_, (size_t)p->nconn + 1, sizeof *p->conns);
		p->cap_conn_ = (int)cap_;
	}
	c = &p->conns[p->nconn++];
	memset(c, 0, sizeof *c);
	c->cap = cap;
	c->lhost = lhost;
	c->rhost = rhost;
	c->lport = lport;
	c->rport = rport;
	return c;
}

static void
rtt_sample(struct pasv *p, int a, int b, int64_t rtt_ns)
{
	if (rtt_ns <= 0)
		return;
	p->rtt_samples++;
	if (p->rtt_ns[a * M + b] < 0 || rtt_ns < p->rtt_ns[a * M + b])
		p->rtt_ns[a * M + b] = p->rtt_ns[b * M + a] = rtt_ns;
}

/* The usual initial TTLs; the hop count is the distance to the next one up. */
static int
ttl_hops(uint8_t ttl)
{
	static const int init[] = { 32, 64, 128, 255 };

	for (size_t i = 0; i < sizeof init / sizeof init[0]; i++)
		if (ttl <= init[i])
			return init[i] - ttl;
	return -1;
}

static void
round_trips(struct pasv *p, int cap, int hs, int hd, const struct pkt *k, int64_t t_ns)
{
	struct pasv_conn *c;
	bool out = hs == cap;

	if (out)
		c = conn_get(p, cap, hs, k->sport, hd, k->dport);
	else
		c = conn_get(p, cap, hd, k->dport, hs, k->sport);
	if (c == NULL)
		return;
	if (out) {
		if ((k->flags & PKT_TCP_SYN) && !(k->flags & PKT_TCP_ACK))
			c->syn_t_ns = t_ns;
		if (k->payload_wire > 0) {
			uint32_t end = k->seq + k->payload_wire;

			bool rexmit = c->have_max && seq_ge(c->max_end, end);

			if (rexmit && c->pend)
				c->pend = false;	/* a retransmission: Karn, drop the sample */
			else if (!c->pend && !rexmit) {
				c->pend = true;
				c->pend_end = end;
				c->pend_t_ns = t_ns;
			}
			if (!c->have_max || !seq_ge(c->max_end, end))
				c->max_end = end;
			c->have_max = true;
		}
	} else {
		if ((k->flags & PKT_TCP_SYN) && (k->flags & PKT_TCP_ACK) && c->syn_t_ns > 0) {
			rtt_sample(p, hs, hd, t_ns - c->syn_t_ns);
			c->syn_t_ns = 0;
		}
		if ((k->flags & PKT_TCP_ACK) && c->pend && seq_ge(k->ack, c->pend_end)) {
			rtt_sample(p, hs, hd, t_ns - c->pend_t_ns);
			c->pend = false;
		}
	}
}

void
pasv_packet(struct pasv *p, int cap, const struct pkt *k, int64_t t_ns)
{
	int hs, hd;

	p->packets++;
	hs = pasv_host_of(p, k->af, k->src);
	hd = pasv_host_of(p, k->af, k->dst);
	if (hs < 0 || hd < 0) {
		p->unknown_addr++;
		return;
	}
	if (hs == hd) {
		p->loopback++;
		return;
	}
	if (hd == cap) {
		/* link layer and TTL are read where the frame arrives */
		if (k->has_mac) {
			if (host_has_mac(&p->hosts[hs], k->smac)) {
				p->same_seg[hs * M + hd]++;
			} else if (!any_host_has_mac(p, k->smac)) {
				int g = gw_index(p, k->smac);

				p->via_gw[hs * M + hd]++;
				if (g >= 0)
					p->gw[hs * M + hd] = (int16_t)g;
			}
		}
		{
			int h = ttl_hops(k->ttl);

			if (h >= 0 && (p->hops[hs * M + hd] < 0 || h < p->hops[hs * M + hd]))
				p->hops[hs * M + hd] = (int16_t)h;
		}
	}
	if (hs == cap || hd == cap)
		round_trips(p, cap, hs, hd, k, t_ns);
	if (k->payload_wire > 0) {
		/* each transfer is measured at its receiver when it has a capture, else at its
		 * sender; never both, so nothing is counted twice */
		bool use = p->hosts[hd].has_capture ? hd == cap : hs == cap;

		if (use && pasv_flow_add(p, hs, hd, t_ns, k->payload_wire, hd == cap, NULL) < 0)
			return;
	}
}

/* ---- time spans -------------------------------------------------------------------------- */

static void
spans_push(struct spans *s, int64_t a, int64_t b)
{
	if (b <= a)
		return;
	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = (struct span){ a, b };
}

static int
cmp_sample(const void *a, const void *b)
{
	return sortnum_cmp_i64(&((const struct pasv_sample *)a)->t_ns,
			       &((const struct pasv_sample *)b)->t_ns);
}

void
pasv_flows_sort(struct pasv *p)
{
	for (int i = 0; i < p->nflow; i++)
		qsort(p->flows[i].s, p->flows[i].n, sizeof *p->flows[i].s, cmp_sample);
}

/* The silence after which flow f counts as idle: a few of its usual packet gaps, so a slow
 * transfer of large offloaded packets is not cut into pieces, within the configured bounds. */
static int64_t
flow_gap_ns(const struct pasv *p, const struct pasv_flow *f)
{
	int64_t *g, med, gap;
	size_t n = 0;

	if (f->n < 3)
		return p->o.gap_min_ns;
	g = xmallocarray(f->n - 1, sizeof *g);
	for (size_t i = 1; i < f->n; i++)
		g[n++] = f->s[i].t_ns - f->s[i - 1].t_ns;
	qsort(g, n, sizeof *g, sortnum_cmp_i64);
	med = g[n * 95 / 100];
	free(g);
	gap = 4 * med;
	if (gap < p->o.gap_min_ns)
		gap = p->o.gap_min_ns;
	if (gap > p->o.gap_max_ns)
		gap = p->o.gap_max_ns;
	return gap;
}

/* When flow f was active: maximal runs of samples no more than its gap apart. */
static void
flow_active(const struct pasv *p, const struct pasv_flow *f, struct spans *out)
{
	int64_t gap = flow_gap_ns(p, f);
	size_t i = 0;

	out->n = 0;
	while (i < f->n) {
		size_t j = i;

		while (j + 1 < f->n && f->s[j + 1].t_ns - f->s[j].t_ns <= gap)
			j++;
		spans_push(out, f->s[i].t_ns, f->s[j].t_ns);
		i = j + 1;
	}
}

static void
spans_and(const struct spans *x, const struct spans *y, struct spans *out)
{
	size_t i = 0, j = 0;

	out->n = 0;
	while (i < x->n && j < y->n) {
		int64_t a = x->v[i].a > y->v[j].a ? x->v[i].a : y->v[j].a;
		int64_t b = x->v[i].b < y->v[j].b ? x->v[i].b : y->v[j].b;

		spans_push(out, a, b);
		if (x->v[i].b < y->v[j].b)
			i++;
		else
			j++;
	}
}

static void
spans_minus(const struct spans *x, const struct spans *y, struct spans *out)
{
	size_t j = 0;

	out->n = 0;
	for (size_t i = 0; i < x->n; i++) {
		int64_t a = x->v[i].a, b = x->v[i].b;

		while (j < y->n && y->v[j].b <= a)
			j++;
		for (size_t k = j; k < y->n && y->v[k].a < b; k++) {
			spans_push(out, a, y->v[k].a);
			if (y->v[k].b > a)
				a = y->v[k].b;
		}
		spans_push(out, a, b);
	}
}

/* First sample of f after t_ns. */
static size_t
first_after(const struct pasv_flow *f, int64_t t_ns)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->s[mid].t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Rate of f over the pieces of s no shorter than min_piece: the bytes that arrived in
 * (a, b] over the summed lengths. *len_ns gets the length used. */
static double
flow_rate(const struct pasv *p, const struct pasv_flow *f, const struct spans *s, int64_t *len_ns)
{
	int64_t len = 0, bytes = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].b - s->v[i].a < p->o.min_piece_ns)
			continue;
		len += s->v[i].b - s->v[i].a;
		for (size_t k = first_after(f, s->v[i].a); k < f->n && f->s[k].t_ns <= s->v[i].b; k++)
			bytes += f->s[k].bytes;
	}
	*len_ns = len;
	return len > 0 ? (double)bytes * 1e9 / (double)len : NAN;
}

void
pasv_pair_test(const struct pasv *p, int fi, int gi, struct pasv_pair *r)
{
	const struct pasv_flow *f = &p->flows[fi], *g = &p->flows[gi];
	struct spans af = { 0 }, ag = { 0 }, ov = { 0 }, sf = { 0 }, sg = { 0 };
	int64_t len;
	double m;

	memset(r, 0, sizeof *r);
	r->f = fi;
	r->g = gi;
	r->ratio_f = r->ratio_g = NAN;
	r->rate_f_overlap_Bps = r->rate_f_solo_Bps = r->rate_g_overlap_Bps = r->rate_g_solo_Bps = NAN;
	r->verdict = PASV_UNTESTED;
	r->confidence = GRAPH_UNTESTED;
	flow_active(p, f, &af);
	flow_active(p, g, &ag);
	spans_and(&af, &ag, &ov);
	spans_minus(&af, &ag, &sf);
	spans_minus(&ag, &af, &sg);
	r->rate_f_overlap_Bps = flow_rate(p, f, &ov, &r->overlap_ns);
	r->rate_g_overlap_Bps = flow_rate(p, g, &ov, &len);
	r->rate_f_solo_Bps = flow_rate(p, f, &sf, &r->solo_f_ns);
	r->rate_g_solo_Bps = flow_rate(p, g, &sg, &r->solo_g_ns);
	free(af.v);
	free(ag.v);
	free(ov.v);
	free(sf.v);
	free(sg.v);
	if (r->overlap_ns < p->o.min_span_ns) {
		r->why = r->overlap_ns > 0 ? "too little overlap" : "never overlapped";
		return;
	}
	if (r->solo_f_ns < p->o.min_span_ns || r->solo_g_ns < p->o.min_span_ns) {
		r->why = "no time alone to compare with";
		return;
	}
	if (!(r->rate_f_solo_Bps > 0) || !(r->rate_g_solo_Bps > 0)) {
		r->why = "no data alone";
		return;
	}
	r->ratio_f = r->rate_f_overlap_Bps / r->rate_f_solo_Bps;
	r->ratio_g = r->rate_g_overlap_Bps / r->rate_g_solo_Bps;
	m = (r->ratio_f + r->ratio_g) / 2;
	/* the mean decides, but only when the two agree: one transfer keeping its rate while
	 * the other halves did not share a bottleneck with it (the other was slowed by
	 * something else, often its end host's CPU), and one halving is not "neither slowed" */
	if (m <= p->o.shared_below && fmax(r->ratio_f, r->ratio_g) < p->o.indep_above &&
	    r->rate_f_overlap_Bps + r->rate_g_overlap_Bps <
		    p->o.conserve * fmax(r->rate_f_solo_Bps, r->rate_g_solo_Bps)) {
		/* a shared capacity is divided, not lost: together they would have moved about
		 * what the faster moved alone */
		r->verdict = PASV_INCONCLUSIVE;
		r->why = "both slowed down, but together moved far less than either alone";
	} else if (m <= p->o.shared_below && fmax(r->ratio_f, r->ratio_g) < p->o.indep_above) {
		r->verdict = PASV_SHARED;
		r->why = "both slowed down together";
	} else if (m >= p->o.indep_above && fmin(r->ratio_f, r->ratio_g) > p->o.shared_below) {
		r->verdict = PASV_INDEPENDENT;
		r->why = "neither slowed down";
	} else {
		r->verdict = PASV_INCONCLUSIVE;
		r->why = m <= p->o.shared_below || m >= p->o.indep_above ?
				 "one slowed down, the other did not" : "slowed down in between";
	}
	{
		/* confidence: how much overlap was seen, times how far from the undecided band */
		double mid = (p->o.shared_below + p->o.indep_above) / 2;
		double dist = fabs(m - mid) / 0.15;

		r->confidence = (1 - exp(-(double)r->overlap_ns / (double)p->o.conf_ns)) *
				(dist > 1 ? 1 : dist);
		if (r->verdict == PASV_INCONCLUSIVE)
			r->confidence = 0;
	}
}

/* Highest total rate into (dir 1) or out of (dir 0) host h over any window. */
static double
host_peak(const struct pasv *p, int h, int dir)
{
	struct pasv_sample *all = NULL;
	size_t n = 0, cap = 0, lo = 0;
	int64_t sum = 0, best = 0;

	for (int i = 0; i < p->nflow; i++) {
		const struct pasv_flow *f = &p->flows[i];

		if ((dir == 0 ? f->src : f->dst) != h)
			continue;
		if (f->n == 0)
			continue;
		all = xgrow(all, &cap, n + f->n, sizeof *all);
		memcpy(all + n, f->s, f->n * sizeof *all);
		n += f->n;
	}
	if (n > 1)
		qsort(all, n, sizeof *all, cmp_sample);
	for (size_t i = 0; i < n; i++) {
		sum += all[i].bytes;
		while (all[i].t_ns - all[lo].t_ns >= p->o.peak_window_ns)
			sum -= all[lo++].bytes;
		/* the first sample of the window arrived before it began */
		if (sum - all[lo].bytes > best)
			best = sum - all[lo].bytes;
	}
	free(all);
	return (double)best * 1e9 / (double)p->o.peak_window_ns;
}

/* ---- structure --------------------------------------------------------------------------- */

static int
uf_find(int *par, int x)
{
	while (par[x] != x) {
		par[x] = par[par[x]];
		x = par[x];
	}
	return x;
}

static void
uf_union(int *par, int a, int b)
{
	a = uf_find(par, a);
	b = uf_find(par, b);
	if (a != b)
		par[a > b ? a : b] = a < b ? a : b;
}

/* Local networks: hosts whose frames reach each other with their own MACs (or, without
 * link-layer addresses, with no hop on the way) share a segment. Numbered from 0 in host
 * order into hosts[].cluster; returns their number. */
static int
make_clusters(struct pasv *p)
{
	int par[M], id[M], n = 0;

	for (int i = 0; i < p->nhost; i++)
		par[i] = i;
	for (int a = 0; a < p->nhost; a++)
		for (int b = 0; b < p->nhost; b++) {
			if (a == b)
				continue;
			if (p->same_seg[a * M + b] > 0 ||
			    (p->via_gw[a * M + b] == 0 && p->hops[a * M + b] == 0))
				uf_union(par, a, b);
		}
	/* hosts that receive frames from the same gateway MAC sit on that gateway's segment,
	 * even when they never talked to each other */
	for (int a = 0; a < p->nhost; a++)
		for (int s = 0; s < p->nhost; s++) {
			int ga = p->gw[s * M + a];

			if (ga < 0)
				continue;
			for (int b = a + 1; b < p->nhost; b++)
				for (int t = 0; t < p->nhost; t++)
					if (p->gw[t * M + b] == ga)
						uf_union(par, a, b);
		}
	for (int i = 0; i < p->nhost; i++)
		id[i] = -1;
	for (int i = 0; i < p->nhost; i++) {
		int r = uf_find(par, i);

		if (id[r] < 0)
			id[r] = n++;
		p->hosts[i].cluster = id[r];
	}
	return n;
}

static bool
flow_big(const struct pasv *p, const struct pasv_flow *f)
{
	return f->bytes >= p->o.min_flow_bytes;
}

static bool
crosses(const struct pasv *p, const struct pasv_flow *f)
{
	return p->hosts[f->src].cluster != p->hosts[f->dst].cluster;
}

/* From the same local network to the same other one. Links are full duplex (switched
 * Ethernet, a tbf on each end of a veth): transfers in opposite directions use different
 * capacity, so they are not ENV pairs and would only add false "independent" votes. */
static bool
same_path(const struct pasv *p, const struct pasv_flow *f, const struct pasv_flow *g)
{
	int a = p->hosts[f->src].cluster, b = p->hosts[f->dst].cluster;
	int c = p->hosts[g->src].cluster, d = p->hosts[g->dst].cluster;

	return a == c && b == d;
}

void
pasv_analyze(struct pasv *p)
{
	p->npair = 0;
	pasv_flows_sort(p);
	make_clusters(p);
	for (int h = 0; h < p->nhost; h++) {
		p->hosts[h].peak_out_Bps = host_peak(p, h, 0);
		p->hosts[h].peak_in_Bps = host_peak(p, h, 1);
	}
	/* ENV's pairs: two transfers from one host (its root test) or into one host (the same
	 * test seen from the other end), or two transfers between the same two local networks */
	for (int i = 0; i < p->nflow; i++) {
		const struct pasv_flow *f = &p->flows[i];

		if (!flow_big(p, f))
			continue;
		for (int j = i + 1; j < p->nflow; j++) {
			const struct pasv_flow *g = &p->flows[j];
			size_t cap;

			if (!flow_big(p, g))
				continue;
			if (!(f->src == g->src || f->dst == g->dst ||
			      (crosses(p, f) && crosses(p, g) && same_path(p, f, g))))
				continue;
			if (p->npair >= p->o.max_pairs) {
				p->pairs_refused++;
				continue;
			}
			cap = (size_t)p->cap_pair_;
			p->pairs = xgrow(p->pairs, &cap, (size_t)p->npair + 1, sizeof *p->pairs);
			p->cap_pair_ = (int)cap;
			pasv_pair_test(p, i, j, &p->pairs[p->npair++]);
		}
	}
}

/* ---- the ENV graph ----------------------------------------------------------------------- */

#define EV_MAX_CAPS 256

/* What the pair tests said about one shared resource. */
struct ev {
	double w_shared, w_indep;	/* summed confidences */
	int n_shared, n_indep, n_other;	/* tests: shared, independent, inconclusive/untested */
	double caps[EV_MAX_CAPS];	/* aggregate rates of the shared tests */
	int ncap;
	int64_t overlap_ns;		/* overlap seen by decided tests */
};

static void
ev_add(struct ev *v, const struct pasv_pair *r, double agg_Bps)
{
	if (r->verdict == PASV_SHARED) {
		v->n_shared++;
		v->w_shared += r->confidence;
		if (v->ncap < EV_MAX_CAPS)
			v->caps[v->ncap++] = agg_Bps;
		v->overlap_ns += r->overlap_ns;
	} else if (r->verdict == PASV_INDEPENDENT) {
		v->n_indep++;
		v->w_indep += r->confidence;
		v->overlap_ns += r->overlap_ns;
	} else {
		v->n_other++;
	}
}

static double
ev_cap(struct ev *v)
{
	return sortnum_median(v->caps, (size_t)v->ncap);
}

/* Shared wins when its tests outweigh the independent ones; the confidence is the winning
 * share of the weight times how much overlap was seen. */
static bool
ev_shared(const struct ev *v)
{
	return v->n_shared > 0 && v->w_shared >= v->w_indep;
}

static double
ev_conf(const struct ev *v, const struct pasv_opts *o)
{
	double w = v->w_shared + v->w_indep;
	double share = ev_shared(v) ? v->w_shared / w : v->w_indep / w;

	if (v->n_shared + v->n_indep == 0 || !(w > 0))
		return GRAPH_UNTESTED;
	return share * (1 - exp(-(double)v->overlap_ns / (double)o->conf_ns));
}

/* Rate of flow f over its whole active time: its effective throughput. */
static double
flow_throughput(const struct pasv *p, const struct pasv_flow *f)
{
	struct spans a = { 0 };
	int64_t len;
	double r;

	flow_active(p, f, &a);
	r = flow_rate(p, f, &a, &len);
	free(a.v);
	return r;
}

static void
fmt_rate(char *out, size_t n, double Bps)
{
	if (!(Bps >= 0))
		snprintf(out, n, "?");
	else if (Bps >= 1e9)
		snprintf(out, n, "%.2f GB/s", Bps / 1e9);
	else if (Bps >= 1e6)
		snprintf(out, n, "%.2f MB/s", Bps / 1e6);
	else
		snprintf(out, n, "%.1f kB/s", Bps / 1e3);
}

struct build {
	struct pasv *p;
	int nc;				/* local networks */
	struct ev *local;		/* [nc]: tests inside one network */
	struct ev *path;		/* [nc * nc], [min * nc + max]: tests between two networks */
	struct ev *hostlim;		/* [nhost]: tests limited by a common end host */
	double *best_local;		/* [nc] best transfer inside */
	double *best_path;		/* [nc * nc] best transfer between */
	int64_t *rtt_local, *rtt_path;	/* least round trips, -1 none */
	int64_t unplaced;		/* shared tests that fit no resource */
	int shared_side[M * 2];		/* [nc]: 1 the network beyond a shared bottleneck */
	int *net_idx;			/* [nc]: the graph's index of each local network */
	int gpar[MAX_GW];		/* gateways grouped into routers (union-find) */
	int *router_of_gw;		/* [ngw]: the graph's router of a group's root, -1 none */
};

static void
place_pair(struct build *b, const struct pasv_pair *r)
{
	const struct pasv *p = b->p;
	const struct pasv_flow *f = &p->flows[r->f], *g = &p->flows[r->g];
	double agg = r->rate_f_overlap_Bps + r->rate_g_overlap_Bps;
	bool host_lim = false, path = crosses(p, f) && crosses(p, g) && same_path(p, f, g);
	int cf = p->hosts[f->src].cluster;

	if (r->verdict == PASV_SHARED) {
		/* a common end host that was seen moving much more than both together is not
		 * what they shared */
		if (f->src == g->src && !(p->hosts[f->src].peak_out_Bps >= p->o.exonerate * agg)) {
			host_lim = true;
			ev_add(&b->hostlim[f->src], r, agg);
		}
		if (f->dst == g->dst && !(p->hosts[f->dst].peak_in_Bps >= p->o.exonerate * agg)) {
			host_lim = true;
			ev_add(&b->hostlim[f->dst], r, agg);
		}
		if (host_lim)
			return;
	}
	if (path) {
		int x = p->hosts[f->src].cluster, y = p->hosts[f->dst].cluster;
		int lo = x < y ? x : y, hi = x < y ? y : x;

		ev_add(&b->path[lo * b->nc + hi], r, agg);
	} else if (!crosses(p, f) && !crosses(p, g) && p->hosts[g->src].cluster == cf) {
		ev_add(&b->local[cf], r, agg);
	} else if (r->verdict == PASV_SHARED) {
		b->unplaced++;
	}
}

static char *
host_note(const struct build *b, int h)
{
	const struct pasv_host *ho = &b->p->hosts[h];
	char out[64], in[64], cap[64], note[GRAPH_NOTE_MAX];
	int off;

	fmt_rate(out, sizeof out, ho->peak_out_Bps);
	fmt_rate(in, sizeof in, ho->peak_in_Bps);
	off = snprintf(note, sizeof note, "%s%s%speak out %s, in %s over %.0f ms",
		       ho->ranks[0] ? "ranks " : "", ho->ranks, ho->ranks[0] ? "; " : "", out, in,
		       (double)b->p->o.peak_window_ns / 1e6);
	if (b->hostlim[h].n_shared > 0 && off > 0 && (size_t)off < sizeof note) {
		fmt_rate(cap, sizeof cap, ev_cap(&b->hostlim[h]));
		snprintf(note + off, sizeof note - (size_t)off,
			 "; %d overlapping transfer pairs were limited by this host itself (%s together)",
			 b->hostlim[h].n_shared, cap);
	}
	if (h == b->p->root && off > 0 && (size_t)off < sizeof note)
		snprintf(note + strlen(note), sizeof note - strlen(note), "; ENV root (rank 0)");
	return xstrdup(note);
}

/* A local network's or a link's attributes from its evidence. what: "among its hosts" etc. */
static void
attr_from_ev(const struct pasv *p, struct ev *v, double best_Bps, int64_t rtt_ns, int lat_div,
	     const char *what, struct graph_attr *a, char *note, size_t notelen)
{
	char r1[64], r2[64];

	*a = graph_attr_unknown();
	if (rtt_ns > 0)
		a->lat_ns = rtt_ns / 2 / lat_div;
	fmt_rate(r2, sizeof r2, best_Bps);
	if (ev_shared(v)) {
		a->bw_Bps = ev_cap(v);
		a->confidence = ev_conf(v, &p->o);
		fmt_rate(r1, sizeof r1, a->bw_Bps);
		snprintf(note, notelen,
			 "shared bottleneck %s: %s together (%d of %d overlap tests shared, %d independent, "
			 "%.1f s of overlap)", what, r1, v->n_shared, v->n_shared + v->n_indep + v->n_other,
			 v->n_indep, (double)v->overlap_ns / 1e9);
	} else if (v->n_indep > 0) {
		a->bw_Bps = best_Bps >= 0 ? best_Bps : NAN;
		a->confidence = ev_conf(v, &p->o);
		snprintf(note, notelen,
			 "independent %s: overlapping transfers did not slow each other (%d tests, "
			 "%.1f s of overlap); capacity at least %s (best transfer)", what, v->n_indep,
			 (double)v->overlap_ns / 1e9, r2);
	} else {
		a->bw_Bps = best_Bps >= 0 ? best_Bps : NAN;
		a->confidence = GRAPH_UNTESTED;
		if (best_Bps >= 0)
			snprintf(note, notelen, "untested %s: no overlapping transfers to compare%s; "
				 "best single transfer %s", what, v->n_other ? " long enough" : "", r2);
		else
			snprintf(note, notelen, "untested %s: the run moved no bulk data here; capacity "
				 "unknown", what);
	}
	if (rtt_ns <= 0 && strlen(note) + 40 < notelen)
		snprintf(note + strlen(note), notelen - strlen(note), "; latency unknown (no round trip seen)");
}

/* The evidence per local network and per path: the shared tests placed, the best transfer
 * and the least round trip seen inside each network and between each two. */
static void
build_evidence(struct build *b)
{
	const struct pasv *p = b->p;
	int nc = b->nc;

	b->local = xcalloc((size_t)nc, sizeof *b->local);
	b->path = xcalloc((size_t)nc * (size_t)nc, sizeof *b->path);
	b->hostlim = xcalloc((size_t)p->nhost, sizeof *b->hostlim);
	b->best_local = xmallocarray((size_t)nc, sizeof *b->best_local);
	b->best_path = xmallocarray((size_t)nc * (size_t)nc, sizeof *b->best_path);
	b->rtt_local = xmallocarray((size_t)nc, sizeof *b->rtt_local);
	b->rtt_path = xmallocarray((size_t)nc * (size_t)nc, sizeof *b->rtt_path);
	for (int i = 0; i < nc; i++) {
		b->best_local[i] = -1;
		b->rtt_local[i] = -1;
	}
	for (int i = 0; i < nc * nc; i++) {
		b->best_path[i] = -1;
		b->rtt_path[i] = -1;
	}
	for (int i = 0; i < p->npair; i++)
		place_pair(b, &p->pairs[i]);
	for (int i = 0; i < p->nflow; i++) {
		const struct pasv_flow *f = &p->flows[i];
		int x = p->hosts[f->src].cluster, y = p->hosts[f->dst].cluster;
		double t;

		if (!flow_big(p, f))
			continue;
		t = flow_throughput(p, f);
		if (!(t >= 0))
			continue;
		if (x == y) {
			if (t > b->best_local[x])
				b->best_local[x] = t;
		} else {
			int k = (x < y ? x : y) * nc + (x < y ? y : x);

			if (t > b->best_path[k])
				b->best_path[k] = t;
		}
	}
	for (int a = 0; a < p->nhost; a++)
		for (int c = 0; c < p->nhost; c++) {
			int64_t r = p->rtt_ns[a * M + c];
			int x = p->hosts[a].cluster, y = p->hosts[c].cluster;
			int64_t *slot;

			if (a == c || r <= 0)
				continue;
			slot = x == y ? &b->rtt_local[x] :
					&b->rtt_path[(x < y ? x : y) * nc + (x < y ? y : x)];
			if (*slot < 0 || r < *slot)
				*slot = r;
		}

	/* ENV's view from the root: a bottleneck between two local networks is the shared
	 * capacity of the one without the root (the root's hosts reach it through it) */
	for (int x = 0; x < nc; x++)
		for (int y = x + 1; y < nc; y++)
			if (ev_shared(&b->path[x * nc + y])) {
				int rc_ = p->root >= 0 ? p->hosts[p->root].cluster : -1;

				b->shared_side[rc_ == x ? y : rc_ == y ? x : y] = 1;
			}
}

/* The local networks, then the hosts on them. Returns 0 or a negative error. */
static int
add_nets(struct build *b, struct graph *g, struct err *e)
{
	const struct pasv *p = b->p;
	char note[GRAPH_NOTE_MAX], name[GRAPH_NAME_MAX + 1];
	int rc = 0;

	b->net_idx = xmallocarray((size_t)b->nc, sizeof *b->net_idx);
	for (int x = 0; x < b->nc && rc == 0; x++) {
		struct graph_attr a;
		struct ev *use = &b->local[x];
		char hosts[400] = "", what[600];
		double best = b->best_local[x];

		for (int h = 0, off = 0; h < p->nhost; h++)
			if (p->hosts[h].cluster == x && off >= 0 && (size_t)off < sizeof hosts)
				off += snprintf(hosts + off, sizeof hosts - (size_t)off, "%s%s",
						off ? ", " : "", p->hosts[h].name);
		if (b->shared_side[x]) {
			for (int y = 0; y < b->nc; y++) {
				int k = (x < y ? x : y) * b->nc + (x < y ? y : x);

				if (y != x && ev_shared(&b->path[k])) {
					use = &b->path[k];
					best = b->best_path[k];
					break;
				}
			}
		}
		snprintf(what, sizeof what, b->shared_side[x] ? "(%s reach the rest through it)" :
			 "among its hosts (%s)", hosts);
		attr_from_ev(p, use, best, b->rtt_local[x], 1, what, &a, note, sizeof note);
		a.note = note;
		snprintf(name, sizeof name, "lan%d", x + 1);
		rc = graph_add_net(g, name, &a, e);
		b->net_idx[x] = rc;
		if (rc >= 0)
			rc = 0;
	}
	for (int h = 0; h < p->nhost && rc == 0; h++) {
		char *hn = host_note(b, h);

		rc = graph_add_host(g, p->hosts[h].name, b->net_idx[p->hosts[h].cluster], NAN, NAN, hn, e);
		free(hn);
		if (rc >= 0)
			rc = 0;
	}
	return rc;
}

/* Routers: gateway MACs seen at the two ends of a one-hop path are one router. Groups the
 * gateways; the routers themselves are added when a path first goes through them. */
static void
group_gateways(struct build *b)
{
	const struct pasv *p = b->p;

	for (int i = 0; i < p->ngw; i++)
		b->gpar[i] = i;
	for (int a = 0; a < p->nhost; a++)
		for (int c = 0; c < p->nhost; c++) {
			int g1 = p->gw[a * M + c], g2 = p->gw[c * M + a];

			if (g1 >= 0 && g2 >= 0 && (p->hops[a * M + c] == 1 || p->hops[c * M + a] == 1))
				uf_union(b->gpar, g1, g2);
		}
	b->router_of_gw = xmallocarray((size_t)(p->ngw ? p->ngw : 1), sizeof *b->router_of_gw);
	for (int i = 0; i < p->ngw; i++)
		b->router_of_gw[i] = -1;
}

/* The router of gateway gwi's group, added on first use. Returns its index or a negative
 * error. */
static int
path_router(struct build *b, struct graph *g, int gwi, int hops, struct err *e)
{
	const struct pasv *p = b->p;
	int root_gw = uf_find(b->gpar, gwi), r = b->router_of_gw[root_gw];
	char macs[300] = "", note[GRAPH_NOTE_MAX], name[GRAPH_NAME_MAX + 1];

	if (r >= 0)
		return r;
	for (int i = 0, off = 0; i < p->ngw; i++)
		if (uf_find(b->gpar, i) == root_gw && off >= 0 && (size_t)off < sizeof macs)
			off += snprintf(macs + off, sizeof macs - (size_t)off,
					"%s%02x:%02x:%02x:%02x:%02x:%02x",
					off ? ", " : "", p->gw_mac[i][0], p->gw_mac[i][1], p->gw_mac[i][2],
					p->gw_mac[i][3], p->gw_mac[i][4], p->gw_mac[i][5]);
	snprintf(name, sizeof name, "router%d", g->nrouter + 1);
	snprintf(note, sizeof note, "gateway MACs %s; %d hop(s) by TTL", macs, hops);
	r = graph_add_router(g, name, note, e);
	if (r >= 0)
		b->router_of_gw[root_gw] = r;
	return r;
}

/* The link(s) between local networks x < y if they exchanged frames: one to the router of
 * their gateway from each side when a gateway was seen, else one link between them. Returns
 * 0 or a negative error. */
static int
add_path(struct build *b, struct graph *g, int x, int y, struct err *e)
{
	const struct pasv *p = b->p;
	int k = x * b->nc + y, gwi = -1, hops = -1, sx, sy, r;
	bool seen = false;
	struct graph_attr a;
	struct graph_end ex = { GRAPH_END_NET, b->net_idx[x] }, ey = { GRAPH_END_NET, b->net_idx[y] };
	char what[200], note[GRAPH_NOTE_MAX], name[GRAPH_NAME_MAX + 1];

	for (int h1 = 0; h1 < p->nhost; h1++)
		for (int h2 = 0; h2 < p->nhost; h2++) {
			if (p->hosts[h1].cluster != x || p->hosts[h2].cluster != y)
				continue;
			if (p->via_gw[h1 * M + h2] || p->via_gw[h2 * M + h1] ||
			    p->hops[h1 * M + h2] >= 0 || p->hops[h2 * M + h1] >= 0)
				seen = true;
			if (gwi < 0 && p->gw[h2 * M + h1] >= 0)
				gwi = p->gw[h2 * M + h1];
			if (gwi < 0 && p->gw[h1 * M + h2] >= 0)
				gwi = p->gw[h1 * M + h2];
			if (p->hops[h1 * M + h2] >= 0 && (hops < 0 || p->hops[h1 * M + h2] < hops))
				hops = p->hops[h1 * M + h2];
		}
	if (!seen && b->best_path[k] < 0)
		return 0;
	if (gwi < 0) {
		snprintf(name, sizeof name, "lan%d--lan%d", x + 1, y + 1);
		snprintf(what, sizeof what, "between lan%d and lan%d (%d hops)", x + 1, y + 1, hops);
		attr_from_ev(p, &b->path[k], b->best_path[k], b->rtt_path[k], 1, what, &a, note, sizeof note);
		a.note = note;
		r = graph_add_link(g, name, ex, ey, &a, e);
		return r < 0 ? r : 0;
	}
	sx = b->shared_side[x] && ev_shared(&b->path[k]);
	sy = !sx && ev_shared(&b->path[k]);
	r = path_router(b, g, gwi, hops, e);
	if (r < 0)
		return r;
	for (int side = 0; side < 2; side++) {
		int cl = side == 0 ? x : y, rcl;
		bool holds = side == 0 ? sx : sy;
		struct graph_end en = side == 0 ? ex : ey;
		struct graph_end er = { GRAPH_END_ROUTER, r };
		struct ev none = { 0 };

		snprintf(name, sizeof name, "lan%d--router%d", cl + 1, r + 1);
		if (graph_find_link(g, name) >= 0)
			continue;
		if (holds || !ev_shared(&b->path[k])) {
			snprintf(what, sizeof what, "on the path lan%d--lan%d", x + 1, y + 1);
			attr_from_ev(p, &b->path[k], b->best_path[k], b->rtt_path[k], 2, what, &a, note,
				     sizeof note);
			if (strlen(note) + 60 < sizeof note)
				snprintf(note + strlen(note), sizeof note - strlen(note),
					 "; latency: half the path's one-way latency");
		} else {
			attr_from_ev(p, &none, -1, b->rtt_path[k], 2, "", &a, note, sizeof note);
			snprintf(note, sizeof note,
				 "untested: every transfer across also crossed the shared bottleneck beside "
				 "lan%d, so this link's own capacity is at least that; latency: half the "
				 "path's one-way latency", (sx ? x : y) + 1);
		}
		a.note = note;
		rcl = graph_add_link(g, name, en, er, &a, e);
		if (rcl < 0)
			return rcl;
	}
	return 0;
}

int
pasv_build_graph(struct pasv *p, struct graph *g, struct err *e)
{
	struct build b = { .p = p };
	int rc;

	graph_init_empty(g, 0);
	if (p->nhost == 0)
		return err_set(e, E_FORMAT, "no hosts");
	pasv_analyze(p);
	b.nc = make_clusters(p);
	build_evidence(&b);
	rc = add_nets(&b, g, e);
	group_gateways(&b);
	/* links between local networks that exchanged frames */
	for (int x = 0; x < b.nc && rc == 0; x++)
		for (int y = x + 1; y < b.nc && rc == 0; y++)
			rc = add_path(&b, g, x, y, e);
	free(b.router_of_gw);
	free(b.net_idx);
	free(b.local);
	free(b.path);
	free(b.hostlim);
	free(b.best_local);
	free(b.best_path);
	free(b.rtt_local);
	free(b.rtt_path);
	return rc < 0 ? rc : 0;
}
