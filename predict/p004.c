/* p004: the synchronous-iterative run-time model of Peterson & Chamberlain (1996). */
#include "predict/p004.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/numeric.h"

#define P004_INV_ALIAS 1e-15	/* aliasing target of the M/G/1 inversion */
#define P004_INV_OVERSAMPLE 16	/* contour points per coefficient: round-off grows by <= 10^(15/16) */
#define P004_EXHAUSTIVE_MAX 20	/* largest pool tried subset by subset */
#define P004_PERIOD_SLACK 0.001	/* extra mismatch rate a shorter period may have over twice the best */
#define P004_DETECT_BUDGET 200000000.0	/* token comparisons allowed per sender */

static double
opt_tol(const struct p004_opts *o)
{
	return (o != NULL && o->tol > 0.0) ? o->tol : P004_TOL_DEFAULT;
}

static size_t
opt_support(const struct p004_opts *o)
{
	return (o != NULL && o->support_max > 0) ? o->support_max : P004_SUPPORT_MAX_DEFAULT;
}

static size_t
opt_qlen(const struct p004_opts *o)
{
	return (o != NULL && o->qlen_max > 0) ? o->qlen_max : P004_QLEN_MAX_DEFAULT;
}

/* ---- Eq. 5 ---------------------------------------------------------------------------- */

double
p004_runtime_ns(const struct p004_iter *it, double eta, size_t nproc)
{
	if (it == NULL || nproc == 0)
		return NAN;
	return it->iters * (it->t_serial_ns + eta * it->t_par_wk_ns / (double)nproc +
			    it->t_overhead_ns);
}

/* ---- Distributions --------------------------------------------------------------------- */

void
p004_pmf_free(struct p004_pmf *d)
{
	if (d == NULL)
		return;
	free(d->p);
	d->p = NULL;
	d->n = 0;
	d->tail = 0.0;
}

int
p004_pmf_binomial(unsigned S, double p, struct p004_pmf *d, struct err *e)
{
	unsigned l;

	if (d == NULL || !(p >= 0.0 && p <= 1.0))
		return err_set(e, E_USAGE, "binomial work: probability %g outside [0, 1]", p);
	d->n = (size_t)S + 1;
	d->p = xcalloc(d->n, sizeof *d->p);
	d->tail = 0.0;
	if (p == 0.0) {
		d->p[0] = 1.0;
		return 0;
	}
	if (p == 1.0) {
		d->p[S] = 1.0;
		return 0;
	}
	{
		/* eq. 14 by the ratio p_{l+1} / p_l = (S - l) p / ((l + 1)(1 - p)) outwards from
		 * the mode, then normalised: relative error O(|l - mode| eps), where lgamma of
		 * large S would lose ~1e-12 */
		unsigned mode = (unsigned)floor((S + 1.0) * p);
		double odds = p / (1.0 - p), sum = 0.0;

		if (mode > S)
			mode = S;
		d->p[mode] = 1.0;
		for (l = mode; l < S; l++)
			d->p[l + 1] = d->p[l] * (double)(S - l) / (double)(l + 1) * odds;
		for (l = mode; l > 0; l--)
			d->p[l - 1] = d->p[l] * (double)l / ((double)(S - l + 1) * odds);
		for (l = 0; l <= S; l++)
			sum += d->p[l];
		for (l = 0; l <= S; l++)
			d->p[l] /= sum;
	}
	return 0;
}

int
p004_pmf_binomial_normal(unsigned S, double p, struct p004_pmf *d, struct err *e)
{
	double var, mean;
	unsigned l;

	if (d == NULL || !(p > 0.0 && p < 1.0) || S == 0)
		return err_set(e, E_USAGE, "normal work: needs S >= 1 and 0 < p < 1");
	mean = S * p;
	var = S * p * (1.0 - p);
	d->n = (size_t)S + 1;
	d->p = xcalloc(d->n, sizeof *d->p);
	d->tail = 0.0;
	for (l = 0; l <= S; l++)	/* eq. 16 */
		d->p[l] = exp(-(l - mean) * (l - mean) / (2.0 * var)) / sqrt(2.0 * M_PI * var);
	return 0;
}

int
p004_pmf_gamma_ps(double rho, double tol, struct p004_pmf *d, struct err *e)
{
	size_t K = 0, k;
	double x = 1.0;

	if (d == NULL || !(rho >= 0.0 && rho < 1.0))
		return err_set(e, E_USAGE, "processor sharing: utilisation %g outside [0, 1)", rho);
	if (!(tol > 0.0))
		tol = P004_TOL_DEFAULT;
	while (x >= tol) {	/* K: first with rho^K < tol */
		x *= rho;
		K++;
	}
	d->n = K + 1;
	d->p = xcalloc(d->n, sizeof *d->p);
	d->tail = pow(rho, (double)K);
	for (k = 0; k < K; k++)	/* eq. 20: Prob{gamma = k + 1} = Q_k = (1 - rho) rho^k */
		d->p[k + 1] = (1.0 - rho) * pow(rho, (double)k);
	return 0;
}

static int
h2_ok(const struct p004_h2 *h)
{
	return h != NULL && h->lambda_per_s >= 0.0 && h->pi_a >= 0.0 && h->pi_a <= 1.0 &&
	       h->mu_a_per_s > 0.0 && h->mu_b_per_s > 0.0 && isfinite(h->lambda_per_s) &&
	       isfinite(h->mu_a_per_s) && isfinite(h->mu_b_per_s);
}

double
p004_h2_rho(const struct p004_h2 *h)
{
	if (!h2_ok(h))
		return NAN;
	return h->lambda_per_s * (h->pi_a / h->mu_a_per_s + (1.0 - h->pi_a) / h->mu_b_per_s);
}

double
p004_h2_lst(const struct p004_h2 *h, double s)
{
	if (!h2_ok(h))
		return NAN;
	return h->pi_a * h->mu_a_per_s / (h->mu_a_per_s + s) +	/* eq. 29 */
	       (1.0 - h->pi_a) * h->mu_b_per_s / (h->mu_b_per_s + s);
}

/* T(z) = (1 - Q(z)) / (1 - z) for eq. 25 with eq. 29 service. With s = lambda (1 - z),
 * H(s) = sum_i pi_i / (mu_i + s), K(s) = sum_i pi_i / (mu_i (mu_i + s)):
 * B*(s) = 1 - s H(s), B*(s) - z = (1 - z)(1 - lambda H), Q = (1 - rho) B* / (1 - lambda H),
 * and 1 - Q = lambda (1 - z) (lambda K + (1 - rho) H) / (1 - lambda H), so
 * T = lambda (lambda K + (1 - rho) H) / (1 - lambda H): no 0/0 at z = 1. */
static double complex
h2_tail_gf(void *ctx, double complex z)
{
	const struct p004_h2 *h = ctx;
	double lam = h->lambda_per_s, pa = h->pi_a, pb = 1.0 - h->pi_a;
	double ma = h->mu_a_per_s, mb = h->mu_b_per_s;
	double rho = p004_h2_rho(h);
	double complex s = lam * (1.0 - z);
	double complex H = pa / (ma + s) + pb / (mb + s);
	double complex K = pa / (ma * (ma + s)) + pb / (mb * (mb + s));

	return lam * (lam * K + (1.0 - rho) * H) / (1.0 - lam * H);
}

int
p004_pmf_gamma_mg1_h2(const struct p004_h2 *h, const struct p004_opts *o, struct p004_pmf *d,
		      struct p004_inv_report *rep, struct err *e)
{
	double tol = opt_tol(o), rho = p004_h2_rho(h), *t = NULL, prev;
	size_t N = 64, nmax = opt_qlen(o), k;
	struct num_inv_info info;
	struct p004_h2 hc;

	if (d == NULL || !h2_ok(h))
		return err_set(e, E_USAGE, "m/g/1 background: bad hyperexponential parameters");
	if (!(rho < 1.0))
		return err_set(e, E_USAGE, "m/g/1 background: utilisation %g is not below 1", rho);
	hc = *h;
	for (;;) {
		int rc;

		t = xreallocarray(t, N, sizeof *t);
		rc = num_gf_invert(h2_tail_gf, &hc, N, P004_INV_ALIAS, P004_INV_OVERSAMPLE, 1.0, t,
				   &info, e);
		if (rc < 0) {
			free(t);
			return rc;
		}
		if (t[N - 1] < tol)
			break;
		if (N >= nmax) {
			free(t);
			return err_set(e, E_LIMIT, "m/g/1 background: more than %zu queue lengths "
				       "needed for mass below %g (utilisation %g)", nmax, tol, rho);
		}
		N = N * 2 > nmax ? nmax : N * 2;
	}
	/* The tail may end where the computed values are round-off: keep K = first k with
	 * Prob{N > k} < tol. */
	for (k = 0; k < N; k++)
		if (t[k] < tol)
			break;
	N = k + 1;
	d->n = N + 1;
	d->p = xcalloc(d->n, sizeof *d->p);
	prev = 1.0;
	for (k = 0; k < N; k++) {	/* q_k = Prob{N > k-1} - Prob{N > k}; gamma = k + 1 */
		double q = prev - t[k];

		d->p[k + 1] = q > 0.0 ? q : 0.0;	/* round-off can make a tiny q negative */
		prev = t[k];
	}
	d->tail = t[N - 1] > 0.0 ? t[N - 1] : 0.0;
	if (rep != NULL) {
		rep->terms = N;
		rep->tail = d->tail;
		rep->r = info.r;
		rep->m = info.m;
		rep->err_bound = info.alias_bound + info.round_bound;
		rep->mean_qlen = creal(h2_tail_gf(&hc, 1.0));
	}
	free(t);
	return 0;
}

int
p004_pmf_gamma_mg1_h2_recursion(const struct p004_h2 *h, size_t nterms, struct p004_pmf *d,
				struct err *e)
{
	double rho = p004_h2_rho(h), pa, pb, sa, sb, a0, sum;
	double *Q, *A;
	size_t k, i;

	if (d == NULL || !h2_ok(h) || nterms == 0)
		return err_set(e, E_USAGE, "m/g/1 recursion: bad arguments");
	if (!(rho < 1.0))
		return err_set(e, E_USAGE, "m/g/1 recursion: utilisation %g is not below 1", rho);
	pa = h->pi_a;
	pb = 1.0 - pa;
	/* arrivals during an exponential(mu) service are geometric: sigma = lambda/(lambda+mu) */
	sa = h->lambda_per_s / (h->lambda_per_s + h->mu_a_per_s);
	sb = h->lambda_per_s / (h->lambda_per_s + h->mu_b_per_s);
	a0 = pa * (1.0 - sa) + pb * (1.0 - sb);
	Q = xcalloc(nterms, sizeof *Q);
	A = xcalloc(nterms, sizeof *A);
	for (k = 0; k < nterms; k++)	/* A_k = Prob{more than k arrivals in a service} */
		A[k] = pa * pow(sa, (double)k + 1.0) + pb * pow(sb, (double)k + 1.0);
	Q[0] = 1.0 - rho;
	for (k = 1; k < nterms; k++) {	/* level crossing between k-1 and k */
		double s = Q[0] * A[k - 1];

		for (i = 1; i < k; i++)
			s += Q[i] * A[k - i];
		Q[k] = s / a0;
	}
	d->n = nterms + 1;
	d->p = xcalloc(d->n, sizeof *d->p);
	sum = 0.0;
	for (k = 0; k < nterms; k++) {
		d->p[k + 1] = Q[k];
		sum += Q[k];
	}
	d->tail = 1.0 - sum;
	free(Q);
	free(A);
	return 0;
}

/* ---- Eq. 11 ----------------------------------------------------------------------------- */

static double one_w[2] = { 0.0, 1.0 };	/* the distribution "always 1"; never written */
static const struct p004_pmf pmf_one = { one_w, 2, 0.0 };

/* index of the last nonzero weight, 0 if none */
static size_t
last_nonzero(const struct p004_pmf *d)
{
	size_t i = d->n;

	while (i > 0 && d->p[i - 1] == 0.0)
		i--;
	return i > 0 ? i - 1 : 0;
}

int
p004_eta_general(const struct p004_proc *pr, size_t nproc, double B, unsigned Delta,
		 const struct p004_opts *o, struct p004_eta *out, struct err *e)
{
	size_t supmax = opt_support(o), K = 0, j, g, ngroup = 0, k;
	size_t *gfirst, *gcount;
	double *G, *w, eta;

	if (pr == NULL || out == NULL || nproc == 0 || !(B > 0.0) || Delta == 0)
		return err_set(e, E_USAGE, "eta: needs processors, B > 0 and Delta >= 1");
	gfirst = xcalloc(nproc, sizeof *gfirst);
	gcount = xcalloc(nproc, sizeof *gcount);
	for (j = 0; j < nproc; j++) {
		const struct p004_pmf *b = pr[j].beta ? pr[j].beta : &pmf_one;
		const struct p004_pmf *c = pr[j].gamma ? pr[j].gamma : &pmf_one;
		size_t vb, vc, v;

		if (pr[j].delta == 0 || b->n == 0 || c->n == 0 || b->p == NULL || c->p == NULL) {
			free(gfirst);
			free(gcount);
			return err_set(e, E_USAGE, "eta: processor %zu has an empty distribution or "
				       "delta 0", j);
		}
		vb = last_nonzero(b);
		vc = last_nonzero(c);
		if (!size_mul_ok(vb, vc, &v) || !size_mul_ok(v, pr[j].delta, &v) || v >= supmax) {
			free(gfirst);
			free(gcount);
			return err_set(e, E_LIMIT, "eta: processor %zu can reach eta_j %zu x %zu x %u, "
				       "above the cap of %zu values", j, vb, vc, pr[j].delta, supmax);
		}
		if (v > K)
			K = v;
		for (g = 0; g < ngroup; g++) {
			const struct p004_proc *q = &pr[gfirst[g]];

			if (q->beta == pr[j].beta && q->gamma == pr[j].gamma && q->delta == pr[j].delta)
				break;
		}
		if (g == ngroup)
			gfirst[ngroup++] = j;
		gcount[g]++;
	}
	G = xmallocarray(K + 1, sizeof *G);
	w = xmallocarray(K + 1, sizeof *w);
	for (k = 0; k <= K; k++)
		G[k] = 1.0;
	for (g = 0; g < ngroup; g++) {
		const struct p004_proc *q = &pr[gfirst[g]];
		const struct p004_pmf *b = q->beta ? q->beta : &pmf_one;
		const struct p004_pmf *c = q->gamma ? q->gamma : &pmf_one;
		size_t a, l, vb = last_nonzero(b), vc = last_nonzero(c);
		double F = 0.0, Fc = 0.0;	/* compensated sum: K may be 10^6 terms */

		/* Prob{eta_j = a l delta}: the joint of eq. 7 with delta_j (eq. 8) */
		memset(w, 0, (K + 1) * sizeof *w);
		for (a = 0; a <= vc; a++) {
			if (c->p[a] == 0.0)
				continue;
			for (l = 0; l <= vb; l++)
				w[a * l * q->delta] += c->p[a] * b->p[l];
		}
		/* F_j(k) (eq. 9's inner sum), raised to the group's size for the product */
		for (k = 0; k <= K; k++) {
			double y = w[k] - Fc, t = F + y;

			Fc = (t - F) - y;
			F = t;
			G[k] *= gcount[g] == 1 ? F : pow(F, (double)gcount[g]);
		}
	}
	/* sum_{k=1}^{K} k (G(k) - G(k-1)) = sum_{k=0}^{K-1} (G(K) - G(k)): every term >= 0 */
	eta = 0.0;
	for (k = 0; k < K; k++)
		eta += G[K] - G[k];
	out->eta = eta / (B * (double)Delta);
	out->tail_mass = 1.0 - G[K];
	out->err_bound = NAN;
	out->terms = K;
	free(G);
	free(w);
	free(gfirst);
	free(gcount);
	return 0;
}

double
p004_rho_hetero(double lambda_per_s, double mu_per_s, unsigned delta, unsigned Delta)
{
	if (!(mu_per_s > 0.0) || Delta == 0)
		return NAN;
	return (double)delta * lambda_per_s / (mu_per_s * (double)Delta);	/* eq. 23 */
}

int
p004_eta_ps(const double *rho, const unsigned *delta, size_t nproc, unsigned Delta,
	    const struct p004_opts *o, struct p004_eta *out, struct err *e)
{
	double tol = opt_tol(o), eta = 0.0, mass, bound = 0.0;
	size_t kmax = opt_support(o), k, j;

	if (rho == NULL || out == NULL || nproc == 0 || Delta == 0)
		return err_set(e, E_USAGE, "eta: needs processors and Delta >= 1");
	for (j = 0; j < nproc; j++) {
		if (!(rho[j] >= 0.0 && rho[j] < 1.0))
			return err_set(e, E_USAGE, "processor sharing: processor %zu utilisation %g "
				       "outside [0, 1)", j, rho[j]);
		if (delta != NULL && delta[j] == 0)
			return err_set(e, E_USAGE, "eta: processor %zu has delta 0", j);
	}
	for (k = 0;; k++) {
		double slog = 0.0, term;
		int full = 0;

		mass = 0.0;	/* sum_j rho_j^floor(k/delta_j) >= 1 - G(k) */
		for (j = 0; j < nproc; j++) {
			unsigned dj = delta ? delta[j] : 1;
			double x = pow(rho[j], (double)(k / dj));	/* eq. 20, 23: 1 - Prob{gamma <= .} */

			mass += x;
			if (x >= 1.0)
				full = 1;
			else
				slog += log1p(-x);
		}
		if (mass < tol)
			break;
		if (k >= kmax)
			return err_set(e, E_LIMIT, "processor sharing: more than %zu terms for mass "
				       "below %g", kmax, tol);
		term = full ? 1.0 : -expm1(slog);	/* 1 - G(k), accurate when G is near 1 */
		eta += term;
	}
	for (j = 0; j < nproc; j++) {
		unsigned dj = delta ? delta[j] : 1;

		bound += dj * pow(rho[j], (double)(k / dj)) / (1.0 - rho[j]);
	}
	{
		/* 1 - G(K) itself, the mass actually left out */
		double slog = 0.0;

		for (j = 0; j < nproc; j++) {
			unsigned dj = delta ? delta[j] : 1;

			slog += log1p(-pow(rho[j], (double)(k / dj)));
		}
		out->tail_mass = -expm1(slog);
	}
	out->eta = eta / (double)Delta;	/* eqs. 21, 24 */
	out->err_bound = bound / (double)Delta;
	out->terms = k;
	return 0;
}

/* A pmf per processor, shared between processors with the same key (so eq. 11 groups them). */
struct pmf_cache {
	struct p004_pmf *d;	/* one per distinct key */
	double *key;		/* the keys, two doubles each */
	size_t n;
};

static struct p004_pmf *
cache_find(struct pmf_cache *c, double k0, double k1)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->key[2 * i] == k0 && c->key[2 * i + 1] == k1)
			return &c->d[i];
	return NULL;
}

static void
cache_free(struct pmf_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		p004_pmf_free(&c->d[i]);
	free(c->d);
	free(c->key);
}

/* Work distributions for S[0..nproc) (eq. 14 or eq. 16), pointers into the cache. */
static int
beta_pmfs(const unsigned *S, size_t nproc, double p, int approx, struct pmf_cache *c,
	  const struct p004_pmf **out, struct err *e)
{
	size_t j;

	c->d = xcalloc(nproc, sizeof *c->d);
	c->key = xcalloc(2 * nproc, sizeof *c->key);
	c->n = 0;
	for (j = 0; j < nproc; j++) {
		struct p004_pmf *d = cache_find(c, S[j], p);

		if (d == NULL) {
			int rc;

			d = &c->d[c->n];
			rc = approx ? p004_pmf_binomial_normal(S[j], p, d, e) :
				      p004_pmf_binomial(S[j], p, d, e);
			if (rc < 0)
				return rc;
			c->key[2 * c->n] = S[j];
			c->key[2 * c->n + 1] = p;
			c->n++;
		}
		out[j] = d;
	}
	return 0;
}

int
p004_eta_bernoulli(const unsigned *S, size_t nproc, double p, int approx,
		   const struct p004_opts *o, struct p004_eta *out, struct err *e)
{
	return p004_eta_bernoulli_ps(S, NULL, NULL, nproc, p, 1, approx, o, out, e);
}

double
p004_eta_eq18(unsigned S, size_t nproc, double p)
{
	double var, mean, norm, C = 0.0, Cprev, eta = 0.0, B;
	unsigned k;

	if (!(p > 0.0 && p < 1.0) || S == 0 || nproc == 0)
		return NAN;
	mean = S * p;
	var = S * p * (1.0 - p);
	norm = 1.0 / sqrt(2.0 * M_PI * var);	/* (2 pi S p (1-p))^(-P/2) taken inside the powers */
	B = S * p;
	C = exp(-mean * mean / (2.0 * var));	/* l = 0 */
	for (k = 1; k <= S; k++) {
		Cprev = C;
		C += exp(-(k - mean) * (k - mean) / (2.0 * var));
		eta += k * (pow(norm * C, (double)nproc) - pow(norm * Cprev, (double)nproc));
	}
	return eta / B;
}

int
p004_eta_bernoulli_ps(const unsigned *S, const double *rho, const unsigned *delta, size_t nproc,
		      double p, unsigned Delta, int approx, const struct p004_opts *o,
		      struct p004_eta *out, struct err *e)
{
	struct pmf_cache cb = { 0 }, cg = { 0 };
	const struct p004_pmf **pb, **pg = NULL;
	struct p004_proc *pr;
	double sumS = 0.0, B;
	size_t j;
	int rc;

	if (S == NULL || out == NULL || nproc == 0 || Delta == 0 || !(p > 0.0 && p <= 1.0))
		return err_set(e, E_USAGE, "eta: needs processors, 0 < p <= 1 and Delta >= 1");
	for (j = 0; j < nproc; j++)
		sumS += S[j];
	if (!(sumS > 0.0))
		return err_set(e, E_USAGE, "eta: no work (all S_j are 0)");
	B = p * sumS / (double)nproc;	/* average work per processor (N_e / P) */
	pb = xcalloc(nproc, sizeof *pb);
	pr = xcalloc(nproc, sizeof *pr);
	rc = beta_pmfs(S, nproc, p, approx, &cb, pb, e);
	if (rc == 0 && rho != NULL) {
		pg = xcalloc(nproc, sizeof *pg);
		cg.d = xcalloc(nproc, sizeof *cg.d);
		cg.key = xcalloc(2 * nproc, sizeof *cg.key);
		for (j = 0; j < nproc && rc == 0; j++) {
			struct p004_pmf *d = cache_find(&cg, rho[j], 0.0);

			if (d == NULL) {
				d = &cg.d[cg.n];
				rc = p004_pmf_gamma_ps(rho[j], opt_tol(o) / (double)nproc, d, e);
				cg.key[2 * cg.n] = rho[j];
				cg.n++;
			}
			pg[j] = d;
		}
	}
	if (rc == 0) {
		for (j = 0; j < nproc; j++) {
			pr[j].beta = pb[j];
			pr[j].gamma = pg ? pg[j] : NULL;
			pr[j].delta = delta ? delta[j] : 1;
		}
		rc = p004_eta_general(pr, nproc, B, Delta, o, out, e);	/* eqs. 15/17, 33/34 */
	}
	cache_free(&cb);
	cache_free(&cg);
	free(pb);
	free(pg);
	free(pr);
	return rc;
}

int
p004_eta_mg1_h2(const struct p004_h2 *h, const unsigned *delta, size_t nproc, unsigned Delta,
		const struct p004_opts *o, struct p004_eta *out, struct p004_inv_report *inv,
		struct err *e)
{
	struct p004_pmf *d;
	struct p004_proc *pr;
	struct p004_opts oo = { 0 };
	size_t j, i, nd = 0;
	int rc = 0;

	if (h == NULL || out == NULL || nproc == 0 || Delta == 0)
		return err_set(e, E_USAGE, "eta: needs processors and Delta >= 1");
	if (o != NULL)
		oo = *o;
	oo.tol = opt_tol(o) / (double)nproc;	/* P tails of tol/P leave less than tol in the max */
	d = xcalloc(nproc, sizeof *d);
	pr = xcalloc(nproc, sizeof *pr);
	if (inv != NULL)
		memset(inv, 0, sizeof *inv);
	for (j = 0; j < nproc && rc == 0; j++) {
		for (i = 0; i < j; i++)
			if (memcmp(&h[i], &h[j], sizeof h[j]) == 0)
				break;
		if (i < j) {
			pr[j].gamma = pr[i].gamma;
		} else {
			struct p004_inv_report r;

			rc = p004_pmf_gamma_mg1_h2(&h[j], &oo, &d[nd], &r, e);
			if (rc < 0)
				break;
			pr[j].gamma = &d[nd++];
			if (inv != NULL && (r.err_bound > inv->err_bound || r.terms > inv->terms))
				*inv = r;
		}
		pr[j].delta = delta ? delta[j] : 1;
	}
	if (rc == 0)
		rc = p004_eta_general(pr, nproc, 1.0, Delta, o, out, e);	/* eqs. 19, 22 */
	for (j = 0; j < nd; j++)
		p004_pmf_free(&d[j]);
	free(d);
	free(pr);
	return rc;
}

/* ---- Selection and cost ----------------------------------------------------------------- */

int
p004_ps_pool_runtime(void *ctx, const size_t *set, size_t n, double *r_ns, struct err *e)
{
	const struct p004_ps_pool *pool = ctx;
	double *rho;
	unsigned *dl;
	struct p004_eta eta;
	size_t j;
	int rc;

	if (pool == NULL || set == NULL || n == 0 || r_ns == NULL || pool->Delta == 0)
		return err_set(e, E_USAGE, "run time: empty processor set");
	rho = xcalloc(n, sizeof *rho);
	dl = xcalloc(n, sizeof *dl);
	for (j = 0; j < n; j++) {
		if (set[j] >= pool->n) {
			free(rho);
			free(dl);
			return err_set(e, E_USAGE, "run time: processor %zu not in the pool", set[j]);
		}
		dl[j] = pool->delta ? pool->delta[set[j]] : pool->Delta;
		rho[j] = p004_rho_hetero(pool->lambda_per_s[set[j]], pool->mu_per_s, dl[j], pool->Delta);
	}
	rc = p004_eta_ps(rho, dl, n, pool->Delta, &pool->opts, &eta, e);	/* eq. 24 */
	if (rc == 0)
		*r_ns = p004_runtime_ns(&pool->it, eta.eta, n);	/* eq. 5 */
	free(rho);
	free(dl);
	return rc;
}

void
p004_pool_keys(const struct p004_ps_pool *pool, int hetero, double *key)
{
	size_t j;

	for (j = 0; j < pool->n; j++) {
		unsigned dj = pool->delta ? pool->delta[j] : pool->Delta;
		double rho = p004_rho_hetero(pool->lambda_per_s[j], pool->mu_per_s, dj, pool->Delta);

		key[j] = hetero ? (double)dj / ((double)pool->Delta * (1.0 - rho)) :
				  pool->lambda_per_s[j];
	}
}

/* indices 0..n-1 sorted by key ascending, ties by index (insertion sort: pools are small) */
static void
order_by_key(size_t n, const double *key, size_t *ord)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		size_t v = ord[i] = i;

		for (j = i; j > 0 && key[ord[j - 1]] > key[v]; j--)
			ord[j] = ord[j - 1];
		ord[j] = v;
	}
}

int
p004_select_fig5(size_t n, const double *key, p004_objective_fn f, void *ctx, int scan_all,
		 size_t *set_out, size_t *nset_out, double *val_out, struct err *e)
{
	size_t *ord, best_n = 1, i;
	double best;
	int rc;

	if (n == 0 || key == NULL || f == NULL || set_out == NULL || nset_out == NULL)
		return err_set(e, E_USAGE, "selection: empty pool");
	ord = xcalloc(n, sizeof *ord);
	order_by_key(n, key, ord);
	rc = f(ctx, ord, 1, &best, e);	/* P <- {lowest key} */
	for (i = 2; rc == 0 && i <= n; i++) {
		double v;

		rc = f(ctx, ord, i, &v, e);	/* P' <- P u {next} */
		if (rc < 0)
			break;
		if (v < best) {
			best = v;
			best_n = i;
		} else if (!scan_all) {
			break;	/* done */
		}
	}
	if (rc == 0) {
		memcpy(set_out, ord, best_n * sizeof *ord);
		*nset_out = best_n;
		if (val_out != NULL)
			*val_out = best;
	}
	free(ord);
	return rc;
}

/* the members of mask, ascending; returns their count */
static size_t
mask_set(unsigned long mask, size_t n, size_t *set)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		if (mask & (1UL << i))
			set[c++] = i;
	return c;
}

int
p004_select_exhaustive(size_t n, p004_objective_fn f, void *ctx, size_t *set_out,
		       size_t *nset_out, double *val_out, struct err *e)
{
	unsigned long mask, best_mask = 0;
	size_t *set;
	double best = INFINITY;
	int rc = 0;

	if (n == 0 || f == NULL || set_out == NULL || nset_out == NULL)
		return err_set(e, E_USAGE, "selection: empty pool");
	if (n > P004_EXHAUSTIVE_MAX)
		return err_set(e, E_LIMIT, "selection: %zu processors is too many to try every "
			       "subset (at most %d)", n, P004_EXHAUSTIVE_MAX);
	set = xcalloc(n, sizeof *set);
	for (mask = 1; mask < (1UL << n); mask++) {
		size_t c = mask_set(mask, n, set);
		double v;

		rc = f(ctx, set, c, &v, e);
		if (rc < 0)
			break;
		if (v < best) {
			best = v;
			best_mask = mask;
		}
	}
	if (rc == 0) {
		*nset_out = mask_set(best_mask, n, set_out);
		if (val_out != NULL)
			*val_out = best;
	}
	free(set);
	return rc;
}

double
p004_cost(double r_ns, double x_per_s, const double *c_per_s, const size_t *set, size_t n)
{
	double c = x_per_s;
	size_t j;

	for (j = 0; j < n; j++)
		c += c_per_s ? c_per_s[set[j]] : 0.0;
	return r_ns * 1e-9 * c;	/* eq. 35 */
}

int
p004_cost_objective(void *ctx, const size_t *set, size_t n, double *c, struct err *e)
{
	const struct p004_cost_ctx *cc = ctx;
	double r;
	int rc;

	if (cc == NULL || cc->runtime == NULL)
		return err_set(e, E_USAGE, "cost: no run-time model");
	rc = cc->runtime(cc->runtime_ctx, set, n, &r, e);
	if (rc == 0)
		*c = p004_cost(r, cc->x_per_s, cc->c_per_s, set, n);
	return rc;
}

/* Both constrained forms: goal_mode 1 minimises use cost with R_P <= lim,
 * goal_mode 0 minimises R_P with use cost <= lim. */
static int
select_constrained(size_t n, const double *key, p004_objective_fn runtime, void *ctx,
		   const double *c_per_s, double lim, enum p004_search how, int goal_mode,
		   size_t *set_out, struct p004_choice *ch, struct err *e)
{
	size_t *set, *ord = NULL, ncand, i, c;
	int rc = 0;

	if (n == 0 || runtime == NULL || c_per_s == NULL || set_out == NULL || ch == NULL)
		return err_set(e, E_USAGE, "selection: empty pool");
	if (how == P004_SEARCH_EXHAUSTIVE && n > P004_EXHAUSTIVE_MAX)
		return err_set(e, E_LIMIT, "selection: %zu processors is too many to try every "
			       "subset (at most %d)", n, P004_EXHAUSTIVE_MAX);
	if (how == P004_SEARCH_PREFIX && key == NULL)
		return err_set(e, E_USAGE, "selection: prefix search needs a key");
	memset(ch, 0, sizeof *ch);
	set = xcalloc(n, sizeof *set);
	if (how == P004_SEARCH_PREFIX) {
		ord = xcalloc(n, sizeof *ord);
		order_by_key(n, key, ord);
		ncand = n;
	} else {
		ncand = ((size_t)1 << n) - 1;
	}
	for (i = 1; i <= ncand; i++) {
		double r, use = 0.0, obj, best;
		size_t j;

		if (ord != NULL) {
			c = i;
			memcpy(set, ord, c * sizeof *set);
		} else {
			c = mask_set(i, n, set);
		}
		rc = runtime(ctx, set, c, &r, e);
		if (rc < 0)
			break;
		for (j = 0; j < c; j++)
			use += c_per_s[set[j]];
		use *= r * 1e-9;
		if (goal_mode ? !(r <= lim) : !(use <= lim))
			continue;
		obj = goal_mode ? use : r;
		best = goal_mode ? ch->use_cost : ch->r_ns;
		if (ch->nset == 0 || obj < best) {
			ch->nset = c;
			ch->r_ns = r;
			ch->use_cost = use;
			memcpy(set_out, set, c * sizeof *set);
		}
	}
	free(set);
	free(ord);
	return rc;
}

int
p004_select_min_cost_goal(size_t n, const double *key, p004_objective_fn runtime, void *ctx,
			  const double *c_per_s, double goal_r_ns, enum p004_search how,
			  size_t *set_out, struct p004_choice *ch, struct err *e)
{
	return select_constrained(n, key, runtime, ctx, c_per_s, goal_r_ns, how, 1, set_out, ch, e);
}

int
p004_select_min_time_budget(size_t n, const double *key, p004_objective_fn runtime, void *ctx,
			    const double *c_per_s, double budget, enum p004_search how,
			    size_t *set_out, struct p004_choice *ch, struct err *e)
{
	return select_constrained(n, key, runtime, ctx, c_per_s, budget, how, 0, set_out, ch, e);
}

/* ---- Iterations from a trace ------------------------------------------------------------ */

struct det_tok {
	int64_t t_ns;		/* message time */
	int64_t tok;		/* dst * 65 + size class */
	int32_t src;
	size_t idx;		/* input position, for a stable order */
};

static int
det_cmp(const void *a, const void *b)
{
	const struct det_tok *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Whether a message takes part in the detection: an unknown sender has no program order to
 * follow, and a rank outside the run is not one of its processors. */
static bool
det_takes_part(const struct prof_msg *m, size_t nranks)
{
	return m->src >= 0 && (size_t)m->src < nranks && (m->dst < 0 || (size_t)m->dst < nranks);
}

/* size class: the bit length of bytes (0 for empty, 1 for 1, 2 for 2..3, ...) */
static int
size_class(uint64_t bytes)
{
	int c = 0;

	while (bytes != 0) {
		c++;
		bytes >>= 1;
	}
	return c;
}

/* Within runs of a sender's messages closer than gap, sort tokens (times stay in order). */
static void
canonical_bursts(struct det_tok *s, size_t n, int64_t gap)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i + 1, a, b;

		while (j < n && s[j].t_ns - s[j - 1].t_ns < gap)
			j++;
		for (a = i + 1; a < j; a++) {	/* insertion sort of tokens in [i, j) */
			int64_t v = s[a].tok;

			for (b = a; b > i && s[b - 1].tok > v; b--)
				s[b].tok = s[b - 1].tok;
			s[b].tok = v;
		}
		i = j;
	}
}

static int
block_eq(const struct det_tok *x, const struct det_tok *y, size_t p)
{
	size_t i;

	for (i = 0; i < p; i++)
		if (x[i].tok != y[i].tok)
			return 0;
	return 1;
}

/* The shortest period p of s (see p004.h); 0 if none. *frac_out: its match fraction. */
static size_t
find_period(const struct det_tok *s, size_t n, double min_match, size_t pmax, double *frac_out)
{
	size_t pm = n / 2, p, k, best_p = 0;
	double *frac, best = -1.0;

	if (pm > pmax)
		pm = pmax;
	while (pm > 1 && (double)pm * (double)n > P004_DETECT_BUDGET)
		pm /= 2;
	if (pm == 0)
		return 0;
	frac = xcalloc(pm + 1, sizeof *frac);
	for (p = 1; p <= pm; p++) {
		size_t cnt = 0;

		for (k = 0; k + p < n; k++)
			cnt += s[k].tok == s[k + p].tok;
		frac[p] = (double)cnt / (double)(n - p);
		if (frac[p] > best)
			best = frac[p];
		if (frac[p] == 1.0)
			break;	/* nothing longer can match better */
	}
	if (best >= min_match) {
		/* a shorter period wins only if it mismatches at most about as often as the best */
		for (p = 1; p <= pm; p++) {
			if (frac[p] >= min_match &&
			    1.0 - frac[p] <= 2.0 * (1.0 - best) + P004_PERIOD_SLACK) {
				best_p = p;
				break;
			}
		}
	}
	if (frac_out != NULL)
		*frac_out = best_p ? frac[best_p] : 0.0;
	free(frac);
	return best_p;
}

/* One sender's periodic structure: block starts (positions into its tokens). */
struct det_sender {
	size_t p;		/* period in this sender's messages */
	size_t iters;		/* repetitions counted */
	size_t *starts;		/* positions of the recognised blocks */
	size_t nstarts;
	double frac;
	int ok;
};

static void
sender_blocks(const struct det_tok *s, size_t n, size_t p, struct det_sender *ds)
{
	size_t k0, pos, i;

	ds->ok = 0;
	for (k0 = 0; k0 + 2 * p <= n; k0++)
		if (block_eq(s + k0, s + k0 + p, p))
			break;
	if (k0 + 2 * p > n)
		return;
	ds->starts = xcalloc(n / p + 1, sizeof *ds->starts);
	ds->nstarts = 0;
	for (pos = k0; pos + p <= n;) {
		if (block_eq(s + pos, s + k0, p)) {
			ds->starts[ds->nstarts++] = pos;
			pos += p;
		} else {
			pos++;	/* resynchronise after an inserted or damaged message */
		}
	}
	/* a gap of g messages between recognised blocks holds about g / p iterations */
	ds->iters = ds->nstarts;
	for (i = 0; i + 1 < ds->nstarts; i++) {
		size_t g = ds->starts[i + 1] - ds->starts[i];

		ds->iters += (g + p / 2) / p - 1;
	}
	ds->p = p;
	ds->ok = ds->nstarts >= 2;
}

/* Add the overlap of [a, b) with each window to acc[w * stride + col]. */
static void
spread(int64_t a, int64_t b, const int64_t *wa, const int64_t *wb, size_t nw, double *acc,
       size_t stride, size_t col)
{
	size_t lo = 0, hi = nw, w;

	if (b <= a)
		return;
	while (lo < hi) {	/* first window ending after a */
		size_t mid = lo + (hi - lo) / 2;

		if (wb[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (w = lo; w < nw && wa[w] < b; w++) {
		int64_t x = a > wa[w] ? a : wa[w], y = b < wb[w] ? b : wb[w];

		if (y > x)
			acc[w * stride + col] += (double)(y - x);
	}
}

struct det_ev {
	int64_t t_ns;
	int d;		/* +1 start, -1 end */
	int serial;	/* the serial rank's phase */
};

static int
ev_cmp(const void *a, const void *b)
{
	const struct det_ev *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	if (x->d != y->d)
		return x->d - y->d;	/* ends first */
	return x->serial - y->serial;	/* then other ranks' starts, then the serial rank's */
}

/* Every message that takes part, as a token (receiver and size class) sorted by sender;
 * *tmin and *tmax span their times. Returns how many. */
static size_t
det_tokens(const struct prof_msg *m, size_t nmsg, size_t nranks, struct det_tok *tk, int64_t *tmin,
	   int64_t *tmax)
{
	size_t nt = 0;

	*tmin = INT64_MAX;
	*tmax = INT64_MIN;
	for (size_t i = 0; i < nmsg; i++) {
		if (!det_takes_part(&m[i], nranks))
			continue;
		tk[nt].t_ns = m[i].t_ns;
		tk[nt].src = m[i].src;
		tk[nt].tok = (int64_t)(m[i].dst >= 0 ? (size_t)m[i].dst : nranks) * 65 +
			     size_class((uint64_t)m[i].bytes);
		tk[nt].idx = i;
		if (m[i].t_ns < *tmin)
			*tmin = m[i].t_ns;
		if (m[i].t_ns > *tmax)
			*tmax = m[i].t_ns;
		nt++;
	}
	if (nt >= 2)
		qsort(tk, nt, sizeof *tk, det_cmp);
	return nt;
}

/* Each sender's period and blocks (ds[rank]); the reference sender is the one with the
 * fewest iterations, then the most messages, among those whose blocks cover at least half of
 * the run (a burst at start-up or shutdown is not the iterations). Returns its rank, or
 * SIZE_MAX when no sender repeats; *bs is then the first of its tokens. */
static size_t
det_reference(struct det_tok *tk, size_t nt, struct det_sender *ds, int64_t span, double min_match,
	      size_t pmax, int64_t gap, size_t *senders, const struct det_tok **bs)
{
	size_t best = SIZE_MAX, bs_n = 0;

	for (size_t s0 = 0, s1; s0 < nt; s0 = s1) {
		struct det_sender *d = &ds[tk[s0].src];
		size_t p;

		for (s1 = s0; s1 < nt && tk[s1].src == tk[s0].src; s1++)
			;
		if (gap > 0)
			canonical_bursts(tk + s0, s1 - s0, gap);
		p = find_period(tk + s0, s1 - s0, min_match, pmax, &d->frac);
		if (p > 0)
			sender_blocks(tk + s0, s1 - s0, p, d);
		if (d->ok) {
			const struct det_tok *x = tk + s0;
			int64_t cover = x[d->starts[d->nstarts - 1] + p - 1].t_ns - x[d->starts[0]].t_ns;

			if ((double)cover < 0.5 * (double)span)
				d->ok = 0;
		}
		if (!d->ok)
			continue;
		(*senders)++;
		if (best == SIZE_MAX || d->iters < ds[best].iters ||
		    (d->iters == ds[best].iters && s1 - s0 > bs_n)) {
			best = (size_t)tk[s0].src;
			*bs = tk + s0;
			bs_n = s1 - s0;
		}
	}
	return best;
}

/* The windows: consecutive recognised blocks of the reference sender d, whose tokens start
 * at bs. Returns how many. */
static size_t
det_windows(const struct det_sender *d, const struct det_tok *bs, int64_t *wa, int64_t *wb)
{
	size_t nw = 0;

	for (size_t i = 0; i + 1 < d->nstarts; i++) {
		size_t a = d->starts[i], c = d->starts[i + 1];

		if (c - a >= 2 * d->p)
			continue;	/* a damaged block in between: not one iteration */
		wa[nw] = bs[a].t_ns;
		wb[nw] = bs[c].t_ns;
		nw++;
	}
	return nw;
}

/* The iterations' span, mean length and messages per iteration over the nw > 0 windows. */
static void
det_window_stats(const struct prof_msg *m, size_t nmsg, size_t nranks, const int64_t *wa,
		 const int64_t *wb, size_t nw, struct p004_detect *out)
{
	double sum_len = 0.0, cnt = 0.0;
	size_t w;

	out->t_begin_ns = wa[0];
	out->t_end_ns = wb[nw - 1];
	for (w = 0; w < nw; w++)
		sum_len += (double)(wb[w] - wa[w]);
	out->t_iter_ns = sum_len / (double)nw;
	for (size_t i = 0; i < nmsg; i++) {	/* every message that takes part */
		if (!det_takes_part(&m[i], nranks))
			continue;
		for (w = 0; w < nw; w++)
			if (m[i].t_ns >= wa[w] && m[i].t_ns < wb[w])
				break;
		cnt += w < nw;
	}
	out->msgs_per_iter = cnt / (double)nw;
}

/* The busy phases within the nw > 0 windows, per iteration: the serial time, the longest
 * rank's parallel time, all ranks' parallel work, the overhead left and the efficiency. */
static void
det_busy(const struct prof_busy *b, size_t nbusy, size_t nranks, int32_t serial, const int64_t *wa,
	 const int64_t *wb, size_t nw, struct p004_detect *out)
{
	size_t stride = nranks + 1;	/* column nranks: the serial rank's solo time */
	double *acc = xcalloc(nw * stride, sizeof *acc);
	struct det_ev *ev = xcalloc(2 * nbusy, sizeof *ev);
	size_t nev = 0;
	double sum_ser = 0.0, sum_max = 0.0, sum_wk = 0.0;
	int other = 0, ser = 0, ser_solo_start = 0;

	for (size_t i = 0; i < nbusy; i++) {
		if (b[i].rank < 0 || (size_t)b[i].rank >= nranks || b[i].t_end_ns <= b[i].t_start_ns)
			continue;
		spread(b[i].t_start_ns, b[i].t_end_ns, wa, wb, nw, acc, stride, (size_t)b[i].rank);
		ev[nev++] = (struct det_ev){ b[i].t_start_ns, +1, b[i].rank == serial };
		ev[nev++] = (struct det_ev){ b[i].t_end_ns, -1, b[i].rank == serial };
	}
	if (serial >= 0) {
		/* Serial time: the serial rank busy and every other rank idle, within a busy phase
		 * of the serial rank that began while all others were idle. The solo end of a phase
		 * begun alongside the others is the last processor finishing its parallel share
		 * (imbalance), not serial work. */
		qsort(ev, nev, sizeof *ev, ev_cmp);
		for (size_t i = 0; i < nev; i++) {
			if (i > 0 && ser > 0 && other == 0 && ser_solo_start)
				spread(ev[i - 1].t_ns, ev[i].t_ns, wa, wb, nw, acc, stride, nranks);
			if (ev[i].serial) {
				if (ev[i].d > 0 && ser == 0)
					ser_solo_start = other == 0;
				ser += ev[i].d;
			} else {
				other += ev[i].d;
			}
		}
	}
	for (size_t w = 0; w < nw; w++) {
		double *row = acc + w * stride, mx = 0.0, wk = 0.0;

		if (serial >= 0 && (size_t)serial < nranks)
			row[serial] -= row[nranks];	/* serial work is not parallel work */
		for (size_t j = 0; j < nranks; j++) {
			wk += row[j];
			if (row[j] > mx)
				mx = row[j];
		}
		sum_ser += row[nranks];
		sum_max += mx;
		sum_wk += wk;
	}
	out->it.t_serial_ns = sum_ser / (double)nw;
	out->t_max_par_ns = sum_max / (double)nw;
	out->it.t_par_wk_ns = sum_wk / (double)nw;
	out->it.t_overhead_ns = out->t_iter_ns - out->it.t_serial_ns - out->t_max_par_ns;
	if (out->it.t_overhead_ns < 0.0)
		out->it.t_overhead_ns = 0.0;	/* overlapping phases of one rank */
	out->eta_measured = out->it.t_par_wk_ns > 0.0 ?
		out->t_max_par_ns * (double)nranks / out->it.t_par_wk_ns : NAN;
	free(acc);
	free(ev);
}

int
p004_detect_iterations(const struct prof_msg *m, size_t nmsg, const struct prof_busy *b,
		       size_t nbusy, size_t nranks, const struct p004_detect_opts *o,
		       struct p004_detect *out, struct err *e)
{
	double min_match = (o && o->min_match > 0.0) ? o->min_match : 0.9;
	size_t pmax = (o && o->max_period > 0) ? o->max_period : 4096;
	int64_t gap = o ? o->burst_gap_ns : 0;
	int32_t serial = (o && (o->serial_rank_set || o->serial_rank > 0)) ? o->serial_rank : -1;
	struct det_tok *tk;
	struct det_sender *ds;
	size_t nt, best, nw = 0;
	int64_t tmin, tmax, *wa, *wb;
	const struct det_tok *bs = NULL;

	if ((m == NULL && nmsg > 0) || (b == NULL && nbusy > 0) || out == NULL || nranks == 0 ||
	    nranks > INT32_MAX)
		return err_set(e, E_USAGE, "iterations: bad arguments");
	memset(out, 0, sizeof *out);
	tk = xcalloc(nmsg ? nmsg : 1, sizeof *tk);
	nt = det_tokens(m, nmsg, nranks, tk, &tmin, &tmax);
	if (nt < 2) {
		free(tk);
		return err_set(e, E_FORMAT, "iterations: fewer than two messages with a known sender");
	}
	ds = xcalloc(nranks, sizeof *ds);
	best = det_reference(tk, nt, ds, tmax - tmin, min_match, pmax, gap, &out->senders, &bs);
	if (best == SIZE_MAX) {
		for (size_t i = 0; i < nranks; i++)
			free(ds[i].starts);
		free(ds);
		free(tk);
		return err_set(e, E_FORMAT, "iterations: no repeating message pattern found "
			       "(%zu messages, match threshold %g)", nt, min_match);
	}
	out->iters = ds[best].iters;
	out->ref_rank = (int32_t)best;
	out->ref_period = ds[best].p;
	out->match = ds[best].frac;
	out->nranks = nranks;
	wa = xcalloc(ds[best].nstarts, sizeof *wa);
	wb = xcalloc(ds[best].nstarts, sizeof *wb);
	nw = det_windows(&ds[best], bs, wa, wb);
	out->windows = nw;
	out->it.iters = (double)out->iters;
	out->t_max_par_ns = out->eta_measured = NAN;
	out->it.t_serial_ns = out->it.t_par_wk_ns = out->it.t_overhead_ns = NAN;
	if (nw > 0)
		det_window_stats(m, nmsg, nranks, wa, wb, nw, out);
	if (nw > 0 && nbusy > 0)
		det_busy(b, nbusy, nranks, serial, wa, wb, nw, out);
	for (size_t i = 0; i < nranks; i++)
		free(ds[i].starts);
	free(ds);
	free(wa);
	free(wb);
	free(tk);
	return 0;
}
