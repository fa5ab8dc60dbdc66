/* test_maxflow: Dinic's max flow against hand-made cases and brute-force minimum cuts. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/maxflow.h"
#include "tests/unit/check.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static double
urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

TEST(textbook)
{
	/* CLRS figure 26.1: maximum flow 23. */
	static const int E[][3] = { { 0, 1, 16 }, { 0, 2, 13 }, { 2, 1, 4 }, { 1, 3, 12 },
				    { 3, 2, 9 }, { 2, 4, 14 }, { 4, 3, 7 }, { 3, 5, 20 }, { 4, 5, 4 } };
	struct err e;
	struct maxflow *f = maxflow_new(6, 9, &e);
	bool cut[6];
	double cutcap = 0;

	for (int i = 0; i < 9; i++)
		CHECK(maxflow_add_edge(f, E[i][0], E[i][1], E[i][2], &e) == i);
	CHECK(maxflow_edge_flow(f, 0) == 0);
	CHECK_NEAR(maxflow_run(f, 0, 5), 23, 1e-9);
	maxflow_min_cut(f, cut);
	CHECK(cut[0]);
	CHECK(!cut[5]);
	for (int i = 0; i < 9; i++)
		if (cut[E[i][0]] && !cut[E[i][1]])
			cutcap += E[i][2];
	CHECK_NEAR(cutcap, 23, 1e-9);
	/* Running again gives the same answer (the residuals are reset). */
	CHECK_NEAR(maxflow_run(f, 0, 5), 23, 1e-9);
	CHECK(isnan(maxflow_run(f, 0, 0)));
	CHECK(isnan(maxflow_edge_flow(f, 9)));
	maxflow_free(f);
}

TEST(infinite_and_errors)
{
	struct err e;
	struct maxflow *f = maxflow_new(3, 3, &e);

	CHECK(maxflow_add_edge(f, 0, 1, INFINITY, &e) == 0);
	CHECK(maxflow_add_edge(f, 1, 2, 5, &e) == 1);
	CHECK_NEAR(maxflow_run(f, 0, 2), 5, 1e-12);
	CHECK_NEAR(maxflow_edge_flow(f, 0), 5, 1e-12);
	CHECK(maxflow_add_edge(f, 1, 2, INFINITY, &e) == 2);
	CHECK(isinf(maxflow_run(f, 0, 2)));
	CHECK(maxflow_add_edge(f, 0, 2, 1, &e) == -E_LIMIT);
	CHECK(maxflow_add_edge(f, 0, 3, 1, &e) == -E_USAGE);
	CHECK(maxflow_add_edge(f, 0, 1, -1, &e) == -E_USAGE);
	CHECK(maxflow_add_edge(f, 0, 1, NAN, &e) == -E_USAGE);
	maxflow_free(f);
	CHECK(maxflow_new(1, 1, &e) == NULL);
	maxflow_free(NULL);
}

/* Property: on random graphs of up to 8 nodes the flow equals the smallest s-t cut found by
 * enumerating every subset of the other nodes, the flow on each edge is within its capacity,
 * and flow is conserved at every inner node. */
TEST(brute_force_cuts)
{
	int bad_value = 0, bad_edge = 0, bad_conservation = 0;

	for (int trial = 0; trial < 300; trial++) {
		int n = 2 + (int)(urand() * 7), m = (int)(urand() * 3 * n) + 1;
		int eu[64], ev[64];
		double ec[64], best = INFINITY, flow, net[8] = { 0 };
		struct err e;
		struct maxflow *f = maxflow_new(n, m, &e);

		for (int i = 0; i < m; i++) {
			eu[i] = (int)(urand() * n);
			ev[i] = (int)(urand() * n);
			ec[i] = urand() < 0.2 ? 0 : floor(urand() * 100) / 4;
			if (maxflow_add_edge(f, eu[i], ev[i], ec[i], &e) != i)
				bad_edge++;
		}
		flow = maxflow_run(f, 0, n - 1);
		for (unsigned mask = 0; mask < (1u << (n - 2)); mask++) {
			bool side[8];	/* true: source side */
			double cap = 0;

			side[0] = true;
			side[n - 1] = false;
			for (int v = 1; v < n - 1; v++)
				side[v] = mask >> (v - 1) & 1;
			for (int i = 0; i < m; i++)
				if (side[eu[i]] && !side[ev[i]])
					cap += ec[i];
			best = fmin(best, cap);
		}
		if (fabs(flow - best) > 1e-9)
			bad_value++;
		for (int i = 0; i < m; i++) {
			double x = maxflow_edge_flow(f, i);

			if (x < -1e-9 || x > ec[i] + 1e-9)
				bad_edge++;
			net[eu[i]] -= x;
			net[ev[i]] += x;
		}
		for (int v = 1; v < n - 1; v++)
			if (fabs(net[v]) > 1e-9)
				bad_conservation++;
		if (fabs(net[n - 1] - flow) > 1e-9)
			bad_conservation++;
		maxflow_free(f);
	}
	CHECK(bad_value == 0);
	CHECK(bad_edge == 0);
	CHECK(bad_conservation == 0);
}

int
main(void)
{
	RUN(textbook);
	RUN(infinite_and_errors);
	RUN(brute_force_cuts);
	return check_done();
}
