/* test_fluid: max-min fair sharing of capped resources (predict/fluid.h), worked by hand:
 * a flow alone, two that start together, a short one behind a long one (not queued behind
 * it), a flow across two resources whose second one has room for a third flow, and a
 * token bucket that lets a burst through at the line's speed. */
#include <math.h>
#include <stdio.h>

#include "predict/fluid.h"
#include "tests/unit/check.h"

#define S 1e9	/* ns per second */

TEST(one_flow_alone)
{
	struct fluid_flow f[] = { { 0.5 * S, 1e6, { 0, -1 }, 0 } };
	double cap[] = { 1e6 };
	struct err e;

	CHECK(fluid_run(f, 1, cap, 1, &e) == 0);
	CHECK_NEAR(f[0].done_ns, 1.5 * S, 1);
}

TEST(two_together_end_together)
{
	struct fluid_flow f[] = { { 0, 1e6, { 0, -1 }, 0 }, { 0, 1e6, { -1, 0 }, 0 } };
	double cap[] = { 1e6 };
	struct err e;

	CHECK(fluid_run(f, 2, cap, 1, &e) == 0);
	CHECK_NEAR(f[0].done_ns, 2 * S, 1);
	CHECK_NEAR(f[1].done_ns, 2 * S, 1);
}

TEST(a_short_flow_shares_instead_of_queueing)
{
	/* the long one moves 1e5 B alone, then both at 0.5 MB/s for 20 ms (the short one's
	 * 1e4 B), then the long one's last 8.9e5 B alone: 1.01 s; a FIFO queue would have
	 * held the short one until 1 s */
	struct fluid_flow f[] = { { 0, 1e6, { 0, -1 }, 0 }, { 0.1 * S, 1e4, { 0, -1 }, 0 } };
	double cap[] = { 1e6 };
	struct err e;

	CHECK(fluid_run(f, 2, cap, 1, &e) == 0);
	CHECK_NEAR(f[1].done_ns, 0.12 * S, 10);
	CHECK_NEAR(f[0].done_ns, 1.01 * S, 10);
}

TEST(max_min_across_two_resources)
{
	/* a crosses r0 (1 MB/s) and r1 (3 MB/s), b only r0, c only r1: r0 holds a and b at
	 * 0.5 MB/s each, c takes what a leaves of r1, 2.5 MB/s */
	struct fluid_flow f[] = { { 0, 1e6, { 0, 1 }, 0 }, { 0, 1e6, { 0, -1 }, 0 }, { 0, 1e6, { 1, -1 }, 0 } };
	double cap[] = { 1e6, 3e6 };
	struct err e;

	CHECK(fluid_run(f, 3, cap, 2, &e) == 0);
	CHECK_NEAR(f[2].done_ns, 0.4 * S, 10);
	CHECK_NEAR(f[0].done_ns, 2 * S, 10);
	CHECK_NEAR(f[1].done_ns, 2 * S, 10);
}

TEST(empty_and_bad_input)
{
	struct fluid_flow f[] = { { 3, 0, { 0, -1 }, 0 }, { 4, 100, { -1, -1 }, 0 } };
	double cap[] = { 1e6 }, zero[] = { 0 };
	struct err e;

	CHECK(fluid_run(f, 2, cap, 1, &e) == 0);
	CHECK(f[0].done_ns == 3 && f[1].done_ns == 4);
	CHECK(fluid_run(f, 2, zero, 1, &e) == -E_USAGE);
	f[1].res[0] = 5;
	CHECK(fluid_run(f, 2, cap, 1, &e) == -E_USAGE);
	CHECK(fluid_run(NULL, 0, cap, 1, &e) == 0);
}

TEST(a_bucket_passes_bursts_at_the_peak)
{
	/* 1 MB/s with a 100 kB bucket over a 100 MB/s line: a 50 kB burst goes at the line,
	 * 0.5 ms (a strict 1 MB/s takes 50 ms); 99.5 ms later the bucket is full again, and a
	 * 200 kB burst takes the bucket's 100 kB and 1 MB/s for the rest, whatever goes at
	 * the peak while it drains: bucket + 1 MB/s x t = 200 kB, t = 0.1 s */
	struct fluid_flow f[] = { { 0, 5e4, { 0, -1 }, 0 }, { 0.1 * S, 2e5, { 0, -1 }, 0 } };
	double cap[] = { 1e6 };
	struct fluid_bucket bk[] = { { 1e5, 1e8 } }, none[] = { { 0, 1e8 } }, bad[] = { { 1e5, 1e5 } };
	struct err e;

	CHECK(fluid_run_bucket(f, 2, cap, bk, 1, &e) == 0);
	CHECK_NEAR(f[0].done_ns, 0.0005 * S, 10);
	CHECK_NEAR(f[1].done_ns, 0.2 * S, 10);
	CHECK(fluid_run_bucket(f, 2, cap, none, 1, &e) == 0);	/* no bucket: strict */
	CHECK_NEAR(f[0].done_ns, 0.05 * S, 10);
	CHECK_NEAR(f[1].done_ns, 0.3 * S, 10);
	CHECK(fluid_run_bucket(f, 2, cap, bad, 1, &e) == -E_USAGE);	/* a peak under the rate */
}

int
main(void)
{
	RUN(one_flow_alone);
	RUN(two_together_end_together);
	RUN(a_short_flow_shares_instead_of_queueing);
	RUN(max_min_across_two_resources);
	RUN(empty_and_bad_input);
	RUN(a_bucket_passes_bursts_at_the_peak);
	return check_done();
}
