/* test_mwsim: the FIFO master/slave simulator against closed-form cycle times. */
#include <math.h>

#include "lib/err.h"
#include "predict/mwsim.h"
#include "tests/unit/check.h"

/* One slave, one network, request/reply: every task takes the whole round trip, so the
 * run lasts tasks * (out + cpu + in + master) and nothing ever queues. */
TEST(single_slave_request_reply)
{
	struct mwsim_slave s = { .cpu = 1, .cpu_s = 0.010, .nhops = 1, .hops = { 2 },
				 .out_s = { 0.001 }, .in_s = { 0.003 } };
	struct mwsim_config c = { .nres = 3, .nslave = 1, .slaves = &s, .master_cpu = 0,
				  .master_s = 0.002, .tasks = 100, .depth = 1 };
	struct mwsim_result r;
	struct err e;

	CHECK(mwsim_run(&c, &r, &e) == 0);
	CHECK(r.done == 100);
	CHECK(!r.truncated);
	CHECK_NEAR(r.makespan_s, 100 * 0.016, 1e-9);
	CHECK_NEAR(r.busy_s[1], 100 * 0.010, 1e-9);
	CHECK_NEAR(r.busy_s[2], 100 * 0.004, 1e-9);
	CHECK_NEAR(r.util[0], 0.002 / 0.016, 1e-9);
	CHECK_NEAR(r.slave_idle_s[0], 100 * 0.006, 1e-9);
	CHECK_NEAR(r.wait_s[0] + r.wait_s[1] + r.wait_s[2], 0, 1e-12);
	CHECK(r.slave_tasks[0] == 100);
	CHECK_NEAR(r.steady_tps, 1 / 0.016, 1e-6);
	mwsim_result_release(&r);
}

/* With several tasks outstanding the slave never waits: the bottleneck (the slave's 10 ms)
 * sets the rate, and its utilisation tends to 1. */
TEST(pipelined_bottleneck)
{
	struct mwsim_slave s = { .cpu = 1, .cpu_s = 0.010, .nhops = 1, .hops = { 2 },
				 .out_s = { 0.001 }, .in_s = { 0.003 } };
	struct mwsim_config c = { .nres = 3, .nslave = 1, .slaves = &s, .master_cpu = 0,
				  .master_s = 0.002, .tasks = 2000, .depth = 3 };
	struct mwsim_result r;
	struct err e;

	CHECK(mwsim_run(&c, &r, &e) == 0);
	CHECK_NEAR(r.steady_tps, 100, 1e-6);
	CHECK(r.util[1] > 0.99);
	CHECK(r.util[1] <= 1);
	CHECK(r.wait_s[1] > 0);
	mwsim_result_release(&r);
}

/* Two slaves share a network with FIFO service: the network's utilisation is bounded by 1 and
 * the total rate by the network's capacity. */
TEST(shared_network)
{
	struct mwsim_slave s[2] = {
		{ .cpu = 1, .cpu_s = 0.001, .nhops = 1, .hops = { 3 }, .out_s = { 0.002 }, .in_s = { 0.002 } },
		{ .cpu = 2, .cpu_s = 0.001, .nhops = 1, .hops = { 3 }, .out_s = { 0.002 }, .in_s = { 0.002 } },
	};
	struct mwsim_config c = { .nres = 4, .nslave = 2, .slaves = s, .master_cpu = 0,
				  .master_s = 0, .tasks = 5000, .depth = 2 };
	struct mwsim_result r;
	struct err e;

	CHECK(mwsim_run(&c, &r, &e) == 0);
	CHECK_NEAR(r.steady_tps, 250, 0.5);	/* 4 ms of network per task */
	for (int i = 0; i < 4; i++) {
		CHECK(r.util[i] >= 0);
		CHECK(r.util[i] <= 1);
	}
	CHECK(r.util[3] > 0.99);
	CHECK(r.slave_tasks[0] + r.slave_tasks[1] == 5000);
	CHECK(llabs(r.slave_tasks[0] - r.slave_tasks[1]) <= 2);
	mwsim_result_release(&r);
}

/* A token bucket on the network: a message that finds enough tokens goes peak_x times
 * faster; one larger than the bucket goes fast for the bucket's share and at the sustained
 * rate for the rest. Between messages the bucket refills at one token per second. */
TEST(token_bucket_hop)
{
	struct mwsim_slave s = { .cpu = 1, .cpu_s = 0.010, .nhops = 1, .hops = { 2 },
				 .out_s = { 0.004 }, .in_s = { 0.004 } };
	struct mwsim_bucket bk[3] = { { 0, 0 }, { 0, 0 }, { 0.004, 4 } };
	struct mwsim_config c = { .nres = 3, .nslave = 1, .slaves = &s, .master_cpu = 0,
				  .master_s = 0.010, .tasks = 100, .depth = 1, .bucket = bk };
	struct mwsim_result r;
	struct err e;

	/* every message fits and the bucket is full again 10 ms later: 1 + 10 + 1 + 10 ms */
	CHECK(mwsim_run(&c, &r, &e) == 0);
	CHECK_NEAR(r.makespan_s, 100 * 0.022, 1e-9);
	CHECK_NEAR(r.busy_s[2], 100 * 0.002, 1e-9);
	mwsim_result_release(&r);
	/* half of each message fits: 0.5 + 2 ms each way */
	bk[2].burst_s = 0.002;
	CHECK(mwsim_run(&c, &r, &e) == 0);
	CHECK_NEAR(r.makespan_s, 100 * (2 * 0.0025 + 0.020), 1e-9);
	mwsim_result_release(&r);
	/* no bucket: the sustained rate */
	c.bucket = NULL;
	CHECK(mwsim_run(&c, &r, &e) == 0);
	CHECK_NEAR(r.makespan_s, 100 * 0.028, 1e-9);
	mwsim_result_release(&r);
	/* a bucket slower than its sustained rate is a bad configuration */
	bk[2].peak_x = 0.5;
	c.bucket = bk;
	CHECK(mwsim_run(&c, &r, &e) == -E_USAGE);
	mwsim_result_release(&r);
}

TEST(bad_config_and_cap)
{
	struct mwsim_slave s = { .cpu = 1, .cpu_s = 0.01 };
	struct mwsim_config c = { .nres = 2, .nslave = 1, .slaves = &s, .master_cpu = 0,
				  .master_s = 0.01, .tasks = 10, .depth = 1 };
	struct mwsim_result r;
	struct err e;

	c.tasks = 0;
	CHECK(mwsim_run(&c, &r, &e) == -E_USAGE);
	mwsim_result_release(&r);
	c.tasks = 10;
	s.cpu = 5;
	CHECK(mwsim_run(&c, &r, &e) == -E_USAGE);
	mwsim_result_release(&r);
	s.cpu = 1;
	s.cpu_s = 0;
	c.master_s = 0;
	CHECK(mwsim_run(&c, &r, &e) == -E_USAGE);
	mwsim_result_release(&r);
	s.cpu_s = 0.01;
	c.master_s = 0.01;
	c.max_events = 5;
	CHECK(mwsim_run(&c, &r, &e) == 0);
	CHECK(r.truncated);
	CHECK(r.done < 10);
	CHECK(r.util[0] <= 1);
	CHECK(r.util[1] <= 1);
	mwsim_result_release(&r);
}

int
main(void)
{
	RUN(single_slave_request_reply);
	RUN(pipelined_bottleneck);
	RUN(shared_network);
	RUN(bad_config_and_cap);
	RUN(token_bucket_hop);
	return check_done();
}
