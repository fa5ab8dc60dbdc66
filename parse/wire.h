/* wire: which bytes of a TCP byte stream the MPI decoders read, for a capture that keeps
 * only those.
 *
 * One state per direction of a connection follows the stream's framing as the decoders
 * do (Open MPI's TCP BTL frames through ompi_frame, UCX's TCP records through
 * mpich_record: the wire facts stay in the decoders) and says, for every piece of the
 * stream, up to where it must be kept: the first WIRE_PREFIX bytes (parse classifies a
 * connection by them), handshakes, every frame's or record's header and the part of its
 * body the decoder reads; not the rest of the body. Where the framing is not known (the
 * capture began mid-stream, a byte the framing needed was lost, a header did not decode),
 * everything is kept while the framing is searched for again with the decoders' own
 * resynchronisation tests, and cutting starts again only after WIRE_CONFIRM records in a
 * row decoded. A stream that is neither protocol needs only its first WIRE_PREFIX bytes
 * (the generic decoder reads lengths only). */
#ifndef PARSE_WIRE_H
#define PARSE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_PREFIX 256		/* first bytes of every direction always kept */
#define WIRE_CONFIRM 3		/* records decoded in a row before cutting again */
#define WIRE_SCAN_MAX (UINT64_C(16) << 20)	/* bytes searched before giving up */
#define WIRE_HDR_MAX 128	/* longest header either decoder reads */

enum wire_proto { WIRE_UNKNOWN, WIRE_OMPI, WIRE_MPICH, WIRE_OTHER };

enum wire_state {
	WS_DETECT,	/* collecting the first bytes to tell the protocol */
	WS_HDR,		/* collecting a frame/record header */
	WS_KEEP,	/* bytes to keep: a handshake, the read part of a body */
	WS_SKIP,	/* body bytes the decoder skips */
	WS_LOST,	/* framing not known: keep everything, search */
	WS_OTHER,	/* not an MPI stream (or given up): only the prefix */
};

/* Counters, summed over directions by the caller. */
struct wire_stats {
	uint64_t lost;		/* times framing was lost (gap, bad header, mid-stream start) */
	uint64_t found;		/* times it was found again and confirmed */
	uint64_t gave_up;	/* directions given up after WIRE_SCAN_MAX bytes */
	uint64_t lost_bytes;	/* bytes kept whole while the framing was not known */
};

struct wire_dir {
	enum wire_proto proto;	/* the protocol followed (a candidate while confirming) */
	bool known;		/* proto was seen at the stream's start or confirmed */
	enum wire_state st;
	bool acceptor;		/* the connection's accepting side sends this direction */
	uint64_t off;		/* stream offset of the next byte */
	uint8_t hdr[WIRE_HDR_MAX];
	size_t hlen;
	uint64_t left;		/* bytes left in WS_KEEP / WS_SKIP */
	uint64_t skip_after;	/* WS_SKIP bytes that follow the WS_KEEP part */
	unsigned confirm;	/* records still to decode before cutting again */
	uint64_t scanned;	/* bytes searched since framing was lost */
};

/* A direction whose stream starts here (its SYN was seen: from_start) or whose first bytes
 * were not seen (searched for framing). acceptor: sent by the side that accepted. */
void wire_init(struct wire_dir *w, bool from_start, bool acceptor, struct wire_stats *st);
/* The next n bytes of the stream. Returns k (0..n): p[0..k) must be kept, p[k..n) need not. */
size_t wire_feed(struct wire_dir *w, const uint8_t *p, size_t n, struct wire_stats *st);
/* n bytes of the stream are missing (not captured, or cut by a capture that kept less). */
void wire_gap(struct wire_dir *w, uint64_t n, struct wire_stats *st);
const char *wire_proto_name(enum wire_proto p);

#endif
