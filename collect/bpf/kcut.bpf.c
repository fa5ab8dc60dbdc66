/* kcut.bpf: socket filter on libpcap's packet socket that copies only the link, IP and TCP
 * headers of a segment whose payload user space (collect/framecut) has declared frame body
 * nobody reads, or that the program found to be body itself by following Open MPI's TCP
 * BTL frames or UCX's TCP records; everything else is copied whole. It also stands in for
 * the capture filter it replaces (see struct kcut_conf). On a packet socket the value
 * returned is the number of bytes copied (0 drops the packet). Built with clang -target
 * bpf. */
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
/* Header buffers on the stack: KCUT_HDR_READ bytes used, rounded up to a power of two so
 * that an index masked with HDR_BUF - 1 is one the verifier can bound at once; walking a
 * loop that tests an unknown offset at every byte instead made it walk path by path. */
#define HDR_BUF 32
_Static_assert(KCUT_HDR_READ <= HDR_BUF, "header bytes fit the buffers");

static __always_inline void
count(__u32 which, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&kcut_count, &which);

	if (c != 0)
		*c += n;	/* per CPU: no other writer */
}

/* Judge the Open MPI frame header h[0..8) (and h[8], the repeated tag, when h9) as
 * parse/ompi.c's ompi_frame does through the probed tables. Returns 1 with the frame's
 * length and the header bytes parse reads, 0 when byte 8 is needed and not there, -1
 * when the header is not followed. */
static __always_inline int
judge(const struct kcut_conf *cf, const __u8 *h, int h9, __u32 *total, __u32 *keep)
{
	__u32 type = h[1], cnt = h[2] | (__u32)h[3] << 8, k, size;

	size = h[4] | (__u32)h[5] << 8 | (__u32)h[6] << 16 | (__u32)h[7] << 24;
	if (type >= 4 || cnt >= 8)
		return -1;
	k = cf->keep[type][cnt][h[0]];
	if (k == 0 || size > cf->frame_max)
		return -1;
	if (k & KCUT_KEEP_TAG8) {
		if (!h9)
			return 0;
		if (h[8] != h[0])
			return -1;
	}
	k &= ~(__u32)KCUT_KEEP_TAG8;
	*total = cf->base[type][cnt] + size;
	*keep = k;
	return *total < k ? -1 : 1;
}

/* Judge the UCX TCP record header whose first have bytes are h ([u8 am_id][u32 len le],
 * for a PUT_REQ also the count of data bytes after the record) as parse/mpich.c's
 * mpich_record does through the probed tables. Returns 1 with the record's length and the
 * bytes parse reads, 0 when more bytes are needed, -1 when it is not followed. */
static __always_inline int
judge_ucx(const struct kcut_ucx *u, const __u8 *h, __u32 have, __u32 *total, __u32 *keep)
{
	__u32 id = h[0], k = u->keep[h[0]], o = u->ext_off[h[0]], len;
	__u64 ext = 0;

	len = h[1] | (__u32)h[2] << 8 | (__u32)h[3] << 16 | (__u32)h[4] << 24;
	if (k == 0 || len < u->len_min[id] || len > u->len_max[id])
		return -1;
	if (o != 0) {
		if (o + 8 > KCUT_HDR_READ)
			return -1;
		if (have < o + 8)
			return 0;
		for (__u32 j = 0; j < 8; j++)	/* o + j < KCUT_HDR_READ: checked above */
			ext |= (__u64)h[(o + j) & (HDR_BUF - 1)] << (8 * j);
		if (ext > u->ext_max)
			return -1;
	}
	*total = KCUT_UCX_HDR + len + (__u32)ext;
	*keep = k == KCUT_KEEP_ALL ? *total : k;
	return *total < *keep ? -1 : 1;
}

/* Judge the header whose first have bytes are h, of the framing ucx says: as judge and
 * judge_ucx, and 0 when more bytes are needed. */
static __always_inline int
judge_any(const struct kcut_conf *cf, __u32 ucx, const __u8 *h, __u32 have, __u32 *total,
	  __u32 *keep)
{
	if (ucx)
		return have < KCUT_UCX_HDR ? 0 : judge_ucx(&cf->ucx, h, have, total, keep);
	return have < 8 ? 0 : judge(cf, h, have >= 9, total, keep);
}

static __always_inline void
set_range(struct kcut_val *v, __u32 lo, __u32 s)
{
	*(volatile __u64 *)&v->lo_s = (__u64)lo | (__u64)s << 32;
}

/* Payload bytes of the segment [seq, seq + plen) that must be copied as the first bytes
 * of a direction the program started following itself (parse classifies by them). */
static __always_inline __u32
prefix_in(struct kcut_val *v, __u32 seq, __u32 plen)
{
	__u32 f = v->keep_to - seq;

	if (!(v->follow & KCUT_FOLLOW_HS))
		return 0;
	if (f >= 0x80000000u) {
		v->follow &= ~(__u32)KCUT_FOLLOW_HS;	/* past it: no compare that wraps later */
		return 0;
	}
	return f < plen ? f : plen;
}

/* Copy payload bytes [0, kept) of the segment and count the rest as cut. */
static __always_inline __u32
cut_at(struct kcut_val *v, __u32 hdr, __u32 seq, __u32 plen, __u32 kept)
{
	__u32 pre = prefix_in(v, seq, plen);

	if (kept < pre)
		kept = pre;
	if (kept < plen) {
		count(KCUT_C_PACKETS, 1);
		count(KCUT_C_BYTES, plen - kept);
	}
	return hdr + kept;
}

/* The header at sequence number hs is cut by the end of the segment that ends at e:
 * h[0..n) are its first bytes. The segment is copied whole. */
static __always_inline __u32
hold(struct kcut_val *v, const __u8 *h, __u32 n, __u32 hs, __u32 e, __u32 len)
{
	__u64 part = 0;

	for (int i = 0; i < KCUT_PART_MAX; i++)
		if (i < n)
			part |= (__u64)h[i] << (8 * i);
	v->part = part;
	set_range(v, e, hs);
	return len;
}

/* The frame whose header (keep bytes of total) starts at sequence number hs was judged
 * and does not end inside the segment [seq, seq + plen): the rest of the segment is its
 * body. Returns the bytes to copy of the segment whose payload starts at hdr. */
static __always_inline __u32
to_body(struct kcut_val *v, __u32 hdr, __u32 seq, __u32 plen, __u32 hs, __u32 total,
	__u32 keep, __u32 len)
{
	__u32 kept = hs + keep - seq;	/* payload bytes up to the header's end */

	if (kept > plen) {
		/* the header's last bytes are in the next segment: copied up to them */
		set_range(v, hs + keep, hs + total);
		return len;
	}
	set_range(v, seq + plen, hs + total);
	return cut_at(v, hdr, seq, plen, kept);
}

/* The segment (payload at hdr, plen bytes, from sequence number seq) holds the next frame
 * (or UCX record) header at payload offset pos: read it and the frames after it in this
 * segment and move the range to the body of the frame whose end lies past the segment.
 * The segment is copied up to the end of that frame's header (what follows is its body); a
 * header cut by the segment's end is held for the next segment (the segment copied whole);
 * one not judged has it copied whole and stops following until user space hands in a new
 * range. */
static __always_inline __u32
follow(struct __sk_buff *skb, struct kcut_conf *cf, struct kcut_val *v, __u32 hdr, __u32 seq,
       __u32 plen, __u32 pos, __u32 len)
{
	__u32 ucx = v->follow & KCUT_FOLLOW_UCX;

	for (int i = 0; i < KCUT_FOLLOW_MAX; i++) {
		__u8 h[HDR_BUF];
		__u32 total, keep, avail = plen - pos;
		int r;

		if (avail >= KCUT_HDR_READ) {
			if (bpf_skb_load_bytes(skb, hdr + pos, h, KCUT_HDR_READ) < 0)
				break;
		} else if (avail >= 9) {
			if (bpf_skb_load_bytes(skb, hdr + pos, h, 9) < 0)
				break;
		} else {
			for (int j = 0; j < 8; j++)
				if (j < avail && bpf_skb_load_bytes(skb, hdr + pos + j, &h[j], 1) < 0)
					goto stop;
		}
		r = judge_any(cf, ucx, h, avail >= KCUT_HDR_READ ? KCUT_HDR_READ :
					   avail >= 9 ? 9 : avail, &total, &keep);
		if (r == 0 && avail <= KCUT_PART_MAX)
			return hold(v, h, avail, seq + pos, seq + plen, len);
		if (r <= 0)
			break;	/* not judged, or more header cut than the map value holds */
		count(KCUT_C_FOLLOWED, 1);
		if (pos + total >= plen)
			return to_body(v, hdr, seq, plen, seq + pos, total, keep, len);
		pos += total;
	}
stop:
	count(KCUT_C_STOPPED, 1);
	return len;
}

/* The segment from sequence number seq is the one after a cut header (n bytes of it at s
 * held in v->part): complete the header and go on following. Anything else stops
 * following at s until user space hands in a new range. */
static __always_inline __u32
complete(struct __sk_buff *skb, struct kcut_conf *cf, struct kcut_val *v, __u32 hdr,
	 __u32 seq, __u32 plen, __u32 s, __u32 n, __u32 len)
{
	__u64 part = v->part;
	__u8 h[HDR_BUF], rest[HDR_BUF];	/* rest: the segment's first bytes */
	__u32 total, keep, have = n, m;		/* m: bytes of rest read */
	int r;

	if (seq != s + n)
		goto stop;	/* not the next segment: out of order, or a retransmission */
	__builtin_memset(rest, 0, sizeof rest);
	/* The header's bytes after the n held ones, read from the segment at once: a read byte
	 * by byte up to an unknown length was walked by the verifier path by path. */
	m = KCUT_HDR_READ - n < plen ? KCUT_HDR_READ - n : plen;
	if (m > 0 && m <= KCUT_HDR_READ) {
		asm volatile("%0 += -1; %0 &= 31; %0 += 1" : "+r"(m));	/* 1..HDR_BUF for the verifier */
		if (bpf_skb_load_bytes(skb, hdr, rest, m) < 0)
			goto stop;
		have = n + m;
	}
	for (int i = 0; i < KCUT_HDR_READ; i++) {
		if (i < n)
			h[i] = (__u8)(part >> (8 * (i & 7)));
		else if (i < have)
			h[i] = rest[(i - n) & (HDR_BUF - 1)];
	}
	r = judge_any(cf, v->follow & KCUT_FOLLOW_UCX, h, have, &total, &keep);
	if (r == 0 && have <= KCUT_PART_MAX)
		return hold(v, h, have, s, seq + plen, len);	/* a tiny segment */
	if (r <= 0)
		goto stop;
	count(KCUT_C_FOLLOWED, 1);
	if (total - n >= plen)
		return to_body(v, hdr, seq, plen, s, total, keep, len);
	set_range(v, s + total, s + total);	/* the next header, read next */
	return follow(skb, cf, v, hdr, seq, plen, total - n, len);
stop:
	set_range(v, s, s);
	count(KCUT_C_STOPPED, 1);
	return len;
}

/* Start following a direction not known yet at sequence number s with the framing how
 * (KCUT_FOLLOW_OMPI or KCUT_FOLLOW_UCX), copying its payload before seq + cf->prefix whole
 * (seq: its first byte; the capture thread takes the entry back if the stream did not
 * start so). Returns the entry, or 0 when the map already had one or is full. */
static __always_inline struct kcut_val *
seed(struct kcut_conf *cf, struct kcut_key *k, __u32 seq, __u32 s, __u32 how)
{
	struct kcut_val nv;

	__builtin_memset(&nv, 0, sizeof nv);
	nv.lo_s = (__u64)s | (__u64)s << 32;
	nv.follow = how | KCUT_FOLLOW_HS;
	nv.keep_to = seq + cf->prefix;
	if (bpf_map_update_elem(&kcut_dirs, k, &nv, BPF_NOEXIST) != 0)
		return 0;
	count(KCUT_C_SEEDED, 1);
	return bpf_map_lookup_elem(&kcut_dirs, k);
}

/* A segment (payload at hdr, plen bytes from sequence number seq, len bytes in all) of a
 * direction not known yet. Open MPI's TCP BTL handshake, alone as Open MPI sends it: the
 * frames start right after it, with the next segment. UCX's magic, first on the
 * initiator's stream: records follow it, in this segment already; and the acceptor, which
 * answers only once the magic and the request came, starts its own stream with a record
 * (the connection reply, no magic) at the byte the segment acknowledges (ack, when
 * has_ack), so its direction is followed from there too (the capture thread takes it back
 * if it did not start so). Either way the program follows the direction from there by
 * itself. Returns the bytes to copy (whole, but for body past the direction's first
 * bytes). */
static __always_inline __u32
handshake(struct __sk_buff *skb, struct kcut_conf *cf, struct kcut_key *k, __u32 hdr,
	  __u32 seq, __u32 plen, __u32 len, __u32 ack, int has_ack)
{
	__u8 m[12];
	struct kcut_val *v;
	struct kcut_key rk;

	if (cf->ucx.magic[0] != 0 && plen >= sizeof cf->ucx.magic &&
	    bpf_skb_load_bytes(skb, hdr, m, 8) == 0) {
		for (int i = 0; i < 8; i++)
			if (m[i] != cf->ucx.magic[i])
				goto ompi;
		v = seed(cf, k, seq, seq + 8, KCUT_FOLLOW_UCX);
		if (v != 0 && has_ack) {
			__builtin_memset(&rk, 0, sizeof rk);
			__builtin_memcpy(rk.src, k->dst, sizeof rk.src);
			__builtin_memcpy(rk.dst, k->src, sizeof rk.dst);
			rk.sport_be = k->dport_be;
			rk.dport_be = k->sport_be;
			rk.af = k->af;
			(void)seed(cf, &rk, ack, ack, KCUT_FOLLOW_UCX);
		}
		if (v == 0 || plen == 8)
			return len;
		return follow(skb, cf, v, hdr, seq, plen, 8, len);
	}
ompi:
	if (cf->hs_len == 0 || plen != cf->hs_len || bpf_skb_load_bytes(skb, hdr + 8, m, 12) < 0)
		return len;
	for (int i = 0; i < 12; i++)
		if (m[i] != cf->hs_magic[i])
			return len;
	(void)seed(cf, k, seq, seq + cf->hs_len, KCUT_FOLLOW_OMPI);
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
	__u32 seq_be, seq, ack_be, off, span, lo, s, d;
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
	if (bpf_skb_load_bytes(skb, l4 + 4, &seq_be, 4) < 0)
		return len;
	seq = bpf_ntohl(seq_be);
	v = bpf_map_lookup_elem(&kcut_dirs, &k);
	if (v == 0) {
		int has_ack = (b[1] & 0x10) && bpf_skb_load_bytes(skb, l4 + 8, &ack_be, 4) == 0;

		return handshake(skb, cf, &k, hdr, seq, plen, len, has_ack ? bpf_ntohl(ack_be) : 0,
				 has_ack);
	}
	lo_s = *(volatile __u64 *)&v->lo_s;
	lo = (__u32)lo_s;
	s = (__u32)(lo_s >> 32);
	off = seq - lo;
	span = s - lo;
	if (span < 0x80000000u && off < span && plen <= span - off)
		return cut_at(v, hdr, seq, plen, 0);
	d = lo - seq;
	if (span < 0x80000000u && d - 1 < plen - 1 && plen - d <= span)
		return cut_at(v, hdr, seq, plen, d);	/* starts before lo (the end of a header
							 * cut by the last segment): up to lo */
	if (v->follow && lo - s - 1 < KCUT_PART_MAX)
		return complete(skb, cf, v, hdr, seq, plen, s, lo - s, len);
	if (!v->follow || s - seq >= plen)
		return len;	/* the next header is not in this segment */
	return follow(skb, cf, v, hdr, seq, plen, s - seq, len);
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
