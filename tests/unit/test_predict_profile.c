/* test_predict_profile: reading RUN/profile and RUN/topology.tsv for the models, with distrust. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "predict/profile.h"
#include "tests/unit/check.h"

static char run[256];

static void
put(const char *name, const char *text)
{
	check_put(run, name, text);
}

static void
remove_file_of_run(const char *name)
{
	char path[300];

	snprintf(path, sizeof path, "%s/%s", run, name);
	remove(path);
}

#define RANKS_HDR "# contend-ranks 1\nrank\thost\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tn_busy\tn_idle\tcpu_pct\trun_ns\twait_ns\tmsgs_sent\tbytes_sent\tmsgs_recv\tbytes_recv\n"
#define LINKS_HDR "# contend-links 1\nsrc\tdst\tmsgs\tbytes\tavg_bytes\tactive_ns\tt_first_ns\tt_last_ns\n"

TEST(good_and_damaged_rows)
{
	struct prof p;
	struct err e;

	put("profile/ranks.tsv", RANKS_HDR
	    "1\tws2\t34000000000\t80\t5\t15\t300000000\t50000000\t100\t100\t85\t1\t0\t1\t1\t1\t1\n"
	    "0\tws1\t35000000000\t80\t5\t15\t300000000\t50000000\t100\t100\t85\t1\t0\t1\t1\t1\t1\n"
	    "2\tws3\t-5\t80\t5\t15\t300000000\t50000000\t100\t100\t85\t1\t0\t1\t1\t1\t1\n"	/* negative time */
	    "3\tws4\t5\t180\t5\t15\t3\t5\t1\t1\t85\t1\t0\t1\t1\t1\t1\n"				/* 180 % */
	    "x\tws4\t5\t80\t5\t15\t3\t5\t1\t1\t85\t1\t0\t1\t1\t1\t1\n"				/* not a number */
	    "4\tws5\t5\t80\n");									/* short row */
	put("profile/links.tsv", LINKS_HDR
	    "0\t1\t10\t10000\t1000\t5\t0\t10\n"
	    "1\t0\t10\t10000\t1000\t5\t0\t10\n"
	    "0\t1\t10\t10000\t1000\t5\t0\t10\n"	/* twice */
	    "0\t7\t10\t10000\t1000\t5\t0\t10\n"	/* unknown rank */
	    "1\t0\t10\t10000\t5\t5\t0\t10\n");	/* avg_bytes not bytes/msgs */
	put("profile/netparams.tsv", "# contend-netparams 1\nkey\tvalue\nlat_ns\t50000\nbw_Bps\t1.25e7\nbw_how\tbulk transfer\n");
	put("topology.tsv", "# contend-topology 1\nkind\ta\tb\tbw_Bps\tlat_ns\tconfidence\tstatus\tnote\tname\tcap_tps\n"
	    "net\tlan0\t-\t12500000\t50000\t1\ttested\t-\tlan0\t-\n"
	    "member\tws1\tlan0\t-\t-\t-\t-\t-\tws1\t-\n"
	    "bogus\tws1\tlan0\t-\t-\t-\t-\t-\tws1\t-\n");
	CHECK(prof_load(&p, run, &e) == 0);
	CHECK(p.nranks == 2);
	CHECK(p.ranks[0].rank == 0);	/* sorted */
	CHECK(p.ranks[1].rank == 1);
	CHECK_STR(p.ranks[1].host, "ws2");
	CHECK(prof_dedicated_ns(&p) == 35000000000LL);
	CHECK(prof_nhosts(&p) == 2);
	CHECK(prof_has_host(&p, "ws1"));
	CHECK(!prof_has_host(&p, "ws3"));
	CHECK(p.have_links);
	CHECK(p.nlinks == 2);
	CHECK(p.have_net);
	CHECK(p.lat_ns == 50000);
	CHECK_NEAR(p.bw_Bps, 1.25e7, 0);
	CHECK_STR(p.bw_how, "bulk transfer");
	CHECK(p.have_topo);
	CHECK(p.ntopo == 2);
	CHECK(p.damaged == 4 + 3 + 1);
	CHECK(strstr(p.first_damage, "ranks.tsv") != NULL);
	prof_free(&p);
}

TEST(missing_and_broken)
{
	struct prof p;
	struct err e;
	char path[300];

	snprintf(path, sizeof path, "%s/profile/ranks.tsv", run);
	remove(path);
	CHECK(prof_load(&p, run, &e) < 0);
	CHECK(strstr(e.msg, "contend parse") != NULL);
	prof_free(&p);
	put("profile/ranks.tsv", "# contend-links 1\nsrc\tdst\n");
	CHECK(prof_load(&p, run, &e) < 0);	/* wrong format */
	prof_free(&p);
	put("profile/ranks.tsv", RANKS_HDR);
	CHECK(prof_load(&p, run, &e) < 0);	/* no row */
	CHECK(strstr(e.msg, "no usable rank row") != NULL);
	prof_free(&p);
	put("profile/ranks.tsv", RANKS_HDR
	    "0\tws1\t35\t80\t5\t15\t3\t5\t1\t1\t85\t1\t0\t1\t1\t1\t1\n"
	    "0\tws1\t35\t80\t5\t15\t3\t5\t1\t1\t85\t1\t0\t1\t1\t1\t1\n");
	CHECK(prof_load(&p, run, &e) < 0);	/* a rank twice */
	CHECK(strstr(e.msg, "twice") != NULL);
	prof_free(&p);
}

/* The labels export needs: tag, communicator, collective name, ctrl records, idle phases. */
TEST(message_labels_and_idle_phases)
{
	struct prof p;
	struct err e;

	put("profile/ranks.tsv", RANKS_HDR "0\tws1\t35\t80\t5\t15\t3\t5\t1\t1\t85\t1\t0\t1\t1\t1\t1\n");
	put("profile/messages.tsv", "# contend-messages 1\n"
	    "t_first_ns\tt_last_ns\tsrc\tdst\tcid\ttag\ttag_name\tbytes\tproto\n"
	    "10\t20\t0\t1\t0\t7\t-\t100\teager\n"
	    "30\t40\t1\t0\t2\t-12\tallreduce\t8\teager\n"
	    "50\t60\t1\t0\tx\t-\tallreduce\t0\tctrl\n"		/* bad cid, no tag: kept */
	    "70\t80\t1\t0\t0\t99999999999\tbcast\t1\teager\n");	/* tag out of range */
	put("profile/phases.tsv", "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n"
	    "0\tbusy\t0\t10\t9\t0\n0\tidle\t10\t30\t-\t0\n0\tbusy\t30\t40\t8\t0\n");
	CHECK(prof_load(&p, run, &e) == 0);
	CHECK(p.nmsgs == 4);
	if (p.nmsgs == 4) {
		CHECK(p.msgs[0].have_tag);
		CHECK(p.msgs[0].tag == 7);
		CHECK(p.msgs[0].cid == 0);
		CHECK(p.msgs[0].name == 0);
		CHECK(p.msgs[1].have_tag);
		CHECK(p.msgs[1].tag == -12);
		CHECK(p.msgs[1].cid == 2);
		CHECK(p.msgs[1].name == 1);
		CHECK(!p.msgs[2].have_tag);
		CHECK(p.msgs[2].cid == -1);
		CHECK(p.msgs[2].ctrl);
		CHECK(p.msgs[2].name == 1);
		CHECK(!p.msgs[3].have_tag);
		CHECK(p.msgs[3].name == 2);
		CHECK(!p.msgs[3].ctrl);
	}
	if (CHECKED(p.nnames == 2)) {
		CHECK_STR(p.names[0], "allreduce");
		CHECK_STR(p.names[1], "bcast");
	}
	CHECK(p.nbusy == 2);
	CHECK(p.nidle == 1);
	if (p.nbusy == 2 && p.nidle == 1) {
		CHECK(p.busy[1].run_ns == 8);
		CHECK(p.idle[0].run_ns == -1);
		CHECK(p.idle[0].t_end_ns == 30);
	}
	prof_free(&p);
}

/* Every field of a small profile, as written by hand: what a faster reader must keep. */
TEST(every_field)
{
	struct prof p;
	struct err e;

	put("profile/ranks.tsv", RANKS_HDR
	    "1\tws2\t34000000001\t80.5\t4.25\t15.25\t300000000.5\t50000000\t101\t102\t85.125\t103\t104\t105\t106\t107\t108\n"
	    "0\tws1\t35000000000\t70\t10\t20\t3\t5\t1\t2\t99\t3\t4\t5\t6\t7\t8\n");
	put("profile/links.tsv", LINKS_HDR
	    "1\t0\t2\t8192\t4096\t1500\t1700000000100000000\t1700000000200000000\n"
	    "0\t1\t3\t30\t10\t7\t-5\t9223372036854775807\n");
	put("profile/netparams.tsv", "# contend-netparams 1\nkey\tvalue\nlat_how\tping-pong\nlat_ns\t49999.6\nbw_Bps\t1.25e7\nbw_how\tbulk\n");
	put("profile/stats.tsv", "# contend-stats 1\nkey\tvalue\ncoverage\tpartial\ncoverage_note\tone capture cut\n");
	put("topology.tsv", "# contend-topology 1\nkind\ta\tb\tbw_Bps\tlat_ns\tcap_tps\n"
	    "link\tws1\tws2\t1.25e8\t-\t1000.5\n");
	put("profile/messages.tsv", "# contend-messages 1\n"
	    "t_first_ns\tt_last_ns\tsrc\tdst\tcid\ttag\ttag_name\tbytes\tproto\tconn\n"
	    "1700000000100000000\t1700000000100000500\t0\t1\t3\t-2147483648\tbarrier\t9223372036854775807\trndv-put\t0\n"
	    "007\t6\t-1\t1\t-1\t2147483647\t-\t0\tbogus\t1\n"		/* t_last before t_first */
	    "5\t-\t1\t-1\t2147483648\t2147483648\tbarrier\t1\tsync\t2\n"	/* cid and tag too large */
	    "-0\t0\t1\t0\t0\t0\t-\t1\tctrl\t3\n"
	    "+5\t9\t1\t0\t0\t0\t-\t1\teager\t4\n");				/* damaged: '+' */
	put("profile/phases.tsv", "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n"
	    "1\tbusy\t100\t200\t90\t0\n"
	    "0\tidle\t50\t100\t-\t0\n"
	    "0\tbusy\t20\t300\t-7\t0\n"
	    "0\tbusy\t30\t 40\t1\t0\n");		/* damaged: a blank */
	CHECK(prof_load(&p, run, &e) == 0);
	CHECK(p.nranks == 2);
	if (p.nranks == 2) {
		const struct prof_rank *r = &p.ranks[1];

		CHECK(r->rank == 1);
		CHECK_STR(r->host, "ws2");
		CHECK(r->exec_ns == 34000000001LL);
		CHECK(r->comp_pct == 80.5);
		CHECK(r->comm_pct == 4.25);
		CHECK(r->idle_pct == 15.25);
		CHECK(r->avg_busy_ns == 300000000.5);
		CHECK(r->avg_idle_ns == 50000000);
		CHECK(r->n_busy == 101);
		CHECK(r->n_idle == 102);
		CHECK(r->cpu_pct == 85.125);
		CHECK(r->run_ns == 103);
		CHECK(r->wait_ns == 104);
		CHECK(r->msgs_sent == 105);
		CHECK(r->bytes_sent == 106);
		CHECK(r->msgs_recv == 107);
		CHECK(r->bytes_recv == 108);
		CHECK(p.ranks[0].rank == 0);
		CHECK(p.ranks[0].bytes_recv == 8);
	}
	CHECK(p.have_links);
	CHECK(p.nlinks == 2);
	if (p.nlinks == 2) {
		const struct prof_link *l = &p.links[0];	/* sorted: 0 -> 1 first */

		CHECK(l->src == 0);
		CHECK(l->dst == 1);
		CHECK(l->msgs == 3);
		CHECK(l->bytes == 30);
		CHECK(l->avg_bytes == 10);
		CHECK(l->active_ns == 7);
		CHECK(l->t_first_ns == -5);
		CHECK(l->t_last_ns == INT64_MAX);
		l = &p.links[1];
		CHECK(l->src == 1);
		CHECK(l->dst == 0);
		CHECK(l->msgs == 2);
		CHECK(l->bytes == 8192);
		CHECK(l->avg_bytes == 4096);
		CHECK(l->active_ns == 1500);
		CHECK(l->t_first_ns == 1700000000100000000LL);
		CHECK(l->t_last_ns == 1700000000200000000LL);
	}
	CHECK(p.have_net);
	CHECK(p.lat_ns == 50000);
	CHECK(p.bw_Bps == 1.25e7);
	CHECK_STR(p.lat_how, "ping-pong");
	CHECK_STR(p.bw_how, "bulk");
	CHECK_STR(p.coverage, "partial");
	CHECK_STR(p.coverage_note, "one capture cut");
	CHECK(p.have_topo);
	CHECK(p.ntopo == 1);
	if (p.ntopo == 1) {
		CHECK_STR(p.topo[0].kind, "link");
		CHECK_STR(p.topo[0].a, "ws1");
		CHECK_STR(p.topo[0].b, "ws2");
		CHECK(p.topo[0].bw_Bps == 1.25e8);
		CHECK(p.topo[0].lat_ns == -1);
		CHECK(p.topo[0].cap_tps == 1000.5);
	}
	CHECK(p.have_msgs);
	CHECK(p.nmsgs == 4);
	if (p.nmsgs == 4) {
		const struct prof_msg *m = p.msgs;

		CHECK(m[0].t_ns == 1700000000100000000LL);
		CHECK(m[0].t_last_ns == 1700000000100000500LL);
		CHECK(m[0].src == 0);
		CHECK(m[0].dst == 1);
		CHECK(m[0].bytes == INT64_MAX);
		CHECK(m[0].cid == 3);
		CHECK(m[0].have_tag);
		CHECK(m[0].tag == INT32_MIN);
		CHECK(!m[0].ctrl);
		CHECK(m[0].name == 1);
		CHECK(strcmp(prof_proto_names[m[0].proto], "rndv-put") == 0);
		CHECK(m[1].t_ns == 7);
		CHECK(m[1].t_last_ns == 7);
		CHECK(m[1].src == -1);
		CHECK(m[1].dst == 1);
		CHECK(m[1].bytes == 0);
		CHECK(m[1].cid == -1);
		CHECK(m[1].have_tag);
		CHECK(m[1].tag == INT32_MAX);
		CHECK(m[1].name == 0);
		CHECK(!m[1].ctrl);
		CHECK_STR(prof_proto_names[m[1].proto], "other");
		CHECK(m[2].t_ns == 5);
		CHECK(m[2].t_last_ns == 5);
		CHECK(m[2].dst == -1);
		CHECK(m[2].cid == -1);
		CHECK(!m[2].have_tag);
		CHECK(m[2].tag == 0);
		CHECK(m[2].name == 1);
		CHECK(strcmp(prof_proto_names[m[2].proto], "sync") == 0);
		CHECK(m[3].t_ns == 0);
		CHECK(m[3].t_last_ns == 0);
		CHECK(m[3].ctrl);
		CHECK(m[3].have_tag);
		CHECK(m[3].tag == 0);
		CHECK(strcmp(prof_proto_names[m[3].proto], "ctrl") == 0);
	}
	if (CHECKED(p.nnames == 1))
		CHECK_STR(p.names[0], "barrier");
	CHECK(p.have_phases);
	CHECK(p.nbusy == 2);
	CHECK(p.nidle == 1);
	if (p.nbusy == 2 && p.nidle == 1) {
		CHECK(p.busy[0].rank == 1);
		CHECK(p.busy[0].t_start_ns == 100);
		CHECK(p.busy[0].t_end_ns == 200);
		CHECK(p.busy[0].run_ns == 90);
		CHECK(p.busy[1].rank == 0);
		CHECK(p.busy[1].t_start_ns == 20);
		CHECK(p.busy[1].run_ns == -1);
		CHECK(p.idle[0].rank == 0);
		CHECK(p.idle[0].t_start_ns == 50);
		CHECK(p.idle[0].t_end_ns == 100);
		CHECK(p.idle[0].run_ns == -1);
	}
	CHECK(p.t_phase0_ns == 20);
	CHECK(p.t_phase1_ns == 300);
	CHECK(p.capped == 0);
	CHECK(p.truncated == 0);
	CHECK(p.damaged == 2);
	CHECK(strstr(p.first_damage, "messages.tsv' line 7: column 't_first_ns': not an integer") != NULL);
	prof_free(&p);
}

/* A rank that started before the others waited for the last one in MPI's start (collect
 * starts each application once its node's capture is ready, 0.1-0.4 s apart on the
 * testbed, where a bare job's ranks start within a few ms): its time counts from the last
 * rank's start, with its percentages of the shorter time. */
TEST(the_run_counts_from_the_last_ranks_start)
{
	struct prof p;
	struct err e;

	/* rank 0 starts at 0 (50 ms of work, waits to 300), rank 1 at 250; both end at 1000 */
	put("profile/ranks.tsv", RANKS_HDR
	    "0\tws1\t1000000000\t72\t3\t25\t375000000\t250000000\t2\t1\t75\t750000000\t0\t1\t1\t1\t1\n"
	    "1\tws2\t750000000\t90\t4\t6\t350000000\t50000000\t2\t1\t94\t705000000\t0\t1\t1\t1\t1\n");
	put("profile/phases.tsv", "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n"
	    "0\tbusy\t0\t50000000\t-\t-\n0\tidle\t50000000\t300000000\t-\t-\n"
	    "0\tbusy\t300000000\t1000000000\t-\t-\n"
	    "1\tbusy\t250000000\t300000000\t-\t-\n1\tidle\t300000000\t350000000\t-\t-\n"
	    "1\tbusy\t350000000\t1000000000\t-\t-\n");
	CHECK(prof_load(&p, run, &e) == 0);
	CHECK(prof_dedicated_ns(&p) == 1000000000LL);	/* as read: rank 0's whole life */
	CHECK(p.skew_ns == 0);
	CHECK(prof_start_together(&p) == 250000000LL);
	CHECK(prof_dedicated_ns(&p) == 750000000LL);
	CHECK(p.ranks[0].exec_ns == 750000000LL);
	CHECK(p.ranks[0].early_ns == 250000000LL);
	CHECK(p.ranks[1].early_ns == 0);
	CHECK(p.ranks[1].exec_ns == 750000000LL);
	CHECK_NEAR(p.ranks[0].comp_pct, 96, 1e-9);	/* 720 ms of work in 750 */
	CHECK_NEAR(p.ranks[0].comm_pct, 4, 1e-9);
	CHECK_NEAR(p.ranks[0].idle_pct, 0, 1e-9);
	CHECK_NEAR(p.ranks[0].cpu_pct, 100, 1e-9);
	CHECK_NEAR(p.ranks[1].comp_pct, 90, 1e-9);	/* rank 1 unchanged */
	/* a second call takes nothing more */
	CHECK(prof_start_together(&p) == 250000000LL);
	CHECK(p.ranks[0].exec_ns == 750000000LL);
	prof_free(&p);
	/* a rank without phases: its start is not known, nothing moves */
	put("profile/phases.tsv", "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n"
	    "0\tbusy\t0\t50000000\t-\t-\n0\tidle\t50000000\t300000000\t-\t-\n");
	CHECK(prof_load(&p, run, &e) == 0);
	CHECK(prof_start_together(&p) == 0);
	CHECK(prof_dedicated_ns(&p) == 1000000000LL);
	prof_free(&p);
	remove_file_of_run("profile/phases.tsv");
}

/* prof_host_ids numbers the hosts in the order of their first rank, as prof_host_first
 * tells them, also for ranks of one host far apart and for 4096 ranks on 1024 hosts placed
 * round-robin (a search by name per rank would be 4096 x 1024 comparisons). */
TEST(host_ids_in_first_rank_order)
{
	static const char *const names[] = { "wsb", "wsa", "wsb", "wsc", "wsa", "wsb" };
	static const int want[] = { 0, 1, 0, 2, 1, 0 };
	struct prof p = { .nranks = 6 };
	int *id, n = -1, bad = 0;

	p.ranks = calloc(4096, sizeof *p.ranks);
	if (p.ranks == NULL)
		exit(2);
	for (int i = 0; i < 6; i++)
		snprintf(p.ranks[i].host, sizeof p.ranks[i].host, "%s", names[i]);
	id = prof_host_ids(&p, &n);
	CHECK(n == 3);
	CHECK(prof_nhosts(&p) == 3);
	for (int i = 0; i < 6; i++)
		bad += id[i] != want[i] || prof_host_first(&p, i) != (i == 0 || i == 1 || i == 3);
	CHECK(bad == 0);
	free(id);
	p.nranks = 4096;
	for (int i = 0; i < 4096; i++)
		snprintf(p.ranks[i].host, sizeof p.ranks[i].host, "node%04d", (1023 - i % 1024) * 7 % 1024);
	id = prof_host_ids(&p, &n);
	CHECK(n == 1024);
	for (int i = 0; i < 4096; i++)
		bad += id[i] != i % 1024;
	CHECK(bad == 0);
	free(id);
	p.nranks = 0;
	id = prof_host_ids(&p, &n);
	CHECK(id != NULL);
	CHECK(n == 0);
	free(id);
	free(p.ranks);
}

int
main(void)
{
	char prof[300];

	snprintf(run, sizeof run, "%s", check_tmpdir());
	snprintf(prof, sizeof prof, "%s/profile", run);
	mkdir(prof, 0755);
	RUN(good_and_damaged_rows);
	RUN(missing_and_broken);
	RUN(message_labels_and_idle_phases);
	RUN(every_field);
	RUN(host_ids_in_first_rank_order);
	RUN(the_run_counts_from_the_last_ranks_start);
	return check_done();
}
