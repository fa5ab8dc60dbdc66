/* test_infer_passive: ENV's overlap test on synthetic transfer timelines with known answers,
 * and the graph built from them. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "infer/graph.h"
#include "infer/passive.h"
#include "lib/err.h"
#include "tests/unit/check.h"

#define MS 1000000LL

/* Bytes of src -> dst at rate_Bps from t0 to t1 (ms), one sample per 64 kB chunk (offloaded
 * packets), as a capture would see them. */
static void
transfer(struct pasv *p, int src, int dst, double t0_ms, double t1_ms, double rate_Bps)
{
	const double chunk = 65536;
	double t = t0_ms * MS;
	struct err e;

	while (t < t1_ms * MS) {
		t += chunk / rate_Bps * 1e9;
		if (pasv_flow_add(p, src, dst, (int64_t)t, (int64_t)chunk, true, &e) < 0)
			return;
	}
}

/* Root r sends to a and b; each runs alone at solo_Bps, and at together_Bps while both run:
 * a from 0 to 3 s, b from 1 to 4 s (overlap 1..3 s). */
static void
two_from_root(struct pasv *p, double solo_Bps, double together_Bps)
{
	transfer(p, 0, 1, 0, 1000, solo_Bps);
	transfer(p, 0, 1, 1000, 3000, together_Bps);
	transfer(p, 0, 2, 1000, 3000, together_Bps);
	transfer(p, 0, 2, 3000, 4000, solo_Bps);
}

static void
three_hosts(struct pasv *p)
{
	struct err e;

	pasv_init(p, NULL);
	CHECK(pasv_add_host(p, "root", true, &e) == 0);
	CHECK(pasv_add_host(p, "a", true, &e) == 1);
	CHECK(pasv_add_host(p, "b", true, &e) == 2);
	CHECK(pasv_add_host(p, "a", true, &e) == -E_USAGE);
}

TEST(shared_halves)
{
	struct pasv p;
	struct pasv_pair r;

	three_hosts(&p);
	two_from_root(&p, 6e6, 3e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, pasv_find_flow(&p, 0, 1), pasv_find_flow(&p, 0, 2), &r);
	CHECK(r.verdict == PASV_SHARED);
	CHECK_NEAR(r.overlap_ns / 1e9, 2.0, 0.05);
	CHECK_NEAR(r.ratio_f, 0.5, 0.05);
	CHECK_NEAR(r.ratio_g, 0.5, 0.05);
	CHECK_NEAR(r.rate_f_overlap_Bps + r.rate_g_overlap_Bps, 6e6, 0.3e6);
	CHECK(r.confidence > 0.8);
	CHECK(r.confidence <= 1);
	pasv_release(&p);
}

TEST(independent_keeps_rate)
{
	struct pasv p;
	struct pasv_pair r;

	three_hosts(&p);
	two_from_root(&p, 6e6, 6e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK(r.verdict == PASV_INDEPENDENT);
	CHECK_NEAR(r.ratio_f, 1.0, 0.05);
	CHECK_NEAR(r.ratio_g, 1.0, 0.05);
	pasv_release(&p);
}

TEST(in_between_is_inconclusive)
{
	struct pasv p;
	struct pasv_pair r;

	three_hosts(&p);
	two_from_root(&p, 6e6, 4.8e6);	/* ratio 0.8: neither clearly */
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK(r.verdict == PASV_INCONCLUSIVE);
	CHECK(r.confidence == 0);
	pasv_release(&p);
}

/* One transfer keeps its rate while the other halves: the mean (0.73) alone would say
 * shared, but they did not share a bottleneck; one at 1.9 and the other halved is not
 * "neither slowed" either. */
TEST(disagreeing_ratios_are_inconclusive)
{
	struct pasv p;
	struct pasv_pair r;

	three_hosts(&p);
	transfer(&p, 0, 1, 0, 1000, 6e6);
	transfer(&p, 0, 1, 1000, 3000, 6e6);	/* a: 1.0 */
	transfer(&p, 0, 2, 1000, 3000, 2.8e6);	/* b: 0.47 */
	transfer(&p, 0, 2, 3000, 4000, 6e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK_NEAR((r.ratio_f + r.ratio_g) / 2, 0.73, 0.03);
	CHECK(r.verdict == PASV_INCONCLUSIVE);
	CHECK(r.confidence == 0);
	pasv_release(&p);

	three_hosts(&p);
	transfer(&p, 0, 1, 0, 1000, 3e6);
	transfer(&p, 0, 1, 1000, 3000, 5.7e6);	/* a: 1.9 */
	transfer(&p, 0, 2, 1000, 3000, 2.7e6);	/* b: 0.45 */
	transfer(&p, 0, 2, 3000, 4000, 6e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK((r.ratio_f + r.ratio_g) / 2 > 0.85);
	CHECK(r.verdict == PASV_INCONCLUSIVE);
	pasv_release(&p);
}

/* Both slowed to a tenth: a shared capacity would have been divided, not lost. */
TEST(lost_capacity_is_not_shared)
{
	struct pasv p;
	struct pasv_pair r;

	three_hosts(&p);
	two_from_root(&p, 20e6, 2e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK_NEAR(r.ratio_f, 0.1, 0.03);
	CHECK(r.verdict == PASV_INCONCLUSIVE);
	pasv_release(&p);
}

TEST(never_overlapped_is_untested)
{
	struct pasv p;
	struct pasv_pair r;

	three_hosts(&p);
	transfer(&p, 0, 1, 0, 1000, 6e6);
	transfer(&p, 0, 2, 1500, 2500, 6e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK(r.verdict == PASV_UNTESTED);
	CHECK(r.overlap_ns == 0);
	CHECK(r.confidence < 0);
	CHECK(isnan(r.ratio_f));
	pasv_release(&p);
}

TEST(always_together_is_untested)
{
	struct pasv p;
	struct pasv_pair r;

	/* ENV needs each one's rate alone to compare with: two transfers that always run
	 * together say nothing, however slow */
	three_hosts(&p);
	transfer(&p, 0, 1, 0, 2000, 3e6);
	transfer(&p, 0, 2, 0, 2000, 3e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK(r.verdict == PASV_UNTESTED);
	CHECK(r.overlap_ns > 1900 * MS);
	pasv_release(&p);
}

TEST(short_overlap_is_untested_and_confidence_grows)
{
	struct pasv p, q;
	struct pasv_pair r1, r2;

	three_hosts(&p);
	transfer(&p, 0, 1, 0, 1000, 6e6);
	transfer(&p, 0, 1, 1000, 1100, 3e6);	/* 100 ms together: below the least span */
	transfer(&p, 0, 2, 1000, 1100, 3e6);
	transfer(&p, 0, 2, 1100, 2100, 6e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r1);
	CHECK(r1.verdict == PASV_UNTESTED);
	CHECK_STR(r1.why, "too little overlap");
	pasv_release(&p);

	three_hosts(&q);
	transfer(&q, 0, 1, 0, 1000, 6e6);
	transfer(&q, 0, 1, 1000, 1400, 3e6);	/* 400 ms */
	transfer(&q, 0, 2, 1000, 1400, 3e6);
	transfer(&q, 0, 2, 1400, 2400, 6e6);
	pasv_flows_sort(&q);
	pasv_pair_test(&q, 0, 1, &r1);
	pasv_release(&q);
	three_hosts(&q);
	two_from_root(&q, 6e6, 3e6);		/* 2 s */
	pasv_flows_sort(&q);
	pasv_pair_test(&q, 0, 1, &r2);
	CHECK(r1.verdict == PASV_SHARED);
	CHECK(r2.verdict == PASV_SHARED);
	CHECK(r1.confidence < r2.confidence);
	pasv_release(&q);
}

TEST(idle_gaps_are_not_counted)
{
	struct pasv p;
	struct pasv_pair r;

	/* a transfers in bursts with 500 ms pauses: the pauses are idle time, not a slow rate */
	three_hosts(&p);
	for (int k = 0; k < 4; k++)
		transfer(&p, 0, 1, k * 1000, k * 1000 + 500, 6e6);
	transfer(&p, 0, 2, 0, 4000, 6e6);
	pasv_flows_sort(&p);
	pasv_pair_test(&p, 0, 1, &r);
	CHECK_NEAR(r.rate_f_overlap_Bps, 6e6, 0.3e6);
	CHECK_NEAR(r.overlap_ns / 1e9, 2.0, 0.1);
	CHECK(r.verdict == PASV_UNTESTED);	/* a is never alone */
	pasv_release(&p);
}

/* Four hosts: root and x on one segment, y and z behind a gateway; root -> y and root -> z
 * share a capped uplink (6 MB/s), root -> x is fast. */
static void
routed(struct pasv *p, double together_Bps)
{
	struct err e;
	static const char *const names[] = { "root", "x", "y", "z" };
	static const char *const addrs[] = { "10.1.1.1", "10.1.1.2", "10.1.2.3", "10.1.2.4" };
	static const char *const macs[] = { "02:00:00:00:00:01", "02:00:00:00:00:02",
					    "02:00:00:00:00:03", "02:00:00:00:00:04" };

	pasv_init(p, NULL);
	for (int i = 0; i < 4; i++) {
		CHECK(pasv_add_host(p, names[i], true, &e) == i);
		CHECK(pasv_add_addr(p, i, addrs[i], &e) == 0);
		CHECK(pasv_add_mac(p, i, macs[i], &e) == 0);
	}
	CHECK(pasv_add_addr(p, 0, "not-an-address", &e) == -E_FORMAT);
	p->root = 0;
	two_from_root(p, 6e6, together_Bps);	/* flows to hosts 1 and 2 ... */
	/* ... but those are x and y; move them to y and z */
	p->flows[0].dst = 2;
	p->flows[1].dst = 3;
	transfer(p, 0, 1, 0, 4000, 100e6);
}

/* A frame from src seen at dst's capture, with the given source MAC and TTL. */
static void
frame(struct pasv *p, int src, int dst, const char *smac, int ttl)
{
	struct pkt k;
	unsigned int b[6];

	memset(&k, 0, sizeof k);
	k.af = AF_INET;
	memcpy(k.src, p->hosts[src].addr[0], 4);
	memcpy(k.dst, p->hosts[dst].addr[0], 4);
	k.has_mac = true;
	sscanf(smac, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
	for (int i = 0; i < 6; i++)
		k.smac[i] = (uint8_t)b[i];
	k.ttl = (uint8_t)ttl;
	k.flags = PKT_TCP_ACK;
	pasv_packet(p, dst, &k, 1);
}

static void
link_layer(struct pasv *p)
{
	frame(p, 1, 0, "02:00:00:00:00:02", 64);	/* x -> root: x's own MAC, no hop */
	frame(p, 2, 0, "0a:00:00:00:00:01", 63);	/* y -> root: gateway side 1 */
	frame(p, 3, 0, "0a:00:00:00:00:01", 63);
	frame(p, 0, 2, "0a:00:00:00:00:02", 63);	/* root -> y: gateway side 2 */
	frame(p, 0, 3, "0a:00:00:00:00:02", 63);
}

TEST(graph_places_shared_bottleneck)
{
	struct pasv p;
	struct graph g;
	struct err e;
	int ny, nr, l;

	routed(&p, 3e6);
	link_layer(&p);
	CHECK(pasv_build_graph(&p, &g, &e) == 0);
	CHECK(g.nnet == 2);
	CHECK(g.nrouter == 1);
	CHECK(g.nlink == 2);
	ny = g.hosts[graph_find_host(&g, "y")].net;
	nr = g.hosts[graph_find_host(&g, "root")].net;
	CHECK(ny == g.hosts[graph_find_host(&g, "z")].net);
	CHECK(nr == g.hosts[graph_find_host(&g, "x")].net);
	CHECK(ny != nr);
	CHECK_NEAR(g.nets[ny].attr.bw_Bps, 6e6, 0.3e6);
	CHECK(g.nets[ny].attr.confidence > 0.5);
	if (CHECKED(g.nets[ny].attr.note))
		CHECK(strncmp(g.nets[ny].attr.note, "shared bottleneck", 17) == 0);
	/* the router's link on the shared side carries it; the other one is untested */
	l = graph_find_link(&g, "lan2--router1");
	CHECK(l >= 0);
	CHECK(fabs(g.links[l].attr.bw_Bps - 6e6) < 0.3e6);
	l = graph_find_link(&g, "lan1--router1");
	CHECK(l >= 0);
	CHECK(g.links[l].attr.confidence < 0);
	graph_release(&g);
	pasv_release(&p);
}

/* Links are full duplex: results flowing back from y while root -> y and root -> z share the
 * uplink's downstream direction are not compared with them, so they cannot outvote it. */
TEST(opposite_directions_are_not_pairs)
{
	struct pasv p;
	struct graph g;
	struct err e;
	int ny;

	routed(&p, 3e6);
	transfer(&p, 2, 0, 500, 3500, 6e6);	/* y -> root, at full rate throughout */
	transfer(&p, 3, 0, 0, 600, 6e6);	/* z -> root, briefly */
	link_layer(&p);
	pasv_analyze(&p);
	CHECK(p.npair > 0);
	for (int i = 0; i < p.npair; i++) {
		const struct pasv_flow *f = &p.flows[p.pairs[i].f], *h = &p.flows[p.pairs[i].g];

		CHECK(!(f->src == h->dst && f->dst == h->src));
		CHECK(!(f->src == 0 && h->dst == 0));
		CHECK(!(f->dst == 0 && h->src == 0));
	}
	CHECK(pasv_build_graph(&p, &g, &e) == 0);
	ny = g.hosts[graph_find_host(&g, "y")].net;
	if (CHECKED(g.nets[ny].attr.note))
		CHECK(strncmp(g.nets[ny].attr.note, "shared bottleneck", 17) == 0);
	CHECK_NEAR(g.nets[ny].attr.bw_Bps, 6e6, 0.3e6);
	graph_release(&g);
	pasv_release(&p);
}

TEST(graph_independent_when_rates_hold)
{
	struct pasv p;
	struct graph g;
	struct err e;
	int ny;

	routed(&p, 6e6);
	link_layer(&p);
	CHECK(pasv_build_graph(&p, &g, &e) == 0);
	ny = g.hosts[graph_find_host(&g, "y")].net;
	if (CHECKED(g.nets[ny].attr.note))
		CHECK(strstr(g.nets[ny].attr.note, "shared bottleneck") == NULL);
	for (int i = 0; i < g.nnet; i++)
		CHECK_MSG(g.nets[i].attr.note == NULL || strncmp(g.nets[i].attr.note, "shared", 6) != 0,
			  "net %d noted \"%.200s\", expected no \"shared\" note", i, g.nets[i].attr.note);
	graph_release(&g);
	pasv_release(&p);
}

TEST(source_limited_is_not_a_shared_network)
{
	struct pasv p;
	struct graph g;
	struct err e;

	/* one segment; the root never moves more than the two together: its own limit */
	pasv_init(&p, NULL);
	CHECK(pasv_add_host(&p, "root", true, &e) == 0);
	CHECK(pasv_add_host(&p, "a", true, &e) == 1);
	CHECK(pasv_add_host(&p, "b", true, &e) == 2);
	CHECK(pasv_add_addr(&p, 0, "10.0.0.1", &e) == 0);
	CHECK(pasv_add_addr(&p, 1, "10.0.0.2", &e) == 0);
	CHECK(pasv_add_addr(&p, 2, "10.0.0.3", &e) == 0);
	CHECK(pasv_add_mac(&p, 0, "02:00:00:00:00:01", &e) == 0);
	CHECK(pasv_add_mac(&p, 1, "02:00:00:00:00:02", &e) == 0);
	CHECK(pasv_add_mac(&p, 2, "02:00:00:00:00:03", &e) == 0);
	p.root = 0;
	two_from_root(&p, 100e6, 50e6);
	frame(&p, 0, 1, "02:00:00:00:00:01", 64);
	frame(&p, 0, 2, "02:00:00:00:00:01", 64);
	CHECK(pasv_build_graph(&p, &g, &e) == 0);
	CHECK(g.nnet == 1);
	if (CHECKED(g.nets[0].attr.note))
		CHECK(strstr(g.nets[0].attr.note, "shared bottleneck") == NULL);
	CHECK(strstr(g.hosts[0].note, "limited by this host") != NULL);
	graph_release(&g);
	pasv_release(&p);
}

int
main(void)
{
	RUN(shared_halves);
	RUN(independent_keeps_rate);
	RUN(in_between_is_inconclusive);
	RUN(disagreeing_ratios_are_inconclusive);
	RUN(lost_capacity_is_not_shared);
	RUN(never_overlapped_is_untested);
	RUN(always_together_is_untested);
	RUN(short_overlap_is_untested_and_confidence_grows);
	RUN(idle_gaps_are_not_counted);
	RUN(graph_places_shared_bottleneck);
	RUN(opposite_directions_are_not_pairs);
	RUN(graph_independent_when_rates_hold);
	RUN(source_limited_is_not_a_shared_network);
	return check_done();
}
