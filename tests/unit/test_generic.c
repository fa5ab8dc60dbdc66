/* Unit tests for parse/generic: paper 003's byte runs as messages. */
#include "parse/generic.h"

#include <limits.h>

#include "parse/msg.h"
#include "tests/unit/check.h"

static struct msg got[32];
static int ngot;

static void
emit(void *ctx, const struct msg *m)
{
	(void)ctx;
	if (ngot < 32)
		got[ngot++] = *m;
}

static void *
open_conn(int32_t r0, int32_t r1, struct dec_stats *st)
{
	struct conn_info ci;
	struct msg_sink sink = { emit, NULL };

	memset(&ci, 0, sizeof ci);
	memset(st, 0, sizeof *st);
	ci.conn = 7;
	ci.rank[0] = r0;
	ci.rank[1] = r1;
	ngot = 0;
	return dec_generic.open(&ci, &sink, st);
}

static const uint8_t B[4096];

TEST(direction_change_ends_a_message)
{
	struct dec_stats st;
	void *g = open_conn(3, 5, &st);

	dec_generic.data(g, 0, B, 100, 1000);
	dec_generic.data(g, 0, B, 50, 2000);	/* same run */
	dec_generic.data(g, 1, B, 8, 3000);	/* reply: closes the first */
	CHECK(ngot == 1);
	CHECK(got[0].bytes == 150);
	CHECK(got[0].t_first_ns == 1000);
	CHECK(got[0].t_last_ns == 2000);
	CHECK(got[0].src_world == 3);
	CHECK(got[0].dst_world == 5);
	CHECK(got[0].dir == 0);
	CHECK(got[0].ranksrc == RANKSRC_SOCKMAP);
	CHECK(got[0].mpi == MSG_GENERIC);
	CHECK(got[0].conn == 7);
	CHECK(got[0].tag == INT32_MIN);
	CHECK(got[0].cid == -1);
	dec_generic.close(g, 4000);
	CHECK(ngot == 2);
	CHECK(got[1].bytes == 8);
	CHECK(got[1].src_world == 5);
	CHECK(got[1].dst_world == 3);
	CHECK(got[1].dir == 1);
	CHECK(st.msgs == 2);
}

TEST(idle_gap_splits_a_run)
{
	struct dec_stats st;
	void *g;

	generic_set_idle_gap(1000000);
	g = open_conn(-1, -1, &st);
	dec_generic.data(g, 0, B, 10, 0);
	dec_generic.data(g, 0, B, 10, 1000000);	/* exactly the gap: same message */
	dec_generic.data(g, 0, B, 10, 2000001);	/* more than the gap: a new one */
	dec_generic.close(g, 3000000);
	CHECK(ngot == 2);
	CHECK(got[0].bytes == 20);
	CHECK(got[1].bytes == 10);
	CHECK(got[0].ranksrc == RANKSRC_NONE);
	CHECK(got[0].src_world == -1);
	generic_set_idle_gap(500);
	CHECK(generic_idle_gap() == 500);
	g = open_conn(-1, -1, &st);
	dec_generic.data(g, 0, B, 10, 0);
	dec_generic.data(g, 0, B, 10, 501);
	dec_generic.close(g, 1000);
	CHECK(ngot == 2);
	generic_set_idle_gap(0);	/* ignored */
	CHECK(generic_idle_gap() == 500);
	generic_set_idle_gap(GENERIC_DEFAULT_IDLE_GAP_NS);
}

TEST(gaps_count_and_flag)
{
	struct dec_stats st;
	void *g = open_conn(0, 1, &st);

	dec_generic.data(g, 1, B, 10, 5);
	dec_generic.gap(g, 1, 90, 6);
	dec_generic.data(g, 1, B, 10, 7);
	dec_generic.close(g, 8);
	CHECK(ngot == 1);
	CHECK(got[0].bytes == 110);
	CHECK((got[0].flags & MSG_F_GAP));
	CHECK(st.gaps == 1);
}

TEST(empty_connection_emits_nothing)
{
	struct dec_stats st;
	void *g = open_conn(0, 1, &st);

	dec_generic.close(g, 1);
	CHECK(ngot == 0);
	CHECK(dec_generic.detect(B, 0, 0) > 0);	/* it takes anything, as the last resort */
}

int
main(void)
{
	RUN(direction_change_ends_a_message);
	RUN(idle_gap_splits_a_run);
	RUN(gaps_count_and_flag);
	RUN(empty_connection_emits_nothing);
	return check_done();
}
