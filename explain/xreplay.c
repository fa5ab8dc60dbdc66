/* xreplay: the trace replayed with causes taken out (see xreplay.h). */
#include "explain/xreplay.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/xalloc.h"

/* One rank's busy phases by start time, and the busy time before each; used while the
 * events are built. */
struct xrep_busy {
	long n;
	const struct prof_busy **ph;
	double *before_ns;
	int64_t *sends;		/* the rank's send times, sorted */
	long nsends;
};

static int
by_start(const void *a, const void *b)
{
	const struct prof_busy *x = *(const struct prof_busy *const *)a, *y = *(const struct prof_busy *const *)b;

	return (x->t_start_ns > y->t_start_ns) - (x->t_start_ns < y->t_start_ns);
}

static int
by_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Sends before receives at equal times, then message order: a stable replay order. */
static int
by_event(const void *a, const void *b)
{
	const struct xrep_ev *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
	if (x->recv != y->recv)
		return x->recv - y->recv;
	return (x->msg > y->msg) - (x->msg < y->msg);
}

/* The last phase starting at or before t, or -1. */
static long
phase_at(const struct xrep_busy *b, int64_t t)
{
	long lo = 0, hi = b->n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (b->ph[mid]->t_start_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

static double
busy_before(const struct xrep_busy *b, int64_t t)
{
	long i = phase_at(b, t);
	int64_t end;

	if (i < 0)
		return 0;
	end = t < b->ph[i]->t_end_ns ? t : b->ph[i]->t_end_ns;
	return b->before_ns[i] + (double)(end - b->ph[i]->t_start_ns);
}

/* The index of the rank's first send at or after t (nsends when none). */
static long
send_index(const struct xrep_busy *b, int64_t t)
{
	long lo = 0, hi = b->nsends;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (b->sends[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of rank r in p->ranks, or -1. */
static int
rank_index(const struct prof *p, int r)
{
	const struct prof_rank *rk = r >= 0 ? prof_rank(p, r) : NULL;

	return rk != NULL ? (int)(rk - p->ranks) : -1;
}

static void
busy_lists(const struct prof *p, struct xrep_busy *bl)
{
	for (long k = 0; k < p->nbusy; k++) {
		int i = rank_index(p, p->busy[k].rank);

		if (i >= 0 && p->busy[k].t_end_ns > p->busy[k].t_start_ns)
			bl[i].n++;
	}
	for (long k = 0; k < p->nmsgs; k++) {
		int i = rank_index(p, p->msgs[k].src);

		if (i >= 0)
			bl[i].nsends++;
	}
	for (int i = 0; i < p->nranks; i++) {
		bl[i].ph = xcalloc((size_t)bl[i].n + 1, sizeof *bl[i].ph);
		bl[i].before_ns = xcalloc((size_t)bl[i].n + 1, sizeof *bl[i].before_ns);
		bl[i].sends = xcalloc((size_t)bl[i].nsends + 1, sizeof *bl[i].sends);
		bl[i].n = bl[i].nsends = 0;
	}
	for (long k = 0; k < p->nbusy; k++) {
		int i = rank_index(p, p->busy[k].rank);

		if (i >= 0 && p->busy[k].t_end_ns > p->busy[k].t_start_ns)
			bl[i].ph[bl[i].n++] = &p->busy[k];
	}
	for (long k = 0; k < p->nmsgs; k++) {
		int i = rank_index(p, p->msgs[k].src);

		if (i >= 0)
			bl[i].sends[bl[i].nsends++] = p->msgs[k].t_ns;
	}
	for (int i = 0; i < p->nranks; i++) {
		struct xrep_busy *b = &bl[i];

		qsort(b->ph, (size_t)b->n, sizeof *b->ph, by_start);
		qsort(b->sends, (size_t)b->nsends, sizeof *b->sends, by_i64);
		for (long j = 1; j < b->n; j++)
			b->before_ns[j] = b->before_ns[j - 1] +
					  (double)(b->ph[j - 1]->t_end_ns - b->ph[j - 1]->t_start_ns);
	}
}

/* W for a receive needed at t by a rank whose previous event was at from: the time it sat
 * idle since then, every idle stretch of it, or 0 when it was busy with earlier work at t.
 * Between two events a rank has nothing else to wait for: the busy stretches in between
 * are work that comes before the message whatever its arrival, the idle ones could all
 * have gone. Demand phases break a long wait into pieces (a polling loop's rare user tick
 * reads as a busy interval), and only the last piece would let a faster sender's gain
 * through. */
static double
idle_before(const struct xrep_busy *b, int64_t t, int64_t from)
{
	long i = phase_at(b, t);
	const struct prof_busy *ph = i >= 0 && t < b->ph[i]->t_end_ns ? b->ph[i] : NULL;
	int64_t at = t, idle_from = from;
	double idle;

	if (ph != NULL) {
		if (ph->t_start_ns < t - XREP_GRAIN_NS)
			return 0;	/* busy with earlier work */
		at = ph->t_start_ns;
	}
	if (idle_from == INT64_MIN)	/* the rank's first event: idle since its last busy phase */
		idle_from = i >= 0 ? (ph != NULL ? (i > 0 ? b->ph[i - 1]->t_end_ns : INT64_MIN)
						 : (b->ph[i]->t_end_ns <= at ? b->ph[i]->t_end_ns : INT64_MIN))
			       : INT64_MIN;
	if (idle_from == INT64_MIN || idle_from >= at)
		return 0;
	idle = (double)(at - idle_from) - (busy_before(b, at) - busy_before(b, idle_from));
	return idle > 0 ? idle : 0;
}

void
xrep_init(struct xrep *x, const struct prof *p)
{
	struct xrep_busy *bl = xcalloc((size_t)p->nranks + 1, sizeof *bl);
	int64_t *prev = xcalloc((size_t)p->nranks + 1, sizeof *prev);

	*x = (struct xrep){ .p = p };
	busy_lists(p, bl);
	x->busy_ns = xcalloc((size_t)p->nranks + 1, sizeof *x->busy_ns);
	for (int i = 0; i < p->nranks; i++)
		x->busy_ns[i] = busy_before(&bl[i], INT64_MAX);
	x->ev = xmallocarray((size_t)p->nmsgs * 2 + 1, sizeof *x->ev);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int a = rank_index(p, m->src), b = rank_index(p, m->dst);
		int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns, need = arr;
		bool answer = false;
		long i;

		if (a < 0 || b < 0 || a == b)
			continue;
		i = phase_at(&bl[b], arr);
		if (i >= 0 && arr < bl[b].ph[i]->t_end_ns) {
			long j = send_index(&bl[b], arr);
			int64_t s = j < bl[b].nsends ? bl[b].sends[j] : INT64_MAX;
			int64_t before = j > 0 ? bl[b].sends[j - 1] : INT64_MIN;

			/* came in a busy phase between a send of the rank and its next, both closer
			 * than the samples see: it was waiting for this message (a ping-pong in a
			 * polling loop whose stray user tick made the interval busy) */
			answer = before != INT64_MIN && arr - before < XREP_GRAIN_NS && s - arr < XREP_GRAIN_NS;
			/* else, came while the receiver was busy with earlier work: needed when that
			 * work ended, or at its next send if sooner (what it sends may carry what it
			 * received) */
			if (!answer && arr - bl[b].ph[i]->t_start_ns >= XREP_GRAIN_NS)
				need = s < bl[b].ph[i]->t_end_ns ? s : bl[b].ph[i]->t_end_ns;
		}
		x->ev[x->nev++] = (struct xrep_ev){ .t_ns = m->t_ns, .msg = k, .rank = a };
		x->ev[x->nev++] = (struct xrep_ev){ .t_ns = need, .msg = k, .rank = b, .recv = 1,
						    .slack_ns = (double)(need - arr), .answer = answer };
	}
	qsort(x->ev, (size_t)x->nev, sizeof *x->ev, by_event);
	for (int i = 0; i < p->nranks; i++)
		prev[i] = INT64_MIN;
	for (long j = 0; j < x->nev; j++) {
		struct xrep_ev *v = &x->ev[j];

		v->busy_ns = busy_before(&bl[v->rank], v->t_ns);
		if (v->recv && v->answer && prev[v->rank] != INT64_MIN)
			v->wait_ns = (double)(v->t_ns - prev[v->rank]);
		else if (v->recv)
			v->wait_ns = idle_before(&bl[v->rank], v->t_ns, prev[v->rank]);
		if (prev[v->rank] != INT64_MIN)
			v->gap_ns = fmax((double)(v->t_ns - prev[v->rank]) - (v->busy_ns - busy_before(&bl[v->rank], prev[v->rank])) -
					 v->wait_ns, 0);
		prev[v->rank] = v->t_ns;
	}
	for (int i = 0; i < p->nranks; i++) {
		free(bl[i].ph);
		free(bl[i].before_ns);
		free(bl[i].sends);
	}
	free(bl);
	free(prev);
}

void
xrep_free(struct xrep *x)
{
	if (x == NULL)
		return;
	free(x->busy_ns);
	free(x->ev);
	*x = (struct xrep){ 0 };
}

double
xrep_run(const struct xrep *x, const struct xrep_change *c, double *late_ns)
{
	const struct prof *p = x->p;
	double *D = xcalloc((size_t)p->nranks + 1, sizeof *D);
	double *seen = xcalloc((size_t)p->nranks + 1, sizeof *seen);	/* busy time replayed */
	double *dmsg = xcalloc((size_t)p->nmsgs + 1, sizeof *dmsg);
	const double *f = c != NULL ? c->busy_f : NULL, *dt = c != NULL ? c->msg_dt_ns : NULL;
	const double *g = c != NULL ? c->idle_f : NULL;
	double T = -INFINITY;

	for (long j = 0; j < x->nev; j++) {
		const struct xrep_ev *v = &x->ev[j];
		int i = v->rank;

		if (f != NULL)
			D[i] += (v->busy_ns - seen[i]) * (f[i] - 1);
		seen[i] = v->busy_ns;
		if (g != NULL)
			D[i] += v->gap_ns * (g[i] - 1);
		if (!v->recv)
			dmsg[v->msg] = D[i] + (dt != NULL ? dt[v->msg] : 0);
		else
			D[i] = fmax(D[i] - v->wait_ns, dmsg[v->msg] - v->slack_ns);
	}
	for (int i = 0; i < p->nranks; i++) {
		if (f != NULL)
			D[i] += (x->busy_ns[i] - seen[i]) * (f[i] - 1);
		T = fmax(T, (double)p->ranks[i].exec_ns + D[i]);
		if (late_ns != NULL)
			late_ns[i] = D[i];
	}
	free(D);
	free(seen);
	free(dmsg);
	return p->nranks > 0 ? T : 0;
}
