/* perfetto: a run as a Chrome trace event file (JSON), for ui.perfetto.dev and
 * chrome://tracing.
 *
 * One process per host (pid = host index + 1), one thread per rank (tid = world rank + 1) with
 * its busy and idle phases as complete slices; each message a zero-length "send" slice on
 * the sender at its first byte and a "recv" slice on the receiver at its last, joined by a
 * flow arrow, with size, tag and communicator in the args; counters per host for the
 * node's CPU load (all of it, and the part not run by the run's ranks) and per directed
 * host pair for the throughput of the run's messages. Mapping in docs/export.md. */
#ifndef EXPORT_PERFETTO_H
#define EXPORT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "export/xtrace.h"
#include "lib/err.h"

struct perfetto_stats {
	long slices;		/* busy and idle slices */
	long sends, recvs;	/* message slices (one flow each) */
	long counters;		/* counter samples */
};

/* Write x to path (replaced atomically through path.tmp). bin_ns: the throughput counters'
 * bin (0: the run's length / 500, at least 1 ms). Returns 0, or negative with e set. */
int perfetto_write(const struct xtrace *x, const char *path, int64_t bin_ns, struct perfetto_stats *st,
		   struct err *e) WUR;

/* Write s to f as a JSON string literal (quotes included): ", \ and control characters
 * escaped, bytes that are not UTF-8 replaced by U+FFFD. */
void perfetto_json_str(FILE *f, const char *s);

#endif
