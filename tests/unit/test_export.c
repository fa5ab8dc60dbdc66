/* test_export: the exporters' shared layout (export/xtrace.c: hosts, kept messages, phases,
 * node load) and the Perfetto writer's JSON strings, on a small run made here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export/perfetto.h"
#include "export/xtrace.h"
#include "lib/tsv.h"
#include "tests/unit/check.h"

static char run[256];

static void
put(const char *name, const char *text)
{
	check_put(run, name, text);
}

/* perfetto_json_str's output for s, in a static buffer. */
static const char *
json(const char *s)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof buf, "w");

	perfetto_json_str(f, s);
	fclose(f);
	return buf;
}

TEST(json_strings)
{
	CHECK_STR(json("plain"), "\"plain\"");
	CHECK_STR(json(NULL), "\"\"");
	CHECK_STR(json("a\"b\\c"), "\"a\\\"b\\\\c\"");
	CHECK_STR(json("t\tn\n\x01\x7f"), "\"t\\u0009n\\u000a\\u0001\\u007f\"");
	CHECK_STR(json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	CHECK_STR(json("x\xffy"), "\"x\\ufffdy\"");			/* not UTF-8 at all */
	CHECK_STR(json("\xc0\xaf"), "\"\\ufffd\\ufffd\"");		/* overlong '/' */
	CHECK_STR(json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");	/* a surrogate */
	CHECK_STR(json("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");	/* past U+10FFFF */
	CHECK_STR(json("end\xe2\x82"), "\"end\\ufffd\\ufffd\"");		/* cut inside a sequence */
}

#define RANKS_HDR "# contend-ranks 1\nrank\thost\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tn_busy\tn_idle\tcpu_pct\trun_ns\twait_ns\tmsgs_sent\tbytes_sent\tmsgs_recv\tbytes_recv\n"
#define RANK_ROW(r, h) r "\t" h "\t2000000000\t50\t0\t50\t1\t1\t1\t1\t50\t1\t0\t1\t1\t1\t1\n"
#define T0 "1000000000000"	/* an origin in ns */

static void
write_node_load(void)
{
	static const char *const cols[] = { "t_mono_ns", "t_real_ns", "cpu_user", "cpu_nice", "cpu_system",
		"cpu_idle", "cpu_irq", "cpu_softirq", "cpu_steal", NULL };
	char path[512];
	struct tsv_w w;
	struct err e;

	snprintf(path, sizeof path, "%s/samples/node-h1.tsv.gz", run);
	CHECK(tsv_w_open(&w, path, "nodeload", 1, cols, true, true, &e) == 0);
	/* three samples 1 s apart, clk_tck 100: 150 then 200 busy ticks, i.e. 1.5 and 2 CPUs */
	for (int i = 0; i < 3; i++) {
		tsv_w_i64(&w, i);
		tsv_w_i64(&w, 1000000000000LL + i * 1000000000LL);
		tsv_w_i64(&w, i == 0 ? 0 : i == 1 ? 100 : 250);	/* user */
		tsv_w_i64(&w, 0);
		tsv_w_i64(&w, i == 0 ? 0 : i == 1 ? 50 : 100);	/* system */
		tsv_w_i64(&w, 1000);
		for (int k = 0; k < 3; k++)
			tsv_w_i64(&w, 0);
		CHECK(tsv_w_end(&w, &e) == 0);
	}
	CHECK(tsv_w_close(&w, &e) == 0);
}

TEST(layout)
{
	struct xtrace x;
	struct err e;

	put("profile/ranks.tsv", RANKS_HDR RANK_ROW("2", "h2") RANK_ROW("0", "h1") RANK_ROW("1", "h1"));
	put("profile/messages.tsv", "# contend-messages 1\nt_first_ns\tt_last_ns\tsrc\tdst\tcid\ttag\ttag_name\tbytes\tproto\n"
	    "1000300000000\t1000300000100\t1\t2\t0\t5\t-\t100\teager\n"
	    "1000100000000\t1000100000100\t0\t1\t0\t5\t-\t200\teager\n"
	    "1000200000000\t1000200000100\t0\t-1\t0\t5\t-\t300\teager\n"	/* unknown end */
	    "1000200000000\t1000200000100\t0\t7\t0\t5\t-\t300\teager\n"	/* not in ranks.tsv */
	    "1000200000000\t1000200000100\t0\t0\t0\t5\t-\t300\teager\n"	/* to itself */
	    "1000200000000\t1000200000100\t1\t0\t0\t5\t-\t0\tctrl\n");	/* protocol record */
	/* rank 0 busy the first second with 1 s of CPU, idle the second; rank 1 idle, then busy
	 * with 0.5 s; rank 2 on h2 does not count on h1 */
	put("profile/phases.tsv", "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n"
	    "0\tidle\t" "1001000000000\t1002000000000\t0\t0\n"
	    "0\tbusy\t" T0 "\t1001000000000\t1000000000\t0\n"
	    "1\tidle\t" T0 "\t1001000000000\t0\t0\n"
	    "1\tbusy\t" "1001000000000\t1002000000000\t500000000\t0\n"
	    "2\tbusy\t" T0 "\t1002000000000\t2000000000\t0\n");
	put("meta/run.tsv", "# contend-meta 1\nkey\tvalue\nclk_tck\t100\n");
	write_node_load();
	CHECK(xtrace_load(&x, run, &e) == 0);
	CHECK(x.p.nranks == 3);
	CHECK(x.nhosts == 2);
	CHECK_STR(x.hosts[0], "h1");	/* in order of their first rank */
	CHECK(xtrace_host(&x, 0) == 0);
	CHECK(xtrace_host(&x, 1) == 0);
	CHECK(xtrace_host(&x, 2) == 1);
	CHECK(x.nmsgs == 2);
	CHECK(x.msgs_unknown == 3);
	CHECK(x.msgs_ctrl == 1);
	if (x.nmsgs == 2) {	/* by time */
		CHECK(x.p.msgs[x.msgs[0]].bytes == 200);
		CHECK(x.p.msgs[x.msgs[1]].bytes == 100);
	}
	CHECK(x.nph == 5);
	CHECK(x.ph_first[0] == 0);
	CHECK(x.ph_first[1] == 2);
	CHECK(x.ph_first[2] == 4);
	CHECK(x.ph_first[3] == 5);
	CHECK(x.ph[0].busy);	/* rank 0 sorted by start */
	CHECK(!x.ph[1].busy);
	CHECK(x.t0_ns == 1000000000000LL);
	CHECK(x.t1_ns == 1002000000000LL);
	CHECK(x.nload == 2);
	if (x.nload == 2) {
		CHECK_NEAR(x.load[0].busy_cpus, 1.5, 1e-9);
		CHECK_NEAR(x.load[0].foreign_cpus, 0.5, 1e-9);	/* rank 0 ran 1 CPU of it */
		CHECK_NEAR(x.load[1].busy_cpus, 2.0, 1e-9);
		CHECK_NEAR(x.load[1].foreign_cpus, 1.5, 1e-9);	/* rank 1 ran 0.5 */
	}
	xtrace_free(&x);
	xtrace_free(NULL);
}

TEST(no_profile)
{
	struct xtrace x;
	struct err e;
	char path[600];

	snprintf(path, sizeof path, "%s/profile/ranks.tsv", run);
	remove(path);
	CHECK(xtrace_load(&x, run, &e) < 0);
	CHECK(strstr(e.msg, "contend parse") != NULL);
	xtrace_free(&x);
}

int
main(void)
{
	char d[300];

	snprintf(run, sizeof run, "%s", check_tmpdir());
	for (int i = 0; i < 3; i++) {
		snprintf(d, sizeof d, "%s/%s", run, (const char *[]){ "profile", "meta", "samples" }[i]);
		mkdir(d, 0755);
	}
	RUN(json_strings);
	RUN(layout);
	RUN(no_profile);
	return check_done();
}
