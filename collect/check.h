/* check: read a run directory back and list what is missing or damaged. */
#ifndef COLLECT_CHECK_H
#define COLLECT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

#define CHECK_MAX_PROBLEMS 200	/* problems kept as text; more are counted */

struct check_report {
	char **problems;	/* owned, one line each */
	size_t nproblems, cap;
	long more_problems;	/* past CHECK_MAX_PROBLEMS */
	int nranks, nnodes;
	long files, sample_rows, packets;
	/* what the observation kept and cost (from the node and rank metadata) */
	char payload[64];	/* "framed", "full", "cut", a comma list if nodes differ, "" none */
	int64_t bytes_captured, bytes_written;	/* summed over nodes; -1 when not recorded */
	int64_t framing_lost, framing_found, framing_gave_up;
	char kernel_cut[64];	/* node metadata kernel_cut: "yes", "no", "unavailable", a comma
				 * list if nodes differ, "" none recorded */
	int64_t kernel_cut_packets, kernel_cut_bytes, kernel_cut_mismatch;	/* summed */
	int64_t observer_cpu_ns, app_cpu_ns;	/* agents' and applications' CPU, summed */
	int observer_charged;	/* ranks whose agent's CPU came out of the ranks' */
	int observer_recorded;	/* ranks whose metadata says where their agent ran */
	int64_t start_cost_ns;	/* longest agent start before its application's (start_cost_ns) */
	int64_t stop_cost_ns;	/* longest node stop after its last rank (stop_cost_ns) */
				/* both -1 when not recorded (runs before 2026-11-26) */
};

/* Check RUN: meta files, one sample file and socket map per rank, a node meta, node load
 * and capture per node. Fills r (release with check_report_release, also after a
 * failure). Returns 0 when the check ran (problems or not), negative with e set when
 * RUN itself cannot be read. */
int check_run(const char *run, struct check_report *r, struct err *e) WUR;
void check_report_release(struct check_report *r);

/* Walk a pcap byte stream (plain or gzip) at path: 0 when whole, negative with e set
 * (-E_FORMAT not a pcap or damaged, -E_TRUNC cut short). *packets counts the whole
 * records before any problem. */
int check_pcap(const char *path, long *packets, struct err *e) WUR;

#endif
