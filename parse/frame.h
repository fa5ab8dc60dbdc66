/* frame: the engine the record-framed MPI decoders share (parse/ompi.c, parse/mpich.c).
 *
 * A decoder on this layer holds only its wire format: a table of hooks (struct frame_proto)
 * that say how long a header is, what a header means and where a record may start. The
 * engine owns the rest: per direction the state machine (preamble, header, body, lost
 * framing, given up), the messages in flight and their matching keys, world ranks, gaps and
 * capture cuts, resynchronisation after lost framing, and the flush at close. It implements
 * struct decoder's open/data/gap/skip/close/ranks (frame_open ... frame_ranks), so a
 * decoder's table names those and its own detect. See docs/mpi-decoders.md. */
#ifndef PARSE_FRAME_H
#define PARSE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/msg.h"

#define FRAME_HDR_MAX 72	/* longest header a decoder may ask for, bytes */
#define FRAME_WIN_MAX 4		/* receive windows kept per message (newest win) */
#define FRAME_KEYS 3		/* matching keys per message (request ids, message ids) */
#define FRAME_PEND_MAX 256	/* messages in flight per direction */
#define FRAME_QUEUE_MAX 1024	/* messages waiting for their ranks (wait_ranks) */

enum frame_st {
	FS_PRE,		/* reading the direction's preamble (handshake, magic) */
	FS_HDR,		/* collecting a record header */
	FS_BODY,	/* inside a record's body */
	FS_SCAN,	/* framing lost: looking for a record start */
	FS_DEAD,	/* given up */
};

enum frame_judge {	/* what a resync hook says of a candidate position */
	FRAME_NO,	/* no record starts here */
	FRAME_YES,	/* a record starts here */
	FRAME_MORE,	/* cannot tell from these bytes (only while n < resync_max) */
};

struct frame_win {		/* a receive buffer range announced for a message */
	uint64_t addr;		/* receiver virtual address */
	uint64_t size_bytes;
	uint64_t off_bytes;	/* offset of addr in the message */
};

struct frame_msg {		/* a message in flight over several records */
	bool used;
	uint64_t age;		/* creation order, for eviction and close */
	int32_t cid, comm_src, tag;	/* as struct msg */
	uint64_t len_bytes;	/* announced payload length */
	uint64_t got_bytes;	/* data bytes seen so far */
	uint64_t key[FRAME_KEYS];	/* the decoder's matching keys */
	unsigned keyed;		/* bit k: key[k] takes part in frame_pend_by_key */
	struct frame_win win[FRAME_WIN_MAX];
	int nwin;
	enum msg_proto proto;	/* reported when no data record said more */
	bool sync_if_whole;	/* all data came with the first record: PROTO_SYNC */
	bool put_data, frag_data;	/* data came by PUT / by data records */
	bool answered;		/* the receiver's first answer (ACK, PUT control) was seen */
	int64_t t_first_ns, t_last_ns;
	int64_t tsval;		/* struct msg.tsval */
	uint64_t wire_bytes;
	unsigned flags;		/* MSG_F_* */
};

struct frame_dir {
	enum frame_st st;
	uint8_t hdr[FRAME_HDR_MAX];	/* the header (or preamble) collected so far */
	size_t hlen;
	uint64_t body_left;	/* bytes of the current record still to come */
	uint64_t rec_bytes;	/* wire bytes of the current record */
	int64_t t_rec_ns;	/* capture time of the current record's first byte */
	int64_t ts_rec;		/* its segment's TCP timestamp (conn_info.ts_now), -1 none */
	int cur;		/* message the body feeds, -1 none */
	bool eager;		/* the record is the whole message now: emit it at the end */
	struct msg now;		/* that message */
	unsigned next_flags;	/* MSG_F_RESYNC / MSG_F_GAP for the next message */
	uint8_t *q;		/* bytes not consumed yet: resync candidates, replays */
	size_t nq, qoff;	/* bytes in q, and the first not consumed */
	uint64_t scanned_bytes;	/* positions judged not to start a record since the loss */
	struct frame_msg *pend;	/* messages in flight: npend slots, at most FRAME_PEND_MAX */
	size_t npend, pend_cap;
	uint64_t nage;
	bool world_known;	/* the sender's world rank was learned from the wire */
	int32_t world;
	enum rank_src world_src;
	int64_t t_last_ns;
	int64_t t_data_ns;	/* capture time of the last record fed to a message in flight
				 * (frame_feeds), 0 none */
};

struct frame;

/* A wire format: all a decoder gives the engine. */
struct frame_proto {
	enum msg_mpi mpi;
	size_t pre_len[2];	/* preamble bytes first on each direction (0: none) */
	/* The preamble of direction d, pre_len[d] bytes at p, is complete: 0 to go on with
	 * records, -1 to give the direction up (counted bad and fallback), 1 when it is not a
	 * preamble (counted bad; framing is searched from its first byte). */
	int (*preamble)(struct frame *f, int d, const uint8_t *p);
	/* Header bytes the record whose first hlen bytes are hdr needs: > hlen for more, 0
	 * when complete, -1 when it is not a record the decoder accepts. At most
	 * FRAME_HDR_MAX. */
	int (*need)(const uint8_t *hdr, size_t hlen);
	/* Wire bytes of the record whose incomplete header is hdr[0..hlen) (need() > hlen),
	 * when the bytes read tell it; else 0. A gap there skips the record by this. */
	uint64_t (*total)(const uint8_t *hdr, size_t hlen);
	/* The header of direction d is complete (fd->hdr, fd->hlen): call frame_body, then
	 * act on it (start, feed or finish messages; set fd->cur or frame_eager). */
	void (*start)(struct frame *f, int d);
	/* May a record start at p[0..n)? FRAME_MORE only while n < resync_max. */
	enum frame_judge (*resync)(const uint8_t *p, size_t n);
	size_t resync_max;	/* bytes a resync judgement may need */
	int anchor_off;		/* resync() says no where p[anchor_off] != anchor (-1: no anchor) */
	uint8_t anchor;
	uint64_t scan_max;	/* bytes searched for a record before giving up */
	bool wait_ranks;	/* hold messages until both ends' ranks are known */
	bool trunc_bytes_seen;	/* an eager record cut at close reports the bytes seen */
};

struct frame {
	const struct frame_proto *pr;
	struct conn_info ci;
	struct msg_sink sink;
	struct dec_stats *st;
	struct frame_dir d[2];
	struct msg *queue;	/* messages waiting for ranks, at most FRAME_QUEUE_MAX */
	size_t nqueue, queue_cap;
};

/* struct decoder's functions for a decoder on this layer: frame_open returns a state the
 * others take (freed by frame_close). */
void *frame_open(const struct frame_proto *pr, const struct conn_info *ci,
		 const struct msg_sink *sink, struct dec_stats *st);
void frame_data(void *state, int dir, const uint8_t *p, size_t n, int64_t t_ns);
void frame_gap(void *state, int dir, uint64_t n, int64_t t_ns);
void frame_skip(void *state, int dir, uint64_t n, int64_t t_ns);
void frame_close(void *state, int64_t t_ns);
void frame_ranks(void *state, int32_t rank[2]);

/* For the start hooks. */
/* The current record of direction d has body_bytes after its header. */
void frame_body(struct frame *f, int d, uint64_t body_bytes);
/* The current record is a whole message: fd->now, its bytes, cid, comm_src, tag, proto;
 * the rest filled here; emitted when the record ends. */
struct msg *frame_eager(struct frame *f, int d);
/* A new message in flight for direction d, started by the current record (times, wire
 * bytes and pending flags set; len_bytes capped at len_max, counted bad); the body feeds
 * it. The oldest is given up (MSG_F_TRUNC, counted bad) when FRAME_PEND_MAX are in flight.
 * The pointer is valid until the next frame_pend_new of that direction. */
struct frame_msg *frame_pend_new(struct frame *f, int d, uint64_t len_bytes, uint64_t len_max);
/* The newest message of direction d whose key k is v, or -1. */
int frame_pend_by_key(const struct frame_dir *fd, int k, uint64_t v);
/* The message of direction d one of whose windows holds addr (*off its offset), or -1. */
int frame_pend_by_addr(const struct frame_dir *fd, uint64_t addr, uint64_t *off);
/* Add a window to pm (the oldest is dropped past FRAME_WIN_MAX). */
void frame_win_add(struct frame_msg *pm, uint64_t addr, uint64_t size_bytes, uint64_t off_bytes);
/* The body of the current record of direction d is data of message i. */
void frame_feeds(struct frame *f, int d, int i);
/* Emit message i of direction d now with extra flags, and free its slot. */
void frame_pend_emit(struct frame *f, int d, int i, unsigned extra);
/* The sender of direction d is world rank r (learned as src); the first one given wins. */
void frame_set_world(struct frame *f, int d, int32_t r, enum rank_src src);

#endif
