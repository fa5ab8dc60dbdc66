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
	CHECK(p.ranks[0].rank == 0 && p.ranks[1].rank == 1);	/* sorted */
	CHECK_STR(p.ranks[1].host, "ws2");
	CHECK(prof_dedicated_ns(&p) == 35000000000LL);
	CHECK(prof_nhosts(&p) == 2);
	CHECK(prof_has_host(&p, "ws1") && !prof_has_host(&p, "ws3"));
	CHECK(p.have_links && p.nlinks == 2);
	CHECK(p.have_net && p.lat_ns == 50000);
	CHECK_NEAR(p.bw_Bps, 1.25e7, 0);
	CHECK_STR(p.bw_how, "bulk transfer");
	CHECK(p.have_topo && p.ntopo == 2);
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
		CHECK(p.msgs[0].have_tag && p.msgs[0].tag == 7 && p.msgs[0].cid == 0 && p.msgs[0].name == 0);
		CHECK(p.msgs[1].have_tag && p.msgs[1].tag == -12 && p.msgs[1].cid == 2 && p.msgs[1].name == 1);
		CHECK(!p.msgs[2].have_tag && p.msgs[2].cid == -1 && p.msgs[2].ctrl && p.msgs[2].name == 1);
		CHECK(!p.msgs[3].have_tag && p.msgs[3].name == 2 && !p.msgs[3].ctrl);
	}
	CHECK(p.nnames == 2 && strcmp(p.names[0], "allreduce") == 0 && strcmp(p.names[1], "bcast") == 0);
	CHECK(p.nbusy == 2 && p.nidle == 1);
	if (p.nbusy == 2 && p.nidle == 1)
		CHECK(p.busy[1].run_ns == 8 && p.idle[0].run_ns == -1 && p.idle[0].t_end_ns == 30);
	prof_free(&p);
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
	return check_done();
}
