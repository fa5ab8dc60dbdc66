/* framecut: decides, packet by packet, how much of each captured frame a framed capture
 * keeps: the link, IP and TCP headers and the bytes of the payload the MPI decoders read
 * (parse/wire), so that messages are rebuilt exactly while the payload they skip by
 * length is left out. The written packet is a prefix of the frame (caplen < len), still
 * valid pcap.
 *
 * Each direction of every TCP connection is reassembled (parse/tcpr, with small caps) and
 * its framing followed in stream order. A packet is kept whole when its bytes cannot be
 * judged yet (it arrived ahead of a hole) or the framing is not known (parse/wire keeps
 * everything then and counts it); a retransmission of bytes already judged keeps only its
 * headers (parse reads the first copy). Packets that are not TCP are kept whole. Memory:
 * at most max_conns connections, each with the reassembly caps below. */
#ifndef COLLECT_FRAMECUT_H
#define COLLECT_FRAMECUT_H

#include <stddef.h>
#include <stdint.h>

#include "parse/wire.h"

#define FRAMECUT_MAX_CONNS 16384
#define FRAMECUT_HOLD_BYTES (256u << 10)	/* out-of-order bytes held per direction */
#define FRAMECUT_HOLD_SEGS 256u

struct framecut_stats {
	uint64_t packets;	/* frames judged */
	uint64_t cut;		/* frames written shorter than captured */
	uint64_t bytes_in;	/* captured bytes of those frames */
	uint64_t bytes_kept;	/* bytes written */
	uint64_t whole_ahead;	/* frames kept whole because they came ahead of a hole */
	uint64_t untracked;	/* frames of connections past max_conns, kept whole */
	uint64_t conns;		/* connections followed */
	uint64_t dirs[4];	/* directions by protocol found (enum wire_proto) */
	struct wire_stats wire;	/* framing lost, found, given up, bytes kept while lost */
	uint64_t holes;		/* reassembly gaps (capture loss or caps) */
	/* with a kernel cut (framecut_use_kcut) */
	uint64_t kcut_seen;		/* frames that came cut by the kernel */
	uint64_t kcut_seen_bytes;	/* payload bytes the kernel left out of them */
	uint64_t kcut_mismatch;		/* kernel-cut bytes that were not skipped body (framing
					 * lost there; 0 unless something is wrong) */
};

struct framecut;
struct kcut;

/* A cutter for frames of link type linktype (DLT_*); max_conns 0: FRAMECUT_MAX_CONNS. */
struct framecut *framecut_new(int linktype, size_t max_conns);
/* How many of the first bytes of frame p[0..caplen) (origlen on the wire) to write. */
size_t framecut_keep(struct framecut *f, const uint8_t *p, size_t caplen, size_t origlen);
/* Have the kernel cut too (collect/kcut; borrowed, outlives f): whenever a direction's
 * framing is known to skip at least KCUT_MIN_SKIP bytes of body ahead (an Open MPI
 * direction as soon as its next header's place is known: the kernel follows on), that range is handed
 * to k; frames that arrive cut (caplen < origlen) are then taken as body the
 * kernel left out, not as capture loss, and reassembly and framing go on past them. */
void framecut_use_kcut(struct framecut *f, struct kcut *k);
/* The counters so far (directions by protocol include the open connections). */
void framecut_stats(const struct framecut *f, struct framecut_stats *out);
void framecut_free(struct framecut *f);

#endif
