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

#include <stdint.h>

#include "parse/msg.h"

#define MPICH_AM_MAX (16u << 20)	/* largest UCT active message length believed, bytes */
#define MPICH_MSG_MAX (UINT64_C(1) << 40)	/* largest message / PUT length believed */
#define MPICH_SCAN_MAX (UINT64_C(16) << 20)	/* bytes searched for a record before giving up */

/* The listening address that direction dir's connection request named (UCX sends the
 * initiator's own listener, ip and port, in its CONN_REQ): with collect's socket map it ties
 * the initiator to a rank before any MPI_COMM_WORLD message. af is AF_INET or AF_INET6 (Linux
 * values), addr network order (4 or 16 bytes used), port host order. state is a dec_mpich
 * state, valid until close. Returns 0, or -1 when none was seen. */
int mpich_listener(void *state, int dir, int *af, uint8_t addr[16], uint16_t *port);

#endif
