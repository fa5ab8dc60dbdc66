/* kcut_map: the layout of the maps the in-kernel cut (collect/bpf/kcut.bpf.c) shares with
 * user space (collect/kcut.c). Included by both: plain fixed-width types only. */
#ifndef COLLECT_KCUT_MAP_H
#define COLLECT_KCUT_MAP_H

#define KCUT_MAX_DIRS 32768	/* directions with a decision at once */
#define KCUT_MAX_PORTS 4	/* TCP ports the folded capture filter drops */
#define KCUT_FOLLOW_MAX 8	/* Open MPI frame headers read in one segment */

/* One direction of a TCP connection, as the packet carries it: IPv4 addresses in the
 * first 4 bytes (the rest zero), ports in network order. */
struct kcut_key {
	unsigned char src[16];
	unsigned char dst[16];
	unsigned short sport_be;
	unsigned short dport_be;
	unsigned char af;	/* 4 or 6 */
	unsigned char pad[3];
};

/* Payload bytes with sequence numbers in [lo, s) (modulo 2^32; s - lo < 2^31) are frame
 * body nobody reads: a segment wholly inside keeps only its headers, one that starts
 * before lo and ends inside is copied up to lo. Both in one 64-bit word (lo | s << 32) so
 * that a reader on another CPU never sees half an update. With follow, lo - s in
 * 1..KCUT_PART_MAX instead says that the frame header at s was cut by a segment's end: its
 * first lo - s bytes are in part and the program completes it from the segment at lo. */
struct kcut_val {
	unsigned long long lo_s;
	unsigned int follow;	/* KCUT_FOLLOW_OMPI (Open MPI TCP BTL frames) or KCUT_FOLLOW_UCX
				 * (UCX TCP records): the program reads the header at s itself
				 * and moves the range to the next body; with KCUT_FOLLOW_HS it
				 * placed s itself at the direction's start; 0: a range only */
	unsigned int keep_to;	/* KCUT_FOLLOW_HS: payload before this sequence number is the
				 * direction's first bytes, always copied */
	unsigned long long part;	/* a cut header's first bytes, byte i in bits 8i..8i+7 */
};
#define KCUT_FOLLOW_OMPI 1
#define KCUT_FOLLOW_HS 2
#define KCUT_FOLLOW_UCX 4
#define KCUT_PART_MAX 8	/* header bytes held across segments (the tag at byte 8 comes next) */

/* UCX TCP records ([u8 am_id][u32 len le][len bytes]) as parse/mpich.c's mpich_record
 * judges them, probed by collect/kcut.c; a direction that starts with the magic is
 * followed from the byte after the magic. */
struct kcut_ucx {
	unsigned char magic[8];		/* the initiator's first bytes; all 0: not followed */
	unsigned int len_min[256];	/* smallest len believed, by am_id */
	unsigned int len_max[256];	/* largest len believed, by am_id */
	unsigned char keep[256];	/* record bytes parse reads, by am_id; 0: not followed;
					 * KCUT_KEEP_ALL: the whole record */
	unsigned char ext_off[256];	/* by am_id: 0, or the record offset of a le64 count of
					 * bytes that follow it beyond len (a PUT_REQ's data) */
	unsigned int ext_max;		/* largest such count followed */
};
#define KCUT_UCX_HDR 5	/* bytes that tell a record's length */
#define KCUT_HDR_READ 24	/* header bytes the program reads at once (ext_off + 8 at most) */
#define KCUT_KEEP_ALL 0xff

/* What the program does besides cutting: the capture filter it stands in for. */
struct kcut_conf {
	unsigned int l3_off;	/* bytes before the IP header: 14 on an Ethernet packet socket */
	unsigned int tcp_only;	/* drop what is not TCP over IPv4/IPv6 */
	unsigned short drop_port[KCUT_MAX_PORTS];	/* drop TCP with either port here; 0 unused */
	/* Open MPI TCP BTL frames (8-byte header: tag, type, count le16, size le32), as
	 * parse/ompi.c's ompi_frame judges them, probed by collect/kcut.c: */
	unsigned int frame_max;		/* largest size field believed */
	unsigned int hs_len;		/* the handshake that starts a direction, bytes */
	unsigned int prefix;		/* a direction's first bytes parse always reads */
	unsigned char hs_magic[12];	/* at the handshake's byte 8 */
	unsigned int base[4][8];	/* frame bytes besides the size field, by type, count */
	unsigned char keep[4][8][256];	/* header bytes parse reads, by type, count, tag; 0: not
					 * followed; KCUT_KEEP_TAG8: byte 8 must repeat the tag */
	struct kcut_ucx ucx;
};
#define KCUT_KEEP_TAG8 0x80

/* kernel counters: cut packets, bytes not copied, frames followed, stops (a header the
 * program could not read or judge: user space takes over), directions the program
 * started following at their handshake */
enum { KCUT_C_PACKETS, KCUT_C_BYTES, KCUT_C_FOLLOWED, KCUT_C_STOPPED, KCUT_C_SEEDED,
       KCUT_NCOUNT };

#endif
