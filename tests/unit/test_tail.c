/* test_tail: the rule for a rank whose end hung after the run's last message
 * (parse/tail.h): a long signaled tail is found, a long final computation of a rank that
 * exited is not, nor a job killed in the middle of its work; a rank that once waited long
 * while the run went on is found by the run's gap and its own work. */
#include "parse/tail.h"

#include <stdint.h>

#include "tests/unit/check.h"

#define S ((int64_t)1000000000)
#define T0 ((int64_t)1700000000000000000)	/* CLOCK_REALTIME of the run's last message */

/* A rank that messaged every 0.1 s and whose last sample is tail_s after the run's last
 * message. */
static struct tail_rank
rank_with(const char *how, double tail_s)
{
	return (struct tail_rank){ .how_ended = how, .t_end_ns = T0 + (int64_t)(tail_s * 1e9),
				   .t_run_last_msg_ns = T0, .has_msgs = true,
				   .longest_gap_ns = S / 10 };
}

TEST(signaled_long_tail_is_hung)
{
	struct tail_rank r = rank_with("signaled", 30);
	int64_t tail = 0;

	CHECK(tail_hung(&r, &tail));
	CHECK(tail == 30 * S);
	r = rank_with("running", 30);	/* the agent was killed before writing the end */
	CHECK(tail_hung(&r, NULL));
}

TEST(exited_long_final_computation_is_not)
{
	struct tail_rank r = rank_with("exited", 30);
	int64_t tail = -7;

	CHECK(!tail_hung(&r, &tail));
	CHECK(tail == -7);	/* untouched when not hung */
	r = rank_with("not-started", 30);
	CHECK(!tail_hung(&r, NULL));
	r = rank_with(NULL, 30);	/* no meta */
	CHECK(!tail_hung(&r, NULL));
}

TEST(thresholds)
{
	struct tail_rank r = rank_with("signaled", 2);

	CHECK(!tail_hung(&r, NULL));	/* TAIL_MIN_NS itself is not more than it */
	r = rank_with("signaled", 2.001);
	CHECK(tail_hung(&r, NULL));
	/* a job killed mid-work: its tail is within its usual pauses (here 10 s apart) */
	r = rank_with("signaled", 30);
	r.longest_gap_ns = 10 * S;
	CHECK(!tail_hung(&r, NULL));
	r.longest_gap_ns = 7 * S;	/* 30 s is more than 4 x 7 s */
	CHECK(tail_hung(&r, NULL));
	r.longest_gap_ns = INT64_MAX;	/* no overflow in the comparison */
	CHECK(!tail_hung(&r, NULL));
	r.longest_gap_ns = 0;		/* one message time: only TAIL_MIN_NS applies */
	CHECK(tail_hung(&r, NULL));
}

TEST(no_messages_or_no_tail)
{
	struct tail_rank r = rank_with("signaled", 30);

	r.has_msgs = false;
	CHECK(!tail_hung(&r, NULL));
	r = rank_with("signaled", 30);
	r.t_run_last_msg_ns = INT64_MIN;
	CHECK(!tail_hung(&r, NULL));
	r = rank_with("signaled", -1);	/* it ended before the run's last message */
	CHECK(!tail_hung(&r, NULL));
}

/* MPICH's LU under a CPU competitor, hung in MPI_Finalize 5.13 s (bench/explain, 2026-11-26):
 * ranks 0 and 2 had waited up to 1.36 s for the loaded rank, over a quarter of the tail,
 * while the other ranks went on (the run never went 0.8 s without a message) and their own
 * work before a send never took 0.3 s. The run's gap and its own work count then, not its
 * longest wait; a rank whose long pause was its own work before a send is not cut. */
TEST(a_wait_while_the_run_went_on)
{
	struct tail_rank r = rank_with("signaled", 5.13);

	r.longest_gap_ns = 1360 * S / 1000;
	r.send_gap_ns = 263 * S / 1000;
	CHECK(!tail_hung(&r, NULL));	/* the run's gap unknown: its own longest counts */
	r.run_gap_ns = 8 * S / 10;
	CHECK(tail_hung(&r, NULL));
	r.send_gap_ns = 1360 * S / 1000;	/* its long pause was its own work */
	CHECK(!tail_hung(&r, NULL));
	r.send_gap_ns = 263 * S / 1000;
	r.run_gap_ns = 13 * S / 10;	/* the whole run once paused 1.3 s */
	CHECK(!tail_hung(&r, NULL));
	/* never stricter than its own longest gap */
	r = rank_with("signaled", 30);
	r.longest_gap_ns = 7 * S;
	r.send_gap_ns = 7 * S;
	r.run_gap_ns = 9 * S;	/* outside the rank's own span (it joined late) */
	CHECK(tail_hung(&r, NULL));
	r = rank_with("exited", 30);	/* ended on its own: never */
	r.run_gap_ns = S / 10;
	CHECK(!tail_hung(&r, NULL));
}

TEST(longest_gap)
{
	int64_t send[] = { 50, 10, 30 }, arr[] = { 200, 20 }, one[] = { 5 };

	CHECK(tail_longest_gap(send, 3, arr, 2) == 150);	/* 50 -> 200 */
	CHECK(send[0] == 10);	/* sorted in place */
	CHECK(send[2] == 50);
	CHECK(arr[0] == 20);
	CHECK(tail_longest_gap(send, 3, NULL, 0) == 20);
	CHECK(tail_longest_gap(NULL, 0, arr, 2) == 180);
	CHECK(tail_longest_gap(one, 1, NULL, 0) == 0);
	CHECK(tail_longest_gap(NULL, 0, NULL, 0) == 0);
}

TEST(longest_send_gap)
{
	int64_t send[] = { 50, 10, 230 }, arr[] = { 200, 20 };

	/* 10 s, 20 a, 50 s, 200 a, 230 s: to a send 20 -> 50 and 200 -> 230; 50 -> 200 ends in
	 * an arrival */
	CHECK(tail_longest_send_gap(send, 3, arr, 2) == 30);
	CHECK(tail_longest_gap(send, 3, arr, 2) == 150);
	CHECK(tail_longest_send_gap(NULL, 0, arr, 2) == 0);
	CHECK(tail_longest_send_gap(send, 3, NULL, 0) == 180);
}

int
main(void)
{
	RUN(signaled_long_tail_is_hung);
	RUN(exited_long_final_computation_is_not);
	RUN(thresholds);
	RUN(no_messages_or_no_tail);
	RUN(a_wait_while_the_run_went_on);
	RUN(longest_gap);
	RUN(longest_send_gap);
	return check_done();
}
