/* fluid: max-min fair sharing of capped resources among flows (see fluid.h). */
#include "predict/fluid.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/xalloc.h"

#define FLUID_DONE_BYTES 1e-6	/* what is left of a flow when it counts as done */
#define FLUID_TOKEN_BYTES 1.0	/* a bucket with less counts as empty */

static const struct fluid_flow *sort_base;	/* for cmp_start; one sort at a time */

static int
cmp_start(const void *a, const void *b)
{
	double x = sort_base[*(const long *)a].start_ns, y = sort_base[*(const long *)b].start_ns;

	if (x != y)
		return (x > y) - (x < y);
	return (*(const long *)a > *(const long *)b) - (*(const long *)a < *(const long *)b);
}

/* The resources a step has to look at: those some active flow crosses (nf[r] > 0) and those
 * whose bucket is not full, in live[0..n) with pos[r] their place or -1. The others keep
 * their state unchanged through a step (no flow, a full bucket stays full), so the work of
 * a step grows with the flows in flight, not with every resource of the run. */
struct live {
	int *r, *pos, n;
	long *nf;
};

static void
live_add(struct live *l, int r)
{
	if (l->pos[r] < 0) {
		l->pos[r] = l->n;
		l->r[l->n++] = r;
	}
}

/* Take out the resources no flow crosses whose bucket is full (full(r) as in fluid_run). */
static void
live_prune(struct live *l, const double *tok, const struct fluid_bucket *bk)
{
	for (int i = 0; i < l->n;) {
		int r = l->r[i];

		if (l->nf[r] == 0 && (bk == NULL || tok[r] >= bk[r].burst_bytes)) {
			l->pos[r] = -1;
			l->r[i] = l->r[--l->n];
			if (i < l->n)
				l->pos[l->r[i]] = i;
		} else {
			i++;
		}
	}
}

/* A resource's fair share in the heap of fair_rates: smallest share first, then lowest
 * index. An entry is stale once the share it holds is no longer the resource's. */
struct share {
	double v;
	int r;
};

/* Scratch of fair_rates, kept across steps. */
struct fair {
	double *left;		/* per resource: capacity not yet given */
	long *cnt;		/* per resource: its flows not yet frozen */
	long *off, *end;	/* per resource: its classes are on[off..end) */
	long *on;		/* the active classes' places in acls, grouped by resource */
	bool *frozen;		/* per active class */
	struct share *h;	/* a binary heap of nh entries, room for hcap */
	long nh, hcap;
};

static bool
share_less(struct share a, struct share b)
{
	return a.v < b.v || (a.v == b.v && a.r < b.r);
}

static void
heap_push(struct fair *w, double v, int r)
{
	long i;

	if (w->nh == w->hcap) {
		w->hcap = 2 * w->hcap + 64;
		w->h = xreallocarray(w->h, (size_t)w->hcap, sizeof *w->h);
	}
	for (i = w->nh++; i > 0 && share_less((struct share){ v, r }, w->h[(i - 1) / 2]); i = (i - 1) / 2)
		w->h[i] = w->h[(i - 1) / 2];
	w->h[i] = (struct share){ v, r };
}

static struct share
heap_pop(struct fair *w)
{
	struct share top = w->h[0], x = w->h[--w->nh];
	long i = 0;

	for (;;) {
		long c = 2 * i + 1;

		if (c >= w->nh)
			break;
		if (c + 1 < w->nh && share_less(w->h[c + 1], w->h[c]))
			c++;
		if (!share_less(w->h[c], x))
			break;
		w->h[i] = w->h[c];
		i = c;
	}
	if (w->nh > 0)
		w->h[i] = x;
	return top;
}

static double
share_of(const struct fair *w, int r)
{
	return fmax(w->left[r], 0) / (double)w->cnt[r];
}

/* Flows that cross the same resources: max-min fairness gives them the same rate, so the
 * simulation moves them together. A class holds its active flows in a heap by the progress
 * at which each is done (the class's progress when it started plus its bytes); the class's
 * progress P is what each of its flows has sent since the class began, so a flow has
 * key - P bytes left. A step then costs the classes in flight, not the flows: a run whose
 * link was slowed ten times keeps thousands of transfers in flight between one pair of
 * hosts, which are one class. */
struct fclass {
	int res[FLUID_MAX_RES];
	long m;			/* active flows */
	double P;		/* bytes each has sent since the class began */
	double rate;		/* B/s of each, this step */
	struct done *h;		/* heap of its active flows by key */
	long nh, hcap;
	long pos;		/* its place in acls, -1 when not active */
};

struct done {
	double key;		/* P at which the flow is done */
	long i;			/* the flow */
};

static bool
done_less(struct done a, struct done b)
{
	return a.key < b.key || (a.key == b.key && a.i < b.i);
}

static void
done_push(struct fclass *c, struct done d)
{
	long i;

	if (c->nh == c->hcap) {
		c->hcap = 2 * c->hcap + 8;
		c->h = xreallocarray(c->h, (size_t)c->hcap, sizeof *c->h);
	}
	for (i = c->nh++; i > 0 && done_less(d, c->h[(i - 1) / 2]); i = (i - 1) / 2)
		c->h[i] = c->h[(i - 1) / 2];
	c->h[i] = d;
}

static struct done
done_pop(struct fclass *c)
{
	struct done top = c->h[0], x = c->h[--c->nh];
	long i = 0;

	for (;;) {
		long k = 2 * i + 1;

		if (k >= c->nh)
			break;
		if (k + 1 < c->nh && done_less(c->h[k + 1], c->h[k]))
			k++;
		if (!done_less(c->h[k], x))
			break;
		c->h[i] = c->h[k];
		i = k;
	}
	if (c->nh > 0)
		c->h[i] = x;
	return top;
}

/* The max-min fair rates of the active classes acls[0..nacls) (bytes/s for each of their
 * flows), by progressive filling over the live resources (every resource an active flow
 * crosses is live): the resource of smallest share per flow (then lowest index) fixes its
 * unfrozen classes at that share, which is taken from their resources for each of their
 * flows, and so on. A heap finds that resource and each resource's list of classes gives
 * its classes. Within a round every flow takes the same share, so the order they are met
 * in changes no value. */
static void
fair_rates(struct fclass *cl, const long *acls, long nacls, const double *cap_Bps, const struct live *lv,
	   struct fair *w)
{
	long nfree = nacls, at = 0;

	for (int i = 0; i < lv->n; i++) {
		w->left[lv->r[i]] = cap_Bps[lv->r[i]];
		w->cnt[lv->r[i]] = 0;
		w->off[lv->r[i]] = 0;
	}
	for (long k = 0; k < nacls; k++) {
		w->frozen[k] = false;
		for (int j = 0; j < FLUID_MAX_RES; j++)
			if (cl[acls[k]].res[j] >= 0) {
				w->cnt[cl[acls[k]].res[j]] += cl[acls[k]].m;
				w->off[cl[acls[k]].res[j]]++;	/* classes on it, for now */
			}
	}
	for (int i = 0; i < lv->n; i++) {
		long n = w->off[lv->r[i]];

		w->off[lv->r[i]] = at;
		w->end[lv->r[i]] = at;
		at += n;
	}
	for (long k = 0; k < nacls; k++)
		for (int j = 0; j < FLUID_MAX_RES; j++)
			if (cl[acls[k]].res[j] >= 0)
				w->on[w->end[cl[acls[k]].res[j]]++] = k;
	w->nh = 0;
	for (int i = 0; i < lv->n; i++) {
		int r = lv->r[i];

		if (w->cnt[r] > 0)
			heap_push(w, share_of(w, r), r);
	}
	while (nfree > 0 && w->nh > 0) {
		struct share b = heap_pop(w);

		if (w->cnt[b.r] <= 0 || share_of(w, b.r) != b.v)
			continue;	/* stale */
		if (!(b.v < INFINITY))
			break;	/* cannot happen: every active flow crosses a resource */
		for (long q = w->off[b.r]; q < w->end[b.r]; q++) {
			long k = w->on[q];
			struct fclass *x = &cl[acls[k]];

			if (w->frozen[k])
				continue;
			w->frozen[k] = true;
			x->rate = b.v;
			nfree--;
			for (int j = 0; j < FLUID_MAX_RES; j++)
				if (x->res[j] >= 0) {
					w->left[x->res[j]] -= b.v * (double)x->m;
					w->cnt[x->res[j]] -= x->m;
				}
		}
		for (long q = w->off[b.r]; q < w->end[b.r]; q++)	/* the shares it changed */
			for (int j = 0; j < FLUID_MAX_RES; j++) {
				int r = cl[acls[w->on[q]]].res[j];

				if (r >= 0 && r != b.r && w->cnt[r] > 0)
					heap_push(w, share_of(w, r), r);
			}
	}
}

/* Tokens come into each live bucket at its capacity for dt_ns while no flow is active. */
static void
refill(double *tok, const double *cap_Bps, const struct fluid_bucket *bk, const struct live *lv, double dt_ns)
{
	for (int i = 0; bk != NULL && i < lv->n; i++) {
		int r = lv->r[i];

		if (isfinite(dt_ns) && dt_ns > 0)
			tok[r] = fmin(bk[r].burst_bytes, tok[r] + cap_Bps[r] * dt_ns / 1e9);
	}
}

int
fluid_run(struct fluid_flow *f, long n, const double *cap_Bps, int nres, struct err *e)
{
	return fluid_run_bucket(f, n, cap_Bps, NULL, nres, e);
}

/* The inputs' ranges: capacities above 0, buckets at least their rate, flows on known
 * resources. Returns 0 or -E_USAGE. */
static int
fluid_check(const struct fluid_flow *f, long n, const double *cap_Bps, const struct fluid_bucket *bk, int nres,
	    struct err *e)
{
	for (int r = 0; r < nres; r++)
		if (!(cap_Bps[r] > 0))
			return err_set(e, E_USAGE, "resource %d has capacity %g", r, cap_Bps[r]);
	for (int r = 0; bk != NULL && r < nres; r++)
		if (!(bk[r].burst_bytes >= 0) || (bk[r].burst_bytes > 0 && !(bk[r].peak_Bps >= cap_Bps[r])))
			return err_set(e, E_USAGE, "resource %d has a bucket of %g B at %g B/s over %g B/s", r,
				       bk[r].burst_bytes, bk[r].peak_Bps, cap_Bps[r]);
	for (long i = 0; i < n; i++)
		for (int j = 0; j < FLUID_MAX_RES; j++)
			if (f[i].res[j] < -1 || f[i].res[j] >= nres)
				return err_set(e, E_USAGE, "flow %ld crosses resource %d of %d", i, f[i].res[j], nres);
	return 0;
}

/* The simulation's state: the flows in start order, their classes (fclass), the active
 * classes, the buckets' tokens, what each resource passes and what its flows take. */
struct fsim {
	struct fluid_flow *f;
	const double *cap_Bps;
	const struct fluid_bucket *bk;
	long n, next;		/* flows; the next to start, in ord */
	long *ord;
	long *cls;		/* per flow: its class */
	struct fclass *cl;
	long ncl;
	long *acls, nacls;	/* the active classes */
	long nact;		/* active flows */
	double *tok, *now, *use;
	double t;		/* ns */
	struct live lv;
	struct fair w;
	bool planned;		/* the rates, use and the plan below hold for now */
	double plan_dt;		/* ns to the next flow done or bucket run dry, INFINITY */
	long plan_first;	/* the active class whose first flow is done then, -1 */
	long *fin, nfin;	/* the flows done since fluid_sim_done last took them */
	unsigned char *st;	/* per flow: FS_* */
	long *succ;		/* per flow: the flow queued after it (fluid_flow after), -1 */
	long *rdy, nrdy;	/* flows whose `after` is done, to start now */
	bool driven;		/* fluid_sim_*: a flow's start_ns is when it really started */
};

enum { FS_WAIT, FS_QUEUED, FS_ACTIVE, FS_DONE };	/* fsim st: not started, behind its
							 * `after`, in flight, done */

static const struct fluid_flow *class_base;	/* for cmp_res; one sort at a time */

static int
cmp_res(const void *a, const void *b)
{
	const struct fluid_flow *x = &class_base[*(const long *)a], *y = &class_base[*(const long *)b];

	for (int j = 0; j < FLUID_MAX_RES; j++)
		if (x->res[j] != y->res[j])
			return (x->res[j] > y->res[j]) - (x->res[j] < y->res[j]);
	return (*(const long *)a > *(const long *)b) - (*(const long *)a < *(const long *)b);
}

/* Each flow's class: one per set of resources crossed, in that order. */
static void
fsim_classes(struct fsim *s)
{
	long *by = xmallocarray((size_t)s->n + 1, sizeof *by);

	for (long i = 0; i < s->n; i++)
		by[i] = i;
	class_base = s->f;
	qsort(by, (size_t)s->n, sizeof *by, cmp_res);
	s->cls = xmallocarray((size_t)s->n + 1, sizeof *s->cls);
	s->cl = xcalloc((size_t)s->n + 1, sizeof *s->cl);
	for (long k = 0; k < s->n; k++) {
		const struct fluid_flow *x = &s->f[by[k]];

		if (k == 0 || memcmp(x->res, s->f[by[k - 1]].res, sizeof x->res) != 0) {
			memcpy(s->cl[s->ncl].res, x->res, sizeof x->res);
			s->cl[s->ncl++].pos = -1;
		}
		s->cls[by[k]] = s->ncl - 1;
	}
	free(by);
}

static void
fsim_init(struct fsim *s, struct fluid_flow *f, long n, const double *cap_Bps, const struct fluid_bucket *bk,
	  int nres, bool by_start)
{
	memset(s, 0, sizeof *s);
	s->f = f;
	s->n = n;
	s->cap_Bps = cap_Bps;
	s->bk = bk;
	s->t = -INFINITY;
	s->ord = xmallocarray((size_t)n, sizeof *s->ord);
	fsim_classes(s);
	s->acls = xmallocarray((size_t)s->ncl + 1, sizeof *s->acls);
	s->w.frozen = xmallocarray((size_t)s->ncl + 1, sizeof *s->w.frozen);
	s->w.on = xmallocarray(((size_t)s->ncl + 1) * FLUID_MAX_RES, sizeof *s->w.on);
	s->w.left = xmallocarray((size_t)nres + 1, sizeof *s->w.left);
	s->w.cnt = xmallocarray((size_t)nres + 1, sizeof *s->w.cnt);
	s->w.off = xmallocarray((size_t)nres + 1, sizeof *s->w.off);
	s->w.end = xmallocarray((size_t)nres + 1, sizeof *s->w.end);
	s->tok = xmallocarray((size_t)nres + 1, sizeof *s->tok);	/* bytes in each bucket */
	s->now = xmallocarray((size_t)nres + 1, sizeof *s->now);	/* what each passes now, B/s */
	s->use = xmallocarray((size_t)nres + 1, sizeof *s->use);	/* what its flows take, B/s */
	s->lv.r = xmallocarray((size_t)nres + 1, sizeof *s->lv.r);
	s->lv.pos = xmallocarray((size_t)nres + 1, sizeof *s->lv.pos);
	s->lv.nf = xcalloc((size_t)nres + 1, sizeof *s->lv.nf);	/* active flows on each */
	s->fin = xmallocarray((size_t)n + 1, sizeof *s->fin);
	s->st = xcalloc((size_t)n + 1, sizeof *s->st);	/* FS_WAIT */
	s->succ = xmallocarray((size_t)n + 1, sizeof *s->succ);
	s->rdy = xmallocarray((size_t)n + 1, sizeof *s->rdy);
	for (long i = 0; i < n; i++)
		s->succ[i] = -1;
	for (int r = 0; r < nres; r++) {
		s->tok[r] = bk != NULL ? bk[r].burst_bytes : 0;	/* full: not live */
		s->lv.pos[r] = -1;
	}
	for (long i = 0; i < n; i++)
		s->ord[i] = i;
	if (by_start) {
		sort_base = f;
		qsort(s->ord, (size_t)n, sizeof *s->ord, cmp_start);
	}
}

static void
fsim_free(struct fsim *s)
{
	for (long c = 0; c < s->ncl; c++)
		free(s->cl[c].h);
	free(s->cl);
	free(s->cls);
	free(s->ord);
	free(s->acls);
	free(s->w.frozen);
	free(s->w.on);
	free(s->w.left);
	free(s->w.cnt);
	free(s->w.off);
	free(s->w.end);
	free(s->w.h);
	free(s->tok);
	free(s->now);
	free(s->use);
	free(s->lv.r);
	free(s->lv.pos);
	free(s->lv.nf);
	free(s->fin);
	free(s->st);
	free(s->succ);
	free(s->rdy);
}

/* Flow i is done now: the flow queued after it may start. */
static void
fsim_done(struct fsim *s, long i)
{
	s->f[i].done_ns = s->t;
	s->fin[s->nfin++] = i;
	s->st[i] = FS_DONE;
	if (s->succ[i] >= 0) {
		s->rdy[s->nrdy++] = s->succ[i];
		s->succ[i] = -1;
	}
}

/* Flow i becomes active in its class now; with nothing to send or no resource it is done
 * at once. */
static void
fsim_activate(struct fsim *s, long i)
{
	struct fluid_flow *f = s->f;
	struct fclass *c = &s->cl[s->cls[i]];
	bool any = false;

	for (int j = 0; j < FLUID_MAX_RES; j++)
		any |= f[i].res[j] >= 0;
	if (!any || !(f[i].bytes > 0)) {
		fsim_done(s, i);
		return;
	}
	s->st[i] = FS_ACTIVE;
	s->planned = false;
	for (int j = 0; j < FLUID_MAX_RES; j++)
		if (f[i].res[j] >= 0) {
			s->lv.nf[f[i].res[j]]++;
			live_add(&s->lv, f[i].res[j]);
		}
	if (c->m++ == 0) {	/* the class starts again: its progress from 0 */
		c->P = 0;
		c->pos = s->nacls;
		s->acls[s->nacls++] = s->cls[i];
	}
	done_push(c, (struct done){ c->P + f[i].bytes, i });
	s->nact++;
}

/* The flows whose `after` is done start now (each may end at once and release another). */
static void
fsim_start_ready(struct fsim *s)
{
	while (s->nrdy > 0) {
		long w = s->rdy[--s->nrdy];

		if (s->driven)
			s->f[w].start_ns = s->t;
		fsim_activate(s, w);
	}
}

/* Flow i starts now, or queues behind its `after` when that one is not done: after the
 * last flow already queued behind it, so that a stream's flows go in order. */
static void
fsim_admit_one(struct fsim *s, long i)
{
	long p = s->f[i].after - 1;

	if (p >= 0 && p < s->n && p != i && s->st[p] != FS_DONE) {
		while (s->succ[p] >= 0)
			p = s->succ[p];
		s->succ[p] = i;
		s->st[i] = FS_QUEUED;
		return;
	}
	fsim_activate(s, i);
	fsim_start_ready(s);
}

/* The flows that start by now, in start order (fluid_run_bucket). */
static void
fsim_admit(struct fsim *s)
{
	while (s->next < s->n && s->f[s->ord[s->next]].start_ns <= s->t)
		fsim_admit_one(s, s->ord[s->next++]);
}

/* The first flow of active class acls[k] is done at the current time: off its resources,
 * out of its class, and the class out of the active ones when it was its last. */
static void
fsim_finish(struct fsim *s, long k)
{
	struct fclass *c = &s->cl[s->acls[k]];
	struct fluid_flow *fl = &s->f[done_pop(c).i];

	s->planned = false;
	fsim_done(s, fl - s->f);
	for (int j = 0; j < FLUID_MAX_RES; j++)
		if (fl->res[j] >= 0)
			s->lv.nf[fl->res[j]]--;
	s->nact--;
	if (--c->m == 0) {
		c->pos = -1;
		s->acls[k] = s->acls[--s->nacls];
		if (k < s->nacls)
			s->cl[s->acls[k]].pos = k;
	}
}

/* The max-min fair rates now, what each resource's flows take, and the time to the next
 * event other than a flow starting: a flow done (plan_first its class, when it is the
 * first) or a bucket running dry (plan_first -1). Worked out once for each state. */
static void
fsim_plan(struct fsim *s)
{
	double dt = INFINITY;

	if (s->planned)
		return;
	s->plan_first = -1;
	for (int i = 0; i < s->lv.n; i++) {
		int r = s->lv.r[i];

		s->now[r] = s->tok[r] >= FLUID_TOKEN_BYTES ? s->bk[r].peak_Bps : s->cap_Bps[r];
	}
	fair_rates(s->cl, s->acls, s->nacls, s->now, &s->lv, &s->w);
	for (long k = 0; k < s->nacls; k++) {
		const struct fclass *c = &s->cl[s->acls[k]];

		if (c->rate > 0 && (c->h[0].key - c->P) / c->rate * 1e9 < dt) {
			dt = (c->h[0].key - c->P) / c->rate * 1e9;
			s->plan_first = k;
		}
	}
	/* a bucket that runs dry changes the rates: that is an event too */
	for (int i = 0; i < s->lv.n; i++)
		s->use[s->lv.r[i]] = 0;
	for (long k = 0; k < s->nacls; k++) {
		const struct fclass *c = &s->cl[s->acls[k]];

		for (int j = 0; j < FLUID_MAX_RES; j++)
			if (c->res[j] >= 0)
				s->use[c->res[j]] += c->rate * (double)c->m;
	}
	for (int i = 0; i < s->lv.n; i++) {
		int r = s->lv.r[i];

		if (s->tok[r] >= FLUID_TOKEN_BYTES && s->use[r] > s->cap_Bps[r] &&
		    s->tok[r] / (s->use[r] - s->cap_Bps[r]) * 1e9 < dt) {
			dt = s->tok[r] / (s->use[r] - s->cap_Bps[r]) * 1e9;
			s->plan_first = -1;
		}
	}
	s->plan_dt = dt;
	s->planned = true;
}

/* The step to take from now when the next flow starts at start_ns (INFINITY: none) and
 * the class whose first flow is done at its end (*first, -1 none). */
static double
fsim_next_event(struct fsim *s, double start_ns, long *first)
{
	double step;

	fsim_plan(s);
	step = fmin(s->plan_dt, start_ns - s->t);
	*first = step == s->plan_dt ? s->plan_first : -1;
	return step;
}

/* Every flow at its rates for step ns: bytes sent, buckets drained or filled; the first
 * flow of class acls[first] (when >= 0) and any other with nothing left is done. */
static void
fsim_advance(struct fsim *s, double step, long first)
{
	long fc = first >= 0 ? s->acls[first] : -1;

	s->planned = false;
	for (long k = 0; k < s->nacls; k++)
		s->cl[s->acls[k]].P += s->cl[s->acls[k]].rate * step / 1e9;
	for (int i = 0; s->bk != NULL && i < s->lv.n; i++) {
		int r = s->lv.r[i];

		s->tok[r] = fmin(s->bk[r].burst_bytes,
				 fmax(0, s->tok[r] + (s->cap_Bps[r] - s->use[r]) * step / 1e9));
	}
	s->t += step;
	if (fc >= 0 && s->cl[fc].h[0].key > s->cl[fc].P)
		s->cl[fc].P = s->cl[fc].h[0].key;	/* its first flow is done: exactly */
	for (long k = 0; k < s->nacls;) {
		struct fclass *c = &s->cl[s->acls[k]];
		long m = c->m;

		while (c->m > 0 && c->h[0].key - c->P <= FLUID_DONE_BYTES)
			fsim_finish(s, k);
		if (m > 0 && c->m == 0)
			continue;	/* another class took place k */
		k++;
	}
	fsim_start_ready(s);
}

int
fluid_run_bucket(struct fluid_flow *f, long n, const double *cap_Bps, const struct fluid_bucket *bk, int nres,
		 struct err *e)
{
	struct fsim s;
	int rc = fluid_check(f, n, cap_Bps, bk, nres, e);

	if (rc < 0 || n <= 0)
		return rc;
	fsim_init(&s, f, n, cap_Bps, bk, nres, true);
	while (s.next < n || s.nact > 0) {
		double step;
		long first;

		if (s.nact == 0) {	/* idle until the next start: the buckets fill */
			double t1 = fmax(s.t, f[s.ord[s.next]].start_ns);

			refill(s.tok, cap_Bps, bk, &s.lv, t1 - s.t);
			live_prune(&s.lv, s.tok, bk);
			s.t = t1;
			s.planned = false;
		}
		fsim_admit(&s);
		if (s.nact == 0)
			continue;
		step = fsim_next_event(&s, s.next < n ? f[s.ord[s.next]].start_ns : INFINITY, &first);
		if (!isfinite(step)) {	/* no rate: cannot happen with capacities > 0 */
			while (s.nacls > 0)
				fsim_finish(&s, s.nacls - 1);
			fsim_start_ready(&s);
			live_prune(&s.lv, s.tok, bk);
			continue;
		}
		fsim_advance(&s, step, first);
		live_prune(&s.lv, s.tok, bk);
	}
	fsim_free(&s);
	return 0;
}

/* The driven simulation (fluid.h): the same state, its flows started one by one. */
struct fluid_sim {
	struct fsim s;
	long nfin_taken;	/* s.fin[0..nfin_taken) went to the caller already */
};

int
fluid_sim_new(struct fluid_sim **out, struct fluid_flow *f, long n, const double *cap_Bps,
	      const struct fluid_bucket *bk, int nres, struct err *e)
{
	int rc;

	*out = NULL;
	for (long i = 0; i < n; i++)
		f[i].start_ns = f[i].done_ns = NAN;	/* fluid_check reads only res */
	if ((rc = fluid_check(f, n, cap_Bps, bk, nres, e)) < 0)
		return rc;
	*out = xcalloc(1, sizeof **out);
	fsim_init(&(*out)->s, f, n, cap_Bps, bk, nres, false);
	(*out)->s.driven = true;
	return 0;
}

void
fluid_sim_free(struct fluid_sim *sim)
{
	if (sim == NULL)
		return;
	fsim_free(&sim->s);
	free(sim);
}

double
fluid_sim_next_ns(struct fluid_sim *sim)
{
	struct fsim *s = &sim->s;

	if (s->nact == 0)
		return INFINITY;
	fsim_plan(s);
	return isfinite(s->plan_dt) ? s->t + s->plan_dt : INFINITY;
}

/* The flows crossing no resource with capacity left: cannot happen with capacities > 0,
 * as in fluid_run_bucket; they end now rather than hold the caller up. */
static void
fsim_stall(struct fsim *s)
{
	while (s->nacls > 0)
		fsim_finish(s, s->nacls - 1);
	fsim_start_ready(s);
	live_prune(&s->lv, s->tok, s->bk);
}

void
fluid_sim_run_to(struct fluid_sim *sim, double t_ns)
{
	struct fsim *s = &sim->s;

	while (s->t < t_ns) {
		double step;
		long first;
		bool there;

		if (s->nact == 0) {	/* idle: the buckets fill */
			refill(s->tok, s->cap_Bps, s->bk, &s->lv, t_ns - s->t);
			live_prune(&s->lv, s->tok, s->bk);
			s->t = t_ns;
			s->planned = false;
			break;
		}
		step = fsim_next_event(s, t_ns, &first);
		if (!isfinite(step)) {
			fsim_stall(s);
			continue;
		}
		there = step >= t_ns - s->t;
		fsim_advance(s, step, first);
		if (there)	/* exactly, whatever the rounding of s->t + step */
			s->t = t_ns;
		live_prune(&s->lv, s->tok, s->bk);
	}
}

void
fluid_sim_step(struct fluid_sim *sim)
{
	struct fsim *s = &sim->s;

	if (s->nact == 0)
		return;
	fsim_plan(s);
	if (!isfinite(s->plan_dt)) {
		fsim_stall(s);
		return;
	}
	fsim_advance(s, s->plan_dt, s->plan_first);
	live_prune(&s->lv, s->tok, s->bk);
}

void
fluid_sim_start(struct fluid_sim *sim, long i, double t_ns)
{
	struct fsim *s = &sim->s;

	if (i < 0 || i >= s->n || !isnan(s->f[i].start_ns))
		BUG("fluid: flow %ld of %ld started twice or out of range", i, s->n);
	fluid_sim_run_to(sim, t_ns);
	s->f[i].start_ns = s->t;	/* t_ns, or now when t_ns has passed */
	fsim_admit_one(s, i);
}

const long *
fluid_sim_done(struct fluid_sim *sim, long *n)
{
	struct fsim *s = &sim->s;
	const long *d = s->fin + sim->nfin_taken;

	*n = s->nfin - sim->nfin_taken;
	sim->nfin_taken = s->nfin;
	return d;
}
