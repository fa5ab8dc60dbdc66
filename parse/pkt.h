/* pkt: decodes one captured frame down to TCP: link layer (Ethernet, Linux cooked SLL and
 * SLL2, BSD null/loopback, raw IP), 802.1Q/802.1ad tags, IPv4 and IPv6 (extension headers
 * skipped), TCP with options. Every byte is read through lib/rd.h.
 *
 * References: IEEE 802.3/802.1Q; tcpdump.org LINKTYPE_LINUX_SLL/SLL2/NULL pages; RFC 791,
 * RFC 8200 (IPv6 and its extension headers), RFC 9293 (TCP), RFC 7323 (timestamps). */
#ifndef PARSE_PKT_H
#define PARSE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pkt_kind {		/* what pkt_decode found */
	PKT_TCP = 0,		/* a TCP segment: every field of struct pkt is set */
	PKT_NOT_IP,		/* ARP, LLDP, ... */
	PKT_NOT_TCP,		/* IP but UDP, ICMP, ESP, ... */
	PKT_FRAGMENT,		/* an IP fragment (not reassembled; counted) */
	PKT_SHORT,		/* the capture ends inside the link/IP/TCP headers */
	PKT_BAD,		/* a malformed header (bad version, lengths that contradict) */
	PKT_LINK_UNSUP,		/* a link type this module does not decode */
};

#define PKT_TCP_FIN 0x01
#define PKT_TCP_SYN 0x02
#define PKT_TCP_RST 0x04
#define PKT_TCP_PSH 0x08
#define PKT_TCP_ACK 0x10

/* One decoded TCP segment. payload is borrowed from the frame. */
struct pkt {
	int af;			/* AF_INET or AF_INET6 */
	uint8_t src[16], dst[16];	/* addresses, network order (IPv4 in the first 4 bytes) */
	uint16_t sport, dport;	/* host order */
	uint8_t smac[6], dmac[6];	/* link addresses (zero when the link has none) */
	bool has_mac;		/* Ethernet: both MACs; SLL/SLL2: smac only */
	uint16_t vlan;		/* outermost 802.1Q VLAN id, 0 when untagged */
	uint8_t ttl;		/* IPv4 TTL or IPv6 hop limit */
	uint32_t seq, ack;	/* TCP sequence and acknowledgement numbers */
	uint8_t flags;		/* PKT_TCP_* */
	uint16_t win;		/* raw window field */
	uint16_t mss;		/* MSS option on SYN, 0 if absent */
	uint8_t wscale;		/* window-scale option, 0xff if absent */
	bool has_ts;		/* the timestamp option (kind 8, RFC 7323) was there, whole */
	uint32_t tsval, tsecr;	/* its sender's clock when TCP sent the segment (Linux: ms,
				 * before the qdisc) and the peer's value echoed; 0 if absent */
	const uint8_t *payload;	/* captured payload bytes */
	uint32_t payload_len;	/* captured payload length */
	uint32_t payload_wire;	/* payload length on the wire (from the IP length); > payload_len
				 * when the capture cut the packet (snaplen) */
};

/* Decode frame p[0..caplen) of link type linktype (DLT_*); origlen is the length on the wire.
 * Returns a pkt_kind; only PKT_TCP fills *out completely. Never reads outside p[0..caplen). */
enum pkt_kind pkt_decode(int linktype, const uint8_t *p, size_t caplen, size_t origlen,
			 struct pkt *out);
const char *pkt_kind_name(enum pkt_kind k);
/* True when pkt_decode decodes link type linktype (else every frame is PKT_LINK_UNSUP). */
bool pkt_linktype_known(int linktype);

/* A connection's two ends in canonical order (the lower address and port first), the same
 * for both directions. */
struct pkt_key {
	uint8_t addr[2][16];	/* first: pkt_key_hash reads them as aligned words */
	uint16_t port[2];
	uint8_t af;
};

/* The key of p's connection; *src_end is the key end (0 or 1) that sent p. */
void pkt_key_make(const struct pkt *p, struct pkt_key *k, int *src_end);
/* A 64-bit mix of the key (called once per packet, so it must be cheap). */
uint64_t pkt_key_hash(const struct pkt_key *k);

#endif
