/* models: the registry of prediction models and their result rows. */
#include "predict/models.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "predict/coloc.h"
#include "predict/p000.h"
#include "predict/run000.h"
#include "predict/p003.h"
#include "predict/run003.h"
#include "predict/replay.h"
#include "predict/run001.h"
#include "predict/run002.h"
#include "predict/run004.h"

const struct model models[] = {
	{ "p003", "003", "Venkataramaiah & Subhlok, Performance Prediction for Simple CPU and Network Sharing",
	  "Sec. 2.1 (CPU sharing; k competitors and load average derived in docs/predict.md; "
	  "ranks sharing a node share the competitors: predict/coloc.h), "
	  "Sec. 2.2 (link change), Sec. 3.3 (combined)",
	  "run: per-rank average busy/idle phases and counts, per-link message count and average size, "
	  "netparams L and B, messages (for a link's burst), busy phases and the node's CPU "
	  "capacity (meta) where ranks share a node; scenario: cpu_procs or load_average, "
	  "capacity, link bandwidth, latency, competing traffic, burst",
	  run003_predict, SCOPE_CPU | SCOPE_LINK | SCOPE_COLOC },
	{ "p000", "000", "Figueira & Berman, A Slowdown Model for Applications Executing on Time-Shared Clusters",
	  "eq. 2 (local slowdown, pp/pm by dynamic programming, delay_comm curves; ranks sharing "
	  "a node share the competitors by their runnable time: predict/coloc.h), eq. 3 "
	  "(communication slowdown), eq. 5 (load-dependent), eqs. 7-9, 11, 12 (constraint-based)",
	  "run: per-rank computation time (work fractions), per-link messages, netparams B, "
	  "schedstat run and wait time and the node's CPU capacity (meta) where ranks share a node; "
	  "scenario: cpu_procs or load_average, comm_procs with comm/compute fractions and "
	  "comm_bandwidth, capacity, weight or serial_time, work_fraction, partitioning, delay_comm, "
	  "link bandwidth, latency and burst",
	  run000_predict, SCOPE_CPU | SCOPE_COMM | SCOPE_LINK | SCOPE_COLOC },
	{ "p001", "001", "Shao, Berman & Wolski, Master/Slave Computing on the Grid",
	  "eqs. 1-8 (work rates, AppRate by maximum flow, ExecTime eq. 2), Sec. 4.5 (simulator: "
	  "predicted time, slave idle time, resource utilisation), Table 1 from the trace",
	  "run: messages (master/slave pattern, Tasks, Size_TaskXfer), busy phases (T_SlaveCPU, "
	  "T_MasterCPU), topology.dot or netparams B (graph G); scenario: cpu_procs, load_average, "
	  "capacity (Avail_CPU), link bandwidth, latency, competing traffic and burst on the "
	  "master's routes to its slaves (their network stages); busy phases and the node's CPU "
	  "capacity (meta) where ranks share a node (Avail_CPU shared: predict/coloc.h)",
	  run001_predict, SCOPE_CPU | SCOPE_LINK | SCOPE_COLOC },
	{ "p002", "002", "Zhang & Yan, Modeling and Characterizing Parallel Computing Performance on "
	  "Heterogeneous Networks of Workstations",
	  "eqs. 1-2 (power weights), eq. 4 (H), eq. 5 (P_deg), def. 1 and eq. 6 (speedup), "
	  "eq. 14 (efficiency); prediction under changed weights (derived in docs/predict.md)",
	  "run: busy phases per rank (active time), exec time; scenario: serial_time (weights of "
	  "the run), weight, capacity, cpu_procs, load_average (weights under the scenario)",
	  run002_predict, SCOPE_CPU },
	{ "p004", "004", "Peterson & Chamberlain, Parallel application performance in a shared "
	  "resource environment",
	  "eq. 5 (R_P), eq. 11 (eta by order statistics), eqs. 20-24 (processor-sharing "
	  "background), eqs. 25-29 (M/G/1 H2 background), iterations detected from the trace",
	  "run: messages and busy phases (I, t_serial, t_PAR_WK, t_overhead, eta measured); "
	  "scenario: lambda with service_mean or service_p/service_mean_a/service_mean_b, "
	  "cpu_procs or load_average, speed",
	  run004_predict, SCOPE_CPU | SCOPE_QUEUE | SCOPE_SPEED },
	{ "replay", "-", "the run's own message trace replayed under the scenario (beyond the papers: "
	  "the synchronisation structure paper 003 Sec. 5 asks for)",
	  "each rank's busy time between its sends and receives stretched by (k + 1) / capacity (less "
	  "where the node's other ranks share its cores: predict/coloc.h); "
	  "receives wait for their messages, and on a loaded node a rank that waited for one waits "
	  "k / (k + 1) x k x slice / 2 / capacity more for the CPU; transfers on changed links share "
	  "each host's sending and receiving side max-min fairly",
	  "run: messages (times, sizes, ranks), busy phases, netparams L and B, the node's scheduler "
	  "slice and the rank's CPU capacity (meta); scenario: cpu_procs "
	  "or load_average, capacity, link bandwidth, latency, competing traffic",
	  replay_predict, SCOPE_CPU | SCOPE_COMM | SCOPE_LINK | SCOPE_COLOC | SCOPE_OBSERVER },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 },
};

const struct selector selectors[] = {
	{ "p001", "001", "the best master and slaves for a master/slave run (Figure 2, Sec. 4.6)",
	  "", run001_select },
	{ "p004", "004", "the best processor set for a synchronous iterative run (Figure 5, greedy, "
	  "eq. 35 and its constrained forms)",
	  "fig5, greedy, cost, goal, budget", run004_select },
	{ NULL, NULL, NULL, NULL, NULL },
};

double
pred_cpu_share(const struct scen_node *n)
{
	double share = 1;

	if (n == NULL)
		return 1;
	if (!isnan(n->capacity))
		share = n->capacity;
	if (n->cpu_procs > 0)
		share /= 1 + n->cpu_procs;
	else if (!isnan(n->load_avg) && n->load_avg > 0)
		share /= 1 + n->load_avg;
	return share;
}

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

unsigned
pred_scen_changes(const struct scen *s)
{
	unsigned c = 0;

	for (int i = 0; i < s->nnodes; i++) {
		const struct scen_node *n = &s->nodes[i];

		if (n->cpu_procs > 0 || (!isnan(n->load_avg) && n->load_avg > 0) ||
		    (!isnan(n->capacity) && n->capacity < 1))
			c |= SCOPE_CPU;
		if (n->ncomm > 0)
			c |= SCOPE_COMM;
		if (!isnan(n->lambda_per_s) && n->lambda_per_s > 0)
			c |= SCOPE_QUEUE;
	}
	if (s->nlinks > 0)
		c |= SCOPE_LINK;
	/* every scenario's run is the program without collect; one without sections asks for
	 * that alone (sections that change nothing a model sees are not that question) */
	if (s->nnodes == 0 && s->nlinks == 0)
		c |= SCOPE_OBSERVER;
	return c;
}

/* What a scope bit is, for the refusal. */
static const char *
scope_what(unsigned bit, const struct scen *s, char *buf, size_t n)
{
	switch (bit) {
	case SCOPE_CPU: return "the CPU of a node (competing processes or capacity)";
	case SCOPE_COMM: return "communicating competitors on a node";
	case SCOPE_QUEUE: return "background arrivals on a node";
	case SCOPE_OBSERVER: return "nothing but collect's own work (the program alone)";
	case SCOPE_LINK:
		snprintf(buf, n, "link %s-%s%s", s->links[0].a, s->links[0].b, s->nlinks > 1 ? " and others" : "");
		return buf;
	default: return "something";
	}
}

int
model_run(const struct model *m, const struct prof *p, const struct scen *s, struct pred_result *r,
	  struct err *e)
{
	unsigned missing = pred_scen_changes(s) & ~m->covers;
	const struct prof_rank *sp;

	if (missing != 0) {
		char buf[2 * SCEN_MAX_NAME + 32];
		unsigned bit = missing & -missing;	/* the lowest: CPU, comm, link, queue */

		r->dedicated_ns = (double)prof_dedicated_ns(p);
		return pred_na(r, "the scenario changes %s, which %s does not model; its number would leave "
			       "that change out", scope_what(bit, s, buf, sizeof buf), m->name);
	}
	if (!(m->covers & SCOPE_SPEED) && (sp = run003_speed_changed(p, s)) != NULL) {
		r->dedicated_ns = (double)prof_dedicated_ns(p);
		return pred_na(r, "the scenario changes the speed of rank %d's node ('%s'), which %s does not "
			       "model; its number would leave that change out", sp->rank, sp->host, m->name);
	}
	if (!(m->covers & SCOPE_COLOC) && (pred_scen_changes(s) & (SCOPE_CPU | SCOPE_COMM | SCOPE_QUEUE)) &&
	    coloc_shared(p) > 0) {
		r->dedicated_ns = (double)prof_dedicated_ns(p);
		return pred_na(r, "%d of the run's %d ranks share a node, and %s takes each rank to have its "
			       "node's CPU alone: it would charge a competitor in full to every rank of the "
			       "node instead of sharing the node's cores among them", coloc_shared(p), p->nranks, m->name);
	}
	return m->predict(p, s, r, e);
}
