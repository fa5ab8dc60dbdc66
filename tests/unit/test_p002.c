/* test_p002: paper 002's heterogeneity example, Property 1 on a constructed run, and the
 * efficiency relations (eqs. 10-14) and scalability (eqs. 15-17). */
#include <math.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/p002.h"
#include "tests/unit/check.h"

static uint64_t rng = 0x13198a2e03707344u;

static double
urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* Section 3.1.1: one workstation of weight 1 and 99 of 0.5 give H = 0.495 (the paper
 * rounds to 0.5); doubling the fastest one's speed gives 0.7425 (0.75). */
TEST(heterogeneity_example)
{
	double speed[100], w[100];

	speed[0] = 2;
	for (int j = 1; j < 100; j++)
		speed[j] = 1;
	CHECK(p002_weights_from_speed(speed, 100, w) == 0);
	CHECK_NEAR(w[0], 1, 0);
	CHECK_NEAR(w[1], 0.5, 0);
	CHECK_NEAR(p002_heterogeneity(w, 100), 0.495, 1e-12);
	speed[0] = 4;
	CHECK(p002_weights_from_speed(speed, 100, w) == 0);
	CHECK_NEAR(p002_heterogeneity(w, 100), 0.7425, 1e-12);
	/* Homogeneous: H = 0. */
	for (int j = 0; j < 100; j++)
		w[j] = 1;
	CHECK_NEAR(p002_heterogeneity(w, 100), 0, 0);
	w[3] = 0;
	CHECK(isnan(p002_heterogeneity(w, 100)));
	CHECK(p002_weights_from_speed(speed, 0, w) == -E_USAGE);
}

TEST(weights_from_time)
{
	double t[3] = { 10, 20, 40 }, w[3];

	CHECK(p002_weights_from_time(t, 3, w) == 0);	/* eq. 2 */
	CHECK_NEAR(w[0], 1, 0);
	CHECK_NEAR(w[1], 0.5, 0);
	CHECK_NEAR(w[2], 0.25, 0);
	t[1] = 0;
	CHECK(p002_weights_from_time(t, 3, w) == -E_USAGE);
}

/* A constructed run: m workstations of random speed; each works at its own speed for the
 * same active time inside a run of T (busy phases scattered, some split in two, some
 * overlapping like two threads); |A_j| = S_j * active. Then Definition 1's speedup, computed
 * from single-workstation times |A| / S_j, equals P_deg (1 - H) (Property 1). */
TEST(property1_constructed_run)
{
	enum { M = 6 };
	const int64_t T = 1000000000, act = 400000000;	/* ns */
	double speed[M], w[M], tsingle[M], work = 0;
	struct prof_busy busy[4 * M];
	int64_t act_ns[M];
	size_t nb = 0;
	struct err e;

	for (int j = 0; j < M; j++) {
		int64_t start = (int64_t)(urand() * (double)(T - 5 * act / 4 - 1000));

		speed[j] = 1 + floor(urand() * 9);
		work += speed[j] * (double)act;
		/* active time in two pieces, the second overlapped by a third (counted once) */
		busy[nb++] = (struct prof_busy){ j, start, start + act / 4, -1, -1 };
		busy[nb++] = (struct prof_busy){ j, start + act / 2, start + act / 2 + 3 * act / 4, -1, -1 };
		busy[nb++] = (struct prof_busy){ j, start + act / 2 + 1000, start + act / 2 + 2000, -1, -1 };
	}
	busy[nb++] = (struct prof_busy){ M + 3, 0, T, -1, -1 };	/* another rank: ignored */
	busy[nb++] = (struct prof_busy){ 0, -5000, -10, -1, -1 };	/* before the run: clipped away */
	CHECK(p002_weights_from_speed(speed, M, w) == 0);
	for (int j = 0; j < M; j++)
		tsingle[j] = work / speed[j];
	CHECK(p002_active_ns(busy, nb, M, 0, T, act_ns, &e) == 0);
	for (int j = 0; j < M; j++)
		CHECK(act_ns[j] == act);
	{
		double pdeg = p002_pdeg(act_ns, M, (double)T);
		double h = p002_heterogeneity(w, M);
		double sp = p002_speedup(tsingle, M, (double)T);

		CHECK_NEAR(pdeg, M * 0.4, 1e-12);
		CHECK_NEAR(sp, p002_speedup_model(pdeg, h), 1e-9);
		CHECK_NEAR(sp, p002_speedup_work(w, act_ns, M, (double)T), 1e-9);
		CHECK(sp > 0);
		CHECK(sp <= pdeg);
	}
	/* Unequal active times: Property 1 is then only an approximation, but the work identity
	 * still holds exactly. */
	{
		int64_t a2[M];
		double work2 = 0, t2[M];

		for (int j = 0; j < M; j++) {
			a2[j] = (int64_t)(urand() * (double)T);
			work2 += speed[j] * (double)a2[j];
		}
		for (int j = 0; j < M; j++)
			t2[j] = work2 / speed[j];
		CHECK_NEAR(p002_speedup(t2, M, (double)T), p002_speedup_work(w, a2, M, (double)T), 1e-9);
	}
	CHECK(p002_active_ns(busy, nb, M, 5, 5, act_ns, &e) == -E_USAGE);
}

/* Property 2: eq. 10 (busy times) and eq. 12 (speedup, Delta_A, owner utilisation) agree on
 * random runs where busy_j = |A_j| / S_j; E <= 1 whenever every task fits in the time left by
 * the owner; eq. 14 and E = SP / m are the dedicated special cases; eq. 13 is where E = 1. */
TEST(efficiency_properties)
{
	enum { M = 5 };
	int disagree = 0, above_one = 0;

	for (int t = 0; t < 500; t++) {
		double speed[M], w[M], a[M], busy[M], owner[M], u[M], tsingle[M], total = 0;
		double T = 1e9, smax = 0, eff10, eff12, sp, delta, slow;

		for (int j = 0; j < M; j++) {
			speed[j] = 1 + urand() * 9;
			smax = fmax(smax, speed[j]);
			owner[j] = urand() * 0.5 * T;
			u[j] = owner[j] / T;
			/* the task fits: busy <= T - owner */
			busy[j] = urand() * (T - owner[j]);
			a[j] = busy[j] * speed[j];
			total += a[j];
		}
		if (p002_weights_from_speed(speed, M, w) < 0)
			disagree++;
		/* single-workstation times slowed by a random owner load on each: Delta_A <= 1 */
		for (int j = 0; j < M; j++) {
			slow = 1 + urand();
			tsingle[j] = total / speed[j] * slow;
		}
		sp = p002_speedup(tsingle, M, T);
		{
			double tmin = tsingle[0];

			for (int j = 1; j < M; j++)
				tmin = fmin(tmin, tsingle[j]);
			delta = p002_delta(total / smax, tmin);
		}
		eff10 = p002_efficiency(w, busy, owner, M, T);
		eff12 = p002_efficiency_sp(sp, delta, w, u, M);
		if (!(fabs(eff10 - eff12) <= 1e-9 * eff10) || !(delta <= 1))
			disagree++;
		if (eff10 > 1 + 1e-12)
			above_one++;
		CHECK_NEAR(p002_owner_util(owner[0], T), u[0], 1e-15);
		/* eq. 13: at SP = sum (1 - U_j) W_j / Delta_A the efficiency is exactly 1 */
		CHECK_NEAR(p002_efficiency_sp(p002_sp_linear(delta, w, u, M), delta, w, u, M), 1, 1e-12);
	}
	CHECK(disagree == 0);
	CHECK(above_one == 0);
	{
		double w[4] = { 1, 0.5, 0.5, 1 }, ones[4] = { 1, 1, 1, 1 }, busy[4] = { 8, 8, 8, 8 };

		CHECK_NEAR(p002_efficiency_dedicated(1.5, w, 4), 0.5, 1e-15);	/* eq. 14 */
		CHECK_NEAR(p002_efficiency_dedicated(3, ones, 4), 3.0 / 4, 1e-15);	/* E = SP / m */
		/* a dedicated homogeneous run kept busy 80 % of the time: E = 0.8 */
		CHECK_NEAR(p002_efficiency(ones, busy, NULL, 4, 10), 0.8, 1e-15);
	}
}

/* Eqs. 15-17: overhead, average latency, latency per power unit and scalability. */
TEST(scalability)
{
	double w1[2] = { 1, 0.5 }, o1[2], w2[4] = { 1, 1, 0.5, 0.5 }, o2[4];
	double l1, l2;

	o1[0] = p002_overhead_ns(100, 10, 60);	/* 30 */
	o1[1] = p002_overhead_ns(100, 0, 40);	/* 60 */
	CHECK_NEAR(o1[0], 30, 0);
	CHECK_NEAR(p002_latency_ave(o1, w1, 2), 30 + 30, 1e-12);
	l1 = p002_latency_unit(o1, w1, 2);
	CHECK_NEAR(l1, 60 / 1.5, 1e-12);
	for (int j = 0; j < 4; j++)
		o2[j] = 50;
	l2 = p002_latency_unit(o2, w2, 4);
	CHECK_NEAR(l2, 50, 1e-12);
	CHECK_NEAR(p002_scalability(l1, l2), 0.8, 1e-12);
	CHECK(isnan(p002_scalability(1, 0)));
	CHECK(isnan(p002_overhead_ns(0, 1, 1)));
}

int
main(void)
{
	RUN(heterogeneity_example);
	RUN(weights_from_time);
	RUN(property1_constructed_run);
	RUN(efficiency_properties);
	RUN(scalability);
	return check_done();
}
