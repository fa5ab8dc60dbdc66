/* replay: a run's own message trace replayed under a scenario (see replay.h). */
#include "predict/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/p000.h"
#include "predict/p003.h"

/* The grain of the busy phases: CPU samples every 20 ms make a phase start up to one
 * interval before what started it. */
#define REPLAY_GRAIN_NS 20000000LL

/* One rank's busy phases, sorted, with the busy time before each. */
struct busy_list {
	long n;
	const struct prof_busy **ph;	/* into prof->busy */
	double *before_ns;		/* busy time of the phases before ph[i] */
};

/* One rank's send times, sorted. */
struct sends {
	long n;
	int64_t *t_ns;
};

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The rank's first send at or after t, or INT64_MAX. */
static int64_t
next_send(const struct sends *sd, int64_t t)
{
	long lo = 0, hi = sd->n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (sd->t_ns[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sd->n ? sd->t_ns[lo] : INT64_MAX;
}

/* One send or receive. */
struct ev {
	int64_t t_ns;		/* dedicated time: departure, or when the receive was needed */
	long msg;		/* index into prof->msgs */
	int rank;		/* index into prof->ranks */
	int recv;		/* 0 send, 1 receive (sends first at equal times) */
};

static int
cmp_busy(const void *a, const void *b)
{
	const struct prof_busy *x = *(const struct prof_busy *const *)a, *y = *(const struct prof_busy *const *)b;

	return (x->t_start_ns > y->t_start_ns) - (x->t_start_ns < y->t_start_ns);
}

static int
cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
	if (x->recv != y->recv)
		return x->recv - y->recv;
	return (x->msg > y->msg) - (x->msg < y->msg);
}

/* The index of the last phase starting at or before t, or -1. */
static long
phase_at(const struct busy_list *b, int64_t t)
{
	long lo = 0, hi = b->n - 1, at = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (b->ph[mid]->t_start_ns <= t) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return at;
}

/* Busy time before t. */
static double
busy_before(const struct busy_list *b, int64_t t)
{
	long i = phase_at(b, t);
	const struct prof_busy *x;

	if (i < 0)
		return 0;
	x = b->ph[i];
	return b->before_ns[i] + (double)((t < x->t_end_ns ? t : x->t_end_ns) - x->t_start_ns);
}

/* The busy phase t falls in, or NULL. */
static const struct prof_busy *
in_busy(const struct busy_list *b, int64_t t)
{
	long i = phase_at(b, t);

	return i < 0 || t >= b->ph[i]->t_end_ns ? NULL : b->ph[i];
}

/* The end of the last busy phase ending at or before t, or INT64_MIN. */
static int64_t
busy_end_before(const struct busy_list *b, int64_t t)
{
	long i = phase_at(b, t);

	if (i < 0)
		return INT64_MIN;
	if (b->ph[i]->t_end_ns <= t)
		return b->ph[i]->t_end_ns;
	return i > 0 ? b->ph[i - 1]->t_end_ns : INT64_MIN;
}

/* The CPU stretch of a rank's busy time under the scenario: paper 000's local slowdown
 * (eq. 2: k CPU-bound competitors give k + 1; communicating ones add their delay_comm),
 * or 1 + L for a load average L; divided by the CPU capacity left. */
static double
stretch(const struct scen *s, const struct prof_rank *rk, const struct p000_delay *d)
{
	const struct scen_node *n = scen_node_for(s, rk->rank, rk->host);
	bool extrap;
	double f;

	if (n == NULL)
		return 1;
	if (n->cpu_procs == 0 && n->ncomm == 0 && !isnan(n->load_avg) && n->load_avg > 0) {
		f = 1 + n->load_avg;
		if (!isnan(n->capacity) && n->capacity > 0)
			f /= n->capacity;
		return f;
	}
	return p000_node_sd(n, d, &extrap);
}

/* The index of host name h among hosts[0..*n), added when new. */
static int
host_index(const char **hosts, int *n, const char *h)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(hosts[i], h) == 0)
			return i;
	hosts[*n] = h;
	return (*n)++;
}

int
replay_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	struct busy_list *bl;
	struct sends *sd;
	struct ev *ev;
	double *D, *f, *dmsg, *egress, *ingress, *busy_prev;
	int64_t *prev;
	const char **hosts;
	int *host;
	int nhosts = 0, worst = -1;
	long nev = 0, nchanged = 0;
	double T = (double)prof_dedicated_ns(p), best = -INFINITY;
	bool any = false;
	struct p000_delay curves;
	int rc;

	r->dedicated_ns = T;
	snprintf(r->equation, sizeof r->equation, "trace replay");
	if (!p->have_msgs || p->nmsgs == 0)
		return pred_na(r, "the replay needs the run's messages ('%s/profile/messages.tsv')", p->run);
	if (!p->have_phases || p->nbusy == 0)
		return pred_na(r, "the replay needs the run's busy phases ('%s/profile/phases.tsv')", p->run);
	if (s->nlinks > 0 && !p->have_net)
		return pred_na(r, "the scenario changes links, and the replay needs the run's measured "
			       "latency and bandwidth ('%s/profile/netparams.tsv')", p->run);
	if ((rc = p000_scenario_curves(s, &curves, e)) < 0)
		return rc;
	f = xcalloc((size_t)p->nranks, sizeof *f);
	for (int i = 0; i < p->nranks; i++) {
		f[i] = stretch(s, &p->ranks[i], &curves);
		any |= f[i] != 1;
	}
	if (!any && s->nlinks == 0) {
		free(f);
		return pred_na(r, "the scenario changes nothing the replay sees (CPU-bound competitors, "
			       "load average, CPU capacity, link latency or bandwidth)");
	}

	/* each rank's busy phases in time order, with the busy time before each */
	bl = xcalloc((size_t)p->nranks, sizeof *bl);
	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_rank *rk = prof_rank(p, p->busy[k].rank);

		if (rk != NULL)
			bl[rk - p->ranks].n++;
	}
	for (int i = 0; i < p->nranks; i++) {
		bl[i].ph = xcalloc((size_t)bl[i].n + 1, sizeof *bl[i].ph);
		bl[i].before_ns = xcalloc((size_t)bl[i].n + 1, sizeof *bl[i].before_ns);
		bl[i].n = 0;
	}
	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_rank *rk = prof_rank(p, p->busy[k].rank);

		if (rk != NULL && p->busy[k].t_end_ns > p->busy[k].t_start_ns) {
			struct busy_list *b = &bl[rk - p->ranks];

			b->ph[b->n++] = &p->busy[k];
		}
	}
	for (int i = 0; i < p->nranks; i++) {
		struct busy_list *b = &bl[i];

		if (b->n > 1)
			qsort(b->ph, (size_t)b->n, sizeof *b->ph, cmp_busy);
		for (long j = 1; j < b->n; j++)
			b->before_ns[j] = b->before_ns[j - 1] +
					  (double)(b->ph[j - 1]->t_end_ns - b->ph[j - 1]->t_start_ns);
	}

	/* each rank's send times */
	sd = xcalloc((size_t)p->nranks, sizeof *sd);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_rank *a = p->msgs[k].src >= 0 ? prof_rank(p, p->msgs[k].src) : NULL;

		if (a != NULL)
			sd[a - p->ranks].n++;
	}
	for (int i = 0; i < p->nranks; i++) {
		sd[i].t_ns = xcalloc((size_t)sd[i].n + 1, sizeof *sd[i].t_ns);
		sd[i].n = 0;
	}
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_rank *a = p->msgs[k].src >= 0 ? prof_rank(p, p->msgs[k].src) : NULL;

		if (a != NULL)
			sd[a - p->ranks].t_ns[sd[a - p->ranks].n++] = p->msgs[k].t_ns;
	}
	for (int i = 0; i < p->nranks; i++)
		qsort(sd[i].t_ns, (size_t)sd[i].n, sizeof *sd[i].t_ns, cmp_i64);

	/* the events: every message between two known ranks, sent and received */
	ev = xmallocarray((size_t)p->nmsgs * 2 + 1, sizeof *ev);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct prof_rank *a = m->src >= 0 ? prof_rank(p, m->src) : NULL;
		const struct prof_rank *b = m->dst >= 0 ? prof_rank(p, m->dst) : NULL;
		int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns, need = arr;
		const struct prof_busy *ph;

		if (a == NULL || b == NULL || a == b)
			continue;
		/* a message that came while its receiver was busy was needed when it stopped, or at
		 * its next send if that is sooner (what it sends may carry what it received);
		 * unless it came within the phases' grain of the phase's start: then the receiver
		 * was waiting for it, and the work it started is the message's */
		ph = in_busy(&bl[b - p->ranks], arr);
		if (ph != NULL && arr - ph->t_start_ns >= REPLAY_GRAIN_NS) {
			int64_t ns = next_send(&sd[b - p->ranks], arr);

			need = ns < ph->t_end_ns ? ns : ph->t_end_ns;
		}
		ev[nev++] = (struct ev){ m->t_ns, k, (int)(a - p->ranks), 0 };
		ev[nev++] = (struct ev){ need, k, (int)(b - p->ranks), 1 };
	}
	qsort(ev, (size_t)nev, sizeof *ev, cmp_ev);

	hosts = xcalloc((size_t)p->nranks + 1, sizeof *hosts);
	host = xcalloc((size_t)p->nranks + 1, sizeof *host);
	for (int i = 0; i < p->nranks; i++)
		host[i] = host_index(hosts, &nhosts, p->ranks[i].host);
	egress = xcalloc((size_t)nhosts + 1, sizeof *egress);
	ingress = xcalloc((size_t)nhosts + 1, sizeof *ingress);
	for (int h = 0; h < nhosts; h++)
		egress[h] = ingress[h] = -INFINITY;
	D = xcalloc((size_t)p->nranks, sizeof *D);
	prev = xcalloc((size_t)p->nranks, sizeof *prev);
	busy_prev = xcalloc((size_t)p->nranks, sizeof *busy_prev);	/* busy time before prev */
	for (int i = 0; i < p->nranks; i++)
		prev[i] = INT64_MIN;
	dmsg = xcalloc((size_t)p->nmsgs + 1, sizeof *dmsg);

	for (long j = 0; j < nev; j++) {
		const struct ev *x = &ev[j];
		const struct prof_msg *m = &p->msgs[x->msg];
		int i = x->rank;
		int64_t from = prev[i];

		/* the rank's busy time since its last event, stretched */
		{
			double b = busy_before(&bl[i], x->t_ns);

			D[i] += (b - busy_prev[i]) * (f[i] - 1);
			busy_prev[i] = b;
		}
		prev[i] = x->t_ns;
		if (!x->recv) {
			const struct prof_rank *a = &p->ranks[i], *b = prof_rank(p, m->dst);
			const struct scen_link *sl = strcmp(a->host, b->host) != 0 ? scen_link_for(s, a->host, b->host) : NULL;
			double nlat, nbw;
			int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;

			if (sl != NULL && p003_link_new(sl, (double)p->lat_ns, p->bw_Bps, &nlat, &nbw) == 0) {
				int ha = host[i], hb = host[b - p->ranks];
				double dep = (double)m->t_ns + D[i];
				double start = fmax(dep, fmax(egress[ha], ingress[hb]));
				double done = start + (double)m->bytes / nbw * 1e9;

				egress[ha] = ingress[hb] = done;
				dmsg[x->msg] = done + nlat - (double)arr;
				nchanged++;
			} else {
				dmsg[x->msg] = D[i];
			}
		} else {
			int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;
			double S = (double)(x->t_ns - arr);	/* the message waited for the rank */
			double W = 0;				/* the rank waited for the message */
			const struct prof_busy *ph = in_busy(&bl[i], x->t_ns);

			/* idle (or just starting the work the message brought) when it was needed:
			 * the rank had waited since its last event or its last busy phase */
			if (ph == NULL || ph->t_start_ns >= x->t_ns - REPLAY_GRAIN_NS) {
				int64_t idle_from = busy_end_before(&bl[i], ph != NULL ? ph->t_start_ns : x->t_ns);

				if (from != INT64_MIN && from > idle_from)
					idle_from = from;
				if (idle_from != INT64_MIN && idle_from < x->t_ns)
					W = (double)((ph != NULL ? ph->t_start_ns : x->t_ns) - idle_from);
				if (W < 0)
					W = 0;
			}
			D[i] = fmax(D[i] - W, dmsg[x->msg] - S);
		}
	}
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *rk = &p->ranks[i];
		double t;

		D[i] += (busy_before(&bl[i], INT64_MAX) - busy_prev[i]) * (f[i] - 1);
		t = (double)rk->exec_ns + D[i];
		if (t > best) {
			best = t;
			worst = i;
		}
		if (f[i] != 1 || fabs(D[i]) >= 1e6) {
			char name[160];

			snprintf(name, sizeof name, "rank %d (%s)", rk->rank, rk->host);
			pred_add(r, "node", name, D[i], f[i], "trace replay",
				 "CPU stretch x%.3g; %.3f s late at its end", f[i], D[i] / 1e9);
		}
	}
	r->predicted_ns = best;
	snprintf(r->note, sizeof r->note,
		 "%ld events replayed, %ld messages on changed links; run = slowest rank (%d); receives "
		 "wait for their messages, busy time stretched on loaded nodes",
		 nev, nchanged, worst >= 0 ? p->ranks[worst].rank : -1);
	for (int i = 0; i < p->nranks; i++) {
		free(bl[i].ph);
		free(bl[i].before_ns);
	}
	free(bl);
	for (int i = 0; i < p->nranks; i++)
		free(sd[i].t_ns);
	free(sd);
	free(ev);
	free(hosts);
	free(host);
	free(egress);
	free(ingress);
	free(D);
	free(prev);
	free(busy_prev);
	free(dmsg);
	free(f);
	return 0;
}
