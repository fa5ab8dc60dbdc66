/* mwsim: event-driven master/slave simulator; a heap of service completions, FIFO queues. */
#include "predict/mwsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

struct job {
	int slave;		/* which slave the task belongs to */
	int step;		/* index into the slave's route */
	double t_arrive;	/* when it joined the current queue, s */
	int next;		/* next job in the same FIFO queue, -1 at the end */
};

struct res {
	int head, tail;		/* FIFO of waiting jobs, -1 when empty */
	int serving;		/* job in service, -1 when idle */
	double tok_s, tok_t;	/* a bucket's tokens (s of work) and when they were counted */
};

struct event {			/* a service completion */
	double t;		/* s */
	uint64_t seq;		/* tie-break: earlier scheduled first */
	int res;
};

struct sim {
	const struct mwsim_config *c;
	struct mwsim_result *r;
	struct job *jobs;
	struct res *res;
	struct event *heap;	/* at most one event per resource */
	int nheap;
	uint64_t seq;
	int64_t handed;		/* tasks handed out */
	int64_t mark_lo, mark_hi;	/* completion counts bracketing the steady-state window */
	double t_lo, t_hi;	/* times they were reached */
};

/* Route of a slave: step -> resource and service time. */
static int
nsteps(const struct mwsim_slave *s)
{
	return 2 * s->nhops + 2;
}

static void
step_of(const struct sim *m, const struct mwsim_slave *s, int step, int *res, double *svc)
{
	if (step < s->nhops) {
		*res = s->hops[step];
		*svc = s->out_s[step];
	} else if (step == s->nhops) {
		*res = s->cpu;
		*svc = s->cpu_s;
	} else if (step < 2 * s->nhops + 1) {
		int h = 2 * s->nhops - step;	/* back from the slave side */

		*res = s->hops[h];
		*svc = s->in_s[h];
	} else {
		*res = m->c->master_cpu;
		*svc = m->c->master_s;
	}
}

static bool
ev_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void
heap_push(struct sim *m, double t, int res)
{
	int i = m->nheap++;

	m->heap[i] = (struct event){ .t = t, .seq = m->seq++, .res = res };
	while (i > 0 && ev_before(&m->heap[i], &m->heap[(i - 1) / 2])) {
		struct event tmp = m->heap[i];

		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static struct event
heap_pop(struct sim *m)
{
	struct event top = m->heap[0];
	int i = 0;

	m->heap[0] = m->heap[--m->nheap];
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i;

		if (l < m->nheap && ev_before(&m->heap[l], &m->heap[s]))
			s = l;
		if (r < m->nheap && ev_before(&m->heap[r], &m->heap[s]))
			s = r;
		if (s == i)
			break;
		struct event tmp = m->heap[i];

		m->heap[i] = m->heap[s];
		m->heap[s] = tmp;
		i = s;
	}
	return top;
}

static void
start_service(struct sim *m, int res, int job, double now)
{
	const struct job *j = &m->jobs[job];
	const struct mwsim_slave *s = &m->c->slaves[j->slave];
	int r;
	double svc;

	step_of(m, s, j->step, &r, &svc);
	if (m->c->bucket != NULL && m->c->bucket[res].burst_s > 0) {
		const struct mwsim_bucket *b = &m->c->bucket[res];
		struct res *x = &m->res[res];
		double fast;	/* work done at the peak */

		x->tok_s = fmin(b->burst_s, x->tok_s + (now - x->tok_t));
		x->tok_t = now;
		fast = fmin(svc, x->tok_s);
		x->tok_s -= fast;
		svc = fast / b->peak_x + (svc - fast);
	}
	m->res[res].serving = job;
	m->r->wait_s[res] += now - j->t_arrive;
	m->r->busy_s[res] += svc;
	heap_push(m, now + svc, res);
}

/* The job arrives at its current step at time now; zero-time steps pass straight through.
 * Returns true when the job finished its last step (the task is complete). */
static bool
arrive(struct sim *m, int job, double now)
{
	struct job *j = &m->jobs[job];
	const struct mwsim_slave *s = &m->c->slaves[j->slave];

	for (; j->step < nsteps(s); j->step++) {
		int r;
		double svc;

		step_of(m, s, j->step, &r, &svc);
		if (svc <= 0)
			continue;
		j->t_arrive = now;
		j->next = -1;
		if (m->res[r].serving < 0) {
			start_service(m, r, job, now);
		} else if (m->res[r].tail < 0) {
			m->res[r].head = m->res[r].tail = job;
		} else {
			m->jobs[m->res[r].tail].next = job;
			m->res[r].tail = job;
		}
		return false;
	}
	return true;
}

static void
complete_task(struct sim *m, int job, double now)
{
	m->r->done++;
	m->r->slave_tasks[m->jobs[job].slave]++;
	m->r->makespan_s = now;
	if (m->r->done == m->mark_lo)
		m->t_lo = now;
	if (m->r->done == m->mark_hi)
		m->t_hi = now;
	/* The same job object carries the next task of this slave, if any remain. */
	while (m->handed < m->c->tasks) {
		m->handed++;
		m->jobs[job].step = 0;
		if (!arrive(m, job, now))
			return;
		/* A route with no time at all cannot happen: mwsim_run rejects it. */
		m->r->done++;
	}
}

static int
check(const struct mwsim_config *c, struct err *e)
{
	if (c->nres < 1 || c->nslave < 1 || c->slaves == NULL)
		return err_set(e, E_USAGE, "simulation needs resources and at least one slave");
	if (c->tasks < 1 || c->depth < 1)
		return err_set(e, E_USAGE, "simulation needs tasks >= 1 and depth >= 1");
	if (c->master_cpu < 0 || c->master_cpu >= c->nres || !(c->master_s >= 0) || !isfinite(c->master_s))
		return err_set(e, E_USAGE, "simulation: bad master processor or service time");
	for (int i = 0; c->bucket != NULL && i < c->nres; i++)
		if (!(c->bucket[i].burst_s >= 0) || !isfinite(c->bucket[i].burst_s) ||
		    (c->bucket[i].burst_s > 0 && !(c->bucket[i].peak_x >= 1 && isfinite(c->bucket[i].peak_x))))
			return err_set(e, E_USAGE, "simulation: resource %d has a bad token bucket", i);
	for (int k = 0; k < c->nslave; k++) {
		const struct mwsim_slave *s = &c->slaves[k];
		double total = c->master_s + s->cpu_s;

		if (s->cpu < 0 || s->cpu >= c->nres || !(s->cpu_s >= 0) || !isfinite(s->cpu_s) ||
		    s->nhops < 0 || s->nhops > MWSIM_MAX_HOPS)
			return err_set(e, E_USAGE, "simulation: slave %d has a bad processor, time or path", k);
		for (int h = 0; h < s->nhops; h++) {
			if (s->hops[h] < 0 || s->hops[h] >= c->nres || !(s->out_s[h] >= 0) ||
			    !(s->in_s[h] >= 0) || !isfinite(s->out_s[h]) || !isfinite(s->in_s[h]))
				return err_set(e, E_USAGE, "simulation: slave %d has a bad network hop %d", k, h);
			total += s->out_s[h] + s->in_s[h];
		}
		if (!(total > 0))
			return err_set(e, E_USAGE, "simulation: a task of slave %d takes no time anywhere", k);
	}
	return 0;
}

int
mwsim_run(const struct mwsim_config *c, struct mwsim_result *r, struct err *e)
{
	struct sim m = { .c = c, .r = r };
	int64_t max_events, live;
	int njobs = 0, rc, maxhops = 0;

	memset(r, 0, sizeof *r);
	if ((rc = check(c, e)) < 0)
		return rc;
	r->nres = c->nres;
	r->nslave = c->nslave;
	r->busy_s = xcalloc((size_t)c->nres, sizeof *r->busy_s);
	r->util = xcalloc((size_t)c->nres, sizeof *r->util);
	r->wait_s = xcalloc((size_t)c->nres, sizeof *r->wait_s);
	r->slave_idle_s = xcalloc((size_t)c->nslave, sizeof *r->slave_idle_s);
	r->slave_tasks = xcalloc((size_t)c->nslave, sizeof *r->slave_tasks);
	for (int k = 0; k < c->nslave; k++)
		maxhops = c->slaves[k].nhops > maxhops ? c->slaves[k].nhops : maxhops;
	max_events = c->max_events > 0 ? c->max_events : 64 * c->tasks * (maxhops + 2);
	live = (int64_t)c->nslave * c->depth;
	if (live > c->tasks)
		live = c->tasks;
	m.jobs = xcalloc((size_t)live, sizeof *m.jobs);
	m.res = xmallocarray((size_t)c->nres, sizeof *m.res);
	m.heap = xmallocarray((size_t)c->nres, sizeof *m.heap);
	for (int i = 0; i < c->nres; i++)
		m.res[i] = (struct res){ .head = -1, .tail = -1, .serving = -1,
					 .tok_s = c->bucket != NULL ? c->bucket[i].burst_s : 0 };
	m.mark_lo = c->tasks / 10 > 0 ? c->tasks / 10 : 1;
	m.mark_hi = c->tasks - c->tasks / 10;

	/* Round-robin the first hand-outs so that every slave gets work early. */
	for (int d = 0; d < c->depth && m.handed < c->tasks; d++) {
		for (int k = 0; k < c->nslave && m.handed < c->tasks; k++) {
			int job = njobs++;

			m.jobs[job] = (struct job){ .slave = k, .step = 0, .next = -1 };
			m.handed++;
			if (arrive(&m, job, 0))
				complete_task(&m, job, 0);
		}
	}
	while (m.nheap > 0) {
		struct event ev;
		int job, res;

		if (r->events >= max_events) {
			r->truncated = true;
			break;
		}
		ev = heap_pop(&m);
		r->events++;
		res = ev.res;
		job = m.res[res].serving;
		m.res[res].serving = -1;
		if (m.res[res].head >= 0) {	/* FIFO: the next waiting job starts now */
			int nxt = m.res[res].head;

			m.res[res].head = m.jobs[nxt].next;
			if (m.res[res].head < 0)
				m.res[res].tail = -1;
			start_service(&m, res, nxt, ev.t);
		}
		m.jobs[job].step++;
		if (arrive(&m, job, ev.t))
			complete_task(&m, job, ev.t);
	}
	if (r->truncated) {
		/* Count only service that ended; the figures describe the run up to now. */
		for (int i = 0; i < m.nheap; i++) {
			const struct job *j = &m.jobs[m.res[m.heap[i].res].serving];
			int rr;
			double svc;

			step_of(&m, &c->slaves[j->slave], j->step, &rr, &svc);
			r->busy_s[rr] -= fmax(0, m.heap[i].t - r->makespan_s);
		}
	}
	r->throughput_tps = r->makespan_s > 0 ? (double)r->done / r->makespan_s : 0;
	r->steady_tps = m.t_hi > m.t_lo ? (double)(m.mark_hi - m.mark_lo) / (m.t_hi - m.t_lo) :
			r->throughput_tps;
	for (int i = 0; i < c->nres; i++) {
		r->busy_s[i] = fmax(0, r->busy_s[i]);
		r->util[i] = r->makespan_s > 0 ? fmin(1, r->busy_s[i] / r->makespan_s) : 0;
	}
	for (int k = 0; k < c->nslave; k++)
		r->slave_idle_s[k] = fmax(0, r->makespan_s - r->busy_s[c->slaves[k].cpu]);
	free(m.jobs);
	free(m.res);
	free(m.heap);
	return 0;
}

void
mwsim_result_release(struct mwsim_result *r)
{
	if (r == NULL)
		return;
	free(r->busy_s);
	free(r->util);
	free(r->wait_s);
	free(r->slave_idle_s);
	free(r->slave_tasks);
	memset(r, 0, sizeof *r);
}
