/* attrib: a slow run's time split among its causes (see attrib.h). */
#include "explain/attrib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sortnum.h"
#include "lib/u64map.h"
#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/replay.h"

/* One run as the attribution sees it: its replay and each rank's busy time split. */
struct side {
	struct prof view;	/* the run with the demand phases as its busy phases */
	const struct prof *p;	/* &view */
	const struct evid *v;
	struct replay_trace x;	/* REPLAY_MEASURED */
	double T;		/* measured run time */
	double *busy;		/* [nranks] busy time */
	double *wait;		/* [nranks] run-queue wait inside it */
	double *own;		/* [nranks] own work: busy - wait */
	double own_mean;	/* over the ranks with busy time */
	double work_mean;	/* own work between the first and the last message, mean */
	double startup, finish;	/* before the first message, after the last */
	double obs;		/* of the time before the first message, what collect's agents
				 * held it (evid start_hold_ns, at most that time): not in
				 * startup, nor in late */
	double *busy_start;	/* [nranks] busy time in the start-up (before the first message) */
	double *late;		/* [nranks] from the run's first CPU sample to the rank's own
				 * first: its launch (the launcher's work on its node before the
				 * program starts), in the start-up, what collect's agents held
				 * it (evid start_held_ns) taken out */
	double *st;		/* [nranks] scratch starts (replay_in start_ns, startup_fence) */
	bool *out;		/* [nranks] its node's cpu cause is out (cpu_out) */
	double *rdt;		/* [nmsgs] of a rendezvous message, the part of its time on the
				 * wire that waited for its receiver behind competitors (< 0, as
				 * a change: rndv_waits), 0; NULL none */
	double *mdt;		/* [nmsgs] scratch changes of the messages (replay_in msg_dt_ns) */
	uint8_t *rv;		/* [nmsgs] scratch: those of them that wait for their receiver
				 * (replay_in rndv) */
	double *idle_rate;	/* [nranks] in its idle phases, the share of its runnable time
				 * it ran: run / (run + run-queue wait); 1 unknown */
	double *cap;		/* [nranks] the CPU it may use: its node's cpu_capacity shared
				 * among the node's ranks, at most 1 */
	double *f;		/* [nranks] scratch factors on busy time */
	double *g;		/* [nranks] scratch factors on the gaps (replay_in gap_f) */
	double *wake;		/* [nranks] the wake-up delay its waited-for receives had in the
				 * run (replay_rank_wake_ns of its competitors), 0 none */
	double *w;		/* [nranks] scratch wake-up changes (replay_in wake_ns) */
	double *gb;		/* [nranks] the same rank's gaps in the baseline over its gaps
				 * here, at most 1 (gap_shares); 0 without a baseline */
	double *gw;		/* [nranks] the share of its gaps that leaves its own work and
				 * gaps together at the baseline's (gap_shares); 0 without one */
	double *fxs;		/* [nranks] scratch replay_in free_max_ns of a cpu replay */
	double *excess_ns;	/* [nranks] own work beyond the same rank's in the baseline:
				 * no work of the program (own_excess), not in own; 0 */
	double *throttle_ns;	/* [nranks] of a rank without competitors, the run-queue wait
				 * its own limit put on its excess (poll_shares); not in
				 * wait_excess; 0 */
	double *pf;		/* [nranks] replay_in poll_f: the share of the busy time before
				 * the rank's waited-for receives that was waiting too */
	double *pw;		/* [nranks] the busy time pf places as waiting: pf times the
				 * rank's busy time before those receives, ns */
	double *ps;		/* [nranks] the same share of the busy time before its sends:
				 * waiting there, for a send behind its earlier ones (queue_dt) */
	double *ff;		/* [nranks] replay_in free_f (wait_grown): of a rank without
				 * competitors, its time that is not waiting grown over the
				 * baseline's, per ns its waits grew; 0 */
	double *fx;		/* [nranks] replay_in free_max_ns: that growth, ns */
	bool ideal;		/* the ideal run is replayed: ff stays out (ideal_factor and
				 * ideal_gap_factor take that time out already) */
	int64_t *sp_from;	/* [nmsgs] before each send (replay_send_spans): the sender's */
	double *sp_gap;		/* previous event, the gap and the busy time since */
	double *sp_busy;
	long *sk, *sk_off;	/* each rank's sends by departure: rank i's are the messages
				 * sk[sk_off[i]..sk_off[i + 1]) */
	double *max_xfer;	/* [nranks] the longest time on the wire of its sends */
	long *woke_all;		/* [nranks] receives whose wake-up delay the cpu cause
				 * takes out (woke_in_busy) */
	long *woke_busy;	/* [nranks] those of them the samples put inside a busy phase */
	const struct prof_busy **ph;	/* each rank's busy phases by start: rank i's are */
	long *off;			/* ph[off[i]..off[i + 1]) (coloc_phases_by_rank) */
};

/* Per rank (index in p->ranks) its sends (recv 0) or receives (recv 1), as indices into
 * p->msgs in the file's order: rank i's are (*k)[off[i]..off[i + 1]). The caller frees
 * both. */
static void
msgs_by_rank(const struct prof *p, int recv, long **k, long **off)
{
	long *o = xcalloc((size_t)p->nranks + 2, sizeof *o), *at;
	long *a = xmallocarray((size_t)p->nmsgs + 1, sizeof *a);

	for (int pass = 0; pass < 2; pass++) {
		for (long j = 0; j < p->nmsgs; j++) {
			const struct prof_msg *m = &p->msgs[j];
			const struct prof_rank *x = m->src >= 0 ? prof_rank(p, m->src) : NULL;
			const struct prof_rank *y = m->dst >= 0 ? prof_rank(p, m->dst) : NULL;
			int i;

			if (x == NULL || y == NULL || x == y)
				continue;
			i = (int)((recv ? y : x) - p->ranks);
			if (pass == 0)
				o[i + 2]++;
			else
				a[at[i]++] = j;
		}
		if (pass == 0) {
			for (int i = 0; i < p->nranks; i++)
				o[i + 2] += o[i + 1];
			at = o + 1;
		}
	}
	*k = a;
	*off = o;
}

static int side_index(const struct side *s, int r);
static double busy_in(const struct side *s, int i, int64_t t0, int64_t t1);

/* s->woke_all: per rank, its receives whose wake-up delay the cpu cause takes out at the
 * receive (replay_in wake_ns: found waiting, needed on arrival, once a wake-up,
 * replay_trace next_ns); s->woke_busy: those that came inside one of its busy phases: the
 * phase's first event (the work the message brought, its interval read busy from the
 * arrival on), or one its rank answered or replied to (predict/replay.c
 * trace_receive_keys: polling read busy). The rank got the
 * CPU inside the phase, so the samples counted the message's wake-up delay in the phase's
 * run-queue wait, which the cpu cause takes out with the rest. Counted from the trace, as
 * the replay reads it, so that each delay is taken out once: a receive the replay gives
 * no delay back (a message that came within the delay of the one before, which its rank
 * found there on waking) keeps its share of the wait in the phase. Needs s->wake
 * (wake_delays). */
static void
woke_in_busy(struct side *s)
{
	const struct prof *p = s->p;

	for (int i = 0; i < p->nranks; i++)
		s->woke_busy[i] = s->woke_all[i] = 0;
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;
		int d = m->src >= 0 && m->dst >= 0 && m->src != m->dst && prof_rank(p, m->src) != NULL ?
			side_index(s, m->dst) : -1;

		if (d < 0 || s->wake[d] <= 0 || s->x.need_ns[k] != arr || !(s->x.wait_ns[k] > 0) ||
		    s->x.next_ns[k] < s->wake[d])
			continue;
		s->woke_busy[d] += busy_in(s, d, arr, arr + 1) > 0;
		s->woke_all[d]++;
	}
}

/* The run time with in's changes; s->T (nothing changed) should the replay fail, which
 * only changed links can make it do. */
static double
replay_time(const struct side *s, const struct replay_in *in)
{
	struct replay_out o = { 0 };
	struct replay_in c = *in;
	struct err e;

	c.poll_f = s->pf;	/* every counterfactual reads the run's waits alike */
	c.free_f = s->ideal ? NULL : s->ff;
	c.free_max_ns = in->free_max_ns != NULL ? in->free_max_ns : s->fx;
	return replay_run(&s->x, &c, &o, &e) == 0 ? o.run_ns : s->T;
}

/* Busy time of rank i (index in p->ranks) inside [t0, t1]: its own phases only, not a
 * pass over every rank's per rank (ranks times phases, and a cache thrashed on a large
 * run). The sum is of whole nanoseconds, exact in any order. */
static double
busy_within(const struct side *s, int i, int64_t t0, int64_t t1)
{
	double ns = 0;

	for (long k = s->off[i]; k < s->off[i + 1]; k++) {
		const struct prof_busy *b = s->ph[k];
		int64_t a = b->t_start_ns > t0 ? b->t_start_ns : t0, z = b->t_end_ns < t1 ? b->t_end_ns : t1;

		if (z > a)
			ns += (double)(z - a);
	}
	return ns;
}

static int
cmp_send(const void *a, const void *b, void *arg)
{
	const struct prof *p = arg;
	const struct prof_msg *x = &p->msgs[*(const long *)a], *y = &p->msgs[*(const long *)b];

	if (x->t_ns != y->t_ns)
		return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
	return (*(const long *)a > *(const long *)b) - (*(const long *)a < *(const long *)b);
}

/* s->sk, s->sk_off: each rank's sends by departure; s->max_xfer. */
static void
sends_by_rank(struct side *s)
{
	const struct prof *p = s->p;

	msgs_by_rank(p, 0, &s->sk, &s->sk_off);
	s->max_xfer = xcalloc((size_t)p->nranks + 1, sizeof *s->max_xfer);
	for (int i = 0; i < p->nranks; i++) {
		for (long j = s->sk_off[i]; j < s->sk_off[i + 1]; j++)
			s->max_xfer[i] = fmax(s->max_xfer[i], (double)(p->msgs[s->sk[j]].t_last_ns - p->msgs[s->sk[j]].t_ns));
		qsort_r(s->sk + s->sk_off[i], (size_t)(s->sk_off[i + 1] - s->sk_off[i]), sizeof *s->sk, cmp_send,
			(void *)p);
	}
}

/* s->late: each rank's first phase (busy or idle: its first CPU sample, as its program
 * started) after the run's first, at most up to the first message tm0. A rank whose node
 * is loaded is launched late: MPICH's launcher and the observer start it 0.12-0.20 s after
 * the others under a competitor (Open MPI's 0.05-0.07 s), and the others, done with their
 * own start-up, wait for it in MPI_Init unseen. side_init takes the observer's part out
 * (evid start_held_ns): on 4x1 most of it was collect's agent setting up slower beside
 * the competitor (0.19-0.36 s against 0.09-0.14 s on the other nodes). */
static void
launch_times(struct side *s, int64_t tm0)
{
	const struct prof *p = s->p;
	int64_t *first = xmallocarray((size_t)p->nranks + 1, sizeof *first);

	for (int i = 0; i < p->nranks; i++)
		first[i] = s->off[i + 1] > s->off[i] ? s->ph[s->off[i]]->t_start_ns : INT64_MAX;
	for (long k = 0; k < p->nidle; k++) {
		const struct prof_rank *rk = prof_rank(p, p->idle[k].rank);

		if (rk != NULL && p->idle[k].t_start_ns < first[rk - p->ranks])
			first[rk - p->ranks] = p->idle[k].t_start_ns;
	}
	for (int i = 0; i < p->nranks; i++)
		s->late[i] = first[i] != INT64_MAX && first[i] > p->t_phase0_ns ?
			     (double)((first[i] < tm0 ? first[i] : tm0) - p->t_phase0_ns) : 0;
	free(first);
}

static void
side_init(struct side *s, const struct prof *p, const struct evid *v)
{
	int64_t tm0 = INT64_MAX, tm1 = INT64_MIN;
	int nbusy = 0;
	struct coloc_rank *cl;

	*s = (struct side){ .view = *p, .v = v, .T = (double)prof_dedicated_ns(p) };
	if (v->have_demand) {
		s->view.busy = v->demand;
		s->view.nbusy = v->ndemand;
		s->view.have_phases = true;
	}
	p = s->p = &s->view;
	replay_trace_init(&s->x, p, REPLAY_MEASURED);
	s->busy = xcalloc((size_t)p->nranks + 1, sizeof *s->busy);
	s->wait = xcalloc((size_t)p->nranks + 1, sizeof *s->wait);
	s->own = xcalloc((size_t)p->nranks + 1, sizeof *s->own);
	s->f = xcalloc((size_t)p->nranks + 1, sizeof *s->f);
	s->g = xcalloc((size_t)p->nranks + 1, sizeof *s->g);
	s->idle_rate = xcalloc((size_t)p->nranks + 1, sizeof *s->idle_rate);
	s->cap = xcalloc((size_t)p->nranks + 1, sizeof *s->cap);
	s->wake = xcalloc((size_t)p->nranks + 1, sizeof *s->wake);
	s->w = xcalloc((size_t)p->nranks + 1, sizeof *s->w);
	s->gb = xcalloc((size_t)p->nranks + 1, sizeof *s->gb);
	s->gw = xcalloc((size_t)p->nranks + 1, sizeof *s->gw);
	s->fxs = xcalloc((size_t)p->nranks + 1, sizeof *s->fxs);
	s->woke_busy = xcalloc((size_t)p->nranks + 1, sizeof *s->woke_busy);
	s->woke_all = xcalloc((size_t)p->nranks + 1, sizeof *s->woke_all);
	s->excess_ns = xcalloc((size_t)p->nranks + 1, sizeof *s->excess_ns);
	s->throttle_ns = xcalloc((size_t)p->nranks + 1, sizeof *s->throttle_ns);
	s->pf = xcalloc((size_t)p->nranks + 1, sizeof *s->pf);
	s->ps = xcalloc((size_t)p->nranks + 1, sizeof *s->ps);
	s->pw = xcalloc((size_t)p->nranks + 1, sizeof *s->pw);
	s->ff = xcalloc((size_t)p->nranks + 1, sizeof *s->ff);
	s->fx = xcalloc((size_t)p->nranks + 1, sizeof *s->fx);
	s->busy_start = xcalloc((size_t)p->nranks + 1, sizeof *s->busy_start);
	s->late = xcalloc((size_t)p->nranks + 1, sizeof *s->late);
	s->st = xcalloc((size_t)p->nranks + 1, sizeof *s->st);
	s->out = xcalloc((size_t)p->nranks + 1, sizeof *s->out);
	s->sp_from = xmallocarray((size_t)p->nmsgs + 1, sizeof *s->sp_from);
	s->sp_gap = xmallocarray((size_t)p->nmsgs + 1, sizeof *s->sp_gap);
	s->sp_busy = xmallocarray((size_t)p->nmsgs + 1, sizeof *s->sp_busy);
	replay_send_spans(&s->x, s->sp_from, s->sp_gap, s->sp_busy);
	sends_by_rank(s);
	coloc_phases_by_rank(p, &s->ph, &s->off);
	cl = xcalloc((size_t)p->nranks + 1, sizeof *cl);
	coloc_read(p, cl);
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *rk = &p->ranks[i];
		double b = s->x.busy_ns[i], w;

		/* without per-phase wait, the rank's wait in proportion to its busy share */
		if (v->have_phase_wait)
			w = v->rank[i].busy_wait_ns;
		else
			w = rk->wait_ns > 0 && rk->exec_ns > 0 ? (double)rk->wait_ns * b / (double)rk->exec_ns : 0;
		s->busy[i] = b;
		s->wait[i] = fmin(fmax(w, 0), b);
		s->own[i] = b - s->wait[i];
		s->g[i] = 1;
		{
			const struct evid_rank *er = &v->rank[i];
			const struct evid_host *eh = evid_host(v, rk->host);

			s->idle_rate[i] = er->idle_run_ns + er->idle_wait_ns > 0 ?
					  er->idle_run_ns / (er->idle_run_ns + er->idle_wait_ns) : 1;
			/* the node's capacity shared with the rank's neighbours as busy as they
			 * were while it was (predict/coloc.h): one always busy takes half */
			s->cap[i] = eh != NULL && isfinite(eh->capacity) && eh->capacity > 0 ?
				    fmin(eh->capacity / (1 + cl[i].others_busy), 1) : 1;
		}
		if (b > 0) {
			s->own_mean += s->own[i];
			nbusy++;
		}
	}
	free(cl);
	if (nbusy > 0)
		s->own_mean /= nbusy;
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];

		if (m->src < 0 || m->dst < 0 || prof_rank(p, m->src) == NULL || prof_rank(p, m->dst) == NULL)
			continue;
		if (m->t_ns < tm0)
			tm0 = m->t_ns;
		if (m->t_last_ns > tm1)
			tm1 = m->t_last_ns;
	}
	if (tm0 != INT64_MAX && p->t_phase1_ns > p->t_phase0_ns) {
		s->startup = fmin(fmax((double)(tm0 - p->t_phase0_ns), 0), s->T);
		s->finish = fmin(fmax((double)(p->t_phase1_ns - tm1), 0), s->T);
		for (int i = 0; i < p->nranks; i++)
			s->busy_start[i] = busy_within(s, i, p->t_phase0_ns, tm0);
		launch_times(s, tm0);
		/* collect's agents start their ranks after setting up, some later than others:
		 * the program's own start-up and launch are what is left without that */
		s->obs = fmin(fmax(v->start_hold_ns, 0), s->startup);
		s->startup -= s->obs;
		for (int i = 0; i < p->nranks; i++)
			s->late[i] = fmax(s->late[i] - v->rank[i].start_held_ns, 0);
	} else {
		tm0 = INT64_MIN;
		tm1 = INT64_MAX;
	}
	/* start-up and finish are their own causes: the work counted is what lies between */
	for (int i = 0; i < p->nranks && nbusy > 0; i++)
		if (s->busy[i] > 0)
			s->work_mean += busy_within(s, i, tm0, tm1) * s->own[i] / s->busy[i] / nbusy;
}

static void
side_free(struct side *s)
{
	replay_trace_free(&s->x);
	free(s->busy);
	free(s->wait);
	free(s->own);
	free(s->f);
	free(s->g);
	free(s->idle_rate);
	free(s->cap);
	free(s->wake);
	free(s->w);
	free(s->gb);
	free(s->gw);
	free(s->fxs);
	free(s->ph);
	free(s->off);
	free(s->woke_busy);
	free(s->woke_all);
	free(s->excess_ns);
	free(s->throttle_ns);
	free(s->pf);
	free(s->ps);
	free(s->pw);
	free(s->ff);
	free(s->fx);
	free(s->busy_start);
	free(s->late);
	free(s->st);
	free(s->out);
	free(s->rdt);
	free(s->mdt);
	free(s->rv);
	free(s->sp_from);
	free(s->sp_gap);
	free(s->sp_busy);
	free(s->sk);
	free(s->sk_off);
	free(s->max_xfer);
}

/* The index of world rank r in s->p->ranks, or -1. */
static int
side_index(const struct side *s, int r)
{
	const struct prof_rank *rk = prof_rank(s->p, r);

	return rk != NULL ? (int)(rk - s->p->ranks) : -1;
}

/* The run-queue wait of rank i that the cpu cause takes out: with a baseline what exceeds
 * the same rank's there; without one what exceeds the wait its own limit imposes (a rank
 * that may use a share c of a CPU waits own * (1/c - 1) to run own, however idle the
 * node: a quota's throttling, or a rank of the same run beside it, is no other process). */
static double
wait_excess(const struct side *s, const struct side *b, int i)
{
	int j = b != NULL ? side_index(b, s->p->ranks[i].rank) : -1;

	if (j >= 0)
		return fmax(s->wait[i] - b->wait[j] - s->throttle_ns[i], 0);
	return fmax(s->wait[i] - s->own[i] * (1 / s->cap[i] - 1), 0);
}

static double wake_taken(const struct side *s, const struct side *b, int i);

/* The run-queue wait of rank i's busy phases that the cpu cause takes out by shortening
 * them: wait_excess less the wake-up delays of the receives whose delay lies inside a
 * phase (woke_in_busy), which it takes out where they were, at those receives. */
static double
busy_taken(const struct side *s, const struct side *b, int i)
{
	return fmax(wait_excess(s, b, i) - (double)s->woke_busy[i] * wake_taken(s, b, i), 0);
}

/* The factor the cpu cause puts on rank i's gaps (the idle time it spent getting to a
 * send): a rank handling a message is runnable throughout, and the CPU it gets sets its
 * pace, so the gap shrinks as the share of its runnable time it ran in its idle phases
 * rises to the same rank's share in the baseline, or without one to what it may use
 * (cpu_capacity shared among the node's ranks: a quota's throttling, or a rank of the
 * same run beside it, is no other process). Never above 1. */
static double
idle_factor(const struct side *s, const struct side *b, int i)
{
	int j = b != NULL ? side_index(b, s->p->ranks[i].rank) : -1;
	double ref = j >= 0 ? b->idle_rate[j] : s->cap[i];

	return ref > 0 ? fmin(s->idle_rate[i] / ref, 1) : 1;
}

/* The factor that gives rank i busy time want (1 when it had none). */
static double
factor(const struct side *s, int i, double want)
{
	return s->busy[i] > 0 ? fmax(want, 0) / s->busy[i] : 1;
}

/* The wake-up delay the cpu cause takes off each receive that found rank i waiting: its
 * s->wake, but no more in all, over every such receive (s->woke_all), than the run-queue
 * wait of its busy phases it takes out (wait_excess). The delays are run-queue wait that
 * schedstat counted where they fell: in a busy phase, in that wait; in idle time, in the
 * idle time's, which the gaps' pace (idle_factor) takes out already. QR under a
 * competitor (Open MPI, bench/explain 2x1, round 1) had 54844 such receives on the loaded
 * rank, 21818 in busy phases, for 2.42 s of wait above the baseline there: its small
 * messages come faster than the scheduler's slices, one wake-up serving several, and at
 * 0.75 ms each the term took 41 s out of a 9.5 s run, where the phases' wait was held
 * back for it (busy_taken 0): the cause cost 4.82 s of 4.41 s measured, and the ideal run
 * fell 0.78 s under the dedicated one. */
static double
wake_taken(const struct side *s, const struct side *b, int i)
{
	double in_busy = (double)s->woke_all[i] * s->wake[i];

	return in_busy > 0 ? s->wake[i] * fmin(wait_excess(s, b, i) / in_busy, 1) : s->wake[i];
}

/* Rank i's factors with its node's CPU competition taken out (out) or left (!out): its
 * busy time less the wait the cause takes and, behind competitors, its own work beyond
 * the baseline's (own_excess); its gaps at the pace of the CPU it could have had
 * (idle_factor), but no shorter in all than the same rank's in the baseline (s->gb): the
 * pace is that of the rank's idle time as a whole, and on QR under a competitor (Open
 * MPI, bench/explain 2x1) it took the loaded rank's gaps from 3.23 to 1.65 s against
 * 1.93 s dedicated. */
static void
cpu_out(struct side *s, const struct side *b, int i, bool out)
{
	double cut = busy_taken(s, b, i) + (s->wake[i] > 0 ? s->excess_ns[i] : 0);

	s->out[i] = out;
	s->f[i] = out ? factor(s, i, s->busy[i] - cut) : 1;
	s->g[i] = out ? fmax(idle_factor(s, b, i), s->gb[i]) : 1;
	s->w[i] = out ? -wake_taken(s, b, i) : 0;
}

/* The start-up's excess: over the baseline's, or without one all of it; never below 0. */
static double
startup_excess(const struct side *s, const struct side *b)
{
	return fmax(s->startup - (b != NULL ? b->startup : 0), 0);
}

/* How much sooner rank i is launched with its node's cpu cause out (s->out): a rank
 * behind competitors (s->wake) starts as late as the same rank in the baseline b; 0 for
 * the others (who starts first among idle nodes is the launcher's order). */
static double
launch_saved(const struct side *s, const struct side *b, int i)
{
	int j = s->out[i] && s->wake[i] > 0 ? side_index(b, s->p->ranks[i].rank) : -1;

	return j >= 0 ? fmax(s->late[i] - b->late[j], 0) : 0;
}

/* What rank i's idle time in the start-up gives back with its node's cpu cause out: a
 * rank behind competitors starting up is runnable throughout (exec, loading, MPI_Init in
 * system calls reads idle by demand), and its idle time there goes at the pace of the CPU
 * it could have had, as its gaps do (idle_factor; the gaps' floor at the baseline's is
 * the run's, not the start-up's); 0 for the others, whose idle time there is waiting for
 * the slowest. */
static double
start_idle_saved(const struct side *s, const struct side *b, int i)
{
	double idle = s->startup - s->late[i] - s->busy_start[i];

	return s->out[i] && s->wake[i] > 0 && idle > 0 ? idle * (1 - idle_factor(s, b, i)) : 0;
}

/* What the cpu causes now in s->f (cpu_out) take off the start-up, and s->st (replay_in
 * start_ns) for it; returns 0 with s->st untouched when they take nothing. The start-up
 * lasts until the run's first message, and the ranks meet in it (MPI_Init) through their
 * launcher, which the trace does not see: the replay moves each rank's first event by its
 * own busy time alone, and a start-up stretched by a competitor on one node read as a
 * cause of its own. With a baseline whose start-up was shorter, the ranks are taken to
 * leave it together, when the slowest is done: each rank's busy time in it shrinks as all
 * its busy time does (by 1 - f), a rank behind competitors is launched as soon as in the
 * baseline (launch_saved) and its idle time there shrinks as its gaps do
 * (start_idle_saved), and the start-up shrinks by the most any rank's does, down to
 * what some rank still needs there (its launch and busy time; its polling, as
 * poll_shares reads it, needs none), and by at most its excess. Every rank then starts
 * that much sooner, less what its own busy time before its first event gives back in the
 * replay. */
static double
startup_fence(struct side *s, const struct side *b)
{
	const struct prof *p = s->p;
	double most = 0, need = 0, g;

	if (b == NULL)
		return 0;
	for (int i = 0; i < p->nranks; i++) {
		double poll = s->wake[i] <= 0 && s->busy[i] > 0 ? (s->excess_ns[i] + s->throttle_ns[i]) / s->busy[i] : 0;
		double late = launch_saved(s, b, i);

		most = fmax(most, late + s->busy_start[i] * (1 - s->f[i]) + start_idle_saved(s, b, i));
		need = fmax(need, s->late[i] - late + s->busy_start[i] * fmax(s->f[i] - poll, 0));
	}
	g = fmin(fmin(most, s->startup - need), startup_excess(s, b));
	if (!(g > 0))
		return 0;
	for (int i = 0; i < p->nranks; i++)
		s->st[i] = -g + s->busy_start[i] * (1 - s->f[i]);
	return g;
}

static double gap_total(const struct side *s, int i, const double *q, double *queued);
static double ideal_factor(const struct side *s, int i, double want);

/* With a baseline b and a node behind competitors among the cpu causes now out (s->out,
 * s->wake), every rank without competitors spends no more time between its events than
 * the same rank did in the baseline, but for its waits: what grew was waiting for the
 * loaded ranks. Its busy time loses its own work beyond the baseline's and the quota wait
 * that earned (s->excess_ns, s->throttle_ns: polling that read busy; ideal_factor, so
 * that the share poll_shares placed as waiting goes once), and its gaps what makes its
 * own work and gaps together longer than the baseline's (s->gw). A rank that polls in the
 * kernel for a message (Open MPI over TCP) reads idle, and its work between two of its
 * events, a few ms inside an interval of polling, reads idle with it: the interval's user
 * share is low. On LAMMPS under a competitor on ws2 (Open MPI, bench/explain 2x1, round
 * 1) rank 0's gaps were 2.60 s against 0.15 s dedicated, its own work 3.69 against 4.46
 * s: 3.7 ms before each of 516 sends where dedicated it worked 2.5-2.9 ms, reading busy.
 * The cause's replay kept them, rank 0 became its path, and the cause cost 2.77 s of 5.27
 * s measured. What they lose is taken off what free_f may still give them (s->fxs),
 * which holds the same growth. Taking that growth out in every cause's replay gave it to
 * the cpu causes of runs with none (a capped link's: docs/explain.md); a cause with no
 * competitor (a rank's own limit) leaves it, and so does the link's replay. Returns
 * s->fxs, or NULL when nothing changed. */
static const double *
free_grown(struct side *s, const struct side *b)
{
	const struct prof *p = s->p;
	bool loaded = false;

	for (int i = 0; i < p->nranks; i++)
		loaded = loaded || (s->out[i] && s->wake[i] > 0);
	if (b == NULL || !loaded)
		return NULL;
	for (int i = 0; i < p->nranks; i++) {
		double unused, gaps;

		s->fxs[i] = s->fx[i];
		if (s->wake[i] <= 0 && s->busy[i] > 0) {
			double want = s->busy[i] * s->f[i] - s->excess_ns[i] - s->throttle_ns[i];
			double f = ideal_factor(s, i, want);

			if (f < s->f[i]) {
				s->fxs[i] = fmax(s->fxs[i] - s->busy[i] * (s->f[i] - f), 0);
				s->f[i] = f;
			}
		}
		if (s->wake[i] > 0 || !(s->gw[i] < s->g[i]))
			continue;	/* the loaded ranks' gaps go at their pace (cpu_out) */
		gaps = gap_total(s, i, NULL, &unused);
		s->fxs[i] = fmax(s->fxs[i] - gaps * (s->g[i] - s->gw[i]), 0);
		s->g[i] = s->gw[i];
	}
	return s->fxs;
}

/* The run time with the cpu causes now in s->f, s->g, s->w taken out (c: those
 * changes), their start-up included (startup_fence: what they take off it to *gain_ns,
 * when not NULL), the rendezvous that waited for their ranks (s->rdt), and the other
 * ranks' time that grew waiting for them (free_grown). */
static double
cpu_replay(struct side *s, const struct side *b, struct replay_in *c, double *gain_ns)
{
	double g = startup_fence(s, b);

	c->free_max_ns = free_grown(s, b);
	c->start_ns = g > 0 ? s->st : NULL;
	c->msg_dt_ns = NULL;
	c->rndv = NULL;
	if (s->rdt != NULL) {
		const struct prof *p = s->p;

		for (long k = 0; k < p->nmsgs; k++) {
			int d = s->rdt[k] < 0 ? side_index(s, p->msgs[k].dst) : -1;

			s->mdt[k] = d >= 0 && s->out[d] ? s->rdt[k] : 0;
			s->rv[k] = s->mdt[k] < 0;
		}
		c->msg_dt_ns = s->mdt;
		c->rndv = s->rv;
	}
	if (gain_ns != NULL)
		*gain_ns = g;
	return replay_time(s, c);
}

/* With a baseline b, each rank's own work (busy less run-queue wait) beyond the same
 * rank's there (s->excess_ns) is no work of the program: waiting that read busy (a rank
 * polling for a message runs its loop on the CPU, and the demand phases read an interval
 * busy when its user ticks land there; the longer it waits, the more of its wait reads
 * so), or work a competitor slowed (caches). The replay would keep it as work the rank
 * must do whatever its messages' times, and the ideal run kept every rank at the mean
 * own work, excess included. It leaves own (so the ideal run and imbalance see the
 * baseline's work), and the cpu cause of a rank with competitors (s->wake) takes it out
 * with the wait (cpu_out); a rank without them waited for others and keeps it. */
static void
own_excess(struct side *s, const struct side *b)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < s->p->nranks && b != NULL; i++) {
		int j = side_index(b, s->p->ranks[i].rank);
		double x = j >= 0 ? fmax(s->own[i] - b->own[j], 0) : 0;

		s->excess_ns[i] = x;
		s->own[i] -= x;
		if (s->busy[i] > 0) {
			sum += s->own[i];
			n++;
		}
	}
	if (b != NULL && n > 0)
		s->own_mean = sum / n;
}

/* With a baseline, a rank without competitors (s->wake 0) whose own work exceeds the
 * same rank's there was waiting when it read busy: a polling loop's user ticks, and under
 * its own CPU limit the run-queue wait that polling earned it (a share c of a CPU waits
 * excess * (1/c - 1) for it; at most its wait above the baseline, s->throttle_ns, which
 * is then no cpu cause). That busy time goes when what it waited for comes sooner. It is
 * placed where the rank's busy time grew over the baseline's (replay_busy_split): before
 * receives that found it waiting it joins W (s->pf, replay_in poll_f, in every
 * counterfactual alike, so the run replays as measured when nothing changes); before an
 * answer W holds it already; before sends it is waiting for the send to leave (s->ps,
 * queue_dt). A rank behind competitors loses its excess with its node's cause instead
 * (cpu_out). */
static void
poll_shares(struct side *s, const struct side *b)
{
	const struct prof *p = s->p;
	double *sp, *bsp;

	if (b == NULL)
		return;
	sp = xcalloc((size_t)p->nranks * REPLAY_SPLIT_N + 1, sizeof *sp);
	bsp = xcalloc((size_t)b->p->nranks * REPLAY_SPLIT_N + 1, sizeof *bsp);
	replay_busy_split(&s->x, sp);
	replay_busy_split(&b->x, bsp);
	for (int i = 0; i < p->nranks; i++) {
		int j = side_index(b, p->ranks[i].rank);
		const double *x = sp + (long)i * REPLAY_SPLIT_N;
		double grew[REPLAY_SPLIT_N], all = 0, poll;

		if (j < 0 || s->wake[i] > 0 || s->excess_ns[i] <= 0)
			continue;
		for (int c = 0; c < REPLAY_SPLIT_N; c++) {
			grew[c] = fmax(x[c] - bsp[(long)j * REPLAY_SPLIT_N + c], 0);
			all += grew[c];
		}
		s->throttle_ns[i] = fmin(wait_excess(s, b, i), s->excess_ns[i] * (1 / s->cap[i] - 1));
		poll = s->excess_ns[i] + s->throttle_ns[i];
		if (all <= 0)
			continue;
		if (x[REPLAY_SPLIT_WAITED] > 0)
			s->pf[i] = fmin(poll * grew[REPLAY_SPLIT_WAITED] / all / x[REPLAY_SPLIT_WAITED], 1);
		s->pw[i] = s->pf[i] * x[REPLAY_SPLIT_WAITED];
		if (x[REPLAY_SPLIT_SEND] > 0)
			s->ps[i] = fmin(poll * grew[REPLAY_SPLIT_SEND] / all / x[REPLAY_SPLIT_SEND], 1);
	}
	free(sp);
	free(bsp);
}

/* Per rank (index in s->p->ranks) the time between its first and its last event, *span,
 * and the part of it the replay reads as waiting, *wait: every receive's W (replay_trace
 * wait_ns) and the busy time poll_shares placed as waiting before them (s->pw). The
 * caller's arrays. */
static void
wait_spans(const struct side *s, double *span, double *wait)
{
	const struct prof *p = s->p;
	int64_t *t0 = xmallocarray((size_t)p->nranks + 1, sizeof *t0);
	int64_t *t1 = xmallocarray((size_t)p->nranks + 1, sizeof *t1);

	for (int i = 0; i < p->nranks; i++) {
		t0[i] = INT64_MAX;
		t1[i] = INT64_MIN;
		wait[i] = s->pw[i];
	}
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int a, d;

		if (m->src < 0 || m->dst < 0 || m->src == m->dst || (a = side_index(s, m->src)) < 0 ||
		    (d = side_index(s, m->dst)) < 0)
			continue;
		t0[a] = m->t_ns < t0[a] ? m->t_ns : t0[a];
		t1[a] = m->t_ns > t1[a] ? m->t_ns : t1[a];
		t0[d] = s->x.need_ns[k] < t0[d] ? s->x.need_ns[k] : t0[d];
		t1[d] = s->x.need_ns[k] > t1[d] ? s->x.need_ns[k] : t1[d];
		wait[d] += s->x.wait_ns[k];
	}
	for (int i = 0; i < p->nranks; i++)
		span[i] = t1[i] > t0[i] ? (double)(t1[i] - t0[i]) : 0;
	free(t0);
	free(t1);
}

/* With a baseline b, s->ff (replay_in free_f): a rank without competitors (s->wake 0) that
 * waits longer for its peers also spends longer between its events on what the replay does
 * not read as waiting (its gaps, its busy time outside the waits): a poller on a CPU quota
 * burns its share while it waits and earns run-queue wait for it, and its idle phases end
 * where the samples do, past the arrival. On LAMMPS under a competitor on another node
 * (bench/explain, cpu1 round 1) the unloaded ranks' time between their first and last
 * events less their waits grew 0.63, 0.52 and 0.09 s over the baseline's, for 2.6, 2.7 and
 * 3.1 s more waiting, and every cause's replay kept it, however much sooner the messages
 * came (docs/explain.md, "Time that grows with the wait"). That time goes with the waits:
 * the share it grew per ns they grew, at most 1, is taken off wherever a replay shortens
 * one of the rank's waits, and no more in all than it grew (s->fx), so the cause that
 * makes its messages come sooner frees it and no other does. The ideal run, which takes it
 * out as work (ideal_factor, ideal_gap_factor), does not use it. */
static void
wait_grown(struct side *s, const struct side *b)
{
	const struct prof *p = s->p;
	double *span, *wait, *bspan, *bwait;

	if (b == NULL)
		return;
	span = xcalloc((size_t)p->nranks + 1, sizeof *span);
	wait = xcalloc((size_t)p->nranks + 1, sizeof *wait);
	bspan = xcalloc((size_t)b->p->nranks + 1, sizeof *bspan);
	bwait = xcalloc((size_t)b->p->nranks + 1, sizeof *bwait);
	wait_spans(s, span, wait);
	wait_spans(b, bspan, bwait);
	for (int i = 0; i < p->nranks; i++) {
		int j = side_index(b, p->ranks[i].rank);
		double grew, waited;

		if (j < 0 || s->wake[i] > 0)
			continue;
		grew = (span[i] - wait[i]) - (bspan[j] - bwait[j]);
		waited = wait[i] - bwait[j];
		if (grew > 0 && waited > 0) {
			s->ff[i] = fmin(grew / waited, 1);
			s->fx[i] = grew;
		}
	}
	free(span);
	free(wait);
	free(bspan);
	free(bwait);
}

/* Busy time of rank i inside [t0, t1], from the phase that holds t0 on (a search, not
 * a pass over all its phases as busy_within). */
static double
busy_in(const struct side *s, int i, int64_t t0, int64_t t1)
{
	long lo = s->off[i], hi = s->off[i + 1];
	double ns = 0;

	while (lo < hi) {	/* the first phase ending after t0 (phases do not overlap) */
		long mid = lo + (hi - lo) / 2;

		if (s->ph[mid]->t_end_ns <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->off[i + 1] && s->ph[lo]->t_start_ns < t1; lo++) {
		int64_t a = s->ph[lo]->t_start_ns > t0 ? s->ph[lo]->t_start_ns : t0;
		int64_t z = s->ph[lo]->t_end_ns < t1 ? s->ph[lo]->t_end_ns : t1;

		if (z > a)
			ns += (double)(z - a);
	}
	return ns;
}

/* Of the wait before rank i's send sk[a] after cov (its previous event, or the instant the
 * queue rule covered to), what a slowed path's token bucket held it back, as its own
 * message at the pair's best (dt) shrinks that: a cap paces the segments of one message
 * and the next alike, so a send right behind the rank's previous one on a slowed path
 * leaves its first byte only when the bucket has refilled for it, after the earlier
 * message's last byte (on LAMMPS under a 20 Mbit/s cap: 0.6 ms, one segment, against
 * 0.02 ms dedicated). The stretch from the previous send's last byte counts when nothing
 * of the rank's came between (that byte after cov) and both sends were large and slowed
 * (dt < 0):
 * its idle time whole and its busy time at the polling share, for no longer than the
 * message's own time on the wire. */
static double
token_wait(const struct side *s, int i, const long *sk, long a, const double *dt, int64_t cov)
{
	const struct prof_msg *m = &s->p->msgs[sk[a]], *prev;
	int64_t lo, hi = m->t_ns;
	double busy, xfer = (double)(m->t_last_ns - m->t_ns);

	if (a == 0 || dt[sk[a]] >= 0 || dt[sk[a - 1]] >= 0 || !(xfer > 0) || m->bytes < EVID_MIN_BYTES)
		return 0;
	prev = &s->p->msgs[sk[a - 1]];
	if (prev->bytes < EVID_MIN_BYTES)
		return 0;
	lo = prev->t_last_ns;
	if (lo < cov || hi <= lo || (double)(hi - lo) > xfer)
		return 0;
	busy = busy_in(s, i, lo, hi);
	return ((double)(hi - lo) - busy + s->ps[i] * busy) * -dt[sk[a]] / xfer;
}

/* The link queue: per message (q, [nmsgs]) the change of the time its sender took to get
 * to it when the messages with dt < 0 go at their pair's best. A rank that waits before a
 * send (idle, or polling: the share s->ps of its busy time) while its own earlier messages
 * are still on the wire to a slower link waits behind them: Open MPI hands the next
 * message to the socket as those drain. Each stretch of that wait under an earlier
 * message on the wire (each instant counted once, for the earliest) shrinks as that
 * message's time on the wire does (-dt of it). Only large messages hold their sender so:
 * a smaller one late on the way (queued_dt) was in a queue past the sender's socket, which
 * had let it go. */
static void
queue_dt(const struct side *s, const double *dt, double *q)
{
	const struct prof *p = s->p;

	for (long k = 0; k < p->nmsgs; k++)
		q[k] = 0;
	for (int i = 0; i < p->nranks; i++) {
		const long *sk = s->sk + s->sk_off[i];
		long n = s->sk_off[i + 1] - s->sk_off[i];

		for (long a = 0; a < n; a++) {
			long k = sk[a];
			int64_t from = s->sp_from[k], at = p->msgs[k].t_ns, cov;
			double waiting = s->sp_gap[k] + s->ps[i] * s->sp_busy[k], cut = 0;
			long z;

			if (from == INT64_MIN || at <= from || waiting <= 0)
				continue;
			/* the earliest earlier send still on the wire after from */
			for (z = a; z > 0 && (double)p->msgs[sk[z - 1]].t_ns + s->max_xfer[i] > (double)from; z--)
				;
			cov = from;
			for (; z < a; z++) {
				const struct prof_msg *m = &p->msgs[sk[z]];
				int64_t lo = m->t_ns > cov ? m->t_ns : cov, hi = m->t_last_ns < at ? m->t_last_ns : at;
				double busy;

				if (dt[sk[z]] >= 0 || m->bytes < EVID_MIN_BYTES || m->t_ns >= at || hi <= lo ||
				    m->t_last_ns <= m->t_ns)
					continue;
				busy = busy_in(s, i, lo, hi);
				cut += ((double)(hi - lo) - busy + s->ps[i] * busy) * -dt[sk[z]] /
				       (double)(m->t_last_ns - m->t_ns);
				cov = hi;
			}
			cut += token_wait(s, i, sk, a, dt, from > cov ? from : cov);
			q[k] = -fmin(cut, waiting);
		}
	}
}

/* Each rank's wake-up delay in the run (s->wake): a rank that may use a share c of a CPU
 * and ran own ns of work behind k CPU-bound competitors waited own * k / c beyond its own
 * limit (or the baseline's wait), so k is that excess * c / own, to the nearest whole
 * process; its receives that found it waiting each waited replay_wake_ns(k) more for the
 * CPU (predict/replay.h), which the cpu cause takes out. */
static void
wake_delays(struct side *s, const struct side *b)
{
	for (int i = 0; i < s->p->nranks; i++) {
		double k = s->own[i] > 0 ? wait_excess(s, b, i) * s->cap[i] / s->own[i] : 0;

		s->wake[i] = k >= 0.5 ? replay_rank_wake_ns(s->p, i, (int)fmin(lround(k), 64), NAN) : 0;
	}
}

/* The factor that leaves rank i with want ns of busy time that is work in the ideal run.
 * Of a rank without competitors, the busy time poll_shares placed as waiting before its
 * waited-for receives (s->pw, at the factor, capped at 1: replay_in poll_f) goes as the
 * messages come sooner, in the ideal run as in every other; taking it out as work too (want
 * over all its busy time) took it twice, and cut its real work by as much again. So the
 * factor brings the rest of its busy time to want; when want exceeds that rest (own work
 * balanced above the rank's), the waiting stays whole and the factor adds the difference. */
static double
ideal_factor(const struct side *s, int i, double want)
{
	double rest = s->busy[i] - s->pw[i];

	if (!(s->pw[i] > 0) || !(rest > 0))
		return factor(s, i, want);
	want = fmax(want, 0);
	return want <= rest ? want / rest : (want + s->pw[i]) / s->busy[i];
}

/* Rank i's gaps: the idle time before its sends that waited for no message (replay_trace
 * gap_ns), ns; *queued the part of it the link queue takes out (queue_dt's q, taken from
 * the gap first), ns. */
static double
gap_total(const struct side *s, int i, const double *q, double *queued)
{
	double sum = 0;

	*queued = 0;
	for (long j = s->sk_off[i]; j < s->sk_off[i + 1]; j++) {
		long k = s->sk[j];

		sum += s->sp_gap[k];
		if (q != NULL)
			*queued += fmin(fmax(-q[k], 0), s->sp_gap[k]);
	}
	return sum;
}

/* Per rank, against the same rank in the baseline b (both 0 without one, or without the
 * rank there; 1 when it had no gaps here): s->gb, the baseline's gaps over its gaps here,
 * at most 1; s->gw, the share of its gaps that leaves its own work (s->own, at most the
 * baseline's: own_excess) and gaps together as long as the baseline's, where they were
 * longer. Needs own_excess. */
static void
gap_shares(struct side *s, const struct side *b)
{
	for (int i = 0; i < s->p->nranks; i++) {
		int j = b != NULL ? side_index(b, s->p->ranks[i].rank) : -1;
		double unused, have = gap_total(s, i, NULL, &unused), base, grew;

		if (j < 0) {
			s->gb[i] = s->gw[i] = 0;
			continue;
		}
		base = gap_total(b, j, NULL, &unused);
		grew = s->own[i] + have - b->own[j] - base;
		s->gb[i] = have > 0 ? fmin(base / have, 1) : 1;
		s->gw[i] = have > 0 ? 1 - fmin(fmax(grew, 0) / have, 1) : 1;
	}
}

/* The factor on rank i's gaps in the ideal run, whose link queue takes q (queue_dt) out
 * of them: idle_factor, and with a baseline no more gap time than the same rank had
 * there, the queue's cut counted in it (the replay adds both). The gaps are the idle time
 * the phases put between a rank's previous event and its send; the program's own (I/O, a
 * sleep) do not grow when a peer is loaded, but on a rank that waits for a loaded peer
 * they do: at the samples' grain (REPLAY_GRAIN_NS) an idle phase that was waiting for the
 * peer's message ends where its samples do, and the part of it past the receive reads as
 * a gap before the rank's next send, kept whole when the peer's messages come sooner.
 * LAMMPS under Open MPI: the same 5856 messages loaded and dedicated, but the unloaded
 * ranks' gaps 1.0-1.6 s against 0.37-0.46 s (docs/explain.md, "Gaps beyond the
 * baseline's"). */
static double
ideal_gap_factor(const struct side *s, const struct side *b, int i, const double *q)
{
	double g = idle_factor(s, b, i), queued, unused, have = gap_total(s, i, q, &queued);
	int j = b != NULL ? side_index(b, s->p->ranks[i].rank) : -1;

	if (j < 0 || !(have > 0))
		return g;
	return fmin(g, fmin((gap_total(b, j, NULL, &unused) + queued) / have, 1));
}

/* The cost of the imbalance of a side: every rank's own work set to the mean. */
static double
imbalance_cost(struct side *s)
{
	struct replay_in c = { .busy_f = s->f };

	for (int i = 0; i < s->p->nranks; i++)
		s->f[i] = factor(s, i, s->own_mean + s->wait[i] + s->excess_ns[i]);
	return s->T - replay_time(s, &c);
}

/* The throughput EVID_TOP_SHARE of the pair's large messages reached, here or in the
 * baseline, whichever is higher; 0 none. What a smaller message's bytes take. */
static double
best_Bps(const struct side *s, const struct side *b, int src, int dst)
{
	const struct evid_pair *q = evid_pair(s->v, src, dst);
	const struct evid_pair *qb = b != NULL ? evid_pair(b->v, src, dst) : NULL;

	return fmax(q != NULL ? q->best_Bps : 0, qb != NULL ? qb->best_Bps : 0);
}

/* The fastest of the pair's messages under EVID_MIN_BYTES, here or in the baseline;
 * INFINITY none. */
static double
best_lat(const struct side *s, const struct side *b, int src, int dst)
{
	const struct evid_pair *q = evid_pair(s->v, src, dst);
	const struct evid_pair *qb = b != NULL ? evid_pair(b->v, src, dst) : NULL;

	return fmin(q != NULL ? q->lat_ns : INFINITY, qb != NULL ? qb->lat_ns : INFINITY);
}

/* A message under EVID_MIN_BYTES: its time on the wire minus what it would take with
 * nothing ahead of it (the pair's fastest such message, plus its bytes at the pair's best
 * throughput when the pair has one), when that is over EVID_QUEUED_NS and over the
 * fastest time itself (it waited in a queue: on a capped link, behind the bytes the cap
 * holds); 0 otherwise. Its own time is latency, not bandwidth, and jitter of a few tens
 * of microseconds is no cause. With both ends captured its last byte is the receiver's
 * arrival (docs/parse.md, "A connection captured at both ends"): LU's and QR's messages
 * into a host behind a 20 Mbit/s cap waited there up to 28 ms, behind the large ones. */
static double
queued_dt(const struct side *s, const struct side *b, const struct prof_msg *m, double ns)
{
	double lat = best_lat(s, b, m->src, m->dst), bw = best_Bps(s, b, m->src, m->dst);
	double ref = lat + (bw > 0 ? (double)m->bytes / bw * 1e9 : 0);

	if (!isfinite(lat) || ns - ref <= fmax(EVID_QUEUED_NS, lat))
		return 0;
	return ref - ns;
}

/* The throughput large message m (Bps its own) would have had without a link problem.
 * With a baseline that has the pair's messages of m's size class: the baseline's
 * throughput at m's place among its class here (the slowest here against the slowest
 * there, the median against the median): a run that moved its messages as the baseline
 * did has nothing over it but the spread of both, and a capped link is slower at every
 * place. The pair's fastest message alone stood for the link before, and every message
 * slower than that outlier was the link's: 0.19-0.21 s of ScaLAPACK LU's 3.5 s and up to
 * 0.85 s of 2.5 s (MPICH) explaining a dedicated run against another. Without a baseline
 * (or the class in it): what EVID_TOP_SHARE of the class reached here. 0 none. */
static double
ref_Bps(const struct side *s, const struct side *b, const struct prof_msg *m, double Bps)
{
	const struct evid_pair *q = evid_pair(s->v, m->src, m->dst);
	const struct evid_pair *qb = b != NULL ? evid_pair(b->v, m->src, m->dst) : NULL;
	const struct evid_xput *x = NULL, *xb = NULL;
	int c = evid_size_class(m->bytes);
	long n = q != NULL ? evid_class(s->v, q, c, &x) : 0, nb = qb != NULL ? evid_class(b->v, qb, c, &xb) : 0;

	if (n > 0 && nb > 0)
		return evid_at(xb, nb, evid_place(x, n, Bps));
	return evid_top(x, n);
}

/* Each message's time on the wire minus its time without a link problem (<= 0): a large
 * message's at the pair's reference throughput (ref_Bps), a smaller one's without the
 * queue it waited in (queued_dt). */
static double *
link_dt(const struct side *s, const struct side *b)
{
	const struct prof *p = s->p;
	double *dt = xcalloc((size_t)p->nmsgs + 1, sizeof *dt);

	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct prof_rank *a = m->src >= 0 ? prof_rank(p, m->src) : NULL;
		const struct prof_rank *d = m->dst >= 0 ? prof_rank(p, m->dst) : NULL;
		double ns = (double)(m->t_last_ns - m->t_ns), best;

		if (a == NULL || d == NULL || strcmp(a->host, d->host) == 0 || ns <= 0)
			continue;
		if (m->bytes < EVID_MIN_BYTES) {
			dt[k] = queued_dt(s, b, m, ns);
			continue;
		}
		best = ref_Bps(s, b, m, (double)m->bytes / ns * 1e9);
		if (best > 0)
			dt[k] = fmin((double)m->bytes / best * 1e9 - ns, 0);
	}
	return dt;
}

/* s->rdt: a rendezvous message (proto rndv-*) leaves its last bytes only once its receiver
 * has got to the receive and answered; the trace does not see that answer. When the
 * receiver has competitors (s->wake) and was busy after the first byte came, the message's
 * time on the wire over the pair's best (dt, link_dt) waited for it, as far as it was busy
 * then: with its node's cpu cause taken out the receiver gets there sooner, and the
 * message comes as soon as it does (replay_in rndv: no sooner, its idle time before the
 * last byte was the transfer). Without it the replay kept the whole time on the wire, and
 * the receiver, however much sooner it got to the receive, waited for the message as
 * late as measured. */
static void
rndv_waits(struct side *s, const double *dt)
{
	const struct prof *p = s->p;
	long n = 0;

	s->rdt = xcalloc((size_t)p->nmsgs + 1, sizeof *s->rdt);
	s->mdt = xcalloc((size_t)p->nmsgs + 1, sizeof *s->mdt);
	s->rv = xcalloc((size_t)p->nmsgs + 1, sizeof *s->rv);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int d = dt[k] < 0 && strncmp(prof_proto_names[m->proto], "rndv", 4) == 0 ? side_index(s, m->dst) : -1;

		if (d < 0 || s->wake[d] <= 0)
			continue;
		s->rdt[k] = -fmin(-dt[k], busy_in(s, d, m->t_ns, m->t_last_ns));
		n += s->rdt[k] < 0;
	}
	if (n == 0) {
		free(s->rdt);
		free(s->mdt);
		free(s->rv);
		s->rdt = s->mdt = NULL;
		s->rv = NULL;
	}
}

static struct attr_cause *
add(struct attr_result *r, size_t *cap, enum attr_kind kind, double cost_ns)
{
	struct attr_cause *c;

	r->c = xgrow(r->c, cap, (size_t)r->n + 1, sizeof *r->c);
	c = &r->c[r->n++];
	*c = (struct attr_cause){ .kind = kind, .rank = -1, .cost_ns = cost_ns, .share_ns = NAN };
	return c;
}

/* Append ", rank R" (or " (rank R" first) to buf for each rank on host. */
static void
ranks_on(const struct prof *p, const char *host, char *buf, size_t cap)
{
	int n = 0;
	size_t len = strlen(buf);

	for (int i = 0; i < p->nranks && len < cap; i++) {
		if (strcmp(p->ranks[i].host, host) != 0)
			continue;
		snprintf(buf + len, cap - len, "%s%d", n++ == 0 ? " (rank " : ", ", p->ranks[i].rank);
		len = strlen(buf);
	}
	if (n > 0 && len < cap)
		snprintf(buf + len, cap - len, ")");
}

/* Hosts by their run-queue wait (what cpu_causes takes out), the largest first; the
 * first rank's index breaks ties. */
struct host_wait {
	int h;			/* its first rank's index */
	double wait_ns;
};

static int
by_wait(const void *x, const void *y)
{
	const struct host_wait *a = x, *b = y;

	if (a->wait_ns != b->wait_ns)
		return a->wait_ns < b->wait_ns ? 1 : -1;
	return (a->h > b->h) - (a->h < b->h);
}

/* Which hosts cpu_causes replays: every host whose ranks waited on the run queue beyond
 * their own limit or ran short of it in idle time, at most ATTR_MAX_CPU of them (the most
 * wait first): each is one replay of the whole trace, and a cluster of hundreds of loaded
 * nodes would cost hundreds. pick[h] for h a host's first rank; returns how many such
 * hosts were left out. */
static int
cpu_pick(const struct side *s, const struct side *b, const int *hid, int nh, bool *pick)
{
	const struct prof *p = s->p;
	struct host_wait *hw = xcalloc((size_t)nh + 1, sizeof *hw);
	double *gmin = xcalloc((size_t)nh + 1, sizeof *gmin);
	int n = 0, out = 0;

	for (int k = 0; k < nh; k++) {
		hw[k].h = -1;
		gmin[k] = 1;
	}
	for (int i = 0; i < p->nranks; i++) {
		struct host_wait *w = &hw[hid[i]];

		if (w->h < 0)
			w->h = i;
		w->wait_ns += wait_excess(s, b, i);
		gmin[hid[i]] = fmin(gmin[hid[i]], idle_factor(s, b, i));
	}
	for (int k = 0; k < nh; k++)
		if (hw[k].wait_ns > 0 || gmin[k] < 0.99)
			hw[n++] = hw[k];
	if (n > ATTR_MAX_CPU) {
		qsort(hw, (size_t)n, sizeof *hw, by_wait);
		out = n - ATTR_MAX_CPU;
		n = ATTR_MAX_CPU;
	}
	for (int k = 0; k < n; k++)
		pick[hw[k].h] = true;
	free(hw);
	free(gmin);
	return out;
}

/* One cpu cause per loaded host (cpu_pick), in the order of the hosts' first ranks;
 * returns the number of loaded hosts left out. */
static int
cpu_causes(struct attr_result *r, size_t *cap, struct side *s, const struct side *b)
{
	const struct prof *p = s->p;
	struct replay_in c = { .busy_f = s->f, .gap_f = s->g, .wake_ns = s->w };
	int nh, *hid = prof_host_ids(p, &nh), left;
	bool *pick = xcalloc((size_t)p->nranks + 1, sizeof *pick);

	left = cpu_pick(s, b, hid, nh, pick);
	for (int h = 0; h < p->nranks; h++) {
		const char *host = p->ranks[h].host;
		const struct evid_host *eh;
		double wait = 0, busy = 0, gmin = 1, most = -1, wake = 0, gain;
		int worst = -1, slow = -1;	/* the rank that waited most; the slowest to answer */
		struct attr_cause *x;
		size_t len;

		if (!pick[h])
			continue;
		eh = evid_host(s->v, host);
		for (int i = 0; i < p->nranks; i++) {
			bool here = hid[i] == hid[h];
			double w = here ? wait_excess(s, b, i) : 0, g = here ? idle_factor(s, b, i) : 1;

			cpu_out(s, b, i, here);
			wait += w;
			busy += here ? s->busy[i] : 0;
			if (here && g < gmin) {
				gmin = g;
				slow = i;
			}
			if (here && w > most) {
				most = w;
				worst = p->ranks[i].rank;
			}
			if (here)
				wake = fmax(wake, s->wake[i]);
		}
		if (wait <= 0 && gmin >= 0.99)	/* within 1 %: the samples' grain */
			continue;
		x = add(r, cap, ATTR_CPU, s->T - cpu_replay(s, b, &c, &gain));
		x->rank = worst;
		snprintf(x->host, sizeof x->host, "%s", host);
		snprintf(x->where, sizeof x->where, "%s", host);
		ranks_on(p, host, x->where, sizeof x->where);
		snprintf(x->evidence, sizeof x->evidence, "run-queue wait %.3f s of %.3f s busy (%.0f %%)%s",
			 wait / 1e9, busy / 1e9, busy > 0 ? 100 * wait / busy : 0, b != NULL ? " above the baseline" : " beyond the ranks' own CPU limit");
		len = strlen(x->evidence);
		if (slow >= 0 && gmin < 0.95) {
			snprintf(x->evidence + len, sizeof x->evidence - len,
				 "; rank %d in idle time ran %.0f %% of its runnable time (%.0f %% %s)", p->ranks[slow].rank,
				 100 * s->idle_rate[slow], 100 * s->idle_rate[slow] / gmin,
				 b != NULL ? "in the baseline" : "it may use");
			len = strlen(x->evidence);
		}
		if (wake > 0) {
			snprintf(x->evidence + len, sizeof x->evidence - len,
				 "; a message it waited for waited %.2f ms more for the CPU", wake / 1e6);
			len = strlen(x->evidence);
		}
		if (gain > 0) {
			snprintf(x->evidence + len, sizeof x->evidence - len, "; start-up %.3f s shorter", gain / 1e9);
			len = strlen(x->evidence);
		}
		if (eh != NULL && isfinite(eh->capacity) && eh->capacity < 0.995) {
			snprintf(x->evidence + len, sizeof x->evidence - len,
				 "; the ranks may use %.2f CPU (a quota or affinity limit: the wait it imposes is left out)",
				 eh->capacity);
			len = strlen(x->evidence);
		}
		if (eh != NULL && eh->have_load)
			snprintf(x->evidence + len, sizeof x->evidence - len,
				 "; node used %.2f CPUs, the ranks %.2f; load1 up to %.2f", eh->node_cpus, eh->own_cpus,
				 eh->load1_max);
	}
	free(hid);
	free(pick);
	return left;
}

/* The links' numbering of the host of rank index i: hosts are numbered in the order the
 * messages meet them (new ones added to hosts[0..*n)); at[h] holds host h's number
 * (prof_host_ids), -1 before it is met. */
static int
host_met(const struct prof *p, const int *hid, int *at, const char **hosts, int *n, int i)
{
	int h = hid[i];

	if (at[h] < 0) {
		hosts[*n] = p->ranks[i].host;
		at[h] = (*n)++;
	}
	return at[h];
}

struct hpair {
	int id;			/* index before sorting (what pair_of holds) */
	int a, b;		/* host ids, a < b */
	double save_ns;		/* the messages' time over the best, summed */
	double bytes, xfer_ns, ref_ns;	/* of its messages >= EVID_MIN_BYTES: their time on the
					 * wire, and at the reference (ref_Bps) */
	long n;
	long nq;		/* smaller messages that waited in a queue (queued_dt) */
	double q_ns;		/* ... how long, summed */
};

static int
by_save(const void *x, const void *y)
{
	const struct hpair *a = x, *b = y;

	return (a->save_ns < b->save_ns) - (a->save_ns > b->save_ns);
}

/* Append the link's handshake round trip to its evidence, against the same pair's in the
 * baseline or, without one, the fastest pair's in the run; "inflated" from twice that. */
static void
rtt_evidence(struct attr_cause *x, const struct side *s, const struct side *b)
{
	const struct evid_rtt *q = evid_rtt(s->v, x->host, x->host2);
	const struct evid_rtt *qb = b != NULL ? evid_rtt(b->v, x->host, x->host2) : NULL;
	double ref = qb != NULL ? qb->med_ns : INFINITY;
	size_t len = strlen(x->evidence);

	if (q == NULL)
		return;
	for (int j = 0; b == NULL && j < s->v->nrtts; j++)
		ref = fmin(ref, s->v->rtt[j].med_ns);
	if (isfinite(ref) && ref > 0)
		snprintf(x->evidence + len, sizeof x->evidence - len,
			 "; handshake round trip %.0f us against %.0f us (%s)%s", q->med_ns / 1e3, ref / 1e3,
			 qb != NULL ? "baseline" : "fastest pair", q->med_ns >= 2 * ref ? ": inflated" : "");
}

/* Each message's host pair is found through the hosts' ids and a map, not by a search of
 * the hosts and the pairs met so far: that cost messages times host pairs. */
static void
link_causes(struct attr_result *r, size_t *cap, struct side *s, const struct side *b, const double *dt)
{
	const struct prof *p = s->p;
	const char **hosts = xcalloc((size_t)p->nranks + 1, sizeof *hosts);
	struct hpair *hp = NULL;
	size_t hcap = 0;
	int nh = 0, np = 0, nhid;
	int *hid = prof_host_ids(p, &nhid);	/* rank index -> host */
	int *met = xmallocarray((size_t)nhid + 1, sizeof *met);	/* host -> number here, -1 */
	struct u64map at = U64MAP_INIT;	/* (a, b) numbers -> index in hp */
	long *pair_of = xcalloc((size_t)p->nmsgs + 1, sizeof *pair_of);
	double *one = xcalloc((size_t)p->nmsgs + 1, sizeof *one);
	double *sq = xcalloc((size_t)p->nmsgs + 1, sizeof *sq);
	struct replay_in c = { .msg_dt_ns = one, .send_dt_ns = sq };

	for (int h = 0; h < nhid; h++)
		met[h] = -1;
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int ha, hb, t, j;

		pair_of[k] = -1;
		if (dt[k] >= 0)
			continue;
		ha = host_met(p, hid, met, hosts, &nh, (int)(prof_rank(p, m->src) - p->ranks));
		hb = host_met(p, hid, met, hosts, &nh, (int)(prof_rank(p, m->dst) - p->ranks));
		if (ha > hb) {
			t = ha;
			ha = hb;
			hb = t;
		}
		j = (int)u64map_put(&at, (uint64_t)ha << 32 | (uint64_t)hb, np);
		if (j == np) {
			hp = xgrow(hp, &hcap, (size_t)np + 1, sizeof *hp);
			hp[np] = (struct hpair){ .id = np, .a = ha, .b = hb };
			np++;
		}
		pair_of[k] = j;
		hp[j].save_ns -= dt[k];
		if (m->bytes < EVID_MIN_BYTES) {
			hp[j].nq++;
			hp[j].q_ns -= dt[k];
			continue;
		}
		hp[j].n++;
		hp[j].bytes += (double)m->bytes;
		hp[j].xfer_ns += (double)(m->t_last_ns - m->t_ns);
		hp[j].ref_ns += (double)(m->t_last_ns - m->t_ns) + dt[k];
	}
	if (np > 1)
		qsort(hp, (size_t)np, sizeof *hp, by_save);
	for (int j = 0; j < np && j < ATTR_MAX_LINKS; j++) {
		const struct hpair *q = &hp[j];
		struct attr_cause *x;
		char big[160], small[80] = "";
		double queued = 0;

		for (long k = 0; k < p->nmsgs; k++)
			one[k] = pair_of[k] == q->id ? dt[k] : 0;
		queue_dt(s, one, sq);
		for (long k = 0; k < p->nmsgs; k++)
			queued -= sq[k];
		x = add(r, cap, ATTR_LINK, s->T - replay_time(s, &c));
		snprintf(x->host, sizeof x->host, "%s", hosts[q->a]);
		snprintf(x->host2, sizeof x->host2, "%s", hosts[q->b]);
		snprintf(x->where, sizeof x->where, "%s-%s", hosts[q->a], hosts[q->b]);
		if (q->n > 0)
			snprintf(big, sizeof big, "%ld messages >= %d KiB at %.3g MB/s, %.3g MB/s at the reference%s",
				 q->n, EVID_MIN_BYTES / 1024, q->bytes / q->xfer_ns * 1e3,
				 q->ref_ns > 0 ? q->bytes / q->ref_ns * 1e3 : INFINITY,
				 b != NULL ? " (the baseline's, by size)" : " (the run's top tenth, by size)");
		else
			snprintf(big, sizeof big, "no messages >= %d KiB slowed", EVID_MIN_BYTES / 1024);
		if (q->nq > 0)
			snprintf(small, sizeof small, "; %ld smaller ones queued %.3f s on the way", q->nq, q->q_ns / 1e9);
		snprintf(x->evidence, sizeof x->evidence,
			 "%s%s; %.3f s on the wire over the reference; "
			 "their senders waited %.3f s behind them; retransmissions %lld of %lld segments (whole run)",
			 big, small, q->save_ns / 1e9, queued / 1e9, (long long)s->v->retrans, (long long)s->v->segments);
		rtt_evidence(x, s, b);
	}
	free(hosts);
	free(hid);
	free(met);
	u64map_release(&at);
	free(hp);
	free(pair_of);
	free(one);
	free(sq);
}

static void
imbalance_cause(struct attr_result *r, size_t *cap, struct side *s, struct side *b)
{
	const struct prof *p = s->p;
	double cost = imbalance_cost(s), raw = b != NULL ? imbalance_cost(b) : 0, base;
	int late = -1;
	struct attr_cause *x;
	size_t len;

	if (p->nranks < 2)
		return;
	for (int i = 0; i < p->nranks; i++)
		if (late < 0 || s->own[i] > s->own[late])
			late = i;
	/* Own work set to the mean can replay slower than measured: a rank whose own work is
	 * waiting that read busy (MPICH polls in user mode: in a dedicated QR run rank 2's own
	 * work read 5.02 s against a mean of 3.52) hands it to the others, and the replay,
	 * which does not see the ranks end together, keeps it on their path (-0.19 to -0.30 s
	 * on MPICH's kept dedicated runs). That is no gain an imbalance gave: such a cost is 0,
	 * in the run and in the baseline. Taken as a gain of the baseline, it was the run's
	 * imbalance cause, first in runs with a capped link whose own work was as there. */
	base = fmax(raw, 0);
	x = add(r, cap, ATTR_IMBALANCE, fmax(cost, 0) - base);
	x->rank = p->ranks[late].rank;
	snprintf(x->where, sizeof x->where, "rank %d (%s)", p->ranks[late].rank, p->ranks[late].host);
	snprintf(x->evidence, sizeof x->evidence, "own work (busy less run-queue wait) %.3f s against a mean of %.3f s",
		 s->own[late] / 1e9, s->own_mean / 1e9);
	len = strlen(x->evidence);
	if (b != NULL) {
		int j = side_index(b, p->ranks[late].rank);

		snprintf(x->evidence + len, sizeof x->evidence - len,
			 "; baseline %.3f s (mean %.3f s), its imbalance cost %.3f s", j >= 0 ? b->own[j] / 1e9 : NAN,
			 b->own_mean / 1e9, base / 1e9);
		len = strlen(x->evidence);
		if (raw < 0)
			snprintf(x->evidence + len, sizeof x->evidence - len, " (balanced it replays %.3f s slower)",
				 -raw / 1e9);
	}
}

/* The joint cost of the cpu causes shared among them (the Shapley value: each node's
 * gain averaged over every order of taking the nodes' loads out), appended to each one's
 * evidence. In a program that moves in lockstep one node's load alone may cost nothing
 * while all of them together cost much; the share says which node held the most. Every
 * subset is replayed: 2^n - 1 replays of the whole trace, 1023 for 10 nodes, minutes on a
 * trace of millions of messages; past ATTR_SHAPLEY_EVENTS replayed events the shares are
 * left out. Returns the number of causes left without a share for that budget (0 when
 * shared, or not for another reason). */
static int
cpu_shares(struct attr_result *r, struct side *s, const struct side *b)
{
	const struct prof *p = s->p;
	int idx[ATTR_MAX_SHAPLEY], n = 0;
	double *v, fact[ATTR_MAX_SHAPLEY + 1];
	struct replay_in c = { .busy_f = s->f, .gap_f = s->g, .wake_ns = s->w };

	for (int i = 0; i < r->n; i++) {
		if (r->c[i].kind != ATTR_CPU)
			continue;
		if (n == ATTR_MAX_SHAPLEY)
			return 0;
		idx[n++] = i;
	}
	if (n < 2)
		return 0;
	if ((double)((1L << n) - 1) * (double)s->x.nev > (double)ATTR_SHAPLEY_EVENTS)
		return n;
	fact[0] = 1;
	for (int k = 1; k <= n; k++)
		fact[k] = fact[k - 1] * k;
	v = xcalloc((size_t)1 << n, sizeof *v);
	for (unsigned m = 1; m < 1u << n; m++) {
		for (int i = 0; i < p->nranks; i++) {
			bool out = false;

			for (int j = 0; j < n && !out; j++)
				out = (m >> j & 1) && strcmp(p->ranks[i].host, r->c[idx[j]].host) == 0;
			cpu_out(s, b, i, out);
		}
		v[m] = s->T - cpu_replay(s, b, &c, NULL);
	}
	for (int j = 0; j < n; j++) {
		struct attr_cause *x = &r->c[idx[j]];
		double phi = 0;
		size_t len = strlen(x->evidence);

		for (unsigned m = 0; m < 1u << n; m++) {
			int k = __builtin_popcount(m);

			if (m >> j & 1)
				continue;
			phi += fact[k] * fact[n - k - 1] / fact[n] * (v[m | 1u << j] - v[m]);
		}
		x->share_ns = phi;
		snprintf(x->evidence + len, sizeof x->evidence - len, "; its share of all nodes' cpu cost %.3f s",
			 phi / 1e9);
	}
	free(v);
	return 0;
}

/* Start-up or finish: ns here, base_ns in the baseline (NAN without one); the cost is
 * the difference less cpu_ns, what the cpu causes take off it (startup_gain). */
static void
fixed_cause(struct attr_result *r, size_t *cap, enum attr_kind kind, double ns, double base_ns, double cpu_ns,
	    const char *span)
{
	struct attr_cause *x;
	size_t len;

	if (ns <= 0)
		return;
	x = add(r, cap, kind, ns - (isfinite(base_ns) ? base_ns : 0) - cpu_ns);
	snprintf(x->where, sizeof x->where, "all ranks");
	if (isfinite(base_ns))
		snprintf(x->evidence, sizeof x->evidence, "%.3f s %s; baseline %.3f s", ns / 1e9, span, base_ns / 1e9);
	else
		snprintf(x->evidence, sizeof x->evidence, "%.3f s %s", ns / 1e9, span);
	len = strlen(x->evidence);
	if (cpu_ns > 0)
		snprintf(x->evidence + len, sizeof x->evidence - len,
			 "; %.3f s of it the cpu causes' (their ranks' launch and time in it, as the slowest's)", cpu_ns / 1e9);
}

/* Each rank's time split, for the report's bars: start-up up to its first message, then
 * its own work and run-queue wait, its messages' time over the best, and the rest. */
static void
rank_split(struct attr_result *r, const struct side *s, const double *dt)
{
	const struct prof *p = s->p;

	int span = prof_rank_span(p);
	double *net = xcalloc((size_t)span + 1, sizeof *net);		/* per world rank */
	int64_t *first_of = xcalloc((size_t)span + 1, sizeof *first_of);	/* first message */

	/* one pass over the messages, not one per rank: 1024 ranks x 10^7 messages */
	for (int i = 0; i <= span; i++)
		first_of[i] = INT64_MAX;
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];

		if (m->dst >= 0 && m->dst < span) {
			net[m->dst] -= dt[k];
			if (m->t_ns < first_of[m->dst])
				first_of[m->dst] = m->t_ns;
		}
		if (m->src >= 0 && m->src < span && m->src != m->dst && m->t_ns < first_of[m->src])
			first_of[m->src] = m->t_ns;
	}
	r->nranks = p->nranks;
	r->ranks = xcalloc((size_t)p->nranks + 1, sizeof *r->ranks);
	for (int i = 0; i < p->nranks; i++) {
		struct attr_rank *a = &r->ranks[i];
		int64_t first = INT64_MAX;
		double after;

		a->rank = p->ranks[i].rank;
		a->exec_ns = (double)p->ranks[i].exec_ns;
		if (a->rank >= 0 && a->rank < span) {
			a->net_ns = net[a->rank];
			first = first_of[a->rank];
		}
		if (first != INT64_MAX && first > p->t_phase0_ns)
			a->startup_ns = fmin((double)(first - p->t_phase0_ns), a->exec_ns);
		after = first != INT64_MAX ? busy_within(s, i, first, INT64_MAX) : s->busy[i];
		a->work_ns = s->busy[i] > 0 ? after * s->own[i] / s->busy[i] : 0;
		a->cpu_wait_ns = s->busy[i] > 0 ? after * s->wait[i] / s->busy[i] : 0;
		a->others_ns = a->exec_ns - a->work_ns - a->cpu_wait_ns - a->net_ns - a->startup_ns;
		if (a->others_ns < 0) {
			/* a transfer while busy counts once: take it from the network */
			a->net_ns = fmax(a->net_ns + a->others_ns, 0);
			a->others_ns = fmax(a->exec_ns - a->work_ns - a->cpu_wait_ns - a->net_ns - a->startup_ns, 0);
		}
	}
	free(net);
	free(first_of);
}

/* The cpu causes of every node together, and the links', when there are several: in a
 * program that moves in lockstep one node's cause alone may cost nothing. */
static void
group_costs(struct attr_result *r, struct side *s, const struct side *b, const double *dt, const double *qt)
{
	const struct prof *p = s->p;
	struct replay_in c = { .busy_f = s->f, .gap_f = s->g, .wake_ns = s->w };
	int ncpu = 0, nlink = 0;

	for (int i = 0; i < r->n; i++) {
		ncpu += r->c[i].kind == ATTR_CPU;
		nlink += r->c[i].kind == ATTR_LINK;
	}
	r->cpu_all_ns = r->link_all_ns = NAN;
	for (int i = 0; i < p->nranks; i++)
		cpu_out(s, b, i, true);
	if (ncpu > 1)
		r->cpu_all_ns = s->T - cpu_replay(s, b, &c, NULL);
	c = (struct replay_in){ .msg_dt_ns = dt, .send_dt_ns = qt };
	if (nlink > 1)
		r->link_all_ns = s->T - replay_time(s, &c);
}

/* Append to buf (cap bytes) ", " (nothing first), n (when >= 0) and what. */
static void
say(char *buf, size_t cap, long long n, const char *what)
{
	size_t len = strlen(buf);

	if (len < cap && n >= 0)
		snprintf(buf + len, cap - len, "%s%lld %s", len > 0 ? ", " : "", n, what);
	else if (len < cap)
		snprintf(buf + len, cap - len, "%s%s", len > 0 ? ", " : "", what);
}

/* Mark the causes the trace cannot back (hidden rank pairs on their node, gaps in the
 * capture) and say in r->note how partial the trace is. */
static void
partial_trace(struct attr_result *r, const struct evid *v)
{
	char what[400] = "";

	for (int i = 0; i < r->n; i++) {
		struct attr_cause *c = &r->c[i];
		const struct evid_host *h = c->host[0] != '\0' ? evid_host(v, c->host) : NULL;
		const struct evid_host *h2 = c->host2[0] != '\0' ? evid_host(v, c->host2) : NULL;
		int hidden = (h != NULL ? h->hidden_pairs : 0) + (h2 != NULL ? h2->hidden_pairs : 0);
		size_t len = strlen(c->evidence);

		if ((c->kind == ATTR_CPU || c->kind == ATTR_LINK) && hidden > 0) {
			c->uncertain = true;
			snprintf(c->evidence + len, sizeof c->evidence - len,
				 "; uncertain: %d rank pair%s on this node talk unseen (shared memory)", hidden,
				 hidden > 1 ? "s" : "");
		} else if (c->kind == ATTR_IMBALANCE && v->hidden_pairs > 0) {
			c->uncertain = true;
			snprintf(c->evidence + len, sizeof c->evidence - len,
				 "; uncertain: who waited for whom is unseen between ranks of one node");
		}
		len = strlen(c->evidence);
		if (c->kind == ATTR_LINK && v->gaps > 0) {
			c->uncertain = true;
			snprintf(c->evidence + len, sizeof c->evidence - len,
				 "; uncertain: the capture lost %lld stretches of payload", (long long)v->gaps);
		}
	}
	if (v->hidden_pairs > 0)
		say(what, sizeof what, (long long)v->hidden_pairs,
		    "rank pairs on one node unseen (shared memory): their waits read as idle time any sender could fill");
	if (v->gaps > 0)
		say(what, sizeof what, (long long)v->gaps, "gaps in the capture: messages missing or cut");
	if (v->ranks_unsampled > 0)
		say(what, sizeof what, (long long)v->ranks_unsampled, "ranks without CPU samples");
	if (v->warnings > 0)
		say(what, sizeof what, (long long)v->warnings, "warnings from parse");
	else if (v->incomplete)
		say(what, sizeof what, -1, "a profile whose parse did not finish (stats.tsv not complete)");
	if (what[0] != '\0')
		snprintf(r->note, sizeof r->note, "partial trace: %s; costs marked '?' are uncertain and the residual "
			 "holds what could not be seen", what);
}

static int
by_cost(const void *x, const void *y)
{
	const struct attr_cause *a = x, *b = y;

	return (a->cost_ns < b->cost_ns) - (a->cost_ns > b->cost_ns);
}

int
attr_explain(const struct prof *p, const struct evid *v, const struct prof *bp, const struct evid *bv,
	     struct attr_result *r, struct err *e)
{
	struct side s, b;
	struct side *bs = NULL;
	struct replay_in all;
	double *dt, *qt, startup, finish, obs, gain;
	size_t cap = 0;
	int allbusy = 0, unshared, unpicked;

	*r = (struct attr_result){ .baseline_ns = NAN };
	if (prof_dedicated_ns(p) <= 0)
		return err_set(e, E_FORMAT, "'%s' has no rank with an exec time", p->run);
	side_init(&s, p, v);
	if (bp != NULL && bv != NULL) {
		side_init(&b, bp, bv);
		bs = &b;
		r->baseline_ns = b.T;
	}
	wake_delays(&s, bs);	/* k from the own work measured, the excess included */
	woke_in_busy(&s);
	own_excess(&s, bs);
	poll_shares(&s, bs);
	wait_grown(&s, bs);
	gap_shares(&s, bs);
	r->measured_ns = s.T;
	r->replayed = p->have_msgs && p->nmsgs > 0 && s.p->have_phases && s.p->nbusy > 0;
	dt = link_dt(&s, bs);
	rndv_waits(&s, dt);
	qt = xcalloc((size_t)p->nmsgs + 1, sizeof *qt);
	queue_dt(&s, dt, qt);

	unpicked = cpu_causes(r, &cap, &s, bs);
	unshared = cpu_shares(r, &s, bs);
	link_causes(r, &cap, &s, bs, dt);
	imbalance_cause(r, &cap, &s, bs);
	startup = s.startup - (bs != NULL ? bs->startup : 0);
	for (int i = 0; i < p->nranks; i++)
		cpu_out(&s, bs, i, true);
	gain = startup_fence(&s, bs);
	finish = s.finish - (bs != NULL ? bs->finish : 0);
	fixed_cause(r, &cap, ATTR_STARTUP, s.startup, bs != NULL ? bs->startup : NAN, gain,
		    "from the first CPU sample to the first message");
	fixed_cause(r, &cap, ATTR_FINISH, s.finish, bs != NULL ? bs->finish : NAN, 0,
		    "from the last message to the last CPU sample");
	r->observer_ns = obs = s.obs - (bs != NULL ? bs->obs : 0);
	if (v->start_cost_max_ns > 0) {
		int n = snprintf(r->observer_evidence, sizeof r->observer_evidence, "its agents held the start-up "
				 "%.3f s, starting their ranks %.3f-%.3f s after their own start", s.obs / 1e9,
				 v->start_cost_min_ns / 1e9, v->start_cost_max_ns / 1e9);

		if (bs != NULL && n > 0 && (size_t)n < sizeof r->observer_evidence)
			snprintf(r->observer_evidence + n, sizeof r->observer_evidence - (size_t)n,
				 "; %.3f s in the baseline", bs->obs / 1e9);
	}

	/* everything out at once: no run-queue wait (above the baseline's), own work balanced
	 * (with a baseline: as unbalanced as there, and the polling read busy out with the wait
	 * it earned, as waiting where poll_shares placed it, ideal_factor), links at their best,
	 * the fixed costs off */
	group_costs(r, &s, bs, dt, qt);
	for (int i = 0; i < p->nranks; i++) {
		double own = p->nranks > 1 ? s.own_mean : s.own[i];

		s.f[i] = ideal_factor(&s, i, own + s.wait[i] - busy_taken(&s, bs, i) - s.throttle_ns[i]);
		s.g[i] = ideal_gap_factor(&s, bs, i, qt);
		s.w[i] = -wake_taken(&s, bs, i);
		if (s.busy[i] > 0 && s.busy[i] >= 0.9 * (double)p->ranks[i].exec_ns)
			allbusy++;
	}
	all = (struct replay_in){ .busy_f = s.f, .msg_dt_ns = dt, .send_dt_ns = qt, .gap_f = s.g, .wake_ns = s.w };
	s.ideal = true;
	r->ideal_ns = replay_time(&s, &all) - fmax(startup, 0) - fmax(finish, 0) - fmax(obs, 0);
	s.ideal = false;
	if (bs != NULL && p->nranks > 1)
		r->ideal_ns += imbalance_cost(bs);	/* the baseline's own imbalance stays */
	for (int i = 0; i < r->n; i++)
		r->causes_ns += r->c[i].cost_ns;
	r->interaction_ns = r->measured_ns - r->ideal_ns - r->causes_ns - r->observer_ns;
	r->work_ns = s.work_mean;
	r->residual_ns = bs != NULL ? r->ideal_ns - r->baseline_ns : r->ideal_ns - r->work_ns;
	if (r->n > 1)
		qsort(r->c, (size_t)r->n, sizeof *r->c, by_cost);
	rank_split(r, &s, dt);

	partial_trace(r, v);
	if (!r->replayed)
		snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note), "%sno messages or no busy phases: costs are the ranks' own times, not "
			 "replayed", r->note[0] != '\0' ? "; " : "");
	else if (allbusy == p->nranks && !v->have_demand)
		snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note), "%severy rank was busy over 90 %% of its time: a polling MPI library's "
			 "waits look like work and hide who waited for whom; without the samples explain cannot "
			 "tell them apart: parse with --busy-user-only (-U)", r->note[0] != '\0' ? "; " : "");
	if (!v->have_phase_wait)
		snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note),
			 "%sphases.tsv has no wait_ns: a rank's run-queue wait is spread over its busy time",
			 r->note[0] != '\0' ? "; " : "");
	if (unpicked > 0)
		snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note),
			 "%s%d more nodes had run-queue wait: a cpu cause each for the %d with the most (one "
			 "replay each), the others are in the cpu of every node taken out together",
			 r->note[0] != '\0' ? "; " : "", unpicked, ATTR_MAX_CPU);
	if (unshared > 0)
		snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note),
			 "%sthe %d nodes' shares of their joint cpu cost are left out: %ld replays of %ld events "
			 "each are past explain's budget of %ld", r->note[0] != '\0' ? "; " : "", unshared,
			 (1L << unshared) - 1, s.x.nev, ATTR_SHAPLEY_EVENTS);
	free(dt);
	free(qt);
	side_free(&s);
	if (bs != NULL)
		side_free(bs);
	return 0;
}

void
attr_result_free(struct attr_result *r)
{
	if (r == NULL)
		return;
	free(r->c);
	free(r->ranks);
	*r = (struct attr_result){ 0 };
}

const char *
attr_kind_name(enum attr_kind k)
{
	switch (k) {
	case ATTR_CPU:
		return "cpu";
	case ATTR_LINK:
		return "link";
	case ATTR_IMBALANCE:
		return "imbalance";
	case ATTR_STARTUP:
		return "startup";
	case ATTR_FINISH:
		return "finish";
	}
	return "?";
}
