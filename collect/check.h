/* check: read a run directory back and list what is missing or damaged. */
#ifndef COLLECT_CHECK_H
#define COLLECT_CHECK_H

#include <stddef.h>

#include "lib/err.h"

#define CHECK_MAX_PROBLEMS 200	/* problems kept as text; more are counted */

struct check_report {
	char **problems;	/* owned, one line each */
	size_t nproblems, cap;
	long more_problems;	/* past CHECK_MAX_PROBLEMS */
	int nranks, nnodes;
	long files, sample_rows, packets;
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
