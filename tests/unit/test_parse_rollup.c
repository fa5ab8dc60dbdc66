/* Unit tests for parse/rollup: the Figure 3 split, links and the measured L and B. */
#include "parse/rollup.h"

#include "tests/unit/check.h"

static struct msg
mkmsg(int32_t s, int32_t d, uint64_t bytes, int64_t t0, int64_t t1)
{
	struct msg m;

	memset(&m, 0, sizeof m);
	m.src_world = s;
	m.dst_world = d;
	m.bytes = m.wire_bytes = bytes;
	m.t_first_ns = t0;
	m.t_last_ns = t1;
	m.proto = PROTO_EAGER;
	return m;
}

TEST(split_follows_the_definition)
{
	struct rollup r;
	struct rollup_rank *k;
	struct rollup_split sp;
	struct msg m;

	rollup_init(&r);
	m = mkmsg(0, 1, 1000000, 0, 10);
	rollup_msg(&r, &m);
	m = mkmsg(1, 0, 1000000, 20, 30);
	rollup_msg(&r, &m);
	k = rollup_rank(&r, 0);
	k->has_cpu = true;
	k->t_first_ns = 0;
	k->t_last_ns = 10000000000;	/* 10 s */
	k->busy_ns = 6000000000;	/* 6 s busy */
	/* L = 1 ms, B = 1 MB/s: comm = 2 * 1 ms + 2 MB / 1 MB/s = 2.002 s */
	rollup_split(k, 1e6, 1e6, &sp);
	CHECK(sp.exec_ns == 10000000000);
	CHECK_NEAR(sp.comm_raw_ns, 2.002e9, 1);
	CHECK_NEAR(sp.comm_ns, 2.002e9, 1);
	CHECK_NEAR(sp.comp_ns, 6e9 - 2.002e9, 1);
	CHECK_NEAR(sp.idle_ns, 4e9, 1);
	CHECK_NEAR(sp.comp_ns + sp.comm_ns + sp.idle_ns, (double)sp.exec_ns, 1);
	/* slower network: communication is clipped to the busy time */
	rollup_split(k, 1e6, 1e5, &sp);
	CHECK_NEAR(sp.comm_ns, 6e9, 1);
	CHECK_NEAR(sp.comp_ns, 0, 1);
	rollup_release(&r);
}

TEST(without_samples_only_comm_is_known)
{
	struct rollup r;
	struct rollup_split sp;
	struct msg m = mkmsg(2, 3, 500, 1000, 2000);

	rollup_init(&r);
	rollup_msg(&r, &m);
	m = mkmsg(3, 2, 500, 5000, 9000);
	rollup_msg(&r, &m);
	rollup_split(rollup_rank(&r, 2), 100, 1e9, &sp);
	CHECK(sp.exec_ns == 8000);
	CHECK(sp.comp_ns < 0);
	CHECK(sp.idle_ns < 0);
	CHECK_NEAR(sp.comm_ns, 2 * 100 + 1000 / 1e9 * 1e9, 1e-6);
	rollup_release(&r);
}

TEST(links_and_active_time)
{
	struct rollup r;
	struct rollup_link **lv;
	struct msg m;

	rollup_init(&r);
	m = mkmsg(1, 0, 10, 100, 200);
	rollup_msg(&r, &m);
	m = mkmsg(0, 1, 30, 0, 100);
	rollup_msg(&r, &m);
	m = mkmsg(0, 1, 50, 50, 150);	/* overlaps: one interval 0..150 */
	rollup_msg(&r, &m);
	m = mkmsg(0, 1, 20, 1000, 1100);
	rollup_msg(&r, &m);
	m = mkmsg(0, 1, 0, 1100, 1100);
	m.proto = PROTO_CTRL;	/* not a message */
	rollup_msg(&r, &m);
	m = mkmsg(-1, 1, 70, 1200, 1300);	/* an unknown sender: counted, no link */
	rollup_msg(&r, &m);
	lv = rollup_links_sorted(&r);
	CHECK(r.nlinks == 2);
	CHECK(lv[0]->src == 0);
	CHECK(lv[0]->dst == 1);
	CHECK(lv[0]->msgs == 3);
	CHECK(lv[0]->bytes == 100);
	CHECK(lv[0]->active_ns == 150 + 100);
	CHECK(lv[0]->t_first_ns == 0);
	CHECK(lv[0]->t_last_ns == 1100);
	CHECK(lv[1]->src == 1);
	CHECK(lv[1]->msgs == 1);
	CHECK(r.ctrl_msgs == 1);
	CHECK(r.unknown_rank_msgs == 1);
	CHECK(r.ranks[1].msgs_recv == 4);
	CHECK(r.ranks[1].bytes_recv == 170);
	CHECK(r.ranks[0].msgs_sent == 3);
	CHECK(r.ranks[0].bytes_recv == 10);
	free(lv);
	rollup_release(&r);
}

/* Messages with an unknown end never make a link (no -1 in links.tsv): they are counted,
 * with their bytes, for stats.tsv. */
TEST(unknown_ranks_are_counted_not_linked)
{
	struct rollup r;
	struct rollup_link **lv;
	struct msg m;
	size_t i;

	rollup_init(&r);
	m = mkmsg(-1, 2, 70, 0, 10);
	rollup_msg(&r, &m);
	m = mkmsg(2, -1, 30, 20, 30);
	rollup_msg(&r, &m);
	m = mkmsg(-1, -1, 5, 40, 50);
	rollup_msg(&r, &m);
	m = mkmsg(2, 3, 1, 60, 70);
	rollup_msg(&r, &m);
	lv = rollup_links_sorted(&r);
	CHECK(r.nlinks == 1);
	for (i = 0; i < r.nlinks; i++) {
		CHECK(lv[i]->src >= 0);
		CHECK(lv[i]->dst >= 0);
	}
	CHECK(r.unknown_rank_msgs == 3);
	CHECK(r.unknown_rank_bytes == 105);
	CHECK(r.ranks[2].msgs_sent == 2);
	CHECK(r.ranks[2].msgs_recv == 1);
	free(lv);
	rollup_release(&r);
}

TEST(netparams_measured_given_default)
{
	struct rollup r;
	struct netparams np;
	struct msg m;
	int i;

	rollup_init(&r);
	rollup_netparams(&r, 0, 0, &np);
	CHECK_STR(np.lat_source, "default");
	CHECK_STR(np.bw_source, "default");
	rollup_rtt(&r, 100000);
	rollup_rtt(&r, 20000);
	rollup_rtt(&r, 30000);
	for (i = 1; i <= 10; i++) {	/* 1 MB at 10, 20, ..., 100 MB/s */
		m = mkmsg(0, 1, 1000000, 0, (int64_t)(1e9 / (i * 10)));
		rollup_msg(&r, &m);
	}
	m = mkmsg(0, 1, 100, 0, 1);	/* too small to be a bandwidth sample */
	rollup_msg(&r, &m);
	rollup_netparams(&r, 0, 0, &np);
	CHECK(strcmp(np.lat_source, "handshake") == 0);
	CHECK_NEAR(np.lat_ns, 15000, 1e-6);	/* half the median round trip */
	CHECK(np.lat_samples == 3);
	CHECK(np.bw_samples == 10);
	CHECK_NEAR(np.bw_Bps, 90e6, 1e3);	/* the 90th percentile */
	rollup_netparams(&r, 5000, 1e8, &np);
	CHECK_STR(np.lat_source, "option");
	CHECK(np.lat_ns == 5000);
	CHECK_STR(np.bw_source, "option");
	CHECK(np.bw_Bps == 1e8);
	rollup_release(&r);
}

int
main(void)
{
	RUN(split_follows_the_definition);
	RUN(without_samples_only_comm_is_known);
	RUN(links_and_active_time);
	RUN(unknown_ranks_are_counted_not_linked);
	RUN(netparams_measured_given_default);
	return check_done();
}
