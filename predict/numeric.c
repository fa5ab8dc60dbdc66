/* numeric: FFT and numerical inversion of generating functions (Cauchy contour / Abate-Whitt). */
#include "predict/numeric.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/xalloc.h"

#define NUM_M_MAX ((size_t)1 << 26)	/* largest contour: 1 GiB of complex doubles */

int
num_fft(double complex *a, size_t n, int inverse)
{
	size_t i, j, len;
	double sign = inverse ? 1.0 : -1.0;

	if (n == 0 || (n & (n - 1)) != 0)
		return -E_USAGE;
	/* bit-reversal permutation */
	for (i = 1, j = 0; i < n; i++) {
		size_t bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double complex t = a[i];

			a[i] = a[j];
			a[j] = t;
		}
	}
	for (len = 2; len <= n; len <<= 1) {
		size_t half = len / 2, k;

		for (k = 0; k < half; k++) {
			/* twiddles computed directly (not by repeated products) to keep round-off
			 * at O(eps log n) */
			double ang = sign * 2.0 * M_PI * (double)k / (double)len;
			double complex w = cos(ang) + sin(ang) * I;

			for (i = k; i < n; i += len) {
				double complex u = a[i], v = a[i + half] * w;

				a[i] = u + v;
				a[i + half] = u - v;
			}
		}
	}
	return 0;
}

int
num_gf_invert(num_gf_fn g, void *ctx, size_t n, double alias_eps, unsigned oversample,
	      double g_max, double *coef, struct num_inv_info *info, struct err *e)
{
	size_t m = 1, need, j, k;
	double r, rm, gabs_max = 0.0, rk;
	double complex *a;

	if (g == NULL || coef == NULL || n == 0 || oversample == 0 || !(alias_eps > 0.0) ||
	    !(alias_eps < 1.0) || !(g_max > 0.0))
		return err_set(e, E_USAGE, "gf inversion: bad arguments");
	if (!size_mul_ok(n, oversample, &need) || need > NUM_M_MAX)
		return err_set(e, E_LIMIT, "gf inversion: %zu coefficients need too large a contour", n);
	while (m < need)
		m <<= 1;
	r = pow(alias_eps, 1.0 / (double)m);
	rm = pow(r, (double)m);
	a = xmallocarray(m, sizeof *a);
	for (j = 0; j < m; j++) {
		double ang = 2.0 * M_PI * (double)j / (double)m;
		double complex z = r * (cos(ang) + sin(ang) * I);

		a[j] = g(ctx, z);
		if (cabs(a[j]) > gabs_max)
			gabs_max = cabs(a[j]);
	}
	if (num_fft(a, m, 0) < 0) {
		free(a);
		return err_set(e, E_USAGE, "gf inversion: contour size %zu", m);	/* cannot happen */
	}
	/* g_k = Re(A_k) / (m r^k); r^-k by repeated division keeps it exact enough and cheap */
	rk = 1.0;
	for (k = 0; k < n; k++) {
		coef[k] = creal(a[k]) / ((double)m * rk);
		rk *= r;
	}
	if (info != NULL) {
		info->r = r;
		info->m = m;
		info->alias_bound = g_max * rm / (1.0 - rm);
		info->round_bound = 4.0 * DBL_EPSILON * (log2((double)m) + 1.0) * gabs_max /
				    pow(r, (double)(n - 1));
	}
	free(a);
	return 0;
}
