/* p002: paper 002's heterogeneity, parallelism degree, speedup, efficiency and scalability. */
#include "predict/p002.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static bool
weights_ok(const double *w, int m)
{
	if (w == NULL || m < 1)
		return false;
	for (int j = 0; j < m; j++)
		if (!(w[j] > 0 && w[j] <= 1))
			return false;
	return true;
}

int
p002_weights_from_speed(const double *speed, int m, double *w)
{
	double max = 0;

	if (speed == NULL || m < 1)
		return -E_USAGE;
	for (int j = 0; j < m; j++) {
		if (!(speed[j] > 0) || !isfinite(speed[j]))
			return -E_USAGE;
		max = fmax(max, speed[j]);
	}
	for (int j = 0; j < m; j++)
		w[j] = speed[j] / max;
	return 0;
}

int
p002_weights_from_time(const double *t, int m, double *w)
{
	double min = INFINITY;

	if (t == NULL || m < 1)
		return -E_USAGE;
	for (int j = 0; j < m; j++) {
		if (!(t[j] > 0) || !isfinite(t[j]))
			return -E_USAGE;
		min = fmin(min, t[j]);
	}
	for (int j = 0; j < m; j++)
		w[j] = min / t[j];
	return 0;
}

double
p002_heterogeneity(const double *w, int m)
{
	double sum = 0;

	if (!weights_ok(w, m))
		return NAN;
	for (int j = 0; j < m; j++)
		sum += 1 - w[j];
	return sum / m;
}

int
p002_active_ns(const struct prof_busy *busy, size_t n, int m, int64_t t0_ns, int64_t t1_ns,
	       int64_t *act_ns, struct err *e)
{
	struct prof_busy *b;
	size_t k = 0;

	if (m < 1 || t1_ns <= t0_ns || (n > 0 && busy == NULL))
		return err_set(e, E_USAGE, "active time needs ranks and a run interval of positive length");
	b = xmallocarray(n + 1, sizeof *b);
	for (size_t i = 0; i < n; i++) {
		struct prof_busy x = busy[i];

		if (x.rank < 0 || x.rank >= m)
			continue;
		x.t_start_ns = x.t_start_ns > t0_ns ? x.t_start_ns : t0_ns;
		x.t_end_ns = x.t_end_ns < t1_ns ? x.t_end_ns : t1_ns;
		if (x.t_end_ns > x.t_start_ns)
			b[k++] = x;
	}
	qsort(b, k, sizeof *b, prof_busy_cmp);
	memset(act_ns, 0, (size_t)m * sizeof *act_ns);
	for (size_t i = 0; i < k;) {
		int r = b[i].rank;
		int64_t s = b[i].t_start_ns, t = b[i].t_end_ns;

		for (i++; i < k && b[i].rank == r && b[i].t_start_ns <= t; i++)
			if (b[i].t_end_ns > t)
				t = b[i].t_end_ns;
		act_ns[r] += t - s;
	}
	free(b);
	return 0;
}

double
p002_pdeg(const int64_t *act_ns, int m, double t_hn_ns)
{
	double sum = 0;

	if (act_ns == NULL || m < 1 || !(t_hn_ns > 0))
		return NAN;
	for (int j = 0; j < m; j++)
		sum += (double)act_ns[j];
	return sum / t_hn_ns;
}

double
p002_speedup(const double *t_single, int m, double t_hn)
{
	double min = INFINITY;

	if (t_single == NULL || m < 1 || !(t_hn > 0))
		return NAN;
	for (int j = 0; j < m; j++) {
		if (!(t_single[j] > 0))
			return NAN;
		min = fmin(min, t_single[j]);
	}
	return min / t_hn;
}

double
p002_speedup_model(double pdeg, double h)
{
	if (!(pdeg >= 0) || !(h >= 0 && h < 1))
		return NAN;
	return pdeg * (1 - h);
}

double
p002_speedup_work(const double *w, const int64_t *act_ns, int m, double t_hn_ns)
{
	double sum = 0;

	if (!weights_ok(w, m) || act_ns == NULL || !(t_hn_ns > 0))
		return NAN;
	for (int j = 0; j < m; j++)
		sum += w[j] * (double)act_ns[j];
	return sum / t_hn_ns;
}

double
p002_efficiency(const double *w, const double *busy_ns, const double *owner_ns, int m,
		double t_hn_ns)
{
	double num = 0, den = 0;

	if (!weights_ok(w, m) || busy_ns == NULL || !(t_hn_ns > 0))
		return NAN;
	for (int j = 0; j < m; j++) {
		double own = owner_ns ? owner_ns[j] : 0;

		if (!(busy_ns[j] >= 0) || !(own >= 0 && own < t_hn_ns))
			return NAN;
		num += w[j] * busy_ns[j];
		den += (t_hn_ns - own) * w[j];
	}
	return num / den;
}

double
p002_delta(double t_fastest_dedicated, double t_fastest_measured)
{
	if (!(t_fastest_dedicated > 0) || !(t_fastest_measured > 0))
		return NAN;
	return t_fastest_dedicated / t_fastest_measured;
}

double
p002_owner_util(double owner_ns, double t_hn_ns)
{
	if (!(owner_ns >= 0) || !(t_hn_ns > 0) || owner_ns > t_hn_ns)
		return NAN;
	return owner_ns / t_hn_ns;
}

/* sum_j (1 - U_j) W_j: available power units (Property 2). */
static double
avail_units(const double *w, const double *u, int m)
{
	double sum = 0;

	if (!weights_ok(w, m))
		return NAN;
	for (int j = 0; j < m; j++) {
		double uj = u ? u[j] : 0;

		if (!(uj >= 0 && uj < 1))
			return NAN;
		sum += (1 - uj) * w[j];
	}
	return sum;
}

double
p002_efficiency_sp(double sp, double delta, const double *w, const double *u, int m)
{
	if (!(sp >= 0) || !(delta > 0))
		return NAN;
	return sp * delta / avail_units(w, u, m);
}

double
p002_sp_linear(double delta, const double *w, const double *u, int m)
{
	if (!(delta > 0))
		return NAN;
	return avail_units(w, u, m) / delta;
}

double
p002_efficiency_dedicated(double sp, const double *w, int m)
{
	return p002_efficiency_sp(sp, 1, w, NULL, m);
}

double
p002_overhead_ns(double t_hn_ns, double owner_ns, double eff_ns)
{
	if (!(t_hn_ns > 0) || !(owner_ns >= 0) || !(eff_ns >= 0))
		return NAN;
	return t_hn_ns - owner_ns - eff_ns;
}

double
p002_latency_ave(const double *overhead_ns, const double *w, int m)
{
	double sum = 0;

	if (!weights_ok(w, m) || overhead_ns == NULL)
		return NAN;
	for (int j = 0; j < m; j++)
		sum += overhead_ns[j] * w[j];
	return sum;
}

double
p002_latency_unit(const double *overhead_ns, const double *w, int m)
{
	double wsum = 0, l = p002_latency_ave(overhead_ns, w, m);

	if (isnan(l))
		return NAN;
	for (int j = 0; j < m; j++)
		wsum += w[j];
	return l / wsum;
}

double
p002_scalability(double l1_ns, double l2_ns)
{
	if (!(l1_ns >= 0) || !(l2_ns > 0))
		return NAN;
	return l1_ns / l2_ns;
}
