/* ompi: the Open MPI 4.1 decoder: PML ob1 messages over the TCP BTL, rebuilt per connection.
 *
 * Follows open-mpi/ompi@v4.1.4 as built by Debian 12 (heterogeneous support off, so every
 * field is little-endian host order):
 *   opal/mca/btl/tcp/btl_tcp_endpoint.{h,c}  24-byte handshake {jobid, vpid, "OPAL-TCP-BTL"}
 *   opal/mca/btl/tcp/btl_tcp_hdr.h           8-byte frame header {tag, type, count, size}
 *   opal/mca/btl/btl.h                       PUT segments {u64 addr, u64 len}
 *   ompi/mca/pml/ob1/pml_ob1_hdr.h           MATCH 14, RNDV 32, ACK 40, FRAG 32, PUT 56, FIN 24
 * The wire is described in docs/mpi-decoders.md and shared/reference/mpi-wire.md.
 *
 * A message is sent in direction d (sender to receiver) as one of:
 *   eager      SEND[MATCH + data]
 *   sync       SEND[RNDV + all data]            (receiver answers ACK)
 *   rndv-put   SEND[RNDV, no data]; receiver sends PUT control(s) naming its buffer;
 *              BTL PUT frame(s) carry the data to that address; FIN
 *   rndv-frag  SEND[RNDV + first data]; receiver ACKs; SEND[FRAG + data]...
 * Frames of several messages interleave; FRAG data are matched to their message by the
 * sender request pointer (RNDV.src_req == FRAG.src_req), PUT data by the destination address
 * range the PUT control announced (PUTctl.req == RNDV.src_req, PUT seg_addr in
 * [dst_ptr, dst_ptr + dst_size)). Pointers are reused, so only messages still in flight
 * take part in matching. */
#include "parse/ompi.h"

#include <string.h>

#include "lib/rd.h"
#include "parse/frame.h"

#define HS_LEN OMPI_HS_LEN
#define BTL_HDR_LEN 8		/* mca_btl_tcp_hdr_t */
#define BTL_SEND 1
#define BTL_PUT 2
#define BTL_TAG_BTL 0x20	/* tag of PUT/GET frames */
#define SEG_LEN 16		/* mca_btl_base_segment_t */
#define PUT_SEGS_MAX 4		/* more segments in one PUT frame is taken as damage */

/* PML ob1 header types (pml_ob1_hdr.h). */
#define OB1_MATCH 0x41
#define OB1_RNDV 0x42
#define OB1_RGET 0x43
#define OB1_ACK 0x44
#define OB1_NACK 0x45
#define OB1_FRAG 0x46
#define OB1_GET 0x47
#define OB1_PUT 0x48
#define OB1_FIN 0x49
#define OB1_F_ACK_QUIRK 0x44	/* PUT control flags may carry the ACK type byte */

#define SCAN_MIN (BTL_HDR_LEN + 14)	/* bytes needed to judge a candidate frame */
#define KEY_SRC_REQ 0		/* matching keys: the sender request pointer */
#define KEY_DST_REQ 1		/* the receiver request pointer, from ACK */

static int
pml_hdr_len(uint8_t type)
{
	switch (type) {
	case OB1_MATCH: return 14;
	case OB1_RNDV: return 32;
	case OB1_ACK: return 40;
	case OB1_FRAG: return 32;
	case OB1_PUT: return 56;
	case OB1_FIN: return 24;
	default: return -1;
	}
}

/* Does p[0..n) start with a believable SEND frame carrying an ob1 header? n >= SCAN_MIN. */
static bool
send_frame_ok(const uint8_t *p, size_t n)
{
	struct rd r = rd_make(p, n);
	uint8_t tag = rd_u8(&r), type = rd_u8(&r);
	uint16_t count = rd_le16(&r);
	uint32_t size = rd_le32(&r);
	uint8_t pml = rd_u8(&r), flags = rd_u8(&r);
	int hl = pml_hdr_len(tag);

	if (r.err || type != BTL_SEND || count != 0 || hl < 0 || pml != tag)
		return false;
	if (size < (uint32_t)hl || size > OMPI_FRAME_MAX)
		return false;
	if (flags & 0xc0 && !(tag == OB1_PUT && flags == OB1_F_ACK_QUIRK))
		return false;
	return true;
}

static int
ompi_detect(const uint8_t *p, size_t n, int dir)
{
	static const char magic[] = OMPI_HS_MAGIC;
	size_t k;

	(void)dir;
	if (n > 8) {
		k = n - 8 < 12 ? n - 8 : 12;
		if (memcmp(p + 8, magic, k) == 0)
			return k == 12 ? 100 : 50;
	}
	if (n >= SCAN_MIN && send_frame_ok(p, n))
		return 40;	/* mid-stream start */
	return 0;
}

/* The receiver's first answer to message pm (of direction 1 - d), now in direction d: when
 * data of the receiver's own messages went out in d after pm's request came, the answer was
 * queued behind them in the connection's one stream, and pm's data waited for them. */
static void
answered(struct frame *f, int d, struct frame_msg *pm)
{
	if (pm->answered)
		return;
	pm->answered = true;
	if (f->d[d].t_data_ns > pm->t_first_ns)
		pm->flags |= MSG_F_BEHIND;
}

/* Whether a message of direction fd was answered and has data still to come. */
static bool
answer_open(const struct frame_dir *fd)
{
	for (size_t i = 0; i < fd->npend; i++)
		if (fd->pend[i].used && fd->pend[i].answered && fd->pend[i].got_bytes < fd->pend[i].len_bytes)
			return true;
	return false;
}

/* Control headers travel against the data: they update messages of direction 1 - d. */
static void
on_ack(struct frame *f, int d, struct rd *r)
{
	struct frame_dir *peer = &f->d[1 - d];
	uint64_t src_req, dst_req;
	int i;

	rd_skip(r, 8);	/* common header, padding */
	src_req = rd_le64(r);
	dst_req = rd_le64(r);
	f->st->ctrl++;
	if (r->err)
		return;
	i = frame_pend_by_key(peer, KEY_SRC_REQ, src_req);
	if (i >= 0) {
		peer->pend[i].key[KEY_DST_REQ] = dst_req;
		answered(f, d, &peer->pend[i]);
	}
}

static void
on_put_ctl(struct frame *f, int d, struct rd *r)
{
	struct frame_dir *peer = &f->d[1 - d];
	uint64_t req, off, ptr, size;
	int i;

	rd_skip(r, 8);	/* common header, padding */
	req = rd_le64(r);
	rd_skip(r, 16);		/* hdr_frag, hdr_recv_req */
	off = rd_le64(r);
	ptr = rd_le64(r);
	size = rd_le64(r);
	f->st->ctrl++;
	if (r->err)
		return;
	i = frame_pend_by_key(peer, KEY_SRC_REQ, req);
	if (i >= 0) {
		frame_win_add(&peer->pend[i], ptr, size, off);
		answered(f, d, &peer->pend[i]);
	}
}

/* The header of the current frame of direction d is complete: act on it. */
static void
ompi_start(struct frame *f, int d)
{
	struct frame_dir *fd = &f->d[d];
	struct rd r = rd_make(fd->hdr, fd->hlen);
	uint8_t type;
	uint32_t size;
	uint64_t hdr_data = fd->hlen - BTL_HDR_LEN;	/* header bytes counted in size */
	struct rd pr = rd_make(fd->hdr + BTL_HDR_LEN, hdr_data);
	uint8_t pml = hdr_data ? fd->hdr[BTL_HDR_LEN] : 0;

	rd_skip(&r, 1);	/* tag */
	type = rd_u8(&r);
	rd_skip(&r, 2);	/* count */
	size = rd_le32(&r);
	if (type == BTL_PUT) {
		uint64_t addr = rd_le64(&r), off = 0;
		int i = frame_pend_by_addr(fd, addr, &off);

		frame_body(f, d, size);
		if (i < 0) {
			f->st->bad++;	/* PUT data of no message we know */
		} else {
			frame_feeds(f, d, i);
			fd->pend[i].put_data = true;
		}
		return;
	}
	frame_body(f, d, size - hdr_data);
	switch (pml) {
	case OB1_MATCH: {
		struct msg *m = frame_eager(f, d);

		rd_skip(&pr, 2);
		m->cid = rd_le16(&pr);
		m->comm_src = (int32_t)rd_le32(&pr);
		m->tag = (int32_t)rd_le32(&pr);
		m->bytes = fd->body_left;
		break;
	}
	case OB1_RNDV: {
		struct frame_msg *pm;
		int32_t src, tag;
		uint16_t ctx;
		uint64_t len;

		rd_skip(&pr, 2);
		ctx = rd_le16(&pr);
		src = (int32_t)rd_le32(&pr);
		tag = (int32_t)rd_le32(&pr);
		rd_skip(&pr, 4);	/* seq, pad */
		len = rd_le64(&pr);
		pm = frame_pend_new(f, d, len, OMPI_MSG_MAX);
		pm->cid = ctx;
		pm->comm_src = src;
		pm->tag = tag;
		pm->key[KEY_SRC_REQ] = rd_le64(&pr);
		pm->keyed = 1u << KEY_SRC_REQ;
		pm->sync_if_whole = true;	/* all data inline with the RNDV: MPI_Ssend */
		if (answer_open(&f->d[1 - d]))
			pm->flags |= MSG_F_AFTER_ANSWER;
		break;
	}
	case OB1_FRAG: {
		int i;

		rd_skip(&pr, 16);	/* common, pad, frag offset */
		i = frame_pend_by_key(fd, KEY_SRC_REQ, rd_le64(&pr));
		if (i < 0) {
			f->st->bad++;
		} else {
			frame_feeds(f, d, i);
			fd->pend[i].frag_data = true;
		}
		break;
	}
	case OB1_ACK:
		on_ack(f, d, &pr);
		break;
	case OB1_PUT:
		on_put_ctl(f, d, &pr);
		break;
	default:	/* FIN, and tags of other users of the BTL */
		f->st->ctrl++;
		break;
	}
}

/* How many header bytes the frame whose first hlen bytes are hdr needs: > hlen to read
 * more, 0 when it is complete, -1 when it is not a frame we accept. */
static int
btl_need(const uint8_t *hdr, size_t hlen)
{
	struct rd r = rd_make(hdr, hlen);
	uint8_t tag, type;
	uint16_t count;
	uint32_t size;
	int hl;

	if (hlen < BTL_HDR_LEN)
		return BTL_HDR_LEN;
	tag = rd_u8(&r);
	type = rd_u8(&r);
	count = rd_le16(&r);
	size = rd_le32(&r);
	if (size > OMPI_FRAME_MAX)
		return -1;
	if (type == BTL_PUT) {
		if (tag != BTL_TAG_BTL || count < 1 || count > PUT_SEGS_MAX)
			return -1;
		hl = BTL_HDR_LEN + SEG_LEN * count;
		return (size_t)hl > hlen ? hl : 0;
	}
	if (type != BTL_SEND || count != 0)
		return -1;
	if (tag < OB1_MATCH || tag > OB1_FIN)
		return 0;	/* another BTL user: skip the frame whole */
	hl = pml_hdr_len(tag);
	if (hl < 0)
		return 0;	/* RGET/NACK/GET: unused over TCP, skipped */
	if (size < (uint32_t)hl)
		return -1;
	if (hlen == BTL_HDR_LEN)
		return BTL_HDR_LEN + 1;
	if (hdr[BTL_HDR_LEN] != tag)
		return -1;
	return (size_t)(BTL_HDR_LEN + hl) > hlen ? BTL_HDR_LEN + hl : 0;
}

/* Wire bytes of the frame whose complete BTL header is hdr[0..8). */
static uint64_t
btl_total(const uint8_t *hdr)
{
	struct rd r = rd_make(hdr, BTL_HDR_LEN);
	uint8_t type;
	uint16_t count;
	uint32_t size;

	rd_skip(&r, 1);
	type = rd_u8(&r);
	count = rd_le16(&r);
	size = rd_le32(&r);
	return type == BTL_PUT ? BTL_HDR_LEN + (uint64_t)SEG_LEN * count + size
			       : BTL_HDR_LEN + (uint64_t)size;
}

int
ompi_frame(const uint8_t *p, size_t n, uint64_t *total, uint64_t *keep)
{
	size_t h = BTL_HDR_LEN;

	for (;;) {
		int need;

		if (h > n)
			return (int)h;
		need = btl_need(p, h);
		if (need < 0)
			return -1;
		if (need == 0)
			break;
		h = (size_t)need;
	}
	*total = btl_total(p);
	if (*total < h)
		return -1;
	*keep = h;
	return 0;
}

bool
ompi_frame_plausible(const uint8_t *p, size_t n)
{
	return n >= SCAN_MIN && send_frame_ok(p, n);
}

/* The 24-byte handshake {jobid, vpid, "OPAL-TCP-BTL"}: the vpid is the sender's world rank. */
static int
ompi_preamble(struct frame *f, int d, const uint8_t *p)
{
	struct rd r = rd_make(p, HS_LEN);

	rd_skip(&r, 4);	/* jobid */
	if (memcmp(p + 8, OMPI_HS_MAGIC, 12) != 0)
		return -1;
	frame_set_world(f, d, (int32_t)rd_le32(&r), RANKSRC_HANDSHAKE);
	return 0;
}

/* A frame's length is in its 8-byte BTL header. */
static uint64_t
ompi_total(const uint8_t *hdr, size_t hlen)
{
	return hlen < BTL_HDR_LEN ? 0 : btl_total(hdr);
}

static enum frame_judge
ompi_resync(const uint8_t *p, size_t n)
{
	if (n < SCAN_MIN)
		return FRAME_MORE;
	return send_frame_ok(p, n) ? FRAME_YES : FRAME_NO;
}

static const struct frame_proto ompi_proto = {
	.mpi = MSG_OMPI,
	.pre_len = { HS_LEN, HS_LEN },
	.preamble = ompi_preamble,
	.need = btl_need,
	.total = ompi_total,
	.start = ompi_start,
	.resync = ompi_resync,
	.resync_max = SCAN_MIN,
	.anchor_off = 1,	/* every frame header has type BTL_SEND in its second byte */
	.anchor = BTL_SEND,
	.scan_max = OMPI_SCAN_MAX,
	.trunc_bytes_seen = true,
};

static void *
ompi_open(const struct conn_info *ci, const struct msg_sink *sink, struct dec_stats *st)
{
	return frame_open(&ompi_proto, ci, sink, st);
}

const struct decoder dec_ompi = {
	.name = "ompi",
	.detect = ompi_detect,
	.open = ompi_open,
	.data = frame_data,
	.gap = frame_gap,
	.skip = frame_skip,
	.close = frame_close,
	.ranks = frame_ranks,
};
