/* pcapin: reads captured packets from pcap or pcapng files, plain or gzip-compressed
 * (the only module of parse that touches libpcap).
 *
 * Timestamps are delivered in nanoseconds whatever the file's precision. A file that is
 * damaged or cut short gives every good packet before the damage, then a negative
 * return (-E_TRUNC or -E_FORMAT) with the reason; the caller counts it as a warning. */
#ifndef PARSE_PCAPIN_H
#define PARSE_PCAPIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

struct pcapin;

/* Packet times are clamped to [0, PCAPIN_MAX_T_NS] (about year 2116): differences of two
 * times never overflow. */
#define PCAPIN_MAX_T_NS ((int64_t)1 << 62)

/* One packet, borrowed until the next pcapin_next or pcapin_close. */
struct pcapin_pkt {
	int64_t t_ns;		/* capture time, ns since the epoch (CLOCK_REALTIME), clamped */
	const uint8_t *data;	/* caplen captured bytes */
	uint32_t caplen;	/* bytes captured */
	uint32_t origlen;	/* bytes on the wire (>= caplen in a sane file) */
	int linktype;		/* DLT_* of the file (pcap_datalink) */
};

/* Open path (pcap or pcapng, gzip detected by magic). NULL with e set when the file
 * cannot be opened or is not a capture ("unknown file format"). Close with pcapin_close. */
struct pcapin *pcapin_open(const char *path, struct err *e) WUR;
/* The same over n bytes in memory (copied; for tests and fuzzing). */
struct pcapin *pcapin_open_mem(const void *p, size_t n, struct err *e) WUR;
/* Next packet: 1, 0 at a clean end, or negative with e set (-E_TRUNC: the file or its
 * gzip stream ends inside a record; -E_FORMAT: a damaged record, or damaged gzip data,
 * the message naming its compressed offset). After a negative
 * return every later call returns 0. */
int pcapin_next(struct pcapin *in, struct pcapin_pkt *pkt, struct err *e) WUR;
int pcapin_linktype(const struct pcapin *in);
/* Compressed or plain bytes consumed so far, for progress (-1 when unknown). */
int64_t pcapin_offset(const struct pcapin *in);
bool pcapin_is_gzip(const struct pcapin *in);
/* Accepts NULL. */
void pcapin_close(struct pcapin *in);

#endif
