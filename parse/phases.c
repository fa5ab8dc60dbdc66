/* phases: one rank's CPU busy and idle phases, rebuilt from its sample file.
 *
 * One pass over the rows: a table of the threads seen (their last counters and the
 * sample they were last seen in) gives each row's increase; a sample is closed when a
 * row with a later t_mono_ns arrives, and its interval extends or ends the open phase.
 * Nothing per interval is kept, so memory is the thread table and the phase list. */
#include "parse/phases.h"

#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gzio.h"
#include "lib/sortnum.h"
#include "lib/xalloc.h"

const char *const phases_cols[] = { "rank", "kind", "t_start_ns", "t_end_ns", "run_ns",
				    "wait_ns", NULL };

static const char *const required_cols[] = { "t_mono_ns", "t_real_ns", "pid", "tid", "run_ns",
					     "wait_ns", NULL };

/* One thread followed across samples. */
struct thread {
	int64_t pid, tid;	/* key; pid 0 marks a free slot */
	uint64_t run_ns, wait_ns;	/* counters at its last sample */
	uint64_t utime, stime;	/* tick counters at its last sample */
	uint64_t seen;		/* index of the sample it was last seen in */
};

/* Open-addressing table of threads, power-of-two size, at most half full. */
struct threads {
	struct thread *slot;
	size_t size;		/* slots */
	size_t used;		/* threads stored */
};

/* One interval waiting to be classified (its user share needs the intervals after it). */
struct ival {
	int64_t run_ns, wait_ns, dt_ns;
	int64_t t0_real_ns, t1_real_ns;
	int64_t du, ds;		/* utime and stime ticks */
	int in_wait;		/* inside the trace's waits: 0 less than half, 1 at least half,
				 * 2 wholly */
};

/* intervals held on each side of the one being classified */
#define HELD (PHASES_POLL_WINDOW > PHASES_USER_WINDOW ? PHASES_POLL_WINDOW : PHASES_USER_WINDOW)
#define RING (2 * HELD + 1)

/* The sample being read and the phase being built. */
struct state {
	double threshold;	/* busy when run >= threshold * interval */
	bool count_system;
	const struct phases_wait *waits;	/* the trace's waits, sorted */
	size_t nwaits, wait_i;	/* count; the first that may still overlap an interval */
	bool count_wait;	/* run + wait against the threshold */
	bool user_alone;	/* the interval's own ticks only */
	struct ival ring[RING];	/* the last intervals, oldest first from ring_head */
	size_t ring_head, ring_n;	/* first slot, intervals held */
	size_t ring_cls;	/* intervals held already classified */
	int64_t du, ds;		/* the current interval's tick increases so far */
	uint64_t k;		/* index of the current sample (valid when have_sample) */
	bool have_sample;
	int64_t mono_ns, real_ns;	/* the current sample's times */
	int64_t prev_mono_ns, prev_real_ns;	/* the previous sample's (when k > 0) */
	int64_t first_mono_ns;
	int64_t run_ns, wait_ns;	/* increases in the current interval so far */
	bool open;		/* a phase is being built */
	struct phase cur;	/* ... this one */
	int64_t cur_len_ns;	/* its length, CLOCK_MONOTONIC (realtime may step) */
	double busy_sum_ns, idle_sum_ns;
	size_t phases_cap;	/* allocated entries of out->phases */
};

static uint64_t
thread_hash(int64_t pid, int64_t tid)
{
	uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid * 0xc2b2ae3d27d4eb4full;

	return h ^ h >> 29;
}

/* The slot for (pid, tid): its thread, or the free slot where it would go. */
static struct thread *
thread_slot(struct threads *t, int64_t pid, int64_t tid)
{
	size_t mask = t->size - 1;
	size_t i = (size_t)thread_hash(pid, tid) & mask;

	while (t->slot[i].pid != 0 && (t->slot[i].pid != pid || t->slot[i].tid != tid))
		i = (i + 1) & mask;
	return &t->slot[i];
}

static void
threads_grow(struct threads *t)
{
	struct threads bigger;

	bigger.size = t->size ? t->size * 2 : 64;
	bigger.slot = xcalloc(bigger.size, sizeof *bigger.slot);
	bigger.used = t->used;
	for (size_t i = 0; i < t->size; i++)
		if (t->slot[i].pid != 0)
			*thread_slot(&bigger, t->slot[i].pid, t->slot[i].tid) = t->slot[i];
	free(t->slot);
	*t = bigger;
}

/* a + b, saturating: hostile counters must not overflow a sum. */
static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static void
add_phase(struct rank_cpu *out, struct state *s, const struct phase *p, int64_t len_ns)
{
	if (p->busy) {
		out->n_busy++;
		s->busy_sum_ns += (double)len_ns;
		out->busy_ns = sat_add(out->busy_ns, len_ns);
	} else {
		out->n_idle++;
		s->idle_sum_ns += (double)len_ns;
		out->idle_ns = sat_add(out->idle_ns, len_ns);
	}
	if (out->nphases >= PHASES_MAX_PHASES) {
		out->phases_over_cap++;
		return;
	}
	out->phases = xgrow(out->phases, &s->phases_cap, out->nphases + 1, sizeof *out->phases);
	out->phases[out->nphases++] = *p;
}

/* Add one classified interval to the open phase, or end it and open a new one. */
static void
emit(struct rank_cpu *out, struct state *s, const struct ival *iv, bool busy)
{
	if (s->open && s->cur.busy != busy) {
		add_phase(out, s, &s->cur, s->cur_len_ns);
		s->open = false;
	}
	if (!s->open) {
		s->cur.t_start_ns = iv->t0_real_ns;
		s->cur.busy = busy;
		s->cur.run_ns = 0;
		s->cur.wait_ns = 0;
		s->cur_len_ns = 0;
		s->open = true;
	}
	s->cur.t_end_ns = iv->t1_real_ns;
	s->cur.run_ns = sat_add(s->cur.run_ns, iv->run_ns);
	s->cur.wait_ns = sat_add(s->cur.wait_ns, iv->wait_ns);
	s->cur_len_ns = sat_add(s->cur_len_ns, iv->dt_ns);
}

/* The j-th held interval (0: the oldest). */
static const struct ival *
held(const struct state *s, size_t j)
{
	return &s->ring[(s->ring_head + j) % RING];
}

/* How much of the interval from t0 to t1 lies inside the trace's waits: 0 less than half,
 * 1 at least half, 2 all of it. Intervals come in time order. */
static int
inside_wait(struct state *s, int64_t t0, int64_t t1)
{
	int64_t in = 0;

	while (s->wait_i < s->nwaits && s->waits[s->wait_i].t1_ns <= t0)
		s->wait_i++;
	for (size_t i = s->wait_i; i < s->nwaits && s->waits[i].t0_ns < t1; i++) {
		int64_t a = s->waits[i].t0_ns > t0 ? s->waits[i].t0_ns : t0;
		int64_t b = s->waits[i].t1_ns < t1 ? s->waits[i].t1_ns : t1;

		if (b > a)
			in += b - a;
	}
	if (t1 <= t0 || 2 * in < t1 - t0)
		return 0;
	return in >= t1 - t0 ? 2 : 1;
}

/* True when the held interval c lies at least half inside a wait and its user share is
 * under PHASES_POLL_USER_SHARE: its own ticks, with those of the intervals next to it that
 * lie wholly inside waits (nearest first, PHASES_POLL_WINDOW each side at most; not the
 * ones a wait starts or ends in, which may hold work) while they are fewer than
 * PHASES_POLL_MIN_TICKS. No ticks: nothing says it worked. */
static bool
polled(const struct state *s, size_t c)
{
	const struct ival *iv = held(s, c);
	int64_t du = iv->du, ds = iv->ds;
	bool back = true, fwd = true;	/* the sides still inside waits */

	if (!iv->in_wait)
		return false;
	for (size_t d = 1; d <= PHASES_POLL_WINDOW && du + ds < PHASES_POLL_MIN_TICKS; d++) {
		back = back && c >= d && held(s, c - d)->in_wait == 2;
		fwd = fwd && c + d < s->ring_n && held(s, c + d)->in_wait == 2;
		if (back) {
			du = sat_add(du, held(s, c - d)->du);
			ds = sat_add(ds, held(s, c - d)->ds);
		}
		if (fwd) {
			du = sat_add(du, held(s, c + d)->du);
			ds = sat_add(ds, held(s, c + d)->ds);
		}
	}
	return du + ds == 0 || (double)du < PHASES_POLL_USER_SHARE * (double)(du + ds);
}

/* Classify the next held interval with the user share of the held ones within
 * PHASES_USER_WINDOW of it (all that follow it are there unless the file ended). */
static void
classify_next(struct rank_cpu *out, struct state *s)
{
	const struct ival *iv = held(s, s->ring_cls);
	double run = (double)iv->run_ns + (s->count_wait ? (double)iv->wait_ns : 0);
	bool busy;

	if (!s->count_system) {
		size_t w = s->user_alone ? 0 : PHASES_USER_WINDOW;
		size_t lo = s->ring_cls >= w ? s->ring_cls - w : 0;
		size_t hi = s->ring_cls + w;
		double du = 0, ds = 0;

		for (size_t j = lo; j <= hi && j < s->ring_n; j++) {
			du += (double)held(s, j)->du;
			ds += (double)held(s, j)->ds;
		}
		if (du + ds > 0)
			run *= du / (du + ds);
	}
	busy = run >= s->threshold * (double)iv->dt_ns;
	if (!busy && (double)iv->run_ns >= s->threshold * (double)iv->dt_ns)
		out->system_idle++;
	if (busy && polled(s, s->ring_cls)) {
		busy = false;
		out->polling++;
	}
	emit(out, s, iv, busy);
	s->ring_cls++;
	/* keep HELD classified intervals for the next one's window */
	if (s->ring_cls > HELD) {
		s->ring_head = (s->ring_head + 1) % RING;
		s->ring_n--;
		s->ring_cls--;
	}
}

/* Close the current sample: if it ends an interval, hold it, and classify the held one
 * whose window is now complete. */
static void
end_sample(struct rank_cpu *out, struct state *s)
{
	struct ival *iv;

	if (!s->have_sample)
		return;
	out->samples++;
	out->t_last_ns = s->real_ns;
	out->elapsed_ns = s->mono_ns - s->first_mono_ns;
	if (s->k == 0) {
		out->t_first_ns = s->real_ns;
		return;
	}
	out->intervals++;
	out->run_ns = sat_add(out->run_ns, s->run_ns);
	out->wait_ns = sat_add(out->wait_ns, s->wait_ns);
	out->utime_ticks = sat_add(out->utime_ticks, s->du);
	out->stime_ticks = sat_add(out->stime_ticks, s->ds);
	assert(s->ring_n < RING);
	iv = &s->ring[(s->ring_head + s->ring_n++) % RING];
	*iv = (struct ival){ s->run_ns, s->wait_ns, s->mono_ns - s->prev_mono_ns, s->prev_real_ns,
			     s->real_ns, s->du, s->ds, inside_wait(s, s->prev_real_ns, s->real_ns) };
	if (s->ring_n - s->ring_cls > HELD)
		classify_next(out, s);
}

/* At the end of the file: classify what is held. */
static void
flush_held(struct rank_cpu *out, struct state *s)
{
	while (s->ring_cls < s->ring_n)
		classify_next(out, s);
}

static void
start_sample(struct state *s, int64_t mono_ns, int64_t real_ns)
{
	if (s->have_sample) {
		s->k++;
		s->prev_mono_ns = s->mono_ns;
		s->prev_real_ns = s->real_ns;
	} else {
		s->first_mono_ns = mono_ns;
	}
	s->have_sample = true;
	s->mono_ns = mono_ns;
	s->real_ns = real_ns;
	s->run_ns = 0;
	s->wait_ns = 0;
	s->du = 0;
	s->ds = 0;
}

static int64_t
clamp_ns(uint64_t v, int64_t max_ns)
{
	return v > (uint64_t)max_ns ? max_ns : (int64_t)v;
}

/* One row's thread: record its counters and add its increase to the interval.
 * Returns false when the row is bad (the thread already seen in this sample). */
static bool
account(struct rank_cpu *out, struct state *s, struct threads *tt, int64_t pid, int64_t tid,
	uint64_t run_ns, uint64_t wait_ns, uint64_t ut, uint64_t st)
{
	/* ticks: at most the interval's length at 10000 ticks per second, a bound no clock
	 * tick rate reaches, so that hostile counters cannot outweigh real ones */
	int64_t max_ticks = s->k > 0 ? (s->mono_ns - s->prev_mono_ns) / 100000 + 1 : 0;
	struct thread *th;
	int64_t dt_ns = s->k > 0 ? s->mono_ns - s->prev_mono_ns : 0;

	if ((tt->used + 1) * 2 > tt->size)
		threads_grow(tt);
	th = thread_slot(tt, pid, tid);
	if (th->pid == 0) {
		if (tt->used >= PHASES_MAX_THREADS) {
			out->threads_over_cap++;
			return true;	/* not damaged, just not followed */
		}
		th->pid = pid;
		th->tid = tid;
		tt->used++;
		out->threads++;
		if (s->k > 0) {	/* started inside the interval */
			s->run_ns = sat_add(s->run_ns, clamp_ns(run_ns, dt_ns));
			s->wait_ns = sat_add(s->wait_ns, clamp_ns(wait_ns, dt_ns));
			s->du = sat_add(s->du, clamp_ns(ut, max_ticks));
			s->ds = sat_add(s->ds, clamp_ns(st, max_ticks));
		}
	} else if (th->seen == s->k) {
		return false;
	} else if (run_ns < th->run_ns || wait_ns < th->wait_ns || ut < th->utime || st < th->stime) {
		out->resets++;	/* a new process under a reused pid */
		s->run_ns = sat_add(s->run_ns, clamp_ns(run_ns, dt_ns));
		s->wait_ns = sat_add(s->wait_ns, clamp_ns(wait_ns, dt_ns));
		s->du = sat_add(s->du, clamp_ns(ut, max_ticks));
		s->ds = sat_add(s->ds, clamp_ns(st, max_ticks));
	} else {
		s->run_ns = sat_add(s->run_ns, clamp_ns(run_ns - th->run_ns, dt_ns));
		s->wait_ns = sat_add(s->wait_ns, clamp_ns(wait_ns - th->wait_ns, dt_ns));
		s->du = sat_add(s->du, clamp_ns(ut - th->utime, max_ticks));
		s->ds = sat_add(s->ds, clamp_ns(st - th->stime, max_ticks));
	}
	th->run_ns = run_ns;
	th->wait_ns = wait_ns;
	th->utime = ut;
	th->stime = st;
	th->seen = s->k;
	return true;
}

static void
bad_row(struct rank_cpu *out, const struct err *e)
{
	if (out->bad_rows++ == 0)
		snprintf(out->first_bad, sizeof out->first_bad, "%s", e->msg);
}

/* The rank in a file name "rank-<R>.tsv[.gz]", or -1. */
static int
rank_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *p;
	long r = 0;

	base = base ? base + 1 : path;
	if (strncmp(base, "rank-", 5) != 0 || !isdigit((unsigned char)base[5]))
		return -1;
	for (p = base + 5; isdigit((unsigned char)*p); p++) {
		r = r * 10 + (*p - '0');
		if (r > 100000000)
			return -1;
	}
	if (strcmp(p, ".tsv") != 0 && strcmp(p, ".tsv.gz") != 0)
		return -1;
	return (int)r;
}

int
phases_from_samples(const char *path, double busy_threshold, struct rank_cpu *out,
		    struct err *e)
{
	struct phases_opts o = { .busy_threshold = busy_threshold, .count_system = true };

	return phases_from_samples_opt(path, &o, out, e);
}

int
phases_from_samples_opt(const char *path, const struct phases_opts *o, struct rank_cpu *out,
			struct err *e)
{
	double busy_threshold = o->busy_threshold;
	struct tsv_r t;
	struct threads tt = { NULL, 0, 0 };
	struct state s;
	struct err rowe = { { 0 }, 0 };	/* a damaged row's message */
	int c_mono, c_real, c_pid, c_tid, c_run, c_wait, c_ut, c_st;	/* column indexes */
	int64_t cut_mono_ns = -1;	/* the last sample time dropped past the cut */
	int rc;

	memset(out, 0, sizeof *out);
	out->rank = rank_from_path(path);
	if (!(busy_threshold > 0 && busy_threshold <= 1024))
		return err_set(e, E_USAGE, "busy threshold %g is outside (0, 1024]", busy_threshold);
	rc = tsv_r_open(&t, path, "samples", 1, required_cols, e);
	if (rc < 0)
		return rc;
	memset(&s, 0, sizeof s);
	s.threshold = busy_threshold;
	s.count_system = o->count_system;
	s.waits = o->waits;
	s.nwaits = o->waits != NULL ? o->nwaits : 0;
	s.count_wait = o->count_wait;
	s.user_alone = o->user_alone;
	c_mono = tsv_r_col(&t, "t_mono_ns");
	c_real = tsv_r_col(&t, "t_real_ns");
	c_pid = tsv_r_col(&t, "pid");
	c_tid = tsv_r_col(&t, "tid");
	c_run = tsv_r_col(&t, "run_ns");
	c_wait = tsv_r_col(&t, "wait_ns");
	c_ut = tsv_r_col(&t, "utime_ticks");	/* -1 when absent: no user weighting */
	c_st = tsv_r_col(&t, "stime_ticks");
	for (;;) {
		int64_t mono_ns, real_ns, pid, tid;
		uint64_t run_ns, wait_ns, ut = 0, st = 0;

		rc = tsv_r_next(&t, &rowe);
		if (rc == 0)
			break;
		if (rc == -E_TRUNC) {
			out->truncated = true;
			break;
		}
		if (rc == -E_IO) {
			err_set(e, E_IO, "%s", rowe.msg);
			break;
		}
		if (rc < 0 && gzr_damage(t.r) != NULL) {	/* damaged compression: reading ends */
			out->damaged = true;
			snprintf(out->damage, sizeof out->damage, "%s", gzr_damage(t.r));
			break;
		}
		if (rc < 0) {	/* a damaged line */
			bad_row(out, &rowe);
			continue;
		}
		if (tsv_r_i64(&t, c_mono, &mono_ns, &rowe) < 0 ||
		    tsv_r_i64(&t, c_real, &real_ns, &rowe) < 0 ||
		    tsv_r_i64(&t, c_pid, &pid, &rowe) < 0 || tsv_r_i64(&t, c_tid, &tid, &rowe) < 0 ||
		    tsv_r_u64(&t, c_run, &run_ns, &rowe) < 0 ||
		    tsv_r_u64(&t, c_wait, &wait_ns, &rowe) < 0 ||
		    (c_ut >= 0 && c_st >= 0 &&
		     (tsv_r_u64(&t, c_ut, &ut, &rowe) < 0 || tsv_r_u64(&t, c_st, &st, &rowe) < 0))) {
			bad_row(out, &rowe);
			continue;
		}
		if (pid <= 0 || tid <= 0 || mono_ns < 0 || real_ns < 0) {
			err_set(&rowe, E_FORMAT, "'%s' line %ld: pid, tid or time out of range", path,
				t.line_no);
			bad_row(out, &rowe);
			continue;
		}
		if ((o->min_mono_ns != 0 || o->max_mono_ns != 0) &&
		    (mono_ns < o->min_mono_ns || mono_ns > o->max_mono_ns)) {
			err_set(&rowe, E_FORMAT, "'%s' line %ld: t_mono_ns %lld is outside the rank's "
				"run (%lld to %lld)", path, t.line_no, (long long)mono_ns,
				(long long)o->min_mono_ns, (long long)o->max_mono_ns);
			out->out_of_run++;
			bad_row(out, &rowe);
			continue;
		}
		if (o->cut_real_ns > 0 && s.have_sample && mono_ns > s.mono_ns &&
		    s.real_ns >= o->cut_real_ns) {
			/* past the cut: the sample read last is the rank's last */
			if (mono_ns != cut_mono_ns)
				out->cut_samples++;
			cut_mono_ns = mono_ns;
			continue;
		}
		if (s.have_sample && mono_ns < s.mono_ns) {
			err_set(&rowe, E_FORMAT, "'%s' line %ld: t_mono_ns goes backwards", path,
				t.line_no);
			bad_row(out, &rowe);
			continue;
		}
		if (s.have_sample && mono_ns == s.mono_ns && real_ns != s.real_ns) {
			err_set(&rowe, E_FORMAT, "'%s' line %ld: t_real_ns differs within a sample",
				path, t.line_no);
			bad_row(out, &rowe);
			continue;
		}
		if (!s.have_sample || mono_ns > s.mono_ns) {
			end_sample(out, &s);
			start_sample(&s, mono_ns, real_ns);
		}
		if (!account(out, &s, &tt, pid, tid, run_ns, wait_ns, ut, st)) {
			err_set(&rowe, E_FORMAT, "'%s' line %ld: thread %lld/%lld twice in one sample",
				path, t.line_no, (long long)pid, (long long)tid);
			bad_row(out, &rowe);
		} else {
			out->rows++;
		}
	}
	tsv_r_close(&t);
	free(tt.slot);
	if (rc == -E_IO) {
		rank_cpu_release(out);
		return -E_IO;
	}
	end_sample(out, &s);
	flush_held(out, &s);
	if (s.open)
		add_phase(out, &s, &s.cur, s.cur_len_ns);
	if (out->n_busy > 0)
		out->avg_busy_ns = s.busy_sum_ns / (double)out->n_busy;
	if (out->n_idle > 0)
		out->avg_idle_ns = s.idle_sum_ns / (double)out->n_idle;
	if (out->elapsed_ns > 0)
		out->cpu_frac = (double)out->run_ns / (double)out->elapsed_ns;
	return 0;
}

void
phases_opts_window(struct phases_opts *o, int64_t start_mono_ns, int64_t end_mono_ns)
{
	o->min_mono_ns = start_mono_ns > PHASES_RUN_SLACK_NS ? start_mono_ns - PHASES_RUN_SLACK_NS : 1;
	o->max_mono_ns = end_mono_ns < INT64_MAX - PHASES_RUN_SLACK_NS ?
			 end_mono_ns + PHASES_RUN_SLACK_NS : INT64_MAX;
}

bool
phases_judge(const struct rank_cpu *rc, const char *path, int64_t samples_taken,
	     void (*say)(void *ctx, const char *msg), void *ctx)
{
	char m[2 * ERR_MSG_MAX];
	unsigned long long rows = rc->rows, bad = rc->bad_rows;

	if (rc->truncated) {
		snprintf(m, sizeof m, "'%s': samples end early (%llu samples kept)", path,
			 (unsigned long long)rc->samples);
		say(ctx, m);
	}
	if (rc->damaged) {
		snprintf(m, sizeof m, "%s; the %llu rows before it are kept", rc->damage, rows);
		say(ctx, m);
	}
	if (samples_taken >= 0 && rc->samples + rc->cut_samples != (uint64_t)samples_taken &&
	    !rc->truncated &&
	    !rc->damaged && bad == 0) {
		/* whole rows gone or added leave no bad row: only the agent's count shows it */
		snprintf(m, sizeof m, "'%s': %llu samples, but its agent took %lld (meta "
			 "samples_taken): samples are missing or added", path,
			 (unsigned long long)rc->samples, (long long)samples_taken);
		say(ctx, m);
	}
	if (bad > 0 && (double)bad > PHASES_MAX_BAD_SHARE * (double)(rows + bad)) {
		snprintf(m, sizeof m, "'%s': %llu of %llu rows are bad (first: %s); its rank's CPU "
			 "phases are not used", path, bad, rows + bad, rc->first_bad);
		say(ctx, m);
		return false;
	}
	if (bad > 0) {
		snprintf(m, sizeof m, "'%s': %llu of %llu rows are bad and skipped (first: %s); its "
			 "rank's CPU phases rest on the other %llu", path, bad, rows + bad,
			 rc->first_bad, rows);
		say(ctx, m);
	}
	return true;
}

void
rank_cpu_release(struct rank_cpu *rc)
{
	if (rc == NULL)
		return;
	free(rc->phases);
	memset(rc, 0, sizeof *rc);
}

int
phases_write(const struct rank_cpu *rc, struct tsv_w *t, struct err *e)
{
	for (size_t i = 0; i < rc->nphases; i++) {
		const struct phase *p = &rc->phases[i];
		int r;

		tsv_w_i64(t, rc->rank);
		tsv_w_str(t, p->busy ? "busy" : "idle");
		tsv_w_i64(t, p->t_start_ns);
		tsv_w_i64(t, p->t_end_ns);
		tsv_w_i64(t, p->run_ns);
		tsv_w_i64(t, p->wait_ns);
		r = tsv_w_end(t, e);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Whether b comes at least PHASES_LONG_WAIT_NS after a (any times: the difference is taken
 * unsigned, which cannot overflow once b > a). */
static bool
long_gap(int64_t a, int64_t b)
{
	return b > a && (uint64_t)b - (uint64_t)a >= (uint64_t)PHASES_LONG_WAIT_NS;
}

static int
wait_cmp(const void *a, const void *b)
{
	const struct phases_wait *x = a, *y = b;

	return (x->t0_ns > y->t0_ns) - (x->t0_ns < y->t0_ns);
}

/* The wait that began with a rank's last send before its last arrival, run on through the
 * arrivals that came after it (sorted arrays): from each of them to the next, when after the
 * last one the rank only answered (sent within PHASES_ANSWER_NS) or sent nothing. At the end
 * of its run, a rank that sent its last work and then took the results one by one, sending
 * nothing until the last was in, was waiting for them (GARLI's rank 0 polls 4 s for the
 * last replicates at a user share of 0.2-0.3); mid-run, such a stretch may be work on what
 * came, which the SEND rule leaves busy. Appended to *out (n waits in it, *cap its
 * allocated entries); returns the new count. */
static size_t
trailing_waits(const int64_t *send_ns, size_t nsend, const int64_t *arr_ns, size_t narr,
	       struct phases_wait **out, size_t *cap, size_t n)
{
	int64_t last = arr_ns[narr - 1];
	size_t i = nsend, j = narr - 1;

	if (nsend > 0 && send_ns[nsend - 1] > last &&
	    (last > INT64_MAX - PHASES_ANSWER_NS || send_ns[nsend - 1] > last + PHASES_ANSWER_NS))
		return n;	/* it went on sending: not the end of its run */
	while (i > 0 && send_ns[i - 1] >= last)	/* a send at an arrival's time follows it */
		i--;
	if (i == 0)
		return n;	/* no send before: no wait to run on */
	while (j > 0 && arr_ns[j - 1] > send_ns[i - 1])
		j--;
	for (; j + 1 < narr; j++) {
		if (arr_ns[j + 1] <= arr_ns[j] || long_gap(arr_ns[j], arr_ns[j + 1]))
			continue;	/* the same time, or a long wait phases_waits has */
		*out = xgrow(*out, cap, n + 1, sizeof **out);
		(*out)[n++] = (struct phases_wait){ arr_ns[j], arr_ns[j + 1] };
	}
	return n;
}

size_t
phases_waits(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr, enum phases_wait_rule rule,
	     struct phases_wait **out)
{
	size_t i = 0, j = 0, n = 0, cap = 0;
	int64_t last_send = INT64_MIN, last_arr = INT64_MIN;
	bool heard = true;	/* an arrival came since the last send */

	*out = NULL;
	if (nsend > 1)	/* a rank that never sent has no array (qsort must not get NULL) */
		qsort(send_ns, nsend, sizeof *send_ns, sortnum_cmp_i64);
	if (narr > 1)
		qsort(arr_ns, narr, sizeof *arr_ns, sortnum_cmp_i64);
	while (j < narr) {
		if (i < nsend && send_ns[i] < arr_ns[j]) {
			last_send = send_ns[i++];
			heard = false;
			continue;
		}
		if (!heard && arr_ns[j] > last_send) {
			*out = xgrow(*out, &cap, n + 1, sizeof **out);
			(*out)[n++] = (struct phases_wait){ last_send, arr_ns[j] };
		} else if (heard && last_arr != INT64_MIN && arr_ns[j] > last_arr &&
			   (rule == PHASES_WAITS_ANY || long_gap(last_arr, arr_ns[j]))) {
			*out = xgrow(*out, &cap, n + 1, sizeof **out);
			(*out)[n++] = (struct phases_wait){ last_arr, arr_ns[j] };
		}
		heard = true;
		last_arr = arr_ns[j++];
	}
	if (rule != PHASES_WAITS_ANY && narr > 1) {	/* ANY has them already */
		n = trailing_waits(send_ns, nsend, arr_ns, narr, out, &cap, n);
		if (n > 1)	/* its short gaps go between the long ones */
			qsort(*out, n, sizeof **out, wait_cmp);
	}
	return n;
}
