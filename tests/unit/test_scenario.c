/* test_scenario: scenario files: units, sections, strict errors naming file, line and key. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict/scenario.h"
#include "tests/unit/check.h"

TEST(units)
{
	int64_t ns, b;
	double bw, r, f;
	struct err e;

	if (CHECKED(scen_parse_duration_ns("50 us", &ns, &e) == 0))
		CHECK(ns == 50000);
	if (CHECKED(scen_parse_duration_ns("2ms", &ns, &e) == 0))
		CHECK(ns == 2000000);
	if (CHECKED(scen_parse_duration_ns("1.5 s", &ns, &e) == 0))
		CHECK(ns == 1500000000);
	if (CHECKED(scen_parse_duration_ns("2", &ns, &e) < 0))
		CHECK(strstr(e.msg, "no unit") != NULL);
	CHECK(scen_parse_duration_ns("-2 s", &ns, &e) < 0);
	CHECK(scen_parse_duration_ns("inf s", &ns, &e) < 0);
	CHECK(scen_parse_duration_ns("0x10 s", &ns, &e) < 0);
	CHECK(scen_parse_bw_Bps("10 Mbit/s", &bw, &e) == 0);
	CHECK_NEAR(bw, 1.25e6, 1e-6);
	CHECK(scen_parse_bw_Bps("0.45 Mword/s", &bw, &e) == 0);
	CHECK_NEAR(bw, 3.6e6, 1e-6);
	if (CHECKED(scen_parse_bw_Bps("10 Mbps", &bw, &e) < 0))
		CHECK(strstr(e.msg, "unknown unit 'Mbps'") != NULL);
	if (CHECKED(scen_parse_bytes("4 KiB", &b, &e) == 0))
		CHECK(b == 4096);
	if (CHECKED(scen_parse_bytes("2000 words", &b, &e) == 0))
		CHECK(b == 16000);
	CHECK(scen_parse_rate_per_s("3 /min", &r, &e) == 0);
	CHECK_NEAR(r, 0.05, 1e-12);
	CHECK(scen_parse_fraction("45%", &f, &e) == 0);
	CHECK_NEAR(f, 0.45, 1e-12);
	CHECK(scen_parse_fraction("0.45", &f, &e) == 0);
	CHECK(scen_parse_fraction("45", &f, &e) < 0);
	CHECK(scen_parse_fraction("101%", &f, &e) < 0);
}

TEST(full_file)
{
	static const char text[] =
		"; a comment\n"
		"[scenario]\n"
		"description = test\n"
		"partitioning = load-dependent\n"
		"delay_comm = constant 0.25\n"
		"measured_time = 6.1 s\n"
		"\n"
		"[node ws2]\n"
		"cpu_procs = 2\n"
		"comm_fraction = 58%, 32%\n"
		"burst = 1000 x 3000 words, 1000 x 1000 words\n"
		"capacity = 50%\n"
		"[rank 3]\n"
		"load_average = 1.5\n"
		"[link ws1-ws2]\n"
		"bandwidth = 10 Mbit/s ; inline comment\n"
		"latency = 2 ms\n"
		"burst = 125 kB\n"
		"[link node-a node-b]\n"
		"competing_flows = 2\n"
		"[policy]\n"
		"x = 10\n"
		"[select]\n"
		"candidates = ws1, ws2,ws3\n";
	struct scen s;
	struct err e;
	const struct scen_node *n;
	const struct scen_link *l;

	CHECK(scen_load_string(&s, text, "dir/what-if.ini", &e) == 0);
	CHECK_STR(s.name, "what-if");
	CHECK(s.part == SCEN_PART_LOAD);
	CHECK(s.delay == SCEN_DELAY_CONSTANT);
	CHECK_NEAR(s.delay_const, 0.25, 0);
	CHECK(s.measured_ns == 6100000000LL);
	CHECK(s.nnodes == 2);
	CHECK(s.nlinks == 2);
	n = scen_node_for(&s, 0, "ws2");
	if (CHECKED(n != NULL)) {
		CHECK(n->cpu_procs == 2);
		CHECK(n->ncomm == 2);
	}
	if (CHECKED(n != NULL))
		CHECK(n->line == 8);
	CHECK_NEAR(n->comm[1].comm_frac, 0.32, 1e-12);
	CHECK_NEAR(n->comm[1].comp_frac, 0.68, 1e-12);
	CHECK(n->comm[0].burst_msgs == 1000);
	CHECK(n->comm[0].burst_bytes == 24000);
	CHECK_NEAR(n->capacity, 0.5, 0);
	CHECK(scen_node_for(&s, 3, "ws2")->rank == 3);	/* [rank] wins over [node] */
	CHECK(scen_node_for(&s, 0, "ws9") == NULL);
	l = scen_link_for(&s, "ws2", "ws1");
	if (CHECKED(l != NULL))
		CHECK(l->lat_ns == 2000000);
	/* in bytes of TCP payload: 1448 of every 1514 on the wire */
	CHECK_NEAR(l->bw_Bps, 1.25e6 * 1448 / 1514, 1e-6);
	CHECK_NEAR(l->line_Bps, 1.25e6, 1e-6);
	if (CHECKED(l != NULL))
		CHECK(l->burst_bytes == 119551);	/* 125000 * 1448 / 1514 */
	CHECK(scen_link_for(&s, "node-a", "node-b") != NULL);
	CHECK(scen_link_for(&s, "node-a", "node-b")->burst_bytes == -1);	/* unset: a strict link */
	CHECK(s.ncand == 3);
	CHECK_STR(s.cand[2], "ws3");
	CHECK_NEAR(s.x, 10, 0);
	scen_free(&s);
}

/* A link's rates and bucket are the file's less the frames' headers: mss and
 * frame_overhead say how much, 0 overhead leaves them as written. */
TEST(link_payload_share)
{
	static const struct {
		const char *keys;
		double share;
	} cases[] = {
		{ "", 1448.0 / 1514 },
		{ "frame_overhead = 90 B\n", 1448.0 / 1538 },	/* a physical port */
		{ "mss = 8948 B\n", 8948.0 / 9014 },		/* jumbo frames */
		{ "frame_overhead = 0 B\n", 1 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[256];
		struct scen s;
		struct err e;
		const struct scen_link *l;

		snprintf(text, sizeof text, "[link a-b]\nbandwidth = 100 Mbit/s\ncompeting_traffic = 20 Mbit/s\n"
			 "burst = 100000 B\n%s", cases[i].keys);
		if (!CHECKED(scen_load_string(&s, text, "f.ini", &e) == 0))
			continue;
		l = scen_link_for(&s, "a", "b");
		if (CHECKED(l != NULL)) {
			CHECK_NEAR(l->payload_share, cases[i].share, 1e-12);
			CHECK_NEAR(l->bw_Bps, 12.5e6 * cases[i].share, 1e-3);
			CHECK_NEAR(l->competing_Bps, 2.5e6 * cases[i].share, 1e-3);
			CHECK(l->burst_bytes == llround(100000 * cases[i].share));
			CHECK_NEAR(l->line_Bps, 12.5e6, 1e-3);
		}
		scen_free(&s);
	}
}

/* One bad file each: the message names the file, the line and (where there is one) the key. */
TEST(errors)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[node ws2]\ncpu_procs = 1.5\n", "'b.ini' line 2: key 'cpu_procs' in [node ws2]: '1.5' is not a whole number" },
		{ "[node ws2]\ncpu_procs = 1\n[node ws2]\nweight = 1\n", "line 3: section [node ws2] appears twice" },
		{ "cpu_procs = 1\n", "line 1: key 'cpu_procs'" },
		{ "[link ws1]\nlatency = 1 ms\n", "line 1: section [link ws1]" },
		{ "[link ws1-ws2]\n", "" },	/* no keys: nothing to complain about */
		{ "[link ws1-ws2]\ncompeting_traffic = 20 Mbit/s\nbandwidth = 10 Mbit/s\n", "no bandwidth" },
		{ "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nmss = 0 B\n", "line 3: key 'mss' in [link ws1-ws2]: a segment's payload" },
		{ "[link ws1-ws2]\nbandwidth = 10 Mbit/s\nframe_overhead = -4 B\n", "line 3: key 'frame_overhead'" },
		{ "[node ws2]\ncomm_procs = 3\ncomm_fraction = 10%, 20%\n", "comm_fraction lists 2 competitors, comm_procs says 3" },
		{ "[node ws2]\ncomm_fraction = 60%\ncompute_fraction = 60%\n", "more than all of it" },
		{ "[node ws2]\ncpu_procs = 1\nload_average = 1\n", "not both" },
		{ "[node ws2]\ncomm_procs = 1\ncomm_fraction = 10%\n", "need comm_bandwidth" },
		{ "[node ws2]\nlambda = 1 /s\n", "lambda needs a service time" },
		{ "[scenario]\npartitioning = random\n", "line 2: key 'partitioning' in [scenario]: 'random' is not a policy" },
		{ "[node ws2]\n  cpu_procs = 1\n", "" },	/* leading blanks are fine */
		{ "[node ws2]\ncpu_procs\n", "line 2: expected '[section]' or 'key = value'" },
		{ "[node ws2]\ndescription = xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", "line 2: line longer than" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct scen s;
		struct err e;
		int rc;

		memset(&e, 0, sizeof e);
		rc = scen_load_string(&s, cases[i].text, "b.ini", &e);
		if (cases[i].want[0] == '\0') {
			CHECK(rc == 0);
			if (rc == 0)
				scen_free(&s);
			continue;
		}
		CHECK(rc < 0);
		if (strstr(e.msg, cases[i].want) == NULL) {
			printf("case %zu: got \"%s\"\n", i, e.msg);
			CHECK(strstr(e.msg, cases[i].want) != NULL);
		}
		CHECK(s.nodes == NULL);	/* nothing half-kept */
		CHECK(s.path == NULL);
	}
}

/* 250 links (a chain gn0-gn1 ... gn249-gn250, a third written the other way round): every
 * one found from either end, the same entry a search finds, and no pair that is not a
 * link (two hosts apart, a name that is a prefix of another). */
TEST(link_for_many_links)
{
	char *text = malloc(250 * 64 + 64), h1[16], h2[16], h3[16];
	size_t len = 0;
	struct scen s;
	struct err e;
	int bad = 0;

	if (text == NULL)
		exit(2);
	for (int k = 0; k < 250; k++)
		len += (size_t)snprintf(text + len, 64, "[link gn%d gn%d]\nbandwidth = %d Mbit/s\n", k % 3 ? k : k + 1,
					k % 3 ? k + 1 : k, k + 1);
	CHECK(scen_load_string(&s, text, "chain.ini", &e) == 0);
	CHECK(s.nlinks == 250);
	CHECK(s.link_at.n == 250);
	for (int k = 0; k < 250; k++) {
		const struct scen_link *l;

		snprintf(h1, sizeof h1, "gn%d", k);
		snprintf(h2, sizeof h2, "gn%d", k + 1);
		snprintf(h3, sizeof h3, "gn%d", k + 2);
		l = scen_link_for(&s, h1, h2);
		bad += l == NULL || l != scen_link_for(&s, h2, h1) || l != &s.links[k] || l->line_Bps != (k + 1) * 125000.0;
		bad += scen_link_for(&s, h1, h3) != NULL || scen_link_for(&s, h1, h1) != NULL;
	}
	CHECK(bad == 0);
	CHECK(scen_link_for(&s, "gn1", "gn") == NULL);
	CHECK(scen_link_for(&s, "gn", "gn0") == NULL);
	scen_free(&s);
	CHECK(s.link_at.n == 0);

	/* one pair written both ways is refused: no two links of the index are the same pair */
	len = 0;
	for (int k = 0; k < 10; k++)
		len += (size_t)snprintf(text + len, 64, "[link a%d b%d]\nlatency = %d ms\n", k, k, k + 1);
	snprintf(text + len, 64, "[link b3 a3]\nlatency = 99 ms\n");
	if (CHECKED(scen_load_string(&s, text, "twice.ini", &e) < 0))
		CHECK(strstr(e.msg, "names the same link") != NULL);
	free(text);
}

int
main(void)
{
	RUN(units);
	RUN(full_file);
	RUN(link_payload_share);
	RUN(errors);
	RUN(link_for_many_links);
	return check_done();
}
