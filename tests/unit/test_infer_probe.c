/* test_infer_probe: ENV's active grouping from solo and pairwise measurements. */
#include <math.h>
#include <string.h>

#include "infer/graph.h"
#include "infer/probe.h"
#include "lib/err.h"
#include "tests/unit/check.h"

static const char *const names[] = { "root", "x", "y", "z" };

TEST(shared_pair_becomes_a_network)
{
	/* x fast and alone; y and z fall to half together behind 6 MB/s */
	double solo[] = { NAN, 300e6, 6e6, 6e6 };
	int64_t lat[] = { 0, 20000, 30000, 30000 };
	double ratio[16], sum[16];
	struct probe_opts o = probe_opts_default();
	struct graph g;
	struct err e;
	int ny;

	for (int i = 0; i < 16; i++)
		ratio[i] = sum[i] = NAN;
	ratio[1 * 4 + 2] = ratio[2 * 4 + 1] = 1.0;
	sum[1 * 4 + 2] = sum[2 * 4 + 1] = 306e6;
	ratio[1 * 4 + 3] = ratio[3 * 4 + 1] = 1.0;
	sum[1 * 4 + 3] = sum[3 * 4 + 1] = 306e6;
	ratio[2 * 4 + 3] = ratio[3 * 4 + 2] = 0.52;
	sum[2 * 4 + 3] = sum[3 * 4 + 2] = 6.2e6;
	CHECK(probe_build_graph(4, names, solo, lat, ratio, sum, &o, &g, &e) == 0);
	CHECK(g.nnet == 2);
	CHECK(g.nlink == 1);
	ny = g.hosts[graph_find_host(&g, "y")].net;
	CHECK(ny == g.hosts[graph_find_host(&g, "z")].net);
	CHECK(ny != g.hosts[graph_find_host(&g, "x")].net);
	CHECK(g.hosts[graph_find_host(&g, "x")].net == g.hosts[graph_find_host(&g, "root")].net);
	CHECK_NEAR(g.nets[ny].attr.bw_Bps, 6.1e6, 0.01e6);
	CHECK(g.nets[ny].attr.confidence > 0.9);
	CHECK_NEAR(g.links[0].attr.lat_ns, 30000, 1);
	graph_release(&g);
}

TEST(root_limited_is_not_shared)
{
	/* everyone halves, but together they move what one moves alone: the root's own limit */
	double solo[] = { NAN, 300e6, 300e6, 300e6 };
	int64_t lat[] = { 0, 20000, 20000, 20000 };
	double ratio[16], sum[16];
	struct probe_opts o = probe_opts_default();
	struct graph g;
	struct err e;

	for (int i = 0; i < 16; i++) {
		ratio[i] = 0.5;
		sum[i] = 300e6;
	}
	CHECK(probe_build_graph(4, names, solo, lat, ratio, sum, &o, &g, &e) == 0);
	CHECK(g.nnet == 1);
	CHECK(g.nlink == 0);
	CHECK(strstr(g.nets[0].attr.note, "3 limited by the root") != NULL);
	graph_release(&g);
}

TEST(unprobed_pairs_are_untested)
{
	double solo[] = { NAN, 10e6, 10e6 };
	int64_t lat[] = { 0, 1000, 1000 };
	double ratio[9], sum[9];
	struct probe_opts o = probe_opts_default();
	struct graph g;
	struct err e;

	for (int i = 0; i < 9; i++)
		ratio[i] = sum[i] = NAN;
	CHECK(probe_build_graph(3, names, solo, lat, ratio, sum, &o, &g, &e) == 0);
	CHECK(g.nnet == 1);
	CHECK(g.nets[0].attr.confidence < 0);
	CHECK(strncmp(g.nets[0].attr.note, "untested", 8) == 0);
	graph_release(&g);
}

int
main(void)
{
	RUN(shared_pair_becomes_a_network);
	RUN(root_limited_is_not_shared);
	RUN(unprobed_pairs_are_untested);
	return check_done();
}
