/* otf2out: a run as an OTF2 archive (Open Trace Format 2, libotf2 3.0), for Vampir,
 * Scalasca, otf2-print and the OTF2 Python bindings. The only module that uses libotf2.
 *
 * OUT/traces.otf2 (anchor), OUT/traces.def and OUT/traces/ (one event file per location).
 * One location (a CPU thread) per rank in a location group (an MPI process) per rank,
 * under a system tree node per host, under one "cluster" root. Each busy phase is an
 * Enter/Leave of region "computing", each idle phase of "waiting"; each message an
 * MpiSend on the sender's location at its first byte and an MpiRecv on the receiver's at
 * its last, with the communicator (one per context id seen), tag and size, and attributes
 * "collective" (the collective behind the tag, when known) and "wire_ns". Timestamps are
 * CLOCK_REALTIME nanoseconds (timer resolution 1e9, global offset the earliest event).
 * Mapping and limits in docs/export.md. */
#ifndef EXPORT_OTF2OUT_H
#define EXPORT_OTF2OUT_H

#include "export/xtrace.h"
#include "lib/err.h"

struct otf2out_stats {
	long enters;		/* Enter events (as many Leave events) */
	long sends, recvs;	/* MpiSend and MpiRecv events */
	int comms;		/* communicators defined */
};

/* Write x as an archive in directory dir (created; an archive already there, its
 * traces.otf2, traces.def and traces/ files, is removed first). Returns 0, or negative
 * with e set. */
int otf2out_write(const struct xtrace *x, const char *dir, struct otf2out_stats *st, struct err *e) WUR;

/* libotf2's version, e.g. "otf2 3.0.2". */
const char *otf2out_lib_version(void);

#endif
