/* test_replay: the trace replay model (predict/replay.h) on hand-built runs whose answer
 * is worked out by hand: nothing changed gives the dedicated time back, a halo exchange on
 * a slower link pays one transfer per iteration (the two directions go at once), a
 * request/reply pays both, a loaded node stretches its busy time, a message that came
 * while its receiver was busy is only needed when that receiver is done, a link capped by a
 * token bucket passes what fits in the bucket at the line's speed, and the two directions
 * of an exchange go at once even when one leaves just after the other arrived; and the
 * order of the rows in messages.tsv and phases.tsv changes nothing (the trace sorts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "predict/replay.h"
#include "tests/unit/check.h"
#include "tests/unit/models_fixture.h"

#define ITERS 10
#define BYTES 125000LL		/* 10 ms at 12.5 MB/s, 100 ms at 1.25 MB/s */
#define LAT 50000LL		/* 50 us */
#define XFER (LAT + BYTES * 1000000000LL / 12500000LL)	/* L + bytes / B, ns */

static char halo_run[300], rr_run[300], early_run[300], sink_run[300], a2a_run[300], hol_run[300], init_run[300],
	xchg_run[300], pingpong_run[300], rev_run[300], panel_run[300], small_run[300],
	early_coll_run[300], polled_run[300], rndv_halo_run[300], rndv_rr_run[300], late_run[300],
	late_answered_run[300], twice_run[300], thrice_run[300], rr_waited_run[300], worked_run[300],
	rr_observed_run[300], rr_badconns_run[300];
static const char *proto = "eager";	/* messages.tsv proto of the messages msg_nw writes */
static const char *flags1 = "-";	/* messages.tsv flags of rank 1's messages */

/* A message of bytes, wire bytes in its stream (the MPI's headers besides), of the
 * collective name ("-" none). */
static void
msg_nw(FILE *f, long long t0, long long t1, int src, int dst, long long bytes, long long wire, const char *name)
{
	fprintf(f, "%lld\t%lld\t%d\t%d\t0\t%d\t1\t%s\t%lld\t%lld\tompi\t%s\thandshake\t%s\t0\n", t0, t1, src,
		dst, src, name, bytes, wire, proto, src == 1 ? flags1 : "-");
}

static void
msg_w(FILE *f, long long t0, long long t1, int src, int dst, long long bytes, long long wire)
{
	msg_nw(f, t0, t1, src, dst, bytes, wire, "-");
}

/* A message whose stream carries only its bytes: the worked numbers below stay round. */
static void
msg(FILE *f, long long t0, long long t1, int src, int dst, long long bytes)
{
	msg_w(f, t0, t1, src, dst, bytes, bytes);
}

static void
common(const char *dir, int nranks, long long exec_ns)
{
	FILE *np = fx_open(dir, "netparams.tsv", "# contend-netparams 1\nkey\tvalue\nlat_ns\t50000\nbw_Bps\t12500000\n");
	FILE *l = fx_open(dir, "links.tsv", FX_LINK_HDR);

	fprintf(l, "0\t1\t%d\t%lld\t%lld\t0\t0\t1\n1\t0\t%d\t%lld\t%lld\t0\t0\t1\n", ITERS, ITERS * BYTES, BYTES,
		ITERS, ITERS * BYTES, BYTES);
	fclose(np);
	fclose(l);
	fx_ranks(dir, nranks, exec_ns);
}

/* Two ranks, 10 iterations of 100 ms: 80 ms busy, then both send at once and wait. */
static void
halo_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 100 * FX_MS;

		for (int r = 0; r < 2; r++) {
			fx_phase(ph, r, "busy", t, t + 80 * FX_MS);
			fx_phase(ph, r, "idle", t + 80 * FX_MS, t + 100 * FX_MS);
			msg(m, t + 80 * FX_MS, t + 80 * FX_MS + XFER, r, 1 - r, BYTES);
		}
	}
	fclose(m);
	fclose(ph);
	common(dir, 2, ITERS * 100 * FX_MS);
}

/* The halo's rows written last first: the same run for the replay, whose trace is sorted by
 * time (with these rows each send and each receive is a run of its own: the radix sort). */
static void
halo_rev_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	for (int k = ITERS - 1; k >= 0; k--) {
		long long t = FX_BASE_NS + k * 100 * FX_MS;

		for (int r = 1; r >= 0; r--) {
			fx_phase(ph, r, "idle", t + 80 * FX_MS, t + 100 * FX_MS);
			fx_phase(ph, r, "busy", t, t + 80 * FX_MS);
			msg(m, t + 80 * FX_MS, t + 80 * FX_MS + XFER, r, 1 - r, BYTES);
		}
	}
	fclose(m);
	fclose(ph);
	common(dir, 2, ITERS * 100 * FX_MS);
}

/* The halo and the request/reply with every message a rendezvous (Open MPI's PUT). */
static void
rndv_halo_profile(const char *dir)
{
	proto = "rndv-put";
	halo_profile(dir);
	proto = "eager";
}

/* One exchange of rendezvous messages (each 10 ms at the run's bandwidth) where rank 1 asks
 * 2 ms after rank 0, while rank 0's request is in flight to it; as late_profile writes it,
 * rank 1 had its receive posted when rank 0's request came (it asked first), and as
 * late_answered_profile does, it answered rank 0's request before it asked (flags
 * after-answer). */
static void
late_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	proto = "rndv-put";
	for (int r = 0; r < 2; r++) {
		long long s = FX_BASE_NS + (78 + 2 * r) * FX_MS;

		fx_phase(ph, r, "busy", FX_BASE_NS, s);
		fx_phase(ph, r, "idle", s, FX_BASE_NS + 100 * FX_MS);
		msg(m, s, s + XFER, r, 1 - r, BYTES);
	}
	proto = "eager";
	fclose(m);
	fclose(ph);
	common(dir, 2, 100 * FX_MS);
}

static void
late_answered_profile(const char *dir)
{
	flags1 = "after-answer";
	late_profile(dir);
	flags1 = "-";
}

/* Rendezvous exchanges between two ranks, each message 10 ms at the run's bandwidth, rank 1
 * asking after rank 0 each time: (from, gap) pairs in ms; each rank idle from its request
 * on, busy from `busy` ms before the next one; rank 1's request of exchange `answered` (-1
 * none) was made after it answered rank 0's (flags after-answer). */
static void
xchgs_profile(const char *dir, const double (*x)[2], int n, int answered, double busy)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long prev[2] = { FX_BASE_NS, FX_BASE_NS };

	proto = "rndv-put";
	for (int k = 0; k < n; k++)
		for (int r = 0; r < 2; r++) {
			long long s = FX_BASE_NS + (long long)((x[k][0] + r * x[k][1]) * FX_MS);

			if (prev[r] < s - (long long)(busy * FX_MS))
				fx_phase(ph, r, "idle", prev[r], s - (long long)(busy * FX_MS));
			fx_phase(ph, r, "busy", s - (long long)(busy * FX_MS) > prev[r] ? s - (long long)(busy * FX_MS) : prev[r], s);
			prev[r] = s;
			flags1 = k == answered ? "after-answer" : "-";
			msg(m, s, s + XFER, r, 1 - r, BYTES);
		}
	for (int r = 0; r < 2; r++)
		fx_phase(ph, r, "idle", prev[r], FX_BASE_NS + 101 * FX_MS);
	flags1 = "-";
	proto = "eager";
	fclose(m);
	fclose(ph);
	common(dir, 2, 101 * FX_MS);
}

/* Two exchanges back to back: at 78 ms (rank 1 0.6 ms after rank 0) and, once both
 * messages are in, at 89.5 ms (rank 1 0.3 ms after). */
static void
twice_profile(const char *dir)
{
	static const double x[][2] = { { 78, 0.6 }, { 89.5, 0.3 } };

	xchgs_profile(dir, x, 2, -1, 0.2);
}

/* An exchange at 20 ms (rank 1 1 ms after), then the two above, rank 1 answering rank 0's
 * request of the first of them before it asks. */
static void
thrice_profile(const char *dir)
{
	static const double x[][2] = { { 20, 1 }, { 78, 0.6 }, { 89.5, 0.3 } };

	xchgs_profile(dir, x, 3, 1, 0.2);
}

static void rr_profile(const char *dir);
static long long rr_wait_ns;	/* run-queue wait in each of rank 1's busy phases (rr_profile) */

/* rr, but another process had rank 1's CPU 10 ms of each 40 ms busy phase */
static void
rr_waited_profile(const char *dir)
{
	rr_wait_ns = 10 * FX_MS;
	rr_profile(dir);
	rr_wait_ns = 0;
}

/* rr_waited, with the packets each rank sent as the capture saw them: 10 an iteration
 * each (conns.tsv) */
static void
rr_observed_profile(const char *dir)
{
	FILE *f;

	rr_waited_profile(dir);
	f = fx_open(dir, "conns.tsv", "# contend-conns 1\nconn\tkind\tip0\tport0\tip1\tport1\trank0\t"
		    "rank1\tranksrc\tsaw_syn\tpkts0\tframe_bytes0\tpayload_bytes0\tgap_bytes0\tpkts1\t"
		    "frame_bytes1\tpayload_bytes1\tgap_bytes1\tt_first_ns\tt_last_ns\trtt_ns\n");
	fprintf(f, "1\tompi\t10.0.0.2\t40000\t10.0.0.1\t1024\t1\t0\thandshake\t1\t%d\t0\t0\t0\t%d\t0\t0\t0"
		"\t0\t1\t-1\n", ITERS * 10, ITERS * 10);
	/* the launcher's connection, to no rank: not counted */
	fprintf(f, "0\tgeneric\t10.0.0.254\t40001\t10.0.0.2\t40002\t-1\t-1\tnone\t0\t500\t0\t0\t0\t500"
		"\t0\t0\t0\t0\t1\t-1\n");
	fclose(f);
}

/* rr_waited with a conns.tsv that is no conns file */
static void
rr_badconns_profile(const char *dir)
{
	FILE *f;

	rr_waited_profile(dir);
	f = fx_open(dir, "conns.tsv", "# contend-conns 1\nconn\tkind\n1\tompi\n");
	fclose(f);
}

static void
rndv_rr_profile(const char *dir)
{
	proto = "rndv-put";
	rr_profile(dir);
	proto = "eager";
}

/* Request/reply: rank 0 asks (idle until the answer), rank 1 works 40 ms on it, answers. */
static void
rr_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 100 * FX_MS;
		long long a = t + XFER;			/* the request arrives */
		long long b = a + 40 * FX_MS;		/* the reply leaves */

		fx_phase(ph, 0, "busy", t - 20 * FX_MS + (k == 0 ? 20 * FX_MS : 0), t);
		msg(m, t, a, 0, 1, BYTES);
		fprintf(ph, "1\tbusy\t%lld\t%lld\t%lld\t%lld\n", a, b, b - a - rr_wait_ns, rr_wait_ns);
		msg(m, b, b + XFER, 1, 0, BYTES);
	}
	fclose(m);
	fclose(ph);
	common(dir, 2, ITERS * 100 * FX_MS);
}

/* The halo, but rank 1's message (of the collective name, "-" none) reaches rank 0 in the
 * middle of rank 0's busy phase (rank 1 sends 30 ms early). */
static void
early_named(const char *dir, const char *name)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 100 * FX_MS;

		fx_phase(ph, 0, "busy", t, t + 80 * FX_MS);
		fx_phase(ph, 1, "busy", t, t + 50 * FX_MS);
		msg_nw(m, t + 50 * FX_MS, t + 50 * FX_MS + XFER, 1, 0, BYTES, BYTES, name);
	}
	fclose(m);
	fclose(ph);
	common(dir, 2, ITERS * 100 * FX_MS);
}

static void
early_profile(const char *dir)
{
	early_named(dir, "-");
}

/* The same, rank 1's message an allreduce's: it may come before rank 0 enters it. */
static void
early_coll_profile(const char *dir)
{
	early_named(dir, "allreduce");
}

/* Rank 0 sends every 100 ms; rank 1 waits for each message and works 30 ms on it. */
static void
sink_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 100 * FX_MS;

		fx_phase(ph, 0, "busy", t, t + 50 * FX_MS);
		msg(m, t + 50 * FX_MS, t + 50 * FX_MS + XFER, 0, 1, BYTES);
		fx_phase(ph, 1, "busy", t + 50 * FX_MS + XFER, t + 80 * FX_MS + XFER);
	}
	fclose(m);
	fclose(ph);
	common(dir, 2, ITERS * 100 * FX_MS);
}

/* Rank 0 works 50 ms of every 100 and sends rank 1 100 bytes (124 in the stream with the
 * MPI's header), which rank 1 waits for and works on for 30 ms. */
static void
small_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long xfer = LAT + 100 * 1000000000LL / 12500000LL;

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 100 * FX_MS;

		fx_phase(ph, 0, "busy", t, t + 50 * FX_MS);
		msg_w(m, t + 50 * FX_MS, t + 50 * FX_MS + xfer, 0, 1, 100, 124);
		fx_phase(ph, 1, "idle", t, t + 50 * FX_MS + xfer);
		fx_phase(ph, 1, "busy", t + 50 * FX_MS + xfer, t + 80 * FX_MS + xfer);
	}
	fclose(m);
	fclose(ph);
	common(dir, 2, ITERS * 100 * FX_MS);
}

/* Four ranks on ws1..ws4, 10 iterations of 60.05 ms: 50 ms busy, then every rank sends a
 * message to every other at once; all arrive XFER later, when the next iteration starts. */
static void
a2a_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long period = 50 * FX_MS + XFER;

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * period;

		for (int r = 0; r < 4; r++) {
			fx_phase(ph, r, "busy", t, t + 50 * FX_MS);
			fx_phase(ph, r, "idle", t + 50 * FX_MS, t + period);
			for (int q = 0; q < 4; q++)
				if (q != r)
					msg(m, t + 50 * FX_MS + 100 * r + 10 * q, t + period, r, q, BYTES);
		}
	}
	fclose(m);
	fclose(ph);
	common(dir, 4, ITERS * period);
}

/* Rank 0 (ws1) works 10 ms, sends BYTES to rank 1 and 1 ms later 1250 bytes to rank 2;
 * each works after its message (rank 2 for 200 ms); every rank's exec is 250 ms. */
static void
hol_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS, small_arr = t + 11 * FX_MS + LAT + 100000;

	fx_phase(ph, 0, "busy", t, t + 10 * FX_MS);
	msg(m, t + 10 * FX_MS, t + 10 * FX_MS + XFER, 0, 1, BYTES);
	msg(m, t + 11 * FX_MS, small_arr, 0, 2, 1250);
	fx_phase(ph, 1, "busy", t + 10 * FX_MS + XFER, t + 50 * FX_MS);
	fx_phase(ph, 2, "busy", small_arr, small_arr + 200 * FX_MS);
	fclose(m);
	fclose(ph);
	common(dir, 3, 250 * FX_MS);
}

/* Start-up: rank 0 (ws1) runs 40 ms of MPI_Init and set-up, then sends; rank 1 (ws2) waits
 * for it asleep, then works 50 ms on the message. Both exec 100 ms. */
static void
init_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS;

	fx_phase(ph, 0, "busy", t, t + 40 * FX_MS);
	fx_phase(ph, 0, "idle", t + 40 * FX_MS, t + 100 * FX_MS);
	fx_phase(ph, 1, "idle", t, t + 40 * FX_MS + LAT);
	msg(m, t + 40 * FX_MS, t + 40 * FX_MS + LAT, 0, 1, 8);
	fx_phase(ph, 1, "busy", t + 40 * FX_MS + LAT, t + 90 * FX_MS + LAT);
	fclose(m);
	fclose(ph);
	common(dir, 2, 100 * FX_MS);
}

static long long poll_gap_ns = FX_MS / 2;	/* pair_profile's answer after the question, polling */

/* Two ranks, 10 iterations of 110 ms: 80 ms busy, then one sends and the other sends back
 * 2 ms after that message arrived, as a polling rank whose send was posted with its receive
 * does. With alternate the first sender alternates (an exchange: each side is first half the
 * time), without it rank 0 always asks and rank 1 answers (a request and its reply). With
 * poll the ranks wait polling, which the samples read as busy: busy all the time, and the
 * answer leaves poll_gap_ns (0.5 ms) after the question came. */
static void
pair_profile(const char *dir, int alternate, int poll)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);

	for (int k = 0; k < ITERS; k++) {
		long long t = FX_BASE_NS + k * 110 * FX_MS, back = t + 80 * FX_MS + XFER + (poll ? poll_gap_ns : 2 * FX_MS);
		int a = alternate ? k % 2 : 0;

		for (int r = 0; r < 2; r++) {
			fx_phase(ph, r, "busy", t, t + (poll ? 110 : 80) * FX_MS);
			if (!poll)
				fx_phase(ph, r, "idle", t + 80 * FX_MS, t + 110 * FX_MS);
		}
		msg(m, t + 80 * FX_MS, t + 80 * FX_MS + XFER, a, 1 - a, BYTES);
		msg(m, back, back + XFER, 1 - a, a, BYTES);
	}
	fclose(m);
	fclose(ph);
	common(dir, 2, ITERS * 110 * FX_MS);
}

static void
xchg_profile(const char *dir)
{
	pair_profile(dir, 1, 0);
}

static void
pingpong_profile(const char *dir)
{
	pair_profile(dir, 0, 0);
}

static void
polled_profile(const char *dir)
{
	pair_profile(dir, 0, 1);
}

/* polled, but rank 1 works 5 ms on each question before it answers */
static void
worked_profile(const char *dir)
{
	poll_gap_ns = 5 * FX_MS;
	pair_profile(dir, 0, 1);
	poll_gap_ns = FX_MS / 2;
}

#define PANELS 40
#define PANEL_SMALL 12500LL	/* 1 ms at 12.5 MB/s, 10 ms at 1.25 MB/s */
#define PANEL_BIG 250000LL	/* 20 ms, 200 ms */
#define PANEL_ONE_WAY (PANELS / 2 * (PANEL_BIG + 2 * PANEL_SMALL))	/* bytes each way */

/* A factorization's panels, as ScaLAPACK's LU on two ranks sends them: each panel is a
 * question and its answer (12.5 kB each, the second leaving 40 us after the first
 * arrived), then the panel's owner (rank 0 and 1 in turn) sends the panel, 250 kB; the next
 * panel starts 8 ms after that left. Both ranks are busy the whole run (they poll), so a
 * message is needed at its receiver's next send. */
static void
panel_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	long long t = FX_BASE_NS, end = t;

	for (int k = 0; k < PANELS; k++) {
		int own = k % 2, s = 1 - own;

		for (int q = 0; q < 2; q++, s = 1 - s) {
			long long arr = t + LAT + PANEL_SMALL * 80;	/* 80 ns a byte: 12.5 MB/s */

			msg(m, t, arr, s, 1 - s, PANEL_SMALL);
			t = arr + 40000;
		}
		msg(m, t, t + LAT + PANEL_BIG * 80, own, 1 - own, PANEL_BIG);
		end = t + LAT + PANEL_BIG * 80;
		t += 8 * FX_MS;
	}
	end += 10 * FX_MS;
	for (int r = 0; r < 2; r++)
		fx_phase(ph, r, "busy", FX_BASE_NS - 10 * FX_MS, end);
	fclose(m);
	fclose(ph);
	common(dir, 2, end - FX_BASE_NS + 10 * FX_MS);
}

static int
predict(const char *run, const char *ini, struct pred_result *r)
{
	return fx_predict(run, ini, r, replay_predict);
}

static int
race_as_prediction(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	(void)e;
	r->status = PRED_OK;
	r->predicted_ns = replay_race_ns(p, s);
	return 0;
}

/* The rendezvous race: a halo of rendezvous both ways at once could take, at 1.25 MB/s,
 * 100 ms more an iteration if each pair went one way after the other (10 pairs: 1 s); with
 * a 25000-byte bucket the first 25000 bytes pass at once (0.8 s). Eager messages, a
 * rendezvous request and reply that are never in flight together, and an unchanged link
 * give nothing. */
TEST(rendezvous_both_ways_may_go_one_after_the_other)
{
	static const struct {
		const char *run, *ini;
		double race_ns;
	} c[] = {
		{ rndv_halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", 1e9 },
		{ rndv_halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\nburst = 25000 B\n", 0.8e9 },
		{ halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", 0 },
		{ rndv_rr_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", 0 },
		{ rndv_halo_run, "[node ws2]\ncpu_procs = 1\n", 0 },
	};

	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		struct pred_result r;

		CHECK(fx_predict(c[i].run, c[i].ini, &r, race_as_prediction) == 0);
		CHECK_NEAR(r.predicted_ns, c[i].race_ns, 1e3);
		pred_result_free(&r);
	}
}

/* Over a link 10x slower each transfer takes 100 ms. A late rank whose receive was posted
 * when its peer's request came asks first: both go side by side, the run 90 ms longer (its
 * 100 ms end at 180 and 180.05 ms, 90 ms after the measured 88.05 and 90.05). One that
 * answered first (after-answer) has its peer send first and answer it behind those data:
 * its own go from 178 to 278 ms, arriving 98 ms later than side by side. */
TEST(a_request_answered_behind_data_goes_after_them)
{
	const char *ini = "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n";
	struct pred_result side, after;

	CHECK(predict(late_run, ini, &side) == 0);
	CHECK(predict(late_answered_run, ini, &after) == 0);
	CHECK(side.status == PRED_OK);
	CHECK(after.status == PRED_OK);
	CHECK_NEAR(side.predicted_ns, 190 * FX_MS, 0.1 * FX_MS);
	CHECK_NEAR(after.predicted_ns - side.predicted_ns, 98 * FX_MS, 0.1 * FX_MS);
	pred_result_free(&side);
	pred_result_free(&after);
}

/* Over a link 10x slower each transfer takes 100 ms. Two exchanges back to back: the first
 * goes side by side (rank 1's request 0.55 ms after rank 0's reached it, as in the dedicated
 * run: its receive was posted), both ends at 178 and 178.6 ms; a capped link's two
 * directions do not end an exchange together, and the rank whose data end last asks first
 * next time, behind which its peer's answer goes: the second exchange goes one way after
 * the other (rank 0's data from 179.5 to 279.5 ms, rank 1's from 279.5 to 379.5 ms),
 * though its requests are only 0.25 ms apart. The run: 101 ms + (379.5 + 0.05 - 99.85)
 * ms = 380.7 ms, where side by side it was 281.0 ms. */
TEST(an_exchange_after_one_side_by_side_goes_one_way_after_the_other)
{
	struct pred_result r;

	CHECK(predict(twice_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 380.7 * FX_MS, 0.01 * FX_MS);
	pred_result_free(&r);
}

/* A rendezvous sender waits in MPI until its data are through. At 1.25 MB/s: the first
 * exchange goes side by side (D 90 ms after it); the second is answered behind data (rank
 * 0's 168 to 268 ms, rank 1's 268 to 368 ms); rank 1 had its half of it 9.35 ms before
 * its next request, but sent it only once its data were through (D 279.4 ms, as rank 0
 * receiving them), so the two requests of the third exchange leave 0.3 ms apart and go
 * side by side after the one that went one way after the other: the run is 101 + (469.2
 * + 0.05 - 99.85) = 470.4 ms. Taken as buffered, rank 1 asked 99 ms before rank 0, which
 * then answered first, and the third exchange went one way after the other too: 569.5 ms. */
TEST(a_rendezvous_sender_waits_until_its_data_are_through)
{
	struct pred_result r;

	CHECK(predict(thrice_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 470.4 * FX_MS, 0.01 * FX_MS);
	pred_result_free(&r);
}

TEST(unchanged_link_gives_the_dedicated_time)
{
	struct pred_result r;

	/* the same bandwidth and latency as measured: every transfer takes what it took */
	CHECK(predict(halo_run, "[link ws1-ws2]\nbandwidth = 12.5 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS, 1e3);
	pred_result_free(&r);
}

TEST(halo_on_a_slower_link_pays_one_transfer)
{
	struct pred_result r;

	/* 10x slower: 100 ms instead of 10 ms each way, both ways at once (different hosts'
	 * queues): +90 ms an iteration, not +180 */
	CHECK(predict(halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * (100 + 90) * FX_MS, 1e3);
	pred_result_free(&r);
}

/* The scenario's bandwidth is the wire's: the 125000 bytes take 87 TCP segments, each 66
 * bytes more on a tbf-capped link (Ethernet, IP and TCP headers), so the transfer takes
 * (125000 + 87 x 66) / 1.25 MB/s = 104.59 ms, not 100. */
TEST(a_links_rate_carries_the_frames_headers_too)
{
	struct pred_result r;

	CHECK(predict(halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * (100 + (125000 + 87 * 66) / 1250.0 - 10) * FX_MS, 1e3);
	pred_result_free(&r);
}

/* A small message takes a frame of its own: 124 bytes in the stream and the frame's 66 take
 * 190 / 12500 s = 15.2 ms at 100 kbit/s, not 100 bytes' 8.4 ms of payload; its dedicated
 * 58 us (50 us of latency, 8 us at the measured 12.5 MB/s) are no longer spent. Without a
 * frame overhead the stream's 124 bytes still go: 9.92 ms. */
TEST(a_small_message_takes_a_frame_of_its_own)
{
	struct pred_result r;

	CHECK(predict(small_run, "[link ws1-ws2]\nbandwidth = 100 kbit/s\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + 15.2 * FX_MS - 8e3, 1e3);
	pred_result_free(&r);
	CHECK(predict(small_run, "[link ws1-ws2]\nbandwidth = 100 kbit/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + 9.92 * FX_MS - 8e3, 1e3);
	pred_result_free(&r);
}

/* Each cycle waits for the request and the reply: +2 x 90 ms. Also when both ranks poll
 * while they wait (polled_run: busy all the time): the question came in rank 1's busy
 * phase, and rank 1 sent its next message 0.5 ms later (REPLAY_REPLY_NS) inside that phase:
 * it was waiting and replied, so the reply leaves only once the question is there. Taken as
 * work that came first (the reply before the question, sent at its measured time) it was
 * +90 ms, one transfer's excess (LU on 2 workstations under a strict cap came out 15 % fast
 * so: docs/predict.md, "A receive"). */
TEST(request_reply_pays_both)
{
	static const struct {
		const char *run;
		long long period_ms;
	} c[] = { { rr_run, 100 }, { polled_run, 110 } };

	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		struct pred_result r;

		CHECK(predict(c[i].run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
		CHECK(r.status == PRED_OK);
		CHECK_NEAR(r.predicted_ns, (double)ITERS * c[i].period_ms * FX_MS + ITERS * 180.0 * FX_MS, 1e4);
		pred_result_free(&r);
	}
}

/* The answer leaves 5 ms after the question came, both ranks busy all the time (polling).
 * On a whole CPU (no cpu_capacity in the run's meta: 1) a send within the samples' 20 ms
 * grain of the arrival, in the busy phase it came in, answers it: the 5 ms were work on the
 * question (QR's pipelined panels, LAMMPS's forces after the ghost atoms), so each cycle
 * waits for the question and the answer, +2 x 90 ms at 1.25 MB/s as in request_reply_pays_both:
 * 10 x 110 + 10 x 180 = 2900 ms. Under a quota (rank 1's cpu_capacity 0.5) a throttled
 * rank often sends within the grain of a message it did not wait for, and only 1 ms counts
 * (REPLAY_REPLY_NS): the question is needed after the answer left, which goes as late as
 * rank 1 is, one cycle behind: +90 ms a cycle, 10 x 110 + 10 x 90 = 2000 ms. */
TEST(work_after_a_receive_on_a_whole_cpu_is_the_messages)
{
	struct pred_result r;
	const char *scen = "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n";

	CHECK(predict(worked_run, scen, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 110 * FX_MS + ITERS * 180.0 * FX_MS, 1e4);
	pred_result_free(&r);
	fx_meta(worked_run, "rank-1.tsv", "cpu_capacity", "0.5");
	CHECK(predict(worked_run, scen, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 110 * FX_MS + ITERS * 90.0 * FX_MS, 1e4);
	pred_result_free(&r);
}

TEST(loaded_node_stretches_busy_time)
{
	struct pred_result r;

	/* one competitor on the replying rank's node: its 40 ms of work take 80, and each
	 * request it waited for (all but the first) waits for the competitor's slice */
	CHECK(predict(rr_run, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 40.0 * FX_MS +
					   (ITERS - 1) * replay_wake_ns(1, REPLAY_SLICE_NS, 1), 1e3);
	{
		const struct pred_item *it = FX_ITEM(&r, "node", "rank 1 (ws2)");

		CHECK(it != NULL);
		CHECK_NEAR(it ? it->value : 0, 2, 1e-12);
	}
	pred_result_free(&r);
	/* half a CPU for the asking rank: its 20 ms of work take 40 (the first 0) */
	CHECK(predict(rr_run, "[node ws1]\ncapacity = 0.5\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + (ITERS - 1) * 20.0 * FX_MS, 1e3);
	pred_result_free(&r);
}

/* The replying rank's busy phases held 10 ms of run-queue wait in 40: time another
 * process took (collect's agents on a node whose CPUs all run ranks). A competitor shares
 * the rank's CPU with its 30 ms of work, not with that time: each phase takes 30 * 2 + 10
 * = 70 ms, not 80. Under a quota (cpu_capacity 0.5: the wait may be the quota's or a
 * neighbour's, which the scenario keeps) the whole phase is stretched as before. */
TEST(the_wait_of_others_in_a_busy_phase_is_not_stretched)
{
	struct pred_result r;
	double wake = (ITERS - 1) * replay_wake_ns(1, REPLAY_SLICE_NS, 1);

	CHECK(predict(rr_waited_run, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 30.0 * FX_MS + wake, 1e3);
	{
		const struct pred_item *it = FX_ITEM(&r, "node", "rank 1 (ws2)");

		CHECK(it != NULL);
		CHECK_NEAR(it ? it->value : 0, 2 * 0.75 + 0.25, 1e-12);
	}
	pred_result_free(&r);
	/* a link scenario stretches nothing: the measured phases stay as they are */
	CHECK(predict(rr_waited_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 180.0 * FX_MS, 1e4);
	pred_result_free(&r);
	fx_meta(rr_waited_run, "rank-1.tsv", "cpu_capacity", "0.5");
	CHECK(predict(rr_waited_run, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 40.0 * FX_MS +
					   (ITERS - 1) * replay_wake_ns(1, REPLAY_SLICE_NS, 0.5), 1e3);
	pred_result_free(&r);
}

/* predict with collect's capture cost per packet set (predict --observer-cost) */
static int
predict_observed(const char *run, const char *ini, double ns_per_pkt, struct pred_result *r)
{
	return fx_predict_observed(run, ini, ns_per_pkt, r, replay_predict);
}

/* rr_waited, where each rank sent 10 packets an iteration and the capture cost 0.5 ms a
 * packet: 5 ms of each of rank 1's 40 ms phases was the kernel handing packets to
 * collect, which the bare program does not do, under a competitor or not. Each of rank
 * 1's phases takes (40 - 10 - 5) * 2 + 10 = 60 ms, not 70; rank 0, unloaded, loses its
 * 5 ms an iteration too (its 10 packets in 20 ms phases), which the chain of requests
 * and replies carries: 15 ms an iteration in all. With no cost nothing changes, and a
 * run without conns.tsv has no packets to count. */
TEST(the_captures_work_is_taken_out_of_every_busy_phase)
{
	struct pred_result r;
	double wake = (ITERS - 1) * replay_wake_ns(1, REPLAY_SLICE_NS, 1);
	struct prof p;
	struct err e;

	CHECK(prof_load(&p, rr_observed_run, &e) == 0);
	CHECK(p.nranks == 2);
	CHECK(p.nranks == 2 && p.ranks[1].pkts_sent == ITERS * 10);
	CHECK(p.nranks == 2 && p.ranks[0].pkts_sent == ITERS * 10);
	prof_free(&p);
	CHECK(prof_load(&p, rr_waited_run, &e) == 0);
	CHECK(p.nranks == 2 && p.ranks[1].pkts_sent == -1);
	prof_free(&p);
	/* a conns.tsv it cannot use: the packets stay unknown, the profile loads, counted */
	CHECK(prof_load(&p, rr_badconns_run, &e) == 0);
	CHECK(p.nranks == 2 && p.ranks[1].pkts_sent == -1);
	CHECK(p.damaged == 1);
	prof_free(&p);

	CHECK(predict_observed(rr_observed_run, "[node ws2]\ncpu_procs = 1\n", 0.5 * FX_MS, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 15.0 * FX_MS + wake, 1e3);
	{
		const struct pred_item *it = FX_ITEM(&r, "node", "rank 1 (ws2)");

		CHECK(it != NULL);
		CHECK_NEAR(it ? it->value : 0, 2 * 0.625 + 0.25, 1e-12);
		CHECK(it != NULL && strstr(it->detail, "CPU stretch x2 ") != NULL);
		CHECK(it != NULL && strstr(it->detail, "12.5 % of its busy time collect's capture") != NULL);
	}
	pred_result_free(&r);
	CHECK(predict_observed(rr_observed_run, "[node ws2]\ncpu_procs = 1\n", 0, &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 30.0 * FX_MS + wake, 1e3);
	pred_result_free(&r);
	/* a cost past the busy time: capped at what the others' wait leaves, so that a phase
	 * never goes below that wait */
	CHECK(predict_observed(rr_observed_run, "[node ws2]\ncpu_procs = 1\n", 10 * FX_MS, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK(r.predicted_ns < (double)ITERS * 100 * FX_MS + ITERS * 15.0 * FX_MS + wake);
	{
		const struct pred_item *it = FX_ITEM(&r, "node", "rank 1 (ws2)");

		CHECK(it != NULL);
		CHECK_NEAR(it ? it->value : 0, 0.25, 1e-12);
	}
	pred_result_free(&r);
}

/* A scenario that changes nothing asks for the program alone: rr_observed without the
 * capture's 5 ms in each rank's phases (rank 1's 40 ms ones take 35, rank 0's 20 take 15),
 * 10 ms an iteration off the chain of requests and replies, and no competitor's wake-up.
 * Without a capture cost there is nothing to take out: no number. */
TEST(the_program_alone_is_the_run_without_the_capture)
{
	struct pred_result r;

	CHECK(predict_observed(rr_observed_run, "[scenario]\ndescription = alone\n", 0.5 * FX_MS, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 90 * FX_MS, 1e3);
	{
		const struct pred_item *it = FX_ITEM(&r, "node", "rank 1 (ws2)");

		CHECK(it != NULL && strstr(it->detail, "CPU stretch x1;") != NULL);
		CHECK(it != NULL && strstr(it->detail, "12.5 % of its busy time collect's capture") != NULL);
	}
	pred_result_free(&r);
	CHECK(predict_observed(rr_observed_run, "[scenario]\ndescription = alone\n", 0, &r) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "what collect cost this run is not known") != NULL);
	pred_result_free(&r);
}

/* rank 1's meta in rr_observed: where its agent ran (observer_charged) and its CPU time */
static void
agent_meta(const char *charged, double agent_ns)
{
	FILE *f = fx_meta_open(rr_observed_run, "rank-1.tsv");

	fprintf(f, "observer_charged\t%s\nagent_utime_ns\t%.0f\nagent_stime_ns\t%.0f\n", charged, agent_ns / 2,
		agent_ns / 2);
	fclose(f);
}

/* rr_observed with rank 1's agent on its core: 4 ms of CPU an iteration, 4 of the 10 ms of
 * others' wait in each of its 40 ms phases, which the bare program does not have either.
 * One competitor: (40 - 10 - 5) x 2 + 10 - 4 = 56 ms a phase, not 60; alone: 31 ms, so
 * 9 + 5 ms off an iteration. An agent on a spare CPU took nothing from the rank (its wait
 * was others'), and one that used more than the wait takes out the wait, no more. */
TEST(the_agents_wait_is_taken_out)
{
	double wake = (ITERS - 1) * replay_wake_ns(1, REPLAY_SLICE_NS, 1);
	struct pred_result r;
	char path[512];

	agent_meta("shared: every allowed CPU runs a rank", ITERS * 4.0 * FX_MS);
	CHECK(predict_observed(rr_observed_run, "[node ws2]\ncpu_procs = 1\n", 0.5 * FX_MS, &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 111 * FX_MS + wake, 1e3);
	{
		const struct pred_item *it = FX_ITEM(&r, "node", "rank 1 (ws2)");

		CHECK(it != NULL && strstr(it->detail, "its busy time's 15.0 % of others' wait not stretched") != NULL);
		CHECK(it != NULL && strstr(it->detail, "12.5 % of its busy time collect's capture and 10.0 % its "
					   "agent, taken out") != NULL);
	}
	pred_result_free(&r);
	CHECK(predict_observed(rr_observed_run, "[scenario]\ndescription = alone\n", 0.5 * FX_MS, &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 86 * FX_MS, 1e3);
	pred_result_free(&r);
	/* the agent alone, no capture cost known: still the program alone */
	CHECK(predict_observed(rr_observed_run, "[scenario]\ndescription = alone\n", 0, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 96 * FX_MS, 1e3);
	pred_result_free(&r);
	agent_meta("no: a spare CPU", ITERS * 4.0 * FX_MS);
	CHECK(predict_observed(rr_observed_run, "[node ws2]\ncpu_procs = 1\n", 0.5 * FX_MS, &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 115 * FX_MS + wake, 1e3);
	pred_result_free(&r);
	agent_meta("shared: every allowed CPU runs a rank", ITERS * 20.0 * FX_MS);
	CHECK(predict_observed(rr_observed_run, "[node ws2]\ncpu_procs = 1\n", 0.5 * FX_MS, &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 105 * FX_MS + wake, 1e3);
	pred_result_free(&r);
	snprintf(path, sizeof path, "%s/meta/rank-1.tsv", rr_observed_run);
	unlink(path);
}

TEST(message_that_came_in_a_busy_phase_was_waited_for)
{
	struct pred_result r;

	/* 100 ms instead of 10: the message arrives at 150 ms instead of 60, in what the
	 * samples read as rank 0's busy phase; a rank polls inside MPI while it waits, which
	 * reads busy, so it needed the message when it came: 90 ms late, not 70 (as if it
	 * needed it only when the phase ended at 80). Rank 1 goes on sending every 100 ms, so
	 * the lateness does not add up from one iteration to the next */
	CHECK(predict(early_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + 90.0 * FX_MS, 1e3);
	pred_result_free(&r);
}

/* The same message of a collective: rank 0 enters the collective when its busy phase ends
 * at 80 ms, so the message arriving at 150.05 ms instead of 60.05 is 70.05 ms late for it. */
TEST(a_collectives_message_waits_for_its_receiver_to_enter)
{
	struct pred_result r;

	CHECK(predict(early_coll_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + 70.0 * FX_MS + LAT, 1e3);
	pred_result_free(&r);
}

TEST(slack_absorbs_a_slower_receiver)
{
	struct pred_result r;

	/* half a CPU for the receiver: each 30 ms of work takes 60, inside the 70 ms it
	 * waited for the next message anyway; only the last one sticks out */
	CHECK(predict(sink_run, "[node ws2]\ncapacity = 0.5\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + 30.0 * FX_MS, 1e3);
	pred_result_free(&r);
	/* a quarter: 120 ms of work a message, 20 ms more than the period: 20 ms more late
	 * with each message, and the last one's 90 ms */
	CHECK(predict(sink_run, "[node ws2]\ncapacity = 0.25\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + (ITERS - 1) * 20.0 * FX_MS + 90.0 * FX_MS, 1e3);
	pred_result_free(&r);
}

TEST(waited_for_receive_waits_for_the_slice)
{
	struct pred_result r;
	char path[512];

	/* k / (k + 1) of the time a competitor has the CPU, k * slice / 2 of it to go; a
	 * quota of capacity c makes a slice of CPU slice / c of wall time */
	CHECK_NEAR(replay_wake_ns(1, 3e6, 1), 0.75e6, 1e-6);
	CHECK_NEAR(replay_wake_ns(1, 3e6, 0.5), 1.5e6, 1e-6);
	CHECK_NEAR(replay_wake_ns(2, 3e6, 1), 2e6, 1e-6);
	CHECK_NEAR(replay_wake_ns(1, 3e6, 2), 0.75e6, 1e-6);	/* a core of its own: no quota */
	CHECK(replay_wake_ns(0, 3e6, 0.5) == 0);
	CHECK(replay_wake_ns(1, NAN, 1) == 0);
	/* the node's recorded slice and the rank's recorded quota: 4 ms, half a CPU */
	fx_meta(rr_run, "node-ws2.tsv", "sched_slice_ns", "4000000");
	fx_meta(rr_run, "rank-1.tsv", "cpu_capacity", "0.5");
	CHECK(predict(rr_run, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 40.0 * FX_MS + (ITERS - 1) * 2.0 * FX_MS,
		   1e3);
	pred_result_free(&r);
	/* a scenario's capacity is the one that counts (and stretches the work: 40 ms take
	 * 2 x 40 / 0.25) */
	CHECK(predict(rr_run, "[node ws2]\ncpu_procs = 1\ncapacity = 0.25\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + ITERS * 280.0 * FX_MS + (ITERS - 1) * 4.0 * FX_MS,
		   1e3);
	pred_result_free(&r);
	/* the rank that asks has no competitor: no wake-up delay for its replies */
	CHECK(predict(rr_run, "[node ws1]\ncapacity = 0.5\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS + (ITERS - 1) * 20.0 * FX_MS, 1e3);
	pred_result_free(&r);
	snprintf(path, sizeof path, "%s/meta/node-ws2.tsv", rr_run);
	unlink(path);
	snprintf(path, sizeof path, "%s/meta/rank-1.tsv", rr_run);
	unlink(path);
}

TEST(refuses_without_a_change_or_a_trace)
{
	struct pred_result r;

	CHECK(predict(halo_run, "[node ws9]\ncpu_procs = 1\n", &r) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "changes nothing") != NULL);
	pred_result_free(&r);
}

TEST(all_to_all_shares_a_capped_link)
{
	static const char ini[] = "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n[link ws1-ws3]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n"
				  "[link ws1-ws4]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n";
	struct pred_result r;

	/* ws1's link at 1.25 MB/s: its three sends share it (and so do its three receives),
	 * so all six end 3 x 100 ms after they left; against 10.05 ms each iteration is 290 ms
	 * later, for every rank (each waits for ws1's message) */
	CHECK(predict(a2a_run, ini, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * (50 * FX_MS + XFER) + ITERS * 290.0 * FX_MS, 1e4);
	CHECK(strstr(r.note, "max-min fair") != NULL);
	pred_result_free(&r);
}

TEST(a_short_message_is_not_queued_behind_a_long_one)
{
	static const char ini[] = "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n[link ws1-ws3]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n";
	struct pred_result r;

	/* the long one moves 1250 B alone, then both at 0.625 MB/s until the short one is
	 * through (13 ms), then the rest alone: done at 111 ms, 91 ms later than measured
	 * (20.05 ms): rank 1 ends at 341 ms. The short one is 1.9 ms late, rank 2 ends at
	 * 251.9 ms; a queue would have made it 99.9 ms late (349.9 ms) */
	CHECK(predict(hol_run, ini, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 341.0 * FX_MS, 1e4);
	{
		const struct pred_item *it = FX_ITEM(&r, "node", "rank 2 (ws3)");

		CHECK(it != NULL);
		CHECK_NEAR(it ? it->added_ns : 0, 1.9 * FX_MS, 1e4);
	}
	pred_result_free(&r);
}

TEST(a_token_bucket_passes_the_bursts_it_holds)
{
	struct pred_result r;

	/* 1.25 MB/s on average, with a bucket over the measured 12.5 MB/s line (tc's tbf, as
	 * the testbed caps a link): a 250 kB bucket holds each 125 kB message and refills in
	 * the 90 ms between them, so every message goes at the line, as measured; a strict
	 * 1.25 MB/s (the old reading of the same bandwidth) was +90 ms an iteration */
	CHECK(predict(halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\nburst = 250 kB\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 100 * FX_MS, 1e4);
	pred_result_free(&r);
	/* a 62.5 kB bucket: the bucket and then 1.25 MB/s for the other 62.5 kB, 50 ms a
	 * message (bucket + rate x t = bytes): +40 ms an iteration; the bucket is full again
	 * 50 ms after each message, before the next leaves 90 ms after */
	CHECK(predict(halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\nburst = 62.5 kB\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * (100 + 40) * FX_MS, 1e4);
	pred_result_free(&r);
}

TEST(start_up_is_work_where_it_ran_and_waiting_where_it_waited)
{
	struct pred_result r;

	/* measured on the testbed (Open MPI and MPICH, one competitor on a rank's node): that
	 * rank's start-up took 1.7-1.9 times as long, and with Open MPI the other rank, which
	 * waited for it, left as late. A competitor on ws1 doubles rank 0's 40 ms: rank 1
	 * gets its message 40 ms late and ends at 140 ms */
	CHECK(predict(init_run, "[node ws1]\ncpu_procs = 1\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 140.0 * FX_MS, 1e3);
	pred_result_free(&r);
	/* on ws2 only rank 1's 50 ms of work double; its waiting start-up does not */
	CHECK(predict(init_run, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 150.0 * FX_MS, 1e3);
	pred_result_free(&r);
}

TEST(an_exchange_does_not_chain_its_two_directions)
{
	struct pred_result r;

	/* 100 ms instead of 10 each way. Each side is first half the time, so the second
	 * message of a pair was posted with the receive and left without waiting for it: the
	 * second sender sends D late, then takes the first message (2 ms of slack: D + 88);
	 * the first sender takes the second at D + 90. The ranks' D go (88, 90), (176, 180),
	 * ..., up 90 ms an iteration: 900 ms after 10, one transfer's excess an iteration as
	 * in the halo */
	CHECK(predict(xchg_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 110 * FX_MS + ITERS * 90.0 * FX_MS, 1e4);
	pred_result_free(&r);
	/* the same timing with rank 0 always first is a request and its reply: the answer
	 * waits for the question, +180 ms an iteration (rank 0 ends 1800 ms late) */
	CHECK(predict(pingpong_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (double)ITERS * 110 * FX_MS + ITERS * 180.0 * FX_MS, 1e4);
	pred_result_free(&r);
}

TEST(row_order_changes_nothing)
{
	static const char ini[] = "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n[node ws1]\ncpu_procs = 1\n";
	struct pred_result a, b;

	CHECK(predict(halo_run, ini, &a) == 0);
	CHECK(predict(rev_run, ini, &b) == 0);
	CHECK(a.status == PRED_OK);
	CHECK(b.status == PRED_OK);
	CHECK(a.predicted_ns > (double)ITERS * 100 * FX_MS);	/* the scenario costs */
	CHECK(a.predicted_ns == b.predicted_ns);
	CHECK(strcmp(a.note, b.note) == 0);
	pred_result_free(&a);
	pred_result_free(&b);
	/* explain's reading too: each rank's lateness, to the bit */
	{
		struct prof p, q;
		struct replay_trace tp, tq;
		struct err e;
		double f[2] = { 1.5, 1 }, lp[2], lq[2];
		struct replay_out op = { .late_ns = lp }, oq = { .late_ns = lq };

		CHECK(prof_load(&p, halo_run, &e) == 0);
		CHECK(prof_load(&q, rev_run, &e) == 0);
		replay_trace_init(&tp, &p, REPLAY_MEASURED);
		replay_trace_init(&tq, &q, REPLAY_MEASURED);
		CHECK(tp.nev == 4 * ITERS);
		CHECK(tq.nev == tp.nev);
		CHECK(replay_run(&tp, &(struct replay_in){ .busy_f = f }, &op, &e) == 0);
		CHECK(replay_run(&tq, &(struct replay_in){ .busy_f = f }, &oq, &e) == 0);
		CHECK(lp[0] > 0);
		CHECK(lp[0] == lq[0]);
		CHECK(lp[1] == lq[1]);
		CHECK(op.run_ns == oq.run_ns);
		replay_trace_free(&tp);
		replay_trace_free(&tq);
		prof_free(&p);
		prof_free(&q);
	}
}

TEST(a_bigger_bucket_is_never_slower)
{
	static const long long burst[] = { 0, 20000, 125000, 500000 };
	double last = INFINITY;

	/* The link at 1.25 MB/s: each way 5.5 MB, which no bucket of B bytes lets through in
	 * less than (5.5 MB - B) / 1.25 MB/s; and a bigger bucket only lets more through at the
	 * line's speed, so it cannot make the run slower. The replay that shared the links by
	 * passes (departures from one pass, finishing times for the next) swung between two
	 * schedules here and stopped on either: 3.67 s without a bucket (below 4.4 s, faster
	 * than the link allows) and 10.1 s with a 125 kB one */
	for (size_t i = 0; i < sizeof burst / sizeof *burst; i++) {
		char ini[128];
		struct pred_result r;

		snprintf(ini, sizeof ini, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\nburst = %lld B\n", burst[i]);
		CHECK(predict(panel_run, ini, &r) == 0);
		CHECK(r.status == PRED_OK);
		CHECK(r.predicted_ns >= (double)(PANEL_ONE_WAY - burst[i]) / 1.25e6 * 1e9);
		CHECK(r.predicted_ns <= last);
		last = r.predicted_ns;
		pred_result_free(&r);
	}
}

TEST(a_result_above_every_delay_added_up_is_refused)
{
	struct prof p;
	struct replay_trace t;
	struct pred_result r;
	struct err e;
	double lat[2 * ITERS], bw[2 * ITERS], f[2] = { 2, 1 }, wk[2] = { 0, 1e6 }, bound;

	/* the halo at 1.25 MB/s: 1 s dedicated, and its 20 messages twice at 100 ms + L */
	CHECK(prof_load(&p, halo_run, &e) == 0);
	CHECK(p.nmsgs == 2 * ITERS);
	for (int k = 0; k < 2 * ITERS; k++) {
		lat[k] = LAT;
		bw[k] = 1.25e6;
	}
	replay_trace_init(&t, &p, REPLAY_DEDICATED);
	bound = replay_bound_ns(&t, &(struct replay_in){ .lat_ns = lat, .bw_Bps = bw });
	CHECK_NEAR(bound, 1e9 + 2 * ITERS * 2 * (LAT + 100.0 * FX_MS), 1);
	/* rank 0 twice as slow: all of the run at x2; rank 1's 10 receives woken 1 ms late */
	CHECK_NEAR(replay_bound_ns(&t, &(struct replay_in){ .busy_f = f, .wake_ns = wk, .lat_ns = lat, .bw_Bps = bw }),
		   2e9 + ITERS * 1e6 + 2 * ITERS * 2 * (LAT + 100.0 * FX_MS), 1);
	CHECK(replay_bound_ns(&t, NULL) == 1e9);
	replay_trace_free(&t);
	prof_free(&p);

	/* the replay's own result is below it and applies; a result above it does not, one
	 * at it does */
	CHECK(predict(halo_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK(r.predicted_ns < bound);
	CHECK(replay_check_bound(&r, bound, bound) == 0);
	CHECK(r.status == PRED_OK);
	CHECK(replay_check_bound(&r, bound + 1e6, bound) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "its result, 5.0 s, is above all its delays added one after another (5.0 s)") != NULL);
	pred_result_free(&r);

	/* A host side takes the slowest changed link on it: ws1's sends share 12.5 kB/s, so
	 * the 125 kB message to ws2 (at 1.25 MB/s on its own link) moves 12.5 B alone, 1250 B
	 * beside the short one to ws3 (200 ms), then the rest alone (9.899 s): done at 10.110 s,
	 * 10.09 s late, and rank 1 ends at 10.34 s. The bound counts the same capacity (taken
	 * from each message's own link it was 0.7 s, and refused the result) */
	CHECK(predict(hol_run, "[link ws1-ws2]\nbandwidth = 1.25 MB/s\nframe_overhead = 0 B\n[link ws1-ws3]\nbandwidth = 12.5 kB/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, (0.011 + 0.2 + 123737.5 / 12500 - 0.02) * 1e9 + 250.0 * FX_MS, 1e4);
	pred_result_free(&r);
}

TEST(caps_of_the_trace_are_checked)
{
	struct prof p = { .run = "big", .nranks = 4, .nmsgs = REPLAY_MAX_MSGS, .nbusy = REPLAY_MAX_BUSY };
	struct err e = { 0 };

	CHECK(replay_fits(&p, &e) == 0);	/* the counts alone: no array is read */
	p.nmsgs++;
	CHECK(replay_fits(&p, &e) == -E_LIMIT);
	CHECK(strstr(e.msg, "at most 2147483647 messages, 'big' has 2147483648") != NULL);
	p.nmsgs--;
	p.nbusy++;
	if (CHECKED(replay_fits(&p, &e) == -E_LIMIT))
		CHECK(strstr(e.msg, "busy phases") != NULL);
	p.nbusy--;
	p.nranks = REPLAY_MAX_RANKS + 1;
	if (CHECKED(replay_fits(&p, &e) == -E_LIMIT))
		CHECK(strstr(e.msg, "ranks") != NULL);
}

int
main(void)
{
	fx_build(halo_run, sizeof halo_run, "halo", halo_profile);
	fx_build(late_run, sizeof late_run, "late", late_profile);
	fx_build(late_answered_run, sizeof late_answered_run, "late-answered", late_answered_profile);
	fx_build(twice_run, sizeof twice_run, "twice", twice_profile);
	fx_build(thrice_run, sizeof thrice_run, "thrice", thrice_profile);
	fx_build(rr_run, sizeof rr_run, "rr", rr_profile);
	fx_build(rr_waited_run, sizeof rr_waited_run, "rr-waited", rr_waited_profile);
	fx_build(rr_observed_run, sizeof rr_observed_run, "rr-observed", rr_observed_profile);
	fx_build(rr_badconns_run, sizeof rr_badconns_run, "rr-badconns", rr_badconns_profile);
	fx_build(early_run, sizeof early_run, "early", early_profile);
	fx_build(early_coll_run, sizeof early_coll_run, "early-coll", early_coll_profile);
	fx_build(sink_run, sizeof sink_run, "sink", sink_profile);
	fx_build(small_run, sizeof small_run, "small", small_profile);
	fx_build(a2a_run, sizeof a2a_run, "a2a", a2a_profile);
	fx_build(hol_run, sizeof hol_run, "hol", hol_profile);
	fx_build(init_run, sizeof init_run, "init", init_profile);
	fx_build(xchg_run, sizeof xchg_run, "xchg", xchg_profile);
	fx_build(pingpong_run, sizeof pingpong_run, "pingpong", pingpong_profile);
	fx_build(polled_run, sizeof polled_run, "polled", polled_profile);
	fx_build(worked_run, sizeof worked_run, "worked", worked_profile);
	fx_build(rev_run, sizeof rev_run, "rev", halo_rev_profile);
	fx_build(panel_run, sizeof panel_run, "panel", panel_profile);
	fx_build(rndv_halo_run, sizeof rndv_halo_run, "rndv-halo", rndv_halo_profile);
	fx_build(rndv_rr_run, sizeof rndv_rr_run, "rndv-rr", rndv_rr_profile);
	RUN(unchanged_link_gives_the_dedicated_time);
	RUN(halo_on_a_slower_link_pays_one_transfer);
	RUN(a_links_rate_carries_the_frames_headers_too);
	RUN(a_small_message_takes_a_frame_of_its_own);
	RUN(request_reply_pays_both);
	RUN(work_after_a_receive_on_a_whole_cpu_is_the_messages);
	RUN(loaded_node_stretches_busy_time);
	RUN(the_wait_of_others_in_a_busy_phase_is_not_stretched);
	RUN(the_captures_work_is_taken_out_of_every_busy_phase);
	RUN(the_program_alone_is_the_run_without_the_capture);
	RUN(the_agents_wait_is_taken_out);
	RUN(message_that_came_in_a_busy_phase_was_waited_for);
	RUN(a_collectives_message_waits_for_its_receiver_to_enter);
	RUN(slack_absorbs_a_slower_receiver);
	RUN(waited_for_receive_waits_for_the_slice);
	RUN(refuses_without_a_change_or_a_trace);
	RUN(all_to_all_shares_a_capped_link);
	RUN(a_short_message_is_not_queued_behind_a_long_one);
	RUN(start_up_is_work_where_it_ran_and_waiting_where_it_waited);
	RUN(a_token_bucket_passes_the_bursts_it_holds);
	RUN(an_exchange_does_not_chain_its_two_directions);
	RUN(row_order_changes_nothing);
	RUN(a_bigger_bucket_is_never_slower);
	RUN(a_result_above_every_delay_added_up_is_refused);
	RUN(caps_of_the_trace_are_checked);
	RUN(rendezvous_both_ways_may_go_one_after_the_other);
	RUN(a_request_answered_behind_data_goes_after_them);
	RUN(an_exchange_after_one_side_by_side_goes_one_way_after_the_other);
	RUN(a_rendezvous_sender_waits_until_its_data_are_through);
	return check_done();
}
