/* test_p003: paper 003's CPU and link sharing models against its Figure 2 and Section 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "predict/p000.h"
#include "predict/run000.h"
#include "predict/p003.h"
#include "predict/run003.h"
#include "tests/unit/check.h"

/* Figure 2 (a): always busy: a competing process doubles the run time. */
TEST(fig2a_doubles)
{
	CHECK_NEAR(p003_cpu_increase(1000e6, 0, 1), 1.0, 1e-12);
}

/* Figure 2 (b): busy 300 ms, idle 50 ms: +(300 - 50) / 350. */
TEST(fig2b_250_over_350)
{
	CHECK_NEAR(p003_cpu_increase(300e6, 50e6, 1), 250.0 / 350, 1e-12);
}

/* Figure 2 (c): busy 50 ms, idle 300 ms: unaffected. */
TEST(fig2c_unaffected)
{
	CHECK_NEAR(p003_cpu_increase(50e6, 300e6, 1), 0, 1e-12);
	CHECK_NEAR(p003_cpu_increase(300e6, 300e6, 1), 0, 1e-12);	/* busy == idle */
}

/* k competitors: reduces to the paper at k = 1; (k + 1) times for a CPU-bound program;
 * idle time absorbs up to idle / busy competitors; never negative, never below k - 1's. */
TEST(k_competitors)
{
	srand(3);
	for (int t = 0; t < 1000; t++) {
		double b = 1e6 * (rand() % 1000), d = 1e6 * (rand() % 1000);
		double paper = b > d ? (b - d) / (b + d) : 0;

		if (b + d == 0)
			continue;
		CHECK_NEAR(p003_cpu_increase(b, d, 1), paper, 1e-12);
		CHECK_NEAR(p003_cpu_increase(b, d, 0), 0, 0);
		for (int k = 1; k < 6; k++) {
			CHECK(p003_cpu_increase(b, d, k) >= p003_cpu_increase(b, d, k - 1));
			CHECK(p003_cpu_increase(b, d, k) <= k);	/* at most (k+1) times as long */
		}
	}
	CHECK_NEAR(p003_cpu_increase(100e6, 0, 3), 3, 1e-12);	/* 4 ways: 4 times as long */
	CHECK_NEAR(p003_cpu_increase(300e6, 50e6, 2), (600.0 - 50) / 350, 1e-12);
	CHECK_NEAR(p003_cpu_increase(50e6, 300e6, 6), 0, 1e-12);	/* 6 * 50 <= 300 */
	CHECK_NEAR(p003_cpu_increase(50e6, 300e6, 7), 50.0 / 350, 1e-12);
}

/* A load average: whole values are k competitors, fractions interpolate. */
TEST(load_average)
{
	CHECK_NEAR(p003_cpu_increase_load(300e6, 50e6, 1.0), 250.0 / 350, 1e-12);
	CHECK_NEAR(p003_cpu_increase_load(300e6, 50e6, 2.0), 550.0 / 350, 1e-12);
	CHECK_NEAR(p003_cpu_increase_load(300e6, 50e6, 1.5), 0.5 * 250.0 / 350 + 0.5 * 550.0 / 350, 1e-12);
	CHECK_NEAR(p003_cpu_increase_load(300e6, 50e6, 0.5), 0.5 * 250.0 / 350, 1e-12);
	CHECK_NEAR(p003_cpu_increase_load(300e6, 50e6, 0), 0, 0);
}

/* Section 2.2 on the CG row of Figure 3 (1264 messages of 18.4 KB), L = 400 us, B = 70 Mbit/s,
 * the link cut to 10 Mbit/s. */
TEST(sec22_link)
{
	double avg = 18.4 * 1024, B = 70e6 / 8, nB = 10e6 / 8;
	double want = 1264 * (avg / nB - avg / B) * 1e9;

	CHECK_NEAR(p003_link_added_ns(1264, avg, 400e3, B, 400e3, nB), want, 1e-3);
	CHECK_NEAR(p003_link_added_ns(1264, avg, 400e3, B, 400e3, nB) / 1e9, 16.33, 0.01);	/* 1264 * 150733 bit * (1/10 - 1/70) us/bit */
	/* latency alone: 100 messages, 1 ms more each */
	CHECK_NEAR(p003_link_added_ns(100, 0, 50e3, B, 1050e3, B), 100e6, 1e-6);
	/* faster link: negative */
	CHECK(p003_link_added_ns(10, 1e6, 0, B, 0, 2 * B) < 0);
}

/* 100 cycles of busy 300 ms + idle 50 ms = 35 s, one competitor, the whole CPU, asleep while
 * idle, no link change. */
static void
node_in_fig2b(struct p003_node_in *in)
{
	memset(in, 0, sizeof *in);
	in->t_ns = 35e9;
	in->busy_ns = 300e6;
	in->idle_ns = 50e6;
	in->n_busy = 100;
	in->n_idle = 100;
	in->k = 1;
	in->load_avg = -1;
	in->capacity = 1;
}

/* Section 3.3: link first, then sharing on the changed pattern. */
TEST(sec33_combined)
{
	struct p003_node_in in;
	struct p003_node_out out;

	/* the link adds 5 s, all idle */
	node_in_fig2b(&in);
	in.link_added_ns = 5e9;
	in.comm_busy_frac = 0;
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.t_link_ns, 40e9, 1);
	CHECK_NEAR(out.idle_ns, 100e6, 1e-3);
	CHECK_NEAR(out.increase, 200.0 / 400, 1e-12);
	CHECK_NEAR(out.t_ns, 40e9 * 1.5, 1);
	/* the same added time spent busy hurts more */
	in.comm_busy_frac = 1;
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.busy_ns, 350e6, 1e-3);
	CHECK_NEAR(out.t_ns, 40e9 * (1 + 300.0 / 400), 1);
	/* no link change: Figure 2 (b) scaled */
	in.link_added_ns = 0;
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.t_ns, 35e9 * (1 + 250.0 / 350), 1);
	/* half a CPU and no competitor: busy phases double */
	in.k = 0;
	in.capacity = 0.5;
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.t_ns, 35e9 * 650 / 350, 1);
	in.capacity = 0;
	CHECK(p003_node(&in, &out) < 0);
}

static void
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* A 2-rank run built by hand in check_tmpdir()/NAME: rank 0 on ws1, rank 1 on ws2; 35 s;
 * busy 300 / idle 50 ms. Returns the profile directory (static). */
static const char *
make_run_named(const char *name)
{
	static char prof[300];
	char run[256];

	snprintf(run, sizeof run, "%s/%s", check_tmpdir(), name);
	snprintf(prof, sizeof prof, "%s/profile", run);
	mkdir(run, 0755);
	mkdir(prof, 0755);
	put(prof, "ranks.tsv",
	    "# contend-ranks 1\n"
	    "rank\thost\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tn_busy\tn_idle\t"
	    "cpu_pct\trun_ns\twait_ns\tmsgs_sent\tbytes_sent\tmsgs_recv\tbytes_recv\n"
	    "0\tws1\t35000000000\t80\t5.7\t14.3\t300000000\t50000000\t100\t100\t85.7\t30000000000\t0\t1000\t1000000\t1000\t1000000\n"
	    "1\tws2\t34000000000\t80\t5.7\t14.3\t300000000\t50000000\t100\t100\t85.7\t30000000000\t0\t1000\t1000000\t1000\t1000000\n");
	put(prof, "links.tsv",
	    "# contend-links 1\n"
	    "src\tdst\tmsgs\tbytes\tavg_bytes\tactive_ns\tt_first_ns\tt_last_ns\n"
	    "0\t1\t1000\t1000000\t1000\t1000000\t0\t35000000000\n"
	    "1\t0\t1000\t1000000\t1000\t1000000\t0\t35000000000\n");
	put(prof, "netparams.tsv",
	    "# contend-netparams 1\nkey\tvalue\nlat_ns\t50000\nlat_how\tping-pong\nbw_Bps\t12500000\nbw_how\tbulk\n");
	return prof;
}

/* make_run_named("run"); returns the run directory (static). */
static const char *
make_run(void)
{
	static char run[256];

	(void)make_run_named("run");
	snprintf(run, sizeof run, "%s/run", check_tmpdir());
	return run;
}

TEST(run_level_one_loaded_node)
{
	const char *run = make_run();
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;

	CHECK(prof_load(&p, run, &e) == 0);
	CHECK(scen_load_string(&s, "[node ws2]\ncpu_procs = 1\n", "t.ini", &e) == 0);
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_OK);
	/* the paper: the whole run grows by rank 1's fraction, T = the longest rank (35 s) */
	CHECK_NEAR(r.predicted_ns, 35e9 * (1 + 250.0 / 350), 1e3);
	CHECK(r.nitems == 1);
	CHECK_STR(r.items[0].kind, "node");
	CHECK_NEAR(r.items[0].added_ns, 35e9 * 250.0 / 350, 1e3);
	pred_result_free(&r);
	scen_free(&s);

	/* link ws1-ws2 latency +1 ms: 2000 messages, both ranks wait: +2 s */
	CHECK(scen_load_string(&s, "[link ws1-ws2]\nlatency = 1050 us\n", "t.ini", &e) == 0);
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK_NEAR(r.predicted_ns, 37e9, 1e3);
	CHECK_NEAR(r.items[0].added_ns, 2e9, 1e3);
	pred_result_free(&r);
	scen_free(&s);

	/* nothing this model sees: it says why */
	CHECK(scen_load_string(&s, "[node ws2]\nweight = 2\n", "t.ini", &e) == 0);
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "changes nothing") != NULL);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

/* Idle time spent awake (polling, or runnable on a run queue) earns no scheduler credit:
 * fully awake, the busy share is stretched k + 1 ways whatever the idle phases; half awake,
 * half the idle time absorbs competitors; asleep, the paper's formula. */
TEST(awake_idle_earns_no_credit)
{
	CHECK_NEAR(p003_cpu_increase_awake(300e6, 50e6, 1, 0), 250.0 / 350, 1e-12);
	CHECK_NEAR(p003_cpu_increase_awake(300e6, 50e6, 1, 1), 300.0 / 350, 1e-12);
	CHECK_NEAR(p003_cpu_increase_awake(50e6, 300e6, 1, 1), 50.0 / 350, 1e-12);	/* Fig. 2 (c) polling */
	CHECK_NEAR(p003_cpu_increase_awake(50e6, 300e6, 1, 0.5), 0, 1e-12);		/* 50 <= 150 */
	CHECK_NEAR(p003_cpu_increase_awake(100e6, 100e6, 2, 0.5), 150.0 / 200, 1e-12);
	CHECK_NEAR(p003_cpu_increase_awake(100e6, 100e6, 2, 7), 200.0 / 200, 1e-12);	/* clamped to 1 */
	CHECK_NEAR(p003_cpu_increase_load_awake(300e6, 50e6, 1.5, 1), 0.5 * 300.0 / 350 + 0.5 * 600.0 / 350, 1e-12);
	for (int k = 0; k <= 4; k++)
		for (double a = 0; a <= 1; a += 0.25)
			CHECK(p003_cpu_increase_awake(70e6, 45e6, k, a) >= p003_cpu_increase(70e6, 45e6, k));
}

/* A rank that shares its node (docs/predict.md, p003): the extra demand kx stands in for the
 * competitor counts in Section 2.1, a load average blends the two as it blends n and n + 1;
 * without shared, kx is not read (a zeroed struct is the paper's case). */
TEST(shared_node_extra_demand)
{
	struct p003_node_in in;
	struct p003_node_out out;

	node_in_fig2b(&in);
	in.awake_frac = 1;
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.increase, 300.0 / 350, 1e-12);		/* alone: k = 1 */
	in.shared = true;
	in.kx[0] = 0.5;		/* one competitor among two always-runnable ranks: 3 / 2 */
	in.kx[1] = 1;
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.increase, 150.0 / 350, 1e-12);
	CHECK_NEAR(out.t_ns, 35e9 * (1 + 150.0 / 350), 1);
	in.load_avg = 1.5;	/* n = 1 half the time, 2 the other half */
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.increase, 0.5 * 150.0 / 350 + 0.5 * 300.0 / 350, 1e-12);
	in.awake_frac = 0;	/* asleep while idle: the credit covers 50 ms of the 150 */
	in.load_avg = -1;
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.increase, 100.0 / 350, 1e-12);
	in.kx[1] = 0.25;	/* n + 1 cannot take less than n */
	CHECK(p003_node(&in, &out) < 0);
	in.kx[0] = -1;
	CHECK(p003_node(&in, &out) < 0);
	in.shared = false;	/* kx unread */
	CHECK(p003_node(&in, &out) == 0);
	CHECK_NEAR(out.increase, 250.0 / 350, 1e-12);
}

/* Full-duplex links: a rank's sends and receives that overlap in time are waited for once;
 * sends share the outgoing direction and add up, so do receives; a message that starts
 * after another ended (a reply) adds up with it, as in Section 2.2. */
TEST(overlap_share)
{
	/* times in the dedicated run (t0, t1), transfer time before and after, direction */
	struct p003_xfer pingpong[] = {
		{ 0, 100, 10, 110, 1, 0 }, { 200, 300, 10, 110, 0, 0 }, { 400, 500, 10, 110, 1, 0 }, { 600, 700, 10, 110, 0, 0 },
	};
	struct p003_xfer exchange[] = {	/* given out of order: the function sorts */
		{ 1000, 1100, 10, 110, 0, 0 }, { 0, 100, 10, 110, 1, 0 }, { 50, 120, 10, 110, 0, 0 }, { 1010, 1050, 10, 110, 1, 0 },
	};
	struct p003_xfer stencil[] = {	/* two neighbours: two sends and two receives at once */
		{ 0, 100, 10, 110, 1, 0 }, { 5, 90, 10, 110, 1, 0 }, { 20, 130, 10, 110, 0, 0 }, { 125, 140, 10, 110, 0, 0 },
	};
	struct p003_xfer lopsided[] = {	/* three sends, one receive, overlapping */
		{ 0, 100, 10, 110, 1, 0 }, { 10, 100, 10, 110, 1, 0 }, { 20, 100, 10, 110, 1, 0 }, { 30, 100, 10, 110, 0, 0 },
	};
	struct p003_xfer faster[] = {	/* the link gets faster: the saving overlaps too */
		{ 0, 100, 110, 10, 1, 0 }, { 0, 100, 110, 10, 0, 0 },
	};
	double added, naive;

	CHECK_NEAR(p003_overlap_share(pingpong, 4, &added, &naive), 1, 1e-12);
	CHECK_NEAR(added, 400, 1e-9);
	CHECK_NEAR(naive, 400, 1e-9);
	CHECK_NEAR(p003_overlap_share(exchange, 4, &added, &naive), 0.5, 1e-12);
	CHECK_NEAR(added, 200, 1e-9);
	CHECK(exchange[0].t0_ns == 0);
	CHECK(exchange[3].t0_ns == 1010);
	/* one group: max(2 * 110, 2 * 110) - max(2 * 10, 2 * 10) = 200 of 400 */
	CHECK_NEAR(p003_overlap_share(stencil, 4, &added, &naive), 0.5, 1e-12);
	CHECK_NEAR(added, 200, 1e-9);
	/* max(330, 110) - max(30, 10) = 300 of 400 */
	CHECK_NEAR(p003_overlap_share(lopsided, 4, &added, &naive), 0.75, 1e-12);
	CHECK_NEAR(p003_overlap_share(faster, 2, &added, &naive), 0.5, 1e-12);
	CHECK_NEAR(added, -100, 1e-9);
	/* nothing to share: the paper's sum */
	CHECK_NEAR(p003_overlap_share(NULL, 0, &added, &naive), 1, 0);
	CHECK_NEAR(added, 0, 0);
	faster[0].new_ns = faster[0].old_ns;
	faster[1].new_ns = faster[1].old_ns;
	CHECK_NEAR(p003_overlap_share(faster, 2, NULL, NULL), 1, 0);
}

/* Exchanging pairs: which end sends first changes; a request/reply pair always opens the
 * same way. Their messages overlap whatever their dedicated times. */
TEST(exchange_pairs)
{
	/* a halo swap seen at different skews: no two of its messages overlap in time, yet the
	 * rank's sends and receives go on at once on the slower link */
	struct p003_xfer halo[] = {
		{ 0, 10, 10, 110, 1, 1 }, { 500, 510, 10, 110, 0, 1 },
		{ 1000, 1010, 10, 110, 0, 1 }, { 1800, 1810, 10, 110, 1, 1 },
		{ 3000, 3010, 10, 110, 1, 0 }, { 3200, 3210, 10, 110, 0, 0 },	/* a request and its reply */
	};
	double added, naive;

	CHECK(!p003_is_exchange(4, 0));		/* always the same end first: request/reply */
	CHECK(!p003_is_exchange(2, 1));		/* too few pairs to tell */
	CHECK(p003_is_exchange(3, 1));		/* 1 of 4 = 25 % the other way */
	CHECK(!p003_is_exchange(9, 1));		/* 10 %: below P003_EXCHANGE_MIN_SHARE */
	CHECK(p003_is_exchange(50, 50));
	CHECK(!p003_is_exchange(-1, 5));
	/* exchange: max(2 * 110, 2 * 110) - max(2 * 10, 2 * 10) = 200; the request/reply adds
	 * its 200 in full: 400 of 600 */
	CHECK_NEAR(p003_overlap_share(halo, 6, &added, &naive), 400.0 / 600, 1e-12);
	CHECK_NEAR(added, 400, 1e-9);
	CHECK_NEAR(naive, 600, 1e-9);
	/* without the exchange flags the same times are a chain of replies: the paper's sum */
	for (int i = 0; i < 6; i++)
		halo[i].ex = 0;
	CHECK_NEAR(p003_overlap_share(halo, 6, &added, &naive), 1, 1e-12);
}

/* make_run's run plus messages.tsv: 1000 rounds 10 ms apart, each one message of 1000
 * bytes 0 -> 1 and one 1 -> 0, either at the same time (an exchange) or the second after
 * the first has ended (request and reply). */
static const char *
make_run_msgs(int exchange)
{
	static char run[256];
	const char *name = exchange ? "run-exchange" : "run-reqrep";
	char path[400];
	FILE *f;

	snprintf(path, sizeof path, "%s/messages.tsv", make_run_named(name));
	snprintf(run, sizeof run, "%s/%s", check_tmpdir(), name);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(2);
	}
	fputs("# contend-messages 1\nt_first_ns\tt_last_ns\tsrc\tdst\tbytes\n", f);
	for (long k = 0; k < 1000; k++) {
		long long t = 1000000000LL + k * 10000000LL;
		long long t2 = exchange ? t + 20000 : t + 200000;	/* reply 100 us after the end */

		fprintf(f, "%lld\t%lld\t0\t1\t1000\n", t, t + 100000);
		fprintf(f, "%lld\t%lld\t1\t0\t1000\n", t2, t2 + 100000);
	}
	fclose(f);
	return run;
}

TEST(run_level_link_overlap)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;

	/* request and reply: nothing overlaps, as without messages.tsv (+2 s) */
	CHECK(prof_load(&p, make_run_msgs(0), &e) == 0);
	CHECK(p.have_msgs);
	CHECK(p.nmsgs == 2000);
	CHECK(p.msgs[0].t_last_ns == p.msgs[0].t_ns + 100000);
	CHECK(scen_load_string(&s, "[link ws1-ws2]\nlatency = 1050 us\n", "t.ini", &e) == 0);
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK_NEAR(r.predicted_ns, 37e9, 1e3);
	CHECK_NEAR(r.items[0].added_ns, 2e9, 1e3);	/* the link's Section 2.2 time */
	pred_result_free(&r);
	prof_free(&p);

	/* an exchange: each rank's send and receive go on at once, the rank waits once (+1 s) */
	CHECK(prof_load(&p, make_run_msgs(1), &e) == 0);
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK_NEAR(r.predicted_ns, 36e9, 1e3);
	CHECK_NEAR(r.items[0].added_ns, 2e9, 1e3);
	CHECK(strstr(r.note, "overlap") != NULL);
	pred_result_free(&r);
	scen_free(&s);

	/* a bandwidth cut: the same half of Section 2.2 (1000 B at 12.5 -> 1.25 MB/s: +720 us) */
	CHECK(scen_load_string(&s, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\n", "t.ini", &e) == 0);
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 + 1000 * 720e3, 1e3);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);

	/* messages.tsv without t_last_ns: each message is an instant, the share stays defined */
	{
		char path[400];

		put(make_run_named("run-instants"), "messages.tsv", "# contend-messages 1\nt_first_ns\tsrc\tdst\tbytes\n5\t0\t1\t1000\n5\t1\t0\t1000\n");
		snprintf(path, sizeof path, "%s/run-instants", check_tmpdir());
		CHECK(prof_load(&p, path, &e) == 0);
		if (CHECKED(p.nmsgs == 2))
			CHECK(p.msgs[1].t_last_ns == p.msgs[1].t_ns);
		CHECK(scen_load_string(&s, "[link ws1-ws2]\nlatency = 1050 us\n", "t.ini", &e) == 0);
		pred_result_init(&r);
		CHECK(run003_predict(&p, &s, &r, &e) == 0);
		/* the two overlap (same start): half of links.tsv's 2 s */
		CHECK_NEAR(r.predicted_ns, 36e9, 1e3);
		pred_result_free(&r);
		scen_free(&s);
		prof_free(&p);
	}
}

/* Run model f on p under the scenario text into r (initialised here; the caller frees
 * it). Returns 0, or -1 when the scenario or the model fails. */
static int
predict_text(model_fn f, const struct prof *p, const char *text, struct pred_result *r)
{
	struct scen s;
	struct err e;
	int rc;

	pred_result_init(r);
	if (scen_load_string(&s, text, "t.ini", &e) < 0)
		return -1;
	rc = f(p, &s, r, &e);
	scen_free(&s);
	return rc < 0 ? -1 : 0;
}

/* A link with a burst is a token bucket (as the replay takes it): messages that find tokens
 * pass at the measured bandwidth, so a large bucket takes a bandwidth cut back for the run's
 * small, spaced messages; without messages.tsv the model cannot tell which fit and says so. */
TEST(link_burst_bucket)
{
	struct prof p;
	struct pred_result r;
	struct err e;

	CHECK(prof_load(&p, make_run_msgs(0), &e) == 0);
	/* strict: 2000 messages of 1000 B at 1.25 MB/s instead of 12.5: +720 us each, both wait */
	CHECK(predict_text(run003_predict, &p, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 + 2000 * 720e3, 1e3);
	pred_result_free(&r);
	/* 1 MB bucket, refilled with 12.5 kB per 10 ms round: every message fits */
	CHECK(predict_text(run003_predict, &p, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\nburst = 1 MB\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 35e9, 1e3);
	if (CHECKED(r.nitems == 1))
		CHECK(strstr(r.items[0].detail, "token bucket") != NULL);
	CHECK_NEAR(r.items[0].added_ns, 0, 1e3);
	pred_result_free(&r);
	/* a 500 B bucket: half of each message at the measured rate (+360 us each) */
	CHECK(predict_text(run003_predict, &p, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\nburst = 500 B\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 + 2000 * 360e3, 1e3);
	pred_result_free(&r);
	/* latency alone: the bucket does not act, the result is the strict one (+2 s) */
	CHECK(predict_text(run003_predict, &p, "[link ws1-ws2]\nlatency = 1050 us\nburst = 1 MB\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 37e9, 1e3);
	pred_result_free(&r);
	prof_free(&p);
	/* no messages.tsv: which messages fit is unknown */
	CHECK(prof_load(&p, make_run(), &e) == 0);
	CHECK(predict_text(run003_predict, &p, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\nburst = 1 MB\n", &r) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "messages.tsv") != NULL);
	CHECK(strstr(r.why, "burst") != NULL);
	pred_result_free(&r);
	prof_free(&p);
}

/* p000's eq. 3 reads the same buckets (run003_link_fast): the bytes a bucket lets through
 * keep their dedicated time, the rest is slowed down by ib / cb. */
TEST(p000_link_burst_bucket)
{
	struct prof p;
	struct pred_result r;
	struct err e;

	CHECK(prof_load(&p, make_run_msgs(0), &e) == 0);
	/* strict: 2000 messages of 50 us + 80 us, slowed down 10 times: +2.34 s for each rank */
	CHECK(predict_text(run000_predict, &p, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 35e9 + 2000 * 130e3 * 9, 1e3);
	pred_result_free(&r);
	/* every message fits in a 1 MB bucket: only the latency part is slowed down */
	CHECK(predict_text(run000_predict, &p, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\nburst = 1 MB\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 + 2000 * 50e3 * 9, 1e3);
	if (CHECKED(r.nitems >= 1))
		CHECK(strstr(r.items[0].detail, "token bucket") != NULL);
	pred_result_free(&r);
	/* eq. 3 sees bandwidth only; a latency change adds 003 Sec. 2.2's term: +1 ms for each
	 * of the 2000 messages, both ends wait */
	CHECK(predict_text(run000_predict, &p, "[link ws1-ws2]\nlatency = 1050 us\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 37e9, 1e3);
	if (CHECKED(r.nitems >= 1))
		CHECK(strstr(r.items[0].detail, "latency") != NULL);
	pred_result_free(&r);
	prof_free(&p);
	/* no messages.tsv: which messages fit is unknown */
	CHECK(prof_load(&p, make_run(), &e) == 0);
	CHECK(predict_text(run000_predict, &p, "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = 0 B\nburst = 1 MB\n", &r) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "messages.tsv") != NULL);
	pred_result_free(&r);
	prof_free(&p);
}

/* p000 reads a load average as paper 003 does: L = 2 is two CPU-bound competitors, and
 * L = 1.5 one always there and one half of the time, eq. 2's sd = 1 + L. */
TEST(p000_load_average)
{
	struct prof p;
	struct pred_result r;
	struct err e;
	double one, two;	/* ns, with one and two CPU-bound competitors */

	CHECK(prof_load(&p, make_run(), &e) == 0);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	one = r.predicted_ns;
	pred_result_free(&r);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\ncpu_procs = 2\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	two = r.predicted_ns;
	CHECK(two > one);
	CHECK(one > 35e9);
	pred_result_free(&r);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\nload_average = 2\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, two, 1e3);
	pred_result_free(&r);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\nload_average = 1.5\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, (one + two) / 2, 1e3);	/* rank 1 (ws2) sets the max */
	if (CHECKED(r.nitems >= 1))
		CHECK(strstr(r.items[0].detail, "load average") != NULL);
	pred_result_free(&r);
	prof_free(&p);
}

/* PROF/phases.tsv opened for writing with its header. */
static FILE *
fx_open_phases(const char *prof)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof path, "%s/phases.tsv", prof);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(2);
	}
	fputs("# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n", f);
	return f;
}

/* A 4-rank run in check_tmpdir()/NAME, two ranks to a node: ranks 0 and 2 on ws1, 1 and 3
 * on ws2; every rank 35 s, busy 300 / idle 50 ms (80 % computing), its schedstat run and
 * wait time run_ns and wait_ns (together 35 s or more: runnable the whole run); the busy
 * phases of all ranks in step. No meta files: the node has one core. Returns the run
 * directory (static). */
static const char *
make_shared_run(const char *name, long long run_ns, long long wait_ns)
{
	static char run[256];
	char prof[300], row[300];
	FILE *f;
	char ranks[2048] = "# contend-ranks 1\n"
			   "rank\thost\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tn_busy\t"
			   "n_idle\tcpu_pct\trun_ns\twait_ns\tmsgs_sent\tbytes_sent\tmsgs_recv\tbytes_recv\n";

	snprintf(run, sizeof run, "%s/%s", check_tmpdir(), name);
	snprintf(prof, sizeof prof, "%s/profile", run);
	mkdir(run, 0755);
	mkdir(prof, 0755);
	for (int i = 0; i < 4; i++) {
		snprintf(row, sizeof row, "%d\tws%d\t35000000000\t80\t5.7\t14.3\t300000000\t50000000\t100\t100\t"
			 "85.7\t%lld\t%lld\t1000\t1000000\t1000\t1000000\n", i, 1 + i % 2, run_ns, wait_ns);
		strncat(ranks, row, sizeof ranks - strlen(ranks) - 1);
	}
	put(prof, "ranks.tsv", ranks);
	f = fx_open_phases(prof);
	for (int i = 0; i < 4; i++)	/* all in step: a node's two ranks busy together */
		for (long long c = 0; c < 100; c++) {
			long long t = c * 350000000LL;

			fprintf(f, "%d\tbusy\t%lld\t%lld\t300000000\t0\n", i, t, t + 300000000LL);
			fprintf(f, "%d\tidle\t%lld\t%lld\t0\t0\n", i, t + 300000000LL, t + 350000000LL);
		}
	fclose(f);
	return run;
}

/* Two ranks to a node (docs/predict.md, p000 and p003): a CPU-bound competitor on a
 * node whose two ranks were runnable the whole dedicated run takes a third of the node from
 * ranks that had half of it each, 3 / 2, not eq. 2's 2; two competitors 4 / 2; neighbours
 * runnable half the time 2.5 / 1.5 (p000). p003 stretches the busy phases, where the two
 * ranks were busy together: 3 / 2 as well. With one rank per node the numbers are the
 * paper's closed forms, as before the node was shared. */
TEST(shared_node_models)
{
	struct prof p;
	struct pred_result r;
	struct err e;
	double f0 = 28.0 / 55.2, f1 = 27.2 / 55.2;	/* make_run's work fractions (busy 28 s, 27.2 s) */

	CHECK(prof_load(&p, make_shared_run("shared", 30000000000LL, 7000000000LL), &e) == 0);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 35e9 * 1.5, 1e3);	/* equal work: eq. 8 is the node's sd */
	CHECK(r.nitems >= 2);
	CHECK_NEAR(r.items[0].value, 1.5, 1e-12);
	CHECK(strstr(r.items[0].detail, "2 ranks share 1 cores, others runnable 1") != NULL);
	pred_result_free(&r);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\ncpu_procs = 2\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 * 2, 1e3);
	pred_result_free(&r);
	/* p003: awake the whole idle time (run + wait past exec), so Section 2.1 stretches the
	 * busy phases by the node's 3 / 2: an increase of 0.5 * 300 / 350 */
	CHECK(predict_text(run003_predict, &p, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 35e9 * (1 + 150.0 / 350), 1e3);
	if (CHECKED(r.nitems == 2))
		CHECK(strstr(r.items[0].detail, "others busy 1.00 of its busy time: k' 0.5") != NULL);
	CHECK(strstr(r.note, "several loaded nodes") == NULL);	/* one node, two ranks */
	pred_result_free(&r);
	CHECK(predict_text(run003_predict, &p, "[node ws2]\nload_average = 1.5\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 * (1 + 0.5 * 150.0 / 350 + 0.5 * 300.0 / 350), 1e3);
	pred_result_free(&r);
	prof_free(&p);

	/* neighbours runnable half the run: (1 + 0.5 + 1) / (1 + 0.5) */
	CHECK(prof_load(&p, make_shared_run("shared-half", 10000000000LL, 7500000000LL), &e) == 0);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 * 2.5 / 1.5, 1e3);
	pred_result_free(&r);
	prof_free(&p);

	/* one rank per node: the paper's numbers, as before */
	CHECK(prof_load(&p, make_run(), &e) == 0);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK_NEAR(r.items[0].value, 2, 1e-12);		/* eq. 2: 1 + k */
	CHECK_NEAR(r.predicted_ns, 35e9 * (2 * f1 * 2) / (2 * f0), 1e3);	/* eq. 8 */
	pred_result_free(&r);
	CHECK(predict_text(run003_predict, &p, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 35e9 * (1 + 250.0 / 350), 1e3);	/* Figure 2 (b), asleep */
	CHECK(strstr(r.items[0].detail, "share") == NULL);
	pred_result_free(&r);
	prof_free(&p);
}

/* A node's speed (paper 004's delta) is no input of p003 or p000: they say so instead of
 * leaving it out; speed 1 is the run's and changes nothing. */
TEST(speed_refused)
{
	struct prof p;
	struct pred_result r;
	struct err e;

	CHECK(prof_load(&p, make_run(), &e) == 0);
	CHECK(predict_text(run003_predict, &p, "[node ws2]\ncpu_procs = 1\nspeed = 0.5\n", &r) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "speed") != NULL);
	CHECK(strstr(r.why, "ws2") != NULL);
	pred_result_free(&r);
	CHECK(predict_text(run000_predict, &p, "[node ws2]\ncpu_procs = 1\nspeed = 0.5\n", &r) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "speed") != NULL);
	pred_result_free(&r);
	CHECK(predict_text(run003_predict, &p, "[node ws2]\ncpu_procs = 1\nspeed = 1\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	pred_result_free(&r);
	prof_free(&p);
}

/* The sleep credit is an option of the prediction (struct scen), not a process setting:
 * two scenarios in one process keep their own. */
TEST(sleep_credit_per_scenario)
{
	struct prof p;
	struct scen s1, s0;
	struct pred_result r1, r0;
	struct err e;

	CHECK(prof_load(&p, make_run_msgs(0), &e) == 0);
	CHECK(scen_load_string(&s1, "[node ws1]\ncpu_procs = 1\n", "t.ini", &e) == 0);
	CHECK(scen_load_string(&s0, "[node ws1]\ncpu_procs = 1\n", "t.ini", &e) == 0);
	CHECK(s1.sleep_credit == 1);	/* the paper's scheduler by default */
	s0.sleep_credit = 0;
	pred_result_init(&r0);
	pred_result_init(&r1);
	CHECK(run003_predict(&p, &s0, &r0, &e) == 0);
	CHECK(run003_predict(&p, &s1, &r1, &e) == 0);
	CHECK(r0.predicted_ns > r1.predicted_ns);	/* sleep without credit is paid for */
	pred_result_free(&r0);
	pred_result_free(&r1);
	scen_free(&s0);
	scen_free(&s1);
	prof_free(&p);
}

/* The exchange of ranks 0 and 1 is told as one among 3000 ranks too (the other 2998 on
 * hosts of their own, without messages, done after 1 s): the rank pairs are held only when
 * they have messages on a changed link, where a table of every pair stopped at 2048 ranks
 * and took every pair past it as request and reply (+2 s instead of +1 s). The two ends
 * take turns to go first, and the second message leaves after the first has arrived: only
 * the exchange, not an overlap in time, halves the added time. */
TEST(exchange_among_many_ranks)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	char path[400];
	FILE *f;

	snprintf(path, sizeof path, "%s/messages.tsv", make_run_named("run-turns"));
	if ((f = fopen(path, "w")) == NULL)
		exit(2);
	fputs("# contend-messages 1\nt_first_ns\tt_last_ns\tsrc\tdst\tbytes\n", f);
	for (long k = 0; k < 1000; k++) {
		long long t = 1000000000LL + k * 10000000LL;

		fprintf(f, "%lld\t%lld\t%ld\t%ld\t1000\n", t, t + 100000, k % 2, 1 - k % 2);
		fprintf(f, "%lld\t%lld\t%ld\t%ld\t1000\n", t + 200000, t + 300000, 1 - k % 2, k % 2);
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/run-turns", check_tmpdir());
	CHECK(prof_load(&p, path, &e) == 0);
	CHECK(scen_load_string(&s, "[link ws1-ws2]\nlatency = 1050 us\n", "t.ini", &e) == 0);
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK_NEAR(r.predicted_ns, 36e9, 1e3);	/* two ranks */
	pred_result_free(&r);
	p.ranks = xreallocarray(p.ranks, 3000, sizeof *p.ranks);
	for (int i = 2; i < 3000; i++) {
		p.ranks[i] = p.ranks[1];
		p.ranks[i].rank = i;
		p.ranks[i].exec_ns = 1000000000;
		snprintf(p.ranks[i].host, sizeof p.ranks[i].host, "x%d", i);
	}
	p.nranks = 3000;
	pred_result_init(&r);
	CHECK(run003_predict(&p, &s, &r, &e) == 0);
	CHECK_NEAR(r.predicted_ns, 36e9, 1e3);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

int
main(void)
{
	RUN(fig2a_doubles);
	RUN(fig2b_250_over_350);
	RUN(fig2c_unaffected);
	RUN(k_competitors);
	RUN(load_average);
	RUN(sec22_link);
	RUN(sec33_combined);
	RUN(run_level_one_loaded_node);
	RUN(awake_idle_earns_no_credit);
	RUN(overlap_share);
	RUN(exchange_pairs);
	RUN(exchange_among_many_ranks);
	RUN(run_level_link_overlap);
	RUN(link_burst_bucket);
	RUN(p000_link_burst_bucket);
	RUN(p000_load_average);
	RUN(speed_refused);
	RUN(sleep_credit_per_scenario);
	RUN(shared_node_extra_demand);
	RUN(shared_node_models);
	return check_done();
}
