/* test_p000: paper 000's slowdown model against every worked number in the paper. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict/p000.h"
#include "tests/unit/check.h"

/* Round to d decimals, as the paper prints. */
static double
rnd(double x, int d)
{
	double m = pow(10, d);

	return round(x * m) / m;
}

/* Section 4.1: one competitor communicating 45 % of the time, k = 0.45 Mwords/s on the
 * Alpha Farm: delay_comm = -0.20 + 0.49 * 0.45 = 0.02, sd = 1 + 0.55 * 1 + 0.45 * 0.02 = 1.56. */
TEST(sec41_sd_1_56)
{
	double comp[1] = { 0.55 }, comm[1] = { 0.45 };
	double pp[2], pm[2], delay[2];
	struct p000_delay d;

	CHECK(p000_pp_pm(1, comp, comm, pp, pm) == 0);
	CHECK_NEAR(pp[1], 0.55, 1e-12);
	CHECK_NEAR(pm[1], 0.45, 1e-12);
	p000_delay_alphafarm(&d);
	delay[0] = 0;
	delay[1] = p000_delay_comm(&d, 1, 0.45 * d.k_unit_Bps, NULL);
	CHECK_NEAR(delay[1], -0.20 + 0.49 * 0.45, 1e-12);
	CHECK_NEAR(rnd(delay[1], 2), 0.02, 1e-12);
	CHECK_NEAR(rnd(p000_local_sd(1, pp, pm, delay), 2), 1.56, 1e-12);
	delay[1] = 0.02;	/* the paper's rounded delay */
	CHECK_NEAR(p000_local_sd(1, pp, pm, delay), 1.559, 1e-12);
}

/* Section 4.2: two competitors communicating 24 % of the time, delay_comm = 0.25:
 * 1 + 0.58 * 2 + 0.36 * 1 + 0.42 * 0.25 = 2.6. The paper rounds the probabilities to two
 * digits first; at full precision eq. 2 gives 2.5256 (see docs/predict.md). */
TEST(sec42_sd_2_6)
{
	double comp[2] = { 0.76, 0.76 }, comm[2] = { 0.24, 0.24 };
	double pp[3], pm[3], delay[3] = { 0, 0.25, 0.25 };
	double ppr[3], pmr[3];

	CHECK(p000_pp_pm(2, comp, comm, pp, pm) == 0);
	CHECK_NEAR(rnd(pp[2], 2), 0.58, 1e-12);
	CHECK_NEAR(rnd(pp[1], 2), 0.36, 1e-12);
	CHECK_NEAR(rnd(pm[1] + pm[2], 2), 0.42, 1e-12);
	CHECK_NEAR(pp[2], 0.76 * 0.76, 1e-12);
	CHECK_NEAR(pm[2], 0.24 * 0.24, 1e-12);
	/* eq. 2 with the paper's printed probabilities */
	ppr[0] = 0, ppr[1] = 0.36, ppr[2] = 0.58;
	pmr[0] = 0, pmr[1] = 0.42, pmr[2] = 0;
	CHECK_NEAR(rnd(p000_local_sd(2, ppr, pmr, delay), 1), 2.6, 1e-12);
	/* and at full precision */
	CHECK_NEAR(p000_local_sd(2, pp, pm, delay), 1 + 0.5776 * 2 + 0.3648 + 0.4224 * 0.25, 1e-12);
}

/* Section 4, the example in the text: computing 60 % and 70 %: P(one computes) =
 * 0.60 * 0.30 + 0.70 * 0.40, P(two compute) = 0.60 * 0.70. */
TEST(sec4_text_probabilities)
{
	double comp[2] = { 0.6, 0.7 }, comm[2] = { 0.4, 0.3 };
	double pp[3], pm[3];

	CHECK(p000_pp_pm(2, comp, comm, pp, pm) == 0);
	CHECK_NEAR(pp[1], 0.60 * 0.30 + 0.70 * 0.40, 1e-12);
	CHECK_NEAR(pp[2], 0.60 * 0.70, 1e-12);
	CHECK_NEAR(pp[0] + pp[1] + pp[2], 1, 1e-12);
}

/* The four formulas under Fig. 2. */
TEST(fig2_alphafarm_curves)
{
	struct p000_delay d;
	double u;
	bool x;

	p000_delay_alphafarm(&d);
	u = d.k_unit_Bps;
	CHECK_NEAR(p000_delay_comm(&d, 1, 1.0 * u, NULL), -0.20 + 0.49, 1e-12);
	CHECK_NEAR(p000_delay_comm(&d, 1, 3.0 * u, NULL), 1.38 - 0.06 * 3, 1e-12);
	CHECK_NEAR(p000_delay_comm(&d, 2, 1.0 * u, NULL), -0.50 + 1.37, 1e-12);
	CHECK_NEAR(p000_delay_comm(&d, 2, 2.0 * u, NULL), 2.48, 1e-12);
	CHECK_NEAR(p000_delay_comm(&d, 2, 1.74 * u, NULL), 2.48, 1e-12);
	CHECK_NEAR(p000_delay_comm(&d, 1, 2.37 * u, NULL), 1.38 - 0.06 * 2.37, 1e-12);
	/* clamped at 0 where the i = 1 line goes negative */
	CHECK_NEAR(p000_delay_comm(&d, 1, 0.1 * u, NULL), 0, 1e-12);
	/* i = 3 has no curve: the largest one, flagged */
	CHECK_NEAR(p000_delay_comm(&d, 3, 2.0 * u, &x), 2.48, 1e-12);
	CHECK(x);
	p000_delay_comm(&d, 2, 2.0 * u, &x);
	CHECK(!x);
}

/* Eq. 3 on the paper's Sections 5.1 and 5.2 figures. */
TEST(eq3_comm_slowdown)
{
	CHECK_NEAR(rnd(p000_comm_sd(0.91, 0.33), 2), 2.76, 1e-12);	/* Fig. 9 */
	CHECK_NEAR(rnd(p000_comm_sd(0.48, 0.28), 2), 1.71, 1e-12);	/* Fig. 10 */
	CHECK_NEAR(p000_comm_sd(6.21, 6.21), 1, 1e-12);
}

/* Section 6.1, Fig. 11: w = (2, 2, 2, 1), sd = (2, 2, 3, 1): 7 / 3.67 = 1.9. */
TEST(eq5_fig11_1_9)
{
	double w[4] = { 2, 2, 2, 1 }, sd[4] = { 2, 2, 3, 1 };

	CHECK_NEAR(p000_sd_load_dependent(4, w, sd), 7 / (1 + 1 + 2.0 / 3 + 1), 1e-12);
	CHECK_NEAR(rnd(p000_sd_load_dependent(4, w, sd), 1), 1.9, 1e-12);
}

/* Section 6.3.1, Fig. 14: exp 1 capacity 1/2 + 1/2 + 1 + 1 = 3, sd = 4/3 = 1.33; exp 2
 * 1/2 + 1/2 + 1/3 + 1 = 2.33, sd = 4/2.33 = 1.72 (exactly 12/7 = 1.714: the paper divides by
 * the rounded 2.33). */
TEST(eq5_fig14_1_33_and_1_72)
{
	double w[4] = { 1, 1, 1, 1 };
	double sd1[4] = { 2, 2, 1, 1 }, sd2[4] = { 2, 2, 3, 1 };

	CHECK_NEAR(rnd(p000_sd_load_dependent(4, w, sd1), 2), 1.33, 1e-12);
	CHECK_NEAR(p000_sd_load_dependent(4, w, sd2), 12.0 / 7, 1e-12);
	CHECK_NEAR(p000_sd_load_dependent(4, w, sd2), 1.72, 0.01);
	CHECK_NEAR(rnd(4 / rnd(4 / p000_sd_load_dependent(4, w, sd2), 2), 2), 1.72, 1e-12);
}

/* Section 6.2, Figs. 12 and 13 (eq. 12). */
TEST(eq12_fig12_fig13)
{
	double sd[4] = { 3, 2, 2, 1 };
	double hom[4] = { 1, 1, 1, 1 };
	double uni[4] = { 0.25, 0.25, 0.25, 0.25 };
	double slow2[4] = { 4, 1, 4, 4 };	/* node 2 four times as slow */
	double f13[4] = { 1.0 / 12, 3.0 / 12, 3.0 / 12, 5.0 / 12 };
	double slow4[4] = { 2, 2, 2, 1 };	/* node 4 twice as slow */

	CHECK_NEAR(p000_sd_eq12(4, hom, sd, uni), 3, 1e-12);
	CHECK_NEAR(p000_sd_eq12(4, slow2, sd, uni), 2, 1e-12);
	CHECK_NEAR(p000_sd_eq12(4, hom, sd, f13), 2, 1e-12);
	CHECK_NEAR(rnd(p000_sd_eq12(4, slow4, sd, f13), 2), 1.67, 1e-12);
	CHECK_NEAR(p000_extra_work(5.0 / 12, 4), 2.0 / 3, 1e-12);
}

/* Table 12: sd = (3, 2, 2, 1), f = (1/4, 1/6, 1/4, 1/3), w = 1: ew = (0, -0.33, 0, 0.33),
 * (1 + ew) sd = (3.0, 1.34, 2.0, 1.33): aggregate 3.0 (eqs. 11 and 12). */
TEST(table12_3_0)
{
	double w[4] = { 1, 1, 1, 1 }, sd[4] = { 3, 2, 2, 1 };
	double f[4] = { 1.0 / 4, 1.0 / 6, 1.0 / 4, 1.0 / 3 };

	CHECK_NEAR(rnd(p000_extra_work(f[1], 4), 2), -0.33, 1e-12);
	CHECK_NEAR(rnd(p000_extra_work(f[3], 4), 2), 0.33, 1e-12);
	CHECK_NEAR(rnd((1 + p000_extra_work(f[1], 4)) * sd[1], 2), 1.33, 0.011);	/* printed 1.34 */
	CHECK_NEAR(p000_sd_eq12(4, w, sd, f), 3.0, 1e-12);
	CHECK_NEAR(p000_sd_uniform_ded(4, w, sd, f), 3.0, 1e-12);
}

/* Tables 13-15 (eq. 9): the dedicated partitioning of Table 13 against the partitionings
 * under contention of Tables 14 (2.67 / 1.33 = 2.01) and 15 (3.27 / 1.33 = 2.46). */
TEST(tables13_15_2_01_and_2_46)
{
	double w[4] = { 3.07, 3.07, 1, 1 };
	double f13[4] = { 1.0 / 6, 1.0 / 3, 1.0 / 6, 1.0 / 3 };
	double sd14[4] = { 1, 1, 2, 2 }, f14[4] = { 1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6 };
	double sd15[4] = { 4, 1.33, 3, 2 };
	double f15[4] = { 15.0 / 55, 15.0 / 55, 15.0 / 55, 10.0 / 55 };
	double one[4] = { 1, 1, 1, 1 };

	/* the columns of Table 13: (1 + ew) / w = 0.22, 0.43, 0.66, 1.33 */
	CHECK_NEAR(rnd((1 + p000_extra_work(f13[0], 4)) / w[0], 2), 0.22, 1e-12);
	CHECK_NEAR(rnd((1 + p000_extra_work(f13[1], 4)) / w[1], 2), 0.43, 1e-12);
	CHECK_NEAR((1 + p000_extra_work(f13[2], 4)) / w[2], 0.66, 0.01);
	CHECK_NEAR(rnd((1 + p000_extra_work(f13[3], 4)) / w[3], 2), 1.33, 1e-12);
	/* Table 15's last column: 1.42, 0.47, 3.27, 1.45 */
	CHECK_NEAR(rnd((1 + p000_extra_work(f15[0], 4)) * sd15[0] / w[0], 2), 1.42, 1e-12);
	CHECK_NEAR(rnd((1 + p000_extra_work(f15[1], 4)) * sd15[1] / w[1], 2), 0.47, 1e-12);
	CHECK_NEAR(rnd((1 + p000_extra_work(f15[2], 4)) * sd15[2] / w[2], 2), 3.27, 1e-12);
	CHECK_NEAR(rnd((1 + p000_extra_work(f15[3], 4)) * sd15[3] / w[3], 2), 1.45, 1e-12);
	/* the aggregate slowdowns; the paper divides the rounded 2.67 and 3.27 by 1.33 */
	CHECK_NEAR(p000_sd_constraint(4, w, sd14, f14, f13), 2.0, 1e-12);
	CHECK_NEAR(p000_sd_constraint(4, w, sd14, f14, f13), 2.01, 0.011);
	CHECK_NEAR(p000_sd_constraint(4, w, sd15, f15, f13), 2.46, 0.01);
	CHECK_NEAR(rnd(2.67 / 1.33, 2), 2.01, 1e-12);
	/* eq. 8 is eq. 9 with one partitioning: no load, no slowdown */
	CHECK_NEAR(p000_sd_constraint(4, w, one, f13, f13), 1, 1e-12);
}

/* Brute force over all 2^p subsets of computing (and of communicating) competitors. */
static void
brute(int p, const double *comp, const double *comm, double *pp, double *pm)
{
	for (int i = 0; i <= p; i++)
		pp[i] = pm[i] = 0;
	for (unsigned s = 0; s < (1u << p); s++) {
		double qp = 1, qm = 1;
		int n = 0;

		for (int j = 0; j < p; j++) {
			int in = (s >> j) & 1;

			qp *= in ? comp[j] : 1 - comp[j];
			qm *= in ? comm[j] : 1 - comm[j];
			n += in;
		}
		pp[n] += qp;
		pm[n] += qm;
	}
}

/* The DP against enumeration of all 2^p competitor states, on random inputs; and eq. 2 >= 1. */
TEST(dp_matches_bruteforce_and_sd_at_least_1)
{
	struct p000_delay d;

	p000_delay_alphafarm(&d);
	srand(12345);
	for (int trial = 0; trial < 500; trial++) {
		int p = 1 + rand() % 12;
		double comp[12], comm[12], pp[13], pm[13], bp[13], bm[13], delay[13];
		double sum = 0;
		double k_Bps = (double)rand() / RAND_MAX * 5 * d.k_unit_Bps;

		for (int j = 0; j < p; j++) {
			comp[j] = (double)rand() / RAND_MAX;
			/* half the trials two-state (comm = 1 - comp), half with some idle time */
			comm[j] = trial % 2 ? 1 - comp[j] : (1 - comp[j]) * rand() / RAND_MAX;
		}
		CHECK(p000_pp_pm(p, comp, comm, pp, pm) == 0);
		brute(p, comp, comm, bp, bm);
		for (int i = 0; i <= p; i++) {
			CHECK_NEAR(pp[i], bp[i], 1e-12);
			CHECK_NEAR(pm[i], bm[i], 1e-12);
			sum += pp[i];
		}
		CHECK_NEAR(sum, 1, 1e-12);
		delay[0] = 0;
		for (int i = 1; i <= p; i++)
			delay[i] = p000_delay_comm(&d, i, k_Bps, NULL);
		CHECK(p000_local_sd(p, pp, pm, delay) >= 1);
	}
}

/* Aggregate slowdowns are >= 1 when every local slowdown is, and 1 with no load. */
TEST(aggregate_at_least_1)
{
	srand(777);
	for (int trial = 0; trial < 300; trial++) {
		int n = 1 + rand() % 8;
		double w[8], sd[8], f[8], one[8], fs = 0;

		for (int a = 0; a < n; a++) {
			w[a] = 0.2 + 4.0 * rand() / RAND_MAX;
			sd[a] = 1 + 3.0 * rand() / RAND_MAX;
			f[a] = 0.05 + (double)rand() / RAND_MAX;
			fs += f[a];
			one[a] = 1;
		}
		for (int a = 0; a < n; a++)
			f[a] /= fs;
		CHECK(p000_sd_load_dependent(n, w, sd) >= 1 - 1e-12);
		CHECK(p000_sd_constraint(n, w, sd, f, f) >= 1 - 1e-12);
		CHECK_NEAR(p000_sd_load_dependent(n, w, one), 1, 1e-12);
		CHECK_NEAR(p000_sd_constraint(n, w, one, f, f), 1, 1e-12);
	}
	CHECK(p000_pp_pm(1, (double[]){ 0.7 }, (double[]){ 0.5 }, (double[2]){ 0 }, (double[2]){ 0 }) < 0);
}

/* The two-piece fit recovers the Alpha Farm curves from points on them. */
TEST(two_piece_fit)
{
	struct p000_delay d;
	double k[20], y[20];
	struct p000_curve c = { 1, 0, 0, 0, 0, 0, 0 };

	p000_delay_alphafarm(&d);
	for (int j = 0; j < 20; j++) {
		k[j] = 0.5 + j * 0.25;
		y[j] = k[j] < 2.37 ? -0.20 + 0.49 * k[j] : 1.38 - 0.06 * k[j];
	}
	CHECK(p000_fit_two_piece(20, k, y, &c) == 0);
	CHECK_NEAR(c.lo_a, -0.20, 1e-9);
	CHECK_NEAR(c.lo_b, 0.49, 1e-9);
	CHECK_NEAR(c.hi_a, 1.38, 1e-9);
	CHECK_NEAR(c.hi_b, -0.06, 1e-9);
	CHECK(c.k_break > 2.25);
	CHECK(c.k_break < 2.5);
	CHECK(p000_fit_two_piece(3, k, y, &c) < 0);
}

TEST(weights_and_fractions)
{
	double t[4] = { 10, 10, 30.7, 30.7 }, w[4], busy[4] = { 1, 2, 3.07, 6.14 }, f[4];

	CHECK(p000_weights_from_times(4, t, w) == 0);
	CHECK_NEAR(w[0], 3.07, 1e-12);
	CHECK_NEAR(w[3], 1, 1e-12);
	CHECK(p000_fractions_from_busy(4, busy, w, f) == 0);
	CHECK_NEAR(f[0] + f[1] + f[2] + f[3], 1, 1e-12);
	CHECK_NEAR(f[1] / f[0], 2, 1e-12);
	CHECK_NEAR(f[2] / f[0], 1, 1e-12);	/* 3.07 s on a node 3.07 times slower: same work */
	t[1] = 0;
	CHECK(p000_weights_from_times(4, t, w) < 0);
}

TEST(delay_file_roundtrip)
{
	const char *dir = check_tmpdir();
	char path[256];
	struct p000_delay a, b;
	struct err e;
	FILE *f;

	p000_delay_alphafarm(&a);
	snprintf(path, sizeof path, "%s/curves.tsv", dir);
	CHECK(p000_delay_save(&a, path, &e) == 0);
	CHECK(p000_delay_load(&b, path, &e) == 0);
	CHECK(b.n == 2);
	CHECK_NEAR(b.k_unit_Bps, 8e6, 0);
	CHECK_NEAR(p000_delay_comm(&b, 1, 0.45 * 8e6, NULL), p000_delay_comm(&a, 1, 0.45 * 8e6, NULL), 1e-12);
	/* a damaged file is refused */
	f = fopen(path, "w");
	fputs("# contend-delaycomm 1\ni\tk_break\tlo_a\tlo_b\thi_a\thi_b\tk_unit_Bps\n0\t1\t0\t0\t0\t0\t1e6\n", f);
	fclose(f);
	CHECK(p000_delay_load(&b, path, &e) < 0);
	CHECK(strstr(e.msg, "line") != NULL);
	/* a v1 file (no k_max) is read with no limit: its line goes on past its points */
	f = fopen(path, "w");
	fputs("# contend-delaycomm 1\ni\tk_break\tlo_a\tlo_b\thi_a\thi_b\tk_unit_Bps\n1\t10\t0\t0\t0\t0.01\t1e6\n", f);
	fclose(f);
	CHECK(p000_delay_load(&b, path, &e) == 0);
	CHECK_NEAR(b.c[0].k_max, 0, 0);
	CHECK_NEAR(p000_delay_comm(&b, 1, 500e6, NULL), 5, 1e-12);
	/* v2: the same line ends at k_max = 100 */
	f = fopen(path, "w");
	fputs("# contend-delaycomm 2\ni\tk_break\tlo_a\tlo_b\thi_a\thi_b\tk_unit_Bps\tk_max\n"
	      "1\t10\t0\t0\t0\t0.01\t1e6\t100\n", f);
	fclose(f);
	CHECK(p000_delay_load(&b, path, &e) == 0);
	CHECK_NEAR(p000_delay_comm(&b, 1, 500e6, NULL), 1, 1e-12);
	CHECK_NEAR(p000_delay_comm(&b, 1, 50e6, NULL), 0.5, 1e-12);
	/* a negative k_max is refused */
	f = fopen(path, "w");
	fputs("# contend-delaycomm 2\ni\tk_break\tlo_a\tlo_b\thi_a\thi_b\tk_unit_Bps\tk_max\n"
	      "1\t10\t0\t0\t0\t0.01\t1e6\t-1\n", f);
	fclose(f);
	CHECK(p000_delay_load(&b, path, &e) < 0);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	RUN(sec41_sd_1_56);
	RUN(sec42_sd_2_6);
	RUN(sec4_text_probabilities);
	RUN(fig2_alphafarm_curves);
	RUN(eq3_comm_slowdown);
	RUN(eq5_fig11_1_9);
	RUN(eq5_fig14_1_33_and_1_72);
	RUN(eq12_fig12_fig13);
	RUN(table12_3_0);
	RUN(tables13_15_2_01_and_2_46);
	RUN(dp_matches_bruteforce_and_sd_at_least_1);
	RUN(aggregate_at_least_1);
	RUN(two_piece_fit);
	RUN(weights_and_fractions);
	RUN(delay_file_roundtrip);
	return check_done();
}
