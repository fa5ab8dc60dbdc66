/* test_calib: the delay_comm calibration's fit and probe, without a testbed. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "predict/calib.h"
#include "tests/unit/check.h"

/* Points on two known two-piece lines (k in Mbit/s) come back as those lines, one curve per
 * number of competitors, through the delaycomm file and p000_delay_comm. */
TEST(fit_recovers_curves)
{
	static const double mbit[] = { 8, 16, 32, 64, 128, 256, 512 };
	struct calib_point pts[32];
	struct p000_delay d, back;
	struct err e;
	char path[300];
	int n = 0;

	for (int j = 0; j < 7; j++) {
		double k = mbit[j];

		pts[n++] = (struct calib_point){ .i = 0, .bw_Bps = k * 125000, .delay = 0 };
		pts[n++] = (struct calib_point){ .i = 1, .bw_Bps = k * 125000,
						 .delay = k < 50 ? 0.01 * k : 0.5 + 0.0001 * k };
		pts[n++] = (struct calib_point){ .i = 2, .bw_Bps = k * 125000,
						 .delay = k < 50 ? 0.02 * k : 1.2 };
	}
	CHECK(calib_fit(pts, n, "synthetic", &d, &e) == 0);
	CHECK(d.n == 2);
	CHECK(d.c[0].i == 1);
	CHECK(d.c[1].i == 2);
	CHECK(d.c[0].k_break > 32);
	CHECK(d.c[0].k_break < 64);
	CHECK_NEAR(d.c[0].lo_b, 0.01, 1e-9);
	CHECK_NEAR(d.c[0].hi_a, 0.5, 1e-9);
	CHECK_NEAR(d.c[1].hi_a, 1.2, 1e-9);
	CHECK_NEAR(d.k_unit_Bps, 125000, 0);
	snprintf(path, sizeof path, "%s/dc.tsv", check_tmpdir());
	CHECK(p000_delay_save(&d, path, &e) == 0);
	CHECK(p000_delay_load(&back, path, &e) == 0);
	CHECK(back.n == 2);
	CHECK_NEAR(p000_delay_comm(&back, 1, 16 * 125000, NULL), 0.16, 1e-6);
	CHECK_NEAR(p000_delay_comm(&back, 2, 256 * 125000, NULL), 1.2, 1e-6);
	CHECK_NEAR(p000_delay_comm(&back, 3, 256 * 125000, NULL), 1.2, 1e-6);	/* beyond: the last */
}

/* Fewer than 4 distinct bandwidths for some i cannot be fitted, and says so. */
TEST(fit_needs_four_bandwidths)
{
	struct calib_point pts[8];
	struct p000_delay d;
	struct err e;

	for (int j = 0; j < 6; j++)
		pts[j] = (struct calib_point){ .i = 1, .bw_Bps = (j % 3 + 1) * 1e6, .delay = 0.1 };
	CHECK(calib_fit(pts, 6, NULL, &d, &e) == -E_USAGE);
	CHECK(strstr(e.msg, "3 distinct") != NULL);
	CHECK(calib_fit(pts, 0, NULL, &d, &e) == -E_USAGE);
}

/* The rates are spread on a log scale, at least 4; the probe burns at least its CPU time. */
TEST(rates_and_probe)
{
	struct calib_opts o;
	int64_t t;

	calib_opts_default(&o);
	CHECK(o.nrates == 4);
	CHECK(o.max_i == 3);
	CHECK_NEAR(o.rates_bps[0], 8e6, 1);
	CHECK_NEAR(o.rates_bps[3], 512e6, 1);
	CHECK_NEAR(o.rates_bps[1] / o.rates_bps[0], o.rates_bps[2] / o.rates_bps[1], 1e-9);
	calib_opts_rates(&o, 2, 1e6, 1e9);
	CHECK(o.nrates == 4);
	t = calib_probe(20);
	CHECK(t >= 19000000);
}

/* A measured curve holds up to the largest k it was measured at, the uncapped transfer's own
 * rate: the points of testbed 17's calibration (caps 8 to 512 Mbit/s and a transfer that
 * reached 3854.5 Mbit/s uncapped) gave i = 1 a line of slope 0.00029 per Mbit/s above 320,
 * and a scenario's 1.66 GB/s (13286 Mbit/s) read 3.77 off it, as if one transfer took 3.77
 * CPU-bound processes' worth. Past k_max the curve is its value there, also once saved. */
TEST(curve_ends_at_largest_k)
{
	static const double mbit[] = { 8, 32, 128, 512, 3854.5 };
	static const double d1[] = { 0.013, -0.002, -0.003, 0.025, 1.004 };
	static const double d2[] = { 0.019, 0.002, 0.009, 0.035, 1.935 };
	struct calib_point pts[16];
	struct p000_delay d, back;
	struct err e;
	char path[300];
	double at_max;
	int n = 0;

	for (int j = 0; j < 5; j++) {
		pts[n++] = (struct calib_point){ .i = 1, .bw_Bps = mbit[j] * 125000, .delay = d1[j] };
		pts[n++] = (struct calib_point){ .i = 2, .bw_Bps = mbit[j] * 125000, .delay = d2[j] };
	}
	CHECK(calib_fit(pts, n, "testbed 17", &d, &e) == 0);
	CHECK_NEAR(d.c[0].k_max, 3854.5, 1e-9);
	CHECK_NEAR(d.c[1].k_max, 3854.5, 1e-9);
	at_max = p000_delay_comm(&d, 1, 3854.5 * 125000, NULL);
	CHECK_NEAR(at_max, 1.004, 0.01);
	CHECK_NEAR(p000_delay_comm(&d, 1, 1660801000, NULL), at_max, 1e-12);
	CHECK_NEAR(p000_delay_comm(&d, 2, 1660801000, NULL), p000_delay_comm(&d, 2, 3854.5 * 125000, NULL), 1e-12);
	/* below k_max the line is unchanged */
	CHECK_NEAR(p000_delay_comm(&d, 1, 2000 * 125000, NULL), d.c[0].hi_a + d.c[0].hi_b * 2000, 1e-12);
	snprintf(path, sizeof path, "%s/dc-kmax.tsv", check_tmpdir());
	CHECK(p000_delay_save(&d, path, &e) == 0);
	CHECK(p000_delay_load(&back, path, &e) == 0);
	CHECK_NEAR(back.c[0].k_max, 3854.5, 1e-6);
	CHECK_NEAR(p000_delay_comm(&back, 1, 1660801000, NULL), at_max, 1e-6);
	unlink(path);
}

int
main(void)
{
	RUN(fit_recovers_curves);
	RUN(fit_needs_four_bandwidths);
	RUN(rates_and_probe);
	RUN(curve_ends_at_largest_k);
	return check_done();
}
