/* p000: Figueira & Berman, "A Slowdown Model for Applications Executing on Time-Shared
 * Clusters of Workstations" (IEEE TPDS): local slowdown (eq. 2) with pp/pm by dynamic
 * programming and two-piece linear delay_comm curves, communication slowdown (eq. 3),
 * aggregate slowdown for load-dependent (eq. 5) and constraint-based partitioning
 * (eqs. 7-12), node weights and work fractions.
 *
 * Slowdowns are unitless factors (time under contention / dedicated time). Bandwidths are
 * bytes/s unless a name says otherwise. The numeric functions are pure. */
#ifndef PREDICT_P000_H
#define PREDICT_P000_H

#include <stdbool.h>

#include "lib/err.h"
#include "predict/models.h"

#define P000_MAX_CURVES 16	/* delay_comm curves (i = 1 .. 16) */

/* pp[i] (i = 0..p): probability that exactly i of the p competing applications compute at
 * the same time; pm[i]: that exactly i communicate (Section 4). Competitor j computes a
 * fraction comp[j] and communicates a fraction comm[j] of its time (comp + comm <= 1; the
 * rest it neither), independently of the others. Dynamic programming over the competitors,
 * O(p^2). pp and pm hold p + 1 entries each. Returns 0, or -E_USAGE for a fraction outside
 * [0, 1] or comp + comm > 1. */
int p000_pp_pm(int p, const double *comp, const double *comm, double *pp, double *pm) WUR;

/* Eq. 2: sd_a = 1 + sum_{i=1}^{p} pp[i] * i + sum_{i=1}^{p} pm[i] * delay[i]
 * (delay[i] = delay_comm^{i,k}; delay[0] is not used). Unitless, >= 1 when delays >= 0. */
double p000_local_sd(int p, const double *pp, const double *pm, const double *delay);

/* One two-piece linear delay_comm curve for i communicating competitors (Section 4, Fig. 2):
 * for k < k_break: lo_a + lo_b * k, else hi_a + hi_b * k, with k in units of k_unit_Bps.
 * A measured curve holds up to the largest k it was measured at: past it, its value there. */
struct p000_curve {
	int i;			/* communicating competitors */
	double k_break;		/* break point, in k units */
	double lo_a, lo_b;	/* intercept and slope below it */
	double hi_a, hi_b;	/* intercept and slope from it on */
	double k_max;		/* the largest k measured, in k units (a calibration's uncapped
				 * transfer: its own rate); 0: no limit (the paper's formulas) */
};
struct p000_delay {
	int n;					/* curves, sorted by i */
	struct p000_curve c[P000_MAX_CURVES];
	double k_unit_Bps;			/* bytes/s per unit of k */
	char source[128];			/* where the curves come from */
};
/* The paper's DEC Alpha Farm curves (Section 4, the formulas under Fig. 2), k in Mwords/s;
 * the word is taken as 8 bytes (64-bit Alpha). */
void p000_delay_alphafarm(struct p000_delay *d);
/* One value for every i and k (Section 4.2: 0.25 on the nondedicated-network cluster). */
void p000_delay_constant(struct p000_delay *d, double value);
/* delay_comm^{i,k} for k_Bps bytes/s: the curve for i, or for the largest i calibrated when i
 * is larger (*extrapolated set when non-NULL). k past the curve's k_max counts as k_max: a
 * transfer runs no faster than it did on an uncapped link, where its CPU was the limit, and
 * a fitted line says nothing beyond its points. Clamped at 0: a competitor cannot speed the
 * application up (the Alpha Farm's i = 1 line is negative below 0.41 Mwords/s). */
double p000_delay_comm(const struct p000_delay *d, int i, double k_Bps, bool *extrapolated);
/* Read and write calibration files (format "delaycomm" v2, docs/formats.md; v1, without
 * k_max, is read with no limit). */
int p000_delay_load(struct p000_delay *d, const char *path, struct err *e) WUR;
int p000_delay_save(const struct p000_delay *d, const char *path, struct err *e) WUR;

/* Two-piece linear regression (how the paper obtains each curve): least squares on each
 * side of every break point between consecutive distinct k (each side at least 2 points),
 * the break with the least total squared error wins; the break is put midway between the
 * two points. k in the curve's units. Returns 0, or -E_USAGE with fewer than 4 points. */
int p000_fit_two_piece(int n, const double *k, const double *delay, struct p000_curve *out) WUR;

/* Eq. 3: sd_{a->b} = ib / cb (dedicated over current available bandwidth). */
double p000_comm_sd(double ib_Bps, double cb_Bps);

/* Eq. 5 (load-dependent partitioning): sum w_a / sum (w_a / sd_a). */
double p000_sd_load_dependent(int n, const double *w, const double *sd);
/* Eq. 7: ew_a = f_a * n - 1 (extra work relative to a uniform partitioning). */
double p000_extra_work(double f, int n);
/* Eq. 9: max_a (1 + ew_{a,1}) sd_a / w_a  /  max_a (1 + ew_{a,2}) / w_a, f1 the partitioning
 * under contention and f2 the dedicated one; with f1 == f2 this is eq. 8. */
double p000_sd_constraint(int n, const double *w, const double *sd, const double *f1, const double *f2);
/* Eq. 11 (dedicated time measured with a uniform partitioning):
 * max_a (1 + ew_a) sd_a / w_a  /  max_a 1 / w_a. */
double p000_sd_uniform_ded(int n, const double *w, const double *sd, const double *f);
/* Eq. 12: max_a (1 + ew_a) sd_a / w_a; equals eq. 11 when the slowest node has w = 1. */
double p000_sd_eq12(int n, const double *w, const double *sd, const double *f);

/* Node weights (Section 6): w_a = t_s / t_a, t_s the longest time, from a serial benchmark's
 * time on each node, or from each node's busy time in a run where every node had the same
 * work. Returns 0, or -E_USAGE when a time is not positive. */
int p000_weights_from_times(int n, const double *t, double *w) WUR;
/* Work fractions from a run: node a did w_a * busy_a work units (speed times busy time);
 * f_a is its share. Returns 0, or -E_USAGE when nothing was busy. */
int p000_fractions_from_busy(int n, const double *busy, const double *w, double *f) WUR;

/* The delay_comm curves the scenario names (its file loaded, relative to the scenario).
 * Returns 0, or negative with e set when the file cannot be read. */
int p000_scenario_curves(const struct scen *s, struct p000_delay *out, struct err *e) WUR;
/* Eq. 2 for one node section: its CPU-bound and communicating competitors with the curves
 * d, divided by its capacity; 1 for NULL. A load average L (instead of cpu_procs) is
 * floor(L) competitors always computing and one more computing L - floor(L) of the time
 * (paper 003's reading, docs/predict.md), so eq. 2 gives 1 + L. *extrap: a curve was extrapolated past its last
 * competitor count. */
double p000_node_sd(const struct scen_node *n, const struct p000_delay *d, bool *extrap);

#endif
