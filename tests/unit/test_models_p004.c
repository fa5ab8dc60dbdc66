/* test_models_p004: paper 004 wired to a run: iterations, eta under background load, R_P,
 * selection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/models.h"
#include "predict/p004.h"
#include "predict/run004.h"
#include "tests/unit/check.h"
#include "tests/unit/models_fixture.h"

static char st_run[300], ms_run[300], bare_run[300];

static int
run_it(const char *run, const char *ini, const char *policy, bool sel, struct pred_result *r)
{
	struct prof p;
	struct scen s;
	struct err e;
	int rc = -1;

	pred_result_init(r);
	if (prof_load(&p, run, &e) == 0 && scen_load_string(&s, ini, "t.ini", &e) == 0) {
		rc = sel ? run004_select(&p, &s, policy, r, &e) : run004_predict(&p, &s, r, &e);
		scen_free(&s);
	}
	prof_free(&p);
	return rc;
}

TEST(stencil_iterations_and_dedicated)
{
	struct pred_result r;
	const struct pred_item *it;

	if (CHECKED(run_it(st_run, "", NULL, false, &r) == 0))
		CHECK(r.status == PRED_OK);
	it = FX_ITEM(&r, "factor", "iterations");
	if (CHECKED(it != NULL))
		CHECK(it->value == 40);
	if (CHECKED(it != NULL)) {
		CHECK(strstr(it->detail, "t_iter 10.000 ms") != NULL);
		CHECK(strstr(it->detail, "t_PAR_WK 32.000 ms") != NULL);
		CHECK(strstr(it->detail, "overhead 2.000 ms") != NULL);
	}
	CHECK_NEAR(r.predicted_ns, 5e8, 1);	/* no load: eq. 5 gives back the run */
	CHECK_NEAR((it = FX_ITEM(&r, "factor", "eta")) ? it->value : 0, 1, 1e-12);
	pred_result_free(&r);
	/* the master/slave run repeats its cycle 50 times */
	if (CHECKED(run_it(ms_run, "", NULL, false, &r) == 0))
		CHECK(r.status == PRED_OK);
	if (CHECKED((it = FX_ITEM(&r, "factor", "iterations")) != NULL))
		CHECK(it->value == 50);
	pred_result_free(&r);
}

TEST(background_load)
{
	struct pred_result r;
	struct p004_eta eta;
	struct err e;
	double rho[4] = { 0, 0.5, 0, 0 };
	const struct pred_item *it;

	/* one CPU-bound competitor on ws2: eta = 2, R_P = 40 (2 * 32 / 4 + 2) ms = 0.72 s */
	if (CHECKED(run_it(st_run, "[node ws2]\ncpu_procs = 1\n", NULL, false, &r) == 0))
		CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 1e8 + 7.2e8, 1e3);
	if (CHECKED((it = FX_ITEM(&r, "node", "rank 1 (ws2)")) != NULL))
		CHECK(it->value == 2);
	pred_result_free(&r);
	/* a load average of 1 is one competitor always there: the same answer */
	if (CHECKED(run_it(st_run, "[node ws2]\nload_average = 1\n", NULL, false, &r) == 0))
		CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 1e8 + 7.2e8, 1e3);
	pred_result_free(&r);
	/* 1.5: one always there and one half the time, E[gamma] = 2.5 */
	if (CHECKED(run_it(st_run, "[node ws2]\nload_average = 1.5\n", NULL, false, &r) == 0))
		CHECK(r.status == PRED_OK);
	CHECK_NEAR((it = FX_ITEM(&r, "node", "rank 1 (ws2)")) ? it->value : 0, 2.5, 1e-9);
	CHECK(r.predicted_ns > 1e8 + 7.2e8);
	pred_result_free(&r);
	/* processor sharing rho = 0.5 on ws2: eta from eq. 21 directly */
	CHECK(p004_eta_ps(rho, NULL, 4, 1, NULL, &eta, &e) == 0);
	CHECK(run_it(st_run, "[node ws2]\nlambda = 0.5 /s\nservice_mean = 1 s\n", NULL, false, &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR((it = FX_ITEM(&r, "factor", "eta")) ? it->value : 0, eta.eta, 1e-9);
	CHECK_NEAR(r.predicted_ns, 1e8 + 40 * (eta.eta * 8e6 + 2e6), 1e3);
	pred_result_free(&r);
	/* hyperexponential service: M/G/1; E[gamma] = 1 + E[N] (Pollaczek-Khinchine) */
	if (CHECKED(run_it(st_run, "[node ws3]\nlambda = 0.5 /s\nservice_p = 0.9\nservice_mean_a = 0.5 s\n"
			   "service_mean_b = 5.5 s\n", NULL, false, &r) == 0))
		CHECK(r.status == PRED_OK);
	{
		/* rho = 0.5 (0.45 + 0.55); E[S^2] = 0.9 * 2 * 0.25 + 0.1 * 2 * 30.25 = 6.5;
		 * E[N] = rho + lambda^2 E[S^2] / (2 (1 - rho)) = 0.5 + 0.25 * 6.5 / 1 = 2.125 */
		it = FX_ITEM(&r, "node", "rank 2 (ws3)");
		CHECK_NEAR(it ? it->value : 0, 3.125, 1e-6);
	}
	pred_result_free(&r);
	/* an unstable queue is refused */
	CHECK(run_it(st_run, "[node ws2]\nlambda = 2 /s\nservice_mean = 1 s\n", NULL, false, &r) == 0);
	CHECK(r.status == PRED_NA);
	CHECK(strstr(r.why, "not below 1") != NULL);
	pred_result_free(&r);
}

TEST(refusals)
{
	struct pred_result r;

	if (CHECKED(run_it(bare_run, "", NULL, false, &r) == 0)) {
		CHECK(r.status == PRED_NA);
		CHECK(strstr(r.why, "messages.tsv") != NULL);
	}
	pred_result_free(&r);
}

TEST(selection_policies)
{
	struct pred_result r;
	const struct pred_item *it;
	const char *ini = "[node ws2]\ncpu_procs = 3\n[node ws3]\ncpu_procs = 3\n[node ws1]\ncost = 1\n"
			  "[node ws4]\ncost = 1\n[policy]\nx = 0.001\nbudget = 1\ndeadline = 0.5 s\n";
	struct err e;
	struct prof p;
	struct scen s;

	/* ws2, ws3 four times slower: the two free hosts are best by time:
	 * P = 2: 40 (32/2 + 2) ms = 0.72 s + 0.1 s outside the iterations */
	if (CHECKED(run_it(st_run, ini, "fig5", true, &r) == 0))
		CHECK(r.status == PRED_OK);
	it = FX_ITEM(&r, "set", "chosen");
	if (CHECKED(it != NULL))
		CHECK(strstr(it->detail, "{ws1,ws4}") != NULL);
	CHECK_NEAR(r.predicted_ns, 8.2e8, 1e3);
	CHECK((it = FX_ITEM(&r, "set", "#1: P = 2")) != NULL);
	pred_result_free(&r);
	/* cost (eq. 35), x small, ws1 and ws4 at 1/s, the loaded ones free: both free hosts,
	 * R = 40 (4 * 32 / 2 + 2) ms + 0.1 s = 2.74 s, C = 0.00274; any paid host costs > 1 */
	if (CHECKED(run_it(st_run, ini, "cost", true, &r) == 0))
		CHECK(r.status == PRED_OK);
	it = FX_ITEM(&r, "set", "chosen");
	if (CHECKED(it != NULL))
		CHECK(strstr(it->detail, "{ws2,ws3}") != NULL);
	CHECK_NEAR(it ? it->value : 0, 0.00274, 1e-9);
	CHECK_NEAR(r.predicted_ns, 2.74e9, 1e3);
	pred_result_free(&r);
	/* budget 1: sum c_j R_P <= 1 needs R_P <= 1 s with one paid host, or 0.5 s with two:
	 * neither, so the free hosts ws2, ws3 (4x slower) are used alone or together */
	if (CHECKED(run_it(st_run, ini, "budget", true, &r) == 0))
		CHECK(r.status == PRED_OK);
	it = FX_ITEM(&r, "set", "chosen");
	if (CHECKED(it != NULL)) {
		CHECK(strstr(it->detail, "ws1") == NULL);
		CHECK(strstr(it->detail, "ws4") == NULL);
	}
	pred_result_free(&r);
	/* a deadline nothing meets */
	if (CHECKED(run_it(st_run, ini, "goal", true, &r) == 0))
		CHECK(r.status == PRED_NA);
	pred_result_free(&r);
	/* unknown policy */
	if (CHECKED(prof_load(&p, st_run, &e) == 0))
		CHECK(scen_load_string(&s, "", "t.ini", &e) == 0);
	pred_result_init(&r);
	CHECK(run004_select(&p, &s, "fastest", &r, &e) == -E_USAGE);
	pred_result_free(&r);
	scen_free(&s);
	prof_free(&p);
}

int
main(void)
{
	fx_build(st_run, sizeof st_run, "st", stencil_profile);
	fx_build(ms_run, sizeof ms_run, "ms", ms_profile);
	fx_build(bare_run, sizeof bare_run, "bare", NULL);
	fx_ranks(bare_run, 2, 1000000000LL);
	RUN(stencil_iterations_and_dedicated);
	RUN(background_load);
	RUN(refusals);
	RUN(selection_policies);
	return check_done();
}
