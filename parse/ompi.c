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

#include <stdlib.h>
#include <string.h>

#include "lib/rd.h"
#include "lib/xalloc.h"

#define HS_LEN OMPI_HS_LEN
#define BTL_HDR_LEN 8		/* mca_btl_tcp_hdr_t */
#define BTL_SEND 1
#define BTL_PUT 2
#define BTL_TAG_BTL 0x20	/* tag of PUT/GET frames */
#define SEG_LEN 16		/* mca_btl_base_segment_t */
#define PUT_SEGS_MAX 4		/* more segments in one PUT frame is taken as damage */
#define HDR_MAX (BTL_HDR_LEN + 56)	/* largest header we collect (PUT control) */

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

#define PEND_MAX 256		/* messages in flight per direction */
#define SCAN_MIN (BTL_HDR_LEN + 14)	/* bytes needed to judge a candidate frame */

enum ost {
	OS_HS,		/* reading the 24-byte handshake */
	OS_HDR,		/* collecting a frame header */
	OS_BODY,	/* inside a frame's data */
	OS_SCAN,	/* framing lost: looking for a frame header */
	OS_DEAD,	/* given up */
};

enum fkind {		/* what the body of the current frame is */
	FK_SKIP,	/* not message data */
	FK_DATA,	/* data of message cur */
};

struct put_win {		/* a receive buffer range announced by a PUT control */
	uint64_t ptr;		/* receiver virtual address */
	uint64_t size_bytes;
	uint64_t off_bytes;	/* offset of ptr in the message */
};

struct omsg {			/* a message in flight (rendezvous) */
	bool used;
	uint16_t ctx;
	int32_t src;		/* sender rank in the communicator */
	int32_t tag;
	uint64_t len_bytes;	/* hdr_msg_length */
	uint64_t got_bytes;	/* data bytes seen so far */
	uint64_t src_req;	/* sender request pointer */
	uint64_t dst_req;	/* receiver request pointer, from ACK (0 unknown) */
	struct put_win win[PUT_SEGS_MAX];
	int nwin;
	bool put_data, frag_data;
	int64_t t_first_ns, t_last_ns;
	uint64_t wire_bytes;
	unsigned flags;
	uint64_t age;		/* creation order, for eviction */
};

struct odir {
	enum ost st;
	uint8_t hdr[HDR_MAX];	/* the frame header collected so far */
	size_t hlen;
	uint64_t body_left;	/* bytes of the current frame still to come */
	uint64_t frame_bytes;	/* wire bytes of the current frame */
	int64_t t_frame_ns;	/* capture time of the current frame's first byte */
	enum fkind kind;
	int cur;		/* pending slot the body belongs to, -1 none */
	bool eager;		/* current frame is a MATCH: emit at its end */
	bool hs_ok;
	uint32_t jobid, vpid;
	unsigned next_flags;	/* MSG_F_RESYNC / MSG_F_GAP for the next message */
	uint8_t carry[SCAN_MIN - 1];	/* resync: last bytes of earlier pieces, not yet judged */
	size_t ncarry;		/* bytes in carry */
	uint64_t scanned_bytes;	/* bytes judged not to start a frame since framing was lost */
	struct omsg *pend;	/* messages in flight: npend slots, at most PEND_MAX */
	size_t npend, pend_cap;
	uint64_t nage;
	int64_t t_last_ns;
};

struct ompi {
	struct conn_info ci;
	struct msg_sink sink;
	struct dec_stats *st;
	struct odir d[2];
};

static void feed(struct ompi *o, int d, const uint8_t *p, size_t n, int64_t t_ns);

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
	static const char magic[] = "OPAL-TCP-BTL";
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

static void
dir_init(struct odir *od, bool start)
{
	memset(od, 0, sizeof *od);
	od->st = start ? OS_HS : OS_SCAN;
	od->cur = -1;
}

static void *
ompi_open(const struct conn_info *ci, const struct msg_sink *sink, struct dec_stats *st)
{
	struct ompi *o = xcalloc(1, sizeof *o);

	o->ci = *ci;
	o->sink = *sink;
	o->st = st;
	dir_init(&o->d[0], ci->saw_syn);
	dir_init(&o->d[1], ci->saw_syn);
	if (!ci->saw_syn)
		o->d[0].next_flags = o->d[1].next_flags = MSG_F_RESYNC;
	return o;
}

/* World rank of the sender in direction d, and where it came from. */
static int32_t
world_of(const struct ompi *o, int d, enum rank_src *how)
{
	if (o->d[d].hs_ok) {
		*how = RANKSRC_HANDSHAKE;
		return (int32_t)o->d[d].vpid;
	}
	if (o->ci.rank[d] >= 0) {
		*how = RANKSRC_SOCKMAP;
		return o->ci.rank[d];
	}
	*how = RANKSRC_NONE;
	return -1;
}

static void
emit(struct ompi *o, int d, struct msg *m)
{
	enum rank_src a, b;

	m->src_world = world_of(o, d, &a);
	m->dst_world = world_of(o, 1 - d, &b);
	m->ranksrc = a != RANKSRC_NONE ? a : b;
	m->mpi = MSG_OMPI;
	m->conn = o->ci.conn;
	m->dir = d;
	o->st->msgs++;
	o->sink.emit(o->sink.ctx, m);
}

static void
emit_pending(struct ompi *o, int d, struct omsg *pm, unsigned extra)
{
	struct msg m;

	memset(&m, 0, sizeof m);
	m.t_first_ns = pm->t_first_ns;
	m.t_last_ns = pm->t_last_ns;
	m.cid = pm->ctx;
	m.comm_src = pm->src;
	m.tag = pm->tag;
	m.bytes = pm->len_bytes;
	m.wire_bytes = pm->wire_bytes;
	if (pm->put_data)
		m.proto = PROTO_RNDV_PUT;
	else if (pm->frag_data)
		m.proto = PROTO_RNDV_FRAG;
	else if (pm->got_bytes >= pm->len_bytes)
		m.proto = PROTO_SYNC;	/* all data inline with the RNDV: MPI_Ssend */
	else
		m.proto = PROTO_UNKNOWN;
	m.flags = pm->flags | extra;
	emit(o, d, &m);
	pm->used = false;
}

static int
pend_new(struct ompi *o, int d)
{
	struct odir *od = &o->d[d];
	int i, old = -1;

	for (i = 0; i < (int)od->npend; i++) {
		if (!od->pend[i].used)
			break;
		if (old < 0 || od->pend[i].age < od->pend[old].age)
			old = i;
	}
	if (i == (int)od->npend && od->npend < PEND_MAX) {	/* grow lazily */
		od->pend = xgrow(od->pend, &od->pend_cap, od->npend + 1, sizeof *od->pend);
		od->npend++;
	} else if (i == (int)od->npend) {	/* cap reached: the oldest is given up as truncated */
		o->st->bad++;
		emit_pending(o, d, &od->pend[old], MSG_F_TRUNC);
		i = old;
	}
	memset(&od->pend[i], 0, sizeof od->pend[i]);
	od->pend[i].used = true;
	od->pend[i].age = od->nage++;
	return i;
}

static int
pend_by_req(struct odir *od, uint64_t src_req)
{
	int i, best = -1;

	for (i = 0; i < (int)od->npend; i++)	/* the newest wins if a stale one shares the pointer */
		if (od->pend[i].used && od->pend[i].src_req == src_req &&
		    (best < 0 || od->pend[i].age > od->pend[best].age))
			best = i;
	return best;
}

static int
pend_by_addr(struct odir *od, uint64_t addr, uint64_t *off)
{
	int i, k;

	for (i = 0; i < (int)od->npend; i++) {
		struct omsg *pm = &od->pend[i];

		if (!pm->used)
			continue;
		for (k = 0; k < pm->nwin; k++)
			if (addr >= pm->win[k].ptr && addr - pm->win[k].ptr < pm->win[k].size_bytes) {
				*off = pm->win[k].off_bytes + (addr - pm->win[k].ptr);
				return i;
			}
	}
	return -1;
}

/* Framing is lost in direction d: look for the next frame header. */
static void
lose_framing(struct ompi *o, int d)
{
	struct odir *od = &o->d[d];

	o->st->resyncs++;
	od->st = OS_SCAN;
	od->hlen = 0;
	od->cur = -1;
	od->scanned_bytes = 0;
	od->ncarry = 0;
	od->next_flags |= MSG_F_RESYNC;
}

/* A frame of direction d is complete (its last byte came at t_ns). */
static void
frame_done(struct ompi *o, int d, int64_t t_ns)
{
	struct odir *od = &o->d[d];
	struct msg m;

	if (od->eager) {
		struct rd r = rd_make(od->hdr + BTL_HDR_LEN, 14);

		memset(&m, 0, sizeof m);
		rd_skip(&r, 2);
		m.cid = rd_le16(&r);
		m.comm_src = (int32_t)rd_le32(&r);
		m.tag = (int32_t)rd_le32(&r);
		m.t_first_ns = od->t_frame_ns;
		m.t_last_ns = t_ns;
		m.bytes = od->frame_bytes - BTL_HDR_LEN - 14;
		m.wire_bytes = od->frame_bytes;
		m.proto = PROTO_EAGER;
		m.flags = od->next_flags;
		od->next_flags = 0;
		emit(o, d, &m);
	} else if (od->cur >= 0 && od->pend[od->cur].used) {
		struct omsg *pm = &od->pend[od->cur];

		pm->t_last_ns = t_ns;
		if (pm->got_bytes >= pm->len_bytes)
			emit_pending(o, d, pm, 0);
	}
	od->eager = false;
	od->cur = -1;
	od->hlen = 0;
	od->st = OS_HDR;
}

/* Control headers travel against the data: they update messages of direction 1 - d. */
static void
on_ack(struct ompi *o, int d, struct rd *r)
{
	struct odir *peer = &o->d[1 - d];
	uint64_t src_req, dst_req;
	int i;

	rd_skip(r, 8);	/* common header, padding */
	src_req = rd_le64(r);
	dst_req = rd_le64(r);
	o->st->ctrl++;
	if (r->err)
		return;
	i = pend_by_req(peer, src_req);
	if (i >= 0)
		peer->pend[i].dst_req = dst_req;
}

static void
on_put_ctl(struct ompi *o, int d, struct rd *r)
{
	struct odir *peer = &o->d[1 - d];
	uint64_t req, off, ptr, size;
	struct omsg *pm;
	int i;

	rd_skip(r, 8);	/* common header, padding */
	req = rd_le64(r);
	rd_skip(r, 16);		/* hdr_frag, hdr_recv_req */
	off = rd_le64(r);
	ptr = rd_le64(r);
	size = rd_le64(r);
	o->st->ctrl++;
	if (r->err)
		return;
	i = pend_by_req(peer, req);
	if (i < 0)
		return;
	pm = &peer->pend[i];
	if (pm->nwin == PUT_SEGS_MAX) {	/* keep the newest windows */
		memmove(pm->win, pm->win + 1, sizeof pm->win[0] * (PUT_SEGS_MAX - 1));
		pm->nwin--;
	}
	pm->win[pm->nwin].ptr = ptr;
	pm->win[pm->nwin].size_bytes = size;
	pm->win[pm->nwin].off_bytes = off;
	pm->nwin++;
}

/* The header of the current frame of direction d is complete: act on it. */
static void
frame_start(struct ompi *o, int d)
{
	struct odir *od = &o->d[d];
	struct rd r = rd_make(od->hdr, od->hlen);
	uint8_t tag = rd_u8(&r), type = rd_u8(&r);
	uint16_t count = rd_le16(&r);
	uint32_t size = rd_le32(&r);
	uint64_t hdr_data = od->hlen - BTL_HDR_LEN;	/* header bytes counted in size */

	(void)tag;
	od->kind = FK_SKIP;
	od->cur = -1;
	od->eager = false;
	if (type == BTL_PUT) {
		uint64_t addr = rd_le64(&r), off = 0;
		int i;

		(void)count;
		i = pend_by_addr(od, addr, &off);
		od->body_left = size;
		od->frame_bytes = od->hlen + (uint64_t)size;
		if (i < 0) {
			o->st->bad++;	/* PUT data of no message we know */
		} else {
			od->cur = i;
			od->kind = FK_DATA;
			od->pend[i].put_data = true;
			od->pend[i].wire_bytes += od->frame_bytes;
		}
	} else {
		struct rd pr = rd_make(od->hdr + BTL_HDR_LEN, hdr_data);
		uint8_t pml = hdr_data ? od->hdr[BTL_HDR_LEN] : 0;

		od->body_left = size - hdr_data;
		od->frame_bytes = BTL_HDR_LEN + (uint64_t)size;
		switch (hdr_data ? pml : 0) {
		case OB1_MATCH:
			od->eager = true;
			break;
		case OB1_RNDV: {
			struct omsg *pm;
			int i = pend_new(o, d);

			pm = &od->pend[i];
			rd_skip(&pr, 2);
			pm->ctx = rd_le16(&pr);
			pm->src = (int32_t)rd_le32(&pr);
			pm->tag = (int32_t)rd_le32(&pr);
			rd_skip(&pr, 4);	/* seq, pad */
			pm->len_bytes = rd_le64(&pr);
			pm->src_req = rd_le64(&pr);
			pm->t_first_ns = pm->t_last_ns = od->t_frame_ns;
			pm->wire_bytes = od->frame_bytes;
			pm->flags = od->next_flags;
			od->next_flags = 0;
			if (pm->len_bytes > OMPI_MSG_MAX) {	/* absurd: capped and counted */
				o->st->bad++;
				pm->len_bytes = OMPI_MSG_MAX;
			}
			od->cur = i;
			od->kind = FK_DATA;
			break;
		}
		case OB1_FRAG: {
			uint64_t src_req;
			int i;

			rd_skip(&pr, 16);	/* common, pad, frag offset */
			src_req = rd_le64(&pr);
			i = pend_by_req(od, src_req);
			if (i < 0) {
				o->st->bad++;
			} else {
				od->cur = i;
				od->kind = FK_DATA;
				od->pend[i].frag_data = true;
				od->pend[i].wire_bytes += od->frame_bytes;
			}
			break;
		}
		case OB1_ACK:
			on_ack(o, d, &pr);
			break;
		case OB1_PUT:
			on_put_ctl(o, d, &pr);
			break;
		default:	/* FIN, and tags of other users of the BTL */
			o->st->ctrl++;
			break;
		}
	}
	od->st = OS_BODY;
}

/* How many header bytes the frame whose first hlen bytes are hdr needs: > hlen to read
 * more, 0 when it is complete, -1 when it is not a frame we accept. */
static int
frame_need(const uint8_t *hdr, size_t hlen)
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

static int
hdr_need(const struct odir *od)
{
	return frame_need(od->hdr, od->hlen);
}

/* Wire bytes of the frame whose complete BTL header is hdr[0..8). */
static uint64_t
frame_total(const uint8_t *hdr)
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
		need = frame_need(p, h);
		if (need < 0)
			return -1;
		if (need == 0)
			break;
		h = (size_t)need;
	}
	*total = frame_total(p);
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

/* Framing of direction d was lost at least scanned_bytes ago: give up past the cap. */
static void
scan_account(struct ompi *o, struct odir *od, size_t n)
{
	od->scanned_bytes += n;
	if (od->scanned_bytes > OMPI_SCAN_MAX) {
		od->st = OS_DEAD;
		od->ncarry = 0;
		o->st->fallback++;
	}
}

/* Position of the first frame header in p[0..n) whose SCAN_MIN bytes are all in p, or n.
 * Every header has type BTL_SEND (1) in its second byte, so only the places where memchr
 * finds that byte are judged: user data costs about what memchr costs. */
static size_t
scan_find(const uint8_t *p, size_t n)
{
	const uint8_t *q = p + 1, *end;

	if (n < SCAN_MIN)
		return n;
	end = p + (n - SCAN_MIN) + 2;	/* type byte of the last judgeable position, + 1 */
	while (q < end && (q = memchr(q, BTL_SEND, (size_t)(end - q))) != NULL) {
		if (send_frame_ok(q - 1, n - (size_t)(q - 1 - p)))
			return (size_t)(q - 1 - p);
		q++;
	}
	return n;
}

/* Framing is lost in direction d: look for the next frame header in p[0..n), after the
 * bytes carried from earlier pieces. Returns the bytes of p consumed; when a header is
 * found the state is OS_HDR and p continues at the header (or the carried bytes from the
 * header on were replayed through feed). Work is bounded per byte (memchr) and in all by
 * OMPI_SCAN_MAX bytes per loss of framing. */
static size_t
scan(struct ompi *o, int d, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct odir *od = &o->d[d];
	size_t i, k;

	if (od->ncarry > 0) {
		/* the positions in the carried bytes, judged with the head of p */
		uint8_t j[2 * (SCAN_MIN - 1)];
		size_t nc = od->ncarry, take = n < SCAN_MIN - 1 ? n : SCAN_MIN - 1, jl = nc + take;

		memcpy(j, od->carry, nc);
		memcpy(j + nc, p, take);
		for (i = 0; i < nc; i++) {
			if (jl - i < SCAN_MIN) {	/* too few bytes to judge: keep them */
				memmove(od->carry, j + i, jl - i);
				od->ncarry = jl - i;
				scan_account(o, od, i);
				return take;
			}
			if (send_frame_ok(j + i, jl - i)) {
				uint8_t tmp[SCAN_MIN - 1];

				memcpy(tmp, j + i, nc - i);
				od->ncarry = 0;
				od->scanned_bytes += i;
				od->st = OS_HDR;
				od->hlen = 0;
				/* the carried bytes from the header on; nesting is bounded as each
				 * level replays fewer than SCAN_MIN bytes into a new state */
				feed(o, d, tmp, nc - i, t_ns);
				return 0;
			}
		}
		od->ncarry = 0;
		scan_account(o, od, nc);
		if (od->st == OS_DEAD)
			return n;
	}
	i = scan_find(p, n);
	if (i < n) {
		od->scanned_bytes += i;
		od->st = OS_HDR;
		od->hlen = 0;
		return i;
	}
	/* nothing: keep the bytes too near the end to be judged yet */
	k = n < SCAN_MIN - 1 ? n : SCAN_MIN - 1;
	memcpy(od->carry, p + n - k, k);
	od->ncarry = k;
	scan_account(o, od, n - k);
	return n;
}

/* The header collected in direction d is not one we accept: search again from its second
 * byte (the collected bytes may hold the next header). Recursion through feed is bounded:
 * every level consumes at least one byte of a fixed-size window. */
static void
bad_header(struct ompi *o, int d, int64_t t_ns)
{
	uint8_t tmp[HDR_MAX];
	size_t rest = o->d[d].hlen - 1;

	memcpy(tmp, o->d[d].hdr + 1, rest);
	o->st->bad++;
	lose_framing(o, d);
	feed(o, d, tmp, rest, t_ns);
}

static void
feed(struct ompi *o, int d, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct odir *od = &o->d[d];

	while (n > 0) {
		switch (od->st) {
		case OS_HS: {
			size_t k = HS_LEN - od->hlen < n ? HS_LEN - od->hlen : n;

			memcpy(od->hdr + od->hlen, p, k);
			od->hlen += k, p += k, n -= k;
			if (od->hlen == HS_LEN) {
				struct rd r = rd_make(od->hdr, HS_LEN);

				od->jobid = rd_le32(&r);
				od->vpid = rd_le32(&r);
				od->hlen = 0;
				if (memcmp(od->hdr + 8, "OPAL-TCP-BTL", 12) != 0) {
					o->st->bad++;
					od->st = OS_DEAD;
					o->st->fallback++;
					return;
				}
				od->hs_ok = true;
				od->st = OS_HDR;
			}
			break;
		}
		case OS_HDR: {
			int need = hdr_need(od);
			size_t k;

			if (need < 0) {
				bad_header(o, d, t_ns);
				break;
			}
			if (need == 0) {
				frame_start(o, d);
				if (od->body_left == 0)
					frame_done(o, d, t_ns);
				break;
			}
			if (od->hlen == 0)
				od->t_frame_ns = t_ns;
			k = (size_t)need - od->hlen < n ? (size_t)need - od->hlen : n;
			memcpy(od->hdr + od->hlen, p, k);
			od->hlen += k, p += k, n -= k;
			need = hdr_need(od);
			if (need == 0) {
				frame_start(o, d);
				if (od->body_left == 0)
					frame_done(o, d, t_ns);
			} else if (need < 0) {
				bad_header(o, d, t_ns);
			}
			break;
		}
		case OS_BODY: {
			size_t k = od->body_left < n ? (size_t)od->body_left : n;

			if (od->kind == FK_DATA && od->cur >= 0 && od->pend[od->cur].used)
				od->pend[od->cur].got_bytes += k;
			od->body_left -= k, p += k, n -= k;
			if (od->body_left == 0)
				frame_done(o, d, t_ns);
			break;
		}
		case OS_SCAN: {
			size_t k = scan(o, d, p, n, t_ns);

			p += k, n -= k;
			break;
		}
		case OS_DEAD:
			return;
		}
	}
}

static void
ompi_data(void *state, int dir, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct ompi *o = state;

	if (dir != 0 && dir != 1)
		return;
	o->d[dir].t_last_ns = t_ns;
	feed(o, dir, p, n, t_ns);
}

/* Bytes of the frame whose header is being collected in od that are still to come after
 * the hlen collected, when its BTL header is complete and plausible; else -1. */
static int64_t
hdr_frame_left(const struct odir *od)
{
	uint64_t total;

	if (od->hlen < BTL_HDR_LEN || hdr_need(od) <= 0)
		return -1;
	total = frame_total(od->hdr);
	return total > od->hlen ? (int64_t)(total - od->hlen) : -1;
}

/* n bytes of direction dir missing: not captured (a gap: the messages it touches are
 * flagged, a frame whose header was cut is skipped by its length, the framing is searched
 * for again past what the headers told), or left out on purpose by the capture (cut):
 * inside the current frame's body, whose size its header gave, they are data not needed. */
static void
missing(struct ompi *o, int dir, uint64_t n, int64_t t_ns, bool cut)
{
	struct odir *od;
	int64_t left;

	if ((dir != 0 && dir != 1) || n == 0)
		return;
	od = &o->d[dir];
	if (cut && (od->st != OS_BODY || n > od->body_left))
		cut = false;	/* not where the capture leaves bytes out: damage */
	if (!cut)
		o->st->gaps++;
	od->t_last_ns = t_ns;
	if (od->st == OS_DEAD)
		return;
	if (od->st == OS_HDR && (left = hdr_frame_left(od)) >= 0) {
		/* the header is cut but its length is known: skip the frame by that length */
		od->next_flags |= MSG_F_GAP;
		od->hlen = 0;
		od->eager = false;
		od->cur = -1;
		od->kind = FK_SKIP;
		if (n < (uint64_t)left) {
			od->body_left = (uint64_t)left - n;
			od->st = OS_BODY;
			return;
		}
		od->st = OS_HDR;
		n -= (uint64_t)left;
		if (n == 0)
			return;
	}
	if (od->st == OS_BODY) {
		/* the frame's size is known from its header: the gap covers body_left of it */
		uint64_t k = n < od->body_left ? n : od->body_left;

		if (od->kind == FK_DATA && od->cur >= 0 && od->pend[od->cur].used) {
			od->pend[od->cur].got_bytes += k;
			if (!cut)
				od->pend[od->cur].flags |= MSG_F_GAP;
		}
		if (od->eager && !cut)
			od->next_flags |= MSG_F_GAP;
		od->body_left -= k;
		n -= k;
		if (od->body_left == 0)
			frame_done(o, dir, t_ns);
		if (n == 0)
			return;
	}
	/* past what the headers told: the next header is in the gap */
	od->eager = false;
	lose_framing(o, dir);
	od->next_flags |= MSG_F_GAP;
}

static void
ompi_gap(void *state, int dir, uint64_t n, int64_t t_ns)
{
	missing(state, dir, n, t_ns, false);
}

static void
ompi_skip(void *state, int dir, uint64_t n, int64_t t_ns)
{
	missing(state, dir, n, t_ns, true);
}

static void
ompi_close(void *state, int64_t t_ns)
{
	struct ompi *o = state;
	int d, i;

	if (o == NULL)
		return;
	(void)t_ns;
	for (d = 0; d < 2; d++) {
		struct odir *od = &o->d[d];

		if (od->st == OS_BODY && od->eager) {	/* an eager frame cut short */
			od->next_flags |= MSG_F_TRUNC;
			od->frame_bytes -= od->body_left;
			if (od->frame_bytes >= BTL_HDR_LEN + 14)
				frame_done(o, d, od->t_last_ns);
		}
		for (;;) {	/* oldest first */
			int old = -1;

			for (i = 0; i < (int)od->npend; i++)
				if (od->pend[i].used && (old < 0 || od->pend[i].age < od->pend[old].age))
					old = i;
			if (old < 0)
				break;
			emit_pending(o, d, &od->pend[old], MSG_F_TRUNC);
		}
		free(od->pend);
	}
	free(o);
}

static void
ompi_ranks(void *state, int32_t rank[2])
{
	const struct ompi *o = state;
	enum rank_src how;

	rank[0] = world_of(o, 0, &how);
	rank[1] = world_of(o, 1, &how);
}

const struct decoder dec_ompi = {
	.name = "ompi",
	.detect = ompi_detect,
	.open = ompi_open,
	.data = ompi_data,
	.gap = ompi_gap,
	.skip = ompi_skip,
	.close = ompi_close,
	.ranks = ompi_ranks,
};
