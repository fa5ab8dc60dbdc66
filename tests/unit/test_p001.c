/* test_p001: paper 001's work rates: Table 2 on the reconstructed Figure 1, eqs. 2 and 6-8,
 * the greedy of Figure 2 against max flow, the simulator against the flow model, slave
 * selection and Table 1 parameters from a profile. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "infer/graph.h"
#include "lib/err.h"
#include "predict/p001.h"
#include "tests/unit/check.h"

static uint64_t rng = 0x243f6a8885a308d3u;

static double
urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* Figure 1 as reconstructed in the reading notes: A, B on Net1; C, D on Net2; Net3 (50)
 * joins them; Net1 and Net2 200 each. Capacities in tasks/s. */
static void
figure1(struct graph *g)
{
	struct graph_attr a = graph_attr_unknown();
	struct err e;

	graph_init_empty(g, 0);
	a.cap_tps = 200;
	if (graph_add_net(g, "Net1", &a, &e) != 0 || graph_add_net(g, "Net2", &a, &e) != 1)
		return;
	a.cap_tps = 50;
	if (graph_add_host(g, "A", 0, 80, 200, NULL, &e) < 0 || graph_add_host(g, "B", 0, 60, 150, NULL, &e) < 0 ||
	    graph_add_host(g, "C", 1, 50, 60, NULL, &e) < 0 || graph_add_host(g, "D", 1, 10, 90, NULL, &e) < 0 ||
	    graph_add_link(g, "Net3", (struct graph_end){ GRAPH_END_NET, 0 },
			   (struct graph_end){ GRAPH_END_NET, 1 }, &a, &e) < 0)
		graph_release(g);
}

TEST(table2_maxflow)
{
	static const double want[4] = { 110, 130, 60, 90 };
	struct graph g;
	struct p001_caps c;
	struct p001_masters m;
	struct err e;

	figure1(&g);
	CHECK(g.nhost == 4);
	CHECK(p001_caps_init(&c, &g, NULL, NULL, &e) == 0);
	CHECK(p001_select_master(&g, &c, P001_MAXFLOW, &m, &e) == 0);
	for (int p = 0; p < 4; p++) {
		double sum = 0;

		CHECK_NEAR(m.per_master[p].app_rate_tps, want[p], 1e-9);
		for (int s = 0; s < 4; s++)
			sum += m.per_master[p].slave_tps[s];
		CHECK_NEAR(sum, want[p], 1e-9);	/* eq. 1 */
		CHECK(m.per_master[p].slave_tps[p] == 0);
	}
	CHECK(m.best == 1);	/* B */
	/* Eq. 2 with B as master: 13000 tasks take 100 s. */
	CHECK_NEAR(p001_exec_time_s(13000, m.per_master[m.best].app_rate_tps), 100, 1e-9);
	p001_masters_release(&m);
	p001_caps_release(&c);
	graph_release(&g);
}

/* Figure 2's greedy reproduces every SlaveRate of Table 2, not only the totals. */
TEST(table2_greedy)
{
	static const double want[4][4] = { { 0, 60, 50, 0 }, { 80, 0, 50, 0 },
					   { 50, 0, 0, 10 }, { 40, 0, 50, 0 } };
	struct graph g;
	struct p001_caps c;
	struct p001_masters m;
	struct err e;

	figure1(&g);
	CHECK(p001_caps_init(&c, &g, NULL, NULL, &e) == 0);
	CHECK(p001_select_master(&g, &c, P001_GREEDY, &m, &e) == 0);
	for (int p = 0; p < 4; p++)
		for (int s = 0; s < 4; s++) {
			CHECK_NEAR(m.per_master[p].slave_tps[s], want[p][s], 1e-9);
			CHECK(m.per_master[p].found[s] == (want[p][s] > 0));
		}
	CHECK(m.best == 1);
	CHECK_NEAR(m.per_master[1].link_tps[0], 50, 1e-9);
	CHECK_NEAR(m.per_master[1].net_tps[0], 130, 1e-9);
	p001_masters_release(&m);
	p001_caps_release(&c);
	graph_release(&g);
}

TEST(capacities_eqs_6_to_8)
{
	struct graph g;
	struct graph_attr a = graph_attr_unknown();
	struct p001_app app = { .t_slave_s = 0.02, .t_master_s = 0.004, .size_taskxfer_bytes = 1e5,
				.out_fraction = 0.1 };
	double avail[2] = { 0.5, 1 };
	struct p001_caps c;
	struct err e;

	CHECK_NEAR(p001_w_cpu(0.5, 0.02), 25, 1e-12);		/* eq. 6 */
	CHECK_NEAR(p001_w_cpu(1, 0.004), 250, 1e-9);		/* eq. 7 */
	CHECK_NEAR(p001_w_net(12.5e6, 1e5), 125, 1e-12);	/* eq. 8 */
	CHECK(isnan(p001_w_cpu(1.5, 1)));
	CHECK(isnan(p001_w_cpu(1, 0)));
	CHECK(isnan(p001_w_net(1, 0)));
	CHECK(isinf(p001_exec_time_s(10, 0)));

	graph_init_empty(&g, 0);
	a.bw_Bps = 12.5e6;
	CHECK(graph_add_net(&g, "lan", &a, &e) == 0);
	a = graph_attr_unknown();
	CHECK(graph_add_net(&g, "far", &a, &e) == 1);
	CHECK(graph_add_host(&g, "h0", 0, NAN, NAN, NULL, &e) == 0);
	CHECK(graph_add_host(&g, "h1", 1, 7, NAN, NULL, &e) == 1);
	CHECK(p001_caps_init(&c, &g, &app, avail, &e) == 0);
	CHECK_NEAR(c.slave_tps[0], 25, 1e-12);
	CHECK_NEAR(c.master_tps[0], 125, 1e-9);
	CHECK_NEAR(c.slave_tps[1], 7, 0);	/* given in the topology: used as is */
	CHECK_NEAR(c.master_tps[1], 250, 1e-9);
	CHECK_NEAR(c.net_tps[0], 125, 1e-9);
	CHECK(isinf(c.net_tps[1]));
	p001_caps_release(&c);
	CHECK(p001_caps_init(&c, &g, NULL, NULL, &e) == -E_USAGE);
	CHECK(strstr(e.msg, "'h0'") != NULL);
	p001_caps_release(&c);
	graph_release(&g);
}

/* A random ENV-shaped system: 1-4 local networks of 1-4 hosts, joined directly or through a
 * router, random capacities. */
static void
random_env(struct graph *g)
{
	struct err e;
	int nnet = 1 + (int)(urand() * 4), nh = 0, r = -1;

	graph_init_empty(g, 0);
	if (urand() < 0.5)
		r = graph_add_router(g, "r", NULL, &e);
	for (int j = 0; j < nnet; j++) {
		struct graph_attr a = graph_attr_unknown();
		char name[16];
		int hosts = 1 + (int)(urand() * 4);

		a.cap_tps = urand() < 0.2 ? NAN : 1 + floor(urand() * 200);
		snprintf(name, sizeof name, "n%d", j);
		if (graph_add_net(g, name, &a, &e) != j)
			return;
		for (int h = 0; h < hosts; h++) {
			snprintf(name, sizeof name, "h%d", nh++);
			if (graph_add_host(g, name, j, floor(urand() * 100), 1 + floor(urand() * 300), NULL, &e) < 0)
				return;
		}
		if (j == 0 && r < 0)
			continue;
		a.cap_tps = 1 + floor(urand() * 100);
		snprintf(name, sizeof name, "l%d", j);
		if (r >= 0) {
			if (graph_add_link(g, name, (struct graph_end){ GRAPH_END_NET, j },
					   (struct graph_end){ GRAPH_END_ROUTER, r }, &a, &e) < 0)
				return;
		} else if (graph_add_link(g, name, (struct graph_end){ GRAPH_END_NET, 0 },
					  (struct graph_end){ GRAPH_END_NET, j }, &a, &e) < 0) {
			return;
		}
	}
}

/* Property: on tree-shaped systems the greedy of Figure 2 finds the maximum flow, and no
 * work rate exceeds any capacity (eqs. 3-5). */
TEST(greedy_equals_maxflow_and_bounds)
{
	int mismatch = 0, over = 0, trials = 0;

	for (int t = 0; t < 300; t++) {
		struct graph g;
		struct p001_caps c;
		struct err e;

		random_env(&g);
		if (p001_caps_init(&c, &g, NULL, NULL, &e) < 0) {
			p001_caps_release(&c);
			graph_release(&g);
			continue;
		}
		for (int m = 0; m < g.nhost; m++) {
			struct p001_rates a, b;

			trials++;
			if (p001_app_rate(&g, &c, m, NULL, &a, &e) < 0 || p001_greedy_rate(&g, &c, m, NULL, &b, &e) < 0) {
				mismatch++;
			} else {
				if (fabs(a.app_rate_tps - b.app_rate_tps) > 1e-6)
					mismatch++;
				for (int k = 0; k < 2; k++) {
					const struct p001_rates *x = k ? &b : &a;

					if (x->app_rate_tps > c.master_tps[m] + 1e-9)
						over++;
					for (int s = 0; s < g.nhost; s++)
						if (x->slave_tps[s] > c.slave_tps[s] + 1e-9 || x->slave_tps[s] < -1e-9)
							over++;
					for (int j = 0; j < g.nnet; j++)
						if (x->net_tps[j] > c.net_tps[j] + 1e-9)
							over++;
					for (int l = 0; l < g.nlink; l++)
						if (x->link_tps[l] > c.link_tps[l] + 1e-9)
							over++;
				}
			}
			p001_rates_release(&a);
			p001_rates_release(&b);
		}
		p001_caps_release(&c);
		graph_release(&g);
	}
	CHECK(trials > 300);
	CHECK(mismatch == 0);
	CHECK(over == 0);
}

/* Property: with tasks kept in flight (depth 4) the simulated steady-state rate approaches the
 * max-flow AppRate, for every master of Figure 1; utilisations stay in [0, 1]. With strict
 * request/reply (depth 1) slaves wait for work and the rate can only be lower. */
TEST(simulator_approaches_apprate)
{
	struct graph g;
	struct p001_caps c;
	struct p001_app app = { .out_fraction = 0.2 };
	struct err e;

	figure1(&g);
	CHECK(p001_caps_init(&c, &g, NULL, NULL, &e) == 0);
	for (int m = 0; m < 4; m++) {
		struct p001_rates rates;
		struct mwsim_result r1, r4;

		CHECK(p001_app_rate(&g, &c, m, NULL, &rates, &e) == 0);
		CHECK(p001_simulate(&g, &c, &app, m, NULL, 20000, 4, &r4, &e) == 0);
		CHECK(p001_simulate(&g, &c, &app, m, NULL, 20000, 1, &r1, &e) == 0);
		CHECK(fabs(r4.steady_tps - rates.app_rate_tps) < 0.01 * rates.app_rate_tps);
		CHECK(r4.steady_tps <= rates.app_rate_tps * 1.0001);
		CHECK(r1.steady_tps <= r4.steady_tps * 1.0001);
		for (int i = 0; i < r4.nres; i++) {
			CHECK(r4.util[i] >= 0);
			CHECK(r4.util[i] <= 1);
			CHECK(r1.util[i] >= 0);
			CHECK(r1.util[i] <= 1);
		}
		CHECK(r4.done == 20000);
		CHECK(r4.slave_tasks[m] == 0);
		CHECK_NEAR(r4.util[p001_res_link(&g, 0)] * r4.makespan_s * c.link_tps[0],
			   (double)(r4.slave_tasks[m < 2 ? 2 : 0] + r4.slave_tasks[m < 2 ? 3 : 1]), 1e-6);
		p001_rates_release(&rates);
		mwsim_result_release(&r1);
		mwsim_result_release(&r4);
	}
	p001_caps_release(&c);
	graph_release(&g);
}

/* Slave selection: with request/reply the Found set of B leaves slaves idle; the loop adds D
 * (the only slave left, behind the unsaturated Net3) and never makes things worse. */
TEST(slave_selection)
{
	struct graph g;
	struct p001_caps c;
	struct p001_app app = { .out_fraction = 0.5 };
	struct p001_slaves s;
	struct err e;

	figure1(&g);
	CHECK(p001_caps_init(&c, &g, NULL, NULL, &e) == 0);
	CHECK(p001_select_slaves(&g, &c, &app, 1, 5000, 1, 0.05, &s, &e) == 0);
	CHECK_NEAR(s.predicted_tps, 130, 1e-9);
	CHECK(s.use[0]);
	CHECK(s.use[2]);
	CHECK(!s.use[1]);
	CHECK(s.rounds >= 1);
	CHECK(s.simulated_tps <= 130 * 1.0001);
	if (s.rounds > 1 && s.use[3])
		CHECK(s.simulated_tps > 0);
	{
		struct mwsim_result base;
		bool found[4] = { true, false, true, false };

		CHECK(p001_simulate(&g, &c, &app, 1, found, 5000, 1, &base, &e) == 0);
		CHECK(s.simulated_tps >= base.steady_tps * 0.9999);
		CHECK(s.use[3] == (s.simulated_tps > base.steady_tps));
		mwsim_result_release(&base);
	}
	p001_slaves_release(&s);
	p001_caps_release(&c);
	graph_release(&g);
}

/* A master and two slaves of 100 tasks/s (10 ms a task) on one unconstrained network, the
 * master 1 ms a task. */
static void
two_slaves(struct graph *g)
{
	struct graph_attr a = graph_attr_unknown();
	struct err e;

	graph_init_empty(g, 0);
	if (graph_add_net(g, "lan", &a, &e) != 0 || graph_add_host(g, "M", 0, 100, 1000, NULL, &e) < 0 ||
	    graph_add_host(g, "S1", 0, 100, 1000, NULL, &e) < 0 || graph_add_host(g, "S2", 0, 100, 1000, NULL, &e) < 0)
		graph_release(g);
}

/* Section 4.5's network stages on one slave's route: a link of 1 MB/s to S2 adds 1 ms to
 * each hand-out (1000 B) and 4 ms to each result (4000 B), so S2 cycles in 16 ms against
 * S1's 11; the master, handing out on request, gives S1 16/11 as many tasks, and the run
 * takes Tasks / (1/11 + 1/16 per ms): between the dedicated 11 s and the 16 s S2 would
 * need for a fixed half of the work. The closed form leaves out the master's queue (a result
 * that comes while the master serves the other slave's waits up to 1 ms): within 1.5 %. */
TEST(extra_link_on_one_route)
{
	struct graph g;
	struct p001_caps c;
	struct p001_app app = { .out_fraction = 0.2 };
	struct p001_xlink x = { .host = 2, .xres = 0, .bw_Bps = 1e6, .out_bytes = 1000, .in_bytes = 4000 };
	struct mwsim_result r, d;
	struct err e;

	two_slaves(&g);
	CHECK(p001_caps_init(&c, &g, NULL, NULL, &e) == 0);
	CHECK(p001_simulate(&g, &c, &app, 0, NULL, 2000, 1, &d, &e) == 0);
	CHECK_NEAR(d.makespan_s, 11.0, 0.02);
	CHECK(p001_simulate_links(&g, &c, &app, 0, NULL, &x, 1, 1, 2000, 1, &r, &e) == 0);
	CHECK(r.nres == 5);	/* 3 processors, the lan, the extra link */
	CHECK(r.done == 2000);
	CHECK_NEAR(r.makespan_s, 2.0 / (1 / 11.0 + 1 / 16.0), 0.015 * 2.0 / (1 / 11.0 + 1 / 16.0));
	CHECK(r.makespan_s > d.makespan_s);
	CHECK(r.makespan_s < 16.0);
	CHECK_NEAR((double)r.slave_tasks[1] / (double)r.slave_tasks[2], 16.0 / 11.0, 0.015 * 16.0 / 11.0);
	CHECK_NEAR(r.busy_s[p001_res_xlink(&g, 0)], (double)r.slave_tasks[2] * 0.005, 1e-9);
	mwsim_result_release(&r);
	/* a token bucket of 5000 B over a 100 MB/s line: each message finds it full again */
	x.burst_bytes = 5000;
	x.peak_Bps = 1e8;
	CHECK(p001_simulate_links(&g, &c, &app, 0, NULL, &x, 1, 1, 2000, 1, &r, &e) == 0);
	CHECK_NEAR(r.makespan_s, 2.0 / (1 / 11.0 + 1 / 11.05), 0.015 * 2.0 / (1 / 11.0 + 1 / 11.05));
	mwsim_result_release(&r);
	/* latency alone: 2 ms each way on S2's route */
	x = (struct p001_xlink){ .host = 2, .xres = 0, .bw_Bps = 1e12, .lat_s = 0.002 };
	CHECK(p001_simulate_links(&g, &c, &app, 0, NULL, &x, 1, 1, 2000, 1, &r, &e) == 0);
	CHECK_NEAR(r.makespan_s, 2.0 / (1 / 11.0 + 1 / 15.0), 0.015 * 2.0 / (1 / 11.0 + 1 / 15.0));
	mwsim_result_release(&r);
	/* bad extra links */
	x.xres = 1;
	CHECK(p001_simulate_links(&g, &c, &app, 0, NULL, &x, 1, 1, 2000, 1, &r, &e) == -E_USAGE);
	mwsim_result_release(&r);
	x.xres = 0;
	x.bw_Bps = 0;
	CHECK(p001_simulate_links(&g, &c, &app, 0, NULL, &x, 1, 1, 2000, 1, &r, &e) == -E_USAGE);
	mwsim_result_release(&r);
	{
		struct p001_xlink two[2] = { { .host = 1, .bw_Bps = 1e6 }, { .host = 1, .bw_Bps = 1e6 } };

		CHECK(p001_simulate_links(&g, &c, &app, 0, NULL, two, 2, 1, 2000, 1, &r, &e) == -E_USAGE);
		mwsim_result_release(&r);
	}
	mwsim_result_release(&d);
	p001_caps_release(&c);
	graph_release(&g);
}

/* A message of the profile: src -> dst, bytes, sent at t_ns (first and last byte). */
static struct prof_msg
msg(int32_t src, int32_t dst, int64_t bytes, int64_t t_ns)
{
	return (struct prof_msg){ .t_ns = t_ns, .t_last_ns = t_ns, .src = src, .dst = dst, .bytes = bytes, .cid = -1,
				  .proto = PROF_NPROTO - 2 };
}

/* Table 1 from a profile: master 0, slaves 1 and 2. Each task: 100 bytes out, 900 back; slave
 * 1 computes 4 ms per task, slave 2 8 ms; the master is busy 1 ms per task. */
TEST(derive_from_profile)
{
	struct prof_msg msgs[64];
	struct prof_busy busy[64];
	size_t nm = 0, nb = 0;
	struct p001_derived d;
	struct err e;
	int64_t ms = 1000000;

	for (int k = 0; k < 5; k++) {		/* slave 1: a cycle every 10 ms */
		int64_t t = k * 10 * ms;

		msgs[nm++] = msg(0, 1, 60, t);
		msgs[nm++] = msg(0, 1, 40, t + 1);	/* hand-out in two messages */
		busy[nb++] = (struct prof_busy){ 1, t + 2 * ms, t + 6 * ms, -1, -1 };
		msgs[nm++] = msg(1, 0, 900, t + 7 * ms);
		busy[nb++] = (struct prof_busy){ 0, t + 7 * ms, t + 8 * ms, -1, -1 };
	}
	for (int k = 0; k < 3; k++) {		/* slave 2: a cycle every 15 ms */
		int64_t t = k * 15 * ms + 2 * ms;

		msgs[nm++] = msg(0, 2, 100, t);
		busy[nb++] = (struct prof_busy){ 2, t + ms, t + 5 * ms, -1, -1 };
		busy[nb++] = (struct prof_busy){ 2, t + 4 * ms, t + 9 * ms, -1, -1 };	/* overlaps: merged */
		msgs[nm++] = msg(2, 0, 500, t + 10 * ms);
		msgs[nm++] = msg(2, 0, 400, t + 10 * ms + 5);
		busy[nb++] = (struct prof_busy){ 0, t + 11 * ms, t + 12 * ms, -1, -1 };
	}
	msgs[nm++] = msg(0, 2, 8, 60 * ms);	/* a final stop message: no result */
	msgs[nm++] = msg(1, 2, 8, 61 * ms);	/* slave to slave: not a task */
	msgs[nm++] = msg(-1, 0, 50, 3 * ms);	/* an unknown sender: skipped */
	msgs[nm++] = msg(0, 7, 50, 4 * ms);	/* a rank outside the run: skipped */
	busy[nb++] = (struct prof_busy){ 0, 70 * ms, 90 * ms, -1, -1 };	/* after the last message */

	CHECK(p001_derive(msgs, nm, busy, nb, 3, -1, &d, &e) == 0);
	CHECK(d.master == 0);
	CHECK(d.tasks == 8);
	CHECK(d.tasks_rank[1] == 5);
	CHECK(d.tasks_rank[2] == 3);
	CHECK_NEAR(d.size_taskxfer_bytes, 1000, 1e-9);
	CHECK_NEAR(d.out_fraction, 0.1, 1e-12);
	CHECK_NEAR(d.t_slave_rank_s[1], 0.004, 1e-12);
	CHECK_NEAR(d.t_slave_rank_s[2], 0.008, 1e-12);
	CHECK(isnan(d.t_slave_rank_s[0]));
	CHECK_NEAR(d.t_slave_s, (5 * 0.004 + 3 * 0.008) / 8, 1e-12);
	CHECK_NEAR(d.t_master_s, 0.001, 1e-12);
	CHECK(d.skipped_msgs == 3);
	p001_derived_release(&d);

	CHECK(p001_derive(msgs, 0, busy, nb, 3, 0, &d, &e) == -E_FORMAT);
	p001_derived_release(&d);
	CHECK(p001_derive(msgs, nm, busy, nb, 1, 0, &d, &e) == -E_USAGE);
	p001_derived_release(&d);
}

int
main(void)
{
	RUN(table2_maxflow);
	RUN(table2_greedy);
	RUN(capacities_eqs_6_to_8);
	RUN(greedy_equals_maxflow_and_bounds);
	RUN(simulator_approaches_apprate);
	RUN(slave_selection);
	RUN(extra_link_on_one_route);
	RUN(derive_from_profile);
	return check_done();
}
