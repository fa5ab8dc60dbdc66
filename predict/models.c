/* models: the registry of prediction models and their result rows. */
#include "predict/models.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/p000.h"
#include "predict/p003.h"

const struct model models[] = {
	{ "p003", "003", "Venkataramaiah & Subhlok, Performance Prediction for Simple CPU and Network Sharing",
	  "Sec. 2.1 (CPU sharing; k competitors and load average derived in docs/predict.md), "
	  "Sec. 2.2 (link change), Sec. 3.3 (combined)",
	  "run: per-rank average busy/idle phases and counts, per-link message count and average size, "
	  "netparams L and B; scenario: cpu_procs or load_average, capacity, link bandwidth, latency, "
	  "competing traffic",
	  p003_predict },
	{ "p000", "000", "Figueira & Berman, A Slowdown Model for Applications Executing on Time-Shared Clusters",
	  "eq. 2 (local slowdown, pp/pm by dynamic programming, delay_comm curves), eq. 3 "
	  "(communication slowdown), eq. 5 (load-dependent), eqs. 7-9, 11, 12 (constraint-based)",
	  "run: per-rank computation time (work fractions), per-link messages, netparams B; "
	  "scenario: cpu_procs, comm_procs with comm/compute fractions and comm_bandwidth, capacity, "
	  "weight or serial_time, work_fraction, partitioning, delay_comm, link bandwidth",
	  p000_predict },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};

const struct model *
model_find(const char *name)
{
	for (const struct model *m = models; m->name != NULL; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

void
pred_result_init(struct pred_result *r)
{
	memset(r, 0, sizeof *r);
	r->predicted_ns = NAN;
	r->dedicated_ns = NAN;
}

void
pred_result_free(struct pred_result *r)
{
	if (r == NULL)
		return;
	free(r->items);
	memset(r, 0, sizeof *r);
}

int
pred_na(struct pred_result *r, const char *fmt, ...)
{
	va_list ap;

	r->status = PRED_NA;
	r->predicted_ns = NAN;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof r->why, fmt, ap);
	va_end(ap);
	return 0;
}

void
pred_add(struct pred_result *r, const char *kind, const char *name, double added_ns, double value,
	 const char *equation, const char *detail_fmt, ...)
{
	struct pred_item *it;
	va_list ap;

	if (r->nitems == PRED_MAX_ITEMS) {
		r->dropped++;
		return;
	}
	if (r->nitems == r->cap) {
		size_t cap = (size_t)r->cap;

		r->items = xgrow(r->items, &cap, (size_t)r->nitems + 1, sizeof *r->items);
		r->cap = (int)cap;
	}
	it = &r->items[r->nitems++];
	memset(it, 0, sizeof *it);
	snprintf(it->kind, sizeof it->kind, "%s", kind);
	snprintf(it->name, sizeof it->name, "%s", name);
	snprintf(it->equation, sizeof it->equation, "%s", equation);
	it->added_ns = added_ns;
	it->value = value;
	va_start(ap, detail_fmt);
	vsnprintf(it->detail, sizeof it->detail, detail_fmt, ap);
	va_end(ap);
}
