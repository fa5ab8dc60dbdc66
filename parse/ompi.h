/* ompi: the Open MPI 4.1 decoder (PML ob1 over the TCP BTL); see docs/mpi-decoders.md.
 *
 * Use it through the table dec_ompi (parse/msg.h). One state per TCP connection: dir 0 is
 * the connection's initiator (its 24-byte handshake carries the initiator's vpid = world
 * rank), dir 1 the acceptor. Messages are emitted when their last data byte has been seen
 * (eager and sync at the end of their frame, rendezvous when all hdr_msg_length bytes came);
 * messages still in flight at close are emitted with MSG_F_TRUNC. Limits below are caps:
 * values past them are counted in dec_stats.bad and the stream resynchronises. */
#ifndef PARSE_OMPI_H
#define PARSE_OMPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/msg.h"

#define OMPI_HS_LEN 24		/* the handshake each side sends first (mca_btl_tcp_endpoint_hs_msg_t) */
#define OMPI_HS_MAGIC "OPAL-TCP-BTL"	/* at the handshake's byte 8 */
#define OMPI_FRAME_MAX (64u << 20)	/* largest BTL frame size believed, bytes */
#define OMPI_MSG_MAX (UINT64_C(1) << 40)	/* largest message length believed, bytes */
#define OMPI_SCAN_MAX (UINT64_C(16) << 20)	/* bytes searched for a frame before giving up */

/* The framing of the BTL frame whose first bytes are p[0..n), for a capture that keeps only
 * what this decoder reads: 0 with *total (wire bytes of the frame, header included) and
 * *keep (its first bytes the decoder reads) set; > 0, the bytes needed to tell, when n is
 * short; -1 when p does not start a frame this decoder accepts. */
int ompi_frame(const uint8_t *p, size_t n, uint64_t *total, uint64_t *keep);
/* Does p[0..n) start a believable SEND frame (the test this decoder resynchronises on)? */
bool ompi_frame_plausible(const uint8_t *p, size_t n);

#endif
