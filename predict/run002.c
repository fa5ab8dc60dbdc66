/* run002: paper 002 on a parsed run: weights, H, P_deg, speedup, efficiency, changed weights. */
#include "predict/run002.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/p002.h"

/* Weights normalised to the largest (eq. 1's W_i = S_i / max S). */
static void
normalise(const double *w, int m, double *out)
{
	double mx = 0;

	for (int j = 0; j < m; j++)
		if (w[j] > mx)
			mx = w[j];
	for (int j = 0; j < m; j++)
		out[j] = w[j] / mx;
}

int
run002_predict(const struct prof *p, const struct scen *s, struct pred_result *r, struct err *e)
{
	double T = (double)prof_dedicated_ns(p);
	int m = p->nranks, span = prof_rank_span(p), rc = 0;
	int64_t t0 = p->t_phase0_ns, t1 = p->t_phase1_ns, *act_all = NULL;
	double *act, *w, *w2, *w2n, *act2, *serial, thn, thn2, h, h2, pdeg, pdeg2, sp, sp6, sp2, eff, eff2;
	bool from_serial = true, changed = false;
	int worst = 0;

	r->dedicated_ns = T;
	snprintf(r->equation, sizeof r->equation, "002 eqs. 2, 5, 6");
	if (!p->have_phases || p->nbusy == 0 || t1 <= t0)
		return pred_na(r, "the run has no busy phases ('%s/profile/phases.tsv'): P_deg and the weights "
			       "need each rank's active time", p->run);
	act_all = xcalloc((size_t)span, sizeof *act_all);
	rc = p002_active_ns(p->busy, (size_t)p->nbusy, span, t0, t1, act_all, e);
	if (rc < 0) {
		free(act_all);
		return rc;
	}
	act = xcalloc((size_t)m, sizeof *act);
	w = xcalloc((size_t)m, sizeof *w);
	w2 = xcalloc((size_t)m, sizeof *w2);
	w2n = xcalloc((size_t)m, sizeof *w2n);
	act2 = xcalloc((size_t)m, sizeof *act2);
	serial = xcalloc((size_t)m, sizeof *serial);
	for (int j = 0; j < m; j++) {
		const struct scen_node *n = scen_node_for(s, p->ranks[j].rank, p->ranks[j].host);

		act[j] = (double)act_all[p->ranks[j].rank];
		if (n == NULL || n->serial_ns <= 0)
			from_serial = false;
		else
			serial[j] = (double)n->serial_ns;
	}
	free(act_all);
	/* eq. 2: from serial benchmarks when every node has one, else from the busy time each
	 * rank needed for its (equal) share of the work */
	if (from_serial) {
		if (p002_weights_from_time(serial, m, w) < 0) {
			rc = pred_na(r, "the scenario's serial_time values give no weights");
			goto out;
		}
	} else {
		for (int j = 0; j < m; j++)
			if (!(act[j] > 0)) {
				rc = pred_na(r, "rank %d (%s) shows no busy time, so its power weight cannot come "
					     "from the run; give serial_time for every node", p->ranks[j].rank,
					     p->ranks[j].host);
				goto out;
			}
		if (p002_weights_from_time(act, m, w) < 0) {
			rc = pred_na(r, "the ranks' busy times give no weights");
			goto out;
		}
	}
	thn = (double)(t1 - t0);
	h = p002_heterogeneity(w, m);
	{
		int64_t *ai = xcalloc((size_t)m, sizeof *ai);

		for (int j = 0; j < m; j++)
			ai[j] = (int64_t)act[j];
		pdeg = p002_pdeg(ai, m, thn);
		sp = p002_speedup_work(w, ai, m, thn);
		free(ai);
	}
	sp6 = p002_speedup_model(pdeg, h);
	eff = p002_efficiency_dedicated(sp, w, m);

	/* under the scenario: W'_j = weight (on the run's scale) times the CPU share left */
	thn2 = 0;
	for (int j = 0; j < m; j++) {
		const struct scen_node *n = scen_node_for(s, p->ranks[j].rank, p->ranks[j].host);
		double t;

		w2[j] = (n != NULL && !isnan(n->weight) ? n->weight : w[j]) * pred_cpu_share(n);
		if (w2[j] != w[j])
			changed = true;
		/* the same work at the new speed; the rank's non-active time is kept */
		act2[j] = act[j] * w[j] / w2[j];
		t = thn - act[j] + act2[j];
		if (t > thn2) {
			thn2 = t;
			worst = j;
		}
	}
	normalise(w2, m, w2n);
	h2 = p002_heterogeneity(w2n, m);
	pdeg2 = 0;
	sp2 = 0;
	{
		double sw2 = 0;

		for (int j = 0; j < m; j++) {
			pdeg2 += act2[j] / thn2;
			sp2 += w[j] * act[j] / thn2;	/* the work, in run-fastest seconds, is unchanged */
			sw2 += w2[j];
		}
		eff2 = sp2 / sw2;
	}
	r->predicted_ns = T + (thn2 - thn);
	for (int j = 0; j < m; j++) {
		char name[PROF_HOST_MAX + 32];
		double alone = act2[j] - act[j];

		snprintf(name, sizeof name, "rank %d (%s)", p->ranks[j].rank, p->ranks[j].host);
		pred_add(r, "node", name, alone > 0 ? alone : 0, w[j], "002 eq. 2",
			 "W %.3f -> %.3f, active %.3f s -> %.3f s", w[j], w2[j], act[j] / 1e9, act2[j] / 1e9);
	}
	pred_add(r, "factor", "H", NAN, h, "002 eq. 4", "heterogeneity of the run; %.4f under the scenario", h2);
	pred_add(r, "factor", "P_deg", NAN, pdeg, "002 eq. 5",
		 "sum of active time / T(A,HN) = %.3f s; %.3f under the scenario", thn / 1e9, pdeg2);
	pred_add(r, "factor", "speedup", NAN, sp, "002 def. 1, eq. 6",
		 "sum W_j T_j^act / T(A,HN) over the fastest rank's machine; eq. 6 P_deg (1 - H) = %.3f; "
		 "%.3f under the scenario", sp6, sp2);
	pred_add(r, "factor", "efficiency", NAN, eff, "002 eq. 14",
		 "SP / sum W_j (dedicated); %.3f under the scenario", eff2);
	snprintf(r->note, sizeof r->note, "weights from %s; each rank does the same work at its new speed and "
		 "keeps its non-active time, the slowest (rank %d) sets the time%s",
		 from_serial ? "the scenario's serial_time (eq. 2)" :
		 "each rank's busy time for an equal share of the work (eq. 2)", p->ranks[worst].rank,
		 changed ? "" : "; the scenario changes no weight");
out:
	free(act);
	free(w);
	free(w2);
	free(w2n);
	free(act2);
	free(serial);
	return rc;
}
