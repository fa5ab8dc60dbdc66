/* mpich: the MPICH 4.0 ch4:ucx decoder (UCP tag messages over UCX's TCP transport); see
 * docs/mpi-decoders.md.
 *
 * Use it through the table dec_mpich (parse/msg.h). One state per TCP connection: dir 0 is
 * the initiator (its stream starts with the 8-byte UCT magic), dir 1 the acceptor. Both
 * directions may carry messages (UCX's ACK_WITH_REQ makes one socket serve both ways).
 * World ranks come from UCP tags of MPI_COMM_WORLD messages, else from conn_info.rank;
 * messages wait (at most 1024) until both ends are known, so they may reach the sink later
 * than, and not in the order of, their last byte; close flushes them. Limits below are caps:
 * values past them are counted in dec_stats.bad and the stream resynchronises. */
#ifndef PARSE_MPICH_H
#define PARSE_MPICH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/frame.h"
#include "parse/msg.h"

#define MPICH_MAGIC_LEN 8	/* the initiator's UCT magic, first on its stream */
#define MPICH_MAGIC "\x78\x56\x34\x12\xbe\xba\xfe\xca"	/* 0xCAFEBABE12345678 le */
#define MPICH_AM_MAX (16u << 20)	/* largest UCT active message length believed, bytes */
#define MPICH_MSG_MAX (UINT64_C(1) << 40)	/* largest message / PUT length believed */
#define MPICH_SCAN_MAX (UINT64_C(16) << 20)	/* bytes searched for a record before giving up */
#define UCX_SCAN_WIN 4096	/* bytes a resync judgement may look ahead */

/* The framing of the UCT TCP record whose first bytes are p[0..n), for a capture that keeps
 * only what this decoder reads: 0 with *total (wire bytes of the record, header and a PUT
 * request's raw data included) and *keep (its first bytes the decoder reads) set; > 0, the
 * bytes needed to tell, when n is short; -1 when p does not start a record it accepts. */
int mpich_record(const uint8_t *p, size_t n, uint64_t *total, uint64_t *keep);
/* Does p[0..n) start a believable record (the test this decoder resynchronises on)? */
bool mpich_record_plausible(const uint8_t *p, size_t n);

/* For decoders of other MPIs over UCX 1.13's TCP transport (parse/ompi_ucx.c): the records
 * are the same, only the MPI's layout of the 64-bit UCP tag differs. Such a decoder's
 * frame_proto is UCX_FRAME_PROTO(mpi), first member of a struct ucx_proto, and its struct
 * decoder names ucx_detect and the frame_* functions. */
struct ucx_proto {
	struct frame_proto fp;	/* first: the engine's f->pr points here */
	/* Split a UCP tag into communicator context id, sender's comm rank and MPI tag. */
	void (*tag)(uint64_t tag, int32_t *cid, int32_t *comm_src, int32_t *t);
	/* true with *rank the sender's world rank when the tag names MPI_COMM_WORLD. */
	bool (*world)(uint64_t tag, int32_t *rank);
};

int ucx_detect(const uint8_t *p, size_t n, int dir);
int ucx_preamble(struct frame *f, int d, const uint8_t *p);
int ucx_record_need(const uint8_t *hdr, size_t hlen);
uint64_t ucx_total(const uint8_t *hdr, size_t hlen);
void ucx_start(struct frame *f, int d);
enum frame_judge ucx_resync(const uint8_t *p, size_t n);

#define UCX_FRAME_PROTO(mpi_) { \
	.mpi = (mpi_), .pre_len = { MPICH_MAGIC_LEN, 0 }, .preamble = ucx_preamble, \
	.need = ucx_record_need, .total = ucx_total, .start = ucx_start, .resync = ucx_resync, \
	.resync_max = UCX_SCAN_WIN, .anchor_off = -1, .scan_max = MPICH_SCAN_MAX, \
	.wait_ranks = true }

#endif
