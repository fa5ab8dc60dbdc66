/* probe: ENV's active procedure (paper 001, Section 3; docs/infer.md): from a root host, a
 * latency ping-pong and a timed bulk transfer to each host alone, then to every pair of hosts
 * at once; two hosts whose rates both fall towards half sit behind a shared bottleneck.
 *
 * One agent per host, started through the job's launcher; each finds its rank from the
 * launcher's environment (collect/agent.h). The agents meet through a directory every one of
 * them can reach: each writes TOPO/probe/agent-<rank>.tsv with its host, addresses and the TCP
 * port it serves; rank 0 (the root) reads them, measures with plain TCP sockets, then writes
 * TOPO/probe/done so the others exit. Not thread-safe (uses threads inside). */
#ifndef INFER_PROBE_H
#define INFER_PROBE_H

#include <stdint.h>

#include "infer/graph.h"
#include "lib/err.h"

#define PROBE_MAX_HOSTS 64

struct probe_opts {
	int64_t size_bytes;	/* first transfer size; doubled until a transfer lasts min_time */
	int64_t max_size_bytes;	/* largest transfer */
	int64_t min_time_ns;	/* least duration of a timed transfer */
	int reps;		/* repetitions of each measurement (median kept) */
	int pings;		/* round trips per latency measurement (minimum kept) */
	int64_t timeout_ns;	/* waiting for the other agents */
	double shared_below;	/* mean pair ratio at or below which: shared */
	double indep_above;	/* at or above which: independent */
	double root_limit;	/* a shared pair whose total is at least this share of the best
				 * solo rate is limited by the root itself, not by a shared network */
};

struct probe_opts probe_opts_default(void);

/* One agent under a launcher. The root (rank 0) measures and fills g (release with
 * graph_release) and returns 1; the other agents serve until the root is done and return 0.
 * Negative with e set on failure (no rendezvous, an agent missing after the timeout). */
int probe_agent(const char *topo_dir, const struct probe_opts *o, struct graph *g,
		struct err *e) WUR;

/* Run `contend testbed --instance K mpirun -np N -- contend infer --probe -o TOPO` with N the
 * testbed's workstations (this program re-executed from /proc/self/exe). Returns the exit
 * status of that job (0 when the graph was written), or negative with e set. */
int probe_on_testbed(int instance, const char *topo_dir, const struct probe_opts *o,
		     struct err *e) WUR;

/* From measurements to the ENV graph; exposed for tests. solo_Bps[i] and lat_ns[i] for host
 * i (host 0 is the root, its own values ignored); pair_ratio[i * n + j] the mean of the two
 * hosts' rate ratios when probed together (NAN untested) and pair_sum_Bps[i * n + j] their
 * summed rates. names[i] host names. Fills g (initialised here). 0 or negative with e set. */
int probe_build_graph(int n, const char *const *names, const double *solo_Bps,
		      const int64_t *lat_ns, const double *pair_ratio, const double *pair_sum_Bps,
		      const struct probe_opts *o, struct graph *g, struct err *e) WUR;

#endif
