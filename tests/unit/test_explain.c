/* test_explain: the attribution of explain/ on hand-built runs whose answer is worked out
 * by hand: the replay with nothing taken out gives the measured time back; a halo exchange
 * whose second rank waited half of each busy phase on the run queue is blamed on that
 * node's CPU, at about what the wait cost; one slow link is named with the time its
 * messages spent over the pair's best, a dedicated one against a dedicated baseline costs
 * only the difference of their spreads and a capped one all it lost, and a smaller message
 * late on the way holds no sender; a rank with twice the others' work is imbalance; a
 * baseline leaves only the difference; a rank starved so that by run time it reads idle is
 * busy by demand from its samples and its node is blamed; start-up and finish are the time
 * before the first and after the last message, and a start-up the loaded rank stretched
 * (the ranks leave it together), its launch late and its idle time there included, is its
 * node's CPU, and so is a rendezvous's time on the
 * wire while its loaded receiver was busy (not while it read idle, its bytes held by a
 * cap); a polling rank's wait broken by a stray
 * busy interval still takes the faster sender's whole gain, and so does a ping-pong
 * finer than the samples inside a busy phase, and a reply sent from inside the busy phase
 * its message came in, however long that phase (polling) had lasted; answers slowed by run-queue
 * wait in idle time (system calls) are blamed on the node; a loaded rank's receives that
 * found it waiting come sooner by the wake-up delay (its node's slice), once for messages
 * that came within that delay of each other; two ranks on one
 * core leave each other the CPU as busy as they were, not half; an exchange whose second
 * half leaves just after the first arrived costs, under a CPU competitor and under a slow
 * link, what the same simulated program saves without the cause; an unloaded rank's time
 * between its events that grew with its waits (an idle phase ending past the arrival)
 * goes when a cause shortens those waits, and the time it grew over the baseline (its
 * own work read as gaps) when a competitor's cause is taken out; a loaded rank's gaps go
 * no shorter than the baseline's, its wake-up delays no longer than its wait; and costs +
 * interaction + ideal add up to the measured time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain/attrib.h"
#include "explain/evidence.h"
#include "lib/sortnum.h"
#include "predict/replay.h"
#include "tests/unit/check.h"
#include "tests/unit/models_fixture.h"

#define ITERS 10
#define P_MS 82LL		/* one iteration */


/* RUN/profile/ranks.tsv for 2 ranks on ws1, ws2. */
static void
ranks2(const char *dir, long long exec_ns, long long wait1_ns)
{
	FILE *f = fx_open(dir, "ranks.tsv", FX_RANK_HDR);

	for (int r = 0; r < 2; r++)
		fprintf(f, "%d\tws%d\t%lld\t50\t0\t50\t1\t1\t1\t1\t50\t1\t%lld\t1\t1\t1\t1\n", r, r + 1, exec_ns,
			r == 1 ? wait1_ns : 0);
	fclose(f);
}

static void
phase(FILE *f, int rank, const char *kind, long long t0, long long t1, long long wait)
{
	fprintf(f, "%d\t%s\t%lld\t%lld\t%lld\t%lld\n", rank, kind, t0, t1, t1 - t0 - wait, wait);
}

static void
msg_proto(FILE *f, long long t0, long long t1, int src, int dst, long long bytes, const char *proto)
{
	fprintf(f, "%lld\t%lld\t%d\t%d\t0\t%d\t1\t-\t%lld\t%lld\tompi\t%s\thandshake\t-\t0\n", t0, t1, src, dst,
		src, bytes, bytes + 66, proto);
}

static void
msg(FILE *f, long long t0, long long t1, int src, int dst, long long bytes)
{
	msg_proto(f, t0, t1, src, dst, bytes, "eager");
}

static long long halo_wait0;	/* ms of rank 0's work spent on the run queue */

/* A halo exchange: rank 0 works w0 ms (halo_wait0 of them on the run queue), rank 1 w1 ms
 * of which wait1 ms on the run queue;
 * each sends its halo when done (1 ms on the wire) and both go on at P_MS. */
static void
halo(const char *dir, long long w0, long long w1, long long wait1)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * P_MS * FX_MS;

		phase(ph, 0, "busy", t, t + w0 * FX_MS, halo_wait0 * FX_MS);
		phase(ph, 0, "idle", t + w0 * FX_MS, t + P_MS * FX_MS, 0);
		phase(ph, 1, "busy", t, t + w1 * FX_MS, wait1 * FX_MS);
		phase(ph, 1, "idle", t + w1 * FX_MS, t + P_MS * FX_MS, 0);
		msg(m, t + w0 * FX_MS, t + (w0 + 1) * FX_MS, 0, 1, 4000);
		msg(m, t + w1 * FX_MS, t + (w1 + 1) * FX_MS, 1, 0, 4000);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * P_MS * FX_MS, ITERS * wait1 * FX_MS);
}

/* n iterations: rank 0 works 20 ms then sends rank 1 1 MB (first_bytes in the first) in
 * x_ms[k] ms; rank 1 works 20 ms on it and answers with 100 bytes. */
static void
transfers(const char *dir, int n, const double *x_ms, long long first_bytes)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS;

	for (int k = 0; k < n; k++) {
		long long x = (long long)(x_ms[k] * FX_MS);

		phase(ph, 0, "busy", t, t + 20 * FX_MS, 0);
		phase(ph, 0, "idle", t + 20 * FX_MS, t + 20 * FX_MS + x + 21 * FX_MS, 0);
		msg(m, t + 20 * FX_MS, t + 20 * FX_MS + x, 0, 1, k == 0 ? first_bytes : 1000000);
		phase(ph, 1, "idle", t, t + 20 * FX_MS + x, 0);
		phase(ph, 1, "busy", t + 20 * FX_MS + x, t + 40 * FX_MS + x, 0);
		msg(m, t + 40 * FX_MS + x, t + 41 * FX_MS + x, 1, 0, 100);
		phase(ph, 1, "idle", t + 40 * FX_MS + x, t + 41 * FX_MS + x, 0);
		t += 41 * FX_MS + x;
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, t - FX_BASE_NS, 0);
}

/* Rank 0 works 20 ms then sends 1 MB to rank 1 (10 ms at the best 100 MB/s in iteration 0,
 * slow_ms after); rank 1 works 20 ms on it and answers with 100 bytes. */
static void
slow_link_at(const char *dir, long long slow_ms)
{
	double x[ITERS];

	for (int k = 0; k < ITERS; k++)
		x[k] = k == 0 ? 10 : (double)slow_ms;
	transfers(dir, ITERS, x, 1000000);
}

/* slow_link_at at 10 MB/s from iteration 1: 100 ms a transfer. */
static void
slow_link(const char *dir)
{
	slow_link_at(dir, 100);
}

/* One rank's samples, 20 ms apart, pid = tid = 100 + rank: run_ms[i] and wait_ms[i] in
 * interval i (one user tick per 10 ms run). */
static void
samples(const char *dir, int rank, const double *run_ms, const double *wait_ms, int n)
{
	char path[400];
	FILE *f;
	double run = 0, wait = 0, ticks = 0;

	snprintf(path, sizeof path, "%s/samples", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/samples/rank-%d.tsv", dir, rank);
	if ((f = fopen(path, "w")) == NULL)
		exit(2);
	fputs("# contend-samples 1\nt_mono_ns\tt_real_ns\tpid\ttid\tstate\tutime_ticks\tstime_ticks\trun_ns\t"
	      "wait_ns\tvcsw\tivcsw\n", f);
	for (int i = 0; i <= n; i++) {
		if (i > 0) {
			run += run_ms[i - 1];
			wait += wait_ms[i - 1];
			ticks += run_ms[i - 1] / 10;
		}
		fprintf(f, "%lld\t%lld\t%d\t%d\tR\t%.0f\t0\t%.0f\t%.0f\t0\t0\n", 5000 * FX_MS + i * 20 * FX_MS,
			FX_BASE_NS + i * 20 * FX_MS, 100 + rank, 100 + rank, floor(ticks), run * FX_MS, wait * FX_MS);
	}
	fclose(f);
}

/* Period 100 ms: rank 0 computes 40 ms, rank 1 wants 80 ms of which it runs 8 ms and waits
 * 12 ms in every 20 ms interval: by run time alone (what phases.tsv holds) rank 1 is idle
 * all the time; its samples say it wanted the CPU. */
static void
starved(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	double run0[5 * ITERS], run1[5 * ITERS], wait1[5 * ITERS], none[5 * ITERS] = { 0 };

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 100 * FX_MS;

		phase(ph, 0, "busy", t, t + 40 * FX_MS, 0);
		phase(ph, 0, "idle", t + 40 * FX_MS, t + 100 * FX_MS, 0);
		phase(ph, 1, "idle", t, t + 100 * FX_MS, 48 * FX_MS);
		msg(m, t + 40 * FX_MS, t + 41 * FX_MS, 0, 1, 4000);
		msg(m, t + 80 * FX_MS, t + 81 * FX_MS, 1, 0, 4000);
		for (int i = 0; i < 5; i++) {
			run0[5 * k + i] = i < 2 ? 20 : 0;
			run1[5 * k + i] = i < 4 ? 8 : 0;
			wait1[5 * k + i] = i < 4 ? 12 : 0;
		}
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * 100 * FX_MS, ITERS * 48 * FX_MS);
	samples(dir, 0, run0, none, 5 * ITERS);
	samples(dir, 1, run1, wait1, 5 * ITERS);
}

static long long stray_second_us;	/* > 0: rank 0 answers with two messages, that many
					 * us apart */

/* Rank 1 (ws2) computes 80 ms, half of it on the run queue, and sends; rank 0 waits for
 * it polling: idle but for one stray 20 ms busy interval (a user tick in its polling loop)
 * 30 ms in; it works 10 ms on the message and answers (twice, stray_second_us apart, when
 * that is set). 92 ms an iteration. With late > 0 rank 1 gets the CPU late ms after each
 * answer arrives, idle by demand until then (its wake-up delay outside the phase), and an
 * iteration takes 92 + late ms. */
static void
stray_tick(const char *dir, long long late)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long P = 92 + late;

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * P * FX_MS, t1 = t + late * FX_MS;

		if (late > 0)
			phase(ph, 1, "idle", t, t1, 0);
		phase(ph, 1, "busy", t1, t1 + 80 * FX_MS, 40 * FX_MS);
		msg(m, t1 + 80 * FX_MS, t1 + 81 * FX_MS, 1, 0, 4000);
		phase(ph, 1, "idle", t1 + 80 * FX_MS, t1 + 92 * FX_MS, 0);
		phase(ph, 0, "idle", t, t + 30 * FX_MS, 0);
		phase(ph, 0, "busy", t + 30 * FX_MS, t + 50 * FX_MS, 0);
		phase(ph, 0, "idle", t + 50 * FX_MS, t1 + 81 * FX_MS, 0);
		phase(ph, 0, "busy", t1 + 81 * FX_MS, t1 + 91 * FX_MS, 0);
		msg(m, t1 + 91 * FX_MS, t1 + 92 * FX_MS, 0, 1, 4000);
		if (stray_second_us > 0)
			msg(m, t1 + 91 * FX_MS + stray_second_us * 1000, t1 + 92 * FX_MS + stray_second_us * 1000, 0, 1,
			    100);
		phase(ph, 0, "idle", t1 + 91 * FX_MS, t1 + 92 * FX_MS, 0);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * P * FX_MS, ITERS * 40 * FX_MS);
}

/* Rank 0 computes 40 ms and sends; rank 1 (ws2) never computes: it answers each message
 * 10 ms later, in system calls (idle by demand), and waits on the run queue half of its
 * idle time, 5 ms of each answer included. 52 ms an iteration. */
static void
slow_reply_in(const char *dir, long long gap, bool loaded)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long per = gap + 42, half = loaded ? 2 : 0;	/* half: the wait is half the time */

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * per * FX_MS;

		phase(ph, 0, "busy", t, t + 40 * FX_MS, 0);
		msg(m, t + 40 * FX_MS, t + 41 * FX_MS, 0, 1, 4000);
		phase(ph, 0, "idle", t + 40 * FX_MS, t + per * FX_MS, 0);
		phase(ph, 1, "idle", t, t + 41 * FX_MS, half ? 41 * FX_MS / half : 0);
		phase(ph, 1, "idle", t + 41 * FX_MS, t + (41 + gap) * FX_MS, half ? gap * FX_MS / half : 0);
		msg(m, t + (41 + gap) * FX_MS, t + per * FX_MS, 1, 0, 4000);
		phase(ph, 1, "idle", t + (41 + gap) * FX_MS, t + per * FX_MS, half ? FX_MS / half : 0);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * per * FX_MS, half ? ITERS * per / half * FX_MS : 0);
}

/* Rank 0 works 40 ms and sends to rank 1 (ws2), which answers 10 ms after the message
 * came, idle by demand (in system calls) and half of that time on the run queue. */
static void
slow_reply(const char *dir)
{
	slow_reply_in(dir, 10, true);
}

#define PINGS 20

/* A ping-pong finer than the samples: rank 0 reads busy all along (a polling loop's stray
 * user ticks), sends every 10 ms and waits for the answer (0.5 ms on the wire each way);
 * rank 1 (ws2) works 8 ms on each ping, 4 of them on the run queue. */
static void
ping_pong(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	phase(ph, 0, "busy", FX_BASE_NS, FX_BASE_NS + PINGS * 10 * FX_MS, 0);
	for (int k = 0; k < PINGS; k++) {
		long long t = FX_BASE_NS + k * 10 * FX_MS;

		msg(m, t, t + FX_MS, 0, 1, 100);
		phase(ph, 1, "idle", t, t + FX_MS, 0);
		phase(ph, 1, "busy", t + FX_MS, t + 9 * FX_MS, 4 * FX_MS);
		phase(ph, 1, "idle", t + 9 * FX_MS, t + 10 * FX_MS, 0);
		msg(m, t + 9 * FX_MS, t + 9 * FX_MS + FX_MS / 2, 1, 0, 100);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, PINGS * 10 * FX_MS, PINGS * 4 * FX_MS);
}


/* An exchange (MPI_Sendrecv) of two ranks on ws1, ws2, simulated: in iteration k rank r
 * works work[r][k] ms (wait[r] more on the run queue, inside its busy phase), then
 * gets to its send in get ms that read idle (the rest of its work in an interval under
 * the demand threshold, packing in system calls), sends BYTES that take wire ms on the wire
 * (first_wire in iteration 0), and goes on once it has both sent and received the other's
 * half. The second send of each pair leaves a few ms after the first arrived, and each rank
 * is first in half the pairs: an exchange. Writes the run to dir (NULL: none); returns its
 * time. The same call with the cause taken out is the counterfactual, worked by hand. */
struct xchg {
	double work[2][ITERS], wait[2];
	double get, wire, first_wire;
	long long bytes;
};

static double
xchg_sim(const char *dir, const struct xchg *x)
{
	FILE *m = NULL, *ph = NULL, *f;
	double s[2] = { 0, 0 }, end = 0;

	if (dir != NULL) {
		m = fx_open(dir, "messages.tsv", FX_MSG_HDR);
		ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	}
	for (int k = 0; k < ITERS; k++) {
		double busy[2], send[2], arr[2], wire = k == 0 ? x->first_wire : x->wire;

		for (int r = 0; r < 2; r++) {
			busy[r] = x->work[r][k] + x->wait[r];
			send[r] = s[r] + busy[r] + x->get;
			arr[r] = send[r] + wire;
		}
		for (int r = 0; r < 2; r++) {
			double e = fmax(send[r], arr[1 - r]);

			if (ph != NULL) {
				phase(ph, r, "busy", FX_BASE_NS + llround(s[r] * FX_MS),
				      FX_BASE_NS + llround((s[r] + busy[r]) * FX_MS), llround(x->wait[r] * FX_MS));
				phase(ph, r, "idle", FX_BASE_NS + llround((s[r] + busy[r]) * FX_MS),
				      FX_BASE_NS + llround(e * FX_MS), 0);
				msg(m, FX_BASE_NS + llround(send[r] * FX_MS), FX_BASE_NS + llround(arr[r] * FX_MS), r,
				    1 - r, x->bytes);
			}
			s[r] = e;
		}
	}
	if (dir != NULL) {
		fclose(m);
		fclose(ph);
		f = fx_open(dir, "ranks.tsv", FX_RANK_HDR);
		for (int r = 0; r < 2; r++)
			fprintf(f, "%d\tws%d\t%lld\t50\t0\t50\t1\t1\t1\t1\t50\t1\t%lld\t1\t1\t1\t1\n", r, r + 1,
				llround(s[r] * FX_MS), llround(ITERS * x->wait[r] * FX_MS));
		fclose(f);
	}
	end = fmax(s[0], s[1]);
	return end * FX_MS;
}

static char *
run_dir(const char *name)
{
	static char path[8][300];
	static int n;
	char *p = path[n++ % 8];

	snprintf(p, 300, "%s/%s", check_tmpdir(), name);
	return p;
}

/* Load a run and explain it (against base when not NULL). */
static int
explain(const char *dir, const char *base, struct attr_result *r)
{
	struct prof p, bp;
	struct evid v, bv;
	struct err e;
	int rc;

	if (prof_load(&p, dir, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return -1;
	}
	evid_load(&v, &p);
	if (base != NULL) {
		if (prof_load(&bp, base, &e) < 0)
			return -1;
		evid_load(&bv, &bp);
	}
	rc = attr_explain(&p, &v, base ? &bp : NULL, base ? &bv : NULL, r, &e);
	evid_free(&v);
	prof_free(&p);
	if (base != NULL) {
		evid_free(&bv);
		prof_free(&bp);
	}
	return rc;
}

static const struct attr_cause *
find(const struct attr_result *r, enum attr_kind k, const char *host)
{
	for (int i = 0; i < r->n; i++)
		if (r->c[i].kind == k && (host == NULL || strcmp(r->c[i].host, host) == 0))
			return &r->c[i];
	return NULL;
}

/* measured = ideal + causes + interaction, and causes is their sum */
static void
check_sums(const struct attr_result *r)
{
	double sum = 0;

	for (int i = 0; i < r->n; i++)
		sum += r->c[i].cost_ns;
	CHECK_NEAR(sum, r->causes_ns, 1);
	CHECK_NEAR(r->ideal_ns + r->causes_ns + r->observer_ns + r->interaction_ns, r->measured_ns, 1);
	for (int i = 1; i < r->n; i++)
		CHECK(r->c[i - 1].cost_ns >= r->c[i].cost_ns);
	/* the cpu causes' shares add up to their joint cost */
	if (isfinite(r->cpu_all_ns)) {
		double share = 0;

		for (int i = 0; i < r->n; i++)
			if (r->c[i].kind == ATTR_CPU)
				share += r->c[i].share_ns;
		CHECK_NEAR(share, r->cpu_all_ns, 1e3);
	}
}

TEST(replay_unchanged_gives_measured)
{
	struct prof p;
	struct replay_trace x;
	struct replay_out o = { 0 };
	struct err e;
	double f[2] = { 1, 1 };
	struct replay_in c = { .busy_f = f };

	halo(run_dir("loaded"), 40, 80, 40);
	CHECK(prof_load(&p, run_dir("loaded"), &e) == 0);
	replay_trace_init(&x, &p, REPLAY_MEASURED);
	CHECK(x.nev == 4 * ITERS);
	CHECK(replay_run(&x, NULL, &o, &e) == 0);
	CHECK_NEAR(o.run_ns, (double)(ITERS * P_MS * FX_MS), 1);
	CHECK(replay_run(&x, &c, &o, &e) == 0);
	CHECK_NEAR(o.run_ns, (double)(ITERS * P_MS * FX_MS), 1);
	/* rank 0 twice as fast: it only waited more, the run stays as long */
	f[0] = 0.5;
	CHECK(replay_run(&x, &c, &o, &e) == 0);
	CHECK_NEAR(o.run_ns, (double)(ITERS * P_MS * FX_MS), 1);
	replay_trace_free(&x);
	prof_free(&p);
}

TEST(cpu_taken_on_one_node)
{
	struct attr_result r;
	const struct attr_cause *c;

	halo(run_dir("loaded"), 40, 80, 40);
	CHECK(explain(run_dir("loaded"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_STR(r.c[0].host, "ws2");
	/* 40 ms of wait out of each iteration on the slow rank; the exchange then takes
	 * 1 ms more every other iteration (rank 0's halo arrives after rank 1's shorter work) */
	CHECK(r.c[0].cost_ns >= 39.0 * ITERS * FX_MS);
	CHECK(r.c[0].cost_ns <= 40.0 * ITERS * FX_MS);
	CHECK(find(&r, ATTR_CPU, "ws1") == NULL);
	CHECK(find(&r, ATTR_LINK, NULL) == NULL);
	c = find(&r, ATTR_IMBALANCE, NULL);
	if (CHECKED(c != NULL))
		CHECK(fabs(c->cost_ns) < FX_MS);
	c = find(&r, ATTR_STARTUP, NULL);
	if (CHECKED(c != NULL))
		CHECK(fabs(c->cost_ns - 40.0 * FX_MS) < 1);
	c = find(&r, ATTR_FINISH, NULL);
	if (CHECKED(c != NULL))
		CHECK(fabs(c->cost_ns - 1.0 * FX_MS) < 1);
	/* own work between the first message (40 ms in) and the last: rank 0 9 x 40 ms, rank 1
	 * also half of its first phase's last 40 ms (half of it was run-queue wait) */
	CHECK_NEAR(r.work_ns, (360.0 + 380.0) / 2 * FX_MS, 1);
	CHECK(r.residual_ns >= 0);
	check_sums(&r);
	/* the report's split: rank 1's first message (rank 0's halo) came after 40 ms; then it
	 * worked 380 ms and waited as long for the CPU */
	CHECK(r.nranks == 2);
	CHECK_NEAR(r.ranks[1].startup_ns, 40.0 * FX_MS, 1);
	CHECK_NEAR(r.ranks[1].work_ns, 380.0 * FX_MS, 1);
	CHECK_NEAR(r.ranks[1].cpu_wait_ns, 380.0 * FX_MS, 1);
	CHECK(r.ranks[1].others_ns >= 0);
	CHECK(r.ranks[1].net_ns == 0);
	attr_result_free(&r);
}

/* rank r's agent in dir's meta: its own start (ns after a fixed instant) and how long it
 * took to start the rank (start_cost_ns) */
static void
agent_start(const char *dir, int r, long long start_ns, long long cost_ns)
{
	char name[32];
	FILE *f;

	snprintf(name, sizeof name, "rank-%d.tsv", r);
	f = fx_meta_open(dir, name);
	fprintf(f, "start_real_ns\t%lld\nstart_cost_ns\t%lld\n", 1795800000000000000LL + start_ns, cost_ns);
	fclose(f);
}

/* The run of cpu_taken_on_one_node, its two agents started together, the first starting
 * its rank 10 ms later, the second 30 ms: the first message waited 20 ms for collect, and
 * of the 40 ms start-up 20 are the program's. That is said apart, not ranked among the
 * program's causes, and the sums still hold. Without the agents' times nothing is. */
TEST(collects_start_is_not_the_programs)
{
	struct attr_result r;
	const struct attr_cause *c;

	halo(run_dir("held"), 40, 80, 40);
	agent_start(run_dir("held"), 0, 0, 10 * FX_MS);
	agent_start(run_dir("held"), 1, 0, 30 * FX_MS);
	CHECK(explain(run_dir("held"), NULL, &r) == 0);
	CHECK_NEAR(r.observer_ns, 20.0 * FX_MS, 1e3);
	CHECK(strstr(r.observer_evidence, "held the start-up 0.020 s, starting their ranks 0.010-0.030 s") != NULL);
	c = find(&r, ATTR_STARTUP, NULL);
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, 20.0 * FX_MS, 1e3);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	check_sums(&r);
	attr_result_free(&r);
	/* the second agent itself launched 20 ms later (the launcher's doing, which stays
	 * the program's): collect still held the first message 30 - 10 ms; agents that took
	 * as long as each other held nothing */
	agent_start(run_dir("held"), 1, 20 * FX_MS, 30 * FX_MS);
	CHECK(explain(run_dir("held"), NULL, &r) == 0);
	CHECK_NEAR(r.observer_ns, 20.0 * FX_MS, 1e3);
	attr_result_free(&r);
	agent_start(run_dir("held"), 1, 0, 10 * FX_MS);
	CHECK(explain(run_dir("held"), NULL, &r) == 0);
	CHECK_NEAR(r.observer_ns, 0, 1e3);
	check_sums(&r);
	attr_result_free(&r);

	halo(run_dir("unheld"), 40, 80, 40);
	CHECK(explain(run_dir("unheld"), NULL, &r) == 0);
	CHECK(r.observer_ns == 0);
	CHECK(r.observer_evidence[0] == '\0');
	c = find(&r, ATTR_STARTUP, NULL);
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, 40.0 * FX_MS, 1e3);
	attr_result_free(&r);
}

/* Both ranks lose half their work to the run queue: taking one node's load out gains
 * nothing while the other still holds the exchange back; together they cost half the
 * run, shared equally, and each halo that found its rank waiting the wake-up delay of one
 * competitor (0.75 ms with the default 3 ms slice). */
TEST(lockstep_shares)
{
	struct attr_result r;
	const struct attr_cause *a, *b;

	halo_wait0 = 40;
	halo(run_dir("both"), 80, 80, 40);
	halo_wait0 = 0;
	CHECK(explain(run_dir("both"), NULL, &r) == 0);
	a = find(&r, ATTR_CPU, "ws1");
	b = find(&r, ATTR_CPU, "ws2");
	CHECK(a != NULL);
	CHECK(b != NULL);
	if (a == NULL || b == NULL)
		return;
	/* alone: at most the 1 ms the exchange gains per iteration, and the wake-up */
	CHECK(a->cost_ns <= 1.75 * ITERS * FX_MS);
	CHECK(b->cost_ns <= 1.75 * ITERS * FX_MS);
	CHECK(r.cpu_all_ns >= 39.75 * ITERS * FX_MS);
	CHECK(r.cpu_all_ns <= 40.75 * ITERS * FX_MS);
	CHECK_NEAR(a->share_ns, r.cpu_all_ns / 2, FX_MS);
	CHECK_NEAR(b->share_ns, r.cpu_all_ns / 2, FX_MS);
	CHECK(r.interaction_ns > 37.0 * ITERS * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* A polling rank's wait broken by a stray busy interval: every idle stretch since its
 * previous message could go, not only the last one, so the faster sender's gain reaches it
 * whole (40 ms an iteration; 31 ms in the first, whose wait starts at the stray tick).
 * Rank 1 waited 40 ms for 40 ms of work: one competitor, whose wake-up delay (0.75 ms with
 * the default 3 ms slice) each of the 9 answers before its last work waited; its phase
 * begins with the answer, so that delay is inside the 40 ms and comes out once (taken out
 * at the answers, the rest of the wait spread over the phases: the first phase, whose gain
 * stops at 31 ms, keeps a tenth of the 9 delays, 0.68 ms, the others get it). */
TEST(stray_tick_in_a_wait)
{
	struct attr_result r;

	stray_tick(run_dir("stray"), 0);
	CHECK(explain(run_dir("stray"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_STR(r.c[0].host, "ws2");
	CHECK_NEAR(r.c[0].cost_ns, (31.0 + 40.0 * (ITERS - 1) + 0.075 * (ITERS - 1)) * FX_MS, 1e3);
	check_sums(&r);
	attr_result_free(&r);
}

/* A rank whose answers are slowed by CPU taken while it handles messages in system calls
 * (idle by demand, no busy phase at all): its node is named, each answer 5 ms sooner. */
TEST(slow_reply_idle_wait)
{
	struct attr_result r;
	const struct attr_cause *c;

	slow_reply(run_dir("reply"));
	CHECK(explain(run_dir("reply"), NULL, &r) == 0);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL))
		CHECK(r.c[0].kind == ATTR_CPU);
	if (CHECKED(c != NULL))
		CHECK(fabs(c->cost_ns - 5.0 * ITERS * FX_MS) < 1e3);
	if (CHECKED(c != NULL))
		CHECK(strstr(c->evidence, "rank 1 in idle time ran 50 % of its runnable time (100 %") != NULL);
	check_sums(&r);
	attr_result_free(&r);
}

/* slow_reply against a baseline where rank 1 answered 7 ms after the message, never on the
 * run queue: the competitor costs 3 ms an iteration, 30 ms. Scaled by the pace of its idle
 * time (half of the baseline's), its 10 ms gaps went to 5, 2 ms below the baseline's, and
 * the cause cost 50 ms (QR under a competitor, docs/explain.md, "The cpu cause on whole
 * cores"); no shorter than the baseline's, 30 ms. The ideal run keeps the pace
 * (ideal_gap_factor), 20 ms under the baseline: a known error. */
TEST(gaps_no_shorter_than_the_baseline)
{
	struct attr_result r;
	const struct attr_cause *c;

	slow_reply_in(run_dir("greply"), 10, true);
	slow_reply_in(run_dir("greply0"), 7, false);
	CHECK(explain(run_dir("greply"), run_dir("greply0"), &r) == 0);
	CHECK_NEAR(r.measured_ns - r.baseline_ns, 30.0 * FX_MS, 1);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, 30.0 * FX_MS, 1e3);
	CHECK_NEAR(r.residual_ns, -20.0 * FX_MS, 1e3);
	check_sums(&r);
	attr_result_free(&r);
}

/* A partial trace: a hidden rank pair on ws2 and gaps in the capture make the cpu cause on
 * ws2 uncertain, and the note says why; the same run whole has neither. */
TEST(partial_trace_said)
{
	struct attr_result r;
	char path[400];
	FILE *f;

	halo(run_dir("partial"), 40, 80, 40);
	CHECK(explain(run_dir("partial"), NULL, &r) == 0);
	if (CHECKED(r.n > 0)) {
		CHECK(!r.c[0].uncertain);
		CHECK(strstr(r.note, "partial") == NULL);
	}
	attr_result_free(&r);
	snprintf(path, sizeof path, "%s/profile/coverage.tsv", run_dir("partial"));
	CHECK((f = fopen(path, "w")) != NULL);
	fputs("# contend-coverage 1\nrank0\trank1\thost0\thost1\tnode\tmsgs\tstate\n"
	      "1\t2\tws2\tws2\tsame\t0\thidden\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/profile/stats.tsv", run_dir("partial"));
	CHECK((f = fopen(path, "w")) != NULL);
	fputs("# contend-stats 1\nkey\tvalue\ngaps\t3\npairs_local_hidden\t1\nwarnings\t1\ncomplete\tpartial\n", f);
	fclose(f);
	CHECK(explain(run_dir("partial"), NULL, &r) == 0);
	if (CHECKED(r.n > 0)) {
		CHECK(r.c[0].kind == ATTR_CPU);
		CHECK(r.c[0].uncertain);
	}
	CHECK(strstr(r.c[0].evidence, "uncertain: 1 rank pair on this node") != NULL);
	CHECK(strstr(r.note, "partial trace: 1 rank pairs on one node unseen") != NULL);
	CHECK(strstr(r.note, "3 gaps") != NULL);
	CHECK(strstr(r.note, "1 warnings") != NULL);
	attr_result_free(&r);
}

/* An answer that comes in a busy phase, between a send and the next within one sample
 * interval, was waited for: rank 1's faster work reaches rank 0 (4 ms a ping, but for the
 * first two, inside the first 20 ms of rank 0's phase). Rank 1 waited 4 ms for 4 ms of
 * work (one competitor); its phase begins with the ping, so the wake-up delay (0.75 ms)
 * is inside those 4 ms and each ping comes no more than 4 ms sooner. */
TEST(ping_pong_in_a_busy_phase)
{
	struct attr_result r;

	ping_pong(run_dir("ping"));
	CHECK(explain(run_dir("ping"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_STR(r.c[0].host, "ws2");
	CHECK(r.c[0].cost_ns >= 4.0 * (PINGS - 3) * FX_MS);
	CHECK(r.c[0].cost_ns <= 4.0 * PINGS * FX_MS + 1);
	check_sums(&r);
	attr_result_free(&r);
}

/* The wake-up term, on the stray-tick run with an 8 ms slice on ws2: each of rank 1's 9
 * answers before its last work found it waiting behind one competitor, 1/2 x 8 ms / 2 =
 * 2 ms for the CPU. When its busy phase begins with the answer (the interval read busy from
 * the arrival on), the samples counted those 2 ms in the phase's 40 ms of run-queue wait:
 * without the competitor the work takes 40 ms from the arrival, 40 ms saved an iteration
 * (the term on top of the wait counted it twice: 31 + 9 x 42 = 409 ms; now the first
 * phase keeps a tenth of the delays, as above, 391 + 1.8 ms). When the rank reads idle
 * for the 2 ms and its phase begins after them, the wait holds none of it and the
 * counterfactual saves 42 ms an iteration: 33 + 9 x 42 ms (rank 0's first wait, from
 * the stray tick, is 2 ms longer here). */
TEST(wake_up_taken_out)
{
	struct attr_result r;

	stray_tick(run_dir("wake"), 0);
	fx_meta(run_dir("wake"), "node-ws2.tsv", "sched_slice_ns", "8000000");
	CHECK(explain(run_dir("wake"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_STR(r.c[0].host, "ws2");
	CHECK_NEAR(r.c[0].cost_ns, (31.0 + 40.0 * (ITERS - 1) + 0.2 * (ITERS - 1)) * FX_MS, 1e3);
	CHECK(strstr(r.c[0].evidence, "waited 2.00 ms more for the CPU") != NULL);
	check_sums(&r);
	attr_result_free(&r);

	stray_tick(run_dir("wake2"), 2);
	fx_meta(run_dir("wake2"), "node-ws2.tsv", "sched_slice_ns", "8000000");
	CHECK(explain(run_dir("wake2"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_NEAR(r.c[0].cost_ns, (33.0 + 42.0 * (ITERS - 1)) * FX_MS, 1e3);
	check_sums(&r);
	attr_result_free(&r);
}

/* One wake-up for messages that come together: the wake-up run above, rank 0 answering
 * with two messages 20 us apart (the pieces of a collective). Rank 1 waited for the CPU
 * once, when the first came, and found the second there: its phases' run-queue wait holds
 * one 2 ms delay an iteration, and without the competitor the work takes 40 ms from the
 * arrival, 40 ms saved an iteration, as with one message (31 + 9 x 40 = 391 ms). The delay
 * was taken out at the first receive and kept out of the phases (1.8 ms each, the first
 * phase keeping its tenth), and the second, needed on arrival with no idle time since the
 * first, took it back: 374.7 ms. Now the first gives no delay back (its rank's next event
 * receives a message that came within the delay), the phases keep none of it: 390.9 ms
 * (the second holds back the shortening of the 20 us before it, 0.01 ms an iteration). */
TEST(wake_up_once_for_messages_together)
{
	struct attr_result r;

	stray_second_us = 20;
	stray_tick(run_dir("wake_pair"), 0);
	stray_second_us = 0;
	fx_meta(run_dir("wake_pair"), "node-ws2.tsv", "sched_slice_ns", "8000000");
	CHECK(explain(run_dir("wake_pair"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_STR(r.c[0].host, "ws2");
	CHECK_NEAR(r.c[0].cost_ns, (31.0 + 40.0 * (ITERS - 1)) * FX_MS, 0.1 * FX_MS);
	CHECK(strstr(r.c[0].evidence, "waited 2.00 ms more for the CPU") != NULL);
	check_sums(&r);
	attr_result_free(&r);
}

/* Co-located ranks: the halo exchange with both ranks on ws1, one CPU (cpu_capacity 1).
 * Rank 1 waited 40 ms of its 80 ms busy phases; rank 0 was busy half of that time, so
 * sharing the CPU with it accounts for 40 x (1.5 - 1) = 20 ms of the wait, and 20 ms an
 * iteration was another process's (predict/coloc.h). Taken as two always-busy ranks
 * (capacity / 2 each), the whole wait was the ranks' own and no cpu cause was named. */
TEST(co_located_ranks_share_the_cpu)
{
	const char *dir = run_dir("coloc");
	struct attr_result r;
	const struct attr_cause *c;
	FILE *f;

	halo(dir, 40, 80, 40);
	f = fx_open(dir, "ranks.tsv", FX_RANK_HDR);
	for (int k = 0; k < 2; k++)
		fprintf(f, "%d\tws1\t%lld\t50\t0\t50\t1\t1\t1\t1\t50\t1\t%lld\t1\t1\t1\t1\n", k,
			ITERS * P_MS * FX_MS, k == 1 ? ITERS * 40 * FX_MS : 0);
	fclose(f);
	fx_meta(dir, "rank-0.tsv", "cpu_capacity", "1");
	fx_meta(dir, "rank-1.tsv", "cpu_capacity", "1");
	CHECK(explain(dir, NULL, &r) == 0);
	c = find(&r, ATTR_CPU, "ws1");
	if (CHECKED(c != NULL))
		CHECK(r.c[0].kind == ATTR_CPU);
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= 19.0 * ITERS * FX_MS);
		CHECK(c->cost_ns <= 20.0 * ITERS * FX_MS);
	}
	if (CHECKED(c != NULL))
		CHECK(strstr(c->evidence, "run-queue wait 0.200 s of 1.200 s busy") != NULL);
	check_sums(&r);
	attr_result_free(&r);
}

TEST(slow_link_named)
{
	struct attr_result r;

	slow_link(run_dir("link"));
	CHECK(explain(run_dir("link"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_LINK);
	CHECK_STR(r.c[0].where, "ws1-ws2");
	/* 9 transfers of 100 ms that took 10 ms at the pair's best */
	CHECK_NEAR(r.c[0].cost_ns, 9 * 90.0 * FX_MS, 1 * FX_MS);
	CHECK(find(&r, ATTR_CPU, NULL) == NULL);
	check_sums(&r);
	attr_result_free(&r);
}

/* RUN/profile/conns.tsv: one connection between ranks 0 and 1 with this handshake. */
static void
conns(const char *dir, long long rtt_ns)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof path, "%s/profile/conns.tsv", dir);
	if ((f = fopen(path, "w")) == NULL)
		exit(2);
	fprintf(f, "# contend-conns 1\nconn\trank0\trank1\trtt_ns\n1\t0\t1\t%lld\n2\t1\t0\t-1\n", rtt_ns);
	fclose(f);
}

/* The link's handshake round trip against the baseline's (whose link moved every
 * transfer at 100 MB/s) is in its evidence. */
TEST(link_round_trip_evidence)
{
	struct attr_result r;

	slow_link(run_dir("rtt"));
	conns(run_dir("rtt"), 400000);
	slow_link_at(run_dir("rtt0"), 10);
	conns(run_dir("rtt0"), 100000);
	CHECK(explain(run_dir("rtt"), run_dir("rtt0"), &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_LINK);
	CHECK(strstr(r.c[0].evidence, "handshake round trip 400 us against 100 us (baseline): inflated") != NULL);
	attr_result_free(&r);
	slow_link(run_dir("rtt1"));
	conns(run_dir("rtt1"), 100000);
	CHECK(explain(run_dir("rtt1"), NULL, &r) == 0);
	if (CHECKED(r.n > 0)) {
		CHECK(strstr(r.c[0].evidence, "round trip 100 us against 100 us (fastest pair)") != NULL);
		CHECK(strstr(r.c[0].evidence, "inflated") == NULL);
	}
	attr_result_free(&r);
}

TEST(imbalance_names_the_late_rank)
{
	struct attr_result r;
	const struct attr_cause *c;

	halo(run_dir("imb"), 40, 80, 0);
	CHECK(explain(run_dir("imb"), NULL, &r) == 0);
	c = find(&r, ATTR_IMBALANCE, NULL);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_IMBALANCE);
	if (CHECKED(c != NULL))
		CHECK(c->rank == 1);
	/* own work 40 and 80 ms, mean 60: rank 1 20 ms sooner per iteration, less the 1 ms
	 * the exchange takes more every other iteration */
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= 19.0 * ITERS * FX_MS);
		CHECK(c->cost_ns <= 20.0 * ITERS * FX_MS);
	}
	CHECK(find(&r, ATTR_CPU, NULL) == NULL);
	check_sums(&r);
	attr_result_free(&r);
}

/* A halo exchange paced by its slower rank: rank r works w[r] ms, wait[r] of them on the
 * run queue, sends its halo (1 ms on the wire) and goes on once the other's has come: each
 * iteration is max(w) + 2 ms (returned); ITERS of them from t0 into m and ph. */
static long long
halo_iters(FILE *m, FILE *ph, long long t0, const long long *w, const long long *wait)
{
	long long per = (w[0] > w[1] ? w[0] : w[1]) + 2;

	for (int k = 0; k < ITERS; k++) {
		long long t = t0 + k * per * FX_MS;

		for (int r = 0; r < 2; r++) {
			phase(ph, r, "busy", t, t + w[r] * FX_MS, wait[r] * FX_MS);
			phase(ph, r, "idle", t + w[r] * FX_MS, t + per * FX_MS, 0);
			msg(m, t + w[r] * FX_MS, t + (w[r] + 1) * FX_MS, r, 1 - r, 4000);
		}
	}
	return per;
}

static void
halo_paced(const char *dir, const long long *w, const long long *wait)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long per = halo_iters(m, ph, FX_BASE_NS, w, wait);

	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * per * FX_MS, ITERS * wait[1] * FX_MS);
}

TEST(baseline_leaves_the_difference)
{
	struct attr_result r;
	const struct attr_cause *c;

	halo(run_dir("ded"), 40, 40, 0);
	halo(run_dir("loaded"), 40, 80, 40);
	CHECK(explain(run_dir("loaded"), run_dir("ded"), &r) == 0);
	CHECK_NEAR(r.baseline_ns, (double)(ITERS * P_MS * FX_MS), 1);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_STR(r.c[0].host, "ws2");
	/* start-up and finish as in the baseline: no cost */
	c = find(&r, ATTR_STARTUP, NULL);
	if (CHECKED(c != NULL))
		CHECK(fabs(c->cost_ns) < 1);
	check_sums(&r);
	/* the same program dedicated waits 2 x 41 ms per iteration: the baseline itself is as
	 * long as the run (P_MS) so the ideal is below it and the residual negative */
	CHECK(r.residual_ns <= 0);
	attr_result_free(&r);

	/* a baseline run that waited as much: nothing left for the cpu cause */
	CHECK(explain(run_dir("loaded"), run_dir("loaded"), &r) == 0);
	CHECK(find(&r, ATTR_CPU, NULL) == NULL);
	CHECK_NEAR(r.residual_ns, 0, 1);
	attr_result_free(&r);
}

/* Against a baseline where both ranks work 40 ms, rank 1 behind a CPU competitor is busy
 * 80 ms: 30 on the run queue and 50 run, 10 more than its own work in the baseline (a
 * polling loop that read busy, or work the competitor slowed). The loaded run's 82 ms
 * iterations are 42 ms without the competitor: it cost 400 ms. Taking out only the
 * run-queue wait left rank 1 at 50 ms (300 ms, and an ideal run at the mean own work,
 * 45 ms, 50 ms above the baseline); its own work beyond the baseline's now goes with its
 * node's cause, and no rank keeps it in the ideal run.
 *
 * Then rank 0 (no competitor on ws1) also reads busy 50 ms, 10 ms of its wait for rank 1
 * read busy: that is no cause of its node, and the ideal run is still the baseline's. ws2's
 * cause alone left it, rank 0 sending 9 ms later than it would, and cost 302 ms; rank 0's
 * time that is not waiting grew with its wait and now shrinks with it (replay_in free_f,
 * docs/explain.md "Polling that grows with the wait"): 369 ms, the error that remains. */
TEST(own_work_above_the_baseline_taken_out)
{
	static const long long wd[2] = { 40, 40 }, wt0[2] = { 0, 0 }, wt1[2] = { 0, 30 };
	static const long long wl[2] = { 40, 80 }, wl0[2] = { 50, 80 };
	struct attr_result r;
	const struct attr_cause *c;

	halo_paced(run_dir("own-ded"), wd, wt0);
	halo_paced(run_dir("own-loaded"), wl, wt1);
	CHECK(explain(run_dir("own-loaded"), run_dir("own-ded"), &r) == 0);
	CHECK_NEAR(r.measured_ns - r.baseline_ns, 400.0 * FX_MS, 1);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL)) {
		CHECK(r.c[0].kind == ATTR_CPU);
		CHECK_STR(r.c[0].host, "ws2");
	}
	/* rank 1 sends 40 ms sooner, rank 0's halo 1 ms later than its first iteration's */
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= 390.0 * FX_MS);
		CHECK(c->cost_ns <= 400.0 * FX_MS);
	}
	CHECK(fabs(r.residual_ns) <= 10.0 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);

	halo_paced(run_dir("own-loaded0"), wl0, wt1);
	CHECK(explain(run_dir("own-loaded0"), run_dir("own-ded"), &r) == 0);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= 360.0 * FX_MS);
		CHECK(c->cost_ns <= 380.0 * FX_MS);
	}
	CHECK(find(&r, ATTR_CPU, "ws1") == NULL);
	CHECK(fabs(r.residual_ns) <= 10.0 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

TEST(starved_rank_by_demand)
{
	struct attr_result r;
	struct prof p;
	struct evid v;
	struct err e;

	starved(run_dir("starved"));
	CHECK(prof_load(&p, run_dir("starved"), &e) == 0);
	evid_load(&v, &p);
	CHECK(v.have_demand);
	/* rank 1 busy by demand 80 ms of each iteration, 48 ms of it waiting */
	CHECK_NEAR(v.rank[1].busy_wait_ns, 48.0 * ITERS * FX_MS, 1);
	evid_free(&v);
	prof_free(&p);
	CHECK(explain(run_dir("starved"), NULL, &r) == 0);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_STR(r.c[0].host, "ws2");
	/* rank 1 needs 32 ms, rank 0 40 ms: about 40 ms saved per iteration */
	CHECK(r.c[0].cost_ns >= 35.0 * ITERS * FX_MS);
	CHECK(r.c[0].cost_ns <= 41.0 * ITERS * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* An exchange whose rank 1 (ws2) waits 15 ms of each 55 ms busy phase on the run queue
 * (15 ms for 40 of work: under half a competitor, no wake-up term), while rank 0's work
 * alternates 60 and 50 ms so that each side sends first half the time. The cpu cause costs
 * what the same program without the wait saves (xchg_sim), 34 ms: rank 1's send was posted
 * with its receive and leaves 15 ms sooner whatever rank 0's message does. explain reads
 * it without the exchange rule (the receive of rank 0's half chained before rank 1's send:
 * on real programs the rule misread request/answer pairs, docs/explain.md, "Exchanges"),
 * and so gives 10 ms: the test pins that known error. */
TEST(exchange_under_a_cpu_competitor_chained)
{
	struct xchg x = { .wait = { 0, 15 }, .get = 3, .wire = 1, .first_wire = 1, .bytes = 4000 };
	double T, T0;
	struct attr_result r;
	const struct attr_cause *c;

	for (int k = 0; k < ITERS; k++) {
		x.work[0][k] = k % 2 ? 50 : 60;
		x.work[1][k] = 40;
	}
	T = xchg_sim(run_dir("xcpu"), &x);

	x.wait[1] = 0;
	T0 = xchg_sim(NULL, &x);
	CHECK(explain(run_dir("xcpu"), NULL, &r) == 0);
	CHECK_NEAR(r.measured_ns, T, 1);
	c = find(&r, ATTR_CPU, "ws2");
	CHECK_NEAR(T - T0, 34.0 * FX_MS, 0.5 * FX_MS);	/* the truth */
	CHECK(c != NULL);
	if (c != NULL)	/* the chained reading's known error */
		CHECK_NEAR(c->cost_ns, 10.0 * FX_MS, 0.5 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* An exchange of 1 MB halves over a link 4 times slower than in its first iteration (20 ms
 * against 5 ms on the wire); each half leaves 8 ms after its rank's busy phase, the second
 * 5 ms after the first arrived (the works below). Taking the link out saves what the same
 * program at 5 ms a transfer does, 135 ms: the second send does not wait for the first
 * message, so it leaves no sooner when the first comes sooner. explain reads it chained
 * (above) and gives 138 ms: the 3 ms the second sender sat idle before the first's arrival
 * read as waiting for it. The test pins that known error. */
TEST(exchange_under_a_slow_link_chained)
{
	struct xchg x = { .get = 8, .wire = 20, .first_wire = 5, .bytes = 1000000 };
	double T, T0;
	struct attr_result r;
	const struct attr_cause *c;

	/* the second sender leaves 5 ms after the first's arrival: first rank 0 (its work 10
	 * ms over rank 1's), then rank 1 (it starts 5 ms late, the first transfer), then the
	 * rank that was first, which starts a transfer (20 ms) late */
	x.work[0][0] = 50;
	x.work[1][0] = 40;
	x.work[0][1] = 40;
	x.work[1][1] = 60;
	for (int k = 2; k < ITERS; k++) {
		x.work[k % 2][k] = 45;
		x.work[1 - k % 2][k] = 40;
	}
	T = xchg_sim(run_dir("xlink"), &x);

	x.wire = 5;
	T0 = xchg_sim(NULL, &x);
	CHECK(explain(run_dir("xlink"), NULL, &r) == 0);
	CHECK_NEAR(r.measured_ns, T, 1);
	c = find(&r, ATTR_LINK, NULL);
	if (CHECKED(c != NULL))
		CHECK(r.c[0].kind == ATTR_LINK);
	CHECK_NEAR(T - T0, 135.0 * FX_MS, 0.5 * FX_MS);	/* the truth */
	if (c != NULL)	/* the chained reading's known error */
		CHECK_NEAR(c->cost_ns, 138.0 * FX_MS, 0.5 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* Rank 1's iteration from t, per ms long: busy w1 ms (beyond 40 on the run queue), then
 * its message to rank 0 (1 ms on the wire). */
static void
sender1(FILE *ph, FILE *m, long long t, long long w1, long long per)
{
	phase(ph, 1, "busy", t, t + w1 * FX_MS, (w1 - 40) * FX_MS);
	phase(ph, 1, "idle", t + w1 * FX_MS, t + per * FX_MS, 0);
	msg(m, t + w1 * FX_MS, t + (w1 + 1) * FX_MS, 1, 0, 4000);
}

/* Rank 1 (ws2) works 40 ms (with a competitor: 80 ms, 40 on the run queue) and sends to
 * rank 0, which works work ms on it and answers. Loaded, rank 0 polls while it waits: with
 * work 40, 70 ms of its 82 ms wait read busy, 12 idle; with work 10 (a reply), it reads
 * busy from its last answer to the next, no idle time between its events. In the baseline
 * it waits idle. */
static void
poll_wait(const char *dir, bool loaded, long long work)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long w1 = loaded ? 80 : 40, per = w1 + work + 2;

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * per * FX_MS;

		sender1(ph, m, t, w1, per);
		msg(m, t + (w1 + work + 1) * FX_MS, t + per * FX_MS, 0, 1, 4000);
		if (loaded && work < 20) {
			phase(ph, 0, "busy", t, t + per * FX_MS, 0);
			continue;
		}
		if (loaded) {
			phase(ph, 0, "idle", t, t + 3 * FX_MS, 0);
			phase(ph, 0, "busy", t + 3 * FX_MS, t + 73 * FX_MS, 0);
			phase(ph, 0, "idle", t + 73 * FX_MS, t + (w1 + 1) * FX_MS, 0);
		} else {
			phase(ph, 0, "idle", t, t + (w1 + 1) * FX_MS, 0);
		}
		phase(ph, 0, "busy", t + (w1 + 1) * FX_MS, t + (w1 + work + 1) * FX_MS, 0);
		phase(ph, 0, "idle", t + (w1 + work + 1) * FX_MS, t + per * FX_MS, 0);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * per * FX_MS, ITERS * (w1 - 40) * FX_MS);
}

/* poll_wait's runs, loaded against the baseline: the cpu cause on ws2 costs want_ms, and
 * rank 0's polling is no cpu cause of its own node, and no cost of nothing. */
static void
check_poll_wait(long long work, double want_ms, double tol_ms)
{
	struct attr_result r;
	const struct attr_cause *c;

	poll_wait(run_dir("poll"), true, work);
	poll_wait(run_dir("poll0"), false, work);
	CHECK(explain(run_dir("poll"), run_dir("poll0"), &r) == 0);
	c = find(&r, ATTR_CPU, "ws2");
	CHECK(r.c[0].kind == ATTR_CPU);
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, want_ms * FX_MS, tol_ms * FX_MS);
	c = find(&r, ATTR_CPU, "ws1");
	CHECK_MSG(c == NULL || c->cost_ns <= 5.0 * FX_MS, "a cpu cause on ws1 of %.3f ms, expected none or at most 5 ms",
		  c != NULL ? c->cost_ns / FX_MS : 0.0);
	check_sums(&r);
	attr_result_free(&r);
}

/* The competitor costs 40 ms an iteration (122 against 82), 400 ms. Without it rank 1's
 * message comes 40 ms sooner, and rank 0, which was waiting for it, takes it sooner: its
 * 70 ms of polling that read busy (its own work beyond the baseline's) is waiting too.
 * Read as work, only the 12 idle ms of each wait could go (about 130 ms in all). */
TEST(polling_read_busy_waits)
{
	check_poll_wait(40, 400, 20);
}

/* The ideal run of polling_read_busy_waits. Rank 0 is busy 110 ms an iteration against 40 in
 * the baseline: 70 ms of polling before rank 1's message, which poll_shares places as
 * waiting (poll_f 1), and its 40 ms of work after it. The ideal run took the 70 ms out as
 * work as well, over all 110 ms (factor 40 / 110): the polling went twice and the work was
 * cut to 14.5 ms, the run 294.5 ms below the baseline's 820. The factor now brings only the
 * busy time left as work to the baseline's 40 ms: the replay gives 820 ms. The 40 ms left
 * are the start-up's: its excess (rank 1's first phase, 80 ms against 40) is taken off after
 * the replay, which has shortened that phase already. */
TEST(ideal_run_takes_polling_out_once)
{
	struct attr_result r;

	poll_wait(run_dir("ipoll"), true, 40);
	poll_wait(run_dir("ipoll0"), false, 40);
	CHECK(explain(run_dir("ipoll"), run_dir("ipoll0"), &r) == 0);
	CHECK_NEAR(r.baseline_ns, 820.0 * FX_MS, 1);
	CHECK(r.residual_ns >= -41.0 * FX_MS);
	CHECK(r.residual_ns <= 1.0 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* Rank 1 (ws2) works 40 ms (with a competitor: 80 ms, 40 on the run queue) and sends to
 * rank 0, which works 10 ms on it and answers. Loaded, rank 0's idle phase, which waited
 * for the message, ends 10 ms past its arrival (where the samples put its end): 10 ms of
 * idle time between the receive and the answer, a gap; in the baseline it has none. */
static void
late_idle_end(const char *dir, bool loaded)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long w1 = loaded ? 80 : 40, gap = loaded ? 10 : 0, per = w1 + gap + 12;

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * per * FX_MS;

		sender1(ph, m, t, w1, per);
		msg(m, t + (w1 + gap + 11) * FX_MS, t + per * FX_MS, 0, 1, 4000);
		phase(ph, 0, "idle", t, t + (w1 + gap + 1) * FX_MS, 0);
		phase(ph, 0, "busy", t + (w1 + gap + 1) * FX_MS, t + (w1 + gap + 11) * FX_MS, 0);
		phase(ph, 0, "idle", t + (w1 + gap + 11) * FX_MS, t + per * FX_MS, 0);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * per * FX_MS, ITERS * (w1 - 40) * FX_MS);
}

/* The ideal run of late_idle_end's loaded run. Rank 0 has 10 ms of gap before each answer
 * against none in the baseline: idle time that waited for the loaded rank 1, read as rank
 * 0's own. Kept whole (rank 0 has no competitor: gap factor 1), the ideal run was 99.3 ms
 * over the baseline's 520; with no more gap time than the baseline's it is 0.7 ms under.
 *
 * The cpu cause: the competitor costs 50 ms an iteration (102 against 52), 500 ms: rank
 * 1's 40 ms on the run queue, and the 10 ms by which rank 0's idle phase ran past the
 * arrival, which grew with its wait (41 ms in the baseline, 81 here). The cause's replay
 * brought rank 1's message 40 ms sooner and kept rank 0's gap: 400 ms. Rank 0 has no
 * competitor, its time between its events less its waits grew 10 ms an iteration for 40
 * ms more waiting, and a quarter of each ns the replay takes off its wait now goes with
 * it (replay_in free_f): 500 ms; ws1 has no cause. */
TEST(ideal_run_keeps_no_gaps_beyond_the_baseline)
{
	struct attr_result r;
	const struct attr_cause *c;

	late_idle_end(run_dir("igap"), true);
	late_idle_end(run_dir("igap0"), false);
	CHECK(explain(run_dir("igap"), run_dir("igap0"), &r) == 0);
	CHECK_NEAR(r.baseline_ns, 520.0 * FX_MS, 1);
	CHECK(r.residual_ns >= -5.0 * FX_MS);
	CHECK(r.residual_ns <= 5.0 * FX_MS);
	CHECK_NEAR(r.measured_ns - r.baseline_ns, 500.0 * FX_MS, 1);
	c = find(&r, ATTR_CPU, "ws2");
	CHECK(r.c[0].kind == ATTR_CPU);
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, 500.0 * FX_MS, 5.0 * FX_MS);
	c = find(&r, ATTR_CPU, "ws1");
	CHECK(c == NULL || c->cost_ns <= 1.0 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* free_f on late_idle_end's loaded run (rank 0 at 1). With nothing else changed no wait
 * is shortened, and the run replays as measured. With rank 1's busy time halved (40 ms
 * an iteration sooner) rank 0's waits shorten and it goes on that much sooner again; with
 * free_max_ns it gives back no more than that in all (10 ms). */
TEST(free_f_goes_with_shortened_waits)
{
	struct prof p;
	struct replay_trace x;
	struct replay_out o = { 0 };
	struct replay_in in = { 0 };
	struct err e;
	double ff[2] = { 1, 0 }, f[2] = { 1, 0.5 }, most[2] = { 10.0 * FX_MS, 0 }, base, freed, capped;

	late_idle_end(run_dir("wgap1"), true);
	if (!CHECKED(prof_load(&p, run_dir("wgap1"), &e) == 0))
		return;
	replay_trace_init(&x, &p, REPLAY_MEASURED);
	in.free_f = ff;
	CHECK(replay_run(&x, &in, &o, &e) == 0);
	CHECK_NEAR(o.run_ns, (double)prof_dedicated_ns(&p), 1);
	in = (struct replay_in){ .busy_f = f };
	CHECK(replay_run(&x, &in, &o, &e) == 0);
	base = o.run_ns;
	in.free_f = ff;
	CHECK(replay_run(&x, &in, &o, &e) == 0);
	freed = o.run_ns;
	in.free_max_ns = most;
	CHECK(replay_run(&x, &in, &o, &e) == 0);
	capped = o.run_ns;
	CHECK(freed < capped);
	CHECK(capped < base);
	CHECK(base - capped <= 10.0 * FX_MS + 1);
	replay_trace_free(&x);
	prof_free(&p);
}

/* The competitor costs 40 ms an iteration (92 against 52), 400 ms. Rank 0 replied to each
 * message inside the phase it came in, needed on arrival, but with no idle time since its
 * previous event its W was 0: its 81 ms of polling before the message read as work (in
 * the split by what follows, busy with earlier work, where no share of the polling went),
 * and the faster rank 1's gain stopped there: 39.3 ms, its wake-up delays. A receive
 * needed on arrival now takes the polling share whatever its idle time, as one that found
 * the rank waiting after idle time does (REPLAY_SPLIT_WAITED, replay_in poll_f): 400 ms.
 * 401 ms since rank 0's own work beyond the baseline's goes with ws2's competitor
 * (free_grown): before its first receive, which has no previous event to measure a wait
 * from, its 81 ms of polling read as work, and 1 ms of it now goes too. */
TEST(polling_before_a_reply_waits)
{
	check_poll_wait(10, 401, 0.5);
}

/* Rank 1 (ws2) works 10 ms an iteration (with a competitor 20, 10 on the run queue) and
 * sends to rank 0 (1 ms on the wire); rank 0 works 5 ms on it and sends to rank 1, whose
 * work the message comes in: rank 1 sends next within the samples' grain, so it reads as
 * rank 1's answer, needed on arrival. Dedicated, rank 0's work reads busy; loaded, it
 * lies in intervals rank 0 spent mostly polling in the kernel, reads idle, and took 7 ms:
 * a gap (LAMMPS's unloaded rank under Open MPI, docs/explain.md). */
static void
answer_after_a_gap(const char *dir, bool loaded)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long w1 = loaded ? 20 : 10, w0 = loaded ? 7 : 5, per = w1 + 1;

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * per * FX_MS;

		phase(ph, 0, loaded ? "idle" : "busy", t, t + w0 * FX_MS, 0);
		msg(m, t + w0 * FX_MS, t + (w0 + 1) * FX_MS, 0, 1, 4000);
		phase(ph, 0, "idle", t + w0 * FX_MS, t + per * FX_MS, 0);
		phase(ph, 1, "busy", t, t + w1 * FX_MS, (w1 - 10) * FX_MS);
		msg(m, t + w1 * FX_MS, t + per * FX_MS, 1, 0, 4000);
		phase(ph, 1, "idle", t + w1 * FX_MS, t + per * FX_MS, 0);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * per * FX_MS, ITERS * (w1 - 10) * FX_MS);
}

/* answer_after_a_gap, loaded against dedicated: the competitor costs 10 ms an iteration,
 * 100 ms. The cause's replay made rank 1's work shorter, but rank 1 needed rank 0's
 * message, which left after rank 0's 7 ms gap: the cause cost 30 ms. With ws2's
 * competitor out, rank 0 (no competitor) keeps no more own work and gaps together than
 * the baseline's 5 ms (free_grown): its gap is 5 ms, the message arrives at 6, and rank 1,
 * whose work before it (8 ms of 20) went to 4.3, waits for it and does the 6.45 ms after
 * it: 12.7 ms an iteration, 82.7 ms. The rest is the answer's reading: rank 1's work goes
 * on past the message dedicated as loaded, but a message that comes within the samples'
 * grain of both of its receiver's sends reads as awaited (docs/explain.md, "Method"). */
TEST(unloaded_gaps_go_with_the_competitor)
{
	struct attr_result r;
	const struct attr_cause *c;

	answer_after_a_gap(run_dir("agap"), true);
	answer_after_a_gap(run_dir("agap0"), false);
	CHECK(explain(run_dir("agap"), run_dir("agap0"), &r) == 0);
	CHECK_NEAR(r.measured_ns - r.baseline_ns, 100.0 * FX_MS, 1);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, 82.7 * FX_MS, 0.1 * FX_MS);
	c = find(&r, ATTR_CPU, "ws1");
	CHECK(c == NULL || c->cost_ns <= 1.0 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* Rank 0 sends a ping to rank 1 (ws2, an 8 ms slice), whose busy phase begins with it:
 * 2 ms of work (with a competitor 3, 1 on the run queue), then the pong; rank 0 works 2 ms
 * on it and pings again. */
static void
fast_pings(const char *dir, bool loaded)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long w1 = loaded ? 6 : 4, per = w1 + 6;	/* half ms */

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * per * FX_MS / 2;

		msg(m, t, t + FX_MS / 2, 0, 1, 100);
		phase(ph, 0, "idle", t, t + (w1 + 2) * FX_MS / 2, 0);
		phase(ph, 1, "idle", t, t + FX_MS / 2, 0);
		phase(ph, 1, "busy", t + FX_MS / 2, t + (w1 + 1) * FX_MS / 2, (w1 - 4) * FX_MS / 2);
		msg(m, t + (w1 + 1) * FX_MS / 2, t + (w1 + 2) * FX_MS / 2, 1, 0, 100);
		phase(ph, 1, "idle", t + (w1 + 1) * FX_MS / 2, t + per * FX_MS / 2, 0);
		phase(ph, 0, "busy", t + (w1 + 2) * FX_MS / 2, t + per * FX_MS / 2, 0);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * per * FX_MS / 2, ITERS * (w1 - 4) * FX_MS / 2);
	fx_meta(dir, "node-ws2.tsv", "sched_slice_ns", "8000000");
}

/* fast_pings, loaded against dedicated: the competitor costs 1 ms a ping, 10 ms. One
 * competitor and an 8 ms slice make a 2 ms wake-up delay, twice the run-queue wait the
 * phase that holds it had: taken off each ping, it cost 20 ms. The delays taken out now
 * come to no more than that wait (QR's 21818 receives, docs/explain.md): 10 ms. */
TEST(wake_ups_within_the_wait)
{
	struct attr_result r;
	const struct attr_cause *c;

	fast_pings(run_dir("pings"), true);
	fast_pings(run_dir("pings0"), false);
	CHECK(explain(run_dir("pings"), run_dir("pings0"), &r) == 0);
	CHECK_NEAR(r.measured_ns - r.baseline_ns, 10.0 * FX_MS, 1);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, 10.0 * FX_MS, 0.5 * FX_MS);
	if (CHECKED(c != NULL))
		CHECK(strstr(c->evidence, "waited 2.00 ms more for the CPU") != NULL);
	check_sums(&r);
	attr_result_free(&r);
}

/* Rank 0 works 20 ms and sends three 1 MB messages to rank 1, one after another: 10 ms
 * each at the pair's best (iteration 0), 100 ms after; each waits, with rank 0 idle, for
 * the one before to leave the link, and from iteration 1 tok_ms more after its last byte
 * (a token bucket refilling for the next message's first segment). Rank 1 works 20 ms on
 * the three and answers. */
static void
queued_link(const char *dir, long long tok_ms)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS;

	for (int k = 0; k < ITERS; k++) {
		long long x = (k == 0 ? 10 : 100) * FX_MS, tok = (k == 0 ? 0 : tok_ms) * FX_MS;
		long long done = t + 20 * FX_MS + 3 * x + 2 * tok;

		phase(ph, 0, "busy", t, t + 20 * FX_MS, 0);
		phase(ph, 0, "idle", t + 20 * FX_MS, done + 21 * FX_MS, 0);
		for (int j = 0; j < 3; j++)
			msg(m, t + 20 * FX_MS + j * (x + tok), t + 20 * FX_MS + j * (x + tok) + x, 0, 1, 1000000);
		phase(ph, 1, "idle", t, done, 0);
		phase(ph, 1, "busy", done, done + 20 * FX_MS, 0);
		msg(m, done + 20 * FX_MS, done + 21 * FX_MS, 1, 0, 100);
		phase(ph, 1, "idle", done + 20 * FX_MS, done + 21 * FX_MS, 0);
		t = done + 21 * FX_MS;
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, t - FX_BASE_NS, 0);
}

/* queued_link explained alone: the link first at cost_ms, its evidence saying so. */
static void
check_queued(const char *dir, long long tok_ms, double cost_ms, const char *evidence)
{
	struct attr_result r;
	const struct attr_cause *c;

	queued_link(dir, tok_ms);
	CHECK(explain(dir, NULL, &r) == 0);
	c = find(&r, ATTR_LINK, NULL);
	CHECK(r.c[0].kind == ATTR_LINK);
	if (CHECKED(c != NULL)) {
		CHECK(fabs(c->cost_ns - cost_ms * FX_MS) <= 1.0 * FX_MS);
		CHECK(strstr(c->evidence, evidence) != NULL);
	}
	check_sums(&r);
	attr_result_free(&r);
}

/* At the pair's best each of iterations 1-9 takes 3 x 90 ms less: the second and third
 * messages leave as soon as the one before has (at 100 MB/s), not 100 ms later. Without
 * the queue only the last message's 90 ms would go: 810 ms. */
TEST(queue_behind_a_slow_link)
{
	check_queued(run_dir("queue"), 0, 9 * 270.0, "their senders waited 1.620 s behind them");
}

/* As queue_behind_a_slow_link, with 5 ms between one message's last byte and the next's
 * first (the cap's token bucket refilling for a segment; LAMMPS under a 20 Mbit/s cap:
 * 0.6 ms against 0.02 dedicated): that wait shrinks as the message behind it does, by 90
 * % at the pair's best: 9 x (270 + 2 x 4.5) ms. It was left as the sender's gap: 2430 ms. */
TEST(token_wait_behind_a_slow_link)
{
	check_queued(run_dir("tokens"), 5, 9 * 279.0, "their senders waited 1.701 s behind them");
}

/* Rank 0 works 20 ms and sends rank 1 bytes (under 16 KiB), wire_us on the wire and
 * late_us more from iteration 1 (held in a queue on the way: with both ends captured the
 * arrival is the receiver's); rank 1 waits for it, works 20 ms and answers with 100 bytes
 * (50 us). Then, with tail, rank 0 sends rank 1 100 bytes (50 us: the pair's fastest) and,
 * with bulk too, 1 MB at 100 MB/s (the pair's best throughput). */
static void
queued_small(const char *dir, long long bytes, long long wire_us, long long late_us, bool tail, bool bulk)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS, us = FX_MS / 1000;

	for (int k = 0; k < ITERS; k++) {
		long long at = t + 20 * FX_MS + (wire_us + (k == 0 ? 0 : late_us)) * us, back = at + 20 * FX_MS;

		phase(ph, 0, "busy", t, t + 20 * FX_MS, 0);
		msg(m, t + 20 * FX_MS, at, 0, 1, bytes);
		phase(ph, 0, "idle", t + 20 * FX_MS, back + 50 * us, 0);
		phase(ph, 1, "idle", t, at, 0);
		phase(ph, 1, "busy", at, back, 0);
		msg(m, back, back + 50 * us, 1, 0, 100);
		phase(ph, 1, "idle", back, back + 50 * us, 0);
		t = back + 50 * us;
	}
	if (tail) {
		long long end = t + 50 * us + (bulk ? 10 * FX_MS : 0);

		msg(m, t, t + 50 * us, 0, 1, 100);
		if (bulk)
			msg(m, t + 50 * us, end, 0, 1, 1000000);
		phase(ph, 0, "idle", t, end, 0);
		phase(ph, 1, "idle", t, end, 0);
		t = end;
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, t - FX_BASE_NS, 0);
}

/* explain of the run in dir, without a baseline, names no link. */
static void
check_no_link(const char *dir)
{
	struct attr_result r;

	CHECK(explain(dir, NULL, &r) == 0);
	CHECK(find(&r, ATTR_LINK, NULL) == NULL);
	attr_result_free(&r);
}

/* Messages under 16 KiB held 20 ms in a queue on the way, each waited for: the link is
 * named with the 9 x 20 ms they waited (before, messages under 16 KiB were latency and
 * never the link's: no link cause at all). 60 us more than the pair's fastest is jitter. */
TEST(small_messages_queued_on_a_link)
{
	struct attr_result r;
	const struct attr_cause *c;

	queued_small(run_dir("smallq"), 4000, 50, 20000, false, false);
	CHECK(explain(run_dir("smallq"), NULL, &r) == 0);
	c = find(&r, ATTR_LINK, NULL);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_LINK);
	if (CHECKED(c != NULL)) {
		CHECK_STR(c->where, "ws1-ws2");
		CHECK(fabs(c->cost_ns - 9 * 20.0 * FX_MS) <= 0.1 * FX_MS);
		CHECK(strstr(c->evidence, "no messages >= 16 KiB slowed; 9 smaller ones queued 0.180 s on the way") !=
		      NULL);
	}
	check_sums(&r);
	attr_result_free(&r);
	queued_small(run_dir("jitter"), 4000, 50, 60, false, false);
	check_no_link(run_dir("jitter"));
}

/* A 12 000-byte message 170 us on the wire, 120 us over the pair's fastest (100 bytes in
 * 50 us), is queued unless the pair moves its bytes no faster: at its best 100 MB/s
 * they take 120 us, and nothing waited. */
TEST(small_message_at_the_pairs_throughput)
{
	struct attr_result r;
	const struct attr_cause *c;

	queued_small(run_dir("smallbw"), 12000, 170, 0, true, false);
	CHECK(explain(run_dir("smallbw"), NULL, &r) == 0);
	c = find(&r, ATTR_LINK, NULL);
	if (CHECKED(c != NULL))
		CHECK(strstr(c->evidence, "10 smaller ones queued 0.001 s") != NULL);
	attr_result_free(&r);
	queued_small(run_dir("smallbw2"), 12000, 170, 0, true, true);
	check_no_link(run_dir("smallbw2"));
}

/* Rank 0 works 20 ms and sends rank 1 1000 bytes (A), then 5 ms later 100 bytes (B), both
 * to be waited for; rank 1 works 20 ms on them and answers with 100 bytes (50 us). From
 * iteration 1 A is held 20 ms in a queue on the way and B, behind it in the stream,
 * arrives 50 us after A: rank 0 sent B while A was still on the wire. */
static void
small_behind_small(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS, us = FX_MS / 1000;

	for (int k = 0; k < ITERS; k++) {
		long long a = t + 20 * FX_MS, b = a + 5 * FX_MS;	/* A's and B's first bytes */
		long long a_end = a + (k == 0 ? 50 * us : 20 * FX_MS);
		long long b_end = k == 0 ? b + 50 * us : a_end + 50 * us, back = b_end + 20 * FX_MS;

		phase(ph, 0, "busy", t, a, 0);
		msg(m, a, a_end, 0, 1, 1000);
		msg(m, b, b_end, 0, 1, 100);
		phase(ph, 0, "idle", a, back + 50 * us, 0);
		phase(ph, 1, "idle", t, b_end, 0);
		phase(ph, 1, "busy", b_end, back, 0);
		msg(m, back, back + 50 * us, 1, 0, 100);
		phase(ph, 1, "idle", back, back + 50 * us, 0);
		t = back + 50 * us;
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, t - FX_BASE_NS, 0);
}

/* A smaller message late on the way was in a queue past its sender's socket, which had let
 * it go: rank 0's 5 ms before B are its own, and B, no longer behind A, arrives 5.05 ms
 * after A's send: the link costs 9 x 15 ms. Taking those 5 ms as waiting behind A (as a
 * large message holds its sender, "The link queue") made it 9 x 20 ms; on QR under a
 * capped link (bench/results/explain, 2x1) the sender's next send left more than 100 us
 * before such a message arrived in half the cases, 9 us later than behind an unslowed
 * one. */
TEST(small_message_holds_no_sender)
{
	struct attr_result r;
	const struct attr_cause *c;

	small_behind_small(run_dir("smallhold"));
	CHECK(explain(run_dir("smallhold"), NULL, &r) == 0);
	c = find(&r, ATTR_LINK, NULL);
	if (CHECKED(c != NULL)) {
		CHECK_NEAR(c->cost_ns, 9 * 15.0 * FX_MS, 0.1 * FX_MS);
		CHECK(strstr(c->evidence, "their senders waited 0.000 s behind them") != NULL);
	}
	check_sums(&r);
	attr_result_free(&r);
}

#define SPREAD_N 40	/* transfers of spread_link */

/* As slow_link, 1 + SPREAD_N iterations: in the first rank 0 sends 100 bytes (1 ms on the
 * wire: the replay keeps the first message, which ends the start-up, where it was), in
 * the k-th after it 1 MB in x[k - 1] ms; each is waited for. */
static void
spread_link(const char *dir, const double *x)
{
	double w[SPREAD_N + 1] = { 1 };

	memcpy(w + 1, x, SPREAD_N * sizeof *x);
	transfers(dir, SPREAD_N + 1, w, 100);
}

/* SPREAD_N transfer times of a dedicated link, ms: 5-15 ms (scale 1) in an order and
 * spread of the seed's (a linear congruential generator), times scale. */
static void
spread_times(double *x, unsigned seed, double scale)
{
	for (int k = 0; k < SPREAD_N; k++) {
		seed = seed * 1103515245u + 12345u;
		x[k] = scale * (5 + 10 * (double)(seed >> 16 & 0x7fff) / 0x7fff);
	}
}

/* Sum of the differences of the sorted a and b where a is the larger, ms. */
static double
over_sorted(const double *a, const double *b)
{
	double sa[SPREAD_N], sb[SPREAD_N], sum = 0;

	memcpy(sa, a, sizeof sa);
	memcpy(sb, b, sizeof sb);
	qsort(sa, SPREAD_N, sizeof *sa, sortnum_cmp_f64);
	qsort(sb, SPREAD_N, sizeof *sb, sortnum_cmp_f64);
	for (int k = 0; k < SPREAD_N; k++)
		sum += fmax(sa[k] - sb[k], 0);
	return sum;
}

/* A dedicated run against another dedicated run of the same program: the link moves 1 MB
 * in 5-15 ms in both, each in its own order. The pair's fastest transfer as the reference
 * (before) made every slower one the link's: 40 transfers at 10.4 ms on average against
 * 5.1, 0.214 s of a 2.10 s run (10 %). Against the baseline's transfer at the same place
 * among its size (the k-th slowest against the k-th slowest) only what the run's k-th is
 * slower is left, the two spreads' difference: 19 ms, under 1 % of the run. Without the
 * baseline the reference is the run's top tenth, and what the 36 others took over it is
 * the cost (0.150 s). */
TEST(dedicated_link_against_dedicated)
{
	double x[SPREAD_N], xb[SPREAD_N], top[SPREAD_N], over = 0, atop;
	struct attr_result r;
	const struct attr_cause *c;

	spread_times(x, 1, 1);
	spread_times(xb, 2, 1);
	spread_link(run_dir("ded1"), x);
	spread_link(run_dir("ded2"), xb);
	CHECK(explain(run_dir("ded1"), run_dir("ded2"), &r) == 0);
	c = find(&r, ATTR_LINK, NULL);
	if (c != NULL) {
		CHECK(c->cost_ns <= 0.01 * r.measured_ns);
		CHECK_NEAR(c->cost_ns, over_sorted(x, xb) * FX_MS, 0.5 * FX_MS);
	}
	check_sums(&r);
	attr_result_free(&r);
	CHECK(over_sorted(x, xb) > 0);	/* the run is slower at some places: not a vacuous test */

	memcpy(top, x, sizeof top);
	qsort(top, SPREAD_N, sizeof *top, sortnum_cmp_f64);
	atop = top[3];	/* 4 of 40 at least this fast */
	for (int k = 0; k < SPREAD_N; k++)
		over += fmax(x[k] - atop, 0);
	CHECK(explain(run_dir("ded1"), NULL, &r) == 0);
	c = find(&r, ATTR_LINK, NULL);
	if (CHECKED(c != NULL))
		CHECK_NEAR(c->cost_ns, over * FX_MS, 0.5 * FX_MS);
	attr_result_free(&r);
}

/* The same link capped to a tenth: every transfer 50-150 ms, against the dedicated
 * baseline of 5-15 ms. The link keeps all the run lost on it: the sum of its transfers
 * less the baseline's, 40 x about 90 ms. */
TEST(capped_link_against_dedicated)
{
	double x[SPREAD_N], xb[SPREAD_N], sum = 0;
	struct attr_result r;
	const struct attr_cause *c;

	spread_times(x, 3, 10);
	spread_times(xb, 2, 1);
	for (int k = 0; k < SPREAD_N; k++)
		sum += x[k] - xb[k];
	spread_link(run_dir("cap1"), x);
	spread_link(run_dir("cap0"), xb);
	CHECK(explain(run_dir("cap1"), run_dir("cap0"), &r) == 0);
	c = find(&r, ATTR_LINK, NULL);
	if (CHECKED(r.n > 0))
		CHECK(r.c[0].kind == ATTR_LINK);
	if (CHECKED(c != NULL)) {
		CHECK_NEAR(c->cost_ns, sum * FX_MS, 0.5 * FX_MS);
		CHECK(strstr(c->evidence, "(the baseline's, by size)") != NULL);
	}
	CHECK_NEAR(r.measured_ns - r.baseline_ns, sum * FX_MS, 0.5 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* Rank 0 works 400 ms and sends rank 1 1 MB (xfer ms on the wire), then idles to the
 * end; rank 1 waits for it and works work1 ms to the end. */
static void
finish_alone(const char *dir, long long xfer, long long work1)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long got = FX_BASE_NS + (400 + xfer) * FX_MS, end = got + work1 * FX_MS;

	phase(ph, 0, "busy", FX_BASE_NS, FX_BASE_NS + 400 * FX_MS, 0);
	phase(ph, 0, "idle", FX_BASE_NS + 400 * FX_MS, end, 0);
	msg(m, FX_BASE_NS + 400 * FX_MS, got, 0, 1, 1000000);
	phase(ph, 1, "idle", FX_BASE_NS, got, 0);
	phase(ph, 1, "busy", got, end, 0);
	fclose(m);
	fclose(ph);
	ranks2(dir, end - FX_BASE_NS, 0);
}

/* In the baseline rank 1 works 599 ms, rank 0 400: balanced at 499.5 ms each it replays
 * slower, as rank 0's send leaves 99.5 ms later and its end with it while rank 1 only
 * gets its message later (the replay does not see the ranks end together): an imbalance
 * cost of -99.5 ms. The run's message takes 100 ms where it took 1 and rank 1 works 400 ms
 * (in a dedicated MPICH run a polling rank's own work reads so much higher): balanced,
 * nothing to balance, and the slow link costs 99 ms. The baseline's negative cost was
 * taken off the run's 0: a 99.5 ms imbalance cause, first. Such a cost is none now. */
TEST(baseline_imbalance_never_a_gain)
{
	struct attr_result r;
	const struct attr_cause *c;

	finish_alone(run_dir("fin-ded"), 1, 599);
	finish_alone(run_dir("fin"), 100, 400);
	CHECK(explain(run_dir("fin"), run_dir("fin-ded"), &r) == 0);
	CHECK(r.c[0].kind == ATTR_LINK);
	c = find(&r, ATTR_IMBALANCE, NULL);
	if (CHECKED(c != NULL)) {
		CHECK_MSG(fabs(c->cost_ns) <= 1.0 * FX_MS, "imbalance %.3f ms, expected 0", c->cost_ns / FX_MS);
		CHECK(strstr(c->evidence, "its imbalance cost 0.000 s (balanced it replays 0.100 s slower)") != NULL);
	}
	check_sums(&r);
	attr_result_free(&r);
}

TEST(no_messages_one_rank)
{
	struct attr_result r;
	FILE *ph = fx_open(run_dir("one"), "phases.tsv", FX_PH_HDR), *f;

	phase(ph, 0, "busy", FX_BASE_NS, FX_BASE_NS + 500 * FX_MS, 100 * FX_MS);
	fclose(ph);
	f = fx_open(run_dir("one"), "ranks.tsv", FX_RANK_HDR);
	fprintf(f, "0\tws1\t%lld\t100\t0\t0\t1\t1\t1\t0\t80\t1\t%lld\t0\t0\t0\t0\n", 500 * FX_MS, 100 * FX_MS);
	fclose(f);
	CHECK(explain(run_dir("one"), NULL, &r) == 0);
	CHECK(!r.replayed);
	if (CHECKED(r.n == 1))
		CHECK(r.c[0].kind == ATTR_CPU);
	CHECK_NEAR(r.n == 1 ? r.c[0].cost_ns : 0, 100.0 * FX_MS, 1);
	CHECK(r.note[0] != '\0');
	check_sums(&r);
	attr_result_free(&r);
}

/* One pair's large messages by size class: 20 KiB messages (class 0) at 1..10 x 100 MB/s,
 * 1 MB ones (class 5) at 10 and 20 MB/s, and one on the same host left out. A message's
 * place among its class and the throughput at a place go both ways; the pair's reference
 * without a baseline is what a tenth of its messages reached. */
TEST(pair_size_classes)
{
	struct prof p = { .nranks = 3 };
	struct prof_rank rk[3] = { { .rank = 0, .host = "h1" }, { .rank = 1, .host = "h2" },
				   { .rank = 2, .host = "h1" } };
	struct prof_msg m[13];
	struct evid v = { 0 };
	const struct evid_pair *q;
	const struct evid_xput *x;
	int n = 0;

	for (int i = 1; i <= 10; i++)	/* 20 000 bytes at i x 100 MB/s */
		m[n++] = (struct prof_msg){ .t_ns = FX_BASE_NS, .t_last_ns = FX_BASE_NS + 200000 / i, .src = 0,
					    .dst = 1, .bytes = 20000 };
	m[n++] = (struct prof_msg){ .t_ns = FX_BASE_NS, .t_last_ns = FX_BASE_NS + 100 * FX_MS, .src = 0, .dst = 1,
				    .bytes = 1000000 };
	m[n++] = (struct prof_msg){ .t_ns = FX_BASE_NS, .t_last_ns = FX_BASE_NS + 50 * FX_MS, .src = 0, .dst = 1,
				    .bytes = 1000000 };
	m[n++] = (struct prof_msg){ .t_ns = FX_BASE_NS, .t_last_ns = FX_BASE_NS + FX_MS, .src = 0, .dst = 2,
				    .bytes = 1000000 };
	p.ranks = rk;
	p.msgs = m;
	p.nmsgs = n;
	CHECK(evid_size_class(16384) == 0);
	CHECK(evid_size_class(32767) == 0);
	CHECK(evid_size_class(32768) == 1);
	CHECK(evid_size_class(1000000) == 5);
	evid_pairs(&v, &p);
	q = evid_pair(&v, 0, 1);
	CHECK(evid_pair(&v, 0, 2) == NULL);
	if (CHECKED(q != NULL)) {
		CHECK(q->nbig == 12);
		CHECK(evid_class(&v, q, 0, &x) == 10);
		CHECK_NEAR(x[0].Bps, 1e8, 1);	/* slowest first */
		CHECK_NEAR(x[9].Bps, 1e9, 1);
		CHECK(q->best_Bps == x[8].Bps);	/* 2 of 12 at least this fast */
		CHECK(evid_top(x, 10) == x[9].Bps);
		CHECK_NEAR(evid_place(x, 10, x[2].Bps), 0.25, 1e-9);	/* the 3rd slowest of 10 */
		CHECK(evid_at(x, 10, 0.25) == x[2].Bps);
		CHECK_NEAR(evid_at(x, 10, 0.30), (x[2].Bps + x[3].Bps) / 2, 1e-3);	/* halfway to the 4th */
		CHECK(evid_at(x, 10, 0.01) == x[0].Bps);	/* past the ends: the ends */
		CHECK(evid_at(x, 10, 0.99) == x[9].Bps);
		CHECK(evid_class(&v, q, 5, &x) == 2);
		CHECK_NEAR(evid_at(x, 2, evid_place(x, 2, 2e7)), 2e7, 1);	/* 1 MB in 50 ms */
		CHECK(evid_class(&v, q, 3, &x) == 0);
	}
	evid_free(&v);
}

/* The pairs' throughput (evid_pairs) of an all-to-all of 512 ranks on 512 hosts, twice
 * round (261 632 pairs, 523 264 messages): each pair's two messages summed, the faster
 * one's throughput its best, in (src, dst) order. Finding a pair again by a search of the
 * pairs so far cost messages times pairs (minutes here); the map takes well under the
 * second of CPU time allowed. */
TEST(pairs_of_a_large_all_to_all)
{
	enum { N = 512 };
	struct prof p = { .nranks = N };
	struct evid v = { 0 };
	clock_t c0;
	long k = 0;
	int bad = 0;

	p.ranks = calloc(N, sizeof *p.ranks);
	p.msgs = calloc((size_t)2 * N * (N - 1), sizeof *p.msgs);
	if (p.ranks == NULL || p.msgs == NULL)
		exit(2);
	for (int i = 0; i < N; i++) {
		p.ranks[i].rank = i;
		snprintf(p.ranks[i].host, sizeof p.ranks[i].host, "h%d", i);
	}
	for (int round = 0; round < 2; round++)
		for (int s = 0; s < N; s++)
			for (int d = 0; d < N; d++) {
				if (s == d)
					continue;
				/* 1 MB in 10 ms (100 MB/s), then in 20 ms */
				p.msgs[k] = (struct prof_msg){ .t_ns = FX_BASE_NS + k * 1000,
							       .t_last_ns = FX_BASE_NS + k * 1000 + (round + 1) * 10 * FX_MS,
							       .src = s, .dst = d, .bytes = 1000000 };
				k++;
			}
	p.nmsgs = k;
	c0 = clock();
	evid_pairs(&v, &p);
	CHECK((double)(clock() - c0) / CLOCKS_PER_SEC < 1.0);
	CHECK(v.npairs == N * (N - 1));
	for (int j = 0; j < v.npairs; j++) {
		const struct evid_pair *q = &v.pair[j];
		int s = j / (N - 1), d = j % (N - 1);

		d += d >= s;
		bad += q->src != s || q->dst != d || q->nbig != 2 || q->bytes != 2e6 || q->xfer_ns != 30.0 * FX_MS ||
		       fabs(q->best_Bps - 1e8) > 1e-3;
	}
	CHECK(bad == 0);
	CHECK(evid_pair(&v, 511, 0) != NULL);
	CHECK(evid_pair(&v, 3, 3) == NULL);
	evid_free(&v);
	free(p.ranks);
	free(p.msgs);
}

/* A ring of n ranks, one per host ws1..wsN, every one losing part of its 80 ms of work per
 * iteration to the run queue (40 ms; with spread, 10 ms plus half a ms per rank index),
 * sending to both neighbours when done: 2n messages (4n events) an iteration. */
static void
loaded_ring(const char *dir, int n, int iters, bool spread)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	FILE *f;

	for (int k = 0; k < iters; k++) {
		long long t = FX_BASE_NS + k * P_MS * FX_MS;

		for (int r = 0; r < n; r++) {
			long long w = spread ? 10 * FX_MS + r * FX_MS / 2 : 40 * FX_MS;

			phase(ph, r, "busy", t, t + 80 * FX_MS, w);
			phase(ph, r, "idle", t + 80 * FX_MS, t + P_MS * FX_MS, 0);
			msg(m, t + 80 * FX_MS, t + 81 * FX_MS, r, (r + 1) % n, 4000);
			msg(m, t + 80 * FX_MS, t + 81 * FX_MS, r, (r + n - 1) % n, 4000);
		}
	}
	fclose(m);
	fclose(ph);
	f = fx_open(dir, "ranks.tsv", FX_RANK_HDR);
	for (int r = 0; r < n; r++)
		fprintf(f, "%d\tws%d\t%lld\t50\t0\t50\t1\t1\t1\t1\t50\t1\t%lld\t1\t1\t1\t1\n", r, r + 1,
			iters * P_MS * FX_MS, iters * (spread ? 10 * FX_MS + r * FX_MS / 2 : 40 * FX_MS));
	fclose(f);
}

/* Ten loaded nodes share their joint cpu cost by replaying all 1023 subsets while that
 * stays within ATTR_SHAPLEY_EVENTS replayed events (250 iterations, 10 000 events); past
 * it (2500 iterations: 1023 replays of 100 000 events) the shares are left out and the
 * note says so, and the causes themselves are the same kind. */
TEST(shares_within_a_budget)
{
	struct attr_result r;
	double sum = 0;
	int ncpu = 0, nshare = 0;

	loaded_ring(run_dir("ring250"), 10, 250, false);
	CHECK(explain(run_dir("ring250"), NULL, &r) == 0);
	for (int i = 0; i < r.n; i++)
		if (r.c[i].kind == ATTR_CPU) {
			ncpu++;
			nshare += isfinite(r.c[i].share_ns);
			sum += isfinite(r.c[i].share_ns) ? r.c[i].share_ns : 0;
		}
	CHECK(ncpu == 10);
	CHECK(nshare == 10);
	CHECK_NEAR(sum, r.cpu_all_ns, 1e3);
	CHECK(strstr(r.note, "left out") == NULL);
	attr_result_free(&r);

	loaded_ring(run_dir("ring2500"), 10, 2500, false);
	CHECK(explain(run_dir("ring2500"), NULL, &r) == 0);
	ncpu = nshare = 0;
	for (int i = 0; i < r.n; i++)
		if (r.c[i].kind == ATTR_CPU) {
			ncpu++;
			nshare += isfinite(r.c[i].share_ns);
		}
	CHECK(ncpu == 10);
	CHECK(nshare == 0);
	CHECK(strstr(r.note, "the 10 nodes' shares of their joint cpu cost are left out: 1023 replays of 100000 events") != NULL);
	CHECK_NEAR(r.ideal_ns + r.causes_ns + r.interaction_ns, r.measured_ns, 1);	/* check_sums without the shares */
	attr_result_free(&r);
}

/* 70 loaded nodes: a cpu cause (a replay) each for the 64 whose ranks waited most on the
 * run queue, ws7 to ws70; ws1 to ws6 are left to the cpu of every node taken out
 * together, and the note says so. */
TEST(cpu_causes_of_many_nodes)
{
	struct attr_result r;
	int ncpu = 0;

	loaded_ring(run_dir("ring70"), 70, 20, true);
	CHECK(explain(run_dir("ring70"), NULL, &r) == 0);
	for (int i = 0; i < r.n; i++)
		ncpu += r.c[i].kind == ATTR_CPU;
	CHECK(ncpu == ATTR_MAX_CPU);
	CHECK(find(&r, ATTR_CPU, "ws1") == NULL);
	CHECK(find(&r, ATTR_CPU, "ws6") == NULL);
	CHECK(find(&r, ATTR_CPU, "ws7") != NULL);
	CHECK(find(&r, ATTR_CPU, "ws70") != NULL);
	CHECK(isfinite(r.cpu_all_ns));
	CHECK(r.cpu_all_ns > 0);
	CHECK(strstr(r.note, "6 more nodes had run-queue wait: a cpu cause each for the 64 with the most") != NULL);
	attr_result_free(&r);
}

/* Rank 1 (ws2) computes 80 ms, half of it on the run queue, and sends to rank 0; rank 0
 * waits for it polling, idle but for the stray user ticks that make its interval busy 31 ms
 * before the message comes (a phase of polling, then 9 ms of work), and replies 1 ms after
 * it, inside that phase; rank 1 waits for the reply and goes on. 83 ms an iteration. */
static void
late_reply(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	phase(ph, 0, "idle", FX_BASE_NS, FX_BASE_NS + 50 * FX_MS, 0);
	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 83 * FX_MS;

		phase(ph, 1, "busy", t, t + 80 * FX_MS, 40 * FX_MS);
		msg(m, t + 80 * FX_MS, t + 81 * FX_MS, 1, 0, 4000);
		phase(ph, 1, "idle", t + 80 * FX_MS, t + 83 * FX_MS, 0);
		phase(ph, 0, "busy", t + 50 * FX_MS, t + 90 * FX_MS, 0);
		msg(m, t + 82 * FX_MS, t + 83 * FX_MS, 0, 1, 4000);
		phase(ph, 0, "idle", t + 90 * FX_MS, t + (k + 1 < ITERS ? 133 : 90) * FX_MS, 0);
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, ITERS * 83 * FX_MS + 7 * FX_MS, ITERS * 40 * FX_MS);
}

/* Without the competitor rank 1's message comes 40 ms sooner, and rank 0, which was only
 * waiting for it, replies 40 ms sooner: 40 ms an iteration but the first (whose wait has
 * no earlier event to start from), 360 ms, and rank 1's wake-up delays. The message came
 * 31 ms into a busy phase: taken as earlier work, it was needed at rank 0's next send, the
 * reply left without it and the cause cost nothing. */
TEST(reply_after_a_long_wait)
{
	struct attr_result r;
	const struct attr_cause *c;

	late_reply(run_dir("reply"));
	CHECK(explain(run_dir("reply"), NULL, &r) == 0);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL)) {
		CHECK(r.c[0].kind == ATTR_CPU);
		CHECK(c->cost_ns >= 355.0 * FX_MS);
		CHECK(c->cost_ns <= 370.0 * FX_MS);
	}
	check_sums(&r);
	attr_result_free(&r);
}

/* The start-up, then a halo paced by its slower rank (halo_paced): rank 1 is launched
 * late1 ms after rank 0 (its first sample), then busy s1 ms before the first message (sw
 * of them on the run queue), rank 0 10 ms, then waits for it unseen (MPI_Init's exchange
 * goes through the launcher); the first halo leaves when rank 1 is done. */
static void
fenced_start(const char *dir, long long late1, long long s1, long long sw, const long long *w, const long long *wait)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t0 = FX_BASE_NS + (late1 + s1) * FX_MS, per;

	phase(ph, 0, "busy", FX_BASE_NS, FX_BASE_NS + 10 * FX_MS, 0);
	phase(ph, 0, "idle", FX_BASE_NS + 10 * FX_MS, t0, 0);
	phase(ph, 1, "busy", FX_BASE_NS + late1 * FX_MS, t0, sw * FX_MS);
	per = halo_iters(m, ph, t0, w, wait);
	fclose(m);
	fclose(ph);
	ranks2(dir, (late1 + s1 + ITERS * per) * FX_MS, (sw + ITERS * wait[1]) * FX_MS);
}

/* A fenced start-up explained against its baseline: measured_ms over it, the cpu cause on
 * ws2 first at lo_ms to hi_ms with evidence saying what it takes off the start-up, and no
 * start-up cost left. */
static void
check_fenced(const char *dir, const char *base, double measured_ms, double lo_ms, double hi_ms,
	     const char *evidence)
{
	struct attr_result r;
	const struct attr_cause *c;

	CHECK(explain(dir, base, &r) == 0);
	CHECK_NEAR(r.measured_ns - r.baseline_ns, measured_ms * FX_MS, 1);
	c = find(&r, ATTR_CPU, "ws2");
	CHECK(r.c[0].kind == ATTR_CPU);
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= lo_ms * FX_MS);
		CHECK(c->cost_ns <= hi_ms * FX_MS);
		CHECK(strstr(c->evidence, evidence) != NULL);
	}
	c = find(&r, ATTR_STARTUP, NULL);
	if (CHECKED(c != NULL))
		CHECK(fabs(c->cost_ns) <= 1.0 * FX_MS);
	CHECK(fabs(r.residual_ns) <= 10.0 * FX_MS);
	check_sums(&r);
	attr_result_free(&r);
}

/* Against a baseline whose start-up took 50 ms, rank 1 behind a competitor takes 100, half
 * of it on the run queue, and 80 ms (40 waiting) for each 40 ms of its work after: the
 * competitor cost 50 + 10 x 40 ms. The replay moves rank 1's first halo by its own busy
 * time, but rank 0 sends first, at the end of a start-up no message explains: the 50 ms
 * were a start-up cause of their own, and the cpu cause got 375 ms. The ranks now leave the
 * start-up together, when rank 1 is done: 425 ms (the first iteration's halo gains less,
 * as in own_work_above_the_baseline_taken_out). */
TEST(start_up_behind_a_competitor)
{
	static const long long wd[2] = { 40, 40 }, wt0[2] = { 0, 0 }, wl[2] = { 40, 80 }, wt1[2] = { 0, 40 };

	fenced_start(run_dir("fence-ded"), 0, 50, 0, wd, wt0);
	fenced_start(run_dir("fence"), 0, 100, 50, wl, wt1);
	check_fenced(run_dir("fence"), run_dir("fence-ded"), 450, 420, 455, "start-up 0.050 s shorter");
}

/* fenced_start's loaded run with rank 1 launched 50 ms late, then busy 80 ms (40 on the
 * run queue) and idle 60 (30 on the run queue) before its first halo. */
static void
late_idle_start(const char *dir)
{
	static const long long w[2] = { 40, 80 }, wait[2] = { 0, 40 };
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t0 = FX_BASE_NS + 190 * FX_MS, per;

	phase(ph, 0, "busy", FX_BASE_NS, FX_BASE_NS + 10 * FX_MS, 0);
	phase(ph, 0, "idle", FX_BASE_NS + 10 * FX_MS, t0, 0);
	phase(ph, 1, "busy", FX_BASE_NS + 50 * FX_MS, FX_BASE_NS + 130 * FX_MS, 40 * FX_MS);
	phase(ph, 1, "idle", FX_BASE_NS + 130 * FX_MS, t0, 30 * FX_MS);
	per = halo_iters(m, ph, t0, w, wait);
	fclose(m);
	fclose(ph);
	ranks2(dir, (190 + ITERS * per) * FX_MS, (70 + ITERS * wait[1]) * FX_MS);
}

/* As start_up_behind_a_competitor, but rank 1 is launched 50 ms late (its first sample),
 * as MPICH's launcher and the observer start a rank on a loaded node, then busy 100 ms, half
 * on the run queue: a start-up 100 ms over the baseline's. Its busy time there (with the
 * first halo's) gave back 70 ms and 30 stayed a start-up cause of their own; with its
 * node's cause out it is launched as soon as in the baseline: the competitor cost
 * 100 + 10 x 40 ms, less the first iteration's halo gain (as above): 475 ms, not 445. */
TEST(start_up_launched_late_behind_a_competitor)
{
	static const long long wd[2] = { 40, 40 }, wt0[2] = { 0, 0 }, wl[2] = { 40, 80 }, wt1[2] = { 0, 40 };
	struct attr_result r;
	const struct attr_cause *c;

	fenced_start(run_dir("late-ded"), 0, 50, 0, wd, wt0);
	fenced_start(run_dir("late"), 50, 100, 50, wl, wt1);
	check_fenced(run_dir("late"), run_dir("late-ded"), 500, 470, 505, "start-up 0.100 s shorter");

	/* 60 ms of its start-up read idle (in system calls), 30 of them on the run queue: it
	 * goes at the pace of the CPU the rank could have had, as its gaps do (in idle time
	 * it ran 50 of its 80 ms runnable, all of them in the baseline): of the 140 ms over
	 * the baseline's start-up the launch gives back 50, the busy time (with the first
	 * halo's 40) 60 and the idle time 60 x 3/8; before, the busy time's alone */
	late_idle_start(run_dir("late-idle"));
	CHECK(explain(run_dir("late-idle"), run_dir("late-ded"), &r) == 0);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL))
		CHECK(strstr(c->evidence, "start-up 0.13") != NULL);
	c = find(&r, ATTR_STARTUP, NULL);
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= 6.0 * FX_MS);
		CHECK(c->cost_ns <= 9.0 * FX_MS);
	}
	check_sums(&r);
	attr_result_free(&r);
}

/* Rank 0 works 10 ms and sends rank 1 1 MB by rendezvous: its last bytes leave only once
 * rank 1 has got to the receive, 10 ms later at 100 MB/s, the pair's best, in iteration
 * 0, where rank 1 is there first. From iteration 1 rank 1 (ws2) first computes at_ms,
 * wait_ms of them on the run queue, and the last bytes come xfer_ms after it got to the
 * receive, while it read idle with idle_wait_ms of run-queue wait; then it works 10 ms on
 * the message and answers. */
static void
rndv_at(const char *dir, long long at_ms, long long wait_ms, long long xfer_ms, long long idle_wait_ms)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS;

	for (int k = 0; k < ITERS; k++) {
		long long at = k == 0 ? 10 : at_ms, got = at + (k == 0 ? 10 : xfer_ms);

		phase(ph, 0, "busy", t, t + 10 * FX_MS, 0);
		phase(ph, 0, "idle", t + 10 * FX_MS, t + (got + 11) * FX_MS, 0);
		msg_proto(m, t + 10 * FX_MS, t + got * FX_MS, 0, 1, 1000000, "rndv-frag");
		if (k > 0)
			phase(ph, 1, "busy", t, t + at * FX_MS, wait_ms * FX_MS);
		phase(ph, 1, "idle", t + (k > 0 ? at : 0) * FX_MS, t + got * FX_MS, k > 0 ? idle_wait_ms * FX_MS : 0);
		phase(ph, 1, "busy", t + got * FX_MS, t + (got + 10) * FX_MS, 0);
		msg(m, t + (got + 10) * FX_MS, t + (got + 11) * FX_MS, 1, 0, 100);
		phase(ph, 1, "idle", t + (got + 10) * FX_MS, t + (got + 11) * FX_MS, 0);
		t += (got + 11) * FX_MS;
	}
	fclose(m);
	fclose(ph);
	ranks2(dir, t - FX_BASE_NS, (ITERS - 1) * wait_ms * FX_MS);
}

/* Without the competitor rank 1 gets to the receive 40 ms sooner, and the message, which
 * waited for it, comes 40 ms sooner too: 360 ms, and its wake-up delays (0.75 ms each).
 * The replay kept the message's time on the wire as measured (the link's), and rank 1,
 * sooner at the receive, waited for it: the cause cost only the wake-ups. */
TEST(rendezvous_waits_for_its_receiver)
{
	struct attr_result r;
	const struct attr_cause *c;

	rndv_at(run_dir("rndv"), 80, 40, 10, 0);
	CHECK(explain(run_dir("rndv"), NULL, &r) == 0);
	c = find(&r, ATTR_CPU, "ws2");
	CHECK(r.c[0].kind == ATTR_CPU);
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= 360.0 * FX_MS);
		CHECK(c->cost_ns <= 370.0 * FX_MS);
	}
	check_sums(&r);
	attr_result_free(&r);
}

/* rndv_at with the link capped: rank 1 computes 40 ms, 20 of them on the run queue, and
 * the last bytes come 100 ms after it got to the receive, while it read idle and,
 * polling behind its competitor, ran half of its runnable time. Without the competitor
 * rank 1 gets to the receive 20 ms sooner, and the capped bytes come 100 ms after that
 * all the same: 180 ms (its wake-up delays fall inside the transfer). Its idle time
 * during the transfer, half of it on the run queue, was no wait of the transfer's:
 * taking it as the receiver's too, at the pace of its idle time, gave the cause about 50
 * ms more an iteration of what the cap held (ScaLAPACK LU under both a competitor and a
 * capped link, bench/results/explain, 2x1: 0.5-0.7 s a run). */
TEST(capped_rendezvous_is_no_receivers_wait)
{
	struct attr_result r;
	const struct attr_cause *c;

	rndv_at(run_dir("rndvcap"), 40, 20, 100, 50);
	CHECK(explain(run_dir("rndvcap"), NULL, &r) == 0);
	c = find(&r, ATTR_CPU, "ws2");
	if (CHECKED(c != NULL)) {
		CHECK(c->cost_ns >= 180.0 * FX_MS);
		CHECK(c->cost_ns <= 190.0 * FX_MS);
	}
	check_sums(&r);
	attr_result_free(&r);
}

int
main(void)
{
	RUN(replay_unchanged_gives_measured);
	RUN(cpu_taken_on_one_node);
	RUN(collects_start_is_not_the_programs);
	RUN(lockstep_shares);
	RUN(stray_tick_in_a_wait);
	RUN(slow_reply_idle_wait);
	RUN(gaps_no_shorter_than_the_baseline);
	RUN(partial_trace_said);
	RUN(ping_pong_in_a_busy_phase);
	RUN(wake_up_taken_out);
	RUN(wake_up_once_for_messages_together);
	RUN(polling_before_a_reply_waits);
	RUN(co_located_ranks_share_the_cpu);
	RUN(slow_link_named);
	RUN(link_round_trip_evidence);
	RUN(dedicated_link_against_dedicated);
	RUN(capped_link_against_dedicated);
	RUN(imbalance_names_the_late_rank);
	RUN(baseline_leaves_the_difference);
	RUN(baseline_imbalance_never_a_gain);
	RUN(own_work_above_the_baseline_taken_out);
	RUN(starved_rank_by_demand);
	RUN(no_messages_one_rank);
	RUN(exchange_under_a_cpu_competitor_chained);
	RUN(exchange_under_a_slow_link_chained);
	RUN(pair_size_classes);
	RUN(pairs_of_a_large_all_to_all);
	RUN(shares_within_a_budget);
	RUN(cpu_causes_of_many_nodes);
	RUN(polling_read_busy_waits);
	RUN(free_f_goes_with_shortened_waits);
	RUN(ideal_run_takes_polling_out_once);
	RUN(ideal_run_keeps_no_gaps_beyond_the_baseline);
	RUN(reply_after_a_long_wait);
	RUN(start_up_behind_a_competitor);
	RUN(start_up_launched_late_behind_a_competitor);
	RUN(rendezvous_waits_for_its_receiver);
	RUN(capped_rendezvous_is_no_receivers_wait);
	RUN(queue_behind_a_slow_link);
	RUN(token_wait_behind_a_slow_link);
	RUN(small_messages_queued_on_a_link);
	RUN(small_message_at_the_pairs_throughput);
	RUN(small_message_holds_no_sender);
	RUN(unloaded_gaps_go_with_the_competitor);
	RUN(wake_ups_within_the_wait);
	return check_done();
}
