/* kcut.bpf: socket filter on libpcap's packet socket that copies only the link, IP and TCP
 * headers of a segment whose payload user space (collect/framecut) has declared frame body
 * nobody reads; everything else is copied whole. It also stands in for the capture
 * filter it replaces (see struct kcut_conf). On a packet socket the value returned is the
 * number of bytes copied (0 drops the packet). Built with clang -target bpf. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "collect/kcut_map.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KCUT_MAX_DIRS);
	__type(key, struct kcut_key);
	__type(value, struct kcut_val);
} kcut_dirs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kcut_conf);
} kcut_conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KCUT_NCOUNT);
	__type(key, __u32);
	__type(value, __u64);
} kcut_count SEC(".maps");

#define TCP_FIN_SYN_RST 0x07

static __always_inline void
count(__u32 which, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&kcut_count, &which);

	if (c != 0)
		*c += n;	/* per CPU: no other writer */
}

/* The segment (payload at hdr, plen bytes, from sequence number seq) holds the next frame
 * header at payload offset pos: read it and the frames after it in this segment, as
 * parse/ompi.c's ompi_frame does through the probed tables, and move the range to the
 * body of the frame whose end lies past the segment. The segment is copied up to the end
 * of that frame's header (what follows is its body); a header cut by the segment's end,
 * or one not judged, has it copied whole and stops following until user space hands in a
 * new range. */
static __always_inline __u32
follow(struct __sk_buff *skb, struct kcut_conf *cf, struct kcut_val *v, __u32 hdr, __u32 seq,
       __u32 plen, __u32 pos, __u32 len)
{
	for (int i = 0; i < KCUT_FOLLOW_MAX; i++) {
		__u8 h[8], tag8;
		__u32 size, keep, total, type, cnt;

		if (pos + 8 > plen || bpf_skb_load_bytes(skb, hdr + pos, h, 8) < 0)
			break;
		type = h[1];
		cnt = h[2] | (__u32)h[3] << 8;
		size = h[4] | (__u32)h[5] << 8 | (__u32)h[6] << 16 | (__u32)h[7] << 24;
		if (type >= 4 || cnt >= 8)
			break;
		keep = cf->keep[type][cnt][h[0]];
		if (keep == 0 || size > cf->frame_max)
			break;
		total = cf->base[type][cnt] + size;
		if ((keep & KCUT_KEEP_TAG8) &&
		    (pos + 9 > plen || bpf_skb_load_bytes(skb, hdr + pos + 8, &tag8, 1) < 0 ||
		     tag8 != h[0]))
			break;
		keep &= ~(__u32)KCUT_KEEP_TAG8;
		if (total < keep || pos + keep > plen)
			break;
		count(KCUT_C_FOLLOWED, 1);
		if (pos + total >= plen) {
			/* the rest of the segment is this frame's body: copied up to its header */
			*(volatile __u64 *)&v->lo_s = (__u64)(seq + plen) |
						      (__u64)(seq + pos + total) << 32;
			if (pos + keep < plen) {
				count(KCUT_C_PACKETS, 1);
				count(KCUT_C_BYTES, plen - pos - keep);
			}
			return hdr + pos + keep;
		}
		pos += total;
	}
	count(KCUT_C_STOPPED, 1);
	return len;
}

SEC("socket")
int
kcut(struct __sk_buff *skb)
{
	__u32 len = skb->len, zero = 0, l3, l4, hdr, plen;
	__u16 proto_be, ports[2], iplen_be, frag_be;
	__u8 b[2], nxt, doff;
	struct kcut_key k;
	struct kcut_conf *cf = bpf_map_lookup_elem(&kcut_conf, &zero);
	struct kcut_val *v;
	__u32 seq_be, seq, off, span, lo, s;
	__u64 lo_s;

	if (cf == 0)
		return len;
	__builtin_memset(&k, 0, sizeof k);
	proto_be = (__u16)skb->protocol;	/* the ethertype, network order (VLAN tag offloaded) */
	l3 = cf->l3_off;
	if (proto_be == bpf_htons(0x0800)) {
		if (bpf_skb_load_bytes(skb, l3, b, 1) < 0 ||
		    bpf_skb_load_bytes(skb, l3 + 9, &nxt, 1) < 0)
			return cf->tcp_only ? 0 : len;
		if (nxt != 6)
			return cf->tcp_only ? 0 : len;
		if (bpf_skb_load_bytes(skb, l3 + 2, &iplen_be, 2) < 0 ||
		    bpf_skb_load_bytes(skb, l3 + 6, &frag_be, 2) < 0)
			return len;
		if (frag_be & bpf_htons(0x3fff))
			return len;	/* a fragment: no ports to judge (the filter keeps it) */
		if ((b[0] >> 4) != 4 || (b[0] & 15) < 5)
			return len;
		l4 = l3 + (b[0] & 15) * 4;
		plen = bpf_ntohs(iplen_be);
		if (plen < (__u32)(b[0] & 15) * 4)
			return len;
		plen -= (b[0] & 15) * 4;
		k.af = 4;
		if (bpf_skb_load_bytes(skb, l3 + 12, k.src, 4) < 0 ||
		    bpf_skb_load_bytes(skb, l3 + 16, k.dst, 4) < 0)
			return len;
	} else if (proto_be == bpf_htons(0x86dd)) {
		if (bpf_skb_load_bytes(skb, l3 + 6, &nxt, 1) < 0)
			return cf->tcp_only ? 0 : len;
		if (nxt != 6)	/* extension headers: kept whole, not judged */
			return cf->tcp_only && nxt != 44 ? 0 : len;
		if (bpf_skb_load_bytes(skb, l3 + 4, &iplen_be, 2) < 0)
			return len;
		l4 = l3 + 40;
		plen = bpf_ntohs(iplen_be);
		k.af = 6;
		if (bpf_skb_load_bytes(skb, l3 + 8, k.src, 16) < 0 ||
		    bpf_skb_load_bytes(skb, l3 + 24, k.dst, 16) < 0)
			return len;
	} else {
		return cf->tcp_only ? 0 : len;
	}
	if (bpf_skb_load_bytes(skb, l4, ports, 4) < 0)
		return len;
	for (int i = 0; i < KCUT_MAX_PORTS; i++) {
		__u16 p = cf->drop_port[i];

		if (p != 0 && (ports[0] == bpf_htons(p) || ports[1] == bpf_htons(p)))
			return 0;
	}
	if (bpf_skb_load_bytes(skb, l4 + 12, b, 2) < 0)
		return len;
	doff = (b[0] >> 4) * 4;
	if (doff < 20 || plen <= doff || (b[1] & TCP_FIN_SYN_RST))
		return len;
	plen -= doff;
	hdr = l4 + doff;
	if (hdr + plen > len)
		return len;	/* the frame ends before the IP length says: not judged */
	k.sport_be = ports[0];
	k.dport_be = ports[1];
	v = bpf_map_lookup_elem(&kcut_dirs, &k);
	if (v == 0)
		return len;
	if (bpf_skb_load_bytes(skb, l4 + 4, &seq_be, 4) < 0)
		return len;
	lo_s = *(volatile __u64 *)&v->lo_s;
	lo = (__u32)lo_s;
	s = (__u32)(lo_s >> 32);
	seq = bpf_ntohl(seq_be);
	off = seq - lo;
	span = s - lo;
	if (span < 0x80000000u && off < span && plen <= span - off) {
		count(KCUT_C_PACKETS, 1);
		count(KCUT_C_BYTES, len - hdr);
		return hdr;
	}
	if (!v->follow || s - seq >= plen)
		return len;	/* the next header is not in this segment */
	return follow(skb, cf, v, hdr, seq, plen, s - seq, len);
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
