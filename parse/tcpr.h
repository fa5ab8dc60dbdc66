/* tcpr: TCP reassembly of one direction of a connection into an ordered byte stream.
 *
 * Segments are handed in capture order; bytes come out in stream order through the
 * callbacks, each piece stamped with the capture time of the segment that carried it.
 * Handled: out-of-order segments (held until the hole is filled), retransmissions and
 * overlaps (the first copy wins; differing bytes in an overlap are counted), sequence
 * wraparound at 2^32 (offsets are 64-bit), a capture that starts mid-connection (the first
 * segment seen sets the origin), FIN and RST, and snaplen-cut segments (the missing tail
 * is delivered through cut(), or as a gap without one). Holes never filled (capture loss) are delivered as gaps when the
 * peer acknowledges past them (tcpr_dir_ack), the buffered bytes reach the cap, or the
 * direction is flushed.
 *
 * Memory: at most max_buf_bytes of payload and max_segs segments are held per direction;
 * reaching either is counted in tcpr_stats.cap_hits and resolved by skipping the first
 * hole (a gap), never by failing. In-order segments are delivered without a copy. */
#ifndef PARSE_TCPR_H
#define PARSE_TCPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a direction's bytes go. Pointers passed to data() are borrowed for the call. */
struct tcpr_out {
	void (*data)(void *ctx, const uint8_t *p, size_t n, int64_t t_ns);
	void (*gap)(void *ctx, uint64_t n, int64_t t_ns);
	/* n bytes the capture did not keep on purpose (a snaplen or a framed capture cut the
	 * segment); NULL: delivered through gap. */
	void (*cut)(void *ctx, uint64_t n, int64_t t_ns);
	void *ctx;
};

/* Counters, shared by many directions (the caller sums them into stats.tsv). */
struct tcpr_stats {
	uint64_t segments;		/* segments with payload handed in */
	uint64_t bytes_delivered;	/* payload bytes delivered in order */
	uint64_t retrans_segs;		/* segments wholly or partly already seen */
	uint64_t retrans_bytes;		/* payload bytes seen before (first copy kept) */
	uint64_t conflict_bytes;	/* overlapping bytes that differed from the first copy */
	uint64_t ooo_segs;		/* segments that arrived ahead of a hole */
	uint64_t gaps;			/* gaps delivered */
	uint64_t gap_bytes;		/* bytes in those gaps */
	uint64_t cut_segs;		/* segments cut by the snaplen */
	uint64_t cut_bytes;		/* bytes of those cut tails delivered through cut() */
	uint64_t cap_hits;		/* times a per-direction cap forced a gap */
	uint64_t acked_holes;		/* holes given up because the peer acknowledged past them */
	uint64_t after_fin_bytes;	/* payload past a FIN, ignored */
	uint64_t before_start_bytes;	/* payload before the origin of a mid-stream start, ignored */
};

struct tcpr_seg;

/* One direction. Zero-initialise with tcpr_dir_init; release with tcpr_dir_release. */
struct tcpr_dir {
	bool started;		/* origin known */
	bool syn;		/* the origin came from a SYN */
	bool fin;		/* a FIN was seen: fin_off is the stream end */
	bool closed;		/* flushed; later segments are ignored */
	uint32_t isn;		/* sequence number of stream offset 0 */
	uint64_t next;		/* next stream offset to deliver */
	uint64_t fin_off;	/* stream offset of the FIN */
	struct tcpr_seg *head;	/* held out-of-order segments, sorted by offset */
	size_t held_bytes;	/* payload bytes held */
	size_t held_segs;	/* segments held */
	size_t max_buf_bytes;	/* cap on held_bytes */
	size_t max_segs;	/* cap on held_segs */
	/* A value of the caller's carried with each segment (parse: its TCP timestamp):
	 * tag_in is the next segment's, set before tcpr_dir_segment (held segments keep it);
	 * while out's callbacks run, tag_out is that of the segment whose bytes they are
	 * given. -1 after tcpr_dir_init. */
	int64_t tag_in, tag_out;
};

#define TCPR_DEFAULT_MAX_BUF (4u << 20)
#define TCPR_DEFAULT_MAX_SEGS 4096u

/* Set up d empty with its caps (0: the defaults above). */
void tcpr_dir_init(struct tcpr_dir *d, size_t max_buf_bytes, size_t max_segs);

/* Hand in a segment of this direction: seq and flags (PKT_TCP_* values) from its header,
 * the captured payload p[0..caplen) and its length on the wire wirelen (>= caplen; the
 * missing tail is a gap). Delivers whatever becomes in order. */
void tcpr_dir_segment(struct tcpr_dir *d, uint32_t seq, uint8_t flags, const uint8_t *p,
		      size_t caplen, size_t wirelen, int64_t t_ns, const struct tcpr_out *out,
		      struct tcpr_stats *st);

/* The peer acknowledged this direction up to sequence number ack: a hole below it with
 * data held beyond it was received by the peer but not captured, so it is delivered as a
 * gap now (instead of when the caps are reached). Holes with nothing held after them wait
 * for the data (a segment precedes its ACK in a capture taken at either end). */
void tcpr_dir_ack(struct tcpr_dir *d, uint32_t ack, int64_t t_ns, const struct tcpr_out *out,
		  struct tcpr_stats *st);

/* The direction is over (RST, connection closed, end of capture): deliver everything
 * held, with gaps for the holes, and free it. Later segments are ignored. */
void tcpr_dir_flush(struct tcpr_dir *d, int64_t t_ns, const struct tcpr_out *out,
		    struct tcpr_stats *st);

/* Free what is held without delivering it. Accepts a zeroed dir. */
void tcpr_dir_release(struct tcpr_dir *d);

/* Stream offset of sequence number seq relative to d's origin, taking the one nearest to
 * d->next (so it is right across a wrap at 2^32); negative before the origin. */
int64_t tcpr_dir_offset(const struct tcpr_dir *d, uint32_t seq);

#endif
