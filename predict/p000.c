/* p000: local, communication and aggregate slowdown on time-shared clusters (paper 000). */
#include "predict/p000.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/p003.h"
#include "predict/run003.h"

/* Poisson-binomial distribution of how many of p independent events happen, event j with
 * probability q[j]: after competitor j, out[i] is P(i of the first j+1 happen). O(p^2). */
static void
count_dist(int p, const double *q, double *out)
{
	out[0] = 1;
	for (int i = 1; i <= p; i++)
		out[i] = 0;
	for (int j = 0; j < p; j++)
		for (int i = j + 1; i >= 0; i--)
			out[i] = out[i] * (1 - q[j]) + (i > 0 ? out[i - 1] * q[j] : 0);
}

int
p000_pp_pm(int p, const double *comp, const double *comm, double *pp, double *pm)
{
	if (p < 0)
		return -E_USAGE;
	for (int j = 0; j < p; j++)
		if (!(comp[j] >= 0 && comp[j] <= 1 && comm[j] >= 0 && comm[j] <= 1 && comp[j] + comm[j] <= 1 + 1e-12))
			return -E_USAGE;
	count_dist(p, comp, pp);
	count_dist(p, comm, pm);
	return 0;
}

double
p000_local_sd(int p, const double *pp, const double *pm, const double *delay)
{
	double sd = 1;

	for (int i = 1; i <= p; i++)
		sd += pp[i] * i + pm[i] * delay[i];
	return sd;
}

void
p000_delay_alphafarm(struct p000_delay *d)
{
	memset(d, 0, sizeof *d);
	/* Section 4, the four formulas under Fig. 2 (DEC Alpha Farm, linear regression):
	 * i = 1: k < 2.37: -0.20 + 0.49 k; k >= 2.37: 1.38 - 0.06 k
	 * i = 2: k < 1.74: -0.50 + 1.37 k; k >= 1.74: 2.48 */
	d->c[0] = (struct p000_curve){ 1, 2.37, -0.20, 0.49, 1.38, -0.06, 0 };
	d->c[1] = (struct p000_curve){ 2, 1.74, -0.50, 1.37, 2.48, 0, 0 };
	d->n = 2;
	d->k_unit_Bps = 8e6;	/* 1 Mword/s with 8-byte words */
	snprintf(d->source, sizeof d->source, "paper 000 Sec. 4, DEC Alpha Farm (Fig. 2)");
}

void
p000_delay_constant(struct p000_delay *d, double value)
{
	memset(d, 0, sizeof *d);
	d->c[0] = (struct p000_curve){ 1, 0, value, 0, value, 0, 0 };
	d->n = 1;
	d->k_unit_Bps = 1e6;
	snprintf(d->source, sizeof d->source, "constant %g", value);
}

double
p000_delay_comm(const struct p000_delay *d, int i, double k_Bps, bool *extrapolated)
{
	const struct p000_curve *c = NULL;
	double k, v;

	if (extrapolated != NULL)
		*extrapolated = false;
	if (i <= 0 || d->n == 0)
		return 0;
	for (int j = 0; j < d->n; j++)
		if (d->c[j].i == i)
			c = &d->c[j];
	if (c == NULL) {
		c = &d->c[d->n - 1];	/* the largest i calibrated */
		if (extrapolated != NULL && c->i < i)
			*extrapolated = true;
	}
	k = isnan(k_Bps) ? 0 : k_Bps / d->k_unit_Bps;
	if (c->k_max > 0 && k > c->k_max)
		k = c->k_max;	/* no faster than its uncapped transfer went */
	v = k < c->k_break ? c->lo_a + c->lo_b * k : c->hi_a + c->hi_b * k;
	return v > 0 ? v : 0;
}

static const char *const delay_cols[] = {	/* v1's columns, all required */
	"i", "k_break", "lo_a", "lo_b", "hi_a", "hi_b", "k_unit_Bps", NULL,
};
static const char *const delay_cols2[] = {	/* v2 adds k_max */
	"i", "k_break", "lo_a", "lo_b", "hi_a", "hi_b", "k_unit_Bps", "k_max", NULL,
};

int
p000_delay_save(const struct p000_delay *d, const char *path, struct err *e)
{
	struct tsv_w t;
	int rc;

	if ((rc = tsv_w_open(&t, path, "delaycomm", 2, delay_cols2, false, true, e)) < 0)
		return rc;
	rc = tsv_w_comment(&t, e, "%s", d->source);
	for (int j = 0; rc == 0 && j < d->n; j++) {
		tsv_w_i64(&t, d->c[j].i);
		tsv_w_f64(&t, d->c[j].k_break);
		tsv_w_f64(&t, d->c[j].lo_a);
		tsv_w_f64(&t, d->c[j].lo_b);
		tsv_w_f64(&t, d->c[j].hi_a);
		tsv_w_f64(&t, d->c[j].hi_b);
		tsv_w_f64(&t, d->k_unit_Bps);
		tsv_w_f64(&t, d->c[j].k_max);
		rc = tsv_w_end(&t, e);
	}
	if (rc < 0) {
		tsv_w_close(&t, NULL);
		return rc;
	}
	return tsv_w_close(&t, e);
}

int
p000_delay_load(struct p000_delay *d, const char *path, struct err *e)
{
	struct tsv_r t;
	int idx[8];
	int rc;

	memset(d, 0, sizeof *d);
	if ((rc = tsv_r_open(&t, path, "delaycomm", 2, delay_cols, e)) < 0)
		return rc;
	for (int j = 0; j < 8; j++)
		idx[j] = tsv_r_col(&t, delay_cols2[j]);	/* k_max: -1 in a v1 file */
	while ((rc = tsv_r_next(&t, e)) == 1) {
		struct p000_curve c = { .k_max = 0 };
		int64_t i;
		double unit;

		if (d->n == P000_MAX_CURVES) {
			rc = err_set(e, E_LIMIT, "'%s': more than %d curves", path, P000_MAX_CURVES);
			break;
		}
		if ((rc = tsv_r_i64(&t, idx[0], &i, e)) < 0 || (rc = tsv_r_f64(&t, idx[1], &c.k_break, e)) < 0 ||
		    (rc = tsv_r_f64(&t, idx[2], &c.lo_a, e)) < 0 || (rc = tsv_r_f64(&t, idx[3], &c.lo_b, e)) < 0 ||
		    (rc = tsv_r_f64(&t, idx[4], &c.hi_a, e)) < 0 || (rc = tsv_r_f64(&t, idx[5], &c.hi_b, e)) < 0 ||
		    (rc = tsv_r_f64(&t, idx[6], &unit, e)) < 0 ||
		    (idx[7] >= 0 && (rc = tsv_r_f64(&t, idx[7], &c.k_max, e)) < 0))
			break;
		if (i < 1 || i > 1000 || (d->n > 0 && i <= d->c[d->n - 1].i) || !isfinite(c.k_break) ||
		    !isfinite(c.lo_a) || !isfinite(c.lo_b) || !isfinite(c.hi_a) || !isfinite(c.hi_b) ||
		    !(c.k_max >= 0) || !isfinite(c.k_max) || !(unit > 0) || !isfinite(unit) || (d->n > 0 && unit != d->k_unit_Bps)) {
			rc = err_set(e, E_FORMAT, "'%s' line %ld: not a delay_comm curve (i rising from 1, "
				     "finite numbers, k_max >= 0, one k_unit_Bps)", path, t.line_no);
			break;
		}
		c.i = (int)i;
		d->k_unit_Bps = unit;
		d->c[d->n++] = c;
	}
	tsv_r_close(&t);
	if (rc < 0)
		return rc;
	if (d->n == 0)
		return err_set(e, E_FORMAT, "'%s' has no curve", path);
	snprintf(d->source, sizeof d->source, "calibration '%.100s'", path);
	return 0;
}

/* Least squares line through n points; the squared error. */
static double
line_fit(int n, const double *x, const double *y, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, sse = 0, den;

	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	den = n * sxx - sx * sx;
	if (fabs(den) < 1e-300) {	/* all x equal: a constant */
		*b = 0;
		*a = sy / n;
	} else {
		*b = (n * sxy - sx * sy) / den;
		*a = (sy - *b * sx) / n;
	}
	for (int i = 0; i < n; i++) {
		double r = y[i] - (*a + *b * x[i]);

		sse += r * r;
	}
	return sse;
}

struct kd {
	double k, d;
};

static int
cmp_kd(const void *a, const void *b)
{
	const struct kd *x = a, *y = b;

	return (x->k > y->k) - (x->k < y->k);
}

int
p000_fit_two_piece(int n, const double *k, const double *delay, struct p000_curve *out)
{
	struct kd *v;
	double *x, *y;
	double best = INFINITY;

	if (n < 4)
		return -E_USAGE;
	v = xmallocarray((size_t)n, sizeof *v);
	x = xmallocarray((size_t)n, sizeof *x);
	y = xmallocarray((size_t)n, sizeof *y);
	for (int i = 0; i < n; i++)
		v[i] = (struct kd){ k[i], delay[i] };
	qsort(v, (size_t)n, sizeof *v, cmp_kd);
	for (int i = 0; i < n; i++) {
		x[i] = v[i].k;
		y[i] = v[i].d;
	}
	for (int m = 2; m <= n - 2; m++) {	/* first m points below the break */
		double la, lb, ha, hb, sse;

		if (x[m - 1] == x[m])
			continue;
		sse = line_fit(m, x, y, &la, &lb) + line_fit(n - m, x + m, y + m, &ha, &hb);
		if (sse < best) {
			best = sse;
			out->k_break = (x[m - 1] + x[m]) / 2;
			out->lo_a = la;
			out->lo_b = lb;
			out->hi_a = ha;
			out->hi_b = hb;
		}
	}
	free(v);
	free(x);
	free(y);
	if (isinf(best)) {	/* all k equal: one constant */
		double a, b;

		line_fit(n, k, delay, &a, &b);
		*out = (struct p000_curve){ out->i, k[0], a, 0, a, 0, out->k_max };
	}
	return 0;
}

double
p000_comm_sd(double ib_Bps, double cb_Bps)
{
	return ib_Bps / cb_Bps;
}

double
p000_sd_load_dependent(int n, const double *w, const double *sd)
{
	double ded = 0, cur = 0;	/* aggregate capacity dedicated, under contention */

	for (int a = 0; a < n; a++) {
		ded += w[a];
		cur += w[a] / sd[a];
	}
	return ded / cur;
}

double
p000_extra_work(double f, int n)
{
	return f * n - 1;
}

double
p000_sd_constraint(int n, const double *w, const double *sd, const double *f1, const double *f2)
{
	double num = 0, den = 0;

	for (int a = 0; a < n; a++) {
		double x = (1 + p000_extra_work(f1[a], n)) * sd[a] / w[a];
		double y = (1 + p000_extra_work(f2[a], n)) / w[a];

		if (x > num)
			num = x;
		if (y > den)
			den = y;
	}
	return num / den;
}

double
p000_sd_eq12(int n, const double *w, const double *sd, const double *f)
{
	double num = 0;

	for (int a = 0; a < n; a++) {
		double x = (1 + p000_extra_work(f[a], n)) * sd[a] / w[a];

		if (x > num)
			num = x;
	}
	return num;
}

double
p000_sd_uniform_ded(int n, const double *w, const double *sd, const double *f)
{
	double den = 0;

	for (int a = 0; a < n; a++)
		if (1 / w[a] > den)
			den = 1 / w[a];
	return p000_sd_eq12(n, w, sd, f) / den;
}

int
p000_weights_from_times(int n, const double *t, double *w)
{
	double ts = 0;	/* the slowest node's time */

	for (int a = 0; a < n; a++) {
		if (!(t[a] > 0) || !isfinite(t[a]))
			return -E_USAGE;
		if (t[a] > ts)
			ts = t[a];
	}
	for (int a = 0; a < n; a++)
		w[a] = ts / t[a];
	return 0;
}

int
p000_fractions_from_busy(int n, const double *busy, const double *w, double *f)
{
	double sum = 0;

	for (int a = 0; a < n; a++) {
		if (!(busy[a] >= 0) || !(w[a] > 0))
			return -E_USAGE;
		sum += busy[a] * w[a];
	}
	if (!(sum > 0))
		return -E_USAGE;
	for (int a = 0; a < n; a++)
		f[a] = busy[a] * w[a] / sum;
	return 0;
}

/* ---- a scenario node's slowdown and the curves a scenario names ---- */

double
p000_node_sd(const struct scen_node *n, const struct p000_delay *d, bool *extrap)
{
	double comp[1000 + SCEN_MAX_COMM], comm[1000 + SCEN_MAX_COMM];
	double pp[1001 + SCEN_MAX_COMM], pm[1001 + SCEN_MAX_COMM], delay[1001 + SCEN_MAX_COMM];
	int p = 0;
	double sd;

	*extrap = false;
	if (n == NULL)
		return 1;
	for (int j = 0; j < n->cpu_procs; j++, p++) {	/* CPU-bound: always computing */
		comp[p] = 1;
		comm[p] = 0;
	}
	if (!isnan(n->load_avg) && n->load_avg > 0) {	/* (not with cpu_procs; at most 1000) */
		double whole = floor(n->load_avg);	/* competitors always there */

		for (int j = 0; j < (int)whole; j++, p++) {
			comp[p] = 1;
			comm[p] = 0;
		}
		if (n->load_avg > whole) {	/* and one more, computing the rest of the time */
			comp[p] = n->load_avg - whole;
			comm[p++] = 0;
		}
	}
	for (int j = 0; j < n->ncomm; j++, p++) {
		comp[p] = n->comm[j].comp_frac;
		comm[p] = n->comm[j].comm_frac;
	}
	if (p000_pp_pm(p, comp, comm, pp, pm) < 0)
		BUG("scenario fractions passed validation but not p000_pp_pm");
	delay[0] = 0;
	for (int i = 1; i <= p; i++) {
		bool x;

		delay[i] = p000_delay_comm(d, i, n->comm_bw_Bps, &x);
		if (x && pm[i] > 0)
			*extrap = true;
	}
	sd = p000_local_sd(p, pp, pm, delay);
	if (!isnan(n->capacity))
		sd /= n->capacity;	/* a CPU share c runs everything 1/c times slower */
	return sd;
}

int
p000_scenario_curves(const struct scen *s, struct p000_delay *out, struct err *e)
{
	struct p000_delay d;

	switch (s->delay) {
	case SCEN_DELAY_ALPHAFARM:
		p000_delay_alphafarm(&d);
		break;
	case SCEN_DELAY_NONDEDICATED:
		p000_delay_constant(&d, 0.25);
		snprintf(d.source, sizeof d.source, "paper 000 Sec. 4.2, constant 0.25");
		break;
	case SCEN_DELAY_CONSTANT:
		p000_delay_constant(&d, s->delay_const);
		break;
	case SCEN_DELAY_FILE: {
		char *path;
		int rc;

		if (s->delay_file[0] == '/' || strchr(s->path, '/') == NULL) {
			path = xstrdup(s->delay_file);
		} else {	/* relative to the scenario file */
			const char *slash = strrchr(s->path, '/');

			path = xasprintf("%.*s/%s", (int)(slash - s->path), s->path, s->delay_file);
		}
		rc = p000_delay_load(&d, path, e);
		free(path);
		if (rc < 0)
			return rc;
		break;
	}
	}
	*out = d;
	return 0;
}
