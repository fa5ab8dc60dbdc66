/* numeric: FFT and numerical inversion of generating functions (Cauchy contour / Abate-Whitt). */
#ifndef PREDICT_NUMERIC_H
#define PREDICT_NUMERIC_H

#include <complex.h>
#include <stddef.h>

#include "lib/err.h"

/* In-place radix-2 discrete Fourier transform of a[0..n): A_k = sum_j a_j e^{-2 pi i jk/n}
 * (inverse != 0: e^{+2 pi i jk/n}, no 1/n scaling). n must be a power of two >= 1.
 * Returns 0, or -E_USAGE when n is not a power of two. */
int num_fft(double complex *a, size_t n, int inverse) WUR;

/* A generating function G(z) = sum_k g_k z^k, analytic on |z| <= r < 1; evaluated at z. */
typedef double complex (*num_gf_fn)(void *ctx, double complex z);

/* What an inversion did and how far it can be off. */
struct num_inv_info {
	double r;		/* radius of the contour |z| = r */
	size_t m;		/* points on the contour (a power of two) */
	double alias_bound;	/* bound on the aliasing error of every coefficient: g_max r^m / (1 - r^m) */
	double round_bound;	/* estimated round-off bound of the last coefficient:
				 * 4 eps (log2 m + 1) max|G| r^-(n-1) */
};

/* The first n coefficients g_0..g_{n-1} of G by the trapezoidal rule on the Cauchy integral
 * g_k = 1/(2 pi i) \oint G(z) z^{-k-1} dz over |z| = r with m = oversample * n points (rounded
 * up to a power of two) and r = alias_eps^(1/m), so that the aliasing error
 * sum_{l>=1} g_{k+lm} r^{lm} is at most g_max r^m / (1 - r^m) ~ g_max alias_eps
 * (Abate & Whitt 1992, "Numerical inversion of probability generating functions").
 * g_max bounds |g_k| for all k (1 for probabilities). Round-off grows like r^-k =
 * alias_eps^(-k/m) <= alias_eps^(-1/oversample): oversample 16 with alias_eps 1e-14 loses
 * under one digit. coef[0..n) is written by the caller-owned array; info may be NULL.
 * Returns 0, or -E_USAGE for bad arguments, -E_LIMIT when m would exceed 2^26. */
int num_gf_invert(num_gf_fn g, void *ctx, size_t n, double alias_eps, unsigned oversample,
		  double g_max, double *coef, struct num_inv_info *info, struct err *e) WUR;

#endif
