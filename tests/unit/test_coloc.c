/* test_coloc: the CPU stretch of ranks sharing a node (predict/coloc.h), on profiles built
 * by hand: a rank alone on a one-core node keeps paper 000's k + 1, two ranks that are busy
 * together share the competitor (3 / 2 for one), a neighbour that is busy only while the
 * rank waits leaves the rank the full k + 1, and a node with a core to spare is not slowed;
 * phases reach their rank whatever the order they are listed in and the ranks' numbers; the
 * neighbours' runnable share comes from their schedstat times. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict/coloc.h"
#include "predict/models.h"
#include "predict/scenario.h"
#include "tests/unit/check.h"

#define MS 1000000LL

/* A profile of nranks ranks on the hosts given, and the busy phases given (no run dir). */
static void
make(struct prof *p, struct prof_rank *rk, int nranks, const char *const *hosts, struct prof_busy *b,
     long nb)
{
	memset(p, 0, sizeof *p);
	memset(rk, 0, (size_t)nranks * sizeof *rk);
	for (int i = 0; i < nranks; i++) {
		rk[i].rank = i;
		snprintf(rk[i].host, sizeof rk[i].host, "%s", hosts[i]);
		rk[i].exec_ns = 100 * MS;
		rk[i].comp_pct = 50;
	}
	p->nranks = nranks;
	p->ranks = rk;
	p->have_phases = nb > 0;
	p->nbusy = nb;
	p->busy = b;
}

TEST(alone_on_one_core_keeps_k_plus_one)
{
	struct coloc_rank c = { 1, 0, 1, 0 };

	CHECK_NEAR(coloc_stretch(2, 1, &c), 2, 1e-12);
	CHECK_NEAR(coloc_stretch(3, 1, &c), 3, 1e-12);
	CHECK_NEAR(coloc_stretch(4, 0.5, &c), 4, 1e-12);	/* (1 + 1) / 0.5 */
	c.cores = 0.5;						/* a half-core quota */
	CHECK_NEAR(coloc_stretch(2, 1, &c), 2, 1e-12);
	CHECK_NEAR(coloc_stretch(1, 1, &c), 1, 1e-12);		/* no competitor */
}

TEST(two_busy_ranks_share_the_competitor)
{
	struct coloc_rank c = { 2, 1, 1, 1 };	/* the neighbour always busy with it */

	CHECK_NEAR(coloc_stretch(2, 1, &c), 1.5, 1e-12);	/* 3 share what 2 had */
	CHECK_NEAR(coloc_stretch(3, 1, &c), 2, 1e-12);		/* two competitors: 4 / 2 */
	c.cores = 0.5;
	CHECK_NEAR(coloc_stretch(2, 1, &c), 1.5, 1e-12);
	c.cores = 4;						/* a core to spare */
	CHECK_NEAR(coloc_stretch(2, 1, &c), 1, 1e-12);
	c.cores = 2;						/* 3 on 2 cores against 2 on 2 */
	CHECK_NEAR(coloc_stretch(2, 1, &c), 1.5, 1e-12);
}

TEST(overlap_comes_from_the_phases)
{
	static const char *const hosts[] = { "a", "a", "b" };
	struct prof_rank rk[3];
	struct prof p;
	struct coloc_rank c[3];
	/* rank 0 busy 0-10 and 20-30 ms; rank 1 busy 5-10 and 30-40 ms (a quarter of rank 0's
	 * busy time, half of its own); rank 2 on another node busy all along */
	struct prof_busy b[] = {
		{ 0, 0, 10 * MS, -1, -1 }, { 1, 5 * MS, 10 * MS, -1, -1 }, { 2, 0, 40 * MS, -1, -1 },
		{ 0, 20 * MS, 30 * MS, -1, -1 }, { 1, 30 * MS, 40 * MS, -1, -1 },
	};

	make(&p, rk, 3, hosts, b, 5);
	coloc_read(&p, c);
	CHECK(c[0].nlocal == 2);
	CHECK(c[1].nlocal == 2);
	CHECK(c[2].nlocal == 1);
	CHECK_NEAR(c[0].others_busy, 0.25, 1e-12);
	CHECK_NEAR(c[1].others_busy, 1.0 / 3, 1e-12);
	CHECK_NEAR(c[2].others_busy, 0, 1e-12);
	CHECK_NEAR(c[0].cores, 1, 1e-12);	/* no run directory: one core */
	CHECK_NEAR(coloc_stretch(2, 1, &c[0]), 2.25 / 1.25, 1e-12);
	CHECK_NEAR(coloc_stretch(2, 1, &c[2]), 2, 1e-12);
	CHECK(coloc_shared(&p) == 2);
}

TEST(without_phases_the_busy_fraction_stands_in)
{
	static const char *const hosts[] = { "a", "a" };
	struct prof_rank rk[2];
	struct prof p;
	struct coloc_rank c[2];

	make(&p, rk, 2, hosts, NULL, 0);
	rk[1].comp_pct = 30;
	rk[1].comm_pct = 20;
	coloc_read(&p, c);
	CHECK_NEAR(c[0].others_busy, 0.5, 1e-12);
	CHECK_NEAR(coloc_stretch(2, 1, &c[0]), 2.5 / 1.5, 1e-12);
}

/* The neighbours' runnable share of the run (for coloc_stretch_run): their schedstat run
 * and wait time over their exec time, at most 1 each; their busy fraction without
 * schedstat figures. An MPI library that polls keeps a waiting rank runnable, so two ranks
 * whose busy phases never overlap still shared the node. */
TEST(runnable_share_comes_from_schedstat)
{
	static const char *const hosts[] = { "a", "a", "a", "b" };
	struct prof_rank rk[4];
	struct prof p;
	struct coloc_rank c[4];
	/* ranks 0 and 1 take turns: never busy together */
	struct prof_busy b[] = {
		{ 0, 0, 10 * MS, -1, -1 }, { 1, 10 * MS, 20 * MS, -1, -1 }, { 0, 20 * MS, 30 * MS, -1, -1 },
	};

	make(&p, rk, 4, hosts, b, 3);
	rk[0].run_ns = 30 * MS;		/* 0.3 + 0.5 of its 100 ms runnable */
	rk[0].wait_ns = 50 * MS;
	rk[1].run_ns = 90 * MS;		/* past its exec time: 1 */
	rk[1].wait_ns = 40 * MS;
	rk[2].comp_pct = 20;		/* no schedstat: its busy fraction 0.2 */
	coloc_read(&p, c);
	CHECK_NEAR(c[0].others_busy, 0, 1e-12);
	CHECK_NEAR(c[0].others_runnable, 1 + 0.2, 1e-12);
	CHECK_NEAR(c[1].others_runnable, 0.8 + 0.2, 1e-12);
	CHECK_NEAR(c[2].others_runnable, 0.8 + 1, 1e-12);
	CHECK_NEAR(c[3].others_runnable, 0, 1e-12);
	/* the same rule on either share: one competitor among 2.2 runnable on one core */
	CHECK_NEAR(coloc_stretch(2, 1, &c[0]), 2, 1e-12);
	CHECK_NEAR(coloc_stretch_run(2, 1, &c[0]), 3.2 / 2.2, 1e-12);
	CHECK_NEAR(coloc_stretch_run(4, 0.5, &c[0]), 3.2 / 2.2 / 0.5, 1e-12);	/* and half the CPU */
	CHECK_NEAR(coloc_stretch_run(2, 1, &c[3]), 2, 1e-12);	/* alone: eq. 2's k + 1 */
	CHECK_NEAR(coloc_stretch_run(2, 1, NULL), 2, 1e-12);
}

TEST(one_rank_per_node_shares_nothing)
{
	static const char *const hosts[] = { "a", "b", "c" };
	struct prof_rank rk[3];
	struct prof p;

	make(&p, rk, 3, hosts, NULL, 0);
	CHECK(coloc_shared(&p) == 0);
	CHECK_NEAR(coloc_stretch(2, 1, NULL), 2, 1e-12);
}

TEST(models_that_take_a_node_alone_do_not_apply)
{
	static const char *const hosts[] = { "a", "a", "b", "b" };
	struct prof_rank rk[4];
	struct prof p;
	struct scen s;
	struct err e = { 0 };
	int refused = 0;

	make(&p, rk, 4, hosts, NULL, 0);
	CHECK(scen_load_string(&s, "[node a]\ncpu_procs = 1\n", "t.ini", &e) == 0);
	for (const struct model *m = models; m->name != NULL; m++) {
		struct pred_result r;

		if (m->covers & SCOPE_COLOC)
			continue;
		pred_result_init(&r);
		CHECK(model_run(m, &p, &s, &r, &e) == 0);
		CHECK(r.status == PRED_NA);
		CHECK(strstr(r.why, "4 of the run's 4 ranks share a node") != NULL);
		refused++;
		pred_result_free(&r);
	}
	CHECK(refused >= 2);	/* p002, p004 */
	CHECK(model_find("p001")->covers & SCOPE_COLOC);
	CHECK(model_find("replay")->covers & SCOPE_COLOC);
	CHECK(model_find("p000")->covers & SCOPE_COLOC);
	CHECK(model_find("p003")->covers & SCOPE_COLOC);
	scen_free(&s);
}

TEST(phases_go_to_their_rank_in_any_order)
{
	/* 64 ranks numbered 3, 7, 11, ... (not 0..n-1), 8 to a node, phases listed newest
	 * first and interleaved across ranks, plus phases of a rank the profile does not list:
	 * rank k is busy 10 ms of every 20 ms, half of the node's ranks in step and half
	 * shifted by 5 ms, so a rank overlaps 3 in-step neighbours fully and 4 shifted ones by
	 * half: others_busy 3 + 4 * 0.5 = 5 */
	enum { N = 64, PER = 8, REP = 50 };
	static char hn[N][8];
	const char *hosts[N];
	static struct prof_rank rk[N];
	static struct prof_busy b[N * REP + REP];
	struct prof p;
	static struct coloc_rank c[N];
	long nb = 0;

	for (int i = 0; i < N; i++) {
		snprintf(hn[i], sizeof hn[i], "n%d", i / PER);
		hosts[i] = hn[i];
	}
	make(&p, rk, N, hosts, NULL, 0);
	for (int i = 0; i < N; i++)
		rk[i].rank = 3 + 4 * i;
	for (int k = REP - 1; k >= 0; k--) {
		for (int i = 0; i < N; i++) {
			int64_t t0 = k * 20 * MS + (i % 2) * 5 * MS;

			b[nb++] = (struct prof_busy){ 3 + 4 * i, t0, t0 + 10 * MS, -1, -1 };
		}
		b[nb++] = (struct prof_busy){ 5, k * 20 * MS, k * 20 * MS + 20 * MS, -1, -1 };	/* unlisted */
	}
	p.have_phases = true;
	p.nbusy = nb;
	p.busy = b;
	coloc_read(&p, c);
	for (int i = 0; i < N; i++) {
		CHECK(c[i].nlocal == PER);
		CHECK_NEAR(c[i].others_busy, 3 + 4 * 0.5, 1e-9);
		CHECK_NEAR(c[i].cores, 1, 1e-12);
	}
	CHECK(coloc_shared(&p) == N);
}

int
main(void)
{
	RUN(alone_on_one_core_keeps_k_plus_one);
	RUN(two_busy_ranks_share_the_competitor);
	RUN(overlap_comes_from_the_phases);
	RUN(without_phases_the_busy_fraction_stands_in);
	RUN(one_rank_per_node_shares_nothing);
	RUN(runnable_share_comes_from_schedstat);
	RUN(phases_go_to_their_rank_in_any_order);
	RUN(models_that_take_a_node_alone_do_not_apply);
	return check_done();
}
