/* test_tail: the rule for a rank whose end hung after the run's last message
 * (parse/tail.h): a long signaled tail is found, a long final computation of a rank that
 * exited is not, nor a job killed in the middle of its work. */
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

int
main(void)
{
	RUN(signaled_long_tail_is_hung);
	RUN(exited_long_final_computation_is_not);
	RUN(thresholds);
	RUN(no_messages_or_no_tail);
	RUN(longest_gap);
	return check_done();
}
