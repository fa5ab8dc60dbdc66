/* test_graph: the ENV topology graph: building, DOT round trip, hand edits, drawing, TSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "infer/graph.h"
#include "lib/err.h"
#include "tests/unit/check.h"

/* Paper 001 Figure 1 (reconstructed, see docs/models-001-002.md) plus a router, so that
 * every kind of element and value (known, unknown, untested) is written. */
static void
figure1(struct graph *g)
{
	struct graph_attr a = graph_attr_unknown();
	struct err e;
	int n1, n2, n3, r;

	graph_init_empty(g, 0);
	a.cap_tps = 200;
	a.bw_Bps = 12.5e6;
	a.lat_ns = 100000;
	a.confidence = 0.9;
	a.note = "switch, measured by \"probe\"";
	n1 = graph_add_net(g, "Net1", &a, &e);
	a.note = NULL;
	a.confidence = GRAPH_UNTESTED;
	n2 = graph_add_net(g, "Net2", &a, &e);
	a = graph_attr_unknown();
	n3 = graph_add_net(g, "lab", &a, &e);
	CHECK(n1 == 0);
	CHECK(n2 == 1);
	CHECK(n3 == 2);
	CHECK(graph_add_host(g, "A", n1, 80, 200, NULL, &e) == 0);
	CHECK(graph_add_host(g, "B", n1, 60, 150, "fast one", &e) == 1);
	CHECK(graph_add_host(g, "C", n2, 50, 60, NULL, &e) == 2);
	CHECK(graph_add_host(g, "D", n2, 10, 90, NULL, &e) == 3);
	CHECK(graph_add_host(g, "node-7.example.org", n3, NAN, NAN, NULL, &e) == 4);
	r = graph_add_router(g, "gw", "edge router", &e);
	CHECK(r == 0);
	a = graph_attr_unknown();
	a.cap_tps = 50;
	a.bw_Bps = 0.1;
	a.lat_ns = 0;
	a.confidence = 0;
	CHECK(graph_add_link(g, "Net3", (struct graph_end){ GRAPH_END_NET, n1 },
			     (struct graph_end){ GRAPH_END_NET, n2 }, &a, &e) == 0);
	a = graph_attr_unknown();
	a.bw_Bps = 1.25e8;
	CHECK(graph_add_link(g, "uplink", (struct graph_end){ GRAPH_END_NET, n3 },
			     (struct graph_end){ GRAPH_END_ROUTER, r }, &a, &e) == 1);
	CHECK(graph_add_link(g, "wan", (struct graph_end){ GRAPH_END_ROUTER, r },
			     (struct graph_end){ GRAPH_END_NET, n2 }, &a, &e) == 2);
}

static char *
tmp_path(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", check_tmpdir(), name);
	return buf[k];
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(build_and_refuse)
{
	struct graph g;
	struct graph_attr a = graph_attr_unknown();
	struct err e = { 0 };

	figure1(&g);
	CHECK(g.nnet == 3);
	CHECK(g.nhost == 5);
	CHECK(g.nrouter == 1);
	CHECK(g.nlink == 3);
	CHECK(graph_add_host(&g, "A", 0, 1, 1, NULL, &e) == -E_USAGE);
	CHECK(strstr(e.msg, "'A'") != NULL);
	CHECK(graph_add_host(&g, "net:x", 0, 1, 1, NULL, &e) == -E_USAGE);
	CHECK(graph_add_host(&g, "Z", 7, 1, 1, NULL, &e) == -E_USAGE);
	CHECK(graph_add_host(&g, "Z", 0, -1, 1, NULL, &e) == -E_USAGE);
	CHECK(graph_add_net(&g, "", &a, &e) == -E_USAGE);
	a.confidence = 1.5;
	CHECK(graph_add_net(&g, "N9", &a, &e) == -E_USAGE);
	a = graph_attr_unknown();
	a.bw_Bps = -3;
	CHECK(graph_add_net(&g, "N9", &a, &e) == -E_USAGE);
	a = graph_attr_unknown();
	CHECK(graph_add_link(&g, "self", (struct graph_end){ GRAPH_END_NET, 0 },
			     (struct graph_end){ GRAPH_END_NET, 0 }, &a, &e) == -E_USAGE);
	graph_release(&g);

	graph_init_empty(&g, 2);
	CHECK(graph_add_net(&g, "a", &a, &e) == 0);
	CHECK(graph_add_net(&g, "b", &a, &e) == 1);
	CHECK(graph_add_net(&g, "c", &a, &e) == -E_LIMIT);
	CHECK(g.refused == 1);
	graph_release(&g);
}

TEST(net_path)
{
	struct graph g;
	int path[4];

	figure1(&g);
	CHECK(graph_net_path(&g, 0, 0, path, 4) == 0);
	if (CHECKED(graph_net_path(&g, 0, 1, path, 4) == 1))
		CHECK(path[0] == 0);
	if (CHECKED(graph_net_path(&g, 2, 1, path, 4) == 2)) {
		CHECK(path[0] == 1);
		CHECK(path[1] == 2);
	}
	if (CHECKED(graph_net_path(&g, 1, 2, path, 4) == 2)) {
		CHECK(path[0] == 2);
		CHECK(path[1] == 1);
	}
	/* Net1 reaches lab only across Net2. */
	if (CHECKED(graph_net_path(&g, 0, 2, path, 4) == 3)) {
		CHECK(path[0] == 0);
		CHECK(path[1] == 2);
		CHECK(path[2] == 1);
	}
	CHECK(graph_net_path(&g, 0, 2, path, 2) == -1);
	CHECK(graph_net_path(&g, 2, 1, path, 1) == -1);
	graph_release(&g);
}

TEST(dot_round_trip)
{
	struct graph g, r;
	struct err e = { 0 };
	char why[200] = "";
	const char *dot = tmp_path("t.dot");

	figure1(&g);
	CHECK(graph_write_dot(&g, dot, &e) == 0);
	CHECK(graph_read_dot(&r, dot, 0, &e) == 0);
	CHECK(graph_equal(&g, &r, why, sizeof why));
	if (why[0])
		printf("# %s\n", why);
	/* The comparison itself can fail. */
	r.hosts[1].slave_tps = 61;
	CHECK(!graph_equal(&g, &r, why, sizeof why));
	CHECK(strstr(why, "'B'") != NULL);
	graph_release(&r);

	/* A second round trip from the read graph gives the same file content. */
	CHECK(graph_read_dot(&r, dot, 0, &e) == 0);
	{
		const char *dot2 = tmp_path("t2.dot");
		struct graph r2;

		CHECK(graph_write_dot(&r, dot2, &e) == 0);
		CHECK(graph_read_dot(&r2, dot2, 0, &e) == 0);
		CHECK(graph_equal(&r, &r2, NULL, 0));
		graph_release(&r2);
		unlink(dot2);
	}
	graph_release(&r);
	graph_release(&g);
	unlink(dot);
}

/* A hand-written file in the documented layout reads, with defaults for what is left out. */
TEST(dot_hand_written)
{
	struct graph g;
	struct err e = { 0 };
	const char *dot = tmp_path("hand.dot");

	write_text(dot,
		   "graph x { contend_topology=1\n"
		   " subgraph cluster_lan { bw_Bps=\"1e6\"; cap_tps=\"20\"\n"
		   "   \"net:lan\" [kind=anchor]\n"
		   "   h1 [kind=host, slave_tps=\"5\"]\n"
		   "   h2 [kind=host, master_tps=\"7.5\", note=\"spare\"]\n"
		   " }\n"
		   " subgraph cluster_far { \"net:far\" [kind=anchor]; h3 [kind=host] }\n"
		   " \"net:lan\" -- \"net:far\" [kind=link, lat_ns=\"2000000\", confidence=\"0.5\"]\n"
		   "}\n");
	CHECK(graph_read_dot(&g, dot, 0, &e) == 0);
	CHECK(g.nnet == 2);
	CHECK(g.nhost == 3);
	CHECK(g.nlink == 1);
	if (g.nnet == 2 && g.nhost == 3 && g.nlink == 1) {
		CHECK_STR(g.nets[g.hosts[0].net].name, "lan");
		CHECK_NEAR(g.nets[0].attr.bw_Bps, 1e6, 0);
		CHECK_NEAR(g.nets[0].attr.cap_tps, 20, 0);
		CHECK(g.nets[0].attr.confidence < 0);
		CHECK(isnan(g.nets[1].attr.bw_Bps));
		CHECK_NEAR(g.hosts[0].slave_tps, 5, 0);
		CHECK(isnan(g.hosts[0].master_tps));
		CHECK_NEAR(g.hosts[1].master_tps, 7.5, 0);
		CHECK_STR(g.hosts[1].note, "spare");
		CHECK_STR(g.links[0].name, "lan--far");
		CHECK(g.links[0].attr.lat_ns == 2000000);
		CHECK_NEAR(g.links[0].attr.confidence, 0.5, 0);
	}
	graph_release(&g);
	unlink(dot);
}

/* Every bad attribute fails the read with the element and the attribute named. */
TEST(dot_validation)
{
	static const struct {
		const char *body;	/* inside "graph x { contend_topology=1 ... }" */
		const char *want1, *want2;	/* both must appear in the message */
	} cases[] = {
		{ "subgraph cluster_n { h [kind=host, slave_tps=\"fast\"] }", "node 'h'", "slave_tps" },
		{ "subgraph cluster_n { h [kind=host, master_tps=\"-2\"] }", "node 'h'", "master_tps" },
		{ "subgraph cluster_n { bw_Bps=\"1e999\"; h [kind=host] }", "cluster 'cluster_n'", "bw_Bps" },
		{ "subgraph cluster_n { lat_ns=\"1.5\"; h [kind=host] }", "cluster 'cluster_n'", "lat_ns" },
		{ "subgraph cluster_n { confidence=\"2\"; h [kind=host] }", "cluster 'cluster_n'", "confidence" },
		{ "subgraph cluster_n { h [kind=hots] }", "node 'h'", "kind" },
		{ "h [kind=host]", "node 'h'", "cluster" },
		{ "subgraph cluster_n { r [kind=router] }", "node 'r'", "outside" },
		{ "subgraph cluster_n { \"net:m\" [kind=anchor] }", "node 'net:m'", "anchor" },
		{ "subgraph cluster_a { \"net:a\" [kind=anchor] } subgraph cluster_b { \"net:b\" [kind=anchor] }"
		  " \"net:a\" -- \"net:b\" [kind=link, bw_Bps=\"12x\"]", "edge 'net:a' -- 'net:b'", "bw_Bps" },
		{ "subgraph cluster_a { \"net:a\" [kind=anchor] } subgraph cluster_b { \"net:b\" [kind=anchor] }"
		  " \"net:a\" -- \"net:b\" [kind=link, confidence=\"maybe\"]", "edge 'net:a' -- 'net:b'", "confidence" },
		{ "subgraph cluster_a { \"net:a\" [kind=anchor]; h [kind=host] }"
		  " \"net:a\" -- h [kind=link]", "edge", "anchors or routers" },
		{ "subgraph cluster_a { \"net:a\" [kind=anchor]; h [kind=host] }"
		  " \"net:a\" -- h [kind=wire]", "edge", "kind" },
	};
	const char *dot = tmp_path("bad.dot");

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graph g;
		struct err e = { 0 };
		char text[1024];
		int rc;

		snprintf(text, sizeof text, "graph x { contend_topology=1\n%s\n}\n", cases[i].body);
		write_text(dot, text);
		rc = graph_read_dot(&g, dot, 0, &e);
		CHECK(rc == -E_FORMAT);
		CHECK(strstr(e.msg, cases[i].want1) != NULL);
		CHECK(strstr(e.msg, cases[i].want2) != NULL);
		if (rc != -E_FORMAT || !strstr(e.msg, cases[i].want1) || !strstr(e.msg, cases[i].want2))
			printf("# case %zu: rc %d: %s\n", i, rc, e.msg);
		graph_release(&g);
	}
	/* Not DOT at all, and DOT that is not ours. */
	{
		struct graph g;
		struct err e = { 0 };

		write_text(dot, "graph { a -- }}}\n");
		CHECK(graph_read_dot(&g, dot, 0, &e) == -E_FORMAT);
		CHECK(strstr(e.msg, "not a DOT graph") != NULL);
		graph_release(&g);
		write_text(dot, "digraph { a -> b }\n");
		CHECK(graph_read_dot(&g, dot, 0, &e) == -E_FORMAT);
		CHECK(strstr(e.msg, "contend_topology") != NULL);
		graph_release(&g);
		CHECK(graph_read_dot(&g, tmp_path("missing.dot"), 0, &e) == -E_IO);
		graph_release(&g);
	}
	unlink(dot);
}

static long
file_head(const char *path, char *head, size_t n)
{
	FILE *f = fopen(path, "rb");
	long size;

	memset(head, 0, n);
	if (f == NULL)
		return -1;
	if (fread(head, 1, n - 1, f) == 0)
		head[0] = '\0';
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	return size;
}

TEST(render)
{
	struct graph g;
	struct err e = { 0 };
	char head[256];
	const char *pdf = tmp_path("t.pdf"), *svg = tmp_path("t.svg");

	figure1(&g);
	CHECK(graph_render(&g, "pdf", pdf, &e) == 0);
	CHECK(file_head(pdf, head, sizeof head) > 500);
	CHECK(memcmp(head, "%PDF-", 5) == 0);
	CHECK(graph_render(&g, "svg", svg, &e) == 0);
	CHECK(file_head(svg, head, sizeof head) > 500);
	CHECK_MSG(strstr(head, "<svg") != NULL || strstr(head, "<?xml") != NULL,
		  "'%s' starts \"%.40s\", expected \"<svg\" or \"<?xml\" in its head", svg, head);
	{
		/* The SVG names every host and the link with its capacity. */
		FILE *f = fopen(svg, "r");
		static char all[1 << 18];
		size_t n = f ? fread(all, 1, sizeof all - 1, f) : 0;

		if (f)
			fclose(f);
		all[n] = '\0';
		CHECK(strstr(all, "</svg>") != NULL);
		CHECK_MSG(strstr(all, ">node&#45;7.example.org<") != NULL || strstr(all, ">node-7.example.org<") != NULL,
			  "the SVG names no node-7.example.org, escaped (&#45;) or not");
		CHECK(strstr(all, "50 tasks/s") != NULL);
	}
	CHECK(graph_render(&g, "no-such-format", tmp_path("t.x"), &e) < 0);
	CHECK(e.msg[0] != '\0');
	graph_release(&g);
	unlink(pdf);
	unlink(svg);
	unlink(tmp_path("t.x"));
}

TEST(tsv)
{
	struct graph g;
	struct err e = { 0 };
	const char *path = tmp_path("topology.tsv");
	char line[512];
	int rows = 0, links = 0, untested = 0;
	FILE *f;

	figure1(&g);
	CHECK(graph_write_tsv(&g, path, &e) == 0);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	if (CHECKED(fgets(line, sizeof line, f)))
		CHECK_STR(line, "# contend-topology 1\n");
	if (CHECKED(fgets(line, sizeof line, f)))
		CHECK(strncmp(line, "kind\ta\tb\tbw_Bps\tlat_ns\tconfidence\tstatus\tnote", 44) == 0);
	while (fgets(line, sizeof line, f)) {
		rows++;
		if (strncmp(line, "link\tNet1\tNet2\t0.1\t0\t0\ttested\t-\tNet3\t50\n", 40) == 0)
			links++;
		if (strstr(line, "\tuntested\tuntested\t"))
			untested++;
	}
	fclose(f);
	CHECK(rows == 3 + 5 + 3);
	CHECK(links == 1);
	CHECK(untested == 3);	/* Net2, uplink, wan */
	graph_release(&g);
	unlink(path);
}

int
main(void)
{
	RUN(build_and_refuse);
	RUN(net_path);
	RUN(dot_round_trip);
	RUN(dot_hand_written);
	RUN(dot_validation);
	RUN(render);
	RUN(tsv);
	rmdir(check_tmpdir());
	return check_done();
}
