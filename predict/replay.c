/* replay: a run's own message trace replayed under a scenario (see replay.h). */
#include "predict/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/p000.h"
#include "predict/fluid.h"
#include "predict/p003.h"

#define REPLAY_MAX_PASSES 8		/* replays: FIFO, then fair sharing until settled */
#define REPLAY_SETTLED_NS 100000.0	/* departures that move less have settled */
/* Two ranks exchange when their messages to each other go in pairs, the second leaving
 * within REPLAY_XCHG_NS of the first's arrival, and either rank is the first of a pair at
 * least REPLAY_XCHG_SHARE of the time (a request and its reply always start on one side). */
#define REPLAY_XCHG_NS 10000000LL
#define REPLAY_XCHG_SHARE 0.25

/* One rank's busy phases, sorted, with the busy time before each. */
struct replay_busy {
	long n;
	const struct prof_busy **ph;	/* into prof->busy */
	double *before_ns;		/* busy time of the phases before ph[i] */
	int64_t *start_ns;		/* ph[i]->t_start_ns, side by side for the searches */
};

/* One rank's send times, sorted. */
struct sends {
	long n;
	int64_t *t_ns;
};

/* The index of the rank's first send at or after t (sd->n when none). */
static long
send_index(const struct sends *sd, int64_t t)
{
	long lo = 0, hi = sd->n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (sd->t_ns[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The rank's first send at or after t, or INT64_MAX. */
static int64_t
next_send(const struct sends *sd, int64_t t)
{
	long i = send_index(sd, t);

	return i < sd->n ? sd->t_ns[i] : INT64_MAX;
}

/* One send or receive. Everything that depends only on the trace is worked out once here
 * (replay_trace_init), so that a replay is one pass without searches. */
struct replay_ev {
	int64_t t_ns;		/* the trace's time: departure, or when the receive was needed */
	double busy_ns;		/* the rank's busy time before t_ns (busy_before) */
	double wait_ns;		/* recv: W, the idle time the rank spent waiting just before
				 * (REPLAY_DEDICATED) or every idle stretch since its previous
				 * event (REPLAY_MEASURED); 0 on a send */
	double gap_ns;		/* REPLAY_MEASURED: idle time since the rank's previous event that
				 * is not W (the rank getting to this event), scaled by gap_f; 0 */
	long msg;		/* index into prof->msgs */
	int rank;		/* index into prof->ranks */
	unsigned char recv;	/* 0 send, 1 receive (sends first at equal times) */
	unsigned char answer;	/* REPLAY_MEASURED recv: came in a busy phase between two sends of
				 * the rank within REPLAY_GRAIN_NS of it: it was waited for */
	unsigned char woke;	/* recv: the message found the rank waiting for it (needed on
				 * arrival): where a negative wake_ns applies */
};

/* An event's place in the sort: its index (a send's is its message's, a receive's nmsgs
 * more) in the high bits, so that places order as indices do, then its rank and its
 * answer (1) and woke (2) bits, so that the events are made from the keys alone. */
#define EV_PLACE_SHIFT 32
#define EV_RANK_MASK ((INT64_C(1) << 30) - 1)
_Static_assert(2 * PROF_MAX_MSGS < (INT64_C(1) << 31) && PROF_MAX_RANKS <= EV_RANK_MASK, "event places fit");

static int64_t
ev_place(long j, int rank, int flags)
{
	return (int64_t)((uint64_t)j << EV_PLACE_SHIFT | (uint64_t)rank << 2 | (uint64_t)flags);
}

/* A time and an index, ordered by both (tkey_sort). */
struct tkey {
	int64_t t_ns;
	int64_t j;
};

static inline bool
tkey_lt(const struct tkey *a, const struct tkey *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->j < b->j);
}

static void
tkey_swap(struct tkey **a, struct tkey **b)
{
	struct tkey *x = *a;

	*a = *b;
	*b = x;
}

#define TKEY_DIGIT_BITS 11	/* the radix sort's digit: 2048 counters, in the L1 cache */

/* Sort k[0..n), which comes in index order, by time with a stable radix sort on the time
 * since the earliest, span_ns at most, one digit a pass: linear, whatever the order. */
static void
tkey_radix(struct tkey *k, long n, int64_t lo_ns, uint64_t span_ns)
{
	struct tkey *src = k, *dst, *tmp = xmallocarray((size_t)n + 1, sizeof *tmp);
	long *cnt = xmallocarray((size_t)1 << TKEY_DIGIT_BITS, sizeof *cnt);
	uint64_t mask = ((uint64_t)1 << TKEY_DIGIT_BITS) - 1;

	dst = tmp;
	for (int sh = 0; sh < 64 && (span_ns >> sh) != 0; sh += TKEY_DIGIT_BITS) {
		long sum = 0;

		memset(cnt, 0, ((size_t)1 << TKEY_DIGIT_BITS) * sizeof *cnt);
		for (long i = 0; i < n; i++)
			cnt[(((uint64_t)src[i].t_ns - (uint64_t)lo_ns) >> sh) & mask]++;
		for (uint64_t d = 0; d <= mask; d++) {
			long c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (long i = 0; i < n; i++)
			dst[cnt[(((uint64_t)src[i].t_ns - (uint64_t)lo_ns) >> sh) & mask]++] = src[i];
		tkey_swap(&src, &dst);
	}
	if (src != k)
		memcpy(k, src, (size_t)n * sizeof *k);
	free(tmp);
	free(cnt);
}

/* Sort k[0..n) by time, then index. A bottom-up merge of the runs already in order, so an
 * array made of a few sorted stretches (messages.tsv, a trace's sends) costs a few passes;
 * when there are so many runs that the merge would take more passes than a radix sort on
 * the times, and k is in index order (by_index), the radix sort: linear either way. */
static void
tkey_sort(struct tkey *k, long n, bool by_index)
{
	long *run, nrun = 1;	/* run starts, then n */
	struct tkey *src = k, *dst, *tmp;
	int64_t lo = n > 0 ? k[0].t_ns : 0, hi = lo;

	for (long i = 1; i < n; i++) {
		nrun += tkey_lt(&k[i], &k[i - 1]);
		lo = k[i].t_ns < lo ? k[i].t_ns : lo;
		hi = k[i].t_ns > hi ? k[i].t_ns : hi;
	}
	if (nrun <= 1)
		return;
	if (by_index) {
		uint64_t span = (uint64_t)hi - (uint64_t)lo;
		int digits = 0, merges = 0;

		for (int sh = 0; sh < 64 && (span >> sh) != 0; sh += TKEY_DIGIT_BITS)
			digits++;
		for (long r = 1; r < nrun; r *= 2)
			merges++;
		if (digits < merges) {
			tkey_radix(k, n, lo, span);
			return;
		}
	}
	run = xmallocarray((size_t)nrun + 1, sizeof *run);
	nrun = 0;
	run[nrun++] = 0;
	for (long i = 1; i < n; i++)
		if (tkey_lt(&k[i], &k[i - 1]))
			run[nrun++] = i;
	run[nrun] = n;
	tmp = dst = xmallocarray((size_t)n, sizeof *tmp);
	while (nrun > 1) {
		long m = 0, r;

		for (r = 0; r + 1 < nrun; r += 2) {
			long a = run[r], am = run[r + 1], b = run[r + 1], bm = run[r + 2], o = run[r];

			while (a < am && b < bm)
				dst[o++] = tkey_lt(&src[b], &src[a]) ? src[b++] : src[a++];
			while (a < am)
				dst[o++] = src[a++];
			while (b < bm)
				dst[o++] = src[b++];
			run[m++] = run[r];
		}
		if (r < nrun) {
			memcpy(dst + run[r], src + run[r], (size_t)(run[r + 1] - run[r]) * sizeof *dst);
			run[m++] = run[r];
		}
		run[m] = n;
		nrun = m;
		tkey_swap(&src, &dst);
	}
	if (src != k)
		memcpy(k, src, (size_t)n * sizeof *k);
	free(tmp);
	free(run);
}

static int
cmp_busy(const void *a, const void *b)
{
	const struct prof_busy *x = *(const struct prof_busy *const *)a, *y = *(const struct prof_busy *const *)b;

	return (x->t_start_ns > y->t_start_ns) - (x->t_start_ns < y->t_start_ns);
}

/* The index of the last phase starting at or before t, or -1. */
static long
phase_at(const struct replay_busy *b, int64_t t)
{
	long lo = 0, hi = b->n - 1, at = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (b->start_ns[mid] <= t) {
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

	if (i + 1 < b->n && b->start_ns[i + 1] <= t)
		i++;	/* the next one, if t is past its start */
	if (i < -1 || i >= b->n || (i >= 0 && b->start_ns[i] > t) || (i + 1 < b->n && b->start_ns[i + 1] <= t))
		i = phase_at(b, t);
	return *hint = i;
}

/* Busy time before t. */
static double
busy_before(const struct replay_busy *b, int64_t t)
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
in_busy(const struct replay_busy *b, int64_t t)
{
	long i = phase_at(b, t);

	return i < 0 || t >= b->ph[i]->t_end_ns ? NULL : b->ph[i];
}

/* The end of the last busy phase ending at or before t, or INT64_MIN. */
static int64_t
busy_end_before(const struct replay_busy *b, int64_t t)
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
stretch(const struct scen *s, const struct prof_rank *rk, const struct p000_delay *d,
	const struct coloc_rank *cl)
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
	} else {
		f = p000_node_sd(n, d, &extrap);
	}
	return coloc_stretch(f, n->capacity, cl);	/* shared with the node's other ranks */
}

/* A number from the key/value meta file path (format "meta"), or dflt when the file, the
 * key or the number is missing. */
static double
meta_num(const char *path, const char *key, double dflt)
{
	char v[64], *end;
	struct err e;
	double x;

	if (tsv_kv_lookup(path, "meta", key, v, sizeof v, &e) != 1)
		return dflt;
	x = strtod(v, &end);
	return end != v && *end == '\0' && x > 0 && isfinite(x) ? x : dflt;
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
	slice = meta_num(path, "sched_slice_ns", REPLAY_SLICE_NS);
	free(path);
	if (isnan(cap)) {
		path = xasprintf("%s/meta/rank-%d.tsv", p->run, rk->rank);
		cap = meta_num(path, "cpu_capacity", 1);
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

/* What one pass over the events reads and writes. */
struct pass {
	const struct prof *p;
	const struct replay_busy *bl;
	const struct replay_ev *ev;
	long nev;
	const double *f;		/* per rank: CPU stretch */
	const double *wk;		/* per rank: wake-up delay of a receive it waited for */
	const double *g;		/* per rank: factor on its gaps (replay_ev gap_ns) */
	const double *dt;		/* per message: change of its time on an unchanged link */
	const int *host;		/* per rank: host index */
	int nhosts;
	const double *nlat, *nbw;	/* per message: the changed link's latency and bandwidth,
					 * NAN on an unchanged link */
	double *D;			/* per rank: how late it is */
	double *busy_prev;		/* per rank: busy time before its last event */
	double *dmsg;			/* per message: how late it arrives */
	double *egress, *ingress;	/* per host: the FIFO queues (the first pass) */
	long nwoke;			/* receives given the wake-up delay (last pass) */
	const double *nburst;		/* per message: the changed link's token bucket, bytes (0
					 * none) */
	double peak_Bps;		/* what a bucket with tokens passes: the run's bandwidth */
	double *tok, *tok_t;		/* per host side (2h sending, 2h + 1 receiving): tokens in
					 * its bucket and when they were counted (the first pass) */
};

/* A transfer of bytes through a FIFO queue from start_ns at rate_Bps, across a host's
 * sending side and its peer's receiving side whose buckets (of burst_bytes, filled at
 * rate_Bps) hold ta and tb tokens counted at ta_t and tb_t: what the buckets hold goes at
 * peak_Bps. Returns when its last byte has gone and takes the tokens it used. */
static double
fifo_transfer(double start_ns, double bytes, double rate_Bps, double burst_bytes, double peak_Bps, double *ta,
	      double *ta_t, double *tb, double *tb_t)
{
	double fast;	/* bytes the buckets let through at the peak */

	if (burst_bytes <= 0 || !(peak_Bps > rate_Bps))
		return start_ns + bytes / rate_Bps * 1e9;
	*ta = fmin(burst_bytes, *ta + fmax(0, start_ns - *ta_t) * rate_Bps / 1e9);
	*tb = fmin(burst_bytes, *tb + fmax(0, start_ns - *tb_t) * rate_Bps / 1e9);
	fast = fmin(bytes, fmin(*ta, *tb));
	*ta -= fast;
	*tb -= fast;
	*ta_t = *tb_t = start_ns;
	return start_ns + (fast / peak_Bps + (bytes - fast) / rate_Bps) * 1e9;
}

/* Replay the events once. A send on a changed link leaves at dep = its time + D; dep_out
 * (per message) records it. Without done_in (the first pass) it queues behind the changed-
 * link transfers of its host's direction (FIFO); with done_in (the max-min fair finishing
 * times of the previous pass's departures dep_in) it finishes at done_in moved by how much
 * later it leaves now. Returns the messages on changed links. */
static long
run_pass(struct pass *c, const double *done_in, const double *dep_in, double *dep_out)
{
	const struct prof *p = c->p;
	long nchanged = 0;

	for (int i = 0; i < p->nranks; i++) {
		c->D[i] = 0;
		c->busy_prev[i] = 0;
	}
	for (int h = 0; h < c->nhosts; h++)
		c->egress[h] = c->ingress[h] = -INFINITY;
	for (int r = 0; r < 2 * c->nhosts; r++) {
		c->tok[r] = INFINITY;	/* full: fifo_transfer caps it at the bucket */
		c->tok_t[r] = -INFINITY;
	}
	c->nwoke = 0;
	for (long j = 0; j < c->nev; j++) {
		const struct replay_ev *x = &c->ev[j];
		const struct prof_msg *m = &p->msgs[x->msg];
		int i = x->rank;

		/* the rank's busy time since its last event, stretched */
		c->D[i] += (x->busy_ns - c->busy_prev[i]) * (c->f[i] - 1);
		c->busy_prev[i] = x->busy_ns;
		if (x->gap_ns > 0)	/* the rank getting to this event, at its pace */
			c->D[i] += x->gap_ns * (c->g[i] - 1);
		if (!x->recv) {
			int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;

			if (!isnan(c->nbw[x->msg])) {
				int ha = c->host[i], hb = c->host[prof_rank(p, m->dst) - p->ranks];
				double dep = (double)m->t_ns + c->D[i], done;

				dep_out[x->msg] = dep;
				if (done_in == NULL) {
					double start = fmax(dep, fmax(c->egress[ha], c->ingress[hb]));

					done = fifo_transfer(start, (double)m->bytes, c->nbw[x->msg], c->nburst[x->msg],
							     c->peak_Bps, &c->tok[2 * ha], &c->tok_t[2 * ha],
							     &c->tok[2 * hb + 1], &c->tok_t[2 * hb + 1]);
					c->egress[ha] = c->ingress[hb] = done;
				} else {
					done = done_in[x->msg] + (dep - dep_in[x->msg]);
				}
				c->dmsg[x->msg] = done + c->nlat[x->msg] - (double)arr;
				nchanged++;
			} else {
				c->dmsg[x->msg] = c->D[i] + c->dt[x->msg];
			}
		} else {
			int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;
			double S = (double)(x->t_ns - arr);	/* the message waited for the rank */
			double W = x->wait_ns;			/* the rank waited for the message */

			/* a rank that waited for the message, and still does in the replay, gets
			 * the CPU back only when its competitors' slices are done */
			if (W > 0 && c->wk[i] > 0 && c->dmsg[x->msg] - S >= c->D[i] - W) {
				c->D[i] = c->dmsg[x->msg] - S + c->wk[i];
				c->nwoke++;
			} else {
				c->D[i] = fmax(c->D[i] - W, c->dmsg[x->msg] - S);
			}
			/* the wake-up the measured run had, taken out: the rank goes on as soon as
			 * both it and the message are there */
			if (W > 0 && c->wk[i] < 0 && x->woke) {
				c->D[i] += c->wk[i];
				c->nwoke++;
			}
		}
	}
	for (int i = 0; i < p->nranks; i++)
		c->D[i] += (busy_before(&c->bl[i], INT64_MAX) - c->busy_prev[i]) * (c->f[i] - 1);
	return nchanged;
}

/* The changed-link messages as flows: from the departures dep, each across its sending
 * host's and its receiving host's side, of capacity the slowest changed link on it and of
 * the smallest bucket of those links (none when one has none). Fills done (per message). */
static int
fair_share(const struct pass *c, const double *dep, double *done, struct err *e)
{
	const struct prof *p = c->p;
	struct fluid_flow *fl = xmallocarray((size_t)p->nmsgs + 1, sizeof *fl);
	long *idx = xmallocarray((size_t)p->nmsgs + 1, sizeof *idx), n = 0;
	double *cap = xmallocarray(2 * (size_t)c->nhosts + 1, sizeof *cap);
	struct fluid_bucket *bk = xmallocarray(2 * (size_t)c->nhosts + 1, sizeof *bk);
	int rc;

	for (int r = 0; r < 2 * c->nhosts; r++) {
		cap[r] = INFINITY;
		bk[r] = (struct fluid_bucket){ INFINITY, c->peak_Bps };
	}
	for (long j = 0; j < c->nev; j++) {
		const struct replay_ev *x = &c->ev[j];
		const struct prof_msg *m = &p->msgs[x->msg];
		int ha, hb;

		if (x->recv || isnan(c->nbw[x->msg]))
			continue;
		ha = c->host[x->rank];
		hb = c->host[prof_rank(p, m->dst) - p->ranks];
		fl[n] = (struct fluid_flow){ dep[x->msg], (double)m->bytes, { 2 * ha, 2 * hb + 1 }, 0 };
		cap[2 * ha] = fmin(cap[2 * ha], c->nbw[x->msg]);
		cap[2 * hb + 1] = fmin(cap[2 * hb + 1], c->nbw[x->msg]);
		bk[2 * ha].burst_bytes = fmin(bk[2 * ha].burst_bytes, c->nburst[x->msg]);
		bk[2 * hb + 1].burst_bytes = fmin(bk[2 * hb + 1].burst_bytes, c->nburst[x->msg]);
		idx[n++] = x->msg;
	}
	for (int r = 0; r < 2 * c->nhosts; r++) {
		if (!isfinite(cap[r]))
			cap[r] = 1;	/* carries no flow */
		if (!isfinite(bk[r].burst_bytes) || !(bk[r].peak_Bps > cap[r]))
			bk[r].burst_bytes = 0;
	}
	rc = fluid_run_bucket(fl, n, cap, bk, 2 * c->nhosts, e);
	for (long k = 0; rc == 0 && k < n; k++)
		done[idx[k]] = fl[k].done_ns;
	free(fl);
	free(idx);
	free(cap);
	free(bk);
	return rc;
}

/* W for a REPLAY_MEASURED receive needed at t by a rank whose previous event was at from:
 * every idle stretch since then, or 0 when it was busy with earlier work at t. Between two
 * events a rank has nothing else to wait for: the busy stretches in between are work that
 * comes before the message whatever its arrival, the idle ones could all have gone. Demand
 * phases break a long wait into pieces (a polling loop's rare user tick reads as a busy
 * interval), and only the last piece would let a faster sender's gain through. */
static double
idle_before(const struct replay_busy *b, int64_t t, int64_t from)
{
	long i = phase_at(b, t);
	const struct prof_busy *ph = i >= 0 && t < b->ph[i]->t_end_ns ? b->ph[i] : NULL;
	int64_t at = t, idle_from = from;
	double idle;

	if (ph != NULL) {
		if (ph->t_start_ns < t - REPLAY_GRAIN_NS)
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

/* W for a REPLAY_DEDICATED receive needed at t by a rank whose previous event was at from
 * (INT64_MIN: none): idle (or just starting the work the message brought) when it was
 * needed, the rank had waited since its last event or its last busy phase; else 0. */
static double
dedicated_wait(const struct replay_busy *b, int64_t t, int64_t from)
{
	const struct prof_busy *ph = in_busy(b, t);
	double W = 0;

	if (ph == NULL || ph->t_start_ns >= t - REPLAY_GRAIN_NS) {
		int64_t idle_from = busy_end_before(b, ph != NULL ? ph->t_start_ns : t);

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
	int64_t *prev;		/* its last event's time, INT64_MIN */
	double *prev_busy;	/* the busy time before it */
	long *cur;		/* its last busy phase started by then, -1 */
};

static void
waits_init(struct waits *w, int nranks)
{
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

/* Event v's busy time before it, a receive's W and (REPLAY_MEASURED) the event's gap, from
 * the rank's previous event: all the trace fixes, worked out once for every replay. Called
 * for the events in order: a rank's come in time order, so its busy phases are walked with
 * a cursor. */
static void
trace_wait(const struct replay_trace *t, struct waits *w, struct replay_ev *v)
{
	const struct replay_busy *b = &t->bl[v->rank];
	int64_t from = w->prev[v->rank];
	long *c = &w->cur[v->rank];
	double busy = 0;

	while (*c + 1 < b->n && b->start_ns[*c + 1] <= v->t_ns)
		(*c)++;
	if (*c >= 0) {	/* busy_before(b, v->t_ns) */
		const struct prof_busy *x = b->ph[*c];

		busy = b->before_ns[*c] + (double)((v->t_ns < x->t_end_ns ? v->t_ns : x->t_end_ns) - x->t_start_ns);
	}
	v->busy_ns = busy;
	v->wait_ns = 0;
	if (t->kind == REPLAY_MEASURED) {
		if (v->recv && v->answer && from != INT64_MIN)
			v->wait_ns = (double)(v->t_ns - from);
		else if (v->recv)
			v->wait_ns = idle_before(b, v->t_ns, from);
		if (from != INT64_MIN)
			v->gap_ns = fmax((double)(v->t_ns - from) - (busy - w->prev_busy[v->rank]) - v->wait_ns, 0);
	} else if (v->recv) {
		v->wait_ns = dedicated_wait(b, v->t_ns, from);
	}
	w->prev[v->rank] = v->t_ns;
	w->prev_busy[v->rank] = busy;
}

/* A message's arrival: its last packet. */
static int64_t
arrival(const struct prof_msg *m)
{
	return m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns;
}

/* A message between two ranks, keyed by the pair (lower rank first) and its departure. */
struct pmsg {
	int lo, hi;
	int64_t t_ns;
	long msg;
};

/* The messages of one rank pair, pm[0..n) in departure order, paired: each one takes the
 * oldest unpaired message of the other direction that arrived at most REPLAY_XCHG_NS before
 * it left (or is still on its way). When the pair exchanges (both ranks send first often
 * enough), a pair's second message did not wait for its first, which was sent without
 * waiting for it in turn: both sides had posted their sends, and the second left late only
 * because its rank got to it late (a transpose's sends one after another, a CPU quota). Its
 * rank's receive of the first is then needed only once it has sent the second: later[]
 * (per message) gets the second's departure. */
static void
exchange_pairs(const struct prof *p, const struct pmsg *pm, long n, int64_t *later)
{
	long *open = xmallocarray((size_t)n + 1, sizeof *open), *pair = xmallocarray((size_t)n + 1, sizeof *pair);
	long head = 0, tail = 0, first[2] = { 0, 0 };	/* pairs that lo, hi sent first */

	/* open[head..tail): the unpaired messages, in departure order, all of one direction */
	for (long k = 0; k < n; k++) {
		const struct prof_msg *m = &p->msgs[pm[k].msg];

		pair[k] = -1;
		if (head < tail && p->msgs[pm[open[head]].msg].src == m->src) {
			open[tail++] = k;
			continue;
		}
		while (head < tail && arrival(&p->msgs[pm[open[head]].msg]) + REPLAY_XCHG_NS < m->t_ns)
			head++;
		if (head == tail) {
			head = tail = 0;
			open[tail++] = k;
			continue;
		}
		pair[k] = open[head++];
		if (m->t_ns >= arrival(&p->msgs[pm[pair[k]].msg]))
			first[p->msgs[pm[pair[k]].msg].src != pm[0].lo]++;
	}
	if (first[0] + first[1] > 0 &&
	    fmin(first[0], first[1]) >= REPLAY_XCHG_SHARE * (double)(first[0] + first[1])) {
		for (long k = 0; k < n; k++) {
			if (pair[k] >= 0 && pm[k].t_ns >= arrival(&p->msgs[pm[pair[k]].msg]))
				later[pm[pair[k]].msg] = pm[k].t_ns;
		}
	}
	free(open);
	free(pair);
}

/* later[k]: when message k's receiver sent its exchange partner, if it was sent after k
 * arrived (exchange_pairs), else INT64_MIN. The messages between two ranks (si, di: their
 * indices in p->ranks, -1 unknown) are taken in time order (ord: the messages by departure,
 * then index) and grouped by pair with two stable counting sorts, by the higher rank and
 * then by the lower (ranks are sorted, so indices order as ranks do). */
static void
exchanges(const struct prof *p, const long *ord, const int *si, const int *di, int64_t *later)
{
	struct pmsg *pm = xmallocarray((size_t)p->nmsgs + 1, sizeof *pm);
	struct pmsg *tmp = xmallocarray((size_t)p->nmsgs + 1, sizeof *tmp);
	long *cnt = xmallocarray((size_t)p->nranks + 1, sizeof *cnt);
	long n = 0;

	for (long k = 0; k < p->nmsgs; k++)
		later[k] = INT64_MIN;
	for (long o = 0; o < p->nmsgs; o++) {
		long k = ord[o];
		const struct prof_msg *m = &p->msgs[k];

		if (si[k] >= 0 && di[k] >= 0 && si[k] != di[k])
			tmp[n++] = (struct pmsg){ m->src < m->dst ? m->src : m->dst, m->src < m->dst ? m->dst : m->src,
						  m->t_ns, k };
	}
	for (int pass = 0; pass < 2; pass++) {	/* tmp by hi into pm, then pm by lo into tmp */
		const struct pmsg *from = pass == 0 ? tmp : pm;
		struct pmsg *to = pass == 0 ? pm : tmp;
		long sum = 0;

		memset(cnt, 0, ((size_t)p->nranks + 1) * sizeof *cnt);
		for (long a = 0; a < n; a++) {
			long k = from[a].msg;

			cnt[pass == 0 ? (si[k] > di[k] ? si[k] : di[k]) : (si[k] < di[k] ? si[k] : di[k])]++;
		}
		for (int r = 0; r < p->nranks; r++) {
			long c = cnt[r];

			cnt[r] = sum;
			sum += c;
		}
		for (long a = 0; a < n; a++) {
			long k = from[a].msg;

			to[cnt[pass == 0 ? (si[k] > di[k] ? si[k] : di[k]) : (si[k] < di[k] ? si[k] : di[k])]++] = from[a];
		}
	}
	for (long a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && tmp[b].lo == tmp[a].lo && tmp[b].hi == tmp[a].hi; b++)
			;
		exchange_pairs(p, tmp + a, b - a, later);
	}
	free(pm);
	free(tmp);
	free(cnt);
}

/* The busy phases of one rank in time order (the file's order, which is usually it). */
static void
busy_sort(struct replay_busy *b)
{
	for (long j = 1; j < b->n; j++) {
		if (b->ph[j]->t_start_ns < b->ph[j - 1]->t_start_ns) {
			qsort(b->ph, (size_t)b->n, sizeof *b->ph, cmp_busy);
			return;
		}
	}
}

void
replay_trace_init(struct replay_trace *t, const struct prof *p, enum replay_kind kind)
{
	struct replay_busy *bl;
	struct sends *sd;
	const char **hosts;
	int64_t *later;
	int *si, *di;		/* per message: its sender's and receiver's index in p->ranks, -1 */
	long *ord;		/* the messages by departure, then index */
	struct tkey *keys;	/* the messages' departures, then the events' times */
	long nev = 0, ns = 0;	/* events, sends */
	long *hint;		/* per rank: the busy phase its last receive came in or after */
	struct waits w;

	*t = (struct replay_trace){ .p = p, .kind = kind };
	si = xmallocarray((size_t)p->nmsgs + 1, sizeof *si);
	di = xmallocarray((size_t)p->nmsgs + 1, sizeof *di);
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_rank *a = p->msgs[k].src >= 0 ? prof_rank(p, p->msgs[k].src) : NULL;
		const struct prof_rank *b = p->msgs[k].dst >= 0 ? prof_rank(p, p->msgs[k].dst) : NULL;

		si[k] = a != NULL ? (int)(a - p->ranks) : -1;
		di[k] = b != NULL ? (int)(b - p->ranks) : -1;
	}
	keys = xmallocarray(2 * (size_t)p->nmsgs + 1, sizeof *keys);
	for (long k = 0; k < p->nmsgs; k++)
		keys[k] = (struct tkey){ p->msgs[k].t_ns, k };
	tkey_sort(keys, p->nmsgs, true);	/* few runs: messages.tsv is in time order */
	ord = xmallocarray((size_t)p->nmsgs + 1, sizeof *ord);
	for (long k = 0; k < p->nmsgs; k++)
		ord[k] = (long)keys[k].j;

	/* each rank's busy phases in time order, with the busy time before each */
	bl = t->bl = xcalloc((size_t)p->nranks + 1, sizeof *bl);
	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_rank *rk = prof_rank(p, p->busy[k].rank);

		if (rk != NULL)
			bl[rk - p->ranks].n++;
	}
	for (int i = 0; i < p->nranks; i++) {
		bl[i].ph = xcalloc((size_t)bl[i].n + 1, sizeof *bl[i].ph);
		bl[i].before_ns = xcalloc((size_t)bl[i].n + 1, sizeof *bl[i].before_ns);
		bl[i].start_ns = xcalloc((size_t)bl[i].n + 1, sizeof *bl[i].start_ns);
		bl[i].n = 0;
	}
	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_rank *rk = prof_rank(p, p->busy[k].rank);

		if (rk != NULL && p->busy[k].t_end_ns > p->busy[k].t_start_ns) {
			struct replay_busy *b = &bl[rk - p->ranks];

			b->ph[b->n++] = &p->busy[k];
		}
	}
	t->busy_ns = xcalloc((size_t)p->nranks + 1, sizeof *t->busy_ns);
	for (int i = 0; i < p->nranks; i++) {
		struct replay_busy *b = &bl[i];

		busy_sort(b);
		for (long j = 0; j < b->n; j++)
			b->start_ns[j] = b->ph[j]->t_start_ns;
		for (long j = 1; j < b->n; j++)
			b->before_ns[j] = b->before_ns[j - 1] +
					  (double)(b->ph[j - 1]->t_end_ns - b->ph[j - 1]->t_start_ns);
		t->busy_ns[i] = busy_before(b, INT64_MAX);
	}

	/* each rank's send times, in order since the messages are taken by departure */
	sd = xcalloc((size_t)p->nranks + 1, sizeof *sd);
	for (long k = 0; k < p->nmsgs; k++)
		if (si[k] >= 0)
			sd[si[k]].n++;
	for (int i = 0; i < p->nranks; i++) {
		sd[i].t_ns = xcalloc((size_t)sd[i].n + 1, sizeof *sd[i].t_ns);
		sd[i].n = 0;
	}
	for (long o = 0; o < p->nmsgs; o++) {
		long k = ord[o];

		if (si[k] >= 0)
			sd[si[k]].t_ns[sd[si[k]].n++] = p->msgs[k].t_ns;
	}

	/* the events: every message between two known ranks, sent and received, as keys
	 * (time, place) with the sends' places 0..nmsgs and the receives' nmsgs.. after them,
	 * each in message order: sorted, they give sends first at equal times, then the
	 * lower message */
	later = xmallocarray((size_t)p->nmsgs + 1, sizeof *later);
	if (kind == REPLAY_DEDICATED)	/* predict's reading only: docs/explain.md, "Exchanges" */
		exchanges(p, ord, si, di, later);
	else
		for (long k = 0; k < p->nmsgs; k++)
			later[k] = INT64_MIN;
	for (long k = 0; k < p->nmsgs; k++)
		ns += si[k] >= 0 && di[k] >= 0 && si[k] != di[k];
	hint = xmallocarray((size_t)p->nranks + 1, sizeof *hint);
	for (int i = 0; i < p->nranks; i++)
		hint[i] = -1;
	for (long k = 0; k < p->nmsgs; k++) {
		const struct prof_msg *m = &p->msgs[k];
		int b = di[k];
		int64_t arr = m->t_last_ns > m->t_ns ? m->t_last_ns : m->t_ns, need = arr;
		const struct prof_busy *ph;
		int answer = 0;

		if (si[k] < 0 || b < 0 || si[k] == b)
			continue;
		/* a message that came while its receiver was busy was needed when it stopped, or at
		 * its next send if that is sooner (what it sends may carry what it received);
		 * unless it came within the phases' grain of the phase's start: then the receiver
		 * was waiting for it, and the work it started is the message's */
		ph = NULL;
		{
			long i = phase_near(&bl[b], arr, &hint[b]);

			if (i >= 0 && arr < bl[b].ph[i]->t_end_ns)
				ph = bl[b].ph[i];	/* in_busy(&bl[b], arr) */
		}
		if (ph != NULL && kind == REPLAY_MEASURED) {
			const struct sends *r = &sd[b];
			long j = send_index(r, arr);

			/* between a send of the rank and its next, both closer than the samples
			 * see: it was waiting for this message (a ping-pong in a polling loop
			 * whose stray user tick made the interval busy) */
			answer = j > 0 && j < r->n && arr - r->t_ns[j - 1] < REPLAY_GRAIN_NS &&
				 r->t_ns[j] - arr < REPLAY_GRAIN_NS;
		}
		if (ph != NULL && !answer && arr - ph->t_start_ns >= REPLAY_GRAIN_NS) {
			int64_t nx = next_send(&sd[b], arr);

			need = nx < ph->t_end_ns ? nx : ph->t_end_ns;
		}
		/* the receiver sent its half of an exchange after this arrived: it did not wait
		 * for it to do so (sends go first at equal times) */
		if (later[k] > need)
			need = later[k];
		keys[nev] = (struct tkey){ m->t_ns, ev_place(k, si[k], 0) };
		keys[ns + nev++] = (struct tkey){ need, ev_place(p->nmsgs + k, b, answer | (need == arr) << 1) };
	}
	nev += ns;
	free(hint);
	free(later);	/* before the events are made: the peak of memory */
	free(ord);
	for (int i = 0; i < p->nranks; i++)
		free(sd[i].t_ns);
	free(sd);
	tkey_sort(keys, nev, true);
	t->ev = xmallocarray((size_t)nev + 1, sizeof *t->ev);
	waits_init(&w, p->nranks);
	for (long x = 0; x < nev; x++) {	/* from the keys alone: no lookup per message */
		long j = (long)(keys[x].j >> EV_PLACE_SHIFT), k = j < p->nmsgs ? j : j - p->nmsgs;
		int rank = (int)((keys[x].j >> 2) & EV_RANK_MASK), flags = (int)(keys[x].j & 3);

		t->ev[x] = (struct replay_ev){ .t_ns = keys[x].t_ns, .msg = k, .rank = rank, .recv = j >= p->nmsgs,
					       .answer = flags & 1, .woke = flags >> 1 };
	}
	for (long x = 0; x < nev; x++)
		trace_wait(t, &w, &t->ev[x]);
	waits_release(&w);
	t->nev = nev;
	free(keys);
	free(si);
	free(di);

	hosts = xcalloc((size_t)p->nranks + 1, sizeof *hosts);
	t->host = xcalloc((size_t)p->nranks + 1, sizeof *t->host);
	for (int i = 0; i < p->nranks; i++)
		t->host[i] = host_index(hosts, &t->nhosts, p->ranks[i].host);
	free(hosts);
}

void
replay_trace_free(struct replay_trace *t)
{
	if (t == NULL)
		return;
	for (int i = 0; t->bl != NULL && i < t->p->nranks; i++) {
		free(t->bl[i].ph);
		free(t->bl[i].before_ns);
		free(t->bl[i].start_ns);
	}
	free(t->bl);
	free(t->ev);
	free(t->host);
	free(t->busy_ns);
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
	double *own[7] = { NULL };	/* the defaults of what in leaves NULL */
	double *D, *dmsg, *egress, *ingress, *busy_prev, *dep, *dep2, *done, *tok, *tok_t, best = -INFINITY;
	const double *nbw;
	long nchanged;
	int rc = 0;

	if (in == NULL)
		in = &none;
	D = xcalloc(nr, sizeof *D);
	busy_prev = xcalloc(nr, sizeof *busy_prev);	/* busy time before the last event */
	dmsg = xcalloc(nm, sizeof *dmsg);
	egress = xcalloc((size_t)t->nhosts + 1, sizeof *egress);
	ingress = xcalloc((size_t)t->nhosts + 1, sizeof *ingress);
	dep = xcalloc(nm, sizeof *dep);
	dep2 = xcalloc(nm, sizeof *dep2);
	done = xcalloc(nm, sizeof *done);
	tok = xcalloc(2 * (size_t)t->nhosts + 1, sizeof *tok);
	tok_t = xcalloc(2 * (size_t)t->nhosts + 1, sizeof *tok_t);
	nbw = or_fill(in->bw_Bps, nm, NAN, &own[4]);
	{
		struct pass c = { p, t->bl, t->ev, t->nev, or_fill(in->busy_f, nr, 1, &own[0]),
				  or_fill(in->wake_ns, nr, 0, &own[1]), or_fill(in->gap_f, nr, 1, &own[2]),
				  or_fill(in->msg_dt_ns, nm, 0, &own[3]), t->host, t->nhosts,
				  or_fill(in->lat_ns, nm, NAN, &own[5]), nbw, D, busy_prev, dmsg,
				  egress, ingress, 0, or_fill(in->burst_B, nm, 0, &own[6]), p->bw_Bps, tok, tok_t };

		/* FIFO first, then max-min fair sharing of the departures it gave, until the
		 * departures settle (they move with what the sharing changes) */
		nchanged = run_pass(&c, NULL, NULL, dep);
		for (out->npass = 1; nchanged > 0 && out->npass < REPLAY_MAX_PASSES; out->npass++) {
			double moved = 0;

			if ((rc = fair_share(&c, dep, done, e)) < 0)
				break;
			run_pass(&c, done, dep, dep2);
			for (long k = 0; k < p->nmsgs; k++) {
				if (!isnan(nbw[k]))
					moved = fmax(moved, fabs(dep2[k] - dep[k]));
			}
			{
				double *tmp = dep;

				dep = dep2;
				dep2 = tmp;
			}
			if (moved < REPLAY_SETTLED_NS)
				break;
		}
		out->nwoke = c.nwoke;
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
	for (int k = 0; k < 7; k++)
		free(own[k]);
	free(tok);
	free(tok_t);
	free(D);
	free(busy_prev);
	free(dmsg);
	free(egress);
	free(ingress);
	free(dep);
	free(dep2);
	free(done);
	return rc;
}

int
replay_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	struct replay_trace t;
	struct replay_out out = { 0 };
	double *D, *f, *wk, *nlat, *nbw, *nburst;
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
	wk = xcalloc((size_t)p->nranks, sizeof *wk);
	{
		struct coloc_rank *cl = xcalloc((size_t)p->nranks + 1, sizeof *cl);

		coloc_read(p, cl);
		for (int i = 0; i < p->nranks; i++) {
			f[i] = stretch(s, &p->ranks[i], &curves, &cl[i]);
			wk[i] = wake(p, s, &p->ranks[i]);
			any |= f[i] != 1;
		}
		free(cl);
	}
	if (!any && s->nlinks == 0) {
		free(f);
		free(wk);
		return pred_na(r, "the scenario changes nothing the replay sees (CPU-bound competitors, "
			       "load average, CPU capacity, link latency or bandwidth)");
	}

	/* each message's changed link, NAN on an unchanged one */
	nlat = xmallocarray((size_t)p->nmsgs + 1, sizeof *nlat);
	nbw = xmallocarray((size_t)p->nmsgs + 1, sizeof *nbw);
	nburst = xcalloc((size_t)p->nmsgs + 1, sizeof *nburst);
	for (long k = 0; k < p->nmsgs; k++) {
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
	}
	D = xcalloc((size_t)p->nranks + 1, sizeof *D);
	replay_trace_init(&t, p, REPLAY_DEDICATED);
	out.late_ns = D;
	rc = replay_run(&t, &(struct replay_in){ .busy_f = f, .wake_ns = wk, .lat_ns = nlat, .bw_Bps = nbw,
						    .burst_B = nburst },
			&out, e);
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *rk = &p->ranks[i];

		if (f[i] != 1 || fabs(D[i]) >= 1e6) {
			char name[160];

			snprintf(name, sizeof name, "rank %d (%s)", rk->rank, rk->host);
			pred_add(r, "node", name, D[i], f[i], "trace replay",
				 "CPU stretch x%.3g; wake-up %.2f ms per receive it waited for; %.3f s "
				 "late at its end", f[i], wk[i] / 1e6, D[i] / 1e9);
		}
	}
	r->predicted_ns = out.run_ns;
	snprintf(r->note, sizeof r->note,
		 "%ld events replayed, %ld messages on changed links (max-min fair, %d replays); run = "
		 "slowest rank (%d); receives wait for their messages, busy time stretched on loaded nodes, "
		 "%ld waited-for receives on them wait for the CPU",
		 t.nev, out.nchanged, out.npass, out.worst >= 0 ? p->ranks[out.worst].rank : -1, out.nwoke);
	replay_trace_free(&t);
	free(D);
	free(f);
	free(wk);
	free(nlat);
	free(nbw);
	free(nburst);
	return rc;
}
