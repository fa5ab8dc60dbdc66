/* maxflow: maximum flow on a small directed graph with real capacities (Dinic's algorithm).
 *
 * Used by paper 001's AppRate (predict/p001.c); knows nothing about tasks or networks.
 * Capacities are non-negative reals in any one unit (tasks/s for paper 001); INFINITY is
 * allowed and means "not a constraint". Residual capacities below a relative tolerance of
 * 1e-12 of the largest finite capacity count as zero. */
#ifndef PREDICT_MAXFLOW_H
#define PREDICT_MAXFLOW_H

#include <stdbool.h>

#include "lib/err.h"

struct maxflow;

/* A graph of nnodes nodes (0..nnodes-1) holding at most max_edges edges.
 * Returns NULL with e set (-E_USAGE) when nnodes < 2 or max_edges < 1. Free with maxflow_free. */
struct maxflow *maxflow_new(int nnodes, int max_edges, struct err *e) WUR;
void maxflow_free(struct maxflow *f);	/* accepts NULL */

/* Add the directed edge u -> v with capacity cap (>= 0, may be INFINITY). Returns the edge id
 * (0, 1, 2, ... in order of addition), or negative with e set: -E_USAGE for a bad node or
 * capacity, -E_LIMIT when max_edges edges are already there. */
int maxflow_add_edge(struct maxflow *f, int u, int v, double cap, struct err *e) WUR;

/* Compute a maximum s -> t flow, replacing any earlier result. Returns its value (INFINITY
 * when a path of infinite edges joins s to t), or NAN when s or t is out of range or s == t. */
double maxflow_run(struct maxflow *f, int s, int t);

/* Flow on edge id in the last result (0 before maxflow_run, NAN for a bad id). */
double maxflow_edge_flow(const struct maxflow *f, int id);

/* After maxflow_run: source_side[v] (nnodes entries) is true for the nodes reachable from s
 * in the residual graph, the source side of a minimum cut. */
void maxflow_min_cut(struct maxflow *f, bool *source_side);

#endif
