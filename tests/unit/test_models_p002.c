/* test_models_p002: paper 002 wired to a run: weights, H, P_deg, speedup, changed weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/models.h"
#include "predict/run002.h"
#include "tests/unit/check.h"
#include "tests/unit/models_fixture.h"

static char st_run[300], ms_run[300], bare_run[300];

static int
run_it(const char *run, const char *ini, struct pred_result *r)
{
	return fx_predict(run, ini, r, run002_predict);
}

TEST(stencil_figures)
{
	struct pred_result r;
	const struct pred_item *it;

	/* 4 equal ranks, each busy 8 of every 10 ms over 0.4 s: W = 1, H = 0, P_deg = 3.2,
	 * SP = 3.2 (eq. 6 agrees), E = 0.8 (eq. 14); nothing changes: the run's time */
	if (CHECKED(run_it(st_run, "", &r) == 0))
		CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 5e8, 1);
	CHECK_NEAR((it = FX_ITEM(&r, "factor", "H")) ? it->value : -1, 0, 1e-12);
	CHECK_NEAR((it = FX_ITEM(&r, "factor", "P_deg")) ? it->value : -1, 3.2, 1e-9);
	CHECK_NEAR((it = FX_ITEM(&r, "factor", "speedup")) ? it->value : -1, 3.2, 1e-9);
	if (CHECKED(it != NULL))
		CHECK(strstr(it->detail, "P_deg (1 - H) = 3.200") != NULL);
	CHECK_NEAR((it = FX_ITEM(&r, "factor", "efficiency")) ? it->value : -1, 0.8, 1e-9);
	CHECK(strstr(r.note, "changes no weight") != NULL);
	pred_result_free(&r);
}

TEST(changed_weight_predicts)
{
	struct pred_result r;
	const struct pred_item *it;

	/* ws2 at half the power: its 0.32 s of work takes 0.64 s, the run 0.72 s instead of
	 * 0.4 s of phases: 0.5 + 0.32 s */
	if (CHECKED(run_it(st_run, "[node ws2]\nweight = 0.5\n", &r) == 0))
		CHECK(r.status == PRED_OK);
	CHECK_NEAR(r.predicted_ns, 8.2e8, 1e3);
	it = FX_ITEM(&r, "node", "rank 1 (ws2)");
	CHECK(it != NULL);
	CHECK_NEAR(it ? it->added_ns : 0, 3.2e8, 1e3);
	if (CHECKED(FX_ITEM(&r, "node", "rank 0 (ws1)") != NULL))
		CHECK(FX_ITEM(&r, "node", "rank 0 (ws1)")->added_ns == 0);
	pred_result_free(&r);
	/* the same through a CPU-bound competitor (share 1/2) and through capacity */
	CHECK(run_it(st_run, "[node ws2]\ncpu_procs = 1\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 8.2e8, 1e3);
	pred_result_free(&r);
	CHECK(run_it(st_run, "[node ws2]\ncapacity = 50%\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 8.2e8, 1e3);
	pred_result_free(&r);
	/* faster everywhere: every rank's work takes half, the run 0.16 s less */
	CHECK(run_it(st_run, "[node ws1]\nweight = 2\n[node ws2]\nweight = 2\n[node ws3]\nweight = 2\n"
			     "[node ws4]\nweight = 2\n", &r) == 0);
	CHECK_NEAR(r.predicted_ns, 3.4e8, 1e3);
	pred_result_free(&r);
}

TEST(weights_from_serial_time)
{
	struct pred_result r;
	const struct pred_item *it;

	CHECK(run_it(st_run, "[node ws1]\nserial_time = 1 s\n[node ws2]\nserial_time = 2 s\n"
			     "[node ws3]\nserial_time = 1 s\n[node ws4]\nserial_time = 4 s\n", &r) == 0);
	CHECK(r.status == PRED_OK);
	CHECK_NEAR((it = FX_ITEM(&r, "node", "rank 3 (ws4)")) ? it->value : 0, 0.25, 1e-12);	/* eq. 2 */
	CHECK_NEAR((it = FX_ITEM(&r, "factor", "H")) ? it->value : 0, (0 + 0.5 + 0 + 0.75) / 4, 1e-12);	/* eq. 4 */
	CHECK(strstr(r.note, "serial_time") != NULL);
	pred_result_free(&r);
}

TEST(refusals)
{
	struct pred_result r;

	/* no phases */
	if (CHECKED(run_it(bare_run, "", &r) == 0)) {
		CHECK(r.status == PRED_NA);
		CHECK(strstr(r.why, "phases.tsv") != NULL);
	}
	pred_result_free(&r);
	/* a master/slave run is fine: every rank is busy some time */
	if (CHECKED(run_it(ms_run, "", &r) == 0))
		CHECK(r.status == PRED_OK);
	pred_result_free(&r);
}

int
main(void)
{
	fx_build(st_run, sizeof st_run, "st", stencil_profile);
	fx_build(ms_run, sizeof ms_run, "ms", ms_profile);
	fx_build(bare_run, sizeof bare_run, "bare", NULL);
	fx_ranks(bare_run, 2, 1000000000LL);
	RUN(stencil_figures);
	RUN(changed_weight_predicts);
	RUN(weights_from_serial_time);
	RUN(refusals);
	return check_done();
}
