/* simgrid: a run as a SimGrid platform and a time-independent trace per rank, for SMPI's
 * replay (SimGrid 3.32: `smpirun -replay`). SimGrid's formats are text: nothing is linked.
 *
 * DIR/platform.xml: one host per node at the given speed, each with its own link (the
 * node's share of the network: the bandwidth of its local network from RUN/topology.tsv,
 * else the measured B of netparams.tsv, and half the measured one-way latency L), and a
 * route between every two hosts through their two links; the SMPI bandwidth and latency
 * factors set to 1 in a <config> block so that the links mean what they say.
 * DIR/hostfile: the host of each rank, in rank order. DIR/rank-R.txt: the rank's actions
 * in time order: `compute` for the busy time between two messages (seconds x speed),
 * `isend DST TAG SIZE` at a message's first byte, `recv SRC TAG SIZE` at its last;
 * `init` and `finalize` around them. DIR/traces.txt lists the rank files. DIR/replay.sh
 * runs the replay; DIR/README the measured time to compare with. Mapping in
 * docs/export.md. */
#ifndef EXPORT_SIMGRID_H
#define EXPORT_SIMGRID_H

#include "export/xtrace.h"
#include "lib/err.h"

struct simgrid_stats {
	long computes;		/* compute actions */
	long sends, recvs;	/* isend and recv actions */
	double busy_s;		/* the busy time the computes stand for, all ranks */
	int64_t measured_ns;	/* the run's measured time (the longest rank), for the README */
};

/* Write x to directory dir (created; the files above replaced). speed_flops: each host's
 * speed. Returns 0, or negative with e set. */
int simgrid_write(const struct xtrace *x, const char *dir, double speed_flops, struct simgrid_stats *st,
		  struct err *e) WUR;

#endif
