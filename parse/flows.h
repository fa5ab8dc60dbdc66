/* flows: the TCP connection table of parse. Packets go in (from parse/pkt), each direction
 * is reassembled (parse/tcpr), the connection is classified (launcher traffic from
 * parse/launch, else an MPI decoder whose detect() claims its first bytes, else
 * dec_generic) and its bytes are fed to that decoder, whose messages come out through a
 * callback with the world ranks filled in from the decoder or from a rank lookup.
 *
 * Memory is bounded by the number of concurrent connections (max_conns, set at creation;
 * connections past it are counted and ignored) and the per-direction caps of tcpr.
 * Closed connections are forgotten LINGER seconds of capture time after their end. */
#ifndef PARSE_FLOWS_H
#define PARSE_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "parse/launch.h"
#include "parse/msg.h"
#include "parse/pkt.h"
#include "parse/tcpr.h"

enum flows_mpi {	/* --mpi */
	FLOWS_MPI_AUTO = 0,	/* try every MPI decoder, then generic */
	FLOWS_MPI_GENERIC,	/* generic only */
	FLOWS_MPI_OMPI,		/* Open MPI's decoder, else generic */
	FLOWS_MPI_MPICH,	/* MPICH's decoder, else generic */
	FLOWS_MPI_OMPI_UCX,	/* UCX streams as Open MPI's (pml ucx), else generic */
};

#define FLOWS_DEC_OMPI_UCX 3	/* stats index of dec_ompi_ucx (the others: enum msg_mpi) */
#define FLOWS_NDEC 4		/* stats indexes: generic, ompi, mpich, ompi-ucx */

/* What a finished connection looked like (for RUN/profile/conns.tsv and netparams). */
struct flows_conn {
	int conn;		/* index, as in struct msg.conn */
	int af;
	uint8_t addr[2][16];	/* [0] initiator, [1] acceptor */
	uint16_t port[2];
	bool saw_syn;		/* the three-way handshake's SYN was captured */
	const char *kind;	/* decoder name, launcher kind ("orte-oob", ...) or "none" */
	int32_t rank[2];	/* world ranks, -1 unknown */
	enum rank_src ranksrc;
	uint64_t pkts[2];	/* packets sent by each end */
	uint64_t frame_bytes[2];	/* their lengths on the wire, link headers included */
	uint64_t payload_bytes[2];	/* TCP payload on the wire */
	uint64_t gap_bytes[2];	/* payload bytes delivered as gaps */
	int64_t t_first_ns, t_last_ns;
	int64_t rtt_ns;		/* SYN -> ACK of the handshake, -1 unknown */
	uint8_t ttl[2];		/* last TTL / hop limit seen from each end */
	uint8_t mac[2][6];	/* source MAC of each end's frames (zero if none) */
	bool has_mac[2];
	uint16_t vlan;
	/* For a merge of captures parsed apart (parse/part.h): */
	bool open_syn;		/* its first packet was a SYN without ACK */
	uint32_t open_seq;	/* that packet's sequence number */
	uint32_t syn_isn;	/* the initiator's SYN's sequence number (with saw_syn) */
	int dec_idx;		/* enum msg_mpi of its decoder, -1 none */
	int launch;		/* enum launch_kind of launcher traffic, -1 none */
	uint64_t bytes;		/* stream bytes given to its decoder or counted as launcher's */
	/* Each end's TCP timestamp clock, by direction (the sender's): ns a TSval tick is
	 * (1000000 or 1000, flows_ts_unit), 0 when not known (no option, or a clock of
	 * another rate); and the smallest capture time less TSval in ns over the direction's
	 * segments, the time of one that did not wait between TCP and the capture. */
	int64_t ts_unit_ns[2], ts_zero_ns[2];
	struct tcpr_stats tcp;	/* its share of flows_stats.tcp */
	struct dec_stats dec;	/* its share of flows_stats.dec[dec_idx] */
};

struct flows_cb {
	/* A message (borrowed for the call); conn and ranks are filled in. */
	void (*msg)(void *ctx, const struct msg *m);
	/* A connection is finished (borrowed for the call). May be NULL. */
	void (*conn)(void *ctx, const struct flows_conn *c);
	/* The world rank owning (af, addr, port), or -1; may be NULL. */
	int32_t (*rank_of)(void *ctx, int af, const uint8_t addr[16], uint16_t port);
	void *ctx;
};

struct flows_config {
	enum flows_mpi mpi;
	bool ucx_is_ompi;	/* auto: UCX streams are Open MPI's (pml ucx), not MPICH's */
	size_t max_conns;	/* concurrent connections (0: 65536) */
	size_t max_buf_bytes;	/* tcpr cap per direction (0: default) */
	size_t max_segs;	/* tcpr cap per direction (0: default) */
};

/* Everything counted, summed over all captures. */
struct flows_stats {
	uint64_t packets, frame_bytes;	/* every frame read */
	uint64_t kinds[PKT_LINK_UNSUP + 1];	/* frames by pkt_kind */
	uint64_t tcp_payload_bytes;	/* TCP payload on the wire */
	uint64_t conns;			/* connections seen */
	uint64_t conns_max_concurrent;
	uint64_t conns_midstream;	/* start not captured */
	uint64_t conns_port_reuse;	/* a new SYN on a known 4-tuple */
	uint64_t conns_cap_hits;	/* connections ignored because max_conns was reached */
	uint64_t conns_dup;		/* already parsed from an earlier capture */
	uint64_t orphan_pkts;		/* segments of no known connection without SYN or data */
	uint64_t launcher_conns[LAUNCH_NKINDS], launcher_bytes[LAUNCH_NKINDS];
	uint64_t dec_conns[FLOWS_NDEC], dec_bytes[FLOWS_NDEC];	/* by decoder stats index */
	struct dec_stats dec[FLOWS_NDEC];	/* per decoder */
	struct tcpr_stats tcp;
};

/* One direction's TCP timestamps as the capture saw them (for flows_conn.ts_*). */
struct flows_ts {
	uint64_t n;		/* segments with the option */
	uint32_t last;		/* the last TSval seen */
	int64_t ext;		/* it unwrapped past 2^32 (it starts at TSval + 2^32) */
	int64_t t0_ns, t1_ns;	/* capture times of the first and the last */
	int64_t min_off[2], max_off[2];	/* capture ns - ext * tick, for a ms and a us tick */
};

/* Add a segment with TSval tsval captured at t_ns to ts; returns the unwrapped TSval. */
int64_t flows_ts_add(struct flows_ts *ts, uint32_t tsval, int64_t t_ns);
/* The clock's tick in ns and its zero (the smallest capture ns less TSval in ns): the tick
 * of a millisecond or a microsecond clock, the one whose offsets spread least (a wrong
 * one drifts by the capture's span); 0 when there is no segment, or when even that one
 * spreads over half the span and 200 ms (a clock of another rate). */
int64_t flows_ts_unit(const struct flows_ts *ts, int64_t *zero_ns);

struct flows;

/* Create a table. cb is copied. Free with flows_free. */
struct flows *flows_new(const struct flows_config *cfg, const struct flows_cb *cb);
/* One decoded TCP segment captured at t_ns whose frame was origlen bytes on the wire. */
void flows_tcp(struct flows *f, const struct pkt *p, int64_t t_ns, uint32_t origlen);
/* One frame as read from a capture: decodes it and counts it; TCP goes to flows_tcp. */
void flows_frame(struct flows *f, int linktype, const uint8_t *data, uint32_t caplen,
		 uint32_t origlen, int64_t t_ns);
/* The end of one capture file: close every open connection (decoders flush), and remember
 * the connections so the same ones in a later capture (the other end's node) are skipped,
 * times and all. parse itself gives each capture a table of its own and merges them
 * (parse/part.h), where the skipped copy's message times are used. */
void flows_end_capture(struct flows *f);
const struct flows_stats *flows_stats(const struct flows *f);
/* Add a finished connection's share (its count, decoder or launcher bytes, reassembly and
 * decoder counters) to st, or with take, take it back out of st. */
void flows_stats_conn(struct flows_stats *st, const struct flows_conn *k, bool take);
/* Closes what is open (as flows_end_capture) and frees. Accepts NULL. */
void flows_free(struct flows *f);

/* The MPI decoders built into this binary, NULL-terminated. */
extern const struct decoder *const flows_mpi_decoders[];

#endif
