/* kcut: the in-kernel half of a framed capture's cut. An eBPF socket filter
 * (collect/bpf/kcut.bpf.c) attached to libpcap's packet sockets copies into the capture
 * ring only the link, IP and TCP headers of a segment whose payload user space declared
 * frame body nobody reads (kcut_set), so the kernel no longer copies what collect/framecut
 * would cut anyway. On Open MPI and UCX (MPICH) directions it then reads the next frame or
 * record headers itself and copies a segment that holds one up to that header's end.
 * Unknown directions and anything the program cannot parse are copied whole. The program
 * also applies the capture filter it replaces on the socket (TCP only, some ports
 * dropped), so it is attached only where that filter is known to it.
 * This is the only module that uses libbpf. Ethernet framing (DLT_EN10MB) only. */
#ifndef COLLECT_KCUT_H
#define COLLECT_KCUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

#define KCUT_MIN_SKIP 4096u	/* body bytes ahead worth a map update */

struct kcut;

/* Load the program and its maps. l3_off: bytes before the IP header in what the socket
 * hands the filter (14 for an Ethernet packet socket). tcp_only and drop_ports[0..nports)
 * (nports at most KCUT_MAX_PORTS from collect/kcut_map.h) are the capture filter it stands
 * in for.
 * Returns 0 with *out set (caller frees with kcut_free), or negative with e saying why it
 * cannot be used here (-E_PERM no CAP_BPF, -E_UNSUP the kernel refused it). */
int kcut_open(struct kcut **out, unsigned l3_off, bool tcp_only, const uint16_t *drop_ports, size_t nports,
	      struct err *e) WUR;
/* Attach to the packet socket fd, replacing its filter. Returns 0, or -E_IO with e set. */
int kcut_attach(struct kcut *k, int fd, struct err *e) WUR;
/* Payload of the direction src:sport -> dst:dport (af 4 or 6; addresses as in struct pkt,
 * ports in host order) with sequence numbers in [lo, s) need not be copied. follow
 * KCUT_FOLLOW_OMPI or KCUT_FOLLOW_UCX (collect/kcut_map.h; 0: a range only): the
 * direction carries Open MPI TCP BTL frames or UCX TCP records and s is where a header
 * starts: the program then follows them on by itself, and a later call with an s the
 * program has already passed is left out (the program is ahead of the caller). The
 * program also begins following a direction not in the map at a segment that is Open
 * MPI's handshake or starts with UCX's magic (copying its first WIRE_PREFIX bytes whole):
 * kcut_del takes that back. Otherwise replaces an earlier decision. A full map is counted
 * in kcut_counters' map_full. k NULL: nothing. */
void kcut_set(struct kcut *k, int af, const uint8_t *src, const uint8_t *dst, uint16_t sport,
	      uint16_t dport, uint32_t lo, uint32_t s, unsigned follow);
/* Forget the direction's decision (framing lost, connection over). k NULL: nothing. */
void kcut_del(struct kcut *k, int af, const uint8_t *src, const uint8_t *dst, uint16_t sport,
	      uint16_t dport);

struct kcut_counters {
	uint64_t packets;	/* segments the kernel cut */
	uint64_t bytes;		/* bytes it did not copy */
	uint64_t followed;	/* frame and record headers the program read itself */
	uint64_t stopped;	/* times it stopped following (a header not judged, or the
				 * segment after a cut header not next) */
	uint64_t handshakes;	/* directions it began following at their start (Open MPI's
				 * handshake, UCX's magic) */
	uint64_t updates;	/* decisions written */
	uint64_t map_full;	/* decisions not written: the map was full */
};
/* Run the program once on frame p[0..len) (BPF_PROG_TEST_RUN: the kernel removes an
 * Ethernet header first, so open with l3_off 0) and set *copy to the bytes it would copy,
 * for tests. Returns 0, or -E_IO with e set. */
int kcut_run(struct kcut *k, const uint8_t *p, size_t len, uint32_t *copy, struct err *e) WUR;
void kcut_counters(const struct kcut *k, struct kcut_counters *out);
/* Detach nothing (closing the sockets does), free the program and maps. Accepts NULL. */
void kcut_free(struct kcut *k);

#endif
