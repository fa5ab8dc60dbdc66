/* part: one capture parsed alone into files (a part), and the deterministic merge of the
 * parts of a run into what one parse of all its captures gives.
 *
 * A part is DIR/NAME.msgs.bin (every message in the order the decoders emitted them),
 * DIR/NAME.conns.tsv (every connection, in the order they were finished, with what the
 * merge needs to recognise it in another capture and to take its counters back out) and
 * DIR/NAME.stats.tsv (the capture's counters and warnings, ending with "complete yes").
 * The formats are in docs/formats.md; they are an intermediate between two runs of the
 * same contend version, and the merge refuses parts of another one.
 *
 * The merge takes the parts in capture order. A connection already parsed from an
 * earlier capture (the other end's node saw it too) is left out with its messages and
 * its counters, as a single parse skips it, but its message times are used: the merged
 * copy's messages take their arrival from the receiver's capture (part_merge_twins).
 * Connection indices are numbered across the parts in order. Parts are independent, so they can be made at once on threads or on
 * the nodes that hold the captures. */
#ifndef PARSE_PART_H
#define PARSE_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "parse/flows.h"

#define PART_VERSION 1

/* What a part (or the merge of several) counted besides messages and connections. */
struct part_sum {
	uint64_t pcap_files, pcap_unreadable, pcap_truncated, pcap_damaged;
	uint64_t nmsgs;		/* messages in the part's file (for one part) */
	struct flows_stats st;
	/* The merge's messages of connections a later part captured at their other end
	 * (part_merge_twins): */
	uint64_t twin_msgs;	/* matched with that copy's message */
	uint64_t twin_first;	/* of them, t_first_ns taken from that copy (the sender's) */
	uint64_t twin_last;	/* of them, t_last_ns taken from that copy (the receiver's) */
	uint64_t twin_unmatched;	/* not matched: the two decodes differ (a loss), or the cap */
};

/* Parse the capture at path alone into the part DIR/NAME.*. rank_of(rctx, ...) gives
 * world ranks (may be NULL) and is called from the caller's thread: several part_parse
 * may run at once if it is safe to call concurrently. Damage in the capture is a warning
 * kept in the part; returns 0, or negative with e set when the part cannot be written. */
int part_parse(const char *path, const char *dir, const char *name, const struct flows_config *cfg,
	       int32_t (*rank_of)(void *, int, const uint8_t *, uint16_t), void *rctx,
	       struct err *e) WUR;

struct part_merge;

/* A merge that hands messages and connections to cb (cb->msg, cb->conn with cb->ctx;
 * rank_of unused) and the parts' warnings, in order, to warn(cb->ctx, msg). A part made
 * with another cfg (or idle gap) than this one is refused; cfg NULL takes any. Free with
 * part_merge_free. */
struct part_merge *part_merge_new(const struct flows_cb *cb, const struct flows_config *cfg,
				  void (*warn)(void *, const char *));
/* Before the first part_merge_add, with every part the merge will add (names[0..n), in
 * the order they will be added): find the connections that two parts hold, captured at
 * both of their ends, and keep the later copy's message times, so that each message of
 * the copy that is merged gets its first byte's time from the sender's capture and its
 * last byte's (the arrival) from the receiver's. The messages of one connection and
 * direction are matched in order while their sizes, tags and protocols agree. The later
 * copies' times go to a temporary file (tmpfile) per part holding kept copies, 32 bytes
 * a message, and are read back when that part is added: the merge holds one part's at a
 * time, 24 bytes a message, at most 4 Mi messages (past it, or when no temporary file can be written, the
 * messages keep one capture's times, counted in twin_unmatched). Without this call every
 * message keeps its own capture's times. Parts that cannot be read are left out
 * (part_merge_add says why). */
void part_merge_twins(struct part_merge *m, const char *dir, char *const *names, size_t n);
/* Merge the part DIR/NAME, after every part added before. Returns 0, or negative with e
 * set when the part is missing, of another version or damaged: what was read before the
 * damage is merged, the rest is not. */
int part_merge_add(struct part_merge *m, const char *dir, const char *name, struct err *e) WUR;
/* The merged counters, valid until part_merge_free. */
const struct part_sum *part_merge_sum(const struct part_merge *m);
void part_merge_free(struct part_merge *m);

/* Remove the files of part DIR/NAME (missing ones are fine). */
void part_remove(const char *dir, const char *name);

#endif
