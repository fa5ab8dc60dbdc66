/* test_fluid: max-min fair sharing of capped resources (predict/fluid.h), worked by hand:
 * a flow alone, two that start together, a short one behind a long one (not queued behind
 * it), a flow across two resources whose second one has room for a third flow, and a
 * token bucket that lets a burst through at the line's speed; many flows over many
 * resources, checked against the capacities; and the same simulation driven from outside,
 * flow by flow, against the whole run. */
#include <math.h>
#include <string.h>
#include <stdbool.h>
#include <stdio.h>

#include "predict/fluid.h"
#include "tests/unit/check.h"

#define S 1e9	/* ns per second */

TEST(one_flow_alone)
{
	struct fluid_flow f[] = { { 0.5 * S, 1e6, { 0, -1 }, 0, 0 } };
	double cap[] = { 1e6 };
	struct err e;

	CHECK(fluid_run(f, 1, cap, 1, &e) == 0);
	CHECK_NEAR(f[0].done_ns, 1.5 * S, 1);
}

TEST(two_together_end_together)
{
	struct fluid_flow f[] = { { 0, 1e6, { 0, -1 }, 0, 0 }, { 0, 1e6, { -1, 0 }, 0, 0 } };
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
	struct fluid_flow f[] = { { 0, 1e6, { 0, -1 }, 0, 0 }, { 0.1 * S, 1e4, { 0, -1 }, 0, 0 } };
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
	struct fluid_flow f[] = { { 0, 1e6, { 0, 1 }, 0, 0 }, { 0, 1e6, { 0, -1 }, 0, 0 }, { 0, 1e6, { 1, -1 }, 0, 0 } };
	double cap[] = { 1e6, 3e6 };
	struct err e;

	CHECK(fluid_run(f, 3, cap, 2, &e) == 0);
	CHECK_NEAR(f[2].done_ns, 0.4 * S, 10);
	CHECK_NEAR(f[0].done_ns, 2 * S, 10);
	CHECK_NEAR(f[1].done_ns, 2 * S, 10);
}

TEST(empty_and_bad_input)
{
	struct fluid_flow f[] = { { 3, 0, { 0, -1 }, 0, 0 }, { 4, 100, { -1, -1 }, 0, 0 } };
	double cap[] = { 1e6 }, zero[] = { 0 };
	struct err e;

	CHECK(fluid_run(f, 2, cap, 1, &e) == 0);
	CHECK(f[0].done_ns == 3);
	CHECK(f[1].done_ns == 4);
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
	struct fluid_flow f[] = { { 0, 5e4, { 0, -1 }, 0, 0 }, { 0.1 * S, 2e5, { 0, -1 }, 0, 0 } };
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

/* A link slowed ten times keeps every transfer of a pair of hosts in flight at once: 60000
 * flows between one pair, the same size, all started at 0, share the pair's resources and
 * end together at all their bytes over the smaller capacity; 60000 more, one at a time (each
 * starting as the one before ends), each at the full capacity. The flows of one pair are
 * one class to the simulation, so this takes moments, not the square of the flows. */
TEST(a_pair_with_thousands_in_flight)
{
	enum { N = 60000 };
	static struct fluid_flow f[2 * N];
	double cap[4] = { 2e6, 1e6, 1e6, 1e6 };
	struct err e;
	bool together = true, chained = true;

	for (int i = 0; i < N; i++) {
		f[i] = (struct fluid_flow){ 0, 100, { 0, 1 }, 0, 0 };
		f[N + i] = (struct fluid_flow){ 100.0 * i / 1e6 * 1e9, 100, { 2, 3 }, 0, 0 };
	}
	CHECK(fluid_run(f, 2 * N, cap, 4, &e) == 0);
	for (int i = 0; i < N; i++) {
		together = together && fabs(f[i].done_ns - 100.0 * N / 1e6 * 1e9) < 1e3;
		chained = chained && fabs(f[N + i].done_ns - 100.0 * (i + 1) / 1e6 * 1e9) < 1e3;
	}
	CHECK(together);
	CHECK(chained);
}

TEST(many_flows_keep_to_the_capacities)
{
	/* 4000 flows over 100 resources (a sending and a receiving side each), random starts
	 * and sizes, and 200 flows alone on one more resource from 0: no flow goes faster than
	 * its slowest resource, no resource passes more than its capacity between its first
	 * start and its last end, and the lone resource, never idle, ends at its bytes over its
	 * capacity */
	enum { NR = 100, NF = 4000, NL = 200 };
	static struct fluid_flow f[NF + NL];
	double cap[NR + 1], first[NR + 1], last[NR + 1], sum[NR + 1], lone = 0, end = 0;
	unsigned x = 12345;
	struct err e;

	for (int r = 0; r <= NR; r++) {
		cap[r] = 1e6 * (1 + r % 7);
		first[r] = INFINITY;
		last[r] = sum[r] = 0;
	}
	for (int i = 0; i < NF; i++) {
		x = x * 1103515245u + 12345u;
		f[i].start_ns = (double)(x >> 8 & 0xffff) * 1e4;
		x = x * 1103515245u + 12345u;
		f[i].bytes = 1 + (double)(x >> 8 & 0xffff);
		f[i].res[0] = 2 * (int)((x >> 16) % (NR / 2));
		f[i].res[1] = 2 * (int)((x >> 4) % (NR / 2)) + 1;
	}
	for (int i = NF; i < NF + NL; i++) {
		f[i] = (struct fluid_flow){ 0, 1000.0 * (i - NF + 1), { NR, -1 }, 0, 0 };
		lone += f[i].bytes;
	}
	CHECK(fluid_run(f, NF + NL, cap, NR + 1, &e) == 0);
	for (int i = 0; i < NF + NL; i++) {
		double c = INFINITY;

		for (int j = 0; j < FLUID_MAX_RES; j++)
			if (f[i].res[j] >= 0) {
				int r = f[i].res[j];

				c = fmin(c, cap[r]);
				first[r] = fmin(first[r], f[i].start_ns);
				last[r] = fmax(last[r], f[i].done_ns);
				sum[r] += f[i].bytes;
			}
		CHECK(f[i].done_ns >= f[i].start_ns + f[i].bytes / c * S - 1);
		if (i >= NF)
			end = fmax(end, f[i].done_ns);
	}
	for (int r = 0; r <= NR; r++)
		if (sum[r] > 0)
			CHECK(last[r] - first[r] >= sum[r] / cap[r] * S - 1);
	CHECK_NEAR(end, lone / cap[NR] * S, 1);
}

/* The simulation driven from outside (fluid_sim_*, as the replay drives it: each flow
 * started once the simulation has run to its start) gives the ends the whole run gives,
 * buckets included, and hands each flow back once as done. */
TEST(driven_from_outside_as_in_one_run)
{
	enum { NR = 20, NF = 600 };
	static struct fluid_flow f[NF], g[NF];
	static long ord[NF], seen[NF];
	double cap[NR];
	struct fluid_bucket bk[NR];
	struct fluid_sim *sim;
	unsigned x = 777;
	struct err e;
	long ndone = 0;
	bool same = true, once = true;

	for (int r = 0; r < NR; r++) {
		cap[r] = 1e6 * (1 + r % 3);
		bk[r] = (struct fluid_bucket){ r % 2 ? 0 : 2e4, 1e8 };
	}
	for (int i = 0; i < NF; i++) {	/* in start order */
		x = x * 1103515245u + 12345u;
		f[i].start_ns = (i > 0 ? f[i - 1].start_ns : 0) + (double)(x >> 8 & 0xfff) * 1e4;
		f[i].bytes = (double)(x >> 12 & 0xffff);
		f[i].res[0] = 2 * (int)((x >> 16) % (NR / 2));
		f[i].res[1] = x % 5 ? 2 * (int)((x >> 4) % (NR / 2)) + 1 : -1;
		g[i] = f[i];
		ord[i] = i;
	}
	CHECK(fluid_run_bucket(f, NF, cap, bk, NR, &e) == 0);
	CHECK(fluid_sim_new(&sim, g, NF, cap, bk, NR, &e) == 0);
	for (int i = 0; i <= NF; i++) {
		double t = i < NF ? f[ord[i]].start_ns : INFINITY;
		const long *d;
		long n;

		while (fluid_sim_next_ns(sim) < t)
			fluid_sim_step(sim);
		if (i < NF)
			fluid_sim_start(sim, ord[i], t);
		d = fluid_sim_done(sim, &n);
		for (long k = 0; k < n; k++) {
			once = once && seen[d[k]] == 0;
			seen[d[k]]++;
		}
		ndone += n;
	}
	for (int i = 0; i < NF; i++)
		same = same && fabs(g[i].done_ns - f[i].done_ns) < 1 && g[i].start_ns == f[i].start_ns;
	CHECK(same);
	CHECK(once);
	CHECK(ndone == NF);
	CHECK(fluid_sim_next_ns(sim) == INFINITY);
	fluid_sim_free(sim);
	CHECK(fluid_sim_new(&sim, g, NF, (double[NR]){ 0 }, NULL, NR, &e) == -E_USAGE);
	CHECK(sim == NULL);
	fluid_sim_free(NULL);
}

/* One TCP stream's bytes go in order: a short message that leaves behind a long one of the
 * same stream (after) waits for it, where another stream's shares the link. At 1 MB/s: A,
 * 1 MB at 0; B, 10 kB at 0.1 s after A; C, 10 kB at 0.1 s, another stream. C shares with A:
 * done at 0.12 s; A then has 0.89 MB left alone: 1.01 s; B starts then: 1.02 s. Without
 * `after` B would share too, done at 0.13 s. The same driven from outside. */
TEST(a_streams_later_flow_waits_for_the_one_before)
{
	struct fluid_flow f[] = { { 0, 1e6, { 0, -1 }, 0, 0 }, { 0.1 * S, 1e4, { 0, -1 }, 0, 1 },
				  { 0.1 * S, 1e4, { 0, -1 }, 0, 0 } }, g[3];
	double cap[] = { 1e6 };
	struct fluid_sim *sim;
	struct err e;
	long n, ndone = 0;

	memcpy(g, f, sizeof g);
	CHECK(fluid_run(f, 3, cap, 1, &e) == 0);
	CHECK_NEAR(f[2].done_ns, 0.12 * S, 10);
	CHECK_NEAR(f[0].done_ns, 1.01 * S, 10);
	CHECK_NEAR(f[1].done_ns, 1.02 * S, 10);
	if (!CHECKED(fluid_sim_new(&sim, g, 3, cap, NULL, 1, &e) == 0))
		return;
	fluid_sim_start(sim, 0, 0);
	fluid_sim_start(sim, 1, 0.1 * S);
	fluid_sim_start(sim, 2, 0.1 * S);
	while (fluid_sim_next_ns(sim) < INFINITY)
		fluid_sim_step(sim);
	(void)fluid_sim_done(sim, &n);
	ndone += n;
	CHECK(ndone == 3);
	CHECK_NEAR(g[2].done_ns, 0.12 * S, 10);
	CHECK_NEAR(g[0].done_ns, 1.01 * S, 10);
	CHECK_NEAR(g[1].start_ns, 1.01 * S, 10);	/* when it really started */
	CHECK_NEAR(g[1].done_ns, 1.02 * S, 10);
	fluid_sim_free(sim);
	f[1].after = 0;	/* without: B shares with A and C */
	CHECK(fluid_run(f, 3, cap, 1, &e) == 0);
	CHECK_NEAR(f[1].done_ns, 0.13 * S, 10);
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
	RUN(a_pair_with_thousands_in_flight);
	RUN(many_flows_keep_to_the_capacities);
	RUN(driven_from_outside_as_in_one_run);
	RUN(a_streams_later_flow_waits_for_the_one_before);
	return check_done();
}
