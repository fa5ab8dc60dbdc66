/* p002: Zhang & Yan, "Modeling and Characterizing Parallel Computing Performance on
 * Heterogeneous Networks of Workstations": power weights (eqs. 1, 2), heterogeneity H
 * (definition 2, eq. 4), parallelism degree P_deg (eq. 5), speedup (definition 1,
 * property 1, eq. 6), efficiency (definition 3, eqs. 10-14) and the latency-based
 * scalability (eqs. 15-17).
 *
 * m workstations are indexed 0..m-1. Times are ns (int64 where they come from a trace,
 * double in formulas); speeds in any one unit (operations/s); weights, H, P_deg, speedup,
 * efficiency and scalability are dimensionless. Functions return NAN for inputs outside
 * their domain (m < 1, a non-positive time or speed, weights outside (0, 1]).
 * See docs/models-001-002.md. */
#ifndef PREDICT_P002_H
#define PREDICT_P002_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/profile.h"

/* Eq. 1: W_i = S_i / max_j S_j, written to w[0..m-1]. Returns 0, or -E_USAGE (w untouched)
 * when m < 1 or a speed is not > 0 and finite. */
int p002_weights_from_speed(const double *speed, int m, double *w) WUR;
/* Eq. 2: W_i = min_j T(A, M_j) / T(A, M_i) from single-workstation run times (any one unit). */
int p002_weights_from_time(const double *t, int m, double *w) WUR;

/* Definition 2, eq. 4: H = sum_j (1 - W_j) / m. */
double p002_heterogeneity(const double *w, int m);

/* Per-rank active time for eq. 5: the length of the union of rank r's busy intervals (the
 * profile's busy phases, any order; run_ns unused) clipped to [t0_ns, t1_ns), written to
 * act_ns[r] for r in 0..m-1 (overlapping intervals of one rank, e.g. two threads, count once;
 * intervals of other ranks are ignored). Returns 0 or -E_USAGE (m < 1 or t1_ns <= t0_ns). */
int p002_active_ns(const struct prof_busy *busy, size_t n, int m, int64_t t0_ns, int64_t t1_ns,
		   int64_t *act_ns, struct err *e) WUR;

/* Eq. 5: P_deg = sum_j T_j^act / T(A, HN), with T(A, HN) = t_hn_ns the run's wall time. */
double p002_pdeg(const int64_t *act_ns, int m, double t_hn_ns);

/* Definition 1, eq. 1 of Section 3: SP = min_j T(A, M_j) / T(A, HN); t_single holds each
 * workstation's run time of the whole program alone, t_hn the parallel run time (same unit). */
double p002_speedup(const double *t_single, int m, double t_hn);
/* Property 1, eq. 6: SP = P_deg (1 - H). Exact when sum_j W_j T_j^act equals
 * (sum_j W_j)(sum_j T_j^act) / m, e.g. equal active times; otherwise see p002_speedup_work. */
double p002_speedup_model(double pdeg, double h);
/* The identity behind Property 1 without its averaging step: when workstation j works at its
 * dedicated speed during its active time, SP = sum_j W_j T_j^act / T(A, HN). */
double p002_speedup_work(const double *w, const int64_t *act_ns, int m, double t_hn_ns);

/* Definition 3, eq. 10: E = sum_j W_j busy_j / sum_j (T(A, HN) - T_j^owner) W_j, where
 * busy_j = |A_j| / S_j is the CPU time workstation j spent on its task and owner_j the time it
 * ran its owner's workload (ns; owner may be NULL for a dedicated system). */
double p002_efficiency(const double *w, const double *busy_ns, const double *owner_ns, int m,
		       double t_hn_ns);
/* Eq. 11: Delta_A = (|A| / max_j S_j) / min_j T(A, M_j): the fastest dedicated time over the
 * fastest measured (non-dedicated) single-workstation time; <= 1. */
double p002_delta(double t_fastest_dedicated, double t_fastest_measured);
/* Owner utilisation U_j = T_j^owner / T(A, HN) (Property 2). */
double p002_owner_util(double owner_ns, double t_hn_ns);
/* Property 2, eq. 12: E = SP Delta_A / sum_j (1 - U_j) W_j (u may be NULL: all 0). */
double p002_efficiency_sp(double sp, double delta, const double *w, const double *u, int m);
/* Eq. 13: the speedup at which E = 1, sum_j (1 - U_j) W_j / Delta_A; a larger SP is superlinear. */
double p002_sp_linear(double delta, const double *w, const double *u, int m);
/* Eq. 14 (dedicated: U_j = 0, Delta_A = 1): E = SP / sum_j W_j. */
double p002_efficiency_dedicated(double sp, const double *w, int m);

/* overhead(i) = T(A, HN) - T_i^owner - T_eff(A_i, M_i) (Section 3.2), ns. */
double p002_overhead_ns(double t_hn_ns, double owner_ns, double eff_ns);
/* Eq. 15: L_ave = sum_j overhead(j) W_j, ns. */
double p002_latency_ave(const double *overhead_ns, const double *w, int m);
/* Eq. 16: L = L_ave / sum_j W_j, the average latency per power unit, ns. */
double p002_latency_unit(const double *overhead_ns, const double *w, int m);
/* Eq. 17: scale_e = L_e(A(I1), HN1) / L_e(A(I2), HN2) from the two average latency units of
 * runs with the same efficiency e (the caller checks that the efficiencies match). */
double p002_scalability(double l1_ns, double l2_ns);

#endif
