/* msg: what the stream decoders hand to parse: rebuilt MPI (or generic) messages, and the
 * interface every decoder implements (Open MPI ob1/TCP, MPICH ch4:ucx/UCX-TCP, generic).
 *
 * The TCP layer (parse/tcpr.*) delivers each direction of a connection as an ordered byte
 * stream, one call per contiguous piece, stamped with the capture time of the packet that
 * carried it; holes it cannot fill (snaplen cuts, capture loss, caps) arrive as gap calls.
 * A decoder never sees packets, only these streams. */
#ifndef PARSE_MSG_H
#define PARSE_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum msg_mpi {		/* which decoder produced the message */
	MSG_GENERIC = 0,	/* paper 003's method: a run of bytes in one direction */
	MSG_OMPI = 1,		/* Open MPI 4.1 ob1 over the TCP BTL */
	MSG_MPICH = 2,		/* MPICH 4.0 ch4:ucx over UCX's TCP transport */
};

enum msg_proto {	/* how the message crossed the wire */
	PROTO_UNKNOWN = 0,
	PROTO_EAGER,		/* all data in the first fragment(s) */
	PROTO_SYNC,		/* eager synchronous (MPI_Ssend): data plus an ack */
	PROTO_RNDV_PUT,		/* rendezvous, data by PUT (ob1 RGET/PUT, UCX RNDV PUT) */
	PROTO_RNDV_FRAG,	/* rendezvous, data by FRAGs (ob1 non-contiguous / pipeline) */
	PROTO_CTRL,		/* protocol control with no user payload (acks, RTR, ATP) */
};

enum rank_src {		/* how the world ranks of a message's ends were learned */
	RANKSRC_NONE = 0,
	RANKSRC_HANDSHAKE,	/* Open MPI BTL handshake (jobid, vpid) */
	RANKSRC_UCPTAG,		/* MPICH: sender rank in the 64-bit UCP tag */
	RANKSRC_SOCKMAP,	/* collect's socket map (local ip:port -> rank) */
};

#define MSG_F_GAP 0x1		/* a capture gap touched this message: size/time are bounds */
#define MSG_F_TRUNC 0x2		/* the stream ended (FIN/RST/end of capture) inside it */
#define MSG_F_RESYNC 0x4	/* the decoder lost framing before it and resynchronised */
#define MSG_F_BEHIND 0x8	/* a rendezvous whose receiver answered it (ob1's ACK or PUT
				 * control) behind data of its own to the sender that went
				 * after the request came: over a slower link its data wait
				 * for those (docs/parse.md, "An answer behind data") */
#define MSG_F_AFTER_ANSWER 0x10	/* a rendezvous request its sender made after answering one
				 * of its receiver's that was still to come: the receiver
				 * sends those data first, and over a slower link answers
				 * this one behind them (the same section) */

/* One rebuilt message. */
struct msg {
	int64_t t_first_ns;	/* capture time of its first byte on the wire (CLOCK_REALTIME) */
	int64_t t_last_ns;	/* capture time of its last byte */
	int32_t src_world;	/* world rank of the sender, -1 unknown */
	int32_t dst_world;	/* world rank of the receiver, -1 unknown */
	int32_t cid;		/* communicator context id, -1 unknown */
	int32_t comm_src;	/* sender's rank in that communicator, -1 unknown */
	int32_t tag;		/* MPI tag (negative: collective), INT32_MIN unknown */
	uint64_t bytes;		/* user payload bytes (generic: stream bytes) */
	uint64_t wire_bytes;	/* bytes it took on the wire, headers included */
	enum msg_mpi mpi;
	enum msg_proto proto;
	enum rank_src ranksrc;
	unsigned flags;		/* MSG_F_* */
	int conn;		/* connection index (parse assigns), for joins with links */
	int dir;		/* 0: connection initiator to acceptor, 1: the other way */
	int64_t tsval;		/* the sender's TCP timestamp (TSval, unwrapped: conn_info.ts_now)
				 * of the segment that carried the first byte, -1 none */
	int64_t queued_ns;	/* how long that segment waited in the queue between the
				 * sender's TCP and the capture (parse's merge sets it from tsval:
				 * parse/part.h), 0 none, -1 unknown */
};

/* Where decoders put messages. */
struct msg_sink {
	void (*emit)(void *ctx, const struct msg *m);	/* m is borrowed for the call */
	void *ctx;
};

/* What a decoder knows about its connection when it is opened. */
struct conn_info {
	int conn;		/* index for struct msg.conn */
	int af;			/* AF_INET or AF_INET6 */
	uint8_t addr[2][16];	/* [dir 0 sender, i.e. initiator; dir 1] addresses, network order */
	uint16_t port[2];	/* ports, host order: [0] initiator's, [1] acceptor's */
	bool saw_syn;		/* the connection's start was captured (else mid-stream) */
	int32_t rank[2];	/* world rank of each end if already known (sockmap), else -1 */
	/* Per direction, while data(), gap() or skip() runs: the sender's TCP timestamp of the
	 * segment that carried those bytes (TSval unwrapped past 2^32, so it only grows), -1
	 * when it had none; a message takes its first byte's (struct msg.tsval). Borrowed
	 * until close; NULL when nobody tracks it (the decoder then sets tsval -1). */
	const int64_t *ts_now;
};

/* Per-decoder statistics, summed by parse into RUN/profile/stats.tsv. */
struct dec_stats {
	uint64_t msgs;		/* messages emitted */
	uint64_t ctrl;		/* control records seen (acks, RTR, ...) */
	uint64_t resyncs;	/* framing lost and found again */
	uint64_t bad;		/* records rejected as malformed */
	uint64_t gaps;		/* gaps met */
	uint64_t fallback;	/* streams given up to the generic decoder */
};

/* A decoder: a table of functions, one instance per connection. */
struct decoder {
	const char *name;	/* "ompi", "mpich", "generic" */
	/* How sure (0..100) that a connection whose first bytes in direction dir are p[0..n)
	 * speaks this protocol; 0 = no. n may be short; must not read past n. */
	int (*detect)(const uint8_t *p, size_t n, int dir);
	/* A fresh per-connection state; messages go to sink. NULL is not allowed. */
	void *(*open)(const struct conn_info *ci, const struct msg_sink *sink,
		      struct dec_stats *st);
	/* The next n in-order bytes of direction dir, carried by a packet captured at t_ns. */
	void (*data)(void *state, int dir, const uint8_t *p, size_t n, int64_t t_ns);
	/* n bytes of direction dir are missing here (capture cut or loss). */
	void (*gap)(void *state, int dir, uint64_t n, int64_t t_ns);
	/* n bytes of direction dir were left out on purpose by the capture (a framed capture
	 * keeps only the bytes the decoders read): skipped silently where the decoder did not
	 * need them, else handled as a gap. NULL: always a gap. */
	void (*skip)(void *state, int dir, uint64_t n, int64_t t_ns);
	/* The connection ended (FIN, RST, end of capture): emit what is pending, free state. */
	void (*close)(void *state, int64_t t_ns);
	/* The world ranks the decoder learned for each end (-1 unknown); may be NULL. */
	void (*ranks)(void *state, int32_t rank[2]);
};

extern const struct decoder dec_ompi;	/* parse/ompi.c */
extern const struct decoder dec_mpich;	/* parse/mpich.c */
extern const struct decoder dec_ompi_ucx;	/* parse/ompi_ucx.c: Open MPI over UCX */
extern const struct decoder dec_generic;	/* parse/generic.c */

const char *msg_proto_name(enum msg_proto p);
const char *msg_mpi_name(enum msg_mpi m);
const char *rank_src_name(enum rank_src r);
/* The name of an MPI collective behind a negative tag, or NULL (per MPI implementation). */
const char *msg_tag_name(enum msg_mpi m, int32_t tag);
/* The name of the collective behind (cid, tag), or NULL: as msg_tag_name for Open MPI; for
 * MPICH, whose collectives use small positive tags in the collective context (odd cid),
 * names them only when cid is odd. Static strings. */
const char *msg_tag_name_cid(enum msg_mpi m, int32_t cid, int32_t tag);

#endif
