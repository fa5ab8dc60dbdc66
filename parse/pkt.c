/* pkt: link, IP and TCP header decoding for pcap frames, all through lib/rd.h. */
#include "parse/pkt.h"

#include <netinet/in.h>
#include <pcap/dlt.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/rd.h"

#define ETH_IPV4 0x0800
#define ETH_IPV6 0x86dd
#define ETH_VLAN 0x8100
#define ETH_QINQ 0x88a8
#define ETH_VLAN9100 0x9100
#define MAX_VLAN_TAGS 4		/* more stacked tags than this: malformed */
#define MAX_V6_EXT 16		/* more extension headers than this: malformed */

/* Linux cooked capture v2 is DLT 276 (LINKTYPE_LINUX_SLL2); old headers may lack it. */
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

/* READER_COPY: each decoder below reads through a copy of its caller's reader, never
 * written back (every caller returns the decoder's result at once). Stores into *o (bytes)
 * could alias a reader reached through a pointer, and the compiler would then reload the
 * cursor after each of them; a local copy stays in registers. pkt_decode runs for every
 * packet the capture thread takes, so this is a third of its cost. */
static enum pkt_kind
decode_tcp(struct rd *rp, size_t wire_left, struct pkt *o)
{
	struct rd lr = *rp, *r = &lr;	/* see READER_COPY */
	size_t start_left = rd_left(r);
	uint8_t off_flags, hlen;
	struct rd opt;

	o->sport = rd_be16(r);
	o->dport = rd_be16(r);
	o->seq = rd_be32(r);
	o->ack = rd_be32(r);
	off_flags = rd_u8(r);
	o->flags = rd_u8(r) & 0x3f;
	o->win = rd_be16(r);
	rd_skip(r, 4);	/* checksum, urgent pointer */
	if (r->err)
		return PKT_SHORT;
	hlen = (uint8_t)((off_flags >> 4) * 4);
	if (hlen < 20 || hlen > wire_left)
		return PKT_BAD;
	opt = rd_sub(r, hlen - 20u);
	if (opt.err)
		return PKT_SHORT;
	o->mss = 0;
	o->wscale = 0xff;
	o->has_ts = false;
	o->tsval = o->tsecr = 0;
	while (rd_left(&opt) > 0) {
		uint8_t kind = rd_u8(&opt), len;

		if (kind == 0)
			break;
		if (kind == 1)
			continue;
		len = rd_u8(&opt);
		if (opt.err || len < 2)
			break;	/* malformed options do not spoil the segment */
		if (kind == 2 && len == 4)
			o->mss = rd_be16(&opt);
		else if (kind == 3 && len == 3)
			o->wscale = rd_u8(&opt);
		else if (kind == 8 && len == 10) {
			uint32_t val = rd_be32(&opt), ecr = rd_be32(&opt);

			if (opt.err)
				break;	/* cut inside the option: not taken */
			o->has_ts = true;
			o->tsval = val;
			o->tsecr = ecr;
		} else
			rd_skip(&opt, len - 2u);
	}
	o->payload_len = (uint32_t)rd_left(r);
	o->payload_wire = (uint32_t)(wire_left - hlen);
	if (o->payload_len > o->payload_wire)
		o->payload_len = o->payload_wire;	/* link padding after the IP datagram */
	o->payload = o->payload_len ? rd_ptr(r, o->payload_len) : NULL;
	(void)start_left;
	return PKT_TCP;
}

/* wire_frame_left: bytes of this layer and above on the wire (from origlen). */
static enum pkt_kind
decode_ipv4(struct rd *rp, size_t wire_left, struct pkt *o)
{
	struct rd lr = *rp, *r = &lr;	/* see READER_COPY */
	uint8_t vihl = rd_u8(r), proto;
	uint16_t tot, frag;
	size_t ihl;

	rd_skip(r, 1);		/* DSCP/ECN */
	tot = rd_be16(r);
	rd_skip(r, 2);		/* identification */
	frag = rd_be16(r);
	o->ttl = rd_u8(r);
	proto = rd_u8(r);
	rd_skip(r, 2);		/* checksum */
	rd_bytes(r, o->src, 4);
	rd_bytes(r, o->dst, 4);
	if (r->err)
		return PKT_SHORT;
	if (vihl >> 4 != 4)
		return PKT_BAD;
	ihl = (size_t)(vihl & 0xf) * 4;
	/* tot == 0: a segmentation-offloaded frame larger than the field; trust the frame */
	if (tot == 0)
		tot = (uint16_t)(wire_left > 0xffff ? 0xffff : wire_left);
	if (ihl < 20 || tot < ihl)
		return PKT_BAD;
	if (tot > wire_left) {
		if (wire_left < ihl)
			return PKT_BAD;
		tot = (uint16_t)wire_left;	/* frame shorter than the datagram claims */
	}
	rd_skip(r, ihl - 20);
	if (r->err)
		return PKT_SHORT;
	o->af = AF_INET;
	memset(o->src + 4, 0, 12);
	memset(o->dst + 4, 0, 12);
	if ((frag & 0x3fff) != 0)	/* MF set or a non-zero offset */
		return proto == IPPROTO_TCP ? PKT_FRAGMENT : PKT_NOT_TCP;
	if (proto != IPPROTO_TCP)
		return PKT_NOT_TCP;
	/* only the datagram's bytes, not link padding, are TCP */
	if (rd_left(r) > (size_t)tot - ihl)
		r->left = (size_t)tot - ihl;
	return decode_tcp(r, (size_t)tot - ihl, o);
}

static enum pkt_kind
decode_ipv6(struct rd *rp, size_t wire_left, struct pkt *o)
{
	struct rd lr = *rp, *r = &lr;	/* see READER_COPY */
	uint32_t vtcfl = rd_be32(r);
	uint16_t plen = rd_be16(r);
	uint8_t nh = rd_u8(r);
	size_t payload_wire;
	int n;

	o->ttl = rd_u8(r);
	rd_bytes(r, o->src, 16);
	rd_bytes(r, o->dst, 16);
	if (r->err)
		return PKT_SHORT;
	if (vtcfl >> 28 != 6)
		return PKT_BAD;
	if (wire_left < 40)
		return PKT_BAD;
	o->af = AF_INET6;
	/* plen 0: a jumbogram or an offloaded frame; trust the frame */
	payload_wire = plen ? plen : wire_left - 40;
	if (payload_wire > wire_left - 40)
		payload_wire = wire_left - 40;
	for (n = 0; n < MAX_V6_EXT; n++) {
		size_t len;
		uint8_t next;

		switch (nh) {
		case IPPROTO_TCP:
			if (rd_left(r) > payload_wire)
				r->left = payload_wire;
			return decode_tcp(r, payload_wire, o);
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case 135:	/* mobility */
			next = rd_u8(r);
			len = ((size_t)rd_u8(r) + 1) * 8;
			break;
		case IPPROTO_FRAGMENT: {
			uint16_t off_m;

			next = rd_u8(r);
			rd_skip(r, 1);
			off_m = rd_be16(r);
			if (r->err)
				return PKT_SHORT;
			if ((off_m & 0xfff9) != 0)	/* offset or M set */
				return next == IPPROTO_TCP ? PKT_FRAGMENT : PKT_NOT_TCP;
			rd_skip(r, 4);
			len = 8;
			nh = next;
			if (payload_wire < len)
				return PKT_BAD;
			payload_wire -= len;
			continue;
		}
		case IPPROTO_AH:
			next = rd_u8(r);
			len = ((size_t)rd_u8(r) + 2) * 4;
			break;
		default:
			return PKT_NOT_TCP;	/* ESP, no-next-header, UDP, ICMPv6, ... */
		}
		if (r->err)
			return PKT_SHORT;
		if (len > payload_wire)
			return PKT_BAD;
		rd_skip(r, len - 2);
		if (r->err)
			return PKT_SHORT;
		payload_wire -= len;
		nh = next;
	}
	return PKT_BAD;
}

static enum pkt_kind
decode_ethertype(struct rd *rp, uint16_t type, size_t wire_left, struct pkt *o)
{
	struct rd lr = *rp, *r = &lr;	/* see READER_COPY */
	int tags = 0;

	while (type == ETH_VLAN || type == ETH_QINQ || type == ETH_VLAN9100) {
		uint16_t tci = rd_be16(r);

		type = rd_be16(r);
		if (r->err)
			return PKT_SHORT;
		if (tags++ == 0)
			o->vlan = tci & 0x0fff;
		if (tags > MAX_VLAN_TAGS)
			return PKT_BAD;
		if (wire_left < 4)
			return PKT_BAD;
		wire_left -= 4;
	}
	if (type == ETH_IPV4)
		return decode_ipv4(r, wire_left, o);
	if (type == ETH_IPV6)
		return decode_ipv6(r, wire_left, o);
	return PKT_NOT_IP;
}

static enum pkt_kind
decode_ip_any(struct rd *r, size_t wire_left, struct pkt *o)
{
	const uint8_t *p = rd_ptr(r, 1);

	if (p == NULL)
		return PKT_SHORT;
	r->p--, r->left++;	/* peek only */
	if (*p >> 4 == 4)
		return decode_ipv4(r, wire_left, o);
	if (*p >> 4 == 6)
		return decode_ipv6(r, wire_left, o);
	return PKT_NOT_IP;
}

bool
pkt_linktype_known(int linktype)
{
	switch (linktype) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_NULL:
	case DLT_LOOP:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return true;
	default:
		return false;
	}
}

enum pkt_kind
pkt_decode(int linktype, const uint8_t *p, size_t caplen, size_t origlen, struct pkt *o)
{
	struct rd r = rd_make(p, caplen);
	size_t hdr;		/* link header bytes */
	uint16_t type;

	memset(o, 0, sizeof *o);
	if (origlen < caplen)
		origlen = caplen;	/* a damaged record header: trust what we hold */
	switch (linktype) {
	case DLT_EN10MB:
		rd_bytes(&r, o->dmac, 6);
		rd_bytes(&r, o->smac, 6);
		type = rd_be16(&r);
		if (r.err)
			return PKT_SHORT;
		o->has_mac = true;
		if (type <= 1500)
			return PKT_NOT_IP;	/* 802.3 length field: LLC, not IP */
		return decode_ethertype(&r, type, origlen - 14, o);
	case DLT_LINUX_SLL: {
		uint16_t halen;

		rd_skip(&r, 2);		/* packet type */
		rd_skip(&r, 2);		/* ARPHRD type */
		halen = rd_be16(&r);
		rd_bytes(&r, o->smac, 6);
		rd_skip(&r, 2);
		type = rd_be16(&r);
		if (r.err)
			return PKT_SHORT;
		o->has_mac = halen == 6;
		if (!o->has_mac)
			memset(o->smac, 0, 6);
		hdr = 16;
		return decode_ethertype(&r, type, origlen - hdr, o);
	}
	case DLT_LINUX_SLL2: {
		uint8_t halen;

		type = rd_be16(&r);
		rd_skip(&r, 2);		/* reserved */
		rd_skip(&r, 4);		/* interface index */
		rd_skip(&r, 2);		/* ARPHRD type */
		rd_skip(&r, 1);		/* packet type */
		halen = rd_u8(&r);
		rd_bytes(&r, o->smac, 6);
		rd_skip(&r, 2);
		if (r.err)
			return PKT_SHORT;
		o->has_mac = halen == 6;
		if (!o->has_mac)
			memset(o->smac, 0, 6);
		hdr = 20;
		return decode_ethertype(&r, type, origlen - hdr, o);
	}
	case DLT_NULL:
	case DLT_LOOP: {
		/* 4-byte address family: host order for NULL, network order for LOOP */
		const uint8_t *f = rd_ptr(&r, 4);
		uint32_t fam;

		if (f == NULL)
			return PKT_SHORT;
		fam = linktype == DLT_LOOP ? ((uint32_t)f[0] << 24 | (uint32_t)f[1] << 16 | (uint32_t)f[2] << 8 | f[3])
					   : ((uint32_t)f[3] << 24 | (uint32_t)f[2] << 16 | (uint32_t)f[1] << 8 | f[0]);
		/* the writer's byte order may differ from ours: accept both */
		if (fam > 0xffff)
			fam = (fam >> 24) | ((fam >> 8) & 0xff00);
		if (fam == 2)
			return decode_ipv4(&r, origlen - 4, o);
		if (fam == 24 || fam == 28 || fam == 30 || fam == 10)	/* AF_INET6 of BSDs, Linux */
			return decode_ipv6(&r, origlen - 4, o);
		return PKT_NOT_IP;
	}
	case DLT_RAW:
	case 101:	/* LINKTYPE_RAW as written in files, when not mapped */
		return decode_ip_any(&r, origlen, o);
	case DLT_IPV4:
		return decode_ipv4(&r, origlen, o);
	case DLT_IPV6:
		return decode_ipv6(&r, origlen, o);
	default:
		return PKT_LINK_UNSUP;
	}
}

const char *
pkt_kind_name(enum pkt_kind k)
{
	switch (k) {
	case PKT_TCP: return "tcp";
	case PKT_NOT_IP: return "not-ip";
	case PKT_NOT_TCP: return "not-tcp";
	case PKT_FRAGMENT: return "fragment";
	case PKT_SHORT: return "short";
	case PKT_BAD: return "bad";
	case PKT_LINK_UNSUP: return "link-unsupported";
	}
	return "?";
}

/* It reads the fields, not the struct's bytes: the key was just written piecewise by
 * pkt_key_make, and loads that straddle those stores would stall. */
uint64_t
pkt_key_hash(const struct pkt_key *k)
{
	uint64_t w[4], h = 0x9E3779B97F4A7C15ULL;
	int i;

	memcpy(w, k->addr, sizeof w);
	for (i = 0; i < 4; i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
	h ^= (uint64_t)k->port[0] << 24 ^ (uint64_t)k->port[1] << 8 ^ k->af;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 31);
}

static int
end_cmp(const uint8_t a[16], uint16_t pa, const uint8_t b[16], uint16_t pb)
{
	int c = memcmp(a, b, 16);

	if (c)
		return c;
	return pa < pb ? -1 : pa > pb;
}

void
pkt_key_make(const struct pkt *p, struct pkt_key *k, int *src_end)
{
	memset(k, 0, sizeof *k);
	k->af = (uint8_t)p->af;
	if (end_cmp(p->src, p->sport, p->dst, p->dport) <= 0) {
		memcpy(k->addr[0], p->src, 16), k->port[0] = p->sport;
		memcpy(k->addr[1], p->dst, 16), k->port[1] = p->dport;
		*src_end = 0;
	} else {
		memcpy(k->addr[0], p->dst, 16), k->port[0] = p->dport;
		memcpy(k->addr[1], p->src, 16), k->port[1] = p->sport;
		*src_end = 1;
	}
}
