/* generic: paper 003's protocol-blind message rebuilding, the decoder dec_generic.
 *
 * A message is a maximal run of payload bytes in one direction of a connection: it ends
 * when payload appears in the other direction, when the stream pauses for longer than
 * the idle gap between two packets, or when the connection closes. Its size is the run's
 * byte count (gaps included, flagged MSG_F_GAP); its times are those of its first and
 * last packet. The decoder (struct decoder dec_generic) is declared in parse/msg.h. */
#ifndef PARSE_GENERIC_H
#define PARSE_GENERIC_H

#include <stdint.h>

#define GENERIC_DEFAULT_IDLE_GAP_NS 1000000	/* 1 ms */

/* Set the idle gap (ns, > 0) for connections opened from now on. Not thread-safe: call it
 * once before parsing starts. */
void generic_set_idle_gap(int64_t idle_gap_ns);
int64_t generic_idle_gap(void);

#endif
