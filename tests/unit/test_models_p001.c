/* test_models_p001: paper 001 wired to a run: pattern, Table 1, prediction, refusal, selection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/models.h"
#include "predict/run001.h"
#include "tests/unit/check.h"
#include "tests/unit/models_fixture.h"

static char ms_run[300], st_run[300], bar_run[300], line_run[300], ms2_run[300], line2_run[300];

static int
load(struct prof *p, struct scen *s, const char *run, const char *ini)
{
	struct err e;

	if (prof_load(p, run, &e) < 0 || scen_load_string(s, ini, "t.ini", &e) < 0) {
		printf("# %s\n", e.msg);
		return -1;
	}
	return 0;
}

TEST(master_slave_known_time)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	const struct pred_item *it;
	int master = -1;
	char why[256];

	CHECK(load(&p, &s, ms_run, "") == 0);
	if (CHECKED(run001_ms_pattern(&p, &master, why, sizeof why) == 1))
		CHECK(master == 0);
	pred_result_init(&r);
	CHECK(run001_predict(&p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_OK);
	it = FX_ITEM(&r, "factor", "Table 1");
	if (CHECKED(it != NULL))
		CHECK(it->value == 150);
	if (CHECKED(it != NULL))
		CHECK(strstr(it->detail, "T_SlaveCPU 10.000 ms, T_MasterCPU 1.000 ms, Size_TaskXfer 1000 B") != NULL);
	/* request/reply by hand: every slave starts at 0, results at 10 ms are served by the
	 * master at 10-11, 11-12, 12-13 ms and the slaves stay 1 ms apart from then on; each
	 * task costs 10 + 1 ms, so the last of 50 ends at 50 * 11 + 2 = 552 ms. The measured
	 * span is 49 * 12 + 6 + 10.2 + 2 = 606.2 ms, so the run is predicted at
	 * 1000 - 606.2 + 552 ms. */
	it = FX_ITEM(&r, "factor", "dedicated simulation");
	CHECK(it != NULL);
	CHECK_NEAR(it ? it->value : 0, 0.552, 1e-9);
	CHECK_NEAR(r.predicted_ns, 1e9 - 606.2e6 + 552e6, 1e3);
	/* AppRate of the run's master: three slaves at 100 tasks/s (eqs. 1, 4) */
	it = FX_ITEM(&r, "rate", "master ws1");
	CHECK(it != NULL);
	CHECK_NEAR(it ? it->value : 0, 300, 1e-6);
	it = FX_ITEM(&r, "util", "cpu ws1");
	CHECK(it != NULL);
	CHECK_NEAR(it ? it->value : 0, 0.150 / 0.552, 1e-9);	/* 150 tasks of 1 ms */
	CHECK(FX_ITEM(&r, "node", "rank 2 (ws3)") != NULL);
	CHECK(FX_ITEM(&r, "node", "rank 0 (ws1)") == NULL);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

TEST(competitor_slows_one_slave)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	const struct pred_item *it;

	CHECK(load(&p, &s, ms_run, "[node ws3]\ncpu_procs = 1\n") == 0);
	pred_result_init(&r);
	if (CHECKED(run001_predict(&p, &s, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	/* Avail_CPU 1/2 on ws3: W_SlaveCPU 50 tasks/s there (eq. 6), AppRate of ws1 250 */
	it = FX_ITEM(&r, "rate", "master ws1");
	CHECK_NEAR(it ? it->value : 0, 250, 1e-6);
	CHECK(r.predicted_ns > 1e9 - 606.2e6 + 552e6 + 1e6);
	/* the slowed slave does fewer tasks and idles less than the others */
	if (CHECKED(FX_ITEM(&r, "node", "rank 2 (ws3)") != NULL) &&
	    CHECKED(FX_ITEM(&r, "node", "rank 1 (ws2)") != NULL))
		CHECK(FX_ITEM(&r, "node", "rank 2 (ws3)")->value < FX_ITEM(&r, "node", "rank 1 (ws2)")->value);
	for (int i = 0; i < r.nitems; i++)
		if (strcmp(r.items[i].kind, "util") == 0) {
			CHECK(r.items[i].value >= 0);
			CHECK(r.items[i].value <= 1);
		}
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

/* ms_profile with slaves 2 and 3 on one node, ws3 (beyond the paper, docs/predict.md,
 * p001). */
static void
ms_shared_profile(const char *dir)
{
	FILE *f;

	ms_profile(dir);
	f = fx_open(dir, "ranks.tsv", FX_RANK_HDR);
	for (int r = 0; r < 4; r++)
		fprintf(f, "%d\tws%d\t1000000000\t80\t0\t20\t8000000\t2000000\t40\t40\t80\t1\t0\t1\t1\t1\t1\n", r,
			r < 3 ? r + 1 : 3);
	fclose(f);
}

/* Two slaves on one node: their busy phases overlap 8 ms of 10 (7 ms with the other's task
 * started 3 ms later, 1 ms with its task of the cycle before; a little less at the ends), so
 * one competitor on the node leaves each 1.8 / 2.8 of what it had, not 1/2: W_SlaveCPU 100
 * x 1.8 / 2.8 tasks/s each (eq. 6 with Avail_CPU shared, predict/coloc.h). */
TEST(slaves_sharing_a_node_share_the_competitor)
{
	char run[300];
	struct pred_result r;
	const struct pred_item *it;

	fx_build(run, sizeof run, "ms-shared", ms_shared_profile);
	CHECK(fx_predict(run, "[node ws3]\ncpu_procs = 1\n", &r, run001_predict) == 0);
	CHECK(r.status == PRED_OK);
	it = FX_ITEM(&r, "rate", "master ws1");
	CHECK_NEAR(it ? it->value : 0, 100 + 2 * 100 * 1.8 / 2.8, 0.1);
	it = FX_ITEM(&r, "node", "rank 3 (ws3)");
	if (CHECKED(it != NULL))
		CHECK(strstr(it->detail, "Avail_CPU 0.64") != NULL);
	pred_result_free(&r);
	/* alone on their nodes (ms_profile), the paper's 1/2: AppRate 250 */
	fx_build(run, sizeof run, "ms-alone", ms_profile);
	CHECK(fx_predict(run, "[node ws3]\ncpu_procs = 1\n", &r, run001_predict) == 0);
	it = FX_ITEM(&r, "rate", "master ws1");
	CHECK_NEAR(it ? it->value : 0, 250, 1e-9);
	pred_result_free(&r);
}

TEST(stencil_refused_with_reason)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	int master = -1;
	char why[256];

	CHECK(load(&p, &s, st_run, "") == 0);
	CHECK(run001_ms_pattern(&p, &master, why, sizeof why) == 0);
	CHECK(strstr(why, "no master/slave pattern") != NULL);
	pred_result_init(&r);
	CHECK(run001_predict(&p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "no master/slave pattern") != NULL);
	CHECK(strstr(r.why, "rank 0") != NULL);	/* names the rank that breaks it */
	pred_result_free(&r);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0))
		CHECK(r.status == PRED_NA);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

TEST(select_master_and_slaves)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	int nmaster = 0, nslave = 0;

	/* ws2 loaded by two competitors: its slave rate is 1/3, so it is the master to pick
	 * (the others keep their full 100 tasks/s as slaves) */
	CHECK(load(&p, &s, ms_run, "[node ws2]\ncpu_procs = 2\n") == 0);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	for (int i = 0; i < r.nitems; i++) {
		if (strcmp(r.items[i].kind, "master") == 0) {
			if (nmaster == 0) {
				CHECK_STR(r.items[i].name, "ws2");
				CHECK_NEAR(r.items[i].value, 300, 1e-6);
			} else {
				CHECK(r.items[i].value <= r.items[i - 1].value);	/* ranked */
			}
			nmaster++;
		}
		if (strcmp(r.items[i].kind, "slave") == 0) {
			CHECK(strcmp(r.items[i].name, "ws2") != 0);
			nslave++;
		}
	}
	CHECK(nmaster == 4);
	CHECK(nslave == 3);
	CHECK(isfinite(r.predicted_ns));
	CHECK(r.predicted_ns > 0);
	pred_result_free(&r);
	scen_free(&s);
	/* candidates and a fixed master */
	CHECK(scen_load_string(&s, "[select]\ncandidates = ws1, ws3, ws4\nmaster = ws4\n", "c.ini", &e) == 0);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	nmaster = nslave = 0;
	for (int i = 0; i < r.nitems; i++) {
		nmaster += strcmp(r.items[i].kind, "master") == 0;
		nslave += strcmp(r.items[i].kind, "slave") == 0;
		if (strcmp(r.items[i].kind, "slave") == 0) {
			CHECK(strcmp(r.items[i].name, "ws4") != 0);
			CHECK(strcmp(r.items[i].name, "ws2") != 0);
		}
	}
	CHECK(nmaster == 3);
	CHECK(nslave == 2);
	CHECK(strstr(r.note, "master ws4") != NULL);
	pred_result_free(&r);
	pred_result_init(&r);
	CHECK(run001_select(&p, &s, "fig5", &r, &e) == -E_USAGE);	/* no policies */
	pred_result_free(&r);
	scen_free(&s);
	/* a changed link between two candidates: the selection does not model it, and says so */
	CHECK(scen_load_string(&s, "[link ws1-ws3]\nbandwidth = 1 Mbit/s\nframe_overhead = 0 B\n", "l.ini", &e) == 0);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0))
		CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "ws1-ws3") != NULL);
	CHECK(strstr(r.why, "does not model") != NULL);
	pred_result_free(&r);
	scen_free(&s);
	/* ... nor with a fixed master on it */
	CHECK(scen_load_string(&s, "[select]\nmaster = ws1\n[link ws1-ws3]\nbandwidth = 1 Mbit/s\nframe_overhead = 0 B\n", "l.ini", &e) == 0);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0))
		CHECK(r.status == PRED_NA);
	pred_result_free(&r);
	scen_free(&s);
	/* a node's speed: eqs. 6-7 do not see it, in the selection or the prediction */
	CHECK(scen_load_string(&s, "[node ws3]\nspeed = 2\n", "l.ini", &e) == 0);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0)) {
		CHECK(r.status == PRED_NA);
		CHECK(strstr(r.why, "speed") != NULL);
	}
	pred_result_free(&r);
	pred_result_init(&r);
	if (CHECKED(run001_predict(&p, &s, &r, &e) == 0)) {
		CHECK(r.status == PRED_NA);
		CHECK(strstr(r.why, "speed") != NULL);
	}
	pred_result_free(&r);
	scen_free(&s);
	/* off every route: one end is no candidate, or the fixed master is elsewhere */
	CHECK(scen_load_string(&s, "[select]\ncandidates = ws1, ws2, ws4\n[link ws1-ws3]\nbandwidth = 1 Mbit/s\nframe_overhead = 0 B\n",
			       "l.ini", &e) == 0);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	pred_result_free(&r);
	scen_free(&s);
	CHECK(scen_load_string(&s, "[select]\nmaster = ws4\n[link ws1-ws3]\nbandwidth = 1 Mbit/s\nframe_overhead = 0 B\n", "l.ini", &e) == 0);
	pred_result_init(&r);
	if (CHECKED(run001_select(&p, &s, NULL, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

/* A compute-only program: the only messages are two barriers', rank 0 to every other rank
 * before the work and back after it, which has the master/slave shape of one task each. */
static void
barrier_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	FILE *l = fx_open(dir, "links.tsv", FX_LINK_HDR);

	for (int r = 0; r < 3; r++)
		fx_phase(ph, r, "busy", FX_BASE_NS + FX_MS, FX_BASE_NS + 900 * FX_MS);
	for (int s = 1; s <= 2; s++) {	/* a barrier before the work and one after it */
		fx_msg(m, FX_BASE_NS + FX_MS / 2 + s, 0, s, 8);
		fx_msg(m, FX_BASE_NS + 905 * FX_MS + s, s, 0, 8);
		fx_msg(m, FX_BASE_NS + 910 * FX_MS + s, 0, s, 8);
		fprintf(l, "0\t%d\t2\t16\t8\t0\t0\t1\n%d\t0\t1\t8\t8\t0\t0\t1\n", s, s);
	}
	fclose(m);
	fclose(ph);
	fclose(l);
	fx_ranks(dir, 3, 1000000000LL);
}

/* A 1-D stencil on 3 ranks: rank 1 swaps halos with ranks 0 and 2, which never talk to
 * each other, so it has a master/slave shape; but which end sends first changes with the
 * iteration. */
static void
line_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	FILE *l = fx_open(dir, "links.tsv", FX_LINK_HDR);

	for (int k = 0; k < 40; k++) {
		long long t = FX_BASE_NS + k * 50 * FX_MS;

		for (int r = 0; r < 3; r++)
			fx_phase(ph, r, "busy", t, t + 40 * FX_MS);
		for (int e = 0; e < 2; e++) {	/* edge rank 0 or 2 and the hub */
			int leaf = 2 * e;
			long long a = t + 40 * FX_MS + (k % 2 ? 0 : 3 * FX_MS), b = t + 40 * FX_MS + (k % 2 ? 3 * FX_MS : 0);

			fx_msg(m, a, leaf, 1, 8000);
			fx_msg(m, b, 1, leaf, 8000);
		}
	}
	fprintf(l, "0\t1\t40\t320000\t8000\t0\t0\t1\n1\t0\t40\t320000\t8000\t0\t0\t1\n"
		   "2\t1\t40\t320000\t8000\t0\t0\t1\n1\t2\t40\t320000\t8000\t0\t0\t1\n");
	fclose(m);
	fclose(ph);
	fclose(l);
	fx_ranks(dir, 3, 2000000000LL);
}

/* ms_profile with hand-outs and results of two messages each. */
static void
ms2_profile(const char *dir)
{
	fx_ms_profile(dir, 1);
}

/* line_profile with two messages each way per swap, 20 us apart. */
static void
line2_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	FILE *l = fx_open(dir, "links.tsv", FX_LINK_HDR);

	for (int k = 0; k < 40; k++) {
		long long t = FX_BASE_NS + k * 50 * FX_MS;

		for (int r = 0; r < 3; r++)
			fx_phase(ph, r, "busy", t, t + 40 * FX_MS);
		for (int e = 0; e < 2; e++) {
			int leaf = 2 * e;
			long long a = t + 40 * FX_MS + (k % 2 ? 0 : 3 * FX_MS), b = t + 40 * FX_MS + (k % 2 ? 3 * FX_MS : 0);

			for (int j = 0; j < 2; j++) {
				fx_msg(m, a + j * FX_MS / 50, leaf, 1, 4000);
				fx_msg(m, b + j * FX_MS / 50, 1, leaf, 4000);
			}
		}
	}
	fprintf(l, "0\t1\t80\t320000\t4000\t0\t0\t1\n1\t0\t80\t320000\t4000\t0\t0\t1\n"
		   "2\t1\t80\t320000\t4000\t0\t0\t1\n1\t2\t80\t320000\t4000\t0\t0\t1\n");
	fclose(m);
	fclose(ph);
	fclose(l);
	fx_ranks(dir, 3, 2000000000LL);
}

TEST(turns_of_two_messages_keep_their_shape)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;

	/* requests and answers of two messages: still a master/slave run */
	CHECK(load(&p, &s, ms2_run, "[node ws2]\ncpu_procs = 1\n") == 0);
	pred_result_init(&r);
	if (CHECKED(run001_predict(&p, &s, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
	/* swaps of two messages each way: still a halo hub */
	CHECK(load(&p, &s, line2_run, "[node ws2]\ncpu_procs = 1\n") == 0);
	pred_result_init(&r);
	CHECK(run001_predict(&p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "swaps data") != NULL);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

TEST(halo_hub_is_no_master)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	int master = -1;
	char why[256];

	CHECK(load(&p, &s, line_run, "[node ws2]\ncpu_procs = 1\n") == 0);
	if (CHECKED(run001_ms_pattern(&p, &master, why, sizeof why) == 1))	/* the shape */
		CHECK(master == 1);
	pred_result_init(&r);
	CHECK(run001_predict(&p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "swaps data") != NULL);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
	/* the farm's slaves always ask first: still a master/slave run */
	CHECK(load(&p, &s, ms_run, "") == 0);
	pred_result_init(&r);
	if (CHECKED(run001_predict(&p, &s, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

TEST(barrier_is_no_master_slave_run)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;

	CHECK(load(&p, &s, bar_run, "[node ws2]\ncpu_procs = 1\n") == 0);
	pred_result_init(&r);
	CHECK(run001_predict(&p, &s, &r, &e) == 0);
	CHECK(r.status != PRED_OK);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "fewer than 2 each") != NULL);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

/* The report's masters page and the model share run001_derive. The report once had its own
 * rule (p001_derive's detected master, at least 2 cycles per slave, at most a quarter of the
 * messages outside them) that took the halo hub for a farm while the model refused it. */
TEST(one_farm_test_for_report_and_model)
{
	struct prof p;
	struct scen s;
	struct p001_derived d;
	struct err e;
	char why[300];

	CHECK(load(&p, &s, line_run, "") == 0);
	{	/* the old report rule: accepted */
		memset(&d, 0, sizeof d);
		CHECK(p001_derive(p.msgs, (size_t)p.nmsgs, p.busy, (size_t)p.nbusy, 3, -1, &d, &e) == 0);
		CHECK(d.tasks >= 2 * (3 - 1));
		CHECK(d.skipped_msgs <= p.nmsgs / 4);
		p001_derived_release(&d);
	}
	/* the shared test: refused, with the model's reason, and nothing to release */
	CHECK(run001_derive(&p, &d, why, sizeof why, &e) == 0);
	CHECK(strstr(why, "swaps data") != NULL);
	CHECK(d.tasks == 0);
	CHECK(d.t_slave_rank_s == NULL);
	scen_free(&s);
	prof_free(&p);
	/* the farm: accepted, master rank 0 */
	CHECK(load(&p, &s, ms_run, "") == 0);
	CHECK(run001_derive(&p, &d, why, sizeof why, &e) == 1);
	CHECK(d.master == 0);
	CHECK(d.tasks >= 2 * (long long)(prof_rank_span(&p) - 1));
	CHECK(d.t_slave_s > 0);
	p001_derived_release(&d);
	scen_free(&s);
	prof_free(&p);
}

/* Tasks a "node" row's detail says the slave did. */
static long
node_tasks(const struct pred_result *r, const char *name)
{
	const struct pred_item *it = FX_ITEM(r, "node", name);
	const char *t = it != NULL ? strstr(it->detail, " s, ") : NULL;

	return t != NULL ? strtol(t + 4, NULL, 10) : -1;
}

/* A slower link to one slave: its hand-outs and results take longer on the route's own
 * network stage, the master hands more tasks to the other slaves, and the run lands between
 * the dedicated one and a fixed-work one where the slowed slave keeps its 50 tasks. */
TEST(slower_link_moves_tasks)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	const struct pred_item *it;
	double ded_ns = 1e9 - 606.2e6 + 552e6;	/* master_slave_known_time's prediction */
	/* fixed work: ws3's 50 tasks, each 1 + 9 ms on the link (100 + 900 B at 100 kB/s), 10 ms
	 * of its CPU and 1 ms of the master's */
	double fixed_ns = 1e9 - 606.2e6 + 50 * 21e6;

	CHECK(load(&p, &s, ms_run, "[link ws1-ws3]\nbandwidth = 800 kbit/s\nframe_overhead = 0 B\n") == 0);
	pred_result_init(&r);
	CHECK(model_run(model_find("p001"), &p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_OK);	/* a link scenario is no longer refused */
	CHECK(r.predicted_ns > ded_ns + 20e6);
	CHECK(r.predicted_ns < fixed_ns - 200e6);
	it = FX_ITEM(&r, "factor", "link ws1-ws3");
	if (CHECKED(it != NULL))
		CHECK(it->value == 100000);
	if (CHECKED(it != NULL))
		CHECK(strstr(it->detail, "hand-out 100 B in 1.000 ms, result 900 B in 9.000 ms") != NULL);
	CHECK(FX_ITEM(&r, "util", "link ws1-ws3") != NULL);
	CHECK(node_tasks(&r, "rank 2 (ws3)") > 0);
	CHECK(node_tasks(&r, "rank 2 (ws3)") < 50);
	CHECK(node_tasks(&r, "rank 1 (ws2)") > 50);
	CHECK(node_tasks(&r, "rank 3 (ws4)") > 50);
	CHECK(node_tasks(&r, "rank 1 (ws2)") + node_tasks(&r, "rank 2 (ws3)") + node_tasks(&r, "rank 3 (ws4)") == 150);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
	/* with a competitor on the same slave too (the `both` case): slower still, still below
	 * fixed work (ws3's tasks of 20 ms CPU, 10 ms link, 1 ms master) */
	CHECK(load(&p, &s, ms_run, "[node ws3]\ncpu_procs = 1\n[link ws1-ws3]\nbandwidth = 800 kbit/s\nframe_overhead = 0 B\n") == 0);
	pred_result_init(&r);
	if (CHECKED(model_run(model_find("p001"), &p, &s, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	CHECK(r.predicted_ns > ded_ns + 40e6);
	CHECK(r.predicted_ns < 1e9 - 606.2e6 + 50 * 31e6 - 400e6);
	CHECK(node_tasks(&r, "rank 2 (ws3)") > 0);
	CHECK(node_tasks(&r, "rank 2 (ws3)") < 40);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

/* Links no master-slave route crosses change nothing; a link whose bandwidth cannot be
 * known is refused with the reason. */
TEST(links_off_the_routes)
{
	struct prof p;
	struct scen s;
	struct pred_result r;
	struct err e;
	const struct pred_item *it;

	CHECK(load(&p, &s, ms_run, "[link ws2-ws3]\nbandwidth = 800 kbit/s\nframe_overhead = 0 B\n") == 0);
	pred_result_init(&r);
	if (CHECKED(model_run(model_find("p001"), &p, &s, &r, &e) == 0))
		CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 1e9 - 606.2e6 + 552e6, 1e3);
	it = FX_ITEM(&r, "factor", "link ws2-ws3");
	if (CHECKED(it != NULL))
		CHECK(strstr(it->detail, "no master-slave route") != NULL);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
	/* ms_run has no netparams: a latency alone leaves the bandwidth unknown */
	CHECK(load(&p, &s, ms_run, "[link ws1-ws2]\nlatency = 5 ms\n") == 0);
	pred_result_init(&r);
	CHECK(model_run(model_find("p001"), &p, &s, &r, &e) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "unknown bandwidth") != NULL);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

int
main(void)
{
	fx_build(ms_run, sizeof ms_run, "ms", ms_profile);
	fx_build(st_run, sizeof st_run, "st", stencil_profile);
	fx_build(bar_run, sizeof bar_run, "bar", barrier_profile);
	fx_build(line_run, sizeof line_run, "line", line_profile);
	fx_build(ms2_run, sizeof ms2_run, "ms2", ms2_profile);
	fx_build(line2_run, sizeof line2_run, "line2", line2_profile);
	RUN(master_slave_known_time);
	RUN(competitor_slows_one_slave);
	RUN(slaves_sharing_a_node_share_the_competitor);
	RUN(stencil_refused_with_reason);
	RUN(select_master_and_slaves);
	RUN(barrier_is_no_master_slave_run);
	RUN(halo_hub_is_no_master);
	RUN(turns_of_two_messages_keep_their_shape);
	RUN(one_farm_test_for_report_and_model);
	RUN(slower_link_moves_tasks);
	RUN(links_off_the_routes);
	return check_done();
}
