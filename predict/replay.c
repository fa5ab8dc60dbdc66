/* replay: a run's own message trace replayed under a scenario (see replay.h). */
#include "predict/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tsv.h"
#include "lib/u64map.h"
#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/p000.h"
#include "predict/fluid.h"
#include "predict/models.h"
#include "predict/p003.h"
#include "predict/tkey.h"

/* Two ranks exchange when their messages to each other go in pairs, the second leaving
 * within REPLAY_XCHG_NS of the first's arrival, and either rank is the first of a pair at
 * least REPLAY_XCHG_SHARE of the time (a request and its reply always start on one side). */
#define REPLAY_XCHG_NS 10000000LL
#define REPLAY_XCHG_SHARE 0.25

/* A rank that sends within REPLAY_REPLY_NS of a message's arrival, in the busy phase the
 * message came in, was waiting for it (polling, read busy) and replied (docs/predict.md,
 * "A receive"): ScaLAPACK's LU answers a pivot row 7-150 us after it came (PMPI truth).
 * That short window is for a rank under a CPU quota, which often sends next within the
 * samples' grain of a message it did not wait for (throttled); a rank with a whole CPU
 * takes the grain, REPLAY_GRAIN_NS: what it computed between the arrival and its next send
 * within the grain was the message's work (QR's pipelined panels, LAMMPS's forces after
 * the ghost atoms came; docs/validation.md, "Work after a receive on whole cores"). */
#define REPLAY_REPLY_NS 1000000LL

/* A busy phase as the trace's build reads it: what it needs of the profile's row and the
 * busy time before it, in one place (the build walks every rank's phases at once, so that
 * each rank's are one stream in memory, not three). */
struct replay_phase {
	int64_t t_start_ns;
	int64_t t_end_ns;
	double before_ns;	/* busy time of the rank's phases before this one */
};

/* One rank's busy phases (those with a length), sorted; only while the trace is made. */
struct replay_busy {
	long n;
	struct replay_phase *ph;	/* [n] in time order */
};

/* Phase i of b. */
static inline const struct replay_phase *
bph(const struct replay_busy *b, long i)
{
	return &b->ph[i];
}

/* One rank's sends in departure order, as indices into prof->msgs. */
struct sends {
	long n;
	const struct prof_msg *m;	/* prof->msgs */
	uint32_t *k;			/* into one array for every rank (replay_trace_init) */
};

/* The index of the rank's first send at or after t (sd->n when none). */
static long
send_index(const struct sends *sd, int64_t t)
{
	long lo = 0, hi = sd->n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (sd->m[sd->k[mid]].t_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The time of the rank's i-th send. */
static int64_t
send_t(const struct sends *sd, long i)
{
	return sd->m[sd->k[i]].t_ns;
}

/* send_index(sd, t) given the one found last for the same rank (*hint, updated, 0 at
 * first): a rank's receives come nearly in time order, so the answer is mostly that index
 * or the next, and the search runs only when it is neither. */
static long
send_near(const struct sends *sd, int64_t t, long *hint)
{
	long i = *hint;

	if (i < 0 || i > sd->n || (i > 0 && send_t(sd, i - 1) >= t))
		i = send_index(sd, t);
	else if (i < sd->n && send_t(sd, i) < t && (++i < sd->n && send_t(sd, i) < t))
		i = send_index(sd, t);	/* past the next one too */
	return *hint = i;
}

/* One send or receive, 16 bytes (docs/memory.md, "The replay's trace"). Everything that
 * depends only on the trace is worked out once here (replay_trace_init), so that a replay
 * is one pass without searches. What the profile holds is not copied: the event's time is
 * its message's t_ns for a send and replay_trace need_ns for a receive, its W is
 * replay_trace wait_ns (per message), its gap replay_trace gap_ns (per event). */
struct replay_ev {
	union {
		double busy_ns;	/* the rank's busy time before the event (busy_before) */
		int64_t t_ns;	/* while the trace is made (trace_merge to trace_wait): the
				 * event's time, what ev_t gives, read in order, not looked up */
	};
	uint32_t msg;		/* index into prof->msgs (REPLAY_MAX_MSGS) */
	uint32_t rank : 29;	/* index into prof->ranks (REPLAY_MAX_RANKS) */
	uint32_t recv : 1;	/* 0 send, 1 receive (sends first at equal times) */
	uint32_t answer : 1;	/* REPLAY_MEASURED recv: came in a busy phase between two sends of
				 * the rank within REPLAY_GRAIN_NS of it: it was waited for */
	uint32_t woke : 1;	/* recv: the message found the rank waiting for it (needed on
				 * arrival): where a negative wake_ns applies */
};
_Static_assert(sizeof(struct replay_ev) == 16, "an event is 16 bytes");
_Static_assert(PROF_MAX_MSGS <= REPLAY_MAX_MSGS && PROF_MAX_BUSY <= REPLAY_MAX_BUSY &&
	       PROF_MAX_RANKS <= REPLAY_MAX_RANKS, "every loaded profile fits the trace");

/* A receive's place in the sort of the receives: its message's index in the high bits, so
 * that places order as messages do, then its answer (1) and woke (2) bits. */
#define RECV_PLACE_SHIFT 2

int
replay_fits(const struct prof *p, struct err *e)
{
	if (p->nmsgs > REPLAY_MAX_MSGS)
		return err_set(e, E_LIMIT, "the replay takes at most %ld messages, '%s' has %ld",
			       (long)REPLAY_MAX_MSGS, p->run != NULL ? p->run : "", p->nmsgs);
	if (p->nbusy > REPLAY_MAX_BUSY)
		return err_set(e, E_LIMIT, "the replay takes at most %ld busy phases, '%s' has %ld",
			       (long)REPLAY_MAX_BUSY, p->run != NULL ? p->run : "", p->nbusy);
	if (p->nranks > REPLAY_MAX_RANKS)
		return err_set(e, E_LIMIT, "the replay takes at most %d ranks, '%s' has %d", REPLAY_MAX_RANKS,
			       p->run != NULL ? p->run : "", p->nranks);
	return 0;
}

/* A phase's start and index, ordered by both (busy_sort). */
struct bkey {
	int64_t t_ns;
	uint32_t i;
};

static int
cmp_bkey(const void *a, const void *b)
{
	const struct bkey *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
	return (x->i > y->i) - (x->i < y->i);
}

/* The index of the last phase starting at or before t, or -1. */
static long
phase_at(const struct replay_busy *b, int64_t t)
{
	long lo = 0, hi = b->n - 1, at = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (bph(b, mid)->t_start_ns <= t) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return at;
}

/* phase_at(b, t) given the one found last for the same rank (*hint, updated): a rank's
 * messages come nearly in time order, so the answer is mostly that phase or the next, and
 * the search runs only when it is neither. */
static long
phase_near(const struct replay_busy *b, int64_t t, long *hint)
{
	long i = *hint;

	if (i + 1 < b->n && bph(b, i + 1)->t_start_ns <= t)
		i++;	/* the next one, if t is past its start */
	if (i < -1 || i >= b->n || (i >= 0 && bph(b, i)->t_start_ns > t) ||
	    (i + 1 < b->n && bph(b, i + 1)->t_start_ns <= t))
		i = phase_at(b, t);
	return *hint = i;
}

/* Busy time before t, given i = phase_at(b, t). */
static double
busy_before_at(const struct replay_busy *b, int64_t t, long i)
{
	const struct replay_phase *x;

	if (i < 0)
		return 0;
	x = bph(b, i);
	return x->before_ns + (double)((t < x->t_end_ns ? t : x->t_end_ns) - x->t_start_ns);
}

/* Busy time before t. */
static double
busy_before(const struct replay_busy *b, int64_t t)
{
	return busy_before_at(b, t, phase_at(b, t));
}

/* The busy phase t falls in, or NULL, given i = phase_at(b, t). */
static const struct replay_phase *
in_busy_at(const struct replay_busy *b, int64_t t, long i)
{
	return i < 0 || t >= bph(b, i)->t_end_ns ? NULL : bph(b, i);
}

/* The end of the last busy phase ending at or before t, or INT64_MIN, given i =
 * phase_at(b, t). */
static int64_t
busy_end_before_at(const struct replay_busy *b, int64_t t, long i)
{
	if (i < 0)
		return INT64_MIN;
	if (bph(b, i)->t_end_ns <= t)
		return bph(b, i)->t_end_ns;
	return i > 0 ? bph(b, i - 1)->t_end_ns : INT64_MIN;
}

/* The CPU stretch of a rank's busy time under the scenario: paper 000's local slowdown
 * (eq. 2: k CPU-bound competitors give k + 1, a load average L gives 1 + L; communicating
 * ones add their delay_comm); divided by the CPU capacity left. */
static double
stretch(const struct scen *s, const struct prof_rank *rk, const struct p000_delay *d,
	const struct coloc_rank *cl)
{
	const struct scen_node *n = scen_node_for(s, rk->rank, rk->host);
	bool extrap;
	double f;

	if (n == NULL)
		return 1;
	f = p000_node_sd(n, d, &extrap);	/* a load average L gives 1 + L */
	return coloc_stretch(f, n->capacity, cl);	/* shared with the node's other ranks */
}

/* What collect's agent of rank i used of the rank's CPU in the dedicated run, ns: its
 * sampling, socket scans and, on a node's first rank, the capture thread
 * (RUN/meta/rank-R.tsv agent_utime_ns + agent_stime_ns), where it shared the ranks' CPUs
 * (observer_charged shared); 0 where it had a spare CPU, ran under the ranks' quota, or
 * the run does not say. */
static double
agent_cpu_ns(const struct prof *p, int i)
{
	char *path = xasprintf("%s/meta/rank-%d.tsv", p->run, p->ranks[i].rank);
	char charged[64];
	struct err e;
	double ns = 0;

	if (tsv_kv_lookup(path, "meta", "observer_charged", charged, sizeof charged, &e) == 1 &&
	    strncmp(charged, "shared", 6) == 0)
		ns = tsv_kv_positive(path, "meta", "agent_utime_ns", 0) +
		     tsv_kv_positive(path, "meta", "agent_stime_ns", 0);
	free(path);
	return ns;
}

/* The shares of each rank's busy time, in the busy phases of the dedicated run, that a
 * scenario's competitors do not stretch (replay_predict), from one pass over the phases:
 *  - w[i], its run-queue wait: 0 for a rank whose node did not give each of its ranks a
 *    whole CPU (coloc_whole_cpu) or whose phases do not say. With a core each, the wait is
 *    time processes outside the job took: collect's own agents where they share the ranks'
 *    CPUs (observer_charged shared), the system's. A competitor shares the rank's CPU with
 *    its work, not with that time. On a node of fewer cores than ranks, or under a quota,
 *    the wait is the neighbours' and the quota's, which the scenario keeps (coloc_stretch).
 *  - a[i], the part of w[i] that was collect's agent (agent_cpu_ns, at most w[i]): the bare
 *    program a scenario is about has no agent beside it, so that wait goes.
 *  - o[i], what collect's capture took: ns_per_pkt for each packet it sent on the
 *    connections to other ranks (pkts_sent; the kernel hands every one to the capture on
 *    the sending CPU), at most what w leaves; 0 where the packets are not known or there
 *    is no cost. The bare program a scenario is about does not do that work. */
static void
busy_shares(const struct prof *p, const struct coloc_rank *cl, double ns_per_pkt, double *w, double *a,
	    double *o)
{
	double *busy = xcalloc((size_t)p->nranks + 1, sizeof *busy);
	bool *whole = xcalloc((size_t)p->nranks + 1, sizeof *whole);

	for (int i = 0; i < p->nranks; i++) {
		whole[i] = coloc_whole_cpu(p, cl, i);
		w[i] = 0;
	}
	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_busy *b = &p->busy[k];
		const struct prof_rank *rk = prof_rank(p, b->rank);
		long i = rk != NULL ? rk - p->ranks : -1;

		if (i < 0)
			continue;
		busy[i] += (double)(b->t_end_ns - b->t_start_ns);
		if (b->wait_ns < 0)	/* the phases do not say */
			whole[i] = false;
		else
			w[i] += (double)b->wait_ns;
	}
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *rk = &p->ranks[i];

		w[i] = whole[i] && busy[i] > 0 ? fmin(w[i] / busy[i], 1) : 0;
		a[i] = w[i] > 0 ? fmin(agent_cpu_ns(p, i) / busy[i], w[i]) : 0;
		o[i] = 0;
		if (ns_per_pkt > 0 && rk->pkts_sent > 0 && busy[i] > 0)
			o[i] = fmin(ns_per_pkt * (double)rk->pkts_sent / busy[i], fmax(1 - w[i], 0));
	}
	free(busy);
	free(whole);
}

double
replay_wake_ns(int k, double slice_ns, double capacity)
{
	if (k <= 0 || !(slice_ns > 0))
		return 0;
	if (!(capacity > 0) || capacity > 1)
		capacity = 1;
	return (double)k * k / (k + 1) * slice_ns / (2 * capacity);
}

double
replay_rank_wake_ns(const struct prof *p, int i, int k, double capacity)
{
	const struct prof_rank *rk = &p->ranks[i];
	double slice, cap = capacity;
	char *path;

	if (k <= 0)
		return 0;
	path = xasprintf("%s/meta/node-%s.tsv", p->run, rk->host);
	slice = tsv_kv_positive(path, "meta", "sched_slice_ns", REPLAY_SLICE_NS);
	free(path);
	if (isnan(cap)) {
		path = xasprintf("%s/meta/rank-%d.tsv", p->run, rk->rank);
		cap = tsv_kv_positive(path, "meta", "cpu_capacity", 1);
		free(path);
	}
	return replay_wake_ns(k, slice, cap);
}

/* The wake-up delay of rank i's receives under the scenario (replay_rank_wake_ns): k from
 * the scenario's CPU-bound competitors on its node, the capacity the scenario gives or
 * else the one its rank meta recorded (a cgroup quota). */
static double
wake(const struct prof *p, const struct scen *s, const struct prof_rank *rk)
{
	const struct scen_node *n = scen_node_for(s, rk->rank, rk->host);

	if (n == NULL || n->cpu_procs <= 0)
		return 0;
	return replay_rank_wake_ns(p, (int)(rk - p->ranks), n->cpu_procs, n->capacity);
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

/* What one replay reads and writes. */
struct pass {
	const struct prof *p;
	const double *busy;		/* per rank: replay_trace busy_ns */
	const struct replay_ev *ev;
	long nev;
	const int64_t *need;		/* per message: replay_trace need_ns */
	const double *wait;		/* per message: replay_trace wait_ns */
	const double *gap;		/* per event: replay_trace gap_ns, NULL */
	const double *f;		/* per rank: CPU stretch */
	const double *wk;		/* per rank: wake-up delay of a receive it waited for */
	const double *g;		/* per rank: factor on its gaps (replay_trace gap_ns) */
	const double *pf;		/* per rank: share of the busy time before a receive it
					 * waited for that joins W (replay_in poll_f); NULL none */
	const double *dt;		/* per message: change of its time on an unchanged link; NULL
					 * none */
	const double *sdt;		/* per message: change of the time its sender took to get to
					 * it (replay_in send_dt_ns); NULL none */
	const int *host;		/* per rank: host index */
	int nhosts;
	const double *nlat, *nbw;	/* per message: the changed link's latency and bandwidth,
					 * NAN on an unchanged link; NULL: every link unchanged */
	const double *nburst;		/* per message: the changed link's token bucket, bytes (0
					 * none); NULL none */
	double peak_Bps;		/* what a bucket with tokens passes: the run's bandwidth */
	double *D;			/* per rank: how late it is */
	double *busy_prev;		/* per rank: busy time before its last event */
	double *dmsg;			/* per message: how late it arrives, once known */
	uint8_t *known;			/* per message: dmsg is known */
	long nwoke;			/* receives given the wake-up delay */
	long nchanged;			/* messages on changed links */
	int64_t t0_ns;			/* the fluid model's time 0: the first send's (its times
					 * taken from the run's start keep their nanoseconds) */
	const double *start;		/* per rank: its D at the start (replay_in start_ns), NULL 0 */
	const uint8_t *rv;		/* per message: a rendezvous that waits for its receiver
					 * (replay_in rndv), NULL none */
	const double *size;		/* per message: what its transfer moves (replay_in size_B),
					 * NULL its bytes */
	bool slack;			/* a receive placed after its arrival lets its message be
					 * that much later for nothing (REPLAY_MEASURED) */
	const double *next;		/* per message: replay_trace next_ns, NULL */
	const double *lead;		/* per rank: replay_trace lead_ns */
	const double *ff;		/* per rank: replay_in free_f, NULL none */
	const double *ffmax;		/* per rank: replay_in free_max_ns, NULL none */
	double *freed;			/* per rank: what ff has given so far (with ff) */
};

static int64_t arrival(const struct prof_msg *m);

/* Rank i's busy time since its last event (event j's), stretched; returns that busy time. */
static double
pass_stretch(struct pass *c, long j)
{
	const struct replay_ev *x = &c->ev[j];
	int i = x->rank;
	double seg = x->busy_ns - c->busy_prev[i];

	c->D[i] += seg * (c->f[i] - 1);
	c->busy_prev[i] = x->busy_ns;
	if (c->gap != NULL && c->gap[j] > 0)	/* the rank getting to this event, at its pace */
		c->D[i] += c->gap[j] * (c->g[i] - 1);
	return seg;
}

/* Receive x, whose message's lateness is known; seg: the rank's busy time since its last
 * event. */
static void
pass_receive(struct pass *c, const struct replay_ev *x, double seg)
{
	const struct prof_msg *m = &c->p->msgs[x->msg];
	int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;
	/* the message waited for the rank; in a dedicated run the rank was there when it came
	 * (a rank polls inside MPI, which reads busy): a receive placed later (at its next
	 * send, the end of its busy phase, its half of an exchange) is only the order of its
	 * events. Not a collective's: its message may come before its receiver enters it,
	 * which it does at its next send (docs/predict.md, "A receive") */
	double S = c->slack || m->name != 0 ? (double)(c->need[x->msg] - arr) : 0;
	double W = c->wait[x->msg];			/* the rank waited for the message */
	double dm = c->dmsg[x->msg];
	int i = x->rank;

	/* a rendezvous's last bytes leave once the rank has got to the receive */
	if (c->rv != NULL && c->rv[x->msg])
		dm = fmax(dm, c->D[i]);
	/* the part of the busy time in between that was waiting too (polling); also before a
	 * message needed on arrival whose rank read busy since its previous event (W 0): it
	 * replied to it, and the busy time before was its polling loop, not earlier work */
	if (c->pf != NULL && (W > 0 || x->woke) && !x->answer)
		W += c->pf[i] * seg * fmin(c->f[i], 1);

	/* a rank that waited for the message, and still does in the replay, gets the CPU back
	 * only when its competitors' slices are done */
	if (W > 0 && c->wk[i] > 0 && dm - S >= c->D[i] - W) {
		c->D[i] = dm - S + c->wk[i];
		c->nwoke++;
	} else {
		double was = c->D[i];

		c->D[i] = fmax(c->D[i] - W, dm - S);
		/* the wait shortened by was - D: the rank's time after it that grew with it
		 * (its polling's quota waits, its phases' ends) shortens in proportion, by
		 * no more in all than it grew */
		if (c->ff != NULL && c->ff[i] > 0 && was > c->D[i]) {
			double fr = c->ff[i] * (was - c->D[i]);

			if (c->ffmax != NULL)
				fr = fmin(fr, fmax(c->ffmax[i] - c->freed[i], 0));
			c->freed[i] += fr;
			c->D[i] -= fr;
		}
	}
	/* the wake-up the measured run had, taken out: the rank goes on as soon as both it and
	 * the message are there; once a wake-up, at the last of the messages it found on
	 * waking (a message that came within the delay of the one before waited for the same
	 * wake-up, and taking it out of both took it out twice) */
	if (W > 0 && c->wk[i] < 0 && x->woke && !(c->next != NULL && c->next[x->msg] < -c->wk[i])) {
		c->D[i] += c->wk[i];
		c->nwoke++;
	}
}

/* Whether m is a rendezvous request: its data leave once its receiver has answered
 * (messages.tsv proto rndv-put or rndv-frag). */
static bool
rndv_request(const struct prof_msg *m)
{
	const char *pn = prof_proto_names[m->proto];

	return !m->ctrl && (strcmp(pn, "rndv-put") == 0 || strcmp(pn, "rndv-frag") == 0);
}

#define PAIR_LOOKBACK 256	/* earlier messages searched for a message's other half */

/* qsort_r's order of message indices (ctx: the messages): by first byte, then index. */
static int
t_cmp(const void *x, const void *y, void *ctx)
{
	const struct prof_msg *m = ctx;
	long a = *(const long *)x, b = *(const long *)y;

	if (m[a].t_ns != m[b].t_ns)
		return m[a].t_ns < m[b].t_ns ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Of the messages idx[0..i) (in time order), the latest that goes the other way from
 * idx[i] and was still in flight when it began, at most PAIR_LOOKBACK back and none that
 * skip (per message, NULL none) marks: its position in idx, or -1. */
static long
crossing(const struct prof *p, const long *idx, long i, const bool *skip)
{
	const struct prof_msg *x = &p->msgs[idx[i]];

	for (long j = i - 1; j >= 0 && i - j <= PAIR_LOOKBACK; j--) {
		const struct prof_msg *y = &p->msgs[idx[j]];

		if ((skip == NULL || !skip[idx[j]]) && y->src == x->dst && y->dst == x->src &&
		    y->t_last_ns >= x->t_ns)
			return j;
	}
	return -1;
}

/* Per rank (index in p->ranks), how long before its own rendezvous request it may post the
 * receive of one coming the other way: the longest such lead the run shows. A rank that
 * makes a request while one of its peer's is in flight to it answers that one first when
 * the peer's came before the rank posted its receive (parse flags it after-answer: over a
 * slower link the two then go one after the other), else asks first (side by side). Of
 * the crossing requests it made without answering first, the longest time between the
 * peer's request reaching it (t_ns + latency) and its own is a time its receive was already
 * posted; 0 without such requests. */
static void
answer_lead_ns(const struct prof *p, double *lead)
{
	long *idx = xmallocarray((size_t)p->nmsgs + 1, sizeof *idx), n = 0;

	for (int i = 0; i < p->nranks; i++)
		lead[i] = 0;
	for (long k = 0; k < p->nmsgs; k++)
		if (rndv_request(&p->msgs[k]) && p->msgs[k].src >= 0 && p->msgs[k].dst >= 0)
			idx[n++] = k;
	qsort_r(idx, (size_t)n, sizeof *idx, t_cmp, p->msgs);
	for (long i = 0; i < n; i++) {
		const struct prof_msg *x = &p->msgs[idx[i]];
		const struct prof_rank *r;
		long j;

		if (x->after_answer || (r = prof_rank(p, x->src)) == NULL || (j = crossing(p, idx, i, NULL)) < 0)
			continue;
		lead[r - p->ranks] = fmax(lead[r - p->ranks],
					  (double)(x->t_ns - p->msgs[idx[j]].t_ns) - (double)p->lat_ns);
	}
	free(idx);
}

/* Whether message k goes over a changed link. */
static bool
changed(const struct pass *c, uint32_t k)
{
	return c->nbw != NULL && !isnan(c->nbw[k]);
}

/* The transfers over changed links, as flows of the fluid model (predict/fluid.h): one per
 * changed-link send, numbered in the trace's order (flow[] per message, msg[] per flow),
 * across its sending host's and its receiving host's side, of capacity the slowest
 * changed link on it and of the smallest bucket of those links (none when one has none). */
struct links {
	struct fluid_sim *sim;		/* NULL without changed-link sends */
	struct fluid_flow *fl;		/* [n] the flows */
	uint32_t *flow, *msg;		/* per message its flow, per flow its message */
	long n;
	long *pair;			/* per flow: its rank pair (sender, receiver), 0.. */
	int *from;			/* per flow: its sender's rank index */
	const double *lead;		/* per rank: pass lead (borrowed) */
	long npairs;			/* rank pairs with a flow */
	long *rev;			/* per pair: the pair the other way, -1 none */
	uint8_t *rv;			/* per flow: a rendezvous request (its data wait for an
					 * answer: behind_hold) */
	double *cap;			/* per host side: its capacity, B/s */
	struct fluid_bucket *bk;	/* per host side: its bucket */
};

/* Fill l from c's changed-link sends (c->nchanged: how many). Returns 0, or negative with e
 * set when the fluid model refuses the capacities; release l with links_release either
 * way. */
static int
links_init(struct links *l, struct pass *c, struct err *e)
{
	const struct prof *p = c->p;
	double *cap;
	struct fluid_bucket *bk;
	struct u64map pairs = U64MAP_INIT;
	long *last, npairs = 0;	/* per rank pair: its last flow so far, -1 */

	*l = (struct links){ 0 };
	for (long j = 0; c->nbw != NULL && j < c->nev; j++)
		l->n += !c->ev[j].recv && changed(c, c->ev[j].msg);
	c->nchanged = l->n;
	if (l->n == 0)
		return 0;
	cap = l->cap = xmallocarray(2 * (size_t)c->nhosts + 1, sizeof *cap);
	bk = l->bk = xmallocarray(2 * (size_t)c->nhosts + 1, sizeof *bk);
	l->fl = xmallocarray((size_t)l->n, sizeof *l->fl);
	l->msg = xmallocarray((size_t)l->n, sizeof *l->msg);
	l->flow = xmallocarray((size_t)p->nmsgs + 1, sizeof *l->flow);
	l->pair = xmallocarray((size_t)l->n, sizeof *l->pair);
	l->from = xmallocarray((size_t)l->n, sizeof *l->from);
	l->lead = c->lead;
	l->rv = xmallocarray((size_t)l->n, sizeof *l->rv);
	for (int r = 0; r < 2 * c->nhosts; r++) {
		cap[r] = INFINITY;
		bk[r] = (struct fluid_bucket){ INFINITY, c->peak_Bps };
	}
	last = xmallocarray((size_t)l->n + 1, sizeof *last);
	for (long j = 0, n = 0; j < c->nev; j++) {
		const struct replay_ev *x = &c->ev[j];
		const struct prof_msg *m = &p->msgs[x->msg];
		double burst = c->nburst != NULL ? c->nburst[x->msg] : 0;
		int ha, hb;
		long pair;

		if (x->recv || !changed(c, x->msg))
			continue;
		ha = c->host[x->rank];
		hb = c->host[prof_rank(p, m->dst) - p->ranks];
		/* a rank pair's messages are one TCP stream: each goes after the one before */
		pair = u64map_put(&pairs, (uint64_t)(uint32_t)m->src << 32 | (uint32_t)m->dst, npairs);
		if (pair == npairs)
			last[npairs++] = -1;
		l->fl[n] = (struct fluid_flow){ 0, c->size != NULL ? c->size[x->msg] : (double)m->bytes,
						{ 2 * ha, 2 * hb + 1 }, 0, last[pair] + 1 };
		last[pair] = n;
		l->pair[n] = pair;
		l->from[n] = x->rank;
		l->rv[n] = rndv_request(m);
		cap[2 * ha] = fmin(cap[2 * ha], c->nbw[x->msg]);
		cap[2 * hb + 1] = fmin(cap[2 * hb + 1], c->nbw[x->msg]);
		bk[2 * ha].burst_bytes = fmin(bk[2 * ha].burst_bytes, burst);
		bk[2 * hb + 1].burst_bytes = fmin(bk[2 * hb + 1].burst_bytes, burst);
		l->flow[x->msg] = (uint32_t)n;
		l->msg[n++] = x->msg;
	}
	free(last);
	l->npairs = npairs;
	l->rev = xmallocarray((size_t)npairs + 1, sizeof *l->rev);
	for (long k = 0; k < l->n; k++) {
		const struct prof_msg *m = &p->msgs[l->msg[k]];

		l->rev[l->pair[k]] = u64map_get(&pairs, (uint64_t)(uint32_t)m->dst << 32 | (uint32_t)m->src);
	}
	u64map_release(&pairs);
	for (int r = 0; r < 2 * c->nhosts; r++) {
		if (!isfinite(cap[r]))
			cap[r] = 1;	/* carries no flow */
		if (!isfinite(bk[r].burst_bytes) || !(bk[r].peak_Bps > cap[r]))
			bk[r].burst_bytes = 0;
	}
	return fluid_sim_new(&l->sim, l->fl, l->n, cap, bk, 2 * c->nhosts, e);
}

static void
links_release(struct links *l)
{
	fluid_sim_free(l->sim);
	free(l->fl);
	free(l->flow);
	free(l->msg);
	free(l->pair);
	free(l->from);
	free(l->rev);
	free(l->rv);
	free(l->cap);
	free(l->bk);
}

/* A send on a changed link waiting to start: when it leaves, and its flow (struct links). */
struct departure {
	double t_ns;
	uint32_t flow;
};

static bool
departure_less(struct departure a, struct departure b)
{
	return a.t_ns < b.t_ns || (a.t_ns == b.t_ns && a.flow < b.flow);
}

/* The departures not started yet, earliest first (a binary heap). */
struct departures {
	struct departure *h;
	long n;
};

static void
departures_push(struct departures *q, struct departure d)
{
	long i;

	for (i = q->n++; i > 0 && departure_less(d, q->h[(i - 1) / 2]); i = (i - 1) / 2)
		q->h[i] = q->h[(i - 1) / 2];
	q->h[i] = d;
}

static struct departure
departures_pop(struct departures *q)
{
	struct departure top = q->h[0], x = q->h[--q->n];
	long i = 0;

	for (;;) {
		long k = 2 * i + 1;

		if (k >= q->n)
			break;
		if (k + 1 < q->n && departure_less(q->h[k + 1], q->h[k]))
			k++;
		if (!departure_less(q->h[k], x))
			break;
		q->h[i] = q->h[k];
		i = k;
	}
	if (q->n > 0)
		q->h[i] = x;
	return top;
}

#define REPLAY_PREFETCH 8	/* events of a rank read ahead in pass_rank */

/* Each rank's events in its own order, and where each rank is: the replay walks the ranks
 * side by side, each as far as what it receives is known. */
struct cursor {
	uint32_t *ev;		/* event indices (into pass ev), rank after rank */
	long *off;		/* [nranks + 1]: rank i's are ev[off[i]..off[i + 1]) */
	long *at;		/* per rank: its next event, in ev */
	int64_t *wait;		/* per rank: the message its next event receives and waits for,
				 * -1 */
	int *ready, nready;	/* ranks that can go on */
	int64_t *pend;		/* per rank: its rendezvous send on a changed link whose data
				 * are not through yet, -1 */
};

static void
cursor_init(struct cursor *u, const struct pass *c)
{
	int nr = c->p->nranks;

	u->off = xcalloc((size_t)nr + 2, sizeof *u->off);
	u->ev = xmallocarray((size_t)c->nev + 1, sizeof *u->ev);
	u->at = xmallocarray((size_t)nr + 1, sizeof *u->at);
	u->wait = xmallocarray((size_t)nr + 1, sizeof *u->wait);
	u->ready = xmallocarray((size_t)nr + 1, sizeof *u->ready);
	u->pend = xmallocarray((size_t)nr + 1, sizeof *u->pend);
	for (long j = 0; j < c->nev; j++)
		u->off[c->ev[j].rank + 1]++;
	for (int i = 0; i < nr; i++)
		u->off[i + 1] += u->off[i];
	for (int i = 0; i < nr; i++)
		u->at[i] = u->off[i];
	for (long j = 0; j < c->nev; j++)
		u->ev[u->at[c->ev[j].rank]++] = (uint32_t)j;
	u->nready = 0;
	for (int i = nr - 1; i >= 0; i--) {
		u->at[i] = u->off[i];
		u->wait[i] = -1;
		u->pend[i] = -1;
		u->ready[u->nready++] = i;
	}
}

static void
cursor_release(struct cursor *u)
{
	free(u->ev);
	free(u->off);
	free(u->at);
	free(u->wait);
	free(u->ready);
	free(u->pend);
}

/* Message k's lateness is dmsg: its receiver goes on if it was waiting for it. */
static void
pass_known(struct pass *c, struct cursor *u, uint32_t k, double dmsg)
{
	int b = (int)(prof_rank(c->p, c->p->msgs[k].dst) - c->p->ranks);
	int a = (int)(prof_rank(c->p, c->p->msgs[k].src) - c->p->ranks);

	c->dmsg[k] = dmsg;
	c->known[k] = 1;
	if (u->wait[b] == (int64_t)k) {
		u->wait[b] = -1;
		u->ready[u->nready++] = b;
	}
	if (a != b && u->wait[a] == (int64_t)k) {	/* its sender, blocked until it is through */
		u->wait[a] = -1;
		u->ready[u->nready++] = a;
	}
}

/* When event x was in the dedicated run: its message's departure, or for a receive the
 * time its rank needed it. */
static int64_t
ev_time(const struct pass *c, const struct replay_ev *x)
{
	return x->recv ? c->need[x->msg] : c->p->msgs[x->msg].t_ns;
}

/* Rank i's pending rendezvous send when its data were through before event x in the
 * dedicated run (the rank got to x only once they were: it was blocked in MPI until
 * then); else -1. */
static int64_t
pend_through(const struct pass *c, const struct cursor *u, const struct replay_ev *x, int i)
{
	int64_t k = u->pend[i];

	return k >= 0 && arrival(&c->p->msgs[k]) <= ev_time(c, x) ? k : -1;
}

/* Rank i at event x after such a send: it is at least as late as the send's data (what it
 * did in between was its own). */
static void
pass_sent(struct pass *c, struct cursor *u, const struct replay_ev *x, int i)
{
	int64_t k = pend_through(c, u, x, i);

	if (k < 0)
		return;
	c->D[i] = fmax(c->D[i], c->dmsg[k]);
	u->pend[i] = -1;
}

/* Rank i's events, as far as it gets: up to a receive whose message's lateness is not
 * known yet (it waits), or its end. A send on a changed link leaves at its time + D: it
 * goes to q, to start in the fluid model in time order. */
static void
pass_rank(struct pass *c, struct cursor *u, struct links *l, struct departures *q, int i)
{
	const struct prof *p = c->p;

	for (; u->at[i] < u->off[i + 1]; u->at[i]++) {
		long j = u->ev[u->at[i]];
		const struct replay_ev *x = &c->ev[j];
		double seg;
		int64_t k;

		/* the rank's events lie scattered in the time-ordered trace: ask for one a few
		 * ahead, whose cache miss otherwise stalls the walk */
		if (u->at[i] + REPLAY_PREFETCH < u->off[i + 1])
			__builtin_prefetch(&c->ev[u->ev[u->at[i] + REPLAY_PREFETCH]]);

		if (x->recv && !c->known[x->msg]) {
			u->wait[i] = x->msg;
			return;
		}
		if ((k = pend_through(c, u, x, i)) >= 0 && !c->known[k]) {
			u->wait[i] = k;	/* blocked until the send's lateness is known */
			return;
		}
		seg = pass_stretch(c, j);	/* once: busy_prev is at this event now */
		if (x->recv) {
			pass_receive(c, x, seg);
			pass_sent(c, u, x, i);
			continue;
		}
		pass_sent(c, u, x, i);
		if (changed(c, x->msg) && rndv_request(&p->msgs[x->msg]) &&
		    (u->pend[i] < 0 || arrival(&p->msgs[x->msg]) > arrival(&p->msgs[u->pend[i]])))
			u->pend[i] = x->msg;
		if (c->sdt != NULL)	/* the sender getting to it sooner or later */
			c->D[i] += c->sdt[x->msg];
		if (changed(c, x->msg))
			departures_push(q, (struct departure){ (double)(p->msgs[x->msg].t_ns - c->t0_ns) + c->D[i],
							       l->flow[x->msg] });
		else
			pass_known(c, u, x->msg, c->D[i] + (c->dt != NULL ? c->dt[x->msg] : 0.0));
	}
}

/* The answers behind data (docs/predict.md, "An answer behind data"). Over TCP a rank pair's
 * messages both ways share one connection, so a rendezvous request's answer goes into its
 * receiver's stream to the requester behind whatever that stream still has to send. A rank
 * whose peer's rendezvous request reached it before it posted the receive answers that
 * first and asks after (answer_lead_ns tells how long before its own request it posts the
 * receive): the peer, its answer in hand, sends its data, and answers the rank's request
 * behind them. Such a request is held here (on the flow it waits for: head, next) until
 * that flow is done, then starts; one made while the receive was posted goes side by
 * side. */
struct behind {
	long *last;		/* per pair: the last flow started, -1 */
	double *t;		/* per flow: when it started */
	uint8_t *done;		/* per flow: done */
	long *head, *next;	/* per flow: the first request waiting for it, the next, -1 */
	uint8_t *held;		/* per flow: was held once (it is not held again) */
};

static void
behind_init(struct behind *b, const struct links *l)
{
	b->last = xmallocarray((size_t)l->npairs + 1, sizeof *b->last);
	b->t = xmallocarray((size_t)l->n + 1, sizeof *b->t);
	b->done = xcalloc((size_t)l->n + 1, sizeof *b->done);
	b->head = xmallocarray((size_t)l->n + 1, sizeof *b->head);
	b->next = xmallocarray((size_t)l->n + 1, sizeof *b->next);
	b->held = xcalloc((size_t)l->n + 1, sizeof *b->held);
	for (long k = 0; k < l->npairs; k++)
		b->last[k] = -1;
	for (long k = 0; k < l->n; k++)
		b->head[k] = b->next[k] = -1;
}

static void
behind_release(struct behind *b)
{
	free(b->last);
	free(b->t);
	free(b->done);
	free(b->head);
	free(b->next);
	free(b->held);
}

/* Whether the messages just before f and w on their streams (the pair's previous exchange)
 * were rendezvous requests that went side by side: each started before the other was
 * through, and neither was held. Their halves do not end together over a capped link (each
 * transfer's acknowledgements queue behind the other's data in the shaper), and the rank
 * whose data end last leaves its exchange first (its send is done once its last bytes are
 * in its socket; its receive already was), so its next request reaches its peer before
 * that one has posted the receive: the peer answers first, and the next exchange goes one
 * way after the other (docs/predict.md, "An answer behind data"). */
static bool
side_by_side_before(const struct behind *b, const struct links *l, long f, long w)
{
	long pf = l->fl[f].after - 1, pw = l->fl[w].after - 1;

	if (pf < 0 || pw < 0 || !l->rv[pf] || !l->rv[pw] || b->held[pf] || b->held[pw] || !b->done[pf] || !b->done[pw])
		return false;
	return b->t[pf] <= l->fl[pw].done_ns && b->t[pw] <= l->fl[pf].done_ns;
}

/* Departure d (of flow f, at t) is a request answered behind the other way's data: hold it
 * on that flow and return true; else false. lat_ns: the changed link's latency. */
static bool
behind_hold(struct behind *b, const struct links *l, long f, double t, double lat_ns)
{
	long r = l->rev[l->pair[f]], w;

	if (!l->rv[f] || b->held[f] || r < 0 || (w = b->last[r]) < 0 || b->done[w] || !l->rv[w])
		return false;
	/* the peer's request reached the rank while its receive was posted: it asked first;
	 * unless the two came right after an exchange that went side by side */
	if (t - (b->t[w] + fmax(lat_ns, 0)) <= l->lead[l->from[f]] && !side_by_side_before(b, l, f, w))
		return false;
	b->held[f] = 1;
	b->next[f] = b->head[w];
	b->head[w] = f;
	return true;
}

/* Replay the events: every rank as far as it can go; then, of the next departure on a
 * changed link and the next change in the fluid model (a transfer done, a bucket dry), the
 * earlier: the departure starts its flow, or the model runs to the change and the
 * transfers done then are known (done + newL against the measured arrival), which lets
 * their receivers go on. A rank waits only for what it receives, and every receive's send
 * comes before it in the trace: some rank can always go on until all are at their end. */
static int
pass_run(struct pass *c, struct err *e)
{
	const struct prof *p = c->p;
	struct cursor u;
	struct links l;
	struct departures q = { 0 };
	struct behind bh;
	int rc;

	for (int i = 0; i < p->nranks; i++) {
		c->D[i] = c->start != NULL ? c->start[i] : 0;
		c->busy_prev[i] = 0;
	}
	memset(c->known, 0, (size_t)p->nmsgs + 1);
	c->nwoke = 0;
	c->t0_ns = c->nev > 0 ? p->msgs[c->ev[0].msg].t_ns : 0;
	if ((rc = links_init(&l, c, e)) < 0) {
		links_release(&l);
		return rc;
	}
	q.h = xmallocarray((size_t)l.n + 1, sizeof *q.h);
	behind_init(&bh, &l);
	cursor_init(&u, c);
	for (;;) {
		double next;
		const long *done;
		long nd;

		while (u.nready > 0)
			pass_rank(c, &u, &l, &q, u.ready[--u.nready]);
		next = l.sim != NULL ? fluid_sim_next_ns(l.sim) : INFINITY;
		if (q.n > 0 && !(q.h[0].t_ns > next)) {
			struct departure d = departures_pop(&q);

			if (behind_hold(&bh, &l, d.flow, d.t_ns, c->nlat[l.msg[d.flow]]))
				continue;
			bh.last[l.pair[d.flow]] = d.flow;
			bh.t[d.flow] = d.t_ns;
			fluid_sim_start(l.sim, d.flow, d.t_ns);
		} else if (isfinite(next)) {
			fluid_sim_step(l.sim);
		} else {
			break;
		}
		done = fluid_sim_done(l.sim, &nd);
		for (long k = 0; k < nd; k++) {
			uint32_t m = l.msg[done[k]];
			const struct prof_msg *pm = &p->msgs[m];

			/* the requests answered behind it start now */
			bh.done[done[k]] = 1;
			for (long w = bh.head[done[k]]; w >= 0; w = bh.next[w])
				departures_push(&q, (struct departure){ l.fl[done[k]].done_ns, (uint32_t)w });

			pass_known(c, &u, m, l.fl[done[k]].done_ns + c->nlat[m] -
						     (double)((pm->t_last_ns > pm->t_ns ? pm->t_last_ns : pm->t_ns) - c->t0_ns));
		}
	}
	for (int i = 0; i < p->nranks; i++) {
		if (u.at[i] < u.off[i + 1])
			BUG("replay: rank %d stopped at event %ld of %ld", i, u.at[i] - u.off[i], u.off[i + 1] - u.off[i]);
		c->D[i] += (c->busy[i] - c->busy_prev[i]) * (c->f[i] - 1);
	}
	cursor_release(&u);
	behind_release(&bh);
	links_release(&l);
	free(q.h);
	return 0;
}

/* W for a REPLAY_MEASURED receive needed at t by a rank whose previous event was at from:
 * every idle stretch since then, or 0 when it was busy with earlier work at t (a phase
 * begun more than the grain before; not when needed on arrival all the same, on_arrival:
 * the rank replied to it, trace_receive_keys, and was polling). Between two
 * events a rank has nothing else to wait for: the busy stretches in between are work that
 * comes before the message whatever its arrival, the idle ones could all have gone. Demand
 * phases break a long wait into pieces (a polling loop's rare user tick reads as a busy
 * interval), and only the last piece would let a faster sender's gain through. i:
 * phase_at(b, t); fi: phase_at(b, from) (from at most t; any value when from is
 * INT64_MIN). */
static double
idle_before(const struct replay_busy *b, int64_t t, int64_t from, long i, long fi, bool on_arrival)
{
	const struct replay_phase *ph = i >= 0 && t < bph(b, i)->t_end_ns ? bph(b, i) : NULL;
	int64_t at = t, idle_from = from;
	double idle;

	if (ph != NULL) {
		if (ph->t_start_ns < t - REPLAY_GRAIN_NS && !on_arrival)
			return 0;	/* busy with earlier work */
		at = ph->t_start_ns;
	}
	if (idle_from == INT64_MIN) {	/* the rank's first event: idle since its last busy phase */
		idle_from = i >= 0 ? (ph != NULL ? (i > 0 ? bph(b, i - 1)->t_end_ns : INT64_MIN)
						 : (bph(b, i)->t_end_ns <= at ? bph(b, i)->t_end_ns : INT64_MIN))
			       : INT64_MIN;
		fi = idle_from != INT64_MIN ? phase_at(b, idle_from) : -1;
	}
	if (idle_from == INT64_MIN || idle_from >= at)
		return 0;
	/* phase_at(b, at) is i, as in dedicated_wait */
	idle = (double)(at - idle_from) - (busy_before_at(b, at, i) - busy_before_at(b, idle_from, fi));
	return idle > 0 ? idle : 0;
}

/* W for a REPLAY_DEDICATED receive needed at t by a rank whose previous event was at from
 * (INT64_MIN: none): idle (or just starting the work the message brought) when it was
 * needed, the rank had waited since its last event or its last busy phase; else 0. i:
 * phase_at(b, t). */
static double
dedicated_wait(const struct replay_busy *b, int64_t t, int64_t from, long i)
{
	const struct replay_phase *ph = in_busy_at(b, t, i);
	double W = 0;

	if (ph == NULL || ph->t_start_ns >= t - REPLAY_GRAIN_NS) {
		/* phase_at(b, ph->t_start_ns) is i too: the phases after i start after t */
		int64_t idle_from = busy_end_before_at(b, ph != NULL ? ph->t_start_ns : t, i);

		if (from != INT64_MIN && from > idle_from)
			idle_from = from;
		if (idle_from != INT64_MIN && idle_from < t)
			W = (double)((ph != NULL ? ph->t_start_ns : t) - idle_from);
		if (W < 0)
			W = 0;
	}
	return W;
}

/* What trace_wait keeps of each rank from one of its events to the next. */
struct waits {
	const struct replay_busy *bl;	/* per rank: its busy phases (trace_busy) */
	int64_t *prev;		/* its last event's time, INT64_MIN */
	double *prev_busy;	/* the busy time before it */
	long *cur;		/* its last busy phase started by then, -1 */
};

static void
waits_init(struct waits *w, const struct replay_busy *bl, int nranks)
{
	w->bl = bl;
	w->prev = xmallocarray((size_t)nranks + 1, sizeof *w->prev);
	w->prev_busy = xcalloc((size_t)nranks + 1, sizeof *w->prev_busy);
	w->cur = xmallocarray((size_t)nranks + 1, sizeof *w->cur);
	for (int i = 0; i < nranks; i++) {
		w->prev[i] = INT64_MIN;
		w->cur[i] = -1;
	}
}

static void
waits_release(struct waits *w)
{
	free(w->prev);
	free(w->prev_busy);
	free(w->cur);
}

/* The time of event v: its message's departure, or when the receive was needed. */
static int64_t
ev_t(const struct replay_trace *t, const struct replay_ev *v)
{
	return v->recv ? t->need_ns[v->msg] : t->p->msgs[v->msg].t_ns;
}

/* Event x's busy time before it, a receive's W and (REPLAY_MEASURED) the event's gap, from
 * the rank's previous event: all the trace fixes, worked out once for every replay. Called
 * for the events in order, each holding its time (v->t_ns, trace_merge), which its busy
 * time replaces: a rank's events come in time order, so its busy phases are walked with a
 * cursor, which is phase_at at the event's time (and at its previous event's before it
 * moves), and no phase is searched for. */
static void
trace_wait(struct replay_trace *t, struct waits *w, long x)
{
	struct replay_ev *v = &t->ev[x];
	const struct replay_busy *b = &w->bl[v->rank];
	int64_t from = w->prev[v->rank], at = v->t_ns;
	long *c = &w->cur[v->rank], fc = *c;	/* phase_at(b, from) */
	double busy = 0, W = 0;

	while (*c + 1 < b->n && bph(b, *c + 1)->t_start_ns <= at)
		(*c)++;
	if (*c >= 0) {	/* busy_before(b, at) */
		const struct replay_phase *ph = bph(b, *c);

		busy = ph->before_ns + (double)((at < ph->t_end_ns ? at : ph->t_end_ns) - ph->t_start_ns);
	}
	v->busy_ns = busy;
	if (t->kind == REPLAY_MEASURED) {
		if (v->recv && v->answer && from != INT64_MIN)
			W = (double)(at - from);
		else if (v->recv)
			W = idle_before(b, at, from, *c, fc, v->woke);
		t->gap_ns[x] = from != INT64_MIN ? fmax((double)(at - from) - (busy - w->prev_busy[v->rank]) - W, 0) : 0;
	} else if (v->recv) {
		W = dedicated_wait(b, at, from, *c);
	}
	if (v->recv)
		t->wait_ns[v->msg] = W;
	w->prev[v->rank] = at;
	w->prev_busy[v->rank] = busy;
}

/* A message's arrival: its last packet. */
static int64_t
arrival(const struct prof_msg *m)
{
	return m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;
}

/* later[k]: message k has no exchange partner sent after it arrived. */
#define LATER_NONE UINT32_MAX

/* The messages of one rank pair, pm[0..n) (indices into p->msgs) in departure order,
 * paired: each one takes the oldest unpaired message of the other direction that arrived at
 * most REPLAY_XCHG_NS before it left (or is still on its way). When the pair exchanges (both
 * ranks send first often enough), a pair's second message did not wait for its first, which
 * was sent without waiting for it in turn: both sides had posted their sends, and the second
 * left late only because its rank got to it late (a transpose's sends one after another, a
 * CPU quota). Its rank's receive of the first is then needed only once it has sent the
 * second: later[] (per message) gets the second. */
static void
exchange_pairs(const struct prof *p, const uint32_t *pm, long n, uint32_t *later)
{
	const struct prof_msg *m0 = &p->msgs[pm[0]];
	uint32_t *open = xmallocarray((size_t)n + 1, sizeof *open);
	int64_t *pair = xmallocarray((size_t)n + 1, sizeof *pair);
	long head = 0, tail = 0, first[2] = { 0, 0 };	/* pairs that lo, hi sent first */
	int32_t lo = m0->src < m0->dst ? m0->src : m0->dst;

	/* open[head..tail): the unpaired messages, in departure order, all of one direction */
	for (long k = 0; k < n; k++) {
		const struct prof_msg *m = &p->msgs[pm[k]];

		pair[k] = -1;
		if (head < tail && p->msgs[pm[open[head]]].src == m->src) {
			open[tail++] = (uint32_t)k;
			continue;
		}
		while (head < tail && arrival(&p->msgs[pm[open[head]]]) + REPLAY_XCHG_NS < m->t_ns)
			head++;
		if (head == tail) {
			head = tail = 0;
			open[tail++] = (uint32_t)k;
			continue;
		}
		pair[k] = open[head++];
		if (m->t_ns >= arrival(&p->msgs[pm[pair[k]]]))
			first[p->msgs[pm[pair[k]]].src != lo]++;
	}
	if (first[0] + first[1] > 0 &&
	    fmin(first[0], first[1]) >= REPLAY_XCHG_SHARE * (double)(first[0] + first[1])) {
		for (long k = 0; k < n; k++) {
			if (pair[k] >= 0 && p->msgs[pm[k]].t_ns >= arrival(&p->msgs[pm[pair[k]]]))
				later[pm[pair[k]]] = pm[k];
		}
	}
	free(open);
	free(pair);
}

/* later[k]: the message (index into p->msgs) that message k's receiver sent as its exchange
 * partner, if it was sent after k arrived (exchange_pairs), else LATER_NONE. The messages
 * between two ranks (si, di: their indices in p->ranks, -1 unknown) are taken in time order
 * (ord: the messages by departure, then index) and grouped by pair with two stable counting
 * sorts, by the higher rank and then by the lower (ranks are sorted, so indices order as
 * ranks do). */
static void
exchanges(const struct prof *p, const uint32_t *ord, const int *si, const int *di, uint32_t *later)
{
	uint32_t *pm = xmallocarray((size_t)p->nmsgs + 1, sizeof *pm);
	uint32_t *tmp = xmallocarray((size_t)p->nmsgs + 1, sizeof *tmp);
	long *cnt = xmallocarray((size_t)p->nranks + 1, sizeof *cnt);
	long n = 0;

	for (long k = 0; k < p->nmsgs; k++)
		later[k] = LATER_NONE;
	for (long o = 0; o < p->nmsgs; o++) {
		uint32_t k = ord[o];

		if (si[k] >= 0 && di[k] >= 0 && si[k] != di[k])
			tmp[n++] = k;
	}
	for (int pass = 0; pass < 2; pass++) {	/* tmp by hi into pm, then pm by lo into tmp */
		const uint32_t *from = pass == 0 ? tmp : pm;
		uint32_t *to = pass == 0 ? pm : tmp;
		long sum = 0;

		memset(cnt, 0, ((size_t)p->nranks + 1) * sizeof *cnt);
		for (long a = 0; a < n; a++) {
			uint32_t k = from[a];

			cnt[pass == 0 ? (si[k] > di[k] ? si[k] : di[k]) : (si[k] < di[k] ? si[k] : di[k])]++;
		}
		for (int r = 0; r < p->nranks; r++) {
			long c = cnt[r];

			cnt[r] = sum;
			sum += c;
		}
		for (long a = 0; a < n; a++) {
			uint32_t k = from[a];

			to[cnt[pass == 0 ? (si[k] > di[k] ? si[k] : di[k]) : (si[k] < di[k] ? si[k] : di[k])]++] = k;
		}
	}
	for (long a = 0, b; a < n; a = b) {
		uint32_t ka = tmp[a];

		for (b = a + 1; b < n && ((si[tmp[b]] == si[ka] && di[tmp[b]] == di[ka]) ||
					  (si[tmp[b]] == di[ka] && di[tmp[b]] == si[ka]));
		     b++)
			;
		exchange_pairs(p, tmp + a, b - a, later);
	}
	free(pm);
	free(tmp);
	free(cnt);
}

/* The busy phases of one rank, ix[0..n) (indices into all), in time order (the file's
 * order, which is usually it); at equal starts in index order. */
static void
busy_sort(const struct prof_busy *all, uint32_t *ix, long n)
{
	for (long j = 1; j < n; j++) {
		if (all[ix[j]].t_start_ns < all[ix[j - 1]].t_start_ns) {
			struct bkey *k = xmallocarray((size_t)n, sizeof *k);

			for (long i = 0; i < n; i++)
				k[i] = (struct bkey){ all[ix[i]].t_start_ns, ix[i] };
			qsort(k, (size_t)n, sizeof *k, cmp_bkey);
			for (long i = 0; i < n; i++)
				ix[i] = k[i].i;
			free(k);
			return;
		}
	}
}

/* A message between two known ranks, which makes a send and a receive. */
static bool
two_ranks(const int *si, const int *di, long k)
{
	return si[k] >= 0 && di[k] >= 0 && si[k] != di[k];
}

_Static_assert(sizeof(struct tkey) == sizeof(struct replay_ev), "the events' array holds the receives' keys");

/* Memory: the trace keeps 16 bytes an event (replay_ev) and 16 a message (need_ns,
 * wait_ns), 8 more an event for REPLAY_MEASURED (gap_ns); while it is made, at most 4
 * bytes a message more (si, di and ord, 12 bytes, are freed before wait_ns is made) and 24
 * a busy phase (replay_phase, freed at the end; 4 more while trace_busy runs). The
 * receives are sorted in the events' array, the upper half the keys and the lower the
 * sort's scratch, and merged from the front with the sends, which are in order already:
 * the merge writes no event past the keys it has yet to read. */
/* Per message: its sender's and receiver's index in p->ranks (si, di: -1 unknown). Returns
 * how many messages are between two known ranks. */
static long
trace_ranks_of(const struct prof *p, int *si, int *di)
{
	long ns = 0;

	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_rank *a = p->msgs[k].src >= 0 ? prof_rank(p, p->msgs[k].src) : NULL;
		const struct prof_rank *b = p->msgs[k].dst >= 0 ? prof_rank(p, p->msgs[k].dst) : NULL;

		si[k] = a != NULL ? (int)(a - p->ranks) : -1;
		di[k] = b != NULL ? (int)(b - p->ranks) : -1;
		ns += two_ranks(si, di, k);
	}
	return ns;
}

/* The messages by departure, then index (the caller frees). */
static uint32_t *
trace_departures(const struct prof *p)
{
	/* the upper half of keys is the sort's scratch: untouched when messages.tsv is in
	 * time order */
	struct tkey *keys = xmallocarray(2 * (size_t)p->nmsgs + 1, sizeof *keys);
	uint32_t *ord = xmallocarray((size_t)p->nmsgs + 1, sizeof *ord);

	for (long k = 0; k < p->nmsgs; k++)
		keys[k] = (struct tkey){ p->msgs[k].t_ns, k };
	tkey_sort(keys, p->nmsgs, true, keys + p->nmsgs);	/* few runs: messages.tsv is in time order */
	for (long k = 0; k < p->nmsgs; k++)
		ord[k] = (uint32_t)keys[k].j;
	free(keys);
	return ord;
}

/* Each rank's busy phases in time order, with the busy time before each (the caller frees
 * with busy_free), and its whole busy time (t->busy_ns). */
static struct replay_busy *
trace_busy(struct replay_trace *t, const struct prof *p)
{
	struct replay_busy *bl = xcalloc((size_t)p->nranks + 1, sizeof *bl);
	uint32_t *ix = xmallocarray((size_t)p->nbusy + 1, sizeof *ix);	/* the phases with a
					 * length, one rank after the other */
	long *off = xcalloc((size_t)p->nranks + 2, sizeof *off);	/* rank i's in ix[off[i]..] */

	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_rank *rk = prof_rank(p, p->busy[k].rank);

		if (rk != NULL && p->busy[k].t_end_ns > p->busy[k].t_start_ns)
			off[rk - p->ranks + 1]++;
	}
	for (int i = 0; i < p->nranks; i++)
		off[i + 1] += off[i];
	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_rank *rk = prof_rank(p, p->busy[k].rank);

		if (rk != NULL && p->busy[k].t_end_ns > p->busy[k].t_start_ns) {
			struct replay_busy *b = &bl[rk - p->ranks];

			ix[off[rk - p->ranks] + b->n++] = (uint32_t)k;
		}
	}
	t->busy_ns = xcalloc((size_t)p->nranks + 1, sizeof *t->busy_ns);
	for (int i = 0; i < p->nranks; i++) {
		struct replay_busy *b = &bl[i];
		uint32_t *r = ix + off[i];

		busy_sort(p->busy, r, b->n);
		b->ph = xmallocarray((size_t)b->n + 1, sizeof *b->ph);
		for (long j = 0; j < b->n; j++) {
			const struct prof_busy *x = &p->busy[r[j]];

			b->ph[j] = (struct replay_phase){ x->t_start_ns, x->t_end_ns,
							  j > 0 ? b->ph[j - 1].before_ns +
								  (double)(b->ph[j - 1].t_end_ns - b->ph[j - 1].t_start_ns)
								: 0 };
		}
		t->busy_ns[i] = busy_before(b, INT64_MAX);
	}
	free(ix);
	free(off);
	return bl;
}

static void
busy_free(struct replay_busy *bl, int nranks)
{
	for (int i = 0; bl != NULL && i < nranks; i++)
		free(bl[i].ph);
	free(bl);
}

/* Each rank's sends, in order since the messages are taken by departure; *sk holds them
 * all, one rank after the other (the caller frees both). */
static struct sends *
trace_sends(const struct prof *p, const int *si, const uint32_t *ord, uint32_t **sk)
{
	struct sends *sd = xcalloc((size_t)p->nranks + 1, sizeof *sd);

	for (long k = 0; k < p->nmsgs; k++)
		if (si[k] >= 0)
			sd[si[k]].n++;
	*sk = xmallocarray((size_t)p->nmsgs + 1, sizeof **sk);
	for (long i = 0, off = 0; i < p->nranks; i++) {
		sd[i].m = p->msgs;
		sd[i].k = *sk + off;
		off += sd[i].n;
		sd[i].n = 0;
	}
	for (long o = 0; o < p->nmsgs; o++) {
		uint32_t k = ord[o];

		if (si[k] >= 0)
			sd[si[k]].k[sd[si[k]].n++] = k;
	}
	return sd;
}

/* The receives, every message between two known ranks, as keys (when it was needed, the
 * message, whether it was an answer and whether it was needed on arrival) into rk[]. */
static void
trace_receive_keys(const struct replay_trace *t, const struct prof *p, const struct replay_busy *bl,
		   const int *si, const int *di, const uint32_t *ord, const struct sends *sd, struct tkey *rk)
{
	uint32_t *later = xmallocarray((size_t)p->nmsgs + 1, sizeof *later);	/* per message: its
				 * exchange partner (exchanges), LATER_NONE */
	long *hint = xmallocarray((size_t)p->nranks + 1, sizeof *hint);	/* per rank: the busy
				 * phase its last receive came in or after */
	long *shint = xcalloc((size_t)p->nranks + 1, sizeof *shint);	/* per rank: its first
				 * send at or after its last receive's arrival */
	int64_t *reply = xmallocarray((size_t)p->nranks + 1, sizeof *reply);	/* per rank: the
				 * window of a reply (REPLAY_REPLY_NS) */
	long nr = 0;

	if (t->kind == REPLAY_DEDICATED)	/* predict's reading only: docs/explain.md, "Exchanges" */
		exchanges(p, ord, si, di, later);
	else
		for (long k = 0; k < p->nmsgs; k++)
			later[k] = LATER_NONE;
	for (int i = 0; i < p->nranks; i++) {
		hint[i] = -1;
		reply[i] = REPLAY_GRAIN_NS;
	}
	if (t->kind == REPLAY_DEDICATED) {
		struct coloc_rank *cl = xcalloc((size_t)p->nranks + 1, sizeof *cl);

		coloc_read(p, cl);
		for (int i = 0; i < p->nranks; i++)
			if (!coloc_whole_cpu(p, cl, i))
				reply[i] = REPLAY_REPLY_NS;
		free(cl);
	}
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int b = di[k];
		int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns, need = arr;
		const struct replay_phase *ph;
		int answer = 0, replied = 0;

		if (!two_ranks(si, di, k))
			continue;
		/* a message that came while its receiver was busy was needed when it stopped, or at
		 * its next send if that is sooner (what it sends may carry what it received);
		 * unless it came within the phases' grain of the phase's start: then the receiver
		 * was waiting for it, and the work it started is the message's; or unless the
		 * receiver sent next within that grain (predict's reading: REPLAY_REPLY_NS) inside
		 * the phase: it replied to it (docs/predict.md, "A receive") */
		ph = NULL;
		{
			long i = phase_near(&bl[b], arr, &hint[b]);

			if (i >= 0 && arr < bph(&bl[b], i)->t_end_ns)
				ph = bph(&bl[b], i);	/* in_busy(&bl[b], arr) */
		}
		if (ph != NULL) {
			const struct sends *r = &sd[b];
			long j = send_near(r, arr, &shint[b]);

			/* (REPLAY_MEASURED) between a send of the rank and its next, both closer
			 * than the samples see: it was waiting for this message (a ping-pong in a
			 * polling loop whose stray user tick made the interval busy), an answer,
			 * its W all the time since the previous send */
			answer = t->kind == REPLAY_MEASURED && j > 0 && j < r->n &&
				 arr - send_t(r, j - 1) < REPLAY_GRAIN_NS && send_t(r, j) - arr < REPLAY_GRAIN_NS;
			/* its next send that close and still inside the phase: it replied, the
			 * phase (polling read busy, begun by a stray user tick) is no earlier
			 * work; its W the idle time since its previous event. Predict's reading
			 * takes a reply only within REPLAY_REPLY_NS on a rank without a whole
			 * CPU: on a CPU quota, throttled, it often sends next within the grain
			 * of a message it did not wait for */
			replied = answer || (j < r->n && send_t(r, j) < ph->t_end_ns && send_t(r, j) - arr < reply[b]);
		}
		if (ph != NULL && !replied && arr - ph->t_start_ns >= REPLAY_GRAIN_NS) {
			long j = send_near(&sd[b], arr, &shint[b]);
			int64_t nx = j < sd[b].n ? send_t(&sd[b], j) : INT64_MAX;	/* the next send */

			need = nx < ph->t_end_ns ? nx : ph->t_end_ns;
		}
		/* the receiver sent its half of an exchange after this arrived: it did not wait
		 * for it to do so (sends go first at equal times) */
		if (later[k] != LATER_NONE && p->msgs[later[k]].t_ns > need)
			need = p->msgs[later[k]].t_ns;
		rk[nr++] = (struct tkey){ need, (int64_t)k << RECV_PLACE_SHIFT | answer | (need == arr) << 1 };
	}
	free(hint);
	free(shint);
	free(reply);
	free(later);
}

#define TRACE_AHEAD 16	/* messages by departure read ahead in trace_merge */

/* The events: the sends (by departure) merged with the receive keys (sorted in the upper
 * half of t->ev, the lower half as scratch), the sends first at equal times (as sorting
 * every event by (time, sends' places before receives') would give). Each receive's need
 * time goes to t->need_ns. */
static void
trace_merge(struct replay_trace *t, const struct prof *p, const int *si, const int *di, const uint32_t *ord,
	    long ns)
{
	struct tkey *keys = (struct tkey *)(void *)t->ev;
	long nev = 2 * ns;

	tkey_sort(keys + ns, ns, true, keys);
	t->need_ns = xmallocarray((size_t)p->nmsgs + 1, sizeof *t->need_ns);
	for (long x = 0, o = 0, r = 0; x < nev; x++) {
		struct tkey kr = { INT64_MAX, 0 };

		while (o < p->nmsgs && !two_ranks(si, di, ord[o]))
			o++;
		/* the messages by departure are read from as many places as messages.tsv has
		 * sorted stretches: ask for one a few ahead */
		if (o + TRACE_AHEAD < p->nmsgs) {
			uint32_t ka = ord[o + TRACE_AHEAD];

			__builtin_prefetch(&p->msgs[ka].t_ns);
			__builtin_prefetch(&si[ka]);
			__builtin_prefetch(&di[ka]);
		}
		if (r < ns)
			kr = keys[ns + r];	/* read before ev[x], which may be the same place, is made */
		if (o < p->nmsgs && (r == ns || p->msgs[ord[o]].t_ns <= kr.t_ns)) {
			uint32_t k = ord[o++];

			t->ev[x] = (struct replay_ev){ .t_ns = p->msgs[k].t_ns, .msg = k, .rank = (uint32_t)si[k] };
		} else {
			uint32_t k = (uint32_t)(kr.j >> RECV_PLACE_SHIFT);

			t->need_ns[k] = kr.t_ns;
			t->ev[x] = (struct replay_ev){ .t_ns = kr.t_ns, .msg = k, .rank = (uint32_t)di[k], .recv = 1,
						       .answer = (uint32_t)(kr.j & 1), .woke = (uint32_t)(kr.j >> 1) & 1 };
			r++;
		}
	}
	t->nev = nev;
}

/* t->next_ns: per receive, when its rank's next event is a receive too, how long after its
 * arrival that one's message came (INFINITY otherwise). A rank waiting for messages that
 * come one right after the other (the pieces of a collective, 20 us apart: on MPICH's QR
 * under a competitor 1090 of the loaded rank's 1441 receives followed by a receive came
 * within 1.5 ms of the one before) is woken once, and finds the later ones there. */
static void
trace_next(struct replay_trace *t)
{
	const struct prof *p = t->p;
	long *last = xmallocarray((size_t)p->nranks + 1, sizeof *last);	/* per rank: its
				 * previous event when a receive, -1 */

	t->next_ns = xmallocarray((size_t)p->nmsgs + 1, sizeof *t->next_ns);
	for (long k = 0; k < p->nmsgs; k++)
		t->next_ns[k] = INFINITY;
	for (int i = 0; i < p->nranks; i++)
		last[i] = -1;
	for (long x = 0; x < t->nev; x++) {
		const struct replay_ev *v = &t->ev[x];

		if (v->recv && last[v->rank] >= 0) {
			uint32_t k = t->ev[last[v->rank]].msg;

			t->next_ns[k] = (double)(arrival(&p->msgs[v->msg]) - arrival(&p->msgs[k]));
		}
		last[v->rank] = v->recv ? x : -1;
	}
	free(last);
}

void
replay_trace_init(struct replay_trace *t, const struct prof *p, enum replay_kind kind)
{
	struct sends *sd;
	uint32_t *sk;		/* every rank's sends (sd), one rank after the other */
	struct replay_busy *bl;	/* per rank: its busy phases, while the trace is made */
	const char **hosts;
	int *si, *di;		/* per message: its sender's and receiver's index in p->ranks, -1 */
	uint32_t *ord;		/* the messages by departure, then index */
	long ns;		/* messages between two known ranks: sends, and as many receives */
	struct waits w;
	struct err e;

	*t = (struct replay_trace){ .p = p, .kind = kind };
	if (replay_fits(p, &e) < 0)
		BUG("%s", e.msg);
	si = xmallocarray((size_t)p->nmsgs + 1, sizeof *si);
	di = xmallocarray((size_t)p->nmsgs + 1, sizeof *di);
	ns = trace_ranks_of(p, si, di);
	ord = trace_departures(p);
	bl = trace_busy(t, p);
	sd = trace_sends(p, si, ord, &sk);
	/* the receives' keys in the upper half of the events' array, then the events */
	t->ev = xmallocarray(2 * (size_t)ns + 1, sizeof *t->ev);
	trace_receive_keys(t, p, bl, si, di, ord, sd, (struct tkey *)(void *)t->ev + ns);
	free(sk);
	free(sd);
	trace_merge(t, p, si, di, ord, ns);
	free(ord);
	free(si);
	free(di);
	t->wait_ns = xmallocarray((size_t)p->nmsgs + 1, sizeof *t->wait_ns);
	if (kind == REPLAY_MEASURED)
		t->gap_ns = xmallocarray((size_t)t->nev + 1, sizeof *t->gap_ns);
	waits_init(&w, bl, p->nranks);
	for (long x = 0; x < t->nev; x++)
		trace_wait(t, &w, x);
	waits_release(&w);
	if (kind == REPLAY_MEASURED)
		trace_next(t);
	busy_free(bl, p->nranks);

	hosts = xcalloc((size_t)p->nranks + 1, sizeof *hosts);
	t->host = xcalloc((size_t)p->nranks + 1, sizeof *t->host);
	for (int i = 0; i < p->nranks; i++)
		t->host[i] = host_index(hosts, &t->nhosts, p->ranks[i].host);
	free(hosts);
	t->lead_ns = xmallocarray((size_t)p->nranks + 1, sizeof *t->lead_ns);
	answer_lead_ns(p, t->lead_ns);
}

void
replay_trace_free(struct replay_trace *t)
{
	if (t == NULL)
		return;
	free(t->ev);
	free(t->need_ns);
	free(t->wait_ns);
	free(t->gap_ns);
	free(t->next_ns);
	free(t->host);
	free(t->busy_ns);
	free(t->lead_ns);
	*t = (struct replay_trace){ 0 };
}

/* in's array a, or a new array of n copies of dflt put in *own (the caller frees it). */
static const double *
or_fill(const double *a, size_t n, double dflt, double **own)
{
	if (a != NULL)
		return a;
	*own = xmallocarray(n, sizeof **own);
	for (size_t k = 0; k < n; k++)
		(*own)[k] = dflt;
	return *own;
}

int
replay_run(const struct replay_trace *t, const struct replay_in *in, struct replay_out *out, struct err *e)
{
	static const struct replay_in none;
	const struct prof *p = t->p;
	size_t nr = (size_t)p->nranks + 1, nm = (size_t)p->nmsgs + 1;
	double *own[4] = { NULL };	/* the defaults of what in leaves NULL (per rank, and the
					 * latencies of given bandwidths) */
	double *D, *dmsg, *busy_prev, *freed;
	uint8_t *known;
	double best = -INFINITY;
	const double *nbw;
	long nchanged;
	int rc;

	if (in == NULL)
		in = &none;
	/* per message the lateness of every message and whether it is known yet */
	D = xcalloc(nr, sizeof *D);
	freed = xcalloc(nr, sizeof *freed);
	busy_prev = xcalloc(nr, sizeof *busy_prev);	/* busy time before the last event */
	dmsg = xcalloc(nm, sizeof *dmsg);
	known = xcalloc(nm, sizeof *known);
	nbw = in->bw_Bps;
	{
		struct pass c = { p, t->busy_ns, t->ev, t->nev, t->need_ns, t->wait_ns, t->gap_ns,
				  or_fill(in->busy_f, nr, 1, &own[0]), or_fill(in->wake_ns, nr, 0, &own[1]),
				  or_fill(in->gap_f, nr, 1, &own[2]), t->kind == REPLAY_MEASURED ? in->poll_f : NULL,
				  in->msg_dt_ns, in->send_dt_ns, t->host, t->nhosts,
				  nbw != NULL ? or_fill(in->lat_ns, nm, NAN, &own[3]) : NULL, nbw, in->burst_B,
				  p->bw_Bps, D, busy_prev, dmsg, known, 0, 0, 0, in->start_ns, in->rndv,
				  in->size_B, t->kind == REPLAY_MEASURED, t->next_ns, t->lead_ns,
				  t->kind == REPLAY_MEASURED ? in->free_f : NULL, in->free_max_ns, freed };

		rc = pass_run(&c, e);
		out->nwoke = c.nwoke;
		nchanged = c.nchanged;
	}
	out->nchanged = nchanged;
	out->worst = -1;
	for (int i = 0; i < p->nranks; i++) {
		double x = (double)p->ranks[i].exec_ns + D[i];

		if (x > best) {
			best = x;
			out->worst = i;
		}
		if (out->late_ns != NULL)
			out->late_ns[i] = D[i];
	}
	out->run_ns = p->nranks > 0 ? best : 0;
	for (int k = 0; k < 4; k++)
		free(own[k]);
	free(D);
	free(freed);
	free(busy_prev);
	free(dmsg);
	free(known);
	return rc;
}

double
replay_bound_ns(const struct replay_trace *t, const struct replay_in *in)
{
	const struct prof *p = t->p;
	double fmax_ = 1, b, *cap = NULL;

	for (int i = 0; in != NULL && in->busy_f != NULL && i < p->nranks; i++)
		fmax_ = fmax(fmax_, in->busy_f[i]);
	b = (double)prof_dedicated_ns(p) * fmax_;
	if (in == NULL)
		return b;
	if (in->bw_Bps != NULL) {	/* each host side's capacity, as the replay's links_init */
		cap = xmallocarray(2 * (size_t)t->nhosts + 1, sizeof *cap);
		for (int r = 0; r < 2 * t->nhosts; r++)
			cap[r] = INFINITY;
		for (long k = 0; k < p->nmsgs; k++) {
			const struct prof_rank *a = prof_rank(p, p->msgs[k].src), *d = prof_rank(p, p->msgs[k].dst);

			if (a != NULL && d != NULL && a != d && !isnan(in->bw_Bps[k])) {
				int sa = 2 * t->host[a - p->ranks], sd = 2 * t->host[d - p->ranks] + 1;

				cap[sa] = fmin(cap[sa], in->bw_Bps[k]);
				cap[sd] = fmin(cap[sd], in->bw_Bps[k]);
			}
		}
	}
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct prof_rank *a = m->src >= 0 ? prof_rank(p, m->src) : NULL;
		const struct prof_rank *d = m->dst >= 0 ? prof_rank(p, m->dst) : NULL;

		if (d != NULL && in->wake_ns != NULL && in->wake_ns[d - p->ranks] > 0)
			b += in->wake_ns[d - p->ranks];
		if (cap != NULL && a != NULL && d != NULL && a != d && !isnan(in->bw_Bps[k])) {
			double rate = fmin(cap[2 * t->host[a - p->ranks]], cap[2 * t->host[d - p->ranks] + 1]);
			double lat = in->lat_ns != NULL && isfinite(in->lat_ns[k]) ? in->lat_ns[k] : 0;

			if (rate > 0)
				b += 2 * (lat + (in->size_B != NULL ? in->size_B[k] : (double)m->bytes) / rate * 1e9);
		}
	}
	free(cap);
	return b;
}

int
replay_check_bound(struct pred_result *r, double run_ns, double bound_ns)
{
	if (!(run_ns > bound_ns))
		return 0;
	return pred_na(r, "its result, %.1f s, is above all its delays added one after another (%.1f s): "
		       "the replay went wrong", run_ns / 1e9, bound_ns / 1e9);
}

int
replay_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	struct replay_trace t;
	struct replay_out out = { 0 };
	double *D, *f, *sf, *wk, *w, *ag, *o, *nlat, *nbw, *nburst, *size, bound;
	double T = (double)prof_dedicated_ns(p);
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
	sf = xcalloc((size_t)p->nranks + 1, sizeof *sf);	/* the scenario's stretch, before */
	wk = xcalloc((size_t)p->nranks, sizeof *wk);
	w = xcalloc((size_t)p->nranks + 1, sizeof *w);
	ag = xcalloc((size_t)p->nranks + 1, sizeof *ag);
	o = xcalloc((size_t)p->nranks + 1, sizeof *o);
	{
		struct coloc_rank *cl = xcalloc((size_t)p->nranks + 1, sizeof *cl);
		bool alone = pred_scen_changes(s) & SCOPE_OBSERVER;	/* the program alone */

		coloc_read(p, cl);
		busy_shares(p, cl, s->observer_ns_per_pkt, w, ag, o);
		for (int i = 0; i < p->nranks; i++) {
			f[i] = stretch(s, &p->ranks[i], &curves, &cl[i]);
			wk[i] = wake(p, s, &p->ranks[i]);
			sf[i] = f[i];
			any |= f[i] != 1;
			/* the wait of others in its phases is not stretched, and the capture's work
			 * and the agent's wait are not the program's: the bare run a scenario is
			 * about has neither, on a loaded node or not (docs/predict.md, "Collect's
			 * capture is taken out") */
			f[i] = f[i] * (1 - w[i] - o[i]) + w[i] - ag[i];
			any |= alone && (o[i] > 0 || ag[i] > 0);
		}
		free(cl);
	}
	if (!any && s->nlinks == 0) {
		free(f);
		free(sf);
		free(wk);
		free(w);
		free(o);
		free(ag);
		return pred_na(r, "the scenario changes nothing the replay sees (CPU-bound competitors, "
			       "load average, CPU capacity, link latency or bandwidth), and what collect "
			       "cost this run is not known (--observer-cost, no packets, no agent's CPU time "
			       "taken from the ranks)");
	}

	if ((rc = replay_fits(p, e)) < 0) {
		free(f);
		free(sf);
		free(wk);
		free(w);
		free(ag);
		free(o);
		return rc;
	}
	/* each message's changed link, NAN on an unchanged one; without links none (NULL: the
	 * replay takes every link as unchanged) */
	nlat = nbw = nburst = size = NULL;
	if (s->nlinks > 0) {
		nlat = xmallocarray((size_t)p->nmsgs + 1, sizeof *nlat);
		nbw = xmallocarray((size_t)p->nmsgs + 1, sizeof *nbw);
		nburst = xcalloc((size_t)p->nmsgs + 1, sizeof *nburst);
		size = xmallocarray((size_t)p->nmsgs + 1, sizeof *size);
	}
	for (long k = 0; nbw != NULL && k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct prof_rank *a = m->src >= 0 ? prof_rank(p, m->src) : NULL;
		const struct prof_rank *b = m->dst >= 0 ? prof_rank(p, m->dst) : NULL;
		const struct scen_link *sl = a != NULL && b != NULL && strcmp(a->host, b->host) != 0 ?
					     scen_link_for(s, a->host, b->host) : NULL;

		nlat[k] = nbw[k] = NAN;
		if (sl != NULL && p003_link_new(sl, (double)p->lat_ns, p->bw_Bps, &nlat[k], &nbw[k]) != 0)
			nlat[k] = nbw[k] = NAN;
		if (sl != NULL && sl->burst_bytes > 0)
			nburst[k] = (double)sl->burst_bytes;
		/* on a changed link a message moves its frames: its MPI's headers and every TCP
		 * segment's (QR's 76000 messages of 1 kB on 2x1: 89.79 MB through the cap by tbf's
		 * count for 78.48 MB of payload; docs/predict.md, "The headers on the wire") */
		size[k] = sl != NULL ? scen_link_wire_bytes(sl, (double)m->bytes + m->hdr) : (double)m->bytes;
	}
	D = xcalloc((size_t)p->nranks + 1, sizeof *D);
	replay_trace_init(&t, p, REPLAY_DEDICATED);
	out.late_ns = D;
	{
		struct replay_in in = { .busy_f = f, .wake_ns = wk, .lat_ns = nlat, .bw_Bps = nbw, .burst_B = nburst,
					.size_B = size };

		rc = replay_run(&t, &in, &out, e);
		bound = rc == 0 ? replay_bound_ns(&t, &in) : INFINITY;
	}
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *rk = &p->ranks[i];

		if (sf[i] != 1 || fabs(D[i]) >= 1e6) {
			char name[160], others[160] = "", capt[128] = "";

			snprintf(name, sizeof name, "rank %d (%s)", rk->rank, rk->host);
			/* shares under 0.05 % are not worth a word */
			if (sf[i] != 1 && w[i] - ag[i] >= 5e-4)
				snprintf(others, sizeof others, " (its busy time's %.1f %% of others' wait "
					 "not stretched)", 100 * (w[i] - ag[i]));
			if (o[i] >= 5e-4 && ag[i] >= 5e-4)
				snprintf(capt, sizeof capt, "; %.1f %% of its busy time collect's capture and "
					 "%.1f %% its agent, taken out", 100 * o[i], 100 * ag[i]);
			else if (o[i] >= 5e-4)
				snprintf(capt, sizeof capt, "; %.1f %% of its busy time collect's capture, taken "
					 "out", 100 * o[i]);
			else if (ag[i] >= 5e-4)
				snprintf(capt, sizeof capt, "; %.1f %% of its busy time collect's agent, taken "
					 "out", 100 * ag[i]);
			pred_add(r, "node", name, D[i], f[i], "trace replay",
				 "CPU stretch x%.3g%s%s; wake-up %.2f ms per receive it waited for; %.3f s "
				 "late at its end", sf[i], others, capt, wk[i] / 1e6, D[i] / 1e9);
		}
	}
	r->predicted_ns = out.run_ns;
	if (rc == 0)
		rc = replay_check_bound(r, out.run_ns, bound);
	snprintf(r->note, sizeof r->note,
		 "%ld events replayed, %ld messages on changed links (max-min fair, in time order); run = "
		 "slowest rank (%d); receives wait for their messages, busy time stretched on loaded nodes, "
		 "%ld waited-for receives on them wait for the CPU",
		 t.nev, out.nchanged, out.worst >= 0 ? p->ranks[out.worst].rank : -1, out.nwoke);
	replay_trace_free(&t);
	free(D);
	free(f);
	free(sf);
	free(wk);
	free(w);
	free(ag);
	free(o);
	free(nlat);
	free(nbw);
	free(nburst);
	free(size);
	return rc;
}
void
replay_busy_split(const struct replay_trace *t, double *busy_ns)
{
	const struct prof *p = t->p;
	double *prev = xcalloc((size_t)p->nranks + 1, sizeof *prev);

	for (long k = 0; k < (long)p->nranks * REPLAY_SPLIT_N; k++)
		busy_ns[k] = 0;
	for (long x = 0; x < t->nev; x++) {
		const struct replay_ev *v = &t->ev[x];
		double seg = v->busy_ns - prev[v->rank];
		int c = !v->recv ? REPLAY_SPLIT_SEND : v->answer ? REPLAY_SPLIT_ANSWER
			: t->wait_ns[v->msg] > 0 || v->woke ? REPLAY_SPLIT_WAITED : REPLAY_SPLIT_BUSY;

		busy_ns[(long)v->rank * REPLAY_SPLIT_N + c] += seg;
		prev[v->rank] = v->busy_ns;
	}
	free(prev);
}

void
replay_send_spans(const struct replay_trace *t, int64_t *from_ns, double *gap_ns, double *busy_ns)
{
	const struct prof *p = t->p;
	int64_t *prev = xmallocarray((size_t)p->nranks + 1, sizeof *prev);
	double *prev_busy = xcalloc((size_t)p->nranks + 1, sizeof *prev_busy);

	for (int i = 0; i < p->nranks; i++)
		prev[i] = INT64_MIN;
	for (long k = 0; k < p->nmsgs; k++) {
		from_ns[k] = INT64_MIN;
		gap_ns[k] = busy_ns[k] = 0;
	}
	for (long x = 0; x < t->nev; x++) {
		const struct replay_ev *v = &t->ev[x];

		if (!v->recv) {
			from_ns[v->msg] = prev[v->rank];
			gap_ns[v->msg] = t->gap_ns != NULL ? t->gap_ns[x] : 0;
			busy_ns[v->msg] = v->busy_ns - prev_busy[v->rank];
		}
		prev[v->rank] = ev_t(t, v);
		prev_busy[v->rank] = v->busy_ns;
	}
	free(prev);
	free(prev_busy);
}

/* ---- the rendezvous race ---- */

#define RACE_MAX_LINKS 64	/* changed links summed apart */

double
replay_race_ns(const struct prof *p, const struct scen *s)
{
	struct race_link {
		const struct scen_link *l;
		double sum;
	} acc[RACE_MAX_LINKS];
	const struct scen_link **sl;
	double *t_ns, best = 0;
	long *idx, n = 0;
	bool *paired;
	int nacc = 0;

	if (s->nlinks == 0 || p->nmsgs == 0)
		return 0;
	/* by message: its changed link and its time there; idx the rendezvous ones */
	idx = xmallocarray((size_t)p->nmsgs, sizeof *idx);
	t_ns = xmallocarray((size_t)p->nmsgs, sizeof *t_ns);
	sl = xcalloc((size_t)p->nmsgs, sizeof *sl);
	paired = xcalloc((size_t)p->nmsgs, sizeof *paired);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		const struct prof_rank *a, *b;
		const struct scen_link *l;
		double nlat, nbw, wire;

		if (!rndv_request(m) || m->src < 0 || m->dst < 0)
			continue;
		a = prof_rank(p, m->src);
		b = prof_rank(p, m->dst);
		if (a == NULL || b == NULL || strcmp(a->host, b->host) == 0 ||
		    (l = scen_link_for(s, a->host, b->host)) == NULL ||
		    p003_link_new(l, (double)p->lat_ns, p->bw_Bps, &nlat, &nbw) != 0 || !(nbw > 0))
			continue;
		wire = scen_link_wire_bytes(l, (double)m->bytes + m->hdr);
		sl[k] = l;
		t_ns[k] = fmax(0, wire - (l->burst_bytes > 0 ? (double)l->burst_bytes : 0)) / nbw * 1e9;
		idx[n++] = k;
	}
	qsort_r(idx, (size_t)n, sizeof *idx, t_cmp, p->msgs);
	for (long i = 0; i < n; i++) {
		long kx = idx[i], j = crossing(p, idx, i, paired), ky;
		int c;

		if (j < 0)	/* none the other way still in flight when it began */
			continue;
		ky = idx[j];
		paired[kx] = paired[ky] = true;
		for (c = 0; c < nacc && acc[c].l != sl[kx]; c++)
			;
		if (c == nacc && nacc < RACE_MAX_LINKS)
			acc[nacc++] = (struct race_link){ sl[kx], 0 };
		if (c < nacc)
			acc[c].sum += fmin(t_ns[kx], t_ns[ky]);
	}
	for (int c = 0; c < nacc; c++)
		best = fmax(best, acc[c].sum);
	free(paired);
	free(idx);
	free(t_ns);
	free(sl);
	return best;
}
