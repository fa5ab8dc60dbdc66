/* maxflow: Dinic's blocking-flow algorithm on real capacities. */
#include "predict/maxflow.h"

#include <math.h>
#include <stdlib.h>

#include "lib/xalloc.h"

/* Edges are stored in pairs: id 2k is the edge as added, 2k+1 its reverse (capacity 0). */
struct arc {
	int to;			/* head node */
	int next;		/* next arc out of the same tail, -1 at the end */
	double cap;		/* original capacity */
	double res;		/* residual capacity */
};

struct maxflow {
	int nnodes;
	int narcs, max_arcs;	/* arcs used and allowed (2 per edge) */
	struct arc *arcs;
	int *head;		/* [nnodes] first arc out of each node */
	int *level;		/* [nnodes] BFS level, -1 unreached */
	int *iter;		/* [nnodes] next arc to try in the DFS */
	int *queue;		/* [nnodes] BFS queue */
	double eps;		/* residual below this is zero */
	int s;			/* source of the last run, -1 none */
};

struct maxflow *
maxflow_new(int nnodes, int max_edges, struct err *e)
{
	struct maxflow *f;

	if (nnodes < 2 || max_edges < 1 || max_edges > (1 << 28)) {
		err_set(e, E_USAGE, "max-flow graph needs at least 2 nodes and 1 edge (got %d, %d)",
			nnodes, max_edges);
		return NULL;
	}
	f = xcalloc(1, sizeof *f);
	f->nnodes = nnodes;
	f->max_arcs = 2 * max_edges;
	f->arcs = xmallocarray((size_t)f->max_arcs, sizeof *f->arcs);
	f->head = xmallocarray((size_t)nnodes, sizeof *f->head);
	f->level = xmallocarray((size_t)nnodes, sizeof *f->level);
	f->iter = xmallocarray((size_t)nnodes, sizeof *f->iter);
	f->queue = xmallocarray((size_t)nnodes, sizeof *f->queue);
	for (int i = 0; i < nnodes; i++)
		f->head[i] = -1;
	f->s = -1;
	return f;
}

void
maxflow_free(struct maxflow *f)
{
	if (f == NULL)
		return;
	free(f->arcs);
	free(f->head);
	free(f->level);
	free(f->iter);
	free(f->queue);
	free(f);
}

int
maxflow_add_edge(struct maxflow *f, int u, int v, double cap, struct err *e)
{
	if (u < 0 || u >= f->nnodes || v < 0 || v >= f->nnodes)
		return err_set(e, E_USAGE, "max-flow edge %d -> %d: no such node", u, v);
	if (!(cap >= 0))
		return err_set(e, E_USAGE, "max-flow edge %d -> %d: capacity %g is not >= 0", u, v, cap);
	if (f->narcs + 2 > f->max_arcs)
		return err_set(e, E_LIMIT, "max-flow graph is full (%d edges)", f->max_arcs / 2);
	f->arcs[f->narcs] = (struct arc){ .to = v, .next = f->head[u], .cap = cap, .res = cap };
	f->head[u] = f->narcs++;
	f->arcs[f->narcs] = (struct arc){ .to = u, .next = f->head[v], .cap = 0, .res = 0 };
	f->head[v] = f->narcs++;
	return f->narcs / 2 - 1;
}

/* Levels from s over arcs with residual capacity (infinite_only: over infinite arcs only).
 * True when t is reached. */
static bool
bfs(struct maxflow *f, int s, int t, bool infinite_only)
{
	int qh = 0, qt = 0;

	for (int i = 0; i < f->nnodes; i++)
		f->level[i] = -1;
	f->level[s] = 0;
	f->queue[qt++] = s;
	while (qh < qt) {
		int u = f->queue[qh++];

		for (int a = f->head[u]; a >= 0; a = f->arcs[a].next) {
			const struct arc *r = &f->arcs[a];
			bool open = infinite_only ? isinf(r->res) : r->res > f->eps;

			if (open && f->level[r->to] < 0) {
				f->level[r->to] = f->level[u] + 1;
				f->queue[qt++] = r->to;
			}
		}
	}
	return f->level[t] >= 0;
}

/* Push up to limit along level-increasing arcs; returns what was pushed. The recursion is
 * at most nnodes deep (levels strictly increase). */
static double
dfs(struct maxflow *f, int u, int t, double limit)
{
	if (u == t)
		return limit;
	for (; f->iter[u] >= 0; f->iter[u] = f->arcs[f->iter[u]].next) {
		int a = f->iter[u];
		struct arc *r = &f->arcs[a];

		if (r->res > f->eps && f->level[r->to] == f->level[u] + 1) {
			double got = dfs(f, r->to, t, fmin(limit, r->res));

			if (got > 0) {
				if (!isinf(r->res))
					r->res -= got;
				if (!isinf(f->arcs[a ^ 1].res))
					f->arcs[a ^ 1].res += got;
				return got;
			}
		}
	}
	return 0;
}

double
maxflow_run(struct maxflow *f, int s, int t)
{
	double total = 0, maxcap = 0;

	if (s < 0 || s >= f->nnodes || t < 0 || t >= f->nnodes || s == t)
		return NAN;
	for (int a = 0; a < f->narcs; a++) {
		f->arcs[a].res = f->arcs[a].cap;
		if (isfinite(f->arcs[a].cap))
			maxcap = fmax(maxcap, f->arcs[a].cap);
	}
	f->eps = maxcap * 1e-12;
	f->s = s;
	if (bfs(f, s, t, true))
		return INFINITY;
	while (bfs(f, s, t, false)) {
		double pushed;

		for (int i = 0; i < f->nnodes; i++)
			f->iter[i] = f->head[i];
		while ((pushed = dfs(f, s, t, INFINITY)) > 0)
			total += pushed;
	}
	return total;
}

double
maxflow_edge_flow(const struct maxflow *f, int id)
{
	const struct arc *r;

	if (id < 0 || 2 * id >= f->narcs)
		return NAN;
	if (f->s < 0)
		return 0;
	r = &f->arcs[2 * id];
	if (isinf(r->cap))	/* infinite arcs keep res; their flow sits on the reverse arc */
		return f->arcs[2 * id + 1].res;
	return r->cap - r->res;
}

void
maxflow_min_cut(struct maxflow *f, bool *source_side)
{
	if (f->s < 0) {
		for (int i = 0; i < f->nnodes; i++)
			source_side[i] = false;
		return;
	}
	(void)bfs(f, f->s, f->s, false);	/* rewrites only the scratch levels */
	for (int i = 0; i < f->nnodes; i++)
		source_side[i] = f->level[i] >= 0;
}
