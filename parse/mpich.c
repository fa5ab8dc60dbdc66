/* mpich: the MPICH 4.0 ch4:ucx decoder: UCP tag messages over UCX 1.13's TCP transport.
 *
 * Follows pmodels/mpich@v4.0.2 and openucx/ucx@v1.13.1 as Debian 12 ships them:
 *   ucx src/uct/tcp/tcp.h, tcp_cm.c, tcp_ep.c  magic 0xCAFEBABE12345678 (initiator only),
 *       then records [u8 am_id][u32 len][len bytes]; am 32 connection events, am 33 PUT_REQ
 *       {u64 addr, u64 length, u32 sn} followed by `length` raw bytes not counted in len,
 *       am 34 PUT_ACK, am 35 keepalive
 *   ucx src/ucp/core/ucp_types.h, tag/eager.h, rndv/rndv.h  UCP active messages (legacy
 *       protocols): EAGER_ONLY/FIRST/MIDDLE, EAGER_SYNC_ONLY/FIRST, EAGER_SYNC_ACK,
 *       RNDV_RTS/ATS/RTR/DATA/ATP
 *   mpich src/mpid/ch4/netmod/ucx/ucx_impl.h  ucp tag = context_id << 48 | rank << 32 | tag
 * All fields little-endian. See docs/mpi-decoders.md.
 *
 * The sender's world rank is in the UCP tag only for MPI_COMM_WORLD (context 0, or 1 for its
 * collectives); once seen for a direction it names that direction's sender for every
 * message. Messages whose ends are not yet known wait in a small queue until they are (or
 * the connection closes). The record hooks (ucx_*) also serve Open MPI over UCX
 * (parse/ompi_ucx.c), which differs only in the UCP tag layout. */
#include "parse/mpich.h"

#include <string.h>

#include "lib/rd.h"
#include "parse/frame.h"

#define UCT_MAGIC UINT64_C(0xCAFEBABE12345678)
#define MAGIC_LEN MPICH_MAGIC_LEN
#define AM_HDR_LEN 5		/* uct_tcp_am_hdr_t, packed */
#define HDR_MAX (AM_HDR_LEN + 64)

/* UCP AM ids (ucp_types.h, 1.13.1) and UCT TCP internal ids (tcp.h). */
#define AM_WIREUP 1
#define AM_EAGER_ONLY 2
#define AM_EAGER_FIRST 3
#define AM_EAGER_MIDDLE 4
#define AM_EAGER_SYNC_ONLY 6
#define AM_EAGER_SYNC_FIRST 7
#define AM_EAGER_SYNC_ACK 8
#define AM_RNDV_RTS 9
#define AM_RNDV_ATS 10
#define AM_RNDV_RTR 11
#define AM_RNDV_DATA 12
#define AM_RNDV_ATP 16
#define AM_UCP_LAST 26
#define AM_TCP_CM 32
#define AM_TCP_PUT_REQ 33
#define AM_TCP_PUT_ACK 34
#define AM_TCP_KEEPALIVE 35

#define PUT_REQ_LEN 20
#define CM_MAX 64		/* longest connection event: 13 + sockaddr_in6 (28) */
#define SCAN_WIN UCX_SCAN_WIN
#define RECORD_MIN AM_HDR_LEN
#define KEY_MSGID 0		/* matching keys: eager multi-record message id */
#define KEY_SREQ 1		/* rendezvous sender request id */
#define KEY_RREQ 2		/* rendezvous receiver request id (0 until the RTR) */

/* Header bytes decoded for each AM id (the rest of the body is skipped), or -1 unknown. */
static int
am_hdr_len(uint8_t id)
{
	switch (id) {
	case AM_WIREUP: return 20;
	case AM_EAGER_ONLY: return 8;
	case AM_EAGER_FIRST: return 24;
	case AM_EAGER_MIDDLE: return 16;
	case AM_EAGER_SYNC_ONLY: return 24;
	case AM_EAGER_SYNC_FIRST: return 40;
	case AM_EAGER_SYNC_ACK: return 9;
	case AM_RNDV_RTS: return 41;
	case AM_RNDV_ATS: return 17;
	case AM_RNDV_RTR: return 40;
	case AM_RNDV_DATA: return 16;
	case AM_RNDV_ATP: return 17;
	case AM_TCP_CM: return 4;
	case AM_TCP_PUT_REQ: return PUT_REQ_LEN;
	case AM_TCP_PUT_ACK: return 4;
	case AM_TCP_KEEPALIVE: return 0;
	default: return id >= 1 && id <= AM_UCP_LAST ? 0 : -1;
	}
}

/* Is p[0..n) (n >= RECORD_MIN) the start of a believable record? */
static bool
record_ok(const uint8_t *p, size_t n)
{
	struct rd r = rd_make(p, n);
	uint8_t id = rd_u8(&r);
	uint32_t len = rd_le32(&r);
	int hl = am_hdr_len(id);

	if (r.err || hl < 0 || len < (uint32_t)hl || len > MPICH_AM_MAX)
		return false;
	switch (id) {
	case AM_TCP_CM: {
		uint32_t ev = rd_le32(&r);

		return len <= 64 && (r.err || (ev >= 1 && ev <= 4));
	}
	case AM_TCP_PUT_REQ: {
		uint64_t length;

		rd_skip(&r, 8);
		length = rd_le64(&r);
		return len == PUT_REQ_LEN && (r.err || length <= MPICH_MSG_MAX);
	}
	case AM_TCP_PUT_ACK:
		return len == 4;
	case AM_EAGER_SYNC_ACK:
		return len == 9;
	case AM_RNDV_ATS:
	case AM_RNDV_ATP:
		return len == 17;
	case AM_EAGER_ONLY:
	case AM_EAGER_FIRST:
	case AM_EAGER_MIDDLE:
	case AM_EAGER_SYNC_ONLY:
	case AM_EAGER_SYNC_FIRST:
	case AM_RNDV_RTS:
	case AM_RNDV_RTR:
	case AM_RNDV_DATA:
	case AM_WIREUP:
		return true;
	default:
		return false;	/* rarer ids are not trusted for resynchronisation */
	}
}

int
ucx_detect(const uint8_t *p, size_t n, int dir)
{
	static const char magic[] = MPICH_MAGIC;
	size_t k = n < MAGIC_LEN ? n : MAGIC_LEN;

	if (k > 0 && memcmp(p, magic, k) == 0)
		return k == MAGIC_LEN ? 100 : 50;
	if (dir == 1 && n >= 9 && p[0] == AM_TCP_CM && record_ok(p, n))
		return 60;	/* the acceptor's connection reply */
	return 0;
}

/* Header bytes the record whose first hlen bytes are hdr needs: > hlen for more, 0 when
 * complete, -1 when it is not a record we accept. */
int
ucx_record_need(const uint8_t *hdr, size_t hlen)
{
	struct rd r = rd_make(hdr, hlen);
	uint8_t id;
	uint32_t len;
	int hl;

	if (hlen < AM_HDR_LEN)
		return AM_HDR_LEN;
	id = rd_u8(&r);
	len = rd_le32(&r);
	hl = am_hdr_len(id);
	if (hl < 0 || len < (uint32_t)hl || len > MPICH_AM_MAX)
		return -1;
	if (id == AM_TCP_PUT_REQ && len != PUT_REQ_LEN)
		return -1;
	if (id == AM_TCP_CM) {	/* kept whole (framed captures keep it): it names a listener */
		if (len > CM_MAX)
			return -1;
		hl = (int)len;
	}
	if ((size_t)(AM_HDR_LEN + hl) > hlen)
		return AM_HDR_LEN + hl;
	if (id == AM_TCP_PUT_REQ) {
		uint64_t length;

		rd_skip(&r, 8);
		length = rd_le64(&r);
		if (length > MPICH_MSG_MAX)
			return -1;	/* absurd length: counted, framing searched again */
	}
	return 0;
}

int
mpich_record(const uint8_t *p, size_t n, uint64_t *total, uint64_t *keep)
{
	size_t h = AM_HDR_LEN;
	struct rd r;
	uint8_t id;
	uint32_t len;

	for (;;) {
		int need;

		if (h > n)
			return (int)h;
		need = ucx_record_need(p, h);
		if (need < 0)
			return -1;
		if (need == 0)
			break;
		h = (size_t)need;
	}
	r = rd_make(p, h);
	id = rd_u8(&r);
	len = rd_le32(&r);
	*total = AM_HDR_LEN + (uint64_t)len;
	if (id == AM_TCP_PUT_REQ) {	/* the raw data follows, not counted in len */
		rd_skip(&r, 8);
		*total += rd_le64(&r);
	}
	*keep = h;
	return 0;
}

bool
mpich_record_plausible(const uint8_t *p, size_t n)
{
	return n >= RECORD_MIN && record_ok(p, n);
}

/* The initiator's 8-byte magic; without it the stream may hold records already. */
int
ucx_preamble(struct frame *f, int d, const uint8_t *p)
{
	struct rd r = rd_make(p, MAGIC_LEN);

	(void)f, (void)d;
	return rd_le64(&r) == UCT_MAGIC ? 0 : 1;
}

/* A record's length is in its 5-byte header, but for a PUT_REQ, whose raw data length
 * comes after it. */
uint64_t
ucx_total(const uint8_t *hdr, size_t hlen)
{
	struct rd r = rd_make(hdr, hlen);
	uint8_t id = rd_u8(&r);
	uint32_t len = rd_le32(&r);

	return r.err || id == AM_TCP_PUT_REQ ? 0 : AM_HDR_LEN + (uint64_t)len;
}

/* Resynchronise on a believable record that is followed by one, when that one is within
 * SCAN_WIN bytes: a 5-byte header alone is too weak a test. A PUT_REQ is never trusted
 * (its raw data length is too weak a check). */
enum frame_judge
ucx_resync(const uint8_t *p, size_t n)
{
	uint64_t next;

	if (n < RECORD_MIN + 4)
		return FRAME_MORE;
	if (!record_ok(p, n) || p[0] == AM_TCP_PUT_REQ)
		return FRAME_NO;
	next = AM_HDR_LEN + ((uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 |
			     (uint32_t)p[4] << 24);
	if (next + RECORD_MIN > SCAN_WIN)
		return FRAME_YES;	/* the next one is out of reach */
	if (next + RECORD_MIN > n)
		return FRAME_MORE;
	return record_ok(p + next, n - next) ? FRAME_YES : FRAME_NO;
}

/* MPICH's UCP tag (ucx_impl.h): context id << 48 | comm rank << 32 | tag. */
static void
mpich_tag(uint64_t tag, int32_t *cid, int32_t *comm_src, int32_t *t)
{
	*cid = (int32_t)(tag >> 48);
	*comm_src = (int32_t)((tag >> 32) & 0xffff);
	*t = (int32_t)(uint32_t)tag;
}

/* MPI_COMM_WORLD is context 0, its collectives 1: the comm rank is the world rank. */
static bool
mpich_world(uint64_t tag, int32_t *rank)
{
	if (tag >> 48 > 1)
		return false;
	*rank = (int32_t)((tag >> 32) & 0xffff);
	return true;
}

/* A UCP tag seen in direction d: split it by the decoder's layout (struct ucx_proto: MPICH's
 * here, Open MPI's in parse/ompi_ucx.c) and learn the sender's world rank when the tag names
 * MPI_COMM_WORLD. */
static void
tag_split(struct frame *f, int d, uint64_t tag, int32_t *cid, int32_t *comm_src, int32_t *t)
{
	const struct ucx_proto *up = (const struct ucx_proto *)f->pr;
	int32_t r;

	up->tag(tag, cid, comm_src, t);
	if (up->world(tag, &r))
		frame_set_world(f, d, r, RANKSRC_UCPTAG);
}

/* Start a message with a pending slot (multi-record eager or rendezvous). */
static struct frame_msg *
start_pending(struct frame *f, int d, uint64_t tag, uint64_t len)
{
	struct frame_msg *pm = frame_pend_new(f, d, len, MPICH_MSG_MAX);

	tag_split(f, d, tag, &pm->cid, &pm->comm_src, &pm->tag);
	return pm;
}

/* The decoded header of the current record of direction d is complete: act on it. */
void
ucx_start(struct frame *f, int d)
{
	struct frame_dir *fd = &f->d[d], *peer = &f->d[1 - d];
	struct rd r = rd_make(fd->hdr, fd->hlen);
	uint8_t id = rd_u8(&r);
	uint32_t len = rd_le32(&r);
	uint64_t body = len - (fd->hlen - AM_HDR_LEN);	/* body bytes after the decoded part */
	struct frame_msg *pm;
	uint64_t off;
	int i;

	if (id != AM_TCP_PUT_REQ)
		frame_body(f, d, body);
	switch (id) {
	case AM_EAGER_ONLY:
	case AM_EAGER_SYNC_ONLY: {
		uint64_t tag = rd_le64(&r);
		struct msg *m = frame_eager(f, d);

		tag_split(f, d, tag, &m->cid, &m->comm_src, &m->tag);
		m->bytes = body;
		m->proto = id == AM_EAGER_ONLY ? PROTO_EAGER : PROTO_SYNC;
		break;
	}
	case AM_EAGER_FIRST:
	case AM_EAGER_SYNC_FIRST: {
		uint64_t tag = rd_le64(&r), total = rd_le64(&r), msg_id = rd_le64(&r);

		pm = start_pending(f, d, tag, total);
		pm->key[KEY_MSGID] = msg_id;
		pm->keyed = 1u << KEY_MSGID;
		pm->proto = id == AM_EAGER_SYNC_FIRST ? PROTO_SYNC : PROTO_EAGER;
		break;
	}
	case AM_EAGER_MIDDLE:
		i = frame_pend_by_key(fd, KEY_MSGID, rd_le64(&r));
		if (i < 0)
			f->st->bad++;
		else
			frame_feeds(f, d, i);
		break;
	case AM_RNDV_RTS: {
		uint64_t tag = rd_le64(&r), sreq;

		rd_skip(&r, 8);	/* sender ep id */
		sreq = rd_le64(&r);
		rd_skip(&r, 8);	/* sender buffer address */
		pm = start_pending(f, d, tag, rd_le64(&r));
		pm->key[KEY_SREQ] = sreq;
		pm->keyed = 1u << KEY_SREQ | 1u << KEY_RREQ;
		fd->cur = -1;	/* the rkey that follows is not data */
		break;
	}
	case AM_RNDV_RTR: {
		uint64_t sreq = rd_le64(&r), rreq = rd_le64(&r), addr = rd_le64(&r);
		uint64_t size = rd_le64(&r), woff = rd_le64(&r);

		f->st->ctrl++;
		i = frame_pend_by_key(peer, KEY_SREQ, sreq);
		if (i < 0)
			break;
		peer->pend[i].key[KEY_RREQ] = rreq;
		frame_win_add(&peer->pend[i], addr, size, woff);
		break;
	}
	case AM_RNDV_DATA:
		i = frame_pend_by_key(fd, KEY_RREQ, rd_le64(&r));
		if (i < 0) {
			f->st->bad++;
			break;
		}
		frame_feeds(f, d, i);
		fd->pend[i].frag_data = true;
		break;
	case AM_TCP_PUT_REQ: {
		uint64_t addr = rd_le64(&r), length = rd_le64(&r);

		frame_body(f, d, length);	/* raw bytes outside len */
		i = length ? frame_pend_by_addr(fd, addr, &off) : -1;
		if (i < 0) {
			f->st->ctrl++;	/* e.g. the zero-length flush PUT */
			if (length)
				f->st->bad++;
			break;
		}
		frame_feeds(f, d, i);
		fd->pend[i].put_data = true;
		break;
	}
	case AM_RNDV_ATP:	/* the sender says all data went out: finish the message */
		f->st->ctrl++;
		i = frame_pend_by_key(fd, KEY_RREQ, rd_le64(&r));
		if (i >= 0)	/* its data were not all seen here */
			frame_pend_emit(f, d, i, MSG_F_GAP);
		break;
	default:	/* wireup, sync ack, ATS, put ack, keepalive, connection events, ... */
		f->st->ctrl++;
		break;
	}
}

static const struct ucx_proto mpich_proto = {
	.fp = UCX_FRAME_PROTO(MSG_MPICH),
	.tag = mpich_tag,
	.world = mpich_world,
};

static void *
mpich_open(const struct conn_info *ci, const struct msg_sink *sink, struct dec_stats *st)
{
	return frame_open(&mpich_proto.fp, ci, sink, st);
}

const struct decoder dec_mpich = {
	.name = "mpich",
	.detect = ucx_detect,
	.open = mpich_open,
	.data = frame_data,
	.gap = frame_gap,
	.skip = frame_skip,
	.close = frame_close,
	.ranks = frame_ranks,
};
