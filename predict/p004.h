/* p004: the synchronous-iterative run-time model of Peterson & Chamberlain (1996), "Parallel
 * application performance in a shared resource environment": run time R_P (eq. 5), load
 * imbalance eta by order statistics (eqs. 6-11), application imbalance from Bernoulli work
 * (eqs. 13-18), background load as processor sharing (eqs. 19-24) and as M/G/1 with
 * two-phase hyperexponential service (eqs. 25-29), both combined (eqs. 30-34), processor
 * selection (Figure 5 and the greedy heuristic), the policy cost C_P (eq. 35) and its two
 * constrained forms; plus detection of the iteration structure of a traced run.
 *
 * Units: times are nanoseconds (double), rates per second, costs per second of use.
 * Work, background task counts and the speed factors delta_j, Delta are the paper's integers.
 * Infinite sums are truncated where the probability mass left out is below a tolerance
 * (struct p004_opts.tol, default 1e-12); every result reports what it left out.
 * docs/model-004.md gives the equations as implemented and the reconstructed formulas. */
#ifndef PREDICT_P004_H
#define PREDICT_P004_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "predict/profile.h"

#define P004_TOL_DEFAULT 1e-12			/* mass left out of infinite sums */
#define P004_SUPPORT_MAX_DEFAULT ((size_t)1 << 22)	/* values of eta_j held (32 MiB each) */
#define P004_QLEN_MAX_DEFAULT ((size_t)1 << 16)	/* queue lengths an M/G/1 inversion may need */

/* Options for the eta computations; pass NULL for the defaults. */
struct p004_opts {
	double tol;		/* truncate an infinite sum when the mass left is below this; 0 = default */
	size_t support_max;	/* cap on the largest value of eta_j = beta_j gamma_j delta_j; 0 = default */
	size_t qlen_max;	/* cap on queue lengths held for an M/G/1 distribution; 0 = default */
};

/* ---- Eq. 5: run time ---------------------------------------------------------------- */

/* The per-iteration figures of eq. 5, measured (p004_detect_iterations) or given. */
struct p004_iter {
	double iters;		/* I: number of iterations */
	double t_serial_ns;	/* t_serial: mean serial time per iteration, ns */
	double t_par_wk_ns;	/* t_PAR_WK (eq. 3): parallel work per iteration summed over the
				 * processors, ns on the baseline processor */
	double t_overhead_ns;	/* t_par_overhead: mean overhead (communication, barrier) per iteration, ns */
};

/* Eq. 5: R_P = I (t_serial + eta t_PAR_WK / P + t_par_overhead), in ns. nproc = P >= 1.
 * Returns NAN when nproc is 0. */
double p004_runtime_ns(const struct p004_iter *it, double eta, size_t nproc);

/* ---- Discrete distributions ---------------------------------------------------------- */

/* A distribution on the integers 0..n-1: p[v] = Prob{X = v}. tail is the mass above n-1
 * that was left out (0 when the support is finite). Approximations (eq. 16) may hold weights
 * that do not sum to 1. Owned by whoever filled it; release with p004_pmf_free. */
struct p004_pmf {
	double *p;		/* n weights */
	size_t n;
	double tail;		/* probability mass beyond n-1 left out */
};

void p004_pmf_free(struct p004_pmf *d);		/* frees p, zeroes d; accepts NULL */

/* Eq. 14: beta_j ~ Binomial(S, p), the events of S objects each with an event with
 * probability p per iteration. Fills d (values 0..S). Returns 0 or -E_USAGE. */
int p004_pmf_binomial(unsigned S, double p, struct p004_pmf *d, struct err *e) WUR;

/* Eq. 16 (DeMoivre-Laplace): weights N(l; S p, S p (1 - p)) density at l = 0..S, not
 * renormalised (as the paper's eqs. 17, 18, 34 use them). Needs 0 < p < 1. */
int p004_pmf_binomial_normal(unsigned S, double p, struct p004_pmf *d, struct err *e) WUR;

/* Eq. 20: background slowdown gamma = k + 1 with probability (1 - rho) rho^k (processor
 * sharing, Coxian service, queue length Q_k = (1 - rho) rho^k). Fills d with values
 * 1..K where rho^K < tol; d->tail = rho^K. Needs 0 <= rho < 1. */
int p004_pmf_gamma_ps(double rho, double tol, struct p004_pmf *d, struct err *e) WUR;

/* Background jobs with two-phase hyperexponential service (eq. 28): with probability pi_a
 * rate mu_a_per_s, else rate mu_b_per_s; Poisson arrivals at lambda_per_s. */
struct p004_h2 {
	double lambda_per_s;	/* arrival rate of background jobs, 1/s */
	double pi_a;		/* probability of a type-a job (pi_b = 1 - pi_a) */
	double mu_a_per_s;	/* service rate of type-a jobs, 1/s */
	double mu_b_per_s;	/* service rate of type-b jobs, 1/s */
};

/* rho = lambda (pi_a / mu_a + pi_b / mu_b); NAN for bad parameters. */
double p004_h2_rho(const struct p004_h2 *h);
/* Eq. 29: the Laplace-Stieltjes transform B*(s) of the service time (real s >= 0). */
double p004_h2_lst(const struct p004_h2 *h, double s);

/* How an M/G/1 queue-length distribution was obtained. */
struct p004_inv_report {
	size_t terms;		/* queue lengths 0..terms-1 kept */
	double tail;		/* Prob{N >= terms}: mass left out (< tol) */
	double r;		/* contour radius */
	size_t m;		/* contour points */
	double err_bound;	/* bound on the error of every tail probability Prob{N > k}:
				 * aliasing + estimated round-off (each q_k is off by at most twice this) */
	double mean_qlen;	/* E[N] from the transform (Pollaczek-Khinchine mean) */
};

/* Eqs. 25, 29: the M/G/1 (FCFS) number-in-system distribution Q_k for H2 service, by
 * numerical inversion of the Pollaczek-Khinchine z-transform (Cauchy contour, trapezoidal
 * rule, see numeric.h). The transform actually inverted is the tail generating function
 * T(z) = (1 - Q(z)) / (1 - z) = sum_k Prob{N > k} z^k in a form free of cancellation at
 * z = 1; the number of terms doubles until Prob{N > K} + err_bound < tol. Fills d with the
 * background slowdown gamma = k + 1 with probability Q_k (like p004_pmf_gamma_ps).
 * rep may be NULL. Returns 0, -E_USAGE (rho >= 1 or bad rates), -E_LIMIT (more than
 * o->qlen_max terms needed). */
int p004_pmf_gamma_mg1_h2(const struct p004_h2 *h, const struct p004_opts *o,
			  struct p004_pmf *d, struct p004_inv_report *rep, struct err *e) WUR;

/* The same distribution by the M/G/1 embedded-chain recursion (no transform):
 * Q_0 = 1 - rho, Q_k a_0 = Q_0 A_{k-1} + sum_{i=1}^{k-1} Q_i A_{k-i}, with a_l the
 * probability of l arrivals during one service and A_n = sum_{l>n} a_l. For H2 both are
 * closed forms. Fills d with gamma = k + 1 for k = 0..nterms-1; d->tail = 1 - sum. O(n^2). */
int p004_pmf_gamma_mg1_h2_recursion(const struct p004_h2 *h, size_t nterms, struct p004_pmf *d,
				    struct err *e) WUR;

/* ---- Eq. 11: load imbalance eta -------------------------------------------------------- */

/* One processor of eq. 11: eta_j = beta_j gamma_j delta_j. */
struct p004_proc {
	const struct p004_pmf *beta;	/* work per iteration in units (eqs. 13-18); NULL: beta = 1 */
	const struct p004_pmf *gamma;	/* background slowdown (eqs. 19-29); NULL: gamma = 1 */
	unsigned delta;			/* time per unit work of this processor (>= 1) */
};

/* The value of eta and what its computation left out. */
struct p004_eta {
	double eta;		/* the load imbalance factor (dimensionless) */
	double tail_mass;	/* Prob{max_j eta_j beyond the values summed}: the mass left out,
				 * including the tails the input distributions dropped */
	double err_bound;	/* a bound on |eta - exact| from the truncation when one is known
				 * (processor sharing: eqs. 21, 24), else NAN */
	size_t terms;		/* values of k summed */
};

/* Eq. 11 (= eq. 32): eta = 1/(B Delta) sum_{k>=1} k (prod_j F_j(k) - prod_j F_j(k-1)) with
 * F_j(k) = Prob{beta_j gamma_j delta_j <= k}, evaluated exactly on the (finite) supports as
 * sum_{k=0}^{K-1} (G(K) - G(k)), G = prod_j F_j, K the largest value of any eta_j.
 * B: mean work per processor (units), Delta: baseline time per unit work.
 * Processors sharing the same beta, gamma pointers and delta are grouped (F^count).
 * Returns 0, -E_USAGE, -E_LIMIT (largest eta_j above o->support_max). */
int p004_eta_general(const struct p004_proc *pr, size_t nproc, double B, unsigned Delta,
		     const struct p004_opts *o, struct p004_eta *out, struct err *e) WUR;

/* Eqs. 21 (delta = NULL: homogeneous) and 24 (heterogeneous), processor sharing in closed
 * form: eta = 1/Delta sum_{k>=0} (1 - prod_j (1 - rho_j^floor(k/delta_j))). rho_j is the
 * utilisation of processor j by background work (eq. 23: rho_j = delta_j lambda_j / (mu Delta),
 * see p004_rho_hetero). Stops at K with sum_j rho_j^floor(K/delta_j) < tol; err_bound =
 * 1/Delta sum_j delta_j rho_j^floor(K/delta_j) / (1 - rho_j). Needs 0 <= rho_j < 1. */
int p004_eta_ps(const double *rho, const unsigned *delta, size_t nproc, unsigned Delta,
		const struct p004_opts *o, struct p004_eta *out, struct err *e) WUR;

/* Eq. 23: rho_j = delta_j lambda_j / (mu Delta), the background utilisation of a processor
 * whose background service rate is mu_j = mu Delta / delta_j (rates in 1/s). */
double p004_rho_hetero(double lambda_per_s, double mu_per_s, unsigned delta, unsigned Delta);

/* Eq. 15 (approx = 0) or eq. 17 (approx = 1, DeMoivre-Laplace weights): application load
 * imbalance on dedicated homogeneous processors, processor j holding S[j] objects each with
 * an event with probability p per iteration; B = p sum_j S_j / P (eq. 13). */
int p004_eta_bernoulli(const unsigned *S, size_t nproc, double p, int approx,
		       const struct p004_opts *o, struct p004_eta *out, struct err *e) WUR;

/* Eq. 18 as printed (with the exponent -P/2 restored): P homogeneous processors with S
 * objects each; B = S p. Returns NAN for bad arguments (needs 0 < p < 1, S, P >= 1). */
double p004_eta_eq18(unsigned S, size_t nproc, double p);

/* Eqs. 33 (approx = 0, binomial work) and 34 (approx = 1, DeMoivre-Laplace work):
 * application and processor-sharing background imbalance on heterogeneous processors.
 * rho[j] as in eq. 23; delta NULL means all 1 (then Delta should be 1). */
int p004_eta_bernoulli_ps(const unsigned *S, const double *rho, const unsigned *delta,
			  size_t nproc, double p, unsigned Delta, int approx,
			  const struct p004_opts *o, struct p004_eta *out, struct err *e) WUR;

/* Eqs. 19/22 with M/G/1 H2 background (eqs. 25-29): h[j] per processor, delta NULL = all 1.
 * inv (may be NULL) receives the worst inversion report over the processors. */
int p004_eta_mg1_h2(const struct p004_h2 *h, const unsigned *delta, size_t nproc,
		    unsigned Delta, const struct p004_opts *o, struct p004_eta *out,
		    struct p004_inv_report *inv, struct err *e) WUR;

/* ---- Processor selection and policy cost (Section 3) ------------------------------------ */

/* An objective over a set of processors (indices into the caller's pool), e.g. R_P in ns or
 * C_P. Writes *val; returns 0 or negative with e. */
typedef int (*p004_objective_fn)(void *ctx, const size_t *set, size_t n, double *val,
				 struct err *e);

/* A pool of processors with processor-sharing background load: R_P of a set is eq. 5 with
 * eta from eq. 24 on the set. */
struct p004_ps_pool {
	struct p004_iter it;		/* I, t_serial, t_PAR_WK on the baseline processor, overhead */
	const double *lambda_per_s;	/* background arrival rate of each processor */
	const unsigned *delta;		/* time per unit work of each processor; NULL = all Delta */
	double mu_per_s;		/* baseline background service rate */
	unsigned Delta;			/* baseline time per unit work (>= 1) */
	size_t n;			/* processors in the pool */
	struct p004_opts opts;
};

/* p004_objective_fn for struct p004_ps_pool: R_P of the set in ns. */
int p004_ps_pool_runtime(void *ctx, const size_t *set, size_t n, double *r_ns, struct err *e) WUR;

/* The sort key of Figure 5: lambda_j for homogeneous processors; for heterogeneous ones
 * the expected slowdown delta_j / (Delta (1 - rho_j)) with rho_j from eq. 23. Fills key[n]. */
void p004_pool_keys(const struct p004_ps_pool *pool, int hetero, double *key);

/* Figure 5: sort the pool by key (ascending, ties by index), start from the first, and add
 * the next while the objective strictly decreases (scan_all = 0); scan_all = 1 evaluates
 * every prefix and keeps the best. With lambda as key on homogeneous processors it is the
 * paper's optimal algorithm; with the slowdown key on heterogeneous ones the greedy heuristic.
 * set_out (n entries, caller-owned) receives the chosen indices in order, *nset_out their
 * count, *val_out the objective. Returns 0 or the objective's error. */
int p004_select_fig5(size_t n, const double *key, p004_objective_fn f, void *ctx, int scan_all,
		     size_t *set_out, size_t *nset_out, double *val_out, struct err *e) WUR;

/* The best non-empty subset by trying all 2^n - 1 (n <= 20, else -E_LIMIT); ties keep the
 * first found (smallest bit mask). Same outputs as p004_select_fig5. */
int p004_select_exhaustive(size_t n, p004_objective_fn f, void *ctx, size_t *set_out,
			   size_t *nset_out, double *val_out, struct err *e) WUR;

/* Eq. 35: C_P = R_P (x + sum_{j in set} c_j), R_P in ns converted to seconds, x and c_j in
 * cost per second. */
double p004_cost(double r_ns, double x_per_s, const double *c_per_s, const size_t *set, size_t n);

/* Eq. 35 as an objective: wraps a run-time objective. */
struct p004_cost_ctx {
	p004_objective_fn runtime;	/* R_P in ns */
	void *runtime_ctx;
	double x_per_s;			/* cost of run time itself */
	const double *c_per_s;		/* cost of each processor per second of use */
};
int p004_cost_objective(void *ctx, const size_t *set, size_t n, double *c, struct err *e) WUR;

/* How the constrained selections search. */
enum p004_search {
	P004_SEARCH_EXHAUSTIVE = 0,	/* all subsets (n <= 20) */
	P004_SEARCH_PREFIX = 1,		/* every prefix of the key order (n evaluations) */
};

/* The result of a constrained selection. nset = 0: no set meets the constraint. */
struct p004_choice {
	size_t nset;		/* processors chosen */
	double r_ns;		/* R_P of the choice */
	double use_cost;	/* sum_j c_j R_P (R_P in s) */
};

/* Minimise sum_{j in set} c_j R_P subject to R_P <= goal_r_ns (run-time goal G_R).
 * key is used by P004_SEARCH_PREFIX (may be NULL for exhaustive). set_out has n entries. */
int p004_select_min_cost_goal(size_t n, const double *key, p004_objective_fn runtime, void *ctx,
			      const double *c_per_s, double goal_r_ns, enum p004_search how,
			      size_t *set_out, struct p004_choice *ch, struct err *e) WUR;

/* Minimise R_P subject to sum_{j in set} c_j R_P <= budget (resource bound G_C). */
int p004_select_min_time_budget(size_t n, const double *key, p004_objective_fn runtime, void *ctx,
				const double *c_per_s, double budget, enum p004_search how,
				size_t *set_out, struct p004_choice *ch, struct err *e) WUR;

/* ---- Iterations from a trace ----------------------------------------------------------- */

/* Detection parameters; NULL or zero fields take the defaults. */
struct p004_detect_opts {
	double min_match;	/* least fraction of tokens s[k] == s[k+p] for a period; default 0.9 */
	size_t max_period;	/* longest period tried per sender, in messages; default 4096 */
	int64_t burst_gap_ns;	/* a sender's messages closer than this are put in canonical
				 * (dst, size class) order first; 0 = keep capture order */
	int32_t serial_rank;	/* rank whose solo busy time is t_serial; -1 = none (give
				 * serial_rank_set = 1 to use rank 0) */
	int serial_rank_set;	/* 1: serial_rank is meant (distinguishes 0 from unset) */
};

/* What p004_detect_iterations found. Time figures are means over the timed iterations. */
struct p004_detect {
	size_t iters;		/* I: repetitions of the iteration block */
	size_t windows;		/* iterations timed (consecutive block starts) */
	int32_t ref_rank;	/* sender whose block starts mark the iterations */
	size_t ref_period;	/* that sender's messages per iteration */
	double msgs_per_iter;	/* messages of all senders per timed iteration */
	double match;		/* fraction s[k] == s[k+p] of the reference sender */
	size_t senders;		/* senders with a clean period */
	int64_t t_begin_ns;	/* start of the first timed iteration */
	int64_t t_end_ns;	/* end of the last timed iteration */
	double t_iter_ns;	/* mean wall time of an iteration */
	double t_max_par_ns;	/* mean over iterations of max_j t_parallel,j (NAN without phases) */
	double eta_measured;	/* t_max_par / (t_PAR_WK / P) (NAN without phases) */
	size_t nranks;		/* P */
	struct p004_iter it;	/* eq. 5 inputs: I, t_serial, t_PAR_WK, t_overhead = t_iter -
				 * t_serial - t_max_par (NAN without phases) */
};

/* Detect the repeating communication pattern of a synchronous iterative run and measure its
 * iterations. The messages are the profile's (t_ns, src, dst and bytes are used); one takes
 * part when its sender is a rank 0..nranks-1 and its receiver one too or unknown (-1), the
 * others are left out. Each message becomes a token (dst, size class = bit length of bytes);
 * the token sequence of each sender (its program order) is searched for its shortest period
 * p with at least min_match of tokens repeating p later, the block that first repeats is the
 * reference and its repetitions are counted (resynchronising after inserted messages).
 * Senders whose repetitions cover less than half the run's message span are ignored; I is
 * the smallest repetition count left (the whole sequence repeats only that often), and its
 * sender's block starts bound the iterations. Busy phases (the profile's, ranks
 * 0..nranks-1) give, per iteration, each rank's busy time (t_parallel,j), its sum (t_PAR_WK),
 * its maximum, and the serial rank's solo time (t_serial). Inputs are borrowed; any order.
 * Returns 0, -E_USAGE (bad arguments), -E_FORMAT (no periodic pattern found). */
int p004_detect_iterations(const struct prof_msg *m, size_t nmsg, const struct prof_busy *b,
			   size_t nbusy, size_t nranks, const struct p004_detect_opts *o,
			   struct p004_detect *out, struct err *e) WUR;

#endif
