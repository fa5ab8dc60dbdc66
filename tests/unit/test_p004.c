/* test_p004: the Peterson & Chamberlain model pinned to the paper, to closed forms, to direct
 * recursion, to Monte Carlo and to exhaustive search. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/numeric.h"
#include "predict/p004.h"
#include "tests/unit/check.h"

/* ---- a fixed-seed generator: xoshiro256** seeded by splitmix64 ---- */
struct rng {
	uint64_t s[4];
};

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void
rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

static uint64_t
rng_next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

static double
rng_unif(struct rng *r)	/* [0, 1) */
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* inverse-CDF sampling from a pmf with a prepared cumulative array */
static size_t
sample_cdf(const double *cdf, size_t n, double u)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static double *
make_cdf(const struct p004_pmf *d)
{
	double *c = malloc(d->n * sizeof *c), s = 0.0;
	size_t i;

	for (i = 0; i < d->n; i++) {
		s += d->p[i];
		c[i] = s;
	}
	c[d->n - 1] = 2.0;	/* the truncated tail (< 1e-12) goes to the last value */
	return c;
}

/* ---- eq. 5 ---- */

TEST(runtime_eq5)
{
	struct p004_iter it = { 100, 2e6, 40e6, 1e6 };	/* I, serial, work, overhead (ns) */

	/* 100 (2 + 1.5 * 40 / 4 + 1) ms = 1.8 s */
	CHECK_NEAR(p004_runtime_ns(&it, 1.5, 4), 1.8e9, 1e-3);
	CHECK_NEAR(p004_runtime_ns(&it, 1.0, 1), 100 * 43e6, 1e-3);
	CHECK(isnan(p004_runtime_ns(&it, 1.0, 0)));
}

/* ---- eta = 1 for one processor or no imbalance ---- */

TEST(eta_single_processor)
{
	struct p004_eta r;
	unsigned S1 = 50, S4[4] = { 50, 50, 50, 50 };
	double rho = 0.6, rho0 = 0.0;
	struct p004_proc pr[3] = { { NULL, NULL, 1 }, { NULL, NULL, 1 }, { NULL, NULL, 1 } };

	/* application imbalance (eq. 15): B = E[beta] makes eta(P = 1) exactly 1 */
	CHECK(p004_eta_bernoulli(&S1, 1, 0.3, 0, NULL, &r, NULL) == 0);
	CHECK_NEAR(r.eta, 1.0, 1e-12);
	/* ... and eta(P > 1) > 1 */
	CHECK(p004_eta_bernoulli(S4, 4, 0.3, 0, NULL, &r, NULL) == 0);
	CHECK(r.eta > 1.05);
	/* no background load, perfectly balanced: 1 for any P */
	CHECK(p004_eta_general(pr, 3, 1.0, 1, NULL, &r, NULL) == 0);
	CHECK_NEAR(r.eta, 1.0, 1e-15);
	CHECK(p004_eta_ps(&rho0, NULL, 1, 1, NULL, &r, NULL) == 0);
	CHECK_NEAR(r.eta, 1.0, 1e-15);
	/* with background load eta(1) = E[gamma] = 1/(1 - rho): the expected number of tasks
	 * 1/(1 - rho_j) the paper gives in section 3 */
	CHECK(p004_eta_ps(&rho, NULL, 1, 1, NULL, &r, NULL) == 0);
	CHECK_NEAR(r.eta, 1.0 / (1.0 - rho), 1e-11);
}

TEST(eta_monotone_in_rho)
{
	double prev = 0.0, rho[8];
	int i, j, ok = 1;

	for (i = 0; i <= 19; i++) {
		struct p004_eta r;

		for (j = 0; j < 8; j++)
			rho[j] = 0.05 * i * (0.5 + j / 14.0);	/* all grow with i */
		CHECK(p004_eta_ps(rho, NULL, 8, 1, NULL, &r, NULL) == 0);
		if (i > 0 && !(r.eta > prev))
			ok = 0;
		prev = r.eta;
	}
	CHECK(ok);
	/* one processor's load alone also raises eta */
	prev = 0.0;
	for (i = 0; i < 10; i++) {
		struct p004_eta r;

		for (j = 0; j < 8; j++)
			rho[j] = 0.3;
		rho[3] = 0.09 * i;
		CHECK(p004_eta_ps(rho, NULL, 8, 1, NULL, &r, NULL) == 0);
		if (i > 0 && !(r.eta > prev))
			ok = 0;
		prev = r.eta;
	}
	CHECK(ok);
	/* and M/G/1 background: eta grows with the arrival rate */
	prev = 0.0;
	for (i = 1; i <= 8; i++) {
		struct p004_h2 h[4];
		struct p004_eta r;

		for (j = 0; j < 4; j++)
			h[j] = (struct p004_h2){ 0.1 * i, 0.9, 2.0, 0.2 };
		CHECK(p004_eta_mg1_h2(h, NULL, 4, 1, NULL, &r, NULL, NULL) == 0);
		if (!(r.eta > prev))
			ok = 0;
		prev = r.eta;
	}
	CHECK(ok);
}

/* ---- eqs. 20, 21, 24 against the numeric sums of eqs. 19, 22 ---- */

TEST(ps_closed_forms_vs_numeric)
{
	double rho[5] = { 0.1, 0.35, 0.5, 0.72, 0.9 };
	unsigned delta[5] = { 1, 2, 2, 4, 8 };
	struct p004_pmf g[5];
	struct p004_proc pr[5];
	struct p004_eta closed, num;
	int j, a;

	for (j = 0; j < 5; j++) {
		double cum = 0.0;

		CHECK(p004_pmf_gamma_ps(rho[j], 1e-14, &g[j], NULL) == 0);
		/* eq. 20: Prob{gamma <= alpha} = 1 - rho^alpha */
		for (a = 1; a < 30 && (size_t)a < g[j].n; a++) {
			cum += g[j].p[a];
			CHECK_NEAR(cum, 1.0 - pow(rho[j], a), 1e-14);
		}
		CHECK(g[j].tail < 1e-14);
		pr[j] = (struct p004_proc){ NULL, &g[j], 1 };
	}
	/* eq. 21 (homogeneous) vs eq. 19 */
	CHECK(p004_eta_ps(rho, NULL, 5, 1, NULL, &closed, NULL) == 0);
	CHECK(p004_eta_general(pr, 5, 1.0, 1, NULL, &num, NULL) == 0);
	CHECK_NEAR(closed.eta, num.eta, 1e-10);
	CHECK(closed.tail_mass < 1e-12);
	CHECK(closed.err_bound < 1e-10);
	CHECK(num.tail_mass < 1e-12);
	/* eq. 24 (heterogeneous) vs eq. 22 with Delta = 2 */
	for (j = 0; j < 5; j++)
		pr[j].delta = delta[j];
	CHECK(p004_eta_ps(rho, delta, 5, 2, NULL, &closed, NULL) == 0);
	CHECK(p004_eta_general(pr, 5, 1.0, 2, NULL, &num, NULL) == 0);
	CHECK_NEAR(closed.eta, num.eta, 1e-10);
	/* P = 1 of eq. 24 is the greedy key delta / (Delta (1 - rho)) of section 3 */
	CHECK(p004_eta_ps(&rho[3], &delta[3], 1, 2, NULL, &closed, NULL) == 0);
	CHECK_NEAR(closed.eta, 4.0 / (2.0 * (1.0 - 0.72)), 1e-10);
	for (j = 0; j < 5; j++)
		p004_pmf_free(&g[j]);
}

/* truncation: a loose tolerance moves eta by no more than its stated bound */
TEST(ps_truncation_bound)
{
	double rho[3] = { 0.8, 0.9, 0.95 };
	struct p004_opts loose = { 1e-4, 0, 0 }, tight = { 1e-15, 0, 0 };
	struct p004_eta a, b;

	CHECK(p004_eta_ps(rho, NULL, 3, 1, &loose, &a, NULL) == 0);
	CHECK(p004_eta_ps(rho, NULL, 3, 1, &tight, &b, NULL) == 0);
	CHECK(a.tail_mass < 1e-4);
	CHECK(b.tail_mass < 1e-15);
	CHECK(b.eta - a.eta > 0.0);
	CHECK(b.eta - a.eta <= a.err_bound);
	CHECK(a.terms < b.terms);
	/* rho >= 1 is refused */
	rho[1] = 1.0;
	CHECK(p004_eta_ps(rho, NULL, 3, 1, NULL, &a, NULL) == -E_USAGE);
}

/* ---- numeric z-transform inversion ---- */

struct geo {
	double rho;
};

static double complex
geo_gf(void *ctx, double complex z)
{
	const struct geo *g = ctx;

	return (1.0 - g->rho) / (1.0 - g->rho * z);
}

TEST(zinv_geometric)
{
	struct geo g = { 0.9 };
	size_t n = 400, k;
	double *c = calloc(n, sizeof *c), worst = 0.0;
	struct num_inv_info info;

	CHECK(num_gf_invert(geo_gf, &g, n, 1e-15, 16, 1.0, c, &info, NULL) == 0);
	for (k = 0; k < n; k++) {
		double d = fabs(c[k] - (1.0 - g.rho) * pow(g.rho, (double)k));

		if (d > worst)
			worst = d;
	}
	CHECK(worst <= info.alias_bound + info.round_bound);
	CHECK(info.alias_bound + info.round_bound < 1e-12);
	CHECK(worst < 1e-13);
	/* the FFT itself: a length-8 transform of a delta is flat */
	{
		double complex a[8] = { 1 };
		int i, ok = 1;

		CHECK(num_fft(a, 8, 0) == 0);
		for (i = 0; i < 8; i++)
			ok &= cabs(a[i] - 1.0) < 1e-15;
		CHECK(ok);
		CHECK(num_fft(a, 6, 0) == -E_USAGE);
	}
	free(c);
}

TEST(mg1_inversion_vs_recursion)
{
	/* 90 % short jobs (mean 0.5 s), 10 % long (mean 5 s); lambda 0.6/s: rho = 0.57 */
	struct p004_h2 h = { 0.6, 0.9, 2.0, 0.2 };
	struct p004_pmf a, b, mm;
	struct p004_inv_report rep;
	double rho = p004_h2_rho(&h), mean = 0.0, ES2, pk, worst = 0.0;
	size_t k;

	CHECK_NEAR(rho, 0.6 * (0.45 + 0.5), 1e-15);
	CHECK_NEAR(p004_h2_lst(&h, 0.0), 1.0, 1e-15);
	CHECK(p004_pmf_gamma_mg1_h2(&h, NULL, &a, &rep, NULL) == 0);
	CHECK(rep.tail < 1e-12);
	CHECK(rep.err_bound < 1e-11);
	CHECK(p004_pmf_gamma_mg1_h2_recursion(&h, a.n - 1, &b, NULL) == 0);
	for (k = 1; k < a.n; k++) {
		double d = fabs(a.p[k] - b.p[k]);

		if (d > worst)
			worst = d;
		mean += (double)(k - 1) * a.p[k];
	}
	CHECK(worst < 2.0 * rep.err_bound + 1e-13);
	CHECK_NEAR(a.p[1], 1.0 - rho, 1e-12);	/* Q_0 = 1 - rho */
	/* Pollaczek-Khinchine mean: rho + lambda^2 E[S^2] / (2 (1 - rho)) */
	ES2 = 2.0 * (0.9 / 4.0 + 0.1 / 0.04);
	pk = rho + 0.36 * ES2 / (2.0 * (1.0 - rho));
	CHECK_NEAR(rep.mean_qlen, pk, 1e-12);
	CHECK_NEAR(mean, pk, 1e-8);
	/* exponential service (pi_a = 1) gives the geometric Q_k = (1 - rho) rho^k */
	h = (struct p004_h2){ 0.7, 1.0, 1.0, 3.0 };
	CHECK(p004_pmf_gamma_mg1_h2(&h, NULL, &mm, &rep, NULL) == 0);
	worst = 0.0;
	for (k = 1; k < mm.n; k++) {
		double d = fabs(mm.p[k] - 0.3 * pow(0.7, (double)(k - 1)));

		if (d > worst)
			worst = d;
	}
	CHECK(worst < 1e-12);
	/* unstable background is refused */
	h.lambda_per_s = 1.0;
	p004_pmf_free(&mm);
	CHECK(p004_pmf_gamma_mg1_h2(&h, NULL, &mm, NULL, NULL) == -E_USAGE);
	p004_pmf_free(&a);
	p004_pmf_free(&b);
}

/* ---- eqs. 15, 17, 18 ---- */

TEST(bernoulli_eq15_17_18)
{
	unsigned S[6] = { 400, 400, 400, 400, 400, 400 };
	struct p004_eta ex, ap;
	double e18;

	CHECK(p004_eta_bernoulli(S, 6, 0.5, 0, NULL, &ex, NULL) == 0);
	CHECK(p004_eta_bernoulli(S, 6, 0.5, 1, NULL, &ap, NULL) == 0);
	e18 = p004_eta_eq18(400, 6, 0.5);
	/* eq. 18 is eq. 17 with equal S_j */
	CHECK_NEAR(ap.eta, e18, 1e-12);
	/* DeMoivre-Laplace is close to the binomial when S p (1 - p) = 100 */
	CHECK(fabs(ap.eta - ex.eta) / ex.eta < 1e-3);
	/* E[max of 6 binomials] ~ mean + 1.267 sd: eta ~ 1 + 1.267 * 10 / 200 */
	CHECK_NEAR(ex.eta, 1.0 + 1.2672 * 10.0 / 200.0, 2e-3);
	CHECK(ex.tail_mass < 1e-12);
	/* eq. 14 itself: Bin(10, 0.3) at 3 = 120 0.3^3 0.7^7, and a large S sums to 1 */
	{
		struct p004_pmf d;
		double sum = 0.0;
		size_t l;

		CHECK(p004_pmf_binomial(10, 0.3, &d, NULL) == 0);
		CHECK_NEAR(d.p[3], 120.0 * 0.027 * pow(0.7, 7), 1e-15);
		CHECK_NEAR(d.p[0], pow(0.7, 10), 1e-16);
		p004_pmf_free(&d);
		CHECK(p004_pmf_binomial(5000, 0.37, &d, NULL) == 0);
		for (l = 0; l < d.n; l++)
			sum += d.p[l];
		CHECK_NEAR(sum, 1.0, 1e-14);
		CHECK_NEAR(d.p[1850], exp(lgamma(5001) - lgamma(1851) - lgamma(3151) +
					  1850 * log(0.37) + 3150 * log(0.63)), 1e-10 * d.p[1850]);	/* lgamma ~ 4e4: its own error ~1e-11 */
		p004_pmf_free(&d);
	}
}

/* ---- Monte Carlo against eq. 11 ---- */

/* Mean over n samples of max_j beta_j gamma_j delta_j / (B Delta) and its standard error. */
static void
mc_eta(const struct p004_proc *pr, size_t P, double B, unsigned Delta, size_t n, uint64_t seed,
       double *mean, double *se)
{
	struct rng r;
	double **cb = calloc(P, sizeof *cb), **cg = calloc(P, sizeof *cg), s = 0.0, s2 = 0.0;
	size_t i, j;

	rng_seed(&r, seed);
	for (j = 0; j < P; j++) {
		cb[j] = pr[j].beta ? make_cdf(pr[j].beta) : NULL;
		cg[j] = pr[j].gamma ? make_cdf(pr[j].gamma) : NULL;
	}
	for (i = 0; i < n; i++) {
		double mx = 0.0;

		for (j = 0; j < P; j++) {
			double bj = cb[j] ? (double)sample_cdf(cb[j], pr[j].beta->n, rng_unif(&r)) : 1.0;
			double gj = cg[j] ? (double)sample_cdf(cg[j], pr[j].gamma->n, rng_unif(&r)) : 1.0;
			double v = bj * gj * pr[j].delta;

			if (v > mx)
				mx = v;
		}
		mx /= B * Delta;
		s += mx;
		s2 += mx * mx;
	}
	*mean = s / (double)n;
	*se = sqrt((s2 / (double)n - *mean * *mean) / (double)(n - 1));
	for (j = 0; j < P; j++) {
		free(cb[j]);
		free(cg[j]);
	}
	free(cb);
	free(cg);
}

TEST(monte_carlo_eq11)
{
	/* 8 heterogeneous shared processors, binomial work: the full eq. 11 / eq. 33 */
	unsigned delta[8] = { 1, 1, 2, 2, 2, 4, 4, 4 }, S[8] = { 60, 60, 60, 60, 40, 40, 40, 40 };
	double lam[8] = { 0.1, 0.3, 0.05, 0.2, 0.1, 0.02, 0.08, 0.15 };
	struct p004_pmf gb[8], gg[8];
	struct p004_proc pr[8];
	struct p004_eta ana, closed;
	double rho[8], mean, se, B = 0.25 * 400.0 / 8.0;
	size_t n = 400000;
	int j;

	for (j = 0; j < 8; j++) {
		rho[j] = p004_rho_hetero(lam[j], 1.0, delta[j], 2);	/* mu = 1/s, Delta = 2 */
		CHECK(p004_pmf_binomial(S[j], 0.25, &gb[j], NULL) == 0);
		CHECK(p004_pmf_gamma_ps(rho[j], 1e-13, &gg[j], NULL) == 0);
		pr[j] = (struct p004_proc){ &gb[j], &gg[j], delta[j] };
	}
	CHECK(p004_eta_general(pr, 8, B, 2, NULL, &ana, NULL) == 0);
	CHECK(p004_eta_bernoulli_ps(S, rho, delta, 8, 0.25, 2, 0, NULL, &closed, NULL) == 0);
	CHECK_NEAR(ana.eta, closed.eta, 1e-9);
	mc_eta(pr, 8, B, 2, n, 20240601, &mean, &se);
	printf("# monte carlo eq. 33: eta %.5f, mc %.5f, se %.5f (%.3f %%), n %zu\n", ana.eta, mean,
	       se, 100.0 * se / mean, n);
	CHECK(se / mean < 0.0025);	/* 1 % is at least 4 standard errors */
	CHECK(fabs(mean - ana.eta) / ana.eta < 0.01);
	CHECK(fabs(mean - ana.eta) < 4.0 * se);
	for (j = 0; j < 8; j++) {
		p004_pmf_free(&gb[j]);
		p004_pmf_free(&gg[j]);
	}
}

TEST(monte_carlo_mg1)
{
	struct p004_h2 h[6];
	struct p004_pmf g[6];
	struct p004_proc pr[6];
	struct p004_eta ana;
	double mean, se;
	size_t n = 400000;
	int j;

	for (j = 0; j < 6; j++) {
		h[j] = (struct p004_h2){ 0.1 + 0.08 * j, 0.85, 2.0, 0.25 };
		CHECK(p004_pmf_gamma_mg1_h2(&h[j], NULL, &g[j], NULL, NULL) == 0);
		pr[j] = (struct p004_proc){ NULL, &g[j], 1 };
	}
	CHECK(p004_eta_mg1_h2(h, NULL, 6, 1, NULL, &ana, NULL, NULL) == 0);
	mc_eta(pr, 6, 1.0, 1, n, 77, &mean, &se);
	printf("# monte carlo m/g/1: eta %.5f, mc %.5f, se %.5f (%.3f %%), n %zu\n", ana.eta, mean,
	       se, 100.0 * se / mean, n);
	CHECK(se / mean < 0.0025);
	CHECK(fabs(mean - ana.eta) / ana.eta < 0.01);
	CHECK(fabs(mean - ana.eta) < 4.0 * se);
	for (j = 0; j < 6; j++)
		p004_pmf_free(&g[j]);
}

/* ---- numbers the paper prints ---- */

TEST(paper_numbers)
{
	/* eq. 27: 0.759 on [0, 1) is 1 - r with r = 0.241, c = 1.122 (eq. 26), so the density
	 * integrates to 1 - r 1000^-c ~ 1 */
	double r = 0.241, c = 1.122, mass = 0.759 + r * (1.0 - pow(1000.0, -c));
	/* section 3: 32 heterogeneous workstations, 6 x delta 1, 6 x 2, 10 x 4, 10 x 8 */
	unsigned delta[32];
	double lam[32], key[32];
	struct p004_ps_pool pool;
	size_t set[32], nset, j;
	double val;
	struct p004_cost_ctx cc;
	double cst[32];

	CHECK_NEAR(1.0 - r, 0.759, 1e-12);
	/* eq. 23: mu_j = mu Delta / delta_j, so rho_j = delta_j lambda_j / (mu Delta) */
	CHECK_NEAR(p004_rho_hetero(0.1, 1.0, 4, 2), 0.2, 1e-15);
	CHECK_NEAR(p004_rho_hetero(0.1, 0.5, 1, 1), 0.2, 1e-15);
	CHECK(fabs(mass - 1.0) < 1e-3);
	for (j = 0; j < 32; j++) {
		delta[j] = j < 6 ? 1 : j < 12 ? 2 : j < 22 ? 4 : 8;
		lam[j] = 0.05 * (double)((j * 7) % 11) / delta[j];	/* rho 0..0.5: some idle */
		cst[j] = 1.0;
	}
	memset(&pool, 0, sizeof pool);
	pool.it = (struct p004_iter){ 100, 0, 32e9, 0.05e9 };
	pool.lambda_per_s = lam;
	pool.delta = delta;
	pool.mu_per_s = 1.0;
	pool.Delta = 1;
	pool.n = 32;
	p004_pool_keys(&pool, 1, key);
	/* low x/c: one processor, "the fastest processor with the lowest background load" */
	cc = (struct p004_cost_ctx){ p004_ps_pool_runtime, &pool, 0.01, cst };
	nset = 0;
	CHECK(p004_select_fig5(32, key, p004_cost_objective, &cc, 0, set, &nset, &val, NULL) == 0);
	CHECK(nset == 1);
	if (CHECKED(nset == 1)) {
		CHECK(delta[set[0]] == 1);
		CHECK(lam[set[0]] == 0.0);
	}
	/* high x/c: the run-time optimum */
	{
		size_t rset[32], rn;

		CHECK(p004_select_fig5(32, key, p004_ps_pool_runtime, &pool, 0, rset, &rn, &val,
				       NULL) == 0);
		cc.x_per_s = 1e6;
		CHECK(p004_select_fig5(32, key, p004_cost_objective, &cc, 0, set, &nset, &val,
				       NULL) == 0);
		if (CHECKED(nset == rn))
			CHECK(memcmp(set, rset, rn * sizeof *set) == 0);
		CHECK(rn > 4);
	}
}

/* Figure 6: on homogeneous workstations the number chosen grows with x/c */
TEST(fig6_processors_grow_with_x_over_c)
{
	double lam[32], key[32], cst[32], xc;
	struct p004_ps_pool pool;
	struct p004_cost_ctx cc;
	size_t set[32], nset, prev = 0, j;
	int ok = 1;

	for (j = 0; j < 32; j++) {
		lam[j] = 0.5 * (double)j / 32.0;
		cst[j] = 1.0;
	}
	memset(&pool, 0, sizeof pool);
	pool.it = (struct p004_iter){ 50, 1e6, 20e9, 5e6 };
	pool.lambda_per_s = lam;
	pool.mu_per_s = 1.0;
	pool.Delta = 1;
	pool.n = 32;
	p004_pool_keys(&pool, 0, key);
	cc = (struct p004_cost_ctx){ p004_ps_pool_runtime, &pool, 0.0, cst };
	for (xc = 0.01; xc < 1e4; xc *= 2.0) {
		double v;

		cc.x_per_s = xc;
		CHECK(p004_select_fig5(32, key, p004_cost_objective, &cc, 1, set, &nset, &v, NULL) == 0);
		if (nset < prev)
			ok = 0;
		if (xc == 0.01 && nset != 1)
			ok = 0;
		prev = nset;
	}
	CHECK(ok);
	CHECK(prev > 8);
}

/* ---- selection against exhaustive search ---- */

TEST(selection_homogeneous_vs_exhaustive)
{
	struct rng r;
	int inst, agree_fig5 = 0, unimodal = 0, ok_scan = 1, ok_fig5 = 1;

	rng_seed(&r, 5);
	for (inst = 0; inst < 60; inst++) {
		double lam[9], key[9], v5, vs, vx, pref[9];
		size_t s5[9], ss[9], sx[9], n5, ns, nx, n = 9, j;
		struct p004_ps_pool pool;
		int uni = 1, down = 1;

		for (j = 0; j < n; j++)
			lam[j] = 0.9 * rng_unif(&r) * rng_unif(&r);
		memset(&pool, 0, sizeof pool);
		pool.it = (struct p004_iter){ 10, 1e6 * rng_unif(&r), 1e8 * (0.2 + rng_unif(&r)),
					      1e6 };
		pool.lambda_per_s = lam;
		pool.mu_per_s = 1.0;
		pool.Delta = 1;
		pool.n = n;
		p004_pool_keys(&pool, 0, key);
		CHECK(p004_select_fig5(n, key, p004_ps_pool_runtime, &pool, 0, s5, &n5, &v5, NULL) == 0);
		CHECK(p004_select_fig5(n, key, p004_ps_pool_runtime, &pool, 1, ss, &ns, &vs, NULL) == 0);
		CHECK(p004_select_exhaustive(n, p004_ps_pool_runtime, &pool, sx, &nx, &vx, NULL) == 0);
		/* the best set of each size is the least loaded: a prefix scan is optimal */
		if (fabs(vs - vx) > 1e-9 * vx)
			ok_scan = 0;
		if (v5 < vx - 1e-9 * vx)
			ok_fig5 = 0;	/* nothing beats exhaustive */
		/* is R over the sorted prefixes unimodal? then Figure 5's early stop is optimal too */
		for (j = 1; j <= n; j++) {
			size_t ord[9], a, b;

			for (a = 0; a < n; a++)
				ord[a] = a;
			for (a = 1; a < n; a++)
				for (b = a; b > 0 && key[ord[b - 1]] > key[ord[b]]; b--) {
					size_t t = ord[b];

					ord[b] = ord[b - 1];
					ord[b - 1] = t;
				}
			CHECK(p004_ps_pool_runtime(&pool, ord, j, &pref[j - 1], NULL) == 0);
		}
		for (j = 1; j < n; j++) {
			if (pref[j] >= pref[j - 1])
				down = 0;
			else if (!down)
				uni = 0;
		}
		unimodal += uni;
		if (uni && fabs(v5 - vx) > 1e-9 * vx)
			ok_fig5 = 0;
		agree_fig5 += fabs(v5 - vx) <= 1e-9 * vx;
	}
	printf("# figure 5 optimal on %d of 60 random homogeneous pools (%d unimodal)\n",
	       agree_fig5, unimodal);
	CHECK(ok_scan);
	CHECK(ok_fig5);
	CHECK(agree_fig5 >= unimodal);
}

/* Figure 5 stops at the first processor that does not help, and R over the sorted prefixes
 * need not be unimodal: one idle and three processors at rho = 0.55. With x = rho, eta is
 * 1, 1/(1-x), 1 + 2x/(1-x) - x^2/(1-x^2), 1 + 3x/(1-x) - 3x^2/(1-x^2) + x^3/(1-x^3)
 * (E[max] of 0..3 geometric slowdowns and the idle 1), so R / W = 1, 1.111, 1.004, 0.891. */
TEST(fig5_early_stop_counterexample)
{
	double lam[4] = { 0.0, 0.55, 0.55, 0.55 }, key[4], x = 0.55, eta4;
	struct p004_ps_pool pool;
	size_t set[4], n5 = 0, nx = 0;
	double v5, vx, r2;
	size_t two[2] = { 0, 1 };

	eta4 = 1 + 3 * x / (1 - x) - 3 * x * x / (1 - x * x) + x * x * x / (1 - x * x * x);
	memset(&pool, 0, sizeof pool);
	pool.it = (struct p004_iter){ 1, 0, 6e9, 0 };
	pool.lambda_per_s = lam;
	pool.mu_per_s = 1.0;
	pool.Delta = 1;
	pool.n = 4;
	p004_pool_keys(&pool, 0, key);
	CHECK(p004_ps_pool_runtime(&pool, two, 2, &r2, NULL) == 0);
	CHECK_NEAR(r2, 3e9 / (1 - x), 1e-2);
	CHECK(p004_select_fig5(4, key, p004_ps_pool_runtime, &pool, 0, set, &n5, &v5, NULL) == 0);
	CHECK(n5 == 1);
	CHECK_NEAR(v5, 6e9, 1e-3);
	CHECK(p004_select_exhaustive(4, p004_ps_pool_runtime, &pool, set, &nx, &vx, NULL) == 0);
	CHECK(nx == 4);
	CHECK_NEAR(vx, 6e9 * eta4 / 4, 1e-2);
	CHECK(p004_select_fig5(4, key, p004_ps_pool_runtime, &pool, 1, set, &n5, &v5, NULL) == 0);
	CHECK(n5 == 4);
	CHECK_NEAR(v5, vx, 1e-3);
}

TEST(selection_heterogeneous_greedy)
{
	struct rng r;
	int inst, exact = 0;
	double worst = 0.0;

	rng_seed(&r, 11);
	for (inst = 0; inst < 40; inst++) {
		double lam[8], key[8], vg, vx;
		unsigned delta[8];
		size_t sg[8], sx[8], ng, nx, j;
		struct p004_ps_pool pool;

		for (j = 0; j < 8; j++) {
			delta[j] = 1u << (rng_next(&r) % 4);
			lam[j] = 0.9 * rng_unif(&r) / delta[j];
		}
		memset(&pool, 0, sizeof pool);
		pool.it = (struct p004_iter){ 10, 1e6, 2e8, 2e6 };
		pool.lambda_per_s = lam;
		pool.delta = delta;
		pool.mu_per_s = 1.0;
		pool.Delta = 1;
		pool.n = 8;
		p004_pool_keys(&pool, 1, key);
		CHECK(p004_select_fig5(8, key, p004_ps_pool_runtime, &pool, 0, sg, &ng, &vg, NULL) == 0);
		CHECK(p004_select_exhaustive(8, p004_ps_pool_runtime, &pool, sx, &nx, &vx, NULL) == 0);
		CHECK(vg >= vx * (1.0 - 1e-12));
		if (vg / vx - 1.0 > worst)
			worst = vg / vx - 1.0;
		exact += vg <= vx * (1.0 + 1e-12);
	}
	printf("# greedy heuristic optimal on %d of 40 random heterogeneous pools, worst +%.2f %%\n",
	       exact, 100.0 * worst);
	CHECK(exact >= 20);
}

/* ---- eq. 35 and the constrained forms, by hand ---- */

/* rho = 0 everywhere: eta = 1, R_P = 12 s / P + 1 s: 13, 7, 5, 4 s for P = 1..4 */
TEST(cost_forms_by_hand)
{
	double lam[4] = { 0 }, key[4] = { 0, 1, 2, 3 }, c1[4] = { 1, 1, 1, 1 }, c2[4] = { 1, 1, 1, 10 };
	struct p004_ps_pool pool;
	struct p004_cost_ctx cc;
	struct p004_choice ch;
	size_t set[4], n;
	double v;

	memset(&pool, 0, sizeof pool);
	pool.it = (struct p004_iter){ 1, 0, 12e9, 1e9 };
	pool.lambda_per_s = lam;
	pool.mu_per_s = 1.0;
	pool.Delta = 1;
	pool.n = 4;
	/* eq. 35 with x = 2, c = 1: C = R (2 + P) = 39, 28, 25, 24 -> all four */
	cc = (struct p004_cost_ctx){ p004_ps_pool_runtime, &pool, 2.0, c1 };
	CHECK(p004_select_fig5(4, key, p004_cost_objective, &cc, 0, set, &n, &v, NULL) == 0);
	CHECK(n == 4);
	CHECK_NEAR(v, 24.0, 1e-9);
	/* x = 0.5: 19.5, 17.5, 17.5, 18 -> two (a tie is not an improvement) */
	cc.x_per_s = 0.5;
	CHECK(p004_select_fig5(4, key, p004_cost_objective, &cc, 0, set, &n, &v, NULL) == 0);
	CHECK(n == 2);
	CHECK_NEAR(v, 17.5, 1e-9);
	CHECK_NEAR(p004_cost(5e9, 0.5, c1, set, 2), 5.0 * 2.5, 1e-12);
	/* use cost sum c_j R_P = P R = 13, 14, 15, 16 */
	/* run-time goal 5.5 s: P >= 3 -> cheapest is P = 3 (15) */
	CHECK(p004_select_min_cost_goal(4, key, p004_ps_pool_runtime, &pool, c1, 5.5e9,
					P004_SEARCH_PREFIX, set, &ch, NULL) == 0);
	CHECK(ch.nset == 3);
	CHECK_NEAR(ch.use_cost, 15.0, 1e-9);
	CHECK_NEAR(ch.r_ns, 5e9, 1e-3);
	/* goal 3.5 s cannot be met */
	CHECK(p004_select_min_cost_goal(4, key, p004_ps_pool_runtime, &pool, c1, 3.5e9,
					P004_SEARCH_EXHAUSTIVE, set, &ch, NULL) == 0);
	CHECK(ch.nset == 0);
	/* budget 14.5: P <= 2 -> fastest is P = 2 (7 s) */
	CHECK(p004_select_min_time_budget(4, key, p004_ps_pool_runtime, &pool, c1, 14.5,
					  P004_SEARCH_PREFIX, set, &ch, NULL) == 0);
	CHECK(ch.nset == 2);
	CHECK_NEAR(ch.r_ns, 7e9, 1e-3);
	/* processor 3 costs 10/s: goal 5.5 s -> {0, 1, 2} at 15; all four would cost 52 */
	CHECK(p004_select_min_cost_goal(4, NULL, p004_ps_pool_runtime, &pool, c2, 5.5e9,
					P004_SEARCH_EXHAUSTIVE, set, &ch, NULL) == 0);
	if (CHECKED(ch.nset == 3)) {
		CHECK(set[0] == 0);
		CHECK(set[1] == 1);
		CHECK(set[2] == 2);
	}
	CHECK_NEAR(ch.use_cost, 15.0, 1e-9);
	/* budget 20: the fastest affordable is {0, 1, 2} at 5 s ({0, 3}: 7 s x 11 = 77) */
	CHECK(p004_select_min_time_budget(4, NULL, p004_ps_pool_runtime, &pool, c2, 20.0,
					  P004_SEARCH_EXHAUSTIVE, set, &ch, NULL) == 0);
	if (CHECKED(ch.nset == 3))
		CHECK(set[2] == 2);
	CHECK_NEAR(ch.r_ns, 5e9, 1e-3);
	/* budget 14.9: two cheap ones, 7 s at 14 */
	CHECK(p004_select_min_time_budget(4, NULL, p004_ps_pool_runtime, &pool, c2, 14.9,
					  P004_SEARCH_EXHAUSTIVE, set, &ch, NULL) == 0);
	if (CHECKED(ch.nset == 2))
		CHECK(set[1] != 3);
	CHECK_NEAR(ch.use_cost, 14.0, 1e-9);
}

/* ---- iterations from a trace ---- */

/* A message of the profile: sent at t_ns (first and last byte), src -> dst, bytes. */
static struct prof_msg
msg(int64_t t_ns, int32_t src, int32_t dst, int64_t bytes)
{
	return (struct prof_msg){ .t_ns = t_ns, .t_last_ns = t_ns, .src = src, .dst = dst, .bytes = bytes, .cid = -1,
				  .proto = PROF_NPROTO - 2 };
}

/* A master/worker run: rank 0 computes 2 ms alone, scatters to 1..3, all compute
 * 10 ms + imbalance, workers send back (in random order), repeat 50 times; plus start-up
 * chatter and one stray message. */
struct trace {
	struct prof_msg m[1000];
	size_t nm;
	struct prof_busy b[1000];
	size_t nb;
	double sum_max_ns, sum_wk_ns;
};

static void
make_trace(struct trace *t, int iters, struct rng *r)
{
	int64_t now = 1000000000;
	int i, j;

	memset(t, 0, sizeof *t);
	for (i = 0; i < 7; i++)	/* start-up: irregular */
		t->m[t->nm++] = msg(now + i * 1000, (int32_t)(i % 4), (int32_t)((i + 1) % 4), 7 + 13 * i);
	now += 5000000;
	for (i = 0; i < iters; i++) {
		int64_t tw[4], mx = 0;
		double wk = 0.0;
		int order[3] = { 1, 2, 3 };

		t->b[t->nb++] = (struct prof_busy){ 0, now, now + 2000000, -1, -1 };	/* serial */
		now += 2000000;
		for (j = 1; j <= 3; j++)
			t->m[t->nm++] = msg(now + j * 10000, 0, j, 80000);
		now += 40000;
		for (j = 0; j < 4; j++) {
			tw[j] = 10000000 + (int64_t)(3000000 * rng_unif(r));
			t->b[t->nb++] = (struct prof_busy){ j, now, now + tw[j], -1, -1 };
			if (tw[j] > mx)
				mx = tw[j];
			wk += (double)tw[j];
		}
		t->sum_max_ns += (double)mx;
		t->sum_wk_ns += wk;
		for (j = 0; j < 3; j++) {	/* shuffle the gather order */
			int k = j + (int)(rng_next(r) % (uint64_t)(3 - j)), x = order[j];

			order[j] = order[k];
			order[k] = x;
		}
		for (j = 0; j < 3; j++)
			t->m[t->nm++] = msg(now + tw[order[j]] + j, order[j], 0,
					    8000 + (int64_t)(rng_next(r) % 100));
		if (i == 20)	/* a stray message in the middle */
			t->m[t->nm++] = msg(now + 100, 2, 1, 12);
		now += mx + 500000;	/* gather + barrier */
	}
}

TEST(detect_master_worker)
{
	static struct trace t;
	struct rng r;
	struct p004_detect d;
	struct p004_detect_opts o = { 0 };
	double R;

	rng_seed(&r, 3);
	make_trace(&t, 50, &r);
	o.serial_rank = 0;
	o.serial_rank_set = 1;
	CHECK(p004_detect_iterations(t.m, t.nm, t.b, t.nb, 4, &o, &d, NULL) == 0);
	CHECK(d.iters == 50);
	CHECK_MSG(d.ref_period == 3 || d.ref_period == 1,
		  "reference period %zu, expected 3 or 1 (either finds the iterations)", d.ref_period);
	CHECK(d.windows >= 47);
	CHECK(d.senders == 4);
	CHECK_NEAR(d.it.t_serial_ns, 2e6, 1.0);
	/* per iteration: 2 ms serial, 40 us scatter, max work, 0.5 ms tail */
	CHECK(fabs(d.t_iter_ns - (2.54e6 + t.sum_max_ns / 50.0)) < 0.1e6);
	CHECK(fabs(d.it.t_par_wk_ns - t.sum_wk_ns / 50.0) / (t.sum_wk_ns / 50.0) < 0.03);
	CHECK(fabs(d.t_max_par_ns - t.sum_max_ns / 50.0) / (t.sum_max_ns / 50.0) < 0.03);
	CHECK(d.eta_measured > 1.0);
	CHECK(d.eta_measured < 1.3);
	CHECK_NEAR(d.it.t_overhead_ns, 0.54e6, 0.05e6);
	CHECK_NEAR(d.msgs_per_iter, 6.0, 0.1);
	/* eq. 5 with the measured figures gives back the measured time per iteration */
	R = p004_runtime_ns(&d.it, d.eta_measured, d.nranks);
	CHECK_NEAR(R / 50.0, d.t_iter_ns, 1.0);
	/* without phases only the counts and wall times */
	CHECK(p004_detect_iterations(t.m, t.nm, NULL, 0, 4, NULL, &d, NULL) == 0);
	CHECK(d.iters == 50);
	CHECK(isnan(d.it.t_par_wk_ns));
	/* messages from an unknown sender or to a rank outside the run take no part */
	{
		size_t nm = t.nm;
		double t_iter = d.t_iter_ns, per = d.msgs_per_iter;

		for (size_t k = 0; k + 6 < nm && t.nm < 1000; k += 6) {
			t.m[t.nm++] = msg(t.m[k].t_ns + 1, 0, 9, 5);
			t.m[t.nm++] = msg(t.m[k].t_ns + 2, -1, 1, 5);
		}
		CHECK(t.nm > nm + 80);
		CHECK(p004_detect_iterations(t.m, t.nm, NULL, 0, 4, NULL, &d, NULL) == 0);
		CHECK(d.iters == 50);
		CHECK(d.t_iter_ns == t_iter);
		CHECK(d.msgs_per_iter == per);
	}
}

TEST(detect_rejects_noise)
{
	struct prof_msg m[300];
	struct rng r;
	struct p004_detect d;
	struct err e = { { 0 }, 0 };
	size_t i;

	rng_seed(&r, 9);
	for (i = 0; i < 300; i++)
		m[i] = msg((int64_t)i * 1000, (int32_t)(rng_next(&r) % 4), (int32_t)(rng_next(&r) % 4),
			   (int64_t)1 << (rng_next(&r) % 20));
	CHECK(p004_detect_iterations(m, 300, NULL, 0, 4, NULL, &d, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "no repeating") != NULL);
	CHECK(p004_detect_iterations(m, 300, NULL, 0, 0, NULL, &d, NULL) == -E_USAGE);
}

/* bursts: a sender whose sends to three ranks leave in any order within 5 us */
TEST(detect_burst_canonical)
{
	struct prof_msg m[200];
	struct rng r;
	struct p004_detect d;
	struct p004_detect_opts o = { 0 };
	size_t nm = 0;
	int i, j;

	rng_seed(&r, 4);
	for (i = 0; i < 40; i++) {
		int64_t t0 = 1000000 * (int64_t)i;
		int order[3] = { 1, 2, 3 };

		for (j = 0; j < 3; j++) {
			int k = j + (int)(rng_next(&r) % (uint64_t)(3 - j)), x = order[j];

			order[j] = order[k];
			order[k] = x;
		}
		for (j = 0; j < 3; j++)
			m[nm++] = msg(t0 + 1000 * j, 0, order[j], 4096);
		m[nm++] = msg(t0 + 500000, 1, 0, 64);
	}
	o.burst_gap_ns = 5000;
	CHECK(p004_detect_iterations(m, nm, NULL, 0, 4, &o, &d, NULL) == 0);
	CHECK(d.iters == 40);
	CHECK_NEAR(d.t_iter_ns, 1e6, 1.0);
}

int
main(void)
{
	RUN(runtime_eq5);
	RUN(eta_single_processor);
	RUN(eta_monotone_in_rho);
	RUN(ps_closed_forms_vs_numeric);
	RUN(ps_truncation_bound);
	RUN(zinv_geometric);
	RUN(mg1_inversion_vs_recursion);
	RUN(bernoulli_eq15_17_18);
	RUN(monte_carlo_eq11);
	RUN(monte_carlo_mg1);
	RUN(paper_numbers);
	RUN(fig6_processors_grow_with_x_over_c);
	RUN(selection_homogeneous_vs_exhaustive);
	RUN(fig5_early_stop_counterexample);
	RUN(selection_heterogeneous_greedy);
	RUN(cost_forms_by_hand);
	RUN(detect_master_worker);
	RUN(detect_rejects_noise);
	RUN(detect_burst_canonical);
	return check_done();
}
